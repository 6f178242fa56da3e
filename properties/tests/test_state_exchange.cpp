// Unit tests of the state-exchange reference (reference/state_exchange.hpp, spec A000 group 7):
// round variants at ties, coherence / Welch bound, key constructions, the swap-tracking harness
// and its bad-input errors.
#include "recall/reference/state_exchange.hpp"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

namespace {

using namespace recall;
using ref::ReadFn;

TEST(T3Theory, RoundHalfEvenAtTies) {
  EXPECT_EQ(ref::round_half_even(0.5), 0.0);
  EXPECT_EQ(ref::round_half_even(1.5), 2.0);
  EXPECT_EQ(ref::round_half_even(2.5), 2.0);
  EXPECT_EQ(ref::round_half_even(-0.5), 0.0);
  EXPECT_EQ(ref::round_half_even(-1.5), -2.0);
  EXPECT_EQ(ref::round_half_even(0.4999999), 0.0);
  EXPECT_EQ(ref::round_half_even_ratio(1, 2), 0);
  EXPECT_EQ(ref::round_half_even_ratio(-3, 2), -2);
  EXPECT_EQ(ref::round_half_even_ratio(7, 4), 2);
  EXPECT_EQ(ref::floor_fn(-0.25), -1.0);
  MpDigitsScope s(50);
  EXPECT_EQ(ref::round_2dec(mp_t(1236) / mp_t(1000)), ref::round_half_even(mp_t(124)) / mp_t(100));
  EXPECT_THROW(ref::round_half_even(std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
  EXPECT_THROW(ref::round_half_even_ratio(1, 0), std::invalid_argument);
}

TEST(T3Theory, CoherenceWelchAndConstructions) {
  EXPECT_DOUBLE_EQ(ref::welch_bound(8, 8), 0.0);
  EXPECT_NEAR(ref::welch_bound(256, 128), std::sqrt(128.0 / (128.0 * 255.0)), 1e-15);
  EXPECT_EQ(ref::welch_max_n(8, 0.125), 8u);  // Welch: no n > d at coherence < 1/8 for d = 8
  const auto H = ref::hadamard_code_keys<double>(256, 128);
  EXPECT_NEAR(ref::coherence(H), 1.0 / std::sqrt(128.0), 1e-15);
  EXPECT_LT(ref::unit_norm_gap(H), 1e-14);
  MpDigitsScope s(50);
  const auto E = ref::equiangular_keys<mp_t>(6, mp_t(1) / mp_t(8));
  EXPECT_LT(static_cast<double>(abs(mp_t(ref::coherence(E) - mp_t(0.125)))), 1e-45);
  ref::Matrix<mp_t> G(2, 2);
  G(0, 0) = G(1, 1) = G(0, 1) = G(1, 0) = mp_t(1);  // singular
  EXPECT_THROW(ref::gram_keys(G), std::invalid_argument);
  EXPECT_THROW(ref::hadamard_code_keys<double>(4, 3), std::invalid_argument);
  ref::Matrix<double> Z(2, 3);
  EXPECT_THROW(ref::normalize_rows(Z), std::invalid_argument);
}

TEST(T3Theory, SwapTrackingExactOnOrthonormalKeysAndFailsForLinearFAboveD) {
  MpDigitsScope s(50);
  std::mt19937_64 g(7);
  const auto K = ref::orthonormal_keys<mp_t>(5, 5);
  ref::Matrix<mp_t> V(5, 5);
  for (int i = 0; i < 5; ++i) V(i, i) = mp_t(1);
  const auto sw = ref::random_swaps(g, 5, 40);
  ref::SwapOptions opt;
  opt.instrument = true;
  opt.exact_tol = 1e-40;
  const auto st = ref::run_swaps(K, V, sw, ref::make_fn<mp_t>(ReadFn::round_int), ref::make_fn<mp_t>(ReadFn::round_int), opt);
  EXPECT_EQ(st.wrong_exact, 0u);
  EXPECT_EQ(st.first_bad_eq_swap, -1);
  EXPECT_EQ(st.readouts, 200u);
  // linear f with n = 12 > d = 8: tracking breaks
  const auto K2 = ref::sphere_keys<double>(g, 12, 8);
  ref::Matrix<double> V2(12, 12);
  for (int i = 0; i < 12; ++i) V2(i, i) = 1;
  ref::SwapOptions o2;
  o2.exact_tol = 1e-9;
  const auto st2 = ref::run_swaps(K2, V2, ref::random_swaps(g, 12, 30), ref::make_fn<double>(ReadFn::identity),
                                  ref::make_fn<double>(ReadFn::identity), o2);
  EXPECT_GT(st2.wrong_exact, 0u);
  // bad input: swap with t2 >= t1
  EXPECT_THROW(ref::run_swaps(K, V, {ref::Swap{1, 3}}, ref::make_fn<mp_t>(ReadFn::round_int),
                              ref::make_fn<mp_t>(ReadFn::round_int), opt),
               std::invalid_argument);
}

TEST(T3Theory, GqaFitInterpolatesTheFourNodes) {
  MpDigitsScope s(50);
  double cond = 0;
  const auto a = ref::gqa_exp_fit<mp_t>(&cond);
  for (int x : {-1, 0, 1, 2})
    EXPECT_LT(static_cast<double>(abs(mp_t(ref::gqa_exp_eval(a, mp_t(x)) - mp_t(x)))), 1e-40);
  EXPECT_GT(cond, 1.0);
}

}  // namespace
