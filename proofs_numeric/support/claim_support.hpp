// Internal helpers shared by the claim checks in proofs_numeric/<paper>/<section>.cpp (not a public header):
// instance seeds, number formatting, the std::mt19937_64 / Box-Muller generators, mp residuals,
// the per-instance "where" bookkeeping around IdentityCheck, the combination of a claim's sub-results
// and the log-log scaling fit of R-SCALE. Each helper here was written identically in several claim
// files; the files keep local versions only where their behaviour differs (another RNG stream,
// normalisation or evidence text), since every claim's evidence must stay reproducible.
// The helpers have internal linkage (an unnamed namespace) and no `inline` hints, exactly like the
// per-file copies they replace: GCC's inlining decisions, and with them the contraction of double
// products into FMAs (-O3 -march=native), stay those of a file-local function, so every claim's
// figures stay bit-identical (an `inline` gauss() moved a statistical claim's value by one ulp).
// Only small helpers live here; no heavy MP template is instantiated unless a file uses it.
#pragma once

#include "recall/proofs/ledger.hpp"
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/matrix.hpp"
#include "recall/reference/scalar.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <source_location>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace recall::claim_support {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

using DM = ref::Matrix<double>;
using MM = ref::Matrix<mp_t>;
using MV = ref::Vector<mp_t>;
using Rng = std::mt19937_64;

// ---- seeds ------------------------------------------------------------------------------------

// splitmix64 finaliser (with its golden-ratio increment)
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}
// 64-bit FNV-1a of a tag
std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}
// seed of stream b under seed a: splitmix64(a + phi (b + 1))
std::uint64_t mix(std::uint64_t a, std::uint64_t b) { return splitmix64(a + 0x9E3779B97F4A7C15ULL * b); }
// seed of a claim's instances: mix(seed, fnv1a(tag))
std::uint64_t tag_seed(std::uint64_t seed, const std::string& tag) { return mix(seed, fnv1a(tag)); }

// ---- formatting and conversions -----------------------------------------------------------------

std::string fmt(double x, int prec = 3) {
  std::ostringstream s;
  s.precision(prec);
  s << x;
  return s.str();
}
double to_d(const mp_t& x) { return static_cast<double>(x); }
// log10 of a positive mp value (no double overflow); -inf for x <= 0
double lg(const mp_t& x) { return x > 0 ? to_d(boost::multiprecision::log10(x)) : -INFINITY; }
double nan_inf(double r) { return std::isnan(r) ? INFINITY : r; }
MM to_mp(const DM& m) { return ref::cast<mp_t>(m); }
MV to_mp(const std::vector<double>& v) { return ref::cast<mp_t>(v); }

// ---- generators on std::mt19937_64 (spec C10: G1 Gaussian, G2 structured keys) -------------------

DM gauss(Rng& g, std::size_t r, std::size_t c, double scale = 1.0) {
  std::normal_distribution<double> N(0.0, 1.0);
  DM m(r, c);
  for (double& x : m.a) x = scale * N(g);
  return m;
}
// n draws of U(lo, hi)
std::vector<double> uniform_vec(Rng& g, std::size_t n, double lo = 0.0, double hi = 1.0) {
  std::uniform_real_distribution<double> U(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = U(g);
  return v;
}
// row i scaled to unit norm (a zero row stays zero)
void normalize_row(DM& m, std::size_t i) {
  double s = 0;
  for (std::size_t j = 0; j < m.cols; ++j) s += m(i, j) * m(i, j);
  s = std::sqrt(s);
  if (s > 0)
    for (std::size_t j = 0; j < m.cols; ++j) m(i, j) /= s;
}

// G2 key kinds (the callers pick their subsets)
enum class Keys { gauss, sphere, ortho, repeated, nearpar, zero, onehot, t3 };
const char* keys_name(Keys k) {
  switch (k) {
    case Keys::gauss: return "gauss";
    case Keys::sphere: return "sphere";
    case Keys::ortho: return "orthonormal";
    case Keys::repeated: return "repeated";
    case Keys::nearpar: return "near-parallel";
    case Keys::zero: return "zero-key";
    case Keys::onehot: return "one-hot";
    case Keys::t3: return "student-t3";
  }
  return "?";
}
// n x d key rows of the given kind, multiplied by `scale`. Every kind first draws the n x d
// Gaussian block, then (kinds that need it) its own further draws.
DM key_rows(Rng& g, Keys kind, std::size_t n, std::size_t d, double scale = 1.0) {
  std::normal_distribution<double> N(0.0, 1.0);
  DM m = gauss(g, n, d);
  switch (kind) {
    case Keys::gauss: break;
    case Keys::sphere:
      for (std::size_t i = 0; i < n; ++i) normalize_row(m, i);
      break;
    case Keys::ortho:  // Gram-Schmidt on the first min(n, d) rows, the rest on the sphere
      for (std::size_t i = 0; i < n; ++i) {
        if (i < d)
          for (std::size_t p = 0; p < i; ++p) {
            double c = 0;
            for (std::size_t j = 0; j < d; ++j) c += m(i, j) * m(p, j);
            for (std::size_t j = 0; j < d; ++j) m(i, j) -= c * m(p, j);
          }
        normalize_row(m, i);
      }
      break;
    case Keys::repeated: {  // rows drawn from a pool of two distinct rows (exact repeats)
      DM pool = gauss(g, 2, d);
      std::uniform_int_distribution<int> U(0, 1);
      for (std::size_t i = 0; i < n; ++i) {
        const int p = i < 2 ? static_cast<int>(i) : U(g);
        for (std::size_t j = 0; j < d; ++j) m(i, j) = pool(p, j);
      }
      break;
    }
    case Keys::nearpar: {  // cos >= 1 - 1e-8 to a common direction
      DM u = gauss(g, 1, d);
      normalize_row(u, 0);
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < d; ++j) m(i, j) = u(0, j) + 1e-5 * N(g);
        normalize_row(m, i);
      }
      break;
    }
    case Keys::zero: {  // one zero row (the middle one, 1-based ceil(n/2))
      const std::size_t z = (n + 1) / 2 - 1;
      for (std::size_t j = 0; j < d; ++j) m(z, j) = 0;
      break;
    }
    case Keys::onehot: {
      std::uniform_int_distribution<std::size_t> U(0, d - 1);
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t h = U(g);
        for (std::size_t j = 0; j < d; ++j) m(i, j) = j == h ? 1.0 : 0.0;
      }
      break;
    }
    case Keys::t3: {
      std::student_t_distribution<double> St(3.0);
      for (double& x : m.a) x = St(g);
      break;
    }
  }
  if (scale != 1.0)
    for (double& x : m.a) x *= scale;
  return m;
}

// Gaussian draws from std::mt19937_64 by Box-Muller (std::normal_distribution is implementation-defined,
// this is not, so a seed reproduces the same instance with any standard library).
class Gauss {
 public:
  explicit Gauss(std::uint64_t s) : g_(s) {}
  double uniform() { return (static_cast<double>(g_() >> 11) + 0.5) * 0x1.0p-53; }  // in (0,1)
  double normal() {
    if (has_) {
      has_ = false;
      return spare_;
    }
    const double r = std::sqrt(-2.0 * std::log(uniform())), a = 6.283185307179586476925286766559 * uniform();
    spare_ = r * std::sin(a);
    has_ = true;
    return r * std::cos(a);
  }

 private:
  std::mt19937_64 g_;
  bool has_ = false;
  double spare_ = 0;
};
DM gauss_matrix(std::size_t r, std::size_t c, Gauss& g, double scale = 1.0) {
  DM m(r, c);
  for (double& x : m.a) x = scale * g.normal();
  return m;
}

// ---- small matrix helpers (scalar-generic) --------------------------------------------------------

// the first t rows of X
template <class S> ref::Matrix<S> head_rows(const ref::Matrix<S>& X, std::size_t t) {
  ref::Matrix<S> out(t, X.cols);
  for (std::size_t i = 0; i < t * X.cols; ++i) out.a[i] = X.a[i];
  return out;
}
// the first t entries of x
template <class S> ref::Vector<S> head(const ref::Vector<S>& x, std::size_t t) {
  return ref::Vector<S>(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(t));
}
// the rows from (0-based) onwards
template <class S> ref::Matrix<S> tail_rows(const ref::Matrix<S>& X, std::size_t from) {
  ref::Matrix<S> out(X.rows - from, X.cols);
  for (std::size_t i = 0; i < out.a.size(); ++i) out.a[i] = X.a[from * X.cols + i];
  return out;
}
// a vector as a 1 x n matrix
template <class S> ref::Matrix<S> as_row(const ref::Vector<S>& x) {
  ref::Matrix<S> m(1, x.size());
  for (std::size_t i = 0; i < x.size(); ++i) m.a[i] = x[i];
  return m;
}
// row i of X as a vector
template <class S> ref::Vector<S> row_vec(const ref::Matrix<S>& X, std::size_t i) {
  return ref::Vector<S>(X.row(i), X.row(i) + X.cols);
}

// Cholesky solve A x = b in place for a symmetric positive definite A (plain loops); false when a
// pivot is not positive.
template <class S> bool chol_solve(const ref::Matrix<S>& A, ref::Vector<S>& b) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  const std::size_t n = A.rows;
  ref::require(A.cols == n && b.size() == n, "chol_solve: shapes");
  ref::Matrix<S> L(n, n);
  for (std::size_t j = 0; j < n; ++j) {
    S s = A(j, j);
    for (std::size_t k = 0; k < j; ++k) s -= L(j, k) * L(j, k);
    if (!(s > 0)) return false;
    L(j, j) = sqrt(s);
    for (std::size_t i = j + 1; i < n; ++i) {
      S u = A(i, j);
      for (std::size_t k = 0; k < j; ++k) u -= L(i, k) * L(j, k);
      L(i, j) = u / L(j, j);
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < i; ++k) b[i] -= L(i, k) * b[k];
    b[i] /= L(i, i);
  }
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t k = i + 1; k < n; ++k) b[i] -= L(k, i) * b[k];
    b[i] /= L(i, i);
  }
  return true;
}

// Closed-form gated state at 1-based t: sum_{i<=t} exp(segsum(i,t)) v_i k_i^T (+ prod_{j<=t} a_j S0).
template <class S>
ref::Matrix<S> gated_state_closed(const ref::Matrix<S>& K, const ref::Matrix<S>& V, const ref::Vector<S>& lg, std::size_t t,
                                  const std::type_identity_t<ref::Matrix<S>>* S0 = nullptr) {
  ref::Matrix<S> R(V.cols, K.cols);
  for (std::size_t i = 0; i < t; ++i) ref::add_outer(R, ref::exp_log(ref::segment_log_sum(lg, i, t - 1)), V.row(i), K.row(i));
  if (S0) {
    S all(0);
    for (std::size_t j = 0; j < t; ++j) all += lg[j];
    const S w = ref::exp_log(all);
    for (std::size_t i = 0; i < R.a.size(); ++i) ref::muladd(R.a[i], w, S0->a[i]);
  }
  return R;
}

// One rotation of the cyclic Jacobi eigen-iteration for a symmetric A, annihilating A(p,q) (nonzero):
// A <- J^T A J and Vec <- Vec J, at the current digits.
void jacobi_rotate(MM& A, MM& Vec, std::size_t p, std::size_t q) {
  const std::size_t n = A.rows;
  const mp_t theta = (A(q, q) - A(p, p)) / (mp_t(2) * A(p, q));
  const mp_t t = (theta >= 0 ? mp_t(1) : mp_t(-1)) / (abs(theta) + sqrt(mp_t(theta * theta + 1)));
  const mp_t c = mp_t(1) / sqrt(mp_t(t * t + 1)), s = t * c;
  for (std::size_t k = 0; k < n; ++k) {
    const mp_t akp = A(k, p), akq = A(k, q);
    A(k, p) = c * akp - s * akq;
    A(k, q) = s * akp + c * akq;
  }
  for (std::size_t k = 0; k < n; ++k) {
    const mp_t apk = A(p, k), aqk = A(q, k);
    A(p, k) = c * apk - s * aqk;
    A(q, k) = s * apk + c * aqk;
  }
  for (std::size_t k = 0; k < n; ++k) {
    const mp_t vkp = Vec(k, p), vkq = Vec(k, q);
    Vec(k, p) = c * vkp - s * vkq;
    Vec(k, q) = s * vkp + c * vkq;
  }
}

// ---- mp residuals (R-ID, spec C9) -------------------------------------------------------------------

mp_t mp_max1(const mp_t& a, const mp_t& b) {
  mp_t m(1);
  if (a > m) m = a;
  if (b > m) m = b;
  return m;
}
// ||A - B||_F / max(1, ||A||_F, ||B||_F), in S; shapes must agree
template <class S> double rel_res(const ref::Matrix<S>& A, const ref::Matrix<S>& B) {
  const S d = ref::frob_diff(A, B);
  S den(1);
  const S na = ref::frob(A), nb = ref::frob(B);
  if (na > den) den = na;
  if (nb > den) den = nb;
  return ref::convert<double>(S(d / den));
}
// ||A - B||_F / max(1, ||A||_F, ||B||_F); INFINITY for a shape mismatch or NaN
double matrel(const MM& A, const MM& B) {
  if (A.rows != B.rows || A.cols != B.cols) return INFINITY;
  return nan_inf(to_d(mp_t(ref::frob_diff(A, B) / mp_max1(ref::frob(A), ref::frob(B)))));
}
// ||a - b|| / max(1, ||a||, ||b||); INFINITY for a length mismatch or NaN
double vecrel(const MV& a, const MV& b) {
  if (a.size() != b.size()) return INFINITY;
  mp_t d(0), x(0), y(0), t;
  for (std::size_t i = 0; i < a.size(); ++i) {
    t = a[i] - b[i];
    ref::muladd(d, t, t);
    ref::muladd(x, a[i], a[i]);
    ref::muladd(y, b[i], b[i]);
  }
  return nan_inf(to_d(mp_t(sqrt(d) / mp_max1(sqrt(x), sqrt(y)))));
}
// max over rows t of ||A_t - B_t|| / max(1, ||A_t||, ||B_t||); *arg = 0-based worst row.
double rowrel(const MM& A, const MM& B, std::size_t* arg = nullptr) {
  if (A.rows != B.rows || A.cols != B.cols) return INFINITY;
  double worst = 0;
  if (arg) *arg = 0;
  for (std::size_t t = 0; t < A.rows; ++t) {
    const MV a(A.row(t), A.row(t) + A.cols), b(B.row(t), B.row(t) + B.cols);
    const double r = vecrel(a, b);
    if (r > worst || t == 0) {
      worst = r;
      if (arg) *arg = t;
    }
  }
  return worst;
}
// |a - b| / max(1, |a|, |b|)
double screl(const mp_t& a, const mp_t& b) { return nan_inf(to_d(mp_t(abs(mp_t(a - b)) / mp_max1(abs(a), abs(b))))); }

// ---- bookkeeping of identity checks -------------------------------------------------------------------

// Tracks the worst residual of several comparisons inside one instance, with where it occurred.
struct Worst {
  double r = 0;
  std::string where;
  void upd(double x, const std::string& w) {
    if (std::isnan(x)) x = INFINITY;
    if (x > r || where.empty()) {
      r = x;
      where = w;
    }
  }
  // rows: records the 1-based token of the worst row
  void rows(const MM& A, const MM& B, const std::string& form) {
    std::size_t t = 0;
    const double x = rowrel(A, B, &t);
    upd(x, form + " t=" + std::to_string(t + 1));
  }
};

// IdentityCheck plus the location (form, 1-based index) of the residual inside each instance.
class Checker {
 public:
  Checker(std::string statistic, unsigned digits, double cond = 1.0) : ic_(std::move(statistic), digits, cond) {}
  bool add(const std::string& desc, const std::function<double(unsigned, std::string&)>& fn) {
    if (stopped_) return false;
    const bool ok = ic_.add(desc, [&](unsigned dg) {
      std::string w;
      const double r = fn(dg, w);
      where_[desc] = w;
      return r;
    });
    if (!ok) stopped_ = true;
    return ok;
  }
  void exclude(const std::string& desc, const std::string& why) {
    ic_.exclude(desc, why);
    ++excluded_;
  }
  bool stopped() const { return stopped_; }
  int excluded() const { return excluded_; }
  ClaimResult result(const CheckConfig& cfg, const std::string& sizes) const {
    ClaimResult r = ic_.result(cfg, sizes);
    auto it = where_.find(r.evidence.witness);
    if (it != where_.end() && !it->second.empty()) r.evidence.witness += " [" + it->second + "]";
    return r;
  }

 private:
  IdentityCheck ic_;
  std::map<std::string, std::string> where_;
  bool stopped_ = false;
  int excluded_ = 0;
};

// ---- combining the sub-checks of one claim --------------------------------------------------------------

using Parts = std::vector<std::pair<std::string, ClaimResult>>;

// Which part heads a combined result: the first violated one, else the first inconclusive one, else
// (all hold) the one with the largest value/threshold (largest_ratio) or the first one.
int headline_part(const Parts& parts, bool largest_ratio = true) {
  int pick = -1;
  for (std::size_t i = 0; i < parts.size() && pick < 0; ++i)
    if (parts[i].second.verdict == Verdict::violated) pick = static_cast<int>(i);
  for (std::size_t i = 0; i < parts.size() && pick < 0; ++i)
    if (parts[i].second.verdict == Verdict::inconclusive) pick = static_cast<int>(i);
  if (pick < 0 && !largest_ratio) pick = 0;
  if (pick < 0) {
    double best = -1;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const auto& e = parts[i].second.evidence;
      const double q = e.threshold > 0 ? e.value / e.threshold : e.value;
      if (q > best) {
        best = q;
        pick = static_cast<int>(i);
      }
    }
  }
  return pick;
}

// How each part is summarised in the combined evidence ("part <name>": verdict; statistic = value (...)).
enum class PartSummary {
  instances,          // (threshold t, N instances)
  instances_witness,  // (threshold t, N instances; worst/witness: W)
  reason,             // (threshold t); reason
};
struct CombineStyle {
  PartSummary summary = PartSummary::instances;
  bool largest_ratio = true;  // headline when all hold: largest value/threshold (else the first part)
};

// Combine the results of several sub-checks of one claim: violated if any is violated (the first
// such gives the witness), else inconclusive if any is, else holds; every part is summarised in extra,
// with the extra figures of the parts other than the headline; instances add up; sizes are joined.
ClaimResult combine(const Parts& parts, CombineStyle style = {}) {
  const int pick = headline_part(parts, style.largest_ratio);
  ClaimResult out = parts[pick].second;
  out.reason = "[" + parts[pick].first + "] " + out.reason;
  out.evidence.statistic = parts[pick].first + ": " + out.evidence.statistic;
  int inst = 0;
  std::string sizes;
  for (const auto& [name, r] : parts) {
    inst += r.evidence.instances;
    std::string s = std::string(verdict_name(r.verdict)) + "; " + r.evidence.statistic + " = " + fmt(r.evidence.value) +
                    " (threshold " + fmt(r.evidence.threshold);
    switch (style.summary) {
      case PartSummary::instances: s += ", " + std::to_string(r.evidence.instances) + " instances)"; break;
      case PartSummary::instances_witness:
        s += ", " + std::to_string(r.evidence.instances) + " instances; worst/witness: " + r.evidence.witness + ")";
        break;
      case PartSummary::reason: s += "); " + r.reason; break;
    }
    out.evidence.extra.emplace_back("part " + name, s);
    if (&r != &parts[pick].second)
      for (const auto& x : r.evidence.extra) out.evidence.extra.emplace_back(name + ": " + x.first, x.second);
    if (!sizes.empty()) sizes += "; ";
    sizes += name + ": " + r.evidence.sizes;
  }
  out.evidence.instances = inst;
  out.evidence.sizes = sizes;
  return out;
}

// ---- registration ----------------------------------------------------------------------------------

// add(id, title, check_class, internal, check): registers a Claim in l.
// add(id, title, class, internal, check): registers the claim with the call site's file and line
// (recall list's `where` column).
auto claim_adder(Ledger& l) {
  return [lp = &l](const char* id, const char* title, const char* cls, bool internal, std::function<ClaimResult(const CheckConfig&)> f,
                   std::source_location at = std::source_location::current()) {
    lp->add(Claim{id, title, cls, internal, std::move(f), at.file_name(), at.line()});
  };
}

// ---- feature maps -------------------------------------------------------------------------------------

// A feature map of the given kind and parameters (order: p of poly, M of exp_trunc; nu: DPFP),
// optionally sum- or L2-normalised (the A004-PHI-SET wrappers).
ref::FeatureMap fmap(ref::FeatureMapKind k, int order = 2, int nu = 1, bool sumn = false, bool l2n = false) {
  ref::FeatureMap f;
  f.kind = k;
  f.order = order;
  f.nu = nu;
  f.sum_normalize = sumn;
  f.l2_normalize = l2n;
  return f;
}
// the map is defined as intended at input width d (DPFP needs 2d > nu)
bool fmap_ok(const ref::FeatureMap& f, std::size_t d) {
  return f.kind != ref::FeatureMapKind::dpfp || 2 * d > static_cast<std::size_t>(f.nu);
}
// Apply a feature map, reporting a zero-vector normalisation (the wrappers' throw) as false.
bool try_map(const ref::FeatureMap& f, const MM& X, MM& out) {
  try {
    out = ref::apply_feature_map(f, X);
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

// ---- statistics and scaling fits (R-SCALE, spec README §2) -----------------------------------------------

// OLS slope of y on x
double ols_slope(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n = x.size();
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  return sxy / sxx;
}

// mean with a 95% confidence interval
struct Ci {
  double mean = 0, lo = 0, hi = 0;
};
// B bootstrap resamples of the mean of x (n indices floor(u n), u = g.uniform(), per resample), sorted
// ascending; the callers read their percentile CIs off it.
std::vector<double> bootstrap_sorted_means(const std::vector<double>& x, Gauss& g, int B) {
  const std::size_t n = x.size();
  std::vector<double> means(static_cast<std::size_t>(B));
  for (int b = 0; b < B; ++b) {
    double acc = 0;
    for (std::size_t i = 0; i < n; ++i) acc += x[std::min(n - 1, static_cast<std::size_t>(g.uniform() * n))];
    means[static_cast<std::size_t>(b)] = acc / static_cast<double>(n);
  }
  std::sort(means.begin(), means.end());
  return means;
}
std::string fmt_ci(const Ci& c, int p = 3) { return fmt(c.mean, p) + " [" + fmt(c.lo, p) + ", " + fmt(c.hi, p) + "]"; }

// 97.5% quantile of Student's t with df degrees of freedom (table to 30, then 1.96 + 2.4/df)
double t975(int df) {
  static const double tab[31] = {0,      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                 2.201,  2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080,
                                 2.074,  2.069,  2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df <= 0) return INFINITY;
  if (df <= 30) return tab[df];
  return 1.96 + 2.4 / df;  // close to the t quantile for df > 30
}

struct Fit {
  double slope = 0, lo = 0, hi = 0, intercept = 0;
  int points = 0;
  bool degenerate = false;  // residuals zero to rounding: the CI is the point
  std::string str(int prec = 6, const char* degenerate_note = " (exact fit, degenerate CI)") const {
    return fmt(slope, prec) + " [" + fmt(lo, prec) + ", " + fmt(hi, prec) + "]" + (degenerate ? degenerate_note : "") + " over " +
           std::to_string(points) + " points";
  }
};
// Least squares y = a + b x over every point, 95% t-interval of the slope from the residuals (fewer than
// 3 points: an infinite interval); residuals at the rounding level of y give a degenerate interval.
Fit linear_fit(const std::vector<double>& x, const std::vector<double>& y) {
  Fit f;
  f.points = static_cast<int>(x.size());
  if (x.empty()) {
    f.lo = -INFINITY;
    f.hi = INFINITY;
    return f;
  }
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= x.size();
  my /= y.size();
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  f.slope = sxx > 0 ? sxy / sxx : 0;
  f.intercept = my - f.slope * mx;
  double ssr = 0, scale = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double e = y[i] - (f.intercept + f.slope * x[i]);
    ssr += e * e;
    scale = std::max(scale, std::fabs(y[i]));
  }
  const int df = f.points - 2;
  const double se = (df > 0 && sxx > 0) ? std::sqrt(ssr / df / sxx) : INFINITY;
  // residuals at the rounding level (exact counts): degenerate CI
  if (df > 0 && std::sqrt(ssr / std::max(1, f.points)) <= 64 * 2.3e-16 * std::max(1.0, scale)) {
    f.degenerate = true;
    f.lo = f.hi = f.slope;
  } else {
    const double h = t975(df) * se;
    f.lo = f.slope - h;
    f.hi = f.slope + h;
  }
  return f;
}
// Least squares of log y on log x over the upper half of the x range (by position; x ascending),
// 95% t-interval of the slope from the regression residuals.
Fit loglog_fit(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n = x.size();
  const std::size_t m = std::max<std::size_t>(3, (n + 1) / 2);
  const std::size_t s = n > m ? n - m : 0;
  std::vector<double> lx, ly;
  for (std::size_t i = s; i < n; ++i) {
    lx.push_back(std::log(x[i]));
    ly.push_back(std::log(y[i]));
  }
  return linear_fit(lx, ly);
}
// R-SCALE decision for O(n^e)
Verdict decide_upper(const Fit& f, double e) {
  if (f.hi <= e + 0.05) return Verdict::holds;
  if (f.lo > e + 0.05) return Verdict::violated;
  return Verdict::inconclusive;
}
// R-SCALE decision for an exact order n^e: the CI within [e - 0.05, e + 0.05] holds, entirely outside it violated
Verdict decide_exact(const Fit& f, double e) {
  if (f.lo >= e - 0.05 && f.hi <= e + 0.05) return Verdict::holds;
  if (f.hi < e - 0.05 || f.lo > e + 0.05) return Verdict::violated;
  return Verdict::inconclusive;
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support
