// Helpers shared by the A004 claim files of proofs_numeric/a004_memory_and_forgetting/ (moved from
// proofs_numeric/src/claims_t1_a004.cpp and claims_t2_a004.cpp; not a public header):
//  * generators: the eight G2 key kinds, the G3 gate patterns (also the alphas of the delta items),
//    the full-campaign repetition count;
//  * feature-map names, the denominator screen and the condition rule of the normalised read-outs,
//    Eq. (14) evaluated literally and the key-major running state (S_i, Z_i) of the LA slide;
//  * the TTT instances (tokens, projections theta_K, theta_V, theta_Q), the Theorem-1 metric and the
//    finite-difference check of the TTT loss gradient;
//  * the delta items: G3 betas, instance descriptions, the maps of A004-PHI-SET they use and the
//    u-recursion.
// Everything has internal linkage (an unnamed namespace, as in claim_support.hpp): each claim file
// compiles its own copy, so no definition is shared (or can clash) across translation units.
#pragma once

#include "claim_support.hpp"
#include "recall/proofs/ledger.hpp"
#include "recall/reference/delta_rule.hpp"
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/ttt.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace recall::claim_support::a004 {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-variable"
#endif

using ref::FeatureMap;
using ref::FeatureMapKind;

// ---- generators (spec C10: G2 structured keys (claim_support), G3 gates) ---------------------------------

const std::vector<Keys> kAllKeys = {Keys::gauss, Keys::sphere, Keys::ortho, Keys::repeated,
                                    Keys::nearpar, Keys::zero, Keys::onehot, Keys::t3};

// Gate values of G3: {0, 1e-300, 0.5, 1 - 1e-12, 1} and U(0,1).
enum class Gates { uniform, with_zeros, ones, tiny, near_one, mixed };
const char* gates_name(Gates g) {
  switch (g) {
    case Gates::uniform: return "uniform";
    case Gates::with_zeros: return "uniform+zeros";
    case Gates::ones: return "ones";
    case Gates::tiny: return "1e-300";
    case Gates::near_one: return "1-1e-12";
    case Gates::mixed: return "mixed{0,1e-300,0.5,1-1e-12,1,U}";
  }
  return "?";
}
std::vector<double> gate_values(Rng& g, Gates kind, std::size_t n) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  std::vector<double> a(n);
  const double set[5] = {0.0, 1e-300, 0.5, 1.0 - 1e-12, 1.0};
  std::uniform_int_distribution<int> pick(0, 5);
  for (std::size_t t = 0; t < n; ++t) {
    switch (kind) {
      case Gates::uniform: a[t] = U(g); break;
      case Gates::with_zeros: a[t] = (t % 3 == 1) ? 0.0 : U(g); break;
      case Gates::ones: a[t] = 1.0; break;
      case Gates::tiny: a[t] = 1e-300; break;
      case Gates::near_one: a[t] = 1.0 - 1e-12; break;
      case Gates::mixed: {
        const int p = pick(g);
        a[t] = p < 5 ? set[p] : U(g);
        break;
      }
    }
  }
  return a;
}

// G3 decays {0, 1e-300, 0.5, 1 - 1e-12, 1} and U(0,1): the mixed gate pattern
std::vector<double> alphas_g3(Rng& g, std::size_t n) { return gate_values(g, Gates::mixed, n); }

// Repetitions of each configuration with fresh data: 1 in the quick suite, 6 for small sizes in the full campaign.
int full_reps(const CheckConfig& cfg, std::size_t n) { return cfg.quick ? 1 : (n <= 17 ? 6 : 1); }

// ---- feature maps and normalised read-outs ------------------------------------------------------------

// name of a feature map with its parameters (with_order = false: without the order of poly and exp_trunc)
std::string fmap_name(const FeatureMap& f, bool with_order = true) {
  std::string s = ref::feature_map_name(f.kind);
  if (with_order && f.kind == FeatureMapKind::poly) s += std::to_string(f.order);
  if (with_order && f.kind == FeatureMapKind::exp_trunc) s += "(M=" + std::to_string(f.order) + ")";
  if (f.kind == FeatureMapKind::dpfp) s += "(nu=" + std::to_string(f.nu) + ")";
  if (f.sum_normalize) s += "+sum-norm";
  if (f.l2_normalize) s += "+l2-norm";
  return s;
}


// Condition factor of a normalised read-out o_i = sum_j w_ij v_j / D_i, D_i = sum_{j<=i} w_ij (the R-ID
// condition rule of spec C11): cond = max_i sum_j |w_ij| max(1, ||v_j||) / (|D_i| max(1, ||o_i||)) >= 1.
template <class Kernel>
double read_out_cond(const MM& Q, const MM& K, const MM& V, Kernel kappa) {
  double worst = 1;
  for (std::size_t i = 0; i < Q.rows; ++i) {
    mp_t D(0), A(0);
    MV o(V.cols, mp_t(0));
    for (std::size_t j = 0; j <= i; ++j) {
      const mp_t w = kappa(K.row(j), Q.row(i));
      D += w;
      mp_t vn(0);
      for (std::size_t c = 0; c < V.cols; ++c) { ref::muladd(o[c], w, V(j, c)); ref::muladd(vn, V(j, c), V(j, c)); }
      A += abs(w) * mp_max1(sqrt(vn), mp_t(1));
    }
    mp_t on(0);
    for (std::size_t c = 0; c < V.cols; ++c) ref::muladd(on, o[c], o[c]);
    const double c = to_d(mp_t(A / (abs(D) * mp_max1(mp_t(sqrt(on) / abs(D)), mp_t(1)))));
    if (!(c <= worst)) worst = c;
  }
  return worst;
}
// 10^ceil(log10 cond): residuals are divided by it, i.e. compared with 10^-(d - 10 - ceil(log10 cond)).
double cond_divisor(double cond) { return cond > 1 ? std::pow(10.0, std::ceil(std::log10(cond))) : 1.0; }
const char* kCondNote = " / 10^ceil(log10 cond) (R-ID condition rule; cond = max_i sum_j |w_ij| max(1,||v_j||) / (|D_i| max(1,||o_i||)))";

auto dot_kernel(std::size_t d) {
  return [d](const mp_t* k, const mp_t* q) { return ref::dot(k, q, d); };
}

// Denominator screen of A004-EQ13-KERNEL-ATTN / -TTT-THM1-NORM (and the other normalised read-outs):
// with kernel values w_{ij} = kappa(K_j, Q_i), flag |sum_j w_ij| <= 1e-30 sum_j |w_ij| (zero included).
// Returns the 1-based token of the first flagged denominator, 0 when none.
template <class Kernel>
std::size_t tiny_denominator(const MM& Q, const MM& K, Kernel kappa) {
  for (std::size_t i = 0; i < Q.rows; ++i) {
    mp_t D(0), A(0);
    for (std::size_t j = 0; j <= i; ++j) {
      const mp_t w = kappa(K.row(j), Q.row(i));
      D += w;
      A += abs(w);
    }
    if (abs(D) <= mp_t(1e-30) * A) return i + 1;
  }
  return 0;
}
// the screen on feature matrices, w_{ij} = PhiK_j . PhiQ_i
std::size_t tiny_denominator(const MM& PhiQ, const MM& PhiK) { return tiny_denominator(PhiQ, PhiK, dot_kernel(PhiQ.cols)); }
// the screen at the working digits on phi(Q), phi(K) of double inputs
std::size_t mapped_tiny_denominator(const FeatureMap& f, const DM& Qd, const DM& Kd, unsigned digits) {
  MpDigitsScope s(digits);
  const MM PQ = ref::apply_feature_map(f, to_mp(Qd)), PK = ref::apply_feature_map(f, to_mp(Kd));
  return tiny_denominator(PQ, PK);
}

// The condition rule inside an identity check of a normalised read-out (kernel kappa): records the
// largest factor at the working digits in max_cond, appends it to where and returns the worst
// residual divided by 10^ceil(log10 cond).
template <class Kernel>
double cond_scaled(const Worst& w, const MM& Q, const MM& K, const MM& V, Kernel kappa, unsigned dg, const CheckConfig& cfg,
                   double& max_cond, std::string& where) {
  const double cond = read_out_cond(Q, K, V, kappa);
  if (dg == cfg.digits) max_cond = std::max(max_cond, cond);
  where = w.where + ", cond " + fmt(cond);
  return w.r / cond_divisor(cond);
}

// Eq. (14) literally, sums recomputed from scratch for every i:
// y_i = (sum_{j<=i} v_j phi(k_j)^T) phi(q_i) / ((sum_{j<=i} phi(k_j)) . phi(q_i)).
MM eq14_literal(const MM& PhiQ, const MM& PhiK, const MM& V) {
  const std::size_t T = V.rows, dp = PhiK.cols, dv = V.cols;
  MM Y(T, dv);
  for (std::size_t i = 0; i < T; ++i) {
    MM W(dv, dp);
    MV z(dp, mp_t(0));
    for (std::size_t j = 0; j <= i; ++j) {
      ref::add_outer(W, V.row(j), PhiK.row(j));
      for (std::size_t c = 0; c < dp; ++c) z[c] += PhiK(j, c);
    }
    const mp_t den = ref::dot(z.data(), PhiQ.row(i), dp);
    MV num = ref::matvec(W, PhiQ.row(i));
    for (std::size_t c = 0; c < dv; ++c) Y(i, c) = num[c] / den;
  }
  return Y;
}

// Key-major running state of the linear-attention slide, as printed:
// S_i = S_{i-1} + phi(K_i) V_i^T (d_phi x d_v), Z_i = Z_{i-1} + phi(K_i); row read-outs.
struct KeyMajor {
  std::vector<MM> S;   // S_1..S_T (key-major)
  std::vector<MV> Z;   // Z_1..Z_T
  MM num;              // rows phi(Q_i)^T S_i
  MV den;              // phi(Q_i)^T Z_i
};
KeyMajor key_major(const MM& PhiQ, const MM& PhiK, const MM& V) {
  const std::size_t T = V.rows, dp = PhiK.cols, dv = V.cols;
  KeyMajor km;
  MM S(dp, dv);
  MV Z(dp, mp_t(0));
  km.num = MM(T, dv);
  km.den.assign(T, mp_t(0));
  for (std::size_t i = 0; i < T; ++i) {
    ref::add_outer(S, PhiK.row(i), V.row(i));
    for (std::size_t c = 0; c < dp; ++c) Z[c] += PhiK(i, c);
    km.S.push_back(S);
    km.Z.push_back(Z);
    for (std::size_t c = 0; c < dv; ++c)
      for (std::size_t r = 0; r < dp; ++r) ref::muladd(km.num(i, c), PhiQ(i, r), S(r, c));
    km.den[i] = ref::dot(PhiQ.row(i), Z.data(), dp);
  }
  return km;
}

// ---- TTT instances (A004-TTT-*) ------------------------------------------------------------------------

enum class TokKind { gauss, rank_def, zero_tokens, repeated, small, large };
const char* tok_name(TokKind k) {
  switch (k) {
    case TokKind::gauss: return "G1";
    case TokKind::rank_def: return "rank-1 theta_K";
    case TokKind::zero_tokens: return "zero tokens";
    case TokKind::repeated: return "repeated tokens";
    case TokKind::small: return "token scale 1e-3";
    case TokKind::large: return "token scale 1e3";
  }
  return "?";
}
struct TttInst { DM X, thK, thV, thQ; };
TttInst ttt_instance(Rng& g, TokKind kind, std::size_t T, std::size_t din, std::size_t dk, std::size_t dv) {
  TttInst in;
  const double ws = 1.0 / std::sqrt(static_cast<double>(din));
  in.X = gauss(g, T, din);
  in.thK = gauss(g, dk, din, ws);
  in.thV = gauss(g, dv, din, ws);
  in.thQ = gauss(g, dk, din, ws);
  switch (kind) {
    case TokKind::gauss: break;
    case TokKind::rank_def: {
      const DM u = gauss(g, dk, 1), w = gauss(g, 1, din, ws);
      for (std::size_t i = 0; i < dk; ++i)
        for (std::size_t j = 0; j < din; ++j) in.thK(i, j) = u(i, 0) * w(0, j);
      break;
    }
    case TokKind::zero_tokens:
      for (std::size_t t = 0; t < T; t += 2)
        for (std::size_t j = 0; j < din; ++j) in.X(t, j) = 0;
      break;
    case TokKind::repeated:
      for (std::size_t t = 1; t < T; ++t)
        for (std::size_t j = 0; j < din; ++j) in.X(t, j) = in.X(t % 2, j);
      break;
    case TokKind::small: for (double& x : in.X.a) x *= 1e-3; break;
    case TokKind::large: for (double& x : in.X.a) x *= 1e3; break;
  }
  return in;
}
struct TttMp { MM Q, K, V; };
TttMp ttt_qkv(const TttInst& in) {
  const MM X = to_mp(in.X);
  return {ref::project(X, to_mp(in.thQ)), ref::project(X, to_mp(in.thK)), ref::project(X, to_mp(in.thV))};
}

// the theorem's metric: max_t ||z_t - o_t|| / max(1, ||o_t||)
double thm_metric(const MM& Z, const MM& O, std::size_t* arg) {
  double worst = 0;
  *arg = 0;
  for (std::size_t t = 0; t < Z.rows; ++t) {
    mp_t d(0), o(0), x;
    for (std::size_t j = 0; j < Z.cols; ++j) {
      x = Z(t, j) - O(t, j);
      ref::muladd(d, x, x);
      ref::muladd(o, O(t, j), O(t, j));
    }
    double r = to_d(mp_t(sqrt(d) / mp_max1(sqrt(o), mp_t(1))));
    if (std::isnan(r)) r = INFINITY;
    if (r > worst || t == 0) { worst = r; *arg = t; }
  }
  return worst;
}

struct TttDims { std::size_t T, din, dk, dv; };
std::string ttt_desc(const TttDims& d, TokKind k, int inst, std::uint64_t is) {
  return "T=" + std::to_string(d.T) + " d_in=" + std::to_string(d.din) + " d_k=" + std::to_string(d.dk) + " d_v=" + std::to_string(d.dv) +
         " tokens=" + tok_name(k) + " instance=" + std::to_string(inst) + " instance-seed=" + std::to_string(is);
}

// max over the entries a of W of |(l(W + h E_a) - l(W - h E_a)) / 2h - G_a|, l = ref::ttt_loss at (k, v);
// where: the worst entry (1-based row, column).
mp_t ttt_fd_max_err(const MM& W, const mp_t* k, const mp_t* v, const MM& G, const mp_t& h, std::string& where) {
  mp_t worst(0);
  std::size_t wa = 0;
  for (std::size_t a = 0; a < W.a.size(); ++a) {
    MM Wp = W, Wm = W;
    Wp.a[a] += h;
    Wm.a[a] -= h;
    const mp_t fd = (ref::ttt_loss(Wp, k, v) - ref::ttt_loss(Wm, k, v)) / (2 * h);
    const mp_t e = abs(mp_t(fd - G.a[a]));
    if (e > worst) { worst = e; wa = a; }
  }
  where = "entry (" + std::to_string(wa / W.cols + 1) + "," + std::to_string(wa % W.cols + 1) + ")";
  return worst;
}

// ---- delta items (A004-DELTA-*, A004-UPD-*) -------------------------------------------------------------

std::string dims(std::size_t n, std::size_t dk, std::size_t dv) {
  return "n=" + std::to_string(n) + " d_k=" + std::to_string(dk) + " d_v=" + std::to_string(dv);
}

// G3 write strengths {0, 1e-6, 0.5, 1} and U(0,1)
std::vector<double> betas_g3(Rng& g, std::size_t n) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  std::uniform_int_distribution<int> pick(0, 4);
  const double set[4] = {0.0, 1e-6, 0.5, 1.0};
  std::vector<double> b(n);
  for (double& x : b) {
    const int p = pick(g);
    x = p < 4 ? set[p] : U(g);
  }
  return b;
}
std::string list(const std::vector<double>& x, int prec = 3) {
  if (x.size() > 8) return "(" + std::to_string(x.size()) + " values)";
  std::string s;
  for (std::size_t i = 0; i < x.size(); ++i) s += (i ? "," : "") + fmt(x[i], prec);
  return "(" + s + ")";
}

// claim_support::combine, each part summarised with its worst instance / witness
ClaimResult combine_witness(const Parts& parts) { return claim_support::combine(parts, {PartSummary::instances_witness}); }

// the maps of A004-PHI-SET used by the delta items
std::vector<FeatureMap> delta_maps() {
  return {fmap(FeatureMapKind::identity), fmap(FeatureMapKind::elu1), fmap(FeatureMapKind::relu), fmap(FeatureMapKind::dpfp, 2, 1),
          fmap(FeatureMapKind::dpfp, 2, 3), fmap(FeatureMapKind::poly), fmap(FeatureMapKind::elu1, 2, 1, true),
          fmap(FeatureMapKind::elu1, 2, 1, false, true)};
}

// u-recursion of the delta rule (A000 F4 form 2): u_i = beta_i (v_i - sum_{j<i} (k_j . k_i) u_j),
// S_t = sum_{i<=t} u_i k_i^T; solved by ref::unit_lower_solve with A_ij = beta_i k_i . k_j.
MM delta_u(const MM& K, const MM& V, const MV& beta) {
  const std::size_t T = K.rows;
  MM A(T, T), BV = V;
  for (std::size_t i = 0; i < T; ++i) {
    for (std::size_t j = 0; j < i; ++j) A(i, j) = beta[i] * ref::dot(K.row(i), K.row(j), K.cols);
    for (std::size_t c = 0; c < V.cols; ++c) BV(i, c) = beta[i] * V(i, c);
  }
  return ref::unit_lower_solve(A, BV);
}

// description of a delta-item instance (sizes, map, keys, betas, seed)
std::string delta_desc(std::size_t n, std::size_t dk, std::size_t dv, const FeatureMap& f, Keys kind, const std::vector<double>& b,
                       std::uint64_t is) {
  return dims(n, dk, dv) + " phi=" + fmap_name(f, false) + " keys=" + keys_name(kind) + " beta=" + list(b) +
         " instance-seed=" + std::to_string(is);
}
// the keys map without a zero feature vector under a normalising wrapper (checked at the working digits)
bool keys_map(const FeatureMap& f, const DM& Kd, unsigned digits) {
  MpDigitsScope s(digits);
  MM PK;
  return try_map(f, to_mp(Kd), PK);
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::a004
