// Tensor-core-style kernels for the 16-bit storage rows (bf16, f16): the structure of the
// production GPU kernels emulated on the CPU, so that the budget is judged on what such kernels
// really do. Every matmul operand that is an intermediate (a chunk state, a masked score matrix,
// the WY-corrected values, the softmax probabilities, the u vectors of the u-solve) is rounded to
// the storage format, as a kernel casts it for an MMA instruction; every product is accumulated
// in f32; the outputs are rounded to the storage format. Chunk size 64 (the common choice).
//   linear / gated linear attention: o_t = e^{b_t} rs(S) q_t + sum_{i<=t} rs(G_ti q_t.k_i) v_i,
//     S <- e^{b_e} S + sum_i v_i rs(G_ei k_i)^T (S kept in f32 across chunks);
//   normalised: the same with the values augmented by a column of ones (num and den), o = num/den;
//   delta / gated delta (WY/UT): (I + tril(diag(beta) K K^T (.) G)) D = diag(beta)(V - e^b K rs(S)^T),
//     D rounded (the kernel stores the corrected values in the storage format), then as above;
//   softmax (FlashAttention-2): f32 logits and row sums, P rounded before P V;
//   DeltaFormer: A and M in f32 then rounded, u stored (and reused) in the storage format.
// These are correct kernels at the shapes production runs (the discrimination suite and the
// report's realistic-shape table require the budget to accept them). They are not in the global
// registry: on the corner-case list they hit real limits of 16-bit storage (f16 scores of 1e-6 are
// subnormal; corrected values beta v overflow f16 for near-zero keys), which the budget rightly
// rejects in a kernel of that design.
#include "recall/properties/registry.hpp"

#include "op_support.hpp"
#include "recall/properties/ops.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace recall {
namespace {

using namespace op_support;
constexpr int kC = 64;

struct Ctx {
  Precision p;
  float rs(double x) const { return static_cast<float>(round_value(x, p)); }
};

// One (b,h) slice as float rows.
struct Head {
  std::int64_t T, dk, dv;
  std::vector<float> q, k, v, beta, g, s0, z0;
};
Head head(const TensorMap& in, const Dims& d, std::int64_t bh, const char* gate, bool beta) {
  Head h{d.T, d.dk, d.dv, {}, {}, {}, {}, {}, {}, {}};
  auto take = [&](const char* name, std::int64_t n, std::vector<float>& out) {
    const Tensor& t = in.at(name);
    out.assign(t.data.begin() + bh * n, t.data.begin() + (bh + 1) * n);
  };
  take("q", d.T * d.dk, h.q);
  take("k", d.T * d.dk, h.k);
  take("v", d.T * d.dv, h.v);
  if (beta) take("beta", d.T, h.beta);
  if (gate && in.count(gate)) take(gate, d.T, h.g);
  if (in.count("s0")) take("s0", d.dv * d.dk, h.s0);
  if (in.count("z0")) take("z0", d.dk, h.z0);
  return h;
}
float dotf(const float* a, const float* b, std::int64_t n) {
  float s = 0;
  for (std::int64_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}
// exp of the log-gate segment sum_{j=i+1}^{t} g_j (1 when ungated; 0 across a zero gate)
float seg_exp(const std::vector<float>& g, std::int64_t i, std::int64_t t) {
  if (g.empty()) return 1.0f;
  float s = 0;
  for (std::int64_t j = i + 1; j <= t; ++j) s += g[j];
  return std::exp(s);
}

// One chunk [s, e) of the linear-attention form with value rows Vc (row i - s for token i) and the
// rounded incoming state Sr: the outputs o_t = e^{b_t} rs(S) q_t + sum_{i<=t} rs(G_ti q_t.k_i) v_i,
// then S <- e^{b_e} S + sum_i v_i rs(G_ei k_i)^T (f32). Shared by the linear and the delta forms.
void chunk_out_and_state(const Ctx& cx, const Head& h, std::int64_t s, std::int64_t e, const float* Vc, std::int64_t dv,
                         const std::vector<float>& Sr, std::vector<float>& S, std::vector<float>& O) {
  const std::int64_t dk = h.dk;
  std::vector<float> kk(static_cast<std::size_t>(dk));
  for (std::int64_t t = s; t < e; ++t) {
    const float bt = seg_exp(h.g, s - 1, t);  // decay from the chunk's incoming state to t
    for (std::int64_t c = 0; c < dk; ++c) kk[c] = cx.rs(h.q[t * dk + c] * bt);
    for (std::int64_t r = 0; r < dv; ++r) O[t * dv + r] = dotf(&Sr[r * dk], kk.data(), dk);
    for (std::int64_t i = s; i <= t; ++i) {
      const float a = cx.rs(seg_exp(h.g, i, t) * dotf(&h.q[t * dk], &h.k[i * dk], dk));
      for (std::int64_t r = 0; r < dv; ++r) O[t * dv + r] += a * Vc[(i - s) * dv + r];
    }
  }
  const float be = seg_exp(h.g, s - 1, e - 1);
  for (float& x : S) x *= be;
  for (std::int64_t i = s; i < e; ++i) {
    const float w = seg_exp(h.g, i, e - 1);
    for (std::int64_t c = 0; c < dk; ++c) kk[c] = cx.rs(w * h.k[i * dk + c]);
    for (std::int64_t r = 0; r < dv; ++r)
      for (std::int64_t c = 0; c < dk; ++c) S[r * dk + c] += Vc[(i - s) * dv + r] * kk[c];
  }
}

// Linear attention family on values V (T x dv) with state S (dv x dk): returns O, updates S.
void la_chunks(const Ctx& cx, const Head& h, const std::vector<float>& V, std::int64_t dv, std::vector<float>& S, std::vector<float>& O) {
  O.assign(static_cast<std::size_t>(h.T * dv), 0.f);
  std::vector<float> Sr(S.size());
  for (std::int64_t s = 0; s < h.T; s += kC) {
    for (std::size_t i = 0; i < S.size(); ++i) Sr[i] = cx.rs(S[i]);
    chunk_out_and_state(cx, h, s, std::min(h.T, s + kC), &V[s * dv], dv, Sr, S, O);
  }
}

void delta_chunks(const Ctx& cx, const Head& h, std::vector<float>& S, std::vector<float>& O) {
  const std::int64_t T = h.T, dk = h.dk, dv = h.dv;
  O.assign(static_cast<std::size_t>(T * dv), 0.f);
  std::vector<float> Sr(S.size());
  for (std::int64_t s = 0; s < T; s += kC) {
    const std::int64_t e = std::min(T, s + kC), n = e - s;
    for (std::size_t i = 0; i < S.size(); ++i) Sr[i] = cx.rs(S[i]);
    // D = (I + L)^{-1} diag(beta) (V - e^b K rs(S)^T), forward substitution in f32, stored rounded
    std::vector<float> D(static_cast<std::size_t>(n * dv));
    for (std::int64_t t = s; t < e; ++t) {
      const float bt = seg_exp(h.g, s - 1, t);
      float* Dt = &D[(t - s) * dv];
      for (std::int64_t r = 0; r < dv; ++r) Dt[r] = h.beta[t] * (h.v[t * dv + r] - bt * dotf(&Sr[r * dk], &h.k[t * dk], dk));
      for (std::int64_t i = s; i < t; ++i) {
        const float l = h.beta[t] * seg_exp(h.g, i, t) * dotf(&h.k[t * dk], &h.k[i * dk], dk);
        for (std::int64_t r = 0; r < dv; ++r) Dt[r] -= l * D[(i - s) * dv + r];
      }
    }
    std::vector<float> Dr(D.size());
    for (std::size_t i = 0; i < D.size(); ++i) Dr[i] = cx.rs(D[i]);
    chunk_out_and_state(cx, h, s, e, Dr.data(), dv, Sr, S, O);
  }
}

enum class Fam { linear, gated, normalized, delta, gated_delta, softmax, df_u, df_norm };

TensorMap run_tc(const TensorMap& in, Fam f, Precision p) {
  static const char* names[] = {"linear_attention", "gated_linear_attention", "normalized_linear_attention", "delta_rule",
                                "gated_delta_rule", "softmax_attention",      "deltaformer_u",               "deltaformer_norm"};
  const std::string opname = names[static_cast<int>(f)];
  op(opname).validate(in);
  const Ctx cx{p};
  const Dims d = dims_of(in, opname);
  const bool state_op = f == Fam::linear || f == Fam::gated || f == Fam::normalized || f == Fam::delta || f == Fam::gated_delta;
  TensorMap out;
  out["o"] = make_out<Tensor>({d.B, d.H, d.T, d.dv});
  if (state_op) out["s_final"] = make_out<Tensor>({d.B, d.H, d.dv, d.dk});
  if (f == Fam::normalized) out["z_final"] = make_out<Tensor>({d.B, d.H, d.dk});
  if (f == Fam::df_u || f == Fam::df_norm) out["u"] = make_out<Tensor>({d.B, d.H, d.T, d.dv});
  const char* gate = f == Fam::gated ? "log_gate" : f == Fam::gated_delta ? "log_alpha" : nullptr;
  const bool beta = f == Fam::delta || f == Fam::gated_delta || ((f == Fam::df_u || f == Fam::df_norm) && in.count("beta"));
  const double scale = in.count("scale") ? in.at("scale").data[0] : 1.0 / std::sqrt(static_cast<double>(d.dk));
  for (std::int64_t bh = 0; bh < d.B * d.H; ++bh) {
    const Head h = head(in, d, bh, gate, beta);
    const std::int64_t T = d.T, dk = d.dk, dv = d.dv;
    std::vector<float> O;
    if (state_op) {
      std::vector<float> S = h.s0.empty() ? std::vector<float>(static_cast<std::size_t>(dv * dk), 0.f) : h.s0;
      if (f == Fam::normalized) {  // values [V 1], state [S; z^T]
        std::vector<float> Va(static_cast<std::size_t>(T * (dv + 1))), Sa(static_cast<std::size_t>((dv + 1) * dk), 0.f), Oa;
        for (std::int64_t t = 0; t < T; ++t) {
          for (std::int64_t r = 0; r < dv; ++r) Va[t * (dv + 1) + r] = h.v[t * dv + r];
          Va[t * (dv + 1) + dv] = 1.f;
        }
        std::copy(S.begin(), S.end(), Sa.begin());
        for (std::int64_t c = 0; c < dk && !h.z0.empty(); ++c) Sa[dv * dk + c] = h.z0[c];
        la_chunks(cx, h, Va, dv + 1, Sa, Oa);
        O.resize(static_cast<std::size_t>(T * dv));
        for (std::int64_t t = 0; t < T; ++t)
          for (std::int64_t r = 0; r < dv; ++r) O[t * dv + r] = Oa[t * (dv + 1) + r] / Oa[t * (dv + 1) + dv];
        std::copy(Sa.begin(), Sa.begin() + dv * dk, S.begin());
        for (std::int64_t c = 0; c < dk; ++c) out["z_final"].data[bh * dk + c] = cx.rs(Sa[dv * dk + c]);
      } else if (f == Fam::linear || f == Fam::gated) {
        la_chunks(cx, h, h.v, dv, S, O);
      } else {
        delta_chunks(cx, h, S, O);
      }
      for (std::int64_t i = 0; i < dv * dk; ++i) out["s_final"].data[bh * dv * dk + i] = cx.rs(S[i]);
    } else if (f == Fam::softmax) {
      O.assign(static_cast<std::size_t>(T * dv), 0.f);
      std::vector<float> l(static_cast<std::size_t>(T));
      for (std::int64_t t = 0; t < T; ++t) {
        float mx = -INFINITY, sum = 0;
        for (std::int64_t i = 0; i <= t; ++i) mx = std::max(mx, l[i] = static_cast<float>(scale) * dotf(&h.q[t * dk], &h.k[i * dk], dk));
        for (std::int64_t i = 0; i <= t; ++i) {
          const float pr = std::exp(l[i] - mx);
          sum += pr;
          const float prr = cx.rs(pr);
          for (std::int64_t r = 0; r < dv; ++r) O[t * dv + r] += prr * h.v[i * dv + r];
        }
        for (std::int64_t r = 0; r < dv; ++r) O[t * dv + r] /= sum;
      }
    } else {  // DeltaFormer: u stored in the storage format and reused as an operand
      const bool norm = f == Fam::df_norm;
      std::vector<float> U(static_cast<std::size_t>(T * dv)), w(static_cast<std::size_t>(T));
      auto weights = [&](const float* x, std::int64_t n) {  // rs of kernel / softmax weights of x against k_0..k_{n-1}
        float mx = -INFINITY, sum = 0;
        for (std::int64_t i = 0; i < n; ++i) mx = std::max(mx, w[i] = static_cast<float>(scale) * dotf(x, &h.k[i * dk], dk));
        if (norm) {
          for (std::int64_t i = 0; i < n; ++i) sum += std::exp(w[i] - mx);
          for (std::int64_t i = 0; i < n; ++i) w[i] = cx.rs(std::exp(w[i] - mx) / sum);
        } else {
          for (std::int64_t i = 0; i < n; ++i) w[i] = cx.rs(std::exp(w[i]));
        }
      };
      for (std::int64_t t = 0; t < T; ++t) {
        std::vector<float> acc(h.v.begin() + t * dv, h.v.begin() + (t + 1) * dv);
        if (t > 0) {
          weights(&h.k[t * dk], t);
          const float b = h.beta.empty() ? 1.f : h.beta[t];
          for (std::int64_t i = 0; i < t; ++i) {
            const float a = cx.rs(b * w[i]);
            for (std::int64_t r = 0; r < dv; ++r) acc[r] -= a * U[i * dv + r];
          }
        }
        for (std::int64_t r = 0; r < dv; ++r) U[t * dv + r] = cx.rs(acc[r]);
      }
      O.assign(static_cast<std::size_t>(T * dv), 0.f);
      for (std::int64_t t = 0; t < T; ++t) {
        weights(&h.q[t * dk], t + 1);
        for (std::int64_t i = 0; i <= t; ++i)
          for (std::int64_t r = 0; r < dv; ++r) O[t * dv + r] += w[i] * U[i * dv + r];
      }
      for (std::int64_t i = 0; i < T * dv; ++i) out["u"].data[bh * T * dv + i] = U[i];
    }
    for (std::int64_t i = 0; i < T * dv; ++i) out["o"].data[bh * T * dv + i] = cx.rs(O[i]);
  }
  return out;
}

}  // namespace

const std::vector<Implementation>& tensor_core_emulations() {
  static const std::vector<Implementation> v = [] {
    Registry r;
    add_tensor_core_emulations(r);
    return r.all();
  }();
  return v;
}

void add_tensor_core_emulations(Registry& r) {
  const std::pair<const char*, Fam> fams[] = {{"linear_attention", Fam::linear},     {"gated_linear_attention", Fam::gated},
                                              {"normalized_linear_attention", Fam::normalized}, {"delta_rule", Fam::delta},
                                              {"gated_delta_rule", Fam::gated_delta}, {"softmax_attention", Fam::softmax},
                                              {"deltaformer_u", Fam::df_u},          {"deltaformer_norm", Fam::df_norm}};
  for (Precision p : {Precision::bf16, Precision::f16})
    for (const auto& [name, f] : fams)
      r.add({name, "emu.tensorcore", "cpu (emulated)", p, [f = f, p](const TensorMap& in) { return run_tc(in, f, p); },
             "tensor-core style: intermediate matmul operands rounded to the storage format, f32 accumulation, chunks of 64"});
}

}  // namespace recall
