// Fault injection (issue 15): a catalogue of bugs seen in real kernels, each guarded by a fault id
// inside the CPU kernels (optimized/) and the GPU block programs (gpu/, under host emulation).
//
// A production build (the default) compiles every guard to a constant false: the catalogue leaves
// no trace in the kernels. A build configured with -DRECALL_FAULT_INJECTION=ON compiles the guards
// in; the environment variable RECALL_FAULT (a name or a number from the catalogue) then selects at
// most one active fault per process, so one build serves every mutant. `ci/mutate` runs the fast
// and discrimination suites once per fault and records the first test that caught it.
// The device passes of CUDA code never inject (RECALL_FAULT_ON is false there).
#pragma once

namespace recall::fault {

enum Id : int {
  none = 0,
  // CPU kernels, optimized/src
  la_tail_dropped,           // chunked linear attention: the last, partial chunk is skipped
  la_state_not_carried,      // chunked linear attention: the state restarts at zero in every chunk
  la_s0_transposed,          // linear attention: s0 read as [dk, dv] instead of [dv, dk]
  gla_gate_off_by_one,       // gated linear attention: token t decays with the gate of token t - 1
  gla_gate_after_update,     // gated linear attention: the chunk's decay also hits its own update
  gla_decay_linear_space,    // gated linear attention: decays as ratios of prefix products (0/0, inf/inf)
  dr_beta_one_factor,        // chunked delta rule: beta on the system but not on the right-hand side
  dr_correction_sign,        // chunked delta rule: + instead of - for the cross-chunk correction K S^T
  dr_tail_short,             // chunked delta rule: the tail chunk one token short
  sm_no_max_subtraction,     // tiled softmax: exp(s) without the running maximum
  sm_causal_off_by_one,      // tiled softmax: key t + 1 visible to query t
  sm_scale_twice,            // tiled softmax: the logit scale applied twice
  sm_accumulate_storage,     // tiled softmax, 16-bit inputs: the accumulator rounded to the storage type per tile
  df_u_diagonal_included,    // DeltaFormer u-solve: the i = t term included in the substitution
  // GPU block programs, gpu/include (judged by the host emulator)
  gpu_tail_dropped,          // SIMT linear attention / delta rule programs: the partial tail chunk skipped
  gpu_tc_state_not_carried,  // tensor-core linear attention / delta rule: the state slice zeroed per chunk
  gpu_tc_rescale_missing,    // tensor-core softmax: the accumulator not rescaled when the row maximum grows
  gpu_index_32bit,           // row_offset computed in 32-bit arithmetic (overflows past 2^31 elements)
  count
};

struct Info {
  Id id;
  const char* name;
  const char* where;  // file
  const char* what;
};
// The catalogue, in Id order (ids 1 .. count-1).
const Info* catalogue();
// The fault selected by RECALL_FAULT (none when unset); throws std::invalid_argument for an
// unknown name or number, listing the catalogue. Always none in a production build.
Id active();
bool injection_compiled();

}  // namespace recall::fault

#if defined(RECALL_FAULT_INJECTION) && !defined(__CUDA_ARCH__)
#define RECALL_FAULT_ON(name) (::recall::fault::active() == ::recall::fault::name)
#else
#define RECALL_FAULT_ON(name) false
#endif
