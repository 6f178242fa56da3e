#include "recall/tools/app.hpp"
#include "recall/tools/parallel.hpp"
#include "recall/tools/progress.hpp"
#include "recall/tools/table.hpp"
#include "recall/fault.hpp"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <optional>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>
#include <cstdlib>
#include <set>

namespace recall {

// Results cross the worker-process boundary (tools/parallel.hpp) as CBOR: binary doubles, so
// every number (infinities and NaN included) comes back bit for bit.
NLOHMANN_JSON_SERIALIZE_ENUM(Verdict, {{Verdict::holds, "holds"}, {Verdict::violated, "violated"}, {Verdict::inconclusive, "inconclusive"}})
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(FigureSeries, name, x, y, style, marker, group)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ClaimFigure, id, title, caption, x_label, y_label, x_scale, y_scale, series)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Evidence, statistic, value, threshold, witness, instances, sizes, digits, seed, extra, figures)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ClaimResult, verdict, reason, evidence)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ClaimRun, result, ran, seconds)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(AgreementRow, op, impl, device, precision, cases, failures, max_err_u, baseline_err_u, budget_u, kappa,
                                   kappa_solve, min_margin, min_oracle_agree_digits, token_rel_err_u, rel_rmse, weak_cases,
                                   nondiscriminating_cases, out_of_range_cases, out_of_range_example, max_budget_rel, weakest_case,
                                   worst_case, worst_index, pass)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DiscriminationRow, op, precision, shape, kernel, should_pass, passed, ratio, err_u, token_rel_err_u,
                                   rel_rmse, budget_rel, row_err_u, row_budget_u, T, d, discriminating, weak, op_reports_condition, detail)

namespace {

template <class T> std::string pack(const T& x) {
  const std::vector<std::uint8_t> b = nlohmann::json::to_cbor(nlohmann::json(x));
  return std::string(b.begin(), b.end());
}
template <class T> T unpack(const std::string& s) { return nlohmann::json::from_cbor(s).get<T>(); }

using out::Show;
std::string g3(double x) { return out::g(x, 3); }

}  // namespace

// The report's tables (tools/table.hpp): built once, rendered as Markdown (report.md) and JSON
// (report.json) by the same renderers validate uses.
out::Table claims_table(const std::vector<std::pair<const Claim*, ClaimRun>>& claims) {
  out::Table t;
  t.title = "Claims ledger";
  t.columns = {{"id", "id"},
               {"title", "", Show::json_only},
               {"verdict", "verdict"},
               {"class", "class", Show::display_only},
               {"statistic", "statistic", Show::display_only},
               {"value", "value", Show::display_only},
               {"threshold", "threshold", Show::display_only},
               {"instances", "instances", Show::display_only},
               {"reason", "reason"},
               {"witness", "witness / worst instance", Show::display_only},
               {"ran", "", Show::json_only},
               {"internal", "", Show::json_only},
               {"evidence", "", Show::json_only}};
  for (const auto& [c, r] : claims) {
    const Evidence& e = r.result.evidence;
    nlohmann::json ev = {{"check_class", c->check_class},
                         {"statistic", e.statistic},
                         {"value", out::json_number(e.value)},
                         {"threshold", out::json_number(e.threshold)},
                         {"witness", e.witness},
                         {"instances", e.instances},
                         {"sizes", e.sizes},
                         {"digits", e.digits},
                         {"seed", e.seed},
                         {"runtime_s", r.seconds}};
    for (const auto& [k, v] : e.extra) ev["extra"][k] = v;
    out::Row row;
    row.cells = {out::str(c->id),        out::str(c->title),  out::str(verdict_name(r.result.verdict)),
                 out::str(c->check_class), out::str(e.statistic), out::num(e.value),
                 out::num(e.threshold),  out::integer(e.instances), out::str(r.result.reason),
                 out::str(e.witness),    out::flag(r.ran),    out::flag(c->internal),
                 out::shown_as(ev, "")};
    row.pass = r.ran;
    row.name = c->id;
    row.group = "claims";
    row.message = std::string(verdict_name(r.result.verdict)) + ": " + r.result.reason;
    t.rows.push_back(std::move(row));
  }
  return t;
}

nlohmann::json claim_json(const Claim& c, const ClaimRun& r) { return out::to_json(claims_table({{&c, r}}))[0]; }

out::Table agreement_table(const std::vector<AgreementRow>& rows) {
  out::Table t;
  t.title = "Agreement with the reference";
  t.columns = {{"op", "op"},
               {"implementation", "implementation"},
               {"device", "device"},
               {"precision", "precision"},
               {"cases", "cases"},
               {"failures", "", Show::json_only},
               {"max_err_u", "max err (u)"},
               {"token_rel_err_u", "token rel (u)"},
               {"rel_rmse", "rel RMSE"},
               {"baseline_err_u", "baseline err (u)"},
               {"budget_u", "budget (u)"},
               {"kappa", "kappa"},
               {"kappa_solve", "kappa_solve"},
               {"min_margin_u", "min margin (u)"},
               {"weak_cases", "weak"},
               {"nondiscriminating_cases", "no-disc"},
               {"max_budget_rel", "max budget (rel)"},
               {"min_oracle_agree_digits", "oracle digits"},
               {"result", "result", Show::display_only},
               {"worst", "worst case", Show::display_only},
               {"out_of_range_cases", "", Show::json_only},
               {"out_of_range_example", "", Show::json_only},
               {"weakest_case", "", Show::json_only},
               {"worst_case", "", Show::json_only},
               {"worst_index", "", Show::json_only},
               {"pass", "", Show::json_only}};
  for (const auto& r : rows) {
    out::Row row;
    row.cells = {out::str(r.op),
                 out::str(r.impl),
                 out::str(r.device),
                 out::str(r.precision),
                 out::integer(r.cases),
                 out::integer(r.failures),
                 out::num(r.max_err_u),
                 out::num(r.token_rel_err_u),
                 out::num(r.rel_rmse),
                 out::num(r.baseline_err_u),
                 out::num(r.budget_u),
                 out::num(r.kappa),
                 out::shown_as(out::json_number(r.kappa_solve), r.kappa_solve > 0 ? g3(r.kappa_solve) : std::string("-")),
                 out::num(r.min_margin),
                 out::integer(r.weak_cases),
                 out::integer(r.nondiscriminating_cases),
                 out::num(r.max_budget_rel),
                 out::num(r.min_oracle_agree_digits),
                 out::str(r.pass ? "pass" : "FAIL (" + std::to_string(r.failures) + ")"),
                 out::str(r.worst_case + " @ " + r.worst_index),
                 out::integer(r.out_of_range_cases),
                 out::str(r.out_of_range_example),
                 out::str(r.weakest_case),
                 out::str(r.worst_case),
                 out::str(r.worst_index),
                 out::flag(r.pass)};
    row.pass = r.pass;
    row.name = r.impl + " " + r.precision;
    row.group = r.op;
    row.message = r.worst_case + " @ " + r.worst_index;
    t.rows.push_back(std::move(row));
  }
  return t;
}

out::Table discrimination_table(const std::vector<DiscriminationRow>& disc) {
  out::Table t;
  t.columns = {{"op", "op"},
               {"precision", "precision"},
               {"shape", "shape", Show::json_only},
               {"kernel", "implementation"},
               {"wrong_kernel", "wrong kernel", Show::display_only},
               {"expected", "expected", Show::json_only},
               {"accepted", "", Show::json_only},
               {"as_expected", "", Show::json_only},
               {"exempt_weak", "", Show::json_only},
               {"max_err_u", "max err (u)"},
               {"token_rel_err_u", "token rel (u)"},
               {"rel_rmse", "rel RMSE"},
               {"row_ratio", "err / budget (worst row)"},
               {"budget_rel", "budget/scale"},
               {"result", "result", Show::display_only},
               {"rejection", "result", Show::display_only},
               {"discriminating", "", Show::json_only},
               {"detail", "", Show::json_only}};
  for (const auto& d : disc) {
    out::Row row;
    row.cells = {out::str(d.op),
                 out::str(d.precision),
                 out::str(d.shape),
                 out::str(d.kernel),
                 out::str(d.kernel.rfind("mutant:", 0) == 0 ? d.kernel.substr(7) : d.kernel),
                 out::str(d.should_pass ? "accept" : "reject"),
                 out::flag(d.passed),
                 out::flag(d.as_expected()),
                 out::flag(d.exempt()),
                 out::num(d.err_u),
                 out::num(d.token_rel_err_u),
                 out::num(d.rel_rmse),
                 out::num(d.ratio),
                 out::num(d.budget_rel),
                 out::str(std::string(d.passed ? "pass" : "FAIL") + (d.discriminating ? "" : " (not discriminating)")),
                 out::str(d.exempt() ? "not discriminated (flagged weak, ill-conditioned)" : d.passed ? "ACCEPTED (defect)" : "rejected"),
                 out::flag(d.discriminating),
                 out::str(d.detail)};
    row.pass = d.as_expected();
    row.name = d.kernel + " " + d.precision + " " + d.shape;
    row.group = d.op;
    row.message = d.detail;
    t.rows.push_back(std::move(row));
  }
  return t;
}

int cmd_check(const std::vector<std::string>& ids, bool json, const CheckConfig& cfg, std::ostream& os, std::ostream& err) {
  register_builtin_claims();
  std::vector<const Claim*> todo;
  if (ids.size() == 1 && ids[0] == "all")  // the whole ledger, in registration order
    for (const Claim& c : ledger().all()) todo.push_back(&c);
  for (const auto& id : todo.empty() ? ids : std::vector<std::string>{}) {
    const Claim* c = ledger().find(id);
    if (!c) {
      err << "recall check: no claim check is registered for '" << id << "' (see `recall list`)\n";
      return 2;
    }
    todo.push_back(c);
  }
  // several checks, or the full campaign: worker processes and a progress bar (stderr)
  const bool long_work = !cfg.quick || todo.size() > 4;
  std::optional<Progress> bar;
  if (long_work) bar.emplace("recall check", static_cast<double>(todo.size()), err, is_terminal(2));
  const auto packed = run_tasks(
      todo.size(), [&](std::size_t i) { return pack(run_claim(*todo[i], cfg)); }, long_work ? default_jobs() : 1,
      [&](std::size_t i) {
        if (bar) bar->done(todo[i]->id, 1.0);
      });
  if (bar) bar->finish();
  int rc = 0;
  for (std::size_t k = 0; k < todo.size(); ++k) {
    const Claim* c = todo[k];
    const ClaimRun r = unpack<ClaimRun>(packed[k]);
    if (!r.ran) rc = 3;
    if (json) {
      os << claim_json(*c, r).dump() << '\n';
    } else {
      const Evidence& e = r.result.evidence;
      os << c->id << ": " << verdict_name(r.result.verdict) << " — " << r.result.reason << '\n'
         << "  class " << c->check_class << "; " << e.statistic << " = " << g3(e.value) << " (threshold " << g3(e.threshold)
         << "); " << e.instances << " instances; " << e.sizes << "; digits " << e.digits << "; seed " << e.seed << "; "
         << g3(r.seconds) << " s\n";
      if (!e.witness.empty()) os << "  witness: " << e.witness << '\n';
      for (const auto& [k2, v] : e.extra) os << "  " << k2 << ": " << v << '\n';
    }
  }
  return rc;
}

namespace {

// a figure's number: null when not finite (tools/render_figures.py skips it)
nlohmann::json fig_num(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

struct Task {
  enum Kind { agreement_task, discrimination_task, claim_task } kind;
  std::string op;
  Precision precision = Precision::f32;
  DiscriminationShape shape;
  const Claim* claim = nullptr;
  double cost = 0;
  std::string label;
};

// The figures' data (report.json "figures"; drawn by tools/render_figures.py, never here):
// per op, the decisive row's error and budget of every correct kernel vs T; per paper, every
// claim's measured statistic beside its threshold.
nlohmann::json error_vs_T_figures(const std::vector<DiscriminationRow>& disc) {
  nlohmann::json figs = nlohmann::json::array();
  std::vector<std::string> op_order;
  for (const auto& r : disc)
    if (std::find(op_order.begin(), op_order.end(), r.op) == op_order.end()) op_order.push_back(r.op);
  for (const auto& op : op_order) {
    // (kernel precision) -> T -> (error, budget)
    std::map<std::string, std::map<int, std::pair<double, double>>> by;
    int d = 0;
    for (const auto& r : disc)
      if (r.op == op && r.should_pass) {
        by[r.kernel + " " + r.precision][r.T] = {r.row_err_u, r.row_budget_u};
        d = r.d;
      }
    if (by.empty()) continue;
    nlohmann::json series = nlohmann::json::array();
    for (const auto& [name, pts] : by) {
      nlohmann::json x = nlohmann::json::array(), e = nlohmann::json::array(), b = nlohmann::json::array();
      for (const auto& [T, eb] : pts) {
        x.push_back(T);
        e.push_back(fig_num(eb.first));
        b.push_back(fig_num(eb.second));
      }
      series.push_back({{"name", name + " error"}, {"x", x}, {"y", e}, {"style", "solid"}, {"marker", "o"}, {"group", name}});
      series.push_back({{"name", name + " budget"}, {"x", x}, {"y", b}, {"style", "dashed"}, {"marker", ""}, {"group", name}});
    }
    figs.push_back({{"id", "err-vs-T." + op},
                    {"group", "agreement"},
                    {"title", op + ": error and budget of the decisive row vs T (d = " + std::to_string(d) + ")"},
                    {"caption", "Every registered kernel (and tensor-core emulation) of " + op +
                                    " on the realistic inputs (unit keys, beta |k|^2 in [0,1], gates uniform, initial state) at "
                                    "each T: solid, the error of the row that decides the verdict (largest error / budget); "
                                    "dashed, that row's budget; both in units of the storage format's u of the row's scale. A "
                                    "kernel passes while its solid line stays under its dashed one."},
                    {"kind", "lines"},
                    {"x", {{"label", "T (tokens)"}, {"scale", "log"}}},
                    {"y", {{"label", "units of u of the row's scale"}, {"scale", "log"}}},
                    {"series", series}});
  }
  return figs;
}

std::string paper_of(const Claim& c) {
  // proofs_numeric/<paper>/<section>.cpp
  const std::string f = c.file;
  const auto a = f.find("proofs_numeric/");
  if (a == std::string::npos) return "other";
  const auto b = f.find('/', a + 15);
  return b == std::string::npos ? "other" : f.substr(a + 15, b - a - 15);
}

nlohmann::json claim_figures(const std::vector<std::pair<const Claim*, ClaimRun>>& claims) {
  std::map<std::string, nlohmann::json> rows;
  for (const auto& [c, r] : claims) {
    const Evidence& e = r.result.evidence;
    rows[paper_of(*c)].push_back({{"label", c->id},
                                  {"value", fig_num(e.value)},
                                  {"threshold", fig_num(e.threshold)},
                                  {"verdict", verdict_name(r.result.verdict)},
                                  {"statistic", e.statistic}});
  }
  nlohmann::json figs = nlohmann::json::array();
  // the curves the claims contribute (an experiment's error curves, a bound vs the actual value)
  for (const auto& [c, r] : claims)
    for (const ClaimFigure& f : r.result.evidence.figures) {
      nlohmann::json series = nlohmann::json::array();
      for (const FigureSeries& s : f.series) {
        nlohmann::json x = nlohmann::json::array(), y = nlohmann::json::array();
        for (double v : s.x) x.push_back(fig_num(v));
        for (double v : s.y) y.push_back(fig_num(v));
        series.push_back({{"name", s.name}, {"x", x}, {"y", y}, {"style", s.style}, {"marker", s.marker},
                          {"group", s.group.empty() ? s.name : s.group}});
      }
      figs.push_back({{"id", "claim." + c->id + "." + f.id},
                      {"group", "claims"},
                      {"title", c->id + ": " + f.title},
                      {"caption", f.caption + " (verdict: " + verdict_name(r.result.verdict) + ")"},
                      {"kind", "lines"},
                      {"x", {{"label", f.x_label}, {"scale", f.x_scale}}},
                      {"y", {{"label", f.y_label}, {"scale", f.y_scale}}},
                      {"series", series}});
    }
  for (auto& [paper, rs] : rows)
    figs.push_back({{"id", "claims." + paper},
                    {"group", "claims"},
                    {"title", paper + ": each claim's measured statistic and its threshold"},
                    {"caption", "One row per claim check of " + paper +
                                    ": the dot is the measured statistic (coloured by verdict), the bar its decision "
                                    "threshold; what the statistic is, and on which side of the threshold a claim holds, is "
                                    "in the ledger's 'statistic' and 'reason' columns."},
                    {"kind", "dots"},
                    {"x", {{"label", "statistic (symmetric log scale)"}, {"scale", "symlog"}}},
                    {"rows", rs}});
  return figs;
}

// Draws the figures into report.html with tools/render_figures.py (Debian's python3-matplotlib);
// returns what happened, in words. The report stays complete without it (placeholders say why).
std::string render_figures(const std::filesystem::path& json, const std::filesystem::path& html, std::ostream& os, std::ostream& err) {
  if (std::getenv("RECALL_NO_FIGURES")) return "figures not drawn: RECALL_NO_FIGURES is set";
  const std::filesystem::path script = std::filesystem::path(RECALL_SOURCE_DIR) / "tools" / "render_figures.py";
  if (!std::filesystem::exists(script)) return "figures not drawn: " + script.string() + " not found";
  auto quote = [](const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  };
  const std::string cmd = quote(RECALL_PYTHON) + " " + quote(script.string()) + " " + quote(json.string()) + " " + quote(html.string());
  os << std::flush;  // the script prints its own line after ours
  const int rc = std::system(cmd.c_str());
  if (rc != 0) {
    err << "recall report: " << cmd << " failed (status " << rc << "); report.html keeps the figure placeholders\n";
    return "figures not drawn: render_figures.py failed";
  }
  return "figures drawn by tools/render_figures.py";
}

}  // namespace

namespace {
// ci/mutate's mutation.tsv (header: fault, stage, caught_by, seconds) as a table with the catalogue's
// description of each fault; a row passes when the fault was caught. Throws naming the file and line
// on a malformed table.
out::Table mutation_table(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::invalid_argument("recall report --mutation: cannot read '" + path + "'");
  out::Table t;
  t.title = "Mutation testing (ci/mutate)";
  t.intro = "Each fault of the catalogue (optimized/include/recall/fault.hpp) injected alone into a fault-injection build; "
            "the first test that failed (stage A: the fault's own family of tests, B: the whole fast suite).";
  t.columns = {{"fault", "fault"}, {"what", "what"}, {"stage", "stage"}, {"caught_by", "first failing test"}, {"seconds", "s"}};
  std::string line;
  int ln = 0, caught = 0;
  while (std::getline(f, line)) {
    ++ln;
    if (ln == 1) {
      if (line.rfind("fault\t", 0) != 0) throw std::invalid_argument("recall report --mutation: '" + path + "' line 1 is not ci/mutate's header");
      continue;
    }
    if (line.empty()) continue;
    std::vector<std::string> c;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) c.push_back(cell);
    if (c.size() != 4) throw std::invalid_argument("recall report --mutation: '" + path + "' line " + std::to_string(ln) + ": expected 4 tab-separated fields");
    std::string what = "(not in this build's catalogue)";
    for (int i = 0; i < fault::count; ++i)
      if (c[0] == fault::catalogue()[i].name) what = fault::catalogue()[i].what;
    out::Row r;
    const bool hit = c[2] != "MISSED";
    caught += hit;
    r.cells = {out::str(c[0]), out::str(what), out::str(c[1]), out::str(c[2]), out::str(c[3])};
    r.pass = hit;
    r.name = c[0];
    r.group = "mutation";
    t.rows.push_back(r);
  }
  t.footer = "Mutation score: " + std::to_string(caught) + " / " + std::to_string(t.rows.size()) + ".";
  return t;
}
}  // namespace

// ---- sharded campaigns: one file per claim run, merged into one ledger ----
namespace fs = std::filesystem;
// CBOR keeps every double bit for bit (NaN and inf included), so a merged ledger equals an unsharded one.
void save_claim_run(const std::string& dir, const std::string& id, const ClaimRun& r) {
  fs::create_directories(dir);
  const std::string b = pack(nlohmann::json{{"id", id}, {"run", r}});
  std::ofstream f(fs::path(dir) / (id + ".claimrun.cbor"), std::ios::binary);
  f.write(b.data(), static_cast<std::streamsize>(b.size()));
  if (!f) throw std::runtime_error("cannot write claim run " + id + " into " + dir);
}

int cmd_merge(const std::vector<std::string>& dirs, const std::string& out_dir, std::ostream& os, std::ostream& err) {
  register_builtin_claims();
  std::map<std::string, std::pair<ClaimRun, std::string>> runs;  // id -> run, file
  for (const std::string& d : dirs) {
    if (!fs::is_directory(d)) {
      err << "recall report --merge: '" << d << "' is not a directory\n";
      return 2;
    }
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(d))
      if (e.path().string().size() > 15 && e.path().string().ends_with(".claimrun.cbor")) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      std::ifstream in(f, std::ios::binary);
      const std::string b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      nlohmann::json j;
      try {
        j = unpack<nlohmann::json>(b);
      } catch (const std::exception& e) {
        err << "recall report --merge: '" << f.string() << "' is not a claim run (" << e.what() << ")\n";
        return 2;
      }
      if (!j.contains("id") || !j.contains("run")) {
        err << "recall report --merge: '" << f.string() << "' lacks id or run\n";
        return 2;
      }
      const std::string id = j["id"];
      if (!ledger().find(id)) {
        err << "recall report --merge: '" << f.string() << "' holds claim '" << id << "', which this program does not register\n";
        return 2;
      }
      if (auto it = runs.find(id); it != runs.end()) {
        err << "recall report --merge: claim " << id << " appears twice: " << it->second.second << " and " << f.string() << "\n";
        return 2;
      }
      runs.emplace(id, std::make_pair(j["run"].get<ClaimRun>(), f.string()));
    }
  }
  std::vector<std::pair<const Claim*, ClaimRun>> claims;
  std::vector<std::string> missing;
  for (const Claim& c : ledger().all()) {  // ledger order, whatever the shards' order
    if (auto it = runs.find(c.id); it != runs.end()) claims.emplace_back(&c, it->second.first);
    else missing.push_back(c.id);
  }
  fs::create_directories(out_dir);
  const out::Table t = claims_table(claims);
  nlohmann::json j;
  j["merged_from"] = dirs;
  j["claims"] = out::to_json(t);
  j["figures"] = claim_figures(claims);
  j["not_in_shards"] = missing;
  std::ofstream(fs::path(out_dir) / "ledger.json") << j.dump(2) << '\n';
  std::ostringstream md;
  md << "# recall claims ledger (merged from " << dirs.size() << " shard director" << (dirs.size() == 1 ? "y" : "ies") << ")\n\n";
  out::render_markdown(t, md);
  if (!missing.empty()) md << "Not in any shard: " << missing.size() << " registered claims.\n";
  std::ofstream(fs::path(out_dir) / "ledger.md") << md.str();
  std::map<std::string, int> verdicts;
  for (const auto& [c, r] : claims) verdicts[verdict_name(r.result.verdict)]++;
  os << "recall report --merge: " << claims.size() << " claim runs from " << dirs.size() << " directories;";
  for (const auto& [v, n] : verdicts) os << ' ' << v << ' ' << n << ';';
  os << ' ' << missing.size() << " registered claims in no shard; wrote " << (fs::path(out_dir) / "ledger.md").string() << " and ledger.json\n";
  return 0;
}

int cmd_report(const std::string& out_dir, const CheckConfig& cfg, std::ostream& os, std::ostream& err, const std::string& mutation_tsv) {
  namespace fs = std::filesystem;
  std::optional<out::Table> mutation;
  if (!mutation_tsv.empty()) mutation = mutation_table(mutation_tsv);  // a bad file fails before the campaign
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) {
    err << "recall report: cannot create output directory '" << out_dir << "': " << ec.message() << '\n';
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  register_builtin_implementations();
  register_builtin_claims();
  // The realistic shape: every op at T = 1000, d = 64 (the tables), and T = 64, 256 (and 4096 in
  // the full campaign) for the error-vs-T figures; the registered kernels (accepted) and the wrong
  // kernels of the discrimination suite (rejected), one oracle per (op, precision, T).
  // quick: f32 and bf16 (the precisions kernels run in); full: all four, T = 4096 for f32 and bf16.
  constexpr int realistic_T = 1000;
  // quick: an (op, precision, T) row whose oracle costs more than this many seconds (discrimination_cost:
  // the least-squares ops' O(T d^3) multiprecision solves at T = 1000: ~40 s each per precision, measured) is left to the full campaign and named
  // in the realistic table's introduction, so the default suite's report stays within minutes.
  constexpr double kQuickMaxTaskSeconds = 20.0;
  auto shape_at = [](int T) { return DiscriminationShape{1, 1, T, 64, 64, GateKind::uniform, true, 21}; };
  const DiscriminationShape realistic = shape_at(realistic_T);
  // the lengths of the error-vs-T figures (4096: the full campaign, f32 and bf16 only)
  std::vector<int> Ts = {64, 256, realistic_T};
  if (!cfg.quick) Ts.push_back(4096);
  std::string Ts_text;
  for (int T : Ts) Ts_text += (Ts_text.empty() ? "" : ", ") + std::to_string(T);
  std::vector<Task> tasks;
  for (const OpSpec& o : ops()) {
    if (registry().for_op(o.name).empty()) continue;
    tasks.push_back({Task::agreement_task, o.name, Precision::f32, {}, nullptr, cfg.quick ? 0.5 : 8.0, "agreement " + o.name});
    for (Precision p : {Precision::f64, Precision::f32, Precision::bf16, Precision::f16}) {
      const bool kernel_precision = p == Precision::f32 || p == Precision::bf16;
      if (cfg.quick && !kernel_precision) continue;
      for (int T : Ts)
        if ((T <= realistic_T || kernel_precision) && (o.discrimination_max_T == 0 || T <= o.discrimination_max_T) &&
            !(cfg.quick && discrimination_cost(o.name, T, 64) > kQuickMaxTaskSeconds))
          tasks.push_back({Task::discrimination_task, o.name, p, shape_at(T), nullptr, discrimination_cost(o.name, T, 64),
                           o.name + " " + precision_name(p) + " T=" + std::to_string(T)});
    }
  }
  for (const Claim& c : ledger().all()) tasks.push_back({Task::claim_task, "", Precision::f32, {}, &c, cfg.quick ? 0.06 : 1.0, c.id});
  // longest first: with dynamic hand-out, the pool finishes close to together
  std::vector<std::size_t> order(tasks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return tasks[a].cost > tasks[b].cost; });
  double total = 0;
  for (const auto& t : tasks) total += t.cost;
  const unsigned jobs = default_jobs();
  os << "recall report: " << (cfg.quick ? "quick" : "full") << " campaign, " << tasks.size() << " tasks on " << jobs
     << " worker process" << (jobs == 1 ? "" : "es") << " (RECALL_JOBS)\n"
     << std::flush;
  std::vector<std::string> packed;
  {
    Progress bar("recall report", total, err, is_terminal(2));
    std::vector<std::string> got = run_tasks(
        order.size(),
        [&](std::size_t k) -> std::string {
          const Task& t = tasks[order[k]];
          switch (t.kind) {
            case Task::agreement_task: return pack(run_agreement(cfg.quick, t.op));
            case Task::discrimination_task: return pack(run_discrimination({t.shape}, {t.op}, {t.precision}));
            case Task::claim_task: return pack(run_claim(*t.claim, cfg));
          }
          return {};
        },
        jobs, [&](std::size_t k) { bar.done(tasks[order[k]].label, tasks[order[k]].cost); });
    packed.resize(tasks.size());
    for (std::size_t k = 0; k < order.size(); ++k) packed[order[k]] = std::move(got[k]);
  }
  std::vector<AgreementRow> rows;
  std::vector<DiscriminationRow> disc;
  std::vector<std::pair<const Claim*, ClaimRun>> claims;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const Task& t = tasks[i];
    if (t.kind == Task::agreement_task)
      for (auto& r : unpack<std::vector<AgreementRow>>(packed[i])) rows.push_back(std::move(r));
    else if (t.kind == Task::discrimination_task)
      for (auto& r : unpack<std::vector<DiscriminationRow>>(packed[i])) disc.push_back(std::move(r));
    else
      claims.emplace_back(t.claim, unpack<ClaimRun>(packed[i]));
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  nlohmann::json j;
  j["config"] = {{"seed", cfg.seed}, {"quick", cfg.quick}, {"digits", cfg.digits}, {"runtime_s", secs}, {"jobs", jobs}};
  j["budget"] = "per row of every output: max|e| <= 2 max|e_baseline| + u_s max|y*| + 6 sens [+ n u_a solve] + 4 u_a max|y*_output| [+ underflow]; "
                "baseline: the reference in the accumulation precision, outputs rounded to the storage format; sens: the change of "
                "the row when every input is perturbed by u_s (relative, random signs, 3 draws, re-evaluated in double); "
                "max_err_u in units of u_s of max|y*|; weak_cases: cases whose budget exceeds 1% (f32, f64) or 5% (bf16, f16) of the "
                "output's scale; nondiscriminating_cases: cases where an all-zero output would pass";
  const out::Table agreement = agreement_table(rows), discrimination = discrimination_table(disc), ledger_table = claims_table(claims);
  j["agreement"] = out::to_json(agreement);
  j["realistic_shape"] = realistic.str();
  j["discrimination"] = out::to_json(discrimination);
  j["claims"] = out::to_json(ledger_table);
  if (mutation) j["mutation"] = out::to_json(*mutation);
  std::map<std::string, int> status_counts;
  for (const auto& e : spec_catalog()) status_counts[e.status]++;
  j["spec_status"] = status_counts;
  nlohmann::json figures = error_vs_T_figures(disc);
  for (auto& f : claim_figures(claims)) figures.push_back(std::move(f));
  j["figures"] = figures;

  std::ofstream(fs::path(out_dir) / "report.json") << j.dump(2) << '\n';

  // ---- the tables, rendered once as Markdown (report.md) and once as HTML (report.html) ----
  out::Table agree_t = agreement;
  agree_t.intro =
      "Errors in units of the storage precision's unit roundoff u (f64, f32, bf16, f16; the 16-bit formats accumulate in "
      "f32), relative to the oracle's scale (max |y*| of the output). The budget is judged per row (a token's output, a row of "
      "the state): max|e| <= 2 x the same-precision baseline's (the reference in the accumulation precision, outputs rounded) "
      "+ u max|y*| of the row (output rounding) + 6 x the row's sensitivity (its change when every input is perturbed by u, "
      "random signs, 3 draws, re-evaluated in double) + 4 u_acc max|y*| + underflow. `budget (u)` is that of the decisive "
      "row, `kappa` its relative sensitivity, `token rel (u)` the worst per-token relative error, `rel RMSE` the relative "
      "RMSE ||e|| / ||y*||. `weak` counts the cases whose budget exceeds 1% (f32, f64) or 5% (bf16, f16) of the output's "
      "scale, `no-disc` those where an all-zero output would pass. The oracle is recomputed at doubled digits; `oracle "
      "digits` is the smallest agreement between the two.";
  int fails = 0;
  for (const auto& r : rows) fails += !r.pass;
  std::string no_gpu;
  gpu_available(&no_gpu);
  auto is_realistic = [&](const out::Row& r) { return discrimination.at(r, "shape").value == realistic.str(); };
  out::Table accepted = discrimination.select(
      [&](const out::Row& r) { return is_realistic(r) && discrimination.at(r, "expected").value == "accept"; },
      {"op", "precision", "kernel", "max_err_u", "token_rel_err_u", "rel_rmse", "row_ratio", "budget_rel", "result"});
  accepted.title = "Agreement at a realistic shape (" + realistic.str() + ")";
  accepted.intro = "Every registered kernel of every op and storage precision on one input set (unit keys, beta |k|^2 in [0,1]); "
                   "`budget/scale` is the largest row budget as a fraction of the output's scale. The same inputs at T = 64 and "
                   "256" + std::string(cfg.quick ? "" : " (and 4096 for f32 and bf16)") +
                   " give the error-and-budget-vs-T figures (report.html; data in report.json).";
  if (cfg.quick) {
    std::string skipped;
    for (const OpSpec& o : ops())
      if (!registry().for_op(o.name).empty() && (o.discrimination_max_T == 0 || o.discrimination_max_T >= realistic_T) &&
          discrimination_cost(o.name, realistic_T, 64) > kQuickMaxTaskSeconds)
        skipped += (skipped.empty() ? "" : ", ") + o.name;
    if (!skipped.empty())
      accepted.intro += " Quick campaign: " + skipped + " (multiprecision oracle above " + std::to_string(static_cast<int>(kQuickMaxTaskSeconds)) + " s" +
                        " per row at T = " + std::to_string(realistic_T) + ") are judged at T = 64 and 256 here and at T = " +
                        std::to_string(realistic_T) + " by `recall report --full`.";
  }
  for (const OpSpec& o : ops())
    if (o.discrimination_max_T > 0 && o.discrimination_max_T < realistic_T)
      accepted.intro += " " + o.name + " is judged at T <= " + std::to_string(o.discrimination_max_T) +
                        " only (its oracle costs O(T^2 d^2) multiprecision operations): its rows are in the figures, not here.";
  out::Table rejected = discrimination.select(
      [&](const out::Row& r) { return is_realistic(r) && discrimination.at(r, "expected").value == "reject"; },
      {"op", "precision", "wrong_kernel", "row_ratio", "max_err_u", "rejection"});
  rejected.title = "Rejection of wrong kernels (" + realistic.str() + ")";
  rejected.intro = "Deliberately wrong kernels built from a correct one (see `mutants()` in properties/discrimination.hpp); each must "
                   "fail the budget. `err / budget` > 1 is a rejection.";
  int disc_bad = 0, disc_exempt = 0;
  for (const auto& d : disc) {
    disc_bad += !d.as_expected();
    disc_exempt += d.exempt();
  }
  std::map<std::string, int> verdicts;
  int not_ran = 0;
  for (const auto& [c, r] : claims) {
    verdicts[verdict_name(r.result.verdict)]++;
    if (!r.ran) ++not_ran;
  }
  std::ostringstream summary;
  summary << fails << " of " << rows.size() << " implementation rows failed the budget. "
          << (no_gpu.empty() ? std::string() : "No GPU rows: " + no_gpu + ". ") << disc_bad << " of " << disc.size()
          << " discrimination verdicts (T = " << Ts_text
          << ") differ from the expected one; " << disc_exempt
          << " wrong kernels were not discriminated in cases the budget flags as weak (ill-conditioned u-solves). Claims: "
          << claims.size() << " checks;";
  for (const auto& [v, n] : verdicts) summary << ' ' << v << ' ' << n << ';';
  summary << " could not run " << not_ran << '.';
  std::ostringstream header;
  header << "Seed " << cfg.seed << ", " << (cfg.quick ? "quick" : "full") << " campaign, claim checks at " << cfg.digits << " digits, "
         << jobs << " worker process" << (jobs == 1 ? "" : "es") << "; " << g3(secs) << " s.";

  std::ostringstream md;
  md << "# recall verification report\n\n" << header.str() << "\n\n" << summary.str() << "\n\n";
  md << "Figures (error and budget vs T per op, each claim's statistic vs its threshold) are in report.html.\n\n";
  out::render_markdown(agree_t, md);
  out::render_markdown(accepted, md);
  out::render_markdown(rejected, md);
  out::render_markdown(ledger_table, md);
  if (mutation) out::render_markdown(*mutation, md);
  md << "## Spec coverage\n\n";
  for (const auto& [st, n] : status_counts) md << "- " << st << ": " << n << "\n";
  std::ofstream(fs::path(out_dir) / "report.md") << md.str();

  // report.html: the same tables; each figure a placeholder that tools/render_figures.py replaces
  // with the SVG it draws from report.json
  std::ostringstream h;
  auto figure = [&](const nlohmann::json& f) {
    const std::string id = f["id"];
    h << "<figure id=\"fig-" << out::xml_escape(id) << "\">\n<!--recall-figure:" << id << "-->\n<figcaption><b>"
      << out::xml_escape(f["title"].get<std::string>()) << ".</b> " << out::xml_escape(f["caption"].get<std::string>())
      << "</figcaption>\n</figure>\n";
  };
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>recall verification report</title>\n"
    << "<style>body{font-family:sans-serif;max-width:1200px;margin:auto;padding:1em}table{border-collapse:collapse;font-size:12px}"
       "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}tr.fail{background:#fdd}figure{margin:1.5em 0}"
       "figcaption{font-size:13px;max-width:900px}svg{max-width:100%;height:auto}code{background:#f4f4f4}</style>\n</head>\n<body>\n";
  h << "<h1>recall verification report</h1>\n<p>" << out::xml_escape(header.str()) << "</p>\n<p>" << out::xml_escape(summary.str())
    << "</p>\n<nav><h2>Figures</h2>\n<ul>\n";
  for (const auto& f : figures)
    h << "<li><a href=\"#fig-" << out::xml_escape(f["id"].get<std::string>()) << "\">" << out::xml_escape(f["title"].get<std::string>())
      << "</a></li>\n";
  h << "</ul>\n<p><a href=\"#agreement\">Agreement table</a> · <a href=\"#realistic\">Realistic shape</a> · <a "
       "href=\"#rejection\">Wrong kernels</a> · <a href=\"#claims\">Claims ledger</a></p>\n</nav>\n";
  out::render_html(agree_t, h, 2, "agreement");
  out::render_html(accepted, h, 2, "realistic");
  h << "<h3>Error and budget vs T</h3>\n";
  for (const auto& f : figures)
    if (f["group"] == "agreement") figure(f);
  out::render_html(rejected, h, 2, "rejection");
  h << "<h2>Claims: statistic vs threshold</h2>\n";
  for (const auto& f : figures)
    if (f["group"] == "claims") figure(f);
  out::render_html(ledger_table, h, 2, "claims");
  if (mutation) out::render_html(*mutation, h, 2, "mutation");
  h << "<h2>Spec coverage</h2>\n<ul>\n";
  for (const auto& [st, n] : status_counts) h << "<li>" << out::xml_escape(st) << ": " << n << "</li>\n";
  h << "</ul>\n</body>\n</html>\n";
  const fs::path html = fs::path(out_dir) / "report.html";
  std::ofstream(html) << h.str();
  const std::string drawn = render_figures(fs::path(out_dir) / "report.json", html, os, err);

  os << "  " << rows.size() - fails << " of " << rows.size() << " implementation rows within budget\n";
  os << "  discrimination (T = " << Ts_text << "): " << disc.size() - disc_bad << " of "
     << disc.size() << " verdicts as expected (correct kernels accepted, wrong ones rejected)\n";
  for (const auto& r : rows)
    os << "    " << std::left << std::setw(30) << r.op << std::setw(20) << r.impl << std::setw(5) << r.precision << " max err "
       << std::setw(9) << g3(r.max_err_u) << " u  budget " << std::setw(9) << g3(r.budget_u) << " u  " << (r.pass ? "pass" : "FAIL") << '\n';
  os << "  claims: " << claims.size() << " checks;";
  for (const auto& [v, n] : verdicts) os << ' ' << v << ' ' << n << ';';
  os << " could not run " << not_ran << '\n';
  os << "  spec IDs:";
  for (const auto& [st, n] : status_counts) os << ' ' << st << ' ' << n << ';';
  os << "\n  wrote " << (fs::path(out_dir) / "report.md").string() << ", report.json and report.html (" << figures.size() << " figures; "
     << drawn << ") in " << Progress::duration(secs) << '\n';
  if (disc_bad > 0) return 1;
  return not_ran > 0 ? 3 : 0;
}

}  // namespace recall
