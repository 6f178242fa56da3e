// Paper A001 (test-time regression, Wang, Shi & Fox), §4 Vignette 2, Eq. (14): the gate-product regression
// weights of weighted least squares (log-space evaluation, direct products, recursion, the objective and its
// gradient), their order gamma_1^(t) <= ... <= gamma_t^(t) = 1, and input-gated weights with their recurrence.
// Spec IDs: A001-WLS-OBJECTIVE, A001-WLS-WEIGHT-ORDER, A001-WLS-INPUT-GATE.
//
// Every verdict is computed from reference/include/recall/reference/weighted_least_squares.hpp instantiated
// with recall::mp_t at cfg.digits (P-50), and with exact rationals for the weight order. Gate weights are exp of
// log-gate segment sums (README §1.5); a zero gate is a -inf log-gate. Instances are drawn from std::mt19937_64
// seeded by splitmix64(cfg.seed ^ fnv1a(tag) ^ splitmix64(n)), smallest sizes first; witnesses are 1-based.
// The G5 gate kinds and relerr are shared with weighted_least_squares.cpp (support/least_squares_claims.hpp).
#include "recall/proofs/ledger.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/weighted_least_squares.hpp"
#include "claim_support.hpp"
#include "least_squares_claims.hpp"
#include "linear_attention_claims.hpp"

#include <boost/multiprecision/gmp.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::linattn;
using lsq::kGates;
using lsq::relerr;

using mpq = boost::multiprecision::mpq_rational;
using mpz = boost::multiprecision::mpz_int;

// gate values at the current precision (products of the A001-WLS-OBJECTIVE check): exact for value gates,
// exp(log sigmoid) for logit gates
VM gate_values_mp(const Gates& g, const VM& lg) {
  VM v(g.v.size());
  for (std::size_t t = 0; t < v.size(); ++t) v[t] = g.logit ? ref::exp_log(lg[t]) : mp_t(g.v[t]);
  return v;
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

}  // namespace

void register_a001_weighted_ls_weights(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A001-WLS-OBJECTIVE", "Weighted LS with multiplicative (gate-product) weights: log-space weights, recursion, objective", identity, true, a001_wls_objective);
  add("A001-WLS-WEIGHT-ORDER", "Monotone weights gamma_1^(t) <= ... <= gamma_t^(t) = 1", identity, false, a001_wls_weight_order);
  add("A001-WLS-INPUT-GATE", "Input-gated weights and their recurrence [derived]", identity, false, a001_wls_input_gate);
}

}  // namespace recall
