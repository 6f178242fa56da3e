// Registration entry points of the claim checks of paper A002 (Atlas / Miras / Omega, topic T5): one per
// section file proofs_numeric/a002_atlas/<section>.cpp, named register_a002_<section>, in the ledger's
// (and the report's) order. Kept apart from claims.hpp (the other papers' sections), which nearly every
// claim file includes: adding a paper's sections here rebuilds the ledger, not every claim file.
#pragma once

#include "recall/proofs/ledger.hpp"

namespace recall {
// a002_atlas/ (topic T5)
void register_a002_miras_framework(Ledger& l);             // proofs_numeric/a002_atlas/miras_framework.cpp
void register_a002_table1_rows_linear(Ledger& l);          // proofs_numeric/a002_atlas/table1_rows_linear.cpp
void register_a002_table1_rows_deep(Ledger& l);            // proofs_numeric/a002_atlas/table1_rows_deep.cpp
void register_a002_capacity_proposition1(Ledger& l);       // proofs_numeric/a002_atlas/capacity_proposition1.cpp
void register_a002_capacity_theorem1(Ledger& l);           // proofs_numeric/a002_atlas/capacity_theorem1.cpp
void register_a002_polynomial_maps(Ledger& l);             // proofs_numeric/a002_atlas/polynomial_maps.cpp
void register_a002_capacity_proposition2(Ledger& l);       // proofs_numeric/a002_atlas/capacity_proposition2.cpp
void register_a002_exponential_maps(Ledger& l);            // proofs_numeric/a002_atlas/exponential_maps.cpp
void register_a002_omega_rule(Ledger& l);                  // proofs_numeric/a002_atlas/omega_rule.cpp
void register_a002_omega_global(Ledger& l);                // proofs_numeric/a002_atlas/omega_global.cpp
void register_a002_omega_chunk(Ledger& l);                 // proofs_numeric/a002_atlas/omega_chunk.cpp
void register_a002_dla_swla(Ledger& l);                    // proofs_numeric/a002_atlas/dla_swla.cpp
void register_a002_deep_transformers(Ledger& l);           // proofs_numeric/a002_atlas/deep_transformers.cpp
void register_a002_dot_transformer(Ledger& l);             // proofs_numeric/a002_atlas/dot_transformer.cpp
void register_a002_omeganet_rows(Ledger& l);               // proofs_numeric/a002_atlas/omeganet_rows.cpp
void register_a002_mlp_memory(Ledger& l);                  // proofs_numeric/a002_atlas/mlp_memory.cpp
void register_a002_omeganet_deep(Ledger& l);               // proofs_numeric/a002_atlas/omeganet_deep.cpp
void register_a002_newton_schulz(Ledger& l);               // proofs_numeric/a002_atlas/newton_schulz.cpp
void register_a002_atlas_memory(Ledger& l);                // proofs_numeric/a002_atlas/atlas_memory.cpp
void register_a002_atlas_parallel(Ledger& l);              // proofs_numeric/a002_atlas/atlas_parallel.cpp
void register_a002_learnability(Ledger& l);                // proofs_numeric/a002_atlas/learnability.cpp
void register_a002_reported_tables(Ledger& l);             // proofs_numeric/a002_atlas/reported_tables.cpp
void register_a002_reported_tables_orderings(Ledger& l);   // proofs_numeric/a002_atlas/reported_tables_orderings.cpp

// Every A002 section above, in this order (support/ledger.cpp).
void register_a002_sections(Ledger& l);
}  // namespace recall
