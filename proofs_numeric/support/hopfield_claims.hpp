// Helpers shared by the A003 (modern Hopfield) claim files: the pattern generators G1-G4 and the queries
// Q1-Q5 of spec C11, the P-ADAPT digit rule of C10, log-space norms, the projection onto the ball S_mu and a
// multi-start ascent driver over x in a ball (the Q6 adversarial search of C12: Nelder-Mead for d <= 4,
// projected finite-difference gradient ascent otherwise). Memories are the ROWS of an M x d matrix
// (row mu = xi_mu, 0-based here, reported 1-based).
// Also the machinery of the retrieval-bound checks: HopInst (one instance in double), HopStat (its statistic at the
// current MP digits), HopTally (D-ALL with doubled-digit re-verification, D-TIGHT quantiles, D-MC frequencies with
// Clopper-Pearson intervals), the instance grid of the Thm 4.1 family (hop_grid_instances, hop_thm_grid), the query,
// mask and pattern searches (hop_search_x, hop_search_patterns) and the runner hop_run_parts (one part per reading).
// Every draw is made from std::mt19937_64 words by explicit formulas (53-bit uniforms, Box-Muller), never by
// the implementation-defined std:: distributions, so a seed reproduces every instance with any standard library.
// At the end: small helpers shared by the two files of a split section (ExactTally; the pattern sets of the
// well-separation files; the dense-model helpers and instances; the SVR instance type and its D-ALL tally).
// Internal linkage and no `inline` hints, like claim_support.hpp.
#pragma once

#include "recall/reference/hopfield.hpp"
#include "recall/reference/hopfield_models.hpp"
#include "recall/reference/hopfield_svr.hpp"
#include "adversarial_search.hpp"
#include "claim_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace recall::claim_support {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

// ---- draws ------------------------------------------------------------------------------------------------

// uniform in (0, 1) from 53 bits of one word
double hop_uniform(Rng& g) { return (static_cast<double>(g() >> 11) + 0.5) * 0x1.0p-53; }
// one standard normal by Box-Muller (two words; the sine branch is discarded, so no state is kept)
double hop_normal(Rng& g) {
  const double u1 = hop_uniform(g), u2 = hop_uniform(g);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586476925286766559 * u2);
}
// uniform integer in [0, n), n >= 1 (53-bit uniform; bias below 2^-40 for the small n used here)
std::size_t hop_below(Rng& g, std::size_t n) {
  ref::require(n >= 1, "hop_below: n must be >= 1");
  return std::min(n - 1, static_cast<std::size_t>(hop_uniform(g) * static_cast<double>(n)));
}
double hop_norm(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}
// a uniformly random unit vector in R^d (normalised Gaussian; redrawn in the null event of a zero vector)
std::vector<double> hop_unit(Rng& g, std::size_t d) {
  ref::require(d >= 1, "hop_unit: d must be >= 1");
  std::vector<double> v(d);
  for (;;) {
    for (double& x : v) x = hop_normal(g);
    const double n = hop_norm(v);
    if (n > 0) {
      for (double& x : v) x /= n;
      return v;
    }
  }
}

// ---- pattern generators (spec C11) --------------------------------------------------------------------------

// G1: uniform on the sphere of radius m; G2: N(0, I/d); G3: entries +-1/sqrt(d) (m ignored by G2, G3).
DM hop_patterns(Rng& g, const std::string& gen, std::size_t M, std::size_t d, double m = 1.0) {
  ref::require(M >= 1 && d >= 1, "hop_patterns: need M >= 1 and d >= 1");
  ref::require(m > 0 && std::isfinite(m), "hop_patterns: the radius m must be finite and > 0");
  DM X(M, d);
  const double sd = 1.0 / std::sqrt(static_cast<double>(d));
  if (gen == "G1") {
    for (std::size_t i = 0; i < M; ++i) {
      const std::vector<double> u = hop_unit(g, d);
      for (std::size_t j = 0; j < d; ++j) X(i, j) = m * u[j];
    }
  } else if (gen == "G2") {
    for (double& x : X.a) x = sd * hop_normal(g);
  } else if (gen == "G3") {
    for (double& x : X.a) x = (g() >> 63) ? sd : -sd;
  } else {
    ref::require(false, "hop_patterns: unknown generator '" + gen + "' (G1, G2 or G3)");
  }
  return X;
}

// rows from a list of vectors (each of length d)
DM hop_rows(const std::vector<std::vector<double>>& v, std::size_t d) {
  DM X(v.size(), d);
  for (std::size_t i = 0; i < v.size(); ++i)
    for (std::size_t j = 0; j < d && j < v[i].size(); ++j) X(i, j) = v[i][j];
  return X;
}
// e_i in R^d
std::vector<double> hop_e(std::size_t d, std::size_t i) {
  std::vector<double> v(d, 0.0);
  v[i] = 1.0;
  return v;
}
// two orthonormal directions u, v drawn at random (d >= 2)
std::pair<std::vector<double>, std::vector<double>> hop_frame2(Rng& g, std::size_t d) {
  std::vector<double> u = hop_unit(g, d), v;
  for (;;) {
    v = hop_unit(g, d);
    double c = 0;
    for (std::size_t j = 0; j < d; ++j) c += u[j] * v[j];
    for (std::size_t j = 0; j < d; ++j) v[j] -= c * u[j];
    const double n = hop_norm(v);
    if (n > 1e-3) {
      for (double& x : v) x /= n;
      return {u, v};
    }
  }
}
// cos(t) u + sin(t) v
std::vector<double> hop_rot(const std::vector<double>& u, const std::vector<double>& v, double t) {
  std::vector<double> w(u.size());
  for (std::size_t j = 0; j < u.size(); ++j) w[j] = std::cos(t) * u[j] + std::sin(t) * v[j];
  return w;
}
// the M <= d + 1 vertices of a regular simplex on the unit sphere, in the first M - 1 coordinates of R^d
// (centred e_1..e_M in R^M expressed in an orthonormal basis of their span, built by Gram-Schmidt)
DM hop_simplex(std::size_t M, std::size_t d) {
  ref::require(M >= 2 && M <= d + 1, "hop_simplex: need 2 <= M <= d + 1");
  std::vector<std::vector<double>> c(M, std::vector<double>(M, -1.0 / static_cast<double>(M)));
  for (std::size_t i = 0; i < M; ++i) c[i][i] += 1.0;
  std::vector<std::vector<double>> B;  // orthonormal basis of span(c_1..c_{M-1})
  for (std::size_t i = 0; i + 1 < M; ++i) {
    std::vector<double> b = c[i];
    for (const auto& q : B) {
      double s = 0;
      for (std::size_t j = 0; j < M; ++j) s += b[j] * q[j];
      for (std::size_t j = 0; j < M; ++j) b[j] -= s * q[j];
    }
    const double n = hop_norm(b);
    for (double& x : b) x /= n;
    B.push_back(b);
  }
  DM X(M, d);
  for (std::size_t i = 0; i < M; ++i) {
    std::vector<double> y(M - 1);
    for (std::size_t k = 0; k + 1 < M; ++k)
      for (std::size_t j = 0; j < M; ++j) y[k] += c[i][j] * B[k][j];
    const double n = hop_norm(y);
    for (std::size_t k = 0; k + 1 < M; ++k) X(i, k) = y[k] / n;
  }
  return X;
}

// G4: the structured / adversarial families of spec C11 in dimension d (those that fit in d), each named:
//   d = 2: regular polygons (M = 3, 4, 6, 12), arcs (M = 3, 5 points evenly on arcs of pi/3 and pi/12);
//   ortho-pair (d >= 2), ortho-triple (d >= 3); antipodal pair (M = 2) and antipodal cross +-e1, +-e2 (d >= 2);
//   near-duplicate pairs ||xi_1 - xi_2|| = 10^-j, j = 1..8, on the unit sphere, with a third unit vector
//   orthogonal to the pair's plane (d >= 3; in d = 2 at the far side of the circle);
//   symmetric triples (centre u, neighbours at angles +-t, t in {pi/6, pi/3}, d >= 2);
//   regular-simplex codes with M = 3 and M = d + 1 (d >= 2);
//   one long (norm 2) and three short (norm 1/2) vectors (random directions);
//   dyadic coordinates: 4 rows with entries in {-1, -7/8, ..., 1} (multiples of 1/8), distinct rows.
// Random directions (frames, long/short, dyadic) come from g in the order listed.
std::vector<std::pair<std::string, DM>> hop_g4_family(std::size_t d, Rng& g) {
  ref::require(d >= 1, "hop_g4_family: d must be >= 1");
  std::vector<std::pair<std::string, DM>> out;
  const double pi = 3.14159265358979323846264338327950288;
  if (d == 2) {
    for (std::size_t M : {3, 4, 6, 12}) {
      std::vector<std::vector<double>> v;
      for (std::size_t i = 0; i < M; ++i) v.push_back({std::cos(2 * pi * i / M), std::sin(2 * pi * i / M)});
      out.emplace_back("G4-polygon-" + std::to_string(M), hop_rows(v, 2));
    }
    for (double arc : {pi / 3, pi / 12})
      for (std::size_t M : {3, 5}) {
        std::vector<std::vector<double>> v;
        for (std::size_t i = 0; i < M; ++i) {
          const double t = arc * static_cast<double>(i) / static_cast<double>(M - 1);
          v.push_back({std::cos(t), std::sin(t)});
        }
        out.emplace_back("G4-arc-" + std::string(arc > 0.5 ? "pi/3-" : "pi/12-") + std::to_string(M), hop_rows(v, 2));
      }
  }
  if (d >= 2) out.emplace_back("G4-ortho-pair", hop_rows({hop_e(d, 0), hop_e(d, 1)}, d));
  if (d >= 3) out.emplace_back("G4-ortho-triple", hop_rows({hop_e(d, 0), hop_e(d, 1), hop_e(d, 2)}, d));
  {
    std::vector<double> u = hop_e(d, 0), mu = u;
    for (double& x : mu) x = -x;
    out.emplace_back("G4-antipodal-pair", hop_rows({u, mu}, d));
  }
  if (d >= 2) {
    std::vector<double> a = hop_e(d, 0), b = hop_e(d, 1), na = a, nb = b;
    for (double& x : na) x = -x;
    for (double& x : nb) x = -x;
    out.emplace_back("G4-antipodal-cross", hop_rows({a, na, b, nb}, d));
  }
  if (d >= 2) {
    const auto [u, v] = hop_frame2(g, d);
    for (int j = 1; j <= 8; ++j) {
      const double dist = std::pow(10.0, -j), t = 2 * std::asin(dist / 2);  // chord 10^-j on the unit circle
      std::vector<double> third;
      if (d >= 3) {
        third = hop_unit(g, d);  // orthogonalise against u, v
        for (const auto* q : {&u, &v}) {
          double s = 0;
          for (std::size_t c = 0; c < d; ++c) s += third[c] * (*q)[c];
          for (std::size_t c = 0; c < d; ++c) third[c] -= s * (*q)[c];
        }
        const double n = hop_norm(third);
        for (double& x : third) x /= n;
      } else {
        third = hop_rot(u, v, pi);
      }
      out.emplace_back("G4-near-dup-1e-" + std::to_string(j), hop_rows({u, hop_rot(u, v, t), third}, d));
    }
    for (double t : {pi / 6, pi / 3})
      out.emplace_back(std::string("G4-sym-triple-") + (t < 0.6 ? "pi/6" : "pi/3"), hop_rows({u, hop_rot(u, v, t), hop_rot(u, v, -t)}, d));
    out.emplace_back("G4-simplex-3", hop_simplex(3, d));
    if (d + 1 > 3) out.emplace_back("G4-simplex-" + std::to_string(d + 1), hop_simplex(d + 1, d));
  }
  {
    std::vector<std::vector<double>> v;
    for (int i = 0; i < 4; ++i) {
      std::vector<double> w = hop_unit(g, d);
      for (double& x : w) x *= (i == 0 ? 2.0 : 0.5);
      v.push_back(w);
    }
    out.emplace_back("G4-long-short", hop_rows(v, d));
  }
  {
    std::vector<std::vector<double>> v;
    while (v.size() < 4) {
      std::vector<double> w(d);
      for (double& x : w) x = (static_cast<double>(hop_below(g, 17)) - 8.0) / 8.0;
      bool dup = hop_norm(w) == 0;
      for (const auto& p : v) dup = dup || p == w;
      if (!dup) v.push_back(w);
    }
    out.emplace_back("G4-dyadic", hop_rows(v, d));
  }
  return out;
}

// ---- exact membership in a ball ---------------------------------------------------------------------------------

// x moved (if needed) so that |x - c| <= r (1 - 1e-15) holds for the double entries in exact arithmetic (checked at
// 50 digits): the offset x - c is scaled down until it does. The margin keeps x inside a ball whose radius is r
// evaluated more accurately (e.g. R of the patterns in MP, r being its double rounding). r = 0 gives x = c.
std::vector<double> hop_fit_ball(std::vector<double> x, const std::vector<double>& c, double r) {
  ref::require(x.size() == c.size(), "hop_fit_ball: length mismatch");
  MpDigitsScope sc(50);
  const mp_t target = mp_t(r) * (1 - mp_t(1e-15));
  std::vector<double> off(x.size());
  for (std::size_t j = 0; j < x.size(); ++j) off[j] = x[j] - c[j];
  double shrink = 1.0;
  for (int it = 0; it < 200; ++it) {
    mp_t s(0);
    for (std::size_t j = 0; j < x.size(); ++j) s += (mp_t(x[j]) - mp_t(c[j])) * (mp_t(x[j]) - mp_t(c[j]));
    const mp_t n = boost::multiprecision::sqrt(s);
    if (n <= target) return x;
    if (!(r > 0)) return c;
    shrink *= std::min(1.0 - std::ldexp(1.0, -50 + std::min(it, 45)), to_d(mp_t(target / n)));
    for (std::size_t j = 0; j < x.size(); ++j) x[j] = c[j] + shrink * off[j];
  }
  return c;
}

// R = (1/2) min pairwise distance of the rows, m = max_mu ||xi_mu|| and Delta_mu (ref::hopfield::radius, max_norm,
// separation), in double and in MP at the current digits, each with a one-entry cache per thread (and per call site:
// one instantiation of hop_cached per lambda) keyed by the exact pattern entries, mu and the digits: the searches
// evaluate many queries on the same patterns, and R costs M^2 d operations.
template <class V, class F> V hop_cached(const DM& Xi, std::size_t mu, F f) {
  thread_local std::vector<double> key;
  thread_local std::size_t rows = 0, kmu = 0;
  thread_local unsigned prec = 0;
  thread_local bool have = false;
  thread_local V val{};
  const unsigned p = static_cast<unsigned>(mp_t::default_precision());
  if (!have || rows != Xi.rows || kmu != mu || prec != p || key != Xi.a) {
    val = f();
    key = Xi.a;
    rows = Xi.rows;
    kmu = mu;
    prec = p;
    have = true;
  }
  return V(val);
}
double hop_radius_d(const DM& Xi) {
  return hop_cached<double>(Xi, 0, [&] { return double(ref::hopfield::radius(Xi)); });
}
mp_t hop_radius_mp(const DM& Xi) {
  return hop_cached<mp_t>(Xi, 0, [&] { return mp_t(ref::hopfield::radius(to_mp(Xi))); });
}
mp_t hop_max_norm_mp(const DM& Xi) {
  return hop_cached<mp_t>(Xi, 0, [&] { return mp_t(ref::hopfield::max_norm(to_mp(Xi))); });
}
mp_t hop_separation_mp(const DM& Xi, std::size_t mu) {
  return hop_cached<mp_t>(Xi, mu, [&] { return mp_t(ref::hopfield::separation(to_mp(Xi), mu)); });
}

// ---- queries (spec C11) ---------------------------------------------------------------------------------------

// row mu of X as a std::vector
std::vector<double> hop_row(const DM& X, std::size_t mu) { return std::vector<double>(X.row(mu), X.row(mu) + X.cols); }
// the nearest other pattern to xi_mu (smallest 0-based index among ties); M >= 2
std::size_t hop_nearest(const DM& X, std::size_t mu) {
  ref::require(X.rows >= 2 && mu < X.rows, "hop_nearest: needs M >= 2 and mu in range");
  std::size_t best = mu == 0 ? 1 : 0;
  double bd = INFINITY;
  for (std::size_t nu = 0; nu < X.rows; ++nu) {
    if (nu == mu) continue;
    double s = 0;
    for (std::size_t j = 0; j < X.cols; ++j) s += (X(nu, j) - X(mu, j)) * (X(nu, j) - X(mu, j));
    if (s < bd) bd = s, best = nu;
  }
  return best;
}
// Q1 x = xi_mu; Q2 uniform in the ball S_mu of radius R (radius R U^(1/d)); Q3 uniform on its boundary;
// Q4 xi_mu + r (xi_nu - xi_mu)/||xi_nu - xi_mu||, nu the nearest neighbour, r = r_frac R; Q5 xi_mu + sigma_x N(0, I).
// Q2-Q4 (r_frac <= 1) are pulled inside the closed ball in exact arithmetic by hop_fit_ball (a relative 1e-15 margin;
// Q3 and Q4 at r = R lie on the boundary to that accuracy).
std::vector<double> hop_query(Rng& g, const std::string& q, const DM& Xi, std::size_t mu, double R, double r_frac = 1.0,
                              double sigma_x = 0.1) {
  ref::require(mu < Xi.rows, "hop_query: mu out of range");
  ref::require(R >= 0 && std::isfinite(R), "hop_query: R must be finite and >= 0");
  const std::size_t d = Xi.cols;
  std::vector<double> x = hop_row(Xi, mu);
  if (q == "Q1") return x;
  if (q == "Q2" || q == "Q3") {
    const std::vector<double> u = hop_unit(g, d);
    const double r = q == "Q3" ? R : R * std::pow(hop_uniform(g), 1.0 / static_cast<double>(d));
    for (std::size_t j = 0; j < d; ++j) x[j] += r * u[j];
    return hop_fit_ball(x, hop_row(Xi, mu), R);
  }
  if (q == "Q4") {
    const std::size_t nu = hop_nearest(Xi, mu);
    std::vector<double> dir(d);
    for (std::size_t j = 0; j < d; ++j) dir[j] = Xi(nu, j) - Xi(mu, j);
    const double n = hop_norm(dir);
    ref::require(n > 0, "hop_query: Q4 needs xi_mu distinct from its nearest neighbour");
    for (std::size_t j = 0; j < d; ++j) x[j] += r_frac * R * dir[j] / n;
    return r_frac <= 1 ? hop_fit_ball(x, hop_row(Xi, mu), R) : x;
  }
  if (q == "Q5") {
    for (double& v : x) v += sigma_x * hop_normal(g);
    return x;
  }
  ref::require(false, "hop_query: unknown query kind '" + q + "' (Q1..Q5)");
  return x;
}

// ---- precision and log-space helpers -----------------------------------------------------------------------------

// spec C10 P-ADAPT: max(base, ceil(beta * spread / ln 10) + 30)
unsigned hop_padapt_digits(double beta, double spread, unsigned base = 50) {
  const double e = beta * std::max(0.0, spread) / std::log(10.0);
  ref::require(std::isfinite(e), "hop_padapt_digits: beta * spread is not finite");
  return std::max(base, static_cast<unsigned>(std::ceil(e)) + 30u);
}
// spread of the scores a = Xi x: max a - min a (double)
double hop_spread(const DM& Xi, const std::vector<double>& x) {
  ref::require(x.size() == Xi.cols, "hop_spread: query length differs from d");
  double lo = INFINITY, hi = -INFINITY;
  for (std::size_t nu = 0; nu < Xi.rows; ++nu) {
    double a = 0;
    for (std::size_t j = 0; j < Xi.cols; ++j) a += Xi(nu, j) * x[j];
    lo = std::min(lo, a);
    hi = std::max(hi, a);
  }
  return hi - lo;
}
// log10 ||v|| computed in MP (no underflow); -inf for the zero vector
double log10_norm(const MV& v) {
  mp_t s(0);
  for (const mp_t& x : v) s += x * x;
  if (!(s > 0)) return -INFINITY;
  return to_d(mp_t(boost::multiprecision::log10(s) / 2));
}
// ||v|| in MP
mp_t mp_norm(const MV& v) {
  mp_t s(0);
  for (const mp_t& x : v) s += x * x;
  return boost::multiprecision::sqrt(s);
}
// 1-based mask text "{1,3,4}"
std::string hop_mask_str(const ref::hopfield::Mask& m) {
  std::string s = "{";
  for (std::size_t i = 0; i < m.size(); ++i) s += (i ? "," : "") + std::to_string(m[i] + 1);
  return s + "}";
}
// median, p90 and max of a sample (D-TIGHT); NaN for an empty one
struct HopQuantiles {
  double median = NAN, p90 = NAN, max = NAN;
  std::size_t n = 0;
};
HopQuantiles hop_quantiles(std::vector<double> v) {
  HopQuantiles q;
  q.n = v.size();
  if (v.empty()) return q;
  std::sort(v.begin(), v.end());
  auto at = [&](double p) { return v[std::min(v.size() - 1, static_cast<std::size_t>(std::floor(p * static_cast<double>(v.size() - 1) + 0.5)))]; };
  q.median = at(0.5);
  q.p90 = at(0.9);
  q.max = v.back();
  return q;
}

// ---- the ball S_mu and the ascent driver (spec C12 Q6) -----------------------------------------------------------

// the point of the closed ball |x - c| <= r nearest to x (inside in exact arithmetic, hop_fit_ball)
std::vector<double> hop_project_ball(const std::vector<double>& x, const std::vector<double>& c, double r) {
  ref::require(x.size() == c.size(), "hop_project_ball: length mismatch");
  std::vector<double> y(x.size());
  for (std::size_t j = 0; j < x.size(); ++j) y[j] = x[j] - c[j];
  const double n = hop_norm(y);
  const double s = n > r ? r / n : 1.0;
  for (std::size_t j = 0; j < x.size(); ++j) y[j] = c[j] + s * y[j];
  return hop_fit_ball(y, c, r);
}

struct HopAscent {
  std::vector<double> x;  // the best point (inside the ball)
  double f = -INFINITY;   // its value
  int evals = 0;
  int starts = 0;
};
// Maximise f over the closed ball |x - c| <= r from each start (projected into the ball first): Nelder-Mead on
// f(project(y)) for d <= 4 (initial step r/4), projected finite-difference gradient ascent otherwise (forward
// differences of step 1e-6 r, a step length that doubles on success and halves on failure). At most
// evals_per_start evaluations per start; NaN counts as -inf. Deterministic.
HopAscent hop_ball_ascent(const std::function<double(const std::vector<double>&)>& f, const std::vector<std::vector<double>>& starts,
                          const std::vector<double>& c, double r, int evals_per_start) {
  HopAscent best;
  const std::size_t d = c.size();
  auto safe = [&](const std::vector<double>& x) {
    ++best.evals;
    const double v = f(x);
    return std::isnan(v) ? -INFINITY : v;
  };
  for (const auto& s0 : starts) {
    ++best.starts;
    const std::vector<double> x0 = hop_project_ball(s0, c, r);
    std::vector<double> bx = x0;
    double bf;
    if (d <= 4) {
      const NmResult nm = nelder_mead([&](const std::vector<double>& y) { return -safe(hop_project_ball(y, c, r)); }, x0,
                                      r > 0 ? r / 4 : 1e-3, evals_per_start);
      bx = hop_project_ball(nm.x, c, r);
      bf = -nm.f;
    } else {
      bf = safe(bx);
      double step = r / 4;
      const double h = std::max(1e-12, 1e-6 * r);
      int used = 1;
      while (used + static_cast<int>(d) + 1 <= evals_per_start && step > 1e-9 * std::max(r, 1e-300)) {
        std::vector<double> gr(d);
        for (std::size_t j = 0; j < d; ++j) {
          std::vector<double> y = bx;
          y[j] += h;
          gr[j] = (safe(y) - bf) / h;  // evaluated just outside the ball at the boundary: f is defined on R^d
        }
        used += static_cast<int>(d);
        const double gn = hop_norm(gr);
        if (!(gn > 0) || !std::isfinite(gn)) break;
        std::vector<double> y(d);
        for (std::size_t j = 0; j < d; ++j) y[j] = bx[j] + step * gr[j] / gn;
        y = hop_project_ball(y, c, r);
        const double fy = safe(y);
        ++used;
        if (fy > bf) {
          bx = y, bf = fy;
          step *= 2;
        } else {
          step /= 2;
        }
      }
    }
    if (bf > best.f || best.x.empty()) best.x = bx, best.f = bf;
  }
  return best;
}
// The standard start set of the Q6 search around xi_mu: Q1, Q4 at r_frac in {0.5, 0.9, 0.99, 1}, and n_random
// further Q2 / Q3 draws (alternating).
std::vector<std::vector<double>> hop_ascent_starts(Rng& g, const DM& Xi, std::size_t mu, double R, int n_random) {
  std::vector<std::vector<double>> s;
  s.push_back(hop_query(g, "Q1", Xi, mu, R));
  if (Xi.rows >= 2 && R > 0)
    for (double rf : {0.5, 0.9, 0.99, 1.0}) s.push_back(hop_query(g, "Q4", Xi, mu, R, rf));
  for (int i = 0; i < n_random; ++i) s.push_back(hop_query(g, i % 2 ? "Q3" : "Q2", Xi, mu, R));
  return s;
}

// ---- Clopper-Pearson interval (D-MC) -----------------------------------------------------------------------------

// log of the binomial pmf
double hop_log_binom_pmf(int k, int n, double p) {
  if (p <= 0) return k == 0 ? 0.0 : -INFINITY;
  if (p >= 1) return k == n ? 0.0 : -INFINITY;
  return std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) + k * std::log(p) + (n - k) * std::log1p(-p);
}
// P(X <= k) for X ~ Bin(n, p)
double hop_binom_cdf(int k, int n, double p) {
  double s = 0;
  for (int i = 0; i <= k && i <= n; ++i) s += std::exp(hop_log_binom_pmf(i, n, p));
  return std::min(1.0, s);
}
// two-sided Clopper-Pearson interval of level `level` (0.99 by default) for k successes in n trials (bisection)
std::pair<double, double> hop_clopper_pearson(int k, int n, double level = 0.99) {
  ref::require(n >= 1 && k >= 0 && k <= n, "hop_clopper_pearson: need 0 <= k <= n, n >= 1");
  const double a = (1 - level) / 2;
  auto solve = [&](auto pred) {  // smallest p in [0, 1] with pred(p) true (pred monotone false -> true)
    double lo = 0, hi = 1;
    for (int it = 0; it < 200; ++it) {
      const double mid = (lo + hi) / 2;
      (pred(mid) ? hi : lo) = mid;
    }
    return hi;
  };
  const double lower = k == 0 ? 0.0 : solve([&](double p) { return 1 - hop_binom_cdf(k - 1, n, p) >= a; });
  const double upper = k == n ? 1.0 : solve([&](double p) { return hop_binom_cdf(k, n, p) <= a; });
  return {lower, upper};
}

// ---- retrieval instances and the D-ALL / D-TIGHT tally of the bound checks ------------------------------------------

// One instance of a retrieval check, in double (exact inputs; every evaluation converts them to MP at its digits).
struct HopInst {
  std::string gen;    // generator / family name
  std::string query;  // Q1..Q6 (Q4 with its r / R)
  DM Xi;
  std::vector<double> x;
  std::size_t mu = 0;
  ref::hopfield::Mask mask;
  double beta = 1;
};
// The instance in MP at the current digits.
struct HopMP {
  MM Xi;
  MV x;
  mp_t beta;
};
HopMP hop_mp(const HopInst& in) { return HopMP{to_mp(in.Xi), to_mp(in.x), mp_t(in.beta)}; }
std::string hop_vec_str(const std::vector<double>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + fmt(v[i], 17);
  return s + ")";
}
// 1-based description: generator, M, d, mu, k and mask, beta, query; x (and Xi when M d <= 16) in full for d <= 4,
// else ||x - xi_mu|| / R.
std::string hop_desc(const HopInst& in) {
  std::string s = in.gen + " M=" + std::to_string(in.Xi.rows) + " d=" + std::to_string(in.Xi.cols) + " mu=" + std::to_string(in.mu + 1) +
                  " k=" + std::to_string(in.mask.size());
  if (in.Xi.rows <= 12) s += " mask=" + hop_mask_str(in.mask);
  s += " beta=" + fmt(in.beta, 6) + " " + in.query;
  if (in.Xi.cols <= 4) {
    s += " x=" + hop_vec_str(in.x);
    if (in.Xi.rows * in.Xi.cols <= 16) {
      s += " Xi=[";
      for (std::size_t i = 0; i < in.Xi.rows; ++i) s += (i ? "," : "") + hop_vec_str(hop_row(in.Xi, i));
      s += "]";
    }
  } else if (in.Xi.rows >= 2) {
    const double R = ref::hopfield::radius(in.Xi);
    std::vector<double> dx = in.x;
    for (std::size_t j = 0; j < dx.size(); ++j) dx[j] -= in.Xi(in.mu, j);
    s += " |x-xi_mu|/R=" + fmt(R > 0 ? hop_norm(dx) / R : INFINITY, 6);
  }
  return s;
}
// P-ADAPT digits of an instance (spread of its scores at its beta)
unsigned hop_inst_digits(const HopInst& in) { return hop_padapt_digits(in.beta, hop_spread(in.Xi, in.x)); }
// the score threshold of a violation at D digits: 10^-(D - 20)
double hop_tol(unsigned digits) { return std::pow(10.0, -static_cast<double>(digits) + 20.0); }

// The statistic of a check at the current MP digits: > 0 means the claim fails on the instance (e.g.
// log10 stat - log10 bound, or a normalised defect); NaN skips the instance (note says why).
using HopStat = std::function<double(const HopInst&, std::string& note)>;

// D-ALL / D-TIGHT accumulation of one reading (or part) of a bound check: every instance at P-ADAPT digits
// (hop_inst_digits, or the caller's digits), a value above hop_tol(D) a violation, the first violations re-verified
// at doubled digits (up to 8 tries; the first confirmed one, in generation order, is the witness).
struct HopTally {
  std::string statistic;
  bool log_ratio = true;  // values are log10(stat / bound): D-TIGHT quantiles reported
  bool freq = false;      // also the violation frequency per cell with its 99% Clopper-Pearson interval (D-MC)
  int n = 0, skipped = 0, violations = 0, tries = 0;
  double worst = -INFINITY;
  std::string worst_desc, skip_example;
  unsigned max_digits = 0;
  bool confirmed = false;
  int unconfirmed = 0;
  std::string witness;
  double wv = 0, wv2 = 0;
  unsigned wdigits = 0;
  std::map<std::string, std::vector<double>> cells;  // D-TIGHT values per grid cell
  // evaluate one instance; `cell` names its D-TIGHT cell ("" = none); returns the value (NaN when skipped)
  double add(const HopInst& in, const HopStat& f, const std::string& cell = "", unsigned digits = 0) {
    const unsigned D = digits ? digits : hop_inst_digits(in);
    std::string note;
    double v;
    {
      MpDigitsScope sc(D);
      v = f(in, note);
    }
    if (std::isnan(v)) {
      if (skip_example.empty()) skip_example = hop_desc(in) + ": " + note;
      ++skipped;
      return v;
    }
    ++n;
    max_digits = std::max(max_digits, D);
    if (!cell.empty() && std::isfinite(v)) cells[cell].push_back(v);
    if (v > worst || worst_desc.empty()) {
      worst = v;
      worst_desc = hop_desc(in) + (note.empty() ? "" : " [" + note + "]");
    }
    if (v > hop_tol(D)) {
      ++violations;
      if (!confirmed && tries < 8) {
        ++tries;
        double v2;
        std::string note2;
        {
          MpDigitsScope sc(2 * D);
          v2 = f(in, note2);
        }
        max_digits = std::max(max_digits, 2 * D);
        if (v2 > hop_tol(2 * D)) {
          confirmed = true;
          witness = hop_desc(in) + (note.empty() ? "" : " [" + note + "]");
          wv = v;
          wv2 = v2;
          wdigits = D;
        } else {
          ++unconfirmed;
        }
      }
    }
    return v;
  }
  // the verdict and evidence of this tally (sizes: the instance families covered)
  ClaimResult result(const CheckConfig& cfg, const std::string& sizes, std::uint64_t seed) const {
    ClaimResult r;
    r.evidence.statistic = statistic;
    r.evidence.value = worst;
    r.evidence.threshold = 0;
    r.evidence.instances = n;
    r.evidence.sizes = sizes;
    r.evidence.digits = max_digits ? max_digits : cfg.digits;
    r.evidence.seed = seed;
    const std::string what = log_ratio ? "log10(stat/bound)" : "normalised defect";
    if (confirmed) {
      r.verdict = Verdict::violated;
      r.evidence.value = wv;
      r.evidence.witness = witness;
      r.reason = what + " = " + fmt(wv, 6) + " > 0 at " + std::to_string(wdigits) + " digits (" + fmt(wv2, 6) + " at " +
                 std::to_string(2 * wdigits) + " digits); " + std::to_string(violations) + " of " + std::to_string(n) +
                 " instances violate (worst " + fmt(worst, 6) + ")";
      r.evidence.extra.emplace_back("witness at doubled digits", fmt(wv2, 10) + " (" + std::to_string(2 * wdigits) + " digits)");
    } else if (n == 0) {
      r.verdict = Verdict::inconclusive;
      r.reason = "no instance evaluated" + (skip_example.empty() ? std::string() : " (skipped, e.g. " + skip_example + ")");
    } else if (violations > 0) {
      r.verdict = Verdict::inconclusive;
      r.evidence.witness = worst_desc;
      r.reason = std::to_string(violations) + " violation(s) at working digits not confirmed at doubled digits";
    } else {
      r.verdict = Verdict::holds;
      r.evidence.witness = worst_desc;
      r.reason = "no violation on " + std::to_string(n) + " instances (grid, G4 and adversarial search); worst " + what + " = " + fmt(worst, 6);
    }
    r.evidence.extra.emplace_back("violations", std::to_string(violations) + " of " + std::to_string(n));
    if (skipped) r.evidence.extra.emplace_back("skipped", std::to_string(skipped) + " (e.g. " + skip_example + ")");
    for (const auto& [cell, v] : cells) {
      const HopQuantiles q = hop_quantiles(v);
      std::string line = (log_ratio ? "log10(stat/bound)" : "defect") + std::string(": median ") + fmt(q.median, 4) + ", p90 " + fmt(q.p90, 4) +
                         ", max " + fmt(q.max, 4) + " (" + std::to_string(q.n) + ")";
      if (freq && !v.empty()) {
        int bad = 0;
        for (double x : v) bad += x > 0 ? 1 : 0;
        const auto [lo, hi] = hop_clopper_pearson(bad, static_cast<int>(v.size()));
        line += "; violation frequency " + std::to_string(bad) + "/" + std::to_string(v.size()) + ", 99% CP [" + fmt(lo, 3) + ", " + fmt(hi, 3) + "]";
      }
      r.evidence.extra.emplace_back("D-TIGHT " + cell, line);
    }
    return r;
  }
};

// the value of f on an instance at its P-ADAPT digits (NaN and digits above max_digits: -inf), for the searches
double hop_eval_search(const HopInst& in, const HopStat& f, unsigned max_digits = 400) {
  const unsigned D = hop_inst_digits(in);
  if (D > max_digits) return -INFINITY;
  MpDigitsScope sc(D);
  std::string note;
  const double v = f(in, note);
  return std::isnan(v) ? -INFINITY : v;
}

// Q6 over the query: maximise f over x in the ball |x - xi_mu| <= rad (rad = R(Xi) when <= 0) for the patterns,
// mu, mask and beta of `base`, from Q1, Q4 (r/R in {.5, .9, .99, 1}) and n_random Q2/Q3 starts (hop_ball_ascent).
// Returns the best point as an instance (query "Q6-x").
HopInst hop_search_x(const HopInst& base, const HopStat& f, Rng& g, int n_random, int evals_per_start, double rad = 0) {
  const double R = base.Xi.rows >= 2 ? ref::hopfield::radius(base.Xi) : 0.0;
  const double r = rad > 0 ? rad : R;
  HopInst in = base;
  auto obj = [&](const std::vector<double>& x) {
    in.x = x;
    return hop_eval_search(in, f);
  };
  std::vector<std::vector<double>> starts = hop_ascent_starts(g, base.Xi, base.mu, r, n_random);
  starts.push_back(base.x);
  const HopAscent a = hop_ball_ascent(obj, starts, hop_row(base.Xi, base.mu), r, evals_per_start);
  HopInst out = base;
  out.x = a.x;
  out.query = "Q6-x(" + std::to_string(a.starts) + " starts, " + std::to_string(a.evals) + " evals)";
  return out;
}

// Q6 over the patterns (for small M d): Nelder-Mead over the entries of Xi and y in R^d, the query
// x = xi_mu + R(Xi) y / max(1, |y|) in S_mu (x_scale > 1: in the ball of radius x_scale R), for the mu, mask and beta
// of `start`; entries confined to [-3, 3] and P-ADAPT digits to <= 400 (else -inf). Returns the best instance
// (query "Q6-patterns").
HopInst hop_search_patterns(const HopInst& start, const HopStat& f, int max_evals, double x_scale = 1.0) {
  const std::size_t M = start.Xi.rows, d = start.Xi.cols;
  auto build = [&](const std::vector<double>& z, HopInst& in) {
    in = start;
    for (std::size_t i = 0; i < M * d; ++i) in.Xi.a[i] = z[i];
    const double R = M >= 2 ? ref::hopfield::radius(in.Xi) : 0.0;
    std::vector<double> y(z.begin() + static_cast<std::ptrdiff_t>(M * d), z.end());
    const double ny = hop_norm(y), s = x_scale * R / std::max(1.0, ny);
    for (std::size_t j = 0; j < d; ++j) in.x[j] = in.Xi(in.mu, j) + s * y[j];
    in.x = hop_fit_ball(in.x, hop_row(in.Xi, in.mu), x_scale * R);
    return R > 0;
  };
  auto obj = [&](const std::vector<double>& z) {
    for (std::size_t i = 0; i < M * d; ++i)
      if (!(std::fabs(z[i]) <= 3)) return static_cast<double>(INFINITY);
    HopInst in;
    if (!build(z, in)) return static_cast<double>(INFINITY);
    return -hop_eval_search(in, f);
  };
  std::vector<double> z0(start.Xi.a);
  const double R0 = M >= 2 ? ref::hopfield::radius(start.Xi) : 0.0;
  for (std::size_t j = 0; j < d; ++j) z0.push_back(R0 > 0 ? (start.x[j] - start.Xi(start.mu, j)) / (x_scale * R0) : 0.0);
  const NmResult nm = nelder_mead(obj, z0, 0.1, max_evals);
  HopInst out;
  if (!build(nm.x, out)) out = start;
  out.query = "Q6-patterns(" + std::to_string(nm.evals) + " evals)";
  return out;
}

// The instance grid of the retrieval-bound checks (spec A003-THM-4.1): for each d, M (M >= 2), generator G1-G3
// (m = 1) and one mu per configuration, every beta, the queries Q1, Q2, Q3, Q4 (r/R = 0.5, 1) and the masks: random
// masks containing mu (A003-RANDOM-MASK, Philox keyed by the seed) of each size in ks(M), plus the top-K mask (GE
// policy, scores <x, xi_nu> at 50 digits) of the same K when it contains mu and differs; then the G4 families for d
// in g4_ds the same way. Generated smallest first (d, M ascending).
struct HopGrid {
  std::vector<std::size_t> ds, Ms, g4_ds;
  std::vector<double> betas;
  std::vector<std::string> gens{"G1", "G2", "G3"};
  std::vector<std::string> queries{"Q1", "Q2", "Q3", "Q4:0.5", "Q4:1"};
  std::function<std::vector<std::size_t>(std::size_t)> ks;  // mask sizes for M (values outside [1, M] dropped)
  bool topk = true;
};
std::vector<std::size_t> hop_default_ks(std::size_t M) { return {1, 2, (M + 1) / 2, M}; }
std::vector<HopInst> hop_grid_instances(const HopGrid& G, std::uint64_t seed) {
  std::vector<HopInst> out;
  Rng g(seed);
  std::uint64_t row = 0;
  auto add_config = [&](const std::string& gen, const DM& Xi) {
    const std::size_t M = Xi.rows;
    if (M < 2 || ref::hopfield::radius(Xi) <= 0) return;
    const std::size_t mu = hop_below(g, M);
    const double R = ref::hopfield::radius(Xi);
    std::vector<std::size_t> ks = G.ks ? G.ks(M) : hop_default_ks(M);
    std::sort(ks.begin(), ks.end());
    ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
    for (const std::string& q : G.queries) {
      const std::string qk = q.substr(0, 2);
      const double rf = q.size() > 3 ? std::stod(q.substr(3)) : 1.0;
      const std::vector<double> x = hop_query(g, qk, Xi, mu, R, rf);
      std::vector<ref::hopfield::Mask> masks;
      for (std::size_t k : ks) {
        if (k < 1 || k > M) continue;
        masks.push_back(ref::hopfield::random_mask(M, k, seed, row++, static_cast<long long>(mu)));
        if (G.topk && k < M) {
          MpDigitsScope sc(50);
          const MV sig = ref::hopfield::scores(to_mp(Xi), to_mp(x));
          const ref::hopfield::Mask t = ref::hopfield::topk_ge(sig, k);
          if (std::binary_search(t.begin(), t.end(), mu) && t != masks.back()) masks.push_back(t);
        }
      }
      for (double beta : G.betas)
        for (const auto& mk : masks) {
          HopInst in;
          in.gen = gen;
          in.query = q;
          in.Xi = Xi;
          in.x = x;
          in.mu = mu;
          in.mask = mk;
          in.beta = beta;
          out.push_back(std::move(in));
        }
    }
  };
  for (std::size_t d : G.ds)
    for (std::size_t M : G.Ms)
      for (const std::string& gen : G.gens) add_config(gen, hop_patterns(g, gen, M, d));
  for (std::size_t d : G.g4_ds)
    for (const auto& [name, Xi] : hop_g4_family(d, g)) add_config(name, Xi);
  return out;
}

// ---- log-space bound pieces and the shared runner of the bound checks ------------------------------------------------

// log10 ||v|| in MP (-inf for the zero vector)
mp_t hop_lnorm(const MV& v) {
  mp_t s(0);
  for (const mp_t& t : v) s += t * t;
  return boost::multiprecision::log10(s) / 2;
}
// log10(c e^{-beta E}) in MP
mp_t hop_lbound(const mp_t& c, const mp_t& beta, const mp_t& E) {
  return boost::multiprecision::log10(c) - beta * E / boost::multiprecision::log(mp_t(10));
}
// log10 stat - log10 bound, the difference formed in MP: -inf when stat = 0, +inf when only the bound is 0
double hop_lratio(const mp_t& ls, const mp_t& lb) {
  if (ls < 0 && !boost::multiprecision::isfinite(ls)) return -INFINITY;
  if (lb < 0 && !boost::multiprecision::isfinite(lb)) return INFINITY;
  return to_d(mp_t(ls - lb));
}
// The claim's domain |x - xi_mu| <= factor R: NaN (skipped, with a note) outside it, judged at 50 digits against
// the double R with a relative 1e-13 allowance (generated and searched queries are inside in exact arithmetic,
// hop_fit_ball; this only guards the domain).
HopStat hop_in_ball(HopStat f, double factor = 1.0) {
  return [=](const HopInst& in, std::string& note) {
    const double R = hop_radius_d(in.Xi);
    {
      MpDigitsScope sc(50);
      mp_t s(0);
      for (std::size_t j = 0; j < in.x.size(); ++j) s += (mp_t(in.x[j]) - mp_t(in.Xi(in.mu, j))) * (mp_t(in.x[j]) - mp_t(in.Xi(in.mu, j)));
      if (boost::multiprecision::sqrt(s) > mp_t(factor * R) * (1 + mp_t(1e-13))) {
        note = "x outside the claim's ball";
        return static_cast<double>(NAN);
      }
    }
    return f(in, note);
  };
}

// The instance grid of the Thm 4.1 family (quick / full budgets of the spec grid).
HopGrid hop_thm_grid(const CheckConfig& cfg) {
  HopGrid G;
  if (cfg.quick) {
    G.ds = {2, 3, 8};
    G.Ms = {2, 3, 5, 10};
    G.g4_ds = {2, 3};
    G.betas = {0.1, 1, 8, 64};
  } else {
    G.ds = {2, 3, 4, 8, 16, 64};
    G.Ms = {2, 3, 5, 10, 20, 200};
    G.g4_ds = {2, 3, 4, 8};
    G.betas = {0.01, 0.1, 0.5, 1, 2, 4, 8, 16, 32, 64, 128};
  }
  return G;
}
std::string hop_grid_sizes(const HopGrid& G) {
  auto js = [](const auto& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ",") + fmt(static_cast<double>(x), 4);
    return "{" + s + "}";
  };
  return "d in " + js(G.ds) + " x M in " + js(G.Ms) + " (G1-G3), G4 at d in " + js(G.g4_ds) + ", beta in " + js(G.betas) +
         ", Q1-Q4 + Q6, masks random containing mu + top-K";
}

// One part (reading or step) of a bound claim.
struct HopPart {
  std::string name, statistic;
  HopStat f;
  bool log_ratio = true;
  std::size_t stride = 1;  // every stride-th grid instance
  bool search = true;      // run the adversarial searches for this part
};
struct HopRunOpts {
  std::function<bool(const HopInst&)> keep;  // grid filter (default: all)
  std::vector<HopInst> extra;                // structured instances, evaluated after the grid (cell "structured")
  double x_rad = 1.0;                        // query search ball radius, in units of R
  bool x_search = true, pattern_search = true;
  bool mask_search = true;                   // every mask containing mu (M <= 6) at the worst configurations
  bool freq = false;                         // violation frequency per cell with a 99% Clopper-Pearson interval
  std::string grid_tag = "A003-THM-4.1/grid";
};
struct HopBudget {
  int n_x, x_random, x_evals, n_pat, pat_evals;
};
HopBudget hop_budget(const CheckConfig& cfg) { return cfg.quick ? HopBudget{3, 2, 40, 2, 160} : HopBudget{12, 6, 120, 10, 600}; }

// One tally per part: the grid (cells "beta=<b>"), the structured extras, then the adversarial searches (cell "Q6")
// from the worst grid configurations (one per generator, M, d, beta, mask): the query search (hop_search_x), the mask
// search (every mask containing mu, M <= 6, at that query) and the pattern search (hop_search_patterns; d <= 3, M <= 4).
std::vector<HopTally> hop_run_tallies(const CheckConfig& cfg, const std::string& id, const std::vector<HopPart>& parts, const HopRunOpts& o,
                                      const HopGrid& G) {
  const std::vector<HopInst> grid = hop_grid_instances(G, tag_seed(cfg.seed, o.grid_tag));
  const HopBudget B = hop_budget(cfg);
  std::vector<HopTally> out;
  for (const HopPart& p : parts) {
    HopTally t;
    t.statistic = p.statistic;
    t.log_ratio = p.log_ratio;
    t.freq = o.freq;
    std::vector<std::pair<double, std::size_t>> ranked;
    for (std::size_t i = 0; i < grid.size(); i += p.stride) {
      if (o.keep && !o.keep(grid[i])) continue;
      const double v = t.add(grid[i], p.f, "beta=" + fmt(grid[i].beta, 3));
      if (!std::isnan(v)) ranked.emplace_back(v, i);
    }
    for (const HopInst& in : o.extra) t.add(in, p.f, "structured");
    if (p.search) {
      std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      Rng g(tag_seed(cfg.seed, id + "/search/" + p.name));
      std::set<std::string> seen;
      int nx = 0, np = 0;
      for (const auto& [v, i] : ranked) {
        const HopInst& in = grid[i];
        const std::string key = in.gen + "/" + std::to_string(in.Xi.rows) + "/" + std::to_string(in.Xi.cols) + "/" + fmt(in.beta) + "/" +
                                hop_mask_str(in.mask);
        if (!seen.insert(key).second) continue;
        if (o.x_search && nx < B.n_x) {
          ++nx;
          const HopInst sx = hop_search_x(in, p.f, g, B.x_random, B.x_evals, o.x_rad * ref::hopfield::radius(in.Xi));
          t.add(sx, p.f, "Q6");
          if (o.mask_search && in.Xi.rows <= 6) {
            HopInst best = sx;
            double bv = -INFINITY;
            const std::size_t M = in.Xi.rows;
            for (std::size_t bits = 0; bits < (std::size_t{1} << M); ++bits) {
              if (!((bits >> in.mu) & 1)) continue;
              HopInst c = sx;
              c.mask.clear();
              for (std::size_t j = 0; j < M; ++j)
                if ((bits >> j) & 1) c.mask.push_back(j);
              if (o.keep && !o.keep(c)) continue;
              const double cv = hop_eval_search(c, p.f);
              if (cv > bv) bv = cv, best = c;
            }
            best.query += " + mask search";
            if (bv > -INFINITY) t.add(best, p.f, "Q6");
          }
        }
        if (o.pattern_search && np < B.n_pat && in.Xi.cols <= 3 && in.Xi.rows <= 4) {
          ++np;
          t.add(hop_search_patterns(in, p.f, B.pat_evals, o.x_rad), p.f, "Q6");
        }
        if (nx >= B.n_x && np >= B.n_pat) break;
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}
// The claim row of a bound: one part's result, or the conjunction of the parts (claim_support::combine: violated if any
// part is, each part's verdict, worst value and witness in extra; the caller states the verdict rule in extra).
ClaimResult hop_run_parts(const CheckConfig& cfg, const std::string& id, const std::vector<HopPart>& parts, const HopRunOpts& o,
                          const HopGrid& G, std::vector<HopTally>* keep_tallies = nullptr) {
  std::vector<HopTally> ts = hop_run_tallies(cfg, id, parts, o, G);
  Parts res;
  for (std::size_t i = 0; i < parts.size(); ++i) res.emplace_back(parts[i].name, ts[i].result(cfg, hop_grid_sizes(G), tag_seed(cfg.seed, id)));
  ClaimResult r = res.size() == 1 ? res[0].second : combine(res, {PartSummary::instances_witness, true});
  if (res.size() > 1) r.evidence.sizes = hop_grid_sizes(G);
  if (keep_tallies) *keep_tallies = std::move(ts);
  return r;
}
// The U and R parts of a sparse bound with statistic builder f(reading), on the ball S_mu.
std::vector<HopPart> hop_readings(const std::string& stat, const std::function<HopStat(ref::hopfield::Reading)>& f) {
  return {HopPart{"U", "max " + stat, hop_in_ball(f(ref::hopfield::Reading::sparse_u))},
          HopPart{"R", "max " + stat, hop_in_ball(f(ref::hopfield::Reading::sparse_r))}};
}

// ---- helpers shared by the two files of a split claim section --------------------------------------------------
// Moved here unchanged from the section file that held them (hf:: / H:: spelled ref::hopfield::); the files named
// above each group use them.

// sparse_models.cpp, topk_separation_fixed_points.cpp:
// An exact (integer / set) predicate evaluated over instances visited smallest first: the first failure is the
// smallest witness; no doubled-digits step (nothing is rounded).
struct ExactTally {
  int n = 0, fails = 0;
  std::string first;
  void check(bool ok, const std::function<std::string()>& desc) {
    ++n;
    if (!ok && fails++ == 0) first = desc();
  }
  ClaimResult result(const CheckConfig& cfg, const std::string& statistic, const std::string& sizes, const std::string& holds) const {
    ClaimResult r;
    r.evidence.statistic = statistic;
    r.evidence.value = fails;
    r.evidence.threshold = 0;
    r.evidence.instances = n;
    r.evidence.sizes = sizes;
    r.evidence.seed = cfg.seed;
    if (n == 0) {
      r.verdict = Verdict::inconclusive;
      r.reason = "no instance evaluated";
    } else if (fails) {
      r.verdict = Verdict::violated;
      r.evidence.witness = first;
      r.reason = std::to_string(fails) + " of " + std::to_string(n) + " exact predicates fail (integer arithmetic: no rounding to re-verify)";
    } else {
      r.verdict = Verdict::holds;
      r.reason = holds;
    }
    return r;
  }
};

// well_separation.cpp, k_monotonicity_reduction.cpp: pattern sets
struct Set {
  std::string name;
  DM Xi;
};
// G1 / G2 at the (d, M) pairs, then the G4 families in g4_ds (those named in pick, or all); duplicate rows dropped.
std::vector<Set> sets_of(Rng& g, const std::vector<std::pair<std::size_t, std::size_t>>& dm, const std::vector<std::size_t>& g4_ds,
                         const std::vector<std::string>& pick) {
  std::vector<Set> out;
  for (const auto& [d, M] : dm)
    for (const char* gen : {"G1", "G2"}) {
      DM Xi = hop_patterns(g, gen, M, d);
      if (ref::hopfield::radius(Xi) > 0) out.push_back(Set{gen, Xi});
    }
  for (std::size_t d : g4_ds)
    for (auto& [name, Xi] : hop_g4_family(d, g))
      if ((pick.empty() || std::find(pick.begin(), pick.end(), name) != pick.end()) && Xi.rows >= 2 && ref::hopfield::radius(Xi) > 0) out.push_back(Set{name, Xi});
  return out;
}
const std::vector<std::string> kG4Pick{"G4-antipodal-pair", "G4-polygon-4", "G4-arc-pi/12-3", "G4-near-dup-1e-2", "G4-near-dup-1e-6",
                                       "G4-long-short", "G4-simplex-3", "G4-ortho-triple", "G4-sym-triple-pi/3", "G4-antipodal-cross"};

// dense_model.cpp, dense_dynamics.cpp:
mp_t pow10m(double e) { return pow(mp_t(10), mp_t(-e)); }
MV sub(const MV& a, const MV& b) {
  MV c(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) c[i] = a[i] - b[i];
  return c;
}
mp_t mp_max_abs(const MV& v) {
  mp_t m(0);
  for (const mp_t& x : v)
    if (abs(x) > m) m = abs(x);
  return m;
}
// central-difference gradient of f at x with step h (current digits)
MV fd_grad(const std::function<mp_t(const MV&)>& f, const MV& x, const mp_t& h) {
  MV g(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    MV xp = x, xm = x;
    xp[i] += h;
    xm[i] -= h;
    g[i] = (f(xp) - f(xm)) / (2 * h);
  }
  return g;
}
// dense instances: (gen, Xi, x, mu, beta) for the dense checks, smallest first
struct DenseSet {
  std::vector<std::size_t> ds, Ms, g4;
  std::vector<double> betas;
  std::vector<std::string> qs;
};
DenseSet dense_set(const CheckConfig& cfg) {
  if (cfg.quick) return {{2, 4}, {2, 3, 10}, {2}, {1, 8, 64}, {"Q1", "Q2", "Q5", "N"}};
  return {{2, 3, 4, 8}, {2, 3, 10, 30}, {2, 3}, {0.1, 1, 8, 64}, {"Q1", "Q2", "Q3", "Q4", "Q5", "N"}};
}
std::vector<HopInst> dense_instances(const DenseSet& S, std::uint64_t seed, int thin = 1) {
  Rng g(seed);
  std::vector<HopInst> out;
  int n = 0;
  auto add = [&](const std::string& gen, const DM& Xi) {
    if (Xi.rows < 2 || ref::hopfield::radius(Xi) <= 0) return;
    const std::size_t mu = hop_below(g, Xi.rows);
    const double R = ref::hopfield::radius(Xi);
    for (const std::string& q : S.qs) {
      std::vector<double> x = q == "N" ? hop_unit(g, Xi.cols) : hop_query(g, q, Xi, mu, R, 0.9);
      if (q == "N")
        for (double& v : x) v *= std::sqrt(static_cast<double>(Xi.cols)) * ref::hopfield::max_norm(Xi) / 2;
      for (double beta : S.betas) {
        const int idx = n++;  // thinning rotates its phase per query, so every beta of the grid is kept
        if ((idx + idx / static_cast<int>(S.betas.size())) % thin) continue;
        HopInst in;
        in.gen = gen;
        in.query = q == "N" ? "x~N(0,m^2 I/4)" : q;
        in.Xi = Xi;
        in.x = x;
        in.mu = mu;
        in.beta = beta;
        ref::hopfield::Mask all(Xi.rows);
        std::iota(all.begin(), all.end(), std::size_t{0});
        in.mask = all;
        out.push_back(std::move(in));
      }
    }
  };
  for (std::size_t d : S.ds)
    for (std::size_t M : S.Ms)
      for (const char* gen : {"G1", "G2", "G3"}) add(gen, hop_patterns(g, gen, M, d));
  for (std::size_t d : S.g4)
    for (const auto& [name, Xi] : hop_g4_family(d, g)) add(name, Xi);
  return out;
}
unsigned inst_digits(const HopInst& in, unsigned dg) {
  const double m = ref::hopfield::max_norm(in.Xi);
  return hop_padapt_digits(in.beta, std::max(hop_spread(in.Xi, in.x), 2 * m * m)) + (dg > 50 ? dg - 50 : 0);
}

// svr_retrieval.cpp, svr_representer.cpp: the SVR instances (problem (2.1) / (3.3) at the current digits) and the
// D-ALL tally with doubled-digit re-evaluation
enum class Fm { taylor, constant, normexp, prf };
struct Inst {
  std::string desc;
  DM X, Keys;  // targets xi_mu and inputs k_mu = xi_mu + dxi_mu (rows)
  Fm fm = Fm::taylor;
  unsigned N = 3;
  double beta = 1, C = 1, epsp = 0.1, eps = 1;  // cap = eps / sqrt(d)
  ref::hopfield::CapReading reading = ref::hopfield::CapReading::none;
  bool bias = false;
  ref::hopfield::PrfDraw prf;
};
std::string fm_name(const Inst& in) {
  switch (in.fm) {
    case Fm::taylor: return "Taylor N=" + std::to_string(in.N) + " beta=" + fmt(in.beta);
    case Fm::constant: return "Phi=1";
    case Fm::normexp: return "normalised exp beta=" + fmt(in.beta);
    default: return "PRF n_f=" + std::to_string(in.prf.n_f()) + " beta=" + fmt(in.beta);
  }
}
std::string inst_desc(const Inst& in, const std::string& gen) {
  return gen + " M=" + std::to_string(in.X.rows) + " d=" + std::to_string(in.X.cols) + " " + fm_name(in) + " " + ref::hopfield::cap_reading_name(in.reading) +
         (in.bias ? " bias" : "") + " C=" + fmt(in.C) + " eps'=" + fmt(in.epsp) + (in.reading != ref::hopfield::CapReading::none ? " eps=" + fmt(in.eps) : "");
}
template <class S> S kernel_of(const Inst& in, const ref::Matrix<S>& K, const S* x, const S* y) {
  const std::size_t d = K.cols;
  switch (in.fm) {
    case Fm::taylor: return ref::hopfield::taylor_kernel(x, y, d, S(in.beta), in.N);
    case Fm::constant: return S(1);
    case Fm::normexp: return ref::hopfield::normalised_exp_kernel(K, x, y, S(in.beta));
    default: return ref::hopfield::prf_kernel_estimate(in.prf, ref::Vector<S>(x, x + d), ref::Vector<S>(y, y + d), S(in.beta));
  }
}
// the problem at the current digits
ref::hopfield::SvrProblem<mp_t> problem(const Inst& in) {
  const MM K = to_mp(in.Keys);
  ref::hopfield::SvrProblem<mp_t> p;
  p.G = ref::hopfield::gram_from_kernel(K, [&](const mp_t* a, const mp_t* b) { return kernel_of(in, K, a, b); });
  p.Y = to_mp(in.X);
  p.C = mp_t(in.C);
  p.eps_prime = mp_t(in.epsp);
  p.cap = ref::hopfield::cap_of(mp_t(in.eps), in.X.cols);
  p.reading = in.reading;
  p.bias = in.bias;
  return p;
}
MM taylor_rows(const Inst& in) {
  const MM K = to_mp(in.Keys);
  MM Phi(K.rows, ref::hopfield::taylor_dim(K.cols, in.N));
  for (std::size_t mu = 0; mu < K.rows; ++mu) {
    const MV f = ref::hopfield::taylor_features(K.row(mu), K.cols, mp_t(in.beta), in.N);
    for (std::size_t j = 0; j < f.size(); ++j) Phi(mu, j) = f[j];
  }
  return Phi;
}
DM memories(Rng& g, const std::string& gen, std::size_t M, std::size_t d) { return hop_patterns(g, gen, M, d, 1.0); }
Inst base(const DM& X, Fm fm, unsigned N, double beta) {
  Inst in;
  in.X = X;
  in.Keys = X;
  in.fm = fm;
  in.N = N;
  in.beta = beta;
  return in;
}
double thr_id(unsigned D) { return std::pow(10.0, -static_cast<double>(D) + 20.0); }
double cap_d(double v) { return std::isfinite(v) ? v : 1e300; }

// D-ALL tally: stat at D; a value above thr(D) is re-evaluated at 2D and counts when it fails there too (until the first
// confirmed failure, the witness: later failures are not re-evaluated).
void tally(DoubledDigitsTally& t, unsigned D, const std::string& desc, const std::function<double(unsigned)>& stat,
           const std::function<double(unsigned)>& thr) {
  const double v = nan_inf(stat(D));
  ++t.n;
  if (t.worst_desc.empty() || v > t.worst) t.worst = v, t.worst_desc = desc;
  if (v <= thr(D) || t.failed) return;
  const double v2 = nan_inf(stat(2 * D));
  if (!(v2 <= thr(2 * D))) {
    if (!t.failed) {
      t.failed = true;
      t.witness = desc;
      t.witness_value = cap_d(v);
      t.witness_value_2x = fmt(v2) + " at " + std::to_string(2 * D) + " digits";
    }
  } else if (!t.failed && !t.unconfirmed) {
    t.unconfirmed = true;
    t.witness = desc;
    t.witness_value = cap_d(v);
    t.witness_value_2x = fmt(v2) + " at " + std::to_string(2 * D) + " digits (passes)";
  }
}
ClaimResult finish(const CheckConfig& cfg, const DoubledDigitsTally& t, const std::string& stat, double thr, const std::string& sizes,
                   const std::string& holds) {
  ClaimResult r;
  r.evidence.statistic = stat;
  r.evidence.threshold = thr;
  r.evidence.instances = t.n;
  r.evidence.sizes = sizes;
  r.evidence.digits = cfg.digits;
  r.evidence.seed = cfg.seed;
  DoubledDigitsTally u = t;
  u.worst = cap_d(u.worst);
  decide_doubled_digits(u, cfg.digits, "witness at doubled digits", holds, r);
  return r;
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support
