// Throughput of the delta-rule kernels (optimized/delta_rule): chunked WY/UT form (forward
// substitution and product-form inverse) against the naive recurrence, f32, with an Eigen sgemm
// roofline measured in the same run (single thread: no OpenMP in this build).
//
// Counters (per call, H heads of T tokens, dk = dv = d):
//   tokens/s      H*T tokens per second
//   GFLOP/s       FLOPs the algorithm performs: chunked H*T*(2*(3 d^2 + 2 C d + C d) + C d)
//                 (full C x C products counted, as in the header), recurrent 6*H*T*d^2
//   eff_GFLOP/s   6*H*T*d^2 for both (the recurrence's count), so the two are comparable
#include "recall/optimized/delta_rule.hpp"

#include <Eigen/Dense>
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using recall::opt::DeltaRuleArgs;
using recall::opt::UnitLowerSolve;

// H heads, dk = dv = d; unit-norm keys and beta in [0,1] (non-expansive steps, bounded state),
// gates in [0.9, 1].
struct Problem {
  int H, T, d;
  std::vector<float> q, k, v, beta, lg, o, s;
  Problem(int H_, int T_, int d_, bool gated) : H(H_), T(T_), d(d_) {
    std::mt19937_64 rng(1);
    std::normal_distribution<float> n(0.0f, 1.0f);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    const std::size_t rows = std::size_t(H) * T;
    q.resize(rows * d); k.resize(rows * d); v.resize(rows * d); beta.resize(rows);
    for (std::size_t r = 0; r < rows; ++r) {
      float n2 = 0;
      for (int j = 0; j < d; ++j) { k[r * d + j] = n(rng); n2 += k[r * d + j] * k[r * d + j]; }
      for (int j = 0; j < d; ++j) k[r * d + j] /= std::sqrt(n2);
      for (int j = 0; j < d; ++j) { q[r * d + j] = n(rng) / std::sqrt(float(d)); v[r * d + j] = n(rng); }
      beta[r] = u(rng);
    }
    if (gated) {
      lg.resize(rows);
      for (float& g : lg) g = std::log(0.9f + 0.1f * u(rng));
    }
    o.assign(rows * d, 0.0f);
    s.assign(std::size_t(H) * d * d, 0.0f);
  }
  DeltaRuleArgs<float> args(int chunk, UnitLowerSolve how) {
    DeltaRuleArgs<float> a;
    a.H = H; a.T = T; a.dk = a.dv = d;
    a.q = q.data(); a.k = k.data(); a.v = v.data(); a.beta = beta.data();
    a.log_alpha = lg.empty() ? nullptr : lg.data();
    a.o = o.data(); a.s_final = s.data(); a.chunk = chunk; a.solve = how;
    return a;
  }
};

void set_counters(benchmark::State& state, double tokens, double d, double flops_per_call) {
  const double it = static_cast<double>(state.iterations());
  state.counters["tokens/s"] = benchmark::Counter(tokens * it, benchmark::Counter::kIsRate);
  state.counters["GFLOP/s"] = benchmark::Counter(flops_per_call * it / 1e9, benchmark::Counter::kIsRate);
  state.counters["eff_GFLOP/s"] = benchmark::Counter(6.0 * tokens * d * d * it / 1e9, benchmark::Counter::kIsRate);
}

// Args: H, T, d, gated
void BM_delta_recurrent_f32(benchmark::State& state) {
  const int H = int(state.range(0)), T = int(state.range(1)), d = int(state.range(2));
  Problem p(H, T, d, state.range(3) != 0);
  auto a = p.args(1, UnitLowerSolve::forward_substitution);
  for (auto _ : state) {
    recall::opt::delta_rule_recurrent(a);
    benchmark::DoNotOptimize(p.o.data());
    benchmark::DoNotOptimize(p.s.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, double(H) * T, d, 6.0 * H * T * double(d) * d);
}

// Args: H, T, d, C, gated, prodinv
void BM_delta_chunked_f32(benchmark::State& state) {
  const int H = int(state.range(0)), T = int(state.range(1)), d = int(state.range(2)), C = int(state.range(3));
  Problem p(H, T, d, state.range(4) != 0);
  auto a = p.args(C, state.range(5) ? UnitLowerSolve::product_inverse : UnitLowerSolve::forward_substitution);
  for (auto _ : state) {
    recall::opt::delta_rule_chunked(a);
    benchmark::DoNotOptimize(p.o.data());
    benchmark::DoNotOptimize(p.s.data());
    benchmark::ClobberMemory();
  }
  const double dd = d, cc = C;
  set_counters(state, double(H) * T, d, double(H) * T * (2.0 * (3.0 * dd * dd + 2.0 * cc * dd + cc * dd) + cc * dd));
}

// Roofline: square single-precision GEMM through Eigen, same binary, same run.
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
// The chunked kernel's GEMM shape: (C x d) * (d x d) and (d x C) * (C x d), C = 64, d = 128.
void BM_eigen_sgemm_chunk_shape(benchmark::State& state) {
  const Eigen::Index C = state.range(0), d = state.range(1);
  Eigen::MatrixXf A = Eigen::MatrixXf::Random(C, d), B = Eigen::MatrixXf::Random(d, d), X(C, d);
  for (auto _ : state) {
    X.noalias() = A * B;
    benchmark::DoNotOptimize(X.data());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * double(C) * d * d * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

void recurrent_args(benchmark::internal::Benchmark* b) {
  b->Args({4, 4096, 128, 0});
  b->Args({4, 4096, 128, 1});
  b->Args({1, 4096, 64, 0});
  b->Args({1, 16384, 128, 0});
}
void chunked_args(benchmark::internal::Benchmark* b) {
  for (int C : {16, 32, 64, 128}) b->Args({4, 4096, 128, C, 0, 0});
  b->Args({4, 4096, 128, 64, 1, 0});  // gated
  b->Args({4, 4096, 128, 64, 0, 1});  // product-form inverse
  b->Args({4, 4096, 128, 64, 1, 1});
  b->Args({1, 4096, 64, 64, 0, 0});
  b->Args({1, 16384, 128, 64, 0, 0});
  b->Args({4, 4097, 128, 64, 0, 0});  // a tail chunk of one token
}

}  // namespace

BENCHMARK(BM_eigen_sgemm)->Arg(256)->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_eigen_sgemm_chunk_shape)->Args({64, 128})->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(BM_delta_recurrent_f32)->ArgNames({"H", "T", "d", "gated"})->Apply(recurrent_args)->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_delta_chunked_f32)
    ->ArgNames({"H", "T", "d", "C", "gated", "prodinv"})
    ->Apply(chunked_args)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.5);

BENCHMARK_MAIN();
