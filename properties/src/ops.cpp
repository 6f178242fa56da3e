// The registry's ops of the linear-attention family. Each op's oracle and baseline are the same
// scalar-generic reference (reference/) instantiated at mp_t and at float/double; this file is
// where those heavy instantiations happen, once.
#include "recall/properties/ops.hpp"

#include "input_checks.hpp"
#include "op_support.hpp"
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/linear_attention.hpp"

#include <cmath>
#include <stdexcept>

namespace recall {

const TensorDecl* OpSpec::input(const std::string& n) const {
  for (const auto& d : inputs)
    if (d.name == n) return &d;
  return nullptr;
}
const TensorDecl* OpSpec::output(const std::string& n) const {
  for (const auto& d : outputs)
    if (d.name == n) return &d;
  return nullptr;
}
const char* OpSpec::gate_input() const { return input("log_gate") ? "log_gate" : input("log_alpha") ? "log_alpha" : nullptr; }
namespace {

using namespace op_support;
using ref::Matrix;
using ref::Vector;


// ---- reference evaluation for one op, generic over the scalar ----
template <class S, class Out>
std::map<std::string, Out> eval_linear(const TensorMap& in, const std::string& op, bool gated) {
  const Dims d = dims_of(in, op);
  std::map<std::string, Out> out;
  out["o"] = make_out<Out>({d.B, d.H, d.T, d.dv});
  out["s_final"] = make_out<Out>({d.B, d.H, d.dv, d.dk});
  const bool has_s0 = in.count("s0") > 0;
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h) {
      auto [Q, K, V] = slice_qkv<S>(in, op, d, b, h);
      Matrix<S> S0;
      if (has_s0) S0 = slice<S>(in.at("s0"), b, h, d.dv, d.dk);
      ref::LinearAttentionResult<S> r;
      if (gated) {
        auto G = slice_vec<S>(get(in, "log_gate", op), b, h, d.T);
        r = ref::gated_linear_attention(Q, K, V, G, has_s0 ? &S0 : nullptr);
      } else {
        r = ref::linear_attention(Q, K, V, has_s0 ? &S0 : nullptr);
      }
      put(out["o"], b, h, r.O.a);
      put(out["s_final"], b, h, r.state.a);
    }
  return out;
}

template <class S, class Out>
std::map<std::string, Out> eval_normalized(const TensorMap& in, const std::string& op) {
  const Dims d = dims_of(in, op);
  std::map<std::string, Out> out;
  out["o"] = make_out<Out>({d.B, d.H, d.T, d.dv});
  out["s_final"] = make_out<Out>({d.B, d.H, d.dv, d.dk});
  out["z_final"] = make_out<Out>({d.B, d.H, d.dk});
  const bool has_s0 = in.count("s0") > 0, has_z0 = in.count("z0") > 0;
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h) {
      auto [Q, K, V] = slice_qkv<S>(in, op, d, b, h);
      Matrix<S> S0;
      Vector<S> z0;
      if (has_s0) S0 = slice<S>(in.at("s0"), b, h, d.dv, d.dk);
      if (has_z0) z0 = slice_vec<S>(in.at("z0"), b, h, d.dk);
      auto r = ref::normalized_linear_attention(Q, K, V, has_s0 ? &S0 : nullptr, has_z0 ? &z0 : nullptr);
      put(out["o"], b, h, r.O.a);
      put(out["s_final"], b, h, r.state.a);
      put(out["z_final"], b, h, r.z);
    }
  return out;
}

// ---- generators ----
TensorMap gen_qkv(const CaseKnobs& k, Precision p, bool gated, bool normalized) {
  CaseRng rng(k.seed);
  const std::int64_t B = k.B, H = k.H, T = k.T, dk = k.dk, dv = k.dv;
  std::vector<double> q, kk, v, g, s0, z0;
  for (int bh = 0; bh < k.B * k.H; ++bh) {
    // normalised op: the feature map acts on unscaled rows and the scale multiplies the features
    // (1 + ELU of keys scaled by 1e3 underflows to exact zeros and empties the denominators)
    const int row_scale = normalized ? 0 : k.scale_exp;
    auto qi = rng.rows(k.keys, k.T, k.dk, row_scale);
    auto ki = rng.rows(k.keys, k.T, k.dk, row_scale);
    auto vi = rng.rows(KeyKind::gaussian, k.T, k.dv, 0);
    q.insert(q.end(), qi.begin(), qi.end());
    kk.insert(kk.end(), ki.begin(), ki.end());
    v.insert(v.end(), vi.begin(), vi.end());
    if (gated) { auto gi = rng.log_gates(k.gates, k.T); g.insert(g.end(), gi.begin(), gi.end()); }
    if (k.initial_state) {
      auto si = rng.rows(KeyKind::gaussian, k.dv, k.dk, 0);
      s0.insert(s0.end(), si.begin(), si.end());
      if (normalized) for (int c = 0; c < k.dk; ++c) z0.push_back(std::abs(rng.normal()));
    }
  }
  if (normalized) {  // phi = 1 + ELU (positive features, A001-FEATURE-MAPS)
    const double sc = std::pow(10.0, k.scale_exp);
    for (double& x : q) x = sc * (x > 0 ? x + 1 : std::exp(x));
    for (double& x : kk) x = sc * (x > 0 ? x + 1 : std::exp(x));
  }
  TensorMap m;
  m["q"] = tensor({B, H, T, dk}, q);
  m["k"] = tensor({B, H, T, dk}, kk);
  m["v"] = tensor({B, H, T, dv}, v);
  if (gated) m["log_gate"] = tensor({B, H, T}, g);
  if (k.initial_state) {
    m["s0"] = tensor({B, H, dv, dk}, s0);
    if (normalized) m["z0"] = tensor({B, H, dk}, z0);
  }
  round_to(m, p);
  return m;
}

std::vector<OpSpec> build_ops() {
  std::vector<OpSpec> v;
  const std::vector<TensorDecl> la_in = qkv_inputs(), la_out = state_outputs();
  {
    OpSpec op;
    op.name = "linear_attention";
    op.summary = "S_t = S_{t-1} + v_t k_t^T, o_t = S_t q_t (unnormalised linear attention)";
    op.spec_ids = {"A000-AM-OUTER", "A001-LINATTN", "A001-F01-LINATTN-PARALLEL", "A004-UPD-LA"};
    op.inputs = la_in;
    op.outputs = la_out;
    op.validate = [](const TensorMap& in) { input_checks::linear_family(in, "linear_attention", false, false); };
    op.oracle = [](const TensorMap& in) { return eval_linear<mp_t, MpTensor>(in, "linear_attention", false); };
    op.baseline = [](const TensorMap& in, Precision p) {
      return at_precision(p, [&](auto s) { return eval_linear<decltype(s), Tensor>(in, "linear_attention", false); });
    };
    op.generate = [](const CaseKnobs& k, Precision p) { return gen_qkv(k, p, false, false); };
    op.accumulation_length = seq_length;
    add_op(v, std::move(op));
  }
  {
    OpSpec op;
    op.name = "gated_linear_attention";
    op.summary = "S_t = a_t S_{t-1} + v_t k_t^T, o_t = S_t q_t, a_t = exp(log_gate_t) (-inf: reset)";
    op.spec_ids = {"A000-GATED-ATTN", "A001-GATED-LINATTN", "A001-F04-GATED-DECAYMASK", "A004-UPD-MAMBA2"};
    op.inputs = la_in;
    op.inputs.insert(op.inputs.begin() + 3, TensorDecl{"log_gate", "B,H,T", false, "log of the scalar gate a_t in [0,1]; -inf for a zero gate"});
    op.outputs = la_out;
    op.gated = true;
    op.validate = [](const TensorMap& in) { input_checks::linear_family(in, "gated_linear_attention", true, false); };
    op.oracle = [](const TensorMap& in) { return eval_linear<mp_t, MpTensor>(in, "gated_linear_attention", true); };
    op.baseline = [](const TensorMap& in, Precision p) {
      return at_precision(p, [&](auto s) { return eval_linear<decltype(s), Tensor>(in, "gated_linear_attention", true); });
    };
    op.generate = [](const CaseKnobs& k, Precision p) { return gen_qkv(k, p, true, false); };
    // the chunk-local log-gate sums of the fast forms perturbed (op_support.hpp), chunks of 64
    op.perturbed = [](const TensorMap& in, double, double delta_a, std::uint64_t seed) {
      TensorMap x = in;
      PerturbFactors f(delta_a, seed);  // cumulative sums: accumulation precision
      perturb_log_gate_cumsums(x.at("log_gate"), 64, f);
      return eval_linear<double, Tensor>(x, "gated_linear_attention", true);
    };
    op.accumulation_length = seq_length;
    add_op(v, std::move(op));
  }
  {
    OpSpec op;
    op.name = "normalized_linear_attention";
    op.summary = "y_t = S_t phi(q_t) / (z_t^T phi(q_t)), S_t = S_{t-1} + v_t phi(k_t)^T, z_t = z_{t-1} + phi(k_t)";
    op.spec_ids = {"A001-LINATTN-NORMALIZED", "A001-F03-NORMLINATTN-PARALLEL", "A004-LA-NORM-Z", "A004-FWP-LT", "A004-EQ13-14-FACTOR"};
    op.inputs = {{"q", "B,H,T,dphi", false, "phi(queries), non-negative"},
                 {"k", "B,H,T,dphi", false, "phi(keys), non-negative"},
                 {"v", "B,H,T,dv", false, "values"},
                 {"s0", "B,H,dv,dphi", true, "initial memory"},
                 {"z0", "B,H,dphi", true, "initial key sum"}};
    op.outputs = {{"o", "B,H,T,dv", false, "normalised outputs"},
                  {"s_final", "B,H,dv,dphi", false, "final memory"},
                  {"z_final", "B,H,dphi", false, "final key sum"}};
    op.validate = [](const TensorMap& in) { input_checks::linear_family(in, "normalized_linear_attention", false, true); };
    op.oracle = [](const TensorMap& in) { return eval_normalized<mp_t, MpTensor>(in, "normalized_linear_attention"); };
    op.baseline = [](const TensorMap& in, Precision p) {
      return at_precision(p, [&](auto s) { return eval_normalized<decltype(s), Tensor>(in, "normalized_linear_attention"); });
    };
    op.generate = [](const CaseKnobs& k, Precision p) { return gen_qkv(k, p, false, true); };
    op.accumulation_length = seq_length;
    add_op(v, std::move(op));
  }
  return v;
}

}  // namespace

const std::vector<OpSpec>& ops() {
  static const std::vector<OpSpec> v = [] {
    std::vector<OpSpec> all = build_ops();
    add_delta_ops(all);
    add_softmax_ops(all);
    add_regression_ops(all);
    add_hopfield_ops(all);
    add_omega_ops(all);
    return all;
  }();
  return v;
}

const OpSpec& op(const std::string& name) {
  for (const auto& o : ops())
    if (o.name == name) return o;
  std::string known;
  for (const auto& o : ops()) known += (known.empty() ? "" : ", ") + o.name;
  throw std::invalid_argument("unknown op '" + name + "' (known: " + known + ")");
}

}  // namespace recall
