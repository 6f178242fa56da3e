// Paper A001 (test-time regression, Wang, Shi & Fox), §4 Vignette 1 "Efficient computation" (RLS by
// Woodbury, its ridge start and the ridgeless limit of Eq. (11)) and Vignette 2 (geometrically weighted RLS).
// Spec IDs: A001-RLS, A001-RLS-RIDGE-INIT, A001-RIDGE-LIMIT, A001-WRLS.
// P-scaled items raise the working digits with the conditioning and keep the P-50 threshold.
#include "recall/reference/delta_rule.hpp"
#include "recall/reference/regression_rules.hpp"
#include "claim_support.hpp"
#include "online_learner_claims.hpp"

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
using namespace claim_support::learners;

// =============================================================================================
// RLS family (P-scaled: residuals evaluated at d + 20 digits, or more with mu, P-50 threshold)
// =============================================================================================
// key generators: 0 G1 Gaussian; 1 G2 prescribed spectrum (log-uniform singular values in [1e-3, 1e1]); 2 G4 equicorrelated rho = 0.9
const char* kKeyGen[3] = {"G1 Gaussian", "G2 sigma log-uniform [1e-3,1e1]", "G4 equicorrelated rho=0.9"};
Matrix<double> rls_keys(std::size_t T, std::size_t dk, int gen, Gauss& g) {
  Matrix<double> K = gauss_matrix(T, dk, g);
  if (gen == 1) {
    // K = U diag(sigma) W^T with U (T x dk) and W (dk x dk) orthonormal (QR of Gaussians)
    Eigen::MatrixXd A(T, dk), B(dk, dk);
    for (std::size_t i = 0; i < T * dk; ++i) A.data()[i] = g.normal();
    for (std::size_t i = 0; i < dk * dk; ++i) B.data()[i] = g.normal();
    const Eigen::MatrixXd U = Eigen::HouseholderQR<Eigen::MatrixXd>(A).householderQ() * Eigen::MatrixXd::Identity(T, dk);
    const Eigen::MatrixXd W = Eigen::HouseholderQR<Eigen::MatrixXd>(B).householderQ();
    Eigen::VectorXd s(dk);
    for (std::size_t i = 0; i < dk; ++i) s(i) = std::pow(10.0, -3.0 + 4.0 * g.uniform());
    const Eigen::MatrixXd Kk = U * s.asDiagonal() * W.transpose();
    for (std::size_t i = 0; i < T; ++i)
      for (std::size_t j = 0; j < dk; ++j) K(i, j) = Kk(i, j);
  } else if (gen == 2) {
    for (std::size_t i = 0; i < T; ++i) {
      const double w = g.normal();
      for (std::size_t j = 0; j < dk; ++j) K(i, j) = std::sqrt(0.1) * K(i, j) + std::sqrt(0.9) * w;
    }
  }
  return K;
}
// gain form (a) vs batch at every t >= t0 (I1 start at t0 = D_k), and (b) gain vs matrix-step form.
struct RlsRes {
  double vs_batch = 0, gain_vs_matrix = 0;
};
RlsRes rls_item(std::size_t dk, std::size_t dv, std::size_t T, int gen, const std::vector<double>* gates, double mu, u64 sd, unsigned d) {
  // P-scaled digits: + 20, + 2 log10(1/mu) for the ridge start, + sum_t log10(1/gamma_t) (the spread of the
  // weights prod gamma bounds the growth of cond(S^G) and of P under the divisions by gamma)
  double spread = 0;
  if (gates)
    for (double gmm : *gates) spread += -std::log10(gmm);
  MpDigitsScope sc(d + 20 + (mu > 0 ? 2 * static_cast<unsigned>(std::max(0.0, -std::log10(mu))) : 0) + static_cast<unsigned>(std::ceil(spread)));
  Gauss g(sd);
  const Mp K = ref::cast<mp_t>(rls_keys(T, dk, gen, g)), V = ref::cast<mp_t>(gauss_matrix(T, dv, g)), Q = ref::cast<mp_t>(gauss_matrix(T, dk, g));
  Vp gam, lg;
  if (gates) {
    gam = ref::cast<mp_t>(*gates);
    lg.resize(T);
    for (std::size_t t = 0; t < T; ++t) lg[t] = ref::log_gate(gam[t]);
  }
  std::size_t t0;
  Mp P0, M0;
  if (mu > 0) {  // (I2) P0 = I/mu, M0 = 0
    t0 = 0;
    P0 = ref::eye<mp_t>(dk);
    for (auto& x : P0.a) x /= mp_t(mu);
    M0 = Mp(dv, dk);
  } else {  // (I1) exact batch start at t0 = D_k
    t0 = dk;
    Mp Sg(dk, dk), Rg(dv, dk);
    for (std::size_t i = 0; i < t0; ++i) {
      const mp_t w = gates ? ref::exp_log(ref::segment_log_sum(lg, i, t0 - 1)) : mp_t(1);
      ref::add_outer(Sg, w, K.row(i), K.row(i));
      ref::add_outer(Rg, w, V.row(i), K.row(i));
    }
    P0 = ref::solve(Sg, ref::eye<mp_t>(dk));
    M0 = ref::matmul(Rg, P0);
  }
  const Mp Qs = tail_rows(Q, t0), Ks = tail_rows(K, t0), Vs = tail_rows(V, t0);
  Vp gs;
  if (gates) gs.assign(gam.begin() + static_cast<long>(t0), gam.end());
  const auto a = ref::rls(Qs, Ks, Vs, P0, M0, gates ? &gs : nullptr);
  const auto b = ref::rls_matrix_step(Qs, Ks, Vs, P0, M0, gates ? &gs : nullptr);
  RlsRes r;
  r.gain_vs_matrix = std::max({rel_res(a.O, b.O), rel_res(a.M, b.M), rel_res(a.P, b.P)});
  Mp Ob(T - t0, dv);
  Mp Mlast;
  for (std::size_t t = t0 + 1; t <= T; ++t) {
    Mlast = ref::ridge_state(K, V, t, mp_t(mu > 0 ? mu : 0), gates ? &lg : nullptr);
    ref::matvec_into(Ob.row(t - t0 - 1), Mlast, Q.row(t - 1));
  }
  r.vs_batch = std::max(rel_res(a.O, Ob), rel_res(a.M, Mlast));
  return r;
}
ClaimResult a001_rls(const CheckConfig& cfg) {
  IdentityCheck a("(a) max relative residual RLS(I1) vs batch Eq. (11), outputs at every t >= t0 and final state", cfg.digits),
      b("(b) max relative residual gain form vs matrix-step form (outputs, M, P)", cfg.digits);
  int n = 0;
  for (const Size3& s : sizes(cfg))
    for (int gen = 0; gen < 3; ++gen) {
      const u64 sd = sub_seed(cfg.seed, 200, ++n);
      const std::size_t T = s.T + s.dk;
      const std::string desc = sz(s.dk, s.dv, T) + " " + kKeyGen[gen] + " seed " + std::to_string(sd);
      a.add(desc, [=](unsigned d) { return rls_item(s.dk, s.dv, T, gen, nullptr, 0, sd, d).vs_batch; });
      b.add(desc, [=](unsigned d) { return rls_item(s.dk, s.dv, T, gen, nullptr, 0, sd, d).gain_vs_matrix; });
    }
  std::vector<Part> parts = {{"(a) RLS = batch LS", a.result(cfg, "G1/G2/G4 keys, (D_k,D_v) of the G1 grid, T = t + D_k, digits d + 20 (P-scaled)")},
                             {"(b) gain = matrix-step form", b.result(cfg, "")}};
  ClaimResult r = combine(cfg, "max relative residual RLS (Woodbury) vs batch LS / matrix-step form", parts,
                          "the Woodbury recursion from the exact batch start reproduces the batch LS solution at every t, and the gain and matrix-step forms agree");
  // (d) G8 long streams in fp64: symmetry loss, lambda_min(P), drift vs batch
  const std::size_t T = cfg.quick ? 2000 : 100000, dk = 4, dv = 2;
  std::string d8;
  for (int kind = 0; kind < 2; ++kind) {
    Gauss g(sub_seed(cfg.seed, 201, kind));
    Matrix<double> K(T, dk), V = gauss_matrix(T, dv, g), Q = gauss_matrix(T, dk, g);
    for (std::size_t t = 0; t < T; ++t) {
      const double th = 1e-3 * static_cast<double>(t);
      for (std::size_t j = 0; j < dk; ++j) K(t, j) = kind == 0 ? (j < 2 ? g.normal() : 1e-4 * g.normal())                    // nearly low-rank
                                                                : std::cos(th + j) + 0.01 * g.normal();  // slowly rotating
    }
    Matrix<double> S(dk, dk), R(dv, dk);
    for (std::size_t i = 0; i < dk; ++i) {
      ref::add_outer(S, K.row(i), K.row(i));
      ref::add_outer(R, V.row(i), K.row(i));
    }
    const Matrix<double> P0 = ref::solve(S, ref::eye<double>(dk)), M0 = ref::matmul(R, P0);
    const auto rr = ref::rls(tail_rows(Q, dk), tail_rows(K, dk), tail_rows(V, dk), P0, M0);
    Eigen::MatrixXd P(dk, dk);
    for (std::size_t i = 0; i < dk * dk; ++i) P.data()[i] = rr.P.a[i];
    const double asym = (P - P.transpose()).norm() / P.norm();
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(0.5 * (P + P.transpose()), Eigen::EigenvaluesOnly);
    // batch in long double
    Matrix<long double> Sl(dk, dk), Rl(dv, dk);
    const Matrix<long double> Kl = ref::cast<long double>(K), Vl = ref::cast<long double>(V);
    for (std::size_t i = 0; i < T; ++i) {
      ref::add_outer(Sl, Kl.row(i), Kl.row(i));
      ref::add_outer(Rl, Vl.row(i), Kl.row(i));
    }
    const Matrix<long double> Mb = ref::right_solve(Rl, Sl);
    double drift = 0, nb = 0;
    for (std::size_t i = 0; i < Mb.a.size(); ++i) {
      drift += std::pow(static_cast<double>(Mb.a[i]) - rr.M.a[i], 2);
      nb += std::pow(static_cast<double>(Mb.a[i]), 2);
    }
    d8 += (d8.empty() ? "" : "; ") + std::string(kind == 0 ? "nearly low-rank keys" : "slowly rotating keys") + ": ||P - P^T||/||P|| = " + fmt(asym) +
          ", lambda_min(P) = " + fmt(es.eigenvalues()(0)) + ", relative drift vs batch = " + fmt(std::sqrt(drift / nb));
  }
  r.evidence.extra.emplace_back("(d) G8 fp64 RLS over T = " + std::to_string(T) + " (D_k=4): symmetry, PSD, drift", d8);
  return r;
}
ClaimResult a001_rls_ridge_init(const CheckConfig& cfg) {
  IdentityCheck c("max relative residual RLS(P0 = I/mu, M0 = 0) vs R_t (S_t + mu I)^{-1}, outputs at every t and final state", cfg.digits);
  int n = 0;
  for (const Size3& s : sizes(cfg))
    for (double mu : {1e-30, 1e-6, 1.0, 1e3})
      for (int gen = 0; gen < 3; ++gen) {
        const u64 sd = sub_seed(cfg.seed, 210, ++n);
        const std::string desc = sz(s.dk, s.dv, s.T) + " mu=" + fmt(mu) + " " + kKeyGen[gen] + " seed " + std::to_string(sd);
        c.add(desc, [=](unsigned d) { return rls_item(s.dk, s.dv, s.T, gen, nullptr, mu, sd, d).vs_batch; });
      }
  return c.result(cfg, "G1 grid sizes x mu in {1e-30,1e-6,1,1e3} x G1/G2/G4 keys (t from 1, incl. t < D_k); digits d + 20 + 2 log10(1/mu)");
}
ClaimResult a001_wrls(const CheckConfig& cfg) {
  IdentityCheck i1("(I1) max relative residual weighted RLS vs batch WLS (15) at every t >= t0", cfg.digits),
      i2("(I2) max relative residual weighted RLS(P0 = I/mu) vs R^G (S^G + mu prod gamma I)^{-1}", cfg.digits),
      gk("max relative residual g_t = P_t k_t (gain vs matrix-step form)", cfg.digits);
  static const char* gn[4] = {"U(0.05,1)", "Beta(5,1)", "const 0.9", "mixed {1, 1e-3, U(0,1)}"};
  int n = 0;
  for (const Size3& s : sizes(cfg))
    for (int pat = 0; pat < 4; ++pat) {
      const u64 sd = sub_seed(cfg.seed, 220, ++n);
      const std::size_t T = s.T + s.dk;
      Gauss g(sd ^ 0x5555);
      std::vector<double> gates(T);
      for (double& x : gates) {
        const double u = g.uniform();
        x = pat == 0 ? 0.05 + 0.95 * u : pat == 1 ? std::pow(u, 0.2) : pat == 2 ? 0.9 : (u < 0.3 ? 1.0 : u < 0.5 ? 1e-3 : g.uniform());
      }
      const int gen = n % 3;
      const std::string desc = sz(s.dk, s.dv, T) + " gates " + gn[pat] + " " + kKeyGen[gen] + " seed " + std::to_string(sd);
      i1.add(desc, [=](unsigned d) { return rls_item(s.dk, s.dv, T, gen, &gates, 0, sd, d).vs_batch; });
      for (double mu : {1e-3, 1.0}) i2.add(desc + " mu=" + fmt(mu), [=](unsigned d) { return rls_item(s.dk, s.dv, T, gen, &gates, mu, sd, d).vs_batch; });
      gk.add(desc, [=](unsigned d) { return rls_item(s.dk, s.dv, T, gen, &gates, 0, sd, d).gain_vs_matrix; });
    }
  std::vector<Part> parts = {{"(I1) = batch WLS (15)", i1.result(cfg, "G1 grid sizes (T = t + D_k) x G5 gates in (0,1] x G1/G2/G4 keys; digits d + 20 + sum log10(1/gamma) (P-scaled)")},
                             {"(I2) = decaying-ridge closed form", i2.result(cfg, "")},
                             {"g_t = P_t k_t", gk.result(cfg, "")}};
  return combine(cfg, "max relative residual weighted RLS vs batch / decaying-ridge closed form", parts,
                 "weighted RLS reproduces WLS (15) from the exact start and R^G (S^G + mu prod gamma I)^{-1} from P0 = I/mu; g_t = P_t k_t");
}
// A001-RIDGE-LIMIT: mu = 10^-k -> min-norm LS solution, error O(mu) (fitted slope).
ClaimResult a001_ridge_limit(const CheckConfig& cfg) {
  struct Case {
    std::size_t t, dk, r;
    const char* name;
  };
  const std::vector<Case> cases = {{2, 4, 2, "t < D_k (min-norm branch)"}, {7, 3, 3, "t > D_k (full column rank)"}, {5, 4, 2, "rank 2 < min(t, D_k) (G2 rank-deficient)"},
                                   {6, 3, 3, "t > D_k with exact duplicate keys (G3)"}};
  const int kmax = cfg.quick ? 24 : 40;
  int bad = 0, n = 0;
  double worst_final = 0, slo = 1e9, shi = -1e9;
  std::string w, curves;
  for (const Case& c : cases) {
    const u64 sd = sub_seed(cfg.seed, 230, ++n);
    Gauss g(sd);
    Matrix<double> A = gauss_matrix(c.t, c.r, g), B = gauss_matrix(c.r, c.dk, g);
    if (c.r == c.t) B = gauss_matrix(c.t, c.dk, g), A = ref::eye<double>(c.t);
    if (c.r == c.dk && c.t > c.dk) B = ref::eye<double>(c.dk);
    if (n == 4)
      for (std::size_t j = 0; j < c.r; ++j) A(1, j) = A(0, j), A(4, j) = A(2, j);  // duplicate keys rows 2 = 1, 5 = 3
    const Matrix<double> Vd = gauss_matrix(c.t, 2, g);
    std::vector<double> lx, ly;
    double fin = 0;
    for (int k = 1; k <= kmax; ++k) {
      MpDigitsScope sc(30 + static_cast<unsigned>(k) + 20);
      const Mp Am = ref::cast<mp_t>(A), Bm = ref::cast<mp_t>(B), V = ref::cast<mp_t>(Vd);
      const Mp K = ref::matmul(Am, Bm);
      const Mp Mls = ref::min_norm_ls_state(Am, Bm, V);
      const Mp Mr = ref::ridge_state(K, V, c.t, mp_t(pow10_mp(-k)));
      fin = rel_res(Mr, Mls);
      lx.push_back(-k);
      ly.push_back(std::log10(fin));
    }
    std::vector<double> x2(lx.begin() + 3, lx.end()), y2(ly.begin() + 3, ly.end());
    const double sl = ols_slope(x2, y2);
    slo = std::min(slo, sl);
    shi = std::max(shi, sl);
    worst_final = std::max(worst_final, fin);
    curves += (curves.empty() ? "" : "; ") + (std::string(c.name) + ": slope " + fmt(sl, 4) + ", error at mu=1e-1/1e-10/1e-" + std::to_string(kmax) + " = " + fmt(std::pow(10.0, ly[0])) + "/" +
                                              fmt(std::pow(10.0, ly[9])) + "/" + fmt(fin));
    if ((std::abs(sl - 1) > 0.05 || !(fin < std::pow(10.0, -kmax + 5))) && !bad++) w = std::string(c.name) + " seed " + std::to_string(sd) + ": slope " + fmt(sl, 4);
  }
  ClaimResult r = predicate_result(cfg, "relative ||R(S + mu I)^{-1} - V^T (K^+)^T|| at mu = 1e-" + std::to_string(kmax) + " (worst case)", worst_final,
                                   std::pow(10.0, -kmax + 5), bad == 0, w.empty() ? "none" : w, n,
                                   "mu = 10^-k, k = 1.." + std::to_string(kmax) + ", digits 50 + k; t < D_k, t > D_k, rank-deficient, duplicate keys",
                                   "the ridge solution converges to the min-norm LS solution with error O(mu) (fitted slope within 0.05 of 1) in every case",
                                   "the limit or its O(mu) rate fails", cfg.digits);
  r.evidence.extra.emplace_back("fitted slope of log10 error vs log10 mu (k >= 4), range", fmt(slo, 4) + " .. " + fmt(shi, 4));
  r.evidence.extra.emplace_back("per case", curves);
  return r;
}

}  // namespace

void register_a001_recursive_least_squares(Ledger& l) {
  const auto add = claim_support::claim_adder(l);
  using namespace check_class;
  add("A001-RLS", "RLS (Woodbury) reproduces batch LS; gain and matrix-step forms", identity, false, a001_rls);
  add("A001-RLS-RIDGE-INIT", "RLS with P0 = I/mu is ridge regression [derived]", identity, false, a001_rls_ridge_init);
  add("A001-RIDGE-LIMIT", "Ridgeless limit of the ridge solution, O(mu) [derived]", inequality, false, a001_ridge_limit);
  add("A001-WRLS", "Weighted RLS reproduces WLS and the decaying-ridge form", identity, false, a001_wrls);
}

}  // namespace recall
