// Paper A001 (test-time regression), §4 Vignette 3, Eqs. (34)-(41): the L2-regularised objective, leaky LMS,
// Gated DeltaNet as a reparameterised leaky LMS and its parameter map, the chunk forms F09 and the
// equivalence-table rows EQ11 and EQ12.
// Spec IDs: A001-L2REG-OBJECTIVE, A001-LEAKY-LMS, A001-GATED-DELTANET-REPARAM, A001-GDN-MAP-INVERTIBLE,
// A001-F09-GDN-CHUNK, A001-EQ11-LEAKY-LMS, A001-EQ12-GDN.
#include "recall/reference/delta_rule.hpp"
#include "recall/reference/regression_rules.hpp"
#include "claim_support.hpp"
#include "online_learner_claims.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>
#include <iterator>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::learners;

// =============================================================================================
// L2-regularised objective, leaky LMS, Gated DeltaNet, F09
// =============================================================================================
ClaimResult a001_l2reg_objective(const CheckConfig& cfg) {
  IdentityCheck c("max relative residual: central-difference gradient of L_t + lambda/2 ||M||_F^2 vs grad L_t + lambda M", cfg.digits);
  int n = 0;
  for_each_inst(cfg, 140, [&](const Inst& in) {
    const u64 sd = sub_seed(cfg.seed, 141, ++n);
    c.add(in.desc, [in, sd](unsigned d) {
      MpDigitsScope sc(d);
      const MpInst m = to_mp(in);
      Gauss g(sd);
      double w = 0;
      for (std::size_t t = 0; t < in.T; ++t) {
        const Mp M = ref::cast<mp_t>(gauss_matrix(in.dv, in.dk, g));
        const mp_t lam(g.uniform());
        const std::function<mp_t(const Mp&)> f = [&](const Mp& X) { return ref::l2reg_term(X, m.K.row(t), m.V.row(t), lam); };
        Mp G = ref::sq_loss_grad(M, m.K.row(t), m.V.row(t));
        for (std::size_t a = 0; a < G.a.size(); ++a) G.a[a] += lam * M.a[a];
        w = std::max(w, rel_res(fd_grad_quadratic(f, M), G));
      }
      return w;
    });
  });
  ClaimResult r = c.result(cfg, sizes_desc(cfg) + ", lambda ~ U(0,1), M ~ N(0,1)");
  // documentation: spectral-norm reading lambda/2 ||M||_2^2 has gradient lambda sigma_1 u_1 v_1^T != lambda M (fp64)
  Gauss g(sub_seed(cfg.seed, 142));
  double mn = 1e300, mx = 0;
  for (int i = 0; i < 20; ++i) {
    Eigen::MatrixXd M(3, 4);
    for (int a = 0; a < 12; ++a) M.data()[a] = g.normal();
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(M, Eigen::ComputeThinU | Eigen::ComputeThinV);
    const Eigen::MatrixXd Gs = svd.singularValues()(0) * svd.matrixU().col(0) * svd.matrixV().col(0).transpose();
    const double rel = (Gs - M).norm() / M.norm();
    mn = std::min(mn, rel);
    mx = std::max(mx, rel);
  }
  r.evidence.extra.emplace_back("spectral-norm reading: ||grad (1/2)||M||_2^2 - M||_F / ||M||_F over 20 Gaussian 3x4 M (fp64)",
                                fmt(mn) + " .. " + fmt(mx) + " (nonzero: Eq. 35's lambda M matches the Frobenius norm only)");
  return r;
}

// leaky LMS instance: beta from the step pattern, lambda ~ U(0,1) with edges lambda = 0 and some beta lambda > 1.
struct LeakyInst {
  Inst in;
  std::vector<double> lambda;
};
LeakyInst make_leaky(const Inst& in, u64 sd, bool allow_over) {
  LeakyInst li{in, std::vector<double>(in.T)};
  Gauss g(sd);
  for (std::size_t t = 0; t < in.T; ++t) {
    const double u = g.uniform();
    li.lambda[t] = u < 0.15 ? 0.0 : u < 0.25 ? 1.0 : g.uniform();
    if (!allow_over && li.in.beta[t] * li.lambda[t] > 1) li.lambda[t] = 1.0 / li.in.beta[t] * g.uniform();
  }
  return li;
}
// the three lines (35)-(37), one SGD step on the per-step term (central difference), ref::gated_delta_rule (T) where 1 - beta lambda in [0,1]
double leaky_residual(const LeakyInst& li, unsigned d, bool* over) {
  MpDigitsScope sc(d);
  const MpInst m = to_mp(li.in);
  const Vp lam = ref::cast<mp_t>(li.lambda);
  auto l35 = run_rule(m.Q, m.M0, [&](const Mp& M, std::size_t t) { return ref::leaky_eq35_step(M, m.K.row(t), m.V.row(t), m.beta[t], lam[t]); });
  auto l36 = run_rule(m.Q, m.M0, [&](const Mp& M, std::size_t t) { return ref::leaky_eq36_step(M, m.K.row(t), m.V.row(t), m.beta[t], lam[t]); });
  auto l37 = run_rule(m.Q, m.M0, [&](const Mp& M, std::size_t t) {
    return ref::error_form_step(M, m.K.row(t), m.V.row(t), m.beta[t], mp_t(mp_t(1) - m.beta[t] * lam[t]));
  });
  auto sgd = run_rule(m.Q, m.M0, [&](const Mp& M, std::size_t t) {
    const std::function<mp_t(const Mp&)> f = [&](const Mp& X) { return ref::l2reg_term(X, m.K.row(t), m.V.row(t), lam[t]); };
    return step_with(M, fd_grad_quadratic(f, M), m.beta[t]);
  });
  double w = std::max({res_seq(l35, l36), res_seq(l36, l37), res_seq(sgd, l37)});
  bool ok_gate = true;
  Vp la(li.in.T);
  for (std::size_t t = 0; t < li.in.T; ++t) {
    const mp_t a = mp_t(1) - m.beta[t] * lam[t];
    if (a < 0 || a > 1) ok_gate = false;
    else la[t] = ref::log_gate(a);
  }
  if (over) *over = !ok_gate;
  if (ok_gate) w = std::max(w, res_seq(ref::gated_delta_rule(m.Q, m.K, m.V, m.beta, la, ref::DecayPlacement::T, &m.M0), l37));
  return w;
}
ClaimResult a001_leaky_lms(const CheckConfig& cfg) {
  IdentityCheck c("max relative residual: lines (35), (36), (37), SGD step on L_t + lambda_t/2||M||_F^2, ref gated_delta_rule(T)", cfg.digits);
  int n = 0, logged = 0;
  for_each_inst(cfg, 150, [&](const Inst& in) {
    for (bool over : {false, true}) {
      const LeakyInst li = make_leaky(in, sub_seed(cfg.seed, 151, ++n), over);
      bool o = false;
      leaky_residual(li, 20, &o);
      if (o) ++logged;
      c.add(in.desc + " lambda~{0,1,U(0,1)}" + (over ? " (beta lambda > 1 allowed)" : ""), [li](unsigned d) { return leaky_residual(li, d, nullptr); });
    }
  });
  ClaimResult r = c.result(cfg, sizes_desc(cfg) + " x lambda in {0, 1, U(0,1)}");
  r.evidence.extra.emplace_back("hazard: instances with a step where 1 - beta lambda is outside [0,1] (logged; only the literal lines and the SGD step are compared there)",
                                std::to_string(logged));
  return r;
}

// A001-GATED-DELTANET-REPARAM: (37) (ref gated_delta_rule T) vs (41) (ref gated_delta_rule G under the map); lines (38)-(41) pairwise.
struct GdnInst {
  Inst in;
  std::vector<double> lambda, alpha_target;  // alpha_target > 0: lambda = (1 - alpha)/beta formed in MP
  std::string desc;
};
// raw beta in [0, 0.999] (the paper's beta in [0,1]), lambda ~ U(0,1); edge 1: exact zeros of beta / lambda;
// edge 2: beta lambda -> 1^-: alpha = 10^-U(5,20), beta = 1 - alpha u, lambda = (1 - alpha)/beta <= 1.
GdnInst make_gdn(const Inst& in, int edge, u64 sd) {
  GdnInst gi{in, std::vector<double>(in.T), std::vector<double>(in.T, -1.0), in.desc};
  Gauss g(sd);
  for (std::size_t t = 0; t < in.T; ++t) {
    double& b = gi.in.beta[t];
    b = 0.999 * g.uniform();
    if (edge == 1 && g.uniform() < 0.3) b = 0;
    double& l = gi.lambda[t];
    l = g.uniform();
    if (edge == 1 && g.uniform() < 0.3) l = 0;
    if (edge == 2) {
      const double a = std::pow(10.0, -5.0 - 15.0 * g.uniform());
      gi.alpha_target[t] = a;
      b = 1.0 - a * g.uniform();
    }
  }
  gi.desc += edge == 0 ? " raw beta~U(0,0.999) lambda~U(0,1)" : edge == 1 ? " edges beta=0 / lambda=0" : " beta lambda -> 1^- (alpha = 10^-U(5,20))";
  return gi;
}
struct GdnRes {
  double rec = 0, lines = 0;
};
GdnRes gdn_residuals(const GdnInst& gi, unsigned d) {
  MpDigitsScope sc(d);
  const MpInst m = to_mp(gi.in);
  const std::size_t T = gi.in.T, dv = gi.in.dv;
  Vp lam(T), alpha(T), eta(T), la(T);
  Mp Vp_(T, dv);
  for (std::size_t t = 0; t < T; ++t) {
    lam[t] = gi.alpha_target[t] > 0 ? mp_t((mp_t(1) - mp_t(gi.alpha_target[t])) / m.beta[t]) : mp_t(gi.lambda[t]);
    const auto p = ref::gdn_forward_map(m.beta[t], lam[t]);
    alpha[t] = p.alpha;
    eta[t] = p.eta;
    la[t] = ref::log_gate(alpha[t]);
    for (std::size_t c = 0; c < dv; ++c) Vp_(t, c) = alpha[t] * m.V(t, c);
  }
  GdnRes r;
  const auto leaky = ref::gated_delta_rule(m.Q, m.K, m.V, m.beta, la, ref::DecayPlacement::T, &m.M0);
  const auto gdn = ref::gated_delta_rule(m.Q, m.K, Vp_, eta, la, ref::DecayPlacement::G, &m.M0);
  r.rec = res_seq(leaky, gdn);
  Mp M = m.M0;
  for (std::size_t t = 0; t < T; ++t) {
    const mp_t* k = m.K.row(t);
    const mp_t* v = m.V.row(t);
    const Mp l38 = ref::error_form_step(M, k, v, m.beta[t], alpha[t]);
    const Mp l39 = ref::gdn_eq39_step(M, k, v, alpha[t], m.beta[t]);
    const Mp l40 = ref::gdn_eq40_step(M, k, v, alpha[t], m.beta[t]);
    const Mp l41 = ref::gdn_eq41_step(M, k, Vp_.row(t), alpha[t], eta[t]);
    r.lines = std::max({r.lines, rel_res(l38, l39), rel_res(l39, l40), rel_res(l40, l41)});
    M = l38;
  }
  return r;
}
ClaimResult a001_gated_deltanet_reparam(const CheckConfig& cfg) {
  IdentityCheck c1("max relative residual: (37) recurrence vs (41) recurrence under the map, outputs and state", cfg.digits),
      c2("max relative residual between consecutive lines (38)-(41), per step", cfg.digits);
  int n = 0;
  for_each_inst(cfg, 160, [&](const Inst& in) {
    for (int edge = 0; edge < 3; ++edge) {
      GdnInst gi = make_gdn(in, edge, sub_seed(cfg.seed, 161, ++n));
      c1.add(gi.desc, [gi](unsigned d) { return gdn_residuals(gi, d).rec; });
      c2.add(gi.desc, [gi](unsigned d) { return gdn_residuals(gi, d).lines; });
      // L2-normalised keys
      GdnInst gl = gi;
      for (std::size_t t = 0; t < gl.in.T; ++t) {
        const double nk = dnorm(gl.in.K.row(t), gl.in.dk);
        for (std::size_t j = 0; j < gl.in.dk; ++j) gl.in.K(t, j) /= nk;
      }
      gl.desc += " L2-normalised keys";
      c1.add(gl.desc, [gl](unsigned d) { return gdn_residuals(gl, d).rec; });
      c2.add(gl.desc, [gl](unsigned d) { return gdn_residuals(gl, d).lines; });
    }
  });
  std::vector<Part> parts = {{"(37) = (41) under the map", c1.result(cfg, sizes_desc(cfg) + " x {lambda~U(0,1), edges beta=0/lambda=0, beta lambda -> 1^-}, raw and L2 keys")},
                             {"lines (38) = (39) = (40) = (41)", c2.result(cfg, "")}};
  return combine(cfg, "max relative residual (37) vs (41) under (alpha, eta, v') and consecutive lines", parts,
                 "leaky LMS (37) and Gated DeltaNet (41) agree under the map wherever it is defined (beta lambda < 1), including alpha down to 1e-20");
}

// A001-GDN-MAP-INVERTIBLE: round trips on D1 and D2, images, undefined points.
ClaimResult a001_gdn_map_invertible(const CheckConfig& cfg) {
  MpDigitsScope sc(cfg.digits);
  IdentityCheck rt("max relative round-trip residual inverse(forward(beta, lambda)) and forward(inverse(alpha, eta))", cfg.digits);
  const double betas[] = {1e-12, 0.1, 0.5, 0.9, 1.0}, lambdas[] = {0.0, 0.3, 0.7, 1.0 - 1e-12, 1.0};
  const double alphas[] = {1e-12, 0.1, 0.5, 1.0}, etas[] = {1e-12, 0.3, 1.0};
  std::vector<std::string> undefined;
  double eta_min = 1e300, eta_max = 0, lam_min = 1e300, lam_max = 0, beta_min = 1e300, beta_max = 0, alpha_min = 1e300, alpha_max = 0;
  auto rr = [](const mp_t& a, const mp_t& b) {
    mp_t den = boost::multiprecision::abs(a);
    if (den < 1) den = 1;
    return to_d(mp_t(boost::multiprecision::abs(mp_t(a - b)) / den));
  };
  for (double b : betas)
    for (double l : lambdas) {
      if (mp_t(b) * mp_t(l) == 1) {  // exactly in D1, map undefined
        undefined.push_back("forward at (beta, lambda) = (" + fmt(b) + ", " + fmt(l) + "): alpha = 0, eta = beta/0");
        continue;
      }
      const auto f = ref::gdn_forward_map(mp_t(b), mp_t(l));
      eta_min = std::min(eta_min, to_d(f.eta));
      eta_max = std::max(eta_max, to_d(f.eta));
      alpha_min = std::min(alpha_min, to_d(f.alpha));
      alpha_max = std::max(alpha_max, to_d(f.alpha));
      rt.add("D1 beta=" + fmt(b, 17) + " lambda=" + fmt(l, 17), [b, l, rr](unsigned d) {
        MpDigitsScope s2(d + 15);  // P-scaled: the map's condition number is <= 1/alpha <= 1e12 on the grid
        const auto f2 = ref::gdn_forward_map(mp_t(b), mp_t(l));
        const auto i2 = ref::gdn_inverse_map(f2.alpha, f2.eta);
        // v round trip: v' = alpha v, v = v'/alpha (v = 1)
        return std::max({rr(mp_t(b), i2.beta), rr(mp_t(l), i2.lambda), rr(mp_t(1), mp_t(f2.alpha * mp_t(1) / f2.alpha))});
      });
    }
  for (double a : alphas)
    for (double e : etas) {
      const auto iv = ref::gdn_inverse_map(mp_t(a), mp_t(e));
      lam_min = std::min(lam_min, to_d(iv.lambda));
      lam_max = std::max(lam_max, to_d(iv.lambda));
      beta_min = std::min(beta_min, to_d(iv.beta));
      beta_max = std::max(beta_max, to_d(iv.beta));
      rt.add("D2 alpha=" + fmt(a, 17) + " eta=" + fmt(e, 17), [a, e, rr](unsigned d) {
        MpDigitsScope s2(d + 15);  // P-scaled: 1 - beta lambda cancels to alpha (condition 1/alpha <= 1e12)
        const auto i2 = ref::gdn_inverse_map(mp_t(a), mp_t(e));
        const auto f2 = ref::gdn_forward_map(i2.beta, i2.lambda);
        return std::max(rr(mp_t(a), f2.alpha), rr(mp_t(e), f2.eta));
      });
    }
  // At beta lambda = 1 the GDN form cannot represent the leaky step: (41) with alpha = 0 and v' = alpha v = 0 gives
  // M_t = 0 for every eta, while (37) gives beta (v - M k) k^T. Computed residual on a Gaussian instance, eta in {1, 1e10}.
  Gauss g(sub_seed(cfg.seed, 171));
  const Mp M = ref::cast<mp_t>(gauss_matrix(2, 3, g)), k = ref::cast<mp_t>(gauss_matrix(1, 3, g)), v = ref::cast<mp_t>(gauss_matrix(1, 2, g));
  const Mp leaky = ref::error_form_step(M, k.row(0), v.row(0), mp_t(1), mp_t(0));
  const Vp zero(2, mp_t(0));
  double gap = 1e300;
  for (double e : {1.0, 1e10}) gap = std::min(gap, rel_res(ref::gdn_eq41_step(M, k.row(0), zero.data(), mp_t(0), mp_t(e)), leaky));
  ClaimResult rtr = rt.result(cfg, "D1 = beta in {1e-12,0.1,0.5,0.9,1} x lambda in {0,0.3,0.7,1-1e-12,1}; D2 = alpha in {1e-12,0.1,0.5,1} x eta in {1e-12,0.3,1}");
  std::vector<Part> parts = {{"round trips where defined", rtr}};
  ClaimResult def;
  const bool defined_everywhere = undefined.empty();
  def = predicate_result(cfg, "min relative gap (41) vs (37) at beta = lambda = 1 over eta in {1, 1e10}", defined_everywhere ? 0 : gap, identity_threshold(cfg.digits),
                         defined_everywhere, defined_everywhere ? "none" : undefined.front() + "; there (41) gives M_t = 0 for every eta while (37) gives beta v k^T - beta M k k^T",
                         static_cast<int>(std::size(betas) * std::size(lambdas)), "", "the forward map is defined on all of D1",
                         "the map is undefined at beta lambda = 1, a point of the paper's domain beta in (0,1], lambda in [0,1]: no (alpha, eta, v') reproduces that leaky-LMS step",
                         cfg.digits);
  parts.push_back({"map defined on the paper's domain D1", def, true, false});
  ClaimResult r = combine(cfg, "max relative round-trip residual", parts, "the map and its inverse are mutually inverse and defined on all of D1");
  r.evidence.extra.emplace_back("image of D1\\{beta lambda = 1} under the forward map (grid)", "alpha in [" + fmt(alpha_min) + ", " + fmt(alpha_max) + "], eta in [" +
                                                                                            fmt(eta_min) + ", " + fmt(eta_max) + "] (eta unbounded as beta lambda -> 1; not inside D2's eta <= 1)");
  r.evidence.extra.emplace_back("image of D2 under the inverse (grid)", "lambda in [" + fmt(lam_min) + ", " + fmt(lam_max) + "], beta in [" + fmt(beta_min) + ", " + fmt(beta_max) +
                                                                             "] (lambda leaves [0,1] when alpha eta < 1 - alpha)");
  r.evidence.extra.emplace_back("undefined points", "forward: beta lambda = 1 (alpha = 0); inverse: alpha = 0 or eta = 0 (beta = 0 maps to eta = 0: lambda not recoverable)");
  return r;
}

// A001-F09-GDN-CHUNK: GDN and leaky parameterisations of the chunk form vs the recurrences; the two Delta agree.
double f09_residual(const Inst& in, int gate_kind, u64 sd, unsigned d) {
  MpDigitsScope sc(d);
  const MpInst m = to_mp(in);
  Gauss g(sd);
  const std::size_t T = in.T;
  Vp lam(T), la(T), alpha(T), eta(T);
  Mp Vq(T, in.dv);
  bool gdn_ok = true;
  for (std::size_t t = 0; t < T; ++t) {
    double a;  // target alpha
    switch (gate_kind) {
      case 0: a = 0.5 + 0.5 * g.uniform(); break;
      case 1: a = 1.0; break;
      case 2: a = g.uniform() < 0.5 ? 1e-30 : g.uniform(); break;  // alpha -> 0^+
      default: a = g.uniform() < 0.3 ? 0.0 : g.uniform();            // exact zero gates (leaky form only)
    }
    // lambda = (1 - alpha)/beta so that 1 - beta lambda = alpha; beta = 0 -> alpha = 1
    alpha[t] = m.beta[t] == 0 ? mp_t(1) : mp_t(a);
    la[t] = ref::log_gate(alpha[t]);
    if (alpha[t] == 0) gdn_ok = false;
    eta[t] = alpha[t] == 0 ? mp_t(0) : mp_t(m.beta[t] / alpha[t]);
    for (std::size_t c = 0; c < in.dv; ++c) Vq(t, c) = alpha[t] * m.V(t, c);
  }
  double w = 0;
  const auto recT = ref::gated_delta_rule(m.Q, m.K, m.V, m.beta, la, ref::DecayPlacement::T, &m.M0);
  for (std::size_t C : {std::size_t(1), std::size_t(2), std::size_t(3), T}) {
    const auto chL = ref::delta_chunked(m.Q, m.K, m.V, m.beta, &la, ref::ChunkParam::leaky, C, &m.M0);
    w = std::max({w, rel_res(chL.O, recT.O), rel_res(chL.state, recT.state)});
    if (gdn_ok) {
      const auto recG = ref::gated_delta_rule(m.Q, m.K, Vq, eta, la, ref::DecayPlacement::G, &m.M0);
      const auto chG = ref::delta_chunked(m.Q, m.K, Vq, eta, &la, ref::ChunkParam::gdn, C, &m.M0);
      w = std::max({w, rel_res(chG.O, recG.O), rel_res(chG.state, recG.state), rel_res(chG.Delta, chL.Delta)});
    }
  }
  return w;
}
ClaimResult a001_f09_gdn_chunk(const CheckConfig& cfg) {
  IdentityCheck c("max relative residual: chunk forms (GDN and leaky parameterisations, C = 1, 2, 3, T) vs recurrences (41)/(37); Delta_GDN vs Delta_leaky", cfg.digits);
  static const char* gk[4] = {"alpha~U(0.5,1)", "alpha=1", "alpha in {1e-30, U(0,1)}", "exact zero gates (leaky form)"};
  int n = 0;
  for_each_inst(cfg, 180, [&](const Inst& in) {
    for (int k = 0; k < 4; ++k) {
      const u64 sd = sub_seed(cfg.seed, 181, ++n);
      c.add(in.desc + " " + gk[k], [in, k, sd](unsigned d) { return f09_residual(in, k, sd, d); });
    }
  });
  return c.result(cfg, sizes_desc(cfg) + " x gates {U(0.5,1), 1, 1e-30 mixed, exact zeros}");
}

// =============================================================================================
// equivalence-table rows EQ11, EQ12: the row's value is its worst identity residual (statistic names it);
// every component's verdict, residual and witness is listed in Evidence.extra.
// =============================================================================================
ClaimResult a001_eq11_leaky_lms(const CheckConfig& cfg) {
  std::vector<Part> parts = {{"A001-LEAKY-LMS ((35) = (36) = (37) = SGD step on term t of (34))", a001_leaky_lms(cfg)},
                             {"A001-L2REG-OBJECTIVE (gradient of the per-step term)", a001_l2reg_objective(cfg)}};
  return combine(cfg, "EQ11 residual: max relative residual of (37) vs one SGD step on the t-th term of (34)", parts,
                 "(37) = (35) = (36) = one SGD step on L_t + lambda_t/2 ||M||_F^2");
}
ClaimResult a001_eq12_gdn(const CheckConfig& cfg) {
  std::vector<Part> parts = {{"A001-GATED-DELTANET-REPARAM ((38) = (39) = (40) = (41))", a001_gated_deltanet_reparam(cfg)},
                             {"A001-F09-GDN-CHUNK (chunk forms)", a001_f09_gdn_chunk(cfg)},
                             {"A001-GDN-MAP-INVERTIBLE", a001_gdn_map_invertible(cfg), true, false}};
  ClaimResult r = combine(cfg,
                          "EQ12 residual: max relative residual of (41) vs leaky LMS (37) under (alpha, eta, v'); at beta lambda = 1, where the map is "
                          "undefined, the smallest gap over eta",
                          parts, "(41) = leaky LMS under the map, which is invertible on the paper's domain");
  double defined = 0;
  for (int i = 0; i < 2; ++i) defined = std::max(defined, parts[i].r.evidence.value);
  r.evidence.extra.emplace_back("residual of (41) vs (37) where the map is defined (beta lambda < 1; REPARAM and F09 worst)", fmt(defined));
  return r;
}

}  // namespace

void register_a001_leaky_lms_gdn(Ledger& l) {
  const auto add = claim_support::claim_adder(l);
  using namespace check_class;
  add("A001-L2REG-OBJECTIVE", "Gradient of the L2-regularised per-step term (Frobenius reading)", identity, false, a001_l2reg_objective);
  add("A001-LEAKY-LMS", "Leaky LMS: lines (35)-(37) = SGD on the regularised term", identity, false, a001_leaky_lms);
  add("A001-GATED-DELTANET-REPARAM", "Gated DeltaNet (41) = leaky LMS (37) under the map", identity, false, a001_gated_deltanet_reparam);
  add("A001-GDN-MAP-INVERTIBLE", "The map (alpha, eta, v') is invertible", identity, false, a001_gdn_map_invertible);
  add("A001-F09-GDN-CHUNK", "Gated DeltaNet / leaky LMS chunk forms = recurrences [derived]", identity, true, a001_f09_gdn_chunk);
  add("A001-EQ11-LEAKY-LMS", "Row: leaky LMS", identity, false, a001_eq11_leaky_lms);
  add("A001-EQ12-GDN", "Row: Gated DeltaNet", identity, false, a001_eq12_gdn);
}

}  // namespace recall
