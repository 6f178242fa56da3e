// Ops of softmax attention and DeltaFormer (issue 4): softmax_attention, deltaformer_u,
// deltaformer_norm. Oracle and baseline are the same scalar-generic references
// (reference/softmax.hpp softmax_attend: log-sum-exp per query row; reference/deltaformer_ops.hpp:
// the strictly lower system from the definitions solved by ref::unit_lower_solve, then the
// read-out) instantiated at mp_t and at float/double; the heavy instantiations happen here only.
#include "recall/properties/ops.hpp"

#include "input_checks.hpp"
#include "op_support.hpp"
#include "recall/reference/deltaformer_ops.hpp"
#include "recall/reference/softmax.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace recall {
namespace {

using namespace op_support;
using ref::Matrix;
using ref::Vector;

// The logit scale s = 1/tau: the optional input 'scale' (shape [1]), else 1/sqrt(dk).
double scale_of(const TensorMap& in, const Dims& d) {
  if (auto it = in.find("scale"); it != in.end()) return it->second.data[0];
  return 1.0 / std::sqrt(static_cast<double>(d.dk));
}
// In the working scalar: an explicit scale is used as given (it is exactly representable after
// round_to); the default 1/sqrt(dk) is computed in S (correctly rounded sqrt, then a division).
template <class S> S scale_in(const TensorMap& in, const Dims& d) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  if (auto it = in.find("scale"); it != in.end()) return S(it->second.data[0]);
  return S(1) / sqrt(S(static_cast<double>(d.dk)));
}


// ---- softmax attention: per query row the log-sum-exp reference (A000-SOFTMAX-ATTN "to implement") ----
template <class S, class Out> std::map<std::string, Out> eval_softmax(const TensorMap& in) {
  const std::string op = "softmax_attention";
  const Dims d = dims_of(in, op);
  const S scale = scale_in<S>(in, d);
  std::map<std::string, Out> out;
  out["o"] = make_out<Out>({d.B, d.H, d.T, d.dv});
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h) {
      auto [Q, K, V] = slice_qkv<S>(in, op, d, b, h);
      Matrix<S> O(d.T, d.dv);
      for (std::int64_t t = 0; t < d.T; ++t) {
        auto o = ref::softmax_attend(Q.row(t), K, V, static_cast<std::size_t>(t + 1), scale);
        std::copy(o.begin(), o.end(), O.row(t));
      }
      put(out["o"], b, h, O.a);
    }
  return out;
}

// Logit magnitude |s| sum_c |x_c y_c| (the absolute dot product): a rounding error of the logit is
// at most about dk u times this (it sets n of the u-solve's condition report below).
double abs_logit(const double* x, const double* y, std::int64_t n, double s) {
  double a = 0;
  for (std::int64_t c = 0; c < n; ++c) a += std::fabs(x[c] * y[c]);
  return std::fabs(s) * a;
}

// ---- DeltaFormer ----
template <class S, class Out> std::map<std::string, Out> eval_deltaformer(const TensorMap& in, const std::string& op, bool normalized) {
  const Dims d = dims_of(in, op);
  const S scale = scale_in<S>(in, d);
  std::map<std::string, Out> out;
  out["u"] = make_out<Out>({d.B, d.H, d.T, d.dv});
  out["o"] = make_out<Out>({d.B, d.H, d.T, d.dv});
  const bool has_beta = in.count("beta") > 0;
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h) {
      auto [Q, K, V] = slice_qkv<S>(in, op, d, b, h);
      Vector<S> beta;
      if (has_beta) beta = slice_vec<S>(in.at("beta"), b, h, d.T);
      auto r = ref::deltaformer(Q, K, V, beta, scale, normalized);
      put(out["u"], b, h, r.U.a);
      put(out["o"], b, h, r.O.a);
    }
  return out;
}

// The u-solve's backward-error model for the budget's sensitivity (budget.hpp), in double: every
// entry of the system A_ti and of the read-out weights w_ti is multiplied by (1 + delta xi), every
// stored u_t by (1 + delta xi) before it is reused (forward substitution is componentwise backward
// stable with respect to independent relative perturbations of L; a tensor-core kernel also rounds
// A, w and the stored u to its storage format), and the sums sum_i A_ti u_i and sum_i w_ti u_i carry
// the rounding of their accumulation at delta_a in two summation orders at once (SumModel below).
// The inputs themselves are perturbed by the caller.
//
// Why two orders: the rounding error of a sum is delta_a times the partial sums its order forms, and
// here the terms telescope (with A_ti ~ 1, sum_{i<t} A_ti u_i ~ v_t - u_t: contiguous partial sums
// stay O(|v|) while the terms are larger). One sequential chain (the reference; also blocked and
// tree orders over contiguous ranges, tensor-core k-chunks) keeps them small; a kernel that keeps
// several interleaved accumulators (SIMD/ILP-unrolled GEMM micro-kernels; Eigen's AVX-512 GEMM
// behaves so) forms strided partial sums, random walks of length n/p, and errs ~sqrt(n/p) times more:
// measured at T=1000 d=64 f32, near-one beta, the blocked Eigen kernel erred 8x the sequential
// substitution. The error falls as 1/sqrt(p), so p = 2 interleaved chains bound every p >= 2; the
// sequential chain bounds the contiguous orders. Both first-order responses are added (independent
// signs), which covers either order to within sqrt(2).
struct SumModel {
  std::size_t n;                   // row width (dv)
  std::vector<double> chain[2], e;  // the two interleaved chains' exact partial sums; their rounding response
  explicit SumModel(std::size_t width) : n(width), chain{std::vector<double>(width), std::vector<double>(width)}, e(width) {}
  void reset() {
    std::fill(chain[0].begin(), chain[0].end(), 0.0);
    std::fill(chain[1].begin(), chain[1].end(), 0.0);
    std::fill(e.begin(), e.end(), 0.0);
  }
  // add term x (a row) as the i-th term: its chain's new partial sum is rounded (relative g)
  void add(std::size_t i, const double* x, double g) {
    std::vector<double>& ch = chain[i & 1];
    for (std::size_t c = 0; c < n; ++c) e[c] += g * (ch[c] += x[c]);
  }
  // the final combination chain0 + chain1 is rounded too (relative g)
  void finish(double g) {
    for (std::size_t c = 0; c < n; ++c) e[c] += g * (chain[0][c] + chain[1][c]);
  }
};

TensorMap df_perturbed(const TensorMap& in, const std::string& op, bool normalized, double delta, double delta_a, std::uint64_t seed) {
  const Dims d = dims_of(in, op);
  const double s = scale_of(in, d);
  PerturbFactors draws(0.0, seed);  // one stream of signs, scaled by delta or delta_a below
  auto sign = [&draws]() { return draws.sign(); };
  TensorMap out;
  out["u"] = make_out<Tensor>({d.B, d.H, d.T, d.dv});
  out["o"] = make_out<Tensor>({d.B, d.H, d.T, d.dv});
  const std::size_t T = static_cast<std::size_t>(d.T), dv = static_cast<std::size_t>(d.dv);
  SumModel strided(dv);
  std::vector<double> term(dv);
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h) {
      auto [Q, K, V] = slice_qkv<double>(in, op, d, b, h);
      Vector<double> beta;
      if (in.count("beta")) beta = slice_vec<double>(in.at("beta"), b, h, d.T);
      const Matrix<double> A = ref::deltaformer_system(K, beta, s, normalized);
      Matrix<double> U(T, dv), O(T, dv);
      for (std::size_t t = 0; t < T; ++t) {
        for (std::size_t c = 0; c < dv; ++c) U(t, c) = V(t, c);
        strided.reset();
        for (std::size_t i = 0; i < t; ++i) {  // each term and each partial sum perturbed (the summation's rounding)
          const double a = A(t, i) * (1 + delta * sign()), f = 1 + delta_a * sign();
          for (std::size_t c = 0; c < dv; ++c) {
            term[c] = a * U(i, c);
            U(t, c) = (U(t, c) - term[c]) * f;
          }
          strided.add(i, term.data(), delta_a * sign());
        }
        if (t > 0) strided.finish(delta_a * sign());
        for (std::size_t c = 0; c < dv; ++c) U(t, c) = (U(t, c) - strided.e[c]) * (1 + delta * sign());
      }
      std::vector<double> w(T);
      for (std::size_t t = 0; t < T; ++t) {
        double mx = -INFINITY, sum = 0;
        for (std::size_t i = 0; i <= t; ++i) mx = std::max(mx, w[i] = s * ref::dot(Q.row(t), K.row(i), d.dk));
        for (std::size_t i = 0; i <= t; ++i) sum += std::exp(w[i] - mx);
        strided.reset();
        for (std::size_t i = 0; i <= t; ++i) {
          const double wi = (normalized ? std::exp(w[i] - mx) / sum : std::exp(w[i])) * (1 + delta * sign()), f = 1 + delta_a * sign();
          for (std::size_t c = 0; c < dv; ++c) {
            term[c] = wi * U(i, c);
            O(t, c) = (O(t, c) + term[c]) * f;
          }
          strided.add(i, term.data(), delta_a * sign());
        }
        strided.finish(delta_a * sign());
        for (std::size_t c = 0; c < dv; ++c) O(t, c) += strided.e[c];
      }
      put(out["u"], b, h, U.a);
      put(out["o"], b, h, O.a);
    }
  return out;
}

// Per head, in double: the system L = I + A, its explicit inverse (forward substitution on I),
// U = L^{-1} V and the read-out matrix M (the read-out applied to the identity).
struct DfHead {
  Matrix<double> L, Linv, U, M, O;
  double labs = 0;  // max |s| sum_c |k_ic k_tc| over i < t and |s| sum_c |q_tc k_ic| over i <= t
};
DfHead df_head(const TensorMap& in, const std::string& op, bool normalized, std::int64_t b, std::int64_t h) {
  const Dims d = dims_of(in, op);
  const double s = scale_of(in, d);
  auto [Q, K, V] = slice_qkv<double>(in, op, d, b, h);
  Vector<double> beta;
  if (in.count("beta")) beta = slice_vec<double>(in.at("beta"), b, h, d.T);
  DfHead r;
  const std::size_t T = static_cast<std::size_t>(d.T);
  r.L = ref::deltaformer_system(K, beta, s, normalized);
  for (std::size_t t = 0; t < T; ++t) r.L(t, t) = 1;
  Matrix<double> I(T, T);
  for (std::size_t t = 0; t < T; ++t) I(t, t) = 1;
  Matrix<double> A = r.L;
  for (std::size_t t = 0; t < T; ++t) A(t, t) = 0;
  r.Linv = ref::unit_lower_solve(A, I);
  r.U = ref::unit_lower_solve(A, V);
  r.M = ref::deltaformer_readout(Q, K, I, s, normalized);
  r.O = ref::matmul(r.M, r.U);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t i = 0; i <= t; ++i) {
      if (i < t) r.labs = std::max(r.labs, abs_logit(K.row(i), K.row(t), d.dk, s));
      r.labs = std::max(r.labs, abs_logit(Q.row(t), K.row(i), d.dk, s));
    }
  return r;
}
Matrix<double> absm(Matrix<double> m) { for (double& x : m.a) x = std::fabs(x); return m; }
double maxabs(const Matrix<double>& m) { double a = 0; for (double x : m.a) a = std::max(a, std::fabs(x)); return a; }

// Condition of the u-solve as seen at its outputs (Skeel, componentwise): forward substitution
// (blocked or not, classical GEMMs) is componentwise backward stable, (L + dL) u^ = v with
// |dL| <= gamma_n |L|, n = T plus the relative error of the computed entries of A (about
// (dk + 2) |l| u for a kernel value exp(l)). Hence |u^ - u| <= n u |L^{-1}| |L| |u| and
// |M (u^ - u)| <= n u |M| |L^{-1}| |L| |u|. kappa_solve = max over heads of
//   max( max(|L^{-1}||L||U|) / max|U| , max(|M||L^{-1}||L||U|) / max|O| ),
// computed in double through the explicit inverse (an estimate: its order of magnitude is what
// matters; beyond kappa ~ 1e16 the double inverse itself is inaccurate). n = T + (dk + 2) max(1, |l|max).
std::pair<double, double> df_condition(const TensorMap& in, const std::string& op, bool normalized) {
  const Dims d = dims_of(in, op);
  double kappa = 1, n = 0;
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h) {
      DfHead r = df_head(in, op, normalized, b, h);
      const Matrix<double> Y = ref::matmul(absm(r.Linv), ref::matmul(absm(r.L), absm(r.U)));
      const double mu = maxabs(r.U), mo = maxabs(r.O);
      if (mu > 0) kappa = std::max(kappa, maxabs(Y) / mu);
      if (mo > 0) kappa = std::max(kappa, maxabs(ref::matmul(absm(r.M), Y)) / mo);
      n = std::max(n, static_cast<double>(d.T) + static_cast<double>(d.dk + 2) * std::max(1.0, r.labs));
    }
  return {kappa, n};
}

// ---- generators ----
// Softmax: q, k rows of the key kind scaled by 10^scale_exp (scale_exp 3 saturates the softmax:
// logits ~1e6); initial_state (meaningless here) selects an explicit temperature tau = 1
// (A004-EQ12 convention) instead of the default tau = sqrt(dk).
TensorMap gen_softmax(const CaseKnobs& k, Precision p) {
  CaseRng rng(k.seed);
  std::vector<double> q, kk, v;
  for (int bh = 0; bh < k.B * k.H; ++bh) {
    auto qi = rng.rows(k.keys, k.T, k.dk, k.scale_exp);
    auto ki = rng.rows(k.keys, k.T, k.dk, k.scale_exp);
    auto vi = rng.rows(KeyKind::gaussian, k.T, k.dv, 0);
    q.insert(q.end(), qi.begin(), qi.end());
    kk.insert(kk.end(), ki.begin(), ki.end());
    v.insert(v.end(), vi.begin(), vi.end());
  }
  TensorMap m;
  m["q"] = tensor({k.B, k.H, k.T, k.dk}, q);
  m["k"] = tensor({k.B, k.H, k.T, k.dk}, kk);
  m["v"] = tensor({k.B, k.H, k.T, k.dv}, v);
  if (k.initial_state) m["scale"] = tensor({1}, {1.0});
  round_to(m, p);
  return m;
}

// DeltaFormer: the unnormalised kernel exp(s k^T k) grows without bound, and so does u: with equal
// weights a the recursion gives sum_i u_i = (1 - a) sum_{i<t} u_i + v_t, i.e. |1 - a|^T growth
// (RapidCheck found T=33, dk=1, s=3: a = 20, u ~ 19^33 overflows float). Rows of q and k (other
// than near-zero ones) are therefore normalised to unit length and the explicit scale s sets the
// logit range [-s, s]: s = 0.5 (scale_exp 0), 1 (scale_exp > 0: a up to e, growth up to 1.72^T),
// 0.1 (scale_exp < 0); the normalised op uses s = 10^scale_exp (saturated softmax rows at
// scale_exp > 0). beta_t = g_t in [0,1], g the gate of the gate kind (ones, near_one, saturating:
// beta at or near 1, the largest); nearly parallel or correlated keys, beta near 1 and long T give
// the ill-conditioned systems.
TensorMap gen_deltaformer(const CaseKnobs& k, Precision p, bool normalized) {
  CaseRng rng(k.seed);
  std::vector<double> q, kk, v, beta;
  auto unit_rows = [&](std::vector<double>& r) {
    if (k.keys == KeyKind::near_zero) return;
    for (int t = 0; t < k.T; ++t) {
      double n2 = 0;
      for (int c = 0; c < k.dk; ++c) n2 += r[t * k.dk + c] * r[t * k.dk + c];
      if (n2 > 0) for (int c = 0; c < k.dk; ++c) r[t * k.dk + c] /= std::sqrt(n2);
    }
  };
  for (int bh = 0; bh < k.B * k.H; ++bh) {
    auto qi = rng.rows(k.keys, k.T, k.dk, 0);
    auto ki = rng.rows(k.keys, k.T, k.dk, 0);
    auto vi = rng.rows(KeyKind::gaussian, k.T, k.dv, 0);
    unit_rows(qi);
    unit_rows(ki);
    auto gi = rng.log_gates(k.gates, k.T);
    q.insert(q.end(), qi.begin(), qi.end());
    kk.insert(kk.end(), ki.begin(), ki.end());
    v.insert(v.end(), vi.begin(), vi.end());
    for (double g : gi) beta.push_back(std::isinf(g) ? 0.0 : std::exp(g));
  }
  const double s = normalized ? std::pow(10.0, k.scale_exp) : (k.scale_exp > 0 ? 1.0 : k.scale_exp < 0 ? 0.1 : 0.5);
  TensorMap m;
  m["q"] = tensor({k.B, k.H, k.T, k.dk}, q);
  m["k"] = tensor({k.B, k.H, k.T, k.dk}, kk);
  m["v"] = tensor({k.B, k.H, k.T, k.dv}, v);
  m["beta"] = tensor({k.B, k.H, k.T}, beta);
  m["scale"] = tensor({1}, {s});
  round_to(m, p);
  return m;
}

}  // namespace

void add_softmax_ops(std::vector<OpSpec>& v) {
  const std::vector<TensorDecl> qkv =
      op_support::qkv_inputs({{"scale", "1", true, "logit scale 1/tau > 0 (default 1/sqrt(dk))"}}, /*with_s0=*/false);
  {
    OpSpec op;
    op.name = "softmax_attention";
    op.summary = "o_t = sum_{i<=t} softmax_i(s q_t^T k_i) v_i, causal, s = 1/tau (log-sum-exp reference)";
    op.spec_ids = {"A000-SOFTMAX-ATTN", "A001-SOFTMAX-ATTN", "A002-SOFTMAX-ATTN", "A004-SOFTMAX-ATTN", "A001-F10-SOFTMAX-ONLINE"};
    op.inputs = qkv;
    op.outputs = {{"o", "B,H,T,dv", false, "attention outputs"}};
    op.validate = [](const TensorMap& in) { input_checks::softmax_family(in, "softmax_attention", false); };
    op.oracle = [](const TensorMap& in) { return eval_softmax<mp_t, MpTensor>(in); };
    op.baseline = [](const TensorMap& in, Precision p) {
      return at_precision(p, [&](auto s) { return eval_softmax<decltype(s), Tensor>(in); });
    };
    op.generate = gen_softmax;
    op.accumulation_length = seq_length;
    // a row responds through its softmax weights (OpSpec::sensitivity_draws): keys x1e2 nearly parallel,
    // 3 draws estimated 2.05e4 u where 30-300 give 7e4-1e5 u, and a correct f64 kernel failed
    op.sensitivity_draws = 16;
    add_op(v, std::move(op));
  }
  for (bool normalized : {false, true}) {
    OpSpec op;
    const std::string name = normalized ? "deltaformer_norm" : "deltaformer_u";
    op.name = name;
    op.summary = normalized ? "(I + A) U = V, A_ti = beta_t softmax_{i<t}(s k_i^T k_t); o_t = sum_{i<=t} softmax_i(s q_t^T k_i) u_i"
                            : "(I + A) U = V, A_ti = beta_t exp(s k_i^T k_t) (i < t); o_t = sum_{i<=t} exp(s q_t^T k_i) u_i";
    op.spec_ids = normalized ? std::vector<std::string>{"A000-DELTAFORMER-NORM", "A000-UMATRIX"}
                             : std::vector<std::string>{"A000-DELTAFORMER-U"};
    op.inputs = qkv;
    op.inputs.push_back({"beta", "B,H,T", true, "per-token strength beta_t of the u-recursion (default 1)"});
    op.outputs = {{"u", "B,H,T,dv", false, "solution of the triangular system (rows u_t)"},
                  {"o", "B,H,T,dv", false, "read-out"}};
    op.validate = [name](const TensorMap& in) { input_checks::softmax_family(in, name, true); };
    op.oracle = [name, normalized](const TensorMap& in) { return eval_deltaformer<mp_t, MpTensor>(in, name, normalized); };
    op.baseline = [name, normalized](const TensorMap& in, Precision p) {
      return at_precision(p, [&](auto s) { return eval_deltaformer<decltype(s), Tensor>(in, name, normalized); });
    };
    op.generate = [normalized](const CaseKnobs& k, Precision p) { return gen_deltaformer(k, p, normalized); };
    op.accumulation_length = seq_length;
    op.condition = [name, normalized](const TensorMap& in) { return df_condition(in, name, normalized); };
    op.perturbed = [name, normalized](const TensorMap& in, double delta, double delta_a, std::uint64_t seed) {
      return df_perturbed(in, name, normalized, delta, delta_a, seed);
    };
    op.gated = true;  // the gate knobs generate beta
    if (normalized) op.sensitivity_draws = 16;  // softmax weights, as softmax_attention
    add_op(v, std::move(op));
  }
}

}  // namespace recall
