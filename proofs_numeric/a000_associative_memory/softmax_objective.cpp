// A000 (associative memory), §2.2.2, Eq. 49 (= Eq. 80) and the text after it: the vanishing update
// of normalised softmax attention (the update identity along the Eq. 79 recurrence, and the decay
// exponents of gradient, objective and update with t).
// Spec IDs: A000-SOFTMAX-OBJ.
#include "recall/proofs/claims.hpp"
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

// ---- A000-SOFTMAX-OBJ --------------------------------------------------------------------------

ClaimResult a000_softmax_obj(const CheckConfig& cfg) {
  // (a) identity S_t - S_{t-1} = (1/t)(v_t phi(k_t)^T - S_{t-1}) along the Eq. 79 recurrence (50 digits)
  IdentityCheck ic("max rel |S_t - S_{t-1} - (v phi^T - S_{t-1})/t|", cfg.digits);
  Rng g(tag_seed(cfg.seed, "SOFTMAX-OBJ"));
  for (std::size_t T : {1u, 2u, 3u, 10u, 50u}) {
    const DM K = gauss(g, T, 2), V = gauss(g, T, 2);
    ic.add("T=" + std::to_string(T) + " phi_2", [&](unsigned digits) {
      MpDigitsScope sc(digits);
      const MM pk = ref::apply_feature_map(exp2_map(), to_mp(K)), v = to_mp(V);
      const auto S = ref::general_recurrence<mp_t>(MM(2, pk.cols), T, [&](std::size_t t) { return ref::smnorm_abc(row_vec(pk, t - 1), row_vec(v, t - 1), t); });
      double r = 0;
      for (std::size_t t = 1; t <= T; ++t) {
        const MM lhs = ref::add(S[t], S[t - 1], mp_t(-1));
        const MM rhs = ref::scaled(ref::add(ref::outer(row_vec(v, t - 1), row_vec(pk, t - 1)), S[t - 1], mp_t(-1)), mp_t(mp_t(1) / mp_t(t)));
        r = std::max(r, rel_max(lhs, rhs));
      }
      return r;
    });
  }
  ClaimResult id = ic.result(cfg, "T in {1,2,3,10,50}, phi_2, d = 2");
  // (b) decay exponents along the recurrence, fp64, Gaussian data, phi = identity (d_k = 4, d_v = 3)
  const std::size_t Tm = cfg.quick ? 10000 : 1000000;
  std::vector<double> grid;
  for (std::size_t t = 10; t <= Tm; t *= 10) grid.push_back(static_cast<double>(t));
  const int seeds = cfg.quick ? 12 : 100;
  const std::size_t dk = 4, dv = 3;
  // quantities: 0 ||grad||_F, 1 |L|, 2 ||S_t - S_{t-1}||_F; 3 unnormalised gradient ||v phi^T||; 4 update norm with ||v_t|| ~ t
  std::vector<std::vector<std::vector<double>>> Y(5);
  for (int s = 0; s < seeds; ++s) {
    std::vector<std::vector<double>> row(5);
    for (int stream = 0; stream < 2; ++stream) {
      DM S(dv, dk);
      std::size_t gi = 0;
      for (std::size_t t = 1; t <= Tm; ++t) {
        const DV k = gauss_vec(g, dk);
        DV v = gauss_vec(g, dv);
        if (stream == 1) for (double& x : v) x *= static_cast<double>(t);
        const double tf = static_cast<double>(t);
        if (stream == 0 && gi < grid.size() && t == static_cast<std::size_t>(grid[gi])) {
          double g2 = 0, sf = 0, skv = 0, u2 = 0;
          for (std::size_t i = 0; i < dv; ++i) {
            double ski = 0;
            for (std::size_t j = 0; j < dk; ++j) {
              const double gr = (S(i, j) - v[i] * k[j]) / tf;
              g2 += gr * gr;
              sf += S(i, j) * S(i, j);
              ski += S(i, j) * k[j];
              u2 += v[i] * v[i] * k[j] * k[j];
            }
            skv += ski * v[i];
          }
          row[0].push_back(std::sqrt(g2));
          row[1].push_back(std::fabs((0.5 * sf - skv) / tf));
          row[2].push_back(std::sqrt(g2));  // ||S_t - S_{t-1}|| = ||grad|| (unit step); recomputed below
          row[3].push_back(std::sqrt(u2));
        }
        double d2 = 0;
        for (std::size_t i = 0; i < dv; ++i)
          for (std::size_t j = 0; j < dk; ++j) {
            const double nv = (tf - 1) / tf * S(i, j) + v[i] * k[j] / tf;
            d2 += (nv - S(i, j)) * (nv - S(i, j));
            S(i, j) = nv;
          }
        if (gi < grid.size() && t == static_cast<std::size_t>(grid[gi])) {
          if (stream == 0) row[2].back() = std::sqrt(d2);
          else row[4].push_back(std::sqrt(d2));
          ++gi;
        }
      }
    }
    for (int q = 0; q < 5; ++q) Y[q].push_back(row[q]);
  }
  const char* qn[5] = {"||grad L_t||_F", "|L_t(S_{t-1})|", "||S_t - S_{t-1}||_F", "unnormalised gradient ||v phi^T||_F",
                       "||S_t - S_{t-1}||_F with ||v_t|| ~ t (adversarial)"};
  ClaimResult st;
  double worst_hi = -1e300;
  std::string wdesc;
  for (int q = 0; q < 5; ++q) {
    const SlopeCI ci = slope_ci(Y[q], grid, g);
    st.evidence.extra.emplace_back(std::string("decay exponent of ") + qn[q], fmt(ci.slope) + " [" + fmt(ci.lo) + ", " + fmt(ci.hi) + "]");
    if (q < 3 && ci.hi > worst_hi) { worst_hi = ci.hi; wdesc = qn[q]; }
  }
  st.evidence.statistic = "upper end of the 95% CI of the decay exponent (Gaussian data), worst of gradient, objective, update";
  st.evidence.value = worst_hi;
  st.evidence.threshold = 0;
  st.evidence.witness = wdesc;
  st.evidence.instances = seeds;
  st.evidence.sizes = "d_k = 4, d_v = 3, phi = identity, t up to " + std::to_string(Tm) + ", " + std::to_string(seeds) + " seeds";
  st.evidence.seed = cfg.seed;
  st.verdict = worst_hi < 0 ? Verdict::holds : Verdict::violated;
  st.reason = worst_hi < 0 ? "gradient, objective and update all decay with t for Gaussian data (the non-stationary stream with "
                             "||v_t|| ~ t keeps updating; see extra)"
                           : "some quantity does not decay with t";
  return combine_parts({{"update identity", id}, {"decay", st}});
}

}  // namespace

void register_a000_softmax_objective(Ledger& l) {
  const auto add = claim_support::claim_adder(l);
  using namespace check_class;
  add("A000-SOFTMAX-OBJ", "Vanishing update for normalised softmax attention (Eq. 49)", statistical, false, a000_softmax_obj);
}

}  // namespace recall
