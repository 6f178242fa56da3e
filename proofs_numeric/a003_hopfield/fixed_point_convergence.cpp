// Paper A003 (Hu et al. 2024, nonparametric modern Hopfield models), §4.1 "Fixed Point Convergence": Lemma 4.1 and
// its proof App. B.6 (B.37)-(B.39), and the text after Cor 4.1.1 / Remark 4.3 (sparse dynamics need fewer iterations).
// Spec IDs: A003-LEMMA-4.1, A003-LEMMA-4.1-B37, A003-LEMMA-4.1-B39, A003-COR-4.1.1-ITER.
//
// Maps (recall/reference/hopfield.hpp): T_Dense (3.7) and the two readings of the sparse map (3.11), U (literal:
// softmax over all M keys, summed over the mask) and R (renormalised over the mask), delta xi = 0 (spec C5). Mask types:
// random containing mu (A003-RANDOM-MASK force_mu, Philox keyed by the claim seed), centred window (A003-SLIDING-WINDOW,
// w = k, row mu), causal window (A003-WINDOW-CAUSAL), top-K with tie policy GE (A003-TOPK) and exactly-K (A003-TOPK-EXACT);
// the top-K masks are query dependent and recomputed at every iterate from the clean scores <x_t, xi_nu>. S_mu has the
// radius R of §3.1 (over all pairs of [M]). Every reading gets its own verdict in the evidence; the headline verdict is
// the conjunction over the readings (violated if one is violated, else inconclusive if one is, else holds).
//
// A003-LEMMA-4.1 (trajectory classification: converged / cycle / open): iterations in double (P-DBL) until
//   |x_{t+1} - x_t| <= 1e-13 max(1, |x_{t+1}|), confirmed by the next step (the top-K maps jump on switching surfaces),
//   within t_max = 2000 (full 4000), with cycle detection for periods 2..8 (|x_{t+1} - x_{t+1-p}| below the same
//   tolerance). Open and cycling runs are re-run from the same start at 50 digits (t_max = max(400, twice the double
//   run's steps), at most 2500, full 5000; convergence 1e-13, cycles 1e-40). A cycle counts when it persists (amplitude
//   |x_{t+1} - x_t| >= 1e-8, same period 16 periods later) at 50 AND at 100 digits (the doubled-digit re-verification);
//   the first one decides the reading and its remaining suspects are not re-run. A run still open at 50 digits counts
//   as converging when, over its second half, its steps decrease monotonically like t^-a with a > 1.1, or with a > 0.3
//   and two-step differences ~t^-b, b > 1.1 (critical slowing down at a bifurcation). Verdict per reading: violated iff
//   a confirmed cycle, inconclusive iff a run stays open or a cycle is not confirmed, else holds.
//   Grid: G1-G3 (m = 1) at d in {2, 8, 16} (full {2, 8, 16, 64}), M in {5, 20} (full {5, 20, 100}), G4 (quick: six
//   families in d = 2; full: every family of hop_g4_family in d = 2), plus 8 (full 12) further G2 sets with d = 2, M = 20
//   (unequal norms put much softmax mass outside a mask: the regime where reading U was seen to cycle); k in
//   {2, ceil(M/2)} (full {2, ceil(M/2), M}), beta in {0.5, 2, 8, 32} (full: the C11 grid), starts Q1, Q2, Q3 (one
//   each; a cell (reading, mask type, beta) holds >= 50 runs in full); reported per (reading, mask type): counts,
//   median iterations, |x* - xi_mu| / R, the fraction with x* in S_mu and max |T(x*) - x*|.
// A003-LEMMA-4.1-B37 / -B39 (limit distance at two precisions): iterations at P-ADAPT digits
//   D = max(hop_padapt_digits(beta, 2 m max(m, |x0|)), ceil(beta Delta_mu / ln 10) + 40) and at 2D, each until the
//   relative step is <= 10^-(D-10) or below 1e-10 of |x_t - xi_mu| (t_max quick 1500, full 20000); the limit distance |x_inf - xi_mu| is evaluated as
//   |T(x_{T-1}) - xi_mu| by the cancellation-free forms of spec C9. Decision per run: "0" iff <= 10^-(D-10) max(1, m) at D
//   and <= 10^-(2D-10) max(1, m) at 2D; "positive" iff above 100 times those levels at both precisions and the two values
//   agree to 1e-6 relative; else unresolved. Verdict: violated iff a positive limit distance (the first, in generation
//   order, is the witness), holds iff every run is "0", else inconclusive. |T(xi_mu) - xi_mu| (C9) is reported too.
//   B37: T_Dense; B39: T_U and T_R with random masks (k = 2; full 1, 2, ceil(M/2)), centred windows (w = 3) and top-K (GE,
//   K = 2) masks. The witness is a positive run whose limit lies in S_mu (retrieval succeeds, yet not at xi_mu) at the
//   largest beta, else the first positive run.
//   Instances: G1 (d = 3, M = 5), G2 (d = 4, M = 5), G4 polygon-4 and simplex-3 (d = 2), in full also G1 d = 8 M = 10
//   and G3 d = 8 M = 5; beta in {1, 8, 64} (full {0.5, 1, 4, 16, 64, 128}); starts Q1, Q2 (full Q1-Q3).
// A003-COR-4.1.1-ITER (D-MC): G1 d = 16, M = 20, m = 1, random masks containing mu with k in {5, 10}, beta in
//   {1, 2, 4, 8, 16, 32}, x0 from Q2 with radius R/2, 40 (full 200) instances per cell, t_max = 5000, same start and mask
//   for the sparse and the dense run. Counts N(tau) = min{t : |x_{t+1} - x_t| <= tau max(1, |x_{t+1}|)}, tau in
//   {1e-8, 1e-12} (stationarity), and N(eps) = min{t : |x_t - xi_mu| <= eps}, eps in {1e-2 R, 1e-4 R} (retrieval; infinite
//   when never reached). The sentence is read as a universal statement, N_sparse <= N_dense on every instance (the strict
//   frequency N_sparse < N_dense is reported too); per reading and notion the frequencies of <, =, > with 99%
//   Clopper-Pearson intervals and the medians are reported; a violation (N_sparse > N_dense) is re-run at 50 digits from
//   the same start and counts when it persists there (up to 3 candidates per reading and notion).
//   Figure (requested by the issue): median N(tau = 1e-12) of T_Dense, T_U and T_R (k = 5, 10) against beta.
//
// Seeds: instances from tag_seed(cfg.seed, ID) (std::mt19937_64, explicit Box-Muller draws of hopfield_claims.hpp); the
// random masks from Philox keyed by the same seed and a running row counter: bit-reproducible for a fixed seed.
#include "recall/proofs/ledger.hpp"
#include "recall/reference/hopfield.hpp"
#include "claim_support.hpp"
#include "hopfield_claims.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
namespace hf = ref::hopfield;
using hf::Mask;
using hf::Reading;
using DV = std::vector<double>;

// ---- maps with their masks -------------------------------------------------------------------------------------

enum class MK { none, random, window, causal, topk_ge, topk_exact };
const char* mk_name(MK k) {
  switch (k) {
    case MK::none: return "dense";
    case MK::random: return "random";
    case MK::window: return "window";
    case MK::causal: return "causal-window";
    case MK::topk_ge: return "topK-GE";
    case MK::topk_exact: return "topK-exact";
  }
  return "?";
}
struct MapDef {
  Reading rd = Reading::dense;
  MK mk = MK::none;
  std::size_t k = 0;  // mask size (random, window), K (top-K)
  Mask fixed;         // the mask of the fixed types
  std::string str() const {
    if (rd == Reading::dense) return "dense";
    std::string s = std::string(hf::reading_name(rd)) + "/" + mk_name(mk) + " k=" + std::to_string(k);
    if (!fixed.empty() && fixed.size() <= 12) s += " " + hop_mask_str(fixed);
    return s;
  }
};
MapDef make_map(Reading rd, MK mk, std::size_t M, std::size_t k, std::size_t mu, std::uint64_t seed, std::uint64_t row) {
  MapDef f;
  f.rd = rd;
  f.mk = rd == Reading::dense ? MK::none : mk;
  f.k = k;
  if (f.mk == MK::random) f.fixed = hf::random_mask(M, k, seed, row, static_cast<long long>(mu));
  if (f.mk == MK::window) f.fixed = hf::sliding_window(M, mu, k);
  if (f.mk == MK::causal) f.fixed = hf::causal_window(M, mu, k);
  return f;
}
template <class S> Mask mask_at(const MapDef& f, const ref::Matrix<S>& Xi, const ref::Vector<S>& x) {
  if (f.mk == MK::topk_ge) return hf::topk_ge(hf::scores(Xi, x), f.k);
  if (f.mk == MK::topk_exact) return hf::topk_exact(hf::scores(Xi, x), f.k);
  return f.fixed;
}
template <class S> ref::Vector<S> tmap(const MapDef& f, const ref::Matrix<S>& Xi, const ref::Vector<S>& x, const S& beta) {
  return hf::retrieval_step(f.rd, Xi, x, beta, mask_at(f, Xi, x));
}
// T(x) - xi_mu by the C9 forms (mask of the top-K types taken at x, as in the step)
template <class S> ref::Vector<S> terr(const MapDef& f, const ref::Matrix<S>& Xi, const ref::Vector<S>& x, const S& beta, std::size_t mu) {
  return hf::retrieval_error(f.rd, Xi, x, beta, mask_at(f, Xi, x), mu);
}
template <class S> S vnorm(const ref::Vector<S>& v) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  S s(0);
  for (const S& x : v) s += x * x;
  return sqrt(s);
}
template <class S> S vdist(const ref::Vector<S>& a, const ref::Vector<S>& b) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  S s(0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const S t = a[i] - b[i];
    s += t * t;
  }
  return sqrt(s);
}
template <class S> double dbl(const S& x) { return ref::convert<double>(x); }
bool mu_in(const Mask& m, std::size_t mu) { return std::binary_search(m.begin(), m.end(), mu); }

// ---- trajectories ------------------------------------------------------------------------------------------------

enum class Cls { converged, cycle, open };
template <class S> struct Traj {
  Cls cls = Cls::open;
  int n = 0;       // steps taken
  int period = 0;  // of a detected cycle
  ref::Vector<S> x, prev;  // the last iterate and its predecessor
  double step = INFINITY;  // the last relative step |x_n - x_{n-1}| / max(1, |x_n|)
};
// x_{t+1} = T(x_t) from x0 until the relative step is <= conv_tol (converged), x_{t+1} returns to x_{t+1-p} within
// cyc_tol for some p in 2..8 (cycle), or t_max steps (open).
template <class S>
Traj<S> iterate(const MapDef& f, const ref::Matrix<S>& Xi, const ref::Vector<S>& x0, const S& beta, double conv_tol, double cyc_tol, int tmax,
                std::vector<double>* steps = nullptr, std::vector<double>* steps2 = nullptr) {
  Traj<S> tr;
  tr.x = x0;
  std::deque<ref::Vector<S>> hist;  // hist[j] = x_{t-j}
  const S ct(conv_tol), yt(cyc_tol);
  for (int t = 0; t < tmax; ++t) {
    ref::Vector<S> y = tmap(f, Xi, tr.x, beta);
    const S ny = vnorm(y), den = ny > 1 ? ny : S(1), dn = vdist(y, tr.x);
    tr.step = dbl(S(dn / den));
    if (steps) steps->push_back(tr.step);
    if (steps2 && !hist.empty()) steps2->push_back(dbl(S(vdist(y, hist[0]) / den)));  // |x_{t+1} - x_{t-1}|
    hist.push_front(tr.x);
    if (hist.size() > 8) hist.pop_back();
    tr.prev = std::move(tr.x);
    tr.x = std::move(y);
    tr.n = t + 1;
    // converged: a small step, confirmed by the next one (top-K maps are discontinuous: a small step can sit on a
    // switching surface where T jumps)
    if (dn <= ct * den) {
      const ref::Vector<S> z = tmap(f, Xi, tr.x, beta);
      const S nz = vnorm(z);
      if (vdist(z, tr.x) <= ct * (nz > 1 ? nz : S(1))) {
        tr.cls = Cls::converged;
        return tr;
      }
    }
    for (std::size_t p = 2; p <= hist.size(); ++p)
      if (vdist(tr.x, hist[p - 1]) <= yt * den) {
        tr.cls = Cls::cycle;
        tr.period = static_cast<int>(p);
        return tr;
      }
  }
  return tr;
}

// ---- pattern sets --------------------------------------------------------------------------------------------------

struct PSet {
  std::string name;
  DM Xi;
  double R = 0, m = 0;
};
// G1-G3 at each (d, M) (m = 1), then the G4 families for each d in g4_ds (all of them, or those named in g4_pick);
// duplicate rows (R = 0) are dropped and counted.
std::vector<PSet> pattern_sets(Rng& g, const std::vector<std::string>& gens, const std::vector<std::size_t>& ds,
                               const std::vector<std::size_t>& Ms, const std::vector<std::size_t>& g4_ds,
                               const std::vector<std::string>& g4_pick, int* dropped) {
  std::vector<PSet> out;
  auto push = [&](const std::string& name, const DM& Xi) {
    if (Xi.rows < 2 || hf::radius(Xi) <= 0) {
      if (dropped) ++*dropped;
      return;
    }
    out.push_back(PSet{name, Xi, hf::radius(Xi), hf::max_norm(Xi)});
  };
  for (std::size_t d : ds)
    for (std::size_t M : Ms)
      for (const std::string& gen : gens) push(gen + " d=" + std::to_string(d) + " M=" + std::to_string(M), hop_patterns(g, gen, M, d));
  for (std::size_t d : g4_ds)
    for (const auto& [name, Xi] : hop_g4_family(d, g))
      if (g4_pick.empty() || std::find(g4_pick.begin(), g4_pick.end(), name) != g4_pick.end())
        push(name + " d=" + std::to_string(d), Xi);
  return out;
}
std::vector<std::size_t> uniq_ks(std::vector<std::size_t> ks, std::size_t M) {
  std::vector<std::size_t> out;
  for (std::size_t k : ks)
    if (k >= 1 && k <= M) out.push_back(k);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}
std::size_t cdiv(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// headline of per-reading results: violated > inconclusive > holds, the headline part's evidence with the others in extra
// (each part's reason and, in extra, its witness)
ClaimResult conjunction(const Parts& parts) {
  ClaimResult out = combine(parts, CombineStyle{PartSummary::reason, true});
  for (const auto& [name, r] : parts)
    if (!r.evidence.witness.empty()) out.evidence.extra.emplace_back("witness, " + name, r.evidence.witness);
  return out;
}

// ---- A003-LEMMA-4.1 -------------------------------------------------------------------------------------------------

struct RunRec {
  int set = 0;
  MapDef f;
  std::size_t mu = 0;
  DV x0;
  double beta = 0;
  std::string desc;
  int n = 0;  // steps of the double run
};
// Is a cycle of period p found at `digits` persistent (amplitude >= 1e-8, the same period 16 periods later)?
// pts (optional): the points of the cycle, concatenated.
bool persistent(const MapDef& f, const MM& X, const mp_t& beta, const Traj<mp_t>& tr, DV* pts) {
  if (tr.cls != Cls::cycle || tr.step < 1e-8) return false;
  const Traj<mp_t> tr2 = iterate(f, X, tr.x, beta, 1e-13, 1e-40, 16 * tr.period + 8);
  if (pts) {
    ref::Vector<mp_t> y = tr2.x;
    for (int p = 0; p < tr.period; ++p) {
      for (const mp_t& v : y) pts->push_back(dbl(v));
      y = tmap(f, X, y, beta);
    }
  }
  return tr2.cls == Cls::cycle && tr2.period == tr.period && tr2.step >= 1e-8;
}

// An open run converges nonetheless when, over the second half of the run, (i) its relative steps decrease
// monotonically like t^-a with a > 1.1 (least squares of log step on log t: summable, a Cauchy sequence), or (ii) its
// steps decrease monotonically like t^-a with a > 0.3 (to zero) and its two-step differences |x_{t+1} - x_{t-1}| fall like
// t^-b with b > 1.1 (the even and the odd iterates converge, to one limit): critical slowing down at a bifurcation,
// e.g. two patterns at beta |xi_1 - xi_2|^2 / 4 = 1 (i), or a flip bifurcation (ii).
double tail_slope(const std::vector<double>& s, bool monotone) {
  const std::size_t n = s.size(), h = n / 2;
  if (n < 40) return 0;
  std::vector<double> lx, ly;
  for (std::size_t t = h; t < n; ++t) {
    if (!(s[t] > 0) || (monotone && t > h && s[t] > s[t - 1])) return 0;
    lx.push_back(std::log(static_cast<double>(t + 1)));
    ly.push_back(std::log(s[t]));
  }
  return ols_slope(lx, ly);
}
bool summable_tail(const std::vector<double>& s, const std::vector<double>& s2, double* slope) {
  *slope = tail_slope(s, true);
  if (*slope < -1.1) return true;
  return *slope < -0.3 && tail_slope(s2, false) < -1.1;
}

ClaimResult a003_lemma_4_1(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A003-LEMMA-4.1");
  Rng g(seed);
  const bool q = cfg.quick;
  int dropped = 0;
  const std::vector<PSet> base_sets =
      pattern_sets(g, {"G1", "G2", "G3"}, q ? std::vector<std::size_t>{2, 8, 16} : std::vector<std::size_t>{2, 8, 16, 64},
                   q ? std::vector<std::size_t>{5, 20} : std::vector<std::size_t>{5, 20, 100}, std::vector<std::size_t>{2},
                   q ? std::vector<std::string>{"G4-polygon-6", "G4-arc-pi/12-5", "G4-near-dup-1e-3", "G4-long-short", "G4-dyadic", "G4-simplex-3"}
                     : std::vector<std::string>{},
                   &dropped);
  // extra G2 sets in d = 2 with M = 20: unequal norms put much softmax mass outside a mask (where reading U can cycle)
  std::vector<PSet> sets = base_sets;
  for (int i = 0; i < (q ? 8 : 12); ++i) {
    const DM Xi = hop_patterns(g, "G2", 20, 2);
    if (hf::radius(Xi) > 0) sets.push_back(PSet{"G2 d=2 M=20 #" + std::to_string(i + 2), Xi, hf::radius(Xi), hf::max_norm(Xi)});
  }
  const std::vector<double> betas = q ? std::vector<double>{0.5, 2, 8, 32} : std::vector<double>{0.01, 0.1, 0.5, 1, 2, 4, 8, 16, 32, 64, 128};
  const std::vector<MK> kinds{MK::random, MK::window, MK::causal, MK::topk_ge, MK::topk_exact};
  const std::vector<Reading> reads{Reading::sparse_u, Reading::sparse_r};
  const int tmax = q ? 2000 : 4000, tmax_mp = q ? 2500 : 5000, nstart = 1;
  struct Agg {
    int conv = 0, cyc = 0, open = 0, in_s = 0, mu_out = 0;
    std::vector<double> iters, dist;
    double max_res = 0;
  };
  std::map<std::string, Agg> agg;                     // per reading/mask type
  std::map<int, std::vector<RunRec>> suspects;        // per reading (0 U, 1 R): open or cycling runs
  std::uint64_t row = 0;
  int runs = 0;
  for (std::size_t si = 0; si < sets.size(); ++si) {
    const PSet& P = sets[si];
    const std::size_t M = P.Xi.rows;
    const std::size_t mu = hop_below(g, M);
    const std::vector<std::size_t> ks =
        uniq_ks(q ? std::vector<std::size_t>{2, cdiv(M, 2)} : std::vector<std::size_t>{2, cdiv(M, 2), M}, M);
    std::vector<std::pair<std::string, DV>> starts;
    for (int s = 0; s < nstart; ++s)
      for (const char* qk : {"Q1", "Q2", "Q3"})
        if (s == 0 || qk[1] != '1') starts.emplace_back(qk, hop_query(g, qk, P.Xi, mu, P.R));
    for (double beta : betas)
      for (std::size_t k : ks)
        for (MK mk : kinds)
          for (int ri = 0; ri < 2; ++ri) {
            const MapDef f = make_map(reads[ri], mk, M, k, mu, seed, row++);
            Agg& A = agg[std::string(hf::reading_name(reads[ri])) + "/" + mk_name(mk)];
            for (const auto& [qn, x0] : starts) {
              if (!mu_in(mask_at(f, P.Xi, x0), mu)) {  // Lemma 4.1 assumes mu in M (top-K at the start)
                ++A.mu_out;
                continue;
              }
              ++runs;
              const Traj<double> tr = iterate(f, P.Xi, x0, beta, 1e-13, 1e-13, tmax);
              if (tr.cls == Cls::converged) {
                ++A.conv;
                A.iters.push_back(tr.n);
                const double dist = hop_norm(terr(f, P.Xi, tr.prev, beta, mu));
                A.dist.push_back(dist / P.R);
                if (dist <= P.R) ++A.in_s;
                DV tx = tmap(f, P.Xi, tr.x, beta);
                A.max_res = std::max(A.max_res, vdist(tx, tr.x));
              } else {
                (tr.cls == Cls::cycle ? A.cyc : A.open)++;
                suspects[ri].push_back(RunRec{static_cast<int>(si), f, mu, x0, beta,
                                              P.name + " mu=" + std::to_string(mu + 1) + " " + f.str() + " beta=" + fmt(beta) + " " + qn +
                                                  (tr.cls == Cls::cycle ? " (double: period " + std::to_string(tr.period) + ")" : " (double: open)"),
                                              tr.n});
              }
            }
          }
  }
  // re-runs at 50 digits (and 100 for cycles)
  Parts parts;
  for (int ri = 0; ri < 2; ++ri) {
    int conv_mp = 0, still_open = 0, unconfirmed = 0, confirmed = 0, sublinear = 0;
    std::string witness, open_ex, sub_ex;
    int not_rerun = 0;
    for (const RunRec& r : suspects[ri]) {
      if (confirmed) {  // the reading's verdict is decided: the remaining suspects are not re-run
        ++not_rerun;
        continue;
      }
      const DM& Xi = sets[r.set].Xi;
      const int tm = std::min(tmax_mp, std::max(400, 2 * r.n));  // at least twice the double run's length
      Traj<mp_t> tr;
      std::vector<double> steps, steps2;
      bool cyc = false;
      DV pts;
      int p50 = 0;
      {
        MpDigitsScope sc(50);
        const MM X = to_mp(Xi);
        tr = iterate(r.f, X, to_mp(r.x0), mp_t(r.beta), 1e-13, 1e-40, tm, &steps, &steps2);
        cyc = persistent(r.f, X, mp_t(r.beta), tr, &pts);
        p50 = tr.period;
      }
      if (cyc) {  // the doubled-digit re-verification
        MpDigitsScope sc(100);
        const MM X = to_mp(Xi);
        const Traj<mp_t> t2 = iterate(r.f, X, to_mp(r.x0), mp_t(r.beta), 1e-13, 1e-40, tm);
        cyc = persistent(r.f, X, mp_t(r.beta), t2, nullptr) && t2.period == p50;
      }
      double slope = 0;
      if (tr.cls == Cls::converged) {
        ++conv_mp;
      } else if (tr.cls == Cls::open && summable_tail(steps, steps2, &slope)) {
        ++sublinear;
        if (sub_ex.empty()) sub_ex = r.desc + " (steps ~ t^" + fmt(slope, 3) + ", last " + fmt(steps.back(), 3) + ")";
      } else if (tr.cls == Cls::cycle) {
        if (cyc) {
          ++confirmed;
          witness = r.desc + "; persistent cycle of period " + std::to_string(p50) + " at 50 and 100 digits (from the same start)";
          if (Xi.cols <= 4) witness += ", points " + hop_vec_str(pts);
        } else {
          ++unconfirmed;
        }
      } else {
        ++still_open;
        if (open_ex.empty())
          open_ex = r.desc + "; at 50 digits after " + std::to_string(tr.n) + " steps: last step " + fmt(tr.step, 3) + ", step slope " +
                    fmt(tail_slope(steps, false), 3) + ", two-step slope " + fmt(tail_slope(steps2, false), 3) +
                    (r.f.mk == MK::topk_ge || r.f.mk == MK::topk_exact ? " (query-dependent mask)" : "");
      }
    }
    ClaimResult res;
    res.evidence.statistic = "runs without convergence to a fixed point (confirmed cycles)";
    res.evidence.value = confirmed;
    res.evidence.threshold = 0;
    res.evidence.digits = 100;
    res.evidence.seed = seed;
    res.evidence.sizes = std::to_string(sets.size()) + " pattern sets";
    int n = 0;
    for (const auto& [key, A] : agg)
      if (key[0] == hf::reading_name(reads[ri])[0]) n += A.conv + A.cyc + A.open;
    res.evidence.instances = n;
    const std::string tail = std::to_string(suspects[ri].size()) + " of " + std::to_string(n) + " runs not converged in double (" +
                             std::to_string(conv_mp) + " converge at 50 digits, " + std::to_string(sublinear) +
                             " converge sublinearly (monotone steps ~t^-a, a > 1.1, or a > 0.3 with two-step differences ~t^-b, b > 1.1), " +
                             std::to_string(still_open) + " still open, " +
                             std::to_string(unconfirmed) + " cycles not persistent, " + std::to_string(confirmed) + " persistent cycle" +
                             (not_rerun ? ", " + std::to_string(not_rerun) + " not re-run after it" : "") + ")";
    if (confirmed) {
      res.verdict = Verdict::violated;
      res.evidence.witness = witness;
      res.reason = "a trajectory from S_mu cycles instead of converging: " + tail;
    } else if (still_open || unconfirmed) {
      res.verdict = Verdict::inconclusive;
      res.evidence.witness = open_ex;
      res.reason = "iteration budget exhausted: " + tail;
    } else {
      res.verdict = Verdict::holds;
      res.reason = "every trajectory converged to a fixed point: " + tail;
    }
    if (!sub_ex.empty()) res.evidence.extra.emplace_back("sublinear convergence (e.g.)", sub_ex);
    if (!open_ex.empty()) res.evidence.extra.emplace_back("still open at 50 digits (e.g.)", open_ex);
    parts.emplace_back(std::string("reading ") + hf::reading_name(reads[ri]), res);
  }
  ClaimResult out = conjunction(parts);
  out.evidence.extra.emplace_back("headline", "conjunction over the readings U and R (each reading's verdict in its part)");
  out.evidence.instances = runs;
  for (const auto& [key, A] : agg) {
    const HopQuantiles it = hop_quantiles(A.iters), ds = hop_quantiles(A.dist);
    out.evidence.extra.emplace_back(
        "runs " + key, "converged " + std::to_string(A.conv) + ", cycle " + std::to_string(A.cyc) + ", open " + std::to_string(A.open) +
                           " (double); median iterations " + fmt(it.median) + " (max " + fmt(it.max) + "); |x*-xi_mu|/R median " +
                           fmt(ds.median) + ", max " + fmt(ds.max) + "; x* in S_mu " + std::to_string(A.in_s) + "/" + std::to_string(A.conv) +
                           "; max |T(x*)-x*| " + fmt(A.max_res) + (A.mu_out ? "; skipped (mu not in M(x0)) " + std::to_string(A.mu_out) : ""));
  }
  out.evidence.extra.emplace_back("grid", "beta " + std::to_string(betas.size()) + " values, " + std::to_string(sets.size()) + " pattern sets (" +
                                              std::to_string(dropped) + " with duplicate rows dropped), starts Q1-Q3, t_max " +
                                              std::to_string(tmax) + " (double) / " + std::to_string(tmax_mp) + " (50 digits)");
  return out;
}

// ---- A003-LEMMA-4.1-B37 / -B39 --------------------------------------------------------------------------------------

struct LimitRun {
  bool converged = false;
  mp_t dist;  // |x_inf - xi_mu| (C9)
  int n = 0;
};
LimitRun limit_at(const MapDef& f, const DM& Xi, const DV& x0, double beta, std::size_t mu, unsigned digits, int tmax) {
  MpDigitsScope sc(digits);
  const MM X = to_mp(Xi);
  const mp_t b(beta), tol(std::pow(10.0, -static_cast<double>(digits) + 10.0)), rel(1e-10);
  const MV xm = to_mp(hop_row(Xi, mu));
  MV x = to_mp(x0), prev = x;
  LimitRun r;
  // until the step is at rounding level (10^-(D-10) max(1, |x|)) or below 1e-10 of the distance to xi_mu (then the
  // limit distance is known to ~1e-8 relative for contraction rates up to 0.99)
  for (int t = 0; t < tmax && !r.converged; ++t) {
    MV y = tmap(f, X, x, b);
    const mp_t st = vdist(y, x), ny = vnorm(y);
    r.converged = st <= tol * (ny > 1 ? ny : mp_t(1)) || st <= rel * vdist(y, xm);
    prev = std::move(x);
    x = std::move(y);
    r.n = t + 1;
  }
  r.dist = mp_norm(terr(f, X, prev, b, mu));
  return r;
}
struct LimitTally {
  double thr = 0;  // log10 of the "zero" level 10^-(D-10) max(1, m) of the witness (else of the last run)
  int n = 0, zero = 0, pos = 0, unres = 0, pos_in_s = 0;
  bool w_in_s = false;
  double w_beta = 0;
  std::string witness, unres_ex;
  double wv = 0, wv2 = 0, worst = -INFINITY;
  unsigned wd = 0, maxd = 0;
  std::vector<double> defect;  // log10 |T(xi_mu) - xi_mu|
};
void limit_add(LimitTally& T, const MapDef& f, const PSet& P, const DV& x0, const std::string& qn, double beta, std::size_t mu, int tmax) {
  const double spread = 2 * P.m * std::max(P.m, hop_norm(x0));
  const double Dmu = hf::separation(P.Xi, mu);
  const unsigned D = std::max(hop_padapt_digits(beta, spread), static_cast<unsigned>(std::ceil(beta * std::max(0.0, Dmu) / std::log(10.0))) + 40u);
  const LimitRun a = limit_at(f, P.Xi, x0, beta, mu, D, tmax), b = limit_at(f, P.Xi, x0, beta, mu, 2 * D, tmax);
  {
    MpDigitsScope sc(D);
    T.defect.push_back(log10_norm(terr(f, to_mp(P.Xi), to_mp(hop_row(P.Xi, mu)), mp_t(beta), mu)));
  }
  ++T.n;
  T.maxd = std::max(T.maxd, 2 * D);
  const double m1 = std::max(1.0, P.m);
  const double l1 = lg(a.dist), l2 = lg(b.dist), t1 = std::log10(m1) - (D - 10.0), t2 = std::log10(m1) - (2.0 * D - 10.0);
  T.worst = std::max(T.worst, l1);
  if (T.witness.empty()) T.thr = t1;
  const std::string desc = P.name + " mu=" + std::to_string(mu + 1) + " " + f.str() + " beta=" + fmt(beta) + " " + qn;
  if (a.converged && b.converged && l1 <= t1 && l2 <= t2) {
    ++T.zero;
  } else if (a.converged && b.converged && l1 > t1 + 2 && l2 > t2 + 2 && std::fabs(l1 - l2) <= 4.4e-7) {
    ++T.pos;
    const bool in_s = l1 <= std::log10(P.R);  // the limit lies in S_mu: retrieval succeeds, yet not at xi_mu itself
    T.pos_in_s += in_s;
    // witness: a run whose limit lies in S_mu, at the largest beta (else the first positive run)
    if (T.witness.empty() || (in_s && (!T.w_in_s || beta > T.w_beta))) {
      T.w_in_s = in_s, T.w_beta = beta;
      T.witness = desc + ": |x_inf - xi_mu| = " + fmt(std::pow(10.0, l1 - std::floor(l1)), 8) + "e" + fmt(std::floor(l1), 6) +
                  (in_s ? " (R = " + fmt(P.R, 6) + ")" : " (outside S_mu, R = " + fmt(P.R, 6) + ")") + " at " +
                  std::to_string(D) + " digits (" + std::to_string(a.n) + " steps) and at " + std::to_string(2 * D) + " digits (" +
                  std::to_string(b.n) + " steps)";
      T.wv = l1, T.wv2 = l2, T.wd = D, T.thr = t1;
    }
  } else {
    if (!T.unres++) T.unres_ex = desc + " (log10 distances " + fmt(l1) + " / " + fmt(l2) + ", converged " + std::to_string(a.converged) + "/" +
                                 std::to_string(b.converged) + ")";
  }
}
ClaimResult limit_result(const LimitTally& T, std::uint64_t seed, const std::string& sizes) {
  ClaimResult r;
  r.evidence.statistic = "log10 lim |x_t - xi_mu| (limit distance, C9)";
  r.evidence.threshold = T.thr;
  r.evidence.instances = T.n;
  r.evidence.sizes = sizes;
  r.evidence.digits = T.maxd;
  r.evidence.seed = seed;
  r.evidence.value = T.pos ? T.wv : T.worst;
  const std::string tail = std::to_string(T.pos) + " positive (" + std::to_string(T.pos_in_s) + " of them with the limit in S_mu), " +
                           std::to_string(T.zero) + " zero, " + std::to_string(T.unres) +
                           " unresolved of " + std::to_string(T.n) + " runs";
  if (T.pos) {
    r.verdict = Verdict::violated;
    r.evidence.witness = T.witness;
    r.reason = "the iterates converge to a fixed point at positive distance from xi_mu (equal at both precisions): " + tail;
    r.evidence.extra.emplace_back("witness at doubled digits", "log10 distance " + fmt(T.wv2, 10) + " (" + std::to_string(2 * T.wd) + " digits) vs " +
                                                                 fmt(T.wv, 10) + " (" + std::to_string(T.wd) + ")");
  } else if (T.unres || T.n == 0) {
    r.verdict = Verdict::inconclusive;
    r.evidence.witness = T.unres_ex;
    r.reason = "limit distance not resolved: " + tail;
  } else {
    r.verdict = Verdict::holds;
    r.reason = "every limit distance is zero at both precisions: " + tail;
  }
  const HopQuantiles q = hop_quantiles(T.defect);
  r.evidence.extra.emplace_back("log10 |T(xi_mu) - xi_mu| (C9)", "median " + fmt(q.median, 5) + ", max " + fmt(q.max, 5) + " over " + std::to_string(q.n));
  return r;
}
std::vector<PSet> limit_sets(Rng& g, bool quick) {
  std::vector<PSet> s = pattern_sets(g, {}, {}, {}, {2}, {"G4-polygon-4", "G4-simplex-3"}, nullptr);
  for (auto [gen, d, M] : std::vector<std::tuple<const char*, std::size_t, std::size_t>>{{"G1", 3, 5}, {"G2", 4, 5}, {"G1", 8, 10}, {"G3", 8, 5}}) {
    if (quick && d == 8) continue;
    const DM Xi = hop_patterns(g, gen, M, d);
    if (hf::radius(Xi) > 0) s.push_back(PSet{std::string(gen) + " d=" + std::to_string(d) + " M=" + std::to_string(M), Xi, hf::radius(Xi), hf::max_norm(Xi)});
  }
  return s;
}
ClaimResult limit_claim(const CheckConfig& cfg, const char* id, bool sparse) {
  const std::uint64_t seed = tag_seed(cfg.seed, id);
  Rng g(seed);
  const bool q = cfg.quick;
  const std::vector<PSet> sets = limit_sets(g, q);
  const std::vector<double> betas = q ? std::vector<double>{1, 8, 64} : std::vector<double>{0.5, 1, 4, 16, 64, 128};
  const int tmax = q ? 1500 : 20000;
  std::map<int, LimitTally> tally;  // 0 dense / U, 1 R
  std::uint64_t row = 0;
  for (const PSet& P : sets) {
    const std::size_t M = P.Xi.rows, mu = hop_below(g, M);
    std::vector<std::pair<std::string, DV>> starts;
    for (const char* qk : {"Q1", "Q2", "Q3"})
      if (!q || qk[1] != '3') starts.emplace_back(qk, hop_query(g, qk, P.Xi, mu, P.R));
    std::vector<std::pair<MK, std::size_t>> masks;
    if (sparse) {
      for (std::size_t k : uniq_ks(q ? std::vector<std::size_t>{2} : std::vector<std::size_t>{1, 2, cdiv(M, 2)}, M)) masks.emplace_back(MK::random, k);
      masks.emplace_back(MK::window, std::min<std::size_t>(3, M));
      masks.emplace_back(MK::topk_ge, 2);
    } else {
      masks.emplace_back(MK::none, M);
    }
    for (double beta : betas)
      for (const auto& [mk, k] : masks)
        for (int ri = 0; ri < (sparse ? 2 : 1); ++ri) {
          const MapDef f = make_map(sparse ? (ri ? Reading::sparse_r : Reading::sparse_u) : Reading::dense, mk, M, k, mu, seed, row++);
          for (const auto& [qn, x0] : starts)
            if (mu_in(f.rd == Reading::dense ? Mask{mu} : mask_at(f, P.Xi, x0), mu)) limit_add(tally[ri], f, P, x0, qn, beta, mu, tmax);
        }
  }
  const std::string sizes = std::to_string(sets.size()) + " pattern sets (G4 polygon-4, simplex-3 in d=2; G1, G2" +
                            std::string(q ? "" : ", G3") + "), " + std::to_string(betas.size()) + " betas";
  if (!sparse) return limit_result(tally[0], seed, sizes);
  Parts parts{{"reading U", limit_result(tally[0], seed, sizes)}, {"reading R", limit_result(tally[1], seed, sizes)}};
  ClaimResult out = conjunction(parts);
  out.evidence.extra.emplace_back("headline", "conjunction over the readings U and R (each reading's verdict in its part)");
  return out;
}
ClaimResult a003_lemma_4_1_b37(const CheckConfig& cfg) { return limit_claim(cfg, "A003-LEMMA-4.1-B37", false); }
ClaimResult a003_lemma_4_1_b39(const CheckConfig& cfg) { return limit_claim(cfg, "A003-LEMMA-4.1-B39", true); }

// ---- A003-COR-4.1.1-ITER ------------------------------------------------------------------------------------------

constexpr int kNever = 1 << 30;  // N = infinity
struct Counts {
  int tau[2] = {kNever, kNever}, eps[2] = {kNever, kNever};
};
// N(tau) and N(eps) of one trajectory (stops when all four are known, at a rounding-level stall or at t_max)
template <class S>
Counts count_iters(const MapDef& f, const ref::Matrix<S>& Xi, const ref::Vector<S>& x0, const S& beta, std::size_t mu, const double tau[2],
                   const double eps[2], int tmax, double stall) {
  Counts c;
  ref::Vector<S> x = x0, xm(Xi.row(mu), Xi.row(mu) + Xi.cols);
  const S d0 = vdist(x, xm);
  for (int e = 0; e < 2; ++e)
    if (d0 <= S(eps[e])) c.eps[e] = 0;
  for (int t = 0; t < tmax; ++t) {
    ref::Vector<S> y = tmap(f, Xi, x, beta);
    const S ny = vnorm(y);
    const double step = dbl(S(vdist(y, x) / (ny > 1 ? ny : S(1))));
    const S dist = vdist(y, xm);
    for (int e = 0; e < 2; ++e) {
      if (c.tau[e] == kNever && step <= tau[e]) c.tau[e] = t;
      if (c.eps[e] == kNever && dist <= S(eps[e])) c.eps[e] = t + 1;
    }
    x = std::move(y);
    if ((c.tau[1] != kNever && c.eps[1] != kNever) || step <= stall) break;
  }
  return c;
}
ClaimResult a003_cor_4_1_1_iter(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A003-COR-4.1.1-ITER");
  Rng g(seed);
  const bool q = cfg.quick;
  const int n_inst = q ? 40 : 200, tmax = 5000;
  const std::size_t d = 16, M = 20;
  const std::vector<double> betas{1, 2, 4, 8, 16, 32};
  const std::size_t kv[2] = {5, 10};
  const double tau[2] = {1e-8, 1e-12};
  // tallies: [reading 0 U / 1 R][notion 0 tau / 1 eps][level]: less, equal, greater
  struct Cmp {
    int lt = 0, eq = 0, gt = 0;
  };
  std::map<std::string, Cmp> cmp;                // key "U/tau=1e-08/k=5/beta=1"
  Cmp tot[2][2];                                   // pooled per reading and notion
  std::vector<std::pair<std::string, std::function<bool()>>> cands[2][2];  // violations to confirm at 50 digits
  std::map<std::string, std::vector<double>> med;  // median N(tau=1e-12) per map and beta for the figure
  std::uint64_t row = 0;
  for (double beta : betas)
    for (int i = 0; i < n_inst; ++i) {
      const DM Xi = hop_patterns(g, "G1", M, d);
      const double R = hf::radius(Xi);
      const std::size_t mu = hop_below(g, M);
      const DV x0 = hop_query(g, "Q2", Xi, mu, 0.5 * R);
      const double eps[2] = {1e-2 * R, 1e-4 * R};
      const MapDef fd = make_map(Reading::dense, MK::none, M, M, mu, seed, 0);
      const Counts cd = count_iters(fd, Xi, x0, beta, mu, tau, eps, tmax, 1e-16);
      med["dense"].push_back(cd.tau[1] == kNever ? INFINITY : cd.tau[1]);
      for (std::size_t k : kv) {
        const std::uint64_t mrow = row++;
        for (int ri = 0; ri < 2; ++ri) {
          const MapDef fs = make_map(ri ? Reading::sparse_r : Reading::sparse_u, MK::random, M, k, mu, seed, mrow);
          const Counts cs = count_iters(fs, Xi, x0, beta, mu, tau, eps, tmax, 1e-16);
          const std::string rn = ri ? "R" : "U";
          med[rn + " k=" + std::to_string(k)].push_back(cs.tau[1] == kNever ? INFINITY : cs.tau[1]);
          for (int nt = 0; nt < 2; ++nt)
            for (int e = 0; e < 2; ++e) {
              const int ns = nt ? cs.eps[e] : cs.tau[e], nd = nt ? cd.eps[e] : cd.tau[e];
              const std::string lvl = nt ? (e ? "eps=1e-4R" : "eps=1e-2R") : (e ? "tau=1e-12" : "tau=1e-8");
              Cmp& c = cmp[rn + "/" + lvl + "/k=" + std::to_string(k) + "/beta=" + fmt(beta)];
              Cmp& t = tot[ri][nt];
              if (ns < nd) ++c.lt, ++t.lt;
              else if (ns == nd) ++c.eq, ++t.eq;
              else {
                ++c.gt, ++t.gt;
                if (cands[ri][nt].size() < 3) {
                  const std::string desc = "G1 d=16 M=20 mu=" + std::to_string(mu + 1) + " " + fs.str() + " beta=" + fmt(beta) + " x0 = Q2(R/2), " + lvl +
                                           ": N_sparse = " + (ns == kNever ? "inf" : std::to_string(ns)) + " > N_dense = " +
                                           (nd == kNever ? "inf" : std::to_string(nd)) + " (double)";
                  cands[ri][nt].emplace_back(desc, [=]() {  // the same comparison at 50 digits
                    MpDigitsScope sc(50);
                    const MM X = to_mp(Xi);
                    const MV x = to_mp(x0);
                    const Counts a = count_iters(fs, X, x, mp_t(beta), mu, tau, eps, tmax, 1e-45);
                    const Counts b = count_iters(fd, X, x, mp_t(beta), mu, tau, eps, tmax, 1e-45);
                    return (nt ? a.eps[e] : a.tau[e]) > (nt ? b.eps[e] : b.tau[e]);
                  });
                }
              }
            }
        }
      }
    }
  Parts parts;
  for (int ri = 0; ri < 2; ++ri)
    for (int nt = 0; nt < 2; ++nt) {
      const Cmp& t = tot[ri][nt];
      const int n = t.lt + t.eq + t.gt;
      ClaimResult r;
      r.evidence.statistic = "fraction of (instance, tolerance) pairs with N_sparse > N_dense";
      r.evidence.value = n ? static_cast<double>(t.gt) / n : 0;
      r.evidence.threshold = 0;
      r.evidence.instances = n;
      r.evidence.digits = 50;
      r.evidence.seed = seed;
      r.evidence.sizes = "G1 d=16 M=20, k in {5,10}, 6 betas, " + std::to_string(n_inst) + " per cell";
      const auto [lo, hi] = hop_clopper_pearson(t.gt, std::max(1, n));
      const auto [slo, shi] = hop_clopper_pearson(t.lt, std::max(1, n));
      r.evidence.extra.emplace_back("frequencies", "N_sp < N_de " + std::to_string(t.lt) + ", = " + std::to_string(t.eq) + ", > " + std::to_string(t.gt) +
                                                       " of " + std::to_string(n) + "; P(>) 99% CP [" + fmt(lo, 4) + ", " + fmt(hi, 4) +
                                                       "], P(<) (strict reading) 99% CP [" + fmt(slo, 4) + ", " + fmt(shi, 4) + "]");
      int confirmed = 0, tried = 0;
      for (const auto& [desc, conf] : cands[ri][nt]) {
        ++tried;
        if (conf()) {
          confirmed = 1;
          r.evidence.witness = desc + "; persists at 50 digits";
          break;
        }
      }
      if (confirmed) {
        r.verdict = Verdict::violated;
        r.reason = "the sparse map needs more iterations than the dense map on " + std::to_string(t.gt) + " of " + std::to_string(n) + " comparisons";
      } else if (t.gt) {
        r.verdict = Verdict::inconclusive;
        r.reason = std::to_string(t.gt) + " double-precision violations, none of " + std::to_string(tried) + " confirmed at 50 digits";
      } else {
        r.verdict = Verdict::holds;
        r.reason = "N_sparse <= N_dense on all " + std::to_string(n) + " comparisons";
      }
      parts.emplace_back(std::string("reading ") + (ri ? "R" : "U") + (nt ? ", retrieval tolerance" : ", stationarity tolerance"), r);
    }
  ClaimResult out = conjunction(parts);
  out.evidence.extra.emplace_back("headline", "conjunction over the readings U, R and the two notions of tolerance");
  for (const auto& [key, c] : cmp)
    if (c.gt) out.evidence.extra.emplace_back("cell " + key, "< " + std::to_string(c.lt) + ", = " + std::to_string(c.eq) + ", > " + std::to_string(c.gt));
  // figure: median N(tau = 1e-12) against beta
  ClaimFigure fig;
  fig.id = "iterations_vs_beta";
  fig.title = "Iterations to a fixed point (tau = 1e-12): dense vs sparse U and R";
  fig.caption = "G1, d = 16, M = 20, random masks containing mu, x0 uniform in B(xi_mu, R/2); median over " + std::to_string(n_inst) +
                " instances per beta of N(tau) = min{t : |x_{t+1} - x_t| <= 1e-12 max(1, |x_{t+1}|)} (double).";
  fig.x_label = "beta";
  fig.y_label = "median iterations N(1e-12)";
  fig.x_scale = "log";
  for (const auto& [name, v] : med) {
    FigureSeries s;
    s.name = name;
    s.marker = name == "dense" ? "o" : name[0] == 'U' ? "s" : "^";
    s.style = name.find("k=10") != std::string::npos ? "dashed" : "solid";
    for (std::size_t b = 0; b < betas.size(); ++b) {
      const std::vector<double> part(v.begin() + static_cast<std::ptrdiff_t>(b * n_inst), v.begin() + static_cast<std::ptrdiff_t>((b + 1) * n_inst));
      s.x.push_back(betas[b]);
      s.y.push_back(hop_quantiles(part).median);
    }
    fig.series.push_back(s);
  }
  out.evidence.figures.push_back(fig);
  return out;
}

}  // namespace

void register_a003_fixed_point_convergence(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A003-LEMMA-4.1", "Sparse iterates from S_mu converge to a fixed point (Lemma 4.1), readings U and R", identity, false, a003_lemma_4_1);
  add("A003-LEMMA-4.1-B37", "Dense iterates from S_mu converge to xi_mu itself (B.37)", identity, false, a003_lemma_4_1_b37);
  add("A003-LEMMA-4.1-B39", "Sparse iterates from S_mu converge to xi_mu itself (B.39), readings U and R", identity, false, a003_lemma_4_1_b39);
  add("A003-COR-4.1.1-ITER", "Sparse dynamics need fewer iterations than dense at equal tolerance", statistical, false, a003_cor_4_1_1_iter);
}

}  // namespace recall
