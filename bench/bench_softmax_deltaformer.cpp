// Throughput of the softmax-attention and DeltaFormer kernels (optimized/) against an Eigen sgemm
// roofline measured in the same binary. Single thread (no OpenMP in this build). One head.
//
// Counters:
//   GFLOP/s   the causal work 2 * T(T+1)/2 * (dk + dv) for attention (both kernels: the naive one
//             computes the full T x T scores, twice the work, so its figure is its useful rate);
//             DeltaFormer: system T(T-1)/2 * 2dk + solve T(T-1)/2 * 2dv + read-out T(T+1)/2 * 2(dk+dv)
//   of_peak   GFLOP/s divided by the sgemm roofline (512^3) measured first in this run
#include "recall/optimized/deltaformer.hpp"
#include "recall/optimized/softmax_attention.hpp"

#include <Eigen/Dense>
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <random>
#include <vector>

namespace {

double g_roofline = 0;  // GFLOP/s of Eigen sgemm 512^3, measured on first use

double roofline() {
  if (g_roofline > 0) return g_roofline;
  const int n = 512;
  Eigen::MatrixXf A = Eigen::MatrixXf::Random(n, n), B = Eigen::MatrixXf::Random(n, n), C(n, n);
  C.noalias() = A * B;  // warm-up
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    C.noalias() = A * B;
    benchmark::DoNotOptimize(C.data());
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  g_roofline = 2.0 * n * n * n / best * 1e-9;
  return g_roofline;
}

std::vector<float> randv(std::size_t n, float sc, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(0.0f, sc);
  std::vector<float> x(n);
  for (float& e : x) e = d(rng);
  return x;
}

void BM_eigen_sgemm(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Eigen::MatrixXf A = Eigen::MatrixXf::Random(n, n), B = Eigen::MatrixXf::Random(n, n), C(n, n);
  for (auto _ : state) {
    C.noalias() = A * B;
    benchmark::DoNotOptimize(C.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * n * n * n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void attention(benchmark::State& state, bool tiled) {
  const int T = static_cast<int>(state.range(0)), d = static_cast<int>(state.range(1));
  auto q = randv(std::size_t(T) * d, 1.0f, 1), k = randv(std::size_t(T) * d, 1.0f, 2), v = randv(std::size_t(T) * d, 1.0f, 3);
  std::vector<float> o(std::size_t(T) * d);
  recall::opt::SoftmaxAttentionArgs<float, float> a;
  a.T = T; a.dk = d; a.dv = d; a.q = q.data(); a.k = k.data(); a.v = v.data(); a.o = o.data();
  a.block_q = 64; a.block_k = 64;
  for (auto _ : state) {
    if (tiled) recall::opt::softmax_attention_tiled(a);
    else recall::opt::softmax_attention_naive(a);
    benchmark::DoNotOptimize(o.data());
  }
  const double flops = 2.0 * (double(T) * (T + 1) / 2) * (2.0 * d);
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["roofline"] = roofline();
}
void BM_softmax_tiled(benchmark::State& s) { attention(s, true); }
void BM_softmax_naive(benchmark::State& s) { attention(s, false); }

void deltaformer(benchmark::State& state, recall::opt::USolve solve) {
  const int T = static_cast<int>(state.range(0)), d = static_cast<int>(state.range(1));
  // normalised kernel (well-conditioned: the comparison is of speed; accuracy is the suite's job)
  auto q = randv(std::size_t(T) * d, 1.0f, 1), k = randv(std::size_t(T) * d, 1.0f, 2), v = randv(std::size_t(T) * d, 1.0f, 3);
  std::vector<float> u(std::size_t(T) * d), o(u.size()), beta(T, 0.5f);
  recall::opt::DeltaFormerArgs<float> a;
  a.T = T; a.dk = d; a.dv = d; a.q = q.data(); a.k = k.data(); a.v = v.data(); a.u = u.data(); a.o = o.data();
  a.beta = beta.data(); a.normalized = true; a.solve = solve; a.chunk = 64;
  for (auto _ : state) {
    recall::opt::deltaformer(a);
    benchmark::DoNotOptimize(u.data());
  }
  const double tri = double(T) * (T - 1) / 2, tri1 = double(T) * (T + 1) / 2;
  const double flops = tri * 2 * d + tri * 2 * d + tri1 * 2 * (2 * d);
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["roofline"] = roofline();
}
void BM_deltaformer_substitution(benchmark::State& s) { deltaformer(s, recall::opt::USolve::substitution); }
void BM_deltaformer_blocked(benchmark::State& s) { deltaformer(s, recall::opt::USolve::blocked); }
void BM_deltaformer_triinv(benchmark::State& s) { deltaformer(s, recall::opt::USolve::product_inverse); }

void attn_args(benchmark::internal::Benchmark* b) {
  for (int T : {512, 2048}) for (int d : {64, 128}) b->Args({T, d});
}
void attn_long(benchmark::internal::Benchmark* b) {
  for (int d : {64, 128}) b->Args({8192, d});
}
void df_args(benchmark::internal::Benchmark* b) {
  for (int T : {512, 2048}) b->Args({T, 64});
}

}  // namespace

BENCHMARK(BM_eigen_sgemm)->Arg(512)->Unit(benchmark::kMillisecond)->MinTime(0.3);
BENCHMARK(BM_softmax_tiled)->ArgNames({"T", "d"})->Apply(attn_args)->Unit(benchmark::kMillisecond)->MinTime(0.3);
BENCHMARK(BM_softmax_naive)->ArgNames({"T", "d"})->Apply(attn_args)->Unit(benchmark::kMillisecond)->MinTime(0.3);
BENCHMARK(BM_softmax_tiled)->ArgNames({"T", "d"})->Apply(attn_long)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_softmax_naive)->ArgNames({"T", "d"})->Apply(attn_long)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_deltaformer_substitution)->ArgNames({"T", "d"})->Apply(df_args)->Unit(benchmark::kMillisecond)->MinTime(0.3);
BENCHMARK(BM_deltaformer_blocked)->ArgNames({"T", "d"})->Apply(df_args)->Unit(benchmark::kMillisecond)->MinTime(0.3);
BENCHMARK(BM_deltaformer_triinv)->ArgNames({"T", "d"})->Apply(df_args)->Unit(benchmark::kMillisecond)->MinTime(0.3);

BENCHMARK_MAIN();
