// Register-level tensor-core primitives of gpu/ (mma.sync.m16n8k16 on explicit fragments, quad
// shuffles, cp.async double buffering), written once for the device and the host emulator.
//
// Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type"), with
// g = lane / 4 and q = lane % 4, two 16-bit elements per 32-bit register, the lower column (or k)
// index in the low half:
//   A (16 x 16, row-major): reg 0 = (g, 2q..2q+1), reg 1 = (g+8, 2q..2q+1), reg 2 = (g, 2q+8..2q+9),
//                           reg 3 = (g+8, 2q+8..2q+9)
//   B (16 x 8, "col"):      reg 0 = (k = 2q..2q+1, n = g), reg 1 = (k = 2q+8..2q+9, n = g)
//   C / D (16 x 8, fp32):   c0, c1 = (g, 2q..2q+1), c2, c3 = (g+8, 2q..2q+1)
// The device runs the instruction; the host gathers the 32 lanes' fragments by these formulas and
// computes D = C + A B with fp32 products (exact for 16-bit operands) and fp32 sums in k order. A
// program that builds its fragments with wrong index arithmetic therefore computes wrong products on
// the host exactly as it would on the device, and the host tests see it.
//
// Per-lane registers: Lanes<T> is one T per thread on the device and 32 of them on the host (where a
// warp's lanes run in turn); WarpRegs<T> holds one T per lane of every warp of a block, for registers
// that live across the block's phases (device: the thread's own T). Index both with the lane (and
// warp) the step runs for; on the device the index is ignored and the access compiles to registers
// as long as every array index inside T is a compile-time constant (unrolled loops).
//
// Asynchronous copies: a program issues ctx.copy16(dst, src) inside ctx.phase_async(f, keep); the
// phase ends by committing its copies as one group and waiting until at most `keep` (0 or 1) groups
// are still in flight, then synchronises the block. The host emulator DEFERS every copy to that wait,
// so a program that reads a buffer before its copy was waited for reads stale (NaN-poisoned) data on
// the host too.
#pragma once

#include "recall/gpu/tc.hpp"

#include <cstdint>
#include <cstring>

#if !defined(__CUDA_ARCH__)
#include <vector>
#endif

#if defined(__CUDA_ARCH__)
#define RECALL_UNROLL _Pragma("unroll")
#else
#define RECALL_UNROLL
#endif

namespace recall::gpu {

// ---- per-lane registers -------------------------------------------------------------------------
#if defined(__CUDA_ARCH__)
template <class T> struct Lanes {
  T v;
  __device__ T& operator[](int) { return v; }
};
template <class T> struct WarpRegs {
  T v;
  __device__ explicit WarpRegs(int) {}
  __device__ T& operator()(int, int) { return v; }
};
#else
template <class T> struct Lanes {
  T v[32];
  T& operator[](int lane) { return v[lane]; }
};
template <class T> struct WarpRegs {
  std::vector<T> v;
  explicit WarpRegs(int warps) : v(std::size_t(warps) * 32) {}
  T& operator()(int warp, int lane) { return v[std::size_t(warp) * 32 + std::size_t(lane)]; }
};
#endif

struct FragA {
  std::uint32_t x[4];
};
struct FragB {
  std::uint32_t x[2];
};

// ---- 16-bit operands packed in pairs ------------------------------------------------------------
template <class Op> struct MmaKind;
template <> struct MmaKind<hbf16> {
  static constexpr bool bf = true;
};
template <> struct MmaKind<hf16> {
  static constexpr bool bf = false;
};
#if defined(__CUDACC__)
template <> struct MmaKind<__nv_bfloat16> {
  static constexpr bool bf = true;
};
template <> struct MmaKind<__half> {
  static constexpr bool bf = false;
};
#endif

template <class Op> RECALL_HD inline std::uint32_t op_bits(Op x) {
  std::uint16_t b;
  memcpy(&b, &x, 2);
  return b;
}
template <class Op> RECALL_HD inline std::uint32_t pack2(Op lo, Op hi) { return op_bits(lo) | (op_bits(hi) << 16); }
// Two consecutive elements p[0] (low half), p[1] (high half); p 4-byte aligned.
template <class Op> RECALL_HD inline std::uint32_t ld_pair(const Op* p) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<const std::uint32_t*>(p);
#else
  std::uint32_t u;
  std::memcpy(&u, p, 4);
  return u;
#endif
}
template <class Op> inline float bits_value(std::uint32_t bits16) {
  Op x;
  const std::uint16_t b = std::uint16_t(bits16);
  std::memcpy(&x, &b, 2);
  return to_f32(x);
}

// ---- D = C + A B on one warp (m16n8k16, 16-bit operands, fp32 accumulators) ----------------------
// a(lane) -> const uint32_t[4], b(lane) -> const uint32_t[2], c(lane) -> float[4] (updated in place).
template <class Op, class W, class FA, class FB, class FC> RECALL_HD inline void mma16816(W& w, FA&& a, FB&& b, FC&& c) {
#if defined(__CUDA_ARCH__)
  const std::uint32_t* A = a(w.lane);
  const std::uint32_t* B = b(w.lane);
  float* C = c(w.lane);
  if constexpr (MmaKind<Op>::bf) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(C[0]), "+f"(C[1]), "+f"(C[2]), "+f"(C[3])
                 : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]));
  } else {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(C[0]), "+f"(C[1]), "+f"(C[2]), "+f"(C[3])
                 : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]));
  }
#else
  (void)w;
  float Am[16][16], Bm[16][8], Cm[16][8];
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane >> 2, q = lane & 3;
    const std::uint32_t* A = a(lane);
    const std::uint32_t* B = b(lane);
    const float* C = c(lane);
    for (int i = 0; i < 8; ++i) {
      const int row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
      const int col = 2 * q + (i & 1) + (i >= 4 ? 8 : 0);
      Am[row][col] = bits_value<Op>(A[i >> 1] >> (16 * (i & 1)));
    }
    for (int i = 0; i < 4; ++i) Bm[2 * q + (i & 1) + (i >= 2 ? 8 : 0)][g] = bits_value<Op>(B[i >> 1] >> (16 * (i & 1)));
    for (int i = 0; i < 4; ++i) Cm[i < 2 ? g : g + 8][2 * q + (i & 1)] = C[i];
  }
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      float s = Cm[i][j];
      for (int k = 0; k < 16; ++k) s += Am[i][k] * Bm[k][j];
      Cm[i][j] = s;
    }
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane >> 2, q = lane & 3;
    float* C = c(lane);
    for (int i = 0; i < 4; ++i) C[i] = Cm[i < 2 ? g : g + 8][2 * q + (i & 1)];
  }
#endif
}

// ---- reductions over the four lanes of a quad (the lanes holding one accumulator row) -----------
// x(lane) -> float&. Butterfly over lane ^ 1 then lane ^ 2; every lane of the quad ends with
// op(op(x0, x1), op(x2, x3)) (bit-identical on every lane: op is commutative).
template <bool Max, class W, class F> RECALL_HD inline void quad_reduce(W& w, F&& x) {
#if defined(__CUDA_ARCH__)
  float& v = x(w.lane);
  float o = __shfl_xor_sync(0xffffffffu, v, 1);
  v = Max ? f32_max(v, o) : v + o;
  o = __shfl_xor_sync(0xffffffffu, v, 2);
  v = Max ? f32_max(v, o) : v + o;
#else
  (void)w;
  for (int b = 0; b < 32; b += 4) {
    const float x0 = x(b), x1 = x(b + 1), x2 = x(b + 2), x3 = x(b + 3);
    const float lo = Max ? f32_max(x0, x1) : x0 + x1, hi = Max ? f32_max(x2, x3) : x2 + x3;
    const float r = Max ? f32_max(lo, hi) : lo + hi;
    for (int l = b; l < b + 4; ++l) x(l) = r;
  }
#endif
}
template <class W, class F> RECALL_HD inline void quad_max(W& w, F&& x) { quad_reduce<true>(w, x); }
template <class W, class F> RECALL_HD inline void quad_sum(W& w, F&& x) { quad_reduce<false>(w, x); }

// ---- tile loads through cp.async ------------------------------------------------------------------
// As tc_load (tc_programs.hpp), but whole 16-byte vectors inside the source go through ctx.copy16
// (asynchronous: visible after the enclosing phase_async's wait); padding and ragged vectors are
// stored directly.
template <class Ctx, class X>
RECALL_HD void tc_load_async(Ctx& ctx, int tid, int nt, X* dst, int ld, int rows_pad, int cols_pad, const X* src, i64 row0, int width,
                             int rows, int col0, int cols) {
  constexpr int V = 16 / sizeof(X);
  const bool vec = width % V == 0 && col0 % V == 0 && ld % V == 0 && cols_pad % V == 0 && row0 % V == 0 &&
                   reinterpret_cast<std::uintptr_t>(src) % 16 == 0;
  if (vec) {
    const int vpr = cols_pad / V;
    for (int e = tid; e < rows_pad * vpr; e += nt) {
      const int r = e / vpr, c = (e - r * vpr) * V;
      X* d = dst + i64(r) * ld + c;
      if (r < rows && c + V <= cols) {
        ctx.copy16(d, src + row0 + i64(r) * width + col0 + c);
      } else {
        for (int x = 0; x < V; ++x) d[x] = (r < rows && c + x < cols) ? src[row0 + i64(r) * width + col0 + c + x] : op_from<X>(0.0f);
      }
    }
    return;
  }
  for (int e = tid; e < rows_pad * cols_pad; e += nt) {
    const int r = e / cols_pad, c = e % cols_pad;
    dst[i64(r) * ld + c] = (r < rows && c < cols) ? src[row0 + i64(r) * width + col0 + c] : op_from<X>(0.0f);
  }
}

}  // namespace recall::gpu
