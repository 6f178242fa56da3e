// The spec catalogue embedded in the program: complete, consistent with ../shared/spec when that
// exists, and every ID of the issue scopes T1 (linear attention), T2 (delta rule) and T3 (softmax,
// DeltaFormer) tested. Also the CLI's
// check/report output formats.
#include "recall/tools/app.hpp"
#include "recall/tools/where.hpp"

#include <gtest/gtest.h>

#include <algorithm>
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

// Issue scopes T2 (delta-rule family and objectives) and T3 (softmax attention and DeltaFormer),
// as listed in the spec's INDEX.md: every ID tested (not-numeric only with a reason in the catalog).
void expect_scope_tested(const std::vector<std::string>& ids, std::size_t expected) {
  EXPECT_EQ(ids.size(), expected);
  std::map<std::string, SpecEntry> cat;
  for (const auto& e : spec_catalog()) cat[e.id] = e;
  for (const auto& id : ids) {
    ASSERT_TRUE(cat.count(id)) << id;
    const auto& e = cat[id];
    EXPECT_TRUE(e.status == "tested" || (e.status == "not-numeric" && !e.note.empty())) << id << ": " << e.status;
  }
}
TEST(SpecCatalog, DeltaRuleFamilyIsTested) {
  const std::vector<std::string> t2 = {
      "A000-GD-VIEW", "A000-GD-UNBOUNDED", "A000-GEN-REC", "A000-GEN-OBJ", "A000-GEN-OBJ-SYM", "A000-T2-LINATTN",
      "A000-T2-GLA", "A000-T2-DELTANET", "A000-T2-MOMENTUM", "A000-T2-MOMENTUM-EQ76", "A000-T2-SMNONORM",
      "A000-T2-SMNORM", "A000-T2-SMNORM-APPROX", "A000-T2-GSM", "A000-T2-GSM-EQ36", "A000-T2-GSM-NORM",
      "A000-DELTANET-FROB", "A000-DELTA-KERNEL", "A000-DELTANET-INFOAGG", "A000-SOFTMAX-OBJ", "A001-DELTANET-DEF",
      "A001-ONLINE-LEARNER-TEMPLATE", "A001-RLS", "A001-RLS-RIDGE-INIT", "A001-RIDGE-LIMIT", "A001-WRLS",
      "A001-SGD-LAYER", "A001-DELTANET-AS-SGD", "A001-SGD-RECENCY", "A001-MULTISTEP-SGD", "A001-DELTAPRODUCT",
      "A001-TTT", "A001-LONGHORN", "A001-LONGHORN-AS-SGD", "A001-LONGHORN-LIMITS", "A001-LONGHORN-GLOBAL-OBJECTIVE",
      "A001-NLMS", "A001-NLMS-KACZMARZ", "A001-L2REG-OBJECTIVE", "A001-LEAKY-LMS", "A001-GATED-DELTANET-REPARAM",
      "A001-GDN-MAP-INVERTIBLE", "A001-F08-DELTANET-CHUNK", "A001-F09-GDN-CHUNK", "A001-EQ08-DELTANET-SGD",
      "A001-EQ09-LONGHORN", "A001-EQ10-NLMS", "A001-EQ11-LEAKY-LMS", "A001-EQ12-GDN", "A001-EQ13-TTT",
      "A004-DELTA-READ", "A004-DELTA-BETA-GATE", "A004-DELTA-VNEW", "A004-DELTA-23-24", "A004-DELTA-FWP",
      "A004-DELTA-FWP-ZNORM", "A004-DELTA-BETA0", "A004-DELTA-BETA1", "A004-DELTA-IS-DELTANET", "A004-UPD-LONGHORN",
      "A004-UPD-DELTANET", "A004-UPD-GDN", "A004-OBJ-LA", "A004-OBJ-LA-GRAD", "A004-OBJ-LA-ARGMIN", "A004-OBJ-MAMBA2",
      "A004-OBJ-MAMBA2-ARGMIN", "A004-OBJ-LONGHORN", "A004-OBJ-LONGHORN-ARGMIN", "A004-OBJ-LONGHORN-ALT",
      "A004-OBJ-LONGHORN-ALT-ARGMIN", "A004-OBJ-DELTANET", "A004-OBJ-DELTANET-ARGMIN", "A004-OBJ-GDN",
      "A004-OBJ-GDN-ARGMIN", "A004-GDVIEW-LINLOSS", "A004-GDVIEW-RECON-AT0", "A004-GDVIEW-RECON-ONLINE",
      "A004-TTT-ONLINE-TEMPLATE"};
  expect_scope_tested(t2, 79);
}

// Issue scope T4 (test-time regression, the rest of A001) as listed in the spec's INDEX.md.
TEST(SpecCatalog, TestTimeRegressionIsTested) {
  const std::vector<std::string> t4 = {
      "A001-TTR-MEMORIZE", "A001-TTR-RETRIEVE", "A001-TTR-PERFECT-RECALL", "A001-TTR-RECIPE",
      "A001-NONPARAMETRIC-MEMORY-GROWTH", "A001-LS-OBJECTIVE", "A001-LS-CLOSED-FORM", "A001-LINATTN-AS-REGRESSION",
      "A001-LINATTN-IGNORES-COVARIANCE", "A001-LINATTN-OPTIMALITY-AS-PRINTED", "A001-LINATTN-OPTIMALITY-COLUMNS",
      "A001-LS-NORM-BOUND", "A001-APPA-NORM-BOUND-PROOF", "A001-APPA-S60", "A001-APPA-S61", "A001-APPA-S62",
      "A001-APPA-S63", "A001-APPA-S64", "A001-APPA-S65", "A001-APPA-S66", "A001-APPA-S67", "A001-LS-NORM-ALT-BOUND",
      "A001-FEATURE-LS", "A001-WLS-OBJECTIVE", "A001-WLS-WEIGHT-ORDER", "A001-WLS-INPUT-GATE", "A001-WLS-CLOSED-FORM",
      "A001-WLS-RESCALE", "A001-WLS-UNDERDET-INVARIANCE", "A001-GATED-LINATTN-AS-WLS", "A001-GD-LS-OBJECTIVE",
      "A001-FULLBATCH-GD", "A001-FULLBATCH-GD-CONVERGENCE", "A001-NEWTON-PRECONDITIONED", "A001-NEWTON-ANY-INIT",
      "A001-GD-PRECOND-EXTREMES", "A001-KERNEL-REGRESSION", "A001-LOCAL-POLY-CLASS", "A001-LOCAL-LINEAR-ATTN",
      "A001-LOCAL-LINEAR-OFFSET-FORM", "A001-LOCAL-LINEAR-MOMENT-FORM", "A001-LOCAL-LINEAR-AFFINE-REPRO",
      "A001-LOCAL-LINEAR-SINGULAR-PINV", "A001-LOCAL-LINEAR-SINGULAR-RIDGE", "A001-LOCAL-LINEAR-COST",
      "A001-LOCAL-POLY-GENERAL-P", "A001-EXP-ONLINE-REGRESSION", "A001-EXP-LA-WORST", "A001-EXP-RLS-NO-ADAPT",
      "A001-EXP-NONPARAM-ADAPT", "A001-EXP-P1-BEATS-P0", "A001-SHORTCONV", "A001-MQAR-CONSTRUCTION",
      "A001-MQAR-COUNT-FACTOR", "A001-MQAR-LS-VARIANT", "A001-MQAR-LENGTH-INDEPENDENCE", "A001-MQAR-ORTHOGONALITY-LIMIT",
      "A001-MQAR-EXPERIMENT", "A001-F05-LS-PREFIXSCAN-SOLVE", "A001-F06-WLS-GATEDSCAN-SOLVE",
      "A001-F07-FULLBATCH-GD-CLOSED", "A001-F11-KERNEL-INCREMENTAL", "A001-F12-LOCALLINEAR-STREAM",
      "A001-EQ05-LS-NEWTON-RLS", "A001-EQ06-WLS-WRLS", "A001-EQ07-ISTEP-GD", "A001-EQ14-KERNEL", "A001-EQ19-LOCAL-LINEAR"};
  expect_scope_tested(t4, 68);
}

// Issue scope T6 (modern Hopfield models: all of A003, A004's modern-Hopfield and dense-associative-memory items)
// as listed in the spec's INDEX.md.
TEST(SpecCatalog, ModernHopfieldIsTested) {
  const std::vector<std::string> t6 = {
      "A003-LSE", "A003-DENSE-ENERGY", "A003-DENSE-RETRIEVAL", "A003-T1-T2", "A003-OVERLAP-STATIONARY",
      "A003-ATTENTION-EQUIV", "A003-ENERGY-MASKED", "A003-SVR-BACKGROUND", "A003-SVR-BG-UNIQUE",
      "A003-GEN-FIXED-POINT", "A003-SMU-DISJOINT", "A003-REGRESSION-MODEL", "A003-SVR-PROBLEM", "A003-SVR-UNIQUE",
      "A003-SVR-EPS-RETRIEVAL", "A003-REMARK-3.4", "A003-THM-3.1", "A003-LEMMA-B1", "A003-LEMMA-B1-KKT",
      "A003-LEMMA-B1-COMPL", "A003-LEMMA-B2", "A003-LEMMA-B3", "A003-FEATURE-NORMALIZATION", "A003-LEMMA-3.1",
      "A003-LEMMA-3.1-MEMBER", "A003-SPARSE-MASK-DEF", "A003-THM-3.2", "A003-SPARSE-U", "A003-SPARSE-R",
      "A003-SPARSE-UR-IDENTITY", "A003-RANDOM-MASK", "A003-RANDOM-MASK-BERN", "A003-SLIDING-WINDOW",
      "A003-WINDOW-CAUSAL", "A003-TOPK", "A003-TOPK-EXACT", "A003-SUBQUADRATIC", "A003-COMPLEXITY",
      "A003-SEPARATION", "A003-B42-EQ", "A003-B42-INEQ", "A003-THM-4.1", "A003-THM-4.1-PROOF", "A003-THM-4.1-B32",
      "A003-THM-4.1-DENSE", "A003-THM-4.1-R-AUX", "A003-REMARK-4.1", "A003-REMARK-4.2", "A003-COR-4.1.1",
      "A003-COR-4.1.1-R", "A003-COR-4.1.1-BOUNDS", "A003-COR-4.1.1-ITER", "A003-RAMSAUER-B36", "A003-COR-4.1.2",
      "A003-COR-4.1.2-B36", "A003-COR-4.1.2-DELTA", "A003-LEMMA-4.1", "A003-LEMMA-4.1-B37", "A003-LEMMA-4.1-B39",
      "A003-THM-4.2", "A003-THM-4.2-FREE-R", "A003-THM-4.2-NECESSARY", "A003-THM-4.2-KMONO", "A003-B46", "A003-B50",
      "A003-GAMMA-D", "A003-BRAUCHART", "A003-LEMMA-4.2", "A003-LEMMA-4.2-RDATA", "A003-LEMMA-4.2-B53",
      "A003-LEMMA-4.2-FACTOR", "A003-LAMBERT-C", "A003-LEMMA-4.2-GROWTH", "A003-KM-REDUCTION", "A003-LINEAR",
      "A003-KERNEL-COMPLEXITY", "A003-MULTIHEAD", "A003-MULTIHEAD-PERHEAD", "A003-PRF", "A003-PRF-UNBIASED",
      "A003-NPH-LAYER", "A003-EXTERNAL-SPARSEMAX", "A003-EXP-RETRIEVAL", "A003-EXP-EFFICIENCY", "A003-EXP-REPORTED",
      "A004-MHN-DEF", "A004-MHN-CAP-EXP", "A004-DAM-EXP-BIN", "A004-MHN-CAP-EXP-BIN", "A004-MHN-ATTN-EQUIV",
      "A004-MHN-ATTN-GENV", "A004-MHN-GRADSTEP", "A004-MHN-ENERGY-DESCENT"};
  expect_scope_tested(t6, 93);
}

TEST(SpecCatalog, SoftmaxAndDeltaFormerAreTested) {
  const std::vector<std::string> t3 = {
      "A000-SOFTMAX-ATTN", "A000-EXP-FEATURE", "A000-EXP-TRUNC", "A000-DELTAFORMER-U", "A000-DELTAFORMER-EQUIV",
      "A000-DELTAFORMER-GEN", "A000-DELTAFORMER-SPECIAL", "A000-DELTAFORMER-NORM", "A000-UMATRIX",
      "A000-DELTAFORMER-NORM-SFORM", "A000-FN9", "A000-CHUNKED", "A000-CHUNKED-EQUIV", "A000-CHUNKED-GEN",
      "A000-TRIINV", "A000-TRIINV-ITER", "A000-TRIINV-COMMENT", "A000-COMPLEXITY", "A000-PERTURB",
      "A000-PERTURB-READ", "A000-PERTURB-CLAIM", "A000-DAG-INV", "A000-ASSUMP1", "A000-ASSUMP1-EXIST", "A000-ASSUMP2",
      "A000-ROUND-KERNEL", "A000-LEMMA1", "A000-THM1", "A000-THM1-INIT", "A000-THM1-PROOF", "A000-THM1-CONSTRUCTION",
      "A000-HOUSEHOLDER", "A000-THM1-EXPRESS", "A000-GQA-U", "A000-GQA-EXP-FIT", "A000-GQA-LINEAR", "A000-SPACE",
      "A000-TOY-CODE", "A000-TOY-SOLVE", "A000-TOY-SOFTMAX-K1", "A000-TOY-DATA", "A000-TOY-TRAIN", "A001-SIM-DOTEXP",
      "A001-SIM-GAUSS", "A001-SOFTMAX-ATTN", "A001-UNNORM-SOFTMAX-AS-KERNEL-APPROX", "A001-SOFTMAX-AS-NW",
      "A001-LINATTN-NORMALIZED-AS-NW", "A001-QKNORM", "A001-QKNORM-EQUAL-KEYNORM", "A001-QKNORM-TEMPERATURE",
      "A001-QKNORM-REWEIGHT", "A001-QKNORM-NECESSITY", "A001-F10-SOFTMAX-ONLINE", "A001-EQ15-UNNORM-SOFTMAX",
      "A001-EQ16-SOFTMAX-NW", "A001-EQ17-QKNORM", "A001-EQ18-NORMLA-NW", "A004-SOFTMAX-ATTN", "A004-SOFTMAX-CONVEX",
      "A004-EQ12-SOFTMAX-KERNEL"};
  expect_scope_tested(t3, 61);
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

// Issue 17: "where is ID X?" from `recall list` alone. Every tested ID has a test location and at
// least one code location (claim check or op registration); every location names a file that
// exists in the checkout, at a line that exists and, for scanned mentions, cites the ID.
TEST(WhereColumn, EveryTestedIdHasCodeAndTestLocationsThatExist) {
  int tested = 0;
  for (const auto& e : spec_catalog()) {
    if (e.status != "tested") continue;
    ++tested;
    const auto locs = where_of(e.id);
    bool has_test = false, has_code = false;
    for (const auto& l : locs) {
      has_test |= l.role == "test";
      has_code |= l.role == "claim" || l.role == "op";
      const fs::path f = fs::path(RECALL_SOURCE_DIR) / l.file;
      ASSERT_TRUE(fs::exists(f)) << e.id << ": " << l.role << " location " << l.str() << " does not exist";
      std::ifstream in(f);
      std::string line;
      for (int n = 0; n < l.line && std::getline(in, line); ++n) {
      }
      ASSERT_TRUE(in) << e.id << ": " << l.str() << " is past the end of the file";
      if (l.role == "ref" || (l.role == "test" && l.what.empty()) || (l.role == "kernel" && l.what.empty()))
        EXPECT_NE(line.find(e.id), std::string::npos) << e.id << ": scanned mention " << l.str() << " does not cite it: " << line;
    }
    EXPECT_TRUE(has_test) << e.id << " is tested but has no test location: " << where_column(locs);
    EXPECT_TRUE(has_code) << e.id << " is tested but has neither a claim check nor an op registration: " << where_column(locs);
  }
  EXPECT_GT(tested, 100);
}

TEST(WhereColumn, ListHasFiveColumnsAndClaimsPointAtTheirPaperFolder) {
  std::ostringstream os;
  print_list(os, "tsv");
  std::istringstream in(os.str());
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "id\tkind\tstatus\tnote\twhere");
  int rows = 0;
  while (std::getline(in, line)) {
    ++rows;
    EXPECT_EQ(std::count(line.begin(), line.end(), '\t'), 4) << line;
  }
  EXPECT_EQ(rows, static_cast<int>(spec_catalog().size()));
  // claim checks live in proofs_numeric/<paper>/<section>.cpp, the paper folder named after the ID's seed
  for (const auto& l : where_of("A000-DELTAFORMER-U"))
    if (l.role == "claim") EXPECT_EQ(l.file.rfind("proofs_numeric/a000_", 0), 0u) << l.str();
}

}  // namespace
}  // namespace recall
