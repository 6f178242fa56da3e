// Shared helpers of the A002 Omega-rule claims (proofs_numeric/a002_atlas/omega_rule.cpp, omega_chunk.cpp,
// omega_global.cpp): the random instance generator of the spec's "Default random instances" (linear memory on
// feature rows phi(k)), its conversion to the MP scalar, a fixed-threshold check with doubled-digit confirmation
// (for the spec's reading thresholds 1e-10 / 1e-8 / 1e-12), and a negative-control tally that keeps a check that
// cannot fail from reporting `holds`. Internal linkage, like claim_support.hpp.
#pragma once

#include "claim_support.hpp"
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/omega.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace recall::claim_support::omega {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

using DIn = ref::OmegaInputs<double>;
using MIn = ref::OmegaInputs<mp_t>;

std::string hex(std::uint64_t x) {
  char b[19];
  std::snprintf(b, sizeof b, "0x%016llx", static_cast<unsigned long long>(x));
  return b;
}

// feature map of an instance: 0 identity, 1 Kronecker square x^{⊗2} (A002-POLY-MAP-KRON), 2 [1; sqrt2 x; x⊗x]
// (degree-2 polynomial kernel with a constant feature: phi(0) != 0)
enum class Phi { id, kron2, affine2 };
const char* phi_name(Phi p) {
  switch (p) {
    case Phi::id: return "phi=id";
    case Phi::kron2: return "phi=kron2";
    case Phi::affine2: return "phi=poly2_affine";
  }
  return "?";
}
ref::FeatureMap phi_map(Phi p) {
  ref::FeatureMap f;
  f.kind = p == Phi::id ? ref::FeatureMapKind::identity : (p == Phi::kron2 ? ref::FeatureMapKind::poly : ref::FeatureMapKind::poly2_affine);
  f.order = 2;
  return f;
}
// gate families: random (spec defaults), boundary (alpha, gamma in {0, 1}), zeros (random with some exact zero alphas)
enum class GateKind { random, boundary, zeros, none };
const char* gate_name(GateKind g) {
  switch (g) {
    case GateKind::random: return "gates=random";
    case GateKind::boundary: return "gates={0,1}";
    case GateKind::zeros: return "gates=random+zero-alpha";
    case GateKind::none: return "gates=1 (alpha=gamma=1)";
  }
  return "?";
}

struct Case {
  std::size_t L = 4, dk = 2, dv = 2, c = 2;
  Phi phi = Phi::id;
  GateKind gates = GateKind::random;
  Keys keys = Keys::sphere;
  double eta_scale = 1.0;  // multiplies the default eta draw
  bool decay = true;       // false: alpha = 1 (log_alpha empty)
  bool gamma = true;       // false: Gamma empty (all window gates 1)
};
std::string case_desc(const Case& k) {
  return "L=" + std::to_string(k.L) + " dk=" + std::to_string(k.dk) + " dv=" + std::to_string(k.dv) + " c=" + std::to_string(k.c) + " " +
         phi_name(k.phi) + " keys=" + keys_name(k.keys) + " " + (k.decay || k.gamma ? gate_name(k.gates) : "alpha=gamma=1");
}

struct Inst {
  DIn in;
  std::uint64_t seed = 0;
  std::string desc;
};
// One instance (spec "Default random instances"): keys/queries by key_rows (unit norm by default), values N(0,1),
// alpha ~ U[0.5,1], gamma ~ U[0,1], eta ~ U[0.01,0.5] / max(1, c max_i ||phi_i||^2) (times eta_scale).
Inst make_inst(const Case& k, std::uint64_t seed) {
  Rng g(seed);
  Inst r;
  r.seed = seed;
  const DM K = key_rows(g, k.keys, k.L, k.dk), Q = key_rows(g, Keys::sphere, k.L, k.dk);
  const ref::FeatureMap f = phi_map(k.phi);
  r.in.PhiK = ref::apply_feature_map(f, K);
  r.in.PhiQ = ref::apply_feature_map(f, Q);
  r.in.V = gauss(g, k.L, k.dv);
  r.in.c = k.c;
  double mx = 0;
  for (std::size_t i = 0; i < k.L; ++i) mx = std::max(mx, ref::dot(r.in.PhiK.row(i), r.in.PhiK.row(i), r.in.PhiK.cols));
  const double den = std::max(1.0, static_cast<double>(k.c) * mx);
  const std::vector<double> eu = uniform_vec(g, k.L, 0.01, 0.5);
  r.in.eta.resize(k.L);
  for (std::size_t t = 0; t < k.L; ++t) r.in.eta[t] = k.eta_scale * eu[t] / den;
  std::uniform_int_distribution<int> bit(0, 1);
  std::uniform_int_distribution<int> z(0, 3);
  if (k.decay) {
    r.in.log_alpha.resize(k.L);
    const std::vector<double> au = uniform_vec(g, k.L, 0.5, 1.0);
    for (std::size_t t = 0; t < k.L; ++t) {
      double a = au[t];
      if (k.gates == GateKind::boundary) a = bit(g);
      if (k.gates == GateKind::zeros && z(g) == 0) a = 0;
      if (k.gates == GateKind::none) a = 1;
      r.in.log_alpha[t] = a == 0 ? -INFINITY : std::log(a);
    }
  }
  if (k.gamma) {
    r.in.Gamma = DM(k.L, k.L);
    for (std::size_t t = 0; t < k.L; ++t)
      for (std::size_t i = ref::omega_window_begin(t, k.c); i <= t; ++i) {
        double v = uniform_vec(g, 1)[0];
        if (k.gates == GateKind::boundary) v = bit(g);
        if (k.gates == GateKind::none) v = 1;
        r.in.Gamma(t, i) = v;
      }
  }
  r.desc = case_desc(k) + " inst_seed=" + hex(seed);
  return r;
}

// The default sweep of a claim, smallest L first: per L, `per_L` cases cycling the window c over {1, 2, 3, 8, L},
// d_k, d_v over {1, 2, 3}, the feature map (id mostly, kron2 and poly2_affine), the gate family (random, {0,1},
// zero alphas) and the key family (sphere, repeated, near-parallel, a zero key, Gaussian). quick: L in {1, 2, 3, 5, 7};
// full adds 12, 16, 33.
std::vector<Case> sweep(bool quick, int per_L = 3) {
  std::vector<std::size_t> Ls = {1, 2, 3, 5, 7};
  if (!quick) {
    Ls.push_back(12);
    Ls.push_back(16);
    Ls.push_back(33);
    per_L += 2;
  }
  const Keys keys[] = {Keys::sphere, Keys::sphere, Keys::repeated, Keys::nearpar, Keys::zero, Keys::gauss};
  const GateKind gates[] = {GateKind::random, GateKind::boundary, GateKind::zeros};
  std::vector<Case> out;
  int n = 0;
  for (std::size_t L : Ls)
    for (int j = 0; j < per_L; ++j, ++n) {
      Case k;
      k.L = L;
      const std::size_t cs[] = {1, 2, 3, 8, L};
      k.c = cs[(j + n) % 5];
      k.dk = 1 + static_cast<std::size_t>(n % 3);
      k.dv = 1 + static_cast<std::size_t>((n + 1) % 3);
      k.phi = n % 4 == 3 ? Phi::kron2 : (n % 5 == 4 ? Phi::affine2 : Phi::id);
      k.gates = gates[n % 3];
      k.keys = keys[n % 6];
      out.push_back(k);
    }
  return out;
}

template <class S> ref::OmegaInputs<S> cast_in(const DIn& d) {
  ref::OmegaInputs<S> m;
  m.PhiQ = ref::cast<S>(d.PhiQ);
  m.PhiK = ref::cast<S>(d.PhiK);
  m.V = ref::cast<S>(d.V);
  m.log_alpha.resize(d.log_alpha.size());
  for (std::size_t t = 0; t < d.log_alpha.size(); ++t)
    m.log_alpha[t] = std::isinf(d.log_alpha[t]) ? ref::neg_inf<S>() : S(d.log_alpha[t]);
  m.eta = ref::cast<S>(d.eta);
  if (!d.Gamma.empty()) m.Gamma = ref::cast<S>(d.Gamma);
  m.c = d.c;
  if (!d.M0.empty()) m.M0 = ref::cast<S>(d.M0);
  return m;
}

// ---- small shared helpers of the three claim files --------------------------------------------------------

// Frobenius inner product
mp_t inner(const MM& A, const MM& B) {
  mp_t s(0);
  for (std::size_t i = 0; i < A.a.size(); ++i) ref::muladd(s, A.a[i], B.a[i]);
  return s;
}
// an N(0,1) r x c matrix (std::normal_distribution on mt19937_64(seed)) in mp
MM gauss_mp(std::uint64_t seed, std::size_t r, std::size_t c) {
  Rng g(seed);
  return to_mp(gauss(g, r, c));
}
std::string seed_note(const CheckConfig& cfg, const char* tag) {
  return "seed " + std::to_string(cfg.seed) + ", stream tag_seed(seed, \"" + std::string(tag) + "\")";
}
std::string sweep_desc(bool quick) {
  return std::string("sweep L in {1,2,3,5,7") + (quick ? "" : ",12,16,33") +
         "}, c cycling {1,2,3,8,L}, d_k, d_v in {1,2,3}, phi in {id, kron2, poly2_affine}, gates {random, {0,1}, zero alphas}, "
         "keys {sphere, repeated, near-parallel, zero, gauss}";
}
// worst row of the outputs and the final state of two runs into w (form names the comparison); returns w.r
double rows_state(const ref::OmegaResult<mp_t>& a, const ref::OmegaResult<mp_t>& b, Worst& w, const std::string& form) {
  w.rows(a.Y, b.Y, form + " Y");
  w.upd(matrel(a.state, b.state), form + " final state");
  return w.r;
}

// ---- a fixed-threshold check with doubled-digit confirmation ------------------------------------------------

// holds iff statistic <= thr on every instance (NaN fails); a failure is re-evaluated at doubled digits and
// recorded as the witness only when it persists (decide_doubled_digits of ledger.hpp).
class FixedCheck {
 public:
  FixedCheck(std::string statistic, unsigned digits, double thr) : stat_(std::move(statistic)), digits_(digits), thr_(thr) {}
  bool add(const std::string& desc, const std::function<double(unsigned)>& fn) {
    if (t_.failed) return false;
    double r = fn(digits_);
    if (std::isnan(r)) r = INFINITY;
    ++t_.n;
    if (r > t_.worst || t_.worst_desc.empty()) {
      t_.worst = r;
      t_.worst_desc = desc;
    }
    if (r <= thr_) return true;
    double r2 = fn(2 * digits_);
    if (std::isnan(r2)) r2 = INFINITY;
    if (r2 > thr_) {
      t_.failed = true;
      t_.witness = desc;
      t_.witness_value = r;
      t_.witness_value_2x = fmt(r2, 6);
      return false;
    }
    if (!t_.unconfirmed) {
      t_.unconfirmed = true;
      t_.witness = desc;
      t_.witness_value = r;
      t_.witness_value_2x = fmt(r2, 6);
    }
    return true;
  }
  ClaimResult result(const CheckConfig& cfg, const std::string& sizes) const {
    ClaimResult r;
    r.evidence.statistic = stat_;
    r.evidence.threshold = thr_;
    r.evidence.instances = t_.n;
    r.evidence.sizes = sizes;
    r.evidence.digits = digits_;
    r.evidence.seed = cfg.seed;
    decide_doubled_digits(t_, digits_, "value_at_doubled_digits", "all " + std::to_string(t_.n) + " instances within the threshold", r);
    return r;
  }
  int instances() const { return t_.n; }
  double worst() const { return t_.worst; }

 private:
  std::string stat_;
  unsigned digits_;
  double thr_;
  DoubledDigitsTally t_;
};

// ---- negative controls --------------------------------------------------------------------------------------

// A plausible wrong form evaluated on the same instances must differ from the reference by more than thr; a check
// whose controls are mostly missed cannot discriminate and is downgraded from holds to inconclusive.
struct Controls {
  Controls(std::string w, double t) : what(std::move(w)), thr(t) {}
  std::string what;
  double thr = 1e-8;
  int n = 0, detected = 0;
  double smallest = INFINITY;
  std::string miss;
  void add(double diff, const std::string& desc) {
    ++n;
    if (std::isnan(diff)) diff = INFINITY;
    smallest = std::min(smallest, diff);
    if (diff > thr) ++detected;
    else if (miss.empty()) miss = desc;
  }
};
void apply_controls(ClaimResult& r, const Controls& c) {
  r.evidence.extra.emplace_back("negative control: " + c.what, std::to_string(c.detected) + " of " + std::to_string(c.n) +
                                                                   " detected (difference > " + fmt(c.thr) + "; smallest difference " +
                                                                   fmt(c.smallest) + (c.miss.empty() ? "" : "; first miss: " + c.miss) + ")");
  if (r.verdict == Verdict::holds && (c.n == 0 || 2 * c.detected < c.n)) {
    r.verdict = Verdict::inconclusive;
    r.reason = "the identity held, but the negative control (" + c.what + ") was detected on only " + std::to_string(c.detected) + " of " +
               std::to_string(c.n) + " instances: the instances do not discriminate";
  }
}

// relative difference of two double matrices ||A - B||_F / max(1, ||A||, ||B||)
double drel(const DM& A, const DM& B) { return rel_res(A, B); }

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::omega
