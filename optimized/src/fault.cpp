// The fault catalogue (recall/fault.hpp) and the RECALL_FAULT selector.
#include "recall/fault.hpp"

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace recall::fault {
namespace {
const Info kCatalogue[] = {
    {none, "none", "", "no fault"},
    {la_tail_dropped, "la_tail_dropped", "optimized/src/linear_attention.cpp", "chunked linear attention skips the last, partial chunk"},
    {la_state_not_carried, "la_state_not_carried", "optimized/src/linear_attention.cpp", "chunked linear attention restarts the state at zero in every chunk"},
    {la_s0_transposed, "la_s0_transposed", "optimized/src/linear_attention.cpp", "linear attention reads s0 as [dk, dv] instead of [dv, dk]"},
    {gla_gate_off_by_one, "gla_gate_off_by_one", "optimized/src/linear_attention.cpp", "gated linear attention decays token t with the gate of token t - 1"},
    {gla_gate_after_update, "gla_gate_after_update", "optimized/src/linear_attention.cpp", "gated linear attention applies the chunk's decay after adding its own update"},
    {gla_decay_linear_space, "gla_decay_linear_space", "optimized/src/linear_attention.cpp", "gated linear attention forms decays as ratios of prefix products"},
    {dr_beta_one_factor, "dr_beta_one_factor", "optimized/src/delta_rule.cpp", "chunked delta rule puts beta on the system but not on the right-hand side"},
    {dr_correction_sign, "dr_correction_sign", "optimized/src/delta_rule.cpp", "chunked delta rule adds the cross-chunk correction K S^T instead of subtracting it"},
    {dr_tail_short, "dr_tail_short", "optimized/src/delta_rule.cpp", "chunked delta rule processes the tail chunk one token short"},
    {sm_no_max_subtraction, "sm_no_max_subtraction", "optimized/src/softmax_attention.cpp", "tiled softmax exponentiates the logits without the running maximum"},
    {sm_causal_off_by_one, "sm_causal_off_by_one", "optimized/src/softmax_attention.cpp", "tiled softmax lets query t see key t + 1"},
    {sm_scale_twice, "sm_scale_twice", "optimized/src/softmax_attention.cpp", "tiled softmax applies the logit scale twice"},
    {sm_accumulate_storage, "sm_accumulate_storage", "optimized/src/softmax_attention.cpp", "tiled softmax on 16-bit inputs rounds its accumulator to the storage type after every tile"},
    {df_u_diagonal_included, "df_u_diagonal_included", "optimized/src/deltaformer.cpp", "DeltaFormer u-solve includes the i = t term in the substitution"},
    {gpu_tail_dropped, "gpu_tail_dropped", "gpu/include/recall/gpu/programs.hpp", "SIMT linear attention / delta rule programs skip the partial tail chunk"},
    {gpu_tc_state_not_carried, "gpu_tc_state_not_carried", "gpu/include/recall/gpu/tc_programs.hpp", "tensor-core linear attention / delta rule zero the state slice in every chunk"},
    {gpu_tc_rescale_missing, "gpu_tc_rescale_missing", "gpu/include/recall/gpu/tc_programs.hpp", "tensor-core softmax does not rescale the accumulator when a row's maximum grows"},
    {gpu_index_32bit, "gpu_index_32bit", "gpu/include/recall/gpu/programs.hpp", "row_offset computes global offsets in 32-bit arithmetic"},
};
static_assert(sizeof(kCatalogue) / sizeof(kCatalogue[0]) == count, "one catalogue entry per fault id");

Id parse(const char* s) {
  const std::string v(s);
  if (v.empty()) return none;
  for (const Info& i : kCatalogue)
    if (v == i.name || v == std::to_string(int(i.id))) return i.id;
  std::string names;
  for (const Info& i : kCatalogue) names += std::string(names.empty() ? "" : ", ") + i.name;
  throw std::invalid_argument("RECALL_FAULT=" + v + ": not in the fault catalogue (" + names + ")");
}
}  // namespace

const Info* catalogue() { return kCatalogue; }
bool injection_compiled() {
#if defined(RECALL_FAULT_INJECTION)
  return true;
#else
  return false;
#endif
}
Id active() {
#if defined(RECALL_FAULT_INJECTION)
  static const Id id = [] {
    const char* s = std::getenv("RECALL_FAULT");
    return s ? parse(s) : none;
  }();
  return id;
#else
  return none;
#endif
}

}  // namespace recall::fault
