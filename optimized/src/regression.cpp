// Eigen CPU kernels of the test-time-regression layers; see recall/optimized/regression.hpp.
#include "recall/optimized/regression.hpp"
#include "kernel_support.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace recall::opt {
namespace {

using namespace support;
template <class T> using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

// x = A^{-1} b for a symmetric positive semi-definite A (lower triangle used): Cholesky, or the
// minimum-norm solution through a complete orthogonal decomposition when Cholesky breaks down.
template <class T, class B> Mat<T> spd_solve(const Mat<T>& A, const B& b) {
  Eigen::LLT<Mat<T>> llt(A);
  if (llt.info() == Eigen::Success) {
    Mat<T> x = llt.solve(b);
    if (x.allFinite()) return x;
  }
  Mat<T> full = A.template selfadjointView<Eigen::Lower>();
  return Eigen::CompleteOrthogonalDecomposition<Mat<T>>(full).solve(b);
}

template <class T>
void ls_head(Index Tn, Index dk, Index dv, const T* q, const T* k, const T* v, const T* lg, T* o, T* sfin) {
  ConstMap<T> Q(q, Tn, dk), K(k, Tn, dk), V(v, Tn, dv);
  MutMap<T> O(o, Tn, dv);
  Mat<T> S = Mat<T>::Zero(dk, dk), R = Mat<T>::Zero(dv, dk);
  std::vector<Index> idx;  // the non-zero keys since the last zero gate (a zero key carries nothing)
  for (Index t = 0; t < Tn; ++t) {
    if (lg) {
      const T a = std::exp(lg[t]);  // exact 0 for -inf (and for a decay below T's range: a reset in T)
      if (a == T(0)) {
        idx.clear();
        S.setZero();
        R.setZero();
      } else if (a != T(1)) {
        S.template triangularView<Eigen::Lower>() *= a;
        R *= a;
      }
    }
    const auto kt = K.row(t).transpose();
    S.template selfadjointView<Eigen::Lower>().rankUpdate(kt);
    R.noalias() += V.row(t).transpose() * K.row(t);
    if (!K.row(t).isZero(0)) idx.push_back(t);
    const Index n = static_cast<Index>(idx.size());
    const bool last = sfin && t + 1 == Tn;
    if (n >= dk) {
      const Mat<T> z = spd_solve<T>(S, Q.row(t).transpose());
      O.row(t).noalias() = (R * z).transpose();
      if (last) {
        const Mat<T> MT = spd_solve<T>(S, R.transpose());  // S^{-1} R^T = M^T (S symmetric)
        MutMap<T>(sfin, dv, dk) = MT.transpose();
      }
    } else if (n == 0) {
      O.row(t).setZero();
      if (last) MutMap<T>(sfin, dv, dk).setZero();
    } else {
      Mat<T> Kn(n, dk), Vn(n, dv);
      for (Index i = 0; i < n; ++i) {
        Kn.row(i) = K.row(idx[i]);
        Vn.row(i) = V.row(idx[i]);
      }
      Mat<T> G = Mat<T>::Zero(n, n);
      G.template selfadjointView<Eigen::Lower>().rankUpdate(Mat<T>(Kn));
      const Mat<T> w = spd_solve<T>(G, Kn * Q.row(t).transpose());
      O.row(t).noalias() = (Vn.transpose() * w).transpose();
      if (last) {
        const Mat<T> W = spd_solve<T>(G, Mat<T>(Kn));  // (K K^T)^{-1} K : n x dk
        MutMap<T>(sfin, dv, dk) = Vn.transpose() * W;
      }
    }
  }
  if (sfin && Tn == 0) MutMap<T>(sfin, dv, dk).setZero();
}

template <class T>
void local_linear_head(Index Tn, Index dk, Index dv, Index C, T scale, const T* q, const T* k, const T* v, T* o) {
  ConstMap<T> Q(q, Tn, dk), K(k, Tn, dk), V(v, Tn, dv);
  MutMap<T> O(o, Tn, dv);
  const Index n1 = 1 + dk;
  Mat<T> Sdd(dk, dk), Svd(dv, dk), Dblk(C, dk), G(n1, n1), Rhs(n1, dv);
  Vec<T> sd(dk), sv(dv), z(C), w(C);
  for (Index t = 0; t < Tn; ++t) {
    const auto qt = Q.row(t);
    const Index n = t + 1;
    if (n <= dk) {
      // singular system: the minimum-norm (PINV) reading; positive weights cancel (header comment): the
      // interpolation X Theta^T = V_n solved by a complete orthogonal decomposition of X (n x (1 + dk)), which
      // is backward stable, rather than through the Gram X X^T (which squares X's condition)
      Mat<T> X(n, n1);
      X.col(0).setOnes();
      X.rightCols(dk) = K.topRows(n).rowwise() - qt;
      const Mat<T> Th = Eigen::CompleteOrthogonalDecomposition<Mat<T>>(X).solve(Mat<T>(V.topRows(n)));
      O.row(t) = Th.row(0);
      continue;
    }
    T m = -std::numeric_limits<T>::infinity(), s0 = 0;
    sd.setZero();
    sv.setZero();
    Sdd.setZero();
    Svd.setZero();
    for (Index s = 0; s < n; s += C) {
      const Index b = std::min(C, n - s);
      const auto Kb = K.middleRows(s, b);
      const auto Vb = V.middleRows(s, b);
      z.head(b).noalias() = scale * (Kb * qt.transpose());
      const T mb = z.head(b).maxCoeff();
      if (mb > m) {
        if (m != -std::numeric_limits<T>::infinity()) {
          const T r = std::exp(m - mb);
          s0 *= r;
          sd *= r;
          sv *= r;
          Sdd *= r;
          Svd *= r;
        }
        m = mb;
      }
      z.head(b).array() -= m;
      exp_row(z.data(), w.data(), b);
      auto Db = Dblk.topRows(b);
      Db = Kb.rowwise() - qt;
      s0 += w.head(b).sum();
      sd.noalias() += Db.transpose() * w.head(b);
      sv.noalias() += Vb.transpose() * w.head(b);
      const Mat<T> WD = w.head(b).asDiagonal() * Db;
      Sdd.template selfadjointView<Eigen::Lower>().rankUpdate(Db.transpose() * w.head(b).cwiseSqrt().asDiagonal());
      Svd.noalias() += Vb.transpose() * WD;
    }
    G(0, 0) = s0;
    G.block(1, 0, dk, 1) = sd;
    G.bottomRightCorner(dk, dk).template triangularView<Eigen::Lower>() = Sdd.template triangularView<Eigen::Lower>();
    Rhs.row(0) = sv.transpose();
    Rhs.bottomRows(dk) = Svd.transpose();
    const Mat<T> Th = spd_solve<T>(G, Rhs);  // (1 + dk) x dv: Theta^T
    O.row(t) = Th.row(0);
  }
}

template <class T> void check(const RegressionArgs<T>& a, const char* who) { validate_bhtd(a, who, true); }

}  // namespace

template <class T> void least_squares_scan_solve(const RegressionArgs<T>& a) {
  check(a, "least_squares_scan_solve");
  const Index Tn = a.T, dk = a.dk, dv = a.dv;
  for (Index bh = 0; bh < Index(a.B) * a.H; ++bh)
    ls_head<T>(Tn, dk, dv, a.q + bh * Tn * dk, a.k + bh * Tn * dk, a.v + bh * Tn * dv, a.log_gate ? a.log_gate + bh * Tn : nullptr,
               a.o + bh * Tn * dv, a.s_final ? a.s_final + bh * dv * dk : nullptr);
}

template <class T> void local_linear_attention_stream(const RegressionArgs<T>& a, T scale) {
  check(a, "local_linear_attention_stream");
  const Index Tn = a.T, dk = a.dk, dv = a.dv;
  for (Index bh = 0; bh < Index(a.B) * a.H; ++bh)
    local_linear_head<T>(Tn, dk, dv, a.chunk, scale, a.q + bh * Tn * dk, a.k + bh * Tn * dk, a.v + bh * Tn * dv, a.o + bh * Tn * dv);
}

template void least_squares_scan_solve<float>(const RegressionArgs<float>&);
template void least_squares_scan_solve<double>(const RegressionArgs<double>&);
template void local_linear_attention_stream<float>(const RegressionArgs<float>&, float);
template void local_linear_attention_stream<double>(const RegressionArgs<double>&, double);

}  // namespace recall::opt
