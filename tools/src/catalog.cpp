#include "recall/tools/app.hpp"

#include "recall/properties/ops.hpp"
#include "recall/properties/registry.hpp"
#include "recall/tools/table.hpp"
#include "recall/tools/where.hpp"

#include <algorithm>
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
      {"A002-T1-QUAL", "priority claim ('the first parallelizable recurrent architecture ... with locally optimal memory') about the "
                       "literature, and Table 1's check marks, lost in the converted source: nothing to compute; the checkable part "
                       "('Muon approximates second-order information', 'locally optimal') is A002-ATLAS-LOCAL-OPT"},
      {"A004-SUBQUAD-NAMED", "names only (grouped-query, sparse, latent and linear attention on one slide): no formula or claim; the spec "
                             "asks for registry completeness only (linear attention is checked under A004-UPD-LA and the CX-LA items)"},
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

// The tests that run every registration: a claim is run by the ledger's parametrised test, an op's
// kernels by the agreement and discrimination suites. Looked up by name among the scanned test
// definitions, so a renamed or deleted test leaves the ID without a test location (test_catalog).
namespace {
const char* const kClaimTests[] = {"EveryClaim.RunsIsReproducibleAndInternalIdentitiesHold"};
const char* const kOpTests[] = {"AgreementGenerated.CasesWithinBudget", "DiscriminationFast.RejectsWrongAndAcceptsCorrectKernelsAtT256D32"};
void add_test(std::vector<Location>& v, const std::string& name) {
  for (const auto& t : test_definitions())
    if (name == t.name) {
      v.push_back({"test", t.file, t.line, t.name});
      return;
    }
}
}  // namespace

std::vector<Location> where_of(const std::string& id) {
  register_builtin_claims();
  register_builtin_implementations();
  std::vector<Location> refs, opl, kernels, claims, tests;
  auto scanned = [&](const char* cat, std::vector<Location>& into, const char* role) {
    for (const auto& m : source_mentions())
      if (id == m.id && std::string(m.category) == cat) into.push_back({role, m.file, m.line, ""});
  };
  scanned("ref", refs, "ref");
  bool op_served = false;
  for (const auto& o : ops())
    if (std::find(o.spec_ids.begin(), o.spec_ids.end(), id) != o.spec_ids.end()) {
      op_served = true;
      opl.push_back({"op", o.file, static_cast<int>(o.line), o.name});
      for (const Implementation* i : registry().for_op(o.name)) {
        bool dup = false;
        for (const auto& k : kernels) dup |= k.file == i->file && k.line == static_cast<int>(i->line);
        if (!dup) kernels.push_back({"kernel", i->file, static_cast<int>(i->line), i->name});
      }
    }
  scanned("kernel", kernels, "kernel");
  const Claim* c = ledger().find(id);
  if (c) {
    claims.push_back({"claim", c->file, static_cast<int>(c->line), c->title});
    for (const char* t : kClaimTests) add_test(tests, t);
  }
  if (op_served)
    for (const char* t : kOpTests) add_test(tests, t);
  scanned("test", tests, "test");
  std::vector<Location> all;
  for (auto* v : {&refs, &opl, &kernels, &claims, &tests}) all.insert(all.end(), v->begin(), v->end());
  return all;
}

std::string where_column(const std::vector<Location>& locs) {
  std::ostringstream s;
  for (const char* role : {"ref", "op", "kernel", "claim", "test"}) {
    int n = 0;
    const Location* first = nullptr;
    for (const auto& l : locs)
      if (l.role == role && n++ == 0) first = &l;
    if (!first) continue;
    if (s.tellp() > 0) s << ' ';
    s << role << '=' << first->str();
    if (n > 1) s << "(+" << n - 1 << ')';
  }
  return s.str();
}

out::Table list_table() {
  out::Table t;
  t.title = "Spec IDs";
  t.columns = {{"id", "id"}, {"kind", "kind"}, {"status", "status"}, {"note", "note"}, {"where", "where"}};
  for (const auto& e : spec_catalog()) {
    out::Row r;
    const auto locs = where_of(e.id);
    nlohmann::json w = nlohmann::json::array();
    for (const auto& l : locs) w.push_back({{"role", l.role}, {"file", l.file}, {"line", l.line}, {"name", l.what}});
    r.cells = {out::str(e.id), out::str(e.kind), out::str(e.status), out::str(e.note), out::shown_as(w, where_column(locs))};
    t.rows.push_back(std::move(r));
  }
  return t;
}

void print_list(std::ostream& os, const std::string& format) {
  const out::Table t = list_table();
  if (format == "json") os << out::to_json(t).dump(2) << '\n';
  else if (format == "md") out::render_markdown(t, os);
  else out::render_tsv(t, os);
}
void print_list_tsv(std::ostream& os) { print_list(os, "tsv"); }

void print_where(const std::string& id, std::ostream& os) {
  for (const auto& l : where_of(id)) os << id << '\t' << l.role << '\t' << l.str() << (l.what.empty() ? "" : "\t" + l.what) << '\n';
}

}  // namespace recall
