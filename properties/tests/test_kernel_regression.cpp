// References of kernel_regression.hpp (seed 001, Vignette 4: kernels, Gram, explicit polynomial feature map,
// batch prediction by Cholesky, kernel ridge, incremental Cholesky F11): bad input raises
// std::invalid_argument naming the input (a non-positive Schur complement names t), small exact cases, and
// invariants at small sizes (double with RapidCheck shrinking, plus MP cases at 60 digits).
#include "recall/reference/kernel_regression.hpp"
#include "recall/reference/svd.hpp"
#include "mp_test_support.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace recall {
namespace {

using ref::Matrix;
using ref::Vector;
using namespace test_support;

ref::Kernel kern(ref::KernelKind k, double scale = 0, int p = 2) {
  ref::Kernel x;
  x.kind = k;
  x.scale = scale;
  x.degree = p;
  return x;
}

TEST(KernelRegressionReference, BadInputIsAnErrorNamingIt) {
  Matrix<double> K(2, 2), V(2, 1);
  K(0, 0) = 1;
  K(1, 1) = 1;
  const double q[2] = {0.5, std::nan("")};
  EXPECT_NE(error_of([&] { ref::kernel_vector(kern(ref::KernelKind::exponential), K, 2, q); }).find("non-finite entry in q"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::kernel_value(kern(ref::KernelKind::gaussian, 0.0), K.row(0), K.row(1), 2); }).find("bandwidth B"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::kernel_value(kern(ref::KernelKind::polynomial, 0, 0), K.row(0), K.row(1), 2); }).find("degree p"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::kernel_regression_predict(kern(ref::KernelKind::exponential), K, V, 3, K.row(0)); }).find("prefix length t = 3"),
            std::string::npos);
  EXPECT_NE(error_of([&] { ref::kernel_ridge_predict(kern(ref::KernelKind::exponential), K, V, 2, K.row(0), -1.0); }).find("ridge mu"), std::string::npos);
  // exactly repeated key with the Gaussian kernel: G = [[1, 1], [1, 1]] is singular, pivot 2 is exactly 0
  Matrix<double> Kd(2, 2);
  Kd(0, 0) = Kd(1, 0) = 0.3;
  EXPECT_NE(error_of([&] { ref::kernel_regression_predict(kern(ref::KernelKind::gaussian, 1.0), Kd, V, 2, Kd.row(0)); }).find("pivot 2"), std::string::npos);
  ref::IncrementalKernelRegression<double> inc(kern(ref::KernelKind::gaussian, 1.0), 2, 1);
  inc.add(Kd.row(0), V.row(0));
  double s = 1;
  EXPECT_NE(error_of([&] { inc.add(Kd.row(1), V.row(1), &s); }).find("key t = 2"), std::string::npos);
  EXPECT_EQ(s, 0.0);
  EXPECT_EQ(inc.size(), 1u);  // the aborted pair is not stored
  const double vbad[1] = {INFINITY};
  EXPECT_NE(error_of([&] { inc.add(K.row(1), vbad); }).find("value v_2"), std::string::npos);
}

TEST(KernelRegressionReference, SmallExactCases) {
  const double x[2] = {1.0, 2.0}, y[2] = {0.5, -1.0};
  EXPECT_DOUBLE_EQ(ref::kernel_value(kern(ref::KernelKind::polynomial, 0, 3), x, y, 2), -0.125);  // (1 - 1.5)^3
  EXPECT_DOUBLE_EQ(ref::kernel_value(kern(ref::KernelKind::exponential, 1.5), x, y, 2), std::exp(-1.0));
  EXPECT_DOUBLE_EQ(ref::kernel_value(kern(ref::KernelKind::gaussian, 2.0), x, y, 2), std::exp(-(0.25 + 9.0) / 2.0));
  EXPECT_NEAR(ref::kernel_value(kern(ref::KernelKind::exponential), x, y, 2), std::exp(-1.5 / std::sqrt(2.0)), 1e-15);
  EXPECT_EQ(ref::polynomial_feature_dim(2, 2), 6u);
  EXPECT_EQ(ref::polynomial_feature_dim(3, 3), 20u);
  EXPECT_EQ(ref::polynomial_features(x, 2, 2).size(), 6u);
  // one stored pair: m(q) = v k(k, q) / k(k, k)
  Matrix<double> K(1, 2), V(1, 1);
  K(0, 0) = 1;
  V(0, 0) = 2;
  const auto k = kern(ref::KernelKind::gaussian, 1.0);
  const double q[2] = {0.0, 0.0};
  EXPECT_NEAR(ref::kernel_regression_predict(k, K, V, 1, q)[0], 2.0 * std::exp(-1.0), 1e-15);
}

// phi(x)^T phi(y) = (1 + x^T y)^p for the explicit monomial map.
RC_GTEST_PROP(KernelRegressionReference, PolynomialFeatureMapReproducesTheKernel, ()) {
  const auto d = static_cast<std::size_t>(*rc::gen::inRange(1, 5));
  const int p = *rc::gen::inRange(1, 5);
  const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1u << 30);
  std::mt19937_64 g(seed);
  const auto X = gauss(g, 2, d);
  const auto fx = ref::polynomial_features(X.row(0), d, p), fy = ref::polynomial_features(X.row(1), d, p);
  RC_ASSERT(fx.size() == ref::polynomial_feature_dim(d, p));
  double s = 0;
  for (std::size_t i = 0; i < fx.size(); ++i) s += fx[i] * fy[i];
  const double kv = ref::kernel_value(kern(ref::KernelKind::polynomial, 0, p), X.row(0), X.row(1), d);
  RC_ASSERT(std::abs(s - kv) <= 1e-12 * std::max(1.0, std::abs(kv)) * std::pow(3.0, p));
}

// Interpolation, incremental = batch, and the ridgeless limit (MP).
TEST(KernelRegressionReference, InterpolationIncrementalAndRidgeMp) {
  MpDigitsScope sc(60);
  std::mt19937_64 g(3);
  for (int which = 0; which < 3; ++which) {
    const ref::Kernel k = which == 0 ? kern(ref::KernelKind::exponential) : which == 1 ? kern(ref::KernelKind::gaussian, 1.0)
                                                                                      : kern(ref::KernelKind::polynomial, 0, 2);
    const std::size_t T = which == 2 ? 6 : 5;  // polynomial: t <= D_phi = 6 at d = 2
    const auto K = gauss<mp_t>(g, T, 2), V = gauss<mp_t>(g, T, 2), Q = gauss<mp_t>(g, 2, 2);
    ref::IncrementalKernelRegression<mp_t> inc(k, 2, 2);
    for (std::size_t t = 1; t <= T; ++t) {
      inc.add(K.row(t - 1), V.row(t - 1));
      for (std::size_t j = 0; j < t; ++j) EXPECT_LT(relv(ref::kernel_regression_predict(k, K, V, t, K.row(j)), Vector<mp_t>(V.row(j), V.row(j) + 2)), 1e-35);
      EXPECT_LT(relv(inc.predict(Q.row(0)), ref::kernel_regression_predict(k, K, V, t, Q.row(0))), 1e-40);
    }
    const auto L = inc.factor();
    const auto G = ref::kernel_gram(k, K, T);
    EXPECT_LT(static_cast<double>(ref::frob_diff(ref::matmul(L, ref::transpose(L)), G) / ref::frob(G)), 1e-40);
    EXPECT_LT(relv(ref::kernel_ridge_predict(k, K, V, T, Q.row(1), mp_t("1e-45")), ref::kernel_regression_predict(k, K, V, T, Q.row(1))), 1e-20);
  }
}

// Polynomial kernel regression equals the feature-space min-norm least-squares prediction (t <= D_phi).
TEST(KernelRegressionReference, PolynomialKernelIsFeatureSpaceLeastSquares) {
  MpDigitsScope sc(60);
  std::mt19937_64 g(8);
  const auto K = gauss<mp_t>(g, 7, 3), V = gauss<mp_t>(g, 7, 1), q = gauss<mp_t>(g, 1, 3);
  const ref::Kernel k = kern(ref::KernelKind::polynomial, 0, 2);  // D_phi = 10
  const auto Phi = ref::polynomial_feature_rows(K, 7, 2);
  const auto M = ref::matmul(ref::transpose(V), ref::transpose(ref::pinv(Phi)));
  const auto fq = ref::polynomial_features(q.row(0), 3, 2);
  EXPECT_LT(relv(ref::matvec(M, fq.data()), ref::kernel_regression_predict(k, K, V, 7, q.row(0))), 1e-35);
}

}  // namespace
}  // namespace recall
