// reference/newton_schulz.hpp and reference/atlas.hpp (A002-NEWTON-SCHULZ, -NS-SPECTRAL, -NS-CUBIC, -NS-LIMIT target,
// A002-ATLAS, -EQ32, -D4, -T1-ATLAS, -PHI-EXP, -PARALLEL, -MOMENTUM-CLOSED, -NS-BATCH): hand-computed 1 x 1 cases, the
// external Muon constants (p(1) = 0.701 exactly in decimal), the orthogonal-input property as it really holds (issue 19:
// NS5(Q) = p^5(1/(sqrt(r)+eps)) Q, not Q; the cubic fixes r = 1 and converges for r > 1), odd symmetry and the transpose
// rule bitwise, the spectral form at 50 digits, the polar factor, the Atlas forms against each other (sequential,
// frozen-chunk loop, parallel form, momentum closed form, coefficient form of phi*), a one-token Atlas step by hand,
// and the named errors on bad input.
#include "recall/reference/atlas.hpp"
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/newton_schulz.hpp"

#include "mp_test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

namespace recall {
namespace {

using test_support::error_of;
using test_support::gauss;
using test_support::rel;
using DM = ref::Matrix<double>;
using MM = ref::Matrix<mp_t>;

ref::AtlasInputs<double> small_inputs(std::mt19937_64& g, std::size_t L, std::size_t D, std::size_t dv, std::size_t c) {
  ref::AtlasInputs<double> in;
  in.PhiK = gauss(g, L, D, 0.5);
  in.PhiQ = gauss(g, L, D, 0.5);
  in.V = gauss(g, L, dv);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  for (std::size_t t = 0; t < L; ++t) {
    in.alpha.push_back(0.5 + 0.5 * U(g));
    in.theta.push_back(0.5 + 0.49 * U(g));
    in.eta.push_back(0.01 + 0.1 * U(g));
  }
  in.Gamma = DM(L, L);
  for (std::size_t t = 0; t < L; ++t)
    for (std::size_t i = (t + 1 >= c ? t + 1 - c : 0); i <= t; ++i) in.Gamma(t, i) = U(g);
  in.c = c;
  return in;
}

TEST(A002Atlas, MuonConstantsAreTheExternalDecimals) {
  MpDigitsScope sc(50);
  const auto co = ref::muon_ns_coefficients<mp_t>();
  const mp_t p1 = ref::ns_scalar_map(mp_t(1), 1, co);
  EXPECT_LT(static_cast<double>(abs(mp_t(p1 - mp_t("0.701")))), 1e-48);  // p(1) = a + b + c = 0.701 != 1
  const auto cu = ref::cubic_ns_coefficients<mp_t>();
  EXPECT_EQ(ref::ns_scalar_map(mp_t(1), 7, cu), mp_t(1));  // the cubic fixes s = 1 exactly
  const auto cd = ref::muon_ns_coefficients<double>();
  EXPECT_EQ(cd.a, 3.4445);
  EXPECT_EQ(cd.b, -4.7750);
  EXPECT_EQ(cd.c, 2.0315);
  EXPECT_EQ(cd.eps, 1e-7);
}

TEST(A002Atlas, OneByOneByHand) {
  // G = [g]: X_0 = g / (|g| + eps), X_5 = sign(g) p^5(|g| / (|g| + eps))
  DM G(1, 1);
  G(0, 0) = -2.0;
  const DM N = ref::newton_schulz5(G);
  const auto co = ref::muon_ns_coefficients<double>();
  EXPECT_NEAR(N(0, 0), -ref::ns_scalar_map(2.0 / (2.0 + 1e-7), 5, co), 1e-13);
  // cubic, one step on [2]: s = 1 -> 3/2 - 1/2 = 1
  G(0, 0) = 2.0;
  EXPECT_EQ(ref::newton_schulz_cubic(G, 1)(0, 0), 1.0);
}

TEST(A002Atlas, OrthogonalInputIsNotAFixedPointOfTheQuintic) {
  // issue 19 property as it holds: NS5(Q) = p^5(1/(sqrt(r) + eps)) Q for Q with orthonormal rows (r rows)
  MpDigitsScope sc(50);
  for (std::size_t r : {1, 4}) {
    MM Q(r, 6);
    for (std::size_t i = 0; i < r; ++i) Q(i, i + 1) = mp_t(1);
    const auto co = ref::muon_ns_coefficients<mp_t>();
    const mp_t f = ref::ns_scalar_map(mp_t(mp_t(1) / (sqrt(mp_t(static_cast<double>(r))) + co.eps)), 5, co);
    MM fQ = Q;
    for (mp_t& x : fQ.a) x *= f;
    const MM N = ref::newton_schulz5(Q);
    EXPECT_LT(rel(N, fQ), 1e-45) << "r = " << r;
    EXPECT_GT(rel(N, Q), 1e-2) << "r = " << r;  // not a fixed point
    // the cubic: exactly fixed for r = 1, converging to Q for r = 4
    const MM C = ref::newton_schulz_cubic(Q, r == 1 ? 3 : 200);
    if (r == 1) EXPECT_EQ(rel(C, Q), 0.0);
    else EXPECT_LT(rel(C, Q), 1e-40);
  }
}

TEST(A002Atlas, OddSymmetryTransposeRuleAndZero) {
  std::mt19937_64 g(7);
  const DM G = gauss(g, 3, 7);
  DM Gm = G;
  for (double& x : Gm.a) x = -x;
  const DM N = ref::newton_schulz5(G), Nm = ref::newton_schulz5(Gm);
  for (std::size_t i = 0; i < N.a.size(); ++i) EXPECT_EQ(Nm.a[i], -N.a[i]);
  const DM Nt = ref::newton_schulz5(ref::transpose(G));  // tall input: transposed inside, shape kept
  ASSERT_EQ(Nt.rows, 7u);
  ASSERT_EQ(Nt.cols, 3u);
  const DM NT = ref::transpose(N);
  for (std::size_t i = 0; i < Nt.a.size(); ++i) EXPECT_EQ(Nt.a[i], NT.a[i]);
  const DM Z(4, 2);
  for (double x : ref::newton_schulz5(Z).a) EXPECT_EQ(x, 0.0);  // eps > 0: NS(0) = 0
  // batch = per-matrix, bitwise
  const std::vector<DM> b = ref::newton_schulz_batch(std::vector<DM>{G, Gm}, 5);
  EXPECT_EQ(b[0].a, N.a);
  EXPECT_EQ(b[1].a, Nm.a);
}

TEST(A002Atlas, SpectralFormAndPolarFactor) {
  MpDigitsScope sc(50);
  std::mt19937_64 g(11);
  const MM G = gauss<mp_t>(g, 3, 5);
  for (int k : {1, 5, 9}) EXPECT_LT(rel(ref::newton_schulz(G, k), ref::newton_schulz_spectral(G, k)), 1e-44) << "k = " << k;
  const auto cu = ref::cubic_ns_coefficients<mp_t>();
  EXPECT_LT(rel(ref::newton_schulz_cubic(G, 6), ref::newton_schulz_spectral(G, 6, cu)), 1e-44);
  std::size_t r = 0;
  const MM P = ref::polar_factor(G, &r);
  EXPECT_EQ(r, 3u);
  MM I(3, 3);
  for (std::size_t i = 0; i < 3; ++i) I(i, i) = mp_t(1);
  EXPECT_LT(rel(ref::matmul(P, ref::transpose(P)), I), 1e-45);
  // the cubic converges to the polar factor; the quintic does not
  EXPECT_LT(rel(ref::newton_schulz_cubic(G, 200), P), 1e-40);
  EXPECT_GT(rel(ref::newton_schulz(G, 200), P), 1e-3);
}

TEST(A002Atlas, NamedErrors) {
  DM G(2, 3);
  G(1, 2) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(error_of([&] { ref::newton_schulz5(G); }).find("entry (2, 3)"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::newton_schulz5(DM()); }).find("empty"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::newton_schulz(DM(2, 2), -1); }).find("steps"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::newton_schulz_cubic(DM(2, 2), 3); }).find("zero"), std::string::npos);
  std::mt19937_64 g(3);
  ref::AtlasInputs<double> in = small_inputs(g, 4, 3, 2, 2);
  const ref::AtlasConfig<double> cfg;
  ref::AtlasInputs<double> bad = in;
  bad.alpha[2] = 1.5;
  EXPECT_NE(error_of([&] { ref::atlas_eq32(bad, cfg); }).find("alpha_3"), std::string::npos);
  bad = in;
  bad.Gamma = DM(3, 4);
  EXPECT_NE(error_of([&] { ref::atlas_d4(bad, cfg); }).find("Gamma"), std::string::npos);
  bad = in;
  bad.V(0, 0) = std::numeric_limits<double>::infinity();
  EXPECT_NE(error_of([&] { ref::atlas_t1(bad, cfg); }).find("V"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::atlas_parallel(in, cfg, ref::AtlasVariant::eq32, 0); }).find("chunk size"), std::string::npos);
}

TEST(A002Atlas, OneTokenStepByHand) {
  // L = 1, D = d_v = 1, phi = 1, v = 1, M0 = 0: grad = 2 Gamma (0 - 1) = -2 Gamma
  ref::AtlasInputs<double> in;
  in.PhiK = DM(1, 1);
  in.PhiK(0, 0) = 1;
  in.PhiQ = in.PhiK;
  in.V = in.PhiK;
  in.alpha = {0.9};
  in.theta = {0.5};
  in.eta = {0.1};
  in.Gamma = DM(1, 1);
  in.Gamma(0, 0) = 0.25;
  const ref::AtlasConfig<double> cfg;
  const auto co = cfg.ns;  // the iteration (A = x^2, B = bA + cA^2, x = ax + Bx) rounds differently from Horner: 1e-13
  const double ns = ref::ns_scalar_map(0.5 / (0.5 + 1e-7), 5, co);  // |S| = 0.5
  // EQ32: S = -0.5, M = -0.1 NS(-0.5) = +0.1 ns; D4: S = +0.5, M = +NS(0.5) = ns; T1: S = +0.5, M = -0.1 ns
  EXPECT_NEAR(ref::atlas_eq32(in, cfg).M[1](0, 0), 0.1 * ns, 1e-13);
  EXPECT_NEAR(ref::atlas_d4(in, cfg).M[1](0, 0), ns, 1e-13);
  EXPECT_NEAR(ref::atlas_t1(in, cfg).M[1](0, 0), -0.1 * ns, 1e-13);
  EXPECT_NEAR(ref::atlas_eq32(in, cfg).Smom[1](0, 0), -0.5, 1e-16);
  EXPECT_NEAR(ref::atlas_eq32(in, cfg).Y(0, 0), 0.1 * ns, 1e-13);
}

TEST(A002Atlas, ParallelFormsAgree) {
  MpDigitsScope sc(40);
  std::mt19937_64 g(5);
  const ref::AtlasInputs<double> ind = small_inputs(g, 9, 3, 2, 3);
  ref::AtlasInputs<mp_t> in;
  in.PhiK = ref::cast<mp_t>(ind.PhiK);
  in.PhiQ = ref::cast<mp_t>(ind.PhiQ);
  in.V = ref::cast<mp_t>(ind.V);
  in.alpha = ref::cast<mp_t>(ind.alpha);
  in.theta = ref::cast<mp_t>(ind.theta);
  in.eta = ref::cast<mp_t>(ind.eta);
  in.Gamma = ref::cast<mp_t>(ind.Gamma);
  in.c = 3;
  const ref::AtlasConfig<mp_t> cfg;
  for (auto v : {ref::AtlasVariant::eq32, ref::AtlasVariant::d4, ref::AtlasVariant::t1}) {
    EXPECT_LT(rel(ref::atlas_parallel(in, cfg, v, 1).Y, ref::atlas_run(in, cfg, v).Y), 1e-35);
    for (std::size_t b : {2, 4}) {
      const auto P = ref::atlas_parallel(in, cfg, v, b), F = ref::atlas_frozen_chunks(in, cfg, v, b);
      EXPECT_LT(rel(P.Y, F.Y), 1e-35);
      EXPECT_LT(rel(P.M[9], F.M[9]), 1e-35);
      EXPECT_GT(rel(F.Y, ref::atlas_run(in, cfg, v).Y), 1e-10);  // frozen gradients: a different model for b >= 2
    }
  }
}

TEST(A002Atlas, MomentumClosedFormWithZeroGates) {
  MpDigitsScope sc(50);
  std::mt19937_64 g(9);
  const std::size_t L = 12;
  ref::Vector<mp_t> th(L), lth(L);
  std::vector<MM> U;
  for (std::size_t t = 0; t < L; ++t) {
    th[t] = t % 4 == 2 ? mp_t(0) : mp_t(0.5 + 0.04 * static_cast<double>(t));
    lth[t] = ref::log_gate(th[t]);
    U.push_back(gauss<mp_t>(g, 2, 2));
  }
  const MM S0 = gauss<mp_t>(g, 2, 2);
  for (std::size_t n = 0; n < L; ++n)
    for (int sign : {-1, 1})
      EXPECT_LT(rel(ref::atlas_momentum_closed(lth, U, S0, sign, 0, n), ref::atlas_momentum_scan(th, U, S0, sign, 0, n)), 1e-45);
}

TEST(A002Atlas, PhiExpKernelFormMatchesTruncatedFeatures) {
  MpDigitsScope sc(30);
  std::mt19937_64 g(13);
  const std::size_t L = 4, d = 2;
  MM K = gauss<mp_t>(g, L, d), Q = gauss<mp_t>(g, L, d);
  for (MM* X : {&K, &Q})
    for (std::size_t i = 0; i < L; ++i) {
      const mp_t n = sqrt(ref::dot(X->row(i), X->row(i), d));
      for (std::size_t j = 0; j < d; ++j) (*X)(i, j) /= n;
    }
  ref::AtlasInputs<mp_t> in;
  in.V = gauss<mp_t>(g, L, 2);
  in.alpha.assign(L, mp_t(0.9));
  in.theta.assign(L, mp_t(0.6));
  in.eta.assign(L, mp_t(0.05));
  in.Gamma = MM(L, L);
  for (std::size_t t = 0; t < L; ++t)
    for (std::size_t i = t ? t - 1 : 0; i <= t; ++i) in.Gamma(t, i) = mp_t(0.3);
  in.c = 2;
  ref::FeatureMap f;
  f.kind = ref::FeatureMapKind::exp_trunc;
  f.order = 12;
  in.PhiK = ref::apply_feature_map(f, K);
  in.PhiQ = ref::apply_feature_map(f, Q);
  const ref::AtlasConfig<mp_t> cfg;
  for (auto v : {ref::AtlasVariant::eq32, ref::AtlasVariant::d4}) {
    const auto A = ref::atlas_phi_exp_kernel(K, Q, in, cfg, v), B = ref::atlas_run(in, cfg, v);
    EXPECT_LT(rel(A.Y, B.Y), 1e-8);  // truncation tail ~ 1/13! ~ 1.6e-10 per kernel entry
    f.order = 3;
    in.PhiK = ref::apply_feature_map(f, K);
    in.PhiQ = ref::apply_feature_map(f, Q);
    EXPECT_GT(rel(A.Y, ref::atlas_run(in, cfg, v).Y), 1e-6);  // a short truncation is detected
    f.order = 12;
    in.PhiK = ref::apply_feature_map(f, K);
    in.PhiQ = ref::apply_feature_map(f, Q);
  }
}

}  // namespace
}  // namespace recall
