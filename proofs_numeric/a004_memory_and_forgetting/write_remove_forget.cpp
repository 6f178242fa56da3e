// Memory and Forgetting (seed A004): "Write-only access << read-write access" (an additive memory gets
// clogged; one that can read and remove does better) and "since state is constant size, forgetting is
// important". One stream harness (the spec's design (b) of A004-WRITEONLY-CLOG, reused by
// A004-FORGET-IMPORTANT); the memories are the references of A004-UPD-LA (ref::linear_attention),
// A004-UPD-DELTANET (ref::delta_rule) and A004-UPD-MAMBA2 at constant alpha (ref::gated_linear_attention
// with log gate ln alpha).
// Spec IDs: A004-WRITEONLY-CLOG, A004-FORGET-IMPORTANT.
#include "recall/proofs/claims.hpp"
#include "recall/proofs/ledger.hpp"
#include "recall/reference/delta_rule.hpp"
#include "recall/reference/linear_attention.hpp"
#include "claim_support.hpp"
#include "t_interval.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;

// Relative retrieval errors e_j = ||S k_j - v_j|| / ||v_j|| of a final state S (d_v x d_k), averaged over the
// most recent m pairs and over all pairs.
struct Errors {
  double recent1 = 0, recent4 = 0, recent_q = 0, all = 0;  // m = 1, 4, d_k / 4; all pairs
};
template <class Sc> Errors retrieval_errors(const ref::Matrix<Sc>& S, const ref::Matrix<Sc>& K, const ref::Matrix<Sc>& V) {
  const std::size_t n = K.rows, dk = K.cols, dv = V.cols, q = std::max<std::size_t>(1, dk / 4);
  std::vector<double> e(n);
  for (std::size_t j = 0; j < n; ++j) {
    double num = 0, den = 0;
    for (std::size_t a = 0; a < dv; ++a) {
      Sc o(0);
      for (std::size_t b = 0; b < dk; ++b) o += S(a, b) * K(j, b);
      const double r = static_cast<double>(o - V(j, a));
      num += r * r;
      den += static_cast<double>(V(j, a) * V(j, a));
    }
    e[j] = std::sqrt(num / den);
  }
  auto tail = [&](std::size_t m) {
    m = std::min(m, n);
    double s = 0;
    for (std::size_t j = n - m; j < n; ++j) s += e[j];
    return s / static_cast<double>(m);
  };
  return {tail(1), tail(4), tail(q), tail(n)};
}

// A memory of the harness: its final state after writing (K, V).
struct Memory {
  std::string name;
  std::function<DM(const DM&, const DM&)> state;
};
Memory la_memory() {
  return {"write-only LA", [](const DM& K, const DM& V) { return ref::linear_attention(K, K, V).state; }};
}
Memory delta_memory(double beta) {
  return {"read-write DeltaNet beta=" + fmt(beta, 2),
          [beta](const DM& K, const DM& V) { return ref::delta_rule(K, K, V, std::vector<double>(K.rows, beta)).state; }};
}
Memory decay_memory(double alpha) {
  return {"Mamba2 alpha=" + fmt(alpha, 3), [alpha](const DM& K, const DM& V) {
            return ref::gated_linear_attention(K, K, V, std::vector<double>(K.rows, std::log(alpha))).state;
          }};
}

// Keys uniform on the unit sphere, values N(0, I): the spec's stream of design (b).
void stream(Rng& g, std::size_t n, std::size_t dk, std::size_t dv, DM& K, DM& V) {
  K = gauss(g, n, dk);
  for (std::size_t j = 0; j < n; ++j) normalize_row(K, j);
  V = gauss(g, n, dv);
}

// Paired comparison over seeds of the recent-pair error (m = `which`: 0 -> 1, 1 -> 4) of memory a minus memory b:
// mean and 95% t interval.
struct Paired {
  double mean = 0, lo = 0, hi = 0, a = 0, b = 0;
  std::string str() const { return fmt(a, 4) + " vs " + fmt(b, 4) + ", difference " + fmt(mean, 4) + " [" + fmt(lo, 4) + ", " + fmt(hi, 4) + "]"; }
};
Paired paired(const std::vector<double>& xa, const std::vector<double>& xb) {
  std::vector<double> d(xa.size());
  for (std::size_t i = 0; i < xa.size(); ++i) d[i] = xa[i] - xb[i];
  const Ci c = mean_t_ci(d);
  Paired p;
  p.a = mean_t_ci(xa).mean;
  p.b = mean_t_ci(xb).mean;
  p.mean = c.mean;
  p.lo = c.lo;
  p.hi = c.hi;
  return p;
}

struct Cell {
  std::size_t dk, n;
  std::vector<std::vector<Errors>> err;  // [memory][seed]
};
std::vector<Cell> run_streams(const std::vector<Memory>& mems, std::uint64_t seed, const CheckConfig& cfg, const std::vector<std::size_t>& mults_num,
                              std::size_t mult_den) {
  const int seeds = cfg.quick ? 40 : 200;
  std::vector<Cell> cells;
  for (std::size_t dk : {std::size_t(16), std::size_t(64)})
    for (std::size_t mn : mults_num) {
      Cell c{dk, dk * mn / mult_den, std::vector<std::vector<Errors>>(mems.size())};
      for (int s = 0; s < seeds; ++s) {
        Rng g(mix(mix(seed, dk * 1000 + c.n), static_cast<std::uint64_t>(s)));
        DM K, V;
        stream(g, c.n, dk, 16, K, V);
        for (std::size_t m = 0; m < mems.size(); ++m) c.err[m].push_back(retrieval_errors(mems[m].state(K, V), K, V));
      }
      cells.push_back(std::move(c));
    }
  return cells;
}
std::vector<double> pick(const std::vector<Errors>& v, double Errors::*f) {
  std::vector<double> x;
  for (const Errors& e : v) x.push_back(e.*f);
  return x;
}
std::string cell_name(const Cell& c) { return "d_k=" + std::to_string(c.dk) + ", n=" + std::to_string(c.n); }

// =============================================================================================
// A004-WRITEONLY-CLOG. (a) One unit key written twice, values a then b (orthonormal), at cfg.digits: S k is
// a + b for LA (clogged: the old value stays), b for DeltaNet beta = 1 (removed), a/4 + b/2 for beta = 0.5
// (R-ID, evidence). (b) Streams: d_k in {16, 64}, d_v = 16, n in {d_k/2, d_k, 2 d_k, 8 d_k, 32 d_k} (quick: up
// to 8 d_k), unit keys, Gaussian values, 200 seeds (quick 40); paired recent-pair error (m = 1 and 4) of
// write-only minus read-write (beta in {0.5, 1}), 95% t interval. Supported at a configuration when the
// interval lies above 0. Verdict: holds when supported at every configuration with n >= d_k (the state is
// full) for both m and both betas; violated when at such a configuration the write-only memory is better
// (interval below 0); else inconclusive. n < d_k is listed (no clogging expected there).
// =============================================================================================
ClaimResult a004_writeonly_clog(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A004-WRITEONLY-CLOG");
  ClaimResult res;
  auto& e = res.evidence;
  e.seed = cfg.seed;
  e.digits = cfg.digits;
  // (a)
  {
    MpDigitsScope sc(cfg.digits);
    MM K(2, 2), V(2, 2);
    const mp_t r = 1 / boost::multiprecision::sqrt(mp_t(2));
    K(0, 0) = K(1, 0) = r, K(0, 1) = K(1, 1) = r;  // the same unit key twice
    V(0, 0) = 1, V(0, 1) = 0, V(1, 0) = 0, V(1, 1) = 1;  // a = e1, b = e2
    auto read = [&](const MM& S) {
      std::vector<mp_t> o(2, mp_t(0));
      for (std::size_t a = 0; a < 2; ++a)
        for (std::size_t b = 0; b < 2; ++b) o[a] += S(a, b) * K(0, b);
      return o;
    };
    const auto la = read(ref::linear_attention(K, K, V).state);
    const auto d1 = read(ref::delta_rule(K, K, V, std::vector<mp_t>(2, mp_t(1))).state);
    const auto d5 = read(ref::delta_rule(K, K, V, std::vector<mp_t>(2, mp_t(0.5))).state);
    const double dev = std::max({to_d(abs(la[0] - 1)), to_d(abs(la[1] - 1)), to_d(abs(d1[0])), to_d(abs(d1[1] - 1)), to_d(abs(d5[0] - mp_t(0.25))),
                                 to_d(abs(d5[1] - mp_t(0.5)))});
    e.extra.emplace_back("(a) repeated key", "S k (in the basis a, b): LA (" + fmt(to_d(la[0]), 6) + ", " + fmt(to_d(la[1]), 6) + "), DeltaNet beta=1 (" +
                                                 fmt(to_d(d1[0]), 6) + ", " + fmt(to_d(d1[1]), 6) + "), beta=0.5 (" + fmt(to_d(d5[0]), 6) + ", " +
                                                 fmt(to_d(d5[1]), 6) + "); largest deviation from (1,1), (0,1), (1/4,1/2): " + fmt(dev, 3));
  }
  // (b)
  const std::vector<Memory> mems = {la_memory(), delta_memory(0.5), delta_memory(1.0)};
  const std::vector<std::size_t> mults = cfg.quick ? std::vector<std::size_t>{1, 2, 4, 16} : std::vector<std::size_t>{1, 2, 4, 16, 64};
  const auto cells = run_streams(mems, cs, cfg, mults, 2);
  bool all_supported = true, any_reversed = false;
  std::string reversed_at, unsupported_at;
  for (const Cell& c : cells) {
    std::string row;
    for (std::size_t m = 1; m < mems.size(); ++m)
      for (auto [f, mname] : {std::pair{&Errors::recent1, "m=1"}, std::pair{&Errors::recent4, "m=4"}}) {
        const Paired p = paired(pick(c.err[0], f), pick(c.err[m], f));
        row += (row.empty() ? "" : "; ") + mems[m].name + " " + mname + ": " + p.str();
        if (c.n >= c.dk) {
          if (!(p.lo > 0)) {
            all_supported = false;
            if (unsupported_at.empty()) unsupported_at = cell_name(c) + ", " + mems[m].name + ", " + mname + ": " + p.str();
          }
          if (p.hi < 0 && !any_reversed) any_reversed = true, reversed_at = cell_name(c) + ", " + mems[m].name + ", " + mname + ": " + p.str();
        }
      }
    const Paired all_pairs = paired(pick(c.err[0], &Errors::all), pick(c.err[2], &Errors::all));
    e.extra.emplace_back(cell_name(c) + (c.n < c.dk ? " (state not full)" : ""), row + "; all pairs, LA vs beta=1: " + all_pairs.str());
    e.instances += static_cast<int>(c.err[0].size());
  }
  e.statistic = "paired recent-pair retrieval error, write-only LA minus read-write DeltaNet (95% t interval), at n >= d_k";
  e.threshold = 0;
  e.sizes = "d_k in {16, 64}, d_v = 16, n/d_k in {1/2, 1, 2, 8" + std::string(cfg.quick ? "" : ", 32") + "}, " + (cfg.quick ? "40" : "200") + " seeds";
  e.witness = any_reversed ? reversed_at : unsupported_at.empty() ? "supported at every configuration with n >= d_k" : unsupported_at;
  if (any_reversed) {
    res.verdict = Verdict::violated;
    res.reason = "the write-only memory retrieves recent pairs better at a full state: " + reversed_at;
  } else if (all_supported) {
    res.verdict = Verdict::holds;
    res.reason = "once the state is full (n >= d_k) the read-write memory retrieves the recent pairs better at every configuration, and the "
                 "repeated-key test shows why: LA returns a + b, DeltaNet beta = 1 returns b";
  } else {
    res.verdict = Verdict::inconclusive;
    res.reason = "not supported at every full-state configuration: " + unsupported_at;
  }
  return res;
}

// =============================================================================================
// A004-FORGET-IMPORTANT: the same streams written into the constant-decay memory S_t = alpha S_{t-1} + v_t k_t^T,
// alpha in {1, 0.99, 0.95, 0.9, 0.5} (alpha = 1: linear attention). For n >> d_k (n in {8 d_k, 32 d_k}; quick 8 d_k):
// supported at a configuration when some alpha < 1 has a lower recent-pair error (m = 1 and m = 4) than alpha = 1
// with the paired interval above 0. Verdict: holds when supported at every such configuration; violated when at
// one alpha = 1 is better than every alpha < 1 (intervals below 0); else inconclusive. Old-pair errors (all pairs)
// are reported: forgetting trades them away.
// =============================================================================================
ClaimResult a004_forget_important(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A004-FORGET-IMPORTANT");
  const std::vector<double> alphas = {1.0, 0.99, 0.95, 0.9, 0.5};
  std::vector<Memory> mems;
  for (double a : alphas) mems.push_back(a == 1.0 ? Memory{"alpha=1 (LA)", la_memory().state} : decay_memory(a));
  const std::vector<std::size_t> mults = cfg.quick ? std::vector<std::size_t>{2, 16} : std::vector<std::size_t>{2, 16, 64};
  const auto cells = run_streams(mems, cs, cfg, mults, 2);
  ClaimResult res;
  auto& e = res.evidence;
  e.seed = cfg.seed;
  bool all_supported = true, any_reversed = false;
  std::string first_bad;
  for (const Cell& c : cells) {
    std::string row;
    for (auto [f, mname] : {std::pair{&Errors::recent1, "m=1"}, std::pair{&Errors::recent4, "m=4"}}) {
      bool some_better = false, all_worse = true;
      for (std::size_t m = 1; m < mems.size(); ++m) {
        const Paired p = paired(pick(c.err[0], f), pick(c.err[m], f));
        some_better = some_better || p.lo > 0;
        all_worse = all_worse && p.hi < 0;
        row += (row.empty() ? "" : "; ") + mems[m].name + " " + mname + ": " + p.str();
      }
      if (c.n >= 8 * c.dk) {
        if (!some_better) {
          all_supported = false;
          if (first_bad.empty()) first_bad = cell_name(c) + " " + mname + ": no alpha < 1 is better";
        }
        if (all_worse) any_reversed = true, first_bad = cell_name(c) + " " + mname + ": alpha = 1 is better than every alpha < 1";
      }
    }
    std::string old_pairs;
    for (std::size_t m = 0; m < mems.size(); ++m)
    {
      double mean = 0;
      for (const Errors& x : c.err[m]) mean += x.all / static_cast<double>(c.err[m].size());
      old_pairs += (m ? ", " : "") + mems[m].name + " " + fmt(mean, 4);
    }
    e.extra.emplace_back(cell_name(c), row + "; all-pair errors: " + old_pairs);
    e.instances += static_cast<int>(c.err[0].size());
  }
  e.statistic = "paired recent-pair error of alpha = 1 minus alpha < 1 (95% t interval), n >= 8 d_k";
  e.threshold = 0;
  e.sizes = "d_k in {16, 64}, d_v = 16, n/d_k in {1, 8" + std::string(cfg.quick ? "" : ", 32") + "}, " + (cfg.quick ? "40" : "200") + " seeds";
  e.witness = first_bad.empty() ? "supported at every configuration with n >= 8 d_k" : first_bad;
  res.verdict = any_reversed ? Verdict::violated : all_supported ? Verdict::holds : Verdict::inconclusive;
  res.reason = any_reversed   ? "forgetting does not help at a long stream: " + first_bad
               : all_supported ? "for n >= 8 d_k a constant decay alpha < 1 retrieves the recent pairs better than alpha = 1 at every configuration "
                                 "(old pairs are traded away: see the all-pair errors)"
                               : "not supported everywhere: " + first_bad;
  return res;
}

}  // namespace

void register_a004_write_remove_forget(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A004-WRITEONLY-CLOG", "Write-only memories get clogged; read-write memories can remove", statistical, false, a004_writeonly_clog);
  add("A004-FORGET-IMPORTANT", "With a constant-size state, forgetting is important", statistical, false, a004_forget_important);
}

}  // namespace recall
