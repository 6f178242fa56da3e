// DeltaFormer u-solve references for the registry's ops (A000-DELTAFORMER-U form 2, A000-DELTAFORMER-NORM,
// A000-UMATRIX): the strictly lower system matrix written from the definitions, solved by
// ref::unit_lower_solve (forward substitution = the recursion u_t = v_t - sum_{i<t} A_ti u_i
// reordered), and the read-out. Minimal on purpose: the claims of these IDs live elsewhere.
#pragma once

#include "recall/reference/delta_rule.hpp"
#include "recall/reference/matrix.hpp"

namespace recall::ref {

// Strictly lower system matrix of the u-solve, scale = 1/tau:
//  unnormalised (A000-DELTAFORMER-U Eq. 39, beta as in A000-CHUNKED-GEN): A_ti = beta_t exp(scale k_i^T k_t), i < t;
//  normalised (A000-DELTAFORMER-NORM Eq. 94 / A000-UMATRIX Eq. 96): A_ti = beta_t softmax_{i<t}(scale k_i^T k_t),
//  weights by log-sum-exp with max subtraction; row 1 is zero (u_1 = v_1).
// beta may be empty (all ones).
template <class S>
Matrix<S> deltaformer_system(const Matrix<S>& K, const Vector<S>& beta, const S& scale, bool normalized) {
  using std::exp; using std::log;
  using boost::multiprecision::exp; using boost::multiprecision::log;
  const std::size_t T = K.rows;
  require(beta.empty() || beta.size() == T, "deltaformer_system: beta must have T entries");
  Matrix<S> A(T, T);
  for (std::size_t t = 1; t < T; ++t) {
    Vector<S> z(t);
    S zmax;
    for (std::size_t i = 0; i < t; ++i) {
      z[i] = scale * dot(K.row(i), K.row(t), K.cols);
      require(is_finite(z[i]), "deltaformer_system: non-finite logit at (" + std::to_string(t + 1) + "," + std::to_string(i + 1) + ")");
      if (i == 0 || z[i] > zmax) zmax = z[i];
    }
    const S b = beta.empty() ? S(1) : beta[t];
    if (normalized) {
      S sum(0);
      for (std::size_t i = 0; i < t; ++i) sum += exp(S(z[i] - zmax));
      const S lse = zmax + log(sum);
      for (std::size_t i = 0; i < t; ++i) A(t, i) = b * exp(S(z[i] - lse));
    } else {
      for (std::size_t i = 0; i < t; ++i) A(t, i) = b * exp(z[i]);
    }
  }
  return A;
}

// Read-out o_t = sum_{i<=t} w_ti u_i (Eq. 40 / Eq. 95): w_ti = exp(scale k_i^T q_t) unnormalised,
// softmax_{i<=t}(scale k_i^T q_t) by log-sum-exp when normalised.
template <class S>
Matrix<S> deltaformer_readout(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& U, const S& scale, bool normalized) {
  using std::exp; using std::log;
  using boost::multiprecision::exp; using boost::multiprecision::log;
  require(Q.rows == K.rows && K.rows == U.rows && Q.cols == K.cols, "deltaformer_readout: shape mismatch");
  const std::size_t T = Q.rows;
  Matrix<S> O(T, U.cols);
  for (std::size_t t = 0; t < T; ++t) {
    Vector<S> z(t + 1);
    S zmax;
    for (std::size_t i = 0; i <= t; ++i) {
      z[i] = scale * dot(Q.row(t), K.row(i), K.cols);
      require(is_finite(z[i]), "deltaformer_readout: non-finite logit at (" + std::to_string(t + 1) + "," + std::to_string(i + 1) + ")");
      if (i == 0 || z[i] > zmax) zmax = z[i];
    }
    S shift(0);
    if (normalized) {
      S sum(0);
      for (std::size_t i = 0; i <= t; ++i) sum += exp(S(z[i] - zmax));
      shift = zmax + log(sum);
    }
    for (std::size_t i = 0; i <= t; ++i) {
      const S w = exp(S(z[i] - shift));
      for (std::size_t c = 0; c < U.cols; ++c) muladd(O(t, c), w, U(i, c));
    }
  }
  return O;
}

// The u-solve of A000-DELTAFORMER-U / -NORM: (I + A) U = V by forward substitution, then the read-out.
template <class S> struct DeltaFormerResult { Matrix<S> U, O; };
template <class S>
DeltaFormerResult<S> deltaformer(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& beta, const S& scale,
                                 bool normalized) {
  require(K.rows == V.rows, "deltaformer: K and V must have T rows");
  DeltaFormerResult<S> r;
  r.U = unit_lower_solve(deltaformer_system(K, beta, scale, normalized), V);
  r.O = deltaformer_readout(Q, K, r.U, scale, normalized);
  return r;
}

}  // namespace recall::ref
