// Claims of tier t3: filled in by the issue that owns these spec IDs.
#include "recall/proofs/claims.hpp"

namespace recall {
void register_t3_a000_theory_claims(Ledger&) {}
}  // namespace recall
