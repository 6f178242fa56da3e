// Fast forms of the multi-head, block-sparse (MoE / MoBA) and conjectured-gate attention memories of
// paper A000 §2.1.4 (CPU, Eigen), judged against the references of recall/reference/ffn_memory.hpp by
// properties/tests/test_sparse_memory.cpp:
//   A000-MULTIHEAD   batched heads: the rows [q_t1; ...; q_tn_h] of the paper are the [B,T,H,d_h] layout,
//                    per head O_h = (kappa(Q_h K_h^T) masked causally) V_h in row blocks, then W_O
//   A000-MOE-ATTN,   MoBA: per query, block scores s_e = <q_t, mean of block e's keys> from per-block key
//   A000-MOBA-GATE   sums, top-k_top selection (ties: lower block), then per key block the queries that read it
//                    in one product (online-softmax merge per query): cost T k_top B (dk + dv), not T^2 (dk + dv) / 2
//   A000-GATED-CONJ  O = (kappa(Q K^T) (.) tril(X W_G X^T)) V in row blocks
// Kernels of the logit x = scale q^T k: linear x, ReLU max(0, x), exp e^x (unnormalised, as printed), and
// softmax (exp normalised over the keys the row reads, with a running maximum: production MoBA).
// Storage = accumulation type (float or double); a bf16/f16 tensor is widened to float exactly before the
// call. moba_attention keeps its scratch in a per-thread workspace that only grows (about
// 4 T (E + dk + block + 2 dv) bytes for float, E = ceil(T / block)), so repeated calls allocate nothing. Bad arguments (null pointers, sizes < 1, k_top < 1, block < 1, a non-finite logit) throw
// std::invalid_argument naming the argument.
#pragma once

#include <cstdint>

namespace recall::opt {

enum class MemoryKernel { linear, relu, exp, softmax };
enum class MobaForcing { none, current_block };  // V1 of A000-MOBA-GATE / V2 (current block always read)

template <class F> struct MobaArgs {
  int B = 1, H = 1, T = 0, dk = 0, dv = 0;
  const F* q = nullptr;  // [B,H,T,dk]
  const F* k = nullptr;  // [B,H,T,dk]
  const F* v = nullptr;  // [B,H,T,dv]
  F* o = nullptr;        // [B,H,T,dv]
  int block = 64;        // keys per expert block
  int k_top = 4;         // blocks read per query (clipped to the number of candidates)
  MobaForcing forcing = MobaForcing::current_block;
  MemoryKernel kernel = MemoryKernel::softmax;
  double scale = 0;                    // logit scale; 0 = 1/sqrt(dk)
  std::uint8_t* gates_out = nullptr;   // optional [B,H,T,ceil(T/block)]: 1 where a block was read
};
template <class F> void moba_attention(const MobaArgs<F>& a);

template <class F> struct MultiheadArgs {
  int B = 1, T = 0, H = 1, dh = 0, dhv = 0;
  const F* q = nullptr;   // [B,T,H*dh]  (the paper's concatenated head slices, head-major)
  const F* k = nullptr;   // [B,T,H*dh]
  const F* v = nullptr;   // [B,T,H*dhv]
  const F* wo = nullptr;  // optional [d_out, H*dhv] output projection W_O
  int d_out = 0;          // rows of W_O (ignored without it)
  F* o = nullptr;         // [B,T,d_out] with W_O, else [B,T,H*dhv] (the concatenated heads)
  MemoryKernel kernel = MemoryKernel::linear;  // linear, relu or exp (unnormalised, as Eqs. 19-23)
  double scale = 1;       // logit scale
  int block = 128;        // query rows per block
};
template <class F> void multihead_kernel_attention(const MultiheadArgs<F>& a);

template <class F> struct GatedConjArgs {
  int T = 0, d = 0, dk = 0, dv = 0;
  const F* x = nullptr;   // [T,d] layer inputs
  const F* wg = nullptr;  // [d,d] gate matrix W_G (g_i = (W_G x_i)^T x_t)
  const F* q = nullptr;   // [T,dk]
  const F* k = nullptr;   // [T,dk]
  const F* v = nullptr;   // [T,dv]
  F* o = nullptr;         // [T,dv]
  MemoryKernel kernel = MemoryKernel::linear;  // linear, relu or exp
  double scale = 1;
  int block = 128;
};
template <class F> void gated_conj_attention(const GatedConjArgs<F>& a);

extern template void moba_attention<float>(const MobaArgs<float>&);
extern template void moba_attention<double>(const MobaArgs<double>&);
extern template void multihead_kernel_attention<float>(const MultiheadArgs<float>&);
extern template void multihead_kernel_attention<double>(const MultiheadArgs<double>&);
extern template void gated_conj_attention<float>(const GatedConjArgs<float>&);
extern template void gated_conj_attention<double>(const GatedConjArgs<double>&);

}  // namespace recall::opt
