// Paper A001 (test-time regression, Wang, Shi & Fox), §4 Vignette 3, Eqs. (24)-(25): the Hessian-preconditioned
// (Newton) step on the streaming least-squares loss, from the origin and from any start, and the two extremes
// of one preconditioned GD step (C = I: linear attention; C = S_t^{-1}: least squares).
// Every verdict is computed from the references in reference/include/recall/reference/full_batch_gd.hpp
// instantiated with recall::mp_t: P-50 (cfg.digits) by default; P-scaled items raise the working digits by
// 2 ceil(log10 cond(K)) (the Gram K^T K is formed) and keep the P-50 threshold; a failing instance is
// re-evaluated at doubled digits before it is recorded. Instances come from claim_support's Box-Muller Gauss
// stream seeded by mix(tag_seed(cfg.seed, ID), n) (n = instance number), smallest sizes first; witnesses name
// sizes, generator and seed, with 1-based indices. The seeds, sizes and key generators are shared with
// full_batch_gd.cpp (support/regression_bound_claims.hpp, namespace regression); the least-squares state
// V_t^T (K_t^+)^T is the Eq. (11) reference ref::ls_state_pinv (least_squares.hpp).
// Spec IDs: A001-NEWTON-PRECONDITIONED, A001-NEWTON-ANY-INIT, A001-GD-PRECOND-EXTREMES.
#include "recall/proofs/ledger.hpp"
#include "recall/reference/full_batch_gd.hpp"
#include "recall/reference/least_squares.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/regression_rules.hpp"
#include "recall/reference/svd.hpp"
#include "claim_support.hpp"
#include "regression_bound_claims.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::regression;
using ref::Matrix;
using ref::Vector;
using VM = Vector<mp_t>;

// log10 cond(K) through the singular values of K in double (+inf when numerically rank-deficient)
double log10_cond_keys(const DM& K) {
  Eigen::MatrixXd X(K.rows, K.cols);
  for (std::size_t i = 0; i < K.rows; ++i)
    for (std::size_t j = 0; j < K.cols; ++j) X(i, j) = K(i, j);
  Eigen::JacobiSVD<Eigen::MatrixXd> sv(X);
  const auto& s = sv.singularValues();
  const double smin = s(s.size() - 1), smax = s(0);
  if (!(smin > 0) || smin < 1e-15 * smax) return INFINITY;
  return std::log10(smax / smin);
}

// =============================================================================================
// A001-NEWTON-PRECONDITIONED, A001-NEWTON-ANY-INIT, A001-GD-PRECOND-EXTREMES
// =============================================================================================
// Full-column-rank key sets t >= D_k of G1 / G2 / G4 for the Newton items.
struct NInst {
  KeyInst ki;
  double lcK = 0;  // log10 cond(K)
  u64 seed = 0;
};
std::vector<NInst> newton_instances(const CheckConfig& cfg, const char* tag) {
  std::vector<NInst> out;
  struct Case {
    KG kind;
    std::size_t dk, dv, t;
    double param;
  };
  std::vector<Case> cases = {{KG::g1, 1, 1, 3, 0},      {KG::g1, 2, 1, 4, 2},          {KG::g1, 3, 2, 6, 1},    {KG::g1, 4, 3, 4, 0},
                             {KG::g2_logu, 3, 2, 5, 0}, {KG::g2_clustered, 2, 2, 3, 0}, {KG::g4, 3, 2, 6, 0.5}, {KG::g4, 4, 1, 8, 0.99}};
  if (!cfg.quick) {
    const std::vector<Case> more = {{KG::g1, 8, 3, 20, 0},    {KG::g1, 16, 5, 40, 1}, {KG::g2_logu, 4, 3, 8, 0}, {KG::g2_equal, 4, 2, 6, 0},
                                    {KG::g2_narrow, 8, 2, 12, 0}, {KG::g4, 8, 3, 16, 0.9}, {KG::g4, 4, 2, 5, 0.99}};
    cases.insert(cases.end(), more.begin(), more.end());
  }
  int n = 0;
  for (const Case& c : cases) {
    NInst ni;
    ni.seed = inst_seed(cfg, tag, static_cast<u64>(n++));
    ni.ki = make_keys(c.kind, c.t, c.dk, c.dv, ni.seed, c.param);
    ni.lcK = log10_cond_keys(ni.ki.K);
    out.push_back(ni);
  }
  return out;
}
std::string newton_sizes(const CheckConfig& cfg, const char* tag) {
  return "G1 (D_k,D_v,t) (1,1,3),(2,1,4),(3,2,6),(4,3,4); G2 log-uniform [1e-8,1e3], clustered; G4 rho 0.5, 0.99" +
         std::string(cfg.quick ? "" : "; full: G1 (8,3,20),(16,5,40), G2 log-uniform, equal, narrow, G4 rho 0.9, 0.99") +
         "; all t >= D_k, full column rank; P-scaled digits d + 2 ceil(log10 cond K_t) + 5; " + seed_note(cfg, tag);
}

ClaimResult a001_newton_preconditioned(const CheckConfig& cfg) {
  const char* tag = "A001-NEWTON-PRECONDITIONED";
  Checker ls("(i) max relative residual: M^(0)=0 minus grad L_t(0) S_t^{-1} (Eq. 25) vs V^T (K_t^+)^T (overdetermined branch of Eq. 11, SVD)",
             cfg.digits);
  Checker hk("(ii) max relative residual: Kronecker Hessian S_t (x) I_{D_v} vs central differences of grad L_t (column-major vec), "
             "and H vec(E) vs vec(E S_t)",
             cfg.digits);
  double lc_max = 0;
  for (const NInst& ni : newton_instances(cfg, tag)) {
    const KeyInst& ki = ni.ki;
    lc_max = std::max(lc_max, ni.lcK);
    const unsigned extra = 2 * ceil_pos(ni.lcK) + 5;
    ls.add(ki.desc + " cond(K)=1e" + fmt(ni.lcK, 3), [&](unsigned d, std::string& where) {
      MpDigitsScope sc(d + extra);
      const MM K = to_mp(ki.K), V = to_mp(ki.V);
      const MM M0(ki.dv, ki.dk);
      where = "t=" + std::to_string(ki.t) + " digits " + std::to_string(d + extra);
      return rel_res(ref::hessian_preconditioned_step(M0, K, V, ki.t), ref::ls_state_pinv(K, V, K.rows));
    });
    hk.add(ki.desc, [&](unsigned d, std::string& where) {
      MpDigitsScope sc(d);
      const MM K = to_mp(ki.K), V = to_mp(ki.V);
      Gauss g(splitmix64(ni.seed));
      const MM M = to_mp(gauss_matrix(ki.dv, ki.dk, g)), E = to_mp(gauss_matrix(ki.dv, ki.dk, g));
      const std::size_t nv = ki.dv * ki.dk;
      const MM H = ref::ls_hessian_kron(K, ki.t, ki.dv);
      // central differences of the (linear) gradient, step h = 1: column a of the Hessian
      MM Hfd(nv, nv);
      for (std::size_t col = 0; col < nv; ++col) {
        const std::size_t i = col % ki.dv, j = col / ki.dv;  // vec index col = i + j d_v
        MM Xp = M, Xm = M;
        Xp(i, j) += 1;
        Xm(i, j) -= 1;
        const MM Gp = ref::streaming_ls_grad_matrix(Xp, K, V, ki.t), Gm = ref::streaming_ls_grad_matrix(Xm, K, V, ki.t);
        for (std::size_t row = 0; row < nv; ++row) {
          const std::size_t r = row % ki.dv, c = row / ki.dv;
          Hfd(row, col) = (Gp(r, c) - Gm(r, c)) / 2;
        }
      }
      Worst w;
      w.upd(rel_res(H, Hfd), "Kronecker vs finite differences");
      MM vecE(nv, 1), vecES(nv, 1);
      const MM ES = ref::ls_hessian_apply(E, K, ki.t);
      for (std::size_t col = 0; col < nv; ++col) {
        vecE(col, 0) = E(col % ki.dv, col / ki.dv);
        vecES(col, 0) = ES(col % ki.dv, col / ki.dv);
      }
      w.upd(rel_res(ref::matmul(H, vecE), vecES), "H vec(E) vs vec(E S_t)");
      where = w.where;
      return w.r;
    });
  }
  ClaimResult r = combine({{"(i) Newton step from 0 = Eq. (11)", ls.result(cfg, newton_sizes(cfg, tag))},
                           {"(ii) Hessian = S_t (x) I (right action)", hk.result(cfg, "same instances, P-50")}});
  r.evidence.extra.emplace_back("largest log10 cond(K_t) (fp64 SVD)", fmt(lc_max, 4));
  return r;
}

ClaimResult a001_newton_any_init(const CheckConfig& cfg) {
  const char* tag = "A001-NEWTON-ANY-INIT";
  Checker ck("max relative residual: M^(0) - grad L_t(M^(0)) S_t^{-1} vs V^T K_t S_t^{-1}, M^(0) entries 10^a N(0,1)", cfg.digits);
  int n = 0;
  for (const NInst& ni : newton_instances(cfg, tag))
    for (double a : {-3.0, 0.0, 3.0, 99.0}) {
      const KeyInst& ki = ni.ki;
      Gauss g(inst_seed(cfg, tag, 0x100u + static_cast<u64>(n++)));
      const double aa = a == 99.0 ? -3.0 + 6.0 * g.uniform() : a;
      const DM M0 = gauss_matrix(ki.dv, ki.dk, g, std::pow(10.0, aa));
      // cancellation in M0 - (M0 S - R) S^{-1}: lose log10(||M0||/||R S^{-1}||) digits besides cond(S) = cond(K)^2
      const unsigned extra = 2 * ceil_pos(ni.lcK) + ceil_pos(aa + 1) + 5;
      ck.add(ki.desc + " M0 ~ 10^" + fmt(aa, 3) + " N(0,1)", [&, M0, extra](unsigned d, std::string& where) {
        MpDigitsScope sc(d + extra);
        const MM K = to_mp(ki.K), V = to_mp(ki.V);
        where = "digits " + std::to_string(d + extra);
        return rel_res(ref::hessian_preconditioned_step(to_mp(M0), K, V, ki.t),
                       ref::right_solve(ref::gd_cross_moment(K, V, ki.t), ref::gd_key_gram(K, ki.t)));
      });
    }
  return ck.result(cfg, newton_sizes(cfg, tag) + " x M^(0) scales 10^a, a in {-3, 0, 3, U(-3,3)} (+ ceil(a + 1) digits)");
}

ClaimResult a001_gd_precond_extremes(const CheckConfig& cfg) {
  const char* tag = "A001-GD-PRECOND-EXTREMES";
  Checker ci("(i) max relative residual over t: one step from 0 with C = I (R_t C) vs the linear-attention state of (2)", cfg.digits);
  Checker cs("(ii) max relative residual: one step from 0 with C = S_t^{-1} vs V^T (K_t^+)^T (Eq. 11, SVD; P-scaled)", cfg.digits);
  int n = 0;
  for (const Dims& dm : grid(cfg)) {
    const u64 s = inst_seed(cfg, tag, static_cast<u64>(n++));
    const KeyInst ki = make_keys(KG::g1, dm.T, dm.dk, dm.dv, s, n % 3);
    ci.add(ki.desc + " every t in 1..T", [&](unsigned d, std::string& where) {
      MpDigitsScope sc(d);
      const MM K = to_mp(ki.K), V = to_mp(ki.V);
      const MM Q = K;  // queries do not enter the state
      Worst w;
      const MM I = ref::eye<mp_t>(dm.dk);
      for (std::size_t t = 1; t <= dm.T; ++t)
        w.upd(rel_res(ref::preconditioned_one_step(K, V, t, I), ref::linear_attention(head_rows(Q, t), head_rows(K, t), head_rows(V, t)).state),
              "t=" + std::to_string(t));
      where = w.where;
      return w.r;
    });
  }
  for (const NInst& ni : newton_instances(cfg, tag)) {
    const KeyInst& ki = ni.ki;
    const unsigned extra = 2 * ceil_pos(ni.lcK) + 5;
    cs.add(ki.desc, [&](unsigned d, std::string& where) {
      MpDigitsScope sc(d + extra);
      const MM K = to_mp(ki.K), V = to_mp(ki.V);
      const MM C = ref::solve(ref::gd_key_gram(K, ki.t), ref::eye<mp_t>(ki.dk));
      where = "digits " + std::to_string(d + extra);
      return rel_res(ref::preconditioned_one_step(K, V, ki.t, C), ref::ls_state_pinv(K, V, K.rows));
    });
  }
  ClaimResult r = combine({{"(i) C = I gives linear attention (2)", ci.result(cfg, grid_desc(cfg) + ", every t (incl. t < D_k); " + seed_note(cfg, tag))},
                           {"(ii) C = S_t^{-1} gives LS (11)", cs.result(cfg, newton_sizes(cfg, tag))}});
  // descriptive: L_t(R_t C_omega) vs omega on G4 (keys scaled by D_k^-1/2)
  ClaimFigure fig;
  fig.id = "precond_family";
  fig.title = "One preconditioned GD step from 0: loss vs omega";
  fig.caption = "L_t(R_t C_omega) / L_t(0), C_omega = (omega S_t + (1 - omega) I)^{-1}; omega = 0 is linear attention, omega = 1 least squares. "
                "G4 equicorrelated keys (D_k = 8, t = 32, keys x D_k^-1/2), D_v = 4.";
  fig.x_label = "omega";
  fig.y_label = "L_t(R_t C_omega) / L_t(0)";
  fig.y_scale = "log";
  std::string rep;
  {
    MpDigitsScope sc(cfg.digits);
    int k = 0;
    for (double rho : {0.0, 0.5, 0.9, 0.99}) {
      Gauss g(inst_seed(cfg, tag, 0xC0u + static_cast<u64>(k++)));
      const std::size_t dk = 8, dv = 4, t = 32;
      DM K(t, dk);
      for (std::size_t i = 0; i < t; ++i) {
        const double w = g.normal();
        for (std::size_t j = 0; j < dk; ++j) K(i, j) = (std::sqrt(1 - rho) * g.normal() + std::sqrt(rho) * w) / std::sqrt(static_cast<double>(dk));
      }
      const MM Km = to_mp(K), Vm = to_mp(gauss_matrix(t, dv, g));
      const mp_t L0 = ref::streaming_ls_loss(MM(dv, dk), Km, Vm, t);
      FigureSeries sr;
      sr.name = "rho = " + fmt(rho);
      sr.marker = "o";
      std::string line = "rho=" + fmt(rho) + ":";
      for (int o = 0; o <= 10; ++o) {
        const double om = o / 10.0;
        const MM M = ref::preconditioned_one_step(Km, Vm, t, ref::precond_interpolated(Km, t, mp_t(om)));
        const double L = to_d(mp_t(ref::streaming_ls_loss(M, Km, Vm, t) / L0));
        sr.x.push_back(om);
        sr.y.push_back(L);
        if (o % 5 == 0) line += " L(" + fmt(om) + ")/L(0)=" + fmt(L, 4);
      }
      fig.series.push_back(sr);
      rep += (rep.empty() ? "" : "; ") + line;
    }
  }
  r.evidence.extra.emplace_back("(descriptive) L_t(R_t C_omega)/L_t(0) on G4, D_k=8, t=32, keys x D_k^-1/2", rep);
  r.evidence.figures.push_back(fig);
  return r;
}

}  // namespace

void register_a001_newton_step(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A001-NEWTON-PRECONDITIONED", "Hessian-preconditioned step from the origin gives LS (Eq. 25)", identity, false, a001_newton_preconditioned);
  add("A001-NEWTON-ANY-INIT", "The same step from an arbitrary initialisation gives Eq. (11)", identity, false, a001_newton_any_init);
  add("A001-GD-PRECOND-EXTREMES", "Preconditioners I and S_t^{-1} give linear attention and LS", identity, false, a001_gd_precond_extremes);
}

}  // namespace recall
