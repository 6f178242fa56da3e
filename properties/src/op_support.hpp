// Internal helpers shared by the op definitions (properties/src/ops*.cpp) and the registry
// adapters (properties/src/registry*.cpp), not a public header: (b,h) slices of [B,H,...] tensors,
// output allocation, the q/v dimensions of an op's inputs, the shared input checks and the
// conversions between registry tensors and the optimized/ kernels' flat arrays.
#pragma once

#include "recall/properties/ops.hpp"
#include "recall/reference/matrix.hpp"

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace recall::op_support {

// Extract the (b,h) slice of a [B,H,rows,cols] (or [B,H,rows] when cols == 0) tensor.
template <class S>
ref::Matrix<S> slice(const Tensor& t, std::int64_t b, std::int64_t h, std::size_t rows, std::size_t cols) {
  const std::int64_t H = t.shape[1];
  const std::size_t n = rows * (cols ? cols : 1);
  const std::size_t off = static_cast<std::size_t>(b * H + h) * n;
  ref::Matrix<S> m(rows, cols ? cols : 1);
  for (std::size_t i = 0; i < n; ++i) m.a[i] = S(t.data[off + i]);
  return m;
}
template <class S> ref::Vector<S> slice_vec(const Tensor& t, std::int64_t b, std::int64_t h, std::size_t n) {
  return slice<S>(t, b, h, n, 0).a;
}
// Write a (b,h) slice (row-major values a) into a [B,H,...] output tensor (double or mp).
template <class S, class Out> void put(Out& t, std::int64_t b, std::int64_t h, const std::vector<S>& a) {
  const std::int64_t H = t.shape[1];
  const std::size_t off = static_cast<std::size_t>(b * H + h) * a.size();
  for (std::size_t i = 0; i < a.size(); ++i) {
    if constexpr (std::is_same_v<Out, MpTensor>) t.data[off + i] = ref::convert<mp_t>(a[i]);
    else t.data[off + i] = static_cast<double>(a[i]);
  }
}
template <class Out> Out make_out(std::vector<std::int64_t> shape) {
  Out t;
  t.shape = std::move(shape);
  t.data.resize(t.numel());
  return t;
}
inline Tensor tensor(std::vector<std::int64_t> shape, std::vector<double> data) {
  Tensor t;
  t.shape = std::move(shape);
  t.data = std::move(data);
  return t;
}

// The reference at a precision's accumulation scalar: f(double{}) for f64, f(float{}) otherwise.
template <class Fn> TensorMap at_precision(Precision p, Fn&& f) { return p == Precision::f64 ? f(double{}) : f(float{}); }

struct Dims {
  std::int64_t B, H, T, dk, dv;
};
// Dimensions from q [B,H,T,dk] and v [B,H,T,dv]; throws naming the op when they are not 4-d or empty.
inline Dims dims_of(const TensorMap& in, const std::string& op) {
  const Tensor& q = get(in, "q", op);
  const Tensor& v = get(in, "v", op);
  if (q.shape.size() != 4) throw std::invalid_argument(op + ": input 'q' must have shape [B,H,T,dk], got " + shape_str(q.shape));
  if (v.shape.size() != 4) throw std::invalid_argument(op + ": input 'v' must have shape [B,H,T,dv], got " + shape_str(v.shape));
  Dims d{q.shape[0], q.shape[1], q.shape[2], q.shape[3], v.shape[3]};
  if (d.B < 1 || d.H < 1 || d.T < 1 || d.dk < 1 || d.dv < 1)
    throw std::invalid_argument(op + ": every dimension of q and v must be >= 1, got q " + shape_str(q.shape) + ", v " + shape_str(v.shape));
  return d;
}
// Where the expected shapes come from, for the messages of a mismatch.
inline std::string dims_note(const TensorMap& in, const std::string& op) {
  return "(B, H, T, d_k are read from q " + shape_str(get(in, "q", op).shape) + ", d_v from v " + shape_str(get(in, "v", op).shape) + ")";
}
// The (b,h) slices of q, k [B,H,T,dk] and v [B,H,T,dv] (tokens are rows).
template <class S> struct QkvSlice {
  ref::Matrix<S> Q, K, V;
};
template <class S> QkvSlice<S> slice_qkv(const TensorMap& in, const std::string& op, const Dims& d, std::int64_t b, std::int64_t h) {
  return {slice<S>(get(in, "q", op), b, h, d.T, d.dk), slice<S>(get(in, "k", op), b, h, d.T, d.dk),
          slice<S>(get(in, "v", op), b, h, d.T, d.dv)};
}
// q, k [B,H,T,dk], v [B,H,T,dv] and the required per-token inputs [B,H,T] (e.g. beta): shapes
// first, then all finite; returns the dimensions.
inline Dims validate_qkv_shapes(const TensorMap& in, const std::string& op, std::initializer_list<const char*> per_token = {}) {
  const Dims d = dims_of(in, op);
  const std::string note = dims_note(in, op);
  require_shape(get(in, "q", op), {d.B, d.H, d.T, d.dk}, op, "q", note);
  require_shape(get(in, "k", op), {d.B, d.H, d.T, d.dk}, op, "k", note);
  require_shape(get(in, "v", op), {d.B, d.H, d.T, d.dv}, op, "v", note);
  for (const char* n : per_token) require_shape(get(in, n, op), {d.B, d.H, d.T}, op, n, note);
  for (const char* n : {"q", "k", "v"}) require_finite(get(in, n, op), op, n);
  for (const char* n : per_token) require_finite(get(in, n, op), op, n);
  return d;
}
// A log-gate input [B,H,T]: finite or -inf (a zero gate), never positive (gates lie in [0,1]).
inline void validate_log_gate(const TensorMap& in, const std::string& op, const Dims& d, const std::string& name,
                              const std::string& gate_desc) {
  const Tensor& g = get(in, name, op);
  require_shape(g, {d.B, d.H, d.T}, op, name, dims_note(in, op));
  require_finite(g, op, name, /*allow_neg_inf=*/true);
  for (std::size_t i = 0; i < g.data.size(); ++i)
    if (g.data[i] > 0)
      throw std::invalid_argument(op + ": input '" + name + "' is positive at " + index_str(g.shape, i) + " (" + gate_desc +
                                  " must lie in [0,1])");
}
// The optional initial state s0 [B,H,dv,dk], finite.
inline void validate_s0(const TensorMap& in, const std::string& op, const Dims& d) {
  if (auto it = in.find("s0"); it != in.end()) {
    require_shape(it->second, {d.B, d.H, d.dv, d.dk}, op, "s0", dims_note(in, op));
    require_finite(it->second, op, "s0");
  }
}

// T additions of the state + a d_k dot product
inline double seq_length(const TensorMap& in) {
  const Tensor& q = in.at("q");
  return static_cast<double>(q.shape[2] + q.shape[3]);
}

// ---- the budget's perturbation models (OpSpec::perturbed) ----
// splitmix64 (Steele, Lea, Flood 2014): the one stream of random bits behind every perturbation
// model and the budget's input perturbations, reproducible from the seed.
inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Random factors 1 + delta xi, xi = +-1, reproducible from the seed (splitmix64).
class PerturbFactors {
 public:
  PerturbFactors(double delta, std::uint64_t seed) : delta_(delta), state_(seed) {}
  double operator()() { return 1.0 + delta_ * sign(); }
  // the bare sign xi (for callers that scale it by more than one delta)
  double sign() { return (splitmix64(state_) & 1u) ? 1.0 : -1.0; }

 private:
  double delta_;
  std::uint64_t state_;
};
// The fast forms of the gated ops apply decays as exp of chunk-local cumulative log-gate sums
// b_t = sum_{j=s}^{t} log a_j (chunks of `chunk` tokens), whose rounding is a relative error of b_t
// itself, not of the single gates, and the errors of a recursive sum accumulate (systematically for
// constant gates). Model: b'_t = (b'_{t-1} + g_t)(1 + delta xi_t), written back as per-token
// log-gates g'_t = b'_t - b'_{t-1} (a zero gate, -inf, restarts the sum and stays -inf).
inline void perturb_log_gate_cumsums(Tensor& g, std::int64_t chunk, PerturbFactors& f) {
  const std::int64_t T = g.shape[2];
  for (std::int64_t bh = 0; bh < g.shape[0] * g.shape[1]; ++bh) {
    double* x = g.data.data() + bh * T;
    double b = 0, prev = 0;
    for (std::int64_t t = 0; t < T; ++t) {
      if (t % chunk == 0) b = prev = 0;
      if (std::isinf(x[t])) { b = prev = 0; continue; }
      b = (b + x[t]) * f();  // the recursive sum's rounding, propagated (Monte-Carlo arithmetic)
      x[t] = b - prev;
      prev = b;
    }
  }
}

// ---- tensor declarations shared by the ops ----
// q, k [B,H,T,dk] and v [B,H,T,dv], then `extra` (inputs between v and the initial state), then the
// optional initial memory s0 when with_s0.
inline std::vector<TensorDecl> qkv_inputs(std::vector<TensorDecl> extra = {}, bool with_s0 = true) {
  std::vector<TensorDecl> v = {{"q", "B,H,T,dk", false, "queries (tokens are rows)"},
                               {"k", "B,H,T,dk", false, "keys"},
                               {"v", "B,H,T,dv", false, "values"}};
  v.insert(v.end(), extra.begin(), extra.end());
  if (with_s0) v.push_back({"s0", "B,H,dv,dk", true, "initial memory S_0 (canonical d_v x d_k layout; zeros when absent)"});
  return v;
}
// outputs o_t = S_t q_t and the final memory S_T of the recurrent-state ops
inline std::vector<TensorDecl> state_outputs() {
  return {{"o", "B,H,T,dv", false, "o_t = S_t q_t"}, {"s_final", "B,H,dv,dk", false, "final memory S_T"}};
}

// ---- registry adapters: registry tensors <-> the optimized/ kernels' flat arrays ----
template <class T> std::vector<T> to(const Tensor& t) { return std::vector<T>(t.data.begin(), t.data.end()); }
template <class T> Tensor from(std::vector<std::int64_t> shape, const std::vector<T>& v) {
  Tensor t;
  t.shape = std::move(shape);
  t.data.assign(v.begin(), v.end());
  return t;
}

}  // namespace recall::op_support
