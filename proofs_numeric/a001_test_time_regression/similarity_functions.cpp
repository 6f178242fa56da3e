// Paper A001 (test-time regression), similarity functions: the exponentiated scaled dot product of §2 Eq. (1)
// and §4 Eqs. (44)-(47), and the Gaussian (exponential smoothing) kernel of §4 Vignette 4 (before Eq. 48, Eq. 51).
// Spec IDs: A001-SIM-DOTEXP, A001-SIM-GAUSS.
#include "recall/reference/nadaraya_watson.hpp"
#include "claim_support.hpp"
#include "online_learner_claims.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::softmax_nw;

// =============================================================================================
// A001-SIM-DOTEXP
// =============================================================================================
ClaimResult a001_sim_dotexp(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A001-SIM-DOTEXP");
  Checker ck("max of: symmetry |l(k,q)-l(q,k)|, positivity failures, normalised weights with vs without max-subtraction, "
             "exp(z_max)*scaled_i vs exp(z_i) (relative)",
             cfg.digits);
  double zspread = 0;
  for (const Inst& in : g1_g7(cfg, cs)) {
    ck.add(in.desc, [&](unsigned dg, std::string& where) {
      MpDigitsScope s(dg);
      const MM Q = to_mp(in.Q), K = to_mp(in.K);
      const mp_t tau(in.tau);
      Worst w;
      for (std::size_t t = 0; t < Q.rows; ++t) {
        const std::size_t n = t + 1;
        MV z(n);
        for (std::size_t i = 0; i < n; ++i) {
          z[i] = ref::log_sim_dot(K.row(i), Q.row(t), K.cols, tau);
          const mp_t zr = ref::log_sim_dot(Q.row(t), K.row(i), K.cols, tau);
          w.upd(screl(z[i], zr), "symmetry t=" + std::to_string(t + 1) + " i=" + std::to_string(i + 1));
          const mp_t sv = ref::sim_dot(K.row(i), Q.row(t), K.cols, tau);
          w.upd(sv > 0 ? 0.0 : INFINITY, "positivity t=" + std::to_string(t + 1) + " i=" + std::to_string(i + 1));
        }
        const MV wm = ref::normalized_weights(z), wd = ref::normalized_weights_direct(z);
        w.upd(vecrel(wm, wd), "weights with/without max-subtraction t=" + std::to_string(t + 1));
        // the (max z, scaled weights) pair of the unnormalised use (Eq. 47)
        mp_t zmax = z[0], zmin = z[0];
        for (const mp_t& x : z) {
          if (x > zmax) zmax = x;
          if (x < zmin) zmin = x;
        }
        if (dg == cfg.digits) zspread = std::max(zspread, to_d(mp_t(zmax - zmin)));
        for (std::size_t i = 0; i < n; ++i) {
          const mp_t direct = exp(z[i]), paired = exp(zmax) * exp(mp_t(z[i] - zmax));
          w.upd(to_d(mp_t(abs(mp_t(direct - paired)) / direct)), "pair form t=" + std::to_string(t + 1) + " i=" + std::to_string(i + 1));
        }
      }
      where = w.where;
      return w.r;
    });
  }
  ClaimResult r = ck.result(cfg, "A001 G1 (D_k 1..16, key scale 1e-3..1e3, a logit-1e4 case) and G7 (unit/equal-norm keys, |q| in {0,1,30})");
  r.evidence.extra.emplace_back("largest logit spread z_max - z_min", fmt(zspread));
  r.evidence.extra.emplace_back("precision note",
                                "MPFR's exponent range holds exp(1e4) exactly scaled, so the unnormalised weights are resolved individually at "
                                "the working digits (relative accuracy ~|z| 10^-digits)");
  return r;
}

// =============================================================================================
// A001-SIM-GAUSS
// =============================================================================================

ClaimResult a001_sim_gauss(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A001-SIM-GAUSS");
  Checker ck("max of: |l(q + H(k-q), q) - l(k, q)| / max(1,|l|) for reflections H (distance kept), and monotonicity violations "
             "max(0, l(q + b(k-q)) - l(q + a(k-q))) / max(1,|l|) for 0 <= a < b",
             cfg.digits);
  const std::vector<double> Bs = {1e-2, 0.5, 2.0, 100.0};
  int nin = 0;
  for (const Inst& in : g1_g7(cfg, cs)) {
    for (double Bd : Bs) {
      ++nin;
      const std::uint64_t is = mix(cs, 1000 + nin);
      ck.add(in.desc + " B=" + fmt(Bd), [&](unsigned dg, std::string& where) {
        MpDigitsScope s(dg);
        Rng g(is);
        const MM Q = to_mp(in.Q), K = to_mp(in.K);
        const std::size_t d = K.cols;
        const mp_t B(Bd);
        Worst w;
        for (std::size_t t = 0; t < Q.rows; ++t) {
          const mp_t* q = Q.row(t);
          const mp_t* k = K.row(t);
          const mp_t l0 = ref::log_sim_gauss(k, q, d, B);
          MV diff(d);
          for (std::size_t j = 0; j < d; ++j) diff[j] = k[j] - q[j];
          const MV u = unit_vec(g, d);
          const MV rd = reflect(u, diff.data(), d);
          MV k2(d);
          for (std::size_t j = 0; j < d; ++j) k2[j] = q[j] + rd[j];
          w.upd(screl(ref::log_sim_gauss(k2.data(), q, d, B), l0), "reflection t=" + std::to_string(t + 1));
          mp_t prev;
          const double lams[] = {0.0, 0.25, 1.0, 1.5, 4.0, 30.0};
          for (int a = 0; a < 6; ++a) {
            MV kk(d);
            for (std::size_t j = 0; j < d; ++j) kk[j] = q[j] + mp_t(lams[a]) * diff[j];
            const mp_t l = ref::log_sim_gauss(kk.data(), q, d, B);
            if (a > 0) {
              const mp_t inc = l - prev;
              w.upd(inc > 0 ? to_d(mp_t(inc / mp_max1(abs(l), abs(prev)))) : 0.0,
                    "monotonicity t=" + std::to_string(t + 1) + " lambda=" + fmt(lams[a]));
            }
            prev = l;
          }
        }
        where = w.where;
        return w.r;
      });
    }
  }
  ClaimResult r = ck.result(cfg, "A001 G1 and G7 rows (k_t, q_t), B in {1e-2, 0.5, 2, 100}, 6 points along q + lambda (k - q)");
  // Cancellation of the expanded form |k|^2 + |q|^2 - 2 k^T q in fp64 when k ~ q (why the reference
  // uses the sum of squared differences): relative error of both fp64 forms against P-50.
  {
    Rng g(mix(cs, 99));
    const DM q = gauss(g, 1, 8), del = gauss(g, 1, 8);
    double e_ssd = 0, e_exp = 0;
    for (double h : {1e-4, 1e-6, 1e-8}) {
      double ssd = 0, kk = 0, qq = 0, kq = 0;
      MpDigitsScope s(cfg.digits);
      mp_t exact(0);
      for (std::size_t j = 0; j < 8; ++j) {
        const double k = q(0, j) + h * del(0, j);
        const double dd = k - q(0, j);
        ssd += dd * dd;
        kk += k * k;
        qq += q(0, j) * q(0, j);
        kq += k * q(0, j);
        const mp_t dm = mp_t(k) - mp_t(q(0, j));
        exact += dm * dm;
      }
      const double ex = kk + qq - 2 * kq;
      e_ssd = std::max(e_ssd, std::abs(to_d(mp_t((mp_t(ssd) - exact) / exact))));
      e_exp = std::max(e_exp, std::abs(to_d(mp_t((mp_t(ex) - exact) / exact))));
    }
    r.evidence.extra.emplace_back("fp64 |k-q|^2 relative error at |k-q|/|q| in {1e-4,1e-6,1e-8}",
                                  "sum of squared differences " + fmt(e_ssd) + "; expanded |k|^2+|q|^2-2k^Tq " + fmt(e_exp));
  }
  return r;
}

}  // namespace

void register_a001_similarity_functions(Ledger& l) {
  const auto add = claim_support::claim_adder(l);
  using namespace check_class;
  add("A001-SIM-DOTEXP", "Exponentiated scaled dot product: symmetry, positivity, max-subtraction", identity, true, a001_sim_dotexp);
  add("A001-SIM-GAUSS", "Gaussian kernel depends on ||k-q|| only and is non-increasing", identity, true, a001_sim_gauss);
}

}  // namespace recall
