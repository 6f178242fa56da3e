// Newton-Schulz orthogonalisation (spec A002 Part F), written from the definitions: plain loops, scalar-generic
// (mp_t oracle, double / float same-precision baselines).
//
// IDs implemented here:
//   A002-NEWTON-SCHULZ  newton_schulz(G, steps, co) with co = muon_ns_coefficients<S>() (steps = 5: newton_schulz5)
//   A002-NS-CUBIC       newton_schulz_cubic(G, steps)  (co = cubic_ns_coefficients<S>(), X_0 = G / ||G||_F)
//   A002-NS-SPECTRAL    newton_schulz_spectral(G, steps, co) = U p^{ok}(Sigma / (||G||_F + eps)) V^T via ref::svd
//   (A002-NS-LIMIT target) polar_factor(G, rel_tol, &rank) = U_r V_r^T over the nonzero singular values
//   (A002-ATLAS-NS-BATCH)  newton_schulz_batch(Gs, steps, co): the same iteration on every matrix of a batch
//   ns_scalar_map(s, steps, co): the scalar map s -> p^{ok}(s), p(s) = a s + b s^3 + c s^5
//
// The coefficients are EXTERNAL (the paper gives none; spec A002-NEWTON-SCHULZ, A-33): KellerJordan/Muon
// `zeropower_via_newtonschulz5` (also modded-nanogpt): (a, b, c) = (3.4445, -4.7750, 2.0315), eps = 1e-7, built from
// the decimal strings (exact decimals in mp_t, the nearest binary64 value in double). The algorithm, for G (m x n):
//   X <- G; if m > n: X <- X^T;  X <- X / (||X||_F + eps);  k times: A = X X^T, B = b A + c A^2, X <- a X + B X;
//   if transposed: X <- X^T.
// NOTE p(1) = a + b + c = 0.701 != 1 and p has no stable fixed point: the quintic does not converge to the polar
// factor (A002-NS-LIMIT measures its limit set); an orthogonal input is NOT a fixed point (its singular values are
// first normalised to 1/sqrt(min(m, n)) and then mapped by p^{ok}).
//
// Signatures for the optimized kernel (lead): the fast NS5 must reproduce
//   Matrix<S> newton_schulz(const Matrix<S>& G, int steps, const NsCoefficients<S>& co)
// for every matrix of a batch (newton_schulz_batch), including the transpose rule for tall G, the eps placement
// ||X||_F + eps (NS(0) = 0), and the order A = X X^T, B = b A + c (A A), X = a X + B X.
#pragma once

#include "recall/reference/matrix.hpp"
#include "recall/reference/svd.hpp"

#include <cstdlib>
#include <string>
#include <vector>

namespace recall::ref {

// Coefficients of the odd polynomial p(s) = a s + b s^3 + c s^5 and the normalisation guard eps.
template <class S> struct NsCoefficients {
  S a, b, c, eps;
};

namespace detail {
// a decimal constant in S: exact decimal in mp_t, nearest binary value in float / double
template <class S> S ns_const(const char* s) {
  if constexpr (scalar_traits<S>::is_mp) {
    return S(s);
  } else {
    return static_cast<S>(std::strtod(s, nullptr));
  }
}
template <class S> void ns_require_finite(const Matrix<S>& G, const char* who) {
  for (std::size_t i = 0; i < G.rows; ++i)
    for (std::size_t j = 0; j < G.cols; ++j)
      require(is_finite(G(i, j)), std::string(who) + ": entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                                      ") of the input matrix G is not finite");
}
}  // namespace detail

// A002-NEWTON-SCHULZ: the external Muon quintic coefficients (3.4445, -4.7750, 2.0315), eps = 1e-7 [external].
template <class S> NsCoefficients<S> muon_ns_coefficients() {
  return {detail::ns_const<S>("3.4445"), detail::ns_const<S>("-4.7750"), detail::ns_const<S>("2.0315"), detail::ns_const<S>("1e-7")};
}
// A002-NS-CUBIC: the classical cubic Newton-Schulz map s -> 3/2 s - 1/2 s^3, normalisation without eps.
template <class S> NsCoefficients<S> cubic_ns_coefficients() { return {S(1.5), S(-0.5), S(0), S(0)}; }

// A002-NS-SPECTRAL scalar action: p^{o steps}(s), p(s) = a s + b s^3 + c s^5 (Horner in s^2).
template <class S> S ns_scalar_map(const S& s0, int steps, const NsCoefficients<S>& co) {
  require(steps >= 0, "ns_scalar_map: steps must be >= 0, got " + std::to_string(steps));
  S s = s0;
  for (int k = 0; k < steps; ++k) {
    const S u = s * s;
    s = s * (co.a + u * (co.b + u * co.c));
  }
  return s;
}

// A002-NEWTON-SCHULZ (steps = 5 with muon_ns_coefficients: Newton-Schulz5 of Eqs. 32, 40, 57; A002-NS-CUBIC with
// cubic_ns_coefficients). Throws on a non-finite entry, an empty G, steps < 0, and a zero G when eps = 0.
template <class S>
Matrix<S> newton_schulz(const Matrix<S>& G, int steps = 5, const NsCoefficients<S>& co = muon_ns_coefficients<S>()) {
  require(!G.empty(), "newton_schulz: the input matrix G is empty");
  require(steps >= 0, "newton_schulz: steps must be >= 0, got " + std::to_string(steps));
  detail::ns_require_finite(G, "newton_schulz");
  const bool tall = G.rows > G.cols;
  Matrix<S> X = tall ? transpose(G) : G;  // m <= n from here
  const S nrm = frob(X);
  require(nrm > 0 || co.eps > 0, "newton_schulz: the input matrix G is zero and eps = 0 (normalisation undefined)");
  const S den = nrm + co.eps;
  for (S& x : X.a) x /= den;
  const std::size_t m = X.rows, n = X.cols;
  const MulAddCtx<S> ctx;
  Matrix<S> A(m, m), B(m, m), BX(m, n);
  for (int k = 0; k < steps; ++k) {
    // A = X X^T
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < m; ++j) {
        S& acc = A(i, j);
        acc = 0;
        for (std::size_t l = 0; l < n; ++l) muladd(acc, X(i, l), X(j, l), ctx);
      }
    // B = b A + c A A
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < m; ++j) {
        S acc(0);
        for (std::size_t l = 0; l < m; ++l) muladd(acc, A(i, l), A(l, j), ctx);
        B(i, j) = co.b * A(i, j) + co.c * acc;
      }
    // X = a X + B X
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        S& acc = BX(i, j);
        acc = 0;
        for (std::size_t l = 0; l < m; ++l) muladd(acc, B(i, l), X(l, j), ctx);
      }
    for (std::size_t i = 0; i < X.a.size(); ++i) X.a[i] = co.a * X.a[i] + BX.a[i];
  }
  return tall ? transpose(X) : X;
}
template <class S> Matrix<S> newton_schulz5(const Matrix<S>& G) { return newton_schulz(G, 5, muon_ns_coefficients<S>()); }

// A002-NS-CUBIC: X_0 = G / ||G||_F, X_{j+1} = 3/2 X_j - 1/2 X_j X_j^T X_j (same transpose rule); G must be nonzero.
template <class S> Matrix<S> newton_schulz_cubic(const Matrix<S>& G, int steps) {
  return newton_schulz(G, steps, cubic_ns_coefficients<S>());
}

// A002-ATLAS-NS-BATCH: the iteration applied to every matrix of a batch (a kernel may run them in parallel).
template <class S>
std::vector<Matrix<S>> newton_schulz_batch(const std::vector<Matrix<S>>& Gs, int steps = 5,
                                           const NsCoefficients<S>& co = muon_ns_coefficients<S>()) {
  std::vector<Matrix<S>> out;
  out.reserve(Gs.size());
  for (const Matrix<S>& G : Gs) out.push_back(newton_schulz(G, steps, co));
  return out;
}

// A002-NS-SPECTRAL: U p^{o steps}(Sigma / (||G||_F + eps)) V^T from the thin SVD (ref::svd, one-sided Jacobi).
template <class S>
Matrix<S> newton_schulz_spectral(const Matrix<S>& G, int steps = 5, const NsCoefficients<S>& co = muon_ns_coefficients<S>()) {
  require(!G.empty(), "newton_schulz_spectral: the input matrix G is empty");
  require(steps >= 0, "newton_schulz_spectral: steps must be >= 0, got " + std::to_string(steps));
  detail::ns_require_finite(G, "newton_schulz_spectral");
  const S nrm = frob(G);
  require(nrm > 0 || co.eps > 0, "newton_schulz_spectral: the input matrix G is zero and eps = 0 (normalisation undefined)");
  const S den = nrm + co.eps;
  const Svd<S> d = svd(G);
  Matrix<S> out(G.rows, G.cols);
  for (std::size_t k = 0; k < d.sigma.size(); ++k) {
    if (!(d.sigma[k] > 0)) continue;  // p is odd: zero singular values stay zero
    const S f = ns_scalar_map(S(d.sigma[k] / den), steps, co);
    for (std::size_t i = 0; i < G.rows; ++i) {
      const S ui = d.U(i, k) * f;
      for (std::size_t j = 0; j < G.cols; ++j) muladd(out(i, j), ui, d.V(j, k));
    }
  }
  return out;
}

// A002-NS-LIMIT target: the polar factor U_r V_r^T over the singular values above rel_tol * sigma_max (the
// Frobenius-nearest semi-orthogonal matrix when G has full rank). *rank receives r. A zero G gives a zero matrix.
template <class S> Matrix<S> polar_factor(const Matrix<S>& G, const S& rel_tol, std::size_t* rank = nullptr) {
  require(!G.empty(), "polar_factor: the input matrix G is empty");
  detail::ns_require_finite(G, "polar_factor");
  const Svd<S> d = svd(G);
  const std::size_t r = numerical_rank(d.sigma, rel_tol);
  if (rank) *rank = r;
  Matrix<S> out(G.rows, G.cols);
  for (std::size_t k = 0; k < r; ++k)
    for (std::size_t i = 0; i < G.rows; ++i)
      for (std::size_t j = 0; j < G.cols; ++j) muladd(out(i, j), d.U(i, k), d.V(j, k));
  return out;
}
template <class S> Matrix<S> polar_factor(const Matrix<S>& G, std::size_t* rank = nullptr) {
  return polar_factor(G, default_rank_tol<S>(std::max(G.rows, G.cols)), rank);
}

}  // namespace recall::ref
