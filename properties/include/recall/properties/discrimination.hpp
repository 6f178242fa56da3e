// The discrimination suite (issue 16): the error budget must reject wrong kernels and accept
// correct ones at the sizes and precisions kernels really run. For one op, one storage precision
// and one input set, the oracle, baseline and sensitivity are computed once; then
//  * every registered implementation of that (op, precision) must be accepted (the project's CPU
//    kernels, their 16-bit twins = f32 arithmetic with rounded outputs, the tensor-core-style
//    emulations of tc_emulation.cpp, the GPU kernels when a device is present), and
//  * every applicable mutant of a correct kernel must be rejected (mutants() below).
#pragma once

#include "recall/properties/budget.hpp"
#include "recall/properties/registry.hpp"

#include <functional>
#include <string>
#include <vector>

namespace recall {

struct DiscriminationShape {
  int B = 1, H = 2, T = 256, dk = 32, dv = 32;
  GateKind gates = GateKind::uniform;
  bool s0 = true;
  std::uint64_t seed = 1;
  CaseKnobs knobs() const;  // unit keys, beta |k|^2 in [0,1]
  std::string str() const;
};
// fast: T=256, d=32 (with and without s0, gates uniform and near one); full: T in {1000, 4096},
// d in {64, 128}, each factor (s0, gates) at both of its values across the four shapes.
std::vector<DiscriminationShape> discrimination_shapes(bool full);

// A deliberately wrong kernel, built from a correct one: `make` receives the inputs and the
// correct kernel (a KernelRun; on the case's own inputs it returns outputs computed once) and
// returns the wrong outputs; `applies` says whether the op has what it breaks.
using KernelRun = std::function<TensorMap(const TensorMap& in)>;
struct Mutant {
  std::string name, what;
  std::function<bool(const OpSpec&, const TensorMap& in)> applies;
  std::function<TensorMap(const TensorMap& in, const KernelRun& good, Precision p)> make;
};
const std::vector<Mutant>& mutants();
// Hopfield-specific wrong kernels (registry_hopfield.cpp), part of mutants().
const std::vector<Mutant>& hopfield_mutants();
// The relative error of the "scaled" mutant: 1e-10 (f64), 1e-4 (f32), 5e-2 (bf16, f16).
double scaled_mutant_rel(Precision p);

struct DiscriminationRow {
  std::string op, precision, shape, kernel;  // kernel: an implementation name, or "mutant:<name>"
  bool should_pass = false, passed = false;
  double ratio = 0;        // worst row's error / budget (> 1: rejected)
  double err_u = 0;        // normwise error of the worst output, units of u_s
  double token_rel_err_u = 0;  // worst per-token relative error over the outputs, units of u_s
  double rel_rmse = 0;     // worst relative RMSE over the outputs
  double budget_rel = 0;   // largest budget / scale over the outputs
  // the decisive row (largest error / budget over the outputs): its error and budget in u_s of the
  // row's scale (the report's error-and-budget-vs-T figures)
  double row_err_u = 0, row_budget_u = 0;
  int T = 0, d = 0;      // the shape's T and d_k (figures' x axis)
  bool discriminating = true;
  // the case's budget exceeds weak_budget_rel(precision) of an output's scale or an all-zero output
  // would pass: the budget says so in `detail` ("weak: ..." / "not discriminating: ...", with the reason)
  bool weak = false;
  bool op_reports_condition = false;  // the op reports its condition (OpSpec::condition: a linear system, or NS5's matrix function)
  std::string detail;
  bool ok() const { return passed == should_pass; }
  // A wrong kernel that passed a case the budget flags as weak, for an op that reports its condition: one that
  // solves a linear system (the DeltaFormer u-solves, the delta rule's chunk systems) or evaluates an
  // ill-conditioned matrix function (Newton–Schulz-5 and the Atlas recurrence built on it, whose 16-bit
  // budgets exceed 5% of the output at Gaussian inputs): the one exemption the suite allows
  // (the "genuinely ill-conditioned" cases), listed and said in words, never silent.
  bool exempt() const { return !should_pass && passed && weak && op_reports_condition; }
  bool as_expected() const { return ok() || exempt(); }
};

// Expected seconds of one (op, precision, shape) step on one core of the CI machine (measured at
// T = 1000, d = 64; recurrences scale like T d^2, attention-type ops like T^2 d). For scheduling
// and progress estimates only, never a result.
double discrimination_cost(const std::string& op, int T, int d);

// Runs the suite for the given shapes, ops (empty: all with an implementation) and precisions.
// `progress` (may be empty) is called after each (op, precision, shape) with a one-line summary.
std::vector<DiscriminationRow> run_discrimination(const std::vector<DiscriminationShape>& shapes,
                                                  const std::vector<std::string>& op_names = {},
                                                  const std::vector<Precision>& precisions = {Precision::f64, Precision::f32,
                                                                                             Precision::bf16, Precision::f16},
                                                  const std::function<void(const std::string&)>& progress = {},
                                                  const BudgetParams& p = {});

}  // namespace recall
