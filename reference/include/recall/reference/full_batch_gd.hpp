// Full-batch gradient descent on the streaming least-squares objective and its Hessian-preconditioned
// (Newton) step (spec A001 §4 Vignette 3, Eqs. (17)-(25); README §3 groups 15 and 24): the loss and both
// printed gradient expressions, the four printed lines (20)-(23) of one step, the I-step iteration with a
// step beta^(i) per iteration, the closed forms of F07 (the inverse-free sum of products, its Horner form
// for a constant step, the spectral form through the SVD of the key Gram, and the inverse form), the
// Hessian (its action E -> E S_t and its Kronecker matrix), the preconditioned step and the
// preconditioned one-step family R_t C.
//
// Plain loops, templated on the scalar; canonical memory M (d_v x d_k), keys and values as rows of
// K, V (T x d_k, T x d_v); t is the 1-based prefix length (rows 1..t), every t a cold start.
// Bad input (non-finite entries, wrong shapes, t out of range, a singular key Gram where a solve is
// required) throws std::invalid_argument naming the input.
#pragma once

#include "recall/reference/least_squares.hpp"
#include "recall/reference/matrix.hpp"
#include "recall/reference/regression_rules.hpp"
#include "recall/reference/svd.hpp"

#include <string>
#include <type_traits>
#include <vector>

namespace recall::ref {

namespace gd_detail {
template <class S> void require_finite(const Matrix<S>& X, std::size_t rows, const char* who, const char* name) {
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < X.cols; ++j)
      require(is_finite(X(i, j)), std::string(who) + ": non-finite entry in " + name + " at row " + std::to_string(i + 1) + ", column " +
                                      std::to_string(j + 1));
}
// K (T x d_k) and V (T x d_v) with a prefix 1 <= t <= T, finite on the prefix.
template <class S> void check_prefix(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const char* who) {
  require(K.rows == V.rows, std::string(who) + ": K and V must have the same number of rows (tokens)");
  require(K.cols >= 1 && V.cols >= 1, std::string(who) + ": K and V need at least one column");
  require(t >= 1 && t <= K.rows, std::string(who) + ": prefix length t = " + std::to_string(t) + " is outside 1.." + std::to_string(K.rows));
  require_finite(K, t, who, "K");
  require_finite(V, t, who, "V");
}
template <class S> void check_memory(const Matrix<S>& M, std::size_t dv, std::size_t dk, const char* who, const char* name) {
  require(M.rows == dv && M.cols == dk, std::string(who) + ": " + name + " must be d_v x d_k = " + std::to_string(dv) + " x " + std::to_string(dk));
  require_finite(M, M.rows, who, name);
}
template <class S> void check_step(const S& beta, const char* who, const std::string& name) {
  require(is_finite(beta), std::string(who) + ": step " + name + " is not finite");
}
template <class S> void check_steps(const Vector<S>& betas, const char* who) {
  for (std::size_t i = 0; i < betas.size(); ++i) check_step(betas[i], who, "beta^(" + std::to_string(i + 1) + ")");
}
template <class S> Matrix<S> add(const Matrix<S>& A, const Matrix<S>& B) {
  Matrix<S> C = A;
  for (std::size_t i = 0; i < C.a.size(); ++i) C.a[i] += B.a[i];
  return C;
}
// I - c A (A square)
template <class S> Matrix<S> eye_minus(const S& c, const Matrix<S>& A) {
  Matrix<S> B(A.rows, A.cols);
  for (std::size_t i = 0; i < A.rows; ++i)
    for (std::size_t j = 0; j < A.cols; ++j) B(i, j) = (i == j ? S(1) : S(0)) - c * A(i, j);
  return B;
}
}  // namespace gd_detail

// ---- A001 C3: key Gram and cross moment ----------------------------------------------------------

// A001 C3: S_t = K_t^T K_t = sum_{i<=t} k_i k_i^T (d_k x d_k): ref::key_gram of least_squares.hpp.
template <class S> Matrix<S> gd_key_gram(const Matrix<S>& K, std::size_t t) { return key_gram(K, t); }
// A001 C3: R_t = V_t^T K_t = sum_{i<=t} v_i k_i^T (d_v x d_k), the linear-attention state: ref::cross_moment.
template <class S> Matrix<S> gd_cross_moment(const Matrix<S>& K, const Matrix<S>& V, std::size_t t) { return cross_moment(K, V, t); }

// ---- A001-GD-LS-OBJECTIVE: loss and gradient ------------------------------------------------------

// A001-GD-LS-OBJECTIVE Eq. (18): L_t(M) = sum_{i<=t} 1/2 ||v_i - M k_i||_2^2.
template <class S> S streaming_ls_loss(const Matrix<S>& M, const Matrix<S>& K, const Matrix<S>& V, std::size_t t) {
  gd_detail::check_prefix(K, V, t, "streaming_ls_loss");
  gd_detail::check_memory(M, V.cols, K.cols, "streaming_ls_loss", "M");
  S acc(0);
  for (std::size_t i = 0; i < t; ++i) {
    const Vector<S> mk = matvec(M, K.row(i));
    for (std::size_t c = 0; c < V.cols; ++c) {
      const S r = V(i, c) - mk[c];
      muladd(acc, r, r);
    }
  }
  return acc / S(2);
}
// A001-GD-LS-OBJECTIVE Eq. (19), gradient of one term: grad L_i(M) = (M k_i - v_i) k_i^T (i 1-based).
template <class S> Matrix<S> streaming_term_grad(const Matrix<S>& M, const Matrix<S>& K, const Matrix<S>& V, std::size_t i) {
  require(i >= 1 && i <= K.rows && K.rows == V.rows, "streaming_term_grad: term index i is outside 1..T");
  Vector<S> r = matvec(M, K.row(i - 1));
  for (std::size_t c = 0; c < V.cols; ++c) r[c] -= V(i - 1, c);
  Matrix<S> G(M.rows, M.cols);
  add_outer(G, r.data(), K.row(i - 1));
  return G;
}
// A001-GD-LS-OBJECTIVE Eq. (19), sum form: grad L_t(M) = sum_{i<=t} (M k_i - v_i) k_i^T.
template <class S> Matrix<S> streaming_ls_grad_sum(const Matrix<S>& M, const Matrix<S>& K, const Matrix<S>& V, std::size_t t) {
  gd_detail::check_prefix(K, V, t, "streaming_ls_grad_sum");
  gd_detail::check_memory(M, V.cols, K.cols, "streaming_ls_grad_sum", "M");
  Matrix<S> G(M.rows, M.cols);
  for (std::size_t i = 0; i < t; ++i) {
    Vector<S> r = matvec(M, K.row(i));
    for (std::size_t c = 0; c < V.cols; ++c) r[c] -= V(i, c);
    add_outer(G, r.data(), K.row(i));
  }
  return G;
}
// A001-GD-LS-OBJECTIVE Eq. (19), matrix form: grad L_t(M) = (M K_t^T - V_t^T) K_t (matrices formed explicitly).
template <class S> Matrix<S> streaming_ls_grad_matrix(const Matrix<S>& M, const Matrix<S>& K, const Matrix<S>& V, std::size_t t) {
  gd_detail::check_prefix(K, V, t, "streaming_ls_grad_matrix");
  gd_detail::check_memory(M, V.cols, K.cols, "streaming_ls_grad_matrix", "M");
  Matrix<S> Kt(t, K.cols), VtT(V.cols, t);
  for (std::size_t i = 0; i < t; ++i) {
    for (std::size_t j = 0; j < K.cols; ++j) Kt(i, j) = K(i, j);
    for (std::size_t c = 0; c < V.cols; ++c) VtT(c, i) = V(i, c);
  }
  Matrix<S> A = matmul(M, transpose(Kt));  // M K_t^T : d_v x t
  for (std::size_t a = 0; a < A.a.size(); ++a) A.a[a] -= VtT.a[a];
  return matmul(A, Kt);
}

// ---- A001-FULLBATCH-GD: the four printed lines and the I-step iteration ----------------------------

// The printed lines of Eqs. (20)-(23) for one step M^(i-1) -> M^(i):
//   eq20: M - beta grad L_t(M), the gradient in the matrix form (M K_t^T - V_t^T) K_t;
//   eq21: M - beta sum_j grad L_j(M), a sum of per-term gradient matrices;
//   eq22: M - beta sum_j (M k_j - v_j) k_j^T, each term subtracted from M as it is formed;
//   eq23: M (I - sum_j beta k_j k_j^T) + beta sum_j v_j k_j^T, the transition matrix formed explicitly.
enum class GdLine { eq20, eq21, eq22, eq23 };
inline const char* gd_line_name(GdLine l) {
  switch (l) {
    case GdLine::eq20: return "(20)";
    case GdLine::eq21: return "(21)";
    case GdLine::eq22: return "(22)";
    case GdLine::eq23: return "(23)";
  }
  return "?";
}

// A001-FULLBATCH-GD Eqs. (20)-(23): one full-batch GD step of the given printed line on the prefix t.
template <class S>
Matrix<S> fullbatch_gd_step(GdLine line, const Matrix<S>& M, const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S& beta) {
  gd_detail::check_prefix(K, V, t, "fullbatch_gd_step");
  gd_detail::check_memory(M, V.cols, K.cols, "fullbatch_gd_step", "M");
  gd_detail::check_step(beta, "fullbatch_gd_step", "beta");
  const std::size_t dk = K.cols, dv = V.cols;
  switch (line) {
    case GdLine::eq20: {
      const Matrix<S> G = streaming_ls_grad_matrix(M, K, V, t);
      Matrix<S> out = M;
      for (std::size_t a = 0; a < out.a.size(); ++a) out.a[a] -= beta * G.a[a];
      return out;
    }
    case GdLine::eq21: {
      Matrix<S> G(dv, dk);
      for (std::size_t j = 1; j <= t; ++j) G = gd_detail::add(G, streaming_term_grad(M, K, V, j));
      Matrix<S> out = M;
      for (std::size_t a = 0; a < out.a.size(); ++a) out.a[a] -= beta * G.a[a];
      return out;
    }
    case GdLine::eq22: {
      Matrix<S> out = M;
      for (std::size_t j = 0; j < t; ++j) {
        Vector<S> r = matvec(M, K.row(j));
        for (std::size_t c = 0; c < dv; ++c) r[c] = -(beta * (r[c] - V(j, c)));
        add_outer(out, r.data(), K.row(j));
      }
      return out;
    }
    case GdLine::eq23: {
      Matrix<S> A = eye<S>(dk);
      for (std::size_t j = 0; j < t; ++j) add_outer(A, S(-beta), K.row(j), K.row(j));
      Matrix<S> out = matmul(M, A);
      Matrix<S> B(dv, dk);
      for (std::size_t j = 0; j < t; ++j) add_outer(B, V.row(j), K.row(j));
      for (std::size_t a = 0; a < out.a.size(); ++a) muladd(out.a[a], beta, B.a[a]);
      return out;
    }
  }
  throw std::invalid_argument("fullbatch_gd_step: unknown printed line");
}

// A001-FULLBATCH-GD Eqs. (20)-(23): I = betas.size() iterations of the given line from M^(0) (default 0),
// steps beta^(1..I); returns M^(I). iterates (optional) receives M^(0..I).
template <class S>
Matrix<S> fullbatch_gd(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const Vector<S>& betas, GdLine line = GdLine::eq23,
                       const std::type_identity_t<Matrix<S>>* M0 = nullptr, std::vector<std::type_identity_t<Matrix<S>>>* iterates = nullptr) {
  gd_detail::check_prefix(K, V, t, "fullbatch_gd");
  gd_detail::check_steps(betas, "fullbatch_gd");
  Matrix<S> M(V.cols, K.cols);
  if (M0) {
    gd_detail::check_memory(*M0, V.cols, K.cols, "fullbatch_gd", "M0");
    M = *M0;
  }
  if (iterates) {
    iterates->clear();
    iterates->push_back(M);
  }
  for (const S& b : betas) {
    M = fullbatch_gd_step(line, M, K, V, t, b);
    if (iterates) iterates->push_back(M);
  }
  return M;
}

// A001-FULLBATCH-GD "to implement": one step from the sufficient statistics, M (I - beta S_t) + beta R_t
// (S_t, R_t given; the form used for long runs).
template <class S> Matrix<S> gd_step_from_moments(const Matrix<S>& M, const Matrix<S>& St, const Matrix<S>& Rt, const S& beta) {
  require(St.rows == St.cols && St.rows == M.cols && Rt.rows == M.rows && Rt.cols == M.cols,
          "gd_step_from_moments: S_t must be d_k x d_k and R_t, M d_v x d_k");
  gd_detail::check_step(beta, "gd_step_from_moments", "beta");
  Matrix<S> out = matmul(M, gd_detail::eye_minus(beta, St));
  for (std::size_t a = 0; a < out.a.size(); ++a) muladd(out.a[a], beta, Rt.a[a]);
  return out;
}

// ---- A001-F07-FULLBATCH-GD-CLOSED ----------------------------------------------------------------------

// A001-F07 inverse-free sum: M^(I) = R_t sum_{n=1}^{I} beta^(n) prod_{m=n+1}^{I} (I - beta^(m) S_t), the products
// built from the right end (P_I = I, P_{n-1} = (I - beta^(n) S_t) P_n).
template <class S> Matrix<S> fullbatch_gd_closed_sum(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const Vector<S>& betas) {
  gd_detail::check_prefix(K, V, t, "fullbatch_gd_closed_sum");
  gd_detail::check_steps(betas, "fullbatch_gd_closed_sum");
  const Matrix<S> St = gd_key_gram(K, t), Rt = gd_cross_moment(K, V, t);
  const std::size_t dk = K.cols;
  Matrix<S> P = eye<S>(dk), A(dk, dk);
  for (std::size_t n = betas.size(); n-- > 0;) {
    for (std::size_t a = 0; a < A.a.size(); ++a) muladd(A.a[a], betas[n], P.a[a]);
    P = matmul(gd_detail::eye_minus(betas[n], St), P);
  }
  return matmul(Rt, A);
}
// A001-F07 constant step, Horner: M^(I) = beta R_t sum_{n=0}^{I-1} (I - beta S_t)^n, H <- I + (I - beta S_t) H.
template <class S> Matrix<S> fullbatch_gd_closed_horner(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S& beta, std::size_t I) {
  gd_detail::check_prefix(K, V, t, "fullbatch_gd_closed_horner");
  gd_detail::check_step(beta, "fullbatch_gd_closed_horner", "beta");
  const Matrix<S> St = gd_key_gram(K, t), Rt = gd_cross_moment(K, V, t);
  const std::size_t dk = K.cols;
  Matrix<S> H = I == 0 ? Matrix<S>(dk, dk) : eye<S>(dk);
  const Matrix<S> T = gd_detail::eye_minus(beta, St);
  for (std::size_t n = 1; n < I; ++n) H = gd_detail::add(eye<S>(dk), matmul(T, H));
  Matrix<S> out = matmul(Rt, H);
  for (S& x : out.a) x *= beta;
  return out;
}
// A001-F07 spectral filter of one eigenvalue: f(lambda) = sum_{n=1}^{I} beta^(n) prod_{m=n+1}^{I} (1 - beta^(m) lambda)
// (Horner from n = 1: f <- f (1 - beta^(n) lambda) + beta^(n)).
template <class S> S gd_filter(const S& lambda, const Vector<S>& betas) {
  S f(0);
  for (const S& b : betas) f = f * (S(1) - b * lambda) + b;
  return f;
}
// A001-F07 spectral form: S_t = W diag(lambda) W^T from the SVD of the symmetric PSD S_t (W its right factor,
// lambda its singular values); M^(I) = R_t W diag(f(lambda)) W^T.
template <class S> Matrix<S> fullbatch_gd_closed_spectral(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const Vector<S>& betas) {
  gd_detail::check_prefix(K, V, t, "fullbatch_gd_closed_spectral");
  gd_detail::check_steps(betas, "fullbatch_gd_closed_spectral");
  const Matrix<S> St = gd_key_gram(K, t), Rt = gd_cross_moment(K, V, t);
  const Svd<S> d = svd(St);
  const std::size_t dk = K.cols;
  Matrix<S> F(dk, dk);
  for (std::size_t k = 0; k < dk; ++k) {
    const S f = gd_filter(d.sigma[k], betas);
    for (std::size_t i = 0; i < dk; ++i)
      for (std::size_t j = 0; j < dk; ++j) muladd(F(i, j), S(f * d.V(i, k)), d.V(j, k));
  }
  return matmul(Rt, F);
}
// A001-F07 inverse form (constant step, S_t invertible): M^(I) = R_t S_t^{-1} (I - (I - beta S_t)^I).
template <class S> Matrix<S> fullbatch_gd_closed_inverse(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S& beta, std::size_t I) {
  gd_detail::check_prefix(K, V, t, "fullbatch_gd_closed_inverse");
  gd_detail::check_step(beta, "fullbatch_gd_closed_inverse", "beta");
  require(t >= K.cols, "fullbatch_gd_closed_inverse: the key Gram S_t is singular for t < d_k (the inverse form needs S_t invertible)");
  const Matrix<S> St = gd_key_gram(K, t), Rt = gd_cross_moment(K, V, t);
  const std::size_t dk = K.cols;
  const Matrix<S> T = gd_detail::eye_minus(beta, St);
  Matrix<S> Pw = eye<S>(dk);
  for (std::size_t n = 0; n < I; ++n) Pw = matmul(Pw, T);
  Matrix<S> B = gd_detail::eye_minus(S(1), Pw);  // I - (I - beta S)^I
  Matrix<S> RS;
  try {
    RS = right_solve(Rt, St);
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("fullbatch_gd_closed_inverse: the key Gram S_t = K_t^T K_t is singular");
  }
  return matmul(RS, B);
}

// ---- A001-NEWTON-PRECONDITIONED / -ANY-INIT / A001-GD-PRECOND-EXTREMES ------------------------------------

// A001-NEWTON-PRECONDITIONED (Eq. 25): the Hessian of L_t acts by right multiplication, E -> E S_t.
template <class S> Matrix<S> ls_hessian_apply(const Matrix<S>& E, const Matrix<S>& K, std::size_t t) {
  require(E.cols == K.cols, "ls_hessian_apply: E must have d_k columns");
  return matmul(E, gd_key_gram(K, t));
}
// A001-NEWTON-PRECONDITIONED: its matrix on column-major vec(M) (index i + j d_v of M(i, j)): S_t ⊗ I_{d_v},
// (A ⊗ B)(p d_B + r, q d_B + c) = A(p, q) B(r, c).
template <class S> Matrix<S> ls_hessian_kron(const Matrix<S>& K, std::size_t t, std::size_t dv) {
  require(dv >= 1, "ls_hessian_kron: d_v must be >= 1");
  const Matrix<S> St = gd_key_gram(K, t);
  const std::size_t dk = K.cols, n = dk * dv;
  Matrix<S> H(n, n);
  for (std::size_t p = 0; p < dk; ++p)
    for (std::size_t q = 0; q < dk; ++q)
      for (std::size_t r = 0; r < dv; ++r) H(p * dv + r, q * dv + r) = St(p, q);
  return H;
}
// A001-NEWTON-PRECONDITIONED / A001-NEWTON-ANY-INIT (Eq. 25): M^(1) = M^(0) - grad L_t(M^(0)) H^{-1}, the gradient
// right-multiplied by S_t^{-1} (solve; S_t must be invertible: t >= d_k and full column rank).
template <class S> Matrix<S> hessian_preconditioned_step(const Matrix<S>& M0, const Matrix<S>& K, const Matrix<S>& V, std::size_t t) {
  gd_detail::check_prefix(K, V, t, "hessian_preconditioned_step");
  gd_detail::check_memory(M0, V.cols, K.cols, "hessian_preconditioned_step", "M0");
  require(t >= K.cols, "hessian_preconditioned_step: the key Gram S_t is singular for t = " + std::to_string(t) + " < d_k = " + std::to_string(K.cols));
  const Matrix<S> G = streaming_ls_grad_matrix(M0, K, V, t);
  Matrix<S> GH;
  try {
    GH = right_solve(G, gd_key_gram(K, t));
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("hessian_preconditioned_step: the key Gram S_t = K_t^T K_t is singular (rank-deficient keys)");
  }
  Matrix<S> out = M0;
  for (std::size_t a = 0; a < out.a.size(); ++a) out.a[a] -= GH.a[a];
  return out;
}
// A001-GD-PRECOND-EXTREMES: one step from 0 with a right preconditioner C (d_k x d_k): M = 0 - grad L_t(0) C = R_t C.
template <class S> Matrix<S> preconditioned_one_step(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const Matrix<S>& C) {
  gd_detail::check_prefix(K, V, t, "preconditioned_one_step");
  require(C.rows == K.cols && C.cols == K.cols, "preconditioned_one_step: the preconditioner C must be d_k x d_k");
  gd_detail::require_finite(C, C.rows, "preconditioned_one_step", "C");
  const Matrix<S> M0(V.cols, K.cols);
  Matrix<S> G = streaming_ls_grad_matrix(M0, K, V, t);
  for (S& x : G.a) x = -x;
  return matmul(G, C);
}
// A001-GD-PRECOND-EXTREMES interpolation (for reporting): C_omega = (omega S_t + (1 - omega) I)^{-1}, omega in [0, 1].
template <class S> Matrix<S> precond_interpolated(const Matrix<S>& K, std::size_t t, const S& omega) {
  require(is_finite(omega) && omega >= S(0) && omega <= S(1), "precond_interpolated: omega must lie in [0, 1]");
  Matrix<S> A = gd_key_gram(K, t);
  for (S& x : A.a) x *= omega;
  for (std::size_t i = 0; i < A.rows; ++i) A(i, i) += S(1) - omega;
  try {
    return solve(A, eye<S>(A.rows));
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("precond_interpolated: omega S_t + (1 - omega) I is singular (omega = 1 with a singular key Gram S_t)");
  }
}

}  // namespace recall::ref
