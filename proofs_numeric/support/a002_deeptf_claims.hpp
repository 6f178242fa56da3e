// Helpers shared by the A002 §4.1-4.2 claim files (a002_atlas/dla_swla.cpp, a002_atlas/deep_transformers.cpp):
// instance generators (unit-norm q/k rows, gate families, banded window gates G1-G3), the update-contract
// check (central finite differences of the attentional bias in P2 against the gradient a recurrence applied,
// with wrong-form controls), and the sequential gate fit of A002-DT-STRICT-GEN / A002-SWDT-GEN. Internal
// linkage, like claim_support.hpp.
#pragma once

#include "claim_support.hpp"
#include "exact_tally.hpp"
#include "recall/reference/deep_transformer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace recall::claim_support::deeptf {
namespace {

using exact::MR;
using exact::Rat;
using exact::VR;

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

using VD = std::vector<double>;

std::string hex(std::uint64_t x) {
  static const char* d = "0123456789abcdef";
  std::string s = "0x";
  for (int i = 60; i >= 0; i -= 4) s += d[(x >> i) & 15];
  return s;
}
// instance seed n of a claim tag
std::uint64_t inst_seed(const CheckConfig& cfg, const std::string& tag, int n) { return mix(tag_seed(cfg.seed, tag), static_cast<std::uint64_t>(n)); }
std::string seed_note(const CheckConfig& cfg, const std::string& tag) {
  return "instance seeds mix(tag_seed(" + std::to_string(cfg.seed) + ", \"" + tag + "\"), n)";
}
// combined results are headed by the first part when every part holds
const CombineStyle kFirst{PartSummary::instances, false};
MV to_mpv(const VD& v) { return ref::cast<mp_t>(v); }

// Wrong forms evaluated on the same instances: holds when at least half are detected.
struct Controls {
  int n = 0, det = 0;
  std::string miss;
  void add(bool detected, const std::string& d) {
    ++n;
    if (detected) ++det;
    else if (miss.empty()) miss = d;
  }
  ClaimResult result(const CheckConfig& cfg, const std::string& what) const {
    ClaimResult r;
    r.evidence.statistic = "wrong forms detected (" + what + ")";
    r.evidence.value = det;
    r.evidence.threshold = n / 2.0;
    r.evidence.instances = n;
    r.evidence.seed = cfg.seed;
    r.evidence.sizes = "same instances";
    r.evidence.witness = miss;
    if (n > 0 && 2 * det >= n) {
      r.verdict = Verdict::holds;
      r.reason = std::to_string(det) + " of " + std::to_string(n) + " wrong forms exceed the threshold";
    } else {
      r.verdict = Verdict::inconclusive;
      r.reason = "only " + std::to_string(det) + " of " + std::to_string(n) + " wrong forms detected (e.g. " + miss + "): the check could not fail";
    }
    return r;
  }
};

// n x d rows of unit L2 norm times `scale` (Box-Muller Gaussians, normalised)
DM unit_rows(Gauss& g, std::size_t n, std::size_t d, double scale = 1.0) {
  DM m = gauss_matrix(n, d, g);
  for (std::size_t i = 0; i < n; ++i) {
    normalize_row(m, i);
    for (std::size_t j = 0; j < d; ++j) m(i, j) *= scale;
  }
  return m;
}

// gate families of the spec (alpha_t): constants and uniform ranges
enum class AlphaKind { zero, one, u0_05, u05_1, u09_1, boundary };
const char* alpha_name(AlphaKind k) {
  switch (k) {
    case AlphaKind::zero: return "alpha=0";
    case AlphaKind::one: return "alpha=1";
    case AlphaKind::u0_05: return "alpha~U[0,0.5]";
    case AlphaKind::u05_1: return "alpha~U[0.5,1]";
    case AlphaKind::u09_1: return "alpha~U[0.9,1]";
    case AlphaKind::boundary: return "alpha in {0,1}";
  }
  return "?";
}
VD draw_alpha(Gauss& g, std::size_t L, AlphaKind k) {
  VD a(L);
  for (double& x : a) {
    const double u = g.uniform();
    switch (k) {
      case AlphaKind::zero: x = 0; break;
      case AlphaKind::one: x = 1; break;
      case AlphaKind::u0_05: x = 0.5 * u; break;
      case AlphaKind::u05_1: x = 0.5 + 0.5 * u; break;
      case AlphaKind::u09_1: x = 0.9 + 0.1 * u; break;
      case AlphaKind::boundary: x = u < 0.5 ? 0.0 : 1.0; break;
    }
  }
  return a;
}
VD draw_eta(Gauss& g, std::size_t L, double lo = 0.01, double hi = 0.5) {
  VD e(L);
  for (double& x : e) x = lo + (hi - lo) * g.uniform();
  return e;
}

// Window gates Gamma (L x L, banded, window c) from the generators of A002-GATES: G1 token-wise gamma_i^(t) = g_i,
// G2 relative gamma_i^(t) = g^(t)_{t-i} (c values drawn at step t), G3 pairwise sigmoid(x_t^T x_i) on the key rows;
// values scaled by `scale` (a learning rate folded in).
enum class GammaGen { g1, g2, g3, ones };
const char* gamma_name(GammaGen k) {
  switch (k) {
    case GammaGen::g1: return "G1";
    case GammaGen::g2: return "G2";
    case GammaGen::g3: return "G3";
    case GammaGen::ones: return "Gamma=1";
  }
  return "?";
}
DM draw_gamma(Gauss& g, std::size_t L, std::size_t c, GammaGen k, const DM& X, double scale = 1.0) {
  DM G(L, L);
  VD tok(L);
  for (double& x : tok) x = g.uniform();
  for (std::size_t t = 0; t < L; ++t) {
    VD rel(c);
    for (double& x : rel) x = g.uniform();
    for (std::size_t i = (t + 1 >= c ? t + 1 - c : 0); i <= t; ++i) {
      double v = 1;
      switch (k) {
        case GammaGen::g1: v = tok[i]; break;
        case GammaGen::g2: v = rel[t - i]; break;
        case GammaGen::g3: {
          double s = 0;
          for (std::size_t j = 0; j < X.cols; ++j) s += X(t, j) * X(i, j);
          v = 1.0 / (1.0 + std::exp(-s));
          break;
        }
        case GammaGen::ones: v = 1; break;
      }
      G(t, i) = scale * v;
    }
  }
  return G;
}

// max_i ||x_i|| of rows
double max_row_norm(const DM& X) {
  double m = 0;
  for (std::size_t i = 0; i < X.rows; ++i) {
    double s = 0;
    for (std::size_t j = 0; j < X.cols; ++j) s += X(i, j) * X(i, j);
    m = std::max(m, std::sqrt(s));
  }
  return m;
}
// max_t sum_i |W_{t,i}| ||v_i|| (the factor that multiplies each truncated kernel value in an output)
double weight_value_scale(const DM& W, const DM& V) {
  double m = 0;
  for (std::size_t t = 0; t < W.rows; ++t) {
    double s = 0;
    for (std::size_t i = 0; i <= t && i < W.cols; ++i) {
      double n = 0;
      for (std::size_t j = 0; j < V.cols; ++j) n += V(i, j) * V(i, j);
      s += std::fabs(W(t, i)) * std::sqrt(n);
    }
    m = std::max(m, s);
  }
  return m;
}

// Truncation order of phi*_P for an identity check at `digits`: the Lagrange bound of the truncation error of every
// output, scale * X^{P+1} e^X / (P+1)!, is at most 10^-digits, i.e. 10 orders of magnitude below the identity threshold
// 10^-(digits-10) (ledger.hpp identity_threshold with cond = 1). X = max|q| max|k| bounds |q_t^T k_i|.
int truncation_order(double X, double scale, unsigned digits) {
  return ref::exp_truncation_order(X, std::log10(std::max(scale, 1e-300)), -static_cast<double>(digits));
}

// ---- instances of the DLA / SWLA claims (dla_swla.cpp) --------------------------------------------------------

struct Sz {
  std::size_t L, dk, dv;
};
std::string sz(const Sz& s) { return "L=" + std::to_string(s.L) + " dk=" + std::to_string(s.dk) + " dv=" + std::to_string(s.dv); }
std::vector<Sz> sizes(const CheckConfig& cfg) {
  std::vector<Sz> s = {{1, 2, 1}, {2, 2, 2}, {3, 3, 2}, {7, 4, 3}, {16, 4, 4}};
  if (!cfg.quick) {
    s.push_back({16, 8, 8});
    s.push_back({64, 8, 4});
  }
  return s;
}

// An exact count part: violated if any instance fails (exact arithmetic or a strict inequality seen at P1 and 2 P1).
ClaimResult count_part(const CheckConfig& cfg, const std::string& statistic, int bad, int n, const std::string& witness, double worst,
                       const std::string& sizes, const std::string& holds_reason, unsigned digits) {
  ClaimResult r;
  auto& e = r.evidence;
  e.statistic = statistic;
  e.value = bad > 0 ? worst : 0;
  e.threshold = 0;
  e.instances = n;
  e.sizes = sizes;
  e.seed = cfg.seed;
  e.digits = digits;
  e.witness = witness;
  if (bad > 0) {
    r.verdict = Verdict::violated;
    r.reason = std::to_string(bad) + " of " + std::to_string(n) + " instances fail; first: " + witness;
  } else if (n == 0) {
    r.verdict = Verdict::inconclusive;
    r.reason = "no instance evaluated";
  } else {
    r.verdict = Verdict::holds;
    r.reason = holds_reason + " (" + std::to_string(n) + " instances)";
  }
  return r;
}

MV log_gates(const MV& a) {
  MV l(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) l[i] = ref::log_gate(a[i]);
  return l;
}
MR rat(const DM& m) { return exact::to_rat(m); }
VR ratv(const VD& v) {
  VR r(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) r[i] = Rat(v[i]);
  return r;
}
double vnorm(const MV& v) {
  mp_t s(0);
  for (const mp_t& x : v) ref::muladd(s, x, x);
  return to_d(mp_t(sqrt(s)));
}

struct SwInst {
  std::uint64_t seed;
  Sz s;
  std::size_t c;
  DM Q, K, V, Gamma;
  VD alpha;
  std::string desc;
};
SwInst sw_instance(const CheckConfig& cfg, const std::string& tag, int n, const Sz& s, std::size_t c, AlphaKind ak, GammaGen gg, double gscale = 1.0) {
  SwInst I;
  I.seed = inst_seed(cfg, tag, n);
  I.s = s;
  I.c = c;
  Gauss g(I.seed);
  I.Q = unit_rows(g, s.L, s.dk);
  I.K = unit_rows(g, s.L, s.dk);
  I.V = gauss_matrix(s.L, s.dv, g);
  I.alpha = draw_alpha(g, s.L, ak);
  I.Gamma = draw_gamma(g, s.L, c, gg, I.K, gscale);
  I.desc = sz(s) + " c=" + std::to_string(c) + " " + alpha_name(ak) + " " + gamma_name(gg) + " inst_seed=" + hex(I.seed);
  return I;
}
const std::vector<std::size_t> kWin = {1, 2, 3, 8};
const std::vector<GammaGen> kGen = {GammaGen::g1, GammaGen::g2, GammaGen::g3};

// ---- update contract ----------------------------------------------------------------------------------------
// The gradient G a recurrence applied at step t (e.g. (alpha_t M_{t-1} - M_t) / eta_t) against central finite
// differences of the loss F at M_{t-1}, along every basis direction (d_v D <= 48) or along 4 Gaussian directions:
// max_E |(F(M + hE) - F(M - hE)) / 2h - <G, E>| / (max(||G||, 1e-300) ||E||). Run at the caller's digits (P2) with
// h = 10^-(0.3 digits) (for a loss linear in M the central difference is exact up to rounding ~ 10^-(0.7 digits)).
double fd_gradient_gap(const std::function<mp_t(const MM&)>& F, const MM& M, const MM& G, std::uint64_t dir_seed) {
  const unsigned dg = mp_digits();
  const mp_t h = boost::multiprecision::pow(mp_t(10), -static_cast<int>(0.3 * dg));
  const std::size_t n = M.a.size();
  const mp_t gn = ref::frob(G);
  std::vector<MM> dirs;
  if (n <= 48) {
    for (std::size_t e = 0; e < n; ++e) {
      MM E(M.rows, M.cols);
      E.a[e] = 1;
      dirs.push_back(E);
    }
  } else {
    Gauss g(dir_seed);
    for (int k = 0; k < 4; ++k) dirs.push_back(to_mp(gauss_matrix(M.rows, M.cols, g)));
  }
  double worst = 0;
  for (const MM& E : dirs) {
    MM Mp = M, Mm = M;
    for (std::size_t e = 0; e < n; ++e) {
      Mp.a[e] += h * E.a[e];
      Mm.a[e] -= h * E.a[e];
    }
    const mp_t fd = (F(Mp) - F(Mm)) / (2 * h);
    mp_t ip(0);
    for (std::size_t e = 0; e < n; ++e) ref::muladd(ip, G.a[e], E.a[e]);
    const mp_t den = (gn > 0 ? gn : mp_t(1)) * ref::frob(E);
    worst = std::max(worst, nan_inf(to_d(mp_t(abs(mp_t(fd - ip)) / den))));
  }
  return worst;
}

// Update contract of a linear-memory recurrence run (keep_states): the gradient the step applied,
// G_t = (alpha_t M_{t-1} - M_t) / eta_t, against central differences of the step's loss at M_{t-1} (P2 = digits + 50).
// loss(t, M) is the loss of step t (0-based). Returns the worst gap; ctl receives the sign-flipped and (eta != 1)
// eta-dropped wrong writes.
template <class LossFn>
double contract_gap(const ref::MemoryRun<mp_t>& run, const MM* M0, const MV& a, const MV& e, std::size_t dv, std::size_t D, LossFn loss, std::uint64_t seed,
                    double* flip_gap, double* eta_gap) {
  double worst = 0;
  if (flip_gap) *flip_gap = INFINITY;
  if (eta_gap) *eta_gap = INFINITY;
  for (std::size_t t = 0; t < run.states.size(); ++t) {
    const MM prev = t == 0 ? (M0 ? *M0 : MM(dv, D)) : run.states[t - 1];
    MM G(dv, D);
    for (std::size_t x = 0; x < G.a.size(); ++x) G.a[x] = (a[t] * prev.a[x] - run.states[t].a[x]) / e[t];
    const auto F = [&](const MM& M) { return loss(t, M); };
    worst = std::max(worst, fd_gradient_gap(F, prev, G, mix(seed, t)));
    if (flip_gap && t + 1 == run.states.size()) {
      MM Gf = G;
      for (mp_t& x : Gf.a) x = -x;
      *flip_gap = fd_gradient_gap(F, prev, Gf, mix(seed, t));
    }
    if (eta_gap && t + 1 == run.states.size() && e[t] != 1) {
      MM Ge = G;
      for (mp_t& x : Ge.a) x *= e[t];
      *eta_gap = fd_gradient_gap(F, prev, Ge, mix(seed, t));
    }
  }
  return worst;
}

// ---- sequential gate fit (A002-DT-STRICT-GEN, A002-SWDT-GEN) -----------------------------------------------------
// Token weights of the linear (SW)DT recurrence obey w_{t,.} = alpha_t w_{t-1,.} + Gamma_{t,.} with Gamma_{t,i} supported
// on the window W'_t of length cw (the DeepTransformer is cw = 1, Gamma_{t,t} = eta_t). Given a target weight matrix
// T (lower triangular), each step solves for (alpha_t, Gamma_t) given the gates already fitted:
//   outside W'_t: alpha_t w_{t-1,i} = T_{t,i}  (least squares in alpha_t);  inside: Gamma_{t,i} = T_{t,i} - alpha_t w_{t-1,i}.
// Unconstrained: alpha_t is the least-squares solution (free when no outside equation has w_{t-1,i} != 0: alpha_t = 1 if
// that keeps the in-window gates in range, else the in-range minimiser). Constrained: alpha_t in [0, 1], Gamma in
// [g_lo, g_hi], minimising the step's squared residual (convex in alpha_t: clipped least squares and a ternary search, the
// better one; the search is skipped when the first is exact), the in-window gates clipped into range. The residual of step t is ||w_t - T_t|| / ||T_t||.
struct GateFit {
  std::vector<mp_t> alpha;
  MM Gamma;
  double max_res = 0;       // max over steps of the relative step residual
  std::size_t worst_t = 0;  // its 1-based step
  int out_of_range = 0;     // unconstrained fits: steps whose gates leave alpha in [0,1], Gamma in [g_lo, g_hi]
  std::size_t first_oor = 0;
  std::string first_oor_desc;
};
GateFit fit_gates(const MM& T, std::size_t cw, bool constrained, const mp_t& g_lo, const mp_t& g_hi, bool g_hi_inf) {
  const std::size_t L = T.rows;
  GateFit f;
  f.alpha.assign(L, mp_t(0));
  f.Gamma = MM(L, L);
  MV w;  // w_{t-1, i}, i < t
  auto clipg = [&](const mp_t& x) {
    if (x < g_lo) return g_lo;
    if (!g_hi_inf && x > g_hi) return g_hi;
    return x;
  };
  for (std::size_t t = 0; t < L; ++t) {
    const std::size_t lo = t + 1 >= cw ? t + 1 - cw : 0;  // window W'_t = [lo, t]
    // step residual for a given alpha, the in-window gates clipped into range when `cons`
    auto resid = [&](const mp_t& a, bool cons) {
      mp_t r(0), d;
      for (std::size_t i = 0; i < t; ++i) {
        const mp_t base = a * w[i];
        if (i < lo) {
          d = base - T(t, i);
        } else {
          const mp_t gm = T(t, i) - base;
          d = cons ? mp_t(clipg(gm) - gm) : mp_t(0);
        }
        ref::muladd(r, d, d);
      }
      const mp_t gt = T(t, t);
      d = cons ? mp_t(clipg(gt) - gt) : mp_t(0);
      ref::muladd(r, d, d);
      return r;
    };
    mp_t num(0), den(0);
    for (std::size_t i = 0; i < std::min(lo, t); ++i) {
      ref::muladd(num, w[i], T(t, i));
      ref::muladd(den, w[i], w[i]);
    }
    mp_t a(1);
    if (den > 0) a = num / den;  // least squares over the outside equations
    if (constrained || den == 0) {
      // in-range minimiser over alpha in [0, 1] of the constrained residual (alpha = 1 or the clipped least-squares
      // value when at least as good as the ternary-search point)
      mp_t best = den > 0 ? (a < 0 ? mp_t(0) : (a > 1 ? mp_t(1) : a)) : mp_t(1);
      const mp_t rb = resid(best, true);
      if (rb > 0) {  // ternary search (the residual is convex in alpha); 100 steps: interval (2/3)^100 ~ 2.5e-18
        mp_t x0(0), x1(1);
        for (int it = 0; it < 100; ++it) {
          const mp_t m1 = x0 + (x1 - x0) / 3, m2 = x1 - (x1 - x0) / 3;
          if (resid(m1, true) <= resid(m2, true)) x1 = m2;
          else x0 = m1;
        }
        const mp_t xt = (x0 + x1) / 2;
        if (resid(xt, true) < rb) best = xt;
      }
      a = best;
    }
    f.alpha[t] = a;
    MV wn(t + 1);
    for (std::size_t i = 0; i < t; ++i) {
      wn[i] = a * w[i];
      if (i >= lo) {
        mp_t gm = T(t, i) - wn[i];
        if (constrained) gm = clipg(gm);
        f.Gamma(t, i) = gm;
        wn[i] += gm;
      }
    }
    f.Gamma(t, t) = constrained ? clipg(T(t, t)) : T(t, t);
    wn[t] = f.Gamma(t, t);
    // range bookkeeping of the fitted gates
    bool oor = a < 0 || a > 1;
    for (std::size_t i = lo; i <= t; ++i) oor = oor || f.Gamma(t, i) < g_lo || (!g_hi_inf && f.Gamma(t, i) > g_hi);
    if (oor && ++f.out_of_range == 1) {
      f.first_oor = t + 1;
      f.first_oor_desc = "step t=" + std::to_string(t + 1) + ": alpha_t=" + fmt(to_d(a), 6);
      for (std::size_t i = lo; i <= t; ++i)
        if (f.Gamma(t, i) < g_lo || (!g_hi_inf && f.Gamma(t, i) > g_hi))
          f.first_oor_desc += ", Gamma(" + std::to_string(t + 1) + "," + std::to_string(i + 1) + ")=" + fmt(to_d(f.Gamma(t, i)), 6);
    }
    mp_t rn(0), tn(0), d;
    for (std::size_t i = 0; i <= t; ++i) {
      d = wn[i] - T(t, i);
      ref::muladd(rn, d, d);
      ref::muladd(tn, T(t, i), T(t, i));
    }
    const double rel = nan_inf(to_d(mp_t(sqrt(rn) / (tn > 0 ? sqrt(tn) : mp_t(1)))));
    if (rel > f.max_res || t == 0) {
      f.max_res = rel;
      f.worst_t = t + 1;
    }
    w = wn;
  }
  return f;
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::deeptf
