// Named tensors exchanged between the registry, the generators and the error budget.
// Data is double (float inputs are stored exactly); the oracle's outputs stay in mp_t.
#pragma once

#include "recall/reference/matrix.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace recall {

// The storage precision of a kernel's inputs and outputs (and of the operands it casts for tensor
// cores). The arithmetic of bf16/f16 kernels accumulates in f32 (accumulation(p)); f32 and f64
// kernels accumulate in their own precision.
enum class Precision { f32, f64, bf16, f16 };
inline const char* precision_name(Precision p) {
  switch (p) {
    case Precision::f32: return "f32";
    case Precision::f64: return "f64";
    case Precision::bf16: return "bf16";
    case Precision::f16: return "f16";
  }
  return "?";
}
// Unit roundoff of the storage format: 2^-24 (f32), 2^-53 (f64), 2^-8 (bf16), 2^-11 (f16).
inline double unit_roundoff(Precision p) {
  switch (p) {
    case Precision::f32: return 0x1p-24;
    case Precision::f64: return 0x1p-53;
    case Precision::bf16: return 0x1p-8;
    case Precision::f16: return 0x1p-11;
  }
  return 0;
}
// The precision the arithmetic accumulates in: f64 for f64 storage, f32 otherwise.
inline Precision accumulation(Precision p) { return p == Precision::f64 ? Precision::f64 : Precision::f32; }
inline bool is_half(Precision p) { return p == Precision::bf16 || p == Precision::f16; }
inline constexpr Precision kAllPrecisions[] = {Precision::f64, Precision::f32, Precision::bf16, Precision::f16};
// Largest finite value of the storage format.
inline double max_finite(Precision p) {
  switch (p) {
    case Precision::f32: return 0x1.fffffep127;
    case Precision::f64: return 0x1.fffffffffffffp1023;
    case Precision::bf16: return 0x1.fep127;
    case Precision::f16: return 65504.0;
  }
  return 0;
}
// Parses "f32", "float32", "f64", "float64", "bf16", "bfloat16", "f16", "float16"; throws otherwise.
Precision parse_precision(const std::string& s);
// x rounded to the storage format (round to nearest, ties to even; subnormals kept; beyond the
// largest finite value: +-inf).
double round_value(double x, Precision p);

template <class S> struct TensorT {
  std::vector<std::int64_t> shape;
  std::vector<S> data;
  std::size_t numel() const { std::size_t n = 1; for (auto s : shape) n *= static_cast<std::size_t>(s); return n; }
};
using Tensor = TensorT<double>;
using TensorMap = std::map<std::string, Tensor>;
using MpTensor = TensorT<mp_t>;
using MpTensorMap = std::map<std::string, MpTensor>;

std::string shape_str(const std::vector<std::int64_t>& shape);
// Multi-index (1-based, as reported) of a flat offset.
std::string index_str(const std::vector<std::int64_t>& shape, std::size_t flat);

// Round every element to the storage precision (so that a kernel, its baseline and the oracle all
// see the same inputs).
void round_to(TensorMap& m, Precision p);

const Tensor& get(const TensorMap& m, const std::string& name, const std::string& op);
// Throws naming the op, tensor and first offending index when a NaN/Inf is found
// (allow_neg_inf: a log-gate tensor where -inf flags a zero gate).
void require_finite(const Tensor& t, const std::string& op, const std::string& name, bool allow_neg_inf = false);
void require_shape(const Tensor& t, const std::vector<std::int64_t>& shape, const std::string& op, const std::string& name,
                   const std::string& note = "");

}  // namespace recall
