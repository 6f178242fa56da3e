// Helpers shared by the A000 claim files of proofs_numeric/a000_associative_memory/ (moved from
// proofs_numeric/src/claims_t2_a000.cpp and claims_t3_a000_theory.cpp; not a public header).
//  * namespace a000_objective (§2.2, App. 7, Table 2; used by gradient_view.cpp, general_objective.cpp,
//    table2_objectives.cpp, table2_softmax_norm.cpp, delta_rule_memory.cpp, softmax_objective.cpp):
//    small vector / residual helpers, the combination of sub-checks, the gradient harness with its
//    row makers shared by several files, and the bootstrap statistics of the statistical claims.
//  * namespace a000_theorem1 (App. 10; used by theorem1_assumptions.cpp, theorem1_state_exchange.cpp,
//    theorem1_gqa_space.cpp): the key sets G1-G4, Assumptions 1-2 tests, the candidate read-out
//    functions and the swap-tracking runner.
// Everything has internal linkage (an unnamed namespace, as in claim_support.hpp): each claim file
// compiles its own copy, so no definition is shared (or can clash) across translation units.
//
// Gradient harness (spec group 4, README §3 group 24): every objective here is a quadratic
// polynomial in S, so the central difference with a UNIT step, (L(S + E) - L(S - E)) / 2, is its
// exact partial derivative (no truncation term); this "exact gradient" of the printed objective is
// the decision gradient. It is cross-checked against the hand-derived analytic gradient of the
// reference (<= R-ID threshold) and against the spec's finite difference with h = 1e-20 (<= 1e-28 at
// 50 digits). Decision statistic: max entrywise |S - grad L(S) - (A S B + C)| / max(1, max|A S B + C|).
#pragma once

#include "claim_support.hpp"
#include "recall/proofs/ledger.hpp"
#include "recall/reference/delta_rule.hpp"
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/memory_objectives.hpp"
#include "recall/reference/state_exchange.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace recall::claim_support::a000_objective {
namespace {

using DV = std::vector<double>;

inline mp_t ten_pow(int e) { return pow(mp_t(10), mp_t(e)); }

inline DV gauss_vec(Rng& g, std::size_t n, double scale = 1.0) { return gauss(g, 1, n, scale).a; }
inline void normalize(double* x, std::size_t n, double r = 1.0) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += x[i] * x[i];
  s = std::sqrt(s);
  if (s > 0)
    for (std::size_t i = 0; i < n; ++i) x[i] *= r / s;
}

// max_ij |X - Y| / max(1, max_ij |Y|)
inline double rel_max(const MM& X, const MM& Y) {
  ref::require(X.rows == Y.rows && X.cols == Y.cols, "rel_max: shapes differ");
  mp_t num(0), den(1);
  for (std::size_t i = 0; i < X.a.size(); ++i) {
    const mp_t d = abs(X.a[i] - Y.a[i]);
    if (d > num) num = d;
    const mp_t a = abs(Y.a[i]);
    if (a > den) den = a;
  }
  return to_d(num / den);
}
inline double rel_scalar(const mp_t& x, const mp_t& y) {
  mp_t den = abs(y);
  if (den < 1) den = 1;
  return to_d(abs(x - y) / den);
}
inline MM apply_abc(const ref::Abc<mp_t>& m, const MM& St) { return ref::add(ref::matmul(ref::matmul(m.A, St), m.B), m.C); }

// Central-difference gradient of L at S with step h (exact for quadratics when h = 1).
inline MM central_grad(const std::function<mp_t(const MM&)>& L, const MM& St, const mp_t& h) {
  MM G(St.rows, St.cols), X = St;
  const mp_t two_h = 2 * h;
  for (std::size_t i = 0; i < St.a.size(); ++i) {
    X.a[i] = St.a[i] + h;
    const mp_t lp = L(X);
    X.a[i] = St.a[i] - h;
    const mp_t lm = L(X);
    X.a[i] = St.a[i];
    G.a[i] = (lp - lm) / two_h;
  }
  return G;
}
inline MM exact_grad(const std::function<mp_t(const MM&)>& L, const MM& St) { return central_grad(L, St, mp_t(1)); }

// Combine sub-checks: violated if any part is, else inconclusive if any is, else holds (the part
// with the largest value/threshold is the headline); every part is summarised in extra
// (this summary format is the A000 objective files' own; claim_support::combine is another).
inline ClaimResult combine_parts(const Parts& parts) {
  const int pick = headline_part(parts);
  ClaimResult out = parts[pick].second;
  out.reason = "[" + parts[pick].first + "] " + out.reason;
  out.evidence.statistic = parts[pick].first + ": " + out.evidence.statistic;
  int inst = 0;
  for (const auto& [name, r] : parts) {
    inst += r.evidence.instances;
    out.evidence.extra.emplace_back("part " + name, std::string(verdict_name(r.verdict)) + ", " + r.evidence.statistic + " = " +
                                                         fmt(r.evidence.value) + " (threshold " + fmt(r.evidence.threshold) +
                                                         ")" + (r.evidence.witness.empty() ? "" : ", at " + r.evidence.witness));
    for (const auto& x : r.evidence.extra) out.evidence.extra.emplace_back(name + ": " + x.first, x.second);
  }
  out.evidence.instances = inst;
  return out;
}

// ---- the gradient harness ----------------------------------------------------------------------

// One instance of a row at the current digits: printed objective, optional hand gradient, the
// row's update S -> A S B + C, and the evaluation point S.
struct RowInst {
  std::function<mp_t(const MM&)> L;
  std::function<MM(const MM&)> hand;  // may be empty
  std::function<MM(const MM&)> update;
  MM S;
};
// A maker draws the instance's data (double) from the generator and returns a builder that
// constructs the mp instance at the current default digits (so it can be re-evaluated at 2x digits).
using Builder = std::function<RowInst()>;
using Maker = std::function<Builder(Rng&, std::size_t dv, std::size_t dk, std::size_t t)>;

struct Row {
  std::string name;
  Maker make;
  std::size_t max_t = 1000;  // rows whose objective sums over history cap t (cost)
};

// Runs every row over sizes (dv, dk) in increasing dv*dk, t in ts, `draws` random instances each.
inline std::vector<std::pair<std::string, ClaimResult>> grad_harness(const CheckConfig& cfg, const std::string& tag,
                                                              const std::vector<Row>& rows,
                                                              std::vector<std::pair<std::string, double>>* row_worst = nullptr) {
  const std::vector<std::size_t> dims = cfg.quick ? std::vector<std::size_t>{1, 2, 3} : std::vector<std::size_t>{1, 2, 3, 5, 8};
  const std::vector<std::size_t> ts = {1, 2, 3, 10, 1000};
  const int draws = cfg.quick ? 2 : 8;
  std::vector<std::pair<std::size_t, std::size_t>> sizes;
  for (std::size_t a : dims)
    for (std::size_t b : dims) sizes.emplace_back(a, b);
  std::stable_sort(sizes.begin(), sizes.end(), [](auto x, auto y) { return x.first * x.second < y.first * y.second; });
  IdentityCheck step("max rel |S - grad L(S) - (A S B + C)| and |hand grad - exact grad|", cfg.digits);
  IdentityCheck fd("max rel |FD(h=1e-20) grad - exact grad|", cfg.digits, 1e12);
  Rng g(tag_seed(cfg.seed, tag));
  std::vector<double> worst(rows.size(), 0.0);
  for (auto [dv, dk] : sizes)
    for (std::size_t t : ts)
      for (std::size_t r = 0; r < rows.size(); ++r) {
        if (t > rows[r].max_t) continue;
        const std::size_t tt = t;
        for (int d = 0; d < draws; ++d) {
          const Builder b = rows[r].make(g, dv, dk, tt);
          const std::string desc = rows[r].name + " d_v=" + std::to_string(dv) + " d_k=" + std::to_string(dk) +
                                   " t=" + std::to_string(tt) + " draw=" + std::to_string(d + 1);
          step.add(desc, [&](unsigned digits) {
            MpDigitsScope sc(digits);
            const RowInst in = b();
            const MM G = exact_grad(in.L, in.S);
            double res = rel_max(ref::add(in.S, G, mp_t(-1)), in.update(in.S));
            if (in.hand) res = std::max(res, rel_max(in.hand(in.S), G));
            worst[r] = std::max(worst[r], res);
            return res;
          });
          fd.add(desc, [&](unsigned digits) {
            MpDigitsScope sc(digits);
            const RowInst in = b();
            return rel_max(central_grad(in.L, in.S, mp_t("1e-20")), exact_grad(in.L, in.S));
          });
        }
      }
  if (row_worst)
    for (std::size_t r = 0; r < rows.size(); ++r) row_worst->emplace_back(rows[r].name, worst[r]);
  std::string sz = "d_v, d_k in {";
  for (std::size_t i = 0; i < dims.size(); ++i) sz += (i ? "," : "") + std::to_string(dims[i]);
  sz += "}, t in {1,2,3,10,1000}, " + std::to_string(draws) + " draws, rows:";
  for (const auto& r : rows) sz += " " + r.name + (r.max_t < 1000 ? "(t<=" + std::to_string(r.max_t) + ")" : "");
  ClaimResult a = step.result(cfg, sz), b = fd.result(cfg, sz);
  if (row_worst)
    for (const auto& [n, w] : *row_worst) a.evidence.extra.emplace_back("worst residual " + n, fmt(w));
  return {{"unit gradient step", a}, {"finite differences", b}};
}

// Matrices / vectors of a row instance, drawn in double and converted exactly.
struct Draw {
  DM S, K, V;  // S: dv x dk; K: t x dk; V: t x dv (last rows are k_t, v_t)
  DV lam, eta;
  double beta = 1;
};
inline Draw draw_basic(Rng& g, std::size_t dv, std::size_t dk, std::size_t t, bool history = false) {
  Draw d;
  d.S = gauss(g, dv, dk);
  const std::size_t n = history ? t : 1;
  d.K = gauss(g, n, dk);
  d.V = gauss(g, n, dv);
  d.lam = uniform_vec(g, std::max(dv, dk));
  d.eta = uniform_vec(g, n);
  return d;
}
inline MV last_row(const MM& m) { return row_vec(m, m.rows - 1); }

// Feature map phi for the softmax rows: alternately identity and the truncated exponential map
// phi_2 (A000-EXP-FEATURE, Kronecker form) on a raw key of dimension d_raw with D_phi = dk.
inline ref::FeatureMap exp2_map() {
  ref::FeatureMap f;
  f.kind = ref::FeatureMapKind::exp_trunc;
  f.order = 2;
  return f;
}

inline Row row_linattn(bool eq66 = false) {
  return {eq66 ? "LinAttn(Eq.66)" : "LinAttn(Eq.68)", [eq66](Rng& g, std::size_t dv, std::size_t dk, std::size_t t) -> Builder {
            (void)t;
            const Draw d = draw_basic(g, dv, dk, 1);
            return [d, eq66]() {
              const MM S = to_mp(d.S);
              const MV k = last_row(to_mp(d.K)), v = last_row(to_mp(d.V));
              RowInst in;
              if (eq66) in.L = [k, v](const MM& X) { return ref::linattn_objective_eq66(X, k, v); };
              else in.L = [k, v](const MM& X) { return ref::linattn_objective(X, k, v); };
              in.hand = [k, v](const MM& X) { return ref::linattn_grad(X, k, v); };
              const auto m = ref::linattn_abc(k, v);
              in.update = [m](const MM& X) { return apply_abc(m, X); };
              in.S = S;
              return in;
            };
          }};
}
// Softmax rows with a finite phi: kind 0 SMNONORM, 1 SMNORM, 2 GSM printed (Table 2), 3 GSM Eq. 81,
// 4 GSM via Eq. 36. The raw key has dimension d_raw = dk (identity phi, even draws) or 1 (phi_2,
// D_phi = 3, odd draws when dk == 3); the memory is d_v x D_phi.
inline Row row_softmax(int kind) {
  const char* names[5] = {"SM-nonorm", "SM-norm(Eq.80)", "GSM(Table2)", "GSM(Eq.81)", "GSM(Eq.36 subst.)"};
  return {names[kind], [kind](Rng& g, std::size_t dv, std::size_t dk, std::size_t t) -> Builder {
            const bool use_phi = dk == 3 && (std::uniform_int_distribution<int>(0, 1)(g) == 1);
            const std::size_t draw_dim = use_phi ? 1 : dk;
            Draw d = draw_basic(g, dv, dk, 1);
            d.K = gauss(g, 1, draw_dim);
            return [d, kind, t, use_phi, dv]() {
              const MV kraw = last_row(to_mp(d.K)), v = last_row(to_mp(d.V));
              const MV k = use_phi ? ref::apply_feature_map<mp_t>(exp2_map(), kraw.data(), kraw.size()) : kraw;
              const MV lam = head(to_mp(d.lam), dv);
              RowInst in;
              ref::Abc<mp_t> m;
              switch (kind) {
                case 0:
                  in.L = [k, v](const MM& X) { return ref::linattn_objective(X, k, v); };
                  in.hand = [k, v](const MM& X) { return ref::linattn_grad(X, k, v); };
                  m = ref::linattn_abc(k, v);
                  break;
                case 1:
                  in.L = [k, v, t](const MM& X) { return ref::smnorm_objective(X, k, v, t); };
                  in.hand = [k, v, t](const MM& X) { return ref::smnorm_grad(X, k, v, t); };
                  m = ref::smnorm_abc(k, v, t);
                  break;
                case 2:
                  in.L = [k, v, lam, t](const MM& X) { return ref::gsm_objective_printed(X, k, v, lam, t); };
                  in.hand = [k, v, lam, t](const MM& X) { return ref::gsm_grad_printed(X, k, v, lam, t); };
                  m = ref::gsm_abc(k, v, lam, t);
                  break;
                case 3:
                  in.L = [k, v, lam, t](const MM& X) { return ref::gsm_objective_eq81(X, k, v, lam, t); };
                  m = ref::gsm_abc(k, v, lam, t);
                  break;
                default:
                  in.L = [k, v, lam, t](const MM& X) { return ref::gsm_objective_eq36(X, k, v, lam, t); };
                  in.hand = [k, v, lam, t](const MM& X) { return ref::gsm_grad_eq36(X, k, v, lam, t); };
                  m = ref::gsm_abc(k, v, lam, t);
                  break;
              }
              in.update = [m](const MM& X) { return apply_abc(m, X); };
              in.S = to_mp(d.S);  // d_v x D_phi (D_phi = d_k by construction)
              return in;
            };
          }};
}

inline ClaimResult harness_claim(const CheckConfig& cfg, const std::string& tag, const std::vector<Row>& rows,
                          std::vector<std::pair<std::string, ClaimResult>> more = {}) {
  std::vector<std::pair<std::string, double>> rw;
  auto parts = grad_harness(cfg, tag, rows, &rw);
  for (auto& m : more) parts.push_back(std::move(m));
  return combine_parts(parts);
}

// ---- statistical helpers -----------------------------------------------------------------------

struct SlopeCI { double slope = 0, lo = 0, hi = 0; };
// Slope of mean_seed log(y) vs log(x); 95% bootstrap CI over seeds (200 resamples).
inline SlopeCI slope_ci(const std::vector<std::vector<double>>& y, const std::vector<double>& x, Rng& g) {
  const std::size_t ns = y.size(), nx = x.size();
  auto fit = [&](const std::vector<std::size_t>& idx) {
    std::vector<double> my(nx, 0.0);
    for (std::size_t j = 0; j < nx; ++j) {
      for (std::size_t s : idx) my[j] += std::log(std::max(y[s][j], 1e-300));
      my[j] /= static_cast<double>(idx.size());
    }
    double mx = 0, mm = 0;
    for (std::size_t j = 0; j < nx; ++j) { mx += std::log(x[j]); mm += my[j]; }
    mx /= nx; mm /= nx;
    double sxy = 0, sxx = 0;
    for (std::size_t j = 0; j < nx; ++j) { sxy += (std::log(x[j]) - mx) * (my[j] - mm); sxx += (std::log(x[j]) - mx) * (std::log(x[j]) - mx); }
    return sxy / sxx;
  };
  std::vector<std::size_t> all(ns);
  std::iota(all.begin(), all.end(), 0);
  SlopeCI r;
  r.slope = fit(all);
  std::vector<double> bs;
  std::uniform_int_distribution<std::size_t> U(0, ns - 1);
  for (int b = 0; b < 200; ++b) {
    std::vector<std::size_t> idx(ns);
    for (auto& i : idx) i = U(g);
    bs.push_back(fit(idx));
  }
  std::sort(bs.begin(), bs.end());
  r.lo = bs[4];
  r.hi = bs[194];
  return r;
}
inline double mean_col(const std::vector<std::vector<double>>& y, std::size_t j) {
  double s = 0;
  for (const auto& r : y) s += r[j];
  return s / static_cast<double>(y.size());
}
// The 200 bootstrap means of x (resampling with g), sorted: [4] and [194] bound the 95% CI.
inline std::vector<double> bootstrap_means(const std::vector<double>& x, Rng& g) {
  std::vector<double> bm;
  std::uniform_int_distribution<std::size_t> U(0, x.size() - 1);
  for (int b = 0; b < 200; ++b) {
    double s = 0;
    for (std::size_t i = 0; i < x.size(); ++i) s += x[U(g)];
    bm.push_back(s / x.size());
  }
  std::sort(bm.begin(), bm.end());
  return bm;
}

}  // namespace
}  // namespace recall::claim_support::a000_objective

namespace recall::claim_support::a000_theorem1 {
namespace {

using ref::ReadFn;

inline const mp_t& eighth() {
  static thread_local mp_t e;
  e = mp_t(1) / mp_t(8);
  return e;
}

// ---- key sets (A000-ASSUMP1 G1-G4), built at the current working digits ----------------------

struct KeySet {
  std::string name;
  std::function<MM()> make;  // deterministic: draws from its own seed on every call
};

inline KeySet g1(std::size_t n, std::size_t d) {
  return {"G1 orthonormal n=" + std::to_string(n) + " d=" + std::to_string(d),
          [=] { return ref::orthonormal_keys<mp_t>(n, d); }};
}
// G2: random unit keys; when below_eighth, the first draw (of at most 50) with coherence < 1/8.
inline KeySet g2(std::uint64_t seed, std::size_t n, std::size_t d, bool below_eighth) {
  return {"G2 random n=" + std::to_string(n) + " d=" + std::to_string(d), [=] {
            Rng g(seed);
            MM K;
            for (int tries = 0; tries < 50; ++tries) {
              K = ref::sphere_keys<mp_t>(g, n, d);
              if (!below_eighth || ref::coherence(K) < eighth()) break;
            }
            return K;
          }};
}
inline KeySet g3_hadamard(std::size_t n, std::size_t d) {
  return {"G3 standard+Hadamard n=" + std::to_string(n) + " d=" + std::to_string(d),
          [=] { return ref::hadamard_code_keys<mp_t>(n, d); }};
}
// G4: equiangular with inner product c = 1/8 + delta (delta as a signed power of two, exact)
inline KeySet g4_equi(std::size_t n, int sign, int pow2) {
  std::string dn = sign == 0 ? "1/8" : std::string("1/8") + (sign > 0 ? "+" : "-") + "2^-" + std::to_string(pow2);
  return {"G4 equiangular c=" + dn + " n=" + std::to_string(n), [=] {
            mp_t c = eighth();
            if (sign != 0) c += mp_t(sign) * mp_t(std::ldexp(1.0, -pow2));
            return ref::equiangular_keys<mp_t>(n, c);
          }};
}
// G4 adversarial for Lemma 1 case 2(i): keys 1..4 (j=1, i=2, l2=3, l1=4 in 1-based) with
// k_i.k_l1 = -c, k_i.k_l2 = +c, k_j.k_l1 = +c, k_j.k_l2 = -c, k_i.k_j = k_l1.k_l2 = -c, so that
// (k_i - k_j).(k_l1 - k_l2) = -4c; further keys (n > 4) equiangular at -c/(n) small.
inline KeySet g4_adv(std::size_t n, int sign, int pow2) {
  std::string dn = sign == 0 ? "1/8" : std::string("1/8") + (sign > 0 ? "+" : "-") + "2^-" + std::to_string(pow2);
  return {"G4 adversarial(case 2i) c=" + dn + " n=" + std::to_string(n), [=] {
            mp_t c = eighth();
            if (sign != 0) c += mp_t(sign) * mp_t(std::ldexp(1.0, -pow2));
            MM G(n, n);
            for (std::size_t i = 0; i < n; ++i)
              for (std::size_t j = 0; j < n; ++j) G(i, j) = i == j ? mp_t(1) : mp_t(c / mp_t(16));
            auto set = [&](std::size_t a, std::size_t b, const mp_t& v) { G(a, b) = v; G(b, a) = v; };
            set(1, 3, -c); set(1, 2, c); set(0, 3, c); set(0, 2, -c); set(0, 1, -c); set(2, 3, -c);
            return ref::gram_keys(G);
          }};
}

inline bool a1_holds(const MM& K, double* eps_out = nullptr) {
  const mp_t eps = ref::coherence(K);
  if (eps_out) *eps_out = to_d(eps);
  const double ug = to_d(ref::unit_norm_gap(K));
  return ug <= identity_threshold(mp_digits()) && eps < eighth();
}
// Assumption 2 for f at the set's coherence (closed neighbourhoods, the stricter reading).
inline bool a2_holds(ReadFn f, const mp_t& eps) {
  const auto fn = ref::make_fn<mp_t>(f);
  return to_d(ref::assumption2_gap(fn, mp_t(mp_t(4) * eps), true, 64)) <= identity_threshold(mp_digits());
}

inline MM values(std::uint64_t seed, std::size_t n, bool onehot, std::size_t dv) {
  if (onehot) {
    MM V(n, n);
    for (std::size_t i = 0; i < n; ++i) V(i, i) = mp_t(1);
    return V;
  }
  Rng g(seed);
  std::normal_distribution<double> N(0.0, 1.0);
  MM V(n, dv);
  for (auto& x : V.a) x = mp_t(N(g));
  return V;
}

struct SwapCfg {
  KeySet keys;
  ReadFn fw = ReadFn::round_int, fr = ReadFn::round_int;
  bool onehot = true;
  std::size_t dv = 4, T = 16;
  bool reversed = false;
  std::uint64_t seed = 0;
  std::string name() const {
    std::string s = keys.name + ", f_w=" + ref::read_fn_name(fw);
    if (fr != fw) s += ", f_r=" + std::string(ref::read_fn_name(fr));
    s += std::string(onehot ? ", one-hot v" : ", gauss v") + ", T_s=" + std::to_string(T);
    if (reversed) s += ", reversed differences";
    return s;
  }
};
struct SwapOutcome {
  ref::SwapStats st;
  double eps = 0;
  bool a1 = false, a2 = false;
};
inline SwapOutcome run_cfg(const SwapCfg& c, bool instrument, std::size_t compact = 0, bool log = false,
                    std::vector<MV>* R = nullptr, MM* U = nullptr) {
  SwapOutcome o;
  const MM K = c.keys.make();
  const std::size_t n = K.rows;
  const MM V = values(mix(c.seed, 1), n, c.onehot, c.dv);
  Rng g(mix(c.seed, 2));
  const auto swaps = ref::random_swaps(g, n, c.T);
  o.a1 = a1_holds(K, &o.eps);
  const mp_t eps = ref::coherence(K);
  o.a2 = c.fw == c.fr && a2_holds(c.fw, eps);
  ref::SwapOptions opt;
  opt.reversed = c.reversed;
  opt.instrument = instrument;
  opt.compact_every = compact;
  opt.exact_tol = identity_threshold(mp_digits());
  o.st = ref::run_swaps(K, V, swaps, ref::make_fn<mp_t>(c.fw), ref::make_fn<mp_t>(c.fr), opt, log, R, U);
  return o;
}
inline std::string stats_line(const SwapOutcome& o) {
  const auto& s = o.st;
  return "eps=" + fmt(o.eps, 4) + (o.a1 ? " (A1 ok)" : " (A1 fails)") + (o.a2 ? " (A2 ok)" : " (A2 fails)") +
         "; wrong exact " + std::to_string(s.wrong_exact) + "/" + std::to_string(s.readouts) + ", wrong decode " +
         std::to_string(s.wrong_decode) + ", max|o-v~| " + fmt(s.max_dev) + ", max|u|_inf " + fmt(s.max_u) +
         (s.first_fail_swap > 0 ? ", first failing swap " + std::to_string(s.first_fail_swap) : "");
}

// the candidate read-out functions f of Assumption 2 (A000-ASSUMP2, -LEMMA1, -THM1-INIT)
const std::vector<ReadFn> kCandidates = {ReadFn::round_int, ReadFn::identity, ReadFn::gqa_exp, ReadFn::floor_fn,
                                         ReadFn::round_2dec};

}  // namespace
}  // namespace recall::claim_support::a000_theorem1
