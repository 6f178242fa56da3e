// The adversarial search of the inequality checks (spec A001 C9 R-BOUND: random restarts + Nelder-Mead in
// fp64 over the generator parameters, the top candidates re-evaluated at high precision), and the lookup of
// a composite row's components in the ledger. Internal helpers of the claim files, with internal linkage
// like claim_support.hpp.
#pragma once

#include "recall/proofs/ledger.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace recall::claim_support {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

struct NmResult {
  std::vector<double> x;       // the best point
  double f = INFINITY;         // its value
  int evals = 0;               // evaluations spent
  std::vector<double> trace;   // best value so far after each evaluation (the search's progress, for figures)
};

// Nelder-Mead minimisation of f (reflection 1, expansion 2, contraction 1/2, shrink 1/2) from x0 with an
// initial simplex of `step` along each axis, at most max_evals evaluations; NaN counts as +inf. Stops early
// when the simplex's values agree to 1e-15 relative. Deterministic: no randomness inside.
NmResult nelder_mead(const std::function<double(const std::vector<double>&)>& f, const std::vector<double>& x0, double step,
                     int max_evals) {
  const std::size_t n = x0.size();
  std::vector<std::vector<double>> P(n + 1, x0);
  std::vector<double> F(n + 1);
  NmResult r;
  auto ev = [&](const std::vector<double>& x) {
    ++r.evals;
    const double v = f(x);
    const double w = std::isnan(v) ? INFINITY : v;
    r.trace.push_back(r.trace.empty() ? w : std::min(r.trace.back(), w));
    return w;
  };
  for (std::size_t i = 0; i < n; ++i) P[i + 1][i] += step;
  for (std::size_t i = 0; i <= n; ++i) F[i] = ev(P[i]);
  std::vector<std::size_t> ord(n + 1);
  while (n > 0 && r.evals < max_evals) {
    for (std::size_t i = 0; i <= n; ++i) ord[i] = i;
    std::sort(ord.begin(), ord.end(), [&](std::size_t a, std::size_t b) { return F[a] < F[b]; });
    const std::size_t best = ord[0], worst = ord[n], second = ord[n - 1];
    if (std::abs(F[worst] - F[best]) <= 1e-15 * (std::abs(F[best]) + 1e-300)) break;
    std::vector<double> c(n, 0.0);
    for (std::size_t i = 0; i <= n; ++i)
      if (i != worst)
        for (std::size_t j = 0; j < n; ++j) c[j] += P[i][j] / static_cast<double>(n);
    auto along = [&](double a) {
      std::vector<double> x(n);
      for (std::size_t j = 0; j < n; ++j) x[j] = c[j] + a * (P[worst][j] - c[j]);
      return x;
    };
    const std::vector<double> xr = along(-1.0);
    const double fr = ev(xr);
    if (fr < F[best]) {
      const std::vector<double> xe = along(-2.0);
      const double fe = ev(xe);
      if (fe < fr) P[worst] = xe, F[worst] = fe;
      else P[worst] = xr, F[worst] = fr;
    } else if (fr < F[second]) {
      P[worst] = xr, F[worst] = fr;
    } else {
      const std::vector<double> xc = along(fr < F[worst] ? -0.5 : 0.5);
      const double fc = ev(xc);
      if (fc < std::min(fr, F[worst])) {
        P[worst] = xc, F[worst] = fc;
      } else {
        for (std::size_t i = 0; i <= n; ++i) {
          if (i == best) continue;
          for (std::size_t j = 0; j < n; ++j) P[i][j] = P[best][j] + 0.5 * (P[i][j] - P[best][j]);
          F[i] = ev(P[i]);
        }
      }
    }
  }
  std::size_t b = 0;
  for (std::size_t i = 1; i <= n; ++i)
    if (F[i] < F[b]) b = i;
  r.x = P[b];
  r.f = F[b];
  return r;
}

// A composite row's component owned by another claim file, run through the ledger it was registered
// in; inconclusive ("not registered in this ledger") when absent (a section run on its own).
ClaimResult run_component(const Ledger* lp, const std::string& id, const CheckConfig& cfg) {
  if (const Claim* c = lp ? lp->find(id) : nullptr) return run_claim(*c, cfg).result;
  ClaimResult r;
  r.verdict = Verdict::inconclusive;
  r.reason = "component " + id + " is not registered in this ledger";
  r.evidence.statistic = "component verdict";
  r.evidence.sizes = "not run";
  return r;
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support
