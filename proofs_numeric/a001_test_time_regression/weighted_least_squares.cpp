// Paper A001 (test-time regression, Wang, Shi & Fox), §4 Vignette 2, Eqs. (14)-(16) and "Efficient
// computation": weighted least squares with gate-product weights, their order, input-gated weights, the
// weighted LS memory (15) and its branches, the rescaling to unweighted LS, the underdetermined invariance
// claim, gated linear attention as WLS with K^T Gamma K ~ I, the F06 fast form (gated scans + per-t solves)
// and the equivalence-table row EQ06.
// Spec IDs: A001-WLS-OBJECTIVE, A001-WLS-WEIGHT-ORDER, A001-WLS-INPUT-GATE, A001-WLS-CLOSED-FORM,
// A001-WLS-RESCALE, A001-WLS-UNDERDET-INVARIANCE, A001-GATED-LINATTN-AS-WLS, A001-F06-WLS-GATEDSCAN-SOLVE,
// A001-EQ06-WLS-WRLS.
//
// Every verdict is computed from reference/include/recall/reference/weighted_least_squares.hpp instantiated
// with recall::mp_t (exact rationals for the weight order). Gate weights are exp of log-gate segment sums
// (README §1.5); a zero gate is a -inf log-gate. P-scaled items evaluate each prefix t at
//   D = d + 10 + f ceil(log10 kappa_t)   (f = 1 for SVD-only comparisons, 2 where a Gram S^G is formed),
// kappa_t = cond(K_a) sqrt(w_max / w_min), an upper bound on the condition number of Gamma_t^{1/2} K_t over its
// non-zero singular values (K_a: the keys with a non-zero weight; sigma_r(D K_a) >= sqrt(w_min) sigma_r(K_a)),
// and keep the P-50 threshold 10^-(d - 10). Prefixes needing more digits than the cap (600 quick, 1000 full)
// are skipped and counted in the evidence. Instances are drawn from std::mt19937_64 seeded by
// splitmix64(cfg.seed ^ fnv1a(tag) ^ splitmix64(n)), smallest sizes first; witnesses are 1-based.
#include "recall/proofs/ledger.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/regression_rules.hpp"
#include "recall/reference/svd.hpp"
#include "recall/reference/weighted_least_squares.hpp"
#include "claim_support.hpp"
#include "linear_attention_claims.hpp"

#include <boost/multiprecision/gmp.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::linattn;

using ref::Matrix;
using ref::Vector;
using mpq = boost::multiprecision::mpq_rational;
using mpz = boost::multiprecision::mpz_int;

// =============================================================================================
// shared: instances, gates, precision
// =============================================================================================

// the G5 gate kinds of this file (A001 C8): kA001Gates plus gates sigmoid(linear(x))
const std::vector<G5> kGates = {G5::uniform, G5::corners, G5::mixed_zeros, G5::beta51, G5::constant, G5::ones, G5::all_zero, G5::logit};

unsigned digit_cap(const CheckConfig& cfg) { return cfg.quick ? 600u : 1000u; }
// P-scaled digits of a prefix: d + 10 + f ceil(lc)
unsigned pdigits(unsigned d, double lc, int f) { return d + 10 + static_cast<unsigned>(f) * static_cast<unsigned>(std::ceil(std::max(0.0, lc))); }

// log-gates in double (for the precision estimates only): -inf for a zero gate
std::vector<double> log_gates_d(const Gates& g) {
  std::vector<double> l(g.v.size());
  for (std::size_t t = 0; t < l.size(); ++t) l[t] = g.logit ? ref::log_sigmoid(g.v[t]) : ref::log_gate(g.v[t]);
  return l;
}
// gate values at the current precision (products of the A001-WLS-OBJECTIVE check): exact for value gates,
// exp(log sigmoid) for logit gates
VM gate_values_mp(const Gates& g, const VM& lg) {
  VM v(g.v.size());
  for (std::size_t t = 0; t < v.size(); ++t) v[t] = g.logit ? ref::exp_log(lg[t]) : mp_t(g.v[t]);
  return v;
}
// a zero gate at 1-based position j in [2, t] (some weight gamma_i^(t) is exactly 0)
bool has_zero_weight(const Gates& g, std::size_t t) {
  if (g.logit) return false;
  for (std::size_t j = 1; j < t; ++j)
    if (g.v[j] == 0.0) return true;
  return false;
}

// Conditioning of a prefix (A001 C7 P-scaled): the keys with a non-zero weight and key, their rank and
// condition over the non-zero singular values (MP SVD at 40 digits of the double keys; rank threshold 1e-25),
// and the spread of their weights.
struct PrefixCond {
  std::size_t active = 0;  // keys with a non-zero weight and a non-zero key
  std::size_t rank = 0;    // rank of those keys (= rank Gamma_t^{1/2} K_t)
  double lc = 0;           // log10 of the bound kappa_t on cond(Gamma^{1/2} K_t)
  double l10_wmin = 0, l10_wmax = 0, l10_s1 = 0, l10_sr = 0;
  bool zero_w = false;     // some weight gamma_i^(t) is exactly 0
};
PrefixCond prefix_cond(const MD& K, const std::vector<double>& lgd, std::size_t t) {
  PrefixCond pc;
  std::vector<std::size_t> rows;
  std::vector<double> l10w;
  for (std::size_t i = 0; i < t; ++i) {
    double seg = 0;
    for (std::size_t j = i + 1; j < t; ++j) seg += lgd[j];
    if (std::isinf(seg)) {
      pc.zero_w = true;
      continue;
    }
    bool nz = false;
    for (std::size_t c = 0; c < K.cols; ++c) nz = nz || K(i, c) != 0.0;
    if (!nz) continue;
    rows.push_back(i);
    l10w.push_back(seg / std::log(10.0));
  }
  pc.active = rows.size();
  if (rows.empty()) return pc;
  pc.l10_wmin = *std::min_element(l10w.begin(), l10w.end());
  pc.l10_wmax = *std::max_element(l10w.begin(), l10w.end());
  MpDigitsScope sc(40);
  MM Ka(rows.size(), K.cols);
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t c = 0; c < K.cols; ++c) Ka(r, c) = mp_t(K(rows[r], c));
  const VM sv = ref::wls_detail::singular_values_checked(Ka);
  for (const mp_t& s : sv)
    if (s > mp_t(1e-25) * sv[0]) ++pc.rank;
  pc.l10_s1 = lg(sv[0]);
  pc.l10_sr = lg(sv[pc.rank - 1]);
  pc.lc = (pc.l10_s1 - pc.l10_sr) + 0.5 * (pc.l10_wmax - pc.l10_wmin);
  return pc;
}
std::vector<PrefixCond> prefix_conds(const MD& K, const Gates& g) {
  const auto lgd = log_gates_d(g);
  std::vector<PrefixCond> v;
  for (std::size_t t = 1; t <= K.rows; ++t) v.push_back(prefix_cond(K, lgd, t));
  return v;
}

// key generators of the WLS items: G1 (with the C8 key variants), G2 prescribed spectrum, G4 equicorrelated
enum class KeyGen { g1, g2, g4 };
MD g2_keys(Gen& g, std::size_t T, std::size_t dk, std::string& desc, bool allow_zero_sigma = true) {
  const std::size_t m = std::min(T, dk);
  const MD U = orthonormal_columns<double>(g.gauss(T, m)), W = orthonormal_columns<double>(g.gauss(dk, m));
  std::vector<double> s(m);
  const double u = g.unif();
  if (u < 0.5) {
    for (double& x : s) x = std::pow(10.0, -8.0 + 11.0 * g.unif());
    desc = "G2 sigma log-uniform [1e-8,1e3]";
  } else if (u < 0.65) {
    for (double& x : s) x = 1.0;
    desc = "G2 sigma = 1";
  } else if (u < 0.8 || !allow_zero_sigma || m < 2) {
    for (double& x : s) x = 1.0 + 1e-3 * g.normal();
    desc = "G2 sigma clustered 1 + 1e-3 N";
  } else {
    for (double& x : s) x = std::pow(10.0, -2.0 + 3.0 * g.unif());
    s[m - 1] = 0.0;
    desc = "G2 sigma log-uniform [1e-2,1e1] with one exact zero";
  }
  MD K(T, dk);
  for (std::size_t i = 0; i < T; ++i)
    for (std::size_t j = 0; j < dk; ++j) {
      double acc = 0;
      for (std::size_t r = 0; r < m; ++r) acc += U(i, r) * s[r] * W(j, r);
      K(i, j) = acc;
    }
  return K;
}
MD g4_keys(Gen& g, std::size_t T, std::size_t dk, std::string& desc) {
  static const double rhos[3] = {0.5, 0.9, 0.99};
  const double rho = rhos[g.integer(0, 2)];
  MD K(T, dk);
  for (std::size_t i = 0; i < T; ++i) {
    const double c = g.normal();
    for (std::size_t j = 0; j < dk; ++j) K(i, j) = std::sqrt(1 - rho) * g.normal() + std::sqrt(rho) * c;
  }
  desc = "G4 equicorrelated rho=" + fmt(rho);
  return K;
}

struct WInst {
  std::uint64_t seed = 0;
  Dims dm{};
  MD Q, K, V;
  Gates gates;
  std::string desc;
  std::vector<PrefixCond> pc;
};
WInst make_inst(const CheckConfig& cfg, std::string_view tag, int n, const Dims& dm, KeyGen kg, G5 gk) {
  WInst w;
  w.dm = dm;
  std::string kdesc;
  if (kg == KeyGen::g1) {
    G1Instance x = g1_instance(cfg, tag, n, dm);
    w.seed = x.seed;
    w.Q = x.Q;
    w.K = x.K;
    w.V = x.V;
    kdesc = "G1 " + x.ks.desc;
    w.gates = draw_gates(x.g, dm.T, gk);
  } else {
    w.seed = instance_seed(cfg, tag, static_cast<std::uint64_t>(n));
    Gen g(w.seed);
    w.Q = g.gauss(dm.T, dm.dk);
    w.V = g.gauss(dm.T, dm.dv);
    w.K = kg == KeyGen::g2 ? g2_keys(g, dm.T, dm.dk, kdesc) : g4_keys(g, dm.T, dm.dk, kdesc);
    w.gates = draw_gates(g, dm.T, gk);
  }
  w.desc = dims_desc(dm) + " " + kdesc + " " + w.gates.desc + " inst_seed=" + hex(w.seed);
  w.pc = prefix_conds(w.K, w.gates);
  return w;
}
std::vector<WInst> wls_instances(const CheckConfig& cfg, std::string_view tag, int per_T_quick, int per_T_full) {
  std::vector<WInst> v;
  int n = 0;
  for (const Dims& dm : schedule(cfg, tag, per_T_quick, per_T_full)) {
    v.push_back(make_inst(cfg, tag, n, dm, static_cast<KeyGen>(n % 3), kGates[static_cast<std::size_t>(n) % kGates.size()]));
    ++n;
  }
  return v;
}

// The prefixes t evaluated by the per-prefix checks: every t <= 2 D_k + 8 (the rank transitions, the first
// zero-gate windows), then every ceil(T/8)-th t and t = T (long full-campaign sequences).
std::vector<std::size_t> eval_prefixes(std::size_t T, std::size_t dk) {
  std::vector<std::size_t> ts;
  const std::size_t dense = std::min(T, 2 * dk + 8), step = std::max<std::size_t>(1, (T + 7) / 8);
  for (std::size_t t = 1; t <= T; ++t)
    if (t <= dense || t % step == 0 || t == T) ts.push_back(t);
  return ts;
}
std::string prefixes_note() { return "prefixes t <= 2 D_k + 8, then every ceil(T/8)-th and t = T"; }
// max over the listed prefixes t (1-based rows) of ||A_t - B_t|| / max(1, ||A_t||, ||B_t||); *at = worst t
double rows_rel(const MM& A, const MM& B, const std::vector<std::size_t>& ts, std::size_t* at) {
  double worst = 0;
  *at = ts.empty() ? 0 : ts[0];
  for (std::size_t t : ts) {
    const VM a(A.row(t - 1), A.row(t - 1) + A.cols), b(B.row(t - 1), B.row(t - 1) + B.cols);
    const double r = vecrel(a, b);
    if (r > worst) worst = r, *at = t;
  }
  return worst;
}

// |a - b| / |b| (0 when a == b, in particular both 0; inf when b == 0 != a)
double relerr(const mp_t& a, const mp_t& b) {
  if (a == b) return 0;
  if (b == 0) return INFINITY;
  return nan_inf(to_d(mp_t(abs(mp_t(a - b)) / abs(b))));
}
// normwise stationarity residual of the normal equations M S^G = R^G
double stationarity(const MM& M, const MM& S, const MM& R) {
  const MM MS = ref::matmul(M, S);
  const mp_t den = ref::frob(M) * ref::frob(S) + ref::frob(R);
  if (den == 0) return 0;
  return nan_inf(to_d(mp_t(ref::frob_diff(MS, R) / den)));
}
// rows scaled by s_i (the rescaled data Gamma^{1/2} K, Gamma^{1/2} V)
MM scale_rows(const MM& X, const VM& s) {
  MM Y(s.size(), X.cols);
  for (std::size_t i = 0; i < s.size(); ++i)
    for (std::size_t j = 0; j < X.cols; ++j) Y(i, j) = s[i] * X(i, j);
  return Y;
}
// memo of an instance evaluation per working digits (several statistics from one pass)
template <class R> class Memo {
 public:
  explicit Memo(std::function<R(unsigned)> f) : f_(std::move(f)) {}
  const R& at(unsigned d) {
    auto it = m_.find(d);
    if (it == m_.end()) it = m_.emplace(d, f_(d)).first;
    return it->second;
  }

 private:
  std::function<R(unsigned)> f_;
  std::map<unsigned, R> m_;
};
struct Res2 {
  double a = 0, b = 0;
  std::string wa, wb;
};
ClaimResult not_registered(const std::string& id) {
  ClaimResult r;
  r.verdict = Verdict::inconclusive;
  r.reason = "component " + id + " is not registered in this ledger";
  r.evidence.statistic = "component verdict";
  r.evidence.sizes = "not run";
  return r;
}

// =============================================================================================
// A001-WLS-OBJECTIVE
// =============================================================================================
ClaimResult a001_wls_objective(const CheckConfig& cfg) {
  const char* tag = "A001-WLS-OBJECTIVE";
  Checker wc("max over t, i of |gamma_i^(t) - prod_{j=i+1}^t gamma_j| / |prod| for the log-space weights exp(segment sum) and for the "
             "recursion gamma_i^(t) = gamma_t gamma_i^(t-1) (0 when both are 0)",
             cfg.digits);
  ZeroCheck last("max over t of |gamma_t^(t) - 1| for the log-space weights (must be exactly 0)", cfg.digits);
  Checker oc("max over t of |J_t(M) - 1/2 ||(V_t^T - M K_t^T) Gamma_t^{1/2}||_F^2| / J and |(J(M+E) - J(M-E))/2 - <grad J(M), E>| / "
             "(J(M+E) + J(M-E)) (central difference of a quadratic: exact up to rounding)",
             cfg.digits);
  int n = 0;
  for (const Dims& dm : schedule(cfg, tag, 8, 16)) {
    G1Instance x = g1_instance(cfg, tag, n, dm);
    const Gates gates = draw_gates(x.g, dm.T, kGates[static_cast<std::size_t>(n) % kGates.size()]);
    const MD M0 = x.g.gauss(dm.dv, dm.dk), E0 = x.g.gauss(dm.dv, dm.dk);
    const std::string desc = "G1 " + dims_desc(dm) + " " + x.ks.desc + " " + gates.desc + " inst_seed=" + hex(x.seed);
    wc.add(desc, [&](unsigned d, std::string& where) {
      MpDigitsScope sc(d);
      const VM lg = log_gates_mp(gates), gv = gate_values_mp(gates, lg);
      Worst w;
      VM rec;
      for (std::size_t t = 1; t <= dm.T; ++t) {
        const VM wl = ref::gate_weights(lg, t), wp = ref::gate_weights_product(gv, t);
        rec = t == 1 ? VM{mp_t(1)} : ref::gate_weights_step(rec, gv[t - 1]);
        for (std::size_t i = 0; i < t; ++i) {
          w.upd(relerr(wl[i], wp[i]), "log space vs product t=" + std::to_string(t) + " i=" + std::to_string(i + 1));
          w.upd(relerr(rec[i], wp[i]), "recursion vs product t=" + std::to_string(t) + " i=" + std::to_string(i + 1));
        }
      }
      where = w.where;
      return w.r;
    });
    last.add(desc, [&](unsigned d) {
      MpDigitsScope sc(d);
      const VM lg = log_gates_mp(gates);
      double r = 0;
      for (std::size_t t = 1; t <= dm.T; ++t) r = std::max(r, to_d(mp_t(abs(mp_t(ref::gate_weights(lg, t)[t - 1] - 1)))));
      return r;
    });
    oc.add(desc, [&](unsigned d, std::string& where) {
      MpDigitsScope sc(d);
      const MM K = to_mp(x.K), V = to_mp(x.V), M = to_mp(M0), E = to_mp(E0);
      const VM lg = log_gates_mp(gates);
      MM Mp = M, Mm = M;
      for (std::size_t i = 0; i < M.a.size(); ++i) {
        Mp.a[i] += E.a[i];
        Mm.a[i] -= E.a[i];
      }
      Worst w;
      for (std::size_t t = 1; t <= dm.T; ++t) {
        const VM wt = ref::gate_weights(lg, t), sw = ref::gate_weights_sqrt(lg, t);
        const mp_t J = ref::wls_objective(M, K, V, wt);
        // matrix form 1/2 ||(V_t^T - M K_t^T) Gamma^{1/2}||_F^2, column i scaled by sqrt(gamma_i^(t))
        mp_t J2(0);
        for (std::size_t i = 0; i < t; ++i) {
          const VM mk = ref::matvec(M, K.row(i));
          for (std::size_t c = 0; c < dm.dv; ++c) {
            const mp_t e = sw[i] * (V(i, c) - mk[c]);
            ref::muladd(J2, e, e);
          }
        }
        J2 /= 2;
        w.upd(relerr(J, J2), "objective vs matrix form t=" + std::to_string(t));
        const mp_t Jp = ref::wls_objective(Mp, K, V, wt), Jm = ref::wls_objective(Mm, K, V, wt);
        const MM G = ref::wls_objective_grad(M, K, V, wt);
        mp_t ip(0);
        for (std::size_t i = 0; i < G.a.size(); ++i) ref::muladd(ip, G.a[i], E.a[i]);
        const mp_t fd = (Jp - Jm) / 2, den = Jp + Jm;
        w.upd(den == 0 ? (fd == ip ? 0.0 : INFINITY) : to_d(mp_t(abs(mp_t(fd - ip)) / den)), "gradient t=" + std::to_string(t));
      }
      where = w.where;
      return w.r;
    });
    ++n;
  }
  const std::string sizes = "G1 " + sizes_desc(cfg) + " x G5 " + gate_kinds_desc(kGates) + "; " + seed_note(cfg, tag);
  return combine_parts({{"log-space weights = direct products = recursion", wc.result(cfg, sizes)},
                        {"gamma_t^(t) = 1", last.result(cfg, "same instances")},
                        {"objective (14) and its gradient", oc.result(cfg, "same instances, M, E ~ N(0,1)")}});
}

// =============================================================================================
// A001-WLS-WEIGHT-ORDER (exact rationals)
// =============================================================================================
struct ExactTally {
  long long nodes = 0, violations = 0;
  std::string witness;
};
// Exhaustive depth-first enumeration of gate sequences over an exact alphabet: at each prefix (gamma_1..gamma_t)
// the weights w_i = prod_{j=i+1}^t gamma_j come from the parent's by the recursion; checks w_t = 1 and
// w_i <= w_{i+1}; at the leaves (t = L) every weight is also recomputed as the direct product.
void order_dfs(const std::vector<std::pair<std::string, mpq>>& alpha, std::size_t L, std::vector<int>& seq, std::vector<mpq>& w,
               ExactTally& tally) {
  const std::size_t t = seq.size();
  ++tally.nodes;
  bool bad = !(w[t - 1] == 1);
  for (std::size_t i = 0; i + 1 < t && !bad; ++i) bad = w[i] > w[i + 1];
  if (t == L && !bad)
    for (std::size_t i = 0; i < t && !bad; ++i) {
      mpq p(1);
      for (std::size_t j = i + 1; j < t; ++j) p *= alpha[static_cast<std::size_t>(seq[j])].second;
      bad = !(p == w[i]);
    }
  if (bad) {
    if (tally.violations++ == 0) {
      tally.witness = "gates (";
      for (std::size_t j = 0; j < t; ++j) tally.witness += (j ? ", " : "") + alpha[static_cast<std::size_t>(seq[j])].first;
      tally.witness += ")";
    }
  }
  if (t == L) return;
  for (std::size_t c = 0; c < alpha.size(); ++c) {
    std::vector<mpq> w2(t + 1);
    for (std::size_t i = 0; i < t; ++i) w2[i] = w[i] * alpha[c].second;
    w2[t] = 1;
    seq.push_back(static_cast<int>(c));
    order_dfs(alpha, L, seq, w2, tally);
    seq.pop_back();
  }
}
ClaimResult exact_part(const CheckConfig& cfg, const std::string& statistic, const ExactTally& t, const std::string& sizes, const std::string& holds_reason) {
  ClaimResult r;
  Evidence& e = r.evidence;
  e.statistic = statistic;
  e.value = static_cast<double>(t.violations);
  e.threshold = 0;
  e.instances = static_cast<int>(std::min<long long>(t.nodes, 2000000000LL));
  e.sizes = sizes;
  e.digits = 0;
  e.seed = cfg.seed;
  if (t.violations == 0) {
    r.verdict = Verdict::holds;
    r.reason = holds_reason;
    e.witness = "none";
  } else {
    r.verdict = Verdict::violated;
    r.reason = "counterexample in exact rational arithmetic (no rounding, so no precision re-verification applies)";
    e.witness = t.witness;
  }
  return r;
}
ClaimResult a001_wls_weight_order(const CheckConfig& cfg) {
  const char* tag = "A001-WLS-WEIGHT-ORDER";
  // (a) exhaustive over an exact G5 alphabet
  const mpz e300 = boost::multiprecision::pow(mpz(10), 300), e12 = boost::multiprecision::pow(mpz(10), 12);
  const std::vector<std::pair<std::string, mpq>> alpha = {{"0", mpq(0)},           {"1", mpq(1)},          {"1e-300", mpq(mpz(1), e300)},
                                                          {"1-1e-12", mpq(e12 - 1, e12)}, {"1/3", mpq(1, 3)}, {"7/8", mpq(7, 8)}};
  const std::size_t L = cfg.quick ? 5 : 7;
  ExactTally ex;
  for (std::size_t c = 0; c < alpha.size(); ++c) {
    std::vector<int> seq = {static_cast<int>(c)};
    std::vector<mpq> w = {mpq(1)};
    order_dfs(alpha, L, seq, w, ex);
  }
  const std::string asz = "every sequence of length t = 1.." + std::to_string(L) + " over {0, 1, 1e-300, 1-1e-12, 1/3, 7/8} (exact)";
  ClaimResult pa = exact_part(cfg, "number of prefixes with w_t != 1 or w_i > w_{i+1} (or recursion != direct product at the leaves)", ex, asz,
                              "all " + std::to_string(ex.nodes) + " gate sequences satisfy gamma_1^(t) <= ... <= gamma_t^(t) = 1 exactly");
  // (b) random G5 sequences as exact rationals (doubles converted exactly), longer t
  ExactTally rb;
  const int nb = cfg.quick ? 24 : 200;
  const std::size_t Tb = cfg.quick ? 24 : 64;
  for (int n = 0; n < nb; ++n) {
    Gen g(instance_seed(cfg, std::string(tag) + "/random", static_cast<std::uint64_t>(n)));
    static const G5 kinds[6] = {G5::uniform, G5::beta51, G5::constant, G5::mixed_zeros, G5::corners, G5::ones};
    const Gates gates = draw_gates(g, Tb, kinds[n % 6]);
    std::vector<mpq> gq(Tb);
    for (std::size_t j = 0; j < Tb; ++j) gq[j] = mpq(gates.v[j]);
    for (std::size_t t = 1; t <= Tb; ++t) {
      ++rb.nodes;
      std::vector<mpq> w(t);
      for (std::size_t i = 0; i < t; ++i) {
        mpq p(1);
        for (std::size_t j = i + 1; j < t; ++j) p *= gq[j];
        w[i] = p;
      }
      bool bad = !(w[t - 1] == 1);
      for (std::size_t i = 0; i + 1 < t && !bad; ++i) bad = w[i] > w[i + 1];
      if (bad && rb.violations++ == 0) rb.witness = gates.desc + " t=" + std::to_string(t) + " seed " + std::to_string(n);
    }
  }
  ClaimResult pb = exact_part(cfg, "number of prefixes violating the order (direct products, exact)", rb,
                              std::to_string(nb) + " sequences of length " + std::to_string(Tb) + ", G5 {U(0,1), Beta(5,1), constant, mixed zeros, corners, ones} as exact rationals",
                              "every prefix of every random sequence is ordered exactly");
  // (c) the log-space weights of the references (MP): ordered within the R-ID tolerance, last weight exactly 1
  IdentityCheck ic("max over t, i of max(0, gamma_i^(t) - gamma_{i+1}^(t)) / gamma_{i+1}^(t) and |gamma_t^(t) - 1| (log-space weights, MP)", cfg.digits);
  for (int n = 0; n < nb; ++n) {
    Gen g(instance_seed(cfg, std::string(tag) + "/logspace", static_cast<std::uint64_t>(n)));
    const Gates gates = draw_gates(g, Tb, kGates[static_cast<std::size_t>(n) % kGates.size()]);
    ic.add(gates.desc + " T=" + std::to_string(Tb) + " seed " + std::to_string(n), [&](unsigned d) {
      MpDigitsScope sc(d);
      const VM lg = log_gates_mp(gates);
      double r = 0;
      for (std::size_t t = 1; t <= Tb; ++t) {
        const VM w = ref::gate_weights(lg, t);
        r = std::max(r, to_d(mp_t(abs(mp_t(w[t - 1] - 1)))));
        for (std::size_t i = 0; i + 1 < t; ++i) {
          if (w[i] <= w[i + 1]) continue;
          r = std::max(r, w[i + 1] == 0 ? INFINITY : to_d(mp_t((w[i] - w[i + 1]) / w[i + 1])));
        }
      }
      return r;
    });
  }
  ClaimResult pc = ic.result(cfg, std::to_string(nb) + " G5 sequences " + gate_kinds_desc(kGates) + ", T = " + std::to_string(Tb));
  ClaimResult r = combine_parts({{"(a) exhaustive, exact rationals", pa}, {"(b) random G5, exact rationals", pb}, {"(c) log-space weights (MP)", pc}});
  r.evidence.extra.emplace_back("note", "gamma_1 never enters a weight (spec ambiguity 10); the enumeration still ranges over it");
  return r;
}

// =============================================================================================
// A001-WLS-INPUT-GATE
// =============================================================================================
ClaimResult a001_wls_input_gate(const CheckConfig& cfg) {
  const char* tag = "A001-WLS-INPUT-GATE";
  Checker ck("max over t of the relative residual: V_t^T Gamma_t K_t with gamma_i^(t) = w_i prod_{j=i+1}^t gamma_j vs M_t = gamma_t M_{t-1} + w_t v_t k_t^T",
             cfg.digits);
  int n = 0;
  for (const Dims& dm : schedule(cfg, tag, 8, 16)) {
    G1Instance x = g1_instance(cfg, tag, n, dm);
    const Gates gates = draw_gates(x.g, dm.T, kGates[static_cast<std::size_t>(n) % kGates.size()]);
    const bool binary = n % 2 == 1;
    std::vector<double> w(dm.T);
    for (double& v : w) v = binary ? static_cast<double>(x.g.integer(0, 1)) : 2.0 * x.g.unif();
    const std::string desc = "G1 " + dims_desc(dm) + " " + x.ks.desc + " " + gates.desc + (binary ? " w in {0,1}" : " w ~ U(0,2)") + " inst_seed=" + hex(x.seed);
    ck.add(desc, [&](unsigned d, std::string& where) {
      MpDigitsScope sc(d);
      const MM K = to_mp(x.K), V = to_mp(x.V);
      const VM lg = log_gates_mp(gates), wm = to_mp(w);
      const auto Ms = ref::input_gated_recurrence(K, V, lg, wm);
      Worst wr;
      for (std::size_t t = 1; t <= dm.T; ++t)
        wr.upd(rel_res(Ms[t - 1], ref::weighted_cross_moment(K, V, ref::input_gated_weights(lg, wm, t))), "t=" + std::to_string(t));
      where = wr.where;
      return wr.r;
    });
    ++n;
  }
  return ck.result(cfg, "G1 " + sizes_desc(cfg) + " x G5 " + gate_kinds_desc(kGates) + " x input gates {U(0,2), {0,1}} (alternating); " + seed_note(cfg, tag));
}

// =============================================================================================
// A001-WLS-CLOSED-FORM
// =============================================================================================
struct SkipTally {
  int skipped = 0, evaluated = 0;
  unsigned max_digits = 0;
  std::string str() const {
    return std::to_string(evaluated) + " prefixes evaluated (max working digits " + std::to_string(max_digits) + "), " + std::to_string(skipped) +
           " skipped (P-scaled digits above the cap)";
  }
};
ClaimResult a001_wls_closed_form(const CheckConfig& cfg) {
  const char* tag = "A001-WLS-CLOSED-FORM";
  Checker st("stationarity: max over t of ||M S^G_t - R^G_t||_F / (||M||_F ||S^G_t||_F + ||R^G_t||_F) for the reference (every t) and the printed "
             "branch R^G (S^G)^{-1} (S^G_t invertible, all weights > 0)",
             cfg.digits);
  Checker br("max over t with S^G_t invertible of ||R^G_t (S^G_t)^{-1} - M_ref||_F / max(1, norms) (inf if the reference's rank differs from the "
             "rank of the weighted keys)",
             cfg.digits);
  const unsigned cap = digit_cap(cfg);
  SkipTally sk;
  int n_over = 0, n_sing = 0;
  for (const WInst& in : wls_instances(cfg, tag, 8, 3)) {
    Memo<Res2> memo([&](unsigned dg) {
      Res2 r;
      Worst ws, wb;
      for (std::size_t t : eval_prefixes(in.dm.T, in.dm.dk)) {
        const PrefixCond& pc = in.pc[t - 1];
        if (pdigits(cfg.digits, pc.lc, 2) > cap) {
          if (dg == cfg.digits) ++sk.skipped;
          continue;
        }
        const unsigned D = pdigits(dg, pc.lc, 2);
        if (dg == cfg.digits) {
          ++sk.evaluated;
          sk.max_digits = std::max(sk.max_digits, D);
        }
        MpDigitsScope sc(D);
        const MM K = to_mp(in.K), V = to_mp(in.V);
        const VM lg = log_gates_mp(in.gates);
        std::size_t rank = 0;
        const MM Mref = ref::wls_state(K, V, &lg, t, ref::wls_rank_tol<mp_t>(t), &rank);
        const VM w = ref::gate_weights(lg, t);
        const MM S = ref::weighted_key_gram(K, w), R = ref::weighted_cross_moment(K, V, w);
        const std::string at = " t=" + std::to_string(t) + " (digits " + std::to_string(D) + ")";
        ws.upd(stationarity(Mref, S, R), "reference" + at);
        const bool invertible = pc.rank == in.dm.dk;
        if (dg == cfg.digits) (invertible ? n_over : n_sing)++;
        if (rank != pc.rank) {
          wb.upd(INFINITY, "rank " + std::to_string(rank) + " of the reference != " + std::to_string(pc.rank) + at);
          continue;
        }
        if (!invertible) continue;
        const MM Mb = ref::wls_state_overdetermined(K, V, &lg, t);
        wb.upd(rel_res(Mb, Mref), "printed branch vs reference" + at);
        if (!pc.zero_w) ws.upd(stationarity(Mb, S, R), "printed branch" + at);
      }
      r.a = ws.r, r.wa = ws.where, r.b = wb.r, r.wb = wb.where;
      return r;
    });
    st.add(in.desc, [&](unsigned d, std::string& where) {
      where = memo.at(d).wa;
      return memo.at(d).a;
    });
    br.add(in.desc, [&](unsigned d, std::string& where) {
      where = memo.at(d).wb;
      return memo.at(d).b;
    });
  }
  const std::string sizes = "G1/G2/G4 keys (alternating) " + sizes_desc(cfg) + " x G5 " + gate_kinds_desc(kGates) +
                            "; " + prefixes_note() + ", each at D = d + 10 + 2 ceil(log10 kappa_t) digits; " + seed_note(cfg, tag);
  ClaimResult r = combine_parts({{"(i) stationarity", st.result(cfg, sizes)}, {"(ii) printed overdetermined branch = SVD reference", br.result(cfg, "same instances")}});
  r.evidence.extra.emplace_back("prefixes", sk.str() + "; " + std::to_string(n_over) + " with S^G_t invertible, " + std::to_string(n_sing) +
                                                " singular (t < D_k, zero gates leaving fewer than D_k weighted keys, rank-deficient keys: reference only)");
  r.evidence.extra.emplace_back("reference", "M_t = (Gamma^{1/2} V_t)^T ((Gamma^{1/2} K_t)^+)^T, SVD (one-sided Jacobi) at D digits, rank threshold 10^-(D-10) sigma_max");
  return r;
}

// =============================================================================================
// A001-WLS-RESCALE
// =============================================================================================
ClaimResult a001_wls_rescale(const CheckConfig& cfg) {
  const char* tag = "A001-WLS-RESCALE";
  Checker ob("(i) max over t of |J_t(M) - 1/2 sum_i ||sqrt(gamma_i) v_i - M sqrt(gamma_i) k_i||^2| / J_t(M) (M ~ N(0,1))", cfg.digits);
  Checker mn("(ii) max over t with S^G_t invertible of the relative residual between R^G (S^G)^{-1}, the unweighted printed LS formula "
             "V'^T K' (K'^T K')^{-1} and the unweighted SVD solution V'^T (K'^+)^T of the rescaled data K' = Gamma^{1/2} K, V' = Gamma^{1/2} V",
             cfg.digits);
  const unsigned cap = digit_cap(cfg);
  SkipTally sk;
  int n = 0;
  for (const WInst& in : wls_instances(cfg, tag, 8, 3)) {
    Gen g(instance_seed(cfg, std::string(tag) + "/M", static_cast<std::uint64_t>(n++)));
    const MD M0 = g.gauss(in.dm.dv, in.dm.dk);
    ob.add(in.desc, [&](unsigned d, std::string& where) {
      MpDigitsScope sc(d);
      const MM K = to_mp(in.K), V = to_mp(in.V), M = to_mp(M0);
      const VM lg = log_gates_mp(in.gates);
      Worst w;
      for (std::size_t t = 1; t <= in.dm.T; ++t) {
        const VM s = ref::gate_weights_sqrt(lg, t);
        const MM Ks = scale_rows(K, s), Vs = scale_rows(V, s);
        w.upd(relerr(ref::wls_objective(M, Ks, Vs, VM(t, mp_t(1))), ref::wls_objective(M, K, V, ref::gate_weights(lg, t))), "t=" + std::to_string(t));
      }
      where = w.where;
      return w.r;
    });
    mn.add(in.desc, [&](unsigned dg, std::string& where) {
      Worst w;
      for (std::size_t t : eval_prefixes(in.dm.T, in.dm.dk)) {
        const PrefixCond& pc = in.pc[t - 1];
        if (pc.rank != in.dm.dk) continue;
        if (pdigits(cfg.digits, pc.lc, 2) > cap) {
          if (dg == cfg.digits) ++sk.skipped;
          continue;
        }
        const unsigned D = pdigits(dg, pc.lc, 2);
        if (dg == cfg.digits) {
          ++sk.evaluated;
          sk.max_digits = std::max(sk.max_digits, D);
        }
        MpDigitsScope sc(D);
        const MM K = to_mp(in.K), V = to_mp(in.V);
        const VM lg = log_gates_mp(in.gates), s = ref::gate_weights_sqrt(lg, t);
        const MM Ks = scale_rows(K, s), Vs = scale_rows(V, s);
        const MM Mw = ref::wls_state_overdetermined(K, V, &lg, t);
        const MM Mu = ref::wls_state_overdetermined<mp_t>(Ks, Vs, nullptr, t);
        const MM Mp = ref::wls_state<mp_t>(Ks, Vs, nullptr, t, ref::wls_rank_tol<mp_t>(t));
        const std::string at = " t=" + std::to_string(t) + " (digits " + std::to_string(D) + ")";
        w.upd(rel_res(Mw, Mu), "weighted branch vs unweighted formula on rescaled data" + at);
        w.upd(rel_res(Mw, Mp), "weighted branch vs unweighted SVD on rescaled data" + at);
      }
      where = w.where;
      return w.r;
    });
  }
  const std::string sizes = "G1/G2/G4 keys (alternating) " + sizes_desc(cfg) + " x G5 " + gate_kinds_desc(kGates) + "; " + seed_note(cfg, tag);
  ClaimResult r = combine_parts({{"(i) objective values", ob.result(cfg, sizes + "; P-50")},
                                 {"(ii) overdetermined minimisers", mn.result(cfg, "same instances, " + prefixes_note() + ", P-scaled D = d + 10 + 2 ceil(log10 kappa_t)")}});
  r.evidence.extra.emplace_back("prefixes of (ii)", sk.str());
  return r;
}

// =============================================================================================
// A001-WLS-UNDERDET-INVARIANCE
// =============================================================================================
struct UInst {
  std::uint64_t seed = 0;
  std::size_t dk = 0, t = 0, dv = 0;
  MD K, V;
  Gates gates;
  std::string desc;
  PrefixCond pcw;  // weighted (active keys)
  double lcK = 0;  // log10 cond(K_t) (unweighted)
  bool zero = false;
};
// reading 1: weighted min-norm vs unweighted printed branch; reading 2: weighted ridge at a mu far inside the
// O(mu) regime vs the unweighted printed branch. Returns both residuals.
struct UEval {
  double r1 = 0, r2 = 0;
  double loss_printed = 0;  // weighted loss (14) of the printed branch V^T (K K^T)^{-1} K relative to 1/2 sum_i gamma_i ||v_i||^2
  unsigned D1 = 0, D2 = 0;
};
UEval underdet_eval(const UInst& u, unsigned dg) {
  UEval e;
  e.D1 = dg + 10 + static_cast<unsigned>(std::max(std::ceil(u.pcw.lc), 2 * std::ceil(u.lcK)));
  {
    MpDigitsScope sc(e.D1);
    const MM K = to_mp(u.K), V = to_mp(u.V);
    const VM lg = log_gates_mp(u.gates);
    const MM Mw = ref::wls_state(K, V, &lg, u.t, ref::wls_rank_tol<mp_t>(u.dk));
    const MM Mu = ref::wls_state_underdetermined(K, V, u.t);
    e.r1 = rel_res(Mw, Mu);
    const VM w = ref::gate_weights(lg, u.t);
    const mp_t l0 = ref::wls_objective(MM(u.dv, u.dk), K, V, w);
    e.loss_printed = l0 > 0 ? to_d(mp_t(ref::wls_objective(Mu, K, V, w) / l0)) : 0.0;
  }
  // mu = 10^-(dg+10) sigma_r(Gamma^{1/2} K)^2 lower bound: relative O(mu) error <= 10^-(dg+10)
  const double l10mu = -static_cast<double>(dg + 10) + 2.0 * (0.5 * u.pcw.l10_wmin + u.pcw.l10_sr);
  e.D2 = std::max(e.D1, dg + 10 + static_cast<unsigned>(std::ceil(dg + 10 + 2 * u.pcw.lc)) + 5);
  {
    MpDigitsScope sc(e.D2);
    const MM K = to_mp(u.K), V = to_mp(u.V);
    const VM lg = log_gates_mp(u.gates);
    const mp_t mu = boost::multiprecision::pow(mp_t(10), mp_t(std::floor(l10mu)));
    const MM Mr = ref::wls_ridge_state(K, V, &lg, u.t, mu);
    const MM Mu = ref::wls_state_underdetermined(K, V, u.t);
    e.r2 = rel_res(Mr, Mu);
  }
  return e;
}
ClaimResult a001_wls_underdet_invariance(const CheckConfig& cfg) {
  const char* tag = "A001-WLS-UNDERDET-INVARIANCE";
  const std::string s1 = "reading 1: ||M_w - V^T (K K^T)^{-1} K||_F / max(1, norms), M_w = min-norm element of the weighted argmin (SVD of Gamma^{1/2} K_t)";
  const std::string s2 = "reading 2: ||R^G (S^G + mu I)^{-1} - V^T (K K^T)^{-1} K||_F / max(1, norms) at mu = 10^-(d+10) sigma_r(Gamma^{1/2}K)^2 (O(mu) regime)";
  Checker r1p(s1, cfg.digits), r1z(s1, cfg.digits), r2p(s2, cfg.digits), r2z(s2, cfg.digits);
  const unsigned cap = digit_cap(cfg);
  const std::vector<std::size_t> dks = cfg.quick ? std::vector<std::size_t>{2, 3, 4} : std::vector<std::size_t>{2, 3, 4, 8, 16};
  const int reps = 2;
  int n = 0, excluded = 0;
  unsigned maxD = 0;
  double max_loss_printed = 0;
  std::vector<UInst> first_zero;  // the first instances with zero weights (for the ridge curve)
  UInst first_pos;
  bool have_pos = false;
  for (std::size_t dk : dks)
    for (std::size_t t = 1; t < dk; ++t)
      for (int rep = 0; rep < reps; ++rep)
        for (int kg = 0; kg < 2; ++kg)
          for (G5 gk : kGates) {
            UInst u;
            u.seed = instance_seed(cfg, tag, static_cast<std::uint64_t>(n++));
            Gen g(u.seed);
            u.dk = dk, u.t = t, u.dv = static_cast<std::size_t>(g.integer(1, 3));
            std::string kdesc;
            if (kg == 0) {
              u.K = g.gauss(t, dk);
              KeyScale ks = draw_key_scale(g, dk);
              for (double& x : u.K.a) x *= ks.factor;
              kdesc = "G1 " + ks.desc;
            } else {
              u.K = g2_keys(g, t, dk, kdesc, false);
            }
            u.V = g.gauss(t, u.dv);
            u.gates = draw_gates(g, t, gk);
            u.zero = has_zero_weight(u.gates, t);
            u.pcw = prefix_cond(u.K, log_gates_d(u.gates), t);
            Gates ones;
            ones.v.assign(t, 1.0);
            const PrefixCond pcu = prefix_cond(u.K, log_gates_d(ones), t);
            u.lcK = pcu.lc;
            u.desc = "D_k=" + std::to_string(dk) + " t=" + std::to_string(t) + " D_v=" + std::to_string(u.dv) + " " + kdesc + " " + u.gates.desc +
                     " inst_seed=" + hex(u.seed);
            if (pcu.rank != t) continue;  // the item needs rank K_t = t
            UEval e0;
            e0.D1 = cfg.digits + 10 + static_cast<unsigned>(std::max(std::ceil(u.pcw.lc), 2 * std::ceil(u.lcK)));
            e0.D2 = std::max(e0.D1, cfg.digits + 10 + static_cast<unsigned>(std::ceil(cfg.digits + 10 + 2 * u.pcw.lc)) + 5);
            Checker& c1 = u.zero ? r1z : r1p;
            Checker& c2 = u.zero ? r2z : r2p;
            if (e0.D2 > cap) {
              c1.exclude(u.desc, "needs " + std::to_string(e0.D2) + " digits > cap " + std::to_string(cap));
              c2.exclude(u.desc, "needs " + std::to_string(e0.D2) + " digits > cap " + std::to_string(cap));
              ++excluded;
              continue;
            }
            maxD = std::max(maxD, e0.D2);
            Memo<UEval> memo([&u](unsigned d) { return underdet_eval(u, d); });
            c1.add(u.desc, [&](unsigned d, std::string& where) {
              where = "digits " + std::to_string(memo.at(d).D1);
              return memo.at(d).r1;
            });
            max_loss_printed = std::max(max_loss_printed, memo.at(cfg.digits).loss_printed);
            c2.add(u.desc, [&](unsigned d, std::string& where) {
              where = "digits " + std::to_string(memo.at(d).D2);
              return memo.at(d).r2;
            });
            if (u.zero && first_zero.empty()) first_zero.push_back(u);
            if (!u.zero && !have_pos && u.t >= 2 && gk == G5::uniform) first_pos = u, have_pos = true;
          }
  const std::string sizes = "D_k in {" + join(dks) + "}, t = 1..D_k-1, G1 (x scale) and G2 keys of rank t, every G5 pattern " + gate_kinds_desc(kGates) +
                            (reps > 1 ? ", " + std::to_string(reps) + " seeds" : "") + "; " + seed_note(cfg, tag);
  std::vector<Part> parts = {{"reading 1, weights > 0", r1p.result(cfg, sizes)},
                             {"reading 1, with exact zero weights", r1z.result(cfg, "same generator, instances with a zero gate in 2..t")},
                             {"reading 2, weights > 0", r2p.result(cfg, "same instances as reading 1")},
                             {"reading 2, with exact zero weights", r2z.result(cfg, "same instances as reading 1")}};
  ClaimResult r = combine_parts(parts);
  // shrunk witness: the smallest failure class (D_k = 3, t = 2, gamma_2 = 0), canonical numbers
  {
    UInst u;
    u.dk = 3, u.t = 2, u.dv = 1;
    u.K = MD(2, 3), u.V = MD(2, 1);
    u.K(0, 0) = 1, u.K(1, 1) = 1, u.V(0, 0) = 1, u.V(1, 0) = 2;
    u.gates.v = {1.0, 0.0};
    u.pcw = prefix_cond(u.K, log_gates_d(u.gates), 2);
    u.lcK = 0;
    const UEval a = underdet_eval(u, cfg.digits), b = underdet_eval(u, 2 * cfg.digits);
    r.evidence.extra.emplace_back("shrunk witness (D_k=3, t=2, k_1=e_1, k_2=e_2, v=(1,2), gates (1, 0): weights (0, 1))",
                                  "reading 1 residual " + fmt(a.r1) + " (doubled digits " + fmt(b.r1) + "), reading 2 " + fmt(a.r2) + " (" + fmt(b.r2) +
                                      "); weighted min-norm memory [0 2 0] (interpolates only the pair with a non-zero weight), unweighted [1 2 0]");
  }
  r.evidence.extra.emplace_back("printed branch V^T (K K^T)^{-1} K as a minimiser of the weighted objective (14)",
                                "it interpolates every pair, so its weighted loss is zero for every weight pattern (also with zero weights): max over the "
                                "evaluated instances of J_t / (1/2 sum gamma_i ||v_i||^2) = " + fmt(max_loss_printed) +
                                "; it is a weighted minimiser but, with a zero weight, not the minimum-norm one");
  r.evidence.extra.emplace_back("precision", "reading 1 at d + 10 + max(ceil log10 kappa_t, 2 ceil log10 cond K_t) digits (>= 30 + 1/2 log10(1/w_min)), reading 2 at "
                                             "2d + 25 + 2 ceil log10 kappa_t; max used " + std::to_string(maxD) + "; excluded (above cap " + std::to_string(cap) +
                                             "): " + std::to_string(excluded));
  // ridge curve: error vs mu for one positive-weight and one zero-weight instance
  ClaimFigure fig;
  fig.id = "ridge_limit";
  fig.title = "Weighted ridge R^G (S^G + mu I)^-1 as mu -> 0+, underdetermined t < D_k";
  fig.caption = "Relative distance of the weighted ridge memory to the unweighted min-norm memory V^T (K K^T)^-1 K and to the weighted "
                "min-norm memory. With positive weights both limits coincide; with a zero weight the ridge converges (O(mu)) to the weighted "
                "min-norm memory, which differs from the unweighted one.";
  fig.x_label = "mu";
  fig.y_label = "relative distance";
  fig.x_scale = fig.y_scale = "log";
  const int kmax = cfg.quick ? 24 : 40;
  std::string slopes;
  auto curve = [&](const UInst& u, const std::string& name, const std::string& grp) {
    FigureSeries su{name + ": to the unweighted min-norm", {}, {}, "solid", "o", grp};
    FigureSeries sw{name + ": to the weighted min-norm", {}, {}, "dashed", "s", grp};
    std::vector<double> lx, ly;
    for (int k = 1; k <= kmax; ++k) {
      MpDigitsScope sc(cfg.digits + static_cast<unsigned>(k) + 20 + 2 * static_cast<unsigned>(std::ceil(u.pcw.lc)));
      const MM K = to_mp(u.K), V = to_mp(u.V);
      const VM lg = log_gates_mp(u.gates);
      const mp_t mu = boost::multiprecision::pow(mp_t(10), mp_t(-k));
      const MM Mr = ref::wls_ridge_state(K, V, &lg, u.t, mu);
      const double du = rel_res(Mr, ref::wls_state_underdetermined(K, V, u.t));
      const double dw = rel_res(Mr, ref::wls_state(K, V, &lg, u.t, ref::wls_rank_tol<mp_t>(u.dk)));
      su.x.push_back(std::pow(10.0, -k)), su.y.push_back(du);
      sw.x.push_back(std::pow(10.0, -k)), sw.y.push_back(dw);
      if (k > kmax / 2 && dw > 0) lx.push_back(std::pow(10.0, -k)), ly.push_back(dw);
    }
    if (lx.size() >= 3) {
      std::vector<double> x2(lx.rbegin(), lx.rend()), y2(ly.rbegin(), ly.rend());
      const Fit f = loglog_fit(x2, y2);
      slopes += (slopes.empty() ? "" : "; ") + name + ": slope of the distance to the weighted min-norm " + fmt(f.slope, 4) + ", distance to the unweighted at mu=1e-" +
                std::to_string(kmax) + " " + fmt(su.y.back());
    }
    fig.series.push_back(su);
    fig.series.push_back(sw);
  };
  if (have_pos) curve(first_pos, "weights > 0 (" + first_pos.desc + ")", "pos");
  if (!first_zero.empty()) curve(first_zero[0], "zero weight (" + first_zero[0].desc + ")", "zero");
  if (!slopes.empty()) r.evidence.extra.emplace_back("ridge curves (mu = 10^-k, k = 1.." + std::to_string(kmax) + ")", slopes);
  if (!fig.series.empty()) r.evidence.figures.push_back(fig);
  if (r.verdict == Verdict::violated)
    r.reason += " [summary: both readings hold when every weight is positive, including weights down to 1e-300 products resolved at P-scaled digits; "
                "with an exact zero gate gamma_j = 0 (allowed by Eq. 14, gamma_i in [0, 1]) the weighted objective ignores the pairs i < j and its "
                "min-norm solution (and the ridge limit) interpolates only the remaining pairs, so it differs from the unweighted solution]";
  return r;
}

// =============================================================================================
// A001-GATED-LINATTN-AS-WLS
// =============================================================================================
// V-free operator gap ||(A^+)^T - A||_F / ||A^+||_F of A = Gamma^{1/2} K (zero iff every non-zero singular value of A
// is 1), and the output-state gap ||M_WLS - R^G||_F / ||M_WLS||_F for the given V.
template <class S> struct Gap {
  double op = INFINITY, out = INFINITY;
};
template <class S> Gap<S> wls_gap(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& lg, std::size_t t, const S& rel_tol) {
  Gap<S> g;
  const Vector<S> sw = ref::gate_weights_sqrt(lg, t);
  Matrix<S> A(t, K.cols);
  for (std::size_t i = 0; i < t; ++i)
    for (std::size_t j = 0; j < K.cols; ++j) A(i, j) = sw[i] * K(i, j);
  const Matrix<S> Ap = ref::wls_detail::pinv_checked(A, rel_tol, static_cast<std::size_t*>(nullptr));
  const S na = ref::frob(Ap);
  if (na > S(0)) g.op = ref::convert<double>(S(ref::frob_diff(ref::transpose(Ap), A) / na));
  const Matrix<S> Mw = ref::wls_state(K, V, &lg, t, rel_tol);
  const Matrix<S> Rg = ref::weighted_cross_moment(K, V, ref::gate_weights(lg, t));
  const S nm = ref::frob(Mw);
  if (nm > S(0)) g.out = ref::convert<double>(S(ref::frob_diff(Mw, Rg) / nm));
  return g;
}
// Nelder-Mead minimisation in fp64 (standard coefficients 1, 2, 1/2, 1/2); returns the best point.
std::vector<double> nelder_mead(const std::function<double(const std::vector<double>&)>& f, std::vector<double> x0, double step, int max_evals, double* fbest) {
  const std::size_t n = x0.size();
  std::vector<std::vector<double>> P(n + 1, x0);
  std::vector<double> F(n + 1);
  for (std::size_t i = 0; i < n; ++i) P[i + 1][i] += step;
  int ev = 0;
  for (std::size_t i = 0; i <= n; ++i) F[i] = f(P[i]), ++ev;
  while (ev < max_evals) {
    std::vector<std::size_t> o(n + 1);
    for (std::size_t i = 0; i <= n; ++i) o[i] = i;
    std::sort(o.begin(), o.end(), [&](std::size_t a, std::size_t b) { return F[a] < F[b]; });
    const std::size_t best = o[0], worst = o[n], second = o[n - 1];
    std::vector<double> c(n, 0.0);
    for (std::size_t i = 0; i <= n; ++i)
      if (i != worst)
        for (std::size_t j = 0; j < n; ++j) c[j] += P[i][j] / static_cast<double>(n);
    auto along = [&](double a) {
      std::vector<double> y(n);
      for (std::size_t j = 0; j < n; ++j) y[j] = c[j] + a * (P[worst][j] - c[j]);
      return y;
    };
    const std::vector<double> xr = along(-1.0);
    const double fr = f(xr);
    ++ev;
    if (fr < F[best]) {
      const std::vector<double> xe = along(-2.0);
      const double fe = f(xe);
      ++ev;
      if (fe < fr) P[worst] = xe, F[worst] = fe;
      else P[worst] = xr, F[worst] = fr;
    } else if (fr < F[second]) {
      P[worst] = xr, F[worst] = fr;
    } else {
      const std::vector<double> xc = along(0.5);
      const double fc = f(xc);
      ++ev;
      if (fc < F[worst]) {
        P[worst] = xc, F[worst] = fc;
      } else {
        for (std::size_t i = 0; i <= n; ++i)
          if (i != best) {
            for (std::size_t j = 0; j < n; ++j) P[i][j] = P[best][j] + 0.5 * (P[i][j] - P[best][j]);
            F[i] = f(P[i]), ++ev;
          }
      }
    }
  }
  std::size_t b = 0;
  for (std::size_t i = 1; i <= n; ++i)
    if (F[i] < F[b]) b = i;
  *fbest = F[b];
  return P[b];
}
ClaimResult a001_gated_linattn_as_wls(const CheckConfig& cfg) {
  const char* tag = "A001-GATED-LINATTN-AS-WLS";
  // exact content: K_t = Gamma_t^{-1/2} U (U orthonormal columns, weights > 0, t >= D_k) gives K^T Gamma K = I, where the WLS
  // memory must equal the gated linear-attention state of recurrence (4)
  Checker ex("max of ||M_WLS,t - M_t (recurrence (4))||, ||y_t - y_t^(4)|| (relative) and ||K_t^T Gamma_t K_t - I||_F on the constructed instances", cfg.digits);
  const std::vector<std::size_t> dks = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 4} : std::vector<std::size_t>{1, 2, 3, 4, 8};
  static const G5 pos_kinds[6] = {G5::uniform, G5::beta51, G5::constant, G5::ones, G5::corners, G5::logit};
  int n = 0;
  for (std::size_t dk : dks)
    for (std::size_t t : {dk, dk + 1, 2 * dk, 3 * dk + 1}) {
      const std::uint64_t s = instance_seed(cfg, tag, static_cast<std::uint64_t>(n));
      Gen g(s);
      const std::size_t dv = static_cast<std::size_t>(g.integer(1, 3));
      const MD Ug = g.gauss(t, dk), Vd = g.gauss(t, dv), qd = g.gauss(1, dk);
      Gates gates = draw_gates(g, t, pos_kinds[n % 6]);
      std::string repl;
      if (!gates.logit)
        for (double& x : gates.v)
          if (x == 0.0) x = 1e-300, repl = " (zero gates replaced by 1e-300: the construction needs Gamma_t > 0)";
      const std::string desc = "D_k=" + std::to_string(dk) + " t=" + std::to_string(t) + " D_v=" + std::to_string(dv) + " " + gates.desc + repl + " inst_seed=" + hex(s);
      ex.add(desc, [&, t, dk](unsigned d, std::string& where) {
        MpDigitsScope sc(d);
        const MM U = orthonormal_columns<mp_t>(Ug), V = to_mp(Vd);
        const VM lg = log_gates_mp(gates), sw = ref::gate_weights_sqrt(lg, t);
        MM K(t, dk), Q(t, dk);
        for (std::size_t i = 0; i < t; ++i)
          for (std::size_t j = 0; j < dk; ++j) K(i, j) = U(i, j) / sw[i];
        for (std::size_t j = 0; j < dk; ++j) Q(t - 1, j) = mp_t(qd(0, j));
        Worst w;
        const MM KGK = ref::weighted_key_gram(K, ref::gate_weights(lg, t));
        w.upd(rel_res(KGK, identity_matrix<mp_t>(dk)), "K^T Gamma K vs I");
        const MM Mw = ref::wls_state(K, V, &lg, t, ref::wls_rank_tol<mp_t>(t));
        const auto rec = ref::gated_linear_attention(Q, K, V, lg);
        w.upd(rel_res(Mw, rec.state), "WLS memory vs recurrence (4) state at t=" + std::to_string(t));
        const VM yw = ref::matvec(Mw, Q.row(t - 1));
        w.upd(rel_res(yw, VM(rec.O.row(t - 1), rec.O.row(t - 1) + dv)), "outputs at t=" + std::to_string(t));
        where = w.where;
        return w.r;
      });
      ++n;
    }
  ClaimResult exact = ex.result(cfg, "D_k in {" + join(dks) + "}, t in {D_k, D_k+1, 2D_k, 3D_k+1}, G5 gates > 0 {U(0,1), Beta(5,1), constant, ones, corners, sigmoid}; P-50; " +
                                         seed_note(cfg, tag));

  // zero gap also for t < D_k when Gamma^{1/2} K has orthonormal rows (K^T Gamma K is then a projection, not I)
  double under_gap = 0;
  for (std::size_t dk : {std::size_t(3), std::size_t(4)})
    for (std::size_t t = 1; t < dk; ++t) {
      Gen g(instance_seed(cfg, std::string(tag) + "/under", dk * 10 + t));
      const MD Ug = g.gauss(dk, t), Vd = g.gauss(t, 2);
      const Gates gates = draw_gates(g, t, G5::uniform);
      MpDigitsScope sc(cfg.digits);
      const MM U = orthonormal_columns<mp_t>(Ug);  // dk x t
      const VM lg = log_gates_mp(gates), sw = ref::gate_weights_sqrt(lg, t);
      MM K(t, dk);
      for (std::size_t i = 0; i < t; ++i)
        for (std::size_t j = 0; j < dk; ++j) K(i, j) = U(j, i) / sw[i];
      under_gap = std::max(under_gap, wls_gap(K, to_mp(Vd), lg, t, ref::wls_rank_tol<mp_t>(dk)).op);
    }

  // gap surface
  const std::vector<std::size_t> sdks = cfg.quick ? std::vector<std::size_t>{2, 4} : std::vector<std::size_t>{2, 4, 8};
  const std::vector<double> ratios = {0.5, 1.0, 1.5, 2.0, 4.0};
  const std::vector<double> rhos = {0.0, 0.5, 0.9, 0.99};
  const std::vector<double> scales = {-1.0, 0.0, 1.0};  // -1: D_k^{-1/2}; else 10^a
  static const G5 sk[6] = {G5::uniform, G5::beta51, G5::constant, G5::ones, G5::corners, G5::mixed_zeros};
  const int seeds = cfg.quick ? 1 : 2;
  std::map<std::pair<int, int>, std::vector<double>> by_ratio_rho;  // (ratio idx, rho idx) -> gaps
  std::map<int, std::vector<double>> by_gate, by_scale;
  int surf_n = 0, surf_skip = 0, surf_below = 0;
  double surf_min = INFINITY;
  std::string surf_min_at;
  for (std::size_t dk : sdks)
    for (std::size_t ri = 0; ri < ratios.size(); ++ri)
      for (std::size_t rj = 0; rj < rhos.size(); ++rj)
        for (std::size_t si = 0; si < scales.size(); ++si)
          for (int gi = 0; gi < 6; ++gi)
            for (int sd = 0; sd < seeds; ++sd) {
              const std::size_t t = std::max<std::size_t>(1, static_cast<std::size_t>(std::lround(ratios[ri] * dk)));
              Gen g(instance_seed(cfg, std::string(tag) + "/surface", static_cast<std::uint64_t>(surf_n++)));
              const double rho = rhos[rj];
              const double sc = scales[si] < -0.5 ? 1.0 / std::sqrt(static_cast<double>(dk)) : std::pow(10.0, scales[si]);
              MD K(t, dk);
              for (std::size_t i = 0; i < t; ++i) {
                const double c = g.normal();
                for (std::size_t j = 0; j < dk; ++j) K(i, j) = sc * (std::sqrt(1 - rho) * g.normal() + std::sqrt(rho) * c);
              }
              const MD V = g.gauss(t, 2);
              const Gates gates = draw_gates(g, t, sk[gi]);
              const PrefixCond pc = prefix_cond(K, log_gates_d(gates), t);
              const unsigned D = pdigits(cfg.digits, pc.lc, 1);
              if (D > 400) {
                ++surf_skip;
                continue;
              }
              MpDigitsScope scp(D);
              const VM lg = log_gates_mp(gates);
              const Gap<mp_t> gp = wls_gap(to_mp(K), to_mp(V), lg, t, ref::wls_rank_tol<mp_t>(dk));
              by_ratio_rho[{static_cast<int>(ri), static_cast<int>(rj)}].push_back(gp.op);
              by_gate[gi].push_back(gp.op);
              by_scale[static_cast<int>(si)].push_back(gp.op);
              if (gp.op <= 1e-30) ++surf_below;
              if (gp.op < surf_min) {
                surf_min = gp.op;
                surf_min_at = "D_k=" + std::to_string(dk) + " t=" + std::to_string(t) + " rho=" + fmt(rho) + " scale=" + fmt(sc) + " " + gates.desc;
              }
            }
  ClaimFigure fig;
  fig.id = "gap_surface";
  fig.title = "Gated linear attention vs weighted LS: operator gap ||(A^+)^T - A||_F / ||A^+||_F, A = Gamma^{1/2} K";
  fig.caption = "Median over G5 gate patterns {U(0,1), Beta(5,1), constant, ones, corners, mixed zeros}, key scales {D_k^-1/2, 1, 10} and D_k in {" + join(sdks) +
                "} of the V-free gap between the WLS memory and the gated linear-attention state R^G = V^T Gamma K, against t / D_k, one curve per key "
                "correlation rho (G4). The gap vanishes exactly when every non-zero singular value of Gamma^{1/2} K equals 1.";
  fig.x_label = "t / D_k";
  fig.y_label = "median gap";
  fig.y_scale = "log";
  std::string surface;
  for (std::size_t rj = 0; rj < rhos.size(); ++rj) {
    FigureSeries s{"rho = " + fmt(rhos[rj]), {}, {}, "solid", "o", ""};
    for (std::size_t ri = 0; ri < ratios.size(); ++ri) {
      const auto it = by_ratio_rho.find({static_cast<int>(ri), static_cast<int>(rj)});
      if (it == by_ratio_rho.end()) continue;
      s.x.push_back(ratios[ri]);
      s.y.push_back(median(it->second));
      surface += "t/D_k=" + fmt(ratios[ri]) + ",rho=" + fmt(rhos[rj]) + ": " + fmt(median(it->second)) + "; ";
    }
    fig.series.push_back(s);
  }
  std::string gate_med, scale_med;
  for (int gi = 0; gi < 6; ++gi)
    if (by_gate.count(gi)) gate_med += std::string(g5_name(sk[gi])) + " " + fmt(median(by_gate[gi])) + "; ";
  for (std::size_t si = 0; si < scales.size(); ++si)
    if (by_scale.count(static_cast<int>(si))) scale_med += (scales[si] < -0.5 ? std::string("D_k^-1/2") : "10^" + fmt(scales[si])) + " " + fmt(median(by_scale[static_cast<int>(si)])) + "; ";

  // adversarial gap minimisation (fp64 Nelder-Mead over the keys, gates fixed per restart), top candidates at P-50
  struct Cand {
    double f64 = INFINITY, mp = INFINITY;
    std::string at, sv;
  };
  std::vector<Cand> cands;
  const int restarts = cfg.quick ? 2 : 8, evals = cfg.quick ? 400 : 2000;
  const std::vector<std::pair<std::size_t, std::size_t>> shapes = {{2, 1}, {2, 2}, {2, 4}, {3, 5}};
  static const G5 ak[3] = {G5::uniform, G5::beta51, G5::mixed_zeros};
  int an = 0;
  for (const auto& [dk, t] : shapes)
    for (int rs = 0; rs < restarts; ++rs) {
      Gen g(instance_seed(cfg, std::string(tag) + "/adversarial", static_cast<std::uint64_t>(an++)));
      const Gates gates = draw_gates(g, t, ak[rs % 3]);
      const std::vector<double> lgd = log_gates_d(gates);
      const MD Vd = g.gauss(t, 1);
      std::vector<double> x0(t * dk);
      for (double& x : x0) x = g.normal();
      auto obj = [&](const std::vector<double>& x) {
        MD K(t, dk);
        for (std::size_t i = 0; i < x.size(); ++i) K.a[i] = x[i];
        try {
          const double gp = wls_gap(K, Vd, lgd, t, ref::wls_rank_tol<double>(std::max(t, dk))).op;
          return std::isfinite(gp) ? std::log10(std::max(gp, 1e-300)) : 10.0;
        } catch (const std::exception&) {
          return 10.0;
        }
      };
      double fb = 0;
      const std::vector<double> xb = nelder_mead(obj, x0, 0.5, evals, &fb);
      Cand c;
      c.f64 = std::pow(10.0, fb);
      c.at = "D_k=" + std::to_string(dk) + " t=" + std::to_string(t) + " " + gates.desc;
      {
        MpDigitsScope sc(cfg.digits);
        MD K(t, dk);
        for (std::size_t i = 0; i < xb.size(); ++i) K.a[i] = xb[i];
        const VM lg = log_gates_mp(gates);
        c.mp = wls_gap(to_mp(K), to_mp(Vd), lg, t, ref::wls_rank_tol<mp_t>(std::max(t, dk))).op;
        const VM sw = ref::gate_weights_sqrt(lg, t);
        MM A(t, dk);
        for (std::size_t i = 0; i < t; ++i)
          for (std::size_t j = 0; j < dk; ++j) A(i, j) = sw[i] * mp_t(K(i, j));
        const VM sv = ref::wls_detail::singular_values_checked(A);
        c.sv = "singular values of Gamma^{1/2} K: ";
        for (std::size_t i = 0; i < sv.size(); ++i) c.sv += (i ? ", " : "") + fmt(to_d(sv[i]), 8);
      }
      cands.push_back(c);
    }
  std::sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) { return a.mp < b.mp; });
  std::string adv;
  for (std::size_t i = 0; i < std::min<std::size_t>(3, cands.size()); ++i)
    adv += (i ? " | " : "") + cands[i].at + ": gap at P-50 " + fmt(cands[i].mp) + " (fp64 objective " + fmt(cands[i].f64) + "); " + cands[i].sv;
  std::string worst_restart;
  if (!cands.empty()) worst_restart = fmt(cands.back().mp) + " (" + cands.back().at + ")";

  ClaimResult r = exact;
  r.reason = "approximation decided on its exact content (R-APPROX): " + exact.reason +
             "; with K^T Gamma K = I the WLS memory equals the gated linear-attention state. The gap vanishes exactly when every non-zero singular "
             "value of Gamma^{1/2} K is 1 (also for t < D_k with orthonormal rows of Gamma^{1/2} K, where K^T Gamma K is a projection, not I: max gap " +
             fmt(under_gap) + "); on the random surface it is O(1) (minimum " + fmt(surf_min) + ", " + std::to_string(surf_below) +
             " instances <= 1e-30), and the adversarial search (fp64 Nelder-Mead, optimum re-evaluated at P-50) drives it to " +
             (cands.empty() ? std::string("n/a") : fmt(cands[0].mp)) + " only by approaching that partial-isometry set (singular values -> 1)";
  r.evidence.extra.emplace_back("gap at constructed t < D_k partial isometries (Gamma^{1/2} K with orthonormal rows)", fmt(under_gap));
  r.evidence.extra.emplace_back("gap surface: median by t/D_k and rho", surface);
  r.evidence.extra.emplace_back("gap surface: median by gate pattern", gate_med);
  r.evidence.extra.emplace_back("gap surface: median by key scale", scale_med);
  r.evidence.extra.emplace_back("gap surface: instances, minimum, <= 1e-30",
                                std::to_string(surf_n - surf_skip) + " evaluated (" + std::to_string(surf_skip) + " skipped: > 400 digits), minimum " + fmt(surf_min) +
                                    " at " + surf_min_at + ", " + std::to_string(surf_below) + " with gap <= 1e-30");
  r.evidence.extra.emplace_back("adversarial minimisation (Nelder-Mead fp64 on log10 gap over the keys, " + std::to_string(restarts) + " restarts x " +
                                    std::to_string(shapes.size()) + " shapes, " + std::to_string(evals) + " evaluations; every optimum re-evaluated at P-50, best 3 shown)",
                                adv + "; worst restart " + worst_restart);
  r.evidence.figures.push_back(fig);
  return r;
}

// =============================================================================================
// A001-F06-WLS-GATEDSCAN-SOLVE
// =============================================================================================
struct F06Eval {
  double ref = 0, wrls = -1;  // wrls < 0: not applicable
  std::string wref, wwrls;
  std::array<int, 3> branches{0, 0, 0};
  unsigned D = 0;
  std::vector<std::size_t> ts;  // the prefixes compared with the reference
  MD yref;                      // the reference outputs at those prefixes (rows t - 1), rounded to double
};
// max over t of lc_t (the digits of the instance), and whether every prefix fits under the cap
double max_lc(const WInst& in) {
  double m = 0;
  for (const PrefixCond& pc : in.pc) m = std::max(m, pc.lc);
  return m;
}
double sum_log10_inv_gates(const Gates& g) {
  double s = 0;
  for (double l : log_gates_d(g)) s += -l / std::log(10.0);
  return s;
}
bool gates_positive(const Gates& g) {
  if (g.logit) return true;
  for (double x : g.v)
    if (!(x > 0)) return false;
  return true;
}
F06Eval f06_eval(const WInst& in, unsigned dg, const std::vector<std::size_t>& chunks) {
  F06Eval e;
  const std::size_t T = in.dm.T, dk = in.dm.dk;
  e.D = pdigits(dg, max_lc(in), 2);
  {
    MpDigitsScope sc(e.D);
    const MM Q = to_mp(in.Q), K = to_mp(in.K), V = to_mp(in.V);
    const VM lg = log_gates_mp(in.gates);
    // reference outputs y_t = M_t q_t (SVD of Gamma_t^{1/2} K_t) at the evaluated prefixes
    e.ts = eval_prefixes(T, dk);
    MM Yref(T, in.dm.dv);
    for (std::size_t t : e.ts) ref::matvec_into(Yref.row(t - 1), ref::wls_state(K, V, &lg, t, ref::wls_rank_tol<mp_t>(std::max(t, dk))), Q.row(t - 1));
    e.yref = MD(T, in.dm.dv);
    for (std::size_t i = 0; i < Yref.a.size(); ++i) e.yref.a[i] = to_d(Yref.a[i]);
    Worst w;
    std::vector<std::size_t> cs = {0};
    cs.insert(cs.end(), chunks.begin(), chunks.end());
    for (std::size_t c : cs) {
      const auto f = ref::wls_gated_scan_solve(Q, K, V, &lg, ref::wls_rank_tol<mp_t>(dk), c);
      std::size_t at = 1;
      const double rr = rows_rel(f.Y, Yref, e.ts, &at);
      const ref::WlsBranch bt = f.branch[at - 1];
      w.upd(rr, (c == 0 ? std::string("sequential scan") : "chunk " + std::to_string(c)) + " t=" + std::to_string(at) + " branch " +
                    (bt == ref::WlsBranch::cholesky ? "Cholesky" : bt == ref::WlsBranch::pinv_structural ? "pinv (structural)" : "pinv (pivot)"));
      if (c == 0) {
        for (auto b : f.branch) ++e.branches[static_cast<std::size_t>(b)];
        const VM wT = ref::gate_weights(lg, T);
        w.upd(rel_res(f.S_last, ref::weighted_key_gram(K, wT)), "scan S^G_T vs K^T Gamma K");
        w.upd(rel_res(f.R_last, ref::weighted_cross_moment(K, V, wT)), "scan R^G_T vs V^T Gamma K");
      }
    }
    e.ref = w.r;
    e.wref = w.where + " (digits " + std::to_string(e.D) + ")";
  }
  // weighted RLS (I1): gates > 0, exact batch start at t0 = D_k with S^G_{t0} invertible
  if (gates_positive(in.gates) && T > dk && in.pc[dk - 1].rank == dk) {
    const unsigned D2 = e.D + static_cast<unsigned>(std::ceil(sum_log10_inv_gates(in.gates)));
    MpDigitsScope sc(D2);
    const MM Q = to_mp(in.Q), K = to_mp(in.K), V = to_mp(in.V);
    const VM lg = log_gates_mp(in.gates);
    const std::size_t t0 = dk;
    const VM w0 = ref::gate_weights(lg, t0);
    const MM P0 = ref::solve(ref::weighted_key_gram(K, w0), ref::eye<mp_t>(dk));
    const MM M0 = ref::matmul(ref::weighted_cross_moment(K, V, w0), P0);
    VM gam(T - t0);
    for (std::size_t t = t0; t < T; ++t) gam[t - t0] = ref::exp_log(lg[t]);
    const auto rls = ref::rls(tail_rows(Q, t0), tail_rows(K, t0), tail_rows(V, t0), P0, M0, &gam);
    const auto f = ref::wls_gated_scan_solve(Q, K, V, &lg, ref::wls_rank_tol<mp_t>(dk));
    std::size_t at = 0;
    e.wrls = rowrel(rls.O, tail_rows(f.Y, t0), &at);
    e.wwrls = "t=" + std::to_string(t0 + at + 1) + " (digits " + std::to_string(D2) + ")";
  }
  return e;
}
ClaimResult a001_f06_wls_gatedscan_solve(const CheckConfig& cfg) {
  const char* tag = "A001-F06-WLS-GATEDSCAN-SOLVE";
  Checker a("(a) max over t of ||y_t (F06) - y_t (SVD reference of Eq. 15)|| / max(1, norms), sequential and chunked scans, and the scanned "
            "S^G_T, R^G_T vs K^T Gamma K, V^T Gamma K",
            cfg.digits);
  Checker b("(b) max over t > D_k of ||y_t (F06) - y_t (weighted RLS, Woodbury with the gates, exact start at t0 = D_k)|| / max(1, norms); gates > 0", cfg.digits);
  const std::vector<std::size_t> chunks = cfg.quick ? std::vector<std::size_t>{1, 4, 16} : std::vector<std::size_t>{1, 4, 16, 64};
  const unsigned cap = digit_cap(cfg);
  std::array<int, 3> br{0, 0, 0};
  int excluded = 0, na = 0;
  unsigned maxD = 0;
  // R-FAST evidence (fp64 F06 and fp64 SVD reference vs the MP reference)
  std::vector<double> fast_ratio;
  double fast_worst = 0;
  std::string fast_worst_at;
  int fast_over = 0;
  for (const WInst& in : wls_instances(cfg, tag, 8, 2)) {
    const unsigned D0 = pdigits(cfg.digits, max_lc(in), 2);
    if (D0 > cap) {
      a.exclude(in.desc, "needs " + std::to_string(D0) + " digits > cap " + std::to_string(cap));
      ++excluded;
      continue;
    }
    maxD = std::max(maxD, D0);
    Memo<F06Eval> memo([&](unsigned d) { return f06_eval(in, d, chunks); });
    a.add(in.desc, [&](unsigned d, std::string& where) {
      where = memo.at(d).wref;
      return memo.at(d).ref;
    });
    const F06Eval& e0 = memo.at(cfg.digits);
    for (std::size_t i = 0; i < 3; ++i) br[i] += e0.branches[i];
    if (e0.wrls >= 0) {
      b.add(in.desc, [&](unsigned d, std::string& where) {
        where = memo.at(d).wwrls;
        return memo.at(d).wrls;
      });
    } else {
      ++na;
    }
    // fp64 error budget (evidence only): the fp64 F06 and the fp64 SVD reference against the MP reference
    {
      const std::vector<double> lgd = log_gates_d(in.gates);
      MD Yf, Yn;
      try {
        Yf = ref::wls_gated_scan_solve(in.Q, in.K, in.V, &lgd).Y;
        Yn = ref::wls_outputs(in.Q, in.K, in.V, &lgd);
      } catch (const std::exception&) {
        continue;
      }
      double mref = 0, ef = 0, en = 0;
      for (std::size_t t : e0.ts)
        for (std::size_t c = 0; c < in.dm.dv; ++c) {
          const double yr = e0.yref(t - 1, c);
          mref = std::max(mref, std::fabs(yr));
          ef = std::max(ef, nan_inf(std::fabs(Yf(t - 1, c) - yr)));
          en = std::max(en, nan_inf(std::fabs(Yn(t - 1, c) - yr)));
        }
      const double u = 0x1.0p-53, den = 2 * en + 4 * u * mref;
      const double ratio = den > 0 ? ef / den : (ef == 0 ? 0.0 : INFINITY);
      fast_ratio.push_back(ratio);
      if (ratio > 1) ++fast_over;
      if (ratio > fast_worst || fast_worst_at.empty()) fast_worst = ratio, fast_worst_at = in.desc + ", kappa bound 10^" + fmt(max_lc(in), 3);
    }
  }
  const std::string sizes = "G1/G2/G4 keys (alternating) " + sizes_desc(cfg) + " x G5 " + gate_kinds_desc(kGates) + ", chunk sizes {" + join(chunks) +
                            "} and the sequential scan, compared at the " + prefixes_note() + "; D = d + 10 + 2 ceil(max_t log10 kappa_t); " + seed_note(cfg, tag);
  ClaimResult r = combine_parts({{"(a) F06 = SVD reference (Eq. 15)", a.result(cfg, sizes)},
                                 {"(b) F06 = weighted RLS", b.result(cfg, "the instances of (a) with all gates > 0 and rank K_{D_k} = D_k; + sum log10(1/gamma) digits")}});
  r.evidence.extra.emplace_back("per-t branches of F06 (sequential scan)", std::to_string(br[0]) + " Cholesky, " + std::to_string(br[1]) +
                                                                               " pseudo-inverse (fewer than D_k weighted keys: t < D_k or after a zero gate), " +
                                                                               std::to_string(br[2]) + " pseudo-inverse (Cholesky pivot below the rank tolerance)");
  r.evidence.extra.emplace_back("instances", std::to_string(excluded) + " excluded (P-scaled digits above cap " + std::to_string(cap) + "; max used " + std::to_string(maxD) +
                                                 "), " + std::to_string(na) + " without the weighted-RLS part (a zero gate: RLS needs a restart)");
  if (!fast_ratio.empty())
    r.evidence.extra.emplace_back("R-FAST evidence (fp64 F06 vs MP reference; naive = fp64 SVD reference; not a decision: agreement is a registry test)",
                                  "err_F06 / (2 err_naive + 4u max|ref|): median " + fmt(median(fast_ratio)) + ", worst " + fmt(fast_worst) + " at " + fast_worst_at +
                                      "; " + std::to_string(fast_over) + " of " + std::to_string(fast_ratio.size()) +
                                      " instances above 1 (F06 forms the Gram S^G: its error grows with cond^2 where the SVD route grows with cond)");
  return r;
}

// =============================================================================================
// A001-EQ06-WLS-WRLS (composite)
// =============================================================================================
ClaimResult a001_eq06_wls_wrls(const CheckConfig& cfg, const Ledger* lp) {
  const char* tag = "A001-EQ06-WLS-WRLS";
  // row check: (15) by the SVD reference = batched solves (F06) = sequential weighted RLS, every t >= D_k, gates > 0
  Checker row("max over t of the relative residual between the analytic WLS memory's outputs (SVD), the batched solves (F06) and the weighted RLS", cfg.digits);
  static const G5 pos[4] = {G5::uniform, G5::beta51, G5::constant, G5::logit};
  int n = 0;
  for (const Dims& dm0 : schedule(cfg, tag, 1, 1, 64, 40)) {
    Dims dm = dm0;
    dm.T += dm.dk;  // rows beyond the batch start
    const WInst in = make_inst(cfg, tag, n, dm, static_cast<KeyGen>(n % 3), pos[n % 4]);
    ++n;
    if (in.pc[dm.dk - 1].rank != dm.dk || pdigits(cfg.digits, max_lc(in), 2) > digit_cap(cfg)) continue;
    Memo<F06Eval> memo([&in](unsigned d) { return f06_eval(in, d, {}); });
    row.add(in.desc, [&](unsigned d, std::string& where) {
      const F06Eval& e = memo.at(d);
      where = e.ref >= e.wrls ? "F06 vs SVD: " + e.wref : "F06 vs WRLS: " + e.wwrls;
      return std::max(e.ref, e.wrls);
    });
  }
  std::vector<Part> parts;
  parts.push_back({"row: analytic = batched solves = weighted RLS", row.result(cfg, "G1/G2/G4 keys, T = t + D_k (t <= 40), G5 gates > 0, one instance per t; " + seed_note(cfg, tag))});
  parts.push_back({"component A001-WLS-CLOSED-FORM", a001_wls_closed_form(cfg)});
  parts.push_back({"component A001-WLS-RESCALE", a001_wls_rescale(cfg)});
  parts.push_back({"component A001-WLS-UNDERDET-INVARIANCE", a001_wls_underdet_invariance(cfg)});
  parts.push_back({"component A001-F06-WLS-GATEDSCAN-SOLVE", a001_f06_wls_gatedscan_solve(cfg)});
  {
    const Claim* c = lp ? lp->find("A001-WRLS") : nullptr;
    parts.push_back({"component A001-WRLS", c ? run_claim(*c, cfg).result : not_registered("A001-WRLS")});
  }
  return combine_parts(std::move(parts));
}

}  // namespace

void register_a001_weighted_least_squares(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  const Ledger* lp = &l;
  add("A001-WLS-OBJECTIVE", "Weighted LS with multiplicative (gate-product) weights: log-space weights, recursion, objective", identity, true, a001_wls_objective);
  add("A001-WLS-WEIGHT-ORDER", "Monotone weights gamma_1^(t) <= ... <= gamma_t^(t) = 1", identity, false, a001_wls_weight_order);
  add("A001-WLS-INPUT-GATE", "Input-gated weights and their recurrence [derived]", identity, false, a001_wls_input_gate);
  add("A001-WLS-CLOSED-FORM", "Weighted LS solution (Eq. 15)", identity, false, a001_wls_closed_form);
  add("A001-WLS-RESCALE", "Weighted LS as unweighted LS on rescaled data", identity, false, a001_wls_rescale);
  add("A001-WLS-UNDERDET-INVARIANCE", "Underdetermined weighted solution equals the unweighted one", identity, false, a001_wls_underdet_invariance);
  add("A001-GATED-LINATTN-AS-WLS", "Gated linear attention as WLS with K^T Gamma K ~ I", descriptive, false, a001_gated_linattn_as_wls);
  add("A001-F06-WLS-GATEDSCAN-SOLVE", "Weighted LS: gated scans plus batched solves", identity, false, a001_f06_wls_gatedscan_solve);
  add("A001-EQ06-WLS-WRLS", "Row: weighted LS and weighted RLS", identity, false, [lp](const CheckConfig& c) { return a001_eq06_wls_wrls(c, lp); });
}

}  // namespace recall
