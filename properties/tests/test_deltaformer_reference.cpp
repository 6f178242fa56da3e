// DeltaFormer reference header (deltaformer.hpp): tie rule of the round kernel, bad-input errors,
// and double-precision agreement of the forms (the 50-digit identities are the ledger's A000 checks).
#include "recall/reference/deltaformer.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

namespace recall {
namespace {

using DM = ref::Matrix<double>;

DM randn(std::mt19937_64& g, std::size_t r, std::size_t c, double s = 1.0) {
  std::normal_distribution<double> N(0, 1);
  DM m(r, c);
  for (double& x : m.a) x = s * N(g);
  return m;
}
double max_abs_diff(const DM& a, const DM& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.a.size(); ++i) m = std::max(m, std::fabs(a.a[i] - b.a[i]));
  return m;
}

TEST(DeltaFormerRef, RoundKernelIsHalfToEven) {
  EXPECT_EQ(ref::round_half_even(0.5), 0.0);
  EXPECT_EQ(ref::round_half_even(1.5), 2.0);
  EXPECT_EQ(ref::round_half_even(2.5), 2.0);
  EXPECT_EQ(ref::round_half_even(-0.5), 0.0);
  EXPECT_EQ(ref::round_half_even(-1.5), -2.0);
  EXPECT_EQ(ref::round_half_even(0.005), 0.0);
  EXPECT_EQ(ref::round_half_even(-2.7), -3.0);
  MpDigitsScope sc(50);
  EXPECT_EQ(ref::round_half_even(mp_t(3.5)), mp_t(4));
  EXPECT_EQ(ref::round_half_even(mp_t(-2.5)), mp_t(-2));
}

TEST(DeltaFormerRef, BadInputThrows) {
  std::mt19937_64 g(1);
  DM K = randn(g, 4, 3), V = randn(g, 4, 2), W = randn(g, 3, 3);
  EXPECT_THROW(ref::deltaformer_u_recursion(ref::DfKernel::exp, K, W, V, 1.0), std::invalid_argument);  // T mismatch
  DM Kn = K;
  Kn(2, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(ref::deltaformer_u_recursion(ref::DfKernel::linear, Kn, Kn, V, 1.0), std::invalid_argument);
  EXPECT_THROW(ref::deltaformer_u_recursion(ref::DfKernel::linear, K, K, V, 0.0), std::invalid_argument);  // tau = 0
  EXPECT_THROW(ref::deltaformer_chunked_listing1(K, V, 0, 1.0, 1.0, false), std::invalid_argument);
  EXPECT_THROW(ref::deltaformer_norm_u(Kn, V, 1.0), std::invalid_argument);
  DM A(3, 3);
  A(2, 0) = 1;  // not topologically ordered (lower entry)
  EXPECT_THROW(ref::dag_inverse(A, -1.0), std::invalid_argument);
  ref::ToyAttentionParams<double> p;
  p.dim = 12;
  p.hq = 5;  // 12 not divisible by 5
  p.hkv = 1;
  EXPECT_THROW(ref::toy_delta_attention(p, ref::ToyK1::linear, ref::ToyK2::linear, randn(g, 2, 12), false), std::invalid_argument);
}

TEST(DeltaFormerRef, FormsAgreeInDouble) {
  std::mt19937_64 g(7);
  const std::size_t T = 37, d = 4;
  const DM K = randn(g, T, d), V = randn(g, T, 3);
  const double s = 0.5;
  const DM naive = ref::deltaformer_norm_u(K, V, s);
  EXPECT_LT(max_abs_diff(ref::deltaformer_chunked_listing1(K, V, 8, s, s, false), naive), 1e-12);
  EXPECT_LT(max_abs_diff(ref::unit_lower_solve(ref::softmax_sim_matrix(K, s), V), naive), 1e-12);
  // L1-literal leaves the tail rows (T mod C) at zero
  const DM lit = ref::deltaformer_chunked_listing1(K, V, 8, s, s, true);
  for (std::size_t t = 32; t < T; ++t)
    for (std::size_t c = 0; c < 3; ++c) EXPECT_EQ(lit(t, c), 0.0);
  const DM U1 = ref::deltaformer_u_recursion(ref::DfKernel::exp, K, K, V, 2.0);
  EXPECT_LT(max_abs_diff(ref::deltaformer_chunked_gen(ref::DfKernel::exp, K, K, V, 2.0, 5), U1), 1e-9);
}

TEST(DeltaFormerRef, ProductFormAndDoublingInvert) {
  std::mt19937_64 g(3);
  for (std::size_t C : {1u, 2u, 3u, 7u, 16u, 64u}) {
    DM A = randn(g, C, C, 0.2);
    for (std::size_t i = 0; i < C; ++i)
      for (std::size_t j = i; j < C; ++j) A(i, j) = 0;
    const DM ref_inv = ref::unit_lower_solve(A, ref::identity_matrix<double>(C));
    EXPECT_LT(max_abs_diff(ref::triinv_product(A), ref_inv), 1e-12) << "C=" << C;
    EXPECT_LT(max_abs_diff(ref::triinv_doubling(A), ref_inv), 1e-12) << "C=" << C;
  }
}

TEST(DeltaFormerRef, S5DataLabelsAreFirstPosition) {
  std::mt19937_64 g(42);
  const auto data = ref::generate_s5_data(16, 50, g);
  ASSERT_EQ(data.size(), 50u);
  for (const auto& s : data) {
    ASSERT_EQ(s.input_ids.size(), 16u);
    for (int x : s.input_ids) EXPECT_TRUE(x >= 0 && x < 10);
    for (int y : s.labels) EXPECT_TRUE(y >= 0 && y < 5);
  }
}

}  // namespace
}  // namespace recall
