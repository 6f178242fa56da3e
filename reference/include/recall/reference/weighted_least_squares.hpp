// Weighted least squares and gating (paper A001, test-time regression, §4 Vignette 2, Eqs. (14)-(16)):
// gate-product regression weights gamma_i^(t) = prod_{j=i+1}^t gamma_j evaluated in log space (exp of the
// segment sum of log-gates, README §1.5; a zero gate is a -inf log-gate and gives exact zero weights),
// the direct products and the recursion (for the checks), input-gated weights, the weighted objective
// (14) and its gradient, the weighted LS memory (15) through the SVD pseudo-inverse of Gamma^{1/2} K (the
// reference, any rank, any t), the printed overdetermined branch R^G (S^G)^{-1}, the printed
// underdetermined (unweighted) branch V^T (K K^T)^{-1} K, the weighted ridge R^G (S^G + mu I)^{-1}, and the
// fast form F06 (gated scans of S^G_t, R^G_t, then per-t Cholesky solves, the pseudo-inverse of S^G_t
// where it is singular).
//
// Conventions (spec A001 C1/C3): tokens are rows (K: T x D_k, V: T x D_v, Q: T x D_k); the memory M_t is
// D_v x D_k with read-out y_t = M_t q_t; t is 1-based in the API (the prefix of the first t rows);
// S^G_t = K_t^T Gamma_t K_t, R^G_t = V_t^T Gamma_t K_t. log_gates[j] = log gamma_{j+1} (0-based storage),
// each finite and <= 0, or -inf for a zero gate; a null log_gates pointer means all gates 1 (unweighted).
// Plain loops, scalar-generic (recall::mp_t for the oracle; float/double give the same-precision baseline).
#pragma once

#include "recall/reference/linear_attention.hpp"
#include "recall/reference/matrix.hpp"
#include "recall/reference/regression_rules.hpp"
#include "recall/reference/svd.hpp"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace recall::ref {

namespace wls_detail {
template <class S> void check_finite_matrix(const Matrix<S>& X, const char* who, const char* name) {
  for (std::size_t i = 0; i < X.rows; ++i)
    for (std::size_t j = 0; j < X.cols; ++j)
      require(is_finite(X(i, j)), std::string(who) + ": " + name + "(" + std::to_string(i + 1) + ", " + std::to_string(j + 1) + ") is not finite");
}
// log-gates: one per token (at least `t` of them), each finite and <= 0, or -inf (zero gate)
template <class S> void check_log_gates_le0(const Vector<S>& lg, std::size_t t, const char* who) {
  require(lg.size() >= t, std::string(who) + ": log_gates must have an entry for each of the first t tokens");
  for (std::size_t j = 0; j < t; ++j)
    require(is_neg_inf(lg[j]) || (is_finite(lg[j]) && lg[j] <= S(0)),
            std::string(who) + ": log_gates[" + std::to_string(j + 1) + "] must be finite and <= 0 (a gate in (0,1]) or -inf (a zero gate)");
}
template <class S> void check_kv(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const char* who) {
  require(K.rows == V.rows, std::string(who) + ": K and V must have the same number of tokens (rows)");
  require(t >= 1 && t <= K.rows, std::string(who) + ": t must be in 1..T (t = " + std::to_string(t) + ", T = " + std::to_string(K.rows) + ")");
  require(K.cols >= 1 && V.cols >= 1, std::string(who) + ": K and V must have at least one column");
  check_finite_matrix(K, who, "K");
  check_finite_matrix(V, who, "V");
}
template <class S> S sqrt_(const S& x) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  return sqrt(x);
}
}  // namespace wls_detail

// ---- regression weights ----------------------------------------------------------------------

// A001-WLS-OBJECTIVE (Eq. 14; C3): gamma_i^(t) = exp(sum_{j=i+1}^t log gamma_j), i = 1..t, each segment sum
// evaluated directly (never Lambda_t - Lambda_i); exact 0 when a zero gate lies in (i, t]; gamma_t^(t) = 1.
template <class S> Vector<S> gate_weights(const Vector<S>& log_gates, std::size_t t) {
  wls_detail::check_log_gates_le0(log_gates, t, "gate_weights");
  Vector<S> w(t);
  for (std::size_t i = 0; i < t; ++i) w[i] = exp_log(segment_log_sum(log_gates, i, t - 1));
  return w;
}
// Square roots of the weights, exp(segment sum / 2) (no underflow of gamma before the square root).
template <class S> Vector<S> gate_weights_sqrt(const Vector<S>& log_gates, std::size_t t) {
  wls_detail::check_log_gates_le0(log_gates, t, "gate_weights_sqrt");
  Vector<S> w(t);
  for (std::size_t i = 0; i < t; ++i) {
    const S seg = segment_log_sum(log_gates, i, t - 1);
    w[i] = is_neg_inf(seg) ? S(0) : exp_log(S(seg / S(2)));
  }
  return w;
}
// A001-WLS-OBJECTIVE (Eq. 14 as printed): the direct products prod_{j=i+1}^t gamma_j from the gate values in [0, 1].
template <class S> Vector<S> gate_weights_product(const Vector<S>& gates, std::size_t t) {
  require(gates.size() >= t, "gate_weights_product: gates must have an entry for each of the first t tokens");
  for (std::size_t j = 0; j < t; ++j)
    require(gates[j] >= S(0) && gates[j] <= S(1), "gate_weights_product: gates[" + std::to_string(j + 1) + "] must lie in [0, 1]");
  Vector<S> w(t);
  for (std::size_t i = 0; i < t; ++i) {
    S p(1);
    for (std::size_t j = i + 1; j < t; ++j) p *= gates[j];
    w[i] = p;
  }
  return w;
}
// A001-WLS-OBJECTIVE recursion: gamma_i^(t) = gamma_t gamma_i^(t-1) (i < t), gamma_t^(t) = 1; prev = weights at t-1.
template <class S> Vector<S> gate_weights_step(const Vector<S>& prev, const S& gamma_t) {
  require(gamma_t >= S(0) && gamma_t <= S(1), "gate_weights_step: gamma_t must lie in [0, 1]");
  Vector<S> w(prev.size() + 1);
  for (std::size_t i = 0; i < prev.size(); ++i) w[i] = gamma_t * prev[i];
  w[prev.size()] = S(1);
  return w;
}
// A001-WLS-INPUT-GATE [derived]: gamma_i^(t) = w_i prod_{j=i+1}^t gamma_j (w_i >= 0), log-space products.
template <class S> Vector<S> input_gated_weights(const Vector<S>& log_gates, const Vector<S>& w, std::size_t t) {
  require(w.size() >= t, "input_gated_weights: input gates w must have an entry for each of the first t tokens");
  for (std::size_t i = 0; i < t; ++i)
    require(is_finite(w[i]) && w[i] >= S(0), "input_gated_weights: input gate w[" + std::to_string(i + 1) + "] must be finite and >= 0");
  Vector<S> out = gate_weights(log_gates, t);
  for (std::size_t i = 0; i < t; ++i) out[i] *= w[i];
  return out;
}
// A001-WLS-INPUT-GATE recurrence: M_t = gamma_t M_{t-1} + w_t v_t k_t^T, M_0 = 0 (gamma_t = exp(log gate),
// exact 0 for -inf: a reset). Returns M_1, ..., M_T.
template <class S>
std::vector<Matrix<S>> input_gated_recurrence(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& log_gates, const Vector<S>& w) {
  wls_detail::check_kv(K, V, K.rows, "input_gated_recurrence");
  wls_detail::check_log_gates_le0(log_gates, K.rows, "input_gated_recurrence");
  require(w.size() == K.rows, "input_gated_recurrence: input gates w must have one entry per token");
  std::vector<Matrix<S>> Ms;
  Matrix<S> M(V.cols, K.cols);
  for (std::size_t t = 0; t < K.rows; ++t) {
    require(is_finite(w[t]) && w[t] >= S(0), "input_gated_recurrence: input gate w[" + std::to_string(t + 1) + "] must be finite and >= 0");
    const S g = exp_log(log_gates[t]);
    for (S& x : M.a) x *= g;
    add_outer(M, w[t], V.row(t), K.row(t));
    Ms.push_back(M);
  }
  return Ms;
}

// ---- weighted moments, objective ---------------------------------------------------------------

// C3: S^G = sum_{i<=t} w_i k_i k_i^T (D_k x D_k), t = weights.size().
template <class S> Matrix<S> weighted_key_gram(const Matrix<S>& K, const Vector<S>& weights) {
  require(weights.size() <= K.rows, "weighted_key_gram: more weights than keys");
  Matrix<S> G(K.cols, K.cols);
  for (std::size_t i = 0; i < weights.size(); ++i) add_outer(G, weights[i], K.row(i), K.row(i));
  return G;
}
// C3: R^G = sum_{i<=t} w_i v_i k_i^T = V_t^T Gamma_t K_t (D_v x D_k); the gated linear-attention state (Eq. 16).
template <class S> Matrix<S> weighted_cross_moment(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& weights) {
  require(weights.size() <= K.rows && K.rows == V.rows, "weighted_cross_moment: more weights than tokens, or K and V differ in length");
  Matrix<S> R(V.cols, K.cols);
  for (std::size_t i = 0; i < weights.size(); ++i) add_outer(R, weights[i], V.row(i), K.row(i));
  return R;
}
// A001-WLS-OBJECTIVE Eq. (14): J_t(M) = 1/2 sum_{i<=t} w_i ||v_i - M k_i||^2, t = weights.size().
template <class S> S wls_objective(const Matrix<S>& M, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& weights) {
  require(M.rows == V.cols && M.cols == K.cols, "wls_objective: M must be D_v x D_k");
  require(weights.size() <= K.rows && K.rows == V.rows, "wls_objective: more weights than tokens, or K and V differ in length");
  S J(0);
  for (std::size_t i = 0; i < weights.size(); ++i) {
    require(weights[i] >= S(0), "wls_objective: weight " + std::to_string(i + 1) + " is negative");
    const Vector<S> mk = matvec(M, K.row(i));
    S r2(0);
    for (std::size_t c = 0; c < V.cols; ++c) {
      const S e = V(i, c) - mk[c];
      muladd(r2, e, e);
    }
    muladd(J, weights[i], r2);
  }
  return J / S(2);
}
// Gradient of (14): sum_{i<=t} w_i (M k_i - v_i) k_i^T.
template <class S> Matrix<S> wls_objective_grad(const Matrix<S>& M, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& weights) {
  require(M.rows == V.cols && M.cols == K.cols, "wls_objective_grad: M must be D_v x D_k");
  require(weights.size() <= K.rows && K.rows == V.rows, "wls_objective_grad: more weights than tokens, or K and V differ in length");
  Matrix<S> G(M.rows, M.cols);
  for (std::size_t i = 0; i < weights.size(); ++i) {
    Vector<S> e = matvec(M, K.row(i));
    for (std::size_t c = 0; c < V.cols; ++c) e[c] -= V(i, c);
    add_outer(G, weights[i], e.data(), K.row(i));
  }
  return G;
}

// ---- the weighted LS memory (Eq. 15) ----------------------------------------------------------

// A001-WLS-CLOSED-FORM reference, explicit square-root weights: M = (D V_t)^T ((D K_t)^+)^T with D = diag(sqrt_w)
// (t = sqrt_w.size()), the pseudo-inverse by the SVD of D K_t (ref::pinv) dropping sigma_i <= rel_tol sigma_max. This
// is the minimum-Frobenius-norm minimiser of sum_i w_i ||v_i - M k_i||^2 for any rank. *rank receives the rank kept.
template <class S>
Matrix<S> wls_state_sqrtw(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& sqrt_w, const S& rel_tol, std::size_t* rank = nullptr) {
  const std::size_t t = sqrt_w.size();
  wls_detail::check_kv(K, V, t, "wls_state_sqrtw");
  require(rel_tol >= S(0) && rel_tol < S(1), "wls_state_sqrtw: rel_tol must lie in [0, 1)");
  Matrix<S> A(t, K.cols), B(t, V.cols);
  for (std::size_t i = 0; i < t; ++i) {
    require(is_finite(sqrt_w[i]) && sqrt_w[i] >= S(0), "wls_state_sqrtw: sqrt_w[" + std::to_string(i + 1) + "] must be finite and >= 0");
    for (std::size_t j = 0; j < K.cols; ++j) A(i, j) = sqrt_w[i] * K(i, j);
    for (std::size_t j = 0; j < V.cols; ++j) B(i, j) = sqrt_w[i] * V(i, j);
  }
  const Matrix<S> Ap = pinv(A, rel_tol, rank);  // D_k x t
  return matmul(transpose(B), transpose(Ap));   // (D V)^T (A^+)^T : D_v x D_k
}
// A001-WLS-CLOSED-FORM reference (Eq. 15, spec "to implement"): M_t = (Gamma_t^{1/2} V_t)^T ((Gamma_t^{1/2} K_t)^+)^T,
// Gamma_t from the log-gates (null: unweighted, A001-LS-CLOSED-FORM's V^T (K^+)^T), declared rank threshold rel_tol.
template <class S>
Matrix<S> wls_state(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>* log_gates, std::size_t t, const S& rel_tol,
                    std::size_t* rank = nullptr) {
  wls_detail::check_kv(K, V, t, "wls_state");
  const Vector<S> sw = log_gates ? gate_weights_sqrt(*log_gates, t) : Vector<S>(t, S(1));
  return wls_state_sqrtw(K, V, sw, rel_tol, rank);
}
template <class S> Matrix<S> wls_state(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>* log_gates, std::size_t t) {
  return wls_state(K, V, log_gates, t, default_rank_tol<S>(std::max(t, K.cols)));
}
// A001-WLS-CLOSED-FORM reference outputs: the T x D_v matrix of y_t = M_t q_t, M_t = wls_state(..., t) at every t.
// ranks (optional) receives rank(Gamma_t^{1/2} K_t) kept at each t.
template <class S>
Matrix<S> wls_outputs(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>* log_gates, const S& rel_tol,
                      std::vector<std::size_t>* ranks = nullptr) {
  require(Q.rows == K.rows && Q.cols == K.cols, "wls_outputs: Q must be T x D_k like K");
  wls_detail::check_finite_matrix(Q, "wls_outputs", "Q");
  if (log_gates) wls_detail::check_log_gates_le0(*log_gates, K.rows, "wls_outputs");
  Matrix<S> Y(Q.rows, V.cols);
  if (ranks) ranks->assign(Q.rows, 0);
  for (std::size_t t = 1; t <= Q.rows; ++t) {
    std::size_t r = 0;
    const Matrix<S> M = wls_state(K, V, log_gates, t, rel_tol, &r);
    matvec_into(Y.row(t - 1), M, Q.row(t - 1));
    if (ranks) (*ranks)[t - 1] = r;
  }
  return Y;
}
template <class S> Matrix<S> wls_outputs(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>* log_gates) {
  return wls_outputs(Q, K, V, log_gates, default_rank_tol<S>(std::max(K.rows, K.cols)));
}

// A001-WLS-CLOSED-FORM printed overdetermined branch (Eq. 15, first line): R^G_t (S^G_t)^{-1} by Gaussian elimination
// with partial pivoting (throws std::invalid_argument on an exactly singular S^G_t; callers check the rank first).
template <class S> Matrix<S> wls_state_overdetermined(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>* log_gates, std::size_t t) {
  wls_detail::check_kv(K, V, t, "wls_state_overdetermined");
  const Vector<S> w = log_gates ? gate_weights(*log_gates, t) : Vector<S>(t, S(1));
  return right_solve(weighted_cross_moment(K, V, w), weighted_key_gram(K, w));
}
// A001-WLS-CLOSED-FORM printed underdetermined branch (Eq. 15, second line; the same for weighted and
// unweighted as printed): V_t^T (K_t K_t^T)^{-1} K_t (throws on an exactly singular K_t K_t^T).
template <class S> Matrix<S> wls_state_underdetermined(const Matrix<S>& K, const Matrix<S>& V, std::size_t t) {
  wls_detail::check_kv(K, V, t, "wls_state_underdetermined");
  Matrix<S> G(t, t);  // K_t K_t^T
  for (std::size_t i = 0; i < t; ++i)
    for (std::size_t j = 0; j < t; ++j) G(i, j) = dot(K.row(i), K.row(j), K.cols);
  Matrix<S> Kt(t, K.cols), Vt(t, V.cols);
  for (std::size_t i = 0; i < t; ++i) {
    for (std::size_t j = 0; j < K.cols; ++j) Kt(i, j) = K(i, j);
    for (std::size_t j = 0; j < V.cols; ++j) Vt(i, j) = V(i, j);
  }
  return matmul(transpose(Vt), solve(G, Kt));  // V^T (K K^T)^{-1} K
}
// A001-WLS-UNDERDET-INVARIANCE reading 2: the weighted ridge state R^G_t (S^G_t + mu I)^{-1}, mu > 0 (no decay of mu).
template <class S>
Matrix<S> wls_ridge_state(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>* log_gates, std::size_t t, const S& mu) {
  wls_detail::check_kv(K, V, t, "wls_ridge_state");
  require(is_finite(mu) && mu > S(0), "wls_ridge_state: mu must be finite and > 0");
  const Vector<S> w = log_gates ? gate_weights(*log_gates, t) : Vector<S>(t, S(1));
  Matrix<S> G = weighted_key_gram(K, w);
  for (std::size_t i = 0; i < K.cols; ++i) G(i, i) += mu;
  return right_solve(weighted_cross_moment(K, V, w), G);
}

// ---- F06: gated scans plus per-t solves ---------------------------------------------------------

// Which solve F06 used at each t.
enum class WlsBranch : unsigned char { cholesky, pinv_structural, pinv_pivot };
template <class S> struct WlsScanResult {
  Matrix<S> Y;                    // T x D_v outputs y_t
  Matrix<S> S_last, R_last;       // S^G_T, R^G_T
  std::vector<WlsBranch> branch;  // per t
  std::vector<std::size_t> active;  // keys with a non-zero weight at t (t - j + 1 after the last zero gate j <= t)
};

namespace wls_detail {
// Cholesky S = L L^T of a symmetric matrix; false when a pivot is <= piv_tol (not numerically positive definite).
template <class S> bool cholesky(const Matrix<S>& A, Matrix<S>& L, const S& piv_tol) {
  const std::size_t n = A.rows;
  L = Matrix<S>(n, n);
  for (std::size_t j = 0; j < n; ++j) {
    S d = A(j, j);
    for (std::size_t k = 0; k < j; ++k) d -= L(j, k) * L(j, k);
    if (!(d > piv_tol)) return false;
    L(j, j) = sqrt_(d);
    for (std::size_t i = j + 1; i < n; ++i) {
      S s = A(i, j);
      for (std::size_t k = 0; k < j; ++k) s -= L(i, k) * L(j, k);
      L(i, j) = s / L(j, j);
    }
  }
  return true;
}
// z = (L L^T)^{-1} q
template <class S> Vector<S> cholesky_solve(const Matrix<S>& L, const S* q) {
  const std::size_t n = L.rows;
  Vector<S> z(q, q + n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < i; ++k) z[i] -= L(i, k) * z[k];
    z[i] /= L(i, i);
  }
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t k = i + 1; k < n; ++k) z[i] -= L(k, i) * z[k];
    z[i] /= L(i, i);
  }
  return z;
}
}  // namespace wls_detail

// A001-F06-WLS-GATEDSCAN-SOLVE: gated scans S^G_t = gamma_t S^G_{t-1} + k_t k_t^T, R^G_t = gamma_t R^G_{t-1} + v_t k_t^T
// (gamma_t = exp(log gate), 0 for -inf: a reset), then y_t = R^G_t z_t with S^G_t z_t = q_t by Cholesky where
// S^G_t is nonsingular, and y_t = R^G_t (S^G_t)^+ q_t (SVD pseudo-inverse of the D_k x D_k Gram, eigenvalues
// <= gram_rel_tol lambda_max dropped) where it is singular: structurally (fewer than D_k keys carry a non-zero
// weight: t < D_k, or t - j + 1 < D_k after a zero gate gamma_j = 0) or numerically (a Cholesky pivot
// <= gram_rel_tol max_i S_ii). R^G (S^G)^+ is exactly the min-norm WLS memory of Eq. (15) at every rank.
// chunk = 0: the sequential scan; chunk = C >= 1: the chunked scan (state passed between chunks of C tokens,
// within a chunk S^G_t = exp(sum_{j=c0+1}^t log gamma_j) S^G_{c0} + sum_{c0 < i <= t} exp(segment sum) k_i k_i^T,
// the decays as segment sums, never ratios). gram_rel_tol: e.g. default_rank_tol (a threshold on the eigenvalues of S^G_t,
// so the non-zero ones must exceed it: cond(Gamma^{1/2} K)^2 < 1 / gram_rel_tol).
template <class S>
WlsScanResult<S> wls_gated_scan_solve(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>* log_gates,
                                      const S& gram_rel_tol, std::size_t chunk = 0) {
  const std::size_t T = K.rows, dk = K.cols, dv = V.cols;
  require(T >= 1, "wls_gated_scan_solve: empty sequence");
  wls_detail::check_kv(K, V, T, "wls_gated_scan_solve");
  require(Q.rows == T && Q.cols == dk, "wls_gated_scan_solve: Q must be T x D_k like K");
  wls_detail::check_finite_matrix(Q, "wls_gated_scan_solve", "Q");
  if (log_gates) wls_detail::check_log_gates_le0(*log_gates, T, "wls_gated_scan_solve");
  require(gram_rel_tol >= S(0) && gram_rel_tol < S(1), "wls_gated_scan_solve: gram_rel_tol must lie in [0, 1)");
  const Vector<S> lg = log_gates ? *log_gates : Vector<S>(T, S(0));
  WlsScanResult<S> r;
  r.Y = Matrix<S>(T, dv);
  r.branch.resize(T);
  r.active.resize(T);
  Matrix<S> Sg(dk, dk), Rg(dv, dk), Sc(dk, dk), Rc(dv, dk);  // scan state; chunked: state carried into the chunk
  std::size_t last_zero = 0;  // 1-based index of the last zero gate (0: none)
  for (std::size_t t = 0; t < T; ++t) {
    if (is_neg_inf(lg[t])) last_zero = t + 1;
    if (chunk == 0) {
      const S g = exp_log(lg[t]);
      for (S& x : Sg.a) x *= g;
      for (S& x : Rg.a) x *= g;
      add_outer(Sg, K.row(t), K.row(t));
      add_outer(Rg, V.row(t), K.row(t));
    } else {
      const std::size_t c0 = (t / chunk) * chunk;  // first token of the chunk holding t (0-based)
      if (t == c0) {                               // state passing: the end state of the previous chunk
        Sc = Sg;
        Rc = Rg;
      }
      S all(0);
      for (std::size_t j = c0; j <= t; ++j) all += lg[j];
      const S dec = exp_log(all);  // decay of the carried state over the chunk prefix
      Sg = Sc;
      Rg = Rc;
      for (S& x : Sg.a) x *= dec;
      for (S& x : Rg.a) x *= dec;
      for (std::size_t i = c0; i <= t; ++i) {
        const S wi = exp_log(segment_log_sum(lg, i, t));
        add_outer(Sg, wi, K.row(i), K.row(i));
        add_outer(Rg, wi, V.row(i), K.row(i));
      }
    }
    const std::size_t active = last_zero == 0 ? t + 1 : t + 2 - last_zero;
    r.active[t] = active;
    Vector<S> z;
    bool chol = false;
    if (active >= dk) {
      S maxd(0);
      for (std::size_t i = 0; i < dk; ++i)
        if (Sg(i, i) > maxd) maxd = Sg(i, i);
      Matrix<S> L;
      if (maxd > S(0) && wls_detail::cholesky(Sg, L, S(gram_rel_tol * maxd))) {
        z = wls_detail::cholesky_solve(L, Q.row(t));
        chol = true;
        r.branch[t] = WlsBranch::cholesky;
      } else {
        r.branch[t] = WlsBranch::pinv_pivot;
      }
    } else {
      r.branch[t] = WlsBranch::pinv_structural;
    }
    if (!chol) z = matvec(pinv(Sg, gram_rel_tol), Q.row(t));
    matvec_into(r.Y.row(t), Rg, z.data());
  }
  r.S_last = Sg;
  r.R_last = Rg;
  return r;
}
template <class S>
WlsScanResult<S> wls_gated_scan_solve(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>* log_gates) {
  return wls_gated_scan_solve(Q, K, V, log_gates, default_rank_tol<S>(K.cols));
}

}  // namespace recall::ref
