// Paper A001 (test-time regression, Wang, Shi & Fox), §4 Vignette 1 Eq. (13) and Appendix A Eqs. (59)-(67):
// the output-norm bound of a least-squares layer, ||y_t|| <= ||q_t|| sum_i ||v_i|| ||k_i|| / lambda_min(K_t^T K_t),
// its derivation line by line, and the auxiliary pseudo-inverse bound ||y_t|| <= ||q_t|| ||V_t||_2 / sigma_min(K_t)
// (derived by the spec, not in the paper).
// Spec IDs: A001-LS-NORM-BOUND, A001-APPA-NORM-BOUND-PROOF, A001-APPA-S60 ... A001-APPA-S67, A001-LS-NORM-ALT-BOUND.
//
// Every check evaluates the references of recall/reference/norm_bound.hpp with recall::mp_t at P-scaled digits:
// d + 4 ceil(log10 cond(K)) + 10 working digits for the decision at d digits (d = cfg.digits; 2d when a failure
// is re-verified), i.e. twice the Gram allowance of spec C7, because S66 compares the smallest eigenvalues of the
// formed inverse of K^T K, whose rounding error grows like cond(K)^4 (S63 and S64 form no inverse: d + 10 digits,
// S63 at d). Decisions (spec C9):
//   R-BOUND: lhs <= rhs (1 + 10^-(d-10)) on every instance, the defect (lhs - rhs)/rhs computed in MP; the statistic
//            is the largest ratio lhs/rhs found (tightness ratio actual/bound), its instance the witness;
//   R-ID:    the scale-free relative residual |lhs - rhs| / max(|lhs|, |rhs|) <= 10^-(d-10) (the C9 residual
//            without its max(1, .) floor, which would let small-scale instances pass unchecked).
// Instances (one set shared by every ID of the group, spec Group 4 preamble): a constructed equality-case family
// (k_1 = e_1, other keys c e_j, v_i = 0 for i >= 2, q = e_1, rotated by a Haar W: ||y|| = bound for every D_k),
// G1 (t in [D_k, 4 D_k], keys optionally scaled by D_k^-1/2 or 10^a), G2 prescribed spectra with lambda_min(S) =
// sigma_min(K)^2 in [1e-12, 1] (log-uniform, equal, ones, clustered; t = D_k and t > D_k; one with a zero singular
// value before K is rounded to double), G4 (equicorrelated rho in {0, .5, .9, .99}, AR(1)); values Gaussian,
// Student-t(2), aligned, anti-aligned across i; queries random, zero, aligned with the top right-singular vector of
// A_t (resolved at the working precision). Rank-deficient keys (t < D_k, duplicated key columns) are outside the
// assumption of Eq. (13) and are recorded as excluded (S63 and S64 do not need full rank and evaluate them).
// Adversarial search (each ID maximises its own ratio lhs/rhs; the identity steps their fp64 residual, which drives
// the search to ill-conditioned keys): random restarts + Nelder-Mead in fp64 over the generator parameters (raw
// entries of K, V, q, or log singular values of K in fixed Haar frames with raw V, q), shapes including
// D_k = D_v = 1 and t = D_k; the best candidates are re-evaluated in MP like every generated instance.
// Seeds: instances from tag_seed(cfg.seed, "A001-NORM-BOUND-INSTANCES"), each search from tag_seed(cfg.seed, ID + "/search");
// Gaussian draws by Box-Muller on std::mt19937_64 (claim_support::Gauss): bit-reproducible for a fixed seed.
#include "recall/proofs/ledger.hpp"
#include "recall/reference/norm_bound.hpp"
#include "recall/reference/svd.hpp"
#include "claim_support.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using ref::Matrix;
using ref::Vector;
using u64 = std::uint64_t;
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
// K = U diag(sigma) W^T with U (t x D_k) and W (D_k x D_k) orthonormal (t >= D_k)
DM spectrum_keys(const DM& U, const DM& W, const VD& sigma) {
  DM K(U.rows, W.rows);
  for (std::size_t i = 0; i < U.rows; ++i)
    for (std::size_t j = 0; j < W.rows; ++j) {
      double s = 0;
      for (std::size_t r = 0; r < sigma.size(); ++r) s += U(i, r) * sigma[r] * W(j, r);
      K(i, j) = s;
    }
  return K;
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

// Maximise f from x0 (budget evaluations); trace[k] = best value after k + 1 evaluations.
VD nelder_mead_max(const std::function<double(const VD&)>& f, const VD& x0, double step, int budget, VD& trace, double& fbest) {
  const std::size_t n = x0.size();
  auto val = [&](const VD& x) -> double {
    double v = f(x);
    if (std::isnan(v)) v = -INFINITY;
    trace.push_back(trace.empty() ? v : std::max(trace.back(), v));
    return v;
  };
  std::vector<VD> P(n + 1, x0);
  VD F(n + 1);
  for (std::size_t i = 0; i < n; ++i) P[i + 1][i] += step * (std::abs(x0[i]) + 0.1);
  for (std::size_t i = 0; i <= n && static_cast<int>(trace.size()) < budget; ++i) F[i] = val(P[i]);
  while (static_cast<int>(trace.size()) < budget) {
    std::vector<std::size_t> o(n + 1);
    for (std::size_t i = 0; i <= n; ++i) o[i] = i;
    std::sort(o.begin(), o.end(), [&](std::size_t a, std::size_t b) { return F[a] > F[b]; });  // best first
    const std::size_t w = o[n], sw = o[n - 1], b = o[0];
    VD c(n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
      if (o[i] != w)
        for (std::size_t j = 0; j < n; ++j) c[j] += P[o[i]][j] / static_cast<double>(n);
    auto along = [&](double a) {
      VD x(n);
      for (std::size_t j = 0; j < n; ++j) x[j] = c[j] + a * (P[w][j] - c[j]);
      return x;
    };
    const VD xr = along(-1.0);
    const double fr = val(xr);
    if (fr > F[b]) {
      const VD xe = along(-2.0);
      const double fe = static_cast<int>(trace.size()) < budget ? val(xe) : -INFINITY;
      if (fe > fr) P[w] = xe, F[w] = fe;
      else P[w] = xr, F[w] = fr;
    } else if (fr > F[sw]) {
      P[w] = xr, F[w] = fr;
    } else {
      const VD xc = fr > F[w] ? along(-0.5) : along(0.5);
      const double fc = val(xc);
      if (fc > std::max(fr, F[w])) {
        P[w] = xc, F[w] = fc;
      } else {  // shrink towards the best
        for (std::size_t i = 0; i <= n && static_cast<int>(trace.size()) < budget; ++i)
          if (i != b) {
            for (std::size_t j = 0; j < n; ++j) P[i][j] = P[b][j] + 0.5 * (P[i][j] - P[b][j]);
            F[i] = val(P[i]);
          }
      }
    }
  }
  std::size_t b = 0;
  for (std::size_t i = 1; i <= n; ++i)
    if (F[i] > F[b]) b = i;
  fbest = F[b];
  return P[b];
}

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
      VD trace;
      double fb = -INFINITY;
      const VD xb = nelder_mead_max(f, x0, 0.5, budget, trace, fb);
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
// MP evaluations
// ---------------------------------------------------------------------------------------------

// A001-LS-NORM-BOUND / -ALT-BOUND observation: ||y|| = ||A q|| against Eq. (13), or against the alternative bound
// (alt); aux[0] = ||y|| / the other bound, aux[1] = alternative bound / Eq. (13) bound.
BoundObs obs_eq13(const Inst& in, unsigned d, bool alt) {
  BoundObs o;
  const Prep p = prepare(in.K, d);
  if (p.excluded) {
    o.excluded = true;
    o.why = p.why;
    return o;
  }
  o.digits = d + p.extra;
  MpDigitsScope sc(o.digits);
  const MM K = to_mp(in.K), V = to_mp(in.V);
  const MM A = ref::ls_readout_operator(K, V);
  const Vector<mp_t> q = resolve_query(in, A);
  const mp_t ny = ref::euclidean_norm(ref::matvec(A, q.data()));
  const auto bounds = ref::ls_norm_bounds(K, V, q);
  const mp_t &eq13 = bounds.eq13, &altb = bounds.alt;
  o.lambda_min = to_d(bounds.lambda_min);
  const mp_t& rhs = alt ? altb : eq13;
  o.ratio = ratio_of(ny, rhs);
  o.defect = le_defect(ny, rhs);
  o.aux[0] = ratio_of(ny, alt ? eq13 : altb);
  o.aux[1] = ratio_of(altb, eq13);
  return o;
}

// The nine lines of Appendix A and the defects of the eight relations + the end-to-end one:
// 0: (59)<=(60)  1: (60)=(61)  2: (61)<=(62)  3: (62)=(63)  4: (63)<=(64)  5: (64)=(65)  6: (65)=(66)  7: (66)=(67)  8: (59)<=(67)
const char* kRel[9] = {"(59) <= (60)", "(60) = (61)", "(61) <= (62)", "(62) = (63)", "(63) <= (64)",
                       "(64) = (65)",  "(65) = (66)", "(66) = (67)",  "(59) <= (67) end to end"};
const bool kRelIsLe[9] = {true, false, true, false, true, false, false, false, true};
struct ChainObs {
  bool excluded = false;
  std::string why;
  unsigned digits = 0;
  std::array<double, 9> line{}, defect{};
  double lambda_min = NAN, power_residual = NAN;
  int power_iterations = 0;
};
ChainObs obs_chain(const Inst& in, unsigned d) {
  ChainObs o;
  const Prep p = prepare(in.K, d);
  if (p.excluded) {
    o.excluded = true;
    o.why = p.why;
    return o;
  }
  o.digits = d + p.extra;
  MpDigitsScope sc(o.digits);
  const MM K = to_mp(in.K), V = to_mp(in.V);
  const Vector<mp_t> q = resolve_query(in, ref::ls_readout_operator(K, V));
  const mp_t ptol = mp_t(tol_at(o.digits));
  const auto c = ref::norm_bound_chain(K, V, q, ptol);
  for (int i = 0; i < 9; ++i) o.line[static_cast<std::size_t>(i)] = to_d(c.line[static_cast<std::size_t>(i)]);
  for (int r = 0; r < 8; ++r) {
    const mp_t &a = c.line[static_cast<std::size_t>(r)], &b = c.line[static_cast<std::size_t>(r + 1)];
    o.defect[static_cast<std::size_t>(r)] = kRelIsLe[r] ? le_defect(a, b) : eq_defect(a, b);
  }
  o.defect[8] = le_defect(c.line[0], c.line[8]);
  o.lambda_min = to_d(c.lambda_min);
  o.power_residual = to_d(c.power.rel_residual);
  o.power_iterations = c.power.iterations;
  if (!c.power.converged) o.defect[1] = INFINITY;  // the sup was not resolved: the "=" cannot be decided
  return o;
}

// fp64 versions for the search objectives (the same templates at double)
double nb_double_ratio(const Inst& in, bool alt) {
  if (in.K.rows < in.K.cols) return -INFINITY;
  const Vector<double> s = ref::singular_values(in.K);
  if (!(s.back() > 1e-8 * s.front())) return -INFINITY;  // beyond the fp64 search's trustworthy range
  const DM A = ref::ls_readout_operator_pinv(in.K, in.V);
  const double ny = ref::euclidean_norm(ref::matvec(A, in.q.data()));
  const double rhs = alt ? ref::ls_norm_bound_alt(in.K, in.V, in.q) : ref::ls_norm_bound_eq13(in.K, in.V, in.q);
  return rhs > 0 ? ny / rhs : -INFINITY;
}
ref::NormBoundChain<double> chain_double(const Inst& in) {
  if (in.K.rows < in.K.cols) throw std::invalid_argument("K: t < D_k");
  const Vector<double> s = ref::singular_values(in.K);
  if (!(s.back() > 1e-6 * s.front())) throw std::invalid_argument("K: cond > 1e6 (fp64 Gram unreliable)");
  return ref::norm_bound_chain(in.K, in.V, in.q);
}
double rel_diff_d(double a, double b) {
  const double m = std::max(std::abs(a), std::abs(b));
  return m > 0 ? std::abs(a - b) / m : 0.0;
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

// ---------------------------------------------------------------------------------------------
// A001-LS-NORM-BOUND
// ---------------------------------------------------------------------------------------------

ClaimResult a001_ls_norm_bound(const CheckConfig& cfg) {
  const char* tag = "A001-LS-NORM-BOUND";
  BoundRun br = run_bound(
      cfg, tag, "max ||y_t|| / (||q_t|| sum_i ||v_i|| ||k_i|| / lambda_min(K^T K)) (Eq. 13, tightness ratio actual/bound)",
      [](const Inst& in) -> double { return nb_double_ratio(in, false); }, [](const Inst& in, unsigned d) { return obs_eq13(in, d, false); });
  ClaimResult& r = br.result;
  // figures: the search's best-so-far ratio per restart, and the MP ratio per generator against lambda_min
  ClaimFigure f;
  f.id = "adversarial";
  f.title = "bound vs actual over the adversarial search";
  f.caption = "Best-so-far ratio ||y_t|| / bound of Eq. (13) (fp64 objective) against the Nelder-Mead evaluation index, one curve per "
              "restart (colour: search space and shape); the bound holds where the ratio stays <= 1 (dashed line). The top restarts were "
              "re-evaluated at P-scaled MP digits for the verdict.";
  f.x_label = "search evaluation index";
  f.y_label = "||y_t|| / bound (Eq. 13)";
  f.x_scale = "log";
  f.y_scale = "log";
  f.series = br.search.traces;
  {
    FigureSeries one;
    one.name = "ratio = 1 (bound attained)";
    one.style = "dashed";
    one.group = "bound";
    double xmax = 1;
    for (const auto& s : f.series)
      if (!s.x.empty()) xmax = std::max(xmax, s.x.back());
    one.x = {1.0, xmax};
    one.y = {1.0, 1.0};
    f.series.push_back(one);
  }
  r.evidence.figures.push_back(std::move(f));
  ClaimFigure g;
  g.id = "ratio-vs-lambda-min";
  g.title = "tightness ratio per generator vs lambda_min(K^T K)";
  g.caption = "||y_t|| / bound of Eq. (13) at P-scaled MP digits for every generated and adversarial instance (points; zero queries omitted), "
              "against lambda_min(K_t^T K_t) = sigma_min(K_t)^2.";
  g.x_label = "lambda_min(K^T K)";
  g.y_label = "||y_t|| / bound (Eq. 13)";
  g.x_scale = "log";
  g.y_scale = "log";
  {
    static const char* marks[] = {"o", "s", "^", "v", "D", "x", "+", "*", "<", ">", "d", "p", "h"};
    std::map<std::string, FigureSeries> by;
    for (const auto& [in, o] : br.seen) {
      if (o.excluded || std::isnan(o.ratio) || !(o.ratio > 0)) continue;
      const std::string k = in.adversarial ? "adversarial" : in.gen;
      FigureSeries& s = by[k];
      if (s.name.empty()) {
        s.name = k;
        s.marker = marks[by.size() % 13];
      }
      if (!s.x.empty()) {  // a gap between points: a scatter
        s.x.push_back(NAN);
        s.y.push_back(NAN);
      }
      s.x.push_back(o.lambda_min);
      s.y.push_back(o.ratio);
    }
    for (auto& [k, s] : by) g.series.push_back(std::move(s));
  }
  r.evidence.figures.push_back(std::move(g));
  return r;
}

// ---------------------------------------------------------------------------------------------
// A001-LS-NORM-ALT-BOUND
// ---------------------------------------------------------------------------------------------

ClaimResult a001_ls_norm_alt_bound(const CheckConfig& cfg) {
  const char* tag = "A001-LS-NORM-ALT-BOUND";
  BoundRun br = run_bound(
      cfg, tag, "max ||y_t|| / (||q_t|| ||V_t||_2 / sigma_min(K_t)) (alternative bound, tightness ratio)",
      [](const Inst& in) -> double { return nb_double_ratio(in, true); }, [](const Inst& in, unsigned d) { return obs_eq13(in, d, true); });
  // per-instance comparison with Eq. (13) and the identity A_t = V^T (K^+)^T used by the derivation
  int alt_smaller = 0, eq13_smaller = 0, equal = 0, n = 0;
  double lo = INFINITY, hi = 0;
  IdentityCheck pid("max relative residual ||V^T K (K^T K)^{-1} - V^T (K^+)^T||_F / max(1, ||.||_F) (full column rank)", cfg.digits);
  for (const auto& [in, o] : br.seen) {
    if (o.excluded) continue;
    const double q = o.aux[1];  // alt bound / Eq. (13) bound
    if (!std::isnan(q)) {
      ++n;
      lo = std::min(lo, q);
      hi = std::max(hi, q);
      if (q < 1) ++alt_smaller;
      else if (q > 1) ++eq13_smaller;
      else ++equal;
    }
    pid.add(in.desc, [&](unsigned d) {
      const Prep p = prepare(in.K, d);
      MpDigitsScope sc(d + p.extra);
      const MM K = to_mp(in.K), V = to_mp(in.V);
      return matrel(ref::ls_readout_operator(K, V), ref::ls_readout_operator_pinv(K, V));
    });
  }
  ClaimResult r = combine({{"R-BOUND ||y|| <= ||q|| ||V||_2 / sigma_min(K)", br.result},
                           {"R-ID V^T K (K^T K)^{-1} = V^T (K^+)^T", pid.result(cfg, "the R-BOUND part's instances (P-scaled digits)")}});
  r.evidence.extra.emplace_back("which bound is smaller (instances with ||q|| > 0)",
                                "alternative smaller on " + std::to_string(alt_smaller) + ", Eq. (13) smaller on " + std::to_string(eq13_smaller) +
                                    ", equal on " + std::to_string(equal) + " of " + std::to_string(n) + "; alt/Eq13 ranges " + fmt(lo) + " .. " + fmt(hi));
  {
    Dist de, da;
    for (const auto& [in, o] : br.seen)
      if (!o.excluded) {
        da.add(in.adversarial ? "adversarial" : in.gen, o.ratio);
        de.add(in.adversarial ? "adversarial" : in.gen, o.aux[0]);
      }
    r.evidence.extra.emplace_back("ratio ||y|| / alternative bound per generator", da.str());
    r.evidence.extra.emplace_back("ratio ||y|| / Eq. (13) bound per generator (same instances)", de.str());
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Appendix A steps
// ---------------------------------------------------------------------------------------------

// A001-APPA-S60: ||A q|| <= ||q|| sigma_max(A) (MP SVD); each instance with its own query and with q = 0 and q = top.
BoundObs s60_obs(const Inst& in, unsigned d) {
  BoundObs worst;
  const Prep p = prepare(in.K, d);
  if (p.excluded) {
    worst.excluded = true;
    worst.why = p.why;
    return worst;
  }
  worst.digits = d + p.extra;
  worst.defect = -INFINITY;
  MpDigitsScope sc(worst.digits);
  const MM K = to_mp(in.K);
  const MM A = ref::ls_readout_operator(K, to_mp(in.V));
  const mp_t smax = ref::spectral_norm(A);
  worst.lambda_min = p.lambda_min;
  for (QKind qk : {in.qk, QKind::zero, QKind::top}) {
    Inst iq;
    iq.qk = qk;
    iq.q = in.q;
    iq.K = DM(0, in.K.cols);
    const Vector<mp_t> q = resolve_query(iq, A);
    const mp_t lhs = ref::euclidean_norm(ref::matvec(A, q.data()));
    const mp_t rhs = ref::euclidean_norm(q) * smax;
    const double df = le_defect(lhs, rhs), ra = ratio_of(lhs, rhs);
    if (df > worst.defect) worst.defect = df;
    if (!std::isnan(ra) && (std::isnan(worst.ratio) || ra > worst.ratio)) worst.ratio = ra;
  }
  return worst;
}
ClaimResult a001_appa_s60(const CheckConfig& cfg) {
  auto objective = [](const Inst& in) -> double {
    const Vector<double> s = ref::singular_values(in.K);
    if (in.K.rows < in.K.cols || !(s.back() > 1e-8 * s.front())) return -INFINITY;
    const DM A = ref::ls_readout_operator_pinv(in.K, in.V);
    const double rhs = ref::euclidean_norm(in.q) * ref::spectral_norm(A);
    return rhs > 0 ? ref::euclidean_norm(ref::matvec(A, in.q.data())) / rhs : -INFINITY;
  };
  return run_bound(cfg, "A001-APPA-S60", "max ||A_t q|| / (||q|| sigma_max(A_t)) over q in {instance query, 0, top right-singular vector of A_t}",
                   objective, s60_obs)
      .result;
}

// A001-APPA-S61: sup_{||q||=1} ||A q|| (power iteration on A^T A) = sigma_max(A) (SVD); random directions below it.
struct S61Obs {
  bool excluded = false;
  std::string why;
  unsigned digits = 0;
  double defect = 0, residual = 0, rand_defect = -1, rand_ratio = NAN;
  int iterations = 0, squarings = 0;
  bool converged = false;
};
S61Obs s61_obs(const Inst& in, unsigned d) {
  S61Obs o;
  const Prep p = prepare(in.K, d);
  if (p.excluded) {
    o.excluded = true;
    o.why = p.why;
    return o;
  }
  o.digits = d + p.extra;
  MpDigitsScope sc(o.digits);
  const MM A = ref::ls_readout_operator(to_mp(in.K), to_mp(in.V));
  const auto pw = ref::power_iteration_sup(A, mp_t(tol_at(o.digits)));
  const mp_t smax = ref::spectral_norm(A);
  o.converged = pw.converged;
  o.defect = pw.converged ? eq_defect(pw.sup, smax) : INFINITY;
  o.residual = to_d(pw.rel_residual);
  o.iterations = pw.iterations;
  o.squarings = pw.squarings;
  Gauss g(mix(fnv1a(in.desc), 61));
  mp_t best(0);
  for (int j = 0; j < 16; ++j) {
    Vector<mp_t> u(in.K.cols);
    for (auto& x : u) x = mp_t(g.normal());
    const mp_t nu = ref::euclidean_norm(u);
    for (auto& x : u) x /= nu;
    const mp_t v = ref::euclidean_norm(ref::matvec(A, u.data()));
    if (v > best) best = v;
  }
  o.rand_defect = le_defect(best, smax);
  o.rand_ratio = ratio_of(best, smax);
  return o;
}
ClaimResult a001_appa_s61(const CheckConfig& cfg) {
  const std::vector<Inst> insts = make_instances(cfg);
  Checker id("max relative residual |sup by power iteration - sigma_max(A_t) by SVD| / sigma_max", cfg.digits);
  BoundTally rnd("max over 16 random unit u of ||A_t u|| / sigma_max(A_t) (a lower estimate of the sup must not exceed it)", cfg.digits);
  double max_res = 0;
  int max_it = 0, max_sq = 0;
  auto eval = [&](const Inst& in) {
    const S61Obs o = s61_obs(in, cfg.digits);
    if (o.excluded) {
      id.exclude(in.desc, o.why);
      return;
    }
    max_res = std::max(max_res, o.residual);
    max_it = std::max(max_it, o.iterations);
    max_sq = std::max(max_sq, o.squarings);
    id.add(in.desc, [&](unsigned d, std::string& w) {
      const S61Obs x = d == cfg.digits ? o : s61_obs(in, d);
      w = "power iteration: " + std::to_string(x.iterations) + " iterations, " + std::to_string(x.squarings) + " squarings, relative residual " +
          fmt(x.residual) + (x.converged ? "" : " (not converged)") + ", " + std::to_string(x.digits) + " digits";
      return x.defect;
    });
    rnd.add(in, in.adversarial ? "adversarial" : in.gen, [&](unsigned d) {
      const S61Obs x = d == cfg.digits ? o : s61_obs(in, d);
      BoundObs b;
      b.ratio = x.rand_ratio;
      b.defect = x.rand_defect;
      b.digits = x.digits;
      return b;
    });
  };
  for (const Inst& in : insts) eval(in);
  const SearchOut s = adversarial_search(cfg, "A001-APPA-S61", [](const Inst& in) -> double {
    const Vector<double> sv = ref::singular_values(in.K);
    if (in.K.rows < in.K.cols || !(sv.back() > 1e-8 * sv.front())) return -INFINITY;
    const DM A = ref::ls_readout_operator_pinv(in.K, in.V);
    const auto pw = ref::power_iteration_sup(A);
    return rel_diff_d(pw.sup, ref::spectral_norm(A));
  });
  for (const Candidate& c : s.top) eval(c.inst);
  CombineStyle first;
  first.largest_ratio = false;  // all hold: the identity part heads the row
  ClaimResult r = combine({{"R-ID sup (power iteration) = ||A_t||_2 (SVD)", id.result(cfg, sizes_note(cfg, insts.size()))},
                           {"R-BOUND random directions <= sigma_max", rnd.result(cfg, "same instances")}},
                          first);
  r.evidence.extra.emplace_back("power iteration at d digits", "largest final relative residual " + fmt(max_res) +
                                                                   " (stop at 1e-(working digits - 10)), most iterations " + std::to_string(max_it) +
                                                                   ", most squarings " + std::to_string(max_sq) + " (iteration matrix squared every 64 iterations)");
  search_extras(r.evidence, s, "maximising the fp64 residual |power - SVD| / SVD");
  return r;
}

// A001-APPA-S62: ||R S^{-1}||_2 <= ||R||_2 ||S^{-1}||_2 (MP SVD norms; S^{-1} formed by Gaussian elimination, symmetrised).
BoundObs s62_obs(const Inst& in, unsigned d) {
  BoundObs b;
  const Prep p = prepare(in.K, d);
  if (p.excluded) {
    b.excluded = true;
    b.why = p.why;
    return b;
  }
  b.digits = d + p.extra;
  MpDigitsScope sc(b.digits);
  const MM K = to_mp(in.K), V = to_mp(in.V);
  const MM A = ref::ls_readout_operator(K, V);
  const auto g = ref::gram_inverse_spectra(K);  // S^{-1} formed by Gaussian elimination, symmetrised; ||S^{-1}||_2 by SVD
  const mp_t lhs = ref::spectral_norm(A), rhs = ref::spectral_norm(ref::cross_moment_product(K, V)) * g.norm_S_inv;
  b.ratio = ratio_of(lhs, rhs);
  b.defect = le_defect(lhs, rhs);
  b.lambda_min = p.lambda_min;
  return b;
}
ClaimResult a001_appa_s62(const CheckConfig& cfg) {
  auto objective = [](const Inst& in) -> double {
    const auto c = chain_double(in);
    const double rhs = c.norm_R * c.norm_S_inv;
    return rhs > 0 ? c.sigma_max_A / rhs : -INFINITY;
  };
  return run_bound(cfg, "A001-APPA-S62", "max ||V^T K (K^T K)^{-1}||_2 / (||V^T K||_2 ||(K^T K)^{-1}||_2)", objective, s62_obs).result;
}

// A001-APPA-S63: V^T K (matrix product) = sum_i v_i k_i^T (rank-one sum); any rank.
double s63_residual(const Inst& in, unsigned d) {
  MpDigitsScope sc(d);
  const MM K = to_mp(in.K), V = to_mp(in.V);
  const MM L = ref::cross_moment_product(K, V), R = ref::rank_one_sum(K, V);
  const mp_t m = std::max(ref::frob(L), ref::frob(R));
  return m > 0 ? nan_inf(to_d(mp_t(ref::frob_diff(L, R) / m))) : 0.0;
}
ClaimResult a001_appa_s63(const CheckConfig& cfg) {
  const std::vector<Inst> insts = make_instances(cfg);
  Checker id("max relative residual ||V^T K - sum_i v_i k_i^T||_F / max(||.||_F) (no inverse: P-50 digits, any rank)", cfg.digits);
  for (const Inst& in : insts) id.add(in.desc, [&](unsigned d, std::string&) { return s63_residual(in, d); });
  const SearchOut s = adversarial_search(cfg, "A001-APPA-S63", [](const Inst& in) -> double {
    const DM L = ref::cross_moment_product(in.K, in.V), R = ref::rank_one_sum(in.K, in.V);
    const double m = std::max(ref::frob(L), ref::frob(R));
    return m > 0 ? ref::frob_diff(L, R) / m : 0.0;
  });
  for (const Candidate& c : s.top) id.add(c.inst.desc, [&](unsigned d, std::string&) { return s63_residual(c.inst, d); });
  ClaimResult r = id.result(cfg, sizes_note(cfg, insts.size()) + " (rank-deficient instances included)");
  search_extras(r.evidence, s, "maximising the fp64 residual");
  return r;
}

// A001-APPA-S64: ||sum_i v_i k_i^T||_2 <= sum_i ||v_i|| ||k_i|| and ||v k^T||_2 = ||v|| ||k||; any rank, plus
// all-parallel rank-one terms (equality) and cancelling terms.
BoundObs s64_obs(const Inst& in, unsigned d) {
  BoundObs b;
  b.digits = d + 10;
  MpDigitsScope sc(b.digits);
  const MM K = to_mp(in.K), V = to_mp(in.V);
  const mp_t lhs = ref::spectral_norm(ref::rank_one_sum(K, V)), rhs = ref::sum_norm_products(K, V);
  b.ratio = ratio_of(lhs, rhs);
  b.defect = le_defect(lhs, rhs);
  return b;
}
double rank_one_residual(const Inst& in, unsigned d) {
  MpDigitsScope sc(d + 10);
  const MM K = to_mp(in.K), V = to_mp(in.V);
  double worst = 0;
  for (std::size_t i = 0; i < K.rows; ++i) {
    MM T(V.cols, K.cols);
    ref::add_outer(T, V.row(i), K.row(i));
    worst = std::max(worst, eq_defect(ref::spectral_norm(T), mp_t(ref::euclidean_norm(V.row(i), V.cols) * ref::euclidean_norm(K.row(i), K.cols))));
  }
  return worst;
}
std::vector<Inst> s64_special(const CheckConfig& cfg) {
  std::vector<Inst> out;
  const u64 base = tag_seed(cfg.seed, "A001-APPA-S64/special");
  const int reps = cfg.quick ? 2 : 8;
  for (int n = 0; n < 3 * reps; ++n) {
    const u64 s = mix(base, static_cast<u64>(n));
    Gauss g(s);
    const std::size_t dk = 1 + static_cast<std::size_t>(g.uniform() * 4), dv = 1 + static_cast<std::size_t>(g.uniform() * 3),
                      t = 2 + static_cast<std::size_t>(g.uniform() * 5);
    Inst in;
    in.K = DM(t, dk);
    in.V = DM(t, dv);
    in.q = VD(dk, 1.0);
    const DM k = gauss_matrix(1, dk, g), v = gauss_matrix(1, dv, g);
    const int kind = n % 3;
    for (std::size_t i = 0; i < t; ++i) {
      const double a = std::abs(g.normal()) + 0.1, b = std::abs(g.normal()) + 0.1;
      // 0: parallel, same sign (equality); 1: parallel, alternating sign (cancellation); 2: exact pairs v k^T, -v k^T (sum 0 for even t)
      const double sa = kind == 0 ? 1.0 : (i % 2 ? -1.0 : 1.0);
      for (std::size_t j = 0; j < dk; ++j) in.K(i, j) = (kind == 2 ? 1.0 : a) * k(0, j);
      for (std::size_t j = 0; j < dv; ++j) in.V(i, j) = sa * (kind == 2 ? 1.0 : b) * v(0, j);
    }
    static const char* kn[3] = {"all-parallel rank-one terms (equality expected)", "parallel terms of alternating sign (cancelling)",
                                "exactly cancelling pairs v k^T, -v k^T"};
    in.gen = kind == 0 ? "S64-parallel" : kind == 1 ? "S64-alternating" : "S64-cancelling";
    in.vals = "special";
    in.desc = std::string(kn[kind]) + " D_k=" + std::to_string(dk) + " D_v=" + std::to_string(dv) + " t=" + std::to_string(t) + " inst_seed=" + hexs(s);
    out.push_back(in);
  }
  return out;
}
ClaimResult a001_appa_s64(const CheckConfig& cfg) {
  const std::vector<Inst> special = s64_special(cfg);
  const std::vector<Inst> insts = make_instances(cfg);
  BoundTally tally("max ||sum_i v_i k_i^T||_2 / sum_i ||v_i|| ||k_i|| (triangle inequality)", cfg.digits);
  Checker r1("max relative residual | ||v_i k_i^T||_2 (SVD) - ||v_i|| ||k_i|| | / max over the rank-one terms", cfg.digits);
  auto one = [&](const Inst& in) {
    tally.add(in, in.adversarial ? "adversarial" : in.gen, [&](unsigned d) { return s64_obs(in, d); });
    r1.add(in.desc, [&](unsigned d, std::string&) { return rank_one_residual(in, d); });
  };
  for (const Inst& in : insts) one(in);
  for (const Inst& in : special) one(in);
  const SearchOut s = adversarial_search(cfg, "A001-APPA-S64", [](const Inst& in) -> double {
    const double rhs = ref::sum_norm_products(in.K, in.V);
    return rhs > 0 ? ref::spectral_norm(ref::rank_one_sum(in.K, in.V)) / rhs : -INFINITY;
  });
  for (const Candidate& c : s.top) one(c.inst);
  const std::string sz = sizes_note(cfg, insts.size()) + " (rank-deficient included) + " + std::to_string(special.size()) + " parallel / cancelling term sets";
  ClaimResult r = combine({{"R-BOUND triangle inequality (64)", tally.result(cfg, sz)}, {"R-ID rank-one norm ||v k^T|| = ||v|| ||k||", r1.result(cfg, sz)}});
  search_extras(r.evidence, s, "maximising the ratio (64)");
  return r;
}

// Identity steps on the Gram spectra: S65 (64)=(65), S66 sorted spectra (and (65)=(66)), S67 (66)=(67).
struct GramObs {
  bool excluded = false;
  std::string why;
  unsigned digits = 0;
  double lambda_min = NAN;
  double s65 = 0, s66_max = 0, s66_vec = 0, s66_entry = 0, s67 = 0;
};
// sorted spectra of S^{-1} (descending) against 1 / lambda_i(S) (lambda ascending): normwise and per-entry residuals
template <class S> std::pair<S, S> spectra_residual(const ref::GramSpectra<S>& g) {
  using std::abs;
  using std::sqrt;
  using boost::multiprecision::abs;
  using boost::multiprecision::sqrt;
  const std::size_t n = g.eig_S.size();
  S dn(0), an(0), bn(0), worst(0);
  for (std::size_t i = 0; i < n; ++i) {
    const S a = g.eig_S_inv[n - 1 - i], b = S(1) / g.eig_S[i];
    const S e = abs(S(a - b)) / abs(b);
    if (e > worst) worst = e;
    dn += (a - b) * (a - b);
    an += a * a;
    bn += b * b;
  }
  const S m = sqrt(std::max(an, bn));
  return {m > 0 ? S(sqrt(dn) / m) : S(0), worst};
}
GramObs obs_gram(const Inst& in, unsigned d) {
  GramObs o;
  const Prep p = prepare(in.K, d);
  if (p.excluded) {
    o.excluded = true;
    o.why = p.why;
    return o;
  }
  o.digits = d + p.extra;
  MpDigitsScope sc(o.digits);
  const MM K = to_mp(in.K);
  const auto g = ref::gram_inverse_spectra(K);
  const mp_t lmin = ref::gram_lambda_min(K);
  o.lambda_min = to_d(lmin);
  o.s65 = eq_defect(g.norm_S_inv, g.lambda_max_S_inv);
  o.s66_max = eq_defect(g.lambda_max_S_inv, g.max_recip_lambda_S);
  const auto [vec, entry] = spectra_residual(g);
  o.s66_vec = nan_inf(to_d(vec));
  o.s66_entry = nan_inf(to_d(entry));
  o.s67 = eq_defect(g.max_recip_lambda_S, mp_t(mp_t(1) / lmin));
  return o;
}
ClaimResult gram_identity(const CheckConfig& cfg, const char* tag, const std::string& statistic, const std::function<double(const GramObs&)>& pick,
                          const std::function<double(const ref::GramSpectra<double>&, double)>& dobj, std::string* note = nullptr) {
  const std::vector<Inst> insts = make_instances(cfg);
  Checker id(statistic, cfg.digits);
  double worst_entry = 0;
  auto eval = [&](const Inst& in) {
    const GramObs o = obs_gram(in, cfg.digits);
    if (o.excluded) {
      id.exclude(in.desc, o.why);
      return;
    }
    worst_entry = std::max(worst_entry, o.s66_entry);
    id.add(in.desc, [&](unsigned d, std::string& w) {
      const GramObs x = d == cfg.digits ? o : obs_gram(in, d);
      w = std::to_string(x.digits) + " digits, lambda_min(S) " + fmt(x.lambda_min);
      return pick(x);
    });
  };
  for (const Inst& in : insts) eval(in);
  const SearchOut s = adversarial_search(cfg, tag, [&](const Inst& in) -> double {
    if (in.K.rows < in.K.cols) return -INFINITY;
    const Vector<double> sv = ref::singular_values(in.K);
    if (!(sv.back() > 1e-6 * sv.front())) return -INFINITY;  // fp64 Gram unreliable beyond cond(K) = 1e6
    return dobj(ref::gram_inverse_spectra(in.K), sv.back() * sv.back());
  });
  for (const Candidate& c : s.top) eval(c.inst);
  ClaimResult r = id.result(cfg, sizes_note(cfg, insts.size()));
  if (note) *note = fmt(worst_entry);
  search_extras(r.evidence, s, "maximising the fp64 residual");
  r.evidence.extra.emplace_back("digits", "P-scaled: d + 4 ceil(log10 cond K) + 10 working digits, threshold 1e-" + std::to_string(cfg.digits - 10));
  return r;
}
ClaimResult a001_appa_s65(const CheckConfig& cfg) {
  return gram_identity(cfg, "A001-APPA-S65", "max relative residual | ||S^{-1}||_2 (SVD of the formed inverse) - max_i lambda_i(S^{-1}) (Jacobi) | / max",
                       [](const GramObs& o) { return o.s65; },
                       [](const ref::GramSpectra<double>& g, double) { return rel_diff_d(g.norm_S_inv, g.lambda_max_S_inv); });
}
ClaimResult a001_appa_s66(const CheckConfig& cfg) {
  std::string entry;
  ClaimResult r = gram_identity(
      cfg, "A001-APPA-S66",
      "max relative residual of the full sorted spectra ||sort(lambda(S^{-1})) - sort(1/lambda(S))|| / max(||.||) (and of their maxima)",
      [](const GramObs& o) { return std::max(o.s66_vec, o.s66_max); },
      [](const ref::GramSpectra<double>& g, double) { return spectra_residual(g).second; }, &entry);
  r.evidence.extra.emplace_back("largest per-eigenvalue relative difference |lambda_i(S^{-1}) - 1/lambda_i(S)| / (1/lambda_i(S)) at d digits", entry);
  return r;
}
ClaimResult a001_appa_s67(const CheckConfig& cfg) {
  return gram_identity(cfg, "A001-APPA-S67",
                       "max relative residual | max_i 1/lambda_i(S) (Jacobi eigenvalues of S) - 1/lambda_min(S) (sigma_min(K)^2 by SVD) | / max",
                       [](const GramObs& o) { return o.s67; },
                       [](const ref::GramSpectra<double>& g, double lmin) { return rel_diff_d(g.max_recip_lambda_S, 1.0 / lmin); });
}

// ---------------------------------------------------------------------------------------------
// A001-APPA-NORM-BOUND-PROOF (composite)
// ---------------------------------------------------------------------------------------------

ClaimResult a001_appa_norm_bound_proof(const CheckConfig& cfg) {
  const std::vector<Inst> insts = make_instances(cfg);
  const unsigned d0 = cfg.digits;
  DoubledDigitsTally t;
  std::array<double, 9> worst{};
  worst.fill(-INFINITY);
  std::array<double, 9> max_ratio{};
  max_ratio.fill(NAN);
  int excluded = 0;
  std::string first_fail, excluded_example;
  auto first_failing = [](const ChainObs& o, unsigned d) {
    for (int r = 0; r < 9; ++r)
      if (!(o.defect[static_cast<std::size_t>(r)] <= tol_at(d))) return r;
    return -1;
  };
  auto eval = [&](const Inst& in) {
    const ChainObs o = obs_chain(in, d0);
    if (o.excluded) {
      if (excluded++ == 0) excluded_example = in.desc + " (" + o.why + ")";
      return;
    }
    ++t.n;
    for (int r = 0; r < 9; ++r) {
      const auto ru = static_cast<std::size_t>(r);
      worst[ru] = std::max(worst[ru], o.defect[ru]);
      const std::size_t lo = r == 8 ? 0 : ru, hi = r == 8 ? 8 : ru + 1;  // relation r compares line lo with line hi
      if (kRelIsLe[r] && o.line[hi] > 0) {
        const double q = o.line[lo] / o.line[hi];
        if (std::isnan(max_ratio[ru]) || q > max_ratio[ru]) max_ratio[ru] = q;
      }
    }
    double m = -INFINITY;
    for (double x : o.defect) m = std::max(m, x);
    if (t.worst_desc.empty() || m > t.worst) {
      t.worst = m;
      t.worst_desc = in.desc;
    }
    const int f = first_failing(o, d0);
    if (f >= 0 && !t.failed) {
      const ChainObs o2 = obs_chain(in, 2 * d0);
      const int f2 = first_failing(o2, 2 * d0);
      if (f2 >= 0) {
        t.failed = true;
        t.witness = in.desc + " [first failing relation " + kRel[f2] + "]";
        t.witness_value = o.defect[static_cast<std::size_t>(f)];
        t.witness_value_2x = fmt(o2.defect[static_cast<std::size_t>(f2)]) + " at " + std::to_string(o2.digits) + " digits";
        first_fail = kRel[f2];
      } else if (!t.unconfirmed) {
        t.unconfirmed = true;
        t.witness = in.desc + " [relation " + kRel[f] + " at d digits only]";
        t.witness_value = o.defect[static_cast<std::size_t>(f)];
        t.witness_value_2x = "holds at " + std::to_string(o2.digits) + " digits";
      }
    }
  };
  for (const Inst& in : insts) eval(in);
  const SearchOut s = adversarial_search(cfg, "A001-LS-NORM-BOUND", [](const Inst& in) -> double { return nb_double_ratio(in, false); });
  for (const Candidate& c : s.top) eval(c.inst);
  ClaimResult walk;
  walk.evidence.statistic = "max over instances and relations of the defect: (lhs - rhs)/rhs for '<=', |lhs - rhs|/max for '='";
  walk.evidence.threshold = tol_at(d0);
  walk.evidence.instances = t.n;
  walk.evidence.digits = d0;
  walk.evidence.seed = cfg.seed;
  walk.evidence.sizes = sizes_note(cfg, insts.size()) + " (adversarial: the A001-LS-NORM-BOUND search's candidates)";
  decide_doubled_digits(t, d0, "witness at doubled digits",
                        "every relation of the chain (59) <= (60) = (61) <= (62) = (63) <= (64) = (65) = (66) = (67) and (59) <= (67) holds on all " +
                            std::to_string(t.n) + " instances",
                        walk);
  if (t.failed) walk.reason = "first failing line of the chain: " + first_fail + "; " + walk.reason;
  {
    std::string s2;
    for (int r = 0; r < 9; ++r) {
      const auto ru = static_cast<std::size_t>(r);
      s2 += (r ? "; " : "") + std::string(kRel[r]) + ": max defect " + fmt(worst[ru]) + (kRelIsLe[r] ? ", max ratio " + fmt(max_ratio[ru], 17) : "");
    }
    walk.evidence.extra.emplace_back("per relation", s2);
  }
  if (excluded) walk.evidence.extra.emplace_back("excluded (outside the assumption)", std::to_string(excluded) + ", e.g. " + excluded_example);
  walk.evidence.extra.emplace_back("first failing relation", first_fail.empty() ? "none" : first_fail);
  Parts parts;
  parts.push_back({"chain walk (59)-(67) per instance", walk});
  parts.push_back({"component A001-LS-NORM-BOUND (end to end)", a001_ls_norm_bound(cfg)});
  parts.push_back({"component A001-APPA-S60", a001_appa_s60(cfg)});
  parts.push_back({"component A001-APPA-S61", a001_appa_s61(cfg)});
  parts.push_back({"component A001-APPA-S62", a001_appa_s62(cfg)});
  parts.push_back({"component A001-APPA-S63", a001_appa_s63(cfg)});
  parts.push_back({"component A001-APPA-S64", a001_appa_s64(cfg)});
  parts.push_back({"component A001-APPA-S65", a001_appa_s65(cfg)});
  parts.push_back({"component A001-APPA-S66", a001_appa_s66(cfg)});
  parts.push_back({"component A001-APPA-S67", a001_appa_s67(cfg)});
  for (auto& p : parts) p.second.evidence.figures.clear();  // the figures belong to the component rows
  CombineStyle st;
  st.largest_ratio = false;  // all hold: the chain walk heads the row
  ClaimResult r = combine(parts, st);
  std::vector<std::pair<std::string, std::string>> keep;
  for (auto& x : r.evidence.extra)
    if (x.first.rfind("component ", 0) != 0) keep.push_back(std::move(x));
  r.evidence.extra = std::move(keep);
  return r;
}

}  // namespace

void register_a001_norm_bound(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A001-LS-NORM-BOUND", "Output-norm bound of an LS layer (Eq. 13)", inequality, false, a001_ls_norm_bound);
  add("A001-APPA-NORM-BOUND-PROOF", "Appendix A derivation (59)-(67) (composite)", inequality, false, a001_appa_norm_bound_proof);
  add("A001-APPA-S60", "Step (60): ||A q|| <= ||q|| sup_{||u||=1} ||A u||", inequality, false, a001_appa_s60);
  add("A001-APPA-S61", "Step (61): the sup is the spectral norm", identity, false, a001_appa_s61);
  add("A001-APPA-S62", "Step (62): submultiplicativity ||R S^{-1}|| <= ||R|| ||S^{-1}||", inequality, false, a001_appa_s62);
  add("A001-APPA-S63", "Step (63): V^T K = sum_i v_i k_i^T", identity, true, a001_appa_s63);
  add("A001-APPA-S64", "Step (64): triangle inequality over rank-one terms", inequality, false, a001_appa_s64);
  add("A001-APPA-S65", "Step (65): ||S^{-1}||_2 = max_i lambda_i(S^{-1})", identity, false, a001_appa_s65);
  add("A001-APPA-S66", "Step (66): lambda_i(S^{-1}) = 1/lambda_i(S)", identity, false, a001_appa_s66);
  add("A001-APPA-S67", "Step (67): max_i 1/lambda_i(S) = 1/lambda_min(S)", identity, false, a001_appa_s67);
  add("A001-LS-NORM-ALT-BOUND", "Auxiliary pseudo-inverse bound ||y|| <= ||q|| ||V||_2 / sigma_min(K) [derived]", inequality, false,
      a001_ls_norm_alt_bound);
}

}  // namespace recall
