// A000-EXP-ROPE: the RoPE option of the Listing 2 harness (toy_train.hpp, ModelShape::rope) and its
// reference rotation (reference/include/recall/reference/rope.hpp). Checked: the rotation against its
// definition (pairing, frequencies, the odd dim, norms, the relative-position property) at 50 digits; the
// harness forward with RoPE against ref::toy_delta_attention with rope_base set (forward_agreement, 50-digit
// oracle) and that RoPE changes the output (non-vacuous); the hand-written backward against central
// differences, with a negative control (the backward rotating by R instead of R^T is caught); position 0
// is unrotated (its outputs equal NoPE's bit for bit); the NoPE path is unchanged (losses and gradients
// recorded from the harness before the option was added); bad options throw naming rope_base.
#include "../../proofs_numeric/support/toy_train.hpp"
#include "recall/reference/rope.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace recall::toy {
namespace {

ModelShape rope_shape(ToyK1 k1, ToyK2 k2, std::size_t dim = 12, std::size_t hq = 4, std::size_t hkv = 1, double base = 10000) {
  ModelShape m;
  m.k1 = k1, m.k2 = k2, m.dim = dim, m.hq = hq, m.hkv = hkv;
  m.rope = true, m.rope_base = base;
  return m;
}

// The rotation from its definition: hd = 5 (r = 4, pairs (0, 2), (1, 3), dim 4 unrotated), pos 3, base 100:
// theta_0 = 1, theta_1 = 100^(-1/2) = 0.1; norms preserved, R^T R = I, and
// <R(s) q, R(t) k> depends on s - t only (checked at 50 digits).
TEST(ToyRope, RotationMatchesTheDefinition) {
  MpDigitsScope sc(50);
  const mp_t base = 100;
  std::vector<mp_t> x = {mp_t(1), mp_t(2), mp_t(-3), mp_t("0.5"), mp_t(7)};
  const std::vector<mp_t> x0 = x;
  ref::rope_rotate(x.data(), 5, 3, base);
  using boost::multiprecision::cos;
  using boost::multiprecision::sin;
  const mp_t a0 = mp_t(3), a1 = mp_t(3) * mp_t("0.1");
  const mp_t want[5] = {x0[0] * cos(a0) - x0[2] * sin(a0), x0[1] * cos(a1) - x0[3] * sin(a1), x0[0] * sin(a0) + x0[2] * cos(a0),
                        x0[1] * sin(a1) + x0[3] * cos(a1), x0[4]};
  for (int i = 0; i < 5; ++i) EXPECT_LT(static_cast<double>(abs(x[i] - want[i])), 1e-45) << "component " << i;
  EXPECT_EQ(x[4], x0[4]);  // the odd dim is not rotated
  mp_t n0 = 0, n1 = 0;
  for (int i = 0; i < 5; ++i) n0 += x0[i] * x0[i], n1 += x[i] * x[i];
  EXPECT_LT(static_cast<double>(abs(n1 - n0)), 1e-45);
  ref::rope_rotate(x.data(), 5, 3, base, true);  // transpose undoes it
  for (int i = 0; i < 5; ++i) EXPECT_LT(static_cast<double>(abs(x[i] - x0[i])), 1e-45);
  // relative position: <R(s) q, R(t) k> = <R(s + 5) q, R(t + 5) k>, and differs for another offset
  const std::vector<mp_t> q = {mp_t("0.3"), mp_t(-1), mp_t(2), mp_t("1.5")}, k = {mp_t(1), mp_t("0.25"), mp_t(-2), mp_t(3)};
  auto score = [&](std::size_t s, std::size_t t) {
    std::vector<mp_t> a = q, b = k;
    ref::rope_rotate(a.data(), 4, s, mp_t(10000)), ref::rope_rotate(b.data(), 4, t, mp_t(10000));
    mp_t d = 0;
    for (int i = 0; i < 4; ++i) d += a[i] * b[i];
    return d;
  };
  EXPECT_LT(static_cast<double>(abs(score(7, 2) - score(12, 7))), 1e-45);
  EXPECT_GT(static_cast<double>(abs(score(7, 2) - score(7, 3))), 1e-3);
  // position 0 is the identity, bit for bit (cos 0 = 1, sin 0 = 0)
  std::vector<double> y = {0.1, -2.5, 3.25}, y0 = y;
  ref::rope_rotate(y.data(), 3, 0, 10000.0);
  EXPECT_EQ(y, y0);
  // float and double against the 50-digit rotation at a long position (T = 64): a few ulps of |x|
  std::vector<double> d = {1.0, -0.75, 0.5, 2.0};
  std::vector<mp_t> m = {mp_t(1.0), mp_t(-0.75), mp_t(0.5), mp_t(2.0)};
  ref::rope_rotate(d.data(), 4, 63, 10000.0), ref::rope_rotate(m.data(), 4, 63, mp_t(10000));
  for (int i = 0; i < 4; ++i) EXPECT_LT(std::fabs(d[i] - static_cast<double>(m[i])), 64 * 4 * std::numeric_limits<double>::epsilon());
}

// Harness forward with RoPE (double and float) against ref::toy_delta_attention with rope_base set, 50-digit
// oracle, the budget of forward_agreement (2 err(baseline) + 4u + kappa u T). Head dims 3 (the listing's:
// one rotated pair + one unrotated dim), 4 (two pairs: the base matters) and 5 (two pairs + one).
TEST(ToyRope, ForwardAgreesWithReference) {
  struct Case {
    ToyK1 k1;
    ToyK2 k2;
    std::size_t dim, hq, hkv, T;
    double base;
  };
  const Case cases[] = {{ToyK1::exp, ToyK2::softmax, 12, 4, 1, 16, 10000}, {ToyK1::round, ToyK2::softmax, 12, 4, 1, 16, 10000},
                        {ToyK1::linear, ToyK2::linear, 12, 4, 2, 16, 10000}, {ToyK1::softmax_code, ToyK2::softmax, 8, 2, 1, 16, 10},
                        {ToyK1::softmax_eq94, ToyK2::softmax, 8, 2, 2, 33, 10000}, {ToyK1::relu, ToyK2::relu, 10, 2, 1, 16, 500}};
  std::uint64_t seed = 21;
  for (const Case& c : cases) {
    std::mt19937_64 g(seed++);
    const auto P = init_params<double>(rope_shape(c.k1, c.k2, c.dim, c.hq, c.hkv, c.base), g);
    const auto b = make_batch(ref::generate_s5_data(c.T, 2, g));
    const ForwardAgreement fa = forward_agreement(P, b);
    EXPECT_TRUE(fa.pass) << k1_name(c.k1) << " dim " << c.dim << " hq " << c.hq << " T " << c.T << ": fp64 err " << fa.err64 << " (baseline "
                         << fa.base64 << ", budget " << fa.budget64 << "), fp32 err " << fa.err32 << " (budget " << fa.budget32 << ")";
  }
}

// Non-vacuous: with RoPE the logits differ from NoPE's (relative 1e-3 or more) after position 0, the
// reference with rope_base = 0 disagrees with the RoPE harness, and position 0 (angle 0) agrees bit for bit.
TEST(ToyRope, RopeChangesTheOutputExceptAtPositionZero) {
  for (std::size_t dim : {12u, 8u}) {
    std::mt19937_64 g(5);
    ModelShape m = rope_shape(ToyK1::exp, ToyK2::softmax, dim, dim == 12 ? 4 : 2);
    const auto Pr = init_params<double>(m, g);
    Params<double> Pn = Pr;
    Pn.shape.rope = false;
    const auto b = make_batch(ref::generate_s5_data(16, 3, g));
    std::vector<double> lr, ln;
    forward_batch(Pr, b, &lr);
    forward_batch(Pn, b, &ln);
    const std::size_t V = m.vocab;
    double later = 0, scale = 0;
    for (std::size_t s = 0; s < b.B; ++s)
      for (std::size_t t = 0; t < b.T; ++t)
        for (std::size_t j = 0; j < V; ++j) {
          const std::size_t i = (s * b.T + t) * V + j;
          scale = std::max(scale, std::fabs(ln[i]));
          if (t == 0) EXPECT_EQ(lr[i], ln[i]) << "position 0 must be unrotated (seq " << s << ")";
          else later = std::max(later, std::fabs(lr[i] - ln[i]));
        }
    EXPECT_GT(later / scale, 1e-3) << "RoPE did not change the logits (dim " << dim << ")";
    // a one-token batch: RoPE and NoPE equal bit for bit (loss and gradient)
    const auto b1 = make_batch(ref::generate_s5_data(1, 4, g));
    std::vector<double> gr, gn;
    EXPECT_EQ(loss_and_grad(Pr, b1, gr).loss, loss_and_grad(Pn, b1, gn).loss);
    EXPECT_EQ(gr, gn);
  }
}

// Central differences (the harness's gradient_check: relative error <= 1e3 u^(2/3) of max|g|) with RoPE.
TEST(ToyRope, GradientMatchesCentralDifferences) {
  struct Case {
    ToyK1 k1;
    ToyK2 k2;
    std::size_t dim, hq, hkv;
    double base;
  };
  const Case cases[] = {{ToyK1::exp, ToyK2::softmax, 12, 4, 1, 10000},    {ToyK1::linear, ToyK2::linear, 12, 4, 2, 10000},
                        {ToyK1::softmax_code, ToyK2::softmax, 8, 2, 1, 10}, {ToyK1::relu, ToyK2::softmax, 10, 2, 1, 10000}};
  std::uint64_t seed = 31;
  for (const Case& c : cases) {
    std::mt19937_64 g(seed++);
    const auto P = init_params<double>(rope_shape(c.k1, c.k2, c.dim, c.hq, c.hkv, c.base), g);
    const auto b = make_batch(ref::generate_s5_data(6, 2, g));
    const GradCheck gc = gradient_check(P, b);
    EXPECT_TRUE(gc.pass) << k1_name(c.k1) << " dim " << c.dim << ": rel err " << gc.rel_err << " > " << gc.threshold << " at " << gc.worst;
    EXPECT_GT(gc.grad_scale, 1e-3) << "degenerate instance";
  }
}

// Negative control: the backward rotating dq, dw, dk by R(pos) instead of R(pos)^T is caught by the same
// check; without RoPE the fault does nothing (the gradient is the correct one, bit for bit).
TEST(ToyRope, WrongRotationInTheBackwardIsCaught) {
  for (std::size_t dim : {12u, 8u}) {
    std::mt19937_64 g(3);
    const auto P = init_params<double>(rope_shape(ToyK1::exp, ToyK2::softmax, dim, dim == 12 ? 4 : 2), g);
    const auto b = make_batch(ref::generate_s5_data(6, 2, g));
    const GradCheck gc = gradient_check(P, b, GradFault::rope_not_transposed);
    EXPECT_FALSE(gc.pass) << "wrong-sign RoPE backward not caught (dim " << dim << ")";
    EXPECT_GT(gc.rel_err, 100 * gc.threshold);
    Params<double> Pn = P;
    Pn.shape.rope = false;
    std::vector<double> g0, g1;
    loss_and_grad(Pn, b, g0);
    loss_and_grad(Pn, b, g1, 1, GradFault::rope_not_transposed);
    EXPECT_EQ(g0, g1);
  }
}

// The NoPE path is unchanged: losses and gradient 1-norms on fixed instances recorded from the harness before
// the RoPE option existed (commit 478295b; this machine's build reproduced them bit for bit). Relative
// tolerance 1e-13: builds for another CPU (-march) may round Eigen's products differently (~1e-16), while
// any change of the model moves them by far more.
TEST(ToyRope, NoPEPathUnchanged) {
  const double want_loss[3] = {2.4971696493131272, 2.4334119885561751, 2.6200878383626902};
  const double want_gsum[3] = {10.422584053510811, 10.207306687581958, 12.204102812576267};
  for (int k = 0; k < 3; ++k) {
    ModelShape m;
    m.k1 = k == 0 ? ToyK1::exp : k == 1 ? ToyK1::round : ToyK1::softmax_code;
    m.k2 = ToyK2::softmax;
    m.hkv = k == 2 ? 2 : 1;
    std::mt19937_64 g(1234 + k);
    const auto P = init_params<double>(m, g);
    const auto b = make_batch(ref::generate_s5_data(16, 4, g));
    std::vector<double> gr;
    const auto r = loss_and_grad(P, b, gr, 1);
    double s = 0;
    for (double x : gr) s += std::fabs(x);
    EXPECT_NEAR(r.loss, want_loss[k], 1e-13 * want_loss[k]) << "case " << k;
    EXPECT_NEAR(s, want_gsum[k], 1e-13 * want_gsum[k]) << "case " << k;
  }
}

TEST(ToyRope, BadOptionsThrowNamingRopeBase) {
  for (double bad : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    ModelShape m;
    m.rope = true;
    m.rope_base = bad;
    try {
      m.validate();
      ADD_FAILURE() << "rope_base " << bad << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("rope_base"), std::string::npos) << e.what();
    }
    TrainConfig tc;
    tc.shape = m;
    tc.steps = 1;
    EXPECT_THROW(train(tc), std::invalid_argument);
    // the reference rotation and forward reject it too
    std::vector<double> x = {1, 2, 3};
    if (bad != 0.0) {
      EXPECT_THROW(ref::rope_rotate(x.data(), 3, 1, bad), std::invalid_argument);
      std::mt19937_64 g(1);
      auto rp = to_reference(init_params<double>(ModelShape{}, g));
      rp.rope_base = bad;
      try {
        ref::toy_delta_attention(rp, ToyK1::exp, ToyK2::softmax, ref::Matrix<double>(2, 12), true);
        ADD_FAILURE() << "toy_delta_attention accepted rope_base " << bad;
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("rope_base"), std::string::npos) << e.what();
      }
    }
  }
}

}  // namespace
}  // namespace recall::toy
