// Unit tests of reference/online_rules.hpp (A004 delta-rule FWP, online updates, objectives,
// GD views, closed forms of the delta rule): small hand-checkable cases and bad input.
#include "recall/reference/online_rules.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

namespace recall::ref {
namespace {

Matrix<double> rnd(std::mt19937_64& g, std::size_t r, std::size_t c) {
  std::normal_distribution<double> N(0, 1);
  Matrix<double> m(r, c);
  for (double& x : m.a) x = N(g);
  return m;
}
double maxdiff(const Matrix<double>& A, const Matrix<double>& B) {
  double m = 0;
  for (std::size_t i = 0; i < A.a.size(); ++i) m = std::max(m, std::fabs(A.a[i] - B.a[i]));
  return m;
}

TEST(OnlineRulesT2A004, DeltaBetaOneUnitKeyReplacesTheValue) {
  // S_prev = [[1, 2]], k = (1, 0), v = 5: beta = 1 gives S k = v and keeps the orthogonal column.
  Matrix<double> S(1, 2);
  S(0, 0) = 1; S(0, 1) = 2;
  const double k[2] = {1, 0}, v[1] = {5};
  const Matrix<double> Sn = online_update(OnlineRule::deltanet, S, k, v, 1.0, 1.0);
  EXPECT_DOUBLE_EQ(Sn(0, 0), 5);
  EXPECT_DOUBLE_EQ(Sn(0, 1), 2);
  const Vector<double> vbar = delta_read(S, k, 2);
  EXPECT_DOUBLE_EQ(vbar[0], 1);
  const Matrix<double> W24 = delta_beta_difference(S, 1.0, v, vbar, k);
  EXPECT_EQ(maxdiff(W24, Sn), 0);
}

TEST(OnlineRulesT2A004, LonghornPrintedStepEqualsRewrittenStep) {
  const double k[3] = {0.3, -1.2, 2.0};
  for (double b : {0.0, 1e-6, 1.0, 1e3, 1e12})
    EXPECT_NEAR(longhorn_eps_printed(b, k, 3), longhorn_step(b, k, 3), 1e-15 * (1 + longhorn_step(b, k, 3)));
}

TEST(OnlineRulesT2A004, ChunkedAndProductFormsMatchTheSequentialGatedDeltaRule) {
  std::mt19937_64 g(7);
  const std::size_t T = 9, dk = 3, dv = 2;
  const Matrix<double> Q = rnd(g, T, dk), V = rnd(g, T, dv), S0 = rnd(g, dv, dk);
  Matrix<double> K = rnd(g, T, dk);
  for (std::size_t t = 0; t < T; ++t) {
    double n = 0;
    for (std::size_t j = 0; j < dk; ++j) n += K(t, j) * K(t, j);
    for (std::size_t j = 0; j < dk; ++j) K(t, j) /= std::sqrt(n);
  }
  Vector<double> beta(T), lg(T);
  for (std::size_t t = 0; t < T; ++t) { beta[t] = 0.1 + 0.1 * t; lg[t] = t == 4 ? log_gate(0.0) : std::log(0.9 - 0.05 * t); }
  const auto seq = gated_delta_rule(Q, K, V, beta, lg, DecayPlacement::G, &S0);
  for (std::size_t C : {1, 2, 4, 9, 16}) {
    const auto ch = delta_rule_chunked_ut(Q, K, V, beta, C, &lg, &S0);
    EXPECT_LT(maxdiff(ch.O, seq.O), 1e-12) << "C=" << C;
    EXPECT_LT(maxdiff(ch.state, seq.state), 1e-12) << "C=" << C;
  }
  EXPECT_LT(maxdiff(delta_rule_product_state(K, V, beta, T, &lg, &S0), seq.state), 1e-12);
}

TEST(OnlineRulesT2A004, ObjectiveGradientsVanishAtTheUpdatesExceptPrintedLonghorn) {
  std::mt19937_64 g(3);
  const Matrix<double> Sp = rnd(g, 2, 3), kk = rnd(g, 1, 3), vv = rnd(g, 1, 2);
  const double a = 0.7, b = 0.4;
  auto gnorm = [&](Objective o, OnlineRule r) {
    const Matrix<double> Su = online_update(r, Sp, kk.a.data(), vv.a.data(), a, b);
    const Matrix<double> G = online_objective_grad(o, Su, Sp, kk.a.data(), vv.a.data(), a, b);
    return std::sqrt(std::inner_product(G.a.begin(), G.a.end(), G.a.begin(), 0.0));
  };
  EXPECT_LT(gnorm(Objective::la, OnlineRule::la), 1e-12);
  EXPECT_LT(gnorm(Objective::mamba2, OnlineRule::mamba2), 1e-12);
  EXPECT_LT(gnorm(Objective::deltanet, OnlineRule::deltanet), 1e-12);
  EXPECT_LT(gnorm(Objective::gdn, OnlineRule::gdn), 1e-12);
  EXPECT_LT(gnorm(Objective::longhorn_plus, OnlineRule::longhorn), 1e-12);
  EXPECT_GT(gnorm(Objective::longhorn, OnlineRule::longhorn), 1e-3);  // printed sign: not stationary
}

TEST(OnlineRulesT2A004, GdViewsLinlossAndReconAt0AreLinearAttention) {
  std::mt19937_64 g(5);
  const Matrix<double> K = rnd(g, 5, 2), V = rnd(g, 5, 3);
  const auto a = gd_view_states(GdView::linloss, K, V, 0.5), b = gd_view_states(GdView::recon_at0, K, V, 0.5);
  Matrix<double> S(3, 2);
  for (std::size_t t = 0; t < 5; ++t) {
    add_outer(S, V.row(t), K.row(t));
    EXPECT_LT(maxdiff(a[t], S), 1e-12);
    EXPECT_LT(maxdiff(b[t], S), 1e-12);
  }
}

TEST(OnlineRulesT2A004, BadInputThrows) {
  Matrix<double> W(2, 3), PQ(1, 2), PK(1, 2), V(1, 2);
  const double phi[2] = {1, 1};
  EXPECT_THROW(delta_read(W, phi, 2), std::invalid_argument);
  EXPECT_THROW(sigmoid_stable(std::nan("")), std::invalid_argument);
  // normalised read-out with a zero denominator (phi(q) orthogonal to z) names the token
  PK(0, 0) = 1; PQ(0, 1) = 1;
  EXPECT_THROW(delta_fwp(PQ, PK, V, Vector<double>{0.5}, DeltaForm::eq24, true), std::invalid_argument);
  EXPECT_THROW(delta_fwp(PQ, PK, V, Vector<double>{0.5, 0.5}), std::invalid_argument);
  EXPECT_THROW(delta_rule_chunked_ut(PQ, PK, V, Vector<double>{0.5}, 0), std::invalid_argument);
  const double k[2] = {1, 0}, v[2] = {1, 1};
  Matrix<double> S(2, 2);
  EXPECT_THROW(online_update(OnlineRule::gdn, S, k, v, std::nan(""), 0.5), std::invalid_argument);
  EXPECT_THROW(longhorn_eps_printed(-1.0, k, 2), std::invalid_argument);
  Matrix<double> X(2, 3), tK(2, 3), tV(1, 3);
  EXPECT_THROW(online_gd_layer(X, tK, tV, static_cast<const Matrix<double>*>(nullptr), OnlineLoss::rec, 1.0), std::invalid_argument);
}

}  // namespace
}  // namespace recall::ref
