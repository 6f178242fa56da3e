// reference/mlp_memory.hpp (A002-MEMORY-MLP, -RESID-DROP, -RESID-PROJ, -GATED-MLP, -MLP-GRAD, A002-OMEGA-CHUNK-MLP,
// A002-OMEGANET-UPDATE, A002-OMEGANET-D3, A002-DT-DEEP-TRUNC): hand-computed activations and read-outs, the
// closed-form gradients against 100-digit central differences (GELU erf / tanh, tanh, ReLU away from kinks; a wrong
// GELU variant failing the same comparison), the chunk form against the frozen-gradient loop, b = 1 chunking against
// the token-sequential OmegaNet, D.3 against Eq. 10, and the named errors.
#include "recall/reference/mlp_memory.hpp"

#include "mp_test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

namespace recall {
namespace {

using test_support::error_of;
using test_support::gauss;
using test_support::rel;
using test_support::relv;
using ref::MlpAct;
using ref::MlpMem;
using ref::MlpResidual;

template <class S> MlpMem<S> mem(std::mt19937_64& g, std::size_t D, std::size_t dh, std::size_t dv, MlpResidual r, MlpAct a, bool gated) {
  MlpMem<S> m;
  m.res = r;
  m.act = a;
  m.W2 = gauss<S>(g, dh, D, 1.0 / std::sqrt(double(D)));
  m.W1 = gauss<S>(g, dv, dh, 1.0 / std::sqrt(double(dh)));
  if (gated) m.W3 = gauss<S>(g, dh, D, 1.0 / std::sqrt(double(D)));
  if (r == MlpResidual::proj) m.P = gauss<S>(g, dv, D);
  return m;
}

TEST(A002Mlp, ActivationsHandValues) {
  EXPECT_NEAR(ref::mlp_act(1.0, MlpAct::gelu_erf), 0.8413447460685429, 1e-15);
  EXPECT_NEAR(ref::mlp_act_prime(0.0, MlpAct::gelu_erf), 0.5, 1e-15);
  EXPECT_NEAR(ref::mlp_act(1.0, MlpAct::gelu_tanh), 0.8411919906082768, 1e-15);
  EXPECT_NEAR(ref::mlp_act_prime(0.5, MlpAct::tanh), 1 - std::tanh(0.5) * std::tanh(0.5), 1e-15);
  EXPECT_EQ(ref::mlp_act(-2.0, MlpAct::relu), 0.0);
  EXPECT_EQ(ref::mlp_act_prime(3.0, MlpAct::relu), 1.0);
  // erfc form: GELU(-30) = -30 Phi(-30) ~ -1.47e-196 keeps relative accuracy (the 1 + erf form gives 0)
  const double v = ref::mlp_act(-30.0, MlpAct::gelu_erf);
  EXPECT_LT(v, 0.0);
  EXPECT_NEAR(v / (-30.0 * 0.5 * std::erfc(30.0 / std::sqrt(2.0))), 1.0, 1e-14);
}

TEST(A002Mlp, ReadOutHandCase) {
  MlpMem<double> m;  // D = d_v = 2, d_h = 1, ReLU: M(x) = x + W1 relu(W2 x)
  m.act = MlpAct::relu;
  m.W2 = ref::Matrix<double>(1, 2);
  m.W2(0, 0) = 1;
  m.W2(0, 1) = 2;
  m.W1 = ref::Matrix<double>(2, 1);
  m.W1(0, 0) = 3;
  m.W1(1, 0) = -1;
  const auto y = ref::mlp_memory_read(m, {1.0, 1.0});  // h = 3: y = (1 + 9, 1 - 3)
  EXPECT_EQ(y[0], 10.0);
  EXPECT_EQ(y[1], -2.0);
  m.res = MlpResidual::none;
  EXPECT_EQ(ref::mlp_memory_read(m, {1.0, 1.0})[0], 9.0);
  m.res = MlpResidual::proj;
  m.P = ref::Matrix<double>(2, 2);
  m.P(0, 1) = 1;  // P x = (x_2, 0)
  const auto yp = ref::mlp_memory_read(m, {1.0, 5.0});  // h = 11: y = (5 + 33, -11)
  EXPECT_EQ(yp[0], 38.0);
  EXPECT_EQ(yp[1], -11.0);
  m.W3 = ref::Matrix<double>(1, 2);  // gated: a = relu(h) * (W3 x) = 11 * 2
  m.W3(0, 0) = 2;
  m.res = MlpResidual::none;
  EXPECT_EQ(ref::mlp_memory_read(m, {1.0, 5.0})[0], 66.0);
}

TEST(A002Mlp, GradientsMatchCentralDifferences) {
  MpDigitsScope sc(100);
  std::mt19937_64 g(7);
  const mp_t h = pow(mp_t(10), -30);
  for (MlpAct a : {MlpAct::gelu_erf, MlpAct::gelu_tanh, MlpAct::tanh, MlpAct::relu})
    for (MlpResidual r : {MlpResidual::identity, MlpResidual::none, MlpResidual::proj})
      for (bool gated : {false, true})
        for (int bk = 0; bk < 2; ++bk) {
          const std::size_t D = 3, dv = r == MlpResidual::identity ? 3 : 2;
          const MlpMem<mp_t> m = mem<mp_t>(g, D, 4, dv, r, a, gated);
          const ref::Matrix<mp_t> x = gauss<mp_t>(g, 1, D), v = gauss<mp_t>(g, 1, dv);
          if (a == MlpAct::relu) {  // away from the kink
            const auto pre = ref::matvec(m.W2, x.row(0));
            bool ok = true;
            for (const mp_t& p : pre) ok = ok && abs(p) > mp_t(1e-6);
            if (!ok) continue;
          }
          const ref::Bias b = bk == 0 ? ref::Bias{} : ref::Bias{ref::BiasKind::dot};
          const auto G = ref::mlp_memory_grad(b, m, x.row(0), v.row(0));
          const std::function<mp_t(const ref::Params<mp_t>&)> F = [&](const ref::Params<mp_t>& p) {
            return ref::mlp_memory_loss(b, ref::mlp_with_params(m, p), x.row(0), v.row(0));
          };
          const auto N = ref::central_difference_gradient(F, ref::mlp_params(m), h);
          ASSERT_EQ(G.size(), N.size());
          for (std::size_t k = 0; k < G.size(); ++k) EXPECT_LT(rel(G[k], N[k]), 1e-40) << ref::mlp_act_name(a) << " " << ref::mlp_residual_name(r) << " matrix " << k;
          if (a == MlpAct::gelu_erf && bk == 0) {  // negative control: the tanh-GELU derivative is detected
            MlpMem<mp_t> w = m;
            w.act = MlpAct::gelu_tanh;
            EXPECT_GT(rel(ref::mlp_memory_grad(b, w, x.row(0), v.row(0))[1], N[1]), 1e-8);
          }
        }
}

ref::OmegaInputs<double> seq(std::mt19937_64& g, std::size_t L, std::size_t D, std::size_t dv, std::size_t c) {
  ref::OmegaInputs<double> in;
  in.PhiQ = gauss<double>(g, L, D, 0.5);
  in.PhiK = gauss<double>(g, L, D, 0.5);
  in.V = gauss<double>(g, L, dv);
  std::uniform_real_distribution<double> u(0.5, 1.0);
  for (std::size_t t = 0; t < L; ++t) {
    in.log_alpha.push_back(std::log(u(g)));
    in.eta.push_back(0.1 * u(g));
  }
  in.Gamma = ref::Matrix<double>(L, L);
  for (std::size_t t = 0; t < L; ++t)
    for (std::size_t i = ref::omega_window_begin(t, c); i <= t; ++i) in.Gamma(t, i) = u(g);
  in.c = c;
  return in;
}

TEST(A002Mlp, ChunkFormMatchesFrozenLoop) {
  std::mt19937_64 g(11);
  for (std::size_t b : {1u, 2u, 3u, 5u, 16u})
    for (std::size_t c : {1u, 2u, 4u})
      for (bool gated : {false, true}) {
        const auto in = seq(g, 9, 4, 4, c);
        const auto m = mem<double>(g, 4, 6, 4, MlpResidual::identity, MlpAct::gelu_erf, gated);
        const auto A = ref::omega_chunk_mlp(in, m, b), B = ref::omega_chunk_mlp_loop(in, m, b);
        EXPECT_LT(rel(A.Y, B.Y), 1e-12) << "b=" << b << " c=" << c;
        EXPECT_LT(rel(A.state.W1, B.state.W1), 1e-12);
        EXPECT_LT(rel(A.state.W2, B.state.W2), 1e-12);
      }
  // b = 1 is the token-sequential OmegaNet; b = 3 is not (frozen gradients in a nonlinear memory)
  const auto in = seq(g, 7, 3, 3, 2);
  const auto m = mem<double>(g, 3, 5, 3, MlpResidual::identity, MlpAct::tanh, false);
  EXPECT_LT(rel(ref::omega_chunk_mlp(in, m, 1).Y, ref::omeganet_mlp(in, m).Y), 1e-13);
  EXPECT_GT(rel(ref::omega_chunk_mlp(in, m, 3).Y, ref::omeganet_mlp(in, m).Y), 1e-6);
}

TEST(A002Mlp, D3EqualsEq10) {
  std::mt19937_64 g(13);
  const auto in = seq(g, 6, 3, 3, 3);
  const auto m = mem<double>(g, 3, 5, 3, MlpResidual::identity, MlpAct::gelu_erf, false);
  ref::Matrix<double> E(6, 6);
  for (std::size_t t = 0; t < 6; ++t)
    for (std::size_t i = ref::omega_window_begin(t, 3); i <= t; ++i) E(t, i) = in.eta[t] * in.Gamma(t, i);
  EXPECT_EQ(ref::omeganet_d3(in, E, m).Y.a, ref::omeganet_mlp(in, m).Y.a);
}

TEST(A002Mlp, DeepTruncRuns) {
  std::mt19937_64 g(17);
  const auto Q = gauss<double>(g, 4, 2, 0.5), K = gauss<double>(g, 4, 2, 0.5), V = gauss<double>(g, 4, 2);
  const std::size_t D = ref::exp_monomial_dim(2, 3);  // 10
  EXPECT_EQ(D, 10u);
  const auto m = mem<double>(g, D, 6, 2, MlpResidual::none, MlpAct::gelu_erf, false);
  const auto r = ref::dt_deep_trunc(Q, K, V, 3, m, {}, std::vector<double>(4, 0.1), ref::Bias{ref::BiasKind::dot});
  EXPECT_EQ(r.Y.rows, 4u);
  EXPECT_NE(error_of([&] { ref::dt_deep_trunc(Q, K, V, 2, m, {}, std::vector<double>(4, 0.1), ref::Bias{}); }).find("feature width"), std::string::npos);
}

TEST(A002Mlp, BadInputsAreNamed) {
  std::mt19937_64 g(19);
  auto m = mem<double>(g, 3, 4, 2, MlpResidual::identity, MlpAct::gelu_erf, false);
  EXPECT_NE(error_of([&] { ref::mlp_memory_read(m, {1.0, 2.0, 3.0}); }).find("identity residual"), std::string::npos);
  m.res = MlpResidual::none;
  EXPECT_NE(error_of([&] { ref::mlp_memory_read(m, {1.0, 2.0}); }).find("x must have length"), std::string::npos);
  m.W1(0, 0) = NAN;
  EXPECT_NE(error_of([&] { ref::mlp_memory_read(m, {1.0, 2.0, 3.0}); }).find("W1(1, 1)"), std::string::npos);
  m.W1(0, 0) = 0;
  m.res = MlpResidual::proj;
  EXPECT_NE(error_of([&] { ref::mlp_memory_read(m, {1.0, 2.0, 3.0}); }).find("P must be"), std::string::npos);
  m.res = MlpResidual::none;
  const auto in = seq(g, 4, 3, 2, 2);
  EXPECT_NE(error_of([&] { ref::omega_chunk_mlp(in, m, 0); }).find("chunk size"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::omeganet_d3(in, ref::Matrix<double>(3, 3), m); }).find("rate tensor"), std::string::npos);
}

}  // namespace
}  // namespace recall
