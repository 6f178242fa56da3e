#include "recall/tools/validate.hpp"

#include "recall/tools/npy.hpp"
#include "recall/tools/table.hpp"

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

// The verdicts of one validate run as a table (tools/table.hpp): one row per output; the text,
// JSON and JUnit forms are all rendered from it.
out::Table results_table(const std::string& op_name, const std::vector<OutputJudgement>& res) {
  using out::Show;
  out::Table t;
  t.columns = {{"output", "output"},
               {"max_err_u", "max err (u)"},
               {"worst_index", "worst index"},
               {"token_rel_err_u", "token rel (u)"},
               {"rel_rmse", "rel RMSE"},
               {"baseline_err_u", "baseline (u)"},
               {"budget_u", "budget (u)"},
               {"budget_rel", "budget/scale"},
               {"result", "result", Show::display_only},
               {"pass", "", Show::json_only},
               {"baseline_rel_rmse", "", Show::json_only},
               {"worst_row", "", Show::json_only},
               {"row_ratio", "", Show::json_only},
               {"row_err_u", "", Show::json_only},
               {"margin_u", "", Show::json_only},
               {"terms_u_of_row_scale", "", Show::json_only},
               {"kappa", "", Show::json_only},
               {"kappa_solve", "", Show::json_only},
               {"budget_rel_median", "", Show::json_only},
               {"rows", "", Show::json_only},
               {"zero_passing_rows", "", Show::json_only},
               {"discriminating", "", Show::json_only},
               {"weakness", "", Show::json_only},
               {"nonfinite", "", Show::json_only},
               {"first_nonfinite", "", Show::json_only}};
  for (const auto& r : res) {
    std::ostringstream msg;
    msg << "max error " << r.err_u << " u at " << r.worst_index << "; per-token relative " << r.token_rel_err_u << " u; relative RMSE "
        << r.rel_rmse << "; decisive row " << r.worst_row << ": error " << r.row_err_u << " u vs budget "
        << r.term_baseline + r.term_rounding + r.term_sensitivity + r.term_solve + r.term_floor + r.term_underflow
        << " u of the row's scale";
    if (r.nonfinite) msg << "; " << r.nonfinite << " non-finite values (NaN/Inf), first at " << r.first_nonfinite;
    if (!r.weakness.empty()) msg << "; " << r.weakness;
    const nlohmann::json terms = {{"baseline", r.term_baseline}, {"rounding", r.term_rounding}, {"sensitivity", r.term_sensitivity},
                                  {"solve", r.term_solve},       {"floor", r.term_floor},       {"underflow", r.term_underflow}};
    out::Row row;
    row.cells = {out::str(r.name),
                 out::num(r.err_u),
                 out::str(r.worst_index),
                 out::num(r.token_rel_err_u),
                 out::num(r.rel_rmse),
                 out::num(r.baseline_err_u),
                 out::num(r.budget_u),
                 out::num(r.budget_rel),
                 out::str(std::string(r.pass ? "pass" : "FAIL") + (r.discriminating ? "" : " (not discriminating)")),
                 out::flag(r.pass),
                 out::num(r.baseline_rel_rmse),
                 out::str(r.worst_row),
                 out::num(r.row_ratio),
                 out::num(r.row_err_u),
                 out::num(r.margin_u),
                 out::shown_as(terms, terms.dump()),
                 out::num(r.kappa),
                 out::num(r.kappa_solve),
                 out::num(r.budget_rel_median),
                 out::integer(static_cast<long long>(r.rows)),
                 out::integer(static_cast<long long>(r.zero_passing_rows)),
                 out::flag(r.discriminating),
                 out::str(r.weakness),
                 out::integer(static_cast<long long>(r.nonfinite)),
                 out::str(r.first_nonfinite)};
    row.pass = r.pass;
    row.name = r.name;
    row.group = op_name;
    row.message = msg.str();
    t.rows.push_back(std::move(row));
  }
  return t;
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

ValidationResult validate_tensors(const std::string& op_name, TensorMap in_user, TensorMap out_user, Precision prec,
                                  const ValidateOptions& opt, const std::string& in_name, const std::string& out_name) {
  const OpSpec& o = op(op_name);
  // names against the op's signature
  for (const auto& d : o.inputs)
    if (!d.optional && !in_user.count(d.name))
      throw std::invalid_argument(in_name + ": missing input '" + d.name + "' [" + d.shape + "] of op " + o.name);
  for (const auto& [name, a] : in_user)
    if (!o.input(name)) throw std::invalid_argument(in_name + ": '" + name + "' is not an input of op " + o.name + " (see --list-ops)");
  for (const auto& d : o.outputs)
    if (!out_user.count(d.name))
      throw std::invalid_argument(out_name + ": missing output '" + d.name + "' [" + d.shape + "] of op " + o.name);
  for (const auto& [name, a] : out_user)
    if (!o.output(name)) throw std::invalid_argument(out_name + ": '" + name + "' is not an output of op " + o.name + " (see --list-ops)");
  const bool scale_in_file = in_user.count("scale") > 0;
  TensorMap in = inputs_to_canonical(o, std::move(in_user), opt.layout, in_name);
  TensorMap out = outputs_to_canonical(o, std::move(out_user), opt.layout, out_name);
  try {
    o.validate(in);
  } catch (const std::exception& e) {
    throw std::invalid_argument(in_name + ": " + e.what());
  }
  const Reference ref = make_reference(o, in, prec, opt.budget);
  for (const auto& [name, y] : ref.oracle.y) {
    const Tensor& t = out.at(name);
    if (t.shape != y.shape)
      throw std::invalid_argument(out_name + ": output '" + name + "' has shape " +
                                  shape_str(output_shape_in_layout(o, name, t.shape, opt.layout)) + ", expected " +
                                  shape_str(output_shape_in_layout(o, name, y.shape, opt.layout)) + " for these inputs (layout " +
                                  opt.layout.layout + ", state layout " + opt.layout.state_layout + ")");
  }
  const double u = unit_roundoff(prec);
  const auto res = judge_outputs(ref.oracle.y, out, ref.baseline, ref.budget, opt.budget);
  ValidationResult vr;
  for (const auto& r : res) vr.failures += !r.pass;
  vr.pass = vr.failures == 0;
  vr.scale = describe_scale(o, in, opt.layout, scale_in_file);
  const out::Table table = results_table(o.name, res);
  const std::string dname = precision_name(prec);
  vr.json = {{"op", o.name},
             {"inputs", in_name},
             {"outputs", out_name},
             {"dtype", dname},
             {"unit_roundoff", u},
             {"accumulation", precision_name(accumulation(prec))},
             {"layout", opt.layout.layout},
             {"state_layout", opt.layout.state_layout},
             {"scale", vr.scale},
             {"oracle_digits", ref.oracle.digits},
             {"oracle_agree_digits", ref.oracle.agree_digits},
             {"budget", {{"c", opt.budget.c}, {"lambda", opt.budget.lambda}, {"floor_u", opt.budget.floor_u},
                         {"rounding", opt.budget.rounding}, {"samples", opt.budget.samples}}},
             {"pass", vr.pass}};
  vr.json["results"] = out::to_json(table);
  {
    std::ostringstream j;
    out::render_junit("recall validate", {{"recall.validate." + o.name, &table}}, j,
                      {{"dtype", dname}, {"inputs", in_name}, {"outputs", out_name}, {"scale", vr.scale}});
    vr.junit = j.str();
  }
  std::ostringstream os;
  os << "recall validate: op " << o.name << ", dtype " << dname << " (u = " << u << ", accumulation " << precision_name(accumulation(prec))
     << "), layout " << opt.layout.layout << ", state layout " << opt.layout.state_layout << ", oracle " << ref.oracle.digits
     << " digits (self-agreement " << std::setprecision(3) << ref.oracle.agree_digits << " digits)\n  " << vr.scale << '\n';
  out::render_text(table, os);
  for (const auto& r : table.rows) os << "  " << r.name << ": " << r.message << '\n';
  for (const auto& r : res)
    if (r.nonfinite)
      os << "  " << r.name << ": " << r.nonfinite << " non-finite values (NaN/Inf) where the reference is finite, first at "
         << r.first_nonfinite << '\n';
  os << "  " << res.size() - vr.failures << " passed, " << vr.failures << " failed\n";
  vr.text = os.str();
  return vr;
}

int cmd_validate(const ValidateOptions& opt, std::ostream& os, std::ostream& err) {
  try {
    op(opt.op);
    const bool bf16 = opt.dtype == "bf16" || opt.dtype == "bfloat16";
    auto in_arrays = npy::read_any(opt.inputs, bf16);
    auto out_arrays = npy::read_any(opt.outputs, bf16);
    // working precision: --dtype, else the outputs' dtype (all outputs must agree)
    npy::DType dtype = npy::DType::f64;
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
    const ValidationResult r =
        validate_tensors(opt.op, to_tensors(in_arrays), to_tensors(out_arrays), precision_of(dtype), opt, opt.inputs, opt.outputs);
    if (opt.format == "json") os << r.json.dump(2) << '\n';
    else if (opt.format == "junit") os << r.junit;
    else os << r.text;
    return r.pass ? 0 : 1;
  } catch (const std::exception& e) {
    err << "recall validate: " << e.what() << '\n';
    return 2;
  }
}

TensorMap generate_inputs(const std::string& op_name, const std::string& shape, Precision dtype, CaseKnobs k, const LayoutOptions& lo) {
  const OpSpec& o = op(op_name);
  check_layout_options(lo);
  parse_shape(shape, k);
  TensorMap in = o.generate(k, dtype);  // exactly representable in the storage type
  return inputs_from_canonical(o, std::move(in), lo);
}

int cmd_dump(const DumpOptions& opt, std::ostream& os, std::ostream& err) {
  try {
    const OpSpec& o = op(opt.op);
    const npy::DType dt = parse_dtype(opt.dtype);
    TensorMap in = generate_inputs(opt.op, opt.shape, precision_of(dt), opt.knobs, opt.layout);
    CaseKnobs k = opt.knobs;
    parse_shape(opt.shape, k);
    std::map<std::string, npy::Array> arrays;
    // a parameter, not a stored tensor: the scale keeps every digit (1/sqrt(d_k) rounded to f16 or
    // bf16 would differ from what a kernel computes)
    for (auto& [name, t] : in) arrays[name] = npy::Array{t.shape, t.data, name == "scale" ? npy::DType::f64 : dt};
    npy::write_npz(opt.out, arrays);
    os << "recall dump: wrote " << opt.out << " (op " << o.name << ", " << describe(k) << ", dtype " << npy::dtype_name(dt) << ", layout "
       << opt.layout.layout << ", state layout " << opt.layout.state_layout << "):";
    for (const auto& [name, a] : arrays) os << ' ' << name << shape_str(a.shape);
    os << '\n';
    if (o.input("scale"))
      os << "  scale = " << in.at("scale").data[0] << (opt.layout.q_scale ? " (--q-scale)" : " (the documented default 1/sqrt(d_k))")
         << ", written into the file\n";
    else if (opt.layout.q_scale)
      os << "  q is NOT scaled in the file: your kernel applies --q-scale " << *opt.layout.q_scale
         << "; validate with the same --q-scale\n";
  } catch (const std::exception& e) {
    err << "recall dump: " << e.what() << '\n';
    return 2;
  }
  return 0;
}

}  // namespace recall
