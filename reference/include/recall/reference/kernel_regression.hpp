// Kernel (ridgeless) regression memory of spec A001 §4 Vignette 4, Eqs. (42)-(44) (README §3 group 16):
// the kernels (exponential exp(x^T y / tau) with default tau = sqrt(D_k), Gaussian exp(-||x - y||^2 / B),
// polynomial (1 + x^T y)^p with its explicit monomial feature map), the Gram matrix G_t and kernel vector,
// the batch prediction V_t^T G_t^{-1} k(K_t, q) through a Cholesky factorisation, kernel ridge
// V_t^T (G_t + mu I)^{-1} k(K_t, q), and the incremental Cholesky factor of F11 (one bordered row per
// key, Schur complement c - l^T l; a non-positive one aborts, naming t).
//
// The kernel k(., .) of the paper is written kernel_value here (the letter k is the key, spec C5).
// Plain loops, templated on the scalar; keys and values are rows (K: T x D_k, V: T x D_v), t is the
// 1-based prefix length. Bad input throws std::invalid_argument naming it.
#pragma once

#include "recall/reference/least_squares.hpp"
#include "recall/reference/matrix.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace recall::ref {

enum class KernelKind { exponential, gaussian, polynomial };

// A kernel and its parameter: exponential: tau (0 = sqrt(D_k), Eq. 44); gaussian: bandwidth B > 0;
// polynomial: degree p >= 1 (scale unused).
struct Kernel {
  KernelKind kind = KernelKind::exponential;
  double scale = 0;
  int degree = 2;
};

inline const char* kernel_kind_name(KernelKind k) {
  switch (k) {
    case KernelKind::exponential: return "exponential";
    case KernelKind::gaussian: return "gaussian";
    case KernelKind::polynomial: return "polynomial";
  }
  return "?";
}

namespace kr_detail {
template <class S> S exp_(const S& x) {
  using std::exp;
  using boost::multiprecision::exp;
  return exp(x);
}
template <class S> S sqrt_(const S& x) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  return sqrt(x);
}
template <class S> void require_finite_vec(const S* x, std::size_t d, const std::string& who, const std::string& name) {
  for (std::size_t j = 0; j < d; ++j)
    require(is_finite(x[j]), who + ": non-finite entry in " + name + " at position " + std::to_string(j + 1));
}
template <class S> void require_finite_rows(const Matrix<S>& X, std::size_t rows, const std::string& who, const std::string& name) {
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < X.cols; ++j)
      require(is_finite(X(i, j)), who + ": non-finite entry in " + name + " at row " + std::to_string(i + 1) + ", column " + std::to_string(j + 1));
}
inline void check_kernel(const Kernel& k, const std::string& who) {
  switch (k.kind) {
    case KernelKind::exponential:
      require(k.scale == 0 || (k.scale > 0 && k.scale < 1e308), who + ": exponential kernel temperature tau must be > 0 (or 0 for sqrt(D_k))");
      break;
    case KernelKind::gaussian: require(k.scale > 0 && k.scale < 1e308, who + ": Gaussian kernel bandwidth B must be finite and > 0"); break;
    case KernelKind::polynomial: require(k.degree >= 1, who + ": polynomial kernel degree p must be >= 1"); break;
  }
}
template <class S> void check_prefix(const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const std::string& who) {
  require(K.rows == V.rows, who + ": K and V must have the same number of rows (tokens)");
  require(t >= 1 && t <= K.rows, who + ": prefix length t = " + std::to_string(t) + " is outside 1.." + std::to_string(K.rows));
  require_finite_rows(K, t, who, "K");
  require_finite_rows(V, t, who, "V");
}
}  // namespace kr_detail

// A001-KERNEL-REGRESSION kernels: exponential exp(x^T y / tau) (Eq. 44, tau = sqrt(D_k) by default), Gaussian
// exp(-||x - y||^2 / B) (A001-SIM-GAUSS, squared distance as a sum of squared differences), polynomial (1 + x^T y)^p.
template <class S> S kernel_value(const Kernel& kern, const S* x, const S* y, std::size_t d) {
  kr_detail::check_kernel(kern, "kernel_value");
  switch (kern.kind) {
    case KernelKind::exponential: {
      const S tau = kern.scale > 0 ? S(kern.scale) : kr_detail::sqrt_(S(static_cast<double>(d)));
      return kr_detail::exp_(S(dot(x, y, d) / tau));
    }
    case KernelKind::gaussian: {
      S acc(0);
      for (std::size_t j = 0; j < d; ++j) {
        const S e = x[j] - y[j];
        muladd(acc, e, e);
      }
      return kr_detail::exp_(S(-acc / S(kern.scale)));
    }
    case KernelKind::polynomial: {
      const S base = S(1) + dot(x, y, d);
      S out(1);
      for (int m = 0; m < kern.degree; ++m) out *= base;
      return out;
    }
  }
  throw std::invalid_argument("kernel_value: unknown kernel");
}
// A001-KERNEL-REGRESSION: Gram matrix G_t = [k(k_i, k_j)]_{i,j<=t} (t x t).
template <class S> Matrix<S> kernel_gram(const Kernel& kern, const Matrix<S>& K, std::size_t t) {
  require(t <= K.rows, "kernel_gram: prefix length t exceeds the number of keys");
  kr_detail::require_finite_rows(K, t, "kernel_gram", "K");
  Matrix<S> G(t, t);
  for (std::size_t i = 0; i < t; ++i)
    for (std::size_t j = 0; j < t; ++j) G(i, j) = kernel_value(kern, K.row(i), K.row(j), K.cols);
  return G;
}
// A001-KERNEL-REGRESSION: kernel vector k(K_t, q) = [k(k_i, q)]_{i<=t}.
template <class S> Vector<S> kernel_vector(const Kernel& kern, const Matrix<S>& K, std::size_t t, const S* q) {
  require(t <= K.rows, "kernel_vector: prefix length t exceeds the number of keys");
  kr_detail::require_finite_vec(q, K.cols, "kernel_vector", "q");
  Vector<S> kv(t);
  for (std::size_t i = 0; i < t; ++i) kv[i] = kernel_value(kern, K.row(i), q, K.cols);
  return kv;
}

// ---- polynomial kernel: explicit feature map ------------------------------------------------------------

// A001-KERNEL-REGRESSION (ii): D_phi = C(D_k + p, p), the number of monomials of degree <= p in D_k variables.
inline std::size_t polynomial_feature_dim(std::size_t d, int p) {
  std::size_t c = 1;
  for (int m = 1; m <= p; ++m) c = c * (d + static_cast<std::size_t>(m)) / static_cast<std::size_t>(m);
  return c;
}
// A001-KERNEL-REGRESSION (ii): phi(x) with phi(x)^T phi(y) = (1 + x^T y)^p: with x_0 = 1, one feature per
// multi-index alpha in N^{D_k + 1}, |alpha| = p: phi_alpha(x) = sqrt(p! / prod_j alpha_j!) prod_j x_j^alpha_j
// (multinomial theorem). Multi-indices in lexicographic order of (alpha_1, ..., alpha_{D_k}) descending.
template <class S> Vector<S> polynomial_features(const S* x, std::size_t d, int p) {
  require(p >= 1, "polynomial_features: degree p must be >= 1");
  kr_detail::require_finite_vec(x, d, "polynomial_features", "x");
  Vector<S> out;
  out.reserve(polynomial_feature_dim(d, p));
  Vector<S> fact(static_cast<std::size_t>(p) + 1, S(1));  // exact factorials 0!..p!
  for (int i = 2; i <= p; ++i) fact[static_cast<std::size_t>(i)] = fact[static_cast<std::size_t>(i - 1)] * S(i);
  std::vector<int> alpha(d, 0);
  // alpha_1..alpha_d with sum <= p, each position from its largest value down; alpha_0 = p - sum
  auto rec = [&](auto&& self, std::size_t j, int left) -> void {
    if (j == d) {
      S denom = fact[static_cast<std::size_t>(left)], mono(1);
      for (std::size_t i = 0; i < d; ++i) {
        denom *= fact[static_cast<std::size_t>(alpha[i])];
        for (int e = 0; e < alpha[i]; ++e) mono *= x[i];
      }
      out.push_back(kr_detail::sqrt_(S(fact[static_cast<std::size_t>(p)] / denom)) * mono);
      return;
    }
    for (int a = left; a >= 0; --a) {
      alpha[j] = a;
      self(self, j + 1, left - a);
    }
    alpha[j] = 0;
  };
  rec(rec, 0, p);
  return out;
}
// Row-wise polynomial features of the first t rows of K (t x D_phi).
template <class S> Matrix<S> polynomial_feature_rows(const Matrix<S>& K, std::size_t t, int p) {
  require(t <= K.rows, "polynomial_feature_rows: prefix length t exceeds the number of keys");
  const std::size_t D = polynomial_feature_dim(K.cols, p);
  Matrix<S> P(t, D);
  for (std::size_t i = 0; i < t; ++i) {
    const Vector<S> f = polynomial_features(K.row(i), K.cols, p);
    require(f.size() == D, "polynomial_feature_rows: feature dimension mismatch");
    for (std::size_t c = 0; c < D; ++c) P(i, c) = f[c];
  }
  return P;
}

// ---- Cholesky and the batch prediction (Eq. 43) -----------------------------------------------------------

// Lower Cholesky factor L of a symmetric positive definite G = L L^T (row by row). A pivot that is not
// positive is an error naming its 1-based index.
template <class S> Matrix<S> gram_cholesky_lower(const Matrix<S>& G, const char* who = "gram_cholesky_lower") {
  require(G.rows == G.cols, std::string(who) + ": the matrix must be square");
  kr_detail::require_finite_rows(G, G.rows, who, "the matrix");
  const std::size_t n = G.rows;
  Matrix<S> L(n, n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      S u = G(i, j);
      for (std::size_t k = 0; k < j; ++k) u -= L(i, k) * L(j, k);
      L(i, j) = u / L(j, j);
    }
    S s = G(i, i);
    for (std::size_t k = 0; k < i; ++k) s -= L(i, k) * L(i, k);
    require(s > S(0), std::string(who) + ": the matrix is not positive definite (pivot " + std::to_string(i + 1) + " is not positive)");
    L(i, i) = kr_detail::sqrt_(s);
  }
  return L;
}
// V_t^T a for a weight vector a of length t (D_v).
template <class S> Vector<S> kernel_weighted_values(const Matrix<S>& V, const Vector<S>& a) {
  require(a.size() <= V.rows, "kernel_weighted_values: more weights than values");
  Vector<S> m(V.cols, S(0));
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t c = 0; c < V.cols; ++c) muladd(m[c], a[i], V(i, c));
  return m;
}
// A001-KERNEL-REGRESSION Eq. (43): m_{k,t}(q) = V_t^T G_t^{-1} k(K_t, q) through the Cholesky factor of G_t
// (G_t not positive definite, e.g. exactly repeated keys: std::invalid_argument).
template <class S> Vector<S> kernel_regression_predict(const Kernel& kern, const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S* q) {
  kr_detail::check_prefix(K, V, t, "kernel_regression_predict");
  const Matrix<S> L = gram_cholesky_lower(kernel_gram(kern, K, t), "kernel_regression_predict: Gram G_t");
  return kernel_weighted_values(V, cholesky_solve(L, kernel_vector(kern, K, t, q)));
}
// A001-KERNEL-REGRESSION (iii): kernel ridge V_t^T (G_t + mu I)^{-1} k(K_t, q), mu >= 0 (mu = 0: Eq. 43).
template <class S>
Vector<S> kernel_ridge_predict(const Kernel& kern, const Matrix<S>& K, const Matrix<S>& V, std::size_t t, const S* q, const S& mu) {
  kr_detail::check_prefix(K, V, t, "kernel_ridge_predict");
  require(is_finite(mu) && mu >= S(0), "kernel_ridge_predict: ridge mu must be finite and >= 0");
  Matrix<S> G = kernel_gram(kern, K, t);
  for (std::size_t i = 0; i < t; ++i) G(i, i) += mu;
  const Matrix<S> L = gram_cholesky_lower(G, "kernel_ridge_predict: G_t + mu I");
  return kernel_weighted_values(V, cholesky_solve(L, kernel_vector(kern, K, t, q)));
}

// ---- A001-F11-KERNEL-INCREMENTAL ----------------------------------------------------------------------------

// A001-F11-KERNEL-INCREMENTAL: the Cholesky factor of G_t maintained one bordered row per key: with
// g = k(K_{t-1}, k_t), c = k(k_t, k_t), solve L_{t-1} l = g, sigma = sqrt(c - l^T l) (Schur complement) and
// L_t = [[L_{t-1}, 0], [l^T, sigma]]; prediction V_t^T L_t^{-T} L_t^{-1} k(K_t, q). O(t^2) per key.
template <class S> class IncrementalKernelRegression {
 public:
  IncrementalKernelRegression(const Kernel& kern, std::size_t dk, std::size_t dv) : kern_(kern), dk_(dk), dv_(dv) {
    kr_detail::check_kernel(kern, "IncrementalKernelRegression");
    require(dk >= 1 && dv >= 1, "IncrementalKernelRegression: D_k and D_v must be >= 1");
  }
  // Append the pair (k_t, v_t). A Schur complement c - l^T l <= 0 (G_t not positive definite at this
  // precision, e.g. a repeated or near-duplicate key) throws std::invalid_argument naming t; the state is
  // then unchanged. *schur (optional) receives c - l^T l.
  void add(const S* k, const S* v, S* schur = nullptr) {
    const std::size_t t = keys_.size() + 1;
    kr_detail::require_finite_vec(k, dk_, "IncrementalKernelRegression::add", "key k_" + std::to_string(t));
    kr_detail::require_finite_vec(v, dv_, "IncrementalKernelRegression::add", "value v_" + std::to_string(t));
    Vector<S> l(t - 1);
    for (std::size_t i = 0; i + 1 < t; ++i) {
      S u = kernel_value(kern_, keys_[i].data(), k, dk_);
      for (std::size_t j = 0; j < i; ++j) u -= rows_[i][j] * l[j];
      l[i] = u / rows_[i][i];
    }
    S s = kernel_value(kern_, k, k, dk_);
    for (std::size_t j = 0; j + 1 < t; ++j) s -= l[j] * l[j];
    if (schur) *schur = s;
    require(s > S(0), "IncrementalKernelRegression::add: the Schur complement c - l^T l of key t = " + std::to_string(t) +
                          " is not positive (G_t is not positive definite at this precision)");
    l.push_back(kr_detail::sqrt_(s));
    rows_.push_back(std::move(l));
    keys_.emplace_back(k, k + dk_);
    values_.emplace_back(v, v + dv_);
  }
  std::size_t size() const { return keys_.size(); }
  // The factor L_t (t x t, lower triangular).
  Matrix<S> factor() const {
    const std::size_t t = rows_.size();
    Matrix<S> L(t, t);
    for (std::size_t i = 0; i < t; ++i)
      for (std::size_t j = 0; j <= i; ++j) L(i, j) = rows_[i][j];
    return L;
  }
  // m_{k,t}(q) = V_t^T L_t^{-T} L_t^{-1} k(K_t, q) (t >= 1).
  Vector<S> predict(const S* q) const {
    const std::size_t t = rows_.size();
    require(t >= 1, "IncrementalKernelRegression::predict: no pairs stored");
    kr_detail::require_finite_vec(q, dk_, "IncrementalKernelRegression::predict", "q");
    Vector<S> b(t);
    for (std::size_t i = 0; i < t; ++i) b[i] = kernel_value(kern_, keys_[i].data(), q, dk_);
    for (std::size_t i = 0; i < t; ++i) {
      for (std::size_t k = 0; k < i; ++k) b[i] -= rows_[i][k] * b[k];
      b[i] /= rows_[i][i];
    }
    for (std::size_t i = t; i-- > 0;) {
      for (std::size_t k = i + 1; k < t; ++k) b[i] -= rows_[k][i] * b[k];
      b[i] /= rows_[i][i];
    }
    Vector<S> m(dv_, S(0));
    for (std::size_t i = 0; i < t; ++i)
      for (std::size_t c = 0; c < dv_; ++c) muladd(m[c], b[i], values_[i][c]);
    return m;
  }
  // Numbers held by the memory: the factor (t(t+1)/2), keys (t D_k) and values (t D_v).
  std::size_t state_numbers() const {
    const std::size_t t = rows_.size();
    return t * (t + 1) / 2 + t * (dk_ + dv_);
  }

 private:
  Kernel kern_;
  std::size_t dk_, dv_;
  std::vector<Vector<S>> rows_, keys_, values_;
};

}  // namespace recall::ref
