#include "recall/properties/registry.hpp"

#include "op_support.hpp"
#include "recall/optimized/linear_attention.hpp"
#include "recall/properties/ops.hpp"

#include <stdexcept>

namespace recall {

void Registry::add(Implementation impl, std::source_location at) {
  if (impl.file.empty()) {
    impl.file = at.file_name();
    impl.line = at.line();
  }
  op(impl.op);  // throws on an unknown op
  if (!impl.run) throw std::invalid_argument("Registry::add: implementation '" + impl.name + "' has no function");
  for (const auto& i : impls_)
    if (i.op == impl.op && i.name == impl.name && i.precision == impl.precision)
      throw std::invalid_argument("Registry::add: duplicate implementation " + impl.op + "/" + impl.name + "/" + precision_name(impl.precision));
  impls_.push_back(std::move(impl));
}

std::vector<const Implementation*> Registry::for_op(const std::string& o) const {
  std::vector<const Implementation*> v;
  for (const auto& i : impls_)
    if (i.op == o) v.push_back(&i);
  return v;
}

Registry& registry() {
  static Registry r;
  return r;
}

namespace {

using namespace op_support;

enum class Kind { plain, gated, normalized };

// Adapter from the registry's tensors to the optimized/ kernels' pointer API.
template <class T> TensorMap run_opt(const TensorMap& in, Kind kind, bool chunked, int chunk) {
  const char* opname = kind == Kind::plain ? "linear_attention" : kind == Kind::gated ? "gated_linear_attention" : "normalized_linear_attention";
  op(opname).validate(in);
  const auto [B, H, Tn, dk, dv] = dims_of(in, opname);
  const Tensor& q = in.at("q");
  const Tensor& vv = in.at("v");
  auto qd = to<T>(q), kd = to<T>(in.at("k")), vd = to<T>(vv);
  std::vector<T> gd, s0d, z0d, o(static_cast<std::size_t>(B * H * Tn * dv)), s(static_cast<std::size_t>(B * H * dv * dk)),
      z(static_cast<std::size_t>(B * H * dk));
  opt::LinearAttentionArgs<T> a;
  a.B = static_cast<int>(B); a.H = static_cast<int>(H); a.T = static_cast<int>(Tn); a.dk = static_cast<int>(dk); a.dv = static_cast<int>(dv);
  a.q = qd.data(); a.k = kd.data(); a.v = vd.data(); a.o = o.data(); a.s_final = s.data(); a.chunk = chunk;
  if (kind == Kind::gated) { gd = to<T>(in.at("log_gate")); a.log_gate = gd.data(); }
  if (auto it = in.find("s0"); it != in.end()) { s0d = to<T>(it->second); a.s0 = s0d.data(); }
  TensorMap out;
  if (kind == Kind::normalized) {
    if (auto it = in.find("z0"); it != in.end()) z0d = to<T>(it->second);
    opt::normalized_linear_attention_chunked(a, z0d.empty() ? nullptr : z0d.data(), z.data());
    out["z_final"] = from({B, H, dk}, z);
  } else if (chunked) {
    opt::linear_attention_chunked(a);
  } else {
    opt::linear_attention_recurrent(a);
  }
  out["o"] = from({B, H, Tn, dv}, o);
  out["s_final"] = from({B, H, dv, dk}, s);
  return out;
}

template <class T> void add_cpu(Registry& r, Precision p) {
  for (Kind kind : {Kind::plain, Kind::gated}) {
    const std::string opname = kind == Kind::plain ? "linear_attention" : "gated_linear_attention";
    r.add({opname, "cpu.recurrent", "cpu", p, [kind](const TensorMap& in) { return run_opt<T>(in, kind, false, 1); },
           "token-by-token recurrence (optimized/)"});
    for (int c : {16, 64})
      r.add({opname, "cpu.chunked.c" + std::to_string(c), "cpu", p,
             [kind, c](const TensorMap& in) { return run_opt<T>(in, kind, true, c); }, "chunked state passing, Eigen GEMMs"});
  }
  for (int c : {16, 64})
    r.add({"normalized_linear_attention", "cpu.chunked.c" + std::to_string(c), "cpu", p,
           [c](const TensorMap& in) { return run_opt<T>(in, Kind::normalized, true, c); }, "chunked on augmented values [V 1]"});
}

}  // namespace

void register_builtin_implementations() {
  static bool done = false;
  if (done) return;
  done = true;
  Registry& r = registry();
  add_cpu<float>(r, Precision::f32);
  add_cpu<double>(r, Precision::f64);
  register_delta_implementations(r);
  register_softmax_implementations(r);
  register_regression_implementations(r);
  register_hopfield_implementations(r);
  register_omega_implementations(r);
  register_half_storage_twins(r);
  register_gpu_implementations(r);
}

void register_half_storage_twins(Registry& r) {
  std::vector<Implementation> twins;
  for (const Implementation& i : r.all()) {
    if (i.precision != Precision::f32 || i.device != "cpu") continue;
    for (Precision p : {Precision::bf16, Precision::f16}) {
      bool have = false;
      for (const Implementation& j : r.all()) have |= j.op == i.op && j.name == i.name && j.precision == p;
      if (have) continue;
      twins.push_back({i.op, i.name, i.device, p,
                       [run = i.run, p](const TensorMap& in) {
                         TensorMap out = run(in);
                         round_to(out, p);
                         return out;
                       },
                       i.note + "; f32 arithmetic on " + precision_name(p) + " inputs, outputs rounded to " + precision_name(p)});
    }
  }
  for (auto& t : twins) r.add(std::move(t));
}

}  // namespace recall
