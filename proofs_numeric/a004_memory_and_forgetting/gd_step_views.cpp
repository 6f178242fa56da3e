// Memory and Forgetting (seed A004), Part E/F: the sentence after the linear-attention derivation ("one
// step of gradient descent", three readings [interp]: unit step on the linear loss, reconstruction loss
// with the gradient at the zero state, reconstruction loss with the gradient at S_{t-1}) and the
// "notice" template of the second TTT slide (output f(x_t; S_t), online gradient step).
// Spec IDs: A004-GDVIEW-LINLOSS, A004-GDVIEW-RECON-AT0, A004-GDVIEW-RECON-ONLINE, A004-TTT-ONLINE-TEMPLATE.
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

ClaimResult check_gdview(const CheckConfig& cfg, ref::GdView view, const std::string& id) {
  const std::uint64_t cs = tag_seed(cfg.seed, id);
  const std::vector<std::size_t> ns = cfg.quick ? std::vector<std::size_t>{1, 2, 16} : std::vector<std::size_t>{1, 2, 16, 257};
  struct Gen { std::size_t n, dk, dv; Keys kind; std::uint64_t seed; std::string desc; };
  std::vector<Gen> gens;
  int inst = 0;
  for (int rep = 0; rep < (cfg.quick ? 1 : 3); ++rep) for (std::size_t n : ns)
    for (auto [dk, dv] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 1}, {2, 3}, {4, 2}})
      for (Keys kind : {Keys::gauss, Keys::sphere, Keys::ortho, Keys::repeated, Keys::zero}) {
        if (n > 16 && (kind != Keys::gauss || dk != 2)) continue;
        const std::uint64_t is = mix(cs, ++inst);
        gens.push_back({n, dk, dv, kind, is, dims(n, dk, dv) + " keys=" + keys_name(kind) + " instance-seed=" + std::to_string(is)});
      }
  auto metric = [&](const Gen& G, double eta, unsigned dg, std::string& where) {
    MpDigitsScope s(dg);
    Rng g(G.seed);
    const MM K = to_mp(key_rows(g, G.kind, G.n, G.dk)), V = to_mp(gauss(g, G.n, G.dv));
    const auto st = ref::gd_view_states(view, K, V, mp_t(eta));
    MM SLA(G.dv, G.dk);
    Worst w;
    for (std::size_t t = 0; t < G.n; ++t) {
      ref::add_outer(SLA, V.row(t), K.row(t));
      if (t + 1 == G.n) w.upd(matrel(ref::linear_attention(K, K, V).state, SLA), "LA reference check");
      w.upd(matrel(st[t], SLA), "S_" + std::to_string(t + 1));
    }
    where = w.where;
    return w.r;
  };
  Checker ck("max_t ||S_t^reading - S_t^LA||_F / max(1, ||S_t^LA||_F) over whole sequences", cfg.digits);
  for (const Gen& G : gens) {
    if (ck.stopped()) break;
    ck.add(G.desc, [&](unsigned dg, std::string& where) { return metric(G, 0.5, dg, where); });
  }
  const std::string loss = view == ref::GdView::linloss ? "l_lin(S) = -<S k_t, v_t>, unit step at S_{t-1}"
                           : view == ref::GdView::recon_at0 ? "l_rec(S) = ||S k_t - v_t||^2, eta = 1/2, gradient at S = 0"
                                                            : "l_rec(S) = ||S k_t - v_t||^2, eta = 1/2, gradient at S_{t-1}";
  ClaimResult r = ck.result(cfg, "n in {1,2,16" + std::string(cfg.quick ? "" : ",257") +
                                     "}, (d_k,d_v) in {(1,1),(2,3),(4,2)}, G1/G2 keys (Gaussian, unit, orthonormal, repeated, zero)");
  r.evidence.extra.emplace_back("loss used", loss + (view == ref::GdView::linloss
                                                         ? " (a linear loss: not a reconstruction loss; unbounded below in S)"
                                                         : " (a reconstruction loss)"));
  if (view == ref::GdView::recon_online) {
    std::string sweep;
    bool any = false;
    for (double eta : {0.1, 0.25, 0.75, 1.0}) {
      double worst = 0;
      bool all = true;
      for (const Gen& G : gens) {
        std::string w;
        const double m = metric(G, eta, cfg.digits, w);
        worst = std::max(worst, m);
        if (!(m <= identity_threshold(cfg.digits))) all = false;
      }
      any = any || all;
      sweep += "eta=" + fmt(eta) + ": max metric " + fmt(worst) + "; ";
    }
    r.evidence.extra.emplace_back("eta sweep", sweep + (any ? "some eta agrees on all instances" : "no tested eta agrees on all instances"));
  }
  return r;
}

}  // namespace

ClaimResult a004_gdview_linloss(const CheckConfig& cfg) { return check_gdview(cfg, ref::GdView::linloss, "A004-GDVIEW-LINLOSS"); }
ClaimResult a004_gdview_recon_at0(const CheckConfig& cfg) { return check_gdview(cfg, ref::GdView::recon_at0, "A004-GDVIEW-RECON-AT0"); }
ClaimResult a004_gdview_recon_online(const CheckConfig& cfg) {
  return check_gdview(cfg, ref::GdView::recon_online, "A004-GDVIEW-RECON-ONLINE");
}

// A004-TTT-ONLINE-TEMPLATE: the generic online-GD layer: with l_rec it equals the TTT online rule
// (ttt_linear, A004-TTT-DEFS); with l_lin and eta = 1 it equals linear attention; R-x equals R-q with theta_Q = I.
ClaimResult a004_ttt_online_template(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A004-TTT-ONLINE-TEMPLATE");
  Checker ck("max relative residual: online_gd_layer(l_rec) vs ttt_linear online (outputs, final W); online_gd_layer(l_lin, eta=1) vs "
             "linear_attention; R-x read-out vs R-q with theta_Q = I",
             cfg.digits);
  int inst = 0;
  const std::vector<std::size_t> Ts = cfg.quick ? std::vector<std::size_t>{1, 2, 7} : std::vector<std::size_t>{1, 2, 7, 33, 128};
  for (std::size_t T : Ts)
    for (auto [din, dk, dv] : std::vector<std::array<std::size_t, 3>>{{1, 1, 1}, {3, 3, 2}, {4, 2, 3}})
      for (double eta : {0.5, 0.1, 1.0}) {
        if (ck.stopped()) break;
        const std::uint64_t is = mix(cs, ++inst);
        Rng g(is);
        const DM X = gauss(g, T, din), tK = gauss(g, dk, din, 1.0 / std::sqrt(double(din))), tV = gauss(g, dv, din, 1.0 / std::sqrt(double(din))),
                 tQ = gauss(g, dk, din, 1.0 / std::sqrt(double(din))), W0 = gauss(g, dv, dk);
        const std::string desc = "T=" + std::to_string(T) + " d_in=" + std::to_string(din) + " d_k=" + std::to_string(dk) +
                                 " d_v=" + std::to_string(dv) + " eta=" + fmt(eta) + " instance-seed=" + std::to_string(is);
        ck.add(desc, [&](unsigned dg, std::string& where) {
          MpDigitsScope s(dg);
          const MM Xm = to_mp(X), K = to_mp(tK), Vw = to_mp(tV), Qw = to_mp(tQ), S0 = to_mp(W0);
          Worst w;
          const auto tl = ref::online_gd_layer(Xm, K, Vw, &Qw, ref::OnlineLoss::rec, mp_t(eta), &S0);
          const auto tt = ref::ttt_linear(ref::project(Xm, Qw), ref::project(Xm, K), ref::project(Xm, Vw), mp_t(eta), S0, ref::TttRule::online);
          w.rows(tl.Z, tt.Z, "l_rec vs TTT online outputs");
          w.upd(matrel(tl.W, tt.W), "l_rec vs TTT online final W");
          const auto ll = ref::online_gd_layer(Xm, K, Vw, &Qw, ref::OnlineLoss::lin, mp_t(1));
          const auto la = ref::linear_attention(ref::project(Xm, Qw), ref::project(Xm, K), ref::project(Xm, Vw));
          w.rows(ll.Z, la.O, "l_lin (eta=1) vs linear attention");
          if (dk == din) {
            MM I(din, din);
            for (std::size_t i = 0; i < din; ++i) I(i, i) = 1;
            const auto rx = ref::online_gd_layer(Xm, K, Vw, static_cast<const MM*>(nullptr), ref::OnlineLoss::rec, mp_t(eta), &S0);
            const auto rq = ref::online_gd_layer(Xm, K, Vw, &I, ref::OnlineLoss::rec, mp_t(eta), &S0);
            w.rows(rx.Z, rq.Z, "R-x vs R-q(theta_Q = I)");
          }
          where = w.where;
          return w.r;
        });
      }
  ClaimResult r = ck.result(cfg, "T in {1,2,7" + std::string(cfg.quick ? "" : ",33,128") +
                                     "}, (d_in,d_k,d_v) in {(1,1,1),(3,3,2),(4,2,3)}, eta in {0.5,0.1,1}, W0 Gaussian");
  bool threw = false;
  try {
    MpDigitsScope s(cfg.digits);
    (void)ref::online_gd_layer(MM(2, 3), MM(2, 3), MM(1, 3), static_cast<const MM*>(nullptr), ref::OnlineLoss::rec, mp_t(1));
  } catch (const std::invalid_argument&) { threw = true; }
  r.evidence.extra.emplace_back("R-x with d_k != d_in", threw ? "throws std::invalid_argument" : "did NOT throw");
  if (!threw) { r.verdict = Verdict::violated; r.reason = "R-x read-out accepted d_k != d_in"; }
  return r;
}

void register_a004_gd_step_views(Ledger& l) {
  const auto add = claim_support::claim_adder(l);
  using namespace check_class;
  add("A004-GDVIEW-LINLOSS", "One GD step: unit step on the linear loss at S_{t-1}", identity, false,
      a004_gdview_linloss);
  add("A004-GDVIEW-RECON-AT0", "One GD step: reconstruction loss, gradient at the zero state, eta = 1/2", identity, false,
      a004_gdview_recon_at0);
  add("A004-GDVIEW-RECON-ONLINE", "One GD step: reconstruction loss, gradient at S_{t-1}, eta = 1/2", identity, false,
      a004_gdview_recon_online);
  add("A004-TTT-ONLINE-TEMPLATE", "The notice template: output f(x_t; S_t), online gradient step", identity, true, a004_ttt_online_template);
}

}  // namespace recall
