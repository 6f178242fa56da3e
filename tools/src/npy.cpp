// NumPy .npy / .npz reader and writer (conventions in recall/tools/npy.hpp).
#include "recall/tools/npy.hpp"

#include <zip.h>

#include <bit>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace recall::npy {

namespace {

const char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;

[[noreturn]] void fail(const std::string& what, const std::string& msg) { throw std::runtime_error(what + ": " + msg); }

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

// Printable rendering of untrusted bytes for error messages.
std::string printable(const std::string& s, std::size_t max = 40) {
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < max; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (s.size() > max) out += "...";
  return out;
}

// ---------------------------------------------------------------- scalar formats

// Encode |x| (with sign) into a binary format with p fraction bits and ebits exponent bits, RNE.
std::uint32_t encode_binary(double x, int p, int ebits) {
  const std::uint32_t sign = std::signbit(x) ? (1u << (p + ebits)) : 0u;
  const std::uint32_t exp_all = ((1u << ebits) - 1u) << p;
  if (std::isnan(x)) return sign | exp_all | (1u << (p - 1));
  if (std::isinf(x)) return sign | exp_all;
  const double a = std::fabs(x);
  if (a == 0.0) return sign;
  const int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias, emax = bias;
  int E = 0;
  std::frexp(a, &E);  // a = f * 2^E, f in [0.5, 1)
  int e = E - 1;      // a in [2^e, 2^(e+1))
  if (e < emin) e = emin;
  const double r = std::ldexp(a, p - e);  // exact; < 2^(p+1)
  double m = std::floor(r);
  const double frac = r - m;  // exact
  if (frac > 0.5 || (frac == 0.5 && std::fmod(m, 2.0) != 0.0)) m += 1.0;
  auto mi = static_cast<std::uint32_t>(m);
  if (mi == (2u << p)) {  // carried into the next binade
    mi = 1u << p;
    ++e;
  }
  if (e > emax) return sign | exp_all;  // overflow to infinity
  if (mi < (1u << p)) return sign | mi;  // subnormal (or zero after rounding)
  return sign | (static_cast<std::uint32_t>(e + bias) << p) | (mi - (1u << p));
}

std::uint16_t load_u16(const unsigned char* p, bool big) {
  return big ? static_cast<std::uint16_t>((p[0] << 8) | p[1]) : static_cast<std::uint16_t>((p[1] << 8) | p[0]);
}
std::uint32_t load_u32(const unsigned char* p, bool big) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(p[big ? 3 - i : i]) << (8 * i);
  return v;
}
std::uint64_t load_u64(const unsigned char* p, bool big) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(p[big ? 7 - i : i]) << (8 * i);
  return v;
}
void store_le(std::string& out, std::uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

// ---------------------------------------------------------------- header dict

struct Header {
  std::string descr;
  bool fortran = false;
  std::vector<std::int64_t> shape;
};

// A strict parser for the Python dict literal NumPy writes: {'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), } -- keys in any order, optional whitespace, optional trailing commas.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& what) : s_(text), what_(what) {}

  Header parse() {
    Header h;
    bool have_descr = false, have_fortran = false, have_shape = false;
    skip_ws();
    expect('{', "the header dict must start with '{'");
    for (;;) {
      skip_ws();
      if (peek() == '}') { ++i_; break; }
      const std::string key = parse_string("a key");
      skip_ws();
      expect(':', "expected ':' after key '" + key + "'");
      skip_ws();
      if (key == "descr") {
        if (have_descr) bad("duplicate key 'descr'");
        have_descr = true;
        if (peek() == '[') fail(what_, "header: field 'descr': structured (record) dtypes are not supported; save a plain floating array");
        h.descr = parse_string("the value of 'descr'");
      } else if (key == "fortran_order") {
        if (have_fortran) bad("duplicate key 'fortran_order'");
        have_fortran = true;
        h.fortran = parse_bool();
      } else if (key == "shape") {
        if (have_shape) bad("duplicate key 'shape'");
        have_shape = true;
        h.shape = parse_shape();
      } else {
        bad("unexpected key '" + printable(key) + "' (expected 'descr', 'fortran_order', 'shape')");
      }
      skip_ws();
      if (peek() == ',') { ++i_; continue; }
      if (peek() == '}') { ++i_; break; }
      bad("expected ',' or '}' after the value of '" + key + "'");
    }
    skip_ws();
    if (i_ != s_.size()) bad("unexpected text after the closing '}'");
    if (!have_descr) fail(what_, "header: missing key 'descr'");
    if (!have_fortran) fail(what_, "header: missing key 'fortran_order'");
    if (!have_shape) fail(what_, "header: missing key 'shape'");
    return h;
  }

 private:
  const std::string& s_;
  const std::string& what_;
  std::size_t i_ = 0;

  [[noreturn]] void bad(const std::string& msg) const {
    std::string shown = s_;
    while (!shown.empty() && (shown.back() == ' ' || shown.back() == '\n')) shown.pop_back();
    fail(what_, "header: malformed dict: " + msg + " at offset " + std::to_string(i_) + " in \"" + printable(shown, 80) + "\"");
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  void expect(char c, const std::string& msg) {
    if (peek() != c || i_ >= s_.size()) bad(msg);
    ++i_;
  }
  std::string parse_string(const std::string& expected) {
    const char q = peek();
    if (i_ >= s_.size() || (q != '\'' && q != '"')) bad("expected a quoted string for " + expected);
    ++i_;
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) bad("unterminated string");
      const char c = s_[i_++];
      if (c == q) break;
      if (c == '\\') {
        if (i_ >= s_.size()) bad("unterminated string");
        out += s_[i_++];
        continue;
      }
      out += c;
    }
    return out;
  }
  bool word(const char* w) {
    const std::size_t n = std::strlen(w);
    if (s_.compare(i_, n, w) != 0) return false;
    const char after = i_ + n < s_.size() ? s_[i_ + n] : '\0';
    if (std::isalnum(static_cast<unsigned char>(after)) || after == '_') return false;
    i_ += n;
    return true;
  }
  bool parse_bool() {
    if (word("True")) return true;
    if (word("False")) return false;
    fail(what_, "header: field 'fortran_order' must be True or False, got \"" + printable(s_.substr(i_), 20) + "\"");
  }
  std::int64_t parse_dim() {
    const std::size_t start = i_;
    bool neg = false;
    if (peek() == '-') { neg = true; ++i_; }
    if (!std::isdigit(static_cast<unsigned char>(peek())))
      fail(what_, "header: field 'shape': expected an integer dimension, got \"" + printable(s_.substr(start), 20) + "\"");
    std::uint64_t v = 0;
    bool overflow = false;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      const unsigned d = static_cast<unsigned>(s_[i_++] - '0');
      if (v > (static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) - d) / 10) overflow = true;
      else v = v * 10 + d;
    }
    if (peek() == 'L' || peek() == 'l') ++i_;  // Python 2 long literal (old NumPy files)
    const std::string lit = s_.substr(start, i_ - start);
    if (neg) fail(what_, "header: field 'shape': negative dimension " + lit);
    if (overflow) fail(what_, "header: field 'shape': dimension " + lit + " overflows int64");
    return static_cast<std::int64_t>(v);
  }
  std::vector<std::int64_t> parse_shape() {
    const std::size_t start = i_;
    if (peek() != '(') fail(what_, "header: field 'shape' must be a tuple such as (2, 3), (3,) or (), got \"" + printable(s_.substr(i_), 20) + "\"");
    ++i_;
    std::vector<std::int64_t> shape;
    bool comma_seen = false;
    for (;;) {
      skip_ws();
      if (peek() == ')') { ++i_; break; }
      if (shape.size() >= 64) fail(what_, "header: field 'shape': more than 64 dimensions");
      shape.push_back(parse_dim());
      skip_ws();
      if (peek() == ',') { ++i_; comma_seen = true; continue; }
      if (peek() == ')') { ++i_; break; }
      fail(what_, "header: field 'shape': expected ',' or ')' in \"" + printable(s_.substr(start), 40) + "\"");
    }
    if (shape.size() == 1 && !comma_seen)
      fail(what_, "header: field 'shape': " + s_.substr(start, i_ - start) + " is not a tuple (a 1-d shape is written (n,))");
    return shape;
  }
};

struct Descr {
  DType dtype;
  bool big;
  std::size_t size;
};

Descr parse_descr(const std::string& d, const std::string& what, bool bf16_from_uint16) {
  const std::string q = "'" + printable(d) + "'";
  if (d.size() == 3 && (d[0] == '<' || d[0] == '>')) {
    const bool big = d[0] == '>';
    const std::string t = d.substr(1);
    if (t == "f2") return {DType::f16, big, 2};
    if (t == "f4") return {DType::f32, big, 4};
    if (t == "f8") return {DType::f64, big, 8};
    if (t == "u2") {
      if (bf16_from_uint16) return {DType::bf16, big, 2};
      fail(what, "header: field 'descr': " + q + " is not a floating dtype (bf16 stored as uint16 is read only with the bf16 option)");
    }
  }
  if (!d.empty() && d[d.size() - 1] == 'O' && d.size() == 2)
    fail(what, "header: field 'descr': " + q + " is an object array (not supported; save a floating array)");
  if (d.size() >= 2 && (d[1] == 'f') && (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '='))
    fail(what, "header: field 'descr': floating dtype " + q + " is not supported (use '<f2', '<f4' or '<f8')");
  fail(what, "header: field 'descr': " + q + " is not a floating dtype (supported: '<f2' '>f2' '<f4' '>f4' '<f8' '>f8', bf16 as '<u2')");
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open for reading (") + std::strerror(errno) + ")");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) fail(path, "read error");
  return ss.str();
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail(path, std::string("cannot open for writing (") + std::strerror(errno) + ")");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) fail(path, "write error");
}

bool is_zip(const std::string& b) {
  return b.size() >= 4 && b[0] == 'P' && b[1] == 'K' &&
         ((b[2] == '\x03' && b[3] == '\x04') || (b[2] == '\x05' && b[3] == '\x06'));
}

std::string zip_err_text(int code) {
  zip_error_t e;
  zip_error_init_with_code(&e, code);
  std::string s = zip_error_strerror(&e);
  zip_error_fini(&e);
  return s;
}

std::map<std::string, Array> parse_npz(const std::string& bytes, const std::string& path, bool bf16_from_uint16) {
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &err);
  if (!src) {
    std::string m = zip_error_strerror(&err);
    zip_error_fini(&err);
    fail(path, "cannot read as a zip archive: " + m);
  }
  zip_t* za = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &err);
  if (!za) {
    zip_source_free(src);
    std::string m = zip_error_strerror(&err);
    zip_error_fini(&err);
    fail(path, "corrupt .npz (not a readable zip archive: " + m + ")");
  }
  zip_error_fini(&err);
  std::unique_ptr<zip_t, void (*)(zip_t*)> guard(za, [](zip_t* z) { zip_discard(z); });

  std::map<std::string, Array> out;
  const zip_int64_t n = zip_get_num_entries(za, 0);
  if (n < 0) fail(path, "corrupt .npz (cannot count entries)");
  for (zip_int64_t i = 0; i < n; ++i) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(za, static_cast<zip_uint64_t>(i), 0, &st) != 0 || !(st.valid & ZIP_STAT_NAME) || !st.name)
      fail(path, "corrupt .npz: cannot read entry #" + std::to_string(i) + ": " + zip_strerror(za));
    const std::string name = st.name;
    const std::string ewhat = path + ":" + name;
    if (!name.empty() && name.back() == '/') continue;  // a directory entry carries no data
    if (name.size() <= 4 || name.compare(name.size() - 4, 4, ".npy") != 0)
      fail(ewhat, "entry '" + printable(name) + "' is not a .npy file (an .npz holds only NAME.npy entries)");
    const std::string key = name.substr(0, name.size() - 4);
    if (out.count(key)) fail(ewhat, "duplicate entry '" + printable(name) + "'");

    zip_file_t* zf = zip_fopen_index(za, static_cast<zip_uint64_t>(i), 0);
    if (!zf) fail(ewhat, std::string("cannot open entry: ") + zip_strerror(za));
    std::string data;
    char buf[1 << 16];
    for (;;) {
      const zip_int64_t got = zip_fread(zf, buf, sizeof buf);
      if (got < 0) {
        std::string m = zip_error_strerror(zip_file_get_error(zf));
        zip_fclose(zf);
        fail(ewhat, "corrupt entry (" + m + ")");
      }
      if (got == 0) break;
      data.append(buf, static_cast<std::size_t>(got));
    }
    const int rc = zip_fclose(zf);
    if (rc != 0) fail(ewhat, "corrupt entry (" + zip_err_text(rc) + ")");
    if ((st.valid & ZIP_STAT_SIZE) && st.size != data.size())
      fail(ewhat, "corrupt entry (directory says " + std::to_string(st.size) + " bytes, read " + std::to_string(data.size()) + ")");
    out.emplace(key, parse_npy(data, ewhat, bf16_from_uint16));
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------- public

const char* dtype_name(DType d) {
  switch (d) {
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::f32: return "f32";
    case DType::f64: return "f64";
  }
  return "?";
}

std::size_t itemsize(DType d) {
  switch (d) {
    case DType::f16:
    case DType::bf16: return 2;
    case DType::f32: return 4;
    case DType::f64: return 8;
  }
  return 0;
}

double half_to_double(std::uint16_t h) {
  const bool neg = (h & 0x8000u) != 0;
  const int e = (h >> 10) & 0x1f;
  const int m = h & 0x3ff;
  double v;
  if (e == 0x1f) v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (e == 0) v = std::ldexp(static_cast<double>(m), -24);
  else v = std::ldexp(static_cast<double>(m + 1024), e - 25);
  return neg ? -v : v;  // also negates NaN's sign bit
}

std::uint16_t double_to_half(double x) { return static_cast<std::uint16_t>(encode_binary(x, 10, 5)); }

double bf16_to_double(std::uint16_t b) {
  return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16));
}

std::uint16_t double_to_bf16(double x) { return static_cast<std::uint16_t>(encode_binary(x, 7, 8)); }

Array parse_npy(const std::string& bytes, const std::string& what, bool bf16_from_uint16) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t n = bytes.size();
  if (n == 0) fail(what, "empty file (not a .npy file)");
  if (n < kMagicLen || std::memcmp(p, kMagic, kMagicLen) != 0) {
    if (n < kMagicLen && std::memcmp(p, kMagic, n) == 0)
      fail(what, "truncated .npy: the file ends inside the magic string (" + std::to_string(n) + " bytes)");
    fail(what, "not a .npy file: bad magic \"" + printable(bytes.substr(0, kMagicLen)) + "\" (expected \"\\x93NUMPY\")");
  }
  if (n < 8) fail(what, "truncated .npy: the file ends before the version bytes");
  const int major = p[6], minor = p[7];
  std::size_t len_bytes;
  if (major == 1 && minor == 0) len_bytes = 2;
  else if ((major == 2 || major == 3) && minor == 0) len_bytes = 4;
  else fail(what, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  if (n < 8 + len_bytes) fail(what, "truncated .npy: the file ends inside the header length field");
  const std::uint64_t hlen = len_bytes == 2 ? load_u16(p + 8, false) : load_u32(p + 8, false);
  const std::size_t hstart = 8 + len_bytes;
  if (hlen > n - hstart)
    fail(what, "truncated .npy: header: declared length " + std::to_string(hlen) + " bytes but only " + std::to_string(n - hstart) +
                   " bytes follow");
  const std::string htext = bytes.substr(hstart, static_cast<std::size_t>(hlen));
  const Header h = HeaderParser(htext, what).parse();
  const Descr d = parse_descr(h.descr, what, bf16_from_uint16);

  // As NumPy: the product of the non-zero dimensions times the item size must fit in int64, even
  // when a zero dimension makes the array empty (NumPy refuses such a shape: "array is too big"; a
  // fuzzer found that we read one and then could not write it back).
  std::uint64_t numel = 1, need = 0;
  bool zero = false, overflow = false;
  for (auto s : h.shape) {
    if (s == 0) zero = true;
    else if (__builtin_mul_overflow(numel, static_cast<std::uint64_t>(s), &numel)) overflow = true;
  }
  if (overflow || __builtin_mul_overflow(numel, static_cast<std::uint64_t>(d.size), &need) ||
      need > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    fail(what, "header: field 'shape': " + shape_text(h.shape) + " has too many elements (overflow)");
  if (zero) numel = need = 0;
  const std::size_t dstart = hstart + static_cast<std::size_t>(hlen);
  const std::size_t have = n - dstart;
  if (need > have)
    fail(what, "truncated .npy: data: shape " + shape_text(h.shape) + " of '" + h.descr + "' needs " + std::to_string(need) +
                   " bytes, the file has " + std::to_string(have));
  if (need < have)
    fail(what, "data: " + std::to_string(have - need) + " trailing bytes after the " + std::to_string(need) + " bytes that shape " +
                   shape_text(h.shape) + " of '" + h.descr +
                   "' needs (header and data disagree, or several arrays were appended to one file: use np.savez)");

  Array a;
  a.shape = h.shape;
  a.dtype = d.dtype;
  const std::size_t count = static_cast<std::size_t>(numel);
  std::vector<double> raw(count);
  const unsigned char* q = p + dstart;
  for (std::size_t k = 0; k < count; ++k, q += d.size) {
    switch (d.dtype) {
      case DType::f16: raw[k] = half_to_double(load_u16(q, d.big)); break;
      case DType::bf16: raw[k] = bf16_to_double(load_u16(q, d.big)); break;
      case DType::f32: raw[k] = static_cast<double>(std::bit_cast<float>(load_u32(q, d.big))); break;
      case DType::f64: raw[k] = std::bit_cast<double>(load_u64(q, d.big)); break;
    }
  }
  if (!h.fortran || h.shape.size() < 2 || count == 0) {
    a.data = std::move(raw);
    return a;
  }
  // Fortran order -> C order: walk the C multi-index, tracking the Fortran offset.
  const std::size_t nd = h.shape.size();
  std::vector<std::size_t> fstride(nd), idx(nd, 0);
  std::size_t st = 1;
  for (std::size_t k = 0; k < nd; ++k) {
    fstride[k] = st;
    st *= static_cast<std::size_t>(h.shape[k]);
  }
  a.data.resize(count);
  std::size_t foff = 0;
  for (std::size_t c = 0; c < count; ++c) {
    a.data[c] = raw[foff];
    for (std::size_t k = nd; k-- > 0;) {
      ++idx[k];
      foff += fstride[k];
      if (idx[k] < static_cast<std::size_t>(h.shape[k])) break;
      foff -= fstride[k] * idx[k];
      idx[k] = 0;
    }
  }
  return a;
}

std::string write_npy(const Array& a) {
  std::uint64_t numel = 1;
  bool zero = false;
  for (auto s : a.shape) {
    if (s < 0) throw std::invalid_argument("write_npy: negative dimension in shape " + shape_text(a.shape));
    if (s == 0) zero = true;
    else if (__builtin_mul_overflow(numel, static_cast<std::uint64_t>(s), &numel))
      throw std::invalid_argument("write_npy: shape " + shape_text(a.shape) + " overflows");
  }
  if (zero) numel = 0;
  if (numel != a.data.size())
    throw std::invalid_argument("write_npy: shape " + shape_text(a.shape) + " needs " + std::to_string(numel) + " values, got " +
                                std::to_string(a.data.size()));
  const char* descr = a.dtype == DType::f16 ? "<f2" : a.dtype == DType::bf16 ? "<u2" : a.dtype == DType::f32 ? "<f4" : "<f8";
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape_text(a.shape) + ", }";
  // Pad with spaces and a final newline so that the data starts at a multiple of 64 bytes.
  std::size_t prefix = 10;
  std::size_t total = prefix + dict.size() + 1;
  if (total - prefix > 0xffff) prefix = 12;
  total = prefix + dict.size() + 1;
  const std::size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict += '\n';
  std::string out(kMagic, kMagicLen);
  out += static_cast<char>(prefix == 10 ? 1 : 2);
  out += '\0';
  store_le(out, dict.size(), prefix == 10 ? 2 : 4);
  out += dict;
  out.reserve(out.size() + a.data.size() * itemsize(a.dtype));
  for (double x : a.data) {
    switch (a.dtype) {
      case DType::f16: store_le(out, double_to_half(x), 2); break;
      case DType::bf16: store_le(out, double_to_bf16(x), 2); break;
      case DType::f32: store_le(out, std::bit_cast<std::uint32_t>(static_cast<float>(x)), 4); break;
      case DType::f64: store_le(out, std::bit_cast<std::uint64_t>(x), 8); break;
    }
  }
  return out;
}

Array read_npy_file(const std::string& path, bool bf16_from_uint16) { return parse_npy(read_file(path), path, bf16_from_uint16); }

void write_npy_file(const std::string& path, const Array& a) { write_file(path, write_npy(a)); }

std::map<std::string, Array> read_npz(const std::string& path, bool bf16_from_uint16) {
  const std::string bytes = read_file(path);
  if (!is_zip(bytes)) fail(path, "not an .npz file: bad magic \"" + printable(bytes.substr(0, 4)) + "\" (expected a zip archive, \"PK\\x03\\x04\")");
  return parse_npz(bytes, path, bf16_from_uint16);
}

std::map<std::string, Array> read_any(const std::string& path, bool bf16_from_uint16) {
  const std::string bytes = read_file(path);
  if (bytes.empty()) fail(path, "empty file (neither a .npy nor an .npz file)");
  if (is_zip(bytes)) return parse_npz(bytes, path, bf16_from_uint16);
  if (bytes.size() >= 1 && bytes[0] == '\x93') {
    std::map<std::string, Array> out;
    out.emplace(std::filesystem::path(path).stem().string(), parse_npy(bytes, path, bf16_from_uint16));
    return out;
  }
  fail(path, "neither a .npy nor an .npz file: bad magic \"" + printable(bytes.substr(0, kMagicLen)) +
                 "\" (expected \"\\x93NUMPY\" or a zip archive \"PK\\x03\\x04\")");
}

void write_npz(const std::string& path, const std::map<std::string, Array>& arrays) {
  for (const auto& [name, a] : arrays)
    if (name.empty()) throw std::invalid_argument(path + ": write_npz: empty array name");
  if (arrays.empty()) {  // libzip deletes an archive without entries; write the empty zip NumPy writes
    std::string eocd("PK\x05\x06", 4);
    eocd.append(18, '\0');
    write_file(path, eocd);
    return;
  }
  std::vector<std::string> buffers;  // must outlive zip_close
  buffers.reserve(arrays.size());
  for (const auto& [name, a] : arrays) {
    try {
      buffers.push_back(write_npy(a));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(path + ":" + name + ".npy: " + e.what());
    }
  }
  int zerr = 0;
  zip_t* za = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &zerr);
  if (!za) fail(path, "cannot create zip archive: " + zip_err_text(zerr));
  std::size_t k = 0;
  for (const auto& [name, a] : arrays) {
    const std::string& buf = buffers[k++];
    const std::string ename = name + ".npy";
    zip_source_t* src = zip_source_buffer(za, buf.data(), buf.size(), 0);
    if (!src) {
      std::string m = zip_strerror(za);
      zip_discard(za);
      fail(path + ":" + ename, "cannot add entry: " + m);
    }
    const zip_int64_t idx = zip_file_add(za, ename.c_str(), src, ZIP_FL_ENC_UTF_8 | ZIP_FL_OVERWRITE);
    if (idx < 0) {
      std::string m = zip_strerror(za);
      zip_source_free(src);
      zip_discard(za);
      fail(path + ":" + ename, "cannot add entry: " + m);
    }
    if (zip_set_file_compression(za, static_cast<zip_uint64_t>(idx), ZIP_CM_STORE, 0) != 0) {
      std::string m = zip_strerror(za);
      zip_discard(za);
      fail(path + ":" + ename, "cannot set compression: " + m);
    }
  }
  if (zip_close(za) != 0) {
    std::string m = zip_strerror(za);
    zip_discard(za);
    fail(path, "cannot write zip archive: " + m);
  }
}

const Array& entry(const std::map<std::string, Array>& arrays, const std::string& key, const std::string& source) {
  auto it = arrays.find(key);
  if (it != arrays.end()) return it->second;
  std::string have;
  for (const auto& [k, v] : arrays) have += (have.empty() ? "" : ", ") + k;
  fail(source, "missing entry '" + key + "' (" + (have.empty() ? std::string("the file holds no arrays") : "it holds: " + have) + ")");
}

}  // namespace recall::npy
