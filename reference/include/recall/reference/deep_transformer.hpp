// Deep linear attention, sliding-window linear attention, DeepTransformers and the sliding-window
// DeepTransformer of spec A002 §4.1-4.2 (Eqs. 18-26, App. D.1-D.2, Table 1 rows DLA / DeepTransformer /
// SWDT), linear (matrix-valued) memories only: the deep (MLP) memory readings are A002-MEMORY-MLP /
// A002-DT-DEEP-TRUNC and live elsewhere.
//
// Conventions (spec A002 Conventions, README §1): memory M is d_v x D with read-out y_t = M_t phi(q_t)
// after the step-t write; tokens are rows; 0-based storage, 1-based token numbers in messages. The
// dot-product attentional bias is l(M; phi, v) = -s <M phi, v> with s = +1 the test-bed convention (one GD
// step adds +eta v phi^T, A-2) and s = -1 the literal App. D.1/D.2 reading (GD on +<M k, v>). Gates are
// passed as values (alpha_t in [0,1], eta_t, Gamma_{t,i}); products A_{a:b} = prod_{j=a}^{b} alpha_j are
// formed directly as products of the gates (never as ratios of cumulative products), so every function
// except the phi* / exp ones is exact in rational arithmetic (boost::multiprecision::cpp_rational).
// The window is W_t = {i : max(1, t-c+1) <= i <= t} (truncated at the sequence start, A-24).
//
// IDs implemented here: A002-DLA, A002-DLA-D1, A002-T1-DLA (dla_linear), A002-SWLA, A002-SWLA-D2
// (swla_linear), A002-SWLA-CLOSED (swla_token_weights), A002-DEEPTRANSFORMER (deep_transformer_kernel,
// deep_transformer_truncated), A002-T1-DT (dt_token_weights), A002-SWDT (swdt_kernel, swdt_truncated),
// A002-T1-SWDT (swla_linear on phi*), A002-SWA-LOCAL (causal_window_nw_attention). The shared computations
// are reused, not rewritten: Nadaraya-Watson weights (nadaraya_watson.hpp, A002-NW-ATTN), softmax attention
// (softmax.hpp), gated / normalised linear attention (linear_attention.hpp), the Kronecker exp_trunc map
// (feature_maps.hpp) and the exp-kernel Gram (kernel_regression.hpp, A002-ATTN-UNBOUNDED); A002-ATTN-AS-MEMORY is
// normalized_linear_attention (linear_attention.hpp) on the phi*_P features of exp_feature_monomial below.
#pragma once

#include "recall/reference/matrix.hpp"
#include "recall/reference/nadaraya_watson.hpp"

#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace recall::ref {

namespace dt_detail {
template <class S> bool finite_(const S& x) {
  if constexpr (std::numeric_limits<S>::is_integer || !std::numeric_limits<S>::has_infinity) {
    return true;  // exact rationals have no non-finite values
  } else {
    return is_finite(x);
  }
}
template <class S> void require_finite(const Matrix<S>& X, const std::string& who, const char* name) {
  for (std::size_t i = 0; i < X.rows; ++i)
    for (std::size_t j = 0; j < X.cols; ++j)
      require(finite_(X(i, j)), who + ": non-finite entry in " + name + " at row " + std::to_string(i + 1) + ", column " + std::to_string(j + 1));
}
template <class S> void check_memory_inputs(const Matrix<S>& PhiQ, const Matrix<S>& PhiK, const Matrix<S>& V, const Vector<S>& alpha,
                                            const Matrix<S>* M0, int s, const std::string& who) {
  require(PhiQ.rows == PhiK.rows && PhiK.rows == V.rows, who + ": PhiQ, PhiK and V must have one row per token");
  require(PhiQ.cols == PhiK.cols, who + ": PhiQ and PhiK must have the same feature width D");
  require(alpha.size() == V.rows, who + ": alpha must have one gate per token");
  require(s == 1 || s == -1, who + ": sign s must be +1 or -1");
  require_finite(PhiQ, who, "PhiQ");
  require_finite(PhiK, who, "PhiK");
  require_finite(V, who, "V");
  for (std::size_t t = 0; t < alpha.size(); ++t)
    require(finite_(alpha[t]) && alpha[t] >= S(0), who + ": alpha[" + std::to_string(t + 1) + "] must be finite and >= 0");
  if (M0) {
    require(M0->rows == V.cols && M0->cols == PhiK.cols, who + ": initial memory M0 must be d_v x D");
    require_finite(*M0, who, "M0");
  }
}
// Gamma is L x L and banded: Gamma(t, i) = 0 unless i in W_t (1-based t - c + 1 <= i <= t).
template <class S> void check_gamma(const Matrix<S>& Gamma, std::size_t L, std::size_t c, const std::string& who) {
  require(c >= 1, who + ": window length c must be >= 1");
  require(Gamma.rows == L && Gamma.cols == L, who + ": Gamma must be L x L (one row of window gates per token)");
  require_finite(Gamma, who, "Gamma");
  for (std::size_t t = 0; t < L; ++t)
    for (std::size_t i = 0; i < L; ++i) {
      const bool in = i <= t && i + c > t;
      require(in || Gamma(t, i) == S(0), who + ": Gamma(" + std::to_string(t + 1) + "," + std::to_string(i + 1) +
                                             ") is nonzero outside the window W_t (Gamma must be banded)");
    }
}
}  // namespace dt_detail

template <class S> struct MemoryRun {
  Matrix<S> Y;                   // L x d_v outputs y_t = M_t phi(q_t)
  Matrix<S> state;               // final memory M_L (d_v x D)
  std::vector<Matrix<S>> states;  // M_1..M_L when requested
};

// A002-DLA / A002-DLA-D1 / A002-T1-DLA (Eq. 19, Eq. 49-51): the dot-product attentional bias
// l(M; phi, v) = -s <M phi, v> (s = +1: test-bed sign, s = -1: literal App. D.1).
template <class S> S dot_bias_loss(const Matrix<S>& M, const S* phi, const S* v, int s) {
  require(s == 1 || s == -1, "dot_bias_loss: sign s must be +1 or -1");
  S acc(0);
  for (std::size_t a = 0; a < M.rows; ++a) {
    const S r = dot(M.row(a), phi, M.cols);
    muladd(acc, r, v[a]);
  }
  return s > 0 ? S(-acc) : acc;
}
// Its gradient in M: -s v phi^T (d_v x D), independent of M (the bias is linear in the memory output).
template <class S> Matrix<S> dot_bias_gradient(std::size_t dv, std::size_t D, const S* phi, const S* v, int s) {
  require(s == 1 || s == -1, "dot_bias_gradient: sign s must be +1 or -1");
  Matrix<S> G(dv, D);
  add_outer(G, S(-s), v, phi);
  return G;
}

// A002-DLA (linear memory, Eq. 19), A002-DLA-D1 (sign reading s, Eqs. 50-51), A002-T1-DLA (row "DLA"):
// M_t = alpha_t M_{t-1} - eta_t grad l(M_{t-1}; phi(k_t), v_t) = alpha_t M_{t-1} + s eta_t v_t phi(k_t)^T,
// decay form (T); y_t = M_t phi(q_t). PhiQ, PhiK are the mapped queries / keys (phi = id: Q, K). With
// PhiK = phi*_P(K) (truncated exponential features) this is the linear DeepTransformer recurrence.
template <class S>
MemoryRun<S> dla_linear(const Matrix<S>& PhiQ, const Matrix<S>& PhiK, const Matrix<S>& V, const Vector<S>& alpha, const Vector<S>& eta,
                        int s = 1, const Matrix<S>* M0 = nullptr, bool keep_states = false) {
  const std::string who = "dla_linear";
  dt_detail::check_memory_inputs(PhiQ, PhiK, V, alpha, M0, s, who);
  require(eta.size() == V.rows, who + ": eta must have one learning rate per token");
  for (std::size_t t = 0; t < eta.size(); ++t) require(dt_detail::finite_(eta[t]), who + ": eta[" + std::to_string(t + 1) + "] is not finite");
  const std::size_t L = V.rows, dv = V.cols, D = PhiK.cols;
  MemoryRun<S> r;
  r.state = M0 ? *M0 : Matrix<S>(dv, D);
  r.Y = Matrix<S>(L, dv);
  for (std::size_t t = 0; t < L; ++t) {
    const Matrix<S> G = dot_bias_gradient(dv, D, PhiK.row(t), V.row(t), s);
    for (std::size_t e = 0; e < r.state.a.size(); ++e) {
      scale_inplace(r.state.a[e], alpha[t]);
      r.state.a[e] -= eta[t] * G.a[e];
    }
    matvec_into(r.Y.row(t), r.state, PhiQ.row(t));
    if (keep_states) r.states.push_back(r.state);
  }
  return r;
}

// A002-SWLA (Eq. 20, test-bed reading: alpha_t kept on the right-hand side, eta_t gamma_i^(t) folded into
// Gamma), A002-SWLA-D2 (s = -1, phi = id, Eqs. 53-55), A002-T1-SWDT (phi = phi*): one GD step on the window
// objective F_t(M) = sum_{i in W_t} Gamma_{t,i} l(M; phi(k_i), v_i) taken at M_{t-1}:
// M_t = alpha_t M_{t-1} - sum_{i in W_t} Gamma_{t,i} grad l(M_{t-1}; phi_i, v_i) = alpha_t M_{t-1} + s sum Gamma_{t,i} v_i phi_i^T.
template <class S>
MemoryRun<S> swla_linear(const Matrix<S>& PhiQ, const Matrix<S>& PhiK, const Matrix<S>& V, const Vector<S>& alpha, const Matrix<S>& Gamma,
                         std::size_t c, int s = 1, const Matrix<S>* M0 = nullptr, bool keep_states = false) {
  const std::string who = "swla_linear";
  dt_detail::check_memory_inputs(PhiQ, PhiK, V, alpha, M0, s, who);
  dt_detail::check_gamma(Gamma, V.rows, c, who);
  const std::size_t L = V.rows, dv = V.cols, D = PhiK.cols;
  MemoryRun<S> r;
  r.state = M0 ? *M0 : Matrix<S>(dv, D);
  r.Y = Matrix<S>(L, dv);
  for (std::size_t t = 0; t < L; ++t) {
    Matrix<S> G(dv, D);  // window-sum gradient at M_{t-1}
    for (std::size_t i = (t + 1 >= c ? t + 1 - c : 0); i <= t; ++i) {
      const Matrix<S> g = dot_bias_gradient(dv, D, PhiK.row(i), V.row(i), s);
      for (std::size_t e = 0; e < G.a.size(); ++e) muladd(G.a[e], Gamma(t, i), g.a[e]);
    }
    for (std::size_t e = 0; e < r.state.a.size(); ++e) {
      scale_inplace(r.state.a[e], alpha[t]);
      r.state.a[e] -= G.a[e];
    }
    matvec_into(r.Y.row(t), r.state, PhiQ.row(t));
    if (keep_states) r.states.push_back(r.state);
  }
  return r;
}

// A002-SLIDING-OBJ with the dot-product bias at 1-based step t (used by the update-contract checks):
// F_t(M) = sum_{i in W_t} Gamma_{t,i} l(M; phi_i, v_i).
template <class S>
S window_dot_bias_loss(const Matrix<S>& M, const Matrix<S>& PhiK, const Matrix<S>& V, const Matrix<S>& Gamma, std::size_t c, std::size_t t, int s) {
  require(t >= 1 && t <= V.rows && c >= 1, "window_dot_bias_loss: need 1 <= t <= L and c >= 1");
  S acc(0);
  for (std::size_t i = (t >= c ? t - c : 0); i < t; ++i) muladd(acc, Gamma(t - 1, i), dot_bias_loss(M, PhiK.row(i), V.row(i), s));
  return acc;
}

// A002-SWLA-CLOSED (derived from Eq. 20, M_0 = 0): M_T = sum_{i<=T} w_{T,i} v_i phi_i^T with
// w_{T,i} = sum_{n=i}^{min(T, i+c-1)} A_{n+1:T} Gamma_{n,i}, A_{n+1:T} = prod_{j=n+1}^{T} alpha_j (empty = 1).
// Returns the lower-triangular L x L matrix W (W(T-1, i-1) = w_{T,i}).
template <class S> Matrix<S> swla_token_weights(const Vector<S>& alpha, const Matrix<S>& Gamma, std::size_t c) {
  const std::size_t L = alpha.size();
  dt_detail::check_gamma(Gamma, L, c, "swla_token_weights");
  Matrix<S> W(L, L);
  for (std::size_t T = 0; T < L; ++T)
    for (std::size_t i = 0; i <= T; ++i) {
      S w(0);
      for (std::size_t n = i; n <= T && n < i + c; ++n) {
        S A(1);
        for (std::size_t j = n + 1; j <= T; ++j) A *= alpha[j];
        muladd(w, A, Gamma(n, i));
      }
      W(T, i) = w;
    }
  return W;
}

// A002-T1-DT (Table 1 row DeepTransformer with general gates; A002-DT-STRICT-GEN): the token weights of the
// linear recurrence M_t = alpha_t M_{t-1} + eta_t v_t phi(k_t)^T, D_{t,i} = A_{i+1:t} eta_i 1[i <= t].
template <class S> Matrix<S> dt_token_weights(const Vector<S>& alpha, const Vector<S>& eta) {
  require(alpha.size() == eta.size(), "dt_token_weights: alpha and eta must have one entry per token");
  const std::size_t L = alpha.size();
  Matrix<S> W(L, L);
  for (std::size_t t = 0; t < L; ++t)
    for (std::size_t i = 0; i <= t; ++i) {
      S A(1);
      for (std::size_t j = i + 1; j <= t; ++j) A *= alpha[j];
      W(t, i) = A * eta[i];
    }
  return W;
}

// Kernel read-out of a weighted Hebbian memory (A002-HEBBIAN-KERNEL-ATTN form with explicit token weights):
// y_t = sum_{i<=t} W_{t,i} kappa(k_i, q_t) v_i; kappa(k_row, q_row) -> S on the raw rows.
template <class S, class Kernel>
Matrix<S> token_weighted_kernel_readout(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Matrix<S>& W, Kernel kappa) {
  require(Q.rows == K.rows && K.rows == V.rows, "token_weighted_kernel_readout: Q, K, V must have one row per token");
  require(W.rows == V.rows && W.cols == V.rows, "token_weighted_kernel_readout: W must be L x L");
  Matrix<S> Y(V.rows, V.cols);
  for (std::size_t t = 0; t < V.rows; ++t)
    for (std::size_t i = 0; i <= t; ++i) {
      if (W(t, i) == S(0)) continue;
      const S w = W(t, i) * kappa(K.row(i), Q.row(t));
      for (std::size_t c = 0; c < V.cols; ++c) muladd(Y(t, c), w, V(i, c));
    }
  return Y;
}

// An unnormalised exp-kernel output carried with log-scales: y_t = exp(log_scale_t) * Y_t (F7's
// "scaled output, log-scale m" pair; for mp_t unscale() returns y_t itself).
template <class S> struct LogScaledOutput {
  Matrix<S> Y;
  Vector<S> log_scale;
  Matrix<S> unscale() const {
    Matrix<S> out = Y;
    for (std::size_t t = 0; t < Y.rows; ++t) {
      const S f = nw_detail::exp_(log_scale[t]);
      for (std::size_t c = 0; c < Y.cols; ++c) scale_inplace(out(t, c), f);
    }
    return out;
  }
};

// y_t = sum_{i<=t} W_{t,i} exp(tau q_t^T k_i) v_i through the row maximum m_t of the logits with W_{t,i} != 0:
// Y_t = sum_i W_{t,i} exp(tau q_t^T k_i - m_t) v_i, log_scale_t = m_t (a row with no nonzero weight: Y_t = 0, m_t = 0).
template <class S>
LogScaledOutput<S> token_weighted_exp_readout(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Matrix<S>& W, const S& tau) {
  const std::string who = "token_weighted_exp_readout";
  require(Q.rows == K.rows && K.rows == V.rows && Q.cols == K.cols, who + ": Q, K, V must have one row per token and Q, K one width");
  require(W.rows == V.rows && W.cols == V.rows, who + ": W must be L x L");
  require(dt_detail::finite_(tau) && tau > S(0), who + ": scale tau must be finite and > 0");
  dt_detail::require_finite(Q, who, "Q");
  dt_detail::require_finite(K, who, "K");
  dt_detail::require_finite(V, who, "V");
  dt_detail::require_finite(W, who, "W");
  const std::size_t L = V.rows;
  LogScaledOutput<S> r{Matrix<S>(L, V.cols), Vector<S>(L, S(0))};
  Vector<S> z(L);
  for (std::size_t t = 0; t < L; ++t) {
    bool have = false;
    S m(0);
    for (std::size_t i = 0; i <= t; ++i) {
      z[i] = tau * dot(Q.row(t), K.row(i), Q.cols);
      if (W(t, i) != S(0) && (!have || z[i] > m)) {
        m = z[i];
        have = true;
      }
    }
    r.log_scale[t] = m;
    for (std::size_t i = 0; i <= t; ++i) {
      if (W(t, i) == S(0)) continue;
      const S w = W(t, i) * nw_detail::exp_(S(z[i] - m));
      for (std::size_t c = 0; c < V.cols; ++c) muladd(r.Y(t, c), w, V(i, c));
    }
  }
  return r;
}

// ---- truncated exponential feature map phi*_P in weighted-monomial coordinates -----------------------
// phi*_P(x) = [x^a / sqrt(a!)]_{|a| <= P} (a a multi-index in N^d, a! = prod_j a_j!): by the multinomial theorem
// phi*_P(x)^T phi*_P(y) = sum_{p<=P} (x^T y)^p / p!, the same kernel as the Kronecker exp_trunc map of
// feature_maps.hpp (A000-EXP-TRUNC) in C(d+P, P) instead of sum_p d^p coordinates (A002-EXP-FEATURE-MAP's
// second coordinate system, needed here because the truncation orders below are 60-150).
inline std::size_t exp_monomial_dim(std::size_t d, int P) {
  require(P >= 0, "exp_monomial_dim: order P must be >= 0");
  // C(d + P, P) by the multiplicative formula (exact at every step)
  unsigned long long r = 1;
  for (std::size_t k = 1; k <= d; ++k) r = r * static_cast<unsigned long long>(static_cast<std::size_t>(P) + k) / k;
  return static_cast<std::size_t>(r);
}
template <class S> Vector<S> exp_feature_monomial(const S* x, std::size_t d, int P) {
  require(d >= 1, "exp_feature_monomial: input width d must be >= 1");
  require(P >= 0, "exp_feature_monomial: order P must be >= 0");
  for (std::size_t j = 0; j < d; ++j) require(dt_detail::finite_(x[j]), "exp_feature_monomial: non-finite input at position " + std::to_string(j + 1));
  // per-coordinate tables x_j^a / sqrt(a!), a = 0..P
  std::vector<Vector<S>> tab(d, Vector<S>(static_cast<std::size_t>(P) + 1));
  for (std::size_t j = 0; j < d; ++j) {
    S pw(1), fact(1);
    for (int a = 0; a <= P; ++a) {
      if (a > 0) {
        pw *= x[j];
        fact *= S(a);
      }
      tab[j][static_cast<std::size_t>(a)] = pw / nw_detail::sqrt_(fact);
    }
  }
  Vector<S> out;
  out.reserve(exp_monomial_dim(d, P));
  // enumerate multi-indices with |a| <= P, lexicographic in (a_1, ..., a_d), a_1 slowest
  std::vector<int> a(d, 0);
  std::vector<S> partial(d + 1, S(1));  // partial[j] = prod_{l<j} tab[l][a_l]
  std::function<void(std::size_t, int)> rec = [&](std::size_t j, int left) {
    if (j == d) {
      out.push_back(partial[d]);
      return;
    }
    for (int v = 0; v <= left; ++v) {
      a[j] = v;
      partial[j + 1] = partial[j] * tab[j][static_cast<std::size_t>(v)];
      rec(j + 1, left - v);
    }
  };
  rec(0, P);
  return out;
}
template <class S> Matrix<S> exp_feature_monomial_rows(const Matrix<S>& X, int P) {
  const std::size_t D = exp_monomial_dim(X.cols, P);
  Matrix<S> out(X.rows, D);
  for (std::size_t t = 0; t < X.rows; ++t) {
    const Vector<S> f = exp_feature_monomial(X.row(t), X.cols, P);
    for (std::size_t c = 0; c < D; ++c) out(t, c) = f[c];
  }
  return out;
}

// Lagrange remainder of the exponential's Taylor polynomial: for |x| <= X,
// |e^x - sum_{p<=P} x^p/p!| = e^xi |x|^{P+1}/(P+1)! <= X^{P+1} e^X / (P+1)!  (xi between 0 and x).
// Returns log10 of the bound (-inf for X = 0).
inline double exp_taylor_remainder_log10(double X, int P) {
  require(X >= 0 && std::isfinite(X), "exp_taylor_remainder_log10: X must be finite and >= 0");
  require(P >= 0, "exp_taylor_remainder_log10: order P must be >= 0");
  if (X == 0) return -INFINITY;
  return ((P + 1) * std::log(X) + X - std::lgamma(static_cast<double>(P) + 2.0)) / std::log(10.0);
}
// The smallest order P with log10(scale) + log10(bound(X, P)) <= log10_target (scale: the sum of the
// |token weight| * ||v_i|| that multiplies each truncated kernel value in an output).
inline int exp_truncation_order(double X, double log10_scale, double log10_target, int max_order = 400) {
  for (int P = 0; P <= max_order; ++P)
    if (log10_scale + exp_taylor_remainder_log10(X, P) <= log10_target) return P;
  throw std::invalid_argument("exp_truncation_order: no order <= " + std::to_string(max_order) + " reaches the target");
}

// A002-DEEPTRANSFORMER (Eqs. 25-26, alpha = eta = 1) / A002-T1-DT (general gates), kernel form F7 reference:
// y_t = sum_{i<=t} A_{i+1:t} eta_i exp(tau q_t^T k_i) v_i (index q_i -> q_t, A-15), with log-scales.
template <class S>
LogScaledOutput<S> deep_transformer_kernel(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& alpha,
                                           const Vector<S>& eta, const S& tau = S(1)) {
  require(alpha.size() == V.rows, "deep_transformer_kernel: alpha must have one gate per token");
  return token_weighted_exp_readout(Q, K, V, dt_token_weights(alpha, eta), tau);
}
// A002-DEEPTRANSFORMER / A002-T1-DT recurrence on truncated phi*_P (weighted monomials): dla_linear with
// s = +1 on PhiK = phi*_P(K), PhiQ = phi*_P(Q) (tau = 1; pre-scale q, k by tau^{1/2} otherwise).
template <class S>
MemoryRun<S> deep_transformer_truncated(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& alpha,
                                        const Vector<S>& eta, int order, bool keep_states = false) {
  require(Q.cols == K.cols, "deep_transformer_truncated: Q and K must have the same width");
  return dla_linear(exp_feature_monomial_rows(Q, order), exp_feature_monomial_rows(K, order), V, alpha, eta, 1, static_cast<const Matrix<S>*>(nullptr), keep_states);
}
// A002-SWDT kernel form: y_t = sum_{i<=t} w_{t,i} exp(tau q_t^T k_i) v_i with the A002-SWLA-CLOSED weights.
template <class S>
LogScaledOutput<S> swdt_kernel(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& alpha, const Matrix<S>& Gamma,
                               std::size_t c, const S& tau = S(1)) {
  return token_weighted_exp_readout(Q, K, V, swla_token_weights(alpha, Gamma, c), tau);
}
// A002-SWDT / A002-T1-SWDT recurrence on truncated phi*_P: swla_linear with s = +1 on phi*_P features.
template <class S>
MemoryRun<S> swdt_truncated(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& alpha, const Matrix<S>& Gamma,
                            std::size_t c, int order, bool keep_states = false) {
  require(Q.cols == K.cols, "swdt_truncated: Q and K must have the same width");
  return swla_linear(exp_feature_monomial_rows(Q, order), exp_feature_monomial_rows(K, order), V, alpha, Gamma, c, 1, static_cast<const Matrix<S>*>(nullptr), keep_states);
}

// A002-SWA-LOCAL (Eq. 18, s(k_i, q_i) -> s(k_i, q_t), A-29): y_t = argmin_m sum_{i in W_t} s(k_i, q_t) ||v_i - m||^2,
// the Nadaraya-Watson minimiser over the window with the similarity given by its logarithm logsim(k, q, d)
// (weights by max-subtraction, nadaraya_watson.hpp).
template <class S, class LogSim>
Matrix<S> causal_window_nw_attention(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, std::size_t c, LogSim logsim) {
  require(Q.rows == K.rows && K.rows == V.rows && Q.cols == K.cols, "causal_window_nw_attention: shape mismatch");
  require(c >= 1, "causal_window_nw_attention: window length c must be >= 1");
  Matrix<S> Y(Q.rows, V.cols);
  for (std::size_t t = 0; t < Q.rows; ++t) {
    const std::size_t lo = t + 1 >= c ? t + 1 - c : 0;
    Vector<S> l(t + 1 - lo);
    Matrix<S> Vw(t + 1 - lo, V.cols);
    for (std::size_t i = lo; i <= t; ++i) {
      l[i - lo] = logsim(K.row(i), Q.row(t), Q.cols);
      for (std::size_t c2 = 0; c2 < V.cols; ++c2) Vw(i - lo, c2) = V(i, c2);
    }
    const Vector<S> m = nw_minimizer(normalized_weights(l), Vw);
    for (std::size_t c2 = 0; c2 < V.cols; ++c2) Y(t, c2) = m[c2];
  }
  return Y;
}

}  // namespace recall::ref
