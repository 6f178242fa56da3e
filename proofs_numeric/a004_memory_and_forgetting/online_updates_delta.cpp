// Memory and Forgetting (seed A004), Part E: Online Update lines 3-5 and the objective table rows
// Longhorn, DeltaNet and Gated DeltaNet: each update against the chunked WY/UT closed form, the
// ordered-product closed form and the printed one-step form chained, plus beta = 0 / alpha sanity items.
// Spec IDs: A004-UPD-LONGHORN, A004-UPD-DELTANET, A004-UPD-GDN.
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

enum class Upd { longhorn, deltanet, gdn };
ClaimResult check_upd(const CheckConfig& cfg, Upd which) {
  const char* id = which == Upd::longhorn ? "A004-UPD-LONGHORN" : which == Upd::deltanet ? "A004-UPD-DELTANET" : "A004-UPD-GDN";
  const std::uint64_t cs = tag_seed(cfg.seed, id);
  std::vector<std::pair<std::string, ClaimResult>> parts;
  const std::vector<std::size_t> ns = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 7, 16} : std::vector<std::size_t>{1, 2, 3, 7, 16, 64, 257};
  // (i) sequential reference vs the chunked WY/UT closed form, the ordered-product closed form and the printed one-step form
  {
    Checker ck("max relative residual of the sequential reference vs chunked WY/UT (C in {1,2,3,16,n}; outputs every token, final state), "
               "ordered-product closed form (read-out every token, final state) and the printed step chained",
               cfg.digits);
    int inst = 0;
    std::uniform_real_distribution<double> U(0.0, 1.0);
    for (int rep = 0; rep < (cfg.quick ? 1 : 3); ++rep) for (std::size_t n : ns)
      for (auto [dk, dv] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 1}, {2, 3}, {3, 2}})
        for (Keys kind : {Keys::gauss, Keys::sphere, Keys::ortho, Keys::repeated, Keys::zero})
          for (bool s0 : {false, true}) {
            if (ck.stopped()) break;
            if (n > 7 && (kind != Keys::gauss || dk != 2)) continue;
            const std::uint64_t is = mix(cs, ++inst);
            Rng g(is);
            const DM Kd = key_rows(g, kind, n, dk), Qd = gauss(g, n, dk), Vd = gauss(g, n, dv), S0d = gauss(g, dv, dk, s0 ? 1.0 : 0.0);
            std::vector<double> b = betas_g3(g, n), a;
            if (which == Upd::longhorn) {
              const double set[5] = {0.0, 1e-6, 1.0, 1e3, 1e12};
              for (std::size_t t = 0; t < n; ++t) b[t] = (t + inst) % 6 < 5 ? set[(t + inst) % 6] : U(g);
            }
            if (which == Upd::gdn) a = alphas_g3(g, n);
            const std::string desc = dims(n, dk, dv) + " keys=" + keys_name(kind) + (s0 ? " S0=Gaussian" : " S0=0") + " beta=" + list(b) +
                                     (which == Upd::gdn ? " alpha=" + list(a, 13) : "") + " instance-seed=" + std::to_string(is);
            ck.add(desc, [&](unsigned dg, std::string& where) {
              MpDigitsScope s(dg);
              const MM Q = to_mp(Qd), K = to_mp(Kd), V = to_mp(Vd), S0 = to_mp(S0d);
              const MV beta = to_mp(b);
              MV lg, eff = beta;
              ref::LinearAttentionResult<mp_t> seq;
              if (which == Upd::longhorn) {
                seq = ref::longhorn(Q, K, V, beta, &S0);
                for (std::size_t t = 0; t < n; ++t) eff[t] = ref::longhorn_step(beta[t], K.row(t), dk);
              } else if (which == Upd::deltanet) {
                seq = ref::delta_rule(Q, K, V, beta, &S0);
              } else {
                lg.resize(n);
                for (std::size_t t = 0; t < n; ++t) lg[t] = ref::log_gate(mp_t(a[t]));
                seq = ref::gated_delta_rule(Q, K, V, beta, lg, ref::DecayPlacement::G, &S0);
              }
              const MV* plg = which == Upd::gdn ? &lg : nullptr;
              Worst w;
              std::vector<std::size_t> Cs = {1, 2, 3, 16, n};
              for (std::size_t C : Cs) {
                if (C > n && C != n) continue;
                const auto ch = ref::delta_rule_chunked_ut(Q, K, V, eff, C, plg, &S0);
                w.rows(ch.O, seq.O, "chunked C=" + std::to_string(C));
                w.upd(matrel(ch.state, seq.state), "chunked C=" + std::to_string(C) + " final state");
              }
              MM Op(n, dv), St = S0;
              for (std::size_t t = 1; t <= n; ++t) {
                if (n <= 16 || t == n || t % 16 == 0) {
                  const MM P = ref::delta_rule_product_state(K, V, eff, t, plg, &S0);
                  const MV o = ref::matvec(P, Q.row(t - 1));
                  MM a1 = as_row(o), b1(1, dv);
                  for (std::size_t c = 0; c < dv; ++c) b1.a[c] = seq.O(t - 1, c);
                  w.upd(matrel(a1, b1), "ordered-product read-out t=" + std::to_string(t));
                  if (t == n) w.upd(matrel(P, seq.state), "ordered-product final state");
                }
                // printed step (Longhorn with the printed eps = beta/(1 + beta k^T k))
                const mp_t al = which == Upd::gdn ? mp_t(a[t - 1]) : mp_t(1);
                St = ref::online_update(which == Upd::longhorn ? ref::OnlineRule::longhorn
                                        : which == Upd::deltanet ? ref::OnlineRule::deltanet
                                                                 : ref::OnlineRule::gdn,
                                        St, K.row(t - 1), V.row(t - 1), al, beta[t - 1]);
              }
              w.upd(matrel(St, seq.state), "printed step chained, final state");
              where = w.where;
              return w.r;
            });
          }
    parts.emplace_back("closed forms", ck.result(cfg, "n in {1,2,3,7,16" + std::string(cfg.quick ? "" : ",64,257") +
                                                          "}, (d_k,d_v) in {(1,1),(2,3),(3,2)}, G1/G2 keys, S0 zero/Gaussian, G3 " +
                                                          (which == Upd::longhorn ? "Longhorn betas {0,1e-6,1,1e3,1e12}, U(0,1)" : "betas") +
                                                          (which == Upd::gdn ? ", G3 alphas {0,1e-300,0.5,1-1e-12,1,U}" : "")));
  }
  // (ii) sanity items
  {
    Checker ck(which == Upd::gdn ? "max relative residual: beta = 0 and alpha = 1 leaves S unchanged; alpha = 1 equals DeltaNet; "
                                   "alpha_m = 0 resets (S_n = run from 0 over tokens m..n)"
                                 : "max relative residual ||S_n - S_0|| / max(1, ||S_0||) with every beta = 0",
               cfg.digits);
    Rng g(mix(cs, 4242));
    for (int rep = 0; rep < (cfg.quick ? 8 : 60); ++rep) {
      const std::size_t n = 1 + rep % 7, dk = 1 + rep % 3, dv = 1 + (rep / 3) % 3;
      const DM Kd = key_rows(g, rep % 2 ? Keys::gauss : Keys::sphere, n, dk), Qd = gauss(g, n, dk), Vd = gauss(g, n, dv), S0d = gauss(g, dv, dk);
      std::vector<double> b = betas_g3(g, n), a = alphas_g3(g, n);
      const std::size_t m = rep % n;  // reset position (0-based)
      a[m] = 0.0;
      ck.add(dims(n, dk, dv) + " beta=" + list(b) + " reset at m=" + std::to_string(m + 1) + " instance=" + std::to_string(rep + 1),
             [&](unsigned dg, std::string& where) {
               MpDigitsScope s(dg);
               const MM Q = to_mp(Qd), K = to_mp(Kd), V = to_mp(Vd), S0 = to_mp(S0d);
               const MV zero(n, mp_t(0)), ones0(n, mp_t(0));
               Worst w;
               if (which == Upd::longhorn) w.upd(matrel(ref::longhorn(Q, K, V, zero, &S0).state, S0), "beta=0");
               if (which == Upd::deltanet) w.upd(matrel(ref::delta_rule(Q, K, V, zero, &S0).state, S0), "beta=0");
               if (which == Upd::gdn) {
                 const MV beta = to_mp(b);
                 w.upd(matrel(ref::gated_delta_rule(Q, K, V, zero, ones0, ref::DecayPlacement::G, &S0).state, S0), "beta=0, alpha=1");
                 const auto g1 = ref::gated_delta_rule(Q, K, V, beta, ones0, ref::DecayPlacement::G, &S0);
                 const auto d1 = ref::delta_rule(Q, K, V, beta, &S0);
                 w.rows(g1.O, d1.O, "alpha=1 vs DeltaNet");
                 w.upd(matrel(g1.state, d1.state), "alpha=1 vs DeltaNet final state");
                 MV lg(n);
                 for (std::size_t t = 0; t < n; ++t) lg[t] = ref::log_gate(mp_t(a[t]));
                 const auto gr = ref::gated_delta_rule(Q, K, V, beta, lg, ref::DecayPlacement::G, &S0);
                 MM Qs(n - m, dk), Ks(n - m, dk), Vs(n - m, dv);
                 MV bs(n - m), ls(n - m);
                 for (std::size_t t = m; t < n; ++t) {
                   for (std::size_t c = 0; c < dk; ++c) { Qs(t - m, c) = Q(t, c); Ks(t - m, c) = K(t, c); }
                   for (std::size_t c = 0; c < dv; ++c) Vs(t - m, c) = V(t, c);
                   bs[t - m] = beta[t];
                   ls[t - m] = lg[t];
                 }
                 w.upd(matrel(ref::gated_delta_rule(Qs, Ks, Vs, bs, ls, ref::DecayPlacement::G).state, gr.state), "alpha=0 reset");
               }
               where = w.where;
               return w.r;
             });
    }
    parts.emplace_back("sanity", ck.result(cfg, "n in 1..7, d_k, d_v in 1..3, S0 Gaussian"));
  }
  return combine_witness(parts);
}

}  // namespace

// A004-UPD-LONGHORN, A004-UPD-DELTANET, A004-UPD-GDN: Online Update lines 3-5 against their closed forms.
ClaimResult a004_upd_longhorn(const CheckConfig& cfg) { return check_upd(cfg, Upd::longhorn); }
ClaimResult a004_upd_deltanet(const CheckConfig& cfg) { return check_upd(cfg, Upd::deltanet); }
ClaimResult a004_upd_gdn(const CheckConfig& cfg) { return check_upd(cfg, Upd::gdn); }

void register_a004_online_updates_delta(Ledger& l) {
  const auto add = claim_support::claim_adder(l);
  using namespace check_class;
  add("A004-UPD-LONGHORN", "Longhorn update (U-Longhorn)", identity, true, a004_upd_longhorn);
  add("A004-UPD-DELTANET", "DeltaNet update (U-DeltaNet)", identity, true, a004_upd_deltanet);
  add("A004-UPD-GDN", "Gated DeltaNet update (U-GDN)", identity, true, a004_upd_gdn);
}

}  // namespace recall
