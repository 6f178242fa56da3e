// libFuzzer target: the .npy parser on arbitrary bytes. Every input must either be refused with
// std::invalid_argument / std::runtime_error (a message naming the field) or parse to an array
// whose data matches its shape, and which writes back and re-parses to the same bits.
#include "recall/tools/npy.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

using namespace recall;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool bf16 = data[0] & 1;  // the first byte picks the uint16 -> bf16 reading
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  npy::Array a;
  try {
    a = npy::parse_npy(bytes, "fuzz.npy", bf16);
  } catch (const std::invalid_argument&) {
    return 0;
  } catch (const std::runtime_error&) {
    return 0;
  }
  std::size_t n = 1;
  for (auto d : a.shape) {
    if (d < 0) std::abort();
    n *= static_cast<std::size_t>(d);
  }
  if (n != a.data.size()) std::abort();  // data and shape disagree: a parser bug
  const npy::Array b = npy::parse_npy(npy::write_npy(a), "roundtrip.npy", a.dtype == npy::DType::bf16);
  if (b.shape != a.shape || b.dtype != a.dtype || b.data.size() != a.data.size()) std::abort();
  if (!a.data.empty() && std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(double)) != 0) {
    // NaN payloads may be canonicalised by the 16-bit conversions; anything else is a bug
    for (std::size_t i = 0; i < a.data.size(); ++i)
      if (!(a.data[i] != a.data[i] && b.data[i] != b.data[i]) && std::memcmp(&a.data[i], &b.data[i], sizeof(double)) != 0) std::abort();
  }
  return 0;
}
