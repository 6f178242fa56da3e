// Memory and Forgetting (seed A004), Part E: Online Update line 2 and the objective table row Mamba2:
// the scalar-decay update U-Mamba2 (S_t = alpha_t S_{t-1} + v_t k_t^T) against its closed form, the
// unrolled sum, the decay-masked parallel form and the chunked form, on the G3 gate patterns.
// Spec IDs: A004-UPD-MAMBA2.
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
// A004-UPD-MAMBA2
// =============================================================================================
ClaimResult a004_upd_mamba2(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A004-UPD-MAMBA2");
  Checker ck("max relative residual vs sequential: closed-form state (every t) and its read-out, unrolled sum, decay-masked parallel, chunked", cfg.digits);
  const std::vector<std::size_t> ns = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 7, 16} : std::vector<std::size_t>{1, 2, 3, 7, 64, 257};
  const std::vector<Gates> gk = {Gates::uniform, Gates::with_zeros, Gates::ones, Gates::tiny, Gates::near_one, Gates::mixed};
  const std::vector<Keys> kinds = {Keys::gauss, Keys::sphere, Keys::repeated, Keys::zero, Keys::onehot};
  int inst = 0;
  for (std::size_t n : ns) for (int rep = 0; rep < full_reps(cfg, n); ++rep)
    for (auto [dk, dv] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 1}, {2, 3}, {3, 2}})
      for (Gates gate : gk)
        for (Keys kind : kinds) {
          if (ck.stopped()) break;
          if (n >= 16 && kind != Keys::gauss && kind != Keys::zero) continue;
          if (n >= 64 && (dk != 2 || kind != Keys::gauss)) continue;
          ++inst;
          const std::uint64_t is = mix(cs, inst);
          Rng g(is);
          const DM Kd = key_rows(g, kind, n, dk), Qd = gauss(g, n, dk), Vd = gauss(g, n, dv);
          const std::vector<double> alpha = gate_values(g, gate, n);
          std::string gstr;
          if (n <= 7) {
            for (std::size_t t = 0; t < n; ++t) gstr += (t ? "," : "") + fmt(alpha[t], 4);
            gstr = " alpha=(" + gstr + ")";
          }
          const std::string desc = "n=" + std::to_string(n) + " d_k=" + std::to_string(dk) + " d_v=" + std::to_string(dv) +
                                   " gates=" + gates_name(gate) + gstr + " keys=" + keys_name(kind) + " instance=" + std::to_string(inst) +
                                   " instance-seed=" + std::to_string(is);
          ck.add(desc, [&](unsigned dg, std::string& where) {
            MpDigitsScope s(dg);
            const MM Q = to_mp(Qd), K = to_mp(Kd), V = to_mp(Vd);
            MV a(n), lg(n);
            for (std::size_t t = 0; t < n; ++t) { a[t] = mp_t(alpha[t]); lg[t] = ref::log_gate(a[t]); }
            const auto seq = ref::gated_linear_attention(Q, K, V, lg);
            Worst w;
            // closed form S_t = sum_{i<=t} (prod_{j=i+1}^t alpha_j) v_i k_i^T with products of the gates
            MM Ocl(n, dv);
            for (std::size_t t = 0; t < n; ++t) {
              MM St(dv, dk);
              for (std::size_t i = 0; i <= t; ++i) {
                mp_t p(1);
                for (std::size_t j = i + 1; j <= t; ++j) p *= a[j];
                ref::add_outer(St, p, V.row(i), K.row(i));
              }
              const MV o = ref::matvec(St, Q.row(t));
              for (std::size_t c = 0; c < dv; ++c) Ocl(t, c) = o[c];
              if (t + 1 == n) w.upd(matrel(St, seq.state), "closed-form state S_n");
              else if (n <= 16) w.upd(matrel(St, ref::gated_linear_attention(head_rows(Q, t + 1), head_rows(K, t + 1), head_rows(V, t + 1),
                                                                              MV(lg.begin(), lg.begin() + t + 1)).state),
                                      "closed-form state S_" + std::to_string(t + 1));
            }
            w.rows(Ocl, seq.O, "closed-form read-out");
            w.rows(ref::gated_linear_attention_sum(Q, K, V, lg), seq.O, "unrolled sum");
            w.rows(ref::linear_attention_parallel(Q, K, V, &lg), seq.O, "decay-masked parallel");
            std::vector<std::size_t> Cs = {1, 2, 3, 16, n};
            if (n > 64) Cs = {16, 64, n};
            for (std::size_t C : Cs) {
              const auto ch = ref::linear_attention_chunked(Q, K, V, C, &lg);
              w.rows(ch.O, seq.O, "chunked C=" + std::to_string(C));
              w.upd(matrel(ch.state, seq.state), "chunked C=" + std::to_string(C) + " final state");
            }
            where = w.where;
            return w.r;
          });
        }
  return ck.result(cfg, "n in {" + std::string(cfg.quick ? "1,2,3,7,16" : "1,2,3,7,64,257") +
                            "}, (d_k,d_v) in {(1,1),(2,3),(3,2)}, G3 gates {0,1e-300,0.5,1-1e-12,1,U(0,1)} patterns, G1/G2 keys, "
                            "chunks {1,2,3,16,n}");
}

void register_a004_online_update_mamba2(Ledger& l) {
  const auto add = claim_support::claim_adder(l);
  using namespace check_class;
  add("A004-UPD-MAMBA2", "Scalar-decay update (U-Mamba2)", identity, true, a004_upd_mamba2);
}

}  // namespace recall
