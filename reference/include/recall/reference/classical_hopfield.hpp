// The classical Hopfield network (A004-HOP-CLASSIC; Hopfield 1982, Hebbian rule), written from the
// definition in exact integer arithmetic (spec tier P-int).
//
//   neurons s in {-1,+1}^N, patterns xi^mu in {-1,+1}^N (mu = 1..P),
//   W_ij = (1/N) sum_mu xi^mu_i xi^mu_j for i != j, W_ii = 0;  energy E(s) = -(1/2) s^T W s;
//   asynchronous dynamics: neurons visited in a seeded random order each sweep, s_i <- sgn(h_i),
//   h_i = sum_j W_ij s_j, with sgn(0) := keep s_i; sweeps until no neuron changes (capped).
// Everything is kept scaled by N, so every quantity is an integer: NW_ij, N h_i and 2N E = -s^T (NW) s.
// The fast form of the fields, N h = Xi^T (Xi s) - P s (Xi: P x N), is what the dynamics use; fields_def
// sums the weights directly and is the reference the fast form is checked against. The capacity claims are
// measured on it: A004-HOP-CAP-014 (final overlaps from stored patterns, run_async / overlap),
// A004-HOP-CAP-014-EXACT and A004-HOP-CAP-014-BITERR (unstable_bits), A004-HOP-CORR (random_patterns' bias and
// parent-flip correlations).
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace recall::ref::hopfield_classic {

struct Patterns {
  int N = 0, P = 0;
  std::vector<std::int8_t> xi;  // P x N, row-major, entries +-1
  int at(int mu, int i) const { return xi[static_cast<std::size_t>(mu) * N + i]; }
};

// Independent patterns with Pr(+1) = (1 + bias)/2 (bias 0: unbiased), or (parent_flip in (0, 1/2]) each
// pattern a copy of one common random parent with every bit flipped with probability parent_flip
// (1/2: independent, smaller: correlated). Drawn from std::mt19937_64(seed) bit by bit.
inline Patterns random_patterns(int N, int P, std::uint64_t seed, double bias = 0.0, double parent_flip = 0.5) {
  if (N < 2 || P < 1) throw std::invalid_argument("hopfield_classic::random_patterns: need N >= 2 and P >= 1");
  if (!(bias > -1 && bias < 1) || !(parent_flip > 0 && parent_flip <= 0.5))
    throw std::invalid_argument("hopfield_classic::random_patterns: bias in (-1,1), parent_flip in (0, 1/2]");
  std::mt19937_64 g(seed);
  auto u = [&] { return (static_cast<double>(g() >> 11) + 0.5) * 0x1.0p-53; };
  Patterns p{N, P, std::vector<std::int8_t>(static_cast<std::size_t>(N) * P)};
  std::vector<std::int8_t> parent(static_cast<std::size_t>(N));
  for (auto& x : parent) x = u() < 0.5 ? 1 : -1;
  for (int mu = 0; mu < P; ++mu)
    for (int i = 0; i < N; ++i) {
      std::int8_t v;
      if (parent_flip < 0.5) v = u() < parent_flip ? static_cast<std::int8_t>(-parent[static_cast<std::size_t>(i)]) : parent[static_cast<std::size_t>(i)];
      else v = u() < (1 + bias) / 2 ? 1 : -1;
      p.xi[static_cast<std::size_t>(mu) * N + i] = v;
    }
  return p;
}

// N W_ij from the definition (0 on the diagonal)
inline std::int64_t nw(const Patterns& p, int i, int j) {
  if (i == j) return 0;
  std::int64_t s = 0;
  for (int mu = 0; mu < p.P; ++mu) s += p.at(mu, i) * p.at(mu, j);
  return s;
}
// N h_i = sum_j NW_ij s_j, directly from the weights (O(N^2 P))
inline std::vector<std::int64_t> fields_def(const Patterns& p, const std::vector<std::int8_t>& s) {
  std::vector<std::int64_t> h(static_cast<std::size_t>(p.N), 0);
  for (int i = 0; i < p.N; ++i)
    for (int j = 0; j < p.N; ++j) h[static_cast<std::size_t>(i)] += nw(p, i, j) * s[static_cast<std::size_t>(j)];
  return h;
}
// 2N E(s) = -s^T (NW) s (from the definition)
inline std::int64_t energy_2n(const Patterns& p, const std::vector<std::int8_t>& s) {
  const auto h = fields_def(p, s);
  std::int64_t e = 0;
  for (int i = 0; i < p.N; ++i) e -= s[static_cast<std::size_t>(i)] * h[static_cast<std::size_t>(i)];
  return e;
}

// The fast form: overlaps m = Xi s (P integers), N h_i = sum_mu xi^mu_i m_mu - P s_i (O(P) per neuron).
struct Overlaps {
  std::vector<std::int64_t> m;
  explicit Overlaps(const Patterns& p, const std::vector<std::int8_t>& s) : m(static_cast<std::size_t>(p.P), 0) {
    for (int mu = 0; mu < p.P; ++mu)
      for (int i = 0; i < p.N; ++i) m[static_cast<std::size_t>(mu)] += p.at(mu, i) * s[static_cast<std::size_t>(i)];
  }
  std::int64_t field(const Patterns& p, const std::vector<std::int8_t>& s, int i) const {
    std::int64_t h = 0;
    for (int mu = 0; mu < p.P; ++mu) h += p.at(mu, i) * m[static_cast<std::size_t>(mu)];
    return h - static_cast<std::int64_t>(p.P) * s[static_cast<std::size_t>(i)];
  }
  void flip(const Patterns& p, int i, int new_si) {  // s_i changed to new_si: m_mu += 2 new_si xi^mu_i
    for (int mu = 0; mu < p.P; ++mu) m[static_cast<std::size_t>(mu)] += 2 * new_si * p.at(mu, i);
  }
};

struct RunResult {
  std::vector<std::int8_t> s;
  int sweeps = 0, flips = 0;
  bool converged = false;
};
// Asynchronous dynamics from s0 (keep-tie rule), a fresh random order per sweep from `seed`.
// on_flip(i, s) is called after every flip (the energy-descent check uses it).
template <class OnFlip>
RunResult run_async(const Patterns& p, std::vector<std::int8_t> s0, std::uint64_t seed, int max_sweeps, OnFlip&& on_flip) {
  RunResult r{std::move(s0)};
  Overlaps ov(p, r.s);
  std::mt19937_64 g(seed);
  std::vector<int> order(static_cast<std::size_t>(p.N));
  std::iota(order.begin(), order.end(), 0);
  for (r.sweeps = 0; r.sweeps < max_sweeps;) {
    std::shuffle(order.begin(), order.end(), g);
    ++r.sweeps;
    bool changed = false;
    for (int i : order) {
      const std::int64_t h = ov.field(p, r.s, i);
      const int si = r.s[static_cast<std::size_t>(i)];
      const int ns = h > 0 ? 1 : h < 0 ? -1 : si;
      if (ns != si) {
        r.s[static_cast<std::size_t>(i)] = static_cast<std::int8_t>(ns);
        ov.flip(p, i, ns);
        ++r.flips;
        changed = true;
        on_flip(i, r.s);
      }
    }
    if (!changed) {
      r.converged = true;
      break;
    }
  }
  return r;
}
inline RunResult run_async(const Patterns& p, std::vector<std::int8_t> s0, std::uint64_t seed, int max_sweeps = 200) {
  return run_async(p, std::move(s0), seed, max_sweeps, [](int, const std::vector<std::int8_t>&) {});
}

inline std::vector<std::int8_t> pattern(const Patterns& p, int mu) {
  return std::vector<std::int8_t>(p.xi.begin() + static_cast<std::ptrdiff_t>(mu) * p.N, p.xi.begin() + static_cast<std::ptrdiff_t>(mu + 1) * p.N);
}
// overlap m = (1/N) xi^mu . s
inline double overlap(const Patterns& p, int mu, const std::vector<std::int8_t>& s) {
  std::int64_t m = 0;
  for (int i = 0; i < p.N; ++i) m += p.at(mu, i) * s[static_cast<std::size_t>(i)];
  return static_cast<double>(m) / p.N;
}
// number of bits of pattern mu with xi_i (N h_i) < 0 at s = xi^mu (one-step unstable; ties keep the bit)
inline int unstable_bits(const Patterns& p, int mu) {
  const auto s = pattern(p, mu);
  const Overlaps ov(p, s);
  int n = 0;
  for (int i = 0; i < p.N; ++i) n += s[static_cast<std::size_t>(i)] * ov.field(p, s, i) < 0;
  return n;
}

}  // namespace recall::ref::hopfield_classic
