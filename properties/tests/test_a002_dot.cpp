// reference/dot.hpp (A002-DOT, A002-DOT-LINEAR, A002-DOT-C1, A002-DOT-KERNEL, A002-DOT-C1-TRISOLVE): a hand-computed
// two-token Dot, the kernel form with kappa_P against the explicit truncated phi*_P memory (rank-1 and G_t window
// forms) for c in {1, 2, 3}, convergence of the truncated memory to the exact exp kernel, the triangular solve at 50
// digits, the stored coefficient a_t = 2 eta_t gamma_t (v_t - M_{t-1} phi*(k_t)), the Hebbian reduction to the
// DeepTransformer kernel, and the named errors.
#include "recall/reference/deep_transformer.hpp"
#include "recall/reference/dot.hpp"

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

template <class S = double>
ref::DotInputs<S> instance(std::uint64_t seed, std::size_t L, std::size_t d, std::size_t dv, std::size_t c, double eta = 0.1) {
  std::mt19937_64 g(seed);
  ref::DotInputs<S> in;
  in.Q = gauss<S>(g, L, d, 0.5);
  in.K = gauss<S>(g, L, d, 0.5);
  in.V = gauss<S>(g, L, dv);
  in.eta.assign(L, S(eta));
  std::uniform_real_distribution<double> u(0.0, 1.0);
  in.Gamma = ref::Matrix<S>(L, L);
  for (std::size_t t = 0; t < L; ++t)
    for (std::size_t i = ref::omega_window_begin(t, c); i <= t; ++i) in.Gamma(t, i) = S(u(g));
  in.c = c;
  return in;
}

TEST(A002Dot, HandComputedTwoTokens) {
  ref::DotInputs<double> in;
  in.K = DM(2, 1);
  in.Q = DM(2, 1);
  in.V = DM(2, 1);
  in.K(0, 0) = 0.3;
  in.K(1, 0) = -0.2;
  in.Q(0, 0) = 0.5;
  in.Q(1, 0) = 0.1;
  in.V(0, 0) = 1.5;
  in.V(1, 0) = -0.7;
  in.eta = {0.25, 0.25};
  in.c = 1;
  const double a1 = 2 * 0.25 * 1.5;
  const double a2 = 2 * 0.25 * (-0.7 - a1 * std::exp(0.3 * -0.2));
  const double y1 = a1 * std::exp(0.5 * 0.3);
  const double y2 = a1 * std::exp(0.1 * 0.3) + a2 * std::exp(0.1 * -0.2);
  const auto kr = ref::dot_kernel(in);
  EXPECT_NEAR(kr.A(0, 0), a1, 1e-15);
  EXPECT_NEAR(kr.A(1, 0), a2, 1e-15);
  EXPECT_NEAR(kr.Y(0, 0), y1, 1e-15);
  EXPECT_NEAR(kr.Y(1, 0), y2, 1e-15);
  EXPECT_NEAR(kr.pred(1, 0), a1 * std::exp(-0.06), 1e-15);
  const auto tr = ref::dot_c1_trisolve(in);
  EXPECT_NEAR(tr.A(1, 0), a2, 1e-15);
  EXPECT_NEAR(tr.Y(1, 0), y2, 1e-15);
}

TEST(A002Dot, KernelFormWithKappaPEqualsTruncatedMemory) {
  for (std::size_t c : {1, 2, 3}) {
    const auto in = instance(11 + c, 7, 2, 2, c);
    const int P = 6;
    const auto kr = ref::dot_kernel(in, P);
    const auto rank1 = ref::dot_truncated(in, P);
    const auto win = ref::dot_linear_window(in, P);
    EXPECT_LT(rel(kr.Y, rank1.Y), 1e-12) << "c=" << c;
    EXPECT_LT(rel(kr.Y, win.Y), 1e-12) << "c=" << c;
    // the state is sum_j a_j phi*_P(k_j)^T
    const DM PhiK = ref::exp_feature_monomial_rows(in.K, P);
    DM M(in.V.cols, PhiK.cols);
    for (std::size_t j = 0; j < in.K.rows; ++j) ref::add_outer(M, 1.0, kr.A.row(j), PhiK.row(j));
    EXPECT_LT(rel(M, rank1.state), 1e-12) << "c=" << c;
  }
}

TEST(A002Dot, TruncatedMemoryConvergesToExactKernel) {
  const auto in = instance(5, 6, 2, 2, 2);
  const auto ex = ref::dot_kernel(in);
  const double far = rel(ref::dot_truncated(in, 2).Y, ex.Y), near = rel(ref::dot_truncated(in, 24).Y, ex.Y);
  EXPECT_GT(far, 1e-6);
  EXPECT_LT(near, 1e-12);
}

TEST(A002Dot, TriangularSolveMatchesKernelFormAt50Digits) {
  MpDigitsScope sc(50);
  const auto in = instance<mp_t>(7, 9, 3, 2, 1, 0.2);
  const auto tr = ref::dot_c1_trisolve(in);
  const auto kr = ref::dot_kernel(in);
  EXPECT_LT(rel(tr.Y, kr.Y), 1e-45);
  EXPECT_LT(rel(tr.A, kr.A), 1e-45);
}

TEST(A002Dot, StoredCoefficientIsTheScaledPredictionError) {
  const auto in = instance(9, 8, 2, 3, 1);
  const auto kr = ref::dot_kernel(in);
  for (std::size_t t = 0; t < 8; ++t)
    for (std::size_t e = 0; e < 3; ++e)
      EXPECT_NEAR(kr.A(t, e), 2 * in.eta[t] * in.Gamma(t, t) * (in.V(t, e) - kr.pred(t, e)), 1e-13);
}

TEST(A002Dot, HebbianBiasIsTheDeepTransformer) {
  const auto in = instance(3, 6, 2, 2, 1);
  ref::Vector<double> e2(6), ones(6, 1.0);
  for (std::size_t t = 0; t < 6; ++t) e2[t] = 2 * in.eta[t] * in.Gamma(t, t);
  const DM dt = ref::deep_transformer_kernel(in.Q, in.K, in.V, ones, e2).unscale();
  EXPECT_LT(rel(ref::dot_kernel(in, -1, true).Y, dt), 1e-13);
  EXPECT_GT(rel(ref::dot_kernel(in).Y, dt), 1e-4);  // the quadratic term matters
}

TEST(A002Dot, NamedErrors) {
  auto in = instance(1, 3, 2, 2, 2);
  {
    auto b = in;
    b.K(1, 0) = std::numeric_limits<double>::quiet_NaN();
    EXPECT_NE(error_of([&] { ref::dot_kernel(b); }).find("K"), std::string::npos);
  }
  {
    auto b = in;
    b.eta[2] = -1;
    EXPECT_NE(error_of([&] { ref::dot_kernel(b); }).find("eta[3]"), std::string::npos);
  }
  {
    auto b = in;
    b.c = 0;
    EXPECT_NE(error_of([&] { ref::dot_kernel(b); }).find("window length"), std::string::npos);
  }
  {
    auto b = in;
    b.V = DM(2, 2);
    EXPECT_NE(error_of([&] { ref::dot_kernel(b); }).find("one row per token"), std::string::npos);
  }
  {
    auto b = in;
    b.Gamma = DM(2, 2);
    EXPECT_NE(error_of([&] { ref::dot_kernel(b); }).find("Gamma"), std::string::npos);
  }
  EXPECT_NE(error_of([&] { ref::dot_c1_trisolve(in); }).find("c = 1"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::DotKernel<double>(2, -2); }).find("order"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::dot_truncated(in, -1); }).find("truncation order"), std::string::npos);
}

}  // namespace
}  // namespace recall
