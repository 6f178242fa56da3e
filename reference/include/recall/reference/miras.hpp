// The Miras framework of paper A002 (Atlas, §2-3, App. B, Table 1), written from the definitions:
// attentional biases (l2, dot product, l_p), the optimizers that turn them into update rules (GD, decayed GD
// in placement T, GD with momentum, the proximal retention step), a central-difference gradient for the
// update contract, the retention objective, the global objective, window gate tensors, the general linear
// recurrence, and the Table 1 rows that have no reference elsewhere (SWA ring buffer, value-axis GLA,
// RWKV-7 vector decay, Titans momentum memory, Moneta, Memora in the log domain).
//
// Conventions (spec A002 Conventions, README §1): memory M is d_v x D with read-out M phi(q); tokens are
// rows; the l2 bias is ||.||^2 (no 1/2) unless half_l2; the dot bias is -<M phi, v> (sign s = -1; the
// literal printed sign s = +1 is a selectable reading); delta-type transitions multiply on the right.
// Rows that are the same computation as an existing reference (linear attention, gated LA, DeltaNet,
// gated delta rule, Longhorn, softmax attention, TTT) are not redefined here: the claim checks use
// linear_attention.hpp, delta_rule.hpp, softmax.hpp, regression_rules.hpp.
// IDs: A002-ASSOC-MEM-DEF, A002-LINRNN-GENERAL, A002-RETENTION-ONLINE, A002-RETENTION-PROXIMAL,
// A002-GLOBAL-OBJ, A002-GATES, A002-T1-SWA, A002-T1-GLA-VALGATE, A002-T1-RWKV7, A002-T1-TITANS,
// A002-T1-MONETA, A002-T1-MEMORA, A002-T1-MEMORA-ALL.
#pragma once

#include "recall/reference/least_squares.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/matrix.hpp"
#include "recall/reference/softmax.hpp"

#include <functional>
#include <string>
#include <vector>

namespace recall::ref {

namespace miras_detail {
template <class S> S sign_of(const S& x) { return x > S(0) ? S(1) : (x < S(0) ? S(-1) : S(0)); }
// finite for floating types; exact rationals (PQ checks) are always finite
template <class S> bool finite_value(const S& x) {
  if constexpr (boost::multiprecision::number_category<S>::value == boost::multiprecision::number_kind_rational) return true;
  else return is_finite(x);
}
}  // namespace miras_detail

// ---- A002-ASSOC-MEM-DEF: attentional biases ---------------------------------------------------------

// Which attentional bias l(y; v) of a prediction y = M(phi(k)) against the value v (Definition 1):
//  l2:  ||y - v||_2^2 (half_l2: 1/2 ||y - v||^2);  dot: s <y, v> (s = -1 implemented, s = +1 the printed
//  literal sign);  lp: ||y - v||_p^p = sum_j |y_j - v_j|^p (Moneta), p > 0.
enum class BiasKind { l2, dot, lp };
struct Bias {
  BiasKind kind = BiasKind::l2;
  bool half_l2 = false;  // l2 only: use 1/2 ||.||^2 (beta = eta) instead of ||.||^2 (beta = 2 eta)
  int dot_sign = -1;     // dot only: -1 (implemented) or +1 (printed literal)
  double p = 2;          // lp only
};

// A002-ASSOC-MEM-DEF: the bias value l(y; v) for y, v of length d_v.
template <class S> S bias_value(const Bias& b, const S* y, const S* v, std::size_t dv) {
  using std::abs; using std::pow;
  using boost::multiprecision::abs; using boost::multiprecision::pow;
  S acc(0);
  switch (b.kind) {
    case BiasKind::l2:
      for (std::size_t j = 0; j < dv; ++j) { const S r = y[j] - v[j]; muladd(acc, r, r); }
      if (b.half_l2) acc /= S(2);
      return acc;
    case BiasKind::dot:
      for (std::size_t j = 0; j < dv; ++j) muladd(acc, y[j], v[j]);
      return b.dot_sign < 0 ? S(-acc) : acc;
    case BiasKind::lp: {
      require(b.p > 0, "bias_value: l_p bias needs p > 0");
      const S p(b.p);
      for (std::size_t j = 0; j < dv; ++j) {
        const S r = abs(S(y[j] - v[j]));
        if (r != S(0)) acc += pow(r, p);
      }
      return acc;
    }
  }
  return acc;
}

// A002-ASSOC-MEM-DEF: dl/dy written from the bias (chain rule input): l2: 2 (y - v) (half_l2: y - v);
// dot: s v; lp (A002-T1-MONETA): p sign(r) |r|^{p-1}, r = y - v, with the subgradient 0 at r_j = 0.
template <class S> Vector<S> bias_output_grad(const Bias& b, const S* y, const S* v, std::size_t dv) {
  using std::abs; using std::pow;
  using boost::multiprecision::abs; using boost::multiprecision::pow;
  Vector<S> g(dv, S(0));
  for (std::size_t j = 0; j < dv; ++j) {
    const S r = y[j] - v[j];
    switch (b.kind) {
      case BiasKind::l2: g[j] = b.half_l2 ? r : S(S(2) * r); break;
      case BiasKind::dot: g[j] = b.dot_sign < 0 ? S(-v[j]) : v[j]; break;
      case BiasKind::lp: {
        require(b.p > 0, "bias_output_grad: l_p bias needs p > 0");
        if (r == S(0)) { g[j] = S(0); break; }
        const S p(b.p);
        g[j] = p * miras_detail::sign_of(r) * pow(S(abs(r)), S(p - S(1)));
        break;
      }
    }
  }
  return g;
}

// A002-ASSOC-MEM-DEF, linear memory: l(M; phi, v) = bias(M phi, v), M: d_v x D.
template <class S> S linear_memory_loss(const Bias& b, const Matrix<S>& M, const S* phi, const S* v) {
  const Vector<S> y = matvec(M, phi);
  return bias_value(b, y.data(), v, M.rows);
}
// ... and its gradient (dl/dy) phi^T.
template <class S> Matrix<S> linear_memory_grad(const Bias& b, const Matrix<S>& M, const S* phi, const S* v) {
  const Vector<S> y = matvec(M, phi);
  const Vector<S> g = bias_output_grad(b, y.data(), v, M.rows);
  Matrix<S> G(M.rows, M.cols);
  add_outer(G, g.data(), phi);
  return G;
}

// ---- A002-ASSOC-MEM-DEF: memory parameters, the update contract's gradient and the optimizers ---------

// Memory parameters theta_M = {W_1, ..., W_L} (a linear memory has one matrix).
template <class S> using Params = std::vector<Matrix<S>>;

// A002-ASSOC-MEM-DEF: central differences of a scalar objective F over every parameter entry,
// (F(theta + h e) - F(theta - h e)) / (2h). Exact for quadratic F up to rounding; error O(h^2 F''') +
// O(u |F| / h) otherwise (P2 with h = 10^-30 gives >= 40 digits for smooth F of moderate size).
template <class S> Params<S> central_difference_gradient(const std::function<S(const Params<S>&)>& F, const Params<S>& theta, const S& h) {
  require(h > S(0), "central_difference_gradient: step h must be > 0");
  Params<S> G;
  Params<S> x = theta;
  for (std::size_t m = 0; m < theta.size(); ++m) {
    G.emplace_back(theta[m].rows, theta[m].cols);
    for (std::size_t i = 0; i < theta[m].a.size(); ++i) {
      const S x0 = x[m].a[i];
      x[m].a[i] = x0 + h;
      const S fp = F(x);
      x[m].a[i] = x0 - h;
      const S fm = F(x);
      x[m].a[i] = x0;
      G[m].a[i] = (fp - fm) / (S(2) * h);
    }
  }
  return G;
}

namespace miras_detail {
template <class S> void check_like(const Params<S>& a, const Params<S>& b, const char* who, const char* what) {
  require(a.size() == b.size(), std::string(who) + ": " + what + " has a different number of matrices than the parameters");
  for (std::size_t m = 0; m < a.size(); ++m)
    require(a[m].rows == b[m].rows && a[m].cols == b[m].cols,
            std::string(who) + ": " + what + " matrix " + std::to_string(m + 1) + " has the wrong shape");
}
}  // namespace miras_detail

// A002-ASSOC-MEM-DEF optimizer "GD" with decay placement T: theta' = alpha theta - eta G (alpha = 1: plain GD).
// Placement G (Gated DeltaNet row) is the same step with G evaluated at alpha theta by the caller.
template <class S> Params<S> decayed_gd_step(const Params<S>& theta, const Params<S>& G, const S& alpha, const S& eta) {
  miras_detail::check_like(theta, G, "decayed_gd_step", "gradient");
  require(miras_detail::finite_value(alpha) && miras_detail::finite_value(eta), "decayed_gd_step: alpha and eta must be finite");
  Params<S> out = theta;
  for (std::size_t m = 0; m < out.size(); ++m)
    for (std::size_t i = 0; i < out[m].a.size(); ++i) out[m].a[i] = alpha * theta[m].a[i] - eta * G[m].a[i];
  return out;
}

// A002-ASSOC-MEM-DEF optimizer "GD with momentum" (Eqs. 12-13 naming, A002-T1-TITANS):
// S_t = theta_t S_{t-1} - eta_t G, theta_M' = alpha_t theta_M + S_t (momentum updated in place).
template <class S>
Params<S> momentum_step(const Params<S>& theta, Params<S>& mom, const Params<S>& G, const S& alpha, const S& theta_mom, const S& eta) {
  miras_detail::check_like(theta, G, "momentum_step", "gradient");
  miras_detail::check_like(theta, mom, "momentum_step", "momentum");
  Params<S> out = theta;
  for (std::size_t m = 0; m < out.size(); ++m)
    for (std::size_t i = 0; i < out[m].a.size(); ++i) {
      mom[m].a[i] = theta_mom * mom[m].a[i] - eta * G[m].a[i];
      out[m].a[i] = alpha * theta[m].a[i] + mom[m].a[i];
    }
  return out;
}

// ---- A002-RETENTION-ONLINE / A002-RETENTION-PROXIMAL -------------------------------------------------

// A002-RETENTION-ONLINE (Eq. 6, test-bed instantiation): F(M) = l(M) + Ret_t(M, M_{t-1}),
// Ret_t = 1/(2 eta) ||M - M_{t-1}||_F^2 + lambda/2 ||M||_F^2 (eta > 0, lambda >= 0); `loss` is l(M).
template <class S>
S retention_online_objective(const std::function<S(const Matrix<S>&)>& loss, const Matrix<S>& M, const Matrix<S>& Mprev, const S& eta,
                             const S& lambda) {
  require(eta > S(0), "retention_online_objective: eta must be > 0");
  require(!(lambda < S(0)), "retention_online_objective: lambda must be >= 0");
  require(M.rows == Mprev.rows && M.cols == Mprev.cols, "retention_online_objective: M and M_prev differ in shape");
  S prox(0), ridge(0);
  for (std::size_t i = 0; i < M.a.size(); ++i) {
    const S d = M.a[i] - Mprev.a[i];
    muladd(prox, d, d);
    muladd(ridge, M.a[i], M.a[i]);
  }
  return loss(M) + prox / (S(2) * eta) + lambda * ridge / S(2);
}

// A002-RETENTION-PROXIMAL: the minimiser of <G, M - M_{t-1}> + Ret_t (l linearised at M_{t-1}, G its gradient):
// M_t = M_{t-1} / (1 + eta lambda) - eta / (1 + eta lambda) G  (decay form T, alpha = 1/(1 + eta lambda)).
template <class S> Matrix<S> retention_proximal_step(const Matrix<S>& Mprev, const Matrix<S>& G, const S& eta, const S& lambda) {
  require(eta > S(0), "retention_proximal_step: eta must be > 0");
  require(!(lambda < S(0)) && is_finite(lambda), "retention_proximal_step: lambda must be finite and >= 0");
  require(Mprev.rows == G.rows && Mprev.cols == G.cols, "retention_proximal_step: gradient shape differs from M_prev");
  const S den = S(1) + eta * lambda;
  Matrix<S> out(Mprev.rows, Mprev.cols);
  for (std::size_t i = 0; i < out.a.size(); ++i) out.a[i] = (Mprev.a[i] - eta * G.a[i]) / den;
  return out;
}

// ---- A002-GLOBAL-OBJ, A002-GATES ---------------------------------------------------------------------

// A002-GLOBAL-OBJ (Eq. 7): F^glob_t(M) = sum_{i<=t} l(M; phi_i, v_i) (t 1-based, PhiK rows = phi(k_i)).
template <class S> S global_objective(const Bias& b, const Matrix<S>& M, const Matrix<S>& PhiK, const Matrix<S>& V, std::size_t t) {
  require(PhiK.rows == V.rows && t <= PhiK.rows, "global_objective: t exceeds the sequence or PhiK, V differ in length");
  require(M.rows == V.cols && M.cols == PhiK.cols, "global_objective: M must be d_v x D");
  S acc(0);
  for (std::size_t i = 0; i < t; ++i) acc += linear_memory_loss(b, M, PhiK.row(i), V.row(i));
  return acc;
}

// A002-GATES: 1-based window W_t = {max(1, t-c+1), ..., t} membership (truncated at the sequence start, A-24).
inline bool in_window(std::size_t i, std::size_t t, std::size_t c) {
  require(c >= 1, "in_window: window length c must be >= 1");
  return i >= 1 && i <= t && i + c > t;
}
// A002-GATES: the dense banded gate tensor Gamma (L x L, 0-based storage), Gamma_{t,i} = gamma(t, i) 1[i in W_t]
// (gamma called with 1-based t, i only inside the window; values must lie in [0, 1] unless relaxed).
template <class S>
Matrix<S> window_gate_tensor(std::size_t L, std::size_t c, const std::function<S(std::size_t, std::size_t)>& gamma, bool relaxed = false) {
  require(c >= 1, "window_gate_tensor: window length c must be >= 1");
  Matrix<S> G(L, L);
  for (std::size_t t = 1; t <= L; ++t)
    for (std::size_t i = 1; i <= t; ++i) {
      if (!in_window(i, t, c)) continue;
      const S g = gamma(t, i);
      require(is_finite(g), "window_gate_tensor: gamma(" + std::to_string(t) + "," + std::to_string(i) + ") is not finite");
      require(relaxed || (!(g < S(0)) && !(g > S(1))),
              "window_gate_tensor: gamma(" + std::to_string(t) + "," + std::to_string(i) + ") outside [0,1]");
      G(t - 1, i - 1) = g;
    }
  return G;
}

// ---- A002-LINRNN-GENERAL ---------------------------------------------------------------------------------

// Transition A_t of Eq. 2 (right multiplication): scalar a_t I, diag(a_t), or diag(a_t) - u_t w_t^T.
enum class LinRnnTransition { scalar, diagonal, diag_low_rank };
// A002-LINRNN-GENERAL (Eq. 2, to implement): M_t = M_{t-1} A_t + v_t k_t^T, y_t = M_t q_t. A: T x d_k
// (scalar: column 1 used), U, W: T x d_k (diag_low_rank only). Returns outputs and the final state.
template <class S>
LinearAttentionResult<S> linrnn_general(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, LinRnnTransition kind, const Matrix<S>& A,
                                        const Matrix<S>* U = nullptr, const Matrix<S>* W = nullptr, const Matrix<S>* M0 = nullptr) {
  detail::check_qkv(Q, K, V, "linrnn_general");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  require(A.rows == T && (kind == LinRnnTransition::scalar ? A.cols >= 1 : A.cols == dk), "linrnn_general: A must be T x d_k (T x 1 for scalar)");
  if (kind == LinRnnTransition::diag_low_rank)
    require(U && W && U->rows == T && W->rows == T && U->cols == dk && W->cols == dk, "linrnn_general: U and W must be T x d_k");
  detail_ls::require_finite(A, "linrnn_general", "A");
  LinearAttentionResult<S> r;
  r.state = detail::initial_state(M0, dv, dk, "linrnn_general");
  r.O = Matrix<S>(T, dv);
  Vector<S> mu(dv);
  for (std::size_t t = 0; t < T; ++t) {
    if (kind == LinRnnTransition::diag_low_rank) matvec_into(mu.data(), r.state, U->row(t));  // M u (before the diagonal)
    for (std::size_t i = 0; i < dv; ++i)
      for (std::size_t j = 0; j < dk; ++j) scale_inplace(r.state(i, j), kind == LinRnnTransition::scalar ? A(t, 0) : A(t, j));
    if (kind == LinRnnTransition::diag_low_rank) add_outer(r.state, S(-1), mu.data(), W->row(t));
    add_outer(r.state, V.row(t), K.row(t));
    matvec_into(r.O.row(t), r.state, Q.row(t));
  }
  return r;
}

// ---- Table 1 rows without a reference elsewhere ------------------------------------------------------------

// A002-T1-SWA (to implement): ring buffer of the last c pairs; at step t > c evict (k_{t-c}, v_{t-c}), append
// (k_t, v_t), read out softmax attention of q_t over the buffer (logits scale q^T k).
template <class S> Matrix<S> swa_ring_buffer(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, std::size_t c, const S& scale) {
  detail::check_qkv(Q, K, V, "swa_ring_buffer");
  require(c >= 1, "swa_ring_buffer: window length c must be >= 1");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  Matrix<S> O(T, dv);
  std::vector<std::size_t> buf;  // 0-based token numbers held, oldest first
  for (std::size_t t = 0; t < T; ++t) {
    if (buf.size() == c) buf.erase(buf.begin());  // evicts token t - c (0-based), i.e. 1-based t+1-c
    buf.push_back(t);
    Matrix<S> Kb(buf.size(), dk), Vb(buf.size(), dv);
    for (std::size_t b = 0; b < buf.size(); ++b) {
      for (std::size_t j = 0; j < dk; ++j) Kb(b, j) = K(buf[b], j);
      for (std::size_t j = 0; j < dv; ++j) Vb(b, j) = V(buf[b], j);
    }
    const Vector<S> o = softmax_attend(Q.row(t), Kb, Vb, buf.size(), scale);
    for (std::size_t j = 0; j < dv; ++j) O(t, j) = o[j];
  }
  return O;
}

// A002-T1-GLA-VALGATE (reading V): M_t = Diag(a_t) M_{t-1} + v_t k_t^T, a_t in [0,1]^{d_v} given as log-gates
// (T x d_v, -inf for a zero gate), y_t = M_t q_t.
template <class S>
LinearAttentionResult<S> gated_linear_attention_value_axis(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Matrix<S>& log_gates,
                                                           const Matrix<S>* M0 = nullptr) {
  detail::check_qkv(Q, K, V, "gated_linear_attention_value_axis");
  require(log_gates.rows == Q.rows && log_gates.cols == V.cols, "gated_linear_attention_value_axis: log_gates must be T x d_v");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  LinearAttentionResult<S> r;
  r.state = detail::initial_state(M0, dv, dk, "gated_linear_attention_value_axis");
  r.O = Matrix<S>(T, dv);
  for (std::size_t t = 0; t < T; ++t) {
    for (std::size_t i = 0; i < dv; ++i) {
      require(!(log_gates(t, i) > S(0)) && !(log_gates(t, i) != log_gates(t, i)),
              "gated_linear_attention_value_axis: log_gates(" + std::to_string(t + 1) + "," + std::to_string(i + 1) + ") must be <= 0");
      const S a = exp_log(log_gates(t, i));
      for (std::size_t j = 0; j < dk; ++j) scale_inplace(r.state(i, j), a);
    }
    add_outer(r.state, V.row(t), K.row(t));
    matvec_into(r.O.row(t), r.state, Q.row(t));
  }
  return r;
}

// A002-T1-RWKV7 (to implement): M_t = M_{t-1}(diag(a_t) - beta_t k_t k_t^T) + beta_t v_t k_t^T
// = M_{t-1} diag(a_t) + beta_t (v_t - M_{t-1} k_t) k_t^T, a_t in [0,1]^{d_k} (log-gates T x d_k).
template <class S>
LinearAttentionResult<S> rwkv7_delta_rule(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& beta,
                                          const Matrix<S>& log_alpha, const Matrix<S>* M0 = nullptr) {
  detail::check_qkv(Q, K, V, "rwkv7_delta_rule");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  require(beta.size() == T, "rwkv7_delta_rule: beta must have one entry per token");
  require(log_alpha.rows == T && log_alpha.cols == dk, "rwkv7_delta_rule: log_alpha must be T x d_k");
  detail_ls::require_finite(beta, "rwkv7_delta_rule", "beta");
  LinearAttentionResult<S> r;
  r.state = detail::initial_state(M0, dv, dk, "rwkv7_delta_rule");
  r.O = Matrix<S>(T, dv);
  Vector<S> pred(dv), e(dv);
  for (std::size_t t = 0; t < T; ++t) {
    matvec_into(pred.data(), r.state, K.row(t));  // M_{t-1} k_t, before the decay
    for (std::size_t i = 0; i < dv; ++i) e[i] = beta[t] * (V(t, i) - pred[i]);
    for (std::size_t j = 0; j < dk; ++j) {
      require(!(log_alpha(t, j) > S(0)) && !(log_alpha(t, j) != log_alpha(t, j)),
              "rwkv7_delta_rule: log_alpha(" + std::to_string(t + 1) + "," + std::to_string(j + 1) + ") must be <= 0");
      const S a = exp_log(log_alpha(t, j));
      for (std::size_t i = 0; i < dv; ++i) scale_inplace(r.state(i, j), a);
    }
    add_outer(r.state, e.data(), K.row(t));
    matvec_into(r.O.row(t), r.state, Q.row(t));
  }
  return r;
}

// Per-token gates of the Titans / Moneta / Memora rows: alpha_t in [0,1] (weight decay), eta_t > 0 (step),
// theta_t in [0,1) (momentum; Titans only).
template <class S> struct RowGates {
  Vector<S> alpha, eta, theta;
};
namespace miras_detail {
template <class S> void check_gates(const RowGates<S>& g, std::size_t T, bool momentum, const char* who) {
  require(g.alpha.size() == T && g.eta.size() == T, std::string(who) + ": alpha and eta need one entry per token");
  if (momentum) require(g.theta.size() == T, std::string(who) + ": theta needs one entry per token");
  for (std::size_t t = 0; t < T; ++t) {
    require(!(g.alpha[t] < S(0)) && !(g.alpha[t] > S(1)) && is_finite(g.alpha[t]),
            std::string(who) + ": alpha[" + std::to_string(t + 1) + "] must lie in [0,1]");
    require(is_finite(g.eta[t]) && g.eta[t] > S(0), std::string(who) + ": eta[" + std::to_string(t + 1) + "] must be finite and > 0");
    if (momentum)
      require(!(g.theta[t] < S(0)) && g.theta[t] < S(1), std::string(who) + ": theta[" + std::to_string(t + 1) + "] must lie in [0,1)");
  }
}
}  // namespace miras_detail

// A002-T1-TITANS (Eqs. 12-13 naming, linear memory): S_t = theta_t S_{t-1} - eta_t grad l(M_{t-1}; k_t, v_t),
// M_t = alpha_t M_{t-1} + S_t, l the l2 bias (half_l2 selectable), y_t = M_t q_t; S_0 = 0.
template <class S>
LinearAttentionResult<S> titans_memory(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const RowGates<S>& g, bool half_l2 = false,
                                       const Matrix<S>* M0 = nullptr) {
  detail::check_qkv(Q, K, V, "titans_memory");
  miras_detail::check_gates(g, Q.rows, true, "titans_memory");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  Bias b;
  b.half_l2 = half_l2;
  LinearAttentionResult<S> r;
  r.state = detail::initial_state(M0, dv, dk, "titans_memory");
  r.O = Matrix<S>(T, dv);
  Matrix<S> mom(dv, dk);
  for (std::size_t t = 0; t < T; ++t) {
    const Matrix<S> G = linear_memory_grad(b, r.state, K.row(t), V.row(t));
    for (std::size_t i = 0; i < mom.a.size(); ++i) {
      mom.a[i] = g.theta[t] * mom.a[i] - g.eta[t] * G.a[i];
      r.state.a[i] = g.alpha[t] * r.state.a[i] + mom.a[i];
    }
    matvec_into(r.O.row(t), r.state, Q.row(t));
  }
  return r;
}

// A002-T1-MONETA (linear memory): M_t = alpha_t M_{t-1} - eta_t (p sign(r) |r|^{p-1}) k_t^T, r = M_{t-1} k_t - v_t
// (index M_{i-1} -> M_{t-1}; subgradient 0 at r_j = 0), y_t = M_t q_t.
template <class S>
LinearAttentionResult<S> moneta_memory(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, double p, const RowGates<S>& g,
                                       const Matrix<S>* M0 = nullptr) {
  detail::check_qkv(Q, K, V, "moneta_memory");
  miras_detail::check_gates(g, Q.rows, false, "moneta_memory");
  require(p > 0, "moneta_memory: p must be > 0");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  Bias b;
  b.kind = BiasKind::lp;
  b.p = p;
  LinearAttentionResult<S> r;
  r.state = detail::initial_state(M0, dv, dk, "moneta_memory");
  r.O = Matrix<S>(T, dv);
  for (std::size_t t = 0; t < T; ++t) {
    const Matrix<S> G = linear_memory_grad(b, r.state, K.row(t), V.row(t));
    for (std::size_t i = 0; i < G.a.size(); ++i) r.state.a[i] = g.alpha[t] * r.state.a[i] - g.eta[t] * G.a[i];
    matvec_into(r.O.row(t), r.state, Q.row(t));
  }
  return r;
}

// Memora's softmax axis: row-wise over the key index of each memory row (A002-T1-MEMORA, reading R) or
// jointly over all d_v D entries (A002-T1-MEMORA-ALL, reading A).
enum class MemoraAxis { rows, all };
template <class S> struct MemoraResult {
  Matrix<S> O;                   // T x d_v outputs y_t = M_t q_t
  std::vector<Matrix<S>> logM;   // Lambda_0 .. Lambda_T (log-domain states)
};
// A002-T1-MEMORA / A002-T1-MEMORA-ALL: Lambda_t = Z - logsumexp(Z) (per row, or over all entries),
// Z = alpha_t Lambda_{t-1} - eta_t grad l(M_{t-1}; k_t, v_t), M_{t-1} = exp(Lambda_{t-1}), l the l2 bias
// (half_l2 selectable); M_0 uniform (Lambda_0 = -log D per row, -log(d_v D) for reading A). The state never
// leaves the log domain; log-sum-exp is max-subtracted.
template <class S>
MemoraResult<S> memora_memory(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const RowGates<S>& g, MemoraAxis axis,
                              bool half_l2 = false) {
  using std::exp; using std::log;
  using boost::multiprecision::exp; using boost::multiprecision::log;
  detail::check_qkv(Q, K, V, "memora_memory");
  miras_detail::check_gates(g, Q.rows, false, "memora_memory");
  detail_ls::require_finite(K, "memora_memory", "K");
  detail_ls::require_finite(V, "memora_memory", "V");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  require(dk >= 1 && dv >= 1, "memora_memory: d_k and d_v must be >= 1");
  Bias b;
  b.half_l2 = half_l2;
  MemoraResult<S> r;
  r.O = Matrix<S>(T, dv);
  Matrix<S> L(dv, dk);
  const S l0 = -log(S(axis == MemoraAxis::rows ? dk : dk * dv));
  for (S& x : L.a) x = l0;
  r.logM.push_back(L);
  // normalise the entries [b0, b1) of Z in place: Z - (max + log sum exp(Z - max))
  auto lse_normalize = [](Matrix<S>& Z, std::size_t b0, std::size_t b1) {
    S m = Z.a[b0];
    for (std::size_t i = b0; i < b1; ++i) if (Z.a[i] > m) m = Z.a[i];
    S s(0);
    for (std::size_t i = b0; i < b1; ++i) s += exp(S(Z.a[i] - m));
    const S lse = m + log(s);
    for (std::size_t i = b0; i < b1; ++i) Z.a[i] -= lse;
  };
  for (std::size_t t = 0; t < T; ++t) {
    Matrix<S> M(dv, dk);
    for (std::size_t i = 0; i < M.a.size(); ++i) M.a[i] = exp(L.a[i]);
    const Matrix<S> G = linear_memory_grad(b, M, K.row(t), V.row(t));
    Matrix<S> Z(dv, dk);
    for (std::size_t i = 0; i < Z.a.size(); ++i) Z.a[i] = g.alpha[t] * L.a[i] - g.eta[t] * G.a[i];
    if (axis == MemoraAxis::rows)
      for (std::size_t a = 0; a < dv; ++a) lse_normalize(Z, a * dk, (a + 1) * dk);
    else
      lse_normalize(Z, 0, Z.a.size());
    L = Z;
    r.logM.push_back(L);
    for (std::size_t i = 0; i < M.a.size(); ++i) M.a[i] = exp(L.a[i]);
    matvec_into(r.O.row(t), M, Q.row(t));
  }
  return r;
}

}  // namespace recall::ref
