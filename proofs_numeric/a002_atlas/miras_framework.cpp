// Paper A002 (Atlas), Part A of the spec: the general linear recurrence (Eq. 2), the Miras definition of an
// associative memory as one optimizer step on an attentional bias (Definition 1, App. B), the App. B.1
// examples, the retention-gate objective (Eq. 6) with its proximal reading, the global objective (Eq. 7)
// and the window gate tensor. Every verdict is computed from reference/include/recall/reference/miras.hpp
// and the existing references (linear_attention.hpp, delta_rule.hpp, online_rules.hpp, least_squares.hpp)
// at recall::mp_t; gradients of the objectives by central differences at twice the working digits.
// Instances: Box-Muller draws seeded by mix(tag_seed(cfg.seed, ID), n), smallest sizes first; witnesses
// name sizes, generator and instance seed; tokens 1-based.
// Spec IDs: A002-LINRNN-GENERAL, A002-ASSOC-MEM-DEF, A002-MIRAS-B1-LINATT, A002-MIRAS-B1-DELTANET,
// A002-RETENTION-ONLINE, A002-RETENTION-PROXIMAL, A002-GLOBAL-OBJ, A002-GATES.
#include "recall/proofs/claims.hpp"
#include "recall/proofs/claims_a002.hpp"
#include "recall/proofs/ledger.hpp"
#include "recall/reference/delta_rule.hpp"
#include "recall/reference/forms.hpp"
#include "recall/reference/least_squares.hpp"
#include "recall/reference/memory_objectives.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/miras.hpp"
#include "recall/reference/online_rules.hpp"
#include "recall/reference/regression_rules.hpp"
#include "a002_miras_claims.hpp"
#include "claim_support.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::miras;

// ---------------------------------------------------------------------------------------------
// A002-LINRNN-GENERAL
// ---------------------------------------------------------------------------------------------

// (A, B): M -> M A + B. Composition "first x then y": (A_x A_y, B_x A_y + B_y) (spec fast form); `reversed`
// is the wrong order (negative control).
struct Pair {
  MM A, B;
};
Pair compose(const Pair& x, const Pair& y, bool reversed = false) {
  if (reversed) return compose(y, x, false);
  Pair z{ref::matmul(x.A, y.A), ref::matmul(x.B, y.A)};
  for (std::size_t i = 0; i < z.B.a.size(); ++i) z.B.a[i] += y.B.a[i];
  return z;
}
// inclusive prefixes by the Blelloch (work-efficient) exclusive scan, padded with the identity pair
std::vector<Pair> blelloch_prefixes(const std::vector<Pair>& a, std::size_t dk, std::size_t dv, bool reversed) {
  std::size_t n = 1;
  while (n < a.size()) n *= 2;
  const Pair id{ref::eye<mp_t>(dk), MM(dv, dk)};
  std::vector<Pair> x(n, id);
  for (std::size_t i = 0; i < a.size(); ++i) x[i] = a[i];
  for (std::size_t d = 1; d < n; d *= 2)  // up-sweep
    for (std::size_t k = 0; k + 2 * d <= n; k += 2 * d) x[k + 2 * d - 1] = compose(x[k + d - 1], x[k + 2 * d - 1], reversed);
  x[n - 1] = id;
  for (std::size_t d = n / 2; d >= 1; d /= 2) {  // down-sweep: left <- parent prefix, right <- prefix o left sum
    for (std::size_t k = 0; k + 2 * d <= n; k += 2 * d) {
      const Pair t = x[k + d - 1];
      x[k + d - 1] = x[k + 2 * d - 1];
      x[k + 2 * d - 1] = compose(x[k + 2 * d - 1], t, reversed);
    }
    if (d == 1) break;
  }
  std::vector<Pair> incl(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) incl[i] = compose(x[i], a[i], reversed);
  return incl;
}
MM apply_pair(const MM& M0, const Pair& p) {
  MM M = ref::matmul(M0, p.A);
  for (std::size_t i = 0; i < M.a.size(); ++i) M.a[i] += p.B.a[i];
  return M;
}

ClaimResult a002_linrnn_general(const CheckConfig& cfg) {
  const std::string tag = "A002-LINRNN-GENERAL";
  ContractCheck ck("max relative residual: sequential Eq. 2 recurrence vs Blelloch scan and chunked scan (outputs and final state)", cfg.digits);
  int n = 0;
  const char* kinds[] = {"scalar", "diagonal", "diag-low-rank"};
  for (std::size_t T : seq_lengths(cfg))
    for (const Shape& sh : shapes(cfg)) {
      if (cfg.quick && (n % 2)) { ++n; continue; }
      const SeqInst x = seq_inst(cfg, tag, n, T, sh);
      const int kind = n % 3;
      Gauss g(mix(x.seed, 7));
      const DM A = [&] { DM a(T, sh.dk); for (double& z : a.a) z = 0.5 + 0.5 * g.uniform(); return a; }();
      const DM U = gauss_matrix(T, sh.dk, g, 0.4 / std::sqrt(double(sh.dk))), W = gauss_matrix(T, sh.dk, g, 0.4 / std::sqrt(double(sh.dk)));
      const DM M0 = gauss_matrix(sh.dv, sh.dk, g, 0.5);
      const std::size_t chunk = 1 + static_cast<std::size_t>(n % 4);
      ck.add(x.desc + " transition=" + kinds[kind] + " chunk=" + std::to_string(chunk), [&](unsigned) {
        const MM q = to_mp(x.Q), k = to_mp(x.K), v = to_mp(x.V), a = to_mp(A), u = to_mp(U), w = to_mp(W), m0 = to_mp(M0);
        const auto tk = static_cast<ref::LinRnnTransition>(kind);
        const auto ref_r = ref::linrnn_general(q, k, v, tk, a, &u, &w, &m0);
        std::vector<Pair> pairs(T);
        for (std::size_t t = 0; t < T; ++t) {
          MM At(sh.dk, sh.dk);
          for (std::size_t j = 0; j < sh.dk; ++j) At(j, j) = kind == 0 ? a(t, 0) : a(t, j);
          if (kind == 2) ref::add_outer(At, mp_t(-1), u.row(t), w.row(t));
          MM Bt(sh.dv, sh.dk);
          ref::add_outer(Bt, v.row(t), k.row(t));
          pairs[t] = {At, Bt};
        }
        StepEval e;
        Worst wst;
        std::vector<MM> Ms;
        for (const Pair& p : blelloch_prefixes(pairs, sh.dk, sh.dv, false)) Ms.push_back(apply_pair(m0, p));
        wst.rows(linattn::readout_each(Ms, q), ref_r.O, "Blelloch outputs");
        wst.upd(matrel(Ms.back(), ref_r.state), "Blelloch final state");
        std::vector<MM> Mc;  // chunked: prefix within each chunk, state passed between chunks
        MM prev = m0;
        for (std::size_t s = 0; s < T; s += chunk) {
          Pair acc{ref::eye<mp_t>(sh.dk), MM(sh.dv, sh.dk)};
          for (std::size_t t = s; t < std::min(T, s + chunk); ++t) {
            acc = compose(acc, pairs[t]);
            Mc.push_back(apply_pair(prev, acc));
          }
          prev = Mc.back();
        }
        wst.rows(linattn::readout_each(Mc, q), ref_r.O, "chunked outputs");
        e.r = wst.r;
        e.where = wst.where;
        if (T > 1) {
          std::vector<MM> Mr;
          for (const Pair& p : blelloch_prefixes(pairs, sh.dk, sh.dv, true)) Mr.push_back(apply_pair(m0, p));
          e.controls.push_back({"combine in the wrong order", matrel(Mr.back(), ref_r.state)});
        }
        return e;
      });
      ++n;
    }
  return ck.result(cfg, "T in {" + linattn::join(seq_lengths(cfg)) + "} x (dk,dv) grid, transitions scalar / diag / diag-low-rank, chunks 1..4; " +
                            miras::seed_note(cfg, tag));
}

// ---------------------------------------------------------------------------------------------
// A002-ASSOC-MEM-DEF: the update-contract checker validated on losses with known gradients
// ---------------------------------------------------------------------------------------------

ClaimResult a002_assoc_mem_def(const CheckConfig& cfg) {
  const std::string tag = "A002-ASSOC-MEM-DEF";
  ContractCheck quad("max relative residual: central-difference gradient (2x digits, h = 10^(-0.6 digits)) vs the known gradient "
                     "(1/2 (H + H^T) x + c of a quadratic; l_p (p = 3) chain rule; 2 x hand-written MLP backprop) and quad_argmin vs -H^-1 c",
                     cfg.digits);
  int n = 0;
  const int reps = cfg.quick ? 1 : 3;
  for (const Shape& sh : shapes(cfg))
    for (int rep = 0; rep < reps; ++rep) {
      const std::uint64_t s = inst_seed(cfg, tag, n);
      const std::size_t N = sh.dk * sh.dv;
      Gauss g(s);
      const DM H = gauss_matrix(N, N, g), B = gauss_matrix(N, N, g), C = gauss_matrix(sh.dv, sh.dk, g), X = gauss_matrix(sh.dv, sh.dk, g);
      const StepData sd = draw_step(g, sh);
      quad.add("quadratic + l_p + MLP " + shape_desc(sh) + " inst_seed=" + hex(s), [&](unsigned) {
        const MM h = to_mp(H), b = to_mp(B), c = to_mp(C), x = to_mp(X);
        // F(x) = 1/2 x^T H x + c^T x over vec(x) (row-major)
        auto F = [&](const PM& P) {
          mp_t acc(0);
          for (std::size_t i = 0; i < N; ++i) {
            for (std::size_t j = 0; j < N; ++j) acc += P[0].a[i] * h(i, j) * P[0].a[j] / 2;
            acc += c.a[i] * P[0].a[i];
          }
          return acc;
        };
        const PM G = fd_grad(F, one(x));
        MM known(sh.dv, sh.dk), wrong(sh.dv, sh.dk);
        for (std::size_t i = 0; i < N; ++i) {
          mp_t gs(0), gw(0);
          for (std::size_t j = 0; j < N; ++j) {
            gs += (h(i, j) + h(j, i)) / 2 * x.a[j];
            gw += h(i, j) * x.a[j];
          }
          known.a[i] = gs + c.a[i];
          wrong.a[i] = gw + c.a[i];
        }
        StepEval e;
        Worst w;
        w.upd(prel(G, one(known)), "quadratic gradient");
        e.controls.push_back({"H x + c (unsymmetrised)", prel(G, one(wrong))});
        // quad_argmin on the SPD quadratic 1/2 x^T (B B^T + I) x + c^T x: minimiser -(B B^T + I)^-1 c
        MM Hs = ref::matmul(b, ref::transpose(b));
        for (std::size_t i = 0; i < N; ++i) Hs(i, i) += 1;
        auto Fq = [&](const MM& Y) {
          mp_t acc(0);
          for (std::size_t i = 0; i < N; ++i) {
            for (std::size_t j = 0; j < N; ++j) acc += Y.a[i] * Hs(i, j) * Y.a[j] / 2;
            acc += c.a[i] * Y.a[i];
          }
          return acc;
        };
        MM cc(N, 1);
        for (std::size_t i = 0; i < N; ++i) cc(i, 0) = -c.a[i];
        const MM xs = ref::solve(Hs, cc);
        MM xm(sh.dv, sh.dk);
        for (std::size_t i = 0; i < N; ++i) xm.a[i] = xs(i, 0);
        const MM qa = quad_argmin(Fq, sh.dv, sh.dk);
        w.upd(matrel(qa, xm), "quad_argmin");
        MM negc(sh.dv, sh.dk);
        for (std::size_t i = 0; i < N; ++i) negc.a[i] = -c.a[i];
        e.controls.push_back({"-c (Hessian ignored)", matrel(qa, negc)});
        // l_p bias, p = 3: chain rule (dl/dy) phi^T
        const MV k = mpv(sd.k), v = mpv(sd.v);
        const MM M = to_mp(sd.M);
        const PM Gp = fd_grad(linear_loss(lp_bias(3), k, v), one(M));
        w.upd(prel(Gp, one(ref::linear_memory_grad(lp_bias(3), M, k.data(), v.data()))), "l_p gradient");
        ref::Bias lp2 = lp_bias(2);
        e.controls.push_back({"p = 2 chain rule for the p = 3 bias", prel(Gp, one(ref::linear_memory_grad(lp2, M, k.data(), v.data())))});
        // MLP memory: FD of ||f(k) - v||^2 vs 2 x ttt_grad_hand
        ref::TttConfig tc;
        tc.mlp = true;
        tc.ln = false;
        tc.residual = sh.dk == sh.dv;
        const PM th = {to_mp(sd.W1), to_mp(sd.W2)};
        auto Fm = [&](const PM& P) {
          const auto o = ref::ttt_forward(ref::TttParams<mp_t>{P[0], P[1]}, k.data(), k.size(), tc);
          return ref::bias_value(l2_bias(), o.f.data(), v.data(), v.size());
        };
        const PM Gm = fd_grad(Fm, th);
        const auto hg = ref::ttt_grad_hand(ref::TttParams<mp_t>{th[0], th[1]}, k.data(), v.data(), k.size(), tc);
        w.upd(prel(Gm, PM{scaled(hg.W1, mp_t(2)), scaled(hg.W2, mp_t(2))}), "MLP gradient");
        e.controls.push_back({"MLP 1/2-loss gradient for the full l2 loss", prel(Gm, PM{hg.W1, hg.W2})});
        e.r = w.r;
        e.where = w.where;
        return e;
      });
      ++n;
    }
  return quad.result(cfg, "(dk,dv) grid x " + std::to_string(reps) + "; H, B, c, x ~ N(0,1); MLP hidden 2..4 (GELU erf, residual iff dk = dv); " +
                              miras::seed_note(cfg, tag));
}

// ---------------------------------------------------------------------------------------------
// A002-MIRAS-B1-LINATT, A002-MIRAS-B1-DELTANET: one-step contract plus the sequence reductions
// ---------------------------------------------------------------------------------------------

ClaimResult a002_miras_b1_linatt(const CheckConfig& cfg) {
  const std::string tag = "A002-MIRAS-B1-LINATT";
  std::vector<Part> parts;
  parts.push_back({"contract (l = -<M k, v>, GD rate eta_t)", contract_part(cfg, tag, "Eq. 46, implemented sign", [](const StepData& s) {
                     return row_linear_attention(s, false);
                   }, 2, 20)});
  // sequence: repeated optimizer steps vs linear attention on eta-scaled values; sequential vs chunked form
  ContractCheck seq("max relative residual of outputs: GD steps on -<M k_t, v_t> (central differences) vs linear_attention(Q, K, diag(eta) V) "
                    "and linear_attention_chunked",
                    cfg.digits);
  int n = 0;
  for (std::size_t T : seq_lengths(cfg))
    for (const Shape& sh : shapes(cfg)) {
      if (cfg.quick && n % 3) { ++n; continue; }
      const SeqInst x = seq_inst(cfg, tag, n++, T, sh);
      seq.add(x.desc, [&](unsigned) {
        const MM q = to_mp(x.Q), k = to_mp(x.K), v = to_mp(x.V);
        MM ev = v;
        for (std::size_t t = 0; t < T; ++t)
          for (std::size_t j = 0; j < sh.dv; ++j) ev(t, j) *= mp_t(x.eta[t]);
        PM M = one(MM(sh.dv, sh.dk));
        MM O(T, sh.dv), Olit(T, sh.dv);
        PM Ml = M;
        for (std::size_t t = 0; t < T; ++t) {
          const MV kt = row_vec(k, t), vt = row_vec(v, t);
          M = ref::decayed_gd_step(M, fd_grad(linear_loss(dot_bias(), kt, vt), M), mp_t(1), mp_t(x.eta[t]));
          Ml = ref::decayed_gd_step(Ml, fd_grad(linear_loss(dot_bias(+1), kt, vt), Ml), mp_t(1), mp_t(x.eta[t]));
          ref::matvec_into(O.row(t), M[0], q.row(t));
          ref::matvec_into(Olit.row(t), Ml[0], q.row(t));
        }
        const auto la = ref::linear_attention(q, k, ev);
        StepEval e;
        Worst w;
        w.rows(O, la.O, "vs linear_attention");
        w.rows(ref::linear_attention_chunked(q, k, ev, 2).O, la.O, "chunked(2) vs sequential");
        e.r = w.r;
        e.where = w.where;
        e.controls.push_back({"GD on the literal +<M k, v>", rowrel(Olit, la.O)});
        return e;
      });
    }
  parts.push_back({"sequence", seq.result(cfg, "T in {" + linattn::join(seq_lengths(cfg)) + "} x (dk,dv) grid; " + miras::seed_note(cfg, tag))});
  ClaimResult r = combine_parts(std::move(parts));
  r.evidence.extra.emplace_back("reading", "l = -<M k, v> (spec Conventions, A-2); the printed Eq. 46 chain with +<M k, v> gives M - eta v k^T, "
                                           "which differs from its printed right side (used as the negative control)");
  return r;
}

ClaimResult a002_miras_b1_deltanet(const CheckConfig& cfg) {
  const std::string tag = "A002-MIRAS-B1-DELTANET";
  std::vector<Part> parts;
  parts.push_back({"contract (||.||^2, beta = 2 eta)", contract_part(cfg, tag, "Eq. 47 to implement, gradient at M_{t-1}", [](const StepData& s) {
                     return row_deltanet(s, false);
                   }, 2, 20)});
  parts.push_back({"contract (half_l2, beta = eta)", contract_part(cfg, tag + "/half", "half_l2 switch", [](const StepData& s) {
                     return row_deltanet(s, true);
                   }, 1, 10)});
  ContractCheck seq("max relative residual of outputs: GD steps on ||M k_t - v_t||^2 vs delta_rule(beta = 2 eta) and delta_rule_chunked_ut", cfg.digits);
  int n = 0;
  for (std::size_t T : seq_lengths(cfg))
    for (const Shape& sh : shapes(cfg)) {
      if (cfg.quick && n % 3) { ++n; continue; }
      const SeqInst x = seq_inst(cfg, tag, n++, T, sh);
      seq.add(x.desc, [&](unsigned) {
        const MM q = to_mp(x.Q), k = to_mp(x.K), v = to_mp(x.V);
        MV beta(T), eta(T);
        for (std::size_t t = 0; t < T; ++t) {
          eta[t] = mp_t(x.eta[t]);
          beta[t] = 2 * eta[t];
        }
        PM M = one(MM(sh.dv, sh.dk));
        MM O(T, sh.dv);
        for (std::size_t t = 0; t < T; ++t) {
          const MV kt = row_vec(k, t), vt = row_vec(v, t);
          M = ref::decayed_gd_step(M, fd_grad(linear_loss(l2_bias(), kt, vt), M), mp_t(1), eta[t]);
          ref::matvec_into(O.row(t), M[0], q.row(t));
        }
        const auto dr = ref::delta_rule(q, k, v, beta);
        StepEval e;
        Worst w;
        w.rows(O, dr.O, "vs delta_rule");
        w.rows(ref::delta_rule_chunked_ut(q, k, v, beta, 2).O, dr.O, "WY chunk(2) vs sequential");
        e.r = w.r;
        e.where = w.where;
        e.controls.push_back({"delta_rule with beta = eta (factor 2 dropped)", rowrel(O, ref::delta_rule(q, k, v, eta).O)});
        return e;
      });
    }
  parts.push_back({"sequence", seq.result(cfg, "T in {" + linattn::join(seq_lengths(cfg)) + "} x (dk,dv) grid; " + miras::seed_note(cfg, tag))});
  ClaimResult r = combine_parts(std::move(parts));
  r.evidence.extra.emplace_back("reading", "Eq. 47 to implement (A-7): M_t = M_{t-1}(I - 2 eta k k^T) + 2 eta v k^T; the printed form's missing "
                                           "rate on the value term and left multiplication are negative controls");
  return r;
}

// ---------------------------------------------------------------------------------------------
// A002-RETENTION-ONLINE, A002-RETENTION-PROXIMAL
// ---------------------------------------------------------------------------------------------

// eta log-uniform in [1e-3, 10], lambda in [0, 10] (every 4th instance lambda = 0 exactly)
std::pair<double, double> draw_eta_lambda(Gauss& g, int n) {
  const double eta = std::pow(10.0, -3.0 + 4.0 * g.uniform());
  const double lam = n % 4 == 0 ? 0.0 : 10.0 * g.uniform();
  return {eta, lam};
}

ClaimResult a002_retention_proximal(const CheckConfig& cfg) {
  const std::string tag = "A002-RETENTION-PROXIMAL";
  ContractCheck ck("max relative residual: minimiser of <grad l(M_{t-1}), M - M_{t-1}> + Ret_t (P1 solve from objective values) vs "
                   "retention_proximal_step",
                   cfg.digits);
  int n = 0;
  const int reps = cfg.quick ? 2 : 8;
  for (const Shape& sh : shapes(cfg))
    for (int rep = 0; rep < reps; ++rep) {
      const std::uint64_t s = inst_seed(cfg, tag, n);
      Gauss g(s);
      const StepData sd = draw_step(g, sh);
      const auto [eta, lam] = draw_eta_lambda(g, n);
      const bool dotb = n % 2;
      ck.add("G-step " + shape_desc(sh) + " bias=" + (dotb ? "dot" : "l2") + " eta=" + fmt(eta) + " lambda=" + fmt(lam) + " inst_seed=" + hex(s),
             [&, eta = eta, lam = lam](unsigned) {
               const MM Mp = to_mp(sd.M);
               const MV k = mpv(sd.k), v = mpv(sd.v);
               const mp_t e(eta), l(lam);
               const ref::Bias b = dotb ? dot_bias() : l2_bias();
               const MM G = ref::linear_memory_grad(b, Mp, k.data(), v.data());
               const mp_t l0 = ref::linear_memory_loss(b, Mp, k.data(), v.data());
               std::function<mp_t(const MM&)> lin = [&](const MM& M) {  // l linearised at M_{t-1}
                 mp_t acc = l0;
                 for (std::size_t i = 0; i < M.a.size(); ++i) acc += G.a[i] * (M.a[i] - Mp.a[i]);
                 return acc;
               };
               auto F = [&](const MM& M) { return ref::retention_online_objective<mp_t>(lin, M, Mp, e, l); };
               const MM sol = quad_argmin(F, sh.dv, sh.dk);
               StepEval ev;
               ev.r = matrel(sol, ref::retention_proximal_step(Mp, G, e, l));
               ev.where = "proximal step";
               MM plain = Mp, firstorder(sh.dv, sh.dk), norescale(sh.dv, sh.dk);
               for (std::size_t i = 0; i < plain.a.size(); ++i) {
                 plain.a[i] -= e * G.a[i];
                 firstorder.a[i] = (1 - e * l) * (Mp.a[i] - e * G.a[i]);
                 norescale.a[i] = Mp.a[i] / (1 + e * l) - e * G.a[i];
               }
               if (lam > 0) {
                 ev.controls.push_back({"first-order decay (1 - eta lambda)", matrel(sol, firstorder)});
                 ev.controls.push_back({"step not rescaled by 1/(1 + eta lambda)", matrel(sol, norescale)});
               }
               ev.controls.push_back({"retention ignored, doubled step (M - 2 eta G)", matrel(sol, [&] {
                                        MM x = plain;
                                        for (std::size_t i = 0; i < x.a.size(); ++i) x.a[i] -= e * G.a[i];
                                        return x;
                                      }())});
               return ev;
             });
      ++n;
    }
  return ck.result(cfg, "(dk,dv) grid x " + std::to_string(reps) + ", eta log-uniform [1e-3, 10], lambda U[0,10] (0 every 4th), biases l2 / dot; " +
                            miras::seed_note(cfg, tag));
}

ClaimResult a002_retention_online(const CheckConfig& cfg) {
  const std::string tag = "A002-RETENTION-ONLINE";
  ContractCheck ck("max relative residual: exact minimiser of l(M) + Ret_t(M, M_{t-1}) (P1 solve from objective values) vs closed forms "
                   "(dot bias: retention_proximal_step; exact l2 bias: Sherman-Morrison form; lambda = 0: Longhorn with beta = 2 eta)",
                   cfg.digits);
  int n = 0;
  const int reps = cfg.quick ? 2 : 8;
  for (const Shape& sh : shapes(cfg))
    for (int rep = 0; rep < reps; ++rep) {
      const std::uint64_t s = inst_seed(cfg, tag, n);
      Gauss g(s);
      const StepData sd = draw_step(g, sh);
      const auto [eta, lam] = draw_eta_lambda(g, n);
      ck.add("G-step " + shape_desc(sh) + " eta=" + fmt(eta) + " lambda=" + fmt(lam) + " inst_seed=" + hex(s), [&, eta = eta, lam = lam](unsigned) {
        const MM Mp = to_mp(sd.M);
        const MV k = mpv(sd.k), v = mpv(sd.v);
        const mp_t e(eta), l(lam);
        StepEval ev;
        Worst w;
        // (i) dot bias (linear, so linearisation is exact)
        std::function<mp_t(const MM&)> ldot = [&](const MM& M) { return ref::linear_memory_loss(dot_bias(), M, k.data(), v.data()); };
        const MM s1 = quad_argmin([&](const MM& M) { return ref::retention_online_objective<mp_t>(ldot, M, Mp, e, l); }, sh.dv, sh.dk);
        w.upd(matrel(s1, ref::retention_proximal_step(Mp, ref::linear_memory_grad(dot_bias(), Mp, k.data(), v.data()), e, l)), "dot bias");
        // (ii) exact l2 bias: M ((1/eta + lambda) I + 2 k k^T) = M_{t-1}/eta + 2 v k^T
        std::function<mp_t(const MM&)> l2 = [&](const MM& M) { return ref::linear_memory_loss(l2_bias(), M, k.data(), v.data()); };
        const MM s2 = quad_argmin([&](const MM& M) { return ref::retention_online_objective<mp_t>(l2, M, Mp, e, l); }, sh.dv, sh.dk);
        const mp_t c = 1 / e + l, kk = ref::dot(k.data(), k.data(), k.size());
        MM X = scaled(Mp, mp_t(1 / e));
        ref::add_outer(X, mp_t(2), v.data(), k.data());
        const MM closed = scaled(delta_right(X, k, v, mp_t(2 / (c + 2 * kk)), mp_t(0)), mp_t(1 / c));
        w.upd(matrel(s2, closed), "exact l2 bias");
        if (lam == 0) {
          MM q1(1, sh.dk), k1(1, sh.dk), v1(1, sh.dv);
          for (std::size_t j = 0; j < sh.dk; ++j) k1(0, j) = k[j];
          for (std::size_t j = 0; j < sh.dv; ++j) v1(0, j) = v[j];
          w.upd(matrel(s2, ref::longhorn(q1, k1, v1, MV{mp_t(2 * e)}, &Mp).state), "lambda = 0 vs Longhorn(beta = 2 eta)");
        }
        ev.r = w.r;
        ev.where = w.where;
        // controls: the linearised (proximal) step applied to the exact l2 objective; explicit GD
        const MM G2 = ref::linear_memory_grad(l2_bias(), Mp, k.data(), v.data());
        ev.controls.push_back({"linearised step for the exact l2 objective", matrel(s2, ref::retention_proximal_step(Mp, G2, e, l))});
        return ev;
      });
      ++n;
    }
  return ck.result(cfg, "(dk,dv) grid x " + std::to_string(reps) + ", eta log-uniform [1e-3, 10], lambda U[0,10] (0 every 4th); solves from objective values at 2x digits; " + miras::seed_note(cfg, tag));
}

// ---------------------------------------------------------------------------------------------
// A002-GLOBAL-OBJ
// ---------------------------------------------------------------------------------------------

ClaimResult a002_global_obj(const CheckConfig& cfg) {
  const std::string tag = "A002-GLOBAL-OBJ";
  ContractCheck ck("max relative residual: global_objective vs independent forms (l2: 2 x A001 master objective; dot: -<M, sum v k^T>) and its "
                   "central-difference gradient vs 2 x the A001 gradient",
                   cfg.digits);
  int n = 0;
  for (std::size_t T : seq_lengths(cfg))
    for (const Shape& sh : shapes(cfg)) {
      if (cfg.quick && n % 3) { ++n; continue; }
      const SeqInst x = seq_inst(cfg, tag, n++, T, sh);
      Gauss g(mix(x.seed, 3));
      const DM M0 = gauss_matrix(sh.dv, sh.dk, g);
      ck.add(x.desc, [&](unsigned) {
        const MM k = to_mp(x.K), v = to_mp(x.V), M = to_mp(M0);
        StepEval e;
        Worst w;
        for (std::size_t t = 1; t <= T; ++t) {
          const mp_t gl = ref::global_objective(l2_bias(), M, k, v, t);
          w.upd(screl(gl, mp_t(2 * ref::master_objective_linear(M, k, v, t))), "l2 value t=" + std::to_string(t));
          const mp_t gd = ref::global_objective(dot_bias(), M, k, v, t);
          w.upd(screl(gd, mp_t(-ref::frob_inner(M, ref::cross_moment(k, v, t)))), "dot value t=" + std::to_string(t));
          const PM G = fd_grad([&](const PM& P) { return ref::global_objective(l2_bias(), P[0], k, v, t); }, one(M));
          w.upd(prel(G, one(scaled(ref::master_objective_linear_grad(M, k, v, t), mp_t(2)))), "l2 gradient t=" + std::to_string(t));
          if (t == T) {
            e.controls.push_back({"A001 1/2-scaled objective", screl(gl, ref::master_objective_linear(M, k, v, t))});
            if (t > 1) e.controls.push_back({"prefix t-1 (off by one)", screl(gl, mp_t(2 * ref::master_objective_linear(M, k, v, t - 1)))});
          }
        }
        e.r = w.r;
        e.where = w.where;
        return e;
      });
    }
  return ck.result(cfg, "T in {" + linattn::join(seq_lengths(cfg)) + "} x (dk,dv) grid, every prefix t; " + miras::seed_note(cfg, tag));
}

// ---------------------------------------------------------------------------------------------
// A002-GATES
// ---------------------------------------------------------------------------------------------

ClaimResult a002_gates(const CheckConfig& cfg) {
  const std::string tag = "A002-GATES";
  linattn::ZeroCheck zc("max |difference| between the dense banded Gamma consumed by a window kernel and the generator evaluated in the loop "
                        "(G1 token-wise, G2 relative, G3 pairwise with identical Gamma), plus out-of-window mass and pruning by gamma = 0 "
                        "(must be exactly 0)",
                        cfg.digits);
  int n = 0, throws_ok = 0, throws_tried = 0;
  for (std::size_t T : seq_lengths(cfg))
    for (std::size_t c : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(8)}) {
      const Shape sh = shapes(cfg)[static_cast<std::size_t>(n) % shapes(cfg).size()];
      const SeqInst x = seq_inst(cfg, tag, n++, T, sh);
      Gauss g(mix(x.seed, 5));
      std::vector<double> gi(T);
      for (std::size_t i = 0; i < T; ++i) gi[i] = (n % 3 == 0 && i % 2 == 0) ? double(i % 4 == 0 ? 0 : 1) : g.uniform();  // {0,1} boundary gates
      const DM M0 = gauss_matrix(sh.dv, sh.dk, g);
      zc.add(x.desc + " c=" + std::to_string(c), [&](unsigned d) {
        MpDigitsScope sc(d);
        const MM k = to_mp(x.K), v = to_mp(x.V), M = to_mp(M0);
        const MV gv = mpv(gi);
        auto g1 = [&](std::size_t, std::size_t i) { return gv[i - 1]; };
        std::vector<MV> rel(T + 1);  // G2: c values produced at step t, r^(t)_d = g_{t-d}
        for (std::size_t t = 1; t <= T; ++t)
          for (std::size_t dd = 0; dd < c && dd < t; ++dd) rel[t].push_back(gv[t - dd - 1]);
        auto g2 = [&](std::size_t t, std::size_t i) { return rel[t][t - i]; };
        auto g3 = [&](std::size_t t, std::size_t i) { return t >= i ? gv[i - 1] : mp_t(0); };  // pairwise producer with the same values
        const MM G1 = ref::window_gate_tensor<mp_t>(T, c, g1), G2 = ref::window_gate_tensor<mp_t>(T, c, g2), G3 = ref::window_gate_tensor<mp_t>(T, c, g3);
        double worst = std::max(linattn::max_abs_diff(G1, G2), linattn::max_abs_diff(G1, G3));
        // out-of-window entries are exactly 0
        for (std::size_t t = 1; t <= T; ++t)
          for (std::size_t i = 1; i <= T; ++i)
            if (!ref::in_window(i, t, c)) worst = std::max(worst, to_d(abs(G1(t - 1, i - 1))));
        // consumer: window gradient sum_i Gamma_{t,i} grad l_i(M) from the dense tensor vs the generator in the loop
        for (std::size_t t = 1; t <= T; ++t) {
          MM a(sh.dv, sh.dk), b(sh.dv, sh.dk);
          for (std::size_t i = 1; i <= T; ++i) {
            const MM gi_ = ref::linear_memory_grad(l2_bias(), M, k.row(i - 1), v.row(i - 1));
            for (std::size_t z = 0; z < a.a.size(); ++z) a.a[z] += G1(t - 1, i - 1) * gi_.a[z];
            if (ref::in_window(i, t, c))
              for (std::size_t z = 0; z < b.a.size(); ++z) b.a[z] += g2(t, i) * gi_.a[z];
          }
          worst = std::max(worst, linattn::max_abs_diff(a, b));
          // pruning: a token with gamma = 0 can be replaced by anything without changing the consumer
          for (std::size_t i = 1; i <= t; ++i)
            if (ref::in_window(i, t, c) && gi[i - 1] == 0) {
              MM v2 = v;
              for (std::size_t j = 0; j < sh.dv; ++j) v2(i - 1, j) += 7;
              MM a2(sh.dv, sh.dk);
              for (std::size_t i2 = 1; i2 <= T; ++i2) {
                const MM gg = ref::linear_memory_grad(l2_bias(), M, k.row(i2 - 1), v2.row(i2 - 1));
                for (std::size_t z = 0; z < a2.a.size(); ++z) a2.a[z] += G1(t - 1, i2 - 1) * gg.a[z];
              }
              worst = std::max(worst, linattn::max_abs_diff(a, a2));
            }
        }
        return worst;
      });
      // bad input: a gate outside [0,1] must be rejected unless relaxed
      ++throws_tried;
      try {
        (void)ref::window_gate_tensor<double>(T, c, [](std::size_t, std::size_t) { return 1.5; });
      } catch (const std::invalid_argument&) {
        ++throws_ok;
      }
    }
  ClaimResult r = zc.result(cfg, "T in {" + linattn::join(seq_lengths(cfg)) + "} x c in {1,2,3,8}, boundary gates {0,1} every 3rd; " + miras::seed_note(cfg, tag));
  r.evidence.extra.emplace_back("gates outside [0,1] rejected", std::to_string(throws_ok) + " of " + std::to_string(throws_tried));
  if (throws_ok != throws_tried && r.verdict == Verdict::holds) {
    r.verdict = Verdict::violated;
    r.reason = "window_gate_tensor accepted a gate outside [0,1]";
  }
  return r;
}

}  // namespace

void register_a002_miras_framework(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A002-LINRNN-GENERAL", "General linear recurrent memory (Eq. 2): sequential = Blelloch scan = chunked scan", identity, true, a002_linrnn_general);
  add("A002-ASSOC-MEM-DEF", "Miras update-contract checker validated on losses with known gradients", identity, true, a002_assoc_mem_def);
  add("A002-MIRAS-B1-LINATT", "One GD step on the dot-product bias is the linear-attention write (Eqs. 45-46)", identity, false, a002_miras_b1_linatt);
  add("A002-MIRAS-B1-DELTANET", "One GD step on the l2 bias is the DeltaNet write (Eq. 47)", identity, false, a002_miras_b1_deltanet);
  add("A002-RETENTION-ONLINE", "Online objective with retention gate (Eq. 6): exact minimisers vs closed forms", identity, true, a002_retention_online);
  add("A002-RETENTION-PROXIMAL", "Proximal reading of the retention gate: decay form T with alpha = 1/(1 + eta lambda)", identity, true,
      a002_retention_proximal);
  add("A002-GLOBAL-OBJ", "Global objective evaluator (Eq. 7) vs independent forms", identity, true, a002_global_obj);
  add("A002-GATES", "Window gate tensor: generators G1/G2/G3, band structure, pruning by gamma = 0", identity, true, a002_gates);
}

}  // namespace recall
