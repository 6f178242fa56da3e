// Test-time regression layers of A001 as causal sequence layers, evaluated at every t: the references of
// the registry ops least_squares_attention, weighted_least_squares_attention (y_t = M_t q_t, M_t the
// (weighted) least-squares memory of the prefix, Eqs. 11 and 15) and local_linear_attention (Eq. 52 as
// printed) in properties/src/ops_regression.cpp. They evaluate the printed closed forms; the claim checks
// compare those with the SVD pseudo-inverse forms (least_squares.hpp, weighted_least_squares.hpp,
// local_regression.hpp) at high precision.
#pragma once

#include "recall/reference/linear_attention.hpp"
#include "recall/reference/local_regression.hpp"
#include "recall/reference/regression_rules.hpp"
#include "recall/reference/weighted_least_squares.hpp"

#include <limits>
#include <string>
#include <vector>

namespace recall::ref {

template <class S> struct LsAttentionResult {
  Matrix<S> O;      // T x d_v outputs y_t = M_t q_t
  Matrix<S> state;  // d_v x d_k memory M_T
};

namespace detail {
// L L^T + x x^T = L' L'^T (the rank-one Cholesky update, Golub & Van Loan §6.5.4); x is consumed.
template <class S> void cholesky_update(Matrix<S>& L, Vector<S> x) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  const std::size_t n = L.rows;
  for (std::size_t k = 0; k < n; ++k) {
    const S r = sqrt(L(k, k) * L(k, k) + x[k] * x[k]);
    const S c = r / L(k, k), s = x[k] / L(k, k);
    L(k, k) = r;
    for (std::size_t i = k + 1; i < n; ++i) {
      L(i, k) = (L(i, k) + s * x[i]) / c;
      x[i] = c * x[i] - s * L(i, k);
    }
  }
}
}  // namespace detail

// A001-LS-CLOSED-FORM Eq. (11) / A001-WLS-CLOSED-FORM Eq. (15), at every 1-based t, with weights
// gamma_i^(t) = prod_{j=i+1}^{t} gamma_j (C3; log_gates == nullptr: all 1). The keys that carry weight at t
// are those from the last zero gate on (a zero gate gamma_j = 0 gives every i < j weight exactly 0: a
// reset); with n of them:
//   n >= d_k (overdetermined, Eq. 15 first branch):  y_t = R^G_t (S^G_t)^{-1} q_t,
//     S^G_t = sum_i gamma_i^(t) k_i k_i^T,  R^G_t = sum_i gamma_i^(t) v_i k_i^T  (the weighted moments, accumulated
//     through S^G_t = gamma_t S^G_{t-1} + k_t k_t^T, the identity of A001-GATED-LINATTN-UNROLL); S^G_t enters
//     through its Cholesky factor, computed once when n reaches d_k and then carried exactly as S^G_t is:
//     scaled by sqrt(gamma_t) and updated by k_t (rank-one update), so that a token costs O(d_k^2);
// (Keys that are exactly zero carry no information about M and are left out of the count n and of K_n.)
//   n <  d_k (underdetermined, Eq. 15 second branch on the weighted keys): y_t = V_n^T (K_n K_n^T)^{-1} K_n q_t,
//     the minimum-norm interpolant (the positive weights do not change the weighted argmin set); the Gram
//     K_n K_n^T through its Cholesky factor, bordered by one row per token.
// The memory M_T itself (d_v x d_k) is formed at t = T only. Rank-deficient prefixes take the pseudo-inverse
// definition (below); the claim checks compare both routes on generic keys (A001-LS-CLOSED-FORM, F05, F06).
template <class S>
LsAttentionResult<S> least_squares_attention(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V,
                                             const Vector<S>* log_gates = nullptr) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  detail::check_qkv(Q, K, V, "least_squares_attention");
  if (log_gates) detail::check_log_gates(*log_gates, Q.rows, "least_squares_attention");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  LsAttentionResult<S> r;
  r.O = Matrix<S>(T, dv);
  r.state = Matrix<S>(dv, dk);
  Matrix<S> Sg(dk, dk), Rg(dv, dk), L, Lg;
  bool have_L = false;
  std::vector<std::size_t> idx;  // the non-zero keys with non-zero weight (0-based), since the last zero gate
  // Rank-deficient keys (exactly dependent, as storage rounding can make nearly parallel keys) break the
  // factorisations: from there to the next zero gate every token takes the definition itself, the pseudo-
  // inverse memory (Gamma^{1/2} V)^T ((Gamma^{1/2} K)^+)^T of A001-WLS-CLOSED-FORM (SVD, declared rank threshold).
  bool pinv_mode = false;
  auto pinv_step = [&](std::size_t t) {
    const Matrix<S> M = wls_state(K, V, log_gates, t + 1);
    matvec_into(r.O.row(t), M, Q.row(t));
    if (t + 1 == T) r.state = M;
  };
  for (std::size_t t = 0; t < T; ++t) {
    const S a = log_gates ? exp_log((*log_gates)[t]) : S(1);
    if (a == S(0)) {
      idx.clear();
      Lg = Matrix<S>(0, 0);
      have_L = false;
      pinv_mode = false;
    }
    if (a != S(1)) {
      for (S& x : Sg.a) x *= a;
      for (S& x : Rg.a) x *= a;
      if (have_L) {
        const S sa = sqrt(a);
        for (S& x : L.a) x *= sa;
      }
    }
    add_outer(Sg, K.row(t), K.row(t));
    add_outer(Rg, V.row(t), K.row(t));
    // a zero key adds nothing to the objective's dependence on M (its pair cannot be fit): it is not one of
    // the interpolated keys (the pseudo-inverse's zero row)
    bool nonzero_key = false;
    for (std::size_t j = 0; j < dk; ++j) nonzero_key |= K(t, j) != S(0);
    const std::size_t m = idx.size();
    if (nonzero_key) idx.push_back(t);
    const std::size_t n = idx.size();
    if (pinv_mode) {
      pinv_step(t);
      continue;
    }
    const bool last = t + 1 == T;
    if (n >= dk) {
      if (have_L) {
        detail::cholesky_update(L, Vector<S>(K.row(t), K.row(t) + dk));
      } else {
        have_L = wls_detail::cholesky(Sg, L, S(0));
      }
      if (!have_L) {  // S_t singular (at float/double: to the working precision)
        pinv_mode = true;
        pinv_step(t);
        continue;
      }
      const Vector<S> z = wls_detail::cholesky_solve(L, Q.row(t));
      matvec_into(r.O.row(t), Rg, z.data());
      if (last) {
        try {
          r.state = right_solve(Rg, Sg);
        } catch (const std::invalid_argument&) {
          pinv_step(t);
        }
      }
    } else {
      // G_n = K_n K_n^T through its Cholesky factor, bordered by one row per new key (its inner products with
      // the previous ones), restarted at a reset
      if (nonzero_key) {
        Matrix<S> Lnew(n, n);
        for (std::size_t i = 0; i < m; ++i)
          for (std::size_t j = 0; j <= i; ++j) Lnew(i, j) = Lg(i, j);
        Vector<S> l(m);
        for (std::size_t i = 0; i < m; ++i) {
          S x = dot(K.row(idx[i]), K.row(t), dk);
          for (std::size_t k = 0; k < i; ++k) x -= Lnew(i, k) * l[k];
          l[i] = x / Lnew(i, i);
        }
        S d = dot(K.row(t), K.row(t), dk);
        for (std::size_t k = 0; k < m; ++k) d -= l[k] * l[k];
        if (!(d > 0)) {  // the new key depends on the earlier ones (at float/double: to the working precision)
          pinv_mode = true;
          pinv_step(t);
          continue;
        }
        for (std::size_t k = 0; k < m; ++k) Lnew(m, k) = l[k];
        Lnew(m, m) = sqrt(d);
        Lg = std::move(Lnew);
      }
      Vector<S> c(n);
      for (std::size_t i = 0; i < n; ++i) c[i] = dot(K.row(idx[i]), Q.row(t), dk);
      const Vector<S> w = wls_detail::cholesky_solve(Lg, c.data());  // (K_n K_n^T)^{-1} K_n q_t
      for (std::size_t j = 0; j < dv; ++j) {
        S y(0);
        for (std::size_t i = 0; i < n; ++i) y += V(idx[i], j) * w[i];
        r.O(t, j) = y;
      }
      if (last) {  // M_T = V_n^T (K_n K_n^T)^{-1} K_n
        for (std::size_t col = 0; col < dk; ++col) {
          Vector<S> kc(n);
          for (std::size_t i = 0; i < n; ++i) kc[i] = K(idx[i], col);
          const Vector<S> u = wls_detail::cholesky_solve(Lg, kc.data());
          for (std::size_t j = 0; j < dv; ++j) {
            S y(0);
            for (std::size_t i = 0; i < n; ++i) y += V(idx[i], j) * u[i];
            r.state(j, col) = y;
          }
        }
      }
    }
  }
  return r;
}

// A001-LOCAL-LINEAR-ATTN, Eq. (52) as printed, causal (query q_t over keys i <= t) with the dot-product
// similarity s(k, q) = exp(s q^T k) (A001-SIM-DOTEXP; logit_scale 0: s = 1/sqrt(D_k)), weights
// max-subtracted (Theta does not see a common factor): [M0 M1] = (V^T W X)(X^T W X)^{-1}, X rows [1, (k_i - q)^T],
// by Gaussian elimination on the (1 + D_k) system; y_t = M0. For t <= D_k the system is singular and the
// reading A001-LOCAL-LINEAR-SINGULAR-PINV is used (minimum-norm, the SVD of W^{1/2} X: local_linear_direct), as it
// is wherever the elimination meets a zero pivot (affinely dependent keys).
template <class S>
Matrix<S> local_linear_attention_printed(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, double logit_scale = 0) {
  detail::check_qkv(Q, K, V, "local_linear_attention_printed");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols, n1 = dk + 1;
  const Similarity sim = sim_dot_exp(logit_scale);
  Matrix<S> Y(T, dv);
  for (std::size_t t = 0; t < T; ++t) {
    const S* q = Q.row(t);
    if (t + 1 <= dk) {
      const LocalFit<S> f = local_linear_direct(K, V, t + 1, q, sim, pinv_policy());
      for (std::size_t j = 0; j < dv; ++j) Y(t, j) = f.output[j];
      continue;
    }
    const Vector<S> w = local_weights(sim, K, t + 1, q);
    Matrix<S> G(n1, n1), B(n1, dv);  // X^T W X and (V^T W X)^T
    Vector<S> x(n1);
    for (std::size_t i = 0; i <= t; ++i) {
      x[0] = S(1);
      for (std::size_t j = 0; j < dk; ++j) x[j + 1] = K(i, j) - q[j];
      add_outer(G, w[i], x.data(), x.data());
      add_outer(B, w[i], x.data(), V.row(i));
    }
    Matrix<S> Th;
    try {
      Th = solve(G, B);  // Theta^T
    } catch (const std::invalid_argument&) {
      // affinely dependent keys (at float/double: to the working precision, an exact zero pivot left by
      // cancellation): the reading A001-LOCAL-LINEAR-SINGULAR-PINV, as for t <= d_k
      const LocalFit<S> f = local_linear_direct(K, V, t + 1, q, sim, pinv_policy());
      for (std::size_t j = 0; j < dv; ++j) Y(t, j) = f.output[j];
      continue;
    }
    for (std::size_t j = 0; j < dv; ++j) Y(t, j) = Th(0, j);
  }
  return Y;
}

}  // namespace recall::ref
