// recall/reference/hopfield_capacity.hpp: gamma_d in its three forms and the double fast form, the Brauchart tail,
// the arcsin angle / minimal separation / (B.46) / (B.50) helpers, the Lambert constant of Lemma 4.2 (Newton on
// w + ln w = y against the spec's test vectors and Boost.Math lambert_w0), the (B.45) threshold, the (B.53) right-hand
// side, the (B.55)-(B.57) left-hand sides, and the binary exponential dense associative memory (overlaps, the three
// update signs, exact ties, sweeps, the bit-packed fast engine). Small sizes; the file runs in well under a second.
#include "recall/reference/hopfield_capacity.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

namespace recall {
namespace {

namespace hf = ref::hopfield;

double rel(const mp_t& a, const mp_t& b) { return static_cast<double>(mp_t(abs(mp_t(a - b)) / abs(b))); }

TEST(HopfieldCapacityGamma, TestVectorsAndForms) {
  MpDigitsScope sc(50);
  const mp_t pi = hf::cap_detail::pi_<mp_t>();
  const mp_t want[3] = {mp_t(1) / pi, mp_t(1) / 4, mp_t(2) / (3 * pi)};
  for (unsigned d = 1; d <= 3; ++d) {
    EXPECT_LT(rel(hf::gamma_d<mp_t>(d), want[d - 1]), 1e-48) << d;
    EXPECT_LT(rel(hf::gamma_d_omega<mp_t>(d), want[d - 1]), 1e-48) << d;
    EXPECT_LT(rel(hf::gamma_d_recurrence<mp_t>(d), want[d - 1]), 1e-48) << d;
  }
  for (unsigned d : {10u, 101u, 1000u}) {
    const mp_t a = hf::gamma_d<mp_t>(d);
    EXPECT_LT(rel(hf::gamma_d_omega<mp_t>(d), a), 1e-45);
    EXPECT_LT(rel(hf::gamma_d_recurrence<mp_t>(d), a), 1e-45);
    EXPECT_NEAR(hf::gamma_d_fast(d), static_cast<double>(a), 1e-12 * static_cast<double>(a));
  }
  EXPECT_NEAR(hf::gamma_d<double>(7), hf::gamma_d_fast(7), 1e-15);
  EXPECT_NEAR(hf::gamma_d<float>(5), static_cast<float>(hf::gamma_d_fast(5)), 1e-6f);
  EXPECT_THROW(hf::gamma_d<double>(0), std::invalid_argument);
  EXPECT_THROW(hf::gamma_d_recurrence<double>(0), std::invalid_argument);
}

TEST(HopfieldCapacityGamma, BrauchartTailInverts) {
  MpDigitsScope sc(50);
  for (unsigned d : {3u, 8u, 16u})
    for (double q : {0.01, 0.5}) {
      const mp_t rho = hf::brauchart_rho_for_tail<mp_t>(d, mp_t(q));
      EXPECT_LT(rel(exp(hf::log_brauchart_tail<mp_t>(d, rho)), mp_t(q)), 1e-45);
    }
  EXPECT_THROW(hf::log_brauchart_tail<double>(1, 0.5), std::invalid_argument);
  EXPECT_THROW(hf::log_brauchart_tail<double>(3, -1.0), std::invalid_argument);
}

TEST(HopfieldCapacityGeometry, AnglesSeparationAndB46) {
  MpDigitsScope sc(50);
  // near-duplicate pair with chord 1e-20 on the unit circle: the arcsin form resolves the angle
  const mp_t t = 2 * asin(pow(mp_t(10), -20) / 2);
  ref::Matrix<mp_t> X(3, 2);
  X(0, 0) = 1;
  X(0, 1) = 0;
  X(1, 0) = cos(t);
  X(1, 1) = sin(t);
  X(2, 0) = -1;
  X(2, 1) = 0;
  const auto a = hf::min_angle(X);
  EXPECT_EQ(a.mu, 0u);
  EXPECT_EQ(a.nu, 1u);
  EXPECT_LT(rel(a.theta, t), 1e-28);  // the rows' rounding enters at 1e-50 / 1e-20
  const auto s = hf::min_separation(X);
  EXPECT_LT(rel(s.delta, hf::b46_rhs(mp_t(1), a.theta)), 1e-25);
  // antipodal pair: pi and Delta = 2 m^2
  ref::Matrix<mp_t> Y(2, 3);
  Y(0, 0) = 3;
  Y(1, 0) = -3;
  EXPECT_LT(rel(hf::min_angle(Y).theta, hf::cap_detail::pi_<mp_t>()), 1e-48);
  EXPECT_LT(rel(hf::min_separation(Y).delta, mp_t(18)), 1e-48);
  // random equal-norm patterns: (B.46) as an identity
  std::mt19937_64 g(7);
  std::normal_distribution<double> N;
  ref::Matrix<mp_t> Z(12, 5);
  for (std::size_t i = 0; i < Z.rows; ++i) {
    mp_t n(0);
    for (std::size_t j = 0; j < Z.cols; ++j) Z(i, j) = N(g), n += Z(i, j) * Z(i, j);
    n = sqrt(n);
    for (std::size_t j = 0; j < Z.cols; ++j) Z(i, j) = 2 * Z(i, j) / n;
  }
  EXPECT_LT(rel(hf::min_separation(Z).delta, hf::b46_rhs(mp_t(2), hf::min_angle(Z).theta)), 1e-45);
  ref::Matrix<double> zero(2, 2);
  EXPECT_THROW(hf::min_angle(zero), std::invalid_argument);
}

TEST(HopfieldCapacityGeometry, CosineBoundSlack) {
  EXPECT_EQ(hf::cos_bound_slack(0.0), 0.0);
  EXPECT_GT(hf::cos_bound_slack(1e-3), 0.0);
  EXPECT_NEAR(hf::cos_bound_slack(3.141592653589793), 2 - 3.141592653589793 * 3.141592653589793 / 5, 1e-15);
  EXPECT_LT(hf::cos_bound_slack(3.2), 0.0);
}

TEST(HopfieldCapacityLambert, SpecTestVectors) {
  MpDigitsScope sc(50);
  struct TV {
    unsigned d;
    double m, beta, p;
    unsigned k;
    double R, a, b, C, M;
  };
  const TV tvs[] = {{32, 1, 10, 0.05, 1, 0.5, 0.0251975540365097, 0.258064516129032, 1.20746852774997, 0.963879194149713},
                    {24, 1, 3, 0.1, 1, 0.2, 0.25359049842384, 0.104347826086957, 0.874371356956125, 0.146134094744188},
                    {64, 1, 1, 0.01, 1, 0.5, -0.0386944706307365, 0.0126984126984127, 1.05207493772202, 0.222451394336733},
                    {16, 3, 2, 0.1, 2, 1, 0.632901914953721, 0.96, 1.18991271161555, 0.606990145199041}};
  for (const TV& v : tvs) {
    hf::Lemma42Params<mp_t> P;
    P.d = v.d;
    P.m = mp_t(v.m);
    P.beta = mp_t(v.beta);
    P.p = mp_t(v.p);
    P.k = v.k;
    P.R = mp_t(v.R);
    const auto L = hf::lambert_c(P);
    EXPECT_TRUE(L.converged);
    EXPECT_NEAR(static_cast<double>(L.a), v.a, 1e-13 * std::fabs(v.a));
    EXPECT_NEAR(static_cast<double>(L.b), v.b, 1e-13 * v.b);
    EXPECT_NEAR(static_cast<double>(L.C), v.C, 1e-13 * v.C);
    EXPECT_NEAR(std::exp(static_cast<double>(hf::log_capacity_lb(P.d, P.p, L.C))), v.M, 1e-13 * v.M);
    EXPECT_LT(static_cast<double>(abs(mp_t(L.w + log(L.w) - L.y))), 1e-47);
    EXPECT_NEAR(hf::lambert_c_boost(static_cast<double>(L.a), static_cast<double>(L.b)), v.C, 1e-13 * v.C);
    // the double instantiation
    const hf::Lemma42Params<double> Pd{v.d, v.m, v.beta, v.p, v.k, v.R};
    EXPECT_NEAR(hf::lambert_c(Pd).C, v.C, 1e-13 * v.C);
  }
}

TEST(HopfieldCapacityLambert, WrightOmegaRangeAndErrors) {
  MpDigitsScope sc(50);
  for (double y : {-700.0, -50.0, -1.0, 0.0, 1.0, 1.5, 50.0, 1e6}) {
    const auto o = hf::wright_omega(mp_t(y));
    EXPECT_TRUE(o.converged) << y;
    EXPECT_GT(o.w, 0);
    EXPECT_LT(static_cast<double>(abs(mp_t(o.w + log(o.w) - mp_t(y)))), 1e-44 * std::max(1.0, std::fabs(y))) << y;
  }
  EXPECT_NEAR(static_cast<double>(hf::wright_omega(mp_t(1)).w), 1.0, 1e-15);  // omega(1) = 1
  EXPECT_THROW(hf::lambert_c(1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(hf::lambert_c(std::nan(""), 1.0), std::invalid_argument);
  hf::Lemma42Params<double> bad;
  bad.d = 1;
  EXPECT_THROW(hf::lemma42_ab(bad), std::invalid_argument);
  bad.d = 8;
  bad.p = 1.5;
  EXPECT_THROW(hf::lemma42_ab(bad), std::invalid_argument);
}

TEST(HopfieldCapacityLemma42, ThresholdB53AndFactor) {
  MpDigitsScope sc(50);
  EXPECT_NEAR(hf::separation_threshold<double>(10, 2, 3, 0.5, 4), std::log(10.0 * 3 / 0.5) / 4 + 3.0, 1e-14);
  EXPECT_THROW(hf::separation_threshold<double>(1, 1, 1, 0.5, 1), std::invalid_argument);  // M + k - 2 = 0
  // (B.53): decreasing in M
  double prev = 2;
  for (double M : {2.0, 5.0, 20.0, 100.0}) {
    const double th = hf::separation_threshold<double>(M, 1, 1, 0.05, 100);
    const double r = hf::b53_rhs<double>(16, M, 1, th);
    EXPECT_LT(r, prev);
    prev = r;
  }
  // (B.57) at C_L: 0 for k = 1 (rounding level), sign (k-1)(1 - C^q) otherwise
  for (unsigned k : {1u, 2u, 8u})
    for (double beta : {0.5, 100.0}) {
      hf::Lemma42Params<mp_t> P;
      P.d = 16;
      P.m = mp_t(1);
      P.beta = mp_t(beta);
      P.p = mp_t(0.1);
      P.k = k;
      P.R = mp_t(0.3);
      const mp_t C = hf::lambert_c(P).C;
      const auto f = hf::lemma42_factor(P, C);
      if (k == 1) {
        EXPECT_LT(static_cast<double>(abs(f.b57)), 1e-45);
      } else {
        EXPECT_EQ(f.b57 > 0, C < 1) << "k=" << k << " beta=" << beta;
        EXPECT_GT(abs(f.b57), mp_t(1e-30));
      }
      if (f.bracket_positive && k > 1) {  // (B.55)/p = (B.56) - 1 (for k = 1 both are at the rounding level)
        EXPECT_EQ(f.b55_over_p > 0, f.b57 > 0);
        EXPECT_LT(rel(f.b55_over_p, f.b56_minus_1), 1e-35);
      } else if (f.bracket_positive) {
        EXPECT_LT(static_cast<double>(abs(f.b55_over_p)), 1e-45);
        EXPECT_LT(static_cast<double>(abs(f.b56_minus_1)), 1e-45);
      }
    }
}

hf::DamPatterns random_dam(std::mt19937_64& g, std::size_t P, std::size_t N) {
  hf::DamPatterns X;
  X.P = P;
  X.N = N;
  for (std::size_t t = 0; t < P * N; ++t) X.x.push_back((g() >> 63) ? 1 : -1);
  return X;
}

TEST(HopfieldCapacityDam, SignsAgreeAndTiesAreExact) {
  MpDigitsScope sc(60);
  std::mt19937_64 g(11);
  for (std::size_t N : {3u, 8u, 64u})
    for (std::size_t P : {1u, 5u, 40u}) {
      const hf::DamPatterns X = random_dam(g, P, N);
      std::vector<std::int8_t> s(N);
      for (auto& v : s) v = (g() >> 63) ? 1 : -1;
      const std::vector<long> o = hf::dam_overlaps(X, s);
      const hf::DamPacked pk = hf::dam_pack(X);
      hf::DamFast fast(pk);
      fast.set_state(hf::dam_pack_state(s));
      for (std::size_t i = 0; i < N; ++i) {
        const int ex = hf::dam_update_sign_exact(X, s, o, i);
        EXPECT_EQ(hf::dam_update_sign_lse<mp_t>(X, s, o, i), ex) << N << " " << P << " " << i;
        EXPECT_EQ(fast.sign(i), ex) << N << " " << P << " " << i;
      }
    }
  // complementary pair: every bit is an exact tie
  hf::DamPatterns C = random_dam(g, 2, 6);
  for (std::size_t i = 0; i < 6; ++i) C.x[6 + i] = static_cast<std::int8_t>(-C.x[i]);
  std::vector<std::int8_t> s(6, 1);
  const std::vector<long> o = hf::dam_overlaps(C, s);
  hf::DamFast fast(hf::dam_pack(C));
  for (std::size_t i = 0; i < 6; ++i) {
    const long r0 = o[0] - C.at(0, i) * s[i], r1 = o[1] - C.at(1, i) * s[i];
    if (r0 == r1) {
      EXPECT_EQ(hf::dam_update_sign_exact(C, s, o, i), 0);
    } else {
      EXPECT_NE(hf::dam_update_sign_exact(C, s, o, i), 0);
    }
  }
  EXPECT_EQ(hf::exact_exp_poly_sign({0, 0, 0}, 1), 0);
  EXPECT_EQ(hf::exact_exp_poly_sign({1, -3, 1}, 1), 1);   // 1/e - 3 + e = 0.086
  EXPECT_EQ(hf::exact_exp_poly_sign({1, -4, 1}, 1), -1);  // 1/e - 4 + e = -0.914
}

TEST(HopfieldCapacityDam, SweepsOverlapsAndFastEngine) {
  std::mt19937_64 g(5);
  const hf::DamPatterns X = random_dam(g, 30, 16);
  std::vector<std::int8_t> s(X.x.begin(), X.x.begin() + 16);
  s[2] = static_cast<std::int8_t>(-s[2]);
  s[9] = static_cast<std::int8_t>(-s[9]);
  std::vector<std::int8_t> s_ref = s;
  const hf::DamRun r = hf::dam_run<double>(X, s_ref, 20);
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(hf::dam_overlaps(X, s_ref), hf::dam_overlaps(X, s_ref));
  const hf::DamPacked pk = hf::dam_pack(X);
  hf::DamFast fast(pk);
  fast.set_state(hf::dam_pack_state(s));
  const hf::DamRun rf = fast.run(20);
  EXPECT_TRUE(rf.converged);
  EXPECT_EQ(fast.state(), hf::dam_pack_state(s_ref));
  std::vector<long> fo(fast.overlaps().begin(), fast.overlaps().end());
  EXPECT_EQ(fo, hf::dam_overlaps(X, s_ref));
  // incremental overlaps after a forced flip
  std::vector<long> o = hf::dam_overlaps(X, s);
  EXPECT_TRUE(hf::dam_apply(X, s, o, 3, -s[3]));
  EXPECT_EQ(o, hf::dam_overlaps(X, s));
  EXPECT_FALSE(hf::dam_apply(X, s, o, 3, 0));
  std::vector<std::int8_t> wrong(5, 1);
  EXPECT_THROW(hf::dam_overlaps(X, wrong), std::invalid_argument);
  hf::DamPatterns big = random_dam(g, 2, 65);
  EXPECT_THROW(hf::dam_pack(big), std::invalid_argument);
}

}  // namespace
}  // namespace recall
