// Claim checks of the T1 linear-attention family from seeds A000 (associative memory) and A001
// (test-time regression): outer-product / kernel / gated memories, feature maps, normalised and
// gated linear attention, the SSD equivalence, the parallel / chunked fast forms and the
// "one gradient step" readings. Every verdict is computed from the references in reference/
// instantiated with recall::mp_t (P-50 by default; a failing instance is re-evaluated at doubled
// digits before it is recorded). Instances are drawn from std::mt19937_64 seeded by
// splitmix64(cfg.seed ^ fnv1a(tag) ^ splitmix64(n)) (n = instance number), smallest sizes first;
// every witness names its sizes, generator and instance seed, with 1-based indices.
#include "recall/proofs/claims.hpp"
#include "recall/proofs/ledger.hpp"

#include "recall/reference/feature_maps.hpp"
#include "recall/reference/forms.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/ttt.hpp"
#include "claim_support.hpp"

#include <boost/math/constants/constants.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;

using ref::Matrix;
using ref::Vector;
using MM = Matrix<mp_t>;
using MD = Matrix<double>;
using VM = Vector<mp_t>;

// ---------------------------------------------------------------------------------------------
// seeds, formatting
// ---------------------------------------------------------------------------------------------

std::uint64_t instance_seed(const CheckConfig& cfg, std::string_view tag, std::uint64_t n) {
  return splitmix64(cfg.seed ^ fnv1a(tag) ^ splitmix64(n));
}
std::string hex(std::uint64_t x) {
  std::ostringstream s;
  s << "0x" << std::hex << x;
  return s.str();
}
template <class T> std::string join(const std::vector<T>& v, const char* sep = ",") {
  std::ostringstream s;
  for (std::size_t i = 0; i < v.size(); ++i) s << (i ? sep : "") << v[i];
  return s.str();
}
std::string seed_note(const CheckConfig& cfg, std::string_view tag) {
  return "instance seeds splitmix64(" + std::to_string(cfg.seed) + " ^ fnv1a(\"" + std::string(tag) +
         "\") ^ splitmix64(n)), std::mt19937_64";
}

// ---------------------------------------------------------------------------------------------
// generators (double data; converted exactly to mp_t inside each residual callback)
// ---------------------------------------------------------------------------------------------

struct Gen {
  std::mt19937_64 g;
  explicit Gen(std::uint64_t s) : g(s) {}
  double normal() { return std::normal_distribution<double>(0.0, 1.0)(g); }
  double unif() { return std::uniform_real_distribution<double>(0.0, 1.0)(g); }
  int integer(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); }
  template <class T> const T& pick(const std::vector<T>& v) { return v[static_cast<std::size_t>(integer(0, static_cast<int>(v.size()) - 1))]; }
  MD gauss(std::size_t r, std::size_t c, double scale = 1.0) {
    MD m(r, c);
    for (double& x : m.a) x = scale * normal();
    return m;
  }
  MD ints(std::size_t r, std::size_t c, int lo, int hi) {
    MD m(r, c);
    for (double& x : m.a) x = integer(lo, hi);
    return m;
  }
};

// G1 key scaling (A001 C8: none, D_k^{-1/2}, a common factor 10^a, a in [-3, 3]) and the adversarial
// key sets of A001 G3 / A000 C6 (zero keys, exact repeats, near-duplicates at 10^-k, nearly parallel keys).
struct KeyScale {
  double factor = 1;
  std::string desc = "keys x1";
};
KeyScale draw_key_scale(Gen& g, std::size_t dk) {
  KeyScale s;
  const double u = g.unif();
  if (u < 0.6) return s;
  if (u < 0.8) {
    s.factor = 1.0 / std::sqrt(static_cast<double>(dk));
    s.desc = "keys x Dk^-1/2";
  } else {
    const double a = -3.0 + 6.0 * g.unif();
    s.factor = std::pow(10.0, a);
    s.desc = "keys x 10^" + fmt(a, 3);
  }
  return s;
}
KeyScale key_variant(Gen& g, MD& K) {
  const std::size_t T = K.rows, d = K.cols;
  const double u = g.unif();
  KeyScale s;
  auto rows_desc = [](const std::vector<std::size_t>& r) { return join(r); };
  if (u < 0.45 || (T < 2 && u >= 0.79)) return s;
  if (u < 0.72) {
    s = draw_key_scale(g, d);
    if (s.factor == 1) { s.factor = 1.0 / std::sqrt(static_cast<double>(d)); s.desc = "keys x Dk^-1/2"; }
    for (double& x : K.a) x *= s.factor;
    return s;
  }
  if (u < 0.79) {  // zero keys
    std::vector<std::size_t> z;
    const int nz = g.integer(1, std::max(1, static_cast<int>(T) / 3));
    for (int i = 0; i < nz; ++i) z.push_back(static_cast<std::size_t>(g.integer(0, static_cast<int>(T) - 1)));
    std::sort(z.begin(), z.end());
    z.erase(std::unique(z.begin(), z.end()), z.end());
    for (std::size_t r : z) for (std::size_t c = 0; c < d; ++c) K(r, c) = 0.0;
    for (std::size_t& r : z) ++r;
    s.desc = "G3 zero keys at rows " + rows_desc(z);
    return s;
  }
  const std::size_t a = static_cast<std::size_t>(g.integer(0, static_cast<int>(T) - 2));
  const std::size_t b = static_cast<std::size_t>(g.integer(static_cast<int>(a) + 1, static_cast<int>(T) - 1));
  if (u < 0.86) {  // exact repeat
    for (std::size_t c = 0; c < d; ++c) K(b, c) = K(a, c);
    s.desc = "G3 key " + std::to_string(b + 1) + " = key " + std::to_string(a + 1);
    return s;
  }
  if (u < 0.93) {  // near-duplicate at distance ~10^-k
    static const int ks[4] = {2, 4, 8, 16};
    const int k = ks[g.integer(0, 3)];
    for (std::size_t c = 0; c < d; ++c) K(b, c) = K(a, c) + std::pow(10.0, -k) * g.normal();
    s.desc = "G3 key " + std::to_string(b + 1) + " = key " + std::to_string(a + 1) + " + 1e-" + std::to_string(k) + " N(0,1)";
    return s;
  }
  // nearly parallel keys: k_i = c_i (w + 1e-6 N(0, I))
  std::vector<double> w(d);
  for (double& x : w) x = g.normal();
  for (std::size_t r = 0; r < T; ++r) {
    const double c = 0.5 + g.unif();
    for (std::size_t j = 0; j < d; ++j) K(r, j) = c * (w[j] + 1e-6 * g.normal());
  }
  s.desc = "G3/C6 nearly parallel keys c_i (w + 1e-6 N)";
  return s;
}

// G5 gates (A001 C8): {0, 1, 1e-300, 1-1e-12}, U(0,1), Beta(5,1), constant, mixed with exact zeros.
enum class G5 { uniform, beta51, constant, ones, corners, mixed_zeros, all_zero, logit };
const char* g5_name(G5 k) {
  switch (k) {
    case G5::uniform: return "U(0,1)";
    case G5::beta51: return "Beta(5,1)";
    case G5::constant: return "constant";
    case G5::ones: return "ones";
    case G5::corners: return "corners{0,1,1e-300,1-1e-12}";
    case G5::mixed_zeros: return "mixed-with-zeros";
    case G5::all_zero: return "all-zero";
    case G5::logit: return "sigmoid(linear(x))";
  }
  return "?";
}
struct Gates {
  std::vector<double> v;  // gate values in [0,1], or logits z (gate sigmoid(z)) when logit
  bool logit = false;
  std::string desc;
};
Gates draw_gates(Gen& g, std::size_t T, G5 k) {
  Gates r;
  r.v.resize(T);
  static const double corners[4] = {0.0, 1.0, 1e-300, 1.0 - 1e-12};
  switch (k) {
    case G5::uniform: for (double& x : r.v) x = g.unif(); break;
    case G5::beta51: for (double& x : r.v) x = std::pow(g.unif(), 0.2); break;
    case G5::constant: { const double c = 0.5 + 0.5 * g.unif(); for (double& x : r.v) x = c; break; }
    case G5::ones: for (double& x : r.v) x = 1.0; break;
    case G5::corners: for (double& x : r.v) x = corners[g.integer(0, 3)]; break;
    case G5::mixed_zeros: {
      const bool beta = g.unif() < 0.5;
      for (double& x : r.v) x = beta ? std::pow(g.unif(), 0.2) : g.unif();
      for (double& x : r.v) if (g.unif() < 0.25) x = 0.0;
      if (T >= 2) r.v[static_cast<std::size_t>(g.integer(1, static_cast<int>(T) - 1))] = 0.0;
      break;
    }
    case G5::all_zero: for (double& x : r.v) x = 0.0; break;
    case G5::logit: {
      // alpha_j = sigmoid(w^T x_j + b), x_j ~ N(0, I_4), w ~ N(0, I_4), b ~ 2 N(0,1)  (A000 Eq. 31)
      r.logit = true;
      double w[4];
      for (double& x : w) x = g.normal();
      const double b = 2 * g.normal();
      for (double& z : r.v) { z = b; for (double wi : w) z += wi * g.normal(); }
      break;
    }
  }
  std::ostringstream s;
  s << "G5=" << g5_name(k);
  if (!r.logit) {
    std::vector<std::size_t> zeros;
    for (std::size_t t = 0; t < T; ++t) if (r.v[t] == 0.0) zeros.push_back(t + 1);
    if (!zeros.empty() && zeros.size() < T) s << " (zero gates at t=" << join(zeros) << ")";
  }
  r.desc = s.str();
  return r;
}
// log-gates in mp at the current precision (-inf for a zero gate; log sigmoid via softplus)
VM log_gates_mp(const Gates& g) {
  VM lg(g.v.size());
  for (std::size_t t = 0; t < g.v.size(); ++t)
    lg[t] = g.logit ? ref::log_sigmoid(mp_t(g.v[t])) : ref::log_gate(mp_t(g.v[t]));
  return lg;
}
VM gate_values_mp(const Gates& g) {
  VM a(g.v.size());
  for (std::size_t t = 0; t < g.v.size(); ++t) a[t] = g.logit ? ref::exp_log(ref::log_sigmoid(mp_t(g.v[t]))) : mp_t(g.v[t]);
  return a;
}

// sizes, smallest first
struct Dims { std::size_t T, dk, dv; };
std::vector<std::size_t> t_list(const CheckConfig& cfg) {
  if (cfg.quick) return {1, 2, 3, 5, 7, 10, 13, 17, 24};
  return {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 19, 23, 24, 31, 32, 33, 40, 47, 48, 57, 63, 64};
}
std::vector<Dims> schedule(const CheckConfig& cfg, std::string_view tag, int per_T_quick, int per_T_full,
                           std::size_t dk_cap = 64, std::size_t T_cap = 1000) {
  Gen g(instance_seed(cfg, std::string(tag) + "/sizes", 0));
  const std::vector<std::size_t> dks = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 4} : std::vector<std::size_t>{1, 2, 3, 4, 8, 16};
  const std::vector<std::size_t> dvs = cfg.quick ? std::vector<std::size_t>{1, 2, 3} : std::vector<std::size_t>{1, 2, 3, 5};
  std::vector<std::size_t> dk_ok;
  for (std::size_t d : dks) if (d <= dk_cap) dk_ok.push_back(d);
  std::vector<Dims> out;
  for (std::size_t T : t_list(cfg)) {
    if (T > T_cap) continue;
    std::vector<Dims> row;
    const int n = cfg.quick ? per_T_quick : per_T_full;
    for (int i = 0; i < n; ++i) row.push_back({T, g.pick(dk_ok), g.pick(dvs)});
    if (T == 1) row[0] = {1, 1, 1};
    std::stable_sort(row.begin(), row.end(), [](const Dims& a, const Dims& b) {
      return a.dk * a.dv < b.dk * b.dv || (a.dk * a.dv == b.dk * b.dv && a.dk < b.dk);
    });
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}
std::vector<std::size_t> chunk_sizes(const CheckConfig& cfg) {
  if (cfg.quick) return {1, 4, 16};
  return {1, 4, 16, 32, 64};
}
std::string dims_desc(const Dims& d) {
  return "T=" + std::to_string(d.T) + " dk=" + std::to_string(d.dk) + " dv=" + std::to_string(d.dv);
}
std::string sizes_desc(const CheckConfig& cfg, std::size_t dk_cap = 64) {
  const auto ts = t_list(cfg);
  std::string s = "T in {" + join(ts) + "}, dk in {" + (cfg.quick ? std::string("1..4") : std::string("1,2,3,4,8,16")) + "}";
  if (dk_cap < 16) s += " (dk <= " + std::to_string(dk_cap) + ")";
  s += ", dv in {" + (cfg.quick ? std::string("1..3") : std::string("1,2,3,5")) + "}";
  return s;
}

// ---------------------------------------------------------------------------------------------
// mp helpers
// ---------------------------------------------------------------------------------------------

// largest absolute entry of a - b (exact-agreement checks)
double max_abs_diff(const MM& a, const MM& b) {
  ref::require(a.rows == b.rows && a.cols == b.cols, "max_abs_diff: shapes differ");
  mp_t m(0);
  for (std::size_t i = 0; i < a.a.size(); ++i) {
    mp_t d = abs(mp_t(a.a[i] - b.a[i]));
    if (d > m || boost::multiprecision::isnan(d)) m = d;
  }
  return to_d(m);
}
// O(t,:) += S0 q_t (read-out of an initial state)
void add_s0_readout(MM& O, const MM& S0, const MM& Q, const VM* decay = nullptr) {
  for (std::size_t t = 0; t < Q.rows; ++t) {
    VM s = ref::matvec(S0, Q.row(t));
    for (std::size_t j = 0; j < O.cols; ++j) {
      if (decay) ref::muladd(O(t, j), (*decay)[t], s[j]);
      else O(t, j) += s[j];
    }
  }
}
// y_t = M_t q_t with M_t given for every t
MM readout_each(const std::vector<MM>& Ms, const MM& Q) {
  MM O(Q.rows, Ms.empty() ? 0 : Ms[0].rows);
  for (std::size_t t = 0; t < Q.rows; ++t) {
    VM y = ref::matvec(Ms[t], Q.row(t));
    for (std::size_t j = 0; j < O.cols; ++j) O(t, j) = y[j];
  }
  return O;
}
// Printed kernel-space gated sum (A000 Eq. 30): o_t = sum_{i<=t} v_i g_i kappa(q_t, k_i), g_i = exp(segsum(i,t)).
template <class Kernel> MM gated_kernel_sum(const MM& Q, const MM& K, const MM& V, const VM& lg, Kernel kappa) {
  MM O(Q.rows, V.cols);
  for (std::size_t t = 0; t < Q.rows; ++t)
    for (std::size_t i = 0; i <= t; ++i) {
      const mp_t w = ref::exp_log(ref::segment_log_sum(lg, i, t)) * kappa(K.row(i), Q.row(t));
      for (std::size_t j = 0; j < V.cols; ++j) ref::muladd(O(t, j), w, V(i, j));
    }
  return O;
}

// ---------------------------------------------------------------------------------------------
// exact / property checks (decision: value == 0), and combining the parts of a claim
// ---------------------------------------------------------------------------------------------

class ZeroCheck {
 public:
  ZeroCheck(std::string statistic, unsigned digits) : statistic_(std::move(statistic)), digits_(digits) {}
  // f(digits) returns the violation size (0 = passes); a nonzero value is re-evaluated at doubled digits.
  void add(const std::string& desc, const std::function<double(unsigned)>& f) {
    if (failed_) return;
    ++n_;
    const double v = f(digits_);
    if (n_ == 1 || std::isnan(v) || v > worst_) { worst_ = std::isnan(v) ? INFINITY : v; worst_desc_ = desc; }
    if (v == 0) return;
    const double v2 = f(2 * digits_);
    if (!(v2 == 0)) { failed_ = true; witness_ = desc; wv_ = v; wv2_ = v2; return; }
    if (!unconfirmed_) { unconfirmed_ = true; witness_ = desc; wv_ = v; wv2_ = v2; }
  }
  ClaimResult result(const CheckConfig& cfg, const std::string& sizes) const {
    ClaimResult r;
    Evidence& e = r.evidence;
    e.statistic = statistic_;
    e.threshold = 0;
    e.instances = n_;
    e.sizes = sizes;
    e.digits = digits_;
    e.seed = cfg.seed;
    if (failed_) {
      r.verdict = Verdict::violated;
      e.value = wv_;
      e.witness = witness_;
      e.extra.emplace_back("value_at_doubled_digits", fmt(wv2_));
      r.reason = "smallest failing instance, confirmed at " + std::to_string(2 * digits_) + " digits";
    } else if (n_ == 0) {
      r.verdict = Verdict::inconclusive;
      r.reason = "no instance could be evaluated";
    } else if (unconfirmed_) {
      r.verdict = Verdict::inconclusive;
      e.value = wv_;
      e.witness = witness_;
      e.extra.emplace_back("value_at_doubled_digits", fmt(wv2_));
      r.reason = "a failing instance was not confirmed at doubled digits";
    } else {
      r.verdict = Verdict::holds;
      e.value = worst_;
      e.witness = worst_desc_;
      r.reason = "all " + std::to_string(n_) + " instances exactly satisfy the property";
    }
    return r;
  }

 private:
  std::string statistic_;
  unsigned digits_;
  int n_ = 0;
  double worst_ = 0, wv_ = 0, wv2_ = 0;
  std::string worst_desc_, witness_;
  bool failed_ = false, unconfirmed_ = false;
};

struct Part {
  std::string name;
  ClaimResult r;
};
// Conjunction of parts: violated if any part is violated, inconclusive if any is inconclusive,
// holds only if every part holds. The first part is the primary one (its evidence is the base).
ClaimResult combine(std::vector<Part> parts) {
  ClaimResult out = parts.at(0).r;
  Evidence& e = out.evidence;
  int vi = -1, ii = -1, total = 0;
  std::string sizes, names;
  std::vector<std::pair<std::string, std::string>> extra;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const ClaimResult& r = parts[k].r;
    if (r.verdict == Verdict::violated && vi < 0) vi = static_cast<int>(k);
    if (r.verdict == Verdict::inconclusive && ii < 0) ii = static_cast<int>(k);
    total += r.evidence.instances;
    sizes += (k ? "; " : "") + parts[k].name + ": " + r.evidence.sizes;
    names += (k ? ", " : "") + parts[k].name;
    extra.emplace_back("part " + parts[k].name,
                       std::string(verdict_name(r.verdict)) + "; " + r.evidence.statistic + " = " + fmt(r.evidence.value) +
                           " (threshold " + fmt(r.evidence.threshold) + "); " + std::to_string(r.evidence.instances) +
                           " instances; " + r.reason);
    for (const auto& x : r.evidence.extra) extra.emplace_back(parts[k].name + ": " + x.first, x.second);
  }
  const int pick = vi >= 0 ? vi : ii;
  if (pick >= 0) {
    const Part& p = parts[static_cast<std::size_t>(pick)];
    out.verdict = p.r.verdict;
    out.reason = p.name + ": " + p.r.reason;
    e.statistic = p.name + ": " + p.r.evidence.statistic;
    e.value = p.r.evidence.value;
    e.threshold = p.r.evidence.threshold;
    e.witness = p.name + ": " + p.r.evidence.witness;
    if (p.r.evidence.digits) e.digits = p.r.evidence.digits;
  } else {
    out.verdict = Verdict::holds;
    out.reason = "every part holds (" + names + "); primary: " + parts[0].r.reason;
  }
  e.instances = total;
  e.sizes = sizes;
  e.extra = std::move(extra);
  return out;
}

// ---------------------------------------------------------------------------------------------
// A000-AM-OUTER
// ---------------------------------------------------------------------------------------------

// All ungated forms of linear attention against the recurrence (outputs, and states where the
// form has one). S0: optional initial state (the sum / parallel forms get S0 q_t added, the
// chunked form carries it).
double ungated_forms_residual(const MM& Q, const MM& K, const MM& V, const MM* S0, const std::vector<std::size_t>& chunks,
                              bool with_parallel = true) {
  const std::size_t T = Q.rows;
  auto rec = ref::linear_attention(Q, K, V, S0);
  double r = 0;
  MM sum = ref::linear_attention_sum(Q, K, V);
  if (S0) add_s0_readout(sum, *S0, Q);
  r = std::max(r, rel_res(rec.O, sum));
  if (with_parallel) {
    MM par = ref::linear_attention_parallel(Q, K, V);
    if (S0) add_s0_readout(par, *S0, Q);
    r = std::max(r, rel_res(rec.O, par));
  }
  MM closed = ref::linear_attention_state_closed(K, V, T);
  if (S0) for (std::size_t i = 0; i < closed.a.size(); ++i) closed.a[i] += S0->a[i];
  r = std::max(r, rel_res(rec.state, closed));
  for (std::size_t C : chunks) {
    auto ch = ref::linear_attention_chunked(Q, K, V, C, static_cast<const VM*>(nullptr), S0);
    r = std::max(r, rel_res(rec.O, ch.O));
    r = std::max(r, rel_res(rec.state, ch.state));
  }
  return r;
}
double ungated_forms_absdiff(const MM& Q, const MM& K, const MM& V, const MM* S0, const std::vector<std::size_t>& chunks) {
  const std::size_t T = Q.rows;
  auto rec = ref::linear_attention(Q, K, V, S0);
  double r = 0;
  MM sum = ref::linear_attention_sum(Q, K, V);
  MM par = ref::linear_attention_parallel(Q, K, V);
  if (S0) { add_s0_readout(sum, *S0, Q); add_s0_readout(par, *S0, Q); }
  r = std::max(r, max_abs_diff(rec.O, sum));
  r = std::max(r, max_abs_diff(rec.O, par));
  MM closed = ref::linear_attention_state_closed(K, V, T);
  if (S0) for (std::size_t i = 0; i < closed.a.size(); ++i) closed.a[i] += S0->a[i];
  r = std::max(r, max_abs_diff(rec.state, closed));
  for (std::size_t C : chunks) {
    auto ch = ref::linear_attention_chunked(Q, K, V, C, static_cast<const VM*>(nullptr), S0);
    r = std::max(r, max_abs_diff(rec.O, ch.O));
    r = std::max(r, max_abs_diff(rec.state, ch.state));
  }
  return r;
}

ClaimResult check_am_outer(const CheckConfig& cfg) {
  const char* tag = "A000-AM-OUTER";
  const std::vector<std::size_t> chunks = {1, 4, 16};  // A000: C in {1,4,16}
  IdentityCheck ic("max relative residual: recurrence vs closed sum vs tril(QK^T)V vs chunked (C in {1,4,16}), outputs and states",
                   cfg.digits);
  const auto dims = schedule(cfg, tag, 10, 18);
  double fp64_ratio = 0;
  std::string fp64_where;
  int n = 0;
  for (const Dims& dm : dims) {
    const std::uint64_t s = instance_seed(cfg, tag, static_cast<std::uint64_t>(n));
    Gen g(s);
    MD Q = g.gauss(dm.T, dm.dk), K = g.gauss(dm.T, dm.dk), V = g.gauss(dm.T, dm.dv);
    const KeyScale ks = key_variant(g, K);
    const bool with_s0 = (n % 3 == 2);
    MD S0 = g.gauss(dm.dv, dm.dk);
    const std::string desc = "G1 " + dims_desc(dm) + " " + ks.desc + (with_s0 ? " S0=N(0,1)" : " S0=0") +
                             " inst_seed=" + hex(s) + " (#" + std::to_string(n + 1) + ")";
    ic.add(desc, [&](unsigned d) {
      MpDigitsScope sc(d);
      MM s0 = to_mp(S0);
      return ungated_forms_residual(to_mp(Q), to_mp(K), to_mp(V), with_s0 ? &s0 : nullptr, chunks);
    });
    // evidence only (README §2: agreement is a registry test): fp64 naive error / (t u sum_i |k_i^T q_t| ||v_i||)
    if (!with_s0) {
      MpDigitsScope sc(cfg.digits);
      auto ref_mp = ref::linear_attention(to_mp(Q), to_mp(K), to_mp(V));
      auto ref_d = ref::linear_attention(Q, K, V);
      const double u = std::numeric_limits<double>::epsilon() / 2;
      for (std::size_t t = 0; t < dm.T; ++t) {
        double bound = 0, err = 0;
        for (std::size_t i = 0; i <= t; ++i) {
          double kq = 0, vn = 0;
          for (std::size_t c = 0; c < dm.dk; ++c) kq += K(i, c) * Q(t, c);
          for (std::size_t c = 0; c < dm.dv; ++c) vn += V(i, c) * V(i, c);
          bound += std::fabs(kq) * std::sqrt(vn);
        }
        bound *= static_cast<double>(t + 1) * u;
        for (std::size_t c = 0; c < dm.dv; ++c) {
          const double e = std::fabs(to_d(mp_t(mp_t(ref_d.O(t, c)) - ref_mp.O(t, c))));
          err += e * e;
        }
        err = std::sqrt(err);
        if (bound > 0 && err / bound > fp64_ratio) { fp64_ratio = err / bound; fp64_where = desc + " row t=" + std::to_string(t + 1); }
      }
    }
    ++n;
  }
  ClaimResult main = ic.result(cfg, "G1 " + sizes_desc(cfg) + ", C in {1,4,16}, one third with S0 ~ N(0,1); " + seed_note(cfg, tag));
  main.evidence.extra.emplace_back("fp64_naive_error_ratio",
                                   fmt(fp64_ratio) + " = max_t ||o_t(fp64 reference) - o_t(mp)|| / (t u sum_i |k_i^T q_t| ||v_i||) "
                                   "(evidence only; the spec leaves c unstated; worst at " + fp64_where + ")");

  // exact (rational) agreement on integer inputs: every intermediate is an integer below 10^50
  ZeroCheck zc("max |difference| between the forms on integer inputs (must be exactly 0)", cfg.digits);
  const auto idims = schedule(cfg, std::string(tag) + "/int", 4, 6);
  n = 0;
  for (const Dims& dm : idims) {
    const std::uint64_t s = instance_seed(cfg, std::string(tag) + "/int", static_cast<std::uint64_t>(n));
    Gen g(s);
    MD Q = g.ints(dm.T, dm.dk, -3, 3), K = g.ints(dm.T, dm.dk, -3, 3), V = g.ints(dm.T, dm.dv, -3, 3), S0 = g.ints(dm.dv, dm.dk, -3, 3);
    const bool with_s0 = (n % 2 == 1);
    const std::string desc = "integers in [-3,3] " + dims_desc(dm) + (with_s0 ? " S0=integers" : " S0=0") + " inst_seed=" + hex(s);
    zc.add(desc, [&](unsigned d) {
      MpDigitsScope sc(d);
      MM s0 = to_mp(S0);
      return ungated_forms_absdiff(to_mp(Q), to_mp(K), to_mp(V), with_s0 ? &s0 : nullptr, chunks);
    });
    ++n;
  }
  return combine({{"R-ID (random)", main},
                  {"exact on integers", zc.result(cfg, "integer entries in [-3,3], " + sizes_desc(cfg))}});
}

// ---------------------------------------------------------------------------------------------
// A000-KERNEL-AM
// ---------------------------------------------------------------------------------------------

struct PolyKernel {
  int p = 1;
  bool affine = false;  // (1 + x^T y)^2
  std::size_t d = 1;
  template <class S> S operator()(const S* k, const S* q) const {
    S s = ref::dot(k, q, d);
    if (affine) s = S(1) + s;
    S r(1);
    for (int i = 0; i < (affine ? 2 : p); ++i) r *= s;
    return r;
  }
  ref::FeatureMap map() const {
    ref::FeatureMap f;
    f.kind = affine ? ref::FeatureMapKind::poly2_affine : ref::FeatureMapKind::poly;
    f.order = p;
    return f;
  }
  std::string name() const { return affine ? std::string("(1+x^T y)^2 / [1; sqrt2 x; x(x)x]") : "(x^T y)^" + std::to_string(p) + " / x^(x)" + std::to_string(p); }
};
template <class S> double kernel_am_paths(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const PolyKernel& kp,
                                          Matrix<S>* feat_out = nullptr, Matrix<S>* kern_out = nullptr) {
  const ref::FeatureMap f = kp.map();
  auto la = ref::linear_attention(ref::apply_feature_map(f, Q), ref::apply_feature_map(f, K), V);
  Matrix<S> ka = ref::kernel_attention_unnormalized(Q, K, V, kp);
  if (feat_out) *feat_out = la.O;
  if (kern_out) *kern_out = ka;
  return 0;
}

ClaimResult check_kernel_am(const CheckConfig& cfg) {
  const char* tag = "A000-KERNEL-AM";
  std::vector<PolyKernel> kernels = {{1, false, 0}, {2, false, 0}, {3, false, 0}, {2, true, 0}};
  IdentityCheck ic("max relative residual: feature-space memory S_t phi(q_t) vs kernel sum tril(kappa(Q,K))V", cfg.digits);
  IdentityCheck ic_aff("max relative residual on integer inputs, (1+x^T y)^2 (sqrt2 features: not exactly representable)", cfg.digits);
  ZeroCheck zc("max |feature path - kernel path| on integer inputs, (x^T y)^p (must be exactly 0)", cfg.digits);
  double fp64_worst = 0;
  std::string fp64_where;
  std::map<std::string, double> per_kernel;
  // every kernel's schedule, merged and ordered by size so that the first failure is the smallest
  struct Job { std::size_t kk; Dims dm; int m; };
  std::vector<Job> jobs;
  for (std::size_t kk = 0; kk < kernels.size(); ++kk) {
    const std::size_t dk_cap = kernels[kk].p == 3 ? (cfg.quick ? 4 : 8) : (kernels[kk].p == 2 || kernels[kk].affine ? (cfg.quick ? 4 : 16) : 64);
    const auto dims = schedule(cfg, std::string(tag) + "/" + std::to_string(kk), 5, 6, dk_cap);
    for (std::size_t i = 0; i < dims.size(); ++i) jobs.push_back({kk, dims[i], static_cast<int>(i)});
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) {
    return a.dm.T < b.dm.T || (a.dm.T == b.dm.T && a.dm.dk * a.dm.dv < b.dm.dk * b.dm.dv);
  });
  {
    for (const Job& job : jobs) {
      const std::size_t kk = job.kk;
      const Dims& dm = job.dm;
      const int m = job.m;
      const std::string ktag = std::string(tag) + "/" + std::to_string(kk);
      const std::uint64_t s = instance_seed(cfg, ktag, static_cast<std::uint64_t>(m));
      Gen g(s);
      PolyKernel kp = kernels[kk];
      kp.d = dm.dk;
      MD Q = g.gauss(dm.T, dm.dk), K = g.gauss(dm.T, dm.dk), V = g.gauss(dm.T, dm.dv);
      const KeyScale ks = key_variant(g, K);
      const std::string desc = "kernel " + kp.name() + " G1 " + dims_desc(dm) + " " + ks.desc + " inst_seed=" + hex(s);
      ic.add(desc, [&](unsigned d) {
        MpDigitsScope sc(d);
        MM F, Kp;
        kernel_am_paths(to_mp(Q), to_mp(K), to_mp(V), kp, &F, &Kp);
        const double r = rel_res(F, Kp);
        if (d == cfg.digits) per_kernel[kp.name()] = std::max(per_kernel[kp.name()], r);
        return r;
      });
      {  // fp64 agreement of the two paths (evidence; the spec's 1e-13 is a budget term, README §2)
        MD F, Kp;
        kernel_am_paths(Q, K, V, kp, &F, &Kp);
        double num = 0, na = 0, nb = 0;
        for (std::size_t i = 0; i < F.a.size(); ++i) { num += (F.a[i] - Kp.a[i]) * (F.a[i] - Kp.a[i]); na += F.a[i] * F.a[i]; nb += Kp.a[i] * Kp.a[i]; }
        const double rr = std::sqrt(num) / std::max({1.0, std::sqrt(na), std::sqrt(nb)});
        if (rr > fp64_worst) { fp64_worst = rr; fp64_where = desc; }
      }
      // integer inputs
      MD Qi = g.ints(dm.T, dm.dk, -3, 3), Ki = g.ints(dm.T, dm.dk, -3, 3), Vi = g.ints(dm.T, dm.dv, -3, 3);
      const std::string idesc = "kernel " + kp.name() + " integers in [-3,3] " + dims_desc(dm) + " inst_seed=" + hex(s);
      auto f = [&, kp](unsigned d) {
        MpDigitsScope sc(d);
        MM F, Kp;
        kernel_am_paths(to_mp(Qi), to_mp(Ki), to_mp(Vi), kp, &F, &Kp);
        return kp.affine ? rel_res(F, Kp) : max_abs_diff(F, Kp);
      };
      if (kp.affine) ic_aff.add(idesc, f);
      else zc.add(idesc, f);
    }
  }
  ClaimResult main = ic.result(cfg, "G1 " + sizes_desc(cfg) + " (dk <= " + (cfg.quick ? "4" : "8") +
                                        " for p=3, <= " + (cfg.quick ? "4" : "16") + " for degree-2 maps); " + seed_note(cfg, tag));
  for (const auto& [k, v] : per_kernel) main.evidence.extra.emplace_back("residual " + k, fmt(v));
  main.evidence.extra.emplace_back("fp64_two_path_relative_discrepancy",
                                   fmt(fp64_worst) + " (evidence only; spec figure 1e-13; worst at " + fp64_where + ")");
  return combine({{"R-ID (random)", main},
                  {"exact on integers (x^T y)^p", zc.result(cfg, "integer entries in [-3,3], p in {1,2,3}")},
                  {"integers (1+x^T y)^2 (R-ID)", ic_aff.result(cfg, "integer entries in [-3,3]; exact rational agreement is not "
                                                                     "representable because phi contains sqrt2")}});
}

// ---------------------------------------------------------------------------------------------
// gated forms (A000-GATED-ATTN, A001-GATED-LINATTN, A001-F04-GATED-DECAYMASK)
// ---------------------------------------------------------------------------------------------

// recurrence vs printed gated sum vs decay-mask parallel vs chunked (outputs and states)
double gated_forms_residual(const MM& Q, const MM& K, const MM& V, const VM& lg, const MM* S0, const std::vector<std::size_t>& chunks) {
  auto rec = ref::gated_linear_attention(Q, K, V, lg, S0);
  double r = rel_res(rec.O, ref::gated_linear_attention_sum(Q, K, V, lg, S0));
  r = std::max(r, rel_res(rec.state, gated_state_closed(K, V, lg, Q.rows, S0)));
  if (!S0) r = std::max(r, rel_res(rec.O, ref::linear_attention_parallel(Q, K, V, &lg)));
  for (std::size_t C : chunks) {
    auto ch = ref::linear_attention_chunked(Q, K, V, C, &lg, S0);
    r = std::max(r, rel_res(rec.O, ch.O));
    r = std::max(r, rel_res(rec.state, ch.state));
  }
  return r;
}

ClaimResult check_gated_attn(const CheckConfig& cfg) {
  const char* tag = "A000-GATED-ATTN";
  const std::vector<std::size_t> chunks = {1, 4, 16};
  IdentityCheck ic("max relative residual: feature-space gated recurrence vs printed kernel sum (Eq. 30) vs decay-mask parallel vs "
                   "chunked (C in {1,4,16}); alpha=1 vs A000-KERNEL-AM; alpha_t=0 vs restart at t",
                   cfg.digits);
  const std::vector<G5> kinds = {G5::logit, G5::uniform, G5::corners, G5::mixed_zeros, G5::beta51, G5::ones, G5::constant, G5::all_zero};
  const auto dims = schedule(cfg, tag, 10, 18, cfg.quick ? 3 : 4);
  int n = 0;
  for (const Dims& dm : dims) {
    const std::uint64_t s = instance_seed(cfg, tag, static_cast<std::uint64_t>(n));
    Gen g(s);
    PolyKernel kp{1 + (n % 3 == 1), n % 3 == 2, dm.dk};  // linear, (x^T y)^2, (1+x^T y)^2
    MD Q = g.gauss(dm.T, dm.dk), K = g.gauss(dm.T, dm.dk), V = g.gauss(dm.T, dm.dv);
    const KeyScale ks = key_variant(g, K);
    const G5 kind = kinds[static_cast<std::size_t>(n) % kinds.size()];
    const Gates gates = draw_gates(g, dm.T, kind);
    const bool with_s0 = (n % 4 == 3);
    const ref::FeatureMap f = kp.map();
    MD S0 = g.gauss(dm.dv, ref::feature_dim(f, dm.dk));
    const std::string base = "kernel " + kp.name() + " G1 " + dims_desc(dm) + " " + ks.desc + " " + gates.desc +
                             " inst_seed=" + hex(s);
    ic.add(base + (with_s0 ? " S0=N(0,1)" : " S0=0"), [&](unsigned d) {
      MpDigitsScope sc(d);
      const MM q = to_mp(Q), k = to_mp(K), v = to_mp(V), s0 = to_mp(S0);
      const MM pq = ref::apply_feature_map(f, q), pk = ref::apply_feature_map(f, k);
      const VM lg = log_gates_mp(gates);
      auto rec = ref::gated_linear_attention(pq, pk, v, lg, with_s0 ? &s0 : nullptr);
      double r = gated_forms_residual(pq, pk, v, lg, with_s0 ? &s0 : nullptr, chunks);
      if (!with_s0) r = std::max(r, rel_res(rec.O, gated_kernel_sum(q, k, v, lg, kp)));
      return r;
    });
    // alpha == 1 recovers A000-KERNEL-AM
    if (kind == G5::ones) {
      ic.add(base + " [alpha=1 vs kernel_attention_unnormalized]", [&](unsigned d) {
        MpDigitsScope sc(d);
        const MM q = to_mp(Q), k = to_mp(K), v = to_mp(V);
        auto rec = ref::gated_linear_attention(ref::apply_feature_map(f, q), ref::apply_feature_map(f, k), v, log_gates_mp(gates));
        return rel_res(rec.O, ref::kernel_attention_unnormalized(q, k, v, kp));
      });
    }
    // alpha_t0 = 0 erases history: outputs from t0 on equal a fresh run on the suffix
    if (dm.T >= 2) {
      Gates gz = gates;
      if (gz.logit) { gz.logit = false; for (double& x : gz.v) x = 1.0 / (1.0 + std::exp(-x)); }  // exact double gates
      const std::size_t t0 = static_cast<std::size_t>(g.integer(1, static_cast<int>(dm.T) - 1));  // 0-based
      gz.v[t0] = 0.0;
      ic.add(base + " [gate at t=" + std::to_string(t0 + 1) + " set to 0; rows t>=" + std::to_string(t0 + 1) +
                 " vs a restart at that token (recurrent, parallel, chunked)]",
             [&, gz, t0](unsigned d) {
               MpDigitsScope sc(d);
               const MM pq = ref::apply_feature_map(f, to_mp(Q)), pk = ref::apply_feature_map(f, to_mp(K)), v = to_mp(V);
               const VM lg = log_gates_mp(gz);
               auto full = ref::gated_linear_attention(pq, pk, v, lg);
               const MM sq = tail_rows(pq, t0), sk = tail_rows(pk, t0), sv = tail_rows(v, t0);
               VM slg(lg.begin() + static_cast<std::ptrdiff_t>(t0), lg.end());
               auto suf = ref::gated_linear_attention(sq, sk, sv, slg);
               double r = rel_res(tail_rows(full.O, t0), suf.O);
               r = std::max(r, rel_res(full.state, suf.state));
               r = std::max(r, rel_res(tail_rows(ref::linear_attention_parallel(pq, pk, v, &lg), t0), suf.O));
               for (std::size_t C : chunks) r = std::max(r, rel_res(tail_rows(ref::linear_attention_chunked(pq, pk, v, C, &lg).O, t0), suf.O));
               return r;
             });
    }
    ++n;
  }
  return ic.result(cfg, "G1 " + sizes_desc(cfg, cfg.quick ? 3 : 4) + " x G5 {" + [&] {
                          std::vector<std::string> v;
                          for (G5 k : kinds) v.push_back(g5_name(k));
                          return join(v);
                        }() + "}; kernels x^T y, (x^T y)^2, (1+x^T y)^2; C in {1,4,16}; one quarter with S0; " + seed_note(cfg, tag));
}

// ---------------------------------------------------------------------------------------------
// A001-LINATTN (+ R-SCALE by exact multiply counting)
// ---------------------------------------------------------------------------------------------

// A scalar that counts multiplications (every multiply-add of the reference is one).
struct CountingScalar {
  double v = 0;
  static std::uint64_t& muls() { static thread_local std::uint64_t m = 0; return m; }
  CountingScalar() = default;
  CountingScalar(double x) : v(x) {}  // NOLINT(google-explicit-constructor)
  CountingScalar(int x) : v(x) {}     // NOLINT(google-explicit-constructor)
  friend CountingScalar operator*(const CountingScalar& a, const CountingScalar& b) { ++muls(); return CountingScalar(a.v * b.v); }
  friend CountingScalar operator+(const CountingScalar& a, const CountingScalar& b) { return CountingScalar(a.v + b.v); }
  friend CountingScalar operator-(const CountingScalar& a, const CountingScalar& b) { return CountingScalar(a.v - b.v); }
  CountingScalar& operator+=(const CountingScalar& b) { v += b.v; return *this; }
  CountingScalar& operator*=(const CountingScalar& b) { ++muls(); v *= b.v; return *this; }
  friend bool operator==(const CountingScalar& a, const CountingScalar& b) { return a.v == b.v; }
};

double student_t975(int df) {
  static const double tab[] = {0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                               2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086};
  if (df <= 0) return INFINITY;
  if (df <= 20) return tab[df];
  return 1.96 + 2.4 / df;
}
// OLS slope of y on x with its 95% CI
struct Slope { double b, lo, hi; };
Slope ols_slope(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n = x.size();
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) { mx += x[i]; my += y[i]; }
  mx /= n; my /= n;
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < n; ++i) { sxx += (x[i] - mx) * (x[i] - mx); sxy += (x[i] - mx) * (y[i] - my); }
  const double b = sxy / sxx, a = my - b * mx;
  double sse = 0;
  for (std::size_t i = 0; i < n; ++i) { const double e = y[i] - a - b * x[i]; sse += e * e; }
  const double se = n > 2 ? std::sqrt(sse / static_cast<double>(n - 2) / sxx) : INFINITY;
  const double h = student_t975(static_cast<int>(n) - 2) * se;
  return {b, b - h, b + h};
}

ClaimResult linattn_scale_part(const CheckConfig& cfg) {
  std::vector<double> lx, ly;
  std::vector<std::string> counts;
  const std::size_t dk = 4, dv = 3;
  const std::size_t Tmax = cfg.quick ? 1024 : 8192;
  for (std::size_t T = 16; T <= Tmax; T *= 2) {
    Gen g(instance_seed(cfg, "A001-LINATTN/scale", T));
    const MD Qd = g.gauss(T, dk), Kd = g.gauss(T, dk), Vd = g.gauss(T, dv);
    Matrix<CountingScalar> Q(T, dk), K(T, dk), V(T, dv);
    for (std::size_t i = 0; i < Q.a.size(); ++i) { Q.a[i] = Qd.a[i]; K.a[i] = Kd.a[i]; }
    for (std::size_t i = 0; i < V.a.size(); ++i) V.a[i] = Vd.a[i];
    CountingScalar::muls() = 0;
    auto r = ref::linear_attention(Q, K, V);
    (void)r;
    const std::uint64_t c = CountingScalar::muls();
    lx.push_back(std::log(static_cast<double>(T)));
    ly.push_back(std::log(static_cast<double>(c)));
    counts.push_back("T=" + std::to_string(T) + ":" + std::to_string(c));
  }
  const Slope sl = ols_slope(lx, ly);
  ClaimResult r;
  Evidence& e = r.evidence;
  e.statistic = "exponent of T in the multiply-add count of the recurrent form (OLS of log count on log T), 95% CI upper end";
  e.value = sl.hi;
  e.threshold = 1.05;
  e.instances = static_cast<int>(lx.size());
  e.sizes = "T = 16..." + std::to_string(Tmax) + " (doubling), dk=4, dv=3";
  e.seed = cfg.seed;
  e.extra.emplace_back("exponent", fmt(sl.b, 6) + " CI95 [" + fmt(sl.lo, 6) + ", " + fmt(sl.hi, 6) + "]");
  e.extra.emplace_back("multiply_counts", join(counts, " "));
  if (sl.hi <= 1.05) { r.verdict = Verdict::holds; r.reason = "exponent CI upper end <= e + 0.05 with e = 1 (O(T))"; }
  else if (sl.lo > 1.05) { r.verdict = Verdict::violated; r.reason = "exponent CI lower end > e + 0.05"; }
  else { r.verdict = Verdict::inconclusive; r.reason = "exponent CI straddles e + 0.05"; }
  return r;
}

ClaimResult check_linattn(const CheckConfig& cfg) {
  const char* tag = "A001-LINATTN";
  IdentityCheck ic("max relative residual: recurrence (2) vs printed sum vs closed form R_t = V_t^T K_t (state, and R_t q_t at every t)",
                   cfg.digits);
  const auto dims = schedule(cfg, tag, 10, 18);
  int n = 0;
  for (const Dims& dm : dims) {
    const std::uint64_t s = instance_seed(cfg, tag, static_cast<std::uint64_t>(n));
    Gen g(s);
    MD Q = g.gauss(dm.T, dm.dk), K = g.gauss(dm.T, dm.dk), V = g.gauss(dm.T, dm.dv);
    const KeyScale ks = key_variant(g, K);
    ic.add("G1 " + dims_desc(dm) + " " + ks.desc + " inst_seed=" + hex(s), [&](unsigned d) {
      MpDigitsScope sc(d);
      const MM q = to_mp(Q), k = to_mp(K), v = to_mp(V);
      auto rec = ref::linear_attention(q, k, v);
      double r = rel_res(rec.O, ref::linear_attention_sum(q, k, v));
      r = std::max(r, rel_res(rec.state, ref::linear_attention_state_closed(k, v, dm.T)));
      std::vector<MM> Rs;
      for (std::size_t t = 1; t <= dm.T; ++t) Rs.push_back(ref::linear_attention_state_closed(k, v, t));
      r = std::max(r, rel_res(rec.O, readout_each(Rs, q)));
      return r;
    });
    ++n;
  }
  ClaimResult main = ic.result(cfg, "G1 " + sizes_desc(cfg) + "; " + seed_note(cfg, tag));
  return combine({{"R-ID", main}, {"R-SCALE", linattn_scale_part(cfg)}});
}

// ---------------------------------------------------------------------------------------------
// feature maps used by the feature-map items
// ---------------------------------------------------------------------------------------------

struct MapSpec {
  ref::FeatureMap f;
  std::string name;
  std::size_t dk_cap;
};
std::vector<MapSpec> feature_map_specs(std::size_t T, std::size_t dk, std::uint64_t seed, bool non_negative_only) {
  using K = ref::FeatureMapKind;
  std::vector<MapSpec> v;
  auto add = [&](K k, int order, int nu, std::string name, std::size_t cap) {
    ref::FeatureMap f;
    f.kind = k;
    f.order = order;
    f.nu = nu;
    f.n_max = static_cast<double>(T + 3);
    if (k == K::prf || k == K::rff) {
      f = ref::FeatureMap::random(k, 8, dk, seed);
      f.n_max = static_cast<double>(T + 3);
    }
    v.push_back({f, std::move(name), cap});
  };
  if (!non_negative_only) {
    add(K::identity, 2, 1, "identity", 64);
    add(K::poly, 2, 1, "poly2 x(x)x", 8);
    add(K::poly2_affine, 2, 1, "poly2_affine", 8);
    add(K::exp_trunc, 2, 1, "exp_trunc M=2", 8);
    add(K::rff, 2, 1, "rff m=8", 64);
  }
  add(K::elu1, 2, 1, "elu1", 64);
  add(K::relu, 2, 1, "relu", 64);
  add(K::dpfp, 2, 1, "dpfp nu=1", 64);
  add(K::dpfp, 2, 2, "dpfp nu=2", 64);
  add(K::cosformer, 2, 1, "cosformer Nmax=T+3", 64);
  add(K::taylor2, 2, 1, "taylor2", 8);
  add(K::prf, 2, 1, "prf m=8", 64);
  return v;
}

// ---------------------------------------------------------------------------------------------
// A001-LINATTN-FEATUREMAP and A001-F02-FEATUREMAP-PARALLEL
// ---------------------------------------------------------------------------------------------

ClaimResult check_featuremap_forms(const CheckConfig& cfg, const char* tag, bool fast_forms) {
  IdentityCheck ic(fast_forms ? "max relative residual: feature-map recurrence (3) vs tril(phi(Q)phi(K)^T)V vs chunked with state passing"
                              : "max relative residual: recurrence (3) vs printed sum vs closed form M_t = V_t^T Phi_t (state, and M_t phi(q_t) at every t)",
                   cfg.digits);
  const auto chunks = chunk_sizes(cfg);
  std::map<std::string, double> per_map;
  const auto dims = schedule(cfg, tag, 5, 8, cfg.quick ? 3 : 8);
  const std::size_t nmaps = feature_map_specs(1, 1, 0, false).size();
  int n = 0;
  for (const Dims& dm : dims) {
    for (std::size_t mi = 0; mi < nmaps; ++mi) {
      const std::uint64_t s = instance_seed(cfg, tag, static_cast<std::uint64_t>(n));
      Gen g(s);
      const MapSpec ms = feature_map_specs(dm.T, dm.dk, splitmix64(s), false)[mi];
      if (dm.dk > ms.dk_cap) { ++n; continue; }
      MD Q = g.gauss(dm.T, dm.dk), K = g.gauss(dm.T, dm.dk), V = g.gauss(dm.T, dm.dv);
      const KeyScale ks = key_variant(g, K);
      const bool with_s0 = fast_forms && (n % 3 == 2);
      MD S0 = g.gauss(dm.dv, ref::feature_dim(ms.f, dm.dk));
      const std::string desc = "phi=" + ms.name + " G1 " + dims_desc(dm) + " " + ks.desc + (with_s0 ? " S0=N(0,1)" : "") +
                               " inst_seed=" + hex(s) + (ms.f.m ? " (Omega from FeatureMap::random seed splitmix64(inst_seed))" : "");
      ic.add(desc, [&](unsigned d) {
        MpDigitsScope sc(d);
        const MM pq = ref::apply_feature_map(ms.f, to_mp(Q)), pk = ref::apply_feature_map(ms.f, to_mp(K)), v = to_mp(V);
        double r = 0;
        if (fast_forms) {
          MM s0 = to_mp(S0);
          r = ungated_forms_residual(pq, pk, v, with_s0 ? &s0 : nullptr, chunks);
        } else {
          auto rec = ref::linear_attention(pq, pk, v);
          r = rel_res(rec.O, ref::linear_attention_sum(pq, pk, v));
          r = std::max(r, rel_res(rec.state, ref::linear_attention_state_closed(pk, v, dm.T)));
          std::vector<MM> Ms;
          for (std::size_t t = 1; t <= dm.T; ++t) Ms.push_back(ref::linear_attention_state_closed(pk, v, t));
          r = std::max(r, rel_res(rec.O, readout_each(Ms, pq)));
        }
        if (d == cfg.digits) per_map[ms.name] = std::max(per_map[ms.name], r);
        return r;
      });
      ++n;
    }
  }
  ClaimResult res = ic.result(cfg, "G1 " + sizes_desc(cfg, cfg.quick ? 3 : 8) + " (degree-2 maps dk <= 8) x every map {identity, poly2, "
                                   "poly2_affine, exp_trunc M=2, rff m=8, elu1, relu, dpfp nu=1,2, cosformer, taylor2, prf m=8}" +
                                   (fast_forms ? ", C in {" + join(chunks) + "}, one third with S0" : std::string()) + "; " + seed_note(cfg, tag));
  for (const auto& [k, v] : per_map) res.evidence.extra.emplace_back("residual " + k, fmt(v));
  return res;
}

// ---------------------------------------------------------------------------------------------
// A001-FEATURE-MAPS
// ---------------------------------------------------------------------------------------------

double normal_quantile_upper(double alpha) {  // z with P(Z > z) = alpha
  double lo = 0, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (0.5 * std::erfc(mid / std::sqrt(2.0)) > alpha) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

ClaimResult check_feature_maps(const CheckConfig& cfg) {
  const char* tag = "A001-FEATURE-MAPS";
  using K = ref::FeatureMapKind;
  std::vector<Part> parts;

  // (1) shapes: D_phi of the spec's definitions vs feature_dim and the produced vectors
  {
    ZeroCheck zc("number of shape mismatches (spec D_phi vs feature_dim vs produced length)", cfg.digits);
    for (std::size_t d : {1, 2, 3, 4, 8}) {
      struct S { K k; int nu; std::size_t m; std::size_t expect; std::string name; };
      std::vector<S> specs = {{K::identity, 1, 0, d, "identity"},   {K::elu1, 1, 0, d, "elu1"},
                              {K::dpfp, 1, 0, 2 * d, "dpfp nu=1"},   {K::dpfp, 2, 0, 4 * d, "dpfp nu=2"},
                              {K::dpfp, 3, 0, 6 * d, "dpfp nu=3"},   {K::cosformer, 1, 0, 2 * d, "cosformer"},
                              {K::taylor2, 1, 0, 1 + d + d * d, "taylor2"}, {K::prf, 1, 16, 16, "prf m=16"},
                              {K::rff, 1, 16, 32, "rff m=16"}};
      for (const S& sp : specs) {
        zc.add("phi=" + sp.name + " dk=" + std::to_string(d) + " expected D_phi=" + std::to_string(sp.expect), [&](unsigned dg) {
          MpDigitsScope sc(dg);
          ref::FeatureMap f = sp.m ? ref::FeatureMap::random(sp.k, sp.m, d, cfg.seed) : ref::FeatureMap{};
          f.kind = sp.k;
          f.nu = sp.nu;
          f.n_max = 8;
          Gen g(instance_seed(cfg, std::string(tag) + "/shape", d));
          const MM X = to_mp(g.gauss(3, d));
          double bad = 0;
          if (ref::feature_dim(f, d) != sp.expect) bad += 1;
          if (ref::apply_feature_map(f, X.row(0), d, 1).size() != sp.expect) bad += 1;
          const MM P = ref::apply_feature_map(f, X);
          if (P.cols != sp.expect || P.rows != 3) bad += 1;
          return bad;
        });
      }
    }
    parts.push_back({"shapes", zc.result(cfg, "dk in {1,2,3,4,8} x {identity, elu1, dpfp nu=1..3, cosformer, taylor2, prf m=16, rff m=16}")});
  }

  // (2) non-negativity of elu1, dpfp, prf (mp at the working digits and fp64)
  {
    ZeroCheck zc("most negative feature of elu1 / dpfp / prf (property phi >= 0; value = max(0, -min phi))", cfg.digits);
    const std::vector<std::size_t> ds = {1, 2, 3, 4, 8};
    const int per = cfg.quick ? 4 : 40;
    int n = 0;
    for (std::size_t d : ds) {
      for (int i = 0; i < per; ++i) {
        for (int which = 0; which < 4; ++which) {
          const std::uint64_t s = instance_seed(cfg, std::string(tag) + "/nonneg", static_cast<std::uint64_t>(n++));
          Gen g(s);
          // inputs: N(0,1) scaled by 10^a (a in [-3,3]), or adversarial rows (large negative, zeros, large norm)
          MD X = g.gauss(4, d, std::pow(10.0, -3.0 + 6.0 * g.unif()));
          for (std::size_t c = 0; c < d; ++c) { X(1, c) = -50.0 - 10 * g.unif(); X(2, c) = 0.0; X(3, c) = 30.0 * g.normal(); }
          ref::FeatureMap f;
          std::string name;
          if (which == 0) { f.kind = K::elu1; name = "elu1"; }
          else if (which == 1) { f.kind = K::dpfp; f.nu = 1; name = "dpfp nu=1"; }
          else if (which == 2) { f.kind = K::dpfp; f.nu = std::max(1, static_cast<int>(2 * d) - 1); name = "dpfp nu=2dk-1"; }
          else { f = ref::FeatureMap::random(K::prf, 16, d, splitmix64(s)); name = "prf m=16"; }
          zc.add("phi=" + name + " dk=" + std::to_string(d) + " rows: N(0,1)x10^a, -50-10U, 0, 30N inst_seed=" + hex(s), [&, f](unsigned dg) {
            MpDigitsScope sc(dg);
            double worst = 0;
            const MM P = ref::apply_feature_map(f, to_mp(X));
            for (const mp_t& x : P.a) worst = std::max(worst, to_d(mp_t(-x)));
            const MD Pd = ref::apply_feature_map(f, X);
            for (double x : Pd.a) worst = std::max(worst, -x);
            return worst;
          });
        }
      }
    }
    parts.push_back({"non-negativity", zc.result(cfg, "dk in {1,2,3,4,8}, " + std::to_string(per) + " inputs per dk and map, mp and fp64")});
  }

  // (3) inner-product identities of cosformer and taylor2 (R-ID at the working digits)
  {
    IdentityCheck ic("max relative residual of phi(q,t)^T phi(k,i) = relu(q)^T relu(k) cos(pi(t-i)/(2Nmax)) (cosformer) and "
                     "phi(q)^T phi(k) = 1 + q^T k/sqrt(dk) + (q^T k)^2/(2 dk) (taylor2)",
                     cfg.digits);
    std::map<std::string, double> per;
    const std::vector<std::size_t> ds = {1, 2, 3, 4, 8};
    const int reps = cfg.quick ? 2 : 20;
    int n = 0;
    for (std::size_t d : ds) {
      for (int i = 0; i < reps; ++i) {
        const std::uint64_t s = instance_seed(cfg, std::string(tag) + "/ident", static_cast<std::uint64_t>(n++));
        Gen g(s);
        const std::size_t T = cfg.quick ? 8 : 24;
        const KeyScale ks = draw_key_scale(g, d);
        MD Q = g.gauss(T, d), Kk = g.gauss(T, d, ks.factor);
        const double nmax = static_cast<double>(T + g.integer(0, 5));
        ic.add("phi=cosformer dk=" + std::to_string(d) + " T=" + std::to_string(T) + " Nmax=" + fmt(nmax) + " " + ks.desc +
                   " all pairs t,i in 1..T inst_seed=" + hex(s),
               [&, nmax, T](unsigned dg) {
                 MpDigitsScope sc(dg);
                 ref::FeatureMap f;
                 f.kind = K::cosformer;
                 f.n_max = nmax;
                 const MM q = to_mp(Q), k = to_mp(Kk);
                 const MM pq = ref::apply_feature_map(f, q), pk = ref::apply_feature_map(f, k);
                 const mp_t pi = boost::math::constants::pi<mp_t>();
                 MM lhs(T, T), rhs(T, T);
                 for (std::size_t t = 0; t < T; ++t)
                   for (std::size_t j = 0; j < T; ++j) {
                     lhs(t, j) = ref::dot(pq.row(t), pk.row(j), pq.cols);
                     mp_t rr(0);
                     for (std::size_t c = 0; c < d; ++c) {
                       const mp_t a = q(t, c) > 0 ? q(t, c) : mp_t(0), b = k(j, c) > 0 ? k(j, c) : mp_t(0);
                       ref::muladd(rr, a, b);
                     }
                     const mp_t ang = pi * mp_t(static_cast<double>(t) - static_cast<double>(j)) / mp_t(2.0 * nmax);
                     rhs(t, j) = rr * mp_t(cos(ang));
                   }
                 const double r = rel_res(lhs, rhs);
                 if (dg == cfg.digits) per["cosformer"] = std::max(per["cosformer"], r);
                 return r;
               });
        ic.add("phi=taylor2 dk=" + std::to_string(d) + " T=" + std::to_string(T) + " " + ks.desc + " all pairs inst_seed=" + hex(s),
               [&, T](unsigned dg) {
                 MpDigitsScope sc(dg);
                 ref::FeatureMap f;
                 f.kind = K::taylor2;
                 const MM q = to_mp(Q), k = to_mp(Kk);
                 const MM pq = ref::apply_feature_map(f, q), pk = ref::apply_feature_map(f, k);
                 const mp_t dd(static_cast<double>(d));
                 const mp_t sq = sqrt(dd);
                 MM lhs(T, T), rhs(T, T);
                 for (std::size_t t = 0; t < T; ++t)
                   for (std::size_t j = 0; j < T; ++j) {
                     lhs(t, j) = ref::dot(pq.row(t), pk.row(j), pq.cols);
                     const mp_t s1 = ref::dot(q.row(t), k.row(j), d);
                     rhs(t, j) = mp_t(1) + s1 / sq + s1 * s1 / (mp_t(2) * dd);
                   }
                 const double r = rel_res(lhs, rhs);
                 if (dg == cfg.digits) per["taylor2"] = std::max(per["taylor2"], r);
                 return r;
               });
      }
    }
    ClaimResult r = ic.result(cfg, "dk in {1,2,3,4,8}, " + std::to_string(reps) + " inputs per dk, G1 with key scaling; " +
                                       seed_note(cfg, std::string(tag) + "/ident"));
    for (const auto& [k, v] : per) r.evidence.extra.emplace_back("residual " + k, fmt(v));
    parts.push_back({"inner-product identities", r});
  }

  // (4) unbiasedness of prf and rff (R-MC): mean of phi(x)^T phi(y) over independent Omega draws
  {
    const std::vector<std::size_t> ms = cfg.quick ? std::vector<std::size_t>{16, 256} : std::vector<std::size_t>{16, 256, 4096};
    const int draws = cfg.quick ? 200 : 1000;
    const std::vector<std::size_t> ds = {1, 4};
    const std::size_t ncfg = 2 * ms.size() * ds.size();
    const double alpha = 0.01 / static_cast<double>(ncfg);  // Bonferroni: family-wise 99%
    const double z = normal_quantile_upper(alpha / 2);
    ClaimResult r;
    Evidence& e = r.evidence;
    e.statistic = "max |MC mean - target| / CI half-width (normal approximation, Bonferroni-adjusted two-sided 99% family-wise)";
    e.threshold = 1.0;
    e.seed = cfg.seed;
    e.digits = 0;
    int excluded = 0;
    double worst = 0;
    std::string worst_desc, first_excl;
    for (int kind = 0; kind < 2; ++kind)
      for (std::size_t m : ms)
        for (std::size_t d : ds) {
          const std::string ctag = std::string(tag) + "/mc/" + std::to_string(kind) + "/" + std::to_string(m) + "/" + std::to_string(d);
          Gen g(instance_seed(cfg, ctag, 0));
          std::vector<double> x(d), y(d);
          for (double& v : x) v = g.normal() / std::sqrt(static_cast<double>(d));
          for (double& v : y) v = g.normal() / std::sqrt(static_cast<double>(d));
          double xy = 0, dist2 = 0;
          for (std::size_t c = 0; c < d; ++c) { xy += x[c] * y[c]; dist2 += (x[c] - y[c]) * (x[c] - y[c]); }
          const double target = kind == 0 ? std::exp(xy) : std::exp(-dist2 / 2);
          double sum = 0, sum2 = 0;
          for (int rr = 0; rr < draws; ++rr) {
            const ref::FeatureMap f = ref::FeatureMap::random(kind == 0 ? K::prf : K::rff, m, d, instance_seed(cfg, ctag, static_cast<std::uint64_t>(rr + 1)));
            const Vector<double> px = ref::apply_feature_map(f, x.data(), d), py = ref::apply_feature_map(f, y.data(), d);
            const double v = ref::dot(px.data(), py.data(), px.size());
            sum += v;
            sum2 += v * v;
          }
          const double mean = sum / draws;
          const double var = std::max(0.0, (sum2 - draws * mean * mean) / (draws - 1));
          const double half = z * std::sqrt(var / draws);
          const double ratio = half > 0 ? std::fabs(mean - target) / half : (mean == target ? 0.0 : INFINITY);
          const std::string desc = std::string(kind == 0 ? "prf" : "rff") + " m=" + std::to_string(m) + " dk=" + std::to_string(d) +
                                   " x,y~N(0,I/dk) draws=" + std::to_string(draws) + " seeds from fnv1a(\"" + ctag + "\")";
          e.extra.emplace_back(desc, "mean " + fmt(mean, 6) + ", target " + fmt(target, 6) + ", CI [" + fmt(mean - half, 6) + ", " +
                                         fmt(mean + half, 6) + "]");
          if (ratio > worst || worst_desc.empty()) { worst = ratio; worst_desc = desc; }
          if (ratio > 1.0) { if (!excluded++) first_excl = desc; }
          ++e.instances;
        }
    e.value = worst;
    e.sizes = "{prf, rff} x m in {" + join(ms) + "} x dk in {1,4}, " + std::to_string(draws) + " independent Omega draws each (fp64)";
    e.extra.emplace_back("z_per_interval", fmt(z, 4) + " (two-sided level 1 - " + fmt(alpha, 3) + " per interval)");
    if (excluded) {
      r.verdict = Verdict::violated;
      e.witness = first_excl;
      r.reason = std::to_string(excluded) + " CI(s) exclude the target kernel value";
    } else {
      r.verdict = Verdict::holds;
      e.witness = worst_desc;
      r.reason = "every CI contains the target kernel value";
    }
    parts.push_back({"unbiasedness (R-MC)", r});
  }
  return combine(std::move(parts));
}

// ---------------------------------------------------------------------------------------------
// A001-LINATTN-NORMALIZED and A001-F03-NORMLINATTN-PARALLEL
// ---------------------------------------------------------------------------------------------

ClaimResult check_normalized(const CheckConfig& cfg, const char* tag, bool chunked) {
  IdentityCheck ic(chunked ? "max relative residual: normalised recurrence vs parallel [V 1] form vs chunked (C in {1,4,16}) with carried (M, z); "
                             "outputs, denominators, state and z"
                           : "max relative residual: normalised recurrence (Katharopoulos) vs parallel form diag(A1)^-1 A V; outputs and denominators",
                   cfg.digits);
  const auto chunks = chunk_sizes(cfg);
  std::map<std::string, double> per_map;
  const auto dims = schedule(cfg, tag, 6, 8, cfg.quick ? 3 : 8);
  const std::vector<std::string> use = {"elu1", "prf m=8", "dpfp nu=1", "taylor2", "cosformer Nmax=T+3", "relu"};
  int n = 0;
  for (const Dims& dm : dims) {
    for (const std::string& mname : use) {
      const std::uint64_t s = instance_seed(cfg, tag, static_cast<std::uint64_t>(n++));
      Gen g(s);
      MapSpec ms;
      for (const MapSpec& x : feature_map_specs(dm.T, dm.dk, splitmix64(s), true)) if (x.name == mname) ms = x;
      if (dm.dk > ms.dk_cap) continue;
      MD Q = g.gauss(dm.T, dm.dk), K = g.gauss(dm.T, dm.dk), V = g.gauss(dm.T, dm.dv);
      const KeyScale ks = key_variant(g, K);
      const std::string desc = "phi=" + ms.name + " G1 " + dims_desc(dm) + " " + ks.desc + " inst_seed=" + hex(s);
      // vanishing denominators (relu / dpfp / cosformer can give phi(q)^T z = 0 exactly) are excluded
      {
        const MD pq = ref::apply_feature_map(ms.f, Q), pk = ref::apply_feature_map(ms.f, K);
        std::vector<double> z(pk.cols, 0.0);
        bool zero = false;
        std::size_t at = 0;
        for (std::size_t t = 0; t < dm.T && !zero; ++t) {
          for (std::size_t c = 0; c < pk.cols; ++c) z[c] += pk(t, c);
          if (ref::dot(z.data(), pq.row(t), pk.cols) == 0.0) { zero = true; at = t + 1; }
        }
        if (zero) { ic.exclude(desc, "denominator z_t^T phi(q_t) = 0 at t=" + std::to_string(at)); continue; }
      }
      ic.add(desc, [&](unsigned d) {
        MpDigitsScope sc(d);
        const MM pq = ref::apply_feature_map(ms.f, to_mp(Q)), pk = ref::apply_feature_map(ms.f, to_mp(K)), v = to_mp(V);
        auto rec = ref::normalized_linear_attention(pq, pk, v);
        auto par = ref::normalized_linear_attention_augmented(pq, pk, v, 0);
        double r = std::max(rel_res(rec.O, par.O), rel_res(as_row(rec.denom), as_row(par.denom)));
        if (chunked) {
          for (std::size_t C : chunks) {
            auto ch = ref::normalized_linear_attention_augmented(pq, pk, v, C);
            r = std::max(r, rel_res(rec.O, ch.O));
            r = std::max(r, rel_res(as_row(rec.denom), as_row(ch.denom)));
            r = std::max(r, rel_res(rec.state, ch.state));
            r = std::max(r, rel_res(as_row(rec.z), as_row(ch.z)));
          }
        }
        if (d == cfg.digits) per_map[ms.name] = std::max(per_map[ms.name], r);
        return r;
      });
    }
  }
  ClaimResult res = ic.result(cfg, "G1 " + sizes_desc(cfg, cfg.quick ? 3 : 8) + " x maps {" + join(use) + "}" +
                                       (chunked ? ", C in {" + join(chunks) + "}" : std::string()) + "; " + seed_note(cfg, tag));
  for (const auto& [k, v] : per_map) res.evidence.extra.emplace_back("residual " + k, fmt(v));
  return res;
}

// ---------------------------------------------------------------------------------------------
// A001-GATED-LINATTN, A001-F04-GATED-DECAYMASK
// ---------------------------------------------------------------------------------------------

const std::vector<G5> kA001Gates = {G5::uniform, G5::corners, G5::mixed_zeros, G5::beta51, G5::constant, G5::ones, G5::all_zero};
std::string gate_kinds_desc(const std::vector<G5>& ks) {
  std::vector<std::string> v;
  for (G5 k : ks) v.push_back(g5_name(k));
  return "{" + join(v) + "}";
}

ClaimResult check_gated_forms(const CheckConfig& cfg, const char* tag, bool exact_zero_part) {
  IdentityCheck ic("max relative residual: recurrence (4) vs closed form (Eq. 16 sum, state V^T Gamma K) vs decay-mask parallel vs "
                   "chunked; outputs and states",
                   cfg.digits);
  const auto chunks = chunk_sizes(cfg);
  const auto dims = schedule(cfg, tag, 12, 18);
  int n = 0;
  for (const Dims& dm : dims) {
    const std::uint64_t s = instance_seed(cfg, tag, static_cast<std::uint64_t>(n));
    Gen g(s);
    MD Q = g.gauss(dm.T, dm.dk), K = g.gauss(dm.T, dm.dk), V = g.gauss(dm.T, dm.dv), S0 = g.gauss(dm.dv, dm.dk);
    const KeyScale ks = key_variant(g, K);
    const Gates gates = draw_gates(g, dm.T, kA001Gates[static_cast<std::size_t>(n) % kA001Gates.size()]);
    const bool with_s0 = (n % 3 == 2);
    ic.add("G1 " + dims_desc(dm) + " " + ks.desc + " " + gates.desc + (with_s0 ? " S0=N(0,1)" : " S0=0") + " inst_seed=" + hex(s),
           [&](unsigned d) {
             MpDigitsScope sc(d);
             const MM s0 = to_mp(S0);
             return gated_forms_residual(to_mp(Q), to_mp(K), to_mp(V), log_gates_mp(gates), with_s0 ? &s0 : nullptr, chunks);
           });
    ++n;
  }
  ClaimResult main = ic.result(cfg, "G1 " + sizes_desc(cfg) + " x G5 " + gate_kinds_desc(kA001Gates) + ", C in {" + join(chunks) +
                                        "}, one third with S0 (parallel form without S0); " + seed_note(cfg, tag));
  if (!exact_zero_part) return main;

  // gamma_j = 0 must give exact zeros for every i < j <= t: rows t >= j of every form are unchanged,
  // to the last bit, when the values before j are replaced by 1e30-scale values.
  ZeroCheck zc("max |output change| at rows t >= j (last zero gate j) when v_i, i < j, are replaced by 1e30 N(0,1) (must be exactly 0)",
               cfg.digits);
  const auto zdims = schedule(cfg, std::string(tag) + "/zero", 5, 6);
  n = 0;
  for (const Dims& dm : zdims) {
    if (dm.T < 2) continue;
    const std::uint64_t s = instance_seed(cfg, std::string(tag) + "/zero", static_cast<std::uint64_t>(n++));
    Gen g(s);
    MD Q = g.gauss(dm.T, dm.dk), K = g.gauss(dm.T, dm.dk), V = g.gauss(dm.T, dm.dv);
    Gates gates = draw_gates(g, dm.T, n % 2 ? G5::mixed_zeros : G5::corners);
    std::size_t j = 0;  // 0-based position of the last zero gate
    bool any = false;
    for (std::size_t t = 1; t < dm.T; ++t) if (gates.v[t] == 0.0) { j = t; any = true; }
    if (!any) { j = static_cast<std::size_t>(g.integer(1, static_cast<int>(dm.T) - 1)); gates.v[j] = 0.0; gates.desc += " +zero at t=" + std::to_string(j + 1); }
    MD Vp = V;
    for (std::size_t i = 0; i < j; ++i) for (std::size_t c = 0; c < dm.dv; ++c) Vp(i, c) = 1e30 * g.normal();
    zc.add("G1 " + dims_desc(dm) + " " + gates.desc + "; last zero gate at t=" + std::to_string(j + 1) + ", v_i for i=1.." +
               std::to_string(j) + " replaced by 1e30 N(0,1), rows t>=" + std::to_string(j + 1) + " compared inst_seed=" + hex(s),
           [&](unsigned d) {
      MpDigitsScope sc(d);
      const MM q = to_mp(Q), k = to_mp(K), v = to_mp(V), vp = to_mp(Vp);
      const VM lg = log_gates_mp(gates);
      double r = max_abs_diff(tail_rows(ref::gated_linear_attention(q, k, v, lg).O, j), tail_rows(ref::gated_linear_attention(q, k, vp, lg).O, j));
      r = std::max(r, max_abs_diff(tail_rows(ref::linear_attention_parallel(q, k, v, &lg), j), tail_rows(ref::linear_attention_parallel(q, k, vp, &lg), j)));
      for (std::size_t C : chunks) {
        auto a = ref::linear_attention_chunked(q, k, v, C, &lg), b = ref::linear_attention_chunked(q, k, vp, C, &lg);
        r = std::max(r, max_abs_diff(tail_rows(a.O, j), tail_rows(b.O, j)));
        r = std::max(r, max_abs_diff(a.state, b.state));
      }
      return r;
    });
  }
  return combine({{"R-ID", main},
                  {"exact zeros after a zero gate", zc.result(cfg, "G1 " + sizes_desc(cfg) + " x G5 {corners, mixed-with-zeros}, C in {" + join(chunks) + "}")}});
}

// ---------------------------------------------------------------------------------------------
// A001-GATED-LINATTN-DIAG
// ---------------------------------------------------------------------------------------------

ClaimResult check_gated_diag(const CheckConfig& cfg) {
  const char* tag = "A001-GATED-LINATTN-DIAG";
  IdentityCheck ic("max relative residual: recurrence M_t = M_{t-1} Diag(a_t) + v_t k_t^T vs closed form sum_i v_i (k_i . b_{i,t})^T, "
                   "states and outputs at every t",
                   cfg.digits);
  const auto dims = schedule(cfg, tag, 10, 18);
  int n = 0;
  for (const Dims& dm : dims) {
    const std::uint64_t s = instance_seed(cfg, tag, static_cast<std::uint64_t>(n));
    Gen g(s);
    MD Q = g.gauss(dm.T, dm.dk), K = g.gauss(dm.T, dm.dk), V = g.gauss(dm.T, dm.dv);
    const KeyScale ks = key_variant(g, K);
    // per-coordinate G5 gates: each key coordinate gets its own gate sequence and kind
    std::vector<Gates> cols;
    std::string gdesc;
    for (std::size_t c = 0; c < dm.dk; ++c) {
      const G5 kind = kA001Gates[static_cast<std::size_t>(n + 3 * static_cast<int>(c)) % kA001Gates.size()];
      cols.push_back(draw_gates(g, dm.T, kind));
      gdesc += " coord" + std::to_string(c + 1) + ":" + cols.back().desc;
    }
    ic.add("G1 " + dims_desc(dm) + " " + ks.desc + gdesc + " inst_seed=" + hex(s), [&](unsigned d) {
      MpDigitsScope sc(d);
      const MM q = to_mp(Q), k = to_mp(K), v = to_mp(V);
      MM LG(dm.T, dm.dk);
      for (std::size_t c = 0; c < dm.dk; ++c) {
        const VM lg = log_gates_mp(cols[c]);
        for (std::size_t t = 0; t < dm.T; ++t) LG(t, c) = lg[t];
      }
      auto full = ref::gated_linear_attention_diag(q, k, v, LG);
      std::vector<MM> Ms;
      double r = 0;
      for (std::size_t t = 1; t <= dm.T; ++t) {
        Ms.push_back(ref::gated_linear_attention_diag_state_closed(k, v, LG, t));
        auto pre = ref::gated_linear_attention_diag(head_rows(q, t), head_rows(k, t), head_rows(v, t), head_rows(LG, t));
        r = std::max(r, rel_res(pre.state, Ms.back()));
      }
      r = std::max(r, rel_res(full.O, readout_each(Ms, q)));
      return r;
    });
    ++n;
  }
  return ic.result(cfg, "G1 " + sizes_desc(cfg) + " x G5 per coordinate " + gate_kinds_desc(kA001Gates) + "; " + seed_note(cfg, tag));
}

// ---------------------------------------------------------------------------------------------
// A001-SSM-EQUIV
// ---------------------------------------------------------------------------------------------

ClaimResult check_ssm_equiv(const CheckConfig& cfg) {
  const char* tag = "A001-SSM-EQUIV";
  IdentityCheck ic("max relative residual: Mamba-2 SSD (Y, h_T^T) vs gated linear attention (Y, M_T) under k=b, q=c, v=delta x, "
                   "log gamma = delta A",
                   cfg.digits);
  const auto dims = schedule(cfg, tag, 12, 18);
  const std::vector<double> As = {-1e-3, -0.1, -1.0, -10.0, -1e3};
  int n = 0;
  for (const Dims& dm : dims) {
    const std::uint64_t s = instance_seed(cfg, tag, static_cast<std::uint64_t>(n));
    Gen g(s);
    // N = dk (state width), P = dv (head width)
    MD X = g.gauss(dm.T, dm.dv), B = g.gauss(dm.T, dm.dk), C = g.gauss(dm.T, dm.dk);
    std::vector<double> zin(dm.T);
    const double zscale = n % 4 == 3 ? 10.0 : 1.0;  // every 4th instance: wide softplus inputs (delta from ~e^-30 to ~30)
    for (double& z : zin) z = zscale * g.normal();
    const double A = (n % 2 == 0) ? -std::exp(g.normal()) : g.pick(As);
    ic.add("G1 " + dims_desc(dm) + " (N=dk, P=dv) delta=softplus(" + (zscale > 1 ? "10 " : "") + "N(0,1)) A=" + fmt(A, 6) +
               " inst_seed=" + hex(s),
           [&](unsigned d) {
             MpDigitsScope sc(d);
             const MM x = to_mp(X), b = to_mp(B), c = to_mp(C);
             VM delta(dm.T);
             for (std::size_t t = 0; t < dm.T; ++t) delta[t] = ref::softplus(mp_t(zin[t]));
             const mp_t a(A);
             auto ssd = ref::mamba2_ssd(x, b, c, delta, a);
             MM v(dm.T, dm.dv);
             VM lg(dm.T);
             for (std::size_t t = 0; t < dm.T; ++t) {
               for (std::size_t p = 0; p < dm.dv; ++p) v(t, p) = delta[t] * x(t, p);
               lg[t] = delta[t] * a;
             }
             auto gla = ref::gated_linear_attention(c, b, v, lg);
             return std::max(rel_res(ssd.Y, gla.O), rel_res(ref::transpose(ssd.h), gla.state));
           });
    ++n;
  }
  return ic.result(cfg, "G1 " + sizes_desc(cfg) + " (N = dk, P = dv), A = -exp(N(0,1)) or A in {" + join(As) + "}; " + seed_note(cfg, tag));
}

// ---------------------------------------------------------------------------------------------
// A001-GATED-LINATTN-UNROLL
// ---------------------------------------------------------------------------------------------

ClaimResult check_unroll(const CheckConfig& cfg) {
  const char* tag = "A001-GATED-LINATTN-UNROLL";
  IdentityCheck ic("max relative residual over t: recurrence (4) state M_t vs sum_i (prod_{j=i+1}^t gamma_j) v_i k_i^T (literal "
                   "products) vs gamma_t sum_{i<t} gamma_i^(t-1) v_i k_i^T + v_t k_t^T vs V_t^T Gamma_t K_t (matrix form)",
                   cfg.digits);
  const auto dims = schedule(cfg, tag, 8, 18);
  int n = 0;
  for (const Dims& dm : dims) {
    const std::uint64_t s = instance_seed(cfg, tag, static_cast<std::uint64_t>(n));
    Gen g(s);
    MD Q = g.gauss(dm.T, dm.dk), K = g.gauss(dm.T, dm.dk), V = g.gauss(dm.T, dm.dv);
    const KeyScale ks = key_variant(g, K);
    const Gates gates = draw_gates(g, dm.T, kA001Gates[static_cast<std::size_t>(n) % kA001Gates.size()]);
    ic.add("G1 " + dims_desc(dm) + " " + ks.desc + " " + gates.desc + " all t in 1..T inst_seed=" + hex(s), [&](unsigned d) {
      MpDigitsScope sc(d);
      const MM q = to_mp(Q), k = to_mp(K), v = to_mp(V);
      const VM lg = log_gates_mp(gates), gam = gate_values_mp(gates);
      auto weighted = [&](std::size_t t) {  // sum_{i<=t} (prod_{j=i+1}^t gamma_j) v_i k_i^T, literal products (1-based t)
        MM R(dm.dv, dm.dk);
        for (std::size_t i = 0; i < t; ++i) {
          mp_t w(1);
          for (std::size_t jj = i + 1; jj < t; ++jj) w *= gam[jj];
          ref::add_outer(R, w, v.row(i), k.row(i));
        }
        return R;
      };
      double r = 0;
      for (std::size_t t = 1; t <= dm.T; ++t) {
        const MM rec = ref::gated_linear_attention(head_rows(q, t), head_rows(k, t), head_rows(v, t), head(lg, t)).state;
        const MM w = weighted(t);
        r = std::max(r, rel_res(rec, w));
        MM mid(dm.dv, dm.dk);
        if (t >= 2) {
          const MM prev = weighted(t - 1);
          for (std::size_t i = 0; i < mid.a.size(); ++i) ref::mul_into(mid.a[i], gam[t - 1], prev.a[i]);
        }
        ref::add_outer(mid, v.row(t - 1), k.row(t - 1));
        r = std::max(r, rel_res(rec, mid));
        MM GK(t, dm.dk);  // Gamma_t K_t
        for (std::size_t i = 0; i < t; ++i) {
          mp_t w2(1);
          for (std::size_t jj = i + 1; jj < t; ++jj) w2 *= gam[jj];
          for (std::size_t c = 0; c < dm.dk; ++c) GK(i, c) = w2 * k(i, c);
        }
        r = std::max(r, rel_res(rec, ref::matmul(ref::transpose(head_rows(v, t)), GK)));
      }
      return r;
    });
    ++n;
  }
  return ic.result(cfg, "G1 " + sizes_desc(cfg) + " x G5 " + gate_kinds_desc(kA001Gates) + ", every t <= T; " + seed_note(cfg, tag));
}

// ---------------------------------------------------------------------------------------------
// A001-F01-LINATTN-PARALLEL
// ---------------------------------------------------------------------------------------------

ClaimResult check_f01(const CheckConfig& cfg) {
  const char* tag = "A001-F01-LINATTN-PARALLEL";
  const auto chunks = chunk_sizes(cfg);
  IdentityCheck ic("max relative residual: recurrence (2) vs (QK^T . L)V vs chunked with incoming state (outputs and states)", cfg.digits);
  const auto dims = schedule(cfg, tag, 12, 18);
  int n = 0;
  for (const Dims& dm : dims) {
    const std::uint64_t s = instance_seed(cfg, tag, static_cast<std::uint64_t>(n));
    Gen g(s);
    MD Q = g.gauss(dm.T, dm.dk), K = g.gauss(dm.T, dm.dk), V = g.gauss(dm.T, dm.dv), S0 = g.gauss(dm.dv, dm.dk);
    const KeyScale ks = key_variant(g, K);
    const bool with_s0 = (n % 3 == 2);
    ic.add("G1 " + dims_desc(dm) + " " + ks.desc + (with_s0 ? " S0=N(0,1)" : " S0=0") + " inst_seed=" + hex(s), [&](unsigned d) {
      MpDigitsScope sc(d);
      const MM s0 = to_mp(S0);
      return ungated_forms_residual(to_mp(Q), to_mp(K), to_mp(V), with_s0 ? &s0 : nullptr, chunks);
    });
    ++n;
  }
  return ic.result(cfg, "G1 " + sizes_desc(cfg) + ", C in {" + join(chunks) + "} (T not a multiple of C included), one third with S0; " +
                            seed_note(cfg, tag));
}

// ---------------------------------------------------------------------------------------------
// one-GD-step readings
// ---------------------------------------------------------------------------------------------

ClaimResult check_gd_step(const CheckConfig& cfg, const char* tag, bool gated) {
  IdentityCheck ic(gated ? "max relative residual over t: one GD step from 0 on the gate-weighted objective vs state of recurrence (4)"
                         : "max relative residual over t: one full-batch GD step (beta=1) from 0 vs state of recurrence (2)",
                   cfg.digits);
  ZeroCheck cold("max |M^(1)_t (t = T..1) - M^(1)_t (t = 1..T)| (cold start: no dependence on evaluation order; must be exactly 0)", cfg.digits);
  const auto dims = schedule(cfg, tag, 10, 18);
  int n = 0;
  for (const Dims& dm : dims) {
    const std::uint64_t s = instance_seed(cfg, tag, static_cast<std::uint64_t>(n));
    Gen g(s);
    MD Q = g.gauss(dm.T, dm.dk), K = g.gauss(dm.T, dm.dk), V = g.gauss(dm.T, dm.dv);
    const KeyScale ks = key_variant(g, K);
    const Gates gates = gated ? draw_gates(g, dm.T, kA001Gates[static_cast<std::size_t>(n) % kA001Gates.size()]) : Gates{};
    const std::string desc = "G1 " + dims_desc(dm) + " " + ks.desc + (gated ? " " + gates.desc : std::string()) +
                             " every t in 1..T inst_seed=" + hex(s);
    ic.add(desc, [&](unsigned d) {
      MpDigitsScope sc(d);
      const MM q = to_mp(Q), k = to_mp(K), v = to_mp(V);
      const VM lg = gated ? log_gates_mp(gates) : VM{};
      double r = 0;
      for (std::size_t t = dm.T; t >= 1; --t) {
        const MM step = ref::one_gd_step_from_zero(k, v, t, gated ? &lg : nullptr);
        const MM state = gated ? ref::gated_linear_attention(head_rows(q, t), head_rows(k, t), head_rows(v, t), head(lg, t)).state
                               : ref::linear_attention(head_rows(q, t), head_rows(k, t), head_rows(v, t)).state;
        r = std::max(r, rel_res(step, state));
      }
      return r;
    });
    if (n % 4 == 0) {
      cold.add(desc, [&](unsigned d) {
        MpDigitsScope sc(d);
        const MM k = to_mp(K), v = to_mp(V);
        const VM lg = gated ? log_gates_mp(gates) : VM{};
        std::vector<MM> down(dm.T + 1), up(dm.T + 1);
        for (std::size_t t = dm.T; t >= 1; --t) down[t] = ref::one_gd_step_from_zero(k, v, t, gated ? &lg : nullptr);
        for (std::size_t t = 1; t <= dm.T; ++t) up[t] = ref::one_gd_step_from_zero(k, v, t, gated ? &lg : nullptr);
        double r = 0;
        for (std::size_t t = 1; t <= dm.T; ++t) r = std::max(r, max_abs_diff(down[t], up[t]));
        return r;
      });
    }
    ++n;
  }
  const std::string sizes = "G1 " + sizes_desc(cfg) + (gated ? " x G5 " + gate_kinds_desc(kA001Gates) : std::string()) + "; " + seed_note(cfg, tag);
  return combine({{"R-ID", ic.result(cfg, sizes)}, {"cold start", cold.result(cfg, "every 4th instance of the R-ID part")}});
}

// A001-EQ01-LA-GD: row-specific checks plus the components' verdicts (composite).
ClaimResult check_eq01(const CheckConfig& cfg, const Ledger* lp) {
  const char* tag = "A001-EQ01-LA-GD";
  IdentityCheck ic("max relative residual over t: GD step from 0 with all weights 1 (explicit gamma = 1) vs state sequence of (2); "
                   "and M^(1)_t - M^(1)_{t-1} = v_t k_t^T (the step uses the full prefix)",
                   cfg.digits);
  ZeroCheck w1("max |step with explicit weights 1 - unweighted step| (weights all 1; must be exactly 0)", cfg.digits);
  const auto dims = schedule(cfg, tag, 8, 18);
  int n = 0;
  for (const Dims& dm : dims) {
    const std::uint64_t s = instance_seed(cfg, tag, static_cast<std::uint64_t>(n));
    Gen g(s);
    MD Q = g.gauss(dm.T, dm.dk), K = g.gauss(dm.T, dm.dk), V = g.gauss(dm.T, dm.dv);
    const KeyScale ks = key_variant(g, K);
    const std::string desc = "G1 " + dims_desc(dm) + " " + ks.desc + " every t in 1..T inst_seed=" + hex(s);
    ic.add(desc, [&](unsigned d) {
      MpDigitsScope sc(d);
      const MM q = to_mp(Q), k = to_mp(K), v = to_mp(V);
      const VM ones(dm.T, mp_t(0));  // log gamma = 0: weights prod gamma = 1
      double r = 0;
      MM prev(dm.dv, dm.dk);
      for (std::size_t t = 1; t <= dm.T; ++t) {
        const MM step = ref::one_gd_step_from_zero(k, v, t, &ones);
        r = std::max(r, rel_res(step, ref::linear_attention(head_rows(q, t), head_rows(k, t), head_rows(v, t)).state));
        MM inc(dm.dv, dm.dk);
        for (std::size_t i = 0; i < inc.a.size(); ++i) inc.a[i] = step.a[i] - prev.a[i];
        MM vk(dm.dv, dm.dk);
        ref::add_outer(vk, v.row(t - 1), k.row(t - 1));
        r = std::max(r, rel_res(inc, vk));
        prev = step;
      }
      return r;
    });
    w1.add(desc, [&](unsigned d) {
      MpDigitsScope sc(d);
      const MM k = to_mp(K), v = to_mp(V);
      const VM ones(dm.T, mp_t(0));
      double r = 0;
      for (std::size_t t = 1; t <= dm.T; ++t) r = std::max(r, max_abs_diff(ref::one_gd_step_from_zero(k, v, t, &ones), ref::one_gd_step_from_zero(k, v, t)));
      return r;
    });
    ++n;
  }
  std::vector<Part> parts;
  parts.push_back({"row R-ID (state sequence)", ic.result(cfg, "G1 " + sizes_desc(cfg) + "; " + seed_note(cfg, tag))});
  parts.push_back({"row weights all 1", w1.result(cfg, "same instances")});
  parts.push_back({"component A001-LINATTN-AS-ONE-GD-STEP", check_gd_step(cfg, "A001-LINATTN-AS-ONE-GD-STEP", false)});
  parts.push_back({"component A001-LINATTN", check_linattn(cfg)});
  {
    const Claim* c = lp ? lp->find("A001-GD-LS-OBJECTIVE") : nullptr;
    if (c) {
      const ClaimRun run = run_claim(*c, cfg);
      parts.push_back({"component A001-GD-LS-OBJECTIVE", run.result});
    } else {
      ClaimResult r;
      r.verdict = Verdict::inconclusive;
      r.reason = "component A001-GD-LS-OBJECTIVE is not registered in this ledger";
      r.evidence.statistic = "component verdict";
      r.evidence.sizes = "not run";
      parts.push_back({"component A001-GD-LS-OBJECTIVE", r});
    }
  }
  return combine(std::move(parts));
}

}  // namespace

void register_t1_a000_a001_claims(Ledger& l) {
  using namespace check_class;
  const Ledger* lp = &l;
  l.add({"A000-AM-OUTER", "outer-product associative memory", identity, true, check_am_outer});
  l.add({"A000-KERNEL-AM", "kernelised associative memory", identity, true, check_kernel_am});
  l.add({"A000-GATED-ATTN", "gated (forgetting) attention, FoX-style", identity, true, check_gated_attn});
  l.add({"A001-LINATTN", "Linear attention (unnormalised)", identity, true, check_linattn});
  l.add({"A001-LINATTN-FEATUREMAP", "Feature-map (kernelised) linear attention", identity, true,
         [](const CheckConfig& c) { return check_featuremap_forms(c, "A001-LINATTN-FEATUREMAP", false); }});
  l.add({"A001-FEATURE-MAPS", "Concrete feature maps", statistical, false, check_feature_maps});
  l.add({"A001-LINATTN-NORMALIZED", "Normalised linear attention (Katharopoulos form)", identity, true,
         [](const CheckConfig& c) { return check_normalized(c, "A001-LINATTN-NORMALIZED", false); }});
  l.add({"A001-GATED-LINATTN", "Linear attention with a scalar forget gate / SSM form", identity, true,
         [](const CheckConfig& c) { return check_gated_forms(c, "A001-GATED-LINATTN", false); }});
  l.add({"A001-GATED-LINATTN-DIAG", "Diagonal (vector) gate variant [interp]", identity, true, check_gated_diag});
  l.add({"A001-SSM-EQUIV", "Scalar-transition SSM (Mamba-2) <-> gated linear attention", identity, false, check_ssm_equiv});
  l.add({"A001-GATED-LINATTN-UNROLL", "Gated recurrence equals the gate-weighted sum", identity, true, check_unroll});
  l.add({"A001-F01-LINATTN-PARALLEL", "Linear attention: masked matmul and chunked forms", identity, true, check_f01});
  l.add({"A001-F02-FEATUREMAP-PARALLEL", "Feature-map linear attention: parallel and chunked", identity, true,
         [](const CheckConfig& c) { return check_featuremap_forms(c, "A001-F02-FEATUREMAP-PARALLEL", true); }});
  l.add({"A001-F03-NORMLINATTN-PARALLEL", "Normalised linear attention: parallel form", identity, true,
         [](const CheckConfig& c) { return check_normalized(c, "A001-F03-NORMLINATTN-PARALLEL", true); }});
  l.add({"A001-F04-GATED-DECAYMASK", "Gated linear attention: decay-mask and chunked forms", identity, true,
         [](const CheckConfig& c) { return check_gated_forms(c, "A001-F04-GATED-DECAYMASK", true); }});
  l.add({"A001-LINATTN-AS-ONE-GD-STEP", "Linear attention is one full-batch GD step from the origin", identity, false,
         [](const CheckConfig& c) { return check_gd_step(c, "A001-LINATTN-AS-ONE-GD-STEP", false); }});
  l.add({"A001-GATED-LINATTN-AS-ONE-GD-STEP", "Gated linear attention is one GD step on the weighted objective", identity, false,
         [](const CheckConfig& c) { return check_gd_step(c, "A001-GATED-LINATTN-AS-ONE-GD-STEP", true); }});
  l.add({"A001-EQ01-LA-GD", "Row: linear attention <=> one GD step from the origin", identity, false,
         [lp](const CheckConfig& c) { return check_eq01(c, lp); }});
}

}  // namespace recall
