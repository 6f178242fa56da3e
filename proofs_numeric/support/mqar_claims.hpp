// Shared helpers of the A001 §6 claim files (short convolution and MQAR): proofs_numeric/
// a001_test_time_regression/short_conv_mqar.cpp, mqar_ls_variant.cpp, mqar_capacity.cpp and
// mqar_orthogonality.cpp. The MQAR instances (contexts drawn from std::mt19937_64 seeded by
// instance_seed(cfg, tag, 100000 P + T), embeddings one-hot / dense orthonormal / random unit), the fp64
// condition pre-pass and P-scaled digits of the LS memory, and the frame-potential projection of the fp64
// frames. Conventions (spec A001 C2, C5): responses r_j, E = [u_1..u_P, r_1..r_P] (d x 2P), 1-based cues in
// every description. Internal linkage (an unnamed namespace, no `inline`) like claim_support.hpp.
#pragma once

#include "recall/proofs/ledger.hpp"
#include "recall/reference/short_conv_mqar.hpp"
#include "claim_support.hpp"
#include "linear_attention_claims.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace recall::claim_support::mqar {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

using linattn::instance_seed;
using linattn::u64;
using ref::Matrix;
using ref::MqarContext;
using ref::Vector;

// ---------------------------------------------------------------------------------------------
// contexts and their descriptions
// ---------------------------------------------------------------------------------------------

// column j of E
template <class S> Vector<S> column(const Matrix<S>& E, std::size_t j) {
  Vector<S> c(E.rows);
  for (std::size_t i = 0; i < E.rows; ++i) c[i] = E(i, j);
  return c;
}
std::string pt_desc(std::size_t P, std::size_t T, std::size_t d) {
  return "P=" + std::to_string(P) + " T=" + std::to_string(T) + " d=" + std::to_string(d);
}
std::string ctx_desc(const MqarContext& c) {
  std::string s = "pairs(1-based cues)=[";
  const std::size_t show = std::min<std::size_t>(c.pairs.size(), 12);
  for (std::size_t m = 0; m < show; ++m) s += (m ? "," : "") + std::to_string(c.pairs[m] + 1);
  if (show < c.pairs.size()) s += ",...";
  return s + "] final cue u_" + std::to_string(c.query + 1);
}
// the context of instance (P, T) under a tag: seeds depend on (P, T) only, so the quick grid is a subset of
// the full grid with identical instances
u64 pt_seed(const CheckConfig& cfg, const char* tag, std::size_t P, std::size_t T) { return instance_seed(cfg, tag, 100000 * P + T); }
MqarContext draw_context(u64 seed, std::size_t P, std::size_t T) {
  std::mt19937_64 g(seed);
  return ref::mqar_draw(P, T, g);
}

// a (P, T) grid point
struct PT {
  std::size_t P, T;
};

// ---------------------------------------------------------------------------------------------
// embeddings
// ---------------------------------------------------------------------------------------------

// one-hot tokens e_1..e_{2P} in R^d (d >= 2P): orthonormal, exact in any scalar
template <class S> Matrix<S> onehot_embedding(std::size_t P, std::size_t d) {
  Matrix<S> E(d, 2 * P);
  for (std::size_t j = 0; j < 2 * P; ++j) E(j, j) = S(1);
  return E;
}
// Householder vectors (fp64 Gaussian, drawn once so that every precision sees the same instance)
std::vector<DM> householder_vectors(Gauss& g, std::size_t d, int count) {
  std::vector<DM> vs;
  for (int k = 0; k < count; ++k) vs.push_back(gauss_matrix(1, d, g));
  return vs;
}
// Q = H_1 H_2 ... H_k (H = I - 2 v v^T / v^T v) at the current mp digits: dense and orthogonal to the
// working precision (v converted exactly)
MM reflections(std::size_t d, const std::vector<DM>& vs) {
  MM Q(d, d);
  for (std::size_t i = 0; i < d; ++i) Q(i, i) = 1;
  for (const DM& vd : vs) {
    const MV v = to_mp(std::vector<double>(vd.a.begin(), vd.a.end()));
    mp_t vv(0);
    for (const mp_t& x : v) vv += x * x;
    for (std::size_t c = 0; c < d; ++c) {  // column c of H Q: q - 2 v (v^T q) / v^T v
      mp_t s(0);
      for (std::size_t i = 0; i < d; ++i) s += v[i] * Q(i, c);
      const mp_t f = mp_t(2) * s / vv;
      for (std::size_t i = 0; i < d; ++i) Q(i, c) -= f * v[i];
    }
  }
  return Q;
}
// dense orthonormal embedding: the first 2P columns of a product of three reflections (d >= 2P)
MM dense_orthonormal_embedding(std::size_t P, std::size_t d, const std::vector<DM>& vs) {
  const MM Q = reflections(d, vs);
  MM E(d, 2 * P);
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < 2 * P; ++j) E(i, j) = Q(i, j);
  return E;
}
// random unit embedding in fp64 (Gaussian columns scaled to unit norm)
DM random_unit_embedding(Gauss& g, std::size_t P, std::size_t d) {
  DM E = gauss_matrix(d, 2 * P, g);
  for (std::size_t j = 0; j < 2 * P; ++j) {
    double s = 0;
    for (std::size_t i = 0; i < d; ++i) s += E(i, j) * E(i, j);
    s = std::sqrt(s);
    for (std::size_t i = 0; i < d; ++i) E(i, j) /= s;
  }
  return E;
}

// ---------------------------------------------------------------------------------------------
// the LS memory of the construction's keys: fp64 condition pre-pass and P-scaled digits
// ---------------------------------------------------------------------------------------------

// fp64 pre-pass: cond(K) = sigma_max / sigma_min over the singular values above 1e-10 sigma_max (Eigen SVD)
double ls_cond_fp64(const DM& E, const MqarContext& c) {
  const DM X = ref::mqar_tokens(E, c);
  const DM K = ref::short_conv(X, ref::lookback_filter<double>(1, 2));
  Eigen::MatrixXd A(K.rows, K.cols);
  for (std::size_t i = 0; i < K.rows; ++i)
    for (std::size_t j = 0; j < K.cols; ++j) A(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = K(i, j);
  const Eigen::VectorXd s = Eigen::JacobiSVD<Eigen::MatrixXd>(A).singularValues();
  double mn = s(0);
  for (Eigen::Index i = 0; i < s.size(); ++i)
    if (s(i) > 1e-10 * s(0)) mn = s(i);
  return s(0) / mn;
}

// digits of an LS instance (P-scaled, spec A001 C7: the Gram squares the condition): d + 2 ceil(log10 cond(K)) + 2
unsigned ls_extra_digits(double cond) { return 2 * static_cast<unsigned>(std::max(0.0, std::ceil(std::log10(std::max(1.0, cond))))) + 2; }

// ---------------------------------------------------------------------------------------------
// fp64 frames (Eigen)
// ---------------------------------------------------------------------------------------------

Eigen::MatrixXd gauss_eigen(Gauss& g, Eigen::Index r, Eigen::Index c) {
  Eigen::MatrixXd m(r, c);
  for (Eigen::Index j = 0; j < c; ++j)
    for (Eigen::Index i = 0; i < r; ++i) m(i, j) = g.normal();
  return m;
}
void normalize_columns(Eigen::MatrixXd& E) {
  for (Eigen::Index j = 0; j < E.cols(); ++j) E.col(j) /= E.col(j).norm();
}
// Minimiser of the frame potential among unit-norm frames (N >= d: unit-norm tight frame, E E^T = (N/d) I;
// N <= d: orthonormal columns), by alternating projection: E <- sqrt(N/d) (E E^T)^{-1/2} E (resp. the
// Loewdin orthonormalisation E (E^T E)^{-1/2}), then unit columns.
void untf_project(Eigen::MatrixXd& E, int iters) {
  const Eigen::Index d = E.rows(), N = E.cols();
  for (int it = 0; it < iters; ++it) {
    // stop at the minimiser: E E^T = (N/d) I (N >= d) or E^T E = I (N < d), entrywise to 1e-14 relative
    if (N >= d) {
      const Eigen::MatrixXd F = E * E.transpose() - (static_cast<double>(N) / static_cast<double>(d)) * Eigen::MatrixXd::Identity(d, d);
      if (F.cwiseAbs().maxCoeff() <= 1e-14 * static_cast<double>(N) / static_cast<double>(d)) break;
    } else {
      const Eigen::MatrixXd F = E.transpose() * E - Eigen::MatrixXd::Identity(N, N);
      if (F.cwiseAbs().maxCoeff() <= 1e-14) break;
    }
    if (N >= d) {
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(E * E.transpose());
      const Eigen::VectorXd ev = es.eigenvalues().cwiseMax(1e-300).cwiseSqrt().cwiseInverse();
      E = std::sqrt(static_cast<double>(N) / static_cast<double>(d)) * es.eigenvectors() * ev.asDiagonal() * es.eigenvectors().transpose() * E;
    } else {
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(E.transpose() * E);
      const Eigen::VectorXd ev = es.eigenvalues().cwiseMax(1e-300).cwiseSqrt().cwiseInverse();
      E = E * es.eigenvectors() * ev.asDiagonal() * es.eigenvectors().transpose();
    }
    normalize_columns(E);
  }
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::mqar
