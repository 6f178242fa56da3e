// Paper A001 (test-time regression), §6: the short convolution of the keys (Eq. 56) and the
// multi-query associative recall (MQAR) construction of Eqs. (57)-(58), written from the definitions
// (plain loops, tokens as rows, 0-based storage; documentation and witnesses are 1-based).
// Conventions (spec A001 C2, C5, Ambiguities 7 and 21): tokens before the sequence start are zero
// (x_s = 0 for s <= 0, so k_1 = 0 in the construction); the printed look-back "w_0 = i" is read as
// w_i = 1, w_j = 0 for j != i; MQAR cues are u_j and responses r_j (printed v_j), stacked as the
// columns of E = [u_1 .. u_P, r_1 .. r_P] (d x 2P).
#pragma once

#include "recall/reference/matrix.hpp"
#include "recall/reference/svd.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace recall::ref {

namespace detail {
template <class S> void require_finite_matrix(const Matrix<S>& A, const std::string& who, const std::string& name) {
  for (std::size_t i = 0; i < A.rows; ++i)
    for (std::size_t j = 0; j < A.cols; ++j) {
      using std::isfinite;
      using boost::multiprecision::isfinite;
      if constexpr (std::numeric_limits<S>::is_integer || !std::numeric_limits<S>::has_infinity) {
        (void)A;
      } else {
        require(static_cast<bool>(isfinite(A(i, j))), who + ": entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) + ") of " +
                                                           name + " is not finite");
      }
    }
}
template <class S> void require_finite_vector(const Vector<S>& v, const std::string& who, const std::string& name) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    using std::isfinite;
    using boost::multiprecision::isfinite;
    if constexpr (std::numeric_limits<S>::is_integer || !std::numeric_limits<S>::has_infinity) {
      (void)v;
    } else {
      require(static_cast<bool>(isfinite(v[i])), who + ": entry " + std::to_string(i + 1) + " of " + name + " is not finite");
    }
  }
}
}  // namespace detail

// ---------------------------------------------------------------------------------------------
// short convolution
// ---------------------------------------------------------------------------------------------

// A001-SHORTCONV Eq. (56): k_t = sum_{i=0}^{K-1} w_i W_K x_{t-i}, with x_s = 0 for s <= 0 (zero padding).
// X: T x d_model (rows x_1..x_T), W_K: D_k x d_model, w: the K filter taps w_0..w_{K-1}; returns T x D_k.
template <class S> Matrix<S> short_conv(const Matrix<S>& X, const Matrix<S>& WK, const Vector<S>& w) {
  require(!w.empty(), "short_conv: the filter w must have at least one tap (K >= 1)");
  require(WK.cols == X.cols, "short_conv: W_K must be D_k x d_model with d_model = the width of X");
  detail::require_finite_matrix(X, "short_conv", "X");
  detail::require_finite_matrix(WK, "short_conv", "W_K");
  detail::require_finite_vector(w, "short_conv", "w");
  const std::size_t T = X.rows, dk = WK.rows, dm = X.cols, K = w.size();
  Matrix<S> out(T, dk);
  for (std::size_t t = 0; t < T; ++t)       // 0-based token t is the paper's t+1
    for (std::size_t i = 0; i < K; ++i) {   // tap i looks back i steps
      if (i > t) break;                     // x_{t-i} with t-i <= 0 (1-based) is the zero padding
      const S* x = X.row(t - i);
      for (std::size_t r = 0; r < dk; ++r) {
        S acc(0);
        for (std::size_t c = 0; c < dm; ++c) acc += WK(r, c) * x[c];
        out(t, r) += w[i] * acc;
      }
    }
  return out;
}

// A001-SHORTCONV Eq. (56) with W_K = I (the construction of Eqs. 57-58): k_t = sum_i w_i x_{t-i}.
template <class S> Matrix<S> short_conv(const Matrix<S>& X, const Vector<S>& w) {
  require(!w.empty(), "short_conv: the filter w must have at least one tap (K >= 1)");
  detail::require_finite_matrix(X, "short_conv", "X");
  detail::require_finite_vector(w, "short_conv", "w");
  const std::size_t T = X.rows, d = X.cols, K = w.size();
  Matrix<S> out(T, d);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t i = 0; i < K && i <= t; ++i)  // x_{t-i} with t-i <= 0 (1-based) is the zero padding
      for (std::size_t j = 0; j < d; ++j) out(t, j) += w[i] * X(t - i, j);
  return out;
}

// A001-SHORTCONV matrix form of Eq. (56): the T x T banded lower-triangular Toeplitz matrix C with
// C(t, s) = w_{t-s} for 0 <= t-s < K (1-based t, s), so that the keys are C X W_K^T.
template <class S> Matrix<S> short_conv_toeplitz(const Vector<S>& w, std::size_t T) {
  require(!w.empty(), "short_conv_toeplitz: the filter w must have at least one tap (K >= 1)");
  detail::require_finite_vector(w, "short_conv_toeplitz", "w");
  Matrix<S> C(T, T);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t s = 0; s <= t; ++s)
      if (t - s < w.size()) C(t, s) = w[t - s];
  return C;
}

// A001-SHORTCONV look-back filter (index-corrected reading of "w_0 = i", Ambiguity 7): w_i = 1 and
// w_j = 0 for j != i, of length K > i.
template <class S> Vector<S> lookback_filter(std::size_t i, std::size_t K) {
  require(i < K, "lookback_filter: the look-back i = " + std::to_string(i) + " needs K > i taps (K = " + std::to_string(K) + ")");
  Vector<S> w(K, S(0));
  w[i] = S(1);
  return w;
}

// ---------------------------------------------------------------------------------------------
// MQAR context
// ---------------------------------------------------------------------------------------------

// An MQAR context (A001-MQAR-CONSTRUCTION, "to implement"): the cue indices i_1..i_{T/2} of the
// T/2 pairs (0-based into [P]) and the index of the final cue (0-based). T = 2 * pairs.size().
struct MqarContext {
  std::size_t P = 0;
  std::vector<std::size_t> pairs;
  std::size_t query = 0;
  std::size_t T() const { return 2 * pairs.size(); }
};

// Uniform draw from {0, .., n-1} from a 64-bit generator (rejection, so unbiased and the same on
// every standard library, unlike std::uniform_int_distribution).
template <class URBG> std::size_t uniform_index(URBG& g, std::size_t n) {
  require(n >= 1, "uniform_index: the range must be non-empty");
  const std::uint64_t N = n, lim = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % N;
  for (;;) {
    const std::uint64_t x = static_cast<std::uint64_t>(g());
    if (x < lim) return static_cast<std::size_t>(x % N);
  }
}

// A001-MQAR-CONSTRUCTION context generator: T/2 pairs drawn uniformly with replacement from [P];
// the final cue drawn uniformly from the distinct cues present in the context. T must be even >= 2.
template <class URBG> MqarContext mqar_draw(std::size_t P, std::size_t T, URBG& g) {
  require(P >= 1, "mqar_draw: the number of pairs P must be >= 1");
  require(T >= 2 && T % 2 == 0, "mqar_draw: T must be even and >= 2 (the context holds T/2 pairs), got " + std::to_string(T));
  MqarContext c;
  c.P = P;
  c.pairs.resize(T / 2);
  std::vector<char> seen(P, 0);
  std::vector<std::size_t> present;
  for (std::size_t m = 0; m < T / 2; ++m) {
    c.pairs[m] = uniform_index(g, P);
    if (!seen[c.pairs[m]]) {
      seen[c.pairs[m]] = 1;
      present.push_back(c.pairs[m]);
    }
  }
  c.query = present[uniform_index(g, present.size())];
  return c;
}

// Validate a context (every index in [P], the query among the cues present).
inline void check_mqar_context(const MqarContext& c, const std::string& who) {
  require(c.P >= 1, who + ": the context has P = 0");
  require(!c.pairs.empty(), who + ": the context has no pair (T = 0)");
  bool present = false;
  for (std::size_t m = 0; m < c.pairs.size(); ++m) {
    require(c.pairs[m] < c.P, who + ": cue index of pair " + std::to_string(m + 1) + " is outside [P]");
    present = present || c.pairs[m] == c.query;
  }
  require(c.query < c.P, who + ": the final cue index is outside [P]");
  require(present, who + ": the final cue does not occur in the context");
}

// A001-MQAR-COUNT-FACTOR: the number of occurrences of the final cue u_{i_j} among x_1..x_T.
inline std::size_t mqar_cue_count(const MqarContext& c) {
  std::size_t n = 0;
  for (std::size_t i : c.pairs) n += i == c.query ? 1 : 0;
  return n;
}

// A001-MQAR-CONSTRUCTION context: (x_1, .., x_{T+1}) = (u_{i_1}, r_{i_1}, .., u_{i_{T/2}}, r_{i_{T/2}}, u_{i_j})
// as the rows of a (T+1) x d matrix; E is d x 2P with columns [u_1 .. u_P, r_1 .. r_P].
template <class S> Matrix<S> mqar_tokens(const Matrix<S>& E, const MqarContext& c) {
  check_mqar_context(c, "mqar_tokens");
  require(E.cols == 2 * c.P, "mqar_tokens: the embedding matrix E must be d x 2P (columns u_1..u_P, r_1..r_P)");
  detail::require_finite_matrix(E, "mqar_tokens", "E");
  const std::size_t d = E.rows, T = c.T();
  Matrix<S> X(T + 1, d);
  for (std::size_t m = 0; m < c.pairs.size(); ++m)
    for (std::size_t j = 0; j < d; ++j) {
      X(2 * m, j) = E(j, c.pairs[m]);            // x_{2m-1} = u_{i_m}   (1-based)
      X(2 * m + 1, j) = E(j, c.P + c.pairs[m]);  // x_{2m}   = r_{i_m}
    }
  for (std::size_t j = 0; j < d; ++j) X(T, j) = E(j, c.query);  // x_{T+1} = u_{i_j}
  return X;
}

// ---------------------------------------------------------------------------------------------
// read-outs of the construction
// ---------------------------------------------------------------------------------------------

// A001-MQAR-CONSTRUCTION Eq. (58), right-hand side: y_{T+1} = sum_{t=1}^{T+1} x_t x_{t-1}^T u_{i_j} with
// x_0 = 0 and u_{i_j} = x_{T+1} (the last row of X, (T+1) x d).
template <class S> Vector<S> mqar_la_output(const Matrix<S>& X) {
  require(X.rows >= 1, "mqar_la_output: the context X has no token");
  detail::require_finite_matrix(X, "mqar_la_output", "X");
  const std::size_t n = X.rows, d = X.cols;
  const S* q = X.row(n - 1);
  Vector<S> y(d, S(0));
  for (std::size_t t = 1; t < n; ++t) {  // 0-based t >= 1: the term t = 1 (1-based) has x_0 = 0
    S w(0);
    for (std::size_t j = 0; j < d; ++j) w += X(t - 1, j) * q[j];  // x_{t-1}^T u_{i_j}
    for (std::size_t j = 0; j < d; ++j) y[j] += w * X(t, j);
  }
  return y;
}

// A001-MQAR-CONSTRUCTION Eqs. (56)-(57), the layer form: keys k_t = x_{t-1} from the short convolution
// (w_0 = 0, w_1 = 1, W_K = I), values v_t = x_t, memory M_{T+1} = sum_{t=1}^{T+1} v_t k_t^T (d x d).
template <class S> Matrix<S> mqar_la_memory(const Matrix<S>& X) {
  const Matrix<S> K = short_conv(X, lookback_filter<S>(1, 2));
  Matrix<S> M(X.cols, X.cols);
  for (std::size_t t = 0; t < X.rows; ++t) add_outer(M, X.row(t), K.row(t));
  return M;
}

// A001-MQAR-LS-VARIANT: the least-squares memory with the same keys k_t = x_{t-1} and values v_t = x_t
// (t = 1..T+1) in the pseudo-inverse form of Eq. (11), M = R S^+ with R = sum_t v_t k_t^T and
// S = sum_t k_t k_t^T (the key Gram, singular whenever the keys do not span R^d), read out at
// q = x_{T+1}: y = R S^+ q. S^+ by ref::pinv (one-sided Jacobi SVD) with singular values of S
// <= rel_tol * sigma_max(S) dropped; *rank receives the rank kept. The Gram squares cond(K): callers
// use 2 log10 cond(K) extra digits (P-scaled). This Gram form is the one the spec states ("pseudo-inverse
// form of Eq. 11, as S_{T+1} may be singular"); mqar_ls_output_minnorm is the SVD form of the same memory,
// and A001-MQAR-LS-VARIANT cross-checks the two on every instance.
template <class S> Vector<S> mqar_ls_output(const Matrix<S>& X, const S& rel_tol, std::size_t* rank = nullptr) {
  require(X.rows >= 1, "mqar_ls_output: the context X has no token");
  detail::require_finite_matrix(X, "mqar_ls_output", "X");
  const Matrix<S> K = short_conv(X, lookback_filter<S>(1, 2));
  const std::size_t n = X.rows, d = X.cols;
  Matrix<S> R(d, d), G(d, d);
  for (std::size_t t = 0; t < n; ++t) {
    add_outer(R, X.row(t), K.row(t));  // v_t k_t^T
    add_outer(G, K.row(t), K.row(t));  // k_t k_t^T
  }
  const Matrix<S> Gp = pinv(G, rel_tol, rank);
  const Vector<S> z = matvec(Gp, X.row(n - 1));  // S^+ q
  return matvec(R, z.data());
}

// A001-MQAR-LS-VARIANT, min-norm form of the same memory: M = V^T (K^+)^T (the min-norm minimiser of
// sum_t ||v_t - M k_t||^2, equal to R S^+), y = V^T (K^+)^T q, with K^+ by ref::pinv of the (T+1) x d key
// matrix (no Gram formed; ref::svd skips the numerically zero columns that the rank deficiency of exactly
// repeated keys leaves, so the repeated rows no longer stall its one-sided Jacobi).
template <class S> Vector<S> mqar_ls_output_minnorm(const Matrix<S>& X, const S& rel_tol, std::size_t* rank = nullptr) {
  require(X.rows >= 1, "mqar_ls_output_minnorm: the context X has no token");
  detail::require_finite_matrix(X, "mqar_ls_output_minnorm", "X");
  const Matrix<S> K = short_conv(X, lookback_filter<S>(1, 2));
  const Matrix<S> Kp = pinv(K, rel_tol, rank);  // d x (T+1)
  const std::size_t n = X.rows, d = X.cols;
  const S* q = X.row(n - 1);
  Vector<S> a(n, S(0));  // a = (K^+)^T q
  for (std::size_t t = 0; t < n; ++t)
    for (std::size_t i = 0; i < d; ++i) a[t] += Kp(i, t) * q[i];
  Vector<S> y(d, S(0));  // y = V^T a
  for (std::size_t t = 0; t < n; ++t)
    for (std::size_t j = 0; j < d; ++j) y[j] += a[t] * X(t, j);
  return y;
}

// A001-MQAR-LENGTH-INDEPENDENCE decoding (Ambiguity 21): the response index j in [P] maximising
// <y, r_j> (cosine = true: <y, r_j> / ||r_j||, the cosine up to the common factor 1/||y||). Returns P
// when the maximum is not attained by a unique j (a tie counts as no answer).
template <class S> std::size_t mqar_decode(const Matrix<S>& E, const Vector<S>& y, std::size_t P, bool cosine = false) {
  require(E.cols == 2 * P && P >= 1, "mqar_decode: the embedding matrix E must be d x 2P with P >= 1");
  require(y.size() == E.rows, "mqar_decode: y must have length d = the rows of E");
  detail::require_finite_matrix(E, "mqar_decode", "E");
  detail::require_finite_vector(y, "mqar_decode", "y");
  using std::sqrt;
  using boost::multiprecision::sqrt;
  std::size_t best = P;
  S best_s(0);
  bool tie = false;
  for (std::size_t j = 0; j < P; ++j) {
    S s(0), nn(0);
    for (std::size_t i = 0; i < E.rows; ++i) {
      s += y[i] * E(i, P + j);
      nn += E(i, P + j) * E(i, P + j);
    }
    require(nn > 0, "mqar_decode: response r_" + std::to_string(j + 1) + " has zero norm");
    if (cosine) s = s / sqrt(nn);
    if (best == P || s > best_s) {
      best = j;
      best_s = s;
      tie = false;
    } else if (s == best_s) {
      tie = true;
    }
  }
  return tie ? P : best;
}

// ---------------------------------------------------------------------------------------------
// coherence (A001-MQAR-ORTHOGONALITY-LIMIT)
// ---------------------------------------------------------------------------------------------

// Maximum coherence max_{i != j} |e_i^T e_j| / (||e_i|| ||e_j||) of the columns of E (d x N, N >= 2,
// no zero column).
template <class S> S max_coherence(const Matrix<S>& E) {
  require(E.cols >= 2, "max_coherence: needs at least two columns");
  detail::require_finite_matrix(E, "max_coherence", "E");
  using std::abs;
  using std::sqrt;
  using boost::multiprecision::abs;
  using boost::multiprecision::sqrt;
  Vector<S> nrm(E.cols, S(0));
  for (std::size_t j = 0; j < E.cols; ++j) {
    for (std::size_t i = 0; i < E.rows; ++i) nrm[j] += E(i, j) * E(i, j);
    require(nrm[j] > 0, "max_coherence: column " + std::to_string(j + 1) + " of E is zero");
    nrm[j] = sqrt(nrm[j]);
  }
  S mu(0);
  for (std::size_t a = 0; a < E.cols; ++a)
    for (std::size_t b = a + 1; b < E.cols; ++b) {
      S g(0);
      for (std::size_t i = 0; i < E.rows; ++i) g += E(i, a) * E(i, b);
      const S c = abs(g) / (nrm[a] * nrm[b]);
      if (c > mu) mu = c;
    }
  return mu;
}

// Welch bound on the maximum coherence of N unit vectors in R^d: sqrt((N - d) / (d (N - 1))) for N > d,
// 0 for N <= d (orthonormal sets exist).
template <class S> S welch_bound(std::size_t N, std::size_t d) {
  require(N >= 2 && d >= 1, "welch_bound: needs N >= 2 and d >= 1");
  using std::sqrt;
  using boost::multiprecision::sqrt;
  if (N <= d) return S(0);
  return sqrt(S(static_cast<double>(N - d)) / S(static_cast<double>(d * (N - 1))));
}

}  // namespace recall::ref
