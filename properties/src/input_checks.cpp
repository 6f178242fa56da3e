// The registry ops' input checks (input_checks.hpp). Moved here from ops*.cpp so that the checks
// that stand between a user's .npz and the multiprecision oracle build in seconds, under
// sanitizers and libFuzzer (fuzz/fuzz_validate.cpp), without the oracles' template instantiations.
#include "input_checks.hpp"

#include "op_support.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace recall::input_checks {

using namespace op_support;

void linear_family(const TensorMap& in, const std::string& op, bool gated, bool normalized) {
  const Dims d = validate_qkv_shapes(in, op);
  if (gated) validate_log_gate(in, op, d, "log_gate", "gates");
  validate_s0(in, op, d);
  if (normalized) {
    for (const char* n : {"q", "k"}) {
      const Tensor& t = get(in, n, op);
      for (std::size_t i = 0; i < t.data.size(); ++i)
        if (t.data[i] < 0)
          throw std::invalid_argument(op + ": input '" + n + "' must be a non-negative feature map, negative at " + index_str(t.shape, i));
    }
    if (auto it = in.find("z0"); it != in.end()) {
      require_shape(it->second, {d.B, d.H, d.dk}, op, "z0", dims_note(in, op));
      require_finite(it->second, op, "z0");
    }
  }
}

void delta_family(const TensorMap& in, const std::string& op, bool gated) {
  const Dims d = validate_qkv_shapes(in, op, {"beta"});
  if (gated) validate_log_gate(in, op, d, "log_alpha", "gates alpha");
  validate_s0(in, op, d);
}

void least_squares(const TensorMap& in, const std::string& op, bool gated) {
  const Dims d = validate_qkv_shapes(in, op);
  if (gated) validate_log_gate(in, op, d, "log_gate", "gates");
  for (auto& [name, t] : in)
    if (name != "q" && name != "k" && name != "v" && !(gated && name == "log_gate"))
      throw std::invalid_argument(op + ": unknown input '" + name + "'");
}

namespace {
// An optional one-element inverse temperature 'scale' > 0.
void optional_positive_scale(const TensorMap& in, const std::string& op) {
  if (auto it = in.find("scale"); it != in.end()) {
    require_shape(it->second, {1}, op, "scale");
    require_finite(it->second, op, "scale");
    if (!(it->second.data[0] > 0)) throw std::invalid_argument(op + ": input 'scale' must be > 0 (it is 1/tau)");
  }
}
}  // namespace

void local_linear(const TensorMap& in, const std::string& op) {
  validate_qkv_shapes(in, op);
  optional_positive_scale(in, op);
  for (auto& [name, t] : in)
    if (name != "q" && name != "k" && name != "v" && name != "scale") throw std::invalid_argument(op + ": unknown input '" + name + "'");
}

void softmax_family(const TensorMap& in, const std::string& op, bool with_beta) {
  const Dims d = validate_qkv_shapes(in, op);
  optional_positive_scale(in, op);
  if (with_beta) {
    if (auto it = in.find("beta"); it != in.end()) {
      require_shape(it->second, {d.B, d.H, d.T}, op, "beta", dims_note(in, op));
      require_finite(it->second, op, "beta");
    }
  }
  for (auto& [name, t] : in)
    if (name != "q" && name != "k" && name != "v" && name != "scale" && !(with_beta && name == "beta"))
      throw std::invalid_argument(op + ": unknown input '" + name + "'");
}

// ---- Hopfield ----
HDims hopfield_dims(const TensorMap& in, const std::string& op) {
  const Tensor& q = get(in, "q", op);
  const Tensor& k = get(in, "k", op);
  const Tensor& v = get(in, "v", op);
  if (q.shape.size() != 4) throw std::invalid_argument(op + ": input 'q' must have shape [B,H,L,d], got " + shape_str(q.shape));
  if (k.shape.size() != 4) throw std::invalid_argument(op + ": input 'k' must have shape [B,H,M,d], got " + shape_str(k.shape));
  if (v.shape.size() != 4) throw std::invalid_argument(op + ": input 'v' must have shape [B,H,M,dv], got " + shape_str(v.shape));
  HDims d{q.shape[0], q.shape[1], q.shape[2], k.shape[2], q.shape[3], v.shape[3]};
  if (d.B < 1 || d.H < 1 || d.L < 1 || d.M < 1 || d.d < 1 || d.dv < 1)
    throw std::invalid_argument(op + ": every dimension must be >= 1, got q " + shape_str(q.shape) + ", k " + shape_str(k.shape) + ", v " +
                                shape_str(v.shape));
  return d;
}
std::string hopfield_dims_note(const TensorMap& in, const std::string& op) {
  return "(B, H, L, d are read from q " + shape_str(get(in, "q", op).shape) + ", M from k " + shape_str(get(in, "k", op).shape) +
         ", d_v from v " + shape_str(get(in, "v", op).shape) + ")";
}

namespace {
void require_scalar(const TensorMap& in, const std::string& op, const char* n) {
  const Tensor& t = get(in, n, op);
  require_shape(t, {1}, op, n);
  require_finite(t, op, n);
}
double scalar(const TensorMap& in, const char* n) { return in.at(n).data[0]; }
void require_flag(const TensorMap& in, const std::string& op, const char* n) {
  if (!in.count(n)) return;
  require_scalar(in, op, n);
  const double x = scalar(in, n);
  if (x != 0 && x != 1) throw std::invalid_argument(op + ": input '" + n + "' must be 0 or 1, got " + std::to_string(x));
}
void require_integer(const TensorMap& in, const std::string& op, const char* n, double lo, double hi, const std::string& range) {
  require_scalar(in, op, n);
  const double x = scalar(in, n);
  if (x != std::floor(x) || x < lo || x > hi)
    throw std::invalid_argument(op + ": input '" + n + "' must be an integer in " + range + ", got " + std::to_string(x));
}
}  // namespace

void hopfield(const TensorMap& in, const std::string& op) {
  const bool masked = op == "hopfield_masked_r" || op == "hopfield_masked_u";
  const bool window = op == "hopfield_window_r" || op == "hopfield_window_causal_r";
  const bool topk = op == "hopfield_topk_r", prf = op == "hopfield_prf", linear = op == "hopfield_linear";
  if (!masked && !window && !topk && !prf && !linear && op != "hopfield_dense")
    throw std::logic_error("input_checks::hopfield: '" + op + "' is not a Hopfield op");
  const HDims d = hopfield_dims(in, op);
  const std::string note = hopfield_dims_note(in, op);
  if (window && d.M != d.L)
    throw std::invalid_argument(op + ": the window models are self-attention (M = L): k has M = " + std::to_string(d.M) +
                                " rows, q has L = " + std::to_string(d.L) + " " + note);
  require_shape(get(in, "k", op), {d.B, d.H, d.M, d.d}, op, "k", note);
  require_shape(get(in, "v", op), {d.B, d.H, d.M, d.dv}, op, "v", note);
  for (const char* n : {"q", "k", "v"}) require_finite(get(in, n, op), op, n);
  std::vector<std::string> known = {"q", "k", "v", "scale"};
  require_scalar(in, op, "scale");
  if (!(scalar(in, "scale") > 0)) throw std::invalid_argument(op + ": input 'scale' must be > 0 (the inverse temperature beta)");
  if (masked) {
    known.push_back("mask");
    const Tensor& m = get(in, "mask", op);
    require_shape(m, {d.B, d.H, d.L, d.M}, op, "mask", note);
    for (std::size_t i = 0; i < m.data.size(); ++i)
      if (m.data[i] != 0 && m.data[i] != 1)
        throw std::invalid_argument(op + ": input 'mask' must hold 0 (masked out) or 1 (kept), got " + std::to_string(m.data[i]) + " at " +
                                    index_str(m.shape, i));
  }
  if (window) {
    known.push_back("window");
    require_integer(in, op, "window", 1, 1e15, "[1, inf) (w > L is allowed)");
    if (op == "hopfield_window_r") {
      known.push_back("shift");
      require_flag(in, op, "shift");
    }
  }
  if (topk) {
    for (const char* n : {"topk", "tie_exact", "sel"}) known.push_back(n);
    require_integer(in, op, "topk", 1, static_cast<double>(d.M), "[1, M = " + std::to_string(d.M) + "]");
    require_flag(in, op, "tie_exact");
    if (auto it = in.find("sel"); it != in.end()) {
      require_shape(it->second, {d.B, d.H, d.M, d.d}, op, "sel", note);
      require_finite(it->second, op, "sel");
    }
  }
  if (prf) {
    known.push_back("omega");
    known.push_back("hyperbolic");
    const Tensor& w = get(in, "omega", op);
    if (w.shape.size() != 4 || w.shape[0] != d.B || w.shape[1] != d.H || w.shape[2] < 1 || w.shape[3] != d.d)
      throw std::invalid_argument(op + ": input 'omega' must have shape [B,H,n_f,d] = [" + std::to_string(d.B) + "," + std::to_string(d.H) +
                                  ",n_f>=1," + std::to_string(d.d) + "], got " + shape_str(w.shape) + " " + note);
    require_finite(w, op, "omega");
    require_flag(in, op, "hyperbolic");
  }
  if (linear) {
    known.push_back("literal_c2");
    require_flag(in, op, "literal_c2");
  }
  for (const auto& [name, t] : in)
    if (std::find(known.begin(), known.end(), name) == known.end()) throw std::invalid_argument(op + ": unknown input '" + name + "'");
}

}  // namespace recall::input_checks
