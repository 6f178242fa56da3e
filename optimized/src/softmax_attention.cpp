// Tiled online-softmax causal attention and the naive full-score-row kernel (see the header).
#include "recall/fault.hpp"
#include "recall/optimized/softmax_attention.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <cstring>
#include <type_traits>
#include <limits>
#include <stdexcept>
#include <string>

namespace recall::opt {
namespace {

template <class Acc> using Mat = Eigen::Matrix<Acc, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <class In, class Acc> void check(const SoftmaxAttentionArgs<In, Acc>& a, const char* who) {
  const std::string w = who;
  if (a.B < 1 || a.H < 1 || a.T < 1 || a.dk < 1 || a.dv < 1)
    throw std::invalid_argument(w + ": B, H, T, dk, dv must be >= 1");
  if (!a.q || !a.k || !a.v || !a.o) throw std::invalid_argument(w + ": q, k, v and o must not be null");
  if (a.block_q < 1 || a.block_k < 1) throw std::invalid_argument(w + ": block sizes must be >= 1");
  if (!(a.scale >= 0) || !std::isfinite(a.scale)) throw std::invalid_argument(w + ": scale must be finite and >= 0 (0 = 1/sqrt(dk))");
}

// Storage to accumulation: exact widening (bf16: the upper half of a binary32; fp16 through
// Eigen::half's exact conversion).
template <class Acc, class In> Acc widen(const In& x) {
  if constexpr (std::is_same_v<In, bf16_t>) {
    const std::uint32_t w = static_cast<std::uint32_t>(x.bits) << 16;
    float f;
    std::memcpy(&f, &w, sizeof f);
    return static_cast<Acc>(f);
  } else if constexpr (std::is_same_v<In, fp16_t>) {
    return static_cast<Acc>(static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(x.bits)));
  } else {
    return static_cast<Acc>(x);
  }
}
// Head slice (rows x cols starting at p) converted to the accumulation type.
template <class Acc, class In> Mat<Acc> load(const In* p, int rows, int cols) {
  Mat<Acc> m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = widen<Acc>(p[i]);
  return m;
}

// x rounded to the storage type In (nearest even) and back: the fault sm_accumulate_storage.
template <class In, class Acc> Acc narrow_widen(Acc x) {
  if constexpr (std::is_same_v<In, bf16_t>) {
    const float f = static_cast<float>(x);
    std::uint32_t w;
    std::memcpy(&w, &f, sizeof w);
    w += 0x7fffu + ((w >> 16) & 1u);
    w &= 0xffff0000u;
    float r;
    std::memcpy(&r, &w, sizeof r);
    return static_cast<Acc>(r);
  } else if constexpr (std::is_same_v<In, fp16_t>) {
    return static_cast<Acc>(static_cast<float>(Eigen::half(static_cast<float>(x))));
  } else {
    return x;
  }
}

[[noreturn]] void bad_logit(const char* who, int b, int h, int t, int j) {
  throw std::invalid_argument(std::string(who) + ": logit (b=" + std::to_string(b + 1) + ",h=" + std::to_string(h + 1) + ",t=" +
                              std::to_string(t + 1) + ",j=" + std::to_string(j + 1) +
                              ") is not finite in the accumulation precision (overflow of scale q^T k)");
}

}  // namespace

template <class In, class Acc> void softmax_attention_tiled(const SoftmaxAttentionArgs<In, Acc>& a) {
  check(a, "softmax_attention_tiled");
  const Acc scale = static_cast<Acc>(a.scale > 0 ? a.scale : 1.0 / std::sqrt(static_cast<double>(a.dk)));
  const Acc ninf = -std::numeric_limits<Acc>::infinity();
  const int T = a.T, dk = a.dk, dv = a.dv, BQ = a.block_q, BK = a.block_k;
  Mat<Acc> S, O;
  Eigen::Matrix<Acc, Eigen::Dynamic, 1> m, l;
  for (int b = 0; b < a.B; ++b)
    for (int h = 0; h < a.H; ++h) {
      const std::size_t bh = static_cast<std::size_t>(b) * a.H + h;
      const Mat<Acc> Q = load<Acc>(a.q + bh * T * dk, T, dk), K = load<Acc>(a.k + bh * T * dk, T, dk),
                     V = load<Acc>(a.v + bh * T * dv, T, dv);
      const unsigned char* km = a.key_mask ? a.key_mask + bh * T : nullptr;
      Acc* out = a.o + bh * T * dv;
      for (int qs = 0; qs < T; qs += BQ) {
        const int nq = std::min(BQ, T - qs), qe = qs + nq;
        m.setConstant(nq, ninf);
        l.setZero(nq);
        O.setZero(nq, dv);
        for (int ks = 0; ks < qe; ks += BK) {
          const int nk = std::min(BK, qe - ks);
          S.noalias() = Q.middleRows(qs, nq) * K.middleRows(ks, nk).transpose();
          S *= scale;
          if (RECALL_FAULT_ON(sm_scale_twice)) S *= scale;
          const int peek = RECALL_FAULT_ON(sm_causal_off_by_one) ? 1 : 0;  // fault: key t + 1 visible
          const bool diag = ks + nk - 1 > qs;  // some (t, j) with j > t in this tile
          for (int r = 0; r < nq; ++r) {
            const int t = qs + r;
            Acc* s = S.row(r).data();
            Acc bmax = ninf;
            for (int c = 0; c < nk; ++c) {
              const int j = ks + c;
              if ((diag && j > t + peek) || (km && !km[j])) { s[c] = ninf; continue; }
              if (!std::isfinite(s[c])) bad_logit("softmax_attention_tiled", b, h, t, j);
              bmax = std::max(bmax, s[c]);
            }
            Acc mnew = std::max(m[r], bmax);
            if (mnew == ninf) { S.row(r).setZero(); continue; }  // no valid key so far: nothing to add
            if (RECALL_FAULT_ON(sm_no_max_subtraction)) mnew = Acc(0);
            const Acc alpha = m[r] == ninf ? Acc(0) : std::exp(m[r] - mnew);
            S.row(r) = (S.row(r).array() - mnew).exp();  // masked: exp(-inf) = 0
            l[r] = l[r] * alpha + S.row(r).sum();
            if (alpha != Acc(1)) O.row(r) *= alpha;
            m[r] = mnew;
          }
          O.noalias() += S * V.middleRows(ks, nk);
          if constexpr (!std::is_same_v<In, Acc>)
            if (RECALL_FAULT_ON(sm_accumulate_storage))
              for (Eigen::Index e = 0; e < O.size(); ++e) O.data()[e] = narrow_widen<In, Acc>(O.data()[e]);
        }
        for (int r = 0; r < nq; ++r) {
          Acc* o = out + static_cast<std::size_t>(qs + r) * dv;
          if (l[r] > Acc(0)) {
            const Acc inv = Acc(1) / l[r];
            for (int c = 0; c < dv; ++c) o[c] = O(r, c) * inv;
          } else {
            for (int c = 0; c < dv; ++c) o[c] = Acc(0);
          }
          if (a.lse) a.lse[bh * T + qs + r] = l[r] > Acc(0) ? m[r] + std::log(l[r]) : ninf;
        }
      }
    }
}

template <class In, class Acc> void softmax_attention_naive(const SoftmaxAttentionArgs<In, Acc>& a) {
  check(a, "softmax_attention_naive");
  const Acc scale = static_cast<Acc>(a.scale > 0 ? a.scale : 1.0 / std::sqrt(static_cast<double>(a.dk)));
  const Acc ninf = -std::numeric_limits<Acc>::infinity();
  const int T = a.T, dk = a.dk, dv = a.dv, BQ = a.block_q;
  Mat<Acc> S, O;
  for (int b = 0; b < a.B; ++b)
    for (int h = 0; h < a.H; ++h) {
      const std::size_t bh = static_cast<std::size_t>(b) * a.H + h;
      const Mat<Acc> Q = load<Acc>(a.q + bh * T * dk, T, dk), K = load<Acc>(a.k + bh * T * dk, T, dk),
                     V = load<Acc>(a.v + bh * T * dv, T, dv);
      const unsigned char* km = a.key_mask ? a.key_mask + bh * T : nullptr;
      for (int qs = 0; qs < T; qs += BQ) {
        const int nq = std::min(BQ, T - qs);
        S.noalias() = Q.middleRows(qs, nq) * K.transpose();  // full score rows
        S *= scale;
        Eigen::Matrix<Acc, Eigen::Dynamic, 1> l(nq);
        for (int r = 0; r < nq; ++r) {
          const int t = qs + r;
          Acc* s = S.row(r).data();
          Acc mx = ninf;
          for (int j = 0; j < T; ++j) {
            if (j > t || (km && !km[j])) { s[j] = ninf; continue; }
            if (!std::isfinite(s[j])) bad_logit("softmax_attention_naive", b, h, t, j);
            mx = std::max(mx, s[j]);
          }
          if (mx == ninf) { S.row(r).setZero(); l[r] = 0; continue; }
          S.row(r) = (S.row(r).array() - mx).exp();
          l[r] = S.row(r).sum();
          if (a.lse) a.lse[bh * T + t] = mx + std::log(l[r]);
        }
        O.noalias() = S * V;
        for (int r = 0; r < nq; ++r) {
          Acc* o = a.o + (bh * T + qs + r) * dv;
          for (int c = 0; c < dv; ++c) o[c] = l[r] > Acc(0) ? O(r, c) / l[r] : Acc(0);
          if (a.lse && !(l[r] > Acc(0))) a.lse[bh * T + qs + r] = ninf;
        }
      }
    }
}

template void softmax_attention_tiled<float, float>(const SoftmaxAttentionArgs<float, float>&);
template void softmax_attention_tiled<double, double>(const SoftmaxAttentionArgs<double, double>&);
template void softmax_attention_tiled<bf16_t, float>(const SoftmaxAttentionArgs<bf16_t, float>&);
template void softmax_attention_tiled<fp16_t, float>(const SoftmaxAttentionArgs<fp16_t, float>&);
template void softmax_attention_naive<float, float>(const SoftmaxAttentionArgs<float, float>&);
template void softmax_attention_naive<double, double>(const SoftmaxAttentionArgs<double, double>&);

}  // namespace recall::opt
