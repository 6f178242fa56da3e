// Device tests of gpu/ (label gpu): the CUDA kernels through their host entry points, judged by
// the same harness as the host emulation (MP oracle, error budget, tails, zero gates, saturated
// logits). Outputs are NaN-poisoned on the device before each launch, so an element no thread
// writes fails. Without a device every test skips, saying why.
#include "harness.hpp"
#include "recall/gpu/device.hpp"
#include "recall/gpu/kernels.hpp"
#include "recall/properties/corners.hpp"
#include "recall/properties/registry.hpp"

namespace recall::gpu::testing {
namespace {

#define RECALL_NEED_DEVICE()                                              \
  do {                                                                    \
    std::string why;                                                      \
    if (device_count(&why) == 0) GTEST_SKIP() << "no CUDA device: " << why; \
    RecordProperty("device", device_name());                              \
  } while (0)

void dev_la(const SeqDims& d, const LaPtrs<float>& p, int) {
  opt::LinearAttentionArgs<float> a;
  a.B = int(d.B), a.H = int(d.H), a.T = int(d.T), a.dk = d.dk, a.dv = d.dv, a.chunk = d.C;
  a.q = p.q, a.k = p.k, a.v = p.v, a.log_gate = p.log_gate, a.s0 = p.s0, a.o = p.o, a.s_final = p.s_final;
  linear_attention_chunked(a);
}
void dev_dr(const SeqDims& d, const DrPtrs<float>& p, int) {
  DeltaRuleArgs a;
  a.B = int(d.B), a.H = int(d.H), a.T = int(d.T), a.dk = d.dk, a.dv = d.dv, a.chunk = d.C;
  a.q = p.q, a.k = p.k, a.v = p.v, a.beta = p.beta, a.log_alpha = p.log_gate, a.s0 = p.s0, a.o = p.o, a.s_final = p.s_final;
  delta_rule_chunked(a);
}
void dev_sm(const SeqDims& d, const SmPtrs<float>& p, float scale, int) {
  SoftmaxArgs a;
  a.B = int(d.B), a.H = int(d.H), a.T = int(d.T), a.dk = d.dk, a.dv = d.dv, a.tile = d.C;
  a.q = p.q, a.k = p.k, a.v = p.v, a.o = p.o, a.scale = scale;
  softmax_attention_tiled(a);
}

void dev_us(const SeqDims& d, const UsPtrs<float>& p, float inv_tau, int) {
  USolveArgs a;
  a.B = int(d.B), a.H = int(d.H), a.T = int(d.T), a.dk = d.dk, a.dv = d.dv, a.chunk = d.C;
  a.k = p.k, a.v = p.v, a.beta = p.beta, a.u = p.u, a.tau = 1.0f / inv_tau;
  u_solve_chunked(a);
}

// Tensor-core kernels (Engine::tensor_core): inputs already rounded to the storage type by the harness.
Storage storage_of(Precision p) { return p == Precision::bf16 ? Storage::bf16 : Storage::f16; }
LaRunner tc_la(Precision prec) {
  return [prec](const SeqDims& d, const LaPtrs<float>& p, int) {
    opt::LinearAttentionArgs<float> a;
    a.B = int(d.B), a.H = int(d.H), a.T = int(d.T), a.dk = d.dk, a.dv = d.dv, a.chunk = 64;
    a.q = p.q, a.k = p.k, a.v = p.v, a.log_gate = p.log_gate, a.s0 = p.s0, a.o = p.o, a.s_final = p.s_final;
    linear_attention_chunked(a, storage_of(prec), Engine::tensor_core);
  };
}
DrRunner tc_dr(Precision prec) {
  return [prec](const SeqDims& d, const DrPtrs<float>& p, int) {
    DeltaRuleArgs a;
    a.B = int(d.B), a.H = int(d.H), a.T = int(d.T), a.dk = d.dk, a.dv = d.dv, a.chunk = 64;
    a.q = p.q, a.k = p.k, a.v = p.v, a.beta = p.beta, a.log_alpha = p.log_gate, a.s0 = p.s0, a.o = p.o, a.s_final = p.s_final;
    delta_rule_chunked(a, storage_of(prec), Engine::tensor_core);
  };
}
SmRunner tc_sm(Precision prec) {
  return [prec](const SeqDims& d, const SmPtrs<float>& p, float scale, int) {
    SoftmaxArgs a;
    a.B = int(d.B), a.H = int(d.H), a.T = int(d.T), a.dk = d.dk, a.dv = d.dv, a.tile = 64;
    a.q = p.q, a.k = p.k, a.v = p.v, a.o = p.o, a.scale = scale;
    softmax_attention_tiled(a, storage_of(prec), Engine::tensor_core);
  };
}
UsRunner tc_us(Precision prec) {
  return [prec](const SeqDims& d, const UsPtrs<float>& p, float inv_tau, int) {
    USolveArgs a;
    a.B = int(d.B), a.H = int(d.H), a.T = int(d.T), a.dk = d.dk, a.dv = d.dv, a.chunk = 64;
    a.k = p.k, a.v = p.v, a.beta = p.beta, a.u = p.u, a.tau = 1.0f / inv_tau;
    u_solve_chunked(a, storage_of(prec), Engine::tensor_core);
  };
}
const Precision kHalf[] = {Precision::bf16, Precision::f16};
std::vector<Case> tc_cases() {
  std::vector<Case> cs = kCases;
  cs.push_back({1, 1, 200, 128, 128, 64, 0, true});  // production head size, 8-row tail
  cs.push_back({2, 2, 333, 64, 96, 64, 0, true});     // value tiles of 64 + 32, 13-row tail
  return cs;
}

TEST(GpuDevice, TensorCoreLinearAttentionMatchesReference) {
  RECALL_NEED_DEVICE();
  for (Precision p : kHalf)
    for (const Case& c : tc_cases()) {
      check_linear_attention("linear_attention", c, GateKind::uniform, tc_la(p), p);
      check_linear_attention("gated_linear_attention", c, GateKind::zeros_mixed, tc_la(p), p);
    }
}
TEST(GpuDevice, TensorCoreDeltaRuleMatchesReference) {
  RECALL_NEED_DEVICE();
  for (Precision p : kHalf)
    for (const Case& c : tc_cases()) {
      check_delta_rule(c, false, tc_dr(p), true, p);
      check_delta_rule(c, true, tc_dr(p), true, p);
    }
}
TEST(GpuDevice, TensorCoreSoftmaxMatchesReference) {
  RECALL_NEED_DEVICE();
  for (Precision p : kHalf)
    for (const Case& c : tc_cases()) {
      check_softmax(c, 1.0f / std::sqrt(float(c.dk)), tc_sm(p), p);
      check_softmax(c, 60.0f, tc_sm(p), p);
    }
  // the mma.sync program's four head classes and the WMMA program of larger heads (dk = 160)
  const Case shapes[] = {{1, 2, 300, 64, 64, 64, 0, false}, {1, 1, 150, 40, 100, 64, 0, false}, {2, 1, 150, 100, 24, 64, 0, false},
                         {1, 1, 260, 128, 128, 64, 0, false}, {1, 1, 130, 160, 144, 64, 0, false}};
  for (Precision p : kHalf)
    for (const Case& c : shapes) check_softmax(c, 1.0f / std::sqrt(float(c.dk)), tc_sm(p), p);
}
TEST(GpuDevice, TensorCoreUSolveMatchesForwardSubstitution) {
  RECALL_NEED_DEVICE();
  // beta <= 0.1 and the bf16 vacuity limit of 11%: see gpu/tests/test_tc_programs.cpp
  for (Precision p : kHalf)
    for (const Case& c : tc_cases()) check_u_solve(c, 0.3, tc_us(p), true, p, 1.0, 0.1, p == Precision::bf16 ? 0.11 : 0.0);
}
TEST(GpuDevice, TensorCoreBudgetRejectsFivePercentErrors) {
  RECALL_NEED_DEVICE();
  const Case c = kCases[6];
  check_linear_attention("gated_linear_attention", c, GateKind::uniform, tc_la(Precision::bf16), Precision::bf16, false, 1.05);
  check_delta_rule(c, true, tc_dr(Precision::bf16), false, Precision::bf16, 1.05);
  check_softmax(c, 0.2f, tc_sm(Precision::bf16), Precision::bf16, false, 1.05);
  check_u_solve(c, 0.3, tc_us(Precision::f16), false, Precision::f16, 1.05, 0.1);
}
// A sequence in the thousands at a production head size (one head: the MP oracle is the cost).
TEST(GpuDevice, TensorCoreLongSequenceBf16) {
  RECALL_NEED_DEVICE();
  const Case c{1, 1, 1000, 128, 128, 64, 0, true};
  check_delta_rule(c, true, tc_dr(Precision::bf16), true, Precision::bf16);
  check_softmax(c, 1.0f / std::sqrt(128.0f), tc_sm(Precision::bf16), Precision::bf16);
}

// Issue 15 item 3 on the device: every registered CUDA row (SIMT f32 and tensor-core bf16/f16) on
// every corner of nan_corner_cases (-inf and 0 gates at t = 1, t = T, chunk boundaries, mid-chunk and
// everywhere; underflowing decays; beta = 0; zero keys; T = 1 and chunk +- 1 with d = 1): outputs
// finite and within the budget wherever the reference is finite, as Corners.* judges the CPU rows.
TEST(GpuDevice, EveryCudaRowIsFiniteAndWithinBudgetOnTheCorners) {
  RECALL_NEED_DEVICE();
  register_builtin_implementations();
  int judged = 0;
  for (const OpSpec& o : ops())
    for (const Implementation* i : registry().for_op(o.name)) {
      if (i->device.rfind("cuda", 0) != 0) continue;
      for (const CornerCase& c : nan_corner_cases(o, i->precision)) {
        SCOPED_TRACE(o.name + " " + i->name + " " + precision_name(i->precision) + ": " + c.name);
        if (o.judged_domain && !o.judged_domain(c.in, i->precision).empty()) continue;
        const Reference ref = make_reference(o, c.in, i->precision);
        if (!outside_storage_range(ref, c.in, i->precision).empty()) continue;  // 16-bit overflow: no correct kernel exists
        const Judgement j = judge(ref, i->run(c.in));
        for (const auto& oj : j.outputs)
          EXPECT_EQ(oj.nonfinite, 0u) << "output '" << oj.name << "' has " << oj.nonfinite << " NaN/Inf values, first at " << oj.first_nonfinite;
        EXPECT_TRUE(j.pass) << j.detail;
        ++judged;
      }
    }
  EXPECT_GT(judged, 100);  // 4 SIMT rows + 10 tensor-core rows, ~15 corners each
}

TEST(GpuDevice, SmokeKernelRoundTrip) {
  RECALL_NEED_DEVICE();
  EXPECT_EQ(smoke_test(1000003), 0);
}
TEST(GpuDevice, LinearAttentionMatchesReference) {
  RECALL_NEED_DEVICE();
  for (const Case& c : kCases) {
    check_linear_attention("linear_attention", c, GateKind::uniform, dev_la);
    check_linear_attention("gated_linear_attention", c, GateKind::zeros_mixed, dev_la);
  }
}
TEST(GpuDevice, DeltaRuleMatchesReference) {
  RECALL_NEED_DEVICE();
  for (const Case& c : kCases) {
    check_delta_rule(c, false, dev_dr);
    check_delta_rule(c, true, dev_dr);
  }
}
TEST(GpuDevice, TiledSoftmaxMatchesReference) {
  RECALL_NEED_DEVICE();
  for (const Case& c : kCases) {
    check_softmax(c, 1.0f / std::sqrt(float(c.dk)), dev_sm);
    check_softmax(c, 60.0f, dev_sm);
  }
}
TEST(GpuDevice, USolveMatchesForwardSubstitution) {
  RECALL_NEED_DEVICE();
  for (const Case& c : kCases) {
    check_u_solve(c, 0.3, dev_us);
    check_u_solve(c, 0.6, dev_us);
  }
}
TEST(GpuDevice, HalfAndBfloatInputsRunAndStayFinite) {
  RECALL_NEED_DEVICE();
  // bf16/f16 storage: the kernels round the inputs; here we check the path end to end (finite,
  // every element written); agreement at the storage precision is judged in the report.
  const int B = 1, H = 2, T = 77, d = 32;
  std::vector<float> q(B * H * T * d, 0.1f), k(q.size(), 0.2f), v(q.size(), 0.3f), o(q.size());
  for (Storage s : {Storage::f16, Storage::bf16}) {
    SoftmaxArgs a;
    a.B = B, a.H = H, a.T = T, a.dk = d, a.dv = d, a.q = q.data(), a.k = k.data(), a.v = v.data(), a.o = o.data();
    softmax_attention_tiled(a, s);
    for (float x : o) ASSERT_TRUE(std::isfinite(x)) << storage_name(s);
    // softmax of equal logits is the mean of the values: exactly the stored value of 0.3
    const float v_stored = s == Storage::bf16 ? 0.30078125f : 0.300048828125f;  // 0.3 rounded to bf16 / f16
    for (float x : o) ASSERT_NEAR(x, v_stored, 1e-6f) << storage_name(s);
  }
}

}  // namespace
}  // namespace recall::gpu::testing
