// Named tensors exchanged between the registry, the generators and the error budget.
// Data is double (float inputs are stored exactly); the oracle's outputs stay in mp_t.
#pragma once

#include "recall/reference/matrix.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace recall {

enum class Precision { f32, f64 };
inline const char* precision_name(Precision p) { return p == Precision::f32 ? "f32" : "f64"; }
inline double unit_roundoff(Precision p) { return p == Precision::f32 ? 0x1p-24 : 0x1p-53; }

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

// Round every element to the working precision (so that a float kernel, its baseline and the
// oracle all see the same inputs).
void round_to(TensorMap& m, Precision p);

const Tensor& get(const TensorMap& m, const std::string& name, const std::string& op);
// Throws naming the op, tensor and first offending index when a NaN/Inf is found
// (allow_neg_inf: a log-gate tensor where -inf flags a zero gate).
void require_finite(const Tensor& t, const std::string& op, const std::string& name, bool allow_neg_inf = false);
void require_shape(const Tensor& t, const std::vector<std::int64_t>& shape, const std::string& op, const std::string& name);

}  // namespace recall
