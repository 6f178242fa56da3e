// The report's machinery: worker processes (tools/parallel.hpp) give the same bytes as one
// process and name a failing or crashing task; the progress display (tools/progress.hpp) says
// the fraction done and the time left; the layout translation (tools/layout.hpp) is an exact
// inverse pair and `dump` writes the documented scale.
#include "recall/proofs/ledger.hpp"
#include "recall/properties/ops.hpp"
#include "recall/tools/layout.hpp"
#include "recall/tools/parallel.hpp"
#include "recall/tools/progress.hpp"
#include "recall/tools/validate.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <csignal>
#include <sstream>

namespace recall {
namespace {

TEST(RunTasks, WorkerProcessesReturnTheSameBytesInTaskOrder) {
  register_builtin_claims();
  // real work: three claims (MP arithmetic at the process-wide precision), their evidence as CBOR
  std::vector<const Claim*> cs = {ledger().find("A000-AM-OUTER"), ledger().find("A004-UPD-LA"), ledger().find("A001-LINATTN")};
  for (const Claim* c : cs) ASSERT_NE(c, nullptr);
  auto task = [&](std::size_t i) {
    const ClaimRun r = run_claim(*cs[i], CheckConfig{});
    nlohmann::json j = {{"id", cs[i]->id}, {"verdict", verdict_name(r.result.verdict)}, {"value", r.result.evidence.value},
                        {"witness", r.result.evidence.witness}};
    const auto b = nlohmann::json::to_cbor(j);
    return std::string(b.begin(), b.end());
  };
  std::vector<std::size_t> seen;
  const auto one = run_tasks(cs.size(), task, 1);
  const auto two = run_tasks(cs.size(), task, 2, [&](std::size_t i) { seen.push_back(i); });
  ASSERT_EQ(one.size(), 3u);
  EXPECT_EQ(one, two);
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::size_t>{0, 1, 2}));
  for (std::size_t i = 0; i < cs.size(); ++i) EXPECT_EQ(nlohmann::json::from_cbor(two[i])["id"], cs[i]->id);
  // non-finite numbers survive the pipe (CBOR doubles)
  const auto inf = run_tasks(2, [](std::size_t i) {
    const auto b = nlohmann::json::to_cbor(nlohmann::json(i ? INFINITY : NAN));
    return std::string(b.begin(), b.end());
  }, 2);
  EXPECT_TRUE(std::isnan(nlohmann::json::from_cbor(inf[0]).get<double>()));
  EXPECT_EQ(nlohmann::json::from_cbor(inf[1]).get<double>(), INFINITY);
}

TEST(RunTasks, AThrowingTaskIsReportedWithItsMessage) {
  auto task = [](std::size_t i) -> std::string {
    if (i == 3) throw std::invalid_argument("task three: bad input 'q'");
    return std::to_string(i);
  };
  for (unsigned jobs : {1u, 2u}) {
    try {
      run_tasks(6, task, jobs);
      ADD_FAILURE() << "no exception with " << jobs << " jobs";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("task three: bad input 'q'"), std::string::npos) << e.what();
    }
  }
}

TEST(RunTasks, ACrashedWorkerNamesItsTask) {
  auto task = [](std::size_t i) -> std::string {
    if (i == 1) std::raise(SIGKILL);
    return "ok";
  };
  try {
    run_tasks(2, task, 2);
    ADD_FAILURE() << "a killed worker went unnoticed";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("signal 9"), std::string::npos) << m;
    EXPECT_NE(m.find("task 1"), std::string::npos) << m;
  }
}

TEST(ProgressDisplay, PlainLinesSayFractionAndTimeLeftAndABarRedrawsInPlace) {
  std::ostringstream plain;
  {
    Progress p("campaign", 4.0, plain, false);
    p.done("first", 1.0);
    p.done("second", 3.0);
  }
  const std::string s = plain.str();
  EXPECT_NE(s.find("campaign: 25% (1 steps"), std::string::npos) << s;
  EXPECT_NE(s.find("left) first\n"), std::string::npos) << s;
  EXPECT_NE(s.find("campaign: 100% (2 steps"), std::string::npos) << s;
  EXPECT_EQ(s.find('\r'), std::string::npos);
  std::ostringstream tty;
  {
    Progress p("campaign", 2.0, tty, true);
    p.done("a", 1.0);
  }
  EXPECT_NE(tty.str().find("\r\033[K"), std::string::npos);
  EXPECT_NE(tty.str().find("[##############..............] 50%"), std::string::npos) << tty.str();
  EXPECT_EQ(tty.str().back(), '\n');
  EXPECT_EQ(Progress::duration(65), "1 min 05 s");
  EXPECT_EQ(Progress::duration(42), "42 s");
  EXPECT_EQ(Progress::duration(3.5e-14), "0.0 s");
  EXPECT_EQ(Progress::duration(2.26), "2.3 s");
  // weights that sum to the total in another order count as all done
  std::ostringstream sums;
  {
    Progress p("sums", 0.1 + 0.2 + 0.3, sums, false);
    p.done("a", 0.3);
    p.done("b", 0.2);
    p.done("c", 0.1);
  }
  EXPECT_NE(sums.str().find("sums: 100% (3 steps"), std::string::npos) << sums.str();
  EXPECT_NE(sums.str().find("~0.0 s left) c"), std::string::npos) << sums.str();
}

TEST(Layouts, BthdAndKvAreExactInversesOfTheCanonicalLayout) {
  const OpSpec& o = op("gated_delta_rule");
  CaseKnobs k;
  k.B = 2, k.H = 3, k.T = 5, k.dk = 4, k.dv = 6, k.initial_state = true, k.seed = 9;
  const TensorMap canon = o.generate(k, Precision::f64);
  LayoutOptions lo;
  lo.layout = "bthd";
  lo.state_layout = "kv";
  const TensorMap user = inputs_from_canonical(o, canon, lo);
  EXPECT_EQ(user.at("q").shape, (std::vector<std::int64_t>{2, 5, 3, 4}));
  EXPECT_EQ(user.at("beta").shape, (std::vector<std::int64_t>{2, 5, 3}));
  EXPECT_EQ(user.at("s0").shape, (std::vector<std::int64_t>{2, 3, 4, 6}));
  // element (b=1, t=4, h=2, d=3) of the user's q is canonical (b=1, h=2, t=4, d=3)
  EXPECT_EQ(user.at("q").data[((1 * 5 + 4) * 3 + 2) * 4 + 3], canon.at("q").data[((1 * 3 + 2) * 5 + 4) * 4 + 3]);
  // s0 kv (b, h, k=1, v=5) is canonical vk (b, h, v=5, k=1)
  EXPECT_EQ(user.at("s0").data[((0 * 3 + 1) * 4 + 1) * 6 + 5], canon.at("s0").data[((0 * 3 + 1) * 6 + 5) * 4 + 1]);
  const TensorMap back = inputs_to_canonical(o, user, lo, "test");
  for (const auto& [name, t] : canon) {
    EXPECT_EQ(back.at(name).shape, t.shape) << name;
    EXPECT_EQ(back.at(name).data, t.data) << name;
  }
  // a q scale multiplies q for ops without a scale input, and is said in words
  lo.q_scale = 0.25;
  const TensorMap scaled = inputs_to_canonical(o, user, lo, "test");
  EXPECT_EQ(scaled.at("q").data[7], 0.25 * canon.at("q").data[7]);
  EXPECT_NE(describe_scale(o, scaled, lo, false).find("q scaled by 0.25"), std::string::npos);
  lo.layout = "tbhd";
  EXPECT_THROW(inputs_to_canonical(o, user, lo, "test"), std::invalid_argument);
}

TEST(Layouts, AQScaleIsRefusedNamingQForAnOpWithoutQueries) {
  // newton_schulz5 (and the Omega/Atlas ops) read no q: a --q-scale there is a user's mistake, refused in
  // words rather than ignored (ci/fuzz's validate target once treated the refusal as a harness failure)
  const OpSpec& o = op("newton_schulz5");
  ASSERT_EQ(o.input("q"), nullptr);
  CaseKnobs k;
  k.seed = 3;
  const TensorMap canon = o.generate(k, Precision::f64);
  LayoutOptions lo;
  EXPECT_NO_THROW(inputs_to_canonical(o, canon, lo, "inputs"));
  lo.q_scale = 0.5;
  try {
    inputs_to_canonical(o, canon, lo, "inputs");
    ADD_FAILURE() << "a q_scale for an op without q was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no input 'q'"), std::string::npos) << e.what();
  }
}

TEST(Layouts, DumpWritesTheDocumentedScale) {
  // deltaformer_norm documents scale = 1/sqrt(dk): dump writes it (it used to write 1.0)
  const TensorMap in = generate_inputs("deltaformer_norm", "B=1,H=1,T=9,dk=16,dv=4", Precision::bf16, CaseKnobs{}, LayoutOptions{});
  ASSERT_TRUE(in.count("scale"));
  EXPECT_EQ(in.at("scale").data, (std::vector<double>{0.25}));
  // softmax attention with an initial-state knob: still the default, and --q-scale overrides it
  CaseKnobs k;
  k.initial_state = true;
  LayoutOptions lo;
  EXPECT_EQ(generate_inputs("softmax_attention", "B=1,H=1,T=9,dk=64,dv=4", Precision::f32, k, lo).at("scale").data,
            (std::vector<double>{0.125}));
  lo.q_scale = 0.3;
  EXPECT_EQ(generate_inputs("softmax_attention", "B=1,H=1,T=9,dk=64,dv=4", Precision::f32, k, lo).at("scale").data,
            (std::vector<double>{0.3}));
}

}  // namespace
}  // namespace recall
