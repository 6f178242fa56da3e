// Eigen CPU kernels of the delta-rule family; see recall/optimized/delta_rule.hpp.
#include "recall/fault.hpp"
#include "recall/optimized/delta_rule.hpp"
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

template <class T> void validate(const DeltaRuleArgs<T>& a, const char* who, bool chunked) {
  validate_bhtd(a, who, chunked);
  if (a.T > 0 && !a.beta) throw std::invalid_argument(std::string(who) + ": beta is null (required when T > 0)");
}

// x *= exp(b) for b <= 0, as a product of factors exp(lo) ... exp(rest) that are each normal numbers
// (relative error u): a lone exp(b) below the normal range is subnormal (few digits) or 0 although
// the product exp(b) x may still be representable (s0 ~ 1e5 decayed by e^-114 is a float
// subnormal, exp(-114) alone underflows to 0). The only underflow left is that of the product,
// which the result itself has (as in the recurrent form).
template <class T, class X> inline void scale_by_exp(X&& x, T b) {
  if (!(b < exp_lo<T>())) {
    x *= std::exp(b);
    return;
  }
  if (b == -std::numeric_limits<T>::infinity()) {
    x.setZero();
    return;
  }
  const T f = std::exp(exp_lo<T>());
  while (b < exp_lo<T>()) {
    x *= f;
    b -= exp_lo<T>();
    if (x.isZero(T(0))) return;
  }
  x *= std::exp(b);
}

// Per-call workspace, sized once for (C, dk, dv); tail chunks use the top-left corners. The
// strictly upper parts of L, D and Ls are zeroed here and never written afterwards.
template <class T> struct Workspace {
  RowMat<T> S;     // dv x dk running state
  RowMat<T> W;     // 2C x dk  [Q_c; K_c] stacked, so that the products with S^T and K_c^T are one GEMM each
  RowMat<T> WS;    // 2C x dv  [Q_c; K_c] S^T
  RowMat<T> WK;    // 2C x C   [Q_c; K_c] K_c^T (then the top block is masked by G: (Q_c K_c^T ⊙ G))
  RowMat<T> Ls;    // C x C  strictly lower part of the system: beta_t G_ti (k_t . k_i), i < t
  RowMat<T> Tinv;  // C x C  product-form inverse (lower triangle)
  RowMat<T> L, D;  // C x C  log segment sums and their exps (gated), zero above the diagonal
  RowMat<T> R;     // C x dv  right-hand side, then Delta
  RowMat<T> X;     // C x dv  Delta for the product inverse
  RowMat<T> Kw;    // C x dk  diag(G_{e,:}) K_c (gated)
  Vec<T> eb;       // C: b_t, the log of the decay from the chunk start (applied by scale_by_exp)
  Vec<T> lhalf, hrow;  // C: L_{e,:} / 2 and its exp (gated state passing)

  Workspace(Index C, Index dk, Index dv, bool gated, bool prodinv)
      : S(dv, dk), W(2 * C, dk), WS(2 * C, dv), WK(2 * C, C), Ls(RowMat<T>::Zero(C, C)), R(C, dv), X(C, dv), eb(C) {
    if (prodinv) Tinv = RowMat<T>::Zero(C, C);
    if (gated) {
      L = RowMat<T>::Zero(C, C);
      D = RowMat<T>::Zero(C, C);
      Kw.resize(C, dk);
      lhalf.resize(C);
      hrow.resize(C);
    }
  }
};

template <class T>
void chunked_head(Index Tn, Index dk, Index dv, Index C, const T* q, const T* k, const T* v, const T* beta, const T* lg,
                  const T* s0, T* o, T* sfin, UnitLowerSolve how, Workspace<T>& ws) {
  auto& S = ws.S;
  bool state_zero = (s0 == nullptr);
  if (s0) S = ConstMap<T>(s0, dv, dk);
  else S.setZero();

  if (Tn > 0) {
    ConstMap<T> Q(q, Tn, dk), K(k, Tn, dk), V(v, Tn, dv);
    MutMap<T> O(o, Tn, dv);
    for (Index s = 0; s < Tn; s += C) {
      Index n = std::min(C, Tn - s);
      if (RECALL_FAULT_ON(dr_tail_short) && n < C && n > 1) --n;
      const auto Qc = Q.middleRows(s, n);
      const auto Kc = K.middleRows(s, n);
      const auto Vc = V.middleRows(s, n);
      const T* bc = beta + s;
      // faults dr_beta_one_factor (no beta on the right-hand side), dr_correction_sign (+ K S^T)
      const bool rhs_beta = !RECALL_FAULT_ON(dr_beta_one_factor);
      const T corr = RECALL_FAULT_ON(dr_correction_sign) ? T(-1) : T(1);
      auto rb = [&](Index t) { return rhs_beta ? bc[t] : T(1); };
      auto Oc = O.middleRows(s, n);
      auto R = ws.R.topRows(n);
      auto X = ws.X.topRows(n);
      auto Ls = ws.Ls.topLeftCorner(n, n);
      ws.W.topRows(n) = Qc;
      ws.W.middleRows(n, n) = Kc;
      const auto Wc = ws.W.topRows(2 * n);
      auto WK = ws.WK.topLeftCorner(2 * n, n);
      WK.noalias() = Wc * Kc.transpose();  // [Q_c K_c^T; K_c K_c^T]
      auto P = WK.topRows(n);
      const auto KK = WK.bottomRows(n);

      if (lg) {
        // b_t = sum_{j=s}^{t} log alpha_j (chunk-local); L(t,i) = sum_{j=i+1}^{t} log alpha_j as
        // direct segment sums row by row; D = exp(L) on i <= t (exact 0 across a zero gate).
        const T* g = lg + s;
        T c = T(0);
        for (Index t = 0; t < n; ++t) {
          c += g[t];
          ws.eb[t] = c;  // the log of the decay: applied through scale_by_exp
        }
        auto& L = ws.L;
        auto& D = ws.D;
        L(0, 0) = T(0);
        D(0, 0) = T(1);
        for (Index t = 1; t < n; ++t) {
          L.row(t).head(t).array() = L.row(t - 1).head(t).array() + g[t];
          L(t, t) = T(0);
          exp_row<T>(L.row(t).data(), D.row(t).data(), t + 1);
        }
      }

      // the system's strictly lower part: Ls(t,i) = beta_t G_ti (k_t . k_i), i < t
      for (Index t = 1; t < n; ++t) {
        if (lg) Ls.row(t).head(t).array() = bc[t] * (KK.row(t).head(t).array() * ws.D.row(t).head(t).array());
        else Ls.row(t).head(t) = bc[t] * KK.row(t).head(t);
      }

      // right-hand side R = diag(beta) (V_c - diag(exp b) K_c S^T); inter-chunk output diag(exp b) Q_c S^T
      if (state_zero) {
        for (Index t = 0; t < n; ++t) R.row(t) = rb(t) * Vc.row(t);
        Oc.setZero();
      } else {
        auto WS = ws.WS.topRows(2 * n);
        WS.noalias() = Wc * S.transpose();  // [Q_c S^T; K_c S^T]
        const auto X = WS.bottomRows(n);
        Oc = WS.topRows(n);
        if (lg) {
          for (Index t = 0; t < n; ++t) {
            auto x = WS.row(n + t);
            scale_by_exp(x, ws.eb[t]);
            R.row(t) = rb(t) * (Vc.row(t) - corr * x);
            scale_by_exp(Oc.row(t), ws.eb[t]);
          }
        } else {
          for (Index t = 0; t < n; ++t) R.row(t) = rb(t) * (Vc.row(t) - corr * X.row(t));
        }
      }

      // (I + Ls) Delta = R
      RowMat<T>* Delta = &ws.R;
      if (how == UnitLowerSolve::forward_substitution) {
        Ls.template triangularView<Eigen::UnitLower>().solveInPlace(R);
      } else {
        // T = E_{n-1} ... E_1, E_j = I - Ls(:,j) e_j^T: T <- E_j T touches rows j+1.. and columns 0..j
        auto Ti = ws.Tinv.topLeftCorner(n, n);
        Ti.setIdentity();
        for (Index j = 0; j + 1 < n; ++j)
          Ti.block(j + 1, 0, n - j - 1, j + 1).noalias() -= Ls.col(j).tail(n - j - 1) * Ti.row(j).head(j + 1);
        X.noalias() = Ti.template triangularView<Eigen::Lower>() * R;
        Delta = &ws.X;
      }
      auto Dl = Delta->topRows(n);

      // intra-chunk output: O_c += (Q_c K_c^T ⊙ G) Delta (lower triangle; the upper part is ignored)
      if (lg) P.array() *= ws.D.topLeftCorner(n, n).array();
      Oc.noalias() += P.template triangularView<Eigen::Lower>() * Dl;

      // state passing: S <- exp(b_e) S + Delta^T diag(G_{e,:}) K_c. The decay is split evenly,
      // (diag(h) Delta)^T (diag(h) K_c) with h_i = exp(L_{e,i} / 2): scaling only K_c (or only
      // Delta) by a tiny decay (gates ~1e-300) pushes that factor below the normal range and loses
      // digits that the product, still a normal number, needs.
      if (lg) {
        if (!state_zero) scale_by_exp(S, ws.eb[n - 1]);
        auto h = ws.hrow.head(n);
        ws.lhalf.head(n) = T(0.5) * ws.L.row(n - 1).head(n).transpose();
        exp_row<T>(ws.lhalf.data(), h.data(), n);
        auto Kw = ws.Kw.topRows(n);
        Kw.noalias() = h.asDiagonal() * Kc;
        Dl = h.asDiagonal() * Dl;
        S.noalias() += Dl.transpose() * Kw;
      } else {
        S.noalias() += Dl.transpose() * Kc;
      }
      state_zero = false;
    }
  }
  if (sfin) MutMap<T>(sfin, dv, dk) = S;
}

}  // namespace

template <class T> void delta_rule_recurrent(const DeltaRuleArgs<T>& a) {
  validate(a, "delta_rule_recurrent", false);
  const Index T_ = a.T, dk = a.dk, dv = a.dv;
  RowMat<T> S(dv, dk);
  Vec<T> p(dv), e(dv);
  const Index heads = Index(a.B) * a.H;
  for (Index h = 0; h < heads; ++h) {
    if (a.s0) S = ConstMap<T>(a.s0 + h * dv * dk, dv, dk);
    else S.setZero();
    if (T_ > 0) {
      ConstMap<T> Q(a.q + h * T_ * dk, T_, dk), K(a.k + h * T_ * dk, T_, dk), V(a.v + h * T_ * dv, T_, dv);
      MutMap<T> O(a.o + h * T_ * dv, T_, dv);
      const T* bt = a.beta + h * T_;
      const T* lg = a.log_alpha ? a.log_alpha + h * T_ : nullptr;
      for (Index t = 0; t < T_; ++t) {
        const auto q = Q.row(t);
        const auto k = K.row(t);
        const T al = lg ? std::exp(lg[t]) : T(1);  // exact 0 for a -inf log-gate
        // prediction with the old state, then one fused pass: row r <- al row r + e_r k, o_r = row r . q
        p.noalias() = S * k.transpose();
        e = bt[t] * (V.row(t).transpose() - al * p);
        for (Index r = 0; r < dv; ++r) {
          auto Sr = S.row(r);
          if (lg) Sr = al * Sr + e[r] * k;
          else Sr += e[r] * k;
          O(t, r) = Sr.dot(q);
        }
      }
    }
    if (a.s_final) MutMap<T>(a.s_final + h * dv * dk, dv, dk) = S;
  }
}

template <class T> void delta_rule_chunked(const DeltaRuleArgs<T>& a) {
  validate(a, "delta_rule_chunked", true);
  const Index T_ = a.T, dk = a.dk, dv = a.dv;
  const Index C = std::max<Index>(1, std::min<Index>(a.chunk, std::max<Index>(T_, 1)));
  Workspace<T> ws(C, dk, dv, a.log_alpha != nullptr, a.solve == UnitLowerSolve::product_inverse);
  const Index heads = Index(a.B) * a.H;
  for (Index h = 0; h < heads; ++h) {
    const bool any = T_ > 0;
    chunked_head<T>(T_, dk, dv, C, any ? a.q + h * T_ * dk : nullptr, any ? a.k + h * T_ * dk : nullptr,
                    any ? a.v + h * T_ * dv : nullptr, any ? a.beta + h * T_ : nullptr,
                    a.log_alpha ? a.log_alpha + h * T_ : nullptr, a.s0 ? a.s0 + h * dv * dk : nullptr,
                    any ? a.o + h * T_ * dv : nullptr, a.s_final ? a.s_final + h * dv * dk : nullptr, a.solve, ws);
  }
}

template void delta_rule_recurrent<float>(const DeltaRuleArgs<float>&);
template void delta_rule_recurrent<double>(const DeltaRuleArgs<double>&);
template void delta_rule_chunked<float>(const DeltaRuleArgs<float>&);
template void delta_rule_chunked<double>(const DeltaRuleArgs<double>&);

}  // namespace recall::opt
