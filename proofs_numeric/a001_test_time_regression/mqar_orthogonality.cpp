// Paper A001 (test-time regression), §6, Fig. 3 discussion: "it is impossible for 128 keys to be orthogonal in
// a d_model = 64 dimensional space". For N in {64, 65, 96, 128} unit vectors in R^64 the maximum coherence is
// minimised (frame-potential projection, then projected descent on p-frame potentials with random restarts,
// fp64), re-evaluated in mp at cfg.digits and reported next to the Welch bound, with the rank of the N x N Gram.
// The fp64 frame helpers are shared with mqar_capacity.cpp (proofs_numeric/support/mqar_claims.hpp); restarts
// are seeded by splitmix64(cfg.seed ^ fnv1a(tag) ^ splitmix64(n)).
// Spec ID: A001-MQAR-ORTHOGONALITY-LIMIT.
#include "recall/proofs/claims.hpp"
#include "recall/proofs/ledger.hpp"
#include "recall/reference/short_conv_mqar.hpp"
#include "claim_support.hpp"
#include "linear_attention_claims.hpp"
#include "mqar_claims.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::linattn;
using namespace claim_support::mqar;

// ---------------------------------------------------------------------------------------------
// A001-MQAR-ORTHOGONALITY-LIMIT
// ---------------------------------------------------------------------------------------------

double max_coh_unit(const Eigen::MatrixXd& E) {
  Eigen::MatrixXd G = E.transpose() * E;
  G.diagonal().setZero();
  return G.cwiseAbs().maxCoeff();
}
// Minimise the maximum coherence of N unit vectors in R^d: frame-potential minimiser (UNTF / orthonormal
// projection), then projected gradient descent on the p-frame potential sum_{i<j} |g_ij|^p for p = 8..256
// (continuation toward the max), with backtracking; returns the best frame seen.
Eigen::MatrixXd min_coherence_frame(std::size_t d, std::size_t N, u64 seed, int iters, double* best_mu) {
  Gauss g(seed);
  Eigen::MatrixXd E = gauss_eigen(g, static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(N));
  normalize_columns(E);
  untf_project(E, 60);
  Eigen::MatrixXd best = E;
  double bmu = max_coh_unit(E);
  if (bmu < 1e-14) {
    *best_mu = bmu;
    return best;
  }
  // |x|^p for p = 2^k by k squarings
  auto powp = [](Eigen::ArrayXXd a, int k) {
    for (int i = 0; i < k; ++i) a = a.square();
    return a;
  };
  for (int k : {3, 4, 5, 6, 7, 8}) {  // p = 2^k = 8 .. 256
    double eta = 0.05;
    auto objective = [&](const Eigen::MatrixXd& A, double m0) {
      Eigen::MatrixXd G = A.transpose() * A;
      G.diagonal().setZero();
      return powp((G.cwiseAbs() / m0).array(), k).sum();
    };
    for (int it = 0; it < iters; ++it) {
      Eigen::MatrixXd G = E.transpose() * E;
      G.diagonal().setZero();
      const double m0 = G.cwiseAbs().maxCoeff();
      // W_ij = sign(g_ij) |g_ij / m0|^{p-1} = x |x|^p / x^2, x = g_ij / m0 (0 where x = 0)
      const Eigen::ArrayXXd x = G.array() / m0;
      const Eigen::MatrixXd W = (x * powp(x.abs(), k) / x.square().max(1e-300)).matrix();
      Eigen::MatrixXd D = E * W;
      for (Eigen::Index i = 0; i < D.cols(); ++i) D.col(i) -= D.col(i).dot(E.col(i)) * E.col(i);
      const double dn = D.norm();
      if (!(dn > 0)) break;
      D /= dn;
      const double f0 = objective(E, m0);
      bool ok = false;
      for (int h = 0; h < 30; ++h) {
        Eigen::MatrixXd En = E - eta * D;
        normalize_columns(En);
        if (objective(En, m0) < f0) {
          E = std::move(En);
          eta *= 1.3;
          ok = true;
          break;
        }
        eta /= 2;
      }
      if (!ok) break;
      const double mu = max_coh_unit(E);
      if (mu < bmu) {
        bmu = mu;
        best = E;
      }
    }
  }
  *best_mu = bmu;
  return best;
}

ClaimResult a001_mqar_orthogonality_limit(const CheckConfig& cfg) {
  const char* tag = "A001-MQAR-ORTHOGONALITY-LIMIT";
  const std::size_t d = 64;
  const int restarts = cfg.quick ? 1 : 8, iters = cfg.quick ? 25 : 150;
  ClaimResult r;
  Evidence& e = r.evidence;
  bool rank_ok = true, coh_ok = true, welch_ok = true;
  double mu128 = 0, w128 = 0, ratio_worst = INFINITY;
  std::string rank_fail;
  for (std::size_t N : {64, 65, 96, 128}) {
    double bmu = INFINITY;
    Eigen::MatrixXd bestE;
    for (int k = 0; k < restarts; ++k) {
      double mu = 0;
      Eigen::MatrixXd E = min_coherence_frame(d, N, instance_seed(cfg, tag, 1000 * N + k), iters, &mu);
      if (mu < bmu) {
        bmu = mu;
        bestE = std::move(E);
      }
    }
    // Gram rank (fp64 eigenvalues, threshold N eps lambda_max) and the distance to the identity
    const Eigen::MatrixXd G = bestE.transpose() * bestE;
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(G);
    const Eigen::VectorXd ev = es.eigenvalues();  // ascending
    const double lmax = ev(ev.size() - 1), tol = static_cast<double>(N) * 2.3e-16 * lmax;
    std::size_t rank = 0;
    for (Eigen::Index i = 0; i < ev.size(); ++i) rank += ev(i) > tol ? 1 : 0;
    const double dist_I = (G - Eigen::MatrixXd::Identity(static_cast<Eigen::Index>(N), static_cast<Eigen::Index>(N))).norm();
    const double welch = to_d(ref::welch_bound<mp_t>(N, d));
    // exact re-evaluation of the best coherence in mp (the frame converted exactly)
    double mu_mp = 0;
    {
      MpDigitsScope sc(cfg.digits);
      MM Em(d, N);
      for (std::size_t i = 0; i < d; ++i)
        for (std::size_t j = 0; j < N; ++j) Em(i, j) = mp_t(bestE(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)));
      mu_mp = to_d(ref::max_coherence(Em));
    }
    const double gap = N > rank ? ev(static_cast<Eigen::Index>(N - rank - 1)) : 0.0;  // largest eigenvalue counted as zero
    e.extra.emplace_back("N=" + std::to_string(N),
                         "best max coherence " + fmt(bmu, 6) + " (mp " + fmt(mu_mp, 6) + ", " + std::to_string(restarts) + " restart(s)), Welch bound " +
                             fmt(welch, 6) + (welch > 0 ? ", ratio " + fmt(mu_mp / welch, 4) : std::string()) + "; Gram rank " + std::to_string(rank) +
                             " (largest dropped eigenvalue " + fmt(gap) + ", smallest kept " + fmt(ev(static_cast<Eigen::Index>(N - rank))) +
                             "); ||G - I||_F = " + fmt(dist_I, 5) + " >= sqrt(N - rank) = " + fmt(std::sqrt(static_cast<double>(N - rank)), 5));
    if (N > d) {
      if (!(rank <= d)) {
        rank_ok = false;
        rank_fail = "N=" + std::to_string(N) + " rank " + std::to_string(rank);
      }
      if (!(mu_mp > 0)) coh_ok = false;
      if (!(mu_mp >= welch * (1 - 1e-9))) welch_ok = false;
      ratio_worst = std::min(ratio_worst, mu_mp / welch);
    } else {
      e.extra.emplace_back("control N = d = 64", std::string("an orthonormal basis exists; the optimiser found max coherence ") + fmt(mu_mp) +
                                                     (mu_mp < 1e-12 ? " (found)" : " (NOT found: the optimiser is weak here)"));
    }
    if (N == 128) {
      mu128 = mu_mp;
      w128 = welch;
    }
  }
  e.statistic = "N = 128 unit vectors in R^64: smallest max coherence found (mp re-evaluation); the threshold is the Welch lower bound";
  e.value = mu128;
  e.threshold = w128;
  e.instances = 4 * restarts;
  e.sizes = "N in {64, 65, 96, 128}, d = 64, " + std::to_string(restarts) + " restart(s) x 6 p-stages x " + std::to_string(iters) +
            " descent steps" + (cfg.quick ? " (quick mode)" : "");
  e.digits = cfg.digits;
  e.seed = cfg.seed;
  e.witness = "-";
  if (!rank_ok) {
    r.verdict = Verdict::inconclusive;
    r.reason = "computed Gram rank exceeds d (" + rank_fail + "): numerical rank decision failed";
  } else if (!coh_ok) {
    r.verdict = Verdict::violated;
    r.reason = "a frame of N > d unit vectors with zero coherence was found";
  } else if (!welch_ok) {
    r.verdict = Verdict::inconclusive;
    r.reason = "a frame below the Welch bound was reported: optimiser / bound inconsistency";
  } else {
    r.verdict = Verdict::holds;
    r.reason = "for N in {65, 96, 128} the Gram of the N unit vectors has computed rank <= 64 < N, so it cannot be I_N "
               "(||G - I||_F >= sqrt(N - 64)); the best coherence found stays above the Welch bound (min ratio found/bound " +
               fmt(ratio_worst, 4) + ")";
  }
  return r;
}

}  // namespace

void register_a001_mqar_orthogonality(Ledger& l) {
  using namespace check_class;
  auto add = claim_support::claim_adder(l);
  add("A001-MQAR-ORTHOGONALITY-LIMIT", "128 mutually orthogonal vectors do not fit in 64 dimensions", inequality, false,
      a001_mqar_orthogonality_limit);
}

}  // namespace recall
