// Device tests of gpu/ (label gpu): the CUDA kernels through their host entry points, judged by
// the same harness as the host emulation (MP oracle, error budget, tails, zero gates, saturated
// logits). Outputs are NaN-poisoned on the device before each launch, so an element no thread
// writes fails. Without a device every test skips, saying why.
#include "harness.hpp"
#include "recall/gpu/device.hpp"
#include "recall/gpu/kernels.hpp"

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
