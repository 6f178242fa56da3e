// DeltaFormer u-solve and read-out on the CPU (A000-DELTAFORMER-U, A000-DELTAFORMER-NORM,
// A000-UMATRIX, the chunked fast form of A000-CHUNKED / A000-CHUNKED-GEN, A000-TRIINV(-ITER)).
//
//   (I + A) U = V,   A strictly lower:  A_ti = beta_t kappa(k_i, k_t)           (unnormalised)
//                                       A_ti = beta_t softmax_{i<t}(s k_i^T k_t) (normalised, row 1 zero)
//   O = M U,  M_ti = kappa(k_i, q_t) (i <= t)  or  softmax_{i<=t}(s k_i^T q_t) (normalised),
// kappa(x, y) = exp(s x^T y), s = scale (1/tau; 0 selects 1/sqrt(dk)), beta = 1 when null.
//
// Layout: q, k: [B,H,T,dk], v, u, o: [B,H,T,dv], beta: [B,H,T]; row-major contiguous.
// Solvers:
//   substitution     plain forward substitution row by row (u_t = v_t - sum_{i<t} A_ti u_i, GEMVs)
//   blocked          chunks of C rows: off-diagonal part P = V_c - A_{c,<s} U_{<s} as one GEMM,
//                    the C x C diagonal block solved by forward substitution
//   product_inverse  as blocked, but the diagonal block through its product-form inverse
//                    (I + A)^{-1} = (I - A) prod_{i=1}^{m-1} (I + A^{2^i}), m = ceil(log2 C), computed by
//                    the doubling iteration X <- X + X Y, Y <- Y^2 (Eq. 100); U_c = X P_c.
//                    Its rounding error scales with |I - A| prod |I + A^{2^i}| = sum_k |A|^k, which
//                    for a non-negative A is far above |(I + A)^{-1}| once ||A|| >~ 1: accurate for the
//                    normalised kernel (rows sum to beta_t), not for a large unnormalised one.
// Softmax weights use max subtraction and log-sum-exp. A non-finite logit or kernel value, or a
// non-finite u or o (overflow: u can grow like |1 - a|^T), throws std::invalid_argument, as do null
// pointers, sizes < 1 and chunk < 1.
#pragma once

namespace recall::opt {

enum class USolve { substitution, blocked, product_inverse };

template <class Scalar> struct DeltaFormerArgs {
  int B = 1, H = 1, T = 0, dk = 0, dv = 0;
  const Scalar* q = nullptr;     // [B,H,T,dk]
  const Scalar* k = nullptr;     // [B,H,T,dk]
  const Scalar* v = nullptr;     // [B,H,T,dv]
  const Scalar* beta = nullptr;  // [B,H,T], nullptr = ones
  Scalar* u = nullptr;           // [B,H,T,dv] (required)
  Scalar* o = nullptr;           // [B,H,T,dv], nullptr = read-out not wanted
  double scale = 0;              // 1/tau; 0 = 1/sqrt(dk)
  bool normalized = false;       // softmax-normalised kernel (A000-DELTAFORMER-NORM)
  int chunk = 64;                // C (blocked / product_inverse)
  USolve solve = USolve::blocked;
};

template <class T> void deltaformer(const DeltaFormerArgs<T>& a);

// (I + A)^{-1} of a strictly lower n x n block A (row-major) by the doubling iteration of
// A000-TRIINV-ITER (Eq. 100), m = ceil(log2 n) factors; X: n x n row-major output.
template <class T> void unit_lower_inverse_product(const T* A, int n, T* X);

extern template void deltaformer<float>(const DeltaFormerArgs<float>&);
extern template void deltaformer<double>(const DeltaFormerArgs<double>&);
extern template void unit_lower_inverse_product<float>(const float*, int, float*);
extern template void unit_lower_inverse_product<double>(const double*, int, double*);

}  // namespace recall::opt
