// The NumPy .npy/.npz reader and writer (recall/tools/npy.hpp), checked against files written by
// NumPy itself (properties/tests/data/make_npy_fixtures.py) and their sidecars of expected values.
#include "recall/tools/npy.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace recall::npy {
namespace {

namespace fs = std::filesystem;

fs::path fixture_dir() { return fs::path(RECALL_SOURCE_DIR) / "properties" / "tests" / "data" / "npy"; }
std::string fixture(const std::string& name) { return (fixture_dir() / name).string(); }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Sidecar {
  bool bf16 = false;
  std::map<std::string, Array> arrays;
};

DType dtype_from(const std::string& s) {
  if (s == "f16") return DType::f16;
  if (s == "bf16") return DType::bf16;
  if (s == "f32") return DType::f32;
  if (s == "f64") return DType::f64;
  throw std::runtime_error("sidecar: bad dtype " + s);
}

// Format written by make_npy_fixtures.py: "read bf16=<0|1>", then per array
// "array NAME DTYPE NDIM DIMS..." followed by numel values (Python repr, C order).
Sidecar load_sidecar(const std::string& path) {
  std::ifstream in(path);
  Sidecar sc;
  std::string line;
  if (!std::getline(in, line) || line.rfind("read bf16=", 0) != 0) throw std::runtime_error(path + ": bad sidecar");
  sc.bf16 = line == "read bf16=1";
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string tag, name, dt;
    std::size_t nd = 0;
    ls >> tag >> name >> dt >> nd;
    if (tag != "array") throw std::runtime_error(path + ": expected 'array', got " + line);
    Array a;
    a.dtype = dtype_from(dt);
    std::size_t numel = 1;
    for (std::size_t k = 0; k < nd; ++k) {
      std::int64_t d;
      ls >> d;
      a.shape.push_back(d);
      numel *= static_cast<std::size_t>(d);
    }
    for (std::size_t k = 0; k < numel; ++k) {
      if (!std::getline(in, line)) throw std::runtime_error(path + ": too few values");
      a.data.push_back(std::strtod(line.c_str(), nullptr));  // also parses inf, -inf, nan
    }
    sc.arrays.emplace(name, std::move(a));
  }
  return sc;
}

bool same_value(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);  // distinguishes -0.0
}

void expect_same(const std::map<std::string, Array>& got, const std::map<std::string, Array>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (const auto& [name, w] : want) {
    auto it = got.find(name);
    ASSERT_NE(it, got.end()) << what << ": missing array " << name;
    const Array& g = it->second;
    EXPECT_EQ(g.shape, w.shape) << what << ":" << name;
    EXPECT_EQ(g.dtype, w.dtype) << what << ":" << name << " is " << dtype_name(g.dtype);
    ASSERT_EQ(g.data.size(), w.data.size()) << what << ":" << name;
    for (std::size_t k = 0; k < w.data.size(); ++k)
      EXPECT_TRUE(same_value(g.data[k], w.data[k])) << what << ":" << name << "[" << k << "] = " << g.data[k] << ", NumPy says " << w.data[k];
  }
}

std::vector<std::string> valid_fixtures() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(fixture_dir())) {
    const std::string n = e.path().filename().string();
    if (n.size() > 4 && n.compare(n.size() - 4, 4, ".txt") == 0) names.push_back(n.substr(0, n.size() - 4));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "<no exception>";
}

struct TempDir {
  fs::path dir;
  TempDir() {
    dir = fs::temp_directory_path() / ("recall_npy_test_" + std::to_string(::getpid()));
    fs::create_directories(dir);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string file(const std::string& n) const { return (dir / n).string(); }
};

// ------------------------------------------------------------------ NumPy's own files

TEST(NpyFixtures, EveryValidFixtureMatchesNumPysValues) {
  const auto names = valid_fixtures();
  ASSERT_GE(names.size(), 26u) << "fixtures missing: run /usr/bin/python3 properties/tests/data/make_npy_fixtures.py";
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    const Sidecar sc = load_sidecar(fixture(name + ".txt"));
    const std::string path = fixture(name);
    expect_same(read_any(path, sc.bf16), sc.arrays, name);
    if (name.ends_with(".npz")) {
      expect_same(read_npz(path, sc.bf16), sc.arrays, name);
    } else {
      const Array a = read_npy_file(path, sc.bf16);
      expect_same({{fs::path(name).stem().string(), a}}, sc.arrays, name);
    }
  }
}

TEST(NpyFixtures, CoversEveryLayout) {
  // The fixture set spans dtype x byte order x memory order, plus the special shapes and versions.
  for (const char* n : {"c_f16_le_2d.npy", "c_f16_be_3d.npy", "f_f16_le_3d.npy", "f_f16_be_2d.npy", "c_f32_le_2d.npy", "c_f32_be_3d.npy",
                        "f_f32_le_2d.npy", "f_f32_be_3d.npy", "c_f64_le_3d.npy", "f_f64_le_3d.npy", "c_f64_be_2d.npy", "f_f64_be_2d.npy",
                        "scalar_f64.npy", "empty_f32.npy", "bf16_le_2d.npy", "bf16_be_2d.npy", "v2_f32.npy", "v3_f64.npy", "savez.npz",
                        "savez_compressed.npz", "bf16.npz", "hdr_order_nospace.npy", "hdr_spaces_fortran.npy", "hdr_py2_long.npy"})
    EXPECT_TRUE(fs::exists(fixture(n))) << n;
  const Array s = read_npy_file(fixture("scalar_f64.npy"), false);
  EXPECT_TRUE(s.shape.empty());
  EXPECT_EQ(s.data.size(), 1u);
  const Array e = read_npy_file(fixture("empty_f32.npy"), false);
  EXPECT_EQ(e.shape, (std::vector<std::int64_t>{0, 3}));
  EXPECT_TRUE(e.data.empty());
  // Fortran order is converted: hdr_spaces_fortran holds 0..5 - 2.5 in column-major order for shape (3, 2).
  const Array f = read_npy_file(fixture("hdr_spaces_fortran.npy"), false);
  EXPECT_EQ(f.data, (std::vector<double>{-2.5, 0.5, -1.5, 1.5, -0.5, 2.5}));
}

TEST(NpyFixtures, PlainNpyIsNamedByItsStem) {
  auto m = read_any(fixture("c_f32_le_1d.npy"), false);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m.begin()->first, "c_f32_le_1d");
  EXPECT_EQ(m.begin()->second.shape, (std::vector<std::int64_t>{5}));
}

TEST(NpyFixtures, Uint16IsBf16OnlyWhenAsked) {
  const std::string p = fixture("bad_uint16.npy");
  const Array a = read_npy_file(p, true);
  EXPECT_EQ(a.dtype, DType::bf16);
  EXPECT_EQ(a.data, (std::vector<double>{0.0, bf16_to_double(1), bf16_to_double(2), bf16_to_double(3)}));
  const std::string m = message_of([&] { read_npy_file(p, false); });
  EXPECT_NE(m.find("bad_uint16.npy"), std::string::npos) << m;
  EXPECT_NE(m.find("'<u2' is not a floating dtype"), std::string::npos) << m;
  EXPECT_NE(m.find("bf16"), std::string::npos) << m;
  // the same inside an archive: the error names archive and entry
  const std::string mz = message_of([&] { read_npz(fixture("bf16.npz"), false); });
  EXPECT_NE(mz.find("bf16.npz:x.npy"), std::string::npos) << mz;
  EXPECT_NE(mz.find("'<u2' is not a floating dtype"), std::string::npos) << mz;
}

struct BadCase {
  const char* file;
  std::vector<const char*> expect;  // substrings of the message
};

TEST(NpyFixtures, EveryBadFixtureIsRejectedWithAClearMessage) {
  const std::vector<BadCase> cases = {
      {"bad_truncated_data.npy", {"truncated", "data", "needs 48 bytes", "has 45"}},
      {"bad_truncated_header.npy", {"truncated", "header", "declared length 118", "only 30 bytes"}},
      {"bad_magic.npy", {"bad magic", "\\x93NUMPZ"}},
      {"bad_version.npy", {"unsupported .npy format version 9.0"}},
      {"bad_garbage_header.npy", {"header: malformed dict"}},
      {"bad_trailing.npy", {"8 trailing bytes"}},
      {"bad_empty.npy", {"empty file"}},
      {"bad_missing_shape.npy", {"header: missing key 'shape'"}},
      {"bad_negative_shape.npy", {"field 'shape'", "negative dimension -3"}},
      {"bad_overflow_shape.npy", {"field 'shape'", "overflow"}},
      {"bad_shape_not_tuple.npy", {"field 'shape'", "not a tuple"}},
      {"bad_fortran_value.npy", {"'fortran_order' must be True or False"}},
      {"bad_extra_key.npy", {"unexpected key 'x'"}},
      {"bad_structured.npy", {"field 'descr'", "structured"}},
      {"bad_int32.npy", {"field 'descr'", "'<i4' is not a floating dtype"}},
      {"bad_object.npy", {"field 'descr'", "'|O' is an object array"}},
      {"bad_uint16.npy", {"'<u2' is not a floating dtype"}},
      {"bad_corrupt.npz", {"corrupt .npz"}},
      {"bad_entry_name.npz", {"bad_entry_name.npz:notes.txt", "is not a .npy file"}},
      {"bad_entry_data.npz", {"bad_entry_data.npz:q.npy", "truncated", "needs 48 bytes"}},
      {"bad_crc.npz", {"bad_crc.npz:w.npy", "CRC"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const std::string m = message_of([&] { read_any(fixture(c.file), false); });
    EXPECT_NE(m.find(c.file), std::string::npos) << "message does not name the file: " << m;
    for (const char* s : c.expect) EXPECT_NE(m.find(s), std::string::npos) << "expected \"" << s << "\" in: " << m;
    // The specific readers reject them as well.
    const std::string path = fixture(c.file);
    if (std::string(c.file).ends_with(".npz")) EXPECT_THROW(read_npz(path, true), std::runtime_error);
    else EXPECT_THROW(read_npy_file(path, false), std::runtime_error);
  }
}

TEST(NpyFixtures, WrongContainerAndMissingFile) {
  std::string m = message_of([&] { read_npz(fixture("c_f32_le_2d.npy"), false); });
  EXPECT_NE(m.find("c_f32_le_2d.npy"), std::string::npos) << m;
  EXPECT_NE(m.find("not an .npz file"), std::string::npos) << m;
  m = message_of([&] { read_any(fixture("c_f32_le_2d.npy.txt"), false); });
  EXPECT_NE(m.find("neither a .npy nor an .npz file"), std::string::npos) << m;
  m = message_of([&] { read_any(fixture("no_such_file.npz"), false); });
  EXPECT_NE(m.find("no_such_file.npz"), std::string::npos) << m;
  EXPECT_NE(m.find("cannot open"), std::string::npos) << m;
}

TEST(NpyFixtures, MissingEntryNamesArchiveAndEntries) {
  const std::string p = fixture("savez.npz");
  const auto m = read_npz(p, false);
  EXPECT_EQ(entry(m, "q", p).shape, (std::vector<std::int64_t>{2, 3, 4}));
  const std::string msg = message_of([&] { entry(m, "v", p); });
  EXPECT_NE(msg.find("savez.npz"), std::string::npos) << msg;
  EXPECT_NE(msg.find("missing entry 'v'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("g, k, q, s"), std::string::npos) << msg;
}

// ------------------------------------------------------------------ robustness (run under ASan)

TEST(NpyRobustness, EveryTruncationAndByteFlipEitherParsesOrThrows) {
  for (const auto& name : valid_fixtures()) {
    if (!name.ends_with(".npy")) continue;
    SCOPED_TRACE(name);
    const std::string bytes = slurp(fixture(name));
    for (std::size_t len = 0; len < bytes.size(); ++len)
      EXPECT_THROW(parse_npy(bytes.substr(0, len), name, true), std::runtime_error) << "prefix of " << len << " bytes";
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      for (unsigned char x : {0x01, 0x20, 0x80, 0xff}) {
        std::string b = bytes;
        b[i] = static_cast<char>(static_cast<unsigned char>(b[i]) ^ x);
        try {
          const Array a = parse_npy(b, name, true);
          std::size_t n = 1;
          for (auto d : a.shape) n *= static_cast<std::size_t>(d);
          EXPECT_EQ(a.data.size(), n);
        } catch (const std::runtime_error& e) {
          EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
        }
      }
    }
  }
}

TEST(NpyRobustness, DamagedArchivesThrow) {
  TempDir tmp;
  for (const char* name : {"savez.npz", "savez_compressed.npz"}) {
    SCOPED_TRACE(name);
    const std::string bytes = slurp(fixture(name));
    const std::string p = tmp.file("damaged.npz");
    for (std::size_t len = 0; len < bytes.size(); len += 7) {
      std::ofstream(p, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(len));
      EXPECT_THROW(read_any(p, false), std::runtime_error) << "prefix of " << len << " bytes";
    }
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
      std::string b = bytes;
      b[i] = static_cast<char>(static_cast<unsigned char>(b[i]) ^ 0x5a);
      std::ofstream(p, std::ios::binary | std::ios::trunc).write(b.data(), static_cast<std::streamsize>(b.size()));
      try {
        read_any(p, false);  // a flip in an unchecked field (e.g. a timestamp) may leave a valid archive
      } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("damaged.npz"), std::string::npos) << e.what();
      }
    }
  }
}

Array one(std::string_view header, std::string data = std::string(8, '\0')) {
  std::string h(header);
  std::string b("\x93NUMPY\x01\x00", 8);
  b += static_cast<char>(h.size() & 0xff);
  b += static_cast<char>(h.size() >> 8);
  return parse_npy(b + h + data, "mem.npy", false);
}

TEST(NpyHeader, AcceptsAnyKeyOrderSpacingAndTrailingCommas) {
  EXPECT_EQ(one("{'descr':'<f8','fortran_order':False,'shape':(1,)}").shape, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(one("{'shape': (), 'descr': '<f8', 'fortran_order': False}\n").shape, (std::vector<std::int64_t>{}));
  EXPECT_EQ(one("{ 'fortran_order' : True , 'shape' : ( 1 , 1 , ) , 'descr' : \"<f8\" , }   \n").shape,
            (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(one("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 1), }", std::string(8, '\0')).data.size(), 2u);
}

TEST(NpyHeader, RejectsMalformedDicts) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"", "the header dict must start with '{'"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (1,)", "expected ',' or '}'"},
      {"{'descr' '<f8', 'fortran_order': False, 'shape': (1,)}", "expected ':'"},
      {"{'descr': '<f8, 'fortran_order': False, 'shape': (1,)}", "malformed dict"},
      {"{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,)}", "duplicate key 'descr'"},
      {"{'descr': '<f8', 'fortran_order': Truee, 'shape': (1,)}", "'fortran_order' must be True or False"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': [1]}", "field 'shape' must be a tuple"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (1,,)}", "expected an integer dimension"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (1.5,)}", "expected ',' or ')'"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,)}", "overflows int64"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (1,)} x", "unexpected text after the closing '}'"},
      {"{'descr': 3, 'fortran_order': False, 'shape': (1,)}", "expected a quoted string"},
      {"{'fortran_order': False, 'shape': (1,)}", "missing key 'descr'"},
      {"{'descr': '<f8', 'shape': (1,)}", "missing key 'fortran_order'"},
      {"{'descr': '<f16', 'fortran_order': False, 'shape': (1,)}", "'<f16' is not supported"},
      {"{'descr': '|f2', 'fortran_order': False, 'shape': (1,)}", "'|f2' is not supported"},
      {"{'descr': '<c8', 'fortran_order': False, 'shape': (1,)}", "'<c8' is not a floating dtype"},
      // found by ci/fuzz: empty (a zero dimension) but the other dimensions' product overflows;
      // NumPy refuses it ("array is too big"), and we read it but could not write it back
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (1, 70000090, 700070000090, 70, 900, 9, 7, 0, 7, 232)}",
       "has too many elements (overflow)"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4611686018427387904)}", "has too many elements (overflow)"},
  };
  for (const auto& [h, want] : cases) {
    const std::string m = message_of([&] { one(h); });
    EXPECT_NE(m.find("mem.npy"), std::string::npos) << m;
    EXPECT_NE(m.find(want), std::string::npos) << "header " << h << "\n  expected \"" << want << "\"\n  got: " << m;
  }
}

// ------------------------------------------------------------------ writing

std::vector<double> sample_values() {
  return {0.0, -0.0, 1.0, -2.5, 0.1, 1.0 / 3.0, 65504.0, 1e-7, 6e-8, -3e38, 1e300, 5e-324,
          std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
}

double round_to(double x, DType d) {
  switch (d) {
    case DType::f16: return half_to_double(double_to_half(x));
    case DType::bf16: return bf16_to_double(double_to_bf16(x));
    case DType::f32: return static_cast<double>(static_cast<float>(x));
    case DType::f64: return x;
  }
  return x;
}

TEST(NpyWrite, RoundTripEveryDtypeAndShape) {
  const auto vals = sample_values();
  const std::vector<std::vector<std::int64_t>> shapes = {{}, {14}, {2, 7}, {7, 1, 2}, {0, 3}};
  for (DType d : {DType::f16, DType::bf16, DType::f32, DType::f64}) {
    for (const auto& shape : shapes) {
      std::size_t n = 1;
      for (auto s : shape) n *= static_cast<std::size_t>(s);
      Array a{shape, std::vector<double>(vals.begin(), vals.begin() + static_cast<std::ptrdiff_t>(std::min(n, vals.size()))), d};
      if (n == 1) a.data = {-2.5};
      const std::string bytes = write_npy(a);
      EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
      const std::size_t hlen = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
      EXPECT_EQ((10 + hlen) % 64, 0u) << "data must start 64-byte aligned";
      EXPECT_EQ(bytes[10 + hlen - 1], '\n');
      EXPECT_EQ(bytes.size(), 10 + hlen + n * itemsize(d));
      const Array b = parse_npy(bytes, "roundtrip", true);
      EXPECT_EQ(b.shape, shape);
      EXPECT_EQ(b.dtype, d);
      ASSERT_EQ(b.data.size(), a.data.size());
      for (std::size_t k = 0; k < n; ++k) {
        EXPECT_TRUE(same_value(b.data[k], round_to(a.data[k], d))) << dtype_name(d) << " " << a.data[k] << " -> " << b.data[k];
        // values already representable round-trip exactly
        EXPECT_TRUE(same_value(parse_npy(write_npy(b), "again", true).data[k], b.data[k]));
      }
    }
  }
}

TEST(NpyWrite, HeaderIsWhatNumPyWrites) {
  const std::string b = write_npy(Array{{2, 3}, std::vector<double>(6, 1.0), DType::f32});
  EXPECT_EQ(b.substr(10, 59), "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  EXPECT_NE(write_npy(Array{{5}, std::vector<double>(5, 1.0), DType::bf16}).find("'descr': '<u2'"), std::string::npos);
  EXPECT_NE(write_npy(Array{{5}, std::vector<double>(5, 1.0), DType::f16}).find("'shape': (5,)"), std::string::npos);
  EXPECT_NE(write_npy(Array{{}, {1.0}, DType::f64}).find("'descr': '<f8', 'fortran_order': False, 'shape': ()"), std::string::npos);
  // the bytes of NumPy-written (C-order, little-endian) files are reproduced exactly
  const Array ref = read_npy_file(fixture("c_f64_le_3d.npy"), false);
  EXPECT_EQ(write_npy(ref), slurp(fixture("c_f64_le_3d.npy")));
  const Array ref2 = read_npy_file(fixture("c_f16_le_2d.npy"), false);
  EXPECT_EQ(write_npy(ref2), slurp(fixture("c_f16_le_2d.npy")));
}

TEST(NpyWrite, RejectsInconsistentArrays) {
  EXPECT_THROW(write_npy(Array{{2, 3}, std::vector<double>(5, 0.0), DType::f32}), std::invalid_argument);
  EXPECT_THROW(write_npy(Array{{-1}, {}, DType::f32}), std::invalid_argument);
  TempDir tmp;
  const std::string m = message_of([&] { write_npz(tmp.file("x.npz"), {{"q", Array{{2}, {1.0}, DType::f32}}}); });
  EXPECT_NE(m.find("x.npz:q.npy"), std::string::npos) << m;
}

TEST(NpyWrite, NpzRoundTrip) {
  TempDir tmp;
  std::map<std::string, Array> m;
  m["q"] = Array{{2, 3}, {1, 2, 3, 4, 5, 0.1}, DType::f32};
  m["k"] = Array{{3}, {0.1, -0.0, 65504.0}, DType::f16};
  m["g"] = Array{{2, 2}, {1.0, 0.1, -3.0, 1e30}, DType::bf16};
  m["o"] = Array{{}, {1.0 / 3.0}, DType::f64};
  m["z"] = Array{{0, 4}, {}, DType::f64};
  const std::string p = tmp.file("arrays.npz");
  write_npz(p, m);
  for (const auto& got : {read_npz(p, true), read_any(p, true)}) {
    ASSERT_EQ(got.size(), m.size());
    for (const auto& [name, a] : m) {
      const Array& b = got.at(name);
      EXPECT_EQ(b.shape, a.shape) << name;
      EXPECT_EQ(b.dtype, a.dtype) << name;
      ASSERT_EQ(b.data.size(), a.data.size()) << name;
      for (std::size_t k = 0; k < a.data.size(); ++k) EXPECT_TRUE(same_value(b.data[k], round_to(a.data[k], a.dtype))) << name << k;
    }
  }
  // Overwrite an existing archive; an empty map gives an empty (but valid) archive.
  write_npz(p, {{"only", Array{{1}, {2.0}, DType::f64}}});
  EXPECT_EQ(read_npz(p, false).size(), 1u);
  write_npz(p, {});
  EXPECT_TRUE(read_npz(p, false).empty());
  EXPECT_TRUE(read_any(p, false).empty());
  // write_npy_file / read_any
  write_npy_file(tmp.file("w.npy"), m["q"]);
  EXPECT_EQ(read_any(tmp.file("w.npy"), false).at("w").shape, (std::vector<std::int64_t>{2, 3}));
  // unwritable path
  const std::string bad = message_of([&] { write_npz(tmp.file("no/such/dir/x.npz"), m); });
  EXPECT_NE(bad.find("no/such/dir/x.npz"), std::string::npos) << bad;
}

// ------------------------------------------------------------------ scalar conversions

double mid(double a, double b) { return a + (b - a) / 2; }  // exact for neighbouring half/bf16 values

TEST(NpyHalf, EdgeCases) {
  EXPECT_EQ(double_to_half(65504.0), 0x7bff);
  EXPECT_EQ(double_to_half(65519.99), 0x7bff);
  EXPECT_EQ(double_to_half(65520.0), 0x7c00);  // tie between max and 2^16: even -> overflow to inf
  EXPECT_EQ(double_to_half(1e10), 0x7c00);
  EXPECT_EQ(double_to_half(-1e10), 0xfc00);
  EXPECT_EQ(double_to_half(std::numeric_limits<double>::infinity()), 0x7c00);
  EXPECT_EQ(double_to_half(-std::numeric_limits<double>::infinity()), 0xfc00);
  const std::uint16_t qn = double_to_half(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(qn & 0x7c00, 0x7c00);
  EXPECT_NE(qn & 0x03ff, 0);
  EXPECT_TRUE(std::isnan(half_to_double(qn)));
  EXPECT_TRUE(std::isnan(half_to_double(0x7c01)));
  EXPECT_TRUE(std::isnan(half_to_double(0xfe00)));
  EXPECT_EQ(double_to_half(-0.0), 0x8000);
  EXPECT_EQ(double_to_half(0.0), 0x0000);
  EXPECT_EQ(double_to_half(0x1p-24), 0x0001);           // smallest subnormal
  EXPECT_EQ(double_to_half(0x1p-25), 0x0000);           // tie with 0: even
  EXPECT_EQ(double_to_half(-0x1p-25), 0x8000);          // ... keeps the sign
  EXPECT_EQ(double_to_half(0x1.000001p-25), 0x0001);    // just above the tie
  EXPECT_EQ(double_to_half(0x3p-25), 0x0002);           // 1.5 ulp: tie, to even (2)
  EXPECT_EQ(double_to_half(1023 * 0x1p-24), 0x03ff);    // largest subnormal
  EXPECT_EQ(double_to_half(1023.5 * 0x1p-24), 0x0400);  // tie -> even -> smallest normal
  EXPECT_EQ(double_to_half(0x1p-14), 0x0400);
  EXPECT_EQ(double_to_half(5e-324), 0x0000);            // double subnormal underflows
  EXPECT_EQ(double_to_half(1.0), 0x3c00);
  EXPECT_EQ(double_to_half(1.0 + 0x1p-11), 0x3c00);     // tie, to even
  EXPECT_EQ(double_to_half(1.0 + 0x3p-11), 0x3c02);     // tie, to even (up)
  EXPECT_EQ(double_to_half(1.0 + 0x1p-11 + 0x1p-40), 0x3c01);
  EXPECT_EQ(double_to_half(0.1), 0x2e66);
  EXPECT_EQ(double_to_half(-2.0), 0xc000);
  EXPECT_EQ(half_to_double(0x7bff), 65504.0);
  EXPECT_EQ(half_to_double(0x0001), 0x1p-24);
  EXPECT_EQ(half_to_double(0x03ff), 1023 * 0x1p-24);
  EXPECT_EQ(half_to_double(0x3555), 0x1.554p-2);
  EXPECT_TRUE(std::signbit(half_to_double(0x8000)));
}

TEST(NpyHalf, ExhaustiveRoundTripAndMidpoints) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const double v = half_to_double(static_cast<std::uint16_t>(h));
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(half_to_double(double_to_half(v))));
      continue;
    }
    ASSERT_EQ(double_to_half(v), h) << std::hex << h;
    if ((h & 0x7fff) >= 0x7bff) continue;  // no finite successor
    const double w = half_to_double(static_cast<std::uint16_t>(h + 1));
    const double m = mid(v, w);
    const std::uint16_t even = (h & 1) ? static_cast<std::uint16_t>(h + 1) : static_cast<std::uint16_t>(h);
    ASSERT_EQ(double_to_half(m), even) << std::hex << h;
    ASSERT_EQ(double_to_half(std::nextafter(m, v)), h) << std::hex << h;
    ASSERT_EQ(double_to_half(std::nextafter(m, w)), h + 1) << std::hex << h;
  }
}

TEST(NpyHalf, RoundsLikeNumPy) {
  // Lines "<float.hex()> <bits of np.float16(x)>" written by make_npy_fixtures.py.
  std::ifstream in(fixture("f16_rounding.tsv"));
  ASSERT_TRUE(in) << "missing f16_rounding.tsv";
  std::string hex;
  unsigned bits = 0;
  int n = 0;
  while (in >> hex >> bits) {
    ++n;
    EXPECT_EQ(double_to_half(std::strtod(hex.c_str(), nullptr)), bits) << hex;
  }
  EXPECT_GE(n, 300);
}

TEST(NpyBf16, EdgeCases) {
  EXPECT_EQ(double_to_bf16(1.0), 0x3f80);
  EXPECT_EQ(bf16_to_double(0x3f80), 1.0);
  EXPECT_EQ(double_to_bf16(1.0 + 0x1p-8), 0x3f80);   // tie, to even
  EXPECT_EQ(double_to_bf16(1.0 + 0x3p-8), 0x3f82);   // tie, to even (up)
  // Correct rounding from double: 1 + 2^-8 + 2^-40 rounds up; rounding through float first would
  // make it a tie and round down (double rounding).
  EXPECT_EQ(double_to_bf16(1.0 + 0x1p-8 + 0x1p-40), 0x3f81);
  EXPECT_EQ(double_to_bf16(0x1.fep127), 0x7f7f);     // largest finite bf16
  EXPECT_EQ(bf16_to_double(0x7f7f), 0x1.fep127);
  EXPECT_EQ(double_to_bf16(0x1.ffp127), 0x7f80);     // tie above max: even -> inf
  EXPECT_EQ(double_to_bf16(static_cast<double>(std::numeric_limits<float>::max())), 0x7f80);
  EXPECT_EQ(double_to_bf16(1e39), 0x7f80);
  EXPECT_EQ(double_to_bf16(-1e39), 0xff80);
  EXPECT_EQ(double_to_bf16(std::numeric_limits<double>::infinity()), 0x7f80);
  EXPECT_EQ(double_to_bf16(std::numeric_limits<double>::quiet_NaN()), 0x7fc0);
  EXPECT_EQ(double_to_bf16(-std::numeric_limits<double>::quiet_NaN()), 0xffc0);
  EXPECT_TRUE(std::isnan(bf16_to_double(0x7f81)));
  EXPECT_EQ(double_to_bf16(0x1p-133), 0x0001);       // smallest subnormal
  EXPECT_EQ(double_to_bf16(0x1p-134), 0x0000);       // tie with 0: even
  EXPECT_EQ(double_to_bf16(0x3p-134), 0x0002);       // tie, to even
  EXPECT_EQ(double_to_bf16(0x1p-126), 0x0080);       // smallest normal
  EXPECT_EQ(double_to_bf16(-0.0), 0x8000);
  EXPECT_EQ(double_to_bf16(0.1), 0x3dcd);
  EXPECT_EQ(bf16_to_double(0x0001), 0x1p-133);
}

TEST(NpyBf16, ExhaustiveRoundTripAndAgreesWithFloatRounding) {
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const double v = bf16_to_double(static_cast<std::uint16_t>(b));
    if (std::isnan(v)) continue;
    ASSERT_EQ(double_to_bf16(v), b) << std::hex << b;
    if ((b & 0x7fff) >= 0x7f7f) continue;
    const double w = bf16_to_double(static_cast<std::uint16_t>(b + 1));
    const double m = mid(v, w);
    ASSERT_EQ(double_to_bf16(m), (b & 1) ? b + 1 : b) << std::hex << b;
    ASSERT_EQ(double_to_bf16(std::nextafter(m, v)), b) << std::hex << b;
    ASSERT_EQ(double_to_bf16(std::nextafter(m, w)), b + 1) << std::hex << b;
  }
  // For float inputs the result is the usual float -> bf16 RNE of the bit pattern.
  std::uint32_t s = 12345;
  for (int i = 0; i < 200000; ++i) {
    s = s * 1664525u + 1013904223u;
    const float f = std::bit_cast<float>(s);
    if (!std::isfinite(f)) continue;
    const std::uint32_t rne = (s + 0x7fffu + ((s >> 16) & 1u)) >> 16;
    if ((rne & 0x7f80u) == 0x7f80u) {  // overflowed to inf
      EXPECT_EQ(double_to_bf16(f) & 0x7fff, 0x7f80);
      continue;
    }
    ASSERT_EQ(double_to_bf16(static_cast<double>(f)), rne) << f;
  }
}

TEST(NpyDType, NamesAndSizes) {
  EXPECT_STREQ(dtype_name(DType::f16), "f16");
  EXPECT_STREQ(dtype_name(DType::bf16), "bf16");
  EXPECT_STREQ(dtype_name(DType::f32), "f32");
  EXPECT_STREQ(dtype_name(DType::f64), "f64");
  EXPECT_EQ(itemsize(DType::bf16), 2u);
  EXPECT_EQ(itemsize(DType::f64), 8u);
}

}  // namespace
}  // namespace recall::npy
