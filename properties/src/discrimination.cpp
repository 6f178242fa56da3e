#include "recall/properties/discrimination.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace recall {

CaseKnobs DiscriminationShape::knobs() const {
  CaseKnobs k;
  k.B = B, k.H = H, k.T = T, k.dk = dk, k.dv = dv;
  k.keys = KeyKind::unit_sphere;
  k.betas = BetaKind::unit_interval;
  k.gates = gates;
  k.initial_state = s0;
  k.seed = seed;
  return k;
}

std::string DiscriminationShape::str() const {
  std::ostringstream s;
  s << "B=" << B << " H=" << H << " T=" << T << " dk=" << dk << " dv=" << dv << " gates=" << gate_kind_name(gates)
    << (s0 ? " s0" : " no-s0");
  return s.str();
}

std::vector<DiscriminationShape> discrimination_shapes(bool full) {
  if (!full) return {{1, 2, 256, 32, 32, GateKind::uniform, true, 11}, {1, 2, 256, 32, 32, GateKind::near_one, false, 12}};
  return {{1, 1, 1000, 64, 64, GateKind::uniform, true, 21},
          {1, 1, 1000, 128, 128, GateKind::near_one, false, 22},
          {1, 1, 4096, 64, 64, GateKind::near_one, true, 23},
          {1, 1, 4096, 128, 128, GateKind::uniform, false, 24}};
}

double scaled_mutant_rel(Precision p) {
  switch (p) {
    case Precision::f64: return 1e-10;
    case Precision::f32: return 1e-4;
    default: return 5e-2;
  }
}

namespace {

// o_t of every (b,h) row: apply f(T, row pointer of token t) over the [B,H,T,dv] output "o"
void for_heads(Tensor& o, const std::function<void(double* head, std::int64_t T, std::int64_t dv)>& f) {
  const std::int64_t T = o.shape[2], dv = o.shape[3];
  for (std::int64_t bh = 0; bh < o.shape[0] * o.shape[1]; ++bh) f(o.data.data() + bh * T * dv, T, dv);
}

double max_abs(const Tensor& t) {
  double m = 0;
  for (double x : t.data) m = std::max(m, std::fabs(x));
  return m;
}

std::vector<Mutant> build_mutants() {
  auto always = [](const OpSpec&, const TensorMap&) { return true; };
  std::vector<Mutant> v;
  v.push_back({"zeros", "every output all zero", always, [](const TensorMap& in, const KernelRun& g, Precision) {
                 TensorMap out = g(in);
                 for (auto& [n, t] : out) std::fill(t.data.begin(), t.data.end(), 0.0);
                 return out;
               }});
  v.push_back({"scaled", "every output scaled by 1 + 1e-10 (f64), 1e-4 (f32), 5e-2 (bf16, f16)", always,
               [](const TensorMap& in, const KernelRun& g, Precision p) {
                 TensorMap out = g(in);
                 for (auto& [n, t] : out)
                   for (double& x : t.data) x *= 1 + scaled_mutant_rel(p);
                 round_to(out, p);
                 return out;
               }});
  v.push_back({"one_element", "one element of o off by 10% of o's scale (token T/2, feature 1)", always,
               [](const TensorMap& in, const KernelRun& g, Precision p) {
                 TensorMap out = g(in);
                 Tensor& o = out.at("o");
                 const double s = max_abs(o);
                 o.data[static_cast<std::size_t>(o.shape[2] / 2 * o.shape[3])] += 0.1 * s;
                 round_to(out, p);
                 return out;
               }});
  v.push_back({"last_token_missing", "o of the last token not written (zero)", always,
               [](const TensorMap& in, const KernelRun& g, Precision) {
                 TensorMap out = g(in);
                 for_heads(out.at("o"), [](double* h, std::int64_t T, std::int64_t dv) { std::fill(h + (T - 1) * dv, h + T * dv, 0.0); });
                 return out;
               }});
  v.push_back({"shifted", "o_t holds o_{t-1} (off by one token), o_1 = 0", always, [](const TensorMap& in, const KernelRun& g, Precision) {
                 TensorMap out = g(in);
                 for_heads(out.at("o"), [](double* h, std::int64_t T, std::int64_t dv) {
                   for (std::int64_t t = T - 1; t >= 1; --t) std::copy(h + (t - 1) * dv, h + t * dv, h + t * dv);
                   std::fill(h, h + dv, 0.0);
                 });
                 return out;
               }});
  v.push_back({"s0_transposed", "the initial state read transposed (square states)",
               [](const OpSpec&, const TensorMap& in) {
                 auto it = in.find("s0");
                 return it != in.end() && it->second.shape[2] == it->second.shape[3];
               },
               [](const TensorMap& in, const KernelRun& g, Precision) {
                 TensorMap x = in;
                 Tensor& s = x.at("s0");
                 const std::int64_t n = s.shape[2];
                 for (std::int64_t bh = 0; bh < s.shape[0] * s.shape[1]; ++bh)
                   for (std::int64_t r = 0; r < n; ++r)
                     for (std::int64_t c = 0; c < r; ++c) std::swap(s.data[(bh * n + r) * n + c], s.data[(bh * n + c) * n + r]);
                 return g(x);
               }});
  v.push_back({"beta_scaled", "beta multiplied by 0.9", [](const OpSpec& o, const TensorMap& in) { return o.input("beta") && in.count("beta"); },
               [](const TensorMap& in, const KernelRun& g, Precision p) {
                 TensorMap x = in;
                 for (double& b : x.at("beta").data) b = round_value(0.9 * b, p);
                 return g(x);
               }});
  // On a constant gate sequence (GateKind::near_one is 1 - 1e-12 at every token) the shift changes
  // nothing and the "mutant" is the correct kernel: it applies only where consecutive gates differ.
  v.push_back({"gates_shifted", "each gate applied one token late (g_t <- g_{t-1})",
               [](const OpSpec& o, const TensorMap& in) {
                 const char* n = o.gate_input();
                 if (!n || !in.count(n)) return false;
                 const Tensor& g = in.at(n);
                 const std::int64_t T = g.shape[2];
                 for (std::int64_t bh = 0; bh < g.shape[0] * g.shape[1]; ++bh)
                   for (std::int64_t t = 1; t < T; ++t)
                     if (g.data[bh * T + t] != g.data[bh * T + t - 1]) return true;
                 return false;
               },
               [](const TensorMap& in, const KernelRun& g, Precision) {
                 TensorMap x = in;
                 const char* name = nullptr;
                 for (const char* n : {"log_gate", "log_alpha"})
                   if (x.count(n)) name = n;
                 Tensor& t = x.at(name);
                 const std::int64_t T = t.shape[2];
                 for (std::int64_t bh = 0; bh < t.shape[0] * t.shape[1]; ++bh)
                   for (std::int64_t i = T - 1; i >= 1; --i) t.data[bh * T + i] = t.data[bh * T + i - 1];
                 return g(x);
               }});
  v.push_back({"scale_omitted", "the logit scale omitted (1 instead of the op's scale)",
               [](const OpSpec& o, const TensorMap& in) {
                 if (!o.input("scale")) return false;
                 auto it = in.find("scale");
                 return it == in.end() || it->second.data[0] != 1.0;
               },
               [](const TensorMap& in, const KernelRun& g, Precision) {
                 TensorMap x = in;
                 x["scale"] = Tensor{{1}, {1.0}};
                 return g(x);
               }});
  return v;
}

}  // namespace

double discrimination_cost(const std::string& op, int T, int d) {
  static const std::map<std::string, double> at1000 = {
      {"linear_attention", 0.6}, {"gated_linear_attention", 0.75}, {"normalized_linear_attention", 0.3}, {"delta_rule", 0.9},
      {"gated_delta_rule", 0.9}, {"softmax_attention", 4.7},       {"deltaformer_u", 12.5},             {"deltaformer_norm", 15.0},
      // seconds per row at T = 1000, d = 64 (the LS ops: 10.6 s measured at T = 256, one core)
      {"least_squares_attention", 40.0}, {"weighted_least_squares_attention", 42.0}, {"local_linear_attention", 300.0},
      // Hopfield ops: M = T memories, L = T/64 queries (windows: L = M = T, w fixed, so linear in T)
      {"hopfield_dense", 0.5}, {"hopfield_masked_r", 0.5}, {"hopfield_masked_u", 0.5}, {"hopfield_topk_r", 0.5},
      {"hopfield_prf", 2.0}, {"hopfield_linear", 0.5}, {"hopfield_window_r", 0.5}, {"hopfield_window_causal_r", 0.5}};
  const auto it = at1000.find(op);
  const double base = it == at1000.end() ? 1.0 : it->second;
  const bool pairwise = op.find("softmax") != std::string::npos || op.find("deltaformer") != std::string::npos ||
                        op.find("local_linear") != std::string::npos ||
                        (op.rfind("hopfield_", 0) == 0 && op.find("window") == std::string::npos);
  const double t = T / 1000.0, dd = d / 64.0;
  return base * (pairwise ? t * t * dd : t * dd * dd);
}

const std::vector<Mutant>& mutants() {
  static const std::vector<Mutant> v = [] {
    std::vector<Mutant> all = build_mutants();
    for (const Mutant& m : hopfield_mutants()) all.push_back(m);
    return all;
  }();
  return v;
}

std::vector<DiscriminationRow> run_discrimination(const std::vector<DiscriminationShape>& shapes, const std::vector<std::string>& op_names,
                                                  const std::vector<Precision>& precisions,
                                                  const std::function<void(const std::string&)>& progress, const BudgetParams& bp) {
  register_builtin_implementations();
  std::vector<DiscriminationRow> rows;
  for (const OpSpec& o : ops()) {
    if (!op_names.empty() && std::find(op_names.begin(), op_names.end(), o.name) == op_names.end()) continue;
    for (Precision p : precisions) {
      std::vector<const Implementation*> impls;
      for (const auto* i : registry().for_op(o.name))
        if (i->precision == p) impls.push_back(i);
      for (const auto& i : tensor_core_emulations())
        if (i.op == o.name && i.precision == p) impls.push_back(&i);
      if (impls.empty()) continue;
      // the correct kernel the mutants are built from: the first CPU kernel of that precision
      const Implementation* good = impls.front();
      for (const auto* i : impls)
        if (i->device == "cpu") { good = i; break; }
      for (DiscriminationShape sh : shapes) {
        if (o.discrimination_max_T > 0 && sh.T > o.discrimination_max_T) sh.T = o.discrimination_max_T;  // OpSpec's cap
        TensorMap in = o.generate(sh.knobs(), p);
        o.validate(in);
        const Reference ref = make_reference(o, in, p, bp);
        int bad = 0, n = 0;
        auto record = [&](const std::string& kernel, bool should_pass, const TensorMap& out) {
          DiscriminationRow r;
          r.op = o.name, r.precision = precision_name(p), r.shape = sh.str(), r.kernel = kernel, r.should_pass = should_pass;
          const Judgement j = judge(ref, out, bp);
          r.passed = j.pass;
          r.ratio = 0;
          r.T = sh.T, r.d = sh.dk;
          for (const auto& oj : j.outputs) {
            const double ratio = oj.nonfinite ? INFINITY : oj.row_ratio;
            if (ratio >= r.ratio) {
              r.row_err_u = oj.nonfinite ? INFINITY : oj.row_err_u;
              r.row_budget_u = oj.term_baseline + oj.term_rounding + oj.term_sensitivity + oj.term_solve + oj.term_floor + oj.term_underflow;
            }
            r.ratio = std::max(r.ratio, ratio);
            r.token_rel_err_u = std::max(r.token_rel_err_u, oj.token_rel_err_u);
            r.rel_rmse = std::max(r.rel_rmse, oj.rel_rmse);
          }
          r.err_u = j.kernel.max_err_u;
          r.budget_rel = j.budget_rel;
          r.discriminating = j.discriminating;
          r.weak = !j.discriminating || j.budget_rel > weak_budget_rel(p);
          r.op_reports_condition = static_cast<bool>(o.condition);
          r.detail = j.detail;
          bad += !r.as_expected();
          ++n;
          rows.push_back(std::move(r));
        };
        TensorMap good_out;  // the correct kernel's outputs on `in`, reused by every output mutant
        for (const Implementation* i : impls) {
          TensorMap out = i->run(in);
          if (i == good) good_out = out;
          record(i->name, true, out);
        }
        const KernelRun good_run = [&](const TensorMap& x) { return &x == &in ? good_out : good->run(x); };
        for (const Mutant& m : mutants())
          if (m.applies(o, in)) record("mutant:" + m.name, false, m.make(in, good_run, p));
        if (progress) {
          std::ostringstream s;
          s << o.name << " " << precision_name(p) << " " << sh.str() << ": " << n - bad << " of " << n << " as expected";
          progress(s.str());
        }
      }
    }
  }
  return rows;
}

}  // namespace recall
