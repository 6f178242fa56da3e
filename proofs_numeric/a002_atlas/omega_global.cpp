// Paper A002 (Atlas), §3.2: the Omega rule against global optimisation (c = infinity / context length, Eq. 14 and
// the Mesa-layer least squares), the fixed-window GD closed form and the Newton step on the window objective
// (test-bed references for the "locally optimal" items), and the momentum (Titans) reading of Eqs. 12-13 with its
// implicit per-token decay (§4.1 footnote). Verdicts are computed from reference/include/recall/reference/omega.hpp
// (and the least-squares group: regression_rules.hpp ridge_state / rls, least_squares.hpp ls_state_pinv; miras.hpp
// titans_memory) at recall::mp_t, cfg.digits (P1); failures are re-evaluated at doubled digits. Instances are seeded
// by mix(tag_seed(cfg.seed, ID), n), smallest sizes first; witnesses name sizes, generator, seed, 1-based tokens.
// Spec IDs: A002-OMEGA-WLS-FIXEDPOINT, A002-OMEGA-NEWTON, A002-GLOBAL-LS, A002-OMEGA-CINF-GLOBAL,
// A002-GLOBAL-LS-EQUIV, A002-OMEGA-MOMENTUM, A002-TITANS-IMPLICIT-DECAY.
#include "recall/proofs/claims_a002.hpp"
#include "recall/proofs/ledger.hpp"
#include "recall/reference/miras.hpp"
#include "recall/reference/omega.hpp"
#include "recall/reference/svd.hpp"
#include "a002_omega_claims.hpp"
#include "claim_support.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::omega;

// largest eigenvalue of a symmetric PSD double matrix (its largest singular value)
double lam_max(const DM& G) {
  const ref::Svd<double> s = ref::svd(G);
  return s.sigma.empty() ? 0.0 : s.sigma[0];
}
DM gram_rows(const DM& Phi, std::size_t t, const DM* Gam = nullptr, std::size_t row = 0) {
  DM G(Phi.cols, Phi.cols);
  for (std::size_t i = 0; i < t; ++i) ref::add_outer(G, Gam ? (*Gam)(row, i) : 1.0, Phi.row(i), Phi.row(i));
  return G;
}

// ---------------------------------------------------------------------------------------------------------------

// A002-OMEGA-WLS-FIXEDPOINT: K GD steps on a fixed window (iteration through ref::fullbatch_gd) vs the closed form
// M* + (M0 - M*)(I - 2 eta G)^K, M* = B G^+ + M0 (I - G G^+), rank-deficient windows included.
ClaimResult a002_omega_wls_fixedpoint(const CheckConfig& cfg) {
  const char* tag = "A002-OMEGA-WLS-FIXEDPOINT";
  const std::uint64_t base = tag_seed(cfg.seed, tag);
  const std::vector<std::size_t> Ks = cfg.quick ? std::vector<std::size_t>{1, 3, 10, 100} : std::vector<std::size_t>{1, 3, 10, 100, 1000};
  Checker ck("max relative residual over K: closed form vs K-step iteration", cfg.digits, static_cast<double>(Ks.back()) * 10);
  Controls ctl("closed form with (I - eta G)^K (the factor 2 of the gradient dropped)", 1e-8);
  int deficient = 0;
  const std::vector<Case> cases = sweep(cfg.quick, 2);
  int n = 0;
  for (const Case& k : cases) {
    const Inst I = make_inst(k, mix(base, static_cast<std::uint64_t>(n++)));
    const ref::OmegaWindow<double> Wd = ref::omega_window(I.in, k.L);
    DM G(Wd.Phi.cols, Wd.Phi.cols);
    for (std::size_t i = 0; i < Wd.Phi.rows; ++i) ref::add_outer(G, Wd.w[i], Wd.Phi.row(i), Wd.Phi.row(i));
    const double lm = lam_max(G);
    if (!(lm > 0)) continue;
    Rng g(I.seed ^ 3);
    const double eta = (0.1 + 0.8 * uniform_vec(g, 1)[0]) / lm;  // 2 eta lambda in (0.2, 1.8)
    if (Wd.Phi.rows < Wd.Phi.cols) ++deficient;
    const DM M0d = gauss(g, k.dv, Wd.Phi.cols);
    const std::string desc = I.desc + " window t=" + std::to_string(k.L) + " eta=" + fmt(eta) + "/1";
    auto wmp = [&]() {
      ref::OmegaWindow<mp_t> W{to_mp(Wd.Phi), to_mp(Wd.V), to_mp(Wd.w)};
      return W;
    };
    ck.add(desc, [&](unsigned d, std::string& where) {
      MpDigitsScope sc(d);
      const ref::OmegaWindow<mp_t> W = wmp();
      const MM M0 = to_mp(M0d);
      const mp_t e(eta);
      Worst w;
      for (std::size_t K : Ks)
        w.upd(matrel(ref::omega_wls_fixedpoint_closed(W, e, M0, K, ref::default_rank_tol<mp_t>(W.Phi.cols)), ref::omega_window_gd(W, e, M0, K)),
              "K=" + std::to_string(K));
      where = w.where;
      return w.r;
    });
    MpDigitsScope sc(cfg.digits);
    const ref::OmegaWindow<mp_t> W = wmp();
    const MM M0 = to_mp(M0d);
    ctl.add(matrel(ref::omega_wls_fixedpoint_closed(W, mp_t(eta / 2), M0, 10, ref::default_rank_tol<mp_t>(W.Phi.cols)),
                   ref::omega_window_gd(W, mp_t(eta), M0, 10)),
            desc);
  }
  ClaimResult r = ck.result(cfg, "windows W_L of the sweep (2 per L), " + std::to_string(deficient) + " rank-deficient (n < D); eta = U[0.1,0.9]/lambda_max(G); K in {1,3,10,100" +
                                     (cfg.quick ? "" : ",1000") + "}; " + seed_note(cfg, tag));
  apply_controls(r, ctl);
  return r;
}

// A002-OMEGA-NEWTON: M^N_t = B_t G_t^+ + M_{t-1}(I - G_t G_t^+) is stationary for the window objective and the
// minimiser closest to M_{t-1} (orthogonal to the null directions Z G_t = 0).
ClaimResult a002_omega_newton(const CheckConfig& cfg) {
  const char* tag = "A002-OMEGA-NEWTON";
  const std::uint64_t base = tag_seed(cfg.seed, tag);
  Checker st("max over t: ||grad F_t(M^N_t)||_F / max(1, ||grad F_t(M_{t-1})||_F)", cfg.digits);
  Checker md("max over t: |<M^N_t - M_{t-1}, Z>| / (||M^N_t - M_{t-1}|| ||Z||) for Z = W (I - G_t G_t^+) (minimal distance)", cfg.digits);
  Controls ctl("B_t G_t^+ alone (no M_{t-1} projection term), random M_{t-1}, rank-deficient windows", 1e-8);
  const std::vector<Case> cases = sweep(cfg.quick, 2);
  int n = 0;
  for (const Case& k : cases) {
    const Inst I = make_inst(k, mix(base, static_cast<std::uint64_t>(n++)));
    // rnd: a random M_prev (N(0,1)) instead of the Omega state (the Omega state lies in the span of the past keys, so
    // with c >= t its null-space component vanishes and the control could not be seen)
    auto eval = [&](unsigned d, bool dist, bool wrong, bool rnd, std::string& where) {
      MpDigitsScope sc(d);
      const MIn m = cast_in<mp_t>(I.in);
      const auto run = ref::omega_rule(m, ref::Bias{}, true);
      const mp_t tol = ref::default_rank_tol<mp_t>(m.PhiK.cols);
      Worst w;
      for (std::size_t t = 1; t <= k.L; ++t) {
        const MM Mp = rnd ? gauss_mp(I.seed ^ (70 + t), k.dv, m.PhiK.cols) : run.states[t - 1];
        MM MN = ref::omega_newton_step(m, t, wrong ? MM(Mp.rows, Mp.cols) : Mp, tol);
        if (!dist) {
          const mp_t g1 = ref::frob(ref::sliding_window_gradient(ref::Bias{}, MN, m, t)), g0 = ref::frob(ref::sliding_window_gradient(ref::Bias{}, Mp, m, t));
          w.upd(to_d(mp_t(g1 / mp_max1(g0, mp_t(1)))), "t=" + std::to_string(t));
        } else {
          const ref::OmegaWindow<mp_t> W = ref::omega_window(m, t);
          MM G(m.PhiK.cols, m.PhiK.cols);
          for (std::size_t i = 0; i < W.Phi.rows; ++i) ref::add_outer(G, W.w[i], W.Phi.row(i), W.Phi.row(i));
          MM P = ref::matmul(G, ref::pinv(G, tol));
          for (std::size_t a = 0; a < P.rows; ++a)
            for (std::size_t c = 0; c < P.cols; ++c) P(a, c) = (a == c ? mp_t(1) : mp_t(0)) - P(a, c);
          const MM Z = ref::matmul(gauss_mp(I.seed ^ (50 + t), k.dv, m.PhiK.cols), P);
          MM Dm = MN;
          for (std::size_t a = 0; a < Dm.a.size(); ++a) Dm.a[a] -= Mp.a[a];
          const mp_t nz = ref::frob(Z), nd = ref::frob(Dm);
          if (nz * mp_t(1e10) < mp_max1(ref::frob(Mp), mp_t(1)) || nd == 0) continue;  // full-rank window: no null direction
          w.upd(to_d(mp_t(abs(inner(Dm, Z)) / (nz * nd))), "t=" + std::to_string(t));
        }
      }
      where = w.where;
      return w.r;
    };
    auto both = [&](unsigned d, bool dist, std::string& where) {
      std::string w1, w2;
      const double a = eval(d, dist, false, false, w1), b = eval(d, dist, false, true, w2);
      where = a >= b ? "M_prev = Omega state " + w1 : "M_prev random " + w2;
      return std::max(a, b);
    };
    st.add(I.desc, [&](unsigned d, std::string& where) { return both(d, false, where); });
    md.add(I.desc, [&](unsigned d, std::string& where) { return both(d, true, where); });
    std::string wh;
    const double c = eval(cfg.digits, true, true, true, wh);
    if (c > 0) ctl.add(c, I.desc);
  }
  const std::string sizes = "sweep of A002-OMEGA-RULE (2 per L), M_{t-1} from the Omega run and N(0,1), G^+ with threshold 10^-(d-10); " + seed_note(cfg, tag);
  ClaimResult r = combine({{"stationarity", st.result(cfg, sizes)}, {"minimal distance", md.result(cfg, sizes)}});
  apply_controls(r, ctl);
  return r;
}

// A002-GLOBAL-LS: the RLS (Sherman-Morrison) recursion vs direct ridge solves at every t, lambda in {1, 1e-2, 1e-8};
// lambda = 0 (min-norm, SVD) vs R S^{-1} on full-rank prefixes; P0 RLS drift reported.
ClaimResult a002_global_ls(const CheckConfig& cfg) {
  const char* tag = "A002-GLOBAL-LS";
  const std::uint64_t base = tag_seed(cfg.seed, tag);
  const double lams[] = {1.0, 1e-2, 1e-8};
  Checker rls("max relative residual over t and lambda: RLS read-outs M_t q_t vs ridge solves (lambda I + sum phi phi^T)", cfg.digits, 1e10);
  Checker mn("max relative residual over full-rank prefixes: min-norm LS (SVD) vs R_t S_t^{-1}", cfg.digits, 1e4);
  Controls ctl("RLS with lambda vs ridge with 2 lambda", 1e-8);
  double p0_err = 0, p0_asym = 0;
  // long sequences: every t <= D + 4, every 20th t and t = L
  auto check_t = [](std::size_t t, std::size_t D, std::size_t L) { return L <= 50 || t <= D + 4 || t % 20 == 0 || t == L; };
  struct Sz { std::size_t D, L; };
  std::vector<Sz> sz = {{2, 8}, {4, 24}};
  if (!cfg.quick) sz.push_back({16, 200});
  int n = 0;
  for (const Sz& s : sz)
    for (int rep = 0; rep < (cfg.quick ? 2 : (s.L > 50 ? 2 : 3)); ++rep, ++n) {
      Case k;
      k.L = s.L;
      k.dk = s.D;
      k.dv = 3;
      k.keys = rep == 1 && s.L > 50 ? Keys::nearpar : (rep == 2 ? Keys::nearpar : Keys::gauss);
      k.decay = k.gamma = false;
      const Inst I = make_inst(k, mix(base, static_cast<std::uint64_t>(n)));
      rls.add(I.desc, [&](unsigned d, std::string& where) {
        MpDigitsScope sc(d);
        const MIn m = cast_in<mp_t>(I.in);
        Worst w;
        for (double lam : lams) {
          const auto R = ref::global_ls_rls(m.PhiQ, m.PhiK, m.V, mp_t(lam));
          for (std::size_t t = 1; t <= k.L; ++t) {
            if (!check_t(t, s.D, k.L)) continue;
            const MM St = ref::global_ls_state(m.PhiK, m.V, t, mp_t(lam), mp_t(0));
            const MV y = ref::matvec(St, m.PhiQ.row(t - 1));
            w.upd(vecrel(MV(R.O.row(t - 1), R.O.row(t - 1) + k.dv), y), "lambda=" + fmt(lam) + " t=" + std::to_string(t));
          }
        }
        where = w.where;
        return w.r;
      });
      mn.add(I.desc, [&](unsigned d, std::string& where) {
        MpDigitsScope sc(d);
        const MIn m = cast_in<mp_t>(I.in);
        Worst w;
        for (std::size_t t = s.D; t <= k.L; ++t)
          if (check_t(t, s.D, k.L)) w.upd(matrel(ref::global_ls_state(m.PhiK, m.V, t, mp_t(0), ref::default_rank_tol<mp_t>(t)), ref::ridge_state(m.PhiK, m.V, t, mp_t(0))),
                "t=" + std::to_string(t));
        where = w.where;
        return w.r;
      });
      {
        MpDigitsScope sc(cfg.digits);
        const MIn m = cast_in<mp_t>(I.in);
        const auto R = ref::global_ls_rls(m.PhiQ, m.PhiK, m.V, mp_t(1));
        ctl.add(matrel(R.M, ref::global_ls_state(m.PhiK, m.V, k.L, mp_t(2), mp_t(0))), I.desc);
        for (double lam : lams) {  // P0 drift of the recursion
          const auto Rd = ref::global_ls_rls(I.in.PhiQ, I.in.PhiK, I.in.V, lam);
          const auto Rm = ref::global_ls_rls(m.PhiQ, m.PhiK, m.V, mp_t(lam));
          p0_err = std::max(p0_err, matrel(to_mp(Rd.M), Rm.M));
          double asym = 0, np = 0;
          for (std::size_t a = 0; a < Rd.P.rows; ++a)
            for (std::size_t c = 0; c < Rd.P.cols; ++c) {
              asym = std::max(asym, std::fabs(Rd.P(a, c) - Rd.P(c, a)));
              np = std::max(np, std::fabs(Rd.P(a, c)));
            }
          p0_asym = std::max(p0_asym, np > 0 ? asym / np : 0.0);
        }
      }
    }
  const std::string sizes = std::string("(D, L) in {(2,8), (4,24)") + (cfg.quick ? "" : ", (16,200)") + "}, d_v = 3, Gaussian and near-parallel keys; " + seed_note(cfg, tag);
  ClaimResult r = combine({{"RLS vs direct ridge", rls.result(cfg, sizes)}, {"lambda = 0 min-norm", mn.result(cfg, sizes)}});
  apply_controls(r, ctl);
  r.evidence.extra.emplace_back("P0 diagnostics (RLS in double vs P1)", "max relative error of the final state " + fmt(p0_err) +
                                                                            "; max relative asymmetry of P_L " + fmt(p0_asym) + " (lambda in {1, 1e-2, 1e-8})");
  return r;
}

// ---- global optimisation readings -----------------------------------------------------------------------------

struct GlobalDev {
  double dev = 0;  // max_t ||M_t - M^ref_t|| / ||M^ref_t||
  std::size_t t = 0;
};
// Omega (c = L, alpha = 1, gamma = 1, M0 = 0) at eta = es / lambda_max(G_L) vs the reading's minimiser at every t:
// lam < 0: min-norm LS; lam >= 0: ridge lambda (lam = 0 treated as min-norm by global_ls_state).
template <class S> GlobalDev global_dev(const ref::OmegaInputs<S>& m, double es, double lmax, double lam) {
  ref::OmegaInputs<S> g = m;
  g.c = m.PhiK.rows;
  g.log_alpha.clear();
  g.Gamma = ref::Matrix<S>();
  g.eta.assign(m.PhiK.rows, S(es / lmax));
  const auto run = ref::omega_rule(g, ref::Bias{}, true);
  GlobalDev out;
  for (std::size_t t = 1; t <= m.PhiK.rows; ++t) {
    const ref::Matrix<S> ref_t = ref::global_ls_state(m.PhiK, m.V, t, S(lam < 0 ? 0.0 : lam), ref::default_rank_tol<S>(std::max(t, m.PhiK.cols)));
    const S nr = ref::frob(ref_t);
    const double d = ref::convert<double>(S(ref::frob_diff(run.states[t], ref_t) / (nr > S(0) ? nr : S(1))));
    if (d > out.dev || t == 1) {
      out.dev = d;
      out.t = t;
    }
  }
  return out;
}
struct GCase {
  std::size_t dk, L;
  Inst I;
  double lmax;
};
std::vector<GCase> global_cases(const CheckConfig& cfg, const char* tag) {
  const std::uint64_t base = tag_seed(cfg.seed, tag);
  std::vector<GCase> out;
  const std::vector<std::size_t> Ls = cfg.quick ? std::vector<std::size_t>{1, 2, 16} : std::vector<std::size_t>{1, 2, 16, 200};
  const std::vector<std::size_t> ds = cfg.quick ? std::vector<std::size_t>{1, 2} : std::vector<std::size_t>{1, 2, 16};
  int n = 0;
  for (std::size_t L : Ls)
    for (std::size_t dk : ds) {
      Case k;
      k.L = L;
      k.dk = dk;
      k.dv = 2;
      k.c = L;
      k.keys = Keys::gauss;
      k.decay = k.gamma = false;
      const Inst I = make_inst(k, mix(base, static_cast<std::uint64_t>(n++)));
      out.push_back({dk, L, I, lam_max(gram_rows(I.in.PhiK, L))});
    }
  return out;
}
const double kEtaGrid[] = {1e-3, 1e-2, 1e-1, 0.5, 1.0};

// the R-opt / LS-equivalence part of a reading (lam < 0: min-norm): instances x eta grid, threshold 1e-10
ClaimResult ropt_part(const CheckConfig& cfg, const std::vector<GCase>& cases, double lam, const char* tag, std::vector<double>* best_per_inst) {
  FixedCheck fc(std::string("max_t ||M_t - M^") + (lam < 0 ? "LS" : "ridge") + "_t||_F / ||M^ref_t||_F (Omega, c = t, alpha = gamma = 1, one GD step per token)",
                cfg.digits, 1e-10);
  for (const GCase& gc : cases) {
    for (double es : kEtaGrid) {
      const std::string desc = gc.I.desc + " eta=" + fmt(es) + "/lambda_max";
      fc.add(desc, [&](unsigned d) {
        MpDigitsScope sc(d);
        return global_dev(cast_in<mp_t>(gc.I.in), es, gc.lmax, lam).dev;
      });
    }
    if (best_per_inst) {  // eta search (P0: deviations far above rounding): 31 log-spaced rates in [1e-3, 1] / lambda_max
      double best = INFINITY;
      for (int j = 0; j <= 30; ++j) best = std::min(best, global_dev(gc.I.in, std::pow(10.0, -3.0 + 0.1 * j), gc.lmax, lam).dev);
      best_per_inst->push_back(best);
    }
  }
  return fc.result(cfg, std::string(cfg.quick ? "d_k in {1,2}, L in {1,2,16}" : "d_k in {1,2,16}, L in {1,2,16,200}") +
                            ", d_v = 2, Gaussian keys, eta in {1e-3,1e-2,1e-1,0.5,1}/lambda_max(G_L); " + seed_note(cfg, tag));
}

// A002-OMEGA-CINF-GLOBAL: (R-obj) the c = L window objective is Eq. 7's global objective; (R-opt) the one-step-per-
// token state equals the LS minimiser of Eq. 7 at every t.
ClaimResult a002_omega_cinf_global(const CheckConfig& cfg) {
  const char* tag = "A002-OMEGA-CINF-GLOBAL";
  const std::vector<GCase> cases = global_cases(cfg, tag);
  Checker obj("max relative residual over t: window objective (c = L, gamma = 1) vs global objective of Eq. 7 (miras.hpp)", cfg.digits);
  double newton_gap = 0;
  for (const GCase& gc : cases) {
    obj.add(gc.I.desc, [&](unsigned d, std::string& where) {
      MpDigitsScope sc(d);
      MIn m = cast_in<mp_t>(gc.I.in);
      m.c = gc.L;
      const MM M = gauss_mp(gc.I.seed ^ 5, 2, m.PhiK.cols);
      Worst w;
      for (std::size_t t = 1; t <= gc.L; ++t)
        w.upd(screl(ref::sliding_window_objective(ref::Bias{}, M, m, t), ref::global_objective(ref::Bias{}, M, m.PhiK, m.V, t)), "t=" + std::to_string(t));
      where = w.where;
      return w.r;
    });
    // the inner optimisation run to convergence at each t from M_{t-1} (the Newton step with c = t) vs min-norm LS
    if (gc.L <= 16) {
      ref::OmegaInputs<double> g = gc.I.in;
      g.c = gc.L;
      std::vector<DM> st(1, DM(2, g.PhiK.cols));
      for (std::size_t t = 1; t <= gc.L; ++t) {
        st.push_back(ref::omega_newton_step(g, t, st.back(), ref::default_rank_tol<double>(g.PhiK.cols)));
        newton_gap = std::max(newton_gap, rel_res(st.back(), ref::global_ls_state(g.PhiK, g.V, t, 0.0, ref::default_rank_tol<double>(std::max(t, g.PhiK.cols)))));
      }
    }
  }
  const std::string sizes = std::string(cfg.quick ? "d_k in {1,2}, L in {1,2,16}" : "d_k in {1,2,16}, L in {1,2,16,200}") + ", d_v = 2; " + seed_note(cfg, tag);
  ClaimResult r = combine({{"R-obj (objective)", obj.result(cfg, sizes)}, {"R-opt (minimiser)", ropt_part(cfg, cases, -1, tag, nullptr)}});
  r.evidence.extra.emplace_back("inner optimisation run to convergence at each t from M_{t-1} (Newton step, c = t) vs min-norm LS (P0, L <= 16)",
                                "max relative difference " + fmt(newton_gap) + " (from M_0 = 0 the converged inner loop is the min-norm LS state)");
  r.reason += " | R-obj: the c = L objective is Eq. 7's; R-opt: one GD step per token does not reach Eq. 7's minimiser";
  return r;
}

// A002-GLOBAL-LS-EQUIV: the Omega trajectory (c = L, gamma = 1, alpha = 1) vs the LS (min-norm) and ridge
// (lambda in {1e-2, 1e-8}) minimisers of Eq. 14 at every t, eta grid; best eta per instance reported.
ClaimResult a002_global_ls_equiv(const CheckConfig& cfg) {
  const char* tag = "A002-GLOBAL-LS-EQUIV";
  const std::vector<GCase> cases = global_cases(cfg, tag);
  std::vector<double> best;
  Parts parts;
  parts.emplace_back("min-norm LS (lambda = 0)", ropt_part(cfg, cases, -1, tag, &best));
  parts.emplace_back("ridge lambda = 1e-2", ropt_part(cfg, cases, 1e-2, tag, nullptr));
  parts.emplace_back("ridge lambda = 1e-8", ropt_part(cfg, cases, 1e-8, tag, nullptr));
  ClaimResult r = combine(parts);
  std::string b;
  double worst_best = 0;
  for (std::size_t i = 0; i < best.size(); ++i) {
    worst_best = std::max(worst_best, best[i]);
    if (i < 12) b += (b.empty() ? "" : ", ") + std::string("(d_k=") + std::to_string(cases[i].dk) + ",L=" + std::to_string(cases[i].L) + "): " + fmt(best[i]);
  }
  r.evidence.extra.emplace_back("best eta per instance (31 log-spaced rates in [1e-3, 1]/lambda_max, min-norm reading, P0)",
                                b + "; worst of the best " + fmt(worst_best) + " (threshold 1e-10)");
  return r;
}

// ---- momentum (Titans) ----------------------------------------------------------------------------------------

// per-token log momentum gates theta ~ U[0.5, 0.99] (spec default)
MV log_theta_mp(std::uint64_t seed, std::size_t L, std::vector<double>* th = nullptr) {
  Rng g(seed);
  const std::vector<double> u = uniform_vec(g, L, 0.5, 0.99);
  if (th) *th = u;
  MV lt(L);
  for (std::size_t t = 0; t < L; ++t) lt[t] = log(mp_t(u[t]));
  return lt;
}

// A002-OMEGA-MOMENTUM: Omega with c = 1, gamma = 1 and GD with momentum is the Titans memory (miras.hpp titans_memory);
// the closed form of the momentum recurrence (unrolled) at every t for general c; theta = 0 gives the Omega rule.
ClaimResult a002_omega_momentum(const CheckConfig& cfg) {
  const char* tag = "A002-OMEGA-MOMENTUM";
  const std::uint64_t base = tag_seed(cfg.seed, tag);
  Checker tit("max relative residual: omega_momentum (c = 1, gamma = 1) vs titans_memory (Eqs. 12-13, miras.hpp)", cfg.digits);
  Checker cls("max relative residual over t: scan vs closed form A_{1:t} M_0 + sum_n A_{n+1:t} S_n unrolled (titans_unrolled_state), general c", cfg.digits);
  Checker th0("max relative residual: omega_momentum with theta = 0 vs omega_rule (general c)", cfg.digits);
  Controls ctl("momentum gate of the next token (theta_{t+1} in place of theta_t)", 1e-8);
  const std::vector<Case> cases = sweep(cfg.quick, 2);
  int n = 0;
  for (const Case& k0 : cases) {
    Case k = k0;
    k.phi = Phi::id;
    const Inst I = make_inst(k, mix(base, static_cast<std::uint64_t>(n++)));
    Case k1 = k;
    k1.c = 1;
    k1.gamma = false;
    const Inst I1 = make_inst(k1, mix(base ^ 0x77, static_cast<std::uint64_t>(n)));
    tit.add(I1.desc, [&](unsigned d, std::string& where) {
      MpDigitsScope sc(d);
      const MIn m = cast_in<mp_t>(I1.in);
      const MV lt = log_theta_mp(I1.seed ^ 8, k.L);
      ref::RowGates<mp_t> g;
      for (std::size_t t = 0; t < k.L; ++t) {
        g.alpha.push_back(ref::exp_log(m.log_alpha[t]));
        g.eta.push_back(m.eta[t]);
        g.theta.push_back(exp(lt[t]));
      }
      const auto om = ref::omega_momentum(m, lt);
      const auto ti = ref::titans_memory(m.PhiQ, m.PhiK, m.V, g);
      Worst w;
      w.rows(om.Y, ti.O, "Y");
      w.upd(matrel(om.state, ti.state), "state");
      where = w.where;
      return w.r;
    });
    cls.add(I.desc, [&](unsigned d, std::string& where) {
      MpDigitsScope sc(d);
      const MIn m = cast_in<mp_t>(I.in);
      const MV lt = log_theta_mp(I.seed ^ 8, k.L);
      const MM S0 = gauss_mp(I.seed ^ 9, k.dv, m.PhiK.cols);
      const auto run = ref::omega_momentum(m, lt, ref::Bias{}, &S0, true);
      Worst w;
      for (std::size_t t = 1; t <= k.L; ++t) w.upd(matrel(ref::titans_unrolled_state(m, lt, run.states, t, ref::Bias{}, &S0), run.states[t]), "t=" + std::to_string(t));
      where = w.where;
      return w.r;
    });
    th0.add(I.desc, [&](unsigned d, std::string& where) {
      MpDigitsScope sc(d);
      const MIn m = cast_in<mp_t>(I.in);
      const MV lt(k.L, ref::neg_inf<mp_t>());
      Worst w;
      w.rows(ref::omega_momentum(m, lt).Y, ref::omega_rule(m).Y, "Y");
      where = w.where;
      return w.r;
    });
    MpDigitsScope sc(cfg.digits);
    const MIn m = cast_in<mp_t>(I.in);
    const MV lt = log_theta_mp(I.seed ^ 8, k.L);
    MV sh(k.L);
    for (std::size_t t = 0; t < k.L; ++t) sh[t] = lt[std::min(t + 1, k.L - 1)];
    if (k.L >= 3) ctl.add(matrel(ref::omega_momentum(m, lt).state, ref::omega_momentum(m, sh).state), I.desc);
  }
  const std::string sizes = "sweep (2 per L), phi = id, theta ~ U[0.5, 0.99], S_0 ~ N(0,1) in the closed form; " + seed_note(cfg, tag);
  ClaimResult r = combine({{"c = 1: Titans memory", tit.result(cfg, sizes)}, {"closed form vs scan", cls.result(cfg, sizes)}, {"theta = 0: Omega rule", th0.result(cfg, sizes)}});
  apply_controls(r, ctl);
  return r;
}

// A002-TITANS-IMPLICIT-DECAY: (a) the unrolled momentum memory with implicit per-token weights w_{t,i} (identity);
// (b) the "optimises w.r.t. all past tokens" reading: M_t is stationary for sum_i w_{t,i} eta_i l_i.
ClaimResult a002_titans_implicit_decay(const CheckConfig& cfg) {
  const char* tag = "A002-TITANS-IMPLICIT-DECAY";
  const std::uint64_t base = tag_seed(cfg.seed, tag);
  Checker un("max relative residual over t: momentum scan (c = 1) vs A_{1:t} M_0 + (sum_n A_{n+1:t} Theta_{1:n}) S_0 - sum_i w_{t,i} eta_i grad l_i(M_{i-1})",
             cfg.digits);
  FixedCheck stat("max over t >= 2: ||grad_M sum_{i<=t} w_{t,i} eta_i l_i (M_t)||_F / ||same at M_0||_F", cfg.digits, 1e-8);
  double gap_min = INFINITY, gap_max = 0;
  const int N = cfg.quick ? 8 : 30;
  for (int n = 0; n < N; ++n) {
    Case k;
    k.L = 3 + static_cast<std::size_t>(n % 6) + (cfg.quick ? 0 : static_cast<std::size_t>(n / 6) * 4);
    k.dk = 1 + static_cast<std::size_t>(n % 3);
    k.dv = 2;
    k.c = 1;
    k.gamma = false;
    const Inst I = make_inst(k, mix(base, static_cast<std::uint64_t>(n)));
    un.add(I.desc, [&](unsigned d, std::string& where) {
      MpDigitsScope sc(d);
      const MIn m = cast_in<mp_t>(I.in);
      const MV lt = log_theta_mp(I.seed ^ 8, k.L);
      const MM S0 = gauss_mp(I.seed ^ 9, k.dv, m.PhiK.cols);
      const auto run = ref::omega_momentum(m, lt, ref::Bias{}, &S0, true);
      Worst w;
      for (std::size_t t = 1; t <= k.L; ++t) w.upd(matrel(ref::titans_unrolled_state(m, lt, run.states, t, ref::Bias{}, &S0), run.states[t]), "t=" + std::to_string(t));
      where = w.where;
      return w.r;
    });
    stat.add(I.desc, [&](unsigned d) {
      MpDigitsScope sc(d);
      const MIn m = cast_in<mp_t>(I.in);
      const MV lt = log_theta_mp(I.seed ^ 8, k.L);
      const auto run = ref::omega_momentum(m, lt, ref::Bias{}, nullptr, true);
      double worst = 0;
      for (std::size_t t = 2; t <= k.L; ++t) {
        const MV w = ref::titans_implicit_weights(m.log_alpha, lt, t);
        auto grad = [&](const MM& M) {
          MM G(M.rows, M.cols);
          for (std::size_t i = 0; i < t; ++i) {
            MV r = ref::matvec(M, m.PhiK.row(i));
            for (std::size_t j = 0; j < k.dv; ++j) r[j] = 2 * (r[j] - m.V(i, j));
            ref::add_outer(G, mp_t(w[i] * m.eta[i]), r.data(), m.PhiK.row(i));
          }
          return G;
        };
        const mp_t g0 = ref::frob(grad(run.states[0]));
        if (g0 == 0) continue;
        worst = std::max(worst, to_d(mp_t(ref::frob(grad(run.states[t])) / g0)));
      }
      return worst;
    });
    {  // gap to the minimiser of the implicitly weighted objective at t = L (min-norm), every instance
      MpDigitsScope sc(cfg.digits);
      const MIn m = cast_in<mp_t>(I.in);
      const MV lt = log_theta_mp(I.seed ^ 8, k.L);
      const auto run = ref::omega_momentum(m, lt, ref::Bias{}, nullptr, true);
      const MV w = ref::titans_implicit_weights(m.log_alpha, lt, k.L);
      MV wt(k.L);
      for (std::size_t i = 0; i < k.L; ++i) wt[i] = w[i] * m.eta[i];
      const MM Mw = ref::master_minimiser_linear(m.PhiK, m.V, k.L, &wt, ref::default_rank_tol<mp_t>(std::max(k.L, m.PhiK.cols)));
      const double gap = matrel(run.states[k.L], Mw);
      gap_min = std::min(gap_min, gap);
      gap_max = std::max(gap_max, gap);
    }
  }
  const std::string sizes = std::string("c = 1, L in 3..8") + (cfg.quick ? "" : " (+4 per 6 instances)") +
                            ", d_k in {1,2,3}, d_v = 2, alpha ~ U[0.5,1] (gate families), theta ~ U[0.5,0.99]; " + seed_note(cfg, tag);
  ClaimResult r = combine({{"(a) unrolled identity", un.result(cfg, sizes)}, {"(b) stationarity of the implicitly weighted objective", stat.result(cfg, sizes)}});
  r.evidence.extra.emplace_back("gap ||M_L - argmin_M sum_i w_{L,i} eta_i l_i(M)|| / max(1, ||.||) (min-norm minimiser), all instances",
                                fmt(gap_min) + " .. " + fmt(gap_max) + " over " + std::to_string(N) + " instances");
  r.reason += " | (a) the momentum memory is a sum over all past tokens' gradients with implicit weights w_{t,i}; (b) those gradients are taken "
              "at the past states M_{i-1}, so M_t does not minimise the implicitly weighted objective";
  return r;
}

}  // namespace

void register_a002_omega_global(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A002-OMEGA-WLS-FIXEDPOINT", "K GD steps on a fixed window = closed form with the min-norm shift [test-bed identity]", identity, true,
      a002_omega_wls_fixedpoint);
  add("A002-OMEGA-NEWTON", "Newton step on the window objective: stationary, closest minimiser [test-bed identity]", identity, true, a002_omega_newton);
  add("A002-GLOBAL-LS", "Global least squares / Mesa (Eq. 14): RLS = direct ridge solves; min-norm LS [test-bed identity]", identity, true,
      a002_global_ls);
  add("A002-OMEGA-CINF-GLOBAL", "Omega with c = infinity is global optimization over all past tokens", identity, false, a002_omega_cinf_global);
  add("A002-GLOBAL-LS-EQUIV", "Linear Omega with gamma = 1 and c = context length is (regularized) least squares (Eq. 14)", identity, false,
      a002_global_ls_equiv);
  add("A002-OMEGA-MOMENTUM", "Omega with c = 1, gamma = 1 and GD with momentum is the Titans memory", identity, false, a002_omega_momentum);
  add("A002-TITANS-IMPLICIT-DECAY", "Titans optimizes w.r.t. all past tokens with an implicit momentum decay", identity, false,
      a002_titans_implicit_decay);
}

}  // namespace recall
