// Delta-rule family (spec README §3 groups 8, 9, 10, 11), written from the definitions: plain
// token loops, canonical memory S (d_v x d_k), read-out o_t = S_t q_t, updates multiplying on
// the right: S_t = S_{t-1}(I - beta_t k_t k_t^T) + beta_t v_t k_t^T. Gates are scalar per token
// and given as logarithms (log alpha_t; -inf for a zero gate, README §1.5).
//
// These are the single source of truth for every ID of those groups; claim files and the
// registry's ops instantiate them at mp_t (oracle) and at float/double (naive baseline).
#pragma once

#include "recall/reference/linear_attention.hpp"
#include "recall/reference/matrix.hpp"

#include <string>

namespace recall::ref {

// Where the decay of the gated delta rule sits (README §3 group 9).
//  G (Gated DeltaNet, A001 Eq. 41 / A004 U-GDN): S_t = alpha_t S_{t-1}(I - beta_t k_t k_t^T) + beta_t v_t k_t^T
//  T (leaky LMS / Titans, A001 Eq. 37):          S_t = alpha_t S_{t-1} + beta_t (v_t - S_{t-1} k_t) k_t^T
enum class DecayPlacement { G, T };

namespace detail {
template <class S> void check_beta(const Vector<S>& beta, std::size_t T, const char* who) {
  require(beta.size() == T, std::string(who) + ": beta must have one entry per token (length T)");
  for (std::size_t t = 0; t < T; ++t)
    require(is_finite(beta[t]), std::string(who) + ": beta[" + std::to_string(t + 1) + "] is not finite");
}
// One delta step in place: S <- a S + b (v - c S k) k^T with the prediction S k taken before the
// update. pred is scratch of length d_v.
template <class S>
void delta_step(Matrix<S>& St, Vector<S>& pred, const S& a, const S& b, const S& c, const S* k, const S* v) {
  const std::size_t dv = St.rows, dk = St.cols;
  matvec_into(pred.data(), St, k);
  const bool decay = a != S(1);  // tested once: S(1) is an allocation for mp_t
  for (std::size_t i = 0; i < dv; ++i) {
    S e = v[i];
    e -= c * pred[i];  // error (v - c S k)_i
    e *= b;
    S* row = St.row(i);
    for (std::size_t j = 0; j < dk; ++j) {
      if (decay) scale_inplace(row[j], a);
      muladd(row[j], e, k[j]);
    }
  }
}
}  // namespace detail

// A000-T2-DELTANET / A001-DELTANET-DEF Eq. (6) / A001-SGD-LAYER / A004-UPD-DELTANET / A004-DELTA-FWP:
// S_t = S_{t-1} - beta_t (S_{t-1} k_t - v_t) k_t^T = S_{t-1}(I - beta_t k_t k_t^T) + beta_t v_t k_t^T, o_t = S_t q_t.
// Any beta (the hazard beta ||k||^2 > 2 is the caller's to log); keys as given.
template <class S>
LinearAttentionResult<S> delta_rule(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& beta,
                                    const Matrix<S>* S0 = nullptr) {
  detail::check_qkv(Q, K, V, "delta_rule");
  detail::check_beta(beta, Q.rows, "delta_rule");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  LinearAttentionResult<S> r;
  r.state = detail::initial_state(S0, dv, dk, "delta_rule");
  r.O = Matrix<S>(T, dv);
  Vector<S> pred(dv);
  for (std::size_t t = 0; t < T; ++t) {
    detail::delta_step(r.state, pred, S(1), beta[t], S(1), K.row(t), V.row(t));
    matvec_into(r.O.row(t), r.state, Q.row(t));
  }
  return r;
}

// A001-GATED-DELTANET-REPARAM (41) / A004-UPD-GDN (placement G); A001-LEAKY-LMS (37) (placement T,
// alpha_t = 1 - beta_t lambda_t). alpha_t = exp(log_alpha_t); -inf resets (alpha = 0).
template <class S>
LinearAttentionResult<S> gated_delta_rule(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& beta,
                                          const Vector<S>& log_alpha, DecayPlacement where, const Matrix<S>* S0 = nullptr) {
  detail::check_qkv(Q, K, V, "gated_delta_rule");
  detail::check_beta(beta, Q.rows, "gated_delta_rule");
  require(log_alpha.size() == Q.rows, "gated_delta_rule: log_alpha must have one entry per token (length T)");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  LinearAttentionResult<S> r;
  r.state = detail::initial_state(S0, dv, dk, "gated_delta_rule");
  r.O = Matrix<S>(T, dv);
  Vector<S> pred(dv);
  for (std::size_t t = 0; t < T; ++t) {
    require(!(log_alpha[t] > S(0)) && !(log_alpha[t] != log_alpha[t]),
            "gated_delta_rule: log_alpha[" + std::to_string(t + 1) + "] must be <= 0 (alpha in [0,1]) and not NaN");
    const S a = exp_log(log_alpha[t]);
    // G: alpha S (I - b k k^T) + b v k^T = alpha S + b (v - alpha S k) k^T.   T: alpha S + b (v - S k) k^T.
    detail::delta_step(r.state, pred, a, beta[t], where == DecayPlacement::G ? a : S(1), K.row(t), V.row(t));
    matvec_into(r.O.row(t), r.state, Q.row(t));
  }
  return r;
}

// A001-LONGHORN Eq. (31) / A004-UPD-LONGHORN: the delta rule with the step
// eps_t = delta_t / (1 + delta_t ||k_t||^2), computed as 1 / (1/delta_t + ||k_t||^2) (no inf/inf for
// huge delta; delta = +inf gives the NLMS projection 1/||k||^2; delta = 0 no update).
template <class S> S longhorn_step(const S& delta, const S* k, std::size_t dk) {
  require(!(delta < S(0)) && !(delta != delta), "longhorn_step: delta must be >= 0");
  if (delta == S(0)) return S(0);
  const S kk = dot(k, k, dk);
  if (!is_finite(delta)) {
    require(kk > S(0), "longhorn_step: delta = inf needs a nonzero key");
    return S(1) / kk;
  }
  return S(1) / (S(1) / delta + kk);
}
template <class S>
LinearAttentionResult<S> longhorn(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& delta,
                                  const Matrix<S>* S0 = nullptr) {
  detail::check_qkv(Q, K, V, "longhorn");
  require(delta.size() == Q.rows, "longhorn: delta must have one entry per token (length T)");
  Vector<S> eps(Q.rows);
  for (std::size_t t = 0; t < Q.rows; ++t) eps[t] = longhorn_step(delta[t], K.row(t), K.cols);
  return delta_rule(Q, K, V, eps, S0);
}

// A001-NLMS Eq. (32)-(33): projection onto {M : M k_t = v_t}: beta_t = 1/(||k_t||^2 + eps_guard)
// (eps_guard = 0: the exact projection; a zero key is then an error naming the token).
template <class S>
LinearAttentionResult<S> nlms(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const S& eps_guard = S(0),
                              const Matrix<S>* S0 = nullptr) {
  detail::check_qkv(Q, K, V, "nlms");
  Vector<S> beta(Q.rows);
  for (std::size_t t = 0; t < Q.rows; ++t) {
    const S kk = dot(K.row(t), K.row(t), K.cols) + eps_guard;
    require(kk > S(0), "nlms: key " + std::to_string(t + 1) + " has zero norm (projection undefined; pass eps_guard > 0)");
    beta[t] = S(1) / kk;
  }
  return delta_rule(Q, K, V, beta, S0);
}

// A000-DELTAFORMER-U / A000-UMATRIX / A000-TOY-SOLVE (group 11), plain forward substitution
// straight from the recursion: u_i = v_i - sum_{j<i} A_ij u_j, with A strictly lower
// (A_ij = beta_i kappa(k_i, k_j) for the kernel delta rule). U is T x d_v (rows = tokens); the
// current token is excluded from its own sum (unit diagonal).
template <class S> Matrix<S> unit_lower_solve(const Matrix<S>& A, const Matrix<S>& V) {
  require(A.rows == A.cols && A.rows == V.rows, "unit_lower_solve: A must be T x T and V must have T rows");
  const std::size_t T = V.rows, dv = V.cols;
  Matrix<S> U = V;
  for (std::size_t i = 0; i < T; ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const S& a = A(i, j);
      if (a == S(0)) continue;
      S* ui = U.row(i);
      const S* uj = U.row(j);
      for (std::size_t c = 0; c < dv; ++c) ui[c] -= a * uj[c];
    }
  return U;
}

}  // namespace recall::ref
