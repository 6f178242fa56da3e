#include "recall/tools/layout.hpp"

#include "recall/tools/table.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace recall {
namespace {

enum class Role { token, scalar, state, other };

Role role_of(const TensorDecl& d) {
  if (d.shape.rfind("B,H,T,", 0) == 0) return Role::token;
  if (d.shape == "B,H,T") return Role::scalar;
  if (d.shape.rfind("B,H,dv,", 0) == 0) return Role::state;
  return Role::other;
}

// swaps axes a and b (a < b) of a row-major tensor
Tensor swap_axes(const Tensor& t, std::size_t a, std::size_t b) {
  Tensor o;
  o.shape = t.shape;
  std::swap(o.shape[a], o.shape[b]);
  o.data.resize(t.data.size());
  const std::size_t r = t.shape.size();
  std::vector<std::int64_t> stride(r, 1), ostride(r, 1);
  for (std::size_t i = r - 1; i-- > 0;) {
    stride[i] = stride[i + 1] * t.shape[i + 1];
    ostride[i] = ostride[i + 1] * o.shape[i + 1];
  }
  std::vector<std::int64_t> idx(r, 0);
  for (std::size_t lin = 0; lin < t.data.size(); ++lin) {
    std::int64_t rem = static_cast<std::int64_t>(lin), off = 0;
    for (std::size_t i = 0; i < r; ++i) {
      idx[i] = rem / stride[i];
      rem %= stride[i];
    }
    std::swap(idx[a], idx[b]);
    for (std::size_t i = 0; i < r; ++i) off += idx[i] * ostride[i];
    o.data[static_cast<std::size_t>(off)] = t.data[lin];
  }
  return o;
}

TensorMap convert(const OpSpec& op, TensorMap m, const LayoutOptions& o, bool input, bool to_canonical, const std::string& where) {
  check_layout_options(o);
  const bool bthd = o.layout == "bthd", kv = o.state_layout == "kv";
  for (auto& [name, t] : m) {
    const TensorDecl* d = input ? op.input(name) : op.output(name);
    if (!d) continue;  // unknown names: the op's own checks name them
    const Role r = role_of(*d);
    if (r == Role::token && bthd) {
      if (t.shape.size() != 4)
        throw std::invalid_argument(where + ": '" + name + "' has shape " + shape_str(t.shape) + "; layout " + o.layout + " expects " +
                                    (to_canonical ? "[B, T, H, d]" : "[B, H, T, d]"));
      t = swap_axes(t, 1, 2);
    } else if (r == Role::scalar && bthd) {
      if (t.shape.size() != 3)
        throw std::invalid_argument(where + ": '" + name + "' has shape " + shape_str(t.shape) + "; layout " + o.layout + " expects " +
                                    (to_canonical ? "[B, T, H]" : "[B, H, T]"));
      t = swap_axes(t, 1, 2);
    } else if (r == Role::state && kv) {
      if (t.shape.size() != 4)
        throw std::invalid_argument(where + ": '" + name + "' has shape " + shape_str(t.shape) + "; state layout kv expects " +
                                    (to_canonical ? "[B, H, d_k, d_v]" : "[B, H, d_v, d_k]"));
      t = swap_axes(t, 2, 3);
    }
  }
  return m;
}

bool has_scale_input(const OpSpec& op) { return op.input("scale") != nullptr; }

std::string g(double x) { return out::g(x, 6); }

}  // namespace

void check_layout_options(const LayoutOptions& o) {
  if (o.layout != "bhtd" && o.layout != "bthd")
    throw std::invalid_argument("unknown layout '" + o.layout + "' (expected bhtd: [B, H, T, d], or bthd: [B, T, H, d])");
  if (o.state_layout != "vk" && o.state_layout != "kv")
    throw std::invalid_argument("unknown state layout '" + o.state_layout + "' (expected vk: [B, H, d_v, d_k], or kv: [B, H, d_k, d_v])");
  if (o.q_scale && !(std::isfinite(*o.q_scale) && *o.q_scale > 0))
    throw std::invalid_argument("q scale " + g(*o.q_scale) + " must be finite and > 0");
}

TensorMap inputs_to_canonical(const OpSpec& op, TensorMap in, const LayoutOptions& o, const std::string& where) {
  in = convert(op, std::move(in), o, true, true, where);
  if (!o.q_scale) return in;
  if (has_scale_input(op)) {
    auto it = in.find("scale");
    if (it != in.end()) {
      if (it->second.data.size() != 1 || it->second.data[0] != *o.q_scale)
        throw std::invalid_argument(where + ": holds scale = " + (it->second.data.empty() ? std::string("(empty)") : g(it->second.data[0])) +
                                    " but q_scale = " + g(*o.q_scale) + " was given; drop one");
    } else {
      in["scale"] = Tensor{{1}, {*o.q_scale}};
    }
  } else {
    auto it = in.find("q");
    if (it == in.end()) throw std::invalid_argument(where + ": q_scale given but op " + op.name + " has no input 'q'");
    for (double& x : it->second.data) x *= *o.q_scale;
  }
  return in;
}

TensorMap outputs_to_canonical(const OpSpec& op, TensorMap out, const LayoutOptions& o, const std::string& where) {
  return convert(op, std::move(out), o, false, true, where);
}

TensorMap inputs_from_canonical(const OpSpec& op, TensorMap in, const LayoutOptions& o) {
  if (has_scale_input(op)) {
    double s = 0;
    if (o.q_scale) {
      s = *o.q_scale;
    } else {
      const Tensor& q = in.at("q");
      s = 1.0 / std::sqrt(static_cast<double>(q.shape.back()));
    }
    in["scale"] = Tensor{{1}, {s}};
  }
  return convert(op, std::move(in), o, true, false, "generated inputs");
}

TensorMap outputs_from_canonical(const OpSpec& op, TensorMap out, const LayoutOptions& o) {
  return convert(op, std::move(out), o, false, false, "canonical outputs");
}

std::vector<std::int64_t> output_shape_in_layout(const OpSpec& op, const std::string& name, std::vector<std::int64_t> s,
                                                 const LayoutOptions& o) {
  const TensorDecl* d = op.output(name);
  if (!d) return s;
  const Role r = role_of(*d);
  if ((r == Role::token && s.size() == 4 && o.layout == "bthd") || (r == Role::scalar && s.size() == 3 && o.layout == "bthd"))
    std::swap(s[1], s[2]);
  if (r == Role::state && s.size() == 4 && o.state_layout == "kv") std::swap(s[2], s[3]);
  return s;
}

std::string describe_scale(const OpSpec& op, const TensorMap& in, const LayoutOptions& o, bool scale_in_file) {
  std::ostringstream s;
  if (has_scale_input(op)) {
    auto it = in.find("scale");
    if (o.q_scale) s << "scale " << g(*o.q_scale) << " (q_scale)";
    else if (scale_in_file && it != in.end()) s << "scale " << g(it->second.data[0]) << " (the inputs' 'scale')";
    else {
      const auto q = in.find("q");
      const double dk = q != in.end() ? static_cast<double>(q->second.shape.back()) : 0;
      s << "scale " << g(dk > 0 ? 1 / std::sqrt(dk) : 0) << " (default 1/sqrt(d_k), d_k = " << dk << ")";
    }
  } else if (o.q_scale) {
    s << "q scaled by " << g(*o.q_scale) << " (q_scale) before the reference";
  } else {
    s << "no q scale (op " << op.name << " has none; pass q_scale if the kernel scales q, e.g. 1/sqrt(d_k))";
  }
  return s.str();
}

}  // namespace recall
