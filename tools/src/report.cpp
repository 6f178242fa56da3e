#include "recall/tools/app.hpp"

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

nlohmann::json num(double x) {
  if (std::isfinite(x)) return x;
  return std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf");
}

std::string g3(double x) {
  std::ostringstream s;
  s << std::setprecision(3) << x;
  return s.str();
}

std::string md_escape(std::string s) {
  std::string o;
  for (char c : s) {
    if (c == '|') o += "\\|";
    else if (c == '\n') o += ' ';
    else o += c;
  }
  return o;
}

}  // namespace

nlohmann::json claim_json(const Claim& c, const ClaimRun& r) {
  const Evidence& e = r.result.evidence;
  nlohmann::json ev = {{"check_class", c.check_class},
                       {"statistic", e.statistic},
                       {"value", num(e.value)},
                       {"threshold", num(e.threshold)},
                       {"witness", e.witness},
                       {"instances", e.instances},
                       {"sizes", e.sizes},
                       {"digits", e.digits},
                       {"seed", e.seed},
                       {"runtime_s", r.seconds}};
  for (const auto& [k, v] : e.extra) ev["extra"][k] = v;
  return {{"id", c.id},           {"title", c.title},     {"verdict", verdict_name(r.result.verdict)},
          {"reason", r.result.reason}, {"ran", r.ran},    {"internal", c.internal},
          {"evidence", ev}};
}

nlohmann::json agreement_json(const AgreementRow& r) {
  return {{"op", r.op},
          {"implementation", r.impl},
          {"device", r.device},
          {"precision", r.precision},
          {"cases", r.cases},
          {"failures", r.failures},
          {"max_err_u", num(r.max_err_u)},
          {"baseline_err_u", num(r.baseline_err_u)},
          {"budget_u", num(r.budget_u)},
          {"kappa", num(r.kappa)},
          {"kappa_solve", num(r.kappa_solve)},
          {"min_margin_u", num(r.min_margin)},
          {"min_oracle_agree_digits", num(r.min_oracle_agree_digits)},
          {"token_rel_err_u", num(r.token_rel_err_u)},
          {"rel_rmse", num(r.rel_rmse)},
          {"weak_cases", r.weak_cases},
          {"nondiscriminating_cases", r.nondiscriminating_cases},
          {"out_of_range_cases", r.out_of_range_cases},
          {"out_of_range_example", r.out_of_range_example},
          {"max_budget_rel", num(r.max_budget_rel)},
          {"weakest_case", r.weakest_case},
          {"worst_case", r.worst_case},
          {"worst_index", r.worst_index},
          {"pass", r.pass}};
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
  for (const auto& r : rows) j["agreement"].push_back(agreement_json(r));
  j["realistic_shape"] = realistic.str();
  for (const auto& d : disc)
    j["discrimination"].push_back({{"op", d.op}, {"precision", d.precision}, {"shape", d.shape}, {"kernel", d.kernel},
                                   {"expected", d.should_pass ? "accept" : "reject"}, {"accepted", d.passed}, {"as_expected", d.as_expected()},
                                   {"exempt_weak", d.exempt()},
                                   {"row_ratio", num(d.ratio)}, {"max_err_u", num(d.err_u)}, {"token_rel_err_u", num(d.token_rel_err_u)},
                                   {"rel_rmse", num(d.rel_rmse)}, {"budget_rel", num(d.budget_rel)},
                                   {"discriminating", d.discriminating}, {"detail", d.detail}});
  for (const auto& [c, r] : claims) j["claims"].push_back(claim_json(*c, r));
  std::map<std::string, int> status_counts;
  for (const auto& e : spec_catalog()) status_counts[e.status]++;
  j["spec_status"] = status_counts;

  std::ofstream(fs::path(out_dir) / "report.json") << j.dump(2) << '\n';

  std::ostringstream md;
  md << "# recall verification report\n\n";
  md << "Seed " << cfg.seed << ", " << (cfg.quick ? "quick" : "full") << " mode, claim checks at " << cfg.digits
     << " digits; " << g3(secs) << " s.\n\n";
  md << "## Agreement with the reference\n\n"
     << "Errors in units of the storage precision's unit roundoff u (f64, f32, bf16, f16; the 16-bit formats accumulate in "
        "f32), relative to the oracle's scale (max |y*| of the output). The budget is judged per row (a token's output, a row of "
        "the state): max|e| <= 2 x the same-precision baseline's (the reference in the accumulation precision, outputs rounded) "
        "+ u max|y*| of the row (output rounding) + 6 x the row's sensitivity (its change when every input is perturbed by u, "
        "random signs, 3 draws, re-evaluated in double) + 4 u_acc max|y*| + underflow. `budget (u)` is that of the decisive "
        "row, `kappa` its relative sensitivity, `token rel (u)` the worst per-token relative error, `rel RMSE` the relative "
        "RMSE ||e|| / ||y*||. `weak` counts the cases whose budget exceeds 1% (f32, f64) or 5% (bf16, f16) of the output's "
        "scale, `no-disc` those where an all-zero output would pass. The oracle is recomputed at doubled digits; `oracle "
        "digits` is the smallest agreement between the two.\n\n";
  md << "| op | implementation | device | precision | cases | max err (u) | token rel (u) | rel RMSE | baseline err (u) | budget (u) | kappa | kappa_solve | min margin (u) | weak | no-disc | max budget (rel) | oracle digits | result | worst case |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  int fails = 0;
  for (const auto& r : rows) {
    if (!r.pass) ++fails;
    md << "| " << r.op << " | " << r.impl << " | " << r.device << " | " << r.precision << " | " << r.cases << " | "
       << g3(r.max_err_u) << " | " << g3(r.token_rel_err_u) << " | " << g3(r.rel_rmse) << " | " << g3(r.baseline_err_u) << " | "
       << g3(r.budget_u) << " | " << g3(r.kappa) << " | " << (r.kappa_solve > 0 ? g3(r.kappa_solve) : std::string("-"))
       << " | " << g3(r.min_margin) << " | " << r.weak_cases << " | " << r.nondiscriminating_cases << " | " << g3(r.max_budget_rel) << " | "
       << g3(r.min_oracle_agree_digits) << " | " << (r.pass ? "pass" : "FAIL (" + std::to_string(r.failures) + ")") << " | "
       << md_escape(r.worst_case + " @ " + r.worst_index) << " |\n";
  }
  md << "\n" << fails << " of " << rows.size() << " implementation rows failed the budget.\n\n";
  {
    std::string why;
    if (!gpu_available(&why)) md << "No GPU rows: " << why << ".\n\n";
  }
  int disc_bad = 0;
  for (const auto& d : disc) disc_bad += !d.as_expected();
  md << "## Agreement at a realistic shape (" << realistic.str() << ")\n\n"
     << "Every registered kernel of every op and storage precision on one input set (unit keys, beta |k|^2 in [0,1]); "
        "`budget/scale` is the largest row budget as a fraction of the output's scale.\n\n"
     << "| op | precision | implementation | max err (u) | token rel (u) | rel RMSE | err / budget (worst row) | budget/scale | result |\n"
     << "|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& d : disc)
    if (d.should_pass)
      md << "| " << d.op << " | " << d.precision << " | " << d.kernel << " | " << g3(d.err_u) << " | " << g3(d.token_rel_err_u) << " | "
         << g3(d.rel_rmse) << " | " << g3(d.ratio) << " | " << g3(d.budget_rel) << " | " << (d.passed ? "pass" : "FAIL")
         << (d.discriminating ? "" : " (not discriminating)") << " |\n";
  md << "\n## Rejection of wrong kernels (" << realistic.str() << ")\n\n"
     << "Deliberately wrong kernels built from a correct one (see `mutants()` in properties/discrimination.hpp); each must "
        "fail the budget. `err / budget` > 1 is a rejection.\n\n| op | precision | wrong kernel | err / budget (worst row) | max err (u) | result |\n"
     << "|---|---|---|---|---|---|\n";
  for (const auto& d : disc)
    if (!d.should_pass)
      md << "| " << d.op << " | " << d.precision << " | " << d.kernel.substr(7) << " | " << g3(d.ratio) << " | " << g3(d.err_u) << " | "
         << (d.exempt() ? "not discriminated (flagged weak, ill-conditioned)" : d.passed ? "ACCEPTED (defect)" : "rejected") << " |\n";
  int disc_exempt = 0;
  for (const auto& d : disc) disc_exempt += d.exempt();
  md << "\n" << disc_bad << " of " << disc.size() << " realistic-shape verdicts differ from the expected one; " << disc_exempt
     << " wrong kernels were not discriminated in cases the budget flags as weak (ill-conditioned u-solves).\n\n";
  md << "## Claims ledger\n\n| id | verdict | class | statistic | value | threshold | instances | reason | witness / worst instance |\n"
     << "|---|---|---|---|---|---|---|---|---|\n";
  std::map<std::string, int> verdicts;
  int not_ran = 0;
  for (const auto& [c, r] : claims) {
    verdicts[verdict_name(r.result.verdict)]++;
    if (!r.ran) ++not_ran;
    const Evidence& e = r.result.evidence;
    md << "| " << c->id << " | " << verdict_name(r.result.verdict) << " | " << c->check_class << " | " << md_escape(e.statistic)
       << " | " << g3(e.value) << " | " << g3(e.threshold) << " | " << e.instances << " | " << md_escape(r.result.reason)
       << " | " << md_escape(e.witness) << " |\n";
  }
  md << "\n## Spec coverage\n\n";
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
