// Where the multiprecision oracle's time goes: the cost of one scalar operation at 50 digits
// (168 bits, 3 limbs), per element over arrays of 1024, so that the speed of the MP references
// (bench_linear_attention: BM_mp_*) can be read against its floor.
//
// Operands: "short" = converted from float (<= 64 significant bits, the oracle's inputs);
// "full" = 168 significant bits (sums, quotients, exp of log-gates).
//   BM_mpfr_mul/{short*short, full*short, full*full}   mpfr_mul alone
//   BM_mpfr_add                                           in-place mpfr_add, same precision
//   BM_muladd_{mpfr, ref, ref_ctx, fma}/{short*short, full*short}
//        mpfr_mul + mpfr_add (the previous helper), ref::muladd (exact short products), the same
//        with the exponent range read once (MulAddCtx, as the reference's loops do), mpfr_fma
//   BM_dot32_{loop, mpfr_dot}   32-term dot products: ref::dot_into vs mpfr_dot (correctly rounded)
//   BM_matvec32/fresh:{0,1}   the reference's read-out ref::matvec_into (32x32 state from 256
//        tokens of float data) over 256 query rows: fresh:1 a new row each time (as in the
//        reference), fresh:0 the same row every time. Same code, nearly the same loads; the
//        difference is the branch predictor learning the data-dependent paths (add vs subtract
//        by sign, alignment shift, normalisation) when the data repeat, as they do in the loops
//        above: their figures are floors, fresh:1 is what the references pay.
// Counter: items_per_second (operations, multiply-adds, or dot-product terms, per second).
#include "recall/reference/linear_attention.hpp"

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using recall::mp_t;
constexpr std::size_t N = 1024;

std::vector<mp_t> values(bool full, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<mp_t> v(N);
  for (mp_t& x : v) {
    x = mp_t(u(g));
    if (full) x /= 3;
  }
  return v;
}
// range(0): 0 short*short, 1 full*short, 2 full*full
bool a_full(const benchmark::State& s) { return s.range(0) >= 1; }
bool b_full(const benchmark::State& s) { return s.range(0) >= 2; }
void items(benchmark::State& s) { s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * N)); }
void BM_mpfr_mul(benchmark::State& s) {
  recall::MpDigitsScope d(50);
  auto a = values(a_full(s), 1), b = values(b_full(s), 2);
  mp_t t;
  for (auto _ : s)
    for (std::size_t i = 0; i < N; ++i) mpfr_mul(t.backend().data(), a[i].backend().data(), b[i].backend().data(), MPFR_RNDN);
  benchmark::DoNotOptimize(t);
  items(s);
}
void BM_mpfr_add(benchmark::State& s) {
  recall::MpDigitsScope d(50);
  auto a = values(true, 1), acc = values(true, 3);
  for (auto _ : s)
    for (std::size_t i = 0; i < N; ++i) mpfr_add(acc[i].backend().data(), acc[i].backend().data(), a[i].backend().data(), MPFR_RNDN);
  items(s);
}
template <int kVariant> void BM_muladd(benchmark::State& s) {
  recall::MpDigitsScope d(50);
  auto a = values(a_full(s), 1), b = values(b_full(s), 2), acc = values(true, 3);
  mp_t t;
  const recall::ref::MulAddCtx<mp_t> ctx;
  for (auto _ : s) {
    for (std::size_t i = 0; i < N; ++i) {
      if constexpr (kVariant == 0) {
        mpfr_mul(t.backend().data(), a[i].backend().data(), b[i].backend().data(), MPFR_RNDN);
        mpfr_add(acc[i].backend().data(), acc[i].backend().data(), t.backend().data(), MPFR_RNDN);
      } else if constexpr (kVariant == 1) {
        recall::ref::muladd(acc[i], a[i], b[i]);
      } else if constexpr (kVariant == 2) {
        recall::ref::muladd(acc[i], a[i], b[i], ctx);
      } else {
        mpfr_fma(acc[i].backend().data(), a[i].backend().data(), b[i].backend().data(), acc[i].backend().data(), MPFR_RNDN);
      }
    }
  }
  items(s);
}
void BM_dot32_loop(benchmark::State& s) {
  recall::MpDigitsScope d(50);
  auto a = values(true, 1), b = values(false, 2);
  mp_t y;
  for (auto _ : s)
    for (std::size_t i = 0; i < N; i += 32) {
      recall::ref::dot_into(y, a.data() + i, b.data() + i, 32);
      benchmark::DoNotOptimize(y);
    }
  items(s);
}
void BM_dot32_mpfr_dot(benchmark::State& s) {
  recall::MpDigitsScope d(50);
  auto a = values(true, 1), b = values(false, 2);
  std::vector<mpfr_ptr> pa(N), pb(N);
  for (std::size_t i = 0; i < N; ++i) {
    pa[i] = a[i].backend().data();
    pb[i] = b[i].backend().data();
  }
  mp_t y;
  for (auto _ : s)
    for (std::size_t i = 0; i < N; i += 32) {
      mpfr_dot(y.backend().data(), pa.data() + i, pb.data() + i, 32, MPFR_RNDN);
      benchmark::DoNotOptimize(y);
    }
  items(s);
}

void BM_matvec32(benchmark::State& s) {
  recall::MpDigitsScope d(50);
  const std::size_t T = 256, n = 32;
  std::mt19937_64 g(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  recall::ref::Matrix<mp_t> Q(T, n), K(T, n), V(T, n), O(T, n);
  for (std::size_t i = 0; i < T * n; ++i) {
    Q.a[i] = mp_t(u(g));
    K.a[i] = mp_t(u(g));
    V.a[i] = mp_t(u(g));
  }
  const auto state = recall::ref::linear_attention(Q, K, V).state;
  const bool fresh = s.range(0) != 0;
  for (auto _ : s)
    for (std::size_t t = 0; t < T; ++t) recall::ref::matvec_into(O.row(t), state, Q.row(fresh ? t : 0));
  s.SetItemsProcessed(static_cast<std::int64_t>(s.iterations() * T * n * n));
}

void kinds3(benchmark::internal::Benchmark* b) { b->ArgName("full_operands")->Arg(0)->Arg(1)->Arg(2); }
void kinds2(benchmark::internal::Benchmark* b) { b->ArgName("full_operands")->Arg(0)->Arg(1); }

}  // namespace

BENCHMARK(BM_mpfr_mul)->Apply(kinds3);
BENCHMARK(BM_mpfr_add);
BENCHMARK(BM_muladd<0>)->Name("BM_muladd_mpfr")->Apply(kinds2);
BENCHMARK(BM_muladd<1>)->Name("BM_muladd_ref")->Apply(kinds2);
BENCHMARK(BM_muladd<2>)->Name("BM_muladd_ref_ctx")->Apply(kinds2);
BENCHMARK(BM_muladd<3>)->Name("BM_muladd_fma")->Apply(kinds2);
BENCHMARK(BM_dot32_loop);
BENCHMARK(BM_dot32_mpfr_dot);
BENCHMARK(BM_matvec32)->ArgName("fresh")->Arg(0)->Arg(1);

BENCHMARK_MAIN();
