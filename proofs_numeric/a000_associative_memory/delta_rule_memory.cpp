// A000 (associative memory), §2.2.1 and App. 9.1: DeltaNet's Frobenius-norm identity with unit keys
// [derived, supports A000-GD-REG-CLAIMS] and its long-run level, the delta rule in feature space
// (Eq. 37) vs the kernel u-form, and DeltaNet as information aggregation (Eqs. 91-93).
// Spec IDs: A000-DELTANET-FROB, A000-DELTA-KERNEL, A000-DELTANET-INFOAGG.
#include "recall/proofs/ledger.hpp"
#include "recall/reference/delta_rule.hpp"
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/memory_objectives.hpp"
#include "claim_support.hpp"
#include "a000_objective_claims.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::a000_objective;

// ---- A000-DELTANET-FROB ------------------------------------------------------------------------

ClaimResult a000_deltanet_frob(const CheckConfig& cfg) {
  IdentityCheck ic("max over t of rel |‖S_t‖_F^2 - (‖S_{t-1}‖_F^2 - ‖S_{t-1}k_t‖^2 + ‖v_t‖^2)|", cfg.digits);
  Rng g(tag_seed(cfg.seed, "DELTANET-FROB"));
  for (std::size_t T : {1u, 2u, 3u, 7u, 16u})
    for (std::size_t d : {1u, 2u, 3u, 8u}) {
      const DM Q = gauss(g, T, d), V = gauss(g, T, 2);
      DM K = gauss(g, T, d);
      for (std::size_t t = 0; t < T; ++t) normalize(K.row(t), d);
      ic.add("T=" + std::to_string(T) + " d_k=" + std::to_string(d), [&](unsigned digits) {
        MpDigitsScope sc(digits);
        MM k = to_mp(K);
        const MM v = to_mp(V), q = to_mp(Q);
        for (std::size_t t = 0; t < T; ++t) {  // unit keys at the working precision
          mp_t n2(0);
          for (std::size_t j = 0; j < d; ++j) n2 += k(t, j) * k(t, j);
          const mp_t n = sqrt(n2);
          for (std::size_t j = 0; j < d; ++j) k(t, j) /= n;
        }
        MM S(2, d);
        double r = 0;
        for (std::size_t t = 0; t < T; ++t) {
          const MM Sprev = S;
          // one DeltaNet step via the reference (T = 1 run from S_prev)
          MM q1(1, d), k1(1, d), v1(1, 2);
          for (std::size_t j = 0; j < d; ++j) { q1(0, j) = q(t, j); k1(0, j) = k(t, j); }
          for (std::size_t j = 0; j < 2; ++j) v1(0, j) = v(t, j);
          S = ref::delta_rule(q1, k1, v1, MV(1, mp_t(1)), &Sprev).state;
          const MV sk = ref::matvec(Sprev, k1.row(0));
          const mp_t rhs = ref::frob_inner(Sprev, Sprev) - ref::dot(sk.data(), sk.data(), 2) + ref::dot(v1.row(0), v1.row(0), 2);
          r = std::max(r, rel_scalar(ref::frob_inner(S, S), rhs));
        }
        return r;
      });
    }
  ClaimResult id = ic.result(cfg, "T in {1,2,3,7,16}, d_k in {1,2,3,8}, unit keys");
  // long-run level: E ||S_t||_F^2 -> d_k E||v||^2 = d_k d_v for isotropic unit keys, N(0, I) values
  const int seeds = cfg.quick ? 40 : 400;
  ClaimResult lr;
  std::string rows;
  bool ok = true;
  double worst = 0;
  std::string wdesc;
  for (std::size_t dk : {4u, 16u}) {
    const std::size_t dv = 3, T = 60 * dk;
    std::vector<double> lev;
    for (int s = 0; s < seeds; ++s) {
      DM S(dv, dk);
      double acc = 0;
      int n = 0;
      for (std::size_t t = 1; t <= T; ++t) {
        DV k = gauss_vec(g, dk), v = gauss_vec(g, dv);
        normalize(k.data(), dk);
        for (std::size_t i = 0; i < dv; ++i) {
          double e = v[i];
          for (std::size_t j = 0; j < dk; ++j) e -= S(i, j) * k[j];
          for (std::size_t j = 0; j < dk; ++j) S(i, j) += e * k[j];
        }
        if (t > T / 2) { double f = 0; for (double x : S.a) f += x * x; acc += f; ++n; }
      }
      lev.push_back(acc / n);
    }
    const std::vector<double> bm = bootstrap_means(lev, g);
    const double target = static_cast<double>(dk * dv);
    const double mean = std::accumulate(lev.begin(), lev.end(), 0.0) / lev.size();
    rows += (rows.empty() ? "" : "; ") + std::string("d_k=") + std::to_string(dk) + ": level " + fmt(mean, 4) + " CI [" + fmt(bm[4], 4) + ", " +
            fmt(bm[194], 4) + "] vs d_k E||v||^2 = " + fmt(target);
    const double dev = std::fabs(mean / target - 1);
    if (dev > worst) { worst = dev; wdesc = "d_k=" + std::to_string(dk); }
    if (!(bm[4] <= target && target <= bm[194])) ok = false;
  }
  lr.verdict = ok ? Verdict::holds : Verdict::violated;
  lr.reason = ok ? "the 95% CI of the long-run level contains d_k E||v||^2" : "the 95% CI of the long-run level excludes d_k E||v||^2";
  lr.evidence.statistic = "relative deviation of the long-run ||S_t||_F^2 from d_k E||v||^2";
  lr.evidence.value = worst;
  lr.evidence.threshold = 0;
  lr.evidence.witness = wdesc;
  lr.evidence.instances = seeds * 2;
  lr.evidence.sizes = "d_k in {4,16}, d_v = 3, T = 60 d_k, time average over the second half";
  lr.evidence.seed = cfg.seed;
  lr.evidence.extra.emplace_back("levels", rows);
  return combine_parts({{"identity", id}, {"long-run level", lr}});
}

// ---- A000-DELTA-KERNEL -------------------------------------------------------------------------

ClaimResult a000_delta_kernel(const CheckConfig& cfg) {
  IdentityCheck ic("max rel |S-form (feature space) - u-form (kernel space)| outputs", cfg.digits);
  Rng g(tag_seed(cfg.seed, "DELTA-KERNEL"));
  std::string growth;
  double max_growth = 0;
  for (int regime = 0; regime < 2; ++regime)
    for (int fm = 0; fm < 3; ++fm)
      for (std::size_t T : regime == 0 ? std::vector<std::size_t>{1, 2, 3, 7, 16} : std::vector<std::size_t>{1, 2, 3, 5})
        for (std::size_t d : {1u, 2u, 3u}) {
          const DM Q = gauss(g, T, d), V = gauss(g, T, 2);
          DM K = gauss(g, T, d);
          std::uniform_real_distribution<double> U(0.3, 0.85);
          for (std::size_t t = 0; t < T; ++t) normalize(K.row(t), d, regime == 0 ? U(g) : 1.6);  // kappa(k,k) <= 2 / > 2
          const char* fn[3] = {"identity", "poly2 (x(x)x)", "exp_trunc M=2"};
          const std::string desc = std::string(regime ? "kappa(k,k)>2 " : "kappa(k,k)<=2 ") + fn[fm] + " T=" + std::to_string(T) + " d=" + std::to_string(d);
          ic.add(desc, [&, fm, T, d](unsigned digits) {
            MpDigitsScope sc(digits);
            const MM q = to_mp(Q), k = to_mp(K), v = to_mp(V);
            ref::FeatureMap f;
            f.kind = fm == 0 ? ref::FeatureMapKind::identity : fm == 1 ? ref::FeatureMapKind::poly : ref::FeatureMapKind::exp_trunc;
            f.order = 2;
            auto kappa = [fm, d](const mp_t* x, const mp_t* y) {
              const mp_t s = ref::dot(x, y, d);
              if (fm == 0) return s;
              if (fm == 1) return mp_t(s * s);
              return mp_t(1 + s + s * s / 2);
            };
            const MM pq = ref::apply_feature_map(f, q), pk = ref::apply_feature_map(f, k);
            const auto sf = ref::delta_rule(pq, pk, v, MV(T, mp_t(1)));
            MM A(T, T);
            for (std::size_t i = 0; i < T; ++i)
              for (std::size_t j = 0; j < i; ++j) A(i, j) = kappa(k.row(j), k.row(i));
            const MM U_ = ref::unit_lower_solve(A, v);
            const MM O = ref::kernel_attention_unnormalized(q, k, U_, kappa);
            if (digits == cfg.digits) max_growth = std::max(max_growth, to_d(ref::frob(sf.state)));
            return rel_max(O, sf.O);
          });
        }
  growth = fmt(max_growth);
  ClaimResult r = ic.result(cfg, "phi in {identity, x(x)x, exp_trunc M=2}, T <= 16 (<= 5 in the growth regime), d in {1,2,3}");
  r.evidence.extra.emplace_back("max ||S_T||_F over instances (growth regime included)", growth);
  return r;
}

// ---- A000-DELTANET-INFOAGG ---------------------------------------------------------------------

ClaimResult a000_deltanet_infoagg(const CheckConfig& cfg) {
  IdentityCheck ic("max over t of rel residual of each Eq. 93 equality (and vs delta_rule)", cfg.digits);
  Rng g(tag_seed(cfg.seed, "DELTANET-INFOAGG"));
  double vanilla_gap = 0;
  for (int adv = 0; adv < 2; ++adv)
    for (std::size_t T : adv ? std::vector<std::size_t>{1, 2, 3, 6} : std::vector<std::size_t>{1, 2, 3, 7, 16})
      for (std::size_t d : {1u, 2u, 3u, 5u}) {
        DM K = gauss(g, T, d), V = gauss(g, T, 2), Q = gauss(g, T, d);
        if (adv)
          for (std::size_t t = 0; t < T; ++t) normalize(K.row(t), d, 1.7);  // ||k||^2 = 2.89 > 2
        ic.add(std::string(adv ? "||k||^2=2.89 " : "gaussian keys ") + "T=" + std::to_string(T) + " d=" + std::to_string(d), [&](unsigned digits) {
          MpDigitsScope sc(digits);
          const MM k = to_mp(K), v = to_mp(V), q = to_mp(Q);
          const auto c = ref::deltanet_infoagg_chain(k, v);
          double r = 0;
          for (std::size_t t = 1; t <= T; ++t) {
            r = std::max(r, rel_max(c.agg[t], c.resid[t]));
            r = std::max(r, rel_max(c.resid[t], c.prod[t]));
            // Eq. 92 u_t equals the residual v_t - S_{t-1} k_t of the product chain
            MV e = ref::matvec(c.prod[t - 1], k.row(t - 1));
            MM ut(1, 2), et(1, 2);
            for (std::size_t j = 0; j < 2; ++j) { ut(0, j) = c.U(t - 1, j); et(0, j) = v(t - 1, j) - e[j]; }
            r = std::max(r, rel_max(ut, et));
          }
          r = std::max(r, rel_max(c.prod[T], ref::delta_rule(q, k, v, MV(T, mp_t(1))).state));
          if (digits == cfg.digits && T >= 2) vanilla_gap = std::max(vanilla_gap, rel_max(c.vanilla[T], c.prod[T]));
          return r;
        });
      }
  ClaimResult r = ic.result(cfg, "T <= 16, d in {1,2,3,5}, Gaussian keys and ||k||^2 = 2.89");
  r.evidence.extra.emplace_back("contrast: max rel gap vanilla Eq. 91 vs DeltaNet", fmt(vanilla_gap));
  return r;
}

}  // namespace

void register_a000_delta_rule_memory(Ledger& l) {
  const auto add = claim_support::claim_adder(l);
  using namespace check_class;
  add("A000-DELTANET-FROB", "Frobenius-norm identity for DeltaNet with unit keys [derived]", identity, true, a000_deltanet_frob);
  add("A000-DELTA-KERNEL", "Delta rule in feature space (Eq. 37) vs the kernel u-form", identity, true, a000_delta_kernel);
  add("A000-DELTANET-INFOAGG", "DeltaNet as information aggregation (Eqs. 91-93)", identity, false, a000_deltanet_infoagg);
}

}  // namespace recall
