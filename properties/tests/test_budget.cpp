// The error budget's arithmetic and the oracle's precision escalation.
#include "recall/properties/budget.hpp"

#include <gtest/gtest.h>

namespace recall {
namespace {

MpTensorMap mp_map(const std::string& name, std::vector<double> v) {
  MpTensorMap m;
  m[name].shape = {static_cast<std::int64_t>(v.size())};
  for (double x : v) m[name].data.emplace_back(x);
  return m;
}
TensorMap d_map(const std::string& name, std::vector<double> v) {
  TensorMap m;
  m[name].shape = {static_cast<std::int64_t>(v.size())};
  m[name].data = std::move(v);
  return m;
}

TEST(Budget, ErrorIsInUnitsOfURelativeToTheOracleScaleWithWorstIndex) {
  const double u = 0x1p-24;
  auto oracle = mp_map("o", {4.0, -2.0, 1.0});
  auto y = d_map("o", {4.0, -2.0 + 8 * u * 4.0, 1.0});  // 8 u of the scale 4 at element 2
  ErrorStats e = measure_error(oracle, y, u);
  EXPECT_NEAR(e.max_err_u, 8.0, 1e-9);
  EXPECT_EQ(e.worst_output, "o");
  EXPECT_EQ(e.worst_index, "(2)");
  EXPECT_DOUBLE_EQ(e.scale, 4.0);
}

TEST(Budget, NanOutputIsAnInfiniteErrorAndFails) {
  const double u = 0x1p-53;
  auto oracle = mp_map("o", {1.0, 2.0});
  Judgement j = judge(oracle, d_map("o", {1.0, std::nan("")}), d_map("o", {1.0, 2.0}), u, {}, 1.0);
  EXPECT_FALSE(j.pass);
  EXPECT_TRUE(std::isinf(j.kernel.max_err_u));
}

TEST(Budget, PassesAtTwiceBaselinePlusFloorAndFailsJustAbove) {
  const double u = 0x1p-24;
  auto oracle = mp_map("o", {1.0});
  auto base = d_map("o", {1.0 + 3 * u});               // baseline error 3 u
  BudgetParams p;
  p.lambda = 0;  // the R-FAST rule alone
  EXPECT_TRUE(judge(oracle, d_map("o", {1.0 + 10 * u}), base, u, {}, 1.0, p).pass);   // 10 <= 2*3 + 4
  EXPECT_FALSE(judge(oracle, d_map("o", {1.0 + 10.5 * u}), base, u, {}, 1.0, p).pass);
}

TEST(Budget, ConditionTermIsLambdaSqrtMTimesKappa) {
  const double u = 0x1p-24;
  auto oracle = mp_map("o", {1.0, -0.5});
  auto base = d_map("o", {1.0, -0.5});                  // baseline exact
  auto mag = d_map("o", {100.0, 3.0});                  // kappa = 100 / 1
  // budget = 0 + 4 + 2 * sqrt(16) * 100 = 804 u
  Judgement ok = judge(oracle, d_map("o", {1.0 + 800 * u, -0.5}), base, u, mag, 16.0);
  EXPECT_TRUE(ok.pass);
  EXPECT_DOUBLE_EQ(ok.kappa, 100.0);
  EXPECT_DOUBLE_EQ(ok.budget_u, 804.0);
  EXPECT_FALSE(judge(oracle, d_map("o", {1.0 + 810 * u, -0.5}), base, u, mag, 16.0).pass);
}

TEST(Budget, MissingOrMisshapenOutputIsAnError) {
  auto oracle = mp_map("o", {1.0, 2.0});
  EXPECT_THROW(measure_error(oracle, d_map("x", {1.0, 2.0}), 1e-7), std::invalid_argument);
  EXPECT_THROW(measure_error(oracle, d_map("o", {1.0}), 1e-7), std::invalid_argument);
}

TEST(Budget, OracleAgreesWithItselfFarBelowU) {
  CaseKnobs k;
  k.T = 33; k.dk = 4; k.dv = 3; k.gates = GateKind::zeros_mixed;
  const OpSpec& o = op("gated_linear_attention");
  TensorMap in = o.generate(k, Precision::f64);
  Oracle orc = compute_oracle(o, in, unit_roundoff(Precision::f64));
  EXPECT_GE(orc.agree_digits, 26.0);
  EXPECT_GE(orc.digits, 100u);
}

}  // namespace
}  // namespace recall
