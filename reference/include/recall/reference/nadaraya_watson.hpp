// Similarity functions, Nadaraya-Watson (locally constant) regression, QKNorm, and the masked /
// online / kernel forms of softmax attention (spec README §3 groups 1 and 2; A001 Vignette 4,
// A004 "Transformers, redux"). Written from the definitions with plain loops; 0-based storage,
// 1-based token numbers in messages. Exponentials of logits go through max-subtraction unless a
// function says it evaluates a printed formula literally (those are meant for mp_t, whose
// exponent range does not overflow).
#pragma once

#include "recall/reference/matrix.hpp"

#include <cstddef>
#include <string>

namespace recall::ref {

namespace nw_detail {
template <class S> S exp_(const S& x) {
  using std::exp;
  using boost::multiprecision::exp;
  return exp(x);
}
template <class S> S log_(const S& x) {
  using std::log;
  using boost::multiprecision::log;
  return log(x);
}
template <class S> S sqrt_(const S& x) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  return sqrt(x);
}
template <class S> void require_finite_rows(const Matrix<S>& X, const char* who, const char* name) {
  for (std::size_t i = 0; i < X.rows; ++i)
    for (std::size_t j = 0; j < X.cols; ++j)
      require(is_finite(X(i, j)), std::string(who) + ": non-finite entry in " + name + " at row " + std::to_string(i + 1) +
                                      ", column " + std::to_string(j + 1));
}
template <class S> void require_positive(const S& x, const char* who, const char* name) {
  require(is_finite(x) && x > 0, std::string(who) + ": " + name + " must be finite and > 0");
}
}  // namespace nw_detail

// A001-SIM-DOTEXP (Eq. 1; Eqs. 44-47): the logit of s_dot,tau(k, q) = exp(k^T q / tau), i.e. k^T q / tau.
template <class S> S log_sim_dot(const S* k, const S* q, std::size_t d, const S& tau) {
  nw_detail::require_positive(tau, "log_sim_dot", "temperature tau");
  return S(dot(k, q, d) / tau);
}

// A001-SIM-DOTEXP: s_dot,tau(k, q) = exp(k^T q / tau), unnormalised (an overflow or underflow to 0
// in the scalar type is an error: use mp_t or the log form).
template <class S> S sim_dot(const S* k, const S* q, std::size_t d, const S& tau) {
  const S s = nw_detail::exp_(log_sim_dot(k, q, d, tau));
  require(is_finite(s) && s > 0, "sim_dot: exp(k^T q / tau) overflows or underflows in this scalar type");
  return s;
}

// A001-SIM-GAUSS: ||k - q||^2 as a sum of squared differences (never |k|^2 + |q|^2 - 2 k^T q).
template <class S> S squared_distance(const S* k, const S* q, std::size_t d) {
  S acc(0), t;
  for (std::size_t i = 0; i < d; ++i) {
    t = k[i] - q[i];
    muladd(acc, t, t);
  }
  return acc;
}

// A001-SIM-GAUSS (Vignette 4, Eq. 51): log s_exp,B(k, q) = -||k - q||^2 / B, B > 0.
template <class S> S log_sim_gauss(const S* k, const S* q, std::size_t d, const S& B) {
  nw_detail::require_positive(B, "log_sim_gauss", "bandwidth B");
  return S(-squared_distance(k, q, d) / B);
}

// A001-SIM-GAUSS: s_exp,B(k, q) = exp(-||k - q||^2 / B).
template <class S> S sim_gauss(const S* k, const S* q, std::size_t d, const S& B) {
  return nw_detail::exp_(log_sim_gauss(k, q, d, B));
}

// Normalised weights from log-weights by max-subtraction (A001-SIM-DOTEXP / -SIM-GAUSS normalised
// use): w_i = exp(l_i - max_j l_j) / sum_j exp(l_j - max_j l_j). -inf entries (masked) get 0.
template <class S> Vector<S> normalized_weights(const Vector<S>& logw) {
  require(!logw.empty(), "normalized_weights: no log-weight");
  bool have = false;
  S m;
  for (std::size_t i = 0; i < logw.size(); ++i) {
    require(is_finite(logw[i]) || is_neg_inf(logw[i]), "normalized_weights: log-weight " + std::to_string(i + 1) + " is NaN or +inf");
    if (is_neg_inf(logw[i])) continue;
    if (!have || logw[i] > m) m = logw[i];
    have = true;
  }
  require(have, "normalized_weights: every log-weight is -inf (an empty row)");
  Vector<S> w(logw.size(), S(0));
  S sum(0);
  for (std::size_t i = 0; i < logw.size(); ++i) {
    if (is_neg_inf(logw[i])) continue;
    w[i] = nw_detail::exp_(S(logw[i] - m));
    sum += w[i];
  }
  for (S& x : w) x /= sum;
  return w;
}

// The same weights evaluated literally, exp(l_i) / sum_j exp(l_j), without max-subtraction
// (A001-SIM-DOTEXP check; meaningful for mp_t, whose exponent range does not overflow).
template <class S> Vector<S> normalized_weights_direct(const Vector<S>& logw) {
  require(!logw.empty(), "normalized_weights_direct: no log-weight");
  Vector<S> w(logw.size());
  S sum(0);
  for (std::size_t i = 0; i < logw.size(); ++i) {
    w[i] = nw_detail::exp_(logw[i]);
    require(is_finite(w[i]), "normalized_weights_direct: exp(l_" + std::to_string(i + 1) + ") overflows");
    sum += w[i];
  }
  require(sum > 0, "normalized_weights_direct: every exp(l_i) underflows to 0");
  for (S& x : w) x /= sum;
  return w;
}

// A001-SOFTMAX-AS-NW (Eq. 50): the weighted objective J(M) = 1/2 sum_{i<=t} s_i ||v_i - M||^2 over
// the first t = s.size() rows of V (M in R^{D_v}; the printed R^{D_k} is a typo).
template <class S> S nw_objective(const Vector<S>& s, const Matrix<S>& V, const S* M) {
  require(s.size() <= V.rows, "nw_objective: more weights than value rows");
  S J(0), r2, d;
  for (std::size_t i = 0; i < s.size(); ++i) {
    r2 = 0;
    for (std::size_t c = 0; c < V.cols; ++c) {
      d = V(i, c) - M[c];
      muladd(r2, d, d);
    }
    muladd(J, s[i], r2);
  }
  return S(J / 2);
}

// A001-SOFTMAX-AS-NW: gradient of J, sum_i s_i (M - v_i) (stationarity residual at the minimiser).
template <class S> Vector<S> nw_gradient(const Vector<S>& s, const Matrix<S>& V, const S* M) {
  require(s.size() <= V.rows, "nw_gradient: more weights than value rows");
  Vector<S> g(V.cols, S(0));
  S d;
  for (std::size_t i = 0; i < s.size(); ++i)
    for (std::size_t c = 0; c < V.cols; ++c) {
      d = M[c] - V(i, c);
      muladd(g[c], s[i], d);
    }
  return g;
}

// A001-SOFTMAX-AS-NW (Eq. 50): the minimiser of J, m_0 = sum_i s_i v_i / sum_j s_j, for weights
// s_i >= 0 with sum_j s_j > 0 (negative, non-finite or all-zero weights are errors).
template <class S> Vector<S> nw_minimizer(const Vector<S>& s, const Matrix<S>& V) {
  require(!s.empty() && s.size() <= V.rows, "nw_minimizer: need 1 <= t <= number of value rows");
  S den(0);
  for (std::size_t i = 0; i < s.size(); ++i) {
    require(is_finite(s[i]) && s[i] >= 0, "nw_minimizer: weight s_" + std::to_string(i + 1) + " is negative or not finite");
    den += s[i];
  }
  require(den > 0, "nw_minimizer: the weights sum to zero (the objective has no unique minimiser)");
  Vector<S> m(V.cols, S(0));
  for (std::size_t i = 0; i < s.size(); ++i)
    for (std::size_t c = 0; c < V.cols; ++c) muladd(m[c], s[i], V(i, c));
  for (S& x : m) x /= den;
  return m;
}

// Causal Nadaraya-Watson attention: y_t = argmin_M 1/2 sum_{i<=t} s(k_i, q_t) ||v_i - M||^2 with the
// similarity given by its logarithm logsim(k, q, d) (exp kernels), weights by max-subtraction
// (A001-SOFTMAX-AS-NW, A001-QKNORM right-hand side, A001-SIM-GAUSS kernels).
template <class S, class LogSim>
Matrix<S> causal_nw_attention(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, LogSim logsim) {
  require(Q.rows == K.rows && K.rows == V.rows && Q.cols == K.cols, "causal_nw_attention: shape mismatch");
  Matrix<S> Y(Q.rows, V.cols);
  for (std::size_t t = 0; t < Q.rows; ++t) {
    Vector<S> l(t + 1);
    for (std::size_t i = 0; i <= t; ++i) l[i] = logsim(K.row(i), Q.row(t), Q.cols);
    const Vector<S> m = nw_minimizer(normalized_weights(l), V);
    for (std::size_t c = 0; c < V.cols; ++c) Y(t, c) = m[c];
  }
  return Y;
}

// A001-QKNORM: rows rescaled to L2 norm `scale` (QKNorm with a learnable scale; scale = 1 is plain
// QKNorm). A zero row has no direction: std::invalid_argument naming the row.
template <class S> Matrix<S> l2_normalize_rows(const Matrix<S>& X, const S& scale, const char* who = "l2_normalize_rows") {
  nw_detail::require_finite_rows(X, who, "input");
  nw_detail::require_positive(scale, who, "scale");
  Matrix<S> Y(X.rows, X.cols);
  for (std::size_t i = 0; i < X.rows; ++i) {
    const S n = nw_detail::sqrt_(dot(X.row(i), X.row(i), X.cols));
    require(n > 0, std::string(who) + ": row " + std::to_string(i + 1) + " is zero and cannot be normalised");
    const S f = scale / n;
    for (std::size_t j = 0; j < X.cols; ++j) mul_into(Y(i, j), X(i, j), f);
  }
  return Y;
}

// A001-F10-SOFTMAX-ONLINE (online/streaming form, per query): state (m, l, a) = (-inf, 0, 0); for each
// key i <= t with logit z_i: m' = max(m, z_i), l' = l e^{m-m'} + e^{z_i-m'}, a' = a e^{m-m'} + e^{z_i-m'} v_i;
// y_t = a / l. The first key is special-cased (no e^{-inf-(-inf)}).
template <class S>
Matrix<S> softmax_attention_online(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const S& scale) {
  require(Q.rows == K.rows && K.rows == V.rows && Q.cols == K.cols, "softmax_attention_online: shape mismatch");
  const std::size_t T = Q.rows, dv = V.cols;
  Matrix<S> Y(T, dv);
  Vector<S> a(dv);
  for (std::size_t t = 0; t < T; ++t) {
    S m, l, z, alpha, p;
    for (std::size_t i = 0; i <= t; ++i) {
      z = scale * dot(Q.row(t), K.row(i), Q.cols);
      require(is_finite(z), "softmax_attention_online: non-finite logit at (" + std::to_string(t + 1) + "," + std::to_string(i + 1) + ")");
      if (i == 0) {  // from the initial state (-inf, 0, 0): m' = z, l' = 1, a' = v
        m = z;
        l = 1;
        for (std::size_t c = 0; c < dv; ++c) a[c] = V(i, c);
        continue;
      }
      const S mn = z > m ? z : m;
      alpha = nw_detail::exp_(S(m - mn));
      p = nw_detail::exp_(S(z - mn));
      l = l * alpha + p;
      for (std::size_t c = 0; c < dv; ++c) {
        scale_inplace(a[c], alpha);
        muladd(a[c], p, V(i, c));
      }
      m = mn;
    }
    for (std::size_t c = 0; c < dv; ++c) Y(t, c) = a[c] / l;
  }
  return Y;
}

// Row-wise softmax of a logit matrix Z (n_q x n_k; -inf entries are masked, a fully masked row is an
// error), max-subtracted (A004-SOFTMAX-ATTN, A001-F10-SOFTMAX-ONLINE masked form).
template <class S> Matrix<S> softmax_rows(const Matrix<S>& Z) {
  Matrix<S> W(Z.rows, Z.cols);
  for (std::size_t t = 0; t < Z.rows; ++t) {
    Vector<S> l(Z.row(t), Z.row(t) + Z.cols);
    const Vector<S> w = normalized_weights(l);
    for (std::size_t j = 0; j < Z.cols; ++j) W(t, j) = w[j];
  }
  return W;
}

// Logits s Q K^T (n_q x n_k) with an optional causal mask C (C_ti = -inf for i > t), the additive
// mask of A001-F10-SOFTMAX-ONLINE's parallel form and A004-SOFTMAX-ATTN (b).
template <class S> Matrix<S> attention_logits(const Matrix<S>& Q, const Matrix<S>& K, const S& scale, bool causal) {
  require(Q.cols == K.cols, "attention_logits: query and key widths differ");
  require(!causal || Q.rows == K.rows, "attention_logits: a causal mask needs as many queries as keys");
  Matrix<S> Z(Q.rows, K.rows);
  for (std::size_t t = 0; t < Q.rows; ++t)
    for (std::size_t i = 0; i < K.rows; ++i) {
      if (causal && i > t) {
        Z(t, i) = neg_inf<S>();
        continue;
      }
      Z(t, i) = scale * dot(Q.row(t), K.row(i), Q.cols);
      require(is_finite(Z(t, i)), "attention_logits: non-finite logit at (" + std::to_string(t + 1) + "," + std::to_string(i + 1) + ")");
    }
  return Z;
}

// A004-SOFTMAX-ATTN (a)/(b) and A001-F10-SOFTMAX-ONLINE parallel form: Y = softmax_row(s Q K^T + C) V,
// C = 0 (full) or the causal -inf mask.
template <class S>
Matrix<S> softmax_attention_masked(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const S& scale, bool causal) {
  require(K.rows == V.rows, "softmax_attention_masked: keys and values differ in number");
  return matmul(softmax_rows(attention_logits(Q, K, scale, causal)), V);
}

// A004-EQ12-SOFTMAX-KERNEL, Eq. (12) evaluated literally: y_i = sum_{j<=i} v_j kappa(k_j, q_i) /
// sum_{j'<=i} kappa(k_j', q_i), kappa(k, q) = exp(k^T q / tau), each kernel value formed individually
// (no max-subtraction; for mp_t). A kernel value that overflows or underflows to 0 is an error.
// kappa_out (optional, n x n, lower triangle) receives the kernel values.
template <class S>
Matrix<S> softmax_kernel_attention_literal(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const S& tau,
                                           Matrix<S>* kappa_out = nullptr) {
  require(Q.rows == K.rows && K.rows == V.rows && Q.cols == K.cols, "softmax_kernel_attention_literal: shape mismatch");
  const std::size_t n = Q.rows;
  if (kappa_out) *kappa_out = Matrix<S>(n, n);
  Matrix<S> Y(n, V.cols);
  for (std::size_t i = 0; i < n; ++i) {
    Vector<S> num(V.cols, S(0));
    S den(0);
    for (std::size_t j = 0; j <= i; ++j) {
      const S kap = sim_dot(K.row(j), Q.row(i), Q.cols, tau);
      if (kappa_out) (*kappa_out)(i, j) = kap;
      den += kap;
      for (std::size_t c = 0; c < V.cols; ++c) muladd(num[c], kap, V(j, c));
    }
    for (std::size_t c = 0; c < V.cols; ++c) Y(i, c) = num[c] / den;
  }
  return Y;
}

}  // namespace recall::ref
