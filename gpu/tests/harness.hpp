// The judging harness of the gpu/ tests, shared by the host-emulation tests (test_programs.cpp)
// and the device tests (test_device.cpp): generated inputs (tails, odd thread counts, zero gates,
// saturated logits), NaN-poisoned outputs, the MP oracle and the error budget.
#pragma once
#include "recall/gpu/programs.hpp"
#include "recall/properties/budget.hpp"
#include "recall/properties/ops.hpp"
#include "recall/reference/delta_rule.hpp"
#include "recall/reference/softmax.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <sstream>

namespace recall::gpu::testing {

constexpr std::size_t kSmem = 227 * 1024;  // H100 opt-in shared memory per block

// How a test runs a program: on the host emulator or on the device (threads: emulated block size).
using LaRunner = std::function<void(const SeqDims&, const LaPtrs<float>&, int threads)>;
using DrRunner = std::function<void(const SeqDims&, const DrPtrs<float>&, int threads)>;
using SmRunner = std::function<void(const SeqDims&, const SmPtrs<float>&, float scale, int threads)>;
using UsRunner = std::function<void(const SeqDims&, const UsPtrs<float>&, float inv_tau, int threads)>;
const float kNaN = std::numeric_limits<float>::quiet_NaN();

inline std::vector<float> to_f(const Tensor& t) { return std::vector<float>(t.data.begin(), t.data.end()); }
inline Tensor to_t(std::vector<std::int64_t> shape, const std::vector<float>& v) { return Tensor{std::move(shape), {v.begin(), v.end()}}; }

struct Case {
  int B, H, T, dk, dv, C, threads;
  bool s0;
};
inline std::string str(const Case& c) {
  std::ostringstream s;
  s << "B=" << c.B << " H=" << c.H << " T=" << c.T << " dk=" << c.dk << " dv=" << c.dv << " C=" << c.C << " threads=" << c.threads
    << (c.s0 ? " s0" : "");
  return s.str();
}
const std::vector<Case> kCases = {
    {1, 1, 1, 1, 1, 4, 0, false},   {1, 2, 5, 3, 2, 4, 0, true},   {2, 1, 17, 4, 5, 8, 33, true},
    {1, 1, 64, 8, 8, 16, 32, false}, {1, 3, 65, 8, 4, 64, 0, true}, {1, 1, 130, 16, 16, 32, 256, true},
};

// Linear attention (gated and ungated) through the registry's op: generator, oracle, baseline, budget.
inline void check_linear_attention(const std::string& opname, const Case& c, GateKind gates, const LaRunner& run) {
  const OpSpec& o = op(opname);
  CaseKnobs k;
  k.B = c.B, k.H = c.H, k.T = c.T, k.dk = c.dk, k.dv = c.dv, k.initial_state = c.s0, k.gates = gates, k.seed = 7 + c.T;
  TensorMap in = o.generate(k, Precision::f32);
  const double u = unit_roundoff(Precision::f32);
  Oracle oracle = compute_oracle(o, in, u);
  TensorMap base = o.baseline(in, Precision::f32);
  auto q = to_f(in.at("q")), kk = to_f(in.at("k")), v = to_f(in.at("v"));
  std::vector<float> g, s0;
  if (in.count("log_gate")) g = to_f(in.at("log_gate"));
  if (in.count("s0")) s0 = to_f(in.at("s0"));
  std::vector<float> out(std::size_t(c.B) * c.H * c.T * c.dv, kNaN), sf(std::size_t(c.B) * c.H * c.dv * c.dk, kNaN);
  SeqDims d;
  d.B = c.B, d.H = c.H, d.T = c.T, d.dk = c.dk, d.dv = c.dv, d.C = c.C;
  LaPtrs<float> p{q.data(), kk.data(), v.data(), g.empty() ? nullptr : g.data(), s0.empty() ? nullptr : s0.data(), out.data(), sf.data()};
  run(d, p, c.threads);
  TensorMap res{{"o", to_t({c.B, c.H, c.T, c.dv}, out)}, {"s_final", to_t({c.B, c.H, c.dv, c.dk}, sf)}};
  const Judgement j = judge(oracle.y, res, base, u, budget_inputs(o, in));
  EXPECT_TRUE(j.pass) << opname << " " << str(c) << ": " << j.detail << " worst " << j.kernel.worst_output << j.kernel.worst_index;
}

// Delta rule (ungated and gated, placement G) against ref::gated_delta_rule at 40 digits.
struct DrInputs {
  std::vector<float> q, k, v, beta, lg, s0;
};
inline DrInputs draw_dr(const Case& c, bool gated, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> N(0.f, 1.f);
  std::uniform_real_distribution<float> U(0.f, 1.f);
  DrInputs x;
  const std::size_t rows = std::size_t(c.B) * c.H * c.T;
  x.q.resize(rows * c.dk), x.k.resize(rows * c.dk), x.v.resize(rows * c.dv), x.beta.resize(rows), x.lg.resize(gated ? rows : 0);
  for (auto& a : x.q) a = N(rng);
  for (auto& a : x.v) a = N(rng);
  for (std::size_t r = 0; r < rows; ++r) {  // unit keys, beta in [0,1]: non-expansive transitions
    float nn = 0;
    for (int c2 = 0; c2 < c.dk; ++c2) nn += (x.k[r * c.dk + c2] = N(rng)) * x.k[r * c.dk + c2];
    for (int c2 = 0; c2 < c.dk; ++c2) x.k[r * c.dk + c2] /= std::sqrt(nn);
    x.beta[r] = r % 7 == 3 ? 1.f : (r % 11 == 5 ? 0.f : U(rng));
    if (gated) x.lg[r] = r % 13 == 6 ? -std::numeric_limits<float>::infinity() : std::log(0.5f + 0.5f * U(rng));
  }
  if (c.s0) {
    x.s0.resize(std::size_t(c.B) * c.H * c.dv * c.dk);
    for (auto& a : x.s0) a = N(rng);
  }
  return x;
}
template <class S> ref::Matrix<S> mat(const std::vector<float>& v, std::size_t off, std::size_t r, std::size_t c) {
  ref::Matrix<S> m(r, c);
  for (std::size_t i = 0; i < r * c; ++i) m.a[i] = S(v[off + i]);
  return m;
}

inline void check_delta_rule(const Case& c, bool gated, const DrRunner& run, bool expect_pass = true) {
  const DrInputs x = draw_dr(c, gated, 99 + c.T);
  const std::size_t T = c.T, dk = c.dk, dv = c.dv;
  MpTensorMap oracle;
  TensorMap base;
  oracle["o"].shape = base["o"].shape = {c.B, c.H, c.T, c.dv};
  oracle["s_final"].shape = base["s_final"].shape = {c.B, c.H, c.dv, c.dk};
  MpDigitsScope digits(40);
  auto run_ref = [&](auto zero, auto& out) {
    using S = decltype(zero);
    using Out = typename std::decay_t<decltype(out["o"].data)>::value_type;
    for (int bh = 0; bh < c.B * c.H; ++bh) {
      auto Q = mat<S>(x.q, bh * T * dk, T, dk), K = mat<S>(x.k, bh * T * dk, T, dk), V = mat<S>(x.v, bh * T * dv, T, dv);
      ref::Vector<S> be(T), la(T, S(0));
      for (std::size_t t = 0; t < T; ++t) {
        be[t] = S(x.beta[bh * T + t]);
        if (gated) la[t] = S(x.lg[bh * T + t]);
      }
      ref::Matrix<S> S0;
      if (c.s0) S0 = mat<S>(x.s0, bh * dv * dk, dv, dk);
      auto r = ref::gated_delta_rule(Q, K, V, be, la, ref::DecayPlacement::G, c.s0 ? &S0 : nullptr);
      for (auto& y : r.O.a) out["o"].data.push_back(Out(y));
      for (auto& y : r.state.a) out["s_final"].data.push_back(Out(y));
    }
  };
  run_ref(mp_t(0), oracle);
  run_ref(float(0), base);
  std::vector<float> out(std::size_t(c.B) * c.H * T * dv, kNaN), sf(std::size_t(c.B) * c.H * dv * dk, kNaN);
  SeqDims d;
  d.B = c.B, d.H = c.H, d.T = c.T, d.dk = c.dk, d.dv = c.dv, d.C = c.C;
  DrPtrs<float> p{x.q.data(), x.k.data(), x.v.data(), x.beta.data(), gated ? x.lg.data() : nullptr, c.s0 ? x.s0.data() : nullptr,
                  out.data(), sf.data()};
  run(d, p, c.threads);
  TensorMap res{{"o", to_t({c.B, c.H, c.T, c.dv}, out)}, {"s_final", to_t({c.B, c.H, c.dv, c.dk}, sf)}};
  // unit keys and beta in [0,1]: each step is non-expansive, no magnitude term beyond kappa = 1
  const Judgement j = judge(oracle, res, base, unit_roundoff(Precision::f32), TensorMap{}, double(T + dk));
  EXPECT_EQ(j.pass, expect_pass) << (gated ? "gated " : "") << "delta rule " << str(c) << ": " << j.detail << " worst "
                                 << j.kernel.worst_output << j.kernel.worst_index;
}

// Softmax: tiled online program vs ref::causal_softmax_attention at 40 digits; large logits too.
inline void check_softmax(const Case& c, float scale, const SmRunner& run) {
  std::mt19937_64 rng(3 + c.T);
  std::normal_distribution<float> N(0.f, 1.f);
  const std::size_t T = c.T, dk = c.dk, dv = c.dv, BH = std::size_t(c.B) * c.H;
  std::vector<float> q(BH * T * dk), k(BH * T * dk), v(BH * T * dv), out(BH * T * dv, kNaN);
  for (auto& a : q) a = N(rng);
  for (auto& a : k) a = N(rng);
  for (auto& a : v) a = N(rng);
  MpDigitsScope digits(40);
  MpTensorMap oracle;
  TensorMap base;
  oracle["o"].shape = base["o"].shape = {c.B, c.H, c.T, c.dv};
  TensorMap mag;
  mag["o"].shape = {c.B, c.H, c.T, c.dv};
  for (std::size_t bh = 0; bh < BH; ++bh) {
    auto Qm = mat<mp_t>(q, bh * T * dk, T, dk), Km = mat<mp_t>(k, bh * T * dk, T, dk), Vm = mat<mp_t>(v, bh * T * dv, T, dv);
    auto O = ref::causal_softmax_attention(Qm, Km, Vm, mp_t(scale));
    for (auto& y : O.a) oracle["o"].data.push_back(y);
    auto Of = ref::causal_softmax_attention(mat<float>(q, bh * T * dk, T, dk), mat<float>(k, bh * T * dk, T, dk),
                                            mat<float>(v, bh * T * dv, T, dv), scale);
    for (auto& y : Of.a) base["o"].data.push_back(y);
    // magnitude: the convex combination of |v| (the output is a weighted mean of the values)
    ref::Matrix<mp_t> Va = Vm;
    for (auto& y : Va.a) y = abs(y);
    auto A = ref::causal_softmax_attention(Qm, Km, Va, mp_t(scale));
    for (auto& y : A.a) mag["o"].data.push_back(static_cast<double>(y));
  }
  SeqDims d;
  d.B = c.B, d.H = c.H, d.T = c.T, d.dk = c.dk, d.dv = c.dv;
  d.C = c.C;
  SmPtrs<float> p{q.data(), k.data(), v.data(), out.data()};
  run(d, p, scale, c.threads);
  TensorMap res{{"o", to_t({c.B, c.H, c.T, c.dv}, out)}};
  const Judgement j = judge(oracle, res, base, unit_roundoff(Precision::f32), mag, double(T + dk));
  EXPECT_TRUE(j.pass) << "softmax scale " << scale << " " << str(c) << ": " << j.detail << " worst " << j.kernel.worst_index;
}

// DeltaFormer u-solve: blocked program vs plain forward substitution (ref::unit_lower_solve) at
// 40 digits, A_ti = beta_t exp(k_t . k_i / tau). The budget's kappa u n term uses the infinity-norm
// condition number of I + A (explicit inverse in double), reported on failure.
inline void check_u_solve(const Case& c, double key_scale, const UsRunner& run, bool expect_pass = true) {
  std::mt19937_64 rng(41 + c.T);
  std::normal_distribution<double> N(0., 1.);
  std::uniform_real_distribution<double> U(0., 1.);
  const std::size_t T = c.T, dk = c.dk, dv = c.dv, BH = std::size_t(c.B) * c.H;
  const float inv_tau = 1.0f / std::sqrt(float(c.dk));
  std::vector<float> k(BH * T * dk), v(BH * T * dv), beta(BH * T), u(BH * T * dv, kNaN);
  for (auto& a : k) a = float(key_scale * N(rng));
  for (auto& a : v) a = float(N(rng));
  for (auto& a : beta) a = float(0.5 * U(rng));
  MpDigitsScope digits(40);
  MpTensorMap oracle;
  TensorMap base;
  oracle["u"].shape = base["u"].shape = {c.B, c.H, c.T, c.dv};
  double kappa = 1;
  for (std::size_t bh = 0; bh < BH; ++bh) {
    auto build = [&](auto zero) {
      using S = decltype(zero);
      ref::Matrix<S> A(T, T);
      for (std::size_t t = 0; t < T; ++t)
        for (std::size_t i = 0; i < t; ++i) {
          S dot(0);
          for (std::size_t e = 0; e < dk; ++e) dot += S(k[(bh * T + t) * dk + e]) * S(k[(bh * T + i) * dk + e]);
          A(t, i) = S(beta[bh * T + t]) * exp(S(inv_tau) * dot);
        }
      return ref::unit_lower_solve(A, mat<S>(v, bh * T * dv, T, dv));
    };
    using std::exp;
    for (auto& y : build(mp_t(0)).a) oracle["u"].data.push_back(y);
    for (auto& y : build(float(0)).a) base["u"].data.push_back(y);
    // kappa_inf(I + A) from the explicit inverse in double
    ref::Matrix<double> M(T, T), X(T, T);
    for (std::size_t t = 0; t < T; ++t) {
      M(t, t) = 1;
      for (std::size_t i = 0; i < t; ++i) {
        double dot = 0;
        for (std::size_t e = 0; e < dk; ++e) dot += double(k[(bh * T + t) * dk + e]) * double(k[(bh * T + i) * dk + e]);
        M(t, i) = double(beta[bh * T + t]) * std::exp(double(inv_tau) * dot);
      }
    }
    for (std::size_t col = 0; col < T; ++col)
      for (std::size_t t = 0; t < T; ++t) {
        double x = t == col ? 1 : 0;
        for (std::size_t i = 0; i < t; ++i) x -= M(t, i) * X(i, col);
        X(t, col) = x;
      }
    double nm = 0, ni = 0;
    for (std::size_t t = 0; t < T; ++t) {
      double a = 0, b = 0;
      for (std::size_t i = 0; i < T; ++i) a += std::fabs(M(t, i)), b += std::fabs(X(t, i));
      nm = std::max(nm, a), ni = std::max(ni, b);
    }
    kappa = std::max(kappa, nm * ni);
  }
  SeqDims d;
  d.B = c.B, d.H = c.H, d.T = c.T, d.dk = c.dk, d.dv = c.dv, d.C = c.C;
  UsPtrs<float> p{k.data(), v.data(), beta.data(), u.data()};
  run(d, p, inv_tau, c.threads);
  TensorMap res{{"u", to_t({c.B, c.H, c.T, c.dv}, u)}};
  const Judgement j = judge(oracle, res, base, unit_roundoff(Precision::f32), TensorMap{}, double(T + dk), BudgetParams{}, kappa, double(T));
  // a budget of kappa u n >= 1% relative error could not catch a wrong kernel: such a case is a
  // defect of the test's generator, not a pass
  ASSERT_LT(kappa * double(T) * unit_roundoff(Precision::f32), 1e-2) << "vacuous u-solve case: kappa " << kappa << ", " << str(c);
  ::testing::Test::RecordProperty("kappa_" + std::to_string(c.T) + "_" + std::to_string(key_scale), std::to_string(kappa));
  EXPECT_EQ(j.pass, expect_pass) << "u-solve keys x" << key_scale << " " << str(c) << ": " << j.detail << " worst " << j.kernel.worst_index;
}

}  // namespace recall::gpu::testing
