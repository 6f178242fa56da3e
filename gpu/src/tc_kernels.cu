// Tensor-core kernels of gpu/ (bf16 / f16 storage, fp32 accumulation): each runs a block program of
// tc_programs.hpp; phases end in __syncthreads(), warp steps in __syncwarp().
#include "recall/gpu/kernels.hpp"
#include "launch_util.cuh"
#include "recall/gpu/tc_programs.hpp"
#include "recall/gpu/tc_delta_parallel.hpp"
#include "recall/gpu/tc_linear_parallel.hpp"
#include "recall/gpu/tc_softmax_mma.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace recall::gpu {

namespace {

struct DevWarp {
  int lane;
  template <class G> __device__ void each(G&& g) {
    g(lane);
    __syncwarp();
  }
  template <class G> __device__ void regs(G&& g) { g(lane); }  // the lane's own registers: no sync
};
struct TcDeviceCtx {
  template <class F> __device__ void phase(F&& f) {
    f(static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x));
    __syncthreads();
  }
  template <class F> __device__ void warps(F&& f) {
    DevWarp w{static_cast<int>(threadIdx.x & 31u)};
    f(static_cast<int>(threadIdx.x >> 5), static_cast<int>(blockDim.x >> 5), w);
    __syncthreads();
  }
  // cp.async of 16 bytes global -> shared (mma.hpp); retired by the enclosing phase_async
  __device__ void copy16(void* dst, const void* src) {
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");
  }
  template <class F> __device__ void phase_async(F&& f, int keep) {
    f(static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x));
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    if (keep > 0) asm volatile("cp.async.wait_group 1;\n" ::: "memory");
    else asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    __syncthreads();
  }
};

template <class In> __global__ void __launch_bounds__(kTcThreads) tc_la_kernel(SeqDims d, int vt, LaPtrs<In> p) {
  extern __shared__ __align__(128) unsigned char smb[];
  TcDeviceCtx ctx;
  tc_linear_attention_program(ctx, smb, d, vt, p, static_cast<i64>(blockIdx.x));
}
template <class In> __global__ void __launch_bounds__(kTcThreads) tc_la_state_kernel(SeqDims d, int vt, LaPtrs<In> p, LaWork<In> w) {
  extern __shared__ __align__(128) unsigned char smb[];
  TcDeviceCtx ctx;
  tc_la_chunk_state_program(ctx, smb, d, vt, p, w, static_cast<i64>(blockIdx.x));
}
template <class In> __global__ void __launch_bounds__(kTcThreads) tc_la_scan_kernel(SeqDims d, int vt, LaPtrs<In> p, LaWork<In> w) {
  TcDeviceCtx ctx;
  tc_la_state_pass_program(ctx, d, vt, p, w, static_cast<i64>(blockIdx.x));
}
template <class In> __global__ void __launch_bounds__(kTcThreads) tc_la_out_kernel(SeqDims d, int vt, LaPtrs<In> p, LaWork<In> w) {
  extern __shared__ __align__(128) unsigned char smb[];
  TcDeviceCtx ctx;
  tc_la_chunk_output_program(ctx, smb, d, vt, p, w, static_cast<i64>(blockIdx.x));
}
template <class In> __global__ void __launch_bounds__(kTcThreads) tc_dr_ut_kernel(SeqDims d, int vt, DrPtrs<In> p, DrWork<In> w) {
  extern __shared__ __align__(128) unsigned char smb[];
  TcDeviceCtx ctx;
  tc_dr_ut_program(ctx, smb, d, vt, p, w, static_cast<i64>(blockIdx.x));
}
template <class In> __global__ void __launch_bounds__(kTcThreads) tc_dr_state_kernel(SeqDims d, int vt, DrPtrs<In> p, DrWork<In> w) {
  extern __shared__ __align__(128) unsigned char smb[];
  TcDeviceCtx ctx;
  tc_dr_state_program(ctx, smb, d, vt, p, w, static_cast<i64>(blockIdx.x));
}
template <class In> __global__ void __launch_bounds__(kTcDrThreads) tc_dr_kernel(SeqDims d, int vt, DrPtrs<In> p) {
  extern __shared__ __align__(128) unsigned char smb[];
  TcDeviceCtx ctx;
  tc_delta_rule_program(ctx, smb, d, vt, p, static_cast<i64>(blockIdx.x));
}
template <class In> __global__ void __launch_bounds__(kTcSmThreads) tc_sm_kernel(SeqDims d, float scale, SmPtrs<In> p) {
  extern __shared__ __align__(128) unsigned char smb[];
  TcDeviceCtx ctx;
  tc_softmax_program(ctx, smb, d, scale, p, static_cast<i64>(blockIdx.x));
}
template <class In, int KS, int NV> __global__ void __launch_bounds__(kMmaSmThreads) tc_sm_mma_kernel(SeqDims d, float scale, SmPtrs<In> p) {
  extern __shared__ __align__(128) unsigned char smb[];
  TcDeviceCtx ctx;
  tc_softmax_mma_program<KS, NV>(ctx, smb, d, scale, p, static_cast<i64>(blockIdx.x));
}
template <class In> __global__ void __launch_bounds__(kTcThreads) tc_us_kernel(SeqDims d, int vt, float inv_tau, UsPtrs<In> p) {
  extern __shared__ __align__(128) unsigned char smb[];
  TcDeviceCtx ctx;
  tc_u_solve_program(ctx, smb, d, vt, inv_tau, p, static_cast<i64>(blockIdx.x));
}

using detail::cuda_check;
using detail::grid_of;
using detail::set_smem;
// The chunk-parallel programs take their workspace from the device's default stream-ordered pool.
// Its release threshold is 0 by default, which hands the memory back to the driver at every
// synchronisation, so each call would pay a fresh allocation of up to a gigabyte; keep it cached.
void keep_workspace_pool() {
  int dev = 0;
  cuda_check(cudaGetDevice(&dev), "cudaGetDevice");
  cudaMemPool_t pool;
  cuda_check(cudaDeviceGetDefaultMemPool(&pool, dev), "cudaDeviceGetDefaultMemPool");
  std::uint64_t keep = ~std::uint64_t(0);
  cuda_check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute(ReleaseThreshold)");
}
void check_plan(const LaunchPlan& plan, int max_threads, const char* who) {
  if (plan.vt < 16 && plan.Bq == 0) throw std::invalid_argument(std::string(who) + ": not a tensor-core plan (use plan_tc_*)");
  if (plan.threads > max_threads || plan.threads % 32)
    throw std::invalid_argument(std::string(who) + ": the plan's " + std::to_string(plan.threads) + " threads exceed the kernel's bound " +
                                std::to_string(max_threads) + " or are not whole warps");
}

}  // namespace

template <class In> void launch_tc_linear_attention(const SeqDims& d, const LaPtrs<In>& p, const LaunchPlan& plan, void* stream) {
  check_plan(plan, kTcThreads, "launch_tc_linear_attention");
  if (plan.chunk_parallel) {  // three passes through a stream-ordered workspace
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    void* base = nullptr;
    keep_workspace_pool();
    cuda_check(cudaMallocAsync(&base, plan.work_bytes, s), "tensor-core linear attention: workspace allocation");
    const LaWork<In> w = la_work_carve<In>(base, d, plan.vt);
    set_smem(tc_la_state_kernel<In>, plan.smem_bytes);
    tc_la_state_kernel<In><<<grid_of(plan), plan.threads, plan.smem_bytes, s>>>(d, plan.vt, p, w);
    cuda_check(cudaGetLastError(), "tensor-core linear attention: chunk-state pass launch");
    LaunchPlan scan = plan;
    scan.grid = plan.grid_scan;
    tc_la_scan_kernel<In><<<grid_of(scan), plan.threads, 0, s>>>(d, plan.vt, p, w);
    cuda_check(cudaGetLastError(), "tensor-core linear attention: state pass launch");
    LaunchPlan out = plan;
    out.grid = plan.grid_out;
    set_smem(tc_la_out_kernel<In>, plan.smem_out);
    tc_la_out_kernel<In><<<grid_of(out), plan.threads, plan.smem_out, s>>>(d, plan.vt, p, w);
    cuda_check(cudaGetLastError(), "tensor-core linear attention: output pass launch");
    cuda_check(cudaFreeAsync(base, s), "tensor-core linear attention: workspace release");
    return;
  }
  set_smem(tc_la_kernel<In>, plan.smem_bytes);
  tc_la_kernel<In><<<grid_of(plan), plan.threads, plan.smem_bytes, static_cast<cudaStream_t>(stream)>>>(d, plan.vt, p);
  cuda_check(cudaGetLastError(), "tensor-core linear attention launch");
}
template <class In> void launch_tc_delta_rule(const SeqDims& d, const DrPtrs<In>& p, const LaunchPlan& plan, void* stream) {
  check_plan(plan, kTcDrThreads, "launch_tc_delta_rule");
  if (plan.chunk_parallel) {  // three passes through a stream-ordered workspace
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    void* base = nullptr;
    keep_workspace_pool();
    cuda_check(cudaMallocAsync(&base, plan.work_bytes, s), "tensor-core delta rule: workspace allocation");
    const DrWork<In> w = dr_work_carve<In>(base, d, plan.vt);
    set_smem(tc_dr_ut_kernel<In>, plan.smem_bytes);
    tc_dr_ut_kernel<In><<<grid_of(plan), plan.threads, plan.smem_bytes, s>>>(d, plan.vt, p, w);
    cuda_check(cudaGetLastError(), "tensor-core delta rule: UT pass launch");
    LaunchPlan scan = plan, out = plan;
    scan.grid = plan.grid_scan, out.grid = plan.grid_out;
    set_smem(tc_dr_state_kernel<In>, plan.smem_scan);
    tc_dr_state_kernel<In><<<grid_of(scan), plan.threads, plan.smem_scan, s>>>(d, plan.vt, p, w);
    cuda_check(cudaGetLastError(), "tensor-core delta rule: state pass launch");
    set_smem(tc_la_out_kernel<In>, plan.smem_out);
    tc_la_out_kernel<In><<<grid_of(out), plan.threads, plan.smem_out, s>>>(d, plan.vt, dr_output_view(p), w.la);
    cuda_check(cudaGetLastError(), "tensor-core delta rule: output pass launch");
    cuda_check(cudaFreeAsync(base, s), "tensor-core delta rule: workspace release");
    return;
  }
  set_smem(tc_dr_kernel<In>, plan.smem_bytes);
  tc_dr_kernel<In><<<grid_of(plan), plan.threads, plan.smem_bytes, static_cast<cudaStream_t>(stream)>>>(d, plan.vt, p);
  cuda_check(cudaGetLastError(), "tensor-core delta rule launch");
}
template <class In, int KS, int NV> void launch_sm_mma(const SeqDims& d, const SmPtrs<In>& p, float scale, const LaunchPlan& plan, void* stream) {
  set_smem(tc_sm_mma_kernel<In, KS, NV>, plan.smem_bytes);
  tc_sm_mma_kernel<In, KS, NV><<<grid_of(plan), plan.threads, plan.smem_bytes, static_cast<cudaStream_t>(stream)>>>(d, scale, p);
  cuda_check(cudaGetLastError(), "tensor-core (mma.sync) softmax launch");
}
template <class In> void launch_tc_softmax(const SeqDims& d, const SmPtrs<In>& p, float scale, const LaunchPlan& plan, void* stream) {
  if (plan.Bq == kMmaSmRows) {  // the register-resident program (plan_tc_softmax picks it for dk, dv <= 128)
    if (plan.threads != kMmaSmThreads)
      throw std::invalid_argument("launch_tc_softmax: the mma.sync program needs exactly " + std::to_string(kMmaSmThreads) + " threads");
    const bool k64 = mma_sm_pad(d.dk) == 64, v64 = mma_sm_pad(d.dv) == 64;
    if (k64 && v64) launch_sm_mma<In, 4, 8>(d, p, scale, plan, stream);
    else if (k64) launch_sm_mma<In, 4, 16>(d, p, scale, plan, stream);
    else if (v64) launch_sm_mma<In, 8, 8>(d, p, scale, plan, stream);
    else launch_sm_mma<In, 8, 16>(d, p, scale, plan, stream);
    return;
  }
  check_plan(plan, kTcSmThreads, "launch_tc_softmax");
  set_smem(tc_sm_kernel<In>, plan.smem_bytes);
  tc_sm_kernel<In><<<grid_of(plan), plan.threads, plan.smem_bytes, static_cast<cudaStream_t>(stream)>>>(d, scale, p);
  cuda_check(cudaGetLastError(), "tensor-core softmax launch");
}
template <class In> void launch_tc_u_solve(const SeqDims& d, const UsPtrs<In>& p, float inv_tau, const LaunchPlan& plan, void* stream) {
  check_plan(plan, kTcThreads, "launch_tc_u_solve");
  set_smem(tc_us_kernel<In>, plan.smem_bytes);
  tc_us_kernel<In><<<grid_of(plan), plan.threads, plan.smem_bytes, static_cast<cudaStream_t>(stream)>>>(d, plan.vt, inv_tau, p);
  cuda_check(cudaGetLastError(), "tensor-core u-solve launch");
}

#define RECALL_GPU_TC_INSTANTIATE(In)                                                                          \
  template void launch_tc_linear_attention<In>(const SeqDims&, const LaPtrs<In>&, const LaunchPlan&, void*); \
  template void launch_tc_delta_rule<In>(const SeqDims&, const DrPtrs<In>&, const LaunchPlan&, void*);       \
  template void launch_tc_softmax<In>(const SeqDims&, const SmPtrs<In>&, float, const LaunchPlan&, void*);   \
  template void launch_tc_u_solve<In>(const SeqDims&, const UsPtrs<In>&, float, const LaunchPlan&, void*);
RECALL_GPU_TC_INSTANTIATE(__half)
RECALL_GPU_TC_INSTANTIATE(__nv_bfloat16)

}  // namespace recall::gpu
