// Fast CPU kernels of the linear-attention family (Eigen, float and double; the templates are
// instantiated once in optimized/src/linear_attention.cpp, this header only declares them).
//
// Layout: every tensor is row-major and contiguous, heads are independent; for head (b, h)
//   q, k: [B,H,T,dk]   v, o: [B,H,T,dv]   log_gate: [B,H,T]   s0, s_final: [B,H,dv,dk]
// The memory is canonical (README §1.1): S is d_v x d_k with read-out o_t = S_t q_t.
//
// Gates enter in log space (README §1.5): log_gate[t] = log a_t with a_t in [0,1]; -inf is a zero
// gate (a reset), 0 is a gate of one; nullptr means ungated (a_t = 1). Decay products are exps of
// direct segment sums, never of differences of cumulative sums, so zero gates never make a NaN.
//
// The kernels do not look for NaN/inf in the inputs (the caller validates); they throw
// std::invalid_argument for null required pointers, non-positive sizes or a chunk size < 1.
#pragma once

namespace recall::opt {

// (The scalar parameter is named Scalar, not T: a member T would shadow a parameter T.)
template <class Scalar> struct LinearAttentionArgs {
  int B = 1, H = 1, T = 0, dk = 0, dv = 0;  // batch, heads, tokens, key width, value width
  const Scalar* q = nullptr;                // [B,H,T,dk] row-major contiguous
  const Scalar* k = nullptr;                // [B,H,T,dk]
  const Scalar* v = nullptr;                // [B,H,T,dv]
  const Scalar* log_gate = nullptr;         // [B,H,T] log a_t; -inf = zero gate (reset); nullptr = ungated
  const Scalar* s0 = nullptr;               // [B,H,dv,dk] initial state; nullptr = zeros
  Scalar* o = nullptr;                      // [B,H,T,dv] outputs (required)
  Scalar* s_final = nullptr;                // [B,H,dv,dk] final state; nullptr = not wanted
  int chunk = 64;                           // chunk size C >= 1 (chunked kernels only)
};

// Naive token-by-token recurrence S_t = a_t S_{t-1} + v_t k_t^T, o_t = S_t q_t (the baseline):
// one fused pass over S per token. FLOPs: 4*T*dk*dv per head.
template <class T> void linear_attention_recurrent(const LinearAttentionArgs<T>& a);

// Chunked form with state passing (reference: recall::ref::linear_attention_chunked). For the chunk
// of rows s..e, with chunk-local b_t = sum_{j=s}^{t} log a_j and D_ti = exp(sum_{j=i+1}^{t} log a_j)
// (i <= t, 0 above the diagonal by masking; ungated: the causal mask):
//   O_c = diag(exp(b)) Q_c S^T + (Q_c K_c^T ⊙ D) V_c,   S <- exp(b_e) S + V_c^T diag(D_{e,:}) K_c.
// GEMMs through Eigen. FLOPs with full C-blocks: 2*T*(C*dk + C*dv + 2*dk*dv) per head.
template <class T> void linear_attention_chunked(const LinearAttentionArgs<T>& a);

// Normalised linear attention on already feature-mapped inputs (phi(q), phi(k) in a.q, a.k):
//   y_t = (S_t phi(q_t)) / (z_t^T phi(q_t)),  z_t = a_t z_{t-1} + phi(k_t)
// (a_t = 1 when a.log_gate is null, the usual ungated form). Runs the chunked kernel on the
// augmented values [V 1]: the last output column is the denominator and the last state row is z.
// z0: [B,H,dk] initial key-sum (nullptr = zeros); z_final: [B,H,dk] (nullptr = not wanted).
// A zero denominator is not trapped here (it gives inf/NaN): the caller validates.
template <class T> void normalized_linear_attention_chunked(const LinearAttentionArgs<T>& a, const T* z0, T* z_final);

extern template void linear_attention_recurrent<float>(const LinearAttentionArgs<float>&);
extern template void linear_attention_recurrent<double>(const LinearAttentionArgs<double>&);
extern template void linear_attention_chunked<float>(const LinearAttentionArgs<float>&);
extern template void linear_attention_chunked<double>(const LinearAttentionArgs<double>&);
extern template void normalized_linear_attention_chunked<float>(const LinearAttentionArgs<float>&, const float*, float*);
extern template void normalized_linear_attention_chunked<double>(const LinearAttentionArgs<double>&, const double*,
                                                                  double*);

}  // namespace recall::opt
