// Helpers shared by the DeltaFormer claim checks of paper A000 (proofs_numeric/a000_associative_memory/:
// softmax_exp_kernel, deltaformer_forms, normalised_deltaformer, chunked_listing1, triangular_inverse,
// deltaformer_complexity, perturbation, dag_reachability, listing2_toy): relative mp differences,
// infinity norms and conditioning of I + L, the digits rule of C5 / PERTURB, the kernel cases of the
// form checks, a p-bit rounding and the truncated-exponential feature-map cases. Moved unchanged from
// the former claims_t3_a000_forms.cpp.
// Like claim_support.hpp the helpers have internal linkage (an unnamed namespace, nested in
// recall::claim_support::deltaformer so that no other claim file's helper of the same name can collide):
// each translation unit keeps its own copy, exactly as the single file did.
#pragma once

#include "recall/proofs/ledger.hpp"
#include "recall/reference/deltaformer.hpp"
#include "recall/reference/feature_maps.hpp"
#include "claim_support.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace recall::claim_support::deltaformer {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

using ref::DfKernel;

// ---- mp differences, norms and conditioning of I + L ---------------------------------------------

// relative Frobenius difference ||A - B|| / max(||B||, tiny)
mp_t rel_mp(const MM& A, const MM& B) {
  const mp_t nb = ref::frob(B);
  const mp_t d = ref::frob_diff(A, B);
  if (nb == 0) return d;
  return d / nb;
}
double rel(const MM& A, const MM& B) { return to_d(rel_mp(A, B)); }

// infinity norm (max row sum)
template <class S> S norm_inf(const ref::Matrix<S>& A) {
  using std::abs;
  using boost::multiprecision::abs;
  S best(0);
  for (std::size_t i = 0; i < A.rows; ++i) {
    S s(0);
    for (std::size_t j = 0; j < A.cols; ++j) s += abs(A(i, j));
    if (s > best) best = s;
  }
  return best;
}
// I + L (L strictly lower part only)
MM unit_plus(const MM& L) {
  MM A(L.rows, L.cols);
  for (std::size_t i = 0; i < L.rows; ++i) {
    A(i, i) = 1;
    for (std::size_t j = 0; j < i; ++j) A(i, j) = L(i, j);
  }
  return A;
}
// (I + L)^{-1} by the shared forward substitution
MM unit_lower_inverse(const MM& L) { return ref::unit_lower_solve(L, ref::identity_matrix<mp_t>(L.rows)); }
// cond_inf(I + L) as an mp value
mp_t cond_inf(const MM& L) { return norm_inf(unit_plus(L)) * norm_inf(unit_lower_inverse(L)); }
// log10 cond_inf (for the residual normalisation and the digits rule)
double lg_cond(const DM& Ld, unsigned digits = 60) {
  MpDigitsScope sc(digits);
  return lg(cond_inf(to_mp(Ld)));
}

// digits rule of C5 / PERTURB: max(cfg digits, ceil(log10 cond) + 30)
unsigned digits_for(unsigned base, double lgcond) {
  const double need = std::ceil(std::max(0.0, lgcond)) + 30.0;
  return static_cast<unsigned>(std::max<double>(base, need));
}

// ---- kernels of the form checks -----------------------------------------------------------------

// kernels of the form checks and their temperatures
struct KernelCase {
  DfKernel k;
  double tau;  // 0: sqrt(d)
  std::string name(std::size_t d) const {
    return std::string(ref::df_kernel_name(k)) + " tau=" + fmt(tau > 0 ? tau : std::sqrt(double(d)), 3);
  }
  double t(std::size_t d) const { return tau > 0 ? tau : std::sqrt(double(d)); }
};
double tau_of(const KernelCase& kc, std::size_t d) { return kc.tau == -2 ? 2 * std::sqrt(double(d)) : kc.t(d); }

std::string sizes_str(const std::vector<std::size_t>& v) {
  std::string s;
  for (std::size_t x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return "{" + s + "}";
}

// log10 cond_inf(I + L) for a kernel matrix built at enough digits to resolve it
double lg_cond_kernel(const KernelCase& kc, const DM& K, const DM& W, std::size_t d) {
  unsigned dg = 60;
  double lc = 0;
  for (int pass = 0; pass < 3; ++pass) {
    MpDigitsScope sc(dg);
    const MM L = ref::df_kernel_matrix(kc.k, to_mp(K), to_mp(W), mp_t(tau_of(kc, d)), true);
    lc = lg(cond_inf(L));
    if (lc + 30 <= dg) break;
    dg = static_cast<unsigned>(lc) + 60;
  }
  return lc;
}

// ---- exponential feature map ----------------------------------------------------------------------

// round-to-nearest-even to p significand bits (normal range only: the samples' e^x lie far inside it)
long double round_bits(long double x, int p) {
  if (x == 0 || !std::isfinite(static_cast<double>(x))) return x;
  int e;
  std::frexp(static_cast<double>(x), &e);
  const long double sc = std::ldexp(1.0L, p - e);
  return std::nearbyint(x * sc) / sc;
}
// truncated exponential kernel sum_{m<=M} a^m / m! (the kernel of phi_M, a = x^T y)
mp_t exp_taylor(const mp_t& a, int M) {
  mp_t s = 0, t = 1;
  for (int m = 0; m <= M; ++m) {
    if (m > 0) t = t * a / mp_t(m);
    s += t;
  }
  return s;
}
// Feature map + its closed-form kernel for EQUIV / NORM-SFORM
struct PhiCase {
  std::string name;
  ref::FeatureMap f;
  double key_scale_sq;                                       // keys fed to phi are K * sqrt(key_scale_sq) (in mp)
  std::function<mp_t(const mp_t&)> kappa;                     // kernel on a = x^T y (original keys)
};

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::deltaformer
