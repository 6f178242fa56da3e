// Fast CPU kernels of the Omega-rule memories of paper A002 (Atlas) with a linear memory on polynomial
// features (Eigen, float and double; instantiated once in optimized/src/omega.cpp):
//   omega_rule_sequential  A002-OMEGA-RULE / A002-OMEGANET-LINEAR (exact token-sequential rule)
//   omega_rule_chunked     A002-OMEGA-CHUNK-LINEAR (the paper's frozen-gradient chunk algorithm, Eq. 16)
//   atlas_chunked          A002-ATLAS-PARALLEL (momentum + batched Newton–Schulz per chunk, variants EQ32/D4)
//
// Layout (row-major, contiguous, heads independent), D = feature_dim(dk, degree):
//   q, k: [B,H,T,dk]  v, o: [B,H,T,dv]  log_alpha, eta: [B,H,T]  gamma: [B,H,T,c]  s0, s_final: [B,H,dv,D]
// gamma[t, j] is the window gate gamma_{t-j}^{(t)} of the token j places before t (j = 0: t itself);
// entries with t - j < 1 (before the sequence start) are never read (truncated windows, spec A-24).
// Memory M is dv x D with read-out y_t = M_t phi(q_t) after the step-t write (read after write).
//
// Features: degree == 0: phi = id (D = dk); degree p >= 1: all monomials of degree <= p in graded
// lexicographic order (1; x_1..x_d; x_1^2, x_1 x_2, .., x_d^2; ...), D = C(dk + p, p) (A002-POLY-MAP-MONO).
// Loss: l_i(M) = ||M phi_i - v_i||^2, gradient 2 (M phi_i - v_i) phi_i^T (half_l2: 1/2 ||.||^2, gradient
// without the 2; spec A002 "Loss scaling").
// Gates: log_alpha[t] = log alpha_t in [-inf, 0] (-inf: a zero gate, a reset; nullptr: alpha = 1); decay
// products A_{a:b} are exps of direct segment sums (never ratios), so zero gates give no NaN.
//
//   sequential: M_t = alpha_t M_{t-1} - eta_t sum_{i in W_t} gamma_i^(t) grad l_i(M_{t-1})      (form T)
//   chunked:    within the chunk s..e (entry state M_{s-1}), every gradient frozen at M_{s-1}:
//               M_t = A_{s:t} M_{s-1} - sum_{n=s}^{t} A_{n+1:t} eta_n sum_{i in W_n} gamma_i^(n) grad l_i(M_{s-1})
//               in the tensorised form Y = diag(A_{s:t}) Phi_Q M0^T - g (C ⊙ Phi_Q Phi_K^T) E, C = D Gamma.
//               chunk == 1 is the sequential rule.
//   atlas:      per chunk, frozen window gradients u_n = sum_i gamma_i^(n) grad l_i(M_{s-1}), then for n = s..e
//               EQ32: S_n = theta_n S_{n-1} + u_n,            M_n = alpha_n M_{n-1} - eta_n NS_k(S_n)
//               D4:   S_n = theta_n S_{n-1} - eta_n u_n,      M_n = alpha_n M_{n-1} + eta_out NS_k(S_n)
//               (D4's Gamma_{n,i} = eta_n gamma_i^(n)); NS_k of all momenta of a chunk as one batch.
//
// The kernels do not look for NaN/inf in the inputs (the caller validates); they throw
// std::invalid_argument naming the argument for null required pointers and out-of-range sizes.
#pragma once

#include "recall/optimized/newton_schulz.hpp"

namespace recall::opt {

// D of the feature map: dk for degree 0, C(dk + degree, degree) otherwise; throws std::invalid_argument
// naming dk and degree when D would exceed 2^31 - 1.
int omega_feature_dim(int dk, int degree);

template <class Scalar> struct OmegaArgs {
  int B = 1, H = 1, T = 0, dk = 0, dv = 0;
  int degree = 0;                  // feature map (see above)
  int c = 1;                       // window length >= 1
  int chunk = 64;                  // chunk size b >= 1 (chunked kernels)
  bool half_l2 = false;            // loss 1/2 ||.||^2 instead of ||.||^2
  const Scalar* q = nullptr;       // [B,H,T,dk]
  const Scalar* k = nullptr;       // [B,H,T,dk]
  const Scalar* v = nullptr;       // [B,H,T,dv]
  const Scalar* log_alpha = nullptr;  // [B,H,T]; nullptr: alpha = 1
  const Scalar* eta = nullptr;     // [B,H,T] learning rates (required)
  const Scalar* gamma = nullptr;   // [B,H,T,c]; nullptr: all window gates 1
  const Scalar* s0 = nullptr;      // [B,H,dv,D]; nullptr: zeros
  Scalar* o = nullptr;             // [B,H,T,dv] (required)
  Scalar* s_final = nullptr;       // [B,H,dv,D]; nullptr: not wanted
};

enum class AtlasVariant { eq32, d4 };

template <class Scalar> struct AtlasArgs : OmegaArgs<Scalar> {
  AtlasVariant variant = AtlasVariant::eq32;
  const Scalar* log_theta = nullptr;  // [B,H,T] momentum decay log theta_t; nullptr: theta = 1
  const Scalar* m0 = nullptr;         // [B,H,dv,D] initial momentum; nullptr: zeros
  Scalar* m_final = nullptr;          // [B,H,dv,D]; nullptr: not wanted
  double eta_out = 1.0;               // D4's outer rate (1 for Eq. 57)
  int ns_steps = 5;
  double ns_eps = 1e-7;
  NewtonSchulzCoefficients ns_coef;
};

// Exact token-sequential Omega rule: c rank-1 gradient terms per token through two small GEMMs
// (E = V_W - M Phi_W^T, M <- alpha M + g eta E diag(gamma) Phi_W). FLOPs ~ 4 T c dv D + 2 T dv D per head.
template <class T> void omega_rule_sequential(const OmegaArgs<T>& a);
// Frozen-gradient chunk form (the op's semantics depend on a.chunk). FLOPs per full chunk of b tokens:
// 2 (b + c) D dv (residuals) + 2 b (b + c) D (Phi_Q Phi_K^T) + 2 b (b + c) dv (apply) + 2 b D dv (read of M0)
// + 2 (b + c) D dv (end state).
template <class T> void omega_rule_chunked(const OmegaArgs<T>& a);
// Chunk-parallel Atlas (frozen gradients within a chunk; chunk == 1 is token-sequential Atlas).
template <class T> void atlas_chunked(const AtlasArgs<T>& a);

extern template void omega_rule_sequential<float>(const OmegaArgs<float>&);
extern template void omega_rule_sequential<double>(const OmegaArgs<double>&);
extern template void omega_rule_chunked<float>(const OmegaArgs<float>&);
extern template void omega_rule_chunked<double>(const OmegaArgs<double>&);
extern template void atlas_chunked<float>(const AtlasArgs<float>&);
extern template void atlas_chunked<double>(const AtlasArgs<double>&);

}  // namespace recall::opt
