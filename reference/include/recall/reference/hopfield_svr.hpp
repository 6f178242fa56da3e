// The support-vector-regression view of modern Hopfield retrieval in A003 (Hu et al. 2024, nonparametric modern
// Hopfield models; spec /work/shared/spec/A003-hopfield.md §2.1, §3.1-3.2, App. B.1-B.3):
//   * the multinomial expansion of Lemma B.2 (generic scalar: exact with boost::multiprecision::cpp_rational,
//     printed square-root form with recall::mp_t), the truncated Taylor monomial features of Lemma B.3 / (B.22),
//     the exponential kernel and its Taylor truncation, the normaliser h of (B.6) and the normalised map
//     Phi = tilde Phi / h (spec Ambiguity 3: non-circular);
//   * the soft-margin eps'-SVR with vector output (2.1) (with a free bias b, variant A, or without, variant B;
//     Ambiguity 7), Problem (3.3) with the cap eps' + eta <= eps / sqrt(d) on eta only (P-AS, as printed) or on
//     eta and tilde eta (P-SYM, Ambiguity 8), the masked problem (3.9) (training pairs restricted to a mask, the
//     normaliser of the feature map still over all M keys);
//   * an interior-point solver that returns primal, dual and KKT information, the representer retrieval map
//     (3.4)/(3.5), the KKT residual of a candidate coefficient matrix (e.g. the c_mu = h(k_mu) xi_mu of the
//     Lemma 3.1 proof) and the exact optimal-set diameters used by the uniqueness claims.
//
// Solver. Every problem here is separable over the d output coordinates (the objective and the constraints of
// coordinate i involve only w_i, b[i], eta_.[i], tilde eta_.[i]). Per coordinate, svr_solve solves the DUAL in the
// kernelised form (variables alpha, tilde alpha >= 0 and the cap multipliers gamma, tilde gamma >= 0 with
// alpha <= C + gamma, i.e. lambda = C - alpha + gamma >= 0; objective 1/2 beta^T G beta - y^T beta +
// eps' 1^T (alpha + tilde alpha) + (eps/sqrt(d) - eps') 1^T (gamma + tilde gamma), beta = alpha - tilde alpha;
// with a bias the equality 1^T beta = 0) by a primal-dual Mehrotra predictor-corrector interior-point method in
// the scalar S (recall::mp_t at P-50: run until the complementarity measure is below 10^-(digits - 10)). The
// Newton systems are reduced exactly to an M x M positive definite system G + diag(1/s_mu) (the block structure
// of the bound constraints). The primal is read off the dual's multipliers: eta = multiplier of alpha - gamma <= C,
// tilde eta likewise, b = the multiplier of the equality, and W = sum_mu beta_mu Phi(k_mu)^T (stationarity in W).
// svr_kkt re-evaluates every KKT condition of the full system (cap multipliers included) from these numbers, so a
// returned solution is certified by its residuals, not by the solver's stopping rule.
// An independent check, svr_solve_primal_explicit, solves the PRIMAL jointly over all coordinates in an explicit
// feature space (variables W, b, eta, tilde eta; a generic dense primal-dual IPM, qp_ipm) and returns the tube
// multipliers; it assumes nothing about separability or the representer form.
//
// Layout: training inputs (keys k_mu = xi_mu + dxi_mu) and targets are ROWS (M x d), as in hopfield.hpp; the
// Gram matrix is M x M, G(mu, nu) = K(k_mu, k_nu); coefficient matrices beta are M x d (row mu = the vector
// alpha_mu - tilde alpha_mu of (3.4)). Indices 0-based; the claim files report them 1-based.
#pragma once

#include "recall/reference/hopfield.hpp"
#include "recall/reference/matrix.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace recall::ref::hopfield {

namespace svr_detail {
using detail::exp_;
using detail::sqrt_;
template <class S> S abs_(const S& x) { return x < 0 ? S(-x) : x; }
template <class S> S max_(const S& a, const S& b) { return a < b ? b : a; }
template <class S> S min_(const S& a, const S& b) { return b < a ? b : a; }
template <class S> S pos_inf() { return -neg_inf<S>(); }
// plain accumulation a^T b (no MulAddCtx: also for cpp_rational)
template <class S> S dot_(const S* x, const S* y, std::size_t n) {
  S acc(0);
  for (std::size_t i = 0; i < n; ++i) acc += x[i] * y[i];
  return acc;
}
// stopping tolerance of the interior-point methods: 10^10 u for mp_t (1e-40 at 50 digits), 1e-10 in double
template <class S> S ipm_tolerance() {
  if constexpr (scalar_traits<S>::is_mp) {
    S t(10);
    return boost::multiprecision::pow(t, -static_cast<int>(mp_digits()) + 10);
  } else {
    return S(1e-10);
  }
}
// The interior-point methods run at 2 D + 10 digits internally (D = the caller's working digits) and stop at the
// tolerance of D: near the solution the Newton systems mix scalings z/s from ~1/mu to ~mu, and the normal-equation
// reduction loses up to ~2 log10(1/mu) digits in the slacks of the active rows (Wright 1999); the extra digits keep
// the final iterates accurate at D. (double: no extra precision; the tolerance is 1e-10.)
template <class S> unsigned internal_digits() { return scalar_traits<S>::is_mp ? 2 * mp_digits() + 10 : 0; }
// v at the current default precision (mp_t copies keep their source precision)
template <class S> S relift(const S& v) {
  if constexpr (scalar_traits<S>::is_mp) {
    S w(0);
    w += v;
    return w;
  } else {
    return v;
  }
}
template <class S> Vector<S> relift(const Vector<S>& v) {
  Vector<S> o(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) o[i] = relift(v[i]);
  return o;
}
template <class S> Matrix<S> relift(const Matrix<S>& m) {
  Matrix<S> o(m.rows, m.cols);
  for (std::size_t i = 0; i < m.a.size(); ++i) o.a[i] = relift(m.a[i]);
  return o;
}
// Runs f() with the default precision raised to internal_digits (mp_t only).
template <class S, class F> auto with_internal_digits(F f) {
  if constexpr (scalar_traits<S>::is_mp) {
    MpDigitsScope hi(internal_digits<S>());
    return f();
  } else {
    return f();
  }
}
// In-place Cholesky of a symmetric positive definite n x n matrix (lower factor); false when a pivot is not positive.
template <class S> bool cholesky(Matrix<S>& A) {
  const std::size_t n = A.rows;
  for (std::size_t j = 0; j < n; ++j) {
    S s = A(j, j);
    for (std::size_t k = 0; k < j; ++k) s -= A(j, k) * A(j, k);
    if (!(s > 0)) return false;
    A(j, j) = sqrt_(s);
    for (std::size_t i = j + 1; i < n; ++i) {
      S u = A(i, j);
      for (std::size_t k = 0; k < j; ++k) u -= A(i, k) * A(j, k);
      A(i, j) = u / A(j, j);
    }
  }
  return true;
}
// Positive definite beyond rounding: every Cholesky pivot (squared) above 10^10 u max_i G(i, i) (u = the unit roundoff;
// a rank-deficient Gram matrix, e.g. of M > D explicit features, leaves pivots at rounding level, which do not count).
template <class S> bool numerically_pd(const Matrix<S>& G) {
  const std::size_t n = G.rows;
  S dmax(0);
  for (std::size_t i = 0; i < n; ++i) dmax = max_(dmax, G(i, i));
  const S floor_ = ipm_tolerance<S>() * dmax;
  Matrix<S> A = G;
  for (std::size_t j = 0; j < n; ++j) {
    S s = A(j, j);
    for (std::size_t k = 0; k < j; ++k) s -= A(j, k) * A(j, k);
    if (!(s > floor_)) return false;
    A(j, j) = sqrt_(s);
    for (std::size_t i = j + 1; i < n; ++i) {
      S u = A(i, j);
      for (std::size_t k = 0; k < j; ++k) u -= A(i, k) * A(j, k);
      A(i, j) = u / A(j, j);
    }
  }
  return true;
}
// Solve L L^T x = b with the lower factor from cholesky (b overwritten).
template <class S> void chol_solve_(const Matrix<S>& L, Vector<S>& b) {
  const std::size_t n = L.rows;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < i; ++k) b[i] -= L(i, k) * b[k];
    b[i] /= L(i, i);
  }
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t k = i + 1; k < n; ++k) b[i] -= L(k, i) * b[k];
    b[i] /= L(i, i);
  }
}
}  // namespace svr_detail

// =====================================================================================================
// Lemma B.2 / B.3: multi-indices, multinomial expansion, truncated Taylor monomial features
// =====================================================================================================

using MultiIndex = std::vector<unsigned>;

// binomial(n, k), exact in 64 bits (throws on overflow)
inline std::uint64_t binomial(std::uint64_t n, std::uint64_t k) {
  require(k <= n, "hopfield::binomial: k = " + std::to_string(k) + " exceeds n = " + std::to_string(n));
  k = std::min(k, n - k);
  unsigned __int128 r = 1;
  for (std::uint64_t i = 1; i <= k; ++i) {
    r = r * (n - k + i) / i;  // exact: r * (n-k+i) is divisible by i after the previous steps
    require(r <= std::numeric_limits<std::uint64_t>::max(), "hopfield::binomial: overflow");
  }
  return static_cast<std::uint64_t>(r);
}
// D_n = binom(d + n - 1, n) monomials of total degree n in d variables; sum_{n <= N} D_n = binom(d + N, N).
inline std::uint64_t monomial_count(std::size_t d, unsigned n) { return binomial(d + n - 1, n); }
inline std::uint64_t taylor_dim(std::size_t d, unsigned N) { return binomial(d + N, N); }

// All l in N_0^d with l_1 + ... + l_d = n, in graded reverse-lexicographic order (x_1^n first, x_d^n last): l comes
// before l' iff at the last coordinate j where they differ l_j < l'_j.
inline std::vector<MultiIndex> multi_indices(std::size_t d, unsigned n) {
  require(d >= 1, "hopfield::multi_indices: d must be >= 1");
  std::vector<MultiIndex> out;
  MultiIndex cur(d, 0);
  // recursive enumeration of compositions of n into d parts
  auto rec = [&](auto&& self, std::size_t j, unsigned left) -> void {
    if (j + 1 == d) {
      cur[j] = left;
      out.push_back(cur);
      return;
    }
    for (unsigned v = 0; v <= left; ++v) {
      cur[j] = v;
      self(self, j + 1, left - v);
    }
  };
  rec(rec, 0, n);
  std::sort(out.begin(), out.end(), [](const MultiIndex& a, const MultiIndex& b) {
    for (std::size_t j = a.size(); j-- > 0;)
      if (a[j] != b[j]) return a[j] < b[j];
    return false;
  });
  return out;
}

// n! in S (exact for cpp_rational; correctly rounded products otherwise)
template <class S> S factorial(unsigned n) {
  S f(1);
  for (unsigned i = 2; i <= n; ++i) f *= S(i);
  return f;
}
// Lemma B.2, left side: (x^T y)^n / n!
template <class S> S multinomial_lhs(const Vector<S>& x, const Vector<S>& y, unsigned n) {
  require(x.size() == y.size() && !x.empty(), "hopfield::multinomial_lhs: x and y must be non-empty and of equal length");
  const S t = svr_detail::dot_(x.data(), y.data(), x.size());
  S p(1);
  for (unsigned i = 0; i < n; ++i) p *= t;
  return p / factorial<S>(n);
}
// Lemma B.2, right side in the square-root-free form: sum_{|l| = n} prod_j (x_j y_j)^{l_j} / prod_j l_j!
// (the product of the two square roots of the printed form is 1 / prod_j l_j!). Exact with cpp_rational.
template <class S> S multinomial_rhs(const Vector<S>& x, const Vector<S>& y, unsigned n) {
  require(x.size() == y.size() && !x.empty(), "hopfield::multinomial_rhs: x and y must be non-empty and of equal length");
  S sum(0);
  for (const MultiIndex& l : multi_indices(x.size(), n)) {
    S num(1), den(1);
    for (std::size_t j = 0; j < l.size(); ++j) {
      const S xy = x[j] * y[j];
      for (unsigned e = 0; e < l[j]; ++e) num *= xy;
      den *= factorial<S>(l[j]);
    }
    sum += num / den;
  }
  return sum;
}
// The printed monomial feature x^l / sqrt(l_1! ... l_d!) (Lemma B.2's factor; needs a sqrt: mp_t / double).
template <class S> S monomial_feature(const S* x, const MultiIndex& l) {
  S num(1), den(1);
  for (std::size_t j = 0; j < l.size(); ++j) {
    for (unsigned e = 0; e < l[j]; ++e) num *= x[j];
    den *= factorial<S>(l[j]);
  }
  return num / svr_detail::sqrt_(den);
}
// Lemma B.2, right side as printed: sum_{|l| = n} (x^l / sqrt(l!)) (y^l / sqrt(l!)).
template <class S> S multinomial_rhs_printed(const Vector<S>& x, const Vector<S>& y, unsigned n) {
  require(x.size() == y.size() && !x.empty(), "hopfield::multinomial_rhs_printed: x and y must be non-empty and of equal length");
  S sum(0);
  for (const MultiIndex& l : multi_indices(x.size(), n)) sum += monomial_feature(x.data(), l) * monomial_feature(y.data(), l);
  return sum;
}

// tilde Phi_{<= N}(x) of Lemma B.3 with the temperature of (B.22): degrees n = 0, 1, ..., N in turn, within a degree
// the multi-indices of multi_indices(d, n); entry prod_j (sqrt(beta) x_j)^{l_j} / sqrt(prod_j l_j!). Length
// binom(d + N, N). <tilde Phi_{<=N}(x), tilde Phi_{<=N}(y)> = sum_{n <= N} (beta x^T y)^n / n! (Lemma B.2).
template <class S> Vector<S> taylor_features(const S* x, std::size_t d, const S& beta, unsigned N) {
  using svr_detail::sqrt_;
  require(d >= 1, "hopfield::taylor_features: d must be >= 1");
  detail::require_beta(beta, "hopfield::taylor_features");
  const S sb = sqrt_(beta);
  // powers (sqrt(beta) x_j)^p, p = 0..N, and 1 / sqrt(p!)
  std::vector<Vector<S>> pw(d, Vector<S>(N + 1, S(1)));
  for (std::size_t j = 0; j < d; ++j) {
    const S v = sb * x[j];
    for (unsigned p = 1; p <= N; ++p) pw[j][p] = pw[j][p - 1] * v;
  }
  Vector<S> isf(N + 1, S(1));
  for (unsigned p = 1; p <= N; ++p) isf[p] = S(1) / sqrt_(factorial<S>(p));
  Vector<S> out;
  out.reserve(static_cast<std::size_t>(taylor_dim(d, N)));
  for (unsigned n = 0; n <= N; ++n)
    for (const MultiIndex& l : multi_indices(d, n)) {
      S v(1);
      for (std::size_t j = 0; j < d; ++j)
        if (l[j]) v *= pw[j][l[j]] * isf[l[j]];
      out.push_back(v);
    }
  return out;
}
template <class S> Vector<S> taylor_features(const Vector<S>& x, const S& beta, unsigned N) { return taylor_features(x.data(), x.size(), beta, N); }

// exp(beta <x, y>) (the kernel of the infinite map, (B.23))
template <class S> S exp_kernel(const S* x, const S* y, std::size_t d, const S& beta) {
  return svr_detail::exp_(S(beta * svr_detail::dot_(x, y, d)));
}
// sum_{n <= N} (beta <x, y>)^n / n! (the kernel of tilde Phi_{<= N}, closed form)
template <class S> S taylor_kernel(const S* x, const S* y, std::size_t d, const S& beta, unsigned N) {
  const S t = beta * svr_detail::dot_(x, y, d);
  S term(1), sum(1);
  for (unsigned n = 1; n <= N; ++n) {
    term = term * t / S(n);
    sum += term;
  }
  return sum;
}
// Lagrange bound on |exp(t) - sum_{n <= N} t^n / n!|: |t|^{N+1} / (N+1)! e^{|t|}, t = beta <x, y>.
template <class S> S taylor_remainder_bound(const S& t, unsigned N) {
  const S a = svr_detail::abs_(t);
  S p(1);
  for (unsigned i = 0; i <= N; ++i) p *= a;
  return p / factorial<S>(N + 1) * svr_detail::exp_(a);
}

// log h(x), h(x) = sum_mu <tilde Phi(k_mu), tilde Phi(x)> = sum_mu exp(beta <x, k_mu>) ((B.6), infinite map, keys rows
// k_mu = xi_mu + dxi_mu); a max-shifted log-sum-exp.
template <class S> S log_normaliser(const Matrix<S>& Keys, const S* x, const S& beta) {
  require(Keys.rows >= 1 && Keys.cols >= 1, "hopfield::log_normaliser: need at least one key");
  return log_partition(beta, scores(Keys, Vector<S>(x, x + Keys.cols)));
}
// Induced kernel of Phi = tilde Phi / h: K_Phi(x, y) = exp(beta <x, y> - log h(x) - log h(y)) (closed form, exact).
template <class S> S normalised_exp_kernel(const Matrix<S>& Keys, const S* x, const S* y, const S& beta) {
  const std::size_t d = Keys.cols;
  return svr_detail::exp_(S(beta * svr_detail::dot_(x, y, d) - log_normaliser(Keys, x, beta) - log_normaliser(Keys, y, beta)));
}
// Phi_{<= N}(x) = tilde Phi_{<= N}(x) / h(x), h of the infinite map (exact normaliser, truncated features).
template <class S> Vector<S> normalised_taylor_features(const Matrix<S>& Keys, const S* x, const S& beta, unsigned N) {
  Vector<S> f = taylor_features(x, Keys.cols, beta, N);
  const S ih = svr_detail::exp_(S(-log_normaliser(Keys, x, beta)));
  for (S& v : f) v *= ih;
  return f;
}

// =====================================================================================================
// (2.1), (3.3), (3.9): the SVR problems
// =====================================================================================================

// none: no cap (the eps'-SVR (2.1), and the cap-free problem of Lemma B.1's printed KKT system);
// as: eps' 1 + eta_mu <= eps 1 / sqrt(d) (3.3 as printed); sym: the cap also on tilde eta (the text after (3.3)).
enum class CapReading { none, as, sym };
inline const char* cap_reading_name(CapReading r) { return r == CapReading::none ? "cap-free" : r == CapReading::as ? "P-AS" : "P-SYM"; }

// One SVR problem on M training pairs (k_mu, y_mu), given by the Gram matrix of the feature map on the inputs.
template <class S> struct SvrProblem {
  Matrix<S> G;                        // M x M, G(mu, nu) = <Phi(k_mu), Phi(k_nu)> (symmetric positive semidefinite)
  Matrix<S> Y;                        // M x d targets, row mu = y_mu (xi_mu in (3.3))
  S C = S(1);                         // penalty, C >= 0
  S eps_prime = S(0);                 // tube half-width eps' >= 0 ((3.3) requires > 0; Lemma B.1's (B.10) allows 0)
  S cap = S(0);                       // eps / sqrt(d): the bound on eps' + eta (reading as / sym)
  CapReading reading = CapReading::none;
  bool bias = false;                  // variant A of (2.1): f(x) = W Phi(x) + b with a free b
  std::size_t M() const { return G.rows; }
  std::size_t d() const { return Y.cols; }
};

template <class S> void validate(const SvrProblem<S>& p, const char* who) {
  require(p.G.rows >= 1 && p.G.rows == p.G.cols, std::string(who) + ": the Gram matrix must be square with M >= 1");
  require(p.Y.rows == p.G.rows && p.Y.cols >= 1, std::string(who) + ": targets are " + std::to_string(p.Y.rows) + "x" + std::to_string(p.Y.cols) +
                                                     ", the Gram matrix is " + std::to_string(p.G.rows) + "x" + std::to_string(p.G.cols));
  detail::require_finite(p.G, who, "G");
  detail::require_finite(p.Y, who, "Y");
  for (std::size_t i = 0; i < p.G.rows; ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (!(p.G(i, j) == p.G(j, i))) require(false, std::string(who) + ": the Gram matrix is not symmetric at (" + std::to_string(i + 1) + "," + std::to_string(j + 1) + ")");
  require(is_finite(p.C) && p.C >= 0, std::string(who) + ": C must be finite and >= 0");
  require(is_finite(p.eps_prime) && p.eps_prime >= 0, std::string(who) + ": eps' must be finite and >= 0");
  require(p.reading == CapReading::none || (is_finite(p.cap) && p.cap >= 0), std::string(who) + ": the cap eps/sqrt(d) must be finite and >= 0");
}

// The cap eps / sqrt(d) of (3.3).
template <class S> S cap_of(const S& eps, std::size_t d) { return eps / svr_detail::sqrt_(S(static_cast<double>(d))); }

// Gram matrix of explicit feature rows Phi (M x D): G = Phi Phi^T.
template <class S> Matrix<S> gram_from_features(const Matrix<S>& Phi) {
  Matrix<S> G(Phi.rows, Phi.rows);
  for (std::size_t i = 0; i < Phi.rows; ++i)
    for (std::size_t j = 0; j <= i; ++j) G(i, j) = G(j, i) = dot(Phi.row(i), Phi.row(j), Phi.cols);
  return G;
}
// Gram matrix of a kernel k(const S* x, const S* y) on the rows of X (evaluated on the lower triangle, mirrored).
template <class S, class Kern> Matrix<S> gram_from_kernel(const Matrix<S>& X, Kern k) {
  Matrix<S> G(X.rows, X.rows);
  for (std::size_t i = 0; i < X.rows; ++i)
    for (std::size_t j = 0; j <= i; ++j) G(i, j) = G(j, i) = k(X.row(i), X.row(j));
  return G;
}
// (3.9): the problem restricted to the training pairs mu in the mask (the Gram entries are those of the full feature
// map, whose normaliser runs over all M keys).
template <class S> SvrProblem<S> masked_problem(const SvrProblem<S>& p, const Mask& mask) {
  validate(p, "hopfield::masked_problem");
  detail::require_mask(mask, p.M(), "hopfield::masked_problem");
  require(!mask.empty(), "hopfield::masked_problem: empty mask (k = 0 leaves no training pair)");
  SvrProblem<S> q = p;
  q.G = Matrix<S>(mask.size(), mask.size());
  q.Y = Matrix<S>(mask.size(), p.d());
  for (std::size_t a = 0; a < mask.size(); ++a) {
    for (std::size_t c = 0; c < mask.size(); ++c) q.G(a, c) = p.G(mask[a], mask[c]);
    for (std::size_t i = 0; i < p.d(); ++i) q.Y(a, i) = p.Y(mask[a], i);
  }
  return q;
}

// The kernelised problem of a kernel k(const S* x, const S* y) on the training pairs (row mu of Keys, row mu of Y), mu in
// `mask` (all rows when null): G(a, c) = k(k_mask[a], k_mask[c]), Y the mask's rows in mask order ((3.3); (3.9) with a
// mask, the kernel's own normaliser, e.g. h over all M keys, being part of k).
template <class S, class Kern>
SvrProblem<S> kernel_problem(const Matrix<S>& Keys, const Matrix<S>& Y, Kern k, const Mask* mask, const S& C, const S& eps_prime, const S& cap,
                             CapReading reading, bool bias = false) {
  require(Keys.rows == Y.rows && Keys.rows >= 1, "hopfield::kernel_problem: keys and targets need the same number M >= 1 of rows");
  Mask all;
  if (!mask) {
    all.resize(Keys.rows);
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    mask = &all;
  }
  detail::require_mask(*mask, Keys.rows, "hopfield::kernel_problem");
  require(!mask->empty(), "hopfield::kernel_problem: empty mask");
  SvrProblem<S> p;
  const std::size_t n = mask->size();
  p.G = Matrix<S>(n, n);
  p.Y = Matrix<S>(n, Y.cols);
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t c = 0; c <= a; ++c) p.G(a, c) = p.G(c, a) = k(Keys.row((*mask)[a]), Keys.row((*mask)[c]));
    for (std::size_t i = 0; i < Y.cols; ++i) p.Y(a, i) = Y((*mask)[a], i);
  }
  p.C = C;
  p.eps_prime = eps_prime;
  p.cap = cap;
  p.reading = reading;
  p.bias = bias;
  return p;
}
// ---- feasibility (spec A003-SVR-PROBLEM: checked before solving) --------------------------------------------------
enum class Feasibility { feasible, infeasible, unknown };
inline const char* feasibility_name(Feasibility f) { return f == Feasibility::feasible ? "feasible" : f == Feasibility::infeasible ? "infeasible" : "unknown"; }
struct FeasibilityReport {
  Feasibility status = Feasibility::unknown;
  std::string reason;
};
// Exact criteria: cap-free problems are feasible (slacks absorb every deviation); eps' > cap is infeasible (eta >= 0);
// otherwise feasible when G is positive definite beyond rounding (numerically_pd: every f = G beta is reachable), for P-AS when a column
// of G is entrywise positive (f = s G e_j, s large, meets f >= y - cap) or a bias is free, and for a constant kernel
// (G = kappa 1 1^T, kappa > 0: f constant) under P-SYM iff max_mu y_mu[i] - min_mu y_mu[i] <= 2 cap in every coordinate.
// Anything else: unknown (not solved).
template <class S> FeasibilityReport svr_feasibility(const SvrProblem<S>& p) {
  validate(p, "hopfield::svr_feasibility");
  FeasibilityReport r;
  if (p.reading == CapReading::none) return {Feasibility::feasible, "cap-free: the slacks absorb every deviation"};
  if (p.eps_prime > p.cap) return {Feasibility::infeasible, "eps' > eps/sqrt(d): eps' + eta <= eps/sqrt(d) has no solution with eta >= 0"};
  if (svr_detail::numerically_pd(p.G)) return {Feasibility::feasible, "G positive definite: the tube is met exactly (interpolation)"};
  if (p.reading == CapReading::as) {
    if (p.bias) return {Feasibility::feasible, "P-AS with a free bias: b large meets f >= y - cap"};
    for (std::size_t j = 0; j < p.M(); ++j) {
      bool pos = true;
      for (std::size_t i = 0; i < p.M(); ++i) pos = pos && p.G(i, j) > 0;
      if (pos) return {Feasibility::feasible, "P-AS: column " + std::to_string(j + 1) + " of G is positive, f = s G e_j meets f >= y - cap"};
    }
    return {Feasibility::unknown, "P-AS with a singular G without a positive column"};
  }
  bool constant = p.G(0, 0) > 0;
  for (const S& v : p.G.a) constant = constant && v == p.G(0, 0);
  if (constant) {
    for (std::size_t i = 0; i < p.d(); ++i) {
      S lo = p.Y(0, i), hi = p.Y(0, i);
      for (std::size_t mu = 1; mu < p.M(); ++mu) {
        lo = svr_detail::min_(lo, p.Y(mu, i));
        hi = svr_detail::max_(hi, p.Y(mu, i));
      }
      if (hi - lo > 2 * p.cap)
        return {Feasibility::infeasible, "constant kernel under P-SYM: the spread of coordinate " + std::to_string(i + 1) + " exceeds 2 eps/sqrt(d)"};
    }
    return {Feasibility::feasible, "constant kernel under P-SYM: every coordinate's spread is <= 2 eps/sqrt(d)"};
  }
  return {Feasibility::unknown, "P-SYM with a singular non-constant G"};
}

// ---- solutions ----------------------------------------------------------------------------------------------------
template <class S> struct SvrSolution {
  bool solved = false;           // a solution is present (converged or not)
  bool converged = false;        // the interior-point stopping rule was met in every coordinate
  std::string status;
  int iterations = 0;            // the most over the coordinates
  // M x d: the dual multipliers and the primal slacks; beta = alpha - tilde alpha (row mu of (3.4))
  Matrix<S> beta, alpha, alpha_t, gamma, gamma_t, lambda, lambda_t, eta, eta_t;
  Matrix<S> f;                   // M x d: model values at the training inputs, (G beta)_mu + b
  Vector<S> b;                   // d: the bias (0 in variant B and in (3.3))
  S primal_objective = S(0), dual_objective = S(0);
};

namespace svr_detail {
// Variable layout of one dual block (one training pair mu, one coordinate): slots alpha, tilde alpha, gamma,
// tilde gamma (absent: -1) and the inequality rows a^T v <= h (coefficients +-1).
enum RowKind { kU = 0, kUT, kEta, kEtaT, kV, kVT };
struct BlockLayout {
  int ia = -1, it = -1, ig = -1, igt = -1, n = 0;
  bool hard = false, hard_t = false;  // cap == eps': eta (tilde eta) fixed to 0, its tube side is hard
  struct Row {
    RowKind kind;
    std::array<int, 4> coef{};  // over the block's variables
    bool rhs_C = false;         // rhs C (else 0)
  };
  std::vector<Row> rows;
  std::array<int, 4> p{};  // beta = p^T v
};
template <class S> BlockLayout block_layout(const SvrProblem<S>& pr) {
  BlockLayout L;
  const bool capA = pr.reading != CapReading::none, capT = pr.reading == CapReading::sym;
  L.hard = capA && pr.cap == pr.eps_prime;
  L.hard_t = capT && pr.cap == pr.eps_prime;
  const bool hasA = !(pr.C == 0 && !capA), hasT = !(pr.C == 0 && !capT);
  if (hasA) L.ia = L.n++;
  if (hasT) L.it = L.n++;
  if (hasA && capA && !L.hard) L.ig = L.n++;
  if (hasT && capT && !L.hard_t) L.igt = L.n++;
  using Row = BlockLayout::Row;
  if (L.ia >= 0) {
    Row r{kU, {}, false};
    r.coef[L.ia] = -1;
    L.rows.push_back(r);
    L.p[L.ia] = 1;
    if (!L.hard) {
      Row e{kEta, {}, true};
      e.coef[L.ia] = 1;
      if (L.ig >= 0) e.coef[L.ig] = -1;
      L.rows.push_back(e);
    }
    if (L.ig >= 0) {
      Row v{kV, {}, false};
      v.coef[L.ig] = -1;
      L.rows.push_back(v);
    }
  }
  if (L.it >= 0) {
    Row r{kUT, {}, false};
    r.coef[L.it] = -1;
    L.rows.push_back(r);
    L.p[L.it] = -1;
    if (!L.hard_t) {
      Row e{kEtaT, {}, true};
      e.coef[L.it] = 1;
      if (L.igt >= 0) e.coef[L.igt] = -1;
      L.rows.push_back(e);
    }
    if (L.igt >= 0) {
      Row v{kVT, {}, false};
      v.coef[L.igt] = -1;
      L.rows.push_back(v);
    }
  }
  return L;
}

// Result of one coordinate's dual interior-point solve.
template <class S> struct CoordResult {
  Vector<S> alpha, alpha_t, gamma, gamma_t, eta, eta_t, beta;
  S b = S(0);
  bool converged = false;
  int iterations = 0;
  std::vector<bool> eta_from_mult, eta_t_from_mult;
};

// Mehrotra predictor-corrector on the dual of one coordinate (targets y).
template <class S> CoordResult<S> solve_coordinate(const SvrProblem<S>& pr, const BlockLayout& L, const Vector<S>& y, int max_iter, const S& tol) {
  const std::size_t M = pr.M();
  const int n = L.n;
  const std::size_t m = L.rows.size();
  CoordResult<S> out;
  out.alpha.assign(M, S(0));
  out.alpha_t.assign(M, S(0));
  out.gamma.assign(M, S(0));
  out.gamma_t.assign(M, S(0));
  out.eta.assign(M, S(0));
  out.eta_t.assign(M, S(0));
  out.beta.assign(M, S(0));
  out.eta_from_mult.assign(M, false);
  out.eta_t_from_mult.assign(M, false);
  if (n == 0) {  // C = 0 and no cap: every multiplier is 0
    out.converged = true;
    return out;
  }
  const S capw = pr.cap - pr.eps_prime;
  // linear objective per block variable
  std::vector<std::array<S, 4>> q(M);
  for (std::size_t mu = 0; mu < M; ++mu) {
    if (L.ia >= 0) q[mu][L.ia] = pr.eps_prime - y[mu];
    if (L.it >= 0) q[mu][L.it] = pr.eps_prime + y[mu];
    if (L.ig >= 0) q[mu][L.ig] = capw;
    if (L.igt >= 0) q[mu][L.igt] = capw;
  }
  auto hrow = [&](const BlockLayout::Row& r) { return r.rhs_C ? pr.C : S(0); };
  // state
  std::vector<std::array<S, 4>> x(M);
  std::vector<std::vector<S>> s(M, std::vector<S>(m, S(1))), z(M, std::vector<S>(m, S(1)));
  S yeq(0);
  for (auto& v : x) v.fill(S(0));
  S qscale(1), hscale(1);
  for (std::size_t mu = 0; mu < M; ++mu)
    for (int k = 0; k < n; ++k) qscale = max_(qscale, abs_(q[mu][k]));
  hscale = max_(hscale, pr.C);
  const S mtot = S(static_cast<double>(M * m));
  // work arrays
  std::vector<std::array<S, 4>> rd(M), dx(M), dxa(M), w(M), Bp(M), rhsv(M);
  std::vector<std::array<S, 2>> DU(M), DE(M), DV(M);
  std::vector<std::vector<S>> rp(M, std::vector<S>(m)), ds(M, std::vector<S>(m)), dz(M, std::vector<S>(m)), dsa(M, std::vector<S>(m)),
      dza(M, std::vector<S>(m)), rc(M, std::vector<S>(m));
  std::vector<Matrix<S>> Binv(M);
  Vector<S> Sm(M), beta(M), Gb(M);
  Matrix<S> Kc(M, M);
  Vector<S> k1(M);
  S one_k1(0), dyv(0), dya(0);
  auto compute_beta = [&]() {
    for (std::size_t mu = 0; mu < M; ++mu) {
      S bsum(0);
      for (int k = 0; k < n; ++k)
        if (L.p[k]) bsum += L.p[k] > 0 ? x[mu][k] : S(-x[mu][k]);
      beta[mu] = bsum;
    }
    for (std::size_t mu = 0; mu < M; ++mu) Gb[mu] = dot(pr.G.row(mu), beta.data(), M);
  };
  // Newton solve for a given complementarity residual rc; writes dX, dS, dZ, dY.
  auto newton = [&](std::vector<std::array<S, 4>>& dX, std::vector<std::vector<S>>& dS, std::vector<std::vector<S>>& dZ, S& dY) {
    Vector<S> g(M);
    for (std::size_t mu = 0; mu < M; ++mu) {
      std::array<S, 4> rhs;
      for (int k = 0; k < n; ++k) rhs[k] = -rd[mu][k];
      for (std::size_t r = 0; r < m; ++r) {
        const S t = (z[mu][r] * rp[mu][r] - rc[mu][r]) / s[mu][r];
        for (int k = 0; k < n; ++k)
          if (L.rows[r].coef[k]) rhs[k] -= L.rows[r].coef[k] > 0 ? t : S(-t);
      }
      rhsv[mu] = rhs;
      for (int k = 0; k < n; ++k) {
        S acc(0);
        for (int l = 0; l < n; ++l) acc += Binv[mu](k, l) * rhs[l];
        w[mu][k] = acc;
      }
      S pw(0);
      for (int k = 0; k < n; ++k)
        if (L.p[k]) pw += L.p[k] > 0 ? w[mu][k] : S(-w[mu][k]);
      g[mu] = pw / Sm[mu];
    }
    Vector<S> t = g;
    chol_solve_(Kc, t);
    S dy(0);
    if (pr.bias) {
      S st(0);
      for (const S& v : t) st += v;
      dy = (st + [&] {
        S re(0);
        for (const S& v : beta) re += v;
        return re;
      }()) / one_k1;
      for (std::size_t mu = 0; mu < M; ++mu) t[mu] -= k1[mu] * dy;
    }
    const Vector<S> Gt = matvec(pr.G, t.data());
    // back substitution side by side, each row's A dx in a form whose rounding error is at most ~ u / d_r for that
    // row (an active row, small slack and large d_r, gets its step ds_r accurately; forming A dx from the separately
    // computed dx would cancel there)
    for (std::size_t mu = 0; mu < M; ++mu) {
      const S c = Gt[mu] + dy;
      std::array<S, 6> comb;  // A dx per row kind
      for (int side = 0; side < 2; ++side) {
        const int ia = side == 0 ? L.ia : L.it, ig = side == 0 ? L.ig : L.igt;
        if (ia < 0) continue;
        const S e = side == 0 ? S(rhsv[mu][ia] - c) : S(rhsv[mu][ia] + c);
        const S du = DU[mu][side], de = DE[mu][side], dv = DV[mu][side];
        const int ku = side == 0 ? kU : kUT, ke = side == 0 ? kEta : kEtaT, kv = side == 0 ? kV : kVT;
        if (ig >= 0) {
          const S g = rhsv[mu][ig];
          const S det = du * de + du * dv + de * dv;
          dX[mu][ia] = ((de + dv) * e + de * g) / det;
          dX[mu][ig] = (de * e + (du + de) * g) / det;
          comb[ku] = -dX[mu][ia];
          comb[ke] = (dv * e - du * g) / det;
          comb[kv] = -dX[mu][ig];
        } else {
          dX[mu][ia] = e / (du + de);
          comb[ku] = -dX[mu][ia];
          comb[ke] = dX[mu][ia];
        }
      }
      for (std::size_t r = 0; r < m; ++r) {
        dS[mu][r] = -rp[mu][r] - comb[L.rows[r].kind];
        dZ[mu][r] = (-rc[mu][r] - z[mu][r] * dS[mu][r]) / s[mu][r];
      }
    }
    dY = dy;
  };
  auto max_step = [&](const std::vector<std::vector<S>>& dS, const std::vector<std::vector<S>>& dZ) {
    S a(1);
    for (std::size_t mu = 0; mu < M; ++mu)
      for (std::size_t r = 0; r < m; ++r) {
        if (dS[mu][r] < 0) a = min_(a, S(-s[mu][r] / dS[mu][r]));
        if (dZ[mu][r] < 0) a = min_(a, S(-z[mu][r] / dZ[mu][r]));
      }
    return a;
  };
  int it = 0;
  for (; it < max_iter; ++it) {
    compute_beta();
    // residuals
    S rdmax(0), rpmax(0), re(0), gap(0);
    for (std::size_t mu = 0; mu < M; ++mu) {
      for (int k = 0; k < n; ++k) {
        S v = q[mu][k];
        if (L.p[k]) v += L.p[k] > 0 ? S(Gb[mu] + yeq) : S(-(Gb[mu] + yeq));
        rd[mu][k] = v;
      }
      for (std::size_t r = 0; r < m; ++r) {
        S ax(0);
        for (int k = 0; k < n; ++k) {
          const int c = L.rows[r].coef[k];
          if (!c) continue;
          ax += c > 0 ? x[mu][k] : S(-x[mu][k]);
          rd[mu][k] += c > 0 ? z[mu][r] : S(-z[mu][r]);
        }
        rp[mu][r] = ax + s[mu][r] - hrow(L.rows[r]);
        rpmax = max_(rpmax, abs_(rp[mu][r]));
        gap += s[mu][r] * z[mu][r];
      }
      for (int k = 0; k < n; ++k) rdmax = max_(rdmax, abs_(rd[mu][k]));
    }
    if (pr.bias)
      for (const S& v : beta) re += v;
    const S mu_c = gap / mtot;
    if (mu_c <= tol && rpmax <= tol * hscale && rdmax <= tol * qscale && abs_(re) <= tol * hscale) {
      out.converged = true;
      break;
    }
    // blocks: B = A_b^T D A_b is block diagonal over the two sides (alpha with gamma, tilde alpha with tilde gamma);
    // its inverse is written out with the determinant as a sum of positive products (no cancellation when the
    // diagonal scalings d = z / s differ by many orders of magnitude near the solution)
    for (std::size_t mu = 0; mu < M; ++mu) {
      Binv[mu] = Matrix<S>(n, n);
      S du[2] = {S(0), S(0)}, de[2] = {S(0), S(0)}, dv[2] = {S(0), S(0)};
      for (std::size_t r = 0; r < m; ++r) {
        const S dr = z[mu][r] / s[mu][r];
        switch (L.rows[r].kind) {
          case kU: du[0] = dr; break;
          case kEta: de[0] = dr; break;
          case kV: dv[0] = dr; break;
          case kUT: du[1] = dr; break;
          case kEtaT: de[1] = dr; break;
          case kVT: dv[1] = dr; break;
        }
      }
      for (int side = 0; side < 2; ++side) {
        DU[mu][side] = du[side];
        DE[mu][side] = de[side];
        DV[mu][side] = dv[side];
        const int ia = side == 0 ? L.ia : L.it, ig = side == 0 ? L.ig : L.igt;
        if (ia < 0) continue;
        if (ig < 0) {
          Binv[mu](ia, ia) = S(1) / (du[side] + de[side]);
        } else {
          const S det = du[side] * de[side] + du[side] * dv[side] + de[side] * dv[side];
          Binv[mu](ia, ia) = (de[side] + dv[side]) / det;
          Binv[mu](ia, ig) = Binv[mu](ig, ia) = de[side] / det;
          Binv[mu](ig, ig) = (du[side] + de[side]) / det;
        }
      }
      S sp(0);
      for (int k = 0; k < n; ++k) {
        S acc(0);
        for (int l = 0; l < n; ++l)
          if (L.p[l]) acc += L.p[l] > 0 ? Binv[mu](k, l) : S(-Binv[mu](k, l));
        Bp[mu][k] = acc;
        if (L.p[k]) sp += L.p[k] > 0 ? acc : S(-acc);
      }
      Sm[mu] = sp;
    }
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < M; ++j) Kc(i, j) = pr.G(i, j) + (i == j ? S(S(1) / Sm[i]) : S(0));
    if (!cholesky(Kc)) break;  // numerically singular: stop (converged stays false)
    if (pr.bias) {
      for (std::size_t mu = 0; mu < M; ++mu) k1[mu] = S(1);
      chol_solve_(Kc, k1);
      one_k1 = S(0);
      for (const S& v : k1) one_k1 += v;
    }
    // predictor
    for (std::size_t mu = 0; mu < M; ++mu)
      for (std::size_t r = 0; r < m; ++r) rc[mu][r] = s[mu][r] * z[mu][r];
    newton(dxa, dsa, dza, dya);
    const S aa = max_step(dsa, dza);
    S gap_aff(0);
    for (std::size_t mu = 0; mu < M; ++mu)
      for (std::size_t r = 0; r < m; ++r) gap_aff += (s[mu][r] + aa * dsa[mu][r]) * (z[mu][r] + aa * dza[mu][r]);
    const S ratio = (gap_aff / mtot) / mu_c;
    const S sigma = ratio * ratio * ratio;
    // corrector
    for (std::size_t mu = 0; mu < M; ++mu)
      for (std::size_t r = 0; r < m; ++r) rc[mu][r] = s[mu][r] * z[mu][r] + dsa[mu][r] * dza[mu][r] - sigma * mu_c;
    newton(dx, ds, dz, dyv);
    const S amax = max_step(ds, dz);
    const S frac = max_(S(0.99), S(S(1) - mu_c));
    const S a = min_(S(1), S(frac * amax));
    for (std::size_t mu = 0; mu < M; ++mu) {
      for (int k = 0; k < n; ++k) x[mu][k] += a * dx[mu][k];
      for (std::size_t r = 0; r < m; ++r) {
        s[mu][r] += a * ds[mu][r];
        z[mu][r] += a * dz[mu][r];
      }
    }
    yeq += a * dyv;
  }
  out.iterations = it;
  compute_beta();
  for (std::size_t mu = 0; mu < M; ++mu) {
    if (L.ia >= 0) out.alpha[mu] = x[mu][L.ia];
    if (L.it >= 0) out.alpha_t[mu] = x[mu][L.it];
    if (L.ig >= 0) out.gamma[mu] = x[mu][L.ig];
    if (L.igt >= 0) out.gamma_t[mu] = x[mu][L.igt];
    out.beta[mu] = beta[mu];
    for (std::size_t r = 0; r < m; ++r) {
      if (L.rows[r].kind == kEta) {
        out.eta[mu] = z[mu][r];
        out.eta_from_mult[mu] = true;
      }
      if (L.rows[r].kind == kEtaT) {
        out.eta_t[mu] = z[mu][r];
        out.eta_t_from_mult[mu] = true;
      }
    }
  }
  out.b = pr.bias ? yeq : S(0);
  return out;
}
}  // namespace svr_detail

// Solve an SVR problem (any reading, with or without bias). The problem must be feasible (svr_feasibility); solving an
// infeasible or undecided one throws. max_iter bounds the interior-point iterations per coordinate.
template <class S> SvrSolution<S> svr_solve(const SvrProblem<S>& p, int max_iter = 300) {
  using namespace svr_detail;
  validate(p, "hopfield::svr_solve");
  const FeasibilityReport fr = svr_feasibility(p);
  require(fr.status == Feasibility::feasible, std::string("hopfield::svr_solve: problem is ") + feasibility_name(fr.status) + " (" + fr.reason + ")");
  const std::size_t M = p.M(), d = p.d();
  const BlockLayout L = block_layout(p);
  SvrSolution<S> sol;
  sol.beta = sol.alpha = sol.alpha_t = sol.gamma = sol.gamma_t = sol.lambda = sol.lambda_t = sol.eta = sol.eta_t = sol.f = Matrix<S>(M, d);
  sol.b.assign(d, S(0));
  sol.converged = true;
  const bool capA = p.reading != CapReading::none, capT = p.reading == CapReading::sym;
  const S tol = ipm_tolerance<S>();
  for (std::size_t i = 0; i < d; ++i) {
    // the dual of coordinate i at internal_digits, the results brought back to the working digits
    const CoordResult<S> c = [&] {
      const CoordResult<S> hi = with_internal_digits<S>([&] {
        SvrProblem<S> ph = p;
        ph.G = relift(p.G);
        ph.Y = relift(p.Y);
        ph.C = relift(p.C);
        ph.eps_prime = relift(p.eps_prime);
        ph.cap = relift(p.cap);
        Vector<S> y(M);
        for (std::size_t mu = 0; mu < M; ++mu) y[mu] = relift(p.Y(mu, i));
        return solve_coordinate(ph, L, y, max_iter, relift(tol));
      });
      CoordResult<S> lo = hi;
      lo.alpha = relift(hi.alpha);
      lo.alpha_t = relift(hi.alpha_t);
      lo.gamma = relift(hi.gamma);
      lo.gamma_t = relift(hi.gamma_t);
      lo.eta = relift(hi.eta);
      lo.eta_t = relift(hi.eta_t);
      lo.beta = relift(hi.beta);
      lo.b = relift(hi.b);
      return lo;
    }();
    sol.converged = sol.converged && c.converged;
    sol.iterations = std::max(sol.iterations, c.iterations);
    sol.b[i] = c.b;
    const Vector<S> Gb = matvec(p.G, c.beta.data());
    for (std::size_t mu = 0; mu < M; ++mu) {
      sol.beta(mu, i) = c.beta[mu];
      sol.alpha(mu, i) = c.alpha[mu];
      sol.alpha_t(mu, i) = c.alpha_t[mu];
      sol.f(mu, i) = Gb[mu] + c.b;
      // slacks: the multiplier of alpha - gamma <= C; eta = 0 on a hard side; the minimal feasible value where the
      // variable is absent (C = 0, no cap: any eta >= the deviation is optimal)
      const S dev = p.Y(mu, i) - sol.f(mu, i) - p.eps_prime, devt = sol.f(mu, i) - p.Y(mu, i) - p.eps_prime;
      sol.eta(mu, i) = c.eta_from_mult[mu] ? c.eta[mu] : (L.hard ? S(0) : max_(S(0), dev));
      sol.eta_t(mu, i) = c.eta_t_from_mult[mu] ? c.eta_t[mu] : (L.hard_t ? S(0) : max_(S(0), devt));
      // cap multipliers (minimal choice on a hard side, where they are not unique)
      sol.gamma(mu, i) = L.ig >= 0 ? c.gamma[mu] : (capA && L.hard ? max_(S(0), S(c.alpha[mu] - p.C)) : S(0));
      sol.gamma_t(mu, i) = L.igt >= 0 ? c.gamma_t[mu] : (capT && L.hard_t ? max_(S(0), S(c.alpha_t[mu] - p.C)) : S(0));
      sol.lambda(mu, i) = p.C - sol.alpha(mu, i) + sol.gamma(mu, i);
      sol.lambda_t(mu, i) = p.C - sol.alpha_t(mu, i) + sol.gamma_t(mu, i);
    }
  }
  // objectives
  S prim(0), dual(0);
  const S capw = p.cap - p.eps_prime;
  for (std::size_t i = 0; i < d; ++i) {
    Vector<S> bi(M);
    for (std::size_t mu = 0; mu < M; ++mu) bi[mu] = sol.beta(mu, i);
    const Vector<S> Gb = matvec(p.G, bi.data());
    const S quad = dot(bi.data(), Gb.data(), M) / 2;
    prim += quad;
    dual -= quad;
    for (std::size_t mu = 0; mu < M; ++mu) {
      prim += p.C * (sol.eta(mu, i) + sol.eta_t(mu, i));
      dual += p.Y(mu, i) * bi[mu] - p.eps_prime * (sol.alpha(mu, i) + sol.alpha_t(mu, i));
      if (capA) dual -= capw * sol.gamma(mu, i);
      if (capT) dual -= capw * sol.gamma_t(mu, i);
    }
  }
  sol.primal_objective = prim;
  sol.dual_objective = dual;
  sol.solved = true;
  sol.status = sol.converged ? "converged" : "not converged";
  return sol;
}

// ---- KKT residuals of the full system (cap multipliers included) ------------------------------------------------------
template <class S> struct SvrKkt {
  S primal = S(0);           // max violation of the tube, slack-sign and cap constraints
  S dual = S(0);             // max negative part of alpha, tilde alpha, gamma, tilde gamma, lambda, tilde lambda
  S stationarity = S(0);     // |C - lambda - alpha + gamma|, |beta - (alpha - tilde alpha)|, |1^T beta| (bias)
  S complementarity = S(0);  // max |multiplier x constraint slack|
  S gap = S(0);              // |primal - dual objective| / max(1, |primal objective|)
  S worst() const { return svr_detail::max_(svr_detail::max_(svr_detail::max_(primal, dual), svr_detail::max_(stationarity, complementarity)), gap); }
};
template <class S> SvrKkt<S> svr_kkt(const SvrProblem<S>& p, const SvrSolution<S>& s) {
  using namespace svr_detail;
  validate(p, "hopfield::svr_kkt");
  require(s.solved && s.beta.rows == p.M() && s.beta.cols == p.d(), "hopfield::svr_kkt: the solution does not match the problem");
  const bool capA = p.reading != CapReading::none, capT = p.reading == CapReading::sym;
  SvrKkt<S> k;
  for (std::size_t i = 0; i < p.d(); ++i) {
    Vector<S> bi(p.M());
    S sum(0);
    for (std::size_t mu = 0; mu < p.M(); ++mu) {
      bi[mu] = s.beta(mu, i);
      sum += bi[mu];
    }
    if (p.bias) k.stationarity = max_(k.stationarity, abs_(sum));
    const Vector<S> Gb = matvec(p.G, bi.data());
    for (std::size_t mu = 0; mu < p.M(); ++mu) {
      const S f = Gb[mu] + s.b[i], y = p.Y(mu, i);
      const S u = p.eps_prime + s.eta(mu, i) - y + f, ut = p.eps_prime + s.eta_t(mu, i) - f + y;
      const S a = s.alpha(mu, i), at = s.alpha_t(mu, i), g = s.gamma(mu, i), gt = s.gamma_t(mu, i);
      const S lam = s.lambda(mu, i), lamt = s.lambda_t(mu, i);
      const S e = s.eta(mu, i), et = s.eta_t(mu, i);
      k.primal = max_(k.primal, max_(S(-u), S(-ut)));
      k.primal = max_(k.primal, max_(S(-e), S(-et)));
      if (capA) k.primal = max_(k.primal, S(p.eps_prime + e - p.cap));
      if (capT) k.primal = max_(k.primal, S(p.eps_prime + et - p.cap));
      for (const S* v : {&a, &at, &g, &gt, &lam, &lamt}) k.dual = max_(k.dual, S(-*v));
      k.stationarity = max_(k.stationarity, abs_(S(p.C - lam - a + g)));
      k.stationarity = max_(k.stationarity, abs_(S(p.C - lamt - at + gt)));
      k.stationarity = max_(k.stationarity, abs_(S(s.beta(mu, i) - (a - at))));
      k.complementarity = max_(k.complementarity, max_(abs_(S(a * u)), abs_(S(at * ut))));
      k.complementarity = max_(k.complementarity, max_(abs_(S(lam * e)), abs_(S(lamt * et))));
      if (capA) k.complementarity = max_(k.complementarity, abs_(S(g * (p.cap - p.eps_prime - e))));
      if (capT) k.complementarity = max_(k.complementarity, abs_(S(gt * (p.cap - p.eps_prime - et))));
    }
  }
  k.gap = abs_(S(s.primal_objective - s.dual_objective)) / max_(S(1), abs_(s.primal_objective));
  return k;
}

// The point of the KKT system determined by a candidate coefficient matrix beta (M x d), e.g. the c_mu = h(k_mu) xi_mu of
// the Lemma 3.1 proof: W = sum_mu beta_mu Phi(k_mu)^T, b = 0, the smallest slacks eta = (y - f - eps')_+, tilde eta =
// (f - y - eps')_+, alpha = beta_+, tilde alpha = beta_-, gamma = (alpha - C)_+ (capped sides; 0 otherwise), lambda =
// C - alpha + gamma. svr_kkt of it measures how far the candidate is from satisfying the optimality conditions (a
// violated cap appears as primal infeasibility, |beta| > C on an uncapped side as dual infeasibility).
template <class S> SvrSolution<S> svr_candidate(const SvrProblem<S>& p, const Matrix<S>& beta) {
  using namespace svr_detail;
  validate(p, "hopfield::svr_candidate");
  require(beta.rows == p.M() && beta.cols == p.d(), "hopfield::svr_candidate: beta must be M x d");
  const bool capA = p.reading != CapReading::none, capT = p.reading == CapReading::sym;
  SvrSolution<S> s;
  const std::size_t M = p.M(), d = p.d();
  s.beta = beta;
  s.alpha = s.alpha_t = s.gamma = s.gamma_t = s.lambda = s.lambda_t = s.eta = s.eta_t = s.f = Matrix<S>(M, d);
  s.b.assign(d, S(0));
  S prim(0), dual(0);
  for (std::size_t i = 0; i < d; ++i) {
    Vector<S> bi(M);
    for (std::size_t mu = 0; mu < M; ++mu) bi[mu] = beta(mu, i);
    const Vector<S> Gb = matvec(p.G, bi.data());
    const S quad = dot(bi.data(), Gb.data(), M) / 2;
    prim += quad;
    dual -= quad;
    for (std::size_t mu = 0; mu < M; ++mu) {
      s.f(mu, i) = Gb[mu];
      s.eta(mu, i) = max_(S(0), S(p.Y(mu, i) - Gb[mu] - p.eps_prime));
      s.eta_t(mu, i) = max_(S(0), S(Gb[mu] - p.Y(mu, i) - p.eps_prime));
      s.alpha(mu, i) = max_(S(0), bi[mu]);
      s.alpha_t(mu, i) = max_(S(0), S(-bi[mu]));
      s.gamma(mu, i) = capA ? max_(S(0), S(s.alpha(mu, i) - p.C)) : S(0);
      s.gamma_t(mu, i) = capT ? max_(S(0), S(s.alpha_t(mu, i) - p.C)) : S(0);
      s.lambda(mu, i) = p.C - s.alpha(mu, i) + s.gamma(mu, i);
      s.lambda_t(mu, i) = p.C - s.alpha_t(mu, i) + s.gamma_t(mu, i);
      prim += p.C * (s.eta(mu, i) + s.eta_t(mu, i));
      dual += p.Y(mu, i) * bi[mu] - p.eps_prime * (s.alpha(mu, i) + s.alpha_t(mu, i));
      if (capA) dual -= (p.cap - p.eps_prime) * s.gamma(mu, i);
      if (capT) dual -= (p.cap - p.eps_prime) * s.gamma_t(mu, i);
    }
  }
  s.primal_objective = prim;
  s.dual_objective = dual;
  s.solved = true;
  s.converged = false;
  s.status = "candidate";
  return s;
}

// ---- optimal-set diameters (uniqueness claims) -------------------------------------------------------------------------
// The optimal set of a convex problem with objective 1/2 ||W||_F^2 + C sum(eta + tilde eta) has one W (two optima with
// different W would make their midpoint strictly better), so the model values f0 = W Phi(k_mu) are fixed and the
// optimal set is the LP face in (b, eta, tilde eta) at this W, computed exactly here per coordinate:
//   C > 0: eta = (r_mu - b)_+, tilde eta = (b - s_mu)_+ with r = y - f0 - eps', s = y - f0 + eps', and b minimises
//          g(b) = sum_mu (r_mu - b)_+ + (b - s_mu)_+ over the cap-feasible interval (b = 0 without bias); the argmin is an
//          interval [b_lo, b_hi] found among the breakpoints (g convex piecewise linear);
//   C = 0: every feasible (b, eta, tilde eta) at W is optimal: b over the cap-feasible interval, eta_mu in
//          [(r_mu - b)_+, cap - eps'] (unbounded without a cap on that side).
// Diameters are max over coordinates and mu; +inf for an unbounded set. The W diameter is 0 (strict convexity).
template <class S> struct SvrDiameters {
  S W = S(0), b = S(0), eta = S(0), eta_t = S(0);
  std::string where_b, where_eta, where_eta_t;  // 1-based location of the largest entry
};
template <class S> SvrDiameters<S> svr_optimal_set_diameters(const SvrProblem<S>& p, const SvrSolution<S>& sol) {
  using namespace svr_detail;
  validate(p, "hopfield::svr_optimal_set_diameters");
  require(sol.solved, "hopfield::svr_optimal_set_diameters: no solution");
  const bool capA = p.reading != CapReading::none, capT = p.reading == CapReading::sym;
  const S inf = pos_inf<S>(), capw = p.cap - p.eps_prime;
  const S tol = ipm_tolerance<S>();
  const std::size_t M = p.M();
  SvrDiameters<S> D;
  auto upd = [](S& cur, std::string& where, const S& v, const std::string& w) {
    if (v > cur || where.empty()) {
      cur = v;
      where = w;
    }
  };
  for (std::size_t i = 0; i < p.d(); ++i) {
    Vector<S> bi(M);
    for (std::size_t mu = 0; mu < M; ++mu) bi[mu] = sol.beta(mu, i);
    const Vector<S> f0 = matvec(p.G, bi.data());
    Vector<S> r(M), sv(M);
    for (std::size_t mu = 0; mu < M; ++mu) {
      r[mu] = p.Y(mu, i) - f0[mu] - p.eps_prime;
      sv[mu] = p.Y(mu, i) - f0[mu] + p.eps_prime;
    }
    S Lb = p.bias ? S(-inf) : S(0), Ub = p.bias ? inf : S(0);
    if (p.bias) {
      if (capA)
        for (std::size_t mu = 0; mu < M; ++mu) Lb = max_(Lb, S(r[mu] - capw));
      if (capT)
        for (std::size_t mu = 0; mu < M; ++mu) Ub = min_(Ub, S(sv[mu] + capw));
    }
    S blo = Lb, bhi = Ub;
    const std::string co = " coordinate " + std::to_string(i + 1);
    if (p.C > 0) {
      if (p.bias) {
        std::vector<S> cand;
        for (std::size_t mu = 0; mu < M; ++mu)
          for (const S& v : {r[mu], sv[mu]})
            if (v >= Lb && v <= Ub) cand.push_back(v);
        if (is_finite(Lb)) cand.push_back(Lb);
        if (is_finite(Ub)) cand.push_back(Ub);
        auto g = [&](const S& b) {
          S acc(0);
          for (std::size_t mu = 0; mu < M; ++mu) acc += max_(S(0), S(r[mu] - b)) + max_(S(0), S(b - sv[mu]));
          return acc;
        };
        std::vector<S> gv;
        S gmin = inf;
        for (const S& c : cand) {
          gv.push_back(g(c));
          gmin = min_(gmin, gv.back());
        }
        const S thr = gmin + tol * (S(1) + abs_(gmin)) * S(static_cast<double>(M));
        bool first = true;
        for (std::size_t j = 0; j < cand.size(); ++j)
          if (gv[j] <= thr) {
            if (first || cand[j] < blo) blo = cand[j];
            if (first || cand[j] > bhi) bhi = cand[j];
            first = false;
          }
      }
      upd(D.b, D.where_b, S(bhi - blo), co);
      for (std::size_t mu = 0; mu < M; ++mu) {
        const std::string w = co + ", mu = " + std::to_string(mu + 1);
        upd(D.eta, D.where_eta, abs_(S(max_(S(0), S(r[mu] - blo)) - max_(S(0), S(r[mu] - bhi)))), w);
        upd(D.eta_t, D.where_eta_t, abs_(S(max_(S(0), S(blo - sv[mu])) - max_(S(0), S(bhi - sv[mu])))), w);
      }
    } else {
      upd(D.b, D.where_b, (is_finite(Lb) && is_finite(Ub)) ? S(Ub - Lb) : inf, co);
      for (std::size_t mu = 0; mu < M; ++mu) {
        const std::string w = co + ", mu = " + std::to_string(mu + 1);
        upd(D.eta, D.where_eta, capA ? S(capw - (is_finite(Ub) ? max_(S(0), S(r[mu] - Ub)) : S(0))) : inf, w);
        upd(D.eta_t, D.where_eta_t, capT ? S(capw - (is_finite(Lb) ? max_(S(0), S(Lb - sv[mu])) : S(0))) : inf, w);
      }
    }
  }
  return D;
}

// ---- retrieval (3.4)/(3.5) --------------------------------------------------------------------------------------------
// T_SVR(x)[i] = <w_i, Phi(x)> + b[i] = sum_mu beta_mu[i] K(k_mu, x) + b[i], with kvec[mu] = K(k_mu, x).
template <class S> Vector<S> svr_retrieve(const SvrSolution<S>& sol, const Vector<S>& kvec) {
  require(sol.solved && kvec.size() == sol.beta.rows, "hopfield::svr_retrieve: kernel vector length differs from M (or no solution)");
  Vector<S> out(sol.beta.cols);
  for (std::size_t i = 0; i < out.size(); ++i) {
    S acc(0);
    for (std::size_t mu = 0; mu < kvec.size(); ++mu) acc += sol.beta(mu, i) * kvec[mu];
    out[i] = acc + sol.b[i];
  }
  return out;
}
// T_SVR(x) of a kernelised fit: sum_a beta_a k(k_mask[a], x) + b ((3.5)).
template <class S, class Kern> Vector<S> kernel_retrieve(const SvrSolution<S>& sol, const Matrix<S>& Keys, Kern k, const Mask* mask, const S* x) {
  const std::size_t n = mask ? mask->size() : Keys.rows;
  require(sol.solved && sol.beta.rows == n, "hopfield::kernel_retrieve: the solution does not match the training set");
  Vector<S> kv(n);
  for (std::size_t a = 0; a < n; ++a) kv[a] = k(Keys.row(mask ? (*mask)[a] : a), x);
  return svr_retrieve(sol, kv);
}

// Explicit weights W = sum_mu beta_mu Phi(k_mu)^T (d x D), Phi the M x D feature rows of the training inputs ((3.4)).
template <class S> Matrix<S> svr_weights_explicit(const SvrSolution<S>& sol, const Matrix<S>& Phi) {
  require(sol.solved && Phi.rows == sol.beta.rows, "hopfield::svr_weights_explicit: feature rows differ from M (or no solution)");
  Matrix<S> W(sol.beta.cols, Phi.cols);
  for (std::size_t mu = 0; mu < Phi.rows; ++mu)
    for (std::size_t i = 0; i < W.rows; ++i) {
      const S c = sol.beta(mu, i);
      for (std::size_t j = 0; j < Phi.cols; ++j) W(i, j) += c * Phi(mu, j);
    }
  return W;
}
// W Phi(x) + b
template <class S> Vector<S> explicit_retrieve(const Matrix<S>& W, const Vector<S>& b, const Vector<S>& phi_x) {
  require(phi_x.size() == W.cols && b.size() == W.rows, "hopfield::explicit_retrieve: shapes differ");
  Vector<S> out = matvec(W, phi_x.data());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] += b[i];
  return out;
}

// =====================================================================================================
// Independent check: the primal in an explicit feature space, all coordinates jointly
// =====================================================================================================

// Generic dense convex QP by a primal-dual Mehrotra interior-point method: min 1/2 x^T Q x + q^T x s.t. A x <= h. Q + A^T D A
// must be positive definite along the iterates (every variable bounded through A or Q). Returns x, the multipliers z of
// the rows, and whether the stopping rule (complementarity and residuals <= ipm tolerance) was met.
template <class S> struct QpResult {
  Vector<S> x, z;
  bool converged = false;
  int iterations = 0;
};
template <class S> QpResult<S> qp_ipm_at(const Matrix<S>& Q, const Vector<S>& q, const Matrix<S>& A, const Vector<S>& h, int max_iter, const S& tol) {
  using namespace svr_detail;
  const std::size_t n = Q.rows, m = A.rows;
  require(Q.cols == n && q.size() == n && A.cols == n && h.size() == m && m >= 1, "hopfield::qp_ipm: inconsistent shapes");
  // nonzero pattern of A's rows
  std::vector<std::vector<std::size_t>> nz(m);
  for (std::size_t r = 0; r < m; ++r)
    for (std::size_t j = 0; j < n; ++j)
      if (A(r, j) != 0) nz[r].push_back(j);
  QpResult<S> out;
  Vector<S> x(n, S(0)), s(m, S(1)), z(m, S(1));
  S qs(1), hs(1);
  for (const S& v : q) qs = max_(qs, abs_(v));
  for (const S& v : h) hs = max_(hs, abs_(v));
  Vector<S> rd(n), rp(m), rc(m), dx(n), ds(m), dz(m), dxa(n), dsa(m), dza(m);
  Matrix<S> H(n, n);
  auto solve = [&](Vector<S>& dX, Vector<S>& dS, Vector<S>& dZ) {
    Vector<S> rhs(n);
    for (std::size_t j = 0; j < n; ++j) rhs[j] = -rd[j];
    for (std::size_t r = 0; r < m; ++r) {
      const S t = (z[r] * rp[r] - rc[r]) / s[r];
      for (std::size_t j : nz[r]) rhs[j] -= A(r, j) * t;
    }
    chol_solve_(H, rhs);
    dX = rhs;
    for (std::size_t r = 0; r < m; ++r) {
      S adx(0);
      for (std::size_t j : nz[r]) adx += A(r, j) * dX[j];
      dS[r] = -rp[r] - adx;
      dZ[r] = (-rc[r] - z[r] * dS[r]) / s[r];
    }
  };
  auto max_step = [&](const Vector<S>& dS, const Vector<S>& dZ) {
    S a(1);
    for (std::size_t r = 0; r < m; ++r) {
      if (dS[r] < 0) a = min_(a, S(-s[r] / dS[r]));
      if (dZ[r] < 0) a = min_(a, S(-z[r] / dZ[r]));
    }
    return a;
  };
  int it = 0;
  const S mm = S(static_cast<double>(m));
  for (; it < max_iter; ++it) {
    S rdmax(0), rpmax(0), gap(0);
    for (std::size_t j = 0; j < n; ++j) rd[j] = dot(Q.row(j), x.data(), n) + q[j];
    for (std::size_t r = 0; r < m; ++r) {
      S ax(0);
      for (std::size_t j : nz[r]) {
        ax += A(r, j) * x[j];
        rd[j] += A(r, j) * z[r];
      }
      rp[r] = ax + s[r] - h[r];
      rpmax = max_(rpmax, abs_(rp[r]));
      gap += s[r] * z[r];
    }
    for (const S& v : rd) rdmax = max_(rdmax, abs_(v));
    const S mu_c = gap / mm;
    if (mu_c <= tol && rpmax <= tol * hs && rdmax <= tol * qs) {
      out.converged = true;
      break;
    }
    H = Q;
    for (std::size_t r = 0; r < m; ++r) {
      const S dr = z[r] / s[r];
      for (std::size_t a : nz[r])
        for (std::size_t b : nz[r]) H(a, b) += dr * A(r, a) * A(r, b);
    }
    if (!cholesky(H)) break;
    for (std::size_t r = 0; r < m; ++r) rc[r] = s[r] * z[r];
    solve(dxa, dsa, dza);
    const S aa = max_step(dsa, dza);
    S ga(0);
    for (std::size_t r = 0; r < m; ++r) ga += (s[r] + aa * dsa[r]) * (z[r] + aa * dza[r]);
    const S ratio = (ga / mm) / mu_c;
    const S sigma = ratio * ratio * ratio;
    for (std::size_t r = 0; r < m; ++r) rc[r] = s[r] * z[r] + dsa[r] * dza[r] - sigma * mu_c;
    solve(dx, ds, dz);
    const S a = min_(S(1), S(max_(S(0.99), S(S(1) - mu_c)) * max_step(ds, dz)));
    for (std::size_t j = 0; j < n; ++j) x[j] += a * dx[j];
    for (std::size_t r = 0; r < m; ++r) {
      s[r] += a * ds[r];
      z[r] += a * dz[r];
    }
  }
  out.x = x;
  out.z = z;
  out.iterations = it;
  return out;
}

// qp_ipm_at at internal_digits with the working digits' tolerance; results at the working digits.
template <class S> QpResult<S> qp_ipm(const Matrix<S>& Q, const Vector<S>& q, const Matrix<S>& A, const Vector<S>& h, int max_iter = 300) {
  using namespace svr_detail;
  const S tol = ipm_tolerance<S>();
  QpResult<S> r = with_internal_digits<S>([&] { return qp_ipm_at(relift(Q), relift(q), relift(A), relift(h), max_iter, relift(tol)); });
  r.x = relift(r.x);
  r.z = relift(r.z);
  return r;
}

// The primal of (2.1) / (3.3) / the cap-free problem in explicit features, all d coordinates in one QP:
// variables W (d x D, row-major), b (d, bias only), eta, tilde eta (M x d); rows per (mu, i): the two tube constraints
// (multipliers alpha, tilde alpha), -eta <= 0, -tilde eta <= 0 and the caps. Needs C > 0 and, with a cap, cap > eps'
// (a non-empty interior). Returns W, b, the slacks, the tube multipliers and the objective.
template <class S> struct SvrPrimalExplicit {
  Matrix<S> W;                                   // d x D
  Vector<S> b;                                   // d
  Matrix<S> eta, eta_t, alpha, alpha_t;          // M x d
  S objective = S(0);
  bool converged = false;
  int iterations = 0;
};
template <class S>
SvrPrimalExplicit<S> svr_solve_primal_explicit(const Matrix<S>& Phi, const Matrix<S>& Y, const S& C, const S& eps_prime, const S& cap, CapReading reading,
                                               bool bias, int max_iter = 300) {
  const std::size_t M = Phi.rows, D = Phi.cols, d = Y.cols;
  require(M >= 1 && D >= 1 && d >= 1 && Y.rows == M, "hopfield::svr_solve_primal_explicit: Phi is M x D, Y is M x d");
  require(C > 0, "hopfield::svr_solve_primal_explicit: needs C > 0");
  require(eps_prime >= 0, "hopfield::svr_solve_primal_explicit: eps' must be >= 0");
  require(reading == CapReading::none || cap > eps_prime, "hopfield::svr_solve_primal_explicit: needs cap > eps' (non-empty interior)");
  const bool capA = reading != CapReading::none, capT = reading == CapReading::sym;
  const std::size_t nW = d * D, nb = bias ? d : 0, n = nW + nb + 2 * M * d;
  auto iw = [&](std::size_t i, std::size_t j) { return i * D + j; };
  auto ib = [&](std::size_t i) { return nW + i; };
  auto ie = [&](std::size_t mu, std::size_t i) { return nW + nb + mu * d + i; };
  auto iet = [&](std::size_t mu, std::size_t i) { return nW + nb + M * d + mu * d + i; };
  const std::size_t per = 4 + (capA ? 1 : 0) + (capT ? 1 : 0);
  const std::size_t m = per * M * d;
  Matrix<S> Q(n, n), A(m, n);
  Vector<S> q(n, S(0)), h(m, S(0));
  for (std::size_t k = 0; k < nW; ++k) Q(k, k) = S(1);
  for (std::size_t mu = 0; mu < M; ++mu)
    for (std::size_t i = 0; i < d; ++i) {
      q[ie(mu, i)] = C;
      q[iet(mu, i)] = C;
    }
  std::size_t r = 0;
  for (std::size_t mu = 0; mu < M; ++mu)
    for (std::size_t i = 0; i < d; ++i) {
      // y - W Phi - b <= eps' + eta
      for (std::size_t j = 0; j < D; ++j) A(r, iw(i, j)) = -Phi(mu, j);
      if (bias) A(r, ib(i)) = S(-1);
      A(r, ie(mu, i)) = S(-1);
      h[r++] = eps_prime - Y(mu, i);
      // W Phi + b - y <= eps' + tilde eta
      for (std::size_t j = 0; j < D; ++j) A(r, iw(i, j)) = Phi(mu, j);
      if (bias) A(r, ib(i)) = S(1);
      A(r, iet(mu, i)) = S(-1);
      h[r++] = eps_prime + Y(mu, i);
      A(r, ie(mu, i)) = S(-1);
      h[r++] = S(0);
      A(r, iet(mu, i)) = S(-1);
      h[r++] = S(0);
      if (capA) {
        A(r, ie(mu, i)) = S(1);
        h[r++] = cap - eps_prime;
      }
      if (capT) {
        A(r, iet(mu, i)) = S(1);
        h[r++] = cap - eps_prime;
      }
    }
  const QpResult<S> res = qp_ipm(Q, q, A, h, max_iter);
  SvrPrimalExplicit<S> out;
  out.converged = res.converged;
  out.iterations = res.iterations;
  out.W = Matrix<S>(d, D);
  out.b.assign(d, S(0));
  out.eta = out.eta_t = out.alpha = out.alpha_t = Matrix<S>(M, d);
  for (std::size_t i = 0; i < d; ++i) {
    for (std::size_t j = 0; j < D; ++j) out.W(i, j) = res.x[iw(i, j)];
    if (bias) out.b[i] = res.x[ib(i)];
  }
  S obj(0);
  for (std::size_t k = 0; k < nW; ++k) obj += res.x[k] * res.x[k] / 2;
  r = 0;
  for (std::size_t mu = 0; mu < M; ++mu)
    for (std::size_t i = 0; i < d; ++i) {
      out.eta(mu, i) = res.x[ie(mu, i)];
      out.eta_t(mu, i) = res.x[iet(mu, i)];
      obj += C * (out.eta(mu, i) + out.eta_t(mu, i));
      out.alpha(mu, i) = res.z[r];
      out.alpha_t(mu, i) = res.z[r + 1];
      r += per;
    }
  out.objective = obj;
  return out;
}

}  // namespace recall::ref::hopfield
