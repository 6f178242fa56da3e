// DeltaFormer family of seed A000 (spec README §3 group 11 and A000 Group 5-7 items), written from
// the definitions: the u-recursion u_t = alpha_t v_t - beta_t sum_{i<t} kappa1(k_i, w_t) u_i (current
// token excluded, unit diagonal), the read-out o_t = sum_{i<=t} kappa2(k_i, q_t) u_i, the
// softmax-normalised variant (Eqs. 94-95), the chunked algorithm of Listing 1, the product-form
// inverse of a unit lower-triangular block (Eqs. 98-100), the DAG-reachability inverse (§3.3), the
// toy DeltaAttention of Listing 2 and the S5 swap-task generator. Tokens are rows, all indices
// 0-based in code and reported 1-based. Every function is templated on the scalar.
#pragma once

#include "recall/reference/delta_rule.hpp"
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/matrix.hpp"
#include "recall/reference/rope.hpp"

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace recall::ref {

// Kernels of A000-DELTAFORMER-GEN / A000-TOY-CODE on the argument a = x^T y / tau:
// linear a; poly2 a^2/4 (phi = x⊗x/2 at tau = 1); exp e^a; relu max(a, 0); round R-int (half to even,
// torch.round; A000-ROUND-KERNEL).
enum class DfKernel { linear, poly2, exp, relu, round };
inline const char* df_kernel_name(DfKernel k) {
  switch (k) {
    case DfKernel::linear: return "linear";
    case DfKernel::poly2: return "poly2/4";
    case DfKernel::exp: return "exp";
    case DfKernel::relu: return "relu";
    case DfKernel::round: return "round";
  }
  return "?";
}

// A000-ROUND-KERNEL R-int: round half to even (torch.round).
template <class S> S round_half_even(const S& x) {
  // floor of the scalar (non-MP scalars, including the counting scalar, through double: exact for floor).
  // The one definition (state_exchange.hpp had a second, which a unity build of the claims put in the same
  // unit); from that one it keeps the exact tie test on x - floor(x) (x + 0.5 rounds: 0.49999999999999994
  // + 0.5 is 1 in double) and the finiteness check.
  auto fl = [](const S& y) -> S {
    if constexpr (scalar_traits<S>::is_mp) return boost::multiprecision::floor(y);
    else return S(std::floor(static_cast<double>(y)));
  };
  if constexpr (scalar_traits<S>::is_mp) require(is_finite(x), "round_half_even: x must be finite");
  else require(std::isfinite(static_cast<double>(x)), "round_half_even: x must be finite");
  const S f = fl(x);
  const S diff = S(x - f);
  if (diff < S(0.5)) return f;
  if (diff > S(0.5)) return S(f + S(1));
  return fl(S(f / S(2))) * S(2) == f ? f : S(f + S(1));  // a tie: the even neighbour
}

// kappa on a precomputed argument a = x^T y / tau.
template <class S> S df_kernel_of(DfKernel k, const S& a) {
  using std::exp;
  using boost::multiprecision::exp;
  switch (k) {
    case DfKernel::linear: return a;
    case DfKernel::poly2: return a * a / S(4);
    case DfKernel::exp: return exp(a);
    case DfKernel::relu: return a > S(0) ? a : S(0);
    case DfKernel::round: return round_half_even(a);
  }
  return a;
}
// kappa(x, y) with temperature tau (C3): kappa(x^T y / tau).
template <class S> S df_kernel(DfKernel k, const S* x, const S* y, std::size_t d, const S& tau) {
  require(tau > S(0), "df_kernel: tau must be > 0");
  return df_kernel_of(k, S(dot(x, y, d) / tau));
}

namespace detail {
template <class S> void df_check(const Matrix<S>& K, const Matrix<S>& W, const Matrix<S>& V, const char* who) {
  require(K.rows == W.rows && K.rows == V.rows, std::string(who) + ": K, W and V must have T rows");
  require(K.cols == W.cols, std::string(who) + ": keys and retrieval vectors must have the same width");
  for (const S& x : K.a) require(is_finite(x), std::string(who) + ": K has a non-finite entry");
  for (const S& x : W.a) require(is_finite(x), std::string(who) + ": W has a non-finite entry");
  for (const S& x : V.a) require(is_finite(x), std::string(who) + ": V has a non-finite entry");
}
}  // namespace detail

// A000-DELTAFORMER-GEN Eq. 41 (A000-DELTAFORMER-U Eq. 39 with alpha = beta = 1, W = K): the
// recursion, sequential in t: u_t = alpha_t v_t - beta_t sum_{i<t} kappa1(k_i, w_t) u_i.
// alpha/beta empty: all ones.
template <class S>
Matrix<S> deltaformer_u_recursion(DfKernel k1, const Matrix<S>& K, const Matrix<S>& W, const Matrix<S>& V, const S& tau,
                                  const Vector<S>& alpha = {}, const Vector<S>& beta = {}) {
  detail::df_check(K, W, V, "deltaformer_u_recursion");
  require(alpha.empty() || alpha.size() == K.rows, "deltaformer_u_recursion: alpha must have length T");
  require(beta.empty() || beta.size() == K.rows, "deltaformer_u_recursion: beta must have length T");
  const std::size_t T = K.rows, dv = V.cols;
  Matrix<S> U(T, dv);
  Vector<S> acc(dv);
  for (std::size_t t = 0; t < T; ++t) {
    for (std::size_t c = 0; c < dv; ++c) acc[c] = S(0);
    for (std::size_t i = 0; i < t; ++i) {
      const S kap = df_kernel(k1, K.row(i), W.row(t), K.cols, tau);
      for (std::size_t c = 0; c < dv; ++c) muladd(acc[c], kap, U(i, c));
    }
    const S a = alpha.empty() ? S(1) : alpha[t];
    const S b = beta.empty() ? S(1) : beta[t];
    for (std::size_t c = 0; c < dv; ++c) U(t, c) = a * V(t, c) - b * acc[c];
  }
  return U;
}

// A000-DELTAFORMER-U form 2 / A000-DELTAFORMER-GEN matrix form: (L1)_ti = kappa1(k_i, w_t) for i < t
// (strict = true) or i <= t (strict = false, the read-out matrix L2 / M with W = Q); 0 elsewhere.
template <class S> Matrix<S> df_kernel_matrix(DfKernel k, const Matrix<S>& K, const Matrix<S>& W, const S& tau, bool strict) {
  require(K.rows == W.rows && K.cols == W.cols, "df_kernel_matrix: K and W must have the same shape");
  const std::size_t T = K.rows;
  Matrix<S> L(T, T);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t i = 0; i < (strict ? t : t + 1); ++i) L(t, i) = df_kernel(k, K.row(i), W.row(t), K.cols, tau);
  return L;
}

// A000-DELTAFORMER-U form 2 / A000-DELTAFORMER-GEN: (I + diag(beta) L1) U = diag(alpha) V by the shared
// forward substitution (delta_rule.hpp unit_lower_solve).
template <class S>
Matrix<S> deltaformer_u_triangular(const Matrix<S>& L1, const Matrix<S>& V, const Vector<S>& alpha = {}, const Vector<S>& beta = {}) {
  require(L1.rows == V.rows && L1.cols == V.rows, "deltaformer_u_triangular: L1 must be T x T");
  Matrix<S> A = L1, R = V;
  for (std::size_t t = 0; t < A.rows; ++t) {
    for (std::size_t i = t; i < A.cols; ++i) A(t, i) = S(0);  // only the strictly lower part enters
    if (!beta.empty())
      for (std::size_t i = 0; i < t; ++i) A(t, i) *= beta[t];
    if (!alpha.empty())
      for (std::size_t c = 0; c < R.cols; ++c) R(t, c) *= alpha[t];
  }
  return unit_lower_solve(A, R);
}

// A000-DELTAFORMER-U Eq. 40 / A000-DELTAFORMER-GEN Eq. 42: o_t = sum_{i<=t} kappa2(k_i, q_t) u_i.
template <class S> Matrix<S> deltaformer_readout(DfKernel k2, const Matrix<S>& K, const Matrix<S>& Q, const Matrix<S>& U, const S& tau) {
  require(K.rows == Q.rows && K.rows == U.rows && K.cols == Q.cols, "deltaformer_readout: shape mismatch");
  const std::size_t T = K.rows, dv = U.cols;
  Matrix<S> O(T, dv);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t i = 0; i <= t; ++i) {
      const S kap = df_kernel(k2, K.row(i), Q.row(t), K.cols, tau);
      for (std::size_t c = 0; c < dv; ++c) muladd(O(t, c), kap, U(i, c));
    }
  return O;
}

// A000-DELTAFORMER-GEN linear-kappa1 S-form [derived]: S_t = S_{t-1}(I - beta_t w_t k_t^T) + alpha_t v_t k_t^T,
// o_t = S_t q_t (linear kappa2, tau = 1).
template <class S>
Matrix<S> deltaformer_gen_sform_linear(const Matrix<S>& K, const Matrix<S>& W, const Matrix<S>& Q, const Matrix<S>& V,
                                       const Vector<S>& alpha, const Vector<S>& beta) {
  detail::df_check(K, W, V, "deltaformer_gen_sform_linear");
  require(alpha.size() == K.rows && beta.size() == K.rows && Q.rows == K.rows && Q.cols == K.cols,
          "deltaformer_gen_sform_linear: shape mismatch");
  const std::size_t T = K.rows, dk = K.cols, dv = V.cols;
  Matrix<S> St(dv, dk), O(T, dv);
  Vector<S> pred(dv);
  for (std::size_t t = 0; t < T; ++t) {
    matvec_into(pred.data(), St, W.row(t));  // S_{t-1} w_t
    for (std::size_t i = 0; i < dv; ++i) {
      const S e = alpha[t] * V(t, i) - beta[t] * pred[i];
      for (std::size_t j = 0; j < dk; ++j) muladd(St(i, j), e, K(t, j));
    }
    matvec_into(O.row(t), St, Q.row(t));
  }
  return O;
}

// A000-SOFTMAX-ATTN fast form: flash-style online softmax per key block of size B (running max m,
// running sum l, rescaled accumulator), causal, logits s q^T k. A form under test, not an oracle.
template <class S> Matrix<S> online_softmax_attention(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const S& scale, std::size_t B) {
  using std::exp;
  using boost::multiprecision::exp;
  require(Q.rows == K.rows && K.rows == V.rows && Q.cols == K.cols && B >= 1, "online_softmax_attention: shape mismatch");
  const std::size_t T = Q.rows, dv = V.cols;
  Matrix<S> O(T, dv);
  for (std::size_t t = 0; t < T; ++t) {
    S m = neg_inf<S>(), l(0);
    Vector<S> acc(dv);
    for (std::size_t b0 = 0; b0 <= t; b0 += B) {
      const std::size_t b1 = std::min(t + 1, b0 + B);
      Vector<S> z;
      S mb = neg_inf<S>();
      for (std::size_t j = b0; j < b1; ++j) {
        z.push_back(scale * dot(Q.row(t), K.row(j), Q.cols));
        if (z.back() > mb) mb = z.back();
      }
      const S mn = mb > m ? mb : m;
      const S r = is_neg_inf(m) ? S(0) : S(exp(S(m - mn)));
      l *= r;
      for (S& a : acc) a *= r;
      for (std::size_t j = b0; j < b1; ++j) {
        const S e = exp(S(z[j - b0] - mn));
        l += e;
        for (std::size_t c = 0; c < dv; ++c) muladd(acc[c], e, V(j, c));
      }
      m = mn;
    }
    for (std::size_t c = 0; c < dv; ++c) O(t, c) = acc[c] / l;
  }
  return O;
}

// log-sum-exp of z[0..n) (n >= 1)
template <class S> S lse(const Vector<S>& z) {
  using std::exp; using std::log;
  using boost::multiprecision::exp; using boost::multiprecision::log;
  require(!z.empty(), "lse: empty set");
  S m = z[0];
  for (const S& x : z)
    if (x > m) m = x;
  S s(0);
  for (const S& x : z) s += exp(S(x - m));
  return m + log(s);
}

// A000-DELTAFORMER-NORM Eq. 94 (Listing 1 naive_implementation): u_1 = v_1;
// u_t = v_t - sum_{i<t} softmax_{i<t}(s k_i^T k_t) u_i, weights by log-sum-exp.
template <class S> Matrix<S> deltaformer_norm_u(const Matrix<S>& K, const Matrix<S>& V, const S& scale) {
  using std::exp;
  using boost::multiprecision::exp;
  detail::df_check(K, K, V, "deltaformer_norm_u");
  const std::size_t T = K.rows, dv = V.cols;
  Matrix<S> U(T, dv);
  for (std::size_t t = 0; t < T; ++t) {
    for (std::size_t c = 0; c < dv; ++c) U(t, c) = V(t, c);
    if (t == 0) continue;  // Z^(1)_1 = 0: empty sum, u_1 = v_1
    Vector<S> z(t);
    for (std::size_t i = 0; i < t; ++i) z[i] = scale * dot(K.row(i), K.row(t), K.cols);
    const S l = lse(z);
    for (std::size_t i = 0; i < t; ++i) {
      const S p = exp(S(z[i] - l));
      for (std::size_t c = 0; c < dv; ++c) U(t, c) -= p * U(i, c);
    }
  }
  return U;
}

// A000-UMATRIX Eq. 96: A^sim_ti = softmax_{i<t}(s k_i^T k_t) for i < t, row 1 zero.
template <class S> Matrix<S> softmax_sim_matrix(const Matrix<S>& K, const S& scale) {
  using std::exp;
  using boost::multiprecision::exp;
  const std::size_t T = K.rows;
  Matrix<S> A(T, T);
  for (std::size_t t = 1; t < T; ++t) {
    Vector<S> z(t);
    for (std::size_t i = 0; i < t; ++i) z[i] = scale * dot(K.row(i), K.row(t), K.cols);
    const S l = lse(z);
    for (std::size_t i = 0; i < t; ++i) A(t, i) = exp(S(z[i] - l));
  }
  return A;
}

// A000-DELTAFORMER-NORM Eq. 95: o_t = sum_{i<=t} softmax_{i<=t}(s k_i^T q_t) u_i (log-sum-exp).
template <class S> Matrix<S> deltaformer_norm_readout(const Matrix<S>& K, const Matrix<S>& Q, const Matrix<S>& U, const S& scale) {
  using std::exp;
  using boost::multiprecision::exp;
  require(K.rows == Q.rows && K.rows == U.rows && K.cols == Q.cols, "deltaformer_norm_readout: shape mismatch");
  const std::size_t T = K.rows;
  Matrix<S> O(T, U.cols);
  for (std::size_t t = 0; t < T; ++t) {
    Vector<S> z(t + 1);
    for (std::size_t i = 0; i <= t; ++i) z[i] = scale * dot(K.row(i), Q.row(t), K.cols);
    const S l = lse(z);
    for (std::size_t i = 0; i <= t; ++i) {
      const S p = exp(S(z[i] - l));
      for (std::size_t c = 0; c < U.cols; ++c) muladd(O(t, c), p, U(i, c));
    }
  }
  return O;
}

// A000-DELTA-KERNEL Eq. 37 (for A000-DELTAFORMER-EQUIV): S_t = S_{t-1}(I - phi(k_t) phi(k_t)^T) + v_t phi(k_t)^T,
// o_t = S_t phi(q_t), finite feature map phi; S is d_v x D_phi. With erase[t] given (A000-DELTAFORMER-NORM-SFORM),
// S_t = S_{t-1}(I - erase_t phi phi^T) + v_t phi^T and o_t = S_t phi(q_t) * out_scale[t].
template <class S> struct FeatureDeltaResult {
  Matrix<S> O, state;
  std::vector<Matrix<S>> states;  // S_t for every t (when requested)
};
template <class S>
FeatureDeltaResult<S> feature_delta_rule(const FeatureMap& f, const Matrix<S>& K, const Matrix<S>& Q, const Matrix<S>& V,
                                         const Vector<S>& erase = {}, const Vector<S>& out_scale = {}, bool keep_states = false) {
  require(K.rows == Q.rows && K.rows == V.rows && K.cols == Q.cols, "feature_delta_rule: shape mismatch");
  const std::size_t T = K.rows, dv = V.cols, D = feature_dim(f, K.cols);
  FeatureDeltaResult<S> r;
  r.state = Matrix<S>(dv, D);
  r.O = Matrix<S>(T, dv);
  Vector<S> pred(dv);
  for (std::size_t t = 0; t < T; ++t) {
    const Vector<S> pk = apply_feature_map(f, K.row(t), K.cols, t + 1);
    const Vector<S> pq = apply_feature_map(f, Q.row(t), Q.cols, t + 1);
    const S e = erase.empty() ? S(1) : erase[t];
    matvec_into(pred.data(), r.state, pk.data());  // S_{t-1} phi(k_t)
    for (std::size_t i = 0; i < dv; ++i) {
      const S w = V(t, i) - e * pred[i];  // S_{t-1}(I - e phi phi^T) + v phi^T = S_{t-1} + (v - e S_{t-1} phi) phi^T
      for (std::size_t j = 0; j < D; ++j) muladd(r.state(i, j), w, pk[j]);
    }
    matvec_into(r.O.row(t), r.state, pq.data());
    if (!out_scale.empty())
      for (std::size_t i = 0; i < dv; ++i) r.O(t, i) *= out_scale[t];
    if (keep_states) r.states.push_back(r.state);
  }
  return r;
}

// Chunked algorithm of Listing 1 (A000-CHUNKED), 0-based rows. scale_in: within-chunk and naive scale
// (1/sqrt(d_model)); scale_prev: previous-chunk scale (1/sqrt(D)). literal = true (L1-literal): N_c =
// floor(T/C) chunks, rows >= N_c C stay zero; literal = false (L1-fixed): a final partial chunk.
// Per chunk U = (I + A)^{-1} P by forward substitution (unit_lower_solve). Row t = s of a chunk c > 0
// has Z_in = -inf: w_prev = 1, w_in = 0 set explicitly (the listing overwrites NaNs with the same values).
template <class S>
Matrix<S> deltaformer_chunked_listing1(const Matrix<S>& K, const Matrix<S>& N, std::size_t C, const S& scale_in,
                                       const S& scale_prev, bool literal) {
  using std::exp;
  using boost::multiprecision::exp;
  detail::df_check(K, K, N, "deltaformer_chunked_listing1");
  require(C >= 1, "deltaformer_chunked_listing1: chunk size must be >= 1");
  const std::size_t T = K.rows, dv = N.cols;
  Matrix<S> U(T, dv);
  const std::size_t nfull = T / C, nchunks = literal ? nfull : (T + C - 1) / C;
  for (std::size_t c = 0; c < nchunks; ++c) {
    const std::size_t s = c * C, e = std::min(T, s + C), n = e - s;
    Matrix<S> A(n, n), P(n, dv);
    for (std::size_t t = s; t < e; ++t) {
      // within-chunk logits (j < t) and their LSE
      Vector<S> zin;
      for (std::size_t j = s; j < t; ++j) zin.push_back(scale_in * dot(K.row(t), K.row(j), K.cols));
      S w_prev(1), w_in(0);
      Vector<S> y(dv);
      if (c > 0) {
        Vector<S> zp(s);
        for (std::size_t i = 0; i < s; ++i) zp[i] = scale_prev * dot(K.row(t), K.row(i), K.cols);
        const S Zp = lse(zp);
        for (std::size_t i = 0; i < s; ++i) {
          const S p = exp(S(zp[i] - Zp));
          for (std::size_t cc = 0; cc < dv; ++cc) muladd(y[cc], p, U(i, cc));
        }
        if (!zin.empty()) {
          const S Zi = lse(zin);
          w_prev = S(1) / (S(1) + exp(S(Zi - Zp)));
          w_in = S(1) / (S(1) + exp(S(Zp - Zi)));
        }
      } else {
        w_in = zin.empty() ? S(0) : S(1);
      }
      for (std::size_t cc = 0; cc < dv; ++cc) P(t - s, cc) = N(t, cc) - (c > 0 ? S(w_prev * y[cc]) : S(0));
      if (!zin.empty()) {
        const S Zi = lse(zin);
        for (std::size_t j = s; j < t; ++j) A(t - s, j - s) = w_in * exp(S(zin[j - s] - Zi));
      }
    }
    const Matrix<S> Uc = unit_lower_solve(A, P);
    for (std::size_t t = s; t < e; ++t)
      for (std::size_t cc = 0; cc < dv; ++cc) U(t, cc) = Uc(t - s, cc);
  }
  return U;
}

// A000-CHUNKED-GEN [derived]: chunked unnormalised DeltaFormer. For chunk rows t in [s, e):
// P_t = alpha_t v_t - beta_t sum_{i<s} kappa1(k_i, w_t) u_i (all earlier keys), then
// (I + diag(beta) L1_[c]) U_[c] = P_[c] with (L1_[c])_tj = kappa1(k_j, w_t), s <= j < t.
template <class S>
Matrix<S> deltaformer_chunked_gen(DfKernel k1, const Matrix<S>& K, const Matrix<S>& W, const Matrix<S>& V, const S& tau,
                                  std::size_t C, const Vector<S>& alpha = {}, const Vector<S>& beta = {}) {
  detail::df_check(K, W, V, "deltaformer_chunked_gen");
  require(C >= 1, "deltaformer_chunked_gen: chunk size must be >= 1");
  const std::size_t T = K.rows, dv = V.cols;
  Matrix<S> U(T, dv);
  for (std::size_t s = 0; s < T; s += C) {
    const std::size_t e = std::min(T, s + C), n = e - s;
    Matrix<S> A(n, n), P(n, dv);
    for (std::size_t t = s; t < e; ++t) {
      const S a = alpha.empty() ? S(1) : alpha[t];
      const S b = beta.empty() ? S(1) : beta[t];
      Vector<S> y(dv);
      for (std::size_t i = 0; i < s; ++i) {
        const S kap = df_kernel(k1, K.row(i), W.row(t), K.cols, tau);
        for (std::size_t c = 0; c < dv; ++c) muladd(y[c], kap, U(i, c));
      }
      for (std::size_t c = 0; c < dv; ++c) P(t - s, c) = a * V(t, c) - b * y[c];
      for (std::size_t j = s; j < t; ++j) A(t - s, j - s) = b * df_kernel(k1, K.row(j), W.row(t), K.cols, tau);
    }
    const Matrix<S> Uc = unit_lower_solve(A, P);
    for (std::size_t t = s; t < e; ++t)
      for (std::size_t c = 0; c < dv; ++c) U(t, c) = Uc(t - s, c);
  }
  return U;
}

// ceil(log2 C) (0 for C = 1)
inline int ceil_log2(std::size_t C) {
  int m = 0;
  while ((std::size_t(1) << m) < C) ++m;
  return m;
}

// A000-TRIINV Eq. 99 evaluated directly: (I + A)^{-1} = (I - A) prod_{i=1}^{m-1} (I + A^{2^i}),
// A strictly lower C x C, m = ceil(log2 C) (= log2 C for powers of two) unless given (m >= 0).
template <class S> Matrix<S> triinv_product(const Matrix<S>& A, int m = -1) {
  require(A.rows == A.cols, "triinv_product: A must be square");
  const std::size_t C = A.rows;
  if (m < 0) m = ceil_log2(C);
  Matrix<S> X = identity_matrix<S>(C);
  for (std::size_t i = 0; i < C; ++i)
    for (std::size_t j = 0; j < C; ++j) X(i, j) -= A(i, j);
  Matrix<S> P = A;  // A^{2^i}
  for (int i = 1; i <= m - 1; ++i) {
    P = matmul(P, P);
    Matrix<S> F = P;
    for (std::size_t k = 0; k < C; ++k) F(k, k) += S(1);
    X = matmul(X, F);
  }
  return X;
}
// A000-TRIINV Eq. 98 left side: (I + A)(I - A) prod_{i=1}^{m-1}(I + A^{2^i}).
template <class S> Matrix<S> triinv_eq98_lhs(const Matrix<S>& A, int m = -1) {
  Matrix<S> IA = A;
  for (std::size_t k = 0; k < A.rows; ++k) IA(k, k) += S(1);
  return matmul(IA, triinv_product(A, m));
}

// A000-TRIINV-ITER Eq. 100: X_0 = I - A, Y_0 = A^2; X_i = X_{i-1} + X_{i-1} Y_{i-1}, Y_i = Y_{i-1}^2,
// `steps` steps (default m - 1 with m = ceil(log2 C), none for C <= 2).
template <class S> Matrix<S> triinv_doubling(const Matrix<S>& A, int steps = -1) {
  require(A.rows == A.cols, "triinv_doubling: A must be square");
  const std::size_t C = A.rows;
  if (steps < 0) steps = std::max(0, ceil_log2(C) - 1);
  Matrix<S> X = identity_matrix<S>(C);
  for (std::size_t i = 0; i < C; ++i)
    for (std::size_t j = 0; j < C; ++j) X(i, j) -= A(i, j);
  Matrix<S> Y = matmul(A, A);
  for (int i = 1; i <= steps; ++i) {
    const Matrix<S> XY = matmul(X, Y);
    for (std::size_t k = 0; k < X.a.size(); ++k) X.a[k] += XY.a[k];
    if (i < steps) Y = matmul(Y, Y);
  }
  return X;
}

// A000-TRIINV-COMMENT readings of the Listing 1 comment "a_1, b_1 = I - A, A^2;
// a_{i+1}, b_{i+1} = a_i@b_i + b_i@b_i; return a_{log C - 1}":
//  R1: a_{i+1} = a_i + a_i b_i, b_{i+1} = b_i b_i, return a_{log2 C - 1};  R2: as R1, return a_{log2 C};
//  R3: a_{i+1} = a_i b_i, b_{i+1} = b_i b_i, return a_{log2 C - 1}. log2 C = ceil(log2 C).
// Returns false (no matrix) when the returned index is < 1 (undefined: a_1 is the first iterate).
enum class TriinvReading { R1, R2, R3 };
template <class S> bool triinv_comment(const Matrix<S>& A, TriinvReading r, Matrix<S>& out) {
  const int L = ceil_log2(A.rows);
  const int idx = r == TriinvReading::R2 ? L : L - 1;
  if (idx < 1) return false;
  Matrix<S> a = identity_matrix<S>(A.rows);
  for (std::size_t k = 0; k < a.a.size(); ++k) a.a[k] -= A.a[k];
  Matrix<S> b = matmul(A, A);
  for (int i = 1; i < idx; ++i) {
    const Matrix<S> ab = matmul(a, b);
    if (r == TriinvReading::R3) a = ab;
    else
      for (std::size_t k = 0; k < a.a.size(); ++k) a.a[k] += ab.a[k];
    b = matmul(b, b);
  }
  out = a;
  return true;
}

// A000-DAG-INV: (I + s A^dag)^{-1} for a topologically ordered DAG (A^dag strictly upper, A_ij = 1 for
// an edge i -> j), computed by the shared forward substitution on the transpose:
// (I + s A)^{-1} = ((I + s A^T)^{-1})^T.  s = -1 gives (I - A)^{-1}.
template <class S> Matrix<S> dag_inverse(const Matrix<S>& Adag, const S& s) {
  require(Adag.rows == Adag.cols, "dag_inverse: adjacency must be square");
  for (std::size_t i = 0; i < Adag.rows; ++i)
    for (std::size_t j = 0; j <= i; ++j)
      require(Adag(i, j) == S(0), "dag_inverse: adjacency must be strictly upper triangular (topological order)");
  Matrix<S> L = transpose(Adag);
  for (S& x : L.a) x *= s;
  return transpose(unit_lower_solve(L, identity_matrix<S>(Adag.rows)));
}
// A000-DAG-INV: sum_{k=0}^{n} A^k (integer path counts by length).
template <class S> Matrix<S> power_sum(const Matrix<S>& A, std::size_t n) {
  Matrix<S> P = identity_matrix<S>(A.rows), Sum = P;
  for (std::size_t k = 1; k <= n; ++k) {
    P = matmul(P, A);
    for (std::size_t i = 0; i < Sum.a.size(); ++i) Sum.a[i] += P.a[i];
  }
  return Sum;
}
// BFS reachability of a 0/1 adjacency (reach(i, j) = a path i -> j of length >= 0).
inline std::vector<std::vector<char>> dag_reach_bfs(const std::vector<std::vector<char>>& adj) {
  const std::size_t n = adj.size();
  std::vector<std::vector<char>> R(n, std::vector<char>(n, 0));
  for (std::size_t s = 0; s < n; ++s) {
    std::vector<std::size_t> q{s};
    R[s][s] = 1;
    for (std::size_t h = 0; h < q.size(); ++h)
      for (std::size_t j = 0; j < n; ++j)
        if (adj[q[h]][j] && !R[s][j]) { R[s][j] = 1; q.push_back(j); }
  }
  return R;
}

// ---- A000-TOY-CODE: DeltaAttention of Listing 2 (one layer, batch of one sequence) ------------------
// kappa1 options of the listing applied to the zero-masked score matrix; kappa2 read-out options.
enum class ToyK1 { linear, round, exp, softmax_code, softmax_eq94, relu };
enum class ToyK2 { linear, round, softmax, relu };
template <class S> struct ToyAttentionParams {
  std::size_t dim = 0, hq = 1, hkv = 1;        // head dim = dim / hq
  Matrix<S> Wq, Ww, Wk, Wv, Wo;                // (out x in): Wq, Ww, Wo dim x dim; Wk, Wv (hkv*hd) x dim
  Vector<S> bq, bw, bk, bv, bo;                // biases
  Vector<S> w_weight;                          // per q-head weight of A (init N(0,1))
  S alpha = S(1), beta = S(1);
  S rope_base = S(0);  // A000-EXP-ROPE: 0 = no positional encoding (Listing 2); > 0: RoPE (rope.hpp) on q, w and k
};
// y = W x + b for every row of X
template <class S> Matrix<S> toy_affine(const Matrix<S>& X, const Matrix<S>& W, const Vector<S>& b) {
  require(W.cols == X.cols && b.size() == W.rows, "toy_affine: shape mismatch");
  Matrix<S> Y(X.rows, W.rows);
  for (std::size_t t = 0; t < X.rows; ++t) {
    matvec_into(Y.row(t), W, X.row(t));
    for (std::size_t i = 0; i < W.rows; ++i) Y(t, i) += b[i];
  }
  return Y;
}
// kappa1 of Listing 2 on one head's T x T score matrix A (A_st = w_s^T k_t / sqrt(hd) for t < s, 0 else).
template <class S> Matrix<S> toy_kernel1(ToyK1 k, const Matrix<S>& A0) {
  using std::exp;
  using boost::multiprecision::exp;
  const std::size_t T = A0.rows;
  Matrix<S> A = A0;
  switch (k) {
    case ToyK1::linear: break;
    case ToyK1::round: for (S& x : A.a) x = round_half_even(x); break;
    case ToyK1::exp: for (S& x : A.a) x = exp(x); break;  // masked zeros become e^0 = 1 (ignored by the solve)
    case ToyK1::relu: for (S& x : A.a) x = x > S(0) ? x : S(0); break;
    case ToyK1::softmax_code:  // SM-code: softmax over the full row, zero-filled masked entries included
      for (std::size_t s = 0; s < T; ++s) {
        Vector<S> z(A0.row(s), A0.row(s) + T);
        const S l = lse(z);
        for (std::size_t t = 0; t < T; ++t) A(s, t) = exp(S(z[t] - l));
      }
      break;
    case ToyK1::softmax_eq94:  // SM-eq94: softmax over t < s only (row 1 empty: zero)
      for (std::size_t s = 0; s < T; ++s) {
        for (std::size_t t = 0; t < T; ++t) A(s, t) = S(0);
        if (s == 0) continue;
        Vector<S> z(A0.row(s), A0.row(s) + s);
        const S l = lse(z);
        for (std::size_t t = 0; t < s; ++t) A(s, t) = exp(S(z[t] - l));
      }
      break;
  }
  return A;
}
// Per kv-group write matrix after kappa1, * w_weight_h and the mean over the group's q-heads (Listing 2).
template <class S>
std::vector<Matrix<S>> toy_write_matrices(const ToyAttentionParams<S>& p, ToyK1 k1, const Matrix<S>& Wp, const Matrix<S>& Kp) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  const std::size_t T = Wp.rows, hd = p.dim / p.hq, g = p.hq / p.hkv;
  const S inv = S(1) / sqrt(S(hd));
  std::vector<Matrix<S>> out(p.hkv, Matrix<S>(T, T));
  for (std::size_t h = 0; h < p.hq; ++h) {
    const std::size_t kv = h / g;
    Matrix<S> A0(T, T);
    for (std::size_t s = 0; s < T; ++s)
      for (std::size_t t = 0; t < s; ++t) A0(s, t) = dot(Wp.row(s) + h * hd, Kp.row(t) + kv * hd, hd) * inv;
    const Matrix<S> A = toy_kernel1(k1, A0);
    for (std::size_t i = 0; i < A.a.size(); ++i) out[kv].a[i] += A.a[i] * p.w_weight[h] / S(g);
  }
  return out;
}
// The DeltaAttention forward of Listing 2 for one sequence X (T x dim). by_recursion = true: per head the
// explicit recursion u_s = alpha v_s - beta sum_{t<s} A_st u_t; false: unit_lower_solve of
// (I + beta tril(A, -1)) U = alpha V (solve_triangular semantics, A000-TOY-SOLVE).
template <class S> Matrix<S> toy_delta_attention(const ToyAttentionParams<S>& p, ToyK1 k1, ToyK2 k2, const Matrix<S>& X, bool by_recursion,
                                                 std::vector<Matrix<S>>* U_out = nullptr) {
  using std::exp; using std::sqrt;
  using boost::multiprecision::exp; using boost::multiprecision::sqrt;
  require(p.dim > 0 && p.hq > 0 && p.hkv > 0 && p.dim % p.hq == 0 && p.hq % p.hkv == 0,
          "toy_delta_attention: dim must divide by q-heads and q-heads by kv-heads");
  require(X.cols == p.dim, "toy_delta_attention: X must be T x dim");
  require(p.w_weight.size() == p.hq, "toy_delta_attention: w_weight needs one entry per q-head");
  for (const S& x : X.a) require(is_finite(x), "toy_delta_attention: X has a non-finite entry");
  const std::size_t T = X.rows, hd = p.dim / p.hq, g = p.hq / p.hkv;
  Matrix<S> Qp = toy_affine(X, p.Wq, p.bq), Wp = toy_affine(X, p.Ww, p.bw), Kp = toy_affine(X, p.Wk, p.bk);
  const Matrix<S> Vp = toy_affine(X, p.Wv, p.bv);
  if (p.rope_base != S(0)) {  // A000-EXP-ROPE: rotate every head of q, w, k at its token's position (v is not rotated)
    require(is_finite(p.rope_base) && p.rope_base > S(0), "toy_delta_attention: rope_base must be finite and > 0 (0: no RoPE)");
    rope_rotate_rows(Qp, hd, p.rope_base), rope_rotate_rows(Wp, hd, p.rope_base), rope_rotate_rows(Kp, hd, p.rope_base);
  }
  const std::vector<Matrix<S>> Aw = toy_write_matrices(p, k1, Wp, Kp);
  std::vector<Matrix<S>> U(p.hkv, Matrix<S>(T, hd));
  for (std::size_t kv = 0; kv < p.hkv; ++kv) {
    Matrix<S> Vh(T, hd);
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t c = 0; c < hd; ++c) Vh(t, c) = Vp(t, kv * hd + c);
    if (by_recursion) {
      for (std::size_t s = 0; s < T; ++s)
        for (std::size_t c = 0; c < hd; ++c) {
          S acc(0);
          for (std::size_t t = 0; t < s; ++t) muladd(acc, Aw[kv](s, t), U[kv](t, c));
          U[kv](s, c) = p.alpha * Vh(s, c) - p.beta * acc;
        }
    } else {
      Matrix<S> bA = Aw[kv];
      for (S& x : bA.a) x *= p.beta;
      for (S& x : Vh.a) x *= p.alpha;
      U[kv] = unit_lower_solve(bA, Vh);  // reads only the strictly lower part
    }
  }
  if (U_out) *U_out = U;
  const S inv = S(1) / sqrt(S(hd));
  Matrix<S> H(T, p.dim);
  for (std::size_t h = 0; h < p.hq; ++h) {
    const std::size_t kv = h / g;
    for (std::size_t s = 0; s < T; ++s) {
      Vector<S> sc(s + 1);
      for (std::size_t t = 0; t <= s; ++t) sc[t] = dot(Qp.row(s) + h * hd, Kp.row(t) + kv * hd, hd) * inv;
      Vector<S> w(s + 1);
      if (k2 == ToyK2::softmax) {
        const S l = lse(sc);
        for (std::size_t t = 0; t <= s; ++t) w[t] = exp(S(sc[t] - l));
      } else {
        for (std::size_t t = 0; t <= s; ++t)
          w[t] = k2 == ToyK2::linear ? sc[t] : k2 == ToyK2::round ? round_half_even(sc[t]) : (sc[t] > S(0) ? sc[t] : S(0));
      }
      for (std::size_t t = 0; t <= s; ++t)
        for (std::size_t c = 0; c < hd; ++c) muladd(H(s, h * hd + c), w[t], U[kv](t, c));
    }
  }
  Matrix<S> Y = toy_affine(H, p.Wo, p.bo);
  for (std::size_t i = 0; i < Y.a.size(); ++i) Y.a[i] += X.a[i];  // block: x + attn(x)
  return Y;
}

// ---- A000-TOY-DATA: S5 swap task of Listing 2 -----------------------------------------------------
// swap_pairs = all (i, j), i < j over 5 positions (10 pairs, listing order); each step swaps two
// positions of the current arrangement; the label is the element at position 1 after the swap.
inline std::vector<std::pair<int, int>> s5_swap_pairs() {
  std::vector<std::pair<int, int>> p;
  for (int i = 0; i < 5; ++i)
    for (int j = i + 1; j < 5; ++j) p.emplace_back(i, j);
  return p;
}
struct S5Sample {
  std::vector<int> input_ids, labels;
};
inline std::vector<S5Sample> generate_s5_data(std::size_t k, std::size_t num_samples, std::mt19937_64& rng) {
  const auto pairs = s5_swap_pairs();
  std::uniform_int_distribution<int> U(0, static_cast<int>(pairs.size()) - 1);
  std::vector<S5Sample> data(num_samples);
  for (auto& smp : data) {
    std::array<int, 5> perm{0, 1, 2, 3, 4};
    for (std::size_t t = 0; t < k; ++t) {
      const int idx = U(rng);
      std::swap(perm[pairs[idx].first], perm[pairs[idx].second]);
      smp.input_ids.push_back(idx);
      smp.labels.push_back(perm[0]);
    }
  }
  return data;
}

}  // namespace recall::ref
