// Paper A002 (Atlas), §5 Eqs. 42-43 and App. E: the deep (MLP) memories and their closed-form gradients
// (reference/include/recall/reference/mlp_memory.hpp). Identities between this project's forms (internal):
// P0 vs P1 forward passes, the erfc GELU vs ref::gelu, closed-form gradients vs P2 central differences (with a
// wrong-GELU-variant negative control), tensorised chunk form vs the frozen-gradient token loop per reading, the
// no-residual reading vs capacity_rank.hpp's MlpMemory, the projection reading's P = [I | 0] special case.
// Spec IDs: A002-MEMORY-MLP, A002-MEMORY-MLP-RESID-DROP, A002-MEMORY-MLP-RESID-PROJ, A002-MEMORY-GATED-MLP,
// A002-MEMORY-MLP-GRAD.
#include "recall/proofs/claims_a002.hpp"
#include "recall/proofs/ledger.hpp"
#include "recall/reference/capacity_rank.hpp"
#include "recall/reference/mlp_memory.hpp"
#include "recall/reference/regression_rules.hpp"
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

const std::vector<MlpAct> kActs{MlpAct::gelu_erf, MlpAct::gelu_tanh, MlpAct::tanh, MlpAct::relu};

std::vector<ChunkSize> chunk_grid(const CheckConfig& cfg) {
  if (cfg.quick) return {{3, 5, 7, 3, 2}, {4, 6, 9, 4, 3}};
  return {{3, 5, 7, 3, 2}, {4, 6, 9, 4, 3}, {3, 5, 16, 2, 1}, {8, 32, 16, 4, 3}, {8, 32, 13, 16, 8}};
}

// A002-MEMORY-MLP: residual 2-layer MLP memory M(x) = x + W1 s(W2 x): P0 forward vs the P1 reference (relative error
// <= 1e-12, spec Conventions), the erfc-form GELU vs ref::gelu (regression_rules.hpp) at P1, and a negative control
// (the read without the residual must differ).
ClaimResult a002_memory_mlp(const CheckConfig& cfg) {
  const std::string tag = "A002-MEMORY-MLP";
  TolTally fw{"||M(x) in double - M(x) in P1||_2 / max(1, ||M(x)||_2)", 1e-12};
  NegControl nc{"||x + W1 s(W2 x) - W1 s(W2 x)|| / max(1, ||M(x)||) (residual dropped)", 1e-12};
  const std::vector<std::size_t> Ds = cfg.quick ? std::vector<std::size_t>{3, 8, 16} : std::vector<std::size_t>{3, 8, 16, 64};
  const std::uint64_t base = tag_seed(cfg.seed, tag);
  int n = 0;
  for (std::size_t D : Ds)
    for (MlpAct act : kActs)
      for (int rep = 0; rep < (cfg.quick ? 2 : 6); ++rep) {
        const std::uint64_t s = mix(base, static_cast<std::uint64_t>(n++));
        Gauss g(s);
        DM X = gauss_matrix(1, D, g);
        normalize_row(X, 0);
        const MlpMem<double> m = random_mem(g, D, 4 * D, D, MlpResidual::identity, act, false);
        const std::vector<double> x(X.a);
        const std::string desc = std::string(ref::mlp_act_name(act)) + " D=d_v=" + std::to_string(D) + " d_h=4D unit x, W ~ N(0,1/fan_in) inst_seed=" + hex(s);
        const std::vector<double> yd = ref::mlp_memory_read(m, x);
        MpDigitsScope sc(cfg.digits);
        const MV ym = ref::mlp_memory_read(cast_mem<mp_t>(m), to_mp(x));
        fw.add(desc, vecrel(to_mp(yd), ym));
        MlpMem<mp_t> mn = cast_mem<mp_t>(m);
        mn.res = MlpResidual::none;
        nc.add(desc, vecrel(ref::mlp_memory_read(mn, to_mp(x)), ym));
      }
  TolTally ge{"|s_erfc(h) - ref::gelu(h)| / max(1, |s(h)|) at P1, h in [-8, 8] step 1/4", identity_threshold(cfg.digits)};
  {
    MpDigitsScope sc(cfg.digits);
    for (int k = -32; k <= 32; ++k) {
      const mp_t h = mp_t(k) / 4;
      const mp_t a = ref::mlp_act(h, MlpAct::gelu_erf), b = ref::gelu(h);
      ge.add("h=" + fmt(k / 4.0), screl(a, b));
    }
  }
  const std::string sizes = "D in {3, 8, 16" + std::string(cfg.quick ? "" : ", 64") + "}, d_h = 4D, activations gelu_erf/gelu_tanh/tanh/relu; seed tag " + tag;
  return comb({{"P0 vs P1 forward", fw.result(cfg, sizes, cfg.digits, "the double forward pass agrees with P1")},
                  {"erfc GELU vs ref::gelu", ge.result(cfg, "65 points", cfg.digits, "the two GELU evaluations agree")},
                  {"negative control (no residual)", nc.result(cfg, sizes)}});
}

// A002-MEMORY-MLP-RESID-DROP: M(x) = W1 s(W2 x) for D != d_v: gradients vs P2 central differences, chunk form vs token
// loop, and agreement with capacity_rank.hpp's MlpMemory (layers {W2, W1}, GELU, no biases) at P1.
ClaimResult a002_memory_mlp_resid_drop(const CheckConfig& cfg) {
  const std::string tag = "A002-MEMORY-MLP-RESID-DROP";
  std::vector<Combo> combos;
  for (MlpAct a : kActs) combos.push_back({MlpResidual::none, a, false, {}});
  combos.push_back({MlpResidual::none, MlpAct::gelu_erf, false, ref::Bias{ref::BiasKind::dot}});
  TolTally cap{"||mlp_memory_read (none) - capacity_rank mlp_memory_forward({W2, W1}, gelu)|| / max(1, ||.||) at P1", identity_threshold(cfg.digits)};
  const std::uint64_t base = tag_seed(cfg.seed, tag + "/capacity");
  for (int n = 0; n < (cfg.quick ? 4 : 16); ++n) {
    const std::uint64_t s = mix(base, static_cast<std::uint64_t>(n));
    Gauss g(s);
    const std::size_t D = 3 + static_cast<std::size_t>(n % 4), dv = D - 1, dh = 2 * D;
    DM X = gauss_matrix(1, D, g);
    const MlpMem<double> m = random_mem(g, D, dh, dv, MlpResidual::none, MlpAct::gelu_erf, false);
    MpDigitsScope sc(cfg.digits);
    const MlpMem<mp_t> mm = cast_mem<mp_t>(m);
    ref::capacity::MlpMemory<mp_t> net;
    net.W = {mm.W2, mm.W1};
    net.act = ref::capacity::MlpActivation::gelu;
    const MV x = to_mp(X.a);
    cap.add("D=" + std::to_string(D) + " d_v=" + std::to_string(dv) + " d_h=" + std::to_string(dh) + " x ~ N(0,1) inst_seed=" + hex(s),
            vecrel(ref::mlp_memory_read(mm, x), ref::capacity::mlp_memory_forward(net, x)));
  }
  return comb({{"gradients vs central differences", fd_check(cfg, tag, combos, false)},
                  {"chunk form vs token loop", chunk_check(cfg, tag, {combos[0], combos[2]}, chunk_grid(cfg))},
                  {"same read-out as capacity_rank MlpMemory", cap.result(cfg, "D in 3..6, d_v = D - 1, d_h = 2D", cfg.digits, "one reading, two codes agree")}});
}

// A002-MEMORY-MLP-RESID-PROJ: M(x) = P x + W1 s(W2 x), P fixed (outer loop): gradients vs central differences (P not
// differentiated), chunk form vs token loop, and P = [I | 0]: equals x[1..d_v] + W1 s(W2 x); for D = d_v, P = I equals the
// identity-residual reading exactly.
ClaimResult a002_memory_mlp_resid_proj(const CheckConfig& cfg) {
  const std::string tag = "A002-MEMORY-MLP-RESID-PROJ";
  std::vector<Combo> combos;
  for (MlpAct a : kActs) combos.push_back({MlpResidual::proj, a, false, {}});
  TolTally sp{"||read with P = [I | 0] - (x[1..d_v] + W1 s(W2 x))|| / max(1, ||.||) (P1); D = d_v: vs the identity-residual read", identity_threshold(cfg.digits)};
  const std::uint64_t base = tag_seed(cfg.seed, tag + "/special");
  for (int n = 0; n < (cfg.quick ? 4 : 16); ++n) {
    const std::uint64_t s = mix(base, static_cast<std::uint64_t>(n));
    Gauss g(s);
    const std::size_t D = 3 + static_cast<std::size_t>(n % 3), dv = n % 2 == 0 ? D : D - 1, dh = 2 * D;
    DM X = gauss_matrix(1, D, g);
    MlpMem<double> m = random_mem(g, D, dh, dv, MlpResidual::proj, MlpAct::gelu_erf, false);
    m.P = DM(dv, D);
    for (std::size_t i = 0; i < dv; ++i) m.P(i, i) = 1;
    MpDigitsScope sc(cfg.digits);
    const MlpMem<mp_t> mm = cast_mem<mp_t>(m);
    const MV x = to_mp(X.a);
    MV want;
    if (dv == D) {
      MlpMem<mp_t> mi = mm;
      mi.res = MlpResidual::identity;
      want = ref::mlp_memory_read(mi, x);
    } else {
      MlpMem<mp_t> mn = mm;
      mn.res = MlpResidual::none;
      want = ref::mlp_memory_read(mn, x);
      for (std::size_t i = 0; i < dv; ++i) want[i] += x[i];
    }
    sp.add("D=" + std::to_string(D) + " d_v=" + std::to_string(dv) + " inst_seed=" + hex(s), vecrel(ref::mlp_memory_read(mm, x), want));
  }
  return comb({{"gradients vs central differences", fd_check(cfg, tag, combos, false)},
                  {"chunk form vs token loop", chunk_check(cfg, tag, {combos[0], combos[2]}, chunk_grid(cfg))},
                  {"P = [I | 0] special case", sp.result(cfg, "D in 3..5, d_v in {D, D - 1}", cfg.digits, "the special case reduces as stated")}});
}

// A002-MEMORY-GATED-MLP: M(x) = x + W1 (s(W2 x) o W3 x) (Eq. 43, o elementwise): gradients vs central differences (all
// three matrices, residual and no-residual readings), chunk form vs token loop.
ClaimResult a002_memory_gated_mlp(const CheckConfig& cfg) {
  const std::string tag = "A002-MEMORY-GATED-MLP";
  std::vector<Combo> combos;
  for (MlpAct a : kActs) combos.push_back({MlpResidual::identity, a, true, {}});
  combos.push_back({MlpResidual::none, MlpAct::gelu_erf, true, {}});
  combos.push_back({MlpResidual::identity, MlpAct::gelu_erf, true, ref::Bias{ref::BiasKind::dot}});
  return comb({{"gradients vs central differences", fd_check(cfg, tag, combos, false)},
                  {"chunk form vs token loop", chunk_check(cfg, tag, {combos[0], combos[2], combos[4]}, chunk_grid(cfg))}});
}

// A002-MEMORY-MLP-GRAD: closed-form gradients vs P2 central differences for every activation x reading x bias x
// (plain, gated), with the wrong-GELU-variant negative control; and the erfc hazard: the double s(h)
// and s'(h) for h in [-36.63, -5.63] vs P1 (relative error <= 1e-12), where the 1 + erf form loses relative accuracy
// (negative control).
ClaimResult a002_memory_mlp_grad(const CheckConfig& cfg) {
  const std::string tag = "A002-MEMORY-MLP-GRAD";
  std::vector<Combo> combos;
  const std::vector<ref::Bias> biases{ref::Bias{}, ref::Bias{ref::BiasKind::l2, true}, ref::Bias{ref::BiasKind::dot}};
  for (MlpResidual r : {MlpResidual::identity, MlpResidual::none, MlpResidual::proj})
    for (MlpAct a : kActs)
      for (bool gated : {false, true})
        for (const ref::Bias& b : biases) {
          if (cfg.quick && (b.half_l2 || (r == MlpResidual::proj && gated))) continue;
          combos.push_back({r, a, gated, b});
        }
  TolTally hz{"max(|s(h) - P1| / |P1|, |s'(h) - P1| / |P1|), GELU erf (erfc form) in double, h in [-36.63, -5.63]", 1e-12};
  NegControl hzc{"same with the 1 + erf form s(h) = h (1 + erf(h/sqrt 2))/2, s'(h) = (1 + erf(h/sqrt 2))/2 + h phi(h) in double", 1e-12};
  {
    MpDigitsScope sc(cfg.digits);
    for (int k = -37; k <= -6; ++k) {
      const double h = k + 0.37;
      const mp_t ex = ref::mlp_act_prime(mp_t(h), MlpAct::gelu_erf), ev = ref::mlp_act(mp_t(h), MlpAct::gelu_erf);
      const double dd = ref::mlp_act_prime(h, MlpAct::gelu_erf), dv = ref::mlp_act(h, MlpAct::gelu_erf);
      const double cdf = (1 + std::erf(h / std::sqrt(2.0))) / 2;
      const double naive_p = cdf + h * std::exp(-h * h / 2) / std::sqrt(2 * M_PI), naive_v = h * cdf;
      auto rel = [](double a, const mp_t& e) { return std::fabs(to_d(mp_t((mp_t(a) - e) / e))); };
      hz.add("h=" + fmt(h), std::max(rel(dd, ex), rel(dv, ev)));
      hzc.add("h=" + fmt(h), std::max(rel(naive_p, ex), rel(naive_v, ev)));
    }
  }
  return comb({{"gradients vs central differences (+ control)", fd_check(cfg, tag, combos, true)},
                  {"GELU derivative for h << 0 (erfc form)", hz.result(cfg, "32 points", cfg.digits, "the erfc form keeps relative accuracy")},
                  {"negative control (1 + erf form)", hzc.result(cfg, "32 points")}});
}

}  // namespace

void register_a002_mlp_memory(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A002-MEMORY-MLP", "Residual 2-layer MLP memory (Eq. 42): P0 vs P1 forward, GELU forms", identity, true, a002_memory_mlp);
  add("A002-MEMORY-MLP-RESID-DROP", "MLP memory without residual (D != d_v): gradients, chunk form, capacity MlpMemory", identity, true,
      a002_memory_mlp_resid_drop);
  add("A002-MEMORY-MLP-RESID-PROJ", "MLP memory with a fixed projection residual: gradients, chunk form, P = [I|0]", identity, true,
      a002_memory_mlp_resid_proj);
  add("A002-MEMORY-GATED-MLP", "Gated MLP memory (Eq. 43): gradients and chunk form", identity, true, a002_memory_gated_mlp);
  add("A002-MEMORY-MLP-GRAD", "Closed-form MLP-memory gradients vs P2 central differences", identity, true, a002_memory_mlp_grad);
}

}  // namespace recall
