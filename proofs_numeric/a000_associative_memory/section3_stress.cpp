// Paper A000 (associative memory) §3.2 "Stress Testing" (Fig. 5), reproduced with the construction of
// Theorem 1 at the figure's sizes.
//
// A000-EXP-STRESS: with d = 128 and n >= d base pairs, "the linear kernel degrades severely, the round kernel
//   does not". Part (a), decided: the untrained construction of Theorem 1 (ref::run_swaps, fp64) with the
//   read-out f = identity (linear kernel) against f = round-to-nearest (A000-ROUND-KERNEL R-int), at
//   n in {128, 256, 512}, keys from the best generator available at each size (n = d: orthonormal, coherence
//   0; n = 2d: identity + Sylvester-Hadamard rows, coherence 1/sqrt(d); n = 4d: random unit keys, or in the full
//   campaign an optimised packing), Gaussian values, random swaps; the statistic is the fraction of read-outs
//   that decode to the wrong value. Rule: holds if round's wrong-decode rate is <= 1% at every n where the keys'
//   coherence is < 1/8 (the theorem's regime) while linear's rate at n = 4d is >= 10% and exceeds round's at every
//   n > d; violated if round degrades as much as linear (round's rate >= linear's at some n > d) or linear
//   does not degrade (rate < 1% at every n); inconclusive otherwise. Part (b) of the spec (learned read-out
//   training at T = 256..1024) is not run here (CPU hours); the reason says so.
// Spec ID: A000-EXP-STRESS.
#include "recall/proofs/ledger.hpp"
#include "claim_support.hpp"

#include "recall/reference/state_exchange.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;

// =============================================================================================
// A000-EXP-STRESS (a)
// =============================================================================================
struct StressKeys {
  DM K;
  std::string name;
};
StressKeys stress_keys(std::size_t n, std::size_t d, bool full, std::uint64_t seed) {
  if (n <= d) return {ref::orthonormal_keys<double>(n, d), "orthonormal (identity rows)"};
  if (n <= 2 * d) return {ref::hadamard_code_keys<double>(n, d), "identity + Sylvester-Hadamard rows"};
  Rng g(seed);
  if (full) return {ref::optimise_packing(g, n, d, 200), "optimised packing (200 steps)"};
  return {ref::sphere_keys<double>(g, n, d), "random unit vectors"};
}

ClaimResult a000_exp_stress(const CheckConfig& cfg) {
  const std::size_t d = 128, dv = 16, swaps = cfg.quick ? 24 : 256;
  const std::uint64_t base = tag_seed(cfg.seed, "A000-EXP-STRESS");
  std::string table;
  double lin_4d = 0;
  bool round_ok = true, lin_above = true, lin_never = true, round_as_bad = false;
  std::string round_bad_at;
  int runs = 0;
  FigureSeries lin_s{"f = identity (linear)", {}, {}, "solid", "o"}, rnd_s{"f = round", {}, {}, "dashed", "s"};
  for (std::size_t n : {128, 256, 512}) {
    const StressKeys keys = stress_keys(n, d, !cfg.quick, mix(base, n));
    const double eps = to_d(mp_t(ref::coherence(keys.K)));
    Rng g(mix(base, 1000 + n));
    DM V(n, dv);
    {
      std::normal_distribution<double> N01(0.0, 1.0);
      for (auto& x : V.a) x = N01(g);
    }
    const auto sw = ref::random_swaps(g, n, swaps);
    double rate[2];
    for (int f = 0; f < 2; ++f) {
      ref::SwapOptions opt;
      opt.exact_tol = 1e-9;
      const auto fn = ref::make_fn<double>(f == 0 ? ref::ReadFn::identity : ref::ReadFn::round_int);
      const auto st = ref::run_swaps(keys.K, V, sw, fn, fn, opt);
      rate[f] = double(st.wrong_decode) / double(std::max<std::size_t>(1, st.readouts));
      ++runs;
    }
    lin_s.x.push_back(double(n)), lin_s.y.push_back(rate[0]);
    rnd_s.x.push_back(double(n)), rnd_s.y.push_back(rate[1]);
    table += (table.empty() ? "" : "; ") + std::string("n=") + std::to_string(n) + " (" + keys.name + ", coherence " + fmt(eps, 4) + "): linear " +
             fmt(100 * rate[0], 3) + "%, round " + fmt(100 * rate[1], 3) + "% wrong decodes";
    if (eps < 0.125 && rate[1] > 0.01) round_ok = false, round_bad_at = "n=" + std::to_string(n);
    if (n > d && !(rate[0] > rate[1])) lin_above = false;
    if (n > d && rate[1] >= rate[0] && rate[0] > 0.01) round_as_bad = true;
    if (rate[0] >= 0.01) lin_never = false;
    if (n == 4 * d) lin_4d = rate[0];
  }
  ClaimResult r;
  auto& e = r.evidence;
  e.seed = cfg.seed;
  e.statistic = "wrong-decode rate of the linear read-out at n = 4d";
  e.value = lin_4d;
  e.threshold = 0.10;
  e.instances = runs;
  e.sizes = "d = 128, n in {128, 256, 512}, d_v = 16 Gaussian values, " + std::to_string(swaps) + " random swaps, n read-outs after each (fp64)";
  e.extra.emplace_back("wrong decodes per n", table);
  e.extra.emplace_back("part (b)", "learned read-out training (spec: T in {256, 512, 1024}) not run here: each run is CPU hours at these lengths");
  ClaimFigure fig;
  fig.id = "stress";
  fig.title = "A000-EXP-STRESS: Theorem 1 construction at d = 128";
  fig.caption = "Fraction of read-outs decoding to a wrong value after random swaps, per number of base pairs n.";
  fig.x_label = "n (base pairs)";
  fig.y_label = "wrong-decode rate";
  fig.series = {lin_s, rnd_s};
  e.figures.push_back(fig);
  if (round_as_bad || lin_never) {
    r.verdict = Verdict::violated;
    e.witness = table;
    r.reason = round_as_bad ? "the round read-out degrades at least as much as the linear one (" + table + ")" : "the linear read-out does not degrade (" + table + ")";
  } else if (round_ok && lin_above && lin_4d >= 0.10) {
    r.verdict = Verdict::holds;
    r.reason = "construction (part a): the linear read-out decodes " + fmt(100 * lin_4d, 3) + "% wrongly at n = 4d while round stays exact wherever the keys' coherence is below 1/8 (" +
               table + "); the learned read-out (part b) is not run";
  } else {
    r.verdict = Verdict::inconclusive;
    r.reason = "mixed outcome (" + table + ")" + (round_ok ? "" : "; round degrades at " + round_bad_at);
  }
  return r;
}

}  // namespace

void register_a000_stress_experiment(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A000-EXP-STRESS", "stress test: linear vs round read-out with n >= d (Fig. 5), construction", reproduction, false, a000_exp_stress);
}

}  // namespace recall
