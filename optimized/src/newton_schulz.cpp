// Batched Newton–Schulz-5 (optimized/newton_schulz.hpp): per matrix one normalisation and `steps`
// rounds of three Eigen GEMMs on the short side (r = min(m, n)).
#include "recall/optimized/newton_schulz.hpp"

#include "kernel_support.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace recall::opt {

using namespace support;

template <class T> void newton_schulz(const NewtonSchulzArgs<T>& a) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("newton_schulz: " + what); };
  if (a.batch < 1) fail("batch must be >= 1, got " + std::to_string(a.batch));
  if (a.m < 1) fail("m (rows) must be >= 1, got " + std::to_string(a.m));
  if (a.n < 1) fail("n (columns) must be >= 1, got " + std::to_string(a.n));
  if (a.steps < 0) fail("steps must be >= 0, got " + std::to_string(a.steps));
  if (!(a.eps >= 0) || !std::isfinite(a.eps)) fail("eps must be finite and >= 0");
  if (!std::isfinite(a.coef.a) || !std::isfinite(a.coef.b) || !std::isfinite(a.coef.c)) fail("coefficients (a, b, c) must be finite");
  if (!a.g) fail("g (input) is null");
  if (!a.x) fail("x (output) is null");
  const bool tall = a.m > a.n;
  const Index r = tall ? a.n : a.m, s = tall ? a.m : a.n;
  const T ca = static_cast<T>(a.coef.a), cb = static_cast<T>(a.coef.b), cc = static_cast<T>(a.coef.c);
  RowMat<T> X(r, s), A(r, r), B(r, r), Y(r, s);
  const Index mn = static_cast<Index>(a.m) * a.n;
  for (int i = 0; i < a.batch; ++i) {
    ConstMap<T> G(a.g + i * mn, a.m, a.n);
    if (tall)
      X = G.transpose();
    else
      X = G;
    // stableNorm: no overflow of the sum of squares for entries near the top of the float range
    const T nrm = X.stableNorm() + static_cast<T>(a.eps);
    if (nrm > 0) X /= nrm;  // nrm == 0 only for G = 0 with eps = 0: X stays 0, as NS(0) = 0
    for (int k = 0; k < a.steps; ++k) {
      A.noalias() = X * X.transpose();
      B.noalias() = A * A;
      B = cc * B + cb * A;
      Y.noalias() = B * X;
      X = ca * X + Y;
    }
    MutMap<T> Out(a.x + i * mn, a.m, a.n);
    if (tall)
      Out = X.transpose();
    else
      Out = X;
  }
}

template void newton_schulz<float>(const NewtonSchulzArgs<float>&);
template void newton_schulz<double>(const NewtonSchulzArgs<double>&);

}  // namespace recall::opt
