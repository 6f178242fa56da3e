// Chunk-parallel (gated) linear attention on tensor cores: the production kernels' three-pass
// structure, written once for the device (gpu/src/tc_kernels.cu) and the host emulator (emulate.hpp).
// Spec IDs (fast forms): A001-LINATTN and A001-GATED-LINATTN, judged against the token recurrence
// by the error budget.
//
// With chunks of C = 64 rows, decays within a chunk from the log gates (tc_gate_row: eb[t] = decay
// from the chunk start to t, w[t] = decay from t to the chunk end, 0 across a reset) and a_c = eb[n-1]:
//   pass 1 (every chunk and value tile in parallel): H_c = K_c^T (w . V_c), the chunk's own state
//          increment, fp32, to a workspace; a_c beside it;
//   pass 2 (every state element of every head and value tile on its own thread): the state
//          before chunk c, S_c = a_{c-1} S_{c-1} + H_{c-1} (S_0 = s0), rounded to the storage type
//          for the Q S product (as the sequential program rounds it), to a workspace; s_final in fp32;
//   pass 3 (every chunk and value tile in parallel): O_c = eb . (Q_c S_c) + ((Q_c K_c^T) . D_c) V_c.
// Passes 1 and 3 are the sequential program's chunk phases (tc_programs.hpp), so they share its
// helpers and its roundings; only the state's fp32 sum order differs (a S + H instead of
// accumulating K^T (w v) onto a S inside the tensor-core GEMM). The workspace is fp32 H plus 16-bit
// S per (head, chunk, value tile): 6 * B H ceil(T/64) * pad16(dk) * DVT bytes.
#pragma once

#include "recall/gpu/tc_programs.hpp"

namespace recall::gpu {

// Workspace of the three passes (device or host memory), DKP x DVT blocks per (head, chunk, tile).
template <class Op> struct LaWork {
  float* H;          // [BH][NC][NVT][DKP][DVT] chunk increments
  float* a;          // [BH][NC] chunk decays
  Op* S;             // [BH][NC][NVT][DKP][DVT] states before each chunk, rounded
  Op* D = nullptr;   // [BH][NC][NVT][64][DVT] values of the output pass in place of V (delta rule), or null
};
struct LaParDims {
  i64 NC = 0;  // chunks
  int NVT = 0, DKP = 0, DVT = 0;
  RECALL_HD LaParDims(const SeqDims& d, int dvt) : NC((d.T + kTcC - 1) / kTcC), NVT((d.dv + dvt - 1) / dvt), DKP(pad16(d.dk)), DVT(dvt) {}
  RECALL_HD i64 block(i64 bh, i64 c, int vt) const { return ((bh * NC + c) * NVT + vt) * i64(DKP) * DVT; }
  RECALL_HD i64 dblock(i64 bh, i64 c, int vt) const { return ((bh * NC + c) * NVT + vt) * i64(kTcC) * DVT; }
  RECALL_HD std::size_t elems(const SeqDims& d) const { return std::size_t(d.B * d.H * NC * NVT) * std::size_t(DKP) * DVT; }
};
// Bytes of the workspace (fp32 H, 16-bit S, fp32 a), each region 256-byte aligned.
inline std::size_t la_work_bytes(const SeqDims& d, int dvt) {
  const LaParDims P(d, dvt);
  auto al = [](std::size_t b) { return (b + 255) / 256 * 256; };
  return al(P.elems(d) * 4) + al(P.elems(d) * 2) + al(std::size_t(d.B * d.H * P.NC) * 4);
}
template <class Op> inline LaWork<Op> la_work_carve(void* base, const SeqDims& d, int dvt) {
  const LaParDims P(d, dvt);
  auto al = [](std::size_t b) { return (b + 255) / 256 * 256; };
  auto* b = static_cast<unsigned char*>(base);
  LaWork<Op> w;
  w.H = reinterpret_cast<float*>(b);
  w.S = reinterpret_cast<Op*>(b + al(P.elems(d) * 4));
  w.a = reinterpret_cast<float*>(b + al(P.elems(d) * 4) + al(P.elems(d) * 2));
  return w;
}

// Shared memory of passes 1 and 3 (the sequential layout's regions that each pass uses).
struct TcLaParLayout {
  int DKP = 0, DVT = 0, ldk = 0, ldt = 0, ldt4 = 0, lv = 0;
  std::size_t Q = 0, K = 0, V = 0, Xw = 0, P = 0, Pop = 0, O = 0, Hs = 0, Sop = 0, pre = 0, rst = 0, lg = 0, eb = 0, w = 0, bytes = 0;
  RECALL_HD TcLaParLayout(int dk, int dvt, bool output) : DKP(pad16(dk)), DVT(dvt) {
    ldk = DKP + 8, ldt = DVT + 8, ldt4 = DVT + 4;
    while ((1 << lv) < DVT) ++lv;
    Carve c;
    K = c.take<std::uint16_t>(std::size_t(kTcC) * ldk);
    V = c.take<std::uint16_t>(std::size_t(kTcC) * ldt);
    if (output) {
      Q = c.take<std::uint16_t>(std::size_t(kTcC) * ldk);
      P = c.take<float>(std::size_t(kTcC) * kTcLdS);
      Pop = c.take<std::uint16_t>(std::size_t(kTcC) * kTcLdP);
      O = c.take<float>(std::size_t(kTcC) * ldt4);
      Sop = c.take<std::uint16_t>(std::size_t(DKP) * ldt);
    } else {
      Xw = c.take<std::uint16_t>(std::size_t(kTcC) * ldt);
      Hs = c.take<float>(std::size_t(DKP) * ldt4);
    }
    pre = c.take<double>(kTcC);
    rst = c.take<int>(kTcC);
    lg = c.take<float>(kTcC);
    eb = c.take<float>(kTcC);
    w = c.take<float>(kTcC);
    bytes = (c.off + 127) / 128 * 128;
  }
};

// Block blk of passes 1 and 3: (head, chunk, value tile), value tile fastest.
struct TcChunkTile {
  i64 bh, c;
  int vt, j0, nj;
  RECALL_HD TcChunkTile(i64 blk, const LaParDims& P, int dv) {
    vt = int(blk % P.NVT);
    c = (blk / P.NVT) % P.NC;
    bh = blk / (i64(P.NVT) * P.NC);
    j0 = vt * P.DVT;
    nj = (dv - j0) < P.DVT ? (dv - j0) : P.DVT;
  }
};

// Block blk of passes 1 and 3 with its layout and chunk rows [c0, c0 + n).
struct TcChunkBlock {
  TcLaParLayout L;
  LaParDims P;
  TcChunkTile ct;
  i64 c0;
  int n;
  RECALL_HD TcChunkBlock(const SeqDims& d, int DVT, bool output, i64 blk)
      : L(d.dk, DVT, output), P(d, DVT), ct(blk, P, d.dv), c0(ct.c * kTcC), n(int((d.T - c0) < kTcC ? (d.T - c0) : kTcC)) {}
  // K and V (this value tile) of the chunk and its log gates (0 when ungated or past the end); with
  // vw (the delta rule's corrections in the workspace) the value tile comes from there instead
  template <class Op>
  RECALL_HD void load_kv_gates(int tid, int nt, TcView v, const SeqDims& d, const LaPtrs<Op>& p, const Op* vw = nullptr) const {
    tc_load(tid, nt, v.at<Op>(L.K), L.ldk, kTcC, L.DKP, p.k, row_offset(ct.bh, d.T, c0, d.dk), d.dk, n, 0, d.dk);
    if (vw) tc_load(tid, nt, v.at<Op>(L.V), L.ldt, kTcC, L.DVT, vw, P.dblock(ct.bh, ct.c, ct.vt), L.DVT, n, 0, L.DVT);
    else tc_load(tid, nt, v.at<Op>(L.V), L.ldt, kTcC, L.DVT, p.v, row_offset(ct.bh, d.T, c0, d.dv), d.dv, n, ct.j0, ct.nj);
    float* lg = v.at<float>(L.lg);
    for (int t = tid; t < kTcC; t += nt) lg[t] = (t < n && p.log_gate) ? p.log_gate[row_offset(ct.bh, d.T, c0 + t, 1)] : 0.0f;
  }
};

// Pass 1: H_c = K_c^T (w . V_c) and a_c.
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class Ctx, class Op>
RECALL_HD void tc_la_chunk_state_program(Ctx& ctx, unsigned char* smb, const SeqDims& d, int DVT, const LaPtrs<Op>& p, const LaWork<Op>& wk,
                                         i64 blk) {
  const TcChunkBlock B(d, DVT, false, blk);
  const TcLaParLayout& L = B.L;
  const TcChunkTile& ct = B.ct;
  const int n = B.n;
  const TcView v{smb};
  Op *K = v.at<Op>(L.K), *V = v.at<Op>(L.V), *Xw = v.at<Op>(L.Xw);
  float *Hs = v.at<float>(L.Hs), *lg = v.at<float>(L.lg), *eb = v.at<float>(L.eb), *w = v.at<float>(L.w);
  double* pre = v.at<double>(L.pre);
  int* rst = v.at<int>(L.rst);
  ctx.phase([&](int tid, int nt) { B.load_kv_gates(tid, nt, v, d, p); });
  ctx.warps([&](int wid, int, auto& W) {
    W.each([&](int lane) {
      const int t = wid * 32 + lane;
      if (t < kTcC) tc_gate_row(lg, t, n, pre, rst, eb, w, p.log_gate != nullptr);
    });
  });
  ctx.phase([&](int tid, int nt) {
    for (int e = tid; e < kTcC * L.DVT; e += nt) {
      const int t = e >> L.lv, j = e & (L.DVT - 1);
      Xw[t * L.ldt + j] = op_from<Op>(t < n ? w[t] * to_f32(V[t * L.ldt + j]) : 0.0f);
    }
  });
  ctx.warps([&](int wid, int nw, auto&) {
    const int h = tc_units(L.DVT) / 4, us = (L.DKP / 16) * h, wd = L.DVT / h;
    for (int u = wid; u < us; u += nw) {
      const int r = 16 * (u / h), c = wd * (u % h);
      warp_mma_strip<Op, Lay::col, Lay::row>(K + r, L.ldk, Xw + c, L.ldt, Hs + r * L.ldt4 + c, L.ldt4, kTcC, wd, false);
    }
  });
  ctx.phase([&](int tid, int nt) {
    float* H = wk.H + B.P.block(ct.bh, ct.c, ct.vt);
    for (int e = tid; e < L.DKP * L.DVT; e += nt) H[e] = Hs[(e >> L.lv) * L.ldt4 + (e & (L.DVT - 1))];
    if (tid == 0 && ct.vt == 0) wk.a[ct.bh * B.P.NC + ct.c] = eb[n - 1];
  });
}

// Pass 2: the states before each chunk, s_final in fp32. Block blk covers kLaScanPerBlock state
// elements of one (head, value tile); each element's thread walks the chunks (the H loads do not
// depend on the state, so the unrolled loop keeps several in flight).
constexpr int kLaScanPerBlock = 256;
RECALL_HD inline i64 la_scan_blocks(const SeqDims& d, int DVT) {
  const LaParDims P(d, DVT);
  return d.B * d.H * P.NVT * ((i64(P.DKP) * DVT + kLaScanPerBlock - 1) / kLaScanPerBlock);
}
template <class Ctx, class Op>
RECALL_HD void tc_la_state_pass_program(Ctx& ctx, const SeqDims& d, int DVT, const LaPtrs<Op>& p, const LaWork<Op>& wk, i64 blk) {
  const LaParDims P(d, DVT);
  const int per_tile = P.DKP * DVT, eblocks = (per_tile + kLaScanPerBlock - 1) / kLaScanPerBlock;
  const i64 tile = blk / eblocks, bh = tile / P.NVT;
  const int vt = int(tile % P.NVT), e0 = int(blk % eblocks) * kLaScanPerBlock;
  const int j0 = vt * DVT, nj = (d.dv - j0) < DVT ? (d.dv - j0) : DVT;
  int lv = 0;
  while ((1 << lv) < DVT) ++lv;
  ctx.phase([&](int tid, int nt) {
    const int e_end = (e0 + kLaScanPerBlock) < per_tile ? (e0 + kLaScanPerBlock) : per_tile;
    for (int e = e0 + tid; e < e_end; e += nt) {
      const int c = e >> lv, j = e & (DVT - 1);
      const bool in = c < d.dk && j < nj;
      float s = (p.s0 && in) ? p.s0[(bh * d.dv + j0 + j) * d.dk + c] : 0.0f;
      RECALL_UNROLL4
      for (i64 ch = 0; ch < P.NC; ++ch) {
        if (RECALL_FAULT_ON(gpu_tc_state_not_carried) && ch > 0) s = 0.0f;
        const i64 b = P.block(bh, ch, vt) + e;
        wk.S[b] = op_from<Op>(s);
        s = wk.a[bh * P.NC + ch] * s + wk.H[b];
      }
      if (p.s_final && in) p.s_final[(bh * d.dv + j0 + j) * d.dk + c] = s;
    }
  });
}

// Pass 3: O_c = eb . (Q_c S_c) + ((Q_c K_c^T) . D_c) V_c.
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class Ctx, class Op>
RECALL_HD void tc_la_chunk_output_program(Ctx& ctx, unsigned char* smb, const SeqDims& d, int DVT, const LaPtrs<Op>& p, const LaWork<Op>& wk,
                                          i64 blk) {
  const TcChunkBlock B(d, DVT, true, blk);
  const TcLaParLayout& L = B.L;
  const TcChunkTile& ct = B.ct;
  const i64 c0 = B.c0;
  const int n = B.n;
  const TcView v{smb};
  Op *Q = v.at<Op>(L.Q), *K = v.at<Op>(L.K), *V = v.at<Op>(L.V), *Pop = v.at<Op>(L.Pop), *Sop = v.at<Op>(L.Sop);
  float *Pm = v.at<float>(L.P), *O = v.at<float>(L.O), *lg = v.at<float>(L.lg), *eb = v.at<float>(L.eb), *w = v.at<float>(L.w);
  double* pre = v.at<double>(L.pre);
  int* rst = v.at<int>(L.rst);
  ctx.phase([&](int tid, int nt) {
    tc_load(tid, nt, Q, L.ldk, kTcC, L.DKP, p.q, row_offset(ct.bh, d.T, c0, d.dk), d.dk, n, 0, d.dk);
    B.load_kv_gates(tid, nt, v, d, p, static_cast<const Op*>(wk.D));
    // the state block is contiguous DKP x DVT: rows of DVT into the pitch ldt
    tc_load(tid, nt, Sop, L.ldt, L.DKP, L.DVT, static_cast<const Op*>(wk.S), B.P.block(ct.bh, ct.c, ct.vt), L.DVT, L.DKP, 0, L.DVT);
  });
  const TcLaChunk<Op> ch{Q, K, Sop, Pm, O, Pop, lg, pre, rst, eb, w, L.ldk, L.DKP, L.ldt, L.ldt4, L.DVT};
  ctx.warps([&](int wid, int nw, auto& W) { tc_la_gates_qk_qs(wid, nw, W, ch, n, p.log_gate != nullptr); });
  ctx.phase([&](int tid, int nt) {
    tc_la_decayed_scores(tid, nt, ch, n);
    for (int e = tid; e < kTcC * L.DVT; e += nt) {
      const int t = e >> L.lv, j = e & (L.DVT - 1);
      O[t * L.ldt4 + j] = t < n ? eb[t] * O[t * L.ldt4 + j] : 0.0f;
    }
  });
  ctx.warps([&](int wid, int nw, auto&) {
    const int uo = tc_units(L.DVT);
    for (int u = wid; u < uo; u += nw) {
      int r, c, wd;
      tc_unit(u, L.DVT, &r, &c, &wd);
      warp_mma_strip<Op, Lay::row, Lay::row>(Pop + r * kTcLdP, kTcLdP, V + c, L.ldt, O + r * L.ldt4 + c, L.ldt4, kTcC, wd, true);
    }
  });
  ctx.phase([&](int tid, int nt) {
    for (int e = tid; e < (n << L.lv); e += nt) {
      const int t = e >> L.lv, j = e & (L.DVT - 1);
      if (j < ct.nj) p.o[row_offset(ct.bh, d.T, c0 + t, d.dv) + ct.j0 + j] = O[t * L.ldt4 + j];
    }
  });
}

}  // namespace recall::gpu
