// Registering an in-process kernel: one call to registry().add(...) and the kernel gets the whole
// agreement suite (corner cases with the error budget) and its rows in `recall report`.
// Here the "user kernel" is a plain float loop of gated linear attention.
#include "recall/properties/agreement.hpp"

#include <cmath>
#include <iostream>

namespace {

// The user's kernel: reads q, k, v [B,H,T,d], log_gate [B,H,T], optional s0 [B,H,dv,dk].
recall::TensorMap my_gated_linear_attention(const recall::TensorMap& in) {
  const auto& q = in.at("q");
  const auto& k = in.at("k");
  const auto& v = in.at("v");
  const auto& g = in.at("log_gate");
  const auto B = q.shape[0], H = q.shape[1], T = q.shape[2], dk = q.shape[3], dv = v.shape[3];
  recall::TensorMap out;
  out["o"] = {{B, H, T, dv}, std::vector<double>(B * H * T * dv)};
  out["s_final"] = {{B, H, dv, dk}, std::vector<double>(B * H * dv * dk)};
  for (std::int64_t bh = 0; bh < B * H; ++bh) {
    std::vector<float> S(dv * dk, 0.0f);
    if (auto it = in.find("s0"); it != in.end())
      for (std::int64_t i = 0; i < dv * dk; ++i) S[i] = static_cast<float>(it->second.data[bh * dv * dk + i]);
    for (std::int64_t t = 0; t < T; ++t) {
      const float a = std::exp(static_cast<float>(g.data[bh * T + t]));
      const double* kt = &k.data[(bh * T + t) * dk];
      const double* vt = &v.data[(bh * T + t) * dv];
      const double* qt = &q.data[(bh * T + t) * dk];
      for (std::int64_t r = 0; r < dv; ++r) {
        float acc = 0.0f;
        for (std::int64_t c = 0; c < dk; ++c) {
          float& s = S[r * dk + c];
          s = a * s + static_cast<float>(vt[r]) * static_cast<float>(kt[c]);
          acc += s * static_cast<float>(qt[c]);
        }
        out["o"].data[(bh * T + t) * dv + r] = acc;
      }
    }
    for (std::int64_t i = 0; i < dv * dk; ++i) out["s_final"].data[bh * dv * dk + i] = S[i];
  }
  return out;
}

}  // namespace

int main() {
  recall::register_builtin_implementations();
  recall::registry().add({"gated_linear_attention", "user.float_loop", "cpu", recall::Precision::f32, my_gated_linear_attention,
                          "example: a user's kernel registered in-process"});
  int failed = 0;
  for (const auto& r : recall::run_agreement(/*quick=*/true, "gated_linear_attention")) {
    if (r.impl != "user.float_loop") continue;
    std::cout << r.op << " / " << r.impl << " / " << r.precision << ": " << r.cases << " cases, max err " << r.max_err_u
              << " u, budget on the worst case " << r.budget_u << " u -> " << (r.pass ? "pass" : "FAIL") << '\n';
    if (!r.pass) {
      std::cout << "  worst: " << r.worst_case << " @ " << r.worst_index << '\n';
      ++failed;
    }
  }
  return failed == 0 ? 0 : 1;
}
