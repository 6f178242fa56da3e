// The corners where real chunked kernels return NaN or Inf although the reference is finite
// (issue 15: a widely used GPU library's gated kernels return NaN everywhere when one log-gate is
// -inf). Each case is one op's inputs, built from the realistic generator (unit keys, beta |k|^2 in
// [0,1]) and then broken at one place:
//   gates: -inf (a hard reset) at t = 1, at t = T, at the chunk boundaries 16|17 and 64|65,
//          mid-chunk, at every token; 0 (a = 1) at every token; decays that underflow (log a =
//          -100: subnormal in f32, and -720: subnormal in f64, zero in f32) at every token;
//   beta = 0 at every token and at every third token; zero keys at t = 2, mid-chunk and t = T;
//   T = 1 and T = chunk +- 1 (15, 17, 63, 65) with d = 1.
// A case whose reference is not finite is no corner of this kind (none of these is, by
// construction: normalised attention keeps a non-zero key sum). `with_zero_s0` gives the same case
// with an all-zero initial state, which a kernel must treat exactly as an absent one.
#pragma once

#include "recall/properties/ops.hpp"

#include <string>
#include <vector>

namespace recall {

struct CornerCase {
  std::string name;  // e.g. "log_gate -inf at t=17 (chunk boundary 16|17), T=65"
  TensorMap in;      // exactly representable in the precision asked for
};

std::vector<CornerCase> nan_corner_cases(const OpSpec& op, Precision p);

// the inputs with s0 (and z0) present and all zero; empty when the op has no initial state
TensorMap with_zero_initial_state(const OpSpec& op, const TensorMap& in);

}  // namespace recall
