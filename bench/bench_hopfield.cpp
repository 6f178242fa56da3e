// Throughput of the modern Hopfield retrieval kernels (optimized/hopfield.hpp, A003) at realistic sizes, and
// the naive reference (ref::hopfield::dense_retrieval at double, per query and head) as the baseline.
//
// Layout [B, T, H, d] (queries L rows, patterns M rows). Counters:
//   GFLOP/s     FLOPs of the algorithm (multiply-add = 2, exps not counted):
//               dense   2 B H L M (d + dv)
//               masked  R: 2 H nnz (d + dv);  U: + 2 B H L M d (full-row LSE pass)
//               window  2 B H sum_i |M_i| (d + dv)  (kept entries only; the banded tiles compute up to
//                       (w + block) per row);  U: + 2 B H L^2 d
//               top-K   2 B H L M d (selection GEMM) + 2 B H sum |M_i| (d + dv)
//               PRF     2 B H (M + L) d D + 2 B H M D dv + 2 B H L D (dv + 1), D = n_f (2 n_f hyperbolic)
//               linear  2 B H M d dv + 2 B H L d (dv + 1)
//   queries/s   query rows (all heads) per second
//   speedup     (BM_dense_vs_reference only) reference time / kernel time at the same size, double
#include "recall/optimized/hopfield.hpp"
#include "recall/reference/hopfield.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

namespace oh = recall::opt::hopfield;

template <class T> std::vector<T> normal_vector(std::size_t n, double scale, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd;
  std::vector<T> x(n);
  for (T& e : x) e = static_cast<T>(scale * nd(rng));
  return x;
}

template <class T> struct Problem {
  int B, L, M, H, d, dv;
  std::vector<T> q, k, v, o;
  Problem(int B_, int L_, int M_, int H_, int d_, int dv_) : B(B_), L(L_), M(M_), H(H_), d(d_), dv(dv_) {
    const double sc = 1.0 / std::sqrt(static_cast<double>(d));
    q = normal_vector<T>(std::size_t(B) * L * H * d, sc, 1);
    k = normal_vector<T>(std::size_t(B) * M * H * d, sc, 2);
    v = normal_vector<T>(std::size_t(B) * M * H * dv, 1.0, 3);
    o.assign(std::size_t(B) * L * H * dv, T(0));
  }
  oh::RetrievalArgs<T> args(double beta) {
    oh::RetrievalArgs<T> a;
    a.B = B; a.H = H; a.L = L; a.M = M; a.d = d; a.dv = dv;
    a.q = q.data(); a.k = k.data(); a.v = v.data(); a.o = o.data();
    a.beta = beta;
    return a;
  }
};

void set_counters(benchmark::State& st, double flops, double queries) {
  st.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  st.counters["queries/s"] = benchmark::Counter(queries, benchmark::Counter::kIsIterationInvariantRate);
}

// ---- dense retrieval: M in {1e3, 1e4, 1e5}, d in {64, 128, 256}, L = 256, B = 1, H = 4 ----------------------------
template <class T> void BM_dense(benchmark::State& st) {
  const int M = static_cast<int>(st.range(0)), d = static_cast<int>(st.range(1)), L = 256, H = 4;
  Problem<T> p(1, L, M, H, d, d);
  auto a = p.args(1.0 / std::sqrt(double(d)) * 4);
  a.block_q = static_cast<int>(st.range(2));
  a.block_k = static_cast<int>(st.range(3));
  for (auto _ : st) {
    oh::dense_retrieval(a);
    benchmark::DoNotOptimize(p.o.data());
  }
  set_counters(st, 2.0 * H * L * double(M) * (d + d), double(H) * L);
}
BENCHMARK_TEMPLATE(BM_dense, float)
    ->ArgsProduct({{1000, 10000, 100000}, {64, 128, 256}, {64}, {256}})
    ->ArgNames({"M", "d", "bq", "bk"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_dense, double)->Args({10000, 128, 64, 256})->ArgNames({"M", "d", "bq", "bk"})->Unit(benchmark::kMillisecond);
// tile-size sensitivity
BENCHMARK_TEMPLATE(BM_dense, float)
    ->ArgsProduct({{10000}, {128}, {32, 128}, {128, 512}})
    ->ArgNames({"M", "d", "bq", "bk"})
    ->Unit(benchmark::kMillisecond);

// ---- the naive reference at double as the baseline (small size), and the kernel at the same size ----------------
// ref::hopfield::dense_retrieval per (query, head): explicit scores, max-shifted softmax, weighted sum of rows.
void BM_dense_reference_double(benchmark::State& st) {
  const int M = static_cast<int>(st.range(0)), d = static_cast<int>(st.range(1)), L = static_cast<int>(st.range(2)), H = 1;
  Problem<double> p(1, L, M, H, d, d);
  recall::ref::Matrix<double> K(M, d), V(M, d);
  std::copy(p.k.begin(), p.k.end(), K.a.begin());
  std::copy(p.v.begin(), p.v.end(), V.a.begin());
  const double beta = 0.5;
  for (auto _ : st)
    for (int i = 0; i < L; ++i) {
      const recall::ref::Vector<double> x(p.q.begin() + std::ptrdiff_t(i) * d, p.q.begin() + std::ptrdiff_t(i + 1) * d);
      benchmark::DoNotOptimize(recall::ref::hopfield::dense_retrieval(V, K, x, beta).data());
    }
  set_counters(st, 2.0 * L * double(M) * (d + d), L);
}
BENCHMARK(BM_dense_reference_double)->Args({1000, 64, 64})->ArgNames({"M", "d", "L"})->Unit(benchmark::kMillisecond);

// The kernel at the reference's size, with the measured speedup over one timed reference evaluation.
void BM_dense_vs_reference(benchmark::State& st) {
  const int M = static_cast<int>(st.range(0)), d = static_cast<int>(st.range(1)), L = static_cast<int>(st.range(2));
  Problem<double> p(1, L, M, 1, d, d);
  recall::ref::Matrix<double> K(M, d), V(M, d);
  std::copy(p.k.begin(), p.k.end(), K.a.begin());
  std::copy(p.v.begin(), p.v.end(), V.a.begin());
  const double beta = 0.5;
  double ref_s = 1e300;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < L; ++i) {
      const recall::ref::Vector<double> x(p.q.begin() + std::ptrdiff_t(i) * d, p.q.begin() + std::ptrdiff_t(i + 1) * d);
      benchmark::DoNotOptimize(recall::ref::hopfield::dense_retrieval(V, K, x, beta).data());
    }
    ref_s = std::min(ref_s, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  auto a = p.args(beta);
  double ker_s = 0;
  std::int64_t n = 0;
  for (auto _ : st) {
    const auto t0 = std::chrono::steady_clock::now();
    oh::dense_retrieval(a);
    benchmark::DoNotOptimize(p.o.data());
    ker_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++n;
  }
  set_counters(st, 2.0 * L * double(M) * (d + d), L);
  st.counters["speedup"] = ref_s / (ker_s / double(std::max<std::int64_t>(n, 1)));
}
BENCHMARK(BM_dense_vs_reference)->Args({1000, 64, 64})->ArgNames({"M", "d", "L"})->Unit(benchmark::kMillisecond);

// ---- masked retrieval: random CSR masks of k keys per query row (shared by the heads) -----------------------------
template <class T> void BM_masked(benchmark::State& st) {
  const int M = static_cast<int>(st.range(0)), kk = static_cast<int>(st.range(1)), L = 1024, H = 4, d = 64;
  const auto rd = st.range(2) ? oh::Reading::U : oh::Reading::R;
  Problem<T> p(1, L, M, H, d, d);
  std::vector<std::int64_t> rp{0}, col;
  std::mt19937_64 rng(7);
  std::vector<std::int64_t> pool(M);
  for (int i = 0; i < L; ++i) {
    for (int j = 0; j < M; ++j) pool[j] = j;
    for (int t = 0; t < kk; ++t) std::swap(pool[t], pool[t + rng() % (M - t)]);
    std::sort(pool.begin(), pool.begin() + kk);
    col.insert(col.end(), pool.begin(), pool.begin() + kk);
    rp.push_back(static_cast<std::int64_t>(col.size()));
  }
  auto a = p.args(1.0);
  const oh::CsrMask mask{rp.data(), col.data(), nullptr};
  for (auto _ : st) {
    benchmark::DoNotOptimize(oh::masked_retrieval(a, mask, rd));
    benchmark::DoNotOptimize(p.o.data());
  }
  double fl = 2.0 * H * double(L) * kk * (d + d);
  if (rd == oh::Reading::U) fl += 2.0 * H * double(L) * M * d;
  set_counters(st, fl, double(H) * L);
}
BENCHMARK_TEMPLATE(BM_masked, float)
    ->ArgsProduct({{10000}, {64, 512}, {0, 1}})
    ->ArgNames({"M", "k", "U"})
    ->Unit(benchmark::kMillisecond);

// ---- windowed retrieval (self-attention layout) --------------------------------------------------------------------
template <class T> void BM_window(benchmark::State& st) {
  const int L = static_cast<int>(st.range(0)), w = static_cast<int>(st.range(1)), H = 4, d = 64;
  const bool causal = st.range(2) != 0;
  const auto rd = st.range(3) ? oh::Reading::U : oh::Reading::R;
  Problem<T> p(1, L, L, H, d, d);
  auto a = p.args(1.0);
  const oh::WindowSpec win{w, causal, false};
  for (auto _ : st) {
    oh::window_retrieval(a, win, rd);
    benchmark::DoNotOptimize(p.o.data());
  }
  double kept = 0;  // exact number of kept (i, j) pairs
  for (long long i = 0; i < L; ++i) {
    const long long lo = causal ? std::max(0LL, i - w + 1) : std::max(0LL, i - (w - 1) / 2);
    const long long hi = causal ? i : std::min<long long>(L - 1, i + w / 2);
    kept += double(hi - lo + 1);
  }
  double fl = 2.0 * H * kept * (d + d);
  if (rd == oh::Reading::U) fl += 2.0 * H * double(L) * L * d;
  set_counters(st, fl, double(H) * L);
}
BENCHMARK_TEMPLATE(BM_window, float)
    ->ArgsProduct({{4096}, {64, 256}, {0, 1}, {0}})
    ->ArgNames({"L", "w", "causal", "U"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_window, float)->Args({1024, 32, 0, 1})->ArgNames({"L", "w", "causal", "U"})->Unit(benchmark::kMillisecond);

// ---- top-K retrieval -------------------------------------------------------------------------------------------------
template <class T> void BM_topk(benchmark::State& st) {
  const int M = static_cast<int>(st.range(0)), K = static_cast<int>(st.range(1)), L = 256, H = 4, d = 64;
  const auto rd = st.range(2) ? oh::Reading::U : oh::Reading::R;
  Problem<T> p(1, L, M, H, d, d);
  auto a = p.args(1.0);
  oh::TopKSpec<T> spec;
  spec.K = K;
  spec.tie = oh::TiePolicy::GE;
  for (auto _ : st) {
    oh::topk_retrieval(a, spec, rd);
    benchmark::DoNotOptimize(p.o.data());
  }
  set_counters(st, 2.0 * H * double(L) * M * d + 2.0 * H * double(L) * K * (d + d), double(H) * L);
}
BENCHMARK_TEMPLATE(BM_topk, float)
    ->ArgsProduct({{10000, 100000}, {100}, {0, 1}})
    ->ArgNames({"M", "K", "U"})
    ->Unit(benchmark::kMillisecond);

// ---- PRF (Performer) and linear (elu+1) retrieval, linear time ------------------------------------------------------
template <class T> void BM_prf(benchmark::State& st) {
  const int N = static_cast<int>(st.range(0)), nf = static_cast<int>(st.range(1)), H = 4, d = 64;
  const bool hyp = st.range(2) != 0;
  Problem<T> p(1, N, N, H, d, d);
  const auto omega = normal_vector<T>(std::size_t(H) * nf * d, 1.0, 9);
  auto a = p.args(1.0 / std::sqrt(double(d)));
  const oh::PrfSpec<T> spec{nf, omega.data(), hyp};
  for (auto _ : st) {
    oh::prf_retrieval(a, spec);
    benchmark::DoNotOptimize(p.o.data());
  }
  const double D = hyp ? 2.0 * nf : nf;
  set_counters(st, 2.0 * H * (2.0 * N) * d * D + 2.0 * H * N * D * d + 2.0 * H * N * D * (d + 1), double(H) * N);
}
BENCHMARK_TEMPLATE(BM_prf, float)
    ->ArgsProduct({{16384}, {64, 256}, {0}})
    ->ArgNames({"L=M", "n_f", "hyp"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_prf, double)->Args({16384, 256, 0})->ArgNames({"L=M", "n_f", "hyp"})->Unit(benchmark::kMillisecond);

template <class T> void BM_linear(benchmark::State& st) {
  const int N = static_cast<int>(st.range(0)), H = 4, d = 64;
  Problem<T> p(1, N, N, H, d, d);
  auto a = p.args(1.0);
  for (auto _ : st) {
    oh::linear_retrieval(a, oh::LinearSpec{});
    benchmark::DoNotOptimize(p.o.data());
  }
  set_counters(st, 2.0 * H * double(N) * d * d + 2.0 * H * double(N) * d * (d + 1), double(H) * N);
}
BENCHMARK_TEMPLATE(BM_linear, float)->Arg(16384)->ArgName("L=M")->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
