// A000-EXP-ROPE: rotary position embedding (RoPE) of one head vector, written from the definition
// [external: the standard rotary embedding, base 10000]. The paper's §3.2 compares its default (RoPE)
// with no positional encoding; Listing 2 passes rotary_base = None, so the spec fixes the details:
//
//   rotated width   r = 2 floor(hd / 2): the leading r dims of the head are rotated, the rest (one dim
//                   when hd is odd, e.g. the listing's hd = 3) is left as it is;
//   pairing         rotate_half (GPT-NeoX / LLaMA-HF layout): pair i (0 <= i < r/2) is (x_i, x_{i + r/2}).
//                   Listing 2 stores `rotary_base` but never applies a rotation, so the paper fixes no
//                   layout; rotate_half is the common non-interleaved default of LLaMA-style code, and at
//                   the listing's hd = 3 (r = 2) both pairings are the same single pair (x_0, x_1);
//   frequency       theta_i = base^(-2i / r);
//   angle           pos * theta_i, pos the 0-based position of the token in its sequence;
//   rotation        x_i' = x_i cos - x_{i+r/2} sin,  x_{i+r/2}' = x_i sin + x_{i+r/2} cos.
//
// The rotation is orthogonal per position (norm-preserving), R(pos)^T = R(-pos); `inverse` applies the
// transpose (the backward pass of a rotated projection). Note: theta_0 = 1 for every base, so at r = 2
// (hd = 3) the base has no effect: the angle is pos radians.
#pragma once

#include "recall/reference/matrix.hpp"
#include "recall/reference/scalar.hpp"

#include <cmath>
#include <cstddef>
#include <string>

namespace recall::ref {

// theta_i = base^(-2i / r) at the scalar S.
template <class S> S rope_frequency(std::size_t i, std::size_t r, const S& base) {
  using std::pow;
  using boost::multiprecision::pow;
  require(r >= 2 && r % 2 == 0 && 2 * i < r, "rope_frequency: pair index i must satisfy 2i < r (r even, >= 2)");
  require(is_finite(base) && base > S(0), "rope_frequency: rope_base must be finite and > 0");
  return pow(base, S(-2 * static_cast<long long>(i)) / S(static_cast<long long>(r)));
}

// Rotates the head vector x[0..hd) in place for position pos (0-based); inverse: the transpose.
template <class S> void rope_rotate(S* x, std::size_t hd, std::size_t pos, const S& base, bool inverse = false) {
  using std::cos;
  using std::sin;
  using boost::multiprecision::cos;
  using boost::multiprecision::sin;
  require(is_finite(base) && base > S(0), "rope_rotate: rope_base must be finite and > 0");
  const std::size_t r = 2 * (hd / 2), half = r / 2;
  for (std::size_t i = 0; i < half; ++i) {
    const S ang = S(static_cast<long long>(pos)) * rope_frequency(i, r, base);
    const S c = cos(ang), s = inverse ? S(-sin(ang)) : S(sin(ang));
    const S a = x[i], b = x[i + half];
    x[i] = S(a * c - b * s);
    x[i + half] = S(a * s + b * c);
  }
}

// Rotates every head (columns [h hd, (h+1) hd)) of every row t of X (position t).
template <class S> void rope_rotate_rows(Matrix<S>& X, std::size_t hd, const S& base) {
  require(hd > 0 && X.cols % hd == 0, "rope_rotate_rows: the columns must be whole heads of width hd");
  for (std::size_t t = 0; t < X.rows; ++t)
    for (std::size_t h = 0; h < X.cols / hd; ++h) rope_rotate(X.row(t) + h * hd, hd, t, base);
}

}  // namespace recall::ref
