#include "recall/properties/agreement.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace recall {

CaseOutcome run_case(const Implementation& impl, const CaseKnobs& knobs, const BudgetParams& p) {
  const OpSpec& o = op(impl.op);
  TensorMap in = o.generate(knobs, impl.precision);
  o.validate(in);
  CaseOutcome c;
  c.knobs = knobs;
  if (o.judged_domain) {
    c.not_judged = o.judged_domain(in, impl.precision);
    if (!c.not_judged.empty()) {
      c.judgement.pass = true;
      c.judgement.discriminating = false;
      c.judgement.detail = "not judged: " + c.not_judged;
      return c;
    }
  }
  const Reference ref = make_reference(o, in, impl.precision, p);
  c.judgement = judge(ref, impl.run(in), p);
  c.oracle_agree_digits = ref.oracle.agree_digits;
  c.oracle_digits = ref.oracle.digits;
  return c;
}

std::vector<AgreementRow> run_agreement(bool quick, const std::string& op_filter, const BudgetParams& p) {
  register_builtin_implementations();
  std::vector<AgreementRow> rows;
  for (const OpSpec& o : ops()) {
    if (!op_filter.empty() && o.name != op_filter) continue;
    auto impls = registry().for_op(o.name);
    if (impls.empty()) continue;
    std::vector<AgreementRow> op_rows(impls.size());
    std::vector<bool> reported_fail(impls.size(), false);
    for (std::size_t i = 0; i < impls.size(); ++i) {
      op_rows[i].op = o.name;
      op_rows[i].impl = impls[i]->name;
      op_rows[i].device = impls[i]->device;
      op_rows[i].precision = precision_name(impls[i]->precision);
      op_rows[i].min_margin = std::numeric_limits<double>::infinity();
      op_rows[i].min_oracle_agree_digits = std::numeric_limits<double>::infinity();
    }
    for (const CaseKnobs& k : corner_cases(o.gated, quick)) {
      for (Precision prec : kAllPrecisions) {
        bool any = false;
        for (const auto* im : impls) any |= im->precision == prec;
        if (!any) continue;
        // one oracle, baseline and sensitivity per (case, precision), shared by every implementation
        TensorMap in = o.generate(k, prec);
        o.validate(in);
        if (o.judged_domain) {
          if (const std::string why = o.judged_domain(in, prec); !why.empty()) {
            // outside the inputs a kernel of this precision can be judged on (OpSpec::judged_domain): counted
            for (std::size_t i = 0; i < impls.size(); ++i)
              if (impls[i]->precision == prec) {
                ++op_rows[i].out_of_range_cases;
                if (op_rows[i].out_of_range_example.empty()) op_rows[i].out_of_range_example = describe(k) + ": not judged: " + why;
              }
            continue;
          }
        }
        const Reference ref = make_reference(o, in, prec, p);
        if (const std::string why = outside_storage_range(ref, in, prec); !why.empty()) {
          // not a case of this storage format (its values overflow the format): counted, not judged
          for (std::size_t i = 0; i < impls.size(); ++i)
            if (impls[i]->precision == prec) {
              ++op_rows[i].out_of_range_cases;
              if (op_rows[i].out_of_range_example.empty()) op_rows[i].out_of_range_example = describe(k) + ": " + why;
            }
          continue;
        }
        for (std::size_t i = 0; i < impls.size(); ++i) {
          if (impls[i]->precision != prec) continue;
          AgreementRow& r = op_rows[i];
          ++r.cases;
          Judgement j;
          try {
            j = judge(ref, impls[i]->run(in), p);
          } catch (const std::exception& e) {
            j.pass = false;
            j.margin = -std::numeric_limits<double>::infinity();
            j.detail = std::string("threw: ") + e.what();
          }
          if (!j.pass) ++r.failures;
          r.min_oracle_agree_digits = std::min(r.min_oracle_agree_digits, ref.oracle.agree_digits);
          // the reported case: the first failing one, else the one with the largest error
          const bool fail = !j.pass;
          if (r.cases == 1 || (fail && !reported_fail[i]) || (fail == reported_fail[i] && j.kernel.max_err_u > r.max_err_u)) {
            reported_fail[i] = fail;
            r.max_err_u = j.kernel.max_err_u;
            r.baseline_err_u = j.baseline.max_err_u;
            r.budget_u = j.budget_u;
            r.kappa = j.kappa;
            r.kappa_solve = j.kappa_solve;
            r.worst_case = describe(k) + " | " + j.detail;
            r.worst_index = j.kernel.worst_output + j.kernel.worst_index;
            r.token_rel_err_u = 0;
            r.rel_rmse = 0;
            for (const auto& oj : j.outputs) {
              r.token_rel_err_u = std::max(r.token_rel_err_u, oj.token_rel_err_u);
              r.rel_rmse = std::max(r.rel_rmse, oj.rel_rmse);
            }
          }
          r.min_margin = std::min(r.min_margin, j.margin);
          const double rel = j.budget_rel;
          if (rel > r.max_budget_rel) {
            r.max_budget_rel = rel;
            r.weakest_case = describe(k) + " | " + j.detail;
          }
          if (rel > weak_budget_rel(prec)) ++r.weak_cases;
          if (!j.discriminating) ++r.nondiscriminating_cases;
        }
      }
    }
    for (auto& r : op_rows) {
      r.pass = r.cases > 0 && r.failures == 0;
      rows.push_back(r);
    }
  }
  return rows;
}

}  // namespace recall
