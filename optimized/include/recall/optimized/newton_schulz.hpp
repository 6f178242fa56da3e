// Batched Newton–Schulz orthogonalisation (A002-NEWTON-SCHULZ, A002-ATLAS-NS-BATCH): the iteration of
// public Muon code (external coefficients, spec A002-NEWTON-SCHULZ) on many independent m x n matrices.
// Instantiated for float and double in optimized/src/newton_schulz.cpp.
//
// For every matrix G (row-major, contiguous, `batch` of them back to back):
//   X = G, transposed when m > n (so X is r x s with r = min(m, n));  X <- X / (||X||_F + eps);
//   `steps` times: A = X X^T (r x r), B = b A + c A^2, X <- a X + B X;  transposed back when m > n.
// Spectral action (A002-NS-SPECTRAL): singular vectors are kept and every singular value sigma of
// X_0 = G / (||G||_F + eps) goes through p(s) = a s + b s^3 + c s^5 `steps` times.
// The work per step is 2 r^2 s (A) + 2 r^3 (A^2) + 2 r^2 s (B X) multiply-adds, all Eigen GEMMs.
#pragma once

namespace recall::opt {

// The quintic of public Muon code (KellerJordan/Muon, zeropower_via_newtonschulz5): external constants.
struct NewtonSchulzCoefficients {
  double a = 3.4445, b = -4.7750, c = 2.0315;
};

template <class Scalar> struct NewtonSchulzArgs {
  int batch = 1, m = 0, n = 0;       // `batch` matrices of m x n
  int steps = 5;                     // k >= 0 iterations
  double eps = 1e-7;                 // added to the Frobenius norm before the division
  NewtonSchulzCoefficients coef;     // (a, b, c)
  const Scalar* g = nullptr;         // [batch, m, n] inputs
  Scalar* x = nullptr;               // [batch, m, n] outputs (may alias g)
};

// Throws std::invalid_argument naming the argument for null pointers, batch/m/n < 1, steps < 0,
// eps < 0 or a non-finite coefficient. Non-finite input entries are not trapped here (the caller
// validates; the registry's validate names them).
template <class T> void newton_schulz(const NewtonSchulzArgs<T>& a);

extern template void newton_schulz<float>(const NewtonSchulzArgs<float>&);
extern template void newton_schulz<double>(const NewtonSchulzArgs<double>&);

}  // namespace recall::opt
