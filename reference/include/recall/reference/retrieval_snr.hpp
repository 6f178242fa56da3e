// Retrieval signal-to-noise ratio of a kernel associative memory (paper A000 §2.1, App. 6), written
// from the definitions; templates on the scalar (mp_t or double).
//
// Memory: S = sum_j v_j phi(k_j)^T, read-out of key k_i: S phi(k_i) = sum_j v_j kappa(k_j, k_i).
// A000-RETRIEVAL-DECOMP (Eqs. 4, 5, 53): the read-out splits into the signal c v_i, c = kappa(k_i, k_i),
// and the noise r = sum_{j != i} v_j kappa(k_j, k_i).
// A000-SNR-DEF (Eq. 6): SNR^-1 = E ||r||^2 / (c^2 ||v_i||^2), over the pairs j != i.
//
// The common setting of the closed forms (A000 Group 2): keys i.i.d. N(0, I_dk), values i.i.d.
// N(0, I_dv), everything independent; s2 = ||k_i||^2, X_j = k_j^T k_i ~ N(0, s2) given k_i. The
// estimands (each closed form names the one it is):
//   E1 (conditional, Eq. 57 with E||v_j||^2 = ||v_i||^2): R(k_i) = E ||r||^2 / (c^2 d_v) at fixed k_i;
//      with independent zero-mean values the cross terms vanish and R = (N-1) E[kappa(X)^2] / kappa(s2)^2;
//   E2 (probe-averaged): E over k_i of R(k_i), s2 ~ chi^2_dk;
//   E3 (plug-in, the boxed equations): s2 -> d_k and N - 1 -> N.
// Kernels (temperature tau divides the logit, spec README §1.6):
//   linear x;  ReLU max(0, x);  exp e^{x / tau};  SoLU x e^{x / tau} (A000-SOLU, Eq. 16).
#pragma once

#include "recall/reference/matrix.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace recall::ref::snr {

enum class Kernel { linear, relu, exp, solu };
inline const char* kernel_name(Kernel k) {
  switch (k) {
    case Kernel::linear: return "linear";
    case Kernel::relu: return "ReLU";
    case Kernel::exp: return "exp";
    case Kernel::solu: return "SoLU";
  }
  return "?";
}

// kappa as a function of the inner product x = k^T q (A000-SOLU: x e^{x/tau}; no sign assumed)
template <class S> S kappa(Kernel k, const S& x, const S& tau) {
  using std::exp;
  switch (k) {
    case Kernel::linear: return x;
    case Kernel::relu: return x > 0 ? x : S(0);
    case Kernel::exp: return exp(x / tau);
    case Kernel::solu: return x * exp(x / tau);
  }
  throw std::invalid_argument("snr::kappa: unknown kernel");
}

// log |kappa(x)| for the exponential kernels (no overflow): x/tau, log|x| + x/tau; -inf at a zero
template <class S> S log_abs_kappa(Kernel k, const S& x, const S& tau) {
  using std::abs;
  using std::log;
  switch (k) {
    case Kernel::exp: return x / tau;
    case Kernel::solu: return x == 0 ? S(-INFINITY) : S(log(S(abs(x))) + x / tau);
    default: {
      const S y = kappa(k, x, tau);
      return y == 0 ? S(-INFINITY) : S(log(S(abs(y))));
    }
  }
}

// ---- A000-RETRIEVAL-DECOMP (and A000-SNR-NORM-INV: the split of weights divided by a common normaliser) ----
template <class S> struct Retrieval {
  Vector<S> readout;  // sum_j v_j kappa(k_j, k_i)
  Vector<S> signal;   // c v_i
  Vector<S> noise;    // sum_{j != i} v_j kappa(k_j, k_i)
  S c;                // kappa(k_i, k_i)
};
// K: N x dk keys (rows), V: N x dv values, i: the probe (0-based), kappa of the inner product.
template <class S, class F> Retrieval<S> decompose(const Matrix<S>& K, const Matrix<S>& V, std::size_t i, F&& kap) {
  const std::size_t N = K.rows, dk = K.cols, dv = V.cols;
  if (V.rows != N || i >= N) throw std::invalid_argument("snr::decompose: K and V must have the same rows and i < N");
  Retrieval<S> r{Vector<S>(dv, S(0)), Vector<S>(dv, S(0)), Vector<S>(dv, S(0)), S(0)};
  for (std::size_t j = 0; j < N; ++j) {
    S x(0);
    for (std::size_t c = 0; c < dk; ++c) x += K(j, c) * K(i, c);
    const S w = kap(x);
    for (std::size_t c = 0; c < dv; ++c) {
      r.readout[c] += w * V(j, c);
      if (j == i) r.signal[c] = w * V(j, c);
      else r.noise[c] += w * V(j, c);
    }
    if (j == i) r.c = w;
  }
  return r;
}

// ---- closed forms ------------------------------------------------------------------------------
// E[kappa(X)^2], X ~ N(0, s2) (App. 6: linear s2; ReLU s2/2; exp e^{2 s2/tau^2} (the MGF at 2/tau);
// SoLU E[X^2 e^{aX}] = (s2 + a^2 s2^2) e^{a^2 s2/2} at a = 2/tau)
template <class S> S second_moment(Kernel k, const S& s2, const S& tau) {
  using std::exp;
  switch (k) {
    case Kernel::linear: return s2;
    case Kernel::relu: return s2 / 2;
    case Kernel::exp: return exp(2 * s2 / (tau * tau));
    case Kernel::solu: return s2 * (1 + 4 * s2 / (tau * tau)) * exp(2 * s2 / (tau * tau));
  }
  throw std::invalid_argument("snr::second_moment: unknown kernel");
}
// E1 with the prefactor N - 1 (Eq. 57, A000-SNR-COND; exact under the setting): (N-1) E[kappa^2] / kappa(s2)^2.
// For exp it is (N-1) e^{2(1-tau) s2/tau^2} (A000-SNR-EXP-COND, whose tau-dependence A000-SNR-EXP-TAU scans); the
// kernels' orderings A000-SNR-RELU-CMP and A000-SNR-SOLU-CMP compare it (and the printed forms below) across kernels.
template <class S> S conditional(Kernel k, const S& s2, const S& N, const S& tau) {
  const S c = kappa(k, s2, tau);
  return (N - 1) * second_moment(k, s2, tau) / (c * c);
}
// Eq. 10 / 58 (A000-SNR-KERNEL): the same with N for N - 1
template <class S> S conditional_eq10(Kernel k, const S& s2, const S& N, const S& tau) { return N / (N - 1) * conditional(k, s2, N, tau); }

// The printed forms, each literally (N prefactor).
// Eq. 7 conditional N / s2 and boxed N / d_k (A000-SNR-LINEAR)
template <class S> S eq7_conditional(const S& s2, const S& N) { return N / s2; }
template <class S> S eq7(const S& dk, const S& N) { return N / dk; }
// Eq. 15 conditional N / (2 s2) and boxed N / (2 d_k) (A000-SNR-RELU)
template <class S> S eq15_conditional(const S& s2, const S& N) { return N / (2 * s2); }
template <class S> S eq15(const S& dk, const S& N) { return N / (2 * dk); }
// App. 6's exp chain (A000-SNR-EXP): (2) "N exp(2/tau^2 - 2/tau) ||k_i||^2" (the norm outside the
// exponential, as typeset) and (3) "N exp(2(1-tau)/tau^2 ||k_i||^2)" (inside); boxed Eq. 13
// N / exp(2 (tau-1) d_k / tau^2) (A000-SNR-EXP-PLUGIN)
template <class S> S exp_chain_outside(const S& s2, const S& N, const S& tau) {
  using std::exp;
  return N * exp(2 / (tau * tau) - 2 / tau) * s2;
}
template <class S> S exp_chain_inside(const S& s2, const S& N, const S& tau) {
  using std::exp;
  return N * exp(2 * (1 - tau) / (tau * tau) * s2);
}
template <class S> S eq13(const S& dk, const S& N, const S& tau) {
  using std::exp;
  return N / exp(2 * (tau - 1) * dk / (tau * tau));
}
// SoLU (A000-SNR-SOLU-GEN, A000-SNR-SOLU-SQRT, A000-SNR-SOLU): the general-tau plug-in N (1 + 4 d/tau^2)/d exp(-(2d/tau^2)(tau-1)),
// the tau = sqrt(d) intermediate N (1 + 4d/d)/d exp(-2(sqrt d - 1)), boxed Eq. 17 5N / (d exp(2 sqrt d))
template <class S> S solu_general(const S& dk, const S& N, const S& tau) {
  using std::exp;
  return N * (1 + 4 * dk / (tau * tau)) / dk * exp(-(2 * dk / (tau * tau)) * (tau - 1));
}
template <class S> S solu_sqrt(const S& dk, const S& N) {
  using std::exp;
  using std::sqrt;
  return N * (1 + 4 * dk / dk) / dk * exp(-2 * (sqrt(dk) - 1));
}
template <class S> S eq17(const S& dk, const S& N) {
  using std::exp;
  using std::sqrt;
  return 5 * N / (dk * exp(2 * sqrt(dk)));
}

// E2, the probe average over s2 ~ chi^2_dk of E1 (derived here from E[s2^-1] = 1/(d-2) and the chi^2
// MGF E[e^{-c s2}] = (1+2c)^{-d/2}; A000-SNR-EXP-AVG for exp). Throws where the mean does not exist.
template <class S> S probe_average(Kernel k, const S& dk, const S& N, const S& tau) {
  using std::pow;
  const S c = 2 * (tau - 1) / (tau * tau);
  switch (k) {
    case Kernel::linear:
    case Kernel::relu:
      if (!(dk > 2)) throw std::invalid_argument("snr::probe_average: E[1/chi^2_d] is infinite for d <= 2");
      return (N - 1) / ((k == Kernel::relu ? S(2) : S(1)) * (dk - 2));
    case Kernel::exp:
      if (!(1 + 2 * c > 0)) throw std::invalid_argument("snr::probe_average: (1+2c) <= 0, the chi^2 MGF diverges");
      return (N - 1) * pow(S(1 + 2 * c), S(-dk / 2));
    case Kernel::solu:
      // E[(1 + 4 s2/tau^2) e^{-c s2} / s2] = E[e^{-c s2}/s2] + (4/tau^2) E[e^{-c s2}], and for s2 ~ chi^2_d
      // E[e^{-c s2} / s2] = (1+2c)^{-(d-2)/2} / (d-2)
      if (!(dk > 2) || !(1 + 2 * c > 0)) throw std::invalid_argument("snr::probe_average: SoLU's E2 needs d > 2 and 1+2c > 0");
      return (N - 1) * (pow(S(1 + 2 * c), S(-(dk - 2) / 2)) / (dk - 2) + 4 / (tau * tau) * pow(S(1 + 2 * c), S(-dk / 2)));
  }
  throw std::invalid_argument("snr::probe_average: unknown kernel");
}

}  // namespace recall::ref::snr
