// Paper A001 (test-time regression), §6 with Eq. (11): the LS memory with the construction's keys
// k_t = x_{t-1} and values v_t = x_t returns the response exactly when the distinct non-zero keys are
// linearly independent [derived]; the error when they are not (more distinct keys than d) is reported.
// R-ID checks (IdentityCheck: a failure is re-evaluated at doubled digits) with recall::mp_t at P-scaled digits
// (cfg.digits + 2 ceil(log10 cond(K)) + 2, cond(K) from an fp64 pre-pass: the pseudo-inverse form R S^+ q
// forms the key Gram S), on the MQAR instances of proofs_numeric/support/mqar_claims.hpp (one-hot, dense
// orthonormal and random unit embeddings). The spec states the memory as R S^+ (S_{T+1} may be singular), so
// that Gram form is the one decided; every instance (those beyond the hypothesis and with more distinct keys
// than d included) also cross-checks it against the SVD form V^T (K^+)^T q of the same memory (one-sided
// Jacobi SVD of the key matrix with its exactly repeated rows, no Gram formed). Every instance is drawn from
// std::mt19937_64 seeded by splitmix64(cfg.seed ^ fnv1a(tag) ^ splitmix64(n)); witnesses are 1-based.
// Spec ID: A001-MQAR-LS-VARIANT.
#include "recall/proofs/claims.hpp"
#include "recall/proofs/ledger.hpp"
#include "recall/reference/short_conv_mqar.hpp"
#include "recall/reference/svd.hpp"
#include "claim_support.hpp"
#include "linear_attention_claims.hpp"
#include "mqar_claims.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::linattn;
using namespace claim_support::mqar;

using ref::MqarContext;

// number of distinct non-zero keys x_1..x_T of the construction (each distinct cue present brings its
// response): 2 x (distinct cues present)
std::size_t distinct_keys(const MqarContext& c) {
  std::vector<char> seen(c.P, 0);
  std::size_t n = 0;
  for (std::size_t i : c.pairs)
    if (!seen[i]) {
      seen[i] = 1;
      ++n;
    }
  return 2 * n;
}

// ---------------------------------------------------------------------------------------------
// A001-MQAR-LS-VARIANT
// ---------------------------------------------------------------------------------------------

enum class LsEmb { onehot, dense, random };
const char* ls_emb_name(LsEmb e) { return e == LsEmb::onehot ? "one-hot" : e == LsEmb::dense ? "dense-orthonormal" : "random-unit"; }

ClaimResult ls_variant_part(const CheckConfig& cfg, LsEmb kind, const std::vector<PT>& grid, double* max_cond, ClaimResult* minnorm) {
  const std::string tag = std::string("A001-MQAR-LS-VARIANT/") + ls_emb_name(kind);
  IdentityCheck ic("max ||y_LS - r_{i_j}|| / max(1, ||y_LS||, ||r||), y_LS = R S^+ q (Eq. 11, pseudo-inverse form), P-scaled digits, on "
                   "instances whose distinct non-zero keys are linearly independent (rank(S) = #distinct keys)",
                   cfg.digits);
  IdentityCheck mn("max relative residual between R S^+ q and the SVD (min-norm) form V^T (K^+)^T q (no Gram formed)", cfg.digits);
  for (const PT& pt : grid) {
    const u64 s = pt_seed(cfg, tag.c_str(), pt.P, pt.T);
    const MqarContext c = draw_context(s, pt.P, pt.T);
    Gauss g(mix(s, 7));
    const std::size_t d = kind == LsEmb::random ? 2 * pt.P + (pt.P % 2) * 3 : 2 * pt.P;  // random: d = 2P, or 2P + 3 for odd P
    std::vector<DM> vs;
    DM Ed;
    if (kind == LsEmb::dense) vs = householder_vectors(g, d, 3);
    if (kind == LsEmb::random) Ed = random_unit_embedding(g, pt.P, d);
    // cond(K): orthonormal embeddings (one-hot or dense) share the singular values sqrt(key counts)
    const double cond = kind == LsEmb::random ? ls_cond_fp64(Ed, c) : ls_cond_fp64(onehot_embedding<double>(pt.P, d), c);
    const unsigned extra = ls_extra_digits(cond);
    if (max_cond) *max_cond = std::max(*max_cond, cond);
    const std::size_t nd = distinct_keys(c);
    auto embed = [&]() -> MM {
      return kind == LsEmb::onehot ? onehot_embedding<mp_t>(pt.P, d) : kind == LsEmb::dense ? dense_orthonormal_embedding(pt.P, d, vs) : to_mp(Ed);
    };
    auto eval = [&](unsigned dg, std::size_t* rk) {
      MpDigitsScope sc(dg + extra);
      const MM E = embed();
      const MM X = ref::mqar_tokens(E, c);
      const MV y = ref::mqar_ls_output(X, ref::default_rank_tol<mp_t>(d), rk);
      return vecrel(y, column(E, pt.P + c.query));
    };
    const std::string desc = pt_desc(pt.P, pt.T, d) + " " + ls_emb_name(kind) + " " + ctx_desc(c) + " cond(K)=" + fmt(cond) +
                             " digits=" + std::to_string(cfg.digits + extra) + " inst_seed=" + hex(s);
    // the SVD form of the same memory on every instance (the hypothesis not needed): V^T (K^+)^T q, K^+ by the one-sided Jacobi SVD of the
    // (T+1) x d key matrix with its exactly repeated rows (no Gram formed)
    auto both = [&](unsigned dg) {
      MpDigitsScope sc(dg + extra);
      const MM X = ref::mqar_tokens(embed(), c);
      return vecrel(ref::mqar_ls_output(X, ref::default_rank_tol<mp_t>(d)), ref::mqar_ls_output_minnorm(X, ref::default_rank_tol<mp_t>(d)));
    };
    mn.add(desc, both);
    // hypothesis: rank(S) = number of distinct non-zero keys (evaluated at the working digits)
    std::size_t rank = 0;
    const double first = eval(cfg.digits, &rank);
    if (rank != nd) {
      ic.exclude(desc, "rank(S) = " + std::to_string(rank) + " != " + std::to_string(nd) + " distinct keys: hypothesis not met");
      continue;
    }
    bool used = false;
    ic.add(desc, [&](unsigned dg) {
      if (dg == cfg.digits && !used) {
        used = true;
        return first;
      }
      std::size_t rk = 0;
      return eval(dg, &rk);
    });
  }
  if (minnorm) *minnorm = mn.result(cfg, "every instance of the part");
  return ic.result(cfg, std::to_string(grid.size()) + " instances " + ls_emb_name(kind) +
                            (kind == LsEmb::random ? " d = 2P (2P + 3 for odd P)" : " d = 2P") + ", digits = " + std::to_string(cfg.digits) +
                            " + 2 ceil(log10 cond(K)) + 2");
}

ClaimResult a001_mqar_ls_variant(const CheckConfig& cfg) {
  std::vector<PT> g_onehot, g_dense, g_rand;
  if (cfg.quick) {
    g_onehot = {{1, 2}, {2, 4}, {3, 8}, {4, 16}, {8, 32}, {16, 64}, {32, 128}};
    g_dense = {{1, 2}, {2, 6}, {4, 16}, {8, 32}};
    g_rand = {{1, 2}, {2, 8}, {3, 16}, {8, 32}, {9, 64}};
  } else {
    for (std::size_t T : {2, 4, 8, 16, 32, 64, 128, 256, 512})
      for (std::size_t P : {1, 2, 3, 5, 8, 16, 32, 64})
        if (P * T <= 8192) g_onehot.push_back({P, T});
    for (std::size_t T : {2, 6, 16, 32, 64, 128, 256})
      for (std::size_t P : {1, 2, 4, 8, 16, 24})
        if (P * T <= 2048) g_dense.push_back({P, T});
    for (std::size_t T : {2, 8, 16, 32, 64, 128})
      for (std::size_t P : {1, 2, 3, 5, 8, 9, 16})
        if (P * T <= 1024) g_rand.push_back({P, T});
  }
  double mc = 1;
  ClaimResult m1, m2, m3;
  ClaimResult p1 = ls_variant_part(cfg, LsEmb::onehot, g_onehot, &mc, &m1);
  ClaimResult p2 = ls_variant_part(cfg, LsEmb::dense, g_dense, &mc, &m2);
  ClaimResult p3 = ls_variant_part(cfg, LsEmb::random, g_rand, &mc, &m3);
  // more distinct keys than d (the hypothesis fails): the error is reported; the SVD form is cross-checked there too
  const char* tag = "A001-MQAR-LS-VARIANT/over-capacity";
  IdentityCheck m4("max relative residual between R S^+ q and the SVD (min-norm) form V^T (K^+)^T q (no Gram formed)", cfg.digits);
  std::string lines;
  int n4 = 0;
  for (std::size_t d : {4, 8, 12})
    for (std::size_t T : {16, 64, 256}) {
      if (cfg.quick && T == 256) continue;
      const std::size_t P = 8;
      int ok = 0, n = 0, over = 0;
      double worst = 0, sum = 0;
      for (int k = 0; k < (cfg.quick ? 2 : 8); ++k) {
        const u64 s = instance_seed(cfg, tag, 100000 * d + 100 * T + k);
        const MqarContext c = draw_context(s, P, T);
        Gauss g(mix(s, 7));
        const DM Ed = random_unit_embedding(g, P, d);
        const unsigned extra = ls_extra_digits(ls_cond_fp64(Ed, c));
        double gap = 0;
        {
          MpDigitsScope sc(cfg.digits + extra);
          const MM E = to_mp(Ed);
          const MM X = ref::mqar_tokens(E, c);
          std::size_t rk = 0;
          const MV y = ref::mqar_ls_output(X, ref::default_rank_tol<mp_t>(d), &rk);
          const double err = vecrel(y, column(E, P + c.query));
          ++n;
          over += distinct_keys(c) > d ? 1 : 0;
          worst = std::max(worst, err);
          sum += err;
          ok += ref::mqar_decode(E, y, P) == c.query ? 1 : 0;
          gap = vecrel(y, ref::mqar_ls_output_minnorm(X, ref::default_rank_tol<mp_t>(d)));
        }
        bool used = false;
        m4.add(pt_desc(P, T, d) + " random-unit " + ctx_desc(c) + " digits=" + std::to_string(cfg.digits + extra) + " inst_seed=" + hex(s),
               [&](unsigned dg) {
                 if (dg == cfg.digits && !used) {
                   used = true;
                   return gap;
                 }
                 MpDigitsScope sc(dg + extra);
                 const MM X = ref::mqar_tokens(to_mp(Ed), c);
                 return vecrel(ref::mqar_ls_output(X, ref::default_rank_tol<mp_t>(d)), ref::mqar_ls_output_minnorm(X, ref::default_rank_tol<mp_t>(d)));
               });
        ++n4;
      }
      lines += (lines.empty() ? "" : "; ") + std::string("d=") + std::to_string(d) + " T=" + std::to_string(T) + ": " +
               std::to_string(over) + "/" + std::to_string(n) + " with #keys > d, error mean " + fmt(sum / n) + " max " + fmt(worst) +
               ", decoded " + std::to_string(ok) + "/" + std::to_string(n);
    }
  ClaimResult r = combine_parts({{"one-hot", std::move(p1)},
                                 {"dense orthonormal", std::move(p2)},
                                 {"random unit (linearly independent)", std::move(p3)},
                                 {"Eq. (11) pinv form = min-norm form, one-hot", std::move(m1)},
                                 {"Eq. (11) pinv form = min-norm form, dense", std::move(m2)},
                                 {"Eq. (11) pinv form = min-norm form, random", std::move(m3)},
                                 {"Eq. (11) pinv form = min-norm form, more distinct keys than d",
                                  m4.result(cfg, std::to_string(n4) + " random-unit instances P = 8, d in {4, 8, 12}")}});
  r.evidence.extra.emplace_back("largest cond(K) (fp64 pre-pass)", fmt(mc));
  r.evidence.extra.emplace_back("distinct keys exceed d (random unit, P = 8, mp; reported, not decided)", lines);
  return r;
}

}  // namespace

void register_a001_mqar_ls_variant(Ledger& l) {
  using namespace check_class;
  auto add = claim_support::claim_adder(l);
  add("A001-MQAR-LS-VARIANT", "LS memory with the same keys returns the response exactly [derived]", identity, false, a001_mqar_ls_variant);
}

}  // namespace recall
