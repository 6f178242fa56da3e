// Memory updates as unit gradient steps (A000 group 4, §2.2, App. 7; spec README §3 groups 6, 8,
// 24): the general recurrence of Eq. 35, the general objective of Eq. 36, the Table 2 rows'
// printed objectives (evaluated literally, as printed) with their hand-derived gradients and their
// (A_t, B_t, C_t), the momentum accumulator, and the DeltaNet forms of App. 9.1 (Eqs. 91-93) and
// of the T2-DELTANET fast forms (u-form, matrix form, chunked WY form).
//
// Conventions: memory S is d_v x d_k (d_v x D_phi with a feature map; the caller passes phi(k)
// already mapped as `k`); <X, Y> = tr(X^T Y); time t is 1-based as in the paper; token rows are
// 0-based storage. A unit gradient step is S - grad L(S) (Eq. 60).
#pragma once

#include "recall/reference/linear_attention.hpp"
#include "recall/reference/matrix.hpp"

#include <functional>
#include <string>
#include <vector>

namespace recall::ref {

// ---- small matrix helpers (definitions) ------------------------------------------------------

// <X, Y> = tr(X^T Y) = sum_ij X_ij Y_ij
template <class S> S frob_inner(const Matrix<S>& X, const Matrix<S>& Y) {
  require(X.rows == Y.rows && X.cols == Y.cols, "frob_inner: shapes differ");
  S acc(0);
  for (std::size_t i = 0; i < X.a.size(); ++i) muladd(acc, X.a[i], Y.a[i]);
  return acc;
}
template <class S> S trace(const Matrix<S>& M) {
  require(M.rows == M.cols, "trace: matrix must be square");
  S acc(0);
  for (std::size_t i = 0; i < M.rows; ++i) acc += M(i, i);
  return acc;
}
template <class S> Matrix<S> diag_matrix(const Vector<S>& d) {
  Matrix<S> D(d.size(), d.size());
  for (std::size_t i = 0; i < d.size(); ++i) D(i, i) = d[i];
  return D;
}
// a b^T
template <class S> Matrix<S> outer(const Vector<S>& a, const Vector<S>& b) {
  Matrix<S> M(a.size(), b.size());
  add_outer(M, a.data(), b.data());
  return M;
}
template <class S> Matrix<S> column(const Vector<S>& a) {
  Matrix<S> M(a.size(), 1);
  for (std::size_t i = 0; i < a.size(); ++i) M(i, 0) = a[i];
  return M;
}
template <class S> Matrix<S> add(const Matrix<S>& X, const Matrix<S>& Y, const S& c = S(1)) {  // X + c Y
  require(X.rows == Y.rows && X.cols == Y.cols, "add: shapes differ");
  Matrix<S> Z = X;
  for (std::size_t i = 0; i < Z.a.size(); ++i) muladd(Z.a[i], c, Y.a[i]);
  return Z;
}
template <class S> Matrix<S> scaled(const Matrix<S>& X, const S& c) {
  Matrix<S> Z = X;
  for (S& z : Z.a) z *= c;
  return Z;
}
namespace detail {
template <class S> void check_vec(const Vector<S>& x, std::size_t n, const char* who, const char* what) {
  require(x.size() == n, std::string(who) + ": " + what + " has length " + std::to_string(x.size()) + ", expected " +
                             std::to_string(n));
  for (std::size_t i = 0; i < n; ++i)
    require(is_finite(x[i]), std::string(who) + ": " + what + "[" + std::to_string(i + 1) + "] is NaN or Inf");
}
template <class S> void check_mat(const Matrix<S>& X, std::size_t r, std::size_t c, const char* who, const char* what) {
  require(X.rows == r && X.cols == c, std::string(who) + ": " + what + " must be " + std::to_string(r) + " x " +
                                          std::to_string(c) + ", got " + std::to_string(X.rows) + " x " +
                                          std::to_string(X.cols));
  for (std::size_t i = 0; i < X.a.size(); ++i)
    require(is_finite(X.a[i]), std::string(who) + ": " + what + " has a NaN or Inf entry");
}
}  // namespace detail

// ---- A000-GEN-REC / A000-GEN-OBJ ---------------------------------------------------------------

template <class S> struct Abc {
  Matrix<S> A;  // d_v x d_v
  Matrix<S> B;  // d_k x d_k
  Matrix<S> C;  // d_v x d_k
};

// A000-GEN-REC (Eq. 35 = Eq. 59): S_t = A_t S_{t-1} B_t + C_t for t = 1..T; abc(t) gives the
// 1-based step's matrices. Returns S_0 .. S_T (T + 1 states).
template <class S>
std::vector<Matrix<S>> general_recurrence(const Matrix<S>& S0, std::size_t T, const std::function<Abc<S>(std::size_t)>& abc) {
  const std::size_t dv = S0.rows, dk = S0.cols;
  detail::check_mat(S0, dv, dk, "general_recurrence", "S_0");
  std::vector<Matrix<S>> out;
  out.reserve(T + 1);
  out.push_back(S0);
  for (std::size_t t = 1; t <= T; ++t) {
    const Abc<S> m = abc(t);
    detail::check_mat(m.A, dv, dv, "general_recurrence", "A_t");
    detail::check_mat(m.B, dk, dk, "general_recurrence", "B_t");
    detail::check_mat(m.C, dv, dk, "general_recurrence", "C_t");
    out.push_back(add(matmul(matmul(m.A, out.back()), m.B), m.C));
  }
  return out;
}

// A000-GEN-OBJ (Eq. 36), literally: L(S) = 1/2 tr(S^T S) - 1/2 tr(S^T A S B) - tr(C^T S).
template <class S> S general_objective(const Matrix<S>& St, const Abc<S>& m) {
  const Matrix<S> StT = transpose(St);
  return S(0.5) * trace(matmul(StT, St)) - S(0.5) * trace(matmul(matmul(matmul(StT, m.A), St), m.B)) -
         trace(matmul(transpose(m.C), St));
}
// A000-GEN-OBJ [derived] general gradient: S - 1/2 (A S B + A^T S B^T) - C (Eqs. 61-64 without symmetry).
template <class S> Matrix<S> general_objective_grad(const Matrix<S>& St, const Abc<S>& m) {
  const Matrix<S> asb = matmul(matmul(m.A, St), m.B);
  const Matrix<S> atsbt = matmul(matmul(transpose(m.A), St), transpose(m.B));
  return add(add(add(St, asb, S(-0.5)), atsbt, S(-0.5)), m.C, S(-1));
}
// The linear field of Eq. 62, S -> S - A S B (the gradient of the quadratic part when it exists).
template <class S> Matrix<S> general_field(const Matrix<S>& St, const Abc<S>& m) {
  return add(St, matmul(matmul(m.A, St), m.B), S(-1));
}

// ---- Table 2 rows (A000-T2-*): printed objectives, gradients, (A_t, B_t, C_t) -------------------
// k is phi(k_t) (identity phi for the linear rows); t is 1-based.

// A000-GD-VIEW / A000-T2-LINATTN / A000-T2-SMNONORM (Eqs. 33-34, 68; Table 2 rows 1, 5): L = -<S k, v>.
template <class S> S linattn_objective(const Matrix<S>& St, const Vector<S>& k, const Vector<S>& v) {
  const Vector<S> sk = matvec(St, k.data());
  return -dot(sk.data(), v.data(), v.size());
}
// A000-T2-LINATTN Eq. 66 literally: 1/2 tr(S^T S) - 1/2 tr(S^T S) - tr((v k^T)^T S).
template <class S> S linattn_objective_eq66(const Matrix<S>& St, const Vector<S>& k, const Vector<S>& v) {
  const Matrix<S> StS = matmul(transpose(St), St);
  return S(0.5) * trace(StS) - S(0.5) * trace(StS) - trace(matmul(transpose(outer(v, k)), St));
}
template <class S> Matrix<S> linattn_grad(const Matrix<S>& St, const Vector<S>& k, const Vector<S>& v) {
  require(St.rows == v.size() && St.cols == k.size(), "linattn_grad: S must be d_v x d_k");
  return scaled(outer(v, k), S(-1));  // -v k^T, independent of S
}
template <class S> Abc<S> linattn_abc(const Vector<S>& k, const Vector<S>& v) {
  return {identity_matrix<S>(v.size()), identity_matrix<S>(k.size()), outer(v, k)};
}

// A000-T2-GLA, GLA-row (Table 2 row 2, Eq. 69 read per the group convention):
// L = -<S k, v> + 1/2 sum_r (1 - lambda_r) ||S_{r,:}||^2, (A, B, C) = (diag(lambda), I, v k^T).
template <class S> S gla_row_objective(const Matrix<S>& St, const Vector<S>& k, const Vector<S>& v, const Vector<S>& lam) {
  S reg(0);
  for (std::size_t r = 0; r < St.rows; ++r) {
    S row(0);
    for (std::size_t c = 0; c < St.cols; ++c) muladd(row, St(r, c), St(r, c));
    reg += (S(1) - lam[r]) * row;
  }
  return linattn_objective(St, k, v) + S(0.5) * reg;
}
template <class S> Matrix<S> gla_row_grad(const Matrix<S>& St, const Vector<S>& k, const Vector<S>& v, const Vector<S>& lam) {
  Matrix<S> G = scaled(outer(v, k), S(-1));
  for (std::size_t r = 0; r < St.rows; ++r)
    for (std::size_t c = 0; c < St.cols; ++c) muladd(G(r, c), S(S(1) - lam[r]), St(r, c));
  return G;
}
template <class S> Abc<S> gla_row_abc(const Vector<S>& k, const Vector<S>& v, const Vector<S>& lam) {
  return {diag_matrix(lam), identity_matrix<S>(k.size()), outer(v, k)};
}
// A000-T2-GLA, GLA-col [external + derived]: L = -<S k, v> + 1/2 ||S diag(sqrt(1 - alpha))||_F^2,
// (A, B, C) = (I, diag(alpha), v k^T).
template <class S> S gla_col_objective(const Matrix<S>& St, const Vector<S>& k, const Vector<S>& v, const Vector<S>& al) {
  S reg(0);
  for (std::size_t c = 0; c < St.cols; ++c) {
    S col(0);
    for (std::size_t r = 0; r < St.rows; ++r) muladd(col, St(r, c), St(r, c));
    reg += (S(1) - al[c]) * col;
  }
  return linattn_objective(St, k, v) + S(0.5) * reg;
}
template <class S> Matrix<S> gla_col_grad(const Matrix<S>& St, const Vector<S>& k, const Vector<S>& v, const Vector<S>& al) {
  Matrix<S> G = scaled(outer(v, k), S(-1));
  for (std::size_t r = 0; r < St.rows; ++r)
    for (std::size_t c = 0; c < St.cols; ++c) muladd(G(r, c), S(S(1) - al[c]), St(r, c));
  return G;
}
template <class S> Abc<S> gla_col_abc(const Vector<S>& k, const Vector<S>& v, const Vector<S>& al) {
  return {identity_matrix<S>(v.size()), diag_matrix(al), outer(v, k)};
}
// A000-T2-GLA fast form, GLA-row: o_t = sum_{i<=t} (exp(Lambda_t - Lambda_i) ⊙ v_i) k_i^T q_t with the
// per-channel decay exp of the direct segment sum sum_{j=i+1}^t log lambda_{j,r} (never a ratio).
// log_lam is T x d_v.
template <class S>
Matrix<S> gla_row_outputs_closed(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Matrix<S>& log_lam) {
  detail::check_qkv(Q, K, V, "gla_row_outputs_closed");
  require(log_lam.rows == Q.rows && log_lam.cols == V.cols, "gla_row_outputs_closed: log gates must be T x d_v");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  Matrix<S> O(T, dv);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t i = 0; i <= t; ++i) {
      const S kq = dot(K.row(i), Q.row(t), dk);
      for (std::size_t r = 0; r < dv; ++r) {
        S seg(0);
        for (std::size_t j = i + 1; j <= t; ++j) seg += log_lam(j, r);
        muladd(O(t, r), S(exp_log(seg) * V(i, r)), kq);
      }
    }
  return O;
}

// A000-T2-DELTANET Eq. 71 literally: L = 1/2 tr(S^T S k k^T) - tr(k v^T S).
template <class S> S deltanet_objective_eq71(const Matrix<S>& St, const Vector<S>& k, const Vector<S>& v) {
  return S(0.5) * trace(matmul(matmul(transpose(St), St), outer(k, k))) - trace(matmul(outer(k, v), St));
}
// A000-T2-DELTANET Eq. 74 (beta = 1 as printed) and DeltaNet-beta [derived]: L = beta/2 ||S k - v||^2.
template <class S> S deltanet_objective(const Matrix<S>& St, const Vector<S>& k, const Vector<S>& v, const S& beta = S(1)) {
  Vector<S> e = matvec(St, k.data());
  for (std::size_t i = 0; i < e.size(); ++i) e[i] -= v[i];
  return S(0.5) * beta * dot(e.data(), e.data(), e.size());
}
template <class S> Matrix<S> deltanet_grad(const Matrix<S>& St, const Vector<S>& k, const Vector<S>& v, const S& beta = S(1)) {
  Vector<S> e = matvec(St, k.data());
  for (std::size_t i = 0; i < e.size(); ++i) e[i] = beta * (e[i] - v[i]);
  return outer(e, k);
}
// (I, I - beta k k^T, beta v k^T) (Eq. 70 with beta = 1).
template <class S> Abc<S> deltanet_abc(const Vector<S>& k, const Vector<S>& v, const S& beta = S(1)) {
  return {identity_matrix<S>(v.size()), add(identity_matrix<S>(k.size()), outer(k, k), S(-beta)), scaled(outer(v, k), beta)};
}

// A000-T2-MOMENTUM Eq. 75, recurrent: C_t = eta_t C_{t-1} + v_t k_t^T (C_0 = 0), t = 1..T (rows of K, V;
// eta has one entry per token; eta_1 multiplies C_0 = 0). Returns C_1 .. C_T.
template <class S>
std::vector<Matrix<S>> momentum_accumulator(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& eta) {
  require(K.rows == V.rows && eta.size() == K.rows, "momentum_accumulator: K, V, eta must have one row per token");
  std::vector<Matrix<S>> out;
  Matrix<S> C(V.cols, K.cols);
  for (std::size_t t = 0; t < K.rows; ++t) {
    C = scaled(C, eta[t]);
    add_outer(C, V.row(t), K.row(t));
    out.push_back(C);
  }
  return out;
}
// A000-T2-MOMENTUM Eq. 75, closed form: C_t = sum_{i<=t} (prod_{j=i+1}^t eta_j) v_i k_i^T with the
// products as exp of direct log-space segment sums (t 1-based).
template <class S>
Matrix<S> momentum_accumulator_closed(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& eta, std::size_t t) {
  require(t >= 1 && t <= K.rows && eta.size() == K.rows, "momentum_accumulator_closed: t out of range");
  Vector<S> lg(eta.size());
  for (std::size_t j = 0; j < eta.size(); ++j) lg[j] = log_gate(eta[j]);
  Matrix<S> C(V.cols, K.cols);
  for (std::size_t i = 0; i < t; ++i) add_outer(C, exp_log(segment_log_sum(lg, i, t - 1)), V.row(i), K.row(i));
  return C;
}
// Momentum weights g_i = prod_{j=i+1}^t eta_j, i = 1..t (log-space).
template <class S> Vector<S> momentum_weights(const Vector<S>& eta, std::size_t t) {
  Vector<S> lg(eta.size());
  for (std::size_t j = 0; j < eta.size(); ++j) lg[j] = log_gate(eta[j]);
  Vector<S> g(t);
  for (std::size_t i = 0; i < t; ++i) g[i] = exp_log(segment_log_sum(lg, i, t - 1));
  return g;
}
// A000-T2-MOMENTUM Table 2 objective: L = 1/2 ||S k_t||^2 - sum_{i<=t} g_i v_i^T S k_i.
template <class S>
S momentum_objective_table(const Matrix<S>& St, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& eta, std::size_t t) {
  const Vector<S> g = momentum_weights(eta, t);
  Vector<S> kt(K.row(t - 1), K.row(t - 1) + K.cols);
  const Vector<S> sk = matvec(St, kt.data());
  S L = S(0.5) * dot(sk.data(), sk.data(), sk.size());
  for (std::size_t i = 0; i < t; ++i) {
    const Vector<S> ski = matvec(St, K.row(i));
    L -= g[i] * dot(V.row(i), ski.data(), V.cols);
  }
  return L;
}
// A000-T2-MOMENTUM-EQ76 as printed: L = 1/2 ||S k_t||^2 - sum_{i<=t} g_i <S k_t, v_t>.
template <class S>
S momentum_objective_eq76(const Matrix<S>& St, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& eta, std::size_t t) {
  const Vector<S> g = momentum_weights(eta, t);
  const Vector<S> sk = matvec(St, K.row(t - 1));
  S L = S(0.5) * dot(sk.data(), sk.data(), sk.size());
  const S inner = dot(sk.data(), V.row(t - 1), V.cols);
  for (std::size_t i = 0; i < t; ++i) L -= g[i] * inner;
  return L;
}
// Table 2 momentum gradient: S k_t k_t^T - C_t.
template <class S> Matrix<S> momentum_grad_table(const Matrix<S>& St, const Vector<S>& kt, const Matrix<S>& Ct) {
  return add(outer(matvec(St, kt.data()), kt), Ct, S(-1));
}
// A000-T2-MOMENTUM recurrence: S_t = S_{t-1}(I - k_t k_t^T) + C_t, written as S_{t-1} - (S_{t-1} k_t) k_t^T + C_t.
template <class S>
std::vector<Matrix<S>> momentum_deltanet(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& eta) {
  const std::vector<Matrix<S>> C = momentum_accumulator(K, V, eta);
  std::vector<Matrix<S>> out;
  Matrix<S> St(V.cols, K.cols);
  out.push_back(St);
  for (std::size_t t = 0; t < K.rows; ++t) {
    const Vector<S> sk = matvec(St, K.row(t));
    add_outer(St, S(-1), sk.data(), K.row(t));
    St = add(St, C[t]);
    out.push_back(St);
  }
  return out;
}

// A000-T2-SMNORM Eq. 80 / A000-SOFTMAX-OBJ Eq. 49: L = 1/t (1/2 ||S||_F^2 - <S phi(k), v>).
template <class S> S smnorm_objective(const Matrix<S>& St, const Vector<S>& k, const Vector<S>& v, std::size_t t) {
  return (S(0.5) * frob_inner(St, St) + linattn_objective(St, k, v)) / S(t);
}
template <class S> Matrix<S> smnorm_grad(const Matrix<S>& St, const Vector<S>& k, const Vector<S>& v, std::size_t t) {
  return scaled(add(St, outer(v, k), S(-1)), S(S(1) / S(t)));
}
// ((t-1)/t I, I, 1/t v phi(k)^T) (Eq. 79).
template <class S> Abc<S> smnorm_abc(const Vector<S>& k, const Vector<S>& v, std::size_t t) {
  return {scaled(identity_matrix<S>(v.size()), S(S(t - 1) / S(t))), identity_matrix<S>(k.size()),
          scaled(outer(v, k), S(S(1) / S(t)))};
}
// A000-T2-SMNORM closed form: S_t = (1/t) sum_{i<=t} v_i phi(k_i)^T (running mean), t 1-based.
template <class S> Matrix<S> running_mean_state(const Matrix<S>& PhiK, const Matrix<S>& V, std::size_t t) {
  Matrix<S> M = linear_attention_state_closed(PhiK, V, t);
  return scaled(M, S(S(1) / S(t)));
}

// A000-T2-GSM as printed (Table 2 row 7; Eq. 81 is the same expression factored):
// L = -1/t <S phi(k), v> + 1/(2t) sum_r (1 - lambda_r) ||S_{r,:}||^2.
template <class S>
S gsm_objective_printed(const Matrix<S>& St, const Vector<S>& k, const Vector<S>& v, const Vector<S>& lam, std::size_t t) {
  return gla_row_objective(St, k, v, lam) / S(t);
}
// Eq. 81 literally: 1/t (1/2 sum_r (1 - lambda_r) ||S_r||^2 - <S phi(k), v>).
template <class S>
S gsm_objective_eq81(const Matrix<S>& St, const Vector<S>& k, const Vector<S>& v, const Vector<S>& lam, std::size_t t) {
  S reg(0);
  for (std::size_t r = 0; r < St.rows; ++r)
    for (std::size_t c = 0; c < St.cols; ++c) reg += (S(1) - lam[r]) * St(r, c) * St(r, c);
  return (S(0.5) * reg + linattn_objective(St, k, v)) / S(t);
}
template <class S>
Matrix<S> gsm_grad_printed(const Matrix<S>& St, const Vector<S>& k, const Vector<S>& v, const Vector<S>& lam, std::size_t t) {
  return scaled(gla_row_grad(St, k, v, lam), S(S(1) / S(t)));
}
// ((t-1)/t diag(lambda), I, 1/t v phi(k)^T) (Table 2 row 7).
template <class S> Abc<S> gsm_abc(const Vector<S>& k, const Vector<S>& v, const Vector<S>& lam, std::size_t t) {
  return {scaled(diag_matrix(lam), S(S(t - 1) / S(t))), identity_matrix<S>(k.size()), scaled(outer(v, k), S(S(1) / S(t)))};
}
// A000-T2-GSM-EQ36 [derived]: 1/2 ||diag(sqrt(1 - (t-1)/t lambda)) S||_F^2 - 1/t <S phi(k), v>.
template <class S>
S gsm_objective_eq36(const Matrix<S>& St, const Vector<S>& k, const Vector<S>& v, const Vector<S>& lam, std::size_t t) {
  S reg(0);
  const S f = S(t - 1) / S(t);
  for (std::size_t r = 0; r < St.rows; ++r) {
    S row(0);
    for (std::size_t c = 0; c < St.cols; ++c) muladd(row, St(r, c), St(r, c));
    reg += (S(1) - f * lam[r]) * row;
  }
  return S(0.5) * reg + linattn_objective(St, k, v) / S(t);
}
template <class S>
Matrix<S> gsm_grad_eq36(const Matrix<S>& St, const Vector<S>& k, const Vector<S>& v, const Vector<S>& lam, std::size_t t) {
  const S f = S(t - 1) / S(t);
  Matrix<S> G = scaled(outer(v, k), S(S(-1) / S(t)));
  for (std::size_t r = 0; r < St.rows; ++r)
    for (std::size_t c = 0; c < St.cols; ++c) muladd(G(r, c), S(S(1) - f * lam[r]), St(r, c));
  return G;
}

// ---- DeltaNet forms (A000-T2-DELTANET fast forms, A000-DELTANET-INFOAGG) -----------------------

// A000-T2-DELTANET u-form: u_t = beta_t (v_t - S_{t-1} k_t), S_t = S_{t-1} + u_t k_t^T, o_t = S_t q_t.
template <class S>
LinearAttentionResult<S> delta_rule_u_form(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& beta) {
  detail::check_qkv(Q, K, V, "delta_rule_u_form");
  require(beta.size() == Q.rows, "delta_rule_u_form: beta must have one entry per token");
  const std::size_t T = Q.rows, dv = V.cols;
  LinearAttentionResult<S> r;
  r.state = Matrix<S>(dv, K.cols);
  r.O = Matrix<S>(T, dv);
  for (std::size_t t = 0; t < T; ++t) {
    Vector<S> u = matvec(r.state, K.row(t));
    for (std::size_t i = 0; i < dv; ++i) u[i] = beta[t] * (V(t, i) - u[i]);
    add_outer(r.state, u.data(), K.row(t));
    matvec_into(r.O.row(t), r.state, Q.row(t));
  }
  return r;
}
// A000-T2-DELTANET matrix form: (I + diag(beta) tril(K K^T, -1)) U = diag(beta) V (forward
// substitution, unit diagonal), O = tril(Q K^T, 0) U.
template <class S>
Matrix<S> delta_rule_matrix_form(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& beta) {
  detail::check_qkv(Q, K, V, "delta_rule_matrix_form");
  require(beta.size() == Q.rows, "delta_rule_matrix_form: beta must have one entry per token");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  Matrix<S> U(T, dv);
  for (std::size_t i = 0; i < T; ++i) {
    for (std::size_t c = 0; c < dv; ++c) U(i, c) = beta[i] * V(i, c);
    for (std::size_t j = 0; j < i; ++j) {
      const S a = beta[i] * dot(K.row(i), K.row(j), dk);
      for (std::size_t c = 0; c < dv; ++c) U(i, c) -= a * U(j, c);
    }
  }
  Matrix<S> O(T, dv);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t i = 0; i <= t; ++i) {
      const S w = dot(Q.row(t), K.row(i), dk);
      for (std::size_t c = 0; c < dv; ++c) muladd(O(t, c), w, U(i, c));
    }
  return O;
}
// A000-T2-DELTANET chunked (WY / UT) form with chunk size Cs: per chunk, U_c solves
// (I + diag(beta_c) tril(K_c K_c^T, -1)) U_c = diag(beta_c)(V_c - K_c S_prev^T),
// O_c = Q_c S_prev^T + tril(Q_c K_c^T, 0) U_c, S <- S_prev + U_c^T K_c.
template <class S>
LinearAttentionResult<S> delta_rule_chunked(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& beta,
                                            std::size_t Cs) {
  detail::check_qkv(Q, K, V, "delta_rule_chunked");
  require(beta.size() == Q.rows, "delta_rule_chunked: beta must have one entry per token");
  require(Cs >= 1, "delta_rule_chunked: chunk size must be >= 1");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  LinearAttentionResult<S> r;
  r.state = Matrix<S>(dv, dk);
  r.O = Matrix<S>(T, dv);
  for (std::size_t c0 = 0; c0 < T; c0 += Cs) {
    const std::size_t n = std::min(Cs, T - c0);
    const Matrix<S> Sp = r.state;
    Matrix<S> U(n, dv);
    for (std::size_t i = 0; i < n; ++i) {
      const Vector<S> pk = matvec(Sp, K.row(c0 + i));
      for (std::size_t c = 0; c < dv; ++c) U(i, c) = beta[c0 + i] * (V(c0 + i, c) - pk[c]);
      for (std::size_t j = 0; j < i; ++j) {
        const S a = beta[c0 + i] * dot(K.row(c0 + i), K.row(c0 + j), dk);
        for (std::size_t c = 0; c < dv; ++c) U(i, c) -= a * U(j, c);
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      matvec_into(r.O.row(c0 + i), Sp, Q.row(c0 + i));
      for (std::size_t j = 0; j <= i; ++j) {
        const S w = dot(Q.row(c0 + i), K.row(c0 + j), dk);
        for (std::size_t c = 0; c < dv; ++c) muladd(r.O(c0 + i, c), w, U(j, c));
      }
    }
    for (std::size_t j = 0; j < n; ++j) add_outer(r.state, U.row(j), K.row(c0 + j));
  }
  return r;
}

// A000-DELTANET-INFOAGG (App. 9.1, Eqs. 91-93): the four members of the Eq. 93 chain, each
// propagating its own state S_0 = 0 .. S_T:
//  agg   : u_t = v_t - sum_{i<t} (k_i^T k_t) u_i (Eq. 92), S_t = S_{t-1} + u_t k_t^T
//  resid : S_t = S_{t-1} + (v_t - S_{t-1} k_t) k_t^T
//  prod  : S_t = S_{t-1} (I - k_t k_t^T) + v_t k_t^T
// plus the vanilla linear memory of Eq. 91 (S_t = S_{t-1} + v_t k_t^T) for contrast, and U (T x d_v).
template <class S> struct InfoAggChain {
  std::vector<Matrix<S>> agg, resid, prod, vanilla;
  Matrix<S> U;
};
template <class S> InfoAggChain<S> deltanet_infoagg_chain(const Matrix<S>& K, const Matrix<S>& V) {
  require(K.rows == V.rows, "deltanet_infoagg_chain: K and V must have the same number of tokens");
  const std::size_t T = K.rows, dk = K.cols, dv = V.cols;
  InfoAggChain<S> c;
  c.U = Matrix<S>(T, dv);
  Matrix<S> Sa(dv, dk), Sr(dv, dk), Sp(dv, dk), Sv(dv, dk);
  c.agg.push_back(Sa); c.resid.push_back(Sr); c.prod.push_back(Sp); c.vanilla.push_back(Sv);
  const Matrix<S> I = identity_matrix<S>(dk);
  for (std::size_t t = 0; t < T; ++t) {
    for (std::size_t j = 0; j < dv; ++j) c.U(t, j) = V(t, j);
    for (std::size_t i = 0; i < t; ++i) {
      const S kk = dot(K.row(i), K.row(t), dk);
      for (std::size_t j = 0; j < dv; ++j) c.U(t, j) -= kk * c.U(i, j);
    }
    add_outer(Sa, c.U.row(t), K.row(t));
    Vector<S> e = matvec(Sr, K.row(t));
    for (std::size_t j = 0; j < dv; ++j) e[j] = V(t, j) - e[j];
    add_outer(Sr, e.data(), K.row(t));
    Matrix<S> P = I;
    add_outer(P, S(-1), K.row(t), K.row(t));
    Sp = matmul(Sp, P);
    add_outer(Sp, V.row(t), K.row(t));
    add_outer(Sv, V.row(t), K.row(t));
    c.agg.push_back(Sa); c.resid.push_back(Sr); c.prod.push_back(Sp); c.vanilla.push_back(Sv);
  }
  return c;
}

}  // namespace recall::ref
