// Eigen CPU kernels of the linear-attention family; see recall/optimized/linear_attention.hpp.
#include "recall/fault.hpp"
#include "recall/optimized/linear_attention.hpp"
#include "kernel_support.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>

namespace recall::opt {
namespace {

using namespace support;

template <class T> void validate(const LinearAttentionArgs<T>& a, const char* who, bool chunked) { validate_bhtd(a, who, chunked); }

// Per-call workspace of the chunked kernel, sized once for (C, dk, dv); tail chunks use the
// top-left corners. A's strictly upper part is zeroed here and never written afterwards.
template <class T> struct ChunkWorkspace {
  RowMat<T> S;   // dv x dk running state
  RowMat<T> A;   // C x C masked scores (lower triangle)
  RowMat<T> L;   // C x C log segment sums (gated)
  RowMat<T> D;   // C x C decay matrix (gated), 0 above the diagonal
  RowMat<T> Kw;  // C x dk  diag(D_{e,:}) K_c (gated)
  Vec<T> eb;     // C: exp(b_t)
  Vec<T> cum;    // C: b_t

  ChunkWorkspace(Index C, Index dk, Index dv, bool gated)
      : S(dv, dk), A(RowMat<T>::Zero(C, C)), eb(C), cum(C) {
    if (gated) {
      L = RowMat<T>::Zero(C, C);
      D = RowMat<T>::Zero(C, C);
      Kw.resize(C, dk);
    }
  }
};

// One head of the chunked form. s0 (dv x dk) may be null; sfin (dv x dk) may be null.
template <class T>
void chunked_head(Index Tn, Index dk, Index dv, Index C, const T* q, const T* k, const T* v, const T* lg,
                  const T* s0, T* o, T* sfin, ChunkWorkspace<T>& ws) {
  auto& S = ws.S;
  bool state_zero = (s0 == nullptr);
  if (s0 && RECALL_FAULT_ON(la_s0_transposed)) S = ConstMap<T>(s0, dk, dv).transpose();
  else if (s0) S = ConstMap<T>(s0, dv, dk);
  else S.setZero();

  if (Tn > 0) {
    ConstMap<T> Q(q, Tn, dk), K(k, Tn, dk), V(v, Tn, dv);
    MutMap<T> O(o, Tn, dv);
    for (Index s = 0; s < Tn; s += C) {
      const Index n = std::min(C, Tn - s);
      if (RECALL_FAULT_ON(la_tail_dropped) && n < C) break;
      if (RECALL_FAULT_ON(la_state_not_carried) && s > 0) {
        S.setZero();
        state_zero = true;
      }
      const auto Qc = Q.middleRows(s, n);
      const auto Kc = K.middleRows(s, n);
      const auto Vc = V.middleRows(s, n);
      auto Oc = O.middleRows(s, n);
      auto A = ws.A.topLeftCorner(n, n);

      if (lg) {
        const T* g0 = lg + s;
        // fault gla_gate_off_by_one: token t takes the gate of token t - 1
        const bool shift = RECALL_FAULT_ON(gla_gate_off_by_one);
        auto gate = [&](Index t) { return shift && s + t > 0 ? g0[t - 1] : g0[t]; };
        // b_t = sum_{j=s}^{t} log a_j (chunk-local), exp exact 0 for -inf
        T c = T(0);
        for (Index t = 0; t < n; ++t) {
          c += gate(t);
          ws.cum[t] = c;
          ws.eb[t] = std::exp(c);
        }
        // L(t,i) = sum_{j=i+1}^{t} log a_j as direct segment sums, row by row:
        // L(t, 0..t-1) = L(t-1, 0..t-1) + log a_t, L(t,t) = 0; D = exp(L) on i <= t, 0 above.
        auto& L = ws.L;
        auto& D = ws.D;
        L(0, 0) = T(0);
        D(0, 0) = T(1);
        for (Index t = 1; t < n; ++t) {
          L.row(t).head(t).array() = L.row(t - 1).head(t).array() + gate(t);
          L(t, t) = T(0);
          exp_row<T>(L.row(t).data(), D.row(t).data(), t + 1);
        }
        // The strictly upper parts of L and D were zeroed at allocation and are never written.
        if (RECALL_FAULT_ON(gla_decay_linear_space))  // D_ti = prod_{j<=t} a_j / prod_{j<=i} a_j
          for (Index t = 0; t < n; ++t)
            for (Index i = 0; i <= t; ++i) D(t, i) = ws.eb[t] / ws.eb[i];
      }

      // inter-chunk term: O_c = diag(exp(b)) Q_c S^T
      if (state_zero) {
        Oc.setZero();
      } else {
        Oc.noalias() = Qc * S.transpose();
        if (lg) Oc.array().colwise() *= ws.eb.head(n).array();
      }

      // intra-chunk term: O_c += (Q_c K_c^T ⊙ D) V_c, lower triangle only
      A.template triangularView<Eigen::Lower>() = Qc * Kc.transpose();
      if (lg) A.array() *= ws.D.topLeftCorner(n, n).array();  // both zero above the diagonal
      Oc.noalias() += A.template triangularView<Eigen::Lower>() * Vc;

      // state passing: S = exp(b_e) S + V_c^T diag(D_{e,:}) K_c
      if (lg) {
        const T be = ws.eb[n - 1];
        const bool after = RECALL_FAULT_ON(gla_gate_after_update);
        if (!state_zero && !after) S *= be;
        auto Kw = ws.Kw.topRows(n);
        Kw.noalias() = ws.D.row(n - 1).head(n).transpose().asDiagonal() * Kc;
        S.noalias() += Vc.transpose() * Kw;
        if (after) S *= be;
      } else {
        S.noalias() += Vc.transpose() * Kc;
      }
      state_zero = false;
    }
  }
  if (sfin) MutMap<T>(sfin, dv, dk) = S;
}

template <class T> void chunked_all(const LinearAttentionArgs<T>& a) {
  const Index T_ = a.T, dk = a.dk, dv = a.dv;
  const Index C = std::max<Index>(1, std::min<Index>(a.chunk, std::max<Index>(T_, 1)));
  ChunkWorkspace<T> ws(C, dk, dv, a.log_gate != nullptr);
  const Index heads = Index(a.B) * a.H;
  for (Index h = 0; h < heads; ++h) {
    chunked_head<T>(T_, dk, dv, C, a.q ? a.q + h * T_ * dk : nullptr, a.k ? a.k + h * T_ * dk : nullptr,
                    a.v ? a.v + h * T_ * dv : nullptr, a.log_gate ? a.log_gate + h * T_ : nullptr,
                    a.s0 ? a.s0 + h * dv * dk : nullptr, a.o ? a.o + h * T_ * dv : nullptr,
                    a.s_final ? a.s_final + h * dv * dk : nullptr, ws);
  }
}

}  // namespace

template <class T> void linear_attention_recurrent(const LinearAttentionArgs<T>& a) {
  validate(a, "linear_attention_recurrent", false);
  const Index T_ = a.T, dk = a.dk, dv = a.dv;
  RowMat<T> S(dv, dk);
  const Index heads = Index(a.B) * a.H;
  for (Index h = 0; h < heads; ++h) {
    if (a.s0) S = ConstMap<T>(a.s0 + h * dv * dk, dv, dk);
    else S.setZero();
    if (T_ > 0) {
      ConstMap<T> Q(a.q + h * T_ * dk, T_, dk), K(a.k + h * T_ * dk, T_, dk), V(a.v + h * T_ * dv, T_, dv);
      MutMap<T> O(a.o + h * T_ * dv, T_, dv);
      const T* lg = a.log_gate ? a.log_gate + h * T_ : nullptr;
      for (Index t = 0; t < T_; ++t) {
        const auto q = Q.row(t);
        const auto k = K.row(t);
        const auto v = V.row(t);
        // one fused pass over S: row r <- a_t row r + v_r k_t, then o_r = row r . q_t
        if (lg) {
          const T g = std::exp(lg[t]);  // exact 0 for a -inf log-gate
          for (Index r = 0; r < dv; ++r) {
            auto Sr = S.row(r);
            Sr = g * Sr + v[r] * k;
            O(t, r) = Sr.dot(q);
          }
        } else {
          for (Index r = 0; r < dv; ++r) {
            auto Sr = S.row(r);
            Sr += v[r] * k;
            O(t, r) = Sr.dot(q);
          }
        }
      }
    }
    if (a.s_final) MutMap<T>(a.s_final + h * dv * dk, dv, dk) = S;
  }
}

template <class T> void linear_attention_chunked(const LinearAttentionArgs<T>& a) {
  validate(a, "linear_attention_chunked", true);
  chunked_all(a);
}

template <class T> void normalized_linear_attention_chunked(const LinearAttentionArgs<T>& a, const T* z0, T* z_final) {
  validate(a, "normalized_linear_attention_chunked", true);
  const Index T_ = a.T, dk = a.dk, dv = a.dv, dva = dv + 1;
  const Index C = std::max<Index>(1, std::min<Index>(a.chunk, std::max<Index>(T_, 1)));
  ChunkWorkspace<T> ws(C, dk, dva, a.log_gate != nullptr);
  RowMat<T> Va(T_, dva), Oa(T_, dva), S0a(dva, dk), Sfa(dva, dk);
  if (T_ > 0) Va.col(dv).setOnes();
  const bool want_s0 = a.s0 || z0;
  const Index heads = Index(a.B) * a.H;
  for (Index h = 0; h < heads; ++h) {
    if (T_ > 0) Va.leftCols(dv) = ConstMap<T>(a.v + h * T_ * dv, T_, dv);
    if (want_s0) {
      if (a.s0) S0a.topRows(dv) = ConstMap<T>(a.s0 + h * dv * dk, dv, dk);
      else S0a.topRows(dv).setZero();
      if (z0) S0a.row(dv) = Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>>(z0 + h * dk, dk);
      else S0a.row(dv).setZero();
    }
    chunked_head<T>(T_, dk, dva, C, T_ > 0 ? a.q + h * T_ * dk : nullptr, T_ > 0 ? a.k + h * T_ * dk : nullptr,
                    T_ > 0 ? Va.data() : nullptr, a.log_gate ? a.log_gate + h * T_ : nullptr,
                    want_s0 ? S0a.data() : nullptr, T_ > 0 ? Oa.data() : nullptr, Sfa.data(), ws);
    if (T_ > 0) {
      MutMap<T> O(a.o + h * T_ * dv, T_, dv);
      O = Oa.leftCols(dv).array().colwise() / Oa.col(dv).array();  // no zero guard: caller validates
    }
    if (a.s_final) MutMap<T>(a.s_final + h * dv * dk, dv, dk) = Sfa.topRows(dv);
    if (z_final) Eigen::Map<Eigen::Matrix<T, 1, Eigen::Dynamic>>(z_final + h * dk, dk) = Sfa.row(dv);
  }
}

template void linear_attention_recurrent<float>(const LinearAttentionArgs<float>&);
template void linear_attention_recurrent<double>(const LinearAttentionArgs<double>&);
template void linear_attention_chunked<float>(const LinearAttentionArgs<float>&);
template void linear_attention_chunked<double>(const LinearAttentionArgs<double>&);
template void normalized_linear_attention_chunked<float>(const LinearAttentionArgs<float>&, const float*, float*);
template void normalized_linear_attention_chunked<double>(const LinearAttentionArgs<double>&, const double*, double*);

}  // namespace recall::opt
