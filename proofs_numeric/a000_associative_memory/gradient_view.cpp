// A000 (associative memory), §2.2, Eqs. 33-35: the linear-attention update as a unit gradient step
// of L_t = -<S k_t, v_t>, the unboundedness of the inner-product objective, and the general
// recurrence S_t = A_t S_{t-1} B_t + C_t against each dedicated recurrence.
// Spec IDs: A000-GD-VIEW, A000-GD-UNBOUNDED, A000-GEN-REC.
// Instances come from cfg.seed (std::mt19937_64), smallest sizes first; identities run at
// cfg.digits (R-ID, doubled-digit confirmation). The gradient harness: a000_objective_claims.hpp.
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

// ---- A000-GD-VIEW ----------------------------------------------------------------------------

ClaimResult a000_gd_view(const CheckConfig& cfg) {
  // (b) iterating the unit gradient step of L_t = -<S k_t, v_t> from S_0 = 0 reproduces the
  // outer-product memory of A000-AM-OUTER (ref::linear_attention), states and outputs.
  IdentityCheck ic("max rel |unit-GD iterate - linear_attention| (state and outputs)", cfg.digits);
  Rng g(tag_seed(cfg.seed, "GD-VIEW-AM"));
  for (std::size_t T : {1u, 2u, 3u, 7u, 16u})
    for (std::size_t d : {1u, 2u, 3u}) {
      const DM Q = gauss(g, T, d), K = gauss(g, T, d), V = gauss(g, T, d + 1);
      ic.add("T=" + std::to_string(T) + " d_k=" + std::to_string(d) + " d_v=" + std::to_string(d + 1), [&](unsigned digits) {
        MpDigitsScope sc(digits);
        const MM q = to_mp(Q), k = to_mp(K), v = to_mp(V);
        const auto ref_la = ref::linear_attention(q, k, v);
        MM S(v.cols, k.cols), O(T, v.cols);
        for (std::size_t t = 0; t < T; ++t) {
          const MV kt = row_vec(k, t), vt = row_vec(v, t);
          const MM G = exact_grad([&](const MM& X) { return ref::linattn_objective(X, kt, vt); }, S);
          S = ref::add(S, G, mp_t(-1));
          ref::matvec_into(O.row(t), S, q.row(t));
        }
        return std::max(rel_max(S, ref_la.state), rel_max(O, ref_la.O));
      });
    }
  return harness_claim(cfg, "GD-VIEW", {row_linattn()}, {{"reproduces A000-AM-OUTER", ic.result(cfg, "T in {1,2,3,7,16}, d_k in {1,2,3}")}});
}

// ---- A000-GD-UNBOUNDED -------------------------------------------------------------------------

// Symmetric eigen-decomposition by cyclic Jacobi at the current digits: returns eigenvalues, V (columns).
void jacobi_eigen(MM A, MV& ev, MM& Vec) {
  const std::size_t n = A.rows;
  Vec = ref::identity_matrix<mp_t>(n);
  const mp_t tiny = ten_pow(-static_cast<int>(mp_digits()) - 5);
  for (int sweep = 0; sweep < 60; ++sweep) {
    mp_t off(0);
    for (std::size_t p = 0; p < n; ++p)
      for (std::size_t q = p + 1; q < n; ++q) off += A(p, q) * A(p, q);
    if (off <= tiny * tiny) break;
    for (std::size_t p = 0; p < n; ++p)
      for (std::size_t q = p + 1; q < n; ++q) {
        if (A(p, q) == 0) continue;
        jacobi_rotate(A, Vec, p, q);
      }
  }
  ev.assign(n, mp_t(0));
  for (std::size_t i = 0; i < n; ++i) ev[i] = A(i, i);
}

struct BoundInfo {
  bool unbounded = false;
  double min_eig = 0, null_lin = 0, value_at_1e12 = 0;
};
// L is quadratic: L(S) = L(0) - b^T s + 1/2 s^T H s with H_ij from the exact gradient. Bounded below
// iff H is PSD and b lies in range(H). Certificate ray: the most negative eigenvector, else the
// null-space part of b; the objective is evaluated literally at ||S||_F = 1e12 along it.
BoundInfo bounded_below(const std::function<mp_t(const MM&)>& L, std::size_t dv, std::size_t dk) {
  const std::size_t n = dv * dk;
  const MM Z(dv, dk);
  const MM g0 = exact_grad(L, Z);
  MM H(n, n);
  for (std::size_t j = 0; j < n; ++j) {
    MM E(dv, dk);
    E.a[j] = 1;
    const MM gj = exact_grad(L, E);
    for (std::size_t i = 0; i < n; ++i) H(i, j) = gj.a[i] - g0.a[i];
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) H(i, j) = H(j, i) = (H(i, j) + H(j, i)) / 2;
  MV ev;
  MM Vec;
  jacobi_eigen(H, ev, Vec);
  mp_t scale(1);
  for (const mp_t& e : ev) scale = std::max<mp_t>(scale, abs(e));
  const mp_t tol = scale * ten_pow(-static_cast<int>(mp_digits()) + 15);
  std::size_t imin = 0;
  for (std::size_t i = 1; i < n; ++i)
    if (ev[i] < ev[imin]) imin = i;
  BoundInfo bi;
  bi.min_eig = to_d(ev[imin]);
  MM D(dv, dk);
  if (ev[imin] < -tol) {
    bi.unbounded = true;
    for (std::size_t i = 0; i < n; ++i) D.a[i] = Vec(i, imin);
  } else {
    // b = -g0; null-space component of b
    for (std::size_t j = 0; j < n; ++j)
      if (abs(ev[j]) <= tol) {
        mp_t c(0);
        for (std::size_t i = 0; i < n; ++i) c -= Vec(i, j) * g0.a[i];
        for (std::size_t i = 0; i < n; ++i) D.a[i] += c * Vec(i, j);
      }
    const mp_t nb = ref::frob(D);
    bi.null_lin = to_d(nb);
    mp_t gscale = ref::frob(g0);
    if (gscale < 1) gscale = 1;
    bi.unbounded = nb > tol * gscale;
  }
  if (bi.unbounded) {
    const mp_t nd = ref::frob(D);
    const MM X = ref::scaled(D, mp_t(mp_t("1e12") / nd));
    bi.value_at_1e12 = to_d(L(X));
  }
  return bi;
}

ClaimResult a000_gd_unbounded(const CheckConfig& cfg) {
  Rng g(tag_seed(cfg.seed, "GD-UNBOUNDED"));
  MpDigitsScope sc(cfg.digits);
  const int draws = cfg.quick ? 3 : 20;
  const std::vector<std::size_t> dims = cfg.quick ? std::vector<std::size_t>{1, 2, 3} : std::vector<std::size_t>{1, 2, 3, 4};
  // per row: unbounded count / total
  struct Tally { int unb = 0, tot = 0; double worst_val = 0; };
  const char* names[8] = {"LinAttn", "GLA-row", "GLA-col", "DeltaNet", "Momentum(Table2,t>=2)", "SM-nonorm(phi_2)", "SM-norm", "GSM"};
  Tally tally[8];
  for (auto& x : tally) x.worst_val = -1e300;
  int claimed_instances = 0;
  std::string witness;
  double worst_claim_val = -1e300;
  for (std::size_t dv : dims)
    for (std::size_t dk : dims)
      for (int d = 0; d < draws; ++d) {
        const DM S0 = gauss(g, dv, dk);
        (void)S0;
        const std::size_t t = 2 + static_cast<std::size_t>(d);
        const DM K = gauss(g, t, dk), V = gauss(g, t, dv);
        const DV lam = uniform_vec(g, std::max(dv, dk)), eta = uniform_vec(g, t);
        const MM k = to_mp(K), v = to_mp(V);
        const MV kt = last_row(k), vt = last_row(v);
        const MV lamv = head(to_mp(lam), dv), lamk = head(to_mp(lam), dk);
        const MV etam = to_mp(eta);
        // phi_2 on a raw key of dimension 1 gives D_phi = 3 (only when dk == 3)
        std::vector<std::function<mp_t(const MM&)>> Ls = {
            [&](const MM& X) { return ref::linattn_objective(X, kt, vt); },
            [&](const MM& X) { return ref::gla_row_objective(X, kt, vt, lamv); },
            [&](const MM& X) { return ref::gla_col_objective(X, kt, vt, lamk); },
            [&](const MM& X) { return ref::deltanet_objective(X, kt, vt); },
            [&](const MM& X) { return ref::momentum_objective_table(X, k, v, etam, t); },
            nullptr,
            [&](const MM& X) { return ref::smnorm_objective(X, kt, vt, t); },
            [&](const MM& X) { return ref::gsm_objective_printed(X, kt, vt, lamv, t); }};
        MV phik;
        if (dk == 3) {
          const MV raw{kt[0]};
          phik = ref::apply_feature_map<mp_t>(exp2_map(), raw.data(), 1);
          Ls[5] = [&](const MM& X) { return ref::linattn_objective(X, phik, vt); };
        }
        for (int r = 0; r < 8; ++r) {
          if (!Ls[r]) continue;
          const BoundInfo bi = bounded_below(Ls[r], dv, dk);
          ++tally[r].tot;
          if (bi.unbounded) {
            ++tally[r].unb;
            tally[r].worst_val = std::max(tally[r].worst_val, bi.value_at_1e12);
          }
          if (r == 0 || r == 5) {  // the claimed rows: unbounded for nonzero k, v
            ++claimed_instances;
            const bool numeric_unb = bi.unbounded && bi.value_at_1e12 < -1e6;
            worst_claim_val = std::max(worst_claim_val, bi.unbounded ? bi.value_at_1e12 : 1e300);
            if (!numeric_unb && witness.empty())
              witness = std::string(names[r]) + " d_v=" + std::to_string(dv) + " d_k=" + std::to_string(dk) + " draw=" +
                        std::to_string(d + 1) + " (min eig " + fmt(bi.min_eig) + ", L at |S|=1e12: " + fmt(bi.value_at_1e12) + ")";
          }
        }
      }
  // Edge case: a zero key (or value) makes -<S k, v> identically 0 (bounded); reported, not a counterexample
  // to the generic statement.
  ClaimResult res;
  auto& e = res.evidence;
  e.statistic = "max over claimed rows (LinAttn, SM-nonorm) of L(S) at ||S||_F = 1e12 along the certificate ray";
  e.value = worst_claim_val;
  e.threshold = -1e6;
  e.instances = claimed_instances;
  e.digits = cfg.digits;
  e.seed = cfg.seed;
  e.sizes = "d_v, d_k in {1..." + std::to_string(dims.back()) + "}, " + std::to_string(draws) + " draws, t = 2..";
  for (int r = 0; r < 8; ++r)
    e.extra.emplace_back(std::string("row ") + names[r],
                         std::to_string(tally[r].unb) + "/" + std::to_string(tally[r].tot) + " unbounded below" +
                             (tally[r].unb ? " (L at ||S||=1e12 up to " + fmt(tally[r].worst_val) + ")" : ""));
  e.extra.emplace_back("edge", "k_t = 0 or v_t = 0 makes -<S k, v> identically 0 (bounded): the statement is generic");
  if (witness.empty()) {
    res.verdict = Verdict::holds;
    res.reason = "the linear-attention and unnormalised softmax objectives are unbounded below on every instance "
                 "(linear in S with no quadratic part); other rows tallied in extra";
  } else {
    res.verdict = Verdict::violated;
    e.witness = witness;
    res.reason = "a claimed-unbounded objective is bounded below";
  }
  return res;
}

// ---- A000-GEN-REC ------------------------------------------------------------------------------

ClaimResult a000_gen_rec(const CheckConfig& cfg) {
  IdentityCheck ic("max rel |general recurrence - dedicated recurrence| (states)", cfg.digits);
  Rng g(tag_seed(cfg.seed, "GEN-REC"));
  const std::vector<std::size_t> Ts = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 7} : std::vector<std::size_t>{1, 2, 3, 7, 16, 64};
  for (std::size_t T : Ts)
    for (std::size_t dk : {1u, 2u, 3u}) {
      const std::size_t dv = dk == 1 ? 2 : dk;
      const DM Q = gauss(g, T, dk), K = gauss(g, T, dk), V = gauss(g, T, dv);
      DM Ku = K;
      for (std::size_t t = 0; t < T; ++t) normalize(Ku.row(t), dk);
      const DV lamv = uniform_vec(g, T * dv), alk = uniform_vec(g, T * dk), a = uniform_vec(g, T), eta = uniform_vec(g, T);
      DV beta(T);
      for (std::size_t t = 0; t < T; ++t) beta[t] = 0.5 * static_cast<double>(t % 5);  // {0, .5, 1, 1.5, 2}
      const std::string base = " T=" + std::to_string(T) + " d_k=" + std::to_string(dk) + " d_v=" + std::to_string(dv);
      auto gen = [&](std::size_t T_, const std::function<ref::Abc<mp_t>(std::size_t)>& f, std::size_t dv_, std::size_t dk_) {
        return ref::general_recurrence<mp_t>(MM(dv_, dk_), T_, f).back();
      };
      ic.add("LinAttn (I,I,v k^T) vs linear_attention" + base, [&](unsigned digits) {
        MpDigitsScope sc(digits);
        const MM q = to_mp(Q), k = to_mp(K), v = to_mp(V);
        const MM s = gen(T, [&](std::size_t t) { return ref::linattn_abc(row_vec(k, t - 1), row_vec(v, t - 1)); }, dv, dk);
        return rel_max(s, ref::linear_attention(q, k, v).state);
      });
      ic.add("scalar gate (a_t I, I, v k^T) vs gated_linear_attention" + base, [&](unsigned digits) {
        MpDigitsScope sc(digits);
        const MM q = to_mp(Q), k = to_mp(K), v = to_mp(V);
        const MV am = to_mp(a);
        MV lg(T);
        for (std::size_t t = 0; t < T; ++t) lg[t] = ref::log_gate(am[t]);
        const MM s = gen(T, [&](std::size_t t) {
          return ref::Abc<mp_t>{ref::scaled(ref::identity_matrix<mp_t>(dv), am[t - 1]), ref::identity_matrix<mp_t>(dk),
                                ref::outer(row_vec(v, t - 1), row_vec(k, t - 1))};
        }, dv, dk);
        return rel_max(s, ref::gated_linear_attention(q, k, v, lg).state);
      });
      ic.add("GLA-col (I, diag a_t, v k^T) vs gated_linear_attention_diag and its closed form" + base, [&](unsigned digits) {
        MpDigitsScope sc(digits);
        const MM q = to_mp(Q), k = to_mp(K), v = to_mp(V);
        MM lg(T, dk), al(T, dk);
        for (std::size_t i = 0; i < T * dk; ++i) { al.a[i] = mp_t(alk[i]); lg.a[i] = ref::log_gate(al.a[i]); }
        const MM s = gen(T, [&](std::size_t t) { return ref::gla_col_abc(row_vec(k, t - 1), row_vec(v, t - 1), row_vec(al, t - 1)); }, dv, dk);
        return std::max(rel_max(s, ref::gated_linear_attention_diag(q, k, v, lg).state),
                        rel_max(s, ref::gated_linear_attention_diag_state_closed(k, v, lg, T)));
      });
      ic.add("DeltaNet-beta (I, I - beta k k^T, beta v k^T) vs delta_rule (unit keys, beta in {0,.5,1,1.5,2})" + base, [&](unsigned digits) {
        MpDigitsScope sc(digits);
        const MM q = to_mp(Q), k = to_mp(Ku), v = to_mp(V);
        const MV b = to_mp(beta);
        const MM s = gen(T, [&](std::size_t t) { return ref::deltanet_abc(row_vec(k, t - 1), row_vec(v, t - 1), b[t - 1]); }, dv, dk);
        return rel_max(s, ref::delta_rule(q, k, v, b).state);
      });
      ic.add("Gated DeltaNet (a_t I, I - beta k k^T, beta v k^T) vs gated_delta_rule(G)" + base, [&](unsigned digits) {
        MpDigitsScope sc(digits);
        const MM q = to_mp(Q), k = to_mp(Ku), v = to_mp(V);
        const MV b = to_mp(beta), am = to_mp(a);
        MV lg(T);
        for (std::size_t t = 0; t < T; ++t) lg[t] = ref::log_gate(am[t]);
        const MM s = gen(T, [&](std::size_t t) {
          auto m = ref::deltanet_abc(row_vec(k, t - 1), row_vec(v, t - 1), b[t - 1]);
          m.A = ref::scaled(m.A, am[t - 1]);
          return m;
        }, dv, dk);
        return rel_max(s, ref::gated_delta_rule(q, k, v, b, lg, ref::DecayPlacement::G).state);
      });
      ic.add("Momentum (I, I - k k^T, C_t) vs momentum_deltanet" + base, [&](unsigned digits) {
        MpDigitsScope sc(digits);
        const MM k = to_mp(Ku), v = to_mp(V);
        const MV e = to_mp(eta);
        const auto C = ref::momentum_accumulator(k, v, e);
        const MM s = gen(T, [&](std::size_t t) {
          const MV kt = row_vec(k, t - 1);
          return ref::Abc<mp_t>{ref::identity_matrix<mp_t>(dv), ref::add(ref::identity_matrix<mp_t>(dk), ref::outer(kt, kt), mp_t(-1)), C[t - 1]};
        }, dv, dk);
        return rel_max(s, ref::momentum_deltanet(k, v, e).back());
      });
      ic.add("SM-norm ((t-1)/t I, I, v k^T / t) vs running mean" + base, [&](unsigned digits) {
        MpDigitsScope sc(digits);
        const MM k = to_mp(K), v = to_mp(V);
        const MM s = gen(T, [&](std::size_t t) { return ref::smnorm_abc(row_vec(k, t - 1), row_vec(v, t - 1), t); }, dv, dk);
        return rel_max(s, ref::running_mean_state(k, v, T));
      });
      (void)lamv;
    }
  return ic.result(cfg, "T in {1,2,3,7(,16,64)}, d_k in {1,2,3}; instances LinAttn, scalar gate, GLA-col, DeltaNet-beta, gated DeltaNet, momentum, SM-norm");
}

}  // namespace

void register_a000_gradient_view(Ledger& l) {
  const auto add = claim_support::claim_adder(l);
  using namespace check_class;
  add("A000-GD-VIEW", "Linear-attention update as a unit gradient step (Eqs. 33-34)", identity, false, a000_gd_view);
  add("A000-GD-UNBOUNDED", "Unboundedness of the inner-product objective", inequality, false, a000_gd_unbounded);
  add("A000-GEN-REC", "General recurrence S_t = A_t S_{t-1} B_t + C_t (Eq. 35)", identity, true, a000_gen_rec);
}

}  // namespace recall
