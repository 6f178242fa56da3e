// Case generators with the corner knobs (DESIGN idea 4). A case is a small set of knobs plus a
// seed; make_* turns it into tensors deterministically, so RapidCheck can shrink the knobs and
// every failure prints a case that reproduces exactly.
#pragma once

#include "recall/properties/tensor.hpp"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace recall {

enum class KeyKind { gaussian, near_zero, near_parallel, correlated, unit_sphere, integer };
enum class GateKind { ones, uniform, beta51, zeros_mixed, tiny, near_one, saturating, constant };
const char* key_kind_name(KeyKind k);
const char* gate_kind_name(GateKind g);
// Step sizes of the delta-rule ops as r_t = beta_t ||k_t||^2 (beta_t = r_t / ||k_t||^2): mixed draws
// per token from {U[0,1], 0, 1, just below 2, (2, 2.3]}; zero_one: r in {0,1}; near_two: r = 2 or
// 2 - 1e-3 U (the non-expansive edge); beyond_two: 20% of the tokens r in (2, 2.5] (expansive).
enum class BetaKind { mixed, unit_interval, zero_one, near_two, beyond_two };
const char* beta_kind_name(BetaKind b);

struct CaseKnobs {
  int B = 1, H = 1, T = 1, dk = 1, dv = 1;
  int scale_exp = 0;              // keys (and queries) scaled by 10^scale_exp
  KeyKind keys = KeyKind::gaussian;
  GateKind gates = GateKind::uniform;
  bool initial_state = false;
  std::uint64_t seed = 1;
  BetaKind betas = BetaKind::mixed;  // delta-rule ops only
};
std::string describe(const CaseKnobs& k);

// Fill helpers used by every op's generator.
class CaseRng {
 public:
  explicit CaseRng(std::uint64_t seed) : rng_(seed) {}
  double normal() { return n_(rng_); }
  double uniform() { return u_(rng_); }
  std::uint64_t bits() { return rng_(); }
  // T x d rows of the given kind (keys: near-parallel rows share a direction, etc.)
  std::vector<double> rows(KeyKind kind, int T, int d, int scale_exp);
  // log-gates of one sequence of length T (-inf for exact zero gates)
  std::vector<double> log_gates(GateKind kind, int T);
  // beta_t ||k_t||^2 targets of one sequence of length T
  std::vector<double> beta_ratios(BetaKind kind, int T);

 private:
  std::mt19937_64 rng_;
  std::normal_distribution<double> n_{0.0, 1.0};
  std::uniform_real_distribution<double> u_{0.0, 1.0};
};

// Deterministic corner-case list for the agreement report: tails around the chunk sizes, T = 1,
// gates at 0 and 1 and saturating, keys near zero / nearly parallel / badly scaled, heads and batch.
std::vector<CaseKnobs> corner_cases(bool gated, bool quick);

}  // namespace recall
