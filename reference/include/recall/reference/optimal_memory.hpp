// Optimal memory of DeltaNet under the expected objective (paper A000 §2.2.2, Eqs. 44-48; App. 11,
// Eqs. 112-116), written from the definitions; spec IDs A000-DELTANET-OPT, A000-DELTANET-OPT-SQ,
// A000-MULTIHEAD-OPT, A000-MULTIHEAD-DEP, A000-ICL-CONV.
//
// Shapes: x in R^d, Sigma = E[x x^T] (d x d, symmetric positive definite), W_k (d_h x d), W_v (d_v x d),
// memory M (d_v x d_h) with read-out M k, k = W_k x, v = W_v x. Inverses are never formed: every
// (.)^{-1} of the printed formulas is a Cholesky solve (symmetric positive definite systems) or an LU
// solve with partial pivoting (Eq. 47). A system that is singular to the declared tolerance (pivot
// <= ref::default_rank_tol * max diagonal) throws std::invalid_argument naming the matrix and the
// equation, as do wrong shapes, non-finite entries and a non-symmetric Sigma.
#pragma once

#include "recall/reference/delta_rule.hpp"
#include "recall/reference/least_squares.hpp"
#include "recall/reference/matrix.hpp"
#include "recall/reference/svd.hpp"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace recall::ref {

namespace detail_om {
template <class S> S abs_(const S& x) { return x < S(0) ? S(-x) : x; }
template <class S> void require_finite(const Matrix<S>& X, const std::string& who, const char* name) {
  for (std::size_t i = 0; i < X.rows; ++i)
    for (std::size_t j = 0; j < X.cols; ++j)
      require(is_finite(X(i, j)), who + ": entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) + ") of " + name + " is not finite");
}
// W_k (d_h x d), W_v (d_v x d), Sigma (d x d, symmetric to the declared tolerance), all finite and non-empty
template <class S> void check_inputs(const Matrix<S>& Wk, const Matrix<S>& Wv, const Matrix<S>* Sigma, const std::string& who) {
  require(!Wk.empty() && !Wv.empty(), who + ": W_k and W_v must be non-empty");
  require(Wv.cols == Wk.cols, who + ": W_v must have d = " + std::to_string(Wk.cols) + " columns (those of W_k), got " + std::to_string(Wv.cols));
  require_finite(Wk, who, "W_k");
  require_finite(Wv, who, "W_v");
  if (!Sigma) return;
  const std::size_t d = Wk.cols;
  require(Sigma->rows == d && Sigma->cols == d, who + ": Sigma = E[x x^T] must be d x d with d = " + std::to_string(d) + " (the columns of W_k)");
  require_finite(*Sigma, who, "Sigma");
  S m(0);
  for (const S& x : Sigma->a) m = std::max(m, abs_(x));
  const S tol = default_rank_tol<S>(d) * m;
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < i; ++j)
      require(abs_(S((*Sigma)(i, j) - (*Sigma)(j, i))) <= tol,
              who + ": Sigma = E[x x^T] is not symmetric (entries (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) + ") and (" +
                  std::to_string(j + 1) + ", " + std::to_string(i + 1) + "))");
}
// A B^T with the result symmetrised from its lower triangle when `sym` (A B^T symmetric in exact arithmetic)
template <class S> Matrix<S> mul_bt(const Matrix<S>& A, const Matrix<S>& B, bool sym = false) {
  require(A.cols == B.cols, "mul_bt: inner dimensions differ");
  Matrix<S> C(A.rows, B.rows);
  for (std::size_t i = 0; i < A.rows; ++i)
    for (std::size_t j = 0; j < B.rows; ++j) {
      if (sym && j > i) continue;
      C(i, j) = dot(A.row(i), B.row(j), A.cols);
    }
  if (sym)
    for (std::size_t i = 0; i < C.rows; ++i)
      for (std::size_t j = i + 1; j < C.cols; ++j) C(i, j) = C(j, i);
  return C;
}
}  // namespace detail_om

// A^{-1} X for a symmetric positive definite A (n x n) and X (n x m), by Cholesky, column by column.
// A singular to the declared tolerance throws, naming `name` and the caller `who`.
template <class S> Matrix<S> spd_solve(const Matrix<S>& A, const Matrix<S>& X, const std::string& who, const char* name) {
  require(A.rows == A.cols && X.rows == A.rows, who + ": " + name + " must be n x n and the right-hand side n x m");
  const Matrix<S> L = cholesky_lower(A, default_rank_tol<S>(A.rows), who, name);
  Matrix<S> Y(X.rows, X.cols);
  Vector<S> b(X.rows);
  for (std::size_t j = 0; j < X.cols; ++j) {
    for (std::size_t i = 0; i < X.rows; ++i) b[i] = X(i, j);
    const Vector<S> y = cholesky_solve(L, b);
    for (std::size_t i = 0; i < X.rows; ++i) Y(i, j) = y[i];
  }
  return Y;
}

// X A^{-1} for a square A (n x n) and X (m x n), i.e. the solution of Y A = X, by LU with partial pivoting
// of A^T (A^T Y^T = X^T). A pivot <= default_rank_tol * max |A_ij| declares A singular (named).
template <class S> Matrix<S> right_solve_lu(const Matrix<S>& X, const Matrix<S>& A, const std::string& who, const char* name) {
  require(A.rows == A.cols && X.cols == A.rows, who + ": " + name + " must be n x n and the left-hand side m x n");
  const std::size_t n = A.rows;
  Matrix<S> M = transpose(A), R = transpose(X);  // M Y^T = R
  S amax(0);
  for (const S& x : M.a) amax = std::max(amax, detail_om::abs_(x));
  const S tol = default_rank_tol<S>(n) * amax;
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t p = c;
    for (std::size_t r = c + 1; r < n; ++r)
      if (detail_om::abs_(M(r, c)) > detail_om::abs_(M(p, c))) p = r;
    require(detail_om::abs_(M(p, c)) > tol && amax > S(0),
            who + ": " + name + " is singular to the declared tolerance (LU pivot " + std::to_string(c + 1) + " <= tol * max |entry|)");
    if (p != c) {
      for (std::size_t j = 0; j < n; ++j) std::swap(M(c, j), M(p, j));
      for (std::size_t j = 0; j < R.cols; ++j) std::swap(R(c, j), R(p, j));
    }
    for (std::size_t r = c + 1; r < n; ++r) {
      const S f = M(r, c) / M(c, c);
      for (std::size_t j = c; j < n; ++j) M(r, j) -= f * M(c, j);
      for (std::size_t j = 0; j < R.cols; ++j) R(r, j) -= f * R(c, j);
    }
  }
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = 0; j < R.cols; ++j) {
      S s = R(i, j);
      for (std::size_t k = i + 1; k < n; ++k) s -= M(i, k) * R(k, j);
      R(i, j) = s / M(i, i);
    }
  return transpose(R);
}

// A000-DELTANET-OPT Eq. 45 as expanded in App. 11: L(M) = tr(1/2 (M W_k - W_v)^T (M W_k - W_v) Sigma)
// = E_x[1/2 ||M W_k x - W_v x||^2] for E[x x^T] = Sigma.
template <class S> S expected_memory_loss(const Matrix<S>& M, const Matrix<S>& Wk, const Matrix<S>& Wv, const Matrix<S>& Sigma) {
  detail_om::check_inputs(Wk, Wv, &Sigma, "expected_memory_loss");
  require(M.rows == Wv.rows && M.cols == Wk.rows, "expected_memory_loss: the memory M must be d_v x d_h");
  Matrix<S> R = matmul(M, Wk);  // M W_k - W_v (d_v x d)
  for (std::size_t i = 0; i < R.a.size(); ++i) R.a[i] -= Wv.a[i];
  const Matrix<S> G = matmul(transpose(R), R);  // (M W_k - W_v)^T (M W_k - W_v), d x d
  S tr(0);
  for (std::size_t i = 0; i < G.rows; ++i)
    for (std::size_t j = 0; j < G.cols; ++j) muladd(tr, G(i, j), Sigma(j, i));  // tr(G Sigma)
  return tr / S(2);
}

// A000-DELTANET-OPT Eq. 115: dL/dM = (M W_k - W_v) Sigma W_k^T.
template <class S> Matrix<S> expected_memory_loss_grad(const Matrix<S>& M, const Matrix<S>& Wk, const Matrix<S>& Wv, const Matrix<S>& Sigma) {
  detail_om::check_inputs(Wk, Wv, &Sigma, "expected_memory_loss_grad");
  require(M.rows == Wv.rows && M.cols == Wk.rows, "expected_memory_loss_grad: the memory M must be d_v x d_h");
  Matrix<S> R = matmul(M, Wk);
  for (std::size_t i = 0; i < R.a.size(); ++i) R.a[i] -= Wv.a[i];
  return matmul(matmul(R, Sigma), transpose(Wk));
}

// A000-DELTANET-OPT Eq. 46 (= Eq. 116): S* = (W_v Sigma W_k^T)(W_k Sigma W_k^T)^{-1}, by Cholesky solves of
// (W_k Sigma W_k^T) s_i = (W_v Sigma W_k^T)_i^T for each row i. A singular W_k Sigma W_k^T (rank-deficient W_k)
// throws: Eq. 46 is then undefined and the minimisers of Eq. 45 form an affine set.
template <class S> Matrix<S> optimal_memory(const Matrix<S>& Wk, const Matrix<S>& Wv, const Matrix<S>& Sigma) {
  const std::string who = "optimal_memory (Eq. 46)";
  detail_om::check_inputs(Wk, Wv, &Sigma, who);
  const Matrix<S> SWkT = matmul(Sigma, transpose(Wk));                  // Sigma W_k^T, d x d_h
  const Matrix<S> B = matmul(Wv, SWkT);                                 // W_v Sigma W_k^T, d_v x d_h
  const Matrix<S> A = detail_om::mul_bt(Wk, transpose(SWkT), true);     // W_k Sigma W_k^T, d_h x d_h
  try {
    return transpose(spd_solve(A, transpose(B), who, "W_k Sigma W_k^T"));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(e.what()) + ": Eq. 46 is undefined (rank-deficient W_k; the minimisers of Eq. 45 form an affine set)");
  }
}

// A000-DELTANET-OPT-SQ Eq. 47: S* = W_v W_k^{-1} for a square invertible W_k, by an LU solve of S W_k = W_v.
template <class S> Matrix<S> optimal_memory_square(const Matrix<S>& Wk, const Matrix<S>& Wv) {
  const std::string who = "optimal_memory_square (Eq. 47)";
  detail_om::check_inputs(Wk, Wv, static_cast<const Matrix<S>*>(nullptr), who);
  require(Wk.rows == Wk.cols, who + ": W_k must be square (d_h = d), got " + std::to_string(Wk.rows) + " x " + std::to_string(Wk.cols));
  return right_solve_lu(Wv, Wk, who, "W_k");
}

// Moore-Penrose pseudo-inverse of a full-row-rank W_k (d_h <= d): W_k^+ = W_k^T (W_k W_k^T)^{-1}, computed as
// ((W_k W_k^T)^{-1} W_k)^T by Cholesky solves (W_k W_k^T is symmetric positive definite iff W_k has full row rank).
template <class S> Matrix<S> pinv_full_row_rank(const Matrix<S>& Wk) {
  const std::string who = "pinv_full_row_rank";
  require(!Wk.empty() && Wk.rows <= Wk.cols, who + ": W_k must be d_h x d with 1 <= d_h <= d");
  detail_om::require_finite(Wk, who, "W_k");
  return transpose(spd_solve(detail_om::mul_bt(Wk, Wk, true), Wk, who, "W_k W_k^T (W_k is not of full row rank)"));
}

// A000-MULTIHEAD-OPT Eq. 48 as printed: S = W_v Sigma W_k^+ W_k Sigma^{-1} W_k^+, with Sigma^{-1} W_k^+ by a Cholesky
// solve and W_k^+ = pinv_full_row_rank(W_k) (full row rank required).
template <class S> Matrix<S> optimal_memory_multihead(const Matrix<S>& Wk, const Matrix<S>& Wv, const Matrix<S>& Sigma) {
  const std::string who = "optimal_memory_multihead (Eq. 48)";
  detail_om::check_inputs(Wk, Wv, &Sigma, who);
  const Matrix<S> Wp = pinv_full_row_rank(Wk);                                               // d x d_h
  const Matrix<S> SinvWp = spd_solve(Sigma, Wp, who, "Sigma = E[x x^T] (not positive definite)");  // Sigma^{-1} W_k^+
  return matmul(matmul(matmul(matmul(Wv, Sigma), Wp), Wk), SinvWp);
}

// A000-ICL-CONV: one DeltaNet step (Table 2 row 3 with a step beta) on the memory M (d_v x d_h):
// M <- M - beta (M k - v) k^T = M (I - beta k k^T) + beta v k^T; pred is scratch of length d_v.
// The step is ref::delta_rule's (reference/delta_rule.hpp), on one token.
template <class S> void deltanet_step(Matrix<S>& M, const S* k, const S* v, const S& beta, Vector<S>& pred) {
  pred.resize(M.rows);
  detail::delta_step(M, pred, S(1), beta, S(1), k, v);
}

}  // namespace recall::ref
