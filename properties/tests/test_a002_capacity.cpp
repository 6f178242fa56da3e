// reference/capacity_rank.hpp (A002 §3.1 capacity statements: Prop. 1, Thm. 1, Prop. 2): exact ranks by Bareiss on
// hand cases and against the certified mod-p fast path, exact feasibility of M Phi = V (row-space values feasible,
// generic values beyond the rank infeasible), prefix capacity of nested keys, the exact solves and K^+, the printed
// interpolant V K^T (right only for orthonormal keys) vs V K^+, the printed GD step and its limit as a fixed point,
// the minimal MLP memory (pattern product = forward pass on the key's region), the width expressions U0/U1/U2 on
// hand-computed profiles, the low-rank readings, and the named errors.
#include "recall/reference/capacity_rank.hpp"
#include "recall/reference/polynomial_maps.hpp"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

namespace recall {
namespace {

namespace cap = ref::capacity;
using Rat = cap::Rational;
using MR = ref::Matrix<Rat>;

MR mat(std::size_t r, std::size_t c, std::initializer_list<int> v) {
  MR m(r, c);
  std::size_t i = 0;
  for (int x : v) m.a[i++] = x;
  return m;
}
MR rnd(std::mt19937_64& g, std::size_t r, std::size_t c, int lo = -9, int hi = 9) {
  std::uniform_int_distribution<int> U(lo, hi);
  MR m(r, c);
  for (auto& x : m.a) x = U(g);
  return m;
}
MR eye(std::size_t n, int s = 1) {
  MR m(n, n);
  for (std::size_t i = 0; i < n; ++i) m(i, i) = s;
  return m;
}

TEST(A002Capacity, BareissRankHandCases) {
  EXPECT_EQ(cap::bareiss_rank(mat(2, 2, {1, 2, 2, 4})), 1u);
  EXPECT_EQ(cap::bareiss_rank(eye(5)), 5u);
  EXPECT_EQ(cap::bareiss_rank(MR(3, 4)), 0u);
  EXPECT_EQ(cap::bareiss_rank(mat(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9})), 2u);
  EXPECT_EQ(cap::bareiss_rank(mat(2, 3, {0, 0, 1, 0, 0, 2})), 1u);  // zero leading columns skipped
  // rationals: rows scaled to integers keep the rank
  MR h(2, 2);
  h(0, 0) = Rat(1, 2), h(0, 1) = Rat(1, 3), h(1, 0) = Rat(3, 2), h(1, 1) = Rat(1);
  EXPECT_EQ(cap::bareiss_rank(h), 1u);
  const auto z = cap::integer_rows(h);
  EXPECT_EQ(z(0, 0), 3);
  EXPECT_EQ(z(0, 1), 2);
}

TEST(A002Capacity, FastRankAgreesWithBareiss) {
  std::mt19937_64 g(7);
  for (int t = 0; t < 60; ++t) {
    const std::size_t r = 1 + t % 7, c = 1 + (t / 7) % 8, k = 1 + t % 4;
    MR A = (t % 3 == 0) ? ref::matmul(rnd(g, r, k), rnd(g, k, c)) : rnd(g, r, c, -50, 50);  // rank <= k on every third
    const std::size_t rb = cap::bareiss_rank(A);
    EXPECT_EQ(cap::exact_rank(A), rb) << "instance " << t;
    EXPECT_LE(cap::echelon_mod_p(cap::integer_rows(A)).rank, rb);
  }
}

TEST(A002Capacity, FeasibilityAndCapacity) {
  std::mt19937_64 g(11);
  const MR K = rnd(g, 3, 5, -50, 50);  // d_k = 3, m = 5 > d_k: rank 3
  const MR W = rnd(g, 2, 3);
  EXPECT_TRUE(cap::exact_feasibility(K, ref::matmul(W, K)).feasible);  // values in the row space
  const MR V = rnd(g, 2, 5, -1000000, 1000000);
  const auto f = cap::exact_feasibility(K, V);
  EXPECT_FALSE(f.feasible);
  EXPECT_EQ(f.rank_phi, 3u);
  EXPECT_GT(f.rank_aug, 3u);
  EXPECT_TRUE(cap::exact_feasibility(cap::first_cols(K, 3), cap::first_cols(V, 3)).feasible);  // m = d_k: every V
  EXPECT_THROW(cap::exact_feasibility(K, rnd(g, 2, 4)), std::invalid_argument);
  // prefix capacity: e1, e2, e1 + e2, e3 -> 2 (the third column depends on the first two)
  EXPECT_EQ(cap::prefix_capacity(mat(3, 4, {1, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 1})), 2u);
  EXPECT_EQ(cap::prefix_capacity(K), 3u);
  EXPECT_EQ(cap::prefix_capacity(MR(2, 3)), 0u);
}

TEST(A002Capacity, ExactSolvesAndPseudoinverse) {
  std::mt19937_64 g(3);
  const MR A = mat(2, 2, {2, 1, 1, 1}), B = mat(2, 1, {3, 2});
  const MR x = cap::solve_exact(A, B, "test");
  EXPECT_EQ(x(0, 0), 1);
  EXPECT_EQ(x(1, 0), 1);
  EXPECT_THROW(cap::solve_exact(mat(2, 2, {1, 2, 2, 4}), B, "test"), std::invalid_argument);
  const MR K = rnd(g, 4, 3, -50, 50);
  const MR Kp = cap::pinv_full_column_rank(K);
  EXPECT_EQ(ref::matmul(Kp, K).a, eye(3).a);
  EXPECT_THROW(cap::pinv_full_column_rank(mat(2, 2, {1, 2, 2, 4})), std::invalid_argument);
  EXPECT_THROW(cap::pinv_full_column_rank(rnd(g, 2, 3)), std::invalid_argument);
}

TEST(A002Capacity, PrintedInterpolantOnlyForOrthonormalKeys) {
  std::mt19937_64 g(5);
  const MR V = rnd(g, 2, 3);
  // orthonormal keys (unit columns): V K^T K = V
  MR K = MR(4, 3);
  for (std::size_t j = 0; j < 3; ++j) K(j, j) = 1;
  EXPECT_EQ(ref::matmul(cap::printed_interpolant(K, V), K).a, V.a);
  EXPECT_EQ(cap::printed_interpolant(K, V).a, cap::pinv_interpolant(K, V).a);
  // scaled keys: the printed candidate fails, V K^+ interpolates
  for (auto& x : K.a) x *= 2;
  EXPECT_NE(ref::matmul(cap::printed_interpolant(K, V), K).a, V.a);
  EXPECT_EQ(ref::matmul(cap::pinv_interpolant(K, V), K).a, V.a);
}

ref::Matrix<mp_t> to_mp(const MR& A) {
  ref::Matrix<mp_t> B(A.rows, A.cols);
  for (std::size_t i = 0; i < A.a.size(); ++i) B.a[i] = mp_t(boost::multiprecision::numerator(A.a[i]).str()) / mp_t(boost::multiprecision::denominator(A.a[i]).str());
  return B;
}

TEST(A002Capacity, GdStepAndLimit) {
  MpDigitsScope sc(50);
  std::mt19937_64 g(9);
  const MR K = rnd(g, 3, 2), V = rnd(g, 2, 2), M0 = rnd(g, 2, 3);
  const mp_t eta = mp_t(1) / mp_t(1000);
  const ref::Matrix<mp_t> Km = to_mp(K), Vm = to_mp(V), M0m = to_mp(M0);
  const ref::Matrix<mp_t> KKt = ref::matmul(Km, ref::transpose(Km)), VKt = ref::matmul(Vm, ref::transpose(Km));
  // M - eta (M K - V) K^T by hand
  ref::Matrix<mp_t> R = ref::matmul(M0m, Km);
  for (std::size_t i = 0; i < R.a.size(); ++i) R.a[i] -= Vm.a[i];
  const ref::Matrix<mp_t> G = ref::matmul(R, ref::transpose(Km));
  ref::Matrix<mp_t> want = M0m;
  for (std::size_t i = 0; i < want.a.size(); ++i) want.a[i] -= eta * G.a[i];
  EXPECT_LT(ref::frob_diff(cap::prop1_gd_step(M0m, KKt, VKt, eta), want), mp_t(1e-45));
  // the limit V K^+ + M0 (I - K K^+) interpolates exactly and is a fixed point of the step
  const MR L = cap::gd_limit(K, V, M0);
  EXPECT_EQ(ref::matmul(L, K).a, V.a);
  const ref::Matrix<mp_t> Lm = to_mp(L);
  EXPECT_LT(ref::frob_diff(cap::prop1_gd_step(Lm, KKt, VKt, eta), Lm), mp_t(1e-45));
  // a wrong candidate (V K^T) is not a fixed point
  const ref::Matrix<mp_t> P = to_mp(cap::printed_interpolant(K, V));
  EXPECT_GT(ref::frob_diff(cap::prop1_gd_step(P, KKt, VKt, eta), P), mp_t(1e-10));
}

TEST(A002Capacity, MlpPatternProductIsTheRegionMap) {
  std::mt19937_64 g(13);
  cap::MlpMemory<Rat> net;
  net.W = {rnd(g, 5, 3), rnd(g, 4, 5), rnd(g, 2, 4)};
  for (int t = 0; t < 20; ++t) {
    const MR k = rnd(g, 3, 1);
    const ref::Vector<Rat> kv(k.a.begin(), k.a.end());
    const auto pat = cap::relu_pattern(net, kv);
    ASSERT_EQ(pat.size(), 2u);
    const MR A = cap::pattern_product(net.W, pat);
    EXPECT_EQ(ref::matvec(A, kv.data()), cap::mlp_memory_forward(net, kv));
  }
  // a control: the all-ones pattern (no ReLU) differs from the forward pass somewhere
  bool differs = false;
  for (int t = 0; t < 20 && !differs; ++t) {
    const MR k = rnd(g, 3, 1);
    const ref::Vector<Rat> kv(k.a.begin(), k.a.end());
    const std::vector<std::vector<unsigned char>> ones = {std::vector<unsigned char>(5, 1), std::vector<unsigned char>(4, 1)};
    differs = ref::matvec(cap::pattern_product(net.W, ones), kv.data()) != cap::mlp_memory_forward(net, kv);
  }
  EXPECT_TRUE(differs);
  // named errors
  cap::MlpMemory<Rat> bad;
  bad.W = {rnd(g, 5, 3), rnd(g, 2, 4)};
  EXPECT_THROW(cap::mlp_memory_forward(bad, ref::Vector<Rat>(3, Rat(1))), std::invalid_argument);
  EXPECT_THROW(cap::mlp_memory_forward(net, ref::Vector<Rat>(2, Rat(1))), std::invalid_argument);
  cap::MlpMemory<Rat> gel = net;
  gel.act = cap::MlpActivation::gelu;
  EXPECT_THROW(cap::mlp_memory_forward(gel, ref::Vector<Rat>(3, Rat(1))), std::invalid_argument);
  // GELU in double: z Phi(z)
  cap::MlpMemory<double> d;
  d.act = cap::MlpActivation::gelu;
  d.W = {ref::Matrix<double>(1, 1), ref::Matrix<double>(1, 1)};
  d.W[0](0, 0) = 1, d.W[1](0, 0) = 1;
  EXPECT_NEAR(cap::mlp_memory_forward(d, std::vector<double>{1.0})[0], 0.8413447460685429, 1e-15);
}

TEST(A002Capacity, WidthExpressions) {
  // widths (d_k, d_h, d_v) = (2, 32, 1): U0 = 2 (1 + 1) = 4, U1 = 1 * 32 + 1 * 1 = 33, U2 = 2 (1 * 1 + 1 * 1) = 4
  EXPECT_EQ(cap::thm1_u0({2, 32, 1}), 4);
  EXPECT_EQ(cap::thm1_u1({2, 32, 1}), 33);
  EXPECT_EQ(cap::thm1_u2({2, 32, 1}), 4);
  // (3, 4, 5, 2): U1 = 2*4 + 2*5 + 2*2 = 22; U2 = 6 (2*5 + 2*2 + 2*1) = 96; U0 = 6 (2 + 2 + 2) = 36
  EXPECT_EQ(cap::thm1_u1({3, 4, 5, 2}), 22);
  EXPECT_EQ(cap::thm1_u2({3, 4, 5, 2}), 96);
  EXPECT_EQ(cap::thm1_u0({3, 4, 5, 2}), 36);
  // ties: the largest index attaining the minimum (out-of-range width 1)
  EXPECT_EQ(cap::thm1_u0({2, 3, 3, 3}), 54);
  EXPECT_THROW(cap::thm1_u1({2}), std::invalid_argument);
  EXPECT_THROW(cap::thm1_u1({2, 0, 1}), std::invalid_argument);
}

TEST(A002Capacity, LowRankReadings) {
  std::mt19937_64 g(17);
  const MR Q = rnd(g, 6, 1), K = rnd(g, 6, 1), V = rnd(g, 6, 4);
  EXPECT_LE(cap::exact_rank(cap::lowrank_r1_memory(K, V)), 1u);
  EXPECT_LE(cap::exact_rank(cap::lowrank_r2_noncausal(Q, K, V)), 1u);
  // causal: y_t = sum_{i<=t} (q_t k_i) v_i
  const MR Y = cap::lowrank_r3_causal(Q, K, V);
  for (std::size_t t = 0; t < 6; ++t)
    for (std::size_t c = 0; c < 4; ++c) {
      Rat s = 0;
      for (std::size_t i = 0; i <= t; ++i) s += Q(t, 0) * K(i, 0) * V(i, c);
      EXPECT_EQ(Y(t, c), s);
    }
  EXPECT_GT(cap::exact_rank(Y), 1u);  // the causal mask raises the rank above rank K = 1 (generic integers)
  // non-causal softmax: constant values give constant outputs
  ref::Matrix<double> Qd(3, 2), Kd(3, 2), Vd(3, 1);
  for (std::size_t i = 0; i < 6; ++i) Qd.a[i] = 0.3 * static_cast<double>(i), Kd.a[i] = -0.2 * static_cast<double>(i);
  for (auto& x : Vd.a) x = 2.0;
  const auto O = cap::softmax_attention_all_keys(Qd, Kd, Vd, 1.0);
  for (double x : O.a) EXPECT_NEAR(x, 2.0, 1e-15);
  // multihead with h = 1 is the head itself
  const MR Q2 = rnd(g, 4, 2), K2 = rnd(g, 4, 2), V2 = rnd(g, 4, 2);
  EXPECT_EQ(cap::multihead_concat(Q2, K2, V2, 1, [](const MR& a, const MR& b, const MR& c) { return cap::lowrank_r2_noncausal(a, b, c); }).a,
            cap::lowrank_r2_noncausal(Q2, K2, V2).a);
  EXPECT_THROW(cap::multihead_concat(Q2, K2, V2, 3, [](const MR& a, const MR& b, const MR& c) { return cap::lowrank_r2_noncausal(a, b, c); }), std::invalid_argument);
}

TEST(A002Capacity, PolynomialLiftCapacityIsBinomial) {
  // generic integer keys: the degree-<= p monomial lift has full rank D = binom(d_k + p, p)
  std::mt19937_64 g(19);
  for (std::size_t dk : {2, 3})
    for (int p : {1, 2, 3}) {
      const std::size_t D = ref::monomial_map_dim(dk, p);
      const MR K = rnd(g, dk, D + 2, -50, 50);
      const MR Phi = ref::transpose(ref::monomial_map(ref::transpose(K), p));
      EXPECT_EQ(cap::prefix_capacity(Phi), D) << "d_k=" << dk << " p=" << p;
    }
}

}  // namespace
}  // namespace recall
