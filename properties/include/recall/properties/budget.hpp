// The error budget (DESIGN idea 3), judged per row of every output.
//
// A kernel stores its inputs and outputs in a storage precision s (unit roundoff u_s: f64, f32,
// bf16, f16) and accumulates in a = accumulation(s) (f32 for the 16-bit formats). Inputs are exact
// in s. The oracle y* is the reference at high precision (raised until two precisions agree far
// below u_s). A row is a slice of an output along its last dimension (a token's output vector, a
// row of the final state). For row j (e, e_b: the kernel's and the baseline's error vectors there):
//
//   max_i |e_i|  <=  c * max_i |e_b,i|  +  u_s * max_i |y*_i|  +  lambda * sens_j  [+ solve]
//                    + floor * u_a * max|y*|  +  underflow
//
//  * baseline y_b: the same reference template run in the accumulation precision, its outputs
//    rounded to s (FlashAttention's rule: a kernel may be c times worse than the naive same-dtype
//    implementation). It carries the accumulation-order error of a plain sequential evaluation.
//  * u_s * max|y*_i|: the kernel's own rounding of its output to the storage format.
//  * sens_j: the storage-precision sensitivity of the exact computation, estimated by perturbed
//    re-evaluation (statistical condition estimation, Kenney & Laub; the Monte-Carlo arithmetic of
//    Parker, CADNA and Verificarlo applied to the operands): every input element is multiplied by
//    (1 + delta xi), xi = +-1 at random, the reference is re-evaluated in double, and the largest
//    change of the row over `samples` draws is scaled by u_s / delta (delta = max(u_s, 2^-30), so
//    that double's own rounding stays far below the response). A kernel that rounds its operands
//    to s (tensor cores) or sums in another order is backward stable at the level u_s of its
//    operands; its forward error is then a small multiple of this response, whatever the
//    conditioning: an expansive transition, nearly parallel keys, a large logit or an
//    ill-conditioned triangular system raise sens_j exactly as much as they amplify the kernel's
//    rounding errors. Nothing is computed from absolute values, so non-expansive recurrences get
//    no exponential growth along T.
//  * solve: for an op whose fast forms solve linear systems that the sequential reference never
//    forms (the delta rule's WY/UT chunk systems): n u_a times the first-order propagation of the
//    solves' componentwise forward-error bound |L^-1||L||D| to the row (OpSpec::solve_magnitude;
//    the deterministic gamma_n bound of forward substitution, Higham Thm 8.5, through the real
//    chunk matrices). kappa_solve (the Skeel condition of those systems) is reported beside it.
//  * floor: an absolute floor at the output's global scale in units of the accumulation precision
//    (rows that are exactly zero); underflow: gradual underflow of the accumulation format
//    (lambda m eta_a / 2, m the op's accumulation length; >= 1 u only for outputs near the
//    subnormal range).
//
// Judging each row against its own scale catches a wrong token whose scale is small; the max-norm
// per row keeps the estimate statistically stable (a row holds d_v or d_k elements). The result
// also reports per output the normwise error (units of u_s of max|y*|), the per-token relative
// error and the relative RMSE ||e||_2 / ||y*||_2, and whether the budget can discriminate at all
// (an all-zero output would pass every row: "not discriminating", with the dominant term as reason).
#pragma once

#include "recall/properties/ops.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace recall {

struct BudgetParams {
  double c = 2.0;          // multiple of the baseline's row error
  double floor_u = 4.0;    // absolute floor: floor_u * u_a * max|y*| of the output
  double lambda = 6.0;     // multiple of the sensitivity estimate (calibration: README)
  double rounding = 1.0;   // the kernel's own output rounding, in u_s of the row's scale
  int samples = 3;         // perturbed re-evaluations behind the sensitivity estimate (at least
                           // ceil(32 / narrowest row width), so that narrow rows get ~32 samples)
  std::uint64_t seed = 0x5eed;
};

// Relative budget above which a case counts as weak (it cannot tell a correct kernel from one
// that is that much wrong): 1% for f32/f64, 5% for the 16-bit formats, whose storage rounding alone
// is 0.4% (bf16) and whose tensor-core kernels are 1-4 u_s off.
inline double weak_budget_rel(Precision p) { return is_half(p) ? 5e-2 : 1e-2; }

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

// Evaluate f on every (b,h) slice of `in` in parallel (tensors whose two leading dimensions are
// q's [B,H] are split; the others, such as a scalar 'scale', are passed whole) and reassemble the
// [B,H,...] outputs. Threads: RECALL_THREADS, else the hardware's, at most B*H.
TensorMap per_slice(const TensorMap& in, const std::function<TensorMap(const TensorMap&)>& f);
MpTensorMap per_slice_mp(const TensorMap& in, const std::function<MpTensorMap(const TensorMap&)>& f);

// Oracle with precision escalation: compute at `digits` (0: -log10(u) + 14, at least 24) and at
// digits + max(10, digits/3); the result is the higher one once the two agree to at least
// -log10(u) + 10 digits, else both are redone at twice the higher (throws beyond max_digits).
// Heads are evaluated in parallel.
Oracle compute_oracle(const OpSpec& op, const TensorMap& in, double u, unsigned digits = 0, unsigned max_digits = 800);

// The baseline: op.baseline in the accumulation precision, outputs rounded to the storage format.
TensorMap compute_baseline(const OpSpec& op, const TensorMap& in, Precision p);

// Per-output errors of y against the oracle; the returned stats are for the worst output.
ErrorStats measure_error(const MpTensorMap& oracle, const TensorMap& y, double u,
                         std::map<std::string, double>* per_output = nullptr);

// Storage-precision sensitivity by perturbed re-evaluation (see the header comment): per output
// element, max over `samples` draws of |f(x (1 + delta xi)) - f(x)| * u / delta, f evaluated in
// double. Inputs named in `fixed` are not perturbed. With `perturbed` (an op's OpSpec::perturbed),
// each draw evaluates it on the perturbed inputs instead of f64, so that its intermediates are
// perturbed by the same delta.
// u_a: the accumulation precision's unit roundoff (the perturbed model's delta_a = delta u_a / u).
TensorMap sensitivity(const std::function<TensorMap(const TensorMap&)>& f64, const TensorMap& in, double u, int samples,
                      std::uint64_t seed, const std::vector<std::string>& fixed = {},
                      const std::function<TensorMap(const TensorMap&, double, double, std::uint64_t)>& perturbed = {},
                      double u_a = 0);

// Everything the budget needs from an op for one input set besides the oracle and the baseline.
struct BudgetInputs {
  Precision storage = Precision::f64;
  TensorMap sens;                       // per-element sensitivity (absolute, already at u_s)
  double m = 1;                         // accumulation length (underflow term)
  double kappa_solve = 0, n_solve = 0;  // condition of the op's linear system (0: none)
  // the propagated forward error of the fast forms' chunk solves (OpSpec::solve_magnitude), per
  // element in units of n_solve u; empty: no solve term
  TensorMap solve_mag;
};
BudgetInputs budget_inputs(const OpSpec& op, const TensorMap& in, Precision p, const BudgetParams& bp = {});

// One output's verdict under the budget.
struct OutputJudgement {
  std::string name;
  bool pass = false;
  // errors
  double err_u = 0;            // max |e| in u_s of max|y*| (normwise, as before)
  std::string worst_index;     // 1-based, of the kernel's worst element
  double baseline_err_u = 0;   // the baseline's, same units
  std::string baseline_worst_index;
  double scale = 0;            // max|y*| of the output
  double token_rel_err_u = 0;  // max over rows of max|e_row| / max|y*_row|, in u_s
  double rel_rmse = 0;         // ||e||_2 / ||y*||_2 (plain number)
  double baseline_rel_rmse = 0;
  // the decisive row (largest error / budget)
  std::string worst_row;       // 1-based index of the row (all but the last dimension)
  double row_ratio = 0;        // its error / budget (> 1: fail)
  double row_scale = 0;        // max|y*| of that row
  double row_err_u = 0;        // its error, in u_s of the row's scale
  double budget_u = 0;         // its budget, in u_s of the output's scale max|y*|
  double margin_u = 0;         // (budget - error) at that row, in u_s of the output's scale
  // budget terms at the decisive row, in u_s of the row's scale
  double term_baseline = 0, term_rounding = 0, term_sensitivity = 0, term_solve = 0, term_floor = 0, term_underflow = 0;
  double kappa = 0;            // relative sensitivity of that row: sens / (u_s max|y*_row|)
  double kappa_solve = 0;      // condition estimate of the op's linear system (0: none)
  double underflow_u = 0;      // the underflow term in u_s of the output's scale
  // discriminating power
  double budget_rel = 0;         // max over rows of budget / max|y*| of the output
  double budget_rel_median = 0;  // median over rows of budget / max|y*_row|
  std::size_t rows = 0, zero_passing_rows = 0;  // rows where an all-zero output would pass
  bool discriminating = true;    // false when an all-zero output would pass every row
  std::string weakness;          // why the budget is loose, in words (empty when it is tight)
  std::size_t nonfinite = 0;     // kernel elements that are NaN or +-Inf (the reference is finite): always a failure
  std::string first_nonfinite;   // 1-based index of the first one
};
std::vector<OutputJudgement> judge_outputs(const MpTensorMap& oracle, const TensorMap& kernel_out, const TensorMap& baseline_out,
                                          const BudgetInputs& b, const BudgetParams& p = {});

struct Judgement {
  ErrorStats kernel, baseline;
  double budget_u = 0;     // budget of the decisive row (units of u_s of its output's scale)
  double margin = 0;       // budget - error at the decisive row, same units (negative: fail)
  double kappa = 0;        // relative sensitivity of the decisive row
  double kappa_solve = 0;  // condition estimate of the op's linear system (0: none)
  double budget_rel = 0;   // max over outputs of budget_rel (the weak-case measure)
  bool discriminating = true;
  bool pass = false;
  std::string detail;      // the output and row that decided, with the budget's terms
  std::vector<OutputJudgement> outputs;
};
Judgement judge(const MpTensorMap& oracle, const TensorMap& kernel_out, const TensorMap& baseline_out, const BudgetInputs& b,
                const BudgetParams& p = {});

// Oracle, baseline and budget inputs of one input set, computed once and shared by every kernel
// judged on it.
struct Reference {
  Oracle oracle;
  TensorMap baseline;
  BudgetInputs budget;
};
Reference make_reference(const OpSpec& op, const TensorMap& in, Precision p, const BudgetParams& bp = {});
// Empty when the input set fits the storage format; otherwise why not: an input or an oracle output
// within a factor 16 of the format's largest value (f16: 4094), where the intermediate values a
// kernel stores in that format overflow and no correct kernel of the format exists.
std::string outside_storage_range(const Reference& r, const TensorMap& in, Precision p);

inline Judgement judge(const Reference& r, const TensorMap& kernel_out, const BudgetParams& p = {}) {
  return judge(r.oracle.y, kernel_out, r.baseline, r.budget, p);
}

}  // namespace recall
