// CUDA kernels of gpu/: each runs a block program of programs.hpp with one thread block per head
// (linear attention, delta rule) or per head x query tile (softmax), __syncthreads() between phases.
#include "recall/gpu/kernels.hpp"
#include "launch_util.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <type_traits>
#include <string>
#include <vector>

namespace recall::gpu {

namespace {

struct DeviceCtx {
  template <class F> __device__ void phase(F&& f) {
    f(static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x));
    __syncthreads();
  }
};

template <class In> __global__ void la_kernel(SeqDims d, LaPtrs<In> p) {
  extern __shared__ float sm[];
  DeviceCtx ctx;
  linear_attention_program(ctx, sm, d, p, static_cast<i64>(blockIdx.x));
}
template <class In> __global__ void dr_kernel(SeqDims d, DrPtrs<In> p) {
  extern __shared__ float sm[];
  DeviceCtx ctx;
  delta_rule_program(ctx, sm, d, p, static_cast<i64>(blockIdx.x));
}
template <class In> __global__ void us_kernel(SeqDims d, float inv_tau, UsPtrs<In> p) {
  extern __shared__ float sm[];
  DeviceCtx ctx;
  u_solve_program(ctx, sm, d, inv_tau, p, static_cast<i64>(blockIdx.x));
}
template <class In> __global__ void sm_kernel(SeqDims d, SmLayout L, float scale, SmPtrs<In> p) {
  extern __shared__ float sm[];
  DeviceCtx ctx;
  softmax_program(ctx, sm, d, L, scale, p, static_cast<i64>(blockIdx.x));
}

using detail::cuda_check;
using detail::grid_of;
using detail::set_smem;

// Device buffer owning its memory.
template <class X> struct DBuf {
  X* p = nullptr;
  std::size_t n = 0;
  explicit DBuf(std::size_t count) : n(count) {
    if (count) cuda_check(cudaMalloc(&p, count * sizeof(X)), "cudaMalloc");
  }
  ~DBuf() {
    if (p) cudaFree(p);
  }
  DBuf(const DBuf&) = delete;
  DBuf& operator=(const DBuf&) = delete;
};

template <class X> X from_float(float x);
template <> float from_float<float>(float x) { return x; }
template <> __half from_float<__half>(float x) { return __float2half_rn(x); }
template <> __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

template <class X> void upload(DBuf<X>& d, const float* h) {
  std::vector<X> tmp(d.n);
  for (std::size_t i = 0; i < d.n; ++i) tmp[i] = from_float<X>(h[i]);
  cuda_check(cudaMemcpy(d.p, tmp.data(), d.n * sizeof(X), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
}
void upload_opt(DBuf<float>& d, const float* h) {
  if (h) cuda_check(cudaMemcpy(d.p, h, d.n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
}
// Outputs start as all-ones bytes (a NaN in every float), so an element no thread writes is caught.
void poison(DBuf<float>& d) {
  if (d.n) cuda_check(cudaMemset(d.p, 0xff, d.n * sizeof(float)), "cudaMemset");
}
void download(float* h, const DBuf<float>& d) {
  if (h && d.n) cuda_check(cudaMemcpy(h, d.p, d.n * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
}

template <class In> void run_la(const opt::LinearAttentionArgs<float>& a, const SeqDims& d, bool tc) {
  const std::size_t nq = std::size_t(d.B * d.H * d.T) * d.dk, nv = std::size_t(d.B * d.H * d.T) * d.dv,
                    ng = std::size_t(d.B * d.H * d.T), ns = std::size_t(d.B * d.H) * d.dv * d.dk;
  DBuf<In> q(nq), k(nq), v(nv);
  DBuf<float> g(a.log_gate ? ng : 0), s0(a.s0 ? ns : 0), o(nv), sf(a.s_final ? ns : 0);
  upload(q, a.q);
  upload(k, a.k);
  upload(v, a.v);
  upload_opt(g, a.log_gate);
  upload_opt(s0, a.s0);
  poison(o);
  poison(sf);
  LaPtrs<In> p{q.p, k.p, v.p, g.p, s0.p, o.p, sf.p};
  if constexpr (!std::is_same_v<In, float>) {
    if (tc) {
      LaunchPlan plan = plan_tc_linear_attention(d, device_smem_limit());
      std::size_t free_b = 0, total_b = 0;
      cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
      // the chunk-parallel workspace must leave room: otherwise the sequential program (no workspace)
      if (plan.work_bytes > free_b / 2) plan = plan_tc_linear_attention(d, device_smem_limit(), 0, false);
      launch_tc_linear_attention<In>(d, p, plan, nullptr);
      cuda_check(cudaDeviceSynchronize(), "tensor-core linear attention kernel");
      download(a.o, o);
      download(a.s_final, sf);
      return;
    }
  }
  const LaunchPlan plan = plan_linear_attention(d, d.C, device_smem_limit());
  launch_linear_attention<In>(d, p, plan, nullptr);
  cuda_check(cudaDeviceSynchronize(), "linear attention kernel");
  download(a.o, o);
  download(a.s_final, sf);
}
template <class In> void run_dr(const DeltaRuleArgs& a, const SeqDims& d, bool tc) {
  const std::size_t nq = std::size_t(d.B * d.H * d.T) * d.dk, nv = std::size_t(d.B * d.H * d.T) * d.dv,
                    ng = std::size_t(d.B * d.H * d.T), ns = std::size_t(d.B * d.H) * d.dv * d.dk;
  DBuf<In> q(nq), k(nq), v(nv);
  DBuf<float> b(ng), g(a.log_alpha ? ng : 0), s0(a.s0 ? ns : 0), o(nv), sf(a.s_final ? ns : 0);
  upload(q, a.q);
  upload(k, a.k);
  upload(v, a.v);
  upload_opt(b, a.beta);
  upload_opt(g, a.log_alpha);
  upload_opt(s0, a.s0);
  poison(o);
  poison(sf);
  DrPtrs<In> p{q.p, k.p, v.p, b.p, g.p, s0.p, o.p, sf.p};
  if constexpr (!std::is_same_v<In, float>) {
    if (tc) {
      LaunchPlan plan = plan_tc_delta_rule(d, device_smem_limit());
      std::size_t free_b = 0, total_b = 0;
      cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
      // the chunk-parallel workspace must leave room: otherwise the sequential program (no workspace)
      if (plan.work_bytes > free_b / 2) plan = plan_tc_delta_rule(d, device_smem_limit(), 0, false);
      launch_tc_delta_rule<In>(d, p, plan, nullptr);
      cuda_check(cudaDeviceSynchronize(), "tensor-core delta rule kernel");
      download(a.o, o);
      download(a.s_final, sf);
      return;
    }
  }
  const LaunchPlan plan = plan_delta_rule(d, d.C, device_smem_limit());
  launch_delta_rule<In>(d, p, plan, nullptr);
  cuda_check(cudaDeviceSynchronize(), "delta rule kernel");
  download(a.o, o);
  download(a.s_final, sf);
}
template <class In> void run_sm(const SoftmaxArgs& a, const SeqDims& d, bool tc) {
  const std::size_t nq = std::size_t(d.B * d.H * d.T) * d.dk, nv = std::size_t(d.B * d.H * d.T) * d.dv;
  DBuf<In> q(nq), k(nq), v(nv);
  DBuf<float> o(nv);
  upload(q, a.q);
  upload(k, a.k);
  upload(v, a.v);
  poison(o);
  SmPtrs<In> p{q.p, k.p, v.p, o.p};
  if constexpr (!std::is_same_v<In, float>) {
    if (tc) {
      launch_tc_softmax<In>(d, p, a.scale, plan_tc_softmax(d, device_smem_limit()), nullptr);
      cuda_check(cudaDeviceSynchronize(), "tensor-core softmax kernel");
      download(a.o, o);
      return;
    }
  }
  const LaunchPlan plan = plan_softmax(d, a.tile, device_smem_limit());
  launch_softmax<In>(d, p, a.scale, plan, nullptr);
  cuda_check(cudaDeviceSynchronize(), "softmax kernel");
  download(a.o, o);
}

template <class In> void run_us(const USolveArgs& a, const SeqDims& d, bool tc) {
  const std::size_t nk = std::size_t(d.B * d.H * d.T) * d.dk, nv = std::size_t(d.B * d.H * d.T) * d.dv,
                    nb = std::size_t(d.B * d.H * d.T);
  DBuf<In> k(nk), v(nv);
  DBuf<float> b(a.beta ? nb : 0), u(nv);
  upload(k, a.k);
  upload(v, a.v);
  upload_opt(b, a.beta);
  poison(u);
  UsPtrs<In> p{k.p, v.p, b.p, u.p};
  if constexpr (!std::is_same_v<In, float>) {
    if (tc) {
      launch_tc_u_solve<In>(d, p, 1.0f / a.tau, plan_tc_u_solve(d, device_smem_limit(), device_smem_per_sm()), nullptr);
      cuda_check(cudaDeviceSynchronize(), "tensor-core u-solve kernel");
      download(a.u, u);
      return;
    }
  }
  const LaunchPlan plan = plan_u_solve(d, d.C, device_smem_limit());
  launch_u_solve<In>(d, p, 1.0f / a.tau, plan, nullptr);
  cuda_check(cudaDeviceSynchronize(), "u-solve kernel");
  download(a.u, u);
}

// Resolves Engine::automatic; the tensor-core engine takes 16-bit storage only.
bool use_tc(Storage in, Engine e, const char* who) {
  if (e == Engine::tensor_core && in == Storage::f32)
    throw std::invalid_argument(std::string(who) + ": the tensor-core engine takes bf16 or f16 storage, not f32");
  return e == Engine::tensor_core || (e == Engine::automatic && in != Storage::f32);
}

}  // namespace

const char* engine_name(Engine e) {
  switch (e) {
    case Engine::automatic: return "automatic";
    case Engine::simt: return "simt";
    case Engine::tensor_core: return "tensor_core";
  }
  return "?";
}

const char* storage_name(Storage s) {
  switch (s) {
    case Storage::f32: return "f32";
    case Storage::f16: return "f16";
    case Storage::bf16: return "bf16";
  }
  return "?";
}

std::size_t device_smem_per_sm() {
  int dev = 0, v = 0;
  cuda_check(cudaGetDevice(&dev), "cudaGetDevice");
  cuda_check(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev), "cudaDeviceGetAttribute");
  return static_cast<std::size_t>(v);
}
std::size_t device_smem_limit() {
  int dev = 0, v = 0;
  cuda_check(cudaGetDevice(&dev), "cudaGetDevice");
  cuda_check(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), "cudaDeviceGetAttribute");
  return static_cast<std::size_t>(v);
}

template <class In> void launch_linear_attention(const SeqDims& d, const LaPtrs<In>& p, const LaunchPlan& plan, void* stream) {
  SeqDims dc = d;
  dc.C = plan.C;
  set_smem(la_kernel<In>, plan.smem_bytes);
  la_kernel<In><<<grid_of(plan), plan.threads, plan.smem_bytes, static_cast<cudaStream_t>(stream)>>>(dc, p);
  cuda_check(cudaGetLastError(), "linear attention launch");
}
template <class In> void launch_delta_rule(const SeqDims& d, const DrPtrs<In>& p, const LaunchPlan& plan, void* stream) {
  SeqDims dc = d;
  dc.C = plan.C;
  set_smem(dr_kernel<In>, plan.smem_bytes);
  dr_kernel<In><<<grid_of(plan), plan.threads, plan.smem_bytes, static_cast<cudaStream_t>(stream)>>>(dc, p);
  cuda_check(cudaGetLastError(), "delta rule launch");
}
template <class In> void launch_u_solve(const SeqDims& d, const UsPtrs<In>& p, float inv_tau, const LaunchPlan& plan, void* stream) {
  SeqDims dc = d;
  dc.C = plan.C;
  set_smem(us_kernel<In>, plan.smem_bytes);
  us_kernel<In><<<grid_of(plan), plan.threads, plan.smem_bytes, static_cast<cudaStream_t>(stream)>>>(dc, inv_tau, p);
  cuda_check(cudaGetLastError(), "u-solve launch");
}
template <class In>
void launch_softmax(const SeqDims& d, const SmPtrs<In>& p, float scale, const LaunchPlan& plan, void* stream) {
  const SmLayout L{d.dk, d.dv, plan.Bq, plan.Bk};
  set_smem(sm_kernel<In>, plan.smem_bytes);
  sm_kernel<In><<<grid_of(plan), plan.threads, plan.smem_bytes, static_cast<cudaStream_t>(stream)>>>(d, L, scale, p);
  cuda_check(cudaGetLastError(), "softmax launch");
}

#define RECALL_GPU_INSTANTIATE(In)                                                                                   \
  template void launch_linear_attention<In>(const SeqDims&, const LaPtrs<In>&, const LaunchPlan&, void*);           \
  template void launch_delta_rule<In>(const SeqDims&, const DrPtrs<In>&, const LaunchPlan&, void*);                 \
  template void launch_softmax<In>(const SeqDims&, const SmPtrs<In>&, float, const LaunchPlan&, void*);          \
  template void launch_u_solve<In>(const SeqDims&, const UsPtrs<In>&, float, const LaunchPlan&, void*);
RECALL_GPU_INSTANTIATE(float)
RECALL_GPU_INSTANTIATE(__half)
RECALL_GPU_INSTANTIATE(__nv_bfloat16)

void linear_attention_chunked(const opt::LinearAttentionArgs<float>& a, Storage in, Engine e) {
  const SeqDims d = checked_dims(a.B, a.H, a.T, a.dk, a.dv, a.chunk, a.q, a.k, a.v, a.o, "gpu::linear_attention_chunked");
  const bool tc = use_tc(in, e, "gpu::linear_attention_chunked");
  switch (in) {
    case Storage::f32: run_la<float>(a, d, tc); break;
    case Storage::f16: run_la<__half>(a, d, tc); break;
    case Storage::bf16: run_la<__nv_bfloat16>(a, d, tc); break;
  }
}
void delta_rule_chunked(const DeltaRuleArgs& a, Storage in, Engine e) {
  const SeqDims d = checked_dims(a.B, a.H, a.T, a.dk, a.dv, a.chunk, a.q, a.k, a.v, a.o, "gpu::delta_rule_chunked");
  if (!a.beta) throw std::invalid_argument("gpu::delta_rule_chunked: beta must not be null");
  const bool tc = use_tc(in, e, "gpu::delta_rule_chunked");
  switch (in) {
    case Storage::f32: run_dr<float>(a, d, tc); break;
    case Storage::f16: run_dr<__half>(a, d, tc); break;
    case Storage::bf16: run_dr<__nv_bfloat16>(a, d, tc); break;
  }
}
void softmax_attention_tiled(const SoftmaxArgs& a, Storage in, Engine e) {
  const SeqDims d = checked_dims(a.B, a.H, a.T, a.dk, a.dv, a.tile, a.q, a.k, a.v, a.o, "gpu::softmax_attention_tiled");
  const bool tc = use_tc(in, e, "gpu::softmax_attention_tiled");
  switch (in) {
    case Storage::f32: run_sm<float>(a, d, tc); break;
    case Storage::f16: run_sm<__half>(a, d, tc); break;
    case Storage::bf16: run_sm<__nv_bfloat16>(a, d, tc); break;
  }
}

void u_solve_chunked(const USolveArgs& a, Storage in, Engine e) {
  const SeqDims d = checked_dims(a.B, a.H, a.T, a.dk, a.dv, a.chunk, a.k, a.k, a.v, a.u, "gpu::u_solve_chunked");
  if (!(a.tau > 0)) throw std::invalid_argument("gpu::u_solve_chunked: tau must be > 0");
  const bool tc = use_tc(in, e, "gpu::u_solve_chunked");
  switch (in) {
    case Storage::f32: run_us<float>(a, d, tc); break;
    case Storage::f16: run_us<__half>(a, d, tc); break;
    case Storage::bf16: run_us<__nv_bfloat16>(a, d, tc); break;
  }
}

}  // namespace recall::gpu
