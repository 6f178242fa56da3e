// reference/polynomial_maps.hpp (A002-POLY-MAP, -MONO, -KRON, -WEIGHTED, -DIM, A002-TAYLOR-EXP/-EQ5/-GATING,
// A002-EXP-FEATURE-MAP): hand-computed small cases of the documented monomial order, the dimension formula and its
// overflow error, "phi(q).phi(k) equals the kernel" exactly in rationals for the three maps (and a wrong weighting
// failing it), the asymmetric pair for mixed-sign coefficients, the gating reading a = e_1, the exponential map's two
// coordinate systems, and the named errors on bad input.
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/polynomial_maps.hpp"

#include "mp_test_support.hpp"

#include <boost/multiprecision/cpp_int.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

namespace recall {
namespace {

using test_support::error_of;
using Q = boost::multiprecision::cpp_rational;
using VQ = ref::Vector<Q>;

VQ rvec(std::mt19937_64& g, std::size_t n) {
  std::uniform_int_distribution<int> U(-8, 8);
  VQ v(n);
  for (auto& x : v) x = Q(U(g), 4);
  return v;
}
Q qdot(const VQ& a, const VQ& b) {
  Q s(0);
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}
Q qpow(const Q& x, int p) {
  Q r(1);
  for (int i = 0; i < p; ++i) r *= x;
  return r;
}

TEST(A002Poly, MonomialOrderHandComputed) {
  // d = 2, p = 2: [1, x1, x2, x1^2, x1 x2, x2^2]
  const VQ m = ref::monomial_map(VQ{Q(2), Q(3)}, 2);
  const VQ want{Q(1), Q(2), Q(3), Q(4), Q(6), Q(9)};
  EXPECT_EQ(m, want);
  // d = 3, degree 2 block: x1^2, x1x2, x1x3, x2^2, x2x3, x3^2 (x = (2, 3, 5))
  const VQ m3 = ref::monomial_map(VQ{Q(2), Q(3), Q(5)}, 2);
  ASSERT_EQ(m3.size(), 10u);
  const VQ deg2(m3.begin() + 4, m3.end());
  EXPECT_EQ(deg2, (VQ{Q(4), Q(6), Q(10), Q(9), Q(15), Q(25)}));
  // p = 0: the constant only
  EXPECT_EQ(ref::monomial_map(VQ{Q(7)}, 0), VQ{Q(1)});
}

TEST(A002Poly, MonomialPlanParents) {
  const ref::MonomialPlan pl = ref::monomial_plan(3, 3);
  ASSERT_EQ(pl.exponents.size(), 20u);
  for (std::size_t c = 1; c < pl.exponents.size(); ++c) {
    auto par = pl.exponents[c];
    --par[pl.var[c]];
    EXPECT_EQ(par, pl.exponents[pl.parent[c]]) << "monomial " << c + 1;
    EXPECT_LT(pl.parent[c], c);
    EXPECT_EQ(pl.degree[c], pl.degree[pl.parent[c]] + 1);
  }
}

TEST(A002Poly, DimensionFormulaAndOverflow) {
  EXPECT_EQ(ref::monomial_map_dim(1, 0), 1u);
  EXPECT_EQ(ref::monomial_map_dim(2, 2), 6u);
  EXPECT_EQ(ref::monomial_map_dim(3, 3), 20u);
  EXPECT_EQ(ref::monomial_map_dim(64, 8), 11969016345ull);  // binom(72, 8)
  for (std::size_t d : {1, 2, 5, 9})
    for (int p = 0; p <= 6; ++p) {
      std::size_t s = 0;
      for (int l = 0; l <= p; ++l) s += static_cast<std::size_t>(ref::hopfield::monomial_count(d, static_cast<unsigned>(l)));
      EXPECT_EQ(s, ref::monomial_map_dim(d, p)) << "d=" << d << " p=" << p;
      EXPECT_EQ(ref::monomial_exponents(d, p).size(), ref::monomial_map_dim(d, p));
    }
  const std::string e = error_of([] { (void)ref::monomial_map_dim(1000000, 50); });
  EXPECT_NE(e.find("d = 1000000"), std::string::npos) << e;
  EXPECT_NE(e.find("p = 50"), std::string::npos) << e;
  EXPECT_NE(error_of([] { (void)ref::monomial_map_dim(3, -1); }), "");
  EXPECT_NE(error_of([] { (void)ref::kron_map_dim(std::size_t(1) << 32, 3); }), "");
  EXPECT_EQ(ref::kron_map_dim(3, 4), 81u);
}

TEST(A002Poly, FeatureInnerProductsEqualKernelsExactly) {
  std::mt19937_64 g(20261127);
  for (std::size_t d : {1, 2, 3, 4})
    for (int p = 0; p <= 4; ++p) {
      const VQ x = rvec(g, d), y = rvec(g, d);
      // KRON: <x^(p), y^(p)> = (x^T y)^p
      EXPECT_EQ(qdot(ref::kron_map(x, p), ref::kron_map(y, p)), qpow(qdot(x, y), p));
      // WEIGHTED (squared weights, mixed signs): sum_alpha w_alpha x^alpha y^alpha = sum_i a_i (x^T y)^i
      VQ a(static_cast<std::size_t>(p) + 1);
      for (std::size_t i = 0; i < a.size(); ++i) a[i] = Q(static_cast<int>(i % 3) - 1, static_cast<int>(i) + 1);
      EXPECT_EQ(ref::weighted_kernel_sq(a, x, y), ref::poly_kernel(a, x, y));
      // exp map at a_i = 1/i!: the truncated Taylor series of x^T y
      const VQ t = ref::taylor_coefficients<Q>(p);
      EXPECT_EQ(ref::weighted_kernel_sq(t, x, y), ref::poly_series(t, qdot(x, y)));
    }
}

TEST(A002Poly, UnweightedMonomialsAreNotTheEq5Kernel) {
  // the negative control: without the multinomial weights |alpha|!/alpha! the kernel is wrong (d >= 2, p >= 2)
  const VQ x{Q(1), Q(2)}, y{Q(3), Q(-1)};
  const VQ a{Q(1), Q(1), Q(1)};
  const ref::MonomialPlan pl = ref::monomial_plan(2, 2);
  const VQ mx = ref::monomial_map(x.data(), pl), my = ref::monomial_map(y.data(), pl);
  Q un(0);
  for (std::size_t c = 0; c < mx.size(); ++c) un += a[pl.degree[c]] * mx[c] * my[c];
  EXPECT_NE(un, ref::poly_kernel(a, x, y));
  // the weights themselves: degree 2 in 2 variables: x1^2 -> 1, x1 x2 -> 2, x2^2 -> 1
  const VQ w = ref::multinomial_weights(a, pl);
  EXPECT_EQ(w, (VQ{Q(1), Q(1), Q(1), Q(1), Q(2), Q(1)}));
}

TEST(A002Poly, AsymmetricPairRealizesNegativeCoefficients) {
  MpDigitsScope sc(50);
  using MV = ref::Vector<mp_t>;
  const MV x{mp_t(0.5), mp_t(-1.25)}, y{mp_t(2), mp_t(0.75)};
  const MV a{mp_t(1), mp_t(-2), mp_t(0.5), mp_t(-0.25)};
  const MV q = ref::weighted_query_map(x, a), k = ref::weighted_key_map(y, a);
  const mp_t lhs = ref::dot(q.data(), k.data(), q.size()), rhs = ref::poly_kernel(a, x, y);
  EXPECT_LT(static_cast<double>(abs(mp_t(lhs - rhs))), 1e-45);
  // the symmetric map (key features on both sides) is NOT the kernel for mixed signs
  const MV k2 = ref::weighted_key_map(x, a);
  EXPECT_GT(static_cast<double>(abs(mp_t(ref::dot(k2.data(), k.data(), k.size()) - rhs))), 1e-3);
}

TEST(A002Poly, GatingE1IsIdentityMap) {
  MpDigitsScope sc(50);
  using MV = ref::Vector<mp_t>;
  const MV x{mp_t(0.5), mp_t(-1.25), mp_t(3)};
  const MV a{mp_t(0), mp_t(1), mp_t(0)};
  const MV f = ref::weighted_key_map(x, a);
  ASSERT_EQ(f.size(), 10u);
  for (std::size_t c = 0; c < f.size(); ++c) {
    if (c >= 1 && c <= 3) EXPECT_EQ(f[c], x[c - 1]);
    else EXPECT_EQ(f[c], 0);
  }
}

TEST(A002Poly, ExpFeatureMapCoordinateSystemsAgree) {
  MpDigitsScope sc(50);
  using MV = ref::Vector<mp_t>;
  const MV x{mp_t(0.5), mp_t(-0.75)}, y{mp_t(0.25), mp_t(1)};
  for (int P : {0, 1, 3, 6}) {
    const MV m1 = ref::exp_feature_map_mono(x, P), m2 = ref::exp_feature_map_mono(y, P);
    const MV k1 = ref::exp_feature_map_kron(x, P), k2 = ref::exp_feature_map_kron(y, P);
    EXPECT_EQ(m1.size(), ref::monomial_map_dim(2, P));
    const mp_t a = ref::dot(m1.data(), m2.data(), m1.size()), b = ref::dot(k1.data(), k2.data(), k1.size());
    const mp_t t = ref::poly_series(ref::taylor_coefficients<mp_t>(P), ref::dot(x.data(), y.data(), 2));
    EXPECT_LT(static_cast<double>(abs(mp_t(a - b))), 1e-45) << "P=" << P;
    EXPECT_LT(static_cast<double>(abs(mp_t(a - t))), 1e-45) << "P=" << P;
  }
  // double instantiation of the maps
  const ref::Vector<double> xd{0.5, -0.75};
  EXPECT_EQ(ref::monomial_map(xd, 3).size(), 10u);
  EXPECT_EQ(ref::kron_map(xd, 3).size(), 8u);
}

TEST(A002Poly, TaylorSeriesValues) {
  const VQ t = ref::taylor_coefficients<Q>(4);
  EXPECT_EQ(t, (VQ{Q(1), Q(1), Q(1, 2), Q(1, 6), Q(1, 24)}));
  EXPECT_EQ(ref::poly_series(t, Q(2)), Q(7));  // 1 + 2 + 2 + 4/3 + 2/3
  EXPECT_NEAR(ref::poly_series(ref::taylor_coefficients<double>(25), 1.0), std::exp(1.0), 1e-15);
}

TEST(A002Poly, BadInputErrors) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(error_of([&] { (void)ref::monomial_map(ref::Vector<double>{1.0, nan}, 2); }).find("x[2]"), std::string::npos);
  EXPECT_NE(error_of([] { (void)ref::monomial_map(ref::Vector<double>{}, 2); }), "");
  EXPECT_NE(error_of([] { (void)ref::monomial_map(ref::Vector<double>{1.0}, -1); }), "");
  EXPECT_NE(error_of([] { (void)ref::kron_map(ref::Vector<double>{1.0}, -2); }), "");
  EXPECT_NE(error_of([] { (void)ref::poly_kernel(ref::Vector<double>{1.0}, ref::Vector<double>{1.0}, ref::Vector<double>{1.0, 2.0}); }), "");
  EXPECT_NE(error_of([] { (void)ref::poly_series(ref::Vector<double>{}, 1.0); }), "");
  EXPECT_NE(error_of([] { (void)ref::taylor_coefficients<double>(-1); }), "");
  const ref::MonomialPlan pl = ref::monomial_plan(2, 2);
  EXPECT_NE(error_of([&] { (void)ref::multinomial_weights(ref::Vector<double>{1.0, 1.0}, pl); }).find("p + 1 = 3"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)ref::poly_kernel(ref::Vector<double>{1.0, nan}, ref::Vector<double>{1.0}, ref::Vector<double>{1.0}); }), "");
}

}  // namespace
}  // namespace recall
