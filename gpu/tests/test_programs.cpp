// Host-side tests of gpu/ (no device needed; label fast): the kernels' block programs run on the
// CPU through the emulator (NaN-poisoned shared memory and outputs, odd block sizes) and are
// judged against the MP reference under the error budget; launch plans and 64-bit index
// arithmetic for shapes whose element counts pass 2^31.
#include "harness.hpp"
#include "recall/gpu/emulate.hpp"
#include "recall/properties/agreement.hpp"
#include "recall/properties/corners.hpp"

namespace recall::gpu::testing {
namespace {

void emu_la(const SeqDims& d, const LaPtrs<float>& p, int threads) { emulate_linear_attention(d, p, plan_linear_attention(d, d.C, kSmem), threads); }
void emu_dr(const SeqDims& d, const DrPtrs<float>& p, int threads) { emulate_delta_rule(d, p, plan_delta_rule(d, d.C, kSmem), threads); }
void emu_sm(const SeqDims& d, const SmPtrs<float>& p, float scale, int threads) {
  emulate_softmax(d, p, scale, plan_softmax(d, d.C, kSmem), threads);
}

void emu_us(const SeqDims& d, const UsPtrs<float>& p, float inv_tau, int threads) {
  emulate_u_solve(d, p, inv_tau, plan_u_solve(d, d.C, kSmem), threads);
}

TEST(GpuPrograms, USolveMatchesForwardSubstitution) {
  for (const Case& c : kCases) {
    check_u_solve(c, 0.3, emu_us);  // well-conditioned
    check_u_solve(c, 0.6, emu_us);  // larger kernel entries: kappa grows, judged with kappa u n
  }
}
TEST(GpuPrograms, BudgetRejectsAWrongUSolveProgram) {
  // the blocked solve with the block coupling dropped for the last chunk's first row
  auto wrong = [](const SeqDims& d, const UsPtrs<float>& p, float inv_tau, int threads) {
    emu_us(d, p, inv_tau, threads);
    std::vector<float> v(p.v, p.v + d.B * d.H * d.T * d.dv);
    for (i64 e = 0; e < d.dv; ++e) p.u[row_offset(0, d.T, d.T - 1, d.dv) + e] = v[row_offset(0, d.T, d.T - 1, d.dv) + e];
  };
  for (const Case& c : kCases)
    if (c.T > 1) check_u_solve(c, 0.3, wrong, /*expect_pass=*/false);
}
TEST(GpuPrograms, LinearAttentionMatchesReference) {
  for (const Case& c : kCases) check_linear_attention("linear_attention", c, GateKind::uniform, emu_la);
}
TEST(GpuPrograms, GatedLinearAttentionMatchesReferenceWithZeroGates) {
  for (const Case& c : kCases) {
    check_linear_attention("gated_linear_attention", c, GateKind::uniform, emu_la);
    check_linear_attention("gated_linear_attention", c, GateKind::zeros_mixed, emu_la);
  }
}
TEST(GpuPrograms, DeltaRuleMatchesReference) {
  for (const Case& c : kCases) check_delta_rule(c, false, emu_dr);
}
TEST(GpuPrograms, GatedDeltaRuleMatchesReferenceWithResets) {
  for (const Case& c : kCases) check_delta_rule(c, true, emu_dr);
}
TEST(GpuPrograms, TiledSoftmaxMatchesReference) {
  for (const Case& c : kCases) check_softmax(c, 1.0f / std::sqrt(float(c.dk)), emu_sm);
}
TEST(GpuPrograms, TiledSoftmaxSurvivesSaturatedLogits) {
  for (const Case& c : kCases) check_softmax(c, 60.0f, emu_sm);  // logits ~ +-300: exp overflows without the max shift
}

// The emulated delta-rule program as a registry implementation, judged on the registry ops' corner
// cases (beta |k|^2 at and beyond 2, nearly parallel keys, zero gates, tails): the same cases and
// budget (with the chunk systems' condition term) as the CPU kernels.
Implementation emulated_delta(bool gated) {
  return {gated ? "gated_delta_rule" : "delta_rule", "emu.gpu.chunked", "host", Precision::f32, [gated](const TensorMap& in) {
            const Tensor& q = in.at("q");
            const Tensor& v = in.at("v");
            SeqDims d;
            d.B = q.shape[0], d.H = q.shape[1], d.T = q.shape[2], d.dk = int(q.shape[3]), d.dv = int(v.shape[3]), d.C = 64;
            auto qq = to_f(q), kk = to_f(in.at("k")), vv = to_f(v), bb = to_f(in.at("beta"));
            std::vector<float> g, s0, o(std::size_t(d.B * d.H * d.T) * d.dv), sf(std::size_t(d.B * d.H) * d.dv * d.dk);
            if (gated) g = to_f(in.at("log_alpha"));
            if (in.count("s0")) s0 = to_f(in.at("s0"));
            DrPtrs<float> p{qq.data(), kk.data(), vv.data(), bb.data(), gated ? g.data() : nullptr, s0.empty() ? nullptr : s0.data(),
                            o.data(), sf.data()};
            emu_dr(d, p, 0);
            return TensorMap{{"o", to_t({d.B, d.H, d.T, d.dv}, o)}, {"s_final", to_t({d.B, d.H, d.dv, d.dk}, sf)}};
          }};
}
TEST(GpuPrograms, DeltaRuleProgramPassesTheRegistryCornerCases) {
  for (bool gated : {false, true}) {
    const Implementation impl = emulated_delta(gated);
    for (const CaseKnobs& k : corner_cases(op(impl.op).gated, /*quick=*/true)) {
      const CaseOutcome c = run_case(impl, k);
      EXPECT_TRUE(c.judgement.pass) << impl.op << " " << describe(k) << ": " << c.judgement.detail;
    }
  }
}

// The linear-attention program (gated or not) as a registry implementation.
Implementation emulated_la(const std::string& opname) {
  return {opname, "emu.gpu.chunked", "host", Precision::f32, [](const TensorMap& in) {
            const Tensor& q = in.at("q");
            const Tensor& v = in.at("v");
            SeqDims d;
            d.B = q.shape[0], d.H = q.shape[1], d.T = q.shape[2], d.dk = int(q.shape[3]), d.dv = int(v.shape[3]), d.C = 64;
            auto qq = to_f(q), kk = to_f(in.at("k")), vv = to_f(v);
            std::vector<float> g, s0, o(std::size_t(d.B * d.H * d.T) * d.dv, kNaN), sf(std::size_t(d.B * d.H) * d.dv * d.dk, kNaN);
            if (in.count("log_gate")) g = to_f(in.at("log_gate"));
            if (in.count("s0")) s0 = to_f(in.at("s0"));
            LaPtrs<float> p{qq.data(), kk.data(), vv.data(), g.empty() ? nullptr : g.data(), s0.empty() ? nullptr : s0.data(), o.data(),
                            sf.data()};
            emu_la(d, p, 0);
            return TensorMap{{"o", to_t({d.B, d.H, d.T, d.dv}, o)}, {"s_final", to_t({d.B, d.H, d.dv, d.dk}, sf)}};
          }};
}

// Corners where chunked kernels return NaN although the reference is finite (properties/corners.hpp:
// -inf and 0 gates at t = 1, t = T, chunk boundaries, mid-chunk and everywhere, underflowing decays,
// beta = 0, zero keys, T = 1 and chunk +- 1 with d = 1): every program, finite and within budget;
// an all-zero s0 gives exactly the outputs of none.
TEST(GpuPrograms, CornersAreFiniteAndWithinBudget) {
  const std::vector<Implementation> programs = {emulated_la("linear_attention"), emulated_la("gated_linear_attention"), emulated_delta(false),
                                                emulated_delta(true)};
  int judged = 0;
  for (const Implementation& impl : programs) {
    const OpSpec& o = op(impl.op);
    for (const CornerCase& c : nan_corner_cases(o, Precision::f32)) {
      const Judgement j = judge(make_reference(o, c.in, Precision::f32), impl.run(c.in));
      for (const auto& oj : j.outputs) EXPECT_EQ(oj.nonfinite, 0u) << impl.op << " " << c.name << ": '" << oj.name << "' NaN/Inf at " << oj.first_nonfinite;
      EXPECT_TRUE(j.pass) << impl.op << " " << c.name << ": " << j.detail;
      ++judged;
      if (c.in.count("s0")) continue;
      const TensorMap a = impl.run(c.in), b = impl.run(with_zero_initial_state(o, c.in));
      for (const auto& [name, t] : a) EXPECT_EQ(t.data, b.at(name).data) << impl.op << " " << c.name << ": '" << name << "' with s0 = 0";
    }
  }
  EXPECT_GT(judged, 50);
}

// Negative control: the same program fed beta shifted by one token must fail the budget.
TEST(GpuPrograms, BudgetRejectsAWrongDeltaRuleProgram) {
  auto shifted = [](const SeqDims& d, const DrPtrs<float>& p, int threads) {
    std::vector<float> beta(p.beta, p.beta + d.B * d.H * d.T);
    std::rotate(beta.rbegin(), beta.rbegin() + 1, beta.rend());
    DrPtrs<float> q = p;
    q.beta = beta.data();
    emu_dr(d, q, threads);
  };
  for (const Case& c : kCases)
    if (c.T > 1) check_delta_rule(c, true, shifted, /*expect_pass=*/false);
}

// Plans and 64-bit index arithmetic for shapes past 2^31 elements.
TEST(GpuPlans, LargeShapesUse64BitOffsets) {
  SeqDims d;
  d.B = 8, d.H = 64, d.T = 1 << 20, d.dk = 128, d.dv = 128;
  const i64 elems = d.B * d.H * d.T * i64(d.dk);
  ASSERT_GT(elems, i64(std::numeric_limits<std::int32_t>::max()));
  const i64 last_bh = d.B * d.H - 1;
  EXPECT_EQ(row_offset(last_bh, d.T, d.T - 1, d.dk) + d.dk, elems);  // one past the last element, exact
  EXPECT_EQ(row_offset(last_bh, d.T, d.T - 1, 1) + 1, d.B * d.H * d.T);
  const LaunchPlan la = plan_linear_attention(d, 64, kSmem);
  EXPECT_EQ(la.grid, d.B * d.H);
  EXPECT_LE(la.smem_bytes, kSmem);
  EXPECT_GE(la.C, 1);
  const LaunchPlan sm = plan_softmax(d, 64, kSmem);
  EXPECT_EQ(sm.grid, d.B * d.H * ((d.T + sm.Bq - 1) / sm.Bq));
  EXPECT_LE(sm.grid, i64(0x7fffffff));  // a valid gridDim.x
  // the plan halves the chunk until the state and the chunk buffers fit
  const LaunchPlan dr = plan_delta_rule(d, 64, 100 * 1024);
  EXPECT_LE(dr.smem_bytes, std::size_t(100 * 1024));
  EXPECT_LT(dr.C, 64);
}
TEST(GpuPlans, RefusesWhatCannotFit) {
  SeqDims d;
  d.B = 1, d.H = 1, d.T = 16, d.dk = 512, d.dv = 512;  // a 1 MiB state
  EXPECT_THROW(plan_linear_attention(d, 64, kSmem), std::invalid_argument);
  d.dk = 0;
  EXPECT_THROW(plan_softmax(d, 64, kSmem), std::invalid_argument);
  d.dk = 16;
  EXPECT_THROW(plan_delta_rule(d, 0, kSmem), std::invalid_argument);
}

}  // namespace
}  // namespace recall::gpu::testing
