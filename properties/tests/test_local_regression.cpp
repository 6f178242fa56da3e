// Reference header local_regression.hpp (A001 Vignette 4, Eqs. 48-54): the p = 1 direct form against
// its offset, moment and streaming forms, affine reproduction, the singular-system readings (PINV,
// slope-only RIDGE, throw naming t), invariance of Theta under W -> cW, the general-p estimator (NW at
// p = 0, polynomial reproduction, the monomial basis), the cost-harness phases, and bad input.
#include "recall/reference/counting.hpp"
#include "recall/reference/local_regression.hpp"
#include "mp_test_support.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

namespace recall {
namespace {

using ref::Matrix;
using ref::Vector;
using namespace test_support;

template <class S> double vdiff(const Vector<S>& a, const Vector<S>& b) {
  double d = 0, n = 1;
  for (std::size_t i = 0; i < a.size(); ++i) {
    d = std::max(d, std::abs(static_cast<double>(a[i] - b[i])));
    n = std::max(n, std::abs(static_cast<double>(b[i])));
  }
  return d / n;
}
template <class S> double mdiff(const Matrix<S>& a, const Matrix<S>& b) {
  double d = 0, n = 1;
  for (std::size_t i = 0; i < a.a.size(); ++i) {
    d = std::max(d, std::abs(static_cast<double>(a.a[i] - b.a[i])));
    n = std::max(n, std::abs(static_cast<double>(b.a[i])));
  }
  return d / n;
}
ref::Similarity pick_sim(int k, std::size_t dk) {
  return k == 0 ? ref::sim_dot_exp() : k == 1 ? ref::sim_gauss(2.0 * static_cast<double>(dk)) : ref::sim_dot_exp(1.5);
}

// Direct (SVD), stream (F12), moment and offset forms agree in fp64 at invertible t (moderate conditioning),
// for both similarities; the causal driver returns the same rows.
RC_GTEST_PROP(LocalLinear, FormsAgreeInDouble, ()) {
  const std::size_t dk = *rc::gen::inRange(1, 5), dv = *rc::gen::inRange(1, 4);
  const std::size_t T = dk + 2 + *rc::gen::inRange(0, 12);
  const int simk = *rc::gen::inRange(0, 3);
  std::mt19937_64 g(*rc::gen::inRange<std::uint64_t>(1, 1u << 30));
  const Matrix<double> Q = gauss(g, T, dk), K = gauss(g, T, dk), V = gauss(g, T, dv);
  const ref::Similarity sim = pick_sim(simk, dk);
  ref::LocalDiagnostics diag;
  const Matrix<double> Y = ref::local_linear_attention(Q, K, V, sim, ref::pinv_policy(), &diag);
  RC_ASSERT(diag.rank.size() == T);
  for (std::size_t t = dk + 2; t <= T; ++t) {
    const double* q = Q.row(t - 1);
    const auto d = ref::local_linear_direct(K, V, t, q, sim, ref::pinv_policy());
    if (d.cond > 1e6) continue;  // too ill-conditioned to compare in fp64
    const auto s = ref::local_linear_stream(K, V, t, q, sim, ref::pinv_policy());
    const auto m = ref::local_linear_moment(K, V, t, q, sim, ref::pinv_policy());
    const auto w = ref::local_weights(sim, K, t, q);
    Matrix<double> M1(dv, dk);
    for (std::size_t c = 0; c < dv; ++c)
      for (std::size_t j = 0; j < dk; ++j) M1(c, j) = d.theta(c, 1 + j);
    const double tol = 1e-13 * d.cond * d.cond;
    RC_ASSERT(vdiff(s.output, d.output) <= tol);
    RC_ASSERT(vdiff(m.output, d.output) <= tol);
    RC_ASSERT(vdiff(ref::local_linear_offset(K, V, t, q, w, M1), d.output) <= tol);
    RC_ASSERT(vdiff(ref::local_linear_shifted_nw(K, V, t, q, w, M1), d.output) <= tol);
    for (std::size_t c = 0; c < dv; ++c) RC_ASSERT(Y(t - 1, c) == d.output[c]);
    RC_ASSERT(d.rank == dk + 1 && !d.singular);
  }
}

// MP: the three forms agree to ~40 digits, also at singular t under PINV (stream vs direct) and under the
// slope-only ridge (all three).
TEST(LocalLinear, FormsAgreeInMpIncludingSingularPrefixes) {
  MpDigitsScope sc(50);
  std::mt19937_64 g(7);
  const std::size_t T = 9, dk = 3, dv = 2;
  const Matrix<mp_t> Q = gauss<mp_t>(g, T, dk), K = gauss<mp_t>(g, T, dk), V = gauss<mp_t>(g, T, dv);
  for (int simk = 0; simk < 3; ++simk) {
    const ref::Similarity sim = pick_sim(simk, dk);
    for (std::size_t t = 1; t <= T; ++t) {
      const mp_t* q = Q.row(t - 1);
      const auto d = ref::local_linear_direct(K, V, t, q, sim, ref::pinv_policy());
      const auto s = ref::local_linear_stream(K, V, t, q, sim, ref::pinv_policy());
      EXPECT_LT(mdiff(s.theta, d.theta), 1e-35) << "t=" << t;
      EXPECT_EQ(d.singular, t <= dk);
      EXPECT_EQ(d.rank, std::min(t, dk + 1));
      const auto dr = ref::local_linear_direct(K, V, t, q, sim, ref::ridge_policy(1e-3));
      const auto sr = ref::local_linear_stream(K, V, t, q, sim, ref::ridge_policy(1e-3));
      const auto mr = ref::local_linear_moment(K, V, t, q, sim, ref::ridge_policy(1e-3));
      EXPECT_LT(vdiff(sr.output, dr.output), 1e-35) << "t=" << t;
      EXPECT_LT(vdiff(mr.output, dr.output), 1e-35) << "t=" << t;
      EXPECT_LT(std::abs(static_cast<double>((dr.mu - sr.mu) / sr.mu)), 1e-45);
    }
  }
}

// Theta is invariant to W -> cW (weights given explicitly), and the max-subtracted weights have max 1.
TEST(LocalLinear, ThetaInvariantToWeightScale) {
  MpDigitsScope sc(50);
  std::mt19937_64 g(11);
  const Matrix<mp_t> K = gauss<mp_t>(g, 8, 2), V = gauss<mp_t>(g, 8, 2), Q = gauss<mp_t>(g, 8, 2);
  const auto w = ref::local_weights(ref::sim_dot_exp(), K, 8, Q.row(7));
  mp_t mx(0);
  for (const mp_t& x : w) mx = x > mx ? x : mx;
  EXPECT_EQ(mx, mp_t(1));
  Vector<mp_t> w2 = w;
  for (mp_t& x : w2) x *= mp_t("1e-200");
  for (const auto& pol : {ref::pinv_policy(), ref::ridge_policy(1e-2)}) {
    const auto a = ref::local_linear_direct_weights(K, V, 8, Q.row(7), w, pol);
    const auto b = ref::local_linear_direct_weights(K, V, 8, Q.row(7), w2, pol);
    EXPECT_LT(mdiff(a.theta, b.theta), 1e-40);
  }
  const auto a = ref::local_linear_direct_weights(K, V, 4, Q.row(7), ref::Vector<mp_t>(w.begin(), w.begin() + 4), ref::pinv_policy());
  const auto b = ref::local_linear_direct_weights(K, V, 4, Q.row(7), ref::Vector<mp_t>(w2.begin(), w2.begin() + 4), ref::pinv_policy());
  EXPECT_LT(mdiff(a.theta, b.theta), 1e-40);  // singular prefix too (PINV)
}

// Affine maps are reproduced exactly for any positive weights (invertible systems).
RC_GTEST_PROP(LocalLinear, ReproducesAffineMaps, ()) {
  const std::size_t dk = *rc::gen::inRange(1, 4), dv = *rc::gen::inRange(1, 3);
  const std::size_t t = dk + 2 + *rc::gen::inRange(0, 6);
  std::mt19937_64 g(*rc::gen::inRange<std::uint64_t>(1, 1u << 30));
  const Matrix<double> K = gauss(g, t, dk), A = gauss(g, dv, dk), b = gauss(g, 1, dv), q = gauss(g, 1, dk);
  Matrix<double> V(t, dv);
  for (std::size_t i = 0; i < t; ++i)
    for (std::size_t c = 0; c < dv; ++c) {
      V(i, c) = b(0, c);
      for (std::size_t j = 0; j < dk; ++j) V(i, c) += A(c, j) * K(i, j);
    }
  std::uniform_real_distribution<double> U(0.05, 1.0);
  Vector<double> w(t);
  for (double& x : w) x = U(g);
  const auto f = ref::local_linear_direct_weights(K, V, t, q.row(0), w, ref::throw_policy());
  Vector<double> target(dv);
  for (std::size_t c = 0; c < dv; ++c) {
    target[c] = b(0, c);
    for (std::size_t j = 0; j < dk; ++j) target[c] += A(c, j) * q(0, j);
  }
  RC_ASSERT(vdiff(f.output, target) <= 1e-12 * f.cond);
}

// Singular systems: t = 1 under PINV gives v_1 / (1 + |d_1|^2); the throw policy names t; the ridge with a
// huge mu gives NW; all keys at q give NW under the ridge (trace 0).
TEST(LocalLinear, SingularReadings) {
  MpDigitsScope sc(50);
  Matrix<mp_t> K(3, 2), V(3, 1);
  K(0, 0) = 1;
  K(0, 1) = 2;
  V(0, 0) = 3;
  K(1, 0) = -1;
  K(1, 1) = 0.5;
  V(1, 0) = -2;
  K(2, 0) = 0.25;
  K(2, 1) = -1;
  V(2, 0) = 1;
  const mp_t q[2] = {mp_t(0), mp_t(0)};
  const auto f = ref::local_linear_direct(K, V, 1, q, ref::sim_gauss(1.0), ref::pinv_policy());
  EXPECT_LT(std::abs(static_cast<double>(f.output[0] - mp_t(3) / 6)), 1e-45);
  EXPECT_TRUE(f.singular);
  EXPECT_EQ(f.rank, 1u);
  try {
    (void)ref::local_linear_direct(K, V, 2, q, ref::sim_gauss(1.0), ref::throw_policy());
    ADD_FAILURE() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("t = 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)ref::local_linear_stream(K, V, 2, q, ref::sim_gauss(1.0), ref::throw_policy()), std::invalid_argument);
  EXPECT_THROW((void)ref::local_linear_moment(K, V, 2, q, ref::sim_gauss(1.0), ref::throw_policy()), std::invalid_argument);
  EXPECT_NO_THROW((void)ref::local_linear_direct(K, V, 3, q, ref::sim_gauss(1.0), ref::throw_policy()));
  // ridge, mu -> inf: NW
  const auto w = ref::local_weights(ref::sim_gauss(1.0), K, 3, q);
  const auto big = ref::local_linear_direct_weights(K, V, 3, q, w, ref::ridge_policy(1e60));
  EXPECT_LT(vdiff(big.output, ref::nw_minimizer(w, V)), 1e-40);
  // trace 0
  Matrix<mp_t> K0(3, 2);
  const auto r0 = ref::local_linear_direct(K0, V, 3, q, ref::sim_dot_exp(), ref::ridge_policy(1e-4));
  EXPECT_LT(vdiff(r0.output, Vector<mp_t>{mp_t(2) / 3}), 1e-45);
}

// General p: p = 0 is NW; polynomials of degree <= p are reproduced; the basis has binom(D_k + p, p) columns.
TEST(LocalPoly, GeneralP) {
  EXPECT_EQ(ref::monomial_count(64, 2), 2145u);
  EXPECT_EQ(ref::monomial_exponents(3, 3).size(), 20u);
  EXPECT_EQ(ref::monomial_exponents(2, 1), (std::vector<std::vector<int>>{{0, 0}, {1, 0}, {0, 1}}));
  MpDigitsScope sc(50);
  std::mt19937_64 g(5);
  const std::size_t t = 14, dk = 2;
  const Matrix<mp_t> K = gauss<mp_t>(g, t, dk), Vr = gauss<mp_t>(g, t, 1), q = gauss<mp_t>(g, 1, dk);
  const auto w = ref::local_weights(ref::sim_gauss(2.0), K, t, q.row(0));
  EXPECT_LT(vdiff(ref::local_poly_fit_weights(K, Vr, t, q.row(0), w, 0, ref::throw_policy()).output, ref::nw_minimizer(w, Vr)), 1e-45);
  // P(k) = 1 - 2 k1 + k1 k2 + 0.5 k2^2 - k1^3 (degree 3, 10 monomials <= 14 points)
  auto P = [](const mp_t* k) { return mp_t(1 - 2 * k[0] + k[0] * k[1] + k[1] * k[1] / 2 - k[0] * k[0] * k[0]); };
  Matrix<mp_t> V(t, 1);
  for (std::size_t i = 0; i < t; ++i) V(i, 0) = P(K.row(i));
  const auto f3 = ref::local_poly_fit(K, V, t, q.row(0), ref::sim_gauss(2.0), 3, ref::throw_policy());
  EXPECT_LT(std::abs(static_cast<double>(f3.output[0] - P(q.row(0)))), 1e-35);
  const auto f2 = ref::local_poly_fit(K, V, t, q.row(0), ref::sim_gauss(2.0), 2, ref::throw_policy());
  EXPECT_GT(std::abs(static_cast<double>(f2.output[0] - P(q.row(0)))), 1e-10);  // degree 2 does not reproduce a cubic
  // p = 1 general = direct
  const auto a = ref::local_poly_fit(K, V, t, q.row(0), ref::sim_gauss(2.0), 1, ref::pinv_policy());
  const auto b = ref::local_linear_direct(K, V, t, q.row(0), ref::sim_gauss(2.0), ref::pinv_policy());
  EXPECT_EQ(mdiff(a.theta, b.theta), 0.0);
}

// Cost harness: the phase functions compute the same outputs as the direct form (ridge reading), and the
// streaming form's working memory does not grow with T.
TEST(LocalLinear, CostHarnessPhases) {
  std::mt19937_64 g(3);
  const std::size_t T = 12, dk = 2, dv = 2;
  const Matrix<double> Q = gauss(g, T, dk), K = gauss(g, T, dk), V = gauss(g, T, dv);
  const auto sim = ref::sim_dot_exp();
  const auto W = ref::ll_all_weights(ref::ll_all_logits(Q, K, sim));
  const auto X = ref::ll_materialize_designs(Q, K);
  const Matrix<double> Y = ref::ll_solve_all(ref::ll_form_grams(X, W), ref::ll_form_cross(X, W, V), 1e-6);
  const Matrix<double> Yd = ref::local_linear_attention(Q, K, V, sim, ref::ridge_policy(1e-6));
  const Matrix<double> Ys = ref::local_linear_attention_stream_ge(Q, K, V, sim, 1e-6);
  EXPECT_LT(mdiff(Y, Yd), 1e-9);
  EXPECT_LT(mdiff(Ys, Yd), 1e-9);
  EXPECT_THROW((void)ref::ll_solve_all(ref::ll_form_grams(X, W), ref::ll_form_cross(X, W, V), 0.0), std::invalid_argument);  // t = 1 singular
  auto working = [&](std::size_t TT) {
    std::mt19937_64 h(9);
    const auto Qc = ref::cast<Counted>(gauss(h, TT, dk)), Kc = ref::cast<Counted>(gauss(h, TT, dk)), Vc = ref::cast<Counted>(gauss(h, TT, dv));
    return measure_working([&] { return ref::local_linear_attention_stream_ge(Qc, Kc, Vc, sim, 1e-6); },
                           [](const Matrix<Counted>& Yc, auto&& f) {
                             for (const Counted& x : Yc.a) f(x);
                           })
        .working;
  };
  EXPECT_EQ(working(8), working(32));
}

// Bad input: NaN in K / V / q, wrong prefix length, bad similarity or policy parameters.
TEST(LocalLinear, BadInputThrows) {
  Matrix<double> K(3, 2), V(3, 1);
  const double q[2] = {0, 0};
  K(0, 0) = 1;
  EXPECT_THROW((void)ref::local_linear_direct(K, V, 4, q, ref::sim_dot_exp(), ref::pinv_policy()), std::invalid_argument);
  EXPECT_THROW((void)ref::local_linear_direct(K, V, 0, q, ref::sim_dot_exp(), ref::pinv_policy()), std::invalid_argument);
  EXPECT_THROW((void)ref::local_linear_direct(K, V, 2, q, ref::sim_gauss(0.0), ref::pinv_policy()), std::invalid_argument);
  EXPECT_THROW((void)ref::local_linear_direct(K, V, 2, q, ref::sim_dot_exp(), ref::ridge_policy(0.0)), std::invalid_argument);
  Matrix<double> Kn = K;
  Kn(1, 1) = std::nan("");
  try {
    (void)ref::local_linear_stream(Kn, V, 3, q, ref::sim_dot_exp(), ref::pinv_policy());
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("K at row 2"), std::string::npos) << e.what();
  }
  const double qn[2] = {0, INFINITY};
  EXPECT_THROW((void)ref::local_linear_moment(K, V, 3, qn, ref::sim_dot_exp(), ref::pinv_policy()), std::invalid_argument);
  Vector<double> w = {1, -1, 1};
  EXPECT_THROW((void)ref::local_linear_direct_weights(K, V, 3, q, w, ref::pinv_policy()), std::invalid_argument);
}

}  // namespace
}  // namespace recall
