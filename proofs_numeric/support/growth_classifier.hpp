// Growth classification of a memory's norm over time, for A000-GD-REG-CLAIMS
// (a000_associative_memory/regularisation_claims.cpp): given ln||S_t|| at points t_1 < ... < t_n <= T (point
// samples, or block means of ln||S_t|| over consecutive blocks of steps, which average out the stationary
// fluctuations; the block's mean t and mean ln t are then its coordinates), for one or several independent
// replicates (seeds), decide bounded / power-law growth / geometric growth.
//
// Fits (claim_support::linear_fit, per replicate):
//   rate r     : slope of ln||S_t|| vs t over the points with t >= T/2 (geometric growth e^{r t});
//   exponent p : slope of ln||S_t|| vs ln t over the checkpoints with t >= T/10 (the last decade, so
//                that transients of a few hundred steps, e.g. a decay 0.99^t, are over; power law t^p).
// 95% intervals: one replicate -> linear_fit's residual t-interval (a point when the fit is exact);
// R >= 2 replicates -> mean of the per-replicate slopes +- t_{0.975,R-1} sd / sqrt(R) (the replicates are
// independent; the residual interval of one autocorrelated series would be too narrow).
// Rule (in this order):
//   geometric    iff r_lo > 0 and r_lo (T - T/2) >= ln 1000: the norm grows at least 1000-fold over the
//                second half of the run at the interval's low end (a power law t^p gains only 2^p there);
//   power_law    iff the exponent's interval lies above 0.05 (sub-geometric growth, e.g. sqrt t, t, ln t);
//   bounded      iff the exponent's upper end is <= 0.05 (constant level or decay);
//   undetermined otherwise (the exponent's interval straddles 0.05), or on non-finite input.
// The tolerance 0.05 is the scaling rule's (spec README §1, "scaling").
#pragma once

#include "claim_support.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace recall::claim_support::growth {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

enum class Growth { bounded, power_law, geometric, undetermined };

const char* growth_name(Growth g) {
  switch (g) {
    case Growth::bounded: return "bounded";
    case Growth::power_law: return "power-law";
    case Growth::geometric: return "geometric";
    case Growth::undetermined: return "undetermined";
  }
  return "?";
}

constexpr double kExponentTol = 0.05;          // power-law exponent tolerance (scaling rule)
const double kGeometricGain = std::log(1000.0);  // ln-norm gain over the second half for "geometric"

struct GrowthFit {
  Growth kind = Growth::undetermined;
  Ci rate, exponent;  // mean and 95% interval over the replicates
  int replicates = 0, rate_points = 0, exponent_points = 0;
  double T = 0;
  std::string str(int p = 3) const {
    return std::string(growth_name(kind)) + " (rate " + fmt_ci(rate, p) + "/step, exponent " + fmt_ci(exponent, p) + ", " +
           std::to_string(replicates) + " seeds, t <= " + fmt(T, 6) + ")";
  }
};

// Mean and 95% interval of the slopes of `fits` (see the header comment).
Ci pooled_slope(const std::vector<Fit>& fits) {
  Ci c;
  const std::size_t R = fits.size();
  if (R == 0) return {0, -INFINITY, INFINITY};
  if (R == 1) return {fits[0].slope, fits[0].lo, fits[0].hi};
  double m = 0, s2 = 0;
  for (const Fit& f : fits) m += f.slope;
  m /= static_cast<double>(R);
  for (const Fit& f : fits) s2 += (f.slope - m) * (f.slope - m);
  const double h = t975(static_cast<int>(R) - 1) * std::sqrt(s2 / static_cast<double>(R - 1) / static_cast<double>(R));
  c.mean = m;
  c.lo = m - h;
  c.hi = m + h;
  return c;
}

// t: the points' times (ascending, >= 1), lnt: their ln t (for block means: the mean of ln t over the
// block), ln_norm[r][i] = ln||S|| at point i of replicate r (or its block mean), T: the run length.
GrowthFit classify_growth(const std::vector<double>& t, const std::vector<double>& lnt, const std::vector<std::vector<double>>& ln_norm,
                          double T) {
  GrowthFit g;
  g.replicates = static_cast<int>(ln_norm.size());
  g.T = T;
  if (t.size() < 4 || lnt.size() != t.size() || ln_norm.empty()) return g;
  const double t_rate = T / 2, t_exp = T / 10;
  std::vector<Fit> rate_fits, exp_fits;
  for (const auto& y : ln_norm) {
    if (y.size() != t.size()) return g;
    std::vector<double> xr, yr, xp, yp;
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (!std::isfinite(y[i])) return g;
      if (t[i] >= t_rate) xr.push_back(t[i]), yr.push_back(y[i]);
      if (t[i] >= t_exp) xp.push_back(lnt[i]), yp.push_back(y[i]);
    }
    rate_fits.push_back(linear_fit(xr, yr));
    exp_fits.push_back(linear_fit(xp, yp));
    g.rate_points = static_cast<int>(xr.size());
    g.exponent_points = static_cast<int>(xp.size());
  }
  g.rate = pooled_slope(rate_fits);
  g.exponent = pooled_slope(exp_fits);
  if (g.rate.lo > 0 && g.rate.lo * (T - t_rate) >= kGeometricGain)
    g.kind = Growth::geometric;
  else if (g.exponent.lo > kExponentTol)
    g.kind = Growth::power_law;
  else if (g.exponent.hi <= kExponentTol)
    g.kind = Growth::bounded;
  else
    g.kind = Growth::undetermined;
  return g;
}
// Point samples at times t (T = the last one).
GrowthFit classify_growth(const std::vector<double>& t, const std::vector<std::vector<double>>& ln_norm) {
  std::vector<double> lnt;
  for (double x : t) lnt.push_back(std::log(x));
  return classify_growth(t, lnt, ln_norm, t.empty() ? 0 : t.back());
}

// Checkpoints 1 <= t <= T: n_log log-spaced and n_lin evenly spaced values (rounded, deduplicated, ascending,
// always with 1 and T), so that both fit windows have many points.
std::vector<long> checkpoint_grid(long T, int n_log, int n_lin) {
  std::vector<long> c{1, T};
  for (int i = 1; i < n_log; ++i) c.push_back(std::lround(std::pow(static_cast<double>(T), static_cast<double>(i) / n_log)));
  for (int i = 1; i < n_lin; ++i) c.push_back(std::lround(static_cast<double>(T) * i / n_lin));
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  while (!c.empty() && c.front() < 1) c.erase(c.begin());
  return c;
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::growth
