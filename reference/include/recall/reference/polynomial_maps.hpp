// Polynomial feature maps of A002 (Atlas, §3.1, Eq. 5, Eq. 22, App. C) and the exponential feature map of §4.2.
// A002-POLY-MAP: umbrella; three maps, selectable wherever a phi appears (plus phi = id):
//   * A002-POLY-MAP-MONO     monomial_map: phi_p(x) = [x^beta]_{|beta| <= p}, unweighted (§3.1, App. C);
//   * A002-POLY-MAP-KRON     kron_map: x^{⊗p}, row-major Kronecker power (Eq. 22); reuses detail::kron_power of
//                            feature_maps.hpp (the FeatureMapKind::poly map);
//   * A002-POLY-MAP-WEIGHTED weighted_query_map / weighted_key_map: the feature realization of Eq. 5's kernel
//                            kappa_a(q, k) = sum_{i <= p} a_i (q^T k)^i by multinomially weighted monomials.
// A002-POLY-MAP-DIM: monomial_map_dim = binom(d + p, p) (hockey-stick; overflow -> std::invalid_argument).
// A002-TAYLOR-EXP / A002-TAYLOR-EQ5: poly_series (sum_i a_i s^i), taylor_coefficients (a_i = 1/i!), poly_kernel.
// A002-EXP-FEATURE-MAP: the truncated phi*_P of Eqs. 22-23 in two coordinate systems: monomial (exp_feature_map_mono =
//   the WEIGHTED map at a_i = 1/i!: x^alpha / sqrt(alpha!)) and Kronecker (exp_feature_map_kron = feature_maps.hpp's
//   exp_trunc, [x^{⊗m}/sqrt(m!)]_{m <= P}; the same computation as A000-EXP-FEATURE).
//
// Monomial order (all monomial maps here): graded, constant monomial first; degree 0, 1, ..., p; within a degree the
// exponent vectors in lexicographically DECREASING order (x_1^l first, x_d^l last; degree 1 is x_1, ..., x_d). This is
// the order of ref::monomial_exponents (local_regression.hpp, A001-LOCAL-POLY-GENERAL-P), reused here. E.g. d = 2,
// p = 2: [1, x1, x2, x1^2, x1 x2, x2^2]; d = 3, degree 2: x1^2, x1x2, x1x3, x2^2, x2x3, x3^2.
// Values are formed by incremental products (each degree-l monomial = its parent of degree l-1 times one variable: the
// parent is alpha - e_j, j = the first variable with alpha_j > 0), exact for boost::multiprecision::cpp_rational.
//
// Scalars: everything without a square root (monomial_map, kron_map, poly_series, poly_kernel, weighted_kernel_sq,
// multinomial weights) works for cpp_rational (exact), recall::mp_t and double; the weighted feature vectors need
// sqrt (mp_t, double).
#pragma once

#include "recall/reference/feature_maps.hpp"
#include "recall/reference/hopfield_svr.hpp"
#include "recall/reference/local_regression.hpp"
#include "recall/reference/matrix.hpp"

#include <boost/multiprecision/number.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace recall::ref {

namespace poly_detail {
// finite check that also accepts exact types (cpp_rational has no fpclassify; its values are always finite)
template <class S> bool finite_(const S& x) {
  if constexpr (std::is_floating_point_v<S>) {
    return std::isfinite(x);
  } else if constexpr (boost::multiprecision::number_category<S>::value == boost::multiprecision::number_kind_floating_point) {
    return is_finite(x);
  } else {
    return true;
  }
}
template <class S> void require_finite_vec(const S* x, std::size_t d, const char* who, const char* what) {
  for (std::size_t j = 0; j < d; ++j)
    require(finite_(x[j]), std::string(who) + ": " + what + "[" + std::to_string(j + 1) + "] is not finite");
}
template <class S> S sqrt_(const S& x) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  return sqrt(x);
}
template <class S> S dot_(const S* x, const S* y, std::size_t n) { return hopfield::svr_detail::dot_(x, y, n); }
}  // namespace poly_detail

// A002-POLY-MAP-DIM: D = sum_{l <= p} binom(d + l - 1, l) = binom(d + p, p) coordinates of the degree-<= p monomial map
// (exact 64-bit; std::invalid_argument naming d and p when p < 0 or the count does not fit in std::size_t). The checked
// counterpart of ref::monomial_count (local_regression.hpp, no overflow check); the exact-degree count binom(d+l-1, l) is
// ref::hopfield::monomial_count (hopfield_svr.hpp).
inline std::size_t monomial_map_dim(std::size_t d, int p) {
  const std::string who = "monomial_map_dim(d = " + std::to_string(d) + ", p = " + std::to_string(p) + ")";
  require(p >= 0, who + ": degree p must be >= 0");
  require(d <= std::numeric_limits<std::uint64_t>::max() - static_cast<std::uint64_t>(p), who + ": d + p overflows");
  std::uint64_t r = 0;
  try {
    r = hopfield::binomial(static_cast<std::uint64_t>(d) + static_cast<std::uint64_t>(p), static_cast<std::uint64_t>(p));
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument(who + ": binom(d + p, p) overflows 64 bits");
  }
  require(r <= std::numeric_limits<std::size_t>::max(), who + ": binom(d + p, p) overflows std::size_t");
  return static_cast<std::size_t>(r);
}
// A002-POLY-MAP-MONO: the construction plan of the monomial map: exponents (in the documented order), and for every
// monomial c >= 1 its parent (index of exponents[c] - e_var) and the variable var (0-based) that extends it.
struct MonomialPlan {
  std::size_t d = 0;
  int p = 0;
  std::vector<std::vector<int>> exponents;
  std::vector<std::size_t> parent, var;  // parent[0] = var[0] = 0 (constant monomial, unused)
  std::vector<int> degree;
};
inline MonomialPlan monomial_plan(std::size_t d, int p) {
  require(d >= 1, "monomial_plan: input dimension d must be >= 1");
  require(p >= 0, "monomial_plan: degree p must be >= 0, got " + std::to_string(p));
  const std::size_t D = monomial_map_dim(d, p);
  MonomialPlan pl;
  pl.d = d;
  pl.p = p;
  pl.exponents = monomial_exponents(d, p);
  require(pl.exponents.size() == D, "monomial_plan: enumeration count differs from binom(d + p, p)");
  std::map<std::vector<int>, std::size_t> index;
  pl.parent.assign(D, 0);
  pl.var.assign(D, 0);
  pl.degree.assign(D, 0);
  for (std::size_t c = 0; c < D; ++c) {
    const std::vector<int>& e = pl.exponents[c];
    index.emplace(e, c);
    int deg = 0;
    for (int v : e) deg += v;
    pl.degree[c] = deg;
    if (deg == 0) continue;
    std::size_t j = 0;
    while (e[j] == 0) ++j;
    std::vector<int> par = e;
    --par[j];
    const auto it = index.find(par);
    require(it != index.end(), "monomial_plan: parent monomial not enumerated before its child");
    pl.parent[c] = it->second;
    pl.var[c] = j;
  }
  return pl;
}
// A002-POLY-MAP-MONO: phi_p(x) = [x^beta]_{|beta| <= p} with the plan's order (constant first), incremental products.
template <class S> Vector<S> monomial_map(const S* x, const MonomialPlan& pl) {
  poly_detail::require_finite_vec(x, pl.d, "monomial_map", "x");
  Vector<S> out(pl.exponents.size());
  out[0] = S(1);
  for (std::size_t c = 1; c < out.size(); ++c) out[c] = out[pl.parent[c]] * x[pl.var[c]];
  return out;
}
// A002-POLY-MAP-MONO: all monomials of degree <= p of x (unweighted), binom(d + p, p) entries, constant monomial first.
template <class S> Vector<S> monomial_map(const Vector<S>& x, int p) {
  require(!x.empty(), "monomial_map: x must be non-empty");
  return monomial_map(x.data(), monomial_plan(x.size(), p));
}
// Row-wise: T x d -> T x binom(d + p, p).
template <class S> Matrix<S> monomial_map(const Matrix<S>& X, int p) {
  require(X.rows >= 1 && X.cols >= 1, "monomial_map: X must be non-empty");
  const MonomialPlan pl = monomial_plan(X.cols, p);
  Matrix<S> out(X.rows, pl.exponents.size());
  for (std::size_t t = 0; t < X.rows; ++t) {
    const Vector<S> r = monomial_map(X.row(t), pl);
    for (std::size_t c = 0; c < r.size(); ++c) out(t, c) = r[c];
  }
  return out;
}
// The unweighted monomial kernel sum_{|beta| <= p} q^beta k^beta (no closed form: the inner product of the maps).
template <class S> S monomial_kernel(const Vector<S>& q, const Vector<S>& k, int p) {
  require(q.size() == k.size(), "monomial_kernel: q and k differ in length");
  const Vector<S> a = monomial_map(q, p), b = monomial_map(k, p);
  return poly_detail::dot_(a.data(), b.data(), a.size());
}

// A002-POLY-MAP-KRON: d^p coordinates (overflow -> error naming d and p).
inline std::size_t kron_map_dim(std::size_t d, int p) {
  require(p >= 0, "kron_map_dim: degree p must be >= 0, got " + std::to_string(p));
  std::size_t r = 1;
  for (int i = 0; i < p; ++i) {
    require(d == 0 || r <= std::numeric_limits<std::size_t>::max() / d,
            "kron_map_dim(d = " + std::to_string(d) + ", p = " + std::to_string(p) + "): d^p overflows");
    r *= d;
  }
  return r;
}
// A002-POLY-MAP-KRON: phi_p(x) = x^{⊗p} = x ⊗ x^{⊗(p-1)}, row-major (coordinate (i_1, ..., i_p) at
// sum_k i_k d^{p-k}, 0-based), the FeatureMapKind::poly map of feature_maps.hpp.
template <class S> Vector<S> kron_map(const Vector<S>& x, int p) {
  require(!x.empty(), "kron_map: x must be non-empty");
  require(p >= 0, "kron_map: degree p must be >= 0, got " + std::to_string(p));
  (void)kron_map_dim(x.size(), p);
  poly_detail::require_finite_vec(x.data(), x.size(), "kron_map", "x");
  return detail::kron_power(x.data(), x.size(), p);
}
template <class S> Matrix<S> kron_map(const Matrix<S>& X, int p) {
  require(X.rows >= 1 && X.cols >= 1, "kron_map: X must be non-empty");
  Matrix<S> out(X.rows, kron_map_dim(X.cols, p));
  for (std::size_t t = 0; t < X.rows; ++t) {
    const Vector<S> r = kron_map(Vector<S>(X.row(t), X.row(t) + X.cols), p);
    for (std::size_t c = 0; c < r.size(); ++c) out(t, c) = r[c];
  }
  return out;
}

// A002-TAYLOR-EXP, A002-TAYLOR-EQ5: the power series sum_{i=0}^{p} a_i s^i (a.size() = p + 1), plain accumulation of
// the powers s^i (no Horner: the terms are the printed ones).
template <class S> S poly_series(const Vector<S>& a, const S& s) {
  require(!a.empty(), "poly_series: coefficient vector a must be non-empty");
  require(poly_detail::finite_(s), "poly_series: argument s is not finite");
  S sum(0), pw(1);
  for (std::size_t i = 0; i < a.size(); ++i) {
    require(poly_detail::finite_(a[i]), "poly_series: coefficient a_" + std::to_string(i) + " is not finite");
    if (i > 0) pw = pw * s;
    sum += a[i] * pw;
  }
  return sum;
}
// A002-TAYLOR-EXP: a_i = 1/i!, i = 0..P (exact in cpp_rational); poly_series(taylor_coefficients(P), s) = T_P(s).
template <class S> Vector<S> taylor_coefficients(int P) {
  require(P >= 0, "taylor_coefficients: order P must be >= 0, got " + std::to_string(P));
  Vector<S> a(static_cast<std::size_t>(P) + 1);
  for (int i = 0; i <= P; ++i) a[i] = S(1) / hopfield::factorial<S>(static_cast<unsigned>(i));
  return a;
}
// A002-POLY-MAP-WEIGHTED / A002-TAYLOR-EQ5: kappa_a(q, k) = sum_{i=0}^{p} a_i (q^T k)^i (the kernel side of Eq. 5).
template <class S> S poly_kernel(const Vector<S>& a, const Vector<S>& q, const Vector<S>& k) {
  require(!q.empty() && q.size() == k.size(), "poly_kernel: q and k must be non-empty and of equal length");
  poly_detail::require_finite_vec(q.data(), q.size(), "poly_kernel", "q");
  poly_detail::require_finite_vec(k.data(), k.size(), "poly_kernel", "k");
  return poly_series(a, poly_detail::dot_(q.data(), k.data(), q.size()));
}

// A002-POLY-MAP-WEIGHTED: the signed squared weights w_alpha = a_{|alpha|} |alpha|! / alpha! of the monomials of the
// plan (alpha! = prod_j alpha_j!), exact in cpp_rational. The feature realization has phi_q,alpha phi_k,alpha =
// w_alpha q^alpha k^alpha, and sum_{|alpha| = i} (i!/alpha!) q^alpha k^alpha = (q^T k)^i (multinomial theorem).
template <class S> Vector<S> multinomial_weights(const Vector<S>& a, const MonomialPlan& pl) {
  require(a.size() == static_cast<std::size_t>(pl.p) + 1,
          "multinomial_weights: need p + 1 = " + std::to_string(pl.p + 1) + " coefficients a_0..a_p, got " + std::to_string(a.size()));
  Vector<S> w(pl.exponents.size());
  for (std::size_t c = 0; c < w.size(); ++c) {
    require(poly_detail::finite_(a[pl.degree[c]]), "multinomial_weights: coefficient a_" + std::to_string(pl.degree[c]) + " is not finite");
    S den(1);
    for (int e : pl.exponents[c]) den *= hopfield::factorial<S>(static_cast<unsigned>(e));
    w[c] = a[pl.degree[c]] * hopfield::factorial<S>(static_cast<unsigned>(pl.degree[c])) / den;
  }
  return w;
}
// A002-POLY-MAP-WEIGHTED (square-root-free form, exact in cpp_rational): sum_alpha w_alpha q^alpha k^alpha = the inner
// product of the query and key features below (both the symmetric and the asymmetric realization).
template <class S> S weighted_kernel_sq(const Vector<S>& a, const Vector<S>& q, const Vector<S>& k) {
  require(!q.empty() && q.size() == k.size(), "weighted_kernel_sq: q and k must be non-empty and of equal length");
  require(!a.empty(), "weighted_kernel_sq: coefficient vector a must be non-empty");
  const MonomialPlan pl = monomial_plan(q.size(), static_cast<int>(a.size()) - 1);
  const Vector<S> w = multinomial_weights(a, pl), mq = monomial_map(q.data(), pl), mk = monomial_map(k.data(), pl);
  S sum(0);
  for (std::size_t c = 0; c < w.size(); ++c) sum += w[c] * mq[c] * mk[c];
  return sum;
}
// A002-POLY-MAP-WEIGHTED: key features sqrt(|a_{|alpha|}| |alpha|!/alpha!) x^alpha (for a_i >= 0 also the query
// features: the symmetric realization). Delta/Omega updates use these for both factors of phi phi^T. Needs sqrt.
template <class S> Vector<S> weighted_key_map(const Vector<S>& x, const Vector<S>& a) {
  require(!x.empty(), "weighted_key_map: x must be non-empty");
  require(!a.empty(), "weighted_key_map: coefficient vector a must be non-empty");
  const MonomialPlan pl = monomial_plan(x.size(), static_cast<int>(a.size()) - 1);
  const Vector<S> w = multinomial_weights(a, pl);
  Vector<S> m = monomial_map(x.data(), pl);
  for (std::size_t c = 0; c < m.size(); ++c) m[c] *= poly_detail::sqrt_(S(w[c] < 0 ? S(-w[c]) : w[c]));
  return m;
}
// A002-POLY-MAP-WEIGHTED: query features sign(a_{|alpha|}) sqrt(|a_{|alpha|}| |alpha|!/alpha!) x^alpha; equal to the key
// features when every a_i >= 0. <weighted_query_map(q), weighted_key_map(k)> = kappa_a(q, k) for every real a.
template <class S> Vector<S> weighted_query_map(const Vector<S>& x, const Vector<S>& a) {
  Vector<S> m = weighted_key_map(x, a);
  const MonomialPlan pl = monomial_plan(x.size(), static_cast<int>(a.size()) - 1);
  for (std::size_t c = 0; c < m.size(); ++c)
    if (a[pl.degree[c]] < 0) m[c] = -m[c];
  return m;
}
template <class S> Matrix<S> weighted_map_rows(const Matrix<S>& X, const Vector<S>& a, bool query) {
  require(X.rows >= 1 && X.cols >= 1, "weighted_map_rows: X must be non-empty");
  const std::size_t D = monomial_map_dim(X.cols, static_cast<int>(a.size()) - 1);
  Matrix<S> out(X.rows, D);
  for (std::size_t t = 0; t < X.rows; ++t) {
    const Vector<S> x(X.row(t), X.row(t) + X.cols);
    const Vector<S> r = query ? weighted_query_map(x, a) : weighted_key_map(x, a);
    for (std::size_t c = 0; c < D; ++c) out(t, c) = r[c];
  }
  return out;
}

// A002-EXP-FEATURE-MAP: truncated phi*_P in monomial coordinates, x^alpha / sqrt(alpha!), |alpha| <= P (= the WEIGHTED
// map at a_i = 1/i!); <phi*_P(x), phi*_P(y)> = T_P(x^T y). Needs sqrt.
template <class S> Vector<S> exp_feature_map_mono(const Vector<S>& x, int P) { return weighted_key_map(x, taylor_coefficients<S>(P)); }
// A002-EXP-FEATURE-MAP: truncated phi*_P in Kronecker coordinates [x^{⊗m}/sqrt(m!)]_{m <= P} (feature_maps.hpp exp_trunc,
// A000-EXP-FEATURE). Needs sqrt.
template <class S> Vector<S> exp_feature_map_kron(const Vector<S>& x, int P) {
  require(!x.empty(), "exp_feature_map_kron: x must be non-empty");
  require(P >= 0, "exp_feature_map_kron: order P must be >= 0, got " + std::to_string(P));
  poly_detail::require_finite_vec(x.data(), x.size(), "exp_feature_map_kron", "x");
  FeatureMap f;
  f.kind = FeatureMapKind::exp_trunc;
  f.order = P;
  return apply_feature_map(f, x.data(), x.size());
}

}  // namespace recall::ref
