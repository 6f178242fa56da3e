// Device discovery for gpu/: tests and the registry ask here whether a CUDA device is usable.
#pragma once

#include <string>

namespace recall::gpu {
// Number of usable CUDA devices; 0 with the reason in *why when none (no driver, no device, ...).
int device_count(std::string* why);
// Name and compute capability of device 0, e.g. "NVIDIA H100 80GB HBM3 (sm_90)".
std::string device_name();
// Runs a trivial kernel (x -> 2x + 1 on n elements) and returns the number of wrong results;
// proves the build, launch and copy path end to end.
int smoke_test(int n);
}  // namespace recall::gpu
