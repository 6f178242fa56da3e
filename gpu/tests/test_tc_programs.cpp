// Host-side tests of the tensor-core programs (tc_programs.hpp, tc_softmax_mma.hpp; no device needed, label fast): the
// emulator runs every block of the launch plan with the tensor-core step as "operands rounded to
// the storage type, products and sums in fp32", on NaN-poisoned shared memory, and the outputs are
// judged against the MP oracle under the error budget at the storage precision (bf16 / f16): tails
// (T not a multiple of 64), dk / dv not multiples of 16, s0 in and s_final out, gates with -inf,
// saturated logits, and a realistic head size (dk = dv = 128). Negative controls: the same programs
// made wrong (a token's beta shifted, outputs 5% off) must fail.
#include "harness.hpp"
#include "recall/gpu/emulate.hpp"
#include "recall/properties/agreement.hpp"
#include "recall/properties/corners.hpp"

namespace recall::gpu::testing {
namespace {

template <class Op> std::vector<Op> ops_of(const float* x, std::size_t n) {
  std::vector<Op> r(n);
  for (std::size_t i = 0; i < n; ++i) {
    r[i] = op_from<Op>(x[i]);
    // the harness rounds the inputs to the storage type first: the conversion must be exact
    if (to_f32(r[i]) != x[i] && x[i] == x[i]) throw std::logic_error("input not representable in the storage type");
  }
  return r;
}

// Parallel: the chunk-parallel three-pass program (the default plan); otherwise the sequential one.
template <class Op, bool Parallel = true> void tc_la(const SeqDims& d, const LaPtrs<float>& p, int threads) {
  const std::size_t nk = std::size_t(d.B * d.H * d.T) * d.dk, nv = std::size_t(d.B * d.H * d.T) * d.dv;
  auto q = ops_of<Op>(p.q, nk), k = ops_of<Op>(p.k, nk), v = ops_of<Op>(p.v, nv);
  LaPtrs<Op> o{q.data(), k.data(), v.data(), p.log_gate, p.s0, p.o, p.s_final};
  emulate_tc_linear_attention(d, o, plan_tc_linear_attention(d, kSmem, 0, Parallel), threads);
}
template <class Op, bool Parallel = true> void tc_dr(const SeqDims& d, const DrPtrs<float>& p, int threads) {
  const std::size_t nk = std::size_t(d.B * d.H * d.T) * d.dk, nv = std::size_t(d.B * d.H * d.T) * d.dv;
  auto q = ops_of<Op>(p.q, nk), k = ops_of<Op>(p.k, nk), v = ops_of<Op>(p.v, nv);
  DrPtrs<Op> o{q.data(), k.data(), v.data(), p.beta, p.log_gate, p.s0, p.o, p.s_final};
  emulate_tc_delta_rule(d, o, plan_tc_delta_rule(d, kSmem, 0, Parallel), threads);
}
template <class Op> void tc_sm(const SeqDims& d, const SmPtrs<float>& p, float scale, int threads) {
  const std::size_t nk = std::size_t(d.B * d.H * d.T) * d.dk, nv = std::size_t(d.B * d.H * d.T) * d.dv;
  auto q = ops_of<Op>(p.q, nk), k = ops_of<Op>(p.k, nk), v = ops_of<Op>(p.v, nv);
  SmPtrs<Op> o{q.data(), k.data(), v.data(), p.o};
  emulate_tc_softmax(d, o, scale, plan_tc_softmax(d, kSmem), threads);
}
template <class Op> void tc_us(const SeqDims& d, const UsPtrs<float>& p, float inv_tau, int threads) {
  const std::size_t nk = std::size_t(d.B * d.H * d.T) * d.dk, nv = std::size_t(d.B * d.H * d.T) * d.dv;
  auto k = ops_of<Op>(p.k, nk), v = ops_of<Op>(p.v, nv);
  UsPtrs<Op> o{k.data(), v.data(), p.beta, p.u};
  emulate_tc_u_solve(d, o, inv_tau, plan_tc_u_solve(d, kSmem), threads);
}

// The emulated block has the plan's thread count (the programs' warp split is fixed); the harness's
// odd thread counts apply to the SIMT programs only.
std::vector<Case> tc_cases() {
  std::vector<Case> cs = kCases;
  for (Case& c : cs) c.threads = 0;
  return cs;
}
constexpr double kUsBetaMax = 0.1;  // see check_u_solve: larger betas leave no discriminating budget at 16 bits
const Case kRealistic{1, 1, 200, 128, 128, 64, 0, true};  // a production head size, a 8-row tail

struct Storage16 {
  Precision p;
  bool bf;
};
const Storage16 kFormats[] = {{Precision::bf16, true}, {Precision::f16, false}};

LaRunner la_runner(bool bf) { return bf ? LaRunner(tc_la<hbf16>) : LaRunner(tc_la<hf16>); }
DrRunner dr_runner(bool bf) { return bf ? DrRunner(tc_dr<hbf16>) : DrRunner(tc_dr<hf16>); }
SmRunner sm_runner(bool bf) { return bf ? SmRunner(tc_sm<hbf16>) : SmRunner(tc_sm<hf16>); }
UsRunner us_runner(bool bf) { return bf ? UsRunner(tc_us<hbf16>) : UsRunner(tc_us<hf16>); }

TEST(TcFormats, RoundingMatchesTheDeviceConversions) {
  // round to nearest even at the halfway points, overflow, subnormals, NaN
  EXPECT_EQ(hbf16_from(1.0f + 1.0f / 256).bits, 0x3f80);           // halfway, even below
  EXPECT_EQ(hbf16_from(1.0f + 3.0f / 256).bits, 0x3f82);           // halfway, even above
  EXPECT_EQ(hbf16_from(3.0e38f * 10.0f).bits, 0x7f80);             // inf stays inf
  EXPECT_TRUE(std::isnan(to_f32(hbf16_from(std::nanf("")))));
  EXPECT_EQ(hf16_from(1.0f + 1.0f / 2048).bits, 0x3c00);
  EXPECT_EQ(hf16_from(1.0f + 3.0f / 2048).bits, 0x3c02);
  EXPECT_EQ(hf16_from(65504.0f).bits, 0x7bff);
  EXPECT_EQ(hf16_from(65519.0f).bits, 0x7bff);
  EXPECT_EQ(hf16_from(65520.0f).bits, 0x7c00);                     // rounds to inf
  EXPECT_EQ(hf16_from(std::ldexp(1.0f, -24)).bits, 0x0001);        // smallest subnormal
  EXPECT_EQ(hf16_from(std::ldexp(1.0f, -25)).bits, 0x0000);        // halfway to 0: even
  EXPECT_EQ(hf16_from(std::ldexp(3.0f, -25)).bits, 0x0002);        // halfway: even above
  EXPECT_EQ(hf16_from(-std::ldexp(1.0f, -14)).bits, 0x8400);       // smallest normal
  EXPECT_EQ(to_f32(hf16{0x0001}), std::ldexp(1.0f, -24));
  EXPECT_EQ(to_f32(hf16{0xfbff}), -65504.0f);
  EXPECT_EQ(tf32_round(1.0f + std::ldexp(1.0f, -11)), 1.0f + std::ldexp(1.0f, -10));  // ties away
  // every 16-bit pattern survives the round trip (finite ones exactly)
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const float fb = to_f32(hbf16{std::uint16_t(b)}), fh = to_f32(hf16{std::uint16_t(b)});
    if (std::isfinite(fb)) ASSERT_EQ(hbf16_from(fb).bits, b) << std::hex << b;
    if (std::isfinite(fh)) ASSERT_EQ(hf16_from(fh).bits, b) << std::hex << b;
  }
  // against the reference's rounding (properties/tensor.hpp), on values between the grid points
  std::mt19937 g(5);
  std::uniform_real_distribution<float> U(-3e4f, 3e4f);
  for (int i = 0; i < 20000; ++i) {
    const float x = i % 2 ? U(g) : U(g) * 1e-6f;
    ASSERT_EQ(to_f32(hbf16_from(x)), float(round_value(x, Precision::bf16))) << x;
    ASSERT_EQ(to_f32(hf16_from(x)), float(round_value(x, Precision::f16))) << x;
  }
}

TEST(TcPrograms, LinearAttentionMatchesReference) {
  for (const auto& f : kFormats)
    for (const Case& c : tc_cases()) check_linear_attention("linear_attention", c, GateKind::uniform, la_runner(f.bf), f.p);
}
TEST(TcPrograms, GatedLinearAttentionMatchesReferenceWithZeroGates) {
  for (const auto& f : kFormats)
    for (const Case& c : tc_cases()) {
      check_linear_attention("gated_linear_attention", c, GateKind::uniform, la_runner(f.bf), f.p);
      check_linear_attention("gated_linear_attention", c, GateKind::zeros_mixed, la_runner(f.bf), f.p);
    }
}
// The sequential program (one block per head and value tile walking the chunks), still selectable.
TEST(TcPrograms, SequentialLinearAttentionMatchesReference) {
  for (const auto& f : kFormats)
    for (const Case& c : tc_cases()) {
      const LaRunner run = f.bf ? LaRunner(tc_la<hbf16, false>) : LaRunner(tc_la<hf16, false>);
      check_linear_attention("gated_linear_attention", c, GateKind::zeros_mixed, run, f.p);
    }
  check_linear_attention("gated_linear_attention", kRealistic, GateKind::zeros_mixed, LaRunner(tc_la<hbf16, false>), Precision::bf16);
}
// The sequential delta-rule program (one block per head and value tile walking the chunks).
TEST(TcPrograms, SequentialDeltaRuleMatchesReference) {
  for (const auto& f : kFormats)
    for (const Case& c : tc_cases()) {
      const DrRunner run = f.bf ? DrRunner(tc_dr<hbf16, false>) : DrRunner(tc_dr<hf16, false>);
      check_delta_rule(c, true, run, true, f.p);
    }
  check_delta_rule(kRealistic, true, DrRunner(tc_dr<hbf16, false>), true, Precision::bf16);
}
TEST(TcPrograms, DeltaRuleMatchesReference) {
  for (const auto& f : kFormats)
    for (const Case& c : tc_cases()) check_delta_rule(c, false, dr_runner(f.bf), true, f.p);
}
TEST(TcPrograms, GatedDeltaRuleMatchesReferenceWithResets) {
  for (const auto& f : kFormats)
    for (const Case& c : tc_cases()) check_delta_rule(c, true, dr_runner(f.bf), true, f.p);
}
TEST(TcPrograms, SoftmaxMatchesReferenceAndSurvivesSaturatedLogits) {
  for (const auto& f : kFormats)
    for (const Case& c : tc_cases()) {
      check_softmax(c, 1.0f / std::sqrt(float(c.dk)), sm_runner(f.bf), f.p);
      check_softmax(c, 60.0f, sm_runner(f.bf), f.p);
    }
}
// The mma.sync program (dk, dv <= 128) in each of its four head classes (dk, dv padded to 64 or 128),
// over several 64-key tiles (both cp.async buffers, a 128-row query tile and a ragged last one), and
// the WMMA program that larger heads fall back to.
TEST(TcPrograms, SoftmaxHeadClassesAndTheWmmaFallback) {
  const Case shapes[] = {{1, 2, 300, 64, 64, 64, 0, false}, {1, 1, 150, 40, 100, 64, 0, false},
                         {2, 1, 150, 100, 24, 64, 0, false}, {1, 1, 260, 128, 128, 64, 0, false}};
  for (const auto& f : kFormats)
    for (const Case& c : shapes) {
      SeqDims d;
      d.B = c.B, d.H = c.H, d.T = c.T, d.dk = c.dk, d.dv = c.dv;
      ASSERT_EQ(plan_tc_softmax(d, kSmem).Bq, kMmaSmRows) << str(c);
      check_softmax(c, 1.0f / std::sqrt(float(c.dk)), sm_runner(f.bf), f.p);
    }
  const Case big{1, 1, 130, 160, 144, 64, 0, false};
  SeqDims d;
  d.T = big.T, d.dk = big.dk, d.dv = big.dv;
  ASSERT_EQ(plan_tc_softmax(d, kSmem).Bq, kTcC);  // WMMA, 64-row tiles
  check_softmax(big, 1.0f / std::sqrt(160.0f), sm_runner(true), Precision::bf16);
  check_softmax(big, 0.2f, sm_runner(true), Precision::bf16, false, 1.05);
}

// The host mma: fragments packed by the PTX layout from random 16-bit matrices give C + A B (exact
// products, fp32 sums), and a fragment built with rows g and g + 8 swapped does not.
TEST(TcMma, HostMmaComputesTheProductOfPtxFragments) {
  std::mt19937 g(5);
  std::normal_distribution<float> N(0.f, 1.f);
  float A[16][16], B[16][8], C[16][8];
  for (auto& r : A)
    for (float& x : r) x = to_f32(hbf16_from(N(g)));
  for (auto& r : B)
    for (float& x : r) x = to_f32(hbf16_from(N(g)));
  for (auto& r : C)
    for (float& x : r) x = N(g);
  auto run = [&](bool swap_rows) {
    Lanes<FragA> a;
    Lanes<FragB> b;
    Lanes<SmMmaScores> c;  // c[lane].s[0] is the lane's accumulator fragment
    for (int lane = 0; lane < 32; ++lane) {
      const int gr = lane >> 2, q = lane & 3, r0 = swap_rows ? gr + 8 : gr, r1 = swap_rows ? gr : gr + 8;
      auto p = [&](float lo, float hi) { return pack2(hbf16_from(lo), hbf16_from(hi)); };
      a[lane].x[0] = p(A[r0][2 * q], A[r0][2 * q + 1]);
      a[lane].x[1] = p(A[r1][2 * q], A[r1][2 * q + 1]);
      a[lane].x[2] = p(A[r0][2 * q + 8], A[r0][2 * q + 9]);
      a[lane].x[3] = p(A[r1][2 * q + 8], A[r1][2 * q + 9]);
      b[lane].x[0] = p(B[2 * q][gr], B[2 * q + 1][gr]);
      b[lane].x[1] = p(B[2 * q + 8][gr], B[2 * q + 9][gr]);
      for (int i = 0; i < 4; ++i) c[lane].s[0][i] = C[i < 2 ? gr : gr + 8][2 * q + (i & 1)];
    }
    HostWarp w;
    mma16816<hbf16>(w, [&](int l) { return a[l].x; }, [&](int l) { return b[l].x; }, [&](int l) { return c[l].s[0]; });
    double worst = 0;
    for (int lane = 0; lane < 32; ++lane)
      for (int i = 0; i < 4; ++i) {
        const int r = i < 2 ? (lane >> 2) : (lane >> 2) + 8, col = 2 * (lane & 3) + (i & 1);
        double e = C[r][col];
        for (int k = 0; k < 16; ++k) e += double(A[r][k]) * B[k][col];
        worst = std::max(worst, std::abs(c[lane].s[0][i] - e));
      }
    return worst;
  };
  EXPECT_LT(run(false), 1e-4);  // fp32 sums of 17 terms of size ~1 (magnitude ~5)
  EXPECT_GT(run(true), 1e-1);
}

// The emulator's cp.async: a copy is performed when a phase_async's wait retires its group, not when
// it is issued, so reading a buffer one phase too early sees the poison.
TEST(TcMma, EmulatedAsyncCopiesLandOnlyAtTheirWait) {
  HostCtx ctx{32};
  alignas(16) float src[4] = {1, 2, 3, 4}, src2[4] = {5, 6, 7, 8};
  alignas(16) float dst[4] = {kNaN, kNaN, kNaN, kNaN}, dst2[4] = {kNaN, kNaN, kNaN, kNaN};
  ctx.phase_async([&](int tid, int) { if (tid == 0) ctx.copy16(dst, src); }, 1);
  EXPECT_TRUE(std::isnan(dst[0]));  // in flight: one group may stay pending
  ctx.phase_async([&](int tid, int) { if (tid == 3) ctx.copy16(dst2, src2); }, 1);
  EXPECT_EQ(dst[3], 4.0f);  // the older group retired
  EXPECT_TRUE(std::isnan(dst2[0]));
  ctx.phase_async([](int, int) {}, 0);
  EXPECT_EQ(dst2[2], 7.0f);
  EXPECT_TRUE(ctx.in_flight.empty());
}

// The deltaformer_u op's budget perturbs the solve's intermediates as well as its inputs, so its
// sensitivity is at least 2 u_s per row and the budget at least 1 + 6 x 2 = 13 u_s: 0.6% at f16 but
// 5.1% at bf16 (u_s = 2^-8), even for T = 1 (u = v). f16 therefore carries the 5% discrimination of
// the u-solve (vacuity limit 5%, a 5%-off control below); at bf16 the cases are judged with a
// vacuity limit of 11% and a 15%-off control must fail.
constexpr double kUsBf16WeakLimit = 0.11;
double us_weak(const Storage16& f) { return f.bf ? kUsBf16WeakLimit : 0.0; }
TEST(TcPrograms, USolveMatchesForwardSubstitution) {
  for (const auto& f : kFormats)
    for (const Case& c : tc_cases()) {
      check_u_solve(c, 0.3, us_runner(f.bf), true, f.p, 1.0, kUsBetaMax, us_weak(f));
      check_u_solve(c, 0.6, us_runner(f.bf), true, f.p, 1.0, kUsBetaMax, us_weak(f));
    }
}
// A production head size: dk = dv = 128 (two value tiles of 64 columns), T = 200 (a tail chunk of 8 rows).
TEST(TcPrograms, RealisticHeadSizeBf16) {
  check_linear_attention("gated_linear_attention", kRealistic, GateKind::zeros_mixed, la_runner(true), Precision::bf16);
  check_delta_rule(kRealistic, true, dr_runner(true), true, Precision::bf16);
  check_softmax(kRealistic, 1.0f / std::sqrt(128.0f), sm_runner(true), Precision::bf16);
  check_u_solve(kRealistic, 0.3, us_runner(true), true, Precision::bf16, 1.0, kUsBetaMax, kUsBf16WeakLimit);
  check_u_solve(kRealistic, 0.3, us_runner(false), true, Precision::f16, 1.0, kUsBetaMax);
}

// Negative controls: the budget at bf16 must reject outputs 5% off, and a delta rule fed beta
// shifted by one token; otherwise the checks above could not fail.
TEST(TcPrograms, BudgetRejectsWrongPrograms) {
  const Case c = kCases[6];  // T = 256, d = 32
  const Precision p = Precision::bf16;
  check_linear_attention("gated_linear_attention", c, GateKind::uniform, la_runner(true), p, false, 1.05);
  check_delta_rule(c, true, dr_runner(true), false, p, 1.05);
  check_softmax(c, 0.2f, sm_runner(true), p, false, 1.05);
  check_u_solve(c, 0.3, us_runner(false), false, Precision::f16, 1.05, kUsBetaMax);
  check_u_solve(c, 0.3, us_runner(true), false, p, 1.15, kUsBetaMax, kUsBf16WeakLimit);
  auto shifted = [](const SeqDims& d, const DrPtrs<float>& ptr, int threads) {
    std::vector<float> beta(ptr.beta, ptr.beta + d.B * d.H * d.T);
    std::rotate(beta.rbegin(), beta.rbegin() + 1, beta.rend());
    DrPtrs<float> q = ptr;
    q.beta = beta.data();
    tc_dr<hbf16>(d, q, threads);
  };
  check_delta_rule(c, true, shifted, false, p);
}

// The registry's NaN corners (zero gates at chunk boundaries, underflowing decays, beta = 0, zero
// keys, T = 1, d = 1) at bf16: finite and within budget.
Implementation tc_impl(const std::string& opname) {
  const bool delta = opname.find("delta") != std::string::npos;
  return {opname, "emu.gpu.tc", "host", Precision::bf16, [opname, delta](const TensorMap& in) {
            const Tensor& q = in.at("q");
            const Tensor& v = in.at("v");
            SeqDims d;
            d.B = q.shape[0], d.H = q.shape[1], d.T = q.shape[2], d.dk = int(q.shape[3]), d.dv = int(v.shape[3]), d.C = 64;
            auto qq = to_f(q), kk = to_f(in.at("k")), vv = to_f(v);
            std::vector<float> g, s0, beta, o(std::size_t(d.B * d.H * d.T) * d.dv, kNaN), sf(std::size_t(d.B * d.H) * d.dv * d.dk, kNaN);
            const char* gname = delta ? "log_alpha" : "log_gate";
            if (in.count(gname)) g = to_f(in.at(gname));
            if (in.count("s0")) s0 = to_f(in.at("s0"));
            if (delta) {
              beta = to_f(in.at("beta"));
              DrPtrs<float> p{qq.data(), kk.data(), vv.data(), beta.data(), g.empty() ? nullptr : g.data(), s0.empty() ? nullptr : s0.data(),
                              o.data(), sf.data()};
              tc_dr<hbf16>(d, p, 0);
            } else {
              LaPtrs<float> p{qq.data(), kk.data(), vv.data(), g.empty() ? nullptr : g.data(), s0.empty() ? nullptr : s0.data(), o.data(),
                              sf.data()};
              tc_la<hbf16>(d, p, 0);
            }
            TensorMap out{{"o", to_t({d.B, d.H, d.T, d.dv}, o)}, {"s_final", to_t({d.B, d.H, d.dv, d.dk}, sf)}};
            return out;
          }};
}
TEST(TcPrograms, CornersAreFiniteAndWithinBudget) {
  int judged = 0;
  for (const char* name : {"linear_attention", "gated_linear_attention", "delta_rule", "gated_delta_rule"}) {
    const Implementation impl = tc_impl(name);
    const OpSpec& o = op(name);
    for (const CornerCase& c : nan_corner_cases(o, Precision::bf16)) {
      const Judgement j = judge(make_reference(o, c.in, Precision::bf16), impl.run(c.in));
      for (const auto& oj : j.outputs) EXPECT_EQ(oj.nonfinite, 0u) << name << " " << c.name << ": '" << oj.name << "' NaN/Inf at " << oj.first_nonfinite;
      EXPECT_TRUE(j.pass) << name << " " << c.name << ": " << j.detail;
      ++judged;
    }
  }
  EXPECT_GT(judged, 50);
}

TEST(TcPlans, ValueTilesFitAndLargeShapesUse64BitGrids) {
  SeqDims d;
  d.B = 8, d.H = 16, d.T = 4096, d.dk = 128, d.dv = 128;
  // linear attention, chunk-parallel: passes 1 and 3 over (head, chunk, value tile), pass 2 over the
  // state elements, a workspace of fp32 increments and 16-bit states per chunk
  const LaunchPlan lp = plan_tc_linear_attention(d, kSmem);
  EXPECT_TRUE(lp.chunk_parallel);
  EXPECT_EQ(lp.vt, 64);
  EXPECT_EQ(lp.grid, d.B * d.H * (d.T / kTcC) * 2);
  EXPECT_EQ(lp.grid_scan, d.B * d.H * 2 * (128 * 64 / kLaScanPerBlock));
  EXPECT_LE(lp.smem_bytes, kSmem);
  EXPECT_LE(lp.smem_out, kSmem);
  EXPECT_GE(lp.work_bytes, std::size_t(6) * d.B * d.H * (d.T / kTcC) * 128 * 128);
  // delta rule, chunk-parallel: pass 1 over (head, chunk, value tiles + key tiles), pass 2 over
  // (head, value tile), pass 3 over (head, chunk, value tile)
  const LaunchPlan dp = plan_tc_delta_rule(d, kSmem);
  EXPECT_TRUE(dp.chunk_parallel);
  EXPECT_EQ(dp.vt, 64);
  EXPECT_EQ(dp.grid, d.B * d.H * (d.T / kTcC) * (2 + 2));
  EXPECT_EQ(dp.grid_scan, d.B * d.H * 2);
  EXPECT_EQ(dp.grid_out, d.B * d.H * (d.T / kTcC) * 2);
  for (std::size_t b : {dp.smem_bytes, dp.smem_scan, dp.smem_out}) EXPECT_LE(b, kSmem);
  const LaunchPlan la = plan_tc_linear_attention(d, kSmem, 0, false), dr = plan_tc_delta_rule(d, kSmem, 0, false),
                   us = plan_tc_u_solve(d, kSmem);
  for (const LaunchPlan* p : {&la, &dr, &us}) {
    EXPECT_EQ(p->vt, 64);
    EXPECT_EQ(p->grid, d.B * d.H * 2);
    EXPECT_LE(p->smem_bytes, kSmem);
    EXPECT_EQ(p->threads, p == &dr ? kTcDrThreads : kTcThreads);
  }
  // with the multiprocessor's shared memory given, linear attention narrows its value tile so that
  // two blocks share a multiprocessor; the delta rule keeps its widest tile
  const std::size_t per_sm = 228 * 1024;
  const LaunchPlan la2 = plan_tc_linear_attention(d, kSmem, per_sm, false), dr2 = plan_tc_delta_rule(d, kSmem, per_sm, false);
  EXPECT_EQ(la2.vt, 32);
  EXPECT_LE(2 * (la2.smem_bytes + 1024), per_sm);
  EXPECT_EQ(la2.grid, d.B * d.H * 4);
  EXPECT_EQ(dr2.vt, 64);
  // value tiles are powers of two no wider than dv needs (the programs index them with shifts)
  for (int dv : {1, 5, 16, 17, 32, 33, 48, 64, 96, 100}) {
    d.dv = dv;
    const int vt = plan_tc_linear_attention(d, kSmem).vt;
    EXPECT_TRUE(vt == 16 || vt == 32 || vt == 64) << dv;
    EXPECT_TRUE(vt == 16 || vt < 2 * pad16(dv)) << dv;
  }
  d.dv = 128;
  const LaunchPlan sm = plan_tc_softmax(d, kSmem);  // the mma.sync program: 128-row query tiles, 8 warps
  EXPECT_EQ(sm.grid, d.B * d.H * (d.T / kMmaSmRows));
  EXPECT_EQ(sm.threads, kMmaSmThreads);
  EXPECT_LE(sm.smem_bytes, kSmem);
  d.dk = d.dv = 256;  // the delta rule's state slice no longer fits with 64 columns
  const LaunchPlan sm256 = plan_tc_softmax(d, kSmem);  // WMMA: 64-row query tiles, 4 warps
  EXPECT_EQ(sm256.grid, d.B * d.H * (d.T / kTcC));
  EXPECT_EQ(sm256.threads, kTcSmThreads);
  const LaunchPlan dr256 = plan_tc_delta_rule(d, kSmem, 0, false);
  EXPECT_LT(dr256.vt, 64);
  EXPECT_LE(dr256.smem_bytes, kSmem);
  d.dk = 300;
  EXPECT_THROW(plan_tc_linear_attention(d, kSmem), std::invalid_argument);
  EXPECT_THROW(plan_tc_softmax(d, kSmem), std::invalid_argument);
}

}  // namespace
}  // namespace recall::gpu::testing
