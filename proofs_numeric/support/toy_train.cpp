// A000-TOY-TRAIN reproduction harness (see toy_train.hpp): Listing 2's one-layer DeltaFormer, its
// hand-written backward pass, transformers.AdamW with the linear schedule, and the length curriculum.
// Dense per-sequence products go through Eigen (row-major, tokens are rows); the u-solve and its
// adjoint through Eigen's unit-lower triangular solves, which read only the strictly lower part.
#include "toy_train.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace recall::toy {

const char* k1_name(ToyK1 k) {
  switch (k) {
    case ToyK1::linear: return "linear";
    case ToyK1::round: return "round";
    case ToyK1::exp: return "exp";
    case ToyK1::softmax_code: return "softmax(code)";
    case ToyK1::softmax_eq94: return "softmax(eq94)";
    case ToyK1::relu: return "relu";
  }
  return "?";
}
const char* k2_name(ToyK2 k) {
  switch (k) {
    case ToyK2::linear: return "linear";
    case ToyK2::round: return "round";
    case ToyK2::softmax: return "softmax";
    case ToyK2::relu: return "relu";
  }
  return "?";
}
const char* precision_name(Precision p) { return p == Precision::fp32 ? "fp32" : "bf16"; }

void ModelShape::validate() const {
  if (vocab < 1) throw std::invalid_argument("ModelShape: vocab must be >= 1");
  if (dim < 1 || hq < 1 || hkv < 1) throw std::invalid_argument("ModelShape: dim, hq and hkv must be >= 1");
  if (dim % hq != 0) throw std::invalid_argument("ModelShape: dim must be divisible by the number of q-heads hq");
  if (hq % hkv != 0) throw std::invalid_argument("ModelShape: hq must be divisible by the number of kv-heads hkv");
  if (!std::isfinite(rope_base) || !(rope_base > 0))
    throw std::invalid_argument("ModelShape: rope_base must be finite and > 0, got " + std::to_string(rope_base));
}

Layout::Layout(const ModelShape& m) {
  m.validate();
  const std::size_t d = m.dim, kvd = m.kvd();
  std::size_t o = 0;
  auto take = [&](std::size_t n) {
    const std::size_t r = o;
    o += n;
    return r;
  };
  emb = take(m.vocab * d);
  Wq = take(d * d), bq = take(d);
  Ww = take(d * d), bw = take(d);
  Wk = take(kvd * d), bk = take(kvd);
  Wv = take(kvd * d), bv = take(kvd);
  Wo = take(d * d), bo = take(d);
  w_weight = take(m.hq);
  alpha = take(1), beta = take(1);
  lm = take(m.vocab * d);
  size = o;
  d_model = d;
}

std::string Layout::name_of(std::size_t i) const {
  struct T {
    const char* n;
    std::size_t off, cols;
  };
  const std::size_t dim = d_model;  // cols of the row-major tensors (0: vector)
  const T t[] = {{"E", emb, dim},   {"Wq", Wq, dim}, {"bq", bq, 0}, {"Ww", Ww, dim}, {"bw", bw, 0},
                 {"Wk", Wk, dim},   {"bk", bk, 0},   {"Wv", Wv, dim}, {"bv", bv, 0}, {"Wo", Wo, dim},
                 {"bo", bo, 0},     {"w_weight", w_weight, 0}, {"alpha", alpha, 0}, {"beta", beta, 0},
                 {"Wlm", lm, dim}};
  const std::size_t nt = sizeof(t) / sizeof(t[0]);
  for (std::size_t j = nt; j-- > 0;)
    if (i >= t[j].off) {
      const std::size_t r = i - t[j].off;
      std::ostringstream s;
      if (t[j].cols) s << t[j].n << "[" << r / t[j].cols + 1 << "," << r % t[j].cols + 1 << "]";
      else s << t[j].n << "[" << r + 1 << "]";
      return s.str();
    }
  return "?";
}

// ---- initialisation ------------------------------------------------------------------------------
template <class S> Params<S> init_params(const ModelShape& m, std::mt19937_64& rng) {
  const Layout L(m);
  Params<S> P;
  P.shape = m;
  P.p.assign(L.size, S(0));
  std::normal_distribution<double> N(0.0, 1.0);
  const double bd = 1.0 / std::sqrt(double(m.dim));  // every Linear here has fan_in = dim
  std::uniform_real_distribution<double> Uw(-bd, bd);
  auto fill_n = [&](std::size_t off, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) P.p[off + i] = S(N(rng));
  };
  auto fill_u = [&](std::size_t off, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) P.p[off + i] = S(Uw(rng));
  };
  const std::size_t d = m.dim, kvd = m.kvd();
  fill_n(L.emb, m.vocab * d);
  fill_u(L.Wq, d * d), fill_u(L.bq, d);
  fill_u(L.Wk, kvd * d), fill_u(L.bk, kvd);
  fill_u(L.Wv, kvd * d), fill_u(L.bv, kvd);
  fill_u(L.Wo, d * d), fill_u(L.bo, d);
  fill_u(L.Ww, d * d), fill_u(L.bw, d);  // DeltaAttention creates w_proj after the parent's projections
  fill_n(L.w_weight, m.hq);
  P.p[L.alpha] = S(1);
  P.p[L.beta] = S(1);
  fill_u(L.lm, m.vocab * d);
  return P;
}

template <class S> ref::ToyAttentionParams<S> to_reference(const Params<S>& P) {
  const ModelShape& m = P.shape;
  const Layout L(m);
  const std::size_t d = m.dim, kvd = m.kvd();
  ref::ToyAttentionParams<S> r;
  r.dim = d, r.hq = m.hq, r.hkv = m.hkv;
  auto mat = [&](std::size_t off, std::size_t rows) {
    ref::Matrix<S> M(rows, d);
    for (std::size_t i = 0; i < rows * d; ++i) M.a[i] = P.p[off + i];
    return M;
  };
  auto vec = [&](std::size_t off, std::size_t n) { return ref::Vector<S>(P.p.begin() + off, P.p.begin() + off + n); };
  r.Wq = mat(L.Wq, d), r.Ww = mat(L.Ww, d), r.Wk = mat(L.Wk, kvd), r.Wv = mat(L.Wv, kvd), r.Wo = mat(L.Wo, d);
  r.bq = vec(L.bq, d), r.bw = vec(L.bw, d), r.bk = vec(L.bk, kvd), r.bv = vec(L.bv, kvd), r.bo = vec(L.bo, d);
  r.w_weight = vec(L.w_weight, m.hq);
  r.alpha = P.p[L.alpha], r.beta = P.p[L.beta];
  r.rope_base = m.rope ? S(m.rope_base) : S(0);
  return r;
}

// ---- batches --------------------------------------------------------------------------------------
Batch make_batch(const std::vector<ref::S5Sample>& data) {
  Batch b;
  b.B = data.size();
  b.T = data.empty() ? 0 : data[0].input_ids.size();
  for (const auto& s : data) {
    if (s.input_ids.size() != b.T || s.labels.size() != b.T)
      throw std::invalid_argument("make_batch: every sequence needs the same length T for input_ids and labels");
    b.ids.insert(b.ids.end(), s.input_ids.begin(), s.input_ids.end());
    b.labels.insert(b.labels.end(), s.labels.begin(), s.labels.end());
  }
  return b;
}

void validate_batch(const ModelShape& m, const Batch& b) {
  if (b.B == 0 || b.T == 0) throw std::invalid_argument("batch: B and T must be >= 1");
  if (b.ids.size() != b.B * b.T) throw std::invalid_argument("batch: ids must have B*T entries");
  if (b.labels.size() != b.B * b.T) throw std::invalid_argument("batch: labels must have B*T entries");
  for (std::size_t i = 0; i < b.ids.size(); ++i) {
    if (b.ids[i] < 0 || static_cast<std::size_t>(b.ids[i]) >= m.vocab)
      throw std::invalid_argument("batch: input id " + std::to_string(b.ids[i]) + " at position " + std::to_string(i + 1) +
                                  " outside [0, vocab = " + std::to_string(m.vocab) + ")");
    if (b.labels[i] < 0 || static_cast<std::size_t>(b.labels[i]) >= m.vocab)
      throw std::invalid_argument("batch: label " + std::to_string(b.labels[i]) + " at position " + std::to_string(i + 1) +
                                  " outside the logits [0, vocab = " + std::to_string(m.vocab) + ")");
  }
}

namespace {

template <class S> void validate_params(const Params<S>& P) {
  P.shape.validate();
  const Layout L(P.shape);
  if (P.p.size() != L.size)
    throw std::invalid_argument("params: " + std::to_string(P.p.size()) + " entries, the shape needs " + std::to_string(L.size));
  for (std::size_t i = 0; i < P.p.size(); ++i)
    if (!std::isfinite(static_cast<double>(P.p[i]))) throw std::invalid_argument("params: non-finite entry " + L.name_of(i));
}

template <class S> using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class S> using CMap = Eigen::Map<const Mat<S>>;
template <class S> using MMap = Eigen::Map<Mat<S>>;
template <class S> using CVec = Eigen::Map<const Eigen::Matrix<S, 1, Eigen::Dynamic>>;
template <class S> using MVec = Eigen::Map<Eigen::Matrix<S, 1, Eigen::Dynamic>>;

// Activations of one sequence (reused across sequences of a thread).
template <class S> struct Net {
  Mat<S> X, Qp, Wp, Kp, Vp, H, Y, Z, Pr;  // Z logits, Pr probabilities
  std::vector<Mat<S>> a, k1v, Aw, U, sc, P;  // per q-head: a (write scores), k1v (kappa1), sc, P; per kv: Aw, U
  // backward scratch
  Mat<S> dX, dQp, dWp, dKp, dVp, dH, dY, dZ, dU, dR, G, dA, dM;
  // RoPE (A000-EXP-ROPE): cos / sin of pos * theta_i (T x r/2), cached for (T, base)
  Mat<S> rc, rs;
  std::size_t rope_T = 0;
  double rope_b = 0;
};

// RoPE tables: angle pos * base^(-2i/r) evaluated in double (as ref::rope_rotate<double>), cos and sin
// rounded to S; r = 2 floor(hd/2).
template <class S> void rope_tables(const ModelShape& m, std::size_t T, Net<S>& n) {
  const std::size_t r = 2 * (m.hd() / 2), half = r / 2;
  if (n.rope_T == T && n.rope_b == m.rope_base && std::size_t(n.rc.cols()) == half) return;
  n.rc.resize(T, half), n.rs.resize(T, half);
  for (std::size_t i = 0; i < half; ++i) {
    const double th = std::pow(m.rope_base, double(-2 * static_cast<long long>(i)) / double(static_cast<long long>(r)));
    for (std::size_t t = 0; t < T; ++t) {
      const double a = double(static_cast<long long>(t)) * th;
      n.rc(t, i) = S(std::cos(a)), n.rs(t, i) = S(std::sin(a));
    }
  }
  n.rope_T = T, n.rope_b = m.rope_base;
}
// Rotates every head of every row t of X by R(t) (transpose: R(t)^T), rotate_half pairing (i, i + r/2).
template <class S> void rope_apply(Mat<S>& X, std::size_t hd, const Net<S>& n, bool transpose) {
  const std::size_t half = hd / 2, heads = std::size_t(X.cols()) / hd;
  for (Eigen::Index t = 0; t < X.rows(); ++t)
    for (std::size_t h = 0; h < heads; ++h)
      for (std::size_t i = 0; i < half; ++i) {
        const S c = n.rc(t, i), s = transpose ? S(-n.rs(t, i)) : n.rs(t, i);
        S& x = X(t, h * hd + i);
        S& y = X(t, h * hd + i + half);
        const S a = x, b = y;
        x = a * c - b * s;
        y = a * s + b * c;
      }
}

template <class S> S k1_apply(ToyK1 k, S x) {
  switch (k) {
    case ToyK1::linear: return x;
    case ToyK1::round: return std::nearbyint(x);  // torch.round: half to even (default rounding mode)
    case ToyK1::exp: return std::exp(x);
    case ToyK1::relu: return x > S(0) ? x : S(0);
    default: return x;
  }
}
template <class S> S k2_apply(ToyK2 k, S x) {
  switch (k) {
    case ToyK2::linear: return x;
    case ToyK2::round: return std::nearbyint(x);
    case ToyK2::relu: return x > S(0) ? x : S(0);
    default: return x;
  }
}

// Forward of one sequence; returns the sum of the token cross-entropies (double) and counts correct.
template <class S>
double seq_forward(const Params<S>& Pm, const Layout& L, const int* ids, const int* labels, std::size_t T, Net<S>& n,
                   std::size_t& correct) {
  const ModelShape& m = Pm.shape;
  const std::size_t d = m.dim, hd = m.hd(), kvd = m.kvd(), G = m.hq / m.hkv, V = m.vocab;
  const S* p = Pm.p.data();
  const S inv = S(1) / std::sqrt(S(hd));
  n.X.resize(T, d);
  for (std::size_t t = 0; t < T; ++t) n.X.row(t) = CVec<S>(p + L.emb + std::size_t(ids[t]) * d, d);
  auto affine = [&](Mat<S>& out, std::size_t Woff, std::size_t boff, std::size_t rows) {
    out.noalias() = n.X * CMap<S>(p + Woff, rows, d).transpose();
    out.rowwise() += CVec<S>(p + boff, rows);
  };
  affine(n.Qp, L.Wq, L.bq, d);
  affine(n.Wp, L.Ww, L.bw, d);
  affine(n.Kp, L.Wk, L.bk, kvd);
  affine(n.Vp, L.Wv, L.bv, kvd);
  if (m.rope) {  // A000-EXP-ROPE: q, w, k rotated at their positions (v not)
    rope_tables(m, T, n);
    rope_apply(n.Qp, hd, n, false), rope_apply(n.Wp, hd, n, false), rope_apply(n.Kp, hd, n, false);
  }
  n.a.resize(m.hq), n.k1v.resize(m.hq), n.sc.resize(m.hq), n.P.resize(m.hq), n.Aw.resize(m.hkv), n.U.resize(m.hkv);
  for (std::size_t g = 0; g < m.hkv; ++g) n.Aw[g].setZero(T, T);
  // write matrices: a^h = W^h K^T / sqrt(hd) (t < s), kappa1, * w_weight_h / G summed over the group
  for (std::size_t h = 0; h < m.hq; ++h) {
    const std::size_t g = h / G;
    Mat<S>& a = n.a[h];
    a.noalias() = (n.Wp.middleCols(h * hd, hd) * n.Kp.middleCols(g * hd, hd).transpose()) * inv;
    Mat<S>& k = n.k1v[h];
    k.setZero(T, T);
    if (m.k1 == ToyK1::softmax_code || m.k1 == ToyK1::softmax_eq94) {
      for (std::size_t s = 0; s < T; ++s) {
        if (m.k1 == ToyK1::softmax_eq94 && s == 0) continue;  // empty row
        S mx = m.k1 == ToyK1::softmax_code ? S(0) : a(s, 0);  // code: the zero-filled masked entries take part
        for (std::size_t t = 0; t < s; ++t) mx = std::max(mx, a(s, t));
        S den = m.k1 == ToyK1::softmax_code ? S(T - s) * std::exp(-mx) : S(0);  // T - s masked zeros (t >= s)
        for (std::size_t t = 0; t < s; ++t) den += (k(s, t) = std::exp(a(s, t) - mx));
        for (std::size_t t = 0; t < s; ++t) k(s, t) /= den;
      }
    } else {
      for (std::size_t s = 0; s < T; ++s)
        for (std::size_t t = 0; t < s; ++t) k(s, t) = k1_apply(m.k1, a(s, t));
    }
    const S c = p[L.w_weight + h] / S(G);
    for (std::size_t s = 0; s < T; ++s)
      for (std::size_t t = 0; t < s; ++t) n.Aw[g](s, t) += c * k(s, t);
  }
  // u-solve: (I + beta tril(A, -1)) U = alpha V  (solve_triangular, unitriangular = True)
  const S alpha = p[L.alpha], beta = p[L.beta];
  for (std::size_t g = 0; g < m.hkv; ++g) {
    n.dM = beta * n.Aw[g];  // scratch: beta A (strictly lower; the solve reads nothing else)
    n.U[g] = alpha * n.Vp.middleCols(g * hd, hd);
    n.dM.template triangularView<Eigen::UnitLower>().solveInPlace(n.U[g]);
  }
  // read-out: o^h_s = sum_{t <= s} kappa2(q^h_s . k_t / sqrt(hd)) u_t
  n.H.resize(T, d);
  for (std::size_t h = 0; h < m.hq; ++h) {
    const std::size_t g = h / G;
    Mat<S>& sc = n.sc[h];
    sc.noalias() = (n.Qp.middleCols(h * hd, hd) * n.Kp.middleCols(g * hd, hd).transpose()) * inv;
    Mat<S>& P = n.P[h];
    P.setZero(T, T);
    for (std::size_t s = 0; s < T; ++s) {
      if (m.k2 == ToyK2::softmax) {
        S mx = sc(s, 0);
        for (std::size_t t = 1; t <= s; ++t) mx = std::max(mx, sc(s, t));
        S den(0);
        for (std::size_t t = 0; t <= s; ++t) den += (P(s, t) = std::exp(sc(s, t) - mx));
        for (std::size_t t = 0; t <= s; ++t) P(s, t) /= den;
      } else {
        for (std::size_t t = 0; t <= s; ++t) P(s, t) = k2_apply(m.k2, sc(s, t));
      }
    }
    n.H.middleCols(h * hd, hd).noalias() = P.template triangularView<Eigen::Lower>() * n.U[g];
  }
  n.Y = n.X;
  n.Y.noalias() += n.H * CMap<S>(p + L.Wo, d, d).transpose();
  n.Y.rowwise() += CVec<S>(p + L.bo, d);
  n.Z.noalias() = n.Y * CMap<S>(p + L.lm, V, d).transpose();
  // cross-entropy (log-sum-exp), probabilities for the backward pass, argmax (first maximum)
  n.Pr.resize(T, V);
  double loss = 0;
  for (std::size_t t = 0; t < T; ++t) {
    std::size_t am = 0;
    S mx = n.Z(t, 0);
    for (std::size_t j = 1; j < V; ++j)
      if (n.Z(t, j) > mx) mx = n.Z(t, j), am = j;
    S den(0);
    for (std::size_t j = 0; j < V; ++j) den += (n.Pr(t, j) = std::exp(n.Z(t, j) - mx));
    for (std::size_t j = 0; j < V; ++j) n.Pr(t, j) /= den;
    const S lse = mx + std::log(den);
    loss += static_cast<double>(lse - n.Z(t, std::size_t(labels[t])));
    if (am == std::size_t(labels[t])) ++correct;
  }
  return loss;
}

// Backward of one sequence after seq_forward; dlogits = (softmax - onehot) * scale. Accumulates into g.
template <class S>
void seq_backward(const Params<S>& Pm, const Layout& L, const int* ids, const int* labels, std::size_t T, Net<S>& n, S scale,
                  S* gr, GradFault fault) {
  const ModelShape& m = Pm.shape;
  const std::size_t d = m.dim, hd = m.hd(), kvd = m.kvd(), G = m.hq / m.hkv, V = m.vocab;
  const S* p = Pm.p.data();
  const S inv = S(1) / std::sqrt(S(hd));
  n.dZ = n.Pr;
  for (std::size_t t = 0; t < T; ++t) n.dZ(t, std::size_t(labels[t])) -= S(1);
  n.dZ *= scale;
  // logits = Y Wlm^T
  MMap<S>(gr + L.lm, V, d).noalias() += n.dZ.transpose() * n.Y;
  n.dY.noalias() = n.dZ * CMap<S>(p + L.lm, V, d);
  // Y = X + H Wo^T + bo
  n.dX = n.dY;
  MMap<S>(gr + L.Wo, d, d).noalias() += n.dY.transpose() * n.H;
  MVec<S>(gr + L.bo, d) += n.dY.colwise().sum();
  n.dH.noalias() = n.dY * CMap<S>(p + L.Wo, d, d);
  n.dQp.setZero(T, d);
  n.dWp.setZero(T, d);
  n.dKp.setZero(T, kvd);
  n.dVp.setZero(T, kvd);
  // read-out
  std::vector<Mat<S>> dU(m.hkv, Mat<S>::Zero(T, hd));
  for (std::size_t h = 0; h < m.hq; ++h) {
    const std::size_t g = h / G;
    const auto dO = n.dH.middleCols(h * hd, hd);
    const Mat<S>& P = n.P[h];
    dU[g].noalias() += P.template triangularView<Eigen::Lower>().transpose() * dO;
    n.G.noalias() = dO * n.U[g].transpose();  // dP (s, t), used for t <= s
    Mat<S>& dS = n.dA;
    dS.setZero(T, T);
    for (std::size_t s = 0; s < T; ++s) {
      if (m.k2 == ToyK2::softmax) {
        S dot(0);
        for (std::size_t t = 0; t <= s; ++t) dot += P(s, t) * n.G(s, t);
        for (std::size_t t = 0; t <= s; ++t) dS(s, t) = P(s, t) * (n.G(s, t) - dot);
      } else if (m.k2 == ToyK2::relu) {
        for (std::size_t t = 0; t <= s; ++t) dS(s, t) = n.sc[h](s, t) > S(0) ? n.G(s, t) : S(0);
      } else {  // linear; round with the straight-through gradient
        for (std::size_t t = 0; t <= s; ++t) dS(s, t) = n.G(s, t);
      }
    }
    n.dQp.middleCols(h * hd, hd).noalias() += (dS * n.Kp.middleCols(g * hd, hd)) * inv;
    n.dKp.middleCols(g * hd, hd).noalias() += (dS.transpose() * n.Qp.middleCols(h * hd, hd)) * inv;
  }
  // u-solve: M U = alpha V, M = I + beta tril(A, -1):  dR = M^{-T} dU, dV = alpha dR, dM = -dR U^T (strictly lower)
  const S alpha = p[L.alpha], beta = p[L.beta];
  S galpha(0), gbeta(0);
  for (std::size_t g = 0; g < m.hkv; ++g) {
    n.dM = beta * n.Aw[g];
    n.dR = dU[g];
    if (fault == GradFault::solve_not_transposed) n.dM.template triangularView<Eigen::UnitLower>().solveInPlace(n.dR);
    else n.dM.template triangularView<Eigen::UnitLower>().transpose().solveInPlace(n.dR);
    n.dVp.middleCols(g * hd, hd) = alpha * n.dR;
    galpha += (n.dR.array() * n.Vp.middleCols(g * hd, hd).array()).sum();
    n.G.noalias() = n.dR * n.U[g].transpose();
    const S sgn = fault == GradFault::flip_dA ? S(1) : S(-1);
    // dA(s, t) = beta * dM(s, t), dbeta += A(s, t) dM(s, t), t < s
    Mat<S>& dA = n.dA;
    dA.setZero(T, T);
    for (std::size_t s = 0; s < T; ++s)
      for (std::size_t t = 0; t < s; ++t) {
        const S dm = sgn * n.G(s, t);
        gbeta += n.Aw[g](s, t) * dm;
        dA(s, t) = beta * dm;
      }
    // A = sum_{h in g} w_weight_h kappa1(a^h) / G
    for (std::size_t h = g * G; h < (g + 1) * G; ++h) {
      const S c = p[L.w_weight + h] / S(G);
      const Mat<S>& k = n.k1v[h];
      const Mat<S>& a = n.a[h];
      S gw(0);
      Mat<S>& da = n.dY;  // scratch (dY no longer needed)
      da.setZero(T, T);
      for (std::size_t s = 0; s < T; ++s) {
        for (std::size_t t = 0; t < s; ++t) gw += dA(s, t) * k(s, t);
        switch (m.k1) {
          case ToyK1::linear:
          case ToyK1::round:  // straight-through
            for (std::size_t t = 0; t < s; ++t) da(s, t) = c * dA(s, t);
            break;
          case ToyK1::exp:
            for (std::size_t t = 0; t < s; ++t) da(s, t) = c * dA(s, t) * k(s, t);
            break;
          case ToyK1::relu:
            for (std::size_t t = 0; t < s; ++t) da(s, t) = a(s, t) > S(0) ? c * dA(s, t) : S(0);
            break;
          case ToyK1::softmax_code:
          case ToyK1::softmax_eq94: {  // masked entries are constants with dA = 0 (ignored by the solve)
            S dot(0);
            for (std::size_t t = 0; t < s; ++t) dot += k(s, t) * c * dA(s, t);
            for (std::size_t t = 0; t < s; ++t) da(s, t) = k(s, t) * (c * dA(s, t) - dot);
            break;
          }
        }
      }
      gr[L.w_weight + h] += gw / S(G);
      n.dWp.middleCols(h * hd, hd).noalias() += (da * n.Kp.middleCols(g * hd, hd)) * inv;
      n.dKp.middleCols(g * hd, hd).noalias() += (da.transpose() * n.Wp.middleCols(h * hd, hd)) * inv;
    }
  }
  gr[L.alpha] += galpha;
  gr[L.beta] += gbeta;
  if (m.rope) {  // the rotations are orthogonal: gradients of the unrotated projections by R(pos)^T
    const bool tr = fault != GradFault::rope_not_transposed;
    rope_apply(n.dQp, hd, n, tr), rope_apply(n.dWp, hd, n, tr), rope_apply(n.dKp, hd, n, tr);
  }
  // projections
  auto affine_back = [&](const Mat<S>& dOut, std::size_t Woff, std::size_t boff, std::size_t rows) {
    MMap<S>(gr + Woff, rows, d).noalias() += dOut.transpose() * n.X;
    MVec<S>(gr + boff, rows) += dOut.colwise().sum();
    n.dX.noalias() += dOut * CMap<S>(p + Woff, rows, d);
  };
  affine_back(n.dQp, L.Wq, L.bq, d);
  affine_back(n.dWp, L.Ww, L.bw, d);
  affine_back(n.dKp, L.Wk, L.bk, kvd);
  affine_back(n.dVp, L.Wv, L.bv, kvd);
  for (std::size_t t = 0; t < T; ++t) MVec<S>(gr + L.emb + std::size_t(ids[t]) * d, d) += n.dX.row(t);
}

// Runs f(b, net) for every sequence b, split over threads in contiguous ranges.
template <class S, class F> void for_sequences(std::size_t B, unsigned threads, F&& f) {
  const unsigned nt = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(B)));
  if (nt == 1) {
    Net<S> net;
    for (std::size_t b = 0; b < B; ++b) f(b, net);
    return;
  }
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> err(nt);
  for (unsigned i = 0; i < nt; ++i)
    pool.emplace_back([&, i] {
      try {
        Net<S> net;
        for (std::size_t b = B * i / nt; b < B * (i + 1) / nt; ++b) f(b, net);
      } catch (...) {
        err[i] = std::current_exception();
      }
    });
  for (auto& t : pool) t.join();
  for (auto& e : err)
    if (e) std::rethrow_exception(e);
}

}  // namespace

template <class S> LossResult forward_batch(const Params<S>& P, const Batch& b, std::vector<S>* logits) {
  validate_params(P);
  validate_batch(P.shape, b);
  const Layout L(P.shape);
  LossResult r;
  r.total = b.B * b.T;
  if (logits) logits->assign(b.B * b.T * P.shape.vocab, S(0));
  Net<S> net;
  for (std::size_t s = 0; s < b.B; ++s) {
    r.loss += seq_forward(P, L, b.ids.data() + s * b.T, b.labels.data() + s * b.T, b.T, net, r.correct);
    if (logits)
      for (std::size_t t = 0; t < b.T; ++t)
        for (std::size_t j = 0; j < P.shape.vocab; ++j) (*logits)[(s * b.T + t) * P.shape.vocab + j] = net.Z(t, j);
  }
  r.loss /= double(r.total);
  return r;
}

template <class S>
LossResult loss_and_grad(const Params<S>& P, const Batch& b, std::vector<S>& grad, unsigned threads, GradFault fault) {
  validate_params(P);
  validate_batch(P.shape, b);
  const Layout L(P.shape);
  const std::size_t np = L.size;
  std::vector<S> per(b.B * np, S(0));
  std::vector<double> loss(b.B, 0.0);
  std::vector<std::size_t> corr(b.B, 0);
  const S scale = S(1) / S(double(b.B * b.T));
  for_sequences<S>(b.B, threads, [&](std::size_t s, Net<S>& net) {
    const int* ids = b.ids.data() + s * b.T;
    const int* lab = b.labels.data() + s * b.T;
    loss[s] = seq_forward(P, L, ids, lab, b.T, net, corr[s]);
    seq_backward(P, L, ids, lab, b.T, net, scale, per.data() + s * np, fault);
  });
  grad.assign(np, S(0));
  LossResult r;
  r.total = b.B * b.T;
  for (std::size_t s = 0; s < b.B; ++s) {  // sequence order: independent of the thread count
    for (std::size_t i = 0; i < np; ++i) grad[i] += per[s * np + i];
    r.loss += loss[s];
    r.correct += corr[s];
  }
  r.loss /= double(r.total);
  return r;
}

template <class S> std::vector<std::vector<S>> u_of_sequence(const Params<S>& P, const Batch& b, std::size_t seq) {
  validate_params(P);
  validate_batch(P.shape, b);
  if (seq >= b.B) throw std::invalid_argument("u_of_sequence: seq outside the batch");
  const Layout L(P.shape);
  Net<S> net;
  std::size_t c = 0;
  seq_forward(P, L, b.ids.data() + seq * b.T, b.labels.data() + seq * b.T, b.T, net, c);
  std::vector<std::vector<S>> out;
  for (const auto& U : net.U) out.emplace_back(U.data(), U.data() + U.size());
  return out;
}

// ---- gradient check ----------------------------------------------------------------------------
// Central difference D_h = (L(theta + h e_i) - L(theta - h e_i)) / 2h has error
// h^2/6 |L'''| + eps_L / h, eps_L the absolute rounding error of the double loss (a few hundred u|L|
// for the mean over the batch's tokens). h = u^(1/3) balances the two at ~u^(2/3) (2.3e-11) times
// (|L'''|/6 + c|L|): with the O(1) weights, losses and third derivatives of these instances that is
// ~1e-9 relative to max|g|. The threshold 1e3 u^(2/3) = 2.3e-8 leaves that margin and is still
// five orders of magnitude below the O(1e-3..1) relative errors of a wrong gradient (the negative
// controls of the tests).
GradCheck gradient_check(const Params<double>& P, const Batch& b, GradFault fault) {
  const double u = std::ldexp(1.0, -53);
  GradCheck r;
  r.step = std::cbrt(u);
  r.threshold = 1e3 * std::pow(u, 2.0 / 3.0);
  std::vector<double> g;
  loss_and_grad(P, b, g, 1, fault);
  const Layout L(P.shape);
  r.n_params = L.size;
  Params<double> Q = P;
  for (std::size_t i = 0; i < L.size; ++i) {
    const double h = r.step * std::max(1.0, std::fabs(P.p[i]));
    Q.p[i] = P.p[i] + h;
    const double lp = forward_batch(Q, b).loss;
    Q.p[i] = P.p[i] - h;
    const double lm = forward_batch(Q, b).loss;
    Q.p[i] = P.p[i];
    const double fd = (lp - lm) / (2 * h);
    const double e = std::fabs(fd - g[i]);
    if (e > r.max_abs_err || i == 0) r.max_abs_err = e, r.worst = L.name_of(i);
    r.grad_scale = std::max(r.grad_scale, std::fabs(g[i]));
  }
  r.rel_err = r.grad_scale > 0 ? r.max_abs_err / r.grad_scale : (r.max_abs_err > 0 ? INFINITY : 0.0);
  r.pass = std::isfinite(r.rel_err) && r.rel_err <= r.threshold;
  return r;
}

// ---- instantiations ------------------------------------------------------------------------------
template Params<float> init_params<float>(const ModelShape&, std::mt19937_64&);
template Params<double> init_params<double>(const ModelShape&, std::mt19937_64&);
template ref::ToyAttentionParams<float> to_reference<float>(const Params<float>&);
template ref::ToyAttentionParams<double> to_reference<double>(const Params<double>&);
template LossResult forward_batch<float>(const Params<float>&, const Batch&, std::vector<float>*);
template LossResult forward_batch<double>(const Params<double>&, const Batch&, std::vector<double>*);
template LossResult loss_and_grad<float>(const Params<float>&, const Batch&, std::vector<float>&, unsigned, GradFault);
template LossResult loss_and_grad<double>(const Params<double>&, const Batch&, std::vector<double>&, unsigned, GradFault);
template std::vector<std::vector<float>> u_of_sequence<float>(const Params<float>&, const Batch&, std::size_t);
template std::vector<std::vector<double>> u_of_sequence<double>(const Params<double>&, const Batch&, std::size_t);

}  // namespace recall::toy

// ---- forward agreement with the reference -----------------------------------------------------------
namespace recall::toy {
namespace {
// logits and U of every sequence by the reference (explicit recursion), scalar S
template <class S>
void reference_forward(const Params<S>& P, const Batch& b, std::vector<S>& logits, std::vector<S>& U) {
  const ModelShape& m = P.shape;
  const Layout L(m);
  const auto rp = to_reference(P);
  ref::Matrix<S> Wlm(m.vocab, m.dim);
  for (std::size_t i = 0; i < Wlm.a.size(); ++i) Wlm.a[i] = P.p[L.lm + i];
  logits.clear();
  U.clear();
  for (std::size_t s = 0; s < b.B; ++s) {
    ref::Matrix<S> X(b.T, m.dim);
    for (std::size_t t = 0; t < b.T; ++t)
      for (std::size_t j = 0; j < m.dim; ++j) X(t, j) = P.p[L.emb + std::size_t(b.ids[s * b.T + t]) * m.dim + j];
    std::vector<ref::Matrix<S>> Us;
    const ref::Matrix<S> Y = ref::toy_delta_attention(rp, m.k1, m.k2, X, true, &Us);
    for (std::size_t t = 0; t < b.T; ++t) {
      const ref::Vector<S> z = ref::matvec(Wlm, Y.row(t));
      logits.insert(logits.end(), z.begin(), z.end());
    }
    for (const auto& u : Us) U.insert(U.end(), u.a.begin(), u.a.end());
  }
}
template <class S> Params<S> cast_params(const Params<double>& P) {
  Params<S> Q;
  Q.shape = P.shape;
  for (double x : P.p) Q.p.push_back(ref::convert<S>(x));
  return Q;
}
// normwise relative error of y against the oracle o
template <class S> double nrel(const std::vector<S>& y, const std::vector<mp_t>& o) {
  mp_t e = 0, sc = 0;
  for (std::size_t i = 0; i < o.size(); ++i) {
    const mp_t d = abs(mp_t(y[i]) - o[i]);
    if (d > e) e = d;
    if (abs(o[i]) > sc) sc = abs(o[i]);
  }
  return sc > 0 ? static_cast<double>(e / sc) : static_cast<double>(e);
}
}  // namespace

ForwardAgreement forward_agreement(const Params<double>& P, const Batch& b, unsigned digits) {
  validate_params(P);
  validate_batch(P.shape, b);
  std::vector<mp_t> lo, uo;
  {
    MpDigitsScope sc(digits);
    reference_forward(cast_params<mp_t>(P), b, lo, uo);
  }
  ForwardAgreement r;
  {  // condition of the u-solve (double)
    const Layout L(P.shape);
    Net<double> net;
    for (std::size_t s = 0; s < b.B; ++s) {
      std::size_t c = 0;
      seq_forward(P, L, b.ids.data() + s * b.T, b.labels.data() + s * b.T, b.T, net, c);
      for (const auto& A : net.Aw) {
        Mat<double> M = P.p[L.beta] * A;
        M.diagonal().setOnes();
        M.triangularView<Eigen::StrictlyUpper>().setZero();
        Mat<double> Mi = Mat<double>::Identity(b.T, b.T);
        M.triangularView<Eigen::UnitLower>().solveInPlace(Mi);
        r.cond = std::max(r.cond, M.cwiseAbs().rowwise().sum().maxCoeff() * Mi.cwiseAbs().rowwise().sum().maxCoeff());
      }
    }
  }
  auto one = [&](auto zero, double& err, double& base, double& budget) {
    using S = decltype(zero);
    const Params<S> Q = cast_params<S>(P);
    std::vector<S> lb, ub, lh, uh;
    reference_forward(Q, b, lb, ub);
    forward_batch(Q, b, &lh);
    for (std::size_t s = 0; s < b.B; ++s)
      for (const auto& u : u_of_sequence(Q, b, s)) uh.insert(uh.end(), u.begin(), u.end());
    err = std::max(nrel(lh, lo), nrel(uh, uo));
    base = std::max(nrel(lb, lo), nrel(ub, uo));
    const double u = std::numeric_limits<S>::epsilon() / 2;
    budget = 2 * base + 4 * u + r.cond * u * double(b.T);
    return err <= budget;
  };
  const bool p64 = one(0.0, r.err64, r.base64, r.budget64);
  const bool p32 = one(0.0f, r.err32, r.base32, r.budget32);
  r.pass = p64 && p32;
  return r;
}

}  // namespace recall::toy
