// Host emulation of the gpu/ block programs: every block of the launch plan runs on the CPU, one
// phase at a time, a loop over the block's threads per phase. Shared memory starts NaN-poisoned
// (a read of a slot no phase wrote turns the outputs into NaN and fails the budget). Used by the
// host tests (no GPU needed) to check the kernels' algorithms, tails and index arithmetic.
#pragma once

#include "recall/gpu/programs.hpp"
#include "recall/gpu/tc_programs.hpp"
#include "recall/gpu/tc_delta_parallel.hpp"
#include "recall/gpu/tc_linear_parallel.hpp"
#include "recall/gpu/tc_softmax_mma.hpp"

#include <cstring>

#include <limits>
#include <stdexcept>
#include <vector>

namespace recall::gpu {

// A warp of the emulated block: each(g) runs g(lane) for the 32 lanes in turn (a warp-synchronous
// step; the device runs them together and then __syncwarp()s).
struct HostWarp {
  template <class G> void each(G&& g) {
    for (int lane = 0; lane < 32; ++lane) g(lane);
  }
  // A step on the lanes' own registers only (the device runs it without __syncwarp).
  template <class G> void regs(G&& g) { each(g); }
};
struct HostCtx {
  int nt;
  struct Copy16 {
    void* dst;
    const void* src;
  };
  std::vector<std::vector<Copy16>> in_flight{};  // committed copy groups, oldest first
  std::vector<Copy16> open{};                    // copies of the phase being run
  template <class F> void phase(F&& f) {
    for (int tid = 0; tid < nt; ++tid) f(tid, nt);
  }
  // cp.async: recorded now, performed when a phase_async's wait retires its group (mma.hpp).
  void copy16(void* dst, const void* src) { open.push_back({dst, src}); }
  template <class F> void phase_async(F&& f, int keep) {
    for (int tid = 0; tid < nt; ++tid) f(tid, nt);
    in_flight.push_back(std::move(open));
    open.clear();
    while (in_flight.size() > std::size_t(keep)) {
      for (const Copy16& c : in_flight.front()) std::memcpy(c.dst, c.src, 16);
      in_flight.erase(in_flight.begin());
    }
  }
  // A warp phase: f(warp, nwarps, W) for every warp in turn (the tensor-core programs).
  template <class F> void warps(F&& f) {
    HostWarp w;
    const int nw = nt / 32 > 0 ? nt / 32 : 1;
    for (int wid = 0; wid < nw; ++wid) f(wid, nw, w);
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

// Tensor-core programs: byte-addressed shared memory, all bytes 0xff first (a NaN in every fp32,
// bf16 and f16 slot), operands of type Op (hbf16 / hf16: the device's bit patterns).
template <class Program> void emulate_bytes(const LaunchPlan& plan, int threads, Program&& program) {
  HostCtx ctx{threads ? threads : plan.threads};
  std::vector<double> store((plan.smem_bytes + sizeof(double) - 1) / sizeof(double));
  auto* sm = reinterpret_cast<unsigned char*>(store.data());
  for (i64 blk = 0; blk < plan.grid; ++blk) {
    if (!store.empty()) std::memset(sm, 0xff, store.size() * sizeof(double));  // (a pass without shared memory: none)
    program(ctx, sm, blk);
    if (!ctx.in_flight.empty() || !ctx.open.empty())
      throw std::logic_error("emulate: a block program ended with asynchronous copies not waited for");
  }
}
template <class Op> void emulate_tc_linear_attention(const SeqDims& d, const LaPtrs<Op>& p, const LaunchPlan& plan, int threads = 0) {
  if (!plan.chunk_parallel) {
    emulate_bytes(plan, threads, [&](HostCtx& c, unsigned char* sm, i64 b) { tc_linear_attention_program(c, sm, d, plan.vt, p, b); });
    return;
  }
  // three passes over a NaN-poisoned workspace (a slot pass 3 reads that pass 1 / 2 did not write shows)
  std::vector<double> work((plan.work_bytes + sizeof(double) - 1) / sizeof(double), std::numeric_limits<double>::quiet_NaN());
  std::memset(work.data(), 0xff, work.size() * sizeof(double));
  const LaWork<Op> wk = la_work_carve<Op>(work.data(), d, plan.vt);
  emulate_bytes(plan, threads, [&](HostCtx& c, unsigned char* sm, i64 b) { tc_la_chunk_state_program(c, sm, d, plan.vt, p, wk, b); });
  LaunchPlan scan = plan;
  scan.grid = plan.grid_scan, scan.smem_bytes = 0;
  emulate_bytes(scan, threads, [&](HostCtx& c, unsigned char*, i64 b) { tc_la_state_pass_program(c, d, plan.vt, p, wk, b); });
  LaunchPlan out = plan;
  out.grid = plan.grid_out, out.smem_bytes = plan.smem_out;
  emulate_bytes(out, threads, [&](HostCtx& c, unsigned char* sm, i64 b) { tc_la_chunk_output_program(c, sm, d, plan.vt, p, wk, b); });
}
template <class Op> void emulate_tc_delta_rule(const SeqDims& d, const DrPtrs<Op>& p, const LaunchPlan& plan, int threads = 0) {
  if (!plan.chunk_parallel) {
    emulate_bytes(plan, threads, [&](HostCtx& c, unsigned char* sm, i64 b) { tc_delta_rule_program(c, sm, d, plan.vt, p, b); });
    return;
  }
  std::vector<double> work((plan.work_bytes + sizeof(double) - 1) / sizeof(double));
  std::memset(work.data(), 0xff, work.size() * sizeof(double));  // NaN in every fp32 / 16-bit slot
  const DrWork<Op> wk = dr_work_carve<Op>(work.data(), d, plan.vt);
  emulate_bytes(plan, threads, [&](HostCtx& c, unsigned char* sm, i64 b) { tc_dr_ut_program(c, sm, d, plan.vt, p, wk, b); });
  LaunchPlan scan = plan;
  scan.grid = plan.grid_scan, scan.smem_bytes = plan.smem_scan;
  emulate_bytes(scan, threads, [&](HostCtx& c, unsigned char* sm, i64 b) { tc_dr_state_program(c, sm, d, plan.vt, p, wk, b); });
  LaunchPlan out = plan;
  out.grid = plan.grid_out, out.smem_bytes = plan.smem_out;
  const LaPtrs<Op> lp = dr_output_view(p);
  emulate_bytes(out, threads, [&](HostCtx& c, unsigned char* sm, i64 b) { tc_la_chunk_output_program(c, sm, d, plan.vt, lp, wk.la, b); });
}
template <class Op> void emulate_tc_softmax(const SeqDims& d, const SmPtrs<Op>& p, float scale, const LaunchPlan& plan, int threads = 0) {
  if (plan.Bq == kMmaSmRows)  // the mma.sync program (dk, dv <= 128)
    emulate_bytes(plan, threads, [&](HostCtx& c, unsigned char* sm, i64 b) { tc_softmax_mma_dispatch(c, sm, d, scale, p, b); });
  else
    emulate_bytes(plan, threads, [&](HostCtx& c, unsigned char* sm, i64 b) { tc_softmax_program(c, sm, d, scale, p, b); });
}
template <class Op>
void emulate_tc_u_solve(const SeqDims& d, const UsPtrs<Op>& p, float inv_tau, const LaunchPlan& plan, int threads = 0) {
  emulate_bytes(plan, threads, [&](HostCtx& c, unsigned char* sm, i64 b) { tc_u_solve_program(c, sm, d, plan.vt, inv_tau, p, b); });
}

}  // namespace recall::gpu
