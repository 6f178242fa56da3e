// Memory and Forgetting (seed A004), Part D: the delta-rule fast weight programmer as a whole
// (Eqs. 20-24 with a read-out, and with the normalised read-out of Eqs. 18-19 [interp]), the
// annotations under Eq. (22) ("beta = 0 -> no update", "beta = 1 -> total replacement") and the
// text after Eq. (24) ("is the delta rule", against the printed U-DeltaNet).
// Spec IDs: A004-DELTA-FWP, A004-DELTA-FWP-ZNORM, A004-DELTA-BETA0, A004-DELTA-BETA1, A004-DELTA-IS-DELTANET.
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

namespace {

// A004-DELTA-FWP (and -ZNORM): sequential Eqs. (20)-(24) vs ref::delta_rule (S-form), the chunked
// WY/UT form (C in {1,2,3,n}) and the u-recursion.
ClaimResult check_delta_fwp_impl(const CheckConfig& cfg, bool znorm) {
  const std::string id = znorm ? "A004-DELTA-FWP-ZNORM" : "A004-DELTA-FWP";
  const std::uint64_t cs = tag_seed(cfg.seed, id);
  Checker ck(znorm ? "max relative residual of the normalised read-out (Eqs. 24, 18, 19) vs the chunked delta form of W with the "
                     "prefix-sum z, every token; final W and z"
                   : "max relative residual of Eqs. (20)-(24) (both (23) and (24) forms) vs the S-form delta_rule, the chunked WY/UT "
                     "form (C in {1,2,3,n}) and the u-recursion, outputs every token and final W",
             cfg.digits);
  const std::vector<std::size_t> ns = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 7} : std::vector<std::size_t>{1, 2, 3, 7, 16, 33};
  std::vector<FeatureMap> maps = znorm ? std::vector<FeatureMap>{fmap(FeatureMapKind::elu1), fmap(FeatureMapKind::dpfp, 2, 1),
                                                                 fmap(FeatureMapKind::dpfp, 2, 3), fmap(FeatureMapKind::relu),
                                                                 fmap(FeatureMapKind::elu1, 2, 1, true)}
                                       : delta_maps();
  int inst = 0, expansive = 0;
  for (int rep = 0; rep < (cfg.quick ? 1 : 3); ++rep) for (std::size_t n : ns)
    for (auto [dk, dv] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 1}, {2, 3}, {3, 2}})
      for (const FeatureMap& f : maps)
        for (Keys kind : {Keys::gauss, Keys::sphere, Keys::repeated, Keys::zero}) {
          if (ck.stopped() || !fmap_ok(f, dk)) continue;
          if (n > 3 && kind != Keys::gauss && cfg.quick) continue;
          const std::uint64_t is = mix(cs, ++inst);
          Rng g(is);
          const DM Kd = key_rows(g, kind, n, dk), Qd = gauss(g, n, dk), Vd = gauss(g, n, dv);
          const std::vector<double> b = betas_g3(g, n);
          const std::string desc = delta_desc(n, dk, dv, f, kind, b, is);
          {
            MpDigitsScope s(cfg.digits);
            MM PK, PQ;
            if (!try_map(f, to_mp(Kd), PK) || !try_map(f, to_mp(Qd), PQ)) {
              ck.exclude(desc, "zero feature vector under a normalising wrapper");
              continue;
            }
            bool exp_step = false;
            for (std::size_t i = 0; i < n; ++i)
              if (abs(mp_t(1) - mp_t(b[i]) * ref::dot(PK.row(i), PK.row(i), PK.cols)) > 1) exp_step = true;
            if (exp_step) ++expansive;
            if (znorm) {  // denominator screen: |z_i . phi(q_i)| <= 1e-30 sum_j |phi(k_j) . phi(q_i)|
              const bool tiny = tiny_denominator(PQ, PK) != 0;
              if (tiny) { ck.exclude(desc, "vanishing normaliser z . phi(q)"); continue; }
            }
          }
          ck.add(desc, [&](unsigned dg, std::string& where) {
            MpDigitsScope s(dg);
            const MM PK = ref::apply_feature_map(f, to_mp(Kd)), PQ = ref::apply_feature_map(f, to_mp(Qd)), V = to_mp(Vd);
            const MV beta = to_mp(b);
            Worst w;
            const auto fw = ref::delta_fwp(PQ, PK, V, beta, ref::DeltaForm::eq24, znorm);
            if (!znorm) {
              const auto f23 = ref::delta_fwp(PQ, PK, V, beta, ref::DeltaForm::eq23, false);
              w.rows(f23.Y, fw.Y, "(23)-form read-out");
              const auto seq = ref::delta_rule(PQ, PK, V, beta);
              w.rows(seq.O, fw.Y, "S-form delta_rule read-out");
              w.upd(matrel(seq.state, fw.W), "S-form final state");
              const MM U = delta_u(PK, V, beta);
              MM Yu(n, dv);
              for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j <= i; ++j) {
                  const mp_t kq = ref::dot(PK.row(j), PQ.row(i), PK.cols);
                  for (std::size_t c = 0; c < dv; ++c) ref::muladd(Yu(i, c), kq, U(j, c));
                }
              w.rows(Yu, fw.Y, "u-recursion read-out");
            }
            std::vector<std::size_t> Cs = {1, 2, 3, n};
            for (std::size_t C : Cs) {
              const auto ch = ref::delta_rule_chunked_ut(PQ, PK, V, beta, C);
              w.upd(matrel(ch.state, fw.W), "chunked C=" + std::to_string(C) + " final W");
              if (!znorm) {
                w.rows(ch.O, fw.Y, "chunked C=" + std::to_string(C));
              } else {
                MM Y = ch.O;
                MV z(PK.cols, mp_t(0));
                for (std::size_t i = 0; i < n; ++i) {
                  for (std::size_t c = 0; c < PK.cols; ++c) z[c] += PK(i, c);
                  const mp_t den = ref::dot(z.data(), PQ.row(i), PK.cols);
                  for (std::size_t c = 0; c < dv; ++c) Y(i, c) /= den;
                }
                w.rows(Y, fw.Y, "chunked C=" + std::to_string(C) + " + prefix-sum z");
                w.upd(matrel(as_row(z), as_row(fw.z)), "final z");
              }
            }
            where = w.where;
            return w.r;
          });
        }
  ClaimResult r = ck.result(cfg, "n in {1,2,3,7" + std::string(cfg.quick ? "" : ",16,33") +
                                     "}, (d_k,d_v) in {(1,1),(2,3),(3,2)}, G1/G2 keys, G3 betas, maps " +
                                     (znorm ? "elu1, dpfp(1), dpfp(3), relu, elu1+sum-norm" : "all of A004-PHI-SET"));
  r.evidence.extra.emplace_back("expansive instances", std::to_string(expansive) +
                                                           " instances had a step with |1 - beta ||phi(k)||^2| > 1 (logged; MP reference)");
  return r;
}

}  // namespace

// A004-DELTA-FWP: Eqs. (20)-(24) with the plain read-out W^{(i)} phi(q^{(i)}).
ClaimResult a004_delta_fwp(const CheckConfig& cfg) { return check_delta_fwp_impl(cfg, false); }
// A004-DELTA-FWP-ZNORM: Eqs. (20)-(24) with the normalised read-out of Eqs. (18)-(19).
ClaimResult a004_delta_fwp_znorm(const CheckConfig& cfg) { return check_delta_fwp_impl(cfg, true); }

// A004-DELTA-BETA0: beta = 0 -> W^{(i)} = W^{(i-1)} and v_new = vbar for (23) and (24) separately.
ClaimResult a004_delta_beta0(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A004-DELTA-BETA0");
  Checker ck("max relative change ||W^(i) - W^(i-1)||_F / max(1, ||W^(i-1)||_F) for (23) and (24), and ||v_new - vbar||, beta = 0 (P-50)",
             cfg.digits);
  int inst = 0, fp24_bad = 0, fp23_changed = 0, fp_inst = 0;
  std::string fp24_witness, fp23_witness;
  double fp23_worst = 0;
  for (auto [dk, dv] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 1}, {2, 3}, {4, 2}, {8, 5}})
    for (const FeatureMap& f : delta_maps())
      for (Keys kind : {Keys::gauss, Keys::sphere, Keys::onehot, Keys::zero})
        for (double wscale : {0.0, 1.0, 1e-8, 1e8}) {
          if (ck.stopped() || !fmap_ok(f, dk)) continue;
          if (cfg.quick && dk == 8 && kind != Keys::gauss) continue;
          const std::uint64_t is = mix(cs, ++inst);
          Rng g(is);
          const DM Kd = key_rows(g, kind, 1, dk, kind == Keys::gauss ? 10.0 : 1.0), Vd = gauss(g, 1, dv, 1e3);
          const std::size_t D = ref::feature_dim(f, dk);
          const DM Wd = gauss(g, dv, D, wscale);
          const std::string desc = "d_k=" + std::to_string(dk) + " d_v=" + std::to_string(dv) + " phi=" + fmap_name(f, false) +
                                   " keys=" + keys_name(kind) + " W scale=" + fmt(wscale) + " instance-seed=" + std::to_string(is);
          // fp64 / fp32: (24) must leave W bitwise unchanged; (23) is reported
          auto fp_check = [&](auto tag) {
            using F = decltype(tag);
            ref::Matrix<F> K = ref::cast<F>(Kd), V = ref::cast<F>(Vd), W = ref::cast<F>(Wd), PK;
            try { PK = ref::apply_feature_map(f, K); } catch (const std::invalid_argument&) { return; }
            ++fp_inst;
            const ref::Vector<F> vbar = ref::delta_read(W, PK.row(0), PK.cols);
            const ref::Matrix<F> W24 = ref::delta_beta_difference(W, F(0), V.row(0), vbar, PK.row(0));
            const ref::Matrix<F> W23 = ref::delta_write_remove(W, ref::delta_vnew(F(0), V.row(0), vbar), vbar, PK.row(0));
            const ref::Vector<F> vn = ref::delta_vnew(F(0), V.row(0), vbar);
            if (W24.a != W.a || vn != vbar) { if (!fp24_bad++) fp24_witness = std::string(sizeof(F) == 4 ? "fp32 " : "fp64 ") + desc; }
            if (W23.a != W.a) {
              double mx = 0, wn = 1;
              for (std::size_t i = 0; i < W.a.size(); ++i) {
                mx = std::max(mx, std::fabs(static_cast<double>(W23.a[i] - W.a[i])));
                wn = std::max(wn, std::fabs(static_cast<double>(W.a[i])));
              }
              if (!fp23_changed++ || mx / wn > fp23_worst) {
                fp23_worst = std::max(fp23_worst, mx / wn);
                fp23_witness = std::string(sizeof(F) == 4 ? "fp32 " : "fp64 ") + desc;
              }
            }
          };
          fp_check(0.0);
          fp_check(0.0f);
          if (!keys_map(f, Kd, cfg.digits)) { ck.exclude(desc, "zero feature vector under a normalising wrapper"); continue; }
          ck.add(desc, [&](unsigned dg, std::string& where) {
            MpDigitsScope s(dg);
            const MM PK = ref::apply_feature_map(f, to_mp(Kd)), V = to_mp(Vd), W = to_mp(Wd);
            const MV vbar = ref::delta_read(W, PK.row(0), PK.cols);
            const MV vn = ref::delta_vnew(mp_t(0), V.row(0), vbar);
            Worst w;
            w.upd(matrel(ref::delta_beta_difference(W, mp_t(0), V.row(0), vbar, PK.row(0)), W), "Eq. (24)");
            w.upd(matrel(ref::delta_write_remove(W, vn, vbar, PK.row(0)), W), "Eq. (23)");
            w.upd(matrel(as_row(vn), as_row(vbar)), "v_new vs vbar");
            where = w.where;
            return w.r;
          });
        }
  ClaimResult r = ck.result(cfg, "(d_k,d_v) in {(1,1),(2,3),(4,2),(8,5)}, all maps, G1 (x10)/G2 keys, values x1e3, W zero / Gaussian x{1,1e-8,1e8}");
  r.evidence.extra.emplace_back("fp64/fp32 bitwise, Eq. (24)", std::to_string(fp_inst - fp24_bad) + " of " + std::to_string(fp_inst) +
                                                                   " float instances unchanged bitwise" +
                                                                   (fp24_bad ? "; first change: " + fp24_witness : std::string()));
  r.evidence.extra.emplace_back("fp64/fp32 bitwise, Eq. (23) evaluated as written (write, then remove)",
                                std::to_string(fp23_changed) + " of " + std::to_string(fp_inst) +
                                    " float instances NOT bitwise unchanged ((W + a) - a rounds); worst |change|/max(1,|W|) = " +
                                    fmt(fp23_worst) + (fp23_changed ? " at " + fp23_witness : std::string()) +
                                    " (reported: a float hazard of the (23) form, not part of the verdict)");
  if (fp24_bad && r.verdict == Verdict::holds) {
    r.verdict = Verdict::violated;
    r.reason = "Eq. (24) with beta = 0 changed W in floating point";
    r.evidence.witness = fp24_witness;
  }
  return r;
}

// A004-DELTA-BETA1: beta = 1 -> (a) v_new = v; (b) W^{(i)} phi(k) = v, per phi family.
ClaimResult a004_delta_beta1(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A004-DELTA-BETA1");
  struct Fam { std::string name; FeatureMap f; };
  const std::vector<Fam> fams = {{"raw identity", fmap(FeatureMapKind::identity)},
                                 {"raw elu1", fmap(FeatureMapKind::elu1)},
                                 {"raw dpfp(nu=1)", fmap(FeatureMapKind::dpfp, 2, 1)},
                                 {"sum-normalised elu1", fmap(FeatureMapKind::elu1, 2, 1, true)},
                                 {"L2-normalised identity", fmap(FeatureMapKind::identity, 2, 1, false, true)},
                                 {"L2-normalised elu1", fmap(FeatureMapKind::elu1, 2, 1, false, true)}};
  std::vector<std::pair<std::string, ClaimResult>> parts;
  {  // (a)
    Checker ck("||v_new - v|| / max(1, ||v||) with beta = 1", cfg.digits);
    Rng g(mix(cs, 999));
    for (int i = 0; i < (cfg.quick ? 10 : 100); ++i) {
      const std::size_t dv = 1 + i % 5;
      const DM v = gauss(g, 1, dv), vb = gauss(g, 1, dv, 10.0);
      ck.add("d_v=" + std::to_string(dv) + " instance=" + std::to_string(i + 1), [&](unsigned dg, std::string&) {
        MpDigitsScope s(dg);
        const MM V = to_mp(v);
        return matrel(as_row(ref::delta_vnew(mp_t(1), V.a.data(), MV(to_mp(vb).a))), V);
      });
    }
    parts.emplace_back("(a) v_new = v", ck.result(cfg, "d_v in 1..5"));
  }
  for (const Fam& fam : fams) {
    Checker ck("r = ||W^(i) phi(k) - v|| / ||v|| after one beta = 1 update", cfg.digits);
    int inst = 0;
    for (auto [dk, dv] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 1}, {2, 1}, {2, 3}, {4, 2}})
      for (Keys kind : {Keys::gauss, Keys::sphere, Keys::onehot})
        for (double scale : {1e-2, 1.0, 1e2})
          for (bool zeroW : {true, false}) {
            if (ck.stopped() || !fmap_ok(fam.f, dk)) continue;
            const std::uint64_t is = mix(cs, ++inst + 1000 * parts.size());
            Rng g(is);
            const DM Kd = key_rows(g, kind, 1, dk, scale), Vd = gauss(g, 1, dv);
            const DM Wd = gauss(g, dv, ref::feature_dim(fam.f, dk), zeroW ? 0.0 : 1.0);
            const std::string desc = "d_k=" + std::to_string(dk) + " d_v=" + std::to_string(dv) + " keys=" + keys_name(kind) +
                                     " key scale=" + fmt(scale) + " W=" + (zeroW ? "0" : "Gaussian") + " instance-seed=" + std::to_string(is);
            {
              MpDigitsScope s(cfg.digits);
              MM PK;
              if (!try_map(fam.f, to_mp(Kd), PK)) { ck.exclude(desc, "zero feature vector"); continue; }
              if (ref::dot(PK.row(0), PK.row(0), PK.cols) == 0) { ck.exclude(desc, "phi(k) = 0"); continue; }
            }
            ck.add(desc, [&](unsigned dg, std::string& where) {
              MpDigitsScope s(dg);
              const MM PK = ref::apply_feature_map(fam.f, to_mp(Kd)), V = to_mp(Vd), W = to_mp(Wd);
              const MV vbar = ref::delta_read(W, PK.row(0), PK.cols);
              const MM W1 = ref::delta_beta_difference(W, mp_t(1), V.row(0), vbar, PK.row(0));
              const MV ret = ref::matvec(W1, PK.row(0));
              mp_t num(0), den(0);
              for (std::size_t c = 0; c < dv; ++c) {
                const mp_t d = ret[c] - V(0, c);
                ref::muladd(num, d, d);
                ref::muladd(den, V(0, c), V(0, c));
              }
              where = "||phi(k)||^2 = " + fmt(to_d(ref::dot(PK.row(0), PK.row(0), PK.cols)), 6);
              return to_d(mp_t(sqrt(num) / sqrt(den)));
            });
          }
    parts.emplace_back("(b) " + fam.name, ck.result(cfg, "(d_k,d_v) in {(1,1),(2,1),(2,3),(4,2)}, keys G1/G2 x{1e-2,1,1e2}, W zero/Gaussian"));
  }
  ClaimResult r = combine_witness(parts);
  r.evidence.extra.emplace_back("reading", "W phi(k) = W_prev phi(k) + (v - W_prev phi(k)) ||phi(k)||^2: total replacement iff ||phi(k)|| = 1 "
                                           "(or v = W_prev phi(k)); the seed states no normalisation of phi(k)");
  return r;
}

// A004-DELTA-IS-DELTANET: (24) step by step equals S(I - beta phi phi^T) + beta v phi^T (printed U-DeltaNet).
ClaimResult a004_delta_is_deltanet(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A004-DELTA-IS-DELTANET");
  Checker ck("max relative residual of the Eq. (24) state vs the printed U-DeltaNet product form, every step", cfg.digits);
  const std::vector<std::size_t> ns = cfg.quick ? std::vector<std::size_t>{1, 2, 7} : std::vector<std::size_t>{1, 2, 7, 33, 128};
  int inst = 0;
  for (int rep = 0; rep < (cfg.quick ? 1 : 3); ++rep) for (std::size_t n : ns)
    for (auto [dk, dv] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 1}, {2, 3}, {3, 2}})
      for (const FeatureMap& f : delta_maps())
        for (Keys kind : {Keys::gauss, Keys::sphere, Keys::repeated, Keys::zero}) {
          if (ck.stopped() || !fmap_ok(f, dk)) continue;
          if (n > 2 && kind != Keys::gauss && cfg.quick) continue;
          const std::uint64_t is = mix(cs, ++inst);
          Rng g(is);
          const DM Kd = key_rows(g, kind, n, dk), Vd = gauss(g, n, dv);
          const std::vector<double> b = betas_g3(g, n);
          const std::string desc = delta_desc(n, dk, dv, f, kind, b, is);
          if (!keys_map(f, Kd, cfg.digits)) { ck.exclude(desc, "zero feature vector under a normalising wrapper"); continue; }
          ck.add(desc, [&](unsigned dg, std::string& where) {
            MpDigitsScope s(dg);
            const MM PK = ref::apply_feature_map(f, to_mp(Kd)), V = to_mp(Vd);
            const MV beta = to_mp(b);
            MM W24(dv, PK.cols), Wdn(dv, PK.cols);
            Worst w;
            for (std::size_t i = 0; i < n; ++i) {
              W24 = ref::delta_beta_difference(W24, beta[i], V.row(i), ref::delta_read(W24, PK.row(i), PK.cols), PK.row(i));
              Wdn = ref::online_update(ref::OnlineRule::deltanet, Wdn, PK.row(i), V.row(i), mp_t(1), beta[i]);
              w.upd(matrel(W24, Wdn), "step i=" + std::to_string(i + 1));
            }
            where = w.where;
            return w.r;
          });
        }
  return ck.result(cfg, "n in {1,2,7" + std::string(cfg.quick ? "" : ",33,128") + "}, (d_k,d_v) in {(1,1),(2,3),(3,2)}, all maps, G1/G2/G3");
}

void register_a004_delta_rule_fwp(Ledger& l) {
  const auto add = claim_support::claim_adder(l);
  using namespace check_class;
  add("A004-DELTA-FWP", "Delta-rule fast weight programmer (Eqs. 20-24 with a read-out)", identity, true, a004_delta_fwp);
  add("A004-DELTA-FWP-ZNORM", "Delta-rule FWP with the normalised read-out of Eqs. (18)-(19)", identity, true, a004_delta_fwp_znorm);
  add("A004-DELTA-BETA0", "beta = 0 -> no update", identity, false, a004_delta_beta0);
  add("A004-DELTA-BETA1", "beta = 1 -> total replacement", identity, false, a004_delta_beta1);
  add("A004-DELTA-IS-DELTANET", "Eq. (24) is the delta rule", identity, false, a004_delta_is_deltanet);
}

}  // namespace recall
