// Paper A000 (associative memory), App. 10.4 Listing 2 (train_model and the training script) and the
// Fig. 6 caption: the toy model's training configuration and curriculum.
// Spec IDs: A000-TOY-TRAIN.
//
// A000-TOY-TRAIN: Listing 2's training configuration and curriculum, decided from training runs of the
// reproduction harness (toy_train.hpp). The claim decided:
//
//   "Listing 2's configuration trains": with kernels (exp, softmax), fp32, the listing's optimiser and
//   schedule (AdamW lr 0.01, wd 0.01, 128 warm-up steps, linear decay to 0 at step 4000, batch 128 of
//   fresh sequences) and the code curriculum, a seed's batch accuracy exceeds 0.999 at length 16 (the
//   curriculum advances) within the 4000-step budget — with probability p > 1/2 over seeds.
//
// Rule: n seeds, k successes, 95% Wilson interval [lo, hi] for p; holds if lo > 1/2, violated if
// hi < 1/2 (witness: the failing seeds with their best accuracy), inconclusive otherwise.
// Quick mode (the default suite): the harness self-checks (gradient check against central differences,
// forward agreement with ref::toy_delta_attention) and one seed for the first 200 of the 4000 steps:
// one seed cannot put a Wilson interval on one side of 1/2, so the verdict is inconclusive, computed by
// the same rule. Full mode: 40 seeds of the decided configuration (the first 5 run the whole curriculum,
// the others stop at their first threshold crossing, which decides them; 40 gives the rule power at a
// success rate near 2/3, which 12 seeds showed: 8/12, Wilson [0.39, 0.86]; fixed at 40 before that run
// and not raised after it, to avoid optional stopping) plus 5 seeds each of
// (linear, linear), the Fig. 6 caption curriculum (start 32, >= 0.99, cap 256) for both kernel pairs and
// the emulated bf16 storage of the listing, reported as evidence. Compute guard: a run stops once the curriculum asks
// for a length above 64 (recorded; a length-256 campaign on CPU takes hours). With the environment variable
// RECALL_TOY_TRAIN_LOG set to a directory, every run's per-step log (step, length, loss, accuracy) is
// written there as CSV.
#include "recall/proofs/claims.hpp"
#include "recall/proofs/ledger.hpp"
#include "claim_support.hpp"
#include "toy_train.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace recall {
namespace {

using toy::Curriculum;
using toy::Precision;
using toy::ToyK1;
using toy::ToyK2;
using claim_support::fmt;

// 95% Wilson score interval for k successes in n trials.
std::pair<double, double> wilson(std::size_t k, std::size_t n) {
  const double z = 1.959963984540054, nn = double(n), p = double(k) / nn, z2 = z * z;
  const double c = (p + z2 / (2 * nn)) / (1 + z2 / nn);
  const double h = z * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn)) / (1 + z2 / nn);
  return {std::max(0.0, c - h), std::min(1.0, c + h)};
}

struct Config {
  std::string label;
  ToyK1 k1;
  ToyK2 k2;
  Curriculum cur;
  Precision prec;
  std::size_t seeds;
  std::size_t continued;  // seeds 0..continued-1 run the whole curriculum; later ones stop at the first advance
};

struct SeedRun {
  std::uint64_t seed;
  toy::TrainResult r;
  bool success() const { return !r.advances.empty(); }  // the first threshold crossing at the start length
};

std::string describe(const Config& c, const SeedRun& s, std::size_t max_len) {
  const auto& r = s.r;
  std::ostringstream o;
  o << "best " << fmt(r.best_acc, 4) << ", final " << fmt(r.final_acc, 4) << " at length " << (r.log.empty() ? 0 : r.log.back().len);
  if (r.advances.empty()) {
    o << "; never above the threshold at " << c.cur.start;
  } else {
    o << "; advances (step->length)";
    for (const auto& a : r.advances) o << " " << a.first << "->" << a.second;
  }
  o << "; " << r.steps_run << " steps (stop: " << r.stop;
  if (r.stop == "max_len") o << " " << max_len;
  o << "); loss " << fmt(r.first_loss, 3) << " -> " << fmt(r.last_loss, 3);
  // accuracy trace every 500 steps (mean over the 50 steps before)
  if (r.log.size() >= 500) o << "; batch acc (mean of the 50 steps before) at steps 500, 1000, ...:";
  for (std::size_t e = 500; e <= r.log.size(); e += 500) {
    double m = 0;
    for (std::size_t i = e - 50; i < e; ++i) m += r.log[i].acc;
    o << " " << fmt(m / 50, 3);
  }
  o << "; " << fmt(r.seconds, 3) << " s; streams init " << r.init_seed << " data " << r.data_seed;
  return o.str();
}

ClaimResult a000_toy_train(const CheckConfig& cfg) {
  ClaimResult res;
  Evidence& e = res.evidence;
  e.seed = cfg.seed;
  // ---- harness self-checks: a failure is a bug of this project, not a finding ----------------------
  const std::pair<ToyK1, ToyK2> pairs[] = {{ToyK1::linear, ToyK2::linear}, {ToyK1::exp, ToyK2::softmax}};
  std::string gc_txt, fa_txt;
  double worst_gc = 0;
  for (const auto& [k1, k2] : pairs) {
    toy::ModelShape m;
    m.k1 = k1, m.k2 = k2;
    std::mt19937_64 g(cfg.seed ^ 0x70791ULL);
    const auto P = toy::init_params<double>(m, g);
    const auto b6 = toy::make_batch(ref::generate_s5_data(6, 2, g));
    const toy::GradCheck gc = toy::gradient_check(P, b6);
    if (!gc.pass)
      throw std::runtime_error(std::string("harness gradient check failed for (") + toy::k1_name(k1) + ", " + toy::k2_name(k2) +
                               "): relative error " + fmt(gc.rel_err) + " > " + fmt(gc.threshold) + " at " + gc.worst);
    worst_gc = std::max(worst_gc, gc.rel_err);
    gc_txt += std::string(gc_txt.empty() ? "" : "; ") + "(" + toy::k1_name(k1) + ", " + toy::k2_name(k2) + ") " + fmt(gc.rel_err) + " over " +
              std::to_string(gc.n_params) + " parameters (worst " + gc.worst + ")";
    const auto b16 = toy::make_batch(ref::generate_s5_data(16, 2, g));
    const toy::ForwardAgreement fa = toy::forward_agreement(P, b16, cfg.digits);
    if (!fa.pass)
      throw std::runtime_error(std::string("harness forward disagrees with ref::toy_delta_attention for (") + toy::k1_name(k1) + ", " +
                               toy::k2_name(k2) + "): fp64 " + fmt(fa.err64) + " (budget " + fmt(fa.budget64) + "), fp32 " + fmt(fa.err32) +
                               " (budget " + fmt(fa.budget32) + ")");
    fa_txt += std::string(fa_txt.empty() ? "" : "; ") + "(" + toy::k1_name(k1) + ", " + toy::k2_name(k2) + ") fp64 " + fmt(fa.err64 / 0x1p-53) +
              " u (baseline " + fmt(fa.base64 / 0x1p-53) + " u), fp32 " + fmt(fa.err32 / 0x1p-24) + " u (baseline " + fmt(fa.base32 / 0x1p-24) +
              " u), cond " + fmt(fa.cond);
  }
  e.extra.emplace_back("gradient check (double, B=2, T=6, central differences, h = u^(1/3), threshold 1e3 u^(2/3) = 2.3e-8 of max|g|)", gc_txt);
  e.extra.emplace_back("forward vs ref::toy_delta_attention (B=2, T=16; logits and U vs the " + std::to_string(cfg.digits) + "-digit reference)",
                       fa_txt);

  // ---- training runs ------------------------------------------------------------------------------
  const std::size_t max_len = 64;
  const unsigned threads = cfg.quick ? 1u : std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  std::vector<Config> configs;
  configs.push_back({"(exp, softmax) code fp32", ToyK1::exp, ToyK2::softmax, Curriculum::code(), Precision::fp32, cfg.quick ? 1u : 40u, 5});
  if (!cfg.quick) {
    configs.push_back({"(linear, linear) code fp32", ToyK1::linear, ToyK2::linear, Curriculum::code(), Precision::fp32, 5, 5});
    configs.push_back({"(exp, softmax) caption fp32", ToyK1::exp, ToyK2::softmax, Curriculum::caption(), Precision::fp32, 5, 5});
    configs.push_back({"(linear, linear) caption fp32", ToyK1::linear, ToyK2::linear, Curriculum::caption(), Precision::fp32, 5, 5});
    configs.push_back({"(exp, softmax) code bf16", ToyK1::exp, ToyK2::softmax, Curriculum::code(), Precision::bf16, 5, 5});
  }
  std::vector<std::vector<SeedRun>> runs(configs.size());
  double total_s = 0;
  for (std::size_t ci = 0; ci < configs.size(); ++ci) {
    const Config& c = configs[ci];
    for (std::size_t i = 0; i < c.seeds; ++i) {
      toy::TrainConfig tc;
      tc.shape.k1 = c.k1, tc.shape.k2 = c.k2;
      tc.curriculum = c.cur;
      tc.precision = c.prec;
      tc.seed = cfg.seed + i;  // the same seeds (init and data streams) for every configuration: paired runs
      tc.max_len = max_len;
      tc.threads = threads;
      if (i >= c.continued) tc.stop_after_advances = 1;  // the decision needs only the first threshold crossing
      if (cfg.quick) tc.max_steps = 200;
      SeedRun sr{tc.seed, toy::train(tc)};
      total_s += sr.r.seconds;
      if (const char* dir = std::getenv("RECALL_TOY_TRAIN_LOG"); dir && *dir) {  // per-step log, one CSV per run
        std::string name = c.label + "_seed" + std::to_string(sr.seed) + ".csv";
        for (char& ch : name)
          if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '_') ch = '_';
        toy::write_log_csv(std::string(dir) + "/" + name, sr.r);
      }
      e.extra.emplace_back(c.label + " seed " + std::to_string(sr.seed), describe(c, sr, max_len));
      runs[ci].push_back(std::move(sr));
    }
    std::size_t k = 0;
    for (const auto& s : runs[ci]) k += s.success();
    const auto [lo, hi] = wilson(k, runs[ci].size());
    std::string firsts, ends;
    for (const auto& s : runs[ci]) {
      if (s.success()) firsts += (firsts.empty() ? "" : ", ") + std::to_string(s.r.advances[0].first);
      if (s.r.stop != "advances" && !s.r.log.empty())
        ends += (ends.empty() ? "" : ", ") + std::to_string(s.r.log.back().len) + ":" + fmt(s.r.final_acc, 3);
    }
    e.extra.emplace_back(c.label + " summary", std::to_string(k) + "/" + std::to_string(runs[ci].size()) + " seeds above the threshold at length " +
                                                   std::to_string(c.cur.start) + " (95% Wilson [" + fmt(lo) + ", " + fmt(hi) + "])" +
                                                   (firsts.empty() ? "" : "; steps to the first advance: " + firsts) +
                                                   "; last length:final accuracy of the runs not stopped at their first advance: " + ends);
  }
  // ---- decision on the (exp, softmax) code-curriculum fp32 runs ----------------------------------------
  const auto& prim = runs[0];
  std::size_t k = 0;
  std::string failing;
  for (const auto& s : prim) {
    if (s.success()) ++k;
    else failing += (failing.empty() ? "seed " : ", seed ") + std::to_string(s.seed) + " (best acc " + fmt(s.r.best_acc, 4) + ")";
  }
  const std::size_t n = prim.size();
  const auto [lo, hi] = wilson(k, n);
  e.statistic = "fraction of seeds whose batch accuracy exceeds 0.999 at length 16 within the 4000-step budget, (exp, softmax), code curriculum, fp32; "
                "95% Wilson interval";
  e.value = double(k) / double(n);
  e.threshold = 0.5;
  e.instances = 0;
  for (const auto& r : runs) e.instances += int(r.size());
  e.sizes = "dim 12, 4 q-heads, 1 kv-head, head dim 3, vocab 10, batch 128, lengths 16.." + std::to_string(max_len) + ", " +
            (cfg.quick ? std::string("first 200 of 4000 steps, 1 seed") : std::string("4000 steps, 40 + 4 x 5 seeds")) +
            ", std::mt19937_64 streams from seeds " + std::to_string(cfg.seed) + "..";
  e.extra.emplace_back("decision", std::to_string(k) + "/" + std::to_string(n) + " seeds; 95% Wilson [" + fmt(lo) + ", " + fmt(hi) +
                                       "]; holds if the lower end > 1/2, violated if the upper end < 1/2");
  e.extra.emplace_back("training wall time (s, all runs)", fmt(total_s, 4) + " on " + std::to_string(threads) + " thread(s)");
  if (lo > 0.5) {
    res.verdict = Verdict::holds;
    res.reason = std::to_string(k) + "/" + std::to_string(n) + " seeds reach batch accuracy > 0.999 at length 16 within 4000 steps; Wilson 95% [" +
                 fmt(lo) + ", " + fmt(hi) + "] above 1/2";
  } else if (hi < 0.5) {
    res.verdict = Verdict::violated;
    e.witness = failing;
    res.reason = "only " + std::to_string(k) + "/" + std::to_string(n) +
                 " seeds of Listing 2's (exp, softmax) configuration reach batch accuracy > 0.999 at length 16 within the 4000-step budget; "
                 "Wilson 95% [" + fmt(lo) + ", " + fmt(hi) + "] below 1/2";
  } else {
    res.verdict = Verdict::inconclusive;
    if (!failing.empty()) e.witness = failing;
    res.reason = cfg.quick ? "quick mode: 1 seed and the first 200 of the 4000 steps cannot decide a success rate (Wilson 95% [" + fmt(lo) + ", " +
                                 fmt(hi) + "] straddles 1/2); harness gradient check and forward agreement pass; run --full (40 seeds x 4000 steps)"
                           : std::to_string(k) + "/" + std::to_string(n) + " seeds succeed; Wilson 95% [" + fmt(lo) + ", " + fmt(hi) +
                                 "] straddles 1/2";
  }
  return res;
}

}  // namespace

void register_a000_listing2_training(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A000-TOY-TRAIN", "Listing 2 training configuration and curriculum: the (exp, softmax) run trains at length 16", reproduction, false,
      a000_toy_train);
}

}  // namespace recall
