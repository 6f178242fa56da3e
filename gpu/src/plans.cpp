// Launch plans of the gpu/ kernels (host code, no CUDA: tested on machines without a GPU).
#include "recall/gpu/programs.hpp"

#include <stdexcept>
#include <string>

namespace recall::gpu {
namespace {
int threads_for(i64 work) {
  // enough threads for the widest phase (a value column each at least), in whole warps, <= 256
  i64 t = work < 32 ? 32 : work;
  t = (t + 31) / 32 * 32;
  return int(t > 256 ? 256 : t);
}
void check(const SeqDims& d, const char* who) {
  if (d.B < 1 || d.H < 1 || d.T < 1 || d.dk < 1 || d.dv < 1)
    throw std::invalid_argument(std::string(who) + ": B, H, T, dk, dv must all be >= 1");
}
}  // namespace

// Largest power-of-two halving of c_max whose layout fits; `make(C)` gives {floats, threads, grid}.
template <class Make> LaunchPlan fit(const SeqDims& d, int c_max, std::size_t smem_limit, const char* who, Make&& make) {
  check(d, who);
  if (c_max < 1) throw std::invalid_argument(std::string(who) + ": chunk/tile must be >= 1");
  for (int C = c_max; C >= 1; C /= 2) {
    LaunchPlan p = make(C);
    if (p.smem_bytes <= smem_limit) return p;
  }
  throw std::invalid_argument(std::string(who) + ": dk = " + std::to_string(d.dk) + ", dv = " + std::to_string(d.dv) +
                              " do not fit the shared memory of one block (" + std::to_string(smem_limit) +
                              " bytes) even with chunk 1");
}

LaunchPlan plan_linear_attention(const SeqDims& d, int c_max, std::size_t smem_limit) {
  return fit(d, c_max, smem_limit, "plan_linear_attention", [&](int C) {
    return LaunchPlan{d.B * d.H, threads_for(i64(d.dv) * d.dk), LaLayout{d.dk, d.dv, C}.floats() * sizeof(float), C, 0, 0};
  });
}
LaunchPlan plan_delta_rule(const SeqDims& d, int c_max, std::size_t smem_limit) {
  return fit(d, c_max, smem_limit, "plan_delta_rule", [&](int C) {
    return LaunchPlan{d.B * d.H, threads_for(i64(d.dv) * d.dk), DrLayout{d.dk, d.dv, C}.floats() * sizeof(float), C, 0, 0};
  });
}
LaunchPlan plan_softmax(const SeqDims& d, int b_max, std::size_t smem_limit) {
  return fit(d, b_max, smem_limit, "plan_softmax", [&](int b) {
    return LaunchPlan{d.B * d.H * ((d.T + b - 1) / b), threads_for(b), SmLayout{d.dk, d.dv, b, b}.floats() * sizeof(float), 0, b, b};
  });
}
LaunchPlan plan_u_solve(const SeqDims& d, int c_max, std::size_t smem_limit) {
  return fit(d, c_max, smem_limit, "plan_u_solve", [&](int C) {
    return LaunchPlan{d.B * d.H, threads_for(i64(C) * d.dv), UsLayout{d.dk, d.dv, C}.floats() * sizeof(float), C, 0, 0};
  });
}

SeqDims checked_dims(int B, int H, int T, int dk, int dv, int chunk, const void* q, const void* k, const void* v, const void* o,
                     const char* who) {
  if (!q || !k || !v || !o) throw std::invalid_argument(std::string(who) + ": q, k, v and o must not be null");
  if (B < 1 || H < 1 || T < 1 || dk < 1 || dv < 1)
    throw std::invalid_argument(std::string(who) + ": B, H, T, dk, dv must all be >= 1");
  if (chunk < 1) throw std::invalid_argument(std::string(who) + ": chunk/tile must be >= 1");
  SeqDims d;
  d.B = B;
  d.H = H;
  d.T = T;
  d.dk = dk;
  d.dv = dv;
  d.C = chunk;
  return d;
}


}  // namespace recall::gpu
