// Registration entry points of the claim checks, one per source file of proofs_numeric/src.
#pragma once

#include "recall/proofs/ledger.hpp"

namespace recall {
void register_t1_a000_a001_claims(Ledger& l);   // claims_t1_a000_a001.cpp
void register_t1_a001_claims_b(Ledger& l);      // claims_t1_a001_b.cpp
void register_t1_a004_claims(Ledger& l);        // claims_t1_a004.cpp
void register_t2_a000_claims(Ledger& l);        // claims_t2_a000.cpp (delta-rule family, objectives)
void register_t2_a001_claims(Ledger& l);        // claims_t2_a001.cpp
void register_t2_a004_claims(Ledger& l);        // claims_t2_a004.cpp
void register_t3_a000_forms_claims(Ledger& l);  // claims_t3_a000_forms.cpp (DeltaFormer forms, u-solve)
void register_t3_a000_theory_claims(Ledger& l); // claims_t3_a000_theory.cpp (state exchange, toy code)
void register_t3_softmax_claims(Ledger& l);     // claims_t3_softmax.cpp (softmax attention, NW, QKNorm)
void register_t3_toy_train_claims(Ledger& l);   // claims_t3_toy_train.cpp (Listing 2 training harness)
}  // namespace recall
