// The mean of a sample with its two-sided 95% Student-t interval (t975 of claim_support.hpp): the
// interval over seeds of the R-MC / R-SCALE-over-seeds decisions (A004-LSTM-ACCUM, A004-WRITEONLY-CLOG,
// A004-FORGET-IMPORTANT, A004-TTT-SAMPLE-EFF). Fewer than 2 values: an infinite interval.
#pragma once

#include "claim_support.hpp"

#include <cmath>
#include <vector>

namespace recall::claim_support {
namespace {

Ci mean_t_ci(const std::vector<double>& x) {
  Ci c;
  const double n = static_cast<double>(x.size());
  for (double v : x) c.mean += v / n;
  if (x.size() < 2) {
    c.lo = -INFINITY;
    c.hi = INFINITY;
    return c;
  }
  double var = 0;
  for (double v : x) var += (v - c.mean) * (v - c.mean) / (n - 1);
  const double h = t975(static_cast<int>(x.size()) - 1) * std::sqrt(var / n);
  c.lo = c.mean - h;
  c.hi = c.mean + h;
  return c;
}

}  // namespace
}  // namespace recall::claim_support
