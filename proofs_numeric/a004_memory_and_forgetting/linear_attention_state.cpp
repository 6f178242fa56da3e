// Memory and Forgetting (seed A004), Part B: slide "Linear Attention" (the running state S_i, "This is
// an RNN", and the normalised read-out with the running key-sum Z_i; key-major as printed) and the
// comparison panel / Online Update line 1 (U-LA: S_t = S_{t-1} + v_t k_t^T with its parallel, chunked
// and closed forms).
// Spec IDs: A004-LA-STATE-KM, A004-LA-NORM-Z, A004-UPD-LA.
#include "recall/proofs/claims.hpp"
#include "recall/proofs/ledger.hpp"
#include "recall/reference/counting.hpp"
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/forms.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/softmax.hpp"
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

// =============================================================================================
// A004-LA-STATE-KM
// =============================================================================================
ClaimResult a004_la_state_km(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A004-LA-STATE-KM");
  Checker ck("max relative residual: recurrence vs prefix sum (every i), key-major vs transpose, read-outs, chunked final state", cfg.digits);
  const std::vector<std::size_t> ns = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 7, 16} : std::vector<std::size_t>{1, 2, 3, 7, 64};
  const std::vector<FeatureMap> maps = {fmap(FeatureMapKind::identity), fmap(FeatureMapKind::elu1), fmap(FeatureMapKind::dpfp, 2, 1),
                                        fmap(FeatureMapKind::poly, 2)};
  int inst = 0;
  for (std::size_t n : ns) for (int rep = 0; rep < full_reps(cfg, n); ++rep)
    for (std::size_t d : {1, 2, 3})
      for (const FeatureMap& f : maps)
        for (Keys kind : kAllKeys) {
          if (ck.stopped()) break;
          if (n >= 16 && kind != Keys::gauss && kind != Keys::repeated && kind != Keys::zero) continue;
          ++inst;
          const std::uint64_t is = mix(cs, inst);
          Rng g(is);
          const std::size_t dv = 1 + (inst % 3);
          const DM Kd = key_rows(g, kind, n, d), Qd = gauss(g, n, d), Vd = gauss(g, n, dv);
          const std::string desc = "n=" + std::to_string(n) + " d_k=" + std::to_string(d) + " d_v=" + std::to_string(dv) +
                                   " phi=" + fmap_name(f) + " keys=" + keys_name(kind) + " instance=" + std::to_string(inst) +
                                   " instance-seed=" + std::to_string(is);
          ck.add(desc, [&](unsigned dg, std::string& where) {
            MpDigitsScope s(dg);
            const MM V = to_mp(Vd), PQ = ref::apply_feature_map(f, to_mp(Qd)), PK = ref::apply_feature_map(f, to_mp(Kd));
            Worst w;
            const KeyMajor km = key_major(PQ, PK, V);
            const auto full = ref::linear_attention(PQ, PK, V);
            for (std::size_t i = 1; i <= n; ++i) {
              const MM Srec = ref::linear_attention(head_rows(PQ, i), head_rows(PK, i), head_rows(V, i)).state;
              const MM Sclo = ref::linear_attention_state_closed(PK, V, i);
              w.upd(matrel(Srec, Sclo), "recurrence vs prefix sum i=" + std::to_string(i));
              w.upd(matrel(ref::transpose(km.S[i - 1]), Srec), "key-major^T vs value-major i=" + std::to_string(i));
            }
            w.rows(km.num, full.O, "row read-out phi(Q_i)^T S_i vs S_i phi(q_i)");
            for (std::size_t C : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(5), n + 1})
              w.upd(matrel(ref::linear_attention_chunked(PQ, PK, V, C).state, full.state), "chunked C=" + std::to_string(C) + " final state");
            where = w.where;
            return w.r;
          });
        }
  return ck.result(cfg, "n in {" + std::string(cfg.quick ? "1,2,3,7,16" : "1,2,3,7,64") +
                            "}, d_k in {1,2,3}, d_v in {1,2,3}, phi in {id, elu1, dpfp1, poly2}, G1/G2 keys, chunks {1,2,3,5,n+1}");
}

// =============================================================================================
// A004-LA-NORM-Z
// =============================================================================================
ClaimResult a004_la_norm_z(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A004-LA-NORM-Z");
  Checker ck(std::string("max relative residual: ratio-of-sums O_i vs (S_i, Z_i) form; numerator vs phi(Q_i)^T S_i; Z recursion vs prefix sum") +
                 kCondNote,
             cfg.digits);
  double max_cond = 1;
  const std::vector<std::size_t> ns = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 7, 16} : std::vector<std::size_t>{1, 2, 3, 7, 64};
  const std::vector<FeatureMap> maps = {fmap(FeatureMapKind::elu1), fmap(FeatureMapKind::relu), fmap(FeatureMapKind::dpfp, 2, 1),
                                        fmap(FeatureMapKind::poly, 2), fmap(FeatureMapKind::exp_trunc, 2)};
  const std::vector<Keys> kinds = {Keys::gauss, Keys::sphere, Keys::repeated, Keys::nearpar, Keys::zero, Keys::onehot, Keys::t3};
  int inst = 0;
  for (std::size_t n : ns) for (int rep = 0; rep < full_reps(cfg, n); ++rep)
    for (std::size_t d : {1, 2, 3})
      for (const FeatureMap& f : maps)
        for (Keys kind : kinds) {
          if (ck.stopped()) break;
          if (!fmap_ok(f, d)) continue;
          if (n >= 16 && kind != Keys::gauss && kind != Keys::zero) continue;
          ++inst;
          const std::uint64_t is = mix(cs, inst);
          Rng g(is);
          const DM Kd = key_rows(g, kind, n, d), Qd = gauss(g, n, d), Vd = gauss(g, n, 2);
          const std::string desc = "n=" + std::to_string(n) + " d_k=" + std::to_string(d) + " d_v=2 phi=" + fmap_name(f) +
                                   " keys=" + keys_name(kind) + " instance=" + std::to_string(inst) + " instance-seed=" + std::to_string(is);
          if (std::size_t bad = mapped_tiny_denominator(f, Qd, Kd, cfg.digits)) {
            ck.exclude(desc, "|phi(Q_i)^T Z_i| <= 1e-30 sum|.| at i=" + std::to_string(bad));
            continue;
          }
          ck.add(desc, [&](unsigned dg, std::string& where) {
            MpDigitsScope s(dg);
            const MM V = to_mp(Vd), PQ = ref::apply_feature_map(f, to_mp(Qd)), PK = ref::apply_feature_map(f, to_mp(Kd));
            Worst w;
            const KeyMajor km = key_major(PQ, PK, V);
            // ratio-of-sums definition with fresh sums at every i (printed first expression of O_i)
            MM ratio(n, 2), numdef(n, 2);
            for (std::size_t i = 0; i < n; ++i) {
              MM Ssum(PK.cols, 2);
              MV Zsum(PK.cols, mp_t(0));
              for (std::size_t j = 0; j <= i; ++j) {
                ref::add_outer(Ssum, PK.row(j), V.row(j));
                for (std::size_t c = 0; c < PK.cols; ++c) Zsum[c] += PK(j, c);
              }
              const mp_t den = ref::dot(PQ.row(i), Zsum.data(), PK.cols);
              for (std::size_t c = 0; c < 2; ++c) {
                mp_t num(0);
                for (std::size_t r = 0; r < PK.cols; ++r) ref::muladd(num, PQ(i, r), Ssum(r, c));
                ratio(i, c) = num / den;
              }
              w.upd(vecrel(Zsum, km.Z[i]), "Z recursion vs prefix sum i=" + std::to_string(i + 1));
            }
            const auto nla = ref::normalized_linear_attention(PQ, PK, V);
            w.rows(nla.O, ratio, "(S_i,Z_i) form vs ratio of sums");
            MM kmO(n, 2);
            for (std::size_t i = 0; i < n; ++i)
              for (std::size_t c = 0; c < 2; ++c) kmO(i, c) = km.num(i, c) / km.den[i];
            w.rows(kmO, ratio, "key-major phi(Q)^T S_i / phi(Q)^T Z_i vs ratio of sums");
            // numerator "is exactly" phi(Q_i)^T S_i: sum_j (phi(q_i).phi(k_j)) v_j vs phi(Q_i)^T S_i
            w.rows(ref::kernel_attention_unnormalized(PQ, PK, V, dot_kernel(PQ.cols)), km.num, "numerator");
            // Z_i of the recurrent reference (prefix runs) vs prefix sums; denominators
            for (std::size_t i = 1; i <= n; ++i) {
              const auto p = ref::normalized_linear_attention(head_rows(PQ, i), head_rows(PK, i), head_rows(V, i));
              w.upd(vecrel(p.z, km.Z[i - 1]), "reference z_i vs prefix sum i=" + std::to_string(i));
            }
            w.upd(vecrel(nla.denom, km.den), "denominators");
            return cond_scaled(w, PQ, PK, V, dot_kernel(PQ.cols), dg, cfg, max_cond, where);
          });
        }
  ClaimResult r = ck.result(cfg, "n in {" + std::string(cfg.quick ? "1,2,3,7,16" : "1,2,3,7,64") +
                                     "}, d_k in {1,2,3}, d_v = 2, phi in {elu1, relu, dpfp1, poly2, exp_trunc M=2}, G1/G2 keys");
  r.evidence.extra.emplace_back("excluded instances", std::to_string(ck.excluded()) + " (vanishing denominators)");
  r.evidence.extra.emplace_back("largest condition factor", fmt(max_cond));
  return r;
}

// =============================================================================================
// A004-UPD-LA
// =============================================================================================
ClaimResult a004_upd_la(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A004-UPD-LA");
  Checker ck("max relative residual vs sequential: printed sum, parallel tril(QK^T)V, chunked (outputs and final state), closed-form state", cfg.digits);
  const std::vector<std::size_t> ns = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 7, 16, 17} : std::vector<std::size_t>{1, 2, 3, 7, 64, 257, 1024};
  const std::vector<std::pair<std::size_t, std::size_t>> dims = {{1, 1}, {2, 3}, {4, 2}, {3, 5}};
  const std::vector<double> scales = {1.0, 1e-3, 1e3};
  int inst = 0;
  for (std::size_t n : ns) for (int rep = 0; rep < full_reps(cfg, n); ++rep)
    for (auto [dk, dv] : dims)
      for (Keys kind : kAllKeys)
        for (double sc : scales) {
          if (ck.stopped()) break;
          if (n >= 16 && sc != 1.0) continue;
          if (n >= 64 && kind != Keys::gauss && kind != Keys::sphere) continue;
          if (n >= 257 && dk != 2) continue;
          if (n >= 1024 && kind != Keys::gauss) continue;
          ++inst;
          const std::uint64_t is = mix(cs, inst);
          Rng g(is);
          const DM Kd = key_rows(g, kind, n, dk, sc), Qd = gauss(g, n, dk, sc), Vd = gauss(g, n, dv);
          const std::string desc = "n=" + std::to_string(n) + " d_k=" + std::to_string(dk) + " d_v=" + std::to_string(dv) +
                                   " keys=" + keys_name(kind) + " scale=" + fmt(sc) + " instance=" + std::to_string(inst) +
                                   " instance-seed=" + std::to_string(is);
          ck.add(desc, [&](unsigned dg, std::string& where) {
            MpDigitsScope s(dg);
            const MM Q = to_mp(Qd), K = to_mp(Kd), V = to_mp(Vd);
            const auto seq = ref::linear_attention(Q, K, V);
            Worst w;
            w.rows(ref::linear_attention_sum(Q, K, V), seq.O, "printed sum");
            w.rows(ref::linear_attention_parallel(Q, K, V), seq.O, "parallel");
            w.upd(matrel(ref::linear_attention_state_closed(K, V, n), seq.state), "closed-form state S_n");
            std::vector<std::size_t> Cs = {1, 2, 3, 16, n};
            if (n > 64) Cs = {16, 64, n};
            for (std::size_t C : Cs) {
              const auto ch = ref::linear_attention_chunked(Q, K, V, C);
              w.rows(ch.O, seq.O, "chunked C=" + std::to_string(C));
              w.upd(matrel(ch.state, seq.state), "chunked C=" + std::to_string(C) + " final state");
            }
            where = w.where;
            return w.r;
          });
        }
  return ck.result(cfg, "n in {" + std::string(cfg.quick ? "1,2,3,7,16,17" : "1,2,3,7,64,257,1024") +
                            "}, (d_k,d_v) in {(1,1),(2,3),(4,2),(3,5)}, G1/G2 keys (8 kinds), scales {1,1e-3,1e3} (n<16), "
                            "chunks {1,2,3,16,n}");
}

void register_a004_linear_attention_state(Ledger& l) {
  const auto add = claim_support::claim_adder(l);
  using namespace check_class;
  add("A004-LA-STATE-KM", "Running state S_i (\"This is an RNN\")", identity, true, a004_la_state_km);
  add("A004-LA-NORM-Z", "Normalised read-out with the running key-sum Z_i", identity, true, a004_la_norm_z);
  add("A004-UPD-LA", "Linear-attention state update S_t = S_{t-1} + v_t k_t^T (U-LA)", identity, true, a004_upd_la);
}

}  // namespace recall
