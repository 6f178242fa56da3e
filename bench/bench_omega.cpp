// Throughput of the Omega-rule, Atlas and Newton–Schulz kernels (optimized/omega.hpp, newton_schulz.hpp),
// single thread, one (batch, head), float, phi = id (D = dk = dv = d) unless named:
//   BM_omega_sequential/T/d/c   exact token-sequential Omega rule, window c
//   BM_omega_chunked/T/d/c      the paper's frozen-gradient chunk form (chunk 64), window c. The ratio
//                               time(c) / time(1) at L = 4096, b = 64 is the CPU measurement of
//                               A002-OMEGA-CHUNK-COST's "no significant overhead" (the spec's decision rule,
//                               ratio <= 1.25 for c <= 16, is stated for a device kernel: report, not decide)
//   BM_omega_chunked_poly2/T/dk/c  degree-2 monomial features (D = C(dk + 2, 2)), dv = 64
//   BM_newton_schulz/batch/m/n  NS5 on `batch` m x n matrices
//   BM_atlas_chunked/T/d        Atlas (EQ32, window 4, chunk 16): one NS5 of the d x d momentum per token
// Counters: GFLOP/s of each kernel's own multiply-adds (the formulas in the headers).
#include "recall/optimized/newton_schulz.hpp"
#include "recall/optimized/omega.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace {

std::vector<float> randv(std::size_t n, std::uint64_t seed, float scale = 1.0f) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> x(n);
  for (float& e : x) e = d(rng);
  return x;
}

// unit-norm rows (keys and queries are L2-normalised in the spec's default instances)
void normalise_rows(std::vector<float>& x, int d) {
  for (std::size_t r = 0; r + d <= x.size(); r += d) {
    float s = 0;
    for (int j = 0; j < d; ++j) s += x[r + j] * x[r + j];
    s = std::sqrt(s);
    for (int j = 0; j < d; ++j) x[r + j] /= s > 0 ? s : 1.0f;
  }
}

struct OmegaInputs {
  std::vector<float> q, k, v, la, eta, gamma, o;
  OmegaInputs(int T, int dk, int dv, int c) {
    q = randv(std::size_t(T) * dk, 1);
    k = randv(std::size_t(T) * dk, 2);
    v = randv(std::size_t(T) * dv, 3);
    normalise_rows(q, dk);
    normalise_rows(k, dk);
    std::mt19937_64 rng(4);
    std::uniform_real_distribution<float> U(0.0f, 1.0f);
    la.resize(T);
    eta.resize(T);
    gamma.resize(std::size_t(T) * c);
    for (int t = 0; t < T; ++t) {
      la[t] = std::log(0.5f + 0.5f * U(rng));
      eta[t] = (0.01f + 0.49f * U(rng)) / std::max(1.0f, float(c));
    }
    for (float& g : gamma) g = U(rng);
    o.resize(std::size_t(T) * dv);
  }
  template <class A> void bind(A& a, int T, int dk, int dv, int c, int degree) {
    a.T = T, a.dk = dk, a.dv = dv, a.c = c, a.degree = degree;
    a.q = q.data(), a.k = k.data(), a.v = v.data(), a.log_alpha = la.data(), a.eta = eta.data(), a.gamma = gamma.data();
    a.o = o.data();
  }
};

double omega_chunk_flops(int T, int D, int dv, int c, int b) {
  double f = 0;
  for (int s = 0; s < T; s += b) {
    const int e = std::min(T, s + b), n = e - s, ni = e - std::max(0, s - c + 1);
    f += 2.0 * ni * D * dv + 2.0 * n * ni * D + 2.0 * n * ni * dv + 2.0 * n * D * dv + 2.0 * ni * D * dv + 2.0 * n * n * ni;
  }
  return f;
}

void BM_omega_sequential(benchmark::State& state) {
  const int T = int(state.range(0)), d = int(state.range(1)), c = int(state.range(2));
  OmegaInputs in(T, d, d, c);
  recall::opt::OmegaArgs<float> a;
  in.bind(a, T, d, d, c, 0);
  for (auto _ : state) {
    recall::opt::omega_rule_sequential(a);
    benchmark::DoNotOptimize(in.o.data());
  }
  double f = 0;
  for (int t = 0; t < T; ++t) f += 4.0 * std::min(c, t + 1) * d * d + 2.0 * d * d;
  state.counters["GFLOP/s"] = benchmark::Counter(f * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_omega_chunked(benchmark::State& state) {
  const int T = int(state.range(0)), d = int(state.range(1)), c = int(state.range(2)), b = 64;
  OmegaInputs in(T, d, d, c);
  recall::opt::OmegaArgs<float> a;
  in.bind(a, T, d, d, c, 0);
  a.chunk = b;
  for (auto _ : state) {
    recall::opt::omega_rule_chunked(a);
    benchmark::DoNotOptimize(in.o.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(omega_chunk_flops(T, d, d, c, b) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_omega_chunked_poly2(benchmark::State& state) {
  const int T = int(state.range(0)), dk = int(state.range(1)), c = int(state.range(2)), dv = 64, b = 64;
  const int D = recall::opt::omega_feature_dim(dk, 2);
  OmegaInputs in(T, dk, dv, c);
  recall::opt::OmegaArgs<float> a;
  in.bind(a, T, dk, dv, c, 2);
  a.chunk = b;
  for (auto _ : state) {
    recall::opt::omega_rule_chunked(a);
    benchmark::DoNotOptimize(in.o.data());
  }
  state.counters["D"] = D;
  state.counters["GFLOP/s"] = benchmark::Counter(omega_chunk_flops(T, D, dv, c, b) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_newton_schulz(benchmark::State& state) {
  const int batch = int(state.range(0)), m = int(state.range(1)), n = int(state.range(2));
  auto g = randv(std::size_t(batch) * m * n, 5);
  std::vector<float> x(g.size());
  recall::opt::NewtonSchulzArgs<float> a;
  a.batch = batch, a.m = m, a.n = n, a.g = g.data(), a.x = x.data();
  for (auto _ : state) {
    recall::opt::newton_schulz(a);
    benchmark::DoNotOptimize(x.data());
  }
  const double r = std::min(m, n), s = std::max(m, n);
  const double f = double(batch) * a.steps * (2 * r * r * s + 2 * r * r * r + 2 * r * r * s);
  state.counters["GFLOP/s"] = benchmark::Counter(f * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_atlas_chunked(benchmark::State& state) {
  const int T = int(state.range(0)), d = int(state.range(1)), c = 4;
  OmegaInputs in(T, d, d, c);
  std::vector<float> lt(T, std::log(0.9f));
  recall::opt::AtlasArgs<float> a;
  in.bind(a, T, d, d, c, 0);
  a.chunk = 16;
  a.log_theta = lt.data();
  for (auto _ : state) {
    recall::opt::atlas_chunked(a);
    benchmark::DoNotOptimize(in.o.data());
  }
  const double ns = 5.0 * (6.0 * d * d * d);
  const double f = double(T) * (ns + 2.0 * c * d * d + 4.0 * d * d);
  state.counters["GFLOP/s"] = benchmark::Counter(f * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

BENCHMARK(BM_omega_sequential)->Args({4096, 64, 1})->Args({4096, 64, 4})->Args({4096, 64, 16})->Args({4096, 128, 1})->Args({4096, 128, 16})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_omega_chunked)
    ->Args({4096, 64, 1})->Args({4096, 64, 2})->Args({4096, 64, 4})->Args({4096, 64, 8})->Args({4096, 64, 16})->Args({4096, 64, 64})
    ->Args({4096, 128, 1})->Args({4096, 128, 16})->Args({4096, 128, 64})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_omega_chunked_poly2)->Args({4096, 8, 1})->Args({4096, 8, 16})->Args({4096, 16, 16})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_newton_schulz)->Args({64, 64, 64})->Args({64, 128, 128})->Args({16, 64, 256})->Args({16, 256, 64})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_atlas_chunked)->Args({1024, 32})->Args({1024, 64})->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
