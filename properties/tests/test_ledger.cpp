// The claims ledger: every registered check runs, its verdict is reproducible, and checks of
// identities between this project's own forms hold. Paper claims are findings: their verdicts
// are reported, not asserted.
#include "recall/proofs/ledger.hpp"
#include "recall/tools/progress.hpp"

#include <iostream>

#include <gtest/gtest.h>

#include <cmath>

namespace recall {
namespace {

class EveryClaim : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryClaim, RunsIsReproducibleAndInternalIdentitiesHold) {
  register_builtin_claims();
  const Claim* c = ledger().find(GetParam());
  ASSERT_NE(c, nullptr);
  CheckConfig cfg;
  ClaimRun a = run_claim(*c, cfg);
  ASSERT_TRUE(a.ran) << c->id << ": " << a.result.reason;
  EXPECT_GT(a.result.evidence.instances, 0) << c->id << " evaluated no instance";
  EXPECT_FALSE(a.result.reason.empty()) << c->id;
  ClaimRun b = run_claim(*c, cfg);
  EXPECT_EQ(a.result.verdict, b.result.verdict) << c->id << " verdict not reproducible";
  const double va = a.result.evidence.value, vb = b.result.evidence.value;
  EXPECT_TRUE(va == vb || (std::isnan(va) && std::isnan(vb))) << c->id << " statistic not reproducible: " << va << " vs " << vb;
  EXPECT_EQ(a.result.evidence.witness, b.result.evidence.witness) << c->id;
  if (c->internal) {
    EXPECT_EQ(a.result.verdict, Verdict::holds) << c->id << " (an identity between our own forms) failed: " << a.result.reason
                                                << "; witness " << a.result.evidence.witness << "; value " << va;
  }
  RecordProperty("verdict", verdict_name(a.result.verdict));
}

std::vector<std::string> claim_ids() {
  register_builtin_claims();
  std::vector<std::string> v;
  for (const auto& c : ledger().all()) v.push_back(c.id);
  return v;
}

std::string param_name(const ::testing::TestParamInfo<std::string>& i) {
  std::string s = i.param;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Ledger, EveryClaim, ::testing::ValuesIn(claim_ids()), param_name);

TEST(IdentityCheck, ConfirmedFailureIsViolatedWithTheFirstWitness) {
  IdentityCheck chk("residual", 50);
  chk.add("small ok", [](unsigned) { return 0.0; });
  chk.add("n=3 bad", [](unsigned) { return 1e-3; });  // fails at 50 and at 100 digits
  chk.add("n=9 bad", [](unsigned) { return 1.0; });
  ClaimResult r = chk.result(CheckConfig{}, "test");
  EXPECT_EQ(r.verdict, Verdict::violated);
  EXPECT_EQ(r.evidence.witness, "n=3 bad");
  EXPECT_DOUBLE_EQ(r.evidence.value, 1e-3);
}

TEST(IdentityCheck, FailureNotConfirmedAtDoubledDigitsIsInconclusive) {
  IdentityCheck chk("residual", 50);
  chk.add("precision-limited", [](unsigned d) { return d >= 100 ? 0.0 : 1e-30; });
  EXPECT_EQ(chk.result(CheckConfig{}, "test").verdict, Verdict::inconclusive);
}

TEST(IdentityCheck, ConfirmedFailureAfterAnUnconfirmedOneIsViolated) {
  IdentityCheck chk("residual", 50);
  chk.add("precision-limited", [](unsigned d) { return d >= 100 ? 0.0 : 1e-30; });
  chk.add("real failure", [](unsigned) { return 1e-3; });
  ClaimResult r = chk.result(CheckConfig{}, "test");
  EXPECT_EQ(r.verdict, Verdict::violated);
  EXPECT_EQ(r.evidence.witness, "real failure");
}

TEST(IdentityCheck, NanResidualFails) {
  IdentityCheck chk("residual", 50);
  chk.add("nan", [](unsigned) { return std::nan(""); });
  EXPECT_EQ(chk.result(CheckConfig{}, "test").verdict, Verdict::violated);
}

TEST(IdentityCheck, NoInstanceIsInconclusive) {
  IdentityCheck chk("residual", 50);
  chk.exclude("x", "denominator vanishes");
  EXPECT_EQ(chk.result(CheckConfig{}, "test").verdict, Verdict::inconclusive);
}

TEST(Ledger, ACheckThatThrowsDidNotRun) {
  Claim c{"X-1", "throws", check_class::identity, false, [](const CheckConfig&) -> ClaimResult { throw std::runtime_error("boom"); }};
  ClaimRun r = run_claim(c, CheckConfig{});
  EXPECT_FALSE(r.ran);
  EXPECT_EQ(r.result.verdict, Verdict::inconclusive);
  EXPECT_NE(r.result.reason.find("boom"), std::string::npos);
}

}  // namespace
}  // namespace recall

namespace recall {
namespace {
// The full campaign of every claim (label `slow`): the item's full sizes and instance counts.
TEST(LedgerSlow, FullCampaignEveryClaimRuns) {
  register_builtin_claims();
  CheckConfig cfg;
  cfg.quick = false;
  Progress bar("LedgerSlow", static_cast<double>(ledger().all().size()), std::cout, is_terminal(1));
  for (const Claim& c : ledger().all()) {
    ClaimRun r = run_claim(c, cfg);
    bar.done(c.id + ": " + verdict_name(r.result.verdict), 1.0);
    EXPECT_TRUE(r.ran) << c.id << ": " << r.result.reason;
    if (c.internal) EXPECT_EQ(r.result.verdict, Verdict::holds) << c.id << ": " << r.result.reason;
  }
}
}  // namespace
}  // namespace recall
