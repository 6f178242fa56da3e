// Shared helpers of the A002 Atlas / Newton-Schulz claims (proofs_numeric/a002_atlas/newton_schulz.cpp,
// atlas_memory.cpp, atlas_parallel.cpp): Atlas instance generators (default random instances of spec A002
// Conventions), conversion to reference inputs in any scalar, trajectory residuals, a threshold check confirmed at
// doubled digits, fractions with a witness, and the "not covered here" part of the deep-memory readings.
// Internal linkage, like claim_support.hpp.
#pragma once

#include "claim_support.hpp"
#include "linear_attention_claims.hpp"
#include "recall/reference/atlas.hpp"
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/newton_schulz.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace recall::claim_support::atlas {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

using linattn::hex;  // instance seeds in witnesses: 0x + lowercase hex

// One Atlas instance in double (converted exactly to mp_t): keys/queries on the unit sphere (or a feature map of
// them), values N(0,1), alpha ~ U[0.5,1], theta ~ U[0.5,0.99], gamma ~ U[0,1] on the window, eta ~ U[0.01,0.5] /
// max(1, c max ||phi||^2), optional random initial state (M0, S0).
struct AtlasInst {
  std::uint64_t seed = 0;
  std::size_t L = 0, dk = 0, dv = 0, c = 1;
  DM K, Q, V, Gamma, M0, S0;
  std::vector<double> alpha, theta, eta;
  ref::FeatureMap fmap;
  std::string desc;
};
struct InstOpts {
  bool random_state = false;  // draw M0, S0 ~ N(0, 1/D)
  double theta_lo = 0.5, theta_hi = 0.99;
  double alpha_lo = 0.5, alpha_hi = 1.0;
  double eta_scale = 1.0;     // multiplies the default eta draw
  bool theta_zero = false, alpha_one = false;
  ref::FeatureMap fmap{};     // identity by default
  std::string fmap_desc = "phi=id";
};
std::size_t feat_dim(const AtlasInst& x) { return ref::feature_dim(x.fmap, x.dk); }
AtlasInst make_inst(std::uint64_t seed, std::size_t L, std::size_t dk, std::size_t dv, std::size_t c, const InstOpts& o = {}) {
  AtlasInst x;
  x.seed = seed;
  x.L = L;
  x.dk = dk;
  x.dv = dv;
  x.c = c;
  x.fmap = o.fmap;
  Gauss g(seed);
  x.K = gauss_matrix(L, dk, g);
  x.Q = gauss_matrix(L, dk, g);
  for (std::size_t i = 0; i < L; ++i) {
    normalize_row(x.K, i);
    normalize_row(x.Q, i);
  }
  x.V = gauss_matrix(L, dv, g);
  x.alpha.resize(L);
  x.theta.resize(L);
  x.eta.resize(L);
  for (std::size_t t = 0; t < L; ++t) {
    x.alpha[t] = o.alpha_one ? 1.0 : o.alpha_lo + (o.alpha_hi - o.alpha_lo) * g.uniform();
    x.theta[t] = o.theta_zero ? 0.0 : o.theta_lo + (o.theta_hi - o.theta_lo) * g.uniform();
  }
  x.Gamma = DM(L, L);
  for (std::size_t t = 0; t < L; ++t)
    for (std::size_t i = (t + 1 >= c ? t + 1 - c : 0); i <= t; ++i) x.Gamma(t, i) = g.uniform();
  const DM PhiK = ref::apply_feature_map(x.fmap, x.K);
  double mx = 0;
  for (std::size_t i = 0; i < L; ++i) {
    double s = 0;
    for (std::size_t j = 0; j < PhiK.cols; ++j) s += PhiK(i, j) * PhiK(i, j);
    mx = std::max(mx, s);
  }
  const double den = std::max(1.0, static_cast<double>(c) * mx);
  for (std::size_t t = 0; t < L; ++t) x.eta[t] = o.eta_scale * (0.01 + 0.49 * g.uniform()) / den;
  const std::size_t D = PhiK.cols;
  if (o.random_state) {
    x.M0 = gauss_matrix(dv, D, g, 1.0 / std::sqrt(static_cast<double>(D)));
    x.S0 = gauss_matrix(dv, D, g, 1.0 / std::sqrt(static_cast<double>(D)));
  }
  x.desc = "L=" + std::to_string(L) + " d_k=" + std::to_string(dk) + " d_v=" + std::to_string(dv) + " D=" + std::to_string(D) +
           " c=" + std::to_string(c) + " " + o.fmap_desc + (o.random_state ? " random M0,S0" : "") +
           (o.theta_zero ? " theta=0" : "") + (o.alpha_one ? " alpha=1" : "") + " inst_seed=" + hex(seed);
  return x;
}
template <class S> ref::AtlasInputs<S> to_inputs(const AtlasInst& x) {
  ref::AtlasInputs<S> in;
  const ref::Matrix<S> K = ref::cast<S>(x.K), Q = ref::cast<S>(x.Q);
  in.PhiK = ref::apply_feature_map(x.fmap, K);
  in.PhiQ = ref::apply_feature_map(x.fmap, Q);
  in.V = ref::cast<S>(x.V);
  in.alpha = ref::cast<S>(x.alpha);
  in.theta = ref::cast<S>(x.theta);
  in.eta = ref::cast<S>(x.eta);
  in.Gamma = ref::cast<S>(x.Gamma);
  in.c = x.c;
  if (!x.M0.empty()) in.M0 = ref::cast<S>(x.M0);
  if (!x.S0.empty()) in.S0 = ref::cast<S>(x.S0);
  return in;
}

// max over tokens of the relative output residual and over t of the relative state residual (1-based t in *where)
template <class S> double traj_res(const ref::AtlasResult<S>& A, const ref::AtlasResult<S>& B, std::string* where = nullptr) {
  double worst = 0;
  std::string w;
  for (std::size_t t = 0; t < A.Y.rows; ++t) {
    const ref::Matrix<S> a = as_row(row_vec(A.Y, t)), b = as_row(row_vec(B.Y, t));
    const double r = nan_inf(rel_res(a, b));
    if (r > worst || w.empty()) {
      worst = r;
      w = "y_" + std::to_string(t + 1);
    }
  }
  for (std::size_t t = 1; t < A.M.size() && t < B.M.size(); ++t) {
    const double r = nan_inf(rel_res(A.M[t], B.M[t]));
    if (r > worst) {
      worst = r;
      w = "M_" + std::to_string(t);
    }
  }
  if (A.M.size() != B.M.size()) worst = INFINITY;
  if (where) *where = w;
  return worst;
}

// A threshold decision evaluated at `digits`, every failure re-evaluated at doubled digits (the shared rule of
// DoubledDigitsTally). fail(value) says whether a value fails; value(d, where) evaluates an instance.
class ThresholdCheck {
 public:
  ThresholdCheck(std::string statistic, unsigned digits, double threshold, bool fail_above = true)
      : stat_(std::move(statistic)), digits_(digits), thr_(threshold), above_(fail_above) {}
  bool fails(double v) const { return above_ ? !(v <= thr_) : !(v >= thr_); }
  // returns false once a confirmed failure is recorded
  bool add(const std::string& desc, const std::function<double(unsigned, std::string&)>& value) {
    if (t_.failed) return false;
    std::string where;
    const double v = value(digits_, where);
    ++t_.n;
    const std::string d = desc + (where.empty() ? "" : " [" + where + "]");
    const double score = above_ ? v : -v;
    if (t_.worst_desc.empty() || score > (above_ ? t_.worst : -t_.worst)) {
      t_.worst = v;
      t_.worst_desc = d;
    }
    if (fails(v)) {
      std::string w2;
      const double v2 = value(2 * digits_, w2);
      if (fails(v2)) {
        t_.failed = true;
        t_.witness = d;
        t_.witness_value = v;
        t_.witness_value_2x = fmt(v2, 6);
        return false;
      }
      if (!t_.unconfirmed) {
        t_.unconfirmed = true;
        t_.witness = d;
        t_.witness_value = v;
        t_.witness_value_2x = fmt(v2, 6);
      }
    }
    return true;
  }
  ClaimResult result(const CheckConfig& cfg, const std::string& sizes, const std::string& holds_reason = "") const {
    ClaimResult r;
    auto& e = r.evidence;
    e.statistic = stat_;
    e.threshold = thr_;
    e.instances = t_.n;
    e.sizes = sizes;
    e.digits = digits_;
    e.seed = cfg.seed;
    decide_doubled_digits(t_, digits_, "value_at_doubled_digits",
                          holds_reason.empty() ? "all " + std::to_string(t_.n) + " instances within the threshold" : holds_reason, r);
    return r;
  }
  int instances() const { return t_.n; }

 private:
  std::string stat_;
  unsigned digits_;
  double thr_;
  bool above_;
  DoubledDigitsTally t_;
};

// The part of a claim that needs a deep (MLP) memory reading, which this helper does not implement.
ClaimResult mlp_not_covered(const std::string& what) {
  ClaimResult r;
  r.verdict = Verdict::inconclusive;
  r.reason = "deep (2-layer MLP) memory reading not run: " + what +
             " needs the MLP memory of A002-MEMORY-MLP, which the linear-memory references of atlas.hpp do not implement";
  r.evidence.statistic = "deep-memory part";
  r.evidence.sizes = "not run";
  return r;
}

// Negative controls: a wrong form on the same instances must be detected (value above the threshold) on at least
// half of the tries, else the check could not have failed and the claim is inconclusive.
struct Controls {
  int tried = 0, detected = 0;
  std::string miss;
  void add(bool det, const std::string& desc) {
    ++tried;
    if (det) ++detected;
    else if (miss.empty()) miss = desc;
  }
  void apply(ClaimResult& r, const std::string& what) const {
    r.evidence.extra.emplace_back("negative controls (" + what + ") detected", std::to_string(detected) + " of " + std::to_string(tried));
    if (r.verdict == Verdict::holds && (tried == 0 || 2 * detected < tried)) {
      r.verdict = Verdict::inconclusive;
      r.reason = "every instance agrees, but only " + std::to_string(detected) + " of " + std::to_string(tried) +
                 " wrong forms were detected (e.g. " + miss + "): the check could not have failed";
    }
  }
};

// orthonormal rows/cols: a random m x n matrix with orthonormal rows (m <= n) or columns (m > n), by Gram-Schmidt
DM random_semi_orthogonal(Gauss& g, std::size_t m, std::size_t n) {
  const bool tall = m > n;
  const std::size_t r = tall ? n : m, c = tall ? m : n;
  DM X = gauss_matrix(r, c, g);
  for (std::size_t i = 0; i < r; ++i) {
    for (int pass = 0; pass < 2; ++pass)
      for (std::size_t p = 0; p < i; ++p) {
        double s = 0;
        for (std::size_t j = 0; j < c; ++j) s += X(i, j) * X(p, j);
        for (std::size_t j = 0; j < c; ++j) X(i, j) -= s * X(p, j);
      }
    normalize_row(X, i);
  }
  return tall ? ref::transpose(X) : X;
}
// U diag(sig) V^T with random orthonormal U (m x r), V (n x r), r = sig.size() <= min(m, n)
DM with_spectrum(Gauss& g, std::size_t m, std::size_t n, const std::vector<double>& sig) {
  const std::size_t r = std::min(m, n);
  const DM U = random_semi_orthogonal(g, m, r), V = random_semi_orthogonal(g, n, r);
  DM A(m, n);
  for (std::size_t k = 0; k < sig.size() && k < r; ++k)
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) A(i, j) += U(i, k) * sig[k] * V(j, k);
  return A;
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::atlas
