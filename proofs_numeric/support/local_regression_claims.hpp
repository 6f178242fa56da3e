// Shared helpers of the A001 local-regression claim files (§4 Vignette 4, Eqs. (48)-(54)):
// proofs_numeric/a001_test_time_regression/local_linear_attention.cpp, local_linear_singular.cpp and
// local_linear_fast_forms.cpp. The instance schedule (std::mt19937_64 Box-Muller stream seeded by
// mix(tag_seed(cfg.seed, ID), n), generators G1 and G4 with rho in {0.5, 0.9, 0.99}, similarities dot_exp and
// gauss at two sharpnesses), the precision rule (P-scaled + P-exp: d + max(0, 30 + ceil(spread / ln 10) - 50)
// + 2 ceil(log10 cond) + 5 digits, cond of W^{1/2} X estimated in fp64), and the literal forms used as
// independent sides (Eq. (52) by the normal equations, objective (48) and its stationarity residual).
// Internal linkage (an unnamed namespace, no `inline`) like claim_support.hpp, so that every claim's
// figures stay those of the former file-local copies.
#pragma once

#include "recall/proofs/ledger.hpp"
#include "recall/reference/local_regression.hpp"
#include "recall/reference/svd.hpp"
#include "claim_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace recall::claim_support::local_regression {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

using ref::LocalFit;
using ref::Similarity;
using ref::SingularPolicy;

// 16 hex digits of an instance seed
std::string hex(std::uint64_t x) {
  static const char* d = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, x >>= 4) s[static_cast<std::size_t>(i)] = d[x & 15];
  return s;
}

// instances
// ---------------------------------------------------------------------------------------------

enum class KeyGen { g1, g4_05, g4_09, g4_099 };
const char* keygen_name(KeyGen k) {
  switch (k) {
    case KeyGen::g1: return "G1";
    case KeyGen::g4_05: return "G4(rho=0.5)";
    case KeyGen::g4_09: return "G4(rho=0.9)";
    case KeyGen::g4_099: return "G4(rho=0.99)";
  }
  return "?";
}
double keygen_rho(KeyGen k) {
  switch (k) {
    case KeyGen::g1: return 0;
    case KeyGen::g4_05: return 0.5;
    case KeyGen::g4_09: return 0.9;
    case KeyGen::g4_099: return 0.99;
  }
  return 0;
}
// n x d rows, equicorrelated N(0, (1 - rho) I + rho 1 1^T) (rho = 0: G1), times `scale`
DM draw_rows(Gauss& g, KeyGen kg, std::size_t n, std::size_t d, double scale = 1.0) {
  const double rho = keygen_rho(kg), a = std::sqrt(1 - rho), b = std::sqrt(rho);
  DM m(n, d);
  for (std::size_t i = 0; i < n; ++i) {
    const double z0 = g.normal();
    for (std::size_t j = 0; j < d; ++j) m(i, j) = scale * (a * g.normal() + b * z0);
  }
  return m;
}

struct Dims3 {
  std::size_t T, dk, dv;
};
struct LInst {
  std::string desc;
  DM Q, K, V;
  std::size_t T = 0, dk = 0, dv = 0;
  Similarity sim;
  KeyGen kg = KeyGen::g1;
  std::uint64_t seed = 0;
};
Similarity sim_of(int which, std::size_t dk) {
  const double sd = std::sqrt(static_cast<double>(dk));
  switch (which % 4) {
    case 0: return ref::sim_dot_exp();                         // s = 1/sqrt(D_k) (default)
    case 1: return ref::sim_gauss(2.0 * static_cast<double>(dk));  // B = 2 D_k
    case 2: return ref::sim_dot_exp(2.0 / sd);                 // sharper dot
    default: return ref::sim_gauss(0.5 * static_cast<double>(dk));  // sharper Gaussian
  }
}
std::string sim_desc(const Similarity& s, std::size_t dk) {
  if (s.kind == ref::SimilarityKind::gauss) return "gauss(B=" + fmt(s.param, 4) + ")";
  if (s.param == 0) return "dot_exp(s=1/sqrt(" + std::to_string(dk) + "))";
  return "dot_exp(s=" + fmt(s.param, 4) + ")";
}
LInst make_inst(const CheckConfig& cfg, const char* tag, int n, const Dims3& dm, KeyGen kg, int simw, double key_scale = 1.0,
                const Similarity* sim_override = nullptr) {
  LInst in;
  in.seed = mix(tag_seed(cfg.seed, tag), static_cast<std::uint64_t>(n));
  Gauss g(in.seed);
  in.T = dm.T;
  in.dk = dm.dk;
  in.dv = dm.dv;
  in.kg = kg;
  in.K = draw_rows(g, kg, dm.T, dm.dk, key_scale);
  in.Q = draw_rows(g, kg, dm.T, dm.dk, key_scale);
  in.V = gauss_matrix(dm.T, dm.dv, g);
  in.sim = sim_override ? *sim_override : sim_of(simw, dm.dk);
  in.desc = std::string(keygen_name(kg)) + " T=" + std::to_string(dm.T) + " D_k=" + std::to_string(dm.dk) + " D_v=" +
            std::to_string(dm.dv) + (key_scale != 1.0 ? " key_scale=" + fmt(key_scale) : std::string()) + " " + sim_desc(in.sim, dm.dk) +
            " inst_seed=" + hex(in.seed);
  return in;
}
// The standard schedule: sizes smallest first, generators and similarities cycled.
std::vector<LInst> instances(const CheckConfig& cfg, const char* tag, int quick_n = 10, int full_n = 48) {
  static const std::vector<Dims3> sizes = {{1, 1, 1}, {3, 1, 2}, {4, 2, 1}, {6, 3, 2},  {8, 2, 3},  {9, 4, 2},
                                           {12, 1, 5}, {12, 3, 1}, {14, 8, 2}, {18, 4, 3}, {24, 2, 2}, {30, 8, 5},
                                           {32, 3, 3}, {40, 16, 3}, {40, 4, 5}, {40, 1, 1}};
  const int N = cfg.quick ? quick_n : full_n;
  std::vector<LInst> out;
  const std::size_t nsz = cfg.quick ? 10 : sizes.size();
  for (int n = 0; n < N; ++n) {
    const std::size_t k = static_cast<std::size_t>(n) % nsz;
    const KeyGen kg = static_cast<KeyGen>(n % 4);
    out.push_back(make_inst(cfg, tag, n, sizes[k], kg, n / 4 + n));
  }
  std::stable_sort(out.begin(), out.end(), [](const LInst& a, const LInst& b) { return a.T * (a.dk + a.dv) < b.T * (b.dk + b.dv); });
  return out;
}

// ---------------------------------------------------------------------------------------------
// precision (P-scaled + P-exp)
// ---------------------------------------------------------------------------------------------

// sigma_max / sigma_min of W^{1/2} X^(p) (over its min(t, n_p) singular values) in fp64 at query q
double cond_design_d(const DM& K, std::size_t t, const double* q, const std::vector<double>& w, int p) {
  const auto ex = ref::monomial_exponents(K.cols, p);
  DM A(t, ex.size());
  std::vector<double> d(K.cols);
  for (std::size_t i = 0; i < t; ++i) {
    for (std::size_t j = 0; j < K.cols; ++j) d[j] = K(i, j) - q[j];
    const auto x = ref::monomial_row(d.data(), ex);
    for (std::size_t c = 0; c < ex.size(); ++c) A(i, c) = std::sqrt(w[i]) * x[c];
  }
  const auto sv = ref::svd(A);
  if (sv.sigma.empty() || !(sv.sigma.back() > 0)) return 1e300;
  return sv.sigma.front() / sv.sigma.back();
}
struct Prec {
  double cond = 1, spread = 0;
  unsigned extra = 0;  // digits above d
  std::string str(unsigned d) const {
    return "digits " + std::to_string(d + extra) + " (cond<=" + fmt(cond) + ", logit spread " + fmt(spread) + ")";
  }
};
// worst conditioning and logit spread over every query t of the instance (p: degree of the design)
Prec precision_of(const LInst& in, int p = 1, unsigned base = 50) {
  Prec pr;
  for (std::size_t t = 1; t <= in.T; ++t) {
    const auto l = ref::local_log_weights(in.sim, in.K, t, in.Q.row(t - 1));
    double lo = l[0], hi = l[0];
    for (double x : l) {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    pr.spread = std::max(pr.spread, hi - lo);
    pr.cond = std::max(pr.cond, cond_design_d(in.K, t, in.Q.row(t - 1), ref::max_subtracted_weights(l), p));
  }
  const double pexp = 30 + std::ceil(pr.spread / std::log(10.0));
  const double lift = std::max(0.0, pexp - base);
  pr.extra = static_cast<unsigned>(lift + 2 * std::ceil(std::log10(std::max(1.0, std::min(pr.cond, 1e40)))) + 5);
  return pr;
}

// ---------------------------------------------------------------------------------------------
// literal forms used as independent sides
// ---------------------------------------------------------------------------------------------

MV weights_mp(const LInst& in, const MM& K, std::size_t t, const mp_t* q) { return ref::local_weights(in.sim, K, t, q); }
MM slope_of(const LocalFit<mp_t>& f) {
  MM M1(f.theta.rows, f.theta.cols - 1);
  for (std::size_t c = 0; c < M1.rows; ++c)
    for (std::size_t j = 0; j < M1.cols; ++j) M1(c, j) = f.theta(c, 1 + j);
  return M1;
}
// Eq. (52)-(53) literally: X_t with rows [1, (k_i - q)^T], W = diag(w), Theta = (V^T W X)(X^T W X)^{-1}
// (normal equations, Gaussian elimination).
MM eq52_literal(const MM& K, const MM& V, std::size_t t, const mp_t* q, const MV& w) {
  const std::size_t n = 1 + K.cols;
  MM X(t, n), WX(t, n);
  for (std::size_t i = 0; i < t; ++i) {
    X(i, 0) = 1;
    for (std::size_t j = 0; j < K.cols; ++j) X(i, 1 + j) = K(i, j) - q[j];
    for (std::size_t c = 0; c < n; ++c) WX(i, c) = w[i] * X(i, c);
  }
  const MM Vt = transpose(claim_support::head_rows(V, t));
  const MM Xt = transpose(X);
  return ref::right_solve(ref::matmul(Vt, WX), ref::matmul(Xt, WX));
}
// weighted objective (48) of a degree-p polynomial fit: 1/2 sum_i w_i ||v_i - Theta x^(p)(d_i)||^2, and the
// normalised stationarity residual ||sum_i w_i (Theta x_i - v_i) x_i^T||_F / sum_i w_i ||x_i|| (||Theta|| ||x_i|| + ||v_i||)
struct ObjEval {
  mp_t J, grad_rel;
};
ObjEval objective_48(const MM& K, const MM& V, std::size_t t, const mp_t* q, const MV& w, const MM& theta, int p) {
  const auto ex = ref::monomial_exponents(K.cols, p);
  const std::size_t n = ex.size(), dv = V.cols;
  MM G(dv, n);
  mp_t J(0), scale(0);
  const mp_t nth = ref::frob(theta);
  MV d(K.cols), r(dv);
  for (std::size_t i = 0; i < t; ++i) {
    for (std::size_t j = 0; j < K.cols; ++j) d[j] = K(i, j) - q[j];
    const MV x = ref::monomial_row(d.data(), ex);
    mp_t nx(0), nv(0), rr(0);
    for (std::size_t c = 0; c < n; ++c) nx += x[c] * x[c];
    for (std::size_t c = 0; c < dv; ++c) {
      mp_t u(0);
      for (std::size_t a = 0; a < n; ++a) u += theta(c, a) * x[a];
      r[c] = u - V(i, c);
      rr += r[c] * r[c];
      nv += V(i, c) * V(i, c);
    }
    J += w[i] * rr / 2;
    for (std::size_t c = 0; c < dv; ++c)
      for (std::size_t a = 0; a < n; ++a) G(c, a) += w[i] * r[c] * x[a];
    scale += w[i] * sqrt(nx) * (nth * sqrt(nx) + sqrt(nv));
  }
  ObjEval o;
  o.J = J;
  o.grad_rel = scale > 0 ? mp_t(ref::frob(G) / scale) : mp_t(0);
  return o;
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::local_regression
