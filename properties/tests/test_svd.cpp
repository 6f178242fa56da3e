// The reference SVD and pseudo-inverse (reference/svd.hpp): reconstruction, orthonormal factors, singular
// values against known ones, the four Penrose conditions, rank-deficient and zero-row inputs (the weighted
// least-squares problems after a zero gate), and a clear error on non-finite input.
#include "recall/reference/svd.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <random>

namespace recall {
namespace {

using ref::Matrix;

Matrix<mp_t> random_mp(std::size_t m, std::size_t n, std::uint64_t seed, int zero_rows = 0, int rank = -1) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> nd;
  Matrix<mp_t> A(m, n);
  if (rank >= 0) {  // A = B C with B m x rank, C rank x n
    Matrix<mp_t> B(m, rank), C(rank, n);
    for (auto& x : B.a) x = nd(g);
    for (auto& x : C.a) x = nd(g);
    A = ref::matmul(B, C);
  } else {
    for (auto& x : A.a) x = nd(g);
  }
  for (int i = 0; i < zero_rows && i < static_cast<int>(m); ++i)
    for (std::size_t j = 0; j < n; ++j) A(i, j) = 0;
  return A;
}

double mp_err(const Matrix<mp_t>& A, const Matrix<mp_t>& B) { return static_cast<double>(ref::frob_diff(A, B)); }

RC_GTEST_PROP(Svd, FactorsReconstructAndAreOrthonormal, ()) {
  const int m = *rc::gen::inRange(1, 9), n = *rc::gen::inRange(1, 9), zr = *rc::gen::inRange(0, 3);
  const int rank = *rc::gen::inRange(-1, std::min(m, n) + 1);
  const auto seed = *rc::gen::arbitrary<std::uint32_t>();
  MpDigitsScope sc(50);
  const Matrix<mp_t> A = random_mp(m, n, seed, zr, rank);
  const auto d = ref::svd(A);
  const std::size_t r = std::min(m, n);
  RC_ASSERT(d.sigma.size() == r);
  Matrix<mp_t> B(m, n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (std::size_t k = 0; k < r; ++k) B(i, j) += d.U(i, k) * d.sigma[k] * d.V(j, k);
  RC_ASSERT(mp_err(A, B) < 1e-45);
  for (std::size_t k = 0; k + 1 < r; ++k) RC_ASSERT(d.sigma[k] >= d.sigma[k + 1]);
  // V is orthogonal (its columns span R^n when m >= n; with m < n the thin V has orthonormal columns)
  const Matrix<mp_t> VtV = ref::matmul(ref::transpose(d.V), d.V);
  for (std::size_t i = 0; i < r; ++i)
    for (std::size_t j = 0; j < r; ++j)
      if (d.sigma[std::max(i, j)] > mp_t(1e-40)) RC_ASSERT(static_cast<double>(abs(VtV(i, j) - mp_t(i == j ? 1 : 0))) < 1e-45);
}

RC_GTEST_PROP(Svd, PseudoInverseSatisfiesThePenroseConditions, ()) {
  const int m = *rc::gen::inRange(1, 8), n = *rc::gen::inRange(1, 8), zr = *rc::gen::inRange(0, 3);
  const int rank = *rc::gen::inRange(-1, std::min(m, n) + 1);
  const auto seed = *rc::gen::arbitrary<std::uint32_t>();
  MpDigitsScope sc(50);
  const Matrix<mp_t> A = random_mp(m, n, seed, zr, rank);
  std::size_t used = 0;
  const Matrix<mp_t> P = ref::pinv(A, ref::default_rank_tol<mp_t>(std::max(m, n)), &used);
  if (rank >= 0) RC_ASSERT(used <= static_cast<std::size_t>(rank));
  const auto AP = ref::matmul(A, P), PA = ref::matmul(P, A);
  const double scale = 1 + static_cast<double>(ref::frob(A)) * static_cast<double>(ref::frob(P));
  RC_ASSERT(mp_err(ref::matmul(AP, A), A) < 1e-38 * scale);
  RC_ASSERT(mp_err(ref::matmul(PA, P), P) < 1e-38 * scale * scale);
  RC_ASSERT(mp_err(AP, ref::transpose(AP)) < 1e-38 * scale);
  RC_ASSERT(mp_err(PA, ref::transpose(PA)) < 1e-38 * scale);
}

TEST(Svd, KnownSingularValuesAndRank) {
  MpDigitsScope sc(50);
  Matrix<mp_t> A(3, 2);  // columns orthogonal with norms 5 and 2
  A(0, 0) = 3; A(1, 0) = 4;
  A(2, 1) = 2;
  const auto d = ref::svd(A);
  EXPECT_LT(static_cast<double>(abs(d.sigma[0] - 5)), 1e-48);
  EXPECT_LT(static_cast<double>(abs(d.sigma[1] - 2)), 1e-48);
  Matrix<mp_t> Z(2, 3);
  EXPECT_EQ(ref::numerical_rank(ref::svd(Z).sigma, mp_t(1e-40)), 0u);
}

TEST(Svd, NonFiniteInputIsAnErrorNamingTheEntry) {
  Matrix<double> A(2, 2);
  A(1, 0) = std::numeric_limits<double>::quiet_NaN();
  try {
    ref::svd(A);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("(2, 1)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace recall
