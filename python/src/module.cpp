// recall._recall: the test-bed's C++ core for Python (pybind11, Debian's pybind11-dev). Thin: the
// arrays arrive as float64 NumPy arrays (the Python layer, recall/__init__.py, converts torch
// tensors, bf16 included, and anything with __array__), and every decision is the C++ one that
// `recall validate` / `recall dump` / `recall check` make (tools/validate.hpp, tools/app.hpp).
#include "recall/tools/app.hpp"
#include "recall/tools/validate.hpp"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <sstream>

namespace py = pybind11;
using namespace recall;

namespace {

using F64Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

TensorMap to_map(const std::map<std::string, F64Array>& arrays) {
  TensorMap m;
  for (const auto& [name, a] : arrays) {
    Tensor t;
    for (py::ssize_t i = 0; i < a.ndim(); ++i) t.shape.push_back(a.shape(i));
    t.data.assign(a.data(), a.data() + a.size());
    m[name] = std::move(t);
  }
  return m;
}

py::dict to_dict(const TensorMap& m) {
  py::dict d;
  for (const auto& [name, t] : m) {
    std::vector<py::ssize_t> shape(t.shape.begin(), t.shape.end());
    F64Array a(shape);
    std::copy(t.data.begin(), t.data.end(), a.mutable_data());
    d[py::str(name)] = a;
  }
  return d;
}

LayoutOptions layout_of(const std::string& layout, const std::string& state_layout, std::optional<double> scale) {
  LayoutOptions o;
  o.layout = layout;
  o.state_layout = state_layout;
  o.q_scale = scale;
  check_layout_options(o);
  return o;
}

}  // namespace

PYBIND11_MODULE(_recall, m) {
  m.doc() = "recall: numerical verification of associative-memory sequence layers against multiprecision references";
  // invalid_argument (bad input, named) -> ValueError; everything else -> RuntimeError
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const std::out_of_range& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  m.def("ops", [] {
    register_builtin_implementations();
    py::list out;
    for (const OpSpec& o : ops()) {
      py::dict d;
      d["name"] = o.name;
      d["summary"] = o.summary;
      d["spec_ids"] = o.spec_ids;
      auto decls = [](const std::vector<TensorDecl>& v) {
        py::list l;
        for (const auto& t : v) {
          py::dict e;
          e["name"] = t.name, e["shape"] = t.shape, e["optional"] = t.optional, e["doc"] = t.doc;
          l.append(e);
        }
        return l;
      };
      d["inputs"] = decls(o.inputs);
      d["outputs"] = decls(o.outputs);
      out.append(d);
    }
    return out;
  });

  m.def(
      "validate",
      [](const std::string& op_name, const std::map<std::string, F64Array>& inputs, const std::map<std::string, F64Array>& outputs,
         const std::string& dtype, const std::string& layout, const std::string& state_layout, std::optional<double> scale) {
        ValidateOptions o;
        o.op = op_name;
        o.layout = layout_of(layout, state_layout, scale);
        const Precision p = parse_precision(dtype);
        TensorMap in = to_map(inputs), out = to_map(outputs);
        ValidationResult r;
        {
          py::gil_scoped_release nogil;
          r = validate_tensors(op_name, std::move(in), std::move(out), p, o);
        }
        return py::make_tuple(r.pass, r.json.dump(), r.text, r.junit);
      },
      py::arg("op"), py::arg("inputs"), py::arg("outputs"), py::arg("dtype"), py::arg("layout") = "bhtd",
      py::arg("state_layout") = "vk", py::arg("scale") = py::none());

  m.def(
      "generate",
      [](const std::string& op_name, const std::string& shape, std::uint64_t seed, const std::string& dtype, const std::string& layout,
         const std::string& state_layout, std::optional<double> scale, const std::string& keys, const std::string& gates,
         bool initial_state, int scale_exp, const std::string& betas) {
        CaseKnobs k;
        k.seed = seed;
        k.keys = parse_key_kind(keys);
        k.gates = parse_gate_kind(gates);
        k.initial_state = initial_state;
        k.scale_exp = scale_exp;
        k.betas = parse_beta_kind(betas);
        return to_dict(generate_inputs(op_name, shape, parse_precision(dtype), k, layout_of(layout, state_layout, scale)));
      },
      py::arg("op"), py::arg("shape"), py::arg("seed"), py::arg("dtype") = "f32", py::arg("layout") = "bhtd",
      py::arg("state_layout") = "vk", py::arg("scale") = py::none(), py::arg("keys") = "gaussian", py::arg("gates") = "uniform",
      py::arg("initial_state") = false, py::arg("scale_exp") = 0, py::arg("betas") = "mixed");

  m.def(
      "check",
      [](const std::vector<std::string>& ids, bool full, std::uint64_t seed) {
        CheckConfig cfg;
        cfg.quick = !full;
        cfg.seed = seed;
        std::ostringstream out, err;
        int rc = 0;
        {
          py::gil_scoped_release nogil;
          rc = cmd_check(ids, /*json=*/true, cfg, out, err);
        }
        if (rc == 2) throw std::invalid_argument(err.str());
        return py::make_tuple(rc, out.str());
      },
      py::arg("ids"), py::arg("full") = false, py::arg("seed") = CheckConfig{}.seed);
}
