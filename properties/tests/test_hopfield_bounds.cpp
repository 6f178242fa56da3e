// The generators and helpers of proofs_numeric/support/hopfield_claims.hpp shared by the A003 (modern Hopfield)
// claim files: shapes and norms of G1-G4, the queries Q1-Q5 (Q2 inside the ball S_mu, Q3 on its boundary, Q4 on
// the segment to the nearest neighbour), determinism for a fixed seed, the P-ADAPT digit rule, log-space norms,
// the ball projection and the ascent driver. Small sizes; the whole file runs in well under a second.
#include "../../proofs_numeric/support/hopfield_claims.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;

double row_norm(const DM& X, std::size_t i) {
  double s = 0;
  for (std::size_t j = 0; j < X.cols; ++j) s += X(i, j) * X(i, j);
  return std::sqrt(s);
}
double dist(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t j = 0; j < a.size(); ++j) s += (a[j] - b[j]) * (a[j] - b[j]);
  return std::sqrt(s);
}

TEST(HopfieldClaimsGenerators, ShapesAndNorms) {
  Rng g(7);
  const DM g1 = hop_patterns(g, "G1", 5, 8, 2.5);
  ASSERT_EQ(g1.rows, 5u);
  ASSERT_EQ(g1.cols, 8u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_NEAR(row_norm(g1, i), 2.5, 1e-13);
  const DM g3 = hop_patterns(g, "G3", 6, 16);
  for (double x : g3.a) EXPECT_DOUBLE_EQ(std::fabs(x), 0.25);
  for (std::size_t i = 0; i < 6; ++i) EXPECT_NEAR(row_norm(g3, i), 1.0, 1e-15);
  // G2: N(0, I/d): the mean squared norm over many rows is close to 1
  const DM g2 = hop_patterns(g, "G2", 400, 16);
  double s = 0;
  for (double x : g2.a) s += x * x;
  EXPECT_NEAR(s / 400, 1.0, 0.1);
  EXPECT_THROW(hop_patterns(g, "G9", 2, 2), std::invalid_argument);
}

TEST(HopfieldClaimsGenerators, G4Families) {
  for (std::size_t d : {2u, 3u, 5u}) {
    Rng g(11);
    const auto fam = hop_g4_family(d, g);
    std::set<std::string> names;
    for (const auto& [name, X] : fam) {
      EXPECT_TRUE(names.insert(name).second) << name;
      EXPECT_EQ(X.cols, d) << name;
      EXPECT_GE(X.rows, 2u) << name;
      for (double x : X.a) EXPECT_TRUE(std::isfinite(x)) << name;
      // distinct patterns (R > 0)
      EXPECT_GT(ref::hopfield::radius(X), 0.0) << name;
    }
    if (d == 2) {
      EXPECT_TRUE(names.count("G4-polygon-6"));
    }
    EXPECT_EQ(names.count("G4-ortho-triple"), d >= 3 ? 1u : 0u);
    for (const auto& [name, X] : fam) {
      if (name == "G4-near-dup-1e-3") {
        EXPECT_NEAR(ref::hopfield::pair_distance(X, 0, 1), 1e-3, 1e-15);
      }
      if (name.rfind("G4-simplex-", 0) == 0) {
        // regular simplex: unit norms, equal pairwise inner products -1/(M-1)
        for (std::size_t i = 0; i < X.rows; ++i) {
          EXPECT_NEAR(row_norm(X, i), 1.0, 1e-14) << name;
          for (std::size_t j = i + 1; j < X.rows; ++j) {
            double c = 0;
            for (std::size_t k = 0; k < d; ++k) c += X(i, k) * X(j, k);
            EXPECT_NEAR(c, -1.0 / static_cast<double>(X.rows - 1), 1e-14) << name;
          }
        }
      }
      if (name == "G4-dyadic") {
        for (double x : X.a) EXPECT_EQ(x * 8, std::round(x * 8));
      }
      if (name == "G4-long-short") {
        EXPECT_NEAR(row_norm(X, 0), 2.0, 1e-14);
        EXPECT_NEAR(row_norm(X, 1), 0.5, 1e-14);
      }
    }
  }
}

TEST(HopfieldClaimsGenerators, Queries) {
  Rng g(3);
  const DM X = hop_patterns(g, "G1", 6, 4);
  const double R = ref::hopfield::radius(X);
  for (std::size_t mu = 0; mu < 6; ++mu) {
    const std::vector<double> xi = hop_row(X, mu);
    EXPECT_EQ(hop_query(g, "Q1", X, mu, R), xi);
    for (int t = 0; t < 20; ++t) {
      EXPECT_LE(dist(hop_query(g, "Q2", X, mu, R), xi), R * (1 + 1e-14));
      EXPECT_NEAR(dist(hop_query(g, "Q3", X, mu, R), xi), R, 1e-14);
    }
    const std::size_t nu = hop_nearest(X, mu);
    const std::vector<double> q4 = hop_query(g, "Q4", X, mu, R, 0.9);
    EXPECT_NEAR(dist(q4, xi), 0.9 * R, 1e-14);
    EXPECT_NEAR(dist(q4, xi) + dist(q4, hop_row(X, nu)), dist(xi, hop_row(X, nu)), 1e-13);  // on the segment to nu
    for (std::size_t o = 0; o < 6; ++o)
      if (o != mu) {
        EXPECT_LE(dist(xi, hop_row(X, nu)), dist(xi, hop_row(X, o)));
      }
    EXPECT_EQ(hop_query(g, "Q5", X, mu, R, 1.0, 0.1).size(), 4u);
  }
  EXPECT_THROW(hop_query(g, "Q7", X, 0, R), std::invalid_argument);
}

TEST(HopfieldClaimsGenerators, Deterministic) {
  Rng a(42), b(42);
  EXPECT_EQ(hop_patterns(a, "G1", 4, 3).a, hop_patterns(b, "G1", 4, 3).a);
  const auto fa = hop_g4_family(3, a), fb = hop_g4_family(3, b);
  ASSERT_EQ(fa.size(), fb.size());
  for (std::size_t i = 0; i < fa.size(); ++i) EXPECT_EQ(fa[i].second.a, fb[i].second.a);
  const DM X = hop_patterns(a, "G2", 5, 3);
  Rng c = a;
  EXPECT_EQ(hop_query(a, "Q2", X, 1, 0.3), hop_query(c, "Q2", X, 1, 0.3));
}

TEST(HopfieldClaimsHelpers, DigitsNormsProjectionAscent) {
  EXPECT_EQ(hop_padapt_digits(1.0, 1.0), 50u);
  EXPECT_EQ(hop_padapt_digits(100.0, 2.0), static_cast<unsigned>(std::ceil(200 / std::log(10.0))) + 30u);
  DM X(2, 2);
  X(0, 0) = 1;
  X(1, 1) = 2;
  EXPECT_DOUBLE_EQ(hop_spread(X, {3.0, 1.0}), 1.0);
  MpDigitsScope sc(50);
  EXPECT_EQ(log10_norm(MV{mp_t(0), mp_t(0)}), -INFINITY);
  EXPECT_NEAR(log10_norm(MV{mp_t("3e-80"), mp_t("4e-80")}), std::log10(5.0) - 80, 1e-12);
  const std::vector<double> c{1.0, 0.0};
  EXPECT_NEAR(dist(hop_project_ball({4.0, 4.0}, c, 1.0), c), 1.0, 1e-15);
  EXPECT_EQ(hop_project_ball({1.5, 0.0}, c, 1.0), (std::vector<double>{1.5, 0.0}));
  // maximise <x, (1, 1)> over the ball: the optimum is c + (1, 1)/sqrt 2
  auto f = [](const std::vector<double>& x) { double s = 0; for (double v : x) s += v; return s; };
  const HopAscent a2 = hop_ball_ascent(f, {{1.0, 0.0}}, c, 1.0, 300);
  EXPECT_NEAR(a2.f, 1.0 + std::sqrt(2.0), 1e-6);
  const std::vector<double> c6(6, 0.0);
  const HopAscent a6 = hop_ball_ascent(f, {c6}, c6, 1.0, 400);
  EXPECT_NEAR(a6.f, std::sqrt(6.0), 1e-4);
}


TEST(HopfieldClaimsHelpers, ClopperPearsonAndFitBall) {
  // k = 0: upper = 1 - (alpha/2)^(1/n); k = n: lower = (alpha/2)^(1/n)
  const auto a = hop_clopper_pearson(0, 10);
  EXPECT_EQ(a.first, 0.0);
  EXPECT_NEAR(a.second, 1 - std::pow(0.005, 0.1), 1e-9);
  const auto b = hop_clopper_pearson(10, 10);
  EXPECT_NEAR(b.first, std::pow(0.005, 0.1), 1e-9);
  EXPECT_EQ(b.second, 1.0);
  const auto c = hop_clopper_pearson(5, 10);
  EXPECT_LT(c.first, 0.5);
  EXPECT_GT(c.second, 0.5);
  // hop_fit_ball: the result is inside the ball in exact arithmetic, even for a tiny radius around a unit-size centre
  const std::vector<double> ctr{0.1061124920502211, 0.9943541316004534};
  const std::vector<double> far{0.2, 0.3};
  for (double r : {1e-7, 1e-3, 0.5}) {
    std::vector<double> x = ctr;
    for (std::size_t j = 0; j < 2; ++j) x[j] += r * (far[j] - ctr[j]) / dist(far, ctr);
    const std::vector<double> y = hop_fit_ball(x, ctr, r);
    MpDigitsScope sc(60);
    mp_t s(0);
    for (std::size_t j = 0; j < 2; ++j) s += (mp_t(y[j]) - mp_t(ctr[j])) * (mp_t(y[j]) - mp_t(ctr[j]));
    EXPECT_LE(boost::multiprecision::sqrt(s), mp_t(r));
    EXPECT_GT(dist(y, ctr), r * (1 - 1e-6));
  }
}

}  // namespace
}  // namespace recall
