// Host-side helpers shared by the CUDA translation units of gpu/src (error checks, launch limits).
#pragma once

#include "recall/gpu/programs.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace recall::gpu::detail {

inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("recall gpu: ") + what + ": " + cudaGetErrorString(e));
}
// Opt the kernel into `bytes` of dynamic shared memory (beyond the 48 KiB default).
template <class K> void set_smem(K kernel, std::size_t bytes) {
  cuda_check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
             "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
}
// gridDim.x of a plan (at most 2^31 - 1 blocks).
inline unsigned grid_of(const LaunchPlan& plan) {
  if (plan.grid < 1 || plan.grid > 0x7fffffffLL) throw std::invalid_argument("recall gpu: grid size out of range");
  return static_cast<unsigned>(plan.grid);
}

}  // namespace recall::gpu::detail
