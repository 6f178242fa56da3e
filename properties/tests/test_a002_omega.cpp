// reference/omega.hpp (A002 §3.2-3.3, linear memory): the named errors on bad input, a hand-computed two-token case,
// window 1 = the delta rule (A002-OMEGA-C1-DELTA), chunk size 1 = the token-sequential rule, the exact block-triangular
// chunk form = the sequential rule for every b, the three chunk forms of the frozen-gradient algorithm agree (zero
// decay gates included, no NaN), the lag-gate layout bridge, the token-usage counter, Eq. 11's G_t form, exact pruning
// by zero gates, the fixed-window GD closed form, the Newton step's stationarity, momentum (theta = 0 is the Omega
// rule; the unrolled form), the LS group (RLS = ridge), and the Counted instantiation.
#include "recall/reference/counting.hpp"
#include "recall/reference/delta_rule.hpp"
#include "recall/reference/omega.hpp"

#include "mp_test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

namespace recall {
namespace {

using test_support::error_of;
using test_support::gauss;
using test_support::rel;
using MM = ref::Matrix<mp_t>;

// random inputs: unit-norm key/query rows, N(0,1) values, alpha ~ U[0.5,1] (every 4th a zero gate when zeros),
// gamma ~ U[0,1] on the band, eta ~ U[0.01, 0.5] / (c max ||phi||^2)
template <class S> ref::OmegaInputs<S> inputs(std::uint64_t seed, std::size_t L, std::size_t D, std::size_t dv, std::size_t c, bool zeros = false) {
  std::mt19937_64 g(seed);
  ref::OmegaInputs<double> in;
  in.PhiK = gauss<double>(g, L, D);
  in.PhiQ = gauss<double>(g, L, D);
  for (ref::Matrix<double>* X : {&in.PhiK, &in.PhiQ})
    for (std::size_t t = 0; t < L; ++t) {
      double s = 0;
      for (std::size_t j = 0; j < D; ++j) s += (*X)(t, j) * (*X)(t, j);
      for (std::size_t j = 0; j < D; ++j) (*X)(t, j) /= std::sqrt(s);
    }
  in.V = gauss<double>(g, L, dv);
  std::uniform_real_distribution<double> U(0, 1);
  in.c = c;
  in.log_alpha.resize(L);
  in.eta.resize(L);
  for (std::size_t t = 0; t < L; ++t) {
    in.log_alpha[t] = zeros && t % 4 == 2 ? -std::numeric_limits<double>::infinity() : std::log(0.5 + 0.5 * U(g));
    in.eta[t] = (0.01 + 0.49 * U(g)) / static_cast<double>(c);
  }
  in.Gamma = ref::Matrix<double>(L, L);
  for (std::size_t t = 0; t < L; ++t)
    for (std::size_t i = ref::omega_window_begin(t, c); i <= t; ++i) in.Gamma(t, i) = U(g);
  ref::OmegaInputs<S> out;
  out.PhiK = ref::cast<S>(in.PhiK);
  out.PhiQ = ref::cast<S>(in.PhiQ);
  out.V = ref::cast<S>(in.V);
  out.eta = ref::cast<S>(in.eta);
  out.Gamma = ref::cast<S>(in.Gamma);
  out.c = c;
  for (double la : in.log_alpha) out.log_alpha.push_back(std::isinf(la) ? ref::neg_inf<S>() : S(la));
  return out;
}
template <class S> double rel_out(const ref::OmegaResult<S>& a, const ref::OmegaResult<S>& b) {
  return std::max(rel(a.Y, b.Y), rel(a.state, b.state));
}

TEST(A002Omega, NamedErrorsOnBadInput) {
  const auto ok = inputs<double>(1, 4, 3, 2, 2);
  EXPECT_NO_THROW(ref::omega_rule(ok));
  auto e = ok;
  e.eta.pop_back();
  EXPECT_NE(error_of([&] { ref::omega_rule(e); }).find("eta"), std::string::npos);
  e = ok;
  e.V(1, 1) = std::nan("");
  EXPECT_NE(error_of([&] { ref::omega_rule(e); }).find("V(2, 2)"), std::string::npos);
  e = ok;
  e.log_alpha[2] = 0.1;
  EXPECT_NE(error_of([&] { ref::omega_rule(e); }).find("log_alpha[3]"), std::string::npos);
  e = ok;
  e.log_alpha[0] = std::nan("");
  EXPECT_NE(error_of([&] { ref::omega_rule(e); }).find("log_alpha[1]"), std::string::npos);
  e = ok;
  e.c = 0;
  EXPECT_NE(error_of([&] { ref::omega_rule(e); }).find("window length c"), std::string::npos);
  e = ok;
  e.Gamma = ref::Matrix<double>(3, 4);
  EXPECT_NE(error_of([&] { ref::omega_rule(e); }).find("Gamma"), std::string::npos);
  e = ok;
  e.M0 = ref::Matrix<double>(3, 3);
  EXPECT_NE(error_of([&] { ref::omega_rule(e); }).find("M0"), std::string::npos);
  e = ok;
  e.PhiQ = ref::Matrix<double>(4, 2);
  EXPECT_NE(error_of([&] { ref::omega_rule(e); }).find("feature width"), std::string::npos);
  e = ok;
  e.eta[1] = -1;
  EXPECT_NE(error_of([&] { ref::omega_rule(e); }).find("eta[2]"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::omega_chunk(ok, 0); }).find("chunk size b"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::omega_chunk_linear(ok, 0); }).find("chunk size b"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::omega_parallel_b1(ok); }).find("Gamma must be empty"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::omega_rule_lq(ok, 0.0); }).find("q must be > 0"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::omeganet_linear_vecdecay(ok, ref::Matrix<double>(4, 3)); }).find("in.log_alpha must be empty"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::global_ls_rls(ok.PhiQ, ok.PhiK, ok.V, 0.0); }).find("lambda"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::sliding_window_objective(ref::Bias{}, ref::Matrix<double>(2, 3), ok, 5); }).find("t = 5"), std::string::npos);
  ref::OmegaInputs<double> empty;
  EXPECT_NE(error_of([&] { ref::omega_rule(empty); }).find("L = 0"), std::string::npos);
}

// L = 2, D = d_v = 1, c = 2, alpha = gamma = 1, eta = 1/4: phi = (1, 2), v = (1, 0), M_0 = 0, q = 1.
// M_1 = 0 - 1/4 * 2 (0 - 1) = 1/2; M_2 = 1/2 - 1/4 (2 (1/2 - 1) 1 + 2 (1 - 0) 2) = 1/2 - 3/4 = -1/4.
TEST(A002Omega, HandComputedTwoTokens) {
  ref::OmegaInputs<double> in;
  in.PhiK = ref::Matrix<double>(2, 1);
  in.PhiK(0, 0) = 1;
  in.PhiK(1, 0) = 2;
  in.PhiQ = ref::Matrix<double>(2, 1);
  in.PhiQ(0, 0) = in.PhiQ(1, 0) = 1;
  in.V = ref::Matrix<double>(2, 1);
  in.V(0, 0) = 1;
  in.eta = {0.25, 0.25};
  in.c = 2;
  const auto r = ref::omega_rule(in);
  EXPECT_EQ(r.Y(0, 0), 0.5);
  EXPECT_EQ(r.Y(1, 0), -0.25);
  EXPECT_EQ(r.state(0, 0), -0.25);
  // the window objective at M = 1/2, t = 2: (1/2 - 1)^2 + (1 - 0)^2 = 5/4; half_l2: 5/8
  ref::Matrix<double> M(1, 1);
  M(0, 0) = 0.5;
  EXPECT_EQ(ref::sliding_window_objective(ref::Bias{}, M, in, 2), 1.25);
  ref::Bias h;
  h.half_l2 = true;
  EXPECT_EQ(ref::sliding_window_objective(h, M, in, 2), 0.625);
  // frozen chunk b = 2: both steps use gradients at M_0 = 0: M_1 = 1/2, M_2 = 1/2 - 1/4 (2 (0 - 1) + 0) = 1
  const auto ch = ref::omega_chunk(in, 2);
  EXPECT_EQ(ch.Y(0, 0), 0.5);
  EXPECT_EQ(ch.Y(1, 0), 1.0);
  EXPECT_EQ(ref::omega_chunk_linear(in, 2).Y(1, 0), 1.0);
}

TEST(A002Omega, WindowOneIsTheDeltaRule) {
  for (std::uint64_t s = 0; s < 4; ++s) {
    auto in = inputs<double>(10 + s, 9, 3, 2, 1);
    in.Gamma = ref::Matrix<double>();  // gamma = 1
    ref::Vector<double> beta(9);
    for (std::size_t t = 0; t < 9; ++t) beta[t] = 2 * in.eta[t];
    const auto om = ref::omega_rule(in);
    const auto dT = ref::gated_delta_rule(in.PhiQ, in.PhiK, in.V, beta, in.log_alpha, ref::DecayPlacement::T);
    EXPECT_LT(rel(om.Y, dT.O), 1e-14);
    EXPECT_LT(rel(om.state, dT.state), 1e-14);
    const auto dG = ref::gated_delta_rule(in.PhiQ, in.PhiK, in.V, beta, in.log_alpha, ref::DecayPlacement::G);
    EXPECT_GT(rel(om.state, dG.state), 1e-6);  // decay form (G) is a different rule
    ref::Bias h;
    h.half_l2 = true;
    auto in1 = in;
    in1.log_alpha.clear();
    EXPECT_LT(rel(ref::omega_rule(in1, h).Y, ref::delta_rule(in.PhiQ, in.PhiK, in.V, in.eta).O), 1e-14);  // half_l2: beta = eta
  }
}

TEST(A002Omega, ChunkSizeOneIsTheSequentialRule) {
  const auto in = inputs<double>(3, 11, 4, 3, 3, true);
  const auto seq = ref::omega_rule(in), ch = ref::omega_chunk(in, 1);
  EXPECT_EQ(seq.Y.a, ch.Y.a);  // the same operations in the same order
  EXPECT_EQ(seq.state.a, ch.state.a);
  EXPECT_LT(rel_out(ref::omega_chunk_linear(in, 1), seq), 1e-13);
  EXPECT_LT(rel_out(ref::omega_chunk_eq16(in, 1), seq), 1e-13);
  // and b >= 2 is a different model (frozen gradients)
  EXPECT_GT(rel(ref::omega_chunk(in, 4).Y, seq.Y), 1e-8);
}

TEST(A002Omega, ExactChunkFormIsTheSequentialRuleForEveryB) {
  MpDigitsScope sc(50);
  for (std::size_t c : {1, 2, 5, 12}) {
    const auto in = inputs<mp_t>(20 + c, 10, 3, 2, c, true);
    const auto seq = ref::omega_rule(in);
    for (std::size_t b : {1, 2, 3, 4, 10, 16}) EXPECT_LT(rel_out(ref::omega_rule_exact_chunked(in, b), seq), 1e-40) << "c=" << c << " b=" << b;
  }
}

TEST(A002Omega, ChunkFormsAgreeWithZeroGatesAndLookBack) {
  for (std::size_t c : {1, 2, 3, 8}) {
    const auto in = inputs<double>(30 + c, 13, 3, 2, c, true);
    for (std::size_t b : {2, 3, 4, 16}) {
      const auto loop = ref::omega_chunk(in, b);
      const auto lin = ref::omega_chunk_linear(in, b);
      const auto eq = ref::omega_chunk_eq16(in, b);
      for (double y : lin.Y.a) EXPECT_TRUE(std::isfinite(y));
      EXPECT_LT(rel_out(lin, loop), 1e-13) << "c=" << c << " b=" << b;
      EXPECT_LT(rel_out(eq, loop), 1e-13) << "c=" << c << " b=" << b;
    }
  }
}

TEST(A002Omega, LagGatesAndUsageCounter) {
  ref::Matrix<double> lag(5, 3);
  for (std::size_t t = 0; t < 5; ++t)
    for (std::size_t j = 0; j < 3; ++j) lag(t, j) = 10.0 * static_cast<double>(t + 1) + static_cast<double>(j);
  const auto G = ref::omega_gamma_from_lags(lag);
  EXPECT_EQ(G(4, 4), 50.0);  // j = 0: the token itself
  EXPECT_EQ(G(4, 2), 52.0);  // j = 2: two tokens back
  EXPECT_EQ(G(1, 0), 21.0);
  EXPECT_EQ(G(0, 0), 10.0);
  EXPECT_EQ(G(4, 1), 0.0);  // outside the band
  auto in = inputs<double>(5, 7, 2, 2, 3);
  const auto r = ref::omega_rule(in);
  for (std::size_t i = 0; i < 7; ++i) EXPECT_EQ(r.usage[i], std::min<std::size_t>(3, 7 - i));
  // entries of Gamma outside the window are never read
  auto in2 = in;
  in2.Gamma(6, 0) = 123.0;
  EXPECT_EQ(ref::omega_rule(in2).Y.a, r.Y.a);
}

TEST(A002Omega, Eq11GFormAndVectorDecay) {
  const auto in = inputs<double>(7, 8, 3, 2, 3, true);
  EXPECT_LT(rel_out(ref::omeganet_linear(in), ref::omega_rule(in)), 1e-13);
  auto nv = in;
  nv.log_alpha.clear();
  ref::Matrix<double> LA(8, 3);
  for (std::size_t t = 0; t < 8; ++t)
    for (std::size_t j = 0; j < 3; ++j) LA(t, j) = in.log_alpha[t];
  EXPECT_LT(rel_out(ref::omeganet_linear_vecdecay(nv, LA), ref::omeganet_linear(in)), 1e-13);
}

TEST(A002Omega, ZeroGatesPruneATokenExactly) {
  auto in = inputs<double>(9, 9, 3, 2, 3);
  const std::size_t i0 = 4;
  for (std::size_t t = 0; t < 9; ++t) in.Gamma(t, i0) = 0;
  auto other = in;
  for (std::size_t j = 0; j < 3; ++j) other.PhiK(i0, j) = 7.0 + static_cast<double>(j);
  for (std::size_t j = 0; j < 2; ++j) other.V(i0, j) = -3.0;
  EXPECT_EQ(ref::omega_rule(in).Y.a, ref::omega_rule(other).Y.a);
  EXPECT_EQ(ref::omega_chunk(in, 4).Y.a, ref::omega_chunk(other, 4).Y.a);
}

TEST(A002Omega, FixedWindowGdClosedFormAndNewtonStep) {
  MpDigitsScope sc(50);
  const auto in = inputs<mp_t>(11, 6, 4, 2, 3);  // windows of 3 rows in D = 4: rank-deficient G
  const auto W = ref::omega_window(in, 6);
  std::mt19937_64 g(12);
  const MM M0 = gauss<mp_t>(g, 2, 4);
  const mp_t eta(0.2);
  for (std::size_t K : {1, 5, 40})
    EXPECT_LT(rel(ref::omega_wls_fixedpoint_closed(W, eta, M0, K, mp_t(1e-40)), ref::omega_window_gd(W, eta, M0, K)), 1e-40) << "K=" << K;
  const MM MN = ref::omega_newton_step(in, 6, M0, mp_t(1e-40));
  EXPECT_LT(static_cast<double>(ref::frob(ref::sliding_window_gradient(ref::Bias{}, MN, in, 6))), 1e-40);
  // the K -> infinity limit of GD from M0 is the Newton step (the minimiser closest to M0)
  EXPECT_LT(rel(ref::omega_wls_fixedpoint_closed(W, eta, M0, 100000, mp_t(1e-40)), MN), 1e-30);
}

TEST(A002Omega, MomentumReducesAndUnrolls) {
  MpDigitsScope sc(50);
  const auto in = inputs<mp_t>(13, 8, 3, 2, 2, true);
  const ref::Vector<mp_t> none(8, ref::neg_inf<mp_t>());
  EXPECT_LT(rel_out(ref::omega_momentum(in, none), ref::omega_rule(in)), 1e-45);
  ref::Vector<mp_t> lt(8);
  for (std::size_t t = 0; t < 8; ++t) lt[t] = log(mp_t(0.9 - 0.05 * static_cast<double>(t)));
  std::mt19937_64 g(14);
  const MM S0 = gauss<mp_t>(g, 2, 3);
  const auto run = ref::omega_momentum(in, lt, ref::Bias{}, &S0, true);
  for (std::size_t t = 1; t <= 8; ++t) EXPECT_LT(rel(ref::titans_unrolled_state(in, lt, run.states, t, ref::Bias{}, &S0), run.states[t]), 1e-45);
}

TEST(A002Omega, GlobalLeastSquaresGroup) {
  const auto in = inputs<double>(15, 12, 3, 2, 1);
  for (double lam : {1.0, 1e-2}) {
    const auto r = ref::global_ls_rls(in.PhiQ, in.PhiK, in.V, lam);
    EXPECT_LT(rel(r.M, ref::global_ls_state(in.PhiK, in.V, 12, lam, 1e-12)), 1e-10);
  }
  EXPECT_LT(rel(ref::global_ls_state(in.PhiK, in.V, 12, 0.0, 1e-12), ref::ridge_state(in.PhiK, in.V, 12, 0.0)), 1e-10);
}

TEST(A002Omega, CountedInstantiationIsDeterministic) {
  const auto in = inputs<Counted>(16, 20, 4, 4, 3);
  std::uint64_t m1 = 0, m2 = 0;
  {
    OpCountScope s;
    (void)ref::omega_chunk_linear(in, 8);
    m1 = s.counts().mul;
  }
  {
    OpCountScope s;
    (void)ref::omega_chunk_linear(in, 8);
    m2 = s.counts().mul;
  }
  EXPECT_GT(m1, 0u);
  EXPECT_EQ(m1, m2);
}

}  // namespace
}  // namespace recall
