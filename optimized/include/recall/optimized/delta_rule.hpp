// Fast CPU kernels of the delta-rule family (Eigen, float and double; the templates are
// instantiated once in optimized/src/delta_rule.cpp, this header only declares them).
//
// Delta rule (A001-DELTANET-DEF Eq. 6, A004-UPD-DELTANET) and gated delta rule with the decay in
// placement G (A001-GATED-DELTANET-REPARAM Eq. 41, A004-UPD-GDN):
//   S_t = alpha_t S_{t-1} (I - beta_t k_t k_t^T) + beta_t v_t k_t^T,   o_t = S_t q_t,
// alpha_t = exp(log_alpha_t) in [0,1] (-inf: a reset, alpha = 0); ungated: alpha_t = 1.
//
// Layout as in optimized/linear_attention.hpp: row-major contiguous, heads independent,
//   q, k: [B,H,T,dk]   v, o: [B,H,T,dv]   beta, log_alpha: [B,H,T]   s0, s_final: [B,H,dv,dk]
// The memory is canonical (d_v x d_k, read-out S q).
//
// The kernels do not look for NaN/inf in the inputs (the caller validates); they throw
// std::invalid_argument for null required pointers, non-positive sizes or a chunk size < 1.
#pragma once

namespace recall::opt {

// How the chunked kernel solves the within-chunk unit-lower-triangular system (I + A) Delta = R.
enum class UnitLowerSolve {
  forward_substitution,  // blocked forward substitution in place (Eigen triangular solve)
  product_inverse,       // product-form inverse: (I+A)^{-1} = E_{n-1} ... E_1 with the eta factors
                         // E_j = I - A e_j e_j^T (column j of A below the diagonal), formed
                         // explicitly, then applied to R with one GEMM
};

template <class Scalar> struct DeltaRuleArgs {
  int B = 1, H = 1, T = 0, dk = 0, dv = 0;  // batch, heads, tokens, key width, value width
  const Scalar* q = nullptr;                // [B,H,T,dk]
  const Scalar* k = nullptr;                // [B,H,T,dk]
  const Scalar* v = nullptr;                // [B,H,T,dv]
  const Scalar* beta = nullptr;             // [B,H,T] step sizes (required when T > 0)
  const Scalar* log_alpha = nullptr;        // [B,H,T] log alpha_t <= 0, -inf = reset; nullptr = ungated
  const Scalar* s0 = nullptr;               // [B,H,dv,dk] initial state; nullptr = zeros
  Scalar* o = nullptr;                      // [B,H,T,dv] outputs (required when T > 0)
  Scalar* s_final = nullptr;                // [B,H,dv,dk] final state; nullptr = not wanted
  int chunk = 64;                           // chunk size C >= 1 (chunked kernel only)
  UnitLowerSolve solve = UnitLowerSolve::forward_substitution;
};

// Token-by-token recurrence (the naive baseline): p = S k_t, e = beta_t (v_t - alpha_t p),
// S <- alpha_t S + e k_t^T, o_t = S q_t. FLOPs: 6*T*dk*dv per head.
template <class T> void delta_rule_recurrent(const DeltaRuleArgs<T>& a);

// Chunked WY/UT form (A001-F08-DELTANET-CHUNK, A001-F09-GDN-CHUNK, A004-UPD-GDN fast form). For
// the chunk of rows s..e with incoming state S, chunk-local b_t = sum_{j=s}^{t} log alpha_j and
// G_ti = exp(sum_{j=i+1}^{t} log alpha_j) (i <= t; direct segment sums, so a zero gate gives
// exact zeros and never a NaN):
//   (I + diag(beta) (G ⊙ tril_{-1}(K_c K_c^T))) Delta = diag(beta) (V_c - diag(exp b) K_c S^T)
//   O_c = diag(exp b) Q_c S^T + (Q_c K_c^T ⊙ G) Delta,    S <- exp(b_e) S + Delta^T diag(G_{e,:}) K_c.
// Every product is an Eigen GEMM. FLOPs with full C-blocks (counting full C x C products):
// 2*T*(3*dk*dv + 2*C*dk + C*dv) + T*C*dv (the solve) per head.
template <class T> void delta_rule_chunked(const DeltaRuleArgs<T>& a);

extern template void delta_rule_recurrent<float>(const DeltaRuleArgs<float>&);
extern template void delta_rule_recurrent<double>(const DeltaRuleArgs<double>&);
extern template void delta_rule_chunked<float>(const DeltaRuleArgs<float>&);
extern template void delta_rule_chunked<double>(const DeltaRuleArgs<double>&);

}  // namespace recall::opt
