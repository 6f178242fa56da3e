// The mp_t scalar helpers (reference/scalar.hpp) change no bit: the exact short-product path and
// the once-per-loop exponent range give what mpfr_mul / mpfr_add give, at every precision, for
// every kind of operand (float- and double-derived, full-precision, zero, signed zero, inf, NaN),
// in a narrowed exponent range (overflow, underflow), and with aliased arguments; the reference
// built on them equals the same loops written with plain Boost operators; f32/f64 keep a*b + acc
// with two roundings (no fused multiply-add).
#include "recall/reference/linear_attention.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace recall {
namespace {

bool same(const mp_t& x, const mp_t& y) {
  mpfr_srcptr a = x.backend().data(), b = y.backend().data();
  if (mpfr_nan_p(a) || mpfr_nan_p(b)) return mpfr_nan_p(a) && mpfr_nan_p(b);
  return mpfr_equal_p(a, b) && mpfr_signbit(a) == mpfr_signbit(b) &&
         mpfr_get_prec(a) == mpfr_get_prec(b);
}

// Operand kinds: 0 float, 1 double (wide exponent), 2 full-precision, 3 power of two, 4 +-0,
// 5 +-inf, 6 NaN, 7 float + a tiny tail (two nonzero limbs)
mp_t operand(std::mt19937_64& g, int kind) {
  std::uniform_real_distribution<double> u(-1, 1);
  const double s = (g() & 1) ? -1.0 : 1.0;
  switch (kind) {
    case 0: return mp_t(static_cast<float>(u(g)));
    case 1: return mp_t(u(g) * std::ldexp(1.0, static_cast<int>(g() % 400) - 200));
    case 2: {
      mp_t x(u(g));
      x /= 3;
      return x;
    }
    case 3: return mp_t(s * std::ldexp(1.0, static_cast<int>(g() % 60) - 30));
    case 4: return mp_t(s * 0.0);
    case 5: return mp_t(s * std::numeric_limits<double>::infinity());
    case 6: return mp_t(std::numeric_limits<double>::quiet_NaN());
    default: {
      mp_t x(static_cast<float>(u(g)));
      x += mp_t(std::ldexp(1.0, -100));
      return x;
    }
  }
}

TEST(MpScalar, ProductsAndMultiplyAddsEqualMpfrAtEveryPrecision) {
  std::mt19937_64 g(20240601);
  long fast = 0, n = 0;
  for (unsigned digits : {10u, 38u, 39u, 50u, 100u}) {
    MpDigitsScope scope(digits);
    const ref::MulAddCtx<mp_t> ctx;
    for (int it = 0; it < 20000; ++it) {
      const int ka = (g() % 4) ? static_cast<int>(g() % 2) : static_cast<int>(g() % 8);
      const int kb = (g() % 4) ? static_cast<int>(g() % 2) : static_cast<int>(g() % 8);
      const mp_t a = operand(g, ka), b = operand(g, kb), acc0 = operand(g, static_cast<int>(g() % 3));
      mp_t want;
      mpfr_mul(want.backend().data(), a.backend().data(), b.backend().data(), MPFR_RNDN);
      mp_t want_ma = acc0, t;
      mpfr_mul(t.backend().data(), a.backend().data(), b.backend().data(), MPFR_RNDN);
      mpfr_add(want_ma.backend().data(), want_ma.backend().data(), t.backend().data(), MPFR_RNDN);

      mp_t got;
      ref::mul_into(got, a, b);
      ASSERT_TRUE(same(got, want)) << digits << " digits: " << a << " * " << b;
      mp_t sc = a;
      ref::scale_inplace(sc, b);
      ASSERT_TRUE(same(sc, want)) << digits << " digits (in place): " << a << " * " << b;
      mp_t ma = acc0, ma_ctx = acc0;
      ref::muladd(ma, a, b);
      ref::muladd(ma_ctx, a, b, ctx);
      ASSERT_TRUE(same(ma, want_ma)) << digits << " digits: " << acc0 << " + " << a << " * " << b;
      ASSERT_TRUE(same(ma_ctx, want_ma)) << digits << " digits (ctx): " << acc0 << " + " << a << " * " << b;
      mp_t probe;
      fast += ref::detail::mp_short_product(probe.backend().data(), a.backend().data(), b.backend().data(), &ctx);
      ++n;
    }
  }
  // the exact path is exercised (float/double operands at >= 39 digits) and not taken everywhere
  EXPECT_GT(fast, n / 4);
  EXPECT_LT(fast, n);
}

TEST(MpScalar, AliasedArgumentsEqualMpfr) {
  MpDigitsScope scope(50);
  std::mt19937_64 g(7);
  for (int it = 0; it < 2000; ++it) {
    const mp_t a = operand(g, static_cast<int>(g() % 3));
    mp_t sq;
    mpfr_mul(sq.backend().data(), a.backend().data(), a.backend().data(), MPFR_RNDN);
    mp_t x = a;
    ref::scale_inplace(x, x);
    EXPECT_TRUE(same(x, sq)) << a;
    mp_t y = a;
    ref::mul_into(y, y, y);
    EXPECT_TRUE(same(y, sq)) << a;
    mp_t want = a, z = a;
    mpfr_add(want.backend().data(), want.backend().data(), sq.backend().data(), MPFR_RNDN);
    ref::muladd(z, z, z);  // acc += acc * acc
    EXPECT_TRUE(same(z, want)) << a;
  }
}

// In a narrowed exponent range the exact path must step aside wherever the product overflows or
// underflows (mpfr_mul then sets inf / 0 / the extreme values by the rounding rules).
TEST(MpScalar, NarrowedExponentRangeOverflowAndUnderflowEqualMpfr) {
  MpDigitsScope scope(50);
  const mpfr_exp_t emin0 = mpfr_get_emin(), emax0 = mpfr_get_emax();
  ASSERT_EQ(mpfr_set_emin(-40), 0);
  ASSERT_EQ(mpfr_set_emax(40), 0);
  std::mt19937_64 g(11);
  std::uniform_real_distribution<double> u(0.5, 1);
  long over = 0, under = 0, bad = 0;
  {
    const ref::MulAddCtx<mp_t> ctx;
    for (int it = 0; it < 20000; ++it) {
      mp_t a(static_cast<float>(u(g)) * ((g() & 1) ? -1.0f : 1.0f)), b(static_cast<float>(u(g)));
      mpfr_mul_2si(a.backend().data(), a.backend().data(), static_cast<long>(g() % 81) - 40, MPFR_RNDN);
      mpfr_mul_2si(b.backend().data(), b.backend().data(), static_cast<long>(g() % 81) - 40, MPFR_RNDN);
      mp_t want, got, got_ctx, acc(0), acc_ctx(0);
      mpfr_clear_flags();
      mpfr_mul(want.backend().data(), a.backend().data(), b.backend().data(), MPFR_RNDN);
      over += mpfr_overflow_p() != 0;
      under += mpfr_underflow_p() != 0;
      mp_t want_acc(0);  // 0 + product (+0 + -0 = +0)
      mpfr_add(want_acc.backend().data(), want_acc.backend().data(), want.backend().data(), MPFR_RNDN);
      ref::mul_into(got, a, b);
      ref::muladd(acc, a, b);
      ref::muladd(acc_ctx, a, b, ctx);
      ref::detail::mp_mul(got_ctx.backend().data(), a.backend().data(), b.backend().data(), &ctx);
      bad += !same(got, want) || !same(got_ctx, want) || !same(acc, want_acc) || !same(acc_ctx, want_acc);
    }
  }
  mpfr_set_emin(emin0);
  mpfr_set_emax(emax0);
  EXPECT_GT(over, 1000);
  EXPECT_GT(under, 1000);
  EXPECT_EQ(bad, 0);
}

// The reference on the helpers equals the definition written with plain Boost operators, bit for
// bit, on float-derived inputs (the oracle's case: exact products) and on full-precision inputs.
TEST(MpScalar, LinearAttentionEqualsPlainOperatorLoops) {
  MpDigitsScope scope(50);
  std::mt19937_64 g(3);
  for (bool full : {false, true}) {
    const std::size_t T = 20, dk = 5, dv = 4;
    ref::Matrix<mp_t> Q(T, dk), K(T, dk), V(T, dv);
    for (auto* m : {&Q, &K, &V})
      for (mp_t& x : m->a) x = operand(g, full ? 2 : 0);
    const auto r = ref::linear_attention(Q, K, V);
    ref::Matrix<mp_t> S(dv, dk);
    for (std::size_t t = 0; t < T; ++t) {
      for (std::size_t i = 0; i < dv; ++i)
        for (std::size_t j = 0; j < dk; ++j) S(i, j) = S(i, j) + V(t, i) * K(t, j);
      for (std::size_t i = 0; i < dv; ++i) {
        mp_t o(0);
        for (std::size_t j = 0; j < dk; ++j) o = o + S(i, j) * Q(t, j);
        ASSERT_TRUE(same(r.O(t, i), o)) << (full ? "full" : "float") << " t=" << t << " i=" << i;
      }
    }
    for (std::size_t e = 0; e < S.a.size(); ++e) EXPECT_TRUE(same(r.state.a[e], S.a[e]));
  }
}

// f32/f64 are the working-precision baseline: product rounded, then sum rounded (no FMA).
template <class F> void expect_two_roundings() {
  std::mt19937_64 g(5);
  std::uniform_real_distribution<F> u(-1, 1);
  int differs_from_fma = 0;
  const ref::MulAddCtx<F> ctx;
  for (int it = 0; it < 20000; ++it) {
    const F a = u(g), b = u(g), c = u(g);
    volatile F p = a * b;  // rounded product
    const F want = c + p;
    F x = c, y = c;
    ref::muladd(x, a, b);
    ref::muladd(y, a, b, ctx);
    ASSERT_EQ(x, want);
    ASSERT_EQ(y, want);
    differs_from_fma += std::fma(a, b, c) != want;
  }
  EXPECT_GT(differs_from_fma, 0);  // the check can tell the two apart
}
TEST(MpScalar, FloatAndDoubleMultiplyAddRoundTwice) {
  expect_two_roundings<float>();
  expect_two_roundings<double>();
}

}  // namespace
}  // namespace recall
