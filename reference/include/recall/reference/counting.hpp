// P-count (A004 C9), R-SCALE (A001), D-FLOP (A003): a counting scalar. `Counted` wraps a double
// and counts, per thread, every arithmetic operation the references perform on it, and tracks the
// number of live scalars (constructed minus destroyed) and its peak. Instantiating a reference
// with Counted gives exact operation counts and the live-scalar peak of that reference:
// peak - (scalars alive before the call) - (outputs) = the working state of the computation.
// The value is carried in double only so that branches (gates at 0, ReLU, ...) follow real data;
// counts never depend on rounding.
#pragma once

#include "recall/reference/scalar.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>
#include <algorithm>

namespace recall {

struct OpCounts {
  std::uint64_t mul = 0;      // multiplications (a muladd is one mul + one add)
  std::uint64_t add = 0;      // additions and subtractions
  std::uint64_t div = 0;      // divisions
  std::uint64_t special = 0;  // exp, log, log1p, sqrt, pow, sin, cos, tanh
  std::uint64_t cmp = 0;      // comparisons (not arithmetic; reported only)
  std::int64_t live = 0;      // scalars alive now
  std::int64_t peak = 0;      // largest `live` since the last reset_op_counts()
  // arithmetic operations (mul + add + div + special)
  std::uint64_t arith() const { return mul + add + div + special; }

  // Bookkeeping of measure_working(): birth sequence numbers, and the live count that leaves out
  // the scalars whose birth numbers lie in `marked` (the outputs of a replayed call).
  std::uint64_t births = 0;
  std::int64_t live_x = 0, peak_x = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> marked;  // [lo, hi) birth-number ranges
};

inline thread_local OpCounts g_op_counts{};

inline OpCounts& op_counts() { return g_op_counts; }
// Zero the operation counters (live scalars are not touched) and start a new peak at `live`.
inline void reset_op_counts() {
  OpCounts& c = g_op_counts;
  c.mul = c.add = c.div = c.special = c.cmp = 0;
  c.peak = c.live;
}

struct Counted {
  double v = 0;

  Counted() noexcept { born(); }
  Counted(double x) noexcept : v(x) { born(); }  // NOLINT: implicit, as a scalar literal
  template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  Counted(I x) noexcept : v(static_cast<double>(x)) { born(); }  // NOLINT
  Counted(const Counted& o) noexcept : v(o.v) { born(); }
  Counted(Counted&& o) noexcept : v(o.v) { born(); }
  Counted& operator=(const Counted& o) noexcept { v = o.v; return *this; }  // same object: identity kept
  Counted& operator=(Counted&& o) noexcept { v = o.v; return *this; }
  ~Counted() {
    OpCounts& c = g_op_counts;
    --c.live;
    if (!(tag_ & kMarked)) --c.live_x;
  }

  explicit operator double() const { return v; }
  // birth sequence number (since the last measure_working() pass started)
  std::uint64_t birth() const { return tag_ & ~kMarked; }

  Counted& operator+=(const Counted& o) { ++g_op_counts.add; v += o.v; return *this; }
  Counted& operator-=(const Counted& o) { ++g_op_counts.add; v -= o.v; return *this; }
  Counted& operator*=(const Counted& o) { ++g_op_counts.mul; v *= o.v; return *this; }
  Counted& operator/=(const Counted& o) { ++g_op_counts.div; v /= o.v; return *this; }
  Counted operator-() const { return Counted(-v); }  // sign flip: not counted
  Counted operator+() const { return *this; }

 private:
  static constexpr std::uint64_t kMarked = std::uint64_t(1) << 63;
  std::uint64_t tag_ = 0;  // birth number, top bit: marked (an output of the replayed call)
  void born() {
    OpCounts& c = g_op_counts;
    const std::uint64_t id = c.births++;
    bool marked = false;
    for (const auto& r : c.marked)
      if (id >= r.first && id < r.second) { marked = true; break; }
    tag_ = id | (marked ? kMarked : 0);
    if (++c.live > c.peak) c.peak = c.live;
    if (!marked && ++c.live_x > c.peak_x) c.peak_x = c.live_x;
  }
};

inline Counted operator+(const Counted& a, const Counted& b) { ++g_op_counts.add; return Counted(a.v + b.v); }
inline Counted operator-(const Counted& a, const Counted& b) { ++g_op_counts.add; return Counted(a.v - b.v); }
inline Counted operator*(const Counted& a, const Counted& b) { ++g_op_counts.mul; return Counted(a.v * b.v); }
inline Counted operator/(const Counted& a, const Counted& b) { ++g_op_counts.div; return Counted(a.v / b.v); }
inline bool operator==(const Counted& a, const Counted& b) { ++g_op_counts.cmp; return a.v == b.v; }
inline bool operator!=(const Counted& a, const Counted& b) { ++g_op_counts.cmp; return a.v != b.v; }
inline bool operator<(const Counted& a, const Counted& b) { ++g_op_counts.cmp; return a.v < b.v; }
inline bool operator>(const Counted& a, const Counted& b) { ++g_op_counts.cmp; return a.v > b.v; }
inline bool operator<=(const Counted& a, const Counted& b) { ++g_op_counts.cmp; return a.v <= b.v; }
inline bool operator>=(const Counted& a, const Counted& b) { ++g_op_counts.cmp; return a.v >= b.v; }

// Functions found by argument-dependent lookup from the references' `using std::exp; exp(x)`.
inline Counted exp(const Counted& x) { ++g_op_counts.special; return Counted(std::exp(x.v)); }
inline Counted log(const Counted& x) { ++g_op_counts.special; return Counted(std::log(x.v)); }
inline Counted log1p(const Counted& x) { ++g_op_counts.special; return Counted(std::log1p(x.v)); }
inline Counted sqrt(const Counted& x) { ++g_op_counts.special; return Counted(std::sqrt(x.v)); }
inline Counted tanh(const Counted& x) { ++g_op_counts.special; return Counted(std::tanh(x.v)); }
inline Counted sin(const Counted& x) { ++g_op_counts.special; return Counted(std::sin(x.v)); }
inline Counted cos(const Counted& x) { ++g_op_counts.special; return Counted(std::cos(x.v)); }
inline Counted pow(const Counted& x, const Counted& y) { ++g_op_counts.special; return Counted(std::pow(x.v, y.v)); }
inline Counted abs(const Counted& x) { return Counted(std::fabs(x.v)); }
inline Counted fabs(const Counted& x) { return Counted(std::fabs(x.v)); }
inline bool isinf(const Counted& x) { return std::isinf(x.v); }
inline bool isnan(const Counted& x) { return std::isnan(x.v); }
inline bool isfinite(const Counted& x) { return std::isfinite(x.v); }

template <> struct scalar_traits<Counted> {
  static constexpr bool is_mp = false;
  static double unit_roundoff() { return 0x1p-53; }
  static const char* name() { return "counted"; }
};

// RAII measurement of one call: counters zeroed and the live peak restarted at construction;
// live_before() is the number of scalars alive then (inputs and anything else held by the caller).
class OpCountScope {
 public:
  OpCountScope() : live0_(g_op_counts.live) { reset_op_counts(); }
  std::int64_t live_before() const { return live0_; }
  const OpCounts& counts() const { return g_op_counts; }
  // peak live scalars above those alive at construction
  std::int64_t peak_above_start() const { return g_op_counts.peak - live0_; }

 private:
  std::int64_t live0_;
};

// Result of measure_working().
struct WorkingMeasure {
  OpCounts counts;              // operation counts of the call (first pass)
  std::int64_t outputs = 0;     // output scalars reported by for_each_output
  std::int64_t working = 0;     // max over time of live scalars that are neither alive before the call nor outputs
  std::int64_t peak_minus_outputs = 0;  // (peak live during the call) - (alive before) - outputs
  bool replay_ok = true;        // the second pass produced its outputs at the same birth numbers
};

// Working state of a deterministic call (P-count): the call runs twice. Pass 1 counts operations
// and records the birth numbers of the output scalars (for_each_output(result, f) must call f on
// every output scalar); pass 2 replays the call with those births left out of the live count, so
// `working` is the exact peak of the scalars that are neither inputs (alive before) nor outputs,
// whenever during the call it occurs (also before the outputs are allocated).
template <class Call, class ForEachOutput>
WorkingMeasure measure_working(Call&& call, ForEachOutput&& for_each_output) {
  OpCounts& c = g_op_counts;
  WorkingMeasure m;
  c.marked.clear();
  std::vector<std::uint64_t> ids;
  {
    const std::int64_t live0 = c.live;
    reset_op_counts();
    c.births = 0;
    auto r = call();
    m.counts = c;
    m.counts.marked.clear();
    for_each_output(r, [&](const Counted& x) { ids.push_back(x.birth()); });
    m.outputs = static_cast<std::int64_t>(ids.size());
    m.peak_minus_outputs = c.peak - live0 - m.outputs;
  }
  std::sort(ids.begin(), ids.end());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (std::uint64_t id : ids) {
    if (!ranges.empty() && ranges.back().second == id) ++ranges.back().second;
    else ranges.emplace_back(id, id + 1);
  }
  {
    c.marked = ranges;
    c.births = 0;
    const std::int64_t lx0 = c.live_x;
    c.peak_x = lx0;
    auto r = call();
    std::vector<std::uint64_t> ids2;
    for_each_output(r, [&](const Counted& x) { ids2.push_back(x.birth()); });
    std::sort(ids2.begin(), ids2.end());
    m.replay_ok = ids2 == ids;
    m.working = c.peak_x - lx0;
    c.marked.clear();
  }
  return m;
}

}  // namespace recall

// numeric_limits of the wrapped double (ref::neg_inf<S>() uses infinity() for non-MP scalars).
template <> class std::numeric_limits<recall::Counted> : public std::numeric_limits<double> {
 public:
  static recall::Counted min() noexcept { return std::numeric_limits<double>::min(); }
  static recall::Counted max() noexcept { return std::numeric_limits<double>::max(); }
  static recall::Counted lowest() noexcept { return std::numeric_limits<double>::lowest(); }
  static recall::Counted epsilon() noexcept { return std::numeric_limits<double>::epsilon(); }
  static recall::Counted infinity() noexcept { return std::numeric_limits<double>::infinity(); }
  static recall::Counted quiet_NaN() noexcept { return std::numeric_limits<double>::quiet_NaN(); }
};
