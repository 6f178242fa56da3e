// Throughput of the linear-attention kernels (optimized/), an Eigen sgemm roofline measured in the
// same run, and the speed of the multiprecision reference (the oracle).
//
// Counters:
//   tokens/s     tokens processed per second
//   GFLOP/s      FLOPs the algorithm performs: chunked 2*T*(C*dk + C*dv + 2*dk*dv) (full C-blocks),
//                recurrent 4*T*dk*dv
//   eff_GFLOP/s  4*T*dk*dv for both (the recurrence's count), so the two are comparable
//   MFLOP/s      MP reference: 4*T*dk*dv (each multiply-add = 2 FLOPs); per-operation costs of
//                the MP scalar layer are in bench_mp_scalar
#include "recall/optimized/linear_attention.hpp"
#include "recall/reference/forms.hpp"

#include <Eigen/Dense>
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using recall::opt::LinearAttentionArgs;

std::vector<float> random_vector(std::size_t n, float lo, float hi, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> x(n);
  for (float& e : x) e = u(rng);
  return x;
}

// One head (B = H = 1), dk = dv = d; inputs scaled so that the ungated running sums stay moderate.
struct Problem {
  int T, d;
  std::vector<float> q, k, v, lg, o, s;
  Problem(int T_, int d_, bool gated) : T(T_), d(d_) {
    const float sc = 1.0f / std::sqrt(static_cast<float>(d));
    q = random_vector(std::size_t(T) * d, -sc, sc, 1);
    k = random_vector(std::size_t(T) * d, -sc, sc, 2);
    v = random_vector(std::size_t(T) * d, -1.0f, 1.0f, 3);
    if (gated) {
      lg = random_vector(std::size_t(T), 0.9f, 1.0f, 4);
      for (float& g : lg) g = std::log(g);
    }
    o.assign(std::size_t(T) * d, 0.0f);
    s.assign(std::size_t(d) * d, 0.0f);
  }
  LinearAttentionArgs<float> args(int chunk) {
    LinearAttentionArgs<float> a;
    a.T = T;
    a.dk = a.dv = d;
    a.q = q.data();
    a.k = k.data();
    a.v = v.data();
    a.log_gate = lg.empty() ? nullptr : lg.data();
    a.o = o.data();
    a.s_final = s.data();
    a.chunk = chunk;
    return a;
  }
};

void set_counters(benchmark::State& state, double T, double d, double flops_per_call) {
  const double it = static_cast<double>(state.iterations());
  state.counters["tokens/s"] = benchmark::Counter(T * it, benchmark::Counter::kIsRate);
  state.counters["GFLOP/s"] = benchmark::Counter(flops_per_call * it / 1e9, benchmark::Counter::kIsRate);
  state.counters["eff_GFLOP/s"] = benchmark::Counter(4.0 * T * d * d * it / 1e9, benchmark::Counter::kIsRate);
}

// Args: T, d
void BM_recurrent_f32(benchmark::State& state) {
  const int T = static_cast<int>(state.range(0)), d = static_cast<int>(state.range(1));
  Problem p(T, d, false);
  auto a = p.args(1);
  for (auto _ : state) {
    recall::opt::linear_attention_recurrent(a);
    benchmark::DoNotOptimize(p.o.data());
    benchmark::DoNotOptimize(p.s.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, T, d, 4.0 * T * d * d);
}

// Args: T, d, C, gated
void BM_chunked_f32(benchmark::State& state) {
  const int T = static_cast<int>(state.range(0)), d = static_cast<int>(state.range(1));
  const int C = static_cast<int>(state.range(2));
  Problem p(T, d, state.range(3) != 0);
  auto a = p.args(C);
  for (auto _ : state) {
    recall::opt::linear_attention_chunked(a);
    benchmark::DoNotOptimize(p.o.data());
    benchmark::DoNotOptimize(p.s.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, T, d, 2.0 * T * (double(C) * d + double(C) * d + 2.0 * d * d));
}

// Roofline: square single-precision GEMM through Eigen (single thread: no OpenMP in this build).
void BM_eigen_sgemm(benchmark::State& state) {
  const Eigen::Index N = state.range(0);
  Eigen::MatrixXf A = Eigen::MatrixXf::Random(N, N), B = Eigen::MatrixXf::Random(N, N), C(N, N);
  for (auto _ : state) {
    C.noalias() = A * B;
    benchmark::DoNotOptimize(C.data());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * double(N) * N * N * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

// The MP oracle at 50 digits, T = 256, dk = dv = 32. Inputs converted from float, as the oracle
// receives them (ops.cpp converts the f32/f64 inputs exactly), unless `full`: then every input has
// a 168-bit significand (x / 3), which takes MPFR's general product path (no exact short products).
struct MpProblem {
  recall::ref::Matrix<recall::mp_t> Q, K, V;
  recall::ref::Vector<recall::mp_t> log_gates;
  MpProblem(std::size_t T, std::size_t d, bool full = false) : Q(T, d), K(T, d), V(T, d), log_gates(T) {
    auto q = random_vector(T * d, -1.0f, 1.0f, 11), k = random_vector(T * d, -1.0f, 1.0f, 12),
         v = random_vector(T * d, -1.0f, 1.0f, 13), g = random_vector(T, 0.9f, 1.0f, 14);
    for (std::size_t i = 0; i < T * d; ++i) {
      Q.a[i] = recall::mp_t(q[i]);
      K.a[i] = recall::mp_t(k[i]);
      V.a[i] = recall::mp_t(v[i]);
      if (full) {
        Q.a[i] /= 3;
        K.a[i] /= 3;
        V.a[i] /= 3;
      }
    }
    for (std::size_t t = 0; t < T; ++t) log_gates[t] = recall::mp_t(std::log(g[t]));
  }
};

void set_mp_counter(benchmark::State& state, double T, double d) {
  state.counters["MFLOP/s"] =
      benchmark::Counter(4.0 * T * d * d * double(state.iterations()) / 1e6, benchmark::Counter::kIsRate);
}

void BM_mp_reference(benchmark::State& state) {
  recall::MpDigitsScope digits(50);
  const std::size_t T = 256, d = 32;
  MpProblem p(T, d);
  for (auto _ : state) {
    auto r = recall::ref::linear_attention(p.Q, p.K, p.V);
    benchmark::DoNotOptimize(r.O.a.data());
    benchmark::ClobberMemory();
  }
  set_mp_counter(state, T, d);
}

// Same, every input with a full 168-bit significand (the general multiply path).
void BM_mp_reference_fullprec(benchmark::State& state) {
  recall::MpDigitsScope digits(50);
  const std::size_t T = 256, d = 32;
  MpProblem p(T, d, true);
  for (auto _ : state) {
    auto r = recall::ref::linear_attention(p.Q, p.K, p.V);
    benchmark::DoNotOptimize(r.O.a.data());
    benchmark::ClobberMemory();
  }
  set_mp_counter(state, T, d);
}

// Gated recurrence (A001-GATED-LINATTN): the state is scaled by exp(log a_t) every token, so it
// carries full significands; MFLOP/s counts 4*T*dk*dv as above (the d*d scalings are extra work).
void BM_mp_reference_gated(benchmark::State& state) {
  recall::MpDigitsScope digits(50);
  const std::size_t T = 256, d = 32;
  MpProblem p(T, d);
  for (auto _ : state) {
    auto r = recall::ref::gated_linear_attention(p.Q, p.K, p.V, p.log_gates);
    benchmark::DoNotOptimize(r.O.a.data());
    benchmark::ClobberMemory();
  }
  set_mp_counter(state, T, d);
}

// The chunked form (forms.hpp, C = 64) performs ~2x the multiply-adds of the recurrence at this
// shape (intra-chunk scores and outputs, inter-chunk read-out, state passing); MFLOP/s still
// counts 4*T*dk*dv, so it reads as the recurrence-equivalent rate.
void BM_mp_reference_chunked(benchmark::State& state) {
  recall::MpDigitsScope digits(50);
  const std::size_t T = 256, d = 32;
  MpProblem p(T, d);
  for (auto _ : state) {
    auto r = recall::ref::linear_attention_chunked(p.Q, p.K, p.V, 64);
    benchmark::DoNotOptimize(r.O.a.data());
    benchmark::ClobberMemory();
  }
  set_mp_counter(state, T, d);
}

void recurrent_args(benchmark::internal::Benchmark* b) {
  for (int d : {64, 128})
    for (int T : {1024, 4096, 16384}) b->Args({T, d});
}
void chunked_args(benchmark::internal::Benchmark* b) {
  for (int d : {64, 128})
    for (int T : {1024, 4096, 16384}) {
      b->Args({T, d, 64, 0});
      if (d == 128) b->Args({T, d, 128, 0});
    }
  for (int d : {64, 128}) b->Args({4096, d, 64, 1});  // gated
}

}  // namespace

BENCHMARK(BM_eigen_sgemm)->Arg(256)->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_recurrent_f32)->ArgNames({"T", "d"})->Apply(recurrent_args)->Unit(benchmark::kMillisecond)->MinTime(0.3);
BENCHMARK(BM_chunked_f32)
    ->ArgNames({"T", "d", "C", "gated"})
    ->Apply(chunked_args)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.5);
BENCHMARK(BM_mp_reference)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_mp_reference_fullprec)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_mp_reference_gated)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_mp_reference_chunked)->Unit(benchmark::kMillisecond)->MinTime(1.0);

BENCHMARK_MAIN();
