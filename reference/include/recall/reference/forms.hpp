// The fast forms of the linear-attention family (parallel masked matmul, chunked state passing),
// written generically on the scalar so that their identity with the definitions in
// linear_attention.hpp is checked at high precision. These are forms under test, not oracles.
#pragma once

#include "recall/reference/linear_attention.hpp"

namespace recall::ref {

// A001-F01-LINATTN-PARALLEL / A001-F04-GATED-DECAYMASK / A004-UPD-MAMBA2 fast form:
// O = (Q K^T ⊙ D) V, D_ti = exp(sum_{j=i+1}^t log a_j) for i <= t, 0 above the diagonal (set by masking).
// log_gates == nullptr: ungated (D = causal mask L).
template <class S>
Matrix<S> linear_attention_parallel(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V,
                                    const Vector<S>* log_gates = nullptr) {
  detail::check_qkv(Q, K, V, "linear_attention_parallel");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  Matrix<S> A(T, T);  // masked scores; entries above the diagonal stay exactly 0
  for (std::size_t t = 0; t < T; ++t) {
    S seg(0);
    for (std::size_t ii = t + 1; ii-- > 0;) {
      if (log_gates && ii < t) seg += (*log_gates)[ii + 1];
      S s = dot(Q.row(t), K.row(ii), dk);
      if (log_gates) s *= exp_log(seg);
      A(t, ii) = s;
    }
  }
  Matrix<S> O(T, dv);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t i = 0; i <= t; ++i)
      for (std::size_t j = 0; j < dv; ++j) muladd(O(t, j), A(t, i), V(i, j));
  return O;
}

// Chunked form with state passing (A000-AM-OUTER fast form, A001-F01/F04, A000-GATED-ATTN chunked):
// for the chunk of rows s..e, with chunk-local log sums b_t = sum_{j=s}^{t} log a_j,
//   o_t = e^{b_t} S_prev q_t + sum_{i=s}^{t} e^{seg(i,t)} (k_i^T q_t) v_i,
//   S   = e^{b_e} S_prev + sum_{i=s}^{e} e^{seg(i,e)} v_i k_i^T.
template <class S>
LinearAttentionResult<S> linear_attention_chunked(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V,
                                                  std::size_t chunk, const Vector<S>* log_gates = nullptr,
                                                  const Matrix<S>* S0 = nullptr) {
  detail::check_qkv(Q, K, V, "linear_attention_chunked");
  require(chunk >= 1, "linear_attention_chunked: chunk size must be >= 1");
  if (log_gates) detail::check_log_gates(*log_gates, Q.rows, "linear_attention_chunked");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  LinearAttentionResult<S> r;
  r.state = detail::initial_state(S0, dv, dk, "linear_attention_chunked");
  r.O = Matrix<S>(T, dv);
  for (std::size_t s = 0; s < T; s += chunk) {
    const std::size_t e = std::min(T, s + chunk);  // rows s..e-1
    const std::size_t n = e - s;
    Matrix<S> D(n, n);  // D(t,i) = exp(seg(i,t)) for i <= t (local indices)
    Vector<S> b(n);     // exp(b_t): decay of the incoming state to row t
    S cum(0);
    for (std::size_t t = 0; t < n; ++t) {
      if (log_gates) cum += (*log_gates)[s + t];
      b[t] = log_gates ? exp_log(cum) : S(1);
      S seg(0);
      for (std::size_t ii = t + 1; ii-- > 0;) {
        if (log_gates && ii < t) seg += (*log_gates)[s + ii + 1];
        D(t, ii) = log_gates ? exp_log(seg) : S(1);
      }
    }
    // outputs: inter-chunk term from the incoming state, then the masked intra-chunk term
    for (std::size_t t = 0; t < n; ++t) {
      Vector<S> inter = matvec(r.state, Q.row(s + t));
      for (std::size_t j = 0; j < dv; ++j) mul_into(r.O(s + t, j), b[t], inter[j]);
      for (std::size_t i = 0; i <= t; ++i) {
        const S w = D(t, i) * dot(K.row(s + i), Q.row(s + t), dk);
        for (std::size_t j = 0; j < dv; ++j) muladd(r.O(s + t, j), w, V(s + i, j));
      }
    }
    // state passing
    for (S& x : r.state.a) scale_inplace(x, b[n - 1]);
    for (std::size_t i = 0; i < n; ++i) add_outer(r.state, D(n - 1, i), V.row(s + i), K.row(s + i));
  }
  return r;
}

// A001-F03-NORMLINATTN-PARALLEL / A004-EQ13-14-FACTOR fast form: one product with the augmented
// value matrix [V 1] gives numerators and denominators; chunked when chunk > 0, parallel when 0.
template <class S>
LinearAttentionResult<S> normalized_linear_attention_augmented(const Matrix<S>& PhiQ, const Matrix<S>& PhiK,
                                                               const Matrix<S>& V, std::size_t chunk) {
  detail::check_qkv(PhiQ, PhiK, V, "normalized_linear_attention_augmented");
  const std::size_t T = V.rows, dv = V.cols;
  Matrix<S> Va(T, dv + 1);
  for (std::size_t t = 0; t < T; ++t) {
    for (std::size_t j = 0; j < dv; ++j) Va(t, j) = V(t, j);
    Va(t, dv) = S(1);
  }
  Matrix<S> Oa;
  LinearAttentionResult<S> r;
  Matrix<S> Sa;  // augmented final state [S; z^T]
  if (chunk == 0) {
    Oa = linear_attention_parallel(PhiQ, PhiK, Va);
    Sa = linear_attention_state_closed(PhiK, Va, T);
  } else {
    auto ra = linear_attention_chunked(PhiQ, PhiK, Va, chunk);
    Oa = std::move(ra.O);
    Sa = std::move(ra.state);
  }
  r.state = Matrix<S>(dv, PhiK.cols);
  r.z.assign(PhiK.cols, S(0));
  for (std::size_t c = 0; c < PhiK.cols; ++c) {
    for (std::size_t j = 0; j < dv; ++j) r.state(j, c) = Sa(j, c);
    r.z[c] = Sa(dv, c);
  }
  r.O = Matrix<S>(T, dv);
  r.denom.assign(T, S(0));
  for (std::size_t t = 0; t < T; ++t) {
    const S den = Oa(t, dv);
    require(den != 0, "normalized_linear_attention_augmented: zero denominator at token " + std::to_string(t + 1));
    r.denom[t] = den;
    for (std::size_t j = 0; j < dv; ++j) r.O(t, j) = Oa(t, j) / den;
  }
  return r;
}

}  // namespace recall::ref
