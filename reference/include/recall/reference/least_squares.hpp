// Least squares and the test-time regression framework of seed 001 (§3 Eqs. 8-9, §4 Vignette 1
// Eqs. 10-12, "Nonlinear associative memory", "Efficient computation"), written from the definitions:
// the master objective J_t(m; gamma) of Eq. (8) for any function class with the gradients of its linear
// and feature classes, its min-norm linear minimiser, the LS objective (10), the LS memory (11) by the
// SVD pseudo-inverse (reference) and by its over-/under-determined branches (secondary forms), the
// feature-space LS memory, the prefix-scan + batched-solve fast form F05, and the layer plumbing of the
// recipe (heads, shared key/value groups, non-causal masks).
//
// Plain loops, templated on the scalar; canonical memory M (d_v x d_k, read-out M q), tokens are rows
// (K_t = first t rows of K). t is 1-based (the prefix length); storage is 0-based; messages are 1-based.
// Rank decisions use a declared threshold: sigma_i > rel_tol * sigma_max (default ref::default_rank_tol:
// 10^-(d-10) at d MP digits, 10 n eps in float/double); Cholesky pivots use the same relative tolerance
// on the Gram matrix (pivot <= tol * max diagonal: the system is declared singular).
#pragma once

#include "recall/reference/feature_maps.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/matrix.hpp"
#include "recall/reference/regression_rules.hpp"
#include "recall/reference/svd.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace recall::ref {

namespace detail_ls {
template <class S> bool finite(const S& x) {
  using std::isfinite;
  using boost::multiprecision::isfinite;
  return static_cast<bool>(isfinite(x));
}
template <class S> void require_finite(const Matrix<S>& X, const std::string& who, const char* name) {
  for (std::size_t i = 0; i < X.rows; ++i)
    for (std::size_t j = 0; j < X.cols; ++j)
      require(finite(X(i, j)), who + ": entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) + ") of " + name + " is not finite");
}
template <class S> void require_finite(const Vector<S>& x, const std::string& who, const char* name) {
  for (std::size_t i = 0; i < x.size(); ++i) require(finite(x[i]), who + ": entry " + std::to_string(i + 1) + " of " + name + " is not finite");
}
// K (>= t rows) and V (same rows) with t in [1, rows]
template <class S> void require_kv(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const std::string& who) {
  require(K.rows == V.rows, who + ": K and V must have the same number of tokens (rows)");
  require(t >= 1 && t <= K.rows, who + ": prefix length t = " + std::to_string(t) + " must be in [1, " + std::to_string(K.rows) + "]");
  require(K.cols >= 1 && V.cols >= 1, who + ": K and V need at least one column");
  require_finite(K, who, "K");
  require_finite(V, who, "V");
}
// weights gamma_1..gamma_t: finite and >= 0 (Eq. 8)
template <class S> void require_weights(const Vector<S>* gamma, std::size_t t, const std::string& who) {
  if (!gamma) return;
  require(gamma->size() >= t, who + ": gamma has " + std::to_string(gamma->size()) + " entries, needs t = " + std::to_string(t));
  for (std::size_t i = 0; i < t; ++i) {
    require(finite((*gamma)[i]), who + ": weight gamma_" + std::to_string(i + 1) + " is not finite");
    require(!((*gamma)[i] < 0), who + ": weight gamma_" + std::to_string(i + 1) + " is negative (Eq. 8 needs gamma_i >= 0)");
  }
}
template <class S> S sqrt_(const S& x) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  return sqrt(x);
}
template <class S> Matrix<S> head_rows(const Matrix<S>& X, std::size_t t) {
  Matrix<S> out(t, X.cols);
  for (std::size_t i = 0; i < t * X.cols; ++i) out.a[i] = X.a[i];
  return out;
}
}  // namespace detail_ls

// ---- A001-TTR-MEMORIZE: the master objective (Eq. 8) ------------------------------------------------

// A001-TTR-MEMORIZE Eq. (8): J_t(m; gamma) = 1/2 sum_{i<=t} gamma_i ||v_i - m(k_i)||_2^2 for any function
// class: m(const S* k) returns m(k_i) (length d_v); gamma == nullptr means all weights 1 (pass gate-product
// weights gamma_i^(t) as values). The sum is accumulated term by term in S.
template <class S, class Fn> S master_objective(const Fn& m, const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const Vector<S>* gamma = nullptr) {
  const std::string who = "master_objective";
  detail_ls::require_kv(K, V, t, who);
  detail_ls::require_weights(gamma, t, who);
  S J(0);
  for (std::size_t i = 0; i < t; ++i) {
    const Vector<S> mk = m(K.row(i));
    require(mk.size() == V.cols, who + ": m(k_" + std::to_string(i + 1) + ") has length " + std::to_string(mk.size()) + ", d_v = " + std::to_string(V.cols));
    S e(0);
    for (std::size_t c = 0; c < V.cols; ++c) {
      const S d = V(i, c) - mk[c];
      muladd(e, d, d);
    }
    if (gamma) e *= (*gamma)[i];
    J += e;
  }
  return J / S(2);
}

// A001-TTR-MEMORIZE, linear class m(k) = M k (M: d_v x d_k).
template <class S> S master_objective_linear(const Matrix<S>& M, const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const Vector<S>* gamma = nullptr) {
  require(M.rows == V.cols && M.cols == K.cols, "master_objective_linear: M must be d_v x d_k");
  detail_ls::require_finite(M, "master_objective_linear", "M");
  return master_objective([&](const S* k) { return matvec(M, k); }, K, V, t, gamma);
}

// A001-TTR-MEMORIZE, gradient of the linear class: grad_M J_t = sum_{i<=t} gamma_i (M k_i - v_i) k_i^T.
template <class S> Matrix<S> master_objective_linear_grad(const Matrix<S>& M, const Matrix<S>& K, const Matrix<S>& V, std::size_t t,
                                                          const Vector<S>* gamma = nullptr) {
  const std::string who = "master_objective_linear_grad";
  detail_ls::require_kv(K, V, t, who);
  detail_ls::require_weights(gamma, t, who);
  require(M.rows == V.cols && M.cols == K.cols, who + ": M must be d_v x d_k");
  detail_ls::require_finite(M, who, "M");
  Matrix<S> G(M.rows, M.cols);
  for (std::size_t i = 0; i < t; ++i) {
    Vector<S> r = matvec(M, K.row(i));
    for (std::size_t c = 0; c < V.cols; ++c) r[c] -= V(i, c);
    add_outer(G, gamma ? (*gamma)[i] : S(1), r.data(), K.row(i));
  }
  return G;
}

// A001-TTR-MEMORIZE, feature class m(k) = M phi(k) (M: d_v x D_phi); phi is applied to each raw key
// (1-based position i for position-dependent maps).
template <class S> S master_objective_feature(const Matrix<S>& M, const FeatureMap& f, const Matrix<S>& K, const Matrix<S>& V, std::size_t t,
                                              const Vector<S>* gamma = nullptr) {
  require(M.rows == V.cols && M.cols == feature_dim(f, K.cols), "master_objective_feature: M must be d_v x D_phi");
  detail_ls::require_finite(M, "master_objective_feature", "M");
  // row i of K is recognised by its address (master_objective passes K.row(i))
  return master_objective([&](const S* k) {
    const std::size_t i = static_cast<std::size_t>(k - K.a.data()) / K.cols;
    return matvec(M, apply_feature_map(f, k, K.cols, i + 1).data());
  }, K, V, t, gamma);
}

// A001-TTR-MEMORIZE, gradient of the feature class: sum_{i<=t} gamma_i (M phi(k_i) - v_i) phi(k_i)^T.
template <class S> Matrix<S> master_objective_feature_grad(const Matrix<S>& M, const FeatureMap& f, const Matrix<S>& K, const Matrix<S>& V,
                                                           std::size_t t, const Vector<S>* gamma = nullptr) {
  const std::string who = "master_objective_feature_grad";
  detail_ls::require_kv(K, V, t, who);
  detail_ls::require_weights(gamma, t, who);
  require(M.rows == V.cols && M.cols == feature_dim(f, K.cols), who + ": M must be d_v x D_phi");
  Matrix<S> G(M.rows, M.cols);
  for (std::size_t i = 0; i < t; ++i) {
    const Vector<S> p = apply_feature_map(f, K.row(i), K.cols, i + 1);
    Vector<S> r = matvec(M, p.data());
    for (std::size_t c = 0; c < V.cols; ++c) r[c] -= V(i, c);
    add_outer(G, gamma ? (*gamma)[i] : S(1), r.data(), p.data());
  }
  return G;
}

// A001-TTR-MEMORIZE / A001-TTR-PERFECT-RECALL: the minimum-Frobenius-norm minimiser of J_t(M; gamma) over
// the linear class, M = V_t^T Gamma^{1/2} ((Gamma^{1/2} K_t)^+)^T (rows scaled by sqrt(gamma_i); a zero
// weight removes its pair). rank_used receives the numerical rank of Gamma^{1/2} K_t. Hazard: the singular vectors
// are accurate only normwise, so weights spanning 10^s need about s/2 extra working digits (the caller's).
template <class S> Matrix<S> master_minimiser_linear(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const Vector<S>* gamma,
                                                     const S& rel_tol, std::size_t* rank_used = nullptr) {
  const std::string who = "master_minimiser_linear";
  detail_ls::require_kv(K, V, t, who);
  detail_ls::require_weights(gamma, t, who);
  Matrix<S> Kw(t, K.cols), Vw(t, V.cols);
  for (std::size_t i = 0; i < t; ++i) {
    const S w = gamma ? detail_ls::sqrt_((*gamma)[i]) : S(1);
    for (std::size_t j = 0; j < K.cols; ++j) Kw(i, j) = w * K(i, j);
    for (std::size_t c = 0; c < V.cols; ++c) Vw(i, c) = w * V(i, c);
  }
  const Matrix<S> P = pinv(Kw, rel_tol, rank_used);  // d_k x t
  return matmul(transpose(Vw), transpose(P));
}

// ---- A001-LS-OBJECTIVE, A001-LS-CLOSED-FORM ----------------------------------------------------------

// A001-LS-OBJECTIVE Eq. (10), matrix form: L_t(M) = 1/2 ||V_t^T - M K_t^T||_F^2.
template <class S> S ls_objective(const Matrix<S>& M, const Matrix<S>& K, const Matrix<S>& V, std::size_t t) {
  const std::string who = "ls_objective";
  detail_ls::require_kv(K, V, t, who);
  require(M.rows == V.cols && M.cols == K.cols, who + ": M must be d_v x d_k");
  detail_ls::require_finite(M, who, "M");
  const Matrix<S> Kt = detail_ls::head_rows(K, t), Vt = detail_ls::head_rows(V, t);
  const Matrix<S> MKt = matmul(M, transpose(Kt));  // d_v x t
  const S r = frob_diff(transpose(Vt), MKt);
  return r * r / S(2);
}

// A001-LS-CLOSED-FORM (C3): key Gram S_t = K_t^T K_t = sum_{i<=t} k_i k_i^T.
template <class S> Matrix<S> key_gram(const Matrix<S>& K, std::size_t t) {
  require(t <= K.rows, "key_gram: t exceeds the number of keys");
  Matrix<S> G(K.cols, K.cols);
  for (std::size_t i = 0; i < t; ++i) add_outer(G, K.row(i), K.row(i));
  return G;
}
// A001-LS-CLOSED-FORM (C3): cross moment R_t = V_t^T K_t = sum_{i<=t} v_i k_i^T (the linear-attention state).
template <class S> Matrix<S> cross_moment(const Matrix<S>& K, const Matrix<S>& V, std::size_t t) {
  require(t <= K.rows && K.rows == V.rows, "cross_moment: t exceeds the sequence or K, V differ in rows");
  Matrix<S> R(V.cols, K.cols);
  for (std::size_t i = 0; i < t; ++i) add_outer(R, V.row(i), K.row(i));
  return R;
}

// A001-LS-CLOSED-FORM Eq. (11), general form (the reference): M_t = V_t^T (K_t^+)^T, K_t^+ by the SVD with
// the declared rank threshold sigma_i > rel_tol sigma_max; rank_used receives the rank kept.
template <class S> Matrix<S> ls_state_pinv(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S& rel_tol, std::size_t* rank_used = nullptr) {
  detail_ls::require_kv(K, V, t, "ls_state_pinv");
  const Matrix<S> P = pinv(detail_ls::head_rows(K, t), rel_tol, rank_used);  // d_k x t
  return matmul(transpose(detail_ls::head_rows(V, t)), transpose(P));
}
template <class S> Matrix<S> ls_state_pinv(const Matrix<S>& K, const Matrix<S>& V, std::size_t t) {
  return ls_state_pinv(K, V, t, default_rank_tol<S>(std::max(t, K.cols)));
}

// A001-LS-CLOSED-FORM / F05 solves: lower Cholesky factor L (L L^T = A) of a symmetric positive definite A;
// a pivot <= pivot_tol * max_j A_jj (or a non-positive diagonal) declares A singular: std::invalid_argument naming `name` and the column.
template <class S> Matrix<S> cholesky_lower(const Matrix<S>& A, const S& pivot_tol, const std::string& who, const char* name) {
  require(A.rows == A.cols, who + ": " + name + " must be square");
  detail_ls::require_finite(A, who, name);
  const std::size_t n = A.rows;
  S dmax(0);
  for (std::size_t j = 0; j < n; ++j)
    if (A(j, j) > dmax) dmax = A(j, j);
  Matrix<S> L(n, n);
  for (std::size_t j = 0; j < n; ++j) {
    S s = A(j, j);
    for (std::size_t k = 0; k < j; ++k) s -= L(j, k) * L(j, k);
    require(s > pivot_tol * dmax && s > 0, who + ": " + name + " is singular to the declared tolerance (Cholesky pivot " + std::to_string(j + 1) +
                                               " <= tol * max diagonal)");
    L(j, j) = detail_ls::sqrt_(s);
    for (std::size_t i = j + 1; i < n; ++i) {
      S u = A(i, j);
      for (std::size_t k = 0; k < j; ++k) u -= L(i, k) * L(j, k);
      L(i, j) = u / L(j, j);
    }
  }
  return L;
}
// A001-LS-CLOSED-FORM / F05 solves: x = (L L^T)^{-1} b (forward then backward substitution).
template <class S> Vector<S> cholesky_solve(const Matrix<S>& L, Vector<S> b) {
  const std::size_t n = L.rows;
  require(b.size() == n, "cholesky_solve: right-hand side has the wrong length");
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < i; ++k) b[i] -= L(i, k) * b[k];
    b[i] /= L(i, i);
  }
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t k = i + 1; k < n; ++k) b[i] -= L(k, i) * b[k];
    b[i] /= L(i, i);
  }
  return b;
}

// A001-LS-CLOSED-FORM Eq. (11) overdetermined branch (rank K_t = d_k), output form: y = R_t z with S_t z = q (Cholesky).
template <class S> Vector<S> ls_output_overdetermined(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S* q,
                                                     const S& pivot_tol) {
  const std::string who = "ls_output_overdetermined";
  detail_ls::require_kv(K, V, t, who);
  const Matrix<S> L = cholesky_lower(key_gram(K, t), pivot_tol, who, "S_t = K_t^T K_t");
  const Vector<S> z = cholesky_solve(L, Vector<S>(q, q + K.cols));
  return matvec(cross_moment(K, V, t), z.data());
}
// A001-LS-CLOSED-FORM Eq. (11) overdetermined branch, state form: M_t = V_t^T K_t (K_t^T K_t)^{-1} = R_t S_t^{-1}
// (row r of M solves S_t m_r = (row r of R_t); S_t symmetric).
template <class S> Matrix<S> ls_state_overdetermined(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S& pivot_tol) {
  const std::string who = "ls_state_overdetermined";
  detail_ls::require_kv(K, V, t, who);
  const Matrix<S> L = cholesky_lower(key_gram(K, t), pivot_tol, who, "S_t = K_t^T K_t");
  const Matrix<S> R = cross_moment(K, V, t);
  Matrix<S> M(R.rows, R.cols);
  for (std::size_t r = 0; r < R.rows; ++r) {
    const Vector<S> m = cholesky_solve(L, Vector<S>(R.row(r), R.row(r) + R.cols));
    for (std::size_t j = 0; j < R.cols; ++j) M(r, j) = m[j];
  }
  return M;
}
// A001-LS-CLOSED-FORM Eq. (11) underdetermined branch (rank K_t = t), output form: y = V_t^T w with (K_t K_t^T) w = K_t q.
template <class S> Vector<S> ls_output_underdetermined(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S* q,
                                                      const S& pivot_tol) {
  const std::string who = "ls_output_underdetermined";
  detail_ls::require_kv(K, V, t, who);
  const Matrix<S> Kt = detail_ls::head_rows(K, t);
  const Matrix<S> L = cholesky_lower(matmul(Kt, transpose(Kt)), pivot_tol, who, "K_t K_t^T");
  const Vector<S> w = cholesky_solve(L, matvec(Kt, q));
  Vector<S> y(V.cols, S(0));
  for (std::size_t i = 0; i < t; ++i)
    for (std::size_t c = 0; c < V.cols; ++c) muladd(y[c], w[i], V(i, c));
  return y;
}
// A001-LS-CLOSED-FORM Eq. (11) underdetermined branch, state form: M_t = V_t^T (K_t K_t^T)^{-1} K_t.
template <class S> Matrix<S> ls_state_underdetermined(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S& pivot_tol) {
  const std::string who = "ls_state_underdetermined";
  detail_ls::require_kv(K, V, t, who);
  const Matrix<S> Kt = detail_ls::head_rows(K, t);
  const Matrix<S> L = cholesky_lower(matmul(Kt, transpose(Kt)), pivot_tol, who, "K_t K_t^T");
  // W = (K K^T)^{-1} K_t column by column (t x d_k), then M = V_t^T W
  Matrix<S> W(t, K.cols);
  for (std::size_t j = 0; j < K.cols; ++j) {
    Vector<S> col(t);
    for (std::size_t i = 0; i < t; ++i) col[i] = Kt(i, j);
    col = cholesky_solve(L, col);
    for (std::size_t i = 0; i < t; ++i) W(i, j) = col[i];
  }
  return matmul(transpose(detail_ls::head_rows(V, t)), W);
}

// A001-LINATTN-AS-REGRESSION Eq. (12): the overdetermined LS read-out with the key Gram replaced by a given
// matrix G, y = R z with G z = q (G = S_t: Eq. 11; G = I: linear attention, Eq. 2). G must be nonsingular.
template <class S> Vector<S> ls_output_with_gram(const Matrix<S>& R, const Matrix<S>& G, const S* q) {
  require(G.rows == G.cols && G.rows == R.cols, "ls_output_with_gram: G must be d_k x d_k with d_k = columns of R");
  detail_ls::require_finite(G, "ls_output_with_gram", "G");
  Matrix<S> b(G.rows, 1);
  for (std::size_t j = 0; j < G.rows; ++j) b(j, 0) = q[j];
  const Matrix<S> z = solve(G, b);  // Gaussian elimination with partial pivoting; a zero pivot is an error
  return matvec(R, z.a.data());
}

// ---- A001-FEATURE-LS ---------------------------------------------------------------------------------

// A001-FEATURE-LS (C1): Phi_t = [phi(k_1) ... phi(k_t)]^T (t x D_phi), 1-based positions for position-dependent maps.
template <class S> Matrix<S> feature_rows(const FeatureMap& f, const Matrix<S>& K, std::size_t t) {
  require(t <= K.rows, "feature_rows: t exceeds the number of keys");
  const std::size_t D = feature_dim(f, K.cols);
  Matrix<S> P(t, D);
  for (std::size_t i = 0; i < t; ++i) {
    const Vector<S> p = apply_feature_map(f, K.row(i), K.cols, i + 1);
    require(p.size() == D, "feature_rows: feature map returned the wrong width");
    for (std::size_t j = 0; j < D; ++j) P(i, j) = p[j];
  }
  return P;
}
// A001-FEATURE-LS: M_t = V_t^T (Phi_t^+)^T (d_v x D_phi), the min-norm LS memory in feature space, by the SVD
// with the declared rank threshold; the read-out is y = M_t phi(q).
template <class S> Matrix<S> feature_ls_state(const FeatureMap& f, const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S& rel_tol,
                                              std::size_t* rank_used = nullptr) {
  detail_ls::require_kv(K, V, t, "feature_ls_state");
  const Matrix<S> Phi = feature_rows(f, K, t);
  detail_ls::require_finite(Phi, "feature_ls_state", "Phi_t");
  return ls_state_pinv(Phi, detail_ls::head_rows(V, t), t, rel_tol, rank_used);
}

// ---- A001-F05-LS-PREFIXSCAN-SOLVE ---------------------------------------------------------------------

// A001-F05-LS-PREFIXSCAN-SOLVE: what F05 does with a prefix whose solve is singular to the declared tolerance.
enum class LsSingular { error, pinv };
template <class S> struct LsScanResult {
  Matrix<S> O;                  // T x d_v outputs y_t
  std::vector<Matrix<S>> M;     // states M_t (t = 1..T) when requested
  std::vector<char> branch;     // per t: 'o' overdetermined Cholesky, 'u' min-norm branch, 'p' SVD route (singular prefix)
};
// A001-F05-LS-PREFIXSCAN-SOLVE: prefix scans S_t = S_{t-1} + k_t k_t^T, R_t = R_{t-1} + v_t k_t^T, then per t:
// t >= d_k: y_t = R_t z_t with S_t z_t = q_t (Cholesky); t < d_k: the min-norm branch y_t = V_t^T w_t,
// (K_t K_t^T) w_t = K_t q_t. A prefix whose system is singular to pivot_tol (relative to its largest diagonal)
// throws std::invalid_argument naming t (LsSingular::error) or uses the SVD route of A001-LS-CLOSED-FORM with
// rank threshold pivot_tol (LsSingular::pinv). keep_states: also return M_t = R_t S_t^{-1} resp.
// V_t^T (K_t K_t^T)^{-1} K_t resp. V_t^T (K_t^+)^T.
template <class S> LsScanResult<S> ls_prefix_scan_solve(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, LsSingular on_singular,
                                                        const S& pivot_tol, bool keep_states = false) {
  const std::string who = "ls_prefix_scan_solve";
  require(Q.rows == K.rows && K.rows == V.rows, who + ": Q, K, V must have the same number of tokens (rows)");
  require(Q.cols == K.cols, who + ": Q and K must have the same width d_k");
  require(K.cols >= 1 && V.cols >= 1, who + ": K and V need at least one column");
  detail_ls::require_finite(Q, who, "Q");
  detail_ls::require_finite(K, who, "K");
  detail_ls::require_finite(V, who, "V");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  LsScanResult<S> r;
  r.O = Matrix<S>(T, dv);
  r.branch.assign(T, '?');
  Matrix<S> St(dk, dk), Rt(dv, dk);
  for (std::size_t t = 1; t <= T; ++t) {
    add_outer(St, K.row(t - 1), K.row(t - 1));  // the scans
    add_outer(Rt, V.row(t - 1), K.row(t - 1));
    const S* q = Q.row(t - 1);
    Vector<S> y;
    Matrix<S> Mt;
    bool done = false;
    try {
      if (t >= dk) {
        const Matrix<S> L = cholesky_lower(St, pivot_tol, who, "S_t");
        y = matvec(Rt, cholesky_solve(L, Vector<S>(q, q + dk)).data());
        if (keep_states) {
          Mt = Matrix<S>(dv, dk);
          for (std::size_t c = 0; c < dv; ++c) {
            const Vector<S> m = cholesky_solve(L, Vector<S>(Rt.row(c), Rt.row(c) + dk));
            for (std::size_t j = 0; j < dk; ++j) Mt(c, j) = m[j];
          }
        }
        r.branch[t - 1] = 'o';
      } else {
        y = ls_output_underdetermined(K, V, t, q, pivot_tol);
        if (keep_states) Mt = ls_state_underdetermined(K, V, t, pivot_tol);
        r.branch[t - 1] = 'u';
      }
      done = true;
    } catch (const std::invalid_argument&) {
      if (on_singular == LsSingular::error)
        throw std::invalid_argument(who + ": the system of prefix t = " + std::to_string(t) + " is singular to the declared tolerance (" +
                                    (t >= dk ? "S_t" : "K_t K_t^T") + "); use LsSingular::pinv for the SVD route");
    }
    if (!done) {
      Mt = ls_state_pinv(K, V, t, pivot_tol);
      y = matvec(Mt, q);
      r.branch[t - 1] = 'p';
    }
    for (std::size_t c = 0; c < dv; ++c) r.O(t - 1, c) = y[c];
    if (keep_states) r.M.push_back(std::move(Mt));
  }
  return r;
}

// ---- A001-TTR-RECIPE: heads, key/value groups, masks ---------------------------------------------------

// A001-TTR-RECIPE: a multi-head layer's output and the memory of each head.
template <class S> struct MultiHeadResult {
  Matrix<S> O;                   // T x (H d_v): head h in columns [h d_v, (h+1) d_v)
  std::vector<Matrix<S>> state;  // final memory of each head
};
// A001-TTR-RECIPE: H heads, G key/value groups (G divides H; G = H multi-head, G = 1 multi-query, else
// grouped-query). Q is T x (H d_k), K is T x (G d_k), V is T x (G d_v); head h reads the key/value group
// g = h / (H / G). head_layer(Q_h, K_g, V_g) -> LinearAttentionResult<S> is the single-head layer (its
// weights, function class and optimiser).
template <class S, class HeadLayer>
MultiHeadResult<S> multihead_layer(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, std::size_t H, std::size_t G, std::size_t dk,
                                   std::size_t dv, const HeadLayer& head_layer) {
  const std::string who = "multihead_layer";
  require(H >= 1 && G >= 1 && H % G == 0, who + ": the number of key/value groups G must divide the number of heads H");
  require(Q.cols == H * dk && K.cols == G * dk && V.cols == G * dv, who + ": Q must be T x (H d_k), K T x (G d_k), V T x (G d_v)");
  require(Q.rows == K.rows && K.rows == V.rows, who + ": Q, K, V must have the same number of tokens");
  const std::size_t T = Q.rows;
  auto block = [T](const Matrix<S>& X, std::size_t c0, std::size_t w) {
    Matrix<S> B(T, w);
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t j = 0; j < w; ++j) B(t, j) = X(t, c0 + j);
    return B;
  };
  MultiHeadResult<S> out;
  out.O = Matrix<S>(T, H * dv);
  for (std::size_t h = 0; h < H; ++h) {
    const std::size_t g = h / (H / G);
    const LinearAttentionResult<S> r = head_layer(block(Q, h * dk, dk), block(K, g * dk, dk), block(V, g * dv, dv));
    require(r.O.rows == T && r.O.cols == dv, who + ": head layer returned outputs of the wrong shape (head " + std::to_string(h + 1) + ")");
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t j = 0; j < dv; ++j) out.O(t, h * dv + j) = r.O(t, j);
    out.state.push_back(r.state);
  }
  return out;
}

// A001-TTR-RECIPE: the memory rule of a masked (possibly non-causal) layer.
enum class MaskedRule {
  linear_attention,  // one full-batch GD step from 0 (beta = 1): M = sum_{i in set} v_i k_i^T
  least_squares,     // the min-norm LS memory of the set: V_set^T (K_set^+)^T (declared rank threshold)
};
// A001-TTR-RECIPE (causal vs non-causal): y_t = m_t(q_t) with m_t fitted on the pairs {i : mask(t, i) != 0}
// (mask: T x T row-major, row t for query t; the causal mask L has mask(t, i) = [i <= t]). A query whose set
// is empty gets the zero memory.
template <class S> Matrix<S> masked_memory_layer(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const std::vector<unsigned char>& mask,
                                                 MaskedRule rule) {
  const std::string who = "masked_memory_layer";
  require(Q.rows == K.rows && K.rows == V.rows && Q.cols == K.cols, who + ": Q, K, V shapes disagree");
  const std::size_t T = Q.rows;
  require(mask.size() == T * T, who + ": the mask must be T x T");
  Matrix<S> O(T, V.cols);
  for (std::size_t t = 0; t < T; ++t) {
    std::vector<std::size_t> set;
    for (std::size_t i = 0; i < T; ++i)
      if (mask[t * T + i]) set.push_back(i);
    if (set.empty()) continue;
    Matrix<S> Ks(set.size(), K.cols), Vs(set.size(), V.cols);
    for (std::size_t a = 0; a < set.size(); ++a) {
      for (std::size_t j = 0; j < K.cols; ++j) Ks(a, j) = K(set[a], j);
      for (std::size_t c = 0; c < V.cols; ++c) Vs(a, c) = V(set[a], c);
    }
    const Matrix<S> M = rule == MaskedRule::linear_attention ? cross_moment(Ks, Vs, set.size()) : ls_state_pinv(Ks, Vs, set.size());
    const Vector<S> y = matvec(M, Q.row(t));
    for (std::size_t c = 0; c < V.cols; ++c) O(t, c) = y[c];
  }
  return O;
}

}  // namespace recall::ref
