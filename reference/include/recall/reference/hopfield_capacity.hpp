// Separation geometry and capacity of modern Hopfield models: A003 Lemma 4.2 and its proof (App. B.8,
// (B.45)-(B.60)) and the dense-associative-memory items of A004 Part I (spec /work/shared/spec/A003-hopfield.md
// items A003-B46, -B50, -GAMMA-D, -BRAUCHART, -LEMMA-4.2*, -LAMBERT-C; A004-memory-and-forgetting.md items
// A004-DAM-EXP-BIN, A004-MHN-CAP-EXP*). Written from the definitions:
//   - gamma_d = (1/d) omega_{d-1} / omega_d = Gamma((d+1)/2) / (d sqrt(pi) Gamma(d/2)), omega_d = 2 pi^{(d+1)/2} /
//     Gamma((d+1)/2) the area of the unit d-sphere, in three independent forms (omega ratio, Gamma ratio, the exact
//     recurrence gamma_{d+2} = gamma_d (d+1)/(d+2) from gamma_1 = 1/pi, gamma_2 = 1/4) plus the double lgamma fast form;
//   - the Brauchart et al. tail (1/2) gamma_{d-1} rho^{d-1} (in log form);
//   - angles theta_{mu nu} = 2 arcsin(||u_mu - u_nu|| / 2) of the normalised rows (never arccos), the minimal angle, the
//     minimal separation Delta_min = min_mu Delta_mu (Def. 4.1, through hopfield::separation), the right-hand side of
//     (B.46) m^2 (1 - cos theta) = 2 m^2 sin^2(theta/2), the slack of (B.50) 2 sin^2(theta/2) - theta^2/5;
//   - the Lambert constant C_L = b / W_0(e^{a + ln b}) of (B.58)/(B.59) by Newton on w + ln w = y = a + ln b (the Wright
//     omega function, W_0(e^y) = omega(y); e^y is never formed for y > 1), its Boost.Math lambert_w0 double form, the
//     capacity bound ln M_lb = (1/2) ln p + (d-1)/4 ln C_L, the (B.45) threshold theta_M, the (B.53) right-hand side and
//     the left-hand sides of (B.55)-(B.57) at C_L, all in log space;
//   - the binary dense associative memory with exponential interaction (Demircigil et al. 2017, A004-DAM-EXP-BIN):
//     E(s) = -sum_mu exp(<xi^mu, s>), s in {-1,+1}^N, asynchronous update of bit i by the sign of
//     sum_mu [exp(<xi^mu, s^(i+)>) - exp(<xi^mu, s^(i-)>)], tie (exact zero) keeps s_i; the sign three ways: the
//     difference of two log-sum-exps (the spec's form), the direct sum (at P-exp digits), and exactly, as the sign of
//     the integer-coefficient Laurent polynomial sum_j c_j e^j (it is 0 iff every c_j is 0, e being transcendental;
//     a nonzero value is certified against a bound on the MPFR rounding error); incremental overlaps; sequential sweeps
//     i = 1..N; and the bit-packed fast form (N <= 64 bits per pattern, histogram of the overlaps, table of e^j).
// The continuous modern Hopfield network of A004 (A004-MHN-DEF) is hopfield.hpp's dense model (dense_retrieval).
//
// Scalars: recall::mp_t (runtime digits, MpDigitsScope), double, float. Indices 0-based; claim files report them
// 1-based. Bad input throws std::invalid_argument naming the input (ref::require).
#pragma once

#include "recall/reference/hopfield.hpp"
#include "recall/reference/matrix.hpp"
#include "recall/reference/scalar.hpp"

#include <boost/math/special_functions/lambert_w.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace recall::ref::hopfield {

namespace cap_detail {
template <class S> S log_(const S& x) {
  using std::log;
  using boost::multiprecision::log;
  return log(x);
}
template <class S> S exp_(const S& x) {
  using std::exp;
  using boost::multiprecision::exp;
  return exp(x);
}
template <class S> S expm1_(const S& x) {
  using std::expm1;
  using boost::multiprecision::expm1;
  return expm1(x);
}
template <class S> S log1p_(const S& x) {
  using std::log1p;
  using boost::multiprecision::log1p;
  return log1p(x);
}
template <class S> S sqrt_(const S& x) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  return sqrt(x);
}
template <class S> S sin_(const S& x) {
  using std::sin;
  using boost::multiprecision::sin;
  return sin(x);
}
template <class S> S asin_(const S& x) {
  using std::asin;
  using boost::multiprecision::asin;
  return asin(x);
}
template <class S> S abs_(const S& x) { return x < 0 ? S(-x) : x; }
// pi at the working precision of S (MPFR's constant at the current default digits for mp_t)
template <class S> S pi_() {
  if constexpr (scalar_traits<S>::is_mp) {
    S r;
    mpfr_const_pi(r.backend().data(), MPFR_RNDN);
    return r;
  } else {
    return static_cast<S>(3.14159265358979323846264338327950288L);
  }
}
// ln Gamma(x), x > 0
template <class S> S lgamma_(const S& x) {
  require(x > 0, "hopfield capacity: lgamma needs a positive argument");
  if constexpr (scalar_traits<S>::is_mp) {
    S r;
    mpfr_lngamma(r.backend().data(), x.backend().data(), MPFR_RNDN);
    return r;
  } else {
    return static_cast<S>(std::lgamma(static_cast<double>(x)));
  }
}
// decimal digits of the working precision of S (for Newton's stopping rule)
template <class S> int digits_of() {
  if constexpr (scalar_traits<S>::is_mp) return static_cast<int>(mp_digits());
  else return std::numeric_limits<S>::digits10;
}
template <class S> void require_pos(const S& x, const char* who, const char* what) {
  require(is_finite(x) && x > 0, std::string(who) + ": " + what + " must be finite and > 0");
}
}  // namespace cap_detail

// =====================================================================================================
// A003-GAMMA-D: gamma_d = (1/d) omega_{d-1} / omega_d
// =====================================================================================================

// ln omega_d = ln 2 + (d+1)/2 ln pi - ln Gamma((d+1)/2), the area of the unit sphere S^d in R^{d+1} (d >= 0).
template <class S> S log_sphere_area(unsigned d) {
  using namespace cap_detail;
  const S h = S(static_cast<double>(d) + 1) / 2;
  return log_(S(2)) + h * log_(pi_<S>()) - lgamma_(h);
}
// (1/d) omega_{d-1} / omega_d from the two areas (log space), d >= 1
template <class S> S gamma_d_omega(unsigned d) {
  require(d >= 1, "hopfield::gamma_d_omega: d must be >= 1");
  return cap_detail::exp_(S(log_sphere_area<S>(d - 1) - log_sphere_area<S>(d))) / S(static_cast<double>(d));
}
// Gamma((d+1)/2) / (d sqrt(pi) Gamma(d/2)) by a log-gamma difference, d >= 1
template <class S> S gamma_d(unsigned d) {
  using namespace cap_detail;
  require(d >= 1, "hopfield::gamma_d: d must be >= 1");
  const S dd = S(static_cast<double>(d));
  return exp_(S(lgamma_(S((dd + 1) / 2)) - lgamma_(S(dd / 2)))) / (dd * sqrt_(pi_<S>()));
}
// The exact recurrence gamma_{d+2} = gamma_d (d+1)/(d+2) from gamma_1 = 1/pi, gamma_2 = 1/4 (products of rationals;
// O(d) operations), d >= 1.
template <class S> S gamma_d_recurrence(unsigned d) {
  require(d >= 1, "hopfield::gamma_d_recurrence: d must be >= 1");
  S g = (d % 2 == 1) ? S(S(1) / cap_detail::pi_<S>()) : S(S(1) / 4);
  for (unsigned j = (d % 2 == 1) ? 1u : 2u; j + 2 <= d; j += 2) g = g * S(static_cast<double>(j) + 1) / S(static_cast<double>(j) + 2);
  return g;
}
// The fast form: a double lgamma difference.
inline double gamma_d_fast(unsigned d) {
  require(d >= 1, "hopfield::gamma_d_fast: d must be >= 1");
  const double dd = d;
  return std::exp(std::lgamma((dd + 1) / 2) - std::lgamma(dd / 2)) / (dd * std::sqrt(3.14159265358979323846));
}

// =====================================================================================================
// A003-BRAUCHART: P(M^{2/(d-1)} theta_min >= rho) >= 1 - (1/2) gamma_{d-1} rho^{d-1}
// =====================================================================================================

// ln[(1/2) gamma_{d-1} rho^{d-1}], d >= 2 (points on S^{d-1} in R^d), rho > 0
template <class S> S log_brauchart_tail(unsigned d, const S& rho) {
  using namespace cap_detail;
  require(d >= 2, "hopfield::log_brauchart_tail: d must be >= 2");
  require_pos(rho, "hopfield::log_brauchart_tail", "rho");
  return log_(S(gamma_d<S>(d - 1) / 2)) + S(static_cast<double>(d) - 1) * log_(rho);
}
// rho with (1/2) gamma_{d-1} rho^{d-1} = q (q > 0)
template <class S> S brauchart_rho_for_tail(unsigned d, const S& q) {
  using namespace cap_detail;
  require(d >= 2, "hopfield::brauchart_rho_for_tail: d must be >= 2");
  require_pos(q, "hopfield::brauchart_rho_for_tail", "tail q");
  return exp_(S((log_(q) - log_(S(gamma_d<S>(d - 1) / 2))) / S(static_cast<double>(d) - 1)));
}

// =====================================================================================================
// Angles and separation (A003-B46, A003-B50)
// =====================================================================================================

// theta_{mu nu} = 2 arcsin(||u_mu - u_nu|| / 2), u the rows scaled to unit norm (the angle between xi_mu and xi_nu,
// well conditioned near 0; the argument is clamped to [0, 1] against rounding). Rows must be nonzero.
template <class S> S pair_angle(const Matrix<S>& Xi, std::size_t mu, std::size_t nu) {
  using namespace cap_detail;
  require(mu < Xi.rows && nu < Xi.rows, "hopfield::pair_angle: index out of range");
  const S nm = sqrt_(dot(Xi.row(mu), Xi.row(mu), Xi.cols)), nn = sqrt_(dot(Xi.row(nu), Xi.row(nu), Xi.cols));
  require(nm > 0 && nn > 0, "hopfield::pair_angle: pattern " + std::to_string((nm > 0 ? nu : mu) + 1) + " is the zero vector");
  S acc(0);
  for (std::size_t c = 0; c < Xi.cols; ++c) {
    const S t = Xi(mu, c) / nm - Xi(nu, c) / nn;
    acc += t * t;
  }
  S half = sqrt_(acc) / 2;
  if (half > 1) half = S(1);
  return 2 * asin_(half);
}
template <class S> struct MinAngle {
  S theta;
  std::size_t mu = 0, nu = 0;  // the pair (mu < nu), 0-based
};
// theta_min = min_{mu < nu} theta_{mu nu} (the (B.46) index range read mu < nu, spec Ambiguity 12); M >= 2. The rows are
// normalised once; theta_min = 2 arcsin(c/2) with c the smallest chord ||u_mu - u_nu|| (arcsin is increasing).
template <class S> MinAngle<S> min_angle(const Matrix<S>& Xi) {
  using namespace cap_detail;
  require(Xi.rows >= 2, "hopfield::min_angle: needs at least two patterns");
  Matrix<S> U(Xi.rows, Xi.cols);
  for (std::size_t mu = 0; mu < Xi.rows; ++mu) {
    const S n = sqrt_(dot(Xi.row(mu), Xi.row(mu), Xi.cols));
    require(n > 0, "hopfield::min_angle: pattern " + std::to_string(mu + 1) + " is the zero vector");
    for (std::size_t c = 0; c < Xi.cols; ++c) U(mu, c) = Xi(mu, c) / n;
  }
  MinAngle<S> out;
  S best(0);
  bool first = true;
  for (std::size_t mu = 0; mu < U.rows; ++mu)
    for (std::size_t nu = mu + 1; nu < U.rows; ++nu) {
      S acc(0);
      for (std::size_t c = 0; c < U.cols; ++c) {
        const S t = U(mu, c) - U(nu, c);
        acc += t * t;
      }
      if (first || acc < best) {
        best = acc;
        out.mu = mu;
        out.nu = nu;
      }
      first = false;
    }
  S half = sqrt_(best) / 2;
  if (half > 1) half = S(1);
  out.theta = 2 * asin_(half);
  return out;
}
template <class S> struct MinSeparation {
  S delta;
  std::size_t mu = 0;  // the arg-min (0-based)
};
// Delta_min = min_mu Delta_mu (Def. 4.1 through hopfield::separation); M >= 2
template <class S> MinSeparation<S> min_separation(const Matrix<S>& Xi) {
  require(Xi.rows >= 2, "hopfield::min_separation: needs at least two patterns");
  MinSeparation<S> out{separation(Xi, 0), 0};
  for (std::size_t mu = 1; mu < Xi.rows; ++mu) {
    const S s = separation(Xi, mu);
    if (s < out.delta) out = MinSeparation<S>{s, mu};
  }
  return out;
}
// (B.46) right-hand side m^2 (1 - cos theta) in the cancellation-free form 2 m^2 sin^2(theta/2)
template <class S> S b46_rhs(const S& m, const S& theta) {
  const S s = cap_detail::sin_(S(theta / 2));
  return 2 * m * m * s * s;
}
// (B.50) slack 1 - theta^2/5 - cos theta = 2 sin^2(theta/2) - theta^2/5
template <class S> S cos_bound_slack(const S& theta) {
  const S s = cap_detail::sin_(S(theta / 2));
  return 2 * s * s - theta * theta / 5;
}

// =====================================================================================================
// A003-LAMBERT-C and Lemma 4.2
// =====================================================================================================

template <class S> struct Lemma42Params {
  unsigned d = 2;  // pattern dimension, >= 2
  S m = S(1);      // pattern norm (radius of the sphere), > 0
  S beta = S(1);   // inverse temperature, > 0
  S p = S(0.1);    // failure probability, in (0, 1]
  unsigned k = 1;  // mask size, >= 1
  S R = S(0.5);    // radius of S_mu, > 0 (a fixed parameter in Lemma 4.2)
};
template <class S> void require_params(const Lemma42Params<S>& P, const char* who) {
  using namespace cap_detail;
  require(P.d >= 2, std::string(who) + ": d must be >= 2 (the exponents divide by d - 1)");
  require_pos(P.m, who, "m");
  require_pos(P.beta, who, "beta");
  require(is_finite(P.p) && P.p > 0 && P.p <= 1, std::string(who) + ": p must be in (0, 1]");
  require(P.k >= 1, std::string(who) + ": k must be >= 1");
  require_pos(P.R, who, "R");
}

template <class S> struct LambertAB {
  S a, b;
};
// (B.58): a = 4/(d-1) (ln[m (sqrt p + k - 1) / R] + 1), b = 4 m^2 beta / (5 (d-1))
template <class S> LambertAB<S> lemma42_ab(const Lemma42Params<S>& P) {
  using namespace cap_detail;
  require_params(P, "hopfield::lemma42_ab");
  const S dm1 = S(static_cast<double>(P.d) - 1);
  const S inner = P.m * (sqrt_(P.p) + S(static_cast<double>(P.k) - 1)) / P.R;
  return LambertAB<S>{S(4) / dm1 * (log_(inner) + 1), S(4) * P.m * P.m * P.beta / (S(5) * dm1)};
}

template <class S> struct OmegaResult {
  S w;
  int iterations = 0;
  bool converged = false;
};
// The Wright omega function omega(y) = W_0(e^y): the root w > 0 of w + ln w = y, by Newton
// w <- w - (w + ln w - y) / (1 + 1/w) from w_0 = y - ln y (y > 1) or e^y (y <= 1), until the relative step is below
// 10^-(digits - 5) (then one more step); at most 200 iterations.
template <class S> OmegaResult<S> wright_omega(const S& y) {
  using namespace cap_detail;
  require(is_finite(y), "hopfield::wright_omega: y must be finite");
  OmegaResult<S> r;
  r.w = y > 1 ? S(y - log_(y)) : exp_(y);
  require(r.w > 0, "hopfield::wright_omega: e^y underflows in this scalar type (y = " + std::to_string(static_cast<double>(y)) + ")");
  const int dg = digits_of<S>();
  const S tol = exp_(S(-log_(S(10)) * S(std::max(3, dg - 5))));
  bool last = false;
  for (r.iterations = 1; r.iterations <= 200; ++r.iterations) {
    const S f = r.w + log_(r.w) - y;
    const S step = f / (1 + 1 / r.w);
    S wn = r.w - step;
    if (!(wn > 0)) wn = r.w / 2;  // never leave the domain (cannot happen from the starts above)
    const bool small = abs_(step) <= tol * wn;
    r.w = wn;
    if (last) break;
    if (small) last = true;
  }
  r.converged = last;
  return r;
}

template <class S> struct LambertC {
  S a, b, y, w, C;  // y = a + ln b, w = omega(y) = W_0(e^y), C = b / w
  int iterations = 0;
  bool converged = false;
};
// C_L = b / W_0(exp(a + ln b)) (B.59); b > 0, a finite.
template <class S> LambertC<S> lambert_c(const S& a, const S& b) {
  using namespace cap_detail;
  require(is_finite(a), "hopfield::lambert_c: a must be finite");
  require_pos(b, "hopfield::lambert_c", "b");
  LambertC<S> r;
  r.a = a;
  r.b = b;
  r.y = a + log_(b);
  const OmegaResult<S> om = wright_omega(r.y);
  r.w = om.w;
  r.iterations = om.iterations;
  r.converged = om.converged;
  r.C = b / r.w;
  return r;
}
template <class S> LambertC<S> lambert_c(const Lemma42Params<S>& P) {
  const LambertAB<S> ab = lemma42_ab(P);
  return lambert_c(ab.a, ab.b);
}
// The double fast form through Boost.Math lambert_w0(e^y) (y <= 700; larger y: NaN, e^y would overflow).
inline double lambert_c_boost(double a, double b) {
  require(std::isfinite(a) && b > 0 && std::isfinite(b), "hopfield::lambert_c_boost: need a finite and b > 0 finite");
  const double y = a + std::log(b);
  if (y > 700) return NAN;
  return b / boost::math::lambert_w0(std::exp(y));
}
// ln M_lb = (1/2) ln p + (d-1)/4 ln C (Lemma 4.2), C > 0
template <class S> S log_capacity_lb(unsigned d, const S& p, const S& C) {
  using namespace cap_detail;
  require(d >= 2, "hopfield::log_capacity_lb: d must be >= 2");
  require_pos(p, "hopfield::log_capacity_lb", "p");
  require_pos(C, "hopfield::log_capacity_lb", "C");
  return log_(p) / 2 + S(static_cast<double>(d) - 1) / 4 * log_(C);
}

// theta_M = beta^-1 ln((M + k - 2) m / R) + 2 m R, the right-hand side of (B.45) (= (4.3) with Delta_min); M real >= 1
// with M + k - 2 > 0.
template <class S> S separation_threshold(const S& M, unsigned k, const S& m, const S& R, const S& beta) {
  using namespace cap_detail;
  const S n = M + S(static_cast<double>(k)) - 2;
  require(is_finite(n) && n > 0, "hopfield::separation_threshold: M + k - 2 must be > 0");
  require_pos(m, "hopfield::separation_threshold", "m");
  require_pos(R, "hopfield::separation_threshold", "R");
  require_pos(beta, "hopfield::separation_threshold", "beta");
  return log_(S(n * m / R)) / beta + 2 * m * R;
}
// ln[(1/2) gamma_{d-1} 5^{(d-1)/2} M^2 m^{-(d-1)} theta^{(d-1)/2}], the term subtracted in (B.53); theta > 0
template <class S> S log_b53_term(unsigned d, const S& M, const S& m, const S& theta) {
  using namespace cap_detail;
  require(d >= 2, "hopfield::log_b53_term: d must be >= 2");
  require_pos(M, "hopfield::log_b53_term", "M");
  require_pos(m, "hopfield::log_b53_term", "m");
  require_pos(theta, "hopfield::log_b53_term", "theta");
  const S q2 = S(static_cast<double>(d) - 1) / 2;
  return log_(S(gamma_d<S>(d - 1) / 2)) + q2 * log_(S(5)) + 2 * log_(M) - 2 * q2 * log_(m) + q2 * log_(theta);
}
// the right-hand side of (B.53): 1 - exp(log_b53_term)
template <class S> S b53_rhs(unsigned d, const S& M, const S& m, const S& theta) { return -cap_detail::expm1_(log_b53_term(d, M, m, theta)); }

// The left-hand sides of (B.55)-(B.57) at a given C > 0 (literal forms, log space):
//   (B.55)/p = [5^{q2} (sqrt p C^q)^2 m^{-(d-1)} {beta^-1 ln[(sqrt p C^q + k - 1) m / R] + beta^-1}^{q2} - p] / p,
//   (B.56) - 1 = 5^{q2} C^{q2} m^{-(d-1)} {beta^-1 ln[(sqrt p C^q + k - 1) m / R] + beta^-1}^{q2} - 1,
//   (B.57) = 5 C / (m^2 beta) {ln[(sqrt p C^q + k - 1) m / R] + 1} - 1,
// q = (d-1)/4, q2 = (d-1)/2. The claims read "<= 0". When the brace is <= 0 the fractional powers of (B.55)/(B.56)
// are undefined: they are NaN and bracket_positive is false ((B.57) is then negative).
template <class S> struct FactorLhs {
  S b55_over_p, b56_minus_1, b57;
  S log_inner;  // ln[(sqrt p C^q + k - 1) m / R]
  bool bracket_positive = true;
};
template <class S> FactorLhs<S> lemma42_factor(const Lemma42Params<S>& P, const S& C) {
  using namespace cap_detail;
  require_params(P, "hopfield::lemma42_factor");
  require_pos(C, "hopfield::lemma42_factor", "C");
  const S dm1 = S(static_cast<double>(P.d) - 1), q = dm1 / 4, q2 = dm1 / 2;
  const S log_s = log_(P.p) / 2 + q * log_(C);  // ln(sqrt p C^q)
  const S km1 = S(static_cast<double>(P.k) - 1);
  S log_sum;  // ln(sqrt p C^q + k - 1)
  if (P.k == 1) log_sum = log_s;
  else if (log_s > 0) log_sum = log_s + log1p_(S(km1 * exp_(S(-log_s))));
  else log_sum = log_(km1) + log1p_(S(exp_(log_s) / km1));
  FactorLhs<S> f;
  f.log_inner = log_sum + log_(P.m) - log_(P.R);
  const S brace = f.log_inner + 1;  // times beta^-1 in (B.55)/(B.56)
  f.b57 = S(5) * C / (P.m * P.m * P.beta) * brace - 1;
  if (brace > 0) {
    const S lb = log_(S(brace / P.beta));
    f.b55_over_p = expm1_(S(q2 * log_(S(5)) + 2 * log_s - dm1 * log_(P.m) + q2 * lb - log_(P.p)));
    f.b56_minus_1 = expm1_(S(q2 * log_(S(5)) + q2 * log_(C) - dm1 * log_(P.m) + q2 * lb));
  } else {
    f.bracket_positive = false;
    f.b55_over_p = f.b56_minus_1 = S(std::numeric_limits<double>::quiet_NaN());
  }
  return f;
}

// =====================================================================================================
// A004-DAM-EXP-BIN: binary dense associative memory with exponential interaction
// =====================================================================================================

// P patterns xi^mu in {-1,+1}^N, row-major (x[mu * N + i]).
struct DamPatterns {
  std::size_t P = 0, N = 0;
  std::vector<std::int8_t> x;
  int at(std::size_t mu, std::size_t i) const { return x[mu * N + i]; }
};
inline void dam_require(const DamPatterns& X, const std::vector<std::int8_t>& s, const char* who) {
  require(X.P >= 1 && X.N >= 1 && X.x.size() == X.P * X.N, std::string(who) + ": patterns must be a non-empty P x N array");
  require(s.size() == X.N, std::string(who) + ": state has " + std::to_string(s.size()) + " bits, patterns have N = " + std::to_string(X.N));
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] != 1 && s[i] != -1) require(false, std::string(who) + ": state bit " + std::to_string(i + 1) + " is not +-1");
}
// overlaps o_mu = <xi^mu, s> (exact integers)
inline std::vector<long> dam_overlaps(const DamPatterns& X, const std::vector<std::int8_t>& s) {
  dam_require(X, s, "hopfield::dam_overlaps");
  std::vector<long> o(X.P, 0);
  for (std::size_t mu = 0; mu < X.P; ++mu)
    for (std::size_t i = 0; i < X.N; ++i) o[mu] += X.at(mu, i) * s[i];
  return o;
}
// ln(-E(s)) = ln sum_mu exp(o_mu) (E = -exp of it)
template <class S> S dam_log_neg_energy(const DamPatterns& X, const std::vector<std::int8_t>& s) {
  const std::vector<long> o = dam_overlaps(X, s);
  Vector<S> z(o.size());
  for (std::size_t mu = 0; mu < o.size(); ++mu) z[mu] = S(static_cast<double>(o[mu]));
  return lse(S(1), z);
}
// Overlaps of s^(i+) and s^(i-) (s with bit i set to +1 / -1) from the current overlaps o of s.
inline void dam_pm_overlaps(const DamPatterns& X, const std::vector<std::int8_t>& s, const std::vector<long>& o, std::size_t i,
                            std::vector<long>& op, std::vector<long>& om) {
  require(i < X.N && o.size() == X.P, "hopfield::dam_pm_overlaps: bit out of range or overlaps of the wrong length");
  op.resize(X.P);
  om.resize(X.P);
  for (std::size_t mu = 0; mu < X.P; ++mu) {
    const long r = o[mu] - X.at(mu, i) * s[i];  // overlap without bit i
    op[mu] = r + X.at(mu, i);
    om[mu] = r - X.at(mu, i);
  }
}
// The spec's form: sign of lse(o^(i+)) - lse(o^(i-)) in S (0 when the two are equal in S).
template <class S> int dam_update_sign_lse(const DamPatterns& X, const std::vector<std::int8_t>& s, const std::vector<long>& o, std::size_t i) {
  std::vector<long> op, om;
  dam_pm_overlaps(X, s, o, i, op, om);
  Vector<S> zp(X.P), zm(X.P);
  for (std::size_t mu = 0; mu < X.P; ++mu) {
    zp[mu] = S(static_cast<double>(op[mu]));
    zm[mu] = S(static_cast<double>(om[mu]));
  }
  const S d = lse(S(1), zp) - lse(S(1), zm);
  return d > 0 ? 1 : (d < 0 ? -1 : 0);
}
// The direct form: sign of sum_mu [exp(o^(i+)_mu) - exp(o^(i-)_mu)] evaluated in S as written (no shift; for mp_t
// the caller sets P-exp digits).
template <class S> int dam_update_sign_direct(const DamPatterns& X, const std::vector<std::int8_t>& s, const std::vector<long>& o, std::size_t i) {
  std::vector<long> op, om;
  dam_pm_overlaps(X, s, o, i, op, om);
  S acc(0);
  for (std::size_t mu = 0; mu < X.P; ++mu)
    acc += cap_detail::exp_(S(static_cast<double>(op[mu]))) - cap_detail::exp_(S(static_cast<double>(om[mu])));
  return acc > 0 ? 1 : (acc < 0 ? -1 : 0);
}
// The coefficients c_j (j = -(N-1) .. N-1, index j + N - 1) of sum_mu [e^{o^+_mu} - e^{o^-_mu}] = 2 sinh(1) sum_j c_j e^j,
// c_j = sum_{mu: r_mu = j} xi^mu_i, r_mu the overlap without bit i.
inline std::vector<long> dam_sign_coefficients(const DamPatterns& X, const std::vector<std::int8_t>& s, const std::vector<long>& o, std::size_t i) {
  require(i < X.N && o.size() == X.P, "hopfield::dam_sign_coefficients: bit out of range or overlaps of the wrong length");
  std::vector<long> c(2 * X.N - 1, 0);
  for (std::size_t mu = 0; mu < X.P; ++mu) {
    const long r = o[mu] - X.at(mu, i) * s[i];
    c[static_cast<std::size_t>(r + static_cast<long>(X.N) - 1)] += X.at(mu, i);
  }
  return c;
}
// Exact sign of sum_j c_j e^{j - off} (c indexed from j = -off): 0 iff every c_j is 0 (e is transcendental); else the
// sum is evaluated with MPFR at increasing digits until its magnitude exceeds a bound on the accumulated rounding error
// (each term within 2 ulp, the sum within (n+2) ulp of sum |c_j| e^j); throws if unresolved at 4096 digits.
inline int exact_exp_poly_sign(const std::vector<long>& c, long off, unsigned* digits_used = nullptr) {
  bool any = false;
  long jmax = 0;
  for (std::size_t t = 0; t < c.size(); ++t)
    if (c[t] != 0) {
      any = true;
      jmax = static_cast<long>(t) - off;
    }
  if (!any) {
    if (digits_used) *digits_used = 0;
    return 0;
  }
  for (unsigned dg = 40; dg <= 4096; dg *= 2) {
    MpDigitsScope sc(dg);
    mp_t acc(0), mag(0);
    for (std::size_t t = 0; t < c.size(); ++t) {
      if (c[t] == 0) continue;
      const mp_t e = cap_detail::exp_(mp_t(static_cast<double>(static_cast<long>(t) - off - jmax)));  // <= 1
      acc += mp_t(static_cast<double>(c[t])) * e;
      mag += mp_t(static_cast<double>(c[t] < 0 ? -c[t] : c[t])) * e;
    }
    const mp_t err = mag * mp_t(static_cast<double>(c.size()) + 4) * cap_detail::exp_(mp_t(-cap_detail::log_(mp_t(10)) * mp_t(static_cast<double>(dg) - 2)));
    if (cap_detail::abs_(acc) > err) {
      if (digits_used) *digits_used = dg;
      return acc > 0 ? 1 : -1;
    }
  }
  require(false, "hopfield::exact_exp_poly_sign: sign not resolved at 4096 digits");
  return 0;
}
// The exact update sign of bit i.
inline int dam_update_sign_exact(const DamPatterns& X, const std::vector<std::int8_t>& s, const std::vector<long>& o, std::size_t i,
                                 unsigned* digits_used = nullptr) {
  return exact_exp_poly_sign(dam_sign_coefficients(X, s, o, i), static_cast<long>(X.N) - 1, digits_used);
}
// Set bit i to `sign` (0 keeps it) and update the overlaps incrementally; true when the bit changed.
inline bool dam_apply(const DamPatterns& X, std::vector<std::int8_t>& s, std::vector<long>& o, std::size_t i, int sign) {
  if (sign == 0 || sign == s[i]) return false;
  for (std::size_t mu = 0; mu < X.P; ++mu) o[mu] += 2L * X.at(mu, i) * sign;  // o += xi_i (s_new - s_old), s_new - s_old = 2 sign
  s[i] = static_cast<std::int8_t>(sign);
  return true;
}
// One asynchronous sweep i = 1..N (sequential order) with the lse sign in S; returns the number of flips.
template <class S> int dam_sweep(const DamPatterns& X, std::vector<std::int8_t>& s, std::vector<long>& o) {
  dam_require(X, s, "hopfield::dam_sweep");
  int flips = 0;
  for (std::size_t i = 0; i < X.N; ++i) flips += dam_apply(X, s, o, i, dam_update_sign_lse<S>(X, s, o, i)) ? 1 : 0;
  return flips;
}
struct DamRun {
  int sweeps = 0;        // sweeps made (the last one without a flip when converged)
  bool converged = false;
};
// Sweeps until a sweep makes no flip (a fixed point), at most max_sweeps.
template <class S> DamRun dam_run(const DamPatterns& X, std::vector<std::int8_t>& s, int max_sweeps) {
  std::vector<long> o = dam_overlaps(X, s);
  DamRun r;
  while (r.sweeps < max_sweeps) {
    ++r.sweeps;
    if (dam_sweep<S>(X, s, o) == 0) {
      r.converged = true;
      break;
    }
  }
  return r;
}

// ---- fast form: bit-packed patterns (N <= 64), overlaps maintained incrementally, histogram signs ----------------
// Bit i of word mu is 1 for xi^mu_i = +1. Overlap <xi^mu, s> = N - 2 popcount(xi^mu XOR s).
struct DamPacked {
  std::size_t N = 0;
  std::vector<std::uint64_t> w;  // one word per pattern
  std::size_t P() const { return w.size(); }
};
inline DamPacked dam_pack(const DamPatterns& X) {
  require(X.N >= 1 && X.N <= 64 && X.x.size() == X.P * X.N, "hopfield::dam_pack: need 1 <= N <= 64 and a P x N array");
  DamPacked pk;
  pk.N = X.N;
  pk.w.assign(X.P, 0);
  for (std::size_t mu = 0; mu < X.P; ++mu)
    for (std::size_t i = 0; i < X.N; ++i)
      if (X.at(mu, i) > 0) pk.w[mu] |= std::uint64_t{1} << i;
  return pk;
}
inline std::uint64_t dam_pack_state(const std::vector<std::int8_t>& s) {
  require(!s.empty() && s.size() <= 64, "hopfield::dam_pack_state: need 1 <= N <= 64 bits");
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] > 0) v |= std::uint64_t{1} << i;
  return v;
}
// The fast engine: overlaps kept as ints, e^{-j} (j = 0..2N) tabulated in double, the update sign of bit i from two
// table sums (see sign()); when their difference is within 1e-9 of their magnitude, the exact sign of the histogram
// (exact_exp_poly_sign) decides, so ties are exact.
class DamFast {
 public:
  explicit DamFast(const DamPacked& X) : X_(X), N_(X.N), hist_(2 * X.N + 1, 0), e_(2 * X.N + 1) {
    require(N_ >= 1 && N_ <= 64, "hopfield::DamFast: need 1 <= N <= 64");
    for (std::size_t t = 0; t < e_.size(); ++t) e_[t] = std::exp(-static_cast<double>(t));  // e^{-t}, t = 0..2N
  }
  void set_state(std::uint64_t s) {
    s_ = s;
    o_.resize(X_.P());
    const std::uint64_t mask = N_ == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << N_) - 1);
    for (std::size_t mu = 0; mu < X_.P(); ++mu) o_[mu] = static_cast<int>(N_) - 2 * __builtin_popcountll((X_.w[mu] ^ s_) & mask);
  }
  std::uint64_t state() const { return s_; }
  const std::vector<int>& overlaps() const { return o_; }
  // update sign of bit i (-1, 0, +1): sum_mu xi_i^mu e^{r_mu} = e^{-s_i} A_+ - e^{s_i} A_-, A_+- = sum over the patterns
  // with xi_i^mu = +-1 of e^{o_mu - N} (table lookups, no scatter); decided in double when the difference exceeds 1e-9 of
  // the magnitude, else from the exact histogram (exact_exp_poly_sign; exact ties give 0)
  int sign(std::size_t i) {
    const int si = (s_ >> i) & 1 ? 1 : -1;
    const int n = static_cast<int>(N_);
    double ap = 0, am = 0;
    for (std::size_t mu = 0; mu < X_.P(); ++mu) {
      const double e = e_[static_cast<std::size_t>(n - o_[mu])];
      const bool plus = (X_.w[mu] >> i) & 1;
      ap += plus ? e : 0.0;
      am += plus ? 0.0 : e;
    }
    const double ep = si > 0 ? e_[1] : std::exp(1.0), em = si > 0 ? std::exp(1.0) : e_[1];  // e^{-s_i}, e^{s_i}
    const double acc = ep * ap - em * am, mag = ep * ap + em * am;
    if (std::fabs(acc) > 1e-9 * mag) return acc > 0 ? 1 : -1;
    return sign_exact(i);
  }
  // the exact sign from the histogram c_j = sum_{mu: r_mu = j} xi^mu_i
  int sign_exact(std::size_t i) {
    std::fill(hist_.begin(), hist_.end(), 0L);
    const int si = (s_ >> i) & 1 ? 1 : -1;
    const int n = static_cast<int>(N_);
    for (std::size_t mu = 0; mu < X_.P(); ++mu) {
      const int xi = (X_.w[mu] >> i) & 1 ? 1 : -1;
      hist_[static_cast<std::size_t>(o_[mu] - xi * si + n)] += xi;
    }
    ++exact_calls_;
    return exact_exp_poly_sign(hist_, n);
  }
  // set bit i to sign (0 keeps it); incremental overlaps; true when it changed
  bool apply(std::size_t i, int sgn) {
    const int si = (s_ >> i) & 1 ? 1 : -1;
    if (sgn == 0 || sgn == si) return false;
    for (std::size_t mu = 0; mu < X_.P(); ++mu) o_[mu] += ((X_.w[mu] >> i) & 1 ? 2 : -2) * sgn;
    s_ ^= std::uint64_t{1} << i;
    return true;
  }
  int sweep() {
    int flips = 0;
    for (std::size_t i = 0; i < N_; ++i) flips += apply(i, sign(i)) ? 1 : 0;
    return flips;
  }
  // sweeps until one makes no flip, at most max_sweeps (counting `already` sweeps made by the caller, the last of which
  // made `last_flips` flips: a caller's sweep without flips is already a fixed point)
  DamRun run(int max_sweeps, int already = 0, int last_flips = 1) {
    DamRun r;
    r.sweeps = already;
    if (already > 0 && last_flips == 0) {
      r.converged = true;
      return r;
    }
    while (r.sweeps < max_sweeps) {
      ++r.sweeps;
      if (sweep() == 0) {
        r.converged = true;
        break;
      }
    }
    return r;
  }
  long exact_calls() const { return exact_calls_; }

 private:
  const DamPacked& X_;
  std::size_t N_;
  std::uint64_t s_ = 0;
  std::vector<int> o_;
  std::vector<long> hist_;
  std::vector<double> e_;
  long exact_calls_ = 0;
};

}  // namespace recall::ref::hopfield
