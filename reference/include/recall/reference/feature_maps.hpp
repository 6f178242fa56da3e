// Finite feature maps phi: R^d -> R^{D_phi} (A001-FEATURE-MAPS, A004-PHI-SET), applied row-wise.
// Random maps (PRF, RFF) carry their projection Omega (m x d, double) so keys and queries share it.
#pragma once

#include "recall/reference/matrix.hpp"

#include <boost/math/constants/constants.hpp>

#include <cmath>
#include <random>

namespace recall::ref {

enum class FeatureMapKind {
  identity,     // phi(x) = x
  elu1,         // 1 + ELU(x): x+1 if x>0 else e^x (Katharopoulos et al.)
  relu,         // max(x, 0)
  poly,         // x^{⊗p} (Kronecker power), kernel (x^T y)^p; p = 2 is A004 phi_poly2 = vec(x x^T)
  poly2_affine, // [1; sqrt2 x; x⊗x], kernel (1 + x^T y)^2 (A000-KERNEL-AM check)
  dpfp,         // Schlag et al. DPFP_nu: r = [relu(x); relu(-x)], phi_{(j-1)2d+i} = r_i r_{((i-1+j) mod 2d)+1}
  cosformer,    // [relu(x) cos(pi n / 2Nmax); relu(x) sin(pi n / 2Nmax)] (position-dependent)
  taylor2,      // [1; x / d^{1/4}; vec(x x^T)/(sqrt2 d^{1/2})] (Based)
  exp_trunc,    // [x^{⊗m}/sqrt(m!)]_{m=0..M}: kernel sum_{m<=M} (x^T y)^m / m! (Kronecker form of A000-EXP-FEATURE)
  prf,          // m^{-1/2} exp(Omega x - |x|^2/2) (Performer positive random features)
  rff,          // m^{-1/2} [sin(Omega x); cos(Omega x)] (RFA), kernel exp(-|x-y|^2/2)
};

struct FeatureMap {
  FeatureMapKind kind = FeatureMapKind::identity;
  int order = 2;       // p for poly, M for exp_trunc
  int nu = 1;          // DPFP
  double n_max = 1;    // cosFormer N_max >= T
  std::vector<double> omega;  // m x d row-major, random maps
  std::size_t m = 0;
  // wrappers (A004-PHI-SET w1/w2), applied after the map
  bool sum_normalize = false;
  bool l2_normalize = false;

  static FeatureMap random(FeatureMapKind k, std::size_t m, std::size_t d, std::uint64_t seed) {
    FeatureMap f;
    f.kind = k;
    f.m = m;
    f.omega.resize(m * d);
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> N(0.0, 1.0);
    for (double& w : f.omega) w = N(rng);
    return f;
  }
};

inline const char* feature_map_name(FeatureMapKind k) {
  switch (k) {
    case FeatureMapKind::identity: return "identity";
    case FeatureMapKind::elu1: return "elu1";
    case FeatureMapKind::relu: return "relu";
    case FeatureMapKind::poly: return "poly";
    case FeatureMapKind::poly2_affine: return "poly2_affine";
    case FeatureMapKind::dpfp: return "dpfp";
    case FeatureMapKind::cosformer: return "cosformer";
    case FeatureMapKind::taylor2: return "taylor2";
    case FeatureMapKind::exp_trunc: return "exp_trunc";
    case FeatureMapKind::prf: return "prf";
    case FeatureMapKind::rff: return "rff";
  }
  return "?";
}

inline std::size_t ipow(std::size_t b, int e) { std::size_t r = 1; while (e-- > 0) r *= b; return r; }

inline std::size_t feature_dim(const FeatureMap& f, std::size_t d) {
  switch (f.kind) {
    case FeatureMapKind::identity:
    case FeatureMapKind::elu1:
    case FeatureMapKind::relu: return d;
    case FeatureMapKind::poly: return ipow(d, f.order);
    case FeatureMapKind::poly2_affine: return 1 + d + d * d;
    case FeatureMapKind::dpfp: return 2 * d * static_cast<std::size_t>(f.nu);
    case FeatureMapKind::cosformer: return 2 * d;
    case FeatureMapKind::taylor2: return 1 + d + d * d;
    case FeatureMapKind::exp_trunc: { std::size_t s = 0; for (int m = 0; m <= f.order; ++m) s += ipow(d, m); return s; }
    case FeatureMapKind::prf: return f.m;
    case FeatureMapKind::rff: return 2 * f.m;
  }
  return 0;
}

namespace detail {
// out = x^{⊗p} (row-major Kronecker power), size d^p
template <class S> Vector<S> kron_power(const S* x, std::size_t d, int p) {
  Vector<S> cur(1, S(1));
  for (int k = 0; k < p; ++k) {
    Vector<S> nxt(cur.size() * d);
    for (std::size_t a = 0; a < cur.size(); ++a)
      for (std::size_t b = 0; b < d; ++b) mul_into(nxt[a * d + b], cur[a], x[b]);
    cur.swap(nxt);
  }
  return cur;
}
}  // namespace detail

// phi(x) for one row; pos is the 1-based token index (position-dependent maps only).
template <class S> Vector<S> apply_feature_map(const FeatureMap& f, const S* x, std::size_t d, std::size_t pos = 1) {
  using std::exp; using std::sqrt; using std::cos; using std::sin; using std::pow;
  using boost::multiprecision::exp; using boost::multiprecision::sqrt; using boost::multiprecision::cos;
  using boost::multiprecision::sin; using boost::multiprecision::pow;
  Vector<S> out;
  switch (f.kind) {
    case FeatureMapKind::identity: out.assign(x, x + d); break;
    case FeatureMapKind::elu1:
      out.resize(d);
      for (std::size_t i = 0; i < d; ++i) out[i] = x[i] > 0 ? S(x[i] + 1) : S(exp(x[i]));
      break;
    case FeatureMapKind::relu:
      out.resize(d);
      for (std::size_t i = 0; i < d; ++i) out[i] = x[i] > 0 ? x[i] : S(0);
      break;
    case FeatureMapKind::poly: out = detail::kron_power(x, d, f.order); break;
    case FeatureMapKind::poly2_affine: {
      out.reserve(1 + d + d * d);
      out.push_back(S(1));
      const S r2 = sqrt(S(2));
      for (std::size_t i = 0; i < d; ++i) out.push_back(r2 * x[i]);
      Vector<S> k2 = detail::kron_power(x, d, 2);
      out.insert(out.end(), k2.begin(), k2.end());
      break;
    }
    case FeatureMapKind::dpfp: {
      // shift convention: phi_{(j-1)2d+i} = r_i * r_{((i-1+j) mod 2d)+1}, i.e. r multiplied by r rolled left by j
      const std::size_t n2 = 2 * d;
      Vector<S> r(n2);
      for (std::size_t i = 0; i < d; ++i) { r[i] = x[i] > 0 ? x[i] : S(0); r[d + i] = x[i] < 0 ? S(-x[i]) : S(0); }
      out.resize(n2 * f.nu);
      for (int j = 1; j <= f.nu; ++j)
        for (std::size_t i = 0; i < n2; ++i) mul_into(out[(j - 1) * n2 + i], r[i], r[(i + j) % n2]);
      break;
    }
    case FeatureMapKind::cosformer: {
      const S ang = boost::math::constants::pi<S>() * S(static_cast<double>(pos)) / S(2.0 * f.n_max);  // pi at the working precision
      out.resize(2 * d);
      const S c = cos(ang), s = sin(ang);
      for (std::size_t i = 0; i < d; ++i) { S rl = x[i] > 0 ? x[i] : S(0); out[i] = rl * c; out[d + i] = rl * s; }
      break;
    }
    case FeatureMapKind::taylor2: {
      const S dd(static_cast<double>(d));
      const S s1 = pow(dd, S(0.25)), s2 = sqrt(S(2)) * sqrt(dd);
      out.push_back(S(1));
      for (std::size_t i = 0; i < d; ++i) out.push_back(x[i] / s1);
      Vector<S> k2 = detail::kron_power(x, d, 2);
      for (const S& v : k2) out.push_back(v / s2);
      break;
    }
    case FeatureMapKind::exp_trunc: {
      S fact(1);
      for (int m = 0; m <= f.order; ++m) {
        if (m > 0) fact *= S(m);
        const S w = S(1) / sqrt(fact);
        Vector<S> km = detail::kron_power(x, d, m);
        for (const S& v : km) out.push_back(v * w);
      }
      break;
    }
    case FeatureMapKind::prf:
    case FeatureMapKind::rff: {
      require(f.omega.size() == f.m * d, "apply_feature_map: random map's Omega is not m x d");
      S nx(0);
      for (std::size_t i = 0; i < d; ++i) muladd(nx, x[i], x[i]);
      const S scale = S(1) / sqrt(S(static_cast<double>(f.m)));
      Vector<S> proj(f.m, S(0));
      for (std::size_t r = 0; r < f.m; ++r)
        for (std::size_t i = 0; i < d; ++i) muladd(proj[r], S(f.omega[r * d + i]), x[i]);
      if (f.kind == FeatureMapKind::prf) {
        out.resize(f.m);
        for (std::size_t r = 0; r < f.m; ++r) out[r] = scale * exp(S(proj[r] - nx / 2));
      } else {
        out.resize(2 * f.m);
        for (std::size_t r = 0; r < f.m; ++r) { out[r] = scale * sin(proj[r]); out[f.m + r] = scale * cos(proj[r]); }
      }
      break;
    }
  }
  if (f.sum_normalize) {
    S s(0);
    for (const S& v : out) s += v;
    require(s != 0, "apply_feature_map: sum normalisation of a zero feature vector (undefined)");
    for (S& v : out) v /= s;
  }
  if (f.l2_normalize) {
    S s(0);
    for (const S& v : out) muladd(s, v, v);
    require(s != 0, "apply_feature_map: L2 normalisation of a zero feature vector (undefined)");
    const S n = sqrt(s);
    for (S& v : out) v /= n;
  }
  return out;
}

// Row-wise map of a T x d matrix; position-dependent maps get absolute 1-based token indices.
template <class S> Matrix<S> apply_feature_map(const FeatureMap& f, const Matrix<S>& X) {
  const std::size_t D = feature_dim(f, X.cols);
  Matrix<S> out(X.rows, D);
  for (std::size_t t = 0; t < X.rows; ++t) {
    Vector<S> r = apply_feature_map(f, X.row(t), X.cols, t + 1);
    require(r.size() == D, "apply_feature_map: feature dimension mismatch");
    for (std::size_t c = 0; c < D; ++c) out(t, c) = r[c];
  }
  return out;
}

}  // namespace recall::ref
