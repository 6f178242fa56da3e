// Paper A003 (Hu et al. 2024, nonparametric modern Hopfield models), §4.2 "Well-Separation Condition": Thm 4.2 (4.3)
// with its proof App. B.7 (B.40)-(B.44) and the necessity sentence before it. The k-monotonicity remark after it and §5
// "Comparing with Existing Works" (k = M) are in k_monotonicity_reduction.cpp.
// Spec IDs: A003-THM-4.2, A003-THM-4.2-FREE-R, A003-THM-4.2-NECESSARY.
//
// Maps: T_U (literal (3.11)) and T_R (renormalised) of recall/reference/hopfield.hpp, delta xi = 0; masks random containing
// mu (Philox keyed by the claim seed), centred windows (w = k) and, with R over [M], top-K exactly-K recomputed at every x
// (under (4.3) mu is the strict top-1 of every x in the ball, so mu is in M(x)). Each reading has its own verdict (parts);
// the headline is their conjunction (violated if one is violated, else inconclusive if one is, else holds).
//
// Invariance search (the `stored` predicate of A003-GEN-FIXED-POINT; an estimate from below): maximise
// log10 |T(x) - xi_mu| over the closed ball |x - xi_mu| <= r in double (C9 error forms) with hop_ball_ascent (Nelder-Mead
// for d <= 4, projected finite-difference ascent otherwise) from Q1, Q4 (r/R in {.5, .9, .99, 1}), the boundary points
// towards and away from each of the 5 nearest neighbours, and random Q2/Q3 starts: quick 24 starts x 40 evaluations,
// full 110 starts x 60 evaluations (the FREE-R data searches at f < 1 and NECESSARY use the quick budget); the best
// point is evaluated at P-ADAPT digits (log10(|T(x) - xi_mu| / r), a value above 10^-(D-20) a violation, re-verified at
// doubled digits: HopTally of hopfield_claims.hpp); the search budget and the best x are reported with each tally.
// Certification (d <= 3): interval branch-and-bound over boxes covering the ball (bisection of the widest side; a box is
// discarded when it misses the ball, accepted when an upper bound of |T(x) - xi_mu| over the box is <= r): bounds of the
// scores <x, xi_nu - xi_mu> over the box, of exp(beta .) and of the softmax weights by monotonicity, then the smaller of
// the triangle bound sum_nu w_nu^hi |xi_nu - xi_mu| and the norm of the coordinate-wise interval vector. A double-precision
// pass selects candidates; the certificate is the same branch-and-bound run in MP at 50 digits with every computed bound
// widened by 10^5 u (outward rounding), re-verified at 100 digits.
//
// A003-THM-4.2 (D-ALL): R = R_M (mask pairs, as printed; k >= 2), flag R_full (pairs of [M]); Delta_mu over [M]; instances
//   with Delta_mu - 2 m R > 0 at beta = f beta_req, beta_req = ln((M+k-2) m / R) / (Delta_mu - 2 m R), f in {1, 1.5, 2, 4};
//   G1 (m = 1), G2 at (d, M) in {(2,10), (3,20), (8,100)} (full: d in {2,3,8,16,32} x M in {3,5,10,20,100}) and the G4
//   families (d = 2, 3; full also 8), k in {2, 3, 5, M}; up to 4 (full 10) mu per set, one random mask and the centred
//   window per k. The fraction of (mu, mask) with Delta_mu - 2 m R > 0 is reported per generator for both R definitions;
//   the qualifying instances are thinned evenly to 12 (full 30) per R definition, and those needing more than 400 P-ADAPT
//   digits (at f = 1, or per larger f) are skipped and counted (their ratios are exponentially small). The headline is the
//   as-printed R_M; the R_full flag (including top-K masks) has its own verdicts in extra.
// A003-THM-4.2-FREE-R (D-ALL): any r > 0: r = rho Delta_mu / (2m), rho in {0.1, 0.25, 0.5, 0.75, 0.9} (quick {0.25, 0.75}),
//   beta = f beta_req(r), f in {1, 1.25, 1.5, 2} (quick {1, 2}) for the verdict and f in {0.1, 0.25, 0.5, 0.75} (quick
//   {0.5, 0.75}) as data (the smallest f with observed invariance is reported); k in {1, 3, 5, M}, random masks;
//   G1, G2 at (2,2), (2,5), (3,10), (8,20) (full: d in {2,3,8,16,32} x M in {2,3,5,10,20,100}) and G4 (d = 2, 3; quick: ten
//   named families), k in {1, M} in quick; thinned evenly to 32 (full 80) instances, the 400-digit cap as above (per f). The worst
//   d <= 3 instance of each reading is certified by branch-and-bound.
// A003-THM-4.2-NECESSARY: claim "S_mu (flag: B(xi_mu, r)) invariant => (4.3)". Searched families: the FREE-R data with
//   f < 1 and the THM-4.2 instances at f in {0.5, 0.75} (beta < beta_req), d <= 3, M <= 10, thinned evenly to 48 (full 600)
//   pairs, proper sparse masks (2 <= k < M) first, then k = M, then k = 1. Candidates (search ratio <= 0.95) are certified by branch-and-bound (at most 3, full
//   12, per reading); a certified one (at 50 and 100 digits) is a counter-instance: violated, and the reading's search
//   stops there; candidates without a certificate: inconclusive (budget); no candidate: holds.
//
// Seeds: instances from tag_seed(cfg.seed, ID) (std::mt19937_64 with the explicit draws of hopfield_claims.hpp), masks from
// Philox keyed by that seed and a running row: bit-reproducible for a fixed seed.
#include "recall/proofs/ledger.hpp"
#include "recall/reference/hopfield.hpp"
#include "claim_support.hpp"
#include "hopfield_claims.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
namespace hf = ref::hopfield;
using hf::Mask;
using hf::Reading;
using DV = std::vector<double>;

// ---- instances of the invariance claims -----------------------------------------------------------------------------

struct Ws {
  std::string fam;
  DM Xi;
  std::size_t mu = 0;
  Mask mask;           // fixed mask (empty: top-K exactly-K with K = k, recomputed at each x)
  std::size_t k = 0;
  double r = 0, m = 0, Delta = 0, beta_req = 0;
  std::string rdef;    // "R_M", "R_full", "r=rho..."
};
template <class S> Mask mask_at(const Ws& w, const ref::Matrix<S>& Xi, const ref::Vector<S>& x) {
  return w.mask.empty() ? hf::topk_exact(hf::scores(Xi, x), w.k) : w.mask;
}
std::string ws_desc(const Ws& w, Reading rd, double beta) {
  return w.fam + " M=" + std::to_string(w.Xi.rows) + " d=" + std::to_string(w.Xi.cols) + " mu=" + std::to_string(w.mu + 1) + " " +
         hf::reading_name(rd) + (w.mask.empty() ? " topK-exact K=" + std::to_string(w.k) : " mask=" + hop_mask_str(w.mask)) + " " + w.rdef +
         " r=" + fmt(w.r, 6) + " beta=" + fmt(beta, 6) + " (beta/beta_req=" + fmt(beta / w.beta_req, 3) + ")";
}
// beta_req = ln((M+k-2) m / r) / (Delta - 2 m r) (NaN when Delta - 2 m r <= 0; 0 when the logarithm is <= 0)
double beta_req(std::size_t M, std::size_t k, double m, double r, double Delta) {
  const double gap = Delta - 2 * m * r;
  if (!(gap > 0)) return NAN;
  return std::max(0.0, std::log(static_cast<double>(M + k - 2) * m / r) / gap);
}

// P-ADAPT digits an instance needs at beta (score spread over the ball at most 2 m (m + r)); instances needing more than
// kMaxDigits are skipped and counted (their error / r ratios are of order exp(-beta (Delta - 2mr)), far below 1).
constexpr unsigned kMaxDigits = 400;
bool digits_ok(const Ws& w, double beta) { return hop_padapt_digits(beta, 2 * w.m * (w.m + w.r)) <= kMaxDigits; }

// x moved radially into the ball |x - c| <= r (1 - 1e-14): strictly inside in exact arithmetic despite the rounding
// of the projection
DV into_ball(DV x, const DV& c, double r) {
  DV v(x.size());
  for (std::size_t j = 0; j < x.size(); ++j) v[j] = x[j] - c[j];
  const double n = hop_norm(v), rr = r * (1 - 1e-14);
  if (n > rr)
    for (std::size_t j = 0; j < x.size(); ++j) x[j] = c[j] + v[j] * (rr / n);
  return x;
}
// The invariance search in double; returns the best point.
HopAscent inv_search(const Ws& w, Reading rd, double beta, Rng& g, bool quick) {  // quick: 24 starts x 40, else 110 x 60
  const DM& X = w.Xi;
  const std::size_t M = X.rows, d = X.cols;
  const DV c = hop_row(X, w.mu);
  auto obj = [&](const DV& x0) {
    const DV x = into_ball(x0, c, w.r);
    const DV e = hf::retrieval_error(rd, X, x, beta, mask_at(w, X, x), w.mu);
    return std::log10(hop_norm(e));
  };
  std::vector<DV> starts = hop_ascent_starts(g, X, w.mu, w.r, quick ? 8 : 90);
  std::vector<std::pair<double, std::size_t>> nn;
  for (std::size_t nu = 0; nu < M; ++nu)
    if (nu != w.mu) nn.emplace_back(hf::pair_distance(X, w.mu, nu), nu);
  std::sort(nn.begin(), nn.end());
  for (std::size_t i = 0; i < nn.size() && i < 5; ++i)
    for (double sgn : {1.0, -1.0}) {
      DV x = c;
      for (std::size_t j = 0; j < d; ++j) x[j] += sgn * w.r * (X(nn[i].second, j) - c[j]) / nn[i].first;
      starts.push_back(x);
    }
  HopAscent a = hop_ball_ascent(obj, starts, c, w.r, quick ? 40 : 60);
  a.x = into_ball(a.x, c, w.r);
  return a;
}
// log10(|T(x) - xi_mu| / r) at the current digits (C9); the statistic of the D-ALL tallies
HopStat inv_stat(const Ws& w, Reading rd) {
  return [w, rd](const HopInst& in, std::string& note) {
    const MM X = to_mp(in.Xi);
    const MV x = to_mp(in.x), xm = to_mp(hop_row(in.Xi, in.mu));
    mp_t dx(0);
    for (std::size_t j = 0; j < x.size(); ++j) dx += (x[j] - xm[j]) * (x[j] - xm[j]);
    if (sqrt(dx) > mp_t(w.r)) {
      note = "search point outside the ball";
      return static_cast<double>(NAN);
    }
    const MV e = hf::retrieval_error(rd, X, x, mp_t(in.beta), mask_at(w, X, x), in.mu);
    return log10_norm(e) - lg(mp_t(w.r));
  };
}
HopInst ws_inst(const Ws& w, Reading rd, double beta, const HopAscent& a) {
  HopInst in;
  in.gen = w.fam + " " + w.rdef + " r=" + fmt(w.r, 6) + " " + hf::reading_name(rd);
  in.query = "Q6-x(" + std::to_string(a.starts) + " starts, " + std::to_string(a.evals) + " evals; best log10(|T(x)-xi_mu|/r) in double " +
             fmt(a.f - std::log10(w.r), 5) + ")";
  in.Xi = w.Xi;
  in.x = a.x;
  in.mu = w.mu;
  in.mask = mask_at(w, w.Xi, a.x);
  in.beta = beta;
  return in;
}

// ---- interval branch-and-bound certification of max_{|x - xi_mu| <= r} |T(x) - xi_mu| <= r ------------------------------

template <class S> S smax(const S& a, const S& b) { return a > b ? a : b; }
template <class S> S sabs(const S& a) { return a < 0 ? S(-a) : a; }
// Upper bound of |T(x) - xi_mu| over the box c +- h, fixed mask containing mu; `wid` widens every computed bound
// (relative; 0 in the double pre-pass).
template <class S>
S box_upper(const ref::Matrix<S>& X, std::size_t mu, const Mask& mask, Reading rd, const S& beta, const ref::Vector<S>& c, const ref::Vector<S>& h,
            const S& wid) {
  using std::exp;
  using std::sqrt;
  using boost::multiprecision::exp;
  using boost::multiprecision::sqrt;
  const std::size_t M = X.rows, d = X.cols;
  const S up = S(1) + wid, dn = S(1) - wid;
  std::vector<S> Elo(M, S(0)), Ehi(M, S(0)), wn(M, S(0));
  std::vector<char> in(M, 0);
  for (std::size_t nu : mask) in[nu] = 1;
  for (std::size_t nu = 0; nu < M; ++nu) {
    if (nu == mu) continue;
    S cen(0), rad(0), mag(0), w2(0);
    for (std::size_t j = 0; j < d; ++j) {
      const S w = X(nu, j) - X(mu, j);
      cen += c[j] * w;
      rad += h[j] * sabs(w);
      mag += sabs(S(c[j] * w)) + h[j] * sabs(w);
      w2 += w * w;
    }
    const S err = wid * mag;
    Elo[nu] = exp(S(beta * (cen - rad - err) * (cen - rad - err < 0 ? up : dn))) * dn;
    Ehi[nu] = exp(S(beta * (cen + rad + err) * (cen + rad + err > 0 ? up : dn))) * up;
    wn[nu] = sqrt(w2) * up;
  }
  // weights of the nu != mu in the softmax over `pool` (reading R: the mask; U: all of [M])
  S slo(0), shi(0), olo(0), ohi(0);  // sums over the mask \ {mu} and over its complement
  for (std::size_t nu = 0; nu < M; ++nu) {
    if (nu == mu) continue;
    if (in[nu]) slo += Elo[nu], shi += Ehi[nu];
    else olo += Elo[nu], ohi += Ehi[nu];
  }
  const bool U = rd == Reading::sparse_u;
  std::vector<S> qlo(M, S(0)), qhi(M, S(0));
  S tri(0);
  for (std::size_t nu : mask) {
    if (nu == mu) continue;
    S others_lo(0), others_hi(0);  // summed directly (no cancellation)
    for (std::size_t o = 0; o < M; ++o)
      if (o != mu && o != nu && (U || in[o])) others_lo += Elo[o], others_hi += Ehi[o];
    qhi[nu] = Ehi[nu] / (S(1) + Ehi[nu] + smax(S(0), S(others_lo * dn))) * up;
    qlo[nu] = Elo[nu] / (S(1) + Elo[nu] + others_hi * up) * dn;
    tri += qhi[nu] * wn[nu];
  }
  // reading U: e = sum_{nu in M \ mu} pi_nu (xi_nu - xi_mu) - t xi_mu, t = the mass outside the mask
  S tlo(0), thi(0);
  if (U) {
    thi = ohi / (S(1) + smax(S(0), S(slo * dn)) + ohi) * up;
    tlo = olo / (S(1) + shi * up + olo) * dn;
    tri += thi * sqrt(S(ref::dot(X.row(mu), X.row(mu), d))) * up;
  }
  S box2(0);
  for (std::size_t j = 0; j < d; ++j) {
    S lo(0), hi(0), mag(0);  // mag: the absolute rounding allowance of the signed sums
    for (std::size_t nu : mask) {
      if (nu == mu) continue;
      const S w = X(nu, j) - X(mu, j);
      if (w >= 0) lo += qlo[nu] * w, hi += qhi[nu] * w;
      else lo += qhi[nu] * w, hi += qlo[nu] * w;
      mag += qhi[nu] * sabs(w);
    }
    if (U) {
      const S xm = X(mu, j);
      if (xm >= 0) lo -= thi * xm, hi -= tlo * xm;
      else lo -= tlo * xm, hi -= thi * xm;
      mag += thi * sabs(xm);
    }
    const S a = (smax(sabs(lo), sabs(hi)) + wid * mag) * up;
    box2 += a * a;
  }
  const S b2 = sqrt(box2) * up;
  return (b2 < tri ? b2 : tri) * up;
}

struct Bnb {
  int status = 0;  // 1 certified, -1 refuted (a point of the ball maps outside), 0 budget exhausted
  int boxes = 0;
  double sup = 0;  // the certified bound / r
};
template <class S> Bnb bnb(const Ws& w, Reading rd, double beta_d, int budget, const S& wid) {
  const ref::Matrix<S> X = ref::cast<S>(w.Xi);
  const std::size_t d = X.cols;
  const S beta(beta_d), r(w.r);
  const ref::Vector<S> cm(X.row(w.mu), X.row(w.mu) + d);
  struct Box {
    ref::Vector<S> c, h;
  };
  std::vector<Box> st{Box{cm, ref::Vector<S>(d, r)}};
  Bnb out;
  S worst(0);
  const Mask& mk = w.mask;
  if (mk.empty()) return out;  // query-dependent masks are not certified
  while (!st.empty()) {
    if (++out.boxes > budget) return out;
    Box b = std::move(st.back());
    st.pop_back();
    S gap2(0);  // squared distance from xi_mu to the box
    std::size_t jw = 0;
    for (std::size_t j = 0; j < d; ++j) {
      const S t = sabs(S(b.c[j] - cm[j])) - b.h[j];
      if (t > 0) gap2 += t * t;
      if (b.h[j] > b.h[jw]) jw = j;
    }
    if (gap2 > r * r * (S(1) + wid)) continue;
    const S ub = box_upper(X, w.mu, mk, rd, beta, b.c, b.h, wid);
    if (ub <= r) {
      if (ub > worst) worst = ub;
      continue;
    }
    S dc(0);
    for (std::size_t j = 0; j < d; ++j) dc += (b.c[j] - cm[j]) * (b.c[j] - cm[j]);
    if (dc <= r * r) {  // the centre lies in the ball: does it map outside?
      const ref::Vector<S> e = hf::retrieval_error(rd, X, b.c, beta, mk, w.mu);
      if (ref::dot(e.data(), e.data(), d) > r * r * (S(1) + wid)) {
        out.status = -1;
        return out;
      }
    }
    if (b.h[jw] < r * S(1e-7)) return out;
    Box a = b;
    b.h[jw] /= 2;
    a.h[jw] = b.h[jw];
    a.c[jw] -= b.h[jw];
    b.c[jw] += b.h[jw];
    st.push_back(std::move(a));
    st.push_back(std::move(b));
  }
  out.status = 1;
  out.sup = ref::convert<double>(S(worst / r));
  return out;
}
// Certify invariance: double pre-pass, then MP at 50 digits (bounds widened by 10^5 u) and 100 digits.
std::string certify(const Ws& w, Reading rd, double beta, int budget, bool* ok) {
  *ok = false;
  if (w.Xi.cols > 3 || w.mask.empty()) return "not certified (d > 3 or query-dependent mask)";
  const Bnb b0 = bnb<double>(w, rd, beta, budget, 0.0);
  if (b0.status != 1)
    return b0.status < 0 ? "refuted by branch-and-bound (a box centre maps outside)" : "not certified (" + std::to_string(budget) + " boxes)";
  Bnb b50, b100;
  {
    MpDigitsScope sc(50);
    b50 = bnb<mp_t>(w, rd, beta, 4 * b0.boxes + 100, mp_t("1e-45"));
  }
  if (b50.status != 1) return "double pass certified, 50-digit interval pass not (" + std::to_string(b50.boxes) + " boxes)";
  {
    MpDigitsScope sc(100);
    b100 = bnb<mp_t>(w, rd, beta, 4 * b0.boxes + 100, mp_t("1e-95"));
  }
  if (b100.status != 1) return "50-digit certificate not reproduced at 100 digits";
  *ok = true;
  return "certified: sup |T(x)-xi_mu|/r <= " + fmt(b50.sup, 6) + " (" + std::to_string(b50.boxes) + " boxes at 50 digits, " +
         std::to_string(b100.boxes) + " at 100)";
}

// ---- instance families ------------------------------------------------------------------------------------------------

// (the pattern sets Set / sets_of and the G4 pick kG4Pick are in hopfield_claims.hpp: k_monotonicity_reduction.cpp
// uses them too)
std::vector<std::pair<std::size_t, std::size_t>> grid_dm(const std::vector<std::size_t>& ds, const std::vector<std::size_t>& Ms) {
  std::vector<std::pair<std::size_t, std::size_t>> v;
  for (std::size_t d : ds)
    for (std::size_t M : Ms) v.emplace_back(d, M);
  return v;
}
// at most `cap` elements, evenly spaced (deterministic)
template <class T> std::vector<T> thin(const std::vector<T>& v, std::size_t cap) {
  if (v.size() <= cap) return v;
  std::vector<T> out;
  for (std::size_t i = 0; i < cap; ++i) out.push_back(v[i * v.size() / cap]);
  return out;
}

// THM-4.2 instances: (pattern set, mu, mask) with Delta_mu - 2 m R > 0, per R definition ("R_M" as printed, "R_full");
// counts[gen + " " + rdef] = {qualifying, total}.
std::map<std::string, std::vector<Ws>> thm42_instances(std::uint64_t seed, bool quick, std::map<std::string, std::pair<int, int>>& counts) {
  Rng g(seed);
  const std::vector<Set> sets =
      sets_of(g, quick ? std::vector<std::pair<std::size_t, std::size_t>>{{2, 10}, {3, 20}, {8, 100}} : grid_dm({2, 3, 8, 16, 32}, {3, 5, 10, 20, 100}),
              quick ? std::vector<std::size_t>{2, 3} : std::vector<std::size_t>{2, 3, 8}, {});
  std::map<std::string, std::vector<Ws>> out;
  std::uint64_t row = 0;
  for (const Set& S : sets) {
    const std::size_t M = S.Xi.rows;
    const double m = hf::max_norm(S.Xi), Rf = hf::radius(S.Xi);
    std::vector<std::size_t> mus;
    for (std::size_t i = 0; i < std::min<std::size_t>(M, quick ? 4 : 10); ++i) mus.push_back(M <= (quick ? 4u : 10u) ? i : hop_below(g, M));
    for (std::size_t mu : mus) {
      const double Delta = hf::separation(S.Xi, mu);
      for (std::size_t k : {std::size_t{2}, std::size_t{3}, std::size_t{5}, M}) {
        if (k < 2 || k > M) continue;
        std::vector<Mask> masks{hf::random_mask(M, k, seed, row++, static_cast<long long>(mu))};
        const Mask win = hf::sliding_window(M, mu, k);
        if (win.size() >= 2 && win != masks[0]) masks.push_back(win);
        for (const Mask& mk : masks)
          for (const char* rdef : {"R_M", "R_full"}) {
            const double R = std::string(rdef) == "R_M" ? hf::radius(S.Xi, &mk) : Rf;
            auto& c = counts[S.name.substr(0, 2) == "G4" ? std::string("G4") + " " + rdef : S.name + " " + rdef];
            ++c.second;
            const double br = beta_req(M, mk.size(), m, R, Delta);
            if (!(br > 0)) continue;
            ++c.first;
            out[rdef].push_back(Ws{S.name, S.Xi, mu, mk, mk.size(), R, m, Delta, br, rdef});
          }
        if (k < M && beta_req(M, k, m, Rf, Delta) > 0)  // top-K (exactly K) with R over [M]
          out["R_full"].push_back(Ws{S.name, S.Xi, mu, Mask{}, k, Rf, m, Delta, beta_req(M, k, m, Rf, Delta), "R_full"});
      }
    }
  }
  return out;
}

// FREE-R instances: r = rho Delta / (2m) for Delta > 0, random masks containing mu with k in ks
std::vector<Ws> free_r_instances(std::uint64_t seed, bool quick) {
  Rng g(seed);
  const std::vector<Set> sets = sets_of(
      g, quick ? std::vector<std::pair<std::size_t, std::size_t>>{{2, 2}, {2, 5}, {3, 10}, {8, 20}} : grid_dm({2, 3, 8, 16, 32}, {2, 3, 5, 10, 20, 100}),
      {2, 3}, quick ? kG4Pick : std::vector<std::string>{});
  const std::vector<double> rhos = quick ? std::vector<double>{0.25, 0.75} : std::vector<double>{0.1, 0.25, 0.5, 0.75, 0.9};
  std::vector<Ws> out;
  std::uint64_t row = 0;
  for (const Set& S : sets) {
    const std::size_t M = S.Xi.rows, mu = hop_below(g, M);
    const double m = hf::max_norm(S.Xi), Delta = hf::separation(S.Xi, mu);
    if (!(Delta > 0)) continue;
    std::vector<std::size_t> ks = quick ? std::vector<std::size_t>{1, M} : std::vector<std::size_t>{1, 3, 5, M};
    std::sort(ks.begin(), ks.end());
    ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
    for (std::size_t k : ks) {
      if (k > M) continue;
      const Mask mk = hf::random_mask(M, k, seed, row++, static_cast<long long>(mu));
      for (double rho : rhos) {
        const double r = rho * Delta / (2 * m), br = beta_req(M, k, m, r, Delta);
        if (br > 0) out.push_back(Ws{S.name, S.Xi, mu, mk, k, r, m, Delta, br, "r=" + fmt(rho) + "*Delta/(2m)"});
      }
    }
  }
  return out;
}

// ---- A003-THM-4.2 -------------------------------------------------------------------------------------------------------

ClaimResult a003_thm_4_2(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A003-THM-4.2");
  std::map<std::string, std::pair<int, int>> counts;
  const auto inst = thm42_instances(seed, cfg.quick, counts);
  Rng g(mix(seed, 1));
  const std::vector<double> fs = cfg.quick ? std::vector<double>{1, 2} : std::vector<double>{1, 1.5, 2, 4};
  std::map<std::string, HopTally> tally;
  std::map<std::string, int> used, skipped, skipped_f;
  for (const char* rdef : {"R_M", "R_full"})
    for (const Ws& w : thin(inst.count(rdef) ? inst.at(rdef) : std::vector<Ws>{}, cfg.quick ? 12 : 30)) {
      if (!digits_ok(w, fs.front() * w.beta_req)) {
        ++skipped[rdef];
        continue;
      }
      ++used[rdef];
      for (double f : fs)
        for (Reading rd : {Reading::sparse_u, Reading::sparse_r}) {
          const double beta = f * w.beta_req;
          if (!digits_ok(w, beta)) {
            ++skipped_f[rdef];
            continue;
          }
          HopTally& T = tally[std::string(rdef) + " " + hf::reading_name(rd)];
          T.statistic = "log10(max_{x in S_mu} |T(x) - xi_mu| / R) (search)";
          T.add(ws_inst(w, rd, beta, inv_search(w, rd, beta, g, cfg.quick)), inv_stat(w, rd), "f=" + fmt(f));
        }
    }
  std::string sizes = cfg.quick ? "G1, G2 at (d,M) = (2,10), (3,20), (8,100); G4 d = 2, 3" : "G1, G2 d in {2,3,8,16,32} x M in {3,5,10,20,100}; G4 d = 2, 3, 8";
  Parts parts{{"reading U (R over the mask)", tally["R_M U"].result(cfg, sizes, seed)}, {"reading R (R over the mask)", tally["R_M R"].result(cfg, sizes, seed)}};
  ClaimResult out = combine(parts, CombineStyle{PartSummary::instances_witness, true});
  out.evidence.extra.emplace_back("headline", "conjunction over the readings U and R with R over the mask pairs (as printed)");
  for (const char* rd : {"U", "R"}) {
    const ClaimResult fr = tally[std::string("R_full ") + rd].result(cfg, sizes, seed);
    out.evidence.extra.emplace_back(std::string("flag R_full, reading ") + rd,
                                    std::string(verdict_name(fr.verdict)) + "; worst log10 ratio " + fmt(fr.evidence.value, 5) + " over " +
                                        std::to_string(fr.evidence.instances) + " searches; " + fr.reason + "; worst: " + fr.evidence.witness);
  }
  for (const auto& [key, c] : counts)
    out.evidence.extra.emplace_back("fraction with Delta_mu - 2mR > 0, " + key, std::to_string(c.first) + "/" + std::to_string(c.second));
  out.evidence.extra.emplace_back("searched", std::to_string(used["R_M"]) + " (R_M) and " + std::to_string(used["R_full"]) +
                                                  " (R_full) qualifying instances (" + std::to_string(skipped["R_M"] + skipped["R_full"]) +
                                                  " more skipped and " + std::to_string(skipped_f["R_M"] + skipped_f["R_full"]) +
                                                  " (instance, f, reading) searches: P-ADAPT digits > 400) from up to " + (cfg.quick ? "12" : "30") +
                                                  " evenly thinned per R definition" +
                                                  ", f = beta/beta_req in {" + std::string(cfg.quick ? "1, 2" : "1, 1.5, 2, 4") +
                                                  "}, both readings; " + (cfg.quick ? "24 starts x 40 evals" : "110 starts x 100 evals") + " per search");
  return out;
}

// ---- A003-THM-4.2-FREE-R --------------------------------------------------------------------------------------------------

ClaimResult a003_thm_4_2_free_r(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A003-THM-4.2-FREE-R");
  const std::vector<Ws> inst = free_r_instances(seed, cfg.quick);
  Rng g(mix(seed, 1));
  const std::vector<double> fv = cfg.quick ? std::vector<double>{1, 2} : std::vector<double>{1, 1.25, 1.5, 2};
  const std::vector<double> fd = cfg.quick ? std::vector<double>{0.5, 0.75} : std::vector<double>{0.1, 0.25, 0.5, 0.75};
  std::map<int, HopTally> tally;
  std::map<int, std::pair<double, std::pair<Ws, double>>> worst_small;  // reading -> (ratio, (instance, beta)) with d <= 3
  std::map<int, std::vector<double>> smallest_f;
  std::map<int, int> inv_below;
  int skipped = 0, used = 0;
  for (const Ws& w : thin(inst, cfg.quick ? 32 : 80)) {
    if (!digits_ok(w, fv.front() * w.beta_req)) {
      ++skipped;
      continue;
    }
    ++used;
    for (int ri = 0; ri < 2; ++ri) {
      const Reading rd = ri ? Reading::sparse_r : Reading::sparse_u;
      double fmin = INFINITY;
      for (double f : fd) {
        const HopAscent a = inv_search(w, rd, f * w.beta_req, g, true);
        if (a.f - std::log10(w.r) <= 0) fmin = std::min(fmin, f);
      }
      for (double f : fv) {
        const double beta = f * w.beta_req;
        if (!digits_ok(w, beta)) continue;
        HopTally& T = tally[ri];
        T.statistic = "log10(max_{|x - xi_mu| <= r} |T(x) - xi_mu| / r) (search)";
        const double v = T.add(ws_inst(w, rd, beta, inv_search(w, rd, beta, g, cfg.quick)), inv_stat(w, rd), "f=" + fmt(f));
        if (v <= 0) fmin = std::min(fmin, f);
        if (w.Xi.cols <= 3 && std::isfinite(v) && (!worst_small.count(ri) || v > worst_small[ri].first)) worst_small[ri] = {v, {w, beta}};
      }
      smallest_f[ri].push_back(fmin);
      inv_below[ri] += fmin < 1;
    }
  }
  const std::string sizes = std::to_string(used) + " of " + std::to_string(inst.size()) + " (set, mu, k, r) instances (evenly thinned; " +
                            std::to_string(skipped) + " skipped: P-ADAPT digits > 400): " +
                            (cfg.quick ? "G1, G2 at (2,2), (2,5), (3,10), (8,20); G4 d = 2, 3" : "G1, G2 d in {2,3,8,16,32} x M in {2,3,5,10,20,100}; G4 d = 2, 3");
  Parts parts;
  for (int ri = 0; ri < 2; ++ri) {
    ClaimResult r = tally[ri].result(cfg, sizes, seed);
    if (worst_small.count(ri)) {
      bool ok = false;
      const auto& [v, wb] = worst_small[ri];
      const std::string c = certify(wb.first, ri ? Reading::sparse_r : Reading::sparse_u, wb.second, cfg.quick ? 20000 : 200000, &ok);
      r.evidence.extra.emplace_back("certification of the worst d <= 3 instance",
                                    ws_desc(wb.first, ri ? Reading::sparse_r : Reading::sparse_u, wb.second) + ": search log10 ratio " + fmt(v, 5) + "; " + c);
    }
    const HopQuantiles q = hop_quantiles(smallest_f[ri]);
    r.evidence.extra.emplace_back("smallest f = beta/beta_req with observed invariance",
                                  "median " + fmt(q.median) + ", max " + fmt(q.max) + " (inf: none of the tried f); invariant below beta_req (f < 1) on " +
                                      std::to_string(inv_below[ri]) + " of " + std::to_string(q.n) + " instances (data shared with THM-4.2-NECESSARY)");
    parts.emplace_back(std::string("reading ") + (ri ? "R" : "U"), r);
  }
  ClaimResult out = combine(parts, CombineStyle{PartSummary::instances_witness, true});
  out.evidence.extra.emplace_back("headline", "conjunction over the readings U and R");
  return out;
}

// ---- A003-THM-4.2-NECESSARY ----------------------------------------------------------------------------------------------

ClaimResult a003_thm_4_2_necessary(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A003-THM-4.2-NECESSARY");
  Rng g(seed);
  std::vector<std::pair<Ws, double>> fam;  // (instance, f < 1)
  for (const Ws& w : free_r_instances(tag_seed(cfg.seed, "A003-THM-4.2-FREE-R"), cfg.quick))
    if (w.Xi.cols <= 3 && w.Xi.rows <= 10 && digits_ok(w, w.beta_req))
      for (double f : cfg.quick ? std::vector<double>{0.5, 0.75} : std::vector<double>{0.1, 0.25, 0.5, 0.75}) fam.emplace_back(w, f);
  std::map<std::string, std::pair<int, int>> counts;
  const auto t42 = thm42_instances(tag_seed(cfg.seed, "A003-THM-4.2"), cfg.quick, counts);
  if (t42.count("R_M"))
    for (const Ws& w : t42.at("R_M"))
      if (w.Xi.cols <= 3 && w.Xi.rows <= 10 && digits_ok(w, w.beta_req))
        for (double f : {0.5, 0.75}) fam.emplace_back(w, f);
  fam = thin(fam, cfg.quick ? 48 : 600);
  // proper sparse masks (2 <= k < M) first, then k = M (the dense map), then k = 1 (T_R is the constant xi_mu there:
  // every ball is trivially invariant)
  std::stable_sort(fam.begin(), fam.end(), [](const std::pair<Ws, double>& a, const std::pair<Ws, double>& b) {
    auto rank = [](const Ws& w) { return w.mask.size() >= 2 && w.mask.size() < w.Xi.rows ? 0 : w.mask.size() >= 2 ? 1 : 2; };
    return rank(a.first) < rank(b.first);
  });
  Parts parts;
  const int budget = cfg.quick ? 20000 : 200000, max_cert = cfg.quick ? 3 : 12;
  for (int ri = 0; ri < 2; ++ri) {
    const Reading rd = ri ? Reading::sparse_r : Reading::sparse_u;
    int searched = 0, cands = 0, tried = 0;
    double best = INFINITY;
    std::string witness, last_fail;
    for (const auto& [w, f] : fam) {
      if (!witness.empty()) break;  // the reading is decided
      ++searched;
      const double beta = f * w.beta_req;
      const HopAscent a = inv_search(w, rd, beta, g, true);
      const double lr = a.f - std::log10(w.r);
      best = std::min(best, lr);
      if (lr > std::log10(0.95)) continue;
      ++cands;
      if (!witness.empty() || tried >= max_cert) continue;
      ++tried;
      bool ok = false;
      const std::string c = certify(w, rd, beta, budget, &ok);
      const double theta = std::log(static_cast<double>(w.Xi.rows + w.k - 2) * w.m / w.r) / beta + 2 * w.m * w.r;
      if (ok)
        witness = ws_desc(w, rd, beta) + ": invariant (" + c + ") while (4.3) fails: Delta_mu = " + fmt(w.Delta, 8) + " < " + fmt(theta, 8) +
                  " = ln((M+k-2) m / r)/beta + 2 m r";
      else
        last_fail = ws_desc(w, rd, beta) + ": " + c;
    }
    ClaimResult r;
    r.evidence.statistic = "certified counter-instances (invariant ball without (4.3))";
    r.evidence.value = witness.empty() ? 0 : 1;
    r.evidence.threshold = 0;
    r.evidence.instances = searched;
    r.evidence.digits = 100;
    r.evidence.seed = seed;
    r.evidence.sizes = "FREE-R data with f in {" + std::string(cfg.quick ? "0.5, 0.75" : "0.1, 0.25, 0.5, 0.75") +
                       "} and THM-4.2 (R over the mask) at f in {0.5, 0.75}; d <= 3, M <= 10";
    const std::string tail = std::to_string(cands) + " of " + std::to_string(searched) + " searched (instance, beta < beta_req) pairs (of " +
                             std::to_string(fam.size()) + "; the search stops at the first certified counter-instance) look invariant (search ratio <= 0.95; least " +
                             fmt(std::pow(10.0, best), 4) + "), " + std::to_string(tried) + " sent to branch-and-bound";
    if (!witness.empty()) {
      r.verdict = Verdict::violated;
      r.evidence.witness = witness;
      r.reason = "a ball is certified invariant although (4.3) fails: " + tail;
    } else if (cands) {
      r.verdict = Verdict::inconclusive;
      r.evidence.witness = last_fail;
      r.reason = "candidates without a certificate (budget): " + tail;
    } else {
      r.verdict = Verdict::holds;
      r.reason = "no invariant ball found with (4.3) failing: " + tail;
    }
    parts.emplace_back(std::string("reading ") + (ri ? "R" : "U"), r);
  }
  ClaimResult out = combine(parts, CombineStyle{PartSummary::reason, true});
  for (const auto& [name, r] : parts)
    if (!r.evidence.witness.empty()) out.evidence.extra.emplace_back("witness, " + name, r.evidence.witness);
  out.evidence.extra.emplace_back("headline", "conjunction over the readings U and R; the radius is r = rho Delta/(2m) (flag B(xi_mu, r)) or R over the mask");
  return out;
}

}  // namespace

void register_a003_well_separation(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A003-THM-4.2", "Well-separation condition (4.3) implies T_Sparse(S_mu) in S_mu (R over the mask), readings U and R", inequality, false, a003_thm_4_2);
  add("A003-THM-4.2-FREE-R", "(4.3) with any radius r implies the ball B(xi_mu, r) is invariant, readings U and R", inequality, false, a003_thm_4_2_free_r);
  add("A003-THM-4.2-NECESSARY", "Invariance of S_mu under T_Sparse requires (4.3) (certified counter-instance search)", inequality, false, a003_thm_4_2_necessary);
}

}  // namespace recall
