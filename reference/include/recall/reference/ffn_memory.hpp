// Feed-forward layers, multi-head slicing, sparsity and gating as associative memories (paper A000
// §2.1.2-2.1.4, Eqs. 14, 19-29 and the text after Eq. 31), written from the printed definitions and
// templated on the scalar (mp_t, double, or boost::multiprecision::cpp_rational for the exact checks:
// every function below uses only +, -, *, / and comparisons unless it says otherwise).
//
// Each printed layer has two printed forms, and both are written here as printed, so the claims compare
// the two (neither is derived from the other):
//   A000-FFN-AM    Eq. 14   matrix form W_V^T ReLU(W_K x)   vs  memory sum  sum_i (W_V)_i ReLU((W_K)_i x)
//   A000-SWIGLU-AM Eqs. 28-29 (W_U = W_K)  W_V^T((W_G x) (.) Swish(W_K x))  vs  sum_i v_i g_i(x) Swish(k_i^T x)
//   A000-MOE-FFN   Eq. 24   sum_e g_e(x) sum_{i in Expert(e)} (W_V^(e))_i ReLU((W_K^(e))_i x), gate top-k_top of
//                           router scores W_R x (ties: lower expert index): moe_topk_gates, or moe_softmax_gates
//   A000-MULTIHEAD Eqs. 19-23  per-head loop over the slices [(h-1)d_h+1, h d_h] (head-major), o_t = W_O [o_t1; ...]
//   A000-MOE-ATTN  Eq. 25   o_t = sum_e g_e sum_{i in Expert(e), i <= t} v_i kappa(q_t, k_i), experts = contiguous
//                           blocks of B keys (MoBA); an expert with no causal key contributes 0
//   A000-MOBA-GATE Eqs. 26-27  g_e = 1 iff s_e = <q_t, mean-pool(keys of e)> is among the top k_top scores
//                           (ties: lower block index); V1 no forcing, blocks starting after t excluded, the
//                           current block pooled over its keys <= t; V2 the current block always selected and
//                           the other k_top - 1 chosen among the complete past blocks (public MoBA code)
//   A000-GATED-CONJ text after Eq. 31  o_t = sum_{i<=t} v_i g_i kappa(q_t, k_i), g_i = (W_G x_i)^T x_t
// Matrices are row-major ref::Matrix: W_K, W_V, W_G are m x d (rows = memories), x has d entries; sequences
// are T x d (one token per row).
#pragma once

#include "recall/reference/matrix.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace recall::ref::ffn {

// ---- elementwise maps ------------------------------------------------------------------------------

template <class S> S relu(const S& z) { return z > 0 ? z : S(0); }

// sigma(z) = 1/(1+e^{-z}) for z >= 0, e^z/(1+e^z) otherwise (no overflow of e^{-z}); Swish(z) = z sigma(z)
template <class S> S logistic(const S& z) {
  using std::exp;
  if (z >= 0) return S(1) / (S(1) + S(exp(S(-z))));
  const S e = exp(z);
  return e / (S(1) + e);
}
template <class S> S swish(const S& z) { return z * logistic(z); }

// ---- A000-FFN-AM (Eq. 14) ----------------------------------------------------------------------------

inline void check_weights(std::size_t m1, std::size_t d1, std::size_t m2, std::size_t d2, std::size_t dx, const char* who) {
  require(m1 == m2 && d1 == d2, std::string(who) + ": the weight matrices differ in shape");
  require(d1 == dx, std::string(who) + ": x has " + std::to_string(dx) + " entries, the weights " + std::to_string(d1) + " columns");
}

// matrix form: h = ReLU(W_K x) (m values), FFN(x) = W_V^T h
template <class S> Vector<S> ffn_matrix_form(const Matrix<S>& WK, const Matrix<S>& WV, const Vector<S>& x) {
  check_weights(WK.rows, WK.cols, WV.rows, WV.cols, x.size(), "ffn_matrix_form");
  Vector<S> h = matvec(WK, x.data());
  for (auto& z : h) z = relu(z);
  return matvec(transpose(WV), h.data());
}

// memory form: sum over memories i of the value (W_V)_i (row i, as a column) times kappa = ReLU(k_i^T x)
template <class S> Vector<S> ffn_memory_form(const Matrix<S>& WK, const Matrix<S>& WV, const Vector<S>& x) {
  check_weights(WK.rows, WK.cols, WV.rows, WV.cols, x.size(), "ffn_memory_form");
  Vector<S> out(WV.cols, S(0));
  for (std::size_t i = 0; i < WK.rows; ++i) {
    S kq(0);
    for (std::size_t c = 0; c < WK.cols; ++c) kq += WK(i, c) * x[c];
    const S w = relu(kq);
    for (std::size_t c = 0; c < WV.cols; ++c) out[c] += WV(i, c) * w;
  }
  return out;
}

// ---- A000-SWIGLU-AM (Eqs. 28-29, W_U = W_K) --------------------------------------------------------------

template <class S> Vector<S> swiglu_matrix_form(const Matrix<S>& WK, const Matrix<S>& WG, const Matrix<S>& WV, const Vector<S>& x) {
  check_weights(WK.rows, WK.cols, WV.rows, WV.cols, x.size(), "swiglu_matrix_form");
  check_weights(WK.rows, WK.cols, WG.rows, WG.cols, x.size(), "swiglu_matrix_form");
  const Vector<S> u = matvec(WK, x.data()), g = matvec(WG, x.data());
  Vector<S> h(u.size());
  for (std::size_t i = 0; i < u.size(); ++i) h[i] = g[i] * swish(u[i]);
  return matvec(transpose(WV), h.data());
}

template <class S> Vector<S> swiglu_memory_form(const Matrix<S>& WK, const Matrix<S>& WG, const Matrix<S>& WV, const Vector<S>& x) {
  check_weights(WK.rows, WK.cols, WV.rows, WV.cols, x.size(), "swiglu_memory_form");
  check_weights(WK.rows, WK.cols, WG.rows, WG.cols, x.size(), "swiglu_memory_form");
  Vector<S> out(WV.cols, S(0));
  for (std::size_t i = 0; i < WK.rows; ++i) {
    S kq(0), gi(0);
    for (std::size_t c = 0; c < WK.cols; ++c) kq += WK(i, c) * x[c], gi += WG(i, c) * x[c];
    const S w = gi * swish(kq);  // value v_i weighted by g_i(x) kappa(k_i, x), kappa = Swish
    for (std::size_t c = 0; c < WV.cols; ++c) out[c] += WV(i, c) * w;
  }
  return out;
}

// ---- A000-MOE-FFN (Eq. 24) -------------------------------------------------------------------------------

// indices of the k largest scores, ties broken by the lower index (stable order), k clipped to n
template <class S> std::vector<std::size_t> topk_indices(const Vector<S>& s, std::size_t k) {
  std::vector<std::size_t> idx(s.size());
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return s[a] > s[b]; });
  idx.resize(std::min(k, idx.size()));
  std::sort(idx.begin(), idx.end());
  return idx;
}

// gate values g_e(x) from router scores r = W_R x: the top-k_top indicator (rational-safe)
template <class S> Vector<S> moe_topk_gates(const Matrix<S>& WR, const Vector<S>& x, std::size_t k_top) {
  require(WR.cols == x.size(), "moe_gates: router W_R has " + std::to_string(WR.cols) + " columns, x " + std::to_string(x.size()) + " entries");
  require(k_top >= 1, "moe_gates: k_top must be >= 1");
  const Vector<S> r = matvec(WR, x.data());
  Vector<S> g(r.size(), S(0));
  for (auto e : topk_indices(r, k_top)) g[e] = S(1);
  return g;
}

// the softmax-weighted variant: softmax over the selected scores (max-shifted), 0 elsewhere
template <class S> Vector<S> moe_softmax_gates(const Matrix<S>& WR, const Vector<S>& x, std::size_t k_top) {
  using std::exp;
  const Vector<S> ind = moe_topk_gates(WR, x, k_top), r = matvec(WR, x.data());
  S mx(0);
  bool first = true;
  for (std::size_t e = 0; e < r.size(); ++e)
    if (ind[e] != 0 && (first || r[e] > mx)) mx = r[e], first = false;
  S z(0);
  for (std::size_t e = 0; e < r.size(); ++e)
    if (ind[e] != 0) z += exp(S(r[e] - mx));
  Vector<S> g(r.size(), S(0));
  for (std::size_t e = 0; e < r.size(); ++e)
    if (ind[e] != 0) g[e] = exp(S(r[e] - mx)) / z;
  return g;
}

// Eq. 24: experts e = 0..E-1 with their own (m/E) x d key and value matrices
template <class S>
Vector<S> moe_ffn(const std::vector<Matrix<S>>& WK, const std::vector<Matrix<S>>& WV, const Vector<S>& gates, const Vector<S>& x) {
  require(WK.size() == WV.size() && WK.size() == gates.size() && !WK.empty(), "moe_ffn: expects one gate and one key/value matrix per expert");
  Vector<S> out(WV[0].cols, S(0));
  for (std::size_t e = 0; e < WK.size(); ++e) {
    if (gates[e] == 0) continue;  // an unselected expert is not evaluated (sparse), exactly 0 times its output
    const Vector<S> y = ffn_memory_form(WK[e], WV[e], x);
    require(y.size() == out.size(), "moe_ffn: experts differ in d_v");
    for (std::size_t c = 0; c < y.size(); ++c) out[c] += gates[e] * y[c];
  }
  return out;
}

// ---- kernels of the attention forms ----------------------------------------------------------------------

// kappa(q, k) as a function of q and k (not only of q^T k, so the caller may pass any printed kernel)
template <class S> using KernelFn = std::function<S(const S* q, const S* k, std::size_t n)>;

template <class S> KernelFn<S> linear_kernel() {
  return [](const S* q, const S* k, std::size_t n) { return dot(q, k, n); };
}

// ---- A000-MULTIHEAD (Eqs. 19-23) ------------------------------------------------------------------------

// Per-head loop: head h (0-based) reads columns [h d_h, (h+1) d_h) of q, k and [h d_hv, (h+1) d_hv) of v;
// o_{t,h} = sum_{i<=t} v_{i,h} kappa(q_{t,h}, k_{i,h}); o_t = W_O [o_{t,1}; ...; o_{t,n_h}] (W_O: d x (n_h d_hv);
// an empty W_O returns the concatenation).
template <class S>
Matrix<S> multihead_loop(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, std::size_t nh, const KernelFn<S>& kap,
                         const Matrix<S>& WO = {}) {
  require(nh >= 1, "multihead_loop: n_h must be >= 1");
  require(Q.rows == K.rows && K.rows == V.rows, "multihead_loop: q, k, v differ in length");
  require(Q.cols == K.cols, "multihead_loop: q and k differ in width");
  require(Q.cols % nh == 0 && V.cols % nh == 0, "multihead_loop: the widths are not multiples of n_h = " + std::to_string(nh));
  const std::size_t T = Q.rows, dh = Q.cols / nh, dhv = V.cols / nh;
  Matrix<S> cat(T, V.cols);
  for (std::size_t h = 0; h < nh; ++h)
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t i = 0; i <= t; ++i) {
        const S w = kap(&Q(t, h * dh), &K(i, h * dh), dh);
        for (std::size_t c = 0; c < dhv; ++c) cat(t, h * dhv + c) += V(i, h * dhv + c) * w;
      }
  if (WO.rows == 0) return cat;
  require(WO.cols == V.cols, "multihead_loop: W_O has " + std::to_string(WO.cols) + " columns, n_h d_hv = " + std::to_string(V.cols));
  return matmul(cat, transpose(WO));
}

// ---- A000-MOE-ATTN (Eq. 25) with block experts --------------------------------------------------------

// gate matrix G (T x E): G(t, e) = g_e for query t. Expert e = keys [e B, min((e+1) B, T)); only keys i <= t.
template <class S>
Matrix<S> moe_attention(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, std::size_t B, const Matrix<S>& G, const KernelFn<S>& kap) {
  require(B >= 1, "moe_attention: block size must be >= 1");
  require(Q.rows == K.rows && K.rows == V.rows && Q.cols == K.cols, "moe_attention: q, k, v shapes differ");
  const std::size_t T = Q.rows, E = (T + B - 1) / B;
  require(G.rows == T && G.cols == E, "moe_attention: gate matrix must be T x ceil(T/B) = " + std::to_string(T) + " x " + std::to_string(E));
  Matrix<S> O(T, V.cols);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t e = 0; e < E; ++e) {
      if (G(t, e) == 0) continue;  // an unselected expert is not read (sparse): exactly 0 times its read
      Vector<S> part(V.cols, S(0));  // expert e's memory read: sum_{i in e, i <= t} v_i kappa(q_t, k_i)
      for (std::size_t i = e * B; i < std::min((e + 1) * B, t + 1); ++i) {
        const S w = kap(&Q(t, 0), &K(i, 0), Q.cols);
        for (std::size_t c = 0; c < V.cols; ++c) part[c] += V(i, c) * w;
      }
      for (std::size_t c = 0; c < V.cols; ++c) O(t, c) += G(t, e) * part[c];
    }
  return O;
}

// The production (softmax-normalised) form of the same gated read: o_t = sum_{e: G(t,e) != 0} sum_{i in e, i <= t}
// p_ti v_i, p_ti = exp(scale q_t^T k_i - lse_t) over exactly those keys (log-sum-exp; needs exp/log). A row that
// reads no key is 0. This is "dense masked attention with the gate mask" of the spec's reference column.
template <class S>
Matrix<S> moe_softmax_attention(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, std::size_t B, const Matrix<S>& G, const S& scale) {
  using std::exp;
  require(B >= 1, "moe_softmax_attention: block size must be >= 1");
  require(Q.rows == K.rows && K.rows == V.rows && Q.cols == K.cols, "moe_softmax_attention: q, k, v shapes differ");
  const std::size_t T = Q.rows, E = (T + B - 1) / B;
  require(G.rows == T && G.cols == E, "moe_softmax_attention: gate matrix must be T x ceil(T/B)");
  Matrix<S> O(T, V.cols);
  std::vector<std::size_t> keys;
  Vector<S> x;
  for (std::size_t t = 0; t < T; ++t) {
    keys.clear();
    x.clear();
    for (std::size_t e = 0; e < E; ++e)
      if (G(t, e) != 0)
        for (std::size_t i = e * B; i < std::min((e + 1) * B, t + 1); ++i) keys.push_back(i), x.push_back(scale * dot(&Q(t, 0), &K(i, 0), Q.cols));
    if (keys.empty()) continue;
    S m = x[0];
    for (const S& y : x) m = std::max(m, y);
    S z(0);
    for (const S& y : x) z += exp(S(y - m));
    for (std::size_t j = 0; j < keys.size(); ++j) {
      const S p = exp(S(x[j] - m)) / z;
      for (std::size_t c = 0; c < V.cols; ++c) O(t, c) += p * V(keys[j], c);
    }
  }
  return O;
}

// ---- A000-MOBA-GATE (Eqs. 26-27) -----------------------------------------------------------------------

enum class MobaVariant { v1_no_forcing, v2_force_current };

// T x E indicator gates. Scores s_e = <q_t, mean of the block's keys> (V1: the current block's keys <= t).
template <class S> Matrix<S> moba_gates(const Matrix<S>& Q, const Matrix<S>& K, std::size_t B, std::size_t k_top, MobaVariant var) {
  require(B >= 1 && k_top >= 1, "moba_gates: block size and k_top must be >= 1");
  require(Q.rows == K.rows && Q.cols == K.cols, "moba_gates: q and k shapes differ");
  const std::size_t T = Q.rows, d = Q.cols, E = (T + B - 1) / B;
  Matrix<S> G(T, E);
  // mean of keys [lo, hi) (the mean-pool of Eq. 27)
  auto mean_pool = [&](std::size_t lo, std::size_t hi) {
    Vector<S> mean(d, S(0));
    for (std::size_t i = lo; i < hi; ++i)
      for (std::size_t c = 0; c < d; ++c) mean[c] += K(i, c);
    for (auto& m : mean) m /= S(static_cast<long>(hi - lo));
    return mean;
  };
  std::vector<Vector<S>> full(E);  // the complete blocks' means, pooled once (the same value for every query)
  for (std::size_t e = 0; e < E && (e + 1) * B <= T; ++e) full[e] = mean_pool(e * B, (e + 1) * B);
  for (std::size_t t = 0; t < T; ++t) {
    const std::size_t cur = t / B;
    // candidates and their scores; past blocks are complete, the current one is pooled over its keys <= t
    std::vector<std::size_t> cand;
    Vector<S> score;
    for (std::size_t e = 0; e <= cur; ++e) {
      if (var == MobaVariant::v2_force_current && e == cur) continue;
      const bool complete = (e + 1) * B <= t + 1;
      const Vector<S> mean = complete ? full[e] : mean_pool(e * B, t + 1);
      cand.push_back(e);
      score.push_back(dot(&Q(t, 0), mean.data(), d));
    }
    const std::size_t want = var == MobaVariant::v2_force_current ? k_top - 1 : k_top;
    for (auto j : topk_indices(score, want)) G(t, cand[j]) = S(1);
    if (var == MobaVariant::v2_force_current) G(t, cur) = S(1);
  }
  return G;
}

// ---- A000-GATED-CONJ (text after Eq. 31, reading g_i = (W_G x_i)^T x_t) ---------------------------------

template <class S>
Matrix<S> gated_conj_loop(const Matrix<S>& X, const Matrix<S>& WG, const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V,
                          const KernelFn<S>& kap) {
  require(WG.rows == X.cols && WG.cols == X.cols, "gated_conj_loop: W_G must be d x d with d = width of x");
  require(X.rows == Q.rows && Q.rows == K.rows && K.rows == V.rows && Q.cols == K.cols, "gated_conj_loop: shapes differ");
  const std::size_t T = X.rows, d = X.cols;
  std::vector<Vector<S>> wx(T);  // W_G x_i, the gate's key side, formed once per token
  for (std::size_t i = 0; i < T; ++i) wx[i] = matvec(WG, &X(i, 0));
  Matrix<S> O(T, V.cols);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t i = 0; i <= t; ++i) {
      const S g = dot(wx[i].data(), &X(t, 0), d);  // g_i = (W_G x_i)^T x_t
      const S w = g * kap(&Q(t, 0), &K(i, 0), Q.cols);
      for (std::size_t c = 0; c < V.cols; ++c) O(t, c) += V(i, c) * w;
    }
  return O;
}

// ---- A000-TABLE1: the component table, as tags of the layers implemented above -----------------------------
// Table 1 of the paper: Attention = (kernel Exp, normalisation Yes, multi-head Yes, sparsity None, gating None);
// FFN = (kernel ReLU/SiLU, normalisation None, multi-head None, sparsity MoE, gating SwiGLU). Each implemented
// layer carries the five attributes; the ledger check (proofs_numeric/.../ffn_memories.cpp) probes every tag
// against the layer's behaviour.
struct ComponentTags {
  const char* layer;          // the reference function realising it
  const char* table_row;      // "Attention" or "FFN"
  const char* kernel;         // "exp", "relu", "silu"
  bool normalised;            // weights sum to one (softmax normaliser)
  bool multi_head;
  const char* sparsity;       // "none" or "moe"
  const char* gating;         // "none" or "swiglu"
};
inline const std::vector<ComponentTags>& table1_layers() {
  static const std::vector<ComponentTags> v = {
      {"ref::causal_softmax_attention", "Attention", "exp", true, false, "none", "none"},
      {"ref::ffn::multihead_loop", "Attention", "exp", false, true, "none", "none"},
      {"ref::ffn::ffn_memory_form", "FFN", "relu", false, false, "none", "none"},
      {"ref::ffn::swiglu_memory_form", "FFN", "silu", false, false, "none", "swiglu"},
      {"ref::ffn::moe_ffn", "FFN", "relu", false, false, "moe", "none"},
  };
  return v;
}

}  // namespace recall::ref::ffn
