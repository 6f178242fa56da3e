// reference/optimal_memory.hpp (A000-DELTANET-OPT, A000-DELTANET-OPT-SQ, A000-MULTIHEAD-OPT, A000-ICL-CONV): the
// Eq. 115 gradient against 50-digit central differences of the Eq. 45 objective (and a gradient without Sigma
// failing the same comparison), stationarity of Eq. 46 and a perturbed memory that is not stationary, the exact
// excess loss of a perturbation, Eq. 47 = Eq. 46 for square W_k, the solve-based pseudo-inverse against the SVD one
// and the Penrose conditions, Eq. 48 = Eq. 46 only in the structured cases, the named errors, and the DeltaNet step
// as ref::delta_rule on one token.
#include "recall/reference/delta_rule.hpp"
#include "recall/reference/memory_objectives.hpp"
#include "recall/reference/optimal_memory.hpp"
#include "recall/reference/svd.hpp"

#include "mp_test_support.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>

namespace recall {
namespace {

using test_support::error_of;
using test_support::gauss;
using test_support::rel;
using MM = ref::Matrix<mp_t>;

// Sigma = B B^T + I/2 (symmetric positive definite, exactly symmetric)
template <class S> ref::Matrix<S> spd(std::mt19937_64& g, std::size_t d) {
  const ref::Matrix<S> B = gauss<S>(g, d, d);
  ref::Matrix<S> A(d, d);
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j <= i; ++j) {
      S s = i == j ? S(0.5) : S(0);
      for (std::size_t k = 0; k < d; ++k) s += B(i, k) * B(j, k);
      A(i, j) = A(j, i) = s;
    }
  return A;
}
struct Problem {
  MM Wk, Wv, Sigma;
};
Problem problem(std::uint64_t seed, std::size_t d, std::size_t dh, std::size_t dv) {
  std::mt19937_64 g(seed);
  return {gauss<mp_t>(g, dh, d), gauss<mp_t>(g, dv, d), spd<mp_t>(g, d)};
}
// ||grad L(S)||_F / ((||S|| ||W_k|| + ||W_v||) ||Sigma|| ||W_k||)
double grad_rel(const MM& S, const Problem& p) {
  return static_cast<double>(mp_t(ref::frob(ref::expected_memory_loss_grad(S, p.Wk, p.Wv, p.Sigma)) /
                                  ((ref::frob(S) * ref::frob(p.Wk) + ref::frob(p.Wv)) * ref::frob(p.Sigma) * ref::frob(p.Wk))));
}
// |central difference along E - <G, E>| / (||G|| ||E||)
double fd_gap(const Problem& p, const MM& S, const MM& E, const MM& G) {
  const mp_t h("1e-10");
  const mp_t fd = (ref::expected_memory_loss(ref::add(S, E, h), p.Wk, p.Wv, p.Sigma) - ref::expected_memory_loss(ref::add(S, E, mp_t(-h)), p.Wk, p.Wv, p.Sigma)) / (2 * h);
  return static_cast<double>(mp_t(abs(mp_t(fd - ref::frob_inner(G, E))) / (ref::frob(G) * ref::frob(E))));
}

TEST(OptimalMemory, GradientEq115MatchesCentralDifferencesAt50Digits) {
  MpDigitsScope sc(50);
  const Problem p = problem(1, 5, 2, 3);
  std::mt19937_64 g(2);
  const MM S = gauss<mp_t>(g, 3, 2);
  const MM G = ref::expected_memory_loss_grad(S, p.Wk, p.Wv, p.Sigma);
  for (int k = 0; k < 3; ++k) EXPECT_LT(fd_gap(p, S, gauss<mp_t>(g, 3, 2), G), 1e-35);
  // a gradient without Sigma, (S W_k - W_v) W_k^T, fails the same comparison
  MM R = ref::matmul(S, p.Wk);
  for (std::size_t i = 0; i < R.a.size(); ++i) R.a[i] -= p.Wv.a[i];
  EXPECT_GT(fd_gap(p, S, gauss<mp_t>(g, 3, 2), ref::matmul(R, ref::transpose(p.Wk))), 1e-3);
}

TEST(OptimalMemory, Eq46IsStationaryAndAPerturbedMemoryIsNot) {
  MpDigitsScope sc(50);
  const Problem p = problem(3, 6, 3, 2);
  const MM S = ref::optimal_memory(p.Wk, p.Wv, p.Sigma);
  EXPECT_LT(grad_rel(S, p), 1e-45);
  std::mt19937_64 g(4);
  const MM E = gauss<mp_t>(g, 2, 3);
  const MM Sp = ref::add(S, E, mp_t("1e-20"));
  EXPECT_GT(grad_rel(Sp, p), 1e-25);
  // L(S* + E) - L(S*) = 1/2 tr(E A E^T), A = W_k Sigma W_k^T (Eq. 45 is quadratic with Hessian A)
  const MM A = ref::matmul(ref::matmul(p.Wk, p.Sigma), ref::transpose(p.Wk));
  const mp_t excess = ref::expected_memory_loss(ref::add(S, E), p.Wk, p.Wv, p.Sigma) - ref::expected_memory_loss(S, p.Wk, p.Wv, p.Sigma);
  const mp_t quad = ref::trace(ref::matmul(ref::matmul(E, A), ref::transpose(E))) / 2;
  EXPECT_GT(quad, mp_t(0));
  EXPECT_LT(static_cast<double>(mp_t(abs(mp_t(excess - quad)) / quad)), 1e-40);
}

TEST(OptimalMemory, DoubleInstantiationIsStationaryToRounding) {
  std::mt19937_64 g(5);
  const auto Wk = gauss<double>(g, 3, 8), Wv = gauss<double>(g, 4, 8);
  const auto Sigma = spd<double>(g, 8);
  const auto S = ref::optimal_memory(Wk, Wv, Sigma);
  const auto G = ref::expected_memory_loss_grad(S, Wk, Wv, Sigma);
  EXPECT_LT(ref::frob(G) / ((ref::frob(S) * ref::frob(Wk) + ref::frob(Wv)) * ref::frob(Sigma) * ref::frob(Wk)), 1e-14);
}

TEST(OptimalMemory, Eq47EqualsEq46ForSquareInvertibleWk) {
  MpDigitsScope sc(50);
  const Problem p = problem(6, 4, 4, 5);
  const MM S47 = ref::optimal_memory_square(p.Wk, p.Wv), S46 = ref::optimal_memory(p.Wk, p.Wv, p.Sigma);
  EXPECT_LT(rel(S47, S46), 1e-40);
  EXPECT_LT(rel(ref::matmul(S47, p.Wk), p.Wv), 1e-45);  // S W_k = W_v
}

TEST(OptimalMemory, PseudoInverseBySolveIsTheMoorePenroseInverse) {
  MpDigitsScope sc(50);
  std::mt19937_64 g(7);
  const MM W = gauss<mp_t>(g, 3, 7);
  const MM P = ref::pinv_full_row_rank(W);
  EXPECT_LT(rel(P, ref::pinv(W)), 1e-40);                              // the SVD pseudo-inverse
  EXPECT_LT(rel(ref::matmul(ref::matmul(W, P), W), W), 1e-45);          // W P W = W
  EXPECT_LT(rel(ref::matmul(ref::matmul(P, W), P), P), 1e-45);          // P W P = P
  const MM WP = ref::matmul(W, P), PW = ref::matmul(P, W);
  EXPECT_LT(rel(WP, ref::transpose(WP)), 1e-45);                        // (W P)^T = W P
  EXPECT_LT(rel(PW, ref::transpose(PW)), 1e-45);                        // (P W)^T = P W
  EXPECT_LT(rel(WP, ref::identity_matrix<mp_t>(3)), 1e-45);             // full row rank: W P = I
}

TEST(OptimalMemory, Eq48EqualsEq46OnlyInTheStructuredCases) {
  MpDigitsScope sc(50);
  Problem p = problem(8, 5, 2, 3);
  EXPECT_GT(rel(ref::optimal_memory_multihead(p.Wk, p.Wv, p.Sigma), ref::optimal_memory(p.Wk, p.Wv, p.Sigma)), 1e-3);  // generic d_h < d
  EXPECT_GT(grad_rel(ref::optimal_memory_multihead(p.Wk, p.Wv, p.Sigma), p), 1e-3);
  p.Sigma = ref::identity_matrix<mp_t>(5);  // Sigma = I: both are W_v W_k^+
  EXPECT_LT(rel(ref::optimal_memory_multihead(p.Wk, p.Wv, p.Sigma), ref::optimal_memory(p.Wk, p.Wv, p.Sigma)), 1e-40);
  const Problem q = problem(9, 4, 4, 3);  // d_h = d: both are W_v W_k^{-1}
  EXPECT_LT(rel(ref::optimal_memory_multihead(q.Wk, q.Wv, q.Sigma), ref::optimal_memory(q.Wk, q.Wv, q.Sigma)), 1e-40);
}

TEST(OptimalMemory, BadInputRaisesErrorsNamingTheInput) {
  std::mt19937_64 g(10);
  auto Wk = gauss<double>(g, 2, 4);
  const auto Wv = gauss<double>(g, 3, 4);
  const auto Sigma = spd<double>(g, 4);
  for (std::size_t j = 0; j < 4; ++j) Wk(1, j) = 2 * Wk(0, j);  // rank 1: W_k Sigma W_k^T singular
  const std::string sing = error_of([&] { ref::optimal_memory(Wk, Wv, Sigma); });
  EXPECT_NE(sing.find("W_k Sigma W_k^T"), std::string::npos) << sing;
  EXPECT_NE(sing.find("Eq. 46 is undefined"), std::string::npos) << sing;
  EXPECT_NE(error_of([&] { ref::pinv_full_row_rank(Wk); }).find("full row rank"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::optimal_memory(gauss<double>(g, 2, 4), Wv, spd<double>(g, 3)); }).find("Sigma"), std::string::npos);
  auto asym = Sigma;
  asym(0, 1) += 1;
  EXPECT_NE(error_of([&] { ref::optimal_memory(gauss<double>(g, 2, 4), Wv, asym); }).find("not symmetric"), std::string::npos);
  auto nan = Sigma;
  nan(2, 2) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(error_of([&] { ref::expected_memory_loss_grad(ref::Matrix<double>(3, 2), gauss<double>(g, 2, 4), Wv, nan); }).find("Sigma is not finite"),
            std::string::npos);
  auto sq = gauss<double>(g, 4, 4);
  for (std::size_t j = 0; j < 4; ++j) sq(3, j) = sq(0, j) + sq(1, j);
  EXPECT_NE(error_of([&] { ref::optimal_memory_square(sq, Wv); }).find("W_k is singular"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::optimal_memory_square(gauss<double>(g, 2, 4), Wv); }).find("square"), std::string::npos);
}

TEST(OptimalMemory, DeltaNetStepIsTheDeltaRuleOnOneToken) {
  std::mt19937_64 g(11);
  const auto K = gauss<double>(g, 6, 3), V = gauss<double>(g, 6, 2);
  const ref::Vector<double> beta{0.3, 1.0, 0.01, 0.7, 1.9, 0.5};
  ref::Matrix<double> M(2, 3);
  ref::Vector<double> pred;
  for (std::size_t t = 0; t < 6; ++t) ref::deltanet_step(M, K.row(t), V.row(t), beta[t], pred);
  const auto r = ref::delta_rule(K, K, V, beta);
  EXPECT_EQ(M.a, r.state.a);
  // one step by hand: M <- M - beta (M k - v) k^T
  ref::Matrix<double> M1 = M;
  ref::deltanet_step(M1, K.row(0), V.row(0), 0.25, pred);
  for (std::size_t i = 0; i < 2; ++i) {
    double e = -V(0, i);
    for (std::size_t j = 0; j < 3; ++j) e += M(i, j) * K(0, j);
    for (std::size_t j = 0; j < 3; ++j) EXPECT_NEAR(M1(i, j), M(i, j) - 0.25 * e * K(0, j), 1e-14);
  }
}

}  // namespace
}  // namespace recall
