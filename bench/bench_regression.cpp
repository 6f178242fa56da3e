// Throughput of the test-time-regression kernels (optimized/regression.hpp) at the sizes they run at, and
// of the multiprecision oracle of the least-squares layer (the agreement suite's cost).
//
// Counters:
//   tokens/s   tokens processed per second (one head)
//   GFLOP/s    FLOPs of the algorithm: least squares T (d^3/3 + 4 d^2) (Cholesky and solve per token, two
//              rank-one moment updates, the read-out); local linear sum_t t (d^2 + 3 d) + T (d+1)^3/3
//              (the five reductions over every earlier key, one (1+d)-dimensional Cholesky per query)
//   MFLOP/s    the MP oracle, same count as the f32/f64 least-squares kernel
#include "recall/optimized/regression.hpp"
#include "recall/reference/regression_layers.hpp"

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

template <class T> std::vector<T> normal_vector(std::size_t n, double scale, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd;
  std::vector<T> x(n);
  for (T& e : x) e = static_cast<T>(scale * nd(rng));
  return x;
}

template <class T> struct Problem {
  int Tn, d;
  std::vector<T> q, k, v, lg, o, s;
  Problem(int T_, int d_, bool gated) : Tn(T_), d(d_) {
    const double sc = 1.0 / std::sqrt(static_cast<double>(d));
    q = normal_vector<T>(std::size_t(Tn) * d, sc, 1);
    k = normal_vector<T>(std::size_t(Tn) * d, sc, 2);
    v = normal_vector<T>(std::size_t(Tn) * d, 1.0, 3);
    if (gated) {
      std::mt19937_64 rng(4);
      std::uniform_real_distribution<double> u(0.95, 1.0);
      lg.resize(Tn);
      for (T& g : lg) g = static_cast<T>(std::log(u(rng)));
    }
    o.assign(std::size_t(Tn) * d, T(0));
    s.assign(std::size_t(d) * d, T(0));
  }
  recall::opt::RegressionArgs<T> args(int block = 64) {
    recall::opt::RegressionArgs<T> a;
    a.T = Tn;
    a.dk = a.dv = d;
    a.q = q.data();
    a.k = k.data();
    a.v = v.data();
    a.log_gate = lg.empty() ? nullptr : lg.data();
    a.o = o.data();
    a.s_final = s.data();
    a.chunk = block;
    return a;
  }
};

double ls_flops(double T, double d) { return T * (d * d * d / 3 + 4 * d * d); }
double ll_flops(double T, double d) { return T * (T + 1) / 2 * (d * d + 3 * d) + T * std::pow(d + 1, 3) / 3; }

template <class T> void BM_least_squares_scan_solve(benchmark::State& st) {
  const int Tn = static_cast<int>(st.range(0)), d = static_cast<int>(st.range(1));
  Problem<T> p(Tn, d, st.range(2) != 0);
  const auto a = p.args();
  for (auto _ : st) {
    recall::opt::least_squares_scan_solve(a);
    benchmark::DoNotOptimize(p.o.data());
  }
  st.counters["tokens/s"] = benchmark::Counter(static_cast<double>(Tn), benchmark::Counter::kIsIterationInvariantRate);
  st.counters["GFLOP/s"] = benchmark::Counter(ls_flops(Tn, d) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK_TEMPLATE(BM_least_squares_scan_solve, float)
    ->ArgsProduct({{1024, 4096, 16384}, {64, 128}, {0, 1}})
    ->ArgNames({"T", "d", "gated"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_least_squares_scan_solve, double)->Args({4096, 128, 1})->ArgNames({"T", "d", "gated"})->Unit(benchmark::kMillisecond);

template <class T> void BM_local_linear_stream(benchmark::State& st) {
  const int Tn = static_cast<int>(st.range(0)), d = static_cast<int>(st.range(1)), blk = static_cast<int>(st.range(2));
  Problem<T> p(Tn, d, false);
  const auto a = p.args(blk);
  const T scale = T(1) / std::sqrt(static_cast<T>(d));
  for (auto _ : st) {
    recall::opt::local_linear_attention_stream(a, scale);
    benchmark::DoNotOptimize(p.o.data());
  }
  st.counters["tokens/s"] = benchmark::Counter(static_cast<double>(Tn), benchmark::Counter::kIsIterationInvariantRate);
  st.counters["GFLOP/s"] = benchmark::Counter(ll_flops(Tn, d) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK_TEMPLATE(BM_local_linear_stream, float)
    ->ArgsProduct({{256, 1024, 4096}, {64}, {16, 64}})
    ->ArgNames({"T", "d", "block"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_local_linear_stream, float)->Args({1024, 128, 64})->ArgNames({"T", "d", "block"})->Unit(benchmark::kMillisecond);

// The MP oracle of least_squares_attention (24 digits, the agreement suite's first evaluation for f32).
void BM_least_squares_oracle_mp(benchmark::State& st) {
  const int Tn = static_cast<int>(st.range(0)), d = static_cast<int>(st.range(1));
  recall::MpDigitsScope sc(24);
  Problem<double> p(Tn, d, false);
  recall::ref::Matrix<recall::mp_t> Q(Tn, d), K(Tn, d), V(Tn, d);
  for (std::size_t i = 0; i < Q.a.size(); ++i) {
    Q.a[i] = p.q[i];
    K.a[i] = p.k[i];
    V.a[i] = p.v[i];
  }
  for (auto _ : st) benchmark::DoNotOptimize(recall::ref::least_squares_attention(Q, K, V).O.a.data());
  st.counters["MFLOP/s"] = benchmark::Counter(ls_flops(Tn, d) * 1e-6, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_least_squares_oracle_mp)->Args({256, 32})->Args({1000, 64})->ArgNames({"T", "d"})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
