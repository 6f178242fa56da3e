#include "recall/gpu/device.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace recall::gpu {

int device_count(std::string* why) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (why) *why = std::string("cudaGetDeviceCount failed: ") + cudaGetErrorString(e);
    return 0;
  }
  if (n == 0 && why) *why = "the CUDA runtime reports no device";
  return n;
}

std::string device_name() {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return "unknown";
  return std::string(p.name) + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) + ")";
}

namespace {
__global__ void affine(const float* x, float* y, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
}  // namespace

int smoke_test(int n) {
  std::vector<float> h(n), out(n, -1.0f);
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i);
  float *dx = nullptr, *dy = nullptr;
  if (cudaMalloc(&dx, n * sizeof(float)) != cudaSuccess || cudaMalloc(&dy, n * sizeof(float)) != cudaSuccess) return n;
  cudaMemcpy(dx, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  affine<<<(n + 255) / 256, 256>>>(dx, dy, n);
  cudaMemcpy(out.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += out[i] != 2.0f * h[i] + 1.0f;
  return wrong;
}

}  // namespace recall::gpu
