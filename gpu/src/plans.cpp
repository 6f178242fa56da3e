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

LaunchPlan plan_linear_attention(const SeqDims& d, int c_max, std::size_t smem_limit) {
  check(d, "plan_linear_attention");
  if (c_max < 1) throw std::invalid_argument("plan_linear_attention: chunk must be >= 1");
  for (int C = c_max; C >= 1; C /= 2) {
    const std::size_t bytes = LaLayout{d.dk, d.dv, C}.floats() * sizeof(float);
    if (bytes <= smem_limit) return LaunchPlan{d.B * d.H, threads_for(i64(d.dv) * d.dk), bytes, C, 0, 0};
  }
  throw std::invalid_argument("plan_linear_attention: the state dv x dk = " + std::to_string(d.dv) + " x " + std::to_string(d.dk) +
                              " does not fit the shared memory of one block (" + std::to_string(smem_limit) + " bytes)");
}

LaunchPlan plan_delta_rule(const SeqDims& d, int c_max, std::size_t smem_limit) {
  check(d, "plan_delta_rule");
  if (c_max < 1) throw std::invalid_argument("plan_delta_rule: chunk must be >= 1");
  for (int C = c_max; C >= 1; C /= 2) {
    const std::size_t bytes = DrLayout{d.dk, d.dv, C}.floats() * sizeof(float);
    if (bytes <= smem_limit) return LaunchPlan{d.B * d.H, threads_for(i64(d.dv) * d.dk), bytes, C, 0, 0};
  }
  throw std::invalid_argument("plan_delta_rule: the state dv x dk = " + std::to_string(d.dv) + " x " + std::to_string(d.dk) +
                              " does not fit the shared memory of one block (" + std::to_string(smem_limit) + " bytes)");
}

LaunchPlan plan_softmax(const SeqDims& d, int b_max, std::size_t smem_limit) {
  check(d, "plan_softmax");
  if (b_max < 1) throw std::invalid_argument("plan_softmax: tile must be >= 1");
  for (int b = b_max; b >= 1; b /= 2) {
    const std::size_t bytes = SmLayout{d.dk, d.dv, b, b}.floats() * sizeof(float);
    if (bytes <= smem_limit) {
      const i64 tiles = (d.T + b - 1) / b;
      return LaunchPlan{d.B * d.H * tiles, threads_for(b), bytes, 0, b, b};
    }
  }
  throw std::invalid_argument("plan_softmax: one query row and key of widths dk = " + std::to_string(d.dk) + ", dv = " +
                              std::to_string(d.dv) + " do not fit the shared memory of one block");
}

LaunchPlan plan_u_solve(const SeqDims& d, int c_max, std::size_t smem_limit) {
  check(d, "plan_u_solve");
  if (c_max < 1) throw std::invalid_argument("plan_u_solve: chunk must be >= 1");
  for (int C = c_max; C >= 1; C /= 2) {
    const std::size_t bytes = UsLayout{d.dk, d.dv, C}.floats() * sizeof(float);
    if (bytes <= smem_limit) return LaunchPlan{d.B * d.H, threads_for(i64(C) * d.dv), bytes, C, 0, 0};
  }
  throw std::invalid_argument("plan_u_solve: one row of widths dk = " + std::to_string(d.dk) + ", dv = " + std::to_string(d.dv) +
                              " does not fit the shared memory of one block");
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
