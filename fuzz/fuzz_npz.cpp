// libFuzzer target: the .npz reader (libzip archive, then each entry's .npy) on arbitrary bytes
// written to a file. Every input is refused with a named std::invalid_argument/runtime_error or
// gives arrays whose data matches their shapes.
#include "recall/tools/npy.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

using namespace recall;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/recall_fuzz_npz_" + std::to_string(::getpid()) + ".npz";
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    std::abort();
  }
  try {
    for (const auto& [name, a] : npy::read_npz(path, size > 0 && (data[size - 1] & 1))) {
      std::size_t n = 1;
      for (auto d : a.shape) n *= static_cast<std::size_t>(d);
      if (n != a.data.size()) std::abort();
    }
  } catch (const std::invalid_argument&) {
  } catch (const std::runtime_error&) {
  }
  return 0;
}
