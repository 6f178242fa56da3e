// Internal helpers shared by the A001 least-squares claim files in proofs_numeric/a001_test_time_regression/
// (least_squares.cpp, linattn_as_regression.cpp, feature_least_squares.cpp, regression_framework.cpp,
// ttr_perfect_recall.cpp, weighted_ls_weights.cpp, weighted_least_squares.cpp, wls_underdetermined.cpp,
// gated_linattn_as_wls.cpp): instance seeds and size strings; the numerical rank and condition number behind
// the P-scaled digits (spec A001 C7); the unweighted LS instance generators G1-G4 (spec C8), fp64 least squares
// and fp64 prefix condition estimates; for the weighted items the G5 gate kinds, the conditioning of weighted
// prefixes Gamma_t^{1/2} K_t, the digits cap, G2 keys and a per-digits memo of an instance's evaluation.
// Internal linkage (an unnamed namespace) and no `inline`, like claim_support.hpp, so that each claim's
// figures stay those of the former file-local copies.
#pragma once

#include "recall/proofs/ledger.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/matrix.hpp"
#include "recall/reference/svd.hpp"
#include "claim_support.hpp"
#include "eigen_bridge.hpp"
#include "linear_attention_claims.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace recall::claim_support::lsq {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

using u64 = std::uint64_t;

// ---- seeds, sizes -------------------------------------------------------------------------------

// seed of instance n of a claim: mix(tag_seed(seed, tag), n)
u64 iseed(const CheckConfig& cfg, const std::string& tag, u64 n) { return mix(tag_seed(cfg.seed, tag), n); }
std::string sz(std::size_t T, std::size_t dk, std::size_t dv) {
  return "T=" + std::to_string(T) + " D_k=" + std::to_string(dk) + " D_v=" + std::to_string(dv);
}

// ---- numerical rank, condition, P-scaled digits (spec C7) ---------------------------------------

// the declared rank threshold sigma_i > 10^-(d-10) sigma_max at the current digits
mp_t rank_tol(std::size_t n) { return ref::default_rank_tol<mp_t>(n); }

// cond(K) = sigma_1 / sigma_r over the numerical rank r (declared threshold at the current digits);
// 1 and rank 0 for an empty or zero matrix
struct CondRank {
  double cond = 1;
  std::size_t rank = 0;
};
CondRank mp_cond(const MM& K) {
  CondRank c;
  if (K.rows == 0 || K.cols == 0) return c;
  const auto s = ref::svd(K).sigma;
  c.rank = ref::numerical_rank(s, rank_tol(std::max(K.rows, K.cols)));
  if (c.rank > 0) c.cond = to_d(mp_t(s[0] / s[c.rank - 1]));
  return c;
}
// worst cond over the prefixes t = 1..T (numerical rank at the current digits)
double worst_prefix_cond(const MM& K) {
  double c = 1;
  for (std::size_t t = 1; t <= K.rows; ++t) c = std::max(c, mp_cond(head_rows(K, t)).cond);
  return c;
}
// P-scaled digits (spec C7 with a Gram formed): d + 2 ceil(log10 cond) + 4
unsigned pscaled(unsigned d, double cond) { return d + 2 * static_cast<unsigned>(std::ceil(std::log10(std::max(1.0, cond)))) + 4; }

// ---- unweighted LS instance generators (spec C8) ---------------------------------------------------
// G1 Gaussian (key scale 10^a), G2 prescribed spectrum (K = U diag(sigma) W^T, Haar U, W re-orthonormalised in MP,
// so that unit and zero singular values are exact), G3 duplicates / near-duplicates, G4 equicorrelated

enum class KG { g1, g2_loguniform, g2_equal, g2_ones, g2_clustered, g2_zeros, g3_dup, g3_near, g4 };
const char* kg_name(KG k) {
  switch (k) {
    case KG::g1: return "G1";
    case KG::g2_loguniform: return "G2 sigma log-uniform [1e-8,1e3]";
    case KG::g2_equal: return "G2 sigma all equal";
    case KG::g2_ones: return "G2 sigma all one";
    case KG::g2_clustered: return "G2 sigma clustered 2(1+1e-6 N)";
    case KG::g2_zeros: return "G2 sigma with exact zeros";
    case KG::g3_dup: return "G3 exact duplicate key";
    case KG::g3_near: return "G3 near-duplicate key";
    case KG::g4: return "G4 equicorrelated";
  }
  return "?";
}

// n x m with orthonormal columns (m <= n): Q factor of a Gaussian matrix (fp64, Haar up to signs)
Eigen::MatrixXd haar(std::size_t n, std::size_t m, Gauss& g) {
  Eigen::MatrixXd A(n, m);
  for (Eigen::Index j = 0; j < A.cols(); ++j)
    for (Eigen::Index i = 0; i < A.rows(); ++i) A(i, j) = g.normal();
  return Eigen::HouseholderQR<Eigen::MatrixXd>(A).householderQ() * Eigen::MatrixXd::Identity(n, m);
}

struct LsInst {
  std::size_t T = 0, dk = 0, dv = 0;
  KG kg = KG::g1;
  DM Q, V, K;                 // keys K (exact doubles), or
  DM U, W;                    // G2 factors: K = U diag(sig) W^T with U (T x r), W (D_k x r) re-orthonormalised in MP
  std::vector<double> sig;    // the r nonzero singular values
  bool factored = false;
  std::size_t dup_a = 0, dup_b = 0;  // 1-based duplicated rows (G3), 0 if none
  u64 seed = 0;
  std::string desc;
  // keys at the current digits (G2: exactly the prescribed spectrum, to the working precision)
  MM keys() const {
    if (!factored) return to_mp(K);
    const MM Um = linattn::orthonormal_columns<mp_t>(U), Wm = linattn::orthonormal_columns<mp_t>(W);
    MM out(T, dk);
    for (std::size_t j = 0; j < sig.size(); ++j) {
      const mp_t s(sig[j]);
      for (std::size_t i = 0; i < T; ++i) {
        const mp_t us = Um(i, j) * s;
        for (std::size_t l = 0; l < dk; ++l) ref::muladd(out(i, l), us, Wm(l, j));
      }
    }
    return out;
  }
  DM keys_d() const {
    if (!factored) return K;
    DM out(T, dk);
    for (std::size_t j = 0; j < sig.size(); ++j)
      for (std::size_t i = 0; i < T; ++i)
        for (std::size_t l = 0; l < dk; ++l) out(i, l) += U(i, j) * sig[j] * W(l, j);
    return out;
  }
};
// param: G1 log10 key scale; G2 equal: the common value; G2 zeros: 1 -> nonzero sigma all one, else U(0.5, 2);
// G3 near: k of the distance 10^-k; G4: rho
LsInst make_inst(u64 seed, std::size_t T, std::size_t dk, std::size_t dv, KG kg, double param) {
  Gauss g(seed);
  LsInst in;
  in.T = T;
  in.dk = dk;
  in.dv = dv;
  in.kg = kg;
  in.seed = seed;
  in.Q = gauss_matrix(T, dk, g);
  in.V = gauss_matrix(T, dv, g);
  std::string d = sz(T, dk, dv) + " " + kg_name(kg);
  switch (kg) {
    case KG::g1:
      in.K = gauss_matrix(T, dk, g, std::pow(10.0, param));
      if (param != 0) d += " keys x10^" + fmt(param);
      break;
    case KG::g4: {
      in.K = DM(T, dk);
      for (std::size_t i = 0; i < T; ++i) {
        const double w = g.normal();
        for (std::size_t j = 0; j < dk; ++j) in.K(i, j) = std::sqrt(1 - param) * g.normal() + std::sqrt(param) * w;
      }
      d += " rho=" + fmt(param);
      break;
    }
    case KG::g3_dup:
    case KG::g3_near: {
      in.K = gauss_matrix(T, dk, g);
      if (T >= 2) {
        // exact duplicates are the first two keys (the prefix t = 2 is rank-deficient); near-duplicates are spread out
        const std::size_t a = kg == KG::g3_dup ? 0 : T / 3, b = kg == KG::g3_dup ? 1 : std::max(a + 1, (2 * T) / 3);
        for (std::size_t j = 0; j < dk; ++j) in.K(b, j) = in.K(a, j) + (kg == KG::g3_near ? std::pow(10.0, -param) * g.normal() : 0.0);
        in.dup_a = a + 1;
        in.dup_b = b + 1;
        d += " key " + std::to_string(b + 1) + " = key " + std::to_string(a + 1) + (kg == KG::g3_near ? " + 1e-" + fmt(param) + " N(0,1)" : "");
      }
      break;
    }
    default: {  // G2
      const std::size_t m = std::min(T, dk);
      const Eigen::MatrixXd U = haar(T, m, g), W = haar(dk, m, g);
      std::vector<double> s(m);
      for (std::size_t j = 0; j < m; ++j) {
        switch (kg) {
          case KG::g2_loguniform: s[j] = std::pow(10.0, -8.0 + 11.0 * g.uniform()); break;
          case KG::g2_equal: s[j] = param; break;
          case KG::g2_ones: s[j] = 1.0; break;
          case KG::g2_clustered: s[j] = 2.0 * (1 + 1e-6 * g.normal()); break;
          default: s[j] = param == 1 ? 1.0 : 0.5 + 1.5 * g.uniform();
        }
      }
      std::size_t r = m;
      if (kg == KG::g2_zeros) r = m - std::max<std::size_t>(1, m / 2);
      in.U = DM(T, r);
      in.W = DM(dk, r);
      in.sig.assign(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(r));
      for (std::size_t j = 0; j < r; ++j) {
        for (std::size_t i = 0; i < T; ++i) in.U(i, j) = U(i, j);
        for (std::size_t i = 0; i < dk; ++i) in.W(i, j) = W(i, j);
      }
      in.factored = true;
      if (kg == KG::g2_equal) d += " (" + fmt(param) + ")";
      if (kg == KG::g2_zeros) d += " (rank " + std::to_string(r) + " of " + std::to_string(m) + (param == 1 ? ", nonzero sigma = 1)" : ")");
    }
  }
  in.desc = d + " seed " + linattn::hex(seed);
  return in;
}

// cond of an instance's keys (all T rows) and the worst cond over their prefixes, evaluated at d digits
double keys_cond(const LsInst& in, unsigned d) {
  MpDigitsScope sc(d);
  return mp_cond(in.keys()).cond;
}
double keys_worst_prefix_cond(const LsInst& in, unsigned d) {
  MpDigitsScope sc(d);
  return worst_prefix_cond(in.keys());
}

// ---- fp64 least squares ---------------------------------------------------------------------------------

using claim_support::to_eigen;  // eigen_bridge.hpp
// M = V^T (K^+)^T (fp64, min-norm LS by complete orthogonal decomposition)
Eigen::MatrixXd ls_fp64(const Eigen::MatrixXd& K, const Eigen::MatrixXd& V) {
  return Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(K).solve(V).transpose();
}
// sigma_1 / sigma_min(t, cols) of the prefix X_t in fp64 (Eigen JacobiSVD; INFINITY when singular, 1 for a zero matrix)
double cond_fp64_prefix(const DM& X, std::size_t t) {
  Eigen::MatrixXd A(t, X.cols);
  for (std::size_t i = 0; i < t; ++i)
    for (std::size_t j = 0; j < X.cols; ++j) A(i, j) = X(i, j);
  const Eigen::VectorXd sv = Eigen::JacobiSVD<Eigen::MatrixXd>(A).singularValues();
  if (sv.size() == 0 || !(sv(0) > 0)) return 1.0;
  const double smin = sv(sv.size() - 1);
  return smin > 0 ? sv(0) / smin : INFINITY;
}
// fp64 estimate of the worst cond(X_t) over the prefixes t (all, or the listed ones), used only to choose the
// P-scaled digits: a prefix that is singular in fp64 (sigma_min <= 1e-15 sigma_1) counts as cond 1e16 (the MP
// rank decision then sees its exact rank; digits d + 36 resolve cond up to ~1e20)
double cond_fp64_prefixes(const DM& X, const std::vector<std::size_t>* ts = nullptr) {
  double worst = 1;
  auto one = [&](std::size_t t) {
    const double c = cond_fp64_prefix(X, t);
    worst = std::max(worst, c >= 1e15 ? 1e16 : c);
  };
  if (ts)
    for (std::size_t t : *ts) one(t);
  else
    for (std::size_t t = 1; t <= X.rows; ++t) one(t);
  return worst;
}

// ---- weighted LS: gates, conditioning of Gamma_t^{1/2} K_t ------------------------------------------------

// the G5 gate kinds of the WLS items (A001 C8): kA001Gates plus gates sigmoid(linear(x))
const std::vector<linattn::G5> kGates = {linattn::G5::uniform, linattn::G5::corners,  linattn::G5::mixed_zeros, linattn::G5::beta51,
                                         linattn::G5::constant, linattn::G5::ones,    linattn::G5::all_zero,    linattn::G5::logit};

// P-scaled digits of a weighted prefix: d + 10 + f ceil(lc)
unsigned pdigits(unsigned d, double lc, int f) { return d + 10 + static_cast<unsigned>(f) * static_cast<unsigned>(std::ceil(std::max(0.0, lc))); }

// log-gates in double (for the precision estimates only): -inf for a zero gate
std::vector<double> log_gates_d(const linattn::Gates& g) {
  std::vector<double> l(g.v.size());
  for (std::size_t t = 0; t < l.size(); ++t) l[t] = g.logit ? ref::log_sigmoid(g.v[t]) : ref::log_gate(g.v[t]);
  return l;
}

// Conditioning of a weighted prefix (A001 C7 P-scaled): the keys with a non-zero weight and key, their rank and
// condition over the non-zero singular values (MP SVD at 40 digits of the double keys; rank threshold 1e-25),
// and the spread of their weights.
struct PrefixCond {
  std::size_t active = 0;  // keys with a non-zero weight and a non-zero key
  std::size_t rank = 0;    // rank of those keys (= rank Gamma_t^{1/2} K_t)
  double lc = 0;           // log10 of the bound kappa_t on cond(Gamma^{1/2} K_t)
  double l10_wmin = 0, l10_wmax = 0, l10_s1 = 0, l10_sr = 0;
  bool zero_w = false;     // some weight gamma_i^(t) is exactly 0
};
PrefixCond prefix_cond(const DM& K, const std::vector<double>& lgd, std::size_t t) {
  PrefixCond pc;
  std::vector<std::size_t> rows;
  std::vector<double> l10w;
  for (std::size_t i = 0; i < t; ++i) {
    double seg = 0;
    for (std::size_t j = i + 1; j < t; ++j) seg += lgd[j];
    if (std::isinf(seg)) {
      pc.zero_w = true;
      continue;
    }
    bool nz = false;
    for (std::size_t c = 0; c < K.cols; ++c) nz = nz || K(i, c) != 0.0;
    if (!nz) continue;
    rows.push_back(i);
    l10w.push_back(seg / std::log(10.0));
  }
  pc.active = rows.size();
  if (rows.empty()) return pc;
  pc.l10_wmin = *std::min_element(l10w.begin(), l10w.end());
  pc.l10_wmax = *std::max_element(l10w.begin(), l10w.end());
  MpDigitsScope sc(40);
  MM Ka(rows.size(), K.cols);
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t c = 0; c < K.cols; ++c) Ka(r, c) = mp_t(K(rows[r], c));
  const MV sv = ref::svd(Ka).sigma;
  for (const mp_t& s : sv)
    if (s > mp_t(1e-25) * sv[0]) ++pc.rank;
  pc.l10_s1 = lg(sv[0]);
  pc.l10_sr = lg(sv[pc.rank - 1]);
  pc.lc = (pc.l10_s1 - pc.l10_sr) + 0.5 * (pc.l10_wmax - pc.l10_wmin);
  return pc;
}

// digits cap of the P-scaled WLS prefixes (more are skipped and counted)
unsigned digit_cap(const CheckConfig& cfg) { return cfg.quick ? 600u : 1000u; }

// G2 keys of the WLS items: K = U diag(sigma) W^T (T x D_k, rank <= min(T, D_k)) with a spectrum drawn from four
// profiles (log-uniform [1e-8, 1e3]; all one; clustered 1 + 1e-3 N; log-uniform [1e-2, 1e1] with one exact zero,
// unless allow_zero_sigma is false); desc receives the profile
DM g2_keys(linattn::Gen& g, std::size_t T, std::size_t dk, std::string& desc, bool allow_zero_sigma = true) {
  const std::size_t m = std::min(T, dk);
  const DM U = linattn::orthonormal_columns<double>(g.gauss(T, m)), W = linattn::orthonormal_columns<double>(g.gauss(dk, m));
  std::vector<double> s(m);
  const double u = g.unif();
  if (u < 0.5) {
    for (double& x : s) x = std::pow(10.0, -8.0 + 11.0 * g.unif());
    desc = "G2 sigma log-uniform [1e-8,1e3]";
  } else if (u < 0.65) {
    for (double& x : s) x = 1.0;
    desc = "G2 sigma = 1";
  } else if (u < 0.8 || !allow_zero_sigma || m < 2) {
    for (double& x : s) x = 1.0 + 1e-3 * g.normal();
    desc = "G2 sigma clustered 1 + 1e-3 N";
  } else {
    for (double& x : s) x = std::pow(10.0, -2.0 + 3.0 * g.unif());
    s[m - 1] = 0.0;
    desc = "G2 sigma log-uniform [1e-2,1e1] with one exact zero";
  }
  DM K(T, dk);
  for (std::size_t i = 0; i < T; ++i)
    for (std::size_t j = 0; j < dk; ++j) {
      double acc = 0;
      for (std::size_t r = 0; r < m; ++r) acc += U(i, r) * s[r] * W(j, r);
      K(i, j) = acc;
    }
  return K;
}

// memo of an instance evaluation per working digits (several statistics from one pass)
template <class R> class Memo {
 public:
  explicit Memo(std::function<R(unsigned)> f) : f_(std::move(f)) {}
  const R& at(unsigned d) {
    auto it = m_.find(d);
    if (it == m_.end()) it = m_.emplace(d, f_(d)).first;
    return it->second;
  }

 private:
  std::function<R(unsigned)> f_;
  std::map<unsigned, R> m_;
};

// |a - b| / |b| (0 when a == b, in particular both 0; inf when b == 0 != a)
double relerr(const mp_t& a, const mp_t& b) {
  if (a == b) return 0;
  if (b == 0) return INFINITY;
  return nan_inf(to_d(mp_t(abs(mp_t(a - b)) / abs(b))));
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::lsq
