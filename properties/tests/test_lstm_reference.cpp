// reference/lstm.hpp (A004-LSTM-CELL, A004-LSTM-FSA): the cell against the definition evaluated by hand
// for one unit, the 1997 variant as the forget-gate cell with f = 1, and the continual embedded Reber
// stream against its grammar (every symbol is legal after its predecessor; the symbol after the inner E
// is the remembered one).
#include "recall/reference/lstm.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace recall {
namespace {

ref::LstmParams<double> one_unit(double w, double u, double b, double bf) {
  ref::LstmParams<double> p;
  for (int q = 0; q < 4; ++q) {
    p.W[q] = ref::Matrix<double>(1, 1);
    p.U[q] = ref::Matrix<double>(1, 1);
    p.W[q](0, 0) = w * (q + 1);
    p.U[q](0, 0) = u / (q + 1);
    p.b[q] = {q == 1 ? bf : b};
  }
  return p;
}

TEST(LstmReference, OneUnitMatchesTheDefinition) {
  const auto p = one_unit(0.7, -0.4, 0.1, 0.3);
  auto sg = [](double x) { return 1 / (1 + std::exp(-x)); };
  double h = 0, c = 0;
  ref::LstmState<double> s{{0.0}, {0.0}};
  for (double x : {1.0, -0.5, 2.0, 0.0}) {
    const double i = sg(0.7 * x - 0.4 * h + 0.1), f = sg(1.4 * x - 0.2 * h + 0.3), o = sg(2.1 * x - 0.4 / 3 * h + 0.1),
                 g = std::tanh(2.8 * x - 0.1 * h + 0.1);
    c = f * c + i * g;
    h = o * std::tanh(c);
    s = ref::lstm_step(p, s, &x, true);
    EXPECT_NEAR(s.c[0], c, 1e-15);
    EXPECT_NEAR(s.h[0], h, 1e-15);
  }
}

TEST(LstmReference, NoForgetGateIsTheCellWithFEqualOne) {
  const auto p = one_unit(0.7, -0.4, 0.1, 800.0);  // sigm(800 + ...) = 1 in double
  ref::LstmState<double> a{{0.0}, {0.0}}, b{{0.0}, {0.0}};
  for (double x : {1.0, -0.5, 2.0, 0.3, -1.2}) {
    a = ref::lstm_step(p, a, &x, true);
    b = ref::lstm_step(p, b, &x, false);
    EXPECT_EQ(a.c[0], b.c[0]);
    EXPECT_EQ(a.h[0], b.h[0]);
  }
}

TEST(LstmReference, ContinualEmbeddedReberFollowsItsGrammar) {
  std::mt19937_64 g(5);
  std::bernoulli_distribution coin(0.5);
  const auto s = ref::continual_embedded_reber(20000, [&] { return coin(g) ? 1 : 0; });
  ASSERT_EQ(s.symbols.size(), 20000u);
  EXPECT_EQ(s.symbols[0], ref::kB);
  int remembered = -1, embedded = 0;
  for (std::size_t t = 1; t < s.symbols.size(); ++t) {
    EXPECT_TRUE((s.legal_next[t - 1] >> s.symbols[t]) & 1u) << "symbol " << s.symbols[t] << " at " << t << " is not legal";
    if (t >= 2 && s.symbols[t - 2] == ref::kE && s.symbols[t - 1] != ref::kB) {
      // s[t-1] is the second c of an embedded string: the set after the inner E held exactly it
      EXPECT_EQ(s.legal_next[t - 2], 1u << s.symbols[t - 1]);
      ++embedded;
    }
    if (t >= 1 && s.symbols[t - 1] == ref::kB && (t < 2 || s.symbols[t - 2] == ref::kE)) remembered = s.symbols[t];
    if (s.legal_next[t - 1] == (1u << ref::kT) || s.legal_next[t - 1] == (1u << ref::kP)) {
      EXPECT_EQ(s.symbols[t], remembered);
    }
  }
  EXPECT_GT(embedded, 500);
}

}  // namespace
}  // namespace recall
