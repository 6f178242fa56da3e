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

// acc += a * b. For mp_t: mpfr_mul into a per-thread scratch of acc's precision, then an
// in-place mpfr_add (no allocation; same-precision operands take MPFR's fast paths). The MP
// references spend nearly all their time here. mpfr_fma (one rounding) measured ~2x slower at
// 50 digits (generic path); two roundings at 2^-168 stay inside the reported u = 1e-50.
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
}  // namespace detail
inline void muladd(mp_t& acc, const mp_t& a, const mp_t& b) {
  mpfr_ptr t = detail::mp_scratch(mpfr_get_prec(acc.backend().data()));
  mpfr_mul(t, a.backend().data(), b.backend().data(), MPFR_RNDN);
  mpfr_add(acc.backend().data(), acc.backend().data(), t, MPFR_RNDN);
}
// acc = a * b (in place for mp_t)
template <class S> inline void mul_into(S& acc, const S& a, const S& b) { acc = a * b; }
inline void mul_into(mp_t& acc, const mp_t& a, const mp_t& b) {
  mpfr_mul(acc.backend().data(), a.backend().data(), b.backend().data(), MPFR_RNDN);
}
// x *= a (in place)
template <class S> inline void scale_inplace(S& x, const S& a) { x *= a; }
inline void scale_inplace(mp_t& x, const mp_t& a) {
  mpfr_mul(x.backend().data(), x.backend().data(), a.backend().data(), MPFR_RNDN);
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
