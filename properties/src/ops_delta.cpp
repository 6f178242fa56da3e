// Ops of the delta-rule family (delta_rule, gated_delta_rule): filled in by issue 3.
#include "recall/properties/ops.hpp"

namespace recall {
void add_delta_ops(std::vector<OpSpec>&) {}
}  // namespace recall
