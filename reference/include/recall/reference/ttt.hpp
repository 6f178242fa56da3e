// Test-time training with a linear inner model, fast weight programmers and one-step gradient
// descent views of linear attention (A004-TTT-*, A004-FWP-*, A001-*-AS-ONE-GD-STEP).
#pragma once

#include "recall/reference/linear_attention.hpp"

#include <cmath>

namespace recall::ref {

// A004-FWP-PROJ (Eq. 4): rows x_i -> W x_i, i.e. X W^T (X: T x d_in, W: d_out x d_in).
template <class S> Matrix<S> project(const Matrix<S>& X, const Matrix<S>& W) {
  require(W.cols == X.cols, "project: W must be d_out x d_in with d_in = width of X");
  Matrix<S> out(X.rows, W.rows);
  for (std::size_t t = 0; t < X.rows; ++t) {
    Vector<S> y = matvec(W, X.row(t));
    for (std::size_t j = 0; j < W.rows; ++j) out(t, j) = y[j];
  }
  return out;
}

// A004-TTT-DEFS: gradient of l(W; x) = ||W k - v||^2 (no 1/2): 2 (W k - v) k^T.
template <class S> Matrix<S> ttt_grad(const Matrix<S>& W, const S* k, const S* v) {
  Vector<S> r = matvec(W, k);
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = S(2) * (r[i] - v[i]);
  Matrix<S> G(W.rows, W.cols);
  add_outer(G, r.data(), k);
  return G;
}
// The loss itself (for finite-difference checks of the gradient).
template <class S> S ttt_loss(const Matrix<S>& W, const S* k, const S* v) {
  Vector<S> r = matvec(W, k);
  S acc(0);
  for (std::size_t i = 0; i < r.size(); ++i) { S d = r[i] - v[i]; muladd(acc, d, d); }
  return acc;
}

enum class TttRule { batch, online, minibatch };
template <class S> struct TttResult { Matrix<S> Z; Matrix<S> W; };

// A004-TTT-DEFS update rules with normalised mini-batch indexing: t' = b floor((t-1)/b),
// W_t = W_{t-1} - eta grad l(W_{t'}; x_t); batch: t' = 0, online: t' = t-1. Output z_t = W_t q_t.
// K, V, Q are the projected tokens (rows). W0: d_v x d_k.
template <class S>
TttResult<S> ttt_linear(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const S& eta, const Matrix<S>& W0,
                        TttRule rule, std::size_t b = 1) {
  detail::check_qkv(Q, K, V, "ttt_linear");
  require(W0.rows == V.cols && W0.cols == K.cols, "ttt_linear: W0 must be d_v x d_k");
  require(rule != TttRule::minibatch || b >= 1, "ttt_linear: mini-batch size must be >= 1");
  const std::size_t T = Q.rows;
  TttResult<S> r{Matrix<S>(T, V.cols), W0};
  Matrix<S> anchor = W0;  // W_{t'}
  for (std::size_t t = 1; t <= T; ++t) {
    if (rule == TttRule::online) anchor = r.W;
    if (rule == TttRule::minibatch && (t - 1) % b == 0) anchor = r.W;  // t' = b floor((t-1)/b) = t-1 here
    Matrix<S> G = ttt_grad(anchor, K.row(t - 1), V.row(t - 1));
    for (std::size_t i = 0; i < G.a.size(); ++i) r.W.a[i] -= eta * G.a[i];
    Vector<S> z = matvec(r.W, Q.row(t - 1));
    for (std::size_t j = 0; j < z.size(); ++j) r.Z(t - 1, j) = z[j];
  }
  return r;
}

// A001-LINATTN-AS-ONE-GD-STEP / A001-GATED-LINATTN-AS-ONE-GD-STEP (Eq. 24): one full-batch GD step,
// beta = 1, cold start from M = 0 on J_t(M) = 1/2 sum_{i<=t} w_i ||M k_i - v_i||^2 (w = 1 ungated,
// w_i = prod_{j=i+1}^t gamma_j gated): M^(1) = 0 - grad J_t(0), with grad J_t(M) = sum_i w_i (M k_i - v_i) k_i^T.
// Evaluated literally (the gradient at the zero matrix), for the prefix of length t (1-based).
template <class S>
Matrix<S> one_gd_step_from_zero(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const Vector<S>* log_gates = nullptr) {
  require(t <= K.rows && K.rows == V.rows, "one_gd_step_from_zero: t exceeds the sequence");
  const std::size_t dk = K.cols, dv = V.cols;
  const Matrix<S> M0(dv, dk);  // cold start: a fresh zero matrix for every t
  Matrix<S> grad(dv, dk);
  for (std::size_t i = 0; i < t; ++i) {
    S w(1);
    if (log_gates) w = exp_log(segment_log_sum(*log_gates, i, t - 1));
    Vector<S> r = matvec(M0, K.row(i));
    for (std::size_t c = 0; c < dv; ++c) r[c] -= V(i, c);
    add_outer(grad, w, r.data(), K.row(i));
  }
  Matrix<S> M1(dv, dk);
  for (std::size_t i = 0; i < M1.a.size(); ++i) M1.a[i] = M0.a[i] - grad.a[i];
  return M1;
}

// A004-FWP-CLASSIC (Eqs. 1-3): a_i, b_i = W_a x_i, W_b x_i; W_i = sigma(W_{i-1} + a_i b_i^T); y_i = W_i x_i.
enum class Activation { identity, tanh, sigmoid };
template <class S>
Matrix<S> fwp_classic(const Matrix<S>& X, const Matrix<S>& Wa, const Matrix<S>& Wb, Activation act,
                      const Matrix<S>* W0 = nullptr, Matrix<S>* W_final = nullptr) {
  using std::tanh; using std::exp;
  using boost::multiprecision::tanh; using boost::multiprecision::exp;
  const std::size_t din = X.cols;
  require(Wa.cols == din && Wb.cols == din && Wb.rows == din, "fwp_classic: W_a must be d_out x d_in and W_b d_in x d_in");
  const std::size_t dout = Wa.rows;
  Matrix<S> W = W0 ? *W0 : Matrix<S>(dout, din);
  require(W.rows == dout && W.cols == din, "fwp_classic: W0 must be d_out x d_in");
  Matrix<S> Y(X.rows, dout);
  for (std::size_t i = 0; i < X.rows; ++i) {
    Vector<S> a = matvec(Wa, X.row(i)), b = matvec(Wb, X.row(i));
    add_outer(W, a.data(), b.data());
    if (act != Activation::identity)
      for (S& w : W.a) w = act == Activation::tanh ? S(tanh(w)) : S(S(1) / (S(1) + exp(S(-w))));
    Vector<S> y = matvec(W, X.row(i));
    for (std::size_t j = 0; j < dout; ++j) Y(i, j) = y[j];
  }
  if (W_final) *W_final = W;
  return Y;
}

}  // namespace recall::ref
