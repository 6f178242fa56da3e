// Paper A001 (test-time regression), §2 Eqs. (2)-(3) with their parallel / chunked forms: linear
// attention (recurrence vs printed sum vs closed form, and O(T) cost by exact multiply counting), feature-map
// (kernelised) linear attention over every concrete map, and the masked-matmul and chunked forms of both.
// Every verdict is computed from the references in reference/ instantiated with recall::mp_t (P-50 by
// default; a failing instance is re-evaluated at doubled digits before it is recorded). Instances are drawn
// from std::mt19937_64 seeded by splitmix64(cfg.seed ^ fnv1a(tag) ^ splitmix64(n)) (n = instance number),
// smallest sizes first; every witness names its sizes, generator and instance seed, with 1-based indices.
// Spec IDs: A001-LINATTN, A001-LINATTN-FEATUREMAP, A001-F01-LINATTN-PARALLEL, A001-F02-FEATUREMAP-PARALLEL.
#include "recall/proofs/ledger.hpp"
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/forms.hpp"
#include "recall/reference/linear_attention.hpp"
#include "claim_support.hpp"
#include "linear_attention_claims.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::linattn;

using ref::Matrix;
using ref::Vector;

// ---------------------------------------------------------------------------------------------
// A001-LINATTN (+ R-SCALE by exact multiply counting)
// ---------------------------------------------------------------------------------------------

// A scalar that counts multiplications (every multiply-add of the reference is one).
struct CountingScalar {
  double v = 0;
  static std::uint64_t& muls() { static thread_local std::uint64_t m = 0; return m; }
  CountingScalar() = default;
  CountingScalar(double x) : v(x) {}  // NOLINT(google-explicit-constructor)
  CountingScalar(int x) : v(x) {}     // NOLINT(google-explicit-constructor)
  friend CountingScalar operator*(const CountingScalar& a, const CountingScalar& b) { ++muls(); return CountingScalar(a.v * b.v); }
  friend CountingScalar operator+(const CountingScalar& a, const CountingScalar& b) { return CountingScalar(a.v + b.v); }
  friend CountingScalar operator-(const CountingScalar& a, const CountingScalar& b) { return CountingScalar(a.v - b.v); }
  CountingScalar& operator+=(const CountingScalar& b) { v += b.v; return *this; }
  CountingScalar& operator*=(const CountingScalar& b) { ++muls(); v *= b.v; return *this; }
  friend bool operator==(const CountingScalar& a, const CountingScalar& b) { return a.v == b.v; }
};

double student_t975(int df) {
  static const double tab[] = {0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                               2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086};
  if (df <= 0) return INFINITY;
  if (df <= 20) return tab[df];
  return 1.96 + 2.4 / df;
}
// OLS slope of y on x with its 95% CI
struct Slope { double b, lo, hi; };
Slope ols_slope(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n = x.size();
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) { mx += x[i]; my += y[i]; }
  mx /= n; my /= n;
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < n; ++i) { sxx += (x[i] - mx) * (x[i] - mx); sxy += (x[i] - mx) * (y[i] - my); }
  const double b = sxy / sxx, a = my - b * mx;
  double sse = 0;
  for (std::size_t i = 0; i < n; ++i) { const double e = y[i] - a - b * x[i]; sse += e * e; }
  const double se = n > 2 ? std::sqrt(sse / static_cast<double>(n - 2) / sxx) : INFINITY;
  const double h = student_t975(static_cast<int>(n) - 2) * se;
  return {b, b - h, b + h};
}

ClaimResult linattn_scale_part(const CheckConfig& cfg) {
  std::vector<double> lx, ly;
  std::vector<std::string> counts;
  const std::size_t dk = 4, dv = 3;
  const std::size_t Tmax = cfg.quick ? 1024 : 8192;
  for (std::size_t T = 16; T <= Tmax; T *= 2) {
    Gen g(instance_seed(cfg, "A001-LINATTN/scale", T));
    const MD Qd = g.gauss(T, dk), Kd = g.gauss(T, dk), Vd = g.gauss(T, dv);
    Matrix<CountingScalar> Q(T, dk), K(T, dk), V(T, dv);
    for (std::size_t i = 0; i < Q.a.size(); ++i) { Q.a[i] = Qd.a[i]; K.a[i] = Kd.a[i]; }
    for (std::size_t i = 0; i < V.a.size(); ++i) V.a[i] = Vd.a[i];
    CountingScalar::muls() = 0;
    auto r = ref::linear_attention(Q, K, V);
    (void)r;
    const std::uint64_t c = CountingScalar::muls();
    lx.push_back(std::log(static_cast<double>(T)));
    ly.push_back(std::log(static_cast<double>(c)));
    counts.push_back("T=" + std::to_string(T) + ":" + std::to_string(c));
  }
  const Slope sl = ols_slope(lx, ly);
  ClaimResult r;
  Evidence& e = r.evidence;
  e.statistic = "exponent of T in the multiply-add count of the recurrent form (OLS of log count on log T), 95% CI upper end";
  e.value = sl.hi;
  e.threshold = 1.05;
  e.instances = static_cast<int>(lx.size());
  e.sizes = "T = 16..." + std::to_string(Tmax) + " (doubling), dk=4, dv=3";
  e.seed = cfg.seed;
  e.extra.emplace_back("exponent", fmt(sl.b, 6) + " CI95 [" + fmt(sl.lo, 6) + ", " + fmt(sl.hi, 6) + "]");
  e.extra.emplace_back("multiply_counts", join(counts, " "));
  if (sl.hi <= 1.05) { r.verdict = Verdict::holds; r.reason = "exponent CI upper end <= e + 0.05 with e = 1 (O(T))"; }
  else if (sl.lo > 1.05) { r.verdict = Verdict::violated; r.reason = "exponent CI lower end > e + 0.05"; }
  else { r.verdict = Verdict::inconclusive; r.reason = "exponent CI straddles e + 0.05"; }
  return r;
}

}  // namespace

// A001-LINATTN (external linkage: also a component of A001-EQ01-LA-GD, a001_test_time_regression/one_gd_step.cpp)
ClaimResult a001_linattn(const CheckConfig& cfg) {
  const char* tag = "A001-LINATTN";
  IdentityCheck ic("max relative residual: recurrence (2) vs printed sum vs closed form R_t = V_t^T K_t (state, and R_t q_t at every t)",
                   cfg.digits);
  const auto dims = schedule(cfg, tag, 10, 18);
  int n = 0;
  for (const Dims& dm : dims) {
    auto [s, g, Q, K, V, ks] = g1_instance(cfg, tag, n, dm);
    ic.add("G1 " + dims_desc(dm) + " " + ks.desc + " inst_seed=" + hex(s), [&](unsigned d) {
      MpDigitsScope sc(d);
      const MM q = to_mp(Q), k = to_mp(K), v = to_mp(V);
      auto rec = ref::linear_attention(q, k, v);
      double r = rel_res(rec.O, ref::linear_attention_sum(q, k, v));
      r = std::max(r, rel_res(rec.state, ref::linear_attention_state_closed(k, v, dm.T)));
      std::vector<MM> Rs;
      for (std::size_t t = 1; t <= dm.T; ++t) Rs.push_back(ref::linear_attention_state_closed(k, v, t));
      r = std::max(r, rel_res(rec.O, readout_each(Rs, q)));
      return r;
    });
    ++n;
  }
  ClaimResult main = ic.result(cfg, "G1 " + sizes_desc(cfg) + "; " + seed_note(cfg, tag));
  return combine_parts({{"R-ID", main}, {"R-SCALE", linattn_scale_part(cfg)}});
}

namespace {

// ---------------------------------------------------------------------------------------------
// A001-LINATTN-FEATUREMAP (and, with the fast forms, A001-F02-FEATUREMAP-PARALLEL)
// ---------------------------------------------------------------------------------------------

ClaimResult featuremap_forms_check(const CheckConfig& cfg, const char* tag, bool fast_forms) {
  IdentityCheck ic(fast_forms ? "max relative residual: feature-map recurrence (3) vs tril(phi(Q)phi(K)^T)V vs chunked with state passing"
                              : "max relative residual: recurrence (3) vs printed sum vs closed form M_t = V_t^T Phi_t (state, and M_t phi(q_t) at every t)",
                   cfg.digits);
  const auto chunks = chunk_sizes(cfg);
  std::map<std::string, double> per_map;
  const auto dims = schedule(cfg, tag, 5, 8, cfg.quick ? 3 : 8);
  const std::size_t nmaps = feature_map_specs(1, 1, 0, false).size();
  int n = 0;
  for (const Dims& dm : dims) {
    for (std::size_t mi = 0; mi < nmaps; ++mi) {
      const std::uint64_t s = instance_seed(cfg, tag, static_cast<std::uint64_t>(n));
      Gen g(s);
      const MapSpec ms = feature_map_specs(dm.T, dm.dk, splitmix64(s), false)[mi];
      if (dm.dk > ms.dk_cap) { ++n; continue; }
      MD Q = g.gauss(dm.T, dm.dk), K = g.gauss(dm.T, dm.dk), V = g.gauss(dm.T, dm.dv);
      const KeyScale ks = key_variant(g, K);
      const bool with_s0 = fast_forms && (n % 3 == 2);
      MD S0 = g.gauss(dm.dv, ref::feature_dim(ms.f, dm.dk));
      const std::string desc = "phi=" + ms.name + " G1 " + dims_desc(dm) + " " + ks.desc + (with_s0 ? " S0=N(0,1)" : "") +
                               " inst_seed=" + hex(s) + (ms.f.m ? " (Omega from FeatureMap::random seed splitmix64(inst_seed))" : "");
      ic.add(desc, [&](unsigned d) {
        MpDigitsScope sc(d);
        const MM pq = ref::apply_feature_map(ms.f, to_mp(Q)), pk = ref::apply_feature_map(ms.f, to_mp(K)), v = to_mp(V);
        double r = 0;
        if (fast_forms) {
          MM s0 = to_mp(S0);
          r = ungated_forms_residual(pq, pk, v, with_s0 ? &s0 : nullptr, chunks);
        } else {
          auto rec = ref::linear_attention(pq, pk, v);
          r = rel_res(rec.O, ref::linear_attention_sum(pq, pk, v));
          r = std::max(r, rel_res(rec.state, ref::linear_attention_state_closed(pk, v, dm.T)));
          std::vector<MM> Ms;
          for (std::size_t t = 1; t <= dm.T; ++t) Ms.push_back(ref::linear_attention_state_closed(pk, v, t));
          r = std::max(r, rel_res(rec.O, readout_each(Ms, pq)));
        }
        if (d == cfg.digits) per_map[ms.name] = std::max(per_map[ms.name], r);
        return r;
      });
      ++n;
    }
  }
  ClaimResult res = ic.result(cfg, "G1 " + sizes_desc(cfg, cfg.quick ? 3 : 8) + " (degree-2 maps dk <= 8) x every map {identity, poly2, "
                                   "poly2_affine, exp_trunc M=2, rff m=8, elu1, relu, dpfp nu=1,2, cosformer, taylor2, prf m=8}" +
                                   (fast_forms ? ", C in {" + join(chunks) + "}, one third with S0" : std::string()) + "; " + seed_note(cfg, tag));
  for (const auto& [k, v] : per_map) res.evidence.extra.emplace_back("residual " + k, fmt(v));
  return res;
}
ClaimResult a001_linattn_featuremap(const CheckConfig& cfg) { return featuremap_forms_check(cfg, "A001-LINATTN-FEATUREMAP", false); }

// ---------------------------------------------------------------------------------------------
// A001-F01-LINATTN-PARALLEL
// ---------------------------------------------------------------------------------------------

ClaimResult a001_f01_linattn_parallel(const CheckConfig& cfg) {
  const char* tag = "A001-F01-LINATTN-PARALLEL";
  const auto chunks = chunk_sizes(cfg);
  IdentityCheck ic("max relative residual: recurrence (2) vs (QK^T . L)V vs chunked with incoming state (outputs and states)", cfg.digits);
  const auto dims = schedule(cfg, tag, 12, 18);
  int n = 0;
  for (const Dims& dm : dims) {
    const std::uint64_t s = instance_seed(cfg, tag, static_cast<std::uint64_t>(n));
    Gen g(s);
    MD Q = g.gauss(dm.T, dm.dk), K = g.gauss(dm.T, dm.dk), V = g.gauss(dm.T, dm.dv), S0 = g.gauss(dm.dv, dm.dk);
    const KeyScale ks = key_variant(g, K);
    const bool with_s0 = (n % 3 == 2);
    ic.add("G1 " + dims_desc(dm) + " " + ks.desc + (with_s0 ? " S0=N(0,1)" : " S0=0") + " inst_seed=" + hex(s), [&](unsigned d) {
      MpDigitsScope sc(d);
      const MM s0 = to_mp(S0);
      return ungated_forms_residual(to_mp(Q), to_mp(K), to_mp(V), with_s0 ? &s0 : nullptr, chunks);
    });
    ++n;
  }
  return ic.result(cfg, "G1 " + sizes_desc(cfg) + ", C in {" + join(chunks) + "} (T not a multiple of C included), one third with S0; " +
                            seed_note(cfg, tag));
}

// ---------------------------------------------------------------------------------------------
// A001-F02-FEATUREMAP-PARALLEL (the feature-map forms of A001-LINATTN-FEATUREMAP, with the fast forms)
// ---------------------------------------------------------------------------------------------

ClaimResult a001_f02_featuremap_parallel(const CheckConfig& cfg) { return featuremap_forms_check(cfg, "A001-F02-FEATUREMAP-PARALLEL", true); }

}  // namespace

void register_a001_linear_attention(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A001-LINATTN", "Linear attention (unnormalised)", identity, true, a001_linattn);
  add("A001-LINATTN-FEATUREMAP", "Feature-map (kernelised) linear attention", identity, true, a001_linattn_featuremap);
  add("A001-F01-LINATTN-PARALLEL", "Linear attention: masked matmul and chunked forms", identity, true, a001_f01_linattn_parallel);
  add("A001-F02-FEATUREMAP-PARALLEL", "Feature-map linear attention: parallel and chunked", identity, true, a001_f02_featuremap_parallel);
}

}  // namespace recall
