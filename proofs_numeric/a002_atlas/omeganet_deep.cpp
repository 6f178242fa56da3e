// Paper A002 (Atlas), §3.2-3.3 and App. D.3 with a deep (MLP) memory: the tensorised chunk form of the Omega rule
// (A002-OMEGA-CHUNK-MLP), the OmegaNet update (Eq. 10) and its App. D.3 formulation (Eq. 56), and the DeepTransformer /
// Dot reading with a deep memory on truncated phi* features (A002-DT-DEEP-TRUNC); references in mlp_memory.hpp.
// Update contracts: the step equals alpha W_{t-1} - eta_t grad F_t(W_{t-1}) with grad F_t by P2 central differences of
// the window objective (miras.hpp central_difference_gradient), negative control: the gradient at the decayed state
// (placement G) must be detected (on the instances with some alpha_t < 1).
// Spec IDs: A002-OMEGA-CHUNK-MLP, A002-OMEGANET-UPDATE, A002-OMEGANET-D3, A002-DT-DEEP-TRUNC.
#include "recall/proofs/claims_a002.hpp"
#include "recall/proofs/ledger.hpp"
#include "recall/reference/deep_transformer.hpp"
#include "recall/reference/mlp_memory.hpp"
#include "a002_mlp_claims.hpp"
#include "claim_support.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::mlpmem;

// A002-OMEGA-CHUNK-MLP: tensorised chunk form vs the frozen-gradient token loop (identity rule, P1 re-verified at
// doubled digits), activations tanh, GELU erf / tanh, ReLU away from kinks, l2 and dot biases; sizes (D, d_h) from
// {3, 8, 64} x {5, 32, 256}, b in {1..16}, c in {1..8} incl. c > b and L not a multiple of b. Negative control: the
// token-sequential rule (b = 1) differs from the chunk form for b >= 2 (a nonlinear memory makes frozen gradients matter).
ClaimResult a002_omega_chunk_mlp(const CheckConfig& cfg) {
  const std::string tag = "A002-OMEGA-CHUNK-MLP";
  std::vector<Combo> combos{{MlpResidual::identity, MlpAct::gelu_erf, false, {}},
                            {MlpResidual::identity, MlpAct::gelu_tanh, false, {}},
                            {MlpResidual::identity, MlpAct::tanh, false, {}},
                            {MlpResidual::identity, MlpAct::relu, false, {}},
                            {MlpResidual::identity, MlpAct::gelu_erf, false, ref::Bias{ref::BiasKind::dot}}};
  std::vector<ChunkSize> grid{{3, 5, 7, 3, 2}, {3, 5, 5, 1, 1}, {8, 32, 9, 4, 3}};
  if (!cfg.quick) {
    grid.push_back({3, 5, 16, 2, 8});
    grid.push_back({8, 32, 13, 16, 2});
    grid.push_back({3, 5, 7, 7, 7});
    grid.push_back({64, 256, 5, 2, 3});
  }
  const ClaimResult a = chunk_check(cfg, tag, combos, grid);
  NegControl nc{"row-relative output deviation of the chunk form (b >= 2) from the token-sequential rule omeganet_mlp", identity_threshold(cfg.digits)};
  const std::uint64_t base = tag_seed(cfg.seed, tag + "/control");
  for (int n = 0; n < (cfg.quick ? 3 : 8); ++n) {
    const std::uint64_t s = mix(base, static_cast<std::uint64_t>(n));
    Gauss g(s);
    const std::size_t D = 3, dh = 5, L = 6, b = 2 + static_cast<std::size_t>(n % 3);
    const SeqD sq = random_seq(mix(s, 1), L, D, D, 2);
    const MlpMem<double> m = random_mem(g, D, dh, D, MlpResidual::identity, MlpAct::gelu_erf, false);
    MpDigitsScope sc(cfg.digits);
    const auto in = to_inputs<mp_t>(sq);
    const auto mm = cast_mem<mp_t>(m);
    nc.add("D=3 d_h=5 L=6 c=2 b=" + std::to_string(b) + " gelu_erf inst_seed=" + hex(s),
           rowrel(ref::omega_chunk_mlp(in, mm, b).Y, ref::omeganet_mlp(in, mm).Y));
  }
  return comb({{"chunk form vs frozen-gradient loop", a}, {"negative control (token-sequential rule)", nc.result(cfg, "D=3, d_h=5, L=6, c=2, b in {2,3,4}")}});
}

// The update contract of a deep-memory recurrence on OmegaInputs: every step t vs alpha_t W_{t-1} - eta_t grad F_t(W_{t-1}),
// F_t = sum_{i in W_t} Gamma(t, i) l(M(phi_i); v_i) differentiated by central differences at fdd digits; control: the
// gradient taken at alpha_t W_{t-1} (placement G) instead.
void contract(const ref::OmegaInputs<mp_t>& in, const MlpMem<mp_t>& m0, const ref::Bias& bias, const ref::MlpOmegaResult<mp_t>& run, unsigned fdd,
              double& dev, double& ctl) {
  dev = 0;
  ctl = INFINITY;
  const mp_t h = fd_step(fdd);
  for (std::size_t t = 0; t < in.PhiK.rows; ++t) {
    const MlpMem<mp_t>& prev = run.states[t];
    const std::size_t lo = ref::omega_window_begin(t, in.c);
    const std::function<mp_t(const ref::Params<mp_t>&)> F = [&](const ref::Params<mp_t>& p) {
      const MlpMem<mp_t> m = ref::mlp_with_params(m0, p);
      mp_t acc(0);
      for (std::size_t i = lo; i <= t; ++i)
        acc += (in.Gamma.empty() ? mp_t(1) : in.Gamma(t, i)) * ref::mlp_memory_loss(bias, m, in.PhiK.row(i), in.V.row(i));
      return acc;
    };
    const mp_t a = in.log_alpha.empty() ? mp_t(1) : exp(in.log_alpha[t]);
    ref::Params<mp_t> th = ref::mlp_params(prev);
    const ref::Params<mp_t> G = ref::central_difference_gradient(F, th, h);
    ref::Params<mp_t> dec = th;
    for (auto& W : dec)
      for (mp_t& x : W.a) x *= a;
    const ref::Params<mp_t> GG = ref::central_difference_gradient(F, dec, h);
    const ref::Params<mp_t> want = ref::decayed_gd_step(th, G, a, in.eta[t]);
    const ref::Params<mp_t> wrong = ref::decayed_gd_step(th, GG, a, in.eta[t]);
    const ref::Params<mp_t> got = ref::mlp_params(run.states[t + 1]);
    dev = std::max(dev, params_rel(got, want));
    if (a < mp_t(1)) ctl = std::min(ctl, params_rel(got, wrong));
  }
}

ClaimResult contract_check(const CheckConfig& cfg, const std::string& tag, const std::vector<Combo>& combos, bool d3) {
  const unsigned fdd = fd_digits(cfg.digits);
  TolTally tt{"max over steps and matrices of ||W_t - (alpha_t W_{t-1} - eta_t grad_FD F_t(W_{t-1}))||_F / ||.||_F", fd_threshold(fdd)};
  NegControl nc{"same with the gradient at alpha_t W_{t-1} (placement G)", fd_threshold(fdd)};
  const std::uint64_t base = tag_seed(cfg.seed, tag);
  int n = 0;
  for (std::size_t L : cfg.quick ? std::vector<std::size_t>{3} : std::vector<std::size_t>{3, 5})
    for (const Combo& c : combos) {
      const std::uint64_t s = mix(base, static_cast<std::uint64_t>(n++));
      Gauss g(s);
      const std::size_t D = 3, dh = 4, dv = dv_for(c.res, D), cw = 2;
      const bool nk = c.act == MlpAct::relu;
      const SeqD sq = random_seq(mix(s, 1), L, D, dv, cw, n, nk);
      double minpre = 0;
      const MlpMem<double> m = draw_mem(g, D, dh, dv, c, sq.PhiK, minpre);
      const std::string desc = combo_desc(c) + " D=3 d_h=4 d_v=" + std::to_string(dv) + " L=" + std::to_string(L) + " c=2 " + seq_desc(static_cast<std::size_t>(n), nk) + " inst_seed=" + hex(s);
      MpDigitsScope sc(fdd);
      auto in = to_inputs<mp_t>(sq);
      const auto mm = cast_mem<mp_t>(m);
      ref::MlpOmegaResult<mp_t> run;
      if (d3) {  // E(t, i) = eta_t gamma_i^(t)
        ref::Matrix<mp_t> E(L, L);
        for (std::size_t t = 0; t < L; ++t)
          for (std::size_t i = ref::omega_window_begin(t, cw); i <= t; ++i) E(t, i) = in.eta[t] * in.Gamma(t, i);
        run = ref::omeganet_d3(in, E, mm, c.bias, true);
      } else {
        run = ref::omeganet_mlp(in, mm, c.bias, true);
      }
      double dev = 0, ctl = 0;
      contract(in, mm, c.bias, run, fdd, dev, ctl);
      tt.add(desc, dev);
      // the control is evaluated where it is a different map: random gates (alpha in (0.5, 1), gamma in (0, 1)); with
      // gates in {0, 1} or zero alphas the two placements can coincide on a whole instance
      if (std::isfinite(ctl) && n % 3 == 0) nc.add(desc, ctl);
    }
  const std::string sizes = "D=3, d_h=4, c=2, L in {3" + std::string(cfg.quick ? "" : ", 5") + "}, " + std::to_string(combos.size()) +
                            " configurations; FD at " + std::to_string(fdd) + " digits; seed tag " + tag;
  return comb({{"update contract", tt.result(cfg, sizes, fdd, "every step is one decayed GD step (placement T) on the window objective")},
                  {"negative control (placement G)", nc.result(cfg, sizes)}});
}

std::vector<Combo> contract_combos(bool quick) {
  std::vector<Combo> c{{MlpResidual::identity, MlpAct::gelu_erf, false, {}},
                       {MlpResidual::none, MlpAct::tanh, false, {}},
                       {MlpResidual::identity, MlpAct::gelu_erf, true, ref::Bias{ref::BiasKind::dot}}};
  if (!quick) {
    c.push_back({MlpResidual::proj, MlpAct::gelu_tanh, false, {}});
    c.push_back({MlpResidual::identity, MlpAct::relu, false, {}});
  }
  return c;
}

// A002-OMEGANET-UPDATE: update contract of omeganet_mlp (residual / no-residual / projection readings, gated, l2 and dot).
ClaimResult a002_omeganet_update(const CheckConfig& cfg) { return contract_check(cfg, "A002-OMEGANET-UPDATE", contract_combos(cfg.quick), false); }

// A002-OMEGANET-D3: omeganet_d3 with E(t, i) = eta_t gamma_i^(t) equals omeganet_mlp with (eta, Gamma) bitwise in double
// (same kernel), plus its own update contract; negative control: E(t, i) = eta_i gamma_i^(t) (rate of token i) differs.
ClaimResult a002_omeganet_d3(const CheckConfig& cfg) {
  const std::string tag = "A002-OMEGANET-D3";
  TolTally bw{"max |omeganet_d3(E = eta_t Gamma) - omeganet_mlp(eta, Gamma)| over outputs and weights (double; must be exactly 0)", 0.0};
  NegControl nc{"row-relative output deviation with E(t, i) = eta_i Gamma(t, i)", 1e-12};
  const std::uint64_t base = tag_seed(cfg.seed, tag + "/bitwise");
  for (int n = 0; n < (cfg.quick ? 8 : 40); ++n) {
    const std::uint64_t s = mix(base, static_cast<std::uint64_t>(n));
    Gauss g(s);
    const std::size_t D = 3 + static_cast<std::size_t>(n % 6), dh = 2 * D, L = 4 + static_cast<std::size_t>(n % 9), cw = 1 + static_cast<std::size_t>(n % 4);
    const SeqD sq = random_seq(mix(s, 1), L, D, D, cw, n);
    const MlpMem<double> m = random_mem(g, D, dh, D, MlpResidual::identity, MlpAct::gelu_erf, n % 3 == 2);
    const auto in = to_inputs<double>(sq);
    DM E(L, L), Ew(L, L);
    for (std::size_t t = 0; t < L; ++t)
      for (std::size_t i = ref::omega_window_begin(t, cw); i <= t; ++i) {
        E(t, i) = in.eta[t] * in.Gamma(t, i);
        Ew(t, i) = in.eta[i] * in.Gamma(t, i);
      }
    const auto A = ref::omeganet_d3(in, E, m), B = ref::omeganet_mlp(in, m);
    double d = 0;
    for (std::size_t i = 0; i < A.Y.a.size(); ++i) d = std::max(d, std::fabs(A.Y.a[i] - B.Y.a[i]));
    const auto pa = ref::mlp_params(A.state), pb = ref::mlp_params(B.state);
    for (std::size_t k = 0; k < pa.size(); ++k)
      for (std::size_t i = 0; i < pa[k].a.size(); ++i) d = std::max(d, std::fabs(pa[k].a[i] - pb[k].a[i]));
    const std::string desc = "D=" + std::to_string(D) + " d_h=" + std::to_string(dh) + " L=" + std::to_string(L) + " c=" + std::to_string(cw) +
                             (n % 3 == 2 ? " gated" : "") + " gelu_erf " + seq_desc(static_cast<std::size_t>(n), false) + " inst_seed=" + hex(s);
    bw.add(desc, d);
    // control on random-gate instances (n % 3 == 0) with a window: gates in {0, 1} can make eta_i Gamma = eta_t Gamma
    if (cw >= 2 && n % 3 == 0) nc.add(desc, rowrel(to_mp(ref::omeganet_d3(in, Ew, m).Y), to_mp(B.Y)));
  }
  return comb({{"D.3 == Eq. 10 (bitwise, double)", bw.result(cfg, "D in 3..8, L in 4..12, c in 1..4", 0, "identical numbers")},
                  {"negative control (rate of token i)", nc.result(cfg, "random-gate instances with c >= 2")},
                  {"update contract of omeganet_d3", contract_check(cfg, tag, contract_combos(true), true)}});
}

// A002-DT-DEEP-TRUNC: update contract of dt_deep_trunc (DeepTransformer: dot bias; Dot: l2 bias; no-residual and projection
// readings, since D = C(d_k + P, P) != d_v), and a report of the P -> large convergence of the outputs: the memory on
// phi*_P is evaluated as the memory on phi*_Pmax with the monomials of degree > P zeroed (same weights for every P).
ClaimResult a002_dt_deep_trunc(const CheckConfig& cfg) {
  const std::string tag = "A002-DT-DEEP-TRUNC";
  const unsigned fdd = fd_digits(cfg.digits);
  TolTally tt{"max over steps and matrices of ||W_t - (alpha_t W_{t-1} - eta_t grad_FD l(W_{t-1}; phi*_P(k_t), v_t))||_F / ||.||_F", fd_threshold(fdd)};
  const std::uint64_t base = tag_seed(cfg.seed, tag);
  int n = 0;
  for (int P : cfg.quick ? std::vector<int>{1, 2} : std::vector<int>{1, 2, 3})
    for (int kind = 0; kind < 2; ++kind) {
      const std::uint64_t s = mix(base, static_cast<std::uint64_t>(n++));
      Gauss g(s);
      const std::size_t dk = 2, L = 3, dv = 2, D = ref::exp_monomial_dim(dk, P), dh = 4;
      DM Q = gauss_matrix(L, dk, g), K = gauss_matrix(L, dk, g), V = gauss_matrix(L, dv, g);
      for (std::size_t t = 0; t < L; ++t) {
        normalize_row(Q, t);
        normalize_row(K, t);
      }
      std::vector<double> la, eta;
      for (std::size_t t = 0; t < L; ++t) {
        la.push_back(std::log(0.5 + 0.5 * g.uniform()));
        eta.push_back(0.01 + 0.49 * g.uniform());
      }
      const ref::Bias bias = kind == 0 ? ref::Bias{ref::BiasKind::dot} : ref::Bias{};
      const MlpMem<double> m = random_mem(g, D, dh, dv, kind == 0 ? MlpResidual::none : MlpResidual::proj, MlpAct::gelu_erf, false);
      MpDigitsScope sc(fdd);
      const auto mm = cast_mem<mp_t>(m);
      const auto run = ref::dt_deep_trunc(to_mp(Q), to_mp(K), to_mp(V), P, mm, to_mp(la), to_mp(eta), bias, true);
      ref::OmegaInputs<mp_t> in;
      in.PhiQ = ref::Matrix<mp_t>(L, D);
      in.PhiK = ref::Matrix<mp_t>(L, D);
      const MM Km = to_mp(K);
      for (std::size_t t = 0; t < L; ++t) {
        const MV f = ref::exp_feature_monomial(Km.row(t), dk, P);
        for (std::size_t j = 0; j < D; ++j) in.PhiK(t, j) = f[j];
      }
      in.PhiQ = in.PhiK;
      in.V = to_mp(V);
      in.log_alpha = to_mp(la);
      in.eta = to_mp(eta);
      in.c = 1;
      double dev = 0, ctl = 0;
      contract(in, mm, bias, run, fdd, dev, ctl);
      tt.add(std::string(kind == 0 ? "DeepTransformer (dot bias, no residual)" : "Dot (l2 bias, proj residual)") + " d_k=2 P=" + std::to_string(P) +
                 " D=" + std::to_string(D) + " d_h=4 d_v=2 L=3 inst_seed=" + hex(s),
             dev);
    }
  ClaimResult r = tt.result(cfg, "d_k = 2, P in {1, 2" + std::string(cfg.quick ? "" : ", 3") + "}, L = 3; FD at " + std::to_string(fdd) + " digits; seed tag " + tag,
                            fdd, "each step is one GD step on the bias of the truncated-phi* deep memory");
  // convergence report (double): Pmax = 8, d_k = 3, L = 32, the same weights for every P (zeroed monomials)
  {
    const std::uint64_t s = mix(base, 999);
    Gauss g(s);
    const int Pmax = cfg.quick ? 6 : 8;
    const std::size_t dk = 3, L = cfg.quick ? 16 : 32, dv = 3, D = ref::exp_monomial_dim(dk, Pmax), dh = 8;
    DM Q = gauss_matrix(L, dk, g), K = gauss_matrix(L, dk, g), V = gauss_matrix(L, dv, g);
    for (std::size_t t = 0; t < L; ++t) {
      normalize_row(Q, t);
      normalize_row(K, t);
    }
    std::vector<double> eta(L);
    for (double& e : eta) e = 0.05 + 0.1 * g.uniform();
    const MlpMem<double> m = random_mem(g, D, dh, dv, MlpResidual::none, MlpAct::gelu_erf, false);
    // degree of each feature: phi(2 * 1) / phi(1) = 2^|a|
    const std::vector<double> one(dk, 1.0), two(dk, 2.0);
    const auto f1 = ref::exp_feature_monomial(one.data(), dk, Pmax), f2 = ref::exp_feature_monomial(two.data(), dk, Pmax);
    std::vector<int> deg(D);
    for (std::size_t j = 0; j < D; ++j) deg[j] = static_cast<int>(std::lround(std::log2(f2[j] / f1[j])));
    auto run_P = [&](int P) {
      ref::OmegaInputs<double> in;
      in.PhiQ = DM(L, D);
      in.PhiK = DM(L, D);
      for (std::size_t t = 0; t < L; ++t) {
        const auto fq = ref::exp_feature_monomial(Q.row(t), dk, Pmax), fk = ref::exp_feature_monomial(K.row(t), dk, Pmax);
        for (std::size_t j = 0; j < D; ++j) {
          in.PhiQ(t, j) = deg[j] <= P ? fq[j] : 0.0;
          in.PhiK(t, j) = deg[j] <= P ? fk[j] : 0.0;
        }
      }
      in.V = V;
      in.eta = eta;
      in.c = 1;
      return ref::omeganet_mlp(in, m, ref::Bias{ref::BiasKind::dot}).Y;
    };
    const DM Yref = run_P(Pmax);
    ClaimFigure fig;
    fig.id = "p-convergence";
    fig.title = "Deep memory on truncated phi*_P: output deviation from P = Pmax";
    fig.caption = "DeepTransformer (dot bias), no-residual GELU MLP, d_k=3, unit keys/queries, same weights for all P (degree > P monomials zeroed)";
    fig.x_label = "P";
    fig.y_label = "max_t ||y_t(P) - y_t(Pmax)|| / max(1, ||y_t(Pmax)||)";
    fig.y_scale = "log";
    FigureSeries fs;
    fs.name = "relative output deviation";
    fs.marker = "o";
    std::string txt;
    for (int P = 0; P < Pmax; ++P) {
      const double d = rowrel(to_mp(run_P(P)), to_mp(Yref));
      fs.x.push_back(P);
      fs.y.push_back(d);
      txt += (txt.empty() ? "" : ", ") + std::string("P=") + std::to_string(P) + ": " + fmt(d);
    }
    fig.series.push_back(fs);
    r.evidence.figures.push_back(fig);
    r.evidence.extra.emplace_back("P -> large convergence (report, Pmax = " + std::to_string(Pmax) + ", inst_seed=" + hex(s) + ")", txt);
  }
  return r;
}

}  // namespace

void register_a002_omeganet_deep(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A002-OMEGA-CHUNK-MLP", "Tensorised chunk form of the Omega rule with a 2-layer MLP memory", identity, true, a002_omega_chunk_mlp);
  add("A002-OMEGANET-UPDATE", "OmegaNet update (Eq. 10) with a deep memory: update contract", identity, true, a002_omeganet_update);
  add("A002-OMEGANET-D3", "OmegaNet App. D.3 (Eq. 56) equals Eq. 10 with eta_i^(t) = eta_t gamma_i^(t)", identity, true, a002_omeganet_d3);
  add("A002-DT-DEEP-TRUNC", "DeepTransformer / Dot with a deep memory on truncated phi*: update contract, P-convergence", identity, true,
      a002_dt_deep_trunc);
}

}  // namespace recall
