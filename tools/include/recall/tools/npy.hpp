// NumPy .npy / .npz files: the exchange format of `recall validate` and `recall dump`.
//
// Conventions (see also README):
//  * Floating dtypes '<f2' '>f2' '<f4' '>f4' '<f8' '>f8' are read; C and Fortran order (Fortran is
//    converted to C order), format versions 1.0, 2.0 and 3.0. Values are converted to double exactly.
//  * bf16 has no NumPy dtype: it is stored as uint16 ('<u2' / '>u2') holding the upper 16 bits of the
//    IEEE binary32 pattern. Readers interpret uint16 arrays as bf16 only when asked (bf16_from_uint16);
//    otherwise uint16, like every non-floating dtype, is rejected.
//  * Trailing bytes after the data of a .npy are rejected (a truncated or over-long data block means
//    the header and the data disagree, or several arrays were appended to one file: use np.savez).
//  * write_npy writes version 1.0 (2.0 only if the header would not fit), little-endian, C order,
//    values rounded to the dtype with round-to-nearest-even (also bf16). write_npz stores entries
//    uncompressed (ZIP_CM_STORE, as np.savez does); readers accept stored and deflated entries.
//  * Every malformed input throws std::runtime_error whose message starts with the source
//    (file, or "archive.npz:entry.npy") and names the field at fault; nothing is read out of bounds.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace recall::npy {

enum class DType { f16, bf16, f32, f64 };

struct Array {
  std::vector<std::int64_t> shape;  // () for a 0-d scalar
  std::vector<double> data;         // C order, numel(shape) values, exact conversions of the stored values
  DType dtype = DType::f64;
};

const char* dtype_name(DType);   // "f16" | "bf16" | "f32" | "f64"
std::size_t itemsize(DType);     // 2, 2, 4, 8

// Parse one .npy held in memory; `what` names the source in error messages (e.g. "inputs.npz:q.npy").
// bf16_from_uint16: interpret '<u2'/'>u2' arrays as bf16 bit patterns (otherwise uint16 is rejected).
Array parse_npy(const std::string& bytes, const std::string& what, bool bf16_from_uint16);

// Serialize: version 1.0, little-endian, C order, dtype a.dtype ('<f2', '<u2' for bf16, '<f4', '<f8').
// Values are rounded to the dtype (RNE). Throws std::invalid_argument if data.size() != numel(shape)
// or a dimension is negative.
std::string write_npy(const Array& a);

// Files. read_npy_file: one .npy; read_npz: a zip of NAME.npy entries (stored or deflated), keys
// without the ".npy" suffix; read_any: either, by content (zip magic "PK" vs "\x93NUMPY"); a plain
// .npy yields one entry named by the file stem.
Array read_npy_file(const std::string& path, bool bf16_from_uint16);
std::map<std::string, Array> read_npz(const std::string& path, bool bf16_from_uint16);
std::map<std::string, Array> read_any(const std::string& path, bool bf16_from_uint16);
void write_npy_file(const std::string& path, const Array& a);
void write_npz(const std::string& path, const std::map<std::string, Array>& arrays);  // ZIP_CM_STORE

// Look up an entry; throws std::runtime_error naming the source and the entries that exist.
const Array& entry(const std::map<std::string, Array>& arrays, const std::string& key, const std::string& source);

// Scalar conversions. IEEE binary16 (1-5-10) and bfloat16 (1-8-7, the upper half of binary32).
// Encoders round to nearest, ties to even, directly from double (no double rounding), handle
// subnormals, overflow to +-inf, and map NaN to a quiet NaN of the same sign. Decoders are exact.
double half_to_double(std::uint16_t h);
std::uint16_t double_to_half(double x);
double bf16_to_double(std::uint16_t b);
std::uint16_t double_to_bf16(double x);

}  // namespace recall::npy
