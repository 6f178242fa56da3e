// Causal softmax attention on the CPU (A000/A001/A004-SOFTMAX-ATTN, A001-F10-SOFTMAX-ONLINE):
// a tiled online-softmax kernel (FlashAttention-style: per query row a running maximum m, running
// sum l and accumulator a, rescaled by exp(m_old - m_new) when a key block raises the maximum) and
// a naive kernel that materialises each query block's full score rows (for the benchmark).
//
// Layout: q, k: [B,H,T,dk], v, o: [B,H,T,dv], row-major contiguous, heads independent.
// o_t = sum_{j<=t, valid j} p_tj v_j, p_tj = exp(s_tj - lse_t), s_tj = scale q_t^T k_j.
//
// Storage vs accumulation: In is the storage type of q, k, v (float, double, or the 16-bit storage
// types bf16_t / fp16_t below, raw IEEE bit patterns, e.g. from Eigen::bfloat16 / Eigen::half or
// NumPy); Acc the accumulation type (float for 16-bit storage); o is written as Acc.
//
// Masking: key_mask (optional, [B,H,T] bytes, non-zero = valid) removes keys in addition to the
// causal mask. A query row with no valid key gets o_t = 0 (defined behaviour, never NaN: the
// running sum stays 0 and is not divided by). Saturated logits (huge scale or keys) are handled by
// the max subtraction; a logit that overflows to +-inf or is NaN in Acc throws
// std::invalid_argument (so does a null pointer, a size < 1 or a block < 1).
#pragma once

#include <cstdint>

namespace recall::opt {

struct bf16_t { std::uint16_t bits; };  // bfloat16: the upper 16 bits of a binary32
struct fp16_t { std::uint16_t bits; };  // IEEE binary16

template <class In, class Acc> struct SoftmaxAttentionArgs {
  int B = 1, H = 1, T = 0, dk = 0, dv = 0;
  const In* q = nullptr;
  const In* k = nullptr;
  const In* v = nullptr;
  Acc* o = nullptr;
  double scale = 0;                          // logit scale 1/tau; 0 = 1/sqrt(dk)
  const unsigned char* key_mask = nullptr;   // [B,H,T], nullptr = every key valid
  Acc* lse = nullptr;                        // optional [B,H,T] log-sum-exp per row (-inf for an empty row)
  int block_q = 64, block_k = 64;            // tile sizes (tiled kernel)
};

// Tiled online softmax. FLOPs (causal, full tiles): about 2*T*T*(dk+dv)/2 per head.
template <class In, class Acc> void softmax_attention_tiled(const SoftmaxAttentionArgs<In, Acc>& a);
// Naive: per query block the whole score rows S = scale Q K^T (T columns), mask, row softmax
// with max subtraction, O = P V: 2*T*T*(dk+dv) FLOPs per head (no causal skipping).
template <class In, class Acc> void softmax_attention_naive(const SoftmaxAttentionArgs<In, Acc>& a);

}  // namespace recall::opt

namespace recall::opt {
extern template void softmax_attention_tiled<float, float>(const SoftmaxAttentionArgs<float, float>&);
extern template void softmax_attention_tiled<double, double>(const SoftmaxAttentionArgs<double, double>&);
extern template void softmax_attention_tiled<bf16_t, float>(const SoftmaxAttentionArgs<bf16_t, float>&);
extern template void softmax_attention_tiled<fp16_t, float>(const SoftmaxAttentionArgs<fp16_t, float>&);
extern template void softmax_attention_naive<float, float>(const SoftmaxAttentionArgs<float, float>&);
extern template void softmax_attention_naive<double, double>(const SoftmaxAttentionArgs<double, double>&);
}  // namespace recall::opt
