// Helpers shared by the claim checks of paper A001's regression items (not a public header):
//   namespace regression             seeds, sizes and digit helpers of full_batch_gd.cpp, newton_step.cpp and
//                                    kernel_regression.cpp; key matrices of prescribed spectrum
//                                    K = U diag(sigma) W^T (also the norm-bound generators); the G1 / G2 / G4
//                                    key sets of the full-batch GD and Newton files;
//   namespace regression::norm_bound the instance set, precision choice, R-BOUND bookkeeping and adversarial
//                                    search (random restarts + claim_support::nelder_mead) shared by
//                                    norm_bound.cpp (Eq. 13 and its alternative, the Appendix A composite) and
//                                    appendix_a_steps.cpp (steps (60)-(67)).
// As in claim_support.hpp the helpers have internal linkage (unnamed namespaces) and no `inline` hints,
// exactly like the per-file copies they replace, so every claim's figures stay bit-identical.
#pragma once

#include "recall/proofs/ledger.hpp"
#include "recall/reference/matrix.hpp"
#include "recall/reference/norm_bound.hpp"
#include "recall/reference/svd.hpp"
#include "adversarial_search.hpp"
#include "claim_support.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

namespace recall::claim_support::regression {
namespace {

using ref::Matrix;
using ref::Vector;
using u64 = std::uint64_t;

// ---------------------------------------------------------------------------------------------
// seeds, sizes, digits
// ---------------------------------------------------------------------------------------------

u64 inst_seed(const CheckConfig& cfg, const char* tag, u64 n) { return mix(tag_seed(cfg.seed, tag), n); }
std::string seed_note(const CheckConfig& cfg, const char* tag) {
  return "instance seeds mix(tag_seed(" + std::to_string(cfg.seed) + ", \"" + tag + "\"), n), Box-Muller on std::mt19937_64";
}
std::string sz(std::size_t dk, std::size_t dv, std::size_t T) {
  return "D_k=" + std::to_string(dk) + " D_v=" + std::to_string(dv) + " T=" + std::to_string(T);
}
mp_t pow10(int k) { return boost::multiprecision::pow(mp_t(10), k); }
unsigned ceil_pos(double x) { return x > 0 ? static_cast<unsigned>(std::ceil(x)) : 0u; }

// K = U diag(sigma) W^T (t x D_k) with U (t x r) and W (D_k x r) orthonormal columns, r = sigma.size()
DM spectrum_keys(const DM& U, const DM& W, const std::vector<double>& sigma) {
  DM K(U.rows, W.rows);
  for (std::size_t i = 0; i < U.rows; ++i)
    for (std::size_t j = 0; j < W.rows; ++j) {
      double s = 0;
      for (std::size_t r = 0; r < sigma.size(); ++r) s += U(i, r) * sigma[r] * W(j, r);
      K(i, j) = s;
    }
  return K;
}

// ---------------------------------------------------------------------------------------------
// key sets of the full-batch GD and Newton items (double data, converted exactly to mp_t inside
// each residual callback)
// ---------------------------------------------------------------------------------------------

struct Dims {
  std::size_t dk, dv, T;
};
// A001 C8 G1 sizes, smallest first (t runs over 1..T inside each instance, so t < D_k is included)
std::vector<Dims> grid(const CheckConfig& cfg) {
  std::vector<Dims> s = {{1, 1, 3}, {2, 1, 4}, {3, 2, 6}, {4, 3, 8}};
  if (!cfg.quick) {
    s.push_back({8, 3, 20});
    s.push_back({16, 5, 40});
  }
  return s;
}
std::string grid_desc(const CheckConfig& cfg) {
  return std::string("G1 (D_k,D_v,T) in (1,1,3),(2,1,4),(3,2,6),(4,3,8)") + (cfg.quick ? "" : ",(8,3,20),(16,5,40)");
}

// Key generators (A001 C8): G1 Gaussian (scaled by 1, D_k^-1/2 or 10^a, a in [-3,3]); G2 prescribed spectrum
// K = U diag(sigma) W^T with Haar U, W; G2 rank-deficient as an exact product A B (formed in mp); G4 equicorrelated.
enum class KG { g1, g2_logu, g2_narrow, g2_equal, g2_ones, g2_clustered, g2_rankdef, g4 };
struct KeyInst {
  std::size_t t = 0, dk = 0, dv = 0;
  DM K, A, B, V;
  bool factored = false;
  std::string desc;
};
DM haar_columns(std::size_t n, std::size_t r, Gauss& g) {  // n x r with orthonormal columns (QR of a Gaussian)
  Eigen::MatrixXd X(n, r);
  for (std::size_t i = 0; i < n * r; ++i) X.data()[i] = g.normal();
  const Eigen::MatrixXd Qm = Eigen::HouseholderQR<Eigen::MatrixXd>(X).householderQ() * Eigen::MatrixXd::Identity(n, r);
  DM out(n, r);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < r; ++j) out(i, j) = Qm(i, j);
  return out;
}
KeyInst make_keys(KG kind, std::size_t t, std::size_t dk, std::size_t dv, u64 seed, double param = 0) {
  Gauss g(seed);
  KeyInst in;
  in.t = t;
  in.dk = dk;
  in.dv = dv;
  switch (kind) {
    case KG::g1: {
      // param: 0 unscaled, 1 D_k^-1/2, 2 10^a with a ~ U(-3,3)
      double sc = 1;
      std::string d = "G1 keys x1";
      if (param == 1) {
        sc = 1.0 / std::sqrt(static_cast<double>(dk));
        d = "G1 keys x D_k^-1/2";
      } else if (param == 2) {
        const double a = -3.0 + 6.0 * g.uniform();
        sc = std::pow(10.0, a);
        d = "G1 keys x 10^" + fmt(a, 3);
      }
      in.K = gauss_matrix(t, dk, g, sc);
      in.desc = d;
      break;
    }
    case KG::g2_logu:
    case KG::g2_narrow:
    case KG::g2_equal:
    case KG::g2_ones:
    case KG::g2_clustered: {
      const std::size_t r = std::min(t, dk);
      const DM U = haar_columns(t, r, g), W = haar_columns(dk, r, g);
      std::vector<double> s(r);
      const double c = 0.5 + g.uniform();
      for (std::size_t i = 0; i < r; ++i) {
        const double u = g.uniform();
        switch (kind) {
          case KG::g2_logu: s[i] = std::pow(10.0, -8.0 + 11.0 * u); break;
          case KG::g2_narrow: s[i] = std::pow(10.0, -0.5 + 1.0 * u); break;
          case KG::g2_equal: s[i] = c; break;
          case KG::g2_ones: s[i] = 1.0; break;
          default: s[i] = c * (1.0 + 1e-3 * g.normal()); break;
        }
      }
      in.K = spectrum_keys(U, W, s);
      in.desc = kind == KG::g2_logu      ? "G2 sigma log-uniform [1e-8,1e3]"
                : kind == KG::g2_narrow  ? "G2 sigma log-uniform [10^-0.5,10^0.5]"
                : kind == KG::g2_equal   ? "G2 sigma all equal (" + fmt(c) + ")"
                : kind == KG::g2_ones    ? "G2 sigma all one"
                                         : "G2 sigma clustered " + fmt(c) + "(1 + 1e-3 N)";
      break;
    }
    case KG::g2_rankdef: {
      const std::size_t r = std::max<std::size_t>(1, std::min(t, dk) - 1);
      in.A = gauss_matrix(t, r, g);
      in.B = gauss_matrix(r, dk, g);
      in.factored = true;
      in.desc = "G2 rank " + std::to_string(r) + " (exact zeros: K = A B formed in mp)";
      break;
    }
    case KG::g4: {
      // equicorrelated N(0, Sigma_rho): k = sqrt(1 - rho) z + sqrt(rho) w 1
      const double rho = param;
      in.K = DM(t, dk);
      for (std::size_t i = 0; i < t; ++i) {
        const double w = g.normal();
        for (std::size_t j = 0; j < dk; ++j) in.K(i, j) = std::sqrt(1 - rho) * g.normal() + std::sqrt(rho) * w;
      }
      in.desc = "G4 equicorrelated rho=" + fmt(rho);
      break;
    }
  }
  in.V = gauss_matrix(t, dv, g);
  in.desc = sz(dk, dv, t) + " " + in.desc + " seed " + std::to_string(seed);
  return in;
}

}  // namespace

// =============================================================================================
// norm_bound.cpp and appendix_a_steps.cpp
// =============================================================================================
namespace norm_bound {
namespace {

using VD = std::vector<double>;

constexpr const char* kInstTag = "A001-NORM-BOUND-INSTANCES";

std::string hexs(u64 x) {
  std::ostringstream s;
  s << "0x" << std::hex << x;
  return s.str();
}
std::string g17(double x) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}
double tol_at(unsigned d) { return std::pow(10.0, -(static_cast<double>(d) - 10.0)); }

// ---------------------------------------------------------------------------------------------
// instances
// ---------------------------------------------------------------------------------------------

enum class QKind { given, zero, top };
const char* qkind_name(QKind k) { return k == QKind::given ? "random" : k == QKind::zero ? "zero" : "top-singular"; }

struct Inst {
  std::string gen;   // key generator (distribution bucket)
  std::string vals;  // value kind
  std::string desc;  // full description (sizes, generator, value / query kinds, seed)
  DM K, V;
  VD q;
  QKind qk = QKind::given;
  bool adversarial = false;
};

// Student-t with 2 degrees of freedom: Z / sqrt(chi2_2 / 2), chi2_2 / 2 = -ln U
double student_t2(Gauss& g) {
  const double z = g.normal();
  return z / std::sqrt(-std::log(g.uniform()));
}
// m x n with orthonormal columns (m >= n): modified Gram-Schmidt of a Gaussian matrix (Haar)
DM haar_cols(Gauss& g, std::size_t m, std::size_t n) {
  DM A = gauss_matrix(m, n, g);
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t p = 0; p < j; ++p) {
      double c = 0;
      for (std::size_t i = 0; i < m; ++i) c += A(i, p) * A(i, j);
      for (std::size_t i = 0; i < m; ++i) A(i, j) -= c * A(i, p);
    }
    double s = 0;
    for (std::size_t i = 0; i < m; ++i) s += A(i, j) * A(i, j);
    s = std::sqrt(s);
    for (std::size_t i = 0; i < m; ++i) A(i, j) /= s;
  }
  return A;
}

enum class Gen { tight, g1, g1_scaled, g2_loguniform, g2_equal, g2_ones, g2_clustered, g2_zero_sigma, g2_dup_col, g1_short, g4_equi, g4_ar1 };
const char* gen_name(Gen g) {
  switch (g) {
    case Gen::tight: return "tight-family";
    case Gen::g1: return "G1";
    case Gen::g1_scaled: return "G1-scaled";
    case Gen::g2_loguniform: return "G2-loguniform";
    case Gen::g2_equal: return "G2-equal";
    case Gen::g2_ones: return "G2-ones";
    case Gen::g2_clustered: return "G2-clustered";
    case Gen::g2_zero_sigma: return "G2-zero-sigma";
    case Gen::g2_dup_col: return "G2-rank-deficient";
    case Gen::g1_short: return "G1-t<D_k";
    case Gen::g4_equi: return "G4-equicorrelated";
    case Gen::g4_ar1: return "G4-AR1";
  }
  return "?";
}
struct Spec {
  Gen gen;
  std::size_t dk, dv, t;
  double param = 0;  // G1-scaled: 0 -> D_k^-1/2, else exponent a of 10^a; G2: log10 sigma_min (<= 0); G4: rho / phi
};

// One instance from its spec, value kind vk (0 Gaussian, 1 Student-t(2), 2 aligned, 3 anti-aligned) and
// query kind qk, drawn from the instance seed s.
Inst make_instance(const Spec& sp, int vk, QKind qk, u64 s) {
  Gauss g(s);
  Inst in;
  in.gen = gen_name(sp.gen);
  const std::size_t t = sp.t, dk = sp.dk, dv = sp.dv;
  std::string gp;
  switch (sp.gen) {
    case Gen::tight: break;  // below (keys, values and query together)
    case Gen::g1:
    case Gen::g1_short: in.K = gauss_matrix(t, dk, g); break;
    case Gen::g1_scaled: {
      const double sc = sp.param == 0 ? 1.0 / std::sqrt(static_cast<double>(dk)) : std::pow(10.0, sp.param);
      in.K = gauss_matrix(t, dk, g, sc);
      gp = sp.param == 0 ? " scale D_k^-1/2" : " scale 10^" + fmt(sp.param, 3);
      break;
    }
    case Gen::g2_loguniform:
    case Gen::g2_equal:
    case Gen::g2_ones:
    case Gen::g2_clustered:
    case Gen::g2_zero_sigma: {
      const DM U = haar_cols(g, t, dk), W = haar_cols(g, dk, dk);
      VD sig(dk);
      const double smin = std::pow(10.0, sp.param);
      for (std::size_t r = 0; r < dk; ++r) {
        switch (sp.gen) {
          case Gen::g2_loguniform: sig[r] = r == 0 ? smin : std::pow(10.0, sp.param + (3.0 - sp.param) * g.uniform()); break;
          case Gen::g2_equal: sig[r] = smin; break;
          case Gen::g2_ones: sig[r] = 1.0; break;
          case Gen::g2_clustered: sig[r] = smin * (1.0 + 1e-3 * r * g.uniform()); break;
          default: sig[r] = r == 0 ? 0.0 : std::pow(10.0, 3.0 * g.uniform()); break;  // exact zero, rounded to double in K
        }
      }
      in.K = spectrum_keys(U, W, sig);
      gp = sp.gen == Gen::g2_zero_sigma ? " sigma_min = 0 before rounding K to double"
           : sp.gen == Gen::g2_ones     ? ""
                                        : " sigma_min = 10^" + fmt(sp.param, 3);
      break;
    }
    case Gen::g2_dup_col: {
      in.K = gauss_matrix(t, dk, g);
      for (std::size_t i = 0; i < t; ++i) in.K(i, dk - 1) = in.K(i, 0);  // column D_k = column 1: rank D_k - 1
      gp = " column D_k = column 1";
      break;
    }
    case Gen::g4_equi: {  // k ~ N(0, (1 - rho) I + rho 1 1^T)
      in.K = DM(t, dk);
      for (std::size_t i = 0; i < t; ++i) {
        const double w = g.normal();
        for (std::size_t j = 0; j < dk; ++j) in.K(i, j) = std::sqrt(1 - sp.param) * g.normal() + std::sqrt(sp.param) * w;
      }
      gp = " rho=" + fmt(sp.param, 3);
      break;
    }
    case Gen::g4_ar1: {  // k_i = phi k_{i-1} + sqrt(1 - phi^2) z_i
      in.K = DM(t, dk);
      for (std::size_t j = 0; j < dk; ++j) in.K(0, j) = g.normal();
      for (std::size_t i = 1; i < t; ++i)
        for (std::size_t j = 0; j < dk; ++j) in.K(i, j) = sp.param * in.K(i - 1, j) + std::sqrt(1 - sp.param * sp.param) * g.normal();
      gp = " phi=" + fmt(sp.param, 3);
      break;
    }
  }
  if (sp.gen == Gen::tight) {
    // Equality case of Eq. (13) for every D_k (constructed): k_1 = e_1, the other keys c_i e_j (j >= 2, cycling; along e_1
    // when D_k = 1) with c_i in [1, 3), v_1 = u and v_i = 0 for i >= 2, q = e_1; then lambda_min(S) = 1 (D_k >= 2) with
    // eigenvector e_1, A = u e_1^T and ||y|| = ||u|| = bound. Everything is rotated by a Haar W (K <- K W^T, q <- W e_1).
    const DM W = haar_cols(g, dk, dk);
    DM K0(t, dk);
    K0(0, 0) = 1.0;
    for (std::size_t i = 1; i < t; ++i) K0(i, dk == 1 ? 0 : 1 + (i - 1) % (dk - 1)) = 1.0 + 2.0 * g.uniform();
    in.K = DM(t, dk);
    for (std::size_t i = 0; i < t; ++i)
      for (std::size_t j = 0; j < dk; ++j) {
        double acc = 0;
        for (std::size_t r = 0; r < dk; ++r) acc += K0(i, r) * W(j, r);
        in.K(i, j) = acc;
      }
    in.V = DM(t, dv);
    for (std::size_t j = 0; j < dv; ++j) in.V(0, j) = g.normal();
    in.q.resize(dk);
    for (std::size_t j = 0; j < dk; ++j) in.q[j] = W(j, 0);
    in.qk = QKind::given;
    in.vals = "v_1 only";
    in.desc = std::string(in.gen) + " (equality case, rotated) D_k=" + std::to_string(dk) + " D_v=" + std::to_string(dv) + " t=" + std::to_string(t) +
              " q=W e_1 inst_seed=" + hexs(s);
    return in;
  }
  static const char* vnames[4] = {"gauss", "student-t2", "aligned", "anti-aligned"};
  in.vals = vnames[vk];
  in.V = DM(t, dv);
  if (vk <= 1) {
    for (double& x : in.V.a) x = vk == 0 ? g.normal() : student_t2(g);
  } else {  // v_i = +-|c_i| u with one direction u
    VD u(dv);
    for (double& x : u) x = g.normal();
    for (std::size_t i = 0; i < t; ++i) {
      const double c = std::abs(g.normal()) * (vk == 3 && i % 2 == 1 ? -1.0 : 1.0);
      for (std::size_t j = 0; j < dv; ++j) in.V(i, j) = c * u[j];
    }
  }
  in.q.resize(dk);
  for (double& x : in.q) x = g.normal();
  in.qk = qk;
  in.desc = std::string(in.gen) + gp + " D_k=" + std::to_string(dk) + " D_v=" + std::to_string(dv) + " t=" + std::to_string(t) +
            " values=" + in.vals + " q=" + qkind_name(qk) + " inst_seed=" + hexs(s);
  return in;
}

// The shared instance set (smallest first within each generator).
std::vector<Inst> make_instances(const CheckConfig& cfg) {
  std::vector<Spec> specs = {
      {Gen::tight, 4, 2, 6}, {Gen::g1, 1, 1, 1},  {Gen::g1, 2, 3, 5},   {Gen::g1, 3, 2, 3},   {Gen::g1, 4, 5, 11}, {Gen::g1, 8, 2, 20},
      {Gen::g1_scaled, 2, 2, 6, 0}, {Gen::g1_scaled, 3, 1, 7, -2.6}, {Gen::g1_scaled, 4, 3, 4, 2.8},
      {Gen::g2_loguniform, 2, 1, 2, -1.5}, {Gen::g2_loguniform, 3, 2, 3, -6}, {Gen::g2_loguniform, 4, 3, 5, -4},
      {Gen::g2_loguniform, 8, 2, 24, -5}, {Gen::g2_loguniform, 6, 3, 6, -3},
      {Gen::g2_equal, 3, 2, 6, -2}, {Gen::g2_ones, 4, 2, 4}, {Gen::g2_clustered, 5, 3, 10, -3},
      {Gen::g2_zero_sigma, 3, 2, 5}, {Gen::g2_dup_col, 3, 2, 6}, {Gen::g1_short, 4, 2, 2},
      {Gen::g4_equi, 2, 2, 4, 0}, {Gen::g4_equi, 3, 1, 9, 0.5}, {Gen::g4_equi, 4, 3, 8, 0.9}, {Gen::g4_equi, 8, 2, 16, 0.99},
      {Gen::g4_ar1, 3, 2, 12, 0.9}, {Gen::g4_ar1, 4, 1, 16, 0.99},
  };
  // quick set: D_k <= 8 (an MP instance at D_k = 16 costs ~0.2 s per claim); the full campaign adds 16 rounds of random
  // sizes per generator: D_k in {1,2,3,4,8} (round 2: D_k = 16 for every generator), D_v in {1,2,3,5}, t in [D_k, 4 D_k]
  // (t = D_k every 4th round)
  if (!cfg.quick) {
    Gauss g(tag_seed(cfg.seed, std::string(kInstTag) + "/full-sizes"));
    const std::size_t dks[5] = {1, 2, 3, 4, 8}, dvs[4] = {1, 2, 3, 5};
    const Gen gens[10] = {Gen::g1, Gen::g1_scaled, Gen::g2_loguniform, Gen::g2_equal, Gen::g2_ones, Gen::g2_clustered, Gen::g2_zero_sigma,
                          Gen::g4_equi, Gen::g4_ar1, Gen::g1};
    const double rhos[4] = {0, 0.5, 0.9, 0.99};
    for (std::size_t dk : {2, 3, 8, 16}) specs.push_back({Gen::tight, dk, 1 + dk % 3, dk + dk / 2});
    for (int rep = 0; rep < 16; ++rep)
      for (Gen gen : gens) {
        std::size_t dk = dks[std::min<std::size_t>(4, static_cast<std::size_t>(g.uniform() * 5))];  // D_k = 16: the rep == 1 round only
        const std::size_t dv = dvs[std::min<std::size_t>(3, static_cast<std::size_t>(g.uniform() * 4))];
        std::size_t t = dk + static_cast<std::size_t>(g.uniform() * (3 * dk + 1));
        if (rep == 1) dk = 16, t = 16 + static_cast<std::size_t>(g.uniform() * 49);
        if (rep % 4 == 0) t = dk;  // the square case t = D_k
        Spec sp{gen, dk, dv, t};
        if (gen == Gen::g1_scaled) sp.param = rep % 3 == 0 ? 0.0 : -3 + 6 * g.uniform();
        if (gen == Gen::g2_loguniform || gen == Gen::g2_equal || gen == Gen::g2_clustered) sp.param = rep == 0 ? -6.0 : -6.0 * g.uniform();
        if (gen == Gen::g4_equi) sp.param = rhos[rep % 4];
        if (gen == Gen::g4_ar1) sp.param = rep % 2 ? 0.99 : 0.9;
        specs.push_back(sp);
      }
  }
  std::vector<Inst> out;
  const u64 base = tag_seed(cfg.seed, kInstTag);
  for (std::size_t n = 0; n < specs.size(); ++n) {
    const int vk = static_cast<int>(n % 4);
    const QKind qk = n % 3 == 0 ? QKind::given : n % 3 == 1 ? QKind::top : QKind::zero;
    out.push_back(make_instance(specs[n], vk, qk, mix(base, n)));
  }
  return out;
}

// The instance's numbers, for the witness of an adversarial candidate (empty when there are more than 80).
std::string instance_data(const Inst& in) {
  if (in.K.a.size() + in.V.a.size() + in.q.size() > 80) return "";
  auto mat = [](const DM& M) {
    std::string s = "[";
    for (std::size_t i = 0; i < M.rows; ++i) {
      s += i ? "; " : "";
      for (std::size_t j = 0; j < M.cols; ++j) s += (j ? " " : "") + g17(M(i, j));
    }
    return s + "]";
  };
  std::string s = "K = " + mat(in.K) + ", V = " + mat(in.V) + ", q = [";
  for (std::size_t j = 0; j < in.q.size(); ++j) s += (j ? " " : "") + g17(in.q[j]);
  return s + "]";
}

// ---------------------------------------------------------------------------------------------
// precision: rank decision and P-scaled digits
// ---------------------------------------------------------------------------------------------

struct Prep {
  bool excluded = false;
  std::string why;
  double cond = 1;
  double lambda_min = NAN;  // sigma_min(K)^2 (double, or from the d-digit SVD), for the evidence
  unsigned extra = 10;      // working digits = d + extra
};
// cond(K) from a double SVD (from an SVD at d digits when the double one cannot resolve sigma_min);
// rank K < D_k (t < D_k, or sigma_min <= 10^-(d-10) sigma_max at d digits) excludes the instance.
Prep prepare(const DM& K, unsigned d) {
  Prep p;
  if (K.rows < K.cols) {
    p.excluded = true;
    p.why = "t < D_k: rank K < D_k, lambda_min(K^T K) = 0 (outside the assumption of Eq. 13)";
    return p;
  }
  const Vector<double> s = ref::singular_values(K);
  double smax = s.front(), smin = s.back();
  if (!(smin > 1e-12 * smax)) {
    MpDigitsScope sc(d);
    const Vector<mp_t> sm = ref::singular_values(to_mp(K));
    if (!(sm.front() > 0) || !(sm.back() > sm.front() * mp_t(tol_at(d)))) {
      p.excluded = true;
      p.why = "rank K < D_k (sigma_min <= 1e-" + std::to_string(d - 10) + " sigma_max at " + std::to_string(d) +
              " digits): lambda_min(K^T K) = 0, outside the assumption of Eq. 13";
      return p;
    }
    p.cond = to_d(mp_t(sm.front() / sm.back()));
    p.lambda_min = to_d(mp_t(sm.back() * sm.back()));
  } else {
    p.cond = smax / smin;
    p.lambda_min = smin * smin;
  }
  p.extra = 10 + 4 * static_cast<unsigned>(std::max(0.0, std::ceil(std::log10(std::max(1.0, p.cond)))));
  return p;
}

// The start of an MP observation o (fields excluded, why, digits) on an instance with prepare(K, d) = p: an
// instance outside the assumption sets o.excluded and o.why (returns false), else o.digits = d + p.extra.
template <class Obs> bool start_obs(Obs& o, const Prep& p, unsigned d) {
  if (p.excluded) {
    o.excluded = true;
    o.why = p.why;
    return false;
  }
  o.digits = d + p.extra;
  return true;
}

// relation defects computed in MP: (lhs - rhs) / rhs for "<=" (NaN-free: 0/0 -> -1, x/0 -> inf), and the
// scale-free |a - b| / max(|a|, |b|) for "=" (0 when both vanish)
double le_defect(const mp_t& lhs, const mp_t& rhs) {
  if (rhs > 0) return to_d(mp_t((lhs - rhs) / rhs));
  return lhs == 0 ? -1.0 : INFINITY;
}
double eq_defect(const mp_t& a, const mp_t& b) {
  const mp_t m = std::max(abs(a), abs(b));
  if (m == 0) return 0.0;
  return nan_inf(to_d(mp_t(abs(mp_t(a - b)) / m)));
}
double ratio_of(const mp_t& lhs, const mp_t& rhs) { return rhs > 0 ? to_d(mp_t(lhs / rhs)) : NAN; }

// the query of an instance at the working precision, given A_t (zero / top right-singular vector / as drawn)
Vector<mp_t> resolve_query(const Inst& in, const Matrix<mp_t>& A) {
  if (in.qk == QKind::zero) return Vector<mp_t>(in.K.cols, mp_t(0));
  if (in.qk == QKind::top) return ref::top_right_singular_vector(A);
  return to_mp(in.q);
}

// ---------------------------------------------------------------------------------------------
// R-BOUND bookkeeping
// ---------------------------------------------------------------------------------------------

struct BoundObs {
  double ratio = NAN;   // lhs / rhs (NaN when rhs = 0)
  double defect = 0;    // (lhs - rhs) / rhs in MP; fails when > 10^-(d-10)
  double lambda_min = NAN;
  unsigned digits = 0;  // working digits used
  bool excluded = false;
  std::string why;
  std::array<double, 4> aux{NAN, NAN, NAN, NAN};
};
using ObsFn = std::function<BoundObs(unsigned)>;

struct Dist {
  std::map<std::string, std::vector<double>> by;
  void add(const std::string& k, double r) {
    if (!std::isnan(r)) by[k].push_back(r);
  }
  std::string str() const {
    std::string s;
    for (auto [k, v] : by) {
      std::sort(v.begin(), v.end());
      auto qt = [&](double p) { return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5))]; };
      s += (s.empty() ? "" : "; ") + k + ": n=" + std::to_string(v.size()) + " min " + fmt(v.front()) + " median " + fmt(qt(0.5)) + " p90 " +
           fmt(qt(0.9)) + " max " + fmt(v.back(), 17);
    }
    return s.empty() ? "none" : s;
  }
};

class BoundTally {
 public:
  BoundTally(std::string statistic, unsigned digits) : stat_(std::move(statistic)), d_(digits) {}
  // returns the observation at d digits (excluded instances are counted apart)
  BoundObs add(const Inst& in, const std::string& bucket, const ObsFn& fn) {
    BoundObs o = fn(d_);
    if (o.excluded) {
      if (excluded_++ == 0) excluded_example_ = in.desc + " (" + o.why + ")";
      return o;
    }
    ++t_.n;
    dmin_ = std::min(dmin_, o.digits);
    dmax_ = std::max(dmax_, o.digits);
    if (std::isnan(o.ratio)) ++zero_rhs_;
    dist_.add(bucket, o.ratio);
    if (!std::isnan(o.ratio)) {
      auto it = by_dk_.find(in.K.cols);
      if (it == by_dk_.end() || o.ratio > it->second.first) by_dk_[in.K.cols] = {o.ratio, in.desc};
    }
    if (!std::isnan(o.ratio) && (t_.worst_desc.empty() || o.ratio > t_.worst)) {
      t_.worst = o.ratio;
      t_.worst_desc = in.desc;
      worst_data_ = instance_data(in);
      worst_defect_ = o.defect;
    }
    if (!(o.defect <= tol_at(d_)) && !t_.failed) {
      const BoundObs o2 = fn(2 * d_);
      if (!(o2.defect <= tol_at(2 * d_))) {
        t_.failed = true;
        t_.witness = in.desc;
        t_.witness_value = o.ratio;
        t_.witness_value_2x = "ratio " + fmt(o2.ratio, 17) + ", defect " + fmt(o2.defect) + " at " + std::to_string(o2.digits) + " digits";
        witness_data_ = instance_data(in);
      } else if (!t_.unconfirmed) {
        t_.unconfirmed = true;
        t_.witness = in.desc;
        t_.witness_value = o.ratio;
        t_.witness_value_2x = "ratio " + fmt(o2.ratio, 17) + ", defect " + fmt(o2.defect) + " at " + std::to_string(o2.digits) + " digits";
      }
    }
    return o;
  }
  ClaimResult result(const CheckConfig& cfg, const std::string& sizes) const {
    ClaimResult r;
    Evidence& e = r.evidence;
    e.statistic = stat_;
    e.threshold = 1.0;
    e.instances = t_.n;
    e.sizes = sizes;
    e.digits = d_;
    e.seed = cfg.seed;
    decide_doubled_digits(t_, d_, "witness at doubled digits", "", r);
    if (r.verdict == Verdict::holds)
      r.reason = "lhs <= rhs (1 + 1e-" + std::to_string(d_ - 10) + ") on all " + std::to_string(t_.n) +
                 " instances (generated and adversarial); largest ratio lhs/rhs " + fmt(t_.worst, 17);
    e.extra.emplace_back("R-BOUND tolerance", "lhs <= rhs (1 + 1e-" + std::to_string(d_ - 10) + "), defect (lhs - rhs)/rhs computed in MP");
    e.extra.emplace_back("largest ratio lhs/rhs (tightness, actual/bound)", fmt(t_.worst, 17) + " (defect " + fmt(worst_defect_) + ") at " + t_.worst_desc);
    if (!worst_data_.empty()) e.extra.emplace_back("largest-ratio instance data", worst_data_);
    if (!witness_data_.empty()) e.extra.emplace_back("violating instance data", witness_data_);
    {
      std::string s;
      for (const auto& [dk, v] : by_dk_) s += (s.empty() ? "" : "; ") + ("D_k=" + std::to_string(dk) + ": " + fmt(v.first, 17) + " at " + v.second);
      e.extra.emplace_back("largest ratio per D_k (D_k = 1, t = 1 attains 1 by construction)", s.empty() ? "none" : s);
    }
    e.extra.emplace_back("ratio distribution per generator (MP)", dist_.str());
    e.extra.emplace_back("working digits used",
                         t_.n ? std::to_string(dmin_) + " .. " + std::to_string(dmax_) + " at d = " + std::to_string(d_) : "none");
    if (zero_rhs_) e.extra.emplace_back("instances with rhs = 0 (zero query or zero values: 0 <= 0, ratio undefined)", std::to_string(zero_rhs_));
    if (excluded_) e.extra.emplace_back("excluded (outside the assumption)", std::to_string(excluded_) + ", e.g. " + excluded_example_);
    return r;
  }
  double worst() const { return t_.worst; }

 private:
  std::string stat_;
  unsigned d_;
  DoubledDigitsTally t_;
  Dist dist_;
  int zero_rhs_ = 0, excluded_ = 0;
  unsigned dmin_ = 1u << 30, dmax_ = 0;
  double worst_defect_ = 0;
  std::string worst_data_, witness_data_, excluded_example_;
  std::map<std::size_t, std::pair<double, std::string>> by_dk_;
};

// ---------------------------------------------------------------------------------------------
// adversarial search: random restarts + Nelder-Mead in fp64
// ---------------------------------------------------------------------------------------------

// A search space: raw entries of (K, V, q), or log singular values of K in fixed Haar frames U, W plus raw V, q
// (sigma_i = 10^(-3 - 3 tanh x_i) in (1e-6, 1), so lambda_min(S) in (1e-12, 1)).
struct Space {
  std::size_t dk, dv, t;
  bool spectral;
  DM U, W;
  std::size_t dim() const { return (spectral ? dk : t * dk) + t * dv + dk; }
  std::string name() const {
    return std::string(spectral ? "spectral" : "raw") + " D_k=" + std::to_string(dk) + " D_v=" + std::to_string(dv) + " t=" + std::to_string(t);
  }
};
Inst decode(const Space& sp, const VD& x) {
  Inst in;
  std::size_t p = 0;
  if (sp.spectral) {
    VD sig(sp.dk);
    for (std::size_t r = 0; r < sp.dk; ++r) sig[r] = std::pow(10.0, -3.0 - 3.0 * std::tanh(x[p++]));
    in.K = spectrum_keys(sp.U, sp.W, sig);
  } else {
    in.K = DM(sp.t, sp.dk);
    for (double& v : in.K.a) v = x[p++];
  }
  in.V = DM(sp.t, sp.dv);
  for (double& v : in.V.a) v = x[p++];
  in.q.assign(x.begin() + static_cast<long>(p), x.begin() + static_cast<long>(p + sp.dk));
  return in;
}

struct Candidate {
  double value;
  Inst inst;
};
struct SearchOut {
  std::vector<Candidate> top;  // best first
  std::vector<FigureSeries> traces;
  long evals = 0;
  int restarts = 0;
  double best = -INFINITY;
  std::string best_at;
  std::string budget;
  std::string per_shape;  // fp64 value of every re-evaluated candidate
};

// fp64 objective on an instance (K, V, q as drawn): larger is "worse" for the claim
using Objective = std::function<double(const Inst&)>;

// Restarts over the shapes (including D_k = D_v = 1 and t = D_k); each restart's best point is a candidate,
// the top `keep` candidates (distinct restarts) are returned for re-evaluation in MP.
SearchOut adversarial_search(const CheckConfig& cfg, const std::string& tag, const Objective& obj) {
  struct Shape {
    std::size_t dk, dv, t;
    bool spectral;
  };
  std::vector<Shape> shapes = {{1, 1, 1, false}, {1, 1, 4, false}, {2, 1, 2, false}, {2, 2, 5, false},
                               {3, 2, 3, true},  {3, 3, 6, false}, {4, 2, 8, true}};
  int restarts_per = 2, budget = 250, keep = 7;
  if (!cfg.quick) {
    shapes.insert(shapes.end(), {{1, 3, 2, false}, {2, 3, 2, true}, {3, 1, 9, false}, {4, 4, 4, true}, {5, 2, 5, false}, {8, 3, 16, true}, {8, 1, 8, true}});
    restarts_per = 4;
    budget = 900;
    keep = 20;
  }
  SearchOut out;
  out.budget = std::to_string(shapes.size()) + " shapes x " + std::to_string(restarts_per) + " restarts x " + std::to_string(budget) +
               " fp64 evaluations (Nelder-Mead); the best restart of every shape, then the second best of every shape, ... (up to " +
               std::to_string(keep) + ") re-evaluated in MP";
  const u64 base = tag_seed(cfg.seed, tag + "/search");
  int k = 0;
  for (const Shape& sh : shapes)
    for (int r = 0; r < restarts_per; ++r, ++k) {
      const u64 s = mix(base, static_cast<u64>(k));
      Gauss g(s);
      Space sp{sh.dk, sh.dv, sh.t, sh.spectral, DM(), DM()};
      if (sp.spectral) {
        sp.U = haar_cols(g, sh.t, sh.dk);
        sp.W = haar_cols(g, sh.dk, sh.dk);
      }
      VD x0(sp.dim());
      for (double& v : x0) v = g.normal();
      auto f = [&](const VD& x) -> double {
        const Inst in = decode(sp, x);
        try {
          return obj(in);
        } catch (const std::exception&) {
          return -INFINITY;  // outside the domain (singular keys): not a candidate
        }
      };
      // Nelder-Mead (claim_support::nelder_mead minimises -f) in the coordinates y of x = x0 + D y,
      // D = diag(|x0_i| + 0.1): the start simplex steps 0.5 (|x0_i| + 0.1) along axis i
      auto at = [&](const VD& y) {
        VD x(y.size());
        for (std::size_t i = 0; i < y.size(); ++i) x[i] = x0[i] + (std::abs(x0[i]) + 0.1) * y[i];
        return x;
      };
      const NmResult nm = nelder_mead([&](const VD& y) { return -f(at(y)); }, VD(x0.size(), 0.0), 0.5, budget);
      VD trace(nm.trace.size());  // best-so-far value of f after each evaluation
      for (std::size_t i = 0; i < trace.size(); ++i) trace[i] = -nm.trace[i];
      const double fb = -nm.f;
      const VD xb = at(nm.x);
      out.evals += static_cast<long>(trace.size());
      ++out.restarts;
      Inst in = decode(sp, xb);
      in.gen = "adversarial";
      in.vals = sp.spectral ? "adv-spectral" : "adv-raw";
      in.adversarial = true;
      in.desc = "adversarial " + sp.name() + " restart " + std::to_string(r + 1) + " search_seed=" + hexs(s) + " (fp64 objective " + fmt(fb, 17) + ")";
      if (std::isfinite(fb)) out.top.push_back({fb, in});
      if (fb > out.best) {
        out.best = fb;
        out.best_at = in.desc;
      }
      // trace for the figure: geometric thinning of the evaluation index
      FigureSeries fs;
      fs.name = sp.name() + " #" + std::to_string(r + 1);
      fs.group = sp.name();
      for (std::size_t i = 0, next = 1; i < trace.size(); ++i)
        if (i + 1 == next || i + 1 == trace.size()) {
          fs.x.push_back(static_cast<double>(i + 1));
          fs.y.push_back(std::isfinite(trace[i]) ? trace[i] : NAN);
          next = std::max(next + 1, static_cast<std::size_t>(static_cast<double>(next) * 1.08));
        }
      out.traces.push_back(std::move(fs));
    }
  // keep the best restart of every shape, then the second best of every shape, ... (each round by value), up to
  // max(keep, #shapes) candidates
  std::vector<Candidate> all = std::move(out.top), kept;
  std::stable_sort(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) { return a.value > b.value; });
  std::map<std::string, int> count;
  std::vector<std::pair<int, std::size_t>> order;  // (rank within its shape, position by value)
  for (std::size_t i = 0; i < all.size(); ++i) order.push_back({count[all[i].inst.desc.substr(0, all[i].inst.desc.find(" restart"))]++, i});
  std::stable_sort(order.begin(), order.end());
  const std::size_t nshape = count.size();
  for (const auto& [rank, i] : order)
    if (kept.size() < std::max<std::size_t>(static_cast<std::size_t>(keep), nshape)) kept.push_back(all[i]);
  std::stable_sort(kept.begin(), kept.end(), [](const Candidate& a, const Candidate& b) { return a.value > b.value; });
  out.top = std::move(kept);
  for (const Candidate& c : out.top)
    out.per_shape += (out.per_shape.empty() ? "" : "; ") + c.inst.desc.substr(12, c.inst.desc.find(" search_seed") - 12) + ": " + fmt(c.value, 6);
  return out;
}
void search_extras(Evidence& e, const SearchOut& s, const std::string& what) {
  e.extra.emplace_back("adversarial search (" + what + ")", s.budget + "; " + std::to_string(s.evals) + " evaluations, best fp64 value " +
                                                               fmt(s.best, 17) + " at " + s.best_at);
  e.extra.emplace_back("adversarial candidates re-evaluated in MP (fp64 value)", s.per_shape.empty() ? "none" : s.per_shape);
}

// ---------------------------------------------------------------------------------------------
// shared drivers
// ---------------------------------------------------------------------------------------------

std::string sizes_note(const CheckConfig& cfg, std::size_t n_inst) {
  return std::to_string(n_inst) + " generated instances (equality-case family, G1, G1-scaled, G2 loguniform/equal/ones/clustered/zero-sigma, G4 equicorrelated/AR(1), "
         "rank-deficient G2 and t < D_k excluded; values gauss/student-t2/aligned/anti-aligned; queries random/zero/top-singular" +
         std::string(cfg.quick ? "; quick set, D_k <= 8" : "; full campaign, D_k <= 16") + ") + adversarial candidates; instances from seed " + hexs(tag_seed(cfg.seed, kInstTag));
}

// An R-BOUND claim over the shared instances and its own adversarial search. `obs(in, d)`, `bucket(in)`.
struct BoundRun {
  ClaimResult result;
  SearchOut search;
  std::vector<std::pair<Inst, BoundObs>> seen;  // generated instances with their observation at d
};
BoundRun run_bound(const CheckConfig& cfg, const std::string& tag, const std::string& statistic, const Objective& obj,
                   const std::function<BoundObs(const Inst&, unsigned)>& obs, const std::vector<Inst>* extra_instances = nullptr) {
  BoundRun br;
  BoundTally tally(statistic, cfg.digits);
  const std::vector<Inst> insts = make_instances(cfg);
  auto one = [&](const Inst& in) {
    const BoundObs o = tally.add(in, in.adversarial ? in.gen + " " + in.vals : in.gen, [&](unsigned d) { return obs(in, d); });
    br.seen.push_back({in, o});
  };
  for (const Inst& in : insts) one(in);
  if (extra_instances)
    for (const Inst& in : *extra_instances) one(in);
  br.search = adversarial_search(cfg, tag, obj);
  for (const Candidate& c : br.search.top) one(c.inst);
  br.result = tally.result(cfg, sizes_note(cfg, insts.size()));
  search_extras(br.result.evidence, br.search, "maximising " + statistic);
  return br;
}

}  // namespace
}  // namespace norm_bound

}  // namespace recall::claim_support::regression

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
