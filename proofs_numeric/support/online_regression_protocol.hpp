// The non-stationary online regression protocol of paper A001 §5 (Eq. 55, Fig. 2, footnote 4), spec item
// A001-EXP-ONLINE-REGRESSION, in fp64: the key stream, the layers (written here from their definitions, no
// learnable parameters) and their per-step losses ||v_{t+1} - m_t(k_{t+1})||^2; the paired bootstrap used by
// the claims A001-EXP-LA-WORST, -RLS-NO-ADAPT, -NONPARAM-ADAPT, -P1-BEATS-P0; the derived noise-free
// switch of A001-EXP-RLS-NO-ADAPT (iv); the experiment's configurations, the per-process cache of the per-seed
// runs, window means and banded mean curves. Used by proofs_numeric/a001_test_time_regression/
// online_regression_experiment.cpp, online_regression_claims.cpp and
// properties/tests/test_online_regression_protocol.cpp. Not a public header.
//
// Every choice the paper leaves open is a named parameter whose default is the spec's (bold in the item):
// Sigma equicorrelated rho = 0.5 (alternative LKJ(eta = 1)); k_1 from the stationary law of the first regime
// (alternatives 0, N(0, Sigma)); s_dot with tau = sqrt(D_k) (alternatives tau, s_exp with B = b median
// ||k_i - k_j||^2); p = 1 with PINV (alternative slope-only RIDGE); LS min-norm for t < D_k (alternative ridge
// RLS); linear attention with the output normalisations LN / RMS / L2 (all run). Index range (spec): keys
// k_1..k_{T+2}, values v_t = k_{t+1}/||k_{t+1}||, t = 1..T+1; at step t = 1..T the memory holds the pairs
// i <= t, the query is q_t = k_{t+1}, the target v_{t+1}; the naive baseline predicts v_{t+1} by v_t.
//
// Numerics (all backward stable, so the fp64 outputs are comparable with an SVD reference):
// - LS / weighted LS: while Gamma^{1/2} K_t (m x D_k, m = number of pairs) does not have full column rank, the
//   min-norm solution: for m <= D_k by a Householder QR of (Gamma^{1/2} K_t)^T when its R has estimated
//   condition <= 1e9 (full row rank, (A^+)^T q = R^{-1} Q^T q), otherwise by a complete orthogonal
//   decomposition (COD, declared rank threshold). From the first full-rank step on, a QR factorisation of
//   Gamma^{1/2} K_t kept up to date by Givens rotations (the square-root form of RLS: R <- sqrt(gamma) R,
//   then one row added), read out by y = B^T R^{-T} q. The ridge start (mu > 0) begins from R = sqrt(mu) I,
//   which is M_t = R_t (S_t + mu I)^{-1} at every t.
// - p = 1: weighted LS in 1 + D_k dimensions on the rows sqrt(w_i) [1, (k_i - q)^T], centred at q, output the
//   intercept. PINV = the minimum-norm solution (declared rank threshold): by a Householder QR of A (at least
//   1 + D_k rows) or of A^T (fewer rows) when the estimated condition of R is <= 1e9 (then A has full
//   numerical rank and the pseudo-inverse is the plain (one-sided) inverse), otherwise by a COD. RIDGE = the
//   QR of the rows augmented by sqrt(mu) [0, I]. The output is written as sum_i l_i v_i with the equivalent
//   kernel l_i = sqrt(w_i) (A^{+T} e_1)_i.
// - rows of W^{1/2} X whose norm is below 2^-60 of the largest are dropped (a perturbation far below the
//   backward error of the factorisations; it makes the sharp-similarity configurations cheap).
// - declared rank threshold: sigma (or, in the COD, |pivot|) > 10 max(m, n) eps times the largest
//   (= ref::default_rank_tol<double>).
#pragma once

#include "claim_support.hpp"
#include "recall/reference/linear_attention.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace recall::claim_support::online_regression {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

using u64 = std::uint64_t;
using Mat = Eigen::MatrixXd;
using Vec = Eigen::VectorXd;
using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// ---------------------------------------------------------------------------------------------
// parameters
// ---------------------------------------------------------------------------------------------
enum class SigmaKind { equicorrelated, lkj };
enum class K1Law { stationary, zero, sigma };

// Eq. (55) and the data choices of the spec item (defaults = the spec's).
struct StreamParams {
  int dk = 64;                    // D_k = D_v
  int T = 256;                    // evaluated steps t = 1..T
  double a_fast = 0.9;            // Eq. (55), t < T/4
  double a_slow = 0.999;          // Eq. (55), t >= T/4
  double noise = 0.02;            // Eq. (55)
  SigmaKind sigma = SigmaKind::equicorrelated;
  double rho = 0.5;               // equicorrelation of Sigma
  double lkj_eta = 1.0;           // LKJ(eta) alternative (C-vine)
  K1Law k1 = K1Law::stationary;   // N(0, noise^2/(1 - a_fast^2) Sigma)
  int switch_at() const { return T / 4; }
  std::string key() const {
    std::string s = "dk=" + std::to_string(dk) + ",T=" + std::to_string(T) + ",a=" + fmt(a_fast, 17) + "/" + fmt(a_slow, 17) +
                    ",noise=" + fmt(noise, 17);
    s += sigma == SigmaKind::lkj ? ",Sigma=LKJ(" + fmt(lkj_eta, 17) + ")" : ",rho=" + fmt(rho, 17);
    s += k1 == K1Law::stationary ? ",k1=stationary" : k1 == K1Law::zero ? ",k1=0" : ",k1=N(0,Sigma)";
    return s;
  }
};

enum class SimKind { dot, gauss };
// s_dot,tau(k, q) = exp(k^T q / tau) (tau <= 0: sqrt(D_k), Eq. 1 as printed); s_exp,B(k, q) = exp(-||k - q||^2 / B)
// with B = b * median_{i != j} ||k_i - k_j||^2 over k_1..k_{T+1} (one B per sequence).
struct Similarity {
  SimKind kind = SimKind::dot;
  double tau = 0;
  double b = 1;
  std::string key() const { return kind == SimKind::dot ? "s_dot(tau=" + (tau > 0 ? fmt(tau, 17) : std::string("sqrt(D_k)")) + ")" : "s_exp(b=" + fmt(b, 17) + ")"; }
};

enum class LayerKind { naive, linear_attention, least_squares, weighted_ls, oracle_ls, softmax, local_linear };
enum class Singular { pinv, ridge };

struct LayerSpec {
  LayerKind kind = LayerKind::naive;
  ref::OutputNorm norm = ref::OutputNorm::layer_norm;  // linear attention
  double norm_eps = 1e-5;                               // A001-LA-OUTNORM-* declared epsilon
  double ridge_mu = 0;                                  // least squares: 0 = min-norm (Eq. 11), > 0 = ridge RLS P_0 = I/mu
  double gamma = 1;                                     // weighted LS (A001-WRLS), constant gate
  Similarity sim;                                       // softmax, p = 1
  Singular singular = Singular::pinv;                   // p = 1
  double ridge_rel = 1e-8;                              // p = 1 RIDGE: mu = ridge_rel tr(sum_i w_i d_i d_i^T) / D_k
  std::string key() const {
    switch (kind) {
      case LayerKind::naive: return "naive";
      case LayerKind::linear_attention: return std::string("LA-") + (norm == ref::OutputNorm::layer_norm ? "LN" : norm == ref::OutputNorm::rms_norm ? "RMS" : "L2") + "(eps=" + fmt(norm_eps, 17) + ")";
      case LayerKind::least_squares: return ridge_mu > 0 ? "RLS-ridge(mu=" + fmt(ridge_mu, 17) + ")" : "RLS";
      case LayerKind::weighted_ls: return "WRLS(gamma=" + fmt(gamma, 17) + ")";
      case LayerKind::oracle_ls: return "oracle-LS";
      case LayerKind::softmax: return "softmax[" + sim.key() + "]";
      case LayerKind::local_linear:
        return "p=1[" + sim.key() + (singular == Singular::pinv ? ",PINV]" : ",RIDGE(mu_rel=" + fmt(ridge_rel, 17) + ")]");
    }
    return "?";
  }
};

LayerSpec la_layer(ref::OutputNorm n) {
  LayerSpec s;
  s.kind = LayerKind::linear_attention;
  s.norm = n;
  return s;
}
LayerSpec ls_layer(double mu = 0) {
  LayerSpec s;
  s.kind = LayerKind::least_squares;
  s.ridge_mu = mu;
  return s;
}
LayerSpec wls_layer(double gamma) {
  LayerSpec s;
  s.kind = LayerKind::weighted_ls;
  s.gamma = gamma;
  return s;
}
LayerSpec oracle_layer() {
  LayerSpec s;
  s.kind = LayerKind::oracle_ls;
  return s;
}
LayerSpec naive_layer() { return LayerSpec{}; }
LayerSpec softmax_layer(const Similarity& sim) {
  LayerSpec s;
  s.kind = LayerKind::softmax;
  s.sim = sim;
  return s;
}
LayerSpec p1_layer(const Similarity& sim, Singular sg = Singular::pinv, double ridge_rel = 1e-8) {
  LayerSpec s;
  s.kind = LayerKind::local_linear;
  s.sim = sim;
  s.singular = sg;
  s.ridge_rel = ridge_rel;
  return s;
}

// ---------------------------------------------------------------------------------------------
// the stream (Eq. 55)
// ---------------------------------------------------------------------------------------------
struct Stream {
  RowMat K;  // (T+2) x D_k, row i-1 = k_i
  RowMat V;  // (T+1) x D_k, row t-1 = v_t = k_{t+1}/||k_{t+1}||
  Mat Sigma;
};

// chi^2 with n degrees of freedom from n Box-Muller normals
double chi2(Gauss& g, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    const double z = g.normal();
    s += z * z;
  }
  return s;
}
// LKJ(eta) correlation matrix by the C-vine method (Lewandowski, Kurowicka & Joe 2009): partial correlations
// 2 Beta(b, b) - 1 with b = eta + (d - 1 - k)/2 at level k (1-based), Beta(b, b) = X/(X + Y), X, Y ~ chi^2(2b)/2
// (2b is an integer whenever 2 eta is one, which is required here so that only normals are drawn).
Mat lkj_correlation(int d, double eta, Gauss& g) {
  const double two_eta = 2 * eta;
  if (std::fabs(two_eta - std::round(two_eta)) > 1e-12 || eta <= 0)
    throw std::invalid_argument("lkj_correlation: 2 eta must be a positive integer, got eta = " + fmt(eta));
  Mat P = Mat::Zero(d, d), S = Mat::Identity(d, d);
  double beta = eta + (d - 1) / 2.0;
  for (int k = 0; k < d - 1; ++k) {
    beta -= 0.5;
    const int n = static_cast<int>(std::lround(2 * beta));
    for (int i = k + 1; i < d; ++i) {
      const double x = chi2(g, n), y = chi2(g, n);
      P(k, i) = 2 * (x / (x + y)) - 1;
      double p = P(k, i);
      for (int l = k - 1; l >= 0; --l) p = p * std::sqrt((1 - P(l, i) * P(l, i)) * (1 - P(l, k) * P(l, k))) + P(l, i) * P(l, k);
      S(k, i) = S(i, k) = p;
    }
  }
  return S;
}

// The stream of one seed. Per step the same D_k + 1 normals are drawn whatever the Sigma (common random
// numbers across the data configurations): eps = sqrt(1 - rho) z + sqrt(rho) w 1 (equicorrelated) or L z
// (LKJ, Sigma = L L^T drawn first from the sub-stream mix(seed, 1)).
Stream make_stream(const StreamParams& p, u64 seed) {
  if (p.dk < 1 || p.T < 4) throw std::invalid_argument("make_stream: need D_k >= 1 and T >= 4");
  if (p.sigma == SigmaKind::equicorrelated && !(p.rho >= 0 && p.rho < 1))
    throw std::invalid_argument("make_stream: rho must lie in [0, 1), got " + fmt(p.rho));
  const int d = p.dk, T = p.T;
  Stream s;
  Mat L;
  if (p.sigma == SigmaKind::lkj) {
    Gauss gs(mix(seed, 1));
    s.Sigma = lkj_correlation(d, p.lkj_eta, gs);
    Eigen::LLT<Mat> llt(s.Sigma);
    if (llt.info() != Eigen::Success) throw std::runtime_error("make_stream: LKJ draw not positive definite");
    L = llt.matrixL();
  } else {
    s.Sigma = Mat::Constant(d, d, p.rho);
    s.Sigma.diagonal().setOnes();
  }
  Gauss g(seed);
  const double ca = std::sqrt(1 - p.rho), cb = std::sqrt(p.rho);
  Vec z(d), eps(d);
  auto draw = [&]() {
    for (int j = 0; j < d; ++j) z(j) = g.normal();
    const double w = g.normal();
    if (p.sigma == SigmaKind::lkj)
      eps.noalias() = L * z;
    else
      for (int j = 0; j < d; ++j) eps(j) = ca * z(j) + cb * w;
  };
  s.K = RowMat::Zero(T + 2, d);
  draw();
  if (p.k1 == K1Law::stationary)
    s.K.row(0) = (p.noise / std::sqrt(1 - p.a_fast * p.a_fast)) * eps.transpose();
  else if (p.k1 == K1Law::sigma)
    s.K.row(0) = eps.transpose();
  for (int t = 1; t <= T + 1; ++t) {  // k_{t+1} from k_t
    draw();
    const double a = t < p.switch_at() ? p.a_fast : p.a_slow;
    s.K.row(t) = a * s.K.row(t - 1) + p.noise * eps.transpose();
  }
  s.V = RowMat(T + 1, d);
  for (int t = 1; t <= T + 1; ++t) {
    const double n = s.K.row(t).norm();
    if (!(n > 0)) throw std::runtime_error("make_stream: k_" + std::to_string(t + 1) + " = 0");
    s.V.row(t - 1) = s.K.row(t) / n;
  }
  return s;
}

// median over i < j <= T+1 of ||k_i - k_j||^2 (the s_exp bandwidth scale, one per sequence)
double median_sq_dist(const Stream& s, int T) {
  std::vector<double> d2;
  d2.reserve(static_cast<std::size_t>((T + 1) * T / 2));
  for (int i = 0; i <= T; ++i)
    for (int j = i + 1; j <= T; ++j) d2.push_back((s.K.row(i) - s.K.row(j)).squaredNorm());
  const std::size_t n = d2.size(), h = n / 2;
  std::nth_element(d2.begin(), d2.begin() + static_cast<std::ptrdiff_t>(h), d2.end());
  double m = d2[h];
  if (n % 2 == 0) m = 0.5 * (m + *std::max_element(d2.begin(), d2.begin() + static_cast<std::ptrdiff_t>(h)));
  return m;
}

// logits z_i = log s(k_i, q) of the keys i = 1..t (rows 0..t-1 of K)
void logits(const Stream& s, int t, const Eigen::Ref<const Vec>& q, const Similarity& sim, double tau_default, double B, Vec& z) {
  z.resize(t);
  if (sim.kind == SimKind::dot) {
    const double tau = sim.tau > 0 ? sim.tau : tau_default;
    z.noalias() = s.K.topRows(t) * q;
    z /= tau;
  } else {
    for (int i = 0; i < t; ++i) z(i) = -(s.K.row(i).transpose() - q).squaredNorm() / B;
  }
}

// ---------------------------------------------------------------------------------------------
// least squares by a Givens-updated QR (square-root RLS)
// ---------------------------------------------------------------------------------------------
struct QrLs {
  Mat R, B;  // R: n x n upper triangular (trapezoidal while fewer than n rows), B = Q^T V: n x dv
  void reset(int n, int dv, double mu = 0) {
    R = Mat::Zero(n, n);
    B = Mat::Zero(n, dv);
    if (mu > 0) R.diagonal().setConstant(std::sqrt(mu));
  }
  void scale(double c) {
    R *= c;
    B *= c;
  }
  // add the row (x, y): min sum ||y_i - M x_i||^2 with one more pair
  void add_row(const Eigen::Ref<const Vec>& x0, const Eigen::Ref<const Vec>& y0) {
    Vec x = x0, y = y0;
    const int n = static_cast<int>(R.rows());
    for (int j = 0; j < n; ++j) {
      if (x(j) == 0) continue;
      const double a = R(j, j), b = x(j), r = std::hypot(a, b), c = a / r, s = b / r;
      R(j, j) = r;
      x(j) = 0;
      for (int k = j + 1; k < n; ++k) {
        const double rk = R(j, k), xk = x(k);
        R(j, k) = c * rk + s * xk;
        x(k) = -s * rk + c * xk;
      }
      for (int k = 0; k < B.cols(); ++k) {
        const double bk = B(j, k), yk = y(k);
        B(j, k) = c * bk + s * yk;
        y(k) = -s * bk + c * yk;
      }
    }
  }
  // y = M q with M = B^T R^{-T} (full rank R)
  Vec read(const Eigen::Ref<const Vec>& q) const {
    const Vec z = R.transpose().triangularView<Eigen::Lower>().solve(q);
    return B.transpose() * z;
  }
  Mat memory() const {  // M = B^T R^{-T} = (R^{-1} B)^T
    return R.triangularView<Eigen::Upper>().solve(B).transpose();
  }
};

// declared rank threshold (relative): 10 max(m, n) eps (= ref::default_rank_tol<double>)
double rank_tol(Eigen::Index m, Eigen::Index n) { return 10.0 * static_cast<double>(std::max<Eigen::Index>({m, n, 1})) * std::numeric_limits<double>::epsilon(); }

// ---------------------------------------------------------------------------------------------
// per-layer runs
// ---------------------------------------------------------------------------------------------
struct LayerRun {
  std::vector<double> loss;       // loss[t-1] = ||v_{t+1} - y_t||^2, t = 1..T
  std::vector<double> premass;    // softmax / p = 1: mass of the keys i <= T/4 for t > T/4 (else NaN)
  std::vector<int> rank;          // LS / p = 1: numerical rank used at step t (D_k or 1 + D_k when full)
  std::vector<double> cond_est;   // p = 1 PINV / LS (LS only with keep_outputs): estimated cond of the triangular factor
                                  // (also where it exceeded 1e9 and the COD took over; NaN where none was formed)
  RowMat Y;                       // outputs y_t (rows), when requested
};

// ||R||_F / (estimate of sigma_min by 6 steps of inverse iteration on R^T R): an estimate of cond_2(R) that is at
// most sqrt(n) cond_2(R) (the inverse iteration over-estimates sigma_min; ||R||_F <= sqrt(n) sigma_max)
double cond_estimate(const Eigen::Ref<const Mat>& R) {
  const int n = static_cast<int>(R.rows());
  Vec x = Vec::Ones(n) / std::sqrt(static_cast<double>(n));
  double smin2 = INFINITY;
  for (int it = 0; it < 6; ++it) {
    Vec y = R.transpose().triangularView<Eigen::Lower>().solve(x);
    y = R.triangularView<Eigen::Upper>().solve(y);
    const double ny = y.norm();
    if (!(ny > 0) || !std::isfinite(ny)) return INFINITY;
    smin2 = 1.0 / ny;  // ||x|| = 1
    x = y / ny;
  }
  return R.norm() / std::sqrt(smin2);
}

// Route threshold: a triangular factor with estimated condition <= 1e9 has full numerical rank under the declared
// threshold (10 max(m, n) eps <= 1e-12 for the sizes here), so the pseudo-inverse is the plain inverse there.
constexpr double kQrCondLimit = 1e9;

// Minimum-norm weighted LS read-out y = V_w^T (A^+)^T q for the row-scaled A = diag(c) K_t (m x n) and
// V_w = diag(c) V_t. With m <= n and A of full row rank: A^T = Q R (Householder), (A^+)^T q = R^{-1} Q^T q;
// otherwise (or when R is too ill-conditioned) the complete orthogonal decomposition of A with the declared
// rank threshold. *rank: the rank used; *cond: the estimated cond of R on the QR route (NaN on the COD route).
Vec min_norm_read(const Mat& A, const Mat& Vw, const Eigen::Ref<const Vec>& q, int* rank, double* cond = nullptr) {
  const Eigen::Index m = A.rows(), n = A.cols();
  if (cond) *cond = std::numeric_limits<double>::quiet_NaN();
  if (m <= n) {
    const Eigen::HouseholderQR<Mat> hq(A.transpose());
    const Mat R = hq.matrixQR().topRows(m).triangularView<Eigen::Upper>();
    const double ce = cond_estimate(R);
    if (cond) *cond = ce;
    if (ce <= kQrCondLimit) {
      const Vec qt = hq.householderQ().transpose() * q;
      const Vec w = R.triangularView<Eigen::Upper>().solve(qt.head(m));
      if (rank) *rank = static_cast<int>(m);
      return Vw.transpose() * w;
    }
  }
  Eigen::CompleteOrthogonalDecomposition<Mat> cod;
  cod.setThreshold(rank_tol(m, n));
  cod.compute(A);
  if (rank) *rank = static_cast<int>(cod.rank());
  const Mat Mt = cod.solve(Vw);  // n x D_v = M^T
  return Mt.transpose() * q;
}

LayerRun run_layer(const LayerSpec& L, const Stream& s, const StreamParams& p, bool keep_outputs = false) {
  const int T = p.T, d = p.dk, T4 = p.switch_at();
  LayerRun out;
  out.loss.assign(static_cast<std::size_t>(T), 0.0);
  if (keep_outputs) out.Y = RowMat(T, d);
  const bool nonpar = L.kind == LayerKind::softmax || L.kind == LayerKind::local_linear;
  if (nonpar) out.premass.assign(static_cast<std::size_t>(T), std::numeric_limits<double>::quiet_NaN());
  const bool lsk = L.kind == LayerKind::least_squares || L.kind == LayerKind::weighted_ls || L.kind == LayerKind::oracle_ls;
  if (lsk || L.kind == LayerKind::local_linear) out.rank.assign(static_cast<std::size_t>(T), 0);
  if (L.kind == LayerKind::local_linear || (lsk && keep_outputs)) out.cond_est.assign(static_cast<std::size_t>(T), std::numeric_limits<double>::quiet_NaN());
  Vec y(d);
  auto record = [&](int t, const Vec& yt) {  // 1-based t
    out.loss[static_cast<std::size_t>(t - 1)] = (s.V.row(t).transpose() - yt).squaredNorm();
    if (keep_outputs) out.Y.row(t - 1) = yt.transpose();
  };
  switch (L.kind) {
    case LayerKind::naive: {
      for (int t = 1; t <= T; ++t) record(t, s.V.row(t - 1).transpose());
      break;
    }
    case LayerKind::linear_attention: {
      // Eq. (2): M_t = M_{t-1} + v_t k_t^T, y_t = M_t q_t, then the output normalisation (A001-LA-OUTNORM-*)
      Mat M = Mat::Zero(d, d);
      for (int t = 1; t <= T; ++t) {
        M.noalias() += s.V.row(t - 1).transpose() * s.K.row(t - 1);
        y.noalias() = M * s.K.row(t).transpose();
        Vec yt(d);
        if (L.norm == ref::OutputNorm::layer_norm) {
          const double mean = y.mean();
          const double var = (y.array() - mean).square().sum() / d;
          yt = (y.array() - mean) / std::sqrt(var + L.norm_eps);
        } else if (L.norm == ref::OutputNorm::rms_norm) {
          yt = y / std::sqrt(y.squaredNorm() / d + L.norm_eps);
        } else {
          yt = y / std::max(y.norm(), L.norm_eps);
        }
        record(t, yt);
      }
      break;
    }
    case LayerKind::least_squares:
    case LayerKind::weighted_ls:
    case LayerKind::oracle_ls: {
      // Eq. (11) (min-norm while rank-deficient), Eq. (15) with constant gamma, or Eq. (11) on the pairs
      // i >= T/4 once t >= T/4 (the post-switch oracle; before T/4 all pairs belong to the first regime)
      const double gam = L.kind == LayerKind::weighted_ls ? L.gamma : 1.0;
      const double mu = L.kind == LayerKind::least_squares ? L.ridge_mu : 0.0;
      if (!(gam > 0 && gam <= 1)) throw std::invalid_argument("run_layer: gamma must lie in (0, 1]");
      QrLs qr;
      qr.reset(d, d, mu);
      bool full = mu > 0;
      int start = 1;  // first pair in the fit (1-based)
      for (int t = 1; t <= T; ++t) {
        if (L.kind == LayerKind::oracle_ls && t == T4) {  // restart on the post-switch pairs i >= T/4
          qr.reset(d, d);
          full = false;
          start = T4;
        }
        if (gam != 1.0) qr.scale(std::sqrt(gam));
        qr.add_row(s.K.row(t - 1).transpose(), s.V.row(t - 1).transpose());
        const Vec q = s.K.row(t).transpose();
        int rk = d;
        if (!full) {
          const int m = t - start + 1;
          Mat A(m, d), Vw(m, d);
          for (int i = 0; i < m; ++i) {
            const double c = gam == 1.0 ? 1.0 : std::pow(gam, 0.5 * (m - 1 - i));
            A.row(i) = c * s.K.row(start - 1 + i);
            Vw.row(i) = c * s.V.row(start - 1 + i);
          }
          double ce = 0;
          y = min_norm_read(A, Vw, q, &rk, &ce);
          if (keep_outputs) out.cond_est[static_cast<std::size_t>(t - 1)] = ce;
          if (rk == d) full = true;  // from here on the QR read-out (same estimator, full rank)
        } else {
          y = qr.read(q);
          if (keep_outputs) out.cond_est[static_cast<std::size_t>(t - 1)] = cond_estimate(qr.R);
        }
        out.rank[static_cast<std::size_t>(t - 1)] = rk;
        record(t, y);
      }
      break;
    }
    case LayerKind::softmax:
    case LayerKind::local_linear: {
      const double tau_default = std::sqrt(static_cast<double>(d));
      const double B = L.sim.kind == SimKind::gauss ? L.sim.b * median_sq_dist(s, T) : 1.0;
      if (L.sim.kind == SimKind::gauss && !(B > 0)) throw std::runtime_error("run_layer: s_exp bandwidth is 0");
      Vec z, w, ell;
      for (int t = 1; t <= T; ++t) {
        const Vec q = s.K.row(t).transpose();
        logits(s, t, q, L.sim, tau_default, B, z);
        const double zmax = z.maxCoeff();
        w = (z.array() - zmax).exp();  // max-subtraction: the largest weight is 1
        if (L.kind == LayerKind::softmax) {
          // Eq. (1): y = sum_i v_i w_i / sum_j w_j
          const double sw = w.sum();
          ell = w / sw;
        } else {
          // Eq. (52) on the rows sqrt(w_i) [1, (k_i - q)^T], output the intercept (first row of Theta^T)
          const double thr = 0x1p-60;
          std::vector<int> keep;
          keep.reserve(static_cast<std::size_t>(t));
          Vec rn(t);
          double rmax = 0;
          for (int i = 0; i < t; ++i) {
            rn(i) = std::sqrt(w(i) * (1.0 + (s.K.row(i).transpose() - q).squaredNorm()));
            rmax = std::max(rmax, rn(i));
          }
          for (int i = 0; i < t; ++i)
            if (rn(i) > thr * rmax) keep.push_back(i);
          const int m = static_cast<int>(keep.size()), n = d + 1;
          Mat A(m, n);
          Vec sw(m);
          for (int r = 0; r < m; ++r) {
            const int i = keep[static_cast<std::size_t>(r)];
            sw(r) = std::sqrt(w(i));
            A(r, 0) = sw(r);
            A.row(r).tail(d) = sw(r) * (s.K.row(i) - q.transpose());
          }
          Vec c;  // first row of A^+ (or of the ridge solution operator), as a vector over the kept rows
          int rk = n;
          if (L.singular == Singular::ridge) {
            double tr = 0;
            for (int r = 0; r < m; ++r) tr += A.row(r).tail(d).squaredNorm();
            const double mu = L.ridge_rel * tr / d;
            if (!(mu > 0)) {  // every d_i = 0: M^[1] = 0, the NW output
              c = sw / sw.squaredNorm();
            } else {
              Mat Aa = Mat::Zero(m + d, n);
              Aa.topRows(m) = A;
              Aa.bottomRightCorner(d, d).diagonal().setConstant(std::sqrt(mu));
              Eigen::HouseholderQR<Mat> hq(Aa);
              const Mat R = hq.matrixQR().topRows(n).triangularView<Eigen::Upper>();
              const Vec zz = R.transpose().triangularView<Eigen::Lower>().solve(Vec::Unit(n, 0));
              Vec full = Vec::Zero(m + d);
              full.head(n) = zz;
              const Vec ca = hq.householderQ() * full;
              c = ca.head(m);
            }
          } else {
            bool done = false;
            if (m < n) {
              // full row rank: A^T = Q R, c = (A A^T)^{-1} A e_1 = R^{-1} Q^T e_1
              const Eigen::HouseholderQR<Mat> hq(A.transpose());
              const Mat R = hq.matrixQR().topRows(m).triangularView<Eigen::Upper>();
              const double ce = cond_estimate(R);
              out.cond_est[static_cast<std::size_t>(t - 1)] = ce;
              if (ce <= kQrCondLimit) {
                const Vec e1 = hq.householderQ().transpose() * Vec::Unit(n, 0);
                c = R.triangularView<Eigen::Upper>().solve(e1.head(m));
                rk = m;
                done = true;
              }
            } else {
              Eigen::HouseholderQR<Mat> hq(A);
              const Mat R = hq.matrixQR().topRows(n).triangularView<Eigen::Upper>();
              const double ce = cond_estimate(R);
              out.cond_est[static_cast<std::size_t>(t - 1)] = ce;
              if (ce <= kQrCondLimit) {
                const Vec zz = R.transpose().triangularView<Eigen::Lower>().solve(Vec::Unit(n, 0));
                Vec full = Vec::Zero(m);
                full.head(n) = zz;
                c = hq.householderQ() * full;
                done = true;
              }
            }
            if (!done) {
              // min-norm: c = (A^T)^+ e_1, the min-norm solution of A^T c = e_1
              Eigen::CompleteOrthogonalDecomposition<Mat> cod;
              cod.setThreshold(rank_tol(A.rows(), A.cols()));
              const Mat At = A.transpose();
              cod.compute(At);
              rk = static_cast<int>(cod.rank());
              c = cod.solve(Vec::Unit(n, 0));
            }
          }
          out.rank[static_cast<std::size_t>(t - 1)] = rk;
          ell = Vec::Zero(t);
          for (int r = 0; r < m; ++r) ell(keep[static_cast<std::size_t>(r)]) = c(r) * sw(r);
        }
        y.noalias() = s.V.topRows(t).transpose() * ell;
        // softmax: normalised similarity mass of the keys i <= T/4; p = 1: equivalent-kernel mass of those keys
        if (t > T4) out.premass[static_cast<std::size_t>(t - 1)] = ell.head(T4).sum();
        record(t, y);
      }
      break;
    }
  }
  return out;
}

// The similarity-weight mass of the keys i <= T/4 at the queries t > T/4 (softmax normalisation), the
// mechanism curve of A001-EXP-NONPARAM-ADAPT, for any similarity (also the p = 1 layer's weights).
std::vector<double> similarity_premass(const Similarity& sim, const Stream& s, const StreamParams& p) {
  const int T = p.T, T4 = p.switch_at();
  const double B = sim.kind == SimKind::gauss ? sim.b * median_sq_dist(s, T) : 1.0;
  std::vector<double> m(static_cast<std::size_t>(T), std::numeric_limits<double>::quiet_NaN());
  Vec z;
  for (int t = T4 + 1; t <= T; ++t) {
    const Vec q = s.K.row(t).transpose();
    logits(s, t, q, sim, std::sqrt(static_cast<double>(p.dk)), B, z);
    const Vec w = (z.array() - z.maxCoeff()).exp();
    m[static_cast<std::size_t>(t - 1)] = w.head(T4).sum() / w.sum();
  }
  return m;
}

// ---------------------------------------------------------------------------------------------
// windows and statistics
// ---------------------------------------------------------------------------------------------
// W1 = [1, T/4), W2 = [T/4, T/4 + 16), W3 = [T/4 + 16, T], all = [1, T] (1-based, inclusive ends below)
struct Window {
  const char* name;
  int lo, hi;  // 1-based inclusive
};
std::vector<Window> windows(int T) {
  const int T4 = T / 4;
  return {{"W1", 1, T4 - 1}, {"W2", T4, std::min(T, T4 + 15)}, {"W3", T4 + 16, T}, {"all", 1, T}};
}
double window_mean(const std::vector<double>& loss, const Window& w) {
  double s = 0;
  for (int t = w.lo; t <= w.hi; ++t) s += loss[static_cast<std::size_t>(t - 1)];
  return s / (w.hi - w.lo + 1);
}

// Paired bootstrap over seeds: B resamples of the seed indices drawn once, so every statistic of one
// claim is resampled jointly (paired differences, ratios of means).
struct Bootstrap {
  int n = 0;
  std::vector<std::vector<int>> idx;
  Bootstrap(int n_seeds, int B, u64 seed) : n(n_seeds) {
    Gauss g(seed);
    idx.assign(static_cast<std::size_t>(B), std::vector<int>(static_cast<std::size_t>(n_seeds)));
    for (auto& r : idx)
      for (int& i : r) i = std::min(n_seeds - 1, static_cast<int>(g.uniform() * n_seeds));
  }
  static double pct(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    const double pos = p * static_cast<double>(v.size() - 1);
    const std::size_t i = static_cast<std::size_t>(pos);
    const double f = pos - static_cast<double>(i);
    return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
  }
  // 95% percentile CI of the mean of x
  Ci mean(const std::vector<double>& x) const {
    Ci c;
    for (double v : x) c.mean += v;
    c.mean /= static_cast<double>(x.size());
    std::vector<double> m;
    m.reserve(idx.size());
    for (const auto& r : idx) {
      double a = 0;
      for (int i : r) a += x[static_cast<std::size_t>(i)];
      m.push_back(a / static_cast<double>(r.size()));
    }
    c.lo = pct(m, 0.025);
    c.hi = pct(m, 0.975);
    return c;
  }
  // 95% percentile CI of mean(a) / mean(b)
  Ci ratio(const std::vector<double>& a, const std::vector<double>& b) const {
    Ci c;
    double sa = 0, sb = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      sa += a[i];
      sb += b[i];
    }
    c.mean = sa / sb;
    std::vector<double> m;
    m.reserve(idx.size());
    for (const auto& r : idx) {
      double x = 0, y = 0;
      for (int i : r) {
        x += a[static_cast<std::size_t>(i)];
        y += b[static_cast<std::size_t>(i)];
      }
      m.push_back(x / y);
    }
    c.lo = pct(m, 0.025);
    c.hi = pct(m, 0.975);
    return c;
  }
};

// side of a CI relative to a boundary: +1 above, -1 below, 0 straddles
int ci_side(const Ci& c, double boundary = 0) { return c.lo > boundary ? 1 : c.hi < boundary ? -1 : 0; }

// adaptation time (A001-EXP-NONPARAM-ADAPT): the first t >= T/4 after which the trailing rolling mean of the
// loss over 8 steps (t-7..t) stays within 1.1 x the median of the loss over W3; T + 1 when it never does
int adaptation_time(const std::vector<double>& loss, int T, int window = 8, double factor = 1.1) {
  const Window w3 = windows(T)[2];
  std::vector<double> v(loss.begin() + (w3.lo - 1), loss.begin() + w3.hi);
  const double med = Bootstrap::pct(v, 0.5);
  const double lim = factor * med;
  int tau = T + 1;
  for (int t = T; t >= T / 4; --t) {
    double a = 0;
    for (int j = t - window + 1; j <= t; ++j) a += loss[static_cast<std::size_t>(j - 1)];
    a /= window;
    if (a > lim) break;
    tau = t;
  }
  return tau;
}

// ---------------------------------------------------------------------------------------------
// A001-EXP-RLS-NO-ADAPT (iv): the derived noise-free controlled switch
// ---------------------------------------------------------------------------------------------
// v_i = A_1 k_i for i <= T/2 and A_2 k_i afterwards (keys i.i.d. N(0, Sigma_rho), A_1, A_2 with N(0, 1/D_k)
// entries); returns ||M_t - A_2||_F / ||A_1 - A_2||_F at the requested t > T/2 for: unweighted LS (Eq. 11),
// WLS gamma (each), NLMS (A001-NLMS: M += (v - M k) k^T / ||k||^2), DeltaNet (beta = 1/D_k, so that
// beta E||k||^2 = 1) and linear attention (min_c ||c M_t - A_2||_F / ||A_1 - A_2||_F).
struct SwitchCurves {
  std::vector<std::string> names;
  std::vector<std::vector<double>> ratio;  // [method][checkpoint]
};
SwitchCurves controlled_switch(int dk, int T, double rho, const std::vector<double>& gammas, const std::vector<int>& ts, u64 seed) {
  Gauss g(seed);
  const double isd = 1.0 / std::sqrt(static_cast<double>(dk));
  Mat A1(dk, dk), A2(dk, dk);
  for (int i = 0; i < dk; ++i)
    for (int j = 0; j < dk; ++j) A1(i, j) = isd * g.normal();
  for (int i = 0; i < dk; ++i)
    for (int j = 0; j < dk; ++j) A2(i, j) = isd * g.normal();
  const double dA = (A1 - A2).norm();
  SwitchCurves sc;
  sc.names = {"LS (Eq. 11)"};
  for (double gm : gammas) sc.names.push_back("WLS gamma=" + fmt(gm));
  sc.names.push_back("NLMS");
  sc.names.push_back("DeltaNet beta=1/D_k");
  sc.names.push_back("LA (best scale)");
  const std::size_t nm = sc.names.size();
  sc.ratio.assign(nm, std::vector<double>(ts.size(), 0.0));
  std::vector<QrLs> qr(1 + gammas.size());
  for (auto& x : qr) x.reset(dk, dk);
  Mat Mn = Mat::Zero(dk, dk), Md = Mat::Zero(dk, dk), Ml = Mat::Zero(dk, dk);
  const double ca = std::sqrt(1 - rho), cb = std::sqrt(rho), beta = 1.0 / dk;
  Vec k(dk);
  std::size_t ci = 0;
  for (int t = 1; t <= T && ci < ts.size(); ++t) {
    const double w = g.normal();
    for (int j = 0; j < dk; ++j) k(j) = ca * g.normal() + cb * w;
    const Vec v = (t <= T / 2 ? A1 : A2) * k;
    for (std::size_t m = 0; m < qr.size(); ++m) {
      if (m > 0) qr[m].scale(std::sqrt(gammas[m - 1]));
      qr[m].add_row(k, v);
    }
    Mn += (v - Mn * k) * k.transpose() / k.squaredNorm();
    Md += beta * (v - Md * k) * k.transpose();
    Ml += v * k.transpose();
    if (t == ts[ci]) {
      for (std::size_t m = 0; m < qr.size(); ++m) sc.ratio[m][ci] = (qr[m].memory() - A2).norm() / dA;
      sc.ratio[nm - 3][ci] = (Mn - A2).norm() / dA;
      sc.ratio[nm - 2][ci] = (Md - A2).norm() / dA;
      const double ip = (Ml.array() * A2.array()).sum(), nl2 = Ml.squaredNorm();
      sc.ratio[nm - 1][ci] = std::sqrt(std::max(0.0, A2.squaredNorm() - (nl2 > 0 ? ip * ip / nl2 : 0.0))) / dA;
      ++ci;
    }
  }
  return sc;
}

// ---------------------------------------------------------------------------------------------
// the experiment's configurations and layers (spec defaults), the per-process cache of per-seed runs,
// window means and mean curves with bootstrap bands (shared by online_regression_experiment.cpp and
// online_regression_claims.cpp; each translation unit holds its own cache)
// ---------------------------------------------------------------------------------------------
constexpr const char* kTag = "A001-EXP-ONLINE-REGRESSION";

struct ExpConfig {
  std::string name;
  StreamParams data;
  Similarity sim;                      // softmax (p = 0) and p = 1
  Singular singular = Singular::pinv;  // p = 1
  double ridge_rel = 1e-8;             // p = 1 RIDGE
  double ls_mu = 0;                    // RLS: 0 = min-norm (Eq. 11), > 0 ridge start
};
ExpConfig default_config() {
  ExpConfig c;
  c.name = "defaults (rho=0.5 equicorrelated, k_1 stationary, s_dot tau=sqrt(D_k), p=1 PINV, LS min-norm)";
  return c;
}

struct Sizes {
  int seeds, grid_seeds, boot, band_boot;
};
Sizes sizes(const CheckConfig& cfg) { return cfg.quick ? Sizes{12, 6, 1000, 200} : Sizes{200, 50, 2000, 400}; }
std::string seeds_note(const CheckConfig& cfg) {
  const Sizes z = sizes(cfg);
  return std::to_string(z.seeds) + " seeds at the defaults" + (cfg.quick ? " (quick mode: fewer than the 200 of R-MC)" : "") + ", " +
         std::to_string(z.grid_seeds) + " per sweep configuration" + (cfg.quick ? " (quick mode, reduced grid)" : "") + "; " +
         std::to_string(z.boot) + " paired bootstrap resamples";
}

// the layers of the paper's Fig. 2 (indices into paper_layers) and the derived controls
enum PaperLayer { kNaive = 0, kLaLn, kLaRms, kLaL2, kRls, kSoftmax, kP1, kNumPaper };
const char* const kPaperName[kNumPaper] = {"naive", "LA-LN", "LA-RMS", "LA-L2", "RLS", "softmax (p=0)", "p=1"};
std::vector<LayerSpec> paper_layers(const ExpConfig& c) {
  return {naive_layer(),
          la_layer(ref::OutputNorm::layer_norm),
          la_layer(ref::OutputNorm::rms_norm),
          la_layer(ref::OutputNorm::l2),
          ls_layer(c.ls_mu),
          softmax_layer(c.sim),
          p1_layer(c.sim, c.singular, c.ridge_rel)};
}
const double kGammas[3] = {0.9, 0.97, 0.99};
std::vector<LayerSpec> control_layers() { return {wls_layer(kGammas[0]), wls_layer(kGammas[1]), wls_layer(kGammas[2]), oracle_layer()}; }
const char* const kControlName[4] = {"WRLS gamma=0.9 [derived]", "WRLS gamma=0.97 [derived]", "WRLS gamma=0.99 [derived]", "oracle LS post-switch [derived]"};

u64 stream_seed(u64 base, int s) { return mix(tag_seed(base, kTag), static_cast<u64>(s)); }

struct RunCache {
  std::mutex mu;
  std::map<std::string, std::vector<LayerRun>> runs;  // key: cfg.seed | data | layer
};
RunCache& run_cache() {
  static RunCache c;
  return c;
}
// runs[layer][seed] for seeds 0..n-1 (computed on first use; the outputs Y are not kept)
std::vector<std::vector<LayerRun>> get_runs(u64 base, const StreamParams& data, const std::vector<LayerSpec>& layers, int n) {
  RunCache& c = run_cache();
  std::lock_guard<std::mutex> lock(c.mu);
  std::vector<std::string> keys;
  for (const LayerSpec& L : layers) keys.push_back(std::to_string(base) + "|" + data.key() + "|" + L.key());
  for (int s = 0; s < n; ++s) {
    bool need = false;
    for (const std::string& k : keys) need = need || static_cast<int>(c.runs[k].size()) <= s;
    if (!need) continue;
    const Stream st = make_stream(data, stream_seed(base, s));
    for (std::size_t l = 0; l < layers.size(); ++l) {
      auto& v = c.runs[keys[l]];
      if (static_cast<int>(v.size()) == s) v.push_back(run_layer(layers[l], st, data));
    }
  }
  std::vector<std::vector<LayerRun>> out;
  for (const std::string& k : keys) {
    const auto& v = c.runs[k];
    out.emplace_back(v.begin(), v.begin() + n);
  }
  return out;
}

// per-seed window means wm[layer][window][seed] (windows W1, W2, W3, all)
using WinMeans = std::vector<std::array<std::vector<double>, 4>>;
WinMeans window_means(const std::vector<std::vector<LayerRun>>& runs, int T) {
  const auto W = windows(T);
  WinMeans wm(runs.size());
  for (std::size_t l = 0; l < runs.size(); ++l)
    for (int w = 0; w < 4; ++w)
      for (const LayerRun& r : runs[l]) wm[l][static_cast<std::size_t>(w)].push_back(window_mean(r.loss, W[static_cast<std::size_t>(w)]));
  return wm;
}

// Pointwise 95% bootstrap band of the mean curve over seeds.
struct Band {
  std::vector<double> mean, lo, hi;
};
Band mean_band(const std::vector<LayerRun>& runs, bool premass, int T, int B, u64 seed) {
  const int n = static_cast<int>(runs.size());
  Bootstrap bs(n, B, seed);
  Band b;
  for (int t = 1; t <= T; ++t) {
    std::vector<double> x;
    for (const LayerRun& r : runs) x.push_back(premass ? r.premass[static_cast<std::size_t>(t - 1)] : r.loss[static_cast<std::size_t>(t - 1)]);
    if (std::isnan(x[0])) {
      b.mean.push_back(NAN);
      b.lo.push_back(NAN);
      b.hi.push_back(NAN);
      continue;
    }
    const Ci c = bs.mean(x);
    b.mean.push_back(c.mean);
    b.lo.push_back(c.lo);
    b.hi.push_back(c.hi);
  }
  return b;
}
void add_band_series(ClaimFigure& f, const std::string& name, const Band& b, int from_t) {
  FigureSeries m, lo, hi;
  m.name = name;
  lo.name = name + " (95% band, low)";
  hi.name = name + " (95% band, high)";
  lo.style = hi.style = "dashed";
  m.group = lo.group = hi.group = name;
  for (std::size_t i = static_cast<std::size_t>(from_t - 1); i < b.mean.size(); ++i) {
    const double t = static_cast<double>(i + 1);
    m.x.push_back(t);
    lo.x.push_back(t);
    hi.x.push_back(t);
    m.y.push_back(b.mean[i]);
    lo.y.push_back(b.lo[i]);
    hi.y.push_back(b.hi[i]);
  }
  f.series.push_back(m);
  f.series.push_back(lo);
  f.series.push_back(hi);
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::online_regression
