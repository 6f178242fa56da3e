// The operations the registry knows: each has a documented tensor layout, an oracle (the
// reference at high precision), a same-precision naive baseline (the same reference template at
// float/double) and a generator. Kernels of any device register against an op by name.
#pragma once

#include "recall/properties/generators.hpp"
#include "recall/properties/tensor.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace recall {

struct TensorDecl {
  std::string name;
  std::string shape;  // symbolic, e.g. "B,H,T,dk"
  bool optional = false;
  std::string doc;
};

struct OpSpec {
  // the declaration of input / output `name`, or nullptr when the op has none
  const TensorDecl* input(const std::string& name) const;
  const TensorDecl* output(const std::string& name) const;
  // the op's log-gate input ("log_gate" or "log_alpha"), or nullptr when it is not gated
  const char* gate_input() const;

  std::string name;
  std::string summary;
  std::vector<std::string> spec_ids;   // every spec ID this op's reference serves
  std::vector<TensorDecl> inputs, outputs;
  // reference evaluated at the current mp digits (MpDigitsScope)
  std::function<MpTensorMap(const TensorMap&)> oracle;
  // the same reference template instantiated at float or double (the naive baseline runs it in the
  // accumulation precision; the budget's sensitivity re-evaluates it in double)
  std::function<TensorMap(const TensorMap&, Precision)> baseline;
  std::function<TensorMap(const CaseKnobs&, Precision)> generate;
  // shape and value checks; throws std::invalid_argument naming op, tensor and index
  std::function<void(const TensorMap&)> validate;
  // Length m of the longest accumulation chain (the gradual-underflow term of the budget).
  std::function<double(const TensorMap&)> accumulation_length;
  // Optional, for ops that solve a linear system (triangular u-solves, WY/UT chunk systems, least
  // squares): a condition estimate kappa of that system and its order n, reported next to the
  // error and named when it makes the budget loose (the budget itself gets the conditioning from
  // perturbed re-evaluation, budget.hpp). Empty: none.
  std::function<std::pair<double, double>(const TensorMap&)> condition;
  // Optional: the op evaluated in double with the intermediate values a kernel stores or rounds
  // each multiplied by (1 + delta xi), xi = +-1 drawn from `seed`: delta_s for what a kernel keeps
  // in the storage format (matmul operands: stored solutions, corrected values, chunk states),
  // delta_a for its accumulations (partial sums, cumulative log-gate sums). The budget's
  // sensitivity then perturbs these as well as the inputs (budget.hpp). Empty: inputs only.
  std::function<TensorMap(const TensorMap&, double delta_s, double delta_a, std::uint64_t seed)> perturbed;
  // Least number of perturbed re-evaluations behind the sensitivity (0: BudgetParams::samples). The
  // default counts a row's elements as independent samples (about 32 per row); a row that responds
  // through a few shared scalars does not have them. A softmax row whose weights hang on the
  // difference of two nearly equal logits moves only when the two logits draw opposite signs, with
  // probability 1/2 per draw, so 3 draws miss it one time in 8 (seen: hopfield_topk_r's near-tie
  // keys, 24 u estimated where 16 draws give 330 u); 16 draws miss it with probability 2^-16. The same
  // holds for any softmax row (softmax_attention: 3 draws found 2.05e4 u where 300 give 1e5 u).
  int sensitivity_draws = 0;
  // Optional, for ops whose fast forms solve systems the sequential reference never forms (the
  // delta rule's WY/UT chunk systems): the first-order propagation of those solves' forward error
  // (|L^-1||L||D| per solve, gamma_n) to every output element, in units of n u. The budget adds
  // n u_a times it (budget.hpp, solve term).
  std::function<TensorMap(const TensorMap&)> solve_magnitude;
  // Optional: the inputs on which a kernel of storage precision p can be judged at all. Empty string: judged;
  // otherwise the reason it is not (e.g. a least-squares system whose condition times the accumulation
  // precision's u exceeds 1e-2: no kernel in that precision returns a meaningful answer there, the solution's
  // rank is decided by rounding). Such a case is counted and reported as not judged, never passed silently:
  // the agreement rows count it with the out-of-range cases, generated cases are discarded (RapidCheck says
  // how many), the corner suite still requires finite outputs. Empty function: every input is judged.
  std::function<std::string(const TensorMap&, Precision)> judged_domain;
  // Optional cap on T for the discrimination suite (its shapes are clamped to it) and the report's
  // realistic rows (skipped above it): an op whose oracle costs O(T^2 d^2) multiprecision operations
  // (local linear attention: a (1 + d_k)-dimensional weighted fit per query over every earlier key) is
  // judged at T <= cap. 0: no cap.
  int discrimination_max_T = 0;
  // Optional caps on T and on the widths d_k, d_v of the randomised agreement cases (test_agreement.cpp: 500 per
  // kernel and precision) for ops whose oracle is expensive per token (Atlas: a Newton–Schulz of the d_v x D
  // momentum per token in MP). Realistic shapes are the discrimination suite's. 0: no cap.
  int generated_max_T = 0, generated_max_d = 0;
  bool gated = false;  // generator uses gate knobs
  // Structural inputs (integer sizes and switches: a chunk size, a feature-map degree) that the budget's
  // sensitivity never perturbs: (1 + u) times a chunk size is not a nearby problem but another algorithm.
  std::vector<std::string> fixed_inputs;
  // where the op was registered (add_op's call site, relative to the repository): the binding of
  // its spec IDs to the reference templates its oracle and baseline instantiate
  std::string file;
  unsigned line = 0;
};
// Appends op to v, recording the call site (recall list's `where` column). The builtins rather than
// std::source_location: this header is also compiled by Debian's clang 14 (ci/fuzz), whose
// <source_location> with libstdc++ 12 is empty.
inline void add_op(std::vector<OpSpec>& v, OpSpec op, const char* file = __builtin_FILE(), unsigned line = __builtin_LINE()) {
  op.file = file;
  op.line = line;
  v.push_back(std::move(op));
}

const std::vector<OpSpec>& ops();
// Op families defined in their own translation units (called once by ops()).
void add_delta_ops(std::vector<OpSpec>& v);    // ops_delta.cpp: delta_rule, gated_delta_rule
void add_softmax_ops(std::vector<OpSpec>& v);  // ops_softmax.cpp: softmax_attention, deltaformer
void add_hopfield_ops(std::vector<OpSpec>& v);  // ops_hopfield.cpp: hopfield_dense, _masked_r/_u, _window_r, _window_causal_r, _topk_r, _prf, _linear
void add_regression_ops(std::vector<OpSpec>& v);  // ops_regression.cpp: (weighted_)least_squares_attention, local_linear_attention
void add_omega_ops(std::vector<OpSpec>& v);  // ops_omega.cpp: omega_rule, omega_chunk, atlas_eq32, atlas_d4, newton_schulz5
const OpSpec& op(const std::string& name);  // throws naming the unknown op

}  // namespace recall
