// Multi-head, MoBA block-sparse and conjectured-gate attention memories (A000-MULTIHEAD, A000-MOE-ATTN,
// A000-MOBA-GATE, A000-GATED-CONJ): see the header.
#include "recall/optimized/sparse_memory.hpp"

#include "kernel_support.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace recall::opt {
namespace {

using namespace support;

[[noreturn]] void fail(const char* who, const std::string& what) { throw std::invalid_argument(std::string(who) + ": " + what); }

void need(bool ok, const char* who, const std::string& what) {
  if (!ok) fail(who, what);
}

// kappa of the logit x for the unnormalised kernels, elementwise on a block
template <class F> void apply_kernel(RowMat<F>& X, MemoryKernel k, const char* who) {
  switch (k) {
    case MemoryKernel::linear: break;
    case MemoryKernel::relu: X = X.cwiseMax(F(0)); break;
    case MemoryKernel::exp:
      for (Index r = 0; r < X.rows(); ++r) exp_row(X.row(r).data(), X.row(r).data(), X.cols());
      if (!X.allFinite()) fail(who, "exp(scale q^T k) overflows the precision (lower the scale or the keys)");
      break;
    case MemoryKernel::softmax: fail(who, "kernel softmax is not available here (use linear, relu or exp)");
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// MoBA
// ---------------------------------------------------------------------------------------------------------
template <class F> void moba_attention(const MobaArgs<F>& a) {
  const char* who = "moba_attention";
  need(a.B >= 1 && a.H >= 1 && a.T >= 1 && a.dk >= 1 && a.dv >= 1, who, "B, H, T, dk, dv must be >= 1");
  need(a.q && a.k && a.v && a.o, who, "q, k, v and o must not be null");
  need(a.block >= 1, who, "block must be >= 1, got " + std::to_string(a.block));
  need(a.k_top >= 1, who, "k_top must be >= 1, got " + std::to_string(a.k_top));
  need(std::isfinite(a.scale) && a.scale >= 0, who, "scale must be finite and >= 0 (0 = 1/sqrt(dk))");
  const int T = a.T, dk = a.dk, dv = a.dv, Bk = a.block, E = (T + Bk - 1) / Bk;
  const F scale = static_cast<F>(a.scale > 0 ? a.scale : 1.0 / std::sqrt(static_cast<double>(dk)));
  const bool force = a.forcing == MobaForcing::current_block;
  RowMat<F> means(E, dk);
  Vec<F> part(dk), acc(dv), logits, w;
  std::vector<int> cand, sel;
  std::vector<F> score;
  for (int bh = 0; bh < a.B * a.H; ++bh) {
    ConstMap<F> Q(a.q + static_cast<std::size_t>(bh) * T * dk, T, dk), K(a.k + static_cast<std::size_t>(bh) * T * dk, T, dk);
    ConstMap<F> V(a.v + static_cast<std::size_t>(bh) * T * dv, T, dv);
    MutMap<F> O(a.o + static_cast<std::size_t>(bh) * T * dv, T, dv);
    // means of the complete blocks (the last, partial block's mean is formed per query below)
    for (int e = 0; e < E; ++e) {
      const int lo = e * Bk, n = std::min(Bk, T - lo);
      means.row(e) = K.middleRows(lo, n).colwise().sum() / static_cast<F>(n);
    }
    for (int t = 0; t < T; ++t) {
      const int cur = t / Bk;
      if (t % Bk == 0) part.setZero();
      part += K.row(t).transpose();  // running key sum of the current block up to t
      cand.clear();
      score.clear();
      for (int e = 0; e < cur; ++e) cand.push_back(e), score.push_back(Q.row(t).dot(means.row(e)));
      if (!force) cand.push_back(cur), score.push_back(Q.row(t).dot(part) / static_cast<F>(t - cur * Bk + 1));
      // top-k by score, ties to the lower block index (the candidates are in block order)
      std::vector<int> idx(cand.size());
      std::iota(idx.begin(), idx.end(), 0);
      const std::size_t want = std::min<std::size_t>(static_cast<std::size_t>(force ? a.k_top - 1 : a.k_top), idx.size());
      std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(want), idx.end(),
                        [&](int x, int y) { return score[x] > score[y] || (score[x] == score[y] && x < y); });
      sel.clear();
      for (std::size_t j = 0; j < want; ++j) sel.push_back(cand[idx[j]]);
      if (force) sel.push_back(cur);
      std::sort(sel.begin(), sel.end());
      if (a.gates_out) {
        std::uint8_t* g = a.gates_out + (static_cast<std::size_t>(bh) * T + t) * E;
        std::fill(g, g + E, std::uint8_t{0});
        for (int e : sel) g[e] = 1;
      }
      // gather the selected blocks' causal keys: logits x_i = scale q_t^T k_i
      int n = 0;
      for (int e : sel) n += std::min((e + 1) * Bk, t + 1) - e * Bk;
      logits.resize(n);
      w.resize(n);
      int j = 0;
      for (int e : sel)
        for (int i = e * Bk; i < std::min((e + 1) * Bk, t + 1); ++i) logits(j++) = scale * Q.row(t).dot(K.row(i));
      if (!logits.allFinite())
        fail(who, "a logit scale q^T k of row (b*h=" + std::to_string(bh + 1) + ", t=" + std::to_string(t + 1) + ") is not finite");
      F denom = 1;
      switch (a.kernel) {
        case MemoryKernel::linear: w = logits; break;
        case MemoryKernel::relu: w = logits.cwiseMax(F(0)); break;
        case MemoryKernel::exp:
          exp_row(logits.data(), w.data(), n);
          if (!w.allFinite()) fail(who, "exp(scale q^T k) overflows the precision at t=" + std::to_string(t + 1) + " (use kernel softmax)");
          break;
        case MemoryKernel::softmax: {
          const F m = logits.maxCoeff();
          Vec<F> sh = logits.array() - m;
          exp_row(sh.data(), w.data(), n);
          denom = w.sum();
          break;
        }
      }
      acc.setZero();
      j = 0;
      for (int e : sel)
        for (int i = e * Bk; i < std::min((e + 1) * Bk, t + 1); ++i) acc.noalias() += w(j++) * V.row(i).transpose();
      O.row(t) = (acc / denom).transpose();
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Multi-head kernel attention
// ---------------------------------------------------------------------------------------------------------
template <class F> void multihead_kernel_attention(const MultiheadArgs<F>& a) {
  const char* who = "multihead_kernel_attention";
  need(a.B >= 1 && a.T >= 1 && a.H >= 1 && a.dh >= 1 && a.dhv >= 1, who, "B, T, H, dh, dhv must be >= 1");
  need(a.q && a.k && a.v && a.o, who, "q, k, v and o must not be null");
  need(a.block >= 1, who, "block must be >= 1");
  need(std::isfinite(a.scale), who, "scale must be finite");
  need(!a.wo || a.d_out >= 1, who, "d_out must be >= 1 when W_O is given");
  const int T = a.T, H = a.H, dh = a.dh, dhv = a.dhv, Wq = H * dh, Wv = H * dhv;
  using Stride = Eigen::OuterStride<>;
  RowMat<F> cat(T, Wv), S;
  for (int b = 0; b < a.B; ++b) {
    const F* qb = a.q + static_cast<std::size_t>(b) * T * Wq;
    const F* kb = a.k + static_cast<std::size_t>(b) * T * Wq;
    const F* vb = a.v + static_cast<std::size_t>(b) * T * Wv;
    for (int h = 0; h < H; ++h) {
      // head h is the column slice [h dh, (h+1) dh) of every row: a strided view, no copy
      Eigen::Map<const RowMat<F>, 0, Stride> Q(qb + h * dh, T, dh, Stride(Wq)), K(kb + h * dh, T, dh, Stride(Wq));
      Eigen::Map<const RowMat<F>, 0, Stride> V(vb + h * dhv, T, dhv, Stride(Wv));
      for (int r0 = 0; r0 < T; r0 += a.block) {
        const int nr = std::min(a.block, T - r0), nc = r0 + nr;  // keys 0..nc-1 reach this block
        S.noalias() = static_cast<F>(a.scale) * Q.middleRows(r0, nr) * K.topRows(nc).transpose();
        apply_kernel(S, a.kernel, who);
        for (int i = 0; i < nr; ++i) S.row(i).tail(nc - (r0 + i + 1)).setZero();  // causal mask
        cat.block(r0, h * dhv, nr, dhv).noalias() = S * V.topRows(nc);
      }
    }
    if (a.wo) {
      ConstMap<F> WO(a.wo, a.d_out, Wv);
      MutMap<F>(a.o + static_cast<std::size_t>(b) * T * a.d_out, T, a.d_out).noalias() = cat * WO.transpose();
    } else {
      MutMap<F>(a.o + static_cast<std::size_t>(b) * T * Wv, T, Wv) = cat;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Conjectured non-cumulative gate
// ---------------------------------------------------------------------------------------------------------
template <class F> void gated_conj_attention(const GatedConjArgs<F>& a) {
  const char* who = "gated_conj_attention";
  need(a.T >= 1 && a.d >= 1 && a.dk >= 1 && a.dv >= 1, who, "T, d, dk, dv must be >= 1");
  need(a.x && a.wg && a.q && a.k && a.v && a.o, who, "x, wg, q, k, v and o must not be null");
  need(a.block >= 1, who, "block must be >= 1");
  need(std::isfinite(a.scale), who, "scale must be finite");
  const int T = a.T;
  ConstMap<F> X(a.x, T, a.d), WG(a.wg, a.d, a.d), Q(a.q, T, a.dk), K(a.k, T, a.dk), V(a.v, T, a.dv);
  MutMap<F> O(a.o, T, a.dv);
  const RowMat<F> XG = X * WG.transpose();  // rows (W_G x_i)^T, so (X XG^T)_{ti} = x_t^T W_G x_i = g_i at query t
  RowMat<F> S, G;
  for (int r0 = 0; r0 < T; r0 += a.block) {
    const int nr = std::min(a.block, T - r0), nc = r0 + nr;
    S.noalias() = static_cast<F>(a.scale) * Q.middleRows(r0, nr) * K.topRows(nc).transpose();
    apply_kernel(S, a.kernel, who);
    G.noalias() = X.middleRows(r0, nr) * XG.topRows(nc).transpose();
    S.array() *= G.array();
    for (int i = 0; i < nr; ++i) S.row(i).tail(nc - (r0 + i + 1)).setZero();
    O.middleRows(r0, nr).noalias() = S * V.topRows(nc);
  }
}

template void moba_attention<float>(const MobaArgs<float>&);
template void moba_attention<double>(const MobaArgs<double>&);
template void multihead_kernel_attention<float>(const MultiheadArgs<float>&);
template void multihead_kernel_attention<double>(const MultiheadArgs<double>&);
template void gated_conj_attention<float>(const GatedConjArgs<float>&);
template void gated_conj_attention<double>(const GatedConjArgs<double>&);

}  // namespace recall::opt
