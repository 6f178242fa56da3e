// Ops of softmax attention and DeltaFormer: filled in by issue 4.
#include "recall/properties/ops.hpp"

namespace recall {
void add_softmax_ops(std::vector<OpSpec>&) {}
}  // namespace recall
