#include "recall/tools/app.hpp"

#include "recall/properties/ops.hpp"

#include <map>
#include <ostream>
#include <set>
#include <sstream>

namespace recall {

extern const char* const kSpecIdsTsv;

std::vector<std::string> parse_spec_ids(const std::string& tsv) {
  std::vector<std::string> ids;
  std::istringstream in(tsv);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    ids.push_back(line.substr(0, line.find('\t')));
  }
  return ids;
}

namespace {
// Statements no computation can decide (spec: literature remarks, circuit classes).
const std::map<std::string, std::string>& not_numeric() {
  static const std::map<std::string, std::string> m = {
      {"A000-CIRCUIT", "circuit-complexity class hierarchy (TC0 vs NC1): a statement about classes of circuits, not a computation"},
      {"A000-LIT-OBS", "observations backed by the cited literature only; no formula or data to evaluate"},
      {"A000-THM1-EXPRESS", "circuit-class statement (DeltaFormer beyond TC0, reaching NC1): complexity-theoretic, not decidable by "
                            "computation; the supporting construction is checked under A000-THM1-CONSTRUCTION (n = 5, S5 words)"},
  };
  return m;
}
std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> f;
  std::size_t a = 0;
  for (;;) {
    auto b = line.find('\t', a);
    f.push_back(line.substr(a, b == std::string::npos ? std::string::npos : b - a));
    if (b == std::string::npos) break;
    a = b + 1;
  }
  return f;
}
}  // namespace

std::vector<SpecEntry> spec_catalog() {
  register_builtin_claims();
  std::set<std::string> served_by_ops;
  for (const auto& o : ops())
    for (const auto& id : o.spec_ids) served_by_ops.insert(id);
  std::vector<SpecEntry> v;
  std::istringstream in(kSpecIdsTsv);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto f = split_tabs(line);
    SpecEntry e;
    e.id = f[0];
    e.kind = f.size() > 1 ? f[1] : "";
    e.where = f.size() > 2 ? f[2] : "";
    e.title = f.size() > 3 ? f[3] : "";
    if (const Claim* c = ledger().find(e.id)) {
      e.status = "tested";
      e.note = std::string("ledger check (") + c->check_class + ")";
      if (served_by_ops.count(e.id)) e.note += " + registry op agreement";
    } else if (served_by_ops.count(e.id)) {
      e.status = "tested";
      e.note = "registry op agreement";
    } else if (auto it = not_numeric().find(e.id); it != not_numeric().end()) {
      e.status = "not-numeric";
      e.note = it->second;
    } else {
      e.status = "todo";
    }
    v.push_back(std::move(e));
  }
  return v;
}

void print_list_tsv(std::ostream& os) {
  os << "id\tkind\tstatus\tnote\n";
  for (const auto& e : spec_catalog()) os << e.id << '\t' << e.kind << '\t' << e.status << '\t' << e.note << '\n';
}

}  // namespace recall
