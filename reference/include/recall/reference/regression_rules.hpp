// Test-time regression rules of seed 001 (§4 Vignettes 1 and 3) that are not in delta_rule.hpp:
// RLS (Woodbury) with and without forgetting, ridge / least-squares solutions, the literal
// printed lines of the SGD, leaky-LMS and Gated-DeltaNet updates, multi-step SGD, DeltaProduct
// micro-steps, the Longhorn direct solve, the GDN parameter map and its inverse, the ordered-product
// and WY/UT chunk closed forms of F08/F09 (written from their definitions, as forms independent of
// the recurrences in delta_rule.hpp), and the streaming objectives with their gradients.
//
// Plain loops, templated on the scalar; canonical memory M (d_v x d_k), tokens are rows.
#pragma once

#include "recall/reference/delta_rule.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/matrix.hpp"

#include <string>

namespace recall::ref {

// ---- small dense algebra ----------------------------------------------------------------------

template <class S> Matrix<S> eye(std::size_t n) {
  Matrix<S> I(n, n);
  for (std::size_t i = 0; i < n; ++i) I(i, i) = S(1);
  return I;
}
// A^{-1} B by Gaussian elimination with partial pivoting (A square). A zero pivot is an error.
template <class S> Matrix<S> solve(Matrix<S> A, Matrix<S> B) {
  using std::abs;
  using boost::multiprecision::abs;
  require(A.rows == A.cols && B.rows == A.rows, "solve: A must be n x n and B must have n rows");
  const std::size_t n = A.rows, m = B.cols;
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t p = c;
    for (std::size_t r = c + 1; r < n; ++r)
      if (abs(A(r, c)) > abs(A(p, c))) p = r;
    require(A(p, c) != S(0), "solve: the matrix is singular (zero pivot in column " + std::to_string(c + 1) + ")");
    if (p != c) {
      for (std::size_t j = 0; j < n; ++j) std::swap(A(p, j), A(c, j));
      for (std::size_t j = 0; j < m; ++j) std::swap(B(p, j), B(c, j));
    }
    // row updates A(r, :) -= f A(c, :) as in-place multiply-adds with -f (bit for bit the same as the
    // rounded product and the rounded subtraction; no temporaries: matrix.hpp's muladd)
    const MulAddCtx<S> ctx;
    for (std::size_t r = c + 1; r < n; ++r) {
      const S f = A(r, c) / A(c, c);
      if (f == S(0)) continue;
      const S nf = -f;
      for (std::size_t j = c; j < n; ++j) muladd(A(r, j), nf, A(c, j), ctx);
      for (std::size_t j = 0; j < m; ++j) muladd(B(r, j), nf, B(c, j), ctx);
    }
  }
  const MulAddCtx<S> ctx;
  for (std::size_t ii = n; ii-- > 0;)
    for (std::size_t j = 0; j < m; ++j) {
      S u = B(ii, j);
      for (std::size_t k = ii + 1; k < n; ++k) {
        const S na = -A(ii, k);
        muladd(u, na, B(k, j), ctx);
      }
      B(ii, j) = u / A(ii, ii);
    }
  return B;
}
// B A^{-1} (right division) = (A^{-T} B^T)^T.
template <class S> Matrix<S> right_solve(const Matrix<S>& B, const Matrix<S>& A) { return transpose(solve(transpose(A), transpose(B))); }

// ---- streaming objectives (A001 Eq. 18 terms, Eq. 30, Eq. 34) ---------------------------------

// L_t(M) = 1/2 ||M k - v||^2 (A001 Eq. 18, term t).
template <class S> S sq_loss(const Matrix<S>& M, const S* k, const S* v) {
  Vector<S> r = matvec(M, k);
  S acc(0);
  for (std::size_t i = 0; i < r.size(); ++i) {
    r[i] -= v[i];
    muladd(acc, r[i], r[i]);
  }
  return acc / S(2);
}
// grad L_t(M) = (M k - v) k^T.
template <class S> Matrix<S> sq_loss_grad(const Matrix<S>& M, const S* k, const S* v) {
  Vector<S> r = matvec(M, k);
  for (std::size_t i = 0; i < r.size(); ++i) r[i] -= v[i];
  Matrix<S> G(M.rows, M.cols);
  add_outer(G, r.data(), k);
  return G;
}
// Prefix objective L_t(M) = sum_{i<=t} w_i L_i(M) (A001 Eq. 10/14/18; w = 1 unweighted), t 1-based.
template <class S> S prefix_loss(const Matrix<S>& M, const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const Vector<S>* w = nullptr) {
  S acc(0);
  for (std::size_t i = 0; i < t; ++i) {
    const S l = sq_loss(M, K.row(i), V.row(i));
    acc += w ? S((*w)[i] * l) : l;
  }
  return acc;
}
template <class S> Matrix<S> prefix_loss_grad(const Matrix<S>& M, const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const Vector<S>* w = nullptr) {
  Matrix<S> G(M.rows, M.cols);
  for (std::size_t i = 0; i < t; ++i) {
    const Matrix<S> g = sq_loss_grad(M, K.row(i), V.row(i));
    const S wi = w ? (*w)[i] : S(1);
    for (std::size_t a = 0; a < G.a.size(); ++a) muladd(G.a[a], wi, g.a[a]);
  }
  return G;
}
// A001-L2REG-OBJECTIVE per-step term (reading R1/R2 agree on it): L_t(M) + lambda/2 ||M||_F^2.
template <class S> S l2reg_term(const Matrix<S>& M, const S* k, const S* v, const S& lambda) {
  S n2(0);
  for (const S& x : M.a) muladd(n2, x, x);
  return sq_loss(M, k, v) + lambda * n2 / S(2);
}
// A001-LONGHORN Eq. (30): 1/2 ||M - Mprev||_F^2 + delta/2 ||v - M k||^2.
template <class S> S longhorn_objective(const Matrix<S>& M, const Matrix<S>& Mprev, const S* k, const S* v, const S& delta) {
  S n2(0), d;
  for (std::size_t a = 0; a < M.a.size(); ++a) {
    d = M.a[a] - Mprev.a[a];
    muladd(n2, d, d);
  }
  return n2 / S(2) + delta * sq_loss(M, k, v);
}
// Its gradient: (M - Mprev) - delta (v - M k) k^T.
template <class S> Matrix<S> longhorn_objective_grad(const Matrix<S>& M, const Matrix<S>& Mprev, const S* k, const S* v, const S& delta) {
  Matrix<S> G = sq_loss_grad(M, k, v);
  for (std::size_t a = 0; a < G.a.size(); ++a) G.a[a] = M.a[a] - Mprev.a[a] + delta * G.a[a];
  return G;
}

// ---- single-step printed lines ----------------------------------------------------------------

// A001-DELTANET-DEF Eq. (5), literally: v_old = M k, v_new = beta v + (1 - beta) v_old,
// M_t = M - v_old k^T + v_new k^T.
template <class S> Matrix<S> deltanet_eq5_step(const Matrix<S>& M, const S* k, const S* v, const S& beta) {
  const Vector<S> vold = matvec(M, k);
  Vector<S> vnew(M.rows), negold(M.rows);
  for (std::size_t i = 0; i < M.rows; ++i) {
    vnew[i] = beta * v[i] + (S(1) - beta) * vold[i];
    negold[i] = -vold[i];
  }
  Matrix<S> out = M;
  add_outer(out, negold.data(), k);
  add_outer(out, vnew.data(), k);
  return out;
}
// A001-DELTANET-DEF Eq. (5) over a sequence (outputs y_t = M_t q_t).
template <class S>
LinearAttentionResult<S> deltanet_eq5(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& beta, const Matrix<S>* M0 = nullptr) {
  detail::check_qkv(Q, K, V, "deltanet_eq5");
  detail::check_beta(beta, Q.rows, "deltanet_eq5");
  LinearAttentionResult<S> r;
  r.state = detail::initial_state(M0, V.cols, K.cols, "deltanet_eq5");
  r.O = Matrix<S>(Q.rows, V.cols);
  for (std::size_t t = 0; t < Q.rows; ++t) {
    r.state = deltanet_eq5_step(r.state, K.row(t), V.row(t), beta[t]);
    matvec_into(r.O.row(t), r.state, Q.row(t));
  }
  return r;
}
// M (I - c k k^T) + b v k^T with the matrix I - c k k^T formed explicitly (A001 Eq. 6 / 28 / 31 / 33 third line).
template <class S> Matrix<S> transition_form_step(const Matrix<S>& M, const S* k, const S* v, const S& c, const S& b, const S& a = S(1)) {
  const std::size_t dk = M.cols;
  Matrix<S> A = eye<S>(dk);
  add_outer(A, S(-c), k, k);
  for (S& x : A.a) x *= a;
  Matrix<S> out = matmul(M, A);
  add_outer(out, b, v, k);
  return out;
}
// A001-SGD-LAYER Eq. (27) / A001-LEAKY-LMS Eq. (37): decay M + beta (v - M k) k^T (decay = 1: Eq. 27).
template <class S> Matrix<S> error_form_step(const Matrix<S>& M, const S* k, const S* v, const S& beta, const S& decay = S(1)) {
  Vector<S> e = matvec(M, k);
  for (std::size_t i = 0; i < e.size(); ++i) e[i] = v[i] - e[i];
  Matrix<S> out = M;
  for (S& x : out.a) x *= decay;
  add_outer(out, beta, e.data(), k);
  return out;
}
// A001-LEAKY-LMS Eq. (35): M - beta [grad L_t(M) + lambda M];  Eq. (36): (1 - beta lambda) M - beta grad L_t(M).
template <class S> Matrix<S> leaky_eq35_step(const Matrix<S>& M, const S* k, const S* v, const S& beta, const S& lambda) {
  const Matrix<S> G = sq_loss_grad(M, k, v);
  Matrix<S> out = M;
  for (std::size_t a = 0; a < out.a.size(); ++a) out.a[a] = M.a[a] - beta * (G.a[a] + lambda * M.a[a]);
  return out;
}
template <class S> Matrix<S> leaky_eq36_step(const Matrix<S>& M, const S* k, const S* v, const S& beta, const S& lambda) {
  const Matrix<S> G = sq_loss_grad(M, k, v);
  Matrix<S> out = M;
  const S decay = S(1) - beta * lambda;
  for (std::size_t a = 0; a < out.a.size(); ++a) out.a[a] = decay * M.a[a] - beta * G.a[a];
  return out;
}
// A001-GATED-DELTANET-REPARAM Eq. (39): M [alpha I - beta k k^T] + beta v k^T.
template <class S> Matrix<S> gdn_eq39_step(const Matrix<S>& M, const S* k, const S* v, const S& alpha, const S& beta) {
  Matrix<S> A = eye<S>(M.cols);
  for (S& x : A.a) x *= alpha;
  add_outer(A, S(-beta), k, k);
  Matrix<S> out = matmul(M, A);
  add_outer(out, beta, v, k);
  return out;
}
// Eq. (40): M alpha [I - (beta/alpha) k k^T] + (beta/alpha) (alpha v) k^T (needs alpha > 0).
template <class S> Matrix<S> gdn_eq40_step(const Matrix<S>& M, const S* k, const S* v, const S& alpha, const S& beta) {
  require(alpha != S(0), "gdn_eq40_step: alpha = 0 (eta = beta/alpha undefined)");
  const S ratio = beta / alpha;
  Vector<S> va(M.rows);
  for (std::size_t i = 0; i < M.rows; ++i) va[i] = alpha * v[i];
  return transition_form_step(M, k, va.data(), ratio, ratio, alpha);
}
// Eq. (41): M alpha (I - eta k k^T) + eta v' k^T with (alpha, eta, v') given.
template <class S> Matrix<S> gdn_eq41_step(const Matrix<S>& M, const S* k, const S* vprime, const S& alpha, const S& eta) {
  return transition_form_step(M, k, vprime, eta, eta, alpha);
}

// A001-GATED-DELTANET-REPARAM / A001-GDN-MAP-INVERTIBLE: (alpha, eta, scale of v') = (1 - beta lambda, beta/(1 - beta lambda), 1 - beta lambda).
template <class S> struct GdnParams { S alpha, eta; };
template <class S> GdnParams<S> gdn_forward_map(const S& beta, const S& lambda) {
  const S alpha = S(1) - beta * lambda;
  require(alpha != S(0), "gdn_forward_map: beta * lambda = 1 gives alpha = 0 and eta = beta/0 (map undefined)");
  return {alpha, beta / alpha};
}
// candidate inverse (lambda, beta) = ((1 - alpha)/(alpha eta), alpha eta); v = v'/alpha.
template <class S> struct LeakyParams { S lambda, beta; };
template <class S> LeakyParams<S> gdn_inverse_map(const S& alpha, const S& eta) {
  require(alpha != S(0) && eta != S(0), "gdn_inverse_map: alpha * eta = 0 (lambda = (1 - alpha)/(alpha eta) undefined)");
  return {(S(1) - alpha) / (alpha * eta), alpha * eta};
}

// A001-LONGHORN check form: (Mprev + delta v k^T)(I + delta k k^T)^{-1} by a dense solve.
template <class S> Matrix<S> longhorn_direct_solve(const Matrix<S>& Mprev, const S* k, const S* v, const S& delta) {
  Matrix<S> B = Mprev;
  add_outer(B, delta, v, k);
  Matrix<S> A = eye<S>(Mprev.cols);
  add_outer(A, delta, k, k);
  return right_solve(B, A);
}

// A001-MULTISTEP-SGD: I literal SGD steps (Eq. 26) with constant beta on one pair.
template <class S> Matrix<S> sgd_multistep(const Matrix<S>& M0, const S* k, const S* v, const S& beta, int steps) {
  Matrix<S> M = M0;
  for (int i = 0; i < steps; ++i) M = error_form_step(M, k, v, beta);
  return M;
}
// Its closed form: M0 + (1 - (1 - beta ||k||^2)^I)/||k||^2 (v - M0 k) k^T.
template <class S> Matrix<S> sgd_multistep_closed(const Matrix<S>& M0, const S* k, const S* v, const S& beta, int steps) {
  using std::pow;
  using boost::multiprecision::pow;
  const S kk = dot(k, k, M0.cols);
  require(kk > S(0), "sgd_multistep_closed: zero key");
  S p(1);
  for (int i = 0; i < steps; ++i) p *= S(1) - beta * kk;
  return error_form_step(M0, k, v, S((S(1) - p) / kk));
}

// A001-DELTAPRODUCT [external, Siems et al. 2025]: token t has n_h micro-steps with rows
// t*n_h + j of K, V, beta (j = 0..n_h-1); output after the last micro-step, y_t = M q_t.
template <class S>
LinearAttentionResult<S> deltaproduct(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& beta, std::size_t nh,
                                      const Matrix<S>* M0 = nullptr) {
  require(nh >= 1 && K.rows == Q.rows * nh && V.rows == K.rows && beta.size() == K.rows && Q.cols == K.cols,
          "deltaproduct: K, V, beta need n_h rows per token and Q one row per token");
  LinearAttentionResult<S> r;
  r.state = detail::initial_state(M0, V.cols, K.cols, "deltaproduct");
  r.O = Matrix<S>(Q.rows, V.cols);
  for (std::size_t t = 0; t < Q.rows; ++t) {
    for (std::size_t j = 0; j < nh; ++j) {
      const std::size_t m = t * nh + j;
      r.state = transition_form_step(r.state, K.row(m), V.row(m), beta[m], beta[m]);
    }
    matvec_into(r.O.row(t), r.state, Q.row(t));
  }
  return r;
}

// ---- RLS (A001-RLS, A001-RLS-RIDGE-INIT, A001-WRLS) ---------------------------------------------

template <class S> struct RlsResult { Matrix<S> O, M, P; };
// Woodbury gain form with forgetting gates gamma_t (null: gamma = 1, plain RLS):
// g = P k / (gamma + k^T P k), P <- (P - P k k^T P / (gamma + k^T P k)) / gamma, M <- M + (v - M k) g^T.
template <class S>
RlsResult<S> rls(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Matrix<S>& P0, const Matrix<S>& M0, const Vector<S>* gamma = nullptr) {
  detail::check_qkv(Q, K, V, "rls");
  const std::size_t dk = K.cols, dv = V.cols;
  require(P0.rows == dk && P0.cols == dk && M0.rows == dv && M0.cols == dk, "rls: P0 must be d_k x d_k and M0 d_v x d_k");
  require(!gamma || gamma->size() == Q.rows, "rls: gamma must have one entry per token");
  RlsResult<S> r{Matrix<S>(Q.rows, dv), M0, P0};
  for (std::size_t t = 0; t < Q.rows; ++t) {
    const S g_t = gamma ? (*gamma)[t] : S(1);
    require(g_t > S(0), "rls: gamma[" + std::to_string(t + 1) + "] must be > 0 (a zero gate is a reset)");
    const S* k = K.row(t);
    const Vector<S> Pk = matvec(r.P, k);
    const S den = g_t + dot(k, Pk.data(), dk);
    Vector<S> g(dk);
    for (std::size_t i = 0; i < dk; ++i) g[i] = Pk[i] / den;
    Vector<S> e = matvec(r.M, k);
    for (std::size_t i = 0; i < dv; ++i) e[i] = V(t, i) - e[i];
    add_outer(r.M, e.data(), g.data());
    add_outer(r.P, S(-1) / den, Pk.data(), Pk.data());
    if (g_t != S(1))
      for (S& x : r.P.a) x /= g_t;
    matvec_into(r.O.row(t), r.M, Q.row(t));
  }
  return r;
}
// "Delta rule with matrix step" form of A001-RLS / A001-WRLS: P_t from the Woodbury update, then
// g_t = P_t k_t, M_t = gamma-free M_{t-1}(I - k_t k_t^T P_t) + v_t k_t^T P_t (matrices formed explicitly).
template <class S>
RlsResult<S> rls_matrix_step(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Matrix<S>& P0, const Matrix<S>& M0,
                             const Vector<S>* gamma = nullptr) {
  detail::check_qkv(Q, K, V, "rls_matrix_step");
  const std::size_t dk = K.cols, dv = V.cols;
  RlsResult<S> r{Matrix<S>(Q.rows, dv), M0, P0};
  for (std::size_t t = 0; t < Q.rows; ++t) {
    const S g_t = gamma ? (*gamma)[t] : S(1);
    require(g_t > S(0), "rls_matrix_step: gamma must be > 0");
    const S* k = K.row(t);
    const Vector<S> Pk = matvec(r.P, k);
    const S den = g_t + dot(k, Pk.data(), dk);
    add_outer(r.P, S(-1) / den, Pk.data(), Pk.data());
    if (g_t != S(1))
      for (S& x : r.P.a) x /= g_t;
    const Vector<S> g = matvec(r.P, k);  // P_t k_t
    Matrix<S> A = eye<S>(dk);
    add_outer(A, S(-1), k, g.data());  // I - k g^T = I - k k^T P_t (P_t symmetric)
    Matrix<S> M = matmul(r.M, A);
    add_outer(M, V.row(t), g.data());
    r.M = M;
    matvec_into(r.O.row(t), r.M, Q.row(t));
  }
  return r;
}
// Weighted ridge state R^w (S^w + mu_eff I)^{-1} at 1-based t, with weights w_i = prod_{j=i+1}^t gamma_j and
// mu_eff = mu prod_{j=1}^t gamma_j (A001-RLS-RIDGE-INIT with gamma = 1; A001-WRLS (I2)); mu = 0: the
// (weighted) least-squares solution R S^{-1} of A001-LS-CLOSED-FORM / Eq. (15). log_gamma: log gates (null: 1).
template <class S>
Matrix<S> ridge_state(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S& mu, const Vector<S>* log_gamma = nullptr) {
  require(t >= 1 && t <= K.rows && K.rows == V.rows, "ridge_state: t out of range");
  const std::size_t dk = K.cols, dv = V.cols;
  Matrix<S> R(dv, dk), Sg(dk, dk);
  for (std::size_t i = 0; i < t; ++i) {
    const S w = log_gamma ? exp_log(segment_log_sum(*log_gamma, i, t - 1)) : S(1);
    add_outer(R, w, V.row(i), K.row(i));
    add_outer(Sg, w, K.row(i), K.row(i));
  }
  S mu_eff = mu;
  if (log_gamma) {
    S l(0);
    for (std::size_t j = 0; j < t; ++j) l += (*log_gamma)[j];
    mu_eff *= exp_log(l);
  }
  for (std::size_t i = 0; i < dk; ++i) Sg(i, i) += mu_eff;
  return right_solve(R, Sg);
}
// A001-RIDGE-LIMIT target V^T (K^+)^T for K = A B (A: t x r full column rank, B: r x d_k full row rank):
// K^+ = B^T (B B^T)^{-1} (A^T A)^{-1} A^T (the pseudo-inverse of a full-rank factorisation).
template <class S> Matrix<S> min_norm_ls_state(const Matrix<S>& A, const Matrix<S>& B, const Matrix<S>& V) {
  require(A.cols == B.rows && A.rows == V.rows, "min_norm_ls_state: K = A B needs A t x r, B r x d_k, V t x d_v");
  const Matrix<S> At = transpose(A), Bt = transpose(B);
  const Matrix<S> left = solve(matmul(At, A), At);                 // (A^T A)^{-1} A^T : r x t
  const Matrix<S> Kp = matmul(right_solve(Bt, matmul(B, Bt)), left);  // B^T (B B^T)^{-1} (A^T A)^{-1} A^T : d_k x t
  return matmul(transpose(V), transpose(Kp));
}

// ---- closed forms of the delta rule (A001-F08-DELTANET-CHUNK, A001-F09-GDN-CHUNK) ---------------

// Ordered-product closed form (F08): M_t = M0 prod_{j<=t}(I - beta_j k_j k_j^T)
//   + sum_{i<=t} beta_i v_i k_i^T prod_{j=i+1}^t (I - beta_j k_j k_j^T), j increasing left to right; t 1-based.
template <class S> Matrix<S> delta_ordered_product_state(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& beta, std::size_t t,
                                                         const Matrix<S>* M0 = nullptr) {
  const std::size_t dk = K.cols, dv = V.cols;
  Matrix<S> P = eye<S>(dk);  // prod_{j=i+1}^t, built from the right end (i = t, t-1, ...)
  Matrix<S> M(dv, dk);
  for (std::size_t i = t; i-- > 0;) {
    Matrix<S> term(dv, dk);
    add_outer(term, beta[i], V.row(i), K.row(i));
    const Matrix<S> tp = matmul(term, P);
    for (std::size_t a = 0; a < M.a.size(); ++a) M.a[a] += tp.a[a];
    Matrix<S> Fi = eye<S>(dk);
    add_outer(Fi, S(-beta[i]), K.row(i), K.row(i));
    P = matmul(Fi, P);
  }
  if (M0) {
    const Matrix<S> m0p = matmul(*M0, P);
    for (std::size_t a = 0; a < M.a.size(); ++a) M.a[a] += m0p.a[a];
  }
  return M;
}

// Chunked residual forms (F08 / F09) with chunk size C. In a chunk with incoming state M0, the
// residuals delta_i (rows of Delta) solve a unit lower-triangular system; then
// y_t = a_t M0 q_t + sum_{i<=t} (a_t/a_i)(k_i^T q_t) delta_i and M_C = a_C M0 + sum_i (a_C/a_i) delta_i k_i^T,
// with chunk-local a_t = prod_{j=1}^t alpha_j as exp of log-gate sums (README §1.5; ratios are segment sums).
//   Param::deltanet  (F08):  (I + Diag(beta) tril_{-1}(K K^T)) Delta = Diag(beta)(V - K M0^T), alpha = 1.
//   Param::gdn       (F09, GDN):  (I + Diag(eta)(G o tril_{-1}(K K^T))) Delta = Diag(eta)(V' - Diag(a) K M0^T).
//   Param::leaky     (F09, leaky): delta_t + beta_t sum_{i<t} (a_{t-1}/a_i)(k_t^T k_i) delta_i = beta_t (v_t - a_{t-1} M0 k_t).
enum class ChunkParam { deltanet, gdn, leaky };
template <class S> struct ChunkResult { Matrix<S> O, state, Delta; };
template <class S>
ChunkResult<S> delta_chunked(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& step, const Vector<S>* log_alpha,
                             ChunkParam param, std::size_t C, const Matrix<S>* M0 = nullptr) {
  detail::check_qkv(Q, K, V, "delta_chunked");
  require(C >= 1 && step.size() == Q.rows, "delta_chunked: chunk size >= 1 and one step size per token");
  require(param == ChunkParam::deltanet || (log_alpha && log_alpha->size() == Q.rows), "delta_chunked: gated forms need log_alpha per token");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  ChunkResult<S> r{Matrix<S>(T, dv), detail::initial_state(M0, dv, dk, "delta_chunked"), Matrix<S>(T, dv)};
  for (std::size_t c0 = 0; c0 < T; c0 += C) {
    const std::size_t n = std::min(C, T - c0);
    // la[t] = log a_t = sum_{j=c0}^{c0+t} log alpha_j (chunk-local, inclusive); decay(i, t) = a_t / a_i over (i, t].
    auto log_a = [&](std::size_t t) {  // t: chunk-local 0-based
      S s(0);
      if (param != ChunkParam::deltanet)
        for (std::size_t j = 0; j <= t; ++j) s += (*log_alpha)[c0 + j];
      return s;
    };
    auto ratio = [&](std::size_t i, std::size_t t) {  // a_t / a_i for i <= t, chunk-local, segment (i, t]
      if (param == ChunkParam::deltanet) return S(1);
      return exp_log(segment_log_sum(*log_alpha, c0 + i, c0 + t));
    };
    const Matrix<S> M0c = r.state;
    Matrix<S> A(n, n), rhs(n, dv);
    for (std::size_t t = 0; t < n; ++t) {
      const std::size_t g = c0 + t;
      // decay applied to M0 k_t in the right-hand side: a_t (deltanet: 1; gdn: a_t; leaky: a_{t-1})
      S d0(1);
      if (param == ChunkParam::gdn) d0 = exp_log(log_a(t));
      if (param == ChunkParam::leaky) d0 = t == 0 ? S(1) : exp_log(log_a(t - 1));
      const Vector<S> mk = matvec(M0c, K.row(g));
      for (std::size_t c = 0; c < dv; ++c) rhs(t, c) = step[g] * (V(g, c) - d0 * mk[c]);
      for (std::size_t i = 0; i < t; ++i) {
        S w(1);
        if (param == ChunkParam::gdn) w = ratio(i, t);
        if (param == ChunkParam::leaky) w = ratio(i, t - 1);
        A(t, i) = step[g] * w * dot(K.row(g), K.row(c0 + i), dk);
      }
    }
    const Matrix<S> D = unit_lower_solve(A, rhs);
    for (std::size_t t = 0; t < n; ++t) {
      const std::size_t g = c0 + t;
      for (std::size_t c = 0; c < dv; ++c) r.Delta(g, c) = D(t, c);
      const S at = exp_log(log_a(t));
      Vector<S> y = matvec(M0c, Q.row(g));
      for (std::size_t c = 0; c < dv; ++c) y[c] *= at;
      for (std::size_t i = 0; i <= t; ++i) {
        const S w = ratio(i, t) * dot(K.row(c0 + i), Q.row(g), dk);
        for (std::size_t c = 0; c < dv; ++c) muladd(y[c], w, D(i, c));
      }
      for (std::size_t c = 0; c < dv; ++c) r.O(g, c) = y[c];
    }
    const S aC = exp_log(log_a(n - 1));
    Matrix<S> M = M0c;
    for (S& x : M.a) x *= aC;
    for (std::size_t i = 0; i < n; ++i) add_outer(M, ratio(i, n - 1), D.row(i), K.row(c0 + i));
    r.state = M;
  }
  return r;
}


// ---- A001-TTT [external, Sun et al. 2024, per-token online version] ------------------------------
// Memory f(k) = [k +] N(z), z = W k (linear) or z = W2 gelu(W1 k) (MLP); N = LayerNorm without affine
// parameters, N(z) = (z - mean z)/sqrt(var z + eps) (declared eps), or the identity when ln = false.
// Loss l(theta) = 1/2 ||v - f(k)||^2; one SGD step theta <- theta - beta grad l. D_v = D_k when residual.
struct TttConfig {
  bool mlp = false, residual = true, ln = true;
  double eps = 1e-6;
};
template <class S> struct TttParams { Matrix<S> W1, W2; };  // linear: W1 only (d_v x d_k); MLP: W1 (h x d_k), W2 (d_v x h)

template <class S> S gelu(const S& x) {
  using std::erf; using std::sqrt;
  using boost::multiprecision::erf; using boost::multiprecision::sqrt;
  return x * (S(1) + erf(S(x / sqrt(S(2))))) / S(2);
}
template <class S> S gelu_prime(const S& x) {  // Phi(x) + x phi(x)
  using std::erf; using std::sqrt; using std::exp; using std::acos;
  using boost::multiprecision::erf; using boost::multiprecision::sqrt; using boost::multiprecision::exp; using boost::multiprecision::acos;
  const S pi = acos(S(-1));
  return (S(1) + erf(S(x / sqrt(S(2))))) / S(2) + x * exp(S(-x * x / S(2))) / sqrt(S(2) * pi);
}
// Forward pass with the intermediates the hand gradient needs.
template <class S> struct TttForward { Vector<S> h, a, z, xhat, f; S sigma; };
template <class S> TttForward<S> ttt_forward(const TttParams<S>& th, const S* k, std::size_t dk, const TttConfig& c) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  TttForward<S> o;
  if (c.mlp) {
    o.h = matvec(th.W1, k);
    o.a.resize(o.h.size());
    for (std::size_t i = 0; i < o.h.size(); ++i) o.a[i] = gelu(o.h[i]);
    o.z = matvec(th.W2, o.a.data());
  } else {
    o.z = matvec(th.W1, k);
  }
  const std::size_t d = o.z.size();
  o.xhat = o.z;
  o.sigma = S(1);
  if (c.ln) {
    S mean(0), var(0);
    for (const S& x : o.z) mean += x;
    mean /= S(d);
    for (const S& x : o.z) var += (x - mean) * (x - mean);
    var /= S(d);
    o.sigma = sqrt(S(var + S(c.eps)));
    for (std::size_t i = 0; i < d; ++i) o.xhat[i] = (o.z[i] - mean) / o.sigma;
  }
  o.f = o.xhat;
  if (c.residual) {
    require(d == dk, "ttt_forward: the residual connection needs D_v = D_k");
    for (std::size_t i = 0; i < d; ++i) o.f[i] += k[i];
  }
  return o;
}
template <class S> S ttt_loss_half(const TttParams<S>& th, const S* k, const S* v, std::size_t dk, const TttConfig& c) {
  const TttForward<S> o = ttt_forward(th, k, dk, c);
  S acc(0);
  for (std::size_t i = 0; i < o.f.size(); ++i) { const S r = o.f[i] - v[i]; muladd(acc, r, r); }
  return acc / S(2);
}
// Hand-written gradient (backpropagation written out): r = f - v; LN^T: g_z = (r - mean r - xhat mean(r o xhat))/sigma.
template <class S> TttParams<S> ttt_grad_hand(const TttParams<S>& th, const S* k, const S* v, std::size_t dk, const TttConfig& c) {
  const TttForward<S> o = ttt_forward(th, k, dk, c);
  const std::size_t d = o.f.size();
  Vector<S> r(d), gz(d);
  for (std::size_t i = 0; i < d; ++i) r[i] = o.f[i] - v[i];
  if (c.ln) {
    S mr(0), mrx(0);
    for (std::size_t i = 0; i < d; ++i) { mr += r[i]; muladd(mrx, r[i], o.xhat[i]); }
    mr /= S(d);
    mrx /= S(d);
    for (std::size_t i = 0; i < d; ++i) gz[i] = (r[i] - mr - o.xhat[i] * mrx) / o.sigma;
  } else {
    gz = r;
  }
  TttParams<S> g;
  if (c.mlp) {
    g.W2 = Matrix<S>(th.W2.rows, th.W2.cols);
    add_outer(g.W2, gz.data(), o.a.data());
    Vector<S> gh(o.h.size(), S(0));
    for (std::size_t j = 0; j < th.W2.cols; ++j) {
      for (std::size_t i = 0; i < d; ++i) muladd(gh[j], th.W2(i, j), gz[i]);
      gh[j] *= gelu_prime(o.h[j]);
    }
    g.W1 = Matrix<S>(th.W1.rows, th.W1.cols);
    add_outer(g.W1, gh.data(), k);
  } else {
    g.W1 = Matrix<S>(th.W1.rows, th.W1.cols);
    add_outer(g.W1, gz.data(), k);
  }
  return g;
}

}  // namespace recall::ref
