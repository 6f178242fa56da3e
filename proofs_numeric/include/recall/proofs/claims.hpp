// Registration entry points of the claim checks, one per source file of proofs_numeric/src.
#pragma once

#include "recall/proofs/ledger.hpp"

namespace recall {
void register_t1_a000_a001_claims(Ledger& l);   // claims_t1_a000_a001.cpp
void register_t1_a001_claims_b(Ledger& l);      // claims_t1_a001_b.cpp
void register_t1_a004_claims(Ledger& l);        // claims_t1_a004.cpp
}  // namespace recall
