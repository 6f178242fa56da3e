// Paper A003 (Hu et al. 2024, nonparametric modern Hopfield models), §2.2 (cited from Ramsauer et al.): the
// energy-descent and stationarity statements (T1)/(T2) of the dense model, the overlap construction, one dense step as
// softmax attention (2.4), and the sub-memory energy of reading R [derived]. Log-sum-exp, the dense energy (2.2) and
// the retrieval map (2.3)/(3.7) are in dense_model.cpp.
// Spec IDs: A003-T1-T2, A003-OVERLAP-STATIONARY, A003-ATTENTION-EQUIV, A003-ENERGY-MASKED. References:
// recall/reference/hopfield.hpp (dense_energy, dense_energy_change, dense_energy_gradient, dense_retrieval, dense_error,
// masked_energy, sub_memory, sparse_r/sparse_u); softmax attention: recall/reference/nadaraya_watson.hpp
// (softmax_attention_masked).
//
// internal: true for A003-ENERGY-MASKED (a [derived] auxiliary claim of the spec: T_R is T_Dense of the sub-memory, so its
// energy descent is the concave-convex bound of our own forms; the T_U exploration is report-only); false for
// A003-T1-T2, A003-OVERLAP-STATIONARY and A003-ATTENTION-EQUIV, statements of the paper (the first two cited from
// Ramsauer et al., the third its eq. (2.4)) whose verdicts are findings.
//
// Precision and decision rules (spec C9, C10, C12):
//  * Identities (R-ID): relative residual ||a - b|| / max(1, ||a||, ||b||) <= 10^-(D0 - 10), D0 = cfg.digits (P-50), each
//    instance at its P-ADAPT digits D = max(50, ceil(beta spread / ln 10) + 30) + (D0 - 50) (hop_padapt_digits); a failure
//    is re-verified at doubled digits (IdentityCheck). Finite differences run at 2D digits with central steps
//    h = 10^-(0.6 D) / max(1, beta m^2) (truncation O(h^2 beta^2 m^3), rounding O(|E| 10^-2D / h): both far below the
//    threshold).
//  * Energy descent (T1, ENERGY-MASKED; D-ALL): the change E(x') - E(x) from dense_energy_change at D digits (never as a
//    difference of energies); a step fails when the change exceeds its rounding bound
//    b_D = 10^-(D - 10) (1 + max|a(x)| + ||x' - x|| (||x' + x|| + m)) (the max|a| term covers the normalisation error
//    that dense_energy_change carries, see the report), and a failure counts as a violation only when the step
//    recomputed at 2D digits fails too. Steps with |change| <= b_D are "unresolved" (at rounding level) and reported.
//    Tightness: the concave-convex bound E(x') - E(x) <= -||x' - x||^2 / 2 (exact for this energy) makes the ratio
//    s = (E(x') - E(x)) / (||x' - x||^2 / 2) <= -1 on resolved steps; its maximum is reported (D-TIGHT). Adversarial
//    search: maximise (E(x') - E(x)) / max(||x' - x||^2 / 2, b_D) over x in a ball of radius 2 max(m, R) (hop_search_x:
//    Q1/Q4/Q2/Q3 starts, Nelder-Mead for d <= 4, projected ascent otherwise) and over patterns and query
//    (hop_search_patterns, M = 3, d = 2); the best points start further trajectories.
//  * (T2): the finite-difference gradient of E equals x - T(x) (R-ID) at random points and at the end points of the
//    trajectories (numerical fixed points), so T(x) = x <=> grad E(x) = 0; ||grad E|| at the end points is reported.
//  * OVERLAP-STATIONARY (D-ALL): the claim holds on an instance iff max_mu ||grad|| at x = xi_mu is at rounding level,
//    <= 10^-(D - 20) max(1, m^2) (HopTally), for F = -lse (gradient -T(xi_mu)), the full energy (gradient
//    xi_mu - T(xi_mu) by C9) and the polynomial energies F(z) = -sum z^n, n = 2, 3, 4 [external]; a failure is
//    confirmed at doubled digits. The decay of ||grad E(xi_mu)|| with beta is reported.
//  * ATTENTION-EQUIV (R-ID at P-50, and at D0 + 30 digits when beta |scores| is large): column-wise T_Dense of X = Q^T
//    (rows of Q as queries, memories K), times W_V, against Softmax(beta Q K^T) V with V = K W_V, max row residual;
//    a Nelder-Mead search over (log beta, log query scale) maximises the residual.
// Instances: hop_patterns G1-G3 (the d, M grids of dense_set, support/hopfield_claims.hpp), hop_g4_family, queries
// hop_query Q1-Q5 and x ~ N(0, I); beta grid {0.1, 1, 8, 64} (quick: {1, 8, 64}, fewer sizes; T1 every third (full:
// second) instance, ENERGY-MASKED every fourth (full: second)); 200 iterations per trajectory (quick: T1 40,
// ENERGY-MASKED 30). Seeds: tag_seed(cfg.seed, ID); every draw from std::mt19937_64 words (hopfield_claims.hpp),
// reproducible.
#include "recall/proofs/ledger.hpp"
#include "recall/reference/hopfield.hpp"
#include "recall/reference/nadaraya_watson.hpp"
#include "adversarial_search.hpp"
#include "claim_support.hpp"
#include "hopfield_claims.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
namespace hf = ref::hopfield;

// the helpers shared with dense_model.cpp (pow10m, sub, mp_max_abs, fd_grad, dense_set / dense_instances,
// inst_digits) are in hopfield_claims.hpp

// ---- the energy-descent harness (T1, ENERGY-MASKED) -------------------------------------------------------
struct StepObs {
  MV xnew;
  mp_t dE, bound, half_dx2;
};
// one step x -> T(x) of the dense map of Xi at the current digits, its energy change and rounding bound
StepObs descent_step(const MM& Xi, const MV& x, const mp_t& beta) {
  StepObs o;
  o.xnew = hf::dense_retrieval(Xi, x, beta);
  o.dE = hf::dense_energy_change(Xi, x, o.xnew, beta);
  const MV dx = sub(o.xnew, x);
  MV sx = o.xnew;
  for (std::size_t i = 0; i < sx.size(); ++i) sx[i] += x[i];
  const mp_t ndx = mp_norm(dx);
  o.half_dx2 = ndx * ndx / 2;
  o.bound = pow10m(static_cast<double>(mp_digits()) - 10) * (1 + mp_max_abs(hf::scores(Xi, x)) + ndx * (mp_norm(sx) + hf::max_norm(Xi)));
  return o;
}
struct DescentTally {
  long steps = 0, resolved = 0, unresolved = 0, fixed = 0, trajectories = 0;
  int fails = 0;  // failures at D digits
  bool confirmed = false;
  std::string witness, unconfirmed_witness;
  double worst = -INFINITY, max_s = -INFINITY;  // max dE / bound, max dE / (||dx||^2 / 2) over resolved steps
  std::string worst_desc, max_s_desc;
  std::vector<MV> ends;     // end points (for T2)
  std::vector<HopInst> end_insts;
  std::map<double, std::vector<double>> to_fixed;  // per beta: steps until x' = x exactly (iters + 1: not reached)
  unsigned max_digits = 0;
};
// A trajectory of `iters` steps of the dense map of `Xi` (at P-ADAPT digits D of the instance) from in.x.
void run_trajectory(const HopInst& in, const DM& Xi, int iters, unsigned dg, DescentTally& t, const std::string& tag) {
  HopInst base = in;
  base.Xi = Xi;
  const unsigned D = inst_digits(base, dg);
  t.max_digits = std::max(t.max_digits, D);
  ++t.trajectories;
  MpDigitsScope sc(D);
  const MM X = to_mp(Xi);
  const mp_t beta(in.beta);
  MV x = to_mp(in.x);
  for (int it = 0; it < iters; ++it) {
    const StepObs o = descent_step(X, x, beta);
    ++t.steps;
    if (o.xnew == x) {  // a numerical fixed point: the energy change is exactly 0 from here on
      t.to_fixed[in.beta].push_back(it);
      t.fixed += iters - it;
      t.steps += iters - it - 1;
      break;
    }
    const double q = to_d(mp_t(o.dE / o.bound));
    const std::string at = tag + hop_desc(in) + " step " + std::to_string(it + 1);
    if (q > t.worst) t.worst = q, t.worst_desc = at;
    if (o.dE < -o.bound) {
      ++t.resolved;
      const double s = to_d(mp_t(o.dE / o.half_dx2));
      if (s > t.max_s) t.max_s = s, t.max_s_desc = at;
    } else {
      ++t.unresolved;
    }
    if (q > 1 && !t.confirmed) {
      ++t.fails;
      MpDigitsScope sc2(2 * D);
      const MV x2 = x;  // the same point, now at 2D digits
      const StepObs o2 = descent_step(to_mp(Xi), x2, mp_t(in.beta));
      if (o2.dE > o2.bound) {
        t.confirmed = true;
        t.witness = at + ": E(x') - E(x) = " + fmt(to_d(o.dE), 6) + " at " + std::to_string(D) + " digits, " + fmt(to_d(o2.dE), 6) + " at " +
                    std::to_string(2 * D);
      } else if (t.unconfirmed_witness.empty()) {
        t.unconfirmed_witness = at;
      }
    }
    x = o.xnew;
    if (it + 1 == iters) t.to_fixed[in.beta].push_back(iters + 1);
  }
  t.ends.push_back(x);
  t.end_insts.push_back(base);
}
ClaimResult descent_result(const DescentTally& t, const CheckConfig& cfg, const std::string& sizes, const std::string& what) {
  ClaimResult r;
  Evidence& e = r.evidence;
  e.statistic = "max over steps of (E(x') - E(x)) / b_D (" + what + "; > 1: the energy increases beyond rounding)";
  e.value = t.worst;
  e.threshold = 1;
  e.instances = static_cast<int>(t.trajectories);
  e.sizes = sizes;
  e.digits = t.max_digits;
  e.seed = cfg.seed;
  e.extra.emplace_back("steps", std::to_string(t.steps) + ": " + std::to_string(t.resolved) + " resolved decreases, " + std::to_string(t.unresolved) +
                                    " at rounding level (|change| <= b_D), " + std::to_string(t.fixed) + " at an exact numerical fixed point");
  e.extra.emplace_back("D-TIGHT max (E(x') - E(x)) / (||x' - x||^2 / 2) over resolved steps (concave-convex bound: <= -1)",
                       fmt(t.max_s, 10) + " at " + t.max_s_desc);
  if (t.confirmed) {
    r.verdict = Verdict::violated;
    e.witness = t.witness;
    r.reason = "the energy increases beyond rounding, confirmed at doubled digits";
  } else if (t.steps == 0) {
    r.verdict = Verdict::inconclusive;
    r.reason = "no step evaluated";
  } else if (t.fails) {
    r.verdict = Verdict::inconclusive;
    e.witness = t.unconfirmed_witness;
    r.reason = std::to_string(t.fails) + " increase(s) beyond the rounding bound at working digits not confirmed at doubled digits";
  } else {
    r.verdict = Verdict::holds;
    e.witness = t.worst_desc;
    r.reason = "no step increases the energy beyond its rounding bound (" + std::to_string(t.steps) + " steps)";
  }
  return r;
}
// the adversarial objective of the descent checks: (E(x') - E(x)) / max(||x' - x||^2 / 2, b_D) (current digits)
double descent_objective(const HopInst& in, std::string&) {
  const StepObs o = descent_step(to_mp(in.Xi), to_mp(in.x), mp_t(in.beta));
  const mp_t den = o.half_dx2 > o.bound ? o.half_dx2 : o.bound;
  return to_d(mp_t(o.dE / den));
}

// ---------------------------------------------------------------------------------------------
// A003-T1-T2
// ---------------------------------------------------------------------------------------------
ClaimResult a003_t1_t2(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A003-T1-T2");
  const int iters = cfg.quick ? 40 : 200;
  std::vector<HopInst> insts = dense_instances(dense_set(cfg), seed, cfg.quick ? 3 : 2);
  DescentTally t;
  for (const HopInst& in : insts) run_trajectory(in, in.Xi, iters, cfg.digits, t, "");
  // adversarial: over x in a ball of radius 2 max(m, R) around xi_mu, and over patterns and query (M = 3, d = 2)
  Rng g(mix(seed, 9));
  std::vector<HopInst> adv;
  for (std::size_t i = 0; i < insts.size(); i += std::max<std::size_t>(1, insts.size() / (cfg.quick ? 3 : 12))) {
    const HopInst& b = insts[i];
    adv.push_back(hop_search_x(b, descent_objective, g, cfg.quick ? 2 : 10, cfg.quick ? 30 : 150, 2 * std::max(hf::max_norm(b.Xi), hf::radius(b.Xi))));
  }
  {
    HopInst s;
    s.gen = "G1";
    s.query = "Q2";
    s.Xi = hop_patterns(g, "G1", 3, 2);
    s.mu = 0;
    s.x = hop_query(g, "Q2", s.Xi, 0, hf::radius(s.Xi));
    s.beta = 8;
    s.mask = {0, 1, 2};
    adv.push_back(hop_search_patterns(s, descent_objective, cfg.quick ? 120 : 800, 2.0));
  }
  for (const HopInst& in : adv) run_trajectory(in, in.Xi, iters, cfg.digits, t, "adversarial ");
  const std::string sizes = std::to_string(insts.size()) + " trajectories of " + std::to_string(iters) +
                            " steps (G1-G3, G4; Q1/Q2/Q5/N(0,I); beta grid) + " + std::to_string(adv.size()) + " adversarial";
  ClaimResult t1 = descent_result(t, cfg, sizes, "(T1) along T_Dense iterates");
  {  // (i) "converges well, retrieves in one step": steps until the iterate is an exact numerical fixed point, per beta
    std::string s;
    for (const auto& [b, v] : t.to_fixed) {
      const HopQuantiles q = hop_quantiles(v);
      long reached = 0;
      for (double k : v) reached += k <= iters;
      s += (s.empty() ? "" : "; ") + std::string("beta=") + fmt(b) + ": " + std::to_string(reached) + " of " + std::to_string(v.size()) +
           " reached, median " + fmt(q.median) + " steps";
    }
    t1.evidence.extra.emplace_back("(i) steps until x_{t+1} = x_t exactly at P-ADAPT digits (" + std::to_string(iters + 1) + " = not within " +
                                       std::to_string(iters) + ")",
                                   s);
  }
  // (T2): finite-difference grad E = x - T(x) at the end points and at random points
  Checker ck("max ||FD grad E - (x - T(x))|| / max(1, ||x - T(x)||) at the trajectories' end points (numerical fixed points) and at "
             "random points (Q5, N(0,I))",
             cfg.digits);
  double max_end_grad = 0;
  for (std::size_t i = 0; i < t.end_insts.size(); i += (cfg.quick ? 3 : 1)) {
    for (int kind = 0; kind < 2; ++kind) {
      HopInst in = t.end_insts[i];
      if (kind == 0) {
        MpDigitsScope sc(inst_digits(in, cfg.digits));
        for (std::size_t c = 0; c < in.x.size(); ++c) in.x[c] = to_d(t.ends[i][c]);
      }
      // the end point exactly as reached (kind 0) or the start (kind 1)
      ck.add(hop_desc(in) + (kind ? " start point" : " end point"), [&, kind, i](unsigned dg, std::string& where) {
        const unsigned D = inst_digits(in, dg);
        MpDigitsScope s2(2 * D);
        const MM X = to_mp(in.Xi);
        const mp_t b(in.beta);
        MV x(in.x.size());
        for (std::size_t c = 0; c < x.size(); ++c) {
          x[c] = mp_t(0);
          x[c] += kind == 0 ? t.ends[i][c] : mp_t(in.x[c]);
        }
        const mp_t m = hf::max_norm(X);
        const MV fd = fd_grad([&](const MV& y) { return hf::dense_energy(X, y, b); }, x, pow10m(0.6 * D) / (1 + b * m * m));
        const MV gx = hf::dense_energy_gradient(X, x, b);
        const mp_t ng = mp_norm(gx);
        if (kind == 0 && dg == cfg.digits) max_end_grad = std::max(max_end_grad, to_d(mp_norm(fd)));
        where = "||x - T(x)|| = " + fmt(to_d(ng), 3);
        return to_d(mp_t(mp_norm(sub(fd, gx)) / (ng > 1 ? ng : mp_t(1))));
      });
    }
  }
  ClaimResult t2 = ck.result(cfg, "end points and start points of the (T1) trajectories");
  t2.evidence.extra.emplace_back("max ||grad E|| (finite differences) at the end points", fmt(max_end_grad));
  return combine({{"(T1) energy descent", t1}, {"(T2) fixed points = stationary points", t2}});
}

// ---------------------------------------------------------------------------------------------
// A003-OVERLAP-STATIONARY
// ---------------------------------------------------------------------------------------------
ClaimResult a003_overlap_stationary(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A003-OVERLAP-STATIONARY");
  DenseSet S = dense_set(cfg);
  S.qs = {"Q1"};
  S.betas = cfg.quick ? std::vector<double>{0.1, 1, 8, 64} : std::vector<double>{0.01, 0.1, 1, 8, 64, 128};
  const std::vector<HopInst> insts = dense_instances(S, seed);
  // statistic per instance: max_mu ||gradient at x = xi_mu|| / max(1, m^2), for F = -lse, the full E, F = -sum z^n
  auto stat = [](int kind) {
    return [kind](const HopInst& in, std::string& note) -> double {
      const HopMP p = hop_mp(in);
      const mp_t m = hf::max_norm(p.Xi), sc = m * m > 1 ? mp_t(m * m) : mp_t(1);
      mp_t worst(0);
      for (std::size_t mu = 0; mu < p.Xi.rows; ++mu) {
        const MV xm = row_vec(p.Xi, mu);
        MV gr;
        if (kind == 0) gr = hf::dense_retrieval(p.Xi, xm, p.beta);  // -grad F = Xi Softmax(beta Xi^T x)
        else if (kind == 1) gr = hf::dense_error(p.Xi, p.Xi, xm, p.beta, mu);  // -(grad E) = T(xi_mu) - xi_mu by C9
        else {
          gr.assign(xm.size(), mp_t(0));
          const MV z = hf::scores(p.Xi, xm);
          for (std::size_t nu = 0; nu < p.Xi.rows; ++nu)
            for (std::size_t c = 0; c < xm.size(); ++c) gr[c] += kind * pow(z[nu], kind - 1) * p.Xi(nu, c);  // n z^(n-1) xi_nu, n = kind
        }
        const mp_t n = mp_norm(gr) / sc;
        if (n > worst) worst = n, note = "mu=" + std::to_string(mu + 1) + " ||grad|| = " + fmt(to_d(mp_norm(gr)), 6);
      }
      return to_d(worst);
    };
  };
  Parts parts;
  const char* names[] = {"F = -lse (gradient -T(xi_mu))", "full energy (2.2) (gradient xi_mu - T(xi_mu))", "F = -sum z^2 [external]",
                         "F = -sum z^3 [external]", "F = -sum z^4 [external]"};
  std::vector<std::pair<double, double>> decay;  // (beta, log10 ||grad E(xi_mu)||) for the G4 orthonormal pair
  for (int kind : {0, 1, 2, 3, 4}) {
    HopTally tl;
    tl.statistic = std::string("max_mu ||grad|| / max(1, m^2) at x = xi_mu (") + names[kind] + "); > 10^-(D-20): not a stationary point";
    tl.log_ratio = false;
    for (const HopInst& in : insts) {
      const double v = tl.add(in, stat(kind), "", cfg.digits);
      if (kind == 1 && in.gen == "G4-ortho-pair") decay.emplace_back(in.beta, std::log10(v));
    }
    parts.push_back({names[kind], tl.result(cfg, std::to_string(insts.size()) + " pattern sets (G1-G3, G4) x beta grid, every mu, P-50", seed)});
  }
  ClaimResult r = combine(parts, {PartSummary::instances_witness});
  std::string dd;
  for (const auto& [b, l] : decay) dd += (dd.empty() ? "" : ", ") + std::string("beta=") + fmt(b) + ": " + fmt(l, 4);
  r.evidence.extra.emplace_back("decay of log10 max_mu ||grad E(xi_mu)|| with beta (G4 orthonormal pair: exactly log10(sqrt2 / (1 + e^beta)))", dd);
  return r;
}

// ---------------------------------------------------------------------------------------------
// A003-ATTENTION-EQUIV
// ---------------------------------------------------------------------------------------------
struct AttnInst {
  std::string desc;
  DM Rraw, Y, WQ, WK, WV;
  double beta;
};
MM attn_lhs(const AttnInst& a, const mp_t& beta, double qscale) {  // column-wise T_Dense on X = Q^T, transposed, times W_V
  MM Q = ref::matmul(to_mp(a.Rraw), to_mp(a.WQ));
  for (mp_t& v : Q.a) v *= mp_t(qscale);
  const MM K = ref::matmul(to_mp(a.Y), to_mp(a.WK));
  MM Qn(Q.rows, Q.cols);
  for (std::size_t i = 0; i < Q.rows; ++i) {
    const MV t = hf::dense_retrieval(K, row_vec(Q, i), beta);
    for (std::size_t c = 0; c < Q.cols; ++c) Qn(i, c) = t[c];
  }
  return ref::matmul(Qn, to_mp(a.WV));
}
MM attn_rhs(const AttnInst& a, const mp_t& beta, double qscale) {  // Softmax(beta Q K^T) V, V = K W_V
  MM Q = ref::matmul(to_mp(a.Rraw), to_mp(a.WQ));
  for (mp_t& v : Q.a) v *= mp_t(qscale);
  const MM K = ref::matmul(to_mp(a.Y), to_mp(a.WK));
  return ref::softmax_attention_masked(Q, K, ref::matmul(K, to_mp(a.WV)), beta, false);
}
unsigned attn_digits(const AttnInst& a, double beta, double qscale, unsigned dg) {
  const DM Q = ref::matmul(a.Rraw, a.WQ), K = ref::matmul(a.Y, a.WK);
  double amax = 0;
  for (std::size_t i = 0; i < Q.rows; ++i)
    for (std::size_t j = 0; j < K.rows; ++j) amax = std::max(amax, std::fabs(ref::dot(Q.row(i), K.row(j), Q.cols)));
  return hop_padapt_digits(beta * qscale, 2 * amax) + (dg > 50 ? dg - 50 : 0);
}
ClaimResult a003_attention_equiv(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A003-ATTENTION-EQUIV");
  Rng g(seed);
  struct Sz { std::size_t L, M, dR, dY, d, dV; };
  std::vector<Sz> sizes = {{1, 1, 1, 1, 1, 1}, {2, 3, 2, 2, 2, 1}, {4, 8, 3, 5, 4, 2}, {8, 32, 6, 4, 8, 3}};
  if (!cfg.quick) sizes.insert(sizes.end(), {{16, 64, 8, 8, 8, 8}, {64, 256, 4, 4, 16, 4}});
  std::vector<AttnInst> insts;
  for (const Sz& s : sizes)
    for (double beta : {1e-3, 1.0 / std::sqrt(static_cast<double>(s.d)), 1.0, 30.0})
      for (int kind = 0; kind < 3; ++kind) {  // Gaussian; a zero query row (all-equal scores); equal key rows
        AttnInst a;
        Gauss gg(g());
        a.Rraw = gauss_matrix(s.L, s.dR, gg);
        a.Y = gauss_matrix(s.M, s.dY, gg);
        a.WQ = gauss_matrix(s.dR, s.d, gg, 1 / std::sqrt(static_cast<double>(s.dR)));
        a.WK = gauss_matrix(s.dY, s.d, gg, 1 / std::sqrt(static_cast<double>(s.dY)));
        a.WV = gauss_matrix(s.d, s.dV, gg);
        if (kind == 1)
          for (std::size_t c = 0; c < s.dR; ++c) a.Rraw(0, c) = 0;
        if (kind == 2)
          for (std::size_t r = 1; r < s.M; ++r)
            for (std::size_t c = 0; c < s.dY; ++c) a.Y(r, c) = a.Y(0, c);
        a.beta = beta;
        a.desc = "L=" + std::to_string(s.L) + " M=" + std::to_string(s.M) + " d_R=" + std::to_string(s.dR) + " d_Y=" + std::to_string(s.dY) +
                 " d=" + std::to_string(s.d) + " d_V=" + std::to_string(s.dV) + " beta=" + fmt(beta, 4) +
                 (kind == 1 ? " zero query row 1" : kind == 2 ? " equal key rows" : "");
        insts.push_back(std::move(a));
      }
  Checker ck("max over rows of ||(T_Dense(X))^T W_V - Softmax(beta Q K^T) V|| / max(1, norms), V = K W_V", cfg.digits);
  for (const AttnInst& a : insts)
    ck.add(a.desc, [&](unsigned dg, std::string& where) {
      MpDigitsScope sc(attn_digits(a, a.beta, 1.0, dg));
      std::size_t row = 0;
      const double r = rowrel(attn_lhs(a, mp_t(a.beta), 1.0), attn_rhs(a, mp_t(a.beta), 1.0), &row);
      where = "row " + std::to_string(row + 1);
      return r;
    });
  // adversarial: Nelder-Mead over (log10 beta, log10 query scale) on the mid-size instance, maximising the residual
  const AttnInst& base = insts[std::min<std::size_t>(insts.size() - 1, 8)];
  auto obj = [&](const std::vector<double>& p) {
    const double beta = std::pow(10.0, std::clamp(p[0], -4.0, 3.0)), qs = std::pow(10.0, std::clamp(p[1], -3.0, 2.0));
    MpDigitsScope sc(attn_digits(base, beta, qs, cfg.digits));
    return -std::log10(std::max(1e-300, rowrel(attn_lhs(base, mp_t(beta), qs), attn_rhs(base, mp_t(beta), qs))));
  };
  const NmResult nm = nelder_mead(obj, {0.0, 0.0}, 1.0, cfg.quick ? 30 : 150);
  const double bb = std::pow(10.0, std::clamp(nm.x[0], -4.0, 3.0)), qq = std::pow(10.0, std::clamp(nm.x[1], -3.0, 2.0));
  ck.add(base.desc + " adversarial beta=" + fmt(bb, 6) + " query scale=" + fmt(qq, 6), [&](unsigned dg, std::string&) {
    MpDigitsScope sc(attn_digits(base, bb, qq, dg));
    return rowrel(attn_lhs(base, mp_t(bb), qq), attn_rhs(base, mp_t(bb), qq));
  });
  ClaimResult r = ck.result(cfg, std::to_string(insts.size()) + " instances (L <= " + (cfg.quick ? "8" : "64") + ", M <= " + (cfg.quick ? "32" : "256") +
                                     "; beta {1e-3, 1/sqrt d, 1, 30}; zero query rows, equal keys) + 1 adversarial (" + std::to_string(nm.evals) + " evaluations)");
  return r;
}

// ---------------------------------------------------------------------------------------------
// A003-ENERGY-MASKED
// ---------------------------------------------------------------------------------------------
ClaimResult a003_energy_masked(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A003-ENERGY-MASKED");
  const int iters = cfg.quick ? 30 : 200;
  const std::vector<HopInst> base = dense_instances(dense_set(cfg), seed, cfg.quick ? 4 : 2);
  std::vector<HopInst> insts;
  for (std::size_t i = 0; i < base.size(); ++i) {
    HopInst in = base[i];
    const std::size_t M = in.Xi.rows, k = i % 3 == 0 ? 1 : i % 3 == 1 ? (M + 1) / 2 : M;
    in.mask = hf::random_mask(M, k, seed, i, static_cast<long long>(in.mu));
    insts.push_back(in);
  }
  // identity: masked_energy = dense_energy of the sub-memory; T_R = T_Dense of the sub-memory
  Checker ck("max relative residual of E_M(x) (masked_energy) vs dense_energy(sub-memory) and T_R vs T_Dense(sub-memory)", cfg.digits);
  for (const HopInst& in : insts)
    ck.add(hop_desc(in), [&](unsigned dg, std::string&) {
      MpDigitsScope sc(inst_digits(in, dg));
      const HopMP p = hop_mp(in);
      const MM Xs = hf::sub_memory(p.Xi, in.mask);
      return std::max(screl(hf::masked_energy(p.Xi, in.mask, p.x, p.beta), hf::dense_energy(Xs, p.x, p.beta)),
                      vecrel(hf::sparse_r(p.Xi, p.x, p.beta, in.mask), hf::dense_retrieval(Xs, p.x, p.beta)));
    });
  // descent of E_M along T_R iterates = the T1 harness on the sub-memory
  DescentTally t;
  for (const HopInst& in : insts) {
    const DM Xs = hf::sub_memory(in.Xi, in.mask);
    if (Xs.rows >= 1) run_trajectory(in, Xs, iters, cfg.digits, t, "");
  }
  ClaimResult dsc = descent_result(t, cfg, std::to_string(insts.size()) + " trajectories of " + std::to_string(iters) + " steps, masks of size 1, ceil(M/2), M containing mu",
                                   "E_M along T_R iterates, fixed mask");
  // exploratory (report only): along T_U iterates, how often E, E_M and E + beta^-1 log s_M increase
  long steps = 0, inc_E = 0, inc_EM = 0, inc_corr = 0;
  for (std::size_t i = 0; i < insts.size(); i += 2) {
    const HopInst& in = insts[i];
    MpDigitsScope sc(inst_digits(in, cfg.digits));
    const HopMP p = hop_mp(in);
    const MM Xs = hf::sub_memory(p.Xi, in.mask);
    MV x = p.x;
    for (int it = 0; it < std::min(iters, 20); ++it) {
      const MV xn = hf::sparse_u(p.Xi, x, p.beta, in.mask);
      const mp_t dE = hf::dense_energy_change(p.Xi, x, xn, p.beta), dEM = hf::dense_energy_change(Xs, x, xn, p.beta);
      const mp_t dls = hf::log_mask_mass(p.beta, hf::scores(p.Xi, xn), in.mask) - hf::log_mask_mass(p.beta, hf::scores(p.Xi, x), in.mask);
      const mp_t bnd = descent_step(p.Xi, x, p.beta).bound * 4;  // rounding bound of the changes at this x (as in T1)
      ++steps;
      inc_E += dE > bnd;
      inc_EM += dEM > bnd;
      inc_corr += mp_t(dE + dls / p.beta) > bnd;
      x = xn;
    }
  }
  ClaimResult r = combine({{"E_M = dense energy of the sub-memory, T_R = its T_Dense", ck.result(cfg, std::to_string(insts.size()) + " instances")},
                           {"descent of E_M along T_R", dsc}});
  r.evidence.extra.emplace_back("exploratory (no claim): steps of T_U (fixed mask) that increase E / E_M / E + beta^-1 log s_M beyond rounding",
                                std::to_string(inc_E) + " / " + std::to_string(inc_EM) + " / " + std::to_string(inc_corr) + " of " + std::to_string(steps));
  return r;
}

}  // namespace

void register_a003_dense_dynamics(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A003-T1-T2", "(T1) dense iterates do not increase E; (T2) fixed points = stationary points", inequality, false, a003_t1_t2);
  add("A003-OVERLAP-STATIONARY", "Memories are stationary points of E = F(Xi^T x)", inequality, false, a003_overlap_stationary);
  add("A003-ATTENTION-EQUIV", "One dense step on projected queries times W_V = Softmax(beta Q K^T) V (2.4)", identity, false, a003_attention_equiv);
  add("A003-ENERGY-MASKED", "Sub-memory energy E_M does not increase along T_R iterates [derived]", inequality, true, a003_energy_masked);
}

}  // namespace recall
