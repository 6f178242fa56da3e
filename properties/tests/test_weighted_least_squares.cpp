// References of weighted_least_squares.hpp (seed 001, §4 Vignette 2: gate weights, weighted LS, F06):
// bad input raises std::invalid_argument naming the input; small exact cases; invariants at small sizes
// (double, and MP where the identity needs resolving tiny weights) with RapidCheck shrinking.
#include "recall/reference/weighted_least_squares.hpp"
#include "mp_test_support.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

namespace recall {
namespace {

using ref::Matrix;
using ref::Vector;
using namespace test_support;
using MM = Matrix<mp_t>;
using VM = Vector<mp_t>;

std::vector<double> log_gates(const std::vector<double>& g) {
  std::vector<double> l(g.size());
  for (std::size_t i = 0; i < g.size(); ++i) l[i] = ref::log_gate(g[i]);
  return l;
}
// log-gates at the current MP precision (the log evaluated in MP, not rounded through double)
VM log_gates_mp(const std::vector<double>& g) {
  VM l(g.size());
  for (std::size_t i = 0; i < g.size(); ++i) l[i] = ref::log_gate(mp_t(g[i]));
  return l;
}
// G5-like gate draw from an integer code (0: U(0,1), 1: exact 0, 2: 1, 3: 1e-300, 4: 1 - 1e-12, 5: Beta(5,1))
double gate_of(int code, std::mt19937_64& g) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  switch (code) {
    case 1: return 0.0;
    case 2: return 1.0;
    case 3: return 1e-300;
    case 4: return 1.0 - 1e-12;
    case 5: return std::pow(U(g), 0.2);
    default: return U(g);
  }
}

TEST(WeightedLeastSquares, BadInputIsAnErrorNamingIt) {
  Matrix<double> K(2, 2), V(2, 1), Q(2, 2);
  K(0, 0) = K(1, 1) = 1;
  std::vector<double> lg = {0.0, 0.1};  // gate > 1
  EXPECT_NE(error_of([&] { ref::gate_weights(lg, 2); }).find("log_gates[2]"), std::string::npos);
  lg = {0.0, std::numeric_limits<double>::quiet_NaN()};
  EXPECT_NE(error_of([&] { ref::wls_state(K, V, &lg, 2); }).find("log_gates[2]"), std::string::npos);
  Matrix<double> Kn = K;
  Kn(1, 0) = std::numeric_limits<double>::infinity();
  EXPECT_NE(error_of([&] { ref::wls_state<double>(Kn, V, nullptr, 2); }).find("K(2, 1)"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::wls_state<double>(K, V, nullptr, 3); }).find("t must be in 1..T"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::gate_weights_product(std::vector<double>{0.5, 1.5}, 2); }).find("gates[2]"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::input_gated_weights(std::vector<double>{0.0, 0.0}, std::vector<double>{1.0, -1.0}, 2); }).find("w[2]"),
            std::string::npos);
  EXPECT_NE(error_of([&] { ref::wls_ridge_state<double>(K, V, nullptr, 2, 0.0); }).find("mu"), std::string::npos);
  Matrix<double> Ks(2, 2);  // zero keys: S^G singular
  EXPECT_NE(error_of([&] { ref::wls_state_overdetermined<double>(Ks, V, nullptr, 2); }).find("singular"), std::string::npos);
  Matrix<double> Qb(1, 2);
  EXPECT_NE(error_of([&] { ref::wls_gated_scan_solve<double>(Qb, K, V, nullptr); }).find("Q must be T x D_k"), std::string::npos);
}

// Exact small cases: weights of gates (g1, 1/2, 0, 1/4) at t = 4 are (0, 0, 1/4, 1); the recursion and the
// direct products agree; the last weight is exactly 1; sqrt weights survive products that underflow.
TEST(WeightedLeastSquares, GateWeightsExactCases) {
  const std::vector<double> g = {0.3, 0.5, 0.0, 0.25};
  const auto w = ref::gate_weights(log_gates(g), 4);
  EXPECT_EQ(w[0], 0.0);
  EXPECT_EQ(w[1], 0.0);
  EXPECT_DOUBLE_EQ(w[2], 0.25);
  EXPECT_EQ(w[3], 1.0);
  const auto p = ref::gate_weights_product(g, 4);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(w[i], p[i]);
  std::vector<double> r = {1.0};
  for (std::size_t t = 1; t < 4; ++t) r = ref::gate_weights_step(r, g[t]);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(r[i], p[i]);
  // two gates 1e-300: the weight 1e-600 underflows in double, its square root 1e-300 does not
  const std::vector<double> tiny = {1.0, 1e-300, 1e-300};
  const auto s = ref::gate_weights_sqrt(log_gates(tiny), 3);
  EXPECT_NEAR(s[0] / 1e-300, 1.0, 1e-12);
  EXPECT_EQ(ref::gate_weights(log_gates(tiny), 3)[0], 0.0);
  // MP resolves it: 1e-600 relative to the product of the exact doubles
  MpDigitsScope sc(50);
  const VM lg = log_gates_mp(tiny);
  const VM wm = ref::gate_weights(lg, 3), pm = ref::gate_weights_product(ref::cast<mp_t>(tiny), 3);
  EXPECT_LT(static_cast<double>(mp_t(abs(mp_t(wm[0] / pm[0] - 1)))), 1e-45);
}

// Weights are non-decreasing in i with gamma_t^(t) = 1 (A001-WLS-WEIGHT-ORDER), log-space and products agree.
RC_GTEST_PROP(WeightedLeastSquares, WeightsMonotoneAndLogSpaceMatchesProducts, ()) {
  const int T = *rc::gen::inRange(1, 12);
  const auto codes = *rc::gen::container<std::vector<int>>(static_cast<std::size_t>(T), rc::gen::inRange(0, 6));
  std::mt19937_64 g(*rc::gen::inRange<std::uint64_t>(1, 1u << 30));
  std::vector<double> gates(static_cast<std::size_t>(T));
  for (int t = 0; t < T; ++t) gates[t] = gate_of(codes[t], g);
  MpDigitsScope sc(40);
  const VM lg = log_gates_mp(gates), gm = ref::cast<mp_t>(gates);
  for (std::size_t t = 1; t <= static_cast<std::size_t>(T); ++t) {
    const VM w = ref::gate_weights(lg, t), p = ref::gate_weights_product(gm, t);
    RC_ASSERT(w[t - 1] == mp_t(1));
    for (std::size_t i = 0; i < t; ++i) {
      RC_ASSERT((w[i] == 0) == (p[i] == 0));
      if (p[i] != 0) RC_ASSERT(static_cast<double>(mp_t(abs(mp_t(w[i] / p[i] - 1)))) < 1e-30);
      if (i + 1 < t) RC_ASSERT(p[i] <= p[i + 1]);
    }
  }
}

// Input-gated weights: the closed form V^T Gamma K equals M_t = gamma_t M_{t-1} + w_t v_t k_t^T at every t.
RC_GTEST_PROP(WeightedLeastSquares, InputGatedRecurrenceEqualsClosedForm, ()) {
  const std::size_t T = *rc::gen::inRange(1, 9), dk = *rc::gen::inRange(1, 4), dv = *rc::gen::inRange(1, 3);
  std::mt19937_64 g(*rc::gen::inRange<std::uint64_t>(1, 1u << 30));
  const auto K = gauss(g, T, dk), V = gauss(g, T, dv);
  std::vector<double> gates(T), w(T);
  std::uniform_real_distribution<double> U(0.0, 2.0);
  for (std::size_t t = 0; t < T; ++t) {
    gates[t] = gate_of(static_cast<int>(g() % 6), g);
    w[t] = (g() % 3 == 0) ? static_cast<double>(g() % 2) : U(g);
  }
  const auto lg = log_gates(gates);
  const auto Ms = ref::input_gated_recurrence(K, V, lg, w);
  for (std::size_t t = 1; t <= T; ++t) {
    const auto R = ref::weighted_cross_moment(K, V, ref::input_gated_weights(lg, w, t));
    RC_ASSERT(rel(Ms[t - 1], R) < 1e-13);
  }
}

// The objective is quadratic: its central difference with step 1 is exactly the directional derivative.
TEST(WeightedLeastSquares, ObjectiveGradientIsExactCentralDifference) {
  std::mt19937_64 g(7);
  MpDigitsScope sc(50);
  const MM K = gauss<mp_t>(g, 6, 3), V = gauss<mp_t>(g, 6, 2);
  const MM M = gauss<mp_t>(g, 2, 3), E = gauss<mp_t>(g, 2, 3);
  const VM w = ref::gate_weights(log_gates_mp({0.9, 0.0, 0.7, 1e-300, 0.5, 1.0}), 6);
  MM Mp = M, Mm = M;
  for (std::size_t i = 0; i < M.a.size(); ++i) {
    Mp.a[i] += E.a[i];
    Mm.a[i] -= E.a[i];
  }
  const mp_t fd = (ref::wls_objective(Mp, K, V, w) - ref::wls_objective(Mm, K, V, w)) / 2;
  const MM G = ref::wls_objective_grad(M, K, V, w);
  mp_t ip(0);
  for (std::size_t i = 0; i < G.a.size(); ++i) ip += G.a[i] * E.a[i];
  EXPECT_LT(static_cast<double>(mp_t(abs(mp_t(fd - ip)))), 1e-45);
}

// Overdetermined positive weights: the SVD reference, the printed branch R^G (S^G)^{-1}, stationarity,
// F06 (sequential and chunked) and the ridge limit agree.
RC_GTEST_PROP(WeightedLeastSquares, OverdeterminedFormsAgree, ()) {
  const std::size_t dk = *rc::gen::inRange(1, 4), T = dk + *rc::gen::inRange(0, 6), dv = *rc::gen::inRange(1, 3);
  std::mt19937_64 g(*rc::gen::inRange<std::uint64_t>(1, 1u << 30));
  const auto Kd = gauss(g, T, dk), Vd = gauss(g, T, dv), Qd = gauss(g, T, dk);
  std::vector<double> gates(T);
  std::uniform_real_distribution<double> U(0.2, 1.0);
  for (double& x : gates) x = U(g);
  MpDigitsScope sc(40);
  const MM K = ref::cast<mp_t>(Kd), V = ref::cast<mp_t>(Vd), Q = ref::cast<mp_t>(Qd);
  const VM lg = log_gates_mp(gates);
  std::size_t rank = 0;
  const MM Mref = ref::wls_state(K, V, &lg, T, mp_t(1e-30), &rank);
  RC_ASSERT(rank == dk);
  const MM Mbr = ref::wls_state_overdetermined(K, V, &lg, T);
  RC_ASSERT(rel(Mref, Mbr) < 1e-25);
  const VM w = ref::gate_weights(lg, T);
  RC_ASSERT(rel(ref::wls_objective_grad(Mref, K, V, w), MM(dv, dk)) < 1e-25);
  const MM Y = ref::wls_outputs(Q, K, V, &lg, mp_t(1e-30));
  for (std::size_t chunk : {std::size_t(0), std::size_t(1), std::size_t(3)}) {
    const auto f = ref::wls_gated_scan_solve(Q, K, V, &lg, mp_t(1e-30), chunk);
    RC_ASSERT(rel(f.Y, Y) < 1e-20);
    RC_ASSERT(f.branch[T - 1] == ref::WlsBranch::cholesky);
  }
  RC_ASSERT(rel(ref::wls_ridge_state(K, V, &lg, T, mp_t(1e-35)), Mref) < 1e-20);
}

// Singular S^G_t (t < D_k, few keys after a zero gate): F06 takes the pseudo-inverse branch and matches the
// reference; the branch and the active-key count are reported.
TEST(WeightedLeastSquares, ScanUsesPinvWhereSingular) {
  std::mt19937_64 g(11);
  const std::size_t T = 9, dk = 3, dv = 2;
  const auto Kd = gauss(g, T, dk), Vd = gauss(g, T, dv), Qd = gauss(g, T, dk);
  const std::vector<double> gates = {0.9, 0.8, 0.7, 0.9, 0.0, 0.6, 0.95, 0.5, 0.9};  // zero gate at t = 5
  MpDigitsScope sc(40);
  const MM K = ref::cast<mp_t>(Kd), V = ref::cast<mp_t>(Vd), Q = ref::cast<mp_t>(Qd);
  const VM lg = log_gates_mp(gates);
  std::vector<std::size_t> ranks;
  const MM Y = ref::wls_outputs(Q, K, V, &lg, mp_t(1e-30), &ranks);
  const std::vector<std::size_t> want_rank = {1, 2, 3, 3, 1, 2, 3, 3, 3};
  EXPECT_EQ(ranks, want_rank);
  for (std::size_t chunk : {std::size_t(0), std::size_t(2), std::size_t(4)}) {
    const auto f = ref::wls_gated_scan_solve(Q, K, V, &lg, mp_t(1e-30), chunk);
    EXPECT_LT(rel(f.Y, Y), 1e-20) << "chunk " << chunk;
    const std::vector<std::size_t> want_active = {1, 2, 3, 4, 1, 2, 3, 4, 5};
    EXPECT_EQ(f.active, want_active);
    for (std::size_t t = 0; t < T; ++t)
      EXPECT_EQ(f.branch[t] == ref::WlsBranch::pinv_structural, want_active[t] < dk) << "t = " << t + 1;
  }
  // exact repeats: t >= D_k but rank 1, the pivot test sends F06 to the pseudo-inverse
  Matrix<double> Kr(4, 2), Vr = gauss(g, 4, 1), Qr = gauss(g, 4, 2);
  for (std::size_t i = 0; i < 4; ++i) Kr(i, 0) = 1.0, Kr(i, 1) = 2.0;
  const MM Km = ref::cast<mp_t>(Kr), Vm = ref::cast<mp_t>(Vr), Qm = ref::cast<mp_t>(Qr);
  const auto f = ref::wls_gated_scan_solve<mp_t>(Qm, Km, Vm, nullptr, mp_t(1e-30));
  EXPECT_EQ(f.branch[3], ref::WlsBranch::pinv_pivot);
  EXPECT_LT(rel(f.Y, ref::wls_outputs<mp_t>(Qm, Km, Vm, nullptr, mp_t(1e-30))), 1e-20);
}

// Rank-deficient inputs (zero rows, square rank-deficient, exact repeats) go through the pseudo-inverse of the
// WLS reference (ref::pinv) without a convergence failure, and the result satisfies the Moore-Penrose conditions
// A X A = A, X A X = X.
TEST(WeightedLeastSquares, PseudoInverseOfRankDeficientInputs) {
  std::mt19937_64 g(1);
  std::normal_distribution<double> N(0.0, 1.0);
  MpDigitsScope sc(40);
  for (int it = 0; it < 120; ++it) {
    const std::size_t d = 2 + it % 4, m = d + it % 3, pool = 1 + it % (d - 1), zero_rows = it % 2;
    std::vector<std::vector<double>> P(pool, std::vector<double>(d));
    for (auto& r : P)
      for (double& x : r) x = N(g);
    MM A(m + zero_rows, d);
    for (std::size_t i = zero_rows; i < m + zero_rows; ++i) {
      const auto& r = P[g() % pool];
      const mp_t w(0.1 + static_cast<double>(g() % 100) / 50.0);
      for (std::size_t j = 0; j < d; ++j) A(i, j) = w * mp_t(r[j]);
    }
    std::size_t rank = 0;
    const MM X = ref::pinv(A, mp_t(1e-30), &rank);
    EXPECT_LE(rank, pool);
    EXPECT_LT(rel(ref::matmul(ref::matmul(A, X), A), A), 1e-28) << "case " << it;
    EXPECT_LT(rel(ref::matmul(ref::matmul(X, A), X), X), 1e-28) << "case " << it;
  }
}

// Tall rank-deficient inputs whose column space is confined by exact zero rows (zero weights): ref::pinv
// converges, keeps the exact rank and satisfies the Moore-Penrose conditions.
TEST(WeightedLeastSquares, PseudoInverseTallZeroRows) {
  std::mt19937_64 g(2);
  std::normal_distribution<double> N(0.0, 1.0);
  MpDigitsScope sc(40);
  for (int it = 0; it < 90; ++it) {
    const std::size_t r = 1 + it % 3, d = r + 1 + it % 2, zr = 1 + it % 4;
    MM A(r + zr, d);
    for (std::size_t i = zr; i < r + zr; ++i)
      for (std::size_t j = 0; j < d; ++j) A(i, j) = mp_t(N(g)) * sqrt(mp_t(0.3 + it % 5));
    std::size_t rank = 0;
    const MM X = ref::pinv(A, mp_t(1e-30), &rank);
    EXPECT_EQ(rank, r) << "case " << it;
    EXPECT_LT(rel(ref::matmul(ref::matmul(A, X), A), A), 1e-28) << "case " << it;
    EXPECT_LT(rel(ref::matmul(ref::matmul(X, A), X), X), 1e-28) << "case " << it;
  }
}

// Above 300 digits (P-scaled checks with weights spanning 1e-300): the rank threshold stays positive and the
// pseudo-inverse (ref::pinv) converges on graded rows; the SVD reference matches the printed branch R^G (S^G)^{-1}.
TEST(WeightedLeastSquares, HighPrecisionGradedWeights) {
  std::mt19937_64 g(9);
  const std::size_t T = 4, dk = 3, dv = 2;
  const auto Kd = gauss(g, T, dk), Vd = gauss(g, T, dv);
  MpDigitsScope sc(420);
  EXPECT_GT(ref::default_rank_tol<mp_t>(dk), mp_t(0));
  const VM lg = log_gates_mp({0.5, 1.0, 1e-300, 0.9});  // weights of keys 1, 2 are ~1e-300, of keys 3, 4 O(1)
  const MM K = ref::cast<mp_t>(Kd), V = ref::cast<mp_t>(Vd);
  std::size_t rank = 0;
  const MM Mref = ref::wls_state(K, V, &lg, T, ref::default_rank_tol<mp_t>(T), &rank);
  EXPECT_EQ(rank, dk);
  EXPECT_LT(rel(Mref, ref::wls_state_overdetermined(K, V, &lg, T)), 1e-80);
  // dropping the tiny-weight keys (zero gate) changes the memory at O(1): they alone carry the third direction
  const VM lg2 = log_gates_mp({0.5, 1.0, 0.0, 0.9});
  EXPECT_GT(rel(Mref, ref::wls_state(K, V, &lg2, T, ref::default_rank_tol<mp_t>(T))), 1e-3);
}

// Underdetermined: with positive weights the weighted min-norm memory equals the unweighted one
// V^T (K K^T)^{-1} K; a zero weight removes its pair (K = [e1; e2] in R^3, values 1, 2, gamma_2 = 0:
// weights (0, 1), weighted memory [0 2 0], unweighted [1 2 0]).
TEST(WeightedLeastSquares, UnderdeterminedPositiveWeightsAndZeroWeight) {
  std::mt19937_64 g(5);
  MpDigitsScope sc(60);
  const MM K = gauss<mp_t>(g, 3, 5), V = gauss<mp_t>(g, 3, 2);
  const VM lg = log_gates_mp({0.5, 1e-9, 0.3});
  EXPECT_LT(rel(ref::wls_state(K, V, &lg, 3, mp_t(1e-40)), ref::wls_state_underdetermined(K, V, 3)), 1e-25);
  Matrix<double> K2(2, 3), V2(2, 1);
  K2(0, 0) = 1, K2(1, 1) = 1, V2(0, 0) = 1, V2(1, 0) = 2;
  const std::vector<double> lg2 = log_gates({0.7, 0.0});
  const auto Mw = ref::wls_state(K2, V2, &lg2, 2), Mu = ref::wls_state_underdetermined(K2, V2, 2);
  EXPECT_DOUBLE_EQ(Mw(0, 0), 0.0);
  EXPECT_DOUBLE_EQ(Mw(0, 1), 2.0);
  EXPECT_DOUBLE_EQ(Mu(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(Mu(0, 1), 2.0);
}

// Rescaling: the weighted objective equals the unweighted objective of the Gamma^{1/2}-rescaled data.
TEST(WeightedLeastSquares, RescaledObjective) {
  std::mt19937_64 g(3);
  const std::size_t T = 7, dk = 3, dv = 2;
  const auto K = gauss(g, T, dk), V = gauss(g, T, dv), M = gauss(g, dv, dk);
  const auto lg = log_gates({0.2, 0.9, 0.5, 1.0, 0.7, 0.6, 0.8});
  const auto w = ref::gate_weights(lg, T), s = ref::gate_weights_sqrt(lg, T);
  Matrix<double> Ks(T, dk), Vs(T, dv);
  for (std::size_t i = 0; i < T; ++i) {
    for (std::size_t j = 0; j < dk; ++j) Ks(i, j) = s[i] * K(i, j);
    for (std::size_t j = 0; j < dv; ++j) Vs(i, j) = s[i] * V(i, j);
  }
  const double a = ref::wls_objective(M, K, V, w), b = ref::wls_objective(M, Ks, Vs, std::vector<double>(T, 1.0));
  EXPECT_NEAR(a / b, 1.0, 1e-13);
}

}  // namespace
}  // namespace recall
