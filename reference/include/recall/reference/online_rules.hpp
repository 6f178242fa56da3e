// Online-learning view of the A004 state updates (spec A004 Parts D, F, G, H), written from the
// printed definitions: the delta-rule fast weight programmer Eqs. (20)-(24) literally, the five
// printed single-step updates (U-LA, U-Mamba2, U-Longhorn, U-DeltaNet, U-GDN) as matrix products,
// their online-learning objectives J and gradients, the "one step of gradient descent" readings,
// the TTT "notice" template, and two closed forms of the (gated) delta rule used to check the
// sequential references of delta_rule.hpp: the chunked WY/UT form and the ordered-product form.
// Canonical memory S is d_v x d_k (value-major, spec C2); tokens are rows; 0-based storage.
#pragma once

#include "recall/reference/delta_rule.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/matrix.hpp"
#include "recall/reference/ttt.hpp"

#include <string>

namespace recall::ref {

namespace detail {
template <class S> void check_vec(std::size_t got, std::size_t want, const char* who, const char* what) {
  require(got == want, std::string(who) + ": " + what + " has length " + std::to_string(got) + ", expected " +
                           std::to_string(want));
}
}  // namespace detail

// ---- Part D: delta-rule fast weight programmer, Eqs. (20)-(24) ------------------------------

// A004-DELTA-READ (Eq. 20): vbar = W^{(i-1)} phi(k^{(i)}); W: d_v x d_phi, phik: d_phi.
template <class S> Vector<S> delta_read(const Matrix<S>& W, const S* phik, std::size_t dphi) {
  require(W.cols == dphi, "delta_read: W must be d_v x d_phi with d_phi = length of phi(k)");
  return matvec(W, phik);
}

// A004-DELTA-BETA-GATE (Eq. 21): the logistic in its stable form (e^{-|z|} never overflows).
template <class S> S sigmoid_stable(const S& z) {
  using std::exp;
  using boost::multiprecision::exp;
  require(!(z != z), "sigmoid_stable: argument is NaN");
  if (z >= S(0)) return S(1) / (S(1) + S(exp(S(-z))));
  const S e = exp(z);
  return e / (S(1) + e);
}
// beta^{(i)} = sigm(W_beta x^{(i)}), W_beta: 1 x d_in (one scalar per head and step).
template <class S> S delta_beta_gate(const Vector<S>& w_beta, const S* x, std::size_t din) {
  detail::check_vec<S>(w_beta.size(), din, "delta_beta_gate", "W_beta");
  const S z = dot(w_beta.data(), x, din);
  require(is_finite(z), "delta_beta_gate: W_beta x is not finite");
  return sigmoid_stable(z);
}

// A004-DELTA-VNEW (Eq. 22): v_new = beta v + (1 - beta) vbar.
template <class S> Vector<S> delta_vnew(const S& beta, const S* v, const Vector<S>& vbar) {
  Vector<S> out(vbar.size());
  const S omb = S(1) - beta;
  for (std::size_t c = 0; c < vbar.size(); ++c) out[c] = beta * v[c] + omb * vbar[c];
  return out;
}

// A004-DELTA-23-24 (Eq. 23): W + v_new (x) phi(k) - vbar (x) phi(k), evaluated as written: the
// write, then the remove (two rank-one updates).
template <class S> Matrix<S> delta_write_remove(const Matrix<S>& W, const Vector<S>& vnew, const Vector<S>& vbar, const S* phik) {
  require(vnew.size() == W.rows && vbar.size() == W.rows, "delta_write_remove: v_new and vbar must have length d_v");
  Matrix<S> out = W;
  add_outer(out, vnew.data(), phik);        // write
  add_outer(out, S(-1), vbar.data(), phik); // remove
  return out;
}
// A004-DELTA-23-24 (Eq. 24): W + beta (v - vbar) (x) phi(k).
template <class S> Matrix<S> delta_beta_difference(const Matrix<S>& W, const S& beta, const S* v, const Vector<S>& vbar, const S* phik) {
  require(vbar.size() == W.rows, "delta_beta_difference: vbar must have length d_v");
  Vector<S> e(W.rows);
  for (std::size_t c = 0; c < W.rows; ++c) e[c] = beta * (v[c] - vbar[c]);
  Matrix<S> out = W;
  add_outer(out, e.data(), phik);
  return out;
}

enum class DeltaForm { eq23, eq24 };
template <class S> struct DeltaFwpResult {
  Matrix<S> Y;       // T x d_v read-outs
  Matrix<S> W;       // final fast weights (d_v x d_phi)
  Vector<S> z;       // final key-sum (normalised read-out only)
  Vector<S> denom;   // z^{(i)} . phi(q^{(i)}) per token (normalised read-out only)
};
// A004-DELTA-FWP (Eqs. 20-24, read-out y = W^{(i)} phi(q^{(i)}), Schlag et al.) and
// A004-DELTA-FWP-ZNORM (znorm: z^{(i)} = z^{(i-1)} + phi(k^{(i)}) (Eq. 18), y = W phi(q) / (z . phi(q)) (Eq. 19)).
// PhiQ, PhiK: T x d_phi feature rows; beta supplied (from Eq. 21 or directly). A zero
// denominator of the normalised read-out is an error naming the token.
template <class S>
DeltaFwpResult<S> delta_fwp(const Matrix<S>& PhiQ, const Matrix<S>& PhiK, const Matrix<S>& V, const Vector<S>& beta,
                            DeltaForm form = DeltaForm::eq24, bool znorm = false, const Matrix<S>* W0 = nullptr) {
  detail::check_qkv(PhiQ, PhiK, V, "delta_fwp");
  detail::check_beta(beta, V.rows, "delta_fwp");
  const std::size_t T = V.rows, dp = PhiK.cols, dv = V.cols;
  DeltaFwpResult<S> r;
  r.W = detail::initial_state(W0, dv, dp, "delta_fwp");
  r.Y = Matrix<S>(T, dv);
  if (znorm) { r.z.assign(dp, S(0)); r.denom.assign(T, S(0)); }
  for (std::size_t i = 0; i < T; ++i) {
    const S* phik = PhiK.row(i);
    const Vector<S> vbar = delta_read(r.W, phik, dp);                                  // (20)
    if (form == DeltaForm::eq23) r.W = delta_write_remove(r.W, delta_vnew(beta[i], V.row(i), vbar), vbar, phik);  // (22), (23)
    else r.W = delta_beta_difference(r.W, beta[i], V.row(i), vbar, phik);                // (24)
    Vector<S> y = matvec(r.W, PhiQ.row(i));
    if (znorm) {
      for (std::size_t c = 0; c < dp; ++c) r.z[c] += phik[c];                          // (18)
      const S den = dot(r.z.data(), PhiQ.row(i), dp);
      r.denom[i] = den;
      require(den != S(0), "delta_fwp: normalised read-out denominator z . phi(q) is zero at token " + std::to_string(i + 1));
      for (S& x : y) x /= den;                                                          // (19)
    }
    for (std::size_t c = 0; c < dv; ++c) r.Y(i, c) = y[c];
  }
  return r;
}

// ---- Part F/G: the printed single-step updates and the online-learning objectives -----------

enum class OnlineRule { la, mamba2, longhorn, deltanet, gdn };
inline const char* online_rule_name(OnlineRule r) {
  switch (r) {
    case OnlineRule::la: return "U-LA";
    case OnlineRule::mamba2: return "U-Mamba2";
    case OnlineRule::longhorn: return "U-Longhorn";
    case OnlineRule::deltanet: return "U-DeltaNet";
    case OnlineRule::gdn: return "U-GDN";
  }
  return "?";
}

// Longhorn step as printed: eps_t = beta_t / (1 + beta_t k^T k) (finite beta >= 0; the rewritten
// overflow-free form is ref::longhorn_step).
template <class S> S longhorn_eps_printed(const S& beta, const S* k, std::size_t dk) {
  require(is_finite(beta) && !(beta < S(0)), "longhorn_eps_printed: beta must be finite and >= 0");
  return beta / (S(1) + beta * dot(k, k, dk));
}

// A004-UPD-LA / -MAMBA2 / -LONGHORN / -DELTANET / -GDN, one step exactly as printed, as matrix
// products: S_t = S_{t-1} A_t + b_t v_t k_t^T with
//   LA: A = I, b = 1;  Mamba2: A = alpha I, b = 1;  Longhorn: A = I - eps k k^T, b = eps;
//   DeltaNet: A = I - beta k k^T, b = beta;  GDN: A = alpha (I - beta k k^T), b = beta.
template <class S>
Matrix<S> online_update(OnlineRule rule, const Matrix<S>& Sprev, const S* k, const S* v, const S& alpha, const S& beta) {
  const std::size_t dk = Sprev.cols;
  require(is_finite(alpha) && is_finite(beta), "online_update: alpha and beta must be finite");
  S c(1), b(0), w(1);  // A = c (I - b k k^T), write weight w
  switch (rule) {
    case OnlineRule::la: break;
    case OnlineRule::mamba2: c = alpha; break;
    case OnlineRule::longhorn: b = longhorn_eps_printed(beta, k, dk); w = b; break;
    case OnlineRule::deltanet: b = beta; w = beta; break;
    case OnlineRule::gdn: c = alpha; b = beta; w = beta; break;
  }
  Matrix<S> A(dk, dk);
  for (std::size_t i = 0; i < dk; ++i)
    for (std::size_t j = 0; j < dk; ++j) A(i, j) = c * (S(i == j ? 1 : 0) - b * k[i] * k[j]);
  Matrix<S> out = matmul(Sprev, A);
  add_outer(out, w, v, k);
  return out;
}

// Online-learning objectives of the objective table (unknown S, data S_{t-1}, k, v, alpha, beta):
//  A004-OBJ-LA:            J = ||S - S_{t-1}||^2 - 2 v^T S k
//  A004-OBJ-MAMBA2:        J = ||S - alpha S_{t-1}||^2 - 2 v^T S k
//  A004-OBJ-LONGHORN:      J = ||S - S_{t-1}||^2 - beta ||S k - v||^2   (printed sign)
//  A004-OBJ-LONGHORN-ALT:  J = ||S - S_{t-1}||^2 + beta ||S k - v||^2
//  A004-OBJ-DELTANET:      J = ||S - S_{t-1}||^2 - 2 beta (v - S_{t-1} k)^T S k
//  A004-OBJ-GDN:           J = ||S - alpha S_{t-1}||^2 - 2 beta (v - alpha S_{t-1} k)^T S k
enum class Objective { la, mamba2, longhorn, longhorn_plus, deltanet, gdn };
inline const char* objective_name(Objective o) {
  switch (o) {
    case Objective::la: return "J_LA";
    case Objective::mamba2: return "J_M2";
    case Objective::longhorn: return "J_LH";
    case Objective::longhorn_plus: return "J_LH+";
    case Objective::deltanet: return "J_DN";
    case Objective::gdn: return "J_GDN";
  }
  return "?";
}
namespace detail {
// anchor of the proximal term: alpha S_{t-1} (Mamba2, GDN) or S_{t-1}
template <class S> bool obj_decayed(Objective o) { return o == Objective::mamba2 || o == Objective::gdn; }
// linear target u of the -2 u^T S k term (LA, Mamba2: v; DN: beta (v - S_{t-1} k); GDN: beta (v - alpha S_{t-1} k))
template <class S> Vector<S> obj_target(Objective o, const Matrix<S>& Sprev, const S* k, const S* v, const S& alpha, const S& beta) {
  const std::size_t dv = Sprev.rows, dk = Sprev.cols;
  Vector<S> u(v, v + dv);
  if (o == Objective::deltanet || o == Objective::gdn) {
    const Vector<S> p = matvec(Sprev, k);
    const S a = o == Objective::gdn ? alpha : S(1);
    for (std::size_t c = 0; c < dv; ++c) u[c] = beta * (v[c] - a * p[c]);
  }
  (void)dk;
  return u;
}
template <class S> void check_obj(const Matrix<S>& Sm, const Matrix<S>& Sprev, const char* who) {
  require(Sm.rows == Sprev.rows && Sm.cols == Sprev.cols, std::string(who) + ": S and S_{t-1} must both be d_v x d_k");
}
}  // namespace detail

template <class S>
S online_objective(Objective o, const Matrix<S>& Sm, const Matrix<S>& Sprev, const S* k, const S* v, const S& alpha, const S& beta) {
  detail::check_obj(Sm, Sprev, "online_objective");
  const std::size_t dv = Sm.rows, dk = Sm.cols;
  const S a = detail::obj_decayed<S>(o) ? alpha : S(1);
  S prox(0), d;
  for (std::size_t i = 0; i < Sm.a.size(); ++i) { d = Sm.a[i] - a * Sprev.a[i]; muladd(prox, d, d); }
  const Vector<S> Sk = matvec(Sm, k);
  if (o == Objective::longhorn || o == Objective::longhorn_plus) {
    S rec(0);
    for (std::size_t c = 0; c < dv; ++c) { d = Sk[c] - v[c]; muladd(rec, d, d); }
    return o == Objective::longhorn ? S(prox - beta * rec) : S(prox + beta * rec);
  }
  const Vector<S> u = detail::obj_target(o, Sprev, k, v, alpha, beta);
  (void)dk;
  return prox - S(2) * dot(u.data(), Sk.data(), dv);
}

// Analytic gradients (derived from the objectives above, Frobenius inner product):
//  LA, M2, DN, GDN: 2 (S - a S_{t-1}) - 2 u k^T;  LH: 2 (S - S_{t-1}) - 2 beta (S k - v) k^T;  LH+: ... + 2 beta (S k - v) k^T.
template <class S>
Matrix<S> online_objective_grad(Objective o, const Matrix<S>& Sm, const Matrix<S>& Sprev, const S* k, const S* v, const S& alpha,
                                const S& beta) {
  detail::check_obj(Sm, Sprev, "online_objective_grad");
  const std::size_t dv = Sm.rows;
  const S a = detail::obj_decayed<S>(o) ? alpha : S(1);
  Matrix<S> G(Sm.rows, Sm.cols);
  for (std::size_t i = 0; i < Sm.a.size(); ++i) G.a[i] = S(2) * (Sm.a[i] - a * Sprev.a[i]);
  if (o == Objective::longhorn || o == Objective::longhorn_plus) {
    Vector<S> r = matvec(Sm, k);
    for (std::size_t c = 0; c < dv; ++c) r[c] -= v[c];
    add_outer(G, o == Objective::longhorn ? S(-2 * beta) : S(2 * beta), r.data(), k);
    return G;
  }
  const Vector<S> u = detail::obj_target(o, Sprev, k, v, alpha, beta);
  add_outer(G, S(-2), u.data(), k);
  return G;
}

// A004-OBJ-LA-GRAD: the gradient as printed on the slide, 2 (S_t - S_{t-1}) - 2 v_t k_t^T.
template <class S> Matrix<S> obj_la_grad_printed(const Matrix<S>& St, const Matrix<S>& Sprev, const S* k, const S* v) {
  detail::check_obj(St, Sprev, "obj_la_grad_printed");
  Matrix<S> G(St.rows, St.cols);
  for (std::size_t i = 0; i < St.a.size(); ++i) G.a[i] = S(2) * (St.a[i] - Sprev.a[i]);
  add_outer(G, S(-2), v, k);
  return G;
}

// ---- Part G: "one step of gradient descent" readings, Part H: the online template ------------

// l_lin(S) = -<S k, v> (A004-GDVIEW-LINLOSS) and its gradient -v k^T.
template <class S> S lin_loss(const Matrix<S>& W, const S* k, const S* v) {
  const Vector<S> Sk = matvec(W, k);
  return -dot(Sk.data(), v, W.rows);
}
template <class S> Matrix<S> lin_loss_grad(const Matrix<S>& W, const S* k, const S* v) {
  Matrix<S> G(W.rows, W.cols);
  add_outer(G, S(-1), v, k);
  return G;
}

enum class GdView { linloss, recon_at0, recon_online };
// A004-GDVIEW-LINLOSS: S_t = S_{t-1} - 1 * grad l_lin(S_{t-1});
// A004-GDVIEW-RECON-AT0: S_t = S_{t-1} - eta grad l_rec(0), l_rec(S) = ||S k_t - v_t||^2;
// A004-GDVIEW-RECON-ONLINE: S_t = S_{t-1} - eta grad l_rec(S_{t-1}).
// Returns the state after every token (states[t] = S_{t+1}), S_0 = 0.
template <class S>
std::vector<Matrix<S>> gd_view_states(GdView view, const Matrix<S>& K, const Matrix<S>& V, const S& eta) {
  require(K.rows == V.rows, "gd_view_states: K and V must have the same number of tokens");
  std::vector<Matrix<S>> out;
  Matrix<S> St(V.cols, K.cols);
  const Matrix<S> zero(V.cols, K.cols);
  for (std::size_t t = 0; t < K.rows; ++t) {
    Matrix<S> G;
    S step = eta;
    switch (view) {
      case GdView::linloss: G = lin_loss_grad(St, K.row(t), V.row(t)); step = S(1); break;
      case GdView::recon_at0: G = ttt_grad(zero, K.row(t), V.row(t)); break;
      case GdView::recon_online: G = ttt_grad(St, K.row(t), V.row(t)); break;
    }
    for (std::size_t i = 0; i < St.a.size(); ++i) St.a[i] -= step * G.a[i];
    out.push_back(St);
  }
  return out;
}

// A004-TTT-ONLINE-TEMPLATE: z_t = f(x_t; S_t), S_t = S_{t-1} - eta grad_S l(S_{t-1}; x_t) with
// k_t = theta_K x_t, v_t = theta_V x_t, l in {l_rec, l_lin}; read-out (R-q) S_t theta_Q x_t when
// thQ is given, (R-x) the literal S_t x_t otherwise (needs d_k = d_in).
enum class OnlineLoss { rec, lin };
template <class S>
TttResult<S> online_gd_layer(const Matrix<S>& X, const Matrix<S>& thK, const Matrix<S>& thV, const Matrix<S>* thQ, OnlineLoss loss,
                             const S& eta, const Matrix<S>* S0 = nullptr) {
  const Matrix<S> K = project(X, thK), V = project(X, thV);
  if (!thQ) require(thK.rows == X.cols, "online_gd_layer: the literal read-out f(x; S) = S x needs d_k = d_in");
  const Matrix<S> Q = thQ ? project(X, *thQ) : X;
  TttResult<S> r{Matrix<S>(X.rows, V.cols), detail::initial_state(S0, V.cols, K.cols, "online_gd_layer")};
  for (std::size_t t = 0; t < X.rows; ++t) {
    const Matrix<S> G = loss == OnlineLoss::rec ? ttt_grad(r.W, K.row(t), V.row(t)) : lin_loss_grad(r.W, K.row(t), V.row(t));
    for (std::size_t i = 0; i < G.a.size(); ++i) r.W.a[i] -= eta * G.a[i];
    const Vector<S> z = matvec(r.W, Q.row(t));
    for (std::size_t c = 0; c < z.size(); ++c) r.Z(t, c) = z[c];
  }
  return r;
}

// ---- closed forms of the (gated) delta rule -------------------------------------------------

// A004-UPD-DELTANET / -LONGHORN (beta := eps) / -GDN (log_alpha given) / A004-DELTA-FWP: chunked
// WY/UT form from its definition. Within a chunk with incoming S_0, a_t = prod_{j<=t} alpha_j and
// G_ti = prod_{j=i+1}^t alpha_j (exp of the direct segment sum; exact 0 across a zero gate):
//   delta_t = beta_t (v_t - a_t S_0 k_t) - beta_t sum_{i<t} G_ti (k_t . k_i) delta_i   (forward substitution
//             of (I + diag(beta)(G o tril_{-1}(K K^T))) Delta = diag(beta)(V - diag(a) K S_0^T)),
//   o_t = a_t S_0 q_t + sum_{i<=t} G_ti (k_i . q_t) delta_i,   S_C = a_C S_0 + sum_i G_Ci delta_i k_i^T.
template <class S>
LinearAttentionResult<S> delta_rule_chunked_ut(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& beta,
                                               std::size_t C, const Vector<S>* log_alpha = nullptr, const Matrix<S>* S0 = nullptr) {
  detail::check_qkv(Q, K, V, "delta_rule_chunked_ut");
  detail::check_beta(beta, Q.rows, "delta_rule_chunked_ut");
  require(C >= 1, "delta_rule_chunked_ut: chunk size must be >= 1");
  if (log_alpha) detail::check_log_gates(*log_alpha, Q.rows, "delta_rule_chunked_ut");
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  LinearAttentionResult<S> r;
  r.state = detail::initial_state(S0, dv, dk, "delta_rule_chunked_ut");
  r.O = Matrix<S>(T, dv);
  // G(i, t) for 0-based global i <= t: prod_{j=i+1}^{t} alpha_j;  a(c0, t) = prod_{j=c0}^{t} alpha_j
  auto gate = [&](std::size_t i, std::size_t t) -> S {
    if (!log_alpha) return S(1);
    return exp_log(segment_log_sum(*log_alpha, i, t));
  };
  auto head = [&](std::size_t c0, std::size_t t) -> S {
    if (!log_alpha) return S(1);
    return exp_log(S((*log_alpha)[c0] + segment_log_sum(*log_alpha, c0, t)));
  };
  for (std::size_t c0 = 0; c0 < T; c0 += C) {
    const std::size_t c1 = std::min(T, c0 + C), L = c1 - c0;
    const Matrix<S> S_in = r.state;
    Matrix<S> D(L, dv);  // rows delta_t
    for (std::size_t t = 0; t < L; ++t) {
      const std::size_t gt = c0 + t;
      const Vector<S> p = matvec(S_in, K.row(gt));
      const S at = head(c0, gt);
      for (std::size_t c = 0; c < dv; ++c) D(t, c) = V(gt, c) - at * p[c];
      for (std::size_t c = 0; c < dv; ++c) D(t, c) *= beta[gt];
      for (std::size_t i = 0; i < t; ++i) {
        const S w = beta[gt] * gate(c0 + i, gt) * dot(K.row(gt), K.row(c0 + i), dk);
        for (std::size_t c = 0; c < dv; ++c) D(t, c) -= w * D(i, c);
      }
    }
    for (std::size_t t = 0; t < L; ++t) {
      const std::size_t gt = c0 + t;
      const Vector<S> o0 = matvec(S_in, Q.row(gt));
      const S at = head(c0, gt);
      for (std::size_t c = 0; c < dv; ++c) r.O(gt, c) = at * o0[c];
      for (std::size_t i = 0; i <= t; ++i) {
        const S w = gate(c0 + i, gt) * dot(K.row(c0 + i), Q.row(gt), dk);
        for (std::size_t c = 0; c < dv; ++c) muladd(r.O(gt, c), w, D(i, c));
      }
    }
    const S aC = head(c0, c1 - 1);
    for (S& x : r.state.a) x *= aC;
    for (std::size_t i = 0; i < L; ++i) add_outer(r.state, gate(c0 + i, c1 - 1), D.row(i), K.row(c0 + i));
  }
  return r;
}

// Ordered-product closed form of the (gated) delta rule: with A_j = alpha_j (I - beta_j k_j k_j^T),
//   S_t = S_0 A_1 A_2 ... A_t + sum_{i<=t} beta_i v_i k_i^T A_{i+1} ... A_t   (t 1-based).
template <class S>
Matrix<S> delta_rule_product_state(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& beta, std::size_t t,
                                   const Vector<S>* log_alpha = nullptr, const Matrix<S>* S0 = nullptr) {
  require(K.rows == V.rows && t <= K.rows, "delta_rule_product_state: t exceeds the sequence");
  detail::check_beta(beta, K.rows, "delta_rule_product_state");
  const std::size_t dk = K.cols, dv = V.cols;
  Matrix<S> P(dk, dk);  // A_{j+1} ... A_t, built from the right
  for (std::size_t i = 0; i < dk; ++i) P(i, i) = S(1);
  Matrix<S> out(dv, dk);
  for (std::size_t j = t; j-- > 0;) {
    // term i = j: beta_j v_j (k_j^T P)
    Matrix<S> kv(1, dk), row(1, dk);
    for (std::size_t c = 0; c < dk; ++c) kv(0, c) = K(j, c);
    row = matmul(kv, P);
    add_outer(out, beta[j], V.row(j), row.row(0));
    Matrix<S> A(dk, dk);
    const S a = log_alpha ? exp_log((*log_alpha)[j]) : S(1);
    for (std::size_t x = 0; x < dk; ++x)
      for (std::size_t y = 0; y < dk; ++y) A(x, y) = a * (S(x == y ? 1 : 0) - beta[j] * K(j, x) * K(j, y));
    P = matmul(A, P);
  }
  if (S0) {
    require(S0->rows == dv && S0->cols == dk, "delta_rule_product_state: S0 must be d_v x d_k");
    const Matrix<S> head = matmul(*S0, P);
    for (std::size_t i = 0; i < out.a.size(); ++i) out.a[i] += head.a[i];
  }
  return out;
}

}  // namespace recall::ref
