// Shared helpers of the A002 deep-memory claim files (a002_atlas/mlp_memory.cpp, omeganet_deep.cpp): random MLP
// memories and Omega sequence instances (double, converted to mp_t), the P2 central-difference comparison of the
// closed-form gradients (mlp_memory.hpp), and a threshold tally with negative controls.
// Internal linkage (unnamed namespace nested in recall::claim_support::mlpmem), like claim_support.hpp.
#pragma once

#include "recall/proofs/ledger.hpp"
#include "recall/reference/mlp_memory.hpp"
#include "a002_omega_claims.hpp"
#include "claim_support.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace recall::claim_support::mlpmem {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

using ref::MlpAct;
using ref::MlpMem;
using ref::MlpResidual;

using omega::hex;

// A random memory: W2, W3 ~ N(0, 1/D), W1 ~ N(0, 1/d_h) (recorded init scale), P ~ N(0, 1/D).
MlpMem<double> random_mem(Gauss& g, std::size_t D, std::size_t dh, std::size_t dv, MlpResidual res, MlpAct act, bool gated, double scale = 1.0) {
  MlpMem<double> m;
  m.res = res;
  m.act = act;
  m.W2 = gauss_matrix(dh, D, g, scale / std::sqrt(double(D)));
  m.W1 = gauss_matrix(dv, dh, g, scale / std::sqrt(double(dh)));
  if (gated) m.W3 = gauss_matrix(dh, D, g, scale / std::sqrt(double(D)));
  if (res == MlpResidual::proj) m.P = gauss_matrix(dv, D, g, 1.0 / std::sqrt(double(D)));
  return m;
}
template <class S> MlpMem<S> cast_mem(const MlpMem<double>& m) {
  MlpMem<S> o;
  o.res = m.res;
  o.act = m.act;
  o.W1 = ref::cast<S>(m.W1);
  o.W2 = ref::cast<S>(m.W2);
  if (!m.W3.empty()) o.W3 = ref::cast<S>(m.W3);
  if (!m.P.empty()) o.P = ref::cast<S>(m.P);
  return o;
}
// ReLU away from kinks: min |h_j| of W2 x over the inputs (rows of X)
double min_abs_pre(const MlpMem<double>& m, const DM& X) {
  double r = INFINITY;
  for (std::size_t i = 0; i < X.rows; ++i) {
    const auto h = ref::matvec(m.W2, X.row(i));
    for (double v : h) r = std::min(r, std::fabs(v));
  }
  return r;
}

// A sequence instance: omega::make_inst (a002_omega_claims.hpp, the spec's default random instances) with identity
// features (D = d_k), cycling over `variant` the gate family (random, {0,1}, zero alphas) and the key family (sphere,
// repeated, near-parallel, zero key, Gaussian); ReLU memories (no_kink) keep unit-sphere keys and random gates, so the
// memory can be drawn away from the kink.
using SeqD = omega::DIn;
SeqD random_seq(std::uint64_t seed, std::size_t L, std::size_t D, std::size_t dv, std::size_t c, int variant = 0, bool no_kink = false) {
  omega::Case k;
  k.L = L;
  k.dk = D;
  k.dv = dv;
  k.c = c;
  const omega::GateKind gates[] = {omega::GateKind::random, omega::GateKind::boundary, omega::GateKind::zeros};
  const Keys keys[] = {Keys::sphere, Keys::repeated, Keys::nearpar, Keys::zero, Keys::gauss};
  k.gates = no_kink ? omega::GateKind::random : gates[variant % 3];
  k.keys = no_kink ? Keys::sphere : keys[variant % 5];
  return omega::make_inst(k, seed).in;
}
std::string seq_desc(std::size_t variant, bool no_kink) {
  const char* gk[] = {"gates=random", "gates={0,1}", "gates=random+zero-alpha"};
  const Keys keys[] = {Keys::sphere, Keys::repeated, Keys::nearpar, Keys::zero, Keys::gauss};
  return no_kink ? std::string("gates=random keys=sphere") : std::string(gk[variant % 3]) + " keys=" + keys_name(keys[variant % 5]);
}
template <class S> ref::OmegaInputs<S> to_inputs(const SeqD& s) { return omega::cast_in<S>(s); }
// ReLU: keep every pre-activation of the keys and queries at least `margin` from the kink
double seq_min_pre(const MlpMem<double>& m, const SeqD& s) { return std::min(min_abs_pre(m, s.PhiK), min_abs_pre(m, s.PhiQ)); }

// max over parameter matrices of ||A - B||_F / max(1e-300, ||B||_F) (relative to the reference B)
template <class S> double params_rel(const ref::Params<S>& A, const ref::Params<S>& B) {
  double w = 0;
  for (std::size_t k = 0; k < A.size(); ++k) {
    const S d = ref::frob_diff(A[k], B[k]), n = ref::frob(B[k]);
    const double r = ref::convert<double>(S(d / (n > S(0) ? n : S(1))));
    w = std::max(w, std::isnan(r) ? INFINITY : r);
  }
  return w;
}
template <class S> double mem_rel(const MlpMem<S>& A, const MlpMem<S>& B) { return params_rel(ref::mlp_params(A), ref::mlp_params(B)); }

// The FD threshold of the spec (A002-ASSOC-MEM-DEF): P2 (100 digits) central differences with step 10^-30 give >= 40
// correct digits; at d working digits we use step 10^-(0.3 d) and threshold 10^-(0.4 d).
inline unsigned fd_digits(unsigned digits) { return 2 * digits; }
inline double fd_threshold(unsigned fdd) { return std::pow(10.0, -0.4 * double(fdd)); }
inline mp_t fd_step(unsigned fdd) { return pow(mp_t(10), -mp_t(0.3 * double(fdd))); }

// closed-form gradient vs P2 central differences of l(M(x); v) at fdd digits (relative, per matrix)
double grad_vs_fd(const ref::Bias& b, const MlpMem<double>& md, const std::vector<double>& x, const std::vector<double>& v, unsigned fdd,
                  bool wrong_variant = false) {
  MpDigitsScope sc(fdd);
  const MlpMem<mp_t> m = cast_mem<mp_t>(md);
  const MV xm = to_mp(x), vm = to_mp(v);
  MlpMem<mp_t> mg = m;
  if (wrong_variant) mg.act = m.act == MlpAct::gelu_erf ? MlpAct::gelu_tanh : MlpAct::gelu_erf;  // negative control
  const ref::Params<mp_t> G = ref::mlp_memory_grad(b, mg, xm.data(), vm.data());
  const std::function<mp_t(const ref::Params<mp_t>&)> F = [&](const ref::Params<mp_t>& p) {
    return ref::mlp_memory_loss(b, ref::mlp_with_params(m, p), xm.data(), vm.data());
  };
  const ref::Params<mp_t> N = ref::central_difference_gradient(F, ref::mlp_params(m), fd_step(fdd));
  return params_rel(G, N);
}

// Threshold tally: every instance must satisfy value <= thr (holds), the first that does not is the witness.
struct TolTally {
  TolTally(std::string s, double t) : statistic(std::move(s)), thr(t) {}
  std::string statistic;
  double thr = 0;
  int n = 0;
  double worst = 0;
  std::string worst_desc, witness;
  double witness_value = 0;
  void add(const std::string& desc, double v) {
    ++n;
    if (std::isnan(v)) v = INFINITY;
    if (v > worst || worst_desc.empty()) {
      worst = v;
      worst_desc = desc;
    }
    if (v > thr && witness.empty()) {
      witness = desc;
      witness_value = v;
    }
  }
  ClaimResult result(const CheckConfig& cfg, const std::string& sizes, unsigned digits, const std::string& holds_reason) const {
    ClaimResult r;
    r.evidence.statistic = statistic;
    r.evidence.threshold = thr;
    r.evidence.instances = n;
    r.evidence.sizes = sizes;
    r.evidence.digits = digits;
    r.evidence.seed = cfg.seed;
    if (n == 0) {
      r.verdict = Verdict::inconclusive;
      r.reason = "no instance evaluated";
    } else if (!witness.empty()) {
      r.verdict = Verdict::violated;
      r.evidence.value = witness_value;
      r.evidence.witness = witness;
      r.reason = statistic + " = " + fmt(witness_value) + " > " + fmt(thr) + " on " + witness;
    } else {
      r.verdict = Verdict::holds;
      r.evidence.value = worst;
      r.evidence.witness = worst_desc;
      r.reason = holds_reason + " (worst " + fmt(worst) + " <= " + fmt(thr) + ", " + std::to_string(n) + " instances)";
    }
    return r;
  }
};

// Negative control: a plausible wrong form must be detected (value > thr) on every instance where it is evaluated;
// an undetected wrong form makes the check too weak (inconclusive).
struct NegControl {
  NegControl(std::string s, double t) : statistic(std::move(s)), thr(t) {}
  std::string statistic;
  double thr = 0;
  int n = 0, undetected = 0;
  double smallest = INFINITY;
  std::string first_undetected;
  void add(const std::string& desc, double v) {
    ++n;
    if (std::isnan(v)) v = INFINITY;
    smallest = std::min(smallest, v);
    if (!(v > thr)) {
      ++undetected;
      if (first_undetected.empty()) first_undetected = desc;
    }
  }
  ClaimResult result(const CheckConfig& cfg, const std::string& sizes) const {
    ClaimResult r;
    r.evidence.statistic = statistic + " (negative control: must exceed the threshold)";
    r.evidence.threshold = thr;
    r.evidence.instances = n;
    r.evidence.sizes = sizes;
    r.evidence.seed = cfg.seed;
    r.evidence.value = smallest;
    if (n == 0) {
      r.verdict = Verdict::inconclusive;
      r.reason = "negative control not evaluated";
    } else if (undetected > 0) {
      r.verdict = Verdict::inconclusive;
      r.evidence.witness = first_undetected;
      r.reason = "the wrong form was not detected on " + std::to_string(undetected) + " of " + std::to_string(n) + " instances (check too weak)";
    } else {
      r.verdict = Verdict::holds;
      r.reason = "the wrong form is detected on all " + std::to_string(n) + " instances (smallest deviation " + fmt(smallest) + ")";
    }
    return r;
  }
};


// combine the parts of a claim, headed by the first part when all hold (not the largest value/threshold ratio)
ClaimResult comb(const Parts& parts) { return combine(parts, CombineStyle{PartSummary::instances, false}); }

// One memory configuration of a check.
struct Combo {
  MlpResidual res = MlpResidual::identity;
  MlpAct act = MlpAct::gelu_erf;
  bool gated = false;
  ref::Bias bias{};
};
std::string bias_name(const ref::Bias& b) {
  if (b.kind == ref::BiasKind::dot) return "dot";
  return b.half_l2 ? "half_l2" : "l2";
}
std::string combo_desc(const Combo& c) {
  return std::string(ref::mlp_act_name(c.act)) + " " + ref::mlp_residual_name(c.res) + (c.gated ? " gated" : "") + " bias=" + bias_name(c.bias);
}
// dv for a reading: equal to D for the identity residual, else D - 1 (D != d_v, the lifted-input case) when D > 1
std::size_t dv_for(MlpResidual r, std::size_t D) { return r == MlpResidual::identity || D == 1 ? D : D - 1; }
// draw a memory; ReLU memories are redrawn until every pre-activation of X is >= 1e-3 from the kink
MlpMem<double> draw_mem(Gauss& g, std::size_t D, std::size_t dh, std::size_t dv, const Combo& c, const DM& X, double& minpre) {
  MlpMem<double> m;
  for (int tries = 0; tries < 200; ++tries) {
    m = random_mem(g, D, dh, dv, c.res, c.act, c.gated);
    minpre = min_abs_pre(m, X);
    if (c.act != MlpAct::relu || minpre >= 1e-3) break;
  }
  return m;
}

// A002-MEMORY-MLP-GRAD pattern: closed-form gradients vs P2 central differences over the combos (one instance per
// combo and size); negative control (GELU only): the other GELU variant's derivative must be detected.
ClaimResult fd_check(const CheckConfig& cfg, const std::string& tag, const std::vector<Combo>& combos, bool control) {
  const unsigned fdd = fd_digits(cfg.digits);
  TolTally tt{"max over matrices of ||closed-form grad - central-difference grad||_F / ||central-difference grad||_F", fd_threshold(fdd)};
  NegControl nc{"same with the other GELU variant's derivative in the closed form", fd_threshold(fdd)};
  std::vector<std::size_t> Ds = cfg.quick ? std::vector<std::size_t>{3} : std::vector<std::size_t>{3, 8};
  std::vector<std::size_t> dhs = cfg.quick ? std::vector<std::size_t>{5} : std::vector<std::size_t>{5, 12};
  const std::uint64_t base = tag_seed(cfg.seed, tag);
  int n = 0;
  for (std::size_t D : Ds)
    for (std::size_t dh : dhs)
      for (const Combo& c : combos) {
        const std::uint64_t s = mix(base, static_cast<std::uint64_t>(n++));
        Gauss g(s);
        const std::size_t dv = dv_for(c.res, D);
        DM X = gauss_matrix(1, D, g);
        normalize_row(X, 0);
        double minpre = 0;
        const MlpMem<double> m = draw_mem(g, D, dh, dv, c, X, minpre);
        const std::vector<double> x(X.row(0), X.row(0) + D), v = [&] { DM V = gauss_matrix(1, dv, g); return std::vector<double>(V.a); }();
        const std::string desc = combo_desc(c) + " D=" + std::to_string(D) + " d_h=" + std::to_string(dh) + " d_v=" + std::to_string(dv) +
                                 " x unit-norm N(0,1) rows, W ~ N(0,1/fan_in), v ~ N(0,1), min|W2 x|=" + fmt(minpre) + " inst_seed=" + hex(s);
        tt.add(desc, grad_vs_fd(c.bias, m, x, v, fdd));
        if (control && (c.act == MlpAct::gelu_erf || c.act == MlpAct::gelu_tanh)) nc.add(desc, grad_vs_fd(c.bias, m, x, v, fdd, true));
      }
  const std::string sizes = "D in {" + std::string(cfg.quick ? "3" : "3, 8") + "}, d_h in {" + (cfg.quick ? "5" : "5, 12") + "}, " +
                            std::to_string(combos.size()) + " memory configurations; FD at " + std::to_string(fdd) + " digits, step 10^-" +
                            fmt(0.3 * fdd) + "; seed tag " + tag;
  ClaimResult a = tt.result(cfg, sizes, fdd, "closed-form gradients agree with central differences");
  if (!control || nc.n == 0) return a;
  return comb({{"gradient vs central differences", a}, {"negative control (wrong GELU variant)", nc.result(cfg, sizes)}});
}

// A002-OMEGA-CHUNK-MLP pattern: tensorised chunk form vs the frozen-gradient token loop (outputs and end state), mp_t
// at cfg.digits, failures re-verified at doubled digits (IdentityCheck). Sizes (D, d_h, L, b, c) from `grid`.
struct ChunkSize { std::size_t D, dh, L, b, c; };
ClaimResult chunk_check(const CheckConfig& cfg, const std::string& tag, const std::vector<Combo>& combos, const std::vector<ChunkSize>& grid) {
  IdentityCheck ic("max(row-relative output deviation, relative end-state deviation): omega_chunk_mlp vs omega_chunk_mlp_loop", cfg.digits);
  const std::uint64_t base = tag_seed(cfg.seed, tag);
  int n = 0;
  const int reps = cfg.quick ? 1 : 4;  // full: every size point with 4 instances (cycling the gate / key families)
  for (const ChunkSize& z : grid)
    for (int rep = 0; rep < reps; ++rep)
    for (const Combo& c : combos) {
      const std::uint64_t s = mix(base, static_cast<std::uint64_t>(n++));
      Gauss g(s);
      const std::size_t dv = dv_for(c.res, z.D);
      const bool nk = c.act == MlpAct::relu;
      const SeqD sq = random_seq(mix(s, 1), z.L, z.D, dv, z.c, n, nk);
      double minpre = 0;
      DM both(2 * z.L, z.D);
      for (std::size_t i = 0; i < z.L * z.D; ++i) {
        both.a[i] = sq.PhiK.a[i];
        both.a[z.L * z.D + i] = sq.PhiQ.a[i];
      }
      const MlpMem<double> m = draw_mem(g, z.D, z.dh, dv, c, both, minpre);
      const std::string desc = combo_desc(c) + " D=" + std::to_string(z.D) + " d_h=" + std::to_string(z.dh) + " d_v=" + std::to_string(dv) +
                               " L=" + std::to_string(z.L) + " b=" + std::to_string(z.b) + " c=" + std::to_string(z.c) +
                               " " + seq_desc(static_cast<std::size_t>(n), nk) + " (omega::make_inst) inst_seed=" + hex(s);
      ic.add(desc, [&](unsigned d) {
        MpDigitsScope sc(d);
        const auto in = to_inputs<mp_t>(sq);
        const MlpMem<mp_t> mm = cast_mem<mp_t>(m);
        const auto A = ref::omega_chunk_mlp(in, mm, z.b, c.bias);
        const auto B = ref::omega_chunk_mlp_loop(in, mm, z.b, c.bias);
        return std::max(rowrel(A.Y, B.Y), mem_rel(A.state, B.state));
      });
    }
  return ic.result(cfg, std::to_string(grid.size()) + " size points x " + std::to_string(reps) + " instances x " + std::to_string(combos.size()) +
                            " configurations; seed tag " + tag);
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::mlpmem
