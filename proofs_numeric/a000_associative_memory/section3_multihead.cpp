// Paper A000 (associative memory) §3.1 (Fig. 2) and §2.1 (kernel / multi-head / normalisation hypotheses): the
// multi-head efficiency trade-off, reproduced at this machine's scale with a PyTorch byte-level language model
// (multihead_lm.py beside this file: corpus, model, training and measurement; every decision is made here).
//
// Set-up (scaled down from GPT-2 small 12L/768D, BlaGPT data): 4 pre-norm layers, hidden 96, context 64, batch 16,
// 200 AdamW steps (peak lr 2e-3, 10% warm-up, cosine to 10%, clip 1.0), MLP 4x, fp32 (bf16 not run), the same
// 204,800 training tokens and the same parameter count (474,336; the softmax arm 473,952: no per-head gain) for
// every head count h in {1, 2, 4, 8} (head dim 96 / h); corpus: Debian's `fortunes` (/usr/share/games/fortunes,
// 2.58 MB of English; fortune j to validation iff j % 10 == 9), byte tokens (vocabulary 256); statistic per run:
// mean cross-entropy (nats/byte) on 256 fixed validation windows (16,384 tokens; for scale, a unigram byte model
// scores 3.32 there). Arms (paper §3.1): `linear` = linear kernel + per-head RMSNorm; `exp_rms` = softmax with its
// normaliser removed + per-head RMSNorm (the paper's softmax baseline of Fig. 2); `softmax` = standard softmax
// with its normaliser, no per-head norm (reference arm of hypothesis (c); h in {1, 4}). Seeds: 5; seed s gives
// every arm the same initial weights and the same batch stream, so intervals are paired by seed (95% Student-t,
// t_interval.hpp). A run whose loss or gradient becomes non-finite counts with validation loss ln 256 (the
// uniform predictor) and is named in the evidence. Linear layers run as 1x1 convolutions (oneDNN): Debian's torch
// links the reference BLAS (~1.3 GFLOP/s here), its convolution is ~6x faster.
// Note (found while implementing): per-head RMSNorm is invariant to the positive per-row factor 1/Z_t, so
// `exp_rms` equals RMSNorm(softmax attention) except for the eps term (eps / Z_t^2 in the normalised form).
//
// Rules, fixed before the campaign was run:
// A000-EXP-MULTIHEAD: per attention type A in {linear, exp_rms}, D_A = L_A(1 head) - mean_{h in {2,4,8}} L_A(h),
//   paired by seed. linear ("1 head benefits linear attention"): interval below 0 holds, above 0 violated;
//   exp_rms ("1 head degrades softmax attention"): interval above 0 holds, below 0 violated; else inconclusive.
//   Row: violated if a part is violated, holds if both hold, else inconclusive. The pairwise L(1) - L(h)
//   intervals per h are evidence only.
// A000-KERNEL-HYP (experimental/qualitative): (a) kernel choice mediates knowledge density vs retrieval
//   precision and (b) multi-head trades retrieval precision for expressivity / enhances superposition are not
//   decided by a training run (their numerical content is A000-CAP-RECALL's per-head capacity); they are named
//   in the evidence and do not enter the verdict. (c) "the softmax normaliser can be replaced by a per-head norm;
//   normalisation is a training-stability mechanism", per h in {1, 4}: (c-loss) L(exp_rms) - L(softmax), paired,
//   non-inferiority margin 0.03 nats/byte: interval upper end < 0.03 holds, lower end > 0.03 violated;
//   (c-stability) s = ln(max / median of the pre-clip global gradient norm after warm-up), s(exp_rms) -
//   s(softmax) paired: upper end < ln 2 holds, lower end > ln 2 violated; a seed where exp_rms diverges and
//   softmax does not makes (c-stability) violated. (d) "softmax relies on multi-head expressiveness, linear
//   attention gains more from memory capacity" = the A000-EXP-MULTIHEAD verdict on the same runs. Row: violated
//   if a decided part is violated, holds if every decided part holds, else inconclusive.
// Quick mode (cfg.quick): one seed, 2 layers, hidden 64, context 32, 3 steps, h in {1, 4}: a smoke run of the
//   whole pipeline (~3 s including torch import), inconclusive by the same rules (one seed gives no interval).
// Full campaign: 50 runs (linear and exp_rms at 4 head counts, softmax at 2, 5 seeds each), measured 3232 s of
//   training (54 min; 41-137 s per run, median ~63 s) with 1 thread on this 2-core machine shared with other jobs
//   (~45 s per run when unloaded), shared by both IDs (a process-wide cache keyed by the seed: whichever claim runs
//   first trains, the other waits on the mutex and reuses the runs).
//   Result of that campaign (seed 20261122): A000-EXP-MULTIHEAD violated (linear: L(1) - mean multi-head +0.246
//   [0.010, 0.483] nats/byte, one head is worse; exp_rms: -0.006 [-0.192, 0.180]); A000-KERNEL-HYP violated ((c)
//   loss: exp_rms - softmax +0.349 [0.217, 0.481] at h = 1, +0.379 [0.291, 0.467] at h = 4; (c) stability
//   inconclusive; (d) = the MULTIHEAD violation). A short-budget regime (205k tokens, losses 2.6-3.1 nats/byte).
// Spec IDs: A000-EXP-MULTIHEAD, A000-KERNEL-HYP.
#include "recall/proofs/ledger.hpp"
#include "claim_support.hpp"
#include "python_experiment.hpp"
#include "t_interval.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using nlohmann::json;

constexpr const char* kMultiheadScript = "proofs_numeric/a000_associative_memory/multihead_lm.py";
constexpr double kLossMargin = 0.03;         // (c-loss) non-inferiority margin, nats/byte
const double kSpikeMargin = std::log(2.0);   // (c-stability) margin on ln(max / median gradient norm)
const double kDivergedLoss = std::log(256.0);

std::vector<std::string> multihead_args(const CheckConfig& cfg) {
  std::vector<std::string> a = {"--seed", std::to_string(cfg.seed % 2147483648ULL), "--threads", "1"};
  if (cfg.quick) {
    a.push_back("--quick");
  } else {
    a.insert(a.end(), {"--seeds", "5", "--steps", "200", "--heads", "1,2,4,8", "--softmax-heads", "1,4", "--layers", "4", "--hidden", "96",
                       "--context", "64", "--batch", "16", "--val-windows", "256"});
  }
  return a;
}

// The script's runs for this configuration. The full campaign (~40 min) is shared by both IDs in one process:
// the first caller trains while holding the mutex, a concurrent caller waits and reuses it. Quick mode is cheap
// and runs afresh every time (so the suite's repeated runs really re-execute it).
pyexp::Run multihead_runs(const CheckConfig& cfg) {
  if (cfg.quick) return pyexp::run(kMultiheadScript, multihead_args(cfg), 120);
  static std::mutex m;
  static std::map<std::uint64_t, pyexp::Run> cache;
  std::lock_guard<std::mutex> lock(m);
  auto it = cache.find(cfg.seed);
  if (it != cache.end()) return it->second;
  pyexp::Run r = pyexp::run(kMultiheadScript, multihead_args(cfg), 4 * 3600);
  cache.emplace(cfg.seed, r);
  return r;
}

// ---- the script's JSON ------------------------------------------------------------------------------------
struct ArmRuns {
  std::string attention;
  int heads = 0;
  long params = 0;
  std::vector<double> loss;     // final validation loss per seed (diverged: ln 256)
  std::vector<double> spike;    // ln(max / median pre-clip gradient norm after warm-up) per seed (diverged: +inf)
  std::vector<bool> diverged;
  std::vector<double> seconds;
};

struct Campaign {
  std::vector<ArmRuns> arms;
  std::size_t seeds = 0;
  json config, corpus;
  double seconds = 0;
  const ArmRuns* find(const std::string& att, int h) const {
    for (const auto& a : arms)
      if (a.attention == att && a.heads == h) return &a;
    return nullptr;
  }
  std::vector<int> heads_of(const std::string& att) const {
    std::vector<int> h;
    for (const auto& a : arms)
      if (a.attention == att) h.push_back(a.heads);
    return h;
  }
};

// Throws std::invalid_argument naming the field when the JSON is not the script's schema.
Campaign parse_campaign(const json& j) {
  auto need = [](const json& o, const char* k) -> const json& {
    if (!o.is_object() || !o.contains(k)) throw std::invalid_argument(std::string("multihead_lm.py JSON: missing field '") + k + "'");
    return o.at(k);
  };
  Campaign c;
  c.config = need(j, "config");
  c.corpus = need(j, "corpus");
  c.seconds = need(j, "seconds").get<double>();
  for (const auto& a : need(j, "arms")) {
    ArmRuns r;
    r.attention = need(a, "attention").get<std::string>();
    r.heads = need(a, "heads").get<int>();
    r.params = need(a, "params").get<long>();
    for (const auto& run : need(a, "runs")) {
      const json& v = need(run, "val_loss");
      const bool div = v.is_null() || !need(run, "diverged_at").is_null();
      r.diverged.push_back(div);
      r.loss.push_back(div ? kDivergedLoss : v.get<double>());
      const json& sr = need(need(run, "grad_norm"), "spike_ratio");
      r.spike.push_back(div || sr.is_null() ? INFINITY : std::log(sr.get<double>()));
      r.seconds.push_back(need(run, "seconds").get<double>());
    }
    if (c.seeds == 0) c.seeds = r.loss.size();
    if (r.loss.size() != c.seeds) throw std::invalid_argument("multihead_lm.py JSON: arms with different seed counts");
    c.arms.push_back(std::move(r));
  }
  if (c.arms.empty() || c.seeds == 0) throw std::invalid_argument("multihead_lm.py JSON: no runs");
  return c;
}

double mean_of(const std::vector<double>& x) {
  double m = 0;
  for (double v : x) m += v / static_cast<double>(x.size());
  return m;
}

std::string arm_runs_text(const Campaign& c) {
  std::string s;
  for (const auto& a : c.arms) {
    s += (s.empty() ? "" : "; ") + a.attention + " h=" + std::to_string(a.heads) + ":";
    for (std::size_t i = 0; i < a.loss.size(); ++i)
      s += std::string(i ? "," : "") + " " + (a.diverged[i] ? std::string("diverged") : fmt(a.loss[i], 5)) + " (spike " +
           fmt(std::exp(a.spike[i]), 3) + ")";
  }
  return s;
}

std::string campaign_sizes(const Campaign& c) {
  const json& k = c.config;
  auto g = [&](const char* f) { return k.contains(f) ? k.at(f).dump() : std::string("?"); };
  return g("layers") + " layers, hidden " + g("hidden") + ", context " + g("context") + ", batch " + g("batch") + ", " + g("steps") +
         " steps (" + g("tokens_per_run") + " tokens per run), " + std::to_string(c.seeds) + " seed(s), fp32, corpus fortunes (" +
         (c.corpus.contains("train_bytes") ? c.corpus.at("train_bytes").dump() : std::string("?")) + " train bytes, " + g("val_tokens") +
         " validation tokens)";
}

// Loss vs head count with the per-h 95% interval (mean over seeds).
ClaimFigure loss_figure(const Campaign& c) {
  ClaimFigure f;
  f.id = "val-loss-vs-heads";
  f.title = "Validation loss vs head count (A000 Fig. 2, scaled down)";
  f.caption = "Mean final validation cross-entropy over seeds (95% t interval dashed) of a " + campaign_sizes(c) +
              " byte-level LM; linear = linear kernel + per-head RMSNorm, exp_rms = softmax without normaliser + per-head RMSNorm, "
              "softmax = with normaliser.";
  f.x_label = "heads (head dim = hidden / heads)";
  f.y_label = "validation loss (nats/byte)";
  f.x_scale = "log";
  for (const char* att : {"linear", "exp_rms", "softmax"}) {
    FigureSeries m{std::string(att) + " mean", {}, {}, "solid", "o", att}, lo{std::string(att) + " 95% lo", {}, {}, "dashed", "", att},
        hi{std::string(att) + " 95% hi", {}, {}, "dashed", "", att};
    for (int h : c.heads_of(att)) {
      const Ci ci = mean_t_ci(c.find(att, h)->loss);
      m.x.push_back(h), m.y.push_back(ci.mean);
      lo.x.push_back(h), lo.y.push_back(ci.lo);
      hi.x.push_back(h), hi.y.push_back(ci.hi);
    }
    if (m.x.empty()) continue;
    f.series.push_back(m);
    if (c.seeds > 1) f.series.push_back(lo), f.series.push_back(hi);
  }
  return f;
}

// ---- A000-EXP-MULTIHEAD decision (shared with A000-KERNEL-HYP (d)) ------------------------------------------
ClaimResult decide_multihead(const Campaign& c) {
  Parts parts;
  for (const char* att : {"linear", "exp_rms"}) {
    const bool lin = std::string(att) == "linear";
    const ArmRuns* one = c.find(att, 1);
    std::vector<const ArmRuns*> multi;
    for (int h : c.heads_of(att))
      if (h > 1) multi.push_back(c.find(att, h));
    ClaimResult p;
    auto& e = p.evidence;
    e.statistic = std::string("L(1 head) - mean_h>1 L(h), ") + att + ", 95% paired t interval over seeds (nats/byte)";
    e.threshold = 0;
    e.instances = static_cast<int>(c.seeds * (1 + multi.size()));
    e.sizes = campaign_sizes(c);
    if (!one || multi.empty()) {
      p.reason = std::string(att) + ": the runs lack the 1-head or the multi-head arms";
      parts.emplace_back(att, p);
      continue;
    }
    std::vector<double> d(c.seeds);
    std::string pair_txt, means = "h=1 " + fmt(mean_of(one->loss), 5);
    for (std::size_t s = 0; s < c.seeds; ++s) {
      double m = 0;
      for (const auto* a : multi) m += a->loss[s] / static_cast<double>(multi.size());
      d[s] = one->loss[s] - m;
    }
    for (const auto* a : multi) {
      std::vector<double> dh(c.seeds);
      for (std::size_t s = 0; s < c.seeds; ++s) dh[s] = one->loss[s] - a->loss[s];
      pair_txt += (pair_txt.empty() ? "" : "; ") + std::string("L(1) - L(") + std::to_string(a->heads) + ") " + fmt_ci(mean_t_ci(dh), 4);
      means += ", h=" + std::to_string(a->heads) + " " + fmt(mean_of(a->loss), 5);
    }
    const Ci ci = mean_t_ci(d);
    e.value = ci.mean;
    e.extra.emplace_back("interval", fmt_ci(ci, 4));
    e.extra.emplace_back("pairwise (evidence only)", pair_txt);
    e.extra.emplace_back("mean validation loss", means);
    const std::string claim = lin ? "1 head benefits linear attention (expects < 0)" : "1 head degrades softmax attention (expects > 0)";
    if (c.seeds < 2) {
      p.verdict = Verdict::inconclusive;
      p.reason = std::string(att) + ": one seed gives no interval (difference " + fmt(ci.mean, 4) + "); " + claim;
    } else {
      const bool below = ci.hi < 0, above = ci.lo > 0;
      p.verdict = lin ? (below ? Verdict::holds : above ? Verdict::violated : Verdict::inconclusive)
                      : (above ? Verdict::holds : below ? Verdict::violated : Verdict::inconclusive);
      p.reason = std::string(att) + ": L(1 head) - mean multi-head " + fmt_ci(ci, 4) + "; " + claim;
    }
    parts.emplace_back(lin ? "linear attention" : "softmax (no normaliser, per-head RMSNorm)", p);
  }
  ClaimResult out = combine(parts, {PartSummary::reason, false});
  out.evidence.extra.emplace_back("runs (validation loss per seed)", arm_runs_text(c));
  return out;
}

std::string not_ran_reason(const pyexp::Run& r) { return "the training script did not run: " + r.reason; }
// The campaign of run r, parsed into c; false (with out's reason, inconclusive) when the script did not run or
// its JSON does not parse. Shared by both claims of this file.
bool load_campaign(const pyexp::Run& r, Campaign& c, ClaimResult& out) {
  if (!r.ran) {
    out.reason = not_ran_reason(r);
    out.evidence.extra.emplace_back("command", r.command);
    return false;
  }
  try {
    c = parse_campaign(r.result);
  } catch (const std::exception& ex) {
    out.reason = ex.what();
    return false;
  }
  return true;
}

void add_run_evidence(ClaimResult& out, const Campaign& c, const pyexp::Run& r, const CheckConfig& cfg) {
  auto& e = out.evidence;
  e.seed = cfg.seed;
  e.extra.emplace_back("command", r.command);
  e.extra.emplace_back("script wall time", fmt(r.seconds, 4) + " s (training " + fmt(c.seconds, 4) + " s)");
  std::string params;
  for (const auto& a : c.arms) params += (params.empty() ? "" : ", ") + a.attention + " h=" + std::to_string(a.heads) + " " + std::to_string(a.params);
  e.extra.emplace_back("parameters", params);
  e.extra.emplace_back("corpus", c.corpus.dump());
  e.extra.emplace_back("config", c.config.dump());
  e.figures.push_back(loss_figure(c));
}

// A000-EXP-MULTIHEAD — §3.1, Fig. 2: reducing the heads to 1 benefits linear attention and degrades softmax attention.
ClaimResult a000_exp_multihead(const CheckConfig& cfg) {
  const pyexp::Run r = multihead_runs(cfg);
  ClaimResult out;
  Campaign c;
  if (!load_campaign(r, c, out)) return out;
  out = decide_multihead(c);
  add_run_evidence(out, c, r, cfg);
  if (cfg.quick) {
    out.verdict = Verdict::inconclusive;
    out.reason = "quick mode: a smoke run of the pipeline (1 seed, 2 layers, hidden 64, 3 steps, heads 1 and 4; the full campaign trains "
                 "5 seeds x heads {1, 2, 4, 8} x 200 steps of a 4-layer model): " + out.reason;
  }
  return out;
}

// A000-KERNEL-HYP — §2.1 (SoLU, multi-head and normalisation paragraphs), §3.1 conclusion: hypotheses (a)-(d);
// (c) and (d) decided on the A000-EXP-MULTIHEAD runs, (a) and (b) named as not decidable by a training run.
ClaimResult a000_kernel_hyp(const CheckConfig& cfg) {
  const pyexp::Run r = multihead_runs(cfg);
  ClaimResult out;
  Campaign c;
  if (!load_campaign(r, c, out)) return out;
  Parts parts;
  for (int h : c.heads_of("softmax")) {
    const ArmRuns* sm = c.find("softmax", h);
    const ArmRuns* er = c.find("exp_rms", h);
    if (!er) continue;
    std::vector<double> dl(c.seeds), ds(c.seeds);
    int er_only_diverged = 0;
    bool finite = true;
    for (std::size_t s = 0; s < c.seeds; ++s) {
      dl[s] = er->loss[s] - sm->loss[s];
      ds[s] = er->spike[s] - sm->spike[s];
      er_only_diverged += er->diverged[s] && !sm->diverged[s];
      finite = finite && std::isfinite(ds[s]);
    }
    const std::string hs = "h=" + std::to_string(h);
    {  // (c-loss)
      const Ci ci = mean_t_ci(dl);
      ClaimResult p;
      auto& e = p.evidence;
      e.statistic = "L(exp_rms) - L(softmax), " + hs + ", 95% paired t interval (nats/byte)";
      e.value = ci.mean;
      e.threshold = kLossMargin;
      e.instances = static_cast<int>(2 * c.seeds);
      e.sizes = campaign_sizes(c);
      e.extra.emplace_back("interval", fmt_ci(ci, 4));
      p.verdict = c.seeds < 2 ? Verdict::inconclusive : ci.hi < kLossMargin ? Verdict::holds : ci.lo > kLossMargin ? Verdict::violated : Verdict::inconclusive;
      p.reason = hs + ": per-head RMSNorm instead of the normaliser, loss difference " + fmt_ci(ci, 4) + " vs margin " + fmt(kLossMargin) +
                 (c.seeds < 2 ? " (one seed: no interval)" : "");
      parts.emplace_back("(c) loss " + hs, p);
    }
    {  // (c-stability)
      ClaimResult p;
      auto& e = p.evidence;
      e.statistic = "ln(max/median grad norm)(exp_rms) - same(softmax), " + hs + ", 95% paired t interval";
      e.threshold = kSpikeMargin;
      e.instances = static_cast<int>(2 * c.seeds);
      e.sizes = campaign_sizes(c);
      if (er_only_diverged > 0) {
        e.value = INFINITY;
        p.verdict = Verdict::violated;
        p.reason = hs + ": exp_rms diverged on " + std::to_string(er_only_diverged) + " seed(s) where softmax did not";
      } else if (!finite) {
        p.verdict = Verdict::inconclusive;
        p.reason = hs + ": both arms diverged on some seed (no finite gradient statistic)";
      } else {
        const Ci ci = mean_t_ci(ds);
        e.value = ci.mean;
        e.extra.emplace_back("interval", fmt_ci(ci, 4));
        std::string med;
        for (std::size_t s = 0; s < c.seeds; ++s)
          med += (med.empty() ? "" : ", ") + fmt(std::exp(er->spike[s]), 3) + " vs " + fmt(std::exp(sm->spike[s]), 3);
        e.extra.emplace_back("max/median gradient norm per seed (exp_rms vs softmax)", med);
        p.verdict = c.seeds < 2 ? Verdict::inconclusive : ci.hi < kSpikeMargin ? Verdict::holds : ci.lo > kSpikeMargin ? Verdict::violated : Verdict::inconclusive;
        p.reason = hs + ": gradient-spike log-ratio difference " + fmt_ci(ci, 4) + " vs margin ln 2" + (c.seeds < 2 ? " (one seed: no interval)" : "");
      }
      parts.emplace_back("(c) stability " + hs, p);
    }
  }
  if (parts.empty()) {
    ClaimResult p;
    p.reason = "the runs lack the softmax / exp_rms pairs of hypothesis (c)";
    parts.emplace_back("(c)", p);
  }
  {
    ClaimResult d = decide_multihead(c);
    d.reason = "the A000-EXP-MULTIHEAD result on the same runs: " + d.reason;
    parts.emplace_back("(d) softmax relies on heads, linear on capacity", d);
  }
  out = combine(parts, {PartSummary::reason, false});
  out.evidence.extra.emplace_back("(a) not decided here", "kernel choice mediates knowledge density vs retrieval precision: no training-run "
                                                         "statistic; its numerical content (per-head dimension vs capacity per kernel) is A000-CAP-RECALL");
  out.evidence.extra.emplace_back("(b) not decided here", "multi-head trades retrieval precision for expressivity / enhances superposition: no "
                                                         "training-run statistic; see A000-CAP-RECALL (capacity per head dimension)");
  out.evidence.extra.emplace_back("note", "per-head RMSNorm is invariant to the per-row factor 1/Z_t, so exp_rms = RMSNorm(softmax attention) up to eps: "
                                          "(c) compares 'normaliser + nothing' with 'normaliser + per-head RMSNorm' in effect");
  add_run_evidence(out, c, r, cfg);
  out.reason += " [(a), (b): not decidable by a training run, see A000-CAP-RECALL]";
  if (cfg.quick) {
    out.verdict = Verdict::inconclusive;
    out.reason = "quick mode: a smoke run of the pipeline (1 seed, 3 steps; the full campaign trains 5 seeds x 200 steps): " + out.reason;
  }
  return out;
}

}  // namespace

void register_a000_multihead_experiment(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A000-EXP-MULTIHEAD", "one head helps linear attention and hurts softmax attention (Fig. 2), scaled-down LM", reproduction, false,
      a000_exp_multihead);
  add("A000-KERNEL-HYP", "kernel / multi-head / normalisation hypotheses (experimental/qualitative; (c), (d) decided)", reproduction, false,
      a000_kernel_hyp);
}

}  // namespace recall
