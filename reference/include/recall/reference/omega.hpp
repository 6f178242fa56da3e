// The Omega rule of paper A002 (Atlas, §3.2-3.3, Eqs. 8-16) with a LINEAR memory M (d_v x D) on feature rows
// phi(k_t), written from the definitions (plain token loops, scalar-generic: recall::mp_t, double, recall::Counted).
// Deep (MLP) memories are not covered here.
//
// Conventions (spec A002 Conventions and README §1):
//   * tokens are rows, features already applied: PhiK, PhiQ are L x D (rows phi(k_t), phi(q_t)), V is L x d_v. For the
//     optimized kernel's "degree p" map use PhiK = ref::monomial_map(K, p) (polynomial_maps.hpp, the degree-<= p monomial map);
//     degree 0 is PhiK = K. Any other map: ref::apply_feature_map (feature_maps.hpp).
//   * window W_t = {max(1, t-c+1), ..., t} (1-based, truncated at the sequence start, A-24); 0-based storage.
//   * Gamma is the dense L x L gate tensor (row t, column i, 0-based): only entries with i in W_t are read, the rest are
//     ignored (empty Gamma = every window gate 1). omega_gamma_from_lags converts the optimized kernel's [L x c] layout
//     (gamma[t][j] = gamma_{t-j}^{(t)}, j = 0 the token itself) into it. Values are not restricted to [0, 1].
//   * decays are log-gates: log_alpha[t] = log alpha_t in [-inf, 0] (-inf: a zero gate, an exact reset; empty: alpha = 1).
//     Products A_{a:b} = exp(sum_{j=a}^{b} log alpha_j) are direct segment sums (never ratios), README §1.5.
//   * loss: a miras.hpp Bias; default l2 = ||M phi - v||^2 with gradient 2 (M phi - v) phi^T; Bias::half_l2 gives
//     1/2 ||.||^2 (gradient without the 2); BiasKind::lp is the l_q bias of A002-OMEGA-LQ.
//   * decay form (T): the gradient is taken at the undecayed previous state M_{t-1}; read after write y_t = M_t phi(q_t).
//
// Signatures for the optimized chunked Omega kernel (lead's agreement suite; OmegaInputs below):
//   OmegaResult<S> omega_rule(const OmegaInputs<S>& in, const Bias& b = {}, bool keep_states = false)
//       token-sequential Omega rule (exact): M_t = alpha_t M_{t-1} - eta_t sum_{i in W_t} Gamma(t,i) grad l_i(M_{t-1})
//   OmegaResult<S> omega_chunk(const OmegaInputs<S>& in, std::size_t b, const Bias& bias = {}, bool keep_states = false)
//       the paper's frozen-gradient chunk algorithm (Eq. 16, A-27) as a token loop: in chunk s..e every gradient is
//       evaluated at M_{s-1} (the state after the previous chunk); b = 1 is omega_rule.
//   OmegaResult<S> omega_chunk_linear(const OmegaInputs<S>& in, std::size_t b, bool half_l2 = false)
//       the same numbers in the tensorised chunk form (Y = diag(A) PhiQ M0^T - g (C o PhiQ PhiK^T) E, C = D Gamma),
//       which is what opt::omega_rule_chunked implements.
//   Outputs: Y (L x d_v, y_t = M_t phi(q_t)), state (M_L), states (M_0..M_L when keep_states), usage (per token: the
//   number of gradient terms it entered).
//
// IDs (one function each; secondary forms named with the ID they serve):
//   A002-SLIDING-OBJ              sliding_window_objective (Eq. 8) and its gradient sliding_window_gradient
//   A002-OMEGA-RULE               omega_rule (Eq. 9, one GD step per token); secondary: omega_rule_exact_chunked (exact
//                                 block-triangular chunk form of the token-sequential rule, l2 only)
//   A002-OMEGA-LQ                 omega_rule_lq (l_q bias, subgradient 0 at r = 0)
//   A002-OMEGA-PARALLEL-B1        omega_parallel_b1 (Eq. 15 as printed: c materialised gradients, shared rate eta_t)
//   A002-OMEGANET-LINEAR          omeganet_linear (Eq. 11 to implement: M_t = M_{t-1}(alpha_t I - beta G_t) + beta B_t)
//   A002-OMEGANET-LINEAR-VECDECAY omeganet_linear_vecdecay (diag(alpha_t) a per-feature decay)
//   A002-OMEGA-WLS-FIXEDPOINT     omega_wls_fixedpoint_closed (closed form of K GD steps on a fixed window);
//                                 omega_window_gd (the iteration, through ref::fullbatch_gd of full_batch_gd.hpp, group 15)
//   A002-OMEGA-NEWTON             omega_newton_step (B G^+ + M_{t-1}(I - G G^+))
//   A002-OMEGA-MOMENTUM           omega_momentum (Eqs. 12-13, window gradient)
//   A002-TITANS-IMPLICIT-DECAY    titans_implicit_weights, titans_unrolled_state (unrolled momentum memory)
//   A002-GLOBAL-LS                global_ls_state (Eq. 14: ridge_state / ls_state_pinv of the LS group 14) and
//                                 global_ls_rls (the RLS recursion: ref::rls of regression_rules.hpp)
//   A002-OMEGA-CHUNK              omega_chunk (frozen-gradient token loop); secondary: omega_chunk_eq16 (Eq. 16's
//                                 coefficient form with A_{n+1:t})
//   A002-OMEGA-CHUNK-LINEAR       omega_chunk_linear (tensorised chunk form, plain loops)
// Bad input (shapes, non-finite entries, NaN or positive log-gates, c = 0, b = 0, negative rates) throws
// std::invalid_argument naming the input.
#pragma once

#include "recall/reference/full_batch_gd.hpp"
#include "recall/reference/least_squares.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/matrix.hpp"
#include "recall/reference/miras.hpp"
#include "recall/reference/regression_rules.hpp"
#include "recall/reference/svd.hpp"
#include "recall/reference/weighted_least_squares.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

namespace recall::ref {

template <class S> struct OmegaInputs {
  Matrix<S> PhiQ, PhiK, V;  // L x D, L x D, L x d_v
  Vector<S> log_alpha;      // L log decays (empty: alpha = 1)
  Vector<S> eta;            // L learning rates eta_t >= 0
  Matrix<S> Gamma;          // L x L window gates, read only inside W_t (empty: all 1)
  std::size_t c = 1;        // window length
  Matrix<S> M0;             // d_v x D initial state (empty: zero)
};

template <class S> struct OmegaResult {
  Matrix<S> Y;                     // L x d_v outputs y_t = M_t phi(q_t)
  Matrix<S> state;                 // M_L
  std::vector<Matrix<S>> states;   // M_0..M_L (keep_states only)
  std::vector<std::size_t> usage;  // usage[i]: gradient terms token i entered
  Matrix<S> mom;                   // momentum S_L (omega_momentum only)
};

namespace omega_detail {
// finite entries, named "who: name(i, j) is not finite" (weighted_least_squares.hpp)
template <class S> void require_finite_mat(const Matrix<S>& X, const std::string& who, const char* name) {
  wls_detail::check_finite_matrix(X, who.c_str(), name);
}
template <class S> void require_log_gates(const Vector<S>& lg, std::size_t L, const std::string& who, const char* name) {
  if (lg.empty()) return;
  require(lg.size() == L, who + ": " + name + " must have one entry per token (L = " + std::to_string(L) + ")");
  for (std::size_t t = 0; t < L; ++t)
    require((is_finite(lg[t]) || is_neg_inf(lg[t])) && !(lg[t] > S(0)),
            who + ": " + name + "[" + std::to_string(t + 1) + "] must be a log-gate in [-inf, 0] (not NaN, not positive)");
}
template <class S> void check(const OmegaInputs<S>& in, const std::string& who) {
  const std::size_t L = in.PhiK.rows;
  require(L >= 1, who + ": PhiK has no rows (L = 0)");
  require(in.PhiK.cols >= 1 && in.V.cols >= 1, who + ": PhiK and V need at least one column");
  require(in.PhiQ.rows == L && in.V.rows == L, who + ": PhiQ, PhiK and V must have one row per token");
  require(in.PhiQ.cols == in.PhiK.cols, who + ": PhiQ and PhiK must have the same feature width D");
  require(in.c >= 1, who + ": window length c must be >= 1");
  require(in.eta.size() == L, who + ": eta must have one entry per token (L = " + std::to_string(L) + ")");
  for (std::size_t t = 0; t < L; ++t)
    require(is_finite(in.eta[t]) && !(in.eta[t] < S(0)), who + ": eta[" + std::to_string(t + 1) + "] must be finite and >= 0");
  require_log_gates(in.log_alpha, L, who, "log_alpha");
  require_finite_mat(in.PhiQ, who, "PhiQ");
  require_finite_mat(in.PhiK, who, "PhiK");
  require_finite_mat(in.V, who, "V");
  if (!in.Gamma.empty()) {
    require(in.Gamma.rows == L && in.Gamma.cols == L, who + ": Gamma must be L x L (empty: all window gates 1)");
    require_finite_mat(in.Gamma, who, "Gamma");
  }
  if (!in.M0.empty()) {
    require(in.M0.rows == in.V.cols && in.M0.cols == in.PhiK.cols, who + ": M0 must be d_v x D");
    require_finite_mat(in.M0, who, "M0");
  }
}
template <class S> Matrix<S> initial(const OmegaInputs<S>& in) { return in.M0.empty() ? Matrix<S>(in.V.cols, in.PhiK.cols) : in.M0; }
template <class S> S gate(const OmegaInputs<S>& in, std::size_t t0, std::size_t i0) { return in.Gamma.empty() ? S(1) : in.Gamma(t0, i0); }
template <class S> S alpha(const Vector<S>& lg, std::size_t t0) { return lg.empty() ? S(1) : exp_log(lg[t0]); }
// log A_{a:b} = sum_{j=a0}^{b0} lg[j] (0-based inclusive; 0 for a0 > b0, -inf with a zero gate), via segment_log_sum.
template <class S> S log_decay(const Vector<S>& lg, std::size_t a0, std::size_t b0) {
  if (lg.empty() || a0 > b0) return S(0);
  if (a0 == 0) return S(lg[0] + segment_log_sum(lg, 0, b0));
  return segment_log_sum(lg, a0 - 1, b0);
}
template <class S> S decay(const Vector<S>& lg, std::size_t a0, std::size_t b0) { return exp_log(log_decay(lg, a0, b0)); }
// the window-gradient terms at M for the window of t0: rows of G are the output gradients dl/dy of the window tokens
// lo..t0 (G row r for token lo + r)
template <class S> Matrix<S> output_grads(const Bias& b, const Matrix<S>& M, const OmegaInputs<S>& in, std::size_t lo, std::size_t t0) {
  const std::size_t dv = in.V.cols;
  Matrix<S> G(t0 + 1 - lo, dv);
  Vector<S> y(dv);
  for (std::size_t i = lo; i <= t0; ++i) {
    matvec_into(y.data(), M, in.PhiK.row(i));
    const Vector<S> g = bias_output_grad(b, y.data(), in.V.row(i), dv);
    for (std::size_t j = 0; j < dv; ++j) G(i - lo, j) = g[j];
  }
  return G;
}
template <class S> void scale(Matrix<S>& M, const S& a) {
  if (a == S(1)) return;
  for (S& x : M.a) scale_inplace(x, a);
}
inline std::size_t chunk_check(std::size_t b, const std::string& who) {
  require(b >= 1, who + ": chunk size b must be >= 1");
  return b;
}
}  // namespace omega_detail

// 0-based first token of the window of token t0 (W_t truncated at the sequence start).
inline std::size_t omega_window_begin(std::size_t t0, std::size_t c) {
  require(c >= 1, "omega_window_begin: window length c must be >= 1");
  return t0 + 1 >= c ? t0 + 1 - c : 0;
}

// Gate layout bridge (spec Conventions, "Gates"): the optimized kernel's lag gates G_lag (L x c, G_lag(t, j) = gamma_{t-j}^{(t)}) as the dense
// L x L tensor of OmegaInputs (entries with t - j < 0 are never read; entries outside the band are 0).
template <class S> Matrix<S> omega_gamma_from_lags(const Matrix<S>& G_lag) {
  require(G_lag.cols >= 1, "omega_gamma_from_lags: G_lag needs c >= 1 columns");
  const std::size_t L = G_lag.rows;
  Matrix<S> G(L, L);
  for (std::size_t t = 0; t < L; ++t)
    for (std::size_t j = 0; j < G_lag.cols && j <= t; ++j) {
      require(is_finite(G_lag(t, j)), "omega_gamma_from_lags: G_lag(" + std::to_string(t + 1) + "," + std::to_string(j + 1) + ") is not finite");
      G(t, t - j) = G_lag(t, j);
    }
  return G;
}

// A002-SLIDING-OBJ (Eq. 8): F_t(M) = sum_{i in W_t} Gamma(t, i) l(M; phi_i, v_i), t 1-based (truncated window).
template <class S> S sliding_window_objective(const Bias& b, const Matrix<S>& M, const OmegaInputs<S>& in, std::size_t t) {
  const std::string who = "sliding_window_objective";
  omega_detail::check(in, who);
  require(t >= 1 && t <= in.PhiK.rows, who + ": t = " + std::to_string(t) + " must be in [1, L]");
  require(M.rows == in.V.cols && M.cols == in.PhiK.cols, who + ": M must be d_v x D");
  omega_detail::require_finite_mat(M, who, "M");
  S acc(0);
  for (std::size_t i = omega_window_begin(t - 1, in.c); i <= t - 1; ++i)
    acc += omega_detail::gate(in, t - 1, i) * linear_memory_loss(b, M, in.PhiK.row(i), in.V.row(i));
  return acc;
}
// A002-SLIDING-OBJ: its gradient sum_{i in W_t} Gamma(t, i) (dl/dy)(M phi_i; v_i) phi_i^T (d_v x D), t 1-based.
template <class S> Matrix<S> sliding_window_gradient(const Bias& b, const Matrix<S>& M, const OmegaInputs<S>& in, std::size_t t) {
  const std::string who = "sliding_window_gradient";
  omega_detail::check(in, who);
  require(t >= 1 && t <= in.PhiK.rows, who + ": t = " + std::to_string(t) + " must be in [1, L]");
  require(M.rows == in.V.cols && M.cols == in.PhiK.cols, who + ": M must be d_v x D");
  const std::size_t lo = omega_window_begin(t - 1, in.c);
  const Matrix<S> G = omega_detail::output_grads(b, M, in, lo, t - 1);
  Matrix<S> out(M.rows, M.cols);
  for (std::size_t i = lo; i <= t - 1; ++i) add_outer(out, omega_detail::gate(in, t - 1, i), G.row(i - lo), in.PhiK.row(i));
  return out;
}

// A002-OMEGA-RULE (Eq. 9 with decay, form T; linear memory, c rank-1 terms per token):
// M_t = alpha_t M_{t-1} - eta_t sum_{i in W_t} Gamma(t, i) (dl/dy)(M_{t-1} phi_i; v_i) phi_i^T, y_t = M_t phi(q_t).
template <class S> OmegaResult<S> omega_rule(const OmegaInputs<S>& in, const Bias& b = {}, bool keep_states = false) {
  omega_detail::check(in, "omega_rule");
  const std::size_t L = in.PhiK.rows;
  OmegaResult<S> r;
  r.state = omega_detail::initial(in);
  r.Y = Matrix<S>(L, in.V.cols);
  r.usage.assign(L, 0);
  if (keep_states) r.states.push_back(r.state);
  for (std::size_t t = 0; t < L; ++t) {
    const std::size_t lo = omega_window_begin(t, in.c);
    const Matrix<S> G = omega_detail::output_grads(b, r.state, in, lo, t);  // at M_{t-1}
    omega_detail::scale(r.state, omega_detail::alpha(in.log_alpha, t));
    for (std::size_t i = lo; i <= t; ++i) {
      add_outer(r.state, S(-(in.eta[t] * omega_detail::gate(in, t, i))), G.row(i - lo), in.PhiK.row(i));
      ++r.usage[i];
    }
    matvec_into(r.Y.row(t), r.state, in.PhiQ.row(t));
    if (keep_states) r.states.push_back(r.state);
  }
  return r;
}

// A002-OMEGA-LQ: the q-Omega rule, l_i = ||M phi_i - v_i||_q^q, output gradient q sign(r) |r|^{q-1} (0 at r = 0).
template <class S> OmegaResult<S> omega_rule_lq(const OmegaInputs<S>& in, double q, bool keep_states = false) {
  require(q > 0, "omega_rule_lq: q must be > 0");
  Bias b;
  b.kind = BiasKind::lp;
  b.p = q;
  return omega_rule(in, b, keep_states);
}

// A002-OMEGA-PARALLEL-B1 (Eq. 15 as printed): gamma_i^(t) = eta_t, M_t = alpha_t M_{t-1} - eta_t sum_{i in W_t}
// grad l(M_{t-1}; k_i, v_i), every window gradient materialised as a d_v x D matrix (the naive form the paper describes).
// in.Gamma must be empty (the shared rate is eta_t).
template <class S> OmegaResult<S> omega_parallel_b1(const OmegaInputs<S>& in, const Bias& b = {}) {
  omega_detail::check(in, "omega_parallel_b1");
  require(in.Gamma.empty(), "omega_parallel_b1: Gamma must be empty (Eq. 15 shares the rate eta_t over the window)");
  const std::size_t L = in.PhiK.rows;
  OmegaResult<S> r;
  r.state = omega_detail::initial(in);
  r.Y = Matrix<S>(L, in.V.cols);
  r.usage.assign(L, 0);
  for (std::size_t t = 0; t < L; ++t) {
    Matrix<S> sum(r.state.rows, r.state.cols);
    for (std::size_t i = omega_window_begin(t, in.c); i <= t; ++i) {
      const Matrix<S> g = linear_memory_grad(b, r.state, in.PhiK.row(i), in.V.row(i));
      for (std::size_t a = 0; a < sum.a.size(); ++a) sum.a[a] += g.a[a];
      ++r.usage[i];
    }
    const S al = omega_detail::alpha(in.log_alpha, t);
    for (std::size_t a = 0; a < sum.a.size(); ++a) r.state.a[a] = al * r.state.a[a] - in.eta[t] * sum.a[a];
    matvec_into(r.Y.row(t), r.state, in.PhiQ.row(t));
  }
  return r;
}

// A002-OMEGANET-LINEAR (Eq. 11, to implement): G_t = sum_{i in W_t} Gamma(t,i) phi_i phi_i^T, B_t = sum Gamma(t,i) v_i phi_i^T,
// M_t = M_{t-1}(alpha_t I - beta_t G_t) + beta_t B_t with beta_t = 2 eta_t (half_l2: eta_t); G_t formed explicitly.
template <class S> OmegaResult<S> omeganet_linear(const OmegaInputs<S>& in, bool half_l2 = false, bool keep_states = false) {
  omega_detail::check(in, "omeganet_linear");
  const std::size_t L = in.PhiK.rows, D = in.PhiK.cols, dv = in.V.cols;
  OmegaResult<S> r;
  r.state = omega_detail::initial(in);
  r.Y = Matrix<S>(L, dv);
  r.usage.assign(L, 0);
  if (keep_states) r.states.push_back(r.state);
  for (std::size_t t = 0; t < L; ++t) {
    Matrix<S> G(D, D), B(dv, D);
    for (std::size_t i = omega_window_begin(t, in.c); i <= t; ++i) {
      const S g = omega_detail::gate(in, t, i);
      add_outer(G, g, in.PhiK.row(i), in.PhiK.row(i));
      add_outer(B, g, in.V.row(i), in.PhiK.row(i));
      ++r.usage[i];
    }
    const S beta = half_l2 ? in.eta[t] : S(S(2) * in.eta[t]);
    Matrix<S> T(D, D);
    const S al = omega_detail::alpha(in.log_alpha, t);
    for (std::size_t a = 0; a < D; ++a)
      for (std::size_t c = 0; c < D; ++c) T(a, c) = (a == c ? al : S(0)) - beta * G(a, c);
    r.state = matmul(r.state, T);
    for (std::size_t a = 0; a < r.state.a.size(); ++a) muladd(r.state.a[a], beta, B.a[a]);
    matvec_into(r.Y.row(t), r.state, in.PhiQ.row(t));
    if (keep_states) r.states.push_back(r.state);
  }
  return r;
}

// A002-OMEGANET-LINEAR-VECDECAY: M_t = M_{t-1}(diag(alpha_t) - beta_t G_t) + beta_t B_t with a per-feature decay
// alpha_t in [0,1]^D given as log-gates LogAlpha (L x D, -inf a zero gate); in.log_alpha must be empty.
template <class S>
OmegaResult<S> omeganet_linear_vecdecay(const OmegaInputs<S>& in, const Matrix<S>& LogAlpha, bool half_l2 = false) {
  const std::string who = "omeganet_linear_vecdecay";
  omega_detail::check(in, who);
  require(in.log_alpha.empty(), who + ": use LogAlpha (L x D) for the decay; in.log_alpha must be empty");
  const std::size_t L = in.PhiK.rows, D = in.PhiK.cols, dv = in.V.cols;
  require(LogAlpha.rows == L && LogAlpha.cols == D, who + ": LogAlpha must be L x D");
  for (std::size_t t = 0; t < L; ++t)
    omega_detail::require_log_gates(Vector<S>(LogAlpha.row(t), LogAlpha.row(t) + D), D, who, "LogAlpha row");
  OmegaResult<S> r;
  r.state = omega_detail::initial(in);
  r.Y = Matrix<S>(L, dv);
  r.usage.assign(L, 0);
  for (std::size_t t = 0; t < L; ++t) {
    Matrix<S> G(D, D), B(dv, D);
    for (std::size_t i = omega_window_begin(t, in.c); i <= t; ++i) {
      const S g = omega_detail::gate(in, t, i);
      add_outer(G, g, in.PhiK.row(i), in.PhiK.row(i));
      add_outer(B, g, in.V.row(i), in.PhiK.row(i));
      ++r.usage[i];
    }
    const S beta = half_l2 ? in.eta[t] : S(S(2) * in.eta[t]);
    Matrix<S> T(D, D);
    for (std::size_t a = 0; a < D; ++a)
      for (std::size_t c = 0; c < D; ++c) T(a, c) = (a == c ? exp_log(LogAlpha(t, a)) : S(0)) - beta * G(a, c);
    r.state = matmul(r.state, T);
    for (std::size_t a = 0; a < r.state.a.size(); ++a) muladd(r.state.a[a], beta, B.a[a]);
    matvec_into(r.Y.row(t), r.state, in.PhiQ.row(t));
  }
  return r;
}

// ---- fixed-window GD and the Newton step (README §3 group 15) ----------------------------------------------

// Window data of token t (1-based): the rows phi_i, v_i, i in W_t, and their gates.
template <class S> struct OmegaWindow {
  Matrix<S> Phi, V;  // n x D, n x d_v
  Vector<S> w;       // n gates
};
template <class S> OmegaWindow<S> omega_window(const OmegaInputs<S>& in, std::size_t t) {
  omega_detail::check(in, "omega_window");
  require(t >= 1 && t <= in.PhiK.rows, "omega_window: t must be in [1, L]");
  const std::size_t lo = omega_window_begin(t - 1, in.c), n = t - lo;
  OmegaWindow<S> W{Matrix<S>(n, in.PhiK.cols), Matrix<S>(n, in.V.cols), Vector<S>(n)};
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t j = 0; j < in.PhiK.cols; ++j) W.Phi(r, j) = in.PhiK(lo + r, j);
    for (std::size_t j = 0; j < in.V.cols; ++j) W.V(r, j) = in.V(lo + r, j);
    W.w[r] = omega_detail::gate(in, t - 1, lo + r);
  }
  return W;
}
namespace omega_detail {
// G = sum w_i phi_i phi_i^T (D x D), B = sum w_i v_i phi_i^T (d_v x D)
template <class S> void window_moments(const OmegaWindow<S>& W, Matrix<S>& G, Matrix<S>& B) {
  G = Matrix<S>(W.Phi.cols, W.Phi.cols);
  B = Matrix<S>(W.V.cols, W.Phi.cols);
  for (std::size_t i = 0; i < W.Phi.rows; ++i) {
    add_outer(G, W.w[i], W.Phi.row(i), W.Phi.row(i));
    add_outer(B, W.w[i], W.V.row(i), W.Phi.row(i));
  }
}
template <class S> void check_window(const OmegaWindow<S>& W, const std::string& who) {
  require(W.Phi.rows >= 1 && W.Phi.rows == W.V.rows && W.w.size() == W.Phi.rows, who + ": window needs n >= 1 rows of Phi, V and w");
  require_finite_mat(W.Phi, who, "Phi");
  require_finite_mat(W.V, who, "V");
  for (std::size_t i = 0; i < W.w.size(); ++i)
    require(is_finite(W.w[i]) && !(W.w[i] < S(0)), who + ": gate w[" + std::to_string(i + 1) + "] must be finite and >= 0");
}
}  // namespace omega_detail

// A002-OMEGA-WLS-FIXEDPOINT, the iteration: K GD steps with rate eta on F(M) = sum_i w_i ||M phi_i - v_i||^2 from M^(0):
// reuses ref::fullbatch_gd (full_batch_gd.hpp, printed line (23)) on the rows sqrt(w_i) phi_i, sqrt(w_i) v_i with
// beta = 2 eta (the 1/2-loss step of that reference).
template <class S> Matrix<S> omega_window_gd(const OmegaWindow<S>& W, const S& eta, const Matrix<S>& M0, std::size_t K) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  omega_detail::check_window(W, "omega_window_gd");
  require(is_finite(eta), "omega_window_gd: eta must be finite");
  Matrix<S> Ks = W.Phi, Vs = W.V;
  for (std::size_t i = 0; i < W.Phi.rows; ++i) {
    const S s = sqrt(W.w[i]);
    for (std::size_t j = 0; j < Ks.cols; ++j) Ks(i, j) *= s;
    for (std::size_t j = 0; j < Vs.cols; ++j) Vs(i, j) *= s;
  }
  const Vector<S> betas(K, S(S(2) * eta));
  return fullbatch_gd(Ks, Vs, W.Phi.rows, betas, GdLine::eq23, &M0);
}
// A002-OMEGA-WLS-FIXEDPOINT (closed form): M^(K) = M* + (M^(0) - M*)(I - 2 eta G)^K, M* = B G^+ + M^(0)(I - G G^+),
// G^+ by the SVD pseudo-inverse with relative threshold rel_tol (svd.hpp); the power by repeated squaring.
template <class S>
Matrix<S> omega_wls_fixedpoint_closed(const OmegaWindow<S>& W, const S& eta, const Matrix<S>& M0, std::size_t K, const S& rel_tol) {
  omega_detail::check_window(W, "omega_wls_fixedpoint_closed");
  const std::size_t D = W.Phi.cols;
  require(M0.rows == W.V.cols && M0.cols == D, "omega_wls_fixedpoint_closed: M0 must be d_v x D");
  Matrix<S> G, B;
  omega_detail::window_moments(W, G, B);
  const Matrix<S> Gp = pinv(G, rel_tol);
  Matrix<S> P = matmul(G, Gp);  // projector onto range(G)
  for (std::size_t a = 0; a < D; ++a)
    for (std::size_t c = 0; c < D; ++c) P(a, c) = (a == c ? S(1) : S(0)) - P(a, c);
  Matrix<S> Mstar = matmul(B, Gp);
  const Matrix<S> M0P = matmul(M0, P);
  for (std::size_t a = 0; a < Mstar.a.size(); ++a) Mstar.a[a] += M0P.a[a];
  Matrix<S> T(D, D), Pw = eye<S>(D);
  for (std::size_t a = 0; a < D; ++a)
    for (std::size_t c = 0; c < D; ++c) T(a, c) = (a == c ? S(1) : S(0)) - S(2) * eta * G(a, c);
  for (std::size_t k = K; k > 0; k >>= 1) {
    if (k & 1) Pw = matmul(Pw, T);
    if (k > 1) T = matmul(T, T);
  }
  Matrix<S> diff = M0;
  for (std::size_t a = 0; a < diff.a.size(); ++a) diff.a[a] -= Mstar.a[a];
  const Matrix<S> dP = matmul(diff, Pw);
  for (std::size_t a = 0; a < Mstar.a.size(); ++a) Mstar.a[a] += dP.a[a];
  return Mstar;
}

// A002-OMEGA-NEWTON: the minimiser of the window objective of token t (1-based) closest to M_prev,
// M^N_t = B_t G_t^+ + M'(I - G_t G_t^+), M' = alpha_t M_prev when apply_decay (else M_prev); G_t^+ with threshold rel_tol.
template <class S>
Matrix<S> omega_newton_step(const OmegaInputs<S>& in, std::size_t t, const Matrix<S>& Mprev, const S& rel_tol, bool apply_decay = false) {
  const OmegaWindow<S> W = omega_window(in, t);
  require(Mprev.rows == in.V.cols && Mprev.cols == in.PhiK.cols, "omega_newton_step: M_prev must be d_v x D");
  omega_detail::require_finite_mat(Mprev, "omega_newton_step", "M_prev");
  Matrix<S> Mp = Mprev;
  if (apply_decay) omega_detail::scale(Mp, omega_detail::alpha(in.log_alpha, t - 1));
  Matrix<S> G, B;
  omega_detail::window_moments(W, G, B);
  const std::size_t D = G.rows;
  const Matrix<S> Gp = pinv(G, rel_tol);
  Matrix<S> P = matmul(G, Gp);
  for (std::size_t a = 0; a < D; ++a)
    for (std::size_t c = 0; c < D; ++c) P(a, c) = (a == c ? S(1) : S(0)) - P(a, c);
  Matrix<S> out = matmul(B, Gp);
  const Matrix<S> MP = matmul(Mp, P);
  for (std::size_t a = 0; a < out.a.size(); ++a) out.a[a] += MP.a[a];
  return out;
}

// ---- momentum (Titans) ------------------------------------------------------------------------------------

// A002-OMEGA-MOMENTUM (Eqs. 12-13, window gradient): u_t = eta_t sum_{i in W_t} Gamma(t,i) grad l_i(M_{t-1}),
// S_t = theta_t S_{t-1} - u_t, M_t = alpha_t M_{t-1} + S_t; log_theta: L log momentum gates (empty: theta = 1);
// S0 (d_v x D, null: zero). r.mom = S_L.
template <class S>
OmegaResult<S> omega_momentum(const OmegaInputs<S>& in, const Vector<S>& log_theta, const Bias& b = {}, const std::type_identity_t<Matrix<S>>* S0 = nullptr,
                              bool keep_states = false) {
  const std::string who = "omega_momentum";
  omega_detail::check(in, who);
  const std::size_t L = in.PhiK.rows;
  omega_detail::require_log_gates(log_theta, L, who, "log_theta");
  OmegaResult<S> r;
  r.state = omega_detail::initial(in);
  r.mom = Matrix<S>(in.V.cols, in.PhiK.cols);
  if (S0) {
    require(S0->rows == r.mom.rows && S0->cols == r.mom.cols, who + ": S0 must be d_v x D");
    omega_detail::require_finite_mat(*S0, who, "S0");
    r.mom = *S0;
  }
  r.Y = Matrix<S>(L, in.V.cols);
  r.usage.assign(L, 0);
  if (keep_states) r.states.push_back(r.state);
  for (std::size_t t = 0; t < L; ++t) {
    const std::size_t lo = omega_window_begin(t, in.c);
    const Matrix<S> G = omega_detail::output_grads(b, r.state, in, lo, t);
    omega_detail::scale(r.mom, omega_detail::alpha(log_theta, t));
    for (std::size_t i = lo; i <= t; ++i) {
      add_outer(r.mom, S(-(in.eta[t] * omega_detail::gate(in, t, i))), G.row(i - lo), in.PhiK.row(i));
      ++r.usage[i];
    }
    omega_detail::scale(r.state, omega_detail::alpha(in.log_alpha, t));
    for (std::size_t a = 0; a < r.state.a.size(); ++a) r.state.a[a] += r.mom.a[a];
    matvec_into(r.Y.row(t), r.state, in.PhiQ.row(t));
    if (keep_states) r.states.push_back(r.state);
  }
  return r;
}

// A002-TITANS-IMPLICIT-DECAY: the implicit per-token weights of the unrolled momentum memory at t (1-based),
// w_{t,i} = sum_{n=i}^{t} A_{n+1:t} Theta_{i+1:n}, i = 1..t (entry i-1), products as exp of direct log sums.
template <class S> Vector<S> titans_implicit_weights(const Vector<S>& log_alpha, const Vector<S>& log_theta, std::size_t t) {
  require(t >= 1, "titans_implicit_weights: t must be >= 1");
  require(log_alpha.empty() || log_alpha.size() >= t, "titans_implicit_weights: log_alpha shorter than t");
  require(log_theta.empty() || log_theta.size() >= t, "titans_implicit_weights: log_theta shorter than t");
  Vector<S> w(t, S(0));
  for (std::size_t i = 0; i < t; ++i)
    for (std::size_t n = i; n < t; ++n)
      w[i] += exp_log(S(omega_detail::log_decay(log_alpha, n + 1, t - 1) + omega_detail::log_decay(log_theta, i + 1, n)));
  return w;
}
// A002-TITANS-IMPLICIT-DECAY (unrolled identity): M_t = A_{1:t} M_0 + (sum_{n<=t} A_{n+1:t} Theta_{1:n}) S_0
// - sum_{i<=t} w_{t,i} u_i, u_i = eta_i sum_{j in W_i} Gamma(i,j) grad l_j(M_{i-1}), the gradients at the states of a run
// (states = M_0..M_{t-1} at least, e.g. omega_momentum(..., keep_states = true).states). t 1-based.
template <class S>
Matrix<S> titans_unrolled_state(const OmegaInputs<S>& in, const Vector<S>& log_theta, const std::vector<Matrix<S>>& states, std::size_t t,
                                const Bias& b = {}, const std::type_identity_t<Matrix<S>>* S0 = nullptr) {
  const std::string who = "titans_unrolled_state";
  omega_detail::check(in, who);
  require(t >= 1 && t <= in.PhiK.rows && states.size() >= t, who + ": t must be in [1, L] with states M_0..M_{t-1}");
  omega_detail::require_log_gates(log_theta, in.PhiK.rows, who, "log_theta");
  const Vector<S> w = titans_implicit_weights(in.log_alpha, log_theta, t);
  Matrix<S> M = states[0];
  omega_detail::scale(M, omega_detail::decay(in.log_alpha, 0, t - 1));
  if (S0) {
    S coef(0);
    for (std::size_t n = 0; n < t; ++n)
      coef += exp_log(S(omega_detail::log_decay(in.log_alpha, n + 1, t - 1) + omega_detail::log_decay(log_theta, 0, n)));
    for (std::size_t a = 0; a < M.a.size(); ++a) muladd(M.a[a], coef, S0->a[a]);
  }
  for (std::size_t i = 0; i < t; ++i) {
    const std::size_t lo = omega_window_begin(i, in.c);
    const Matrix<S> G = omega_detail::output_grads(b, states[i], in, lo, i);
    for (std::size_t j = lo; j <= i; ++j)
      add_outer(M, S(-(w[i] * in.eta[i] * omega_detail::gate(in, i, j))), G.row(j - lo), in.PhiK.row(j));
  }
  return M;
}

// ---- global least squares (README §3 group 14) -------------------------------------------------------------

// A002-GLOBAL-LS (Eq. 14, A-26): argmin_M sum_{i<=t} ||M phi_i - v_i||^2 + lambda ||M||_F^2, t 1-based:
// lambda > 0: ridge (sum v phi^T)(lambda I + sum phi phi^T)^{-1} = ref::ridge_state (regression_rules.hpp);
// lambda = 0: the minimum-norm solution V_t^T (Phi_t^+)^T = ref::ls_state_pinv (least_squares.hpp, SVD with rel_tol).
template <class S> Matrix<S> global_ls_state(const Matrix<S>& PhiK, const Matrix<S>& V, std::size_t t, const S& lambda, const S& rel_tol) {
  require(is_finite(lambda) && !(lambda < S(0)), "global_ls_state: lambda must be finite and >= 0");
  if (lambda == S(0)) return ls_state_pinv(PhiK, V, t, rel_tol);
  return ridge_state(PhiK, V, t, lambda);
}
// A002-GLOBAL-LS (recursive, Mesa / Sherman-Morrison): ref::rls with P_0 = I / lambda, M_0 = 0 (lambda > 0); Q for read-outs.
template <class S> RlsResult<S> global_ls_rls(const Matrix<S>& PhiQ, const Matrix<S>& PhiK, const Matrix<S>& V, const S& lambda) {
  require(is_finite(lambda) && lambda > S(0), "global_ls_rls: lambda must be finite and > 0 (P_0 = I / lambda)");
  Matrix<S> P0 = eye<S>(PhiK.cols);
  for (S& x : P0.a) x /= lambda;
  return rls(PhiQ, PhiK, V, P0, Matrix<S>(V.cols, PhiK.cols));
}

// ---- chunk forms (§3.3) --------------------------------------------------------------------------------------

// A002-OMEGA-CHUNK (Eq. 16, A-27; frozen-gradient token loop): chunks S_r = {(r-1)b+1, ..., min(rb, L)}; in chunk s..e
// with entry state M_{s-1}: M_t = alpha_t M_{t-1} - eta_t sum_{i in W_t} Gamma(t,i) grad l_i(M_{s-1}); windows crossing
// the chunk start use the previous chunk's tokens. b = 1 is omega_rule.
template <class S>
OmegaResult<S> omega_chunk(const OmegaInputs<S>& in, std::size_t b, const Bias& bias = {}, bool keep_states = false) {
  omega_detail::check(in, "omega_chunk");
  omega_detail::chunk_check(b, "omega_chunk");
  const std::size_t L = in.PhiK.rows;
  OmegaResult<S> r;
  r.state = omega_detail::initial(in);
  r.Y = Matrix<S>(L, in.V.cols);
  r.usage.assign(L, 0);
  if (keep_states) r.states.push_back(r.state);
  Matrix<S> frozen;
  for (std::size_t t = 0; t < L; ++t) {
    if (t % b == 0) frozen = r.state;  // M_{s-1}
    const std::size_t lo = omega_window_begin(t, in.c);
    const Matrix<S> G = omega_detail::output_grads(bias, frozen, in, lo, t);
    omega_detail::scale(r.state, omega_detail::alpha(in.log_alpha, t));
    for (std::size_t i = lo; i <= t; ++i) {
      add_outer(r.state, S(-(in.eta[t] * omega_detail::gate(in, t, i))), G.row(i - lo), in.PhiK.row(i));
      ++r.usage[i];
    }
    matvec_into(r.Y.row(t), r.state, in.PhiQ.row(t));
    if (keep_states) r.states.push_back(r.state);
  }
  return r;
}

// A002-OMEGA-CHUNK (Eq. 16 coefficient form, to implement): for t in chunk s..e,
// M_t = A_{s:t} M_{s-1} - sum_{n=s}^{t} A_{n+1:t} eta_n sum_{i in W_n} Gamma(n,i) grad l_i(M_{s-1}) (products as exp of
// direct log sums; A_{n+1:t} = (alpha_t..alpha_{t'}) / (alpha_n..alpha_{t'}) of the print, never formed as a ratio).
template <class S> OmegaResult<S> omega_chunk_eq16(const OmegaInputs<S>& in, std::size_t b, const Bias& bias = {}) {
  omega_detail::check(in, "omega_chunk_eq16");
  omega_detail::chunk_check(b, "omega_chunk_eq16");
  const std::size_t L = in.PhiK.rows, dv = in.V.cols, D = in.PhiK.cols;
  OmegaResult<S> r;
  r.state = omega_detail::initial(in);
  r.Y = Matrix<S>(L, dv);
  r.usage.assign(L, 0);
  for (std::size_t s = 0; s < L; s += b) {
    const std::size_t e = std::min(L, s + b) - 1;
    const Matrix<S> M0 = r.state;
    std::vector<Matrix<S>> Gn;  // G_n = sum_i Gamma(n,i) grad l_i(M_{s-1}), n = s..e
    for (std::size_t n = s; n <= e; ++n) {
      const std::size_t lo = omega_window_begin(n, in.c);
      const Matrix<S> O = omega_detail::output_grads(bias, M0, in, lo, n);
      Matrix<S> G(dv, D);
      for (std::size_t i = lo; i <= n; ++i) {
        add_outer(G, omega_detail::gate(in, n, i), O.row(i - lo), in.PhiK.row(i));
        ++r.usage[i];
      }
      Gn.push_back(G);
    }
    for (std::size_t t = s; t <= e; ++t) {
      Matrix<S> Mt = M0;
      omega_detail::scale(Mt, omega_detail::decay(in.log_alpha, s, t));
      for (std::size_t n = s; n <= t; ++n) {
        const S coef = -(omega_detail::decay(in.log_alpha, n + 1, t) * in.eta[n]);
        for (std::size_t a = 0; a < Mt.a.size(); ++a) muladd(Mt.a[a], coef, Gn[n - s].a[a]);
      }
      matvec_into(r.Y.row(t), Mt, in.PhiQ.row(t));
      if (t == e) r.state = Mt;
    }
  }
  return r;
}

// A002-OMEGA-CHUNK-LINEAR (tensorised chunk form, l2 bias, plain loops): per chunk s..e with M0 = M_{s-1} and the
// look-back + chunk columns i = max(1, s-c+1)..e: residuals e_i = M0 phi_i - v_i, D_{t,n} = A_{n+1:t} eta_n 1[n <= t],
// Gamma_{n,i} = Gamma(n,i) 1[i in W_n], C = D Gamma, g = 2 (half_l2: 1):
//   y_t = A_{s:t} M0 phi(q_t) - g sum_i C_{t,i} (phi(q_t)^T phi_i) e_i,   M_e = A_{s:e} M0 - g sum_i C_{e,i} e_i phi_i^T.
template <class S> OmegaResult<S> omega_chunk_linear(const OmegaInputs<S>& in, std::size_t b, bool half_l2 = false) {
  omega_detail::check(in, "omega_chunk_linear");
  omega_detail::chunk_check(b, "omega_chunk_linear");
  const std::size_t L = in.PhiK.rows, dv = in.V.cols, D = in.PhiK.cols;
  const S g = half_l2 ? S(1) : S(2);
  OmegaResult<S> r;
  r.state = omega_detail::initial(in);
  r.Y = Matrix<S>(L, dv);
  r.usage.assign(L, 0);
  Vector<S> m0q(dv);
  S kq;
  for (std::size_t s = 0; s < L; s += b) {
    const std::size_t e = std::min(L, s + b) - 1, i0 = omega_window_begin(s, in.c), ncol = e + 1 - i0, nb = e + 1 - s;
    const Matrix<S> M0 = r.state;
    Matrix<S> E(ncol, dv);  // residual rows at the chunk-start state
    for (std::size_t i = 0; i < ncol; ++i) {
      matvec_into(E.row(i), M0, in.PhiK.row(i0 + i));
      for (std::size_t j = 0; j < dv; ++j) E(i, j) -= in.V(i0 + i, j);
    }
    Matrix<S> Dm(nb, nb), Gm(nb, ncol);
    for (std::size_t t = 0; t < nb; ++t)
      for (std::size_t n = 0; n <= t; ++n) Dm(t, n) = omega_detail::decay(in.log_alpha, s + n + 1, s + t) * in.eta[s + n];
    for (std::size_t n = 0; n < nb; ++n)
      for (std::size_t i = omega_window_begin(s + n, in.c); i <= s + n; ++i) {
        Gm(n, i - i0) = omega_detail::gate(in, s + n, i);
        ++r.usage[i];
      }
    const Matrix<S> C = matmul(Dm, Gm);
    for (std::size_t t = 0; t < nb; ++t) {
      const S* q = in.PhiQ.row(s + t);
      matvec_into(m0q.data(), M0, q);
      const S at = omega_detail::decay(in.log_alpha, s, s + t);
      S* y = r.Y.row(s + t);
      for (std::size_t j = 0; j < dv; ++j) mul_into(y[j], at, m0q[j]);
      for (std::size_t i = 0; i < ncol; ++i) {
        if (C(t, i) == S(0)) continue;
        dot_into(kq, q, in.PhiK.row(i0 + i), D);
        const S w = -(g * C(t, i) * kq);
        for (std::size_t j = 0; j < dv; ++j) muladd(y[j], w, E(i, j));
      }
    }
    Matrix<S> Me = M0;
    omega_detail::scale(Me, omega_detail::decay(in.log_alpha, s, e));
    for (std::size_t i = 0; i < ncol; ++i)
      if (C(nb - 1, i) != S(0)) add_outer(Me, S(-(g * C(nb - 1, i))), E.row(i), in.PhiK.row(i0 + i));
    r.state = Me;
  }
  return r;
}

// A002-OMEGA-RULE (exact block-triangular chunk form of the token-sequential rule, l2 bias): in chunk s..e with
// M0 = M_{s-1}, unknowns u_{n,i} = g eta_n Gamma(n,i) (v_i - M_{n-1} phi_i) for n in [s, e], i in W_n, where
// M_{n-1} phi_i = A_{s:n-1} M0 phi_i + sum_{n' < n} A_{n'+1:n-1} sum_{i'} (phi_{i'}^T phi_i) u_{n',i'} (forward
// substitution by blocks of n); y_t = A_{s:t} M0 phi(q_t) + sum_{n<=t} A_{n+1:t} sum_i (phi_i^T phi(q_t)) u_{n,i}.
// Equal to omega_rule for every b (g = 2, half_l2: 1).
template <class S> OmegaResult<S> omega_rule_exact_chunked(const OmegaInputs<S>& in, std::size_t b, bool half_l2 = false) {
  omega_detail::check(in, "omega_rule_exact_chunked");
  omega_detail::chunk_check(b, "omega_rule_exact_chunked");
  const std::size_t L = in.PhiK.rows, dv = in.V.cols, D = in.PhiK.cols;
  const S g = half_l2 ? S(1) : S(2);
  OmegaResult<S> r;
  r.state = omega_detail::initial(in);
  r.Y = Matrix<S>(L, dv);
  r.usage.assign(L, 0);
  Vector<S> pred(dv);
  S kk;
  for (std::size_t s = 0; s < L; s += b) {
    const std::size_t e = std::min(L, s + b) - 1;
    const Matrix<S> M0 = r.state;
    std::vector<Matrix<S>> U;  // U[n - s]: rows u_{n,i}, i = lo(n)..n
    for (std::size_t n = s; n <= e; ++n) {
      const std::size_t lo = omega_window_begin(n, in.c);
      Matrix<S> Un(n + 1 - lo, dv);
      for (std::size_t i = lo; i <= n; ++i) {
        const S* phi = in.PhiK.row(i);
        matvec_into(pred.data(), M0, phi);
        const S as = n == s ? S(1) : omega_detail::decay(in.log_alpha, s, n - 1);  // A_{s:n-1} (1 when n = s)
        for (std::size_t j = 0; j < dv; ++j) pred[j] *= as;
        for (std::size_t np = s; np < n; ++np) {
          const S anp = omega_detail::decay(in.log_alpha, np + 1, n - 1);
          if (anp == S(0)) continue;
          const std::size_t lop = omega_window_begin(np, in.c);
          for (std::size_t ip = lop; ip <= np; ++ip) {
            dot_into(kk, in.PhiK.row(ip), phi, D);
            const S w = anp * kk;
            const S* u = U[np - s].row(ip - lop);
            for (std::size_t j = 0; j < dv; ++j) muladd(pred[j], w, u[j]);
          }
        }
        const S coef = g * in.eta[n] * omega_detail::gate(in, n, i);
        for (std::size_t j = 0; j < dv; ++j) Un(i - lo, j) = coef * (in.V(i, j) - pred[j]);
        ++r.usage[i];
      }
      U.push_back(Un);
    }
    for (std::size_t t = s; t <= e; ++t) {
      const S* q = in.PhiQ.row(t);
      S* y = r.Y.row(t);
      matvec_into(y, M0, q);
      const S at = omega_detail::decay(in.log_alpha, s, t);
      for (std::size_t j = 0; j < dv; ++j) y[j] *= at;
      for (std::size_t n = s; n <= t; ++n) {
        const S an = omega_detail::decay(in.log_alpha, n + 1, t);
        if (an == S(0)) continue;
        const std::size_t lo = omega_window_begin(n, in.c);
        for (std::size_t i = lo; i <= n; ++i) {
          dot_into(kk, in.PhiK.row(i), q, D);
          const S w = an * kk;
          for (std::size_t j = 0; j < dv; ++j) muladd(y[j], w, U[n - s](i - lo, j));
        }
      }
    }
    Matrix<S> Me = M0;
    omega_detail::scale(Me, omega_detail::decay(in.log_alpha, s, e));
    for (std::size_t n = s; n <= e; ++n) {
      const S an = omega_detail::decay(in.log_alpha, n + 1, e);
      if (an == S(0)) continue;
      const std::size_t lo = omega_window_begin(n, in.c);
      for (std::size_t i = lo; i <= n; ++i) add_outer(Me, an, U[n - s].row(i - lo), in.PhiK.row(i));
    }
    r.state = Me;
  }
  return r;
}

}  // namespace recall::ref
