// Host emulation of the gpu/ block programs: every block of the launch plan runs on the CPU, one
// phase at a time, a loop over the block's threads per phase. Shared memory starts NaN-poisoned
// (a read of a slot no phase wrote turns the outputs into NaN and fails the budget). Used by the
// host tests (no GPU needed) to check the kernels' algorithms, tails and index arithmetic.
#pragma once

#include "recall/gpu/programs.hpp"

#include <limits>
#include <vector>

namespace recall::gpu {

struct HostCtx {
  int nt;
  template <class F> void phase(F&& f) {
    for (int tid = 0; tid < nt; ++tid) f(tid, nt);
  }
};

// Runs `program(ctx, shared, block)` for every block of the plan on fresh NaN-poisoned shared memory.
// threads: 0 = the plan's thread count; otherwise emulate a block of that many threads.
template <class Program> void emulate(const LaunchPlan& plan, int threads, Program&& program) {
  HostCtx ctx{threads ? threads : plan.threads};
  std::vector<float> sm(plan.smem_bytes / sizeof(float));
  for (i64 blk = 0; blk < plan.grid; ++blk) {
    sm.assign(sm.size(), std::numeric_limits<float>::quiet_NaN());
    program(ctx, sm.data(), blk);
  }
}
inline SeqDims with_chunk(SeqDims d, int C) {
  d.C = C;
  return d;
}
inline void emulate_linear_attention(const SeqDims& d, const LaPtrs<float>& p, const LaunchPlan& plan, int threads = 0) {
  emulate(plan, threads, [&](HostCtx& c, float* sm, i64 b) { linear_attention_program(c, sm, with_chunk(d, plan.C), p, b); });
}
inline void emulate_delta_rule(const SeqDims& d, const DrPtrs<float>& p, const LaunchPlan& plan, int threads = 0) {
  emulate(plan, threads, [&](HostCtx& c, float* sm, i64 b) { delta_rule_program(c, sm, with_chunk(d, plan.C), p, b); });
}
inline void emulate_softmax(const SeqDims& d, const SmPtrs<float>& p, float scale, const LaunchPlan& plan, int threads = 0) {
  const SmLayout L{d.dk, d.dv, plan.Bq, plan.Bk};
  emulate(plan, threads, [&](HostCtx& c, float* sm, i64 b) { softmax_program(c, sm, d, L, scale, p, b); });
}
inline void emulate_u_solve(const SeqDims& d, const UsPtrs<float>& p, float inv_tau, const LaunchPlan& plan, int threads = 0) {
  emulate(plan, threads, [&](HostCtx& c, float* sm, i64 b) { u_solve_program(c, sm, with_chunk(d, plan.C), inv_tau, p, b); });
}

}  // namespace recall::gpu
