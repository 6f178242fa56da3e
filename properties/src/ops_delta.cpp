// Ops of the delta-rule family (delta_rule, gated_delta_rule). Oracle and baseline are the
// scalar-generic references ref::delta_rule / ref::gated_delta_rule (placement G) instantiated at
// mp_t and at float/double; this file is where those instantiations happen, once.
#include "recall/properties/ops.hpp"

#include "input_checks.hpp"
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
        x = round_value(x, p);
        n2 += x * x;
      }
      // a near-zero key in a 16-bit format: beta = r / ||k||^2 beyond the format's range is clamped
      // to its largest value (then beta ||k||^2 < r: still a legal, non-expansive step)
      beta.push_back(std::min(n2 > 0 ? ri[t] / n2 : ri[t], max_finite(p)));
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


// Largest chunk size registered (cpu.chunked.c64*): the systems whose condition is reported.
constexpr std::int64_t kSolveChunk = 64;

// The within-chunk system of the WY/UT fast forms for the chunk of n tokens starting at s of head bh:
// G(t,i) = exp(sum_{j=i+1}^{t} log a_j) (lower triangle, G(t,t) = 1), eb(t) = exp(sum_{j=s}^{t} log a_j),
// L = I + diag(beta)(G (.) tril_{-1}(K_c K_c^T)). Ungated: G = 1, eb = 1. Shared by the condition
// report and the solve term.
struct ChunkSystem {
  Eigen::MatrixXd G, L;
  std::vector<double> eb;
};
ChunkSystem chunk_system(const TensorMap& in, const Dims& d, bool gated, std::int64_t bh, std::int64_t s, std::int64_t n) {
  const Tensor& tk = in.at("k");
  const Tensor& tb = in.at("beta");
  const Tensor* tg = gated ? &in.at("log_alpha") : nullptr;
  auto lg = [&](std::int64_t t) { return tg ? tg->data[static_cast<std::size_t>(bh * d.T + t)] : 0.0; };
  ChunkSystem c;
  c.G = Eigen::MatrixXd::Zero(n, n);
  c.L = Eigen::MatrixXd::Identity(n, n);
  c.eb.resize(static_cast<std::size_t>(n));
  for (std::int64_t t = 0; t < n; ++t) {
    const std::size_t rt = static_cast<std::size_t>(bh * d.T + s + t);
    double seg = 0;  // sum_{j=i+1}^{t} log a_j, built downwards from i = t-1
    c.G(t, t) = 1;
    for (std::int64_t i = t - 1; i >= 0; --i) {
      const std::size_t ri = static_cast<std::size_t>(bh * d.T + s + i);
      seg += lg(s + i + 1);
      c.G(t, i) = std::exp(seg);
      double kk = 0;
      for (std::int64_t col = 0; col < d.dk; ++col) kk += tk.data[rt * d.dk + col] * tk.data[ri * d.dk + col];
      c.L(t, i) = tb.data[rt] * c.G(t, i) * kk;
    }
    c.eb[static_cast<std::size_t>(t)] = std::exp(seg + lg(s));
  }
  return c;
}

// Condition of the within-chunk unit-lower-triangular systems L = I + diag(beta)(G ⊙ tril_{-1}(K_c K_c^T))
// of the WY/UT fast forms, for chunks of kSolveChunk tokens: Skeel's condition number
// cond(L) = || |L^{-1}| |L| ||_inf (<= kappa_inf(L) = ||L||_inf ||L^{-1}||_inf; it bounds the forward
// error of forward substitution, Higham, Accuracy and Stability, Thm 8.5, and is invariant under
// the row scaling by beta). L^{-1} is formed explicitly in double; the max over chunks and heads is
// returned with the order n = min(kSolveChunk, T).
std::pair<double, double> delta_condition(const TensorMap& in, const std::string& op, bool gated) {
  const Dims d = dims_of(in, op);
  double worst = 1.0;
  using M = Eigen::MatrixXd;
  for (std::int64_t bh = 0; bh < d.B * d.H; ++bh)
    for (std::int64_t s = 0; s < d.T; s += kSolveChunk) {
      const std::int64_t n = std::min(kSolveChunk, d.T - s);
      const M L = chunk_system(in, d, gated, bh, s, n).L;
      M Linv = L.triangularView<Eigen::UnitLower>().solve(M::Identity(n, n));
      const M prod = Linv.cwiseAbs() * L.cwiseAbs();
      const double c = prod.rowwise().sum().maxCoeff();
      if (std::isfinite(c)) worst = std::max(worst, c);
      else worst = std::numeric_limits<double>::infinity();
    }
  return {worst, static_cast<double>(std::min(kSolveChunk, d.T))};
}

// The budget's backward-error model of the chunked kernels (budget.hpp, OpSpec::perturbed): the
// recurrence S <- a S + e k^T, e = beta (v - a S k), o = S q evaluated in double with the
// chunk-local log-gate sums perturbed (perturb_log_gate_cumsums), every correction e_t multiplied by (1 + delta xi) (the corrected values a chunked kernel stores as a
// matmul operand) and the state multiplied by (1 + delta xi) at each chunk boundary (the chunk
// state a kernel casts for its matmuls), chunks of kSolveChunk tokens. The chunk systems' own
// forward error is charged separately (delta_solve_magnitude, OpSpec::solve_magnitude).
TensorMap delta_perturbed(const TensorMap& in, const std::string& op, bool gated, double delta_s, double delta_a, std::uint64_t seed) {
  const Dims d = dims_of(in, op);
  PerturbFactors fac(delta_s, seed), fac_a(delta_a, seed ^ 0x5bd1e995u);
  Tensor gp;
  if (gated) {
    gp = in.at("log_alpha");
    perturb_log_gate_cumsums(gp, kSolveChunk, fac_a);  // accumulations: delta_a
  }
  TensorMap out;
  out["o"] = make_out<Tensor>({d.B, d.H, d.T, d.dv});
  out["s_final"] = make_out<Tensor>({d.B, d.H, d.dv, d.dk});
  const bool has_s0 = in.count("s0") > 0;
  const Tensor &tq = in.at("q"), &tk = in.at("k"), &tv = in.at("v"), &tb = in.at("beta");
  const Tensor* tg = gated ? &gp : nullptr;
  const std::size_t dk = static_cast<std::size_t>(d.dk), dv = static_cast<std::size_t>(d.dv);
  std::vector<double> S(dv * dk), e(dv);
  for (std::int64_t bh = 0; bh < d.B * d.H; ++bh) {
    if (has_s0) std::copy_n(in.at("s0").data.begin() + bh * d.dv * d.dk, dv * dk, S.begin());
    else std::fill(S.begin(), S.end(), 0.0);
    for (std::int64_t t = 0; t < d.T; ++t) {
      const std::size_t row = static_cast<std::size_t>(bh * d.T + t);
      const double* q = tq.data.data() + row * dk;
      const double* k = tk.data.data() + row * dk;
      const double* v = tv.data.data() + row * dv;
      const double a = tg ? std::exp(tg->data[row]) : 1.0, b = tb.data[row];
      for (std::size_t r = 0; r < dv; ++r) {
        double p = 0;
        for (std::size_t c = 0; c < dk; ++c) p += S[r * dk + c] * k[c];
        e[r] = b * (v[r] - a * p) * fac();
      }
      for (std::size_t r = 0; r < dv; ++r)
        for (std::size_t c = 0; c < dk; ++c) S[r * dk + c] = a * S[r * dk + c] + e[r] * k[c];
      for (std::size_t r = 0; r < dv; ++r) {
        double o = 0;
        for (std::size_t c = 0; c < dk; ++c) o += S[r * dk + c] * q[c];
        out["o"].data[row * dv + r] = o;
      }
      if ((t + 1) % kSolveChunk == 0)
        for (double& x : S) x *= fac();
    }
    std::copy(S.begin(), S.end(), out["s_final"].data.begin() + bh * d.dv * d.dk);
  }
  return out;
}

// First-order propagation of the chunk solves' forward error through the actual computation (the
// budget's solve term, OpSpec::solve_magnitude). Forward substitution on a chunk system L D = R is
// componentwise backward stable, so |D^ - D| <= gamma_n |L^-1| |L| |D| (Higham, Thm 8.5); that error
// reaches o_t through (Q K^T (.) G) D and the state through D^T diag(G_e) K, and later chunks through
// the decayed state. Returned per output element in units of n u: the budget multiplies by n u_a.
// The exact chunk-start states come from the sequential recurrence (double).
TensorMap delta_solve_magnitude(const TensorMap& in, const std::string& op, bool gated) {
  using M = Eigen::MatrixXd;
  const Dims d = dims_of(in, op);
  TensorMap out;
  out["o"] = make_out<Tensor>({d.B, d.H, d.T, d.dv});
  out["s_final"] = make_out<Tensor>({d.B, d.H, d.dv, d.dk});
  const bool has_s0 = in.count("s0") > 0;
  const Tensor &tq = in.at("q"), &tk = in.at("k"), &tv = in.at("v"), &tb = in.at("beta");
  const std::int64_t dk = d.dk, dv = d.dv;
  for (std::int64_t bh = 0; bh < d.B * d.H; ++bh) {
    M S = M::Zero(dv, dk), E = M::Zero(dv, dk);
    if (has_s0)
      for (std::int64_t r = 0; r < dv; ++r)
        for (std::int64_t c = 0; c < dk; ++c) S(r, c) = in.at("s0").data[(bh * dv + r) * dk + c];
    auto K = [&](std::int64_t t, std::int64_t c) { return tk.data[(bh * d.T + t) * dk + c]; };
    auto Q = [&](std::int64_t t, std::int64_t c) { return tq.data[(bh * d.T + t) * dk + c]; };
    for (std::int64_t s = 0; s < d.T; s += kSolveChunk) {
      const std::int64_t n = std::min(kSolveChunk, d.T - s);
      const ChunkSystem cs = chunk_system(in, d, gated, bh, s, n);
      const M& G = cs.G;
      const M& L = cs.L;
      const std::vector<double>& eb = cs.eb;
      M R(n, dv);
      for (std::int64_t t = 0; t < n; ++t) {
        const double bt = tb.data[bh * d.T + s + t];
        for (std::int64_t r = 0; r < dv; ++r) {
          double sk = 0;
          for (std::int64_t c = 0; c < dk; ++c) sk += S(r, c) * K(s + t, c);
          R(t, r) = bt * (tv.data[(bh * d.T + s + t) * dv + r] - eb[t] * sk);
        }
      }
      const M Linv = L.triangularView<Eigen::UnitLower>().solve(M::Identity(n, n));
      const M D = Linv * R;
      const M C = Linv.cwiseAbs() * (L.cwiseAbs() * D.cwiseAbs());  // |D^ - D| <= n u C
      M W = M::Zero(n, n);  // |G (.) Q K^T| of the chunk, lower triangle
      for (std::int64_t t = 0; t < n; ++t)
        for (std::int64_t i = 0; i <= t; ++i) {
          double qk = 0;
          for (std::int64_t c = 0; c < dk; ++c) qk += Q(s + t, c) * K(s + i, c);
          W(t, i) = std::fabs(G(t, i) * qk);
        }
      const M WC = W * C;
      for (std::int64_t t = 0; t < n; ++t)
        for (std::int64_t r = 0; r < dv; ++r) {
          double a = WC(t, r);
          for (std::int64_t c = 0; c < dk; ++c) a += eb[t] * E(r, c) * std::fabs(Q(s + t, c));
          out["o"].data[(bh * d.T + s + t) * dv + r] = a;
        }
      // state: S <- e^{b_e} S + D^T diag(G_e) K, and the same for the error magnitude
      E *= eb[n - 1];
      S *= eb[n - 1];
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t r = 0; r < dv; ++r)
          for (std::int64_t c = 0; c < dk; ++c) {
            E(r, c) += C(i, r) * std::fabs(G(n - 1, i) * K(s + i, c));
            S(r, c) += D(i, r) * G(n - 1, i) * K(s + i, c);
          }
    }
    for (std::int64_t r = 0; r < dv; ++r)
      for (std::int64_t c = 0; c < dk; ++c) out["s_final"].data[(bh * dv + r) * dk + c] = E(r, c);
  }
  return out;
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
    op.validate = [](const TensorMap& in) { input_checks::delta_family(in, "delta_rule", false); };
    op.oracle = [](const TensorMap& in) { return eval_delta<mp_t, MpTensor>(in, "delta_rule", false); };
    op.baseline = [](const TensorMap& in, Precision p) {
      return at_precision(p, [&](auto s) { return eval_delta<decltype(s), Tensor>(in, "delta_rule", false); });
    };
    op.generate = [](const CaseKnobs& k, Precision p) { return gen_delta(k, p, false); };
    op.accumulation_length = delta_length;
    op.condition = [](const TensorMap& in) { return delta_condition(in, "delta_rule", false); };
    op.solve_magnitude = [](const TensorMap& in) { return delta_solve_magnitude(in, "delta_rule", false); };
    op.perturbed = [](const TensorMap& in, double ds, double da, std::uint64_t seed) { return delta_perturbed(in, "delta_rule", false, ds, da, seed); };
    add_op(v, std::move(op));
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
    op.validate = [](const TensorMap& in) { input_checks::delta_family(in, "gated_delta_rule", true); };
    op.oracle = [](const TensorMap& in) { return eval_delta<mp_t, MpTensor>(in, "gated_delta_rule", true); };
    op.baseline = [](const TensorMap& in, Precision p) {
      return at_precision(p, [&](auto s) { return eval_delta<decltype(s), Tensor>(in, "gated_delta_rule", true); });
    };
    op.generate = [](const CaseKnobs& k, Precision p) { return gen_delta(k, p, true); };
    op.accumulation_length = delta_length;
    op.condition = [](const TensorMap& in) { return delta_condition(in, "gated_delta_rule", true); };
    op.solve_magnitude = [](const TensorMap& in) { return delta_solve_magnitude(in, "gated_delta_rule", true); };
    op.perturbed = [](const TensorMap& in, double ds, double da, std::uint64_t seed) { return delta_perturbed(in, "gated_delta_rule", true, ds, da, seed); };
    add_op(v, std::move(op));
  }
}

}  // namespace recall
