// Local polynomial regression ("higher-order attention") of seed 001, §4 Vignette 4, Eqs. (48)-(54):
// the p = 1 (local linear) estimator in its direct form (52), the offset form (54), the weighted-
// covariance (moment) form, the five-reduction streaming form F12, the general-p estimator on the
// monomial basis, the declared readings for singular systems (PINV, slope-only RIDGE, or an error), and
// the phase-separated direct form used by the cost harness (A001-LOCAL-LINEAR-COST).
//
// Conventions (spec A001 C1, C4, C7): keys, queries and values are ROWS (K: T x D_k, V: T x D_v); at a
// query q the prefix is the first t rows (1 <= t <= T); d_i = k_i - q (centring at q is part of the
// definition, the min-norm PINV choice is not translation invariant); the design matrix X_t has rows
// [1, d_i^T]; Theta = [M^[0] M^[1]] is D_v x (1 + D_k) and the output is M^[0] = Theta(:, 0).
// Similarity weights enter through their logarithms and are max-subtracted (w_i = exp(l_i - max_j l_j),
// so max_i w_i = 1): Theta is invariant to W -> cW, c > 0, and so is every form here (the ridge mu is
// defined relative to the weights). Positions in messages are 1-based.
// Plain loops, scalar-generic (mp_t: the oracle; double/float: the same-precision baseline; Counted:
// the operation/peak-memory counts of R-SCALE). Linear algebra of the direct form is the SVD of
// W^{1/2} X (svd.hpp), never the normal equations; the moment and streaming forms are normal-equation
// forms by definition and solve their (1 + D_k) or D_k system by Gaussian elimination.
#pragma once

#include "recall/reference/matrix.hpp"
#include "recall/reference/nadaraya_watson.hpp"
#include "recall/reference/regression_rules.hpp"
#include "recall/reference/svd.hpp"

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace recall::ref {

// ---- similarity and singular-system policy -----------------------------------------------------------

enum class SimilarityKind { dot_exp, gauss };

// The similarity s(k, q) of (48)/(52), given by its logarithm:
//   dot_exp: l = s * k^T q, logit scale s (0 selects the default s = 1/sqrt(D_k), A001-SIM-DOTEXP);
//   gauss:   l = -||k - q||^2 / B, bandwidth B > 0 (A001-SIM-GAUSS, sum of squared differences).
struct Similarity {
  SimilarityKind kind = SimilarityKind::dot_exp;
  double param = 0;  // dot_exp: logit scale (0: 1/sqrt(D_k)); gauss: bandwidth B
};
inline Similarity sim_dot_exp(double logit_scale = 0) { return Similarity{SimilarityKind::dot_exp, logit_scale}; }
inline Similarity sim_gauss(double bandwidth) { return Similarity{SimilarityKind::gauss, bandwidth}; }
inline std::string similarity_name(const Similarity& s) {
  if (s.kind == SimilarityKind::gauss) return "gauss(B=" + std::to_string(s.param) + ")";
  return s.param == 0 ? std::string("dot_exp(s=1/sqrt(D_k))") : "dot_exp(s=" + std::to_string(s.param) + ")";
}

enum class SingularKind { pinv, ridge, throw_if_singular };

// How a singular (or any, for ridge) local system is solved (A001-LOCAL-LINEAR-SINGULAR-PINV / -RIDGE):
//   pinv:  Theta = V^T W X (X^T W X)^+, minimum-norm weighted LS via the SVD of W^{1/2} X, singular values
//          <= rank_tol * sigma_max dropped (rank_tol = 0: default_rank_tol<S>);
//   ridge: Theta = V^T W X (X^T W X + mu diag(0, I))^{-1}, mu = mu_rel * tr(sum_i w_i d_i d_i^T) / D_k (the
//          intercept is not penalised; trace 0, i.e. every d_i = 0, gives M^[1] = 0 and the NW output);
//   throw_if_singular: the exact solve; std::invalid_argument naming t when rank(W^{1/2} X) < 1 + D_k at
//          rank_tol.
struct SingularPolicy {
  SingularKind kind = SingularKind::pinv;
  double mu_rel = 0;    // ridge only, > 0
  double rank_tol = 0;  // pinv / throw: relative singular-value threshold on W^{1/2} X (0: default)
};
inline SingularPolicy pinv_policy(double rank_tol = 0) { return SingularPolicy{SingularKind::pinv, 0, rank_tol}; }
inline SingularPolicy ridge_policy(double mu_rel) { return SingularPolicy{SingularKind::ridge, mu_rel, 0}; }
inline SingularPolicy throw_policy(double rank_tol = 0) { return SingularPolicy{SingularKind::throw_if_singular, 0, rank_tol}; }
inline std::string policy_name(const SingularPolicy& p) {
  switch (p.kind) {
    case SingularKind::pinv: return "pinv";
    case SingularKind::ridge: return "ridge(mu_rel=" + std::to_string(p.mu_rel) + ")";
    case SingularKind::throw_if_singular: return "throw";
  }
  return "?";
}

// One local fit at one query.
template <class S> struct LocalFit {
  Matrix<S> theta;          // D_v x n_cols: [M^[0] M^[1] ...] (n_cols = 1 + D_k for p = 1, n_p in general)
  Vector<S> output;         // M^[0] = theta(:, 0) = m_{p,t}(q)
  std::size_t rank = 0;     // numerical rank of the matrix decomposed (W^{1/2} X; the Gram for F12; C_kk + 1 for the moment form)
  bool singular = false;    // rank < n_cols
  S mu = S(0);              // ridge mu used (0 unless ridge)
  double cond = 0;          // sigma_max / sigma_min of the matrix decomposed (inf when singular; 0 when not computed)
};

namespace ll_detail {
template <class S> S exp_(const S& x) {
  using std::exp;
  using boost::multiprecision::exp;
  return exp(x);
}
template <class S> S sqrt_(const S& x) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  return sqrt(x);
}
inline std::string pos(std::size_t i) { return std::to_string(i + 1); }
template <class S> void require_finite(const Matrix<S>& X, std::size_t rows, const char* who, const char* name) {
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < X.cols; ++j)
      require(is_finite(X(i, j)), std::string(who) + ": non-finite entry in " + name + " at row " + pos(i) + ", column " + pos(j));
}
template <class S> void require_finite_vec(const S* x, std::size_t n, const char* who, const char* name) {
  for (std::size_t j = 0; j < n; ++j)
    require(is_finite(x[j]), std::string(who) + ": non-finite entry in " + name + " at position " + pos(j));
}
// shapes and finiteness of the prefix problem at one query
template <class S>
void check_prefix(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S* q, const char* who) {
  require(K.cols >= 1, std::string(who) + ": keys need D_k >= 1");
  require(V.cols >= 1, std::string(who) + ": values need D_v >= 1");
  require(K.rows == V.rows, std::string(who) + ": K and V have different numbers of rows");
  require(t >= 1 && t <= K.rows, std::string(who) + ": prefix length t = " + std::to_string(t) + " outside 1.." + std::to_string(K.rows));
  require_finite(K, t, who, "K");
  require_finite(V, t, who, "V");
  require_finite_vec(q, K.cols, who, "q");
}
template <class S> S default_tol(double rank_tol, std::size_t n) { return rank_tol > 0 ? S(rank_tol) : default_rank_tol<S>(n); }
template <class S> void require_policy(const SingularPolicy& p, const char* who) {
  if (p.kind == SingularKind::ridge)
    require(std::isfinite(p.mu_rel) && p.mu_rel > 0, std::string(who) + ": ridge policy needs mu_rel > 0");
  require(std::isfinite(p.rank_tol) && p.rank_tol >= 0, std::string(who) + ": rank_tol must be finite and >= 0");
}
template <class S> double to_double(const S& x) { return convert<double>(x); }
// sigma_max / sigma_min over the min(m, n) singular values when m >= n and sigma_min > 0, else inf
template <class S> double cond_of(const Vector<S>& sigma, std::size_t m, std::size_t n) {
  if (sigma.empty() || m < n || !(sigma.back() > 0)) return std::numeric_limits<double>::infinity();
  return to_double(S(sigma.front() / sigma.back()));
}
// Theta^T (n x dv) = sum_{k < r} V(:, k) sigma_k^{-1} U(:, k)^T B from a thin SVD of A (m x n), B: m x dv
template <class S> Matrix<S> svd_solve(const Svd<S>& d, std::size_t r, std::size_t n, const Matrix<S>& B) {
  Matrix<S> X(n, B.cols);
  Vector<S> c(B.cols);
  for (std::size_t k = 0; k < r; ++k) {
    for (std::size_t j = 0; j < B.cols; ++j) {
      S acc(0);
      for (std::size_t i = 0; i < B.rows; ++i) muladd(acc, d.U(i, k), B(i, j));
      c[j] = acc / d.sigma[k];
    }
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < B.cols; ++j) muladd(X(i, j), d.V(i, k), c[j]);
  }
  return X;
}
// ref::svd with the query's t in the message when the Jacobi iteration does not converge (std::runtime_error)
template <class S> Svd<S> svd_at(const Matrix<S>& A, std::size_t t, const char* who) {
  try {
    return svd(A);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string(who) + " at t = " + std::to_string(t) + ": " + e.what());
  }
}
template <class S> LocalFit<S> fit_from_theta_t(const Matrix<S>& theta_t) {
  LocalFit<S> f;
  f.theta = transpose(theta_t);
  f.output.assign(f.theta.rows, S(0));
  for (std::size_t c = 0; c < f.theta.rows; ++c) f.output[c] = f.theta(c, 0);
  return f;
}
}  // namespace ll_detail

// A001-SIM-DOTEXP / A001-SIM-GAUSS (C4): log s(k, q) for the selected similarity at key width d.
template <class S> S local_log_similarity(const Similarity& sim, const S* k, const S* q, std::size_t d) {
  require(std::isfinite(sim.param), "local_log_similarity: non-finite similarity parameter");
  if (sim.kind == SimilarityKind::gauss) {
    require(sim.param > 0, "local_log_similarity: Gaussian bandwidth B must be > 0");
    return S(-squared_distance(k, q, d) / S(sim.param));
  }
  const S s = sim.param == 0 ? S(S(1) / ll_detail::sqrt_(S(static_cast<double>(d)))) : S(sim.param);
  return S(s * dot(k, q, d));
}

// Log-weights l_i = log s(k_i, q), i < t (A001-LOCAL-LINEAR-ATTN, W_t of Eq. 52).
template <class S> Vector<S> local_log_weights(const Similarity& sim, const Matrix<S>& K, std::size_t t, const S* q) {
  require(t >= 1 && t <= K.rows, "local_log_weights: prefix length t out of range");
  Vector<S> l(t);
  for (std::size_t i = 0; i < t; ++i) {
    l[i] = local_log_similarity(sim, K.row(i), q, K.cols);
    require(is_finite(l[i]), "local_log_weights: non-finite log-similarity of key " + ll_detail::pos(i));
  }
  return l;
}

// Max-subtracted weights w_i = exp(l_i - max_j l_j) in (0, 1] (max_i w_i = 1; W_t up to the factor e^{max l},
// which Theta does not see).
template <class S> Vector<S> max_subtracted_weights(const Vector<S>& l) {
  require(!l.empty(), "max_subtracted_weights: no log-weight");
  S m = l[0];
  for (const S& x : l) {
    require(is_finite(x), "max_subtracted_weights: non-finite log-weight");
    if (x > m) m = x;
  }
  Vector<S> w(l.size());
  for (std::size_t i = 0; i < l.size(); ++i) w[i] = ll_detail::exp_(S(l[i] - m));
  return w;
}
template <class S> Vector<S> local_weights(const Similarity& sim, const Matrix<S>& K, std::size_t t, const S* q) {
  return max_subtracted_weights(local_log_weights(sim, K, t, q));
}

// Effective sample size (sum w)^2 / sum w^2 of a weight vector.
template <class S> S effective_sample_size(const Vector<S>& w) {
  S a(0), b(0);
  for (const S& x : w) {
    a += x;
    muladd(b, x, x);
  }
  require(b > 0, "effective_sample_size: all weights are zero");
  return S(a * a / b);
}

// ---- general p: monomial basis --------------------------------------------------------------------------

// A001-LOCAL-POLY-GENERAL-P: exponent vectors of all monomials of degree <= p in D_k variables, graded
// (degree 0, then 1, ...; within a degree in lexicographically decreasing order, so the degree-1 block is
// d_1, ..., d_{D_k}); intercept first; n_p = binom(D_k + p, p) entries.
inline std::vector<std::vector<int>> monomial_exponents(std::size_t dk, int p) {
  require(dk >= 1 && p >= 0, "monomial_exponents: need D_k >= 1 and p >= 0");
  std::vector<std::vector<int>> out;
  for (int deg = 0; deg <= p; ++deg) {
    // enumerate compositions of deg into dk parts, lexicographically decreasing
    std::vector<std::vector<int>> level;
    std::vector<int> cur(dk, 0);
    auto rec = [&](auto&& self, std::size_t j, int left) -> void {
      if (j + 1 == dk) {
        cur[j] = left;
        level.push_back(cur);
        return;
      }
      for (int a = left; a >= 0; --a) {
        cur[j] = a;
        self(self, j + 1, left - a);
      }
    };
    rec(rec, 0, deg);
    for (auto& v : level) out.push_back(v);
  }
  return out;
}
// binom(D_k + p, p)
inline std::size_t monomial_count(std::size_t dk, int p) {
  std::size_t c = 1;
  for (int j = 1; j <= p; ++j) c = c * (dk + static_cast<std::size_t>(j)) / static_cast<std::size_t>(j);
  return c;
}
// Row of X^(p): the monomials of d = k - q for the given exponents.
template <class S> Vector<S> monomial_row(const S* d, const std::vector<std::vector<int>>& ex) {
  Vector<S> r(ex.size());
  for (std::size_t c = 0; c < ex.size(); ++c) {
    S m(1);
    for (std::size_t j = 0; j < ex[c].size(); ++j)
      for (int a = 0; a < ex[c][j]; ++a) m = m * d[j];
    r[c] = m;
  }
  return r;
}

// A001-LOCAL-POLY-GENERAL-P (Eqs. 48-49, monomial basis): the weighted LS fit of degree p around q over the
// prefix of length t with weights w_i >= 0 (any scale), Theta = V^T W X^(p) (X^(p)T W X^(p))^{-1} by the
// SVD of W^{1/2} X^(p) (PINV reading when singular), or with the ridge mu * diag(0, I) on the non-intercept
// columns, mu = mu_rel * sum_{c >= 1} sum_i w_i X_ic^2 / (n_p - 1) (p = 1: tr(sum w d d^T)/D_k). For p = 0
// this is Nadaraya-Watson (Eq. 50); for p = 1 it is (52).
template <class S>
LocalFit<S> local_poly_fit_weights(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S* q, const Vector<S>& w, int p,
                                   const SingularPolicy& pol) {
  const char* who = "local_poly_fit";
  ll_detail::check_prefix(K, V, t, q, who);
  ll_detail::require_policy<S>(pol, who);
  require(p >= 0, "local_poly_fit: degree p must be >= 0");
  require(w.size() == t, "local_poly_fit: need one weight per prefix row (t weights)");
  S wsum(0);
  for (std::size_t i = 0; i < t; ++i) {
    require(is_finite(w[i]) && w[i] >= 0, "local_poly_fit: weight w_" + ll_detail::pos(i) + " is negative or not finite");
    wsum += w[i];
  }
  require(wsum > 0, "local_poly_fit: all weights are zero");
  const std::size_t dk = K.cols, dv = V.cols;
  const auto ex = monomial_exponents(dk, p);
  const std::size_t n = ex.size();
  // W^{1/2} X^(p) and W^{1/2} V
  Matrix<S> A(t, n), B(t, dv);
  Vector<S> d(dk);
  S pen(0);  // sum_{c>=1} sum_i w_i X_ic^2
  for (std::size_t i = 0; i < t; ++i) {
    for (std::size_t j = 0; j < dk; ++j) d[j] = K(i, j) - q[j];
    const Vector<S> x = monomial_row(d.data(), ex);
    const S h = ll_detail::sqrt_(w[i]);
    for (std::size_t c = 0; c < n; ++c) {
      A(i, c) = h * x[c];
      if (c >= 1) muladd(pen, A(i, c), A(i, c));
    }
    for (std::size_t c = 0; c < dv; ++c) B(i, c) = h * V(i, c);
  }
  if (pol.kind == SingularKind::ridge) {
    const S mu = n > 1 ? S(S(pol.mu_rel) * pen / S(static_cast<double>(n - 1))) : S(0);
    if (n == 1 || mu == 0) {  // no slope column, or every d_i = 0: M^[>=1] = 0, output = NW mean
      LocalFit<S> f;
      f.theta = Matrix<S>(dv, n);
      f.output.assign(dv, S(0));
      for (std::size_t i = 0; i < t; ++i)
        for (std::size_t c = 0; c < dv; ++c) muladd(f.output[c], w[i], V(i, c));
      for (std::size_t c = 0; c < dv; ++c) {
        f.output[c] /= wsum;
        f.theta(c, 0) = f.output[c];
      }
      f.rank = 1;
      f.singular = n > 1;
      f.mu = mu;
      f.cond = n == 1 ? 1.0 : std::numeric_limits<double>::infinity();
      return f;
    }
    // augmented LS: [W^{1/2} X; sqrt(mu) [0 I]] Theta^T = [W^{1/2} V; 0], full column rank
    Matrix<S> Aa(t + n - 1, n), Ba(t + n - 1, dv);
    for (std::size_t i = 0; i < t; ++i) {
      for (std::size_t c = 0; c < n; ++c) Aa(i, c) = A(i, c);
      for (std::size_t c = 0; c < dv; ++c) Ba(i, c) = B(i, c);
    }
    const S sm = ll_detail::sqrt_(mu);
    for (std::size_t c = 1; c < n; ++c) Aa(t + c - 1, c) = sm;
    const Svd<S> sv = ll_detail::svd_at(Aa, t, who);
    const std::size_t r = numerical_rank(sv.sigma, default_rank_tol<S>(std::max(Aa.rows, n)));
    LocalFit<S> f = ll_detail::fit_from_theta_t(ll_detail::svd_solve(sv, r, n, Ba));
    f.rank = r;
    f.singular = r < n;
    f.mu = mu;
    f.cond = ll_detail::cond_of(sv.sigma, Aa.rows, n);
    return f;
  }
  const Svd<S> sv = ll_detail::svd_at(A, t, who);
  const std::size_t r = numerical_rank(sv.sigma, ll_detail::default_tol<S>(pol.rank_tol, std::max(t, n)));
  if (pol.kind == SingularKind::throw_if_singular && r < n)
    throw std::invalid_argument("local_poly_fit: the local system X^T W X is singular at t = " + std::to_string(t) + " (rank " +
                                std::to_string(r) + " < " + std::to_string(n) + ")");
  LocalFit<S> f = ll_detail::fit_from_theta_t(ll_detail::svd_solve(sv, r, n, B));
  f.rank = r;
  f.singular = r < n;
  f.cond = ll_detail::cond_of(sv.sigma, t, n);
  return f;
}
template <class S>
LocalFit<S> local_poly_fit(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S* q, const Similarity& sim, int p,
                           const SingularPolicy& pol) {
  ll_detail::check_prefix(K, V, t, q, "local_poly_fit");
  return local_poly_fit_weights(K, V, t, q, local_weights(sim, K, t, q), p, pol);
}

// ---- p = 1: direct, offset, moment and streaming forms -------------------------------------------------

// A001-LOCAL-LINEAR-ATTN (Eq. 52-53), direct form at one query q over the prefix of length t with weights
// w_i >= 0: Theta = [M^[0] M^[1]] = V^T W X (X^T W X)^{-1} by the SVD of W^{1/2} X; singular systems by the
// policy (A001-LOCAL-LINEAR-SINGULAR-PINV / -RIDGE / throw naming t).
template <class S>
LocalFit<S> local_linear_direct_weights(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S* q, const Vector<S>& w,
                                        const SingularPolicy& pol) {
  return local_poly_fit_weights(K, V, t, q, w, 1, pol);
}
template <class S>
LocalFit<S> local_linear_direct(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S* q, const Similarity& sim,
                                const SingularPolicy& pol) {
  return local_poly_fit(K, V, t, q, sim, 1, pol);
}

// Weighted means with normalised weights w~_i = w_i / sum_j w_j over the prefix: v-bar (D_v), d-bar (D_k,
// of d_i = k_i - q), k-bar = q + d-bar (computed as sum w~ k directly).
template <class S> struct LocalMeans {
  Vector<S> vbar, dbar, kbar;
  S wsum = S(0);
};
template <class S>
LocalMeans<S> local_means(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S* q, const Vector<S>& w) {
  ll_detail::check_prefix(K, V, t, q, "local_means");
  require(w.size() == t, "local_means: need one weight per prefix row");
  LocalMeans<S> m;
  for (std::size_t i = 0; i < t; ++i) {
    require(is_finite(w[i]) && w[i] >= 0, "local_means: weight w_" + ll_detail::pos(i) + " is negative or not finite");
    m.wsum += w[i];
  }
  require(m.wsum > 0, "local_means: all weights are zero");
  const std::size_t dk = K.cols, dv = V.cols;
  m.vbar.assign(dv, S(0));
  m.dbar.assign(dk, S(0));
  m.kbar.assign(dk, S(0));
  S di;
  for (std::size_t i = 0; i < t; ++i) {
    const S wt = w[i] / m.wsum;
    for (std::size_t c = 0; c < dv; ++c) muladd(m.vbar[c], wt, V(i, c));
    for (std::size_t j = 0; j < dk; ++j) {
      di = K(i, j) - q[j];
      muladd(m.dbar[j], wt, di);
      muladd(m.kbar[j], wt, K(i, j));
    }
  }
  return m;
}

// A001-LOCAL-LINEAR-OFFSET-FORM (Eq. 54): m_{1,t}(q) = v-bar - M^[1] d-bar for a given slope M^[1] (D_v x D_k).
template <class S>
Vector<S> local_linear_offset(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S* q, const Vector<S>& w,
                              const Matrix<S>& M1) {
  require(M1.rows == V.cols && M1.cols == K.cols, "local_linear_offset: M^[1] must be D_v x D_k");
  const LocalMeans<S> m = local_means(K, V, t, q, w);
  Vector<S> y = m.vbar;
  for (std::size_t c = 0; c < V.cols; ++c)
    for (std::size_t j = 0; j < K.cols; ++j) y[c] -= M1(c, j) * m.dbar[j];
  return y;
}

// A001-LOCAL-LINEAR-OFFSET-FORM, justification step: the p = 0 (Nadaraya-Watson, Eq. 50) minimiser on the
// shifted data {(k_i, v_i - M^[1] d_i)}, i.e. sum_i w_i (v_i - M^[1] d_i) / sum_j w_j evaluated literally.
template <class S>
Vector<S> local_linear_shifted_nw(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S* q, const Vector<S>& w,
                                  const Matrix<S>& M1) {
  ll_detail::check_prefix(K, V, t, q, "local_linear_shifted_nw");
  require(M1.rows == V.cols && M1.cols == K.cols, "local_linear_shifted_nw: M^[1] must be D_v x D_k");
  Matrix<S> Vs(t, V.cols);
  Vector<S> d(K.cols);
  for (std::size_t i = 0; i < t; ++i) {
    for (std::size_t j = 0; j < K.cols; ++j) d[j] = K(i, j) - q[j];
    for (std::size_t c = 0; c < V.cols; ++c) {
      S u = V(i, c);
      for (std::size_t j = 0; j < K.cols; ++j) u -= M1(c, j) * d[j];
      Vs(i, c) = u;
    }
  }
  return nw_minimizer(w, Vs);
}

// A001-LOCAL-LINEAR-MOMENT-FORM: with w~ = w / sum w, two-pass centred weighted covariances
// C_kk = sum w~ (k_i - k-bar)(k_i - k-bar)^T, C_vk = sum w~ (v_i - v-bar)(k_i - k-bar)^T (k_i - k-bar computed
// as d_i - d-bar, centred at q first), M^[1] = C_vk C_kk^{-1}, m_{1,t}(q) = v-bar + M^[1](q - k-bar).
// Policies: throw when rank(C_kk) < D_k; ridge adds mu / sum_j w_j * I to C_kk (exactly the slope-only ridge
// of (52) after eliminating the intercept, same mu as local_linear_direct); pinv uses C_kk^+ (the minimum-
// ||M^[1]|| solution with the intercept free = the mu -> 0+ ridge limit, which is NOT the PINV reading of
// (52) when singular). The rank test of C_kk uses rank_tol (default: default_rank_tol<S>) on C_kk itself.
// theta = [M^[0] M^[1]]; rank = 1 + rank(C_kk).
template <class S>
LocalFit<S> local_linear_moment_weights(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S* q, const Vector<S>& w,
                                        const SingularPolicy& pol) {
  ll_detail::require_policy<S>(pol, "local_linear_moment");
  const LocalMeans<S> m = local_means(K, V, t, q, w);
  const std::size_t dk = K.cols, dv = V.cols;
  Matrix<S> Ckk(dk, dk), Cvk(dv, dk);
  Vector<S> e(dk), f(dv);
  S trace_dd(0);  // tr(sum w d d^T) for the ridge mu
  for (std::size_t i = 0; i < t; ++i) {
    const S wt = w[i] / m.wsum;
    for (std::size_t j = 0; j < dk; ++j) {
      const S dij = K(i, j) - q[j];
      e[j] = dij - m.dbar[j];
      trace_dd += w[i] * dij * dij;
    }
    for (std::size_t c = 0; c < dv; ++c) f[c] = V(i, c) - m.vbar[c];
    add_outer(Ckk, wt, e.data(), e.data());
    add_outer(Cvk, wt, f.data(), e.data());
  }
  LocalFit<S> out;
  const Svd<S> sv = ll_detail::svd_at(Ckk, t, "local_linear_moment");
  const std::size_t r = numerical_rank(sv.sigma, ll_detail::default_tol<S>(pol.rank_tol, dk));
  out.rank = 1 + r;
  out.singular = r < dk;
  out.cond = ll_detail::cond_of(sv.sigma, dk, dk);
  Matrix<S> M1(dv, dk);
  if (pol.kind == SingularKind::throw_if_singular && r < dk)
    throw std::invalid_argument("local_linear_moment: the local system X^T W X is singular at t = " + std::to_string(t) + " (rank(C_kk) " +
                                std::to_string(r) + " < D_k = " + std::to_string(dk) + ")");
  if (pol.kind == SingularKind::ridge) {
    out.mu = S(S(pol.mu_rel) * trace_dd / S(static_cast<double>(dk)));
    if (out.mu > 0) {
      Matrix<S> A = Ckk;
      const S add = out.mu / m.wsum;
      for (std::size_t j = 0; j < dk; ++j) A(j, j) += add;
      M1 = right_solve(Cvk, A);
    }  // else every d_i = 0: M^[1] = 0 (NW)
  } else if (pol.kind == SingularKind::pinv) {
    M1 = transpose(ll_detail::svd_solve(sv, r, dk, transpose(Cvk)));  // C_vk C_kk^+ (C_kk symmetric)
  } else {
    M1 = right_solve(Cvk, Ckk);
  }
  out.theta = Matrix<S>(dv, 1 + dk);
  out.output = m.vbar;
  for (std::size_t c = 0; c < dv; ++c)
    for (std::size_t j = 0; j < dk; ++j) {
      const S qk = q[j] - m.kbar[j];
      muladd(out.output[c], M1(c, j), qk);
      out.theta(c, 1 + j) = M1(c, j);
    }
  for (std::size_t c = 0; c < dv; ++c) out.theta(c, 0) = out.output[c];
  return out;
}
template <class S>
LocalFit<S> local_linear_moment(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S* q, const Similarity& sim,
                                const SingularPolicy& pol) {
  ll_detail::check_prefix(K, V, t, q, "local_linear_moment");
  return local_linear_moment_weights(K, V, t, q, local_weights(sim, K, t, q), pol);
}

// The five accumulators of F12 after the stream (scaled by e^{-m}, m the final running max).
template <class S> struct StreamAccumulators {
  S sigma0 = S(0);             // sum e^{z_i - m}
  Vector<S> sigma_d, sigma_v;  // sum e^{z_i - m} d_i (D_k), sum e^{z_i - m} v_i (D_v)
  Matrix<S> Sigma_dd, Sigma_vd;  // sum e^{z_i - m} d_i d_i^T (D_k x D_k), sum e^{z_i - m} v_i d_i^T (D_v x D_k)
  S m = S(0);                  // running max of the logits
};

// A001-F12-LOCALLINEAR-STREAM: one pass over keys i < t with logits z_i = logit(i) and a running max; when
// the max grows, ALL five accumulators are rescaled by e^{m - m'} (as in F10); centred at q. The first key
// is special-cased (no e^{-inf - (-inf)}).
template <class S, class Logit>
StreamAccumulators<S> local_linear_stream_accumulate(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S* q, Logit&& logit) {
  const std::size_t dk = K.cols, dv = V.cols;
  StreamAccumulators<S> a;
  a.sigma_d.assign(dk, S(0));
  a.sigma_v.assign(dv, S(0));
  a.Sigma_dd = Matrix<S>(dk, dk);
  a.Sigma_vd = Matrix<S>(dv, dk);
  Vector<S> d(dk);
  S p, alpha;
  for (std::size_t i = 0; i < t; ++i) {
    const S z = logit(i);
    require(is_finite(z), "local_linear_stream: non-finite logit of key " + ll_detail::pos(i));
    if (i == 0) {
      a.m = z;
      p = S(1);
    } else if (z > a.m) {
      alpha = ll_detail::exp_(S(a.m - z));
      scale_inplace(a.sigma0, alpha);
      for (S& x : a.sigma_d) scale_inplace(x, alpha);
      for (S& x : a.sigma_v) scale_inplace(x, alpha);
      for (S& x : a.Sigma_dd.a) scale_inplace(x, alpha);
      for (S& x : a.Sigma_vd.a) scale_inplace(x, alpha);
      a.m = z;
      p = S(1);
    } else {
      p = ll_detail::exp_(S(z - a.m));
    }
    for (std::size_t j = 0; j < dk; ++j) d[j] = K(i, j) - q[j];
    a.sigma0 += p;
    for (std::size_t j = 0; j < dk; ++j) muladd(a.sigma_d[j], p, d[j]);
    for (std::size_t c = 0; c < dv; ++c) muladd(a.sigma_v[c], p, V(i, c));
    add_outer(a.Sigma_dd, p, d.data(), d.data());
    add_outer(a.Sigma_vd, p, V.row(i), d.data());
  }
  return a;
}

// A001-F12-LOCALLINEAR-STREAM: Theta from the accumulators, X^T W X ~ [[sigma0, sigma_d^T], [sigma_d,
// Sigma_dd]], V^T W X ~ [sigma_v, Sigma_vd] (common factor e^m), one (1 + D_k) solve: Gaussian elimination
// (throw policy: std::invalid_argument naming t when the Gram has numerical rank < 1 + D_k); pinv: the
// Gram's pseudo-inverse (= the minimum-norm solution of the direct PINV reading; the rank threshold acts
// on the Gram, whose singular values are those of W^{1/2} X squared: rank_tol^2 if given, floored at
// default_rank_tol<S>); ridge: + mu diag(0, I), mu = mu_rel tr(Sigma_dd) / D_k (0: the NW output).
template <class S>
LocalFit<S> local_linear_solve_accumulators(const StreamAccumulators<S>& a, std::size_t t, const SingularPolicy& pol) {
  ll_detail::require_policy<S>(pol, "local_linear_stream");
  const std::size_t dk = a.sigma_d.size(), dv = a.sigma_v.size(), n = 1 + dk;
  Matrix<S> G(n, n), B(dv, n);
  G(0, 0) = a.sigma0;
  for (std::size_t j = 0; j < dk; ++j) {
    G(0, 1 + j) = a.sigma_d[j];
    G(1 + j, 0) = a.sigma_d[j];
    for (std::size_t l = 0; l < dk; ++l) G(1 + j, 1 + l) = a.Sigma_dd(j, l);
  }
  for (std::size_t c = 0; c < dv; ++c) {
    B(c, 0) = a.sigma_v[c];
    for (std::size_t j = 0; j < dk; ++j) B(c, 1 + j) = a.Sigma_vd(c, j);
  }
  LocalFit<S> f;
  if (pol.kind == SingularKind::ridge) {
    S tr(0);
    for (std::size_t j = 0; j < dk; ++j) tr += a.Sigma_dd(j, j);
    f.mu = S(S(pol.mu_rel) * tr / S(static_cast<double>(dk)));
    if (!(f.mu > 0)) {
      f.theta = Matrix<S>(dv, n);
      f.output.assign(dv, S(0));
      for (std::size_t c = 0; c < dv; ++c) {
        f.output[c] = a.sigma_v[c] / a.sigma0;
        f.theta(c, 0) = f.output[c];
      }
      f.rank = 1;
      f.singular = true;
      f.cond = std::numeric_limits<double>::infinity();
      return f;
    }
    for (std::size_t j = 1; j < n; ++j) G(j, j) += f.mu;
    const Matrix<S> theta = right_solve(B, G);
    LocalFit<S> g = ll_detail::fit_from_theta_t(transpose(theta));
    g.mu = f.mu;
    g.rank = n;
    return g;
  }
  S tol = pol.rank_tol > 0 ? S(S(pol.rank_tol) * S(pol.rank_tol)) : S(0);
  const S floor_tol = default_rank_tol<S>(n);
  if (tol < floor_tol) tol = floor_tol;
  const Svd<S> sv = ll_detail::svd_at(G, t, "local_linear_stream");
  const std::size_t r = numerical_rank(sv.sigma, tol);
  if (pol.kind == SingularKind::throw_if_singular && r < n)
    throw std::invalid_argument("local_linear_stream: the local system X^T W X is singular at t = " + std::to_string(t) + " (rank " +
                                std::to_string(r) + " < " + std::to_string(n) + ")");
  Matrix<S> theta;
  if (pol.kind == SingularKind::pinv) {
    theta = transpose(ll_detail::svd_solve(sv, r, n, transpose(B)));  // B G^+ (G symmetric)
  } else {
    theta = right_solve(B, G);
  }
  f = ll_detail::fit_from_theta_t(transpose(theta));
  f.rank = r;
  f.singular = r < n;
  f.cond = ll_detail::cond_of(sv.sigma, n, n);
  return f;
}
template <class S>
LocalFit<S> local_linear_stream(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S* q, const Similarity& sim,
                                const SingularPolicy& pol) {
  ll_detail::check_prefix(K, V, t, q, "local_linear_stream");
  const auto a = local_linear_stream_accumulate(K, V, t, q, [&](std::size_t i) { return local_log_similarity(sim, K.row(i), q, K.cols); });
  return local_linear_solve_accumulators(a, t, pol);
}
// The same with explicit log-weights l_i (i < t) in place of a similarity.
template <class S>
LocalFit<S> local_linear_stream_logw(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S* q, const Vector<S>& logw,
                                     const SingularPolicy& pol) {
  ll_detail::check_prefix(K, V, t, q, "local_linear_stream");
  require(logw.size() == t, "local_linear_stream: need one log-weight per prefix row");
  const auto a = local_linear_stream_accumulate(K, V, t, q, [&](std::size_t i) { return logw[i]; });
  return local_linear_solve_accumulators(a, t, pol);
}

// ---- causal, whole sequence -----------------------------------------------------------------------------

// Per-query diagnostics of a causal run (index t - 1 for the 1-based query t).
struct LocalDiagnostics {
  std::vector<std::size_t> rank;
  std::vector<bool> singular;
  std::vector<double> cond;
};

enum class LocalLinearForm { direct, stream, moment };

// A001-LOCAL-LINEAR-ATTN, causal: y_t = m_{1,t}(q_t) over keys i <= t, t = 1..T (T x D_v), by the direct form
// (52) (SVD of W^{1/2} X, default), the streaming form F12, or the moment form; similarity and singular-system
// policy as declared. diag (optional) receives rank / singular flag / condition per t.
template <class S>
Matrix<S> local_linear_attention(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Similarity& sim,
                                 const SingularPolicy& pol, LocalDiagnostics* diag = nullptr,
                                 LocalLinearForm form = LocalLinearForm::direct) {
  require(Q.rows == K.rows && K.rows == V.rows, "local_linear_attention: Q, K, V must have the same number of rows");
  require(Q.cols == K.cols, "local_linear_attention: queries and keys differ in width");
  ll_detail::require_finite(Q, Q.rows, "local_linear_attention", "Q");
  Matrix<S> Y(Q.rows, V.cols);
  if (diag) *diag = LocalDiagnostics{};
  for (std::size_t t = 1; t <= Q.rows; ++t) {
    const S* q = Q.row(t - 1);
    LocalFit<S> f;
    switch (form) {
      case LocalLinearForm::direct: f = local_linear_direct(K, V, t, q, sim, pol); break;
      case LocalLinearForm::stream: f = local_linear_stream(K, V, t, q, sim, pol); break;
      case LocalLinearForm::moment: f = local_linear_moment(K, V, t, q, sim, pol); break;
    }
    for (std::size_t c = 0; c < V.cols; ++c) Y(t - 1, c) = f.output[c];
    if (diag) {
      diag->rank.push_back(f.rank);
      diag->singular.push_back(f.singular);
      diag->cond.push_back(f.cond);
    }
  }
  return Y;
}

// A001-LOCAL-POLY-GENERAL-P, causal: y_t = m_{p,t}(q_t), t = 1..T.
template <class S>
Matrix<S> local_poly_attention(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Similarity& sim, int p,
                               const SingularPolicy& pol, LocalDiagnostics* diag = nullptr) {
  require(Q.rows == K.rows && K.rows == V.rows, "local_poly_attention: Q, K, V must have the same number of rows");
  require(Q.cols == K.cols, "local_poly_attention: queries and keys differ in width");
  ll_detail::require_finite(Q, Q.rows, "local_poly_attention", "Q");
  Matrix<S> Y(Q.rows, V.cols);
  if (diag) *diag = LocalDiagnostics{};
  for (std::size_t t = 1; t <= Q.rows; ++t) {
    const LocalFit<S> f = local_poly_fit(K, V, t, Q.row(t - 1), sim, p, pol);
    for (std::size_t c = 0; c < V.cols; ++c) Y(t - 1, c) = f.output[c];
    if (diag) {
      diag->rank.push_back(f.rank);
      diag->singular.push_back(f.singular);
      diag->cond.push_back(f.cond);
    }
  }
  return Y;
}

// ---- cost harness (A001-LOCAL-LINEAR-COST): the direct form, phase by phase, normal equations ---------------
// Each phase is a separate function so that operation counts and live-scalar peaks (Counted) can be taken per
// quantity. Together they compute y_t of (52) for every t with Gaussian elimination (exact-solve reading).

// All logits z_ti = log s(k_i, q_t), i <= t (row t - 1 has t entries): the similarity evaluations.
template <class S> std::vector<Vector<S>> ll_all_logits(const Matrix<S>& Q, const Matrix<S>& K, const Similarity& sim) {
  require(Q.rows == K.rows && Q.cols == K.cols, "ll_all_logits: shape mismatch");
  std::vector<Vector<S>> Z(Q.rows);
  for (std::size_t t = 0; t < Q.rows; ++t) {
    Z[t].resize(t + 1);
    for (std::size_t i = 0; i <= t; ++i) Z[t][i] = local_log_similarity(sim, K.row(i), Q.row(t), K.cols);
  }
  return Z;
}
// Max-subtracted weights of every row (exp evaluations).
template <class S> std::vector<Vector<S>> ll_all_weights(const std::vector<Vector<S>>& Z) {
  std::vector<Vector<S>> W(Z.size());
  for (std::size_t t = 0; t < Z.size(); ++t) W[t] = max_subtracted_weights(Z[t]);
  return W;
}
// Materialise every prefix design X_t (t x (1 + D_k), rows [1, (k_i - q_t)^T]).
template <class S> std::vector<Matrix<S>> ll_materialize_designs(const Matrix<S>& Q, const Matrix<S>& K) {
  require(Q.rows == K.rows && Q.cols == K.cols, "ll_materialize_designs: shape mismatch");
  std::vector<Matrix<S>> X(Q.rows);
  for (std::size_t t = 0; t < Q.rows; ++t) {
    X[t] = Matrix<S>(t + 1, 1 + K.cols);
    for (std::size_t i = 0; i <= t; ++i) {
      X[t](i, 0) = S(1);
      for (std::size_t j = 0; j < K.cols; ++j) X[t](i, 1 + j) = K(i, j) - Q(t, j);
    }
  }
  return X;
}
// Every X_t^T W_t X_t ((1 + D_k) x (1 + D_k)), plain triple loop.
template <class S> std::vector<Matrix<S>> ll_form_grams(const std::vector<Matrix<S>>& X, const std::vector<Vector<S>>& W) {
  std::vector<Matrix<S>> G(X.size());
  for (std::size_t t = 0; t < X.size(); ++t) {
    const std::size_t n = X[t].cols;
    G[t] = Matrix<S>(n, n);
    S wx;
    for (std::size_t i = 0; i < X[t].rows; ++i)
      for (std::size_t a = 0; a < n; ++a) {
        mul_into(wx, W[t][i], X[t](i, a));
        for (std::size_t b = 0; b < n; ++b) muladd(G[t](a, b), wx, X[t](i, b));
      }
  }
  return G;
}
// Every V_t^T W_t X_t (D_v x (1 + D_k)).
template <class S>
std::vector<Matrix<S>> ll_form_cross(const std::vector<Matrix<S>>& X, const std::vector<Vector<S>>& W, const Matrix<S>& V) {
  std::vector<Matrix<S>> B(X.size());
  for (std::size_t t = 0; t < X.size(); ++t) {
    const std::size_t n = X[t].cols;
    B[t] = Matrix<S>(V.cols, n);
    S wv;
    for (std::size_t i = 0; i < X[t].rows; ++i)
      for (std::size_t c = 0; c < V.cols; ++c) {
        mul_into(wv, W[t][i], V(i, c));
        for (std::size_t b = 0; b < n; ++b) muladd(B[t](c, b), wv, X[t](i, b));
      }
  }
  return B;
}
// Add the slope-only ridge mu diag(0, I), mu = mu_rel tr(G(1:, 1:)) / D_k, to a local Gram in place (mu_rel = 0:
// nothing; the RIDGE reading, used by the cost harness so that every t, also t <= D_k, has a solvable system).
template <class S> void ll_add_slope_ridge(Matrix<S>& G, double mu_rel) {
  if (mu_rel == 0) return;
  require(std::isfinite(mu_rel) && mu_rel > 0, "ll_add_slope_ridge: mu_rel must be >= 0");
  S tr(0);
  for (std::size_t j = 1; j < G.rows; ++j) tr += G(j, j);
  const S mu = S(S(mu_rel) * tr / S(static_cast<double>(G.rows - 1)));
  for (std::size_t j = 1; j < G.rows; ++j) G(j, j) += mu;
}
// Solve the T systems Theta_t = B_t (G_t + mu diag(0, I))^{-1} (Gaussian elimination; mu_rel = 0: exact solve) and
// return the intercepts (T x D_v). A zero pivot is an error naming t.
template <class S>
Matrix<S> ll_solve_all(const std::vector<Matrix<S>>& G, const std::vector<Matrix<S>>& B, double mu_rel = 0) {
  require(G.size() == B.size() && !G.empty(), "ll_solve_all: need as many Grams as cross moments");
  Matrix<S> Y(G.size(), B[0].rows);
  for (std::size_t t = 0; t < G.size(); ++t) {
    Matrix<S> A = G[t];
    ll_add_slope_ridge(A, mu_rel);
    Matrix<S> theta;
    try {
      theta = right_solve(B[t], A);
    } catch (const std::invalid_argument&) {
      throw std::invalid_argument("ll_solve_all: the local system X^T W X is singular at t = " + std::to_string(t + 1));
    }
    for (std::size_t c = 0; c < theta.rows; ++c) Y(t, c) = theta(c, 0);
  }
  return Y;
}
// The streaming form F12 for every t, solved by Gaussian elimination on the assembled (1 + D_k) Gram (no SVD, so
// that the operation counts are exact and data-independent apart from pivoting), with the slope-only ridge of
// ll_add_slope_ridge (mu_rel = 0: exact solve): the cost harness's form (b). A zero pivot is an error naming t.
template <class S>
Matrix<S> local_linear_attention_stream_ge(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Similarity& sim,
                                           double mu_rel = 0) {
  require(Q.rows == K.rows && K.rows == V.rows && Q.cols == K.cols, "local_linear_attention_stream_ge: shape mismatch");
  const std::size_t dk = K.cols, dv = V.cols, n = 1 + dk;
  Matrix<S> Y(Q.rows, dv);
  for (std::size_t t = 1; t <= Q.rows; ++t) {
    const S* q = Q.row(t - 1);
    const auto a = local_linear_stream_accumulate(K, V, t, q, [&](std::size_t i) { return local_log_similarity(sim, K.row(i), q, dk); });
    Matrix<S> G(n, n), B(dv, n);
    G(0, 0) = a.sigma0;
    for (std::size_t j = 0; j < dk; ++j) {
      G(0, 1 + j) = a.sigma_d[j];
      G(1 + j, 0) = a.sigma_d[j];
      for (std::size_t l = 0; l < dk; ++l) G(1 + j, 1 + l) = a.Sigma_dd(j, l);
    }
    for (std::size_t c = 0; c < dv; ++c) {
      B(c, 0) = a.sigma_v[c];
      for (std::size_t j = 0; j < dk; ++j) B(c, 1 + j) = a.Sigma_vd(c, j);
    }
    ll_add_slope_ridge(G, mu_rel);
    Matrix<S> theta;
    try {
      theta = right_solve(B, G);
    } catch (const std::invalid_argument&) {
      throw std::invalid_argument("local_linear_attention_stream_ge: the local system X^T W X is singular at t = " + std::to_string(t));
    }
    for (std::size_t c = 0; c < dv; ++c) Y(t - 1, c) = theta(c, 0);
  }
  return Y;
}

}  // namespace recall::ref
