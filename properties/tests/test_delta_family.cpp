// Delta-rule family (delta_rule, gated_delta_rule): every registered kernel against the MP oracle
// under the error budget on generated cases that reach the hard corners (beta |k|^2 at and beyond
// 2, nearly parallel keys within a chunk, beta in {0,1}, gates 0 and 1, T = 1, tails, long T),
// negative controls (wrong kernels must fail the budget), the condition hook, and bad inputs.
#include "product_form_domain.hpp"
#include "rc_knobs.hpp"

#include "recall/optimized/delta_rule.hpp"
#include "recall/properties/agreement.hpp"

#include <gtest/gtest.h>

#include <iostream>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>

namespace recall {
namespace {

std::vector<const Implementation*> impls_of(const std::string& o, Precision p) {
  register_builtin_implementations();
  std::vector<const Implementation*> v;
  for (const auto* i : registry().for_op(o))
    if (i->precision == p) v.push_back(i);
  return v;
}
const Implementation* find_impl(const std::string& o, const std::string& name, Precision p) {
  for (const auto* i : impls_of(o, p))
    if (i->name == name) return i;
  return nullptr;
}

// One case, one precision: oracle and baseline once, every kernel of that precision judged.
// Returns the number of kernels judged; failures are reported through RC_ASSERT / EXPECT.
struct AllOutcome {
  bool pass = true;
  std::string detail;
  double max_kappa_solve = 0;
};
// The product-form inverse is judged on its domain (product_form_domain.hpp).
bool judged_on(const Implementation& impl, const TensorMap& in) {
  return !is_product_form(impl.name) || product_form_in_domain(impl.op, in);
}

AllOutcome judge_inputs(const std::string& opname, const TensorMap& in, Precision p) {
  const OpSpec& o = op(opname);
  o.validate(in);
  const Reference ref = make_reference(o, in, p);
  AllOutcome r;
  r.max_kappa_solve = ref.budget.kappa_solve;
  for (const Implementation* impl : impls_of(opname, p)) {
    if (!judged_on(*impl, in)) continue;
    Judgement j = judge(ref, impl->run(in));
    if (!j.pass) {
      r.pass = false;
      r.detail += impl->name + "/" + precision_name(p) + ": " + j.detail + " @ " + j.kernel.worst_output + j.kernel.worst_index + "\n";
    }
  }
  return r;
}
AllOutcome judge_all(const std::string& opname, const CaseKnobs& k, Precision p) {
  return judge_inputs(opname, op(opname).generate(k, p), p);
}

rc::Gen<CaseKnobs> delta_knobs() {
  using namespace rc;
  return gen::build<CaseKnobs>(
      gen::set(&CaseKnobs::B, gen::inRange(1, 3)), gen::set(&CaseKnobs::H, gen::inRange(1, 3)),
      gen::set(&CaseKnobs::T, gen::oneOf(gen::inRange(1, 20), gen::element(15, 16, 17, 63, 64, 65), gen::inRange(20, 100))),
      gen::set(&CaseKnobs::dk, gen::oneOf(gen::inRange(1, 6), gen::element(8, 16, 17))),
      gen::set(&CaseKnobs::dv, gen::oneOf(gen::inRange(1, 6), gen::element(8, 13))),
      gen::set(&CaseKnobs::scale_exp, gen::inRange(-3, 4)),
      gen::set(&CaseKnobs::keys, gen::element(KeyKind::gaussian, KeyKind::near_zero, KeyKind::near_parallel, KeyKind::correlated,
                                              KeyKind::unit_sphere, KeyKind::integer)),
      gen::set(&CaseKnobs::gates, gen::element(GateKind::uniform, GateKind::ones, GateKind::beta51, GateKind::zeros_mixed,
                                               GateKind::tiny, GateKind::near_one, GateKind::saturating, GateKind::constant)),
      gen::set(&CaseKnobs::initial_state, gen::arbitrary<bool>()),
      gen::set(&CaseKnobs::seed, gen::inRange<std::uint64_t>(1, 1u << 30)),
      gen::set(&CaseKnobs::betas, gen::element(BetaKind::mixed, BetaKind::unit_interval, BetaKind::zero_one, BetaKind::near_two,
                                               BetaKind::beyond_two)));
}

void property_all_kernels(const std::string& opname) {
  const bool ok = rc::check(opname + ": every kernel within budget", [opname] {
    const CaseKnobs k = *delta_knobs();
    const Precision p = *rc::gen::element(Precision::f32, Precision::f64);
    AllOutcome r = judge_all(opname, k, p);
    RC_LOG() << describe(k) << " " << precision_name(p) << "\n" << r.detail;
    RC_ASSERT(r.pass);
  });
  EXPECT_TRUE(ok);
}

TEST(DeltaRule, GeneratedCasesEveryKernelWithinBudget) { property_all_kernels("delta_rule"); }
TEST(GatedDeltaRule, GeneratedCasesEveryKernelWithinBudget) { property_all_kernels("gated_delta_rule"); }

// The hard corners, deterministically, for both precisions.
CaseKnobs knobs(int B, int H, int T, int dk, int dv, KeyKind keys, BetaKind betas, GateKind gates, bool s0, std::uint64_t seed) {
  CaseKnobs k;
  k.B = B; k.H = H; k.T = T; k.dk = dk; k.dv = dv; k.keys = keys; k.betas = betas; k.gates = gates; k.initial_state = s0; k.seed = seed;
  return k;
}
std::vector<CaseKnobs> hard_corners() {
  return {
      knobs(1, 1, 1, 4, 3, KeyKind::gaussian, BetaKind::mixed, GateKind::zeros_mixed, true, 1),           // T = 1
      knobs(1, 1, 64, 8, 8, KeyKind::near_parallel, BetaKind::near_two, GateKind::ones, true, 2),        // edge, parallel keys
      knobs(1, 2, 65, 8, 5, KeyKind::near_parallel, BetaKind::beyond_two, GateKind::near_one, false, 3),  // expansive + tail
      knobs(1, 1, 70, 16, 16, KeyKind::correlated, BetaKind::near_two, GateKind::ones, true, 4),
      knobs(2, 1, 33, 4, 6, KeyKind::unit_sphere, BetaKind::zero_one, GateKind::zeros_mixed, true, 5),   // beta, gates in {0,1}
      knobs(1, 1, 40, 3, 2, KeyKind::integer, BetaKind::zero_one, GateKind::ones, false, 6),             // zero keys possible
      knobs(1, 1, 300, 4, 4, KeyKind::gaussian, BetaKind::mixed, GateKind::beta51, true, 7),             // long T
      knobs(1, 1, 129, 8, 4, KeyKind::near_zero, BetaKind::unit_interval, GateKind::saturating, false, 8),
  };
}
TEST(DeltaRule, HardCornersEveryKernelWithinBudget) {
  for (const std::string opname : {"delta_rule", "gated_delta_rule"})
    for (const CaseKnobs& k : hard_corners())
      for (Precision p : {Precision::f32, Precision::f64}) {
        AllOutcome r = judge_all(opname, k, p);
        EXPECT_TRUE(r.pass) << opname << " " << describe(k) << " " << precision_name(p) << "\n" << r.detail;
      }
}

// Regression (RapidCheck seed 4699866238614310714, case 238): every beta is 0 and the saturating
// gates sum to -114, so s_final = e^-114 S0 ~ 5e-45, a float subnormal of 3.5 spacings. The chunked
// kernels formed exp(-114) alone (0 in float) and returned s_final = 0 (relative error 1.0); no
// float result can be better than the correctly rounded subnormal (relative error 0.14 here, which
// the budget's underflow term covers; 0 is within its 24 spacings too). With the decay sum scaled to
// -103 the product e^-103 S0 ~ 2e-42 is ~1400 spacings: a lone exp(-103) (1 spacing, 24% off) gave
// 4.1e6 u against a budget of 3.3e5 u; the product of normal-range factors rounds once.
TEST(GatedDeltaRule, DecayedInitialStateBelowFloatNormalRangeIsNotFlushed) {
  const CaseKnobs k = knobs(1, 1, 7, 17, 13, KeyKind::near_parallel, BetaKind::zero_one, GateKind::saturating, true, 48444818);
  CaseKnobs k3 = k;
  k3.scale_exp = -3;
  const OpSpec& o = op("gated_delta_rule");
  for (double total : {0.0, -103.0}) {
    TensorMap in = o.generate(k3, Precision::f32);
    double sum = 0;
    for (double g : in["log_alpha"].data) sum += g;
    ASSERT_LT(sum, -104.0);  // the case still reaches below float's subnormal range for exp(sum)
    if (total != 0)
      for (double& g : in["log_alpha"].data) g = static_cast<float>(g * total / sum);
    for (double b : in["beta"].data) ASSERT_EQ(b, 0.0);
    AllOutcome r = judge_inputs("gated_delta_rule", in, Precision::f32);
    EXPECT_TRUE(r.pass) << total << "\n" << r.detail;
    r = judge_inputs("gated_delta_rule", in, Precision::f64);
    EXPECT_TRUE(r.pass) << total << "\n" << r.detail;
    MpTensorMap y;
    {
      MpDigitsScope s(60);
      y = o.oracle(in);
    }
    double ymax = 0;
    for (const mp_t& x : y["s_final"].data) ymax = std::max(ymax, std::fabs(static_cast<double>(x)));
    EXPECT_LT(ymax, 0x1p-126);  // below float's normal range (exact value)
    EXPECT_GT(ymax, 0x1p-149);
    for (const Implementation* impl : impls_of("gated_delta_rule", Precision::f32)) {
      const TensorMap out = impl->run(in);
      double err = 0;
      for (std::size_t i = 0; i < y["s_final"].data.size(); ++i)
        err = std::max(err, std::fabs(out.at("s_final").data[i] - static_cast<double>(y["s_final"].data[i])));
      // within one subnormal spacing (a correctly rounded result is within half of one)
      EXPECT_LE(err, 0x1p-149) << impl->name << " total " << total << " max|s_final| " << ymax;
    }
  }
}

// ---- the condition hook ----
TEST(DeltaRule, ConditionIsOneForOrthogonalKeysAndLargeForParallelKeysAtTheEdge) {
  const OpSpec& o = op("delta_rule");
  // orthonormal keys (rows of the identity): L = I, Skeel condition exactly 1
  CaseKnobs k = knobs(1, 1, 6, 6, 3, KeyKind::gaussian, BetaKind::unit_interval, GateKind::ones, false, 11);
  TensorMap in = o.generate(k, Precision::f64);
  auto& kd = in["k"].data;
  for (int t = 0; t < 6; ++t)
    for (int c = 0; c < 6; ++c) kd[t * 6 + c] = t == c ? 1.0 : 0.0;
  EXPECT_EQ(o.condition(in).first, 1.0);
  EXPECT_EQ(o.condition(in).second, 6.0);
  // nearly parallel keys with beta |k|^2 = 2: L ~ I + 2 tril_{-1}(ones), cond grows like n^2
  k = knobs(1, 1, 64, 8, 3, KeyKind::near_parallel, BetaKind::near_two, GateKind::ones, false, 12);
  const auto [kappa, n] = o.condition(o.generate(k, Precision::f64));
  EXPECT_EQ(n, 64.0);
  EXPECT_GT(kappa, 100.0);
  // expansive steps on parallel keys (beta |k|^2 = 3 at every token): the inverse grows like 2^n
  TensorMap ex = o.generate(k, Precision::f64);
  for (int t = 0; t < 64; ++t) {
    double n2 = 0;
    for (int c = 0; c < 8; ++c) n2 += ex["k"].data[t * 8 + c] * ex["k"].data[t * 8 + c];
    ex["beta"].data[t] = 3.0 / n2;
  }
  EXPECT_GT(o.condition(ex).first, 1e15);
}

// The sensitivity estimate does not blow up for non-expansive steps: at beta |k|^2 = 2 on nearly
// parallel keys (the |inputs| evaluation of the old magnitude bound grew like 3^T), the final
// state's relative sensitivity to u-perturbations of the inputs stays modest at T = 200.
TEST(DeltaRule, SensitivityModestForNonExpansiveSteps) {
  const OpSpec& o = op("delta_rule");
  CaseKnobs k = knobs(1, 1, 200, 4, 4, KeyKind::near_parallel, BetaKind::near_two, GateKind::ones, false, 13);
  TensorMap in = o.generate(k, Precision::f64);
  auto rel_sens = [&](const TensorMap& x) {
    const BudgetInputs b = budget_inputs(o, x, Precision::f32);
    MpTensorMap y;
    {
      MpDigitsScope s(50);
      y = o.oracle(x);
    }
    double ymax = 0, smax = 0;
    for (const mp_t& v : y["s_final"].data) ymax = std::max(ymax, std::fabs(static_cast<double>(v)));
    for (double v : b.sens.at("s_final").data) smax = std::max(smax, v);
    return smax / (unit_roundoff(Precision::f32) * ymax);
  };
  const double nonexp = rel_sens(in);
  EXPECT_LT(nonexp, 200.0);  // at most linear in T with a modest constant
  EXPECT_GT(nonexp, 0.1);
}

// ---- negative controls: the budget is not vacuous ----
TEST(DeltaRuleNegative, BetaAppliedOneTokenLateFails) {
  for (const std::string opname : {"delta_rule", "gated_delta_rule"})
    for (Precision p : {Precision::f32, Precision::f64}) {
      const Implementation* good = find_impl(opname, "cpu.chunked.c64", p);
      ASSERT_NE(good, nullptr);
      Implementation bad{opname, "bad.late_beta", "test", p,
                         [good](const TensorMap& in) {
                           TensorMap r = in;
                           auto& b = r["beta"].data;
                           const auto T = static_cast<std::size_t>(r["beta"].shape[2]);
                           for (std::size_t h = 0; h < b.size() / T; ++h)
                             for (std::size_t t = T; t-- > 1;) b[h * T + t] = b[h * T + t - 1];
                           return good->run(r);
                         },
                         ""};
      for (BetaKind bk : {BetaKind::unit_interval, BetaKind::near_two}) {
        CaseKnobs k = knobs(1, 1, 40, 4, 3, KeyKind::gaussian, bk, GateKind::uniform, true, 99);
        EXPECT_FALSE(run_case(bad, k).judgement.pass) << opname << " " << precision_name(p);
        EXPECT_TRUE(run_case(*good, k).judgement.pass) << opname << " " << precision_name(p);
      }
    }
}

TEST(DeltaRuleNegative, FloatKernelRegisteredAsDoubleFails) {
  for (const std::string opname : {"delta_rule", "gated_delta_rule"}) {
    const Implementation* f32 = find_impl(opname, "cpu.chunked.c16", Precision::f32);
    ASSERT_NE(f32, nullptr);
    Implementation bad{opname, "bad.float_as_double", "test", Precision::f64,
                       [f32](const TensorMap& in) { TensorMap r = in; round_to(r, Precision::f32); return f32->run(r); }, ""};
    for (const CaseKnobs& k : hard_corners()) {
      if (k.T < 16) continue;  // (T = 1 with a zero gate may be exact in float)
      EXPECT_FALSE(run_case(bad, k).judgement.pass) << opname << " " << describe(k);
    }
  }
}

// Decay placement T (leaky LMS: the prediction uses S_{t-1}, not alpha_t S_{t-1}) in place of G.
TEST(DeltaRuleNegative, WrongDecayPlacementFails) {
  Implementation bad{"gated_delta_rule", "bad.placement_T", "test", Precision::f64,
                     [](const TensorMap& in) {
                       const auto& sh = in.at("q").shape;
                       const std::int64_t BH = sh[0] * sh[1], T = sh[2], dk = sh[3], dv = in.at("v").shape[3];
                       TensorMap out;
                       out["o"].shape = {sh[0], sh[1], T, dv};
                       out["o"].data.assign(static_cast<std::size_t>(BH * T * dv), 0.0);
                       out["s_final"].shape = {sh[0], sh[1], dv, dk};
                       out["s_final"].data.assign(static_cast<std::size_t>(BH * dv * dk), 0.0);
                       for (std::int64_t h = 0; h < BH; ++h) {
                         double* S = out["s_final"].data.data() + h * dv * dk;
                         if (auto it = in.find("s0"); it != in.end()) std::copy_n(it->second.data.begin() + h * dv * dk, dv * dk, S);
                         for (std::int64_t t = 0; t < T; ++t) {
                           const std::size_t row = static_cast<std::size_t>(h * T + t);
                           const double* q = in.at("q").data.data() + row * dk;
                           const double* k = in.at("k").data.data() + row * dk;
                           const double* v = in.at("v").data.data() + row * dv;
                           const double b = in.at("beta").data[row], al = std::exp(in.at("log_alpha").data[row]);
                           std::vector<double> e(dv);
                           for (std::int64_t r = 0; r < dv; ++r) {
                             double p = 0;
                             for (std::int64_t c = 0; c < dk; ++c) p += S[r * dk + c] * k[c];
                             e[r] = b * (v[r] - p);  // wrong: should be v - alpha S k
                           }
                           for (std::int64_t r = 0; r < dv; ++r) {
                             double o = 0;
                             for (std::int64_t c = 0; c < dk; ++c) {
                               S[r * dk + c] = al * S[r * dk + c] + e[r] * k[c];
                               o += S[r * dk + c] * q[c];
                             }
                             out["o"].data[row * dv + r] = o;
                           }
                         }
                       }
                       return out;
                     },
                     ""};
  CaseKnobs k = knobs(1, 1, 40, 4, 3, KeyKind::gaussian, BetaKind::unit_interval, GateKind::uniform, true, 7);
  EXPECT_FALSE(run_case(bad, k).judgement.pass);
  k.gates = GateKind::ones;  // alpha = 1: the two placements coincide, the wrong kernel is right
  EXPECT_TRUE(run_case(bad, k).judgement.pass);
}

// ---- bad inputs ----
TEST(DeltaRule, RejectsBadInputsNamingTensorAndIndex) {
  const OpSpec& o = op("gated_delta_rule");
  CaseKnobs k = knobs(1, 1, 5, 2, 3, KeyKind::gaussian, BetaKind::unit_interval, GateKind::uniform, true, 3);
  auto expect_msg = [&](const TensorMap& in, const std::string& msg) {
    try {
      o.validate(in);
      ADD_FAILURE() << "accepted; expected: " << msg;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(msg), std::string::npos) << e.what();
    }
  };
  TensorMap in = o.generate(k, Precision::f64);
  EXPECT_NO_THROW(o.validate(in));
  in["beta"].data[3] = std::nan("");
  expect_msg(in, "'beta' has NaN at index (1,1,4)");
  in = o.generate(k, Precision::f64);
  in["beta"].data[1] = std::numeric_limits<double>::infinity();
  expect_msg(in, "'beta'");
  in = o.generate(k, Precision::f64);
  in["log_alpha"].data[2] = 0.25;
  expect_msg(in, "'log_alpha' is positive at (1,1,3)");
  in = o.generate(k, Precision::f64);
  in["log_alpha"].data[2] = std::nan("");
  expect_msg(in, "'log_alpha'");
  in = o.generate(k, Precision::f64);
  in["log_alpha"].data[2] = -std::numeric_limits<double>::infinity();  // a reset is legal
  EXPECT_NO_THROW(o.validate(in));
  in["beta"].shape = {1, 1, 4};
  expect_msg(in, "'beta'");
  in = o.generate(k, Precision::f64);
  in["s0"].shape = {1, 1, 2, 3};
  expect_msg(in, "'s0'");
  in = o.generate(k, Precision::f64);
  in.erase("beta");
  EXPECT_THROW(o.validate(in), std::invalid_argument);
  in = o.generate(k, Precision::f64);
  in["k"].data[0] = -std::numeric_limits<double>::infinity();
  expect_msg(in, "'k'");
  // the kernels' own argument checks
  std::vector<float> x(8, 1.0f), y(8);
  opt::DeltaRuleArgs<float> a;
  a.T = 2; a.dk = 2; a.dv = 2; a.q = a.k = a.v = x.data(); a.o = y.data();
  EXPECT_THROW(opt::delta_rule_chunked(a), std::invalid_argument);  // beta null
  a.beta = x.data();
  EXPECT_NO_THROW(opt::delta_rule_chunked(a));
  a.chunk = 0;
  EXPECT_THROW(opt::delta_rule_chunked(a), std::invalid_argument);
  a.dk = 0;
  EXPECT_THROW(opt::delta_rule_recurrent(a), std::invalid_argument);
}

// gated_delta_rule with every gate 1 is delta_rule; a zero gate resets the memory exactly.
TEST(GatedDeltaRule, GateOneIsDeltaRuleAndZeroGateResets) {
  for (Precision p : {Precision::f32, Precision::f64})
    for (const char* name : {"cpu.recurrent", "cpu.chunked.c16", "cpu.chunked.c64", "cpu.chunked.c64.prodinv"}) {
      const Implementation* g = find_impl("gated_delta_rule", name, p);
      const Implementation* d = find_impl("delta_rule", name, p);
      ASSERT_TRUE(g && d);
      CaseKnobs k = knobs(1, 2, 37, 5, 4, KeyKind::gaussian, BetaKind::mixed, GateKind::ones, true, 21);
      TensorMap in = op("gated_delta_rule").generate(k, p);
      TensorMap ig = in, id = in;
      id.erase("log_alpha");
      EXPECT_EQ(g->run(ig).at("o").data, d->run(id).at("o").data) << name;
      // reset at the last token of the second head: s_final is then beta v k^T of that token alone
      ig["log_alpha"].data[2 * 37 - 1] = -std::numeric_limits<double>::infinity();
      const TensorMap out = g->run(ig);
      const std::size_t row = 2 * 37 - 1;
      const double b = ig.at("beta").data[row];
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 5; ++c) {
          const double want = b * ig.at("v").data[row * 4 + r] * ig.at("k").data[row * 5 + c];
          EXPECT_NEAR(out.at("s_final").data[(1 * 4 + r) * 5 + c], want, 8 * unit_roundoff(p) * (std::fabs(want) + 1e-300)) << name;
        }
    }
}

}  // namespace
}  // namespace recall
