// The claims ledger: every registered check runs, its verdict is reproducible, and checks of
// identities between this project's own forms hold. Paper claims are findings: their verdicts
// are reported, not asserted.
#include "recall/proofs/ledger.hpp"
#include "recall/tools/app.hpp"
#include "recall/tools/progress.hpp"

#include <iostream>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

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
// The claims campaign, one test per claim (label `slow`): the item's full sizes and instance counts.
// One test per claim so that GoogleTest's sharding (GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX: a CI matrix,
// a cluster's array job) splits the campaign; with RECALL_LEDGER_OUT=DIR each test saves its claim run
// as DIR/<ID>.claimrun.cbor, and `recall report --merge DIR...` joins the shards into one ledger
// (README "Sharded campaigns"; ci/shard-merge-check tests that 4 shards merge to the unsharded ledger).
// RECALL_CAMPAIGN_QUICK=1 runs the quick checks instead (that test's setting).
class ClaimCampaignSlow : public ::testing::TestWithParam<std::string> {};
TEST_P(ClaimCampaignSlow, Full) {
  register_builtin_claims();
  const Claim* c = ledger().find(GetParam());
  ASSERT_NE(c, nullptr);
  CheckConfig cfg;
  const char* quick = std::getenv("RECALL_CAMPAIGN_QUICK");
  cfg.quick = quick && std::string(quick) == "1";
  const ClaimRun r = run_claim(*c, cfg);
  EXPECT_TRUE(r.ran) << c->id << ": " << r.result.reason;
  if (c->internal) EXPECT_EQ(r.result.verdict, Verdict::holds) << c->id << ": " << r.result.reason;
  if (const char* out = std::getenv("RECALL_LEDGER_OUT")) save_claim_run(out, c->id, r);
  RecordProperty("verdict", verdict_name(r.result.verdict));
}
INSTANTIATE_TEST_SUITE_P(Campaign, ClaimCampaignSlow, ::testing::ValuesIn(claim_ids()), param_name);
}  // namespace
}  // namespace recall
