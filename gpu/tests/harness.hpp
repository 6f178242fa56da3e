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
    {1, 2, 256, 32, 32, 64, 128, true},  // the discrimination suite's fast shape
};

// Linear attention (gated and ungated) through the registry's op: generator, oracle, baseline, budget.
// p: the storage precision (bf16 / f16: every input is rounded to it first, and the budget is taken at it).
inline Judgement check_linear_attention(const std::string& opname, const Case& c, GateKind gates, const LaRunner& run,
                                        Precision p = Precision::f32, bool expect_pass = true, double output_factor = 1.0) {
  const OpSpec& o = op(opname);
  CaseKnobs k;
  k.B = c.B, k.H = c.H, k.T = c.T, k.dk = c.dk, k.dv = c.dv, k.initial_state = c.s0, k.gates = gates, k.seed = 7 + c.T;
  TensorMap in = o.generate(k, p);
  round_to(in, p);
  const Reference ref = make_reference(o, in, p);
  auto q = to_f(in.at("q")), kk = to_f(in.at("k")), v = to_f(in.at("v"));
  std::vector<float> g, s0;
  if (in.count("log_gate")) g = to_f(in.at("log_gate"));
  if (in.count("s0")) s0 = to_f(in.at("s0"));
  std::vector<float> out(std::size_t(c.B) * c.H * c.T * c.dv, kNaN), sf(std::size_t(c.B) * c.H * c.dv * c.dk, kNaN);
  SeqDims d;
  d.B = c.B, d.H = c.H, d.T = c.T, d.dk = c.dk, d.dv = c.dv, d.C = c.C;
  LaPtrs<float> ptr{q.data(), kk.data(), v.data(), g.empty() ? nullptr : g.data(), s0.empty() ? nullptr : s0.data(), out.data(), sf.data()};
  run(d, ptr, c.threads);
  for (auto& x : out) x = float(x * output_factor);
  TensorMap res{{"o", to_t({c.B, c.H, c.T, c.dv}, out)}, {"s_final", to_t({c.B, c.H, c.dv, c.dk}, sf)}};
  const Judgement j = judge(ref, res);
  EXPECT_EQ(j.pass, expect_pass) << opname << " " << precision_name(p) << " " << str(c) << ": " << j.detail << " worst "
                                 << j.kernel.worst_output << j.kernel.worst_index;
  return j;
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

// The inputs as the registry op's tensors (q, k [B,H,T,dk], v [B,H,T,dv], beta, log_alpha [B,H,T], s0).
inline Tensor vec_t(std::vector<std::int64_t> shape, const std::vector<float>& v) { return to_t(std::move(shape), v); }

inline void round_all(std::vector<float>& v, Precision p) {
  for (auto& a : v) a = float(round_value(a, p));
}
inline Judgement check_delta_rule(const Case& c, bool gated, const DrRunner& run, bool expect_pass = true, Precision p = Precision::f32,
                                  double output_factor = 1.0) {
  DrInputs x = draw_dr(c, gated, 99 + c.T);
  for (auto* vec : {&x.q, &x.k, &x.v, &x.beta, &x.lg, &x.s0}) round_all(*vec, p);
  const std::size_t T = c.T, dk = c.dk, dv = c.dv;
  TensorMap in{{"q", vec_t({c.B, c.H, c.T, c.dk}, x.q)}, {"k", vec_t({c.B, c.H, c.T, c.dk}, x.k)},
               {"v", vec_t({c.B, c.H, c.T, c.dv}, x.v)}, {"beta", vec_t({c.B, c.H, c.T}, x.beta)}};
  if (gated) in["log_alpha"] = vec_t({c.B, c.H, c.T}, x.lg);
  if (c.s0) in["s0"] = vec_t({c.B, c.H, c.dv, c.dk}, x.s0);
  const Reference ref = make_reference(op(gated ? "gated_delta_rule" : "delta_rule"), in, p);
  std::vector<float> out(std::size_t(c.B) * c.H * T * dv, kNaN), sf(std::size_t(c.B) * c.H * dv * dk, kNaN);
  SeqDims d;
  d.B = c.B, d.H = c.H, d.T = c.T, d.dk = c.dk, d.dv = c.dv, d.C = c.C;
  DrPtrs<float> ptr{x.q.data(), x.k.data(), x.v.data(), x.beta.data(), gated ? x.lg.data() : nullptr, c.s0 ? x.s0.data() : nullptr,
                    out.data(), sf.data()};
  run(d, ptr, c.threads);
  for (auto& a : out) a = float(a * output_factor);
  TensorMap res{{"o", to_t({c.B, c.H, c.T, c.dv}, out)}, {"s_final", to_t({c.B, c.H, c.dv, c.dk}, sf)}};
  const Judgement j = judge(ref, res);
  EXPECT_EQ(j.pass, expect_pass) << (gated ? "gated " : "") << "delta rule " << precision_name(p) << " " << str(c) << ": " << j.detail
                                 << " worst " << j.kernel.worst_output << j.kernel.worst_index;
  return j;
}

// Softmax: tiled online program vs the registry op's reference (log-sum-exp per row); large logits too.
inline Judgement check_softmax(const Case& c, float scale, const SmRunner& run, Precision prec = Precision::f32, bool expect_pass = true,
                               double output_factor = 1.0) {
  std::mt19937_64 rng(3 + c.T);
  std::normal_distribution<float> N(0.f, 1.f);
  const std::size_t T = c.T, dk = c.dk, dv = c.dv, BH = std::size_t(c.B) * c.H;
  std::vector<float> q(BH * T * dk), k(BH * T * dk), v(BH * T * dv), out(BH * T * dv, kNaN);
  for (auto& a : q) a = N(rng);
  for (auto& a : k) a = N(rng);
  for (auto& a : v) a = N(rng);
  round_all(q, prec), round_all(k, prec), round_all(v, prec);
  const TensorMap in{{"q", vec_t({c.B, c.H, c.T, c.dk}, q)}, {"k", vec_t({c.B, c.H, c.T, c.dk}, k)},
                     {"v", vec_t({c.B, c.H, c.T, c.dv}, v)}, {"scale", Tensor{{1}, {double(scale)}}}};
  const Reference ref = make_reference(op("softmax_attention"), in, prec);
  SeqDims d;
  d.B = c.B, d.H = c.H, d.T = c.T, d.dk = c.dk, d.dv = c.dv;
  d.C = c.C;
  SmPtrs<float> p{q.data(), k.data(), v.data(), out.data()};
  run(d, p, scale, c.threads);
  for (auto& a : out) a = float(a * output_factor);
  TensorMap res{{"o", to_t({c.B, c.H, c.T, c.dv}, out)}};
  const Judgement j = judge(ref, res);
  EXPECT_EQ(j.pass, expect_pass) << "softmax " << precision_name(prec) << " scale " << scale << " " << str(c) << ": " << j.detail
                                 << " worst " << j.kernel.worst_index;
  return j;
}

// DeltaFormer u-solve: blocked program vs the deltaformer_u op's reference (forward substitution
// from the definition), A_ti = beta_t exp(k_t . k_i / tau); only u is judged (the program has no
// read-out). The budget's sensitivity carries the system's conditioning.
// beta ~ U(0, beta_max): at 16-bit storage the exponential kernel's system is so sensitive to its
// inputs (u_s = 2^-8 moves u by several % at beta_max = 0.5) that only smaller betas leave a budget
// that can tell a wrong kernel from a right one.
inline Judgement check_u_solve(const Case& c, double key_scale, const UsRunner& run, bool expect_pass = true, Precision prec = Precision::f32,
                               double output_factor = 1.0, double beta_max = 0.5, double weak_limit = 0) {
  std::mt19937_64 rng(41 + c.T);
  std::normal_distribution<double> N(0., 1.);
  std::uniform_real_distribution<double> U(0., 1.);
  const std::size_t T = c.T, dk = c.dk, dv = c.dv, BH = std::size_t(c.B) * c.H;
  const float inv_tau = 1.0f / std::sqrt(float(c.dk));
  std::vector<float> k(BH * T * dk), v(BH * T * dv), beta(BH * T), u(BH * T * dv, kNaN);
  for (auto& a : k) a = float(key_scale * N(rng));
  for (auto& a : v) a = float(N(rng));
  for (auto& a : beta) a = float(beta_max * U(rng));
  round_all(k, prec), round_all(v, prec), round_all(beta, prec);
  const TensorMap in{{"q", vec_t({c.B, c.H, c.T, c.dk}, k)}, {"k", vec_t({c.B, c.H, c.T, c.dk}, k)},
                     {"v", vec_t({c.B, c.H, c.T, c.dv}, v)}, {"beta", vec_t({c.B, c.H, c.T}, beta)},
                     {"scale", Tensor{{1}, {double(inv_tau)}}}};
  Reference ref = make_reference(op("deltaformer_u"), in, prec);
  ref.oracle.y.erase("o");
  SeqDims d;
  d.B = c.B, d.H = c.H, d.T = c.T, d.dk = c.dk, d.dv = c.dv, d.C = c.C;
  UsPtrs<float> p{k.data(), v.data(), beta.data(), u.data()};
  run(d, p, inv_tau, c.threads);
  for (auto& a : u) a = float(a * output_factor);
  TensorMap res{{"u", to_t({c.B, c.H, c.T, c.dv}, u)}};
  const Judgement j = judge(ref, res);
  // a budget of 1% relative error (5% for the 16-bit formats) or more could not catch a wrong
  // kernel: such a case is a defect of the test's generator, not a pass
  EXPECT_LT(j.budget_rel, weak_limit > 0 ? weak_limit : weak_budget_rel(prec)) << "vacuous u-solve case: " << j.detail << ", " << str(c);
  ::testing::Test::RecordProperty("kappa_solve_" + std::to_string(c.T) + "_" + std::to_string(key_scale), std::to_string(ref.budget.kappa_solve));
  EXPECT_EQ(j.pass, expect_pass) << "u-solve " << precision_name(prec) << " keys x" << key_scale << " " << str(c) << ": " << j.detail
                                 << " worst " << j.kernel.worst_index;
  return j;
}

}  // namespace recall::gpu::testing
