// The tensor conventions of kernel code, translated to and from the canonical one the ops are
// defined in (`recall validate --list-ops`): tokens [B, H, T, d], per-token scalars [B, H, T],
// states [B, H, d_v, d_k], no q scale unless the op has a `scale` input.
//
//   layout "bhtd" (canonical) | "bthd" (PyTorch / most GPU libraries: [B, T, H, d], scalars [B, T, H])
//   state_layout "vk" (canonical S with S q = read-out) | "kv" (GPU libraries: [B, H, d_k, d_v])
//   q_scale: ops with a `scale` input (softmax, DeltaFormer) take it as that input (it multiplies
//     q.k); the others (linear attention, delta rule) multiply q by it, as GPU libraries' `scale`
//     argument does. Absent: the op's documented default (1/sqrt(d_k) for a `scale` input, no
//     scale otherwise), said in words by describe_scale().
//
// Which tensors are tokens, scalars or states comes from the op's declared shapes (TensorDecl).
#pragma once

#include "recall/properties/ops.hpp"

#include <optional>
#include <string>

namespace recall {

struct LayoutOptions {
  std::string layout = "bhtd";       // bhtd | bthd
  std::string state_layout = "vk";   // vk | kv
  std::optional<double> q_scale;     // see above
};

// throws std::invalid_argument on an unknown layout name or a q_scale that is not finite and > 0
void check_layout_options(const LayoutOptions& o);

// user -> canonical (before validation): transposes, and applies q_scale. `where` names the source
// in error messages (a file, "inputs"). Shapes that do not fit the layout are an error naming the
// tensor, its shape and the expected one.
TensorMap inputs_to_canonical(const OpSpec& op, TensorMap in, const LayoutOptions& o, const std::string& where);
TensorMap outputs_to_canonical(const OpSpec& op, TensorMap out, const LayoutOptions& o, const std::string& where);
// canonical -> user (dump, generate): the inverse transposes; q_scale is NOT applied to q (the
// user's kernel applies it), a `scale` input is set to q_scale or the documented default.
TensorMap inputs_from_canonical(const OpSpec& op, TensorMap in, const LayoutOptions& o);
// canonical outputs (an oracle's or a baseline's) in the layout of `o`, as a kernel of that convention
// returns them (no scale: outputs carry none)
TensorMap outputs_from_canonical(const OpSpec& op, TensorMap out, const LayoutOptions& o);

// A canonical output shape as the user's layout writes it (error messages).
std::vector<std::int64_t> output_shape_in_layout(const OpSpec& op, const std::string& name, std::vector<std::int64_t> canonical,
                                                 const LayoutOptions& o);

// The scale the reference uses, in words: "scale input 0.125 (default 1/sqrt(d_k), d_k = 64)",
// "q scaled by 0.0884 (q_scale)", "no q scale (pass q_scale if the kernel scales q)".
std::string describe_scale(const OpSpec& op, const TensorMap& canonical_in, const LayoutOptions& o, bool scale_in_file);

}  // namespace recall
