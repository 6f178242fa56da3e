// Helpers shared by the linear-attention claim checks of papers A000 (associative memory) and A001
// (test-time regression) in proofs_numeric/a000_associative_memory/outer_product_memories.cpp and
// proofs_numeric/a001_test_time_regression/{linear_attention, feature_maps, gated_linear_attention,
// one_gd_step, output_growth, output_norms, gated_model_list, ls_equivalence_rows, gated_equivalence_row}.cpp:
// the instance seeds and G1/G3/G5 generators of the T1 checks, the size schedules, the exact (ZeroCheck)
// part and the conjunction of a claim's parts, the ungated / gated form residuals, the feature maps of the
// feature-map items, the sub-seeds, medians and scalar-generic matrix helpers of the Vignette checks,
// and the output normalisations. Moved unchanged from the former claims_t1_a000_a001.cpp and
// claims_t1_a001_b.cpp (the former `combine` of parts is `combine_parts` here, so that it does not
// overload claim_support's combine).
// Like claim_support.hpp the helpers have internal linkage (an unnamed namespace, nested in
// recall::claim_support::linattn so that no other claim file's helper of the same name can collide):
// each translation unit keeps its own copy, exactly as the single files did. Only the result type of
// A001-GATED-MODEL-LIST's shared run (a component of A001-EQ04-GATED) and that run's declaration have
// external linkage.
#pragma once

#include "recall/proofs/ledger.hpp"
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/forms.hpp"
#include "recall/reference/linear_attention.hpp"
#include "claim_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace recall::claim_support::linattn {

// ---- A001-GATED-MODEL-LIST outcome (shared with A001-EQ04-GATED) -----------------------------------------

struct ModelOutcome {
  std::string name, outcome, detail;
  bool matrix_memory = true, mismatch = false, undecided = false;
  double residual = 0, residual_2x = 0;
  std::string witness;
};
struct ModelListResult {
  ClaimResult result;
  std::vector<ModelOutcome> models;
};

namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

using ref::Matrix;
using ref::Vector;
using MD = Matrix<double>;
using VM = Vector<mp_t>;
using u64 = std::uint64_t;

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
// The n-th G1 instance of a check: its seed, the generator (callers keep drawing from it: gates,
// initial states), Q, K, V ~ N(0, 1) drawn in that order, and the key variant applied to K.
struct G1Instance {
  std::uint64_t seed;
  Gen g;
  MD Q, K, V;
  KeyScale ks;
};
G1Instance g1_instance(const CheckConfig& cfg, std::string_view tag, int n, const Dims& dm) {
  const std::uint64_t s = instance_seed(cfg, tag, static_cast<std::uint64_t>(n));
  G1Instance x{s, Gen(s), MD(), MD(), MD(), KeyScale{}};
  x.Q = x.g.gauss(dm.T, dm.dk);
  x.K = x.g.gauss(dm.T, dm.dk);
  x.V = x.g.gauss(dm.T, dm.dv);
  x.ks = key_variant(x.g, x.K);
  return x;
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
    decide_doubled_digits({n_, failed_, unconfirmed_, witness_, wv_, fmt(wv2_), worst_, worst_desc_}, digits_, "value_at_doubled_digits",
                          "all " + std::to_string(n_) + " instances exactly satisfy the property", r);
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
ClaimResult combine_parts(std::vector<Part> parts) {
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
// ungated and gated forms (A000-AM-OUTER, A000-GATED-ATTN, A001-LINATTN-FEATUREMAP, A001-F01/F02/F04,
// A001-GATED-LINATTN)
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

// the G5 gate kinds of the A001 gated items
const std::vector<G5> kA001Gates = {G5::uniform, G5::corners, G5::mixed_zeros, G5::beta51, G5::constant, G5::ones, G5::all_zero};
std::string gate_kinds_desc(const std::vector<G5>& ks) {
  std::vector<std::string> v;
  for (G5 k : ks) v.push_back(g5_name(k));
  return "{" + join(v) + "}";
}

// ---------------------------------------------------------------------------------------------
// Vignette checks of A001: sub-seeds and medians
// ---------------------------------------------------------------------------------------------

// Sub-seed for (claim tag, a, b, c): the same inputs give the same stream on every platform.
u64 sub_seed(u64 base, u64 tag, u64 a = 0, u64 b = 0, u64 c = 0) {
  return splitmix64(splitmix64(splitmix64(splitmix64(base ^ 0xA001B000ull) + tag) + a) + splitmix64(b * 0x100000001B3ull + c));
}

double median(std::vector<double> x) {
  if (x.empty()) return NAN;
  std::sort(x.begin(), x.end());
  const std::size_t n = x.size();
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

// ---------------------------------------------------------------------------------------------
// scalar-generic helpers on ref::Matrix (used with recall::mp_t for the identities)
// ---------------------------------------------------------------------------------------------

template <class S> S vnorm(const Vector<S>& x) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  S acc(0);
  for (const S& v : x) ref::muladd(acc, v, v);
  return sqrt(acc);
}

// R-ID relative residual of vectors (the matrix one is claim_support's)
using claim_support::rel_res;
template <class S> double rel_res(const Vector<S>& a, const Vector<S>& b) {
  ref::require(a.size() == b.size(), "rel_res: lengths differ");
  Vector<S> d(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) d[i] = a[i] - b[i];
  S den(1);
  const S na = vnorm(a), nb = vnorm(b);
  if (na > den) den = na;
  if (nb > den) den = nb;
  return ref::convert<double>(S(vnorm(d) / den));
}

template <class S> Matrix<S> identity_matrix(std::size_t n) {
  Matrix<S> I(n, n);
  for (std::size_t i = 0; i < n; ++i) I(i, i) = S(1);
  return I;
}
template <class S> Matrix<S> gram_cols(const Matrix<S>& K) {  // K^T K
  Matrix<S> G(K.cols, K.cols);
  for (std::size_t i = 0; i < K.rows; ++i) ref::add_outer(G, K.row(i), K.row(i));
  return G;
}

// Orthonormal columns of a tall matrix (t x d, t >= d) by modified Gram-Schmidt with one
// re-orthogonalisation pass, at the precision of S.
template <class S> Matrix<S> orthonormal_columns(const Matrix<double>& G) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  ref::require(G.rows >= G.cols, "orthonormal_columns: need rows >= cols");
  Matrix<S> Q = ref::cast<S>(G);
  const std::size_t t = Q.rows, d = Q.cols;
  for (std::size_t j = 0; j < d; ++j) {
    for (int pass = 0; pass < 2; ++pass)
      for (std::size_t i = 0; i < j; ++i) {
        S r(0);
        for (std::size_t a = 0; a < t; ++a) ref::muladd(r, Q(a, i), Q(a, j));
        for (std::size_t a = 0; a < t; ++a) Q(a, j) -= r * Q(a, i);
      }
    S n2(0);
    for (std::size_t a = 0; a < t; ++a) ref::muladd(n2, Q(a, j), Q(a, j));
    const S n = sqrt(n2);
    for (std::size_t a = 0; a < t; ++a) Q(a, j) /= n;
  }
  return Q;
}

// y = M x for a vector x
template <class S> Vector<S> mv(const Matrix<S>& M, const Vector<S>& x) { return ref::matvec(M, x.data()); }

// ---------------------------------------------------------------------------------------------
// output normalisations (A001-LA-OUTPUT-NORM-RESTORES, A001-LA-OUTNORM-*)
// ---------------------------------------------------------------------------------------------
const char* norm_name(ref::OutputNorm k) {
  switch (k) {
    case ref::OutputNorm::layer_norm: return "LN";
    case ref::OutputNorm::rms_norm: return "RMS";
    case ref::OutputNorm::l2: return "L2";
  }
  return "?";
}
constexpr ref::OutputNorm kNorms[3] = {ref::OutputNorm::layer_norm, ref::OutputNorm::rms_norm, ref::OutputNorm::l2};
constexpr double kOutNormEps = 1e-5;  // declared epsilon of A001-LA-OUTNORM-*

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::linattn

namespace recall {
// The shared check of A001-GATED-MODEL-LIST, defined in a001_test_time_regression/gated_model_list.cpp
// (also a component of A001-EQ04-GATED in a001_test_time_regression/gated_equivalence_row.cpp).
claim_support::linattn::ModelListResult run_model_list(const CheckConfig& cfg);
}  // namespace recall
