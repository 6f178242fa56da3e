// "Where is ID X?" (recall list's `where` column, recall check ID --where): the file:line of an ID's
// reference, op registration, kernels, claim check and tests, computed from the registrations
// (OpSpec::file/line, Implementation::file/line, Claim::file/line record their call sites) and from
// a build-time scan of the sources for ID mentions and test definitions (tools/scan/scan_ids.cpp).
#pragma once

#include <string>
#include <vector>

namespace recall {

struct SourceMention {
  const char* id;
  const char* category;  // "ref" (reference/), "kernel" (optimized/, gpu/), "test" (test suites)
  const char* file;      // relative to the repository
  int line;
};
struct TestDefinition {
  const char* name;  // Suite.Name as written in TEST/TEST_P/TEST_F
  const char* file;
  int line;
};
// generated at build time (tools/scan/scan_ids.cpp)
const std::vector<SourceMention>& source_mentions();
const std::vector<TestDefinition>& test_definitions();

struct Location {
  std::string role;  // ref, op, kernel, claim, test
  std::string file;
  int line = 0;
  std::string what;  // e.g. the kernel's name, the test's name
  std::string str() const { return file + ":" + std::to_string(line); }
};
// Every location of one ID, in the order ref, op, kernel, claim, test (several kernels and tests
// possible; the first mention per file for scanned ones).
std::vector<Location> where_of(const std::string& id);
// The compact form of the `where` column: role=file:line entries separated by spaces, one per role
// (the first of each role; "+N" when there are N more).
std::string where_column(const std::vector<Location>& locs);

}  // namespace recall
