#include "recall/properties/tensor.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace recall {

std::string shape_str(const std::vector<std::int64_t>& shape) {
  std::ostringstream s;
  s << "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s << (i ? "," : "") << shape[i];
  s << "]";
  return s.str();
}

std::string index_str(const std::vector<std::int64_t>& shape, std::size_t flat) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    const auto n = static_cast<std::size_t>(shape[d] > 0 ? shape[d] : 1);
    idx[d] = static_cast<std::int64_t>(flat % n) + 1;
    flat /= n;
  }
  std::ostringstream s;
  s << "(";
  for (std::size_t i = 0; i < idx.size(); ++i) s << (i ? "," : "") << idx[i];
  s << ")";
  return s.str();
}

void round_to(TensorMap& m, Precision p) {
  if (p != Precision::f32) return;
  for (auto& [name, t] : m)
    for (double& x : t.data) x = static_cast<double>(static_cast<float>(x));
}

const Tensor& get(const TensorMap& m, const std::string& name, const std::string& op) {
  auto it = m.find(name);
  if (it == m.end()) throw std::invalid_argument(op + ": missing input tensor '" + name + "'");
  return it->second;
}

void require_finite(const Tensor& t, const std::string& op, const std::string& name, bool allow_neg_inf) {
  for (std::size_t i = 0; i < t.data.size(); ++i) {
    const double x = t.data[i];
    if (std::isfinite(x) || (allow_neg_inf && std::isinf(x) && x < 0)) continue;
    throw std::invalid_argument(op + ": input '" + name + "' has " + (std::isnan(x) ? "NaN" : "Inf") + " at index " +
                                index_str(t.shape, i) + " of shape " + shape_str(t.shape));
  }
}

void require_shape(const Tensor& t, const std::vector<std::int64_t>& shape, const std::string& op, const std::string& name) {
  if (t.shape != shape)
    throw std::invalid_argument(op + ": input '" + name + "' has shape " + shape_str(t.shape) + ", expected " + shape_str(shape));
  if (t.data.size() != t.numel())
    throw std::invalid_argument(op + ": input '" + name + "' holds " + std::to_string(t.data.size()) +
                                " values but its shape " + shape_str(t.shape) + " needs " + std::to_string(t.numel()));
}

}  // namespace recall
