// Reference header nadaraya_watson.hpp: online / masked softmax forms against the causal definition
// (double forms against the MP oracle at large logits), the Nadaraya-Watson minimiser, QKNorm's
// kernel identity in fp64, and the errors raised on bad input.
#include "recall/reference/nadaraya_watson.hpp"
#include "recall/reference/softmax.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

namespace recall {
namespace {

using ref::Matrix;
using ref::Vector;

Matrix<double> gauss(std::mt19937_64& g, std::size_t r, std::size_t c, double scale = 1.0) {
  std::normal_distribution<double> N(0.0, 1.0);
  Matrix<double> m(r, c);
  for (double& x : m.a) x = scale * N(g);
  return m;
}
double rel_rows(const Matrix<double>& A, const Matrix<mp_t>& B) {
  double worst = 0;
  for (std::size_t t = 0; t < A.rows; ++t) {
    double d = 0, n = 1;
    for (std::size_t c = 0; c < A.cols; ++c) {
      const double b = static_cast<double>(B(t, c));
      d = std::max(d, std::abs(A(t, c) - b));
      n = std::max(n, std::abs(b));
    }
    worst = std::max(worst, d / n);
  }
  return worst;
}

// fp64 online and masked forms stay within a logit-scaled multiple of u of the P-50 definition, with
// logits up to 1e4 (no overflow: both forms subtract the running / row maximum).
RC_GTEST_PROP(T3Softmax, OnlineAndMaskedFormsMatchTheDefinitionAtLargeLogits, ()) {
  const int T = *rc::gen::inRange(1, 40);
  const int dk = *rc::gen::inRange(1, 6);
  const int dv = *rc::gen::inRange(1, 4);
  const int e = *rc::gen::inRange(-3, 5);  // logit scale 10^e
  const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1u << 30);
  std::mt19937_64 g(seed);
  const Matrix<double> Q = gauss(g, T, dk), K = gauss(g, T, dk, std::pow(10.0, e)), V = gauss(g, T, dv);
  const double sc = 1 / std::sqrt(static_cast<double>(dk));
  // logit error scale: sc * sum_j |q_j k_j| (the dot product's rounding), values up to max|v|
  double zabs = 1, vmax = 1;
  for (int t = 0; t < T; ++t)
    for (int i = 0; i <= t; ++i) {
      double a = 0;
      for (int j = 0; j < dk; ++j) a += std::abs(Q(t, j) * K(i, j));
      zabs = std::max(zabs, sc * a);
    }
  for (double x : V.a) vmax = std::max(vmax, std::abs(x));
  MpDigitsScope s(50);
  const Matrix<mp_t> Y = ref::causal_softmax_attention(ref::cast<mp_t>(Q), ref::cast<mp_t>(K), ref::cast<mp_t>(V), mp_t(sc));
  const double u = std::numeric_limits<double>::epsilon() / 2;
  const double tol = 8.0 * (T + dk) * u * zabs * vmax;
  RC_ASSERT(rel_rows(ref::softmax_attention_online(Q, K, V, sc), Y) <= tol);
  RC_ASSERT(rel_rows(ref::softmax_attention_masked(Q, K, V, sc, true), Y) <= tol);
}

TEST(T3Softmax, NadarayaWatsonMinimiserIsStationaryAndBelowPerturbations) {
  MpDigitsScope s(50);
  std::mt19937_64 g(7);
  const Matrix<mp_t> V = ref::cast<mp_t>(gauss(g, 6, 3));
  const Vector<mp_t> w = {mp_t(0.5), mp_t(0), mp_t(2), mp_t(1e-30), mp_t(0), mp_t(3)};
  const Vector<mp_t> m = ref::nw_minimizer(w, V);
  const Vector<mp_t> gr = ref::nw_gradient(w, V, m.data());
  for (const mp_t& x : gr) EXPECT_LE(static_cast<double>(abs(x)), 1e-45);
  const mp_t J0 = ref::nw_objective(w, V, m.data());
  Vector<mp_t> mp = m;
  mp[1] += mp_t(1e-3);
  EXPECT_GT(ref::nw_objective(w, V, mp.data()), J0);
}

TEST(T3Softmax, UnitKeysGaussianAndDotWeightsCoincideInDouble) {
  std::mt19937_64 g(11);
  const std::size_t dk = 16, t = 9;
  const Matrix<double> K = ref::l2_normalize_rows(gauss(g, t, dk), 1.0), q = ref::l2_normalize_rows(gauss(g, 1, dk), 1.0);
  const double tau = 4.0;
  Vector<double> ld(t), lg(t);
  for (std::size_t i = 0; i < t; ++i) {
    ld[i] = ref::log_sim_dot(K.row(i), q.row(0), dk, tau);
    lg[i] = ref::log_sim_gauss(K.row(i), q.row(0), dk, 2 * tau);
  }
  const Vector<double> wd = ref::normalized_weights(ld), wg = ref::normalized_weights(lg);
  for (std::size_t i = 0; i < t; ++i) EXPECT_NEAR(wd[i], wg[i], 1e-14);
}

TEST(T3Softmax, GaussianKernelIsNonIncreasingInDistance) {
  const double q[2] = {0.3, -1.0}, dir[2] = {0.6, 0.8};
  double prev = 2;
  for (double r : {0.0, 1e-9, 0.1, 1.0, 3.0, 30.0}) {
    const double k[2] = {q[0] + r * dir[0], q[1] + r * dir[1]};
    const double s = ref::sim_gauss(k, q, 2, 0.7);
    EXPECT_LE(s, prev);
    prev = s;
  }
}

TEST(T3Softmax, BadInputIsRejectedNamingTheInput) {
  Matrix<double> X(2, 2);
  X(0, 0) = 1;  // row 2 is zero
  EXPECT_THROW(ref::l2_normalize_rows(X, 1.0), std::invalid_argument);
  X(1, 1) = std::nan("");
  EXPECT_THROW(ref::l2_normalize_rows(X, 1.0), std::invalid_argument);
  const double k[1] = {1}, q[1] = {2};
  EXPECT_THROW(ref::log_sim_gauss(k, q, 1, 0.0), std::invalid_argument);
  EXPECT_THROW(ref::log_sim_dot(k, q, 1, -1.0), std::invalid_argument);
  const double big[1] = {1e3};
  EXPECT_THROW(ref::sim_dot(big, big, 1, 1.0), std::invalid_argument);  // exp(1e6) overflows fp64
  const double ninf = -std::numeric_limits<double>::infinity();
  EXPECT_THROW(ref::normalized_weights(Vector<double>{ninf, ninf}), std::invalid_argument);
  EXPECT_THROW(ref::normalized_weights(Vector<double>{0.0, std::nan("")}), std::invalid_argument);
  EXPECT_THROW(ref::normalized_weights(Vector<double>{}), std::invalid_argument);
  Matrix<double> V(2, 1);
  EXPECT_THROW(ref::nw_minimizer(Vector<double>{1.0, -0.5}, V), std::invalid_argument);
  EXPECT_THROW(ref::nw_minimizer(Vector<double>{0.0, 0.0}, V), std::invalid_argument);
  Matrix<double> Q(2, 1), K(2, 1);
  Q(0, 0) = 1e200;
  K(0, 0) = 1e200;  // logit overflows to inf
  EXPECT_THROW(ref::softmax_attention_online(Q, K, V, 1.0), std::invalid_argument);
  EXPECT_THROW(ref::softmax_attention_masked(Q, K, V, 1.0, true), std::invalid_argument);
  Q(0, 0) = 30;
  K(0, 0) = 30;  // fp64 exp(900) overflows in the literal kernel form
  EXPECT_THROW(ref::softmax_kernel_attention_literal(Q, K, V, 1.0), std::invalid_argument);
}

TEST(T3Softmax, LiteralKernelFormMatchesLogSumExpInMultiprecisionAtLogit1e4) {
  MpDigitsScope s(50);
  std::mt19937_64 g(3);
  Matrix<mp_t> Q = ref::cast<mp_t>(gauss(g, 5, 2)), K = ref::cast<mp_t>(gauss(g, 5, 2, 3e3)), V = ref::cast<mp_t>(gauss(g, 5, 2));
  const Matrix<mp_t> A = ref::softmax_kernel_attention_literal(Q, K, V, mp_t(1));
  const Matrix<mp_t> B = ref::causal_softmax_attention(Q, K, V, mp_t(1));
  EXPECT_LE(static_cast<double>(ref::frob_diff(A, B)), 1e-40);
}

}  // namespace
}  // namespace recall
