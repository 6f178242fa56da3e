// Registry adapters of the Omega-rule, Atlas and Newton–Schulz kernels (optimized/omega.hpp, newton_schulz.hpp).
#include "recall/properties/registry.hpp"

#include "op_support.hpp"
#include "recall/optimized/newton_schulz.hpp"
#include "recall/optimized/omega.hpp"
#include "recall/properties/ops.hpp"

#include <cmath>
#include <string>

namespace recall {
namespace {

using namespace op_support;

enum class Which { sequential, chunked, atlas_eq32, atlas_d4 };

// `chunk` > 0 forces the chunk size (omega_rule's chunk-1 twin); 0 reads the op's 'chunk' input
template <class T> TensorMap run_omega(const TensorMap& in, const std::string& opname, Which w, int chunk) {
  op(opname).validate(in);
  const auto [B, H, Tn, dk, dv] = dims_of(in, opname);
  const int degree = in.count("degree") ? static_cast<int>(std::lround(in.at("degree").data[0])) : 0;
  const int D = opt::omega_feature_dim(static_cast<int>(dk), degree);
  const int c = static_cast<int>(in.at("gamma").shape[3]);
  auto qd = to<T>(in.at("q")), kd = to<T>(in.at("k")), vd = to<T>(in.at("v"));
  auto la = to<T>(in.at("log_alpha")), eta = to<T>(in.at("eta")), gam = to<T>(in.at("gamma"));
  std::vector<T> s0, m0, lt, o(static_cast<std::size_t>(B * H * Tn * dv)), s(static_cast<std::size_t>(B * H * dv) * D), m;
  const bool atlas = w == Which::atlas_eq32 || w == Which::atlas_d4;
  opt::AtlasArgs<T> a;
  a.B = static_cast<int>(B); a.H = static_cast<int>(H); a.T = static_cast<int>(Tn); a.dk = static_cast<int>(dk); a.dv = static_cast<int>(dv);
  a.degree = degree; a.c = c;
  a.chunk = chunk > 0 ? chunk : (in.count("chunk") ? static_cast<int>(std::lround(in.at("chunk").data[0])) : 1);
  a.q = qd.data(); a.k = kd.data(); a.v = vd.data(); a.log_alpha = la.data(); a.eta = eta.data(); a.gamma = gam.data();
  a.o = o.data(); a.s_final = s.data();
  if (in.count("s0")) { s0 = to<T>(in.at("s0")); a.s0 = s0.data(); }
  if (atlas) {
    lt = to<T>(in.at("log_theta"));
    a.log_theta = lt.data();
    if (in.count("m0")) { m0 = to<T>(in.at("m0")); a.m0 = m0.data(); }
    m.resize(s.size());
    a.m_final = m.data();
    a.variant = w == Which::atlas_eq32 ? opt::AtlasVariant::eq32 : opt::AtlasVariant::d4;
    opt::atlas_chunked(a);
  } else if (w == Which::sequential) {
    opt::omega_rule_sequential(static_cast<const opt::OmegaArgs<T>&>(a));
  } else {
    opt::omega_rule_chunked(static_cast<const opt::OmegaArgs<T>&>(a));
  }
  TensorMap out;
  out["o"] = from({B, H, Tn, dv}, o);
  out["s_final"] = from({B, H, dv, D}, s);
  if (atlas) out["m_final"] = from({B, H, dv, D}, m);
  return out;
}

template <class T> TensorMap run_ns(const TensorMap& in) {
  op("newton_schulz5").validate(in);
  const Tensor& x = in.at("x");
  auto xd = to<T>(x);
  std::vector<T> o(xd.size());
  opt::NewtonSchulzArgs<T> a;
  a.batch = static_cast<int>(x.shape[0] * x.shape[1]);
  a.m = static_cast<int>(x.shape[2]);
  a.n = static_cast<int>(x.shape[3]);
  a.g = xd.data();
  a.x = o.data();
  opt::newton_schulz(a);
  TensorMap out;
  out["o"] = from({x.shape[0], x.shape[1], x.shape[2], x.shape[3]}, o);
  return out;
}

template <class T> void add(Registry& r, Precision p) {
  r.add({"omega_rule", "cpu.sequential", "cpu", p, [](const TensorMap& in) { return run_omega<T>(in, "omega_rule", Which::sequential, 0); },
         "c rank-1 window terms per token through two small GEMMs"});
  r.add({"omega_rule", "cpu.chunked.b1", "cpu", p, [](const TensorMap& in) { return run_omega<T>(in, "omega_rule", Which::chunked, 1); },
         "the frozen-gradient chunk kernel with chunk 1 (= the token-sequential rule)"});
  r.add({"omega_chunk", "cpu.chunked", "cpu", p, [](const TensorMap& in) { return run_omega<T>(in, "omega_chunk", Which::chunked, 0); },
         "tensorised chunk form Y = diag(A) Phi_Q M0^T - 2 (C ⊙ Phi_Q Phi_K^T) E, C = D Gamma (A002-OMEGA-CHUNK-LINEAR)"});
  r.add({"atlas_eq32", "cpu.chunked", "cpu", p, [](const TensorMap& in) { return run_omega<T>(in, "atlas_eq32", Which::atlas_eq32, 0); },
         "frozen window gradients per chunk, momentum scan, NS5 per momentum (Eigen GEMMs)"});
  r.add({"atlas_d4", "cpu.chunked", "cpu", p, [](const TensorMap& in) { return run_omega<T>(in, "atlas_d4", Which::atlas_d4, 0); },
         "frozen window gradients per chunk, momentum scan, NS5 per momentum (Eigen GEMMs)"});
  r.add({"newton_schulz5", "cpu.batched", "cpu", p, [](const TensorMap& in) { return run_ns<T>(in); },
         "three GEMMs per step on the short side, batch of B*H matrices"});
}

}  // namespace

void register_omega_implementations(Registry& r) {
  add<float>(r, Precision::f32);
  add<double>(r, Precision::f64);
}

}  // namespace recall
