// Causal softmax attention through log-sum-exp, and incremental decoding with a key-value cache
// (shared computation 1 of the spec README; A004-KV-CACHE).
#pragma once

#include "recall/reference/matrix.hpp"

namespace recall::ref {

// o_t = sum_{j<=t} w_tj v_j, w_tj = exp(s q_t^T k_j - lse_t), lse_t = log sum_{j<=t} exp(s q_t^T k_j).
// One query row against the first n keys/values of the cache.
template <class S>
Vector<S> softmax_attend(const S* q, const Matrix<S>& K, const Matrix<S>& V, std::size_t n, const S& scale) {
  using std::exp; using std::log;
  using boost::multiprecision::exp; using boost::multiprecision::log;
  require(n >= 1 && n <= K.rows && K.rows == V.rows, "softmax_attend: need 1 <= n <= number of cached keys");
  Vector<S> z(n);
  S zmax;
  for (std::size_t j = 0; j < n; ++j) {
    z[j] = scale * dot(q, K.row(j), K.cols);
    require(is_finite(z[j]), "softmax_attend: non-finite logit at key " + std::to_string(j + 1));
    if (j == 0 || z[j] > zmax) zmax = z[j];
  }
  S sum(0);
  for (std::size_t j = 0; j < n; ++j) sum += exp(S(z[j] - zmax));
  const S lse = zmax + log(sum);
  Vector<S> o(V.cols, S(0));
  for (std::size_t j = 0; j < n; ++j) {
    const S w = exp(S(z[j] - lse));
    for (std::size_t c = 0; c < V.cols; ++c) muladd(o[c], w, V(j, c));
  }
  return o;
}

// Full causal softmax attention (A000/A001/A002/A004-SOFTMAX-ATTN, logits s q^T k), written as the
// definition o_t = sum_{j<=t} exp(z_tj - m_t) v_j / sum_{j<=t} exp(z_tj - m_t) with the row maximum
// m_t, independently of softmax_attend (so the KV-cache decoder is checked against other code).
template <class S>
Matrix<S> causal_softmax_attention(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const S& scale) {
  using std::exp;
  using boost::multiprecision::exp;
  require(Q.rows == K.rows && K.rows == V.rows && Q.cols == K.cols, "causal_softmax_attention: shape mismatch");
  const std::size_t T = Q.rows;
  Matrix<S> Z(T, T);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t j = 0; j <= t; ++j) {
      Z(t, j) = scale * dot(Q.row(t), K.row(j), Q.cols);
      require(is_finite(Z(t, j)), "causal_softmax_attention: non-finite logit at (" + std::to_string(t + 1) + "," + std::to_string(j + 1) + ")");
    }
  Matrix<S> O(T, V.cols);
  for (std::size_t t = 0; t < T; ++t) {
    S m = Z(t, 0);
    for (std::size_t j = 1; j <= t; ++j)
      if (Z(t, j) > m) m = Z(t, j);
    S den(0);
    for (std::size_t j = 0; j <= t; ++j) {
      const S e = exp(S(Z(t, j) - m));
      den += e;
      for (std::size_t c = 0; c < V.cols; ++c) muladd(O(t, c), e, V(j, c));
    }
    for (std::size_t c = 0; c < V.cols; ++c) O(t, c) /= den;
  }
  return O;
}

// A004-KV-CACHE: the cache is two growing arrays; step() appends (k_t, v_t) and attends with q_t.
template <class S> class KvCache {
 public:
  KvCache(std::size_t dk, std::size_t dv, S scale) : K_(0, dk), V_(0, dv), scale_(std::move(scale)) {}
  Vector<S> step(const S* q, const S* k, const S* v) {
    K_.a.insert(K_.a.end(), k, k + K_.cols);
    V_.a.insert(V_.a.end(), v, v + V_.cols);
    ++K_.rows;
    ++V_.rows;
    return softmax_attend(q, K_, V_, K_.rows, scale_);
  }
  // scalars held by the cache: t (d_k + d_v)
  std::size_t size_scalars() const { return K_.a.size() + V_.a.size(); }

 private:
  Matrix<S> K_, V_;
  S scale_;
};

}  // namespace recall::ref
