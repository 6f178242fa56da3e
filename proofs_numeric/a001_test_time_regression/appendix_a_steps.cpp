// Paper A001 (test-time regression, Wang, Shi & Fox), Appendix A Eqs. (59)-(67): the derivation of the
// output-norm bound of Eq. (13), step by step; each step is its own claim, the composite row
// A001-APPA-NORM-BOUND-PROOF (norm_bound.cpp) looks them up in the ledger.
// Spec IDs: A001-APPA-S60 ... A001-APPA-S67.
//
// Every check evaluates the references of recall/reference/norm_bound.hpp with recall::mp_t at P-scaled digits:
// d + 4 ceil(log10 cond(K)) + 10 working digits for the decision at d digits (d = cfg.digits; 2d when a failure
// is re-verified), i.e. twice the Gram allowance of spec C7, because S66 compares the smallest eigenvalues of the
// formed inverse of K^T K, whose rounding error grows like cond(K)^4 (S63 and S64 form no inverse: d + 10 digits,
// S63 at d). Decisions (spec C9):
//   R-BOUND: lhs <= rhs (1 + 10^-(d-10)) on every instance, the defect (lhs - rhs)/rhs computed in MP; the statistic
//            is the largest ratio lhs/rhs found (tightness ratio actual/bound), its instance the witness;
//   R-ID:    the scale-free relative residual |lhs - rhs| / max(|lhs|, |rhs|) <= 10^-(d-10) (the C9 residual
//            without its max(1, .) floor, which would let small-scale instances pass unchecked).
// Instances (one set shared by every ID of the group, spec Group 4 preamble): a constructed equality-case family
// (k_1 = e_1, other keys c e_j, v_i = 0 for i >= 2, q = e_1, rotated by a Haar W: ||y|| = bound for every D_k),
// G1 (t in [D_k, 4 D_k], keys optionally scaled by D_k^-1/2 or 10^a), G2 prescribed spectra with lambda_min(S) =
// sigma_min(K)^2 in [1e-12, 1] (log-uniform, equal, ones, clustered; t = D_k and t > D_k; one with a zero singular
// value before K is rounded to double), G4 (equicorrelated rho in {0, .5, .9, .99}, AR(1)); values Gaussian,
// Student-t(2), aligned, anti-aligned across i; queries random, zero, aligned with the top right-singular vector of
// A_t (resolved at the working precision). Rank-deficient keys (t < D_k, duplicated key columns) are outside the
// assumption of Eq. (13) and are recorded as excluded (S63 and S64 do not need full rank and evaluate them).
// Adversarial search (each ID maximises its own ratio lhs/rhs; the identity steps their fp64 residual, which drives
// the search to ill-conditioned keys): random restarts + Nelder-Mead in fp64 over the generator parameters (raw
// entries of K, V, q, or log singular values of K in fixed Haar frames with raw V, q), shapes including
// D_k = D_v = 1 and t = D_k; the best candidates are re-evaluated in MP like every generated instance.
// Seeds: instances from tag_seed(cfg.seed, "A001-NORM-BOUND-INSTANCES"), each search from tag_seed(cfg.seed, ID + "/search");
// Gaussian draws by Box-Muller on std::mt19937_64 (claim_support::Gauss): bit-reproducible for a fixed seed.
// The instance set, the precision choice, the R-BOUND tally and the adversarial search are shared with
// norm_bound.cpp through support/regression_bound_claims.hpp (namespace regression::norm_bound).
#include "recall/proofs/ledger.hpp"
#include "recall/reference/norm_bound.hpp"
#include "recall/reference/svd.hpp"
#include "claim_support.hpp"
#include "regression_bound_claims.hpp"

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
using namespace claim_support::regression;
using namespace claim_support::regression::norm_bound;
using ref::Matrix;
using ref::Vector;

// fp64 versions for the search objectives (the same templates at double)
ref::NormBoundChain<double> chain_double(const Inst& in) {
  if (in.K.rows < in.K.cols) throw std::invalid_argument("K: t < D_k");
  const Vector<double> s = ref::singular_values(in.K);
  if (!(s.back() > 1e-6 * s.front())) throw std::invalid_argument("K: cond > 1e6 (fp64 Gram unreliable)");
  return ref::norm_bound_chain(in.K, in.V, in.q);
}
double rel_diff_d(double a, double b) {
  const double m = std::max(std::abs(a), std::abs(b));
  return m > 0 ? std::abs(a - b) / m : 0.0;
}

// ---------------------------------------------------------------------------------------------
// Appendix A steps
// ---------------------------------------------------------------------------------------------

// A001-APPA-S60: ||A q|| <= ||q|| sigma_max(A) (MP SVD); each instance with its own query and with q = 0 and q = top.
BoundObs s60_obs(const Inst& in, unsigned d) {
  BoundObs worst;
  const Prep p = prepare(in.K, d);
  if (!start_obs(worst, p, d)) return worst;
  worst.defect = -INFINITY;
  MpDigitsScope sc(worst.digits);
  const MM K = to_mp(in.K);
  const MM A = ref::ls_readout_operator(K, to_mp(in.V));
  const mp_t smax = ref::spectral_norm(A);
  worst.lambda_min = p.lambda_min;
  for (QKind qk : {in.qk, QKind::zero, QKind::top}) {
    Inst iq;
    iq.qk = qk;
    iq.q = in.q;
    iq.K = DM(0, in.K.cols);
    const Vector<mp_t> q = resolve_query(iq, A);
    const mp_t lhs = ref::euclidean_norm(ref::matvec(A, q.data()));
    const mp_t rhs = ref::euclidean_norm(q) * smax;
    const double df = le_defect(lhs, rhs), ra = ratio_of(lhs, rhs);
    if (df > worst.defect) worst.defect = df;
    if (!std::isnan(ra) && (std::isnan(worst.ratio) || ra > worst.ratio)) worst.ratio = ra;
  }
  return worst;
}
ClaimResult a001_appa_s60(const CheckConfig& cfg) {
  auto objective = [](const Inst& in) -> double {
    const Vector<double> s = ref::singular_values(in.K);
    if (in.K.rows < in.K.cols || !(s.back() > 1e-8 * s.front())) return -INFINITY;
    const DM A = ref::ls_readout_operator_pinv(in.K, in.V);
    const double rhs = ref::euclidean_norm(in.q) * ref::spectral_norm(A);
    return rhs > 0 ? ref::euclidean_norm(ref::matvec(A, in.q.data())) / rhs : -INFINITY;
  };
  return run_bound(cfg, "A001-APPA-S60", "max ||A_t q|| / (||q|| sigma_max(A_t)) over q in {instance query, 0, top right-singular vector of A_t}",
                   objective, s60_obs)
      .result;
}

// A001-APPA-S61: sup_{||q||=1} ||A q|| (power iteration on A^T A) = sigma_max(A) (SVD); random directions below it.
struct S61Obs {
  bool excluded = false;
  std::string why;
  unsigned digits = 0;
  double defect = 0, residual = 0, rand_defect = -1, rand_ratio = NAN;
  int iterations = 0, squarings = 0;
  bool converged = false;
};
S61Obs s61_obs(const Inst& in, unsigned d) {
  S61Obs o;
  const Prep p = prepare(in.K, d);
  if (!start_obs(o, p, d)) return o;
  MpDigitsScope sc(o.digits);
  const MM A = ref::ls_readout_operator(to_mp(in.K), to_mp(in.V));
  const auto pw = ref::power_iteration_sup(A, mp_t(tol_at(o.digits)));
  const mp_t smax = ref::spectral_norm(A);
  o.converged = pw.converged;
  o.defect = pw.converged ? eq_defect(pw.sup, smax) : INFINITY;
  o.residual = to_d(pw.rel_residual);
  o.iterations = pw.iterations;
  o.squarings = pw.squarings;
  Gauss g(mix(fnv1a(in.desc), 61));
  mp_t best(0);
  for (int j = 0; j < 16; ++j) {
    Vector<mp_t> u(in.K.cols);
    for (auto& x : u) x = mp_t(g.normal());
    const mp_t nu = ref::euclidean_norm(u);
    for (auto& x : u) x /= nu;
    const mp_t v = ref::euclidean_norm(ref::matvec(A, u.data()));
    if (v > best) best = v;
  }
  o.rand_defect = le_defect(best, smax);
  o.rand_ratio = ratio_of(best, smax);
  return o;
}
ClaimResult a001_appa_s61(const CheckConfig& cfg) {
  const std::vector<Inst> insts = make_instances(cfg);
  Checker id("max relative residual |sup by power iteration - sigma_max(A_t) by SVD| / sigma_max", cfg.digits);
  BoundTally rnd("max over 16 random unit u of ||A_t u|| / sigma_max(A_t) (a lower estimate of the sup must not exceed it)", cfg.digits);
  double max_res = 0;
  int max_it = 0, max_sq = 0;
  auto eval = [&](const Inst& in) {
    const S61Obs o = s61_obs(in, cfg.digits);
    if (o.excluded) {
      id.exclude(in.desc, o.why);
      return;
    }
    max_res = std::max(max_res, o.residual);
    max_it = std::max(max_it, o.iterations);
    max_sq = std::max(max_sq, o.squarings);
    id.add(in.desc, [&](unsigned d, std::string& w) {
      const S61Obs x = d == cfg.digits ? o : s61_obs(in, d);
      w = "power iteration: " + std::to_string(x.iterations) + " iterations, " + std::to_string(x.squarings) + " squarings, relative residual " +
          fmt(x.residual) + (x.converged ? "" : " (not converged)") + ", " + std::to_string(x.digits) + " digits";
      return x.defect;
    });
    rnd.add(in, in.adversarial ? "adversarial" : in.gen, [&](unsigned d) {
      const S61Obs x = d == cfg.digits ? o : s61_obs(in, d);
      BoundObs b;
      b.ratio = x.rand_ratio;
      b.defect = x.rand_defect;
      b.digits = x.digits;
      return b;
    });
  };
  for (const Inst& in : insts) eval(in);
  const SearchOut s = adversarial_search(cfg, "A001-APPA-S61", [](const Inst& in) -> double {
    const Vector<double> sv = ref::singular_values(in.K);
    if (in.K.rows < in.K.cols || !(sv.back() > 1e-8 * sv.front())) return -INFINITY;
    const DM A = ref::ls_readout_operator_pinv(in.K, in.V);
    const auto pw = ref::power_iteration_sup(A);
    return rel_diff_d(pw.sup, ref::spectral_norm(A));
  });
  for (const Candidate& c : s.top) eval(c.inst);
  CombineStyle first;
  first.largest_ratio = false;  // all hold: the identity part heads the row
  ClaimResult r = combine({{"R-ID sup (power iteration) = ||A_t||_2 (SVD)", id.result(cfg, sizes_note(cfg, insts.size()))},
                           {"R-BOUND random directions <= sigma_max", rnd.result(cfg, "same instances")}},
                          first);
  r.evidence.extra.emplace_back("power iteration at d digits", "largest final relative residual " + fmt(max_res) +
                                                                   " (stop at 1e-(working digits - 10)), most iterations " + std::to_string(max_it) +
                                                                   ", most squarings " + std::to_string(max_sq) + " (iteration matrix squared every 64 iterations)");
  search_extras(r.evidence, s, "maximising the fp64 residual |power - SVD| / SVD");
  return r;
}

// A001-APPA-S62: ||R S^{-1}||_2 <= ||R||_2 ||S^{-1}||_2 (MP SVD norms; S^{-1} formed by Gaussian elimination, symmetrised).
BoundObs s62_obs(const Inst& in, unsigned d) {
  BoundObs b;
  const Prep p = prepare(in.K, d);
  if (!start_obs(b, p, d)) return b;
  MpDigitsScope sc(b.digits);
  const MM K = to_mp(in.K), V = to_mp(in.V);
  const MM A = ref::ls_readout_operator(K, V);
  const auto g = ref::gram_inverse_spectra(K);  // S^{-1} formed by Gaussian elimination, symmetrised; ||S^{-1}||_2 by SVD
  const mp_t lhs = ref::spectral_norm(A), rhs = ref::spectral_norm(ref::cross_moment_product(K, V)) * g.norm_S_inv;
  b.ratio = ratio_of(lhs, rhs);
  b.defect = le_defect(lhs, rhs);
  b.lambda_min = p.lambda_min;
  return b;
}
ClaimResult a001_appa_s62(const CheckConfig& cfg) {
  auto objective = [](const Inst& in) -> double {
    const auto c = chain_double(in);
    const double rhs = c.norm_R * c.norm_S_inv;
    return rhs > 0 ? c.sigma_max_A / rhs : -INFINITY;
  };
  return run_bound(cfg, "A001-APPA-S62", "max ||V^T K (K^T K)^{-1}||_2 / (||V^T K||_2 ||(K^T K)^{-1}||_2)", objective, s62_obs).result;
}

// A001-APPA-S63: V^T K (matrix product) = sum_i v_i k_i^T (rank-one sum); any rank.
double s63_residual(const Inst& in, unsigned d) {
  MpDigitsScope sc(d);
  const MM K = to_mp(in.K), V = to_mp(in.V);
  const MM L = ref::cross_moment_product(K, V), R = ref::rank_one_sum(K, V);
  const mp_t m = std::max(ref::frob(L), ref::frob(R));
  return m > 0 ? nan_inf(to_d(mp_t(ref::frob_diff(L, R) / m))) : 0.0;
}
ClaimResult a001_appa_s63(const CheckConfig& cfg) {
  const std::vector<Inst> insts = make_instances(cfg);
  Checker id("max relative residual ||V^T K - sum_i v_i k_i^T||_F / max(||.||_F) (no inverse: P-50 digits, any rank)", cfg.digits);
  for (const Inst& in : insts) id.add(in.desc, [&](unsigned d, std::string&) { return s63_residual(in, d); });
  const SearchOut s = adversarial_search(cfg, "A001-APPA-S63", [](const Inst& in) -> double {
    const DM L = ref::cross_moment_product(in.K, in.V), R = ref::rank_one_sum(in.K, in.V);
    const double m = std::max(ref::frob(L), ref::frob(R));
    return m > 0 ? ref::frob_diff(L, R) / m : 0.0;
  });
  for (const Candidate& c : s.top) id.add(c.inst.desc, [&](unsigned d, std::string&) { return s63_residual(c.inst, d); });
  ClaimResult r = id.result(cfg, sizes_note(cfg, insts.size()) + " (rank-deficient instances included)");
  search_extras(r.evidence, s, "maximising the fp64 residual");
  return r;
}

// A001-APPA-S64: ||sum_i v_i k_i^T||_2 <= sum_i ||v_i|| ||k_i|| and ||v k^T||_2 = ||v|| ||k||; any rank, plus
// all-parallel rank-one terms (equality) and cancelling terms.
BoundObs s64_obs(const Inst& in, unsigned d) {
  BoundObs b;
  b.digits = d + 10;
  MpDigitsScope sc(b.digits);
  const MM K = to_mp(in.K), V = to_mp(in.V);
  const mp_t lhs = ref::spectral_norm(ref::rank_one_sum(K, V)), rhs = ref::sum_norm_products(K, V);
  b.ratio = ratio_of(lhs, rhs);
  b.defect = le_defect(lhs, rhs);
  return b;
}
double rank_one_residual(const Inst& in, unsigned d) {
  MpDigitsScope sc(d + 10);
  const MM K = to_mp(in.K), V = to_mp(in.V);
  double worst = 0;
  for (std::size_t i = 0; i < K.rows; ++i) {
    MM T(V.cols, K.cols);
    ref::add_outer(T, V.row(i), K.row(i));
    worst = std::max(worst, eq_defect(ref::spectral_norm(T), mp_t(ref::euclidean_norm(V.row(i), V.cols) * ref::euclidean_norm(K.row(i), K.cols))));
  }
  return worst;
}
std::vector<Inst> s64_special(const CheckConfig& cfg) {
  std::vector<Inst> out;
  const u64 base = tag_seed(cfg.seed, "A001-APPA-S64/special");
  const int reps = cfg.quick ? 2 : 8;
  for (int n = 0; n < 3 * reps; ++n) {
    const u64 s = mix(base, static_cast<u64>(n));
    Gauss g(s);
    const std::size_t dk = 1 + static_cast<std::size_t>(g.uniform() * 4), dv = 1 + static_cast<std::size_t>(g.uniform() * 3),
                      t = 2 + static_cast<std::size_t>(g.uniform() * 5);
    Inst in;
    in.K = DM(t, dk);
    in.V = DM(t, dv);
    in.q = VD(dk, 1.0);
    const DM k = gauss_matrix(1, dk, g), v = gauss_matrix(1, dv, g);
    const int kind = n % 3;
    for (std::size_t i = 0; i < t; ++i) {
      const double a = std::abs(g.normal()) + 0.1, b = std::abs(g.normal()) + 0.1;
      // 0: parallel, same sign (equality); 1: parallel, alternating sign (cancellation); 2: exact pairs v k^T, -v k^T (sum 0 for even t)
      const double sa = kind == 0 ? 1.0 : (i % 2 ? -1.0 : 1.0);
      for (std::size_t j = 0; j < dk; ++j) in.K(i, j) = (kind == 2 ? 1.0 : a) * k(0, j);
      for (std::size_t j = 0; j < dv; ++j) in.V(i, j) = sa * (kind == 2 ? 1.0 : b) * v(0, j);
    }
    static const char* kn[3] = {"all-parallel rank-one terms (equality expected)", "parallel terms of alternating sign (cancelling)",
                                "exactly cancelling pairs v k^T, -v k^T"};
    in.gen = kind == 0 ? "S64-parallel" : kind == 1 ? "S64-alternating" : "S64-cancelling";
    in.vals = "special";
    in.desc = std::string(kn[kind]) + " D_k=" + std::to_string(dk) + " D_v=" + std::to_string(dv) + " t=" + std::to_string(t) + " inst_seed=" + hexs(s);
    out.push_back(in);
  }
  return out;
}
ClaimResult a001_appa_s64(const CheckConfig& cfg) {
  const std::vector<Inst> special = s64_special(cfg);
  const std::vector<Inst> insts = make_instances(cfg);
  BoundTally tally("max ||sum_i v_i k_i^T||_2 / sum_i ||v_i|| ||k_i|| (triangle inequality)", cfg.digits);
  Checker r1("max relative residual | ||v_i k_i^T||_2 (SVD) - ||v_i|| ||k_i|| | / max over the rank-one terms", cfg.digits);
  auto one = [&](const Inst& in) {
    tally.add(in, in.adversarial ? "adversarial" : in.gen, [&](unsigned d) { return s64_obs(in, d); });
    r1.add(in.desc, [&](unsigned d, std::string&) { return rank_one_residual(in, d); });
  };
  for (const Inst& in : insts) one(in);
  for (const Inst& in : special) one(in);
  const SearchOut s = adversarial_search(cfg, "A001-APPA-S64", [](const Inst& in) -> double {
    const double rhs = ref::sum_norm_products(in.K, in.V);
    return rhs > 0 ? ref::spectral_norm(ref::rank_one_sum(in.K, in.V)) / rhs : -INFINITY;
  });
  for (const Candidate& c : s.top) one(c.inst);
  const std::string sz = sizes_note(cfg, insts.size()) + " (rank-deficient included) + " + std::to_string(special.size()) + " parallel / cancelling term sets";
  ClaimResult r = combine({{"R-BOUND triangle inequality (64)", tally.result(cfg, sz)}, {"R-ID rank-one norm ||v k^T|| = ||v|| ||k||", r1.result(cfg, sz)}});
  search_extras(r.evidence, s, "maximising the ratio (64)");
  return r;
}

// Identity steps on the Gram spectra: S65 (64)=(65), S66 sorted spectra (and (65)=(66)), S67 (66)=(67).
struct GramObs {
  bool excluded = false;
  std::string why;
  unsigned digits = 0;
  double lambda_min = NAN;
  double s65 = 0, s66_max = 0, s66_vec = 0, s66_entry = 0, s67 = 0;
};
// sorted spectra of S^{-1} (descending) against 1 / lambda_i(S) (lambda ascending): normwise and per-entry residuals
template <class S> std::pair<S, S> spectra_residual(const ref::GramSpectra<S>& g) {
  using std::abs;
  using std::sqrt;
  using boost::multiprecision::abs;
  using boost::multiprecision::sqrt;
  const std::size_t n = g.eig_S.size();
  S dn(0), an(0), bn(0), worst(0);
  for (std::size_t i = 0; i < n; ++i) {
    const S a = g.eig_S_inv[n - 1 - i], b = S(1) / g.eig_S[i];
    const S e = abs(S(a - b)) / abs(b);
    if (e > worst) worst = e;
    dn += (a - b) * (a - b);
    an += a * a;
    bn += b * b;
  }
  const S m = sqrt(std::max(an, bn));
  return {m > 0 ? S(sqrt(dn) / m) : S(0), worst};
}
GramObs obs_gram(const Inst& in, unsigned d) {
  GramObs o;
  const Prep p = prepare(in.K, d);
  if (!start_obs(o, p, d)) return o;
  MpDigitsScope sc(o.digits);
  const MM K = to_mp(in.K);
  const auto g = ref::gram_inverse_spectra(K);
  const mp_t lmin = ref::gram_lambda_min(K);
  o.lambda_min = to_d(lmin);
  o.s65 = eq_defect(g.norm_S_inv, g.lambda_max_S_inv);
  o.s66_max = eq_defect(g.lambda_max_S_inv, g.max_recip_lambda_S);
  const auto [vec, entry] = spectra_residual(g);
  o.s66_vec = nan_inf(to_d(vec));
  o.s66_entry = nan_inf(to_d(entry));
  o.s67 = eq_defect(g.max_recip_lambda_S, mp_t(mp_t(1) / lmin));
  return o;
}
ClaimResult gram_identity(const CheckConfig& cfg, const char* tag, const std::string& statistic, const std::function<double(const GramObs&)>& pick,
                          const std::function<double(const ref::GramSpectra<double>&, double)>& dobj, std::string* note = nullptr) {
  const std::vector<Inst> insts = make_instances(cfg);
  Checker id(statistic, cfg.digits);
  double worst_entry = 0;
  auto eval = [&](const Inst& in) {
    const GramObs o = obs_gram(in, cfg.digits);
    if (o.excluded) {
      id.exclude(in.desc, o.why);
      return;
    }
    worst_entry = std::max(worst_entry, o.s66_entry);
    id.add(in.desc, [&](unsigned d, std::string& w) {
      const GramObs x = d == cfg.digits ? o : obs_gram(in, d);
      w = std::to_string(x.digits) + " digits, lambda_min(S) " + fmt(x.lambda_min);
      return pick(x);
    });
  };
  for (const Inst& in : insts) eval(in);
  const SearchOut s = adversarial_search(cfg, tag, [&](const Inst& in) -> double {
    if (in.K.rows < in.K.cols) return -INFINITY;
    const Vector<double> sv = ref::singular_values(in.K);
    if (!(sv.back() > 1e-6 * sv.front())) return -INFINITY;  // fp64 Gram unreliable beyond cond(K) = 1e6
    return dobj(ref::gram_inverse_spectra(in.K), sv.back() * sv.back());
  });
  for (const Candidate& c : s.top) eval(c.inst);
  ClaimResult r = id.result(cfg, sizes_note(cfg, insts.size()));
  if (note) *note = fmt(worst_entry);
  search_extras(r.evidence, s, "maximising the fp64 residual");
  r.evidence.extra.emplace_back("digits", "P-scaled: d + 4 ceil(log10 cond K) + 10 working digits, threshold 1e-" + std::to_string(cfg.digits - 10));
  return r;
}
ClaimResult a001_appa_s65(const CheckConfig& cfg) {
  return gram_identity(cfg, "A001-APPA-S65", "max relative residual | ||S^{-1}||_2 (SVD of the formed inverse) - max_i lambda_i(S^{-1}) (Jacobi) | / max",
                       [](const GramObs& o) { return o.s65; },
                       [](const ref::GramSpectra<double>& g, double) { return rel_diff_d(g.norm_S_inv, g.lambda_max_S_inv); });
}
ClaimResult a001_appa_s66(const CheckConfig& cfg) {
  std::string entry;
  ClaimResult r = gram_identity(
      cfg, "A001-APPA-S66",
      "max relative residual of the full sorted spectra ||sort(lambda(S^{-1})) - sort(1/lambda(S))|| / max(||.||) (and of their maxima)",
      [](const GramObs& o) { return std::max(o.s66_vec, o.s66_max); },
      [](const ref::GramSpectra<double>& g, double) { return spectra_residual(g).second; }, &entry);
  r.evidence.extra.emplace_back("largest per-eigenvalue relative difference |lambda_i(S^{-1}) - 1/lambda_i(S)| / (1/lambda_i(S)) at d digits", entry);
  return r;
}
ClaimResult a001_appa_s67(const CheckConfig& cfg) {
  return gram_identity(cfg, "A001-APPA-S67",
                       "max relative residual | max_i 1/lambda_i(S) (Jacobi eigenvalues of S) - 1/lambda_min(S) (sigma_min(K)^2 by SVD) | / max",
                       [](const GramObs& o) { return o.s67; },
                       [](const ref::GramSpectra<double>& g, double lmin) { return rel_diff_d(g.max_recip_lambda_S, 1.0 / lmin); });
}

}  // namespace

void register_a001_appendix_a_steps(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A001-APPA-S60", "Step (60): ||A q|| <= ||q|| sup_{||u||=1} ||A u||", inequality, false, a001_appa_s60);
  add("A001-APPA-S61", "Step (61): the sup is the spectral norm", identity, false, a001_appa_s61);
  add("A001-APPA-S62", "Step (62): submultiplicativity ||R S^{-1}|| <= ||R|| ||S^{-1}||", inequality, false, a001_appa_s62);
  add("A001-APPA-S63", "Step (63): V^T K = sum_i v_i k_i^T", identity, true, a001_appa_s63);
  add("A001-APPA-S64", "Step (64): triangle inequality over rank-one terms", inequality, false, a001_appa_s64);
  add("A001-APPA-S65", "Step (65): ||S^{-1}||_2 = max_i lambda_i(S^{-1})", identity, false, a001_appa_s65);
  add("A001-APPA-S66", "Step (66): lambda_i(S^{-1}) = 1/lambda_i(S)", identity, false, a001_appa_s66);
  add("A001-APPA-S67", "Step (67): max_i 1/lambda_i(S) = 1/lambda_min(S)", identity, false, a001_appa_s67);
}

}  // namespace recall
