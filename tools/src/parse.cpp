// The command line's own parsing (--shape, --keys, --gates, --betas): kept apart from the
// commands so the fuzzer (fuzz/fuzz_parse.cpp) links it with the generators alone.
#include "recall/tools/parse.hpp"

#include <sstream>
#include <stdexcept>

namespace recall {

KeyKind parse_key_kind(const std::string& s) {
  for (KeyKind k : {KeyKind::gaussian, KeyKind::near_zero, KeyKind::near_parallel, KeyKind::correlated, KeyKind::unit_sphere, KeyKind::integer})
    if (s == key_kind_name(k)) return k;
  throw std::invalid_argument("unknown key kind '" + s + "' (gaussian, near_zero, near_parallel, correlated, unit_sphere, integer)");
}
GateKind parse_gate_kind(const std::string& s) {
  for (GateKind g : {GateKind::ones, GateKind::uniform, GateKind::beta51, GateKind::zeros_mixed, GateKind::tiny, GateKind::near_one,
                     GateKind::saturating, GateKind::constant})
    if (s == gate_kind_name(g)) return g;
  throw std::invalid_argument("unknown gate kind '" + s +
                              "' (ones, uniform, beta51, zeros_mixed, tiny, near_one, saturating, constant)");
}

BetaKind parse_beta_kind(const std::string& s) {
  for (BetaKind b : {BetaKind::mixed, BetaKind::unit_interval, BetaKind::zero_one, BetaKind::near_two, BetaKind::beyond_two})
    if (s == beta_kind_name(b)) return b;
  throw std::invalid_argument("unknown beta kind '" + s + "' (mixed, unit_interval, zero_one, near_two, beyond_two)");
}

void parse_shape(const std::string& s, CaseKnobs& k) {
  std::istringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("--shape: '" + item + "' is not NAME=VALUE");
    const std::string name = item.substr(0, eq), val = item.substr(eq + 1);
    int v = 0;
    try {
      std::size_t used = 0;
      v = std::stoi(val, &used);
      if (used != val.size()) throw std::invalid_argument("trailing characters");
    } catch (const std::exception&) {
      throw std::invalid_argument("--shape: '" + val + "' is not an integer (in " + item + ")");
    }
    if (v < 1 || v > (1 << 20)) throw std::invalid_argument("--shape: " + name + " must be in [1, 2^20], got " + val);
    if (name == "B") k.B = v;
    else if (name == "H") k.H = v;
    else if (name == "T") k.T = v;
    else if (name == "dk" || name == "dphi") k.dk = v;
    else if (name == "dv") k.dv = v;
    else throw std::invalid_argument("--shape: unknown dimension '" + name + "' (B, H, T, dk, dv)");
  }
}

}  // namespace recall
