// Paper A001 (test-time regression, Wang, Shi & Fox), §4 Vignette 1, Eq. (12) and the statements after it:
// linear attention as least squares with the key Gram replaced by the identity, the key Gram vs the empirical
// key covariance, and when linear attention is the optimal linear memory (the printed condition "t <= D_k and
// orthonormal keys", and the column form K_t^T K_t = I implied by the approximation).
// Spec IDs: A001-LINATTN-AS-REGRESSION, A001-LINATTN-IGNORES-COVARIANCE, A001-LINATTN-OPTIMALITY-AS-PRINTED,
// A001-LINATTN-OPTIMALITY-COLUMNS.
//
// Every verdict is computed from the references of reference/include/recall/reference/least_squares.hpp
// instantiated with recall::mp_t. P-50 items run at cfg.digits; P-scaled items (spec C7) raise the working
// digits of each instance to d + 2 ceil(log10 cond(K)) + 4 (cond of the worst prefix, from the MP SVD at d
// digits; a Gram K^T K is formed) and keep the P-50 threshold 10^-(d-10); a failure is re-evaluated at
// doubled digits (2d + the same increment) before it is recorded. Rank decisions use the declared threshold
// sigma_i > 10^-(d'-10) sigma_max (ref::default_rank_tol) at the working digits d'. Instances are drawn by
// Box-Muller from std::mt19937_64 seeded by mix(tag_seed(cfg.seed, ID), n) (generators G1-G4 of
// support/least_squares_claims.hpp); witnesses give sizes, generator and seed, with 1-based indices. fp64
// parts (gap surfaces, Monte Carlo, the Nelder-Mead searches of support/adversarial_search.hpp) use Eigen.
#include "recall/proofs/ledger.hpp"
#include "recall/reference/least_squares.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/regression_rules.hpp"
#include "recall/reference/svd.hpp"
#include "adversarial_search.hpp"
#include "claim_support.hpp"
#include "least_squares_claims.hpp"
#include "linear_attention_claims.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::lsq;
using linattn::combine_parts;
using linattn::hex;
using linattn::median;
using linattn::orthonormal_columns;

// ---------------------------------------------------------------------------------------------
// A001-LINATTN-AS-REGRESSION
// ---------------------------------------------------------------------------------------------

// fp64 gap statistics at one instance: state gap ||R_t - M_t|| / ||M_t||, output gap at q_t
struct Gap {
  double state = NAN, out = NAN;
};
Gap gap_mp(const LsInst& in, unsigned digits) {
  MpDigitsScope sc(digits);
  const MM K = in.keys(), V = to_mp(in.V), Q = to_mp(in.Q);
  const std::size_t t = in.T;
  const MM M = ref::ls_state_pinv(K, V, t, rank_tol(std::max(t, in.dk))), R = ref::cross_moment(K, V, t);
  Gap g;
  const mp_t nm = ref::frob(M);
  if (nm > 0) g.state = to_d(mp_t(ref::frob_diff(R, M) / nm));
  const MV yl = ref::matvec(M, Q.row(t - 1)), ya = ref::matvec(R, Q.row(t - 1));
  mp_t d(0), ny(0);
  for (std::size_t c = 0; c < yl.size(); ++c) {
    ref::muladd(d, mp_t(ya[c] - yl[c]), mp_t(ya[c] - yl[c]));
    ref::muladd(ny, yl[c], yl[c]);
  }
  if (ny > 0) g.out = to_d(mp_t(sqrt(d) / sqrt(ny)));
  return g;
}

ClaimResult a001_linattn_as_regression(const CheckConfig& cfg) {
  const std::string tag = "A001-LINATTN-AS-REGRESSION";
  // (a1) algebra: Eq. (12) with S_t -> I is (2)
  Checker alg("(a) max relative residual over t: R_t z with I z = q_t (Eq. 12 with S_t -> I) vs the linear-attention output (2)", cfg.digits);
  {
    const auto dims = linattn::schedule(cfg, tag, 2, 6);
    int n = 0;
    for (const linattn::Dims& dm : dims) {
      auto x = linattn::g1_instance(cfg, tag, n++, dm);
      const DM Q = x.Q, K = x.K, V = x.V;
      alg.add("G1 " + linattn::dims_desc(dm) + " " + x.ks.desc + " seed " + hex(x.seed), [Q, K, V](unsigned d, std::string& where) {
        MpDigitsScope sc(d);
        const MM q = to_mp(Q), k = to_mp(K), v = to_mp(V);
        const auto la = ref::linear_attention(q, k, v);
        const MM I = ref::eye<mp_t>(k.cols);
        Worst w;
        for (std::size_t t = 1; t <= q.rows; ++t)
          w.upd(vecrel(ref::ls_output_with_gram(ref::cross_moment(k, v, t), I, q.row(t - 1)), row_vec(la.O, t - 1)), "t=" + std::to_string(t));
        where = w.where;
        return w.r;
      });
    }
  }
  ClaimResult r_alg = alg.result(cfg, "G1 schedule " + linattn::sizes_desc(cfg) + " with the key variants of C8; P-50");
  // (a2) the printed left side of Eq. (12) is the LS read-out: R_t S_t^{-1} q_t (Gaussian elimination) vs the pinv reference, t >= D_k
  Checker lhs("(a) max relative residual over t >= D_k: V_t^T K_t (K_t^T K_t)^{-1} q_t (Eq. 12 left side) vs the pseudo-inverse LS read-out", cfg.digits);
  int n = 0;
  for (std::size_t dk : {1, 2, 3, 4})
    for (KG kg : {KG::g1, KG::g4, KG::g2_loguniform}) {
      const LsInst in = make_inst(iseed(cfg, tag, ++n), 3 * dk + 1, dk, 2, kg, kg == KG::g4 ? 0.9 : 0.0);
      const double c = keys_worst_prefix_cond(in, cfg.digits);
      const unsigned inc = pscaled(0, c);
      lhs.add(in.desc + " (digits d+" + std::to_string(inc) + ")", [&in, inc](unsigned d, std::string& where) {
        MpDigitsScope sc(d + inc);
        const MM K = in.keys(), V = to_mp(in.V), Q = to_mp(in.Q);
        Worst w;
        for (std::size_t t = in.dk; t <= in.T; ++t) {
          const MV y12 = ref::ls_output_with_gram(ref::cross_moment(K, V, t), ref::key_gram(K, t), Q.row(t - 1));
          w.upd(vecrel(y12, ref::matvec(ref::ls_state_pinv(K, V, t), Q.row(t - 1))), "t=" + std::to_string(t));
        }
        where = w.where;
        return w.r;
      });
    }
  ClaimResult r_lhs = lhs.result(cfg, "G1, G4 rho=0.9, G2 log-uniform; D_k in 1..4, T = 3 D_k + 1; P-scaled");
  // (a3) exact content: keys with K^T K = I (t >= D_k) or K K^T = I (t <= D_k): linear attention = LS
  Checker exact("(a) max relative residual: y^LA_t = R_t q_t vs the LS read-out M_t q_t and R_t vs M_t, with K_t^T K_t = I (t >= D_k) or K_t K_t^T = I (t <= D_k)",
                cfg.digits);
  for (std::size_t dk : {1, 2, 3, 4, 8})
    for (std::size_t t : {std::max<std::size_t>(1, dk / 2), dk, dk + 1, 3 * dk}) {
      const u64 s = iseed(cfg, tag + "/exact", ++n);
      exact.add("D_k=" + std::to_string(dk) + " t=" + std::to_string(t) + (t >= dk ? " orthonormal columns" : " orthonormal rows") + " seed " + hex(s),
                [=](unsigned d, std::string& where) {
                  MpDigitsScope sc(d);
                  Gauss g(s);
                  const MM K = t >= dk ? orthonormal_columns<mp_t>(gauss_matrix(t, dk, g)) : ref::transpose(orthonormal_columns<mp_t>(gauss_matrix(dk, t, g)));
                  const MM V = to_mp(gauss_matrix(t, 3, g));
                  const MV q = to_mp(std::vector<double>{g.normal(), g.normal(), g.normal(), g.normal(), g.normal(), g.normal(), g.normal(), g.normal()});
                  const MM M = ref::ls_state_pinv(K, V, t), R = ref::cross_moment(K, V, t);
                  Worst w;
                  w.upd(rel_res(R, M), "state");
                  w.upd(vecrel(ref::matvec(R, q.data()), ref::matvec(M, q.data())), "output");
                  where = w.where;
                  return w.r;
                });
    }
  ClaimResult r_exact = exact.result(cfg, "D_k in {1,2,3,4,8}, t in {D_k/2, D_k, D_k+1, 3 D_k}, MP Gram-Schmidt; P-50");
  // (b) gap surface (R-APPROX; MP, P-scaled)
  std::vector<std::pair<std::string, std::string>> gap_lines;
  std::vector<std::string> zero_gap;  // "<config> D_k=<d>: t in {...}"
  ClaimFigure fig;
  fig.id = "gap_vs_t";
  fig.title = "Linear attention vs least squares: state gap";
  fig.caption = "median ||R_t - M_t||_F / ||M_t||_F over seeds (M_t the min-norm LS memory) against t / D_k, D_k = 4; zero gaps (<= 1e-30: G2 sigma = 1) are not drawn";
  fig.x_label = "t / D_k";
  fig.y_label = "relative state gap";
  fig.y_scale = "log";
  {
    struct Cfg {
      KG kg;
      double p;
      std::string name;
    };
    const std::vector<std::size_t> gdks = cfg.quick ? std::vector<std::size_t>{4} : std::vector<std::size_t>{2, 4, 8};
    const int seeds = cfg.quick ? 3 : 10;
    for (std::size_t dk : gdks) {
      const double inv = std::log10(1.0 / std::sqrt(static_cast<double>(dk)));
      const std::vector<Cfg> cs = {{KG::g1, 0.0, "G1 scale 1"},           {KG::g1, inv, "G1 scale D_k^-1/2"},  {KG::g1, 1.0, "G1 scale 10"},
                                   {KG::g4, 0.5, "G4 rho=0.5"},           {KG::g4, 0.9, "G4 rho=0.9"},         {KG::g4, 0.99, "G4 rho=0.99"},
                                   {KG::g2_loguniform, 0, "G2 log-uniform"}, {KG::g2_equal, 0.5, "G2 equal 0.5"}, {KG::g2_ones, 0, "G2 sigma = 1"},
                                   {KG::g2_clustered, 0, "G2 clustered"}};
      std::vector<std::size_t> ts = {1, dk / 2 > 0 ? dk / 2 : 1, dk, dk + 1, 2 * dk, 3 * dk, 4 * dk};
      ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
      for (const Cfg& c : cs) {
        std::string line, zero_ts;
        FigureSeries ser;
        ser.name = c.name + " (D_k=" + std::to_string(dk) + ")";
        ser.marker = "o";
        for (std::size_t t : ts) {
          std::vector<double> gs, go;
          for (int s = 0; s < seeds; ++s) {
            const LsInst in = make_inst(iseed(cfg, tag + "/gap", static_cast<u64>(dk * 100000 + t * 1000 + s) ^ fnv1a(c.name)), t, dk, 2, c.kg, c.p);
            const double cond = keys_cond(in, cfg.digits);
            const Gap gp = gap_mp(in, pscaled(cfg.digits, cond));
            if (!std::isnan(gp.state)) gs.push_back(gp.state);
            if (!std::isnan(gp.out)) go.push_back(gp.out);
          }
          const double ms = median(gs), mo = median(go);
          line += (line.empty() ? "" : "; ") + std::string("t=") + std::to_string(t) + ": " + fmt(ms, 3) + " / " + fmt(mo, 3);
          if (ms <= 1e-30) zero_ts += (zero_ts.empty() ? "" : ",") + std::to_string(t);
          if (dk == 4 && ms > 1e-30) {
            ser.x.push_back(static_cast<double>(t) / dk);
            ser.y.push_back(ms);
          }
        }
        if (!zero_ts.empty()) zero_gap.push_back(c.name + " D_k=" + std::to_string(dk) + ": t in {" + zero_ts + "}");
        gap_lines.emplace_back("(b) gap " + c.name + " D_k=" + std::to_string(dk), "median state gap / output gap over " + std::to_string(seeds) + " seeds: " + line);
        if (!ser.x.empty()) fig.series.push_back(std::move(ser));
      }
    }
  }
  // adversarial search minimising the state gap over (key scale 10^a, rho) at fixed draws (fp64)
  std::string adv_line;
  for (std::size_t dk : {1, 4})
    for (std::size_t t : {dk, 2 * dk}) {
      Gauss g(iseed(cfg, tag + "/adv", dk * 100 + t));
      const DM Z = gauss_matrix(t, dk, g), V = gauss_matrix(t, 2, g);
      std::vector<double> w(t);
      for (double& x : w) x = g.normal();
      auto gapf = [&](const std::vector<double>& x) {
        const double sc = std::pow(10.0, std::clamp(x[0], -4.0, 4.0)), rho = 1.0 / (1.0 + std::exp(-x[1]));
        Eigen::MatrixXd K(t, dk);
        for (std::size_t i = 0; i < t; ++i)
          for (std::size_t j = 0; j < dk; ++j) K(i, j) = sc * (std::sqrt(1 - rho) * Z(i, j) + std::sqrt(rho) * w[i]);
        const Eigen::MatrixXd Ve = to_eigen(V), M = ls_fp64(K, Ve), R = Ve.transpose() * K;
        return (R - M).norm() / M.norm();
      };
      double best = INFINITY;
      std::vector<double> bx;
      for (int rs = 0; rs < 3; ++rs) {
        const NmResult nm = nelder_mead(gapf, {-1.0 + g.uniform(), -2.0 + 2.0 * g.uniform()}, 0.5, 400);
        if (nm.f < best) best = nm.f, bx = nm.x;
      }
      adv_line += (adv_line.empty() ? "" : "; ") + std::string("D_k=") + std::to_string(dk) + " t=" + std::to_string(t) + ": min gap " + fmt(best, 3) +
                  " at scale 10^" + fmt(std::clamp(bx[0], -4.0, 4.0), 4) + ", rho " + fmt(1.0 / (1.0 + std::exp(-bx[1])), 3);
    }
  // (c) recall quality (R-MC, fp64): v = A k + 0.1 eps, G4 keys scaled by D_k^-1/2
  std::vector<std::pair<std::string, std::string>> mc_lines;
  {
    const int dk = 8, dv = 4, seeds = cfg.quick ? 40 : 200, nq = 16;
    for (double rho : {0.0, 0.9})
      for (int t : {4, 8, 16, 32}) {
        std::vector<double> dl, dh, la_h, ls_h;
        for (int s = 0; s < seeds; ++s) {
          Gauss g(iseed(cfg, tag + "/mc", static_cast<u64>(t * 1000 + s + (rho > 0 ? 500000 : 0))));
          auto keyrow = [&](Eigen::MatrixXd& K, int i) {
            const double w = g.normal();
            for (int j = 0; j < dk; ++j) K(i, j) = (std::sqrt(1 - rho) * g.normal() + std::sqrt(rho) * w) / std::sqrt(static_cast<double>(dk));
          };
          Eigen::MatrixXd A(dv, dk), K(t, dk), V(t, dv), Qh(nq, dk);
          for (int i = 0; i < dv; ++i)
            for (int j = 0; j < dk; ++j) A(i, j) = g.normal();
          for (int i = 0; i < t; ++i) keyrow(K, i);
          for (int i = 0; i < nq; ++i) keyrow(Qh, i);
          V = K * A.transpose();
          for (int i = 0; i < t; ++i)
            for (int c = 0; c < dv; ++c) V(i, c) += 0.1 * g.normal();
          const Eigen::MatrixXd Mls = ls_fp64(K, V), Mla = V.transpose() * K;
          const double Lls = 0.5 * (V.transpose() - Mls * K.transpose()).squaredNorm(), Lla = 0.5 * (V.transpose() - Mla * K.transpose()).squaredNorm();
          const Eigen::MatrixXd Y = Qh * A.transpose();
          const double hls = (Qh * Mls.transpose() - Y).squaredNorm() / Y.squaredNorm(), hla = (Qh * Mla.transpose() - Y).squaredNorm() / Y.squaredNorm();
          dl.push_back(Lla - Lls);
          dh.push_back(hla - hls);
          la_h.push_back(hla);
          ls_h.push_back(hls);
        }
        Gauss gb(iseed(cfg, tag + "/boot", static_cast<u64>(t + (rho > 0 ? 1000 : 0))));
        auto ci = [&](const std::vector<double>& x) {
          const auto m = bootstrap_sorted_means(x, gb, 2000);
          double mean = 0;
          for (double v : x) mean += v;
          return Ci{mean / static_cast<double>(x.size()), m[static_cast<std::size_t>(0.025 * 1999)], m[static_cast<std::size_t>(0.975 * 1999)]};
        };
        const Ci cl = ci(dl), ch = ci(dh);
        const std::string side = ch.lo > 0 ? "LA worse" : ch.hi < 0 ? "LA better" : "undecided";
        mc_lines.emplace_back("(c) recall rho=" + fmt(rho) + " t=" + std::to_string(t),
                              "training loss LA - LS " + fmt_ci(cl) + "; held-out relative error LA " + fmt(median(la_h), 3) + " vs LS " + fmt(median(ls_h), 3) +
                                  " (medians), paired difference: mean " + fmt_ci(ch) + " (" + side + "), median " + fmt(median(dh), 3));
      }
  }
  ClaimResult r = combine_parts({{"(a) S_t -> I gives (2)", r_alg}, {"(a) Eq. (12) left side = LS", r_lhs}, {"(a) exact content K^T K = I or K K^T = I", r_exact}});
  for (auto& l : gap_lines) r.evidence.extra.push_back(l);
  r.evidence.extra.emplace_back("(b) zero-gap configurations (median state gap <= 1e-30)", zero_gap.empty() ? std::string("none") : [&] {
    std::string s;
    for (const auto& z : zero_gap) s += (s.empty() ? "" : "; ") + z;
    return s;
  }());
  r.evidence.extra.emplace_back("(b) adversarial gap minimisation (Nelder-Mead over key scale and rho, fp64, 3 restarts)", adv_line);
  for (auto& l : mc_lines) r.evidence.extra.push_back(l);
  r.evidence.figures.push_back(std::move(fig));
  if (r.verdict == Verdict::holds)
    r.reason = "exact content holds: S_t -> I turns the LS read-out into (2), the printed left side of (12) is the LS read-out, and linear attention "
               "equals LS when K^T K = I or K K^T = I; the approximation gap is reported as a surface (extra, figure): zero only for the G2 sigma = 1 "
               "configurations, O(1) otherwise";
  return r;
}

// ---------------------------------------------------------------------------------------------
// A001-LINATTN-IGNORES-COVARIANCE
// ---------------------------------------------------------------------------------------------

// empirical covariance (1/t) sum (k_i - kbar)(k_i - kbar)^T and mean of the first t rows
std::pair<MM, MV> cov_mean(const MM& K, std::size_t t) {
  MV m(K.cols, mp_t(0));
  for (std::size_t i = 0; i < t; ++i)
    for (std::size_t j = 0; j < K.cols; ++j) m[j] += K(i, j);
  for (mp_t& x : m) x /= mp_t(static_cast<double>(t));
  MM C(K.cols, K.cols);
  MV d(K.cols);
  for (std::size_t i = 0; i < t; ++i) {
    for (std::size_t j = 0; j < K.cols; ++j) d[j] = K(i, j) - m[j];
    ref::add_outer(C, d.data(), d.data());
  }
  for (mp_t& x : C.a) x /= mp_t(static_cast<double>(t));
  return {C, m};
}

ClaimResult a001_linattn_ignores_covariance(const CheckConfig& cfg) {
  const std::string tag = "A001-LINATTN-IGNORES-COVARIANCE";
  Checker a("(a) max relative residual over t: S_t vs t (C_t + kbar kbar^T)", cfg.digits), b("(b) R1 max relative residual over t: S_t vs t C_t for exactly centred keys", cfg.digits);
  int n = 0;
  const std::vector<std::size_t> dks = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 4, 8} : std::vector<std::size_t>{1, 2, 3, 4, 8, 16};
  for (std::size_t dk : dks)
    for (KG kg : {KG::g1, KG::g4})
      for (std::size_t T : {std::size_t(1), std::size_t(5), 3 * dk + 2}) {
        const LsInst in = make_inst(iseed(cfg, tag, ++n), T, dk, 1, kg, kg == KG::g4 ? 0.9 : 0.0);
        Gauss g(in.seed ^ 0x77ull);
        const DM shift = gauss_matrix(1, dk, g, 2.0);  // a nonzero mean for (a)
        a.add(in.desc + " + mean shift N(0,4)", [&in, shift](unsigned d, std::string& where) {
          MpDigitsScope sc(d);
          MM K = in.keys();
          for (std::size_t i = 0; i < K.rows; ++i)
            for (std::size_t j = 0; j < K.cols; ++j) K(i, j) += mp_t(shift(0, j));
          Worst w;
          for (std::size_t t = 1; t <= K.rows; ++t) {
            auto [C, m] = cov_mean(K, t);
            ref::add_outer(C, m.data(), m.data());
            for (mp_t& x : C.a) x *= mp_t(static_cast<double>(t));
            w.upd(rel_res(ref::key_gram(K, t), C), "t=" + std::to_string(t));
          }
          where = w.where;
          return w.r;
        });
        b.add(in.desc + " centred at every t", [&in](unsigned d, std::string& where) {
          MpDigitsScope sc(d);
          const MM K = in.keys();
          Worst w;
          for (std::size_t t = 1; t <= K.rows; ++t) {
            MM Kc = head_rows(K, t);
            const MV m = cov_mean(K, t).second;
            for (std::size_t i = 0; i < t; ++i)
              for (std::size_t j = 0; j < K.cols; ++j) Kc(i, j) -= m[j];
            MM C = cov_mean(Kc, t).first;
            for (mp_t& x : C.a) x *= mp_t(static_cast<double>(t));
            w.upd(rel_res(ref::key_gram(Kc, t), C), "t=" + std::to_string(t));
          }
          where = w.where;
          return w.r;
        });
      }
  const std::string szs = "G1 and G4 rho=0.9 keys, D_k in {" + std::string(cfg.quick ? "1,2,3,4,8" : "1,2,3,4,8,16") + "}, T in {1, 5, 3 D_k + 2}, every t; P-50";
  ClaimResult ra = a.result(cfg, szs), rb = b.result(cfg, szs);
  // (c) R2: population mean zero, k ~ N(0, Sigma_rho): ||S_t/t - C_t|| / ||C_t|| vs t (fp64 Monte Carlo), fitted decay exponent
  std::vector<std::pair<std::string, std::string>> lines;
  ClaimFigure fig;
  fig.id = "r2_decay";
  fig.title = "Key Gram / t vs empirical covariance, population-mean-zero keys";
  fig.caption = "mean over seeds of ||S_t/t - C_t||_F / ||C_t||_F = ||kbar kbar^T||_F / ||C_t||_F, D_k = 4, equicorrelated Gaussian keys";
  fig.x_label = "t";
  fig.y_label = "relative deviation";
  fig.x_scale = fig.y_scale = "log";
  {
    const int dk = 4, seeds = cfg.quick ? 50 : 200;
    std::vector<int> ts;
    for (int t = 4; t <= (cfg.quick ? 1024 : 8192); t *= 2) ts.push_back(t);
    for (double rho : {0.0, 0.5, 0.9, 0.99}) {
      std::vector<double> xs, ms;
      std::string line;
      for (int t : ts) {
        std::vector<double> dev;
        for (int s = 0; s < seeds; ++s) {
          Gauss g(iseed(cfg, tag + "/r2", static_cast<u64>(t) * 1000 + s + static_cast<u64>(rho * 100) * 100000000ull));
          Eigen::MatrixXd K(t, dk);
          for (int i = 0; i < t; ++i) {
            const double w = g.normal();
            for (int j = 0; j < dk; ++j) K(i, j) = std::sqrt(1 - rho) * g.normal() + std::sqrt(rho) * w;
          }
          const Eigen::RowVectorXd m = K.colwise().mean();
          const Eigen::MatrixXd Kc = K.rowwise() - m;
          const Eigen::MatrixXd C = Kc.transpose() * Kc / t, S = K.transpose() * K / t;
          dev.push_back((S - C).norm() / C.norm());
        }
        double mean = 0;
        for (double v : dev) mean += v;
        mean /= static_cast<double>(dev.size());
        xs.push_back(t);
        ms.push_back(mean);
        if (t == 4 || t == 64 || t == ts.back()) line += (line.empty() ? "" : ", ") + std::string("t=") + std::to_string(t) + ": " + fmt(mean, 3);
      }
      const Fit f = loglog_fit(xs, ms);
      lines.emplace_back("(c) R2 rho=" + fmt(rho), "mean relative deviation " + line + "; fitted exponent " + f.str(4) + " (" + std::to_string(seeds) + " seeds)");
      FigureSeries ser;
      ser.name = "rho=" + fmt(rho);
      ser.x = xs;
      ser.y = ms;
      ser.marker = "o";
      fig.series.push_back(std::move(ser));
    }
  }
  ClaimResult r = combine_parts({{"(a) S_t = t (C_t + kbar kbar^T)", ra}, {"(b) R1 exactly centred keys: S_t = t C_t", rb}});
  for (auto& l : lines) r.evidence.extra.push_back(l);
  r.evidence.figures.push_back(std::move(fig));
  if (r.verdict == Verdict::holds)
    r.reason = "reading R1 (sample mean exactly zero): S_t = t C_t on every instance, from the identity S_t = t (C_t + kbar kbar^T) which holds on every "
               "instance; reading R2 (population mean zero) is not an identity at finite t: the relative deviation ||kbar kbar^T|| / ||C_t|| decays "
               "like t^-1 (fitted exponents in extra)";
  return r;
}

// ---------------------------------------------------------------------------------------------
// A001-LINATTN-OPTIMALITY-AS-PRINTED, A001-LINATTN-OPTIMALITY-COLUMNS
// ---------------------------------------------------------------------------------------------

// operator identity K^T = K^+ (V-free form of R_t = M_t for every V): relative residual
double op_identity_res(const MM& K) {
  const MM P = ref::pinv(K, rank_tol(std::max(K.rows, K.cols)));
  return rel_res(ref::transpose(K), P);
}
// violation of the printed condition "t <= D_k and k_i^T k_j = delta_ij": 1 when t > D_k, else max |K K^T - I|
double cond_violation(const MM& K) {
  if (K.rows > K.cols) return 1.0;
  const MM G = ref::matmul(K, ref::transpose(K));
  mp_t m(0);
  for (std::size_t i = 0; i < G.rows; ++i)
    for (std::size_t j = 0; j < G.cols; ++j) {
      const mp_t d = abs(mp_t(G(i, j) - (i == j ? mp_t(1) : mp_t(0))));
      if (d > m) m = d;
    }
  return to_d(m);
}
// the nearest partial isometry of K (singular values >= 1e-3 sigma_max set to 1, the others to 0), at the current digits
MM partial_isometry(const MM& K) {
  const auto d = ref::svd(K);
  MM P(K.rows, K.cols);
  for (std::size_t k = 0; k < d.sigma.size(); ++k) {
    if (!(d.sigma[k] > mp_t(1e-3) * d.sigma[0])) continue;
    for (std::size_t i = 0; i < K.rows; ++i)
      for (std::size_t j = 0; j < K.cols; ++j) P(i, j) += d.U(i, k) * d.V(j, k);
  }
  return P;
}
std::string mat_str(const MM& K) {
  std::string s = "[";
  for (std::size_t i = 0; i < K.rows; ++i) {
    s += i ? "; " : "";
    for (std::size_t j = 0; j < K.cols; ++j) s += (j ? ", " : "") + fmt(to_d(K(i, j)), 6);
  }
  return s + "]";
}

struct Hit {
  std::size_t t = 0, dk = 0, rank = 0;
  bool degenerate = false;  // rank < min(t, D_k) (zero keys or dependent keys)
  std::string desc, keys;
  double res = 0, res2 = 0, viol = 0;
};
bool hit_less(const Hit& a, const Hit& b) {
  if (a.degenerate != b.degenerate) return !a.degenerate;
  if (a.t * a.dk != b.t * b.dk) return a.t * a.dk < b.t * b.dk;
  return a.t + a.dk < b.t + b.dk;
}

ClaimResult a001_linattn_optimality_as_printed(const CheckConfig& cfg) {
  const std::string tag = "A001-LINATTN-OPTIMALITY-AS-PRINTED";
  // sufficiency: orthonormal keys, t <= D_k
  Checker suf("sufficiency: max relative residual of K_t^T = K_t^+ (operator identity) and R_t = M_t^LS (random V) for keys with k_i^T k_j = delta_ij, t <= D_k",
              cfg.digits);
  const std::vector<std::size_t> dks = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 4, 6, 8} : std::vector<std::size_t>{1, 2, 3, 4, 5, 6, 8, 12, 16};
  int n = 0;
  for (std::size_t dk : dks)
    for (std::size_t t : {std::size_t(1), (dk + 1) / 2, dk}) {
      const u64 s = iseed(cfg, tag, ++n);
      suf.add("D_k=" + std::to_string(dk) + " t=" + std::to_string(t) + " orthonormal rows (MP Gram-Schmidt) seed " + hex(s), [=](unsigned d, std::string& where) {
        MpDigitsScope sc(d);
        Gauss g(s);
        const MM K = ref::transpose(orthonormal_columns<mp_t>(gauss_matrix(dk, t, g)));
        const MM V = to_mp(gauss_matrix(t, 3, g));
        Worst w;
        w.upd(op_identity_res(K), "K^T = K^+");
        w.upd(rel_res(ref::cross_moment(K, V, t), ref::ls_state_pinv(K, V, t)), "R_t = M_t^LS");
        where = w.where;
        return w.r;
      });
    }
  ClaimResult r_suf = suf.result(cfg, "D_k in {" + std::string(cfg.quick ? "1,2,3,4,6,8" : "1,...,16") + "}, t in {1, ceil(D_k/2), D_k}; P-50");
  // necessity: key matrices violating the condition for which the operator identity holds
  const double thr = identity_threshold(cfg.digits), thr2 = identity_threshold(2 * cfg.digits);
  std::vector<Hit> hits;
  int searched = 0, unconfirmed = 0;
  auto consider = [&](const std::string& desc, const std::function<MM()>& make) {
    ++searched;
    Hit h;
    {
      MpDigitsScope sc(cfg.digits);
      const MM K = make();
      h.res = op_identity_res(K);
      h.viol = cond_violation(K);
      if (!(h.res <= thr && h.viol > 1e-3)) return;
      h.t = K.rows;
      h.dk = K.cols;
      h.rank = mp_cond(K).rank;
      h.degenerate = h.rank < std::min(h.t, h.dk);
      h.keys = mat_str(K);
    }
    {
      MpDigitsScope sc(2 * cfg.digits);
      const MM K = make();
      h.res2 = op_identity_res(K);
      if (!(h.res2 <= thr2 && cond_violation(K) > 1e-3)) {
        ++unconfirmed;
        return;
      }
    }
    h.desc = desc;
    hits.push_back(h);
  };
  // (1) generator sweep: every G2 profile with t < D_k, t = D_k, t > D_k; G3 and G4
  const std::vector<std::size_t> sdks = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 4} : std::vector<std::size_t>{1, 2, 3, 4, 5, 8, 16};
  for (std::size_t dk : sdks)
    for (std::size_t t : {dk > 1 ? dk - 1 : std::size_t(0), dk, dk + 1}) {
      if (t == 0) continue;
      const std::vector<std::pair<KG, double>> gens = {{KG::g2_loguniform, 0}, {KG::g2_equal, 2.0}, {KG::g2_equal, 0.5}, {KG::g2_ones, 0},
                                                       {KG::g2_clustered, 0},  {KG::g2_zeros, 1.0}, {KG::g2_zeros, 0},  {KG::g3_dup, 0},
                                                       {KG::g3_near, 8},       {KG::g4, 0.9},       {KG::g1, 0}};
      for (const auto& [kg, p] : gens) {
        const LsInst in = make_inst(iseed(cfg, tag + "/sweep", ++n), t, dk, 1, kg, p);
        consider("generator sweep: " + in.desc, [&in] { return in.keys(); });
      }
    }
  // (2) random-restart Nelder-Mead minimisation of ||K^T - K^+||_F at fixed ||K||_F^2 = s in {1..min(t, D_k)} (fp64),
  //     minima below 1e-6 projected to the nearest partial isometry in MP and verified
  std::vector<std::pair<std::size_t, std::size_t>> shapes;
  for (std::size_t t = 1; t <= (cfg.quick ? 3u : 5u); ++t)
    for (std::size_t dk = 1; dk <= (cfg.quick ? 3u : 5u); ++dk) shapes.emplace_back(t, dk);
  if (!cfg.quick) shapes.insert(shapes.end(), {{6, 3}, {8, 4}, {4, 8}, {3, 6}});
  int nm_runs = 0, nm_hits = 0;
  double nm_best_nonzero = INFINITY;
  for (const auto& [t, dk] : shapes)
    for (std::size_t s = 1; s <= std::min(t, dk); ++s)
      for (int rs = 0; rs < (cfg.quick ? 2 : 4); ++rs) {
        const u64 sd = iseed(cfg, tag + "/nm", static_cast<u64>(t * 10000 + dk * 100 + s * 10 + rs));
        Gauss g(sd);
        auto build = [t, dk, s](const std::vector<double>& x) {
          double nx = 0;
          for (double v : x) nx += v * v;
          Eigen::MatrixXd K(t, dk);
          for (std::size_t i = 0; i < t; ++i)
            for (std::size_t j = 0; j < dk; ++j) K(i, j) = std::sqrt(static_cast<double>(s)) * x[i * dk + j] / std::sqrt(nx);
          return K;
        };
        auto f = [&](const std::vector<double>& x) {
          const Eigen::MatrixXd K = build(x);
          Eigen::JacobiSVD<Eigen::MatrixXd> svd(K, Eigen::ComputeThinU | Eigen::ComputeThinV);
          svd.setThreshold(1e-8);
          const Eigen::MatrixXd P = svd.solve(Eigen::MatrixXd::Identity(t, t));
          return (K.transpose() - P).norm();
        };
        std::vector<double> x0(t * dk);
        for (double& v : x0) v = g.normal();
        const NmResult nm = nelder_mead(f, x0, 0.5, cfg.quick ? 1500 : 2500);
        ++nm_runs;
        const Eigen::MatrixXd Kb = build(nm.x);
        DM Kd(t, dk);
        for (std::size_t i = 0; i < t; ++i)
          for (std::size_t j = 0; j < dk; ++j) Kd(i, j) = Kb(i, j);
        if (nm.f < 1e-6) {
          const std::size_t before = hits.size();
          consider("Nelder-Mead t=" + std::to_string(t) + " D_k=" + std::to_string(dk) + " ||K||_F^2=" + std::to_string(s) + " restart " + std::to_string(rs + 1) +
                       " (fp64 objective " + fmt(nm.f, 3) + ", projected to the nearest partial isometry in MP) seed " + hex(sd),
                   [Kd] { return partial_isometry(to_mp(Kd)); });
          if (hits.size() > before) ++nm_hits;
        } else {
          nm_best_nonzero = std::min(nm_best_nonzero, nm.f);
        }
      }
  ClaimResult r_nec;
  {
    Evidence& e = r_nec.evidence;
    e.statistic = "counterexamples to 'only when': K_t violating (t <= D_k and k_i^T k_j = delta_ij) with ||K_t^T - K_t^+|| rel <= 10^-(d-10) at d and 2d digits";
    e.threshold = thr;
    e.digits = cfg.digits;
    e.seed = cfg.seed;
    e.instances = searched;
    e.sizes = "generator sweep (G2 log-uniform / equal 2 / equal 0.5 / ones / clustered / zeros (nonzero sigma 1 or U(0.5,2)), G3 duplicate / near 1e-8, G4 "
              "rho 0.9, G1; D_k in {" + std::string(cfg.quick ? "1,2,3,4" : "1,2,3,4,5,8,16") + "}, t in {D_k-1, D_k, D_k+1}) and " + std::to_string(nm_runs) +
              " Nelder-Mead runs (t, D_k <= " + (cfg.quick ? "3" : "5, plus (6,3), (8,4), (4,8), (3,6)") + ", ||K||_F^2 in 1..min(t, D_k))";
    std::sort(hits.begin(), hits.end(), hit_less);
    int full = 0, degen = 0, tbig = 0;
    for (const Hit& h : hits) {
      (h.degenerate ? degen : full)++;
      if (h.t > h.dk) ++tbig;
    }
    if (!hits.empty()) {
      const Hit& h = hits.front();
      r_nec.verdict = Verdict::violated;
      e.value = h.res;
      e.witness = h.desc + ": t=" + std::to_string(h.t) + ", D_k=" + std::to_string(h.dk) + ", rank " + std::to_string(h.rank) + ", K = " + h.keys +
                  "; ||K^T - K^+|| rel = " + fmt(h.res) + " (" + fmt(h.res2) + " at " + std::to_string(2 * cfg.digits) + " digits), condition violated by " +
                  fmt(h.viol, 4) + (h.t > h.dk ? " (t > D_k)" : " (max |K K^T - I|)");
      r_nec.reason = "linear attention equals the LS memory for every V without the printed condition: " + std::to_string(hits.size()) +
                     " confirmed counterexamples (" + std::to_string(full) + " of full rank, e.g. orthonormal columns with t > D_k; " + std::to_string(degen) +
                     " rank-deficient partial isometries such as zero keys; " + std::to_string(tbig) + " of all with t > D_k); the exact condition is that every nonzero singular "
                     "value of K_t equals 1";
      std::string more;
      for (std::size_t i = 1; i < hits.size() && i < 6; ++i)
        more += (more.empty() ? "" : " | ") + hits[i].desc + ": K = " + hits[i].keys;
      e.extra.emplace_back("necessity: further counterexamples (smallest first)", more.empty() ? std::string("none") : more);
      for (const Hit& h : hits)
        if (h.degenerate) {
          e.extra.emplace_back("necessity: smallest rank-deficient counterexample", h.desc + ": K = " + h.keys);
          break;
        }
    } else {
      r_nec.verdict = unconfirmed ? Verdict::inconclusive : Verdict::holds;
      r_nec.reason = unconfirmed ? "candidate counterexamples were not confirmed at doubled digits" : "no key matrix violating the condition satisfied the identity";
      e.witness = "none";
    }
    e.extra.emplace_back("necessity: Nelder-Mead", std::to_string(nm_runs) + " runs, " + std::to_string(nm_hits) + " confirmed hits; smallest objective among runs that "
                                                   "did not reach 1e-6: " + fmt(nm_best_nonzero, 3) + "; unconfirmed candidates " + std::to_string(unconfirmed));
  }
  ClaimResult r = combine_parts({{"sufficiency", r_suf}, {"necessity ('only when')", r_nec}});
  r.evidence.extra.emplace_back("verdicts reported separately", std::string("sufficiency: ") + verdict_name(r_suf.verdict) + " (" + r_suf.reason + "); necessity: " +
                                                                    verdict_name(r_nec.verdict) + " (" + r_nec.reason + ")");
  return r;
}

ClaimResult a001_linattn_optimality_columns(const CheckConfig& cfg) {
  const std::string tag = "A001-LINATTN-OPTIMALITY-COLUMNS";
  Checker ck("max relative residual: K_t^T = K_t^+ (operator identity), R_t = M_t^LS and R_t q = M_t^LS q for K_t^T K_t = I (t >= D_k), random V", cfg.digits);
  const std::vector<std::size_t> dks = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 4, 6, 8} : std::vector<std::size_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  int n = 0;
  for (std::size_t dk : dks)
    for (std::size_t t : {dk, dk + 1, 2 * dk, std::size_t(40)}) {
      const u64 s = iseed(cfg, tag, ++n);
      ck.add("D_k=" + std::to_string(dk) + " t=" + std::to_string(t) + " orthonormal columns (MP Gram-Schmidt) seed " + hex(s), [=](unsigned d, std::string& where) {
        MpDigitsScope sc(d);
        Gauss g(s);
        const MM K = orthonormal_columns<mp_t>(gauss_matrix(t, dk, g));
        const MM V = to_mp(gauss_matrix(t, 3, g));
        const MV q = to_mp(gauss_matrix(1, dk, g).a);
        const MM M = ref::ls_state_pinv(K, V, t), R = ref::cross_moment(K, V, t);
        Worst w;
        w.upd(op_identity_res(K), "K^T = K^+");
        w.upd(rel_res(R, M), "R_t = M_t^LS");
        w.upd(vecrel(ref::matvec(R, q.data()), ref::matvec(M, q.data())), "outputs");
        where = w.where;
        return w.r;
      });
    }
  return ck.result(cfg, "D_k in {" + std::string(cfg.quick ? "1,2,3,4,6,8" : "1,...,16") + "}, t in {D_k, D_k+1, 2 D_k, 40}; P-50");
}

}  // namespace

void register_a001_linattn_as_regression(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A001-LINATTN-AS-REGRESSION", "Linear attention as LS with the key Gram replaced by the identity", descriptive, false, a001_linattn_as_regression);
  add("A001-LINATTN-IGNORES-COVARIANCE", "Key Gram vs empirical key covariance", identity, false, a001_linattn_ignores_covariance);
  add("A001-LINATTN-OPTIMALITY-AS-PRINTED", "When linear attention is the optimal linear memory (as printed)", identity, false,
      a001_linattn_optimality_as_printed);
  add("A001-LINATTN-OPTIMALITY-COLUMNS", "Form implied by the approximation used in Eq. (12)", identity, false, a001_linattn_optimality_columns);
}

}  // namespace recall
