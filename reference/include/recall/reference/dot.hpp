// The Deep Omega Transformer (Dot) of paper A002 (Atlas, §4.3, Eqs. 27-31, Table 1 row Dot) with a LINEAR memory on
// the exponential feature map phi*, written from the definitions (plain token loops, scalar-generic: recall::mp_t,
// double). The deep (MLP) memory reading is A002-MEMORY-MLP / A002-DT-DEEP-TRUNC and is not covered here.
//
// Conventions (spec A002 Conventions, README §1): tokens are rows (Q, K: L x d raw queries / keys, V: L x d_v), the
// memory M is d_v x D with read-out y_t = M_t phi(q_t) after the step-t write, delta-type updates multiply on the right,
// l = ||M phi - v||^2 (gradient 2 (M phi - v) phi^T, so every step carries 2 eta_t), alpha = 1, M_0 = 0, window
// W_t = {max(1, t-c+1), ..., t} (1-based, truncated at the sequence start, A-24), Gamma the dense L x L gate tensor
// read only inside W_t (empty: all window gates 1), temperature tau = 1 (pre-scale q, k by tau^{1/2} otherwise).
//
// IDs (one function each):
//   A002-DOT             dot_truncated: the Omega rule (Eq. 27, one GD step on the window objective per token) on the
//                        truncated phi*_P features (weighted monomials, deep_transformer.hpp exp_feature_monomial_rows),
//                        i.e. omega_rule of omega.hpp with alpha = 1 (the explicit memory; P is the caller's);
//                        the infinite-dimensional model itself is evaluated through dot_kernel_form with the exact kernel.
//   A002-DOT-LINEAR      dot_linear_window: Eq. 28 (to implement) M_t = M_{t-1}(I - 2 eta_t sum_i gamma_i phi*_i phi*_i^T)
//                        + 2 eta_t sum_i gamma_i v_i phi*_i^T on phi*_P = omeganet_linear (omega.hpp, the G_t form) with
//                        alpha = 1 (A002-R4-OMEGANET-REDUCTIONS (ii)).
//   A002-DOT-C1          dot_linear_window with c = 1 (Eq. 30, to implement).
//   A002-DOT-KERNEL      dot_kernel_form: the exact kernel (coefficient) form M_t = sum_j a_j^(t) phi(k_j)^T for any kernel
//                        kappa (DotKernel: exact exp(x^T y) or the truncated kappa_P = sum_{p<=P} (x^T y)^p / p!).
//   A002-DOT-C1-TRISOLVE dot_c1_trisolve: (I + diag(beta) L) A = diag(beta) V, beta_t = 2 eta_t gamma_t^(t), L_{t,j} =
//                        kappa(k_j, k_t) 1[j < t] — the unit-lower-triangular u-solve of A000-DELTAFORMER-U (README §3
//                        group 11: deltaformer.hpp deltaformer_u_triangular) and the read-out Y = (kappa(Q, K) o C_<=) A
//                        (deep_transformer.hpp token_weighted_kernel_readout with unit weights).
// Bad input (shapes, non-finite entries, negative rates, c = 0, P < -1) throws std::invalid_argument naming the input.
#pragma once

#include "recall/reference/deep_transformer.hpp"
#include "recall/reference/deltaformer.hpp"
#include "recall/reference/matrix.hpp"
#include "recall/reference/omega.hpp"
#include "recall/reference/polynomial_maps.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace recall::ref {

template <class S> struct DotInputs {
  Matrix<S> Q, K, V;   // L x d, L x d, L x d_v (raw rows; tau = 1)
  Vector<S> eta;       // L learning rates eta_t >= 0
  Matrix<S> Gamma;     // L x L window gates, read only inside W_t (empty: all 1)
  std::size_t c = 1;   // window length
};

// The kernel of a Dot: order < 0: exp(x^T y) (phi* exactly); order P >= 0: kappa_P(x, y) = sum_{p<=P} (x^T y)^p / p!
// = phi*_P(x)^T phi*_P(y) (A002-TAYLOR-EXP: poly_series of taylor_coefficients, polynomial_maps.hpp).
template <class S> struct DotKernel {
  std::size_t d = 0;
  int order = -1;
  Vector<S> taylor;  // 1/p!, p = 0..P (order >= 0)
  DotKernel(std::size_t width, int P) : d(width), order(P) {
    require(width >= 1, "DotKernel: key width d must be >= 1");
    require(P >= -1, "DotKernel: order must be -1 (exact exp) or >= 0 (truncated)");
    if (P >= 0) taylor = taylor_coefficients<S>(P);
  }
  S operator()(const S* x, const S* y) const {
    const S s = dot(x, y, d);
    return order < 0 ? nw_detail::exp_(s) : poly_series(taylor, s);
  }
};

namespace dot_detail {
template <class S> void check(const DotInputs<S>& in, const std::string& who) {
  const std::size_t L = in.K.rows;
  require(L >= 1, who + ": K has no rows (L = 0)");
  require(in.K.cols >= 1 && in.V.cols >= 1, who + ": K and V need at least one column");
  require(in.Q.rows == L && in.V.rows == L, who + ": Q, K and V must have one row per token");
  require(in.Q.cols == in.K.cols, who + ": Q and K must have the same width d");
  require(in.c >= 1, who + ": window length c must be >= 1");
  require(in.eta.size() == L, who + ": eta must have one entry per token (L = " + std::to_string(L) + ")");
  for (std::size_t t = 0; t < L; ++t)
    require(is_finite(in.eta[t]) && !(in.eta[t] < S(0)), who + ": eta[" + std::to_string(t + 1) + "] must be finite and >= 0");
  omega_detail::require_finite_mat(in.Q, who, "Q");
  omega_detail::require_finite_mat(in.K, who, "K");
  omega_detail::require_finite_mat(in.V, who, "V");
  if (!in.Gamma.empty()) {
    require(in.Gamma.rows == L && in.Gamma.cols == L, who + ": Gamma must be L x L (empty: all window gates 1)");
    omega_detail::require_finite_mat(in.Gamma, who, "Gamma");
  }
}
template <class S> S gate(const DotInputs<S>& in, std::size_t t0, std::size_t i0) { return in.Gamma.empty() ? S(1) : in.Gamma(t0, i0); }
}  // namespace dot_detail

// The Omega-rule inputs of a Dot on truncated phi*_P features (alpha = 1, M_0 = 0): PhiK = phi*_P(K), PhiQ = phi*_P(Q).
template <class S> OmegaInputs<S> dot_omega_inputs(const DotInputs<S>& in, int P) {
  dot_detail::check(in, "dot_omega_inputs");
  require(P >= 0, "dot_omega_inputs: truncation order P must be >= 0");
  OmegaInputs<S> o;
  o.PhiQ = exp_feature_monomial_rows(in.Q, P);
  o.PhiK = exp_feature_monomial_rows(in.K, P);
  o.V = in.V;
  o.eta = in.eta;
  o.Gamma = in.Gamma;
  o.c = in.c;
  return o;
}

// A002-DOT (Eq. 27, to implement, linear memory): M_t = M_{t-1} - eta_t sum_{i in W_t} gamma_i^(t) grad ||M phi*_i - v_i||^2
// at M_{t-1}, y_t = M_t phi*(q_t), on phi*_P (explicit truncated memory, rank-1 token loop: omega_rule with alpha = 1).
template <class S> OmegaResult<S> dot_truncated(const DotInputs<S>& in, int P, bool keep_states = false) {
  return omega_rule(dot_omega_inputs(in, P), Bias{}, keep_states);
}

// A002-DOT-LINEAR (Eq. 28, to implement; A002-DOT-C1 with c = 1, Eq. 30): the window form with the D x D matrix
// G_t = sum_{i in W_t} gamma_i^(t) phi*_i phi*_i^T formed, M_t = M_{t-1}(I - 2 eta_t G_t) + 2 eta_t B_t (omeganet_linear,
// alpha = 1) on phi*_P. D = C(d + P, P): keep P small.
template <class S> OmegaResult<S> dot_linear_window(const DotInputs<S>& in, int P, bool keep_states = false) {
  return omeganet_linear(dot_omega_inputs(in, P), false, keep_states);
}

template <class S> struct DotKernelResult {
  Matrix<S> Y;                  // L x d_v outputs y_t = sum_{j<=t} a_j^(t) kappa(q_t, k_j)
  Matrix<S> A;                  // L x d_v coefficients a_j^(L) (M_L = sum_j a_j phi(k_j)^T)
  Matrix<S> pred;               // L x d_v: row t = M_{t-1} phi(k_t) = sum_{j<t} a_j^(t-1) kappa(k_j, k_t) (the previous-state prediction)
  std::vector<Matrix<S>> coef;  // a^(1..L) (keep_coef only; row j of coef[t-1] is a_j^(t), zero for j > t)
};

// A002-DOT-KERNEL (exact kernel form of the linear Dot): at step t, (1) r_i = sum_{j<t} a_j^(t-1) kappa(k_j, k_i) for
// i in W_t (all at the previous coefficients), (2) a_i^(t) = a_i^(t-1) + 2 eta_t gamma_i^(t) (v_i - r_i) (a_t^(t-1) = 0),
// (3) y_t = sum_{j<=t} a_j^(t) kappa(q_t, k_j). kappa(x_row, y_row) -> S (DotKernel, or any symmetric kernel: with
// kappa(x, y) = phi(x)^T phi(y) this is the Omega rule on phi with alpha = 1). hebbian = true drops the quadratic term of
// the loss (r_i := 0: the bias -2 <M phi_i, v_i>, i.e. M_t = M_{t-1} + 2 eta_t sum gamma_i v_i phi_i^T, A002-DOT-GEN (c)).
template <class S, class Kernel>
DotKernelResult<S> dot_kernel_form(const DotInputs<S>& in, const Kernel& kappa, bool hebbian = false, bool keep_coef = false) {
  dot_detail::check(in, "dot_kernel_form");
  const std::size_t L = in.K.rows, dv = in.V.cols;
  Matrix<S> Gk(L, L);  // Gk(j, i) = kappa(k_j, k_i)
  for (std::size_t j = 0; j < L; ++j)
    for (std::size_t i = 0; i < L; ++i) Gk(j, i) = kappa(in.K.row(j), in.K.row(i));
  DotKernelResult<S> r;
  r.A = Matrix<S>(L, dv);
  r.Y = Matrix<S>(L, dv);
  r.pred = Matrix<S>(L, dv);
  for (std::size_t t = 0; t < L; ++t) {
    const std::size_t lo = omega_window_begin(t, in.c);
    Matrix<S> R(t + 1 - lo, dv);  // r_i at the previous coefficients
    for (std::size_t i = lo; i <= t; ++i)
      for (std::size_t j = 0; j < t; ++j) {
        if (Gk(j, i) == S(0)) continue;
        for (std::size_t e = 0; e < dv; ++e) muladd(R(i - lo, e), Gk(j, i), r.A(j, e));
      }
    for (std::size_t e = 0; e < dv; ++e) r.pred(t, e) = R(t - lo, e);
    for (std::size_t i = lo; i <= t; ++i) {
      const S b = S(2) * in.eta[t] * dot_detail::gate(in, t, i);
      for (std::size_t e = 0; e < dv; ++e) muladd(r.A(i, e), b, hebbian ? in.V(i, e) : S(in.V(i, e) - R(i - lo, e)));
    }
    for (std::size_t j = 0; j <= t; ++j) {
      const S w = kappa(in.Q.row(t), in.K.row(j));
      for (std::size_t e = 0; e < dv; ++e) muladd(r.Y(t, e), w, r.A(j, e));
    }
    if (keep_coef) r.coef.push_back(r.A);
  }
  return r;
}
// A002-DOT-KERNEL with the exact exp kernel (order -1) or kappa_P (order P >= 0).
template <class S> DotKernelResult<S> dot_kernel(const DotInputs<S>& in, int order = -1, bool hebbian = false, bool keep_coef = false) {
  return dot_kernel_form(in, DotKernel<S>(in.K.cols, order), hebbian, keep_coef);
}

template <class S> struct DotTriResult {
  Matrix<S> A;  // L x d_v coefficients a_t
  Matrix<S> Y;  // L x d_v outputs
};
// A002-DOT-C1-TRISOLVE (c = 1): a_t = beta_t (v_t - sum_{j<t} a_j kappa(k_j, k_t)), beta_t = 2 eta_t gamma_t^(t), i.e.
// (I + diag(beta) L) A = diag(beta) V with the strictly lower L_{t,j} = kappa(k_j, k_t), solved by the shared forward
// substitution of A000-DELTAFORMER-U (deltaformer_u_triangular, alpha = beta); Y_t = sum_{j<=t} kappa(q_t, k_j) a_j.
template <class S, class Kernel> DotTriResult<S> dot_c1_trisolve(const DotInputs<S>& in, const Kernel& kappa) {
  dot_detail::check(in, "dot_c1_trisolve");
  require(in.c == 1, "dot_c1_trisolve: the triangular-solve form needs window length c = 1");
  const std::size_t L = in.K.rows;
  Matrix<S> L1(L, L), W(L, L);
  Vector<S> beta(L);
  for (std::size_t t = 0; t < L; ++t) {
    beta[t] = S(2) * in.eta[t] * dot_detail::gate(in, t, t);
    for (std::size_t j = 0; j < t; ++j) L1(t, j) = kappa(in.K.row(j), in.K.row(t));
    for (std::size_t j = 0; j <= t; ++j) W(t, j) = S(1);
  }
  DotTriResult<S> r;
  r.A = deltaformer_u_triangular(L1, in.V, beta, beta);
  r.Y = token_weighted_kernel_readout(in.Q, in.K, r.A, W, [&](const S* k, const S* q) { return kappa(q, k); });
  return r;
}
template <class S> DotTriResult<S> dot_c1_trisolve(const DotInputs<S>& in, int order = -1) {
  return dot_c1_trisolve(in, DotKernel<S>(in.K.cols, order));
}

}  // namespace recall::ref
