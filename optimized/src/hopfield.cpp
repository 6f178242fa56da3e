// Eigen CPU kernels of the modern Hopfield retrieval maps; see recall/optimized/hopfield.hpp.
#include "recall/optimized/hopfield.hpp"
#include "kernel_support.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace recall::opt::hopfield {
namespace {

using support::Index;
using support::RowMat;
using support::Vec;
using support::exp_row;
// A head slice of a [B, N, H, w] tensor: N rows of width w, row stride H*w.
template <class T> using HeadMap = Eigen::Map<const RowMat<T>, 0, Eigen::OuterStride<>>;
template <class T> using HeadMapMut = Eigen::Map<RowMat<T>, 0, Eigen::OuterStride<>>;

template <class T> constexpr T ninf() { return -std::numeric_limits<T>::infinity(); }

[[noreturn]] void fail(const char* who, const std::string& what) { throw std::invalid_argument(std::string(who) + ": " + what); }
std::string s1(long long i) { return std::to_string(i + 1); }  // 1-based

// Finite check of a [B, N, H, w] tensor (or [H, n, w] with B = 1), naming the first bad entry (1-based).
template <class T> void require_finite(const T* p, Index B, Index N, Index H, Index w, const char* who, const char* name) {
  const Index n = B * N * H * w;
  Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> X(p, n);
  if (X.allFinite()) return;
  for (Index t = 0; t < n; ++t)
    if (!std::isfinite(p[t])) {
      const Index c = t % w, h = (t / w) % H, r = (t / (w * H)) % N, b = t / (w * H * N);
      fail(who, std::string(name) + "(b=" + s1(b) + ", row=" + s1(r) + ", h=" + s1(h) + ", c=" + s1(c) + ") is not finite");
    }
}

[[noreturn]] void bad_score(const char* who, Index b, Index i, Index h, Index j) {
  fail(who, "score beta q.k (b=" + s1(b) + ", i=" + s1(i) + ", h=" + s1(h) + ", j=" + s1(j) +
                ") is not finite in the storage precision (overflow of beta q^T k)");
}

template <class T> void check_args(const RetrievalArgs<T>& a, const char* who, bool need_v = true) {
  if (a.B < 1) fail(who, "B (batch) must be >= 1, got " + std::to_string(a.B));
  if (a.H < 1) fail(who, "H (heads) must be >= 1, got " + std::to_string(a.H));
  if (a.L < 1) fail(who, "L (queries) must be >= 1, got " + std::to_string(a.L));
  if (a.M < 1) fail(who, "M (patterns) must be >= 1, got " + std::to_string(a.M));
  if (a.d < 1) fail(who, "d (key width) must be >= 1, got " + std::to_string(a.d));
  if (a.dv < 1) fail(who, "dv (value width) must be >= 1, got " + std::to_string(a.dv));
  if (!a.q) fail(who, "q is null");
  if (!a.k) fail(who, "k is null");
  if (need_v && !a.v) fail(who, "v is null");
  if (!a.o) fail(who, "o is null");
  if (!(a.beta > 0) || !std::isfinite(a.beta)) fail(who, "beta must be finite and > 0, got " + std::to_string(a.beta));
  if (static_cast<T>(a.beta) <= T(0) || !std::isfinite(static_cast<T>(a.beta)))
    fail(who, "beta is not finite and > 0 in the storage precision");
  if (a.block_q < 1) fail(who, "block_q must be >= 1, got " + std::to_string(a.block_q));
  if (a.block_k < 1) fail(who, "block_k must be >= 1, got " + std::to_string(a.block_k));
  require_finite(a.q, a.B, a.L, a.H, a.d, who, "q");
  require_finite(a.k, a.B, a.M, a.H, a.d, who, "k");
  if (need_v) require_finite(a.v, a.B, a.M, a.H, a.dv, who, "v");
}

template <class T> struct Views {
  const RetrievalArgs<T>& a;
  HeadMap<T> Q(Index b, Index h) const {
    return HeadMap<T>(a.q + (b * a.L * a.H + h) * a.d, a.L, a.d, Eigen::OuterStride<>(Index(a.H) * a.d));
  }
  HeadMap<T> K(Index b, Index h) const {
    return HeadMap<T>(a.k + (b * a.M * a.H + h) * a.d, a.M, a.d, Eigen::OuterStride<>(Index(a.H) * a.d));
  }
  HeadMap<T> V(Index b, Index h) const {
    return HeadMap<T>(a.v + (b * a.M * a.H + h) * a.dv, a.M, a.dv, Eigen::OuterStride<>(Index(a.H) * a.dv));
  }
  HeadMapMut<T> O(Index b, Index h) const {
    return HeadMapMut<T>(a.o + (b * a.L * a.H + h) * a.dv, a.L, a.dv, Eigen::OuterStride<>(Index(a.H) * a.dv));
  }
  Index row(Index b, Index i, Index h) const { return (b * a.L + i) * a.H + h; }  // index into [B, L, H]
};

// ---- online softmax over key tiles --------------------------------------------------------------------------
// State of a query block: running max m, running sum l (of e^{s - m}), accumulator O (sum e^{s - m} v).
template <class T> struct Online {
  Vec<T> m, l;
  RowMat<T> O;
  void reset(Index nq, Index dv) {
    m.setConstant(nq, ninf<T>());
    l.setZero(nq);
    if (dv > 0) O.setZero(nq, dv);
  }
};
template <class T> struct TileWork {
  RowMat<T> S;
  Vec<T> mnew, shift, alpha;
};

// Adds the key tile [ks, ks + nk) to the state of query rows [qs, qs + nq) of head (b, h). lo / hi (nullable):
// per-row inclusive key intervals (entries outside are masked). V == nullptr: scores only (m, l). gather(S, qs, nq,
// ks, nk) sees the tile's scaled scores beta q.k before the exponential (a caller that needs some of the very
// scores the partition was formed from copies them there).
struct NoGather {
  template <class M> void operator()(const M&, Index, Index, Index, Index) const {}
};
template <class T, class QM, class KM, class VM, class Gather = NoGather>
void tile_step(const QM& Q, const KM& K, const VM* V, T beta, Index qs, Index nq, Index ks, Index nk, const Index* lo,
               const Index* hi, Online<T>& st, TileWork<T>& w, const char* who, Index b, Index h, const Gather& gather = Gather{}) {
  w.S.noalias() = Q.middleRows(qs, nq) * K.middleRows(ks, nk).transpose();
  w.S *= beta;
  if (!w.S.allFinite())
    for (Index r = 0; r < nq; ++r)
      for (Index c = 0; c < nk; ++c)
        if (!std::isfinite(w.S(r, c))) bad_score(who, b, qs + r, h, ks + c);
  if (lo)
    for (Index r = 0; r < nq; ++r) {
      T* s = w.S.row(r).data();
      const Index a0 = std::clamp<Index>(lo[r] - ks, 0, nk), a1 = std::clamp<Index>(hi[r] + 1 - ks, 0, nk);
      for (Index c = 0; c < a0; ++c) s[c] = ninf<T>();
      for (Index c = a1; c < nk; ++c) s[c] = ninf<T>();
    }
  gather(w.S, qs, nq, ks, nk);
  w.mnew = w.S.rowwise().maxCoeff();
  w.shift.resize(nq);
  w.alpha.resize(nq);
  for (Index r = 0; r < nq; ++r) {
    const T mn = std::max(st.m[r], w.mnew[r]);
    w.mnew[r] = mn;
    w.shift[r] = mn == ninf<T>() ? T(0) : mn;  // never -inf - (-inf)
    w.alpha[r] = st.m[r] == ninf<T>() ? T(0) : std::exp(st.m[r] - mn);
  }
  w.S.array().colwise() -= w.shift.array();
  exp_row(w.S.data(), w.S.data(), w.S.size());  // masked: exp(-inf) = 0 exactly
  st.l = st.l.cwiseProduct(w.alpha) + w.S.rowwise().sum();
  if (V) {
    st.O.array().colwise() *= w.alpha.array();
    st.O.noalias() += w.S * V->middleRows(ks, nk);
  }
  st.m = w.mnew;
}

// Full-row partition (m_[M], l_[M]) of every (i, h) of batch b over all M keys (scores only), into
// mall / lall [L*H] (index i*H + h). With a CSR mask (rp, col: the batch's rows, rp absolute): also the kept
// scores beta q_i.k_j, j in row i's mask, taken from the same tiles, into kept[(rp[i] - rp[0]) * H + t * H + h]
// (t the entry's position in the row), so that the masked sum and the full-row partition of reading U use one
// set of scores: computed twice, by two summation orders, their rounding differences (~u beta |a| each) would
// not cancel in e^{m_M - m_[M]}.
template <class T>
void full_row_partition(const Views<T>& vw, Index b, T beta, std::vector<T>& mall, std::vector<T>& lall, const char* who,
                        const std::int64_t* rp = nullptr, const std::int64_t* col = nullptr, std::vector<T>* kept = nullptr) {
  const auto& a = vw.a;
  mall.resize(std::size_t(a.L) * a.H);
  lall.resize(std::size_t(a.L) * a.H);
  Online<T> st;
  TileWork<T> w;
  const Index BQ = a.block_q, BK = a.block_k;
  if (kept) kept->assign(std::size_t(rp[a.L] - rp[0]) * a.H, T(0));
  std::vector<std::int64_t> cur(static_cast<std::size_t>(BQ));  // per query row: next mask entry to gather
  for (Index h = 0; h < a.H; ++h) {
    const auto Q = vw.Q(b, h);
    const auto K = vw.K(b, h);
    for (Index qs = 0; qs < a.L; qs += BQ) {
      const Index nq = std::min<Index>(BQ, a.L - qs);
      st.reset(nq, 0);
      for (Index r = 0; r < nq && kept; ++r) cur[r] = rp[qs + r];
      const auto gather = [&](const RowMat<T>& S, Index q0, Index n, Index k0, Index nk) {
        if (!kept) return;
        for (Index r = 0; r < n; ++r) {
          std::int64_t& c = cur[r];
          const std::int64_t end = rp[q0 + r + 1];
          for (; c < end && col[c] < k0 + nk; ++c) (*kept)[std::size_t(c - rp[0]) * a.H + h] = S(r, col[c] - k0);
        }
      };
      for (Index ks = 0; ks < a.M; ks += BK)
        tile_step<T>(Q, K, static_cast<const HeadMap<T>*>(nullptr), beta, qs, nq, ks, std::min<Index>(BK, a.M - ks), nullptr,
                     nullptr, st, w, who, b, h, gather);
      for (Index r = 0; r < nq; ++r) {
        mall[(qs + r) * a.H + h] = st.m[r];
        lall[(qs + r) * a.H + h] = st.l[r];
      }
    }
  }
}

// Per-row outputs and the output scaling of a kept set with (mM, lM) against the full row (mA, lA).
template <class T> struct RowOut {
  const RetrievalArgs<T>& a;
  // scale applied to sum e^{s - mM} v: R -> 1 / lM; U -> e^{mM - mA} / lA. lM == 0: empty row.
  T scale(Reading rd, T mM, T lM, T mA, T lA) const {
    if (!(lM > T(0))) return T(0);
    if (rd == Reading::R) return T(1) / lM;
    return std::exp(mM - mA) / lA;
  }
  void write(Index idx, bool have_full, T mM, T lM, T mA, T lA) const {
    if (a.lse && have_full) a.lse[idx] = mA + std::log(lA);
    if (a.lse_mask) a.lse_mask[idx] = lM > T(0) ? mM + std::log(lM) : ninf<T>();
    if (a.log_mass) a.log_mass[idx] = lM > T(0) ? std::min(T(0), (mM - mA) + (std::log(lM) - std::log(lA))) : ninf<T>();
  }
};

}  // namespace

// ================================================================================================================
// (1) dense retrieval
// ================================================================================================================
template <class T> void dense_retrieval(const RetrievalArgs<T>& a) {
  static constexpr const char* who = "hopfield::dense_retrieval";
  check_args(a, who);
  const Views<T> vw{a};
  const T beta = static_cast<T>(a.beta);
  const Index BQ = a.block_q, BK = a.block_k;
  Online<T> st;
  TileWork<T> w;
  for (Index b = 0; b < a.B; ++b)
    for (Index h = 0; h < a.H; ++h) {
      const auto Q = vw.Q(b, h);
      const auto K = vw.K(b, h);
      const auto V = vw.V(b, h);
      auto O = vw.O(b, h);
      for (Index qs = 0; qs < a.L; qs += BQ) {
        const Index nq = std::min<Index>(BQ, a.L - qs);
        st.reset(nq, a.dv);
        for (Index ks = 0; ks < a.M; ks += BK)
          tile_step<T>(Q, K, &V, beta, qs, nq, ks, std::min<Index>(BK, a.M - ks), nullptr, nullptr, st, w, who, b, h);
        for (Index r = 0; r < nq; ++r) {
          O.row(qs + r) = st.O.row(r) * (T(1) / st.l[r]);
          const Index idx = vw.row(b, qs + r, h);
          const T lse = st.m[r] + std::log(st.l[r]);
          if (a.lse) a.lse[idx] = lse;
          if (a.lse_mask) a.lse_mask[idx] = lse;
          if (a.log_mass) a.log_mass[idx] = T(0);
        }
      }
    }
}

// ================================================================================================================
// (2) masked retrieval, CSR mask per (b, i) shared by the heads
// ================================================================================================================
template <class T> std::int64_t masked_retrieval(const RetrievalArgs<T>& a, const CsrMask& mask, Reading reading) {
  static constexpr const char* who = "hopfield::masked_retrieval";
  check_args(a, who);
  if (reading != Reading::R && reading != Reading::U) fail(who, "reading must be R or U");
  if (!mask.row_ptr) fail(who, "mask.row_ptr is null");
  const Index rows = Index(a.B) * a.L;
  const std::int64_t* rp = mask.row_ptr;
  if (rp[0] != 0) fail(who, "mask.row_ptr[1] must be 0, got " + std::to_string(rp[0]));
  for (Index r = 0; r < rows; ++r)
    if (rp[r + 1] < rp[r]) fail(who, "mask.row_ptr is decreasing at entry " + s1(r + 1));
  if (rp[rows] > 0 && !mask.col) fail(who, "mask.col is null");
  std::vector<Index> empty;
  Index nzmax = 0;
  for (Index r = 0; r < rows; ++r) {
    const Index n = rp[r + 1] - rp[r];
    nzmax = std::max(nzmax, n);
    if (n == 0) empty.push_back(r);
    for (std::int64_t t = rp[r]; t < rp[r + 1]; ++t) {
      const std::int64_t j = mask.col[t];
      if (j < 0 || j >= a.M)
        fail(who, "mask.col entry " + s1(t) + " (row b=" + s1(r / a.L) + ", i=" + s1(r % a.L) + ") = " + s1(j) + " is outside [1, " +
                      std::to_string(a.M) + "]");
      if (t > rp[r] && j <= mask.col[t - 1])
        fail(who, "mask row (b=" + s1(r / a.L) + ", i=" + s1(r % a.L) + ") is not strictly increasing at entry " + s1(t));
    }
  }
  if (reading == Reading::R && !empty.empty() && !mask.empty_flag) {
    std::string list;
    for (std::size_t e = 0; e < empty.size() && e < 20; ++e)
      list += (e ? ", " : "") + std::string("(b=") + s1(empty[e] / a.L) + ", i=" + s1(empty[e] % a.L) + ")";
    if (empty.size() > 20) list += ", ... (" + std::to_string(empty.size()) + " rows)";
    fail(who, "reading R is undefined on an empty mask row (spec C13); empty rows: " + list +
                  " (pass mask.empty_flag to flag them and get o = 0 instead)");
  }
  if (mask.empty_flag) {
    std::fill(mask.empty_flag, mask.empty_flag + rows, static_cast<unsigned char>(0));
    for (Index r : empty) mask.empty_flag[r] = 1;
  }

  const Views<T> vw{a};
  const T beta = static_cast<T>(a.beta);
  const Index H = a.H, d = a.d, dv = a.dv;
  const bool need_full = reading == Reading::U || a.lse || a.log_mass;
  const RowOut<T> ro{a};
  std::vector<T> mall, lall, kept;
  RowMat<T> S(H, std::max<Index>(nzmax, 1)), Oi(H, dv);
  Vec<T> m(H), l(H);
  for (Index b = 0; b < a.B; ++b) {
    if (need_full) full_row_partition(vw, b, beta, mall, lall, who, rp + b * a.L, mask.col, &kept);
    for (Index i = 0; i < a.L; ++i) {
      const Index r = b * a.L + i;
      const Index n = rp[r + 1] - rp[r];
      const std::int64_t* col = mask.col + rp[r];
      const Eigen::Map<const RowMat<T>> Qi(a.q + r * H * d, H, d);
      // SDDMM on the row's non-zeros, all heads at once: S(h, t) = beta q_{i,h} . k_{col_t,h} (with the full-row
      // pass: the scores gathered from its tiles)
      if (need_full) {
        const std::size_t base = std::size_t(rp[r] - rp[b * a.L]) * H;
        for (Index t = 0; t < n; ++t)
          for (Index h = 0; h < H; ++h) S(h, t) = kept[base + std::size_t(t) * H + h];
      } else
      for (Index t = 0; t < n; ++t) {
        const T* kj = a.k + (b * a.M + col[t]) * H * d;  // k_{col_t}, all heads (contiguous H*d)
        for (Index h = 0; h < H; ++h)
          S(h, t) = beta * Eigen::Map<const Vec<T>>(kj + h * d, d).dot(Qi.row(h).transpose());
      }
      for (Index h = 0; h < H; ++h) {
        if (n == 0) {
          m[h] = ninf<T>();
          l[h] = T(0);
          continue;
        }
        T* s = S.row(h).data();
        T mx = ninf<T>();
        for (Index t = 0; t < n; ++t) {
          if (!std::isfinite(s[t])) bad_score(who, b, i, h, col[t]);
          mx = std::max(mx, s[t]);
        }
        Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> sr(s, n);
        sr -= mx;
        exp_row(s, s, n);
        m[h] = mx;
        l[h] = sr.sum();
      }
      // SpMM: O(h, :) = sum_t e(h, t) v_{col_t, h}
      Oi.setZero();
      for (Index t = 0; t < n; ++t) {
        const T* vj = a.v + (b * a.M + col[t]) * H * dv;
        for (Index h = 0; h < H; ++h)
          Eigen::Map<Vec<T>>(Oi.data() + h * dv, dv).noalias() += S(h, t) * Eigen::Map<const Vec<T>>(vj + h * dv, dv);
      }
      T* out = a.o + r * H * dv;
      for (Index h = 0; h < H; ++h) {
        const Index idx = r * H + h;
        const T mA = need_full ? mall[i * H + h] : T(0), lA = need_full ? lall[i * H + h] : T(1);
        const T sc = ro.scale(reading, m[h], l[h], mA, lA);
        Eigen::Map<Vec<T>>(out + h * dv, dv) = Oi.row(h).transpose() * sc;
        ro.write(idx, need_full, m[h], l[h], mA, lA);
      }
    }
  }
  return static_cast<std::int64_t>(empty.size());
}

// ================================================================================================================
// (3) windowed retrieval (banded)
// ================================================================================================================
template <class T> void window_retrieval(const RetrievalArgs<T>& a, const WindowSpec& win, Reading reading) {
  static constexpr const char* who = "hopfield::window_retrieval";
  check_args(a, who);
  if (reading != Reading::R && reading != Reading::U) fail(who, "reading must be R or U");
  if (a.M != a.L) fail(who, "windows need the self-attention layout M == L, got M = " + std::to_string(a.M) + ", L = " + std::to_string(a.L));
  if (win.w < 1) fail(who, "window size w must be >= 1, got " + std::to_string(win.w));
  if (win.causal && win.shift) fail(who, "shift applies to the centred window only (causal windows are truncated)");
  const Index L = a.L;
  const Index w = win.w;
  // inclusive key interval of row i (ref::hopfield::sliding_window / causal_window)
  auto range = [&](Index i, Index& lo, Index& hi) {
    if (win.causal) {
      lo = std::max<Index>(0, i - w + 1);
      hi = i;
      return;
    }
    lo = i - (w - 1) / 2;
    hi = i + w / 2;
    if (win.shift) {
      const Index ww = std::min(w, L);
      if (lo < 0) { lo = 0; hi = ww - 1; }
      if (hi > L - 1) { hi = L - 1; lo = hi - ww + 1; }
    }
    lo = std::max<Index>(lo, 0);
    hi = std::min<Index>(hi, L - 1);
  };
  if (reading == Reading::U) {
    // Reading U weighs the band by the full row's partition: that costs the full O(L M d) score pass anyway, and
    // the band's scores must be the very ones that pass forms (see masked_retrieval), so U runs as the masked
    // kernel on the window's CSR mask.
    std::vector<std::int64_t> rp(std::size_t(a.B) * L + 1, 0), col;
    for (Index b = 0; b < a.B; ++b)
      for (Index i = 0; i < L; ++i) {
        Index lo = 0, hi = 0;
        range(i, lo, hi);
        for (Index j = lo; j <= hi; ++j) col.push_back(j);
        rp[std::size_t(b * L + i) + 1] = static_cast<std::int64_t>(col.size());
      }
    masked_retrieval(a, CsrMask{rp.data(), col.data(), nullptr}, Reading::U);
    return;
  }
  const Views<T> vw{a};
  const T beta = static_cast<T>(a.beta);
  const bool need_full = a.lse || a.log_mass;
  const RowOut<T> ro{a};
  const Index BQ = std::min<Index>(a.block_q, std::max<Index>(16, w)), BK = a.block_k;
  std::vector<T> mall, lall;
  std::vector<Index> lo(BQ), hi(BQ);
  Online<T> st;
  TileWork<T> tw;
  for (Index b = 0; b < a.B; ++b) {
    if (need_full) full_row_partition(vw, b, beta, mall, lall, who);
    for (Index h = 0; h < a.H; ++h) {
      const auto Q = vw.Q(b, h);
      const auto K = vw.K(b, h);
      const auto V = vw.V(b, h);
      auto O = vw.O(b, h);
      for (Index qs = 0; qs < L; qs += BQ) {
        const Index nq = std::min<Index>(BQ, L - qs);
        for (Index r = 0; r < nq; ++r) range(qs + r, lo[r], hi[r]);
        const Index band_lo = lo[0], band_hi = hi[nq - 1];  // intervals are monotone in i
        st.reset(nq, a.dv);
        for (Index ks = band_lo; ks <= band_hi; ks += BK) {
          const Index nk = std::min<Index>(BK, band_hi + 1 - ks);
          bool inside = true;  // every row keeps the whole tile
          for (Index r = 0; r < nq && inside; ++r) inside = lo[r] <= ks && hi[r] >= ks + nk - 1;
          tile_step<T>(Q, K, &V, beta, qs, nq, ks, nk, inside ? nullptr : lo.data(), inside ? nullptr : hi.data(), st, tw, who, b, h);
        }
        for (Index r = 0; r < nq; ++r) {
          const Index i = qs + r, idx = vw.row(b, i, h);
          const T mA = need_full ? mall[i * a.H + h] : T(0), lA = need_full ? lall[i * a.H + h] : T(1);
          O.row(i) = st.O.row(r) * ro.scale(reading, st.m[r], st.l[r], mA, lA);
          ro.write(idx, need_full, st.m[r], st.l[r], mA, lA);
        }
      }
    }
  }
}

// ================================================================================================================
// (4) top-K retrieval
// ================================================================================================================
template <class T> void topk_retrieval(const RetrievalArgs<T>& a, const TopKSpec<T>& spec, Reading reading) {
  static constexpr const char* who = "hopfield::topk_retrieval";
  check_args(a, who);
  if (reading != Reading::R && reading != Reading::U) fail(who, "reading must be R or U");
  if (spec.K < 1 || spec.K > a.M) fail(who, "K = " + std::to_string(spec.K) + " must be in [1, M = " + std::to_string(a.M) + "]");
  if (spec.tie != TiePolicy::GE && spec.tie != TiePolicy::EXACT) fail(who, "tie policy must be GE or EXACT");
  if (spec.sel) require_finite(spec.sel, a.B, a.M, a.H, a.d, who, "sel");
  const Views<T> vw{a};
  const T beta = static_cast<T>(a.beta);
  const Index M = a.M, H = a.H, d = a.d, dv = a.dv, K = spec.K;
  const bool need_full = reading == Reading::U || a.lse || a.log_mass;
  const bool sep_keys = spec.sel != nullptr;                // key scores differ from the selection scores
  const bool full_key_scores = sep_keys && need_full;       // second GEMM over all M
  const RowOut<T> ro{a};
  // query rows per selection tile: keep the nq x M score tile around 2^20 entries
  const Index BQ = std::clamp<Index>((Index(1) << 20) / M, 1, a.block_q);
  RowMat<T> Sig, A;
  std::vector<T> buf(M), ks(M), heap;
  std::vector<Index> kept;
  kept.reserve(M);
  Vec<T> acc(dv);
  for (Index b = 0; b < a.B; ++b)
    for (Index h = 0; h < H; ++h) {
      const auto Q = vw.Q(b, h);
      const auto Kk = vw.K(b, h);
      const HeadMap<T> Sel = sep_keys ? HeadMap<T>(spec.sel + (b * M * H + h) * d, M, d, Eigen::OuterStride<>(H * d)) : Kk;
      const auto V = vw.V(b, h);
      auto O = vw.O(b, h);
      for (Index qs = 0; qs < a.L; qs += BQ) {
        const Index nq = std::min<Index>(BQ, a.L - qs);
        Sig.noalias() = Q.middleRows(qs, nq) * Sel.transpose();  // sigma = <q, sel_j>
        if (full_key_scores) A.noalias() = Q.middleRows(qs, nq) * Kk.transpose();
        for (Index r = 0; r < nq; ++r) {
          const Index i = qs + r, idx = vw.row(b, i, h);
          const T* sig = Sig.row(r).data();
          if (!Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>(sig, M).allFinite())
            for (Index j = 0; j < M; ++j)
              if (!std::isfinite(sig[j]))
                fail(who, "selection score <q, sel> (b=" + s1(b) + ", i=" + s1(i) + ", h=" + s1(h) + ", j=" + s1(j) + ") overflows");
          // sigma* = K-th largest (with multiplicity)
          T star;
          Index g = 0;  // # entries strictly greater than sigma*
          if (K <= M / 16) {
            // min-heap of the K largest (with multiplicity): one comparison per entry, few insertions
            heap.assign(sig, sig + K);
            std::make_heap(heap.begin(), heap.end(), std::greater<T>());
            for (Index j = K; j < M; ++j)
              if (sig[j] > heap.front()) {
                std::pop_heap(heap.begin(), heap.end(), std::greater<T>());
                heap.back() = sig[j];
                std::push_heap(heap.begin(), heap.end(), std::greater<T>());
              }
            star = heap.front();
            for (const T& x : heap) g += x > star;
          } else {
            std::copy(sig, sig + M, buf.begin());
            std::nth_element(buf.begin(), buf.begin() + (K - 1), buf.end(), std::greater<T>());
            star = buf[K - 1];  // every entry before position K-1 is >= sigma*, every one after <= sigma*
            for (Index t = 0; t < K - 1; ++t) g += buf[t] > star;
          }
          kept.clear();
          if (spec.tie == TiePolicy::GE) {
            for (Index j = 0; j < M; ++j)
              if (sig[j] >= star) kept.push_back(j);
          } else {
            Index eq_left = K - g;
            for (Index j = 0; j < M; ++j) {
              if (sig[j] > star) kept.push_back(j);
              else if (sig[j] == star && eq_left > 0) { kept.push_back(j); --eq_left; }
            }
          }
          const Index k = static_cast<Index>(kept.size());
          if (spec.kept) spec.kept[idx] = k;
          // key scores of the kept set and (when needed) the full-row partition
          T mA = T(0), lA = T(1);
          if (need_full) {
            const T* arow = full_key_scores ? A.row(r).data() : sig;
            Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> sc(ks.data(), M);
            sc = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>(arow, M) * beta;
            if (!sc.allFinite())
              for (Index j = 0; j < M; ++j)
                if (!std::isfinite(ks[j])) bad_score(who, b, i, h, j);
            mA = sc.maxCoeff();
            sc -= mA;
            exp_row(ks.data(), ks.data(), M);
            lA = sc.sum();
            // restore the kept key scores (beta a_j) for the masked softmax
            for (Index j : kept) ks[j] = arow[j] * beta;
          } else {
            for (Index j : kept) ks[j] = (sep_keys ? Q.row(i).dot(Kk.row(j)) : sig[j]) * beta;
          }
          T mM = ninf<T>();
          for (Index j : kept) {
            if (!std::isfinite(ks[j])) bad_score(who, b, i, h, j);
            mM = std::max(mM, ks[j]);
          }
          T lM = T(0);
          acc.setZero();
          for (Index j : kept) {
            const T e = std::exp(ks[j] - mM);
            lM += e;
            acc.noalias() += e * V.row(j).transpose();
          }
          O.row(i) = acc.transpose() * ro.scale(reading, mM, lM, mA, lA);
          ro.write(idx, need_full, mM, lM, mA, lA);
        }
      }
    }
}

// ================================================================================================================
// (5), (6) positive-feature linear-time retrieval (PRF, elu+1)
// ================================================================================================================
namespace {

// Log-feature producer: E (n x D) = log features of rows [r0, r0 + n) of X (one head view).
template <class T> using LogFeat = std::function<void(const HeadMap<T>& X, Index r0, Index n, RowMat<T>& E)>;
// Optional direct producer (a map whose features are cheaper than exp(log-features)): F(r, :) = exp(log-features of row
// r - shift[r]), with rowmax giving the per-row maximum log-feature.
template <class T> struct DirectFeat {
  std::function<void(const HeadMap<T>& X, Index r0, Index n, const Vec<T>& shift, RowMat<T>& F)> feat;
  std::function<void(const HeadMap<T>& X, Index r0, Index n, Vec<T>& rowmax)> rowmax;
};

// Positive-feature attention for one head (b, h): o_i = sum_mu w_mu v_mu / sum_mu w_mu with
// w_mu = e^{koff_mu} <Phi(q_i), Phi(k_mu)>, Phi = exp(log-features). koff (nullable, [M]) a per-key log weight.
template <class T>
void feature_head(const HeadMap<T>& Q, const HeadMap<T>& K, const HeadMap<T>& V, HeadMapMut<T>& O, Index D, const LogFeat<T>& lf,
                  const DirectFeat<T>* direct, const std::vector<T>* koff, Index BQ, Index BK, const char* who, Index b, Index h) {
  const Index M = K.rows(), L = Q.rows(), dv = V.cols();
  RowMat<T> S = RowMat<T>::Zero(D, dv);
  Vec<T> z = Vec<T>::Zero(D);
  T c = ninf<T>();  // one key-side shift for all keys (running max, the state rescaled when it grows)
  RowMat<T> E;
  Vec<T> rm, shiftv;
  auto raise = [&](T cm) {
    if (cm > c) {
      if (c != ninf<T>()) {
        const T al = std::exp(c - cm);
        S *= al;
        z *= al;
      }
      c = cm;
    }
  };
  for (Index ks = 0; ks < M; ks += BK) {
    const Index nk = std::min<Index>(BK, M - ks);
    if (direct && !koff) {
      direct->rowmax(K, ks, nk, rm);
      if (!rm.allFinite()) fail(who, "key log-features (b=" + s1(b) + ", h=" + s1(h) + ") overflow");
      raise(rm.maxCoeff());
      shiftv.setConstant(nk, c);
      direct->feat(K, ks, nk, shiftv, E);
    } else {
      lf(K, ks, nk, E);
      if (koff) E.colwise() += Eigen::Map<const Vec<T>>(koff->data() + ks, nk);
      if (!E.allFinite()) fail(who, "key log-features (b=" + s1(b) + ", h=" + s1(h) + ") overflow");
      raise(E.maxCoeff());
      E.array() -= c;
      exp_row(E.data(), E.data(), E.size());
    }
    S.noalias() += E.transpose() * V.middleRows(ks, nk);
    z.noalias() += E.colwise().sum().transpose();
  }
  const T thr = T(M) * T(D) * std::numeric_limits<T>::min() / std::numeric_limits<T>::epsilon();
  RowMat<T> Eq, F, num;
  Vec<T> den, qmax;
  std::vector<Index> redo;
  for (Index qs = 0; qs < L; qs += BQ) {
    const Index nq = std::min<Index>(BQ, L - qs);
    if (direct) {
      direct->rowmax(Q, qs, nq, qmax);
      if (!qmax.allFinite()) fail(who, "query log-features (b=" + s1(b) + ", h=" + s1(h) + ") overflow");
      direct->feat(Q, qs, nq, qmax, F);
    } else {
      lf(Q, qs, nq, Eq);
      if (!Eq.allFinite()) fail(who, "query log-features (b=" + s1(b) + ", h=" + s1(h) + ") overflow");
      qmax = Eq.rowwise().maxCoeff();
      F = Eq;
      F.array().colwise() -= qmax.array();
      exp_row(F.data(), F.data(), F.size());
    }
    num.noalias() = F * S;
    den.noalias() = F * z;
    for (Index r = 0; r < nq; ++r) {
      if (den[r] > thr && std::isfinite(den[r])) {
        O.row(qs + r) = num.row(r) * (T(1) / den[r]);
      } else {
        redo.push_back(qs + r);
      }
    }
  }
  if (redo.empty()) return;
  // Exact log-domain path for the rows whose shifted denominator is too small: log w_mu = lse_j(lq_j + lk_mu,j)
  // (+ koff_mu), online softmax over the keys.
  const Index nr = static_cast<Index>(redo.size());
  std::vector<RowMat<T>> redo_lq(nr);
  for (Index r = 0; r < nr; ++r) lf(Q, redo[r], 1, redo_lq[r]);
  Vec<T> m = Vec<T>::Constant(nr, ninf<T>()), l = Vec<T>::Zero(nr);
  RowMat<T> acc = RowMat<T>::Zero(nr, dv);
  Vec<T> lw, t(D);
  for (Index ks = 0; ks < M; ks += BK) {
    const Index nk = std::min<Index>(BK, M - ks);
    lf(K, ks, nk, E);
    lw.resize(nk);
    for (Index r = 0; r < nr; ++r) {
      const auto& lq = redo_lq[r];
      for (Index mu = 0; mu < nk; ++mu) {
        t = E.row(mu).transpose() + lq.row(0).transpose();
        const T tm = t.maxCoeff();
        lw[mu] = tm + std::log((t.array() - tm).exp().sum()) + (koff ? (*koff)[ks + mu] : T(0));
      }
      const T mn = std::max(m[r], lw.maxCoeff());
      const T al = m[r] == ninf<T>() ? T(0) : std::exp(m[r] - mn);
      Vec<T> e = (lw.array() - mn).exp().matrix();
      l[r] = l[r] * al + e.sum();
      acc.row(r) = acc.row(r) * al + e.transpose() * V.middleRows(ks, nk);
      m[r] = mn;
    }
  }
  for (Index r = 0; r < nr; ++r) O.row(redo[r]) = acc.row(r) / l[r];
}

template <class T> void check_feature_args(const RetrievalArgs<T>& a, const char* who) {
  check_args(a, who);
  if (a.lse || a.lse_mask || a.log_mass) fail(who, "lse, lse_mask and log_mass are not defined for this model (must be null)");
}

}  // namespace

template <class T> void prf_retrieval(const RetrievalArgs<T>& a, const PrfSpec<T>& spec) {
  static constexpr const char* who = "hopfield::prf_retrieval";
  check_feature_args(a, who);
  if (spec.n_f < 1) fail(who, "n_f must be >= 1, got " + std::to_string(spec.n_f));
  if (!spec.omega) fail(who, "omega is null");
  require_finite(spec.omega, 1, a.H, spec.n_f, a.d, who, "omega");
  const Views<T> vw{a};
  const T beta = static_cast<T>(a.beta), sb = std::sqrt(beta);
  const Index nf = spec.n_f, D = spec.hyperbolic ? 2 * nf : nf;
  for (Index h = 0; h < a.H; ++h) {
    const Eigen::Map<const RowMat<T>> Om(spec.omega + h * nf * a.d, nf, a.d);
    RowMat<T> P;
    Vec<T> nrm;
    // log Phi(x) up to the constant -log(D)/2 (it cancels): sqrt(beta) w_i.x - beta |x|^2 / 2 (and - for hyperbolic)
    const LogFeat<T> lf = [&](const HeadMap<T>& X, Index r0, Index n, RowMat<T>& E) {
      P.noalias() = X.middleRows(r0, n) * Om.transpose();
      P *= sb;
      nrm = X.middleRows(r0, n).rowwise().squaredNorm() * (beta / T(2));
      E.resize(n, D);
      E.leftCols(nf) = P;
      E.leftCols(nf).colwise() -= nrm;
      if (spec.hyperbolic) {
        E.rightCols(nf) = -P;
        E.rightCols(nf).colwise() -= nrm;
      }
    };
    for (Index b = 0; b < a.B; ++b) {
      auto O = vw.O(b, h);
      feature_head<T>(vw.Q(b, h), vw.K(b, h), vw.V(b, h), O, D, lf, nullptr, nullptr, a.block_q, a.block_k, who, b, h);
    }
  }
}

template <class T> void linear_retrieval(const RetrievalArgs<T>& a, const LinearSpec& spec) {
  static constexpr const char* who = "hopfield::linear_retrieval";
  check_feature_args(a, who);
  const Views<T> vw{a};
  const T sb = spec.beta_scaling ? std::sqrt(static_cast<T>(a.beta)) : T(1);
  const Index D = a.d;
  // log phi(x) = x (x <= 0), log1p(x) (x > 0), x scaled by sqrt(beta) with beta_scaling
  const LogFeat<T> lf = [&](const HeadMap<T>& X, Index r0, Index n, RowMat<T>& E) {
    E = X.middleRows(r0, n);
    if (spec.beta_scaling) E *= sb;
    // log1p(x) for x > 0 by Goldberg's vectorisable form log(u) * x / (u - 1), u = fl(1 + x) (a few ulp; x when u == 1)
    const auto X0 = E.array().cwiseMax(T(0));
    const auto U = X0 + T(1);
    const auto lp = (U == T(1)).select(X0, U.log() * (X0 / (U - T(1))));
    E = (E.array() > T(0)).select(lp, E.array()).matrix();
  };
  // direct features: x + 1 scaled by e^{-shift} (x > 0), e^{x - shift} (x <= 0); max log-feature = log phi(max x)
  RowMat<T> G;
  DirectFeat<T> direct;
  direct.rowmax = [&](const HeadMap<T>& X, Index r0, Index n, Vec<T>& out) {
    out = X.middleRows(r0, n).rowwise().maxCoeff() * sb;
    for (Index r = 0; r < n; ++r) out[r] = out[r] > T(0) ? std::log1p(out[r]) : out[r];
  };
  direct.feat = [&](const HeadMap<T>& X, Index r0, Index n, const Vec<T>& shift, RowMat<T>& F) {
    G = X.middleRows(r0, n);
    if (spec.beta_scaling) G *= sb;
    F = G.cwiseMin(T(0));
    F.array().colwise() -= shift.array();
    exp_row(F.data(), F.data(), F.size());
    const Index dd = G.cols();
    for (Index r = 0; r < n; ++r) {
      const T sc = std::exp(-shift[r]);
      const T* g = G.row(r).data();
      T* f = F.row(r).data();
      if (sc >= std::numeric_limits<T>::min() / std::numeric_limits<T>::epsilon()) {
        for (Index j = 0; j < dd; ++j) f[j] = g[j] > T(0) ? (T(1) + g[j]) * sc : f[j];
      } else {  // huge inputs: e^{-shift} is subnormal, stay in the log domain
        for (Index j = 0; j < dd; ++j)
          if (g[j] > T(0)) f[j] = std::exp(std::log1p(g[j]) - shift[r]);
      }
    }
  };
  std::vector<T> koff;
  RowMat<T> E;
  for (Index b = 0; b < a.B; ++b)
    for (Index h = 0; h < a.H; ++h) {
      const auto K = vw.K(b, h);
      const std::vector<T>* ko = nullptr;
      if (spec.literal_C2) {
        // koff_mu = -log h(k_mu), h(y) = sum_nu <phi(y), phi(k_nu)> = sum_j phi_j(y) z_j (z the plain key sum),
        // in the log domain with one shift of z: log h = lse_j(log phi_j(y) + log z~_j) + c.
        const Index M = a.M;
        Vec<T> z = Vec<T>::Zero(D);
        T c = ninf<T>();
        for (Index ks = 0; ks < M; ks += a.block_k) {
          const Index nk = std::min<Index>(a.block_k, M - ks);
          lf(K, ks, nk, E);
          const T cm = E.maxCoeff();
          if (cm > c) {
            if (c != ninf<T>()) z *= std::exp(c - cm);
            c = cm;
          }
          E.array() -= c;
          exp_row(E.data(), E.data(), E.size());
          z.noalias() += E.colwise().sum().transpose();
        }
        const Vec<T> lz = z.array().log().matrix();  // -inf where z~_j underflowed
        koff.resize(M);
        Vec<T> t(D);
        for (Index ks = 0; ks < M; ks += a.block_k) {
          const Index nk = std::min<Index>(a.block_k, M - ks);
          lf(K, ks, nk, E);
          for (Index mu = 0; mu < nk; ++mu) {
            t = E.row(mu).transpose() + lz;
            const T tm = t.maxCoeff();
            koff[ks + mu] = -(tm + std::log((t.array() - tm).exp().sum()));
          }
        }
        ko = &koff;
      }
      auto O = vw.O(b, h);
      feature_head<T>(vw.Q(b, h), K, vw.V(b, h), O, D, lf, &direct, ko, a.block_q, a.block_k, who, b, h);
    }
}

template void dense_retrieval<float>(const RetrievalArgs<float>&);
template void dense_retrieval<double>(const RetrievalArgs<double>&);
template std::int64_t masked_retrieval<float>(const RetrievalArgs<float>&, const CsrMask&, Reading);
template std::int64_t masked_retrieval<double>(const RetrievalArgs<double>&, const CsrMask&, Reading);
template void window_retrieval<float>(const RetrievalArgs<float>&, const WindowSpec&, Reading);
template void window_retrieval<double>(const RetrievalArgs<double>&, const WindowSpec&, Reading);
template void topk_retrieval<float>(const RetrievalArgs<float>&, const TopKSpec<float>&, Reading);
template void topk_retrieval<double>(const RetrievalArgs<double>&, const TopKSpec<double>&, Reading);
template void prf_retrieval<float>(const RetrievalArgs<float>&, const PrfSpec<float>&);
template void prf_retrieval<double>(const RetrievalArgs<double>&, const PrfSpec<double>&);
template void linear_retrieval<float>(const RetrievalArgs<float>&, const LinearSpec&);
template void linear_retrieval<double>(const RetrievalArgs<double>&, const LinearSpec&);

}  // namespace recall::opt::hopfield
