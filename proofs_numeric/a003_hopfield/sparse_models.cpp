// Paper A003 (Hu et al. 2024, nonparametric modern Hopfield models), §3.1-§3.2: the two readings of the
// sparse-structured map (3.11), their relation, and the random and window masks (random with fixed size and Bernoulli,
// centred and causal sliding windows). The top-K masks, the separation quantities, the generalized-fixed-point /
// storage / eps-retrieval predicates and the disjointness of the S_mu are in topk_separation_fixed_points.cpp.
// Spec IDs: A003-SPARSE-U, A003-SPARSE-R, A003-SPARSE-UR-IDENTITY, A003-RANDOM-MASK, A003-RANDOM-MASK-BERN,
// A003-SLIDING-WINDOW, A003-WINDOW-CAUSAL. References: recall/reference/hopfield.hpp (one implementation of every map
// and mask).
// The D-EQ "fast vs reference" parts of these items are the registry ops' agreement tests; here every check
// evaluates the definitions and the derived properties of each item's check line.
//
// internal = true for every item here: definitions and identities between this project's own forms (SPARSE-U, SPARSE-R,
// SPARSE-UR-IDENTITY, the masks): a failure is a bug in hopfield.hpp.
//
// Decision rules and precision:
//  * SPARSE-U / SPARSE-R / UR-IDENTITY (D-ALL on identities, R-ID): relative residuals ||a - b|| / max(1, ||a||, ||b||)
//    <= 10^-(D0 - 10), D0 = cfg.digits, every instance evaluated at its P-ADAPT digits (spec C10:
//    max(50, ceil(beta spread / ln 10) + 30), shifted by D0 - 50), a failure re-verified at doubled digits.
//    The C9 error forms (sparse_u_error, sparse_r_error) are compared with the naive difference T(x) - xi_mu formed at
//    P-ADAPT + log10(m / ||err||) + 10 digits (no cancellation left), relative to ||err|| and divided by the condition
//    number of the C9 sum (sum of |terms| / ||err||). k = M (and k = 1 for R) are checked bit for bit. UR-IDENTITY also
//    runs at P-DBL: relative error <= 16 u kappa, kappa = 1 + sum_nu w_nu ||xi_nu|| / ||T_U|| + 2 beta max|a|.
//  * Masks: exact set / integer predicates against brute-force definitions (no rounding); the statistical parts are
//    D-MC with 99% family-wise (Bonferroni) two-sided Clopper-Pearson intervals and chi-square goodness-of-fit tests:
//    P(nu in M_i) = k/M (uniform), (k-1)/(M-1) (force_mu), uniformity over k-subsets (M <= 7), Bernoulli keep rate
//    1 - rho and Binomial(M, 1 - rho) row sizes; 1e4 (fixed size) / 2e4 (Bernoulli) rows per configuration in quick mode,
//    1e6 in full mode (M = 1000: a fifth, fixed size in full mode a twentieth).
// Instances (SPARSE-U, SPARSE-R, UR-IDENTITY): hop_patterns G1-G3 and hop_g4_family (support/hopfield_claims.hpp),
// queries Q1-Q5 (hop_query), masks of hop_grid_instances (random masks containing mu of sizes {1, 2, ceil(M/2), M}
// plus the top-K mask), a quarter of them replaced by uniform random masks (mu possibly outside, the U error's second
// C9 branch), half with keys Xi_delta = Xi + 0.01 N(0, I) (C5 sweep). Quick: d in {2, 5}, M in {2, 3, 10}, G4 at d = 2,
// beta in {1, 32}, Q1 / Q2, every third instance; full: d in {2, 3, 8, 16}, M in {2, 3, 10, 30, 100}, G4 at d in
// {2, 3, 8}, beta in {0.1, 1, 8, 64}, Q1 / Q2 / Q3 / Q4. The masks: the (M, k), (M, rho) and (L, w) grids in each check.
// Seeds: tag_seed(cfg.seed, ID) (+ mix per configuration); masks from Philox4x32-10 keyed by (seed, row).
#include "recall/proofs/ledger.hpp"
#include "recall/reference/hopfield.hpp"
#include "adversarial_search.hpp"
#include "claim_support.hpp"
#include "hopfield_claims.hpp"

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/chi_squared.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
namespace hf = ref::hopfield;
namespace bm = boost::math;
using ref::Matrix;
using ref::Vector;
// ---------------------------------------------------------------------------------------------
// the mask predicates and the D-MC helpers (99% Clopper-Pearson, chi-square; Bonferroni over the tests); ExactTally,
// the exact-predicate tally, is in hopfield_claims.hpp
// ---------------------------------------------------------------------------------------------
std::string mask_str(const hf::Mask& m, std::size_t cap = 12) {  // 1-based (spec C3)
  std::string s = "{";
  for (std::size_t i = 0; i < m.size() && i < cap; ++i) s += (i ? "," : "") + std::to_string(m[i] + 1);
  if (m.size() > cap) s += ",... (" + std::to_string(m.size()) + ")";
  return s + "}";
}
bool sorted_distinct_in(const hf::Mask& m, std::size_t M) {
  for (std::size_t i = 0; i < m.size(); ++i)
    if (m[i] >= M || (i && m[i] <= m[i - 1])) return false;
  return true;
}

// D-MC: frequencies x_j / n against claimed probabilities p_j, two-sided Clopper-Pearson intervals at family
// level 99% (Bonferroni over all the tests the claim adds), and chi-square goodness-of-fit tests at the same level.
struct McTally {
  struct Test {
    std::string desc;
    bool ci;              // a proportion (Clopper-Pearson) or a chi-square test
    double n, x, p;       // proportion: trials, successes, claimed probability
    double pval;          // chi-square: p-value
  };
  std::vector<Test> tests;
  void proportion(const std::string& desc, double n, double x, double p) { tests.push_back({desc, true, n, x, p, 1.0}); }
  // observed vs expected counts (cells with expectation < 5 pooled with the next ones)
  void chisq(const std::string& desc, const std::vector<double>& obs, const std::vector<double>& expd) {
    double s = 0, o = 0, e = 0;
    int cells = 0;
    for (std::size_t i = 0; i < obs.size(); ++i) {
      o += obs[i];
      e += expd[i];
      if (e >= 5 || i + 1 == obs.size()) {
        if (e > 0) s += (o - e) * (o - e) / e, ++cells;
        o = e = 0;
      }
    }
    const double p = cells >= 2 ? bm::cdf(bm::complement(bm::chi_squared_distribution<double>(cells - 1), s)) : 1.0;
    tests.push_back({desc + " (chi-square " + fmt(s, 4) + ", " + std::to_string(cells - 1) + " df)", false, 0, 0, 0, p});
  }
  ClaimResult result(const CheckConfig& cfg, const std::string& sizes) {
    const double alpha = 0.01 / static_cast<double>(std::max<std::size_t>(1, tests.size()));
    ClaimResult r;
    Evidence& e = r.evidence;
    e.statistic = "max over the tests of the claimed value's distance from the estimate in units of the 99% family-wise (Bonferroni) two-sided "
                  "Clopper-Pearson interval's half-width on its side (chi-square tests: alpha / p-value)";
    e.threshold = 1;
    e.instances = static_cast<int>(tests.size());
    e.sizes = sizes;
    e.seed = cfg.seed;
    double worst = -1;
    std::string wdesc, first_fail;
    for (auto& t : tests) {
      double q;
      std::string d = t.desc;
      if (t.ci) {
        const double lo = t.x > 0 ? bm::binomial_distribution<double>::find_lower_bound_on_p(t.n, t.x, alpha / 2) : 0.0;
        const double hi = t.x < t.n ? bm::binomial_distribution<double>::find_upper_bound_on_p(t.n, t.x, alpha / 2) : 1.0;
        const double ph = t.x / t.n;
        if (t.p >= ph) q = hi > ph ? (t.p - ph) / (hi - ph) : (t.p > ph ? INFINITY : 0.0);
        else q = ph > lo ? (ph - t.p) / (ph - lo) : INFINITY;
        d += ": " + fmt(ph, 6) + " in [" + fmt(lo, 6) + ", " + fmt(hi, 6) + "] vs claimed " + fmt(t.p, 6);
      } else {
        q = t.pval > 0 ? alpha / t.pval : INFINITY;
        d += ", p-value " + fmt(t.pval, 3);
      }
      if (q > worst) worst = q, wdesc = d;
      if (q > 1 && first_fail.empty()) first_fail = d;
    }
    e.value = worst;
    e.extra.emplace_back("family-wise level", "99% over " + std::to_string(tests.size()) + " tests (per-test alpha " + fmt(alpha, 3) + ")");
    if (tests.empty()) {
      r.verdict = Verdict::inconclusive;
      r.reason = "no test";
    } else if (!first_fail.empty()) {
      r.verdict = Verdict::violated;
      e.witness = first_fail;
      r.reason = "a 99% family-wise interval excludes the claimed value";
    } else {
      r.verdict = Verdict::holds;
      e.witness = wdesc;
      r.reason = "every 99% family-wise interval contains the claimed value (worst test as the witness)";
    }
    return r;
  }
};

// ---------------------------------------------------------------------------------------------
// A003-RANDOM-MASK
// ---------------------------------------------------------------------------------------------
ClaimResult a003_random_mask(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A003-RANDOM-MASK");
  struct Cfg { std::size_t M, k; };
  const std::vector<Cfg> grid = {{1, 1}, {2, 1}, {3, 2}, {5, 1}, {10, 1}, {10, 5}, {30, 3}, {100, 10}, {100, 50}, {1000, 100}};
  // structure: size k, sorted distinct in range, force_mu membership, determinism (same (seed, row): same mask)
  ExactTally ex;
  const int rows = cfg.quick ? 100 : 500;
  for (const auto& c : grid)
    for (std::size_t k : {std::size_t{0}, std::size_t{1}, c.k, c.M})
      for (int row = 0; row < rows; ++row) {
        const std::uint64_t s = mix(seed, c.M * 7919 + k);
        const hf::Mask m = hf::random_mask(c.M, k, s, static_cast<std::uint64_t>(row));
        const bool ok = m.size() == k && sorted_distinct_in(m, c.M) && m == hf::random_mask(c.M, k, s, static_cast<std::uint64_t>(row));
        ex.check(ok, [&] { return "uniform M=" + std::to_string(c.M) + " k=" + std::to_string(k) + " row " + std::to_string(row + 1) + ": " + mask_str(m); });
        if (k == 0) continue;
        const std::size_t mu = static_cast<std::size_t>(row) % c.M;
        const hf::Mask f = hf::random_mask(c.M, k, s, static_cast<std::uint64_t>(row), static_cast<long long>(mu));
        ex.check(f.size() == k && sorted_distinct_in(f, c.M) && std::binary_search(f.begin(), f.end(), mu), [&] {
          return "force_mu M=" + std::to_string(c.M) + " k=" + std::to_string(k) + " mu=" + std::to_string(mu + 1) + ": " + mask_str(f);
        });
      }
  ClaimResult structure = ex.result(cfg, "masks with a wrong size, order, range, force_mu membership or not reproducible", "(M,k) grid x k in {0,1,k,M} x " + std::to_string(rows) + " rows, both modes",
                                    "every mask has exactly k sorted distinct indices in [1, M], contains mu in mode force_mu and is reproduced by (seed, row)");
  // D-MC: P(nu in M_i) = k/M (uniform), (k-1)/(M-1) for nu != mu (force_mu); k-subset uniformity for small M
  McTally mc;
  const double draws = cfg.quick ? 1e4 : 1e6;
  int ci = 0;
  for (const auto& c : grid) {
    if (c.M < 2) continue;
    const double n = c.M >= 1000 ? draws / (cfg.quick ? 5 : 20) : draws;
    for (int mode = 0; mode < 2; ++mode) {
      const std::uint64_t s = mix(seed, 1000 + ++ci);
      std::vector<double> cnt(c.M, 0.0);
      for (std::uint64_t row = 0; row < static_cast<std::uint64_t>(n); ++row)
        for (std::size_t j : hf::random_mask(c.M, c.k, s, row, mode ? 0 : -1)) cnt[j] += 1;
      for (std::size_t j = mode; j < c.M; ++j) {
        const double p = mode ? double(c.k - 1) / double(c.M - 1) : double(c.k) / double(c.M);
        if (p == 0 || p == 1) {
          if (cnt[j] != p * n) mc.proportion("degenerate", n, cnt[j], p);
          continue;
        }
        mc.proportion(std::string(mode ? "force_mu (mu=1)" : "uniform") + " M=" + std::to_string(c.M) + " k=" + std::to_string(c.k) + " index " +
                          std::to_string(j + 1) + " inclusion",
                      n, cnt[j], p);
      }
    }
  }
  for (const auto& c : std::vector<Cfg>{{4, 2}, {5, 2}, {6, 3}, {7, 1}}) {
    const std::uint64_t s = mix(seed, 5000 + c.M);
    std::map<std::uint64_t, double> by;
    for (std::uint64_t row = 0; row < static_cast<std::uint64_t>(draws); ++row) {
      std::uint64_t b = 0;
      for (std::size_t j : hf::random_mask(c.M, c.k, s, row)) b |= std::uint64_t{1} << j;
      by[b] += 1;
    }
    std::vector<double> obs, expd;
    std::size_t nsub = 0;
    for (std::uint64_t b = 0; b < (std::uint64_t{1} << c.M); ++b)
      if (static_cast<std::size_t>(__builtin_popcountll(b)) == c.k) ++nsub;
    for (std::uint64_t b = 0; b < (std::uint64_t{1} << c.M); ++b)
      if (static_cast<std::size_t>(__builtin_popcountll(b)) == c.k) {
        obs.push_back(by.count(b) ? by[b] : 0.0);
        expd.push_back(draws / static_cast<double>(nsub));
      }
    mc.chisq("k-subset uniformity M=" + std::to_string(c.M) + " k=" + std::to_string(c.k) + " over " + std::to_string(nsub) + " subsets", obs, expd);
  }
  ClaimResult stats = mc.result(cfg, fmt(draws, 2) + " draws per (M,k,mode) (M=1000: " + (cfg.quick ? "a fifth" : "a twentieth") + "), Philox rows 1..n of a tagged seed");
  return combine({{"structure", structure}, {"D-MC inclusion frequencies and subset uniformity", stats}});
}

// ---------------------------------------------------------------------------------------------
// A003-RANDOM-MASK-BERN
// ---------------------------------------------------------------------------------------------
ClaimResult a003_random_mask_bern(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A003-RANDOM-MASK-BERN");
  struct Cfg { std::size_t M; double rho; };
  const std::vector<Cfg> grid = {{1, 0.5}, {3, 0.2}, {10, 0.2}, {10, 0.5}, {10, 0.8}, {30, 0.5}, {100, 0.8}, {1000, 0.2}};
  ExactTally ex;
  for (std::size_t M : {1, 2, 10, 97})
    for (int row = 0; row < 50; ++row) {
      const hf::Mask all = hf::random_mask_bernoulli(M, 0.0, seed, static_cast<std::uint64_t>(row));
      const hf::Mask none = hf::random_mask_bernoulli(M, 1.0, seed, static_cast<std::uint64_t>(row));
      const hf::Mask half = hf::random_mask_bernoulli(M, 0.5, seed, static_cast<std::uint64_t>(row));
      ex.check(all.size() == M && none.empty() && sorted_distinct_in(half, M) && half == hf::random_mask_bernoulli(M, 0.5, seed, static_cast<std::uint64_t>(row)),
               [&] { return "M=" + std::to_string(M) + " row " + std::to_string(row + 1) + ": rho=0 " + mask_str(all) + ", rho=1 " + mask_str(none); });
    }
  {  // C13 on an empty row: reading U returns 0, reading R throws
    MpDigitsScope sc(cfg.digits);
    MM Xi(3, 2);
    Xi(0, 0) = 1, Xi(1, 1) = 1, Xi(2, 0) = -1;
    const MV x = {mp_t(0.5), mp_t(0.25)};
    const MV u = hf::sparse_u(Xi, x, mp_t(2), hf::Mask{});
    bool threw = false;
    try {
      (void)hf::sparse_r(Xi, x, mp_t(2), hf::Mask{});
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    ex.check(u[0] == 0 && u[1] == 0 && threw, [] { return std::string("empty row (rho = 1): reading U must return 0 and reading R throw (C13)"); });
  }
  ClaimResult structure = ex.result(cfg, "failed exact mask predicates (rho = 0: all, rho = 1: empty, sorted, reproducible; C13 on an empty row)",
                                    "M in {1,2,10,97} x 50 rows", "rho = 0 keeps all M, rho = 1 none, masks sorted and reproducible; empty rows: U gives 0, R throws");
  McTally mc;
  const double draws = cfg.quick ? 2e4 : 1e6;
  int ci = 0;
  for (const auto& c : grid) {
    const double n = c.M >= 1000 ? draws / 5 : draws;
    const std::uint64_t s = mix(seed, ++ci);
    std::vector<double> cnt(c.M, 0.0), sizes(c.M + 1, 0.0);
    for (std::uint64_t row = 0; row < static_cast<std::uint64_t>(n); ++row) {
      const hf::Mask m = hf::random_mask_bernoulli(c.M, c.rho, s, row);
      sizes[m.size()] += 1;
      for (std::size_t j : m) cnt[j] += 1;
    }
    const std::string cf = "M=" + std::to_string(c.M) + " rho=" + fmt(c.rho);
    for (std::size_t j = 0; j < c.M; j += (c.M > 100 ? 37 : 1)) mc.proportion(cf + " index " + std::to_string(j + 1) + " kept", n, cnt[j], 1 - c.rho);
    std::vector<double> expd(c.M + 1);
    const bm::binomial_distribution<double> B(static_cast<double>(c.M), 1 - c.rho);
    for (std::size_t s2 = 0; s2 <= c.M; ++s2) expd[s2] = n * bm::pdf(B, static_cast<double>(s2));
    mc.chisq(cf + " row sizes vs Binomial(M, 1 - rho)", sizes, expd);
  }
  ClaimResult stats = mc.result(cfg, fmt(draws, 2) + " rows per (M, rho) (M=1000: a fifth; every 37th index tested there)");
  return combine({{"structure", structure}, {"D-MC keep frequencies and Binomial row sizes", stats}});
}

// ---------------------------------------------------------------------------------------------
// A003-SLIDING-WINDOW, A003-WINDOW-CAUSAL (brute-force set definitions, every row, boundary flags, w > L)
// ---------------------------------------------------------------------------------------------
hf::Mask range_mask(long long lo, long long hi, std::size_t L) {
  hf::Mask m;
  for (long long j = std::max(lo, 0LL); j <= std::min(hi, static_cast<long long>(L) - 1); ++j) m.push_back(static_cast<std::size_t>(j));
  return m;
}
std::vector<std::size_t> window_widths(std::size_t L, bool quick) {
  std::vector<std::size_t> ws;
  for (std::size_t w = 1; w <= L + 2; ++w)
    if (!quick || L <= 97 || w <= 40 || w % 23 == 0 || w + 2 >= L) ws.push_back(w);
  ws.push_back(2 * L);
  ws.push_back(2 * L + 1);
  return ws;
}
ClaimResult a003_sliding_window(const CheckConfig& cfg) {
  ExactTally ex;
  std::vector<std::size_t> Ls = {1, 2, 3, 4, 5, 16, 96, 97, 720};
  if (!cfg.quick) Ls.push_back(1000);
  for (std::size_t L : Ls)
    for (std::size_t w : window_widths(L, cfg.quick))
      for (std::size_t i = 0; i < L; ++i) {
        const long long h0 = static_cast<long long>((w - 1) / 2), h1 = static_cast<long long>(w / 2), ii = static_cast<long long>(i);
        const hf::Mask want = range_mask(ii - h0, ii + h1, L);
        const hf::Mask got = hf::sliding_window(L, i, w);
        const long long ww = static_cast<long long>(std::min(w, L));
        const long long lo = std::clamp(ii - h0, 0LL, static_cast<long long>(L) - ww);
        const hf::Mask wants = range_mask(lo, lo + ww - 1, L);
        const hf::Mask gots = hf::sliding_window(L, i, w, true);
        const bool ok = got == want && gots == wants && gots.size() == static_cast<std::size_t>(ww) && std::binary_search(gots.begin(), gots.end(), i) &&
                        (ii - h0 < 0 || ii + h1 > static_cast<long long>(L) - 1 || gots == got);
        ex.check(ok, [&] {
          return "L=" + std::to_string(L) + " w=" + std::to_string(w) + " row " + std::to_string(i + 1) + ": truncate " + mask_str(got) + " (want " +
                 mask_str(want) + "), shift " + mask_str(gots) + " (want " + mask_str(wants) + ")";
        });
      }
  // default size: ceil / floor sqrt(L) in integers
  for (std::size_t L = 1; L <= (cfg.quick ? 20000u : 1000000u); ++L) {
    const std::size_t c = hf::window_size(L), f = hf::window_size(L, true);
    ex.check(f * f <= L && (f + 1) * (f + 1) > L && c * c >= L && (c - 1) * (c - 1) < L,
             [&] { return "window_size(L=" + std::to_string(L) + ") = " + std::to_string(c) + " (floor flag " + std::to_string(f) + ")"; });
  }
  ClaimResult r = ex.result(cfg, "rows whose mask differs from the set definition {j: i - floor((w-1)/2) <= j <= i + ceil((w-1)/2)} (truncated, or slid inward to min(w, L) keys with flag shift), plus wrong default sizes",
                            "L in {1,2,3,4,5,16,96,97,720" + std::string(cfg.quick ? "" : ",1000") + "}, every row, w = 1..L+2 (quick: a subset for L = 720), 2L, 2L+1; default w for L <= " +
                                (cfg.quick ? std::string("2e4") : std::string("1e6")),
                            "every row matches the centred-window definition with both boundary flags (shift: exactly min(w, L) keys containing the row), and w = ceil/floor sqrt(L)");
  r.evidence.extra.emplace_back("default w = ceil(sqrt(L)) at the App. E.4 horizons 96/192/336/720",
                                std::to_string(hf::window_size(96)) + "/" + std::to_string(hf::window_size(192)) + "/" + std::to_string(hf::window_size(336)) + "/" +
                                    std::to_string(hf::window_size(720)) + " (the experiments use 8/12/14/16; explicit w covers them)");
  return r;
}
ClaimResult a003_window_causal(const CheckConfig& cfg) {
  ExactTally ex;
  std::vector<std::size_t> Ls = {1, 2, 3, 16, 96, 97, 720};
  if (!cfg.quick) Ls.push_back(1000);
  for (std::size_t L : Ls)
    for (std::size_t w : window_widths(L, cfg.quick))
      for (std::size_t i = 0; i < L; ++i) {
        const long long ii = static_cast<long long>(i);
        const hf::Mask want = range_mask(ii - static_cast<long long>(w) + 1, ii, L);
        const hf::Mask got = hf::causal_window(L, i, w);
        ex.check(got == want && got.size() == std::min(w, i + 1) && got.back() == i, [&] {
          return "L=" + std::to_string(L) + " w=" + std::to_string(w) + " row " + std::to_string(i + 1) + ": " + mask_str(got) + " (want " + mask_str(want) + ")";
        });
      }
  return ex.result(cfg, "rows whose mask differs from {j: i - w + 1 <= j <= i} (diagonal included, early rows truncated)",
                   "L in {1,2,3,16,96,97,720" + std::string(cfg.quick ? "" : ",1000") + "}, every row, w = 1..L+2 (quick: a subset for L = 720), 2L, 2L+1",
                   "every row keeps exactly {max(1, i-w+1), ..., i} (1-based), min(w, i) keys, the diagonal last");
}

// ---------------------------------------------------------------------------------------------
// instances of the model identities (SPARSE-U, SPARSE-R, UR-IDENTITY)
// ---------------------------------------------------------------------------------------------
struct ModelInst {
  HopInst in;
  DM keys;           // Xi_delta (= Xi when noise is off)
  bool noisy = false;
  std::string desc;
};
std::vector<ModelInst> model_instances(const CheckConfig& cfg, std::uint64_t seed) {
  HopGrid G;
  if (cfg.quick) {
    G.ds = {2, 5};
    G.Ms = {2, 3, 10};
    G.g4_ds = {2};
    G.betas = {1, 32};
    G.queries = {"Q1", "Q2"};
  } else {
    G.ds = {2, 3, 8, 16};
    G.Ms = {2, 3, 10, 30, 100};
    G.g4_ds = {2, 3, 8};
    G.betas = {0.1, 1, 8, 64};
    G.queries = {"Q1", "Q2", "Q3", "Q4:0.5", "Q4:1"};
  }
  const std::vector<HopInst> grid = hop_grid_instances(G, seed);
  std::vector<ModelInst> out;
  Rng g(mix(seed, 1));
  for (std::size_t i = 0; i < grid.size(); ++i) {
    if (cfg.quick && i % 3) continue;
    ModelInst m;
    m.in = grid[i];
    const std::size_t M = m.in.Xi.rows;
    if (i % 4 == 1 && m.in.mask.size() < M) {  // uniform mask: mu possibly outside (C9 second branch of U)
      m.in.mask = hf::random_mask(M, m.in.mask.size(), mix(seed, 2), i);
      m.in.query += " uniform-mask";
    }
    m.keys = m.in.Xi;
    if (i % 2 == 1) {
      m.noisy = true;
      for (double& x : m.keys.a) x += 0.01 * hop_normal(g);
    }
    m.desc = hop_desc(m.in) + (m.noisy ? " keys=Xi+0.01N(0,I)" : "");
    out.push_back(std::move(m));
  }
  return out;
}
// working digits of an instance at check digits dg: its P-ADAPT digits shifted by dg - 50 (keys' spread included)
unsigned model_digits(const ModelInst& m, unsigned dg) {
  const unsigned a = hop_padapt_digits(m.in.beta, std::max(hop_spread(m.in.Xi, m.in.x), hop_spread(m.keys, m.in.x)));
  return a + (dg > 50 ? dg - 50 : 0);
}
std::string model_sizes(const CheckConfig& cfg, std::size_t n) {
  return std::to_string(n) + " instances: " +
         (cfg.quick ? std::string("d {2,5}, M {2,3,10}, G1-G3 + G4 (d=2), beta {1,32}, Q1/Q2, every third grid instance")
                    : std::string("d {2,3,8,16}, M {2,3,10,30,100}, G1-G3 + G4 (d=2,3,8), beta {0.1,1,8,64}, Q1-Q4")) +
         "; masks {1,2,ceil(M/2),M} containing mu + top-K, a quarter uniform; half with noisy keys";
}
double rel(const MV& a, const MV& b) { return vecrel(a, b); }
// ||e_c9 - (T - xi_mu)_naive|| / (||e_c9|| cond): the naive difference at digits raised by log10(m / ||e||) + 10
double c9_residual(const MV& e, const mp_t& cond, const std::function<MV()>& naive_T, const MV& xi_mu) {
  const double le = log10_norm(e), lm = log10_norm(xi_mu);
  if (!std::isfinite(le)) {  // e = 0: T(x) = xi_mu exactly (a single weight 1)
    MpDigitsScope sc(mp_digits() + 20);
    const MV t = naive_T();
    return vecrel(t, xi_mu) == 0 ? 0.0 : INFINITY;
  }
  const unsigned up = mp_digits() + static_cast<unsigned>(std::max(0.0, std::ceil(std::max(lm, 0.0) - le))) + 10;
  MV nv;
  {
    MpDigitsScope sc(up);
    MV t = naive_T();
    for (std::size_t c = 0; c < t.size(); ++c) t[c] -= xi_mu[c];
    nv = t;
  }
  mp_t d(0), n(0);
  for (std::size_t c = 0; c < e.size(); ++c) {
    const mp_t t = e[c] - mp_t(nv[c]);
    d += t * t;
    n += e[c] * e[c];
  }
  return to_d(mp_t(sqrt(d) / (sqrt(n) * (cond > 1 ? cond : mp_t(1)))));
}
std::vector<std::size_t> perm_of(std::size_t M, std::uint64_t s) {
  std::vector<std::size_t> p(M);
  std::iota(p.begin(), p.end(), std::size_t{0});
  Rng g(s);
  for (std::size_t i = M; i > 1; --i) std::swap(p[i - 1], p[hop_below(g, i)]);
  return p;  // new row r holds old row p[r]
}

// ---------------------------------------------------------------------------------------------
// A003-SPARSE-U, A003-SPARSE-R, A003-SPARSE-UR-IDENTITY
// ---------------------------------------------------------------------------------------------
ClaimResult a003_sparse_u(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A003-SPARSE-U");
  const std::vector<ModelInst> insts = model_instances(cfg, seed);
  Checker ck("max relative residual over: T_U(k = M) vs T_Dense; (log ||T_U|| - log(s_M m))_+ ([derived] ||T_U|| <= s_M m); "
             "permutation equivariance of (memory, mask) pairs; C9 error (3.11)-U vs the naive T_U - xi_mu at raised digits "
             "(relative, / condition of the C9 sum)",
             cfg.digits);
  ExactTally bits;
  for (std::size_t idx = 0; idx < insts.size(); ++idx) {
    const ModelInst& m = insts[idx];
    ck.add(m.desc, [&](unsigned dg, std::string& where) {
      MpDigitsScope sc(model_digits(m, dg));
      const HopMP p = hop_mp(m.in);
      const MM K = to_mp(m.keys);
      const std::size_t M = p.Xi.rows;
      Worst w;
      hf::Mask all(M);
      std::iota(all.begin(), all.end(), std::size_t{0});
      const MV tf = hf::sparse_u(p.Xi, K, p.x, p.beta, all), td = hf::dense_retrieval(p.Xi, K, p.x, p.beta);
      w.upd(rel(tf, td), "k = M vs dense");
      if (dg == cfg.digits) bits.check(tf == td, [&] { return m.desc; });
      const MV tu = hf::sparse_u(p.Xi, K, p.x, p.beta, m.in.mask);
      const mp_t ntu = mp_norm(tu);
      if (ntu > 0)  // (log ||T_U|| - log s_M - log m)_+ in MP
        w.upd(std::max(0.0, to_d(mp_t(log(ntu) - hf::log_mask_mass(p.beta, hf::scores(K, p.x), m.in.mask) - log(hf::max_norm(p.Xi))))), "||T_U|| <= s_M m");
      const std::vector<std::size_t> pr = perm_of(M, mix(seed, 100 + idx));
      std::vector<std::size_t> inv(M);
      for (std::size_t r = 0; r < M; ++r) inv[pr[r]] = r;
      MM Xp(M, p.Xi.cols), Kp(M, p.Xi.cols);
      for (std::size_t r = 0; r < M; ++r)
        for (std::size_t c = 0; c < p.Xi.cols; ++c) Xp(r, c) = p.Xi(pr[r], c), Kp(r, c) = K(pr[r], c);
      hf::Mask mp;
      for (std::size_t j : m.in.mask) mp.push_back(inv[j]);
      std::sort(mp.begin(), mp.end());
      w.upd(rel(hf::sparse_u(Xp, Kp, p.x, p.beta, mp), tu), "permutation " + hop_mask_str(mp));
      // C9 (reading U): condition = (sum_{nu in M \ mu} pi_nu ||xi_nu|| + off ||xi_mu||) / ||e||
      const MV e = hf::sparse_u_error(p.Xi, K, p.x, p.beta, m.in.mask, m.in.mu);
      const MV pi = hf::softmax_weights(p.beta, hf::scores(K, p.x));
      const bool in = std::binary_search(m.in.mask.begin(), m.in.mask.end(), m.in.mu);
      mp_t off(in ? 0 : 1), num(0);
      for (std::size_t nu = 0; nu < M; ++nu) {
        if (in && nu != m.in.mu) off += pi[nu];
        if (nu != m.in.mu && std::binary_search(m.in.mask.begin(), m.in.mask.end(), nu)) num += pi[nu] * mp_norm(row_vec(p.Xi, nu));
      }
      const MV xm = row_vec(p.Xi, m.in.mu);
      num += off * mp_norm(xm);
      const mp_t ne = mp_norm(e);
      w.upd(c9_residual(e, ne > 0 ? mp_t(num / ne) : mp_t(1), [&] { return hf::sparse_u(hop_mp(m.in).Xi, to_mp(m.keys), hop_mp(m.in).x, hop_mp(m.in).beta, m.in.mask); }, xm),
            std::string("C9 error (mu ") + (in ? "in" : "not in") + " M)");
      where = w.where;
      return w.r;
    });
  }
  ClaimResult id = ck.result(cfg, model_sizes(cfg, insts.size()));
  ClaimResult b = bits.result(cfg, "instances where T_U with the full mask is not bit-for-bit T_Dense", "every instance", "k = M gives T_Dense bit for bit");
  return combine({{"identities", id}, {"k = M exactly", b}});
}

ClaimResult a003_sparse_r(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A003-SPARSE-R");
  const std::vector<ModelInst> insts = model_instances(cfg, seed);
  Checker ck("max relative residual over: T_R(k = M) vs T_Dense; T_R(k = 1) vs xi_{M(1)}; T_R vs T_Dense of the sub-memory (keys "
             "(Xi_delta)_M); q zero off the mask and |sum q - 1|; C9 error vs the naive T_R - xi_mu at raised digits (relative, / condition)",
             cfg.digits);
  ExactTally ex;
  for (const ModelInst& m : insts) {
    ck.add(m.desc, [&](unsigned dg, std::string& where) {
      MpDigitsScope sc(model_digits(m, dg));
      const HopMP p = hop_mp(m.in);
      const MM K = to_mp(m.keys);
      const std::size_t M = p.Xi.rows;
      Worst w;
      hf::Mask all(M);
      std::iota(all.begin(), all.end(), std::size_t{0});
      const MV tf = hf::sparse_r(p.Xi, K, p.x, p.beta, all);
      w.upd(rel(tf, hf::dense_retrieval(p.Xi, K, p.x, p.beta)), "k = M vs dense");
      const hf::Mask one = {m.in.mask.front()};
      const MV t1 = hf::sparse_r(p.Xi, K, p.x, p.beta, one);
      if (dg == cfg.digits) ex.check(t1 == row_vec(p.Xi, one[0]), [&] { return m.desc + " (k = 1)"; });
      w.upd(rel(t1, row_vec(p.Xi, one[0])), "k = 1");
      const MV tr = hf::sparse_r(p.Xi, K, p.x, p.beta, m.in.mask);
      w.upd(rel(tr, hf::dense_retrieval(hf::sub_memory(p.Xi, m.in.mask), hf::sub_memory(K, m.in.mask), p.x, p.beta)), "sub-memory");
      const MV q = hf::masked_weights(p.beta, hf::scores(K, p.x), m.in.mask);
      mp_t s(0);
      double offm = 0;
      for (std::size_t nu = 0; nu < M; ++nu) {
        if (std::binary_search(m.in.mask.begin(), m.in.mask.end(), nu)) s += q[nu];
        else if (q[nu] != 0) offm = INFINITY;
      }
      w.upd(std::max(offm, to_d(abs(mp_t(s - 1)))), "weights on the mask");
      const bool in = std::binary_search(m.in.mask.begin(), m.in.mask.end(), m.in.mu);
      const MV e = hf::sparse_r_error(p.Xi, K, p.x, p.beta, m.in.mask, m.in.mu);
      const MV xm = row_vec(p.Xi, m.in.mu);
      mp_t num(in ? 0 : 1);
      if (!in) num *= mp_norm(xm);
      for (std::size_t nu : m.in.mask) {
        if (nu == m.in.mu) continue;
        MV dxi = row_vec(p.Xi, nu);
        if (in)
          for (std::size_t c = 0; c < dxi.size(); ++c) dxi[c] -= xm[c];
        num += q[nu] * mp_norm(dxi);
      }
      const mp_t ne = mp_norm(e);
      w.upd(c9_residual(e, ne > 0 ? mp_t(num / ne) : mp_t(1), [&] { return hf::sparse_r(hop_mp(m.in).Xi, to_mp(m.keys), hop_mp(m.in).x, hop_mp(m.in).beta, m.in.mask); }, xm),
            std::string("C9 error (mu ") + (in ? "in" : "not in") + " M)");
      where = w.where;
      return w.r;
    });
  }
  {  // C13: the empty mask is an error for reading R
    MpDigitsScope sc(cfg.digits);
    const HopMP p = hop_mp(insts.front().in);
    bool threw = false;
    try {
      (void)hf::sparse_r(p.Xi, p.x, p.beta, hf::Mask{});
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    ex.check(threw, [] { return std::string("empty mask: sparse_r must throw (C13)"); });
  }
  ClaimResult id = ck.result(cfg, model_sizes(cfg, insts.size()));
  ClaimResult b = ex.result(cfg, "exact failures: T_R(k = 1) != xi_{M(1)} bit for bit; empty mask accepted", "every instance + one empty mask",
                            "k = 1 returns the kept memory bit for bit; the empty mask throws");
  return combine({{"identities", id}, {"k = 1 exactly, C13", b}});
}

ClaimResult a003_sparse_ur_identity(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A003-SPARSE-UR-IDENTITY");
  const std::vector<ModelInst> insts = model_instances(cfg, seed);
  Checker ck("max relative residual ||T_U - s_M T_R|| / max(1, norms), s_M = exp(LSE_M - LSE_[M]) (P-ADAPT MP)", cfg.digits);
  double worst_dbl = 0;
  std::string worst_dbl_desc;
  int ndbl = 0, nskip = 0;
  for (const ModelInst& m : insts) {
    ck.add(m.desc, [&](unsigned dg, std::string& where) {
      MpDigitsScope sc(model_digits(m, dg));
      const HopMP p = hop_mp(m.in);
      const MM K = to_mp(m.keys);
      const MV tu = hf::sparse_u(p.Xi, K, p.x, p.beta, m.in.mask);
      MV st = hf::sparse_r(p.Xi, K, p.x, p.beta, m.in.mask);
      const mp_t s = exp(hf::log_mask_mass(p.beta, hf::scores(K, p.x), m.in.mask));
      for (mp_t& v : st) v *= s;
      where = "s_M = " + fmt(to_d(s), 6);
      return rel(tu, st);
    });
    // P-DBL: the same identity in double, relative error vs 16 u kappa
    const std::vector<double> a = hf::scores(m.keys, m.in.x);
    const double lm = hf::log_mask_mass(m.in.beta, a, m.in.mask);
    if (lm < -700) {
      ++nskip;
      continue;
    }
    const std::vector<double> tu = hf::sparse_u(m.in.Xi, m.keys, m.in.x, m.in.beta, m.in.mask);
    std::vector<double> st = hf::sparse_r(m.in.Xi, m.keys, m.in.x, m.in.beta, m.in.mask);
    for (double& v : st) v *= std::exp(lm);
    const std::vector<double> pi = hf::softmax_weights(m.in.beta, a);
    double sw = 0, amax = 0;
    for (std::size_t nu : m.in.mask) sw += pi[nu] * hop_norm(hop_row(m.in.Xi, nu));
    for (double v : a) amax = std::max(amax, std::fabs(v));
    double dn = 0;
    for (std::size_t c = 0; c < tu.size(); ++c) dn += (tu[c] - st[c]) * (tu[c] - st[c]);
    const double nt = hop_norm(tu);
    if (!(nt > 1e-290)) {
      ++nskip;
      continue;
    }
    const double kappa = 1 + sw / nt + 2 * m.in.beta * amax;
    const double q = std::sqrt(dn) / nt / (0x1.0p-53 * kappa);
    ++ndbl;
    if (q > worst_dbl || worst_dbl_desc.empty()) worst_dbl = q, worst_dbl_desc = m.desc;
  }
  ClaimResult id = ck.result(cfg, model_sizes(cfg, insts.size()));
  ClaimResult d;
  d.evidence.statistic = "max relative error ||T_U - s_M T_R|| / ||T_U|| in double, in units of u kappa (u = 2^-53)";
  d.evidence.value = worst_dbl;
  d.evidence.threshold = 16;
  d.evidence.instances = ndbl;
  d.evidence.witness = worst_dbl_desc;
  d.evidence.sizes = "the same instances in double (" + std::to_string(nskip) + " with s_M < e^-700 or T_U underflowing left out)";
  d.evidence.seed = cfg.seed;
  d.verdict = worst_dbl <= 16 ? Verdict::holds : Verdict::violated;
  d.reason = worst_dbl <= 16 ? "within 16 u kappa on every instance (D-EQ few-ulp rule)" : "an instance exceeds 16 u kappa";
  return combine({{"P-ADAPT identity", id}, {"P-DBL identity", d}});
}

}  // namespace

void register_a003_sparse_models(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A003-SPARSE-U", "Sparse-structured retrieval, reading U (literal (3.11)): k = M, ||T_U|| <= s_M m, equivariance, C9 error", identity, true, a003_sparse_u);
  add("A003-SPARSE-R", "Sparse-structured retrieval, reading R (renormalised): k = M, k = 1, sub-memory, weights, C9 error", identity, true, a003_sparse_r);
  add("A003-SPARSE-UR-IDENTITY", "T_U = s_M T_R [derived]", identity, true, a003_sparse_ur_identity);
  add("A003-RANDOM-MASK", "Random mask of fixed size k (Philox): sizes, P(mu in M_i) = k/M, subset uniformity", statistical, true, a003_random_mask);
  add("A003-RANDOM-MASK-BERN", "Bernoulli random mask: keep rate 1 - rho, Binomial row sizes, empty rows (C13)", statistical, true, a003_random_mask_bern);
  add("A003-SLIDING-WINDOW", "Centred sliding window: set definition at every row, flag shift, w > L, default w", identity, true, a003_sliding_window);
  add("A003-WINDOW-CAUSAL", "Causal sliding window: set definition at every row", identity, true, a003_window_causal);
}

}  // namespace recall
