// Parsing of the command line's values (throw std::invalid_argument naming the bad value); shared
// by the CLI, the Python module and the fuzzer.
#pragma once

#include "recall/properties/generators.hpp"

#include <string>

namespace recall {

KeyKind parse_key_kind(const std::string& s);
GateKind parse_gate_kind(const std::string& s);
BetaKind parse_beta_kind(const std::string& s);
// "B=1,H=2,T=65,dk=16,dv=16" into k (each value an integer in [1, 2^20]; dphi is dk)
void parse_shape(const std::string& s, CaseKnobs& k);

}  // namespace recall
