// `recall validate` end to end on files: a correct kernel passes (exit 0), a wrong one fails (exit 1)
// with the worst element named, and every kind of bad file is refused (exit 2) with a message that
// names the file and the field, never a crash or a silent NaN.
#include "recall/properties/ops.hpp"
#include "recall/tools/npy.hpp"
#include "recall/tools/validate.hpp"

#include "recall/properties/registry.hpp"

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace recall {
namespace {

namespace fs = std::filesystem;

class ValidateFiles : public ::testing::Test {
 protected:
  fs::path dir;
  std::string in_path, out_path;
  std::map<std::string, npy::Array> inputs, outputs;

  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("recall_validate_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    in_path = (dir / "in.npz").string();
    out_path = (dir / "out.npz").string();
    DumpOptions d;
    d.op = "gated_linear_attention";
    d.out = in_path;
    d.shape = "B=1,H=2,T=21,dk=4,dv=3";
    d.dtype = "f64";
    d.knobs.initial_state = true;
    d.knobs.seed = 11;
    std::ostringstream os, err;
    ASSERT_EQ(cmd_dump(d, os, err), 0) << err.str();
    inputs = npy::read_npz(in_path, false);
    // "the user's kernel": the reference evaluated in double
    TensorMap in;
    for (const auto& [n, a] : inputs) in[n] = Tensor{a.shape, a.data};
    for (const auto& [n, t] : op("gated_linear_attention").baseline(in, Precision::f64))
      outputs[n] = npy::Array{t.shape, t.data, npy::DType::f64};
    npy::write_npz(out_path, outputs);
  }
  void TearDown() override { fs::remove_all(dir); }

  int run(std::string& out, std::string& err, const std::string& format = "text", const std::string& in = "",
          const std::string& outp = "") {
    ValidateOptions o;
    o.op = "gated_linear_attention";
    o.inputs = in.empty() ? in_path : in;
    o.outputs = outp.empty() ? out_path : outp;
    o.format = format;
    std::ostringstream os, es;
    const int rc = cmd_validate(o, os, es);
    out = os.str();
    err = es.str();
    return rc;
  }
  std::string write_bytes(const std::string& name, const std::string& bytes) {
    const std::string p = (dir / name).string();
    std::ofstream f(p, std::ios::binary);
    f << bytes;
    return p;
  }
};

TEST_F(ValidateFiles, CorrectKernelPasses) {
  std::string out, err;
  EXPECT_EQ(run(out, err), 0) << out << err;
  EXPECT_NE(out.find("2 passed, 0 failed"), std::string::npos) << out;
}

TEST_F(ValidateFiles, PerturbedOutputFailsAndNamesTheElement) {
  auto& o = outputs.at("o");
  o.data[17] *= 1 + 1e-6;  // ~4.5e9 u at f64: far over any budget
  npy::write_npz(out_path, outputs);
  std::string out, err;
  EXPECT_EQ(run(out, err), 1) << out << err;
  EXPECT_NE(out.find("FAIL"), std::string::npos) << out;
  EXPECT_NE(out.find(index_str(o.shape, 17)), std::string::npos) << "worst index not reported: " << out;
}

TEST_F(ValidateFiles, NanInOutputsIsAFailureNotACrash) {
  outputs.at("s_final").data[0] = std::numeric_limits<double>::quiet_NaN();
  npy::write_npz(out_path, outputs);
  std::string out, err;
  EXPECT_EQ(run(out, err, "json"), 1) << out << err;
  EXPECT_NE(out.find("\"pass\": false"), std::string::npos) << out;
  EXPECT_NE(out.find("\"nonfinite\": 1"), std::string::npos) << "the NaN must be reported as such: " << out;
  EXPECT_NE(out.find("\"first_nonfinite\": \"(1,1,1,1)\""), std::string::npos) << out;
  std::string text, err2;
  EXPECT_EQ(run(text, err2), 1);
  EXPECT_NE(text.find("s_final: 1 non-finite values"), std::string::npos) << text;
}

TEST_F(ValidateFiles, JunitReportCountsFailures) {
  outputs.at("o").data[3] += 1.0;
  npy::write_npz(out_path, outputs);
  std::string out, err;
  EXPECT_EQ(run(out, err, "junit"), 1);
  EXPECT_NE(out.find("<testsuites"), std::string::npos);
  EXPECT_NE(out.find("tests=\"2\" failures=\"1\""), std::string::npos) << out;
  std::size_t cases = 0, pos = 0;
  while ((pos = out.find("<testcase ", pos)) != std::string::npos) ++cases, ++pos;
  EXPECT_EQ(cases, 2u);
  EXPECT_NE(out.find("</testsuites>"), std::string::npos);
}

TEST_F(ValidateFiles, NanInInputsIsRefusedNamingTheTensor) {
  inputs.at("k").data[5] = std::numeric_limits<double>::infinity();
  npy::write_npz(in_path, inputs);
  std::string out, err;
  EXPECT_EQ(run(out, err), 2);
  EXPECT_NE(err.find(in_path), std::string::npos) << err;
  EXPECT_NE(err.find("'k'"), std::string::npos) << err;
}

TEST_F(ValidateFiles, OutputShapeMismatchIsRefused) {
  auto& o = outputs.at("o");
  o.shape.back() -= 1;
  o.data.resize(o.data.size() / 3 * 2);
  npy::write_npz(out_path, outputs);
  std::string out, err;
  EXPECT_EQ(run(out, err), 2);
  EXPECT_NE(err.find("output 'o' has shape"), std::string::npos) << err;
}

TEST_F(ValidateFiles, MissingAndUnknownTensorsAreRefused) {
  {
    auto in2 = inputs;
    in2.erase("q");
    npy::write_npz(in_path, in2);
    std::string out, err;
    EXPECT_EQ(run(out, err), 2);
    EXPECT_NE(err.find("missing input 'q'"), std::string::npos) << err;
  }
  {
    auto in2 = inputs;
    in2["qq"] = in2.at("q");
    npy::write_npz(in_path, in2);
    std::string out, err;
    EXPECT_EQ(run(out, err), 2);
    EXPECT_NE(err.find("'qq' is not an input"), std::string::npos) << err;
  }
  {
    npy::write_npz(in_path, inputs);
    auto out2 = outputs;
    out2.erase("s_final");
    npy::write_npz(out_path, out2);
    std::string out, err;
    EXPECT_EQ(run(out, err), 2);
    EXPECT_NE(err.find("missing output 's_final'"), std::string::npos) << err;
  }
}

TEST_F(ValidateFiles, MalformedFilesAreRefusedNamingTheFile) {
  std::ifstream f(out_path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const npy::Array& o = outputs.at("o");
  const std::string one = npy::write_npy(o);
  struct Case {
    std::string file, bytes;
  } cases[] = {
      {"truncated.npz", bytes.substr(0, bytes.size() / 2)},
      {"empty.npz", ""},
      {"garbage.npy", "not a numpy file at all"},
      {"truncated.npy", one.substr(0, one.size() - 8)},
      {"trailing.npy", one + "xx"},
  };
  for (const auto& c : cases) {
    const std::string p = write_bytes(c.file, c.bytes);
    std::string out, err;
    EXPECT_EQ(run(out, err, "text", "", p), 2) << c.file;
    EXPECT_NE(err.find(c.file), std::string::npos) << c.file << ": " << err;
  }
  std::string out, err;
  EXPECT_EQ(run(out, err, "text", (dir / "does_not_exist.npz").string()), 2);
  EXPECT_NE(err.find("does_not_exist.npz"), std::string::npos) << err;
}

TEST_F(ValidateFiles, IntegerDtypeIsRefused) {
  // an int32 'o' entry: hand-written header, the reader must name the dtype
  std::string hdr = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }";
  while ((10 + hdr.size() + 1) % 64) hdr += ' ';
  hdr += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(hdr.size() & 0xff);
  bytes += static_cast<char>(hdr.size() >> 8);
  bytes += hdr + std::string(8, '\0');
  const std::string p = write_bytes("o.npy", bytes);
  std::string out, err;
  EXPECT_EQ(run(out, err, "text", "", p), 2);
  EXPECT_NE(err.find("<i4"), std::string::npos) << err;
}

TEST(Validate, UnknownOpAndDtypeAreRefused) {
  ValidateOptions o;
  o.op = "no_such_op";
  o.inputs = o.outputs = "/nonexistent";
  std::ostringstream os, es;
  EXPECT_EQ(cmd_validate(o, os, es), 2);
  EXPECT_NE(es.str().find("no_such_op"), std::string::npos) << es.str();
  DumpOptions d;
  d.op = "linear_attention";
  d.out = "/nonexistent/x.npz";
  d.shape = "B=1,H=1,T=2,dk=2,dv=2";
  d.dtype = "f8";
  std::ostringstream os2, es2;
  EXPECT_EQ(cmd_dump(d, os2, es2), 2);
  EXPECT_NE(es2.str().find("f8"), std::string::npos) << es2.str();
}

TEST(Validate, ShapeParsingNamesTheBadItem) {
  CaseKnobs k;
  EXPECT_THROW(parse_shape("B=1,T=0", k), std::invalid_argument);
  EXPECT_THROW(parse_shape("B=1,X=3", k), std::invalid_argument);
  EXPECT_THROW(parse_shape("B=1,T=3x", k), std::invalid_argument);
  try {
    parse_shape("dk=abc", k);
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("abc"), std::string::npos) << e.what();
  }
  parse_shape("B=2,H=3,T=5,dk=7,dv=11", k);
  EXPECT_EQ(k.B, 2);
  EXPECT_EQ(k.H, 3);
  EXPECT_EQ(k.T, 5);
  EXPECT_EQ(k.dk, 7);
  EXPECT_EQ(k.dv, 11);
}

}  // namespace
}  // namespace recall

namespace recall {
namespace {

// validate's input checks under random damage (issue 15's "fuzz validate's input checks", as a
// property: the checks run after the MP-heavy code is linked, which the clang fuzz build does not
// carry). From a valid input set of a random op, one random defect — a tensor dropped, an unknown
// one added, a dimension changed, a rank changed, a NaN/Inf/huge value planted, a bad layout or
// q scale, an output of the wrong shape — must be refused with std::invalid_argument naming the
// tensor (or the option), never another exception, a crash or a verdict.
TEST(ValidateInputs, RandomDefectsAreRefusedNamingTheTensor) {
  const bool ok = rc::check("validate refuses damaged inputs", [] {
    register_builtin_implementations();
    std::vector<std::string> names;
    for (const OpSpec& o : ops()) names.push_back(o.name);
    const std::string opname = *rc::gen::elementOf(names);
    const OpSpec& o = op(opname);
    CaseKnobs k;
    k.B = 1, k.H = 2, k.T = *rc::gen::inRange(1, 6), k.dk = *rc::gen::inRange(1, 4), k.dv = *rc::gen::inRange(1, 4);
    k.initial_state = *rc::gen::arbitrary<bool>();
    k.seed = *rc::gen::inRange<std::uint64_t>(1, 1000);
    TensorMap in = o.generate(k, Precision::f64);
    // outputs of the right shapes, taken from the op's own double baseline on the undamaged inputs (a state on D
    // features is not d_v x d_k); their values do not matter: the input checks come first
    TensorMap out;
    {
      const TensorMap y = o.baseline(in, Precision::f64);
      for (const auto& d : o.outputs) {
        const std::vector<std::int64_t> shape = y.at(d.name).shape;
        std::size_t n = 1;
        for (auto s : shape) n *= static_cast<std::size_t>(s);
        out[d.name] = Tensor{shape, std::vector<double>(n, 0.0)};
      }
    }
    std::vector<std::string> present;
    for (const auto& [name, t] : in) present.push_back(name);
    const std::string victim = *rc::gen::elementOf(present);
    std::string expect = victim;  // what the message must name (empty: any output)
    ValidateOptions opt;
    const int defect = *rc::gen::inRange(0, 9);
    Tensor& t = in.at(victim);
    switch (defect) {
      case 0: {  // a required tensor dropped (optional ones may be absent: pick the op's first required input)
        for (const auto& d : o.inputs)
          if (!d.optional) {
            expect = d.name;
            break;
          }
        in.erase(expect);
        break;
      }
      case 1:
        in["bogus"] = Tensor{{1}, {1.0}};
        expect = "bogus";
        break;
      case 2: {  // one dimension changed (never to a consistent shape: +1 on a non-batch axis)
        const std::size_t ax = t.shape.size() <= 1 ? 0 : *rc::gen::inRange<std::size_t>(1, t.shape.size());
        t.shape[ax] += 1;
        // A symbol that no other input carries (the query count T of the Hopfield ops, whose k and v have M
        // rows) is consistent among the inputs after the change: the outputs are what no longer fit, and the
        // message must name one of them instead.
        const auto symbols = [](const std::string& shape) {
          std::vector<std::string> v;
          std::stringstream ss(shape);
          for (std::string x; std::getline(ss, x, ',');) v.push_back(x);
          return v;
        };
        const auto sym = symbols(o.input(victim)->shape);
        bool shared = false;
        for (const auto& d : o.inputs)
          if (d.name != victim && in.count(d.name))
            for (const auto& x : symbols(d.shape)) shared = shared || (ax < sym.size() && x == sym[ax]);
        bool in_outputs = false;
        for (const auto& d : o.outputs)
          for (const auto& x : symbols(d.shape)) in_outputs = in_outputs || (ax < sym.size() && x == sym[ax]);
        // a symbol of this input alone (the feature count n_f of omega) is free: the changed input is valid
        RC_PRE(shared || in_outputs || ax >= sym.size() || sym[ax] == "1");
        if (!shared && ax < sym.size() && sym[ax] != "1") expect.clear();
        std::size_t n = 1;
        for (auto s : t.shape) n *= static_cast<std::size_t>(s);
        t.data.resize(n, 0.5);
        break;
      }
      case 3:  // rank changed
        t.shape.push_back(1);
        break;
      case 4:
      case 5: {  // a non-finite value planted
        const double bad = defect == 4 ? std::numeric_limits<double>::quiet_NaN() : -std::numeric_limits<double>::infinity() * -1.0;
        RC_PRE(!t.data.empty());
        // -inf is a legal log-gate (a reset): plant +inf there, NaN anywhere
        t.data[*rc::gen::inRange<std::size_t>(0, t.data.size())] = bad;
        break;
      }
      case 6:
        opt.layout.layout = "tbhd";
        expect = "layout";
        break;
      case 7:
        opt.layout.q_scale = *rc::gen::element(0.0, -1.0, std::numeric_limits<double>::infinity());
        expect = "q scale";
        break;
      case 8: {  // an output of the wrong shape
        auto& y = out.begin()->second;
        y.shape.back() += 1;
        y.data.resize(y.data.size() / static_cast<std::size_t>(y.shape.back() - 1) * static_cast<std::size_t>(y.shape.back()), 0.0);
        expect = out.begin()->first;
        break;
      }
    }
    RC_TAG(defect);
    try {
      validate_tensors(opname, in, out, Precision::f32, opt);
      RC_FAIL("validate accepted damaged inputs (defect " + std::to_string(defect) + " on '" + victim + "' of " + opname + ")");
    } catch (const std::invalid_argument& e) {
      const std::string m = e.what();
      bool named = !expect.empty() && m.find(expect) != std::string::npos;
      if (expect.empty())  // any output
        for (const auto& d : o.outputs) named = named || m.find("'" + d.name + "'") != std::string::npos;
      RC_ASSERT(named);
    }
  });
  EXPECT_TRUE(ok);
}

}  // namespace
}  // namespace recall
