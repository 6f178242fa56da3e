// Paper A001 (test-time regression), §4 Vignette 4, Eq. (52) where X_t^T W_t X_t is singular (t <= D_k, or
// degenerate keys): the declared readings of the p = 1 attention, the pseudo-inverse (minimum-norm) reading
// and the slope-only ridge with its NW (mu -> inf) and (52) (mu -> 0) limits [interp].
// Instances, precision rule (P-scaled + P-exp, spec A001 C7) and the literal form of (52) are those of
// local_linear_attention.cpp (proofs_numeric/support/local_regression_claims.hpp); every verdict is computed
// from reference/include/recall/reference/local_regression.hpp instantiated with recall::mp_t, a failing
// instance re-evaluated at doubled digits before it is recorded. Witnesses are 1-based.
// Spec IDs: A001-LOCAL-LINEAR-SINGULAR-PINV, A001-LOCAL-LINEAR-SINGULAR-RIDGE.
#include "recall/proofs/claims.hpp"
#include "recall/proofs/ledger.hpp"
#include "recall/reference/local_regression.hpp"
#include "recall/reference/nadaraya_watson.hpp"
#include "recall/reference/svd.hpp"
#include "claim_support.hpp"
#include "local_regression_claims.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::local_regression;

// the queries checked by the expensive (high-digit) parts: t <= 8, every 4th t, and t = T
bool sampled_t(std::size_t t, std::size_t T) { return t <= 8 || t % 4 == 0 || t == T; }

// ---------------------------------------------------------------------------------------------
// A001-LOCAL-LINEAR-SINGULAR-PINV
// ---------------------------------------------------------------------------------------------

ClaimResult a001_local_linear_singular_pinv(const CheckConfig& cfg) {
  const char* tag = "A001-LOCAL-LINEAR-SINGULAR-PINV";
  Checker eq("(a) max over invertible t of ||PINV reading - (52) literal (normal equations)|| / max(1,norms)", cfg.digits);
  Checker mp("(b) max over all t of the Moore-Penrose residuals of A^+ = pinv(W^1/2 X) and ||Theta^T - A^+ W^1/2 V|| (relative)", cfg.digits);
  Checker t1("(c) t = 1: |M^[0] - v_1 / (1 + ||d_1||^2)| / max(1,norms)", cfg.digits);
  std::vector<double> gaps;
  std::string rank_note;
  for (const LInst& in : instances(cfg, tag, 10, 48)) {
    const Prec pr = precision_of(in);
    const std::string desc = in.desc + " " + pr.str(cfg.digits);
    eq.add(desc, [&](unsigned dg, std::string& where) {
      MpDigitsScope sc(dg + pr.extra);
      const MM K = to_mp(in.K), V = to_mp(in.V), Q = to_mp(in.Q);
      Worst wst;
      for (std::size_t t = in.dk + 1; t <= in.T; ++t) {
        const mp_t* q = Q.row(t - 1);
        const MV w = weights_mp(in, K, t, q);
        const auto f = ref::local_linear_direct_weights(K, V, t, q, w, ref::pinv_policy());
        wst.upd(matrel(f.theta, eq52_literal(K, V, t, q, w)), "t=" + std::to_string(t));
      }
      where = wst.where;
      return wst.r;
    });
    mp.add(desc, [&](unsigned dg, std::string& where) {
      MpDigitsScope sc(dg + pr.extra);
      const MM K = to_mp(in.K), V = to_mp(in.V), Q = to_mp(in.Q);
      Worst wst;
      for (std::size_t t = 1; t <= in.T; ++t) {
        const mp_t* q = Q.row(t - 1);
        const MV w = weights_mp(in, K, t, q);
        const auto f = ref::local_linear_direct_weights(K, V, t, q, w, ref::pinv_policy());
        MM A(t, 1 + in.dk), B(t, in.dv);
        for (std::size_t i = 0; i < t; ++i) {
          const mp_t h = sqrt(w[i]);
          A(i, 0) = h;
          for (std::size_t j = 0; j < in.dk; ++j) A(i, 1 + j) = h * (K(i, j) - q[j]);
          for (std::size_t c = 0; c < in.dv; ++c) B(i, c) = h * V(i, c);
        }
        const MM P = ref::pinv(A);
        const MM AP = ref::matmul(A, P), PA = ref::matmul(P, A);
        const std::string at = " t=" + std::to_string(t);
        wst.upd(matrel(ref::matmul(AP, A), A), "A A+ A = A" + at);
        wst.upd(matrel(ref::matmul(PA, P), P), "A+ A A+ = A+" + at);
        wst.upd(matrel(AP, transpose(AP)), "(A A+)^T = A A+" + at);
        wst.upd(matrel(PA, transpose(PA)), "(A+ A)^T = A+ A" + at);
        wst.upd(matrel(transpose(f.theta), ref::matmul(P, B)), "Theta^T = A+ W^1/2 V" + at);
      }
      where = wst.where;
      return wst.r;
    });
    t1.add(desc, [&](unsigned dg, std::string& where) {
      MpDigitsScope sc(dg + pr.extra);
      const MM K = to_mp(in.K), V = to_mp(in.V), Q = to_mp(in.Q);
      const mp_t* q = Q.row(0);
      const auto f = ref::local_linear_direct(K, V, 1, q, in.sim, ref::pinv_policy());
      mp_t dd(0);
      for (std::size_t j = 0; j < in.dk; ++j) dd += (K(0, j) - q[j]) * (K(0, j) - q[j]);
      MV e(in.dv);
      for (std::size_t c = 0; c < in.dv; ++c) e[c] = V(0, c) / (1 + dd);
      where = "t=1";
      return vecrel(f.output, e);
    });
    // gap to the mu -> 0+ limit of the slope-only ridge (= moment form with C_kk^+) at singular t (descriptive)
    {
      MpDigitsScope sc(cfg.digits + pr.extra);
      const MM K = to_mp(in.K), V = to_mp(in.V), Q = to_mp(in.Q);
      for (std::size_t t = 1; t <= std::min(in.T, in.dk); ++t) {
        const mp_t* q = Q.row(t - 1);
        const MV w = weights_mp(in, K, t, q);
        const auto fp = ref::local_linear_direct_weights(K, V, t, q, w, ref::pinv_policy());
        const auto fl = ref::local_linear_moment_weights(K, V, t, q, w, ref::pinv_policy());
        gaps.push_back(vecrel(fp.output, fl.output));
        if (rank_note.size() < 300)
          rank_note += (rank_note.empty() ? "" : ", ") + std::string("D_k=") + std::to_string(in.dk) + " t=" + std::to_string(t) + ": rank " +
                       std::to_string(fp.rank);
      }
    }
  }
  Parts parts;
  parts.push_back({"(a) = (52) when invertible", eq.result(cfg, "G1/G4 x {dot_exp, gauss}, t >= D_k + 1")});
  parts.push_back({"(b) minimum-norm LS (Penrose)", mp.result(cfg, "same instances, every t incl. t <= D_k")});
  parts.push_back({"(c) t = 1 closed form", t1.result(cfg, "same instances, t = 1")});
  ClaimResult r = combine(parts);
  std::sort(gaps.begin(), gaps.end());
  if (!gaps.empty())
    r.evidence.extra.emplace_back("singular t <= D_k: relative gap of PINV to the ridge mu -> 0+ limit (min ||M^[1]||, intercept free), descriptive",
                                  "median " + fmt(gaps[gaps.size() / 2]) + ", max " + fmt(gaps.back()) + " over " + std::to_string(gaps.size()) +
                                      " singular queries (no equality asserted)");
  r.evidence.extra.emplace_back("rank used at singular t (sample)", rank_note);
  r.evidence.extra.emplace_back("rank threshold", "sigma_i > 10^-(digits-10) sigma_max of W^{1/2} X (default_rank_tol)");
  return r;
}

// ---------------------------------------------------------------------------------------------
// A001-LOCAL-LINEAR-SINGULAR-RIDGE
// ---------------------------------------------------------------------------------------------

ClaimResult a001_local_linear_singular_ridge(const CheckConfig& cfg) {
  const char* tag = "A001-LOCAL-LINEAR-SINGULAR-RIDGE";
  Checker inf("(a) mu_rel = 10^(d+5): ||ridge - NW (50)|| / max(1,norms) (mu -> inf limit; t <= 8, every 4th t, t = T)", cfg.digits);
  Checker zero("(b) invertible t, mu_rel = 10^-(d+e+10), e = the instance's extra P-scaled digits: ||ridge - (52)|| / max(1,norms) (mu -> 0 limit; t <= 8, every 4th t, t = T)", cfg.digits);
  Checker lim("(c) singular t <= D_k, mu_rel -> 0: ||ridge - min-||M^[1]|| LS solution (C_kk^+)|| / max(1,norms)", cfg.digits);
  Checker shift("(d) unpenalised intercept: ||m(V + 1 c^T) - m(V) - c|| / max(1,norms), mu_rel = 1e-4 at every t, 1e-8 and 1e-2 at t = min(T, D_k) and t = T", cfg.digits);
  Checker tr0("(e) every d_i = 0 (all keys at q): ridge output = NW mean", cfg.digits);
  std::vector<double> rate;
  for (const LInst& in : instances(cfg, tag, 10, 48)) {
    const Prec pr = precision_of(in);
    const std::string desc = in.desc + " " + pr.str(cfg.digits);
    inf.add(desc, [&](unsigned dg, std::string& where) {
      const unsigned big = dg + 5;
      MpDigitsScope sc(dg + pr.extra + big);
      const MM K = to_mp(in.K), V = to_mp(in.V), Q = to_mp(in.Q);
      Worst wst;
      for (std::size_t t = 1; t <= in.T; ++t) {
        const mp_t* q = Q.row(t - 1);
        const MV w = weights_mp(in, K, t, q);
        if (!sampled_t(t, in.T)) continue;
        const auto f = ref::local_linear_direct_weights(K, V, t, q, w, ref::ridge_policy(std::pow(10.0, static_cast<double>(big))));
        wst.upd(vecrel(f.output, ref::nw_minimizer(w, V)), "t=" + std::to_string(t));
      }
      where = wst.where;
      return wst.r;
    });
    zero.add(desc, [&](unsigned dg, std::string& where) {
      const unsigned small = dg + pr.extra + 10;
      MpDigitsScope sc(dg + 2 * pr.extra + small);
      const MM K = to_mp(in.K), V = to_mp(in.V), Q = to_mp(in.Q);
      Worst wst;
      for (std::size_t t = in.dk + 1; t <= in.T; ++t) {
        if (!sampled_t(t, in.T)) continue;
        const mp_t* q = Q.row(t - 1);
        const MV w = weights_mp(in, K, t, q);
        const auto f = ref::local_linear_direct_weights(K, V, t, q, w, ref::ridge_policy(std::pow(10.0, -static_cast<double>(small))));
        const auto e = ref::local_linear_direct_weights(K, V, t, q, w, ref::throw_policy());
        wst.upd(vecrel(f.output, e.output), "t=" + std::to_string(t));
      }
      where = wst.where;
      return wst.r;
    });
    if (in.dk >= 2)
      lim.add(desc, [&](unsigned dg, std::string& where) {
        const unsigned small = dg + pr.extra + 10;
        MpDigitsScope sc(dg + 2 * pr.extra + small);
        const MM K = to_mp(in.K), V = to_mp(in.V), Q = to_mp(in.Q);
        Worst wst;
        for (std::size_t t = 1; t <= std::min(in.T, in.dk); ++t) {
          const mp_t* q = Q.row(t - 1);
          const MV w = weights_mp(in, K, t, q);
          const auto f = ref::local_linear_direct_weights(K, V, t, q, w, ref::ridge_policy(std::pow(10.0, -static_cast<double>(small))));
          const auto l = ref::local_linear_moment_weights(K, V, t, q, w, ref::pinv_policy());
          wst.upd(vecrel(f.output, l.output), "t=" + std::to_string(t));
        }
        where = wst.where;
        return wst.r;
      });
    shift.add(desc, [&](unsigned dg, std::string& where) {
      MpDigitsScope sc(dg + pr.extra);
      const MM K = to_mp(in.K), V = to_mp(in.V), Q = to_mp(in.Q);
      Gauss g(mix(in.seed, 5));
      MV c(in.dv);
      for (mp_t& x : c) x = mp_t(g.normal());
      MM V2 = V;
      for (std::size_t i = 0; i < V.rows; ++i)
        for (std::size_t j = 0; j < in.dv; ++j) V2(i, j) += c[j];
      Worst wst;
      for (std::size_t t = 1; t <= in.T; ++t)
        for (double mu : {1e-8, 1e-4, 1e-2}) {
          if (mu != 1e-4 && t != in.T && t != std::min(in.T, in.dk)) continue;  // 1e-8, 1e-2: a singular and the last t
          const mp_t* q = Q.row(t - 1);
          const auto a = ref::local_linear_direct(K, V, t, q, in.sim, ref::ridge_policy(mu));
          const auto b = ref::local_linear_direct(K, V2, t, q, in.sim, ref::ridge_policy(mu));
          MV e(in.dv);
          for (std::size_t j = 0; j < in.dv; ++j) e[j] = a.output[j] + c[j];
          wst.upd(vecrel(b.output, e), "mu_rel=" + fmt(mu) + " t=" + std::to_string(t));
        }
      where = wst.where;
      return wst.r;
    });
    tr0.add(desc, [&](unsigned dg, std::string& where) {
      MpDigitsScope sc(dg);
      const MM V = to_mp(in.V), Q = to_mp(in.Q);
      MM K(in.T, in.dk);
      Worst wst;
      for (std::size_t t = 1; t <= in.T; ++t) {
        for (std::size_t i = 0; i < t; ++i)
          for (std::size_t j = 0; j < in.dk; ++j) K(i, j) = Q(t - 1, j);
        const auto f = ref::local_linear_direct(K, V, t, Q.row(t - 1), in.sim, ref::ridge_policy(1e-4));
        const auto fs = ref::local_linear_stream(K, V, t, Q.row(t - 1), in.sim, ref::ridge_policy(1e-4));
        MV w(t, mp_t(1));
        wst.upd(vecrel(f.output, ref::nw_minimizer(w, V)), "direct t=" + std::to_string(t));
        wst.upd(vecrel(fs.output, ref::nw_minimizer(w, V)), "stream t=" + std::to_string(t));
      }
      where = wst.where;
      return wst.r;
    });
    // O(1/mu) rate toward NW (descriptive): mu_rel * gap at mu_rel = 1e6 and 1e12
    if (in.T > in.dk + 1) {
      MpDigitsScope sc(cfg.digits + pr.extra + 20);
      const MM K = to_mp(in.K), V = to_mp(in.V), Q = to_mp(in.Q);
      const std::size_t t = in.T;
      const MV w = weights_mp(in, K, t, Q.row(t - 1));
      const MV nwv = ref::nw_minimizer(w, V);
      const double g6 = vecrel(ref::local_linear_direct_weights(K, V, t, Q.row(t - 1), w, ref::ridge_policy(1e6)).output, nwv);
      const double g12 = vecrel(ref::local_linear_direct_weights(K, V, t, Q.row(t - 1), w, ref::ridge_policy(1e12)).output, nwv);
      if (g12 > 0) rate.push_back(g6 / g12);
    }
  }
  Parts parts;
  parts.push_back({"(a) mu -> inf gives NW", inf.result(cfg, "G1/G4 x {dot_exp, gauss}, every t")});
  parts.push_back({"(b) mu -> 0 gives (52)", zero.result(cfg, "same instances, invertible t >= D_k + 1")});
  parts.push_back({"(c) mu -> 0+ limit when singular", lim.result(cfg, "instances with D_k >= 2, 1 <= t <= D_k")});
  parts.push_back({"(d) intercept unpenalised", shift.result(cfg, "same instances, every t")});
  parts.push_back({"(e) trace 0: NW", tr0.result(cfg, "same sizes, all keys equal to the query")});
  ClaimResult r = combine(parts);
  std::sort(rate.begin(), rate.end());
  if (!rate.empty())
    r.evidence.extra.emplace_back("gap(mu_rel=1e6) / gap(mu_rel=1e12) (1e6 = an O(1/mu) approach to NW)",
                                  "min " + fmt(rate.front()) + ", median " + fmt(rate[rate.size() / 2]) + ", max " + fmt(rate.back()));
  r.evidence.extra.emplace_back("declared mu", "mu = mu_rel tr(sum_i w_i d_i d_i^T) / D_k with max-subtracted weights (max w = 1); mu_rel in {1e-8, 1e-4, 1e-2} for (d)");
  return r;
}

}  // namespace

void register_a001_local_linear_singular(Ledger& l) {
  using namespace check_class;
  auto add = claim_adder(l);
  add("A001-LOCAL-LINEAR-SINGULAR-PINV", "p = 1 with the pseudo-inverse (minimum-norm) reading [interp]", identity, true, a001_local_linear_singular_pinv);
  add("A001-LOCAL-LINEAR-SINGULAR-RIDGE", "p = 1 with a slope-only ridge: NW and (52) limits [interp]", identity, true, a001_local_linear_singular_ridge);
}

}  // namespace recall
