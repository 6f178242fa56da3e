// Throughput of the block-sparse and multi-head memories (optimized/sparse_memory.hpp), single thread, one
// (batch, head), float:
//   BM_moba/T/d            MoBA (block 64, k_top 4, current block forced, softmax read) against
//   BM_dense_softmax/T/d   the tiled dense causal softmax kernel on the same inputs: MoBA reads at most
//                          k_top * 64 = 256 keys per query, so its time should grow ~linearly in T while the
//                          dense kernel's grows ~T^2 (compare the ratio within one run; this machine is noisy)
//   BM_multihead/T/H       batched-head linear-kernel attention, H heads of width 128 / H (Eqs. 19-23)
// Counters: GFLOP/s of the work each kernel does (MoBA: the gathered keys' 2 n (dk + dv) plus the block
// scores' 2 E dk per query; dense: 2 T(T+1)/2 (dk + dv); multi-head: 2 T(T+1)/2 (dh + dhv) per head),
// keys_per_query (MoBA).
#include "recall/optimized/softmax_attention.hpp"
#include "recall/optimized/sparse_memory.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <vector>

namespace {

std::vector<float> randv(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> x(n);
  for (float& e : x) e = d(rng);
  return x;
}

void BM_moba(benchmark::State& state) {
  const int T = static_cast<int>(state.range(0)), d = static_cast<int>(state.range(1)), B = 64, K = 4;
  auto q = randv(std::size_t(T) * d, 1), k = randv(std::size_t(T) * d, 2), v = randv(std::size_t(T) * d, 3);
  std::vector<float> o(std::size_t(T) * d);
  recall::opt::MobaArgs<float> a;
  a.T = T, a.dk = d, a.dv = d, a.q = q.data(), a.k = k.data(), a.v = v.data(), a.o = o.data(), a.block = B, a.k_top = K;
  for (auto _ : state) {
    recall::opt::moba_attention(a);
    benchmark::DoNotOptimize(o.data());
  }
  double keys = 0, scores = 0;  // keys read and block scores formed, summed over the queries
  for (int t = 0; t < T; ++t) {
    const int cur = t / B, past = std::min(K - 1, cur);
    keys += (t - cur * B + 1) + double(past) * B;
    scores += cur;
  }
  const double flops = 2.0 * keys * (2.0 * d) + 2.0 * scores * d;
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["keys_per_query"] = keys / T;
}

void BM_dense_softmax(benchmark::State& state) {
  const int T = static_cast<int>(state.range(0)), d = static_cast<int>(state.range(1));
  auto q = randv(std::size_t(T) * d, 1), k = randv(std::size_t(T) * d, 2), v = randv(std::size_t(T) * d, 3);
  std::vector<float> o(std::size_t(T) * d);
  recall::opt::SoftmaxAttentionArgs<float, float> a;
  a.T = T, a.dk = d, a.dv = d, a.q = q.data(), a.k = k.data(), a.v = v.data(), a.o = o.data();
  for (auto _ : state) {
    recall::opt::softmax_attention_tiled(a);
    benchmark::DoNotOptimize(o.data());
  }
  const double flops = 2.0 * (double(T) * (T + 1) / 2) * (2.0 * d);
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_multihead(benchmark::State& state) {
  const int T = static_cast<int>(state.range(0)), H = static_cast<int>(state.range(1)), dh = 128 / H;
  auto q = randv(std::size_t(T) * 128, 1), k = randv(std::size_t(T) * 128, 2), v = randv(std::size_t(T) * 128, 3);
  std::vector<float> o(std::size_t(T) * 128);
  recall::opt::MultiheadArgs<float> a;
  a.T = T, a.H = H, a.dh = dh, a.dhv = dh, a.q = q.data(), a.k = k.data(), a.v = v.data(), a.o = o.data();
  a.scale = 1.0 / dh;
  for (auto _ : state) {
    recall::opt::multihead_kernel_attention(a);
    benchmark::DoNotOptimize(o.data());
  }
  const double flops = 2.0 * (double(T) * (T + 1) / 2) * (2.0 * dh) * H;
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

BENCHMARK(BM_moba)->Args({1024, 128})->Args({4096, 128})->Args({8192, 128})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_dense_softmax)->Args({1024, 128})->Args({4096, 128})->Args({8192, 128})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_multihead)->Args({2048, 1})->Args({2048, 4})->Args({2048, 16})->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
