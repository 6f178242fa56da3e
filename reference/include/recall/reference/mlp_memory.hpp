// Deep (MLP) memories of paper A002 (Atlas, §5 Eqs. 42-43, App. E) and the Omega / OmegaNet / DeepTransformer
// recurrences on them, written from the definitions (plain loops, scalar-generic: recall::mp_t and double).
//
// Conventions (spec A002 Conventions, README §1): tokens are rows, features already applied (PhiK, PhiQ: L x D,
// V: L x d_v, the OmegaInputs of omega.hpp); a memory is a parameter set {W1, W2[, W3]} updated per weight matrix;
// decay form (T): every gradient at the undecayed previous state; read after write y_t = M_t(phi(q_t)); the loss is a
// miras.hpp Bias (l2 = ||.||^2, half_l2, dot = -<M(x), v>); window W_t truncated at the sequence start.
//
// IDs (one function each; secondary forms named with the ID they serve):
//   A002-MEMORY-MLP             mlp_memory_read with MlpResidual::identity: M(x) = x + W1 s(W2 x) (d = d_v = D)
//   A002-MEMORY-MLP-RESID-DROP  mlp_memory_read with MlpResidual::none: M(x) = W1 s(W2 x) (the no-bias 2-layer case of
//                               capacity_rank.hpp's MlpMemory, which has no gradients; the claims check they agree)
//   A002-MEMORY-MLP-RESID-PROJ  mlp_memory_read with MlpResidual::proj: M(x) = P x + W1 s(W2 x), P outer-loop (fixed)
//   A002-MEMORY-GATED-MLP       mlp_memory_read with W3 set: M(x) = res(x) + W1 (s(W2 x) o W3 x) (Eq. 43, o elementwise)
//   A002-MEMORY-MLP-GRAD        mlp_memory_grad (closed-form gradients of l(M(x); v) w.r.t. W1, W2[, W3])
//   A002-OMEGANET-UPDATE        omeganet_mlp: W_t = alpha_t W_{t-1} - eta_t sum_{i in W_t} Gamma(t,i) grad l_i(W_{t-1})
//   A002-OMEGANET-D3            omeganet_d3 (App. D.3 Eq. 56: per-token rates eta_i^(t) as one L x L tensor)
//   A002-OMEGA-CHUNK-MLP        omega_chunk_mlp (tensorised chunk form: all matmuls, no per-token weights); its
//                               reference is omega_chunk_mlp_loop (the frozen-gradient token loop, A002-OMEGA-CHUNK
//                               semantics of omega.hpp's omega_chunk, A-27: gradients of chunk s..e at W_{s-1})
//   A002-DT-DEEP-TRUNC          dt_deep_trunc (deep memory on the truncated phi*_P features of exp_feature_monomial)
// Activations s: GELU erf form (default; s(h) = h Phi(h), Phi via erfc so h << 0 keeps relative accuracy), GELU tanh
// form, tanh, ReLU (derivative 1[h > 0]; checks keep away from the kink). ref::gelu (regression_rules.hpp, 1 + erf form)
// is the same function for moderate h; the erfc form here is the spec's hazard-free evaluation.
// Bad input (shapes, non-finite entries) throws std::invalid_argument naming the input.
#pragma once

#include "recall/reference/deep_transformer.hpp"
#include "recall/reference/matrix.hpp"
#include "recall/reference/miras.hpp"
#include "recall/reference/omega.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace recall::ref {

enum class MlpAct { gelu_erf, gelu_tanh, tanh, relu };
enum class MlpResidual { identity, none, proj };

inline const char* mlp_act_name(MlpAct a) {
  switch (a) {
    case MlpAct::gelu_erf: return "gelu_erf";
    case MlpAct::gelu_tanh: return "gelu_tanh";
    case MlpAct::tanh: return "tanh";
    case MlpAct::relu: return "relu";
  }
  return "?";
}
inline const char* mlp_residual_name(MlpResidual r) {
  switch (r) {
    case MlpResidual::identity: return "residual";
    case MlpResidual::none: return "no-residual";
    case MlpResidual::proj: return "proj-residual";
  }
  return "?";
}

// A memory: W2 (d_h x D), W1 (d_v x d_h), W3 (d_h x D, gated only; empty otherwise), P (d_v x D, proj only).
template <class S> struct MlpMem {
  Matrix<S> W1, W2, W3, P;
  MlpResidual res = MlpResidual::identity;
  MlpAct act = MlpAct::gelu_erf;
  bool gated() const { return !W3.empty(); }
};

namespace mlp_detail {
template <class S> S pi_() {
  using std::acos;
  using boost::multiprecision::acos;
  return acos(S(-1));
}
// Phi(h) = erfc(-h / sqrt 2) / 2 (no cancellation for h << 0)
template <class S> S normal_cdf(const S& h) {
  using std::erfc; using std::sqrt;
  using boost::multiprecision::erfc; using boost::multiprecision::sqrt;
  return erfc(S(-h / sqrt(S(2)))) / S(2);
}
template <class S> S normal_pdf(const S& h) {
  using std::exp; using std::sqrt;
  using boost::multiprecision::exp; using boost::multiprecision::sqrt;
  return exp(S(-h * h / S(2))) / sqrt(S(S(2) * pi_<S>()));
}
template <class S> S tanh_(const S& x) {
  using std::tanh;
  using boost::multiprecision::tanh;
  return tanh(x);
}
template <class S> void check_finite(const Matrix<S>& X, const std::string& who, const char* name) {
  for (std::size_t i = 0; i < X.a.size(); ++i)
    require(is_finite(X.a[i]), who + ": " + name + "(" + std::to_string(i / X.cols + 1) + ", " + std::to_string(i % X.cols + 1) + ") is not finite");
}
}  // namespace mlp_detail

// the activation s(h)
template <class S> S mlp_act(const S& h, MlpAct a) {
  switch (a) {
    case MlpAct::gelu_erf: return h * mlp_detail::normal_cdf(h);
    case MlpAct::gelu_tanh: {
      using std::sqrt;
      using boost::multiprecision::sqrt;
      const S k = sqrt(S(S(2) / mlp_detail::pi_<S>()));
      return h * (S(1) + mlp_detail::tanh_(S(k * (h + S(0.044715) * h * h * h)))) / S(2);
    }
    case MlpAct::tanh: return mlp_detail::tanh_(h);
    case MlpAct::relu: return h > S(0) ? h : S(0);
  }
  return h;
}
// its derivative s'(h): GELU erf Phi(h) + h phi(h); GELU tanh the derivative of the tanh form; tanh 1 - tanh^2; ReLU 1[h > 0]
template <class S> S mlp_act_prime(const S& h, MlpAct a) {
  switch (a) {
    case MlpAct::gelu_erf: return mlp_detail::normal_cdf(h) + h * mlp_detail::normal_pdf(h);
    case MlpAct::gelu_tanh: {
      using std::sqrt;
      using boost::multiprecision::sqrt;
      const S k = sqrt(S(S(2) / mlp_detail::pi_<S>()));
      const S c = S(0.044715);
      const S t = mlp_detail::tanh_(S(k * (h + c * h * h * h)));
      return (S(1) + t) / S(2) + h * (S(1) - t * t) * k * (S(1) + S(3) * c * h * h) / S(2);
    }
    case MlpAct::tanh: {
      const S t = mlp_detail::tanh_(h);
      return S(1) - t * t;
    }
    case MlpAct::relu: return h > S(0) ? S(1) : S(0);
  }
  return S(1);
}

// shapes: D = W2.cols, d_h = W2.rows, d_v = W1.rows; identity residual needs d_v = D; proj needs P (d_v x D).
template <class S> void mlp_memory_check(const MlpMem<S>& m, const std::string& who) {
  require(!m.W1.empty() && !m.W2.empty(), who + ": W1 and W2 must be non-empty");
  require(m.W1.cols == m.W2.rows, who + ": W1 must have d_h = W2.rows columns");
  if (m.gated()) require(m.W3.rows == m.W2.rows && m.W3.cols == m.W2.cols, who + ": W3 must have the shape of W2 (d_h x D)");
  if (m.res == MlpResidual::identity) require(m.W1.rows == m.W2.cols, who + ": the identity residual needs d_v = D (use the none or proj reading)");
  if (m.res == MlpResidual::proj) require(m.P.rows == m.W1.rows && m.P.cols == m.W2.cols, who + ": P must be d_v x D");
  mlp_detail::check_finite(m.W1, who, "W1");
  mlp_detail::check_finite(m.W2, who, "W2");
  if (m.gated()) mlp_detail::check_finite(m.W3, who, "W3");
  if (m.res == MlpResidual::proj) mlp_detail::check_finite(m.P, who, "P");
}

// forward pass with the intermediates: h = W2 x, g = s(h), u = W3 x (gated), a = g (o u), y = res(x) + W1 a
template <class S> struct MlpForward { Vector<S> h, g, u, a, y; };
template <class S> MlpForward<S> mlp_memory_forward_full(const MlpMem<S>& m, const S* x) {
  MlpForward<S> f;
  f.h = matvec(m.W2, x);
  f.g.resize(f.h.size());
  for (std::size_t j = 0; j < f.h.size(); ++j) f.g[j] = mlp_act(f.h[j], m.act);
  f.a = f.g;
  if (m.gated()) {
    f.u = matvec(m.W3, x);
    for (std::size_t j = 0; j < f.a.size(); ++j) f.a[j] = f.g[j] * f.u[j];
  }
  f.y = matvec(m.W1, f.a.data());
  if (m.res == MlpResidual::identity)
    for (std::size_t i = 0; i < f.y.size(); ++i) f.y[i] += x[i];
  else if (m.res == MlpResidual::proj) {
    const Vector<S> px = matvec(m.P, x);
    for (std::size_t i = 0; i < f.y.size(); ++i) f.y[i] += px[i];
  }
  return f;
}

// A002-MEMORY-MLP / A002-MEMORY-MLP-RESID-DROP / A002-MEMORY-MLP-RESID-PROJ / A002-MEMORY-GATED-MLP: the read-out M(x)
// (x of length D = W2.cols).
template <class S> Vector<S> mlp_memory_read(const MlpMem<S>& m, const Vector<S>& x) {
  mlp_memory_check(m, "mlp_memory_read");
  require(x.size() == m.W2.cols, "mlp_memory_read: x must have length D = " + std::to_string(m.W2.cols));
  for (std::size_t j = 0; j < x.size(); ++j) require(is_finite(x[j]), "mlp_memory_read: x[" + std::to_string(j + 1) + "] is not finite");
  return mlp_memory_forward_full(m, x.data()).y;
}

// the inner-loop parameters theta_M = {W1, W2[, W3]} (P is outer-loop and excluded) and back
template <class S> Params<S> mlp_params(const MlpMem<S>& m) {
  Params<S> p{m.W1, m.W2};
  if (m.gated()) p.push_back(m.W3);
  return p;
}
template <class S> MlpMem<S> mlp_with_params(const MlpMem<S>& m, const Params<S>& p) {
  require(p.size() == (m.gated() ? 3u : 2u), "mlp_with_params: wrong number of parameter matrices");
  MlpMem<S> o = m;
  o.W1 = p[0];
  o.W2 = p[1];
  if (m.gated()) o.W3 = p[2];
  return o;
}

// l(M(x); v) for the bias b
template <class S> S mlp_memory_loss(const Bias& b, const MlpMem<S>& m, const S* x, const S* v) {
  const MlpForward<S> f = mlp_memory_forward_full(m, x);
  return bias_value(b, f.y.data(), v, f.y.size());
}

// A002-MEMORY-MLP-GRAD: closed-form gradients of l(M(x); v), e = dl/dy (l2: 2r; half_l2: r; dot: -v):
//   grad W1 = e a^T; Eq. 42: grad W2 = [(W1^T e) o s'(h)] x^T; Eq. 43: grad W3 = [(W1^T e) o g] x^T,
//   grad W2 = [(W1^T e) o u o s'(h)] x^T. Returned in mlp_params order {W1, W2[, W3]}.
template <class S> Params<S> mlp_memory_grad(const Bias& b, const MlpMem<S>& m, const S* x, const S* v) {
  const MlpForward<S> f = mlp_memory_forward_full(m, x);
  const Vector<S> e = bias_output_grad(b, f.y.data(), v, f.y.size());
  const std::size_t dh = m.W2.rows;
  Vector<S> w(dh, S(0));  // W1^T e
  for (std::size_t i = 0; i < m.W1.rows; ++i)
    for (std::size_t j = 0; j < dh; ++j) muladd(w[j], m.W1(i, j), e[i]);
  Params<S> G{Matrix<S>(m.W1.rows, m.W1.cols), Matrix<S>(m.W2.rows, m.W2.cols)};
  add_outer(G[0], e.data(), f.a.data());
  Vector<S> d2(dh);
  for (std::size_t j = 0; j < dh; ++j) d2[j] = m.gated() ? S(w[j] * f.u[j] * mlp_act_prime(f.h[j], m.act)) : S(w[j] * mlp_act_prime(f.h[j], m.act));
  add_outer(G[1], d2.data(), x);
  if (m.gated()) {
    Vector<S> d3(dh);
    for (std::size_t j = 0; j < dh; ++j) d3[j] = w[j] * f.g[j];
    G.emplace_back(m.W3.rows, m.W3.cols);
    add_outer(G[2], d3.data(), x);
  }
  return G;
}

template <class S> struct MlpOmegaResult {
  Matrix<S> Y;                    // L x d_v, y_t = M_t(phi(q_t))
  MlpMem<S> state;                // after the last token
  std::vector<MlpMem<S>> states;  // M_0..M_L (keep_states only)
};

namespace mlp_detail {
template <class S> void check_seq(const OmegaInputs<S>& in, const MlpMem<S>& m0, const std::string& who) {
  omega_detail::check(in, who);
  mlp_memory_check(m0, who);
  require(m0.W2.cols == in.PhiK.cols, who + ": the memory's input width D = W2.cols must equal the feature width of PhiK");
  require(m0.W1.rows == in.V.cols, who + ": the memory's output width d_v = W1.rows must equal V.cols");
}
template <class S> void axpy_params(Params<S>& th, const S& c, const Params<S>& G) {
  for (std::size_t k = 0; k < th.size(); ++k)
    for (std::size_t i = 0; i < th[k].a.size(); ++i) th[k].a[i] += c * G[k].a[i];
}
template <class S> void scale_params(Params<S>& th, const S& a) {
  if (a == S(1)) return;
  for (auto& W : th)
    for (S& x : W.a) x *= a;
}
// the frozen-gradient token loop over chunks of size b (b >= L: one chunk; b = 1: the token-sequential rule)
template <class S> MlpOmegaResult<S> frozen_loop(const OmegaInputs<S>& in, const MlpMem<S>& m0, std::size_t b, const Bias& bias,
                                                 bool keep_states) {
  const std::size_t L = in.PhiK.rows;
  MlpOmegaResult<S> r;
  r.state = m0;
  r.Y = Matrix<S>(L, in.V.cols);
  if (keep_states) r.states.push_back(m0);
  Params<S> th = mlp_params(m0);
  MlpMem<S> frozen = m0;
  for (std::size_t t = 0; t < L; ++t) {
    if (t % b == 0) frozen = mlp_with_params(m0, th);
    const std::size_t lo = omega_window_begin(t, in.c);
    std::vector<Params<S>> G;
    for (std::size_t i = lo; i <= t; ++i) G.push_back(mlp_memory_grad(bias, frozen, in.PhiK.row(i), in.V.row(i)));
    scale_params(th, omega_detail::alpha(in.log_alpha, t));
    for (std::size_t i = lo; i <= t; ++i) axpy_params(th, S(-(in.eta[t] * omega_detail::gate(in, t, i))), G[i - lo]);
    r.state = mlp_with_params(m0, th);
    const Vector<S> y = mlp_memory_forward_full(r.state, in.PhiQ.row(t)).y;
    for (std::size_t j = 0; j < y.size(); ++j) r.Y(t, j) = y[j];
    if (keep_states) r.states.push_back(r.state);
  }
  return r;
}
}  // namespace mlp_detail

// A002-OMEGANET-UPDATE (Eq. 10, to implement; Table 1 OmegaNet row with a deep memory): per weight matrix W,
// W_t = alpha_t W_{t-1} - eta_t sum_{i in W_t} Gamma(t, i) grad_W l(M_{t-1}(phi_i); v_i), y_t = M_t(phi(q_t)).
template <class S> MlpOmegaResult<S> omeganet_mlp(const OmegaInputs<S>& in, const MlpMem<S>& m0, const Bias& bias = {}, bool keep_states = false) {
  mlp_detail::check_seq(in, m0, "omeganet_mlp");
  return mlp_detail::frozen_loop(in, m0, 1, bias, keep_states);
}

// A002-OMEGANET-D3 (App. D.3 Eq. 56, second equality): W_t = alpha_t W_{t-1} - sum_{i in W_t} eta_i^(t) grad l_i(W_{t-1})
// with the per-token rates as the dense L x L tensor E (E(t, i) = eta_i^(t), read inside W_t only); in.eta and in.Gamma
// are ignored (the rates are all in E). Same loop as omeganet_mlp with unit step rates and Gamma = E.
template <class S> MlpOmegaResult<S> omeganet_d3(const OmegaInputs<S>& in, const Matrix<S>& E, const MlpMem<S>& m0, const Bias& bias = {},
                                                 bool keep_states = false) {
  const std::size_t L = in.PhiK.rows;
  require(E.rows == L && E.cols == L, "omeganet_d3: the rate tensor E must be L x L");
  OmegaInputs<S> x = in;
  x.eta.assign(L, S(1));
  x.Gamma = E;
  mlp_detail::check_seq(x, m0, "omeganet_d3");
  return mlp_detail::frozen_loop(x, m0, 1, bias, keep_states);
}

// A002-OMEGA-CHUNK-MLP reference (A002-OMEGA-CHUNK semantics, A-27): the frozen-gradient token loop; in chunk s..e
// every gradient is taken at the weights after token s-1; b = 1 is omeganet_mlp.
template <class S> MlpOmegaResult<S> omega_chunk_mlp_loop(const OmegaInputs<S>& in, const MlpMem<S>& m0, std::size_t b, const Bias& bias = {},
                                                          bool keep_states = false) {
  mlp_detail::check_seq(in, m0, "omega_chunk_mlp_loop");
  omega_detail::chunk_check(b, "omega_chunk_mlp_loop");
  return mlp_detail::frozen_loop(in, m0, b, bias, keep_states);
}

// A002-OMEGA-CHUNK-MLP: the tensorised chunk form (spec item, to implement). Chunk s..e with entry weights W^0, look-back
// + chunk tokens i = max(1, s-c+1)..e: x_i = phi_i, h_i = W2^0 x_i, g_i = s(h_i), u_i = W3^0 x_i, a_i = g_i (o u_i),
// e_i = dl/dy at y_i = res(x_i) + W1^0 a_i, w_i = W1^{0T} e_i, delta2_i = w_i o (u_i) o s'(h_i), delta3_i = w_i o g_i;
// C = D Gamma with D(t, n) = A_{n+1:t} eta_n 1[n <= t]; for query z_t:
//   h'_t = A_{s:t} W2^0 z_t - sum_i C(t,i) (x_i . z_t) delta2_i,  u'_t = A_{s:t} W3^0 z_t - sum_i C(t,i) (x_i . z_t) delta3_i,
//   a'_t = s(h'_t) (o u'_t),  y_t = res(z_t) + A_{s:t} W1^0 a'_t - sum_i C(t,i) (a_i . a'_t) e_i;
// end-of-chunk weights W^e = A_{s:e} W^0 - sum_i C(e,i) g_i^(l) (the only per-token outer products formed).
template <class S> MlpOmegaResult<S> omega_chunk_mlp(const OmegaInputs<S>& in, const MlpMem<S>& m0, std::size_t b, const Bias& bias = {}) {
  mlp_detail::check_seq(in, m0, "omega_chunk_mlp");
  omega_detail::chunk_check(b, "omega_chunk_mlp");
  const std::size_t L = in.PhiK.rows, D = in.PhiK.cols, dv = in.V.cols, dh = m0.W2.rows;
  const bool gated = m0.gated();
  MlpOmegaResult<S> r;
  r.Y = Matrix<S>(L, dv);
  MlpMem<S> W = m0;
  for (std::size_t s = 0; s < L; s += b) {
    const std::size_t e = std::min(L, s + b) - 1;
    const std::size_t lo = omega_window_begin(s, in.c);
    const std::size_t nt = e - s + 1, ni = e - lo + 1;
    // per-token quantities at the chunk-start weights
    std::vector<MlpForward<S>> F;
    std::vector<Vector<S>> E, d2, d3;
    for (std::size_t i = lo; i <= e; ++i) {
      F.push_back(mlp_memory_forward_full(W, in.PhiK.row(i)));
      const MlpForward<S>& f = F.back();
      E.push_back(bias_output_grad(bias, f.y.data(), in.V.row(i), dv));
      Vector<S> w(dh, S(0));
      for (std::size_t a = 0; a < dv; ++a)
        for (std::size_t j = 0; j < dh; ++j) muladd(w[j], W.W1(a, j), E.back()[a]);
      Vector<S> x2(dh), x3(gated ? dh : 0);
      for (std::size_t j = 0; j < dh; ++j) {
        x2[j] = gated ? S(w[j] * f.u[j] * mlp_act_prime(f.h[j], W.act)) : S(w[j] * mlp_act_prime(f.h[j], W.act));
        if (gated) x3[j] = w[j] * f.g[j];
      }
      d2.push_back(x2);
      d3.push_back(x3);
    }
    // C = D Gamma (nt x ni), columns i = lo..e
    Matrix<S> C(nt, ni);
    for (std::size_t t = s; t <= e; ++t)
      for (std::size_t n = s; n <= t; ++n) {
        const S dtn = omega_detail::decay(in.log_alpha, n + 1, t) * in.eta[n];
        for (std::size_t i = omega_window_begin(n, in.c); i <= n; ++i) C(t - s, i - lo) += dtn * omega_detail::gate(in, n, i);
      }
    // outputs
    for (std::size_t t = s; t <= e; ++t) {
      const S A = omega_detail::decay(in.log_alpha, s, t);
      const S* z = in.PhiQ.row(t);
      Vector<S> h = matvec(W.W2, z), u;
      for (S& q : h) q *= A;
      if (gated) {
        u = matvec(W.W3, z);
        for (S& q : u) q *= A;
      }
      for (std::size_t i = lo; i <= e; ++i) {
        const S c = C(t - s, i - lo);
        if (c == S(0)) continue;
        const S xz = c * dot(in.PhiK.row(i), z, D);
        for (std::size_t j = 0; j < dh; ++j) {
          h[j] -= xz * d2[i - lo][j];
          if (gated) u[j] -= xz * d3[i - lo][j];
        }
      }
      Vector<S> ap(dh);
      for (std::size_t j = 0; j < dh; ++j) ap[j] = gated ? S(mlp_act(h[j], W.act) * u[j]) : mlp_act(h[j], W.act);
      Vector<S> y = matvec(W.W1, ap.data());
      for (S& q : y) q *= A;
      for (std::size_t i = lo; i <= e; ++i) {
        const S c = C(t - s, i - lo);
        if (c == S(0)) continue;
        const S aa = c * dot(F[i - lo].a.data(), ap.data(), dh);
        for (std::size_t a = 0; a < dv; ++a) y[a] -= aa * E[i - lo][a];
      }
      if (W.res == MlpResidual::identity)
        for (std::size_t a = 0; a < dv; ++a) y[a] += z[a];
      else if (W.res == MlpResidual::proj) {
        const Vector<S> pz = matvec(W.P, z);
        for (std::size_t a = 0; a < dv; ++a) y[a] += pz[a];
      }
      for (std::size_t a = 0; a < dv; ++a) r.Y(t, a) = y[a];
    }
    // end-of-chunk weights
    const S Ae = omega_detail::decay(in.log_alpha, s, e);
    MlpMem<S> N = W;
    for (S& q : N.W1.a) q *= Ae;
    for (S& q : N.W2.a) q *= Ae;
    if (gated)
      for (S& q : N.W3.a) q *= Ae;
    for (std::size_t i = lo; i <= e; ++i) {
      const S c = C(e - s, i - lo);
      if (c == S(0)) continue;
      add_outer(N.W1, S(-c), E[i - lo].data(), F[i - lo].a.data());
      add_outer(N.W2, S(-c), d2[i - lo].data(), in.PhiK.row(i));
      if (gated) add_outer(N.W3, S(-c), d3[i - lo].data(), in.PhiK.row(i));
    }
    W = N;
  }
  r.state = W;
  return r;
}

// A002-DT-DEEP-TRUNC (reading): DeepTransformer (dot bias, Eq. 25) / Dot (l2 bias, Eq. 27) with a deep memory on the
// truncated features phi*_P (exp_feature_monomial of deep_transformer.hpp, dimension C(d_k + P, P)): keys and queries
// (rows of K, Q) are mapped, then the OmegaNet recurrence with window c = 1 runs on them (W_t = alpha_t W_{t-1} -
// eta_t grad l(M_{t-1}(phi*_P(k_t)); v_t)). The memory needs D = C(d_k + P, P) inputs (none or proj reading when
// D != d_v). log_alpha empty: alpha = 1.
template <class S> MlpOmegaResult<S> dt_deep_trunc(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, int P, const MlpMem<S>& m0,
                                                   const Vector<S>& log_alpha, const Vector<S>& eta, const Bias& bias, bool keep_states = false) {
  require(Q.rows == K.rows && K.rows == V.rows && Q.cols == K.cols, "dt_deep_trunc: Q, K, V must have one row per token and Q, K the same width");
  const std::size_t L = K.rows, D = exp_monomial_dim(K.cols, P);
  OmegaInputs<S> in;
  in.PhiQ = Matrix<S>(L, D);
  in.PhiK = Matrix<S>(L, D);
  for (std::size_t t = 0; t < L; ++t) {
    const Vector<S> fq = exp_feature_monomial(Q.row(t), Q.cols, P), fk = exp_feature_monomial(K.row(t), K.cols, P);
    for (std::size_t j = 0; j < D; ++j) {
      in.PhiQ(t, j) = fq[j];
      in.PhiK(t, j) = fk[j];
    }
  }
  in.V = V;
  in.log_alpha = log_alpha;
  in.eta = eta;
  in.c = 1;
  mlp_detail::check_seq(in, m0, "dt_deep_trunc");
  return mlp_detail::frozen_loop(in, m0, 1, bias, keep_states);
}

}  // namespace recall::ref
