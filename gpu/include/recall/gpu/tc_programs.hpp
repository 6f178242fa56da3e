// Tensor-core block programs of gpu/ (bf16 / f16 storage, fp32 accumulation), written once for the
// device (gpu/src/tc_kernels.cu) and the host emulator (emulate.hpp), like programs.hpp.
//
// Spec IDs (fast forms on tensor cores): chunked linear attention and its gated form; the WY/UT
// chunk form of the delta rule and gated delta rule (A001-F08-DELTANET-CHUNK, A001-F09-GDN-CHUNK,
// A004-UPD-GDN); causal softmax attention with the online normaliser (A004-SOFTMAX-ATTN,
// A001-F10-SOFTMAX-ONLINE); the DeltaFormer u-solve (A000-DELTAFORMER-U).
//
// Structure (the production chunked kernels' parallel structure, FlashAttention-2's online softmax):
//  * linear attention / delta rule: one block per (head, value tile of DVT columns), so that
//    B*H*ceil(dv/DVT) blocks fill the machine; the block walks the chunks of C = 64 rows in order,
//    holding its slice S[:, j0:j0+DVT] of the state in fp32 shared memory. Every chunk-level product
//    (Q K^T, K K^T, Q S, K S, P V, K^T V) is a tensor-core GEMM with 16-bit operands and fp32
//    accumulation (tc.hpp); the delta rule's unit-lower-triangular WY/UT system is solved in fp32 by
//    forward substitution (one thread per value column), as the SIMT program does.
//  * causal softmax: one block per (head, 64-row query tile), 4 warps of 16 rows; per key tile
//    S = Q K^T on tensor cores, the online max/sum in fp32, P rounded to the storage type for the
//    P V product. The row sum l adds the ROUNDED probabilities, so o is an exact convex combination
//    of the values (equal logits give exactly the stored value).
//  * u-solve: one block per (head, value tile); earlier chunks enter through tensor-core GEMMs (the
//    kernel matrix A = beta exp(K_c K_p^T / tau) in fp32, applied to U_p with TF32 operands: fp32
//    range, since the exponential kernel overflows f16), the chunk's own system by substitution.
//
// Intermediate operands rounded to the storage type: the decayed scores P, the corrections Delta
// (delta rule), w_i v_i, and the state S for the Q S / K S products (S itself is kept in fp32). The
// error budget's sensitivity term, taken at the storage precision, bounds what such roundings may
// cost; the tests judge every kernel against the MP oracle under that budget.
//
// Gates: the chunk-local log-gate prefix is summed in double, reset at a gate of -inf (a reset:
// everything before it is forgotten), and decays are exp(pre[t] - pre[i]) within a segment and 0
// across a reset -- never inf - inf, so zero gates give zeros, not NaN.
#pragma once

#include "recall/gpu/programs.hpp"
#include "recall/gpu/tc.hpp"

#include <cstdint>
#include <cstring>

#if defined(__CUDA_ARCH__)
#define RECALL_UNROLL4 _Pragma("unroll 4")
#else
#define RECALL_UNROLL4
#endif

namespace recall::gpu {

constexpr int kTcC = 64;          // chunk / tile rows of every fast program
constexpr int kTcMaxDk = 256;     // largest head dimension of the fast programs
constexpr int kTcLdS = kTcC + 4;  // fp32 64-wide scratch rows
constexpr int kTcLdP = kTcC + 8;  // 16-bit 64-wide rows

// ---- gates ---------------------------------------------------------------------------------------
RECALL_HD inline float tc_decay(const double* pre, const int* rst, int i, int t) {
  return rst[t] > i ? 0.0f : f32_exp(float(pre[t] - pre[i]));
}
// Row t of the chunk's gates (one lane per row, no cross-lane dependency): pre[t] = sum of lg over
// (last reset, t] summed back from t, rst[t] = the last t' <= t with lg = -inf (else -1);
// eb[t] = exp(sum_{j<=t} lg_j) and w[t] = exp(sum_{j=t+1}^{n-1} lg_j) (0 across a reset).
// Rows t >= n get eb = w = 0 and rst = t (every decay into them is 0).
RECALL_HD inline void tc_gate_row(const float* lg, int t, int n, double* pre, int* rst, float* eb, float* w, bool gated) {
  if (t >= n) {
    pre[t] = 0, rst[t] = t, eb[t] = 0.0f, w[t] = 0.0f;
    return;
  }
  if (!gated) {  // every gate is 1
    pre[t] = 0, rst[t] = -1, eb[t] = 1.0f, w[t] = 1.0f;
    return;
  }
  double acc = 0;
  int r = -1;
  for (int j = t; j >= 0; --j) {
    if (lg[j] == kNegInf) {
      r = j;
      break;
    }
    acc += double(lg[j]);
  }
  pre[t] = acc;
  rst[t] = r;
  eb[t] = r >= 0 ? 0.0f : f32_exp(float(acc));
  double fw = 0;
  bool reset = false;
  for (int j = t + 1; j < n; ++j) {
    if (lg[j] == kNegInf) {
      reset = true;
      break;
    }
    fw += double(lg[j]);
  }
  w[t] = reset ? 0.0f : f32_exp(float(fw));
}

template <class X> RECALL_HD inline X tc_zero() { return op_from<X>(0.0f); }
template <> RECALL_HD inline float tc_zero<float>() { return 0.0f; }

// dst[r][c] (ld) for r < rows_pad, c < cols_pad: src[row0 + r width + col0 + c] inside rows x cols, else 0.
// Device: 16-byte vectors, eight per thread in flight (a tile is one memory round trip, not one per
// element) wherever the row starts are 16-byte aligned; the host (and odd shapes) copy elementwise.
template <class X>
RECALL_HD void tc_load(int tid, int nt, X* dst, int ld, int rows_pad, int cols_pad, const X* src, i64 row0, int width, int rows,
                       int col0, int cols) {
#if defined(__CUDA_ARCH__)
  constexpr int V = 16 / sizeof(X);
  if (width % V == 0 && col0 % V == 0 && ld % V == 0 && cols_pad % V == 0 && row0 % V == 0 &&
      reinterpret_cast<std::uintptr_t>(src) % 16 == 0) {
    const int vpr = cols_pad / V, nvec = rows_pad * vpr;
    constexpr int U = 8;
    for (int base = tid; base < nvec; base += nt * U) {
      uint4 buf[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int e = base + u * nt;
        if (e >= nvec) continue;
        const int r = e / vpr, c = (e - r * vpr) * V;
        if (r < rows && c + V <= cols) {
          buf[u] = __ldg(reinterpret_cast<const uint4*>(src + row0 + i64(r) * width + col0 + c));
        } else {
          X tmp[V];
#pragma unroll
          for (int x = 0; x < V; ++x) tmp[x] = (r < rows && c + x < cols) ? src[row0 + i64(r) * width + col0 + c + x] : tc_zero<X>();
          memcpy(&buf[u], tmp, 16);
        }
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int e = base + u * nt;
        if (e >= nvec) continue;
        const int r = e / vpr, c = (e - r * vpr) * V;
        *reinterpret_cast<uint4*>(dst + i64(r) * ld + c) = buf[u];
      }
    }
    return;
  }
#endif
  for (int e = tid; e < rows_pad * cols_pad; e += nt) {
    const int r = e / cols_pad, c = e % cols_pad;
    dst[i64(r) * ld + c] = (r < rows && c < cols) ? src[row0 + i64(r) * width + col0 + c] : tc_zero<X>();
  }
}

// Balanced warp work on a 64 x W fp32 output (W = 16, 32 or 64): units of 16 rows x W/h columns,
// h = 2 where W >= 32 (8 units), else 1 (4 units); unit u -> rows 16 (u / h), columns (W / h)(u % h).
RECALL_HD inline int tc_units(int W) { return W >= 32 ? 8 : 4; }
RECALL_HD inline void tc_unit(int u, int W, int* r, int* c, int* w) {
  const int h = W >= 32 ? 2 : 1;
  *r = 16 * (u / h), *w = W / h, *c = *w * (u % h);
}

// ---- linear attention and delta rule: one block per (head, value tile) --------------------------
struct TcSeqLayout {
  int dk = 0, DKP = 0, DVT = 0, ldk = 0, ldt = 0, ldt4 = 0, lv = 0;  // DVT = 2^lv (16, 32 or 64)
  // byte offsets
  std::size_t Q = 0, K = 0, V = 0, Xw = 0, P = 0, Pop = 0, KK = 0, KS = 0, O = 0, Dop = 0, S = 0, Sop = 0, pre = 0, rst = 0, eb = 0,
              w = 0, beta = 0, lg = 0, bytes = 0;
  RECALL_HD TcSeqLayout(int dk_, int dvt, bool delta) : dk(dk_), DKP(pad16(dk_)), DVT(dvt) {
    ldk = DKP + 8, ldt = DVT + 8, ldt4 = DVT + 4;
    while ((1 << lv) < DVT) ++lv;
    Carve c;
    Q = c.take<std::uint16_t>(std::size_t(kTcC) * ldk);
    K = c.take<std::uint16_t>(std::size_t(kTcC) * ldk);
    V = c.take<std::uint16_t>(std::size_t(kTcC) * ldt);
    Xw = c.take<std::uint16_t>(std::size_t(kTcC) * ldt);  // w_i v_i (LA) / w_i delta_i (DR)
    P = c.take<float>(std::size_t(kTcC) * kTcLdS);
    Pop = c.take<std::uint16_t>(std::size_t(kTcC) * kTcLdP);
    if (delta) {
      KK = c.take<float>(std::size_t(kTcC) * kTcLdS);  // K K^T, then M in place
      KS = c.take<float>(std::size_t(kTcC) * ldt4);    // K S, then the right-hand side / Delta in place
      Dop = c.take<std::uint16_t>(std::size_t(kTcC) * ldt);
    }
    O = c.take<float>(std::size_t(kTcC) * ldt4);  // Q S, then the output in place
    S = c.take<float>(std::size_t(DKP) * ldt4);   // S^T[c][j] = S[j0 + j][c]
    Sop = c.take<std::uint16_t>(std::size_t(DKP) * ldt);
    pre = c.take<double>(kTcC);
    rst = c.take<int>(kTcC);
    lg = c.take<float>(kTcC);
    eb = c.take<float>(kTcC);
    w = c.take<float>(kTcC);
    beta = c.take<float>(kTcC);
    bytes = (c.off + 127) / 128 * 128;
  }
};

// Block blk of a value-tiled grid: head bh = blk / ceil(dv / DVT), columns j0 .. j0 + nj - 1.
struct TcValueTile {
  i64 bh;
  int j0, nj;
  RECALL_HD TcValueTile(i64 blk, int dv, int DVT) {
    const int nvt = (dv + DVT - 1) / DVT;
    bh = blk / nvt;
    j0 = int(blk % nvt) * DVT;
    nj = (dv - j0) < DVT ? (dv - j0) : DVT;
  }
};

struct TcView {
  unsigned char* b;
  template <class X> RECALL_HD X* at(std::size_t off) const { return reinterpret_cast<X*>(b + off); }
};

// State slice in/out: S[c][j] = s[bh][j0 + j][c] for c < dk, j < nj, zero in the pads.
template <class Op>
RECALL_HD void tc_state_init(int tid, int nt, const TcSeqLayout& L, TcView v, const SeqDims& d, const float* s0, i64 bh, int j0, int nj) {
  float* S = v.at<float>(L.S);
  Op* Sop = v.at<Op>(L.Sop);
  RECALL_UNROLL4
  for (int e = tid; e < L.DKP * L.DVT; e += nt) {
    const int c = e >> L.lv, j = e & (L.DVT - 1);
    const float x = (s0 && c < d.dk && j < nj) ? s0[(bh * d.dv + j0 + j) * d.dk + c] : 0.0f;
    S[c * L.ldt4 + j] = x;
    Sop[c * L.ldt + j] = op_from<Op>(x);
  }
}
RECALL_HD inline void tc_state_store(int tid, int nt, const TcSeqLayout& L, TcView v, const SeqDims& d, float* s_final, i64 bh, int j0,
                                     int nj) {
  if (!s_final) return;
  const float* S = v.at<float>(L.S);
  for (int e = tid; e < d.dk * nj; e += nt) {
    const int j = e / d.dk, c = e % d.dk;
    s_final[(bh * d.dv + j0 + j) * d.dk + c] = S[c * L.ldt4 + j];
  }
}
template <class Op>
RECALL_HD void tc_chunk_load(int tid, int nt, const TcSeqLayout& L, TcView v, const SeqDims& d, const Op* q, const Op* k, const Op* vv,
                             i64 bh, i64 c0, int n, int j0, int nj) {
  tc_load(tid, nt, v.at<Op>(L.Q), L.ldk, kTcC, L.DKP, q, row_offset(bh, d.T, c0, d.dk), d.dk, n, 0, d.dk);
  tc_load(tid, nt, v.at<Op>(L.K), L.ldk, kTcC, L.DKP, k, row_offset(bh, d.T, c0, d.dk), d.dk, n, 0, d.dk);
  tc_load(tid, nt, v.at<Op>(L.V), L.ldt, kTcC, L.DVT, vv, row_offset(bh, d.T, c0, d.dv), d.dv, n, j0, nj);
}
// O rows t < n (columns j < nj) to the output.
RECALL_HD inline void tc_store_out(int tid, int nt, const TcSeqLayout& L, TcView v, const SeqDims& d, float* o, i64 bh, i64 c0, int n,
                                   int j0, int nj) {
  const float* O = v.at<float>(L.O);
  RECALL_UNROLL4
  for (int e = tid; e < (n << L.lv); e += nt) {
    const int t = e >> L.lv, j = e & (L.DVT - 1);
    if (j < nj) o[row_offset(bh, d.T, c0 + t, d.dv) + j0 + j] = O[t * L.ldt4 + j];
  }
}
template <class Op> RECALL_HD void tc_state_round(int tid, int nt, const TcSeqLayout& L, TcView v) {
  const float* S = v.at<float>(L.S);
  Op* Sop = v.at<Op>(L.Sop);
  RECALL_UNROLL4
  for (int e = tid; e < L.DKP * L.DVT; e += nt) {
    const int c = e >> L.lv, j = e & (L.DVT - 1);
    Sop[c * L.ldt + j] = op_from<Op>(S[c * L.ldt4 + j]);
  }
}

// Log gates (0 when ungated, 0 past the chunk's end) and beta (null: not loaded) of the chunk.
RECALL_HD inline void tc_load_gates(int tid, int nt, const TcSeqLayout& L, TcView v, const SeqDims& d, const float* log_gate,
                                    const float* beta, i64 bh, i64 c0, int n) {
  float *lg = v.at<float>(L.lg), *b = v.at<float>(L.beta);
  for (int t = tid; t < kTcC; t += nt) {
    lg[t] = (t < n && log_gate) ? log_gate[row_offset(bh, d.T, c0 + t, 1)] : 0.0f;
    if (beta) b[t] = t < n ? beta[row_offset(bh, d.T, c0 + t, 1)] : 0.0f;
  }
}
// O += P X (units over 64 x DVT) and S += K^T Xw (units over DKP x DVT), spread over the warps.
template <class Op>
RECALL_HD void tc_output_and_state(int wid, int nw, const TcSeqLayout& L, const Op* P, const Op* X, float* O, const Op* K, const Op* Xw,
                                   float* S) {
  const int uo = tc_units(L.DVT), h = uo / 4, us = (L.DKP / 16) * h;
  for (int u = wid; u < uo + us; u += nw) {
    int r, c, wd;
    if (u < uo) {
      tc_unit(u, L.DVT, &r, &c, &wd);
      warp_mma_strip<Op, Lay::row, Lay::row>(P + r * kTcLdP, kTcLdP, X + c, L.ldt, O + r * L.ldt4 + c, L.ldt4, kTcC, wd, true);
    } else {
      const int uu = u - uo;
      wd = L.DVT / h, r = 16 * (uu / h), c = wd * (uu % h);
      warp_mma_strip<Op, Lay::col, Lay::row>(K + r, L.ldk, Xw + c, L.ldt, S + r * L.ldt4 + c, L.ldt4, kTcC, wd, true);
    }
  }
}

// Pointers of one chunk's linear-attention phases (shared by the sequential program and the
// chunk-parallel output pass of tc_linear_parallel.hpp).
template <class Op> struct TcLaChunk {
  const Op *Q, *K, *Sop;  // Q, K: 64 x ldk; Sop: DKP x ldt (the state, rounded)
  float *P, *O;           // P: 64 x kTcLdS; O: 64 x ldt4
  Op* Pop;                // 64 x kTcLdP
  const float* lg;
  double* pre;
  int* rst;
  float *eb, *w;
  int ldk, DKP, ldt, ldt4, DVT;
};
// Warp phase: the chunk's gates (one lane per row), P = Q K^T (units 0-7) and O = Q S (units 8..).
template <class Op, class Warp> RECALL_HD void tc_la_gates_qk_qs(int wid, int nw, Warp& W, const TcLaChunk<Op>& c, int n, bool gated) {
  W.each([&](int lane) {
    const int t = wid * 32 + lane;
    if (t < kTcC) tc_gate_row(c.lg, t, n, c.pre, c.rst, c.eb, c.w, gated);
  });
  const int uo = tc_units(c.DVT);
  for (int u = wid; u < 8 + uo; u += nw) {
    int r, col, wd;
    if (u < 8) {
      tc_unit(u, kTcC, &r, &col, &wd);
      warp_mma_strip<Op, Lay::row, Lay::col>(c.Q + r * c.ldk, c.ldk, c.K + col * c.ldk, c.ldk, c.P + r * kTcLdS + col, kTcLdS, c.DKP, wd, false);
    } else {
      tc_unit(u - 8, c.DVT, &r, &col, &wd);
      warp_mma_strip<Op, Lay::row, Lay::row>(c.Q + r * c.ldk, c.ldk, c.Sop + col, c.ldt, c.O + r * c.ldt4 + col, c.ldt4, c.DKP, wd, false);
    }
  }
}
// Phase: Pop = the causal decayed scores P . D rounded to the storage type (rows >= n zero).
template <class Op> RECALL_HD void tc_la_decayed_scores(int tid, int nt, const TcLaChunk<Op>& c, int n) {
  RECALL_UNROLL4
  for (int e = tid; e < kTcC * kTcC; e += nt) {
    const int t = e >> 6, i = e & 63;  // kTcC = 64
    c.Pop[t * kTcLdP + i] = op_from<Op>((t < n && i <= t) ? c.P[t * kTcLdS + i] * tc_decay(c.pre, c.rst, i, t) : 0.0f);
  }
}

#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class Ctx, class Op>
RECALL_HD void tc_linear_attention_program(Ctx& ctx, unsigned char* smb, const SeqDims& d, int DVT, const LaPtrs<Op>& p, i64 blk) {
  const TcSeqLayout L(d.dk, DVT, false);
  const TcView v{smb};
  const TcValueTile vt(blk, d.dv, DVT);
  const i64 bh = vt.bh;
  const int j0 = vt.j0, nj = vt.nj;
  Op *Q = v.at<Op>(L.Q), *K = v.at<Op>(L.K), *V = v.at<Op>(L.V), *Vw = v.at<Op>(L.Xw), *Pop = v.at<Op>(L.Pop), *Sop = v.at<Op>(L.Sop);
  float *P = v.at<float>(L.P), *O = v.at<float>(L.O), *S = v.at<float>(L.S), *eb = v.at<float>(L.eb), *w = v.at<float>(L.w);
  double* pre = v.at<double>(L.pre);
  int* rst = v.at<int>(L.rst);
  const float* lg = v.at<float>(L.lg);
  const TcLaChunk<Op> ch{Q, K, Sop, P, O, Pop, lg, pre, rst, eb, w, L.ldk, L.DKP, L.ldt, L.ldt4, L.DVT};
  ctx.phase([&](int tid, int nt) { tc_state_init<Op>(tid, nt, L, v, d, p.s0, bh, j0, nj); });
  for (i64 c0 = 0; c0 < d.T; c0 += kTcC) {
    const int n = int((d.T - c0) < kTcC ? (d.T - c0) : kTcC);
    ctx.phase([&](int tid, int nt) {
      if (RECALL_FAULT_ON(gpu_tc_state_not_carried) && c0 > 0) tc_state_init<Op>(tid, nt, L, v, d, nullptr, bh, j0, nj);
      tc_chunk_load(tid, nt, L, v, d, p.q, p.k, p.v, bh, c0, n, j0, nj);
      tc_load_gates(tid, nt, L, v, d, p.log_gate, nullptr, bh, c0, n);
    });
    // gates (one lane per row); P = Q K^T (units 0-7), O = Q S (units 8..)
    ctx.warps([&](int wid, int nw, auto& W) { tc_la_gates_qk_qs(wid, nw, W, ch, n, p.log_gate != nullptr); });
    ctx.phase([&](int tid, int nt) {
      tc_la_decayed_scores(tid, nt, ch, n);
      RECALL_UNROLL4
      for (int e = tid; e < kTcC * L.DVT; e += nt) {
        const int t = e >> L.lv, j = e & (L.DVT - 1);
        O[t * L.ldt4 + j] = t < n ? eb[t] * O[t * L.ldt4 + j] : 0.0f;
        Vw[t * L.ldt + j] = op_from<Op>(t < n ? w[t] * to_f32(V[t * L.ldt + j]) : 0.0f);
      }
      const float an = eb[n - 1];
      RECALL_UNROLL4
      for (int e = tid; e < L.DKP * L.DVT; e += nt) S[(e >> L.lv) * L.ldt4 + (e & (L.DVT - 1))] *= an;
    });
    // O += P V; S += K^T (w v)
    ctx.warps([&](int wid, int nw, auto&) { tc_output_and_state(wid, nw, L, Pop, V, O, K, Vw, S); });
    ctx.phase([&](int tid, int nt) {
      tc_store_out(tid, nt, L, v, d, p.o, bh, c0, n, j0, nj);
      tc_state_round<Op>(tid, nt, L, v);
    });
  }
  ctx.phase([&](int tid, int nt) { tc_state_store(tid, nt, L, v, d, p.s_final, bh, j0, nj); });
}

// Forward substitution of the chunk system X[t][:] -= sum_{i<t} M[t][i] X[i][:] (M strictly lower
// triangular, fp32), blocked by 16 rows: the diagonal block by substitution, one value column per
// thread, then every row below loses the block's contribution, all threads over (row, column).
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class Ctx> RECALL_HD void tc_substitute_blocked(Ctx& ctx, const float* M, int ldm, float* X, int ldx, int n, int cols) {
  for (int b = 0; b < n; b += 16) {
    const int be = (b + 16) < n ? (b + 16) : n;
    ctx.phase([&](int tid, int nt) {
      for (int j = tid; j < cols; j += nt)
        for (int t = b + 1; t < be; ++t) {
          const float* m = M + i64(t) * ldm;
          float a0 = X[t * ldx + j], a1 = 0.0f;
          int i = b;
          for (; i + 2 <= t; i += 2) {
            a0 -= m[i] * X[i * ldx + j];
            a1 -= m[i + 1] * X[(i + 1) * ldx + j];
          }
          if (i < t) a0 -= m[i] * X[i * ldx + j];
          X[t * ldx + j] = a0 + a1;
        }
    });
    if (be >= n) break;
    ctx.phase([&](int tid, int nt) {
      const int rows = n - be;
      for (int e = tid; e < rows * cols; e += nt) {
        const int t = be + e / cols, j = e % cols;
        const float* m = M + i64(t) * ldm;
        float a0 = X[t * ldx + j], a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
        for (int i = b; i < be; i += 4) {
          a0 -= m[i] * X[i * ldx + j];
          a1 -= m[i + 1] * X[(i + 1) * ldx + j];
          a2 -= m[i + 2] * X[(i + 2) * ldx + j];
          a3 -= m[i + 3] * X[(i + 3) * ldx + j];
        }
        X[t * ldx + j] = (a0 + a1) + (a2 + a3);
      }
    });
  }
}

#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class Ctx, class Op>
RECALL_HD void tc_delta_rule_program(Ctx& ctx, unsigned char* smb, const SeqDims& d, int DVT, const DrPtrs<Op>& p, i64 blk) {
  const TcSeqLayout L(d.dk, DVT, true);
  const TcView v{smb};
  const TcValueTile vt(blk, d.dv, DVT);
  const i64 bh = vt.bh;
  const int j0 = vt.j0, nj = vt.nj;
  Op *Q = v.at<Op>(L.Q), *K = v.at<Op>(L.K), *V = v.at<Op>(L.V), *Dw = v.at<Op>(L.Xw), *Pop = v.at<Op>(L.Pop), *Dop = v.at<Op>(L.Dop),
     *Sop = v.at<Op>(L.Sop);
  float *P = v.at<float>(L.P), *KK = v.at<float>(L.KK), *D = v.at<float>(L.KS), *O = v.at<float>(L.O), *S = v.at<float>(L.S),
        *eb = v.at<float>(L.eb), *w = v.at<float>(L.w), *beta = v.at<float>(L.beta);
  double* pre = v.at<double>(L.pre);
  int* rst = v.at<int>(L.rst);
  const float* lg = v.at<float>(L.lg);
  ctx.phase([&](int tid, int nt) { tc_state_init<Op>(tid, nt, L, v, d, p.s0, bh, j0, nj); });
  for (i64 c0 = 0; c0 < d.T; c0 += kTcC) {
    const int n = int((d.T - c0) < kTcC ? (d.T - c0) : kTcC);
    ctx.phase([&](int tid, int nt) {
      if (RECALL_FAULT_ON(gpu_tc_state_not_carried) && c0 > 0) tc_state_init<Op>(tid, nt, L, v, d, nullptr, bh, j0, nj);
      tc_chunk_load(tid, nt, L, v, d, p.q, p.k, p.v, bh, c0, n, j0, nj);
      tc_load_gates(tid, nt, L, v, d, p.log_gate, p.beta, bh, c0, n);
    });
    // gates (one lane per row); K K^T, Q K^T (units 0-15), K S, Q S (units 16..)
    ctx.warps([&](int wid, int nw, auto& W) {
      W.each([&](int lane) {
        const int t = wid * 32 + lane;
        if (t < kTcC) tc_gate_row(lg, t, n, pre, rst, eb, w, p.log_gate != nullptr);
      });
      const int uo = tc_units(L.DVT);
      for (int u = wid; u < 16 + 2 * uo; u += nw) {
        int r, c, wd;
        if (u < 16) {
          tc_unit(u % 8, kTcC, &r, &c, &wd);
          const Op* A = u < 8 ? K : Q;
          float* C = u < 8 ? KK : P;
          warp_mma_strip<Op, Lay::row, Lay::col>(A + r * L.ldk, L.ldk, K + c * L.ldk, L.ldk, C + r * kTcLdS + c, kTcLdS, L.DKP, wd, false);
        } else {
          const int uu = u - 16;
          tc_unit(uu % uo, L.DVT, &r, &c, &wd);
          const Op* A = uu < uo ? K : Q;
          float* C = uu < uo ? D : O;
          warp_mma_strip<Op, Lay::row, Lay::row>(A + r * L.ldk, L.ldk, Sop + c, L.ldt, C + r * L.ldt4 + c, L.ldt4, L.DKP, wd, false);
        }
      }
    });
    ctx.phase([&](int tid, int nt) {
      RECALL_UNROLL4
      for (int e = tid; e < kTcC * kTcC; e += nt) {
        const int t = e >> 6, i = e & 63;  // kTcC = 64
        const float g = (t < n && i <= t) ? tc_decay(pre, rst, i, t) : 0.0f;
        KK[t * kTcLdS + i] = i < t ? beta[t] * g * KK[t * kTcLdS + i] : 0.0f;
        Pop[t * kTcLdP + i] = op_from<Op>(g != 0.0f ? g * P[t * kTcLdS + i] : 0.0f);
      }
      RECALL_UNROLL4
      for (int e = tid; e < kTcC * L.DVT; e += nt) {
        const int t = e >> L.lv, j = e & (L.DVT - 1);
        D[t * L.ldt4 + j] = t < n ? beta[t] * (to_f32(V[t * L.ldt + j]) - eb[t] * D[t * L.ldt4 + j]) : 0.0f;
        O[t * L.ldt4 + j] = t < n ? eb[t] * O[t * L.ldt4 + j] : 0.0f;
      }
      const float an = eb[n - 1];
      RECALL_UNROLL4
      for (int e = tid; e < L.DKP * L.DVT; e += nt) S[(e >> L.lv) * L.ldt4 + (e & (L.DVT - 1))] *= an;
    });
    tc_substitute_blocked(ctx, KK, kTcLdS, D, L.ldt4, n, L.DVT);
    ctx.phase([&](int tid, int nt) {
      RECALL_UNROLL4
      for (int e = tid; e < kTcC * L.DVT; e += nt) {
        const int t = e >> L.lv, j = e & (L.DVT - 1);
        const float x = D[t * L.ldt4 + j];
        Dop[t * L.ldt + j] = op_from<Op>(x);
        Dw[t * L.ldt + j] = op_from<Op>(t < n ? w[t] * x : 0.0f);
      }
    });
    ctx.warps([&](int wid, int nw, auto&) { tc_output_and_state(wid, nw, L, Pop, Dop, O, K, Dw, S); });
    ctx.phase([&](int tid, int nt) {
      tc_store_out(tid, nt, L, v, d, p.o, bh, c0, n, j0, nj);
      tc_state_round<Op>(tid, nt, L, v);
    });
  }
  ctx.phase([&](int tid, int nt) { tc_state_store(tid, nt, L, v, d, p.s_final, bh, j0, nj); });
}

// ---- causal softmax, FlashAttention-2 style: one block per (head, 64-row query tile), 4 warps ----
struct TcSmLayout {
  int DKP = 0, DVP = 0, ldk = 0, ldv = 0, ldo = 0;
  std::size_t Q = 0, K = 0, V = 0, S = 0, P = 0, O = 0, m = 0, l = 0, pm = 0, ps = 0, corr = 0, bytes = 0;
  RECALL_HD TcSmLayout(int dk, int dv) : DKP(pad16(dk)), DVP(pad16(dv)) {
    ldk = DKP + 8, ldv = DVP + 8, ldo = DVP + 4;
    Carve c;
    Q = c.take<std::uint16_t>(std::size_t(kTcC) * ldk);
    K = c.take<std::uint16_t>(std::size_t(kTcC) * ldk);
    V = c.take<std::uint16_t>(std::size_t(kTcC) * ldv);
    S = c.take<float>(std::size_t(kTcC) * kTcLdS);
    P = c.take<std::uint16_t>(std::size_t(kTcC) * kTcLdP);
    O = c.take<float>(std::size_t(kTcC) * ldo);
    m = c.take<float>(kTcC);
    l = c.take<float>(kTcC);
    pm = c.take<float>(2 * kTcC);
    ps = c.take<float>(2 * kTcC);
    corr = c.take<float>(kTcC);
    bytes = (c.off + 127) / 128 * 128;
  }
};

#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class Ctx, class Op>
RECALL_HD void tc_softmax_program(Ctx& ctx, unsigned char* smb, const SeqDims& d, float scale, const SmPtrs<Op>& p, i64 blk) {
  const TcSmLayout L(d.dk, d.dv);
  const TcView v{smb};
  const i64 tiles = (d.T + kTcC - 1) / kTcC;
  const i64 bh = blk / tiles, r0 = (tiles - 1 - blk % tiles) * kTcC;  // the longest query tiles first
  const int nq = int((d.T - r0) < kTcC ? (d.T - r0) : kTcC);
  Op *Q = v.at<Op>(L.Q), *K = v.at<Op>(L.K), *V = v.at<Op>(L.V), *P = v.at<Op>(L.P);
  float *S = v.at<float>(L.S), *O = v.at<float>(L.O), *m = v.at<float>(L.m), *l = v.at<float>(L.l), *pm = v.at<float>(L.pm),
        *ps = v.at<float>(L.ps), *corr = v.at<float>(L.corr);
  ctx.phase([&](int tid, int nt) {
    tc_load(tid, nt, Q, L.ldk, kTcC, L.DKP, p.q, row_offset(bh, d.T, r0, d.dk), d.dk, nq, 0, d.dk);
    for (int e = tid; e < kTcC * L.DVP; e += nt) O[(e / L.DVP) * L.ldo + e % L.DVP] = 0.0f;
    for (int r = tid; r < kTcC; r += nt) {
      m[r] = kNegInf;
      l[r] = 0.0f;
    }
  });
  for (i64 k0 = 0; k0 < r0 + nq; k0 += kTcC) {
    const int nk = int((d.T - k0) < kTcC ? (d.T - k0) : kTcC);
    ctx.phase([&](int tid, int nt) {
      tc_load(tid, nt, K, L.ldk, kTcC, L.DKP, p.k, row_offset(bh, d.T, k0, d.dk), d.dk, nk, 0, d.dk);
      tc_load(tid, nt, V, L.ldv, kTcC, L.DVP, p.v, row_offset(bh, d.T, k0, d.dv), d.dv, nk, 0, d.dv);
    });
    ctx.warps([&](int wid, int nw, auto& W) {
      for (int wr = wid; wr < 4; wr += nw) {
        const int rw = 16 * wr;
        if (rw >= nq) continue;  // rows past the end of the sequence
        warp_mma_strip<Op, Lay::row, Lay::col>(Q + rw * L.ldk, L.ldk, K, L.ldk, S + rw * kTcLdS, kTcLdS, L.DKP, kTcC, false);
        // lanes 0-15 take columns 0-31 of rows rw..rw+15, lanes 16-31 columns 32-63
        W.each([&](int lane) {
          const int r = rw + (lane & 15), h = lane >> 4;
          const i64 row = r0 + r;
          float mx = kNegInf;
          for (int c = 32 * h; c < 32 * h + 32; ++c) {
            const i64 key = k0 + c;
            const float s = (key <= row && key < d.T) ? scale * S[r * kTcLdS + c] : kNegInf;
            S[r * kTcLdS + c] = s;
            mx = f32_max(mx, s);
          }
          pm[h * kTcC + r] = mx;
        });
        W.each([&](int lane) {
          const int r = rw + (lane & 15), h = lane >> 4;
          const float mnew = f32_max(m[r], f32_max(pm[r], pm[kTcC + r]));
          float sum = 0.0f;
          for (int c = 32 * h; c < 32 * h + 32; ++c) {
            const Op pr = op_from<Op>(f32_exp(S[r * kTcLdS + c] - mnew));
            P[r * kTcLdP + c] = pr;
            sum += to_f32(pr);
          }
          ps[h * kTcC + r] = sum;
          if (h == 0) corr[r] = f32_exp(m[r] - mnew);  // m = -inf on the first tile: 0
        });
        W.each([&](int lane) {
          const int r = rw + (lane & 15), h = lane >> 4;
          const float c = corr[r];
          if (h == 0) {
            l[r] = l[r] * c + (ps[r] + ps[kTcC + r]);
            m[r] = f32_max(m[r], f32_max(pm[r], pm[kTcC + r]));
          }
          if (c != 1.0f && !RECALL_FAULT_ON(gpu_tc_rescale_missing)) {
            const int half = L.DVP / 2;
            for (int j = h * half; j < (h + 1) * half; ++j) O[r * L.ldo + j] *= c;
          }
        });
        warp_mma_strip<Op, Lay::row, Lay::row>(P + rw * kTcLdP, kTcLdP, V, L.ldv, O + rw * L.ldo, L.ldo, kTcC, L.DVP, true);
      }
    });
  }
  ctx.phase([&](int tid, int nt) {
    for (int e = tid; e < nq * d.dv; e += nt) {
      const int r = e / d.dv, j = e % d.dv;
      p.o[row_offset(bh, d.T, r0 + r, d.dv) + j] = O[r * L.ldo + j] / l[r];
    }
  });
}

// ---- DeltaFormer u-solve: one block per (head, value tile) ---------------------------------------
struct TcUsLayout {
  int DKP = 0, DVT = 0, ldk = 0, ldt4 = 0, lv = 0;  // DVT = 2^lv
  std::size_t Kc = 0, Kp = 0, R = 0, Up = 0, A = 0, beta = 0, bytes = 0;
  RECALL_HD TcUsLayout(int dk, int dvt) : DKP(pad16(dk)), DVT(dvt) {
    ldk = DKP + 8, ldt4 = DVT + 4;
    while ((1 << lv) < DVT) ++lv;
    Carve c;
    Kc = c.take<std::uint16_t>(std::size_t(kTcC) * ldk);
    Kp = c.take<std::uint16_t>(std::size_t(kTcC) * ldk);
    R = c.take<float>(std::size_t(kTcC) * ldt4);
    Up = c.take<float>(std::size_t(kTcC) * ldt4);
    A = c.take<float>(std::size_t(kTcC) * kTcLdS);
    beta = c.take<float>(kTcC);
    bytes = (c.off + 127) / 128 * 128;
  }
};

// A[64 x 64] (fp32, ld kTcLdS) = X Y^T for 64-row 16-bit tiles X, Y (ld ldk, K = DKP), in 8 warp units.
template <class Op> RECALL_HD void tc_gram(int wid, int nw, const Op* X, const Op* Y, int ldk, int DKP, float* A) {
  for (int u = wid; u < 8; u += nw) {
    int r, c, wd;
    tc_unit(u, kTcC, &r, &c, &wd);
    warp_mma_strip<Op, Lay::row, Lay::col>(X + r * ldk, ldk, Y + c * ldk, ldk, A + r * kTcLdS + c, kTcLdS, DKP, wd, false);
  }
}

#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class Ctx, class Op>
RECALL_HD void tc_u_solve_program(Ctx& ctx, unsigned char* smb, const SeqDims& d, int DVT, float inv_tau, const UsPtrs<Op>& p, i64 blk) {
  const TcUsLayout L(d.dk, DVT);
  const TcView v{smb};
  const TcValueTile vt(blk, d.dv, DVT);
  const i64 bh = vt.bh;
  const int j0 = vt.j0, nj = vt.nj;
  Op *Kc = v.at<Op>(L.Kc), *Kp = v.at<Op>(L.Kp);
  float *R = v.at<float>(L.R), *Up = v.at<float>(L.Up), *A = v.at<float>(L.A), *beta = v.at<float>(L.beta);
  for (i64 c0 = 0; c0 < d.T; c0 += kTcC) {
    const int n = int((d.T - c0) < kTcC ? (d.T - c0) : kTcC);
    ctx.phase([&](int tid, int nt) {
      tc_load(tid, nt, Kc, L.ldk, kTcC, L.DKP, p.k, row_offset(bh, d.T, c0, d.dk), d.dk, n, 0, d.dk);
      RECALL_UNROLL4
      for (int e = tid; e < kTcC * L.DVT; e += nt) {
        const int t = e >> L.lv, j = e & (L.DVT - 1);
        R[t * L.ldt4 + j] = (t < n && j < nj) ? to_f32(p.v[row_offset(bh, d.T, c0 + t, d.dv) + j0 + j]) : 0.0f;
      }
      for (int t = tid; t < kTcC; t += nt) beta[t] = t < n ? (p.beta ? p.beta[row_offset(bh, d.T, c0 + t, 1)] : 1.0f) : 0.0f;
    });
    for (i64 p0 = 0; p0 < c0; p0 += kTcC) {  // earlier chunks are full
      ctx.phase([&](int tid, int nt) {
        tc_load(tid, nt, Kp, L.ldk, kTcC, L.DKP, p.k, row_offset(bh, d.T, p0, d.dk), d.dk, kTcC, 0, d.dk);
        tc_load<float>(tid, nt, Up, L.ldt4, kTcC, L.DVT, p.u, row_offset(bh, d.T, p0, d.dv), d.dv, kTcC, j0, nj);
      });
      ctx.warps([&](int wid, int nw, auto&) { tc_gram(wid, nw, Kc, Kp, L.ldk, L.DKP, A); });
      ctx.phase([&](int tid, int nt) {
        RECALL_UNROLL4
        for (int e = tid; e < kTcC * kTcC; e += nt) {
          const int t = e >> 6, i = e & 63;  // kTcC = 64
          A[t * kTcLdS + i] = t < n ? -beta[t] * f32_exp(inv_tau * A[t * kTcLdS + i]) : 0.0f;
        }
      });
      ctx.warps([&](int wid, int nw, auto&) {
        for (int u = wid; u < tc_units(L.DVT); u += nw) {
          int r, c, wd;
          tc_unit(u, L.DVT, &r, &c, &wd);
          warp_mma_tf32_strip(A + r * kTcLdS, kTcLdS, Up + c, L.ldt4, R + r * L.ldt4 + c, L.ldt4, kTcC, wd);
        }
      });
    }
    ctx.warps([&](int wid, int nw, auto&) { tc_gram(wid, nw, Kc, Kc, L.ldk, L.DKP, A); });
    ctx.phase([&](int tid, int nt) {
      RECALL_UNROLL4
      for (int e = tid; e < kTcC * kTcC; e += nt) {
        const int t = e >> 6, i = e & 63;  // kTcC = 64
        A[t * kTcLdS + i] = (t < n && i < t) ? beta[t] * f32_exp(inv_tau * A[t * kTcLdS + i]) : 0.0f;
      }
    });
    tc_substitute_blocked(ctx, A, kTcLdS, R, L.ldt4, n, L.DVT);
    ctx.phase([&](int tid, int nt) {
      RECALL_UNROLL4
      for (int e = tid; e < (n << L.lv); e += nt) {
        const int t = e >> L.lv, j = e & (L.DVT - 1);
        if (j < nj) p.u[row_offset(bh, d.T, c0 + t, d.dv) + j0 + j] = R[t * L.ldt4 + j];
      }
    });
  }
}

// ---- launch plans (host side) --------------------------------------------------------------------
// Value tile: the widest of 64, 32, 16 columns (not wider than dv needs) whose layout fits smem_limit.
// Throws std::invalid_argument naming the shape when dk > kTcMaxDk or nothing fits.
// smem_per_sm > 0 (the device's shared memory per multiprocessor): prefer the widest tile with which
// two blocks share a multiprocessor, else the widest that fits at all. Measured on an H100 (bench_gpu,
// linear attention B=8 H=16 T=4096 d=128 bf16): two blocks of 32-column tiles ran at 14.1 TFLOP/s,
// one block of 64-column tiles at 22.6, so the host entry points plan linear attention without it
// (the recomputed Q K^T of the narrower tiles costs more than the extra warps hide); the u-solve's
// 64-column tile fits twice either way.
constexpr int kTcThreads = 256;     // 8 warps: linear attention, u-solve
constexpr int kTcDrThreads = 512;   // 16 warps: the delta rule (one block per multiprocessor)
constexpr int kTcSmThreads = 128;   // 4 warps of 16 query rows: softmax
// chunk_parallel (the default): the three-pass program of tc_linear_parallel.hpp; otherwise the
// sequential program above (one block per head and value tile walking the chunks).
LaunchPlan plan_tc_linear_attention(const SeqDims& d, std::size_t smem_limit, std::size_t smem_per_sm = 0, bool chunk_parallel = true);
// chunk_parallel (the default): the three-pass program of tc_delta_parallel.hpp; otherwise the
// sequential program above.
LaunchPlan plan_tc_delta_rule(const SeqDims& d, std::size_t smem_limit, std::size_t smem_per_sm = 0, bool chunk_parallel = true);
LaunchPlan plan_tc_softmax(const SeqDims& d, std::size_t smem_limit);
LaunchPlan plan_tc_u_solve(const SeqDims& d, std::size_t smem_limit, std::size_t smem_per_sm = 0);

}  // namespace recall::gpu
