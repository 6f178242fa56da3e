// The dependency-depth scalar of A004-CX-SA-PARALLEL (reference/depth.hpp): balanced-tree additions, one step per
// other operation, the sequential (as written) mode, and a reference run through it.
#include "recall/reference/depth.hpp"
#include "recall/reference/linear_attention.hpp"

#include <gtest/gtest.h>

namespace recall {
namespace {

TEST(DepthScalar, AdditionsAreBalancedTreesOtherOperationsOneStep) {
  depth_mode() = DepthMode::balanced;
  Depth acc(0.0);
  for (int i = 0; i < 8; ++i) acc += Depth(1.0);  // 9 terms of depth 0 (the initial 0 counts)
  EXPECT_EQ(acc.depth(), 4);                      // ceil(log2 9)
  EXPECT_DOUBLE_EQ(static_cast<double>(acc), 8.0);
  Depth s = Depth(1.0) + Depth(2.0);
  EXPECT_EQ(s.depth(), 1);
  const Depth p = s * Depth(3.0);  // closes the sum: 1 + 1
  EXPECT_EQ(p.depth(), 2);
  EXPECT_EQ(exp(p).depth(), 3);
  EXPECT_EQ((p / p).depth(), 3);
  // a deep term dominates: depth m + ceil(log2 k)
  const Depth q = exp(exp(exp(Depth(0.5)))) + Depth(1.0) + Depth(1.0);
  EXPECT_EQ(q.depth(), 3 + 2);
  EXPECT_EQ((-q).depth(), q.depth());  // sign flips are free
}

TEST(DepthScalar, SequentialModeCountsEveryAddition) {
  depth_mode() = DepthMode::sequential;
  Depth acc(0.0);
  for (int i = 0; i < 8; ++i) acc += Depth(1.0);
  EXPECT_EQ(acc.depth(), 8);
  depth_mode() = DepthMode::balanced;
}

TEST(DepthScalar, RecurrentLinearAttentionIsLogarithmicBalancedAndLinearAsWritten) {
  for (std::size_t T : {16u, 256u}) {
    ref::Matrix<Depth> Q(T, 1), K(T, 1), V(T, 1);
    for (std::size_t t = 0; t < T; ++t) Q(t, 0) = K(t, 0) = V(t, 0) = Depth(1.0);
    depth_mode() = DepthMode::balanced;
    const auto r = ref::linear_attention(Q, K, V);
    // S_T(0,0) is a sum of T products (depth 1 each) plus the initial 0: depth 1 + ceil(log2 (T + 1))
    EXPECT_EQ(r.state(0, 0).depth(), 1 + ceil_log2(T + 1));
    depth_mode() = DepthMode::sequential;
    const auto s = ref::linear_attention(Q, K, V);
    EXPECT_EQ(s.state(0, 0).depth(), static_cast<int>(T) + 1);
    depth_mode() = DepthMode::balanced;
  }
}

}  // namespace
}  // namespace recall
