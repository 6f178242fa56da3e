// Paper A001 (test-time regression, Wang, Shi & Fox), §4 Vignette 2, Eq. (15) and "Efficient computation": the
// weighted LS memory (15) and its branches, the rescaling to unweighted LS, the F06 fast form (gated scans +
// per-t solves) and the equivalence-table row EQ06. (The weights of Eq. 14 are in weighted_ls_weights.cpp, the
// underdetermined invariance claim in wls_underdetermined.cpp, gated linear attention as WLS in
// gated_linattn_as_wls.cpp.)
// Spec IDs: A001-WLS-CLOSED-FORM, A001-WLS-RESCALE, A001-F06-WLS-GATEDSCAN-SOLVE, A001-EQ06-WLS-WRLS.
//
// Every verdict is computed from reference/include/recall/reference/weighted_least_squares.hpp instantiated
// with recall::mp_t. Gate weights are exp of log-gate segment sums
// (README §1.5); a zero gate is a -inf log-gate. P-scaled items evaluate each prefix t at
//   D = d + 10 + f ceil(log10 kappa_t)   (f = 1 for SVD-only comparisons, 2 where a Gram S^G is formed),
// kappa_t = cond(K_a) sqrt(w_max / w_min), an upper bound on the condition number of Gamma_t^{1/2} K_t over its
// non-zero singular values (K_a: the keys with a non-zero weight; sigma_r(D K_a) >= sqrt(w_min) sigma_r(K_a)),
// and keep the P-50 threshold 10^-(d - 10). Prefixes needing more digits than the cap (600 quick, 1000 full)
// are skipped and counted in the evidence. Instances are drawn from std::mt19937_64 seeded by
// splitmix64(cfg.seed ^ fnv1a(tag) ^ splitmix64(n)), smallest sizes first; witnesses are 1-based.
// The prefix conditioning (PrefixCond, kappa_t), the G5 gate kinds, the digits cap and the G2 keys are
// support/least_squares_claims.hpp's.
#include "recall/proofs/ledger.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/regression_rules.hpp"
#include "recall/reference/svd.hpp"
#include "recall/reference/weighted_least_squares.hpp"
#include "adversarial_search.hpp"
#include "claim_support.hpp"
#include "least_squares_claims.hpp"
#include "linear_attention_claims.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <exception>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::linattn;
using lsq::digit_cap;
using lsq::g2_keys;
using lsq::kGates;
using lsq::log_gates_d;
using lsq::Memo;
using lsq::pdigits;
using lsq::prefix_cond;
using lsq::PrefixCond;
using lsq::relerr;

// =============================================================================================
// shared: instances, precision
// =============================================================================================

std::vector<PrefixCond> prefix_conds(const MD& K, const Gates& g) {
  const auto lgd = log_gates_d(g);
  std::vector<PrefixCond> v;
  for (std::size_t t = 1; t <= K.rows; ++t) v.push_back(prefix_cond(K, lgd, t));
  return v;
}

// key generators of the WLS items: G1 (with the C8 key variants), G2 prescribed spectrum (lsq::g2_keys), G4 equicorrelated
enum class KeyGen { g1, g2, g4 };
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
struct Res2 {
  double a = 0, b = 0;
  std::string wa, wb;
};

// =============================================================================================
// A001-WLS-CLOSED-FORM
// =============================================================================================
struct SkipTally {
  int skipped = 0, evaluated = 0;
  unsigned max_digits = 0;
  // the P-scaled working digits D = d + 10 + 2 ceil(lc) of a prefix at dg digits, or 0 when the prefix is skipped
  // (its digits at cfg.digits exceed the cap); the first pass (dg = cfg.digits) is counted
  unsigned digits(const CheckConfig& cfg, const PrefixCond& pc, unsigned dg, unsigned cap) {
    if (pdigits(cfg.digits, pc.lc, 2) > cap) {
      if (dg == cfg.digits) ++skipped;
      return 0;
    }
    const unsigned D = pdigits(dg, pc.lc, 2);
    if (dg == cfg.digits) {
      ++evaluated;
      max_digits = std::max(max_digits, D);
    }
    return D;
  }
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
        const unsigned D = sk.digits(cfg, pc, dg, cap);
        if (D == 0) continue;
        MpDigitsScope sc(D);
        const MM K = to_mp(in.K), V = to_mp(in.V);
        const VM lg = log_gates_mp(in.gates);
        std::size_t rank = 0;
        const MM Mref = ref::wls_state(K, V, &lg, t, ref::default_rank_tol<mp_t>(t), &rank);
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
        const unsigned D = sk.digits(cfg, pc, dg, cap);
        if (D == 0) continue;
        MpDigitsScope sc(D);
        const MM K = to_mp(in.K), V = to_mp(in.V);
        const VM lg = log_gates_mp(in.gates), s = ref::gate_weights_sqrt(lg, t);
        const MM Ks = scale_rows(K, s), Vs = scale_rows(V, s);
        const MM Mw = ref::wls_state_overdetermined(K, V, &lg, t);
        const MM Mu = ref::wls_state_overdetermined<mp_t>(Ks, Vs, nullptr, t);
        const MM Mp = ref::wls_state<mp_t>(Ks, Vs, nullptr, t, ref::default_rank_tol<mp_t>(t));
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
    for (std::size_t t : e.ts) ref::matvec_into(Yref.row(t - 1), ref::wls_state(K, V, &lg, t, ref::default_rank_tol<mp_t>(std::max(t, dk))), Q.row(t - 1));
    e.yref = MD(T, in.dm.dv);
    for (std::size_t i = 0; i < Yref.a.size(); ++i) e.yref.a[i] = to_d(Yref.a[i]);
    Worst w;
    std::vector<std::size_t> cs = {0};
    cs.insert(cs.end(), chunks.begin(), chunks.end());
    for (std::size_t c : cs) {
      const auto f = ref::wls_gated_scan_solve(Q, K, V, &lg, ref::default_rank_tol<mp_t>(dk), c);
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
    const auto f = ref::wls_gated_scan_solve(Q, K, V, &lg, ref::default_rank_tol<mp_t>(dk));
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
  // components: those of this file run directly, the others (wls_underdetermined.cpp, A001-WRLS) through the ledger
  std::vector<Part> parts;
  parts.push_back({"row: analytic = batched solves = weighted RLS", row.result(cfg, "G1/G2/G4 keys, T = t + D_k (t <= 40), G5 gates > 0, one instance per t; " + seed_note(cfg, tag))});
  parts.push_back({"component A001-WLS-CLOSED-FORM", a001_wls_closed_form(cfg)});
  parts.push_back({"component A001-WLS-RESCALE", a001_wls_rescale(cfg)});
  parts.push_back({"component A001-WLS-UNDERDET-INVARIANCE", run_component(lp, "A001-WLS-UNDERDET-INVARIANCE", cfg)});
  parts.push_back({"component A001-F06-WLS-GATEDSCAN-SOLVE", a001_f06_wls_gatedscan_solve(cfg)});
  parts.push_back({"component A001-WRLS", run_component(lp, "A001-WRLS", cfg)});
  return combine_parts(std::move(parts));
}

}  // namespace

void register_a001_weighted_least_squares(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  const Ledger* lp = &l;
  add("A001-WLS-CLOSED-FORM", "Weighted LS solution (Eq. 15)", identity, false, a001_wls_closed_form);
  add("A001-WLS-RESCALE", "Weighted LS as unweighted LS on rescaled data", identity, false, a001_wls_rescale);
  add("A001-F06-WLS-GATEDSCAN-SOLVE", "Weighted LS: gated scans plus batched solves", identity, false, a001_f06_wls_gatedscan_solve);
  add("A001-EQ06-WLS-WRLS", "Row: weighted LS and weighted RLS", identity, false, [lp](const CheckConfig& c) { return a001_eq06_wls_wrls(c, lp); });
}

}  // namespace recall
