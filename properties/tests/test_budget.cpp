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

BudgetInputs inputs(Precision p, TensorMap sens = {}) {
  BudgetInputs b;
  b.storage = p;
  b.sens = std::move(sens);
  return b;
}

TEST(Budget, NanOutputIsAnInfiniteErrorAndFails) {
  auto oracle = mp_map("o", {1.0, 2.0});
  Judgement j = judge(oracle, d_map("o", {1.0, std::nan("")}), d_map("o", {1.0, 2.0}), inputs(Precision::f64));
  EXPECT_FALSE(j.pass);
  EXPECT_TRUE(std::isinf(j.kernel.max_err_u));
  EXPECT_EQ(j.outputs.at(0).nonfinite, 1u);
}

// One row: budget = c * baseline + rounding * u |y*| + floor * u_acc * max|y*| (f32: u_acc = u).
TEST(Budget, PassesAtTwiceBaselinePlusRoundingPlusFloorAndFailsJustAbove) {
  const double u = 0x1p-24;
  auto oracle = mp_map("o", {1.0});
  auto base = d_map("o", {1.0 + 3 * u});  // baseline error 3 u
  // 2 * 3 + 1 + 4 = 11 u
  EXPECT_TRUE(judge(oracle, d_map("o", {1.0 + 11 * u}), base, inputs(Precision::f32)).pass);
  EXPECT_FALSE(judge(oracle, d_map("o", {1.0 + 11.5 * u}), base, inputs(Precision::f32)).pass);
}

// The sensitivity term is lambda * max over the row of sens; bf16 storage charges the floor in
// units of the accumulation precision (f32), not of bf16.
TEST(Budget, SensitivityTermAndStorageVersusAccumulationUnits) {
  const double u = 0x1p-8;
  auto oracle = mp_map("o", {1.0, -0.5});
  auto base = d_map("o", {1.0, -0.5});
  // budget = 0 + 1 u (rounding at the row's scale 1) + 6 * 2u (sens) + 4 * 2^-24 = 13 u + tiny
  const TensorMap sens = d_map("o", {2 * u, 0.0});
  Judgement ok = judge(oracle, d_map("o", {1.0 + 12.9 * u, -0.5}), base, inputs(Precision::bf16, sens));
  EXPECT_TRUE(ok.pass) << ok.detail;
  EXPECT_NEAR(ok.outputs[0].term_sensitivity, 12.0, 1e-12);
  EXPECT_NEAR(ok.outputs[0].term_floor, 4 * 0x1p-24 / u, 1e-15);
  EXPECT_FALSE(judge(oracle, d_map("o", {1.0 + 13.1 * u, -0.5}), base, inputs(Precision::bf16, sens)).pass);
  // an all-zero output is far over this budget
  EXPECT_FALSE(judge(oracle, d_map("o", {0.0, 0.0}), base, inputs(Precision::bf16, sens)).pass);
}

// Each row against its own scale: a 1% error in a row whose scale is 1e-3 of the largest row is
// rejected, although it is only 1e-5 of the output's scale (168 u of f32, under a normwise budget
// that a sensitivity of 50 u would grant).
TEST(Budget, SmallRowJudgedAgainstItsOwnScale) {
  const double u = 0x1p-24;
  MpTensorMap oracle;
  oracle["o"].shape = {2, 2};
  for (double x : {1000.0, -1000.0, 1.0, 1.0}) oracle["o"].data.emplace_back(x);
  TensorMap base, y, sens;
  base["o"] = Tensor{{2, 2}, {1000.0, -1000.0, 1.0, 1.0}};
  y["o"] = Tensor{{2, 2}, {1000.0, -1000.0, 1.01, 1.0}};
  sens["o"] = Tensor{{2, 2}, {50 * u * 1000, 50 * u * 1000, u, u}};
  const Judgement j = judge(oracle, y, base, inputs(Precision::f32, sens));
  EXPECT_FALSE(j.pass);
  EXPECT_EQ(j.outputs[0].worst_row, "(2)");
  EXPECT_LT(j.kernel.max_err_u, 200.0);  // the normwise error alone looks small
}

// A budget wider than the output says so: "not discriminating" with the dominant term named.
TEST(Budget, ReportsWhenAnAllZeroOutputWouldPass) {
  const double u = 0x1p-24;
  auto oracle = mp_map("o", {1.0, 2.0});
  const Judgement j = judge(oracle, d_map("o", {1.0, 2.0}), d_map("o", {1.0, 2.0}), inputs(Precision::f32, d_map("o", {1.0, 1.0})));
  EXPECT_TRUE(j.pass);
  EXPECT_FALSE(j.discriminating);
  EXPECT_NE(j.outputs[0].weakness.find("not discriminating"), std::string::npos) << j.outputs[0].weakness;
  EXPECT_NE(j.outputs[0].weakness.find("sensitivity"), std::string::npos) << j.outputs[0].weakness;
  EXPECT_NE(j.detail.find("not discriminating"), std::string::npos);
  (void)u;
}

// Perturbed re-evaluation: for y = a * b, perturbing both inputs by (1 +- delta) changes y by
// 2 delta |ab| (same signs) or delta^2 |ab| (opposite); scaled to u, the estimate is at most
// 2 u |ab| (1 + delta) and reaches it on some element of a long vector.
TEST(Budget, SensitivityByPerturbedReevaluation) {
  const double u = 0x1p-24;
  TensorMap in;
  in["a"] = Tensor{{64}, std::vector<double>(64, 3.0)};
  in["b"] = Tensor{{64}, std::vector<double>(64, -2.0)};
  auto f = [](const TensorMap& x) {
    TensorMap y;
    y["o"].shape = {64};
    for (int i = 0; i < 64; ++i) y["o"].data.push_back(x.at("a").data[i] * x.at("b").data[i]);
    return y;
  };
  const TensorMap s = sensitivity(f, in, u, 3, 7);
  double mx = 0;
  for (double x : s.at("o").data) {
    EXPECT_LE(x, 2 * u * 6 * (1 + u) * (1 + 1e-9));
    mx = std::max(mx, x);
  }
  EXPECT_NEAR(mx, 2 * u * 6, 1e-3 * u * 6);
  // a fixed input is not perturbed: only a's delta remains
  const TensorMap s1 = sensitivity(f, in, u, 3, 7, {"b"});
  for (double x : s1.at("o").data) EXPECT_NEAR(x, u * 6, 1e-6 * u * 6);
}

TEST(Budget, StorageRoundingOfTheSixteenBitFormats) {
  EXPECT_EQ(round_value(1 + 0x1p-8, Precision::bf16), 1.0);            // tie: to even
  EXPECT_EQ(round_value(1 + 3 * 0x1p-9, Precision::bf16), 1 + 0x1p-7);  // above the tie
  EXPECT_EQ(round_value(1 + 0x1p-11, Precision::f16), 1.0);
  EXPECT_EQ(round_value(65519.0, Precision::f16), 65504.0);
  EXPECT_TRUE(std::isinf(round_value(65520.0, Precision::f16)));
  EXPECT_EQ(round_value(0x1p-25, Precision::f16), 0.0);                // half the smallest subnormal: to even (0)
  EXPECT_EQ(round_value(3 * 0x1p-26, Precision::f16), 0x1p-24);
  EXPECT_EQ(round_value(0x1p-130, Precision::bf16), 0x1p-130);          // bf16 subnormal, exact
  EXPECT_EQ(round_value(-1.00390625, Precision::bf16), -1.0);
  EXPECT_EQ(round_value(0.1, Precision::f32), static_cast<double>(0.1f));
}

// The heads evaluated in parallel reassemble into exactly the serial evaluation.
TEST(Budget, ParallelSlicesEqualTheSerialEvaluation) {
  CaseKnobs k;
  k.B = 2; k.H = 3; k.T = 9; k.dk = 4; k.dv = 3; k.initial_state = true;
  const OpSpec& o = op("gated_delta_rule");
  const TensorMap in = o.generate(k, Precision::f64);
  MpDigitsScope s(40);
  const MpTensorMap a = o.oracle(in), b = per_slice_mp(in, o.oracle);
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [n, t] : a) {
    ASSERT_EQ(t.shape, b.at(n).shape) << n;
    for (std::size_t i = 0; i < t.data.size(); ++i) EXPECT_TRUE(t.data[i] == b.at(n).data[i]) << n << " " << i;
  }
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
  EXPECT_GE(orc.digits, 40u);  // started at max(24, -log10(u) + 14) = 30 digits, compared with 30 + 10
}

}  // namespace
}  // namespace recall
