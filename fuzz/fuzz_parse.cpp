// libFuzzer target: the command line's own value parsing (--shape, --keys, --gates, --betas).
// Refusal is std::invalid_argument naming the item; an accepted shape has every field in [1, 2^20].
#include "recall/tools/parse.hpp"

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

using namespace recall;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string s(reinterpret_cast<const char*>(data), size);
  try {
    CaseKnobs k;
    parse_shape(s, k);
    for (int v : {k.B, k.H, k.T, k.dk, k.dv})
      if (v < 1 || v > (1 << 20)) std::abort();
  } catch (const std::invalid_argument&) {
  }
  for (auto* f : {+[](const std::string& x) { (void)parse_key_kind(x); }, +[](const std::string& x) { (void)parse_gate_kind(x); },
                  +[](const std::string& x) { (void)parse_beta_kind(x); }}) {
    try {
      f(s);
    } catch (const std::invalid_argument&) {
    }
  }
  return 0;
}
