// Paper A002 (Atlas), §4.3 Eqs. 27-31: the Deep Omega Transformer (Dot) with a linear memory on the exponential feature
// map phi*, its exact kernel (coefficient) form, the triangular-solve form of the online case c = 1, what Dot stores
// for a new token, and the statement that Dot generalizes Transformers with the Delta rule. References:
// reference/include/recall/reference/dot.hpp (built on omega.hpp, deep_transformer.hpp and the u-solve of deltaformer.hpp).
// Truncated phi*_P is compared with the exact exp kernel at P2 (cfg.digits + 50) with the order P from the Lagrange
// remainder times an a-priori bound on the amplification of kernel errors by the coefficient recursion
// (a002_dot_claims.hpp dot_order: the bound is <= 10^-digits, ten orders below the identity threshold); a too-low order
// (P/2) must be detected. Identities between truncated forms use the same kappa_P on both sides at P1 (cfg.digits).
// Instances: claim_support::dot::make_dinst seeded by mix(tag_seed(cfg.seed, tag), n), smallest first; token indices in
// witnesses are 1-based. Deep (MLP) memories are A002-MEMORY-MLP (another file).
// Spec IDs: A002-DOT, A002-DOT-LINEAR, A002-DOT-C1, A002-DOT-KERNEL, A002-DOT-C1-TRISOLVE, A002-DOT-VALUE-CLAIM,
// A002-DOT-GEN.
#include "recall/proofs/claims_a002.hpp"
#include "recall/proofs/ledger.hpp"
#include "recall/reference/deep_transformer.hpp"
#include "recall/reference/dot.hpp"
#include "recall/reference/linear_attention.hpp"
#include "a002_deeptf_claims.hpp"
#include "a002_dot_claims.hpp"
#include "claim_support.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::dot;
using deeptf::Controls;
using deeptf::inst_seed;
using deeptf::kFirst;
using deeptf::seed_note;
using MIn = ref::DotInputs<mp_t>;

unsigned p2(const CheckConfig& cfg) { return cfg.digits + 50; }

struct DSize {
  std::size_t L, d, dv;
};
// identity sweep: smallest first; c cycles {1, 2, 3, 8, L}, Gamma G1-G3, |q| = |k| in {1, 1.5}
std::vector<DInst> sweep(const CheckConfig& cfg, const std::string& tag, bool c1only, std::size_t dmax = 3) {
  std::vector<DSize> s = {{1, 2, 1}, {2, 1, 2}, {3, 2, 2}, {8, 2, 2}, {7, 1, 3}};
  if (!cfg.quick) {
    s.push_back({5, 3, 2});
    s.push_back({12, 1, 2});
    s.push_back({16, 2, 2});
  }
  const GammaGen gens[] = {GammaGen::g1, GammaGen::g2, GammaGen::g3};
  std::vector<DInst> out;
  int n = 0;
  const int reps = cfg.quick ? 1 : 3;  // the full campaign draws three instances per size and scale
  for (const DSize& z : s) {
    if (z.d > dmax) continue;
    for (int rep = 0; rep < reps; ++rep)
    for (double sc : {1.0, 1.5}) {
      const std::size_t cs[] = {1, 2, 3, 8, z.L};
      const std::size_t c = c1only ? 1 : cs[static_cast<std::size_t>(n) % 5];
      out.push_back(make_dinst(inst_seed(cfg, tag, n), z.L, z.d, z.dv, c, sc, gens[static_cast<std::size_t>(n) % 3]));
      ++n;
    }
  }
  return out;
}
std::string sweep_note(const CheckConfig& cfg, const std::string& tag, bool c1only) {
  return std::string("(L, d, dv) in {(1,2,1), (2,1,2), (3,2,2), (8,2,2), (7,1,3)") + (cfg.quick ? "" : ", (5,3,2), (12,1,2), (16,2,2)") + "} x |q| = |k| {1, 1.5}" + (cfg.quick ? "" : " x 3 draws") + ", " +
         (c1only ? "c = 1" : "c cycling {1,2,3,8,L}") + ", Gamma {G1,G2,G3}, eta default; " + seed_note(cfg, tag);
}

// M = sum_j a_j phi_j^T from coefficients A (L x d_v) and feature rows PhiK (L x D)
MM state_from_coef(const MM& A, const MM& PhiK) {
  MM M(A.cols, PhiK.cols);
  for (std::size_t j = 0; j < A.rows; ++j) ref::add_outer(M, mp_t(1), A.row(j), PhiK.row(j));
  return M;
}

// Exact-exp kernel form vs the explicit truncated memory (omega_rule on phi*_P), order from the bound (or `override`).
double exact_vs_trunc(const DInst& I, unsigned digits, int order_override, int* used) {
  MpDigitsScope sc(digits);
  const MIn in = dot_in<mp_t>(I);
  const int P = order_override >= 0 ? order_override : dot_order(I, digits);
  if (used) *used = P;
  const MM yk = ref::dot_kernel(in, -1).Y;
  const MM yt = ref::dot_truncated(in, P).Y;
  return rowrel(yk, yt);
}
// identity part: exact kernel vs truncated memory at P2 with the too-low-order control
ClaimResult exact_part(const CheckConfig& cfg, const std::vector<DInst>& insts, const std::string& sizes, Controls& low, std::string* note) {
  const unsigned dg = p2(cfg);
  IdentityCheck ic("max row relative residual: kernel form with exp(x^T y) vs explicit memory on phi*_P (omega_rule, alpha = 1), P from the bound", dg);
  int pmin = 1 << 30, pmax = 0;
  for (const DInst& I : insts) {
    int P = 0;
    ic.add(I.desc, [&](unsigned d) { return exact_vs_trunc(I, d, -1, d == dg ? &P : nullptr); });
    pmin = std::min(pmin, P);
    pmax = std::max(pmax, P);
    if (P >= 4 && I.L >= 2) low.add(exact_vs_trunc(I, dg, P / 2, nullptr) > identity_threshold(dg), I.desc + " order P/2 = " + std::to_string(P / 2));
  }
  if (note)
    *note = "P from X^{P+1} e^X/(P+1)! times the recursion's amplification bound <= 10^-" + std::to_string(dg) + " (threshold 10^-" + std::to_string(dg - 10) +
            "): P in [" + std::to_string(pmin) + ", " + std::to_string(pmax) + "]";
  return ic.result(cfg, sizes);
}

// ---------------------------------------------------------------------------------------------------------------
// A002-DOT-KERNEL
// ---------------------------------------------------------------------------------------------------------------

// Wrong form (control): r_i evaluated with the coefficients already updated earlier in the same step (Gauss-Seidel order).
MM kernel_gauss_seidel(const MIn& in, int P) {
  const ref::DotKernel<mp_t> kap(in.K.cols, P);
  const std::size_t L = in.K.rows, dv = in.V.cols;
  MM A(L, dv), Y(L, dv);
  for (std::size_t t = 0; t < L; ++t) {
    for (std::size_t i = ref::omega_window_begin(t, in.c); i <= t; ++i) {
      MV r(dv);
      for (std::size_t j = 0; j < t; ++j) {
        const mp_t k = kap(in.K.row(j), in.K.row(i));
        for (std::size_t e = 0; e < dv; ++e) ref::muladd(r[e], k, A(j, e));
      }
      const mp_t b = mp_t(2) * in.eta[t] * in.Gamma(t, i);
      for (std::size_t e = 0; e < dv; ++e) A(i, e) += b * (in.V(i, e) - r[e]);
    }
    for (std::size_t j = 0; j <= t; ++j) {
      const mp_t w = kap(in.Q.row(t), in.K.row(j));
      for (std::size_t e = 0; e < dv; ++e) ref::muladd(Y(t, e), w, A(j, e));
    }
  }
  return Y;
}

// A002-DOT-KERNEL: kernel form (kappa_P) = explicit truncated memory; exact exp kernel = truncated memory at the bound's order (P2).
ClaimResult a002_dot_kernel(const CheckConfig& cfg) {
  const std::string tag = "A002-DOT-KERNEL";
  const unsigned dg = cfg.digits;
  Checker same("max relative residual over outputs and final state: kernel form with kappa_P vs explicit phi*_P memory (omega_rule, alpha = 1), same P",
               dg);
  Controls ctl;
  const std::vector<DInst> insts = sweep(cfg, tag, false);
  for (const DInst& I : insts) {
    const int P = I.d >= 3 ? 6 : 10;
    double gs = 0;
    same.add(I.desc + " P=" + std::to_string(P), [&](unsigned d, std::string& where) {
      MpDigitsScope sc(d);
      const MIn in = dot_in<mp_t>(I);
      const auto kr = ref::dot_kernel(in, P);
      const ref::OmegaInputs<mp_t> om = ref::dot_omega_inputs(in, P);
      const auto tr = ref::omega_rule(om);
      Worst w;
      w.rows(kr.Y, tr.Y, "Y");
      w.upd(matrel(state_from_coef(kr.A, om.PhiK), tr.state), "M_L = sum_j a_j phi*_P(k_j)^T");
      if (d == dg) gs = rowrel(kernel_gauss_seidel(in, P), tr.Y);
      where = w.where;
      return w.r;
    });
    if (I.c > 1 && I.L > 1) ctl.add(gs > identity_threshold(dg), I.desc + " Gauss-Seidel r_i");
  }
  Parts parts;
  parts.push_back({"kappa_P kernel form = explicit truncated memory", same.result(cfg, sweep_note(cfg, tag, false) + "; P = 10 (d <= 2), 6 (d = 3)")});
  Controls low;
  std::string note;
  std::vector<DInst> ex;
  for (const DInst& I : insts)
    if (I.d <= 2 && (!cfg.quick || I.L <= 8)) ex.push_back(I);
  parts.push_back({"exact exp kernel = truncated memory at the bound's order (P2)", exact_part(cfg, ex, sweep_note(cfg, tag, false) + " (d <= 2)", low, &note)});
  parts.push_back({"controls", ctl.result(cfg, "r_i with coefficients updated earlier in the step (Gauss-Seidel), c > 1")});
  parts.push_back({"too-low order detected", low.result(cfg, "truncated memory at order P/2")});
  ClaimResult r = combine(parts, kFirst);
  r.evidence.extra.emplace_back("truncation order", note);
  // truncation effect vs P on the spec's instance (d = 2, d_v = 2, L = 8, c = 3)
  {
    const DInst I = make_dinst(inst_seed(cfg, tag + "/vsP", 0), 8, 2, 2, 3, 1.0, GammaGen::g1);
    ClaimFigure fig;
    fig.id = "truncation_vs_P";
    fig.title = "Dot kernel form: exact exp kernel vs explicit truncated phi*_P memory";
    fig.x_label = "P";
    fig.y_label = "max row relative difference";
    fig.y_scale = "log";
    FigureSeries ser;
    ser.name = I.desc;
    ser.marker = "o";
    std::string tab;
    for (int P = 0; P <= (cfg.quick ? 24 : 40); P += 4) {
      const double v = exact_vs_trunc(I, dg, P, nullptr);
      ser.x.push_back(P);
      ser.y.push_back(std::max(v, 1e-300));
      tab += (tab.empty() ? "" : ", ") + std::string("P=") + std::to_string(P) + ": " + fmt(v);
    }
    fig.series.push_back(ser);
    r.evidence.figures.push_back(fig);
    r.evidence.extra.emplace_back("truncation effect vs P (d=2, dv=2, L=8, c=3, " + std::to_string(dg) + " digits)", tab);
  }
  return r;
}

// ---------------------------------------------------------------------------------------------------------------
// A002-DOT-C1-TRISOLVE
// ---------------------------------------------------------------------------------------------------------------
// A002-DOT-C1-TRISOLVE: triangular solve = kernel form (c = 1) and = explicit truncated memory (kappa_P).
ClaimResult a002_dot_c1_trisolve(const CheckConfig& cfg) {
  const std::string tag = "A002-DOT-C1-TRISOLVE";
  const unsigned dg = cfg.digits;
  Checker kern("max relative residual over outputs and coefficients: triangular solve (exp kernel) vs kernel form c = 1", dg);
  Checker expl("max row relative residual: triangular solve with kappa_P vs explicit phi*_P memory (c = 1, P = 10)", dg);
  Controls ctl;
  std::vector<DInst> insts = sweep(cfg, tag, true);
  // larger and unstable step sizes (triangular growth): eta x 10, reported in the same check
  for (int n = 0; n < (cfg.quick ? 2 : 4); ++n)
    insts.push_back(make_dinst(inst_seed(cfg, tag + "/big-eta", n), cfg.quick ? 8 : 32, 2, 2, 1, 1.0 + 0.5 * n, GammaGen::g1, 10.0));
  double growth = 0;
  int unstable_steps = 0;
  for (const DInst& I : insts) {
    double wrong = 0;
    int us = 0;
    dot_stability(I, &us);
    unstable_steps += us;
    kern.add(I.desc, [&](unsigned d, std::string& where) {
      MpDigitsScope sc(d);
      const MIn in = dot_in<mp_t>(I);
      const auto tri = ref::dot_c1_trisolve(in);
      const auto kr = ref::dot_kernel(in);
      Worst w;
      w.rows(tri.Y, kr.Y, "Y");
      w.rows(tri.A, kr.A, "A");
      if (d == dg) {
        MIn half = in;
        for (mp_t& e : half.eta) e /= 2;  // beta_t = eta_t gamma_t (the 1/2-l2 reading) on the same instance
        wrong = rowrel(ref::dot_c1_trisolve(half).Y, kr.Y);
        mp_t amax(0), vmax(0);
        for (const mp_t& x : tri.A.a) amax = std::max(amax, mp_t(abs(x)));
        for (const mp_t& x : in.V.a) vmax = std::max(vmax, mp_t(abs(x)));
        growth = std::max(growth, to_d(mp_t(amax / vmax)));
      }
      where = w.where;
      return w.r;
    });
    ctl.add(wrong > identity_threshold(dg), I.desc + " beta_t = eta_t gamma_t");
    if (I.d <= 2 && I.L <= 16)
      expl.add(I.desc, [&](unsigned d, std::string& where) {
        MpDigitsScope sc(d);
        const MIn in = dot_in<mp_t>(I);
        Worst w;
        w.rows(ref::dot_c1_trisolve(in, 10).Y, ref::dot_truncated(in, 10).Y, "Y");
        where = w.where;
        return w.r;
      });
  }
  Parts parts;
  const std::string sizes = sweep_note(cfg, tag, true) + "; plus " + std::string(cfg.quick ? "2" : "4") + " instances L=" + (cfg.quick ? "8" : "32") +
                            " with eta x 10 (tag " + tag + "/big-eta)";
  parts.push_back({"trisolve = kernel form (c = 1)", kern.result(cfg, sizes)});
  parts.push_back({"trisolve (kappa_P) = explicit truncated memory", expl.result(cfg, sizes + " (d <= 2, L <= 16)")});
  parts.push_back({"controls", ctl.result(cfg, "beta_t = eta_t gamma_t (factor 2 of the gradient dropped)")});
  ClaimResult r = combine(parts, kFirst);
  r.evidence.extra.emplace_back("triangular growth", "max |a_t| / max |v| = " + fmt(growth) + "; " + std::to_string(unstable_steps) +
                                                         " steps with 2 eta_t gamma e^{||k_t||^2} > 2 (unstable kernel delta step), all in the eta x 10 family");
  r.evidence.extra.emplace_back("shared computation", "forward substitution of A000-DELTAFORMER-U (deltaformer_u_triangular, README §3 group 11) with alpha = beta = 2 eta gamma");
  return r;
}

// ---------------------------------------------------------------------------------------------------------------
// A002-DOT / A002-DOT-LINEAR / A002-DOT-C1
// ---------------------------------------------------------------------------------------------------------------

// Update contract of a Dot run on phi*_P features (the contract does not depend on the order; P = 4), window form
// (dot_linear_window, the G_t form of Eq. 28) or rank-1 form (dot_truncated): M_t = M_{t-1} - eta_t grad F_t(M_{t-1}).
ClaimResult contract_part(const CheckConfig& cfg, const std::vector<DInst>& insts, const std::string& sizes, bool window_form, Controls& ctl) {
  const unsigned dg = cfg.digits;
  Checker ck(std::string("max relative residual over t: ") + (window_form ? "Eq. 28 window-form step" : "Dot step (Eq. 27)") +
                 " on phi*_4 vs M_{t-1} - eta_t (central-difference gradient of the window objective at M_{t-1})",
             dg, fd_cond(dg));
  for (const DInst& I : insts) {
    if (I.d > 2 || I.L > 12) continue;
    ContractGaps gaps;
    ck.add(I.desc, [&](unsigned d, std::string& where) {
      MpDigitsScope sc(d);
      const MIn in = dot_in<mp_t>(I);
      const ref::OmegaInputs<mp_t> om = ref::dot_omega_inputs(in, 4);
      const auto run = window_form ? ref::omeganet_linear(om, false, true) : ref::omega_rule(om, ref::Bias{}, true);
      const ContractGaps g = contract_gaps(om, run.states);
      if (d == dg) gaps = g;
      where = "t=" + std::to_string(g.worst_t);
      return g.gap;
    });
    const double thr = identity_threshold(dg, fd_cond(dg));
    ctl.add(gaps.flip > thr, I.desc + " sign-flipped step");
    if (I.c > 1 && I.L > 1) ctl.add(gaps.single > thr, I.desc + " single-token gradient");
  }
  return ck.result(cfg, sizes + " (d <= 2, L <= 12)");
}

// Eq. 28/30 window form (kappa_P) vs kernel form vs rank-1 form, and the read-out formula of Eq. 29/31 (to implement):
// y_t = M_{t-1} phi(q_t) - 2 eta_t sum_i gamma_i (M_{t-1} phi_i - v_i) kappa(k_i, q_t), with the printed value sign as control.
ClaimResult linear_forms_part(const CheckConfig& cfg, const std::vector<DInst>& insts, const std::string& sizes, Controls& ctl) {
  const unsigned dg = cfg.digits;
  Checker ck("max relative residual: Eq. 28 G_t form on phi*_P (P = 6) vs kernel form kappa_6 vs rank-1 Omega step, and the read-out formula y_t = "
             "M_{t-1} phi(q_t) - 2 eta_t sum_i gamma_i (M_{t-1} phi_i - v_i) kappa(k_i, q_t)",
             dg);
  for (const DInst& I : insts) {
    if (I.d > 2 || I.L > 12) continue;
    double printed = 0;
    ck.add(I.desc, [&](unsigned d, std::string& where) {
      MpDigitsScope sc(d);
      const MIn in = dot_in<mp_t>(I);
      const int P = 6;
      const ref::OmegaInputs<mp_t> om = ref::dot_omega_inputs(in, P);
      const auto win = ref::omeganet_linear(om, false, true);
      const auto kr = ref::dot_kernel(in, P);
      Worst w;
      w.rows(win.Y, kr.Y, "window vs kernel Y");
      w.rows(win.Y, ref::omega_rule(om).Y, "window vs rank-1 Y");
      w.upd(matrel(win.state, state_from_coef(kr.A, om.PhiK)), "window state vs sum_j a_j phi_j^T");
      // read-out formula from M_{t-1}; control: the printed value sign (-sum gamma v_i kappa, no 2 eta on the value term)
      const ref::DotKernel<mp_t> kap(I.d, P);
      MM yf(I.L, I.dv), yp(I.L, I.dv);
      for (std::size_t t = 0; t < I.L; ++t) {
        const MM& Mp = win.states[t];
        MV base(I.dv), pi(I.dv);
        ref::matvec_into(base.data(), Mp, om.PhiQ.row(t));
        for (std::size_t e = 0; e < I.dv; ++e) yf(t, e) = yp(t, e) = base[e];
        for (std::size_t i = ref::omega_window_begin(t, I.c); i <= t; ++i) {
          ref::matvec_into(pi.data(), Mp, om.PhiK.row(i));
          const mp_t kq = kap(in.K.row(i), in.Q.row(t)), b = mp_t(2) * in.eta[t] * in.Gamma(t, i);
          for (std::size_t e = 0; e < I.dv; ++e) {
            yf(t, e) -= b * (pi[e] - in.V(i, e)) * kq;
            yp(t, e) -= b * pi[e] * kq + in.Gamma(t, i) * in.V(i, e) * kq;
          }
        }
      }
      w.rows(yf, win.Y, "read-out formula");
      if (d == dg) printed = rowrel(yp, win.Y);
      where = w.where;
      return w.r;
    });
    ctl.add(printed > identity_threshold(dg), I.desc + " printed value sign");
  }
  return ck.result(cfg, sizes + " (d <= 2, L <= 12)");
}

ClaimResult linear_claim(const CheckConfig& cfg, const std::string& tag, bool c1) {
  const std::vector<DInst> insts = sweep(cfg, tag, c1);
  const std::string sizes = sweep_note(cfg, tag, c1);
  Controls ctl, ctl2;
  Parts parts;
  parts.push_back({c1 ? "Eq. 30 form = kernel = rank-1, read-out formula" : "Eq. 28 form = kernel = rank-1, read-out formula", linear_forms_part(cfg, insts, sizes, ctl)});
  parts.push_back({"update contract", contract_part(cfg, insts, sizes, true, ctl2)});
  parts.push_back({"controls (read-out)", ctl.result(cfg, "printed value sign -sum gamma v kappa without 2 eta")});
  parts.push_back({"controls (contract)", ctl2.result(cfg, c1 ? "sign-flipped step" : "sign-flipped step, single-token gradient")});
  ClaimResult r = combine(parts, kFirst);
  r.evidence.extra.emplace_back("as printed", std::string(c1 ? "Eqs. 30-31" : "Eqs. 28-29") +
                                                  " use left multiplication, -v phi^T and no 2 eta_t; the verdict is on the to-implement form (right multiplication, "
                                                  "+2 eta_t gamma v phi^T, A-6)" +
                                                  (c1 ? "; the printed Eq. 31 output (I - eta phi*(k) exp(q^T k)) M_{t-1} does not type-check (d_v x D times "
                                                        "a D-vector is missing)"
                                                      : ""));
  return r;
}

// A002-DOT-LINEAR: Eqs. 28-29 (to implement) on phi*_P: window form = kernel form, read-out formula, update contract.
ClaimResult a002_dot_linear(const CheckConfig& cfg) { return linear_claim(cfg, "A002-DOT-LINEAR", false); }
// A002-DOT-C1: Eqs. 30-31 (to implement), c = 1: as A002-DOT-LINEAR.
ClaimResult a002_dot_c1(const CheckConfig& cfg) { return linear_claim(cfg, "A002-DOT-C1", true); }

// A002-DOT: the model (Eq. 27, linear memory): update contract on truncated features, kernel vs truncated explicit memory
// (exact exp, P2), the unstable-step family separately; deep memory not here.
ClaimResult a002_dot(const CheckConfig& cfg) {
  const std::string tag = "A002-DOT";
  const std::vector<DInst> insts = sweep(cfg, tag, false);
  const std::string sizes = sweep_note(cfg, tag, false);
  Controls ctl, low, low2;
  Parts parts;
  parts.push_back({"update contract (Eq. 27 on phi*_4)", contract_part(cfg, insts, sizes, false, ctl)});
  std::vector<DInst> ex;
  for (const DInst& I : insts)
    if (I.d <= 2 && (!cfg.quick || I.L <= 8)) ex.push_back(I);
  std::string note, note2;
  parts.push_back({"exact kernel = truncated memory (P2)", exact_part(cfg, ex, sizes + " (d <= 2)", low, &note)});
  std::vector<DInst> big;
  for (int n = 0; n < (cfg.quick ? 1 : 3); ++n) big.push_back(make_dinst(inst_seed(cfg, tag + "/big-eta", n), 6 + 2 * static_cast<std::size_t>(n), 2, 2, 2, 1.0, GammaGen::g2, 10.0));
  int us = 0;
  double worst_st = 0, worst_big = 0;
  for (const DInst& I : insts) worst_st = std::max(worst_st, dot_stability(I, nullptr));
  for (const DInst& I : big) {
    int u = 0;
    worst_big = std::max(worst_big, dot_stability(I, &u));
    us += u;
  }
  parts.push_back({"unstable step sizes (eta x 10, reported separately)", exact_part(cfg, big, "eta x 10, c = 2, L {6,8,10}; " + seed_note(cfg, tag + "/big-eta"), low2, &note2)});
  parts.push_back({"controls", ctl.result(cfg, "sign-flipped step, single-token gradient")});
  parts.push_back({"too-low order detected", low.result(cfg, "truncated memory at order P/2")});
  ClaimResult deep;
  deep.verdict = Verdict::inconclusive;
  deep.reason = "deep (MLP) memory: see A002-MEMORY-MLP";
  deep.evidence.statistic = "not run";
  deep.evidence.sizes = "-";
  parts.push_back({"deep memory", deep});
  ClaimResult r = combine(parts, kFirst);
  r.evidence.extra.emplace_back("truncation order", note + "; unstable family: " + note2);
  r.evidence.extra.emplace_back("stability of the kernel delta step (2 eta_t lambda_max(Gamma^1/2 G_W Gamma^1/2) <= 2)",
                                "default rates: max " + fmt(worst_st) + " (stable); eta x 10 family: max " + fmt(worst_big) + ", " + std::to_string(us) +
                                    " unstable steps (their identity is the separate part)");
  return r;
}

// ---------------------------------------------------------------------------------------------------------------
// A002-DOT-VALUE-CLAIM
// ---------------------------------------------------------------------------------------------------------------
struct ValueFit {
  double dev = 0;                    // max_t |l1| / (|l1| + |l2|) (0 for candidate (ii) with l2 > 0)
  double l1_rel = 0, l2_rel = 0;     // max_t |l1/beta_t - 1|, |l2/beta_t + 1|
  double resid = 0;                  // max_t fit residual ||a_t - l1 v_t - l2 vhat_t|| / ||a_t||
  bool neg_l2 = false;
  std::string first;                 // first step's fitted (l1, l2) / beta
};
ValueFit value_fit(const DInst& I, unsigned digits) {
  MpDigitsScope sc(digits);
  const MIn in = dot_in<mp_t>(I);
  const auto tri = ref::dot_c1_trisolve(in);
  const auto kr = ref::dot_kernel(in);  // pred row t = M_{t-1} phi*(k_t)
  ValueFit f;
  for (std::size_t t = 1; t < I.L; ++t) {
    mp_t vv(0), vh(0), hh(0), av(0), ah(0), aa(0);
    for (std::size_t e = 0; e < I.dv; ++e) {
      const mp_t v = in.V(t, e), h = kr.pred(t, e), a = tri.A(t, e);
      vv += v * v;
      vh += v * h;
      hh += h * h;
      av += a * v;
      ah += a * h;
      aa += a * a;
    }
    const mp_t det = vv * hh - vh * vh;
    if (det <= mp_t(0) || aa == 0) continue;
    const mp_t l1 = (av * hh - ah * vh) / det, l2 = (ah * vv - av * vh) / det;
    mp_t res(0);
    for (std::size_t e = 0; e < I.dv; ++e) {
      const mp_t x = tri.A(t, e) - l1 * in.V(t, e) - l2 * kr.pred(t, e);
      res += x * x;
    }
    const mp_t beta = mp_t(2) * in.eta[t] * in.Gamma(t, t);
    f.dev = std::max(f.dev, to_d(mp_t(abs(l1) / (abs(l1) + abs(l2)))));
    f.l1_rel = std::max(f.l1_rel, to_d(mp_t(abs(mp_t(l1 / beta - 1)))));
    f.l2_rel = std::max(f.l2_rel, to_d(mp_t(abs(mp_t(l2 / beta + 1)))));
    f.resid = std::max(f.resid, to_d(mp_t(sqrt(res / aa))));
    if (l2 <= 0) f.neg_l2 = true;
    if (f.first.empty())
      f.first = "step t=" + std::to_string(t + 1) + ": lambda_1 = " + fmt(to_d(l1), 6) + ", lambda_2 = " + fmt(to_d(l2), 6) + " (beta_t = 2 eta_t gamma_t = " +
                fmt(to_d(beta), 6) + ")";
  }
  return f;
}

// A002-DOT-VALUE-CLAIM: per-step regression a_t = lambda_1 v_t + lambda_2 vhat_t; holds iff lambda_1 = 0, lambda_2 > 0 (candidate ii).
ClaimResult a002_dot_value_claim(const CheckConfig& cfg) {
  const std::string tag = "A002-DOT-VALUE-CLAIM";
  const unsigned dg = cfg.digits;
  const double thr = 1e-10;
  DoubledDigitsTally t;
  double l1w = 0, l2w = 0, resw = 0;
  int n = 0;
  std::vector<std::size_t> Ls = {3, 7, 16};
  if (!cfg.quick) Ls.push_back(64);
  for (std::size_t L : Ls)
    for (std::size_t dv : {2, 3})
      for (double sc : {1.0, 1.5}) {
        const DInst I = make_dinst(inst_seed(cfg, tag, n++), L, 2, dv, 1, sc, GammaGen::g1);
        const ValueFit f = value_fit(I, dg);
        l1w = std::max(l1w, f.l1_rel);
        l2w = std::max(l2w, f.l2_rel);
        resw = std::max(resw, f.resid);
        ++t.n;
        const double stat = f.neg_l2 ? std::max(f.dev, 1.0) : f.dev;
        if (stat > t.worst || t.worst_desc.empty()) {
          t.worst = stat;
          t.worst_desc = I.desc;
        }
        if (stat > thr && !t.failed) {
          const ValueFit f2 = value_fit(I, 2 * dg);
          const double stat2 = f2.neg_l2 ? std::max(f2.dev, 1.0) : f2.dev;
          if (stat2 > thr) {
            t.failed = true;
            t.witness = I.desc + " [" + f.first + "]";
            t.witness_value = stat;
            t.witness_value_2x = fmt(stat2);
          } else if (!t.unconfirmed) {
            t.unconfirmed = true;
            t.witness = I.desc;
            t.witness_value = stat;
            t.witness_value_2x = fmt(stat2);
          }
        }
      }
  ClaimResult r;
  r.evidence.statistic = "max over steps t >= 2 of |lambda_1| / (|lambda_1| + |lambda_2|) of the per-step least-squares fit a_t = lambda_1 v_t + lambda_2 vhat_t "
                         "(set to >= 1 when lambda_2 <= 0); candidate (ii) 'stores the previous-state prediction' is 0 with lambda_2 > 0";
  r.evidence.threshold = thr;
  r.evidence.instances = t.n;
  r.evidence.digits = dg;
  r.evidence.seed = cfg.seed;
  r.evidence.sizes = "c = 1, d = 2, L {3,7,16" + std::string(cfg.quick ? "" : ",64") + "} x dv {2,3} x |q| = |k| {1, 1.5}, gamma G1, eta default; " + seed_note(cfg, tag);
  decide_doubled_digits(t, dg, "value_at_doubled_digits", "the stored coefficient is the previous-state prediction on every step", r);
  r.evidence.threshold = thr;
  r.evidence.extra.emplace_back("identified relation (candidate iii)", "a_t = beta_t (v_t - vhat_t), beta_t = 2 eta_t gamma_t: max |lambda_1/beta_t - 1| = " + fmt(l1w) +
                                                                          ", max |lambda_2/beta_t + 1| = " + fmt(l2w) + ", max relative fit residual " + fmt(resw));
  r.evidence.extra.emplace_back("reading", "Dot appends (k_t, a_t) with a_t proportional to the prediction error v_t - M_{t-1} phi*(k_t), not to v_t (i) nor to the "
                                           "prediction (ii); after the write M_t phi*(k_t) = vhat_t + beta_t e^{||k_t||^2} (v_t - vhat_t): the delta rule moves the "
                                           "stored prediction towards the new value (spec A-39)");
  return r;
}

// ---------------------------------------------------------------------------------------------------------------
// A002-DOT-GEN
// ---------------------------------------------------------------------------------------------------------------

// Greedy exact-reproduction search for a fixed target scale s: step t chooses b_i = 2 eta_t gamma_i^(t) >= 0 (any such
// vector is reachable with eta_t > 0, gamma in [0,1]) minimising ||y_t - s T_t|| (non-negative least squares over the
// window, all active sets), then writes the coefficients. Returns max_t ||y_t - s T_t|| / ||s T_t||.
double greedy_residual(const MIn& in, const MM& T, const mp_t& s) {
  const ref::DotKernel<mp_t> kap(in.K.cols, -1);
  const std::size_t L = in.K.rows, dv = in.V.cols;
  MM A(L, dv);
  double worst = 0;
  for (std::size_t t = 0; t < L; ++t) {
    const std::size_t lo = ref::omega_window_begin(t, in.c), n = t + 1 - lo;
    MV yold(dv), tgt(dv);
    for (std::size_t j = 0; j < t; ++j) {
      const mp_t w = kap(in.Q.row(t), in.K.row(j));
      for (std::size_t e = 0; e < dv; ++e) ref::muladd(yold[e], w, A(j, e));
    }
    for (std::size_t e = 0; e < dv; ++e) tgt[e] = s * T(t, e) - yold[e];
    MM D(n, dv), U(n, dv);  // D: v_i - r_i; U: D kappa(q_t, k_i)
    for (std::size_t i = lo; i <= t; ++i) {
      MV r(dv);
      for (std::size_t j = 0; j < t; ++j) {
        const mp_t k = kap(in.K.row(j), in.K.row(i));
        for (std::size_t e = 0; e < dv; ++e) ref::muladd(r[e], k, A(j, e));
      }
      const mp_t kq = kap(in.Q.row(t), in.K.row(i));
      for (std::size_t e = 0; e < dv; ++e) {
        D(i - lo, e) = in.V(i, e) - r[e];
        U(i - lo, e) = D(i - lo, e) * kq;
      }
    }
    // NNLS by enumeration of active sets
    MV best_b(n, mp_t(0));
    mp_t best(0);
    for (std::size_t e = 0; e < dv; ++e) best += tgt[e] * tgt[e];
    for (std::size_t mask = 1; mask < (std::size_t(1) << n); ++mask) {
      std::vector<std::size_t> idx;
      for (std::size_t i = 0; i < n; ++i)
        if (mask >> i & 1) idx.push_back(i);
      MM G(idx.size(), idx.size());
      MV h(idx.size()), x;
      for (std::size_t a = 0; a < idx.size(); ++a) {
        for (std::size_t e = 0; e < dv; ++e) h[a] += U(idx[a], e) * tgt[e];
        for (std::size_t b = 0; b < idx.size(); ++b)
          for (std::size_t e = 0; e < dv; ++e) G(a, b) += U(idx[a], e) * U(idx[b], e);
      }
      x = h;
      if (!chol_solve(G, x)) continue;  // Gram of the active columns (claim_support.hpp); singular sets skipped
      bool ok = true;
      for (const mp_t& z : x) ok = ok && z >= 0;
      if (!ok) continue;
      mp_t res(0);
      for (std::size_t e = 0; e < dv; ++e) {
        mp_t y = tgt[e];
        for (std::size_t a = 0; a < idx.size(); ++a) y -= x[a] * U(idx[a], e);
        res += y * y;
      }
      if (res < best) {
        best = res;
        best_b.assign(n, mp_t(0));
        for (std::size_t a = 0; a < idx.size(); ++a) best_b[idx[a]] = x[a];
      }
    }
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t e = 0; e < dv; ++e) ref::muladd(A(lo + i, e), best_b[i], D(i, e));
    mp_t tn(0);
    for (std::size_t e = 0; e < dv; ++e) tn += s * s * T(t, e) * T(t, e);
    worst = std::max(worst, nan_inf(to_d(mp_t(sqrt(best / tn)))));
  }
  return worst;
}

struct GenInst {
  DInst I;
  double smin = 0, smax = 0;
};
// targets: unnormalised sum_{i<=t} exp(q_t^T k_i) v_i, or normalised (A002-SOFTMAX-ATTN at tau = 1)
MM gen_target(const MIn& in, bool normalized) {
  const auto kern = [&](const mp_t* k, const mp_t* q) { return mp_t(exp(ref::dot(k, q, in.K.cols))); };
  return normalized ? ref::kernel_ratio_of_sums(in.Q, in.K, in.V, kern) : ref::kernel_attention_unnormalized(in.Q, in.K, in.V, kern);
}
// min over the grid of first steps b_1 = 2 eta_1 gamma_1 (log-spaced in [smin, smax]) of the greedy residual with the
// target scale s that b_1 reproduces at step 1 (s = b_1 unnormalised, b_1 exp(q_1^T k_1) normalised); *s_best: best b_1
double gen_search(const GenInst& G, bool normalized, unsigned digits, int grid, double* s_best, std::vector<double>* curve) {
  MpDigitsScope sc(digits);
  const MIn in = dot_in<mp_t>(G.I);
  const MM T = gen_target(in, normalized);
  const mp_t k11 = exp(ref::dot(in.Q.row(0), in.K.row(0), in.K.cols));
  double best = INFINITY;
  for (int k = 0; k < grid; ++k) {
    const double s = G.smin * std::pow(G.smax / G.smin, grid > 1 ? static_cast<double>(k) / (grid - 1) : 0.0);
    const double r = greedy_residual(in, T, normalized ? mp_t(s * k11) : mp_t(s));
    if (curve) curve->push_back(r);
    if (r < best) {
      best = r;
      if (s_best) *s_best = s;
    }
  }
  return best;
}

// A002-DOT-GEN: (a) exact-reproduction search of (un)normalised attention, (b) small-step slope (reported), (c) Hebbian = DeepTransformer.
ClaimResult a002_dot_gen(const CheckConfig& cfg) {
  const std::string tag = "A002-DOT-GEN";
  const unsigned dg = cfg.digits;
  const double thr = 1e-10;
  const int grid = cfg.quick ? 9 : 17;
  Parts parts;
  std::vector<std::size_t> Ls = {3, 7};
  if (!cfg.quick) Ls.push_back(16);
  std::string table;
  ClaimFigure fa;
  fa.id = "reproduction_vs_scale";
  fa.title = "Dot exact-reproduction search: min residual vs target scale s (first instance per c)";
  fa.x_label = "b_1 = 2 eta_1 gamma_1";
  fa.y_label = "max_t relative residual";
  fa.x_scale = fa.y_scale = "log";
  for (int normalized = 0; normalized < 2; ++normalized)
    for (int cgrp = 0; cgrp < 2; ++cgrp) {
      DoubledDigitsTally t;
      int n = 0, found = 0;
      const std::vector<std::size_t> cs = cgrp == 0 ? std::vector<std::size_t>{1} : std::vector<std::size_t>{2, 3};
      for (std::size_t c : cs)
        for (std::size_t L : Ls)
          for (std::size_t dv : {2, 3}) {
            GenInst G;
            G.I = make_dinst(inst_seed(cfg, tag + (normalized ? "/N" : "/U"), static_cast<int>(100 * c) + n++), L, 2, dv, c, 1.0, GammaGen::ones);
            const double den = std::max(1.0, static_cast<double>(c) * std::exp(1.0));
            G.smin = 2 * 0.01 / den;
            G.smax = 10;
            double sb = 0;
            std::vector<double> curve;
            const bool first = L == Ls.front() && dv == 2;
            const double r1 = gen_search(G, normalized, dg, grid, &sb, first ? &curve : nullptr);
            if (first) {
              FigureSeries ser;
              ser.name = std::string(normalized ? "normalised" : "unnormalised") + " c=" + std::to_string(c);
              ser.marker = "o";
              for (int k = 0; k < grid; ++k) {
                ser.x.push_back(G.smin * std::pow(G.smax / G.smin, grid > 1 ? static_cast<double>(k) / (grid - 1) : 0.0));
                ser.y.push_back(std::max(curve[static_cast<std::size_t>(k)], 1e-300));
              }
              fa.series.push_back(ser);
            }
            ++t.n;
            const std::string desc = G.I.desc + " target " + (normalized ? "normalised" : "unnormalised");
            table += (table.empty() ? "" : "; ") + std::string(normalized ? "N" : "U") + " c=" + std::to_string(c) + " L=" + std::to_string(L) +
                     " dv=" + std::to_string(dv) + ": " + fmt(r1) + " @b_1=" + fmt(sb);
            if (r1 <= thr) ++found;
            if (r1 > t.worst || t.worst_desc.empty()) {
              t.worst = r1;
              t.worst_desc = desc;
            }
            if (!(r1 <= thr) && !t.failed) {
              const double r2 = gen_search(G, normalized, 2 * dg, grid, nullptr, nullptr);
              if (!(r2 <= thr)) {
                t.failed = true;
                t.witness = desc + " (best b_1 = " + fmt(sb) + ")";
                t.witness_value = r1;
                t.witness_value_2x = fmt(r2);
              } else if (!t.unconfirmed) {
                t.unconfirmed = true;
                t.witness = desc;
                t.witness_value = r1;
                t.witness_value_2x = fmt(r2);
              }
            }
          }
      ClaimResult r;
      r.evidence.statistic = std::string("min over b_1 = 2 eta_1 gamma_1 in [0.02 / max(1, c e), 10] (log grid; s fixed by step 1) of the greedy non-negative "
                                         "least-squares reproduction residual max_t ||y_t^Dot - s T_t|| / ||s T_t||, T = ") +
                             (normalized ? "normalised causal softmax attention (tau = 1)" : "unnormalised sum_i exp(q_t^T k_i) v_i");
      r.evidence.threshold = thr;
      r.evidence.instances = t.n;
      r.evidence.digits = dg;
      r.evidence.seed = cfg.seed;
      r.evidence.sizes = std::string(cgrp == 0 ? "c = 1" : "c {2,3}") + " x L {3,7" + (cfg.quick ? "" : ",16") + "} x dv {2,3}, d = 2, unit q/k; " +
                         seed_note(cfg, tag + (normalized ? "/N" : "/U"));
      decide_doubled_digits(t, dg, "residual_at_doubled_digits", "every target reproduced (residual <= 1e-10)", r);
      r.evidence.threshold = thr;
      // only the c = 1 unnormalised target has a proof of impossibility (see reading); elsewhere the search (grid over b_1,
      // greedy per-step NNLS) is evidence, so a miss there is inconclusive, not violated
      if (r.verdict == Verdict::violated && !(cgrp == 0 && !normalized)) {
        r.verdict = Verdict::inconclusive;
        r.reason = "the search found an exact reproduction on " + std::to_string(found) + " of " + std::to_string(t.n) + " instances (worst residual " +
                   fmt(t.witness_value) + " at " + t.witness + ", confirmed at doubled digits); a miss of the grid / greedy search is not a proof";
      }
      r.evidence.extra.emplace_back("exact reproductions found", std::to_string(found) + " of " + std::to_string(t.n) +
                                                                     (cgrp == 0 && !normalized ? " (c = 1: impossible for d_v >= 2 at any nonzero step, see reading)"
                                                                                : " (grid over b_1, greedy per-step search: a miss is evidence, not a proof)"));
      parts.push_back({std::string("(a) ") + (normalized ? "normalised" : "unnormalised") + (cgrp == 0 ? ", c = 1" : ", c in {2,3}"), r});
    }
  // (c) Hebbian bias (quadratic term dropped) = DeepTransformer (c = 1) / SWDT (c > 1) with rates 2 eta gamma
  {
    IdentityCheck ic("max row relative residual: Dot kernel form with the quadratic term dropped vs DeepTransformer (c = 1) / SWDT kernel form (c > 1) with "
                     "weights 2 eta_t gamma_i",
                     dg);
    Controls ctl;
    for (const DInst& I : sweep(cfg, tag + "/hebbian", false)) {
      double wrong = 0;
      ic.add(I.desc, [&](unsigned d) {
        MpDigitsScope sc(d);
        const MIn in = dot_in<mp_t>(I);
        const MM yh = ref::dot_kernel(in, -1, true).Y;
        const MV ones(I.L, mp_t(1));
        MM yd;
        if (I.c == 1) {
          MV e2(I.L);
          for (std::size_t t = 0; t < I.L; ++t) e2[t] = mp_t(2) * in.eta[t] * in.Gamma(t, t);
          yd = ref::deep_transformer_kernel(in.Q, in.K, in.V, ones, e2).unscale();
        } else {
          MM G2(I.L, I.L);
          for (std::size_t t = 0; t < I.L; ++t)
            for (std::size_t i = ref::omega_window_begin(t, I.c); i <= t; ++i) G2(t, i) = mp_t(2) * in.eta[t] * in.Gamma(t, i);
          yd = ref::swdt_kernel(in.Q, in.K, in.V, ones, G2, I.c).unscale();
        }
        if (d == dg) wrong = rowrel(ref::dot_kernel(in).Y, yd);
        return rowrel(yh, yd);
      });
      if (I.L >= 2) ctl.add(wrong > identity_threshold(dg), I.desc + " Dot with the quadratic term");
    }
    parts.push_back({"(c) Hebbian counterpart = DeepTransformer / SWDT", ic.result(cfg, sweep_note(cfg, tag + "/hebbian", false))});
    parts.push_back({"(c) controls", ctl.result(cfg, "Dot with the quadratic term vs DeepTransformer")});
  }
  ClaimResult r = combine(parts, kFirst);
  r.evidence.figures.push_back(fa);
  r.evidence.extra.emplace_back("(a) per instance (min residual @ best s)", table);
  // (b) small-step behaviour, c = 1, constant eta
  {
    std::vector<double> etas, rats;
    for (int k = 0; k <= 10; ++k) etas.push_back(std::pow(10.0, -6.0 + 0.5 * k));
    ClaimFigure fb;
    fb.id = "small_step";
    fb.title = "Dot (c = 1) / (2 eta) vs unnormalised attention";
    fb.x_label = "eta";
    fb.y_label = "||y/(2 eta) - y_tilde|| / ||y_tilde||";
    fb.x_scale = fb.y_scale = "log";
    std::string slopes;
    for (int n = 0; n < 3; ++n) {
      DInst I = make_dinst(inst_seed(cfg, tag + "/small-eta", n), 7, 2, 2, 1, 1.0, GammaGen::ones);
      FigureSeries ser;
      ser.name = "inst " + std::to_string(n + 1);
      ser.marker = "o";
      std::vector<double> lx, ly;
      for (double e : etas) {
        MpDigitsScope sc(dg);
        for (double& x : I.eta) x = e;
        const MIn in = dot_in<mp_t>(I);
        MM y = ref::dot_kernel(in).Y;
        for (mp_t& x : y.a) x /= mp_t(2 * e);
        const MM yt = gen_target(in, false);
        const double rr = to_d(mp_t(ref::frob_diff(y, yt) / ref::frob(yt)));
        ser.x.push_back(e);
        ser.y.push_back(rr);
        lx.push_back(std::log10(e));
        ly.push_back(std::log10(rr));
      }
      const Fit f = linear_fit(lx, ly);
      slopes += (slopes.empty() ? "" : "; ") + ("inst " + std::to_string(n + 1) + ": slope " + f.str(4) + ", ratio at eta=1e-6: " + fmt(ser.y.front()));
      fb.series.push_back(ser);
    }
    r.evidence.figures.push_back(fb);
    r.evidence.extra.emplace_back("(b) small-step relation (reported): log-log slope of ||y/(2 eta) - y_tilde|| / ||y_tilde|| vs eta (c = 1, L = 7, d = dv = 2)", slopes);
  }
  r.evidence.extra.emplace_back("reading", "c = 1, d_v >= 2: exact reproduction is impossible at any nonzero step (step 2 needs beta_2 beta_1 kappa(k_1, k_2) v_1 = 0); "
                                           "Dot / (2 eta) tends to unnormalised attention only as eta -> 0 (first order, slope (b)); the search's smallest first step "
                                           "is the spec's default lower rate (excluding the eta -> 0 limit, part (b)); steps t >= 2 are free (b_i >= 0, any "
                                           "such vector is 2 eta_t gamma^(t) with eta_t > 0, gamma in [0,1])");
  return r;
}

}  // namespace

void register_a002_dot_transformer(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A002-DOT", "Dot (Eq. 27), linear memory: update contract on phi*_P and exact kernel form = truncated memory", identity, false, a002_dot);
  add("A002-DOT-LINEAR", "GD on Eq. 27 with linear memory gives Eqs. 28-29", identity, false, a002_dot_linear);
  add("A002-DOT-C1", "With c = 1, Eq. 27 gives Eqs. 30-31", identity, false, a002_dot_c1);
  add("A002-DOT-KERNEL", "Exact kernel (coefficient) form of linear Dot equals the truncated explicit memory [test-bed identity]", identity, true, a002_dot_kernel);
  add("A002-DOT-C1-TRISOLVE", "Triangular-solve form of Dot with c = 1 [test-bed identity]", identity, true, a002_dot_c1_trisolve);
  add("A002-DOT-VALUE-CLAIM", "Dot appends keys/values and replaces the new value by the previous state's prediction", identity, false, a002_dot_value_claim);
  add("A002-DOT-GEN", "Dot generalizes Transformers with the Delta rule", identity, false, a002_dot_gen);
}

}  // namespace recall
