#include "recall/tools/app.hpp"
#include "recall/tools/table.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>

namespace recall {
namespace {

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
  for (const auto& id : ids) {
    const Claim* c = ledger().find(id);
    if (!c) {
      err << "recall check: no claim check is registered for '" << id << "' (see `recall list`)\n";
      return 2;
    }
    todo.push_back(c);
  }
  int rc = 0;
  for (const Claim* c : todo) {
    ClaimRun r = run_claim(*c, cfg);
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
      for (const auto& [k, v] : e.extra) os << "  " << k << ": " << v << '\n';
    }
  }
  return rc;
}

int cmd_report(const std::string& out_dir, const CheckConfig& cfg, std::ostream& os, std::ostream& err) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) {
    err << "recall report: cannot create output directory '" << out_dir << "': " << ec.message() << '\n';
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  os << "recall report: agreement of every registered implementation with the MP reference ("
     << (cfg.quick ? "quick" : "full") << " case list)\n";
  std::vector<AgreementRow> rows = run_agreement(cfg.quick);
  // Realistic shape: every op and precision at T = 1000, d = 64, the registered kernels (accepted)
  // and the wrong kernels of the discrimination suite (rejected), one oracle per (op, precision).
  const DiscriminationShape realistic{1, 1, 1000, 64, 64, GateKind::uniform, true, 21};
  os << "  realistic shape " << realistic.str() << " (discrimination suite):\n";
  // quick: f32 and bf16 (the precisions kernels run in); full: all four
  const std::vector<Precision> disc_prec = cfg.quick ? std::vector<Precision>{Precision::f32, Precision::bf16}
                                                     : std::vector<Precision>{Precision::f64, Precision::f32, Precision::bf16, Precision::f16};
  std::vector<DiscriminationRow> disc = run_discrimination({realistic}, {}, disc_prec,
                                                           [&os](const std::string& line) { os << "    " << line << '\n' << std::flush; });
  register_builtin_claims();
  std::vector<std::pair<const Claim*, ClaimRun>> claims;
  for (const Claim& c : ledger().all()) claims.emplace_back(&c, run_claim(c, cfg));
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  nlohmann::json j;
  j["config"] = {{"seed", cfg.seed}, {"quick", cfg.quick}, {"digits", cfg.digits}, {"runtime_s", secs}};
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
  std::map<std::string, int> status_counts;
  for (const auto& e : spec_catalog()) status_counts[e.status]++;
  j["spec_status"] = status_counts;

  std::ofstream(fs::path(out_dir) / "report.json") << j.dump(2) << '\n';

  std::ostringstream md;
  md << "# recall verification report\n\n";
  md << "Seed " << cfg.seed << ", " << (cfg.quick ? "quick" : "full") << " mode, claim checks at " << cfg.digits
     << " digits; " << g3(secs) << " s.\n\n";
  {
    out::Table t = agreement;
    t.intro =
        "Errors in units of the storage precision's unit roundoff u (f64, f32, bf16, f16; the 16-bit formats accumulate in "
        "f32), relative to the oracle's scale (max |y*| of the output). The budget is judged per row (a token's output, a row of "
        "the state): max|e| <= 2 x the same-precision baseline's (the reference in the accumulation precision, outputs rounded) "
        "+ u max|y*| of the row (output rounding) + 6 x the row's sensitivity (its change when every input is perturbed by u, "
        "random signs, 3 draws, re-evaluated in double) + 4 u_acc max|y*| + underflow. `budget (u)` is that of the decisive "
        "row, `kappa` its relative sensitivity, `token rel (u)` the worst per-token relative error, `rel RMSE` the relative "
        "RMSE ||e|| / ||y*||. `weak` counts the cases whose budget exceeds 1% (f32, f64) or 5% (bf16, f16) of the output's "
        "scale, `no-disc` those where an all-zero output would pass. The oracle is recomputed at doubled digits; `oracle "
        "digits` is the smallest agreement between the two.";
    out::render_markdown(t, md);
  }
  int fails = 0;
  for (const auto& r : rows) fails += !r.pass;
  md << fails << " of " << rows.size() << " implementation rows failed the budget.\n\n";
  {
    std::string why;
    if (!gpu_available(&why)) md << "No GPU rows: " << why << ".\n\n";
  }
  int disc_bad = 0;
  for (const auto& d : disc) disc_bad += !d.as_expected();
  {
    out::Table t = discrimination.select(
        [&](const out::Row& r) { return discrimination.at(r, "expected").value == "accept"; },
        {"op", "precision", "kernel", "max_err_u", "token_rel_err_u", "rel_rmse", "row_ratio", "budget_rel", "result"});
    t.title = "Agreement at a realistic shape (" + realistic.str() + ")";
    t.intro = "Every registered kernel of every op and storage precision on one input set (unit keys, beta |k|^2 in [0,1]); "
              "`budget/scale` is the largest row budget as a fraction of the output's scale.";
    out::render_markdown(t, md);
    out::Table w = discrimination.select([&](const out::Row& r) { return discrimination.at(r, "expected").value == "reject"; },
                                         {"op", "precision", "wrong_kernel", "row_ratio", "max_err_u", "rejection"});
    w.title = "Rejection of wrong kernels (" + realistic.str() + ")";
    w.intro = "Deliberately wrong kernels built from a correct one (see `mutants()` in properties/discrimination.hpp); each must "
              "fail the budget. `err / budget` > 1 is a rejection.";
    out::render_markdown(w, md);
  }
  int disc_exempt = 0;
  for (const auto& d : disc) disc_exempt += d.exempt();
  md << disc_bad << " of " << disc.size() << " realistic-shape verdicts differ from the expected one; " << disc_exempt
     << " wrong kernels were not discriminated in cases the budget flags as weak (ill-conditioned u-solves).\n\n";
  std::map<std::string, int> verdicts;
  int not_ran = 0;
  for (const auto& [c, r] : claims) {
    verdicts[verdict_name(r.result.verdict)]++;
    if (!r.ran) ++not_ran;
  }
  out::render_markdown(ledger_table, md);
  md << "## Spec coverage\n\n";
  for (const auto& [s, n] : status_counts) md << "- " << s << ": " << n << "\n";
  std::ofstream(fs::path(out_dir) / "report.md") << md.str();

  os << "  " << rows.size() - fails << " of " << rows.size() << " implementation rows within budget\n";
  os << "  realistic shape: " << disc.size() - disc_bad << " of " << disc.size() << " verdicts as expected (correct kernels accepted, wrong ones rejected)\n";
  for (const auto& r : rows)
    os << "    " << std::left << std::setw(30) << r.op << std::setw(20) << r.impl << std::setw(5) << r.precision << " max err "
       << std::setw(9) << g3(r.max_err_u) << " u  budget " << std::setw(9) << g3(r.budget_u) << " u  " << (r.pass ? "pass" : "FAIL") << '\n';
  os << "  claims: " << claims.size() << " checks;";
  for (const auto& [v, n] : verdicts) os << ' ' << v << ' ' << n << ';';
  os << " could not run " << not_ran << '\n';
  os << "  spec IDs:";
  for (const auto& [s, n] : status_counts) os << ' ' << s << ' ' << n << ';';
  os << "\n  wrote " << (fs::path(out_dir) / "report.md").string() << " and report.json\n";
  if (disc_bad > 0) return 1;
  return not_ran > 0 ? 3 : 0;
}

}  // namespace recall
