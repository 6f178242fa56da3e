#include "recall/properties/budget.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace recall {
namespace {

mp_t max_abs(const MpTensor& t) {
  mp_t m(0);
  for (const mp_t& x : t.data) {
    mp_t a = abs(x);
    if (a > m) m = a;
  }
  return m;
}

// digits on which two oracle evaluations agree, relative to the first one's scale
double agreement_digits(const MpTensorMap& a, const MpTensorMap& b, unsigned cap) {
  double worst = static_cast<double>(cap);
  for (const auto& [name, ta] : a) {
    const MpTensor& tb = b.at(name);
    mp_t scale = max_abs(ta);
    if (scale == 0) scale = 1;
    mp_t diff(0);
    for (std::size_t i = 0; i < ta.data.size(); ++i) {
      mp_t d = abs(mp_t(ta.data[i] - tb.data[i]));
      if (d > diff) diff = d;
    }
    if (diff == 0) continue;
    const double digits = -static_cast<double>(log10(mp_t(diff / scale)));
    worst = std::min(worst, digits);
  }
  return worst;
}

}  // namespace

Oracle compute_oracle(const OpSpec& op, const TensorMap& in, double u, unsigned digits, unsigned max_digits) {
  const double need = -std::log10(u) + 10.0;
  Oracle o;
  MpTensorMap lo;
  {
    MpDigitsScope s(digits);
    lo = op.oracle(in);
  }
  for (;;) {
    MpTensorMap hi;
    {
      MpDigitsScope s(2 * digits);
      hi = op.oracle(in);
    }
    o.agree_digits = agreement_digits(lo, hi, 2 * digits);
    if (o.agree_digits >= need) {
      o.y = std::move(hi);
      o.digits = 2 * digits;
      return o;
    }
    if (2 * digits >= max_digits) {
      std::ostringstream s;
      s << op.name << ": the oracle agrees with itself to only " << o.agree_digits << " digits at " << 2 * digits
        << " digits of working precision (need " << need << "): the problem is too ill-conditioned for max_digits=" << max_digits;
      throw std::runtime_error(s.str());
    }
    digits *= 2;
    lo = std::move(hi);
  }
}

ErrorStats measure_error(const MpTensorMap& oracle, const TensorMap& y, double u, std::map<std::string, double>* per_output) {
  ErrorStats worst;
  bool first = true;
  for (const auto& [name, ref] : oracle) {
    auto it = y.find(name);
    if (it == y.end()) throw std::invalid_argument("measure_error: the implementation returned no output '" + name + "'");
    const Tensor& t = it->second;
    if (t.shape != ref.shape)
      throw std::invalid_argument("measure_error: output '" + name + "' has shape " + shape_str(t.shape) + ", expected " + shape_str(ref.shape));
    mp_t scale = max_abs(ref);
    const bool zero_scale = scale == 0;
    if (zero_scale) scale = 1;  // all-zero oracle: absolute error in units of u
    double e = 0;
    std::size_t arg = 0;
    mp_t d;
    for (std::size_t i = 0; i < t.data.size(); ++i) {
      if (!std::isfinite(t.data[i])) { e = std::numeric_limits<double>::infinity(); arg = i; break; }
      d = abs(mp_t(mp_t(t.data[i]) - ref.data[i]));
      const double ei = static_cast<double>(d / scale) / u;
      if (ei > e) { e = ei; arg = i; }
    }
    if (per_output) (*per_output)[name] = e;
    if (first || e > worst.max_err_u) {
      worst.max_err_u = e;
      worst.worst_output = name;
      worst.worst_index = index_str(t.shape, arg);
      worst.scale = zero_scale ? 0.0 : static_cast<double>(scale);
      first = false;
    }
  }
  return worst;
}

namespace {
double kappa_of(const MpTensor& ref, const TensorMap& magnitude, const std::string& name) {
  auto it = magnitude.find(name);
  if (it == magnitude.end()) return 1.0;
  const mp_t scale = max_abs(ref);
  double amax = 0;
  for (double a : it->second.data) amax = std::max(amax, std::fabs(a));
  return scale > 0 ? std::max(1.0, amax / static_cast<double>(scale)) : 1.0;
}
// Spacing of the subnormals (the smallest positive number) of the IEEE format with unit roundoff u:
// binary64, binary32, binary16, bfloat16. 0 for any other u (no underflow term).
double subnormal_spacing(double u) {
  if (u == 0x1p-53) return 0x1p-1074;
  if (u == 0x1p-24) return 0x1p-149;
  if (u == 0x1p-11) return 0x1p-24;
  if (u == 0x1p-8) return 0x1p-133;
  return 0.0;
}
}  // namespace

std::vector<OutputJudgement> judge_outputs(const MpTensorMap& oracle, const TensorMap& kernel_out, const TensorMap& baseline_out,
                                          double u, const TensorMap& magnitude, double m, const BudgetParams& p,
                                          double kappa_solve, double n_solve) {
  std::vector<OutputJudgement> v;
  for (const auto& [name, ref] : oracle) {
    MpTensorMap one{{name, ref}};
    OutputJudgement o;
    o.name = name;
    TensorMap k1, b1;
    if (auto it = kernel_out.find(name); it != kernel_out.end()) {
      k1[name] = it->second;
      for (std::size_t i = 0; i < it->second.data.size(); ++i)
        if (!std::isfinite(it->second.data[i]) && o.nonfinite++ == 0) o.first_nonfinite = index_str(it->second.shape, i);
    }
    if (auto it = baseline_out.find(name); it != baseline_out.end()) b1[name] = it->second;
    const ErrorStats ek = measure_error(one, k1, u), eb = measure_error(one, b1, u);
    o.err_u = ek.max_err_u;
    o.worst_index = ek.worst_index;
    o.baseline_err_u = eb.max_err_u;
    o.kappa = kappa_of(ref, magnitude, name);
    o.kappa_solve = kappa_solve;
    // Underflow (gradual): a result below the normal range is rounded to a multiple of eta, with an
    // absolute error up to eta/2 that no relative bound covers (fl(x op y) = (x op y)(1 + d) + e,
    // |e| <= eta/2, Higham, Accuracy and Stability, 2.1). A chain of m such roundings: lambda m eta/2,
    // in units of u relative to the output's scale. It exceeds 1 u only for outputs within about
    // m/u subnormal spacings of zero (float: scale < ~1e-36), where a working-precision result
    // cannot carry relative accuracy u at all.
    const double scale = ek.scale > 0 ? ek.scale : 1.0;
    o.underflow_u = p.lambda * std::max(1.0, m) * 0.5 * subnormal_spacing(u) / (u * scale);
    o.budget_u = p.c * eb.max_err_u + p.floor_u + p.lambda * std::sqrt(std::max(1.0, m)) * o.kappa +
                 p.lambda * std::max(0.0, n_solve) * std::max(0.0, kappa_solve) + o.underflow_u;
    o.pass = o.nonfinite == 0 && std::isfinite(o.err_u) && o.err_u <= o.budget_u;
    v.push_back(o);
  }
  return v;
}

Judgement judge(const MpTensorMap& oracle, const TensorMap& kernel_out, const TensorMap& baseline_out, double u,
                const TensorMap& magnitude, double m, const BudgetParams& p, double kappa_solve, double n_solve) {
  Judgement j;
  j.kappa_solve = kappa_solve;
  j.kernel = measure_error(oracle, kernel_out, u);
  j.baseline = measure_error(oracle, baseline_out, u);
  bool first = true;
  for (const OutputJudgement& o : judge_outputs(oracle, kernel_out, baseline_out, u, magnitude, m, p, kappa_solve, n_solve)) {
    const double margin = std::isfinite(o.err_u) ? o.budget_u - o.err_u : -std::numeric_limits<double>::infinity();
    if (first || margin < j.margin) {
      j.margin = margin;
      j.budget_u = o.budget_u;
      j.kappa = o.kappa;
      std::ostringstream s;
      s << "decisive output " << o.name << ": err " << o.err_u << " u vs budget " << o.budget_u << " u (= " << p.c << " x baseline "
        << o.baseline_err_u << " + " << p.floor_u << " + " << p.lambda << " sqrt(" << m << ") kappa " << o.kappa;
      if (kappa_solve > 0) s << " + " << p.lambda << " n " << n_solve << " kappa_solve " << kappa_solve;
      if (o.underflow_u >= 1) s << " + underflow " << o.underflow_u;
      s << ")";
      j.detail = s.str();
      first = false;
    }
  }
  j.pass = j.margin >= 0;
  return j;
}

BudgetInputs budget_inputs(const OpSpec& op, const TensorMap& in) {
  BudgetInputs b;
  if (op.magnitude) b.magnitude = op.magnitude(in);
  if (op.accumulation_length) b.m = op.accumulation_length(in);
  if (op.condition) std::tie(b.kappa_solve, b.n_solve) = op.condition(in);
  return b;
}

Judgement judge(const MpTensorMap& oracle, const TensorMap& kernel_out, const TensorMap& baseline_out, double u,
                const BudgetInputs& b, const BudgetParams& p) {
  return judge(oracle, kernel_out, baseline_out, u, b.magnitude, b.m, p, b.kappa_solve, b.n_solve);
}

}  // namespace recall
