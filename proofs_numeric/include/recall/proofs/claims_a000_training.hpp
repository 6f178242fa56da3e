// Registration entry points of A000 §3's training experiments that came after claims.hpp (issue 18's last
// four IDs): RoPE vs NoPE on the S5 task (C++ Listing 2 harness), and the two that need multi-layer networks
// or a corpus language model, trained by PyTorch scripts whose raw numbers the C++ checks decide on
// (support/python_experiment.hpp). Kept apart from claims.hpp, which nearly every claim file includes, so
// that adding sections rebuilds the ledger, not every claim file (as claims_a002.hpp).
#pragma once

#include "recall/proofs/ledger.hpp"

namespace recall {
void register_a000_rope_experiment(Ledger& l);       // proofs_numeric/a000_associative_memory/section3_rope.cpp
void register_a000_dag_experiment(Ledger& l);        // proofs_numeric/a000_associative_memory/section3_dag.cpp
void register_a000_multihead_experiment(Ledger& l);  // proofs_numeric/a000_associative_memory/section3_multihead.cpp

// The three above, in this order (support/ledger.cpp).
void register_a000_training_sections(Ledger& l);
}  // namespace recall
