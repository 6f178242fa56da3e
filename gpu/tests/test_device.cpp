#include "recall/gpu/device.hpp"

#include <gtest/gtest.h>

TEST(GpuDevice, SmokeKernelRoundTrip) {
  std::string why;
  if (recall::gpu::device_count(&why) == 0) GTEST_SKIP() << "no CUDA device: " << why;
  RecordProperty("device", recall::gpu::device_name());
  EXPECT_EQ(recall::gpu::smoke_test(1000003), 0);
}
