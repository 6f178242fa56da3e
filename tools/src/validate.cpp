#include "recall/tools/validate.hpp"

#include "recall/tools/npy.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace recall {
namespace {

Precision precision_of(npy::DType d) {
  switch (d) {
    case npy::DType::f16: return Precision::f16;
    case npy::DType::bf16: return Precision::bf16;
    case npy::DType::f32: return Precision::f32;
    case npy::DType::f64: return Precision::f64;
  }
  throw std::invalid_argument("unknown dtype");
}
npy::DType dtype_of(Precision p) {
  switch (p) {
    case Precision::f16: return npy::DType::f16;
    case Precision::bf16: return npy::DType::bf16;
    case Precision::f32: return npy::DType::f32;
    case Precision::f64: return npy::DType::f64;
  }
  return npy::DType::f64;
}

npy::DType parse_dtype(const std::string& s) {
  try {
    return dtype_of(parse_precision(s));
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("unknown --dtype '" + s + "' (expected f16, bf16, f32, f64 or auto)");
  }
}

TensorMap to_tensors(const std::map<std::string, npy::Array>& arrays) {
  TensorMap m;
  for (const auto& [name, a] : arrays) m[name] = Tensor{a.shape, a.data};
  return m;
}

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') o += ' ';
        else o += c;
    }
  }
  return o;
}

nlohmann::json jnum(double x) {
  if (std::isfinite(x)) return x;
  return std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf");
}

}  // namespace

void print_ops(std::ostream& os) {
  for (const OpSpec& o : ops()) {
    os << o.name << ": " << o.summary << "\n  spec IDs:";
    for (const auto& id : o.spec_ids) os << ' ' << id;
    os << "\n  inputs:\n";
    for (const auto& d : o.inputs)
      os << "    " << d.name << " [" << d.shape << "]" << (d.optional ? " (optional)" : "") << "  " << d.doc << '\n';
    os << "  outputs:\n";
    for (const auto& d : o.outputs) os << "    " << d.name << " [" << d.shape << "]  " << d.doc << '\n';
  }
}

int cmd_validate(const ValidateOptions& opt, std::ostream& os, std::ostream& err) {
  const OpSpec* opp = nullptr;
  TensorMap in, out;
  npy::DType dtype = npy::DType::f64;
  try {
    opp = &op(opt.op);
    const bool bf16 = opt.dtype == "bf16" || opt.dtype == "bfloat16";
    auto in_arrays = npy::read_any(opt.inputs, bf16);
    auto out_arrays = npy::read_any(opt.outputs, bf16);
    // names against the op's signature
    for (const auto& d : opp->inputs)
      if (!d.optional && !in_arrays.count(d.name))
        throw std::invalid_argument(opt.inputs + ": missing input '" + d.name + "' [" + d.shape + "] of op " + opp->name);
    for (const auto& [name, a] : in_arrays) {
      bool known = false;
      for (const auto& d : opp->inputs) known |= d.name == name;
      if (!known) throw std::invalid_argument(opt.inputs + ": '" + name + "' is not an input of op " + opp->name + " (see --list-ops)");
    }
    for (const auto& d : opp->outputs)
      if (!out_arrays.count(d.name))
        throw std::invalid_argument(opt.outputs + ": missing output '" + d.name + "' [" + d.shape + "] of op " + opp->name);
    // working precision: --dtype, else the outputs' dtype (all outputs must agree)
    if (opt.dtype == "auto") {
      bool first = true;
      for (const auto& [name, a] : out_arrays) {
        if (!first && a.dtype != dtype)
          throw std::invalid_argument(opt.outputs + ": outputs have different dtypes ('" + name + "' is " + npy::dtype_name(a.dtype) +
                                      "); pass --dtype");
        dtype = a.dtype;
        first = false;
      }
    } else {
      dtype = parse_dtype(opt.dtype);
    }
    in = to_tensors(in_arrays);
    out = to_tensors(out_arrays);
    try {
      opp->validate(in);
    } catch (const std::exception& e) {
      throw std::invalid_argument(opt.inputs + ": " + e.what());
    }
  } catch (const std::exception& e) {
    err << "recall validate: " << e.what() << '\n';
    return 2;
  }

  const Precision prec = precision_of(dtype);
  Reference ref;
  try {
    ref = make_reference(*opp, in, prec, opt.budget);
    for (const auto& [name, y] : ref.oracle.y) {
      const Tensor& t = out.at(name);
      if (t.shape != y.shape)
        throw std::invalid_argument(opt.outputs + ": output '" + name + "' has shape " + shape_str(t.shape) + ", expected " +
                                    shape_str(y.shape) + " for these inputs");
    }
  } catch (const std::exception& e) {
    err << "recall validate: " << e.what() << '\n';
    return 2;
  }
  const double u = unit_roundoff(prec);
  const auto res = judge_outputs(ref.oracle.y, out, ref.baseline, ref.budget, opt.budget);
  int failures = 0;
  for (const auto& r : res) failures += !r.pass;
  auto message = [&](const OutputJudgement& r) {
    std::ostringstream msg;
    msg << "max error " << r.err_u << " u at " << r.worst_index << "; per-token relative " << r.token_rel_err_u << " u; relative RMSE "
        << r.rel_rmse << "; decisive row " << r.worst_row << ": error " << r.row_err_u << " u vs budget "
        << r.term_baseline + r.term_rounding + r.term_sensitivity + r.term_solve + r.term_floor + r.term_underflow
        << " u of the row's scale";
    if (r.nonfinite) msg << "; " << r.nonfinite << " non-finite values (NaN/Inf), first at " << r.first_nonfinite;
    if (!r.weakness.empty()) msg << "; " << r.weakness;
    return msg.str();
  };

  if (opt.format == "json") {
    nlohmann::json j = {{"op", opp->name},       {"inputs", opt.inputs},      {"outputs", opt.outputs},
                        {"dtype", npy::dtype_name(dtype)}, {"unit_roundoff", u},
                        {"accumulation", precision_name(accumulation(prec))},
                        {"oracle_digits", ref.oracle.digits}, {"oracle_agree_digits", ref.oracle.agree_digits},
                        {"budget", {{"c", opt.budget.c}, {"lambda", opt.budget.lambda}, {"floor_u", opt.budget.floor_u},
                                    {"rounding", opt.budget.rounding}, {"samples", opt.budget.samples}}},
                        {"pass", failures == 0}};
    for (const auto& r : res)
      j["results"].push_back({{"output", r.name}, {"pass", r.pass}, {"max_err_u", jnum(r.err_u)}, {"worst_index", r.worst_index},
                              {"baseline_err_u", jnum(r.baseline_err_u)}, {"token_rel_err_u", jnum(r.token_rel_err_u)},
                              {"rel_rmse", jnum(r.rel_rmse)}, {"baseline_rel_rmse", jnum(r.baseline_rel_rmse)},
                              {"worst_row", r.worst_row}, {"row_ratio", jnum(r.row_ratio)}, {"row_err_u", jnum(r.row_err_u)},
                              {"budget_u", jnum(r.budget_u)}, {"margin_u", jnum(r.margin_u)},
                              {"terms_u_of_row_scale", {{"baseline", r.term_baseline}, {"rounding", r.term_rounding},
                                                        {"sensitivity", r.term_sensitivity}, {"solve", r.term_solve},
                                                        {"floor", r.term_floor},
                                                        {"underflow", r.term_underflow}}},
                              {"kappa", jnum(r.kappa)}, {"kappa_solve", jnum(r.kappa_solve)},
                              {"budget_rel", jnum(r.budget_rel)}, {"budget_rel_median", jnum(r.budget_rel_median)},
                              {"rows", r.rows}, {"zero_passing_rows", r.zero_passing_rows},
                              {"discriminating", r.discriminating}, {"weakness", r.weakness},
                              {"nonfinite", r.nonfinite}, {"first_nonfinite", r.first_nonfinite}});
    os << j.dump(2) << '\n';
  } else if (opt.format == "junit") {
    os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    os << "<testsuites name=\"recall validate\" tests=\"" << res.size() << "\" failures=\"" << failures << "\" errors=\"0\">\n";
    os << "  <testsuite name=\"" << xml_escape("recall.validate." + opp->name) << "\" tests=\"" << res.size() << "\" failures=\""
       << failures << "\" errors=\"0\" skipped=\"0\">\n";
    os << "    <properties>\n      <property name=\"dtype\" value=\"" << npy::dtype_name(dtype) << "\"/>\n"
       << "      <property name=\"inputs\" value=\"" << xml_escape(opt.inputs) << "\"/>\n"
       << "      <property name=\"outputs\" value=\"" << xml_escape(opt.outputs) << "\"/>\n    </properties>\n";
    for (const auto& r : res) {
      const std::string msg = message(r);
      os << "    <testcase classname=\"" << xml_escape(opp->name) << "\" name=\"" << xml_escape(r.name) << "\">\n";
      if (!r.pass) os << "      <failure message=\"" << xml_escape(msg) << "\" type=\"budget\">" << xml_escape(msg) << "</failure>\n";
      else os << "      <system-out>" << xml_escape(msg) << "</system-out>\n";
      os << "    </testcase>\n";
    }
    os << "  </testsuite>\n</testsuites>\n";
  } else {
    os << "recall validate: op " << opp->name << ", dtype " << npy::dtype_name(dtype) << " (u = " << u << ", accumulation "
       << precision_name(accumulation(prec)) << "), oracle " << ref.oracle.digits << " digits (self-agreement " << std::setprecision(3)
       << ref.oracle.agree_digits << " digits)\n";
    os << "  " << std::left << std::setw(10) << "output" << std::setw(13) << "max err (u)" << std::setw(18) << "worst index"
       << std::setw(14) << "token rel (u)" << std::setw(12) << "rel RMSE" << std::setw(15) << "baseline (u)" << std::setw(13)
       << "budget (u)" << std::setw(13) << "budget/scale" << "result\n";
    for (const auto& r : res)
      os << "  " << std::setw(10) << r.name << std::setw(13) << r.err_u << std::setw(18) << r.worst_index << std::setw(14)
         << r.token_rel_err_u << std::setw(12) << r.rel_rmse << std::setw(15) << r.baseline_err_u << std::setw(13) << r.budget_u
         << std::setw(13) << r.budget_rel << (r.pass ? "pass" : "FAIL") << (r.discriminating ? "" : " (not discriminating)") << '\n';
    for (const auto& r : res) os << "  " << r.name << ": " << message(r) << '\n';
    for (const auto& r : res)
      if (r.nonfinite)
        os << "  " << r.name << ": " << r.nonfinite << " non-finite values (NaN/Inf) where the reference is finite, first at "
           << r.first_nonfinite << '\n';
    os << "  " << res.size() - failures << " passed, " << failures << " failed\n";
  }
  return failures == 0 ? 0 : 1;
}

KeyKind parse_key_kind(const std::string& s) {
  for (KeyKind k : {KeyKind::gaussian, KeyKind::near_zero, KeyKind::near_parallel, KeyKind::correlated, KeyKind::unit_sphere, KeyKind::integer})
    if (s == key_kind_name(k)) return k;
  throw std::invalid_argument("unknown key kind '" + s + "'");
}
GateKind parse_gate_kind(const std::string& s) {
  for (GateKind g : {GateKind::ones, GateKind::uniform, GateKind::beta51, GateKind::zeros_mixed, GateKind::tiny, GateKind::near_one,
                     GateKind::saturating, GateKind::constant})
    if (s == gate_kind_name(g)) return g;
  throw std::invalid_argument("unknown gate kind '" + s + "'");
}

void parse_shape(const std::string& s, CaseKnobs& k) {
  std::istringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("--shape: '" + item + "' is not NAME=VALUE");
    const std::string name = item.substr(0, eq), val = item.substr(eq + 1);
    int v = 0;
    try {
      std::size_t used = 0;
      v = std::stoi(val, &used);
      if (used != val.size()) throw std::invalid_argument("trailing characters");
    } catch (const std::exception&) {
      throw std::invalid_argument("--shape: '" + val + "' is not an integer (in " + item + ")");
    }
    if (v < 1 || v > (1 << 20)) throw std::invalid_argument("--shape: " + name + " must be in [1, 2^20], got " + val);
    if (name == "B") k.B = v;
    else if (name == "H") k.H = v;
    else if (name == "T") k.T = v;
    else if (name == "dk" || name == "dphi") k.dk = v;
    else if (name == "dv") k.dv = v;
    else throw std::invalid_argument("--shape: unknown dimension '" + name + "' (B, H, T, dk, dv)");
  }
}

int cmd_dump(const DumpOptions& opt, std::ostream& os, std::ostream& err) {
  try {
    const OpSpec& o = op(opt.op);
    CaseKnobs k = opt.knobs;
    parse_shape(opt.shape, k);
    const npy::DType dt = parse_dtype(opt.dtype);
    TensorMap in = o.generate(k, precision_of(dt));  // exactly representable in the storage type
    std::map<std::string, npy::Array> arrays;
    for (auto& [name, t] : in) arrays[name] = npy::Array{t.shape, t.data, dt};
    npy::write_npz(opt.out, arrays);
    os << "recall dump: wrote " << opt.out << " (op " << o.name << ", " << describe(k) << ", dtype " << npy::dtype_name(dt) << "):";
    for (const auto& [name, a] : arrays) os << ' ' << name << shape_str(a.shape);
    os << '\n';
  } catch (const std::exception& e) {
    err << "recall dump: " << e.what() << '\n';
    return 2;
  }
  return 0;
}

}  // namespace recall
