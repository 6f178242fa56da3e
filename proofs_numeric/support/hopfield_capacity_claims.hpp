// Monte-Carlo machinery of the Lemma 4.2 claims (proofs_numeric/a003_hopfield/capacity.cpp; the Clopper-Pearson interval
// also in separation_geometry.cpp): the Lemma 4.2 parameter cells and grid, nested G1 samples grown one pattern at a time
// with the running minimal separation Delta_min, Delta_1 and minimal distance (Def. 4.1, stable form), the nested trial
// that returns the largest M at which the events E-all (B.45) and E-one (B.48) hold (both monotone in M), near-threshold
// re-evaluation at P-50, the per-cell trial budget (a discarded pilot fixes the number of trials), the `stored` search of
// the E-op event, the per-event D-MC decision over cells (two-sided 99% Clopper-Pearson; a cell fails iff the upper end is
// below the claimed probability) and the simulated Lemma 4.2 cells. Namespace claim_support::hcap, internal linkage and no
// `inline` hints, like claim_support.hpp. Rows of the M x d samples are the patterns (0-based; reported 1-based).
#pragma once

#include "recall/proofs/ledger.hpp"
#include "recall/reference/hopfield.hpp"
#include "recall/reference/hopfield_capacity.hpp"
#include "claim_support.hpp"
#include "binomial_ci.hpp"
#include "hopfield_claims.hpp"


#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace recall::claim_support::hcap {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

namespace hf = ref::hopfield;

struct Cell {
  unsigned d = 8;
  double m = 1, beta = 1, p = 0.1;
  unsigned k = 1;
  double R = 0.5;
};
std::string cell_str(const Cell& c) {
  return "d=" + std::to_string(c.d) + " m=" + fmt(c.m) + " beta=" + fmt(c.beta) + " p=" + fmt(c.p) + " k=" + std::to_string(c.k) +
         " R=" + fmt(c.R);
}
hf::Lemma42Params<mp_t> mp_params(const Cell& c) {
  hf::Lemma42Params<mp_t> P;
  P.d = c.d;
  P.m = mp_t(c.m);
  P.beta = mp_t(c.beta);
  P.p = mp_t(c.p);
  P.k = c.k;
  P.R = mp_t(c.R);
  return P;
}
// ln M_lb at P-50
double log_mlb(const Cell& c, unsigned digits) {
  MpDigitsScope sc(digits);
  const auto P = mp_params(c);
  return to_d(hf::log_capacity_lb(P.d, P.p, hf::lambert_c(P).C));
}
double theta_d(double M, const Cell& c, double R) { return hf::separation_threshold<double>(M, c.k, c.m, R, c.beta); }

// The Lemma 4.2 grid (R < m)
std::vector<Cell> lemma_grid() {
  std::vector<Cell> g;
  for (unsigned d : {8u, 16u, 32u, 64u})
    for (double m : {1.0, 3.0, 10.0})
      for (double beta : {0.5, 1.0, 4.0, 16.0, 100.0})
        for (double p : {0.01, 0.1})
          for (unsigned k : {1u, 2u, 8u, 16u})
            for (double R : {0.05, 0.3, 1.0, 3.0})
              if (R < m) g.push_back(Cell{d, m, beta, p, k, R});
  return g;
}

// ---- nested G1 samples --------------------------------------------------------------------------------------------------

struct Sample {
  std::size_t d = 0, n = 0;
  double m = 1;
  std::vector<double> X, sq;  // rows, squared norms
  double dmin = INFINITY, d1 = INFINITY, chord2 = INFINITY;  // Delta_min, Delta_1, min ||xi_mu - xi_nu||^2
  std::vector<double> dmin_at;  // dmin after n patterns (index n), when requested
};
// add one G1 pattern (radius m) and update Delta_min, Delta_1 and the minimal squared distance; work += n d
void grow(Sample& s, Rng& g, long& work) {
  const std::vector<double> u = hop_unit(g, s.d);
  const std::size_t n = s.n;
  s.X.resize((n + 1) * s.d);
  double q = 0;
  for (std::size_t c = 0; c < s.d; ++c) {
    s.X[n * s.d + c] = s.m * u[c];
    q += s.X[n * s.d + c] * s.X[n * s.d + c];
  }
  s.sq.push_back(q);
  const double* x = &s.X[n * s.d];
  for (std::size_t nu = 0; nu < n; ++nu) {
    const double* y = &s.X[nu * s.d];
    double d2 = 0;
    for (std::size_t c = 0; c < s.d; ++c) {
      const double t = x[c] - y[c];
      d2 += t * t;
    }
    const double half = 0.5 * (q - s.sq[nu]);
    const double t_new = 0.5 * d2 + half, t_old = 0.5 * d2 - half;  // Delta terms of (new, nu) and (nu, new)
    s.dmin = std::min(s.dmin, std::min(t_new, t_old));
    s.chord2 = std::min(s.chord2, d2);
    if (nu == 0) s.d1 = std::min(s.d1, t_old);
  }
  work += static_cast<long>(n * s.d);
  ++s.n;
}
// Delta_min and Delta_1 of the first n rows in MP (re-evaluation of a near-threshold event)
std::pair<mp_t, mp_t> deltas_mp(const Sample& s, std::size_t n) {
  DM X(n, s.d);
  std::copy(s.X.begin(), s.X.begin() + static_cast<std::ptrdiff_t>(n * s.d), X.a.begin());
  const MM Y = to_mp(X);
  return {hf::min_separation(Y).delta, hf::separation(Y, 0)};
}

struct Nested {
  long all = 1, one = 1;   // largest n at which E-all / E-one hold (1: fail at n = 2); == cap when they hold at the cap
  bool near = false;       // a decisive comparison within 1e-8 of the threshold
  bool near_flip = false;  // ... whose P-50 re-evaluation disagrees with double
};
// Grow up to `cap` patterns, stopping at the first size where both events fail; theta[n] for n = 2..cap.
Nested nested_trial(Rng& g, const Cell& c, long cap, const std::vector<double>& theta, long& work, unsigned digits, Sample* keep = nullptr) {
  Sample s;
  s.d = c.d;
  s.m = c.m;
  Nested r;
  bool all_ok = true, one_ok = true;
  grow(s, g, work);
  for (long n = 2; n <= cap && (all_ok || one_ok); ++n) {
    grow(s, g, work);
    const double th = theta[static_cast<std::size_t>(n)];
    for (int ev = 0; ev < 2; ++ev) {
      bool& ok = ev == 0 ? all_ok : one_ok;
      if (!ok) continue;
      const double v = ev == 0 ? s.dmin : s.d1;
      bool pass = v >= th;
      if (std::fabs(v - th) <= 1e-8 * std::fabs(th)) {
        r.near = true;
        MpDigitsScope sc(digits);
        const auto [a, b] = deltas_mp(s, static_cast<std::size_t>(n));
        const bool mp_pass = (ev == 0 ? a : b) >= hf::separation_threshold<mp_t>(mp_t(n), c.k, mp_t(c.m), mp_t(c.R), mp_t(c.beta));
        if (mp_pass != pass) r.near_flip = true;
        pass = mp_pass;
      }
      if (pass) (ev == 0 ? r.all : r.one) = n;
      else ok = false;
    }
  }
  if (keep) *keep = std::move(s);
  return r;
}

// the per-cell trial count: a pilot of 4 trials (discarded) -> n = min(nmax, W / mean work); 0 (cell not simulated) when
// n < nmin or a pilot trial costs more than W / nmin, so a cell never costs much more than W
struct Budget {
  double W;
  long nmin, nmax;
};
Budget budget(bool quick) { return quick ? Budget{1.5e6, 30, 200} : Budget{1.5e7, 50, 1000}; }
long plan_trials(const std::function<long(Rng&)>& trial_work, std::uint64_t seed, const Budget& b) {
  Rng g(mix(seed, 0xB1107ULL));
  double tot = 0;
  for (int i = 0; i < 4; ++i) {
    const long w = trial_work(g);
    if (static_cast<double>(w) > b.W / static_cast<double>(b.nmin)) return 0;
    tot += static_cast<double>(w);
  }
  const long n = std::min(b.nmax, static_cast<long>(b.W / std::max(1.0, tot / 4)));
  return n < b.nmin ? 0 : n;
}

// ---- E-op: the stored search -------------------------------------------------------------------------------------------

// max over the ball ||x - xi_mu|| <= R of ||T(x) - xi_mu|| / R for reading r (estimate from below)
// (quick: starts Q1, Q4 at r = R, one Q3, 30 evaluations each; full: hop_ascent_starts with 2 random, 40 each)
double stored_ratio(const DM& Xi, std::size_t mu, const hf::Mask& mask, hf::Reading r, double beta, double R, Rng& g, bool quick) {
  const auto f = [&](const std::vector<double>& x) { return hop_norm(hf::retrieval_error<double>(r, Xi, x, beta, mask, mu)); };
  std::vector<std::vector<double>> starts;
  if (quick) starts = {hop_query(g, "Q1", Xi, mu, R), hop_query(g, "Q4", Xi, mu, R, 1.0), hop_query(g, "Q3", Xi, mu, R)};
  else starts = hop_ascent_starts(g, Xi, mu, R, 2);
  const HopAscent a = hop_ball_ascent(f, starts, hop_row(Xi, mu), R, quick ? 30 : 40);
  return a.f / R;
}

// ---- one Lemma 4.2 cell -----------------------------------------------------------------------------------------------------

struct EventTally {
  long succ = 0, n = 0;
};
struct CellRun {
  Cell c;
  long M = 0, trials = 0;
  double lnM = 0;
  EventTally all, one, op;
  bool op_run = false, near = false, near_flip = false;
  std::vector<long> mstar_all;  // per-trial largest n with E-all (capped)
};
CellRun run_cell(const Cell& c, long M, long cap, std::uint64_t seed, const CheckConfig& cfg, bool with_op) {
  CellRun cr;
  cr.c = c;
  cr.M = M;
  std::vector<double> theta(static_cast<std::size_t>(cap) + 1, 0.0);
  for (long n = 2; n <= cap; ++n) theta[static_cast<std::size_t>(n)] = theta_d(static_cast<double>(n), c, c.R);
  const Budget b = budget(cfg.quick);
  long w0 = 0;
  cr.trials = plan_trials([&](Rng& g) { long w = 0; nested_trial(g, c, cap, theta, w, cfg.digits); return w; }, seed, b);
  (void)w0;
  if (cr.trials == 0) return cr;
  Rng g(seed);
  const long n_op = cfg.quick ? 12 : 30;
  for (long t = 0; t < cr.trials; ++t) {
    long w = 0;
    Sample s;
    const Nested r = nested_trial(g, c, cap, theta, w, cfg.digits, with_op && t < n_op ? &s : nullptr);
    cr.near = cr.near || r.near;
    cr.near_flip = cr.near_flip || r.near_flip;
    cr.mstar_all.push_back(r.all);
    ++cr.all.n;
    ++cr.one.n;
    cr.all.succ += r.all >= M ? 1 : 0;
    cr.one.succ += r.one >= M ? 1 : 0;
    if (with_op && t < n_op) {  // E-op on the first M patterns of the sample (grown further when the trial stopped early)
      while (static_cast<long>(s.n) < M) {
        long w2 = 0;
        grow(s, g, w2);
      }
      DM Xi(static_cast<std::size_t>(M), c.d);
      std::copy(s.X.begin(), s.X.begin() + static_cast<std::ptrdiff_t>(M * c.d), Xi.a.begin());
      bool ok = true;
      for (std::size_t mu = 0; mu < static_cast<std::size_t>(M) && ok; ++mu) {
        const hf::Mask mask = hf::random_mask(static_cast<std::size_t>(M), c.k, mix(seed, 77 + static_cast<std::uint64_t>(t)), mu, static_cast<long long>(mu));
        for (hf::Reading rd : {hf::Reading::sparse_u, hf::Reading::sparse_r})
          ok = ok && stored_ratio(Xi, mu, mask, rd, c.beta, c.R, g, cfg.quick) <= 1.0;
      }
      ++cr.op.n;
      cr.op.succ += ok ? 1 : 0;
      cr.op_run = true;
    }
  }
  return cr;
}

// Decision of one event over the cells: a cell fails iff CP upper < claimed
struct EventDecision {
  explicit EventDecision(std::string n) : name(std::move(n)) {}
  std::string name;
  int cells = 0, failed = 0, straddle = 0, holdcells = 0, inconclusive = 0;
  long trials = 0;
  double worst_gap = -INFINITY;  // max over cells of claimed - frequency
  std::string witness, worst;
  void add(const std::string& desc, const EventTally& t, double claimed, bool flip) {
    if (t.n == 0) return;
    ++cells;
    trials += t.n;
    const auto [lo, hi] = cp99(t.succ, t.n);
    const double f = static_cast<double>(t.succ) / static_cast<double>(t.n);
    const std::string s = desc + ": " + std::to_string(t.succ) + "/" + std::to_string(t.n) + " = " + fmt(f, 4) + " (99% CP [" + fmt(lo, 4) +
                          ", " + fmt(hi, 4) + "]) vs " + fmt(claimed, 6);
    if (flip) ++inconclusive;
    else if (hi < claimed) {
      if (failed++ == 0) witness = s;
    } else if (lo >= claimed) ++holdcells;
    else ++straddle;
    if (claimed - f > worst_gap) worst_gap = claimed - f, worst = s;
  }
  ClaimResult result(const std::string& statistic, const std::string& sizes) const {
    ClaimResult r;
    Evidence& e = r.evidence;
    e.statistic = statistic;
    e.value = worst_gap;
    e.threshold = 0;
    e.instances = static_cast<int>(trials);
    e.sizes = sizes;
    e.witness = failed ? witness : worst;
    e.extra.emplace_back(name + " cells", std::to_string(cells) + ": " + std::to_string(failed) + " failing (CP upper < claimed), " +
                                              std::to_string(holdcells) + " with CP lower >= claimed, " + std::to_string(straddle) +
                                              " straddling, " + std::to_string(inconclusive) + " with a near-threshold disagreement");
    if (cells == 0) {
      r.verdict = Verdict::inconclusive;
      r.reason = "no cell could be simulated within the budget";
    } else if (failed) {
      r.verdict = Verdict::violated;
      r.reason = std::to_string(failed) + " of " + std::to_string(cells) + " cells with the 99% CP upper end below the claimed probability";
    } else if (inconclusive) {
      r.verdict = Verdict::inconclusive;
      r.reason = "a near-threshold event was not confirmed at P-50";
    } else {
      r.verdict = Verdict::holds;
      r.reason = "no cell's 99% CP upper end is below the claimed probability (" + std::to_string(straddle) + " cells straddle it)";
    }
    return r;
  }
};

// the cells simulated for Lemma 4.2 / B53 and their runs (recomputed on every call: the suite's reproducibility check
// runs a claim twice and must see two independent computations)
struct LemmaRuns {
  std::vector<CellRun> runs;
  int feasible = 0, skipped_budget = 0, vacuous = 0;  // vacuous: cap_of < 2 (B53: right-hand side <= 0 at M = 2)
  double span_lo = INFINITY, span_hi = 0;  // 2 m R beta over the simulated cells
};
LemmaRuns lemma_runs(const CheckConfig& cfg, long (*cap_of)(const Cell&, long M), const char* tag) {
  LemmaRuns L;
  const std::uint64_t seed = tag_seed(cfg.seed, tag);
  std::size_t idx = 0;
  int quick_pick = 0, op_cells = 0;
  for (const Cell& c : lemma_grid()) {
    const std::size_t ci = idx++;
    const double lm = log_mlb(c, cfg.digits);
    const long M = lm < std::log(2.0) ? 0 : static_cast<long>(std::floor(std::exp(lm)));
    if (M < 2 || M > 10000) continue;
    ++L.feasible;
    if (cfg.quick && (M > 40 || c.d > 32 || (quick_pick++ % 3) != 0)) continue;
    const bool op = M <= 12 && c.d <= 16 && static_cast<long>(c.k) <= M && std::string(tag) == "A003-LEMMA-4.2" && op_cells < (cfg.quick ? 4 : 12);
    op_cells += op ? 1 : 0;
    const long cap = cap_of(c, M);
    if (cap < 2) {
      ++L.vacuous;
      continue;
    }
    CellRun cr = run_cell(c, M, cap, mix(seed, ci), cfg, op);
    cr.lnM = lm;
    if (cr.trials == 0) {
      ++L.skipped_budget;
      continue;
    }
    const double s = 2 * c.m * c.R * c.beta;
    L.span_lo = std::min(L.span_lo, s);
    L.span_hi = std::max(L.span_hi, s);
    L.runs.push_back(std::move(cr));
  }
  return L;
}
long cap_at_M(const Cell&, long M) { return M; }

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::hcap
