// Tensor-core building blocks of the gpu/ fast kernels, written once for the device and the host.
//
// The fast (tensor-core) programs of tc_programs.hpp keep their GEMM operands in shared memory in
// the 16-bit storage type Op (bf16 or f16) and their accumulators in fp32. One warp computes a
// 16 x (16 NT) strip of C = A B (+ C):
//   * on the device with the WMMA API of the CUDA toolkit (mma.sync on sm_80 and later);
//   * on the host (the emulator of emulate.hpp) as "operands rounded to the storage type, products
//     and sums in fp32" -- the products of two 16-bit numbers are exact in fp32, the sums are fp32
//     in k order (the tensor core's internal order differs; the budget's accumulation terms cover
//     that).
// The host storage types hbf16 / hf16 hold the same bit patterns as __nv_bfloat16 / __half and
// round to nearest even exactly as __float2bfloat16_rn / __float2half_rn do, so the emulator's
// operands are bit-identical to the device's.
//
// Warps: a program's warp phase runs f(warp, nwarps, W) for every warp of the block; W.each(g)
// runs g(lane) for the 32 lanes (device: every lane once, then __syncwarp; host: a loop). A warp
// phase must not let two warps write the same shared memory (the emulator runs warps in turn).
#pragma once

#include "recall/gpu/programs.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__CUDACC__)
#include <mma.h>
#endif

namespace recall::gpu {

// ---- 16-bit storage types of the host emulation (bit patterns as on the device) -------------
struct hbf16 {
  std::uint16_t bits;
};
struct hf16 {
  std::uint16_t bits;
};

RECALL_HD inline std::uint32_t f32_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}
RECALL_HD inline float bits_f32(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

RECALL_HD inline float to_f32(hbf16 x) { return bits_f32(std::uint32_t(x.bits) << 16); }
RECALL_HD inline float to_f32(hf16 x) {
  const std::uint32_t sign = std::uint32_t(x.bits & 0x8000u) << 16;
  const std::uint32_t e = (x.bits >> 10) & 0x1fu, m = x.bits & 0x3ffu;
  if (e == 0x1f) return bits_f32(sign | 0x7f800000u | (m << 13));  // inf / nan
  if (e == 0) {                                                     // zero / subnormal: m 2^-24
    const float a = float(m) * 5.9604644775390625e-8f;
    return sign ? -a : a;
  }
  return bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}
// Round to nearest even (NaN stays NaN, overflow goes to inf as on the device).
RECALL_HD inline hbf16 hbf16_from(float f) {
  std::uint32_t u = f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return hbf16{std::uint16_t((u >> 16) | 0x40u)};
  u += 0x7fffu + ((u >> 16) & 1u);
  return hbf16{std::uint16_t(u >> 16)};
}
RECALL_HD inline hf16 hf16_from(float f) {
  const std::uint32_t u = f32_bits(f);
  const std::uint16_t sign = std::uint16_t((u >> 16) & 0x8000u);
  const std::uint32_t x = u & 0x7fffffffu;
  if (x > 0x7f800000u) return hf16{std::uint16_t(sign | 0x7e00u)};
  if (x >= 0x477ff000u) return hf16{std::uint16_t(sign | 0x7c00u)};  // >= 65520 rounds to inf
  if (x < 0x38800000u) {                                              // below 2^-14: subnormal
    // a * 2^24 is exact; round it to an integer, nearest even
    const float s = bits_f32(x) * 16777216.0f;
    std::uint32_t r = std::uint32_t(s);
    const float frac = s - float(r);
    if (frac > 0.5f || (frac == 0.5f && (r & 1u))) ++r;
    return hf16{std::uint16_t(sign | r)};
  }
  const std::uint32_t y = x - 0x38000000u;  // rebias the exponent 127 -> 15
  return hf16{std::uint16_t(sign | ((y + 0xfffu + ((y >> 13) & 1u)) >> 13))};
}
// TF32 (round to nearest, ties away, as cvt.rna.tf32.f32 / wmma::__float_to_tf32).
RECALL_HD inline float tf32_round(float f) {
  const std::uint32_t u = f32_bits(f);
  if ((u & 0x7f800000u) == 0x7f800000u) return f;
  return bits_f32((u + 0x1000u) & 0xffffe000u);
}

template <class Op> struct OpTraits;
template <> struct OpTraits<hbf16> {
  RECALL_HD static hbf16 from(float x) { return hbf16_from(x); }
};
template <> struct OpTraits<hf16> {
  RECALL_HD static hf16 from(float x) { return hf16_from(x); }
};
template <> struct OpTraits<float> {  // fp32 tiles through the same loaders
  RECALL_HD static float from(float x) { return x; }
};
#if defined(__CUDACC__)
template <> struct OpTraits<__nv_bfloat16> {
  RECALL_HD static __nv_bfloat16 from(float x) { return __float2bfloat16_rn(x); }
};
template <> struct OpTraits<__half> {
  RECALL_HD static __half from(float x) { return __float2half_rn(x); }
};
#endif
template <class Op> RECALL_HD inline Op op_from(float x) { return OpTraits<Op>::from(x); }

// ---- warp-level GEMM strips ---------------------------------------------------------------------
enum class Lay { row, col };
// Element (i, k) of a matrix stored with leading dimension ld.
template <Lay L, class X> RECALL_HD inline const X& at(const X* p, int ld, int i, int k) {
  return L == Lay::row ? p[i64(i) * ld + k] : p[i64(k) * ld + i];
}

// C[16 x 16 NT] (fp32, row-major, ldc) = (acc ? C : 0) + A[16 x K] B[K x 16 NT]; K a multiple of 16.
// A: (i, k) at A[i lda + k] (row) or A[k lda + i] (col); B: (k, j) at B[k ldb + j] (row) or
// B[j ldb + k] (col). Device: every pointer 32-byte aligned, lda/ldb multiples of 8, ldc of 4.
template <class Op, Lay LA, Lay LB, int NT>
RECALL_HD inline void warp_mma(const Op* A, int lda, const Op* B, int ldb, float* C, int ldc, int K, bool acc) {
#if defined(__CUDA_ARCH__)
  using namespace nvcuda;
  using LAt = typename std::conditional<LA == Lay::row, wmma::row_major, wmma::col_major>::type;
  using LBt = typename std::conditional<LB == Lay::row, wmma::row_major, wmma::col_major>::type;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c[NT];
#pragma unroll
  for (int n = 0; n < NT; ++n) {
    if (acc) wmma::load_matrix_sync(c[n], C + 16 * n, ldc, wmma::mem_row_major);
    else wmma::fill_fragment(c[n], 0.0f);
  }
  for (int k = 0; k < K; k += 16) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, Op, LAt> a;
    wmma::load_matrix_sync(a, LA == Lay::row ? A + k : A + i64(k) * lda, lda);
#pragma unroll
    for (int n = 0; n < NT; ++n) {
      wmma::fragment<wmma::matrix_b, 16, 16, 16, Op, LBt> b;
      wmma::load_matrix_sync(b, LB == Lay::row ? B + i64(k) * ldb + 16 * n : B + i64(16 * n) * ldb + k, ldb);
      wmma::mma_sync(c[n], a, b, c[n]);
    }
  }
#pragma unroll
  for (int n = 0; n < NT; ++n) wmma::store_matrix_sync(C + 16 * n, c[n], ldc, wmma::mem_row_major);
#else
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16 * NT; ++j) {
      float s = acc ? C[i64(i) * ldc + j] : 0.0f;
      for (int k = 0; k < K; ++k) s += to_f32(at<LA>(A, lda, i, k)) * to_f32(at<LB>(B, ldb, k, j));
      C[i64(i) * ldc + j] = s;
    }
#endif
}

// A 16-row strip of any width (a multiple of 16): groups of four 16 x 16 tiles, then the rest.
template <class Op, Lay LA, Lay LB>
RECALL_HD inline void warp_mma_strip(const Op* A, int lda, const Op* B, int ldb, float* C, int ldc, int K, int width, bool acc) {
  int j = 0;
  for (; j + 64 <= width; j += 64)
    warp_mma<Op, LA, LB, 4>(A, lda, LB == Lay::row ? B + j : B + i64(j) * ldb, ldb, C + j, ldc, K, acc);
  for (; j + 32 <= width; j += 32)
    warp_mma<Op, LA, LB, 2>(A, lda, LB == Lay::row ? B + j : B + i64(j) * ldb, ldb, C + j, ldc, K, acc);
  for (; j < width; j += 16)
    warp_mma<Op, LA, LB, 1>(A, lda, LB == Lay::row ? B + j : B + i64(j) * ldb, ldb, C + j, ldc, K, acc);
}

// TF32 strip with fp32 operands in shared memory (row-major A and B): C[16 x 16 NT] += A B with
// A and B rounded to TF32 (10-bit fraction, fp32 range), products and sums in fp32. K a multiple of 8.
template <int NT> RECALL_HD inline void warp_mma_tf32(const float* A, int lda, const float* B, int ldb, float* C, int ldc, int K) {
#if defined(__CUDA_ARCH__)
  using namespace nvcuda;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> c[NT];
#pragma unroll
  for (int n = 0; n < NT; ++n) wmma::load_matrix_sync(c[n], C + 16 * n, ldc, wmma::mem_row_major);
  for (int k = 0; k < K; k += 8) {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
    wmma::load_matrix_sync(a, A + k, lda);
#pragma unroll
    for (int e = 0; e < a.num_elements; ++e) a.x[e] = wmma::__float_to_tf32(a.x[e]);
#pragma unroll
    for (int n = 0; n < NT; ++n) {
      wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b;
      wmma::load_matrix_sync(b, B + i64(k) * ldb + 16 * n, ldb);
#pragma unroll
      for (int e = 0; e < b.num_elements; ++e) b.x[e] = wmma::__float_to_tf32(b.x[e]);
      wmma::mma_sync(c[n], a, b, c[n]);
    }
  }
#pragma unroll
  for (int n = 0; n < NT; ++n) wmma::store_matrix_sync(C + 16 * n, c[n], ldc, wmma::mem_row_major);
#else
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16 * NT; ++j) {
      float s = C[i64(i) * ldc + j];
      for (int k = 0; k < K; ++k) s += tf32_round(A[i64(i) * lda + k]) * tf32_round(B[i64(k) * ldb + j]);
      C[i64(i) * ldc + j] = s;
    }
#endif
}
RECALL_HD inline void warp_mma_tf32_strip(const float* A, int lda, const float* B, int ldb, float* C, int ldc, int K, int width) {
  int j = 0;
  for (; j + 64 <= width; j += 64) warp_mma_tf32<4>(A, lda, B + j, ldb, C + j, ldc, K);
  for (; j + 32 <= width; j += 32) warp_mma_tf32<2>(A, lda, B + j, ldb, C + j, ldc, K);
  for (; j < width; j += 16) warp_mma_tf32<1>(A, lda, B + j, ldb, C + j, ldc, K);
}

// ---- shared-memory carving (byte offsets, every region 128-byte aligned) -----------------------
struct Carve {
  std::size_t off = 0;
  template <class X> RECALL_HD std::size_t take(std::size_t count) {
    off = (off + 127) / 128 * 128;
    const std::size_t o = off;
    off += count * sizeof(X);
    return o;
  }
};
RECALL_HD inline int pad16(int x) { return (x + 15) / 16 * 16; }

}  // namespace recall::gpu
