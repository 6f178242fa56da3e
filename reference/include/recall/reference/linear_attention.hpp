// Linear-attention family, written from the definitions (plain loops, token rows, 0-based
// storage; documentation and witnesses are 1-based). Canonical memory S is d_v x d_k
// (d_v x D_phi with a feature map) with read-out o_t = S_t q_t (README §1.1).
#pragma once

#include "recall/reference/matrix.hpp"

#include <optional>

namespace recall::ref {

template <class S> struct LinearAttentionResult {
  Matrix<S> O;        // T x d_v outputs (rows = tokens)
  Matrix<S> state;    // d_v x d_k final memory S_T
  Vector<S> z;        // running key-sum z_T (normalised forms only)
  Vector<S> denom;    // per-token denominators z_t^T phi(q_t) (normalised forms only)
};

namespace detail {
template <class S> void check_qkv(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const char* who) {
  require(Q.rows == K.rows && K.rows == V.rows,
          std::string(who) + ": Q, K, V must have the same number of tokens (rows)");
  require(Q.cols == K.cols, std::string(who) + ": Q and K must have the same width d_k");
}
template <class S> Matrix<S> initial_state(const Matrix<S>* S0, std::size_t dv, std::size_t dk, const char* who) {
  if (!S0) return Matrix<S>(dv, dk);
  require(S0->rows == dv && S0->cols == dk, std::string(who) + ": initial state must be d_v x d_k");
  return *S0;
}
}  // namespace detail

// A000-AM-OUTER / A001-LINATTN / A004-UPD-LA (Eq. 1, Eq. 2, U-LA): S_t = S_{t-1} + v_t k_t^T, o_t = S_t q_t.
// With phi(Q), phi(K) in place of Q, K this is A000-KERNEL-AM / A001-LINATTN-FEATUREMAP / A004-LA-STATE-KM.
template <class S>
LinearAttentionResult<S> linear_attention(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V,
                                          const Matrix<S>* S0 = nullptr) {
  detail::check_qkv(Q, K, V, "linear_attention");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  LinearAttentionResult<S> r;
  r.state = detail::initial_state(S0, dv, dk, "linear_attention");
  r.O = Matrix<S>(T, dv);
  for (std::size_t t = 0; t < T; ++t) {
    add_outer(r.state, V.row(t), K.row(t));
    matvec_into(r.O.row(t), r.state, Q.row(t));
  }
  return r;
}

// A001-LINATTN printed sum: y_t = sum_{i<=t} (k_i^T q_t) v_i  (no state formed).
template <class S> Matrix<S> linear_attention_sum(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V) {
  detail::check_qkv(Q, K, V, "linear_attention_sum");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  Matrix<S> O(T, dv);
  const MulAddCtx<S> ctx;
  S w;  // k_i^T q_t
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t i = 0; i <= t; ++i) {
      dot_into(w, K.row(i), Q.row(t), dk);
      for (std::size_t j = 0; j < dv; ++j) muladd(O(t, j), w, V(i, j), ctx);
    }
  return O;
}

// Closed-form state R_t = V_t^T K_t = sum_{i<=t} v_i k_i^T (A001-LINATTN "to implement"; t is 1-based).
template <class S> Matrix<S> linear_attention_state_closed(const Matrix<S>& K, const Matrix<S>& V, std::size_t t) {
  require(t <= K.rows && K.rows == V.rows, "linear_attention_state_closed: t exceeds the sequence");
  Matrix<S> R(V.cols, K.cols);
  for (std::size_t i = 0; i < t; ++i) add_outer(R, V.row(i), K.row(i));
  return R;
}

// Segment sum of log-gates over the 1-based interval (i, t]: sum_{j=i+1}^{t} log a_j, evaluated
// directly (never as a difference of cumulative sums; -inf when a zero gate lies in (i, t]).
// Arguments are 0-based token indices i0 <= t0 (the interval is j0 in (i0, t0]).
template <class S> S segment_log_sum(const Vector<S>& log_gates, std::size_t i0, std::size_t t0) {
  S s(0);
  for (std::size_t j = i0 + 1; j <= t0; ++j) s += log_gates[j];
  return s;
}

namespace detail {
template <class S> void check_log_gates(const Vector<S>& lg, std::size_t T, const char* who) {
  require(lg.size() == T, std::string(who) + ": log_gates must have one entry per token");
  for (std::size_t t = 0; t < T; ++t) {
    const S& g = lg[t];
    require(is_finite(g) || is_neg_inf(g),
            std::string(who) + ": log_gates[" + std::to_string(t + 1) + "] is NaN or +inf (log of a gate must be finite or -inf for a zero gate)");
  }
}
}  // namespace detail

// A001-GATED-LINATTN / A004-UPD-MAMBA2 / A000-GATED-ATTN (feature-space recurrence, Eqs. 30-31 [derived]):
// S_t = a_t S_{t-1} + v_t k_t^T, o_t = S_t q_t, with a_t = exp(log_gates[t]) (exact 0 for -inf: a reset).
template <class S>
LinearAttentionResult<S> gated_linear_attention(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V,
                                                const Vector<S>& log_gates, const Matrix<S>* S0 = nullptr) {
  detail::check_qkv(Q, K, V, "gated_linear_attention");
  detail::check_log_gates(log_gates, Q.rows, "gated_linear_attention");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  LinearAttentionResult<S> r;
  r.state = detail::initial_state(S0, dv, dk, "gated_linear_attention");
  r.O = Matrix<S>(T, dv);
  for (std::size_t t = 0; t < T; ++t) {
    const S a = exp_log(log_gates[t]);
    for (S& x : r.state.a) scale_inplace(x, a);
    add_outer(r.state, V.row(t), K.row(t));
    matvec_into(r.O.row(t), r.state, Q.row(t));
  }
  return r;
}

// A001-GATED-LINATTN-UNROLL (Eq. 16): o_t = sum_{i<=t} (prod_{j=i+1}^t a_j) (k_i^T q_t) v_i
//   (+ (prod_{j=1}^t a_j) S_0 q_t with an initial state); products as exp of direct segment sums.
template <class S>
Matrix<S> gated_linear_attention_sum(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V,
                                     const Vector<S>& log_gates, const Matrix<S>* S0 = nullptr) {
  detail::check_qkv(Q, K, V, "gated_linear_attention_sum");
  detail::check_log_gates(log_gates, Q.rows, "gated_linear_attention_sum");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  Matrix<S> O(T, dv);
  const MulAddCtx<S> ctx;
  Vector<S> s0q(S0 ? dv : 0);
  for (std::size_t t = 0; t < T; ++t) {
    S seg(0);  // sum_{j=i+1}^{t} log a_j, built as i decreases from t
    for (std::size_t ii = t + 1; ii-- > 0;) {
      if (ii < t) seg += log_gates[ii + 1];
      const S w = exp_log(seg) * dot(K.row(ii), Q.row(t), dk);
      for (std::size_t j = 0; j < dv; ++j) muladd(O(t, j), w, V(ii, j), ctx);
    }
    if (S0) {
      const S decay0 = exp_log(S(seg + log_gates[0]));  // prod_{j=1}^{t} a_j
      matvec_into(s0q.data(), *S0, Q.row(t));
      for (std::size_t j = 0; j < dv; ++j) muladd(O(t, j), decay0, s0q[j], ctx);
    }
  }
  return O;
}

// A001-GATED-LINATTN-DIAG [interp]: key-axis vector gate, S_t = S_{t-1} Diag(a_t) + v_t k_t^T.
// log_gates is T x d_k (per-coordinate log-gates, -inf for zero).
template <class S>
LinearAttentionResult<S> gated_linear_attention_diag(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V,
                                                     const Matrix<S>& log_gates, const Matrix<S>* S0 = nullptr) {
  detail::check_qkv(Q, K, V, "gated_linear_attention_diag");
  require(log_gates.rows == Q.rows && log_gates.cols == K.cols, "gated_linear_attention_diag: log_gates must be T x d_k");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  LinearAttentionResult<S> r;
  r.state = detail::initial_state(S0, dv, dk, "gated_linear_attention_diag");
  r.O = Matrix<S>(T, dv);
  Vector<S> a(dk);
  for (std::size_t t = 0; t < T; ++t) {
    for (std::size_t c = 0; c < dk; ++c) a[c] = exp_log(log_gates(t, c));
    for (std::size_t i = 0; i < dv; ++i)
      for (std::size_t c = 0; c < dk; ++c) scale_inplace(r.state(i, c), a[c]);
    add_outer(r.state, V.row(t), K.row(t));
    matvec_into(r.O.row(t), r.state, Q.row(t));
  }
  return r;
}

// A001-GATED-LINATTN-DIAG closed form: M_t = sum_{i<=t} v_i (k_i ⊙ b_{i,t})^T, b_{i,t} = ⊙_{j=i+1}^t a_j,
// per-coordinate products as exp of direct per-coordinate segment sums. Returns the state at 1-based t.
template <class S>
Matrix<S> gated_linear_attention_diag_state_closed(const Matrix<S>& K, const Matrix<S>& V, const Matrix<S>& log_gates,
                                                   std::size_t t) {
  require(t <= K.rows, "gated_linear_attention_diag_state_closed: t exceeds the sequence");
  const std::size_t dk = K.cols, dv = V.cols;
  Matrix<S> M(dv, dk);
  Vector<S> kb(dk);
  for (std::size_t i = 0; i < t; ++i) {
    for (std::size_t c = 0; c < dk; ++c) {
      S seg(0);
      for (std::size_t j = i + 1; j < t; ++j) seg += log_gates(j, c);
      kb[c] = K(i, c) * exp_log(seg);
    }
    add_outer(M, V.row(i), kb.data());
  }
  return M;
}

// A001-LINATTN-NORMALIZED / A004-LA-NORM-Z / A004-FWP-LT (Eqs. 17-19): with PhiQ, PhiK already mapped,
// M_t = M_{t-1} + v_t phi(k_t)^T, z_t = z_{t-1} + phi(k_t), y_t = M_t phi(q_t) / (z_t^T phi(q_t)).
// A zero denominator is an error naming the token (no epsilon guard: that is a separate configuration).
template <class S>
LinearAttentionResult<S> normalized_linear_attention(const Matrix<S>& PhiQ, const Matrix<S>& PhiK, const Matrix<S>& V,
                                                     const Matrix<S>* S0 = nullptr, const Vector<S>* z0 = nullptr) {
  detail::check_qkv(PhiQ, PhiK, V, "normalized_linear_attention");
  const std::size_t T = PhiQ.rows, dp = PhiK.cols, dv = V.cols;
  LinearAttentionResult<S> r;
  r.state = detail::initial_state(S0, dv, dp, "normalized_linear_attention");
  if (z0) r.z = *z0;
  else r.z.assign(dp, S(0));
  require(r.z.size() == dp, "normalized_linear_attention: z0 must have length D_phi");
  r.O = Matrix<S>(T, dv);
  r.denom.assign(T, S(0));
  for (std::size_t t = 0; t < T; ++t) {
    add_outer(r.state, V.row(t), PhiK.row(t));
    for (std::size_t c = 0; c < dp; ++c) r.z[c] += PhiK(t, c);
    const S den = dot(r.z.data(), PhiQ.row(t), dp);
    require(den != 0, "normalized_linear_attention: denominator z_t^T phi(q_t) is zero at token " + std::to_string(t + 1));
    r.denom[t] = den;
    matvec_into(r.O.row(t), r.state, PhiQ.row(t));  // numerator M_t phi(q_t), then divided in place
    for (std::size_t j = 0; j < dv; ++j) r.O(t, j) /= den;
  }
  return r;
}

// A004-EQ13-KERNEL-ATTN (Eq. 13), kernel-space ratio of sums: y_i = sum_j v_j kappa(k_j, q_i) / sum_j' kappa(k_j', q_i).
// kappa is any callable kappa(const S* k, const S* q) -> S on the raw (unmapped) rows.
template <class S, class Kernel>
Matrix<S> kernel_ratio_of_sums(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, Kernel kappa,
                               Vector<S>* denominators = nullptr) {
  detail::check_qkv(Q, K, V, "kernel_ratio_of_sums");
  const std::size_t T = Q.rows, dv = V.cols;
  Matrix<S> O(T, dv);
  if (denominators) denominators->assign(T, S(0));
  const MulAddCtx<S> ctx;
  for (std::size_t t = 0; t < T; ++t) {
    S den(0);
    Vector<S> num(dv, S(0));
    for (std::size_t j = 0; j <= t; ++j) {
      const S w = kappa(K.row(j), Q.row(t));
      den += w;
      for (std::size_t c = 0; c < dv; ++c) muladd(num[c], w, V(j, c), ctx);
    }
    require(den != 0, "kernel_ratio_of_sums: denominator is zero at token " + std::to_string(t + 1));
    if (denominators) (*denominators)[t] = den;
    for (std::size_t c = 0; c < dv; ++c) O(t, c) = num[c] / den;
  }
  return O;
}

// A000-KERNEL-AM kernel-space path (softmax normaliser dropped): O = tril(kappa(Q, K), 0) V.
template <class S, class Kernel>
Matrix<S> kernel_attention_unnormalized(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, Kernel kappa) {
  detail::check_qkv(Q, K, V, "kernel_attention_unnormalized");
  const std::size_t T = Q.rows, dv = V.cols;
  Matrix<S> O(T, dv);
  const MulAddCtx<S> ctx;
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t j = 0; j <= t; ++j) {
      const S w = kappa(K.row(j), Q.row(t));
      for (std::size_t c = 0; c < dv; ++c) muladd(O(t, c), w, V(j, c), ctx);
    }
  return O;
}

// A001-SSM-EQUIV [external, SSD form]: h_t = exp(delta_t A) h_{t-1} + delta_t b_t x_t^T (h: N x P),
// y_t = h_t^T c_t. X: T x P, B, C: T x N, delta: T (> 0), A < 0 scalar.
template <class S> struct SsdResult { Matrix<S> Y; Matrix<S> h; };
template <class S>
SsdResult<S> mamba2_ssd(const Matrix<S>& X, const Matrix<S>& B, const Matrix<S>& C, const Vector<S>& delta, const S& A) {
  require(X.rows == B.rows && B.rows == C.rows && delta.size() == X.rows, "mamba2_ssd: X, B, C, delta need T rows");
  require(B.cols == C.cols, "mamba2_ssd: B and C must have the same state width N");
  require(A < 0, "mamba2_ssd: A must be negative");
  using std::exp;
  using boost::multiprecision::exp;
  const std::size_t T = X.rows, P = X.cols, N = B.cols;
  SsdResult<S> r{Matrix<S>(T, P), Matrix<S>(N, P)};
  const MulAddCtx<S> ctx;
  Vector<S> db(N);
  for (std::size_t t = 0; t < T; ++t) {
    require(delta[t] > 0, "mamba2_ssd: delta[" + std::to_string(t + 1) + "] must be positive");
    const S decay = exp(S(delta[t] * A));
    for (S& x : r.h.a) scale_inplace(x, decay);
    for (std::size_t n = 0; n < N; ++n) db[n] = delta[t] * B(t, n);
    add_outer(r.h, db.data(), X.row(t));
    for (std::size_t p = 0; p < P; ++p) {
      S& acc = r.Y(t, p);  // y_t = h_t^T c_t
      acc = 0;
      for (std::size_t n = 0; n < N; ++n) muladd(acc, r.h(n, p), C(t, n), ctx);
    }
  }
  return r;
}

// Output normalisations of A001-LA-OUTNORM-LN / -RMS / -L2 [interp], applied per token row.
enum class OutputNorm { layer_norm, rms_norm, l2 };
template <class S> Matrix<S> normalize_outputs(const Matrix<S>& Y, OutputNorm kind, const S& eps) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  Matrix<S> out(Y.rows, Y.cols);
  const S n(static_cast<double>(Y.cols));
  for (std::size_t t = 0; t < Y.rows; ++t) {
    const S* y = Y.row(t);
    if (kind == OutputNorm::layer_norm) {
      S mean(0), var(0);
      for (std::size_t j = 0; j < Y.cols; ++j) mean += y[j];
      mean /= n;
      for (std::size_t j = 0; j < Y.cols; ++j) { S d = y[j] - mean; muladd(var, d, d); }
      var /= n;
      const S den = sqrt(S(var + eps));
      for (std::size_t j = 0; j < Y.cols; ++j) out(t, j) = (y[j] - mean) / den;
    } else if (kind == OutputNorm::rms_norm) {
      S ss(0);
      for (std::size_t j = 0; j < Y.cols; ++j) muladd(ss, y[j], y[j]);
      const S den = sqrt(S(ss / n + eps));
      for (std::size_t j = 0; j < Y.cols; ++j) out(t, j) = y[j] / den;
    } else {
      S ss(0);
      for (std::size_t j = 0; j < Y.cols; ++j) muladd(ss, y[j], y[j]);
      S nrm = sqrt(ss);
      if (nrm < eps) nrm = eps;
      for (std::size_t j = 0; j < Y.cols; ++j) out(t, j) = y[j] / nrm;
    }
  }
  return out;
}

}  // namespace recall::ref
