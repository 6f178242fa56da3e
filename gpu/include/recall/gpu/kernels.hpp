// gpu/ kernels with the signatures of their optimized/ twins. The host entry points take HOST
// pointers (as the twins do): they copy to the device, launch, copy back, and throw
// std::runtime_error naming the CUDA error (no device, out of memory, launch failure).
// The `launch_*` entry points take DEVICE pointers and a stream (benchmarks).
//
// Inputs q, k, v may be stored as f32, f16 or bf16 (Storage); accumulation is always fp32.
// The host entry points round the float inputs to the storage type before the copy, so a caller
// judging the outputs must judge them against inputs rounded the same way.
#pragma once

#include "recall/gpu/programs.hpp"
#include "recall/gpu/tc_programs.hpp"
#include "recall/optimized/linear_attention.hpp"

#include <cstddef>

namespace recall::gpu {

enum class Storage { f32, f16, bf16 };
const char* storage_name(Storage s);

// Which programs run: the fp32 CUDA-core (SIMT) programs of programs.hpp, the reference-grade path
// for every storage type, or the tensor-core programs of tc_programs.hpp (16-bit storage only,
// dk <= 256). automatic: tensor cores for f16/bf16, SIMT for f32.
enum class Engine { automatic, simt, tensor_core };
const char* engine_name(Engine e);

// Shared-memory limit used by the plans: the device's opt-in maximum per block.
std::size_t device_smem_limit();
// Shared memory per multiprocessor (the plans fit two blocks in it where a tile allows).
std::size_t device_smem_per_sm();

// Chunked (scalar-gated) linear attention: opt::linear_attention_chunked's contract (a.chunk is
// the largest chunk tried; the plan may pick a smaller one that fits shared memory).
void linear_attention_chunked(const opt::LinearAttentionArgs<float>& a, Storage in = Storage::f32, Engine e = Engine::automatic);

// Chunked delta rule / gated delta rule (placement G) in the WY/UT form.
struct DeltaRuleArgs {
  int B = 1, H = 1, T = 0, dk = 0, dv = 0;
  const float* q = nullptr;         // [B,H,T,dk]
  const float* k = nullptr;         // [B,H,T,dk]
  const float* v = nullptr;         // [B,H,T,dv]
  const float* beta = nullptr;      // [B,H,T]
  const float* log_alpha = nullptr; // [B,H,T] or null (ungated)
  const float* s0 = nullptr;        // [B,H,dv,dk] or null
  float* o = nullptr;               // [B,H,T,dv]
  float* s_final = nullptr;         // [B,H,dv,dk] or null
  int chunk = 64;
};
void delta_rule_chunked(const DeltaRuleArgs& a, Storage in = Storage::f32, Engine e = Engine::automatic);

// Tiled causal softmax attention (online normaliser). scale multiplies q.k.
struct SoftmaxArgs {
  int B = 1, H = 1, T = 0, dk = 0, dv = 0;
  const float* q = nullptr;
  const float* k = nullptr;
  const float* v = nullptr;
  float* o = nullptr;
  float scale = 1.0f;
  int tile = 64;
};
void softmax_attention_tiled(const SoftmaxArgs& a, Storage in = Storage::f32, Engine e = Engine::automatic);

// DeltaFormer u-solve (A000-DELTAFORMER-U): u_t = v_t - beta_t sum_{i<t} exp(k_i . k_t / tau) u_i,
// blocked forward substitution (earlier chunks enter as GEMM-like updates). The unnormalised
// exponential kernel makes ||u|| grow fast (spec hazard): fp32 overflows where the system's
// condition number does; the caller judges with kappa u n.
struct USolveArgs {
  int B = 1, H = 1, T = 0, dk = 0, dv = 0;
  const float* k = nullptr;     // [B,H,T,dk]
  const float* v = nullptr;     // [B,H,T,dv]
  const float* beta = nullptr;  // [B,H,T] or null (beta = 1)
  float* u = nullptr;           // [B,H,T,dv]
  float tau = 1.0f;
  int chunk = 64;
};
void u_solve_chunked(const USolveArgs& a, Storage in = Storage::f32, Engine e = Engine::automatic);

// Device-pointer launches (inputs already in the storage type `In` on the device).
template <class In> void launch_linear_attention(const SeqDims& d, const LaPtrs<In>& p, const LaunchPlan& plan, void* stream);
template <class In> void launch_delta_rule(const SeqDims& d, const DrPtrs<In>& p, const LaunchPlan& plan, void* stream);
template <class In> void launch_u_solve(const SeqDims& d, const UsPtrs<In>& p, float inv_tau, const LaunchPlan& plan, void* stream);
template <class In>
void launch_softmax(const SeqDims& d, const SmPtrs<In>& p, float scale, const LaunchPlan& plan, void* stream);

// Tensor-core launches (In = __half or __nv_bfloat16; plans from plan_tc_* of tc_programs.hpp).
template <class In> void launch_tc_linear_attention(const SeqDims& d, const LaPtrs<In>& p, const LaunchPlan& plan, void* stream);
template <class In> void launch_tc_delta_rule(const SeqDims& d, const DrPtrs<In>& p, const LaunchPlan& plan, void* stream);
template <class In> void launch_tc_softmax(const SeqDims& d, const SmPtrs<In>& p, float scale, const LaunchPlan& plan, void* stream);
template <class In> void launch_tc_u_solve(const SeqDims& d, const UsPtrs<In>& p, float inv_tau, const LaunchPlan& plan, void* stream);

// Argument checks shared by the host entry points and the emulator (throw std::invalid_argument).
SeqDims checked_dims(int B, int H, int T, int dk, int dv, int chunk, const void* q, const void* k, const void* v, const void* o,
                     const char* who);

}  // namespace recall::gpu
