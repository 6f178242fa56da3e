// Paper A001 (test-time regression), §4 Vignette 3, TTT remark after Eq. (29): TTT-Linear / TTT-MLP hand
// gradients, the linear reduction to (29) and the equivalence-table row EQ13.
// Spec IDs: A001-TTT, A001-EQ13-TTT.
#include "recall/proofs/claims.hpp"
#include "recall/reference/delta_rule.hpp"
#include "recall/reference/regression_rules.hpp"
#include "recall/reference/ttt.hpp"
#include "claim_support.hpp"
#include "online_learner_claims.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::learners;

// =============================================================================================
// A001-TTT / A001-EQ13-TTT
// =============================================================================================
struct TttData {
  std::size_t d, h, T;
  Matrix<double> Q, K, V, W1, W2;
  std::vector<double> beta;
};
TttData make_ttt(std::size_t d, std::size_t h, std::size_t T, bool mlp, u64 sd) {
  Gauss g(sd);
  TttData x{d, h, T, gauss_matrix(T, d, g), gauss_matrix(T, d, g), gauss_matrix(T, d, g),
            mlp ? gauss_matrix(h, d, g, 1.0 / std::sqrt(static_cast<double>(d))) : gauss_matrix(d, d, g, 1.0 / std::sqrt(static_cast<double>(d))),
            mlp ? gauss_matrix(d, h, g, 1.0 / std::sqrt(static_cast<double>(h))) : Matrix<double>(), std::vector<double>(T)};
  for (double& b : x.beta) b = 0.5 * g.uniform();
  return x;
}
// Central differences (L(W + h e_a) - L(W - h e_a)) / 2h of the half TTT loss L at the pair (k, v) in
// every entry of th.W1 (which == 0) or th.W2, written to G (of W's shape).
void ttt_central_diff(ref::TttParams<mp_t>& th, int which, const mp_t* k, const mp_t* v, std::size_t d, const ref::TttConfig& c,
                      const mp_t& h, Mp& G) {
  Mp& W = which == 0 ? th.W1 : th.W2;
  for (std::size_t a = 0; a < W.a.size(); ++a) {
    const mp_t keep = W.a[a];
    W.a[a] = keep + h;
    const mp_t fp = ref::ttt_loss_half(th, k, v, d, c);
    W.a[a] = keep - h;
    const mp_t fm = ref::ttt_loss_half(th, k, v, d, c);
    W.a[a] = keep;
    G.a[a] = (fp - fm) / (mp_t(2) * h);
  }
}
// online SGD step theta <- theta - beta g
void ttt_step(ref::TttParams<mp_t>& th, const ref::TttParams<mp_t>& g, const mp_t& b) {
  for (std::size_t a = 0; a < th.W1.a.size(); ++a) th.W1.a[a] -= b * g.W1.a[a];
  for (std::size_t a = 0; a < th.W2.a.size(); ++a) th.W2.a[a] -= b * g.W2.a[a];
}
// hand gradient vs central differences (at 3 d digits with h = 10^-d: error O(10^-2d)); largest relative residual
// over the parameter states visited by the online SGD run.
double ttt_grad_residual(const TttData& x, const ref::TttConfig& c, unsigned d) {
  MpDigitsScope sc(3 * d);
  ref::TttParams<mp_t> th{ref::cast<mp_t>(x.W1), ref::cast<mp_t>(x.W2)};
  const Mp K = ref::cast<mp_t>(x.K), V = ref::cast<mp_t>(x.V);
  const mp_t h = pow10_mp(-static_cast<int>(d));
  double w = 0;
  for (std::size_t t = 0; t < x.T; ++t) {
    const auto gh = ref::ttt_grad_hand(th, K.row(t), V.row(t), x.d, c);
    for (int which = 0; which < (c.mlp ? 2 : 1); ++which) {
      const Mp& G = which == 0 ? gh.W1 : gh.W2;
      const Mp& W = which == 0 ? th.W1 : th.W2;
      Mp F(W.rows, W.cols);
      ttt_central_diff(th, which, K.row(t), V.row(t), x.d, c, h, F);
      w = std::max(w, rel_res(G, F));
    }
    ttt_step(th, gh, mp_t(x.beta[t]));
  }
  return w;
}
// Run a whole TTT sequence with a gradient oracle (hand or central difference); outputs y_t = f_theta_t(q_t).
Mp ttt_run(const TttData& x, const ref::TttConfig& c, bool use_fd, unsigned d) {
  const Mp Q = ref::cast<mp_t>(x.Q), K = ref::cast<mp_t>(x.K), V = ref::cast<mp_t>(x.V);
  ref::TttParams<mp_t> th{ref::cast<mp_t>(x.W1), ref::cast<mp_t>(x.W2)};
  const mp_t h = pow10_mp(-static_cast<int>(d) / 3);
  Mp O(x.T, x.d);
  for (std::size_t t = 0; t < x.T; ++t) {
    ref::TttParams<mp_t> g = ref::ttt_grad_hand(th, K.row(t), V.row(t), x.d, c);
    if (use_fd)
      for (int which = 0; which < (c.mlp ? 2 : 1); ++which) ttt_central_diff(th, which, K.row(t), V.row(t), x.d, c, h, which == 0 ? g.W1 : g.W2);
    ttt_step(th, g, mp_t(x.beta[t]));
    const auto fo = ref::ttt_forward(th, Q.row(t), x.d, c);
    for (std::size_t j = 0; j < x.d; ++j) O(t, j) = fo.f[j];
  }
  return O;
}
// with residual and LN removed (f(k) = W k): the TTT update equals (29) (ref::delta_rule) and ref::ttt_linear (online, eta = beta/2, loss without 1/2)
double ttt_reduction_residual(const TttData& x, unsigned d) {
  MpDigitsScope sc(d);
  const ref::TttConfig c{false, false, false, 0.0};
  const Mp Q = ref::cast<mp_t>(x.Q), K = ref::cast<mp_t>(x.K), V = ref::cast<mp_t>(x.V), W0 = ref::cast<mp_t>(x.W1);
  const mp_t b0(x.beta[0]);
  const auto dn = ref::delta_rule(Q, K, V, Vp(x.T, b0), &W0);
  const auto tt = ref::ttt_linear(Q, K, V, mp_t(b0 / mp_t(2)), W0, ref::TttRule::online);
  // ttt_run uses per-token beta; compare with constant beta by rerunning with beta_t = beta_1
  TttData xc = x;
  for (double& b : xc.beta) b = x.beta[0];
  const Mp Oc = ttt_run(xc, c, false, d);
  return std::max(rel_res(Oc, dn.O), rel_res(tt.Z, dn.O));
}
ClaimResult ttt_grad_part(const CheckConfig& cfg) {
  IdentityCheck c("max relative residual hand gradient vs central differences (3d digits, h = 10^-d), along the SGD path", cfg.digits);
  int n = 0;
  for (bool mlp : {false, true})
    for (bool ln : {true, false})
      for (std::size_t d : {2, 3, 4}) {
        const std::size_t h = d + 1, T = cfg.quick ? 3 : 8;
        const u64 sd = sub_seed(cfg.seed, 250, ++n);
        const TttData x = make_ttt(d, h, T, mlp, sd);
        const ref::TttConfig tc{mlp, true, ln, 1e-6};
        c.add(std::string(mlp ? "TTT-MLP" : "TTT-Linear") + (ln ? " with LN" : " without LN") + " D=" + std::to_string(d) + (mlp ? " hidden=" + std::to_string(h) : "") +
                  " T=" + std::to_string(T) + " seed " + std::to_string(sd),
              [x, tc](unsigned dg) { return ttt_grad_residual(x, tc, dg); });
      }
  return c.result(cfg, "TTT-Linear / TTT-MLP (GELU), with and without LN (eps = 1e-6), D in {2,3,4}");
}
ClaimResult ttt_reduction_part(const CheckConfig& cfg) {
  IdentityCheck c("max relative residual: TTT with f(k) = W k vs (29) (ref delta_rule) and ref ttt_linear (online, eta = beta/2)", cfg.digits);
  int n = 0;
  for (std::size_t d : {1, 2, 3, 4}) {
    const u64 sd = sub_seed(cfg.seed, 251, ++n);
    const TttData x = make_ttt(d, 0, 6, false, sd);
    c.add("D=" + std::to_string(d) + " T=6 seed " + std::to_string(sd), [x](unsigned dg) { return ttt_reduction_residual(x, dg); });
  }
  return c.result(cfg, "D in {1,2,3,4}, T = 6, constant beta");
}
ClaimResult a001_ttt(const CheckConfig& cfg) {
  std::vector<Part> parts = {{"hand gradients = finite differences", ttt_grad_part(cfg)}, {"f(k) = W k reduces to (29)", ttt_reduction_part(cfg)}};
  return combine(cfg, "max relative residual: hand gradients vs MP central differences; linear reduction vs (29)", parts,
                 "hand-written TTT-Linear / TTT-MLP gradients match MP central differences and the linear memory without LN/residual is the delta rule (29)");
}
ClaimResult eq13_sequence_part(const CheckConfig& cfg) {
  IdentityCheck c("max relative residual of outputs y_t: SGD with hand gradient vs SGD with MP central-difference gradient (whole sequences)", cfg.digits);
  int n = 0;
  for (bool mlp : {false, true})
    for (std::size_t d : {2, 3}) {
      const u64 sd = sub_seed(cfg.seed, 260, ++n);
      const TttData x = make_ttt(d, d + 1, cfg.quick ? 4 : 10, mlp, sd);
      const ref::TttConfig tc{mlp, true, true, 1e-6};
      c.add(std::string(mlp ? "TTT-MLP" : "TTT-Linear") + " with LN D=" + std::to_string(d) + " seed " + std::to_string(sd), [x, tc](unsigned dg) {
        // the FD oracle runs at 3 d digits (h = 10^-d, error O(10^-2d)); the hand-gradient run at the same digits
        MpDigitsScope sc(3 * dg);
        return rel_res(ttt_run(x, tc, false, 3 * dg), ttt_run(x, tc, true, 3 * dg));
      });
    }
  return c.result(cfg, "TTT-Linear / TTT-MLP with LN, D in {2,3}");
}

// =============================================================================================
// equivalence-table row EQ13: the row's value is its worst identity residual (statistic names it);
// every component's verdict, residual and witness is listed in Evidence.extra.
// =============================================================================================
ClaimResult a001_eq13_ttt(const CheckConfig& cfg) {
  std::vector<Part> parts = {{"A001-TTT", a001_ttt(cfg)}, {"row-specific: TTT update = one SGD step on the per-token loss (whole sequences)", eq13_sequence_part(cfg)}};
  return combine(cfg, "EQ13 residual: max relative residual of the TTT update vs one SGD step on the per-token loss (MP central differences)", parts,
                 "the TTT layer (per-token online version) is SGD on the per-token loss of a nonlinear memory; the linear case is (29)");
}

}  // namespace

void register_a001_ttt_layers(Ledger& l) {
  const auto add = claim_support::claim_adder(l);
  using namespace check_class;
  add("A001-TTT", "TTT layers: hand gradients and the linear reduction to (29) [external]", identity, false, a001_ttt);
  add("A001-EQ13-TTT", "Row: TTT layers", identity, false, a001_eq13_ttt);
}

}  // namespace recall
