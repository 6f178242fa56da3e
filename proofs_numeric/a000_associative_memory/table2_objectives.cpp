// A000 (associative memory), Table 2 rows 1-6 and App. 7.2 (Eqs. 65-80): each row's update as the
// unit gradient step of its printed objective (gradient harness), with the row's own identities:
// Eq. 67 (linear attention), GLA recurrent vs closed form (Eq. 69), Eqs. 72-73 and the DeltaNet
// forms (Eqs. 70-74), the momentum accumulator (Eqs. 75-76), softmax without / with normalisation
// (Eqs. 79-80).
// Spec IDs: A000-T2-LINATTN, A000-T2-GLA, A000-T2-DELTANET, A000-T2-MOMENTUM, A000-T2-MOMENTUM-EQ76,
// A000-T2-SMNONORM, A000-T2-SMNORM.
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

// ---- row makers of Table 2 rows 2-4 (rows 1 and 5-7: a000_objective_claims.hpp) ------------

Row row_gla(bool col) {
  return {col ? "GLA-col" : "GLA-row", [col](Rng& g, std::size_t dv, std::size_t dk, std::size_t) -> Builder {
            const Draw d = draw_basic(g, dv, dk, 1);
            return [d, col, dv, dk]() {
              const MV k = last_row(to_mp(d.K)), v = last_row(to_mp(d.V));
              const MV lam = head(to_mp(d.lam), col ? dk : dv);
              RowInst in;
              if (col) {
                in.L = [k, v, lam](const MM& X) { return ref::gla_col_objective(X, k, v, lam); };
                in.hand = [k, v, lam](const MM& X) { return ref::gla_col_grad(X, k, v, lam); };
                const auto m = ref::gla_col_abc(k, v, lam);
                in.update = [m](const MM& X) { return apply_abc(m, X); };
              } else {
                in.L = [k, v, lam](const MM& X) { return ref::gla_row_objective(X, k, v, lam); };
                in.hand = [k, v, lam](const MM& X) { return ref::gla_row_grad(X, k, v, lam); };
                const auto m = ref::gla_row_abc(k, v, lam);
                in.update = [m](const MM& X) { return apply_abc(m, X); };
              }
              in.S = to_mp(d.S);
              return in;
            };
          }};
}
// form 0: Eq. 74 (beta = 1), 1: Eq. 71 literal, 2: DeltaNet-beta (unit keys, beta in {0, .5, 1, 2})
Row row_deltanet(int form) {
  const char* names[3] = {"DeltaNet(Eq.74)", "DeltaNet(Eq.71)", "DeltaNet-beta"};
  return {names[form], [form](Rng& g, std::size_t dv, std::size_t dk, std::size_t) -> Builder {
            Draw d = draw_basic(g, dv, dk, 1);
            if (form == 2) {
              normalize(d.K.row(0), dk);
              const double betas[4] = {0, 0.5, 1, 2};
              d.beta = betas[std::uniform_int_distribution<int>(0, 3)(g)];
            }
            return [d, form]() {
              const MV k = last_row(to_mp(d.K)), v = last_row(to_mp(d.V));
              const mp_t beta(d.beta);
              RowInst in;
              if (form == 1) in.L = [k, v](const MM& X) { return ref::deltanet_objective_eq71(X, k, v); };
              else in.L = [k, v, beta](const MM& X) { return ref::deltanet_objective(X, k, v, beta); };
              in.hand = [k, v, beta](const MM& X) { return ref::deltanet_grad(X, k, v, beta); };
              const auto m = ref::deltanet_abc(k, v, beta);
              in.update = [m](const MM& X) { return apply_abc(m, X); };
              in.S = to_mp(d.S);
              return in;
            };
          }};
}
// eq76 = false: Table 2 cell; true: App. 7.2 Eq. 76 as printed. The update is the Table 2 row
// (I, I - k_t k_t^T, C_t) with C_t from the recurrent accumulator.
Row row_momentum(bool eq76) {
  Row r{eq76 ? "Momentum(Eq.76)" : "Momentum(Table2)", [eq76](Rng& g, std::size_t dv, std::size_t dk, std::size_t t) -> Builder {
          const Draw d = draw_basic(g, dv, dk, t, true);
          return [d, eq76, t]() {
            const MM K = to_mp(d.K), V = to_mp(d.V);
            const MV eta = to_mp(d.eta);
            const MV kt = last_row(K);
            const MM Ct = ref::momentum_accumulator(K, V, eta).back();
            RowInst in;
            if (eq76) in.L = [K, V, eta, t](const MM& X) { return ref::momentum_objective_eq76(X, K, V, eta, t); };
            else {
              in.L = [K, V, eta, t](const MM& X) { return ref::momentum_objective_table(X, K, V, eta, t); };
              in.hand = [kt, Ct](const MM& X) { return ref::momentum_grad_table(X, kt, Ct); };
            }
            const ref::Abc<mp_t> m{ref::identity_matrix<mp_t>(V.cols), ref::add(ref::identity_matrix<mp_t>(K.cols), ref::outer(kt, kt), mp_t(-1)), Ct};
            in.update = [m](const MM& X) { return apply_abc(m, X); };
            in.S = to_mp(d.S);
            return in;
          };
        }};
  r.max_t = 100;
  return r;
}

// ---- Table 2 rows ------------------------------------------------------------------------------

ClaimResult a000_t2_linattn(const CheckConfig& cfg) {
  // Eq. 67: tr((v k^T)^T S) = tr(S k v^T) = v^T S k = <S k, v>, each side literally.
  IdentityCheck ic("max rel difference among the four Eq. 67 expressions", cfg.digits);
  Rng g(tag_seed(cfg.seed, "T2-LINATTN-67"));
  for (std::size_t dv : {1u, 2u, 3u, 5u})
    for (std::size_t dk : {1u, 2u, 3u, 5u}) {
      const DM S = gauss(g, dv, dk);
      const DV k = gauss_vec(g, dk), v = gauss_vec(g, dv);
      ic.add("d_v=" + std::to_string(dv) + " d_k=" + std::to_string(dk), [&](unsigned digits) {
        MpDigitsScope sc(digits);
        const MM s = to_mp(S);
        const MV km = to_mp(k), vm = to_mp(v);
        const mp_t e1 = ref::trace(ref::matmul(ref::transpose(ref::outer(vm, km)), s));
        const mp_t e2 = ref::trace(ref::matmul(ref::matmul(s, ref::column(km)), ref::transpose(ref::column(vm))));
        const MV sk = ref::matvec(s, km.data());
        const mp_t e3 = ref::dot(vm.data(), sk.data(), dv);
        const mp_t e4 = ref::frob_inner(ref::column(sk), ref::column(vm));
        return std::max({rel_scalar(e1, e4), rel_scalar(e2, e4), rel_scalar(e3, e4)});
      });
    }
  return harness_claim(cfg, "T2-LINATTN", {row_linattn(false), row_linattn(true)}, {{"Eq. 67 trace identity", ic.result(cfg, "d_v, d_k in {1,2,3,5}")}});
}

ClaimResult a000_t2_gla(const CheckConfig& cfg) {
  // recurrent (general recurrence with diag gates) vs closed (log-space segment sums) outputs
  IdentityCheck ic("max rel |recurrent outputs - closed-form outputs| (GLA-row, GLA-col)", cfg.digits);
  Rng g(tag_seed(cfg.seed, "T2-GLA-fast"));
  for (std::size_t T : {1u, 2u, 3u, 7u, 16u})
    for (std::size_t d : {1u, 2u, 3u}) {
      const std::size_t dv = d + 1;
      const DM Q = gauss(g, T, d), K = gauss(g, T, d), V = gauss(g, T, dv);
      DV lam = uniform_vec(g, T * dv), al = uniform_vec(g, T * d);
      if (T >= 3) { lam[dv] = 0.0; al[d] = 1.0; }  // a zero gate (reset) and a unit gate
      ic.add("T=" + std::to_string(T) + " d_k=" + std::to_string(d) + " d_v=" + std::to_string(dv), [&](unsigned digits) {
        MpDigitsScope sc(digits);
        const MM q = to_mp(Q), k = to_mp(K), v = to_mp(V);
        MM lr(T, dv), ll(T, dv), ac(T, d), lc(T, d);
        for (std::size_t i = 0; i < T * dv; ++i) { lr.a[i] = mp_t(lam[i]); ll.a[i] = ref::log_gate(lr.a[i]); }
        for (std::size_t i = 0; i < T * d; ++i) { ac.a[i] = mp_t(al[i]); lc.a[i] = ref::log_gate(ac.a[i]); }
        const auto Srow = ref::general_recurrence<mp_t>(MM(dv, d), T, [&](std::size_t t) {
          return ref::gla_row_abc(row_vec(k, t - 1), row_vec(v, t - 1), row_vec(lr, t - 1));
        });
        const auto Scol = ref::general_recurrence<mp_t>(MM(dv, d), T, [&](std::size_t t) {
          return ref::gla_col_abc(row_vec(k, t - 1), row_vec(v, t - 1), row_vec(ac, t - 1));
        });
        MM Orow(T, dv), Ocol(T, dv);
        for (std::size_t t = 0; t < T; ++t) {
          ref::matvec_into(Orow.row(t), Srow[t + 1], q.row(t));
          ref::matvec_into(Ocol.row(t), Scol[t + 1], q.row(t));
        }
        const MM closed_row = ref::gla_row_outputs_closed(q, k, v, ll);
        double r = rel_max(Orow, closed_row);
        for (std::size_t t = 1; t <= T; ++t) r = std::max(r, rel_max(Scol[t], ref::gated_linear_attention_diag_state_closed(k, v, lc, t)));
        return r;
      });
    }
  return harness_claim(cfg, "T2-GLA", {row_gla(false), row_gla(true)}, {{"recurrent vs closed form", ic.result(cfg, "T in {1,2,3,7,16}, d in {1,2,3}, gates U(0,1) with a 0 and a 1")}});
}

ClaimResult a000_t2_deltanet(const CheckConfig& cfg) {
  // Eqs. 72-73 identities and S-form / u-form / matrix / chunked agreement at 50 digits.
  IdentityCheck id("max rel residual of Eq. 72 and Eq. 73", cfg.digits);
  IdentityCheck fm("max rel |form - S-form| over u-form, matrix form, chunked C in {1,2,4,16} (outputs, state)", cfg.digits);
  Rng g(tag_seed(cfg.seed, "T2-DELTANET"));
  for (std::size_t dv : {1u, 2u, 3u, 5u})
    for (std::size_t dk : {1u, 2u, 3u, 5u}) {
      const DM S = gauss(g, dv, dk);
      const DV k = gauss_vec(g, dk), v = gauss_vec(g, dv);
      id.add("d_v=" + std::to_string(dv) + " d_k=" + std::to_string(dk), [&](unsigned digits) {
        MpDigitsScope sc(digits);
        const MM s = to_mp(S);
        const MV km = to_mp(k), vm = to_mp(v);
        const MV sk = ref::matvec(s, km.data());
        const mp_t lhs72 = ref::trace(ref::matmul(ref::matmul(ref::transpose(s), s), ref::outer(km, km)));
        const mp_t rhs72 = ref::dot(sk.data(), sk.data(), dv);
        const mp_t lhs73 = ref::deltanet_objective_eq71(s, km, vm);
        const mp_t rhs73 = ref::deltanet_objective(s, km, vm) - ref::dot(vm.data(), vm.data(), dv) / 2;
        return std::max(rel_scalar(lhs72, rhs72), rel_scalar(lhs73, rhs73));
      });
    }
  const std::vector<std::size_t> Ts = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 7, 16} : std::vector<std::size_t>{1, 2, 3, 7, 16, 64};
  for (std::size_t T : Ts)
    for (int keys = 0; keys < 2; ++keys)
      for (double b : {0.0, 0.5, 1.0, 2.0}) {
        const std::size_t d = 3, dv = 2;
        const DM Q = gauss(g, T, d), V = gauss(g, T, dv);
        DM K = gauss(g, T, d, keys == 0 ? 0.5 : 1.0);
        if (keys == 1)
          for (std::size_t t = 0; t < T; ++t) normalize(K.row(t), d);
        const std::string desc = "T=" + std::to_string(T) + (keys ? " unit keys" : " gaussian keys (sd 0.5)") + " beta=" + fmt(b);
        fm.add(desc, [&](unsigned digits) {
          MpDigitsScope sc(digits);
          const MM q = to_mp(Q), k = to_mp(K), v = to_mp(V);
          const MV beta(T, mp_t(b));
          const auto s = ref::delta_rule(q, k, v, beta);
          const auto u = ref::delta_rule_u_form(q, k, v, beta);
          double r = std::max(rel_max(u.O, s.O), rel_max(u.state, s.state));
          r = std::max(r, rel_max(ref::delta_rule_matrix_form(q, k, v, beta), s.O));
          for (std::size_t C : {1u, 2u, 4u, 16u}) {
            const auto c = ref::delta_rule_chunked(q, k, v, beta, C);
            r = std::max({r, rel_max(c.O, s.O), rel_max(c.state, s.state)});
          }
          return r;
        });
      }
  return harness_claim(cfg, "T2-DELTANET", {row_deltanet(0), row_deltanet(1), row_deltanet(2)},
                       {{"Eqs. 72-73", id.result(cfg, "d_v, d_k in {1,2,3,5}")},
                        {"S/u/matrix/chunked forms", fm.result(cfg, "T in {1,2,3,7,16(,64)}, d_k=3, d_v=2, beta in {0,.5,1,2}")}});
}

ClaimResult a000_t2_momentum(const CheckConfig& cfg) {
  IdentityCheck ic("max rel |C_t recurrent - C_t closed (log-space products)|", cfg.digits);
  Rng g(tag_seed(cfg.seed, "T2-MOMENTUM-C"));
  for (std::size_t T : {1u, 2u, 3u, 10u, 100u}) {
    const DM K = gauss(g, T, 3), V = gauss(g, T, 2);
    DV eta = uniform_vec(g, T);
    if (T >= 3) eta[1] = 0.0;  // a zero momentum gate
    ic.add("T=" + std::to_string(T), [&](unsigned digits) {
      MpDigitsScope sc(digits);
      const MM k = to_mp(K), v = to_mp(V);
      const MV e = to_mp(eta);
      const auto C = ref::momentum_accumulator(k, v, e);
      double r = 0;
      for (std::size_t t = 1; t <= T; ++t) r = std::max(r, rel_max(C[t - 1], ref::momentum_accumulator_closed(k, v, e, t)));
      return r;
    });
  }
  return harness_claim(cfg, "T2-MOMENTUM", {row_momentum(false)}, {{"C_t recurrent vs closed", ic.result(cfg, "T in {1,2,3,10,100}")}});
}

ClaimResult a000_t2_momentum_eq76(const CheckConfig& cfg) { return harness_claim(cfg, "T2-MOMENTUM-EQ76", {row_momentum(true)}); }
ClaimResult a000_t2_smnonorm(const CheckConfig& cfg) { return harness_claim(cfg, "T2-SMNONORM", {row_softmax(0)}); }

ClaimResult a000_t2_smnorm(const CheckConfig& cfg) {
  IdentityCheck ic("max rel |Eq. 79 recurrence - running mean|", cfg.digits);
  Rng g(tag_seed(cfg.seed, "T2-SMNORM-mean"));
  for (std::size_t T : {1u, 2u, 3u, 10u, 100u}) {
    const DM K = gauss(g, T, 2), V = gauss(g, T, 2);
    ic.add("T=" + std::to_string(T) + " phi_2 (D=7)", [&](unsigned digits) {
      MpDigitsScope sc(digits);
      const MM pk = ref::apply_feature_map(exp2_map(), to_mp(K)), v = to_mp(V);
      const auto S = ref::general_recurrence<mp_t>(MM(2, pk.cols), T, [&](std::size_t t) { return ref::smnorm_abc(row_vec(pk, t - 1), row_vec(v, t - 1), t); });
      double r = 0;
      for (std::size_t t = 1; t <= T; ++t) r = std::max(r, rel_max(S[t], ref::running_mean_state(pk, v, t)));
      return r;
    });
  }
  return harness_claim(cfg, "T2-SMNORM", {row_softmax(1)}, {{"recurrence vs running mean", ic.result(cfg, "T in {1,2,3,10,100}")}});
}

}  // namespace

void register_a000_table2_objectives(Ledger& l) {
  const auto add = claim_support::claim_adder(l);
  using namespace check_class;
  add("A000-T2-LINATTN", "Table 2 row 1: linear attention (Eqs. 65-68)", identity, false, a000_t2_linattn);
  add("A000-T2-GLA", "Table 2 row 2: gated linear attention (Eq. 69), GLA-row and GLA-col", identity, false, a000_t2_gla);
  add("A000-T2-DELTANET", "Table 2 row 3: DeltaNet (Eqs. 70-74)", identity, false, a000_t2_deltanet);
  add("A000-T2-MOMENTUM", "Table 2 row 4: DeltaNet + momentum (Eq. 75)", identity, false, a000_t2_momentum);
  add("A000-T2-MOMENTUM-EQ76", "Momentum objective as printed in App. 7.2 (Eq. 76)", identity, false, a000_t2_momentum_eq76);
  add("A000-T2-SMNONORM", "Table 2 row 5: softmax attention without normalisation", identity, false, a000_t2_smnonorm);
  add("A000-T2-SMNORM", "Table 2 row 6: softmax attention with normalisation (Eqs. 79-80)", identity, false, a000_t2_smnorm);
}

}  // namespace recall
