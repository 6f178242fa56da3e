// References of short_conv_mqar.hpp (paper A001 §6): the short convolution (A001-SHORTCONV: Eq. 56, zero
// padding, index-corrected look-back), the MQAR context generator and layout and the construction's read-out
// (58) with its layer form (57) (A001-MQAR-CONSTRUCTION), the count factor (A001-MQAR-COUNT-FACTOR), the LS
// variant (A001-MQAR-LS-VARIANT: Eq. 11 pseudo-inverse form and min-norm form), decoding
// (A001-MQAR-LENGTH-INDEPENDENCE), coherence and the Welch bound (A001-MQAR-ORTHOGONALITY-LIMIT); bad input
// raises std::invalid_argument naming the input.
#include "recall/reference/short_conv_mqar.hpp"
#include "mp_test_support.hpp"

#include <boost/multiprecision/gmp.hpp>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace recall {
namespace {

using ref::Matrix;
using ref::Vector;
using namespace test_support;
using Q = boost::multiprecision::mpq_rational;

double max_abs_diff(const Matrix<double>& a, const Matrix<double>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.a.size(); ++i) m = std::max(m, std::fabs(a.a[i] - b.a[i]));
  return m;
}
template <class S> Matrix<S> onehot(std::size_t P, std::size_t d) {
  Matrix<S> E(d, 2 * P);
  for (std::size_t j = 0; j < 2 * P; ++j) E(j, j) = S(1);
  return E;
}
Matrix<double> unit_columns(std::mt19937_64& g, std::size_t d, std::size_t n) {
  Matrix<double> E = gauss(g, d, n);
  for (std::size_t j = 0; j < n; ++j) {
    double s = 0;
    for (std::size_t i = 0; i < d; ++i) s += E(i, j) * E(i, j);
    for (std::size_t i = 0; i < d; ++i) E(i, j) /= std::sqrt(s);
  }
  return E;
}

// ---- short convolution ---------------------------------------------------------------------------

TEST(ShortConvReference, MatchesToeplitzFormAndIdentityOverload) {
  std::mt19937_64 g(11);
  for (std::size_t T : {1, 2, 5, 9})
    for (std::size_t K : {1, 2, 3, 12}) {
      const auto X = gauss(g, T, 3), W = gauss(g, 2, 3), wm = gauss(g, 1, K);
      const Vector<double> w(wm.a.begin(), wm.a.end());
      const auto k = ref::short_conv(X, W, w);
      const auto k2 = ref::matmul(ref::short_conv_toeplitz(w, T), ref::matmul(X, ref::transpose(W)));
      EXPECT_LT(max_abs_diff(k, k2), 1e-12) << "T=" << T << " K=" << K;
      Matrix<double> I(3, 3);
      for (std::size_t i = 0; i < 3; ++i) I(i, i) = 1;
      EXPECT_LT(max_abs_diff(ref::short_conv(X, w), ref::short_conv(X, I, w)), 1e-12);
    }
}

TEST(ShortConvReference, OneHotFilterLooksBackWithZeroPadding) {
  std::mt19937_64 g(12);
  const std::size_t T = 6, K = 4;
  const auto X = gauss(g, T, 2), W = gauss(g, 3, 2);
  for (std::size_t i = 0; i < K; ++i) {
    const auto k = ref::short_conv(X, W, ref::lookback_filter<double>(i, K));
    for (std::size_t t = 0; t < T; ++t) {
      const Vector<double> expect = t >= i ? ref::matvec(W, X.row(t - i)) : Vector<double>(3, 0.0);
      for (std::size_t j = 0; j < 3; ++j) EXPECT_EQ(k(t, j), expect[j]) << "i=" << i << " t=" << t + 1;
    }
  }
  // the printed reading "w_0 = i" scales the current token instead of looking back
  Vector<double> printed(K, 0.0);
  printed[0] = 2;
  const auto kp = ref::short_conv(X, W, printed), kl = ref::short_conv(X, W, ref::lookback_filter<double>(2, K));
  EXPECT_GT(max_abs_diff(kp, kl), 1e-3);
}

TEST(ShortConvReference, IsCausal) {
  std::mt19937_64 g(13);
  const auto X = gauss(g, 7, 3), W = gauss(g, 2, 3), wm = gauss(g, 1, 3);
  const Vector<double> w(wm.a.begin(), wm.a.end());
  const auto k = ref::short_conv(X, W, w);
  for (std::size_t t0 = 0; t0 + 1 < 7; ++t0) {
    auto Xp = X;
    for (std::size_t t = t0 + 1; t < 7; ++t)
      for (std::size_t j = 0; j < 3; ++j) Xp(t, j) += 1.5;
    const auto kp = ref::short_conv(Xp, W, w);
    for (std::size_t t = 0; t <= t0; ++t)
      for (std::size_t j = 0; j < 2; ++j) EXPECT_EQ(k(t, j), kp(t, j));
  }
}

TEST(ShortConvReference, BadInputIsAnErrorNamingIt) {
  Matrix<double> X(3, 2), W(2, 2), Wbad(2, 3);
  EXPECT_NE(error_of([&] { ref::short_conv(X, W, Vector<double>{}); }).find("at least one tap"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::short_conv(X, Wbad, Vector<double>{1.0}); }).find("W_K"), std::string::npos);
  X(1, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(error_of([&] { ref::short_conv(X, W, Vector<double>{1.0}); }).find("entry (2, 2) of X"), std::string::npos);
  EXPECT_NE(error_of([] { ref::lookback_filter<double>(3, 3); }).find("K > i"), std::string::npos);
  EXPECT_NE(error_of([] { ref::short_conv_toeplitz(Vector<double>{INFINITY}, 2); }).find("of w"), std::string::npos);
}

// ---- MQAR context ----------------------------------------------------------------------------------

TEST(MqarReference, GeneratorDrawsValidReproducibleContexts) {
  for (std::uint64_t seed = 1; seed < 40; ++seed) {
    std::mt19937_64 g(seed), g2(seed);
    const std::size_t P = 1 + seed % 7, T = 2 * (1 + seed % 9);
    const auto c = ref::mqar_draw(P, T, g), c2 = ref::mqar_draw(P, T, g2);
    EXPECT_EQ(c.pairs, c2.pairs);
    EXPECT_EQ(c.query, c2.query);
    EXPECT_EQ(c.T(), T);
    EXPECT_NO_THROW(ref::check_mqar_context(c, "test"));
    EXPECT_GE(ref::mqar_cue_count(c), 1u);
  }
  std::mt19937_64 g(3);
  EXPECT_NE(error_of([&] { ref::mqar_draw(4, 5, g); }).find("T must be even"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::mqar_draw(0, 4, g); }).find("P must be >= 1"), std::string::npos);
}

TEST(MqarReference, FinalCueIsUniformOverDistinctCuesPresent) {
  // context of two pairs with distinct cues: the final cue is each of them about half the time
  std::mt19937_64 g(5);
  int first = 0, n = 0;
  for (int k = 0; k < 4000; ++k) {
    const auto c = ref::mqar_draw(50, 4, g);
    if (c.pairs[0] == c.pairs[1]) continue;
    ++n;
    first += c.query == c.pairs[0] ? 1 : 0;
  }
  EXPECT_NEAR(static_cast<double>(first) / n, 0.5, 0.05);
}

TEST(MqarReference, TokenLayout) {
  ref::MqarContext c;
  c.P = 3;
  c.pairs = {2, 0, 2};
  c.query = 0;
  const auto E = onehot<double>(3, 6);
  const auto X = ref::mqar_tokens(E, c);
  ASSERT_EQ(X.rows, 7u);
  const std::size_t expect_token[7] = {2, 3 + 2, 0, 3 + 0, 2, 3 + 2, 0};  // u3 r3 u1 r1 u3 r3 u1
  for (std::size_t t = 0; t < 7; ++t)
    for (std::size_t j = 0; j < 6; ++j) EXPECT_EQ(X(t, j), j == expect_token[t] ? 1.0 : 0.0) << "t=" << t + 1;
  EXPECT_EQ(ref::mqar_cue_count(c), 1u);
  c.query = 1;  // u_2 is not in the context
  EXPECT_NE(error_of([&] { ref::mqar_tokens(E, c); }).find("does not occur"), std::string::npos);
  c.query = 0;
  EXPECT_NE(error_of([&] { ref::mqar_tokens(onehot<double>(2, 6), c); }).find("d x 2P"), std::string::npos);
}

// ---- read-outs --------------------------------------------------------------------------------------

// Orthonormal (one-hot) embeddings, exact rationals: y_{T+1} = c r_{i_j}, c = occurrences of the final cue.
RC_GTEST_PROP(MqarReference, CountFactorExactOnOneHot, ()) {
  const auto P = static_cast<std::size_t>(*rc::gen::inRange(1, 9));
  const auto T = 2 * static_cast<std::size_t>(*rc::gen::inRange(1, 20));
  const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1u << 30);
  std::mt19937_64 g(seed);
  const auto c = ref::mqar_draw(P, T, g);
  const auto E = onehot<Q>(P, 2 * P + 1);
  const auto y = ref::mqar_la_output(ref::mqar_tokens(E, c));
  for (std::size_t j = 0; j < y.size(); ++j) {
    const Q expect = j == P + c.query ? Q(static_cast<long>(ref::mqar_cue_count(c))) : Q(0);
    RC_ASSERT(y[j] == expect);
  }
}

TEST(MqarReference, LayerFormEqualsSum) {
  std::mt19937_64 g(21);
  for (std::size_t P : {1, 3, 5})
    for (std::size_t T : {2, 8, 20}) {
      const auto c = ref::mqar_draw(P, T, g);
      const auto E = unit_columns(g, 2 * P + 1, 2 * P);
      const auto X = ref::mqar_tokens(E, c);
      const auto y58 = ref::mqar_la_output(X);
      const auto y57 = ref::matvec(ref::mqar_la_memory(X), X.row(X.rows - 1));
      for (std::size_t j = 0; j < y58.size(); ++j) EXPECT_NEAR(y57[j], y58[j], 1e-12);
    }
}

TEST(MqarReference, LeastSquaresReturnsTheResponseWithIndependentKeys) {
  std::mt19937_64 g(22);
  for (std::size_t P : {1, 2, 4})
    for (std::size_t T : {2, 6, 16}) {
      const auto c = ref::mqar_draw(P, T, g);
      const auto E = unit_columns(g, 2 * P + 2, 2 * P);
      const auto X = ref::mqar_tokens(E, c);
      std::size_t rank = 0;
      const auto y = ref::mqar_ls_output(X, ref::default_rank_tol<double>(X.cols), &rank);
      std::vector<char> seen(P, 0);
      std::size_t distinct = 0;
      for (std::size_t i : c.pairs) distinct += seen[i] ? 0 : (seen[i] = 1, 2);
      EXPECT_EQ(rank, distinct);
      for (std::size_t j = 0; j < y.size(); ++j) EXPECT_NEAR(y[j], E(j, P + c.query), 1e-10) << "P=" << P << " T=" << T;
      EXPECT_EQ(ref::mqar_decode(E, y, P), c.query);
      // the SVD form of the same memory (K with its exactly repeated rows, no Gram formed)
      std::size_t rank_k = 0;
      const auto ys = ref::mqar_ls_output_minnorm(X, ref::default_rank_tol<double>(X.rows), &rank_k);
      EXPECT_EQ(rank_k, distinct);
      for (std::size_t j = 0; j < y.size(); ++j) EXPECT_NEAR(ys[j], y[j], 1e-10) << "P=" << P << " T=" << T;
    }
}

TEST(MqarReference, LeastSquaresSvdFormWithRepeatedKeysInMp) {
  // many exact repeats of few keys (P = 2, T = 40): the SVD of K (41 x d) and the Gram pseudo-inverse agree
  MpDigitsScope sc(40);
  std::mt19937_64 g(24);
  for (std::size_t d : {4, 5}) {
    const auto c = ref::mqar_draw(2, 40, g);
    const auto X = ref::mqar_tokens(ref::cast<mp_t>(unit_columns(g, d, 4)), c);
    std::size_t r1 = 0, r2 = 0;
    const auto y1 = ref::mqar_ls_output(X, ref::default_rank_tol<mp_t>(d), &r1);
    const auto y2 = ref::mqar_ls_output_minnorm(X, ref::default_rank_tol<mp_t>(d), &r2);
    EXPECT_EQ(r1, r2);
    EXPECT_LT(relv(y1, y2), 1e-30) << "d=" << d;
  }
}

TEST(MqarReference, LeastSquaresPinvFormEqualsMinNormForm) {
  // keys without exact repeats (every pair distinct) and dependent (6 tokens in R^5)
  ref::MqarContext c;
  c.P = 3;
  c.pairs = {0, 2, 1};
  c.query = 2;
  std::mt19937_64 g(23);
  const auto E = unit_columns(g, 5, 6);  // 6 tokens in R^5: the keys are dependent, S is singular
  const auto X = ref::mqar_tokens(E, c);
  const auto y1 = ref::mqar_ls_output(X, ref::default_rank_tol<double>(5));
  const auto y2 = ref::mqar_ls_output_minnorm(X, ref::default_rank_tol<double>(7));
  for (std::size_t j = 0; j < 5; ++j) EXPECT_NEAR(y1[j], y2[j], 1e-9);
}

TEST(MqarReference, DecodeTiesAndZeroResponses) {
  Matrix<double> E(2, 4);
  E(0, 0) = E(1, 1) = 1;  // cues
  E(0, 2) = E(1, 3) = 1;  // responses r_1 = e_1, r_2 = e_2
  EXPECT_EQ(ref::mqar_decode(E, Vector<double>{1.0, 1.0}, 2), 2u);  // tie: no answer
  EXPECT_EQ(ref::mqar_decode(E, Vector<double>{0.5, 1.0}, 2), 1u);
  E(1, 3) = 3;  // r_2 = 3 e_2: the inner product prefers r_2, the cosine r_1
  EXPECT_EQ(ref::mqar_decode(E, Vector<double>{1.0, 0.5}, 2), 1u);
  EXPECT_EQ(ref::mqar_decode(E, Vector<double>{1.0, 0.5}, 2, true), 0u);
  E(1, 3) = 0;
  E(0, 2) = 0;
  EXPECT_NE(error_of([&] { ref::mqar_decode(E, Vector<double>{1.0, 0.5}, 2); }).find("r_1 has zero norm"), std::string::npos);
}

// ---- coherence -----------------------------------------------------------------------------------------

TEST(MqarReference, CoherenceAndWelchBound) {
  Matrix<double> E(2, 3);
  E(0, 0) = 1;
  E(0, 1) = 0.5;
  E(1, 1) = std::sqrt(0.75);  // 60 degrees from e_1
  E(1, 2) = 2;                // orthogonal to e_1, not unit: normalised inside
  EXPECT_NEAR(ref::max_coherence(E), std::sqrt(0.75), 1e-15);
  EXPECT_NEAR(ref::welch_bound<double>(128, 64), std::sqrt(64.0 / (64.0 * 127.0)), 1e-15);
  EXPECT_EQ(ref::welch_bound<double>(64, 64), 0.0);
  // three unit vectors at 120 degrees in R^2 attain the Welch bound 1/2
  Matrix<double> M(2, 3);
  for (int j = 0; j < 3; ++j) {
    M(0, j) = std::cos(2 * M_PI * j / 3);
    M(1, j) = std::sin(2 * M_PI * j / 3);
  }
  EXPECT_NEAR(ref::max_coherence(M), ref::welch_bound<double>(3, 2), 1e-12);
  Matrix<double> Z(2, 2);
  Z(0, 0) = 1;
  EXPECT_NE(error_of([&] { ref::max_coherence(Z); }).find("column 2 of E is zero"), std::string::npos);
}

}  // namespace
}  // namespace recall
