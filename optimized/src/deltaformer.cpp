// DeltaFormer u-solve (substitution, blocked, product-form inverse) and read-out (see the header).
#include "recall/fault.hpp"
#include "recall/optimized/deltaformer.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace recall::opt {
namespace {

template <class T> using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T> using Vec = Eigen::Matrix<T, 1, Eigen::Dynamic>;

[[noreturn]] void fail(const std::string& what, int b, int h, int t) {
  throw std::invalid_argument("deltaformer: " + what + " at (b=" + std::to_string(b + 1) + ",h=" + std::to_string(h + 1) +
                              ",t=" + std::to_string(t + 1) + ")");
}

// Turn one row of logits z[0..n) (already scaled) into weights in place: exp (unnormalised) or
// softmax by max subtraction; times beta. n == 0: nothing.
template <class T> void weights(T* z, int n, bool normalized, T beta, int b, int h, int t) {
  if (n == 0) return;
  T mx = -std::numeric_limits<T>::infinity();
  for (int i = 0; i < n; ++i) {
    if (!std::isfinite(z[i])) fail("non-finite logit", b, h, t);
    mx = std::max(mx, z[i]);
  }
  Eigen::Map<Vec<T>> r(z, n);
  if (normalized) {
    r = (r.array() - mx).exp();
    const T s = beta / r.sum();  // the max term is 1: s is finite
    r *= s;
  } else {
    r = r.array().exp();
    if (!std::isfinite(std::exp(mx))) fail("kernel value exp(scale k^T k) overflows", b, h, t);
    if (beta != T(1)) r *= beta;
  }
}

}  // namespace

template <class T> void unit_lower_inverse_product(const T* Ap, int n, T* Xp) {
  if (n < 1 || !Ap || !Xp) throw std::invalid_argument("unit_lower_inverse_product: need n >= 1 and non-null pointers");
  Eigen::Map<const Mat<T>> A(Ap, n, n);
  Eigen::Map<Mat<T>> X(Xp, n, n);
  X = -A;
  X.diagonal().array() += T(1);  // X_0 = I - A
  int m = 0;
  while ((1 << m) < n) ++m;  // m = ceil(log2 n); A^(2^m) = 0
  if (m <= 1) return;
  Mat<T> Y = A * A, XY;  // Y_0 = A^2
  for (int i = 1; i <= m - 1; ++i) {
    XY.noalias() = X * Y;
    X += XY;  // X_i = X_{i-1} (I + A^(2^i))
    if (i < m - 1) Y = Y * Y;  // the last Y is not needed
  }
}

template <class T> void deltaformer(const DeltaFormerArgs<T>& a) {
  if (a.B < 1 || a.H < 1 || a.T < 1 || a.dk < 1 || a.dv < 1) throw std::invalid_argument("deltaformer: B, H, T, dk, dv must be >= 1");
  if (!a.q || !a.k || !a.v || !a.u) throw std::invalid_argument("deltaformer: q, k, v and u must not be null");
  if (a.chunk < 1) throw std::invalid_argument("deltaformer: chunk must be >= 1");
  if (!(a.scale >= 0) || !std::isfinite(a.scale)) throw std::invalid_argument("deltaformer: scale must be finite and >= 0");
  const T scale = static_cast<T>(a.scale > 0 ? a.scale : 1.0 / std::sqrt(static_cast<double>(a.dk)));
  const int Tn = a.T, dk = a.dk, dv = a.dv;
  const bool norm = a.normalized;
  for (int b = 0; b < a.B; ++b)
    for (int h = 0; h < a.H; ++h) {
      const std::size_t bh = static_cast<std::size_t>(b) * a.H + h;
      Eigen::Map<const Mat<T>> Q(a.q + bh * Tn * dk, Tn, dk), K(a.k + bh * Tn * dk, Tn, dk), V(a.v + bh * Tn * dv, Tn, dv);
      Eigen::Map<Mat<T>> U(a.u + bh * Tn * dv, Tn, dv);
      const T* beta = a.beta ? a.beta + bh * Tn : nullptr;
      auto bet = [&](int t) { return beta ? beta[t] : T(1); };
      if (a.solve == USolve::substitution) {
        Vec<T> z;
        for (int t = 0; t < Tn; ++t) {
          U.row(t) = V.row(t);
          if (t == 0) continue;
          z.noalias() = (K.topRows(t) * K.row(t).transpose()).transpose();
          z *= scale;
          weights(z.data(), t, norm, bet(t), b, h, t);
          U.row(t).noalias() -= z * U.topRows(t);
        }
      } else {
        const int C = a.chunk;
        Mat<T> W, P, X, Ad;
        for (int s = 0; s < Tn; s += C) {
          const int n = std::min(C, Tn - s), e = s + n;
          W.noalias() = K.middleRows(s, n) * K.topRows(e).transpose();
          W *= scale;
          const int diag = RECALL_FAULT_ON(df_u_diagonal_included) ? 1 : 0;  // fault: the i = t term too
          for (int r = 0; r < n; ++r) {
            const int t = s + r;
            weights(W.row(r).data(), t + diag, norm, bet(t), b, h, t);  // columns i < t
            W.row(r).tail(e - t - diag).setZero();                     // i >= t
          }
          P = V.middleRows(s, n);
          if (s > 0) P.noalias() -= W.leftCols(s) * U.topRows(s);  // off-diagonal part: one GEMM
          if (a.solve == USolve::blocked) {
            for (int r = 0; r < n; ++r) {  // forward substitution on the diagonal block
              if (diag) {  // the fault: the row's own (not yet updated) value enters its update
                const Mat<T> upd = W.row(r).segment(s, r + 1) * P.topRows(r + 1);
                P.row(r) -= upd;
              } else if (r > 0) {
                P.row(r).noalias() -= W.row(r).segment(s, r) * P.topRows(r);
              }
            }
            U.middleRows(s, n) = P;
          } else {
            Ad = W.middleCols(s, n);
            X.resize(n, n);
            unit_lower_inverse_product(Ad.data(), n, X.data());
            U.middleRows(s, n).noalias() = X * P;
          }
        }
      }
      for (int t = 0; t < Tn; ++t)
        for (int c = 0; c < dv; ++c)
          if (!std::isfinite(U(t, c))) fail("u overflows (the triangular system is too ill-conditioned for this precision)", b, h, t);
      if (!a.o) continue;
      // read-out O = M U in row blocks: logits against all keys up to the block's end
      Eigen::Map<Mat<T>> O(a.o + bh * Tn * dv, Tn, dv);
      const int C = std::max(1, a.chunk);
      Mat<T> G;
      for (int s = 0; s < Tn; s += C) {
        const int n = std::min(C, Tn - s), e = s + n;
        G.noalias() = Q.middleRows(s, n) * K.topRows(e).transpose();
        G *= scale;
        for (int r = 0; r < n; ++r) {
          const int t = s + r;
          weights(G.row(r).data(), t + 1, norm, T(1), b, h, t);  // columns i <= t
          G.row(r).tail(e - t - 1).setZero();
        }
        O.middleRows(s, n).noalias() = G * U.topRows(e);
      }
      for (int t = 0; t < Tn; ++t)
        for (int c = 0; c < dv; ++c)
          if (!std::isfinite(O(t, c))) fail("the read-out o overflows", b, h, t);
    }
}

template void deltaformer<float>(const DeltaFormerArgs<float>&);
template void deltaformer<double>(const DeltaFormerArgs<double>&);
template void unit_lower_inverse_product<float>(const float*, int, float*);
template void unit_lower_inverse_product<double>(const double*, int, double*);

}  // namespace recall::opt
