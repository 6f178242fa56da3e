// Launch plans of the gpu/ kernels (host code, no CUDA: tested on machines without a GPU).
#include "recall/gpu/programs.hpp"
#include "recall/gpu/tc_programs.hpp"
#include "recall/gpu/tc_delta_parallel.hpp"
#include "recall/gpu/tc_linear_parallel.hpp"
#include "recall/gpu/tc_softmax_mma.hpp"

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

namespace {
void check_tc(const SeqDims& d, const char* who) {
  check(d, who);
  if (d.dk > kTcMaxDk)
    throw std::invalid_argument(std::string(who) + ": dk = " + std::to_string(d.dk) + " exceeds the tensor-core programs' limit " +
                                std::to_string(kTcMaxDk));
}
// One block per (head, value tile): the widest tile of 64 / 32 / 16 columns that fits.
template <class Bytes>
LaunchPlan tc_value_tiled(const SeqDims& d, std::size_t smem_limit, std::size_t smem_per_sm, int threads, const char* who, Bytes&& bytes) {
  check_tc(d, who);
  int widest = 64;
  while (widest > 16 && widest >= 2 * pad16(d.dv)) widest /= 2;  // no wider than dv needs
  auto make = [&](int vt) {
    LaunchPlan p{d.B * d.H * ((d.dv + vt - 1) / vt), threads, bytes(vt), kTcC, 0, 0};
    p.vt = vt;
    return p;
  };
  // two blocks per multiprocessor (1 KiB reserved per block) where a tile allows it
  if (smem_per_sm > 0)
    for (int vt = widest; vt >= 16; vt /= 2)
      if (2 * (bytes(vt) + 1024) <= smem_per_sm && bytes(vt) <= smem_limit) return make(vt);
  for (int vt = widest; vt >= 16; vt /= 2)
    if (bytes(vt) <= smem_limit) return make(vt);
  throw std::invalid_argument(std::string(who) + ": dk = " + std::to_string(d.dk) + " does not fit the shared memory of one block (" +
                              std::to_string(smem_limit) + " bytes) even with a 16-column value tile");
}
}  // namespace

LaunchPlan plan_tc_linear_attention(const SeqDims& d, std::size_t smem_limit, std::size_t smem_per_sm, bool chunk_parallel) {
  if (chunk_parallel) {
    // the widest value tile (<= 64, no wider than dv needs) whose output pass fits one block
    LaunchPlan p = tc_value_tiled(d, smem_limit, 0, kTcThreads, "plan_tc_linear_attention",
                                  [&](int vt) { return TcLaParLayout(d.dk, vt, true).bytes; });
    const LaParDims P(d, p.vt);
    p.chunk_parallel = true;
    p.grid = d.B * d.H * P.NC * P.NVT;
    p.smem_bytes = TcLaParLayout(d.dk, p.vt, false).bytes;
    p.smem_out = TcLaParLayout(d.dk, p.vt, true).bytes;
    p.grid_scan = la_scan_blocks(d, p.vt);
    p.grid_out = p.grid;
    p.work_bytes = la_work_bytes(d, p.vt);
    return p;
  }
  return tc_value_tiled(d, smem_limit, smem_per_sm, kTcThreads, "plan_tc_linear_attention",
                        [&](int vt) { return TcSeqLayout(d.dk, vt, false).bytes; });
}
// The delta rule's chunk products (K K^T, Q K^T) are recomputed by every value tile: it keeps the
// widest tile and one block of 16 warps per multiprocessor instead of narrowing to fit two.
LaunchPlan plan_tc_delta_rule(const SeqDims& d, std::size_t smem_limit, std::size_t, bool chunk_parallel) {
  if (chunk_parallel) {
    // the widest value tile whose state walk (the largest pass) fits one block
    LaunchPlan p = tc_value_tiled(d, smem_limit, 0, kTcThreads, "plan_tc_delta_rule", [&](int vt) {
      const std::size_t a = TcDrScanLayout(d.dk, vt).bytes, b = TcLaParLayout(d.dk, vt, true).bytes, c = TcDrUtLayout(d.dk).bytes;
      return a > b ? (a > c ? a : c) : (b > c ? b : c);
    });
    const LaParDims P(d, p.vt);
    p.chunk_parallel = true;
    p.grid = d.B * d.H * P.NC * (P.NVT + dr_key_tiles(P.DKP));
    p.smem_bytes = TcDrUtLayout(d.dk).bytes;
    p.grid_scan = d.B * d.H * P.NVT;
    p.smem_scan = TcDrScanLayout(d.dk, p.vt).bytes;
    p.grid_out = d.B * d.H * P.NC * P.NVT;
    p.smem_out = TcLaParLayout(d.dk, p.vt, true).bytes;
    p.work_bytes = dr_work_bytes(d, p.vt);
    return p;
  }
  return tc_value_tiled(d, smem_limit, 0, kTcDrThreads, "plan_tc_delta_rule", [&](int vt) { return TcSeqLayout(d.dk, vt, true).bytes; });
}
LaunchPlan plan_tc_u_solve(const SeqDims& d, std::size_t smem_limit, std::size_t smem_per_sm) {
  return tc_value_tiled(d, smem_limit, smem_per_sm, kTcThreads, "plan_tc_u_solve", [&](int vt) { return TcUsLayout(d.dk, vt).bytes; });
}
// dk, dv <= 128: the mma.sync program (128 query rows, 8 warps, registers); larger heads: WMMA.
LaunchPlan plan_tc_softmax(const SeqDims& d, std::size_t smem_limit) {
  check_tc(d, "plan_tc_softmax");
  if (d.dk <= kMmaSmMaxD && d.dv <= kMmaSmMaxD) {
    const std::size_t b = TcSmMmaLayout(d.dk, d.dv).bytes;
    if (b <= smem_limit) return LaunchPlan{d.B * d.H * ((d.T + kMmaSmRows - 1) / kMmaSmRows), kMmaSmThreads, b, 0, kMmaSmRows, kMmaSmKeys};
  }
  const std::size_t b = TcSmLayout(d.dk, d.dv).bytes;
  if (b > smem_limit)
    throw std::invalid_argument("plan_tc_softmax: dk = " + std::to_string(d.dk) + ", dv = " + std::to_string(d.dv) +
                                " need " + std::to_string(b) + " bytes of shared memory, more than " + std::to_string(smem_limit));
  LaunchPlan p{d.B * d.H * ((d.T + kTcC - 1) / kTcC), kTcSmThreads, b, 0, kTcC, kTcC};
  return p;
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
