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
  const bool force = a.forcing == MobaForcing::current_block, soft = a.kernel == MemoryKernel::softmax;
  const F ninf = -std::numeric_limits<F>::infinity();
  // buffers from a per-thread workspace that only grows (a query reads at most T rows of any block): no
  // allocation, and no fresh pages to fault in, inside the loops or across calls of the same size
  thread_local std::vector<F> ws;
  const std::size_t need_sz = static_cast<std::size_t>(E) * dk + static_cast<std::size_t>(T) * (E + dk + Bk + 2 * dv);
  if (ws.size() < need_sz) ws.resize(need_sz);
  F* wp = ws.data();
  auto take = [&](int r, int c) {
    MutMap<F> m(wp, r, c);
    wp += static_cast<std::size_t>(r) * c;
    return m;
  };
  MutMap<F> means = take(E, dk), scores = take(T, E), Qg = take(T, dk), Sbuf = take(T, Bk), P = take(T, dv), ACC = take(T, dv);
  auto this_block = [&](int rows, int cols) { return Sbuf.block(0, 0, rows, cols); };
  Vec<F> part(dk), mrun(T), lrun(T);
  std::vector<std::vector<int>> readers(E);  // per key block: the queries that read it (ascending)
  std::vector<int> idx;
  for (int bh = 0; bh < a.B * a.H; ++bh) {
    ConstMap<F> Q(a.q + static_cast<std::size_t>(bh) * T * dk, T, dk), K(a.k + static_cast<std::size_t>(bh) * T * dk, T, dk);
    ConstMap<F> V(a.v + static_cast<std::size_t>(bh) * T * dv, T, dv);
    MutMap<F> O(a.o + static_cast<std::size_t>(bh) * T * dv, T, dv);
    // 1. gates: the complete blocks' means scored for every query in one product; the current block (V1) from
    //    its running key sum over the keys <= t
    for (int e = 0; e < E; ++e) {
      const int lo = e * Bk, n = std::min(Bk, T - lo);
      means.row(e) = K.middleRows(lo, n).colwise().sum() / static_cast<F>(n);
    }
    scores.noalias() = Q * means.transpose();
    for (auto& r : readers) r.clear();
    for (int t = 0; t < T; ++t) {
      const int cur = t / Bk;
      if (t % Bk == 0) part.setZero();
      part += K.row(t).transpose();
      if (!force) scores(t, cur) = Q.row(t).dot(part) / static_cast<F>(t - cur * Bk + 1);
      const int ncand = force ? cur : cur + 1;  // candidates 0..ncand-1 (block order: ties go to the lower block)
      idx.resize(static_cast<std::size_t>(ncand));
      std::iota(idx.begin(), idx.end(), 0);
      const int want = std::min(force ? a.k_top - 1 : a.k_top, ncand);
      std::partial_sort(idx.begin(), idx.begin() + want, idx.end(),
                        [&](int x, int y) { return scores(t, x) > scores(t, y) || (scores(t, x) == scores(t, y) && x < y); });
      idx.resize(static_cast<std::size_t>(want));
      if (force) idx.push_back(cur);
      if (a.gates_out) {
        std::uint8_t* g = a.gates_out + (static_cast<std::size_t>(bh) * T + t) * E;
        std::fill(g, g + E, std::uint8_t{0});
        for (int e : idx) g[e] = 1;
      }
      for (int e : idx) readers[static_cast<std::size_t>(e)].push_back(t);
    }
    // 2. per key block: the queries that read it gathered into one product with the block's keys, then merged into
    //    each query's running (max, sum, accumulator) (softmax) or accumulator (unnormalised kernels)
    ACC.setZero();
    mrun.setConstant(ninf);
    lrun.setZero();
    for (int e = 0; e < E; ++e) {
      const auto& rq = readers[static_cast<std::size_t>(e)];
      if (rq.empty()) continue;
      const int lo = e * Bk, nb = std::min(Bk, T - lo), nq = static_cast<int>(rq.size());
      for (int j = 0; j < nq; ++j) Qg.row(j) = Q.row(rq[static_cast<std::size_t>(j)]);
      auto S = this_block(nq, nb);
      S.noalias() = scale * Qg.topRows(nq) * K.middleRows(lo, nb).transpose();
      if (!S.allFinite())
        fail(who, "a logit scale q^T k of (b*h=" + std::to_string(bh + 1) + ", key block " + std::to_string(e + 1) + ") is not finite");
      // causal mask: a query inside this block reads its keys <= t only
      for (int j = 0; j < nq; ++j) {
        const int t = rq[static_cast<std::size_t>(j)], last = t - lo;  // keys lo..t
        if (last + 1 < nb) S.row(j).tail(nb - last - 1).setConstant(soft || a.kernel == MemoryKernel::exp ? ninf : F(0));
      }
      switch (a.kernel) {
        case MemoryKernel::linear: break;
        case MemoryKernel::relu: S = S.cwiseMax(F(0)); break;
        case MemoryKernel::exp:
          for (Index r = 0; r < S.rows(); ++r) exp_row(S.row(r).data(), S.row(r).data(), S.cols());
          if (!S.allFinite()) fail(who, "exp(scale q^T k) overflows the precision in key block " + std::to_string(e + 1) + " (use kernel softmax)");
          break;
        case MemoryKernel::softmax:
          for (int j = 0; j < nq; ++j) {
            const int t = rq[static_cast<std::size_t>(j)];
            const F mb = S.row(j).maxCoeff(), mnew = std::max(mrun(t), mb);
            const F rescale = mrun(t) == ninf ? F(0) : std::exp(mrun(t) - mnew);
            S.row(j).array() -= mnew;
            exp_row(S.row(j).data(), S.row(j).data(), S.cols());
            lrun(t) = lrun(t) * rescale + S.row(j).sum();
            ACC.row(t) *= rescale;
            mrun(t) = mnew;
          }
          break;
      }
      P.topRows(nq).noalias() = S * V.middleRows(lo, nb);
      for (int j = 0; j < nq; ++j) ACC.row(rq[static_cast<std::size_t>(j)]) += P.row(j);
    }
    if (soft)
      for (int t = 0; t < T; ++t) O.row(t) = ACC.row(t) / lrun(t);
    else
      O = ACC;
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
