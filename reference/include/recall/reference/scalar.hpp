// Scalar layer of the reference: the multiprecision oracle type, precision control, and the
// few scalar primitives the references need (fused multiply-add into an accumulator, exp/log
// with -inf log-gates). Header-only, generic over the scalar type.
#pragma once

#include <boost/multiprecision/mpfr.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace recall {

// The oracle scalar: MPFR with precision chosen at run time, expression templates off
// (temporaries are explicit; hot loops use the in-place helpers below).
using mp_t = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<0>,
                                           boost::multiprecision::et_off>;

// Current default precision of newly created mp_t values, in decimal digits.
inline unsigned mp_digits() { return mp_t::default_precision(); }

// RAII: set the default precision of new mp_t values for a scope and restore it after.
class MpDigitsScope {
 public:
  explicit MpDigitsScope(unsigned digits) : saved_(mp_t::default_precision()) {
    if (digits < 10) throw std::invalid_argument("MpDigitsScope: digits must be >= 10, got " + std::to_string(digits));
    mp_t::default_precision(digits);
  }
  ~MpDigitsScope() { mp_t::default_precision(saved_); }
  MpDigitsScope(const MpDigitsScope&) = delete;
  MpDigitsScope& operator=(const MpDigitsScope&) = delete;

 private:
  unsigned saved_;
};

template <class S> struct scalar_traits {
  static constexpr bool is_mp = false;
  // unit roundoff u = eps/2 of the working precision
  static double unit_roundoff() { return std::numeric_limits<S>::epsilon() / 2; }
  static const char* name() { return sizeof(S) == 4 ? "f32" : "f64"; }
};
template <> struct scalar_traits<mp_t> {
  static constexpr bool is_mp = true;
  static double unit_roundoff() { return std::pow(10.0, -static_cast<double>(mp_digits())); }
  static const char* name() { return "mp"; }
};

namespace ref {

// acc += a * b. For mp_t: the product into a per-thread scratch of acc's precision (exactly, by
// mp_short_product, when both significands are short; else mpfr_mul), then an in-place mpfr_add
// (no allocation; same-precision operands take MPFR's fast paths). The results are bit for bit
// those of mpfr_mul + mpfr_add. The MP references spend nearly all their time here; per-operation
// costs at 50 digits are in bench/bench_mp_scalar.cpp (one run, operands repeating: mpfr_mul +
// mpfr_add 25-28 ns, this helper ~15 ns on float-derived operands, mpfr_add alone ~13 ns,
// mpfr_fma ~37 ns: its generic path; two roundings at 2^-168 stay inside the reported u = 1e-50,
// and products of short significands are exact, so there the result is the fused one anyway).
// With fresh data, as in the references, MPFR's data-dependent branches (add vs subtract,
// alignment, normalisation) mispredict and a multiply-add costs ~25 ns (BM_matvec32/fresh).
//
// The 4-argument form takes a MulAddCtx built once per loop: for mp_t it holds the current
// exponent range (reading it is a library call through TLS, ~15% of a multiply-add); for float
// and double it is empty and the operation is exactly acc += a * b (no std::fma: the f32/f64
// instantiations are the baseline at working precision).
template <class S> struct MulAddCtx {};
template <> struct MulAddCtx<mp_t> {
  mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
};
template <class S> inline void muladd(S& acc, const S& a, const S& b, const MulAddCtx<S>&) { acc += a * b; }
template <class S> inline void muladd(S& acc, const S& a, const S& b) { acc += a * b; }
namespace detail {
inline mpfr_ptr mp_scratch(mpfr_prec_t p) {
  thread_local __mpfr_struct s;  // trivially constructible: no TLS guard on the hot path
  thread_local bool init = false;
  if (!init) {
    mpfr_init2(&s, p);
    init = true;
  } else if (mpfr_get_prec(&s) != p) {
    mpfr_set_prec(&s, p);
  }
  return &s;
}
static_assert(GMP_NUMB_BITS == 64 && sizeof(mp_limb_t) == 8, "mp_short_product assumes 64-bit limbs without nails");
inline mp_size_t mp_limbs(mpfr_prec_t p) { return static_cast<mp_size_t>((p + GMP_NUMB_BITS - 1) / GMP_NUMB_BITS); }
inline const mp_limb_t* mp_limbs_of(mpfr_srcptr x) { return static_cast<const mp_limb_t*>(mpfr_custom_get_significand(x)); }
// True when x is a regular number whose significand fits in its top limb (<= 64 significant
// bits: every value converted from float or double, and short sums of exact products of them).
inline bool mp_is_short(mpfr_srcptr x) {
  if (!mpfr_regular_p(x)) return false;
  const mp_limb_t* d = mp_limbs_of(x);
  for (mp_size_t i = mp_limbs(mpfr_get_prec(x)) - 1; i-- > 0;)
    if (d[i] != 0) return false;
  return true;
}
// out = a * b EXACTLY when both significands are short and prec(out) >= 128: the product has at
// most 128 bits, so this is the value mpfr_mul returns (ternary 0), through the documented
// custom interface. Worth it because MPFR recognises an exact product only after a full limb
// product (its 3-limb fast path falls back to mpn_mul_n), so at 50 digits products of
// float-derived inputs cost ~1.5x a general product there (bench_mp_scalar: 19 vs 13 ns).
// Returns false (out untouched) when not applicable, including a product exponent outside
// [emin, emax] (mpfr_mul then handles the overflow/underflow); the range comes from ctx, or is
// read here when ctx is null. out may alias a or b.
inline bool mp_short_product(mpfr_ptr out, mpfr_srcptr a, mpfr_srcptr b, const MulAddCtx<mp_t>* ctx) {
  const mpfr_prec_t p = mpfr_get_prec(out);
  if (p < 2 * GMP_NUMB_BITS || !mp_is_short(a) || !mp_is_short(b)) return false;
  const mp_limb_t ta = mp_limbs_of(a)[mp_limbs(mpfr_get_prec(a)) - 1];
  const mp_limb_t tb = mp_limbs_of(b)[mp_limbs(mpfr_get_prec(b)) - 1];
  unsigned __int128 prod = static_cast<unsigned __int128>(ta) * tb;  // in [2^126, 2^128)
  const mpfr_exp_t ea = mpfr_custom_get_exp(a), eb = mpfr_custom_get_exp(b);
  // normalise without a branch (the top bit is data-dependent, ~40% clear: a branch on it
  // mispredicts, and mispredictions dominate the in-loop cost, see bench_mp_scalar)
  const unsigned shift = static_cast<unsigned>(prod >> 127) ^ 1u;
  prod <<= shift;
  const mpfr_exp_t e = ea + eb - static_cast<mpfr_exp_t>(shift);  // value = 0.prod * 2^e; |ea|, |eb| < 2^62
  if (ctx) {
    if ((e < ctx->emin) | (e > ctx->emax)) return false;
  } else if (ea <= 0 && eb <= 0) {
    // ea, eb lie in [emin, emax] and e in [ea + eb - 1, ea + eb], so only one side can fail (one
    // library call instead of two): both <= 0: e <= ea <= emax; both >= 1: e >= ea >= emin;
    // mixed signs: min(ea, eb) <= e <= max(ea, eb).
    if (e < mpfr_get_emin()) return false;
  } else if (ea > 0 && eb > 0) {
    if (e > mpfr_get_emax()) return false;
  }
  const mp_limb_t hi = static_cast<mp_limb_t>(prod >> 64), lo = static_cast<mp_limb_t>(prod);
  const int sign = (mpfr_signbit(a) != 0) != (mpfr_signbit(b) != 0) ? -1 : 1;
  const mp_size_t n = mp_limbs(p);
  mp_limb_t* d = static_cast<mp_limb_t*>(mpfr_custom_get_significand(out));
  d[n - 1] = hi;
  d[n - 2] = lo;
  if (n == 3) d[0] = 0;  // 50 digits (168 bits); the loop would become a memset call
  else
    for (mp_size_t i = 0; i + 2 < n; ++i) d[i] = 0;
  mpfr_custom_init_set(out, sign * MPFR_REGULAR_KIND, e, p, d);
  return true;
}
// out = a * b correctly rounded to prec(out)
inline void mp_mul(mpfr_ptr out, mpfr_srcptr a, mpfr_srcptr b, const MulAddCtx<mp_t>* ctx) {
  if (!mp_short_product(out, a, b, ctx)) mpfr_mul(out, a, b, MPFR_RNDN);
}
inline void mp_muladd(mp_t& acc, const mp_t& a, const mp_t& b, const MulAddCtx<mp_t>* ctx) {
  mpfr_ptr t = mp_scratch(mpfr_get_prec(acc.backend().data()));
  mp_mul(t, a.backend().data(), b.backend().data(), ctx);
  mpfr_add(acc.backend().data(), acc.backend().data(), t, MPFR_RNDN);
}
}  // namespace detail
inline void muladd(mp_t& acc, const mp_t& a, const mp_t& b, const MulAddCtx<mp_t>& ctx) { detail::mp_muladd(acc, a, b, &ctx); }
inline void muladd(mp_t& acc, const mp_t& a, const mp_t& b) { detail::mp_muladd(acc, a, b, nullptr); }
// acc = a * b (in place for mp_t)
template <class S> inline void mul_into(S& acc, const S& a, const S& b) { acc = a * b; }
inline void mul_into(mp_t& acc, const mp_t& a, const mp_t& b) {
  detail::mp_mul(acc.backend().data(), a.backend().data(), b.backend().data(), nullptr);
}
// x *= a (in place)
template <class S> inline void scale_inplace(S& x, const S& a) { x *= a; }
inline void scale_inplace(mp_t& x, const mp_t& a) {
  detail::mp_mul(x.backend().data(), x.backend().data(), a.backend().data(), nullptr);
}

template <class S> inline S neg_inf() {
  if constexpr (scalar_traits<S>::is_mp) {
    S x;
    mpfr_set_inf(x.backend().data(), -1);
    return x;
  } else {
    return -std::numeric_limits<S>::infinity();
  }
}
template <class S> inline bool is_neg_inf(const S& x) {
  using std::isinf;
  using boost::multiprecision::isinf;
  return isinf(x) && x < 0;
}
template <class S> inline bool is_finite(const S& x) {
  using std::isfinite;
  using boost::multiprecision::isfinite;
  return isfinite(x);
}
// exp of a log-gate sum; -inf (a zero gate in the segment) gives an exact 0.
template <class S> inline S exp_log(const S& x) {
  using std::exp;
  using boost::multiprecision::exp;
  if (is_neg_inf(x)) return S(0);
  return exp(x);
}
// log of a gate in [0,1]; 0 gives -inf (the reset flag of README §1.5).
template <class S> inline S log_gate(const S& g) {
  using std::log;
  using boost::multiprecision::log;
  if (g == 0) return neg_inf<S>();
  return log(g);
}
// log(sigmoid(z)) = -softplus(-z), stable for every z.
template <class S> inline S log_sigmoid(const S& z) {
  using std::exp;
  using std::log1p;
  using boost::multiprecision::exp;
  using boost::multiprecision::log1p;
  if (z >= 0) return -log1p(exp(S(-z)));
  return z - log1p(exp(z));
}
template <class S> inline S softplus(const S& z) { return -log_sigmoid(S(-z)); }

// Convert between scalar types (exact from float/double into mp_t).
template <class To, class From> inline To convert(const From& x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (scalar_traits<From>::is_mp) {
    return static_cast<To>(x);
  } else {
    return To(static_cast<double>(x));
  }
}

}  // namespace ref
}  // namespace recall
