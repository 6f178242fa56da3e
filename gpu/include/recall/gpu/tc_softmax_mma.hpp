// Causal softmax attention on tensor cores with register-resident accumulators (FlashAttention-2's
// structure), written once for the device (gpu/src/tc_kernels.cu) and the host emulator (emulate.hpp).
// Spec IDs: A004-SOFTMAX-ATTN, A001-F10-SOFTMAX-ONLINE (the online normaliser).
//
// One block of 8 warps per (head, 128-row query tile), the longest tiles first; warp w owns query
// rows 16w..16w+15 of the tile. The key/value tiles (64 rows) stream through two shared-memory
// buffers with cp.async: tile t + 1 is in flight while tile t is computed. Per key tile a warp
//   * computes S = Q K^T with mma.sync.m16n8k16 (16-bit operands, fp32 accumulators in registers;
//     Q's fragments from shared memory, K's read as the "col" B operand straight from its rows);
//   * applies scale and the causal / end-of-sequence mask, takes the row maxima across the quad of
//     lanes holding a row (two shuffles), rescales its output accumulators and running sums;
//   * rounds P = exp(S - m) to the storage type in registers -- the S accumulator fragments of two
//     adjacent 8-key blocks ARE the A fragment of P for a 16-key step, so P never touches shared
//     memory -- and adds the ROUNDED probabilities to the row sum, so o is an exact convex
//     combination of the values (equal logits give exactly the stored value), as in the WMMA program;
//   * accumulates O += P V (V's B fragments gathered from its rows).
// Warps whose rows all precede a key tile skip it. The output is O / l from registers.
//
// dk and dv are padded to 64 or 128 (KS = DKP / 16 k-steps, NV = DVP / 8 value blocks, both compile-
// time: every fragment array is indexed by unrolled constants); larger heads use the WMMA program of
// tc_programs.hpp. Outputs are fp32.
#pragma once

#include "recall/gpu/mma.hpp"
#include "recall/gpu/tc_programs.hpp"

namespace recall::gpu {

constexpr int kMmaSmWarps = 8;
constexpr int kMmaSmRows = 16 * kMmaSmWarps;  // query rows per block
constexpr int kMmaSmKeys = 64;                 // keys per tile
constexpr int kMmaSmThreads = 32 * kMmaSmWarps;
constexpr int kMmaSmMaxD = 128;

RECALL_HD inline int mma_sm_pad(int d) { return d <= 64 ? 64 : 128; }

struct TcSmMmaLayout {
  int DKP = 0, DVP = 0, ldk = 0, ldv = 0;
  std::size_t Q = 0, K0 = 0, K1 = 0, V0 = 0, V1 = 0, bytes = 0;
  // Row pitches of DKP + 8 / DVP + 8 elements: the fragment reads of a warp (8 rows x 4 pairs) fall
  // in 32 different banks.
  RECALL_HD TcSmMmaLayout(int dk, int dv) : DKP(mma_sm_pad(dk)), DVP(mma_sm_pad(dv)) {
    ldk = DKP + 8, ldv = DVP + 8;
    Carve c;
    Q = c.take<std::uint16_t>(std::size_t(kMmaSmRows) * ldk);
    K0 = c.take<std::uint16_t>(std::size_t(kMmaSmKeys) * ldk);
    K1 = c.take<std::uint16_t>(std::size_t(kMmaSmKeys) * ldk);
    V0 = c.take<std::uint16_t>(std::size_t(kMmaSmKeys) * ldv);
    V1 = c.take<std::uint16_t>(std::size_t(kMmaSmKeys) * ldv);
    bytes = (c.off + 127) / 128 * 128;
  }
};

// Registers of one lane that live across key tiles: output accumulators (NV blocks of 16 x 8), the
// running maxima of rows g and g + 8 (equal on the quad's four lanes) and the lane's share of their sums.
template <int NV> struct SmMmaLane {
  float o[NV][4];
  float m[2], l[2];
};
struct SmMmaScores {
  float s[kMmaSmKeys / 8][4];
};
struct SmMmaPair {
  float x[2];
};

#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <int KS, int NV, class Ctx, class Op>
RECALL_HD void tc_softmax_mma_program(Ctx& ctx, unsigned char* smb, const SeqDims& d, float scale, const SmPtrs<Op>& p, i64 blk) {
  const TcSmMmaLayout L(d.dk, d.dv);
  const TcView v{smb};
  const i64 tiles = (d.T + kMmaSmRows - 1) / kMmaSmRows;
  const i64 bh = blk / tiles, r0 = (tiles - 1 - blk % tiles) * kMmaSmRows;
  const int nq = int((d.T - r0) < kMmaSmRows ? (d.T - r0) : kMmaSmRows);
  const int nkt = int((r0 + nq + kMmaSmKeys - 1) / kMmaSmKeys);  // key tiles up to the last query row
  Op* Q = v.at<Op>(L.Q);
  Op *const K0 = v.at<Op>(L.K0), *const K1 = v.at<Op>(L.K1), *const V0 = v.at<Op>(L.V0), *const V1 = v.at<Op>(L.V1);
  const int ldk = L.ldk, ldv = L.ldv;
  WarpRegs<SmMmaLane<NV>> R(kMmaSmWarps);

  auto issue = [&](int tid, int nt, int t) {
    const i64 k0 = i64(t) * kMmaSmKeys;
    const int nk = int((d.T - k0) < kMmaSmKeys ? (d.T - k0) : kMmaSmKeys);
    tc_load_async(ctx, tid, nt, (t & 1) ? K1 : K0, ldk, kMmaSmKeys, L.DKP, p.k, row_offset(bh, d.T, k0, d.dk), d.dk, nk, 0, d.dk);
    tc_load_async(ctx, tid, nt, (t & 1) ? V1 : V0, ldv, kMmaSmKeys, L.DVP, p.v, row_offset(bh, d.T, k0, d.dv), d.dv, nk, 0, d.dv);
  };
  ctx.phase_async(
      [&](int tid, int nt) {
        tc_load(tid, nt, Q, ldk, kMmaSmRows, L.DKP, p.q, row_offset(bh, d.T, r0, d.dk), d.dk, nq, 0, d.dk);
        issue(tid, nt, 0);
      },
      1);
  ctx.warps([&](int wid, int nw, auto& W) {
    for (int st = wid; st < kMmaSmWarps; st += nw)
      W.regs([&](int lane) {
        SmMmaLane<NV>& r = R(st, lane);
        RECALL_UNROLL
        for (int n = 0; n < NV; ++n)
          RECALL_UNROLL
          for (int i = 0; i < 4; ++i) r.o[n][i] = 0.0f;
        r.m[0] = r.m[1] = kNegInf;
        r.l[0] = r.l[1] = 0.0f;
      });
  });

  for (int t = 0; t < nkt; ++t) {
    // tile t + 1 goes in flight; tile t (issued one step earlier) is waited for
    const bool more = t + 1 < nkt;
    ctx.phase_async(
        [&](int tid, int nt) {
          if (more) issue(tid, nt, t + 1);
        },
        more ? 1 : 0);
    const i64 k0 = i64(t) * kMmaSmKeys;
    const Op* Kt = (t & 1) ? K1 : K0;  // (selects, not an indexed array: no local memory)
    const Op* Vt = (t & 1) ? V1 : V0;
    ctx.warps([&](int wid, int nw, auto& W) {
      for (int st = wid; st < kMmaSmWarps; st += nw) {
        const int rw = 16 * st;
        if (rw >= nq || k0 > r0 + rw + 15) continue;  // rows past the end / every key in the rows' future
        Lanes<SmMmaScores> S;
        W.regs([&](int lane) {
          RECALL_UNROLL
          for (int n = 0; n < kMmaSmKeys / 8; ++n)
            RECALL_UNROLL
            for (int i = 0; i < 4; ++i) S[lane].s[n][i] = 0.0f;
        });
        // S = Q K^T
        RECALL_UNROLL
        for (int ks = 0; ks < KS; ++ks) {
          Lanes<FragA> qa;
          W.regs([&](int lane) {
            const Op* a = Q + (rw + (lane >> 2)) * ldk + 16 * ks + 2 * (lane & 3);
            qa[lane].x[0] = ld_pair(a);
            qa[lane].x[1] = ld_pair(a + 8 * ldk);
            qa[lane].x[2] = ld_pair(a + 8);
            qa[lane].x[3] = ld_pair(a + 8 * ldk + 8);
          });
          RECALL_UNROLL
          for (int n = 0; n < kMmaSmKeys / 8; ++n) {
            Lanes<FragB> kb;
            W.regs([&](int lane) {
              const Op* b = Kt + (8 * n + (lane >> 2)) * ldk + 16 * ks + 2 * (lane & 3);
              kb[lane].x[0] = ld_pair(b);
              kb[lane].x[1] = ld_pair(b + 8);
            });
            mma16816<Op>(
                W, [&](int l) { return qa[l].x; }, [&](int l) { return kb[l].x; }, [&](int l) { return S[l].s[n]; });
          }
        }
        // scale, mask, row maxima (rows g and g + 8 of the strip)
        Lanes<SmMmaPair> mx;
        W.regs([&](int lane) {
          const i64 row = r0 + rw + (lane >> 2);
          mx[lane].x[0] = mx[lane].x[1] = kNegInf;
          RECALL_UNROLL
          for (int n = 0; n < kMmaSmKeys / 8; ++n)
            RECALL_UNROLL
            for (int i = 0; i < 4; ++i) {
              const i64 key = k0 + 8 * n + 2 * (lane & 3) + (i & 1), rr = row + 8 * (i >> 1);
              const float s = (key <= rr && key < d.T) ? scale * S[lane].s[n][i] : kNegInf;
              S[lane].s[n][i] = s;
              mx[lane].x[i >> 1] = f32_max(mx[lane].x[i >> 1], s);
            }
        });
        quad_max(W, [&](int l) -> float& { return mx[l].x[0]; });
        quad_max(W, [&](int l) -> float& { return mx[l].x[1]; });
        // online softmax: new maxima, rescale, P rounded to the storage type, the rounded row sums
        W.regs([&](int lane) {
          SmMmaLane<NV>& r = R(st, lane);
          float corr[2], sum[2] = {0.0f, 0.0f};
          RECALL_UNROLL
          for (int h = 0; h < 2; ++h) {
            const float mnew = f32_max(r.m[h], mx[lane].x[h]);
            corr[h] = f32_exp(r.m[h] - mnew);  // m = -inf before the first tile: 0
            r.m[h] = mnew;
          }
          RECALL_UNROLL
          for (int n = 0; n < kMmaSmKeys / 8; ++n)
            RECALL_UNROLL
            for (int i = 0; i < 4; ++i) {
              const float pr = to_f32(op_from<Op>(f32_exp(S[lane].s[n][i] - r.m[i >> 1])));
              S[lane].s[n][i] = pr;
              sum[i >> 1] += pr;
            }
          RECALL_UNROLL
          for (int h = 0; h < 2; ++h) r.l[h] = r.l[h] * corr[h] + sum[h];
          if (!RECALL_FAULT_ON(gpu_tc_rescale_missing)) {
            RECALL_UNROLL
            for (int n = 0; n < NV; ++n)
              RECALL_UNROLL
              for (int i = 0; i < 4; ++i) r.o[n][i] *= corr[i >> 1];
          }
        });
        // O += P V, 16 keys per step (steps wholly in the rows' future skipped)
        RECALL_UNROLL
        for (int j = 0; j < kMmaSmKeys / 16; ++j) {
          if (k0 + 16 * j > r0 + rw + 15) continue;
          Lanes<FragA> pa;
          W.regs([&](int lane) {
            const float* s0 = S[lane].s[2 * j];
            const float* s1 = S[lane].s[2 * j + 1];
            pa[lane].x[0] = pack2(op_from<Op>(s0[0]), op_from<Op>(s0[1]));
            pa[lane].x[1] = pack2(op_from<Op>(s0[2]), op_from<Op>(s0[3]));
            pa[lane].x[2] = pack2(op_from<Op>(s1[0]), op_from<Op>(s1[1]));
            pa[lane].x[3] = pack2(op_from<Op>(s1[2]), op_from<Op>(s1[3]));
          });
          RECALL_UNROLL
          for (int n = 0; n < NV; ++n) {
            Lanes<FragB> vb;
            W.regs([&](int lane) {
              const Op* b = Vt + (16 * j + 2 * (lane & 3)) * ldv + 8 * n + (lane >> 2);
              vb[lane].x[0] = pack2(b[0], b[ldv]);
              vb[lane].x[1] = pack2(b[8 * ldv], b[9 * ldv]);
            });
            mma16816<Op>(
                W, [&](int l) { return pa[l].x; }, [&](int l) { return vb[l].x; }, [&](int l) { return R(st, l).o[n]; });
          }
        }
      }
    });
  }
  // o = O / l, straight from the registers
  ctx.warps([&](int wid, int nw, auto& W) {
    for (int st = wid; st < kMmaSmWarps; st += nw) {
      const int rw = 16 * st;
      if (rw >= nq) continue;
      quad_sum(W, [&](int l) -> float& { return R(st, l).l[0]; });
      quad_sum(W, [&](int l) -> float& { return R(st, l).l[1]; });
      W.regs([&](int lane) {
        SmMmaLane<NV>& r = R(st, lane);
        RECALL_UNROLL
        for (int h = 0; h < 2; ++h) {
          const int row = rw + (lane >> 2) + 8 * h;
          if (row >= nq) continue;
          float* out = p.o + row_offset(bh, d.T, r0 + row, d.dv);
          RECALL_UNROLL
          for (int n = 0; n < NV; ++n)
            RECALL_UNROLL
            for (int c = 0; c < 2; ++c) {
              const int col = 8 * n + 2 * (lane & 3) + c;
              if (col < d.dv) out[col] = r.o[n][2 * h + c] / r.l[h];
            }
        }
      });
    }
  });
}

// The four head classes (dk, dv padded to 64 / 128 each).
template <class Ctx, class Op>
RECALL_HD void tc_softmax_mma_dispatch(Ctx& ctx, unsigned char* smb, const SeqDims& d, float scale, const SmPtrs<Op>& p, i64 blk) {
  const bool k64 = mma_sm_pad(d.dk) == 64, v64 = mma_sm_pad(d.dv) == 64;
  if (k64 && v64) tc_softmax_mma_program<4, 8>(ctx, smb, d, scale, p, blk);
  else if (k64) tc_softmax_mma_program<4, 16>(ctx, smb, d, scale, p, blk);
  else if (v64) tc_softmax_mma_program<8, 8>(ctx, smb, d, scale, p, blk);
  else tc_softmax_mma_program<8, 16>(ctx, smb, d, scale, p, blk);
}

}  // namespace recall::gpu
