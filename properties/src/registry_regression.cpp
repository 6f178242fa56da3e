// Registry adapters of the test-time-regression kernels (optimized/regression.hpp).
#include "recall/properties/registry.hpp"

#include "op_support.hpp"
#include "recall/optimized/regression.hpp"
#include "recall/properties/ops.hpp"

namespace recall {
namespace {

using namespace op_support;

template <class T> TensorMap run_ls(const TensorMap& in, bool gated) {
  const std::string opname = gated ? "weighted_least_squares_attention" : "least_squares_attention";
  op(opname).validate(in);
  const auto [B, H, Tn, dk, dv] = dims_of(in, opname);
  auto qd = to<T>(in.at("q")), kd = to<T>(in.at("k")), vd = to<T>(in.at("v"));
  std::vector<T> gd, o(static_cast<std::size_t>(B * H * Tn * dv)), s(static_cast<std::size_t>(B * H * dv * dk));
  opt::RegressionArgs<T> a;
  a.B = static_cast<int>(B); a.H = static_cast<int>(H); a.T = static_cast<int>(Tn); a.dk = static_cast<int>(dk); a.dv = static_cast<int>(dv);
  a.q = qd.data(); a.k = kd.data(); a.v = vd.data(); a.o = o.data(); a.s_final = s.data();
  if (gated) { gd = to<T>(in.at("log_gate")); a.log_gate = gd.data(); }
  opt::least_squares_scan_solve(a);
  TensorMap out;
  out["o"] = from({B, H, Tn, dv}, o);
  out["s_final"] = from({B, H, dv, dk}, s);
  return out;
}

template <class T> TensorMap run_local_linear(const TensorMap& in, int block) {
  const std::string opname = "local_linear_attention";
  op(opname).validate(in);
  const auto [B, H, Tn, dk, dv] = dims_of(in, opname);
  auto qd = to<T>(in.at("q")), kd = to<T>(in.at("k")), vd = to<T>(in.at("v"));
  std::vector<T> o(static_cast<std::size_t>(B * H * Tn * dv));
  opt::RegressionArgs<T> a;
  a.B = static_cast<int>(B); a.H = static_cast<int>(H); a.T = static_cast<int>(Tn); a.dk = static_cast<int>(dk); a.dv = static_cast<int>(dv);
  a.q = qd.data(); a.k = kd.data(); a.v = vd.data(); a.o = o.data(); a.chunk = block;
  const T scale = in.count("scale") ? static_cast<T>(in.at("scale").data[0]) : T(1) / std::sqrt(static_cast<T>(dk));
  opt::local_linear_attention_stream(a, scale);
  TensorMap out;
  out["o"] = from({B, H, Tn, dv}, o);
  return out;
}

template <class T> void add(Registry& r, Precision p) {
  for (bool gated : {false, true})
    r.add({gated ? "weighted_least_squares_attention" : "least_squares_attention", "cpu.scan_solve", "cpu", p,
           [gated](const TensorMap& in) { return run_ls<T>(in, gated); }, "gated moment scans + per-token Cholesky (A001-F05/F06)"});
  for (int blk : {16, 64})
    r.add({"local_linear_attention", "cpu.stream.b" + std::to_string(blk), "cpu", p,
           [blk](const TensorMap& in) { return run_local_linear<T>(in, blk); }, "five-reduction streaming form, running max (A001-F12)"});
}

}  // namespace

void register_regression_implementations(Registry& r) {
  add<float>(r, Precision::f32);
  add<double>(r, Precision::f64);
}

}  // namespace recall
