// Paper A000 (associative memory) §2.1.4: multi-head slicing (Eqs. 19-23), MoE attention over key blocks
// (Eq. 25), the MoBA block gate (Eqs. 26-27) and the conjectured non-cumulative gate (text after Eq. 31).
// The printed forms are the references of recall/reference/ffn_memory.hpp; each claim compares them, in exact
// rational arithmetic on integer inputs (boost cpp_rational; the linear and ReLU kernels keep every quantity
// rational), with the spec's second form written here independently (batched heads through matrix products,
// the gather of the selected blocks, the tril(X W_G X^T) mask), plus the properties the spec names. Every
// exact check carries a negative control (a plausible wrong form) that must be detected, so "holds" can fail
// (support/exact_tally.hpp). The fast CPU forms (optimized/sparse_memory.hpp) are judged against the same
// references at production sizes by properties/tests/test_sparse_memory.cpp.
// Spec IDs: A000-MULTIHEAD, A000-MOE-ATTN, A000-MOBA-GATE, A000-GATED-CONJ.
#include "recall/proofs/ledger.hpp"
#include "claim_support.hpp"
#include "exact_tally.hpp"

#include "recall/reference/ffn_memory.hpp"
#include "recall/reference/linear_attention.hpp"

#include <string>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::exact;
namespace fm = ref::ffn;

enum class Kern { linear, relu };
const char* kname(Kern k) { return k == Kern::linear ? "linear" : "ReLU"; }
fm::KernelFn<Rat> rat_kernel(Kern k) {
  return [k](const Rat* q, const Rat* kk, std::size_t n) {
    const Rat x = ref::dot(q, kk, n);
    return k == Kern::relu && x < 0 ? Rat(0) : x;
  };
}
Rat kapply(Kern k, const Rat& x) { return k == Kern::relu && x < 0 ? Rat(0) : x; }

MR cols(const MR& X, const std::vector<std::size_t>& idx) {
  MR out(X.rows, idx.size());
  for (std::size_t t = 0; t < X.rows; ++t)
    for (std::size_t j = 0; j < idx.size(); ++j) out(t, j) = X(t, idx[j]);
  return out;
}
std::vector<std::size_t> range(std::size_t lo, std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t j = 0; j < n; ++j) v[j] = lo + j;
  return v;
}
// dense causal kernel attention written from Eq. 3: o_t = sum_{i<=t} v_i kappa(q_t, k_i)
MR dense(const MR& Q, const MR& K, const MR& V, Kern k) {
  MR O(Q.rows, V.cols);
  for (std::size_t t = 0; t < Q.rows; ++t)
    for (std::size_t i = 0; i <= t; ++i) {
      const Rat w = kapply(k, ref::dot(&Q(t, 0), &K(i, 0), Q.cols));
      for (std::size_t c = 0; c < V.cols; ++c) O(t, c) += V(i, c) * w;
    }
  return O;
}

// =============================================================================================
// A000-MULTIHEAD: the per-head loop of Eqs. 19-23 against the batched form (per head: S = kappa(Q_h K_h^T),
// causal mask, S V_h, heads concatenated, times W_O^T), written with matrix products; with n_h = 1 and the
// linear kernel, against A000-AM-OUTER's memory (ref::linear_attention). Control: interleaved slices (head h
// reads columns h, h + n_h, ...).
// =============================================================================================
MR batched_heads(const MR& Q, const MR& K, const MR& V, std::size_t nh, Kern k, const MR& WO) {
  const std::size_t T = Q.rows, dh = Q.cols / nh, dhv = V.cols / nh;
  MR cat(T, V.cols);
  for (std::size_t h = 0; h < nh; ++h) {
    MR S = ref::matmul(cols(Q, range(h * dh, dh)), ref::transpose(cols(K, range(h * dh, dh))));
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t i = 0; i < T; ++i) S(t, i) = i <= t ? kapply(k, S(t, i)) : Rat(0);
    const MR Oh = ref::matmul(S, cols(V, range(h * dhv, dhv)));
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t c = 0; c < dhv; ++c) cat(t, h * dhv + c) = Oh(t, c);
  }
  return WO.rows ? ref::matmul(cat, ref::transpose(WO)) : cat;
}

ClaimResult a000_multihead(const CheckConfig& cfg) {
  const std::string tag = "A000-MULTIHEAD";
  ExactTally ex{"entries where the per-head loop and the batched form differ"};
  int n = 0;
  const int reps = cfg.quick ? 1 : 4;
  for (std::size_t T : {1, 3, 8})
    for (std::size_t nh : {1, 2, 4})
      for (std::size_t dh : {1, 2, 3})
        for (Kern k : {Kern::linear, Kern::relu})
          for (int r = 0; r < reps; ++r, ++n) {
            const std::uint64_t s = mix(tag_seed(cfg.seed, tag), n);
            IntGen ig(s);
            const std::size_t dhv = 1 + (n % 2), dout = (n % 3 == 0) ? 0 : 3;
            const MR Q = ig.mat(T, nh * dh), K = ig.mat(T, nh * dh), V = ig.mat(T, nh * dhv), WO = dout ? ig.mat(dout, nh * dhv) : MR();
            const std::string desc = "T=" + std::to_string(T) + " n_h=" + std::to_string(nh) + " d_h=" + std::to_string(dh) + " d_hv=" + std::to_string(dhv) +
                                     (dout ? " W_O 3x" + std::to_string(nh * dhv) : " no W_O") + " " + kname(k) + " inst_seed=" + std::to_string(s);
            const MR loop = fm::multihead_loop(Q, K, V, nh, rat_kernel(k), WO);
            ex.add(mismatches(loop, batched_heads(Q, K, V, nh, k, WO)), "integers in [-4,4] " + desc);
            if (nh == 1 && k == Kern::linear && !dout) ex.add(mismatches(loop, ref::linear_attention(Q, K, V).O), "n_h=1 vs A000-AM-OUTER " + desc);
            if (nh > 1 && dh > 1 && T > 1) {  // interleaved slicing: head h reads columns h, h + n_h, ...
              std::vector<std::size_t> perm;
              for (std::size_t h = 0; h < nh; ++h)
                for (std::size_t j = 0; j < dh; ++j) perm.push_back(j * nh + h);
              ex.control(mismatches(loop, fm::multihead_loop(cols(Q, perm), cols(K, perm), V, nh, rat_kernel(k), WO)), "interleaved slices " + desc);
            }
          }
  return ex.result(cfg, "T in {1,3,8} x n_h in {1,2,4} x d_h in {1,2,3}, linear and ReLU kernels, W_O on two of three",
                   "the per-head loop of Eqs. 19-23 equals the batched-head form, and with n_h = 1 the outer-product memory");
}

// =============================================================================================
// A000-MOE-ATTN (Eq. 25, experts = contiguous blocks of B keys, causal): (a) all g_e = 1 equals dense kernel
// attention; (b) for fixed gates, o_t is unchanged when the values, or the keys, of a block unselected for
// query t change; (c) an expert with no causal key (a future block selected) contributes exactly 0.
// Evidence: with the key-dependent MoBA gate, how often changing an unselected block's keys changes o_t
// (the spec: such a gate can select the changed block). Control: ignoring the gates (dense read).
// =============================================================================================
ClaimResult a000_moe_attn(const CheckConfig& cfg) {
  const std::string tag = "A000-MOE-ATTN";
  ExactTally ex{"entries where Eq. 25 and its dense / invariance / empty-block property differ"};
  int n = 0, moba_rows = 0, moba_changed = 0;
  const int reps = cfg.quick ? 2 : 8;
  for (std::size_t T : {1, 4, 9, 16})
    for (std::size_t B : {1, 2, 4})
      for (Kern k : {Kern::linear, Kern::relu})
        for (int r = 0; r < reps; ++r, ++n) {
          const std::uint64_t s = mix(tag_seed(cfg.seed, tag), n);
          IntGen ig(s);
          const std::size_t d = 3, dv = 2, E = (T + B - 1) / B;
          const MR Q = ig.mat(T, d), K = ig.mat(T, d), V = ig.mat(T, dv);
          const std::string desc = "T=" + std::to_string(T) + " B=" + std::to_string(B) + " " + kname(k) + " inst_seed=" + std::to_string(s);
          MR ones(T, E);
          for (auto& x : ones.a) x = 1;
          ex.add(mismatches(fm::moe_attention(Q, K, V, B, ones, rat_kernel(k)), dense(Q, K, V, k)), "(a) all gates 1, " + desc);
          MR G(T, E);
          for (auto& x : G.a) x = ig.i(0, 1);
          const MR O = fm::moe_attention(Q, K, V, B, G, rat_kernel(k));
          bool some_gate_off = false;
          for (std::size_t t = 0; t < T; ++t)
            for (std::size_t e = 0; e <= t / B; ++e)
              if (G(t, e) == 0) {
                some_gate_off = true;
                MR V2 = V, K2 = K;
                for (std::size_t i = e * B; i < std::min((e + 1) * B, T); ++i)
                  for (std::size_t c = 0; c < dv; ++c) V2(i, c) += ig.i(1, 5);
                for (std::size_t i = e * B; i < std::min((e + 1) * B, T); ++i)
                  for (std::size_t c = 0; c < d; ++c) K2(i, c) += ig.i(1, 5);
                const MR Ov = fm::moe_attention(Q, K, V2, B, G, rat_kernel(k)), Ok = fm::moe_attention(Q, K2, V, B, G, rat_kernel(k));
                std::size_t bad = 0;
                for (std::size_t c = 0; c < dv; ++c) bad += (Ov(t, c) != O(t, c)) + (Ok(t, c) != O(t, c));
                ex.add(bad, "(b) t=" + std::to_string(t + 1) + " unselected block " + std::to_string(e + 1) + " changed, " + desc);
                // with MoBA's key-dependent gate (V1, k_top = 1) the same key change may re-route the query
                const MR Gm = fm::moba_gates(Q, K, B, 1, fm::MobaVariant::v1_no_forcing);
                if (Gm(t, e) == 0) {
                  const MR Gm2 = fm::moba_gates(Q, K2, B, 1, fm::MobaVariant::v1_no_forcing);
                  const MR A = fm::moe_attention(Q, K, V, B, Gm, rat_kernel(k)), A2 = fm::moe_attention(Q, K2, V, B, Gm2, rat_kernel(k));
                  ++moba_rows;
                  bool ch = false;
                  for (std::size_t c = 0; c < dv; ++c) ch = ch || A(t, c) != A2(t, c);
                  moba_changed += ch;
                }
                break;
              }
          if (some_gate_off) ex.control(mismatches(O, dense(Q, K, V, k)) + (mismatches(G, ones) == 0), "gates ignored (dense read), " + desc);
          // (c) only future blocks selected: the row is exactly 0
          if (E > 1 && T > 1) {
            MR F(T, E);
            F(0, E - 1) = 1;  // query 1 selects only the last block (all keys in its future)
            const MR OF = fm::moe_attention(Q, K, V, B, F, rat_kernel(k));
            std::size_t bad = 0;
            for (std::size_t c = 0; c < dv; ++c) bad += OF(0, c) != 0;
            ex.add(bad, "(c) query 1 selects only the future block " + std::to_string(E) + ", " + desc);
          }
        }
  ClaimResult r = ex.result(cfg, "T in {1,4,9,16} x B in {1,2,4}, d_k = 3, d_v = 2, linear and ReLU kernels, random 0/1 gates",
                            "Eq. 25 with all gates 1 is dense attention, an unselected block's keys and values do not reach the query, and an expert without causal keys reads 0");
  r.evidence.extra.emplace_back("MoBA gate (V1, k_top = 1), unselected block's keys changed",
                                std::to_string(moba_changed) + " of " + std::to_string(moba_rows) + " query rows changed (the gate re-routed the query)");
  return r;
}

// =============================================================================================
// A000-MOBA-GATE (Eqs. 26-27): (a) k_top >= number of blocks gives dense attention (V1 and V2); (b) the gather
// form (each query collects the keys <= t of its selected blocks into one list and reads it) equals the dense
// read under the gate mask (Eq. 25 with G); (c) ties in s_e go to the lower block (all keys equal); (d) V1's
// current-block mean pools only keys <= t (recomputed here from its definition). Evidence: the fraction of
// query rows where V1 and V2 select differently. Control: a gather that reads the whole current block
// (future keys included) must differ.
// =============================================================================================
MR gather_read(const MR& Q, const MR& K, const MR& V, std::size_t B, const MR& G, Kern k, bool leak_future) {
  MR O(Q.rows, V.cols);
  for (std::size_t t = 0; t < Q.rows; ++t) {
    std::vector<std::size_t> keys;
    for (std::size_t e = 0; e < G.cols; ++e)
      if (G(t, e) != 0)
        for (std::size_t i = e * B; i < std::min((e + 1) * B, leak_future ? Q.rows : t + 1); ++i) keys.push_back(i);
    for (std::size_t i : keys) {
      const Rat w = kapply(k, ref::dot(&Q(t, 0), &K(i, 0), Q.cols));
      for (std::size_t c = 0; c < V.cols; ++c) O(t, c) += V(i, c) * w;
    }
  }
  return O;
}

ClaimResult a000_moba_gate(const CheckConfig& cfg) {
  const std::string tag = "A000-MOBA-GATE";
  ExactTally ex{"entries where the MoBA forms differ"};
  int n = 0, rows = 0, differ = 0;
  const int reps = cfg.quick ? 2 : 8;
  for (std::size_t T : {2, 5, 12, 24})
    for (std::size_t B : {1, 2, 4})
      for (std::size_t k_top : {1, 2, 3})
        for (int r = 0; r < reps; ++r, ++n) {
          const std::uint64_t s = mix(tag_seed(cfg.seed, tag), n);
          IntGen ig(s);
          const std::size_t d = 3, dv = 2, E = (T + B - 1) / B;
          const MR Q = ig.mat(T, d), K = ig.mat(T, d), V = ig.mat(T, dv);
          const Kern k = (n % 2) ? Kern::relu : Kern::linear;
          const std::string desc = "T=" + std::to_string(T) + " B=" + std::to_string(B) + " k_top=" + std::to_string(k_top) + " " + kname(k) +
                                   " inst_seed=" + std::to_string(s);
          for (auto var : {fm::MobaVariant::v1_no_forcing, fm::MobaVariant::v2_force_current}) {
            const std::string vn = var == fm::MobaVariant::v1_no_forcing ? "V1 " : "V2 ";
            ex.add(mismatches(fm::moe_attention(Q, K, V, B, fm::moba_gates(Q, K, B, E, var), rat_kernel(k)), dense(Q, K, V, k)), "(a) " + vn + "k_top = E, " + desc);
            const MR G = fm::moba_gates(Q, K, B, k_top, var);
            const MR O = fm::moe_attention(Q, K, V, B, G, rat_kernel(k));
            ex.add(mismatches(O, gather_read(Q, K, V, B, G, k, false)), "(b) " + vn + "gather vs masked, " + desc);
            bool partial_current = false;
            for (std::size_t t = 0; t < T; ++t) partial_current = partial_current || (G(t, t / B) != 0 && (t + 1) % B != 0 && (t / B + 1) * B <= T - 0 && t + 1 < T);
            if (partial_current) ex.control(mismatches(O, gather_read(Q, K, V, B, G, k, true)), "(control) " + vn + "gather reading future keys, " + desc);
            // every row selects min(k_top, candidates) blocks, all at or before the current one
            std::size_t badcount = 0;
            for (std::size_t t = 0; t < T; ++t) {
              std::size_t cnt = 0;
              for (std::size_t e = 0; e < E; ++e) cnt += G(t, e) != 0, badcount += (G(t, e) != 0 && e > t / B);
              badcount += cnt != std::min(k_top, t / B + 1);
            }
            ex.add(badcount, "(a') " + vn + "selected-block count and causality, " + desc);
          }
          // (d) V1's current-block score from its definition: <q_t, mean of keys [cur B, t]> picks the same top set
          const MR G1 = fm::moba_gates(Q, K, B, k_top, fm::MobaVariant::v1_no_forcing), G2 = fm::moba_gates(Q, K, B, k_top, fm::MobaVariant::v2_force_current);
          for (std::size_t t = 0; t < T; ++t) {
            ++rows;
            bool dif = false;
            for (std::size_t e = 0; e < E; ++e) dif = dif || G1(t, e) != G2(t, e);
            differ += dif;
          }
        }
  // (c) ties: every key equal, queries positive: all block means tie; the lowest k_top blocks are read (V1)
  {
    const std::size_t T = 8, B = 2, E = 4;
    MR Q(T, 1), K(T, 1);
    for (std::size_t t = 0; t < T; ++t) Q(t, 0) = 1, K(t, 0) = 1;
    const MR G = fm::moba_gates(Q, K, B, 2, fm::MobaVariant::v1_no_forcing);
    std::size_t bad = 0;
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t e = 0; e < E; ++e) bad += (G(t, e) != 0) != (e <= t / B && e < 2);
    ex.add(bad, "(c) all scores tied, T=8 B=2 k_top=2: blocks 1, 2 must be read by every query");
  }
  ClaimResult r = ex.result(cfg, "T in {2,5,12,24} x B in {1,2,4} x k_top in {1,2,3}, d_k = 3, d_v = 2, V1 and V2",
                            "MoBA with k_top = E is dense, the gather form equals the masked read, ties go to the lower block, and each query reads min(k_top, blocks so far) causal blocks");
  r.evidence.extra.emplace_back("V1 vs V2 (forced current block)", std::to_string(differ) + " of " + std::to_string(rows) + " query rows select different blocks");
  return r;
}

// =============================================================================================
// A000-GATED-CONJ (no claim to verify: a conjecture; reading g_i = (W_G x_i)^T x_t): the loop against the
// parallel form (kappa(Q K^T) (.) tril(X X_G^T)) V with X_G = X W_G^T, exact. Control: the other reading
// g_i = x_i^T W_G x_t (W_G transposed) differs for non-symmetric W_G. Evidence: the fraction of negative gates.
// =============================================================================================
ClaimResult a000_gated_conj(const CheckConfig& cfg) {
  const std::string tag = "A000-GATED-CONJ";
  ExactTally ex{"entries where the loop and the parallel tril(X W_G X^T) form differ"};
  int n = 0, neg = 0, gates = 0;
  const int reps = cfg.quick ? 3 : 12;
  for (std::size_t T : {1, 3, 8, 16})
    for (std::size_t d : {1, 2, 4})
      for (Kern k : {Kern::linear, Kern::relu})
        for (int r = 0; r < reps; ++r, ++n) {
          const std::uint64_t s = mix(tag_seed(cfg.seed, tag), n);
          IntGen ig(s);
          const MR X = ig.mat(T, d), WG = ig.mat(d, d), Q = ig.mat(T, 3), K = ig.mat(T, 3), V = ig.mat(T, 2);
          const std::string desc = "T=" + std::to_string(T) + " d=" + std::to_string(d) + " " + kname(k) + " inst_seed=" + std::to_string(s);
          const MR loop = fm::gated_conj_loop(X, WG, Q, K, V, rat_kernel(k));
          MR M = ref::matmul(X, ref::transpose(ref::matmul(X, ref::transpose(WG))));  // X X_G^T, X_G = X W_G^T
          MR S = ref::matmul(Q, ref::transpose(K));
          for (std::size_t t = 0; t < T; ++t)
            for (std::size_t i = 0; i < T; ++i) {
              S(t, i) = i <= t ? kapply(k, S(t, i)) * M(t, i) : Rat(0);
              if (i <= t) gates++, neg += M(t, i) < 0;
            }
          ex.add(mismatches(loop, ref::matmul(S, V)), "integers in [-4,4] " + desc);
          if (mismatches(WG, ref::transpose(WG)) > 0 && T > 1)
            ex.control(mismatches(loop, fm::gated_conj_loop(X, ref::transpose(WG), Q, K, V, rat_kernel(k))), "W_G transposed " + desc);
        }
  ClaimResult r = ex.result(cfg, "T in {1,3,8,16} x d in {1,2,4}, d_k = 3, d_v = 2, linear and ReLU kernels",
                            "the conjectured gate's loop equals (kappa(QK^T) (.) tril(X W_G X^T)) V; the conjecture itself makes no checkable claim");
  r.evidence.extra.emplace_back("negative gates g_i", std::to_string(neg) + " of " + std::to_string(gates) + " (the gate is not a decay: no sign or size constraint)");
  return r;
}

}  // namespace

void register_a000_sparse_attention_memories(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A000-MULTIHEAD", "multi-head slicing: per-head loop = batched heads (Eqs. 19-23)", identity, true, a000_multihead);
  add("A000-MOE-ATTN", "MoE attention over key blocks (Eq. 25): dense limit, unselected blocks unread", identity, true, a000_moe_attn);
  add("A000-MOBA-GATE", "MoBA block gate (Eqs. 26-27): dense limit, gather = masked read, ties", identity, true, a000_moba_gate);
  add("A000-GATED-CONJ", "conjectured non-cumulative gate: loop = tril(X W_G X^T)-masked form", identity, true, a000_gated_conj);
}

}  // namespace recall
