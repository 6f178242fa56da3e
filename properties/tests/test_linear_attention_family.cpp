// Identities between the reference forms at high precision (recurrent = closed sum = parallel =
// chunked; gate = 1 reduces to ungated; zero gate resets), exactness on integer inputs, and the
// references' errors on bad input.
#include "rc_knobs.hpp"

#include "recall/reference/feature_maps.hpp"
#include "recall/reference/forms.hpp"
#include "recall/reference/ttt.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace recall {
namespace {

using ref::Matrix;
using ref::Vector;

Matrix<mp_t> mp_rows(CaseRng& rng, KeyKind kind, int T, int d, int sc) {
  auto x = rng.rows(kind, T, d, sc);
  Matrix<mp_t> m(T, d);
  for (std::size_t i = 0; i < x.size(); ++i) m.a[i] = mp_t(x[i]);
  return m;
}
double rel(const Matrix<mp_t>& a, const Matrix<mp_t>& b) {
  mp_t na = ref::frob(a), nb = ref::frob(b);
  mp_t den = std::max(mp_t(1), std::max(na, nb));
  return static_cast<double>(ref::frob_diff(a, b) / den);
}
constexpr double kTol = 1e-40;  // 50 digits, R-ID threshold 10^-(50-10)

RC_GTEST_PROP(ReferenceForms, LinearAttentionRecurrentSumParallelChunkedAgree, (const CaseKnobs& k)) {
  MpDigitsScope s(50);
  CaseRng rng(k.seed);
  auto Q = mp_rows(rng, k.keys, k.T, k.dk, k.scale_exp), K = mp_rows(rng, k.keys, k.T, k.dk, k.scale_exp);
  auto V = mp_rows(rng, KeyKind::gaussian, k.T, k.dv, 0);
  auto r = ref::linear_attention(Q, K, V);
  RC_ASSERT(rel(r.O, ref::linear_attention_sum(Q, K, V)) <= kTol);
  RC_ASSERT(rel(r.O, ref::linear_attention_parallel(Q, K, V)) <= kTol);
  const std::size_t C = *rc::gen::element<std::size_t>(1, 4, 16, 64);
  auto c = ref::linear_attention_chunked(Q, K, V, C);
  RC_ASSERT(rel(r.O, c.O) <= kTol);
  RC_ASSERT(rel(r.state, c.state) <= kTol);
  RC_ASSERT(rel(r.state, ref::linear_attention_state_closed(K, V, k.T)) <= kTol);
}

RC_GTEST_PROP(ReferenceForms, GatedRecurrentSumParallelChunkedAgree, (const CaseKnobs& k)) {
  MpDigitsScope s(50);
  CaseRng rng(k.seed);
  auto Q = mp_rows(rng, k.keys, k.T, k.dk, k.scale_exp), K = mp_rows(rng, k.keys, k.T, k.dk, k.scale_exp);
  auto V = mp_rows(rng, KeyKind::gaussian, k.T, k.dv, 0);
  auto g = ref::cast<mp_t>(rng.log_gates(k.gates, k.T));
  Matrix<mp_t> S0 = mp_rows(rng, KeyKind::gaussian, k.dv, k.dk, 0);
  const Matrix<mp_t>* s0 = k.initial_state ? &S0 : nullptr;
  auto r = ref::gated_linear_attention(Q, K, V, g, s0);
  RC_ASSERT(rel(r.O, ref::gated_linear_attention_sum(Q, K, V, g, s0)) <= kTol);
  if (!s0) RC_ASSERT(rel(r.O, ref::linear_attention_parallel(Q, K, V, &g)) <= kTol);
  const std::size_t C = *rc::gen::element<std::size_t>(1, 4, 16, 64);
  auto c = ref::linear_attention_chunked(Q, K, V, C, &g, s0);
  RC_ASSERT(rel(r.O, c.O) <= kTol);
  RC_ASSERT(rel(r.state, c.state) <= kTol);
}

TEST(ReferenceForms, GateOneReducesToUngatedAndZeroGateResets) {
  MpDigitsScope s(50);
  CaseRng rng(7);
  auto Q = mp_rows(rng, KeyKind::gaussian, 9, 3, 0), K = mp_rows(rng, KeyKind::gaussian, 9, 3, 0);
  auto V = mp_rows(rng, KeyKind::gaussian, 9, 2, 0);
  Vector<mp_t> ones(9, mp_t(0));
  auto g = ref::gated_linear_attention(Q, K, V, ones), u = ref::linear_attention(Q, K, V);
  EXPECT_EQ(ref::frob_diff(g.O, u.O), 0);
  // a zero gate at token 5 (1-based): outputs from 5 on equal ungated attention over tokens 5..9
  Vector<mp_t> lg(9, mp_t(0));
  lg[4] = ref::neg_inf<mp_t>();
  auto r = ref::gated_linear_attention(Q, K, V, lg);
  Matrix<mp_t> Q2(5, 3), K2(5, 3), V2(5, 2);
  for (int t = 0; t < 5; ++t) {
    for (int j = 0; j < 3; ++j) { Q2(t, j) = Q(t + 4, j); K2(t, j) = K(t + 4, j); }
    for (int j = 0; j < 2; ++j) V2(t, j) = V(t + 4, j);
  }
  auto tail = ref::linear_attention(Q2, K2, V2);
  for (int t = 0; t < 5; ++t)
    for (int j = 0; j < 2; ++j) EXPECT_EQ(r.O(t + 4, j), tail.O(t, j));
  for (const auto& x : r.O.a) EXPECT_TRUE(ref::is_finite(x));
}

TEST(ReferenceForms, IntegerInputsAgreeExactly) {
  MpDigitsScope s(60);
  CaseRng rng(11);
  auto Q = mp_rows(rng, KeyKind::integer, 40, 4, 0), K = mp_rows(rng, KeyKind::integer, 40, 4, 0);
  auto V = mp_rows(rng, KeyKind::integer, 40, 3, 0);
  auto r = ref::linear_attention(Q, K, V);
  EXPECT_EQ(ref::frob_diff(r.O, ref::linear_attention_sum(Q, K, V)), 0);
  EXPECT_EQ(ref::frob_diff(r.O, ref::linear_attention_parallel(Q, K, V)), 0);
  EXPECT_EQ(ref::frob_diff(r.O, ref::linear_attention_chunked(Q, K, V, 16).O), 0);
}

TEST(ReferenceForms, NormalizedAugmentedFormsAgree) {
  MpDigitsScope s(50);
  CaseRng rng(5);
  ref::FeatureMap f;
  f.kind = ref::FeatureMapKind::elu1;
  auto Q = ref::apply_feature_map(f, mp_rows(rng, KeyKind::gaussian, 37, 4, 0));
  auto K = ref::apply_feature_map(f, mp_rows(rng, KeyKind::gaussian, 37, 4, 0));
  auto V = mp_rows(rng, KeyKind::gaussian, 37, 3, 0);
  auto r = ref::normalized_linear_attention(Q, K, V);
  EXPECT_LE(rel(r.O, ref::normalized_linear_attention_augmented(Q, K, V, 0).O), kTol);
  auto c = ref::normalized_linear_attention_augmented(Q, K, V, 16);
  EXPECT_LE(rel(r.O, c.O), kTol);
  EXPECT_LE(rel(r.state, c.state), kTol);
}

TEST(ReferenceErrors, BadInputsNameTheirArgument) {
  Matrix<double> Q(3, 2), K(3, 2), V(4, 2), Kw(3, 3);
  EXPECT_THROW(ref::linear_attention(Q, K, V), std::invalid_argument);
  EXPECT_THROW(ref::linear_attention(Q, Kw, Matrix<double>(3, 2)), std::invalid_argument);
  Matrix<double> V3(3, 2);
  std::vector<double> g = {0.0, std::nan(""), 0.0};
  try {
    ref::gated_linear_attention(Q, K, V3, g);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("log_gates[2]"), std::string::npos) << e.what();
  }
  // zero denominator of the normalised form: an error naming the token, never a NaN
  try {
    ref::normalized_linear_attention(Q, K, V3);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("token 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ref::linear_attention_chunked(Q, K, V3, 0), std::invalid_argument);
}

TEST(ReferenceOracle, MpReferenceIsAccurateBeyondDouble) {
  // The same template at double and at 50 digits: double's error is O(u), the 50- and
  // 100-digit evaluations agree to ~50 digits.
  CaseRng rng(3);
  Matrix<mp_t> Q50, K50, V50;
  auto Qd = rng.rows(KeyKind::gaussian, 64, 8, 0), Kd = rng.rows(KeyKind::gaussian, 64, 8, 0), Vd = rng.rows(KeyKind::gaussian, 64, 8, 0);
  auto build = [&](const std::vector<double>& x) { Matrix<mp_t> m(64, 8); for (std::size_t i = 0; i < x.size(); ++i) m.a[i] = mp_t(x[i]); return m; };
  Matrix<mp_t> o50, o100;
  { MpDigitsScope s(50); o50 = ref::linear_attention(build(Qd), build(Kd), build(Vd)).O; }
  { MpDigitsScope s(100); o100 = ref::linear_attention(build(Qd), build(Kd), build(Vd)).O; }
  MpDigitsScope s(100);
  EXPECT_LT(rel(o50, o100), 1e-45);
}

}  // namespace
}  // namespace recall
