// The fp64 protocol of A001-EXP-ONLINE-REGRESSION (proofs_numeric/support/online_regression_protocol.hpp):
// the stream of Eq. (55) and its index conventions, every layer against an independent evaluation of its
// definition (fp64 Jacobi SVD pseudo-inverses, closed forms, the MP pseudo-inverse of svd.hpp), the
// invariants the claims rely on (affine reproduction of p = 1, the QR-updated Gram), and the statistics
// helpers (windows, paired bootstrap, adaptation time). Small sizes; each test well under a second.
#include "../../proofs_numeric/support/online_regression_protocol.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/svd.hpp"
#include "mp_test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace recall {
namespace {

using namespace claim_support::online_regression;
using namespace test_support;

StreamParams small(int dk = 4, int T = 24) {
  StreamParams p;
  p.dk = dk;
  p.T = T;
  return p;
}

// min-norm weighted LS read-out by an fp64 Jacobi SVD with the declared threshold (independent of the layer)
Vec svd_min_norm(const Mat& A, const Mat& B, const Vec& q) {
  Eigen::JacobiSVD<Mat> sv(A, Eigen::ComputeThinU | Eigen::ComputeThinV);
  sv.setThreshold(rank_tol(A.rows(), A.cols()));
  const Mat Mt = sv.solve(B);
  return Mt.transpose() * q;
}
double rel(const Vec& a, const Vec& b) { return (a - b).norm() / std::max(1.0, b.norm()); }

TEST(OnlineRegressionStream, IndexConventionsAndRegimeSwitch) {
  // noise 0: k_{t+1} = a k_t exactly, with a = 0.9 for t < T/4 and 0.999 from t = T/4 on (Eq. 55)
  StreamParams p = small(3, 16);
  p.noise = 0;
  p.k1 = K1Law::sigma;
  const Stream s = make_stream(p, 7);
  ASSERT_EQ(s.K.rows(), p.T + 2);
  ASSERT_EQ(s.V.rows(), p.T + 1);
  for (int t = 1; t <= p.T + 1; ++t) {
    const double a = t < p.T / 4 ? 0.9 : 0.999;
    EXPECT_EQ((s.K.row(t) - a * s.K.row(t - 1)).cwiseAbs().maxCoeff(), 0.0) << "t=" << t;
    EXPECT_NEAR(s.V.row(t - 1).norm(), 1.0, 1e-15);
    EXPECT_NEAR((s.V.row(t - 1) - s.K.row(t) / s.K.row(t).norm()).norm(), 0.0, 1e-15);  // v_t = k_{t+1}/||k_{t+1}||
  }
}

TEST(OnlineRegressionStream, DeterministicAndSeedSensitive) {
  const StreamParams p = small();
  const Stream a = make_stream(p, 11), b = make_stream(p, 11), c = make_stream(p, 12);
  EXPECT_EQ((a.K - b.K).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_GT((a.K - c.K).cwiseAbs().maxCoeff(), 0.0);
  StreamParams z = p;
  z.k1 = K1Law::zero;
  EXPECT_EQ(make_stream(z, 11).K.row(0).norm(), 0.0);
  // common random numbers: the same normals drive every rho (only the mixing changes)
  StreamParams r = p;
  r.rho = 0.2;
  EXPECT_GT((make_stream(r, 11).K - a.K).cwiseAbs().maxCoeff(), 0.0);
}

TEST(OnlineRegressionStream, InnovationCovarianceIsEquicorrelated) {
  // a = 0 and noise 1: k_{t+1} = eps_t ~ N(0, Sigma_rho); sample covariance over 6000 steps
  StreamParams p = small(4, 6000);
  p.a_fast = p.a_slow = 0;
  p.noise = 1;
  p.rho = 0.5;
  const Stream s = make_stream(p, 3);
  const Mat E = s.K.bottomRows(p.T + 1);
  const Mat C = E.transpose() * E / static_cast<double>(E.rows());
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_NEAR(C(i, j), i == j ? 1.0 : 0.5, 0.08) << i << "," << j;
}

TEST(OnlineRegressionStream, LkjCorrelationMatrix) {
  // LKJ(1) in dimension d: a correlation matrix (unit diagonal, symmetric, positive definite) whose
  // off-diagonal entries have mean 0 and variance 1/(d + 1) (marginal Beta(d/2, d/2) on (-1, 1))
  const int d = 4, n = 1500;
  claim_support::Gauss g(5);
  double m = 0, v = 0;
  for (int k = 0; k < n; ++k) {
    const Mat S = lkj_correlation(d, 1.0, g);
    ASSERT_NEAR((S - S.transpose()).norm(), 0.0, 0.0);
    for (int i = 0; i < d; ++i) ASSERT_EQ(S(i, i), 1.0);
    ASSERT_EQ(Eigen::LLT<Mat>(S).info(), Eigen::Success);
    m += S(0, 3);
    v += S(0, 3) * S(0, 3);
  }
  m /= n;
  v /= n;
  EXPECT_NEAR(m, 0.0, 0.05);
  EXPECT_NEAR(v, 1.0 / (d + 1), 0.03);
  EXPECT_NE(error_of([&] { lkj_correlation(3, 0.7, g); }).find("eta"), std::string::npos);
}

TEST(OnlineRegressionStream, BadParametersAreErrors) {
  StreamParams p = small();
  p.rho = 1.0;
  EXPECT_NE(error_of([&] { make_stream(p, 1); }).find("rho"), std::string::npos);
  const Stream s = make_stream(small(), 1);
  EXPECT_NE(error_of([&] { run_layer(wls_layer(1.5), s, small()); }).find("gamma"), std::string::npos);
}

TEST(OnlineRegressionLayers, NaiveSoftmaxAndLinearAttentionByDefinition) {
  const StreamParams p = small(3, 12);
  const Stream s = make_stream(p, 21);
  const LayerRun nv = run_layer(naive_layer(), s, p);
  Similarity sim;  // s_dot, tau = sqrt(D_k)
  const LayerRun sm = run_layer(softmax_layer(sim), s, p, true);
  ref::Matrix<double> Q(p.T, p.dk), K(p.T, p.dk), V(p.T, p.dk);
  for (int t = 0; t < p.T; ++t)
    for (int j = 0; j < p.dk; ++j) {
      Q(t, j) = s.K(t + 1, j);
      K(t, j) = s.K(t, j);
      V(t, j) = s.V(t, j);
    }
  const ref::Matrix<double> Y = ref::linear_attention(Q, K, V).O;
  const ref::OutputNorm norms[3] = {ref::OutputNorm::layer_norm, ref::OutputNorm::rms_norm, ref::OutputNorm::l2};
  for (const auto nm : norms) {
    const ref::Matrix<double> Yn = ref::normalize_outputs(Y, nm, 1e-5);
    const LayerRun la = run_layer(la_layer(nm), s, p);
    for (int t = 1; t <= p.T; ++t) {
      double l = 0;
      for (int j = 0; j < p.dk; ++j) l += (s.V(t, j) - Yn(t - 1, j)) * (s.V(t, j) - Yn(t - 1, j));
      EXPECT_NEAR(la.loss[t - 1], l, 1e-12 * std::max(1.0, l)) << "t=" << t;
    }
  }
  for (int t = 1; t <= p.T; ++t) {
    EXPECT_EQ(nv.loss[t - 1], (s.V.row(t) - s.V.row(t - 1)).squaredNorm());
    Vec y = Vec::Zero(p.dk);
    double z = 0;
    for (int i = 0; i < t; ++i) {
      const double w = std::exp(s.K.row(i).dot(s.K.row(t)) / std::sqrt(3.0));
      y += w * s.V.row(i).transpose();
      z += w;
    }
    EXPECT_LT(rel(sm.Y.row(t - 1).transpose(), y / z), 1e-14);
    EXPECT_EQ(sm.loss[t - 1], (s.V.row(t).transpose() - sm.Y.row(t - 1).transpose()).squaredNorm());
  }
  // sharp logits (tau = 1e-3): max-subtraction keeps the output finite and a convex combination
  Similarity sharp;
  sharp.tau = 1e-3;
  const LayerRun ss = run_layer(softmax_layer(sharp), s, p, true);
  for (int t = 1; t <= p.T; ++t) EXPECT_TRUE(std::isfinite(ss.loss[t - 1]));
}

TEST(OnlineRegressionLayers, LeastSquaresFamilyMatchesSvdPseudoInverse) {
  // D_k = 5, T = 20: min-norm phase t < 5, QR-updated phase after; weighted, oracle and ridge variants
  const StreamParams p = small(5, 20);
  const Stream s = make_stream(p, 31);
  const LayerRun ls = run_layer(ls_layer(), s, p, true);
  const LayerRun wl = run_layer(wls_layer(0.9), s, p, true);
  const LayerRun orc = run_layer(oracle_layer(), s, p, true);
  const double mu = 1e-3;
  const LayerRun rd = run_layer(ls_layer(mu), s, p, true);
  for (int t = 1; t <= p.T; ++t) {
    const Vec q = s.K.row(t).transpose();
    const Mat K = s.K.topRows(t), V = s.V.topRows(t);
    EXPECT_LT(rel(ls.Y.row(t - 1).transpose(), svd_min_norm(K, V, q)), 1e-11) << "t=" << t;
    EXPECT_EQ(ls.rank[t - 1], std::min(t, p.dk));
    Mat Kw = K, Vw = V;
    for (int i = 0; i < t; ++i) {
      Kw.row(i) *= std::pow(0.9, 0.5 * (t - 1 - i));
      Vw.row(i) *= std::pow(0.9, 0.5 * (t - 1 - i));
    }
    EXPECT_LT(rel(wl.Y.row(t - 1).transpose(), svd_min_norm(Kw, Vw, q)), 1e-10) << "t=" << t;
    const int start = t < p.T / 4 ? 0 : p.T / 4 - 1;  // oracle: pairs i >= T/4 once t >= T/4 (1-based)
    EXPECT_LT(rel(orc.Y.row(t - 1).transpose(), svd_min_norm(K.bottomRows(t - start), V.bottomRows(t - start), q)), 1e-10) << "t=" << t;
    // ridge start: M_t = R_t (S_t + mu I)^{-1}
    const Mat S = K.transpose() * K + mu * Mat::Identity(p.dk, p.dk);
    const Vec yr = V.transpose() * (K * S.ldlt().solve(q));
    EXPECT_LT(rel(rd.Y.row(t - 1).transpose(), yr), 1e-9) << "t=" << t;
  }
}

TEST(OnlineRegressionLayers, LeastSquaresAgainstMpPseudoInverse) {
  const StreamParams p = small(4, 10);
  const Stream s = make_stream(p, 41);
  const LayerRun ls = run_layer(ls_layer(), s, p, true);
  MpDigitsScope sc(40);
  for (int t : {2, 4, 5, 10}) {
    ref::Matrix<mp_t> K(t, p.dk), V(t, p.dk);
    for (int i = 0; i < t; ++i)
      for (int j = 0; j < p.dk; ++j) {
        K(i, j) = s.K(i, j);
        V(i, j) = s.V(i, j);
      }
    const ref::Matrix<mp_t> P = ref::pinv(K);
    for (int j = 0; j < p.dk; ++j) {
      mp_t y = 0;
      for (int i = 0; i < t; ++i) {
        mp_t w = 0;
        for (int c = 0; c < p.dk; ++c) w += P(c, i) * s.K(t, c);
        y += V(i, j) * w;
      }
      EXPECT_NEAR(ls.Y(t - 1, j), static_cast<double>(y), 1e-12) << "t=" << t << " j=" << j;
    }
  }
}

TEST(OnlineRegressionLayers, LocalLinearPinvAndRidgeByDefinition) {
  // D_k = 4, T = 20: underdetermined for t <= 4 (fewer rows than 1 + D_k), full rank after
  const StreamParams p = small(4, 20);
  const Stream s = make_stream(p, 51);
  Similarity sim;
  const LayerRun pv = run_layer(p1_layer(sim), s, p, true);
  const double mu_rel = 1e-2;
  const LayerRun rd = run_layer(p1_layer(sim, Singular::ridge, mu_rel), s, p, true);
  const int d = p.dk;
  for (int t = 1; t <= p.T; ++t) {
    const Vec q = s.K.row(t).transpose();
    Mat A(t, d + 1), B(t, d);
    double zmax = -INFINITY;
    for (int i = 0; i < t; ++i) zmax = std::max(zmax, s.K.row(i).dot(q) / 2.0);
    double tr = 0;
    for (int i = 0; i < t; ++i) {
      const double sw = std::sqrt(std::exp(s.K.row(i).dot(q) / 2.0 - zmax));
      A(i, 0) = sw;
      A.row(i).tail(d) = sw * (s.K.row(i) - q.transpose());
      B.row(i) = sw * s.V.row(i);
      tr += A.row(i).tail(d).squaredNorm();
    }
    Eigen::JacobiSVD<Mat> sv(A, Eigen::ComputeThinU | Eigen::ComputeThinV);
    sv.setThreshold(rank_tol(A.rows(), A.cols()));
    const Vec y = sv.solve(B).row(0).transpose();
    EXPECT_LT(rel(pv.Y.row(t - 1).transpose(), y), 1e-10) << "t=" << t;
    EXPECT_EQ(pv.rank[t - 1], std::min(t, d + 1));
    // ridge: Theta^T = (A^T A + mu diag(0, I))^{-1} A^T B, mu = mu_rel tr(sum w d d^T) / D_k
    Mat G = A.transpose() * A;
    G.diagonal().tail(d).array() += mu_rel * tr / d;
    const Vec yr = G.ldlt().solve(A.transpose() * B).row(0).transpose();
    EXPECT_LT(rel(rd.Y.row(t - 1).transpose(), yr), 1e-9) << "t=" << t;
  }
  // t = 1 under PINV: M^[0] = v_1 / (1 + ||d_1||^2) (spec A001-LOCAL-LINEAR-SINGULAR-PINV)
  const Vec d1 = (s.K.row(0) - s.K.row(1)).transpose();
  EXPECT_LT(rel(pv.Y.row(0).transpose(), s.V.row(0).transpose() / (1 + d1.squaredNorm())), 1e-14);
}

TEST(OnlineRegressionLayers, LocalLinearReproducesAffineValuesAndItsKernelSumsToOne) {
  // values that are an exact affine function of the keys are reproduced at any query once the local
  // system has full rank (t >= 1 + D_k), for the default and the Gaussian similarity
  StreamParams p = small(3, 16);
  Stream s = make_stream(p, 61);
  Mat A(3, 3);
  A << 1, -2, 0.5, 0.3, 0.7, -1, 2, 0, 1;
  const Vec b = Vec::LinSpaced(3, -1, 1);
  for (int t = 0; t <= p.T; ++t) s.V.row(t) = (A * s.K.row(t).transpose() + b).transpose();
  Similarity g;
  g.kind = SimKind::gauss;
  for (const Similarity& sim : {Similarity{}, g}) {
    const LayerRun r = run_layer(p1_layer(sim), s, p, true);
    for (int t = p.dk + 1; t <= p.T; ++t) {
      const Vec target = A * s.K.row(t).transpose() + b;
      EXPECT_LT(rel(r.Y.row(t - 1).transpose(), target), 1e-9) << "t=" << t;
      EXPECT_LT(r.loss[t - 1], 1e-16) << "t=" << t;
    }
    // the equivalent-kernel mass on the first T/4 keys is reported after the switch (finite there)
    for (int t = p.T / 4 + 1; t <= p.T; ++t) EXPECT_TRUE(std::isfinite(r.premass[t - 1]));
  }
}

TEST(OnlineRegressionLayers, QrUpdateKeepsTheGram) {
  // after adding rows x_i (weights gamma^(t-i)): R^T R = sum gamma^(t-i) x_i x_i^T, R^T B = sum gamma^(t-i) x_i y_i^T
  claim_support::Gauss g(71);
  const int n = 4, dv = 2, m = 9;
  const double gam = 0.8;
  QrLs qr;
  qr.reset(n, dv);
  Mat G = Mat::Zero(n, n), C = Mat::Zero(n, dv);
  for (int i = 0; i < m; ++i) {
    Vec x(n), y(dv);
    for (int j = 0; j < n; ++j) x(j) = g.normal();
    for (int j = 0; j < dv; ++j) y(j) = g.normal();
    qr.scale(std::sqrt(gam));
    qr.add_row(x, y);
    G = gam * G + x * x.transpose();
    C = gam * C + x * y.transpose();
  }
  EXPECT_LT((qr.R.transpose() * qr.R - G).norm() / G.norm(), 1e-14);
  EXPECT_LT((qr.R.transpose() * qr.B - C).norm() / C.norm(), 1e-14);
  EXPECT_LT((Mat(qr.R.triangularView<Eigen::StrictlyLower>())).norm(), 1e-300);
  // memory() = C^T G^{-1}
  EXPECT_LT((qr.memory() - (G.ldlt().solve(C)).transpose()).norm(), 1e-12);
}

TEST(OnlineRegressionLayers, ConditionEstimateIsALowerEstimateWithinAFactor) {
  claim_support::Gauss g(81);
  for (int k = 0; k < 20; ++k) {
    Mat R = Mat::Zero(6, 6);
    for (int i = 0; i < 6; ++i)
      for (int j = i; j < 6; ++j) R(i, j) = g.normal() * (i == j ? std::pow(10.0, -k / 4.0 * i / 5.0) : 1.0);
    const Eigen::JacobiSVD<Mat> sv(R);
    const double c = sv.singularValues()(0) / sv.singularValues()(5);
    const double e = cond_estimate(R);
    EXPECT_LE(e, c * std::sqrt(6.0) * (1 + 1e-10));  // ||R||_F <= sqrt(n) sigma_max, estimate of sigma_min >= sigma_min
    EXPECT_GE(e, c / 30);
  }
}

TEST(OnlineRegressionStatistics, WindowsBootstrapAndAdaptationTime) {
  const auto W = windows(256);
  EXPECT_EQ(W[0].lo, 1);
  EXPECT_EQ(W[0].hi, 63);
  EXPECT_EQ(W[1].lo, 64);
  EXPECT_EQ(W[1].hi, 79);
  EXPECT_EQ(W[2].lo, 80);
  EXPECT_EQ(W[2].hi, 256);
  std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8}, y(8, 2.0);
  const Bootstrap bs(8, 500, 9);
  const claim_support::Ci c = bs.mean(x);
  EXPECT_DOUBLE_EQ(c.mean, 4.5);
  EXPECT_LT(c.lo, 4.5);
  EXPECT_GT(c.hi, 4.5);
  const claim_support::Ci k = bs.mean(y);
  EXPECT_EQ(k.lo, 2.0);
  EXPECT_EQ(k.hi, 2.0);
  std::vector<double> x2(x);
  for (double& v : x2) v *= 3;
  const claim_support::Ci r = bs.ratio(x2, x);
  EXPECT_NEAR(r.lo, 3.0, 1e-15);
  EXPECT_NEAR(r.hi, 3.0, 1e-15);
  EXPECT_EQ(ci_side(c, 0), 1);
  EXPECT_EQ(ci_side(c, 10), -1);
  EXPECT_EQ(ci_side(c, 4.5), 0);
  // a loss of 10 before t = 100 and 1 after: the trailing 8-step mean first stays <= 1.1 at t = 107
  std::vector<double> loss(256, 1.0);
  for (int t = 1; t < 100; ++t) loss[t - 1] = 10;
  EXPECT_EQ(adaptation_time(loss, 256), 107);
  loss[255] = 100;  // the last window exceeds the limit: never adapted
  EXPECT_EQ(adaptation_time(loss, 256), 257);
  std::vector<double> flat(256, 1.0);
  EXPECT_EQ(adaptation_time(flat, 256), 64);
}

TEST(OnlineRegressionStatistics, BandwidthMedianAndControlledSwitch) {
  const StreamParams p = small(3, 9);
  const Stream s = make_stream(p, 91);
  std::vector<double> d2;
  for (int i = 0; i <= p.T; ++i)
    for (int j = i + 1; j <= p.T; ++j) d2.push_back((s.K.row(i) - s.K.row(j)).squaredNorm());
  std::sort(d2.begin(), d2.end());
  const double med = d2.size() % 2 ? d2[d2.size() / 2] : 0.5 * (d2[d2.size() / 2 - 1] + d2[d2.size() / 2]);
  EXPECT_DOUBLE_EQ(median_sq_dist(s, p.T), med);
  // noise-free switch at T/2: right after it every memory still sits near A_1 (ratio ~ 1) except the
  // projection rules; at T, weighted LS with gamma = 0.9 has forgotten A_1, unweighted LS only in part
  const std::vector<int> ts = {65, 128};
  const SwitchCurves sc = controlled_switch(3, 128, 0.0, {0.9}, ts, 5);
  ASSERT_EQ(sc.names.size(), 5u);  // LS, WLS 0.9, NLMS, DeltaNet, LA
  EXPECT_GT(sc.ratio[0][0], 0.9);
  EXPECT_GT(sc.ratio[0][1], 0.3);
  EXPECT_LT(sc.ratio[0][1], 0.7);
  EXPECT_LT(sc.ratio[1][1], 0.02);  // ~ 0.9^64 = 1.2e-3 of the pre-switch weight remains
  EXPECT_LT(sc.ratio[2][1], 1e-3);
}

}  // namespace
}  // namespace recall
