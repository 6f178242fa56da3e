// Paper A000 (associative memory), §2.1: recall capacity of kernel memories, measured (the derived
// experiment A000-CAP-RECALL) and the two capacity statements it tests, linear (A000-CAP-LINEAR: the
// required dimension is O(N)) and exponential (A000-CAP-EXP: O(log^2 N) at tau = sqrt(d_k)); and the
// appendix question of paper A004 on outer-product memories (A004-OUTER-AM-RETRIEVAL), measured with
// the same read-out, for linear attention and DeltaNet memories.
// The harness and the fits are support/capacity_support.hpp; the closed form of CAP-EXP (a) is
// reference/retrieval_snr.hpp (Eq. 13 and the exact conditional E1).
// Spec IDs: A000-CAP-RECALL, A000-CAP-LINEAR, A000-CAP-EXP, A004-OUTER-AM-RETRIEVAL.
#include "recall/proofs/ledger.hpp"
#include "capacity_support.hpp"
#include "claim_support.hpp"

#include "recall/reference/delta_rule.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/retrieval_snr.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::capacity;
namespace rs = ref::snr;

// =============================================================================================
// A000-CAP-RECALL: N*(d_k) for every kernel of §2.1, and the ordering the paper's SNRs imply
// (linear <= ReLU <= exp at tau = sqrt(d_k): Eqs. 7, 15, 13). Verdict: the ordering at every d_k
// where both capacities are measured (censored ones compare as "> cap"); a reversal is the witness.
// =============================================================================================
ClaimResult a000_cap_recall(const CheckConfig& cfg) {
  const Sweep& sw = sweep(cfg);
  ClaimResult res;
  auto& e = res.evidence;
  e.statistic = "reversals of the capacity order N*_linear <= N*_ReLU <= N*_exp(tau = sqrt d_k) that reproduce on independent data";
  e.threshold = 0;
  e.seed = cfg.seed;
  e.sizes = sw.sizes;
  e.instances = sw.evaluations;
  std::string witness, unconfirmed;
  int reversals = 0;
  auto cmp = [&](const KernelSpec& a, const KernelSpec& b) {
    for (std::size_t j = 0; j < sw.dks.size(); ++j) {
      const Capacity& ca = sw.at(a, j);
      const Capacity& cb = sw.at(b, j);
      // a censored smaller side, or an unmeasured one, shows no reversal
      if (!ca.measured || ca.censored || !cb.measured || cb.censored || cb.n_star >= ca.n_star) continue;
      const Capacity ra = sw.remeasure(a, sw.dks[j]), rb = sw.remeasure(b, sw.dks[j]);
      const std::string desc = "d_k = " + std::to_string(sw.dks[j]) + ": N*(" + a.name + ") = " + std::to_string(ca.n_star) + " > N*(" + b.name +
                               ") = " + std::to_string(cb.n_star) + "; independent data: " + ra.str() + " vs " + rb.str();
      if (!rb.censored && rb.n_star < ra.n_star) {
        ++reversals;
        if (witness.empty()) witness = desc;
      } else if (unconfirmed.empty()) {
        unconfirmed = desc;
      }
    }
  };
  cmp(kLinear, kRelu);
  cmp(kRelu, kExpSqrt);
  e.value = reversals;
  e.witness = witness.empty() ? "none" : witness;
  if (!unconfirmed.empty()) e.extra.emplace_back("reversal not reproduced", unconfirmed);
  e.extra.emplace_back("table", sw.table());
  e.figures.push_back(sw.figure());
  if (reversals > 0) {
    res.verdict = Verdict::violated;
    res.reason = "the measured capacities do not follow the SNR ordering (Eqs. 7, 15, 13), reproduced on independent data: " + witness;
  } else {
    res.verdict = Verdict::holds;
    res.reason = "N*_linear <= N*_ReLU <= N*_exp(tau = sqrt d_k) at every measured d_k (" + sw.sizes + ")";
  }
  return res;
}

// Spec README §2's scaling rule for "O(n^e)": holds if the exponent's CI upper end <= e + 0.05, violated
// if its lower end > e + 0.05, else inconclusive; fewer than 3 points: inconclusive.
Verdict scaling_rule(const Fit& f, double e) { return f.points < 3 ? Verdict::inconclusive : decide_upper(f, e); }

// =============================================================================================
// A000-CAP-LINEAR: "accurate retrieval with the linear kernel needs d_k >~ N (required dimension O(N))".
// Decided on the parenthetical O(N) (an upper bound on the required dimension, the scaling rule's O()).
// The scaling rule on the exponent e of the required dimension, d_req ~ N^e: ln d_k regressed on ln N*
// over the sweep (e = 1 / gamma of N* ~ d_k^gamma). Evidence: gamma (the necessity reading, N* = O(d_k):
// gamma <= 1.05) and the exponent with the argmax criterion's log factor divided out, d_req ~ (N ln N)^e.
// =============================================================================================
ClaimResult a000_cap_linear(const CheckConfig& cfg) {
  const Sweep& sw = sweep(cfg);
  const Fit f = sw.reqdim_power_fit(kLinear);
  const Fit fl = sw.reqdim_nlogn_fit(kLinear);
  const Fit gam = sw.power_fit(kLinear);
  ClaimResult res;
  auto& e = res.evidence;
  e.statistic = "exponent e of the required dimension d_req ~ N^e, linear kernel (95% CI upper end)";
  e.value = f.hi;
  e.threshold = 1.05;
  e.seed = cfg.seed;
  e.sizes = sw.sizes;
  e.instances = f.points;
  e.witness = "e = " + f.str() + "; N* ~ d_k^gamma, gamma = " + gam.str() + "; d_req ~ (N ln N)^e: e = " + fl.str();
  e.extra.emplace_back("linear N*", sw.row(kLinear));
  e.extra.emplace_back("ReLU N*", sw.row(kRelu) + "; d_req exponent " + sw.reqdim_power_fit(kRelu).str());
  res.verdict = scaling_rule(f, 1.0);
  switch (res.verdict) {
    case Verdict::holds:
      res.reason = "the parenthetical O(N) holds: d_req ~ N^e with e = " + f.str() + " <= 1.05. The necessity reading (d_k >~ N, "
                   "e >= 0.95) is not decided by this range: the measured N* follows an affine law N* ~ a d_k - b (the read-out's "
                   "direct confusion term k_j.k_i |v_j| costs a constant ~d_v), whose log-log slope over d_k <= 128 is gamma = " +
                   gam.str() + " > 1 although its asymptotic exponent is 1";
      break;
    case Verdict::violated:
      res.reason = "d_req ~ N^e with e = " + f.str() + " > 1.05" +
                   (fl.points >= 3 && fl.hi <= 1.05 ? "; the excess is the log factor of a 99% argmax recall among N values "
                                                      "(d_req ~ (N ln N)^" + fmt(fl.slope, 3) + "), which the SNR ~ N/d_k statement leaves out"
                                                    : "");
      break;
    default: res.reason = f.points < 3 ? "fewer than 3 uncensored capacities" : "the exponent's CI " + f.str() + " straddles 1.05";
  }
  return res;
}

// =============================================================================================
// A000-CAP-EXP: "the exponential kernel reduces the required dimension from O(N) to O(log^2 N) when
// tau = sqrt(d_k)". Two parts, each under the scaling rule with e = 2 on d_req ~ (ln N)^e:
//  (a) analytic: the least d_k with inverse SNR <= eps from Eq. 13 at tau = sqrt(d_k), and from the exact
//      conditional E1, eps in {0.01, 0.1}, N = 10^2..10^8: the largest local exponent d ln d_min / d ln ln N
//      (exact, no CI);
//  (b) empirical: ln d_k regressed on ln ln N* over the sweep at tau = sqrt(d_k).
// The verdict is violated if either part is, holds if both do. Evidence: the spec's fits, ln N* vs
// sqrt(d_k) at tau = sqrt(d_k) and ln N* vs d_k at tau in {1.5, 2, 4}.
// =============================================================================================
ClaimResult a000_cap_exp(const CheckConfig& cfg) {
  ClaimResult res;
  auto& e = res.evidence;
  e.seed = cfg.seed;
  double worst_local = 0;
  std::string worst_at;
  {
    MpDigitsScope sc(cfg.digits);
    for (double eps : {0.01, 0.1})
      for (int form = 0; form < 2; ++form) {
        // ln of the inverse SNR per unit N (Eq. 13 with N = 1; E1 with N - 1 = 1) at d_k = d, tau = sqrt(d)
        auto ln_inv_snr = [&](double d) {
          const mp_t dk(d), tau = boost::multiprecision::sqrt(mp_t(d));
          return to_d(boost::multiprecision::log(form == 0 ? rs::eq13(dk, mp_t(1), tau) : rs::conditional(rs::Kernel::exp, dk, mp_t(2), tau)));
        };
        // d_min(N): ln inverse SNR + ln N <= ln eps; decreasing in d for d > 1 (bisection to 1e-12 relative)
        auto dmin = [&](double lnN) {
          const double target = std::log(eps) - lnN;
          double lo = 1.0, hi = 4.0;
          while (ln_inv_snr(hi) > target) hi *= 2;
          while (hi - lo > 1e-12 * hi) {
            const double mid = 0.5 * (lo + hi);
            (ln_inv_snr(mid) > target ? lo : hi) = mid;
          }
          return hi;
        };
        std::string row;
        double prev_l = 0, prev_d = 0;
        for (int p = 2; p <= 8; ++p) {
          const double lnN = p * std::log(10.0), d = dmin(lnN);
          row += (p > 2 ? ", " : "") + std::string("N=1e") + std::to_string(p) + ": " + fmt(d, 5) + " (/ln^2 N = " + fmt(d / (lnN * lnN), 3) + ")";
          if (p > 2) {
            const double local = std::log(d / prev_d) / std::log(lnN / prev_l);
            if (local > worst_local) {
              worst_local = local;
              worst_at = std::string(form == 0 ? "Eq. 13" : "E1") + ", eps = " + fmt(eps, 2) + ", N 1e" + std::to_string(p - 1) + " -> 1e" + std::to_string(p);
            }
          }
          prev_l = lnN;
          prev_d = d;
        }
        e.extra.emplace_back(std::string("d_min, ") + (form == 0 ? "Eq. 13" : "E1") + ", eps = " + fmt(eps, 2), row);
      }
  }
  const Verdict va = worst_local <= 2.05 ? Verdict::holds : Verdict::violated;
  const Sweep& sw = sweep(cfg);
  const Fit f = sw.reqdim_log_fit(kExpSqrt);
  const Verdict vb = scaling_rule(f, 2.0);
  e.extra.emplace_back("exp(tau=sqrt dk) N*", sw.row(kExpSqrt) + "; ln N* vs sqrt(d_k) slope " + sw.sqrt_fit(kExpSqrt).str());
  for (const KernelSpec* k : {&kExpTau15, &kExpTau2, &kExpTau4})
    e.extra.emplace_back(std::string(k->name) + " N*", sw.row(*k) + "; ln N* vs d_k slope " + sw.semilog_fit(*k).str());
  e.statistic = "exponent e of d_req ~ (ln N)^e at tau = sqrt d_k: (b) measured, 95% CI upper end";
  e.value = f.hi;
  e.threshold = 2.05;
  e.sizes = sw.sizes;
  e.instances = f.points;
  e.witness = "(a) worst local exponent " + fmt(worst_local, 4) + " at " + worst_at + "; (b) e = " + f.str();
  const std::string a_txt = "(a) d_min from Eq. 13 and E1 grows like (ln N)^e with local e <= " + fmt(worst_local, 4);
  if (va == Verdict::violated || vb == Verdict::violated) {
    res.verdict = Verdict::violated;
    res.reason = va == Verdict::violated ? "(a) the closed form's required dimension grows faster than ln^2 N: local exponent " + fmt(worst_local, 4) + " at " + worst_at
                                         : a_txt + "; but (b) the measured capacity needs d_k ~ (ln N)^e with e = " + f.str() + " > 2.05";
  } else if (vb == Verdict::holds) {
    res.verdict = Verdict::holds;
    res.reason = a_txt + "; (b) measured e = " + f.str() + " <= 2.05";
  } else {
    res.verdict = Verdict::inconclusive;
    res.reason = a_txt + " (holds); (b) " + (f.points < 3 ? std::string("fewer than 3 uncensored capacities at tau = sqrt d_k")
                                                          : "the measured exponent's CI " + f.str() + " straddles 2.05");
  }
  return res;
}

// =============================================================================================
// A004-OUTER-AM-RETRIEVAL: the appendix asks how many memories an outer-product memory stores and at
// what error rate; no claim. Measured: relative retrieval error ||S k_mu - v_mu|| / ||v_mu|| and argmax
// recall vs P/d_k, d_k in {16, 64, 256}, for S = sum v k^T (A004-UPD-LA, ref::linear_attention) and the
// DeltaNet memory (A004-UPD-DELTANET, beta = 1, unit keys, ref::delta_rule), keys Gaussian, unit and
// orthonormal (P <= d_k). The verdict is inconclusive by the item's rule (measurement only); the
// numbers are in the evidence and the figure.
// =============================================================================================
ClaimResult a004_outer_am_retrieval(const CheckConfig& cfg) {
  const Retrieval rt = outer_product_retrieval(cfg);
  ClaimResult res;
  auto& e = res.evidence;
  e.statistic = "retrieval relative error and argmax recall vs P/d_k (measurement)";
  e.value = rt.la_recall_at_one;
  e.threshold = 0;
  e.seed = cfg.seed;
  e.sizes = rt.sizes;
  e.instances = rt.instances;
  e.witness = rt.summary;
  for (const auto& [k, v] : rt.rows) e.extra.emplace_back(k, v);
  e.figures.push_back(rt.figure);
  res.verdict = Verdict::inconclusive;
  res.reason = "measurement only (the appendix asks, it does not claim): " + rt.summary;
  return res;
}

}  // namespace

void register_a000_capacity(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A000-CAP-RECALL", "Recall capacity N*(d_k) of every kernel; ordering linear <= ReLU <= exp", reproduction, false, a000_cap_recall);
  add("A000-CAP-LINEAR", "Linear kernel: accurate retrieval needs d_k ~ N (N* ~ d_k)", scaling, false, a000_cap_linear);
  add("A000-CAP-EXP", "Exp kernel at tau = sqrt d_k: required dimension O(log^2 N)", scaling, false, a000_cap_exp);
  add("A004-OUTER-AM-RETRIEVAL", "Outer-product memory: how many memories, what error rate (measured)", descriptive, false,
      a004_outer_am_retrieval);
}

}  // namespace recall
