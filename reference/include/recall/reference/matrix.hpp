// A plain dense row-major matrix for the references: no expression templates, no tricks, so
// the references read as the definitions. Tokens are rows (Q, K, V: T x d).
#pragma once

#include "recall/reference/scalar.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace recall::ref {

template <class S> struct Matrix {
  std::size_t rows = 0, cols = 0;
  std::vector<S> a;

  Matrix() = default;
  Matrix(std::size_t r, std::size_t c) : rows(r), cols(c), a(r * c, S(0)) {}
  S& operator()(std::size_t i, std::size_t j) { return a[i * cols + j]; }
  const S& operator()(std::size_t i, std::size_t j) const { return a[i * cols + j]; }
  S* row(std::size_t i) { return a.data() + i * cols; }
  const S* row(std::size_t i) const { return a.data() + i * cols; }
  bool empty() const { return rows == 0 || cols == 0; }
};

template <class S> using Vector = std::vector<S>;

template <class To, class From> Matrix<To> cast(const Matrix<From>& m) {
  Matrix<To> out(m.rows, m.cols);
  for (std::size_t i = 0; i < m.a.size(); ++i) out.a[i] = convert<To>(m.a[i]);
  return out;
}
template <class To, class From> Vector<To> cast(const Vector<From>& v) {
  Vector<To> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = convert<To>(v[i]);
  return out;
}

// the n x n identity (deltaformer.hpp and memory_objectives.hpp each had a copy)
template <class S> Matrix<S> identity_matrix(std::size_t n) {
  Matrix<S> I(n, n);
  for (std::size_t i = 0; i < n; ++i) I(i, i) = S(1);
  return I;
}

template <class S> Matrix<S> transpose(const Matrix<S>& m) {
  Matrix<S> t(m.cols, m.rows);
  for (std::size_t i = 0; i < m.rows; ++i)
    for (std::size_t j = 0; j < m.cols; ++j) t(j, i) = m(i, j);
  return t;
}

// y = M x into existing storage y[0..r) (M: r x c, x: c); no allocation
template <class S> void matvec_into(S* y, const Matrix<S>& M, const S* x) {
  const MulAddCtx<S> ctx;
  for (std::size_t i = 0; i < M.rows; ++i) {
    const S* r = M.row(i);
    S& acc = y[i];
    acc = 0;
    for (std::size_t j = 0; j < M.cols; ++j) muladd(acc, r[j], x[j], ctx);
  }
}
template <class S> Vector<S> matvec(const Matrix<S>& M, const S* x) {
  Vector<S> y(M.rows, S(0));
  matvec_into(y.data(), M, x);
  return y;
}
// acc = x^T y into existing storage (no allocation)
template <class S> void dot_into(S& acc, const S* x, const S* y, std::size_t n) {
  const MulAddCtx<S> ctx;
  acc = 0;
  for (std::size_t i = 0; i < n; ++i) muladd(acc, x[i], y[i], ctx);
}
template <class S> S dot(const S* x, const S* y, std::size_t n) {
  S acc(0);
  dot_into(acc, x, y, n);
  return acc;
}
// M += c * a b^T  (rank-one update, a: rows, b: cols)
template <class S> void add_outer(Matrix<S>& M, const S& c, const S* a, const S* b) {
  const MulAddCtx<S> ctx;
  S ca;
  for (std::size_t i = 0; i < M.rows; ++i) {
    mul_into(ca, c, a[i]);
    S* r = M.row(i);
    for (std::size_t j = 0; j < M.cols; ++j) muladd(r[j], ca, b[j], ctx);
  }
}
// M += a b^T
template <class S> void add_outer(Matrix<S>& M, const S* a, const S* b) {
  const MulAddCtx<S> ctx;
  for (std::size_t i = 0; i < M.rows; ++i) {
    S* r = M.row(i);
    for (std::size_t j = 0; j < M.cols; ++j) muladd(r[j], a[i], b[j], ctx);
  }
}
template <class S> Matrix<S> matmul(const Matrix<S>& A, const Matrix<S>& B) {
  if (A.cols != B.rows) throw std::invalid_argument("matmul: inner dimensions differ");
  Matrix<S> C(A.rows, B.cols);
  const MulAddCtx<S> ctx;
  for (std::size_t i = 0; i < A.rows; ++i)
    for (std::size_t k = 0; k < A.cols; ++k) {
      const S& aik = A(i, k);
      for (std::size_t j = 0; j < B.cols; ++j) muladd(C(i, j), aik, B(k, j), ctx);
    }
  return C;
}
// Frobenius norm of (A - B) and the norms, accumulated in S.
template <class S> S frob_diff(const Matrix<S>& A, const Matrix<S>& B) {
  if (A.rows != B.rows || A.cols != B.cols) throw std::invalid_argument("frob_diff: shapes differ");
  using std::sqrt;
  using boost::multiprecision::sqrt;
  const MulAddCtx<S> ctx;
  S acc(0), d;
  for (std::size_t i = 0; i < A.a.size(); ++i) {
    d = A.a[i] - B.a[i];
    muladd(acc, d, d, ctx);
  }
  return sqrt(acc);
}
template <class S> S frob(const Matrix<S>& A) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  const MulAddCtx<S> ctx;
  S acc(0);
  for (const S& x : A.a) muladd(acc, x, x, ctx);
  return sqrt(acc);
}

inline void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}

}  // namespace recall::ref
