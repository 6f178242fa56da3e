// Block programs of the gpu/ kernels, written once for the device and the host.
//
// A CUDA thread block runs a program as a sequence of *phases* separated by __syncthreads();
// within a phase thread `tid` of `nt` takes the work items tid, tid + nt, ... and touches only
// shared memory and its own outputs. Each phase here is a plain function of (tid, nt, shared
// memory, arguments), so the same code runs
//   * on the device (gpu/src/kernels.cu: every thread calls the phase, then __syncthreads()), and
//   * on the host (gpu/tests/test_programs.cpp: a loop over tid per phase emulates a block),
// which lets the suite check the kernels' index arithmetic and algorithms against the MP
// reference on machines without a GPU. Global offsets are 64-bit (T*H*d may pass 2^31).
//
// Accumulation is fp32 whatever the input storage (float, __half, __nv_bfloat16): inputs are
// converted with to_f32 on load. Gates are logs (README §1.5); decays are exps of direct segment
// sums, never differences of prefix sums, so zero gates (-inf) never produce NaN.
#pragma once

#include "recall/fault.hpp"

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define RECALL_HD __host__ __device__
#else
#define RECALL_HD
#endif

namespace recall::gpu {

using i64 = std::int64_t;

RECALL_HD inline float to_f32(float x) { return x; }
#if defined(__CUDACC__)
RECALL_HD inline float to_f32(__half x) { return __half2float(x); }
RECALL_HD inline float to_f32(__nv_bfloat16 x) { return __bfloat162float(x); }
RECALL_HD inline float f32_exp(float x) { return ::expf(x); }
#else
}  // namespace recall::gpu
#include <cmath>
namespace recall::gpu {
inline float f32_exp(float x) { return std::exp(x); }
#endif
RECALL_HD inline float f32_max(float a, float b) { return a > b ? a : b; }
// Offset of row t of head bh in a [B*H, T, width] tensor: 64-bit throughout (B*H*T*width may
// pass 2^31; every global index of the programs goes through here or through bh * n in 64 bits).
RECALL_HD inline i64 row_offset(i64 bh, i64 T, i64 t, i64 width) {
  if (RECALL_FAULT_ON(gpu_index_32bit)) return i64(std::uint32_t(std::uint32_t(bh * T + t) * std::uint32_t(width)));
  return (bh * T + t) * width;
}
constexpr float kNegInf = -__builtin_huge_valf();

// Problem shape shared by the linear-attention and delta-rule programs.
struct SeqDims {
  i64 B = 1, H = 1, T = 0;
  int dk = 0, dv = 0;
  int C = 64;  // chunk size
};

// ---------------------------------------------------------------------------------------------
// Chunked (gated) linear attention: S_t = a_t S_{t-1} + v_t k_t^T, o_t = S_t q_t.
// Shared memory (floats): S[dv*dk] Q[C*dk] K[C*dk] V[C*dv] P[C*C] lg[C] b[C] w[C].
// Per chunk of n <= C rows starting at row c0 of head bh:
//   load   Q,K,V,lg (lg = 0 when ungated)
//   gates  b[t] = sum_{j<=t} lg[j] (chunk-local), w[i] = exp(sum_{j=i+1}^{n-1} lg[j])
//   scores P[t][i] = (q_t . k_i) exp(sum_{j=i+1}^{t} lg[j]) for i <= t, else 0
//   output o[t][:] = exp(b[t]) S q_t + sum_{i<=t} P[t][i] v_i          (chunk_output)
//   state  S = exp(b[n-1]) S + sum_i w[i] v_i k_i^T                    (chunk_state)
// ---------------------------------------------------------------------------------------------
struct LaLayout {
  int dk, dv, C;
  RECALL_HD std::size_t S() const { return 0; }
  RECALL_HD std::size_t Q() const { return S() + std::size_t(dv) * dk; }
  RECALL_HD std::size_t K() const { return Q() + std::size_t(C) * dk; }
  RECALL_HD std::size_t V() const { return K() + std::size_t(C) * dk; }
  RECALL_HD std::size_t P() const { return V() + std::size_t(C) * dv; }
  RECALL_HD std::size_t lg() const { return P() + std::size_t(C) * C; }
  RECALL_HD std::size_t b() const { return lg() + C; }
  RECALL_HD std::size_t w() const { return b() + C; }
  RECALL_HD std::size_t floats() const { return w() + C; }
};

template <class In> struct LaPtrs {
  const In* q;
  const In* k;
  const In* v;
  const float* log_gate;  // [B,H,T] or null
  const float* s0;        // [B,H,dv,dk] or null
  float* o;               // [B,H,T,dv]
  float* s_final;         // [B,H,dv,dk] or null
};

RECALL_HD inline void state_init(int tid, int nt, float* sm, int dk, int dv, const float* s0, i64 bh) {
  const i64 n = i64(dv) * dk;
  for (i64 e = tid; e < n; e += nt) sm[e] = s0 ? s0[bh * n + e] : 0.0f;
}
RECALL_HD inline void state_store(int tid, int nt, const float* sm, int dk, int dv, float* s_final, i64 bh) {
  if (!s_final) return;
  const i64 n = i64(dv) * dk;
  for (i64 e = tid; e < n; e += nt) s_final[bh * n + e] = sm[e];
}

template <class In>
RECALL_HD void chunk_load(int tid, int nt, float* Qs, float* Ks, float* Vs, float* lgs, const In* q, const In* k, const In* v,
                          const float* log_gate, const SeqDims& d, i64 bh, i64 c0, int n) {
  const i64 rowq = row_offset(bh, d.T, c0, d.dk), rowv = row_offset(bh, d.T, c0, d.dv);
  for (i64 e = tid; e < i64(n) * d.dk; e += nt) {
    if (Qs) Qs[e] = to_f32(q[rowq + e]);
    Ks[e] = to_f32(k[rowq + e]);
  }
  for (i64 e = tid; e < i64(n) * d.dv; e += nt) Vs[e] = to_f32(v[rowv + e]);
  for (int t = tid; t < n; t += nt) lgs[t] = log_gate ? log_gate[row_offset(bh, d.T, c0 + t, 1)] : 0.0f;
}

// b[t] = sum_{j<=t} lg[j]; w[i] = exp(sum_{j=i+1}^{n-1} lg[j]) (direct sums, O(C) per entry).
RECALL_HD inline void chunk_gates(int tid, int nt, const float* lgs, float* b, float* w, int n) {
  for (int t = tid; t < n; t += nt) {
    float s = 0.0f;
    for (int j = 0; j <= t; ++j) s += lgs[j];
    b[t] = s;
    float r = 0.0f;
    for (int j = t + 1; j < n; ++j) r += lgs[j];
    w[t] = f32_exp(r);
  }
}
// exp(sum_{j=i+1}^{t} lg[j]) for i <= t.
RECALL_HD inline float seg_decay(const float* lgs, int i, int t) {
  float s = 0.0f;
  for (int j = i + 1; j <= t; ++j) s += lgs[j];
  return f32_exp(s);
}
RECALL_HD inline float dotf(const float* a, const float* b, int n) {
  float s = 0.0f;
  for (int c = 0; c < n; ++c) s += a[c] * b[c];
  return s;
}

RECALL_HD inline void la_scores(int tid, int nt, float* sm, const LaLayout& L, int n) {
  const float *Q = sm + L.Q(), *K = sm + L.K(), *lg = sm + L.lg();
  float* P = sm + L.P();
  for (int e = tid; e < n * L.C; e += nt) {
    const int t = e / L.C, i = e % L.C;
    P[e] = (i <= t && i < n) ? dotf(Q + t * L.dk, K + i * L.dk, L.dk) * seg_decay(lg, i, t) : 0.0f;
  }
}
// o[t][:] = exp(b[t]) S q_t + sum_{i<=t} P[t][i] X[i][:]   (X = V for linear attention, Delta for the delta rule)
RECALL_HD inline void chunk_output(int tid, int nt, const float* S, const float* Q, const float* X, const float* P, const float* b,
                                   int C, int dk, int dv, int n, float* o, const SeqDims& d, i64 bh, i64 c0) {
  for (int e = tid; e < n * dv; e += nt) {
    const int t = e / dv, j = e % dv;
    float acc = f32_exp(b[t]) * dotf(S + i64(j) * dk, Q + t * dk, dk);
    for (int i = 0; i <= t; ++i) acc += P[t * C + i] * X[i * dv + j];
    o[row_offset(bh, d.T, c0 + t, d.dv) + j] = acc;
  }
}
// S = exp(b[n-1]) S + sum_i w[i] X[i] k_i^T
RECALL_HD inline void chunk_state(int tid, int nt, float* S, const float* K, const float* X, const float* b, const float* w, int dk,
                                  int dv, int n) {
  const float an = f32_exp(b[n - 1]);
  for (i64 e = tid; e < i64(dv) * dk; e += nt) {
    const int j = int(e / dk), c = int(e % dk);
    float acc = an * S[e];
    for (int i = 0; i < n; ++i) acc += w[i] * X[i * dv + j] * K[i * dk + c];
    S[e] = acc;
  }
}

// ---------------------------------------------------------------------------------------------
// Chunked (gated) delta rule in the WY/UT form (placement G, README §3 group 9):
//   S_t = alpha_t S_{t-1}(I - beta_t k_t k_t^T) + beta_t v_t k_t^T,  o_t = S_t q_t.
// With chunk-local a_t = prod_{j<=t} alpha_j and G_ti = a_t / a_i, the corrections delta_t solve
//   (I + diag(beta)(G ⊙ tril_{-1}(K K^T))) Delta = diag(beta)(V - diag(a) K S^T)
// by forward substitution (one thread per value column); then
//   o_t = a_t S q_t + sum_{i<=t} G_ti (k_i . q_t) delta_i,  S <- a_n S + sum_i G_{n,i} delta_i k_i^T.
// Shared memory (floats): S[dv*dk] Q[C*dk] K[C*dk] D[C*dv] M[C*C] P[C*C] lg[C] b[C] w[C] beta[C].
// ---------------------------------------------------------------------------------------------
struct DrLayout {
  int dk, dv, C;
  RECALL_HD std::size_t S() const { return 0; }
  RECALL_HD std::size_t Q() const { return S() + std::size_t(dv) * dk; }
  RECALL_HD std::size_t K() const { return Q() + std::size_t(C) * dk; }
  RECALL_HD std::size_t D() const { return K() + std::size_t(C) * dk; }
  RECALL_HD std::size_t M() const { return D() + std::size_t(C) * dv; }
  RECALL_HD std::size_t P() const { return M() + std::size_t(C) * C; }
  RECALL_HD std::size_t lg() const { return P() + std::size_t(C) * C; }
  RECALL_HD std::size_t b() const { return lg() + C; }
  RECALL_HD std::size_t w() const { return b() + C; }
  RECALL_HD std::size_t beta() const { return w() + C; }
  RECALL_HD std::size_t floats() const { return beta() + C; }
};

template <class In> struct DrPtrs {
  const In* q;
  const In* k;
  const In* v;
  const float* beta;      // [B,H,T]
  const float* log_gate;  // [B,H,T] or null (ungated delta rule)
  const float* s0;
  float* o;
  float* s_final;
};

RECALL_HD inline void dr_load_beta(int tid, int nt, float* betas, const float* beta, const SeqDims& d, i64 bh, i64 c0, int n) {
  for (int t = tid; t < n; t += nt) betas[t] = beta[row_offset(bh, d.T, c0 + t, 1)];
}
// M[t][i] = beta_t G_ti (k_t . k_i) for i < t; P[t][i] = G_ti (q_t . k_i) for i <= t;
// then the right-hand side D[t][j] = beta_t (v_tj - a_t (S k_t)_j) in place of V.
RECALL_HD inline void dr_mats(int tid, int nt, float* sm, const DrLayout& L, int n) {
  const float *Q = sm + L.Q(), *K = sm + L.K(), *lg = sm + L.lg(), *beta = sm + L.beta();
  float *M = sm + L.M(), *P = sm + L.P();
  for (int e = tid; e < n * L.C; e += nt) {
    const int t = e / L.C, i = e % L.C;
    const bool in = i < n;
    const float g = (in && i <= t) ? seg_decay(lg, i, t) : 0.0f;
    M[e] = (in && i < t) ? beta[t] * g * dotf(K + t * L.dk, K + i * L.dk, L.dk) : 0.0f;
    P[e] = (in && i <= t) ? g * dotf(Q + t * L.dk, K + i * L.dk, L.dk) : 0.0f;
  }
}
RECALL_HD inline void dr_rhs(int tid, int nt, float* sm, const DrLayout& L, int n) {
  const float *S = sm + L.S(), *K = sm + L.K(), *b = sm + L.b(), *beta = sm + L.beta();
  float* D = sm + L.D();  // holds V on entry
  for (int e = tid; e < n * L.dv; e += nt) {
    const int t = e / L.dv, j = e % L.dv;
    D[e] = beta[t] * (D[e] - f32_exp(b[t]) * dotf(S + i64(j) * L.dk, K + t * L.dk, L.dk));
  }
}
// Forward substitution, one value column per work item: D[t][j] -= sum_{i<t} M[t][i] D[i][j].
RECALL_HD inline void dr_solve(int tid, int nt, float* sm, const DrLayout& L, int n) {
  const float* M = sm + L.M();
  float* D = sm + L.D();
  for (int j = tid; j < L.dv; j += nt)
    for (int t = 1; t < n; ++t) {
      float acc = D[t * L.dv + j];
      for (int i = 0; i < t; ++i) acc -= M[t * L.C + i] * D[i * L.dv + j];
      D[t * L.dv + j] = acc;
    }
}
// ---------------------------------------------------------------------------------------------
// Tiled causal softmax attention with the online (running max / running sum) normaliser:
// o_t = sum_{i<=t} exp(s_ti - m_t) v_i / sum_{i<=t} exp(s_ti - m_t), s_ti = scale q_t . k_i.
// A block owns Bq query rows of one head (one row per work item); key tiles of Bk rows are loaded
// into shared memory. Shared memory (floats): Q[Bq*d] K[Bk*d] V[Bk*dv] Acc[Bq*dv] Sc[Bq*Bk] m[Bq] l[Bq].
// Every causal row holds at least its own key, so no row is empty; logits are shifted by the
// running max, so saturated scores never overflow.
// ---------------------------------------------------------------------------------------------
struct SmLayout {
  int dk, dv, Bq, Bk;
  RECALL_HD std::size_t Q() const { return 0; }
  RECALL_HD std::size_t K() const { return Q() + std::size_t(Bq) * dk; }
  RECALL_HD std::size_t V() const { return K() + std::size_t(Bk) * dk; }
  RECALL_HD std::size_t Acc() const { return V() + std::size_t(Bk) * dv; }
  RECALL_HD std::size_t Sc() const { return Acc() + std::size_t(Bq) * dv; }
  RECALL_HD std::size_t m() const { return Sc() + std::size_t(Bq) * Bk; }
  RECALL_HD std::size_t l() const { return m() + Bq; }
  RECALL_HD std::size_t floats() const { return l() + Bq; }
};

template <class In> struct SmPtrs {
  const In* q;
  const In* k;
  const In* v;
  float* o;
};

template <class In>
RECALL_HD void sm_init(int tid, int nt, float* sm, const SmLayout& L, const In* q, const SeqDims& d, i64 bh, i64 r0, int nq) {
  float* Q = sm + L.Q();
  for (i64 e = tid; e < i64(nq) * L.dk; e += nt) Q[e] = to_f32(q[row_offset(bh, d.T, r0, d.dk) + e]);
  for (i64 e = tid; e < i64(L.Bq) * L.dv; e += nt) sm[L.Acc() + e] = 0.0f;
  for (int r = tid; r < L.Bq; r += nt) {
    sm[L.m() + r] = kNegInf;
    sm[L.l() + r] = 0.0f;
  }
}
template <class In>
RECALL_HD void sm_load_kv(int tid, int nt, float* sm, const SmLayout& L, const In* k, const In* v, const SeqDims& d, i64 bh, i64 k0,
                          int nk) {
  for (i64 e = tid; e < i64(nk) * L.dk; e += nt) sm[L.K() + e] = to_f32(k[row_offset(bh, d.T, k0, d.dk) + e]);
  for (i64 e = tid; e < i64(nk) * L.dv; e += nt) sm[L.V() + e] = to_f32(v[row_offset(bh, d.T, k0, d.dv) + e]);
}
// One query row per work item: scores of the tile, new running max, rescale, accumulate.
RECALL_HD inline void sm_tile(int tid, int nt, float* sm, const SmLayout& L, float scale, i64 r0, int nq, i64 k0, int nk) {
  for (int r = tid; r < nq; r += nt) {
    const i64 row = r0 + r;
    const float* q = sm + L.Q() + i64(r) * L.dk;
    float* sc = sm + L.Sc() + i64(r) * L.Bk;
    float* acc = sm + L.Acc() + i64(r) * L.dv;
    float& m = sm[L.m() + r];
    float& l = sm[L.l() + r];
    int last = nk - 1;  // causal: keys k0 + i <= row
    if (k0 + last > row) last = int(row - k0);
    if (last < 0) continue;
    float mt = m;
    for (int i = 0; i <= last; ++i) {
      sc[i] = scale * dotf(q, sm + L.K() + i64(i) * L.dk, L.dk);
      mt = f32_max(mt, sc[i]);
    }
    const float corr = f32_exp(m - mt);  // m = -inf on the first tile: corr = 0
    l *= corr;
    for (int j = 0; j < L.dv; ++j) acc[j] *= corr;
    for (int i = 0; i <= last; ++i) {
      const float p = f32_exp(sc[i] - mt);
      l += p;
      const float* vi = sm + L.V() + i64(i) * L.dv;
      for (int j = 0; j < L.dv; ++j) acc[j] += p * vi[j];
    }
    m = mt;
  }
}
RECALL_HD inline void sm_store(int tid, int nt, const float* sm, const SmLayout& L, float* o, const SeqDims& d, i64 bh, i64 r0,
                               int nq) {
  for (i64 e = tid; e < i64(nq) * L.dv; e += nt) {
    const int r = int(e / L.dv);
    o[row_offset(bh, d.T, r0, d.dv) + e] = sm[L.Acc() + e] / sm[L.l() + r];
  }
}

// ---------------------------------------------------------------------------------------------
// DeltaFormer u-solve (A000-DELTAFORMER-U, blocked forward substitution) and read-out:
//   u_t = v_t - beta_t sum_{i<t} kappa(k_i, k_t) u_i,   o_t = sum_{i<=t} kappa(k_i, q_t) u_i,
// kappa(x, y) = exp(x . y / tau) (beta = 1 when null). One block per head walks the chunks in
// order: the chunk's right-hand side V_c loses A_{c,p} U_p for every earlier chunk p (U_p read back
// from the output), then the chunk's own unit-lower-triangular system is solved by substitution,
// one value column per work item. Shared (floats): Kc[C*dk] Uc[C*dv] Kp[C*dk] Up[C*dv] A[C*C] beta[C].
// ---------------------------------------------------------------------------------------------
struct UsLayout {
  int dk, dv, C;
  RECALL_HD std::size_t Kc() const { return 0; }
  RECALL_HD std::size_t Uc() const { return Kc() + std::size_t(C) * dk; }
  RECALL_HD std::size_t Kp() const { return Uc() + std::size_t(C) * dv; }
  RECALL_HD std::size_t Up() const { return Kp() + std::size_t(C) * dk; }
  RECALL_HD std::size_t A() const { return Up() + std::size_t(C) * dv; }
  RECALL_HD std::size_t beta() const { return A() + std::size_t(C) * C; }
  RECALL_HD std::size_t floats() const { return beta() + C; }
};
template <class In> struct UsPtrs {
  const In* k;
  const In* v;
  const float* beta;  // [B,H,T] or null
  float* u;           // [B,H,T,dv]
};

RECALL_HD inline void us_load_rows(int tid, int nt, float* dst, const float* src, i64 off, int n, int width) {
  for (i64 e = tid; e < i64(n) * width; e += nt) dst[e] = src[off + e];
}
template <class In> RECALL_HD void us_load_in(int tid, int nt, float* dst, const In* src, i64 off, int n, int width) {
  for (i64 e = tid; e < i64(n) * width; e += nt) dst[e] = to_f32(src[off + e]);
}
// A[t][i] = beta_t exp(k_t . kp_i / tau) for the rows t < n of the chunk and i < np of block p;
// within the chunk itself (same = true) only i < t.
RECALL_HD inline void us_coeffs(int tid, int nt, float* sm, const UsLayout& L, int n, int np, bool same, float inv_tau) {
  const float *Kc = sm + L.Kc(), *Kp = same ? sm + L.Kc() : sm + L.Kp(), *beta = sm + L.beta();
  float* A = sm + L.A();
  for (int e = tid; e < n * L.C; e += nt) {
    const int t = e / L.C, i = e % L.C;
    const bool in = same ? i < t : i < np;
    A[e] = in ? beta[t] * f32_exp(inv_tau * dotf(Kc + t * L.dk, Kp + i * L.dk, L.dk)) : 0.0f;
  }
}
RECALL_HD inline void us_subtract(int tid, int nt, float* sm, const UsLayout& L, int n, int np) {
  const float *A = sm + L.A(), *Up = sm + L.Up();
  float* Uc = sm + L.Uc();
  for (int e = tid; e < n * L.dv; e += nt) {
    const int t = e / L.dv, j = e % L.dv;
    float acc = Uc[e];
    for (int i = 0; i < np; ++i) acc -= A[t * L.C + i] * Up[i * L.dv + j];
    Uc[e] = acc;
  }
}
RECALL_HD inline void us_solve(int tid, int nt, float* sm, const UsLayout& L, int n) {
  const float* A = sm + L.A();
  float* Uc = sm + L.Uc();
  for (int j = tid; j < L.dv; j += nt)
    for (int t = 1; t < n; ++t) {
      float acc = Uc[t * L.dv + j];
      for (int i = 0; i < t; ++i) acc -= A[t * L.C + i] * Uc[i * L.dv + j];
      Uc[t * L.dv + j] = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// Whole block programs. Ctx::phase(f) runs f(tid, nt) for every thread of the block and then
// synchronises (device: each thread calls f once, then __syncthreads(); host: a loop over tid).
// ---------------------------------------------------------------------------------------------
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class Ctx, class In>
RECALL_HD void linear_attention_program(Ctx& ctx, float* sm, const SeqDims& d, const LaPtrs<In>& p, i64 bh) {
  const LaLayout L{d.dk, d.dv, d.C};
  ctx.phase([&](int tid, int nt) { state_init(tid, nt, sm + L.S(), d.dk, d.dv, p.s0, bh); });
  for (i64 c0 = 0; c0 < d.T; c0 += d.C) {
    const int n = int((d.T - c0) < d.C ? (d.T - c0) : d.C);
    if (RECALL_FAULT_ON(gpu_tail_dropped) && n < d.C) break;
    ctx.phase([&](int tid, int nt) {
      chunk_load(tid, nt, sm + L.Q(), sm + L.K(), sm + L.V(), sm + L.lg(), p.q, p.k, p.v, p.log_gate, d, bh, c0, n);
    });
    ctx.phase([&](int tid, int nt) { chunk_gates(tid, nt, sm + L.lg(), sm + L.b(), sm + L.w(), n); });
    ctx.phase([&](int tid, int nt) { la_scores(tid, nt, sm, L, n); });
    ctx.phase([&](int tid, int nt) {
      chunk_output(tid, nt, sm + L.S(), sm + L.Q(), sm + L.V(), sm + L.P(), sm + L.b(), L.C, L.dk, L.dv, n, p.o, d, bh, c0);
    });
    ctx.phase([&](int tid, int nt) { chunk_state(tid, nt, sm + L.S(), sm + L.K(), sm + L.V(), sm + L.b(), sm + L.w(), L.dk, L.dv, n); });
  }
  ctx.phase([&](int tid, int nt) { state_store(tid, nt, sm + L.S(), d.dk, d.dv, p.s_final, bh); });
}

#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class Ctx, class In>
RECALL_HD void delta_rule_program(Ctx& ctx, float* sm, const SeqDims& d, const DrPtrs<In>& p, i64 bh) {
  const DrLayout L{d.dk, d.dv, d.C};
  ctx.phase([&](int tid, int nt) { state_init(tid, nt, sm + L.S(), d.dk, d.dv, p.s0, bh); });
  for (i64 c0 = 0; c0 < d.T; c0 += d.C) {
    const int n = int((d.T - c0) < d.C ? (d.T - c0) : d.C);
    if (RECALL_FAULT_ON(gpu_tail_dropped) && n < d.C) break;
    ctx.phase([&](int tid, int nt) {
      chunk_load(tid, nt, sm + L.Q(), sm + L.K(), sm + L.D(), sm + L.lg(), p.q, p.k, p.v, p.log_gate, d, bh, c0, n);
      dr_load_beta(tid, nt, sm + L.beta(), p.beta, d, bh, c0, n);
    });
    ctx.phase([&](int tid, int nt) { chunk_gates(tid, nt, sm + L.lg(), sm + L.b(), sm + L.w(), n); });
    ctx.phase([&](int tid, int nt) {
      dr_mats(tid, nt, sm, L, n);
      dr_rhs(tid, nt, sm, L, n);
    });
    ctx.phase([&](int tid, int nt) { dr_solve(tid, nt, sm, L, n); });
    ctx.phase([&](int tid, int nt) {
      chunk_output(tid, nt, sm + L.S(), sm + L.Q(), sm + L.D(), sm + L.P(), sm + L.b(), L.C, L.dk, L.dv, n, p.o, d, bh, c0);
    });
    ctx.phase([&](int tid, int nt) { chunk_state(tid, nt, sm + L.S(), sm + L.K(), sm + L.D(), sm + L.b(), sm + L.w(), L.dk, L.dv, n); });
  }
  ctx.phase([&](int tid, int nt) { state_store(tid, nt, sm + L.S(), d.dk, d.dv, p.s_final, bh); });
}

#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class Ctx, class In>
RECALL_HD void u_solve_program(Ctx& ctx, float* sm, const SeqDims& d, float inv_tau, const UsPtrs<In>& p, i64 bh) {
  const UsLayout L{d.dk, d.dv, d.C};
  for (i64 c0 = 0; c0 < d.T; c0 += d.C) {
    const int n = int((d.T - c0) < d.C ? (d.T - c0) : d.C);
    ctx.phase([&](int tid, int nt) {
      us_load_in(tid, nt, sm + L.Kc(), p.k, row_offset(bh, d.T, c0, d.dk), n, d.dk);
      us_load_in(tid, nt, sm + L.Uc(), p.v, row_offset(bh, d.T, c0, d.dv), n, d.dv);
      for (int t = tid; t < n; t += nt) sm[L.beta() + t] = p.beta ? p.beta[row_offset(bh, d.T, c0 + t, 1)] : 1.0f;
    });
    for (i64 p0 = 0; p0 < c0; p0 += d.C) {  // earlier chunks are always full
      ctx.phase([&](int tid, int nt) {
        us_load_in(tid, nt, sm + L.Kp(), p.k, row_offset(bh, d.T, p0, d.dk), d.C, d.dk);
        us_load_rows(tid, nt, sm + L.Up(), p.u, row_offset(bh, d.T, p0, d.dv), d.C, d.dv);
      });
      ctx.phase([&](int tid, int nt) { us_coeffs(tid, nt, sm, L, n, d.C, false, inv_tau); });
      ctx.phase([&](int tid, int nt) { us_subtract(tid, nt, sm, L, n, d.C); });
    }
    ctx.phase([&](int tid, int nt) { us_coeffs(tid, nt, sm, L, n, n, true, inv_tau); });
    ctx.phase([&](int tid, int nt) { us_solve(tid, nt, sm, L, n); });
    ctx.phase([&](int tid, int nt) {
      for (i64 e = tid; e < i64(n) * d.dv; e += nt) p.u[row_offset(bh, d.T, c0, d.dv) + e] = sm[L.Uc() + e];
    });
  }
}

// Block `blk` of the softmax grid: head blk / tiles, query tile blk % tiles.
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class Ctx, class In>
RECALL_HD void softmax_program(Ctx& ctx, float* sm, const SeqDims& d, const SmLayout& L, float scale, const SmPtrs<In>& p, i64 blk) {
  const i64 tiles = (d.T + L.Bq - 1) / L.Bq;
  const i64 bh = blk / tiles, r0 = (blk % tiles) * L.Bq;
  const int nq = int((d.T - r0) < L.Bq ? (d.T - r0) : L.Bq);
  ctx.phase([&](int tid, int nt) { sm_init(tid, nt, sm, L, p.q, d, bh, r0, nq); });
  for (i64 k0 = 0; k0 <= r0 + nq - 1; k0 += L.Bk) {
    const int nk = int((d.T - k0) < L.Bk ? (d.T - k0) : L.Bk);
    ctx.phase([&](int tid, int nt) { sm_load_kv(tid, nt, sm, L, p.k, p.v, d, bh, k0, nk); });
    ctx.phase([&](int tid, int nt) { sm_tile(tid, nt, sm, L, scale, r0, nq, k0, nk); });
  }
  ctx.phase([&](int tid, int nt) { sm_store(tid, nt, sm, L, p.o, d, bh, r0, nq); });
}

// ---------------------------------------------------------------------------------------------
// Launch plans (host side; tested without a GPU).
// ---------------------------------------------------------------------------------------------
struct LaunchPlan {
  i64 grid = 0;              // blocks (one per head, or per head x query tile)
  int threads = 0;           // threads per block
  std::size_t smem_bytes = 0;
  int C = 0, Bq = 0, Bk = 0;  // chunk / tile sizes chosen
  int vt = 0;                 // value-tile width (tensor-core programs: one block per head x value tile)
  // chunk-parallel tensor-core linear attention / delta rule (tc_linear_parallel.hpp,
  // tc_delta_parallel.hpp): three passes; grid and smem_bytes are pass 1's, grid_scan and smem_scan
  // pass 2's (the state walk), grid_out and smem_out pass 3's (outputs); work_bytes of workspace.
  bool chunk_parallel = false;
  i64 grid_scan = 0, grid_out = 0;
  std::size_t smem_scan = 0, smem_out = 0, work_bytes = 0;
};
// Largest chunk C <= c_max (a power of two >= 1) whose shared memory fits smem_limit bytes.
// Throws std::invalid_argument when even C = 1 does not fit (dk*dv too large for one block).
LaunchPlan plan_linear_attention(const SeqDims& d, int c_max, std::size_t smem_limit);
LaunchPlan plan_delta_rule(const SeqDims& d, int c_max, std::size_t smem_limit);
LaunchPlan plan_softmax(const SeqDims& d, int b_max, std::size_t smem_limit);
LaunchPlan plan_u_solve(const SeqDims& d, int c_max, std::size_t smem_limit);

}  // namespace recall::gpu
