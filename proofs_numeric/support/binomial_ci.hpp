// The two-sided 99% Clopper-Pearson interval of a binomial proportion (README §2: probabilities), shared
// by the claim files that decide on frequencies (a003_hopfield/capacity.cpp through
// hopfield_capacity_claims.hpp, a004_memory_and_forgetting/classical_hopfield.cpp).
#pragma once

#include <boost/math/special_functions/beta.hpp>

#include <utility>

namespace recall::claim_support {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

// k successes in n trials: the interval by the inverse regularised incomplete beta (exact; O(1) in n)
std::pair<double, double> cp99(long k, long n) {
  const double a = 0.005;
  const double lo = k == 0 ? 0.0 : boost::math::ibeta_inv(static_cast<double>(k), static_cast<double>(n - k + 1), a);
  const double hi = k == n ? 1.0 : boost::math::ibeta_inv(static_cast<double>(k + 1), static_cast<double>(n - k), 1 - a);
  return {lo, hi};
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support
