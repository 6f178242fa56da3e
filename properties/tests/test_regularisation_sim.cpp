// The growth classifier behind A000-GD-REG-CLAIMS (proofs_numeric/support/growth_classifier.hpp): synthetic
// norm series of known growth are classified as such (geometric, power-law, bounded, decaying), replicates
// with scattered exponents straddling the 0.05 tolerance are undetermined, block means use their own ln t,
// and the checkpoint grid is ascending with both ends.
#include "../../proofs_numeric/support/growth_classifier.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

namespace recall {
namespace {

using namespace claim_support::growth;

std::vector<double> grid_t(long T) {
  std::vector<double> t;
  for (long c : checkpoint_grid(T, 40, 40)) t.push_back(static_cast<double>(c));
  return t;
}
std::vector<double> series(const std::vector<double>& t, const std::function<double(double)>& ln_norm) {
  std::vector<double> y;
  for (double x : t) y.push_back(ln_norm(x));
  return y;
}

TEST(GrowthClassifier, CheckpointGridIsAscendingWithBothEnds) {
  for (long T : {10L, 1000L, 100000L}) {
    const auto c = checkpoint_grid(T, 40, 40);
    ASSERT_FALSE(c.empty());
    EXPECT_EQ(c.front(), 1);
    EXPECT_EQ(c.back(), T);
    for (std::size_t i = 1; i < c.size(); ++i) EXPECT_LT(c[i - 1], c[i]);
  }
}

TEST(GrowthClassifier, GeometricSeries) {
  const auto t = grid_t(10000);
  const GrowthFit g = classify_growth(t, {series(t, [](double x) { return x * std::log(1.01); })});
  EXPECT_EQ(g.kind, Growth::geometric) << g.str();
  EXPECT_NEAR(g.rate.mean, std::log(1.01), 1e-12);
  // a slow geometric rate still counts once the second half gains >= 1000-fold: 2e-3 * 5000 = 10 > ln 1000
  const GrowthFit s = classify_growth(t, {series(t, [](double x) { return 2e-3 * x; })});
  EXPECT_EQ(s.kind, Growth::geometric) << s.str();
}

TEST(GrowthClassifier, PowerLawSeries) {
  const auto t = grid_t(10000);
  for (double p : {0.5, 1.0, 3.0}) {
    const GrowthFit g = classify_growth(t, {series(t, [p](double x) { return p * std::log(x) + 2.0; })});
    EXPECT_EQ(g.kind, Growth::power_law) << "p = " << p << ": " << g.str();
    EXPECT_NEAR(g.exponent.mean, p, 1e-9);
  }
  // logarithmic growth ln||S|| = ln ln(e t) is sub-geometric and increasing: power-law with a small exponent
  const GrowthFit l = classify_growth(t, {series(t, [](double x) { return std::log(std::log(x) + 1.0); })});
  EXPECT_EQ(l.kind, Growth::power_law) << l.str();
  EXPECT_LT(l.exponent.mean, 0.2);
}

TEST(GrowthClassifier, BoundedAndDecayingSeries) {
  const auto t = grid_t(10000);
  EXPECT_EQ(classify_growth(t, {series(t, [](double) { return 3.0; })}).kind, Growth::bounded);
  EXPECT_EQ(classify_growth(t, {series(t, [](double x) { return -0.5 * std::log(x); })}).kind, Growth::bounded);
  // a saturating series (1 - 0.99^t) / (1 - 0.99): bounded once the transient is over
  EXPECT_EQ(classify_growth(t, {series(t, [](double x) { return std::log((1 - std::pow(0.99, x)) / 0.01); })}).kind, Growth::bounded);
}

TEST(GrowthClassifier, NoisyReplicatesUseTheAcrossSeedInterval) {
  const auto t = grid_t(10000);
  std::mt19937_64 g(7);
  std::normal_distribution<double> N(0.0, 0.05);
  std::vector<std::vector<double>> flat, grow;
  for (int r = 0; r < 16; ++r) {
    flat.push_back(series(t, [&](double) { return 1.0 + N(g); }));
    grow.push_back(series(t, [&](double x) { return 0.5 * std::log(x) + N(g); }));
  }
  const GrowthFit f = classify_growth(t, flat), p = classify_growth(t, grow);
  EXPECT_EQ(f.kind, Growth::bounded) << f.str();
  EXPECT_EQ(p.kind, Growth::power_law) << p.str();
  EXPECT_NEAR(p.exponent.mean, 0.5, 0.02);
  EXPECT_LT(p.exponent.hi - p.exponent.lo, 0.05);
  EXPECT_LT(f.exponent.hi, kExponentTol);
  EXPECT_EQ(f.replicates, 16);
}

TEST(GrowthClassifier, StraddlingExponentIsUndetermined) {
  const auto t = grid_t(10000);
  // two exact replicates with exponents 0 and 0.1: mean 0.05, interval wide around it
  const GrowthFit g = classify_growth(t, {series(t, [](double) { return 0.0; }), series(t, [](double x) { return 0.1 * std::log(x); })});
  EXPECT_EQ(g.kind, Growth::undetermined) << g.str();
  EXPECT_LT(g.exponent.lo, kExponentTol);
  EXPECT_GT(g.exponent.hi, kExponentTol);
}

TEST(GrowthClassifier, BlockMeansAndBadInput) {
  // block means of ln||S|| = p ln t over blocks (a, b]: the block's mean ln t is its abscissa, the fit is exact
  const auto c = checkpoint_grid(10000, 40, 40);
  std::vector<double> bt, blnt, y;
  long prev = 0;
  for (long b : c) {
    double s = 0;
    for (long x = prev + 1; x <= b; ++x) s += std::log(static_cast<double>(x));
    bt.push_back(0.5 * static_cast<double>(b + prev + 1));
    blnt.push_back(s / static_cast<double>(b - prev));
    y.push_back(0.7 * blnt.back());
    prev = b;
  }
  const GrowthFit g = classify_growth(bt, blnt, {y}, 10000);
  EXPECT_EQ(g.kind, Growth::power_law);
  EXPECT_NEAR(g.exponent.mean, 0.7, 1e-9);
  // non-finite values, mismatched lengths, too few points: undetermined
  y[3] = -INFINITY;
  EXPECT_EQ(classify_growth(bt, blnt, {y}, 10000).kind, Growth::undetermined);
  EXPECT_EQ(classify_growth(bt, {std::vector<double>(3, 0.0)}).kind, Growth::undetermined);
  EXPECT_EQ(classify_growth({1, 2, 3}, {{0, 0, 0}}).kind, Growth::undetermined);
}

}  // namespace
}  // namespace recall
