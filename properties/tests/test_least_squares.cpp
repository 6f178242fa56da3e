// References of least_squares.hpp (seed 001: master objective, LS memory and its branches, feature LS,
// F05 prefix scans + solves, heads and masks): bad input raises std::invalid_argument naming the input,
// small exact cases, and invariants at small sizes (double, plus one MP case) with RapidCheck shrinking.
#include "recall/reference/least_squares.hpp"
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

Matrix<double> head(const Matrix<double>& X, std::size_t t) {
  Matrix<double> out(t, X.cols);
  for (std::size_t i = 0; i < t * X.cols; ++i) out.a[i] = X.a[i];
  return out;
}
const double kTol = 1e-9;  // well-conditioned Gaussian instances in double

TEST(LeastSquaresReference, BadInputIsAnErrorNamingIt) {
  Matrix<double> K(2, 2), V(2, 1), M(1, 2);
  K(0, 0) = 1;
  K(1, 1) = 1;
  K(1, 0) = std::nan("");
  EXPECT_NE(error_of([&] { ref::ls_state_pinv(K, V, 2); }).find("of K is not finite"), std::string::npos);
  K(1, 0) = 0;
  Vector<double> gamma = {1.0, -0.5};
  EXPECT_NE(error_of([&] { ref::master_objective_linear(M, K, V, 2, &gamma); }).find("gamma_2 is negative"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::master_objective_linear(M, K, V, 3); }).find("prefix length t = 3"), std::string::npos);
  Matrix<double> Kd(2, 2);  // duplicate keys: S_2 singular
  Kd(0, 0) = Kd(1, 0) = 1;
  EXPECT_NE(error_of([&] { ref::ls_state_overdetermined(Kd, V, 2, 1e-12); }).find("S_t = K_t^T K_t is singular"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::ls_state_underdetermined(Kd, V, 2, 1e-12); }).find("K_t K_t^T is singular"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::ls_prefix_scan_solve(Kd, Kd, V, ref::LsSingular::error, 1e-12); }).find("prefix t = 2"), std::string::npos);
  Matrix<double> Q3(1, 6), K3(1, 4), V3(1, 2);
  EXPECT_NE(error_of([&] {
              ref::multihead_layer(Q3, K3, V3, 3, 2, 2, 1, [](const Matrix<double>& q, const Matrix<double>& k, const Matrix<double>& v) {
                return ref::linear_attention(q, k, v);
              });
            }).find("must divide"),
            std::string::npos);
  Matrix<double> G(2, 2), R(1, 2);
  const double q[2] = {1, 2};
  EXPECT_NE(error_of([&] { ref::ls_output_with_gram(R, G, q); }).find("singular"), std::string::npos);
}

TEST(LeastSquaresReference, SmallExactCases) {
  // K = diag(1, 2), V = [3; 4]: M = [3, 2], zero loss; the duplicate key (1, 0) with values 3 and 5 gives 4
  Matrix<double> K(2, 2), V(2, 1);
  K(0, 0) = 1;
  K(1, 1) = 2;
  V(0, 0) = 3;
  V(1, 0) = 4;
  const Matrix<double> M = ref::ls_state_pinv(K, V, 2);
  EXPECT_NEAR(M(0, 0), 3.0, 1e-15);
  EXPECT_NEAR(M(0, 1), 2.0, 1e-15);
  EXPECT_NEAR(ref::ls_objective(M, K, V, 2), 0.0, 1e-28);
  EXPECT_NEAR(ref::ls_state_overdetermined(K, V, 2, 1e-14)(0, 1), 2.0, 1e-15);
  Matrix<double> Kd(2, 2), Vd(2, 1);
  Kd(0, 0) = Kd(1, 0) = 1;
  Vd(0, 0) = 3;
  Vd(1, 0) = 5;
  std::size_t rank = 9;
  const Matrix<double> Md = ref::ls_state_pinv(Kd, Vd, 2, 1e-12, &rank);
  EXPECT_EQ(rank, 1u);
  EXPECT_NEAR(Md(0, 0), 4.0, 1e-14);
  EXPECT_NEAR(Md(0, 1), 0.0, 1e-14);
  // J with weights (1, 0): the second pair does not count; its min-norm minimiser ignores it
  Vector<double> w = {1.0, 0.0};
  const Matrix<double> Mw = ref::master_minimiser_linear(Kd, Vd, 2, &w, 1e-12);
  EXPECT_NEAR(Mw(0, 0), 3.0, 1e-14);
  EXPECT_NEAR(ref::master_objective_linear(Mw, Kd, Vd, 2, &w), 0.0, 1e-28);
  // substituting S_t -> I in the LS read-out gives linear attention
  const double q[2] = {0.5, -1};
  const Vector<double> y = ref::ls_output_with_gram(ref::cross_moment(K, V, 2), ref::eye<double>(2), q);
  EXPECT_DOUBLE_EQ(y[0], 3 * 0.5 + 4 * 2 * -1.0);
}

// The branches of Eq. (11) and F05 agree with the pseudo-inverse reference; stationarity and min-norm.
TEST(LeastSquaresReference, BranchesAgreeWithPseudoInverse) {
  rc::check("LS branches = pinv", [](unsigned seed) {
    std::mt19937_64 g(seed);
    const std::size_t dk = 1 + seed % 4, dv = 1 + (seed / 4) % 3, T = 1 + (seed / 12) % 9;
    const Matrix<double> Q = gauss(g, T, dk), K = gauss(g, T, dk), V = gauss(g, T, dv);
    for (std::size_t t = 1; t <= T; ++t) {  // well-conditioned prefixes only (the branches square cond(K_t))
      const auto sv = ref::svd(head(K, t)).sigma;
      RC_PRE(sv.back() > 1e-4 * sv.front());
    }
    const auto f05 = ref::ls_prefix_scan_solve(Q, K, V, ref::LsSingular::pinv, 1e-13, true);
    for (std::size_t t = 1; t <= T; ++t) {
      const Matrix<double> M = ref::ls_state_pinv(K, V, t);
      // normal equations M S_t = R_t hold for the pinv solution in every case
      RC_ASSERT(rel(ref::matmul(M, ref::key_gram(K, t)), ref::cross_moment(K, V, t)) < kTol * 1e3);
      const Matrix<double> Mb = t >= dk ? ref::ls_state_overdetermined(K, V, t, 1e-13) : ref::ls_state_underdetermined(K, V, t, 1e-13);
      RC_ASSERT(rel(M, Mb) < kTol * 1e3);
      RC_ASSERT(rel(M, f05.M[t - 1]) < kTol * 1e3);
      const Vector<double> y = ref::matvec(M, Q.row(t - 1));
      RC_ASSERT(relv(y, Vector<double>(f05.O.row(t - 1), f05.O.row(t - 1) + dv)) < kTol * 1e3);
      if (t <= dk) {  // interpolation and rows of M in row(K_t): M = M K_t^+ K_t
        const Matrix<double> Kt = head(K, t);
        RC_ASSERT(rel(ref::matmul(M, ref::transpose(Kt)), ref::transpose(head(V, t))) < kTol * 1e3);
        RC_ASSERT(rel(M, ref::matmul(M, ref::matmul(ref::pinv(Kt), Kt))) < kTol * 1e3);
      }
    }
  });
}

// L_t(M_t) <= L_t(M) for perturbations and for the linear-attention state; the gradient of J vanishes there.
TEST(LeastSquaresReference, PseudoInverseSolutionIsOptimal) {
  rc::check("LS optimality", [](unsigned seed) {
    std::mt19937_64 g(seed);
    const std::size_t dk = 1 + seed % 3, dv = 1 + (seed / 3) % 2, t = 1 + (seed / 6) % 7;
    const Matrix<double> K = gauss(g, t, dk), V = gauss(g, t, dv);
    const Matrix<double> M = ref::ls_state_pinv(K, V, t);
    const double L = ref::ls_objective(M, K, V, t);
    RC_ASSERT(L <= ref::ls_objective(ref::cross_moment(K, V, t), K, V, t) * (1 + 1e-12) + 1e-14);
    for (int r = 0; r < 20; ++r) {
      Matrix<double> P = M;
      const Matrix<double> E = gauss(g, dv, dk);
      const double eps = std::pow(10.0, -3.0 + 3.0 * (r % 4));
      for (std::size_t i = 0; i < P.a.size(); ++i) P.a[i] += eps * E.a[i];
      RC_ASSERT(L <= ref::ls_objective(P, K, V, t) * (1 + 1e-12) + 1e-14);
    }
    const Matrix<double> grad = ref::master_objective_linear_grad(M, K, V, t);
    const auto sv = ref::svd(K).sigma;
    const double cond = sv.back() > 0 ? sv.front() / sv.back() : 1e300;
    RC_ASSERT(ref::frob(grad) < 1e-13 * cond * cond * cond * std::max(1.0, ref::frob(ref::cross_moment(K, V, t))));
  });
}

// J for the linear class equals the matrix-form LS objective (weights 1) and the feature class with phi = id;
// the gradient equals central differences (J is quadratic: exact up to rounding).
TEST(LeastSquaresReference, MasterObjectiveAndGradient) {
  std::mt19937_64 g(7);
  const std::size_t dk = 3, dv = 2, t = 5;
  const Matrix<double> K = gauss(g, t, dk), V = gauss(g, t, dv), M = gauss(g, dv, dk);
  EXPECT_NEAR(ref::master_objective_linear(M, K, V, t), ref::ls_objective(M, K, V, t), 1e-12);
  ref::FeatureMap id;
  EXPECT_NEAR(ref::master_objective_feature(M, id, K, V, t), ref::master_objective_linear(M, K, V, t), 1e-12);
  Vector<double> w = {0.5, 1.0, 0.0, 2.0, 1e-3};
  const Matrix<double> G = ref::master_objective_linear_grad(M, K, V, t, &w);
  EXPECT_LT(rel(G, ref::master_objective_feature_grad(M, id, K, V, t, &w)), 1e-14);
  const double h = 0.5;
  for (std::size_t a = 0; a < M.a.size(); ++a) {
    Matrix<double> P = M, N = M;
    P.a[a] += h;
    N.a[a] -= h;
    const double fd = (ref::master_objective_linear(P, K, V, t, &w) - ref::master_objective_linear(N, K, V, t, &w)) / (2 * h);
    EXPECT_NEAR(fd, G.a[a], 1e-11) << "entry " << a;
  }
  // feature class with the poly2 map: J(M) = J_linear on Phi rows
  ref::FeatureMap p2;
  p2.kind = ref::FeatureMapKind::poly;
  p2.order = 2;
  const Matrix<double> Mp = gauss(g, dv, 9), Phi = ref::feature_rows(p2, K, t);
  EXPECT_NEAR(ref::master_objective_feature(Mp, p2, K, V, t, &w), ref::master_objective_linear(Mp, Phi, V, t, &w), 1e-11);
}

TEST(LeastSquaresReference, FeatureLsWithIdentityMapIsLs) {
  std::mt19937_64 g(11);
  const Matrix<double> K = gauss(g, 6, 3), V = gauss(g, 6, 2);
  ref::FeatureMap id;
  for (std::size_t t = 1; t <= 6; ++t) EXPECT_LT(rel(ref::feature_ls_state(id, K, V, t, 1e-13), ref::ls_state_pinv(K, V, t, 1e-13)), 1e-13);
}

// Heads: G = H heads are independent single-head layers; a shared K/V group shares the memory; the causal
// mask reproduces the causal layers (linear attention and F05).
TEST(LeastSquaresReference, HeadsGroupsAndMasks) {
  std::mt19937_64 g(3);
  const std::size_t T = 5, dk = 2, dv = 2, H = 4;
  const Matrix<double> Q = gauss(g, T, H * dk), K = gauss(g, T, H * dk), V = gauss(g, T, H * dv);
  auto la = [](const Matrix<double>& q, const Matrix<double>& k, const Matrix<double>& v) { return ref::linear_attention(q, k, v); };
  const auto mh = ref::multihead_layer(Q, K, V, H, H, dk, dv, la);
  for (std::size_t h = 0; h < H; ++h) {
    Matrix<double> q(T, dk), k(T, dk), v(T, dv);
    for (std::size_t t = 0; t < T; ++t) {
      for (std::size_t j = 0; j < dk; ++j) q(t, j) = Q(t, h * dk + j), k(t, j) = K(t, h * dk + j);
      for (std::size_t j = 0; j < dv; ++j) v(t, j) = V(t, h * dv + j);
    }
    const auto one = ref::linear_attention(q, k, v);
    EXPECT_EQ(rel(one.state, mh.state[h]), 0.0);
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t j = 0; j < dv; ++j) EXPECT_EQ(one.O(t, j), mh.O(t, h * dv + j));
  }
  Matrix<double> K1(T, dk), V1(T, dv);
  for (std::size_t t = 0; t < T; ++t) {
    for (std::size_t j = 0; j < dk; ++j) K1(t, j) = K(t, j);
    for (std::size_t j = 0; j < dv; ++j) V1(t, j) = V(t, j);
  }
  const auto mq = ref::multihead_layer(Q, K1, V1, H, 1, dk, dv, la);
  for (std::size_t h = 1; h < H; ++h) EXPECT_EQ(rel(mq.state[0], mq.state[h]), 0.0);
  std::vector<unsigned char> L(T * T, 0);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t i = 0; i <= t; ++i) L[t * T + i] = 1;
  Matrix<double> q0(T, dk);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t j = 0; j < dk; ++j) q0(t, j) = Q(t, j);
  const auto one = ref::linear_attention(q0, K1, V1);
  EXPECT_LT(rel(ref::masked_memory_layer(q0, K1, V1, L, ref::MaskedRule::linear_attention), one.O), 1e-14);
  const auto f05 = ref::ls_prefix_scan_solve(q0, K1, V1, ref::LsSingular::pinv, 1e-13);
  EXPECT_LT(rel(ref::masked_memory_layer(q0, K1, V1, L, ref::MaskedRule::least_squares), f05.O), 1e-10);
}

// F05 falls back to the SVD route on a singular prefix (exact duplicate keys), in MP, and agrees with pinv.
TEST(LeastSquaresReference, PrefixScanSingularFallbackMp) {
  MpDigitsScope sc(40);
  Matrix<mp_t> K(4, 2), V(4, 1), Q(4, 2);
  const double kd[8] = {1, 2, 1, 2, 2, 4, 0.5, -1};  // keys 1..3 collinear: S_2, S_3 singular
  for (int i = 0; i < 8; ++i) K.a[i] = kd[i], Q.a[i] = 0.25 * i - 1;
  for (int i = 0; i < 4; ++i) V.a[i] = i + 1;
  const mp_t tol = ref::default_rank_tol<mp_t>(4);
  const auto r = ref::ls_prefix_scan_solve(Q, K, V, ref::LsSingular::pinv, tol, true);
  EXPECT_EQ(std::string(r.branch.begin(), r.branch.end()), "uppo");
  for (std::size_t t = 1; t <= 4; ++t) {
    const Matrix<mp_t> M = ref::ls_state_pinv(K, V, t, tol);
    EXPECT_LT(static_cast<double>(ref::frob_diff(M, r.M[t - 1])), 1e-30) << "t = " << t;
  }
}

}  // namespace
}  // namespace recall
