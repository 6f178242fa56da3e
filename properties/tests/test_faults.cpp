// The fault catalogue (recall/fault.hpp, issue 15): every entry names a guard that exists in the file
// it names, names are unique, and a production build never injects whatever RECALL_FAULT says.
// ci/mutate builds with -DRECALL_FAULT_INJECTION=ON and runs the suites once per fault.
#include "recall/fault.hpp"
#include "recall/tools/app.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace recall {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(Faults, CatalogueNamesAGuardInTheFileItNames) {
  const fault::Info* c = fault::catalogue();
  std::set<std::string> names;
  int guards = 0;
  for (int i = 0; i < fault::count; ++i) {
    EXPECT_EQ(int(c[i].id), i) << c[i].name;
    EXPECT_TRUE(names.insert(c[i].name).second) << "duplicate fault name " << c[i].name;
    if (i == fault::none) continue;
    const std::string text = slurp(std::string(RECALL_SOURCE_DIR) + "/" + c[i].where);
    ASSERT_FALSE(text.empty()) << c[i].name << ": cannot read " << c[i].where;
    EXPECT_NE(text.find(std::string("RECALL_FAULT_ON(") + c[i].name + ")"), std::string::npos)
        << c[i].name << ": no guard RECALL_FAULT_ON(" << c[i].name << ") in " << c[i].where;
    ++guards;
  }
  EXPECT_GE(guards, 15);  // issue 15: at least fifteen bug classes
}

TEST(Faults, ProductionBuildsNeverInject) {
  if (fault::injection_compiled()) GTEST_SKIP() << "this is a fault-injection build (ci/mutate)";
  EXPECT_EQ(fault::active(), fault::none);
  EXPECT_FALSE(RECALL_FAULT_ON(la_tail_dropped));
}

// `recall report --mutation FILE` reads ci/mutate's table; a missing or malformed file is refused,
// naming it, before the (minutes-long) campaign starts.
TEST(Faults, ReportRefusesAMissingOrMalformedMutationTable) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "recall_test_faults";
  fs::create_directories(dir);
  const fs::path bad = dir / "mutation.tsv";
  std::ofstream(bad) << "fault\tstage\tcaught_by\tseconds\nla_tail_dropped\tA\n";
  CheckConfig cfg;
  std::ostringstream os, err;
  for (const fs::path& p : {bad, dir / "absent.tsv"}) {
    try {
      cmd_report((dir / "out").string(), cfg, os, err, p.string());
      ADD_FAILURE() << "accepted " << p;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(p.filename().string()), std::string::npos) << e.what();
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace recall
