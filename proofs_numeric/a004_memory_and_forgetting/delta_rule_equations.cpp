// Memory and Forgetting (seed A004), Part D: the equations of the delta-rule fast weight programmer:
// the retrieval of the value bound to a key (Eq. 20), the write strength beta = sigm(W_beta x)
// (Eq. 21), the interpolated new value (Eq. 22) and the write-and-remove form equal to the
// beta-scaled difference form (Eq. 23 = Eq. 24).
// Spec IDs: A004-DELTA-READ, A004-DELTA-BETA-GATE, A004-DELTA-VNEW, A004-DELTA-23-24.
// Identities run at cfg.digits (R-ID, P-50); every failure is re-evaluated at doubled digits.
#include "recall/proofs/claims.hpp"
#include "recall/proofs/ledger.hpp"
#include "recall/reference/delta_rule.hpp"
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/online_rules.hpp"
#include "recall/reference/ttt.hpp"
#include "claim_support.hpp"
#include "a004_claims.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace recall {

using namespace claim_support;
using namespace claim_support::a004;

// A004-DELTA-READ: vbar^{(i)} = W^{(i-1)} phi(k^{(i)}) (Eq. 20) equals the kernel form
// sum_{j<i} (phi(k_j) . phi(k_i)) u_j of the u-recursion; shape errors throw.
ClaimResult a004_delta_read(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A004-DELTA-READ");
  Checker ck("max relative residual of Eq. (20) vs the kernel (u-recursion) form of the retrieved value, every step", cfg.digits);
  bool shape_ok = false;
  {
    MpDigitsScope s(cfg.digits);
    MM W(2, 3);
    MV phi(2, mp_t(1));
    try { (void)ref::delta_read(W, phi.data(), 2); } catch (const std::invalid_argument&) { shape_ok = true; }
  }
  const std::vector<std::size_t> ns = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 7} : std::vector<std::size_t>{1, 2, 3, 7, 16, 33};
  int inst = 0;
  for (int rep = 0; rep < (cfg.quick ? 1 : 3); ++rep) for (std::size_t n : ns)
    for (auto [dk, dv] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 1}, {2, 3}, {3, 2}})
      for (const FeatureMap& f : delta_maps())
        for (Keys kind : {Keys::gauss, Keys::sphere, Keys::repeated, Keys::zero}) {
          if (ck.stopped() || !fmap_ok(f, dk)) continue;
          if (cfg.quick && kind != Keys::gauss && n > 3) continue;
          const std::uint64_t is = mix(cs, ++inst);
          Rng g(is);
          const DM Kd = key_rows(g, kind, n, dk), Qd = gauss(g, n, dk), Vd = gauss(g, n, dv);
          const std::vector<double> b = betas_g3(g, n);
          const std::string desc = delta_desc(n, dk, dv, f, kind, b, is);
          if (!keys_map(f, Kd, cfg.digits)) { ck.exclude(desc, "zero feature vector under a normalising wrapper"); continue; }
          ck.add(desc, [&](unsigned dg, std::string& where) {
            MpDigitsScope s(dg);
            const MM PK = ref::apply_feature_map(f, to_mp(Kd)), V = to_mp(Vd);
            const MV beta = to_mp(b);
            const MM U = delta_u(PK, V, beta);
            MM W(dv, PK.cols);
            Worst w;
            for (std::size_t i = 0; i < n; ++i) {
              const MV vbar = ref::delta_read(W, PK.row(i), PK.cols);
              MV ker(dv, mp_t(0));
              for (std::size_t j = 0; j < i; ++j) {
                const mp_t kk = ref::dot(PK.row(j), PK.row(i), PK.cols);
                for (std::size_t c = 0; c < dv; ++c) ref::muladd(ker[c], kk, U(j, c));
              }
              w.upd(matrel(as_row(vbar), as_row(ker)), "step i=" + std::to_string(i + 1));
              W = ref::delta_beta_difference(W, beta[i], V.row(i), vbar, PK.row(i));
            }
            where = w.where;
            return w.r;
          });
        }
  ClaimResult r = ck.result(cfg, "n in {1,2,3,7" + std::string(cfg.quick ? "" : ",16,33") +
                                     "}, (d_k,d_v) in {(1,1),(2,3),(3,2)}, all A004-PHI-SET maps, G1/G2 keys, G3 betas");
  r.evidence.extra.emplace_back("shape test", shape_ok ? "a W of width 3 with a phi(k) of length 2 throws std::invalid_argument"
                                                       : "a mismatched shape did NOT throw");
  if (!shape_ok) { r.verdict = Verdict::violated; r.reason = "delta_read accepted a mismatched shape"; }
  return r;
}

// A004-DELTA-BETA-GATE: beta = sigm(W_beta x) in (0,1); stable form = 1/(1+e^{-z}) at P-50.
ClaimResult a004_delta_beta_gate(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A004-DELTA-BETA-GATE");
  Checker ck("max relative residual of the stable logistic vs 1/(1+exp(-z)) (P-50; MPFR's exponent range has no overflow), "
             "plus 1 if beta is not strictly inside (0,1) for |z| <= 100",
             cfg.digits);
  Rng g(cs);
  const int reps = cfg.quick ? 12 : 200;
  std::vector<double> zs = {0.0, 1e-30, -1e-30, 1.0, -1.0, 16.6, -17.0, 36.0, -88.7, -104.0, 100.0, -100.0};
  std::uniform_real_distribution<double> U(-100.0, 100.0);
  for (int i = 0; i < reps; ++i) zs.push_back(U(g));
  int inst = 0;
  for (std::size_t din : {1, 3, 8})
    for (double z : zs) {
      if (ck.stopped()) break;
      ++inst;
      // W_beta x = z with a random direction: x Gaussian, W_beta = z x / ||x||^2
      DM x = gauss(g, 1, din);
      double nx = 0;
      for (double v : x.a) nx += v * v;
      const std::string desc = "d_in=" + std::to_string(din) + " z=" + fmt(z, 6) + " instance=" + std::to_string(inst);
      ck.add(desc, [&](unsigned dg, std::string& where) {
        MpDigitsScope s(dg);
        const MM X = to_mp(x);
        MV wb(din);
        for (std::size_t j = 0; j < din; ++j) wb[j] = mp_t(z) * X.a[j] / mp_t(nx);
        const mp_t zz = ref::dot(wb.data(), X.a.data(), din);
        const mp_t b = ref::delta_beta_gate(wb, X.a.data(), din);
        const mp_t naive = mp_t(1) / (mp_t(1) + exp(mp_t(-zz)));
        double r = to_d(mp_t(abs(b - naive) / naive));
        if (!(b > 0 && b < 1)) { r += 1; where = "beta not in (0,1)"; }
        return r;
      });
    }
  ClaimResult r = ck.result(cfg, "z = W_beta x in {0, +-1e-30, +-1, 16.6, -17, 36, -88.7, -104, +-100} and U(-100,100), d_in in {1,3,8}");
  // P-50 rounding boundary and the float hazards named by the spec
  {
    MpDigitsScope s(cfg.digits);
    double zone = 0;
    for (double z = 100; z < 200; z += 0.5)
      if (ref::sigmoid_stable(mp_t(z)) == 1) { zone = z; break; }
    r.evidence.extra.emplace_back("P-50 rounding", "sigm(z) rounds to exactly 1 at 50 digits from z ~ " + fmt(zone, 4) +
                                                       " (1 - beta = sigm(-z) stays positive)");
  }
  auto first_one = [](auto one) -> double {
    using F = decltype(one);
    for (F x = F(0); x < F(200); x += F(0.01))
      if (ref::sigmoid_stable(x) == F(1)) return static_cast<double>(x);
    return NAN;
  };
  auto first_zero = [](auto one) -> double {
    using F = decltype(one);
    for (F x = F(0); x > F(-1000); x -= F(0.01))
      if (ref::sigmoid_stable(x) == F(0)) return static_cast<double>(x);
    return NAN;
  };
  auto naive_zero = [](auto one) -> double {
    using F = decltype(one);
    for (F x = F(0); x > F(-1000); x -= F(0.01))
      if (F(1) / (F(1) + std::exp(-x)) == F(0)) return static_cast<double>(x);
    return NAN;
  };
  r.evidence.extra.emplace_back("fp32 hazards (spec: 1 at ~16.6, 0 at ~-104 stable / ~-88.7 naive)",
                                "stable sigm == 1 from x = " + fmt(first_one(1.0f), 4) + ", == 0 from x = " + fmt(first_zero(1.0f), 5) +
                                    "; naive 1/(1+e^-x) == 0 from x = " + fmt(naive_zero(1.0f), 5));
  r.evidence.extra.emplace_back("fp64", "stable sigm == 1 from x = " + fmt(first_one(1.0), 4) + ", == 0 from x = " +
                                            fmt(first_zero(1.0), 5));
  return r;
}

// A004-DELTA-VNEW: Eq. (22) = vbar + beta (v - vbar); beta = 0 gives vbar, beta = 1 gives v.
ClaimResult a004_delta_vnew(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A004-DELTA-VNEW");
  Checker ck("max relative residual of Eq. (22) vs vbar + beta (v - vbar), and of its beta=0 / beta=1 values vs vbar / v", cfg.digits);
  Rng g(cs);
  int inst = 0;
  std::uniform_real_distribution<double> U(0.0, 1.0);
  for (std::size_t dv : {1, 2, 5, 16})
    for (int rep = 0; rep < (cfg.quick ? 6 : 60); ++rep) {
      if (ck.stopped()) break;
      const double bset[6] = {0.0, 1.0, 0.3, -0.5, 3.0, U(g)};
      const double b = bset[rep % 6];
      const DM v = gauss(g, 1, dv), vb = gauss(g, 1, dv, rep % 3 == 0 ? 1e3 : 1.0);
      const std::string desc = "d_v=" + std::to_string(dv) + " beta=" + fmt(b) + " instance=" + std::to_string(++inst);
      ck.add(desc, [&](unsigned dg, std::string& where) {
        MpDigitsScope s(dg);
        const MM V = to_mp(v);
        const MV vbar(to_mp(vb).a);
        const mp_t beta(b);
        const MV vn = ref::delta_vnew(beta, V.a.data(), vbar);
        MV alt(dv);
        for (std::size_t c = 0; c < dv; ++c) alt[c] = vbar[c] + beta * (V.a[c] - vbar[c]);
        Worst w;
        w.upd(matrel(as_row(vn), as_row(alt)), "Eq. 22 vs vbar + beta (v - vbar)");
        w.upd(matrel(as_row(ref::delta_vnew(mp_t(0), V.a.data(), vbar)), as_row(vbar)), "beta=0 vs vbar");
        w.upd(matrel(as_row(ref::delta_vnew(mp_t(1), V.a.data(), vbar)), as_row(MV(V.a))), "beta=1 vs v");
        where = w.where;
        return w.r;
      });
    }
  return ck.result(cfg, "d_v in {1,2,5,16}, beta in {0,1,0.3,-0.5,3} and U(0,1), vbar scales {1,1e3}");
}

// A004-DELTA-23-24: (23) with (20), (22) substituted equals (24), one step and whole sequences.
ClaimResult a004_delta_23_24(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A004-DELTA-23-24");
  Checker ck("max relative residual ||W_(23) - W_(24)||_F / max(1, ||.||) per step (one step from a random W and whole sequences from W=0)",
             cfg.digits);
  const std::vector<std::size_t> ns = cfg.quick ? std::vector<std::size_t>{1, 2, 5} : std::vector<std::size_t>{1, 2, 5, 16, 64};
  int inst = 0;
  std::uniform_real_distribution<double> U(0.0, 1.0);
  for (int rep = 0; rep < (cfg.quick ? 1 : 3); ++rep) for (std::size_t n : ns)
    for (auto [dk, dv] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 1}, {2, 3}, {4, 2}})
      for (const FeatureMap& f : delta_maps())
        for (Keys kind : {Keys::gauss, Keys::sphere, Keys::onehot, Keys::zero}) {
          if (ck.stopped() || !fmap_ok(f, dk)) continue;
          if (n > 2 && kind != Keys::gauss && cfg.quick) continue;
          const std::uint64_t is = mix(cs, ++inst);
          Rng g(is);
          const DM Kd = key_rows(g, kind, n, dk), Vd = gauss(g, n, dv), W0d = gauss(g, dv, ref::feature_dim(f, dk));
          std::vector<double> b(n);
          const double bset[5] = {0.0, 1.0, 0.3, -0.5, 3.0};
          for (std::size_t t = 0; t < n; ++t) b[t] = (inst + t) % 6 < 5 ? bset[(inst + t) % 6] : U(g);
          const std::string desc = delta_desc(n, dk, dv, f, kind, b, is);
          if (!keys_map(f, Kd, cfg.digits)) { ck.exclude(desc, "zero feature vector under a normalising wrapper"); continue; }
          ck.add(desc, [&](unsigned dg, std::string& where) {
            MpDigitsScope s(dg);
            const MM PK = ref::apply_feature_map(f, to_mp(Kd)), V = to_mp(Vd), W0 = to_mp(W0d);
            const MV beta = to_mp(b);
            Worst w;
            MM Wa(dv, PK.cols), Wb(dv, PK.cols);
            for (std::size_t i = 0; i < n; ++i) {
              // one step from a random W^{(i-1)}
              const MV vb0 = ref::delta_read(W0, PK.row(i), PK.cols);
              w.upd(matrel(ref::delta_write_remove(W0, ref::delta_vnew(beta[i], V.row(i), vb0), vb0, PK.row(i)),
                           ref::delta_beta_difference(W0, beta[i], V.row(i), vb0, PK.row(i))),
                    "one step from random W, i=" + std::to_string(i + 1));
              // sequence from W^{(0)} = 0, each form run on its own state
              const MV va = ref::delta_read(Wa, PK.row(i), PK.cols), vbb = ref::delta_read(Wb, PK.row(i), PK.cols);
              Wa = ref::delta_write_remove(Wa, ref::delta_vnew(beta[i], V.row(i), va), va, PK.row(i));
              Wb = ref::delta_beta_difference(Wb, beta[i], V.row(i), vbb, PK.row(i));
              w.upd(matrel(Wa, Wb), "sequence state W^(" + std::to_string(i + 1) + ")");
            }
            where = w.where;
            return w.r;
          });
        }
  return ck.result(cfg, "n in {1,2,5" + std::string(cfg.quick ? "" : ",16,64") +
                            "}, (d_k,d_v) in {(1,1),(2,3),(4,2)}, all maps, G1/G2 keys, beta in {0,1,0.3,-0.5,3} and U(0,1)");
}

void register_a004_delta_rule_equations(Ledger& l) {
  const auto add = claim_support::claim_adder(l);
  using namespace check_class;
  add("A004-DELTA-READ", "Retrieve the value currently bound to the key (Eq. 20)", identity, true, a004_delta_read);
  add("A004-DELTA-BETA-GATE", "Write strength beta = sigm(W_beta x) (Eq. 21)", identity, true, a004_delta_beta_gate);
  add("A004-DELTA-VNEW", "Interpolated new value (Eq. 22)", identity, true, a004_delta_vnew);
  add("A004-DELTA-23-24", "Write-and-remove form equals the beta-scaled difference form (Eq. 23 = Eq. 24)", identity, false, a004_delta_23_24);
}

}  // namespace recall
