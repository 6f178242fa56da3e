// libFuzzer target: `recall validate`'s input checks, from the op's signature to the judgement.
//
// The bytes do not spell a .npz (fuzz_npz covers the reader); they drive a structured generator, so
// that most executions reach the checks behind the reader rather than dying in it:
//   byte 0        op (index into the registry)
//   bytes 1..7    dimensions B, H in 1..2, T, M in 1..5, d_k in 1..4, d_v, n_f in 1..3
//   byte 8        options: layout bhtd/bthd, state layout vk/kv, a q_scale, optional inputs present,
//                 outputs from the op's own baseline (so that the pass path is reached) or arbitrary
//   byte 9        storage precision f16, bf16, f32, f64
//   then          edits, 3 bytes each: drop a tensor, add or rename one (known and unknown names,
//                 inputs and outputs), resize or re-rank one (sizes 0..5), put a special value (NaN,
//                 +-Inf, 0, subnormal, 1e300, -1, 2, 0.5) at an element or everywhere
// A valid case is built in the canonical layout and converted to the chosen one, as a kernel of that
// convention would write it; the edits then break it.
//
// Contract (what an input may do to `validate_tensors`, the function behind the CLI and the Python
// module): return a judgement, or throw std::invalid_argument / std::runtime_error with a message.
// Anything else aborts: a crash, a sanitizer report, std::logic_error (std::out_of_range from a
// missing map entry: a check that let an input through unread), std::bad_alloc, or a judgement that
// passes an output holding NaN or Inf (a non-finite value never passes: the reference is finite on
// every input the checks accept), or a judgement that fails the op's own naive baseline on an
// unedited valid case.
#include "recall/properties/ops.hpp"
#include "recall/tools/layout.hpp"
#include "recall/tools/validate.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

using namespace recall;

namespace {

struct Bytes {
  const std::uint8_t* p;
  std::size_t n, i = 0;
  bool more() const { return i < n; }
  unsigned next() { return i < n ? p[i++] : 0u; }
};

const double kSpecial[] = {std::numeric_limits<double>::quiet_NaN(),
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(),
                           0.0,
                           4.9e-324,
                           1e300,
                           -1.0,
                           2.0,
                           0.5,
                           -1e-310};

// Symbolic dimension of a declared shape ("B,H,T,dk").
std::int64_t dim_of(const std::string& s, const std::map<std::string, std::int64_t>& dims) {
  if (auto it = dims.find(s); it != dims.end()) return it->second;
  return 1;  // "1"
}
std::vector<std::int64_t> shape_of(const std::string& decl, const std::map<std::string, std::int64_t>& dims) {
  std::vector<std::int64_t> out;
  std::size_t a = 0;
  while (a <= decl.size()) {
    const std::size_t b = std::min(decl.find(',', a), decl.size());
    out.push_back(dim_of(decl.substr(a, b - a), dims));
    a = b + 1;
  }
  return out;
}

// A valid value of input `name` (deterministic, small): gates <= 0, beta in (0, 1], flags 0, integer
// parameters in range, non-negative features where the op needs them, mask all kept.
double valid_value(const std::string& op, const std::string& name, std::size_t i, std::int64_t M) {
  const double x = std::fmod(0.37 * static_cast<double>(i + 1), 1.0) - 0.5;
  if (name == "log_gate" || name == "log_alpha") return -std::fabs(x);
  if (name == "beta") return 0.25 + std::fabs(x);
  if (name == "scale") return 0.5;
  if (name == "mask") return 1;
  if (name == "window") return 2;
  if (name == "topk") return static_cast<double>(std::min<std::int64_t>(2, M));
  if (name == "shift" || name == "tie_exact" || name == "hyperbolic" || name == "literal_c2") return 0;
  if (op == "normalized_linear_attention") return std::fabs(x) + 0.1;
  return x;
}

void resize(Tensor& t) {
  std::size_t n = 1;
  for (auto d : t.shape) n *= static_cast<std::size_t>(d);
  t.data.resize(n, 0.25);
}

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "fuzz_validate: %s\n", why.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes r{data, size};
  const auto& all = ops();
  const OpSpec& o = all[r.next() % all.size()];
  std::map<std::string, std::int64_t> dims;
  dims["B"] = 1 + r.next() % 2;
  dims["H"] = 1 + r.next() % 2;
  dims["T"] = 1 + r.next() % 5;
  dims["M"] = 1 + r.next() % 5;
  dims["dk"] = dims["d"] = dims["dphi"] = 1 + r.next() % 4;
  dims["dv"] = 1 + r.next() % 3;
  dims["nf"] = 1 + r.next() % 3;
  const unsigned opt = r.next();
  const Precision prec = std::vector<Precision>{Precision::f16, Precision::bf16, Precision::f32, Precision::f64}[r.next() % 4];

  ValidateOptions vo;
  vo.op = o.name;
  vo.layout.layout = (opt & 1) ? "bthd" : "bhtd";
  vo.layout.state_layout = (opt & 2) ? "kv" : "vk";
  // a q_scale is only meaningful (and only accepted) for an op that reads q: the Omega/Atlas/NS5 ops
  // have none, and inputs_to_canonical refuses the option for them (tested in test_validate.cpp)
  if ((opt & 4) && o.input("q") != nullptr) vo.layout.q_scale = 0.5;
  const bool optional_inputs = opt & 8, baseline_outputs = opt & 16;

  TensorMap in, out;
  for (const auto& d : o.inputs) {
    if (d.optional && !optional_inputs) continue;
    Tensor t;
    t.shape = shape_of(d.shape, dims);
    resize(t);
    for (std::size_t i = 0; i < t.data.size(); ++i) t.data[i] = valid_value(o.name, d.name, i, dims["M"]);
    in[d.name] = t;
  }
  try {
    // the inputs as the user's kernel reads them (inputs_from_canonical sets a `scale` input from
    // q_scale or the default), and what validate makes of them again (q_scale applied to q)
    in = inputs_from_canonical(o, std::move(in), vo.layout);
    const TensorMap canonical = inputs_to_canonical(o, in, vo.layout, "inputs");
    if (baseline_outputs) {
      try {
        o.validate(canonical);
        out = o.baseline(canonical, accumulation(prec));
      } catch (const std::invalid_argument&) {
      }
    }
    for (const auto& d : o.outputs)
      if (!out.count(d.name)) {
        Tensor t;
        t.shape = shape_of(d.shape, dims);
        resize(t);
        out[d.name] = t;
      }
    out = outputs_from_canonical(o, std::move(out), vo.layout);
  } catch (const std::exception& e) {
    fail(std::string("the harness's own valid case did not convert: ") + e.what());
  }

  // edits
  static const char* kNames[] = {"q", "k", "v", "beta", "log_gate", "log_alpha", "s0", "z0", "scale", "mask", "window",
                                 "topk", "omega", "sel", "shift", "o", "s_final", "u", "empty", "x"};
  const bool edited = r.more();
  while (r.more()) {
    const unsigned kind = r.next() % 8, a = r.next(), b = r.next();
    TensorMap& m = (a & 128) ? out : in;
    if (m.empty()) continue;
    auto it = m.begin();
    std::advance(it, (a & 127) % m.size());
    Tensor& t = it->second;
    switch (kind) {
      case 0: m.erase(it); break;
      case 1: {
        Tensor c = t;
        m[kNames[b % std::size(kNames)]] = c;
        break;
      }
      case 2: {
        Tensor c = t;
        const std::string from = it->first;
        m.erase(from);
        m[kNames[b % std::size(kNames)]] = c;
        break;
      }
      case 3:
        if (!t.shape.empty()) t.shape[b % t.shape.size()] = (b >> 4) % 6;
        resize(t);
        break;
      case 4:
        if ((b & 1) && !t.shape.empty()) t.shape.pop_back();
        else t.shape.push_back(1 + (b >> 1) % 3);
        resize(t);
        break;
      case 5:
        if (!t.data.empty()) t.data[b % t.data.size()] = kSpecial[(b >> 4) % std::size(kSpecial)];
        break;
      case 6:
        for (auto& x : t.data) x = kSpecial[b % std::size(kSpecial)];
        break;
      default:
        if (!t.data.empty()) t.data[b % t.data.size()] = -t.data[b % t.data.size()];
        break;
    }
  }

  static const bool verbose = std::getenv("RECALL_FUZZ_VERBOSE") != nullptr;  // say what each input did
  try {
    const ValidationResult vr = validate_tensors(o.name, in, out, prec, vo);
    if (verbose) std::fprintf(stderr, "%s: judged, %s (%d failed)\n", o.name.c_str(), vr.pass ? "pass" : "fail", vr.failures);
    if (verbose && !vr.pass) std::fprintf(stderr, "%s", vr.text.c_str());
    if (vr.pass)
      for (const auto& [name, t] : out)
        for (double x : t.data)
          if (!std::isfinite(x)) fail(o.name + ": a judgement passed output '" + name + "' holding " + std::to_string(x));
    // the op's own naive baseline (same template, accumulation precision) is the yardstick the budget
    // is built around: on an unedited case it must pass
    if (baseline_outputs && !edited && !vr.pass) fail(o.name + ": the op's own baseline outputs were judged FAIL:\n" + vr.text);
    if (vr.failures < 0 || vr.failures > static_cast<int>(o.outputs.size())) fail("failure count out of range");
  } catch (const std::invalid_argument& e) {
    if (verbose) std::fprintf(stderr, "%s: refused: %s\n", o.name.c_str(), e.what());
    if (std::string(e.what()).empty()) fail("an std::invalid_argument without a message");
  } catch (const std::logic_error& e) {
    fail(o.name + ": std::logic_error (a check let an input through unread): " + e.what());
  } catch (const std::runtime_error& e) {
    if (verbose) std::fprintf(stderr, "%s: runtime error: %s\n", o.name.c_str(), e.what());
    if (std::string(e.what()).empty()) fail("an std::runtime_error without a message");
  }
  return 0;
}
