#include "recall/properties/budget.hpp"
#include "op_support.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <thread>

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

// ---- (b,h) slices ----
struct Split {
  std::int64_t B = 1, H = 1;
  bool ok = false;
};
Split split_of(const TensorMap& in) {
  auto it = in.find("q");
  if (it == in.end() || it->second.shape.size() < 3) return {};
  return {it->second.shape[0], it->second.shape[1], it->second.shape[0] * it->second.shape[1] > 1};
}
bool splittable(const Tensor& t, const Split& s) { return t.shape.size() >= 3 && t.shape[0] == s.B && t.shape[1] == s.H; }

TensorMap slice_inputs(const TensorMap& in, const Split& s, std::int64_t bh) {
  TensorMap m;
  for (const auto& [name, t] : in) {
    if (!splittable(t, s)) {
      m[name] = t;
      continue;
    }
    Tensor x;
    x.shape = t.shape;
    x.shape[0] = x.shape[1] = 1;
    const std::size_t n = x.numel();
    if (t.data.size() != n * static_cast<std::size_t>(s.B * s.H)) {
      m[name] = t;  // malformed: let the op's own checks name it
      continue;
    }
    x.data.assign(t.data.begin() + static_cast<std::ptrdiff_t>(n * bh), t.data.begin() + static_cast<std::ptrdiff_t>(n * (bh + 1)));
    m[name] = std::move(x);
  }
  return m;
}

unsigned thread_count(std::int64_t work) {
  unsigned n = std::max(1u, std::thread::hardware_concurrency());
  if (const char* e = std::getenv("RECALL_THREADS")) {
    const int v = std::atoi(e);
    if (v >= 1) n = static_cast<unsigned>(v);
  }
  return static_cast<unsigned>(std::min<std::int64_t>(n, std::max<std::int64_t>(1, work)));
}

template <class S>
std::map<std::string, TensorT<S>> run_slices(const TensorMap& in, const std::function<std::map<std::string, TensorT<S>>(const TensorMap&)>& f) {
  const Split s = split_of(in);
  if (!s.ok) return f(in);
  const std::int64_t n = s.B * s.H;
  std::vector<std::map<std::string, TensorT<S>>> parts(static_cast<std::size_t>(n));
  std::atomic<std::int64_t> next{0};
  std::exception_ptr failure;
  std::atomic<bool> failed{false};
  auto worker = [&] {
    for (std::int64_t i; (i = next++) < n && !failed;) {
      try {
        parts[static_cast<std::size_t>(i)] = f(slice_inputs(in, s, i));
      } catch (...) {
        if (!failed.exchange(true)) failure = std::current_exception();
      }
    }
  };
  const unsigned nt = thread_count(n);
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < nt; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  std::map<std::string, TensorT<S>> out;
  for (const auto& [name, t0] : parts[0]) {
    if (t0.shape.size() < 2 || t0.shape[0] != 1 || t0.shape[1] != 1)
      throw std::logic_error("per_slice: output '" + name + "' of one (b,h) slice has shape " + shape_str(t0.shape) + ", not [1,1,...]");
    TensorT<S> o;
    o.shape = t0.shape;
    o.shape[0] = s.B;
    o.shape[1] = s.H;
    o.data.reserve(o.numel());
    for (auto& p : parts) {
      auto& d = p.at(name).data;
      o.data.insert(o.data.end(), std::make_move_iterator(d.begin()), std::make_move_iterator(d.end()));
    }
    out[name] = std::move(o);
  }
  return out;
}

// Spacing of the subnormals (the smallest positive number) of the format with unit roundoff u.
double subnormal_spacing(double u) {
  if (u == 0x1p-53) return 0x1p-1074;
  if (u == 0x1p-24) return 0x1p-149;
  if (u == 0x1p-11) return 0x1p-24;
  if (u == 0x1p-8) return 0x1p-133;
  return 0.0;
}

std::string g3(double x) {
  std::ostringstream s;
  s.precision(3);
  s << x;
  return s.str();
}

}  // namespace

TensorMap per_slice(const TensorMap& in, const std::function<TensorMap(const TensorMap&)>& f) { return run_slices<double>(in, f); }
MpTensorMap per_slice_mp(const TensorMap& in, const std::function<MpTensorMap(const TensorMap&)>& f) { return run_slices<mp_t>(in, f); }

Oracle compute_oracle(const OpSpec& op, const TensorMap& in, double u, unsigned digits, unsigned max_digits) {
  const double need = -std::log10(u) + 10.0;
  // f32/bf16/f16: 24 and 34 digits (two 64-bit limbs each, the cheapest MPFR size that holds them)
  if (digits == 0) digits = std::max(24u, static_cast<unsigned>(std::ceil(need + 4.0)));
  // The default precision of new mp_t values is one process-wide setting: it is set here, on the
  // calling thread, before the slices run in parallel, and restored after they joined.
  auto eval = [&](unsigned dg) {
    MpDigitsScope s(dg);
    return per_slice_mp(in, op.oracle);
  };
  // The evaluation at `digits` is compared with one at hi = digits + max(10, digits/3): their
  // difference bounds the lower one's error, so agreement to `need` digits shows the higher one
  // accurate to well beyond need (at 24 -> 34 digits both fit two limbs; doubling to 48 cost 1.6x).
  // Failing that, both are redone at twice hi.
  Oracle o;
  for (;;) {
    const unsigned hi = digits + std::max(10u, digits / 3);
    MpTensorMap lo = eval(digits);
    MpTensorMap y = eval(hi);
    o.agree_digits = agreement_digits(lo, y, hi);
    if (o.agree_digits >= need) {
      o.y = std::move(y);
      o.digits = hi;
      return o;
    }
    if (hi >= max_digits) {
      std::ostringstream s;
      s << op.name << ": the oracle agrees with itself to only " << o.agree_digits << " digits between " << digits << " and " << hi
        << " digits of working precision (need " << need << "): the problem is too ill-conditioned for max_digits=" << max_digits;
      throw std::runtime_error(s.str());
    }
    digits = std::min(2 * hi, max_digits);
  }
}

TensorMap compute_baseline(const OpSpec& op, const TensorMap& in, Precision p) {
  const Precision a = accumulation(p);
  TensorMap out = per_slice(in, [&](const TensorMap& s) { return op.baseline(s, a); });
  round_to(out, p);
  return out;
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

TensorMap sensitivity(const std::function<TensorMap(const TensorMap&)>& f64, const TensorMap& in, double u, int samples,
                      std::uint64_t seed, const std::vector<std::string>& fixed,
                      const std::function<TensorMap(const TensorMap&, double, double, std::uint64_t)>& perturbed, double u_a) {
  const double delta = std::max(u, 0x1p-30), gain = u / delta;
  const TensorMap y0 = f64(in);
  TensorMap s = y0;
  // A row's estimate is the max over its elements and the draws: with narrow rows (d = 1..8) a few
  // draws can all land small by chance (a Rademacher sum is near 0 with probability ~0.2), so the
  // number of draws grows to keep about 32 samples per row (at most 32 draws; small outputs only).
  std::int64_t narrowest = 32;
  for (auto& [name, t] : s) {
    std::fill(t.data.begin(), t.data.end(), 0.0);
    if (!t.shape.empty()) narrowest = std::min<std::int64_t>(narrowest, std::max<std::int64_t>(1, t.shape.back()));
  }
  samples = std::max<int>(samples, static_cast<int>((32 + narrowest - 1) / narrowest));
  std::uint64_t state = seed;
  for (int k = 0; k < samples; ++k) {
    TensorMap x = in;
    for (auto& [name, t] : x) {
      if (std::find(fixed.begin(), fixed.end(), name) != fixed.end()) continue;
      for (std::size_t i = 0; i < t.data.size(); i += 64) {
        const std::uint64_t bits = op_support::splitmix64(state);
        for (std::size_t j = i; j < std::min(t.data.size(), i + 64); ++j)
          t.data[j] *= ((bits >> (j - i)) & 1u) ? 1.0 + delta : 1.0 - delta;
      }
    }
    const TensorMap y = perturbed ? perturbed(x, delta, delta * (u_a > 0 ? u_a / u : 1.0), op_support::splitmix64(state)) : f64(x);
    for (auto& [name, t] : s) {
      const auto& a = y.at(name).data;
      const auto& b = y0.at(name).data;
      for (std::size_t i = 0; i < t.data.size(); ++i) {
        const double d = std::fabs(a[i] - b[i]) * gain;
        // a perturbation that turns a finite output non-finite: the output is infinitely sensitive
        t.data[i] = std::max(t.data[i], std::isnan(d) ? std::numeric_limits<double>::infinity() : d);
      }
    }
  }
  return s;
}

BudgetInputs budget_inputs(const OpSpec& op, const TensorMap& in, Precision p, const BudgetParams& bp) {
  BudgetInputs b;
  b.storage = p;
  auto f64 = [&op](const TensorMap& x) { return per_slice(x, [&op](const TensorMap& s) { return op.baseline(s, Precision::f64); }); };
  std::function<TensorMap(const TensorMap&, double, double, std::uint64_t)> pert;
  if (op.perturbed)
    pert = [&op](const TensorMap& x, double ds, double da, std::uint64_t seed) {
      // heads in parallel, each with its own draws (seed mixed with the slice's first values)
      return per_slice(x, [&](const TensorMap& s) {
        std::uint64_t h = seed;
        for (const auto& [name, t] : s)
          if (!t.data.empty()) {
            std::uint64_t bits;
            std::memcpy(&bits, &t.data[0], sizeof bits);
            h = op_support::splitmix64(h) ^ bits;
          }
        return op.perturbed(s, ds, da, h);
      });
    };
  b.sens = sensitivity(f64, in, unit_roundoff(p), std::max(bp.samples, op.sensitivity_draws), bp.seed, op.fixed_inputs, pert,
                       unit_roundoff(accumulation(p)));
  if (op.accumulation_length) b.m = op.accumulation_length(in);
  if (op.condition) std::tie(b.kappa_solve, b.n_solve) = op.condition(in);
  if (op.solve_magnitude) b.solve_mag = per_slice(in, op.solve_magnitude);
  return b;
}

Reference make_reference(const OpSpec& op, const TensorMap& in, Precision p, const BudgetParams& bp) {
  Reference r;
  r.oracle = compute_oracle(op, in, unit_roundoff(p));
  r.baseline = compute_baseline(op, in, p);
  r.budget = budget_inputs(op, in, p, bp);
  return r;
}

std::string outside_storage_range(const Reference& r, const TensorMap& in, Precision p) {
  const double lim = max_finite(p) / 16;
  for (const auto& [name, t] : in)
    for (std::size_t i = 0; i < t.data.size(); ++i)
      if (std::isfinite(t.data[i]) && std::fabs(t.data[i]) >= lim)
        return "input '" + name + "' holds " + g3(t.data[i]) + " at " + index_str(t.shape, i) + ", within 16x of " +
               precision_name(p) + "'s largest value";
  for (const auto& [name, t] : r.oracle.y)
    for (std::size_t i = 0; i < t.data.size(); ++i)
      if (abs(t.data[i]) >= lim)
        return "output '" + name + "' reaches " + g3(static_cast<double>(t.data[i])) + " at " + index_str(t.shape, i) + ", within 16x of " +
               precision_name(p) + "'s largest value";
  return {};
}

std::vector<OutputJudgement> judge_outputs(const MpTensorMap& oracle, const TensorMap& kernel_out, const TensorMap& baseline_out,
                                          const BudgetInputs& b, const BudgetParams& p) {
  const double us = unit_roundoff(b.storage), ua = unit_roundoff(accumulation(b.storage));
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<OutputJudgement> v;
  for (const auto& [name, ref] : oracle) {
    OutputJudgement o;
    o.name = name;
    o.kappa_solve = b.kappa_solve;
    auto find = [&](const TensorMap& m, const char* what) -> const Tensor& {
      auto it = m.find(name);
      if (it == m.end()) throw std::invalid_argument(std::string("judge: the ") + what + " has no output '" + name + "'");
      if (it->second.shape != ref.shape)
        throw std::invalid_argument(std::string("judge: the ") + what + "'s output '" + name + "' has shape " + shape_str(it->second.shape) +
                                    ", expected " + shape_str(ref.shape));
      return it->second;
    };
    const Tensor& k = find(kernel_out, "kernel");
    const Tensor& bl = find(baseline_out, "baseline");
    const Tensor* sens = nullptr;
    if (auto it = b.sens.find(name); it != b.sens.end() && it->second.data.size() == ref.data.size()) sens = &it->second;
    const std::size_t N = ref.data.size();
    const std::size_t n = ref.shape.empty() ? 1 : static_cast<std::size_t>(std::max<std::int64_t>(1, ref.shape.back()));
    const std::size_t rows = N / n;
    // elementwise |y*|, |e|, |e_b| in double. The differences are taken in mp_t for f64 storage (an
    // f64 kernel's error is u_f64 small); otherwise from y* rounded to double, whose relative error
    // 2^-53 is at most 2^-29 of the storage precision's u.
    std::vector<double> y(N), e(N), eb(N);
    const bool exact_diff = b.storage == Precision::f64;
    mp_t d;
    auto diff = [&](double x, std::size_t i, double yd) {
      if (!std::isfinite(x)) return inf;
      if (!exact_diff) return std::fabs(x - yd);
      d = mp_t(x) - ref.data[i];
      return std::fabs(static_cast<double>(d));
    };
    double G = 0, ss_e = 0, ss_eb = 0, ss_y = 0;
    for (std::size_t i = 0; i < N; ++i) {
      const double yd = static_cast<double>(ref.data[i]);
      y[i] = std::fabs(yd);
      G = std::max(G, y[i]);
      if (!std::isfinite(k.data[i]) && o.nonfinite++ == 0) o.first_nonfinite = index_str(k.shape, i);
      e[i] = diff(k.data[i], i, yd);
      eb[i] = diff(bl.data[i], i, yd);
      ss_e += e[i] * e[i], ss_eb += eb[i] * eb[i], ss_y += y[i] * y[i];
    }
    o.scale = G;
    const double Gs = G > 0 ? G : 1.0;  // all-zero oracle: absolute errors
    o.rel_rmse = ss_y > 0 ? std::sqrt(ss_e / ss_y) : std::sqrt(ss_e);
    o.baseline_rel_rmse = ss_y > 0 ? std::sqrt(ss_eb / ss_y) : std::sqrt(ss_eb);
    std::size_t arg = 0, barg = 0;
    double emax = -1, bmax = -1;
    for (std::size_t i = 0; i < N; ++i) {
      if (e[i] > emax) { emax = e[i]; arg = i; }
      if (eb[i] > bmax) { bmax = eb[i]; barg = i; }
    }
    o.err_u = std::max(emax, 0.0) / (us * Gs);
    o.baseline_err_u = std::max(bmax, 0.0) / (us * Gs);
    o.worst_index = index_str(ref.shape, arg);
    o.baseline_worst_index = index_str(ref.shape, barg);
    const double floor_abs = p.floor_u * ua * G;
    // the fast forms' chunk solves: n u_a |propagated |L^-1||L||D|| (OpSpec::solve_magnitude)
    const Tensor* smag = nullptr;
    if (auto it = b.solve_mag.find(name); it != b.solve_mag.end() && it->second.data.size() == ref.data.size()) smag = &it->second;
    const double solve_scale = std::max(0.0, b.n_solve) * ua;
    const double under_abs = p.lambda * std::max(1.0, b.m) * 0.5 * subnormal_spacing(ua);
    o.underflow_u = under_abs / (us * Gs);
    std::vector<double> row_rel;
    row_rel.reserve(rows);
    double worst_ratio = -1, weakest = -1;
    std::size_t weakest_row = 0;
    o.rows = rows;
    for (std::size_t r = 0; r < rows; ++r) {
      double E = 0, Eb = 0, Y = 0, S = 0, Sv = 0;
      for (std::size_t i = r * n; i < (r + 1) * n; ++i) {
        E = std::max(E, e[i]);
        Eb = std::max(Eb, eb[i]);
        Y = std::max(Y, y[i]);
        if (sens) S = std::max(S, sens->data[i]);
        if (smag) Sv = std::max(Sv, smag->data[i]);
      }
      const double tv = solve_scale * Sv;
      const double tb = p.c * Eb, tr = p.rounding * us * Y, ts = p.lambda * S + tv;
      const double B = tb + tr + ts + floor_abs + under_abs;
      const double ratio = B > 0 ? E / B : (E > 0 ? inf : 0.0);
      if (Y <= B) ++o.zero_passing_rows;
      if (Y > 0) row_rel.push_back(B / Y);
      if (Y > 0) o.token_rel_err_u = std::max(o.token_rel_err_u, E / (us * Y));
      else if (E > 0) o.token_rel_err_u = inf;
      if (G > 0 && B / G > weakest) { weakest = B / G; weakest_row = r; }
      if (ratio > worst_ratio) {
        worst_ratio = ratio;
        const double Ys = Y > 0 ? Y : Gs;
        o.row_ratio = ratio;
        o.row_scale = Y;
        o.row_err_u = E / (us * Ys);
        o.budget_u = B / (us * Gs);
        o.margin_u = (B - E) / (us * Gs);
        o.term_baseline = tb / (us * Ys);
        o.term_rounding = tr / (us * Ys);
        o.term_sensitivity = p.lambda * S / (us * Ys);
        o.term_solve = tv / (us * Ys);
        o.term_floor = floor_abs / (us * Ys);
        o.term_underflow = under_abs / (us * Ys);
        o.kappa = S / (us * Ys);
        std::vector<std::int64_t> rs(ref.shape.begin(), ref.shape.end() - (ref.shape.empty() ? 0 : 1));
        o.worst_row = rs.empty() ? "()" : index_str(rs, r);
      }
    }
    o.budget_rel = weakest > 0 ? weakest : 0;
    if (!row_rel.empty()) {
      std::nth_element(row_rel.begin(), row_rel.begin() + static_cast<std::ptrdiff_t>(row_rel.size() / 2), row_rel.end());
      o.budget_rel_median = row_rel[row_rel.size() / 2];
    }
    o.discriminating = G == 0 || o.zero_passing_rows < rows;
    // Why the budget is loose, from its dominant term at the weakest row (only when it is loose).
    if (G > 0 && (!o.discriminating || 2 * o.zero_passing_rows > rows || o.budget_rel > weak_budget_rel(b.storage))) {
      const std::size_t r = weakest_row;
      double Eb = 0, Y = 0, S = 0, Sv = 0;
      for (std::size_t i = r * n; i < (r + 1) * n; ++i) {
        Eb = std::max(Eb, eb[i]), Y = std::max(Y, y[i]);
        if (sens) S = std::max(S, sens->data[i]);
        if (smag) Sv = std::max(Sv, smag->data[i]);
      }
      std::vector<std::int64_t> rs(ref.shape.begin(), ref.shape.end() - (ref.shape.empty() ? 0 : 1));
      const std::string row = rs.empty() ? "()" : index_str(rs, r);
      std::ostringstream w;
      w << (o.discriminating ? (2 * o.zero_passing_rows > rows ? "weak: most rows would pass an all-zero output; " : "weak: ")
                             : "not discriminating: an all-zero output would pass; ")
        << "budget " << g3(o.budget_rel) << " of the output's scale at row " << row << ", dominated by ";
      const double tb = p.c * Eb, ts = p.lambda * S, tr = p.rounding * us * Y, tsv = solve_scale * Sv;
      if (tsv >= tb && tsv >= tr && tsv >= ts) w << "the condition of the op's linear system (kappa_solve " << g3(b.kappa_solve) << ")";
      else if (ts >= tb && ts >= tr) w << "its sensitivity (ill-conditioned: inputs perturbed by u_s move it by " << g3(S / G) << " of the scale)";
      else if (tb >= tr) w << "the same-precision baseline's own error (" << g3(Eb / G) << " of the scale)";
      else w << "the storage rounding of the output";
      if (b.kappa_solve >= 1e3) w << "; condition the op reports (its linear system or matrix function) " << g3(b.kappa_solve);
      o.weakness = w.str();
    }
    o.pass = o.nonfinite == 0 && worst_ratio <= 1.0;
    v.push_back(o);
  }
  return v;
}

Judgement judge(const MpTensorMap& oracle, const TensorMap& kernel_out, const TensorMap& baseline_out, const BudgetInputs& b,
                const BudgetParams& p) {
  Judgement j;
  j.kappa_solve = b.kappa_solve;
  j.outputs = judge_outputs(oracle, kernel_out, baseline_out, b, p);
  // the normwise summaries (as measure_error would give them), from the per-output results
  for (const OutputJudgement& o : j.outputs) {
    if (j.kernel.worst_output.empty() || o.err_u > j.kernel.max_err_u)
      j.kernel = {o.err_u, o.name, o.worst_index, o.scale};
    if (j.baseline.worst_output.empty() || o.baseline_err_u > j.baseline.max_err_u)
      j.baseline = {o.baseline_err_u, o.name, o.baseline_worst_index, o.scale};
  }
  const OutputJudgement* dec = nullptr;
  for (const OutputJudgement& o : j.outputs) {
    const double r = o.nonfinite ? std::numeric_limits<double>::infinity() : o.row_ratio;
    if (!dec || r > (dec->nonfinite ? std::numeric_limits<double>::infinity() : dec->row_ratio)) dec = &o;
    j.budget_rel = std::max(j.budget_rel, o.budget_rel);
    j.discriminating = j.discriminating && o.discriminating;
  }
  j.pass = !j.outputs.empty();
  for (const OutputJudgement& o : j.outputs) j.pass = j.pass && o.pass;
  if (dec) {
    j.budget_u = dec->budget_u;
    j.margin = dec->nonfinite ? -std::numeric_limits<double>::infinity() : dec->margin_u;
    j.kappa = dec->kappa;
    std::ostringstream s;
    s << "decisive output " << dec->name << " row " << dec->worst_row << ": err " << g3(dec->row_err_u) << " u vs budget "
      << g3(dec->term_baseline + dec->term_rounding + dec->term_sensitivity + dec->term_solve + dec->term_floor + dec->term_underflow)
      << " u of the row's scale (= " << p.c << " x baseline "
      << g3(dec->term_baseline / p.c) << " + rounding " << g3(dec->term_rounding) << " + " << p.lambda << " x sensitivity "
      << g3(dec->term_sensitivity / p.lambda);
    if (dec->term_solve > 0) s << " + solve " << g3(dec->term_solve);
    s << " + floor " << g3(dec->term_floor);
    if (dec->term_underflow >= 1) s << " + underflow " << g3(dec->term_underflow);
    s << ")";
    if (dec->nonfinite) s << "; " << dec->nonfinite << " non-finite values, first at " << dec->first_nonfinite;
    if (b.kappa_solve > 0) s << "; kappa_solve " << g3(b.kappa_solve);
    for (const OutputJudgement& o : j.outputs)
      if (!o.weakness.empty()) s << "; " << o.name << ": " << o.weakness;
    j.detail = s.str();
  }
  return j;
}

}  // namespace recall
