// `recall validate` and `recall dump`: judge a user's kernel outputs, stored as NumPy files,
// against the MP reference under the error budget; write generated inputs for external kernels.
#pragma once

#include "recall/properties/budget.hpp"
#include "recall/properties/generators.hpp"
#include "recall/tools/layout.hpp"
#include "recall/tools/parse.hpp"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>

namespace recall {

struct ValidateOptions {
  std::string op, inputs, outputs;
  std::string dtype = "auto";  // f16 | bf16 | f32 | f64 | auto (from the outputs file)
  std::string format = "text";  // text | json | junit
  LayoutOptions layout;         // --layout, --state-layout, --q-scale (tools/layout.hpp)
  BudgetParams budget;
};

// The verdict of one validation, rendered in every form (the CLI prints one; the Python module
// returns all of them).
struct ValidationResult {
  bool pass = false;
  int failures = 0;
  std::string scale;     // the scale the reference used, in words
  nlohmann::json json;   // what --format json prints
  std::string text;      // what --format text prints
  std::string junit;     // what --format junit prints
};
// Judges `outputs` (the kernel's, in the user's layout) of `inputs` (user layout) at storage
// precision `dtype`; `in_name`/`out_name` name the sources in messages. Bad input (unknown op,
// missing or extra tensors, wrong shapes, NaN/Inf inputs, layout errors): std::invalid_argument
// naming the tensor. Used by cmd_validate and by the Python module.
ValidationResult validate_tensors(const std::string& op, TensorMap inputs, TensorMap outputs, Precision dtype, const ValidateOptions& o,
                                  const std::string& in_name = "inputs", const std::string& out_name = "outputs");
// 0: every output within budget; 1: some output over budget; 2: bad input (file, field, shape, op).
int cmd_validate(const ValidateOptions& o, std::ostream& os, std::ostream& err);
void print_ops(std::ostream& os);  // --list-ops: every op with its documented tensor layout

struct DumpOptions {
  std::string op, out;
  std::string shape;  // "B=1,H=2,T=65,dk=16,dv=16"
  std::string dtype = "f32";
  CaseKnobs knobs;    // keys, gates, scale_exp, initial_state, seed (shape fields are parsed from `shape`)
  LayoutOptions layout;
};
// The generated inputs of `op` in the user's layout (dump, the Python module's generate); a
// `scale` input is always present, set to q_scale or the documented default 1/sqrt(d_k).
TensorMap generate_inputs(const std::string& op, const std::string& shape, Precision dtype, CaseKnobs knobs, const LayoutOptions& o);
int cmd_dump(const DumpOptions& o, std::ostream& os, std::ostream& err);


}  // namespace recall
