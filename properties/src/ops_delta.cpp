// Ops of the delta-rule family (delta_rule, gated_delta_rule). Oracle and baseline are the
// scalar-generic references ref::delta_rule / ref::gated_delta_rule (placement G) instantiated at
// mp_t and at float/double; this file is where those instantiations happen, once.
#include "recall/properties/ops.hpp"

#include "op_support.hpp"
#include "recall/reference/delta_rule.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace recall {
namespace {

using namespace op_support;
using ref::Matrix;
using ref::Vector;

void validate_delta(const TensorMap& in, const std::string& op, bool gated) {
  const Dims d = validate_qkv_shapes(in, op, {"beta"});
  if (gated) validate_log_gate(in, op, d, "log_alpha", "gates alpha");
  validate_s0(in, op, d);
}

// ---- reference evaluation, generic over the scalar ----
template <class S, class Out> std::map<std::string, Out> eval_delta(const TensorMap& in, const std::string& op, bool gated) {
  const Dims d = dims_of(in, op);
  std::map<std::string, Out> out;
  out["o"] = make_out<Out>({d.B, d.H, d.T, d.dv});
  out["s_final"] = make_out<Out>({d.B, d.H, d.dv, d.dk});
  const bool has_s0 = in.count("s0") > 0;
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h) {
      auto [Q, K, V] = slice_qkv<S>(in, op, d, b, h);
      auto beta = slice_vec<S>(get(in, "beta", op), b, h, d.T);
      Matrix<S> S0;
      if (has_s0) S0 = slice<S>(in.at("s0"), b, h, d.dv, d.dk);
      ref::LinearAttentionResult<S> r;
      if (gated) {
        auto G = slice_vec<S>(get(in, "log_alpha", op), b, h, d.T);
        r = ref::gated_delta_rule(Q, K, V, beta, G, ref::DecayPlacement::G, has_s0 ? &S0 : nullptr);
      } else {
        r = ref::delta_rule(Q, K, V, beta, has_s0 ? &S0 : nullptr);
      }
      put(out["o"], b, h, r.O.a);
      put(out["s_final"], b, h, r.state.a);
    }
  return out;
}

// ---- generator: keys and gates from the shared knobs; beta_t = r_t / ||k_t||^2 with r_t from the
// beta knob (computed from the keys as rounded to the working precision, so r_t is what the
// kernel sees up to the rounding of beta itself); a zero key gets beta_t = r_t. ----
TensorMap gen_delta(const CaseKnobs& k, Precision p, bool gated) {
  CaseRng rng(k.seed);
  const std::int64_t B = k.B, H = k.H, T = k.T, dk = k.dk, dv = k.dv;
  std::vector<double> q, kk, v, beta, g, s0;
  for (int bh = 0; bh < k.B * k.H; ++bh) {
    auto qi = rng.rows(k.keys, k.T, k.dk, k.scale_exp);
    auto ki = rng.rows(k.keys, k.T, k.dk, k.scale_exp);
    auto vi = rng.rows(KeyKind::gaussian, k.T, k.dv, 0);
    auto ri = rng.beta_ratios(k.betas, k.T);
    for (int t = 0; t < k.T; ++t) {
      double n2 = 0;
      for (int j = 0; j < k.dk; ++j) {
        double& x = ki[static_cast<std::size_t>(t) * k.dk + j];
        if (p == Precision::f32) x = static_cast<float>(x);
        n2 += x * x;
      }
      beta.push_back(n2 > 0 ? ri[t] / n2 : ri[t]);
    }
    q.insert(q.end(), qi.begin(), qi.end());
    kk.insert(kk.end(), ki.begin(), ki.end());
    v.insert(v.end(), vi.begin(), vi.end());
    if (gated) { auto gi = rng.log_gates(k.gates, k.T); g.insert(g.end(), gi.begin(), gi.end()); }
    if (k.initial_state) {
      // a state of the scale the memory reaches (values / keys): S0 ~ N(0,1) / mean ||k||
      double kn = 0;
      for (double x : ki) kn += x * x;
      kn = std::sqrt(kn / std::max(1, k.T));
      const double sc = kn > 0 ? 1.0 / kn : 1.0;
      auto si = rng.rows(KeyKind::gaussian, k.dv, k.dk, 0);
      for (double& x : si) x *= sc;
      s0.insert(s0.end(), si.begin(), si.end());
    }
  }
  TensorMap m;
  m["q"] = tensor({B, H, T, dk}, q);
  m["k"] = tensor({B, H, T, dk}, kk);
  m["v"] = tensor({B, H, T, dv}, v);
  m["beta"] = tensor({B, H, T}, beta);
  if (gated) m["log_alpha"] = tensor({B, H, T}, g);
  if (k.initial_state) m["s0"] = tensor({B, H, dv, dk}, s0);
  round_to(m, p);
  return m;
}

double norm2(const double* x, std::int64_t n) {
  double s = 0;
  for (std::int64_t i = 0; i < n; ++i) s += x[i] * x[i];
  return std::sqrt(s);
}

// ---- magnitude for the budget's condition term ----
// The delta rule is not a sum of positive products (the transitions I - beta k k^T have negative
// entries and cancel by design), so the |inputs| evaluation of the linear-attention ops does not
// bound its rounding errors: run on absolute values it grows like (1 + beta |k|^2)^T. Instead a
// norm-wise first-order bound, evaluated in double along the sequence:
//   step t forms alpha S_{t-1}, beta (alpha S_{t-1} k) k^T and beta v k^T, so its rounding error
//   is a perturbation F_t with ||F_t||_F <~ gamma u g_t,
//       g_t = alpha_t ||S_{t-1}||_F (1 + |beta_t| ||k_t||^2) + |beta_t| ||v_t|| ||k_t||
//   (gamma: the inner-product length, the budget's lambda sqrt(m)). A perturbation of S_t reaches
//   S_s as F_t P_{t+1} ... P_s with P_j = alpha_j (I - beta_j k_j k_j^T), and
//   ||X P_j||_F <= ||X||_F ||P_j||_2, ||P_j||_2 = rho_j = alpha_j max(1, |1 - beta_j ||k_j||^2|).
//   Hence ||computed S_s - S_s||_F <~ gamma u E_s with the running bound
//       E_0 = 0,   E_t = rho_t E_{t-1} + g_t.
//   Non-expansive steps (0 <= beta |k|^2 <= 2) have rho_t <= alpha_t <= 1: E grows at most
//   linearly in T and never exponentially; only expansive steps (beta |k|^2 > 2) amplify, and they
//   amplify the exact solution's sensitivity to the inputs by the same factor (a genuine
//   ill-conditioning, not an artefact of the bound). A zero gate resets E (rho = 0, g = |beta||v||k|).
//   Gated: the fast forms apply the decay of a span as exp of a log-space segment sum
//   seg(i,t) = sum_{j=i+1}^{t} log alpha_j (all terms <= 0, so |seg| = sum |log alpha_j|); its
//   rounding error ~ u |seg| becomes a relative error u |seg| of the decay factor (the same
//   max(1, |seg|) weight as gated_magnitude in ops.cpp). So each term of E is weighted by
//   (1 + |seg|): E_t = P_t + Q_t with P the plain running bound and Q its |seg|-weighted
//   companion, |seg(i,t)| = |seg(i,t-1)| + |log alpha_t|:
//       P_t = rho_t P_{t-1} + g_t,   Q_t = rho_t (Q_{t-1} + |log alpha_t| P_{t-1}) + |log alpha_t| ga_t
//   (ga_t: the part of g_t that carries alpha_t, whose chunk decay exp(b_t) includes log alpha_t).
//   A zero gate (log alpha = -inf) resets P and Q before g_t is added (no inf * 0).
//   Read-out o_t = S_t q_t: |error| <~ gamma u (E_t + ||S_t||_F) ||q_t||_2.
// Each element's magnitude is the (b,h,t) norm bound (a componentwise error is at most the
// norm-wise one). ||S_t||_F is of the exact (double) state. The triangular chunk systems of the fast
// forms are accounted for separately (condition, below).
TensorMap delta_magnitude(const TensorMap& in, const std::string& op, bool gated) {
  const Dims d = dims_of(in, op);
  TensorMap out;
  out["o"] = make_out<Tensor>({d.B, d.H, d.T, d.dv});
  out["s_final"] = make_out<Tensor>({d.B, d.H, d.dv, d.dk});
  const bool has_s0 = in.count("s0") > 0;
  const Tensor& tq = in.at("q");
  const Tensor& tk = in.at("k");
  const Tensor& tv = in.at("v");
  const Tensor& tb = in.at("beta");
  const Tensor* tg = gated ? &in.at("log_alpha") : nullptr;
  std::vector<double> S(static_cast<std::size_t>(d.dv * d.dk)), p(static_cast<std::size_t>(d.dv));
  for (std::int64_t bh = 0; bh < d.B * d.H; ++bh) {
    if (has_s0) std::copy_n(in.at("s0").data.begin() + bh * d.dv * d.dk, d.dv * d.dk, S.begin());
    else std::fill(S.begin(), S.end(), 0.0);
    double P = 0, Qw = 0;
    for (std::int64_t t = 0; t < d.T; ++t) {
      const std::size_t row = static_cast<std::size_t>(bh * d.T + t);
      const double* q = tq.data.data() + row * d.dk;
      const double* k = tk.data.data() + row * d.dk;
      const double* v = tv.data.data() + row * d.dv;
      const double b = tb.data[row];
      const double la = tg ? tg->data[row] : 0.0;
      const double al = std::exp(la);
      const double nk = norm2(k, d.dk), nv = norm2(v, d.dv), nS = norm2(S.data(), d.dv * d.dk);
      const double rho = al * std::max(1.0, std::fabs(1.0 - b * nk * nk));
      const double ga = al * nS * (1.0 + std::fabs(b) * nk * nk);
      const double g = ga + std::fabs(b) * nv * nk;
      if (al == 0) {
        P = g;
        Qw = 0;
      } else {
        Qw = rho * (Qw + std::fabs(la) * P) + std::fabs(la) * ga;
        P = rho * P + g;
      }
      const double E = P + Qw;
      // exact step in double: S <- al S + b (v - al S k) k^T
      for (std::int64_t r = 0; r < d.dv; ++r) {
        double s = 0;
        for (std::int64_t c = 0; c < d.dk; ++c) s += S[r * d.dk + c] * k[c];
        p[r] = b * (v[r] - al * s);
      }
      for (std::int64_t r = 0; r < d.dv; ++r)
        for (std::int64_t c = 0; c < d.dk; ++c) S[r * d.dk + c] = al * S[r * d.dk + c] + p[r] * k[c];
      const double a_o = (E + norm2(S.data(), d.dv * d.dk)) * norm2(q, d.dk);
      std::fill_n(out["o"].data.begin() + row * d.dv, d.dv, a_o);
    }
    std::fill_n(out["s_final"].data.begin() + bh * d.dv * d.dk, d.dv * d.dk, P + Qw);
  }
  return out;
}

// Largest chunk size registered (cpu.chunked.c64*): the systems whose condition is reported.
constexpr std::int64_t kSolveChunk = 64;

// Condition of the within-chunk unit-lower-triangular systems L = I + diag(beta)(G ⊙ tril_{-1}(K_c K_c^T))
// of the WY/UT fast forms, for chunks of kSolveChunk tokens: Skeel's condition number
// cond(L) = || |L^{-1}| |L| ||_inf (<= kappa_inf(L) = ||L||_inf ||L^{-1}||_inf; it bounds the forward
// error of forward substitution, Higham, Accuracy and Stability, Thm 8.5, and is invariant under
// the row scaling by beta). L^{-1} is formed explicitly in double; the max over chunks and heads is
// returned with the order n = min(kSolveChunk, T).
std::pair<double, double> delta_condition(const TensorMap& in, const std::string& op, bool gated) {
  const Dims d = dims_of(in, op);
  const Tensor& tk = in.at("k");
  const Tensor& tb = in.at("beta");
  const Tensor* tg = gated ? &in.at("log_alpha") : nullptr;
  double worst = 1.0;
  using M = Eigen::MatrixXd;
  for (std::int64_t bh = 0; bh < d.B * d.H; ++bh)
    for (std::int64_t s = 0; s < d.T; s += kSolveChunk) {
      const std::int64_t n = std::min(kSolveChunk, d.T - s);
      M L = M::Identity(n, n);
      for (std::int64_t t = 1; t < n; ++t) {
        const std::size_t rt = static_cast<std::size_t>(bh * d.T + s + t);
        double seg = 0;  // sum_{j=i+1}^{t} log alpha_j, built downwards from i = t-1
        for (std::int64_t i = t - 1; i >= 0; --i) {
          const std::size_t ri = static_cast<std::size_t>(bh * d.T + s + i);
          if (tg) seg += tg->data[ri + 1];
          const double G = tg ? std::exp(seg) : 1.0;
          double kk = 0;
          for (std::int64_t c = 0; c < d.dk; ++c) kk += tk.data[rt * d.dk + c] * tk.data[ri * d.dk + c];
          L(t, i) = tb.data[rt] * G * kk;
        }
      }
      M Linv = L.triangularView<Eigen::UnitLower>().solve(M::Identity(n, n));
      const M prod = Linv.cwiseAbs() * L.cwiseAbs();
      const double c = prod.rowwise().sum().maxCoeff();
      if (std::isfinite(c)) worst = std::max(worst, c);
      else worst = std::numeric_limits<double>::infinity();
    }
  return {worst, static_cast<double>(std::min(kSolveChunk, d.T))};
}

// m: the inner products of one step have length dk; the fast forms' within-chunk sums have length
// up to the chunk size.
double delta_length(const TensorMap& in) {
  const Tensor& q = in.at("q");
  return static_cast<double>(q.shape[3] + std::min<std::int64_t>(q.shape[2], kSolveChunk));
}

}  // namespace

void add_delta_ops(std::vector<OpSpec>& v) {
  const std::vector<TensorDecl> d_in = op_support::qkv_inputs(
      {{"beta", "B,H,T", false, "step sizes beta_t (any finite value; beta |k|^2 in [0,2] is non-expansive)"}});
  const std::vector<TensorDecl> d_out = op_support::state_outputs();
  {
    OpSpec op;
    op.name = "delta_rule";
    op.summary = "S_t = S_{t-1}(I - b_t k_t k_t^T) + b_t v_t k_t^T, o_t = S_t q_t (DeltaNet)";
    op.spec_ids = {"A000-T2-DELTANET", "A001-DELTANET-DEF", "A001-SGD-LAYER", "A001-F08-DELTANET-CHUNK", "A004-UPD-DELTANET"};
    op.inputs = d_in;
    op.outputs = d_out;
    op.validate = [](const TensorMap& in) { validate_delta(in, "delta_rule", false); };
    op.oracle = [](const TensorMap& in) { return eval_delta<mp_t, MpTensor>(in, "delta_rule", false); };
    op.baseline = [](const TensorMap& in, Precision p) {
      return at_precision(p, [&](auto s) { return eval_delta<decltype(s), Tensor>(in, "delta_rule", false); });
    };
    op.generate = [](const CaseKnobs& k, Precision p) { return gen_delta(k, p, false); };
    op.magnitude = [](const TensorMap& in) { return delta_magnitude(in, "delta_rule", false); };
    op.accumulation_length = delta_length;
    op.condition = [](const TensorMap& in) { return delta_condition(in, "delta_rule", false); };
    v.push_back(op);
  }
  {
    OpSpec op;
    op.name = "gated_delta_rule";
    op.summary = "S_t = a_t S_{t-1}(I - b_t k_t k_t^T) + b_t v_t k_t^T, o_t = S_t q_t, a_t = exp(log_alpha_t) (-inf: reset)";
    op.spec_ids = {"A001-GATED-DELTANET-REPARAM", "A001-F09-GDN-CHUNK", "A004-UPD-GDN"};
    op.inputs = d_in;
    op.inputs.insert(op.inputs.begin() + 4, TensorDecl{"log_alpha", "B,H,T", false, "log of the scalar gate alpha_t in [0,1]; -inf for a zero gate"});
    op.outputs = d_out;
    op.gated = true;
    op.validate = [](const TensorMap& in) { validate_delta(in, "gated_delta_rule", true); };
    op.oracle = [](const TensorMap& in) { return eval_delta<mp_t, MpTensor>(in, "gated_delta_rule", true); };
    op.baseline = [](const TensorMap& in, Precision p) {
      return at_precision(p, [&](auto s) { return eval_delta<decltype(s), Tensor>(in, "gated_delta_rule", true); });
    };
    op.generate = [](const CaseKnobs& k, Precision p) { return gen_delta(k, p, true); };
    op.magnitude = [](const TensorMap& in) { return delta_magnitude(in, "gated_delta_rule", true); };
    op.accumulation_length = delta_length;
    op.condition = [](const TensorMap& in) { return delta_condition(in, "gated_delta_rule", true); };
    v.push_back(op);
  }
}

}  // namespace recall
