// Omega-rule and Atlas kernels with a linear memory on polynomial features (optimized/omega.hpp).
#include "recall/optimized/omega.hpp"

#include "kernel_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace recall::opt {

using namespace support;

int omega_feature_dim(int dk, int degree) {
  if (dk < 1) throw std::invalid_argument("omega_feature_dim: dk must be >= 1, got " + std::to_string(dk));
  if (degree < 0) throw std::invalid_argument("omega_feature_dim: degree must be >= 0, got " + std::to_string(degree));
  if (degree == 0) return dk;
  // C(dk + p, p) by the exact running product C(dk + j, j) = C(dk + j - 1, j - 1) (dk + j) / j
  std::uint64_t c = 1;
  for (int j = 1; j <= degree; ++j) {
    const std::uint64_t num = c * static_cast<std::uint64_t>(dk + j);
    if (num / static_cast<std::uint64_t>(dk + j) != c || num / static_cast<std::uint64_t>(j) > std::numeric_limits<int>::max())
      throw std::invalid_argument("omega_feature_dim: the monomial map of degree " + std::to_string(degree) + " on dk = " +
                                  std::to_string(dk) + " has more than 2^31 - 1 features");
    c = num / static_cast<std::uint64_t>(j);
  }
  return static_cast<int>(c);
}

namespace {

// Graded-lexicographic monomials of degree <= p as a recipe: monomial m (m >= 1) = monomial parent[m]
// times x[var[m]]; the monomials of degree l are those of degree l - 1 extended by every variable at or
// after their last one, which lists the exponent vectors in descending lexicographic order per degree.
struct MonomialRecipe {
  std::vector<int> parent, var;
  MonomialRecipe(int dk, int p) {
    if (p == 0) return;
    parent = {-1};
    var = {0};
    std::vector<int> last = {0};
    std::size_t lo = 0, hi = 1;  // monomials of the previous degree: [lo, hi)
    for (int l = 1; l <= p; ++l) {
      for (std::size_t m = lo; m < hi; ++m)
        for (int j = last[m]; j < dk; ++j) {
          parent.push_back(static_cast<int>(m));
          var.push_back(j);
          last.push_back(j);
        }
      lo = hi;
      hi = parent.size();
    }
  }
};

template <class T> void features(const MonomialRecipe& r, int degree, const T* x, int dk, T* out) {
  if (degree == 0) {
    std::copy(x, x + dk, out);
    return;
  }
  out[0] = T(1);
  for (std::size_t m = 1; m < r.parent.size(); ++m) out[m] = out[r.parent[m]] * x[r.var[m]];
}

template <class T> void features_rows(const MonomialRecipe& r, int degree, const T* X, int dk, Index from, Index to, RowMat<T>& out) {
  const Index D = degree == 0 ? dk : static_cast<Index>(r.parent.size());
  out.resize(to - from, D);
  for (Index i = from; i < to; ++i) features(r, degree, X + i * dk, dk, out.data() + (i - from) * D);
}

template <class A> void validate_omega(const A& a, const char* who, bool chunked) {
  auto fail = [&](const std::string& what) { throw std::invalid_argument(std::string(who) + ": " + what); };
  validate_bhtd(a, who, chunked);
  if (a.degree < 0) fail("degree must be >= 0, got " + std::to_string(a.degree));
  if (a.c < 1) fail("c (window length) must be >= 1, got " + std::to_string(a.c));
  if (a.T > 0 && !a.eta) fail("eta is null (required when T > 0)");
  (void)omega_feature_dim(a.dk, a.degree);
}

// Decays of the chunk rows s..e (0-based, inclusive) in log space (spec A002 "Decay products"): for
// local t, Dm(t, n) = A_{n+1:t} eta_n (n <= t, 0 above) and Aseq(t) = A_{s:t}, each from the direct
// segment sum of log alpha over (n, t] (a zero gate in it: exactly 0).
template <class T>
void chunk_decays(const T* log_alpha, const T* eta, Index s, Index e, RowMat<T>& Dm, Vec<T>& Aseq) {
  const Index b = e - s + 1;
  Dm.setZero(b, b);
  Aseq.resize(b);
  for (Index t = 0; t < b; ++t) {
    T run = 0;
    bool zero = false;
    for (Index n = t; n >= 0; --n) {
      Dm(t, n) = zero ? T(0) : std::exp(run) * eta[s + n];
      if (log_alpha) {
        const T la = log_alpha[s + n];
        if (la == -std::numeric_limits<T>::infinity())
          zero = true;
        else
          run += la;
      }
    }
    Aseq(t) = zero ? T(0) : std::exp(run);
  }
}

// Window gate of token i (0-based) at step n: gamma[n, n - i] for 0 <= n - i < c, else 0.
template <class T> T window_gate(const T* gamma, int c, Index n, Index i) {
  const Index j = n - i;
  if (j < 0 || j >= c) return T(0);
  return gamma ? gamma[n * c + j] : T(1);
}

}  // namespace

template <class T> void omega_rule_sequential(const OmegaArgs<T>& a) {
  validate_omega(a, "omega_rule_sequential", false);
  const int D = omega_feature_dim(a.dk, a.degree);
  const MonomialRecipe rec(a.dk, a.degree);
  const T g = a.half_l2 ? T(1) : T(2);
  const Index Tn = a.T, dk = a.dk, dv = a.dv, c = a.c;
  RowMat<T> M(dv, D), ring(c, D), Pw, Ew, Vw;
  Vec<T> phq(D), gw;
  for (int bh = 0; bh < a.B * a.H; ++bh) {
    const T* q = a.q + bh * Tn * dk;
    const T* k = a.k + bh * Tn * dk;
    const T* v = a.v + bh * Tn * dv;
    const T* la = a.log_alpha ? a.log_alpha + bh * Tn : nullptr;
    const T* eta = a.eta + bh * Tn;
    const T* gam = a.gamma ? a.gamma + bh * Tn * c : nullptr;
    if (a.s0)
      M = ConstMap<T>(a.s0 + bh * dv * D, dv, D);
    else
      M.setZero();
    for (Index t = 0; t < Tn; ++t) {
      features(rec, a.degree, k + t * dk, a.dk, ring.data() + (t % c) * D);
      const Index w = std::min<Index>(c, t + 1);  // window rows t-w+1..t
      Pw.resize(w, D);
      Vw.resize(w, dv);
      gw.resize(w);
      for (Index j = 0; j < w; ++j) {  // row j of the window: token t - j
        Pw.row(j) = ring.row((t - j) % c);
        Vw.row(j) = ConstMap<T>(v + (t - j) * dv, 1, dv);
        gw(j) = window_gate(gam, a.c, t, t - j);
      }
      Ew.noalias() = Vw - Pw * M.transpose();  // rows v_i - M phi_i at M_{t-1}
      const T alpha = la ? std::exp(la[t]) : T(1);
      if (alpha != T(1)) M *= alpha;
      Ew = (g * eta[t]) * (gw.asDiagonal() * Ew);
      M.noalias() += Ew.transpose() * Pw;
      features(rec, a.degree, q + t * dk, a.dk, phq.data());
      MutMap<T>(a.o + (bh * Tn + t) * dv, dv, 1).noalias() = M * phq;
    }
    if (a.s_final) MutMap<T>(a.s_final + bh * dv * D, dv, D) = M;
  }
}

template <class T> void omega_rule_chunked(const OmegaArgs<T>& a) {
  validate_omega(a, "omega_rule_chunked", true);
  const int D = omega_feature_dim(a.dk, a.degree);
  const MonomialRecipe rec(a.dk, a.degree);
  const T g = a.half_l2 ? T(1) : T(2);
  const Index Tn = a.T, dk = a.dk, dv = a.dv, c = a.c, bsz = a.chunk;
  RowMat<T> M(dv, D), PK, PQ, E, Dm, Gm, C, P, Y;
  Vec<T> Aseq;
  for (int bh = 0; bh < a.B * a.H; ++bh) {
    const T* q = a.q + bh * Tn * dk;
    const T* k = a.k + bh * Tn * dk;
    const T* v = a.v + bh * Tn * dv;
    const T* la = a.log_alpha ? a.log_alpha + bh * Tn : nullptr;
    const T* eta = a.eta + bh * Tn;
    const T* gam = a.gamma ? a.gamma + bh * Tn * c : nullptr;
    if (a.s0)
      M = ConstMap<T>(a.s0 + bh * dv * D, dv, D);
    else
      M.setZero();
    for (Index s = 0; s < Tn; s += bsz) {
      const Index e = std::min(Tn, s + bsz) - 1, b = e - s + 1;
      const Index i0 = std::max<Index>(0, s - c + 1), ni = e - i0 + 1;  // look-back + chunk tokens
      features_rows(rec, a.degree, k, a.dk, i0, e + 1, PK);
      features_rows(rec, a.degree, q, a.dk, s, e + 1, PQ);
      E.noalias() = PK * M.transpose();  // residuals at the chunk-start state: M0 phi_i - v_i
      E -= ConstMap<T>(v + i0 * dv, ni, dv);
      chunk_decays(la, eta, s, e, Dm, Aseq);
      Gm.setZero(b, ni);
      for (Index n = 0; n < b; ++n)
        for (Index i = std::max<Index>(0, s + n - c + 1); i <= s + n; ++i) Gm(n, i - i0) = window_gate(gam, a.c, s + n, i);
      C.noalias() = Dm * Gm;
      P.noalias() = PQ * PK.transpose();
      P = P.cwiseProduct(C);
      Y.noalias() = PQ * M.transpose();
      Y = Aseq.asDiagonal() * Y;
      Y.noalias() -= g * (P * E);
      MutMap<T>(a.o + (bh * Tn + s) * dv, b, dv) = Y;
      // end state: A_{s:e} M0 - g sum_i C(e, i) e_i phi_i^T
      const Vec<T> ce = C.row(b - 1).transpose();
      E = ce.asDiagonal() * E;
      M *= Aseq(b - 1);
      M.noalias() -= g * (E.transpose() * PK);
    }
    if (a.s_final) MutMap<T>(a.s_final + bh * dv * D, dv, D) = M;
  }
}

template <class T> void atlas_chunked(const AtlasArgs<T>& a) {
  validate_omega(a, "atlas_chunked", true);
  if (a.ns_steps < 0) throw std::invalid_argument("atlas_chunked: ns_steps must be >= 0, got " + std::to_string(a.ns_steps));
  if (!std::isfinite(a.eta_out)) throw std::invalid_argument("atlas_chunked: eta_out must be finite");
  const int D = omega_feature_dim(a.dk, a.degree);
  const MonomialRecipe rec(a.dk, a.degree);
  const T g = a.half_l2 ? T(1) : T(2);
  const Index Tn = a.T, dk = a.dk, dv = a.dv, c = a.c, bsz = a.chunk;
  RowMat<T> W(dv, D), S(dv, D), U(dv, D), N(dv, D), PK, E, Ew;
  Vec<T> phq(D), gw;
  NewtonSchulzArgs<T> ns;
  ns.batch = 1;
  ns.m = static_cast<int>(dv);
  ns.n = D;
  ns.steps = a.ns_steps;
  ns.eps = a.ns_eps;
  ns.coef = a.ns_coef;
  ns.g = S.data();
  ns.x = N.data();
  for (int bh = 0; bh < a.B * a.H; ++bh) {
    const T* q = a.q + bh * Tn * dk;
    const T* k = a.k + bh * Tn * dk;
    const T* v = a.v + bh * Tn * dv;
    const T* la = a.log_alpha ? a.log_alpha + bh * Tn : nullptr;
    const T* lt = a.log_theta ? a.log_theta + bh * Tn : nullptr;
    const T* eta = a.eta + bh * Tn;
    const T* gam = a.gamma ? a.gamma + bh * Tn * c : nullptr;
    if (a.s0)
      W = ConstMap<T>(a.s0 + bh * dv * D, dv, D);
    else
      W.setZero();
    if (a.m0)
      S = ConstMap<T>(a.m0 + bh * dv * D, dv, D);
    else
      S.setZero();
    for (Index s = 0; s < Tn; s += bsz) {
      const Index e = std::min(Tn, s + bsz) - 1;
      const Index i0 = std::max<Index>(0, s - c + 1), ni = e - i0 + 1;
      features_rows(rec, a.degree, k, a.dk, i0, e + 1, PK);
      E.noalias() = PK * W.transpose();  // frozen residuals M_{s-1} phi_i - v_i
      E -= ConstMap<T>(v + i0 * dv, ni, dv);
      for (Index n = s; n <= e; ++n) {
        const Index lo = std::max<Index>(0, n - c + 1), w = n - lo + 1;
        gw.resize(w);
        for (Index i = lo; i <= n; ++i) gw(i - lo) = window_gate(gam, a.c, n, i);
        Ew = gw.asDiagonal() * E.middleRows(lo - i0, w);
        U.noalias() = Ew.transpose() * PK.middleRows(lo - i0, w);  // u_n / g
        const T theta = lt ? std::exp(lt[n]) : T(1);
        if (theta != T(1)) S *= theta;
        if (a.variant == AtlasVariant::eq32)
          S.noalias() += g * U;
        else
          S.noalias() -= (g * eta[n]) * U;
        newton_schulz(ns);
        const T alpha = la ? std::exp(la[n]) : T(1);
        if (alpha != T(1)) W *= alpha;
        if (a.variant == AtlasVariant::eq32)
          W.noalias() -= eta[n] * N;
        else
          W.noalias() += static_cast<T>(a.eta_out) * N;
        features(rec, a.degree, q + n * dk, a.dk, phq.data());
        MutMap<T>(a.o + (bh * Tn + n) * dv, dv, 1).noalias() = W * phq;
      }
    }
    if (a.s_final) MutMap<T>(a.s_final + bh * dv * D, dv, D) = W;
    if (a.m_final) MutMap<T>(a.m_final + bh * dv * D, dv, D) = S;
  }
}

template void omega_rule_sequential<float>(const OmegaArgs<float>&);
template void omega_rule_sequential<double>(const OmegaArgs<double>&);
template void omega_rule_chunked<float>(const OmegaArgs<float>&);
template void omega_rule_chunked<double>(const OmegaArgs<double>&);
template void atlas_chunked<float>(const AtlasArgs<float>&);
template void atlas_chunked<double>(const AtlasArgs<double>&);

}  // namespace recall::opt
