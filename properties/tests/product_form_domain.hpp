// Where the DeltaFormer product-form inverse is judged (a finding of the per-row budget, issue 16).
// The product-form inverse of a unit-lower-triangular block, (I + A)^{-1} = (I - A) prod (I + A^{2^i})
// (Eq. 100), is not componentwise backward stable: its rounding grows with sum_k |A|^k, which the
// budget's model of the u-solve (perturbed entries, partial sums and stored u) does not bound. With
// a saturated normalised softmax (logit scale >= 10, nearly parallel keys: the rows of A are close
// to one-hot and the powers of A do not decay) RapidCheck found it 9% over the budget (157 vs 144 u
// of the row's scale) while substitution on the same system stayed within it. It is judged on
// logit scales below 10; the discrimination suite judges it at realistic shapes (scale 1/sqrt(d)).
// (The delta rule's product-form inverse needs no such domain: its chunk solves are charged by the
// propagated forward-error bound, OpSpec::solve_magnitude, which covers it.)
#pragma once

#include "recall/properties/tensor.hpp"

#include <string>

namespace recall {

inline bool product_form_in_domain(const std::string& op, const TensorMap& in) {
  if (op.find("deltaformer") != std::string::npos) {
    auto it = in.find("scale");
    return it == in.end() || it->second.data[0] < 10;
  }
  return true;
}
inline bool is_product_form(const std::string& impl_name) { return impl_name.find("triinv") != std::string::npos; }

}  // namespace recall
