// optimized/ kernels of the delta-rule family in the registry: the recurrence, the chunked WY/UT
// form with forward substitution (C = 16, 64) and with the product-form inverse (C = 64), f32 and
// f64, for delta_rule and gated_delta_rule.
#include "op_support.hpp"
#include "recall/optimized/delta_rule.hpp"
#include "recall/properties/ops.hpp"
#include "recall/properties/registry.hpp"

namespace recall {
namespace {

using namespace op_support;

enum class Form { recurrent, forward_substitution, product_inverse };

// Adapter from the registry's tensors to the optimized/ kernels' pointer API.
template <class T> TensorMap run_delta(const TensorMap& in, bool gated, Form form, int chunk) {
  const char* opname = gated ? "gated_delta_rule" : "delta_rule";
  op(opname).validate(in);
  const auto [B, H, Tn, dk, dv] = dims_of(in, opname);
  const Tensor& q = in.at("q");
  const Tensor& vv = in.at("v");
  auto qd = to<T>(q), kd = to<T>(in.at("k")), vd = to<T>(vv), bd = to<T>(in.at("beta"));
  std::vector<T> gd, s0d, o(static_cast<std::size_t>(B * H * Tn * dv)), s(static_cast<std::size_t>(B * H * dv * dk));
  opt::DeltaRuleArgs<T> a;
  a.B = static_cast<int>(B); a.H = static_cast<int>(H); a.T = static_cast<int>(Tn); a.dk = static_cast<int>(dk); a.dv = static_cast<int>(dv);
  a.q = qd.data(); a.k = kd.data(); a.v = vd.data(); a.beta = bd.data(); a.o = o.data(); a.s_final = s.data(); a.chunk = chunk;
  if (gated) { gd = to<T>(in.at("log_alpha")); a.log_alpha = gd.data(); }
  if (auto it = in.find("s0"); it != in.end()) { s0d = to<T>(it->second); a.s0 = s0d.data(); }
  if (form == Form::recurrent) {
    opt::delta_rule_recurrent(a);
  } else {
    a.solve = form == Form::product_inverse ? opt::UnitLowerSolve::product_inverse : opt::UnitLowerSolve::forward_substitution;
    opt::delta_rule_chunked(a);
  }
  TensorMap out;
  out["o"] = from({B, H, Tn, dv}, o);
  out["s_final"] = from({B, H, dv, dk}, s);
  return out;
}

template <class T> void add_cpu(Registry& r, Precision p) {
  for (bool gated : {false, true}) {
    const std::string opname = gated ? "gated_delta_rule" : "delta_rule";
    r.add({opname, "cpu.recurrent", "cpu", p, [gated](const TensorMap& in) { return run_delta<T>(in, gated, Form::recurrent, 1); },
           "token-by-token recurrence (optimized/)"});
    for (int c : {16, 64})
      r.add({opname, "cpu.chunked.c" + std::to_string(c), "cpu", p,
             [gated, c](const TensorMap& in) { return run_delta<T>(in, gated, Form::forward_substitution, c); },
             "chunked WY/UT form, forward substitution, Eigen GEMMs"});
    r.add({opname, "cpu.chunked.c64.prodinv", "cpu", p,
           [gated](const TensorMap& in) { return run_delta<T>(in, gated, Form::product_inverse, 64); },
           "chunked WY/UT form, product-form inverse (eta factors) applied by GEMM"});
  }
}

}  // namespace

void register_delta_implementations(Registry& r) {
  add_cpu<float>(r, Precision::f32);
  add_cpu<double>(r, Precision::f64);
}

}  // namespace recall
