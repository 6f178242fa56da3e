// Modern Hopfield models of A003 (Hu et al. 2024, nonparametric modern Hopfield models) and A004 Part I:
// log-sum-exp, the dense energy and retrieval map, the two readings of the sparse-structured map (3.11),
// the masks (random, Bernoulli, sliding windows, top-K with both tie policies), the separation
// quantities and the cancellation-free retrieval errors of spec C9. Written from the definitions:
// explicit scores, a max-shifted log-sum-exp, weights exp(beta a - LSE), weighted sums of patterns.
//
// Layout (spec README convention 2, tokens are rows): the memories Xi (d x M columns in the paper) are
// stored as an M x d matrix whose row mu is xi_mu; the keys Xi_delta (rows xi_mu + dxi_mu) likewise.
// Overloads without keys use the memories as keys (dxi = 0, the form of every App. B proof).
// Indices are 0-based here; claim files report them 1-based (spec C3).
#pragma once

#include "recall/reference/matrix.hpp"

#include <boost/math/special_functions/expm1.hpp>
#include <boost/math/special_functions/log1p.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace recall::ref::hopfield {

// A mask / support set: sorted distinct 0-based indices into [M] (spec C13).
using Mask = std::vector<std::size_t>;

namespace detail {
template <class S> void require_finite(const Vector<S>& v, const char* who, const char* what) {
  // messages are built only on failure: these checks run on every entry of every call
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!is_finite(v[i])) require(false, std::string(who) + ": " + what + "[" + std::to_string(i + 1) + "] is not finite");
}
template <class S> void require_finite(const Matrix<S>& m, const char* who, const char* what) {
  for (std::size_t i = 0; i < m.rows; ++i)
    for (std::size_t j = 0; j < m.cols; ++j)
      if (!is_finite(m(i, j)))
        require(false, std::string(who) + ": " + what + "(" + std::to_string(i + 1) + "," + std::to_string(j + 1) + ") is not finite");
}
// ADL-free elementary functions for double, float and the MP scalars (shared by hopfield_models.hpp and
// hopfield_svr.hpp)
template <class S> S sqrt_(const S& x) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  return sqrt(x);
}
template <class S> S exp_(const S& x) {
  using std::exp;
  using boost::multiprecision::exp;
  return exp(x);
}
template <class S> S log_(const S& x) {
  using std::log;
  using boost::multiprecision::log;
  return log(x);
}
template <class S> void require_beta(const S& beta, const char* who) {
  require(is_finite(beta) && beta > 0, std::string(who) + ": beta must be finite and > 0");
}
inline void require_mask(const Mask& mask, std::size_t M, const char* who) {
  for (std::size_t i = 0; i < mask.size(); ++i) {
    if (mask[i] >= M)
      require(false, std::string(who) + ": mask entry " + std::to_string(i + 1) + " = " + std::to_string(mask[i] + 1) +
                         " is outside [1, " + std::to_string(M) + "]");
    if (i > 0 && mask[i] <= mask[i - 1])
      require(false, std::string(who) + ": mask must be sorted and without duplicates (entry " + std::to_string(i + 1) + ")");
  }
}
template <class S> void require_shapes(const Matrix<S>& Xi, const Matrix<S>& Keys, const Vector<S>& x, const char* who) {
  require(Xi.rows >= 1 && Xi.cols >= 1, std::string(who) + ": need at least one memory of dimension >= 1");
  require(Keys.rows == Xi.rows && Keys.cols == Xi.cols,
          std::string(who) + ": keys are " + std::to_string(Keys.rows) + "x" + std::to_string(Keys.cols) + ", memories " +
              std::to_string(Xi.rows) + "x" + std::to_string(Xi.cols));
  require(x.size() == Xi.cols, std::string(who) + ": query has " + std::to_string(x.size()) + " entries, memories have d = " +
                                   std::to_string(Xi.cols));
  require_finite(Xi, who, "memory Xi");
  if (&Keys != &Xi) require_finite(Keys, who, "key matrix");
  require_finite(x, who, "query x");
}
}  // namespace detail

// ---- A003-LSE ---------------------------------------------------------------------------------------------
// lse(beta, z) = z_max + beta^-1 log sum_mu exp(beta (z_mu - z_max)); -inf entries allowed (they add nothing),
// at least one finite entry required.
template <class S> S lse(const S& beta, const Vector<S>& z) {
  using std::exp; using std::log;
  using boost::multiprecision::exp; using boost::multiprecision::log;
  detail::require_beta(beta, "hopfield::lse");
  require(!z.empty(), "hopfield::lse: z is empty");
  bool any = false;
  S zmax(0);
  for (std::size_t i = 0; i < z.size(); ++i) {
    require(!(z[i] != z[i]) && !(z[i] > 0 && !is_finite(z[i])), "hopfield::lse: z[" + std::to_string(i + 1) + "] is NaN or +inf");
    if (!is_finite(z[i])) continue;
    if (!any || z[i] > zmax) zmax = z[i];
    any = true;
  }
  require(any, "hopfield::lse: every entry of z is -inf");
  S sum(0);
  for (const S& zi : z)
    if (is_finite(zi)) sum += exp(S(beta * (zi - zmax)));
  return zmax + log(sum) / beta;
}

// scores a(x) = Keys x (a_nu = <x, xi_nu + dxi_nu>)
template <class S> Vector<S> scores(const Matrix<S>& Keys, const Vector<S>& x) {
  require(x.size() == Keys.cols, "hopfield::scores: query has " + std::to_string(x.size()) + " entries, keys have d = " + std::to_string(Keys.cols));
  Vector<S> a(Keys.rows);
  for (std::size_t nu = 0; nu < Keys.rows; ++nu) a[nu] = dot(Keys.row(nu), x.data(), x.size());
  return a;
}

// LSE_S = log sum_{nu in S} exp(beta a_nu) (= beta lse(beta, a_S)); the whole row when `mask` is null.
template <class S> S log_partition(const S& beta, const Vector<S>& a, const Mask* mask = nullptr) {
  if (!mask) return beta * lse(beta, a);
  require(!mask->empty(), "hopfield::log_partition: empty mask");
  detail::require_mask(*mask, a.size(), "hopfield::log_partition");
  Vector<S> sub;
  sub.reserve(mask->size());
  for (std::size_t nu : *mask) sub.push_back(a.at(nu));
  return beta * lse(beta, sub);
}

// pi = Softmax(beta a) over all M entries, each exp(beta a_nu - LSE).
template <class S> Vector<S> softmax_weights(const S& beta, const Vector<S>& a) {
  using std::exp;
  using boost::multiprecision::exp;
  const S L = log_partition(beta, a);
  Vector<S> pi(a.size());
  for (std::size_t nu = 0; nu < a.size(); ++nu) pi[nu] = exp(S(beta * a[nu] - L));
  return pi;
}

// q = Softmax over the mask (entries outside the mask are 0), each exp(beta a_nu - LSE_M).
template <class S> Vector<S> masked_weights(const S& beta, const Vector<S>& a, const Mask& mask) {
  using std::exp;
  using boost::multiprecision::exp;
  detail::require_mask(mask, a.size(), "hopfield::masked_weights");
  require(!mask.empty(), "hopfield::masked_weights: empty mask (reading R is undefined there, spec C13)");
  const S L = log_partition(beta, a, &mask);
  Vector<S> q(a.size(), S(0));
  for (std::size_t nu : mask) q[nu] = exp(S(beta * a[nu] - L));
  return q;
}

// log s_M(x) = LSE_M - LSE_[M] (the softmax mass on the mask, kept in log form: it may underflow).
template <class S> S log_mask_mass(const S& beta, const Vector<S>& a, const Mask& mask) {
  detail::require_mask(mask, a.size(), "hopfield::log_mask_mass");
  require(!mask.empty(), "hopfield::log_mask_mass: empty mask");
  return log_partition(beta, a, &mask) - log_partition(beta, a);
}

// sum_nu w_nu xi_nu over the rows of Xi
template <class S> Vector<S> combine_rows(const Matrix<S>& Xi, const Vector<S>& w) {
  Vector<S> out(Xi.cols, S(0));
  const MulAddCtx<S> ctx;
  for (std::size_t nu = 0; nu < Xi.rows; ++nu) {
    if (w[nu] == 0) continue;
    for (std::size_t c = 0; c < Xi.cols; ++c) muladd(out[c], w[nu], Xi(nu, c), ctx);
  }
  return out;
}

// ---- A003-DENSE-ENERGY ----------------------------------------------------------------------------------
// E(x) = -lse(beta, Xi^T x) + <x, x> / 2 (Ramsauer's additive constants omitted, as the spec says).
template <class S> S dense_energy(const Matrix<S>& Xi, const Vector<S>& x, const S& beta) {
  detail::require_shapes(Xi, Xi, x, "hopfield::dense_energy");
  return -lse(beta, scores(Xi, x)) + dot(x.data(), x.data(), x.size()) / 2;
}
// E(x') - E(x) without cancellation against |E|: [|x'|^2 - |x|^2]/2 - beta^-1 log sum_nu pi_nu(x) e^{beta (a_nu(x') - a_nu(x))},
// the differences a_nu(x') - a_nu(x) = <x' - x, xi_nu> formed from the difference vector first.
template <class S> S dense_energy_change(const Matrix<S>& Xi, const Vector<S>& x, const Vector<S>& xnew, const S& beta) {
  using std::log;
  using boost::multiprecision::log;
  detail::require_shapes(Xi, Xi, x, "hopfield::dense_energy_change");
  require(xnew.size() == x.size(), "hopfield::dense_energy_change: x and x' differ in length");
  detail::require_finite(xnew, "hopfield::dense_energy_change", "new state x'");
  const Vector<S> a = scores(Xi, x);
  Vector<S> dx(x.size()), sx(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    dx[i] = xnew[i] - x[i];
    sx[i] = xnew[i] + x[i];
  }
  const Vector<S> da = scores(Xi, dx);
  // log sum_nu pi_nu e^{beta da_nu}. For a short step (max |beta da| <= 1) the sum is 1 + sum_nu pi_nu expm1(beta da_nu)
  // and log1p keeps the relative accuracy of the small change (the lse form below loses it to the rounding of
  // beta a - LSE, which is of the size of beta |a|, not of beta |da|). Otherwise lse(z) - lse(z - beta da) with
  // z = beta (a + da), which is exact in form and loses nothing when the change is not small.
  using std::abs;
  S big(0);
  for (std::size_t nu = 0; nu < a.size(); ++nu) big = std::max<S>(big, S(abs(S(beta * da[nu]))));
  S log_ratio(0);
  if (big <= 1) {
    const Vector<S> pi = softmax_weights(beta, a);
    S sum(0);
    for (std::size_t nu = 0; nu < a.size(); ++nu) sum += pi[nu] * boost::math::expm1(S(beta * da[nu]));
    log_ratio = boost::math::log1p(sum);
  } else {
    Vector<S> z(a.size()), zb(a.size());
    for (std::size_t nu = 0; nu < a.size(); ++nu) {
      z[nu] = beta * a[nu] + beta * da[nu];
      zb[nu] = beta * a[nu];
    }
    log_ratio = lse(S(1), z) - lse(S(1), zb);
  }
  return dot(dx.data(), sx.data(), x.size()) / 2 - log_ratio / beta;
}
// grad E(x) = x - Xi Softmax(beta Xi^T x) = x - T_Dense(x)
template <class S> Vector<S> dense_energy_gradient(const Matrix<S>& Xi, const Vector<S>& x, const S& beta);

// ---- A003-DENSE-RETRIEVAL (3.7) and (2.3) ------------------------------------------------------------------
template <class S> Vector<S> dense_retrieval(const Matrix<S>& Xi, const Matrix<S>& Keys, const Vector<S>& x, const S& beta) {
  detail::require_shapes(Xi, Keys, x, "hopfield::dense_retrieval");
  detail::require_beta(beta, "hopfield::dense_retrieval");
  return combine_rows(Xi, softmax_weights(beta, scores(Keys, x)));
}
template <class S> Vector<S> dense_retrieval(const Matrix<S>& Xi, const Vector<S>& x, const S& beta) {
  return dense_retrieval(Xi, Xi, x, beta);
}
template <class S> Vector<S> dense_energy_gradient(const Matrix<S>& Xi, const Vector<S>& x, const S& beta) {
  Vector<S> g = dense_retrieval(Xi, x, beta);
  for (std::size_t i = 0; i < g.size(); ++i) g[i] = x[i] - g[i];
  return g;
}

// ---- A003-SPARSE-U (literal (3.11)) and A003-SPARSE-R (renormalised over the mask) -------------------------
// T_U(x) = sum_{nu in M} pi_nu(x) xi_nu with pi the softmax over all M keys; empty mask: 0 (C13).
template <class S> Vector<S> sparse_u(const Matrix<S>& Xi, const Matrix<S>& Keys, const Vector<S>& x, const S& beta, const Mask& mask) {
  detail::require_shapes(Xi, Keys, x, "hopfield::sparse_u");
  detail::require_beta(beta, "hopfield::sparse_u");
  detail::require_mask(mask, Xi.rows, "hopfield::sparse_u");
  const Vector<S> pi = softmax_weights(beta, scores(Keys, x));
  Vector<S> w(Xi.rows, S(0));
  for (std::size_t nu : mask) w[nu] = pi[nu];
  return combine_rows(Xi, w);
}
// T_R(x) = sum_{nu in M} q_nu(x) xi_nu, q the softmax over the mask; empty mask: error (C13).
template <class S> Vector<S> sparse_r(const Matrix<S>& Xi, const Matrix<S>& Keys, const Vector<S>& x, const S& beta, const Mask& mask) {
  detail::require_shapes(Xi, Keys, x, "hopfield::sparse_r");
  detail::require_beta(beta, "hopfield::sparse_r");
  return combine_rows(Xi, masked_weights(beta, scores(Keys, x), mask));
}
template <class S> Vector<S> sparse_u(const Matrix<S>& Xi, const Vector<S>& x, const S& beta, const Mask& mask) { return sparse_u(Xi, Xi, x, beta, mask); }
template <class S> Vector<S> sparse_r(const Matrix<S>& Xi, const Vector<S>& x, const S& beta, const Mask& mask) { return sparse_r(Xi, Xi, x, beta, mask); }

// A003-ENERGY-MASKED [derived]: E_M(x) = -lse(beta, Xi_M^T x) + |x|^2 / 2 for a fixed non-empty mask.
template <class S> S masked_energy(const Matrix<S>& Xi, const Mask& mask, const Vector<S>& x, const S& beta) {
  detail::require_shapes(Xi, Xi, x, "hopfield::masked_energy");
  detail::require_mask(mask, Xi.rows, "hopfield::masked_energy");
  require(!mask.empty(), "hopfield::masked_energy: empty mask");
  const Vector<S> a = scores(Xi, x);
  return -log_partition(beta, a, &mask) / beta + dot(x.data(), x.data(), x.size()) / 2;
}
// The sub-memory (rows of Xi in the mask, in mask order): T_R is T_Dense of it.
template <class S> Matrix<S> sub_memory(const Matrix<S>& Xi, const Mask& mask) {
  detail::require_mask(mask, Xi.rows, "hopfield::sub_memory");
  Matrix<S> out(mask.size(), Xi.cols);
  for (std::size_t i = 0; i < mask.size(); ++i)
    for (std::size_t c = 0; c < Xi.cols; ++c) out(i, c) = Xi(mask[i], c);
  return out;
}

// ---- spec C9: cancellation-free retrieval errors T(x) - xi_mu ------------------------------------------------
// dense: sum_{nu != mu} pi_nu (xi_nu - xi_mu)
template <class S> Vector<S> dense_error(const Matrix<S>& Xi, const Matrix<S>& Keys, const Vector<S>& x, const S& beta, std::size_t mu) {
  detail::require_shapes(Xi, Keys, x, "hopfield::dense_error");
  require(mu < Xi.rows, "hopfield::dense_error: mu out of range");
  const Vector<S> pi = softmax_weights(beta, scores(Keys, x));
  Vector<S> e(Xi.cols, S(0));
  const MulAddCtx<S> ctx;
  for (std::size_t nu = 0; nu < Xi.rows; ++nu) {
    if (nu == mu || pi[nu] == 0) continue;
    for (std::size_t c = 0; c < Xi.cols; ++c) muladd(e[c], pi[nu], S(Xi(nu, c) - Xi(mu, c)), ctx);
  }
  return e;
}
// reading U: -(sum_{nu != mu} pi_nu) xi_mu + sum_{nu in M \ {mu}} pi_nu xi_nu when mu in M;
//            -xi_mu + sum_{nu in M} pi_nu xi_nu when mu is not in M.
template <class S> Vector<S> sparse_u_error(const Matrix<S>& Xi, const Matrix<S>& Keys, const Vector<S>& x, const S& beta, const Mask& mask,
                                            std::size_t mu) {
  detail::require_shapes(Xi, Keys, x, "hopfield::sparse_u_error");
  detail::require_mask(mask, Xi.rows, "hopfield::sparse_u_error");
  require(mu < Xi.rows, "hopfield::sparse_u_error: mu out of range");
  const Vector<S> pi = softmax_weights(beta, scores(Keys, x));
  const bool in = std::binary_search(mask.begin(), mask.end(), mu);
  S off(0);  // the weight that does not land on xi_mu with coefficient 1
  if (in) {
    for (std::size_t nu = 0; nu < Xi.rows; ++nu)
      if (nu != mu) off += pi[nu];
  } else {
    off = S(1);
  }
  Vector<S> e(Xi.cols);
  for (std::size_t c = 0; c < Xi.cols; ++c) e[c] = -off * Xi(mu, c);
  const MulAddCtx<S> ctx;
  for (std::size_t nu : mask) {
    if (nu == mu) continue;
    for (std::size_t c = 0; c < Xi.cols; ++c) muladd(e[c], pi[nu], Xi(nu, c), ctx);
  }
  return e;
}
// reading R: sum_{nu in M \ {mu}} q_nu (xi_nu - xi_mu) when mu in M; T_R(x) - xi_mu formed directly otherwise.
template <class S> Vector<S> sparse_r_error(const Matrix<S>& Xi, const Matrix<S>& Keys, const Vector<S>& x, const S& beta, const Mask& mask,
                                            std::size_t mu) {
  detail::require_shapes(Xi, Keys, x, "hopfield::sparse_r_error");
  require(mu < Xi.rows, "hopfield::sparse_r_error: mu out of range");
  const Vector<S> q = masked_weights(beta, scores(Keys, x), mask);
  Vector<S> e(Xi.cols, S(0));
  const MulAddCtx<S> ctx;
  if (!std::binary_search(mask.begin(), mask.end(), mu)) {
    e = combine_rows(Xi, q);
    for (std::size_t c = 0; c < Xi.cols; ++c) e[c] -= Xi(mu, c);
    return e;
  }
  for (std::size_t nu : mask) {
    if (nu == mu || q[nu] == 0) continue;
    for (std::size_t c = 0; c < Xi.cols; ++c) muladd(e[c], q[nu], S(Xi(nu, c) - Xi(mu, c)), ctx);
  }
  return e;
}

// ---- A003-SEPARATION, m, R ----------------------------------------------------------------------------------
// m = max_mu ||xi_mu||
template <class S> S max_norm(const Matrix<S>& Xi) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  S m(0);
  for (std::size_t mu = 0; mu < Xi.rows; ++mu) {
    const S n = sqrt(dot(Xi.row(mu), Xi.row(mu), Xi.cols));
    if (n > m) m = n;
  }
  return m;
}
// ||xi_mu - xi_nu|| from the difference vector
template <class S> S pair_distance(const Matrix<S>& Xi, std::size_t mu, std::size_t nu) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  S acc(0);
  for (std::size_t c = 0; c < Xi.cols; ++c) {
    const S t = Xi(mu, c) - Xi(nu, c);
    acc += t * t;
  }
  return sqrt(acc);
}
// R = (1/2) min_{mu != nu} ||xi_mu - xi_nu|| over all pairs, or over the pairs inside `mask` (Thm 4.2's reading).
template <class S> S radius(const Matrix<S>& Xi, const Mask* mask = nullptr) {
  Mask all;
  if (!mask) {
    all.resize(Xi.rows);
    std::iota(all.begin(), all.end(), std::size_t{0});
    mask = &all;
  }
  detail::require_mask(*mask, Xi.rows, "hopfield::radius");
  require(mask->size() >= 2, "hopfield::radius: needs at least two memories");
  bool first = true;
  S r(0);
  for (std::size_t i = 0; i < mask->size(); ++i)
    for (std::size_t j = i + 1; j < mask->size(); ++j) {
      const S dist = pair_distance(Xi, (*mask)[i], (*mask)[j]);
      if (first || dist < r) r = dist;
      first = false;
    }
  return r / 2;
}
// Delta_mu = min_{nu != mu} [<xi_mu, xi_mu> - <xi_mu, xi_nu>], each term in the stable form
// ||xi_mu - xi_nu||^2 / 2 + (||xi_mu||^2 - ||xi_nu||^2) / 2.
template <class S> S separation(const Matrix<S>& Xi, std::size_t mu) {
  require(Xi.rows >= 2 && mu < Xi.rows, "hopfield::separation: needs M >= 2 and mu in range");
  bool first = true;
  S best(0);
  const S nmu = dot(Xi.row(mu), Xi.row(mu), Xi.cols);
  for (std::size_t nu = 0; nu < Xi.rows; ++nu) {
    if (nu == mu) continue;
    S d2(0);
    for (std::size_t c = 0; c < Xi.cols; ++c) {
      const S t = Xi(mu, c) - Xi(nu, c);
      d2 += t * t;
    }
    const S term = d2 / 2 + (nmu - dot(Xi.row(nu), Xi.row(nu), Xi.cols)) / 2;
    if (first || term < best) best = term;
    first = false;
  }
  return best;
}
// tilde Delta_mu(x) = min_{nu != mu, nu in mask (all when null)} <x, k_mu - k_nu> (C8), difference vector first.
// Returns +inf-free: requires at least one competitor.
template <class S> S query_separation(const Matrix<S>& Keys, const Vector<S>& x, std::size_t mu, const Mask* mask = nullptr) {
  require(x.size() == Keys.cols && mu < Keys.rows, "hopfield::query_separation: shape mismatch or mu out of range");
  bool first = true;
  S best(0);
  Vector<S> diff(Keys.cols);
  auto visit = [&](std::size_t nu) {
    if (nu == mu) return;
    for (std::size_t c = 0; c < Keys.cols; ++c) diff[c] = Keys(mu, c) - Keys(nu, c);
    const S t = dot(x.data(), diff.data(), x.size());
    if (first || t < best) best = t;
    first = false;
  };
  if (mask) {
    detail::require_mask(*mask, Keys.rows, "hopfield::query_separation");
    for (std::size_t nu : *mask) visit(nu);
  } else {
    for (std::size_t nu = 0; nu < Keys.rows; ++nu) visit(nu);
  }
  require(!first, "hopfield::query_separation: no competitor nu != mu");
  return best;
}

// The exponent of (4.1) as printed: <xi_mu, x> - max_{nu != mu} <xi_mu, xi_nu> = min_{nu != mu} <xi_mu, x - xi_nu>
// (query_separation above is the form the proof of Thm 4.1 uses: min_{nu != mu} <x, xi_mu - xi_nu>).
template <class S> S printed_query_separation(const Matrix<S>& Xi, const Vector<S>& x, std::size_t mu) {
  require(x.size() == Xi.cols && mu < Xi.rows, "hopfield::printed_query_separation: shape mismatch or mu out of range");
  bool first = true;
  S best(0);
  Vector<S> diff(Xi.cols);
  for (std::size_t nu = 0; nu < Xi.rows; ++nu) {
    if (nu == mu) continue;
    for (std::size_t c = 0; c < Xi.cols; ++c) diff[c] = x[c] - Xi(nu, c);
    const S t = dot(Xi.row(mu), diff.data(), Xi.cols);
    if (first || t < best) best = t;
    first = false;
  }
  require(!first, "hopfield::printed_query_separation: no competitor nu != mu");
  return best;
}

// ---- masks ----------------------------------------------------------------------------------------------------
// Philox-4x32-10 (Salmon et al., SC'11), the counter-based generator of spec A003-RANDOM-MASK: masks are drawn once
// on the host, keyed by (seed, query index), and handed to every kernel as input.
struct Philox4x32 {
  using Ctr = std::array<std::uint32_t, 4>;
  using Key = std::array<std::uint32_t, 2>;
  static Ctr block(Ctr c, Key k) {
    for (int r = 0; r < 10; ++r) {
      if (r) {
        k[0] += 0x9E3779B9u;
        k[1] += 0xBB67AE85u;
      }
      const std::uint64_t p0 = std::uint64_t{0xD2511F53u} * c[0];
      const std::uint64_t p1 = std::uint64_t{0xCD9E8D57u} * c[2];
      c = {static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<std::uint32_t>(p1),
           static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<std::uint32_t>(p0)};
    }
    return c;
  }
};
// A stream of 32-bit words for one (seed, stream) pair: counter (i, stream lo, stream hi, 0), key = seed halves.
class PhiloxStream {
 public:
  PhiloxStream(std::uint64_t seed, std::uint64_t stream)
      : key_{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)},
        ctr_{0u, static_cast<std::uint32_t>(stream), static_cast<std::uint32_t>(stream >> 32), 0u} {}
  std::uint32_t next32() {
    if (used_ == 4) {
      buf_ = Philox4x32::block(ctr_, key_);
      if (++ctr_[0] == 0) ++ctr_[3];
      used_ = 0;
    }
    return buf_[used_++];
  }
  std::uint64_t next64() {
    const std::uint64_t hi = next32();
    return (hi << 32) | next32();
  }
  // uniform integer in [0, n), n >= 1, by rejection (no modulo bias)
  std::uint64_t below(std::uint64_t n) {
    require(n >= 1, "PhiloxStream::below: n must be >= 1");
    const std::uint64_t lim = (~std::uint64_t{0}) - ((~std::uint64_t{0}) % n + 1) % n;  // largest multiple of n, minus 1
    for (;;) {
      const std::uint64_t v = next64();
      if (v <= lim) return v % n;
    }
  }
  // uniform double in [0, 1) with 53 random bits
  double uniform() { return static_cast<double>(next64() >> 11) * 0x1.0p-53; }

 private:
  Philox4x32::Key key_;
  Philox4x32::Ctr ctr_;
  Philox4x32::Ctr buf_{};
  int used_ = 4;
};

// A003-RANDOM-MASK: a uniformly random k-subset of [M] for query `row` (mode `uniform`), or {mu} plus a uniformly random
// (k-1)-subset of [M] \ {mu} (mode `force_mu`, mu = force_mu). Partial Fisher-Yates on Philox draws; sorted output.
inline Mask random_mask(std::size_t M, std::size_t k, std::uint64_t seed, std::uint64_t row, long long force_mu = -1) {
  require(M >= 1, "hopfield::random_mask: M must be >= 1");
  require(k <= M, "hopfield::random_mask: k = " + std::to_string(k) + " exceeds M = " + std::to_string(M));
  require(force_mu < static_cast<long long>(M), "hopfield::random_mask: force_mu out of range");
  require(force_mu < 0 || k >= 1, "hopfield::random_mask: force_mu needs k >= 1");
  PhiloxStream g(seed, row);
  std::vector<std::size_t> pool;
  pool.reserve(M);
  for (std::size_t i = 0; i < M; ++i)
    if (static_cast<long long>(i) != force_mu) pool.push_back(i);
  Mask out;
  std::size_t need = k;
  if (force_mu >= 0) {
    out.push_back(static_cast<std::size_t>(force_mu));
    --need;
  }
  for (std::size_t i = 0; i < need; ++i) {
    const std::size_t j = i + static_cast<std::size_t>(g.below(pool.size() - i));
    std::swap(pool[i], pool[j]);
    out.push_back(pool[i]);
  }
  std::sort(out.begin(), out.end());
  return out;
}
// A003-RANDOM-MASK-BERN: each index kept with probability 1 - rho (masked out with probability rho), i.i.d.
inline Mask random_mask_bernoulli(std::size_t M, double rho, std::uint64_t seed, std::uint64_t row) {
  require(rho >= 0 && rho <= 1, "hopfield::random_mask_bernoulli: rho must be in [0, 1]");
  PhiloxStream g(seed, row);
  Mask out;
  for (std::size_t i = 0; i < M; ++i)
    if (g.uniform() >= rho) out.push_back(i);
  return out;
}
// Default window size w = ceil(sqrt(L)) (flag floor: floor(sqrt(L))), computed in integers.
inline std::size_t window_size(std::size_t L, bool floor_rounding = false) {
  require(L >= 1, "hopfield::window_size: L must be >= 1");
  std::size_t r = 0;
  while ((r + 1) * (r + 1) <= L) ++r;  // floor sqrt
  return (floor_rounding || r * r == L) ? r : r + 1;
}
// A003-SLIDING-WINDOW (centred): row i (0-based) keeps j with i - floor((w-1)/2) <= j <= i + ceil((w-1)/2), truncated at
// the ends; `shift` slides the window inward so every row keeps min(w, L) keys.
inline Mask sliding_window(std::size_t L, std::size_t i, std::size_t w, bool shift = false) {
  require(L >= 1 && i < L, "hopfield::sliding_window: row out of range");
  require(w >= 1, "hopfield::sliding_window: window size must be >= 1");
  const long long lo0 = static_cast<long long>(i) - static_cast<long long>((w - 1) / 2);
  const long long hi0 = static_cast<long long>(i) + static_cast<long long>(w / 2);  // ceil((w-1)/2) = floor(w/2)
  long long lo = lo0, hi = hi0;
  if (shift) {
    const long long ww = static_cast<long long>(std::min(w, L));
    if (lo < 0) { lo = 0; hi = ww - 1; }
    if (hi > static_cast<long long>(L) - 1) { hi = static_cast<long long>(L) - 1; lo = hi - ww + 1; }
  }
  lo = std::max(lo, 0LL);
  hi = std::min(hi, static_cast<long long>(L) - 1);
  Mask out;
  for (long long j = lo; j <= hi; ++j) out.push_back(static_cast<std::size_t>(j));
  return out;
}
// A003-WINDOW-CAUSAL: row i keeps i - w + 1 <= j <= i (diagonal included), early rows truncated.
inline Mask causal_window(std::size_t L, std::size_t i, std::size_t w) {
  require(L >= 1 && i < L, "hopfield::causal_window: row out of range");
  require(w >= 1, "hopfield::causal_window: window size must be >= 1");
  Mask out;
  for (std::size_t j = (i + 1 >= w ? i + 1 - w : 0); j <= i; ++j) out.push_back(j);
  return out;
}
// A003-TOPK (tie policy GE, as printed (3.13)): sigma* = the K-th largest of sigma (with multiplicity); keep every
// index with sigma_mu >= sigma*, so |mask| >= K. sigma are the clean scores <x, xi_mu> (3.12), exact comparisons.
template <class S> Mask topk_ge(const Vector<S>& sigma, std::size_t K) {
  require(K >= 1 && K <= sigma.size(), "hopfield::topk_ge: K = " + std::to_string(K) + " must be in [1, M = " + std::to_string(sigma.size()) + "]");
  detail::require_finite(sigma, "hopfield::topk_ge", "sigma");
  std::vector<S> sorted(sigma);
  std::sort(sorted.begin(), sorted.end(), [](const S& a, const S& b) { return a > b; });
  const S star = sorted[K - 1];
  Mask out;
  for (std::size_t i = 0; i < sigma.size(); ++i)
    if (sigma[i] >= star) out.push_back(i);
  return out;
}
// A003-TOPK-EXACT: order by (sigma descending, index ascending) and keep the first K.
template <class S> Mask topk_exact(const Vector<S>& sigma, std::size_t K) {
  require(K >= 1 && K <= sigma.size(), "hopfield::topk_exact: K = " + std::to_string(K) + " must be in [1, M = " + std::to_string(sigma.size()) + "]");
  detail::require_finite(sigma, "hopfield::topk_exact", "sigma");
  std::vector<std::size_t> idx(sigma.size());
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return sigma[a] > sigma[b]; });
  Mask out(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(K));
  std::sort(out.begin(), out.end());
  return out;
}
// K = ceil(f M) (flag floor: floor(f M)), at least 1: the paper's Top-f% models.
inline std::size_t topk_fraction(std::size_t M, double f, bool floor_rounding = false) {
  require(f > 0 && f <= 1, "hopfield::topk_fraction: f must be in (0, 1]");
  const double v = f * static_cast<double>(M);
  std::size_t K = static_cast<std::size_t>(floor_rounding ? std::floor(v) : std::ceil(v - 1e-12 * v));
  return std::max<std::size_t>(1, std::min(K, M));
}

// ---- one-step iteration helpers ---------------------------------------------------------------------------------
enum class Reading { dense, sparse_u, sparse_r };
inline const char* reading_name(Reading r) { return r == Reading::dense ? "dense" : r == Reading::sparse_u ? "U" : "R"; }
// One step of the chosen map with a fixed mask (ignored for dense).
template <class S> Vector<S> retrieval_step(Reading r, const Matrix<S>& Xi, const Vector<S>& x, const S& beta, const Mask& mask) {
  switch (r) {
    case Reading::dense: return dense_retrieval(Xi, x, beta);
    case Reading::sparse_u: return sparse_u(Xi, x, beta, mask);
    default: return sparse_r(Xi, x, beta, mask);
  }
}
// T(x) - xi_mu of the chosen map by C9 (dense ignores the mask).
template <class S> Vector<S> retrieval_error(Reading r, const Matrix<S>& Xi, const Vector<S>& x, const S& beta, const Mask& mask, std::size_t mu) {
  switch (r) {
    case Reading::dense: return dense_error(Xi, Xi, x, beta, mu);
    case Reading::sparse_u: return sparse_u_error(Xi, Xi, x, beta, mask, mu);
    default: return sparse_r_error(Xi, Xi, x, beta, mask, mu);
  }
}

}  // namespace recall::ref::hopfield
