// Paper A000 (associative memory), §2.2.2 after Eq. 47 and the "Summary" paragraph: as memory updates progress,
// the DeltaNet memory "converges to the fixed value S*", single-head DeltaNet "degenerates into a bi-gram model"
// and loses its in-context learning as the context grows. Simulations D1, D2 and the as-printed recurrence
// against S* of Eqs. 46 and 48 (reference/optimal_memory.hpp); shared instances in optimal_memory_claims.hpp.
// Spec ID: A000-ICL-CONV.
#include "recall/proofs/ledger.hpp"
#include "claim_support.hpp"
#include "optimal_memory_claims.hpp"

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::optmem;

// =============================================================================================
// A000-ICL-CONV, three designs (spec), fp64 simulations from S_0 = 0, W entries N(0, 1/d), Sigma mean eigenvalue 1, x = L z:
//  D1 square W_k, k = W_k x / ||W_k x||, v = W_v x / ||W_k x||, beta = 1. v = S_47 k exactly, so E||S k - v||^2 has the
//     minimiser S_47 = S_46 whatever Sigma (realisable targets). Converged: ||S_T - S*||_F <= 1e-10 ||S*||_F, also after
//     Sigma changes at T/10; rate: fitted slope of ln error per step before the floor.
//  D2 low-rank W_k, k = W_k x, v = W_v x, beta_t = c/t, c = 1/lambda_max(W_k Sigma_1 W_k^T): SGD on Eq. 45, limit S_46;
//     converging iff the log-log slope of the RMS error (R runs) has a 95% CI below 0; predicted -min(1/2, c lambda_min).
//  as printed: square W_k, unnormalised keys, step 1 (E||k||^2 = d); diverging if non-finite or the log-log slope CI is above 0.
// Each design is spot-checked at 50 digits: the mp run on the same inputs must agree with fp64 to 1e-6 of the distance to S*.
// =============================================================================================
enum class Design { d1, d2, printed };
struct Sim {
  std::size_t d = 0, dh = 0, dv = 0;
  double cond = 1, c = 1;
  DM Wk, Wv, L1, L2, S1, S2, S48;  // S1, S2: Eq. 46 for Sigma_1, Sigma_2 (double); S48: Eq. 48 for Sigma_1
};
Sim make_sim(std::size_t d, std::size_t dh, double cond, double kscale, unsigned digits, std::uint64_t seed) {
  MpDigitsScope sc(digits);
  const Inst I1 = make_inst(d, dh, cond, Kind::gauss, seed), I2 = make_inst(d, dh, cond, Kind::gauss, mix(seed, 1));
  Sim s;
  s.d = d, s.dh = dh, s.dv = dh, s.cond = cond;
  MM Wk = I1.Wk, Wv(s.dv, d);
  for (auto& x : Wk.a) x = x * mp_t(kscale) / sqrt(mp_t(d));
  for (std::size_t i = 0; i < s.dv * d; ++i) Wv.a[i] = I1.Wv.a[i] / sqrt(mp_t(d));
  s.Wk = to_f64(Wk), s.Wv = to_f64(Wv), s.L1 = to_f64(I1.L), s.L2 = to_f64(I2.L);
  const MM Sg1 = ref::matmul(to_mp(s.L1), ref::transpose(to_mp(s.L1))), Sg2 = ref::matmul(to_mp(s.L2), ref::transpose(to_mp(s.L2)));
  const MM wk = to_mp(s.Wk), wv = to_mp(s.Wv);
  s.S1 = to_f64(ref::optimal_memory(wk, wv, Sg1));
  s.S2 = to_f64(ref::optimal_memory(wk, wv, Sg2));
  s.S48 = to_f64(ref::optimal_memory_multihead(wk, wv, Sg1));
  const Eigen::MatrixXd A = to_eigen(s.Wk) * to_eigen(s.L1) * to_eigen(s.L1).transpose() * to_eigen(s.Wk).transpose();
  s.c = 1 / Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(A).eigenvalues().maxCoeff();
  return s;
}
// the recurrence of a design in scalar T; observe(t, S_t) after every step; stops at a non-finite state
template <class T>
void simulate(const Sim& s, Design D, std::size_t Tend, std::size_t switch_at, std::uint64_t seed, const std::function<bool(std::size_t, const ref::Matrix<T>&)>& observe) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  const auto Wk = ref::cast<T>(s.Wk), Wv = ref::cast<T>(s.Wv), L1 = ref::cast<T>(s.L1), L2 = ref::cast<T>(s.L2);
  ref::Matrix<T> M(s.dv, s.dh);
  ref::Vector<T> z(s.d), x(s.d), k(s.dh), v(s.dv), pred(s.dv);
  Gauss g(seed);
  for (std::size_t t = 1; t <= Tend; ++t) {
    for (auto& zi : z) zi = T(g.normal());
    ref::matvec_into(x.data(), t > switch_at ? L2 : L1, z.data());
    ref::matvec_into(k.data(), Wk, x.data());
    ref::matvec_into(v.data(), Wv, x.data());
    T beta(1);
    if (D == Design::d1) {
      const T n = sqrt(ref::dot(k.data(), k.data(), s.dh));
      for (auto& q : k) q /= n;
      for (auto& q : v) q /= n;
    }
    if (D == Design::d2) beta = T(s.c) / T(double(t));
    ref::deltanet_step(M, k.data(), v.data(), beta, pred);
    if (!ref::is_finite(M.a[0]) || !observe(t, M)) return;
  }
}
double rel_err(const DM& M, const DM& S) { return ref::frob_diff(M, S) / ref::frob(S); }
std::vector<std::size_t> checkpoints(std::size_t T) {
  std::vector<std::size_t> c;
  for (int i = 10;; ++i) {
    const auto t = static_cast<std::size_t>(std::llround(std::pow(10.0, i / 10.0)));
    if (t > T) break;
    if (c.empty() || t != c.back()) c.push_back(t);
  }
  if (c.back() != T) c.push_back(T);
  return c;
}

ClaimResult icl_design(const CheckConfig& cfg, std::uint64_t cs, Design D) {
  struct Cell { std::size_t d, dh; double cond; };
  std::vector<Cell> cells;
  if (D == Design::d2) cells = cfg.quick ? std::vector<Cell>{{4, 1, 10}, {4, 2, 10}, {16, 4, 1e2}} : std::vector<Cell>{{4, 1, 10}, {4, 2, 10}, {5, 2, 1e2}, {16, 2, 10}, {16, 4, 1e2}};
  else
    for (std::size_t d : {2, 4, 5, 16})
      for (double c : cfg.quick ? std::vector<double>{1, 1e2} : std::vector<double>{1, 1e2, 1e4}) cells.push_back({d, d, c});
  const std::size_t Tend = D == Design::d2 ? (cfg.quick ? 100000 : 1000000) : D == Design::d1 ? (cfg.quick ? 100000 : 1000000) : (cfg.quick ? 10000 : 100000);
  const int R = D == Design::d2 ? (cfg.quick ? 12 : 32) : 1;
  const auto cps = checkpoints(Tend);
  ClaimResult r;
  auto& e = r.evidence;
  e.seed = cfg.seed;
  int bad = 0, open = 0, moved = 0, floor_cells = 0;
  double smin = INFINITY, smax = -INFINITY;  // D2 slopes
  std::string witness, worst_line;
  double worst = -INFINITY;
  for (std::size_t ci = 0; ci < cells.size(); ++ci) {
    const auto [d, dh, cond] = cells[ci];
    const std::uint64_t seed = mix(cs, 100 * (static_cast<std::uint64_t>(D) + 1) + ci);
    const Sim s = make_sim(d, dh, cond, 1.0, cfg.digits, seed);
    std::vector<double> ms(cps.size(), 0.0), ms48(cps.size(), 0.0), dense;
    std::size_t died = 0, spot_t = 0;
    std::vector<std::vector<double>> per(R);
    for (int rep = 0; rep < R; ++rep) {
      std::size_t j = 0;
      simulate<double>(s, D, Tend, Tend, mix(seed, 10 + rep), [&](std::size_t t, const DM& M) {
        const double er = rel_err(M, s.S1);
        if (!std::isfinite(er)) return false;
        if (D == Design::d1) dense.push_back(er);
        if (t == cps[j]) ms[j] += er * er / R, ms48[j] += std::pow(rel_err(M, s.S48), 2) / R, per[rep].push_back(er), ++j;
        return true;
      });
      if (j < cps.size()) died = died ? std::min(died, cps[j]) : cps[j], spot_t = std::min<std::size_t>(j ? cps[j - 1] : 0, 200);
    }
    std::string line = "d=" + std::to_string(d) + " d_h=" + std::to_string(dh) + " cond(Sigma)=" + e10(cond) + ": ";
    double stat = died ? INFINITY : 0;
    bool diverging = died > 0, converging = false;
    if (died) line += "non-finite state by t = " + std::to_string(died) + " (||S_t - S*|| / ||S*|| = " + fmt(std::sqrt(ms[0])) + " at t = 10)";
    std::vector<double> lt, le;
    for (std::size_t j = 0; j < cps.size() && !died; ++j) lt.push_back(double(cps[j])), le.push_back(std::sqrt(ms[j]));
    if (!died && D == Design::d1) {
      // rate: ln error against t over the second half of the steps before the rounding floor (1e-12)
      std::size_t tf = dense.size();
      for (std::size_t t = 0; t < dense.size() && tf == dense.size(); ++t)
        if (dense[t] <= 1e-12) tf = t;
      std::vector<double> tt, ll;
      for (std::size_t t = tf / 2; t < tf; t += std::max<std::size_t>(1, tf / 4000)) tt.push_back(double(t + 1)), ll.push_back(std::log(dense[t]));
      for (std::size_t t = 0; t < dense.size(); ++t)
        if (dense[t] > 1e-4) spot_t = std::min<std::size_t>(t + 1, 2000);
      const Fit f = linear_fit(tt, ll);
      Eigen::MatrixXd C = Eigen::MatrixXd::Zero(dh, dh);  // E[k k^T] of the normalised keys (Monte Carlo, 2e4 draws)
      Gauss gc(mix(seed, 99));
      const Eigen::MatrixXd WL = to_eigen(s.Wk) * to_eigen(s.L1);
      for (int q = 0; q < 20000; ++q) {
        Eigen::VectorXd z(d);
        for (std::size_t i = 0; i < d; ++i) z(i) = gc.normal();
        const Eigen::VectorXd k = WL * z;
        C += k * k.transpose() / k.squaredNorm() / 20000.0;
      }
      const double lmin = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(C).eigenvalues().minCoeff();
      double after = 0;  // Sigma changes at T/10
      simulate<double>(s, D, Tend, Tend / 10, mix(seed, 10), [&](std::size_t t, const DM& M) { if (t == Tend) after = rel_err(M, s.S1); return true; });
      stat = f.hi;
      floor_cells += le.back() <= 1e-10;
      converging = le.back() <= 1e-10 ? after <= 1e-10 : f.hi < 0;
      diverging = f.lo > 0 || (le.back() <= 1e-10 && after > 1e-6);  // diverges, or the converged memory moves with Sigma
      line += "||S_T - S*||/||S*|| = " + fmt(le.back()) + " at T = " + std::to_string(Tend) + (tf < dense.size() ? " (floor 1e-12 reached at t = " + std::to_string(tf + 1) + ")" : "") +
              ", " + fmt(after) + " after Sigma changes at T/10; ln error per step " + fmt(f.slope, 4) + " [" + fmt(f.lo, 4) + ", " + fmt(f.hi, 4) +
              "] (regression CI; <= the mean-square rate of the slowest mode, 1/2 ln(1 - lambda_min(E[k k^T])) = " + fmt(0.5 * std::log1p(-lmin), 4) + ")";
    } else if (!died) {
      Fit f = loglog_fit(lt, le);
      if (R > 1) {  // the rate: mean of the R per-run log-log slopes (upper half of t), 95% t-interval over the independent runs
        std::vector<double> sl;
        for (const auto& p : per) sl.push_back(loglog_fit(lt, p).slope);
        double m = 0, v = 0;
        for (double q : sl) m += q / R;
        for (double q : sl) v += (q - m) * (q - m) / (R - 1);
        const double h = t975(R - 1) * std::sqrt(v / R);
        f.slope = m, f.lo = m - h, f.hi = m + h, f.points = R, f.degenerate = false;
      }
      stat = f.hi;
      converging = f.hi < 0 || le.back() <= 1e-10;
      diverging = f.lo > 0;
      spot_t = D == Design::d2 ? std::min<std::size_t>(Tend, cfg.quick ? 2000 : 20000) : cps[std::min<std::size_t>(cps.size() - 1, 5)];
      line += std::string(R > 1 ? "RMS " : "") + "||S_t - S_46||/||S_46|| = " + fmt(le.back()) + " at T = " + std::to_string(Tend) + ", log-log slope " + fmt(f.slope, 3) + " [" + fmt(f.lo, 3) + ", " + fmt(f.hi, 3) + "]" +
              (R > 1 ? " (mean over " + std::to_string(R) + " runs, t-interval)" : " (regression CI, serially correlated residuals)");
      if (D == Design::d2) {
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(to_eigen(s.Wk) * to_eigen(s.L1) * to_eigen(s.L1).transpose() * to_eigen(s.Wk).transpose());
        double e1 = 0, e2 = 0;
        std::vector<double> pt, pe;
        simulate<double>(s, D, Tend, Tend / 10, mix(seed, 10), [&](std::size_t t, const DM& M) {
          if (t > Tend / 10 && std::binary_search(cps.begin(), cps.end(), t)) pt.push_back(double(t)), pe.push_back(rel_err(M, s.S2));
          if (t == Tend) e1 = rel_err(M, s.S1), e2 = rel_err(M, s.S2);
          return true;
        });
        for (double& q : pt) q = std::log(q);
        for (double& q : pe) q = std::log(q);
        const Fit fp = linear_fit(pt, pe);
        line += " (predicted -min(1/2, c lambda_min) = " + fmt(-std::min(0.5, s.c * es.eigenvalues().minCoeff()), 3) + "); distance to S_48: " + fmt(std::sqrt(ms48.back())) +
                " (||S_46 - S_48|| / ||S_46|| = " + fmt(rel_err(s.S48, s.S1)) + "); Sigma changes at T/10: ||S_T - S_46(Sigma_2)|| = " + fmt(e2) + " ||S_46(Sigma_2)||, ||S_T - S_46(Sigma_1)|| = " +
                fmt(e1) + " ||S_46(Sigma_1)|| (||S_46(Sigma_1) - S_46(Sigma_2)|| = " + fmt(rel_err(s.S1, s.S2)) + "), post-switch slope to S_46(Sigma_2) " + fmt(fp.slope, 3) +
                (e2 < e1 && fp.hi < 0 ? ": the limit moves with Sigma" : ": no move to the new optimum resolved");
        moved += e2 < e1 && fp.hi < 0;
        smin = std::min(smin, f.slope), smax = std::max(smax, f.slope);
      }
    }
    // 50-digit spot check of the fp64 run at spot_t (first cell of each design)
    if (ci == 0 && spot_t > 0) {
      DM f64;
      MM mp;
      simulate<double>(s, D, spot_t, Tend, mix(seed, 10), [&](std::size_t t, const DM& M) { if (t == spot_t) f64 = M; return true; });
      {
        MpDigitsScope sc(cfg.digits);
        simulate<mp_t>(s, D, spot_t, Tend, mix(seed, 10), [&](std::size_t t, const MM& M) { if (t == spot_t) mp = M; return true; });
        const double drift = to_d(mp_t(ref::frob_diff(to_mp(f64), mp) / ref::frob_diff(mp, to_mp(s.S1))));
        e.extra.emplace_back("50-digit spot check", "t = " + std::to_string(spot_t) + ", " + line.substr(0, line.find(':')) + ": ||S_f64 - S_mp||_F / ||S_mp - S*||_F = " + fmt(drift) +
                                                        " (<= 1e-6 required); ||S_mp - S*||/||S*|| = " + fmt(to_d(mp_t(ref::frob_diff(mp, to_mp(s.S1)) / ref::frob(to_mp(s.S1))))));
        if (!(drift <= 1e-6)) ++open, witness = witness.empty() ? "fp64 run not confirmed at 50 digits: " + line : witness;
      }
    }
    e.extra.emplace_back(line.substr(0, line.find(':')), line.substr(line.find(':') + 2));
    if (diverging && bad++ == 0) witness = line;
    if (!diverging && !converging) ++open;
    if (stat > worst) worst = stat, worst_line = line;
  }
  e.instances = static_cast<int>(cells.size()) * R;
  e.sizes = std::to_string(cells.size()) + " cells, T = " + std::to_string(Tend) + ", " + std::to_string(R) + " run(s) each, checkpoints 10/decade";
  e.statistic = D == Design::d1 ? "largest upper 95% end of the fitted ln ||S_t - S_47||_F per step" : "largest upper 95% end of the log-log slope of ||S_t - S_46||_F in t";
  e.threshold = 0;
  e.value = worst;
  e.witness = bad ? witness : worst_line;
  r.verdict = bad ? Verdict::violated : open ? Verdict::inconclusive : Verdict::holds;
  const std::string what = D == Design::d1 ? "converges to the fixed S_47 = S_46 (v = S_47 k exactly): " + std::to_string(floor_cells) + " of " + std::to_string(cells.size()) +
                                                 " reach the rounding floor within T and stay there when Sigma changes, the others still decrease geometrically (E[k k^T] ill-conditioned)"
                           : D == Design::d2 ? "converges to S_46 (not to S_48) at a power rate t^a, a in [" + fmt(smin) + ", " + fmt(smax) +
                                                   "] (slow when c lambda_min(W_k Sigma W_k^T) is small); after Sigma changes the memory moves to the new S_46 in " +
                                                   std::to_string(moved) + " of " + std::to_string(cells.size()) + " cells (the others: not resolved within T)"
                                             : "converges";
  r.reason = bad ? std::to_string(bad) + " of " + std::to_string(cells.size()) + " cells diverge" + (D == Design::printed ? " (E||k||^2 = d_h, step 1)" : "") + "; smallest: " + witness
             : open ? std::to_string(open) + " cell(s) neither converge nor diverge within T, or the fp64 run is not confirmed at 50 digits"
                    : "every cell " + what;
  return r;
}

ClaimResult a000_icl_conv(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A000-ICL-CONV");
  Parts parts{{"D1 (square W_k, normalised keys, beta = 1)", icl_design(cfg, cs, Design::d1)},
              {"D2 (low-rank W_k, beta_t = c/t)", icl_design(cfg, cs, Design::d2)},
              {"as printed (unit step, unnormalised keys)", icl_design(cfg, cs, Design::printed)}};
  // evidence: the as-printed recurrence with keys scaled to E||k||^2 = 1
  {
    std::string txt;
    for (std::size_t d : {2, 4, 5, 16}) {
      const Sim s = make_sim(d, d, 1, 1 / std::sqrt(double(d)), cfg.digits, mix(cs, 77 + d));
      double last = NAN;
      simulate<double>(s, Design::printed, 20000, 20000, mix(cs, 78 + d), [&](std::size_t, const DM& M) { last = rel_err(M, s.S1); return std::isfinite(last); });
      txt += (txt.empty() ? "" : ", ") + std::string("d=") + std::to_string(d) + ": " + fmt(last);
    }
    parts[2].second.evidence.extra.emplace_back("keys scaled to E||k||^2 = 1 (evidence)", "||S_T - S*||/||S*|| at T = 2e4 (cond 1): " + txt);
    if (parts[2].second.verdict == Verdict::violated)
      parts[2].second.reason += "; the unit step needs beta ||k||^2 < 2 on average: with keys scaled to E||k||^2 = 1 the errors at T = 2e4 are " + txt;
  }
  auto r = combine(parts, {PartSummary::reason, false});
  r.reason = all_reasons(parts);
  r.evidence.digits = 0;
  r.evidence.extra.emplace_back("decision", "each design decided alone; the claim is violated if a design diverges, holds if all converge; the bi-gram reading is not numeric");
  return r;
}

}  // namespace

void register_a000_icl_convergence(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A000-ICL-CONV", "DeltaNet memory converges to the fixed S* (single head degenerates to a bi-gram model)", statistical, false, a000_icl_conv);
}

}  // namespace recall
