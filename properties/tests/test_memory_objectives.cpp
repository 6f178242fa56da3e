// memory_objectives.hpp (A000 group 4, T2 rows, DeltaNet forms): bad input is rejected with
// std::invalid_argument naming the input; small hand-computed values of the printed objectives.
#include "recall/reference/memory_objectives.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace recall {
namespace {

using DM = ref::Matrix<double>;
using DV = ref::Vector<double>;

template <class F> std::string what_of(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(T2A000Objectives, GeneralRecurrenceRejectsBadShapesAndNonFinite) {
  const DM S0(2, 3);
  auto bad_shape = [&] {
    ref::general_recurrence<double>(S0, 1, [](std::size_t) { return ref::Abc<double>{DM(3, 3), DM(3, 3), DM(2, 3)}; });
  };
  EXPECT_NE(what_of(bad_shape).find("A_t"), std::string::npos);
  auto nan_c = [&] {
    ref::general_recurrence<double>(S0, 1, [](std::size_t) {
      ref::Abc<double> m{ref::identity_matrix<double>(2), ref::identity_matrix<double>(3), DM(2, 3)};
      m.C(1, 2) = std::numeric_limits<double>::quiet_NaN();
      return m;
    });
  };
  EXPECT_NE(what_of(nan_c).find("C_t"), std::string::npos);
}

TEST(T2A000Objectives, FormsRejectBadInput) {
  const DM Q(3, 2), K(3, 2), V(3, 1);
  EXPECT_NE(what_of([&] { ref::delta_rule_chunked(Q, K, V, DV(2, 1.0), 2); }).find("beta"), std::string::npos);
  EXPECT_NE(what_of([&] { ref::delta_rule_chunked(Q, K, V, DV(3, 1.0), 0); }).find("chunk size"), std::string::npos);
  EXPECT_NE(what_of([&] { ref::delta_rule_matrix_form(Q, DM(2, 2), V, DV(3, 1.0)); }).find("tokens"), std::string::npos);
  EXPECT_NE(what_of([&] { ref::gla_row_outputs_closed(Q, K, V, DM(3, 2)); }).find("log gates"), std::string::npos);
  EXPECT_NE(what_of([&] { ref::momentum_accumulator(K, V, DV(2, 0.5)); }).find("eta"), std::string::npos);
  EXPECT_NE(what_of([&] { ref::deltanet_infoagg_chain(K, DM(2, 1)); }).find("tokens"), std::string::npos);
}

TEST(T2A000Objectives, HandValues) {
  // S = [1 2], k = (1, 1), v = (3): -<S k, v> = -9; DeltaNet 1/2 (3 - 3)^2 = 0; Eq. 71: 1/2*9 - 9 = -4.5
  DM S(1, 2);
  S(0, 0) = 1;
  S(0, 1) = 2;
  const DV k{1, 1}, v{3};
  EXPECT_DOUBLE_EQ(ref::linattn_objective(S, k, v), -9.0);
  EXPECT_DOUBLE_EQ(ref::linattn_objective_eq66(S, k, v), -9.0);
  EXPECT_DOUBLE_EQ(ref::deltanet_objective(S, k, v), 0.0);
  EXPECT_DOUBLE_EQ(ref::deltanet_objective_eq71(S, k, v), -4.5);
  // SM-norm at t = 2: 1/2 (1/2 * 5 - 9) = -3.25
  EXPECT_DOUBLE_EQ(ref::smnorm_objective(S, k, v, 2), -3.25);
  // momentum, two tokens, eta_2 = 0.5: C_2 = 0.5 v_1 k_1^T + v_2 k_2^T
  DM K(2, 1), V(2, 1);
  K(0, 0) = 2; K(1, 0) = 3; V(0, 0) = 1; V(1, 0) = 4;
  const auto C = ref::momentum_accumulator(K, V, DV{0.7, 0.5});
  EXPECT_DOUBLE_EQ(C[1](0, 0), 0.5 * 2 + 12);
  EXPECT_NEAR(ref::momentum_accumulator_closed(K, V, DV{0.7, 0.5}, 2)(0, 0), 13.0, 1e-14);
}

}  // namespace
}  // namespace recall
