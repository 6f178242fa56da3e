// Internal helpers shared by the Eigen CPU kernels (not installed): the Eigen aliases, the shape
// and pointer checks of the [B,H,T,d] argument structs, and a log-domain exp that does not flush.
#pragma once

#include <Eigen/Dense>

#include <cmath>
#include <stdexcept>
#include <string>

namespace recall::opt::support {

using Index = Eigen::Index;
template <class T> using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T> using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <class T> using ConstMap = Eigen::Map<const RowMat<T>>;
template <class T> using MutMap = Eigen::Map<RowMat<T>>;

// Shape and pointer checks common to the argument structs with B, H, T, dk, dv, chunk, q, k, v, o
// (std::invalid_argument naming the kernel and the argument). The token tensors are required only
// when T > 0 (with no tokens they are never read).
template <class Args> void validate_bhtd(const Args& a, const char* who, bool chunked) {
  auto fail = [&](const std::string& what) { throw std::invalid_argument(std::string(who) + ": " + what); };
  if (a.B < 1) fail("B (batch) must be >= 1, got " + std::to_string(a.B));
  if (a.H < 1) fail("H (heads) must be >= 1, got " + std::to_string(a.H));
  if (a.T < 0) fail("T (tokens) must be >= 0, got " + std::to_string(a.T));
  if (a.dk < 1) fail("dk (key width) must be >= 1, got " + std::to_string(a.dk));
  if (a.dv < 1) fail("dv (value width) must be >= 1, got " + std::to_string(a.dv));
  if (chunked && a.chunk < 1) fail("chunk (chunk size) must be >= 1, got " + std::to_string(a.chunk));
  if (a.T > 0) {
    if (!a.q) fail("q is null (required when T > 0)");
    if (!a.k) fail("k is null (required when T > 0)");
    if (!a.v) fail("v is null (required when T > 0)");
    if (!a.o) fail("o is null (required when T > 0)");
  }
}

// Below log(min normal) Eigen's vectorised exp flushes (float) or clamps (double: exp(-inf) would
// come out as ~5e-309); such entries are recomputed with std::exp, which gives exact 0 for -inf.
template <class T> constexpr T exp_lo() { return sizeof(T) == 4 ? T(-87.0) : T(-708.0); }

template <class T> inline void exp_row(const T* x, T* y, Index n) {
  Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> Y(y, n);
  Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> X(x, n);
  Y = X.exp();
  if (X.minCoeff() < exp_lo<T>())
    for (Index i = 0; i < n; ++i)
      if (x[i] < exp_lo<T>()) y[i] = std::exp(x[i]);
}

}  // namespace recall::opt::support
