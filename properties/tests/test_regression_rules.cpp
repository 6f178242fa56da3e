// References of regression_rules.hpp (seed 001, tier t2): bad input raises std::invalid_argument
// naming the input, and a few exact small cases of the RLS / ridge / map / multi-step forms.
#include "recall/reference/regression_rules.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace recall {
namespace {

using ref::Matrix;

template <class F> std::string error_of(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(T2A001Reference, BadInputIsAnErrorNamingIt) {
  Matrix<double> A(2, 2), B(2, 1);  // singular (zero) matrix
  EXPECT_NE(error_of([&] { ref::solve(A, B); }).find("singular"), std::string::npos);
  EXPECT_NE(error_of([] { ref::gdn_forward_map(1.0, 1.0); }).find("alpha = 0"), std::string::npos);
  EXPECT_NE(error_of([] { ref::gdn_inverse_map(0.5, 0.0); }).find("alpha * eta = 0"), std::string::npos);
  Matrix<double> Q(1, 2), K(1, 2), V(1, 1), P0 = ref::eye<double>(2), M0(1, 2);
  K(0, 0) = 1;
  std::vector<double> gamma = {0.0};
  EXPECT_NE(error_of([&] { ref::rls(Q, K, V, P0, M0, &gamma); }).find("gamma[1]"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::sgd_multistep_closed(M0, Q.row(0), V.row(0), 0.5, 3); }).find("zero key"), std::string::npos);
  EXPECT_NE(error_of([&] { ref::deltaproduct(Q, K, V, std::vector<double>{0.5}, 2); }).find("n_h"), std::string::npos);
}

TEST(T2A001Reference, SmallExactCases) {
  // one key e1, value 3: RLS from P0 = I/mu gives M = 3/(1 + mu) e1^T = ridge solution
  Matrix<double> K(1, 2), V(1, 1), M0(1, 2);
  K(0, 0) = 1;
  V(0, 0) = 3;
  Matrix<double> P0 = ref::eye<double>(2);
  for (double& x : P0.a) x /= 0.5;  // mu = 0.5
  const auto r = ref::rls(K, K, V, P0, M0);
  EXPECT_DOUBLE_EQ(r.M(0, 0), 2.0);
  EXPECT_DOUBLE_EQ(ref::ridge_state(K, V, 1, 0.5)(0, 0), 2.0);
  // GDN map round trip and multi-step closed form with beta|k|^2 = 1/2, I = 2: beta_eff = 3/4
  const auto f = ref::gdn_forward_map(0.5, 0.5);
  EXPECT_DOUBLE_EQ(f.alpha, 0.75);
  const auto i = ref::gdn_inverse_map(f.alpha, f.eta);
  EXPECT_DOUBLE_EQ(i.beta, 0.5);
  EXPECT_DOUBLE_EQ(i.lambda, 0.5);
  const auto M = ref::sgd_multistep_closed(M0, K.row(0), V.row(0), 0.5, 2);
  EXPECT_DOUBLE_EQ(M(0, 0), 2.25);
  EXPECT_DOUBLE_EQ(ref::sgd_multistep(M0, K.row(0), V.row(0), 0.5, 2)(0, 0), 2.25);
}

}  // namespace
}  // namespace recall
