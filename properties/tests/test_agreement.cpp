// Every registered implementation against the MP oracle under the error budget: deterministic
// corner cases plus RapidCheck-generated cases (failures shrink and print a reproducing seed).
#include "product_form_domain.hpp"
#include "rc_knobs.hpp"

#include "recall/properties/agreement.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace recall {
namespace {

std::vector<const Implementation*> all_impls() {
  register_builtin_implementations();
  std::vector<const Implementation*> v;
  for (const auto& i : registry().all()) v.push_back(&i);
  return v;
}

TEST(Registry, EveryOpHasAnImplementationInBothPrecisions) {
  register_builtin_implementations();
  for (const auto& o : ops()) {
    int f32 = 0, f64 = 0;
    for (const auto* i : registry().for_op(o.name)) {
      if (i->precision == Precision::f32) ++f32;
      if (i->precision == Precision::f64) ++f64;
    }
    EXPECT_GT(f32, 0) << o.name;
    EXPECT_GT(f64, 0) << o.name;
  }
}

TEST(Registry, RejectsUnknownOpAndDuplicates) {
  Registry r;
  EXPECT_THROW(r.add({"no_such_op", "x", "cpu", Precision::f32, [](const TensorMap& m) { return m; }, ""}), std::invalid_argument);
  r.add({"linear_attention", "x", "cpu", Precision::f32, [](const TensorMap& m) { return m; }, ""});
  EXPECT_THROW(r.add({"linear_attention", "x", "cpu", Precision::f32, [](const TensorMap& m) { return m; }, ""}), std::invalid_argument);
}

// The corner-case list of the report, every implementation, asserting the budget.
TEST(Agreement, CornerCasesWithinBudget) {
  for (const auto& row : run_agreement(/*quick=*/true)) {
    EXPECT_TRUE(row.pass) << row.op << " / " << row.impl << " / " << row.precision << ": " << row.failures << " of " << row.cases
                          << " cases over budget; worst " << row.max_err_u << " u vs budget " << row.budget_u << " u; "
                          << row.worst_case << " @ " << row.worst_index;
    EXPECT_GE(row.min_oracle_agree_digits, 17.0) << row.op << ": oracle not converged";
  }
}

// Randomised cases with shrinking, per implementation.
// One test per op, so that ctest runs the ops' random campaigns in parallel (500 cases per kernel in ctest
// took 8.4 minutes as one test once the Hopfield ops joined).
class AgreementGenerated : public ::testing::TestWithParam<std::string> {};
std::vector<std::string> op_names() {
  std::vector<std::string> v;
  for (const OpSpec& o : ops()) v.push_back(o.name);
  return v;
}
TEST_P(AgreementGenerated, CasesWithinBudget) {
  for (const Implementation* impl : all_impls()) {
    if (impl->op != GetParam()) continue;
    // the 16-bit rows are judged on the corner cases and by the discrimination suite; the
    // randomised cases (500 per kernel) run the f32 and f64 kernels they are built from
    if (is_half(impl->precision)) continue;
    SCOPED_TRACE(impl->op + "/" + impl->name + "/" + precision_name(impl->precision));
    const bool ok = rc::check(impl->op + " " + impl->name + " " + precision_name(impl->precision), [impl](const CaseKnobs& k0) {
      CaseKnobs k = k0;
      if (impl->op == "normalized_linear_attention") k.keys = KeyKind::gaussian;  // phi = 1 + ELU maps them anyway
      // the regression layers' oracles cost O(T d_k^3) (least squares, with SVDs on rank-deficient prefixes) and
      // O(T^2 d_k^2) (local linear) multiprecision operations: their random cases stay at T <= 48, d_k <= 12
      // (realistic shapes: the discrimination suite and test_regression_layers.cpp)
      if (op(impl->op).judged_domain) {
        k.T = std::min(k.T, 48);
        k.dk = std::min(k.dk, 12);
      }
      if (const OpSpec& o = op(impl->op); o.generated_max_T > 0) {
        k.T = std::min(k.T, o.generated_max_T);
        k.dk = std::min(k.dk, o.generated_max_d);
        k.dv = std::min(k.dv, o.generated_max_d);
      }
      // the product-form inverses are judged on their domain (product_form_domain.hpp)
      if (is_product_form(impl->name)) {
        k.scale_exp = std::min(k.scale_exp, 0);
        RC_ASSERT(product_form_in_domain(impl->op, op(impl->op).generate(k, impl->precision)));
      }
      CaseOutcome c = run_case(*impl, k);
      RC_PRE(c.not_judged.empty());  // outside the op's judged domain (OpSpec::judged_domain): discarded, and counted by RapidCheck
      RC_LOG() << describe(k) << " | " << c.judgement.detail << " @ " << c.judgement.kernel.worst_output
               << c.judgement.kernel.worst_index << "\n";
      RC_ASSERT(c.judgement.pass);
    });
    EXPECT_TRUE(ok);
  }
}
INSTANTIATE_TEST_SUITE_P(Ops, AgreementGenerated, ::testing::ValuesIn(op_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// The budget grows with the problem's condition (kappa, kappa_solve): on an ill-conditioned case it may
// allow more than 1% relative error ("weak": it cannot tell a correct kernel from a 1%-wrong one).
// That is honest, not a defect, but a row whose cases were mostly weak would test little: at least
// half of every row's corner cases must discriminate, and in double none may be weak.
TEST(Agreement, CornerCasesKeepDiscriminatingPower) {
  for (const AgreementRow& r : run_agreement(true)) {
    SCOPED_TRACE(r.op + "/" + r.impl + "/" + r.precision);
    ASSERT_GT(r.cases, 0);
    // The corner list stresses f32/f64 (beta |k|^2 at and beyond 2, nearly parallel keys, scales
    // 1e+-3); at u = 2^-8 or 2^-11 most of those inputs are ill-conditioned beyond 5%, which the
    // report shows per row; the 16-bit budgets are held to discriminate by the discrimination suite
    // at realistic shapes (test_discrimination.cpp).
    if (is_half(parse_precision(r.precision))) continue;
    EXPECT_LT(2 * r.weak_cases, r.cases) << r.weak_cases << " of " << r.cases << " cases have a budget above "
                                         << weak_budget_rel(parse_precision(r.precision)) << " relative (largest " << r.max_budget_rel << ")";
    EXPECT_LT(2 * r.nondiscriminating_cases, r.cases) << r.nondiscriminating_cases << " of " << r.cases
                                                      << " cases would pass an all-zero output";
    // in double no case may be weak, except for the ops that solve systems of the data's own conditioning
    // (OpSpec::judged_domain: least squares, local linear fits), where a corner case up to the domain's edge
    // (cond u_a <= 1e-2) can carry a Skeel solve bound above 1%: flagged weak, and held to the half rule above
    if (r.precision == "f64" && !op(r.op).judged_domain) EXPECT_EQ(r.weak_cases, 0) << "largest relative budget " << r.max_budget_rel;
  }
}

// Negative controls: the budget is not vacuous. Wrong kernels built from correct ones must fail.
const Implementation* find_impl(const std::string& o, const std::string& name, Precision p) {
  register_builtin_implementations();
  for (const auto* i : registry().for_op(o))
    if (i->name == name && i->precision == p) return i;
  return nullptr;
}

TEST(AgreementNegative, FloatKernelRegisteredAsDoubleFails) {
  const Implementation* f32 = find_impl("gated_linear_attention", "cpu.chunked.c16", Precision::f32);
  ASSERT_NE(f32, nullptr);
  Implementation bad{"gated_linear_attention", "bad.float_as_double", "test", Precision::f64,
                     [f32](const TensorMap& in) { TensorMap r = in; round_to(r, Precision::f32); return f32->run(r); }, ""};
  int failed = 0, n = 0;
  for (const CaseKnobs& k : corner_cases(true, true)) {
    ++n;
    failed += !run_case(bad, k).judgement.pass;
  }
  EXPECT_EQ(failed, n) << "a float kernel passed a double budget on " << n - failed << " cases";
}

TEST(AgreementNegative, GateAppliedOneTokenLateFails) {
  const Implementation* good = find_impl("gated_linear_attention", "cpu.chunked.c64", Precision::f64);
  ASSERT_NE(good, nullptr);
  Implementation bad{"gated_linear_attention", "bad.late_gate", "test", Precision::f64,
                     [good](const TensorMap& in) {
                       TensorMap r = in;
                       auto& g = r["log_gate"].data;
                       const auto T = static_cast<std::size_t>(r["log_gate"].shape[2]);
                       for (std::size_t h = 0; h < g.size() / T; ++h)
                         for (std::size_t t = T; t-- > 1;) g[h * T + t] = g[h * T + t - 1];
                       return good->run(r);
                     },
                     ""};
  CaseKnobs k;
  k.T = 40; k.dk = 4; k.dv = 3; k.gates = GateKind::uniform; k.seed = 99;
  EXPECT_FALSE(run_case(bad, k).judgement.pass);
  EXPECT_TRUE(run_case(*good, k).judgement.pass);
}

TEST(Agreement, RejectsNanInputsNamingTheTensor) {
  const OpSpec& o = op("gated_linear_attention");
  CaseKnobs k;
  k.T = 5; k.dk = 2; k.dv = 3;
  TensorMap in = o.generate(k, Precision::f64);
  in["k"].data[7] = std::nan("");
  try {
    o.validate(in);
    FAIL() << "NaN accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'k' has NaN at index (1,1,4,2)"), std::string::npos) << e.what();
  }
  in = o.generate(k, Precision::f64);
  in["log_gate"].data[2] = -std::numeric_limits<double>::infinity();  // a zero gate is legal
  EXPECT_NO_THROW(o.validate(in));
  in["log_gate"].data[2] = std::numeric_limits<double>::infinity();
  EXPECT_THROW(o.validate(in), std::invalid_argument);
  in = o.generate(k, Precision::f64);
  in["v"].shape = {1, 1, 5, 2};
  EXPECT_THROW(o.validate(in), std::invalid_argument);
}

}  // namespace
}  // namespace recall
