// Exact-arithmetic bookkeeping shared by the claims of A000 §2.1.2-2.1.4 (ffn_memories.cpp,
// sparse_attention_memories.cpp): integer instance generators for boost::multiprecision::cpp_rational,
// exact mismatch counts, and a tally that decides "holds" only when every instance is exact AND the
// negative controls (plausible wrong forms on the same instances) were mostly detected, so a check that
// cannot fail is never reported as holding. Internal linkage, like claim_support.hpp.
#pragma once

#include "claim_support.hpp"

#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace recall::claim_support::exact {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

using Rat = boost::multiprecision::cpp_rational;
using MR = ref::Matrix<Rat>;
using VR = ref::Vector<Rat>;

struct IntGen {
  std::mt19937_64 g;
  explicit IntGen(std::uint64_t s) : g(s) {}
  int i(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); }
  MR mat(std::size_t r, std::size_t c, int lo = -4, int hi = 4) {
    MR m(r, c);
    for (auto& x : m.a) x = i(lo, hi);
    return m;
  }
  VR vec(std::size_t n, int lo = -4, int hi = 4) {
    VR v(n);
    for (auto& x : v) x = i(lo, hi);
    return v;
  }
};

template <class S> std::size_t mismatches(const ref::Matrix<S>& a, const ref::Matrix<S>& b) {
  if (a.rows != b.rows || a.cols != b.cols) return a.a.size() + b.a.size() + 1;
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.a.size(); ++i) n += a.a[i] != b.a[i];
  return n;
}
template <class S> std::size_t mismatches(const ref::Vector<S>& a, const ref::Vector<S>& b) {
  if (a.size() != b.size()) return a.size() + b.size() + 1;
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) n += a[i] != b[i];
  return n;
}

// Tally of an exact property over instances (sizes ascending), with negative controls: a wrong form evaluated
// on the same instances. Integer instances can hide a wrong form by coincidence (a ReLU weight of 0, a zero
// value row), so a control missed on one instance is recorded (the first miss is named) and "holds" needs
// at least half of the controls detected: the instances demonstrably separate the wrong form.
struct ExactTally {
  std::string statistic;
  int instances = 0, controls = 0, controls_detected = 0;
  std::size_t worst = 0;
  std::string witness, control_miss;
  void add(std::size_t bad, const std::string& desc) {
    ++instances;
    if (bad > 0 && witness.empty()) witness = desc + ": " + std::to_string(bad) + " entries differ";
    worst = std::max(worst, bad);
  }
  void control(std::size_t bad, const std::string& desc) {
    ++controls;
    if (bad > 0) ++controls_detected;
    else if (control_miss.empty()) control_miss = desc;
  }
  ClaimResult result(const CheckConfig& cfg, const std::string& sizes, const std::string& holds_reason) const {
    ClaimResult r;
    auto& e = r.evidence;
    e.seed = cfg.seed;
    e.digits = 0;
    e.statistic = statistic + " (exact rational arithmetic)";
    e.value = static_cast<double>(worst);
    e.threshold = 0;
    e.instances = instances;
    e.sizes = sizes;
    e.extra.emplace_back("negative controls detected", std::to_string(controls_detected) + " of " + std::to_string(controls));
    if (!witness.empty()) {
      r.verdict = Verdict::violated;
      e.witness = witness;
      r.reason = "exact mismatch: " + witness;
    } else if (controls == 0 || 2 * controls_detected < controls) {
      // a wrong form that the instances mostly cannot tell apart: the check could not have failed
      r.verdict = Verdict::inconclusive;
      e.witness = control_miss;
      r.reason = "every instance agrees, but only " + std::to_string(controls_detected) + " of " + std::to_string(controls) +
                 " wrong forms were detected (e.g. " + control_miss + "): the instances cannot tell a wrong form apart";
    } else {
      r.verdict = Verdict::holds;
      r.reason = holds_reason + " (" + std::to_string(instances) + " instances exact; " + std::to_string(controls) + " wrong forms detected)";
    }
    return r;
  }
};

MR to_rat(const DM& m) {
  MR r(m.rows, m.cols);
  for (std::size_t i = 0; i < m.a.size(); ++i) r.a[i] = Rat(m.a[i]);  // doubles are dyadic rationals: exact
  return r;
}

// relative difference of two vectors against a scale (max |a - b| / scale)
template <class S> double rel_to(const ref::Vector<S>& a, const ref::Vector<S>& b, const S& scale) {
  S m(0);
  using std::abs;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, S(abs(S(a[i] - b[i]))));
  return scale > 0 ? nan_inf(static_cast<double>(m / scale)) : (m == 0 ? 0.0 : INFINITY);
}
double rel_to(const std::vector<double>& a, const std::vector<double>& b, double scale) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return scale > 0 ? nan_inf(m / scale) : (m == 0 ? 0.0 : INFINITY);
}
// sum_i |W_V|_i |kappa_i| summed over the output entries' terms: the scale of the read
template <class S> S read_scale(const ref::Matrix<S>& WV, const ref::Vector<S>& w) {
  using std::abs;
  S s(0);
  for (std::size_t i = 0; i < WV.rows; ++i)
    for (std::size_t c = 0; c < WV.cols; ++c) s += abs(S(WV(i, c) * w[i]));
  return s;
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::exact
