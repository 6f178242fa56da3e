// reference/deep_transformer.hpp (A002-DLA, A002-DLA-D1, A002-T1-DLA, A002-SWLA, A002-SWLA-D2, A002-SWLA-CLOSED,
// A002-DEEPTRANSFORMER, A002-T1-DT, A002-SWDT, A002-T1-SWDT, A002-SWA-LOCAL): named errors on bad input, small
// hand-computed recurrences, the closed-form token weights in exact rationals, the weighted-monomial phi*_P against the
// Kronecker exp_trunc map, the Taylor remainder bound and the truncation order (a too-low order is detected), the
// DeepTransformer recurrence on phi*_P against its kernel form, the log-scaled exp read-out beyond double's range, and the
// windowed Nadaraya-Watson minimiser against the windowed softmax of hopfield.hpp.
#include "recall/reference/deep_transformer.hpp"
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/hopfield.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/nadaraya_watson.hpp"

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
using test_support::gauss;
using test_support::rel;
using Rat = boost::multiprecision::cpp_rational;
using MM = ref::Matrix<mp_t>;
using MV = ref::Vector<mp_t>;
using DM = ref::Matrix<double>;
using DV = ref::Vector<double>;

bool contains(const std::string& s, const std::string& w) { return s.find(w) != std::string::npos; }

// banded window gates Gamma(t, i) = (t + 2 i + 1) / 8 on W_t
template <class S> ref::Matrix<S> band(std::size_t L, std::size_t c) {
  ref::Matrix<S> G(L, L);
  for (std::size_t t = 0; t < L; ++t)
    for (std::size_t i = (t + 1 >= c ? t + 1 - c : 0); i <= t; ++i) G(t, i) = S(static_cast<int>(t + 2 * i + 1)) / S(8);
  return G;
}

TEST(A002DeepTf, BadInputIsNamed) {
  const DM Q(3, 2), K(3, 2), V(3, 1);
  const DV a{0.5, 0.5, 0.5}, e{1, 1, 1};
  EXPECT_TRUE(contains(error_of([&] { ref::dla_linear(Q, K, V, DV{0.5, 0.5}, e); }), "alpha must have one gate per token"));
  EXPECT_TRUE(contains(error_of([&] { ref::dla_linear(Q, K, V, DV{0.5, -0.1, 0.5}, e); }), "alpha[2]"));
  EXPECT_TRUE(contains(error_of([&] { ref::dla_linear(Q, K, V, a, e, 0); }), "sign s"));
  EXPECT_TRUE(contains(error_of([&] { ref::dla_linear(Q, DM(3, 3), V, a, e); }), "same feature width"));
  DM Vn = V;
  Vn(1, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(contains(error_of([&] { ref::dla_linear(Q, K, Vn, a, e); }), "non-finite entry in V at row 2"));
  DM G = band<double>(3, 2);
  G(2, 0) = 0.25;  // outside W_3 for c = 2
  EXPECT_TRUE(contains(error_of([&] { ref::swla_linear(Q, K, V, a, G, 2); }), "Gamma(3,1) is nonzero outside the window"));
  EXPECT_TRUE(contains(error_of([&] { ref::swla_linear(Q, K, V, a, band<double>(3, 2), 0); }), "window length c"));
  EXPECT_TRUE(contains(error_of([&] { ref::swla_token_weights(a, DM(2, 2), 1); }), "Gamma must be L x L"));
  EXPECT_TRUE(contains(error_of([&] { ref::exp_feature_monomial(Q.row(0), 2, -1); }), "order P"));
  EXPECT_TRUE(contains(error_of([&] { ref::exp_truncation_order(1.0, 0.0, -100.0, 10); }), "no order <= 10"));
  EXPECT_TRUE(contains(error_of([&] { ref::token_weighted_exp_readout(Q, K, V, DM(3, 3), 0.0); }), "scale tau"));
  EXPECT_TRUE(contains(error_of([&] { ref::causal_window_nw_attention(Q, K, V, 0, [](const double*, const double*, std::size_t) { return 0.0; }); }),
                       "window length c"));
}

TEST(A002DeepTf, HandComputedDlaAndSwla) {
  // d_k = d_v = 1, phi = id: M_1 = 2*3*1 = 6 (eta_1 = 2, v_1 = 3, k_1 = 1), y_1 = 6*2 = 12 (q_1 = 2);
  // M_2 = 0.5*6 + 1*(-1)*2 = 1, y_2 = 1*1 = 1 (q_2 = 1)
  DM Q(2, 1), K(2, 1), V(2, 1);
  Q(0, 0) = 2, Q(1, 0) = 1, K(0, 0) = 1, K(1, 0) = 2, V(0, 0) = 3, V(1, 0) = -1;
  const auto r = ref::dla_linear(Q, K, V, DV{0.25, 0.5}, DV{2, 1});
  EXPECT_EQ(r.Y(0, 0), 12.0);
  EXPECT_EQ(r.Y(1, 0), 1.0);
  // literal sign s = -1 flips the write
  EXPECT_EQ(ref::dla_linear(Q, K, V, DV{0.25, 0.5}, DV{2, 1}, -1).Y(1, 0), -1.0);
  // SWLA, c = 2, Gamma = [[1, 0], [0.5, 2]]: M_1 = 3, M_2 = 0.5*3 + 0.5*3*1 + 2*(-1)*2 = -1
  DM G(2, 2);
  G(0, 0) = 1, G(1, 0) = 0.5, G(1, 1) = 2;
  const auto s = ref::swla_linear(Q, K, V, DV{1, 0.5}, G, 2);
  EXPECT_EQ(s.state(0, 0), -1.0);
  EXPECT_EQ(s.Y(1, 0), -1.0);
  // closed-form weights: w_{2,1} = A_{2:2} Gamma_{1,1} + Gamma_{2,1} = 0.5 + 0.5, w_{2,2} = 2
  const DM W = ref::swla_token_weights(DV{1, 0.5}, G, 2);
  EXPECT_EQ(W(1, 0), 1.0);
  EXPECT_EQ(W(1, 1), 2.0);
  // DT weights: D_{2,1} = alpha_2 eta_1 = 0.5 * 2
  EXPECT_EQ(ref::dt_token_weights(DV{0.25, 0.5}, DV{2, 1})(1, 0), 1.0);
}

TEST(A002DeepTf, SwlaClosedFormExactInRationals) {
  std::mt19937_64 g(7);
  for (std::size_t c : {1, 2, 3, 5}) {
    const std::size_t L = 6, dk = 3, dv = 2;
    ref::Matrix<Rat> Q(L, dk), K(L, dk), V(L, dv);
    for (auto* M : {&Q, &K, &V})
      for (Rat& x : M->a) x = Rat(static_cast<int>(g() % 9) - 4, 1 + static_cast<int>(g() % 3));
    ref::Vector<Rat> a(L);
    for (Rat& x : a) x = Rat(static_cast<int>(g() % 5), 4);  // includes 0
    const auto G = band<Rat>(L, c);
    const auto run = ref::swla_linear(Q, K, V, a, G, c);
    const auto W = ref::swla_token_weights(a, G, c);
    const auto Y = ref::token_weighted_kernel_readout(Q, K, V, W, [&](const Rat* x, const Rat* y) { return ref::dot(x, y, dk); });
    EXPECT_EQ(run.Y.a, Y.a) << "c=" << c;
    // App. D.2 (s = -1) is the exact negative when M_0 = 0
    auto neg = ref::swla_linear(Q, K, V, a, G, c, -1).Y;
    for (Rat& x : neg.a) x = -x;
    EXPECT_EQ(neg.a, run.Y.a);
    // DLA with eta = 1, s = +1 is the scalar-gated linear attention recurrence W_t = alpha_t W + v k^T (Eq. 51)
    const auto d = ref::dla_linear(Q, K, V, a, ref::Vector<Rat>(L, Rat(1)));
    ref::Matrix<Rat> M(dv, dk), Yg(L, dv);
    for (std::size_t t = 0; t < L; ++t) {
      for (Rat& x : M.a) x *= a[t];
      ref::add_outer(M, V.row(t), K.row(t));
      ref::matvec_into(Yg.row(t), M, Q.row(t));
    }
    EXPECT_EQ(d.Y.a, Yg.a);
  }
}

TEST(A002DeepTf, DlaMatchesGatedLinearAttentionAndGradient) {
  MpDigitsScope sc(50);
  std::mt19937_64 g(11);
  const MM Q = gauss<mp_t>(g, 5, 3), K = gauss<mp_t>(g, 5, 3), V = gauss<mp_t>(g, 5, 2);
  const MV a{mp_t(0.5), mp_t(0.9), mp_t(0), mp_t(1), mp_t(0.7)};
  MV lg(5);
  for (std::size_t i = 0; i < 5; ++i) lg[i] = ref::log_gate(a[i]);
  const auto gla = ref::gated_linear_attention(Q, K, V, lg);
  const auto dla = ref::dla_linear(Q, K, V, a, MV(5, mp_t(1)));
  EXPECT_LT(rel(gla.O, dla.Y), 1e-45);
  // dot_bias_gradient = central differences of dot_bias_loss (linear: exact up to rounding)
  const MM M = gauss<mp_t>(g, 2, 3);
  for (int s : {1, -1}) {
    const MM Gr = ref::dot_bias_gradient(2, 3, K.row(0), V.row(0), s);
    for (std::size_t e = 0; e < M.a.size(); ++e) {
      MM Mp = M, Mm = M;
      Mp.a[e] += mp_t("1e-20");
      Mm.a[e] -= mp_t("1e-20");
      const mp_t fd = (ref::dot_bias_loss(Mp, K.row(0), V.row(0), s) - ref::dot_bias_loss(Mm, K.row(0), V.row(0), s)) / mp_t("2e-20");
      EXPECT_LT(static_cast<double>(abs(mp_t(fd - Gr.a[e]))), 1e-25);
    }
  }
}

TEST(A002DeepTf, MonomialPhiStarMatchesKroneckerExpTrunc) {
  MpDigitsScope sc(60);
  std::mt19937_64 g(3);
  EXPECT_EQ(ref::exp_monomial_dim(2, 3), 10u);
  EXPECT_EQ(ref::exp_monomial_dim(3, 70), 62196u);
  for (std::size_t d : {1, 2, 3})
    for (int P : {0, 1, 4}) {
      const MV x = test_support::gauss_vec<mp_t>(g, d), y = test_support::gauss_vec<mp_t>(g, d);
      const MV fx = ref::exp_feature_monomial(x.data(), d, P), fy = ref::exp_feature_monomial(y.data(), d, P);
      ASSERT_EQ(fx.size(), ref::exp_monomial_dim(d, P));
      ref::FeatureMap f;
      f.kind = ref::FeatureMapKind::exp_trunc;
      f.order = P;
      const MV kx = ref::apply_feature_map(f, x.data(), d), ky = ref::apply_feature_map(f, y.data(), d);
      const mp_t a = ref::dot(fx.data(), fy.data(), fx.size()), b = ref::dot(kx.data(), ky.data(), kx.size());
      EXPECT_LT(static_cast<double>(abs(mp_t(a - b))), 1e-50) << "d=" << d << " P=" << P;
    }
}

TEST(A002DeepTf, TaylorBoundAndTruncationOrder) {
  MpDigitsScope sc(120);
  for (double X : {0.25, 1.0, 2.0})
    for (int P : {3, 10, 40}) {
      // actual error at x = X and x = -X is below the bound
      for (double sx : {X, -X}) {
        mp_t s(0), term(1);
        for (int p = 0; p <= P; ++p) {
          if (p > 0) term = term * mp_t(sx) / p;
          s += term;
        }
        const double err = static_cast<double>(log10(abs(mp_t(exp(mp_t(sx)) - s))));
        EXPECT_LE(err, ref::exp_taylor_remainder_log10(X, P) + 1e-9) << "x=" << sx << " P=" << P;
      }
    }
  const int P = ref::exp_truncation_order(1.0, 1.0, -100.0);
  EXPECT_LE(1.0 + ref::exp_taylor_remainder_log10(1.0, P), -100.0);
  EXPECT_GT(1.0 + ref::exp_taylor_remainder_log10(1.0, P - 1), -100.0);
}

TEST(A002DeepTf, DeepTransformerTruncatedMatchesKernelAndLowOrderIsDetected) {
  MpDigitsScope sc(100);
  std::mt19937_64 g(5);
  const std::size_t L = 6, d = 2;
  MM Q = gauss<mp_t>(g, L, d), K = gauss<mp_t>(g, L, d);
  for (MM* M : {&Q, &K})
    for (std::size_t i = 0; i < L; ++i) {
      const mp_t n = sqrt(ref::dot(M->row(i), M->row(i), d));
      for (std::size_t j = 0; j < d; ++j) (*M)(i, j) /= n;  // unit rows: |q^T k| <= 1
    }
  const MM V = gauss<mp_t>(g, L, 2);
  const MV a{mp_t(1), mp_t(0.5), mp_t(0.8), mp_t(0), mp_t(0.9), mp_t(1)}, e{mp_t(0.3), mp_t(1), mp_t(0.2), mp_t(0.7), mp_t(1), mp_t(0.5)};
  const MM yk = ref::deep_transformer_kernel(Q, K, V, a, e).unscale();
  // sum_i |w_ti| ||v_i|| <= L max||v|| (weights <= 1)
  double vmax = 0;
  for (std::size_t i = 0; i < L; ++i) vmax = std::max(vmax, static_cast<double>(sqrt(ref::dot(V.row(i), V.row(i), 2))));
  const int P = ref::exp_truncation_order(1.0, std::log10(L * vmax), -100.0);
  EXPECT_LT(rel(ref::deep_transformer_truncated(Q, K, V, a, e, P).Y, yk), 1e-90);
  EXPECT_GT(rel(ref::deep_transformer_truncated(Q, K, V, a, e, P / 2).Y, yk), 1e-90);  // too-low order detected
  // SWDT: the same with window weights
  const MM G = band<mp_t>(L, 3);
  EXPECT_LT(rel(ref::swdt_truncated(Q, K, V, a, G, 3, P + 5).Y, ref::swdt_kernel(Q, K, V, a, G, 3).unscale()), 1e-90);
}

TEST(A002DeepTf, LogScaledReadoutBeyondDoubleRange) {
  std::mt19937_64 g(9);
  const std::size_t L = 4, d = 2;
  DM Q = gauss<double>(g, L, d, 30.0), K = Q;  // q_t^T k_t ~ 1e3: exp overflows double
  const DM V = gauss<double>(g, L, 1);
  const DV ones(L, 1.0);
  const auto r = ref::deep_transformer_kernel(Q, K, V, ones, ones);
  MpDigitsScope sc(50);
  const auto rm = ref::deep_transformer_kernel(ref::cast<mp_t>(Q), ref::cast<mp_t>(K), ref::cast<mp_t>(V), MV(L, mp_t(1)), MV(L, mp_t(1)));
  const MM ym = rm.unscale();
  for (std::size_t t = 0; t < L; ++t) {
    ASSERT_TRUE(std::isfinite(r.Y(t, 0)) && std::isfinite(r.log_scale[t]));
    // log|y_t| from the double pair vs the mp value
    const double lgd = std::log(std::fabs(r.Y(t, 0))) + r.log_scale[t];
    const double lgm = static_cast<double>(log(abs(ym(t, 0))));
    EXPECT_NEAR(lgd, lgm, 1e-9 * std::max(1.0, std::fabs(lgm)));
  }
}

TEST(A002DeepTf, WindowNwEqualsWindowedSoftmax) {
  MpDigitsScope sc(50);
  std::mt19937_64 g(13);
  const std::size_t L = 7, d = 3;
  const MM Q = gauss<mp_t>(g, L, d), K = gauss<mp_t>(g, L, d), V = gauss<mp_t>(g, L, 2);
  const mp_t tau(0.5);
  const auto logsim = [&](const mp_t* k, const mp_t* q, std::size_t n) { return mp_t(tau * ref::dot(k, q, n)); };
  for (std::size_t c : {1, 2, 4, 7, 9}) {
    const MM Y = ref::causal_window_nw_attention(Q, K, V, c, logsim);
    for (std::size_t t = 0; t < L; ++t) {
      const MV w = ref::hopfield::masked_weights(tau, ref::hopfield::scores(K, MV(Q.row(t), Q.row(t) + d)), ref::hopfield::causal_window(L, t, c));
      const MV o = ref::hopfield::combine_rows(V, w);
      for (std::size_t j = 0; j < 2; ++j) EXPECT_LT(static_cast<double>(abs(mp_t(o[j] - Y(t, j)))), 1e-45);
    }
    if (c >= L) {
      EXPECT_LT(rel(Y, ref::causal_nw_attention(Q, K, V, logsim)), 1e-45);
    }
  }
}

}  // namespace
}  // namespace recall
