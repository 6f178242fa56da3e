// `recall validate` and `recall dump`: judge a user's kernel outputs, stored as NumPy files,
// against the MP reference under the error budget; write generated inputs for external kernels.
#pragma once

#include "recall/properties/budget.hpp"
#include "recall/properties/generators.hpp"

#include <iosfwd>
#include <string>

namespace recall {

struct ValidateOptions {
  std::string op, inputs, outputs;
  std::string dtype = "auto";  // f16 | bf16 | f32 | f64 | auto (from the outputs file)
  std::string format = "text";  // text | json | junit
  BudgetParams budget;
};
// 0: every output within budget; 1: some output over budget; 2: bad input (file, field, shape, op).
int cmd_validate(const ValidateOptions& o, std::ostream& os, std::ostream& err);
void print_ops(std::ostream& os);  // --list-ops: every op with its documented tensor layout

struct DumpOptions {
  std::string op, out;
  std::string shape;  // "B=1,H=2,T=65,dk=16,dv=16"
  std::string dtype = "f32";
  CaseKnobs knobs;    // keys, gates, scale_exp, initial_state, seed (shape fields are parsed from `shape`)
};
int cmd_dump(const DumpOptions& o, std::ostream& os, std::ostream& err);

// Parsing helpers shared with the CLI (throw std::invalid_argument naming the bad value).
KeyKind parse_key_kind(const std::string& s);
GateKind parse_gate_kind(const std::string& s);
void parse_shape(const std::string& s, CaseKnobs& k);

}  // namespace recall
