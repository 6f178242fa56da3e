// The registry ops' input checks (OpSpec::validate), in one translation unit without multiprecision
// instantiations: shapes against the op's dimensions, NaN/Inf, value ranges (gates in [0,1], masks
// 0/1, integer window and top-K parameters, positive scales), unknown inputs. Each throws
// std::invalid_argument naming the op, the tensor and the first offending index. Internal header
// (properties/src only); ci/fuzz builds input_checks.cpp with ASan+UBSan and libFuzzer coverage
// behind `recall validate` (fuzz/fuzz_validate.cpp).
#pragma once

#include "recall/properties/tensor.hpp"

#include <cstdint>
#include <string>

namespace recall::input_checks {

// linear_attention, gated_linear_attention, normalized_linear_attention: q, k, v [+ log_gate] [+ s0]
// [+ z0, non-negative q and k]
void linear_family(const TensorMap& in, const std::string& op, bool gated, bool normalized);
// delta_rule, gated_delta_rule: q, k, v, beta [+ log_alpha] [+ s0]
void delta_family(const TensorMap& in, const std::string& op, bool gated);
// (weighted_)least_squares_attention: q, k, v [+ log_gate]; nothing else
void least_squares(const TensorMap& in, const std::string& op, bool gated);
// local_linear_attention: q, k, v [+ scale > 0]; nothing else
void local_linear(const TensorMap& in, const std::string& op);
// softmax_attention, deltaformer*: q, k, v [+ scale > 0] [+ beta when with_beta]; nothing else
void softmax_family(const TensorMap& in, const std::string& op, bool with_beta);

// Hopfield ops: queries q [B,H,L,d], patterns k [B,H,M,d], values v [B,H,M,dv].
struct HDims {
  std::int64_t B, H, L, M, d, dv;
};
HDims hopfield_dims(const TensorMap& in, const std::string& op);  // throws on ranks and empty dimensions
std::string hopfield_dims_note(const TensorMap& in, const std::string& op);
// The checks of one Hopfield op, selected by its registry name (hopfield_dense, _masked_r/_u, _window_r,
// _window_causal_r, _topk_r, _prf, _linear); an unknown name is a std::logic_error.
void hopfield(const TensorMap& in, const std::string& op);

}  // namespace recall::input_checks
