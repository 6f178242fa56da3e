// Output-norm bound of a least-squares (LS) layer, paper A001 (test-time regression) Eq. (13), and its
// Appendix A derivation line by line, Eqs. (59)-(67); plus the auxiliary pseudo-inverse bound
// (A001-LS-NORM-ALT-BOUND, derived by the spec, not in the paper).
//
// Shapes (spec A001 C1): keys K_t (t x D_k) and values V_t (t x D_v) are row-stacked, q_t has D_k
// entries; the LS read-out operator is A_t = V_t^T K_t (K_t^T K_t)^{-1} (D_v x D_k, Group 4 preamble),
// the key Gram S_t = K_t^T K_t (C3), the cross moment R_t = V_t^T K_t. The bound needs t >= D_k and
// rank K_t = D_k (Vignette 1), so lambda_min(S_t) = sigma_min(K_t)^2 > 0.
// Spectral norms and sigma_min(K_t) come from ref::svd (one-sided Jacobi, high relative accuracy);
// the eigenvalues of S_t and S_t^{-1} from a cyclic Jacobi symmetric eigen-solve; the sup of Eq. (60)
// from power iteration on A^T A. Plain loops, generic on the scalar (recall::mp_t for the oracle at
// P-scaled digits, double for the adversarial search's baseline). Bad input (non-finite entries, wrong
// shapes, t < D_k, a singular key Gram) throws std::invalid_argument naming the input.
#pragma once

#include "recall/reference/least_squares.hpp"
#include "recall/reference/matrix.hpp"
#include "recall/reference/regression_rules.hpp"
#include "recall/reference/scalar.hpp"
#include "recall/reference/svd.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace recall::ref {

namespace norm_bound_detail {
template <class S> void require_finite(const Matrix<S>& M, const std::string& name) {
  for (std::size_t i = 0; i < M.rows; ++i)
    for (std::size_t j = 0; j < M.cols; ++j)
      require(is_finite(M(i, j)), name + ": entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) + ") is not finite");
}
template <class S> void require_finite(const Vector<S>& v, const std::string& name) {
  for (std::size_t i = 0; i < v.size(); ++i) require(is_finite(v[i]), name + ": entry " + std::to_string(i + 1) + " is not finite");
}
template <class S> S sqrt_of(const S& x) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  return sqrt(x);
}
template <class S> S abs_of(const S& x) {
  using std::abs;
  using boost::multiprecision::abs;
  return abs(x);
}
// unit roundoff-sized epsilon of the working precision
template <class S> S work_eps() {
  if constexpr (scalar_traits<S>::is_mp) {
    return S(scalar_traits<S>::unit_roundoff());
  } else {
    return std::numeric_limits<S>::epsilon();
  }
}
}  // namespace norm_bound_detail

// Euclidean norm of x[0..n) (A001 Group 4: ||.||_2 of a vector).
template <class S> S euclidean_norm(const S* x, std::size_t n) {
  S acc(0);
  for (std::size_t i = 0; i < n; ++i) muladd(acc, x[i], x[i]);
  return norm_bound_detail::sqrt_of(acc);
}
template <class S> S euclidean_norm(const Vector<S>& x) { return euclidean_norm(x.data(), x.size()); }

// A001-LS-NORM-BOUND input shapes: K t x D_k, V t x D_v (same t >= 1), q of length D_k, all entries finite.
template <class S> void norm_bound_check_inputs(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& q) {
  require(K.rows >= 1 && K.cols >= 1, "K: must be t x D_k with t >= 1 and D_k >= 1");
  require(V.rows == K.rows && V.cols >= 1, "V: must be t x D_v with the t of K (" + std::to_string(K.rows) + ") and D_v >= 1");
  require(q.size() == K.cols, "q: must have D_k = " + std::to_string(K.cols) + " entries, has " + std::to_string(q.size()));
  norm_bound_detail::require_finite(K, "K");
  norm_bound_detail::require_finite(V, "V");
  norm_bound_detail::require_finite(q, "q");
}

// A001 C3: key Gram S_t = K_t^T K_t = sum_i k_i k_i^T (D_k x D_k) of all t rows: ref::key_gram of least_squares.hpp.
template <class S> Matrix<S> norm_bound_key_gram(const Matrix<S>& K) { return key_gram(K, K.rows); }

// A001-APPA-S63 left side, Eq. (62)-(63): R_t = V_t^T K_t as a matrix product.
template <class S> Matrix<S> cross_moment_product(const Matrix<S>& K, const Matrix<S>& V) {
  require(K.rows == V.rows, "V: must have the t of K");
  return matmul(transpose(V), K);
}

// A001-APPA-S63 right side, Eq. (63): sum_{i=1}^t v_i k_i^T accumulated rank-one term by term.
template <class S> Matrix<S> rank_one_sum(const Matrix<S>& K, const Matrix<S>& V) {
  require(K.rows == V.rows, "V: must have the t of K");
  Matrix<S> M(V.cols, K.cols);
  for (std::size_t i = 0; i < K.rows; ++i) {
    Matrix<S> term(V.cols, K.cols);
    add_outer(term, V.row(i), K.row(i));
    for (std::size_t j = 0; j < M.a.size(); ++j) M.a[j] += term.a[j];
  }
  return M;
}

// The singular values of M (descending, min(rows, cols) of them) by ref::svd; empty for an empty M.
template <class S> Vector<S> singular_values(const Matrix<S>& M) {
  if (M.empty()) return {};
  return svd(M).sigma;
}

// A001 Group 4: spectral (induced 2-) norm ||M||_2 = sigma_max(M) from ref::svd (0 for an empty M).
template <class S> S spectral_norm(const Matrix<S>& M) {
  const Vector<S> s = singular_values(M);
  return s.empty() ? S(0) : s.front();
}

// sigma_min(K) = the smallest of the min(t, D_k) singular values of K (ref::svd).
template <class S> S smallest_singular_value(const Matrix<S>& K) {
  const Vector<S> s = singular_values(K);
  require(!s.empty(), "K: empty matrix");
  return s.back();
}

// A001-LS-NORM-BOUND hazards: lambda_min(K^T K) = sigma_min(K)^2 from an SVD of K (never an eigen-solve
// of the Gram). Needs t >= D_k (else lambda_min = 0 and the bound is undefined): throws otherwise.
template <class S> S gram_lambda_min(const Matrix<S>& K) {
  require(K.rows >= K.cols, "K: t = " + std::to_string(K.rows) + " < D_k = " + std::to_string(K.cols) +
                                " rows, so lambda_min(K^T K) = 0 (Eq. 13 needs t >= D_k and rank D_k)");
  const S s = smallest_singular_value(K);
  return s * s;
}

// A001-APPA-S65/S66: eigenvalues of a symmetric matrix by the cyclic Jacobi method (plane rotations
// annihilating a_pq until |a_pq| <= eps sqrt(|a_pp a_qq|) for every pair), ascending. Only the upper
// triangle's symmetric counterpart is assumed: the input must be symmetric (checked exactly).
template <class S> Vector<S> symmetric_eigenvalues(Matrix<S> A, int max_sweeps = 100) {
  using norm_bound_detail::abs_of;
  using norm_bound_detail::sqrt_of;
  require(A.rows == A.cols, "A: symmetric_eigenvalues needs a square matrix");
  norm_bound_detail::require_finite(A, "A");
  const std::size_t n = A.rows;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      require(A(i, j) == A(j, i), "A: symmetric_eigenvalues needs a symmetric matrix (entry (" + std::to_string(i + 1) + ", " +
                                      std::to_string(j + 1) + ") differs from its transpose)");
  const S eps = norm_bound_detail::work_eps<S>();
  const S tiny = eps * eps * frob(A);
  bool done = n <= 1;
  for (int sweep = 0; sweep < max_sweeps && !done; ++sweep) {
    bool rotated = false;
    for (std::size_t p = 0; p + 1 < n; ++p)
      for (std::size_t q = p + 1; q < n; ++q) {
        const S apq = A(p, q);
        if (apq == 0 || abs_of(apq) <= eps * sqrt_of(S(abs_of(A(p, p)) * abs_of(A(q, q)))) || abs_of(apq) <= tiny) continue;
        rotated = true;
        // J = [[c, s], [-s, c]] on (p, q) with tan = t the smaller root of t^2 + 2 theta t - 1 = 0
        const S theta = (A(q, q) - A(p, p)) / (S(2) * apq);
        const S t = (theta >= 0 ? S(1) : S(-1)) / (abs_of(theta) + sqrt_of(S(theta * theta + 1)));
        const S c = S(1) / sqrt_of(S(t * t + 1)), s = t * c;
        for (std::size_t k = 0; k < n; ++k) {  // A <- A J
          const S akp = A(k, p), akq = A(k, q);
          A(k, p) = c * akp - s * akq;
          A(k, q) = s * akp + c * akq;
        }
        for (std::size_t k = 0; k < n; ++k) {  // A <- J^T A
          const S apk = A(p, k), aqk = A(q, k);
          A(p, k) = c * apk - s * aqk;
          A(q, k) = s * apk + c * aqk;
        }
        A(p, q) = S(0);
        A(q, p) = S(0);
      }
    done = !rotated;
  }
  if (!done) throw std::runtime_error("symmetric_eigenvalues: cyclic Jacobi did not converge in " + std::to_string(max_sweeps) + " sweeps");
  Vector<S> ev(n);
  for (std::size_t i = 0; i < n; ++i) ev[i] = A(i, i);
  std::sort(ev.begin(), ev.end());
  return ev;
}

// Default stopping tolerance of power_iteration_sup: 10^-(d - 10) at d working digits (spec S61: a
// residual below 1e-40 at P-50); sqrt(eps) for float/double (the rounding floor of the residual is
// ~ eps cond; the Rayleigh quotient's error is ~ residual^2 / gap, so sqrt(eps) already resolves it).
template <class S> S default_power_tol() {
  if constexpr (scalar_traits<S>::is_mp) {
    return S(std::pow(10.0, -static_cast<double>(static_cast<int>(mp_digits()) - 10)));
  } else {
    return std::sqrt(std::numeric_limits<S>::epsilon());
  }
}

template <class S> struct PowerSup {
  S sup = S(0);           // sqrt(rho), rho = x^T (A^T A) x the Rayleigh quotient at the final unit x
  S rel_residual = S(0);  // ||A^T A x - rho x|| / rho
  Vector<S> x;            // the final unit vector (a maximiser of ||A q|| over ||q|| = 1)
  int iterations = 0;     // multiplications by the (possibly squared) iteration matrix
  int squarings = 0;      // how often the iteration matrix was squared
  bool converged = false;
};

// A001-APPA-S61: sup_{||q||_2 = 1} ||A q||_2 by power iteration on B = A^T A: x <- B x / ||B x|| until
// the relative residual ||B x - rho x|| / rho <= tol, rho = x^T B x, sup = sqrt(rho). A small spectral
// gap slows it down, so every 64 iterations without convergence the iteration matrix is squared
// (power iteration on B^(2^s): same dominant eigenvector, gap ratio squared); residual and rho always
// use B itself. Start: the column of B of largest norm plus a small fixed non-aligned perturbation.
template <class S> PowerSup<S> power_iteration_sup(const Matrix<S>& A, const S& tol, int max_iter = 20000, int max_squarings = 30) {
  using norm_bound_detail::sqrt_of;
  norm_bound_detail::require_finite(A, "A");
  const std::size_t n = A.cols;
  PowerSup<S> out;
  out.x.assign(n, S(0));
  if (n == 0) {
    out.converged = true;
    return out;
  }
  const Matrix<S> B = matmul(transpose(A), A);
  if (frob(B) == 0) {  // A = 0: sup = 0, every unit vector attains it
    out.x[0] = S(1);
    out.converged = true;
    return out;
  }
  std::size_t jmax = 0;
  S best(-1);
  for (std::size_t j = 0; j < n; ++j) {
    S c(0);
    for (std::size_t i = 0; i < n; ++i) muladd(c, B(i, j), B(i, j));
    if (c > best) {
      best = c;
      jmax = j;
    }
  }
  const S cn = sqrt_of(best);
  Vector<S> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = B(i, jmax) + S(1e-3) * cn / (S(static_cast<double>(i)) + sqrt_of(S(2)));
  Matrix<S> P = B;  // iteration matrix B^(2^squarings), rescaled
  auto normalise = [&](Vector<S>& v) {
    const S nv = euclidean_norm(v);
    for (S& e : v) e /= nv;
  };
  normalise(x);
  Vector<S> Bx(n);
  for (int it = 0; it < max_iter; ++it) {
    matvec_into(Bx.data(), B, x.data());
    const S rho = dot(x.data(), Bx.data(), n);
    S r2(0);
    for (std::size_t i = 0; i < n; ++i) {
      const S d = Bx[i] - rho * x[i];
      muladd(r2, d, d);
    }
    out.rel_residual = rho > 0 ? S(sqrt_of(r2) / rho) : S(1);
    out.sup = rho > 0 ? sqrt_of(rho) : S(0);
    out.iterations = it;
    if (rho > 0 && out.rel_residual <= tol) {
      out.converged = true;
      break;
    }
    if (it > 0 && it % 64 == 0 && out.squarings < max_squarings) {
      P = matmul(P, P);
      const S f = frob(P);
      for (S& e : P.a) e /= f;
      ++out.squarings;
    }
    Vector<S> y = matvec(P, x.data());
    if (euclidean_norm(y) == 0) break;  // x in the null space of B^(2^s): give up (not converged)
    normalise(y);
    x = std::move(y);
  }
  out.x = x;
  return out;
}
template <class S> PowerSup<S> power_iteration_sup(const Matrix<S>& A) { return power_iteration_sup(A, default_power_tol<S>()); }

// A001-LS-NORM-BOUND query "aligned with the top right-singular vector of A_t": the unit right singular
// vector of sigma_max(A) (ref::svd; a zero A gives e_1).
template <class S> Vector<S> top_right_singular_vector(const Matrix<S>& A) {
  require(A.cols >= 1, "A: needs at least one column");
  Vector<S> v(A.cols, S(0));
  if (A.rows == 0) {
    v[0] = S(1);
    return v;
  }
  const Svd<S> d = svd(A);
  if (!(d.sigma[0] > 0)) {
    v[0] = S(1);
    return v;
  }
  for (std::size_t i = 0; i < A.cols; ++i) v[i] = d.V(i, 0);
  return v;
}

// A001 Group 4 preamble / Eq. (11) overdetermined branch: A_t = V_t^T K_t (K_t^T K_t)^{-1}, evaluated as
// R_t S_t^{-1} by Gaussian elimination on S_t (ref::right_solve). Throws if t < D_k or S_t is singular.
template <class S> Matrix<S> ls_readout_operator(const Matrix<S>& K, const Matrix<S>& V) {
  require(K.rows == V.rows, "V: must have the t of K");
  require(K.rows >= K.cols, "K: t = " + std::to_string(K.rows) + " < D_k = " + std::to_string(K.cols) + ": K^T K is singular");
  norm_bound_detail::require_finite(K, "K");
  norm_bound_detail::require_finite(V, "V");
  const Matrix<S> R = cross_moment_product(K, V);
  const Matrix<S> G = norm_bound_key_gram(K);
  try {
    return right_solve(R, G);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("K: K^T K is singular (") + e.what() + ")");
  }
}

// A001-LS-NORM-BOUND, Eq. (13) / (59): the LS layer output y_t = V_t^T K_t (K_t^T K_t)^{-1} q_t.
template <class S> Vector<S> ls_output(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& q) {
  norm_bound_check_inputs(K, V, q);
  const Matrix<S> A = ls_readout_operator(K, V);
  return matvec(A, q.data());
}

// A001-LS-NORM-ALT-BOUND: the pseudo-inverse form of the same operator, V_t^T (K_t^+)^T (ref::pinv with
// the default rank threshold); equal to A_t when rank K_t = D_k.
template <class S> Matrix<S> ls_readout_operator_pinv(const Matrix<S>& K, const Matrix<S>& V) {
  require(K.rows == V.rows, "V: must have the t of K");
  norm_bound_detail::require_finite(K, "K");
  norm_bound_detail::require_finite(V, "V");
  return matmul(transpose(V), transpose(pinv(K)));
}

// A001-APPA-S64 right side, Eq. (64): sum_{i=1}^t ||v_i||_2 ||k_i||_2.
template <class S> S sum_norm_products(const Matrix<S>& K, const Matrix<S>& V) {
  require(K.rows == V.rows, "V: must have the t of K");
  S acc(0);
  for (std::size_t i = 0; i < K.rows; ++i) acc += euclidean_norm(V.row(i), V.cols) * euclidean_norm(K.row(i), K.cols);
  return acc;
}

// Both bounds from one SVD of K_t: A001-LS-NORM-BOUND Eq. (13) right side
//   ||q_t|| (sum_i ||v_i|| ||k_i||) / lambda_min(K_t^T K_t), lambda_min = sigma_min(K_t)^2,
// and A001-LS-NORM-ALT-BOUND's right side ||q_t|| ||V_t||_2 / sigma_min(K_t) (spectral norm of V_t by SVD).
// Throws when t < D_k or rank K_t < D_k (sigma_min = 0).
template <class S> struct NormBounds {
  S eq13 = S(0), alt = S(0), sigma_min = S(0), lambda_min = S(0);
};
template <class S> NormBounds<S> ls_norm_bounds(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& q) {
  norm_bound_check_inputs(K, V, q);
  NormBounds<S> b;
  b.lambda_min = gram_lambda_min(K);
  require(b.lambda_min > 0, "K: rank < D_k, lambda_min(K^T K) = sigma_min(K)^2 = 0 (the bounds need full column rank)");
  b.sigma_min = norm_bound_detail::sqrt_of(b.lambda_min);
  const S qn = euclidean_norm(q);
  b.eq13 = qn * sum_norm_products(K, V) / b.lambda_min;
  b.alt = qn * spectral_norm(V) / b.sigma_min;
  return b;
}
// A001-LS-NORM-BOUND, Eq. (13) right side alone.
template <class S> S ls_norm_bound_eq13(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& q) { return ls_norm_bounds(K, V, q).eq13; }
// A001-LS-NORM-ALT-BOUND right side alone.
template <class S> S ls_norm_bound_alt(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& q) { return ls_norm_bounds(K, V, q).alt; }

// A001-APPA-S65/S66/S67: the key Gram S_t, its inverse formed by Gaussian elimination X = solve(S_t, I) and
// symmetrised, (X + X^T)/2 (elimination leaves a rounding-level asymmetry), ||S_t^{-1}||_2 by SVD, and the
// Jacobi spectra of S_t and of S_t^{-1} (ascending). Throws when t < D_k or S_t is singular.
template <class S> struct GramSpectra {
  Matrix<S> S_gram, S_inv;
  Vector<S> eig_S, eig_S_inv;  // ascending
  S norm_S_inv = S(0);         // (65) left: ||S^{-1}||_2 (SVD)
  S lambda_max_S_inv = S(0);   // (65) right / (66) left: max_i lambda_i(S^{-1})
  S max_recip_lambda_S = S(0); // (66) right / (67) left: max_i 1 / lambda_i(S)
};
template <class S> GramSpectra<S> gram_inverse_spectra(const Matrix<S>& K) {
  require(K.rows >= K.cols, "K: t = " + std::to_string(K.rows) + " < D_k = " + std::to_string(K.cols) + ": K^T K is singular");
  norm_bound_detail::require_finite(K, "K");
  GramSpectra<S> g;
  g.S_gram = norm_bound_key_gram(K);
  Matrix<S> X;
  try {
    X = solve(g.S_gram, eye<S>(K.cols));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("K: K^T K is singular (") + e.what() + ")");
  }
  g.S_inv = Matrix<S>(K.cols, K.cols);
  for (std::size_t i = 0; i < K.cols; ++i)
    for (std::size_t j = 0; j < K.cols; ++j) g.S_inv(i, j) = (X(i, j) + X(j, i)) / S(2);
  g.norm_S_inv = spectral_norm(g.S_inv);
  g.eig_S_inv = symmetric_eigenvalues(g.S_inv);
  g.eig_S = symmetric_eigenvalues(g.S_gram);
  g.lambda_max_S_inv = g.eig_S_inv.back();
  require(g.eig_S.front() > 0, "K: the Jacobi eigenvalues of K^T K are not all positive (numerically singular Gram)");
  g.max_recip_lambda_S = S(1) / g.eig_S.front();
  for (const S& l : g.eig_S)
    if (S(1) / l > g.max_recip_lambda_S) g.max_recip_lambda_S = S(1) / l;
  return g;
}

// The nine lines (59)-(67) of Appendix A for one (K_t, V_t, q_t), each evaluated by its own route:
//   (59) ||A q||                         A = R S^{-1} (right_solve on the Gram)
//   (60) ||q|| sup_{||u||=1} ||A u||      the sup by power iteration on A^T A
//   (61) ||q|| ||A||_2                   sigma_max(A) by SVD
//   (62) ||q|| ||R||_2 ||S^{-1}||_2       R = V^T K (matmul); S^{-1} formed by Gaussian elimination, SVD norms
//   (63) ||q|| ||sum_i v_i k_i^T||_2 ||S^{-1}||_2
//   (64) ||q|| (sum_i ||v_i|| ||k_i||) ||S^{-1}||_2
//   (65) ||q|| (sum ...) max_i lambda_i(S^{-1})       Jacobi eigenvalues of the formed inverse
//   (66) ||q|| (sum ...) max_i 1 / lambda_i(S)        Jacobi eigenvalues of S
//   (67) ||q|| (sum ...) / lambda_min(S)              lambda_min = sigma_min(K)^2 (SVD of K)
// The formed inverse X = solve(S, I) is symmetrised, (X + X^T)/2, before its SVD and eigen-solve
// (Gaussian elimination leaves a rounding-level asymmetry).
template <class S> struct NormBoundChain {
  std::array<S, 9> line{};  // line[0] = (59) ... line[8] = (67)
  Matrix<S> A, R, rank_one, S_gram, S_inv;
  Vector<S> y;
  S q_norm = S(0), sup_power = S(0), sigma_max_A = S(0), norm_R = S(0), norm_rank_one = S(0), norm_S_inv = S(0);
  S sum_norms = S(0), lambda_max_S_inv = S(0), max_recip_lambda_S = S(0), lambda_min = S(0), sigma_min_K = S(0), sigma_max_K = S(0);
  Vector<S> eig_S, eig_S_inv;  // ascending
  PowerSup<S> power;
};
template <class S> NormBoundChain<S> norm_bound_chain(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& q, const S& power_tol) {
  norm_bound_check_inputs(K, V, q);
  NormBoundChain<S> c;
  const Vector<S> sk = singular_values(K);
  require(K.rows >= K.cols && sk.back() > 0, "K: rank < D_k (t = " + std::to_string(K.rows) + ", D_k = " + std::to_string(K.cols) +
                                                 "): lambda_min(K^T K) = 0, Eqs. (59)-(67) need full column rank");
  c.sigma_max_K = sk.front();
  c.sigma_min_K = sk.back();
  c.lambda_min = c.sigma_min_K * c.sigma_min_K;
  c.A = ls_readout_operator(K, V);
  c.y = matvec(c.A, q.data());
  c.q_norm = euclidean_norm(q);
  c.power = power_iteration_sup(c.A, power_tol);
  c.sup_power = c.power.sup;
  c.sigma_max_A = spectral_norm(c.A);
  c.R = cross_moment_product(K, V);
  c.rank_one = rank_one_sum(K, V);
  c.norm_R = spectral_norm(c.R);
  c.norm_rank_one = spectral_norm(c.rank_one);
  c.sum_norms = sum_norm_products(K, V);
  GramSpectra<S> g = gram_inverse_spectra(K);
  c.S_gram = std::move(g.S_gram);
  c.S_inv = std::move(g.S_inv);
  c.eig_S = std::move(g.eig_S);
  c.eig_S_inv = std::move(g.eig_S_inv);
  c.norm_S_inv = g.norm_S_inv;
  c.lambda_max_S_inv = g.lambda_max_S_inv;
  c.max_recip_lambda_S = g.max_recip_lambda_S;
  const S& qn = c.q_norm;
  c.line[0] = euclidean_norm(c.y);
  c.line[1] = qn * c.sup_power;
  c.line[2] = qn * c.sigma_max_A;
  c.line[3] = qn * c.norm_R * c.norm_S_inv;
  c.line[4] = qn * c.norm_rank_one * c.norm_S_inv;
  c.line[5] = qn * c.sum_norms * c.norm_S_inv;
  c.line[6] = qn * c.sum_norms * c.lambda_max_S_inv;
  c.line[7] = qn * c.sum_norms * c.max_recip_lambda_S;
  c.line[8] = qn * c.sum_norms / c.lambda_min;
  return c;
}
template <class S> NormBoundChain<S> norm_bound_chain(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& q) {
  return norm_bound_chain(K, V, q, default_power_tol<S>());
}

}  // namespace recall::ref
