// A000-TOY-TRAIN harness (proofs_numeric/support/toy_train.hpp): forward agreement with the reference
// DeltaAttention of Listing 2, hand-written gradients vs central differences (and negative controls
// that a wrong gradient is caught), curriculum / schedule / bf16 logic, bad input, determinism, and
// that a short training run lowers the loss.
#include "../../proofs_numeric/support/toy_train.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace recall::toy {
namespace {

ModelShape shape(ToyK1 k1, ToyK2 k2, std::size_t hq = 4, std::size_t hkv = 1) {
  ModelShape m;
  m.k1 = k1, m.k2 = k2, m.hq = hq, m.hkv = hkv;
  return m;
}

// The harness forward (double and float) agrees with ref::toy_delta_attention (explicit recursion) plus the
// embedding lookup and lm_head, against the 50-digit reference, within the error budget
// 2 err(same-precision reference) + 4u + kappa u T (kappa: condition of the u-solve).
TEST(ToyTrain, ForwardAgreesWithReference) {
  struct Case {
    ToyK1 k1;
    ToyK2 k2;
    std::size_t hq, hkv, T;
  };
  const Case cases[] = {{ToyK1::linear, ToyK2::linear, 4, 1, 1},       {ToyK1::exp, ToyK2::softmax, 4, 1, 2},
                        {ToyK1::linear, ToyK2::linear, 4, 1, 16},      {ToyK1::exp, ToyK2::softmax, 4, 1, 16},
                        {ToyK1::relu, ToyK2::relu, 4, 2, 16},          {ToyK1::round, ToyK2::round, 4, 1, 16},
                        {ToyK1::softmax_code, ToyK2::softmax, 4, 1, 16}, {ToyK1::softmax_eq94, ToyK2::softmax, 4, 2, 16},
                        {ToyK1::exp, ToyK2::softmax, 3, 1, 16},        {ToyK1::exp, ToyK2::linear, 1, 1, 16}};
  std::uint64_t seed = 11;
  for (const Case& c : cases) {
    std::mt19937_64 g(seed++);
    const auto P = init_params<double>(shape(c.k1, c.k2, c.hq, c.hkv), g);
    const auto b = make_batch(ref::generate_s5_data(c.T, 2, g));
    const ForwardAgreement fa = forward_agreement(P, b);
    EXPECT_TRUE(fa.pass) << k1_name(c.k1) << "/" << k2_name(c.k2) << " hq=" << c.hq << " hkv=" << c.hkv << " T=" << c.T << ": fp64 err "
                         << fa.err64 << " (baseline " << fa.base64 << ", budget " << fa.budget64 << "), fp32 err " << fa.err32 << " (baseline "
                         << fa.base32 << ", budget " << fa.budget32 << "), cond " << fa.cond;
  }
}

// Central differences in double: relative error <= 1e3 u^(2/3) ~ 2.3e-8 of max|g| with h = u^(1/3)
// (truncation h^2/6 |L'''| and rounding eps_L/h both ~u^(2/3); measured ~2e-10..5e-10).
TEST(ToyTrain, GradientMatchesCentralDifferences) {
  struct Case {
    ToyK1 k1;
    ToyK2 k2;
    std::size_t hq, hkv;
  };
  const Case cases[] = {{ToyK1::linear, ToyK2::linear, 4, 1},       {ToyK1::exp, ToyK2::softmax, 4, 1},
                        {ToyK1::relu, ToyK2::relu, 4, 2},           {ToyK1::softmax_code, ToyK2::softmax, 4, 1},
                        {ToyK1::softmax_eq94, ToyK2::softmax, 4, 1}, {ToyK1::exp, ToyK2::linear, 4, 2}};
  std::uint64_t seed = 7;
  for (const Case& c : cases) {
    std::mt19937_64 g(seed++);
    const auto P = init_params<double>(shape(c.k1, c.k2, c.hq, c.hkv), g);
    const auto b = make_batch(ref::generate_s5_data(6, 2, g));
    const GradCheck gc = gradient_check(P, b);
    EXPECT_NEAR(gc.threshold, 1e3 * std::pow(std::ldexp(1.0, -53), 2.0 / 3.0), 1e-20);
    EXPECT_TRUE(gc.pass) << k1_name(c.k1) << "/" << k2_name(c.k2) << ": rel err " << gc.rel_err << " > " << gc.threshold << " at " << gc.worst;
    EXPECT_GT(gc.grad_scale, 1e-3) << "degenerate instance: gradient too small to test";
  }
}

// Negative controls: a sign flip in dA = -dR u^T, or (I + A)^{-1} in place of (I + A)^{-T} in the adjoint
// solve, is caught by the same gradient check (relative error orders of magnitude above the threshold).
TEST(ToyTrain, WrongGradientIsCaught) {
  for (GradFault f : {GradFault::flip_dA, GradFault::solve_not_transposed})
    for (auto [k1, k2] : {std::pair{ToyK1::linear, ToyK2::linear}, std::pair{ToyK1::exp, ToyK2::softmax}}) {
      std::mt19937_64 g(3);
      const auto P = init_params<double>(shape(k1, k2), g);
      const auto b = make_batch(ref::generate_s5_data(6, 2, g));
      const GradCheck gc = gradient_check(P, b, f);
      EXPECT_FALSE(gc.pass) << "fault " << int(f) << " not caught for " << k1_name(k1) << "/" << k2_name(k2);
      EXPECT_GT(gc.rel_err, 100 * gc.threshold);
    }
}

TEST(ToyTrain, CurriculumRules) {
  const Curriculum code = Curriculum::code(), cap = Curriculum::caption();
  EXPECT_EQ(code.start, 16u);
  EXPECT_EQ(code.next(16, 0.999), 16u);  // strictly greater than 0.999
  EXPECT_EQ(code.next(16, 2047.0 / 2048.0), 32u);
  EXPECT_EQ(code.next(1024, 1.0), 2048u);  // unbounded
  EXPECT_EQ(cap.start, 32u);
  EXPECT_EQ(cap.next(32, 0.99), 64u);  // "reaches" 0.99
  EXPECT_EQ(cap.next(32, 0.9899), 32u);
  EXPECT_EQ(cap.next(128, 1.0), 256u);
  EXPECT_EQ(cap.next(256, 1.0), 256u);  // cap
  EXPECT_EQ(Curriculum::fixed(256).next(256, 1.0), 256u);
  // wired into train(): a threshold every batch passes doubles the length after every update until the cap
  TrainConfig tc;
  tc.curriculum = Curriculum{"always", 2, 0.0, false, 16};
  tc.batch = 2;
  tc.steps = 6;
  const TrainResult r = train(tc);
  ASSERT_EQ(r.log.size(), 6u);
  const unsigned want[] = {2, 4, 8, 16, 16, 16};
  for (std::size_t s = 0; s < 6; ++s) EXPECT_EQ(r.log[s].len, want[s]) << "step " << s;
  ASSERT_EQ(r.advances.size(), 3u);
  EXPECT_EQ(r.advances[0], (std::pair<std::size_t, std::size_t>{1, 4}));
  EXPECT_EQ(r.advances[2], (std::pair<std::size_t, std::size_t>{3, 16}));
  // compute guards
  tc.max_len = 8;
  const TrainResult g = train(tc);
  EXPECT_EQ(g.stop, "max_len");
  EXPECT_EQ(g.steps_run, 3u);
  EXPECT_EQ(g.final_len, 16u);
  tc.max_len = 0;
  tc.stop_after_advances = 1;
  const TrainResult a = train(tc);
  EXPECT_EQ(a.stop, "advances");
  EXPECT_EQ(a.steps_run, 1u);
  // a threshold no batch can pass never advances
  tc.stop_after_advances = -1;
  tc.curriculum = Curriculum{"never", 4, 1.0, true, 0};
  EXPECT_TRUE(train(tc).advances.empty());
}

TEST(ToyTrain, ScheduleAndBf16Rounding) {
  EXPECT_EQ(linear_schedule(0, 128, 4000), 0.0);  // the first update has lr 0
  EXPECT_EQ(linear_schedule(64, 128, 4000), 0.5);
  EXPECT_EQ(linear_schedule(128, 128, 4000), 1.0);
  EXPECT_DOUBLE_EQ(linear_schedule(2064, 128, 4000), 0.5);
  EXPECT_EQ(linear_schedule(3999, 128, 4000), 1.0 / 3872.0);
  EXPECT_EQ(linear_schedule(4000, 128, 4000), 0.0);
  EXPECT_EQ(round_bf16(1.0f), 1.0f);
  EXPECT_EQ(round_bf16(1.0f + 0x1p-8f), 1.0f);                  // tie -> even
  EXPECT_EQ(round_bf16(1.0f + 3 * 0x1p-8f), 1.0f + 0x1p-6f);    // tie -> even (up)
  EXPECT_EQ(round_bf16(1.0f + 0x1p-8f + 0x1p-20f), 1.0f + 0x1p-7f);
  EXPECT_EQ(round_bf16(-3.0f), -3.0f);
  EXPECT_TRUE(std::isnan(round_bf16(std::nanf(""))));
  // bf16 training keeps every parameter on the bf16 grid
  TrainConfig tc;
  tc.precision = Precision::bf16;
  tc.batch = 4;
  tc.steps = 20;
  const TrainResult r = train(tc);
  for (float x : r.final_params.p) ASSERT_EQ(round_bf16(x), x);
}

TEST(ToyTrain, BadInputThrowsNamingTheInput) {
  std::mt19937_64 g(1);
  const auto P = init_params<double>(ModelShape{}, g);
  const auto good = make_batch(ref::generate_s5_data(4, 2, g));
  std::vector<double> grad;
  auto expect_msg = [&](auto&& f, const std::string& word) {
    try {
      f();
      ADD_FAILURE() << "no exception, expected one naming '" << word << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
    }
  };
  Batch b = good;
  b.labels[3] = 10;  // 10 logits: labels 0..9
  expect_msg([&] { loss_and_grad(P, b, grad); }, "label");
  b = good;
  b.labels[0] = -1;
  expect_msg([&] { forward_batch(P, b); }, "label");
  b = good;
  b.ids[5] = 10;
  expect_msg([&] { forward_batch(P, b); }, "input id");
  b = good;
  b.ids.pop_back();
  expect_msg([&] { forward_batch(P, b); }, "ids");
  b = good;
  b.T = 0;
  expect_msg([&] { forward_batch(P, b); }, "T");
  Params<double> Q = P;
  Q.p.pop_back();
  expect_msg([&] { forward_batch(Q, good); }, "params");
  Q = P;
  Q.p[Layout(P.shape).beta] = NAN;
  expect_msg([&] { forward_batch(Q, good); }, "beta");
  ModelShape bad;
  bad.hq = 5;  // 12 not divisible by 5
  expect_msg([&] { Layout{bad}; }, "dim");
  bad = ModelShape{};
  bad.hkv = 3;  // 4 q-heads not divisible by 3 kv-heads
  expect_msg([&] {
    TrainConfig tc;
    tc.shape = bad;
    train(tc);
  }, "hkv");
  std::vector<ref::S5Sample> ragged = ref::generate_s5_data(4, 2, g);
  ragged[1].labels.pop_back();
  expect_msg([&] { make_batch(ragged); }, "length");
}

// Same seed: bit-identical runs; the thread count does not change the result (per-sequence gradients are
// summed in sequence order).
TEST(ToyTrain, DeterministicFromTheSeedAndThreadCount) {
  TrainConfig tc;
  tc.batch = 16;
  tc.steps = 30;
  tc.seed = 5;
  const TrainResult a = train(tc);
  tc.threads = 3;
  const TrainResult b = train(tc);
  ASSERT_EQ(a.log.size(), b.log.size());
  for (std::size_t i = 0; i < a.log.size(); ++i) {
    EXPECT_EQ(a.log[i].loss, b.log[i].loss) << i;
    EXPECT_EQ(a.log[i].acc, b.log[i].acc) << i;
  }
  EXPECT_EQ(a.final_params.p, b.final_params.p);
  tc.seed = 6;
  EXPECT_NE(train(tc).final_params.p, a.final_params.p);
}

// A short run (the first 250 of Listing 2's 4000 steps, exp/softmax, length 16, batch 128) lowers the loss on
// a held-out batch: per-sequence paired differences initial - trained have a mean at least 10 standard
// errors above 0 (a decrease far outside the sampling noise of the held-out batch, measured from the run).
TEST(ToyTrain, ShortTrainingRunLowersTheLoss) {
  TrainConfig tc;
  tc.seed = 20261122;
  tc.max_steps = 250;
  const TrainResult r = train(tc);
  ASSERT_EQ(r.steps_run, 250u);
  std::mt19937_64 ig(r.init_seed);
  const Params<float> P0 = init_params<float>(tc.shape, ig);
  std::mt19937_64 hg(99);
  const auto held = ref::generate_s5_data(16, 64, hg);
  std::vector<double> diff;
  for (const auto& s : held) {
    const Batch b = make_batch({s});
    diff.push_back(forward_batch(P0, b).loss - forward_batch(r.final_params, b).loss);
  }
  const double n = double(diff.size()), mean = std::accumulate(diff.begin(), diff.end(), 0.0) / n;
  double var = 0;
  for (double d : diff) var += (d - mean) * (d - mean);
  const double se = std::sqrt(var / (n - 1) / n);
  EXPECT_GT(mean, 10 * se) << "held-out loss decrease " << mean << " (standard error " << se << ")";
  // and the logged training loss of the last 20 steps lies below that of the first 20
  double first = 0, last = 0;
  for (std::size_t i = 0; i < 20; ++i) first += r.log[i].loss, last += r.log[r.log.size() - 1 - i].loss;
  EXPECT_LT(last, first);
}

}  // namespace
}  // namespace recall::toy
