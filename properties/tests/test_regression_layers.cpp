// The test-time-regression layers as registry ops (least_squares_attention, weighted_least_squares_attention,
// local_linear_attention): their references against the SVD pseudo-inverse definitions, their kernels under
// the error budget at sizes they run at, wrong kernels rejected, and the near-singular prefixes (t near d_k)
// reported as not discriminating instead of passing silently.
#include "recall/optimized/regression.hpp"
#include "recall/properties/budget.hpp"
#include "recall/properties/registry.hpp"
#include "recall/reference/local_regression.hpp"
#include "recall/reference/regression_layers.hpp"
#include "recall/reference/svd.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace recall {
namespace {

using ref::Matrix;

Matrix<mp_t> gauss_mp(std::size_t r, std::size_t c, std::mt19937_64& g, double scale = 1.0) {
  std::normal_distribution<double> n;
  Matrix<mp_t> m(r, c);
  for (auto& x : m.a) x = scale * n(g);
  return m;
}

// y_t = V_t^T (K_t^+)^T q_t (A001-LS-CLOSED-FORM's definition, SVD pseudo-inverse) at every t, weights
// exp(segment sums) applied as Gamma^{1/2} (A001-WLS-CLOSED-FORM).
Matrix<mp_t> ls_by_pinv(const Matrix<mp_t>& Q, const Matrix<mp_t>& K, const Matrix<mp_t>& V, const ref::Vector<mp_t>* lg) {
  Matrix<mp_t> O(Q.rows, V.cols);
  for (std::size_t t = 1; t <= Q.rows; ++t) {
    Matrix<mp_t> Kw(t, K.cols), Vw(t, V.cols);
    for (std::size_t i = 0; i < t; ++i) {
      const mp_t w = lg ? mp_t(sqrt(ref::exp_log(ref::segment_log_sum(*lg, i, t - 1)))) : mp_t(1);
      for (std::size_t j = 0; j < K.cols; ++j) Kw(i, j) = w * K(i, j);
      for (std::size_t j = 0; j < V.cols; ++j) Vw(i, j) = w * V(i, j);
    }
    const Matrix<mp_t> M = ref::matmul(ref::transpose(Vw), ref::transpose(ref::pinv(Kw)));
    ref::matvec_into(O.row(t - 1), M, Q.row(t - 1));
  }
  return O;
}

TEST(LeastSquaresAttentionReference, PrintedBranchesEqualThePseudoInverseDefinitionAtEveryT) {
  MpDigitsScope sc(60);
  std::mt19937_64 g(7);
  for (int gated = 0; gated < 2; ++gated)
    for (auto [T, dk, dv] : {std::tuple{9, 4, 3}, {5, 5, 2}, {12, 3, 1}}) {
      const auto Q = gauss_mp(T, dk, g), K = gauss_mp(T, dk, g), V = gauss_mp(T, dv, g);
      ref::Vector<mp_t> lg(T);
      std::uniform_real_distribution<double> u(0.05, 1.0);
      for (int t = 0; t < T; ++t) lg[t] = mp_t(std::log(u(g)));
      if (gated) lg[T / 2] = -std::numeric_limits<mp_t>::infinity();  // a reset mid-sequence
      const auto r = ref::least_squares_attention(Q, K, V, gated ? &lg : nullptr);
      const auto p = ls_by_pinv(Q, K, V, gated ? &lg : nullptr);
      EXPECT_LT(static_cast<double>(ref::frob_diff(r.O, p)), 1e-45) << "gated " << gated << " T " << T << " dk " << dk;
    }
}

TEST(LocalLinearAttentionReference, PrintedFormEqualsTheSvdDirectForm) {
  MpDigitsScope sc(60);
  std::mt19937_64 g(11);
  const std::size_t T = 14, dk = 3, dv = 2;
  const auto Q = gauss_mp(T, dk, g, 0.5), K = gauss_mp(T, dk, g, 0.5), V = gauss_mp(T, dv, g);
  const auto a = ref::local_linear_attention_printed(Q, K, V);
  const auto b = ref::local_linear_attention(Q, K, V, ref::sim_dot_exp(0), ref::pinv_policy());
  EXPECT_LT(static_cast<double>(ref::frob_diff(a, b)), 1e-40);
}

// Rank-deficient prefixes (all keys parallel: S_t singular from t = 2 on) take the pseudo-inverse definition.
TEST(LeastSquaresAttentionReference, RankDeficientPrefixesTakeThePseudoInverse) {
  MpDigitsScope sc(60);
  std::mt19937_64 g(5);
  const auto Q = gauss_mp(6, 3, g), V = gauss_mp(6, 2, g);
  Matrix<mp_t> K(6, 3);
  for (std::size_t t = 0; t < 6; ++t)
    for (std::size_t j = 0; j < 3; ++j) K(t, j) = mp_t(static_cast<double>(t + 1)) * mp_t(static_cast<double>(j + 2));
  K(3, 0) = 0; K(3, 1) = 0; K(3, 2) = 0;  // and one zero key
  const auto r = ref::least_squares_attention(Q, K, V);
  EXPECT_LT(static_cast<double>(ref::frob_diff(r.O, ls_by_pinv(Q, K, V, nullptr))), 1e-45);
}

// ---- kernels under the budget ----

struct Outcome {
  bool all_pass = true, discriminating = true;
  double max_budget_rel = 0;
  std::string detail;
};
Outcome judge_all(const std::string& opname, const TensorMap& in, Precision p, const std::function<TensorMap(const TensorMap&)>& extra = {}) {
  register_builtin_implementations();
  const Reference ref = make_reference(op(opname), in, p);
  Outcome o;
  auto one = [&](const TensorMap& out, const std::string& name) {
    const Judgement j = judge(ref, out);
    o.all_pass &= j.pass;
    o.discriminating &= j.discriminating;
    o.max_budget_rel = std::max(o.max_budget_rel, j.budget_rel);
    if (!j.pass || !j.discriminating) o.detail += name + ": " + j.detail + "\n";
  };
  if (extra) {
    one(extra(in), "extra");
    return o;
  }
  for (const Implementation* i : registry().for_op(opname))
    if (i->precision == p) one(i->run(in), i->name);
  return o;
}

CaseKnobs realistic(int T, int d, std::uint64_t seed) {
  CaseKnobs k;
  k.T = T;
  k.dk = k.dv = d;
  k.keys = KeyKind::gaussian;
  k.gates = GateKind::near_one;
  k.seed = seed;
  return k;
}

// At T = 512, d = 32 (d_k-dimensional keys, most prefixes well overdetermined): every kernel within its
// budget in f64, f32 and bf16 storage, and the budget discriminating (not an all-pass).
TEST(LeastSquaresAttentionKernels, WithinBudgetAtT512D32) {
  for (const char* opname : {"least_squares_attention", "weighted_least_squares_attention"})
    for (Precision p : {Precision::f64, Precision::f32, Precision::bf16}) {
      const TensorMap in = op(opname).generate(realistic(512, 32, 5), p);
      const Outcome o = judge_all(opname, in, p);
      EXPECT_TRUE(o.all_pass) << opname << " " << precision_name(p) << "\n" << o.detail;
    }
}

// Wrong kernels of the kind a regression layer gets wrong: the solve skipped (linear attention's R_t q_t:
// "K^T K = I"), the newest key left out of the moments, a ridge of 1e-3 relative added to S_t. Each is
// rejected in f32 at T = 256, d = 32.
TEST(LeastSquaresAttentionKernels, WrongKernelsAreRejected) {
  const std::string opname = "weighted_least_squares_attention";
  const TensorMap in = op(opname).generate(realistic(256, 32, 9), Precision::f32);
  const auto [B, H, Tn, dk, dv] = std::tuple{1, 1, 256, 32, 32};
  auto base = [&](const TensorMap& x) {
    std::vector<float> q(x.at("q").data.begin(), x.at("q").data.end()), k(x.at("k").data.begin(), x.at("k").data.end()),
        v(x.at("v").data.begin(), x.at("v").data.end()), g(x.at("log_gate").data.begin(), x.at("log_gate").data.end());
    return std::tuple{q, k, v, g};
  };
  // (a) no solve: gated linear attention's output
  auto no_solve = [&](const TensorMap& x) {
    auto [q, k, v, g] = base(x);
    std::vector<double> o(Tn * dv);
    std::vector<double> R(dv * dk, 0.0);
    for (int t = 0; t < Tn; ++t) {
      const double a = std::exp(static_cast<double>(g[t]));
      for (double& r : R) r *= a;
      for (int i = 0; i < dv; ++i)
        for (int j = 0; j < dk; ++j) R[i * dk + j] += v[t * dv + i] * k[t * dk + j];
      for (int i = 0; i < dv; ++i) {
        double s = 0;
        for (int j = 0; j < dk; ++j) s += R[i * dk + j] * q[t * dk + j];
        o[t * dv + i] = static_cast<float>(s);
      }
    }
    TensorMap out = registry().for_op(opname)[0]->run(x);
    out["o"].data = o;
    return out;
  };
  // (b) the newest key left out of the moments: the kernel run on inputs whose keys are shifted one token
  auto stale = [&](const TensorMap& x) {
    TensorMap y = x;
    auto& kk = y.at("k").data;
    for (int t = Tn - 1; t >= 1; --t)
      for (int j = 0; j < dk; ++j) kk[t * dk + j] = kk[(t - 1) * dk + j];
    TensorMap out;
    for (const Implementation* i : registry().for_op(opname))
      if (i->precision == Precision::f32) out = i->run(y);
    return out;
  };
  // (c) an unrequested ridge: the output shrunk by 0.1% (S_t + 1e-3 |S_t| I acts on y like a ~0.1% shrink)
  auto ridge = [&](const TensorMap& x) {
    TensorMap out;
    for (const Implementation* i : registry().for_op(opname))
      if (i->precision == Precision::f32) out = i->run(x);
    for (double& y : out.at("o").data) y = static_cast<float>(y * (1 - 1e-3));
    return out;
  };
  for (auto [name, f] : {std::pair<const char*, std::function<TensorMap(const TensorMap&)>>{"no solve", no_solve}, {"stale key", stale}, {"ridge", ridge}}) {
    const Outcome o = judge_all(opname, in, Precision::f32, f);
    EXPECT_FALSE(o.all_pass) << name << " passed";
  }
}

// Near-singular prefixes: keys drawn in a d_k - 1 dimensional subspace plus 1e-3 noise make S_t nearly
// singular at every t. In bf16 storage the budget (sensitivity by perturbed re-evaluation) must then say it
// cannot discriminate (budget above 5% relative or "not discriminating"), not pass an arbitrary kernel
// silently (OpSpec::judged_domain); in f64 the same case is judged and discriminates.
TEST(LeastSquaresAttentionKernels, NearSingularPrefixesAreReportedNotDiscriminating) {
  const std::string opname = "least_squares_attention";
  CaseKnobs k = realistic(40, 8, 21);
  TensorMap in = op(opname).generate(k, Precision::f64);
  auto& kk = in.at("k").data;
  std::mt19937_64 g(3);
  std::normal_distribution<double> n;
  for (int t = 0; t < 40; ++t) kk[t * 8 + 7] = 1e-3 * n(g);  // last coordinate nearly absent
  TensorMap in16 = in;
  round_to(in16, Precision::bf16);
  // bf16 storage, f32 accumulation: outside the judged domain (cond(S_t) u_f32 > 1e-2), said in words
  const std::string why = op(opname).judged_domain(in16, Precision::bf16);
  EXPECT_NE(why.find("condition"), std::string::npos) << why;
  if (why.empty()) {
    const Outcome weak = judge_all(opname, in16, Precision::bf16);
    EXPECT_TRUE(!weak.discriminating || weak.max_budget_rel > weak_budget_rel(Precision::bf16)) << weak.detail;
  }
  EXPECT_EQ(op(opname).judged_domain(in, Precision::f64), "");
  const Outcome strong = judge_all(opname, in, Precision::f64);
  EXPECT_TRUE(strong.all_pass) << strong.detail;
  EXPECT_TRUE(strong.discriminating);
  EXPECT_LT(strong.max_budget_rel, weak_budget_rel(Precision::f64));
  const auto cond = op(opname).condition(in);
  EXPECT_GT(cond.first, 1e5) << "the case is meant to be ill-conditioned";
}

// Local linear attention at T = 160, d = 16 (t <= d_k: the minimum-norm reading; t > d_k: the streamed
// moments), f64 / f32 / bf16; the output with the covariance correction dropped (Nadaraya-Watson, p = 0)
// is rejected.
TEST(LocalLinearAttentionKernels, WithinBudgetAndNadarayaWatsonRejected) {
  const std::string opname = "local_linear_attention";
  for (Precision p : {Precision::f64, Precision::f32, Precision::bf16}) {
    CaseKnobs k = realistic(160, 16, 13);
    const TensorMap in = op(opname).generate(k, p);
    const Outcome o = judge_all(opname, in, p);
    EXPECT_TRUE(o.all_pass) << precision_name(p) << "\n" << o.detail;
  }
  const TensorMap in = op(opname).generate(realistic(160, 16, 13), Precision::f32);
  auto nw = [&](const TensorMap& x) {
    const std::size_t T = 160, d = 16;
    Matrix<double> Q(T, d), K(T, d), V(T, d);
    for (std::size_t i = 0; i < T * d; ++i) {
      Q.a[i] = x.at("q").data[i];
      K.a[i] = x.at("k").data[i];
      V.a[i] = x.at("v").data[i];
    }
    TensorMap out;
    out["o"] = x.at("v");
    for (std::size_t t = 0; t < T; ++t) {
      const auto w = ref::local_weights(ref::sim_dot_exp(0), K, t + 1, Q.row(t));
      double s = 0;
      for (double wi : w) s += wi;
      for (std::size_t j = 0; j < d; ++j) {
        double a = 0;
        for (std::size_t i = 0; i <= t; ++i) a += w[i] * V(i, j);
        out["o"].data[t * d + j] = static_cast<float>(a / s);
      }
    }
    return out;
  };
  EXPECT_FALSE(judge_all(opname, in, Precision::f32, nw).all_pass);
}

TEST(RegressionKernels, BadArgumentsAreNamed) {
  opt::RegressionArgs<float> a;
  a.T = 4;
  a.dk = 0;
  a.dv = 2;
  try {
    opt::least_squares_scan_solve(a);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("dk"), std::string::npos) << e.what();
  }
  a.dk = 2;
  try {
    opt::local_linear_attention_stream(a, 1.0f);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("q is null"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace recall
