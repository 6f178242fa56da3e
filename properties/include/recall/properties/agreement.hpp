// The agreement runner: every registered implementation against the oracle under the budget.
#pragma once

#include "recall/properties/budget.hpp"
#include "recall/properties/registry.hpp"

#include <string>
#include <vector>

namespace recall {

struct CaseOutcome {
  CaseKnobs knobs;
  Judgement judgement;
  double oracle_agree_digits = 0;
  unsigned oracle_digits = 0;
};

// Run one implementation on one case: generate, validate, oracle, baseline, kernel, judge.
CaseOutcome run_case(const Implementation& impl, const CaseKnobs& knobs, const BudgetParams& p = {});

inline constexpr double weak_budget_rel = 1e-2;

struct AgreementRow {
  std::string op, impl, device, precision;
  int cases = 0, failures = 0;
  double max_err_u = 0;            // worst kernel error over cases (units of u)
  double baseline_err_u = 0;       // baseline error on that worst case
  double budget_u = 0;             // budget on that worst case
  double kappa = 1;                // condition of the decisive output on that case
  double kappa_solve = 0;          // condition estimate of the op's linear system on that case (0: none)
  double min_margin = 0;           // smallest budget - err over cases
  double min_oracle_agree_digits = 0;
  // Cases whose budget exceeds 1% relative error (budget_u * u > weak_budget_rel): such a case
  // cannot tell a correct kernel from one that is 1% wrong. Reported, and bounded by the suite.
  int weak_cases = 0;
  double max_budget_rel = 0;       // largest budget_u * u over cases
  std::string weakest_case;        // the case with that budget
  std::string worst_case, worst_index;
  bool pass = false;
};

std::vector<AgreementRow> run_agreement(bool quick, const std::string& op_filter = "", const BudgetParams& p = {});

}  // namespace recall
