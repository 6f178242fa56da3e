// Helpers shared by the A002 Dot / OmegaNet claim files (proofs_numeric/a002_atlas/dot_transformer.cpp,
// omeganet_rows.cpp): the Dot instance generator (unit-norm q/k rows times a scale, N(0,1) values, window gates
// G1-G3 of a002_deeptf_claims.hpp, the spec's default rates eta_t ~ U[0.01,0.5] / max(1, c max_i ||phi*(k_i)||^2) with
// ||phi*(k)||^2 = e^{||k||^2}), the truncation order of phi*_P for a Dot (the Lagrange remainder times a bound on the
// amplification of kernel errors by the coefficient recursion), the stability diagnostic of the kernel delta step, and
// the update contract of a linear Omega-type run (central differences of the window objective of omega.hpp at the
// previous state, with wrong-write controls). Internal linkage, like claim_support.hpp.
#pragma once

#include "a002_deeptf_claims.hpp"
#include "claim_support.hpp"
#include "recall/reference/dot.hpp"
#include "recall/reference/omega.hpp"
#include "recall/reference/svd.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace recall::claim_support::dot {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

using VD = std::vector<double>;
using deeptf::GammaGen;

struct DInst {
  std::uint64_t seed = 0;
  std::size_t L = 1, d = 2, dv = 2, c = 1;
  double scale = 1, eta_mult = 1;
  DM Q, K, V, Gamma;
  VD eta;
  std::string desc;
};

// One Dot instance: q, k unit rows times `scale`, V ~ N(0,1), Gamma from generator gg (ones: all 1), eta_t =
// eta_mult * U[0.01, 0.5] / max(1, c e^{scale^2}).
DInst make_dinst(std::uint64_t seed, std::size_t L, std::size_t d, std::size_t dv, std::size_t c, double scale, GammaGen gg, double eta_mult = 1.0) {
  DInst I;
  I.seed = seed;
  I.L = L;
  I.d = d;
  I.dv = dv;
  I.c = c;
  I.scale = scale;
  I.eta_mult = eta_mult;
  Gauss g(seed);
  I.Q = deeptf::unit_rows(g, L, d, scale);
  I.K = deeptf::unit_rows(g, L, d, scale);
  I.V = gauss_matrix(L, dv, g);
  I.Gamma = deeptf::draw_gamma(g, L, c, gg, I.K);
  const double den = std::max(1.0, static_cast<double>(c) * std::exp(scale * scale));
  I.eta = deeptf::draw_eta(g, L, 0.01, 0.5);
  for (double& e : I.eta) e *= eta_mult / den;
  I.desc = "L=" + std::to_string(L) + " d=" + std::to_string(d) + " dv=" + std::to_string(dv) + " c=" + std::to_string(c) + " |q|=|k|=" + fmt(scale) + " " +
           deeptf::gamma_name(gg) + " eta=" + (eta_mult == 1.0 ? std::string("default") : fmt(eta_mult) + "x default") + " inst_seed=" + deeptf::hex(seed);
  return I;
}
template <class S> ref::DotInputs<S> dot_in(const DInst& I) {
  ref::DotInputs<S> in;
  in.Q = ref::cast<S>(I.Q);
  in.K = ref::cast<S>(I.K);
  in.V = ref::cast<S>(I.V);
  in.eta = ref::cast<S>(I.eta);
  in.Gamma = ref::cast<S>(I.Gamma);
  in.c = I.c;
  return in;
}

// X = max|k| max(max|k|, max|q|) bounds every |x^T y| the kernel sees; b = max_t 2 eta_t max_i Gamma(t, i).
double dot_X(const DInst& I) { return deeptf::max_row_norm(I.K) * std::max(deeptf::max_row_norm(I.K), deeptf::max_row_norm(I.Q)); }
double dot_bmax(const DInst& I) {
  double b = 0;
  for (std::size_t t = 0; t < I.L; ++t)
    for (std::size_t i = ref::omega_window_begin(t, I.c); i <= t; ++i) b = std::max(b, 2 * I.eta[t] * std::fabs(I.Gamma(t, i)));
  return b;
}
// log10 of the factor that multiplies the kernel error bound R in an output of the coefficient recursion: with
// kappa <= e^X, g = b L e^X, coefficient norms A <= b V L (1 + g)^L, coefficient errors E <= b L^2 A R (1 + g)^L and
// output errors <= L (E e^X + A R): factor L A (b L^2 (1 + g)^L e^X + 1) (a crude a-priori bound, evaluated in logs).
double dot_log10_amplification(const DInst& I) {
  const double X = dot_X(I), b = dot_bmax(I), L = static_cast<double>(I.L), eX = std::exp(X);
  const double vmax = std::max(1.0, deeptf::max_row_norm(I.V));
  const double lg = L * std::log10(1 + b * L * eX);
  const double lA = std::log10(std::max(b, 1e-300) * vmax * L) + lg;
  const double lE = std::log10(std::max(b, 1e-300) * L * L * eX) + lg;
  return std::log10(L) + lA + std::max(lE, 0.0) + std::log10(2.0);
}
// Truncation order for an identity at `digits`: remainder bound times the amplification <= 10^-digits (10 orders below
// the identity threshold 10^-(digits - 10)).
int dot_order(const DInst& I, unsigned digits) {
  return ref::exp_truncation_order(dot_X(I), dot_log10_amplification(I), -static_cast<double>(digits));
}

// Stability of the kernel delta step (spec A002-DOT hazards): the largest 2 eta_t lambda_max(Gamma^{1/2} G_W Gamma^{1/2})
// over the steps (window Gram G_W = [exp(k_i^T k_j)]); returns it and counts the steps above 2.
double dot_stability(const DInst& I, int* unstable) {
  double worst = 0;
  if (unstable) *unstable = 0;
  for (std::size_t t = 0; t < I.L; ++t) {
    const std::size_t lo = ref::omega_window_begin(t, I.c), n = t + 1 - lo;
    DM G(n, n);
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = 0; b < n; ++b) {
        double s = 0;
        for (std::size_t j = 0; j < I.d; ++j) s += I.K(lo + a, j) * I.K(lo + b, j);
        G(a, b) = std::sqrt(std::fabs(I.Gamma(t, lo + a))) * std::exp(s) * std::sqrt(std::fabs(I.Gamma(t, lo + b)));
      }
    const ref::Svd<double> sv = ref::svd(G);
    const double v = 2 * I.eta[t] * (sv.sigma.empty() ? 0.0 : sv.sigma[0]);
    worst = std::max(worst, v);
    if (unstable && v > 2) ++*unstable;
  }
  return worst;
}

// ---- update contract of a linear Omega-type run -------------------------------------------------------------
// central-difference gradient of the window objective F_t (omega.hpp sliding_window_objective, 1-based t) at M, step
// h = 10^{-2d/5} max(1, ||M||) (F is quadratic: the central difference is exact up to rounding ~ 10^{-3d/5})
MM window_fd_grad(const ref::OmegaInputs<mp_t>& m, const MM& M, std::size_t t) {
  const mp_t h = pow(mp_t(10), -static_cast<int>(mp_digits() * 2 / 5)) * mp_max1(ref::frob(M), mp_t(1));
  MM G(M.rows, M.cols), P = M;
  for (std::size_t i = 0; i < M.a.size(); ++i) {
    P.a[i] = M.a[i] + h;
    const mp_t fp = ref::sliding_window_objective(ref::Bias{}, P, m, t);
    P.a[i] = M.a[i] - h;
    const mp_t fm = ref::sliding_window_objective(ref::Bias{}, P, m, t);
    P.a[i] = M.a[i];
    G.a[i] = (fp - fm) / (mp_t(2) * h);
  }
  return G;
}
// FD threshold factor: rounding ~ u / h with h = 10^{-2d/5}: cond = 10^{2d/5 + 4}
double fd_cond(unsigned d) { return std::pow(10.0, std::ceil(2.0 * d / 5.0) + 4.0); }

struct ContractGaps {
  double gap = 0;                 // max_t ||alpha_t M_{t-1} - eta_t G_fd - M_t|| / max(1, ...)
  double flip = INFINITY;         // the same with the sign of the gradient step flipped (control)
  double single = INFINITY;       // with the single-token gradient grad l(M_{t-1}; k_t, v_t) of the Table 1 write column
  std::size_t worst_t = 0;        // 1-based
};
// states = M_0..M_L of the run (keep_states); every step with eta_t > 0 is checked; the controls at the last such step
// (single-token control only where the window has more than one token).
ContractGaps contract_gaps(const ref::OmegaInputs<mp_t>& m, const std::vector<MM>& states) {
  ContractGaps r;
  const std::size_t L = m.PhiK.rows;
  std::size_t last = 0;
  for (std::size_t t = 1; t <= L; ++t)
    if (m.eta[t - 1] != 0) last = t;
  for (std::size_t t = 1; t <= L; ++t) {
    if (m.eta[t - 1] == 0) continue;
    const mp_t a = m.log_alpha.empty() ? mp_t(1) : ref::exp_log(m.log_alpha[t - 1]);
    const MM G = window_fd_grad(m, states[t - 1], t);
    MM pred = states[t - 1];
    for (std::size_t i = 0; i < pred.a.size(); ++i) pred.a[i] = a * states[t - 1].a[i] - m.eta[t - 1] * G.a[i];
    const double g = matrel(pred, states[t]);
    if (g > r.gap || r.worst_t == 0) {
      r.gap = g;
      r.worst_t = t;
    }
    if (t == last) {
      for (std::size_t i = 0; i < pred.a.size(); ++i) pred.a[i] = a * states[t - 1].a[i] + m.eta[t - 1] * G.a[i];
      r.flip = matrel(pred, states[t]);
      if (ref::omega_window_begin(t - 1, m.c) < t - 1) {
        ref::OmegaInputs<mp_t> one = m;
        one.c = 1;
        const MM G1 = window_fd_grad(one, states[t - 1], t);
        for (std::size_t i = 0; i < pred.a.size(); ++i) pred.a[i] = a * states[t - 1].a[i] - m.eta[t - 1] * G1.a[i];
        r.single = matrel(pred, states[t]);
      }
    }
  }
  return r;
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::dot
