// The operations the registry knows: each has a documented tensor layout, an oracle (the
// reference at high precision), a same-precision naive baseline (the same reference template at
// float/double) and a generator. Kernels of any device register against an op by name.
#pragma once

#include "recall/properties/generators.hpp"
#include "recall/properties/tensor.hpp"

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
  std::string name;
  std::string summary;
  std::vector<std::string> spec_ids;   // every spec ID this op's reference serves
  std::vector<TensorDecl> inputs, outputs;
  // reference evaluated at the current mp digits (MpDigitsScope)
  std::function<MpTensorMap(const TensorMap&)> oracle;
  // the same reference template instantiated at the working precision (naive baseline)
  std::function<TensorMap(const TensorMap&, Precision)> baseline;
  std::function<TensorMap(const CaseKnobs&, Precision)> generate;
  // shape and value checks; throws std::invalid_argument naming op, tensor and index
  std::function<void(const TensorMap&)> validate;
  // Magnitude of each output element: the computation evaluated on absolute values (log-space
  // decays weighted by max(1, |segment log-sum|), the amplification of rounding errors in the
  // log-gate sums). The error budget's condition term uses max(A) / max|y*| (see budget.hpp).
  std::function<TensorMap(const TensorMap&)> magnitude;
  // Length m of the longest accumulation chain (the sqrt(m) of the probabilistic error bound).
  std::function<double(const TensorMap&)> accumulation_length;
  // Optional, for ops that solve a linear system (triangular u-solves, WY/UT chunk systems, least
  // squares): a condition estimate kappa of that system and its order n. The budget then adds
  // lambda * n * kappa (units of u: the kappa u n rule of DESIGN idea 3) and reports kappa next
  // to the error. Empty: no such term.
  std::function<std::pair<double, double>(const TensorMap&)> condition;
  bool gated = false;  // generator uses gate knobs
};

const std::vector<OpSpec>& ops();
// Op families defined in their own translation units (called once by ops()).
void add_delta_ops(std::vector<OpSpec>& v);    // ops_delta.cpp: delta_rule, gated_delta_rule
void add_softmax_ops(std::vector<OpSpec>& v);  // ops_softmax.cpp: softmax_attention, deltaformer
const OpSpec& op(const std::string& name);  // throws naming the unknown op

}  // namespace recall
