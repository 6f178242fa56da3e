// reference/miras.hpp (A002 Miras framework and Table 1 rows without another reference): hand-computed bias
// values and output gradients (l2 with the half_l2 switch, dot product with both signs, l_p with the zero
// subgradient), central differences (exact for a quadratic, 40+ digits for l_p at 100 digits), the optimizers, the
// proximal retention step as the minimiser of its objective, the global objective, window gate tensors, the general
// linear recurrence against the existing gated-LA / delta-rule references, the SWA ring buffer, the value-axis GLA,
// RWKV-7, Titans, Moneta and Memora reductions, one hand-computed Memora step, and the named input errors.
#include "recall/reference/delta_rule.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/miras.hpp"
#include "recall/reference/softmax.hpp"

#include "mp_test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>

namespace recall {
namespace {

using test_support::error_of;
using test_support::gauss;
using test_support::gauss_vec;
using test_support::rel;
using DM = ref::Matrix<double>;
using DV = ref::Vector<double>;
using MM = ref::Matrix<mp_t>;

ref::Bias bias(ref::BiasKind k, double p = 2, bool half = false, int sign = -1) {
  ref::Bias b;
  b.kind = k;
  b.p = p;
  b.half_l2 = half;
  b.dot_sign = sign;
  return b;
}
ref::RowGates<double> gates(std::size_t T, double a, double e, double th) {
  return {DV(T, a), DV(T, e), DV(T, th)};
}

TEST(A002Miras, BiasValuesAndOutputGradientsByHand) {
  const double y[2] = {1, 2}, z[2] = {0, 0}, v[2] = {3, 4};
  EXPECT_DOUBLE_EQ(ref::bias_value(bias(ref::BiasKind::l2), y, z, 2), 5.0);
  EXPECT_DOUBLE_EQ(ref::bias_value(bias(ref::BiasKind::l2, 2, true), y, z, 2), 2.5);
  EXPECT_DOUBLE_EQ(ref::bias_value(bias(ref::BiasKind::dot), y, v, 2), -11.0);
  EXPECT_DOUBLE_EQ(ref::bias_value(bias(ref::BiasKind::dot, 2, false, +1), y, v, 2), 11.0);
  const DV g2 = ref::bias_output_grad(bias(ref::BiasKind::l2), y, z, 2), gh = ref::bias_output_grad(bias(ref::BiasKind::l2, 2, true), y, z, 2);
  EXPECT_EQ(g2, (DV{2, 4}));
  EXPECT_EQ(gh, (DV{1, 2}));
  EXPECT_EQ(ref::bias_output_grad(bias(ref::BiasKind::dot), y, v, 2), (DV{-3, -4}));
  // l_p, p = 3, r = (1, -2): value 1 + 8, gradient 3 sign(r) r^2 = (3, -12)
  const double w[2] = {0, 4};
  EXPECT_DOUBLE_EQ(ref::bias_value(bias(ref::BiasKind::lp, 3), y, w, 2), 9.0);
  EXPECT_EQ(ref::bias_output_grad(bias(ref::BiasKind::lp, 3), y, w, 2), (DV{3, -12}));
  // p = 1 at r_j = 0: subgradient 0; elsewhere sign(r)
  const double y1[2] = {1, 5}, v1[2] = {1, 2};
  EXPECT_EQ(ref::bias_output_grad(bias(ref::BiasKind::lp, 1), y1, v1, 2), (DV{0, 1}));
  EXPECT_NE(error_of([&] { (void)ref::bias_value(bias(ref::BiasKind::lp, 0), y, v, 2); }), "");
}

TEST(A002Miras, LinearMemoryGradientIsOuterProduct) {
  std::mt19937_64 g(1);
  const DM M = gauss(g, 3, 2);
  const DV k = gauss_vec(g, 2), v = gauss_vec(g, 3);
  const DM G = ref::linear_memory_grad(bias(ref::BiasKind::l2), M, k.data(), v.data());
  const DV y = ref::matvec(M, k.data());
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 2; ++j) EXPECT_NEAR(G(i, j), 2 * (y[i] - v[i]) * k[j], 1e-14);
}

TEST(A002Miras, CentralDifferencesExactForQuadraticAndAccurateForLp) {
  std::mt19937_64 g(2);
  const DM M = gauss(g, 2, 3);
  const DV k = gauss_vec(g, 3), v = gauss_vec(g, 2);
  // quadratic (l2): central differences with h = 1 are exact up to rounding
  std::function<double(const ref::Params<double>&)> F = [&](const ref::Params<double>& P) {
    return ref::linear_memory_loss(bias(ref::BiasKind::l2), P[0], k.data(), v.data());
  };
  const auto G = ref::central_difference_gradient<double>(F, {M}, 1.0);
  EXPECT_LT(rel(G[0], ref::linear_memory_grad(bias(ref::BiasKind::l2), M, k.data(), v.data())), 1e-13);
  // l_p with p = 3 at 100 digits, h = 1e-30: >= 40 correct digits
  MpDigitsScope sc(100);
  const MM Mm = ref::cast<mp_t>(M);
  const auto km = ref::cast<mp_t>(k), vm = ref::cast<mp_t>(v);
  std::function<mp_t(const ref::Params<mp_t>&)> Fm = [&](const ref::Params<mp_t>& P) {
    return ref::linear_memory_loss(bias(ref::BiasKind::lp, 3), P[0], km.data(), vm.data());
  };
  const auto Gm = ref::central_difference_gradient<mp_t>(Fm, {Mm}, mp_t("1e-30"));
  EXPECT_LT(rel(Gm[0], ref::linear_memory_grad(bias(ref::BiasKind::lp, 3), Mm, km.data(), vm.data())), 1e-40);
  EXPECT_NE(error_of([&] { (void)ref::central_difference_gradient<double>(F, {M}, 0.0); }), "");
}

TEST(A002Miras, OptimizerSteps) {
  ref::Params<double> th{DM(1, 2)}, gr{DM(1, 2)}, mom{DM(1, 2)};
  th[0].a = {1, 2};
  gr[0].a = {10, 20};
  mom[0].a = {1, 1};
  const auto s = ref::decayed_gd_step(th, gr, 0.5, 0.1);
  EXPECT_DOUBLE_EQ(s[0].a[0], 0.5 - 1.0);
  EXPECT_DOUBLE_EQ(s[0].a[1], 1.0 - 2.0);
  const auto m = ref::momentum_step(th, mom, gr, 0.5, 0.9, 0.1);  // S = 0.9 S - 0.1 G; M = 0.5 M + S
  EXPECT_DOUBLE_EQ(mom[0].a[0], 0.9 - 1.0);
  EXPECT_DOUBLE_EQ(m[0].a[1], 1.0 + 0.9 - 2.0);
  ref::Params<double> bad{DM(2, 2)};
  EXPECT_NE(error_of([&] { (void)ref::decayed_gd_step(th, bad, 1.0, 1.0); }), "");
  EXPECT_NE(error_of([&] { (void)ref::decayed_gd_step(th, gr, std::numeric_limits<double>::quiet_NaN(), 1.0); }), "");
}

TEST(A002Miras, ProximalRetentionStepIsTheMinimiser) {
  MpDigitsScope sc(50);
  std::mt19937_64 g(3);
  const MM Mp = gauss<mp_t>(g, 3, 2), G = gauss<mp_t>(g, 3, 2);
  const mp_t eta("0.7"), lam("2.5");
  const MM M = ref::retention_proximal_step(Mp, G, eta, lam);
  // stationarity of <G, M - Mp> + 1/(2 eta)||M - Mp||^2 + lambda/2 ||M||^2: G + (M - Mp)/eta + lambda M = 0
  mp_t worst(0);
  for (std::size_t i = 0; i < M.a.size(); ++i) worst = std::max(worst, mp_t(abs(mp_t(G.a[i] + (M.a[i] - Mp.a[i]) / eta + lam * M.a[i]))));
  EXPECT_LT(static_cast<double>(worst), 1e-45);
  // the objective value by hand: l = 0, M = M_prev + E (E = 1 at one entry): 1/(2 eta) + lambda/2 ||M||^2
  std::function<mp_t(const MM&)> zero = [](const MM&) { return mp_t(0); };
  MM M1 = Mp;
  M1.a[0] += 1;
  const mp_t f = ref::retention_online_objective<mp_t>(zero, M1, Mp, eta, lam);
  EXPECT_LT(static_cast<double>(abs(mp_t(f - (1 / (2 * eta) + lam / 2 * ref::frob(M1) * ref::frob(M1))))), 1e-45);
  EXPECT_NE(error_of([&] { (void)ref::retention_proximal_step(Mp, G, mp_t(0), lam); }), "");
  EXPECT_NE(error_of([&] { (void)ref::retention_online_objective<mp_t>(zero, M1, Mp, eta, mp_t(-1)); }), "");
}

TEST(A002Miras, GlobalObjectiveIsTheSumOfTokenLosses) {
  std::mt19937_64 g(4);
  const DM K = gauss(g, 5, 3), V = gauss(g, 5, 2), M = gauss(g, 2, 3);
  double s = 0;
  for (std::size_t i = 0; i < 4; ++i) s += ref::linear_memory_loss(bias(ref::BiasKind::l2), M, K.row(i), V.row(i));
  EXPECT_NEAR(ref::global_objective(bias(ref::BiasKind::l2), M, K, V, 4), s, 1e-12);
  EXPECT_DOUBLE_EQ(ref::global_objective(bias(ref::BiasKind::dot), M, K, V, 0), 0.0);
  EXPECT_NE(error_of([&] { (void)ref::global_objective(bias(ref::BiasKind::l2), M, K, V, 6); }), "");
}

TEST(A002Miras, WindowGateTensor) {
  EXPECT_TRUE(ref::in_window(3, 3, 1));
  EXPECT_TRUE(ref::in_window(2, 3, 2));
  EXPECT_FALSE(ref::in_window(1, 3, 2));
  EXPECT_FALSE(ref::in_window(4, 3, 8));
  const DM G = ref::window_gate_tensor<double>(4, 2, [](std::size_t t, std::size_t i) { return 0.1 * double(t) + 0.01 * double(i); });
  for (std::size_t t = 1; t <= 4; ++t)
    for (std::size_t i = 1; i <= 4; ++i) EXPECT_EQ(G(t - 1, i - 1), ref::in_window(i, t, 2) ? 0.1 * double(t) + 0.01 * double(i) : 0.0);
  EXPECT_NE(error_of([] { (void)ref::window_gate_tensor<double>(3, 2, [](std::size_t, std::size_t) { return 1.5; }); }), "");
  EXPECT_EQ(error_of([] { (void)ref::window_gate_tensor<double>(3, 2, [](std::size_t, std::size_t) { return 1.5; }, true); }), "");
  EXPECT_NE(error_of([] { (void)ref::window_gate_tensor<double>(3, 0, [](std::size_t, std::size_t) { return 0.5; }); }), "");
}

TEST(A002Miras, LinearRnnGeneralReducesToGatedFamilies) {
  std::mt19937_64 g(5);
  const std::size_t T = 6, dk = 3, dv = 2;
  const DM Q = gauss(g, T, dk), K = gauss(g, T, dk, 0.5), V = gauss(g, T, dv);
  std::uniform_real_distribution<double> U(0.5, 1.0);
  DM A(T, dk), As(T, 1);
  DV lg(T);
  for (std::size_t t = 0; t < T; ++t) {
    As(t, 0) = U(g);
    lg[t] = std::log(As(t, 0));
    for (std::size_t j = 0; j < dk; ++j) A(t, j) = U(g);
  }
  EXPECT_LT(rel(ref::linrnn_general(Q, K, V, ref::LinRnnTransition::scalar, As).O, ref::gated_linear_attention(Q, K, V, lg).O), 1e-13);
  DM LA(T, dk);
  for (std::size_t i = 0; i < LA.a.size(); ++i) LA.a[i] = std::log(A.a[i]);
  EXPECT_LT(rel(ref::linrnn_general(Q, K, V, ref::LinRnnTransition::diagonal, A).O, ref::gated_linear_attention_diag(Q, K, V, LA).O), 1e-13);
  // diag(1) - (beta k)(k)^T with values beta v: the delta rule
  DM ones(T, dk), Ub(T, dk), Vb = V;
  DV beta(T);
  for (std::size_t t = 0; t < T; ++t) {
    beta[t] = 0.3 + 0.1 * double(t);
    for (std::size_t j = 0; j < dk; ++j) { ones(t, j) = 1; Ub(t, j) = beta[t] * K(t, j); }
    for (std::size_t j = 0; j < dv; ++j) Vb(t, j) *= beta[t];
  }
  EXPECT_LT(rel(ref::linrnn_general(Q, K, Vb, ref::LinRnnTransition::diag_low_rank, ones, &Ub, &K).O, ref::delta_rule(Q, K, V, beta).O), 1e-13);
  EXPECT_NE(error_of([&] { (void)ref::linrnn_general(Q, K, V, ref::LinRnnTransition::diag_low_rank, ones); }), "");
  EXPECT_NE(error_of([&] { (void)ref::linrnn_general(Q, K, V, ref::LinRnnTransition::diagonal, As); }), "");
}

TEST(A002Miras, SwaRingBuffer) {
  std::mt19937_64 g(6);
  const std::size_t T = 7;
  const DM Q = gauss(g, T, 2), K = gauss(g, T, 2), V = gauss(g, T, 3);
  EXPECT_LT(rel(ref::swa_ring_buffer(Q, K, V, T, 0.7), ref::causal_softmax_attention(Q, K, V, 0.7)), 1e-14);
  EXPECT_LT(rel(ref::swa_ring_buffer(Q, K, V, 100, 0.7), ref::causal_softmax_attention(Q, K, V, 0.7)), 1e-14);
  EXPECT_LT(rel(ref::swa_ring_buffer(Q, K, V, 1, 0.7), V), 1e-15);  // c = 1: y_t = v_t
  // c = 2 at t = 3 (1-based) attends to tokens 2, 3 only
  const DM O = ref::swa_ring_buffer(Q, K, V, 2, 1.0);
  DM K2(2, 2), V2(2, 3);
  for (std::size_t b = 0; b < 2; ++b) {
    for (std::size_t j = 0; j < 2; ++j) K2(b, j) = K(1 + b, j);
    for (std::size_t j = 0; j < 3; ++j) V2(b, j) = V(1 + b, j);
  }
  const DV o3 = ref::softmax_attend(Q.row(2), K2, V2, 2, 1.0);
  for (std::size_t j = 0; j < 3; ++j) EXPECT_NEAR(O(2, j), o3[j], 1e-15);
  EXPECT_NE(error_of([&] { (void)ref::swa_ring_buffer(Q, K, V, 0, 1.0); }), "");
}

TEST(A002Miras, ValueAxisGlaAndRwkv7ReduceForScalarGates) {
  std::mt19937_64 g(7);
  const std::size_t T = 5, dk = 3, dv = 2;
  const DM Q = gauss(g, T, dk), K = gauss(g, T, dk, 0.5), V = gauss(g, T, dv);
  std::uniform_real_distribution<double> U(0.5, 1.0);
  DV lg(T), beta(T);
  DM LV(T, dv), LK(T, dk);
  for (std::size_t t = 0; t < T; ++t) {
    lg[t] = std::log(U(g));
    beta[t] = U(g);
    for (std::size_t j = 0; j < dv; ++j) LV(t, j) = lg[t];
    for (std::size_t j = 0; j < dk; ++j) LK(t, j) = lg[t];
  }
  EXPECT_LT(rel(ref::gated_linear_attention_value_axis(Q, K, V, LV).O, ref::gated_linear_attention(Q, K, V, lg).O), 1e-13);
  EXPECT_LT(rel(ref::rwkv7_delta_rule(Q, K, V, beta, LK).O, ref::gated_delta_rule(Q, K, V, beta, lg, ref::DecayPlacement::T).O), 1e-13);
  DM bad = LV;
  bad(1, 1) = 0.1;  // log-gate > 0
  EXPECT_NE(error_of([&] { (void)ref::gated_linear_attention_value_axis(Q, K, V, bad); }), "");
  EXPECT_NE(error_of([&] { (void)ref::rwkv7_delta_rule(Q, K, V, beta, LV); }), "");
}

TEST(A002Miras, TitansAndMonetaReduceToTheGatedDeltaRule) {
  std::mt19937_64 g(8);
  const std::size_t T = 6, dk = 2, dv = 3;
  const DM Q = gauss(g, T, dk), K = gauss(g, T, dk, 0.5), V = gauss(g, T, dv);
  const auto gt = gates(T, 0.8, 0.2, 0.0);
  DV beta(T, 0.4), lg(T, std::log(0.8)), beta_half(T, 0.2);
  const auto gd = ref::gated_delta_rule(Q, K, V, beta, lg, ref::DecayPlacement::T);
  EXPECT_LT(rel(ref::titans_memory(Q, K, V, gt).O, gd.O), 1e-13);
  EXPECT_LT(rel(ref::titans_memory(Q, K, V, gt, true).O, ref::gated_delta_rule(Q, K, V, beta_half, lg, ref::DecayPlacement::T).O), 1e-13);
  EXPECT_LT(rel(ref::moneta_memory(Q, K, V, 2.0, gt).O, gd.O), 1e-13);
  // theta > 0 changes the trajectory (momentum)
  EXPECT_GT(rel(ref::titans_memory(Q, K, V, gates(T, 0.8, 0.2, 0.5)).O, gd.O), 1e-3);
  // Moneta p = 1, one token, M_0 = 0: M_1 = -eta sign(-v) k^T = eta sign(v) k^T
  DM q1(1, dk), k1(1, dk), v1(1, dv);
  for (std::size_t j = 0; j < dk; ++j) k1(0, j) = K(0, j);
  for (std::size_t j = 0; j < dv; ++j) v1(0, j) = V(0, j);
  const auto m1 = ref::moneta_memory(q1, k1, v1, 1.0, gates(1, 1.0, 0.2, 0.0));
  for (std::size_t i = 0; i < dv; ++i)
    for (std::size_t j = 0; j < dk; ++j) EXPECT_NEAR(m1.state(i, j), 0.2 * (V(0, i) > 0 ? 1 : -1) * K(0, j), 1e-15);
  EXPECT_NE(error_of([&] { (void)ref::titans_memory(Q, K, V, gates(T, 0.8, 0.2, 1.0)); }), "");
  EXPECT_NE(error_of([&] { (void)ref::moneta_memory(Q, K, V, 0.0, gt); }), "");
  EXPECT_NE(error_of([&] { (void)ref::moneta_memory(Q, K, V, 2.0, gates(T, 1.5, 0.2, 0.0)); }), "");
}

TEST(A002Miras, MemoraInvariantsAndOneStepByHand) {
  std::mt19937_64 g(9);
  const std::size_t T = 5, dk = 3, dv = 2;
  const DM Q = gauss(g, T, dk), K = gauss(g, T, dk), V = gauss(g, T, dv);
  const auto gt = gates(T, 0.9, 0.3, 0.0);
  for (auto axis : {ref::MemoraAxis::rows, ref::MemoraAxis::all}) {
    const auto r = ref::memora_memory(Q, K, V, gt, axis);
    ASSERT_EQ(r.logM.size(), T + 1);
    for (const DM& L : r.logM) {
      double total = 0;
      for (std::size_t a = 0; a < dv; ++a) {
        double s = 0;
        for (std::size_t j = 0; j < dk; ++j) s += std::exp(L(a, j));
        if (axis == ref::MemoraAxis::rows) {
          EXPECT_NEAR(s, 1.0, 1e-14);
        }
        total += s;
      }
      if (axis == ref::MemoraAxis::all) {
        EXPECT_NEAR(total, 1.0, 1e-14);
      }
    }
  }
  // d_v = 1: the two readings coincide
  DM V1(T, 1);
  for (std::size_t t = 0; t < T; ++t) V1(t, 0) = V(t, 0);
  EXPECT_LT(rel(ref::memora_memory(Q, K, V1, gt, ref::MemoraAxis::rows).O, ref::memora_memory(Q, K, V1, gt, ref::MemoraAxis::all).O), 1e-14);
  // one step by hand: d_k = 2, d_v = 1, k = (1, 0), v = 1, M_0 = (1/2, 1/2), alpha = eta = 1:
  // y = 1/2, grad = 2 (1/2 - 1) (1, 0) = (-1, 0), M_1 = softmax(log 1/2 + (1, 0)) = (e, 1)/(e + 1)
  DM q1(1, 2), k1(1, 2), v1(1, 1);
  q1(0, 0) = 1;
  k1(0, 0) = 1;
  v1(0, 0) = 1;
  const auto r = ref::memora_memory(q1, k1, v1, gates(1, 1.0, 1.0, 0.0), ref::MemoraAxis::rows);
  EXPECT_NEAR(std::exp(r.logM[1](0, 0)), std::exp(1.0) / (std::exp(1.0) + 1), 1e-15);
  EXPECT_NEAR(r.O(0, 0), std::exp(1.0) / (std::exp(1.0) + 1), 1e-15);
  EXPECT_NE(error_of([&] { (void)ref::memora_memory(Q, K, V, gates(T, 1.2, 0.3, 0.0), ref::MemoraAxis::rows); }), "");
  DM Kn = K;
  Kn(1, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(error_of([&] { (void)ref::memora_memory(Q, Kn, V, gt, ref::MemoraAxis::all); }), "");
}

}  // namespace
}  // namespace recall
