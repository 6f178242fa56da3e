// The registry's ops of paper A002 (Atlas): the Omega rule with a linear memory on polynomial features
// (token-sequential and the paper's frozen-gradient chunk algorithm), chunk-parallel Atlas in both printed
// sign readings (Eqs. 32-33 and App. D.4), and batched Newton–Schulz-5. Oracle and baseline are the
// scalar-generic references (reference/omega.hpp, atlas.hpp, newton_schulz.hpp, polynomial_maps.hpp)
// instantiated at mp_t and at float/double; this file is where those instantiations happen, once.
#include "recall/properties/ops.hpp"

#include "input_checks.hpp"
#include "op_support.hpp"
#include "recall/reference/atlas.hpp"
#include "recall/reference/newton_schulz.hpp"
#include "recall/reference/omega.hpp"
#include "recall/reference/polynomial_maps.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace recall {
namespace {

using namespace op_support;
using ref::Matrix;
using ref::Vector;

enum class OmegaMode { rule, chunk, atlas_eq32, atlas_d4 };

bool is_atlas(OmegaMode m) { return m == OmegaMode::atlas_eq32 || m == OmegaMode::atlas_d4; }
bool has_chunk(OmegaMode m) { return m != OmegaMode::rule; }

constexpr int kMaxDegree = 3;

// degree of the feature map: input 'degree' [1] (absent: 0, phi = id)
int degree_of(const TensorMap& in) {
  auto it = in.find("degree");
  return it == in.end() ? 0 : static_cast<int>(std::lround(it->second.data[0]));
}
std::size_t feature_dim(std::size_t dk, int degree) { return degree == 0 ? dk : ref::monomial_map_dim(dk, degree); }

// an integer-valued one-element input in [lo, hi]
void require_int_scalar(const TensorMap& in, const std::string& op, const char* name, double lo, double hi, bool required) {
  auto it = in.find(name);
  if (it == in.end()) {
    if (required) throw std::invalid_argument(op + ": missing input '" + name + "'");
    return;
  }
  require_shape(it->second, {1}, op, name);
  const double x = it->second.data[0];
  if (!std::isfinite(x) || x != std::floor(x) || x < lo || x > hi)
    throw std::invalid_argument(op + ": input '" + name + "' must be an integer in [" + std::to_string(static_cast<long long>(lo)) + ", " +
                                std::to_string(static_cast<long long>(hi)) + "], got " + std::to_string(x));
}

void require_state(const TensorMap& in, const std::string& op, const char* name, const Dims& d, std::size_t D) {
  auto it = in.find(name);
  if (it == in.end()) return;
  require_shape(it->second, {d.B, d.H, d.dv, static_cast<std::int64_t>(D)}, op, name);
  require_finite(it->second, op, name);
}

void validate_omega(const TensorMap& in, const std::string& op, OmegaMode mode) {
  const Dims d = validate_qkv_shapes(in, op, {"eta"});
  validate_log_gate(in, op, d, "log_alpha", "decays alpha");
  const Tensor& eta = in.at("eta");
  for (std::size_t i = 0; i < eta.data.size(); ++i)
    if (!(eta.data[i] >= 0))
      throw std::invalid_argument(op + ": input 'eta' must be >= 0 (learning rates), entry " + std::to_string(i + 1) + " is " +
                                  std::to_string(eta.data[i]));
  auto g = in.find("gamma");
  if (g == in.end()) throw std::invalid_argument(op + ": missing input 'gamma' [B,H,T,c] (window gates)");
  if (g->second.shape.size() != 4 || g->second.shape[0] != d.B || g->second.shape[1] != d.H || g->second.shape[2] != d.T ||
      g->second.shape[3] < 1)
    throw std::invalid_argument(op + ": input 'gamma' must have shape [B,H,T,c] with c >= 1 " + dims_note(in, op));
  require_finite(g->second, op, "gamma");
  require_int_scalar(in, op, "degree", 0, kMaxDegree, false);
  if (has_chunk(mode)) require_int_scalar(in, op, "chunk", 1, 1 << 20, true);
  const std::size_t D = feature_dim(static_cast<std::size_t>(d.dk), degree_of(in));
  require_state(in, op, "s0", d, D);
  if (is_atlas(mode)) {
    validate_log_gate(in, op, d, "log_theta", "momentum decays theta");
    require_state(in, op, "m0", d, D);
  }
  for (auto& [name, t] : in) {
    const bool known = name == "q" || name == "k" || name == "v" || name == "log_alpha" || name == "eta" || name == "gamma" ||
                       name == "degree" || name == "s0" || (has_chunk(mode) && name == "chunk") ||
                       (is_atlas(mode) && (name == "log_theta" || name == "m0"));
    if (!known) throw std::invalid_argument(op + ": unknown input '" + name + "'");
  }
}

template <class S> Matrix<S> features_of(const Matrix<S>& X, int degree) { return degree == 0 ? X : ref::monomial_map(X, degree); }

// ---- reference evaluation, generic over the scalar ----
template <class S, class Out> std::map<std::string, Out> eval_omega(const TensorMap& in, const std::string& op, OmegaMode mode) {
  const Dims d = dims_of(in, op);
  const int degree = degree_of(in);
  const std::size_t D = feature_dim(static_cast<std::size_t>(d.dk), degree);
  const std::int64_t c = in.at("gamma").shape[3];
  const std::size_t b = has_chunk(mode) ? static_cast<std::size_t>(std::lround(in.at("chunk").data[0])) : 1;
  std::map<std::string, Out> out;
  out["o"] = make_out<Out>({d.B, d.H, d.T, d.dv});
  out["s_final"] = make_out<Out>({d.B, d.H, d.dv, static_cast<std::int64_t>(D)});
  if (is_atlas(mode)) out["m_final"] = make_out<Out>({d.B, d.H, d.dv, static_cast<std::int64_t>(D)});
  for (std::int64_t bb = 0; bb < d.B; ++bb)
    for (std::int64_t h = 0; h < d.H; ++h) {
      auto [Q, K, V] = slice_qkv<S>(in, op, d, bb, h);
      const Vector<S> la = slice_vec<S>(in.at("log_alpha"), bb, h, static_cast<std::size_t>(d.T));
      const Vector<S> eta = slice_vec<S>(in.at("eta"), bb, h, static_cast<std::size_t>(d.T));
      const Matrix<S> lags = slice<S>(in.at("gamma"), bb, h, static_cast<std::size_t>(d.T), static_cast<std::size_t>(c));
      Matrix<S> M0;
      if (in.count("s0")) M0 = slice<S>(in.at("s0"), bb, h, static_cast<std::size_t>(d.dv), D);
      if (!is_atlas(mode)) {
        ref::OmegaInputs<S> oi;
        oi.PhiQ = features_of(Q, degree);
        oi.PhiK = features_of(K, degree);
        oi.V = V;
        oi.log_alpha = la;
        oi.eta = eta;
        oi.Gamma = ref::omega_gamma_from_lags(lags);
        oi.c = static_cast<std::size_t>(c);
        oi.M0 = M0;
        const ref::OmegaResult<S> r = mode == OmegaMode::rule ? ref::omega_rule(oi) : ref::omega_chunk(oi, b);
        put(out["o"], bb, h, r.Y.a);
        put(out["s_final"], bb, h, r.state.a);
        continue;
      }
      const Vector<S> lt = slice_vec<S>(in.at("log_theta"), bb, h, static_cast<std::size_t>(d.T));
      ref::AtlasInputs<S> ai;
      ai.PhiQ = features_of(Q, degree);
      ai.PhiK = features_of(K, degree);
      ai.V = V;
      ai.alpha.resize(static_cast<std::size_t>(d.T));
      ai.theta.resize(static_cast<std::size_t>(d.T));
      for (std::size_t t = 0; t < static_cast<std::size_t>(d.T); ++t) {
        ai.alpha[t] = ref::exp_log(la[t]);
        ai.theta[t] = ref::exp_log(lt[t]);
      }
      ai.eta = eta;
      ai.Gamma = ref::omega_gamma_from_lags(lags);
      // D4 (Eq. 58): the window weights carry the rate, Gamma_{n,i} = eta_n gamma_i^(n); EQ32: eta_n is the outer rate
      if (mode == OmegaMode::atlas_d4)
        for (std::size_t t = 0; t < static_cast<std::size_t>(d.T); ++t)
          for (std::size_t i = 0; i < static_cast<std::size_t>(d.T); ++i) ai.Gamma(t, i) = S(eta[t] * ai.Gamma(t, i));
      ai.c = static_cast<std::size_t>(c);
      ai.M0 = M0;
      if (in.count("m0")) ai.S0 = slice<S>(in.at("m0"), bb, h, static_cast<std::size_t>(d.dv), D);
      const ref::AtlasConfig<S> cfg;  // NS5 with the Muon coefficients, eps 1e-7, eta_out = 1, ||.||^2
      const ref::AtlasResult<S> r =
          ref::atlas_frozen_chunks(ai, cfg, mode == OmegaMode::atlas_eq32 ? ref::AtlasVariant::eq32 : ref::AtlasVariant::d4, b);
      put(out["o"], bb, h, r.Y.a);
      put(out["s_final"], bb, h, r.M.back().a);
      put(out["m_final"], bb, h, r.Smom.back().a);
    }
  return out;
}

// sum over the monomials of degree <= p of x^(2 beta) = ||phi_p(x)||^2 (degree 0: ||x||^2), in double
double feature_norm2(const double* x, int dk, int degree) {
  if (degree == 0) {
    double s = 0;
    for (int j = 0; j < dk; ++j) s += x[j] * x[j];
    return s;
  }
  const Vector<double> v(x, x + dk);
  const Vector<double> f = ref::monomial_map(v, degree);
  double s = 0;
  for (double e : f) s += e * e;
  return s;
}

// ---- generator: the spec's default instances (A002 "Default random instances") on the shared knobs: keys of
// the key kind, log-decays of the gate kind, window gates gamma ~ U[0,1], c from {1, 2, 3, 8}, chunk from
// {1, 2, 3, 4, 16, 64} (windows crossing chunk starts, c > b, T < c all occur), degree 0..2 where the feature
// count stays small (the oracle's cost is O(T c d_v D) MP operations), learning rates
// eta_t ~ U[0.01, 0.5] / max(1, c max_i ||phi_i||^2) (steps stable for any key scale), Atlas: theta_t ~ U[0.5, 0.99].
TensorMap gen_omega(const CaseKnobs& k, Precision p, OmegaMode mode) {
  CaseRng rng(k.seed);
  const std::int64_t B = k.B, H = k.H, T = k.T, dk = k.dk, dv = k.dv;
  static const int cs[] = {1, 2, 3, 8};
  static const int chunks[] = {1, 2, 3, 4, 16, 64};
  const int c = cs[rng.bits() % 4];
  const int chunk = chunks[rng.bits() % 6];
  int degree = 0;
  const std::uint64_t dsel = rng.bits() % 3;
  if (dk <= 3) degree = static_cast<int>(dsel);            // D <= 10
  else if (dk <= 8) degree = dsel == 2 ? 2 : 0;             // D <= 45
  if (is_atlas(mode) && dk > 4) degree = 0;                 // NS of d_v x D per token in the oracle
  const std::size_t D = feature_dim(static_cast<std::size_t>(dk), degree);
  std::vector<double> q, kk, v, la, eta, gam, lt, s0, m0;
  for (int bh = 0; bh < k.B * k.H; ++bh) {
    auto qi = rng.rows(k.keys, k.T, k.dk, k.scale_exp);
    auto ki = rng.rows(k.keys, k.T, k.dk, k.scale_exp);
    auto vi = rng.rows(KeyKind::gaussian, k.T, k.dv, 0);
    for (double& x : ki) x = round_value(x, p);
    double fmax = 0;
    for (int t = 0; t < k.T; ++t) fmax = std::max(fmax, feature_norm2(ki.data() + static_cast<std::size_t>(t) * k.dk, k.dk, degree));
    const double den = std::max(1.0, c * fmax);
    auto gi = rng.log_gates(k.gates, k.T);
    for (int t = 0; t < k.T; ++t) eta.push_back((0.01 + 0.49 * rng.uniform()) / den);
    for (int t = 0; t < k.T * c; ++t) gam.push_back(rng.uniform());
    if (is_atlas(mode))
      for (int t = 0; t < k.T; ++t) lt.push_back(std::log(0.5 + 0.49 * rng.uniform()));
    q.insert(q.end(), qi.begin(), qi.end());
    kk.insert(kk.end(), ki.begin(), ki.end());
    v.insert(v.end(), vi.begin(), vi.end());
    la.insert(la.end(), gi.begin(), gi.end());
    if (k.initial_state) {
      // a state of the scale the memory reaches (values / features)
      const double sc = 1.0 / std::sqrt(std::max(1.0, fmax));
      for (std::size_t i = 0; i < static_cast<std::size_t>(dv) * D; ++i) s0.push_back(sc * rng.normal());
      if (is_atlas(mode))
        for (std::size_t i = 0; i < static_cast<std::size_t>(dv) * D; ++i) m0.push_back(sc * rng.normal());
    }
  }
  TensorMap m;
  m["q"] = tensor({B, H, T, dk}, q);
  m["k"] = tensor({B, H, T, dk}, kk);
  m["v"] = tensor({B, H, T, dv}, v);
  m["log_alpha"] = tensor({B, H, T}, la);
  m["eta"] = tensor({B, H, T}, eta);
  m["gamma"] = tensor({B, H, T, c}, gam);
  m["degree"] = tensor({1}, {static_cast<double>(degree)});
  if (has_chunk(mode)) m["chunk"] = tensor({1}, {static_cast<double>(chunk)});
  if (is_atlas(mode)) m["log_theta"] = tensor({B, H, T}, lt);
  if (k.initial_state) {
    m["s0"] = tensor({B, H, dv, static_cast<std::int64_t>(D)}, s0);
    if (is_atlas(mode)) m["m0"] = tensor({B, H, dv, static_cast<std::int64_t>(D)}, m0);
  }
  round_to(m, p);
  // the integer scalars are exact in every format up to 256; the rounding above keeps them
  return m;
}

// m: the longest inner product (a feature row, D) plus the window and chunk sums
double omega_length(const TensorMap& in) {
  const Tensor& q = in.at("q");
  const double D = static_cast<double>(feature_dim(static_cast<std::size_t>(q.shape[3]), degree_of(in)));
  const double c = static_cast<double>(in.at("gamma").shape[3]);
  const double b = in.count("chunk") ? std::min<double>(in.at("chunk").data[0], static_cast<double>(q.shape[2])) : 1.0;
  return D + c + b;
}

// ---- Newton–Schulz: x [B,H,m,n], o [B,H,m,n] ----
void validate_ns(const TensorMap& in, const std::string& op) {
  auto it = in.find("x");
  if (it == in.end()) throw std::invalid_argument(op + ": missing input 'x' [B,H,m,n]");
  const Tensor& x = it->second;
  if (x.shape.size() != 4 || x.shape[0] < 1 || x.shape[1] < 1 || x.shape[2] < 1 || x.shape[3] < 1)
    throw std::invalid_argument(op + ": input 'x' must have shape [B,H,m,n] with every dimension >= 1");
  require_finite(x, op, "x");
  for (auto& [name, t] : in)
    if (name != "x") throw std::invalid_argument(op + ": unknown input '" + name + "'");
}

template <class S, class Out> std::map<std::string, Out> eval_ns(const TensorMap& in) {
  const Tensor& x = in.at("x");
  const std::int64_t B = x.shape[0], H = x.shape[1], m = x.shape[2], n = x.shape[3];
  std::map<std::string, Out> out;
  out["o"] = make_out<Out>({B, H, m, n});
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t h = 0; h < H; ++h) {
      const Matrix<S> G = slice<S>(x, b, h, static_cast<std::size_t>(m), static_cast<std::size_t>(n));
      put(out["o"], b, h, ref::newton_schulz5(G).a);
    }
  return out;
}

// Newton–Schulz-5 of the r x c (r <= c, row-major) matrix X in place, in double with Monte-Carlo arithmetic: every
// partial sum of an accumulation (the squared Frobenius norm, the inner products of A = X X^T, A^2 and B X)
// multiplied by fa() = 1 + delta_a xi and every stored iterate X by fs() = 1 + delta_s xi. The budget's rounding
// model of the Newton–Schulz and Atlas kernels (OpSpec::perturbed): input perturbations alone miss the dominant
// term, since a relative error e of the computed norm rescales every singular value of X_0 by (1 + e) and p^5
// amplifies that by up to s (p^5)'(s) / p^5(s) (~3.4^5 near s = 0), while a perturbation of the entries moves the
// norm only by ~u / sqrt(r c) (their signs cancel).
void ns_monte_carlo(std::vector<double>& X, std::int64_t r, std::int64_t c, PerturbFactors& fa, PerturbFactors& fs) {
  const auto co = ref::muon_ns_coefficients<double>();
  std::vector<double> A(static_cast<std::size_t>(r * r)), B(A.size()), Y(X.size());
  double s2 = 0;
  for (double e : X) s2 = (s2 + e * e) * fa();
  const double nrm = std::sqrt(s2) * fa() + co.eps;
  for (double& e : X) e = e / nrm * fs();
  for (int k = 0; k < 5; ++k) {
    for (std::int64_t i = 0; i < r; ++i)
      for (std::int64_t j = 0; j < r; ++j) {
        double acc = 0;
        for (std::int64_t l = 0; l < c; ++l) acc = (acc + X[i * c + l] * X[j * c + l]) * fa();
        A[i * r + j] = acc;
      }
    for (std::int64_t i = 0; i < r; ++i)
      for (std::int64_t j = 0; j < r; ++j) {
        double acc = 0;
        for (std::int64_t l = 0; l < r; ++l) acc = (acc + A[i * r + l] * A[l * r + j]) * fa();
        B[i * r + j] = (co.b * A[i * r + j] + co.c * acc) * fa();
      }
    for (std::int64_t i = 0; i < r; ++i)
      for (std::int64_t j = 0; j < c; ++j) {
        double acc = 0;
        for (std::int64_t l = 0; l < r; ++l) acc = (acc + B[i * r + l] * X[l * c + j]) * fa();
        Y[i * c + j] = (co.a * X[i * c + j] + acc) * fs();
      }
    X.swap(Y);
  }
}

// NS5 of an m x n row-major matrix g into o (the transpose rule of the algorithm), with Monte-Carlo arithmetic
void ns5_monte_carlo(const double* g, double* o, std::int64_t m, std::int64_t n, PerturbFactors& fa, PerturbFactors& fs) {
  const bool tall = m > n;
  const std::int64_t r = tall ? n : m, c = tall ? m : n;
  std::vector<double> X(static_cast<std::size_t>(r * c));
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < c; ++j) X[i * c + j] = tall ? g[j * n + i] : g[i * n + j];
  ns_monte_carlo(X, r, c, fa, fs);
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < c; ++j) (tall ? o[j * n + i] : o[i * n + j]) = X[i * c + j];
}

// Relative condition number of X -> NS5(X) at the m x n matrix g (row-major), in double: NS5 is the primary
// function f = p^5 of the normalised singular values s_i = sigma_i / (||g||_F + eps), so its Frechet derivative
// acts through f'(s_i) on the singular values and through the divided differences (f(s_i) -+ f(s_j)) / (s_i -+ s_j)
// on the rotations of the singular vectors (Higham, Functions of Matrices, §3.1 and Thm. 3.11 for this kind of
// map); relative to ||X|| / ||f(X)|| the largest of these is the condition. The normalisation removes the
// direction that scales all s_i together; it is kept in the estimate (an upper bound). n: min(m, n).
double ns5_condition(const double* g, std::int64_t m, std::int64_t n) {
  const auto co = ref::muon_ns_coefficients<double>();
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> G(g, m, n);
  const double nrm = G.norm() + co.eps;
  const Eigen::VectorXd sv = Eigen::JacobiSVD<Eigen::MatrixXd>(G).singularValues() / nrm;
  const auto f = [&](double x) { return ref::ns_scalar_map(x, 5, co); };
  const auto df = [&](double x) {  // derivative of p^5 by the chain rule along the orbit
    double d = 1, y = x;
    for (int k = 0; k < 5; ++k) {
      d *= co.a + 3 * co.b * y * y + 5 * co.c * y * y * y * y;
      y = co.a * y + co.b * y * y * y + co.c * y * y * y * y * y;
    }
    return d;
  };
  double fmax = 0;
  for (Eigen::Index i = 0; i < sv.size(); ++i) fmax = std::max(fmax, std::fabs(f(sv(i))));
  if (!(fmax > 0)) return 1.0;
  const double smax = sv.size() ? sv(0) : 0.0;
  double k = 0;
  for (Eigen::Index i = 0; i < sv.size(); ++i) {
    k = std::max(k, std::fabs(df(sv(i))));
    for (Eigen::Index j = 0; j < i; ++j) {
      const double dm = sv(j) - sv(i), dp = sv(j) + sv(i);
      if (dm > 1e-12 * smax) k = std::max(k, std::fabs(f(sv(j)) - f(sv(i))) / dm);
      if (dp > 0) k = std::max(k, std::fabs(f(sv(j)) + f(sv(i))) / dp);
    }
    // a zero-padded side (m != n): the rotations into the null space act through f(s_i) / s_i
    if (sv(i) > 0 && m != n) k = std::max(k, std::fabs(f(sv(i))) / sv(i));
  }
  return std::max(1.0, k * smax / fmax);
}

TensorMap ns_perturbed(const TensorMap& in, double ds, double da, std::uint64_t seed) {
  const Tensor& x = in.at("x");
  const std::int64_t B = x.shape[0], H = x.shape[1], m = x.shape[2], n = x.shape[3];
  PerturbFactors fa(da, seed), fs(ds, seed ^ 0x5bd1e995ULL);
  TensorMap out;
  out["o"] = Tensor{{B, H, m, n}, std::vector<double>(x.data.size())};
  for (std::int64_t bh = 0; bh < B * H; ++bh) ns5_monte_carlo(x.data.data() + bh * m * n, out["o"].data.data() + bh * m * n, m, n, fa, fs);
  return out;
}

// The same rounding model for the Omega and Atlas kernels: the frozen-gradient chunk recurrence (chunk 1 for
// omega_rule) in double with Monte-Carlo arithmetic (residuals, window gradients, read-outs accumulated with fa;
// Atlas's stored states, momenta and the residuals multiplied by fs, the Omega state by fs where a kernel stores it;
// Atlas: NS5 as above). The state's own rounding at every
// token accumulates along the recurrence (near-one decays keep it), which perturbing the inputs does not show:
// omega_rule in f64 at T = 48, dv = 33 went 13.7 u against an inputs-only budget of 11.7 u.
TensorMap omega_perturbed(const TensorMap& in0, double ds, double da, std::uint64_t seed, const std::string& op, OmegaMode mode,
                          double* ns_cond = nullptr) {
  TensorMap in = in0;
  const Dims d = dims_of(in, op);
  const int degree = degree_of(in);
  const std::int64_t D = static_cast<std::int64_t>(feature_dim(static_cast<std::size_t>(d.dk), degree));
  const std::int64_t c = in.at("gamma").shape[3], T = d.T, dv = d.dv;
  const std::int64_t b = in.count("chunk") ? std::lround(in.at("chunk").data[0]) : 1;
  const double g = 2.0;
  PerturbFactors fa(da, seed), fs(ds, seed ^ 0x5bd1e995ULL);
  // the chunked Omega kernel's decays are exps of chunk-local log-gate sums, whose rounding accumulates (for constant
  // gates systematically): perturbed as the delta rule's model does (omega_chunk in f64 with constant gates went
  // 79.6 u against 65 u without it)
  if (!is_atlas(mode) && in.count("chunk")) perturb_log_gate_cumsums(in.at("log_alpha"), b, fa);
  TensorMap out;
  out["o"] = Tensor{{d.B, d.H, T, dv}, std::vector<double>(static_cast<std::size_t>(d.B * d.H * T * dv))};
  out["s_final"] = Tensor{{d.B, d.H, dv, D}, std::vector<double>(static_cast<std::size_t>(d.B * d.H * dv * D))};
  if (is_atlas(mode)) out["m_final"] = out["s_final"];
  for (std::int64_t bb = 0; bb < d.B; ++bb)
    for (std::int64_t h = 0; h < d.H; ++h) {
      const std::int64_t bh = bb * d.H + h;
      auto [Q, K, V] = slice_qkv<double>(in, op, d, bb, h);
      const Matrix<double> PK = features_of(K, degree), PQ = features_of(Q, degree);
      const double* la = in.at("log_alpha").data.data() + bh * T;
      const double* lt = is_atlas(mode) ? in.at("log_theta").data.data() + bh * T : nullptr;
      const double* eta = in.at("eta").data.data() + bh * T;
      const double* gam = in.at("gamma").data.data() + bh * T * c;
      std::vector<double> W(static_cast<std::size_t>(dv * D), 0.0), S(W.size(), 0.0), N(W.size()), E, U(W.size());
      if (in.count("s0")) std::copy_n(in.at("s0").data.data() + bh * dv * D, dv * D, W.begin());
      if (in.count("m0")) std::copy_n(in.at("m0").data.data() + bh * dv * D, dv * D, S.begin());
      for (std::int64_t s0 = 0; s0 < T; s0 += b) {
        const std::int64_t e = std::min(T, s0 + b) - 1, i0 = std::max<std::int64_t>(0, s0 - c + 1);
        E.assign(static_cast<std::size_t>((e - i0 + 1) * dv), 0.0);
        for (std::int64_t i = i0; i <= e; ++i)
          for (std::int64_t j = 0; j < dv; ++j) {
            double acc = 0;
            for (std::int64_t l = 0; l < D; ++l) acc = (acc + W[j * D + l] * PK(i, l)) * fa();
            E[(i - i0) * dv + j] = (acc - V(i, j)) * fs();
          }
        for (std::int64_t n = s0; n <= e; ++n) {
          const std::int64_t lo = std::max<std::int64_t>(0, n - c + 1);
          for (std::int64_t j = 0; j < dv; ++j)
            for (std::int64_t l = 0; l < D; ++l) {
              double acc = 0;
              for (std::int64_t i = lo; i <= n; ++i) acc = (acc + gam[n * c + (n - i)] * E[(i - i0) * dv + j] * PK(i, l)) * fa();
              U[j * D + l] = acc;
            }
          const double alpha = std::exp(la[n]);
          if (!is_atlas(mode)) {  // the Omega rule: M_n = alpha_n M_{n-1} - eta_n sum_i gamma_i grad l_i (frozen at the chunk start)
            // the state is accumulated (u_a) token by token and stored (u_s) where a kernel hands it on: at the chunk
            // boundaries (every 64 tokens for the token-sequential rule, as the delta rule's model)
            const bool stored = n > 0 && n % (in.count("chunk") ? b : 64) == 0;
            for (std::size_t x = 0; x < W.size(); ++x) W[x] = (alpha * W[x] * (stored ? fs() : 1.0) - g * eta[n] * U[x]) * fa();
          } else {
          const double theta = std::exp(lt[n]);
          for (std::size_t x = 0; x < S.size(); ++x)
            S[x] = (mode == OmegaMode::atlas_eq32 ? theta * S[x] + g * U[x] : theta * S[x] - g * eta[n] * U[x]) * fs();
          if (ns_cond) *ns_cond = std::max(*ns_cond, ns5_condition(S.data(), dv, D));
          ns5_monte_carlo(S.data(), N.data(), dv, D, fa, fs);
          for (std::size_t x = 0; x < W.size(); ++x)
            W[x] = (mode == OmegaMode::atlas_eq32 ? alpha * W[x] - eta[n] * N[x] : alpha * W[x] + N[x]) * fs();
          }
          for (std::int64_t j = 0; j < dv; ++j) {
            double acc = 0;
            for (std::int64_t l = 0; l < D; ++l) acc = (acc + W[j * D + l] * PQ(n, l)) * fa();
            out["o"].data[static_cast<std::size_t>((bh * T + n) * dv + j)] = acc;
          }
        }
      }
      std::copy(W.begin(), W.end(), out["s_final"].data.begin() + bh * dv * D);
      if (is_atlas(mode)) std::copy(S.begin(), S.end(), out["m_final"].data.begin() + bh * dv * D);
    }
  return out;
}

// OpSpec::judged_domain of the Atlas ops: the recurrence feeds NS5 (scale-free: every step moves M by a unit-norm
// direction, D4 has no outer rate) with the residuals of its own output, and on some inputs (large keys,
// saturating decays) it is chaotic: a relative perturbation delta of the inputs moves the outputs by kappa delta
// with kappa far beyond 1/u. Measured in double (two draws of relative perturbations 1e-9 of q, k, v, s0, m0, the
// largest change of any output relative to that output's largest entry); where kappa u_a > 1e-2 no kernel of that
// accumulation precision returns a meaningful answer, and the case is reported as not judged.
std::string atlas_judged_domain(const TensorMap& in, Precision p, const std::string& op, OmegaMode mode) {
  const double delta = 1e-9;
  const TensorMap y0 = omega_perturbed(in, 0.0, 0.0, 1, op, mode);
  double kappa = 0;
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  for (int draw = 0; draw < 2; ++draw) {
    TensorMap x = in;
    for (const char* name : {"q", "k", "v", "s0", "m0"}) {
      auto it = x.find(name);
      if (it == x.end()) continue;
      for (double& e : it->second.data) e *= (splitmix64(state) & 1u) ? 1.0 + delta : 1.0 - delta;
    }
    const TensorMap y1 = omega_perturbed(x, 0.0, 0.0, 1, op, mode);
    for (const auto& [name, t] : y0) {
      double scale = 0, diff = 0;
      for (std::size_t i = 0; i < t.data.size(); ++i) {
        scale = std::max(scale, std::fabs(t.data[i]));
        diff = std::max(diff, std::fabs(y1.at(name).data[i] - t.data[i]));
      }
      if (scale > 0) kappa = std::max(kappa, diff / scale / delta);
      if (!std::isfinite(diff)) kappa = INFINITY;
    }
  }
  const double ua = unit_roundoff(accumulation(p));
  if (!(kappa * ua <= 1e-2)) {
    std::ostringstream s;
    s << op << ": the recurrence amplifies relative input perturbations by " << kappa << " (measured in double), beyond 1e-2 / u of "
      << precision_name(accumulation(p)) << ": chaotic on these inputs, no kernel in that precision is meaningful";
    return s.str();
  }
  return {};
}

// rows of the key kind (Gaussian, near-zero, near-parallel: nearly rank one, correlated, unit rows, integer)
// scaled by 10^scale_exp: m = T rows, n = dk columns
TensorMap gen_ns(const CaseKnobs& k, Precision p) {
  CaseRng rng(k.seed);
  std::vector<double> x;
  for (int bh = 0; bh < k.B * k.H; ++bh) {
    auto r = rng.rows(k.keys, k.T, k.dk, k.scale_exp);
    x.insert(x.end(), r.begin(), r.end());
  }
  TensorMap m;
  m["x"] = tensor({k.B, k.H, k.T, k.dk}, x);
  round_to(m, p);
  return m;
}

}  // namespace

void add_omega_ops(std::vector<OpSpec>& v) {
  const auto common_inputs = [](bool chunk, bool atlas) {
    std::vector<TensorDecl> d = op_support::qkv_inputs(
        {{"log_alpha", "B,H,T", false, "log of the decay alpha_t in [0,1]; -inf for a zero gate (a reset)"},
         {"eta", "B,H,T", false, "learning rates eta_t >= 0"},
         {"gamma", "B,H,T,c", false, "window gates: gamma[t, j] = gamma_{t-j}^(t), j = 0..c-1 (j = 0: token t itself)"},
         {"degree", "1", true, "feature map: 0 (default) phi = id; p = 1..3 monomials of degree <= p, graded lex (A002-POLY-MAP-MONO)"}},
        /*with_s0=*/false);
    if (chunk) d.push_back({"chunk", "1", false, "chunk size b >= 1: gradients within a chunk are taken at the state after the previous chunk"});
    if (atlas) d.push_back({"log_theta", "B,H,T", false, "log of the momentum decay theta_t in [0,1]; -inf for a zero gate"});
    d.push_back({"s0", "B,H,dv,D", true, "initial memory M_0 (D = dk, or C(dk + degree, degree))"});
    if (atlas) d.push_back({"m0", "B,H,dv,D", true, "initial momentum S_0"});
    return d;
  };
  const std::vector<TensorDecl> outs = {{"o", "B,H,T,dv", false, "y_t = M_t phi(q_t) (after the step-t write)"},
                                        {"s_final", "B,H,dv,D", false, "final memory M_T"}};
  struct Def {
    const char* name;
    OmegaMode mode;
    const char* summary;
    std::vector<std::string> ids;
  };
  const Def defs[] = {
      {"omega_rule", OmegaMode::rule,
       "M_t = alpha_t M_{t-1} - eta_t sum_{i in W_t} gamma_i^(t) grad ||M phi(k_i) - v_i||^2 at M_{t-1}, y_t = M_t phi(q_t) (token-sequential)",
       {"A002-OMEGA-RULE", "A002-OMEGA-PARALLEL-B1", "A002-OMEGANET-LINEAR"}},
      {"omega_chunk", OmegaMode::chunk,
       "the Omega rule with every gradient of a chunk taken at the state after the previous chunk (Eq. 16; chunk = 1 is omega_rule)",
       {"A002-OMEGA-CHUNK", "A002-OMEGA-CHUNK-LINEAR"}},
      {"atlas_eq32", OmegaMode::atlas_eq32,
       "S_t = theta_t S_{t-1} + sum_i gamma_i^(t) grad l_i, M_t = alpha_t M_{t-1} - eta_t NS5(S_t) (Eqs. 32-33), gradients frozen per chunk",
       {"A002-ATLAS-EQ32", "A002-ATLAS-PARALLEL"}},
      {"atlas_d4", OmegaMode::atlas_d4,
       "S_t = theta_t S_{t-1} - sum_i eta_t gamma_i^(t) grad l_i, M_t = alpha_t M_{t-1} + NS5(S_t) (Eqs. 57-58), gradients frozen per chunk",
       {"A002-ATLAS-D4", "A002-ATLAS-PARALLEL"}},
  };
  for (const Def& df : defs) {
    OpSpec op;
    op.name = df.name;
    op.summary = df.summary;
    op.spec_ids = df.ids;
    op.inputs = common_inputs(has_chunk(df.mode), is_atlas(df.mode));
    op.outputs = outs;
    if (is_atlas(df.mode)) op.outputs.push_back({"m_final", "B,H,dv,D", false, "final momentum S_T"});
    op.gated = true;
    const std::string name = df.name;
    const OmegaMode mode = df.mode;
    op.validate = [name, mode](const TensorMap& in) { validate_omega(in, name, mode); };
    op.oracle = [name, mode](const TensorMap& in) { return eval_omega<mp_t, MpTensor>(in, name, mode); };
    op.baseline = [name, mode](const TensorMap& in, Precision p) {
      return at_precision(p, [&](auto s) { return eval_omega<decltype(s), Tensor>(in, name, mode); });
    };
    op.generate = [mode](const CaseKnobs& k, Precision p) { return gen_omega(k, p, mode); };
    op.accumulation_length = omega_length;
    op.fixed_inputs = {"degree", "chunk"};
    if (!is_atlas(df.mode))
      op.perturbed = [name, mode](const TensorMap& in, double ds, double da, std::uint64_t seed) {
        return omega_perturbed(in, ds, da, seed, name, mode);
      };
    // Atlas's oracle runs Newton–Schulz on a d_v x D momentum per token in MP: judged at T <= 32 (the spec's own
    // check length, A002-ATLAS-PARALLEL: L = 32) with the discrimination suite's widths (d = 32 fast, 64-128 slow)
    if (is_atlas(df.mode)) {
      op.discrimination_max_T = 32;
      op.perturbed = [name, mode](const TensorMap& in, double ds, double da, std::uint64_t seed) {
        return omega_perturbed(in, ds, da, seed, name, mode);
      };
      op.judged_domain = [name, mode](const TensorMap& in, Precision p) { return atlas_judged_domain(in, p, name, mode); };
      op.generated_max_T = 16;
      op.generated_max_d = 5;
      // the conditioning of the recurrence's nonlinear step: the largest NS5 condition over the momenta of the
      // double-precision run (order min(d_v, D)); the budget's sensitivity measures the whole recurrence's
      op.condition = [name, mode](const TensorMap& in) {
        double k = 1;
        (void)omega_perturbed(in, 0.0, 0.0, 1, name, mode, &k);
        const std::int64_t dv = in.at("v").shape[3];
        const double D = static_cast<double>(feature_dim(static_cast<std::size_t>(in.at("q").shape[3]), degree_of(in)));
        return std::pair<double, double>{k, std::min<double>(static_cast<double>(dv), D)};
      };
    }
    add_op(v, std::move(op));
  }
  {
    OpSpec op;
    op.name = "newton_schulz5";
    op.summary = "X = x / (||x||_F + 1e-7) (transposed when m > n), 5 x: X <- a X + (b A + c A^2) X, A = X X^T; Muon's (a,b,c) [external]";
    op.spec_ids = {"A002-NEWTON-SCHULZ", "A002-ATLAS-NS-BATCH"};
    op.inputs = {{"x", "B,H,m,n", false, "the matrices to orthogonalise (B*H of them)"}};
    op.outputs = {{"o", "B,H,m,n", false, "NS5(x)"}};
    op.validate = [](const TensorMap& in) { validate_ns(in, "newton_schulz5"); };
    op.oracle = [](const TensorMap& in) { return eval_ns<mp_t, MpTensor>(in); };
    op.baseline = [](const TensorMap& in, Precision p) { return at_precision(p, [&](auto s) { return eval_ns<decltype(s), Tensor>(in); }); };
    op.generate = gen_ns;
    // the longest sum: an inner product of two rows (length max(m, n)) inside X X^T and B X
    op.accumulation_length = [](const TensorMap& in) {
      const Tensor& x = in.at("x");
      return static_cast<double>(std::max(x.shape[2], x.shape[3]));
    };
    op.perturbed = ns_perturbed;
    // NS5 is an ill-conditioned matrix function where the normalised spectrum is small or clustered: its condition
    // (ns5_condition, the largest over the B*H matrices) is reported, so a 16-bit case whose budget exceeds 5% of
    // the output is named as such (weak) rather than passed silently
    op.condition = [](const TensorMap& in) {
      const Tensor& x = in.at("x");
      const std::int64_t m = x.shape[2], n = x.shape[3];
      double k = 1;
      for (std::int64_t bh = 0; bh < x.shape[0] * x.shape[1]; ++bh) k = std::max(k, ns5_condition(x.data.data() + bh * m * n, m, n));
      return std::pair<double, double>{k, static_cast<double>(std::min(m, n))};
    };
    op.discrimination_max_T = 256;  // m <= 256 rows: O(5 (4 r^2 s + 2 r^3)) MP operations per matrix
    add_op(v, std::move(op));
  }
}

}  // namespace recall
