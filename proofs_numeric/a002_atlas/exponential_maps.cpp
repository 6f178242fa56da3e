// Paper A002 (Atlas) §3.1 Eqs. 4-5 and §4.2 Eqs. 21-23: the Taylor approximation of the exponential kernel, the
// learnable polynomial kernel of Eq. 5 as a feature map, the (truncated) exponential feature map phi* and the
// non-separability of the exp kernel. References: recall/reference/polynomial_maps.hpp (poly_series,
// taylor_coefficients, weighted maps, exp_feature_map_mono / _kron: README §3 group 12, the computation of
// A000-EXP-FEATURE / A003-LEMMA-B2/B3).
//  * Series and feature identities are exact (cpp_rational on dyadic inputs) with negative controls.
//  * Truncation errors are evaluated at P2 (2 cfg.digits, 100 by default) against the Lagrange remainder bound.
//  * Positive semidefiniteness of Eq. 5 Gram matrices is decided exactly (rational symmetric elimination); a
//    non-PSD Gram matrix certifies that no real feature map phi with phi(q)^T phi(k) = kappa_a exists.
//  * Exp Gram matrices (ref::kernel_gram, README §3 group 16): Cholesky pivots at escalating precision (P2 and up); full rank when every pivot is
//    positive and the pivots at D and 2D digits agree (they are then the exact pivots to the digits reported).
// Instances: std::mt19937_64 seeded by mix(tag_seed(cfg.seed, ID), n), smallest sizes first.
// Spec IDs: A002-TAYLOR-EXP, A002-TAYLOR-EQ5, A002-EXP-FEATURE-MAP, A002-EXP-NONSEPARABLE.
#include "recall/proofs/claims_a002.hpp"
#include "recall/proofs/ledger.hpp"
#include "claim_support.hpp"
#include "exact_tally.hpp"
#include "a002_poly_claims.hpp"

#include "recall/reference/kernel_regression.hpp"
#include "recall/reference/polynomial_maps.hpp"

#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::exact;
using namespace claim_support::a002poly;

MV to_mpv(const VR& v) {
  MV o(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) o[i] = mp_t(static_cast<double>(v[i]));  // dyadic inputs: exact
  return o;
}
// |e^s - T_P(s)| and the Lagrange bound |s|^{P+1}/(P+1)! e^{max(s,0)} plus the rounding allowance
// 10^-(digits-10) sum_{p<=P} |s|^p/p!, at the current precision, for P = 0..Pmax (one pass over the terms).
struct SeriesErr {
  std::vector<mp_t> err, bound;
};
SeriesErr series_errors(const mp_t& s, int Pmax, const std::vector<mp_t>* coeffs = nullptr) {
  SeriesErr out;
  const mp_t es = exp(s), as = abs(s), emax = s > 0 ? es : mp_t(1);
  const mp_t u = pow(mp_t(10), -static_cast<int>(mp_digits()) + 10);
  mp_t sum(0), term(1), absum(0), aterm(1);
  for (int P = 0; P <= Pmax; ++P) {
    if (P > 0) {
      term = term * s / P;
      aterm = aterm * as / P;
    }
    sum += coeffs ? mp_t((*coeffs)[static_cast<std::size_t>(P)] * pow(s, P)) : term;
    absum += aterm;
    out.err.push_back(abs(mp_t(es - sum)));
    out.bound.push_back(aterm * as / (P + 1) * emax + u * absum);
  }
  return out;
}

// =============================================================================================
// A002-TAYLOR-EXP: |e^s - T_P(s)| at P2 for s in [-20, 20], P = 0..30 (and on to Pmax for the limit), vs the
// Lagrange bound; the smallest P reaching relative error 1e-16 for unit q, k (|s| <= 1) and for Gaussian
// q, k in d_k in {16, 64}. Decision: holds iff every error is within the bound (which tends to 0: its ratio is
// |s|/(P+2)) and the relative error at Pmax is below 1e-16 for every tested s. Control: the series with
// coefficients 1/p in place of 1/p! must fail to converge (|s| > 1).
// =============================================================================================
ClaimResult a002_taylor_exp(const CheckConfig& cfg) {
  const std::string tag = "A002-TAYLOR-EXP";
  const unsigned dg = 2 * cfg.digits;
  MpDigitsScope sc(dg);
  const double step = cfg.quick ? 1.0 : 0.25;
  const int Pmax = 120;
  int viol = 0, n = 0, slow = 0;
  std::string vwit, swit;
  double worst_ratio = 0, worst_final = 0;
  Controls ctl;
  ClaimFigure fig{"error", "Relative error of the truncated Taylor series of exp(s)", "P2 (" + std::to_string(dg) + " digits)", "P", "|e^s - T_P(s)| / e^s"};
  fig.y_scale = "log";
  std::vector<mp_t> wrong(Pmax + 1);
  wrong[0] = 1;
  for (int p = 1; p <= Pmax; ++p) wrong[p] = mp_t(1) / p;
  for (double sd = -20; sd <= 20 + 1e-9; sd += step, ++n) {
    const mp_t s(sd);
    const SeriesErr e = series_errors(s, Pmax);
    for (int P = 0; P <= Pmax; ++P) {
      if (e.err[P] > e.bound[P]) {
        ++viol;
        if (vwit.empty()) vwit = "s=" + fmt(sd) + " P=" + std::to_string(P);
      }
      if (e.bound[P] > 0) worst_ratio = std::max(worst_ratio, to_d(mp_t(e.err[P] / e.bound[P])));
    }
    const double fin = to_d(mp_t(e.err[Pmax] / exp(s)));
    worst_final = std::max(worst_final, fin);
    if (!(fin < 1e-16)) {
      ++slow;
      if (swit.empty()) swit = "s=" + fmt(sd);
    }
    if (std::fabs(sd) > 1.5) {
      const SeriesErr w = series_errors(s, Pmax, &wrong);
      ctl.add(to_d(mp_t(w.err[Pmax] / exp(s))) > 1e-3, "coefficients 1/p at s=" + fmt(sd));
    }
    if (sd == -20 || sd == -10 || sd == -1 || sd == 1 || sd == 10 || sd == 20) {
      FigureSeries f{"s=" + fmt(sd)};
      for (int P = 0; P <= 80; ++P) {
        f.x.push_back(P);
        f.y.push_back(to_d(mp_t(e.err[P] / exp(s))));
      }
      fig.series.push_back(f);
    }
  }
  // smallest P with relative error <= 1e-16
  auto smallest_P = [&](const mp_t& s) {
    const SeriesErr e = series_errors(s, 200);
    const mp_t es = exp(s);
    for (int P = 0; P <= 200; ++P)
      if (e.err[P] <= es * mp_t(1e-16)) return P;
    return -1;
  };
  int p_unit = 0;
  for (double sd = -1; sd <= 1 + 1e-9; sd += 0.125) p_unit = std::max(p_unit, smallest_P(mp_t(sd)));
  std::string gauss_note;
  for (std::size_t d : {16, 64}) {
    Gauss g(mix(tag_seed(cfg.seed, tag), d));
    const int pairs = cfg.quick ? 10 : 100;
    std::vector<int> ps;
    double smax = 0;
    for (int i = 0; i < pairs; ++i) {
      double s = 0;
      for (std::size_t j = 0; j < d; ++j) s += g.normal() * g.normal();
      smax = std::max(smax, std::fabs(s));
      ps.push_back(smallest_P(mp_t(s)));
    }
    std::sort(ps.begin(), ps.end());
    gauss_note += (gauss_note.empty() ? "" : "; ") + std::string("d_k=") + std::to_string(d) + ": median " + std::to_string(ps[ps.size() / 2]) + ", max " +
                  std::to_string(ps.back()) + " (max |s| = " + fmt(smax) + ", " + std::to_string(pairs) + " pairs)";
  }
  ClaimResult r;
  auto& ev = r.evidence;
  ev.statistic = "max over s in [-20,20] of |e^s - T_Pmax(s)| / e^s at Pmax = " + std::to_string(Pmax) + " (and every error <= Lagrange bound)";
  ev.value = worst_final;
  ev.threshold = 1e-16;
  ev.digits = dg;
  ev.seed = cfg.seed;
  ev.instances = n;
  ev.sizes = "s in [-20,20] step " + fmt(step) + ", P = 0.." + std::to_string(Pmax);
  ev.extra.emplace_back("max error / Lagrange bound", fmt(worst_ratio));
  ev.extra.emplace_back("smallest P with relative error <= 1e-16, |q|=|k|=1", std::to_string(p_unit));
  ev.extra.emplace_back("smallest P with relative error <= 1e-16, Gaussian q,k", gauss_note);
  ev.figures.push_back(fig);
  if (viol > 0) {
    r.verdict = Verdict::violated;
    ev.witness = vwit;
    r.reason = std::to_string(viol) + " (s, P) pairs exceed the Lagrange bound, first " + vwit;
  } else if (slow > 0) {
    r.verdict = Verdict::violated;
    ev.witness = swit;
    r.reason = "the truncation error has not reached 1e-16 relative at P = " + std::to_string(Pmax) + " for " + std::to_string(slow) + " values of s, first " + swit;
  } else {
    r.verdict = Verdict::holds;
    r.reason = "every error is within the Lagrange bound (ratio |s|/(P+2) -> 0) and below 1e-16 relative at P = " + std::to_string(Pmax) +
               " for all s in [-20,20]; P = " + std::to_string(p_unit) + " suffices for unit q, k";
  }
  apply_controls(r, ctl, "coefficients 1/p instead of 1/p!");
  return r;
}

// =============================================================================================
// A002-TAYLOR-EQ5: (a) at a_i = 1/i!, the weighted-monomial feature kernel equals T_p(q^T k) exactly (PQ; control:
// unweighted monomials); (b) realizability as a symmetric real feature map: exact PSD decision of Gram matrices
// [kappa_a(x_r, x_s)] on dyadic point sets (m <= 64, d_k in {1,2,4}) for a = 1/i!, a ~ dyadic U[-1,1]^{p+1} and
// adversarial sign patterns; a non-PSD Gram matrix certifies that no real phi with phi(q)^T phi(k) = kappa_a exists.
// (c) descriptive: max error on [-1,1] of the least-squares polynomial fit of exp vs Taylor, degree p.
// Decision: violated when (a) fails or a certificate is found for some real a (the printed a_i in R); the
// asymmetric pair of A002-POLY-MAP-WEIGHTED realizes every a and the symmetric map every a >= 0 (reported).
// =============================================================================================
ClaimResult a002_taylor_eq5(const CheckConfig& cfg) {
  const std::string tag = "A002-TAYLOR-EQ5";
  // (a)
  ExactTally ex{"instances where sum_alpha x^alpha y^alpha / alpha! (|alpha| <= p) differs from T_p(x^T y)"};
  int n = 0;
  for (std::size_t d : {1, 2, 3, 4})
    for (int p = 0; p <= (cfg.quick ? 5 : 8); ++p, ++n) {
      const std::uint64_t s = mix(tag_seed(cfg.seed, tag), n);
      IntGen ig(s);
      const VR x = rat_vec(ig, d, 8, 4), y = rat_vec(ig, d, 8, 4);
      const Rat sv = rdot(x, y);
      Rat T(0), term(1);
      for (int i = 0; i <= p; ++i) {
        if (i > 0) term = term * sv / i;
        T += term;
      }
      const VR a = ref::taylor_coefficients<Rat>(p);
      const std::string desc = "d=" + std::to_string(d) + " p=" + std::to_string(p) + " inst_seed=" + std::to_string(s);
      ex.add(ref::weighted_kernel_sq(a, x, y) != T, desc);
      if (d >= 2 && p >= 2) {
        const ref::MonomialPlan pl = ref::monomial_plan(d, p);
        const VR mx = ref::monomial_map(x.data(), pl), my = ref::monomial_map(y.data(), pl);
        Rat un(0);
        for (std::size_t c = 0; c < mx.size(); ++c) un += a[pl.degree[c]] * mx[c] * my[c];
        ex.control(un != T, "unweighted monomials " + desc);
      }
    }
  ClaimResult ra = ex.result(cfg, "d in 1..4, p in 0.." + std::to_string(cfg.quick ? 5 : 8) + ", dyadic x, y", "the a = 1/i! feature kernel is T_p exactly");
  // (b) PSD certificates
  struct Coef { std::string name; VR a; };
  std::vector<Coef> coefs;
  for (int p : {1, 2, 3, 4}) {
    coefs.push_back({"1/i! p=" + std::to_string(p), ref::taylor_coefficients<Rat>(p)});
    VR alt = ref::taylor_coefficients<Rat>(p);
    for (int i = 1; i <= p; i += 2) alt[i] = -alt[i];
    coefs.push_back({"(-1)^i/i! p=" + std::to_string(p), alt});
  }
  coefs.push_back({"(0,-1)", VR{Rat(0), Rat(-1)}});
  coefs.push_back({"(1,0,-1)", VR{Rat(1), Rat(0), Rat(-1)}});
  coefs.push_back({"(1,1,-1/2)", VR{Rat(1), Rat(1), Rat(-1, 2)}});
  coefs.push_back({"(-1/10,1,1/2)", VR{Rat(-1, 10), Rat(1), Rat(1, 2)}});
  {
    IntGen ig(tag_seed(cfg.seed, tag + "/uniform"));
    for (int k = 0; k < (cfg.quick ? 6 : 20); ++k) {
      const int p = 1 + k % 4;
      VR a = rat_vec(ig, static_cast<std::size_t>(p) + 1, 8, 8);
      std::string nm = "U[-1,1] #" + std::to_string(k + 1) + " (";
      for (std::size_t i = 0; i < a.size(); ++i) nm += (i ? "," : "") + fmt(static_cast<double>(a[i]));
      coefs.push_back({nm + ")", a});
    }
  }
  const std::vector<std::size_t> ms = cfg.quick ? std::vector<std::size_t>{2, 4, 8, 12} : std::vector<std::size_t>{2, 4, 8, 16, 32, 64};
  std::string cert_set, first_cert, psd_fail_nonneg;
  int certs = 0, tried = 0;
  for (const Coef& c : coefs) {
    bool nonneg = true;
    for (const Rat& v : c.a) nonneg = nonneg && v >= 0;
    std::string found;
    for (std::size_t m : ms) {
      for (std::size_t d : {1, 2, 4}) {
        ++tried;
        IntGen ig(mix(tag_seed(cfg.seed, tag + "/points/" + c.name), m * 10 + d));
        std::vector<VR> X(m);
        for (auto& x : X) x = rat_vec(ig, d, 8, 4);
        MR G(m, m);
        for (std::size_t r = 0; r < m; ++r)
          for (std::size_t s = 0; s <= r; ++s) G(r, s) = G(s, r) = ref::poly_kernel(c.a, X[r], X[s]);
        std::string why;
        if (!exact_psd(G, &why)) {
          found = "m=" + std::to_string(m) + " d=" + std::to_string(d) + ": " + why;
          break;
        }
      }
      if (!found.empty()) break;
    }
    if (!found.empty()) {
      ++certs;
      cert_set += (cert_set.empty() ? "" : "; ") + c.name;
      if (first_cert.empty()) first_cert = "a=" + c.name + " " + found;
      if (nonneg && psd_fail_nonneg.empty()) psd_fail_nonneg = c.name;
    }
  }
  ClaimResult rb;
  rb.evidence.statistic = "coefficient vectors a with an exact non-PSD certificate (Gram matrix of kappa_a on dyadic points)";
  rb.evidence.value = certs;
  rb.evidence.threshold = 0;
  rb.evidence.instances = tried;
  rb.evidence.seed = cfg.seed;
  rb.evidence.sizes = std::to_string(coefs.size()) + " coefficient vectors (1/i!, (-1)^i/i!, adversarial, dyadic U[-1,1]); m in {" + join_sizes(ms) +
                      "}, d_k in {1,2,4}, points k/4 with |k| <= 8";
  rb.evidence.witness = first_cert;
  rb.evidence.extra.emplace_back("a with a certificate (no real symmetric feature map)", cert_set.empty() ? "none" : cert_set);
  rb.evidence.extra.emplace_back("nonnegative a with a certificate (must be none: sum a_i (x^T y)^i is PSD for a >= 0)",
                                 psd_fail_nonneg.empty() ? "none" : psd_fail_nonneg);
  if (!psd_fail_nonneg.empty()) {
    rb.verdict = Verdict::violated;
    rb.reason = "a nonnegative coefficient vector produced a non-PSD Gram matrix (" + psd_fail_nonneg + "): contradicts the weighted feature realization";
  } else if (certs > 0) {
    rb.verdict = Verdict::violated;
    rb.reason = "for " + std::to_string(certs) + " real coefficient vectors (a_i in R, as printed) kappa_a is not positive semidefinite, so no real feature map phi_p with "
                "phi_p(q)^T phi_p(k) = kappa_a exists (first: " + first_cert + "); every a >= 0 is realizable (weighted monomials) and every a by an asymmetric "
                "query/key pair (A002-POLY-MAP-WEIGHTED)";
  } else {
    rb.verdict = Verdict::holds;
    rb.reason = "no non-PSD Gram matrix found for any tested a";
  }
  // (c) descriptive: least-squares fit vs Taylor on [-1, 1]
  {
    MpDigitsScope sc(cfg.digits);
    std::string note;
    const int N = 201;
    for (int p = 1; p <= 6; ++p) {
      const std::size_t q = static_cast<std::size_t>(p) + 1;
      MM A(q, q);
      MV b(q, mp_t(0));
      for (int i = 0; i < N; ++i) {
        const mp_t s = cos(boost::math::constants::pi<mp_t>() * (2 * i + 1) / (2 * N));  // Chebyshev nodes
        const mp_t es = exp(s);
        for (std::size_t u = 0; u < q; ++u) {
          b[u] += pow(s, static_cast<int>(u)) * es;
          for (std::size_t v = 0; v < q; ++v) A(u, v) += pow(s, static_cast<int>(u + v));
        }
      }
      MV a = b;
      chol_solve(A, a);
      const MV t = ref::taylor_coefficients<mp_t>(p);
      mp_t ef(0), et(0);
      for (int i = 0; i <= 400; ++i) {
        const mp_t s = mp_t(-1) + mp_t(i) / 200;
        const mp_t es = exp(s);
        ef = std::max(ef, mp_t(abs(mp_t(ref::poly_series(a, s) - es))));
        et = std::max(et, mp_t(abs(mp_t(ref::poly_series(t, s) - es))));
      }
      note += (note.empty() ? "" : "; ") + std::string("p=") + std::to_string(p) + ": LS " + fmt(to_d(ef)) + " vs Taylor " + fmt(to_d(et));
    }
    rb.evidence.extra.emplace_back("(c) max |fit - exp| on [-1,1] (LS fit of a on 201 Chebyshev nodes vs a_i = 1/i!)", note);
  }
  return combine({{"(a) a=1/i! feature kernel = T_p (exact)", ra}, {"(b) realizability (exact PSD decisions)", rb}});
}

// =============================================================================================
// A002-EXP-FEATURE-MAP: (a) exact: the monomial coordinates x^alpha/sqrt(alpha!) (squared weights 1/alpha!) and the
// Kronecker coordinates x^{⊗p}/sqrt(p!) (squared weights 1/p!) give sum_{p<=P} (x^T y)^p/p! (PQ; d in {2,3},
// P <= 20 for monomials, d^P <= 2e4 for Kronecker); controls: weights 1/|alpha|! and Kronecker without 1/p!;
// (b) P-50: <phi*_P(x), phi*_P(y)> in the two coordinate systems agree (square-root features); (c) Eq. 23 at P2:
// |exp(x^T y) - <phi*_P(x), phi*_P(y)>| from explicit features, within the Lagrange bound and below 1e-16 relative
// at the largest P; (d) |phi*_P(x)|^2 -> e^{|x|^2} likewise. Decision: all parts hold.
// =============================================================================================
ClaimResult a002_exp_feature_map(const CheckConfig& cfg) {
  const std::string tag = "A002-EXP-FEATURE-MAP";
  ExactTally ex{"instances where a coordinate system's exact (squared-weight) inner product differs from sum_{p<=P} (x^T y)^p/p!"};
  Checker ck("|<phi*_P(x), phi*_P(y)>_monomial - <phi*_P(x), phi*_P(y)>_Kronecker| / max(1, |.|)", cfg.digits);
  int n = 0;
  const std::vector<int> Ps = cfg.quick ? std::vector<int>{0, 1, 2, 3, 5, 8} : std::vector<int>{0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20};
  for (std::size_t d : {2, 3})
    for (int P : Ps)
      for (int r = 0; r < (cfg.quick ? 1 : 3); ++r, ++n) {
        const std::uint64_t s = mix(tag_seed(cfg.seed, tag), n);
        IntGen ig(s);
        const VR x = rat_vec(ig, d, 8, 4), y = rat_vec(ig, d, 8, 4);
        const VR a = ref::taylor_coefficients<Rat>(P);
        const Rat T = ref::poly_series(a, rdot(x, y));
        const std::string desc = "d=" + std::to_string(d) + " P=" + std::to_string(P) + " inst_seed=" + std::to_string(s);
        std::size_t bad = ref::weighted_kernel_sq(a, x, y) != T;
        const bool kron_ok = ref::kron_map_dim(d, P) <= 20000;
        Rat kr(0), kr_nofac(0);
        if (kron_ok) {
          for (int p = 0; p <= P; ++p) {
            const Rat ip = rdot(ref::kron_map(x, p), ref::kron_map(y, p));
            kr += ip / ref::hopfield::factorial<Rat>(static_cast<unsigned>(p));
            kr_nofac += ip;
          }
          bad += kr != T;
        }
        ex.add(bad, desc + (kron_ok ? "" : " (Kronecker skipped: d^P > 2e4)"));
        if (P >= 2) {
          const ref::MonomialPlan pl = ref::monomial_plan(d, P);
          const VR mx = ref::monomial_map(x.data(), pl), my = ref::monomial_map(y.data(), pl);
          Rat un(0);
          for (std::size_t c = 0; c < mx.size(); ++c) un += a[pl.degree[c]] * mx[c] * my[c];  // 1/|alpha|! instead of 1/alpha!
          ex.control(un != T, "weights 1/|alpha|! " + desc);
          if (kron_ok) ex.control(kr_nofac != T, "Kronecker without 1/p! " + desc);
        }
        if (kron_ok && P <= 8)
          ck.add(desc, [&](unsigned dg, std::string& where) {
            MpDigitsScope sc(dg);
            const MV xm = to_mpv(x), ym = to_mpv(y);
            const MV m1 = ref::exp_feature_map_mono(xm, P), m2 = ref::exp_feature_map_mono(ym, P);
            const MV k1 = ref::exp_feature_map_kron(xm, P), k2 = ref::exp_feature_map_kron(ym, P);
            where = "monomial vs Kronecker";
            return screl(ref::dot(m1.data(), m2.data(), m1.size()), ref::dot(k1.data(), k2.data(), k1.size()));
          });
      }
  const std::string sizes = "d in {2,3}, P in {" + [&] {
    std::string t;
    for (int P : Ps) t += (t.empty() ? "" : ",") + std::to_string(P);
    return t;
  }() + "}, dyadic x, y (k/4, |k| <= 8)";
  ClaimResult ra = ex.result(cfg, sizes, "both coordinate systems give sum_{p<=P} (x^T y)^p/p! exactly");
  ClaimResult rb = ck.result(cfg, sizes + "; P <= 8");
  // (c), (d) truncation errors from explicit features at P2
  const unsigned dg = 2 * cfg.digits;
  MpDigitsScope sc(dg);
  const int Pmax = cfg.quick ? 30 : 40;
  int viol = 0, slow = 0, inst = 0;
  double worst_final = 0;
  std::string vwit, swit;
  ClaimFigure fig{"trunc", "Eq. 23: relative error of the truncated exponential feature map", "P2, explicit monomial features", "P",
                  "|exp(x^T y) - <phi*_P(x), phi*_P(y)>| / exp(x^T y)"};
  fig.y_scale = "log";
  for (std::size_t d : {2, 3})
    for (int r = 0; r < (cfg.quick ? 2 : 6); ++r, ++inst) {
      const std::uint64_t s = mix(tag_seed(cfg.seed, tag + "/trunc"), inst);
      Gauss g(s);
      MV x(d), y(d);
      for (auto& v : x) v = g.normal() * 0.7;
      for (auto& v : y) v = g.normal() * 0.7;
      const MV fx = ref::exp_feature_map_mono(x, Pmax), fy = ref::exp_feature_map_mono(y, Pmax);
      const ref::MonomialPlan pl = ref::monomial_plan(d, Pmax);
      for (int self = 0; self < 2; ++self) {
        const MV& gy = self ? fx : fy;
        const MV& yy = self ? x : y;
        const mp_t sv = ref::dot(x.data(), yy.data(), d);
        const SeriesErr be = series_errors(sv, Pmax);
        const mp_t es = exp(sv);
        mp_t ip(0);
        std::size_t c = 0;
        FigureSeries fs{std::string(self ? "|x|^2" : "x^T y") + " d=" + std::to_string(d) + " #" + std::to_string(r + 1)};
        for (int P = 0; P <= Pmax; ++P) {
          for (; c < fx.size() && pl.degree[c] <= P; ++c) ip += fx[c] * gy[c];
          const mp_t err = abs(mp_t(es - ip));
          if (err > be.bound[P]) {
            ++viol;
            if (vwit.empty()) vwit = fs.name + " P=" + std::to_string(P) + " inst_seed=" + std::to_string(s);
          }
          if (r == 0) {
            fs.x.push_back(P);
            fs.y.push_back(to_d(mp_t(err / es)));
          }
          if (P == Pmax) {
            const double fin = to_d(mp_t(err / es));
            worst_final = std::max(worst_final, fin);
            if (!(fin < 1e-16)) {
              ++slow;
              if (swit.empty()) swit = fs.name + " inst_seed=" + std::to_string(s);
            }
          }
        }
        if (r == 0) fig.series.push_back(fs);
      }
    }
  ClaimResult rc;
  rc.evidence.statistic = "max relative truncation error at P = " + std::to_string(Pmax) + " (inner products and squared norms; every error <= Lagrange bound)";
  rc.evidence.value = worst_final;
  rc.evidence.threshold = 1e-16;
  rc.evidence.digits = dg;
  rc.evidence.instances = 2 * inst;
  rc.evidence.seed = cfg.seed;
  rc.evidence.sizes = "d in {2,3}, Gaussian x, y (sd 0.7), explicit monomial features up to P = " + std::to_string(Pmax);
  rc.evidence.figures.push_back(fig);
  if (viol || slow) {
    rc.verdict = Verdict::violated;
    rc.evidence.witness = viol ? vwit : swit;
    rc.reason = viol ? std::to_string(viol) + " errors exceed the Lagrange bound, first " + vwit : "error not below 1e-16 at P = " + std::to_string(Pmax) + ": " + swit;
  } else {
    rc.verdict = Verdict::holds;
    rc.reason = "<phi*_P(x), phi*_P(y)> -> exp(x^T y) and |phi*_P(x)|^2 -> e^{|x|^2}: every error within the Lagrange bound, below 1e-16 relative at P = " +
                std::to_string(Pmax);
  }
  return combine({{"(a) exact truncated identities", ra}, {"(b) two coordinate systems (P-50)", rb}, {"(c,d) Eq. 23 limit (P2)", rc}});
}

// =============================================================================================
// A002-EXP-NONSEPARABLE: a separable exp(q^T k) = psi(q)^T psi(k), psi in R^r, forces rank <= r on every Gram
// matrix [exp(k_a^T k_b)]. Distinct keys (Gaussian scaled to norms <= 1; clustered keys c + 0.1 g), d_k in {1,2,4},
// m up to 128: Cholesky (LDL^T) pivots at D = 2 cfg.digits, doubling D until the smallest pivot agrees with the one at 2D to
// 1e-6 relative and exceeds 10^-(D-20) max G (cap 1600 digits). Full rank (all pivots positive) at every m tested
// means no separable form with r < m_max exists. Reported: log10 of the smallest pivot and of lambda_min (inverse
// iteration) vs m, and the rank resolvable in fp64 (pivots > 1e-16 max G).
// =============================================================================================
// The exp Gram matrix [exp(k_a^T k_b)] (README §3 group 16: ref::kernel_gram with the exponential kernel, tau = 1)
// and its Cholesky factor (ref::gram_cholesky_lower); the squared diagonal of L are the LDL^T pivots. false when G
// is not positive definite at the working precision (a pivot <= 0).
MM exp_gram(const DM& K) {
  ref::Kernel kern;
  kern.kind = ref::KernelKind::exponential;
  kern.scale = 1.0;
  return ref::kernel_gram(kern, to_mp(K), K.rows);
}
bool chol_pivots(const MM& G, MM& L, MV& piv) {
  try {
    L = ref::gram_cholesky_lower(G, "A002-EXP-NONSEPARABLE");
  } catch (const std::invalid_argument&) {
    return false;
  }
  piv.resize(G.rows);
  for (std::size_t i = 0; i < G.rows; ++i) piv[i] = L(i, i) * L(i, i);
  return true;
}
// lambda_min by inverse iteration (30 steps) with the Cholesky factor L of G
mp_t lambda_min(const MM& L) {
  const std::size_t m = L.rows;
  MV x(m, mp_t(1));
  mp_t lam(0);
  for (int it = 0; it < 30; ++it) {
    mp_t nrm(0);
    for (const auto& v : x) nrm += v * v;
    nrm = sqrt(nrm);
    for (auto& v : x) v /= nrm;
    MV y = x;  // solve L L^T y = x
    for (std::size_t i = 0; i < m; ++i) {
      for (std::size_t k = 0; k < i; ++k) y[i] -= L(i, k) * y[k];
      y[i] /= L(i, i);
    }
    for (std::size_t i = m; i-- > 0;) {
      for (std::size_t k = i + 1; k < m; ++k) y[i] -= L(k, i) * y[k];
      y[i] /= L(i, i);
    }
    lam = mp_t(1) / ref::dot(x.data(), y.data(), m);  // Rayleigh quotient of G^{-1}
    x = y;
  }
  return lam;
}
// Full-rank certificate of a Gram matrix built by `build` at the current precision: Cholesky at D and 2D digits
// (D = D0, 2 D0, ... <= 1600) until every pivot is positive at both, the smallest pivots agree to 1e-6 relative and
// exceed 10^-(D-20) max G. A rank-deficient (separable) Gram matrix never passes: its trailing pivots are rounding
// noise that changes with the precision.
struct Cert {
  bool done = false, pd = false;
  unsigned digits = 0;
  double log10_lambda_min = 0;
  int rank_fp64 = 0;
};
Cert certify(const std::function<MM()>& build, unsigned D0) {
  Cert c;
  unsigned D = D0;
  mp_t pmin1;
  {
    MpDigitsScope sc(D);
    MV piv;
    MM L;
    c.pd = chol_pivots(build(), L, piv);
    pmin1 = c.pd ? *std::min_element(piv.begin(), piv.end()) : mp_t(0);
  }
  while (!c.done && D <= 1600) {
    MpDigitsScope sc(2 * D);
    const MM G = build();
    MV piv;
    MM L;
    const bool pd2 = chol_pivots(G, L, piv);
    const mp_t pmin2 = pd2 ? *std::min_element(piv.begin(), piv.end()) : mp_t(0);
    mp_t gmax(0);
    for (const auto& v : G.a) gmax = std::max(gmax, v);
    const bool agree = c.pd && pd2 && abs(mp_t(pmin1 - pmin2)) <= mp_t(1e-6) * pmin2;
    const bool above = pmin2 > pow(mp_t(10), -static_cast<int>(D) + 20) * gmax;
    if (agree && above) {
      c.done = true;
      c.digits = 2 * D;
      c.log10_lambda_min = lg(lambda_min(L));
      for (const auto& v : piv) c.rank_fp64 += v > gmax * mp_t(1e-16);
    }
    c.pd = pd2;
    pmin1 = pmin2;
    D *= 2;
  }
  return c;
}
ClaimResult a002_exp_nonseparable(const CheckConfig& cfg) {
  const std::string tag = "A002-EXP-NONSEPARABLE";
  const std::vector<std::size_t> ms = cfg.quick ? std::vector<std::size_t>{2, 4, 8, 16, 24} : std::vector<std::size_t>{2, 4, 8, 16, 32, 64, 96, 128};
  int full = 0, deficient = 0, unresolved = 0, n = 0;
  std::string dwit, uwit, notes;
  unsigned max_digits = 0;
  ClaimFigure fig{"lambda", "Smallest eigenvalue of exp Gram matrices vs m", "inverse iteration at the certified precision", "m", "log10 lambda_min"};
  for (int fam = 0; fam < 2; ++fam)
    for (std::size_t d : {1, 2, 4}) {
      FigureSeries fs{std::string(fam ? "clustered" : "ball") + " d=" + std::to_string(d)};
      std::string fp64;
      for (std::size_t m : ms) {
        if (fam == 1 && d == 1 && m > 32) continue;  // clustered 1-d keys: lambda_min below 10^-1500 beyond m = 32
        const std::uint64_t s = mix(tag_seed(cfg.seed, tag), n++);
        Gauss g(s);
        DM K = gauss_matrix(m, d, g);
        if (fam == 0) {
          double mx = 0;
          for (std::size_t i = 0; i < m; ++i) {
            double r = 0;
            for (std::size_t j = 0; j < d; ++j) r += K(i, j) * K(i, j);
            mx = std::max(mx, std::sqrt(r));
          }
          for (double& v : K.a) v /= mx;
        } else {
          std::vector<double> c(d);
          double cn = 0;
          for (auto& v : c) v = g.normal(), cn += v * v;
          for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < d; ++j) K(i, j) = 0.5 * c[j] / std::sqrt(cn) + 0.1 * K(i, j) / std::sqrt(static_cast<double>(d));
        }
        const std::string desc = std::string(fam ? "clustered" : "ball") + " d=" + std::to_string(d) + " m=" + std::to_string(m) + " inst_seed=" + std::to_string(s);
        const Cert c = certify([&] { return exp_gram(K); }, 2 * cfg.digits);
        const bool done = c.done, pd = c.pd;
        if (done) {
          max_digits = std::max(max_digits, c.digits);
          fs.x.push_back(static_cast<double>(m));
          fs.y.push_back(c.log10_lambda_min);
          fp64 += (fp64.empty() ? "" : ",") + std::to_string(m) + ":" + std::to_string(c.rank_fp64);
        }
        if (done) ++full;
        else if (!pd) {
          ++deficient;
          if (dwit.empty()) dwit = desc;
        } else {
          ++unresolved;
          if (uwit.empty()) uwit = desc;
        }
      }
      if (!fs.x.empty()) fig.series.push_back(fs);
      notes += (notes.empty() ? "" : "; ") + fs.name + " m:rank_fp64 " + fp64;
    }
  // negative control: Gram matrices of the separable truncated kernel T_5(x^T y) (rank <= binom(d+5,5)) with
  // m > binom(d+5,5) distinct keys must not be certified full rank by the same procedure
  Controls ctl;
  for (std::size_t d : {1, 2}) {
    const std::size_t m = ref::monomial_map_dim(d, 5) + 4;
    Gauss g(mix(tag_seed(cfg.seed, tag + "/control"), d));
    DM K = gauss_matrix(m, d, g, 0.3);
    const Cert c = certify(
        [&] {
          const MM k = to_mp(K);
          const MV a = ref::taylor_coefficients<mp_t>(5);
          MM G(m, m);
          for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < m; ++j) G(i, j) = ref::poly_series(a, ref::dot(k.row(i), k.row(j), d));
          return G;
        },
        2 * cfg.digits);
    ctl.add(!c.done, "T_5 kernel d=" + std::to_string(d) + " m=" + std::to_string(m));
  }
  ClaimResult r;
  auto& e = r.evidence;
  e.statistic = "Gram matrices [exp(k_a^T k_b)] not certified full rank (positive LDL pivots stable under doubled digits)";
  e.value = deficient + unresolved;
  e.threshold = 0;
  e.instances = n;
  e.digits = max_digits;
  e.seed = cfg.seed;
  e.sizes = "keys Gaussian scaled to norms <= 1 (ball) and clustered (0.5 c + 0.1 g/sqrt(d)), d_k in {1,2,4}, m in {" + join_sizes(ms) + "} (clustered d=1: m <= 32)";
  e.extra.emplace_back("rank resolvable in fp64 (pivots > 1e-16 max G), m:rank", notes);
  e.extra.emplace_back("largest precision needed (digits)", std::to_string(max_digits));
  e.figures.push_back(fig);
  if (deficient > 0) {
    r.verdict = Verdict::violated;
    e.witness = dwit;
    r.reason = "an exp Gram matrix of distinct keys has a nonpositive pivot at every precision tried: " + dwit;
  } else if (unresolved > 0) {
    r.verdict = Verdict::inconclusive;
    e.witness = uwit;
    r.reason = std::to_string(unresolved) + " Gram matrices were not resolved within 3200 digits (first " + uwit + "); " + std::to_string(full) + " certified full rank";
  } else {
    r.verdict = Verdict::holds;
    r.reason = "every one of " + std::to_string(full) + " exp Gram matrices of distinct keys is certified full rank (up to m = " + std::to_string(ms.back()) +
               "): no separable form exp(q^T k) = psi(q)^T psi(k) with psi in R^r, r < " + std::to_string(ms.back()) + ", fits the tested keys";
  }
  apply_controls(r, ctl, "separable truncated kernel T_5(x^T y) certified full rank beyond its rank binom(d+5,5)");
  return r;
}

}  // namespace

void register_a002_exponential_maps(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A002-TAYLOR-EXP", "exp(q^T k) is approximated by its truncated Taylor series (Eq. 4)", inequality, false, a002_taylor_exp);
  add("A002-TAYLOR-EQ5", "Eq. 5's learnable polynomial kernel is a feature map that approximates softmax", identity, false, a002_taylor_eq5);
  add("A002-EXP-FEATURE-MAP", "exp(q^T k) = phi*(q)^T phi*(k) (Eqs. 22-23)", identity, false, a002_exp_feature_map);
  add("A002-EXP-NONSEPARABLE", "The exp kernel has no finite separable form", inequality, false, a002_exp_nonseparable);
}

}  // namespace recall
