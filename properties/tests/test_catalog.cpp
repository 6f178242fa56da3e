// The spec catalogue embedded in the program: complete, consistent with ../shared/spec when that
// exists, and every ID of the linear-attention family (issue scope T1) tested. Also the CLI's
// check/report output formats.
#include "recall/tools/app.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace recall {
namespace {

namespace fs = std::filesystem;

std::set<std::string> shared_spec_ids(const fs::path& dir) {
  std::set<std::string> ids;
  for (const auto& e : fs::directory_iterator(dir)) {
    const auto name = e.path().filename().string();
    if (!std::regex_match(name, std::regex("A[0-9]{3}-.*\\.md"))) continue;
    std::ifstream in(e.path());
    std::string line;
    bool in_tsv = false;
    while (std::getline(in, line)) {
      if (line.rfind("```tsv", 0) == 0) { in_tsv = true; continue; }
      if (in_tsv && line.rfind("```", 0) == 0) { in_tsv = false; continue; }
      if (in_tsv && !line.empty()) ids.insert(line.substr(0, line.find('\t')));
    }
  }
  return ids;
}

TEST(SpecCatalog, MatchesTheSharedSpecificationWhereItExists) {
  const fs::path dir = fs::path(RECALL_SOURCE_DIR) / ".." / "shared" / "spec";
  if (!fs::exists(dir)) GTEST_SKIP() << "no ../shared/spec beside the checkout; the embedded list stands alone";
  std::set<std::string> shared = shared_spec_ids(dir), ours;
  for (const auto& e : spec_catalog()) ours.insert(e.id);
  for (const auto& id : shared) EXPECT_TRUE(ours.count(id)) << id << " is in ../shared/spec but not in spec/ids.tsv";
  for (const auto& id : ours) EXPECT_TRUE(shared.count(id)) << id << " is in spec/ids.tsv but not in ../shared/spec";
}

TEST(SpecCatalog, EveryIdOnceWithAValidStatus) {
  std::set<std::string> seen;
  const std::set<std::string> statuses = {"todo", "reference", "tested", "not-numeric"};
  auto cat = spec_catalog();
  EXPECT_EQ(cat.size(), 563u);
  for (const auto& e : cat) {
    EXPECT_TRUE(seen.insert(e.id).second) << "duplicate " << e.id;
    EXPECT_TRUE(statuses.count(e.status)) << e.id << " " << e.status;
    if (e.status == "not-numeric") EXPECT_FALSE(e.note.empty()) << e.id << " needs a reason";
  }
}

TEST(SpecCatalog, LinearAttentionFamilyIsTested) {
  const std::vector<std::string> t1 = {
      "A000-AM-OUTER", "A000-KERNEL-AM", "A000-GATED-ATTN", "A001-LINATTN", "A001-LINATTN-FEATUREMAP", "A001-FEATURE-MAPS",
      "A001-LINATTN-NORMALIZED", "A001-GATED-LINATTN", "A001-GATED-LINATTN-DIAG", "A001-SSM-EQUIV", "A001-LA-UNBOUNDED-GROWTH",
      "A001-LA-OUTPUT-NORM-RESTORES", "A001-LA-OUTNORM-LN", "A001-LA-OUTNORM-RMS", "A001-LA-OUTNORM-L2",
      "A001-GATED-LINATTN-UNROLL", "A001-GATED-MODEL-LIST", "A001-LINATTN-AS-ONE-GD-STEP", "A001-GATED-LINATTN-AS-ONE-GD-STEP",
      "A001-F01-LINATTN-PARALLEL", "A001-F02-FEATUREMAP-PARALLEL", "A001-F03-NORMLINATTN-PARALLEL", "A001-F04-GATED-DECAYMASK",
      "A001-EQ01-LA-GD", "A001-EQ02-LA-LS-APPROX", "A001-EQ03-FEATUREMAP", "A001-EQ04-GATED", "A004-KV-CACHE",
      "A004-CX-LA-SPACE", "A004-CX-LA-TIME", "A004-CX-LA-FEATDIM", "A004-EQ13-KERNEL-ATTN", "A004-EQ13-14-FACTOR",
      "A004-PHI-SET", "A004-LA-STATE-KM", "A004-LA-NORM-Z", "A004-UPD-LA", "A004-FWP-PROJ", "A004-FWP-LT",
      "A004-FWP-LT-EQUIV", "A004-FWP-CLASSIC", "A004-FWP-LA-CORE", "A004-UPD-MAMBA2", "A004-TTT-DEFS", "A004-TTT-THM1",
      "A004-TTT-THM1-NORM", "A004-TTT-PROOF-GRAD", "A004-TTT-PROOF-UNROLL", "A004-TTT-VARIANTS"};
  EXPECT_EQ(t1.size(), 49u);
  std::map<std::string, std::string> status;
  for (const auto& e : spec_catalog()) status[e.id] = e.status;
  for (const auto& id : t1) EXPECT_EQ(status[id], "tested") << id;
}

TEST(Cli, CheckJsonIsOneObjectPerLineWithVerdictAndEvidence) {
  std::ostringstream out, err;
  CheckConfig cfg;
  ASSERT_EQ(cmd_check({"A004-UPD-LA", "A001-LINATTN"}, true, cfg, out, err), 0) << err.str();
  std::istringstream in(out.str());
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    EXPECT_TRUE(j.contains("id") && j.contains("verdict") && j.contains("evidence"));
    const std::string v = j["verdict"];
    EXPECT_TRUE(v == "holds" || v == "violated" || v == "inconclusive");
    ++n;
  }
  EXPECT_EQ(n, 2);
}

TEST(Cli, CheckOfAnUnknownIdFails) {
  std::ostringstream out, err;
  EXPECT_EQ(cmd_check({"A999-NOPE"}, false, CheckConfig{}, out, err), 2);
  EXPECT_NE(err.str().find("A999-NOPE"), std::string::npos);
}

}  // namespace
}  // namespace recall
