// Dependency depth (A004-CX-SA-PARALLEL, P-count): a scalar `Depth` that carries, beside its double value, the
// length of the longest chain of dependent arithmetic operations that produced it, so that instantiating a
// reference with it measures the depth of the whole computation (the time of an ideal parallel machine).
//
// Convention (spec: "sums and maxima evaluated as balanced trees"): additions and subtractions are reductions.
// A value built by a chain of additions from k terms whose deepest term has depth m has depth m + ceil(log2 k),
// the depth of a balanced addition tree over those terms (an upper bound of the optimum, which may combine
// shallow terms first; exact when the terms have equal depth). Any other operation closes the chain:
// a * b, a / b and the special functions (exp, log, sqrt, tanh, ...) have depth max(depth of operands) + 1.
// Comparisons select a value and do not compute one: a running maximum written as `if (x > m) m = x` gets the
// depth of the selected element, which omits the ceil(log2 k) of a balanced max tree (an additive logarithmic
// term, so it never decides whether depth grows linearly). Inputs (built from doubles) have depth 0.
// The mode `sequential` (depth_mode()) instead counts every addition as one step after both operands: the depth
// of the computation exactly as written, for comparison.
#pragma once

#include "recall/reference/scalar.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace recall {

enum class DepthMode { balanced, sequential };
inline thread_local DepthMode g_depth_mode = DepthMode::balanced;
inline DepthMode& depth_mode() { return g_depth_mode; }

inline int ceil_log2(std::uint64_t k) {
  int r = 0;
  std::uint64_t p = 1;
  while (p < k) p <<= 1, ++r;
  return r;
}

struct Depth {
  double v = 0;
  // closed value: depth d (k == 1, m == d). Pending sum: k >= 2 terms, deepest m; depth m + ceil(log2 k).
  std::uint64_t k = 1;
  int m = 0;

  Depth() = default;
  Depth(double x) : v(x) {}  // NOLINT: implicit, as a scalar literal (depth 0)
  template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  Depth(I x) : v(static_cast<double>(x)) {}  // NOLINT
  static Depth closed(double v, int d) {
    Depth r(v);
    r.m = d;
    return r;
  }
  int depth() const { return m + ceil_log2(k); }
  explicit operator double() const { return v; }

  Depth& operator+=(const Depth& o) { return *this = add(*this, o, v + o.v); }
  Depth& operator-=(const Depth& o) { return *this = add(*this, o, v - o.v); }
  Depth& operator*=(const Depth& o) { return *this = closed(v * o.v, std::max(depth(), o.depth()) + 1); }
  Depth& operator/=(const Depth& o) { return *this = closed(v / o.v, std::max(depth(), o.depth()) + 1); }
  Depth operator-() const {
    Depth r = *this;  // sign flip: free
    r.v = -v;
    return r;
  }
  Depth operator+() const { return *this; }

  static Depth add(const Depth& a, const Depth& b, double value) {
    if (depth_mode() == DepthMode::sequential) return closed(value, std::max(a.depth(), b.depth()) + 1);
    Depth r(value);
    r.k = a.k + b.k;
    r.m = std::max(a.m, b.m);
    return r;
  }
};

inline Depth operator+(const Depth& a, const Depth& b) { return Depth::add(a, b, a.v + b.v); }
inline Depth operator-(const Depth& a, const Depth& b) { return Depth::add(a, b, a.v - b.v); }
inline Depth operator*(const Depth& a, const Depth& b) { return Depth::closed(a.v * b.v, std::max(a.depth(), b.depth()) + 1); }
inline Depth operator/(const Depth& a, const Depth& b) { return Depth::closed(a.v / b.v, std::max(a.depth(), b.depth()) + 1); }
inline bool operator==(const Depth& a, const Depth& b) { return a.v == b.v; }
inline bool operator!=(const Depth& a, const Depth& b) { return a.v != b.v; }
inline bool operator<(const Depth& a, const Depth& b) { return a.v < b.v; }
inline bool operator>(const Depth& a, const Depth& b) { return a.v > b.v; }
inline bool operator<=(const Depth& a, const Depth& b) { return a.v <= b.v; }
inline bool operator>=(const Depth& a, const Depth& b) { return a.v >= b.v; }

// one step after the argument (found by argument-dependent lookup from the references' `using std::exp`)
inline Depth exp(const Depth& x) { return Depth::closed(std::exp(x.v), x.depth() + 1); }
inline Depth log(const Depth& x) { return Depth::closed(std::log(x.v), x.depth() + 1); }
inline Depth log1p(const Depth& x) { return Depth::closed(std::log1p(x.v), x.depth() + 1); }
inline Depth sqrt(const Depth& x) { return Depth::closed(std::sqrt(x.v), x.depth() + 1); }
inline Depth tanh(const Depth& x) { return Depth::closed(std::tanh(x.v), x.depth() + 1); }
inline Depth abs(const Depth& x) { return Depth::closed(std::fabs(x.v), x.depth()); }
inline Depth fabs(const Depth& x) { return abs(x); }
inline bool isinf(const Depth& x) { return std::isinf(x.v); }
inline bool isnan(const Depth& x) { return std::isnan(x.v); }
inline bool isfinite(const Depth& x) { return std::isfinite(x.v); }

template <> struct scalar_traits<Depth> {
  static constexpr bool is_mp = false;
  static double unit_roundoff() { return 0x1p-53; }
  static const char* name() { return "depth"; }
};

}  // namespace recall

template <> class std::numeric_limits<recall::Depth> : public std::numeric_limits<double> {
 public:
  static recall::Depth min() noexcept { return std::numeric_limits<double>::min(); }
  static recall::Depth max() noexcept { return std::numeric_limits<double>::max(); }
  static recall::Depth lowest() noexcept { return std::numeric_limits<double>::lowest(); }
  static recall::Depth epsilon() noexcept { return std::numeric_limits<double>::epsilon(); }
  static recall::Depth infinity() noexcept { return std::numeric_limits<double>::infinity(); }
  static recall::Depth quiet_NaN() noexcept { return std::numeric_limits<double>::quiet_NaN(); }
};
