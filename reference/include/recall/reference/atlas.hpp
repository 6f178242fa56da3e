// Atlas (spec A002 Part F): a linear memory M (d_v x D) on feature rows phi(k_t) optimised by momentum + Newton-Schulz
// (Muon) on the Omega window objective, written from the definitions (plain token loops, scalar-generic).
// Deep (MLP) memories are not covered here (A002-MEMORY-MLP): every function below is the linear-memory reading.
//
// Conventions (spec A002 Conventions): tokens are rows (PhiK, PhiQ: L x D already mapped, V: L x d_v); window
// W_t = {max(1, t-c+1), ..., t} (truncated at the start); Gamma(t, i) (0-based storage, L x L) is the weight of token i
// in the window of t (only i in W_t is read); loss ||M phi - v||^2 with gradient 2 (M phi - v) phi^T (AtlasConfig::half_l2:
// (M phi - v) phi^T); gradients at the previous state M_{t-1}; S_0 = S0 (zero by default); read after write y_t = M_t phi(q_t).
// Decay products A_{a:b}, Theta_{a:b} are exp of direct sums of log-gates (a zero gate is an exact 0).
//
// IDs implemented here (one function each):
//   A002-ATLAS-EQ32   atlas_eq32(in, cfg):  S_t = theta_t S_{t-1} + G_t,  M_t = alpha_t M_{t-1} - eta_t O(S_t)
//   A002-ATLAS-D4     atlas_d4(in, cfg):    S_t = theta_t S_{t-1} - G_t,  M_t = alpha_t M_{t-1} + eta_out O(S_t)
//   A002-T1-ATLAS     atlas_t1(in, cfg):    S_t = theta_t S_{t-1} - G_t,  M_t = alpha_t M_{t-1} - eta_t O(S_t)  (printed signs)
//     with G_t = sum_{i in W_t} Gamma(t,i) grad ||M_{t-1} phi_i - v_i||^2 and O = NS_k (newton_schulz.hpp; cubic, polar or
//     identity selectable; identity is the "without Newton-Schulz" base recurrence of §5.1 and of A002-R5-ATLAS-REDUCTIONS)
//   A002-ATLAS        atlas_step(...) / atlas_run(in, cfg, variant): the shared token step of the three variants
//   A002-ATLAS-PARALLEL-SEMANTICS  atlas_frozen_chunks(in, cfg, variant, b): the same token loop with every gradient of
//     chunk S_r taken at the state after the previous chunk (Eqs. 34-37; b = 1 is the sequential model)
//   A002-ATLAS-PARALLEL  atlas_parallel(in, cfg, variant, b): steps 1-5 of the spec (frozen window gradients u_n,
//     momentum of all chunk positions by the closed form, NS of all momenta as one batch, decay scan, read-out)
//   A002-ATLAS-MOMENTUM-CLOSED  atlas_momentum_closed(log_theta, U, S0, sign, s0, n0) vs atlas_momentum_scan(...)
//   A002-ATLAS-NS-BATCH  the batch NS inside atlas_parallel (newton_schulz_batch)
//   A002-ATLAS-PHI-EXP   atlas_phi_exp_kernel(K, Q, V, gates, cfg, variant): coefficient (kernel) form with
//     exp(k_a^T k_b); explicit truncated features (apply_feature_map exp_trunc) through atlas_run are its reference
//   A002-R5-ATLAS-REDUCTIONS  atlas_run with AtlasOrtho::identity (reductions (i)-(iii))
//
// Signatures for the optimized kernel (lead): the chunked Atlas kernel must reproduce
//   AtlasResult<S> atlas_parallel(const AtlasInputs<S>& in, const AtlasConfig<S>& cfg, AtlasVariant v, std::size_t b)
// (Y: L x d_v outputs, M[t] / Smom[t]: state and momentum after token t, t = 0..L) and, for b = 1, atlas_run(in, cfg, v).
#pragma once

#include "recall/reference/matrix.hpp"
#include "recall/reference/newton_schulz.hpp"

#include <string>
#include <vector>

namespace recall::ref {

enum class AtlasVariant { eq32, d4, t1 };
enum class AtlasOrtho { newton_schulz, identity, polar };

inline const char* atlas_variant_name(AtlasVariant v) {
  switch (v) {
    case AtlasVariant::eq32: return "EQ32";
    case AtlasVariant::d4: return "D4";
    case AtlasVariant::t1: return "T1";
  }
  return "?";
}

template <class S> struct AtlasInputs {
  Matrix<S> PhiK, PhiQ, V;      // L x D, L x D, L x d_v
  Vector<S> alpha, theta, eta;  // L each: weight decay alpha_t in [0,1], momentum theta_t in [0,1], outer rate eta_t
  Matrix<S> Gamma;              // L x L window weights (row t, column i); read only for i in W_t
  std::size_t c = 1;            // window length
  Matrix<S> M0, S0;             // initial memory and momentum (d_v x D); empty = zero
};

template <class S> struct AtlasConfig {
  AtlasOrtho ortho = AtlasOrtho::newton_schulz;
  int ns_steps = 5;
  NsCoefficients<S> ns = muon_ns_coefficients<S>();
  S eta_out = S(1);     // D4 outer rate (1 for fidelity to Eq. 57)
  bool half_l2 = false; // loss 1/2 ||.||^2 (gradient without the factor 2)
};

template <class S> struct AtlasResult {
  Matrix<S> Y;                  // L x d_v
  std::vector<Matrix<S>> M;     // M[t]: state after token t (M[0] = M0)
  std::vector<Matrix<S>> Smom;  // Smom[t]: momentum after token t (Smom[0] = S0)
};

namespace detail {
template <class S> void atlas_check(const AtlasInputs<S>& in, const char* who) {
  const std::size_t L = in.PhiK.rows;
  const std::string w(who);
  require(L >= 1, w + ": PhiK has no rows (L = 0)");
  require(in.PhiQ.rows == L && in.V.rows == L, w + ": PhiK, PhiQ and V must have one row per token");
  require(in.PhiQ.cols == in.PhiK.cols, w + ": PhiQ and PhiK must have the same feature width D");
  require(in.alpha.size() == L && in.theta.size() == L && in.eta.size() == L, w + ": alpha, theta and eta need L entries");
  require(in.Gamma.rows == L && in.Gamma.cols == L, w + ": Gamma must be L x L");
  require(in.c >= 1, w + ": window length c must be >= 1");
  for (std::size_t t = 0; t < L; ++t) {
    require(is_finite(in.alpha[t]) && in.alpha[t] >= 0 && in.alpha[t] <= 1, w + ": alpha_" + std::to_string(t + 1) + " not in [0, 1]");
    require(is_finite(in.theta[t]) && in.theta[t] >= 0 && in.theta[t] <= 1, w + ": theta_" + std::to_string(t + 1) + " not in [0, 1]");
    require(is_finite(in.eta[t]), w + ": eta_" + std::to_string(t + 1) + " is not finite");
  }
  for (const S& x : in.PhiK.a) require(is_finite(x), w + ": PhiK has a non-finite entry");
  for (const S& x : in.PhiQ.a) require(is_finite(x), w + ": PhiQ has a non-finite entry");
  for (const S& x : in.V.a) require(is_finite(x), w + ": V has a non-finite entry");
  for (const S& x : in.Gamma.a) require(is_finite(x), w + ": Gamma has a non-finite entry");
  const std::size_t dv = in.V.cols, D = in.PhiK.cols;
  if (!in.M0.empty()) require(in.M0.rows == dv && in.M0.cols == D, w + ": M0 must be d_v x D");
  if (!in.S0.empty()) require(in.S0.rows == dv && in.S0.cols == D, w + ": S0 must be d_v x D");
}
template <class S> Matrix<S> or_zero(const Matrix<S>& X, std::size_t r, std::size_t c) { return X.empty() ? Matrix<S>(r, c) : X; }
// momentum sign of the gradient (+1 EQ32, -1 D4 and T1)
inline int atlas_momentum_sign(AtlasVariant v) { return v == AtlasVariant::eq32 ? 1 : -1; }
// coefficient of O(S_t) in M_t: -eta_t (EQ32, T1), +eta_out (D4)
template <class S> S atlas_update_coef(AtlasVariant v, const AtlasInputs<S>& in, const AtlasConfig<S>& cfg, std::size_t t0) {
  return v == AtlasVariant::d4 ? cfg.eta_out : S(-in.eta[t0]);
}
// log of the product of the gates g[a0..b0] (0-based, inclusive; 0 when a0 > b0; -inf with a zero gate)
template <class S> S log_prod(const Vector<S>& lg, std::size_t a0, std::size_t b0) {
  S s(0);
  for (std::size_t j = a0; j <= b0 && j < lg.size(); ++j) {
    if (is_neg_inf(lg[j])) return neg_inf<S>();
    s += lg[j];
  }
  return s;
}
}  // namespace detail

// A002-ATLAS (window gradient of Eqs. 32, 57, Table 1): G = sum_{i in W_t} Gamma(t, i) grad_M ||M phi_i - v_i||^2 at the
// given M (t0 is the 0-based token).
template <class S> Matrix<S> atlas_window_gradient(const Matrix<S>& M, const AtlasInputs<S>& in, std::size_t t0, bool half_l2 = false) {
  const std::size_t dv = in.V.cols, D = in.PhiK.cols;
  Matrix<S> G(dv, D);
  const std::size_t lo = t0 + 1 >= in.c ? t0 + 1 - in.c : 0;
  Vector<S> r(dv);
  for (std::size_t i = lo; i <= t0; ++i) {
    matvec_into(r.data(), M, in.PhiK.row(i));
    for (std::size_t j = 0; j < dv; ++j) r[j] -= in.V(i, j);
    const S w = half_l2 ? in.Gamma(t0, i) : S(S(2) * in.Gamma(t0, i));
    add_outer(G, w, r.data(), in.PhiK.row(i));
  }
  return G;
}

// The orthogonaliser O of the configuration.
template <class S> Matrix<S> atlas_orthogonalize(const Matrix<S>& X, const AtlasConfig<S>& cfg) {
  switch (cfg.ortho) {
    case AtlasOrtho::identity: return X;
    case AtlasOrtho::polar: return polar_factor(X);
    case AtlasOrtho::newton_schulz: break;
  }
  return newton_schulz(X, cfg.ns_steps, cfg.ns);
}

// A002-ATLAS: the token-sequential model of the chosen variant (b = 0 or 1: gradients at M_{t-1});
// with b >= 2 the gradients of chunk r are frozen at the state after chunk r-1 (A002-ATLAS-PARALLEL-SEMANTICS).
template <class S>
AtlasResult<S> atlas_frozen_chunks(const AtlasInputs<S>& in, const AtlasConfig<S>& cfg, AtlasVariant v, std::size_t b) {
  detail::atlas_check(in, "atlas");
  const std::size_t L = in.PhiK.rows, dv = in.V.cols, D = in.PhiK.cols;
  if (b == 0) b = 1;
  AtlasResult<S> r;
  r.M.push_back(detail::or_zero(in.M0, dv, D));
  r.Smom.push_back(detail::or_zero(in.S0, dv, D));
  r.Y = Matrix<S>(L, dv);
  const S msign = S(detail::atlas_momentum_sign(v));
  Matrix<S> Mfrozen = r.M[0];
  for (std::size_t t = 0; t < L; ++t) {
    if (t % b == 0) Mfrozen = r.M[t];  // state after the previous chunk
    const Matrix<S> G = atlas_window_gradient(b == 1 ? r.M[t] : Mfrozen, in, t, cfg.half_l2);
    Matrix<S> St = r.Smom[t];
    for (std::size_t i = 0; i < St.a.size(); ++i) St.a[i] = in.theta[t] * St.a[i] + msign * G.a[i];
    const Matrix<S> O = atlas_orthogonalize(St, cfg);
    const S w = detail::atlas_update_coef(v, in, cfg, t);
    Matrix<S> Mt = r.M[t];
    for (std::size_t i = 0; i < Mt.a.size(); ++i) Mt.a[i] = in.alpha[t] * Mt.a[i] + w * O.a[i];
    matvec_into(r.Y.row(t), Mt, in.PhiQ.row(t));
    r.M.push_back(std::move(Mt));
    r.Smom.push_back(std::move(St));
  }
  return r;
}
template <class S> AtlasResult<S> atlas_run(const AtlasInputs<S>& in, const AtlasConfig<S>& cfg, AtlasVariant v) {
  return atlas_frozen_chunks(in, cfg, v, 1);
}
// A002-ATLAS-EQ32: Eqs. 32-33 (outer rate eta_t, gradient accumulated with +).
template <class S> AtlasResult<S> atlas_eq32(const AtlasInputs<S>& in, const AtlasConfig<S>& cfg) { return atlas_run(in, cfg, AtlasVariant::eq32); }
// A002-ATLAS-D4: Eqs. 57-58 (outer rate eta_out, gradient accumulated with -; Gamma plays eta_i^(t)).
template <class S> AtlasResult<S> atlas_d4(const AtlasInputs<S>& in, const AtlasConfig<S>& cfg) { return atlas_run(in, cfg, AtlasVariant::d4); }
// A002-T1-ATLAS: Table 1 row as printed (gradient accumulated with -, NS term subtracted with eta_t): check-only variant.
template <class S> AtlasResult<S> atlas_t1(const AtlasInputs<S>& in, const AtlasConfig<S>& cfg) { return atlas_run(in, cfg, AtlasVariant::t1); }

// A002-ATLAS-MOMENTUM-CLOSED, scan side: S_n = theta_n S_{n-1} + sign U_n for n = s0..n0 (0-based), from S_{s0-1} = S0.
template <class S>
Matrix<S> atlas_momentum_scan(const Vector<S>& theta, const std::vector<Matrix<S>>& U, const Matrix<S>& S0, int sign, std::size_t s0,
                              std::size_t n0) {
  require(n0 < U.size() && n0 < theta.size() && s0 <= n0 + 1, "atlas_momentum_scan: token range out of bounds");
  Matrix<S> St = S0;
  for (std::size_t n = s0; n <= n0; ++n)
    for (std::size_t i = 0; i < St.a.size(); ++i) St.a[i] = theta[n] * St.a[i] + S(sign) * U[n].a[i];
  return St;
}
// A002-ATLAS-MOMENTUM-CLOSED (Eqs. 38-39 with Theta_{i+1:n} = theta_{i+1} ... theta_n, log-space):
//   S_n = Theta_{s:n} S_{s-1} + sign sum_{i=s}^{n} Theta_{i+1:n} U_i    (0-based s0, n0; log_theta = log_gate(theta))
// (Eq. 39 with s = 1, sign = -1, U_i = eta_i u_i.)
template <class S>
Matrix<S> atlas_momentum_closed(const Vector<S>& log_theta, const std::vector<Matrix<S>>& U, const Matrix<S>& S0, int sign, std::size_t s0,
                                std::size_t n0) {
  require(n0 < U.size() && n0 < log_theta.size() && s0 <= n0 + 1, "atlas_momentum_closed: token range out of bounds");
  Matrix<S> St(S0.rows, S0.cols);
  const MulAddCtx<S> ctx;
  const S w0 = exp_log(detail::log_prod(log_theta, s0, n0));
  for (std::size_t a = 0; a < St.a.size(); ++a) muladd(St.a[a], w0, S0.a[a], ctx);
  for (std::size_t i = s0; i <= n0; ++i) {
    const S w = S(sign) * exp_log(detail::log_prod(log_theta, i + 1, n0));
    for (std::size_t a = 0; a < St.a.size(); ++a) muladd(St.a[a], w, U[i].a[a], ctx);
  }
  return St;
}

// A002-ATLAS-PARALLEL (§5.1 Eqs. 34-41, spec steps 1-5) for chunk size b >= 1, chunk r = tokens s..e (0-based):
//   1. u_n = window gradient at M_{s-1} for n = s..e;  2. S_n = Theta_{s:n} S_{s-1} + sign sum_{i=s}^n Theta_{i+1:n} u_i;
//   3. S'_n = O(S_n) for all n of the chunk as one batch;  4. M_n = A_{s:n} M_{s-1} + sum_{j=s}^n A_{j+1:n} w_j S'_j
//   (w_j = -eta_j for EQ32 / T1, +eta_out for D4);  5. y_n = M_n phi(q_n).
template <class S>
AtlasResult<S> atlas_parallel(const AtlasInputs<S>& in, const AtlasConfig<S>& cfg, AtlasVariant v, std::size_t b) {
  detail::atlas_check(in, "atlas_parallel");
  require(b >= 1, "atlas_parallel: chunk size b must be >= 1");
  const std::size_t L = in.PhiK.rows, dv = in.V.cols, D = in.PhiK.cols;
  const int sign = detail::atlas_momentum_sign(v);
  Vector<S> lth(L), lal(L);
  for (std::size_t t = 0; t < L; ++t) {
    lth[t] = log_gate(in.theta[t]);
    lal[t] = log_gate(in.alpha[t]);
  }
  AtlasResult<S> r;
  r.M.assign(L + 1, Matrix<S>(dv, D));
  r.Smom.assign(L + 1, Matrix<S>(dv, D));
  r.M[0] = detail::or_zero(in.M0, dv, D);
  r.Smom[0] = detail::or_zero(in.S0, dv, D);
  r.Y = Matrix<S>(L, dv);
  const MulAddCtx<S> ctx;
  for (std::size_t s = 0; s < L; s += b) {
    const std::size_t e = std::min(L, s + b) - 1;
    std::vector<Matrix<S>> U(L);
    for (std::size_t n = s; n <= e; ++n) U[n] = atlas_window_gradient(r.M[s], in, n, cfg.half_l2);  // step 1
    std::vector<Matrix<S>> mom;
    for (std::size_t n = s; n <= e; ++n) mom.push_back(atlas_momentum_closed(lth, U, r.Smom[s], sign, s, n));  // step 2
    std::vector<Matrix<S>> orth;  // step 3 (batch)
    if (cfg.ortho == AtlasOrtho::newton_schulz) {
      orth = newton_schulz_batch(mom, cfg.ns_steps, cfg.ns);
    } else {
      for (const Matrix<S>& X : mom) orth.push_back(atlas_orthogonalize(X, cfg));
    }
    for (std::size_t n = s; n <= e; ++n) {  // step 4
      Matrix<S> Mn(dv, D);
      const S a0 = exp_log(detail::log_prod(lal, s, n));
      for (std::size_t a = 0; a < Mn.a.size(); ++a) muladd(Mn.a[a], a0, r.M[s].a[a], ctx);
      for (std::size_t j = s; j <= n; ++j) {
        const S w = exp_log(detail::log_prod(lal, j + 1, n)) * detail::atlas_update_coef(v, in, cfg, j);
        for (std::size_t a = 0; a < Mn.a.size(); ++a) muladd(Mn.a[a], w, orth[j - s].a[a], ctx);
      }
      matvec_into(r.Y.row(n), Mn, in.PhiQ.row(n));  // step 5
      r.M[n + 1] = std::move(Mn);
      r.Smom[n + 1] = mom[n - s];
    }
  }
  return r;
}

// A002-ATLAS-PHI-EXP: Atlas with phi* (Eq. 33 reading) in coefficient form over the keys: M_t = C^M_t Phi*^T,
// S_t = C^S_t Phi*^T (C: d_v x L, column i for key i), Gram G_ab = exp(k_a^T k_b). Gradient coefficients: column
// i in W_t gets 2 Gamma(t,i) r_i, r_i = C^M_{t-1} G_{:,i} - v_i. NS in coefficient space: ||X||_F^2 = tr(C G C^T),
// C <- C / (||X||_F + eps), then k times A = C G C^T, B = b A + c A^2, C <- a C + B C (the feature side is infinite,
// so X is wide: no transposition). Read-out y_t = C^M_t exp(K q_t). Uses in.alpha, theta, eta, Gamma, c; in.PhiK /
// PhiQ are ignored (K, Q are the raw keys and queries); M0 = S0 = 0. ortho must be newton_schulz or identity.
template <class S>
AtlasResult<S> atlas_phi_exp_kernel(const Matrix<S>& K, const Matrix<S>& Q, const AtlasInputs<S>& in, const AtlasConfig<S>& cfg,
                                    AtlasVariant v) {
  using std::exp;
  using std::sqrt;
  using boost::multiprecision::exp;
  using boost::multiprecision::sqrt;
  const std::size_t L = K.rows, dv = in.V.cols;
  require(L >= 1 && Q.rows == L && Q.cols == K.cols && in.V.rows == L, "atlas_phi_exp_kernel: K, Q, V must have L rows, Q and K one width");
  require(in.alpha.size() == L && in.theta.size() == L && in.eta.size() == L && in.Gamma.rows == L && in.Gamma.cols == L && in.c >= 1,
          "atlas_phi_exp_kernel: gates must have L entries, Gamma L x L, c >= 1");
  require(cfg.ortho != AtlasOrtho::polar, "atlas_phi_exp_kernel: the polar orthogonaliser has no coefficient form here");
  for (const S& x : K.a) require(is_finite(x), "atlas_phi_exp_kernel: K has a non-finite entry");
  for (const S& x : Q.a) require(is_finite(x), "atlas_phi_exp_kernel: Q has a non-finite entry");
  const std::size_t dk = K.cols;
  Matrix<S> G(L, L);
  for (std::size_t a = 0; a < L; ++a)
    for (std::size_t bb = 0; bb < L; ++bb) G(a, bb) = exp(dot(K.row(a), K.row(bb), dk));
  const S msign = S(detail::atlas_momentum_sign(v));
  const MulAddCtx<S> ctx;
  Matrix<S> CM(dv, L), CS(dv, L);
  AtlasResult<S> r;
  r.Y = Matrix<S>(L, dv);
  r.M.push_back(CM);
  r.Smom.push_back(CS);
  for (std::size_t t = 0; t < L; ++t) {
    // gradient coefficients at C^M_{t-1}
    Matrix<S> Gc(dv, L);
    const std::size_t lo = t + 1 >= in.c ? t + 1 - in.c : 0;
    for (std::size_t i = lo; i <= t; ++i) {
      const S w = cfg.half_l2 ? in.Gamma(t, i) : S(S(2) * in.Gamma(t, i));
      for (std::size_t j = 0; j < dv; ++j) {
        S ri(0);
        for (std::size_t l = 0; l < L; ++l) muladd(ri, CM(j, l), G(l, i), ctx);
        ri -= in.V(i, j);
        Gc(j, i) += w * ri;
      }
    }
    for (std::size_t a = 0; a < CS.a.size(); ++a) CS.a[a] = in.theta[t] * CS.a[a] + msign * Gc.a[a];
    Matrix<S> X = CS;
    if (cfg.ortho == AtlasOrtho::newton_schulz) {
      const Matrix<S> CG = matmul(X, G);
      S n2(0);
      for (std::size_t j = 0; j < dv; ++j)
        for (std::size_t l = 0; l < L; ++l) muladd(n2, CG(j, l), X(j, l), ctx);
      const S den = sqrt(n2) + cfg.ns.eps;
      require(den > 0, "atlas_phi_exp_kernel: zero momentum with eps = 0");
      for (S& x : X.a) x /= den;
      for (int k = 0; k < cfg.ns_steps; ++k) {
        const Matrix<S> XG = matmul(X, G);
        Matrix<S> A(dv, dv);
        for (std::size_t i = 0; i < dv; ++i)
          for (std::size_t j = 0; j < dv; ++j)
            for (std::size_t l = 0; l < L; ++l) muladd(A(i, j), XG(i, l), X(j, l), ctx);
        const Matrix<S> A2 = matmul(A, A);
        Matrix<S> B(dv, dv);
        for (std::size_t i = 0; i < B.a.size(); ++i) B.a[i] = cfg.ns.b * A.a[i] + cfg.ns.c * A2.a[i];
        const Matrix<S> BX = matmul(B, X);
        for (std::size_t i = 0; i < X.a.size(); ++i) X.a[i] = cfg.ns.a * X.a[i] + BX.a[i];
      }
    }
    const S w = detail::atlas_update_coef(v, in, cfg, t);
    for (std::size_t a = 0; a < CM.a.size(); ++a) CM.a[a] = in.alpha[t] * CM.a[a] + w * X.a[a];
    Vector<S> kq(L);
    for (std::size_t l = 0; l < L; ++l) kq[l] = exp(dot(K.row(l), Q.row(t), dk));
    matvec_into(r.Y.row(t), CM, kq.data());
    r.M.push_back(CM);
    r.Smom.push_back(CS);
  }
  return r;
}

}  // namespace recall::ref
