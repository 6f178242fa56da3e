#include "recall/properties/corners.hpp"

#include "recall/properties/discrimination.hpp"
#include "recall/properties/generators.hpp"

#include <cmath>
#include <limits>

namespace recall {
namespace {

// sets element t (0-based token) of every (b, h) sequence of a [B, H, T] tensor
void set_token(Tensor& x, std::int64_t t, double v) {
  const std::int64_t T = x.shape[2];
  for (std::int64_t bh = 0; bh < x.shape[0] * x.shape[1]; ++bh) x.data[static_cast<std::size_t>(bh * T + t)] = v;
}
// zeroes row t of every sequence of a [B, H, T, d] tensor
void zero_row(Tensor& x, std::int64_t t) {
  const std::int64_t T = x.shape[2], d = x.shape[3];
  for (std::int64_t bh = 0; bh < x.shape[0] * x.shape[1]; ++bh)
    for (std::int64_t j = 0; j < d; ++j) x.data[static_cast<std::size_t>((bh * T + t) * d + j)] = 0.0;
}

}  // namespace

TensorMap with_zero_initial_state(const OpSpec& o, const TensorMap& in) {
  if (!o.input("s0") && !o.input("z0") && !o.input("m0")) return {};
  TensorMap out = in;
  const Tensor& q = in.at("q");
  const Tensor& v = in.at("v");
  const std::int64_t B = q.shape[0], H = q.shape[1], dk = q.shape[3], dv = v.shape[3];
  // the shape of an initial state whose width is not d_k (the Omega/Atlas memories on D features): that of the
  // input already present, else of the final state the op returns (its double baseline, run once)
  TensorMap finals;
  auto shape_of = [&](const char* name, const char* final_name, std::vector<std::int64_t> plain) -> std::vector<std::int64_t> {
    const TensorDecl* d = o.input(name);
    if (auto it = in.find(name); it != in.end()) return it->second.shape;
    if (d->shape == "B,H,dv,dk" || d->shape == "B,H,dk") return plain;
    if (finals.empty()) finals = o.baseline(in, Precision::f64);
    return finals.at(final_name).shape;
  };
  auto zeros = [](std::vector<std::int64_t> shape) {
    std::size_t n = 1;
    for (auto x : shape) n *= static_cast<std::size_t>(x);
    return Tensor{shape, std::vector<double>(n, 0.0)};
  };
  if (o.input("s0")) out["s0"] = zeros(shape_of("s0", "s_final", {B, H, dv, dk}));
  if (o.input("z0")) out["z0"] = zeros(shape_of("z0", "z_final", {B, H, dk}));
  if (o.input("m0")) out["m0"] = zeros(shape_of("m0", "m_final", {B, H, dv, dk}));
  return out;
}

std::vector<CornerCase> nan_corner_cases(const OpSpec& o, Precision p) {
  std::vector<CornerCase> cs;
  // the realistic inputs of the discrimination suite (unit keys, beta |k|^2 in [0,1], uniform gates)
  auto base = [&](int T, int d, bool s0, std::uint64_t seed) {
    return o.generate(DiscriminationShape{1, 2, T, d, d, GateKind::uniform, s0, seed}.knobs(), p);
  };
  const int T = 65;  // chunk sizes 16 and 64 both leave a tail
  const std::string tail = ", T=65 d=8";
  if (const char* g = o.gate_input()) {
    const double ninf = -std::numeric_limits<double>::infinity();
    struct At {
      std::int64_t t;
      const char* where;
    };
    for (const At a : {At{0, "t=1"}, At{T - 1, "t=T"}, At{15, "t=16 (last of a 16-chunk)"}, At{16, "t=17 (first of a 16-chunk)"},
                       At{63, "t=64 (last of a 64-chunk)"}, At{64, "t=65 (first of the tail 64-chunk)"}, At{40, "t=41 (mid-chunk)"}}) {
      TensorMap in = base(T, 8, true, 500 + static_cast<std::uint64_t>(a.t));
      set_token(in.at(g), a.t, ninf);
      cs.push_back({std::string(g) + " = -inf at " + a.where + tail, std::move(in)});
    }
    for (bool s0 : {false, true}) {
      TensorMap in = base(T, 8, s0, 600 + s0);
      for (std::int64_t t = 0; t < T; ++t) set_token(in.at(g), t, ninf);
      cs.push_back({std::string(g) + " = -inf at every token" + (s0 ? " (with s0)" : "") + tail, std::move(in)});
    }
    {
      TensorMap in = base(T, 8, true, 610);
      for (std::int64_t t = 0; t < T; ++t) set_token(in.at(g), t, 0.0);
      cs.push_back({std::string(g) + " = 0 (no decay) at every token" + tail, std::move(in)});
    }
    for (double lg : {-100.0, -720.0}) {
      TensorMap in = base(T, 8, true, 620 + static_cast<std::uint64_t>(-lg));
      for (std::int64_t t = 0; t < T; ++t) set_token(in.at(g), t, round_value(lg, p));
      cs.push_back({std::string(g) + " = " + std::to_string(static_cast<int>(lg)) + " (decays underflow) at every token" + tail,
                    std::move(in)});
    }
  }
  if (o.input("beta")) {
    for (int every : {1, 3}) {
      TensorMap in = base(T, 8, true, 700 + static_cast<std::uint64_t>(every));
      for (std::int64_t t = 0; t < T; t += every) set_token(in.at("beta"), t, 0.0);
      cs.push_back({std::string("beta = 0 at ") + (every == 1 ? "every token" : "every third token") + tail, std::move(in)});
    }
  }
  if (o.input("k")) {
    TensorMap in = base(T, 8, true, 710);
    for (std::int64_t t : {std::int64_t{1}, std::int64_t{40}, std::int64_t{T - 1}}) zero_row(in.at("k"), t);
    cs.push_back({"zero keys at t=2, 41, T" + tail, std::move(in)});
  }
  for (int Tn : {1, 15, 17, 63, 65}) {
    TensorMap in = base(Tn, 1, /*s0=*/Tn % 4 == 1, 800 + static_cast<std::uint64_t>(Tn));  // 15, 63: none
    cs.push_back({"T=" + std::to_string(Tn) + " d=1", std::move(in)});
  }
  return cs;
}

}  // namespace recall
