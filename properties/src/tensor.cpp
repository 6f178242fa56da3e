#include "recall/properties/tensor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
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

Precision parse_precision(const std::string& s) {
  if (s == "f32" || s == "float32") return Precision::f32;
  if (s == "f64" || s == "float64") return Precision::f64;
  if (s == "bf16" || s == "bfloat16") return Precision::bf16;
  if (s == "f16" || s == "float16") return Precision::f16;
  throw std::invalid_argument("unknown precision '" + s + "' (expected f16, bf16, f32 or f64)");
}

double round_value(double x, Precision p) {
  if (p == Precision::f64 || !std::isfinite(x) || x == 0) return x;
  if (p == Precision::f32) return static_cast<double>(static_cast<float>(x));
  // bf16: 8 significant bits, emin -126, max (2 - 2^-7) 2^127; f16: 11 bits, emin -14, max 65504.
  const int bits = p == Precision::bf16 ? 8 : 11, emin = p == Precision::bf16 ? -126 : -14;
  const double maxv = p == Precision::bf16 ? std::ldexp(2.0 - std::ldexp(1.0, -7), 127) : 65504.0;
  int e = 0;
  std::frexp(x, &e);                      // |x| in [2^(e-1), 2^e)
  const int q = std::max(e - 1, emin) - (bits - 1);  // exponent of the last kept bit (subnormals: fixed)
  const double r = std::ldexp(std::nearbyint(std::ldexp(x, -q)), q);  // round to nearest even (default mode)
  if (std::fabs(r) > maxv) {
    // beyond the largest finite value: overflow to inf unless it rounds down to max (halfway: even = inf)
    return std::copysign(std::numeric_limits<double>::infinity(), x);
  }
  return r;
}

void round_to(TensorMap& m, Precision p) {
  if (p == Precision::f64) return;
  for (auto& [name, t] : m)
    for (double& x : t.data) x = round_value(x, p);
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

void require_shape(const Tensor& t, const std::vector<std::int64_t>& shape, const std::string& op, const std::string& name,
                   const std::string& note) {
  if (t.shape != shape)
    throw std::invalid_argument(op + ": input '" + name + "' has shape " + shape_str(t.shape) + ", expected " + shape_str(shape) +
                                (note.empty() ? "" : " " + note));
  if (t.data.size() != t.numel())
    throw std::invalid_argument(op + ": input '" + name + "' holds " + std::to_string(t.data.size()) +
                                " values but its shape " + shape_str(t.shape) + " needs " + std::to_string(t.numel()));
}

}  // namespace recall
