// Models of A003 App. C / App. D and the sparsemax baseline (Hu et al. 2024, nonparametric modern Hopfield
// models; spec /work/shared/spec/A003-hopfield.md): the linear model (C.1)/(C.2), the multi-head model
// (C.4)/(C.5) with shared keys and with per-head keys, the positive-random-feature (Performer FAVOR+) model
// (C.6)/(C.7) with an explicit omega draw, the nonparametric Hopfield layers (D.1)/(D.2), the sparsemax modern
// Hopfield baseline (Hu et al. 2023) and the gathered / factored sparse kernels whose operation counts the
// complexity claims measure. Written from the definitions (explicit features, explicit inner products,
// explicit weights); the fast forms (state S = sum_mu xi_mu phi(k_mu)^T, z = sum_mu phi(k_mu), causal prefix
// sums, batched heads, selection-based sparsemax threshold) sit next to them for the D-EQ comparisons.
//
// Layout as hopfield.hpp: memories (values) Xi are M x d with row mu = xi_mu, keys Keys (rows xi_mu + dxi_mu)
// likewise; queries are vectors of length d (sequences: L x d rows). Feature states are value-major
// (spec README convention 1): S is d_v x D_phi. Indices 0-based; claim files report them 1-based.
// Scalars: recall::mp_t, double, float, recall::Counted.
#pragma once

#include "recall/reference/hopfield.hpp"
#include "recall/reference/matrix.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace recall::ref::hopfield {

namespace mdetail {
using detail::exp_;
using detail::log_;
using detail::sqrt_;
template <class S> void require_rows(const Matrix<S>& A, const Matrix<S>& B, const char* who, const char* a, const char* b) {
  require(A.rows == B.rows && A.cols == B.cols, std::string(who) + ": " + a + " is " + std::to_string(A.rows) + "x" +
                                                    std::to_string(A.cols) + ", " + b + " is " + std::to_string(B.rows) + "x" +
                                                    std::to_string(B.cols));
}
// log sum_j exp(l_j) with a max shift (every l_j finite or -inf; at least one finite)
template <class S> S logsumexp(const Vector<S>& l) { return lse(S(1), l); }
}  // namespace mdetail

// =====================================================================================================
// A003-LINEAR: linear modern Hopfield model (Prop. C.1, (C.1)/(C.2); spec Ambiguity 19)
// =====================================================================================================

// Readings of (C.2). Default: weights <phi(x), phi(k_mu)> / sum_nu <phi(x), phi(k_nu)> (un-normalised phi inner
// products, the analogue of (B.21)). literal_C2: the normalised Phi = phi / h_phi inserted literally; h_phi(x)
// cancels, leaving weights proportional to <phi(x), phi(k_mu)> / h_phi(k_mu), h_phi(y) = sum_nu <phi(y), phi(k_nu)>.
// beta_scaling: phi(sqrt(beta) .) in place of phi(.) (the paper's model has no beta).
struct LinearFlags {
  bool literal_C2 = false;
  bool beta_scaling = false;
};

// elu(z) + 1 with alpha = 1 (Clevert et al.): z + 1 for z > 0, exp(z) for z <= 0.
template <class S> S elu1(const S& z) { return z > 0 ? S(z + 1) : mdetail::exp_(z); }

// phi(x) = elu(x) + 1 element-wise (x scaled by sqrt(beta) first when flags.beta_scaling). All entries > 0.
template <class S> Vector<S> linear_features(const S* x, std::size_t d, const LinearFlags& flags = {}, const S& beta = S(1)) {
  Vector<S> f(d);
  if (flags.beta_scaling) {
    detail::require_beta(beta, "hopfield::linear_features");
    const S sb = mdetail::sqrt_(beta);
    for (std::size_t i = 0; i < d; ++i) f[i] = elu1(S(sb * x[i]));
  } else {
    for (std::size_t i = 0; i < d; ++i) f[i] = elu1(x[i]);
  }
  return f;
}
template <class S> Vector<S> linear_features(const Vector<S>& x, const LinearFlags& flags = {}, const S& beta = S(1)) {
  return linear_features(x.data(), x.size(), flags, beta);
}

// <phi(x), phi(y)> (the un-normalised feature inner product; > 0).
template <class S> S linear_feature_inner(const Vector<S>& x, const Vector<S>& y, const LinearFlags& flags = {}, const S& beta = S(1)) {
  require(x.size() == y.size(), "hopfield::linear_feature_inner: x and y differ in length");
  const Vector<S> fx = linear_features(x, flags, beta), fy = linear_features(y, flags, beta);
  return dot(fx.data(), fy.data(), fx.size());
}

// h_phi(y) = sum_nu <phi(y), phi(k_nu)> over the key rows (the normaliser of (C.1) read as in Ambiguity 3).
template <class S> S linear_normaliser(const Matrix<S>& Keys, const Vector<S>& y, const LinearFlags& flags = {}, const S& beta = S(1)) {
  require(y.size() == Keys.cols, "hopfield::linear_normaliser: y has " + std::to_string(y.size()) + " entries, keys d = " + std::to_string(Keys.cols));
  const Vector<S> fy = linear_features(y, flags, beta);
  S h(0);
  for (std::size_t nu = 0; nu < Keys.rows; ++nu) {
    const Vector<S> fk = linear_features(Keys.row(nu), Keys.cols, flags, beta);
    h += dot(fy.data(), fk.data(), fk.size());
  }
  return h;
}

// Induced (normalised) kernel of Prop. C.1: K(x, y) = <phi(x), phi(y)> / (h_phi(x) h_phi(y)).
template <class S> S linear_kernel(const Matrix<S>& Keys, const Vector<S>& x, const Vector<S>& y, const LinearFlags& flags = {},
                                   const S& beta = S(1)) {
  return linear_feature_inner(x, y, flags, beta) / (linear_normaliser(Keys, x, flags, beta) * linear_normaliser(Keys, y, flags, beta));
}

// Reference weights of (C.2) for one query (sum to 1, all > 0): per-query explicit inner products.
template <class S> Vector<S> linear_weights(const Matrix<S>& Keys, const Vector<S>& x, const LinearFlags& flags = {}, const S& beta = S(1)) {
  require(Keys.rows >= 1 && Keys.cols >= 1, "hopfield::linear_weights: need at least one key");
  require(x.size() == Keys.cols, "hopfield::linear_weights: query has " + std::to_string(x.size()) + " entries, keys d = " + std::to_string(Keys.cols));
  detail::require_finite(x, "hopfield::linear_weights", "x");
  const Vector<S> fx = linear_features(x, flags, beta);
  Vector<S> w(Keys.rows);
  S total(0);
  for (std::size_t mu = 0; mu < Keys.rows; ++mu) {
    const Vector<S> fk = linear_features(Keys.row(mu), Keys.cols, flags, beta);
    w[mu] = dot(fx.data(), fk.data(), fk.size());
    if (flags.literal_C2) {
      const Vector<S> kmu(Keys.row(mu), Keys.row(mu) + Keys.cols);
      w[mu] /= linear_normaliser(Keys, kmu, flags, beta);
    }
    total += w[mu];
  }
  require(total > 0 && is_finite(total), "hopfield::linear_weights: denominator is zero or not finite (phi underflow)");
  for (S& v : w) v /= total;
  return w;
}

// T_Linear(x) = sum_mu w_mu xi_mu (reference, per query).
template <class S> Vector<S> linear_retrieval(const Matrix<S>& Xi, const Matrix<S>& Keys, const Vector<S>& x, const LinearFlags& flags = {},
                                              const S& beta = S(1)) {
  detail::require_shapes(Xi, Keys, x, "hopfield::linear_retrieval");
  return combine_rows(Xi, linear_weights(Keys, x, flags, beta));
}
template <class S> Vector<S> linear_retrieval(const Matrix<S>& Xi, const Vector<S>& x, const LinearFlags& flags = {}, const S& beta = S(1)) {
  return linear_retrieval(Xi, Xi, x, flags, beta);
}

// Fast form state: S = sum_mu c_mu xi_mu phi(k_mu)^T (d_v x D), z = sum_mu c_mu phi(k_mu), with c_mu = 1
// (default) or 1 / h_phi(k_mu) (literal_C2, h from the plain z: h_phi(k_mu) = <phi(k_mu), z_plain>).
template <class S> struct LinearState {
  Matrix<S> S_;  // d_v x D
  Vector<S> z;   // D
};
template <class S> LinearState<S> linear_state(const Matrix<S>& Xi, const Matrix<S>& Keys, const LinearFlags& flags = {}, const S& beta = S(1)) {
  require(Xi.rows == Keys.rows && Xi.rows >= 1, "hopfield::linear_state: values and keys need the same number M >= 1 of rows");
  const std::size_t D = Keys.cols;
  LinearState<S> st{Matrix<S>(Xi.cols, D), Vector<S>(D, S(0))};
  // one pass (default); literal_C2: a first pass for z_plain, the features recomputed in the second (O(d D) memory)
  Vector<S> zplain;
  if (flags.literal_C2) {
    zplain.assign(D, S(0));
    for (std::size_t mu = 0; mu < Keys.rows; ++mu) {
      const Vector<S> f = linear_features(Keys.row(mu), D, flags, beta);
      for (std::size_t j = 0; j < D; ++j) zplain[j] += f[j];
    }
  }
  for (std::size_t mu = 0; mu < Keys.rows; ++mu) {
    Vector<S> f = linear_features(Keys.row(mu), D, flags, beta);
    if (flags.literal_C2) {
      const S h = dot(f.data(), zplain.data(), D);
      for (S& v : f) v /= h;
    }
    add_outer(st.S_, Xi.row(mu), f.data());
    for (std::size_t j = 0; j < D; ++j) st.z[j] += f[j];
  }
  return st;
}
// T_Linear(x) = S phi(x) / (z^T phi(x)) from a state.
template <class S> Vector<S> linear_apply(const LinearState<S>& st, const Vector<S>& x, const LinearFlags& flags = {}, const S& beta = S(1)) {
  require(x.size() == st.z.size(), "hopfield::linear_apply: query length differs from the feature dimension");
  const Vector<S> fx = linear_features(x, flags, beta);
  const S den = dot(st.z.data(), fx.data(), fx.size());
  require(den > 0 && is_finite(den), "hopfield::linear_apply: denominator z^T phi(x) is zero or not finite");
  Vector<S> out = matvec(st.S_, fx.data());
  for (S& v : out) v /= den;
  return out;
}
// Fast form for L queries (rows of Q): one state, L applications.
template <class S> Matrix<S> linear_retrieval_fast(const Matrix<S>& Xi, const Matrix<S>& Keys, const Matrix<S>& Q, const LinearFlags& flags = {},
                                                   const S& beta = S(1)) {
  require(Q.cols == Keys.cols, "hopfield::linear_retrieval_fast: queries and keys differ in d");
  const LinearState<S> st = linear_state(Xi, Keys, flags, beta);
  Matrix<S> Z(Q.rows, Xi.cols);
  for (std::size_t i = 0; i < Q.rows; ++i) {
    const Vector<S> q(Q.row(i), Q.row(i) + Q.cols);
    const Vector<S> o = linear_apply(st, q, flags, beta);
    for (std::size_t c = 0; c < o.size(); ++c) Z(i, c) = o[c];
  }
  return Z;
}
// Causal sequence variant, reference: row t = sum_{mu <= t} <phi(q_t), phi(k_mu)> v_mu / sum_{nu <= t} <...>
// (per query, explicit inner products; un-normalised reading only: literal_C2 has no causal meaning).
template <class S> Matrix<S> linear_causal_reference(const Matrix<S>& Q, const Matrix<S>& Keys, const Matrix<S>& V, const LinearFlags& flags = {},
                                                     const S& beta = S(1)) {
  require(!flags.literal_C2, "hopfield::linear_causal_reference: literal_C2 is not defined for the causal variant");
  require(Q.rows == Keys.rows && V.rows == Keys.rows && Q.cols == Keys.cols, "hopfield::linear_causal_reference: shapes differ");
  Matrix<S> Z(Q.rows, V.cols);
  for (std::size_t t = 0; t < Q.rows; ++t) {
    const Vector<S> fq = linear_features(Q.row(t), Q.cols, flags, beta);
    S den(0);
    Vector<S> num(V.cols, S(0));
    for (std::size_t mu = 0; mu <= t; ++mu) {
      const Vector<S> fk = linear_features(Keys.row(mu), Keys.cols, flags, beta);
      const S w = dot(fq.data(), fk.data(), fk.size());
      den += w;
      for (std::size_t c = 0; c < V.cols; ++c) num[c] += w * V(mu, c);
    }
    for (std::size_t c = 0; c < V.cols; ++c) Z(t, c) = num[c] / den;
  }
  return Z;
}
// Causal sequence variant, fast form: prefix sums S_t = S_{t-1} + v_t phi(k_t)^T, z_t = z_{t-1} + phi(k_t).
template <class S> Matrix<S> linear_causal_prefix(const Matrix<S>& Q, const Matrix<S>& Keys, const Matrix<S>& V, const LinearFlags& flags = {},
                                                  const S& beta = S(1)) {
  require(!flags.literal_C2, "hopfield::linear_causal_prefix: literal_C2 is not defined for the causal variant");
  require(Q.rows == Keys.rows && V.rows == Keys.rows && Q.cols == Keys.cols, "hopfield::linear_causal_prefix: shapes differ");
  const std::size_t D = Keys.cols;
  Matrix<S> St(V.cols, D);
  Vector<S> z(D, S(0));
  Matrix<S> Z(Q.rows, V.cols);
  for (std::size_t t = 0; t < Q.rows; ++t) {
    const Vector<S> fk = linear_features(Keys.row(t), D, flags, beta);
    add_outer(St, V.row(t), fk.data());
    for (std::size_t j = 0; j < D; ++j) z[j] += fk[j];
    const Vector<S> fq = linear_features(Q.row(t), D, flags, beta);
    const S den = dot(z.data(), fq.data(), D);
    const Vector<S> o = matvec(St, fq.data());
    for (std::size_t c = 0; c < V.cols; ++c) Z(t, c) = o[c] / den;
  }
  return Z;
}

// =====================================================================================================
// A003-MULTIHEAD (shared keys, (C.5) as printed) and A003-MULTIHEAD-PERHEAD (per-head keys)
// =====================================================================================================

// T_Multi(x) = sum_s W_O^s (Xi_s^T Softmax(beta Keys x)): one key matrix for all heads, values Xi_s (M x d_s rows),
// output projections W_O^s (d_out x d_s). H = values.size() = W_O.size() >= 1.
template <class S> Vector<S> multihead_shared(const Matrix<S>& Keys, const std::vector<Matrix<S>>& values, const std::vector<Matrix<S>>& W_O,
                                              const Vector<S>& x, const S& beta) {
  require(!values.empty() && values.size() == W_O.size(), "hopfield::multihead_shared: need H >= 1 value matrices and as many W_O");
  detail::require_beta(beta, "hopfield::multihead_shared");
  require(x.size() == Keys.cols, "hopfield::multihead_shared: query length differs from the key dimension");
  const Vector<S> pi = softmax_weights(beta, scores(Keys, x));
  Vector<S> out(W_O[0].rows, S(0));
  for (std::size_t s = 0; s < values.size(); ++s) {
    require(values[s].rows == Keys.rows, "hopfield::multihead_shared: head " + std::to_string(s + 1) + " has a different M");
    require(W_O[s].cols == values[s].cols && W_O[s].rows == out.size(),
            "hopfield::multihead_shared: W_O of head " + std::to_string(s + 1) + " has the wrong shape");
    const Vector<S> head = combine_rows(values[s], pi);
    const Vector<S> proj = matvec(W_O[s], head.data());
    for (std::size_t c = 0; c < out.size(); ++c) out[c] += proj[c];
  }
  return out;
}
// Per-head keys: T(x) = sum_s W_O^s (Xi_s^T Softmax(beta Keys_s x)).
template <class S> Vector<S> multihead_perhead(const std::vector<Matrix<S>>& keys, const std::vector<Matrix<S>>& values,
                                               const std::vector<Matrix<S>>& W_O, const Vector<S>& x, const S& beta) {
  require(!values.empty() && values.size() == W_O.size() && keys.size() == values.size(),
          "hopfield::multihead_perhead: need H >= 1 key, value and W_O matrices each");
  detail::require_beta(beta, "hopfield::multihead_perhead");
  Vector<S> out(W_O[0].rows, S(0));
  for (std::size_t s = 0; s < values.size(); ++s) {
    require(keys[s].cols == x.size() && keys[s].rows == values[s].rows,
            "hopfield::multihead_perhead: keys of head " + std::to_string(s + 1) + " have the wrong shape");
    require(W_O[s].cols == values[s].cols && W_O[s].rows == out.size(),
            "hopfield::multihead_perhead: W_O of head " + std::to_string(s + 1) + " has the wrong shape");
    const Vector<S> head = combine_rows(values[s], softmax_weights(beta, scores(keys[s], x)));
    const Vector<S> proj = matvec(W_O[s], head.data());
    for (std::size_t c = 0; c < out.size(); ++c) out[c] += proj[c];
  }
  return out;
}
// Fast form (shared keys): one score pass, stacked values [Xi_1 | ... | Xi_H] (M x sum d_s) times pi, then one
// product with the stacked [W_O^1, ..., W_O^H] (d_out x sum d_s).
template <class S> Vector<S> multihead_shared_batched(const Matrix<S>& Keys, const std::vector<Matrix<S>>& values, const std::vector<Matrix<S>>& W_O,
                                                      const Vector<S>& x, const S& beta) {
  require(!values.empty() && values.size() == W_O.size(), "hopfield::multihead_shared_batched: need H >= 1 heads");
  std::size_t tot = 0;
  for (const auto& v : values) tot += v.cols;
  Matrix<S> Vs(Keys.rows, tot), Wo(W_O[0].rows, tot);
  std::size_t off = 0;
  for (std::size_t s = 0; s < values.size(); ++s) {
    require(values[s].rows == Keys.rows && W_O[s].rows == Wo.rows && W_O[s].cols == values[s].cols,
            "hopfield::multihead_shared_batched: head " + std::to_string(s + 1) + " has the wrong shape");
    for (std::size_t mu = 0; mu < Keys.rows; ++mu)
      for (std::size_t c = 0; c < values[s].cols; ++c) Vs(mu, off + c) = values[s](mu, c);
    for (std::size_t r = 0; r < Wo.rows; ++r)
      for (std::size_t c = 0; c < values[s].cols; ++c) Wo(r, off + c) = W_O[s](r, c);
    off += values[s].cols;
  }
  const Vector<S> stacked = combine_rows(Vs, softmax_weights(beta, scores(Keys, x)));
  return matvec(Wo, stacked.data());
}

// =====================================================================================================
// A003-PRF: positive random features (Performer FAVOR+), (C.6)/(C.7); spec Ambiguity 18
// =====================================================================================================

// gaussian: omega_i ~ N(0, I_d) i.i.d. (the "standard Gaussian in practice" default);
// simplex: omega_i ~ Dirichlet(1) (uniform on the probability simplex, the printed P in Delta^d; exploratory).
enum class PrfDistribution { gaussian, simplex };
inline const char* prf_distribution_name(PrfDistribution p) { return p == PrfDistribution::gaussian ? "gaussian" : "simplex"; }

// An explicit draw: omega (n_f x d, double, exactly representable in every scalar) and the map variant
// (hyperbolic: l = 2, psi = exp(+-.), D = 2 n_f; else l = 1, psi = exp, D = n_f).
struct PrfDraw {
  Matrix<double> omega;
  bool hyperbolic = false;
  PrfDistribution distribution = PrfDistribution::gaussian;
  std::size_t n_f() const { return omega.rows; }
  std::size_t dim() const { return omega.cols; }
  std::size_t features() const { return hyperbolic ? 2 * omega.rows : omega.rows; }
};

// Draw n_f projections in dimension d from Philox4x32-10 keyed by (seed, stream) (Box-Muller for Gaussians,
// normalised exponentials for Dirichlet(1)). Bit-reproducible.
inline PrfDraw prf_draw(std::size_t n_f, std::size_t d, std::uint64_t seed, PrfDistribution dist = PrfDistribution::gaussian,
                        bool hyperbolic = false, std::uint64_t stream = 0) {
  require(n_f >= 1 && d >= 1, "hopfield::prf_draw: n_f and d must be >= 1");
  PrfDraw p;
  p.omega = Matrix<double>(n_f, d);
  p.hyperbolic = hyperbolic;
  p.distribution = dist;
  PhiloxStream g(seed, stream);
  auto open01 = [&g]() { return 1.0 - g.uniform(); };  // (0, 1]
  for (std::size_t i = 0; i < n_f; ++i) {
    if (dist == PrfDistribution::gaussian) {
      for (std::size_t j = 0; j < d; j += 2) {
        const double r = std::sqrt(-2.0 * std::log(open01())), th = 2.0 * 3.14159265358979323846 * g.uniform();
        p.omega(i, j) = r * std::cos(th);
        if (j + 1 < d) p.omega(i, j + 1) = r * std::sin(th);
      }
    } else {
      double s = 0;
      for (std::size_t j = 0; j < d; ++j) s += (p.omega(i, j) = -std::log(open01()));
      for (std::size_t j = 0; j < d; ++j) p.omega(i, j) /= s;
    }
  }
  return p;
}
// A draw from a given projection matrix (rows omega_i).
inline PrfDraw prf_draw_from(const Matrix<double>& omega, bool hyperbolic = false, PrfDistribution dist = PrfDistribution::gaussian) {
  require(omega.rows >= 1 && omega.cols >= 1, "hopfield::prf_draw_from: omega must be non-empty");
  PrfDraw p;
  p.omega = omega;
  p.hyperbolic = hyperbolic;
  p.distribution = dist;
  return p;
}

// log Phi(x), entrywise: Phi(x) = e^{-beta |x|^2 / 2} / sqrt(n_f) [e^{sqrt(beta) omega_i^T x}]_i (hyperbolic:
// / sqrt(2 n_f) and [e^{+sqrt(beta) omega_i^T x}, e^{-sqrt(beta) omega_i^T x}]_i, the + block first).
template <class S> Vector<S> prf_log_features(const PrfDraw& draw, const S* x, std::size_t d, const S& beta) {
  require(d == draw.dim(), "hopfield::prf_log_features: x has " + std::to_string(d) + " entries, omega has d = " + std::to_string(draw.dim()));
  detail::require_beta(beta, "hopfield::prf_log_features");
  const S sb = mdetail::sqrt_(beta);
  const S base = -beta * dot(x, x, d) / 2 - mdetail::log_(S(static_cast<double>(draw.features()))) / 2;
  const std::size_t nf = draw.n_f();
  Vector<S> l(draw.features());
  Vector<S> w(d);
  for (std::size_t i = 0; i < nf; ++i) {
    for (std::size_t j = 0; j < d; ++j) w[j] = S(draw.omega(i, j));
    const S proj = sb * dot(w.data(), x, d);
    l[i] = base + proj;
    if (draw.hyperbolic) l[nf + i] = base - proj;
  }
  return l;
}
template <class S> Vector<S> prf_log_features(const PrfDraw& draw, const Vector<S>& x, const S& beta) {
  return prf_log_features(draw, x.data(), x.size(), beta);
}
// Phi(x) (all entries > 0 unless they underflow).
template <class S> Vector<S> prf_features(const PrfDraw& draw, const Vector<S>& x, const S& beta) {
  Vector<S> l = prf_log_features(draw, x, beta);
  for (S& v : l) v = mdetail::exp_(v);
  return l;
}
// log <Phi(x), Phi(y)> (max-shifted; the estimate of beta <x, y>).
template <class S> S prf_log_kernel_estimate(const PrfDraw& draw, const Vector<S>& x, const Vector<S>& y, const S& beta) {
  const Vector<S> lx = prf_log_features(draw, x, beta), ly = prf_log_features(draw, y, beta);
  Vector<S> t(lx.size());
  for (std::size_t j = 0; j < t.size(); ++j) t[j] = lx[j] + ly[j];
  return mdetail::logsumexp(t);
}
// <Phi(x), Phi(y)>: the random-feature estimate of exp(beta <x, y>) (unbiased over the Gaussian draw).
template <class S> S prf_kernel_estimate(const PrfDraw& draw, const Vector<S>& x, const Vector<S>& y, const S& beta) {
  return mdetail::exp_(prf_log_kernel_estimate(draw, x, y, beta));
}
// Reference weights of (C.7) for a fixed draw: w_mu = <Phi(x), Phi(k_mu)> / D_hat(x), D_hat(x) = sum_nu <Phi(x), Phi(k_nu)>
// (Performer normalisation, Ambiguity 18); computed in the log domain (softmax of log <Phi(x), Phi(k_mu)>).
template <class S> Vector<S> prf_weights(const PrfDraw& draw, const Matrix<S>& Keys, const Vector<S>& x, const S& beta) {
  require(Keys.rows >= 1 && Keys.cols == x.size(), "hopfield::prf_weights: keys and query shapes differ");
  detail::require_finite(x, "hopfield::prf_weights", "x");
  const Vector<S> lx = prf_log_features(draw, x, beta);
  Vector<S> lk(Keys.rows), t(lx.size());
  for (std::size_t mu = 0; mu < Keys.rows; ++mu) {
    const Vector<S> lkm = prf_log_features(draw, Keys.row(mu), Keys.cols, beta);
    for (std::size_t j = 0; j < t.size(); ++j) t[j] = lx[j] + lkm[j];
    lk[mu] = mdetail::logsumexp(t);
  }
  const S L = mdetail::logsumexp(lk);
  Vector<S> w(Keys.rows);
  for (std::size_t mu = 0; mu < Keys.rows; ++mu) w[mu] = mdetail::exp_(S(lk[mu] - L));
  return w;
}
// T_PRF(x) = sum_mu w_mu xi_mu (reference for a fixed draw).
template <class S> Vector<S> prf_retrieval(const PrfDraw& draw, const Matrix<S>& Xi, const Matrix<S>& Keys, const Vector<S>& x, const S& beta) {
  detail::require_shapes(Xi, Keys, x, "hopfield::prf_retrieval");
  return combine_rows(Xi, prf_weights(draw, Keys, x, beta));
}
// Fast form state: S = sum_mu xi_mu Phi~(k_mu)^T (d_v x D), z = sum_mu Phi~(k_mu), Phi~ = Phi e^{-c} with one key-side
// shift c = max_{mu, j} log Phi_j(k_mu) for all keys (it cancels in the ratio).
template <class S> struct PrfState {
  Matrix<S> S_;  // d_v x D
  Vector<S> z;   // D
  S key_shift;   // c
};
template <class S> PrfState<S> prf_state(const PrfDraw& draw, const Matrix<S>& Xi, const Matrix<S>& Keys, const S& beta) {
  require(Xi.rows == Keys.rows && Xi.rows >= 1, "hopfield::prf_state: values and keys need the same number M >= 1 of rows");
  const std::size_t D = draw.features();
  // pass 1: the shift c; pass 2: the features recomputed (O(d D) memory, not O(M D))
  S c(0);
  for (std::size_t mu = 0; mu < Keys.rows; ++mu) {
    const Vector<S> l = prf_log_features(draw, Keys.row(mu), Keys.cols, beta);
    for (std::size_t j = 0; j < D; ++j)
      if ((mu == 0 && j == 0) || l[j] > c) c = l[j];
  }
  PrfState<S> st{Matrix<S>(Xi.cols, D), Vector<S>(D, S(0)), c};
  for (std::size_t mu = 0; mu < Keys.rows; ++mu) {
    Vector<S> f = prf_log_features(draw, Keys.row(mu), Keys.cols, beta);
    for (S& v : f) v = mdetail::exp_(S(v - c));
    add_outer(st.S_, Xi.row(mu), f.data());
    for (std::size_t j = 0; j < D; ++j) st.z[j] += f[j];
  }
  return st;
}
// T_PRF(x) = S Phi~(x) / (z^T Phi~(x)) with a per-query shift of log Phi(x) (cancels).
template <class S> Vector<S> prf_apply(const PrfDraw& draw, const PrfState<S>& st, const Vector<S>& x, const S& beta) {
  Vector<S> lx = prf_log_features(draw, x, beta);
  S cx = lx[0];
  for (const S& v : lx)
    if (v > cx) cx = v;
  for (S& v : lx) v = mdetail::exp_(S(v - cx));
  const S den = dot(st.z.data(), lx.data(), lx.size());
  require(den > 0 && is_finite(den), "hopfield::prf_apply: denominator underflowed (key-side shift too large for this scalar)");
  Vector<S> out = matvec(st.S_, lx.data());
  for (S& v : out) v /= den;
  return out;
}
// Fast form for L queries (rows of Q).
template <class S> Matrix<S> prf_retrieval_fast(const PrfDraw& draw, const Matrix<S>& Xi, const Matrix<S>& Keys, const Matrix<S>& Q, const S& beta) {
  const PrfState<S> st = prf_state(draw, Xi, Keys, beta);
  Matrix<S> Z(Q.rows, Xi.cols);
  for (std::size_t i = 0; i < Q.rows; ++i) {
    const Vector<S> o = prf_apply(draw, st, Vector<S>(Q.row(i), Q.row(i) + Q.cols), beta);
    for (std::size_t c = 0; c < o.size(); ++c) Z(i, c) = o[c];
  }
  return Z;
}

// =====================================================================================================
// A003-EXTERNAL-SPARSEMAX: sparsemax modern Hopfield baseline (Hu et al. 2023)
// =====================================================================================================

// Sort-based threshold tau of Sparsemax(z) = argmin_{p in simplex} ||p - z||^2 (Martins & Astudillo 2016):
// z sorted descending, k(z) = max{k : 1 + k z_(k) > sum_{j <= k} z_(j)}, tau = (sum_{j <= k(z)} z_(j) - 1) / k(z).
// support_size (optional) receives k(z).
template <class S> S sparsemax_threshold(const Vector<S>& z, std::size_t* support_size = nullptr) {
  require(!z.empty(), "hopfield::sparsemax_threshold: z is empty");
  detail::require_finite(z, "hopfield::sparsemax_threshold", "z");
  std::vector<S> s(z);
  std::sort(s.begin(), s.end(), [](const S& a, const S& b) { return a > b; });
  S cum(0), cum_k(0);
  std::size_t k = 0;
  for (std::size_t j = 0; j < s.size(); ++j) {
    cum += s[j];
    if (S(1) + S(static_cast<double>(j + 1)) * s[j] > cum) {
      k = j + 1;
      cum_k = cum;
    }
  }
  if (support_size) *support_size = k;  // k >= 1 always (j = 0 satisfies the condition)
  return (cum_k - 1) / S(static_cast<double>(k));
}
// Selection-based threshold (Duchi et al. 2008, expected linear time, deterministic middle pivot):
// the same tau without a full sort.
template <class S> S sparsemax_threshold_select(const Vector<S>& z, std::size_t* support_size = nullptr) {
  require(!z.empty(), "hopfield::sparsemax_threshold_select: z is empty");
  detail::require_finite(z, "hopfield::sparsemax_threshold_select", "z");
  std::vector<S> U(z);
  S s(0);
  std::size_t rho = 0;
  while (!U.empty()) {
    const S pivot = U[U.size() / 2];
    std::vector<S> G, Lo;  // G = {v >= pivot}, Lo = {v < pivot}
    S ds(0);
    for (const S& v : U) {
      if (v >= pivot) {
        G.push_back(v);
        ds += v;
      } else {
        Lo.push_back(v);
      }
    }
    if ((s + ds) - S(static_cast<double>(rho + G.size())) * pivot < S(1)) {
      s += ds;
      rho += G.size();
      U.swap(Lo);
    } else {
      // drop one copy of the pivot: the rest of G (strictly larger values and equal copies) stays
      std::vector<S> G2;
      bool dropped = false;
      for (const S& v : G) {
        if (!dropped && v == pivot) {
          dropped = true;
          continue;
        }
        G2.push_back(v);
      }
      U.swap(G2);
    }
  }
  require(rho >= 1, "hopfield::sparsemax_threshold_select: empty support (internal error)");
  if (support_size) *support_size = rho;
  return (s - 1) / S(static_cast<double>(rho));
}
// Sparsemax(z): p_i = max(z_i - tau, 0) (sums to 1; the Euclidean projection of z onto the simplex).
template <class S> Vector<S> sparsemax(const Vector<S>& z) {
  const S tau = sparsemax_threshold(z);
  Vector<S> p(z.size());
  for (std::size_t i = 0; i < z.size(); ++i) p[i] = z[i] > tau ? S(z[i] - tau) : S(0);
  return p;
}
// Sparsemax retrieval T(x) = Xi^T Sparsemax(beta Keys x) (memories as rows).
template <class S> Vector<S> sparsemax_retrieval(const Matrix<S>& Xi, const Matrix<S>& Keys, const Vector<S>& x, const S& beta) {
  detail::require_shapes(Xi, Keys, x, "hopfield::sparsemax_retrieval");
  detail::require_beta(beta, "hopfield::sparsemax_retrieval");
  Vector<S> a = scores(Keys, x);
  for (S& v : a) v *= beta;
  return combine_rows(Xi, sparsemax(a));
}
template <class S> Vector<S> sparsemax_retrieval(const Matrix<S>& Xi, const Vector<S>& x, const S& beta) {
  return sparsemax_retrieval(Xi, Xi, x, beta);
}

// =====================================================================================================
// Gathered / factored sparse kernels (the cheapest exact forms whose counts A003-SUBQUADRATIC measures)
// =====================================================================================================

// Reading R, gather-then-dense: scores only on the mask (k d), softmax over them, weighted sum of the k rows.
template <class S> Vector<S> sparse_r_gathered(const Matrix<S>& Xi, const Matrix<S>& Keys, const Vector<S>& x, const S& beta, const Mask& mask) {
  detail::require_shapes(Xi, Keys, x, "hopfield::sparse_r_gathered");
  detail::require_beta(beta, "hopfield::sparse_r_gathered");
  detail::require_mask(mask, Xi.rows, "hopfield::sparse_r_gathered");
  require(!mask.empty(), "hopfield::sparse_r_gathered: empty mask (reading R is undefined there, spec C13)");
  Vector<S> a(mask.size());
  for (std::size_t i = 0; i < mask.size(); ++i) a[i] = dot(Keys.row(mask[i]), x.data(), x.size());
  const Vector<S> q = softmax_weights(beta, a);
  Vector<S> out(Xi.cols, S(0));
  const MulAddCtx<S> ctx;
  for (std::size_t i = 0; i < mask.size(); ++i)
    for (std::size_t c = 0; c < Xi.cols; ++c) muladd(out[c], q[i], Xi(mask[i], c), ctx);
  return out;
}
// Reading U, factored: T_U = s_M T_R with s_M = exp(LSE_M - LSE_[M]); LSE_[M] needs every score (M d per query).
template <class S> Vector<S> sparse_u_factored(const Matrix<S>& Xi, const Matrix<S>& Keys, const Vector<S>& x, const S& beta, const Mask& mask) {
  detail::require_shapes(Xi, Keys, x, "hopfield::sparse_u_factored");
  detail::require_mask(mask, Xi.rows, "hopfield::sparse_u_factored");
  if (mask.empty()) return Vector<S>(Xi.cols, S(0));
  const Vector<S> a = scores(Keys, x);
  const S ls = log_mask_mass(beta, a, mask);
  const S sM = mdetail::exp_(ls);
  Vector<S> out = sparse_r_gathered(Xi, Keys, x, beta, mask);
  for (S& v : out) v *= sM;
  return out;
}

// =====================================================================================================
// A003-NPH-LAYER: nonparametric Hopfield layers (D.1)/(D.2); spec Ambiguity 21
// =====================================================================================================

// The row-wise normalisation "T_SVR(beta Q K^T)" of (D.1): dense -> row softmax; sparse_u / sparse_r -> the two
// readings of (3.11) with one mask per query row (masks[i], 0-based key indices); linear / prf -> feature maps on the
// rows of Q and K (not on the score matrix); sparsemax -> the Hu et al. 2023 baseline.
enum class RowModel { dense, sparse_u, sparse_r, linear, prf, sparsemax };
inline const char* row_model_name(RowModel m) {
  switch (m) {
    case RowModel::dense: return "dense";
    case RowModel::sparse_u: return "sparse_U";
    case RowModel::sparse_r: return "sparse_R";
    case RowModel::linear: return "linear";
    case RowModel::prf: return "prf";
    default: return "sparsemax";
  }
}
struct RowModelSpec {
  RowModel model = RowModel::dense;
  std::vector<Mask> masks;      // sparse_u / sparse_r: one per query row
  const PrfDraw* prf = nullptr; // prf: the draw (its d must be the key dimension)
  LinearFlags linear{};         // linear: flags
};

// Weights over the M keys for query row q (row index i selects the mask).
template <class S> Vector<S> row_weights(const RowModelSpec& spec, const Matrix<S>& K, const Vector<S>& q, const S& beta, std::size_t i) {
  switch (spec.model) {
    case RowModel::dense: return softmax_weights(beta, scores(K, q));
    case RowModel::sparse_u: {
      require(i < spec.masks.size(), "hopfield::row_weights: no mask for query row " + std::to_string(i + 1));
      detail::require_mask(spec.masks[i], K.rows, "hopfield::row_weights");
      const Vector<S> pi = softmax_weights(beta, scores(K, q));
      Vector<S> w(K.rows, S(0));
      for (std::size_t nu : spec.masks[i]) w[nu] = pi[nu];
      return w;
    }
    case RowModel::sparse_r:
      require(i < spec.masks.size(), "hopfield::row_weights: no mask for query row " + std::to_string(i + 1));
      return masked_weights(beta, scores(K, q), spec.masks[i]);
    case RowModel::linear: return linear_weights(K, q, spec.linear, beta);
    case RowModel::prf:
      require(spec.prf != nullptr, "hopfield::row_weights: prf model without a draw");
      return prf_weights(*spec.prf, K, q, beta);
    default: {
      Vector<S> a = scores(K, q);
      for (S& v : a) v *= beta;
      return sparsemax(a);
    }
  }
}
// (D.1): Z = T_SVR(beta Q K^T) V, Q: L x d_k, K: M x d_k, V: M x d_v -> Z: L x d_v.
template <class S> Matrix<S> nph_attention(const RowModelSpec& spec, const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const S& beta) {
  require(Q.cols == K.cols, "hopfield::nph_attention: Q has d_k = " + std::to_string(Q.cols) + ", K has " + std::to_string(K.cols));
  require(V.rows == K.rows, "hopfield::nph_attention: V has " + std::to_string(V.rows) + " rows, K has " + std::to_string(K.rows));
  detail::require_beta(beta, "hopfield::nph_attention");
  Matrix<S> Z(Q.rows, V.cols);
  for (std::size_t i = 0; i < Q.rows; ++i) {
    const Vector<S> w = row_weights(spec, K, Vector<S>(Q.row(i), Q.row(i) + Q.cols), beta, i);
    const Vector<S> o = combine_rows(V, w);
    for (std::size_t c = 0; c < V.cols; ++c) Z(i, c) = o[c];
  }
  return Z;
}
// (D.2): NPH(R_raw, Y) = T_SVR(beta R_raw W_Q W_K^T Y^T) Y W_K W_V; R_raw: L x d_R, Y: M x d_Y, W_Q: d_R x d_k,
// W_K: d_Y x d_k, W_V: d_k x d_v. Configuration (1) (memory retrieval) is W_Q = W_K = W_V = I; self-attention
// is R_raw = Y.
template <class S> Matrix<S> nph(const RowModelSpec& spec, const Matrix<S>& R_raw, const Matrix<S>& Y, const Matrix<S>& W_Q, const Matrix<S>& W_K,
                                 const Matrix<S>& W_V, const S& beta) {
  require(R_raw.cols == W_Q.rows && Y.cols == W_K.rows && W_Q.cols == W_K.cols && W_V.rows == W_K.cols,
          "hopfield::nph: inconsistent shapes of R_raw, Y, W_Q, W_K, W_V");
  const Matrix<S> Q = matmul(R_raw, W_Q), K = matmul(Y, W_K), V = matmul(K, W_V);
  return nph_attention(spec, Q, K, V, beta);
}
// NPHPooling: a static prototype Q (P x d_k) replaces R_raw W_Q: T_SVR(beta Q W_K^T Y^T) Y W_K W_V.
template <class S> Matrix<S> nph_pooling(const RowModelSpec& spec, const Matrix<S>& Q, const Matrix<S>& Y, const Matrix<S>& W_K, const Matrix<S>& W_V,
                                         const S& beta) {
  require(Y.cols == W_K.rows && Q.cols == W_K.cols && W_V.rows == W_K.cols, "hopfield::nph_pooling: inconsistent shapes of Q, Y, W_K, W_V");
  const Matrix<S> K = matmul(Y, W_K), V = matmul(K, W_V);
  return nph_attention(spec, Q, K, V, beta);
}
// NPHLayer: single input R_raw (L x d), W_Q = I, Y = I_{d_Y}: K = W_K (d_Y x d, its rows the stored patterns),
// V = W_K W_V (W_V: d x d_v).
template <class S> Matrix<S> nph_layer(const RowModelSpec& spec, const Matrix<S>& R_raw, const Matrix<S>& W_K, const Matrix<S>& W_V, const S& beta) {
  require(R_raw.cols == W_K.cols && W_V.rows == W_K.cols, "hopfield::nph_layer: inconsistent shapes of R_raw, W_K, W_V");
  return nph_attention(spec, R_raw, W_K, matmul(W_K, W_V), beta);
}

}  // namespace recall::ref::hopfield
