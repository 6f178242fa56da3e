// gpu/ kernels in the registry (DESIGN idea 2): registered only when gpu/ was built (a CUDA
// compiler was found) AND a device is present, so `recall report` and the agreement suite get
// the GPU rows exactly when they can run. The kernels take host pointers (see gpu/kernels.hpp).
#include "recall/properties/registry.hpp"

#if defined(RECALL_HAVE_CUDA)
#include "recall/gpu/device.hpp"
#include "recall/gpu/kernels.hpp"
#endif

#include <cmath>
#include <string>
#include <vector>

namespace recall {

#if defined(RECALL_HAVE_CUDA)
namespace {
std::vector<float> f32(const Tensor& t) { return std::vector<float>(t.data.begin(), t.data.end()); }
Tensor back(std::vector<std::int64_t> shape, const std::vector<float>& v) { return Tensor{std::move(shape), {v.begin(), v.end()}}; }

// Storage of a registry row: the inputs a 16-bit row receives are exact in its format already.
gpu::Storage storage_of(Precision p) { return p == Precision::bf16 ? gpu::Storage::bf16 : p == Precision::f16 ? gpu::Storage::f16 : gpu::Storage::f32; }

TensorMap run_linear(const TensorMap& in, bool gated, Precision p = Precision::f32) {
  const Tensor& q = in.at("q");
  const Tensor& v = in.at("v");
  opt::LinearAttentionArgs<float> a;
  a.B = int(q.shape[0]), a.H = int(q.shape[1]), a.T = int(q.shape[2]), a.dk = int(q.shape[3]), a.dv = int(v.shape[3]);
  auto qq = f32(q), kk = f32(in.at("k")), vv = f32(v);
  std::vector<float> g, s0, o(std::size_t(a.B) * a.H * a.T * a.dv), sf(std::size_t(a.B) * a.H * a.dv * a.dk);
  if (gated) g = f32(in.at("log_gate"));
  if (in.count("s0")) s0 = f32(in.at("s0"));
  a.q = qq.data(), a.k = kk.data(), a.v = vv.data(), a.log_gate = gated ? g.data() : nullptr;
  a.s0 = s0.empty() ? nullptr : s0.data(), a.o = o.data(), a.s_final = sf.data(), a.chunk = 64;
  gpu::linear_attention_chunked(a, storage_of(p));
  TensorMap out{{"o", back({a.B, a.H, a.T, a.dv}, o)}, {"s_final", back({a.B, a.H, a.dv, a.dk}, sf)}};
  if (is_half(p)) round_to(out, p);
  return out;
}
TensorMap run_delta(const TensorMap& in, bool gated, Precision p = Precision::f32) {
  const Tensor& q = in.at("q");
  const Tensor& v = in.at("v");
  gpu::DeltaRuleArgs a;
  a.B = int(q.shape[0]), a.H = int(q.shape[1]), a.T = int(q.shape[2]), a.dk = int(q.shape[3]), a.dv = int(v.shape[3]);
  auto qq = f32(q), kk = f32(in.at("k")), vv = f32(v), bb = f32(in.at("beta"));
  std::vector<float> g, s0, o(std::size_t(a.B) * a.H * a.T * a.dv), sf(std::size_t(a.B) * a.H * a.dv * a.dk);
  if (gated) g = f32(in.at("log_alpha"));
  if (in.count("s0")) s0 = f32(in.at("s0"));
  a.q = qq.data(), a.k = kk.data(), a.v = vv.data(), a.beta = bb.data(), a.log_alpha = gated ? g.data() : nullptr;
  a.s0 = s0.empty() ? nullptr : s0.data(), a.o = o.data(), a.s_final = sf.data(), a.chunk = 64;
  gpu::delta_rule_chunked(a, storage_of(p));
  TensorMap out{{"o", back({a.B, a.H, a.T, a.dv}, o)}, {"s_final", back({a.B, a.H, a.dv, a.dk}, sf)}};
  if (is_half(p)) round_to(out, p);
  return out;
}
TensorMap run_softmax(const TensorMap& in, Precision p) {
  const Tensor& q = in.at("q");
  const Tensor& v = in.at("v");
  gpu::SoftmaxArgs a;
  a.B = int(q.shape[0]), a.H = int(q.shape[1]), a.T = int(q.shape[2]), a.dk = int(q.shape[3]), a.dv = int(v.shape[3]);
  auto qq = f32(q), kk = f32(in.at("k")), vv = f32(v);
  std::vector<float> o(std::size_t(a.B) * a.H * a.T * a.dv);
  const auto sc = in.find("scale");
  a.scale = sc == in.end() ? float(1.0 / std::sqrt(double(a.dk))) : float(sc->second.data[0]);
  a.q = qq.data(), a.k = kk.data(), a.v = vv.data(), a.o = o.data();
  gpu::softmax_attention_tiled(a, storage_of(p));
  TensorMap out{{"o", back({a.B, a.H, a.T, a.dv}, o)}};
  if (is_half(p)) round_to(out, p);
  return out;
}
}  // namespace

bool gpu_available(std::string* why) { return gpu::device_count(why) > 0; }

void register_gpu_implementations(Registry& r) {
  if (!gpu_available(nullptr)) return;
  const std::string dev = "cuda:0 " + gpu::device_name();
  r.add({"linear_attention", "cuda.chunked", dev, Precision::f32, [](const TensorMap& in) { return run_linear(in, false); },
         "gpu/ chunked block program, fp32"});
  r.add({"gated_linear_attention", "cuda.chunked", dev, Precision::f32, [](const TensorMap& in) { return run_linear(in, true); },
         "gpu/ chunked block program, fp32"});
  r.add({"delta_rule", "cuda.chunked", dev, Precision::f32, [](const TensorMap& in) { return run_delta(in, false); },
         "gpu/ WY/UT block program, fp32"});
  r.add({"gated_delta_rule", "cuda.chunked", dev, Precision::f32, [](const TensorMap& in) { return run_delta(in, true); },
         "gpu/ WY/UT block program, fp32"});
  // tensor-core programs (gpu/include/recall/gpu/tc_linear_parallel.hpp, tc_delta_parallel.hpp,
  // tc_softmax_mma.hpp; the sequential and WMMA ones in tc_programs.hpp): 16-bit operands, fp32 accumulation
  for (Precision p : {Precision::bf16, Precision::f16}) {
    const std::string fmt = precision_name(p);
    r.add({"linear_attention", "cuda.tc", dev, p, [p](const TensorMap& in) { return run_linear(in, false, p); },
           "gpu/ tensor-core chunk-parallel program (three passes), " + fmt + " operands, fp32 accumulation, outputs rounded to " + fmt});
    r.add({"gated_linear_attention", "cuda.tc", dev, p, [p](const TensorMap& in) { return run_linear(in, true, p); },
           "gpu/ tensor-core chunk-parallel program (three passes), " + fmt + " operands, fp32 accumulation, outputs rounded to " + fmt});
    r.add({"delta_rule", "cuda.tc", dev, p, [p](const TensorMap& in) { return run_delta(in, false, p); },
           "gpu/ tensor-core chunk-parallel UT program (fp32 substitution, two-GEMM state walk), " + fmt + " operands, outputs rounded to " + fmt});
    r.add({"gated_delta_rule", "cuda.tc", dev, p, [p](const TensorMap& in) { return run_delta(in, true, p); },
           "gpu/ tensor-core chunk-parallel UT program (fp32 substitution, two-GEMM state walk), " + fmt + " operands, outputs rounded to " + fmt});
    r.add({"softmax_attention", "cuda.tc", dev, p, [p](const TensorMap& in) { return run_softmax(in, p); },
           "gpu/ FlashAttention-2-style mma.sync program (registers; WMMA above d = 128), " + fmt + " operands, fp32 accumulation, outputs rounded to " + fmt});
  }
}
#else
bool gpu_available(std::string* why) {
  if (why) *why = "gpu/ was not built (no CUDA compiler found at configure time)";
  return false;
}
void register_gpu_implementations(Registry&) {}
#endif

}  // namespace recall
