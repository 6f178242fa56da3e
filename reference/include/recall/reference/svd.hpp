// Singular value decomposition and the pseudo-inverse for the references (spec A001 C7: "linear algebra
// in the reference uses QR/SVD/Cholesky in R, never normal equations when a QR/SVD route exists").
// One-sided Jacobi (Hestenes): orthogonalise the columns of A by plane rotations until every pair is
// orthogonal to the working precision; the column norms are the singular values. Plain loops,
// scalar-generic: with mp_t it is the oracle's SVD, accurate to high *relative* accuracy in every
// singular value (Demmel & Veselic 1992), which is what rank decisions and sigma_min-based bounds
// need; with double it is a same-precision baseline.
#pragma once

#include "recall/reference/matrix.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace recall::ref {

// A = U diag(sigma) V^T, thin: U is m x r, sigma has r = min(m, n) entries in descending order, V is n x r.
template <class S> struct Svd {
  Matrix<S> U, V;
  Vector<S> sigma;
};

namespace detail {
// 10^-d at the current d digits, in S (a double underflows beyond ~308 digits)
template <class S> S ten_to_minus(int d) {
  using std::pow;
  using boost::multiprecision::pow;
  return pow(S(10), S(-d));
}
template <class S> S svd_eps() {
  if constexpr (scalar_traits<S>::is_mp) {
    return ten_to_minus<S>(static_cast<int>(mp_digits()));
  } else {
    return std::numeric_limits<S>::epsilon();
  }
}
// One-sided Jacobi on the columns of A (m x n, m >= n): returns W = A V (columns orthogonal) and V.
template <class S> void jacobi_columns(Matrix<S>& W, Matrix<S>& V, int max_sweeps) {
  using std::abs;
  using std::sqrt;
  using boost::multiprecision::abs;
  using boost::multiprecision::sqrt;
  const std::size_t m = W.rows, n = W.cols;
  V = Matrix<S>(n, n);
  for (std::size_t i = 0; i < n; ++i) V(i, i) = S(1);
  // pairs count as orthogonal at |w_p . w_q| <= m eps |w_p| |w_q| (the rounding level of the dot product
  // itself; a tighter test can stall on rounding noise)
  const S eps = svd_eps<S>() * S(static_cast<double>(std::max<std::size_t>(m, 1)));
  // a column at the rounding level of the whole matrix (|w| <= eps ||A||_F) is numerically zero: rotating
  // it against the others only stirs rounding noise that never tests orthogonal (rank-deficient A)
  S fro2(0);
  for (const S& x : W.a) fro2 += x * x;
  const S negligible2 = eps * eps * fro2;
  for (int sweep = 0; sweep < max_sweeps; ++sweep) {
    bool rotated = false;
    for (std::size_t p = 0; p + 1 < n; ++p)
      for (std::size_t q = p + 1; q < n; ++q) {
        S a(0), b(0), c(0);  // a = |w_p|^2, b = |w_q|^2, c = w_p . w_q
        for (std::size_t i = 0; i < m; ++i) {
          a += W(i, p) * W(i, p);
          b += W(i, q) * W(i, q);
          c += W(i, p) * W(i, q);
        }
        if (c == 0 || a <= negligible2 || b <= negligible2 || abs(c) <= eps * sqrt(a * b)) continue;
        rotated = true;
        // rotation that zeroes the (p, q) entry of the 2 x 2 Gram [[a, c], [c, b]]
        const S zeta = (b - a) / (S(2) * c);
        const S tt = (zeta >= 0 ? S(1) : S(-1)) / (abs(zeta) + sqrt(S(1) + zeta * zeta));
        const S cs = S(1) / sqrt(S(1) + tt * tt), sn = cs * tt;
        for (std::size_t i = 0; i < m; ++i) {
          const S wp = W(i, p), wq = W(i, q);
          W(i, p) = cs * wp - sn * wq;
          W(i, q) = sn * wp + cs * wq;
        }
        for (std::size_t i = 0; i < n; ++i) {
          const S vp = V(i, p), vq = V(i, q);
          V(i, p) = cs * vp - sn * vq;
          V(i, q) = sn * vp + cs * vq;
        }
      }
    if (!rotated) return;
  }
  throw std::runtime_error("svd: one-sided Jacobi did not converge in " + std::to_string(max_sweeps) + " sweeps");
}
}  // namespace detail

// Thin SVD of A (any shape; an empty A gives empty factors). Throws std::invalid_argument on a
// non-finite entry (naming its position) and std::runtime_error if Jacobi does not converge.
template <class S> Svd<S> svd(const Matrix<S>& A, int max_sweeps = 80) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  for (std::size_t i = 0; i < A.rows; ++i)
    for (std::size_t j = 0; j < A.cols; ++j) {
      using std::isfinite;
      using boost::multiprecision::isfinite;
      require(static_cast<bool>(isfinite(A(i, j))),
              "svd: entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) + ") of the matrix is not finite");
    }
  const bool wide = A.rows < A.cols;
  Matrix<S> W = wide ? transpose(A) : A, Vr;
  detail::jacobi_columns(W, Vr, max_sweeps);
  const std::size_t m = W.rows, n = W.cols;
  Vector<S> s(n);
  for (std::size_t j = 0; j < n; ++j) {
    S acc(0);
    for (std::size_t i = 0; i < m; ++i) acc += W(i, j) * W(i, j);
    s[j] = sqrt(acc);
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return s[x] > s[y]; });
  Svd<S> out;
  Matrix<S> Ul(m, n), Vl(n, n);
  out.sigma.resize(n);
  for (std::size_t jj = 0; jj < n; ++jj) {
    const std::size_t j = order[jj];
    out.sigma[jj] = s[j];
    for (std::size_t i = 0; i < m; ++i) Ul(i, jj) = s[j] > 0 ? S(W(i, j) / s[j]) : S(0);
    for (std::size_t i = 0; i < n; ++i) Vl(i, jj) = Vr(i, j);
  }
  // A^T = Ul S Vl^T when wide, so A = Vl S Ul^T
  if (wide) {
    out.U = std::move(Vl);
    out.V = std::move(Ul);
  } else {
    out.U = std::move(Ul);
    out.V = std::move(Vl);
  }
  return out;
}

// Numerical rank: the number of singular values above rel_tol * sigma_max (0 for a zero matrix).
template <class S> std::size_t numerical_rank(const Vector<S>& sigma, const S& rel_tol) {
  if (sigma.empty() || !(sigma[0] > 0)) return 0;
  std::size_t r = 0;
  for (const S& x : sigma)
    if (x > rel_tol * sigma[0]) ++r;
  return r;
}

// Default rank threshold of the references (spec A001-LS-CLOSED-FORM): sigma_i > 10^-(d - 10) sigma_max
// at d working digits; for float/double 10 * n * eps (LAPACK's customary choice).
template <class S> S default_rank_tol(std::size_t n) {
  if constexpr (scalar_traits<S>::is_mp) {
    return detail::ten_to_minus<S>(static_cast<int>(mp_digits()) - 10);
  } else {
    return S(10) * S(static_cast<double>(std::max<std::size_t>(n, 1))) * std::numeric_limits<S>::epsilon();
  }
}

// Moore-Penrose pseudo-inverse A^+ (n x m) through the SVD, dropping sigma_i <= rel_tol * sigma_max.
// *rank_used receives the rank kept.
template <class S> Matrix<S> pinv(const Matrix<S>& A, const S& rel_tol, std::size_t* rank_used = nullptr) {
  const Svd<S> d = svd(A);
  const std::size_t r = numerical_rank(d.sigma, rel_tol);
  if (rank_used) *rank_used = r;
  Matrix<S> P(A.cols, A.rows);
  for (std::size_t k = 0; k < r; ++k) {
    const S inv = S(1) / d.sigma[k];
    for (std::size_t i = 0; i < A.cols; ++i) {
      const S vi = d.V(i, k) * inv;
      for (std::size_t j = 0; j < A.rows; ++j) P(i, j) += vi * d.U(j, k);
    }
  }
  return P;
}
template <class S> Matrix<S> pinv(const Matrix<S>& A) { return pinv(A, default_rank_tol<S>(std::max(A.rows, A.cols))); }

}  // namespace recall::ref
