// The agreement runner: every registered implementation against the oracle under the budget.
#pragma once

#include "recall/properties/budget.hpp"
#include "recall/properties/registry.hpp"

#include <string>
#include <vector>

namespace recall {

struct CaseOutcome {
  CaseKnobs knobs;
  std::string not_judged;  // the op's judged_domain reason when the case is outside it (then no judgement)
  Judgement judgement;
  double oracle_agree_digits = 0;
  unsigned oracle_digits = 0;
};

// Run one implementation on one case: generate, validate, oracle, baseline, kernel, judge.
CaseOutcome run_case(const Implementation& impl, const CaseKnobs& knobs, const BudgetParams& p = {});

struct AgreementRow {
  std::string op, impl, device, precision;
  int cases = 0, failures = 0;
  double max_err_u = 0;            // worst kernel error over cases (units of u)
  double baseline_err_u = 0;       // baseline error on that worst case
  double budget_u = 0;             // budget on that worst case
  double kappa = 0;                // relative sensitivity of the decisive row on that case
  double kappa_solve = 0;          // condition estimate of the op's linear system on that case (0: none)
  double min_margin = 0;           // smallest budget - err over cases
  double min_oracle_agree_digits = 0;
  double token_rel_err_u = 0;      // on that case: worst per-token relative error (units of u)
  double rel_rmse = 0;             // on that case: relative RMSE of the decisive output
  // Cases whose budget exceeds weak_budget_rel(precision) of the output's scale (1%; 5% for
  // bf16/f16): such a case cannot tell a correct kernel from one that much wrong. Reported, and
  // bounded by the suite; cases where an all-zero output would pass are counted apart.
  int weak_cases = 0;
  int nondiscriminating_cases = 0;
  // 16-bit rows: cases skipped because their inputs or outputs overflow the storage format
  // (outside_storage_range), with the first one's reason
  int out_of_range_cases = 0;
  std::string out_of_range_example;
  double max_budget_rel = 0;       // largest budget / scale over cases
  std::string weakest_case;        // the case with that budget
  std::string worst_case, worst_index;
  bool pass = false;
};

std::vector<AgreementRow> run_agreement(bool quick, const std::string& op_filter = "", const BudgetParams& p = {});

}  // namespace recall
