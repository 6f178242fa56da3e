// References of full_batch_gd.hpp (seed 001, Vignette 3: streaming LS loss and gradient, the four printed
// lines of full-batch GD, the F07 closed forms, the Hessian and the preconditioned steps): bad input raises
// std::invalid_argument naming the input, small exact cases, and invariants at small sizes (double with
// RapidCheck shrinking, plus MP cases at 40 digits).
#include "recall/reference/full_batch_gd.hpp"
#include "recall/reference/linear_attention.hpp"
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

double lambda_max(const Matrix<double>& S) {
  return ref::svd(S).sigma[0];
}

TEST(FullBatchGdReference, BadInputIsAnErrorNamingIt) {
  Matrix<double> K(2, 2), V(2, 1), M(1, 2);
  K(0, 0) = 1;
  K(1, 1) = 1;
  EXPECT_NE(error_of([&] { ref::streaming_ls_loss(M, K, V, 3); }).find("prefix length t = 3"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::streaming_ls_grad_sum(M, K, V, 0); }).find("prefix length t = 0"), std::string::npos);
  Matrix<double> Mbad(2, 2);
  EXPECT_NE(error_of([&] { ref::streaming_ls_grad_matrix(Mbad, K, V, 2); }).find("M must be d_v x d_k"), std::string::npos);
  Matrix<double> Kn = K;
  Kn(1, 0) = std::nan("");
  EXPECT_NE(error_of([&] { ref::fullbatch_gd_step(ref::GdLine::eq20, M, Kn, V, 2, 0.5); }).find("non-finite entry in K at row 2"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::fullbatch_gd(K, V, 2, Vector<double>{0.5, INFINITY}); }).find("beta^(2)"), std::string::npos);
  // singular key Gram where a solve is required
  EXPECT_NE(error_of([&] { ref::hessian_preconditioned_step(M, K, V, 1); }).find("singular"), std::string::npos);
  Matrix<double> Kd(2, 2);  // duplicate keys: S_2 singular
  Kd(0, 0) = Kd(1, 0) = 1;
  EXPECT_NE(error_of([&] { ref::hessian_preconditioned_step(M, Kd, V, 2); }).find("singular"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::fullbatch_gd_closed_inverse(Kd, V, 2, 0.5, 3); }).find("singular"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::precond_interpolated(K, 2, 1.5); }).find("omega"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::precond_interpolated(Kd, 2, 1.0); }).find("singular"), std::string::npos);
  Matrix<double> C(3, 3);
  EXPECT_NE(error_of([&] { ref::preconditioned_one_step(K, V, 2, C); }).find("C must be d_k x d_k"), std::string::npos);
}

TEST(FullBatchGdReference, SmallExactCases) {
  // one key e1 with value 3: L(M) = (3 - m11)^2 / 2, grad = (m11 - 3, 0); GD with beta = 1/2 halves the error
  Matrix<double> K(1, 2), V(1, 1), M(1, 2);
  K(0, 0) = 1;
  V(0, 0) = 3;
  M(0, 0) = 1;
  EXPECT_DOUBLE_EQ(ref::streaming_ls_loss(M, K, V, 1), 2.0);
  const auto G = ref::streaming_ls_grad_matrix(M, K, V, 1);
  EXPECT_DOUBLE_EQ(G(0, 0), -2.0);
  EXPECT_DOUBLE_EQ(G(0, 1), 0.0);
  const auto M1 = ref::fullbatch_gd_step(ref::GdLine::eq23, M, K, V, 1, 0.5);
  EXPECT_DOUBLE_EQ(M1(0, 0), 2.0);
  // constant step filter: f(lambda) = (1 - (1 - beta lambda)^I) / lambda; f(0) = I beta
  const Vector<double> b(4, 0.25);
  EXPECT_DOUBLE_EQ(ref::gd_filter(0.0, b), 1.0);
  EXPECT_NEAR(ref::gd_filter(2.0, b), (1 - std::pow(0.5, 4)) / 2.0, 1e-15);
  // Kronecker Hessian of a 2-d key with d_v = 2: S (x) I_2
  Matrix<double> K2(1, 2);
  K2(0, 0) = 1;
  K2(0, 1) = 2;
  const auto H = ref::ls_hessian_kron(K2, 1, 2);
  EXPECT_DOUBLE_EQ(H(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(H(1, 1), 1.0);
  EXPECT_DOUBLE_EQ(H(0, 2), 2.0);
  EXPECT_DOUBLE_EQ(H(1, 3), 2.0);
  EXPECT_DOUBLE_EQ(H(0, 1), 0.0);
  EXPECT_DOUBLE_EQ(H(3, 3), 4.0);
}

// The two gradient expressions of Eq. (19) agree and match central differences of the loss.
TEST(FullBatchGdReference, GradientFormsAndFiniteDifferences) {
  std::mt19937_64 g(11);
  for (std::size_t dk : {1, 2, 3}) {
    const auto K = gauss(g, 5, dk), V = gauss(g, 5, 2), M = gauss(g, 2, dk);
    for (std::size_t t = 1; t <= 5; ++t) {
      const auto Gs = ref::streaming_ls_grad_sum(M, K, V, t), Gm = ref::streaming_ls_grad_matrix(M, K, V, t);
      EXPECT_LT(rel(Gs, Gm), 1e-13);
      Matrix<double> Gfd(M.rows, M.cols), X = M;
      for (std::size_t a = 0; a < M.a.size(); ++a) {
        const double h = 1e-3;
        X.a[a] = M.a[a] + h;
        const double lp = ref::streaming_ls_loss(X, K, V, t);
        X.a[a] = M.a[a] - h;
        const double lm = ref::streaming_ls_loss(X, K, V, t);
        X.a[a] = M.a[a];
        Gfd.a[a] = (lp - lm) / (2 * h);
      }
      EXPECT_LT(rel(Gfd, Gs), 1e-9);
    }
  }
}

// The four printed lines (20)-(23) agree (double, any steps including expansive ones).
RC_GTEST_PROP(FullBatchGdReference, FourLinesAgree, ()) {
  const auto dk = static_cast<std::size_t>(*rc::gen::inRange(1, 5));
  const auto dv = static_cast<std::size_t>(*rc::gen::inRange(1, 4));
  const auto T = static_cast<std::size_t>(*rc::gen::inRange(1, 8));
  const auto I = static_cast<std::size_t>(*rc::gen::inRange(1, 6));
  const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1u << 30);
  const double c = *rc::gen::element(0.3, 1.0, 1.9, 2.4);
  std::mt19937_64 g(seed);
  const auto K = gauss(g, T, dk), V = gauss(g, T, dv);
  const double lm = lambda_max(ref::gd_key_gram(K, T));
  RC_PRE(lm > 1e-6);
  const Vector<double> b(I, c / lm);
  const auto m23 = ref::fullbatch_gd(K, V, T, b, ref::GdLine::eq23);
  for (ref::GdLine l : {ref::GdLine::eq20, ref::GdLine::eq21, ref::GdLine::eq22}) RC_ASSERT(rel(ref::fullbatch_gd(K, V, T, b, l), m23) < 1e-10);
}

// F07 closed forms equal the iteration (MP, variable and constant steps, singular S_t for t < d_k).
TEST(FullBatchGdReference, ClosedFormsEqualTheIterationMp) {
  MpDigitsScope sc(40);
  std::mt19937_64 g(5);
  for (std::size_t t : {2, 6}) {
    const auto Kd = gauss(g, 6, 3), Vd = gauss(g, 6, 2);
    const auto K = ref::cast<mp_t>(Kd), V = ref::cast<mp_t>(Vd);
    const mp_t lm(lambda_max(ref::gd_key_gram(Kd, t)));
    Vector<mp_t> var, con(25, mp_t(1) / lm);
    std::uniform_real_distribution<double> U(0.0, 1.9);
    for (int i = 0; i < 25; ++i) var.push_back(mp_t(U(g)) / lm);
    const auto itv = ref::fullbatch_gd(K, V, t, var), itc = ref::fullbatch_gd(K, V, t, con);
    EXPECT_LT(rel(ref::fullbatch_gd_closed_sum(K, V, t, var), itv), 1e-32);
    EXPECT_LT(rel(ref::fullbatch_gd_closed_spectral(K, V, t, var), itv), 1e-32);
    EXPECT_LT(rel(ref::fullbatch_gd_closed_horner(K, V, t, con[0], 25), itc), 1e-32);
    if (t >= 3) {
      EXPECT_LT(rel(ref::fullbatch_gd_closed_inverse(K, V, t, con[0], 25), itc), 1e-28);
    }
  }
}

// I = 1, beta = 1 from 0 is the linear-attention state R_t; C = I and C = S_t^{-1} are the two extremes;
// the Newton step from any start gives R_t S_t^{-1}; the Kronecker Hessian acts as E -> E S_t.
TEST(FullBatchGdReference, OneStepReadingsAndNewton) {
  MpDigitsScope sc(40);
  std::mt19937_64 g(9);
  const auto K = gauss<mp_t>(g, 7, 3), V = gauss<mp_t>(g, 7, 2);
  for (std::size_t t = 1; t <= 7; ++t) {
    const auto la = ref::linear_attention(K, K, V);
    const auto m1 = ref::fullbatch_gd(K, V, t, Vector<mp_t>{mp_t(1)}, ref::GdLine::eq21);
    EXPECT_LT(rel(m1, ref::gd_cross_moment(K, V, t)), 1e-38);
    EXPECT_LT(rel(ref::preconditioned_one_step(K, V, t, ref::eye<mp_t>(3)), m1), 1e-38);
    if (t == 7) {
      EXPECT_LT(rel(la.state, m1), 1e-38);
    }
  }
  const std::size_t t = 7;
  const auto S = ref::gd_key_gram(K, t), R = ref::gd_cross_moment(K, V, t);
  const auto target = ref::right_solve(R, S);
  const auto M0 = gauss<mp_t>(g, 2, 3, 100.0);
  EXPECT_LT(rel(ref::hessian_preconditioned_step(M0, K, V, t), target), 1e-33);
  EXPECT_LT(rel(ref::preconditioned_one_step(K, V, t, ref::solve(S, ref::eye<mp_t>(3))), target), 1e-35);
  EXPECT_LT(rel(ref::preconditioned_one_step(K, V, t, ref::precond_interpolated(K, t, mp_t(1))), target), 1e-35);
  const auto E = gauss<mp_t>(g, 2, 3);
  const auto H = ref::ls_hessian_kron(K, t, 2);
  const auto ES = ref::ls_hessian_apply(E, K, t);
  Matrix<mp_t> vE(6, 1), vES(6, 1);
  for (std::size_t c = 0; c < 6; ++c) {
    vE(c, 0) = E(c % 2, c / 2);
    vES(c, 0) = ES(c % 2, c / 2);
  }
  EXPECT_LT(rel(ref::matmul(H, vE), vES), 1e-38);
}

// Constant-step GD from 0 with beta = 1/lambda_max converges to the min-norm LS solution when S_t is singular.
TEST(FullBatchGdReference, ConvergesToMinNormSolution) {
  MpDigitsScope sc(40);
  std::mt19937_64 g(21);
  const auto Kd = gauss(g, 2, 4), Vd = gauss(g, 2, 3);  // t = 2 < d_k = 4
  const auto K = ref::cast<mp_t>(Kd), V = ref::cast<mp_t>(Vd);
  const auto S = ref::gd_key_gram(K, 2), R = ref::gd_cross_moment(K, V, 2);
  const auto sv = ref::svd(S);
  const mp_t beta = mp_t(1) / sv.sigma[0];
  Matrix<mp_t> M(3, 4);
  for (int i = 0; i < 3000; ++i) M = ref::gd_step_from_moments(M, S, R, beta);
  const auto target = ref::matmul(ref::transpose(V), ref::transpose(ref::pinv(K)));
  EXPECT_LT(rel(M, target), 1e-25);
}

}  // namespace
}  // namespace recall
