// Google Benchmark of gpu/ kernels, timed with CUDA events around the kernel alone (inputs on the
// device), reporting tokens/s, achieved TFLOP/s (algorithmic FLOPs, the same formulas for every
// engine) and, for the tensor-core rows, the fraction of the device's dense bf16/f16 tensor-core
// peak; the CPU twin on the same shapes for comparison. Without a device every benchmark is skipped
// with the reason.
//
// Rows: BM_Gpu<Op> are the fp32 SIMT programs (f32 inputs, B=1 H=4); BM_GpuTc<Op> the tensor-core
// programs with bf16 inputs at B=1 H=4 (the same shapes, for the ratio) and at the training shape
// B=8 H=16 (T=4096, softmax T=8192, d=128).
#include "recall/gpu/device.hpp"
#include "recall/gpu/kernels.hpp"
#include "recall/optimized/linear_attention.hpp"

#include <benchmark/benchmark.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {
using namespace recall;

bool have_device(benchmark::State& st) {
  std::string why;
  if (gpu::device_count(&why) == 0) {
    st.SkipWithError(("no CUDA device: " + why).c_str());
    return false;
  }
  return true;
}
// Uniform values in [-a, a] from a 64-bit mix of (seed, index): cheap enough for the 10^8-element
// inputs of the training shapes (a normal generator takes seconds per tensor there).
inline float hash_uniform(std::uint64_t seed, std::uint64_t i, float a) {
  std::uint64_t z = (seed + 1) * 0x9e3779b97f4a7c15ULL + i * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 31)) * 0x94d049bb133111ebULL;
  z ^= z >> 29;
  return a * (float(z >> 40) * (2.0f / 16777216.0f) - 1.0f);
}
struct DevArray {
  float* p = nullptr;
  // fill_seed 0: an output buffer (not filled); gates: values in [-0.1, 0] (log gates <= 0)
  explicit DevArray(std::size_t n, float fill_seed, bool gates = false) {
    cudaMalloc(&p, n * sizeof(float));
    if (fill_seed == 0) return;
    std::vector<float> h(n);
    for (std::size_t i = 0; i < n; ++i) {
      const float x = hash_uniform(std::uint64_t(fill_seed * 1000), i, 0.17f);
      h[i] = gates ? -0.05f + 0.3f * x : x;
    }
    cudaMemcpy(p, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  }
  ~DevArray() { cudaFree(p); }
};
// Dense 16-bit tensor-core peak of device 0 in FLOP/s (FLOP per clock per SM x SMs x clock):
// sm_90 4096, sm_80 / sm_87 2048, sm_86 / sm_89 1024; 0 where unknown.
double dense_tc_peak() {
  int dev = 0, sms = 0, khz = 0, major = 0, minor = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  const int cc = major * 10 + minor;
  const double per_clk = cc == 90 ? 4096 : (cc == 80 || cc == 87) ? 2048 : (cc == 86 || cc == 89) ? 1024 : 0;
  return per_clk * sms * khz * 1e3;
}
struct DevBf16 {
  __nv_bfloat16* p = nullptr;
  explicit DevBf16(std::size_t n, float fill_seed, float a = 0.17f) {
    cudaMalloc(&p, n * sizeof(__nv_bfloat16));
    std::vector<__nv_bfloat16> h(n);
    for (std::size_t i = 0; i < n; ++i) h[i] = __float2bfloat16_rn(hash_uniform(std::uint64_t(fill_seed * 1000), i, a));
    cudaMemcpy(p, h.data(), n * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice);
  }
  ~DevBf16() { cudaFree(p); }
};

template <class Launch> void time_events(benchmark::State& st, Launch&& launch, double flops, double tokens) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  launch();  // warm-up (and cudaFuncSetAttribute)
  cudaDeviceSynchronize();
  for (auto _ : st) {
    cudaEventRecord(a);
    launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    st.SetIterationTime(ms / 1e3);
  }
  st.counters["TFLOP/s"] = benchmark::Counter(flops / 1e12, benchmark::Counter::kIsIterationInvariantRate);
  st.counters["tok/s"] = benchmark::Counter(tokens, benchmark::Counter::kIsIterationInvariantRate);
  const double peak = dense_tc_peak();
  if (peak > 0) st.counters["frac_tc_peak"] = benchmark::Counter(flops / peak, benchmark::Counter::kIsIterationInvariantRate);
  st.SetLabel(gpu::device_name());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
}

void BM_GpuLinearAttention(benchmark::State& st) {
  if (!have_device(st)) return;
  gpu::SeqDims d;
  d.B = 1, d.H = 4, d.T = st.range(0), d.dk = int(st.range(1)), d.dv = int(st.range(1)), d.C = 64;
  const std::size_t n = std::size_t(d.B * d.H * d.T) * d.dk;
  DevArray q(n, 1), k(n, 2), v(n, 3), o(n, 0);
  const gpu::LaunchPlan plan = gpu::plan_linear_attention(d, 64, gpu::device_smem_limit());
  gpu::LaPtrs<float> p{q.p, k.p, v.p, nullptr, nullptr, o.p, nullptr};
  const double flops = double(d.B * d.H) * 2.0 * d.T * (plan.C * d.dk + plan.C * d.dv + 2.0 * d.dk * d.dv);
  time_events(st, [&] { gpu::launch_linear_attention(d, p, plan, nullptr); }, flops, double(d.B * d.H * d.T));
}
void BM_GpuDeltaRule(benchmark::State& st) {
  if (!have_device(st)) return;
  gpu::SeqDims d;
  d.B = 1, d.H = 4, d.T = st.range(0), d.dk = int(st.range(1)), d.dv = int(st.range(1)), d.C = 64;
  const std::size_t n = std::size_t(d.B * d.H * d.T) * d.dk, nb = std::size_t(d.B * d.H * d.T);
  DevArray q(n, 1), k(n, 2), v(n, 3), o(n, 0), beta(nb, 4);
  const gpu::LaunchPlan plan = gpu::plan_delta_rule(d, 64, gpu::device_smem_limit());
  gpu::DrPtrs<float> p{q.p, k.p, v.p, beta.p, nullptr, nullptr, o.p, nullptr};
  const double C = plan.C;
  const double flops = double(d.B * d.H) * d.T * (2.0 * C * d.dk * 2 + C * d.dv + 2.0 * d.dk * d.dv * 3);
  time_events(st, [&] { gpu::launch_delta_rule(d, p, plan, nullptr); }, flops, double(d.B * d.H * d.T));
}
void BM_GpuSoftmax(benchmark::State& st) {
  if (!have_device(st)) return;
  gpu::SeqDims d;
  d.B = 1, d.H = 4, d.T = st.range(0), d.dk = int(st.range(1)), d.dv = int(st.range(1));
  const std::size_t n = std::size_t(d.B * d.H * d.T) * d.dk;
  DevArray q(n, 1), k(n, 2), v(n, 3), o(n, 0);
  const gpu::LaunchPlan plan = gpu::plan_softmax(d, 64, gpu::device_smem_limit());  // (inputs in [-0.17, 0.17])
  gpu::SmPtrs<float> p{q.p, k.p, v.p, o.p};
  const double flops = double(d.B * d.H) * 2.0 * double(d.T) * double(d.T + 1) / 2 * (d.dk + d.dv);
  time_events(st, [&] { gpu::launch_softmax(d, p, 0.125f, plan, nullptr); }, flops, double(d.B * d.H * d.T));
}
void BM_GpuUSolve(benchmark::State& st) {
  if (!have_device(st)) return;
  gpu::SeqDims d;
  d.B = 1, d.H = 4, d.T = st.range(0), d.dk = int(st.range(1)), d.dv = int(st.range(1)), d.C = 64;
  const std::size_t n = std::size_t(d.B * d.H * d.T) * d.dk;
  DevArray k(n, 2), v(n, 3), u(n, 0);
  const gpu::LaunchPlan plan = gpu::plan_u_solve(d, 64, gpu::device_smem_limit());
  gpu::UsPtrs<float> p{k.p, v.p, nullptr, u.p};
  const double flops = double(d.B * d.H) * double(d.T) * double(d.T) * (d.dk + d.dv);  // T^2/2 pairs x 2(dk + dv)
  time_events(st, [&] { gpu::launch_u_solve(d, p, 1.0f / 16, plan, nullptr); }, flops, double(d.B * d.H * d.T));
}
// CPU twin on the same shape (single thread), for the ratio.
void BM_CpuLinearAttentionTwin(benchmark::State& st) {
  opt::LinearAttentionArgs<float> a;
  a.B = 1, a.H = 4, a.T = int(st.range(0)), a.dk = int(st.range(1)), a.dv = int(st.range(1)), a.chunk = 64;
  const std::size_t n = std::size_t(a.B * a.H * a.T) * a.dk;
  std::vector<float> q(n, 0.01f), k(n, 0.02f), v(n, 0.03f), o(n);
  a.q = q.data(), a.k = k.data(), a.v = v.data(), a.o = o.data();
  for (auto _ : st) opt::linear_attention_chunked(a);
  const double flops = double(a.B * a.H) * 2.0 * a.T * (64.0 * a.dk + 64.0 * a.dv + 2.0 * a.dk * a.dv);
  st.counters["TFLOP/s"] = benchmark::Counter(flops / 1e12, benchmark::Counter::kIsIterationInvariantRate);
  st.counters["tok/s"] = benchmark::Counter(double(a.B * a.H * a.T), benchmark::Counter::kIsIterationInvariantRate);
}
// ---- tensor-core rows, bf16 inputs: args {B, H, T, d} ----
gpu::SeqDims tc_dims(benchmark::State& st) {
  gpu::SeqDims d;
  d.B = st.range(0), d.H = st.range(1), d.T = st.range(2), d.dk = int(st.range(3)), d.dv = int(st.range(3)), d.C = 64;
  return d;
}
// linear attention's fifth argument: 0 = the host entry points' plan (chunk-parallel, three passes;
// the time includes the stream-ordered workspace allocation), 1 = the sequential program (one block
// per head and value tile walking the chunks), for comparison in the same run
void BM_GpuTcLinearAttention(benchmark::State& st, bool gated) {
  if (!have_device(st)) return;
  const gpu::SeqDims d = tc_dims(st);
  const std::size_t n = std::size_t(d.B * d.H * d.T) * d.dk, nb = std::size_t(d.B * d.H * d.T);
  DevBf16 q(n, 1), k(n, 2), v(n, 3);
  DevArray o(n, 0), g(nb, 5, true);
  const gpu::LaunchPlan plan =
      gpu::plan_tc_linear_attention(d, gpu::device_smem_limit(), 0, st.range(4) == 0);
  st.counters["value_tile"] = plan.vt;
  gpu::LaPtrs<__nv_bfloat16> p{q.p, k.p, v.p, gated ? g.p : nullptr, nullptr, o.p, nullptr};
  const double flops = double(d.B * d.H) * 2.0 * d.T * (64.0 * d.dk + 64.0 * d.dv + 2.0 * d.dk * d.dv);
  time_events(st, [&] { gpu::launch_tc_linear_attention(d, p, plan, nullptr); }, flops, double(d.B * d.H * d.T));
}
void BM_GpuTcDeltaRule(benchmark::State& st, bool gated) {
  if (!have_device(st)) return;
  const gpu::SeqDims d = tc_dims(st);
  const std::size_t n = std::size_t(d.B * d.H * d.T) * d.dk, nb = std::size_t(d.B * d.H * d.T);
  DevBf16 q(n, 1), k(n, 2, 0.1f), v(n, 3);
  DevArray o(n, 0), beta(nb, 4), g(nb, 5, true);
  // fifth argument as for linear attention: 0 = chunk-parallel (the entry points' plan), 1 = sequential
  const gpu::LaunchPlan plan = gpu::plan_tc_delta_rule(d, gpu::device_smem_limit(), 0, st.range(4) == 0);
  st.counters["value_tile"] = plan.vt;
  gpu::DrPtrs<__nv_bfloat16> p{q.p, k.p, v.p, beta.p, gated ? g.p : nullptr, nullptr, o.p, nullptr};
  const double C = 64;
  const double flops = double(d.B * d.H) * d.T * (2.0 * C * d.dk * 2 + C * d.dv + 2.0 * d.dk * d.dv * 3);
  time_events(st, [&] { gpu::launch_tc_delta_rule(d, p, plan, nullptr); }, flops, double(d.B * d.H * d.T));
}
void BM_GpuTcSoftmax(benchmark::State& st) {
  if (!have_device(st)) return;
  const gpu::SeqDims d = tc_dims(st);
  const std::size_t n = std::size_t(d.B * d.H * d.T) * d.dk;
  DevBf16 q(n, 1, 1.7f), k(n, 2, 1.7f), v(n, 3, 1.7f);
  DevArray o(n, 0);
  const gpu::LaunchPlan plan = gpu::plan_tc_softmax(d, gpu::device_smem_limit());
  gpu::SmPtrs<__nv_bfloat16> p{q.p, k.p, v.p, o.p};
  const double flops = double(d.B * d.H) * 2.0 * double(d.T) * double(d.T + 1) / 2 * (d.dk + d.dv);
  time_events(st, [&] { gpu::launch_tc_softmax(d, p, 1.0f / std::sqrt(float(d.dk)), plan, nullptr); }, flops, double(d.B * d.H * d.T));
}
void BM_GpuTcUSolve(benchmark::State& st) {
  if (!have_device(st)) return;
  const gpu::SeqDims d = tc_dims(st);
  const std::size_t n = std::size_t(d.B * d.H * d.T) * d.dk;
  DevBf16 k(n, 2), v(n, 3);
  DevArray u(n, 0);
  const gpu::LaunchPlan plan = gpu::plan_tc_u_solve(d, gpu::device_smem_limit(), gpu::device_smem_per_sm());
  st.counters["value_tile"] = plan.vt;
  gpu::UsPtrs<__nv_bfloat16> p{k.p, v.p, nullptr, u.p};
  const double flops = double(d.B * d.H) * double(d.T) * double(d.T) * (d.dk + d.dv);
  time_events(st, [&] { gpu::launch_tc_u_solve(d, p, 1.0f / 16, plan, nullptr); }, flops, double(d.B * d.H * d.T));
}
BENCHMARK_CAPTURE(BM_GpuTcLinearAttention, ungated, false)
    ->Args({1, 4, 4096, 128, 0})
    ->Args({8, 16, 4096, 128, 0})
    ->Args({8, 16, 4096, 128, 1})
    ->UseManualTime();
BENCHMARK_CAPTURE(BM_GpuTcLinearAttention, gated, true)->Args({8, 16, 4096, 128, 0})->Args({8, 16, 4096, 128, 1})->UseManualTime();
BENCHMARK_CAPTURE(BM_GpuTcDeltaRule, ungated, false)
    ->Args({1, 4, 4096, 128, 0})
    ->Args({8, 16, 4096, 128, 0})
    ->Args({8, 16, 4096, 128, 1})
    ->UseManualTime();
BENCHMARK_CAPTURE(BM_GpuTcDeltaRule, gated, true)->Args({8, 16, 4096, 128, 0})->Args({8, 16, 4096, 128, 1})->UseManualTime();
BENCHMARK(BM_GpuTcSoftmax)->Args({1, 4, 8192, 128})->Args({8, 16, 8192, 128})->UseManualTime();
BENCHMARK(BM_GpuTcUSolve)->Args({1, 4, 8192, 128})->Args({8, 16, 4096, 128})->UseManualTime();
// the fp32 SIMT programs (f32 inputs, B=1 H=4): BM_Gpu<Op>/T/d

BENCHMARK(BM_GpuLinearAttention)->ArgsProduct({{4096, 16384}, {64, 128}})->UseManualTime();
BENCHMARK(BM_GpuDeltaRule)->ArgsProduct({{4096, 16384}, {64, 128}})->UseManualTime();
BENCHMARK(BM_GpuSoftmax)->ArgsProduct({{512, 2048, 8192}, {64, 128}})->UseManualTime();
BENCHMARK(BM_GpuUSolve)->ArgsProduct({{2048, 8192}, {64, 128}})->UseManualTime();
BENCHMARK(BM_CpuLinearAttentionTwin)->ArgsProduct({{4096}, {64, 128}});
}  // namespace

BENCHMARK_MAIN();
