// Paper A001 (test-time regression, Wang, Shi & Fox), §4 Vignette 2, Eq. (16): gated linear attention as weighted
// least squares with K^T Gamma K ~ I. Decided on its exact content (R-APPROX): with K_t^T Gamma_t K_t = I the WLS
// memory (15) equals the gated linear-attention state of recurrence (4); the gap is reported as a surface over
// t / D_k, key correlation, key scale and gate pattern, and an adversarial search drives it towards zero.
// Spec ID: A001-GATED-LINATTN-AS-WLS.
//
// Every verdict is computed from reference/include/recall/reference/weighted_least_squares.hpp instantiated
// with recall::mp_t at cfg.digits (P-50); the gap surface runs at D = d + 10 + ceil(log10 kappa_t) digits, kappa_t
// the bound on cond(Gamma_t^{1/2} K_t) of support/least_squares_claims.hpp (instances above 400 digits are skipped
// and counted). The adversarial search is support/adversarial_search.hpp's Nelder-Mead in fp64 over the keys, every
// optimum re-evaluated at P-50. Instances are drawn from std::mt19937_64 seeded by
// splitmix64(cfg.seed ^ fnv1a(tag) ^ splitmix64(n)); witnesses are 1-based.
#include "recall/proofs/ledger.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/svd.hpp"
#include "recall/reference/weighted_least_squares.hpp"
#include "adversarial_search.hpp"
#include "claim_support.hpp"
#include "least_squares_claims.hpp"
#include "linear_attention_claims.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::linattn;
using lsq::log_gates_d;
using lsq::pdigits;
using lsq::prefix_cond;
using lsq::PrefixCond;

using ref::Matrix;
using ref::Vector;

// =============================================================================================
// A001-GATED-LINATTN-AS-WLS
// =============================================================================================
// V-free operator gap ||(A^+)^T - A||_F / ||A^+||_F of A = Gamma^{1/2} K (zero iff every non-zero singular value of A
// is 1), and the output-state gap ||M_WLS - R^G||_F / ||M_WLS||_F for the given V.
template <class S> struct Gap {
  double op = INFINITY, out = INFINITY;
};
template <class S> Gap<S> wls_gap(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& lg, std::size_t t, const S& rel_tol) {
  Gap<S> g;
  const Vector<S> sw = ref::gate_weights_sqrt(lg, t);
  Matrix<S> A(t, K.cols);
  for (std::size_t i = 0; i < t; ++i)
    for (std::size_t j = 0; j < K.cols; ++j) A(i, j) = sw[i] * K(i, j);
  const Matrix<S> Ap = ref::pinv(A, rel_tol);
  const S na = ref::frob(Ap);
  if (na > S(0)) g.op = ref::convert<double>(S(ref::frob_diff(ref::transpose(Ap), A) / na));
  const Matrix<S> Mw = ref::wls_state(K, V, &lg, t, rel_tol);
  const Matrix<S> Rg = ref::weighted_cross_moment(K, V, ref::gate_weights(lg, t));
  const S nm = ref::frob(Mw);
  if (nm > S(0)) g.out = ref::convert<double>(S(ref::frob_diff(Mw, Rg) / nm));
  return g;
}
ClaimResult a001_gated_linattn_as_wls(const CheckConfig& cfg) {
  const char* tag = "A001-GATED-LINATTN-AS-WLS";
  // exact content: K_t = Gamma_t^{-1/2} U (U orthonormal columns, weights > 0, t >= D_k) gives K^T Gamma K = I, where the WLS
  // memory must equal the gated linear-attention state of recurrence (4)
  Checker ex("max of ||M_WLS,t - M_t (recurrence (4))||, ||y_t - y_t^(4)|| (relative) and ||K_t^T Gamma_t K_t - I||_F on the constructed instances", cfg.digits);
  const std::vector<std::size_t> dks = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 4} : std::vector<std::size_t>{1, 2, 3, 4, 8};
  static const G5 pos_kinds[6] = {G5::uniform, G5::beta51, G5::constant, G5::ones, G5::corners, G5::logit};
  int n = 0;
  for (std::size_t dk : dks)
    for (std::size_t t : {dk, dk + 1, 2 * dk, 3 * dk + 1}) {
      const std::uint64_t s = instance_seed(cfg, tag, static_cast<std::uint64_t>(n));
      Gen g(s);
      const std::size_t dv = static_cast<std::size_t>(g.integer(1, 3));
      const MD Ug = g.gauss(t, dk), Vd = g.gauss(t, dv), qd = g.gauss(1, dk);
      Gates gates = draw_gates(g, t, pos_kinds[n % 6]);
      std::string repl;
      if (!gates.logit)
        for (double& x : gates.v)
          if (x == 0.0) x = 1e-300, repl = " (zero gates replaced by 1e-300: the construction needs Gamma_t > 0)";
      const std::string desc = "D_k=" + std::to_string(dk) + " t=" + std::to_string(t) + " D_v=" + std::to_string(dv) + " " + gates.desc + repl + " inst_seed=" + hex(s);
      ex.add(desc, [&, t, dk](unsigned d, std::string& where) {
        MpDigitsScope sc(d);
        const MM U = orthonormal_columns<mp_t>(Ug), V = to_mp(Vd);
        const VM lg = log_gates_mp(gates), sw = ref::gate_weights_sqrt(lg, t);
        MM K(t, dk), Q(t, dk);
        for (std::size_t i = 0; i < t; ++i)
          for (std::size_t j = 0; j < dk; ++j) K(i, j) = U(i, j) / sw[i];
        for (std::size_t j = 0; j < dk; ++j) Q(t - 1, j) = mp_t(qd(0, j));
        Worst w;
        const MM KGK = ref::weighted_key_gram(K, ref::gate_weights(lg, t));
        w.upd(rel_res(KGK, identity_matrix<mp_t>(dk)), "K^T Gamma K vs I");
        const MM Mw = ref::wls_state(K, V, &lg, t, ref::default_rank_tol<mp_t>(t));
        const auto rec = ref::gated_linear_attention(Q, K, V, lg);
        w.upd(rel_res(Mw, rec.state), "WLS memory vs recurrence (4) state at t=" + std::to_string(t));
        const VM yw = ref::matvec(Mw, Q.row(t - 1));
        w.upd(rel_res(yw, VM(rec.O.row(t - 1), rec.O.row(t - 1) + dv)), "outputs at t=" + std::to_string(t));
        where = w.where;
        return w.r;
      });
      ++n;
    }
  ClaimResult exact = ex.result(cfg, "D_k in {" + join(dks) + "}, t in {D_k, D_k+1, 2D_k, 3D_k+1}, G5 gates > 0 {U(0,1), Beta(5,1), constant, ones, corners, sigmoid}; P-50; " +
                                         seed_note(cfg, tag));

  // zero gap also for t < D_k when Gamma^{1/2} K has orthonormal rows (K^T Gamma K is then a projection, not I)
  double under_gap = 0;
  for (std::size_t dk : {std::size_t(3), std::size_t(4)})
    for (std::size_t t = 1; t < dk; ++t) {
      Gen g(instance_seed(cfg, std::string(tag) + "/under", dk * 10 + t));
      const MD Ug = g.gauss(dk, t), Vd = g.gauss(t, 2);
      const Gates gates = draw_gates(g, t, G5::uniform);
      MpDigitsScope sc(cfg.digits);
      const MM U = orthonormal_columns<mp_t>(Ug);  // dk x t
      const VM lg = log_gates_mp(gates), sw = ref::gate_weights_sqrt(lg, t);
      MM K(t, dk);
      for (std::size_t i = 0; i < t; ++i)
        for (std::size_t j = 0; j < dk; ++j) K(i, j) = U(j, i) / sw[i];
      under_gap = std::max(under_gap, wls_gap(K, to_mp(Vd), lg, t, ref::default_rank_tol<mp_t>(dk)).op);
    }

  // gap surface
  const std::vector<std::size_t> sdks = cfg.quick ? std::vector<std::size_t>{2, 4} : std::vector<std::size_t>{2, 4, 8};
  const std::vector<double> ratios = {0.5, 1.0, 1.5, 2.0, 4.0};
  const std::vector<double> rhos = {0.0, 0.5, 0.9, 0.99};
  const std::vector<double> scales = {-1.0, 0.0, 1.0};  // -1: D_k^{-1/2}; else 10^a
  static const G5 sk[6] = {G5::uniform, G5::beta51, G5::constant, G5::ones, G5::corners, G5::mixed_zeros};
  const int seeds = cfg.quick ? 1 : 2;
  std::map<std::pair<int, int>, std::vector<double>> by_ratio_rho;  // (ratio idx, rho idx) -> gaps
  std::map<int, std::vector<double>> by_gate, by_scale;
  int surf_n = 0, surf_skip = 0, surf_below = 0;
  double surf_min = INFINITY;
  std::string surf_min_at;
  for (std::size_t dk : sdks)
    for (std::size_t ri = 0; ri < ratios.size(); ++ri)
      for (std::size_t rj = 0; rj < rhos.size(); ++rj)
        for (std::size_t si = 0; si < scales.size(); ++si)
          for (int gi = 0; gi < 6; ++gi)
            for (int sd = 0; sd < seeds; ++sd) {
              const std::size_t t = std::max<std::size_t>(1, static_cast<std::size_t>(std::lround(ratios[ri] * dk)));
              Gen g(instance_seed(cfg, std::string(tag) + "/surface", static_cast<std::uint64_t>(surf_n++)));
              const double rho = rhos[rj];
              const double sc = scales[si] < -0.5 ? 1.0 / std::sqrt(static_cast<double>(dk)) : std::pow(10.0, scales[si]);
              MD K(t, dk);
              for (std::size_t i = 0; i < t; ++i) {
                const double c = g.normal();
                for (std::size_t j = 0; j < dk; ++j) K(i, j) = sc * (std::sqrt(1 - rho) * g.normal() + std::sqrt(rho) * c);
              }
              const MD V = g.gauss(t, 2);
              const Gates gates = draw_gates(g, t, sk[gi]);
              const PrefixCond pc = prefix_cond(K, log_gates_d(gates), t);
              const unsigned D = pdigits(cfg.digits, pc.lc, 1);
              if (D > 400) {
                ++surf_skip;
                continue;
              }
              MpDigitsScope scp(D);
              const VM lg = log_gates_mp(gates);
              const Gap<mp_t> gp = wls_gap(to_mp(K), to_mp(V), lg, t, ref::default_rank_tol<mp_t>(dk));
              by_ratio_rho[{static_cast<int>(ri), static_cast<int>(rj)}].push_back(gp.op);
              by_gate[gi].push_back(gp.op);
              by_scale[static_cast<int>(si)].push_back(gp.op);
              if (gp.op <= 1e-30) ++surf_below;
              if (gp.op < surf_min) {
                surf_min = gp.op;
                surf_min_at = "D_k=" + std::to_string(dk) + " t=" + std::to_string(t) + " rho=" + fmt(rho) + " scale=" + fmt(sc) + " " + gates.desc;
              }
            }
  ClaimFigure fig;
  fig.id = "gap_surface";
  fig.title = "Gated linear attention vs weighted LS: operator gap ||(A^+)^T - A||_F / ||A^+||_F, A = Gamma^{1/2} K";
  fig.caption = "Median over G5 gate patterns {U(0,1), Beta(5,1), constant, ones, corners, mixed zeros}, key scales {D_k^-1/2, 1, 10} and D_k in {" + join(sdks) +
                "} of the V-free gap between the WLS memory and the gated linear-attention state R^G = V^T Gamma K, against t / D_k, one curve per key "
                "correlation rho (G4). The gap vanishes exactly when every non-zero singular value of Gamma^{1/2} K equals 1.";
  fig.x_label = "t / D_k";
  fig.y_label = "median gap";
  fig.y_scale = "log";
  std::string surface;
  for (std::size_t rj = 0; rj < rhos.size(); ++rj) {
    FigureSeries s{"rho = " + fmt(rhos[rj]), {}, {}, "solid", "o", ""};
    for (std::size_t ri = 0; ri < ratios.size(); ++ri) {
      const auto it = by_ratio_rho.find({static_cast<int>(ri), static_cast<int>(rj)});
      if (it == by_ratio_rho.end()) continue;
      s.x.push_back(ratios[ri]);
      s.y.push_back(median(it->second));
      surface += "t/D_k=" + fmt(ratios[ri]) + ",rho=" + fmt(rhos[rj]) + ": " + fmt(median(it->second)) + "; ";
    }
    fig.series.push_back(s);
  }
  std::string gate_med, scale_med;
  for (int gi = 0; gi < 6; ++gi)
    if (by_gate.count(gi)) gate_med += std::string(g5_name(sk[gi])) + " " + fmt(median(by_gate[gi])) + "; ";
  for (std::size_t si = 0; si < scales.size(); ++si)
    if (by_scale.count(static_cast<int>(si))) scale_med += (scales[si] < -0.5 ? std::string("D_k^-1/2") : "10^" + fmt(scales[si])) + " " + fmt(median(by_scale[static_cast<int>(si)])) + "; ";

  // adversarial gap minimisation (fp64 Nelder-Mead over the keys, gates fixed per restart), top candidates at P-50
  struct Cand {
    double f64 = INFINITY, mp = INFINITY;
    std::string at, sv;
  };
  std::vector<Cand> cands;
  const int restarts = cfg.quick ? 2 : 8, evals = cfg.quick ? 400 : 2000;
  const std::vector<std::pair<std::size_t, std::size_t>> shapes = {{2, 1}, {2, 2}, {2, 4}, {3, 5}};
  static const G5 ak[3] = {G5::uniform, G5::beta51, G5::mixed_zeros};
  int an = 0;
  for (const auto& [dk, t] : shapes)
    for (int rs = 0; rs < restarts; ++rs) {
      Gen g(instance_seed(cfg, std::string(tag) + "/adversarial", static_cast<std::uint64_t>(an++)));
      const Gates gates = draw_gates(g, t, ak[rs % 3]);
      const std::vector<double> lgd = log_gates_d(gates);
      const MD Vd = g.gauss(t, 1);
      std::vector<double> x0(t * dk);
      for (double& x : x0) x = g.normal();
      auto obj = [&](const std::vector<double>& x) {
        MD K(t, dk);
        for (std::size_t i = 0; i < x.size(); ++i) K.a[i] = x[i];
        try {
          const double gp = wls_gap(K, Vd, lgd, t, ref::default_rank_tol<double>(std::max(t, dk))).op;
          return std::isfinite(gp) ? std::log10(std::max(gp, 1e-300)) : 10.0;
        } catch (const std::exception&) {
          return 10.0;
        }
      };
      const NmResult nm = nelder_mead(obj, x0, 0.5, evals);
      const std::vector<double>& xb = nm.x;
      Cand c;
      c.f64 = std::pow(10.0, nm.f);
      c.at = "D_k=" + std::to_string(dk) + " t=" + std::to_string(t) + " " + gates.desc;
      {
        MpDigitsScope sc(cfg.digits);
        MD K(t, dk);
        for (std::size_t i = 0; i < xb.size(); ++i) K.a[i] = xb[i];
        const VM lg = log_gates_mp(gates);
        c.mp = wls_gap(to_mp(K), to_mp(Vd), lg, t, ref::default_rank_tol<mp_t>(std::max(t, dk))).op;
        const VM sw = ref::gate_weights_sqrt(lg, t);
        MM A(t, dk);
        for (std::size_t i = 0; i < t; ++i)
          for (std::size_t j = 0; j < dk; ++j) A(i, j) = sw[i] * mp_t(K(i, j));
        const VM sv = ref::svd(A).sigma;
        c.sv = "singular values of Gamma^{1/2} K: ";
        for (std::size_t i = 0; i < sv.size(); ++i) c.sv += (i ? ", " : "") + fmt(to_d(sv[i]), 8);
      }
      cands.push_back(c);
    }
  std::sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) { return a.mp < b.mp; });
  std::string adv;
  for (std::size_t i = 0; i < std::min<std::size_t>(3, cands.size()); ++i)
    adv += (i ? " | " : "") + cands[i].at + ": gap at P-50 " + fmt(cands[i].mp) + " (fp64 objective " + fmt(cands[i].f64) + "); " + cands[i].sv;
  std::string worst_restart;
  if (!cands.empty()) worst_restart = fmt(cands.back().mp) + " (" + cands.back().at + ")";

  ClaimResult r = exact;
  r.reason = "approximation decided on its exact content (R-APPROX): " + exact.reason +
             "; with K^T Gamma K = I the WLS memory equals the gated linear-attention state. The gap vanishes exactly when every non-zero singular "
             "value of Gamma^{1/2} K is 1 (also for t < D_k with orthonormal rows of Gamma^{1/2} K, where K^T Gamma K is a projection, not I: max gap " +
             fmt(under_gap) + "); on the random surface it is O(1) (minimum " + fmt(surf_min) + ", " + std::to_string(surf_below) +
             " instances <= 1e-30), and the adversarial search (fp64 Nelder-Mead, optimum re-evaluated at P-50) drives it to " +
             (cands.empty() ? std::string("n/a") : fmt(cands[0].mp)) + " only by approaching that partial-isometry set (singular values -> 1)";
  r.evidence.extra.emplace_back("gap at constructed t < D_k partial isometries (Gamma^{1/2} K with orthonormal rows)", fmt(under_gap));
  r.evidence.extra.emplace_back("gap surface: median by t/D_k and rho", surface);
  r.evidence.extra.emplace_back("gap surface: median by gate pattern", gate_med);
  r.evidence.extra.emplace_back("gap surface: median by key scale", scale_med);
  r.evidence.extra.emplace_back("gap surface: instances, minimum, <= 1e-30",
                                std::to_string(surf_n - surf_skip) + " evaluated (" + std::to_string(surf_skip) + " skipped: > 400 digits), minimum " + fmt(surf_min) +
                                    " at " + surf_min_at + ", " + std::to_string(surf_below) + " with gap <= 1e-30");
  r.evidence.extra.emplace_back("adversarial minimisation (Nelder-Mead fp64 on log10 gap over the keys, " + std::to_string(restarts) + " restarts x " +
                                    std::to_string(shapes.size()) + " shapes, " + std::to_string(evals) + " evaluations; every optimum re-evaluated at P-50, best 3 shown)",
                                adv + "; worst restart " + worst_restart);
  r.evidence.figures.push_back(fig);
  return r;
}

}  // namespace

void register_a001_gated_linattn_as_wls(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A001-GATED-LINATTN-AS-WLS", "Gated linear attention as WLS with K^T Gamma K ~ I", descriptive, false, a001_gated_linattn_as_wls);
}

}  // namespace recall
