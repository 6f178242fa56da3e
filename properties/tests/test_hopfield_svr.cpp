// Unit tests of reference/include/recall/reference/hopfield_svr.hpp (A003 §2.1, §3.1-3.2, App. B.1-B.3): multi-indices,
// the multinomial expansion (exact rationals), truncated Taylor features vs their closed-form kernel, the normalised map,
// the SVR solver on hand-solvable instances (cap active: the multiplier leaves the box [0, C]), KKT residuals, the
// independent explicit-feature primal, optimal-set diameters, feasibility and input validation.
#include "recall/reference/hopfield_svr.hpp"

#include <gtest/gtest.h>

#include <boost/multiprecision/cpp_int.hpp>

#include <random>
#include <stdexcept>
#include <string>

namespace {

using recall::mp_t;
using recall::MpDigitsScope;
namespace H = recall::ref::hopfield;
using MM = recall::ref::Matrix<mp_t>;
using MV = recall::ref::Vector<mp_t>;
using Q = boost::multiprecision::cpp_rational;

double d_(const mp_t& x) { return static_cast<double>(x); }

template <class F> std::string error_of(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

MM gauss(std::mt19937_64& g, std::size_t r, std::size_t c, double s = 1.0) {
  std::normal_distribution<double> N(0, 1);
  MM m(r, c);
  for (auto& v : m.a) v = mp_t(s * N(g));
  return m;
}

TEST(HopfieldSvr, MultiIndicesCountAndOrder) {
  const auto l = H::multi_indices(3, 2);
  ASSERT_EQ(l.size(), 6u);
  EXPECT_EQ(l[0], (H::MultiIndex{2, 0, 0}));
  EXPECT_EQ(l[1], (H::MultiIndex{1, 1, 0}));
  EXPECT_EQ(l[2], (H::MultiIndex{0, 2, 0}));
  EXPECT_EQ(l[3], (H::MultiIndex{1, 0, 1}));
  EXPECT_EQ(l[5], (H::MultiIndex{0, 0, 2}));
  for (std::size_t d = 1; d <= 5; ++d)
    for (unsigned n = 0; n <= 6; ++n) EXPECT_EQ(H::multi_indices(d, n).size(), H::monomial_count(d, n));
  EXPECT_EQ(H::taylor_dim(16, 10), 5311735u);
  EXPECT_EQ(H::binomial(10, 3), 120u);
}

TEST(HopfieldSvr, MultinomialExactRational) {
  const recall::ref::Vector<Q> x{Q(1, 2), Q(-3, 4), Q(2, 3)}, y{Q(5, 7), Q(1, 3), Q(-1, 2)};
  for (unsigned n = 0; n <= 6; ++n) EXPECT_EQ(H::multinomial_lhs(x, y, n), H::multinomial_rhs(x, y, n)) << "n = " << n;
}

TEST(HopfieldSvr, PrintedFormAndTaylorFeatures) {
  MpDigitsScope sc(50);
  const MV x{mp_t(0.3), mp_t(-0.7), mp_t(0.2)}, y{mp_t(0.5), mp_t(0.1), mp_t(-0.4)};
  for (unsigned n = 0; n <= 5; ++n) EXPECT_LT(d_(abs(H::multinomial_rhs_printed(x, y, n) - H::multinomial_lhs(x, y, n))), 1e-45);
  const mp_t beta(2);
  for (unsigned N : {0u, 1u, 4u, 8u}) {
    const MV fx = H::taylor_features(x, beta, N), fy = H::taylor_features(y, beta, N);
    ASSERT_EQ(fx.size(), H::taylor_dim(3, N));
    const mp_t in = recall::ref::dot(fx.data(), fy.data(), fx.size());
    EXPECT_LT(d_(abs(in - H::taylor_kernel(x.data(), y.data(), 3, beta, N))), 1e-45);
    const mp_t t = beta * recall::ref::dot(x.data(), y.data(), 3);
    EXPECT_LE(abs(in - H::exp_kernel(x.data(), y.data(), 3, beta)), H::taylor_remainder_bound(t, N) + mp_t(1e-45));
  }
}

TEST(HopfieldSvr, NormalisedFeaturesMatchClosedKernel) {
  MpDigitsScope sc(50);
  std::mt19937_64 g(3);
  const MM K = gauss(g, 4, 2, 0.5);
  const mp_t beta(1);
  const MV x{mp_t(0.2), mp_t(-0.1)}, y{mp_t(-0.3), mp_t(0.4)};
  const MV fx = H::normalised_taylor_features(K, x.data(), beta, 30), fy = H::normalised_taylor_features(K, y.data(), beta, 30);
  const mp_t in = recall::ref::dot(fx.data(), fy.data(), fx.size());
  EXPECT_LT(d_(abs(in - H::normalised_exp_kernel(K, x.data(), y.data(), beta))), 1e-30);
}

// One training pair, Phi = 1, d = 1: min w^2/2 + C(eta + tilde eta), |y - w| <= eps' + eta; with the P-AS cap
// y - w <= cap. y = 1, eps' = 0.1, C = 0.5, cap = 0.2: w = max(min(y - eps', C), y - cap) = 0.8 > C, alpha = 0.8,
// gamma = 0.3: the box |alpha - tilde alpha| <= C of Lemma B.1 fails; without the cap w = C = 0.5.
TEST(HopfieldSvr, ScalarInstanceCapActive) {
  MpDigitsScope sc(50);
  H::SvrProblem<mp_t> p;
  p.G = MM(1, 1);
  p.G(0, 0) = 1;
  p.Y = MM(1, 1);
  p.Y(0, 0) = 1;
  p.C = mp_t(1) / 2;
  p.eps_prime = mp_t(1) / 10;
  p.cap = mp_t(2) / 10;
  p.reading = H::CapReading::as;
  const auto s = H::svr_solve(p);
  ASSERT_TRUE(s.converged);
  EXPECT_LT(d_(abs(s.beta(0, 0) - mp_t(8) / 10)), 1e-38);
  EXPECT_LT(d_(abs(s.gamma(0, 0) - mp_t(3) / 10)), 1e-38);
  EXPECT_LT(d_(H::svr_kkt(p, s).worst()), 1e-35);
  p.reading = H::CapReading::none;
  const auto s2 = H::svr_solve(p);
  EXPECT_LT(d_(abs(s2.beta(0, 0) - mp_t(5) / 10)), 1e-38);
  EXPECT_LT(d_(abs(s2.eta(0, 0) - mp_t(4) / 10)), 1e-38);
}

TEST(HopfieldSvr, RandomInstanceKktAndExplicitPrimal) {
  MpDigitsScope sc(50);
  std::mt19937_64 g(7);
  const std::size_t M = 5, d = 2;
  const MM X = gauss(g, M, d, 0.6), Y = gauss(g, M, d, 0.5);
  const mp_t beta(1);
  MM Phi(M, H::taylor_dim(d, 3));
  for (std::size_t mu = 0; mu < M; ++mu) {
    const MV f = H::taylor_features(X.row(mu), d, beta, 3);
    for (std::size_t j = 0; j < f.size(); ++j) Phi(mu, j) = f[j];
  }
  for (auto rd : {H::CapReading::none, H::CapReading::as, H::CapReading::sym})
    for (bool bias : {false, true}) {
      if (bias && rd != H::CapReading::none) continue;
      H::SvrProblem<mp_t> p;
      p.G = H::gram_from_features(Phi);
      p.Y = Y;
      p.C = mp_t(0.3);
      p.eps_prime = mp_t(0.05);
      p.cap = mp_t(0.2);
      p.reading = rd;
      p.bias = bias;
      const auto s = H::svr_solve(p);
      ASSERT_TRUE(s.converged) << H::cap_reading_name(rd);
      EXPECT_LT(d_(H::svr_kkt(p, s).worst()), 1e-30) << H::cap_reading_name(rd);
      const auto e = H::svr_solve_primal_explicit(Phi, Y, p.C, p.eps_prime, p.cap, rd, bias);
      ASSERT_TRUE(e.converged);
      const MM W = H::svr_weights_explicit(s, Phi);
      EXPECT_LT(d_(recall::ref::frob_diff(W, e.W)), 1e-25) << H::cap_reading_name(rd) << " bias " << bias;
      EXPECT_LT(d_(abs(e.objective - s.primal_objective)), 1e-30);
      // (3.4) with the explicit solve's own multipliers
      MM Wm(d, Phi.cols);
      for (std::size_t mu = 0; mu < M; ++mu)
        for (std::size_t i = 0; i < d; ++i)
          for (std::size_t j = 0; j < Phi.cols; ++j) Wm(i, j) += (e.alpha(mu, i) - e.alpha_t(mu, i)) * Phi(mu, j);
      EXPECT_LT(d_(recall::ref::frob_diff(Wm, e.W)), 1e-25);
    }
}

TEST(HopfieldSvr, DiametersBiasAndZeroC) {
  MpDigitsScope sc(50);
  H::SvrProblem<mp_t> p;
  p.G = MM(1, 1);
  p.G(0, 0) = 1;
  p.Y = MM(1, 1);
  p.Y(0, 0) = mp_t(0.7);
  p.C = mp_t(1);
  p.eps_prime = mp_t(1) / 10;
  p.bias = true;  // M = 1: W = 0 and every b in [y - eps', y + eps'] is optimal
  auto s = H::svr_solve(p);
  auto D = H::svr_optimal_set_diameters(p, s);
  EXPECT_LT(d_(abs(D.b - mp_t(2) / 10)), 1e-30);
  p.bias = false;
  s = H::svr_solve(p);
  D = H::svr_optimal_set_diameters(p, s);
  EXPECT_EQ(D.b, 0);
  EXPECT_LT(d_(D.eta), 1e-30);
  p.C = 0;  // C = 0, P-AS: tilde eta has no upper bound and no cost
  p.reading = H::CapReading::as;
  p.cap = mp_t(1) / 2;
  s = H::svr_solve(p);
  D = H::svr_optimal_set_diameters(p, s);
  EXPECT_FALSE(recall::ref::is_finite(D.eta_t));
  EXPECT_LT(d_(H::svr_kkt(p, s).worst()), 1e-30);
}

TEST(HopfieldSvr, FeasibilityAndMaskAndValidation) {
  MpDigitsScope sc(30);
  H::SvrProblem<mp_t> p;
  p.G = MM(2, 2);
  p.G(0, 0) = p.G(1, 1) = p.G(0, 1) = p.G(1, 0) = 1;  // constant kernel
  p.Y = MM(2, 1);
  p.Y(0, 0) = 1;
  p.Y(1, 0) = -1;
  p.eps_prime = mp_t(0.1);
  p.cap = mp_t(0.5);
  p.reading = H::CapReading::sym;
  EXPECT_EQ(H::svr_feasibility(p).status, H::Feasibility::infeasible);
  p.reading = H::CapReading::as;
  EXPECT_EQ(H::svr_feasibility(p).status, H::Feasibility::feasible);
  p.eps_prime = mp_t(0.6);
  EXPECT_EQ(H::svr_feasibility(p).status, H::Feasibility::infeasible);
  EXPECT_NE(error_of([&] { H::svr_solve(p); }).find("infeasible"), std::string::npos);
  p.eps_prime = mp_t(0.1);
  const auto q = H::masked_problem(p, H::Mask{0, 1});
  EXPECT_EQ(q.G.a, p.G.a);
  EXPECT_NE(error_of([&] { H::masked_problem(p, H::Mask{}); }).find("empty mask"), std::string::npos);
  p.C = -1;
  EXPECT_NE(error_of([&] { H::svr_solve(p); }).find("C must be"), std::string::npos);
}

// kernel_problem / kernel_retrieve on a mask agree with masked_problem and the explicit weights; numerically_pd rejects a
// rank-deficient Gram matrix of M > D explicit features.
TEST(HopfieldSvr, KernelProblemMaskAndRank) {
  MpDigitsScope sc(50);
  std::mt19937_64 g(11);
  const MM K = gauss(g, 4, 2, 0.5), X = gauss(g, 4, 2, 0.5);
  const mp_t beta(1);
  auto k = [&](const mp_t* x, const mp_t* y) { return H::normalised_exp_kernel(K, x, y, beta); };
  const H::Mask mask{0, 2, 3};
  const auto full = H::kernel_problem(K, X, k, nullptr, mp_t(1), mp_t(0.01), mp_t(0.5), H::CapReading::sym);
  const auto pm = H::kernel_problem(K, X, k, &mask, mp_t(1), mp_t(0.01), mp_t(0.5), H::CapReading::sym);
  EXPECT_EQ(H::masked_problem(full, mask).G.a, pm.G.a);
  const auto s = H::svr_solve(pm);
  ASSERT_TRUE(s.converged);
  const MV x{mp_t(0.1), mp_t(-0.2)};
  const MV T = H::kernel_retrieve(s, K, k, &mask, x.data());
  MV kv;
  for (std::size_t mu : mask) kv.push_back(k(K.row(mu), x.data()));
  const MV T2 = H::svr_retrieve(s, kv);
  EXPECT_LT(d_(abs(T[0] - T2[0])) + d_(abs(T[1] - T2[1])), 1e-45);
  MM Phi(3, 2);  // 3 points, 2 features: rank 2
  for (std::size_t i = 0; i < 3; ++i) Phi(i, 0) = mp_t(i + 1), Phi(i, 1) = mp_t(1) / (i + 2);
  EXPECT_FALSE(H::svr_detail::numerically_pd(H::gram_from_features(Phi)));
  EXPECT_TRUE(H::svr_detail::numerically_pd(full.G));
}

}  // namespace
