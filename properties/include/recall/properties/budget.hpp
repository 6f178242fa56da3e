// The error budget (DESIGN idea 3). Errors are measured in units of the working precision's unit
// roundoff u, relative to the oracle's scale (max |y*| of each output tensor):
//     err(y) = max_i |y_i - y*_i| / (u * max_i |y*_i|)
// A kernel passes when, for every output,
//     err(kernel) <= c * err(baseline) + floor + lambda * sqrt(m) * kappa,
// where the baseline is the same reference template run at the working precision (the naive
// same-precision implementation), c = 2 and floor = 4 (units of u) as in spec R-FAST, and the
// last term accounts for the output's conditioning: kappa = max_i A_i / max_i |y*_i| with A the
// op's magnitude (the computation on absolute values), m the accumulation length, lambda = 2
// (the probabilistic rounding-error bound |err_i| <= lambda sqrt(m) u A_i of Higham and Mary).
// Two correct kernels summing with cancellation differ by O(sqrt(m) u A), not by a fixed
// multiple of each other's error, so the c * err(baseline) rule alone fails at random there.
// The oracle is computed at high precision and recomputed at doubled digits: the digits on which
// the two agree must exceed -log10(u) + 10, else the precision is raised again.
#pragma once

#include "recall/properties/ops.hpp"

#include <string>
#include <vector>

namespace recall {

struct BudgetParams {
  double c = 2.0;
  double floor_u = 4.0;
  double lambda = 2.0;
};

struct ErrorStats {
  double max_err_u = 0;        // in units of u, relative to the oracle's scale
  std::string worst_output;    // tensor name
  std::string worst_index;     // 1-based multi-index
  double scale = 0;            // max |oracle| of that output
};

struct Oracle {
  MpTensorMap y;
  unsigned digits = 0;         // precision the oracle was computed at
  double agree_digits = 0;     // digits on which it agrees with the doubled-precision recomputation
};

// Oracle with precision escalation: compute at `digits` and 2*digits, raise until the two agree
// to at least -log10(u) + 10 digits (or throw after max_digits).
Oracle compute_oracle(const OpSpec& op, const TensorMap& in, double u, unsigned digits = 50, unsigned max_digits = 800);

// Per-output errors of y against the oracle; the returned stats are for the worst output.
// `per_output` receives each output's error (may be null).
ErrorStats measure_error(const MpTensorMap& oracle, const TensorMap& y, double u,
                         std::map<std::string, double>* per_output = nullptr);

struct Judgement {
  ErrorStats kernel, baseline;
  double budget_u = 0;   // budget of the worst output (c * err_b + floor)
  double margin = 0;     // min over outputs of budget - err_kernel (negative: fail)
  double kappa = 1;      // condition of the decisive output (max A / max |y*|)
  double kappa_solve = 0;  // condition estimate of the op's linear system (0: none)
  bool pass = false;
  std::string detail;    // the output that decided
};
// One output's verdict under the budget.
struct OutputJudgement {
  std::string name;
  double err_u = 0, baseline_err_u = 0, budget_u = 0, kappa = 1;
  std::string worst_index;  // 1-based, of the kernel's worst element
  double kappa_solve = 0;   // condition estimate of the op's linear system (0: none)
  double underflow_u = 0;   // gradual-underflow term of the budget (units of u; >= 1 only for outputs near the subnormal range)
  std::size_t nonfinite = 0;  // kernel elements that are NaN or +-Inf (the reference is finite): always a failure
  std::string first_nonfinite;  // 1-based index of the first one
  bool pass = false;
};
std::vector<OutputJudgement> judge_outputs(const MpTensorMap& oracle, const TensorMap& kernel_out, const TensorMap& baseline_out,
                                          double u, const TensorMap& magnitude, double m, const BudgetParams& p = {},
                                          double kappa_solve = 0, double n_solve = 0);

// magnitude: per-output A (may be empty: kappa = 1); m: accumulation length.
Judgement judge(const MpTensorMap& oracle, const TensorMap& kernel_out, const TensorMap& baseline_out, double u,
                const TensorMap& magnitude, double m, const BudgetParams& p = {}, double kappa_solve = 0, double n_solve = 0);

// Everything the budget needs from an op for one input: magnitude, accumulation length and,
// where the op declares one, the condition estimate of its linear system.
struct BudgetInputs {
  TensorMap magnitude;
  double m = 1;
  double kappa_solve = 0, n_solve = 0;
};
BudgetInputs budget_inputs(const OpSpec& op, const TensorMap& in);
Judgement judge(const MpTensorMap& oracle, const TensorMap& kernel_out, const TensorMap& baseline_out, double u,
                const BudgetInputs& b, const BudgetParams& p = {});

}  // namespace recall
