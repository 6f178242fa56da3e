// Paper A002 (Atlas) §3.1 Theorem 1 (effect of deep memory) and its proof (App. C): the lower bound
// O(d_k d_v), the upper bound in its three index readings U0 (statement), U1 (proof's rank inequality) and U2
// (proof's final display), the rank inequality itself, the form implied by the proof (A K = V on one linear
// region), the "one linear region generically" statement and the depth/scaling remarks.
// References: recall/reference/capacity_rank.hpp (the minimal MLP memory written for these claims: ReLU/GELU,
// optional biases, activation patterns, pattern product A; exact ranks; U0/U1/U2).
//  * Memorizing networks are CONSTRUCTED, not trained (training with L-BFGS restarts and P1 polishing was not run):
//    - KI keys (linearly independent, m <= d_k): first layer W1 = P K^+ with a positive integer P (d_h x m, rank m),
//      deeper hidden layers positive integer matrices, so every key is in the all-active region; the output layer
//      W_L = V F^+ solves the last-hidden features F exactly (ReLU: exact rationals; GELU: P1 solve, residual).
//      KI caps m at d_k (rank K <= d_k), so this gives the exact KI capacity m_max = d_k.
//    - KG keys (generic integers, no hypothesis): random integer hidden layers and d_h + 2 generic keys; m = exact rank
//      of their last-hidden features: that many of these generic keys (those with independent features) are stored
//      for every V by solving the output layer: a lower estimate of the true capacity.
// Instances: std::mt19937_64 seeded by mix(tag_seed(cfg.seed, ID), instance number), smallest sizes first.
// Spec IDs: A002-THM1-DEEP-MEMORY, A002-THM1-LOWER, A002-THM1-UPPER, A002-THM1-RANK-PROOF, A002-THM1-RANK-PROOF-B,
// A002-THM1-PROOF-MINFORM, A002-THM1-SAMEREGION, A002-THM1-GROWTH.
#include "recall/proofs/claims_a002.hpp"
#include "recall/proofs/ledger.hpp"
#include "a002_capacity_claims.hpp"
#include "binomial_ci.hpp"
#include "claim_support.hpp"

#include "recall/reference/capacity_rank.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::a002cap;
using cap::MlpActivation;
using cap::MlpMemory;

std::vector<std::size_t> widths_of(std::size_t dk, std::size_t dh, std::size_t L, std::size_t dv) {
  std::vector<std::size_t> w{dk};
  for (std::size_t l = 1; l < L; ++l) w.push_back(dh);
  w.push_back(dv);
  return w;
}
std::string widths_str(const std::vector<std::size_t>& w) {
  std::string s;
  for (std::size_t x : w) s += (s.empty() ? "" : "-") + sz(x);
  return s;
}
double bd(const BigInt& x) { return static_cast<double>(x); }

// Exact W_L = V F^+ for a full-column-rank rational F (d_h x m): V (F^T F)^{-1} F^T.
MR output_layer(const MR& F, const MR& V) { return ref::matmul(V, cap::pinv_full_column_rank(F)); }

// ---- the construction on KI keys -------------------------------------------------------------------------------
struct KiNet {
  MlpMemory<Rat> net;  // output layer filled per value draw
  MR F;                // last-hidden features (d_h x m), all keys in the all-active region
};
// hidden layers of the all-active construction for KI keys K (d_k x m): W1 = diag(l) P K^+ (integer) with P in [1,9]^{d_h x m} of rank m,
// W_l in [1,9]^{d_h x d_h} for 1 < l < L; biases (if any) in [0,3]. Returns an empty F if a rank draw failed.
KiNet ki_network(std::mt19937_64& g, const MR& K, std::size_t dh, std::size_t L, bool bias) {
  KiNet o;
  const std::size_t m = K.cols;
  MR P;
  for (int t = 0; t < 100; ++t) {
    P = int_matrix(g, dh, m, 1, 9);
    if (cap::exact_rank(P) == m) break;
  }
  o.net.act = MlpActivation::relu;
  // W1 = P K^+ with each row scaled by the lcm of its denominators: integer weights, W1 K = diag(l) P > 0, rank m
  const ref::Matrix<BigInt> W1z = cap::integer_rows(ref::matmul(P, cap::pinv_full_column_rank(K)));
  MR W1(W1z.rows, W1z.cols);
  for (std::size_t i = 0; i < W1z.a.size(); ++i) W1.a[i] = Rat(W1z.a[i]);
  o.net.W.push_back(W1);
  for (std::size_t l = 2; l < L; ++l) o.net.W.push_back(int_matrix(g, dh, dh, 1, 9));
  o.net.W.push_back(MR());  // output layer placeholder
  if (bias) {
    for (std::size_t l = 1; l < L; ++l) o.net.b.push_back(int_matrix(g, dh, 1, 0, 3).a);
    o.net.b.push_back(VR());
  }
  // features of the last hidden layer
  o.F = MR(dh, m);
  for (std::size_t j = 0; j < m; ++j) {
    VR h(K.rows);
    for (std::size_t i = 0; i < K.rows; ++i) h[i] = K(i, j);
    for (std::size_t l = 0; l + 1 < L; ++l) {
      VR z = ref::matvec(o.net.W[l], h.data());
      if (bias)
        for (std::size_t i = 0; i < z.size(); ++i) z[i] += o.net.b[l][i];
      for (auto& x : z) x = ref::ffn::relu(x);
      h = z;
    }
    for (std::size_t i = 0; i < dh; ++i) o.F(i, j) = h[i];
  }
  if (cap::exact_rank(o.F) < m) o.F = MR();
  return o;
}
void set_output(MlpMemory<Rat>& net, const MR& WL, bool bias) {
  net.W.back() = WL;
  if (bias) net.b.back() = VR(WL.rows, Rat(0));
}

// KG random-feature network (integer weights in [-9,9], integer biases, generic integer keys in [-50,50]; exact
// in cpp_int): last-hidden features of d_h + 2 nested keys and whether all keys share one activation pattern.
struct KgNet {
  ref::Matrix<BigInt> F;
  bool one_region = true;
};
KgNet kg_features(std::mt19937_64& g, std::size_t dk, std::size_t dh, std::size_t dv, std::size_t L, bool bias) {
  auto imat = [&](std::size_t r, std::size_t c, int lo, int hi) {
    std::uniform_int_distribution<int> U(lo, hi);
    ref::Matrix<BigInt> m(r, c);
    for (auto& x : m.a) x = U(g);
    return m;
  };
  MlpMemory<BigInt> rn;
  rn.W.push_back(imat(dh, dk, -9, 9));
  for (std::size_t l = 2; l < L; ++l) rn.W.push_back(imat(dh, dh, -9, 9));
  rn.W.push_back(imat(dv, dh, -1, 1));
  if (bias)
    for (std::size_t l = 0; l < L; ++l) rn.b.push_back(imat(rn.W[l].rows, 1, -9, 9).a);
  const std::size_t mmax = dh + 2;
  const ref::Matrix<BigInt> KG = imat(dk, mmax, -50, 50);
  KgNet o;
  o.F = ref::Matrix<BigInt>(dh, mmax);
  std::vector<std::vector<unsigned char>> p0;
  for (std::size_t j = 0; j < mmax; ++j) {
    ref::Vector<BigInt> k(dk);
    for (std::size_t i = 0; i < dk; ++i) k[i] = KG(i, j);
    const auto z = cap::mlp_preactivations(rn, k);
    std::vector<std::vector<unsigned char>> pat(z.size() - 1);
    for (std::size_t l = 0; l + 1 < z.size(); ++l)
      for (const BigInt& x : z[l]) pat[l].push_back(x > 0);
    for (std::size_t i = 0; i < dh; ++i) o.F(i, j) = z[z.size() - 2][i] > 0 ? z[z.size() - 2][i] : BigInt(0);
    if (j == 0)
      p0 = pat;
    else
      o.one_region = o.one_region && pat == p0;
  }
  return o;
}

// ---- the grid shared by LOWER, UPPER, PROOF-MINFORM, GROWTH (computed once per (seed, quick)) ---------------------
struct Cell {
  std::size_t dk = 0, dv = 0, L = 0, dh = 0;
  bool bias = false, gelu = false;
  std::size_t m_ki = 0;         // KI capacity (constructed; hypothesis cap d_k)
  int ki_draws = 0, ki_ok = 0;  // value draws memorized at m = d_k
  double gelu_res = 0;          // GELU: worst relative residual at m = d_k
  std::size_t m_kg = 0;         // KG constructive lower estimate (ReLU only)
  std::string desc;
  // PROOF-MINFORM on the ReLU all-active networks (one region): exact ranks
  int mf_nets = 0, mf_rankV_bad = 0, mf_m_bad = 0;
  std::string mf_wit;
  std::size_t rankA = 0;
};
struct Grid {
  std::vector<Cell> cells;
  int kg_one_region = 0, kg_nets = 0;
};

Grid build_grid(const CheckConfig& cfg) {
  const std::string tag = "A002-THM1-LOWER";
  Grid G;
  const std::vector<std::size_t> dvs = cfg.quick ? std::vector<std::size_t>{1, 2, 4, 16} : std::vector<std::size_t>{1, 2, 3, 4, 8, 16, 64};
  const std::vector<std::size_t> dhs = cfg.quick ? std::vector<std::size_t>{4, 16} : std::vector<std::size_t>{4, 8, 16, 32};
  const int vdraws = cfg.quick ? 2 : 20;
  int n = 0;
  for (std::size_t dk : {2, 3, 4})
    for (std::size_t dv : dvs)
      for (std::size_t L : {2, 3})
        for (std::size_t dh : dhs)
          for (int bias = 0; bias < 2; ++bias)
            for (int gelu = 0; gelu < 2; ++gelu) {
              if (cfg.quick && gelu && (dv > 4 || dh > 4)) continue;  // GELU at P1 costs erf evaluations
              Cell c;
              c.dk = dk, c.dv = dv, c.L = L, c.dh = dh, c.bias = bias != 0, c.gelu = gelu != 0;
              const std::uint64_t s = mix(tag_seed(cfg.seed, tag), static_cast<std::uint64_t>(n++));
              std::mt19937_64 g(s);
              c.desc =
                  std::string(gelu ? "GELU" : "ReLU") + (bias ? "+bias" : "") + " widths " + widths_str(widths_of(dk, dh, L, dv)) + " inst_seed=" + std::to_string(s);
              const MR K = draw_keys(g, KeyGen::KI, dk, dk);
              KiNet kn = ki_network(g, K, dh, L, bias != 0);
              if (kn.F.empty()) {
                G.cells.push_back(c);
                continue;
              }
              // GELU value draws cost erf evaluations at P1: 1 (quick) / 3 (full) draws; F has full column rank, so every V is solved alike
              const int draws_here = gelu ? (cfg.quick ? 1 : 3) : vdraws;
              for (int d = 0; d < draws_here; ++d) {
                const MR V = generic_values(g, dv, dk);
                ++c.ki_draws;
                if (!gelu) {
                  set_output(kn.net, output_layer(kn.F, V), bias != 0);
                  bool ok = true;
                  if (d < 3) {  // full forward passes on the first 3 draws
                    for (std::size_t j = 0; j < dk && ok; ++j) {
                      VR k(dk), v(dv);
                      for (std::size_t i = 0; i < dk; ++i) k[i] = K(i, j);
                      for (std::size_t i = 0; i < dv; ++i) v[i] = V(i, j);
                      ok = cap::mlp_memory_forward(kn.net, k) == v;
                    }
                  } else {  // later draws: the output layer on the (exact, draw-independent) last-hidden features
                    ok = ref::matmul(kn.net.W.back(), kn.F).a == V.a;
                    if (bias) ok = ok && std::all_of(kn.net.b.back().begin(), kn.net.b.back().end(), [](const Rat& x) { return x == 0; });
                  }
                  c.ki_ok += ok;
                  if (!bias && ok && d == 0) {
                    // PROOF-MINFORM: all keys share the all-active pattern; A from the pattern, exact ranks
                    VR k0(dk);
                    for (std::size_t i = 0; i < dk; ++i) k0[i] = K(i, 0);
                    const auto pat = cap::relu_pattern(kn.net, k0);
                    bool same = true;
                    for (std::size_t j = 1; j < dk; ++j) {
                      VR k(dk);
                      for (std::size_t i = 0; i < dk; ++i) k[i] = K(i, j);
                      same = same && cap::relu_pattern(kn.net, k) == pat;
                    }
                    if (same) {
                      const MR A = cap::pattern_product(kn.net.W, pat);
                      const std::size_t rA = cap::exact_rank(A), rV = cap::exact_rank(V), m = dk;
                      c.rankA = rA;
                      ++c.mf_nets;
                      if (rV > rA) ++c.mf_rankV_bad;
                      if (m > std::min(rA, dk)) {
                        ++c.mf_m_bad;
                        if (c.mf_wit.empty())
                          c.mf_wit = c.desc + ": m = rank K = " + sz(m) + " > min(rank A = " + sz(rA) + ", d_k = " + sz(dk) + "), rank V = " + sz(rV) +
                                     "; exact memorization verified (A K = V exactly)";
                      }
                    }
                  }
                } else {
                  // GELU: features gelu(pre-activations) at P1, output layer by the normal equations, residual
                  MpDigitsScope sc(cfg.digits);
                  MlpMemory<mp_t> nm;
                  nm.act = MlpActivation::gelu;
                  for (std::size_t l = 0; l + 1 < kn.net.W.size(); ++l) nm.W.push_back(rat_mp(kn.net.W[l]));
                  nm.W.push_back(MM(dv, dh));  // output layer: solved below
                  if (bias) {
                    for (std::size_t l = 0; l + 1 < kn.net.b.size(); ++l) nm.b.push_back(rat_mp(kn.net.b[l]));
                    nm.b.push_back(MV(dv, mp_t(0)));
                  }
                  MM F(dh, dk);
                  for (std::size_t j = 0; j < dk; ++j) {
                    MV k(dk);
                    for (std::size_t i = 0; i < dk; ++i) k[i] = rat_mp(K(i, j));
                    const MV h = cap::mlp_last_hidden(nm, k);
                    for (std::size_t i = 0; i < dh; ++i) F(i, j) = h[i];
                  }
                  const MM Ft = ref::transpose(F), Gm = ref::matmul(Ft, F);
                  MM WL(dv, dh);
                  bool solved = true;
                  for (std::size_t i = 0; i < dv; ++i) {
                    MV rhs(dk);
                    for (std::size_t j = 0; j < dk; ++j) rhs[j] = rat_mp(V(i, j));
                    solved = solved && chol_solve(Gm, rhs);
                    const MV w = ref::matvec(F, rhs.data());
                    for (std::size_t q = 0; q < dh; ++q) WL(i, q) = w[q];
                  }
                  nm.W.back() = WL;
                  double worst = solved ? 0.0 : INFINITY;
                  for (std::size_t j = 0; j < dk && solved; ++j) {
                    MV k(dk), v(dv);
                    for (std::size_t i = 0; i < dk; ++i) k[i] = rat_mp(K(i, j));
                    for (std::size_t i = 0; i < dv; ++i) v[i] = rat_mp(V(i, j));
                    worst = std::max(worst, vecrel(cap::mlp_memory_forward(nm, k), v));
                  }
                  c.gelu_res = std::max(c.gelu_res, worst);
                  c.ki_ok += worst <= 1e-30;
                }
              }
              if (c.ki_ok == c.ki_draws) c.m_ki = dk;
              // KG (ReLU only): random integer hidden layers, nested generic keys, exact prefix capacity of the features
              if (!gelu) {
                const KgNet kg = kg_features(g, dk, dh, dv, L, bias != 0);
                c.m_kg = cap::exact_rank(kg.F);
                ++G.kg_nets;
                G.kg_one_region += kg.one_region;
              }
              G.cells.push_back(c);
            }
  return G;
}
const Grid& grid(const CheckConfig& cfg) {
  static std::mutex mu;
  static std::map<std::pair<std::uint64_t, bool>, Grid> cache;
  std::lock_guard<std::mutex> lk(mu);
  auto key = std::make_pair(cfg.seed, cfg.quick);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, build_grid(cfg)).first;
  return it->second;
}

// =============================================================================================
// A002-THM1-LOWER: "at least O(d_k d_v)" read as m_max >= kappa d_k d_v with kappa independent of the sizes.
// m_max (KI) is exact here: the construction memorizes d_k pairs (every value draw) and no KI key set has more
// than d_k keys (rank K <= d_k). Decision: the ratio m_max/(d_k d_v) must not shrink with the sizes: log-log slope
// of min_cells ratio against d_v; violated iff the slope is < -0.05 (the ratio is 1/d_v exactly when m_max = d_k).
// KG (no hypothesis): the constructive lower estimate is reported separately.
// =============================================================================================
ClaimResult a002_thm1_lower(const CheckConfig& cfg) {
  const Grid& G = grid(cfg);
  std::map<std::size_t, double> min_ratio;  // by d_v
  int fail = 0, n = 0;
  double worst_gelu = 0, kg_min = INFINITY, kg_max = 0;
  std::string fail_desc;
  for (const Cell& c : G.cells) {
    ++n;
    if (c.m_ki != c.dk) {
      ++fail;
      if (fail_desc.empty()) fail_desc = c.desc + ": " + std::to_string(c.ki_ok) + " of " + std::to_string(c.ki_draws) + " value draws memorized";
      continue;
    }
    const double ratio = static_cast<double>(c.m_ki) / static_cast<double>(c.dk * c.dv);
    auto it = min_ratio.find(c.dv);
    if (it == min_ratio.end() || ratio < it->second) min_ratio[c.dv] = ratio;
    if (c.gelu) worst_gelu = std::max(worst_gelu, c.gelu_res);
    if (!c.gelu) {
      const double q = static_cast<double>(c.m_kg) / static_cast<double>(c.dk * c.dv);
      kg_min = std::min(kg_min, q), kg_max = std::max(kg_max, q);
    }
  }
  std::vector<double> lx, ly, x, y;
  std::string tab;
  for (auto [dv, q] : min_ratio) {
    lx.push_back(std::log(static_cast<double>(dv))), ly.push_back(std::log(q));
    x.push_back(static_cast<double>(dv)), y.push_back(q);
    tab += std::string(tab.empty() ? "" : " ") + "d_v=" + sz(dv) + ":" + fmt(q);
  }
  const double slope = lx.size() >= 2 ? ols_slope(lx, ly) : 0.0;
  ClaimResult r;
  auto& e = r.evidence;
  e.seed = cfg.seed;
  e.digits = cfg.digits;
  e.statistic = "log-log slope of min m_max/(d_k d_v) against d_v (KI; kappa must not shrink: slope >= -0.05)";
  e.value = slope;
  e.threshold = -0.05;
  e.instances = n;
  e.sizes = std::string("d_k in {2,3,4}, d_v in {") + (cfg.quick ? "1,2,4,16" : "1,2,3,4,8,16,64") + "}, L in {2,3}, d_h in {" + (cfg.quick ? "4,16" : "4,8,16,32") +
            "}, ReLU/GELU, with/without biases; " + (cfg.quick ? "2" : "20") + " value draws per ReLU cell, " + (cfg.quick ? "1" : "3") + " per GELU cell";
  e.extra.emplace_back("min m_max/(d_k d_v) by d_v (KI)", tab);
  e.extra.emplace_back("KG constructive lower estimate m/(d_k d_v) (ReLU; no hypothesis)", "min " + fmt(kg_min) + ", max " + fmt(kg_max));
  e.extra.emplace_back("GELU constructions: worst relative residual at P1", fmt(worst_gelu));
  e.extra.emplace_back("method",
                       "constructed memorizing networks (training with restarts not run); KI capacity exact: rank K <= d_k caps m, the construction reaches d_k");
  ClaimFigure fig = figure("lower_bound_ratio", "Thm. 1 lower bound: m_max / (d_k d_v) with linearly independent keys",
                           "m_max = d_k exactly (KI: rank cap and construction), so the ratio is 1/d_v.", "d_v", "min m_max/(d_k d_v)", true, true);
  fig.series.push_back(series("KI", x, y));
  e.figures.push_back(fig);
  if (fail > 0) {
    r.verdict = Verdict::inconclusive;
    r.reason = "the construction failed on " + std::to_string(fail) + " cell(s) (e.g. " + fail_desc + "): m_max not determined there";
    e.witness = fail_desc;
  } else if (slope < -0.05) {
    r.verdict = Verdict::violated;
    e.witness = "d_k = 2..4, d_v = " + sz(min_ratio.rbegin()->first) + ": m_max = d_k, ratio " + fmt(min_ratio.rbegin()->second);
    r.reason = "with linearly independent keys m <= rank K <= d_k, so m_max/(d_k d_v) = 1/d_v (" + tab + "; slope " + fmt(slope) +
               "): no size-independent kappa; the networks do memorize d_k pairs exactly (ReLU exact, GELU to " + fmt(worst_gelu) + ")";
  } else {
    r.verdict = Verdict::holds;
    r.reason = "m_max/(d_k d_v) does not shrink with d_v (" + tab + ")";
  }
  return r;
}

// =============================================================================================
// A002-THM1-UPPER: m_max (KI, exact) vs U0 (statement), U1 (proof's rank inequality) and U2 (proof's final
// display), constant 1; decision: holds iff m_max <= U for every reading on every cell; maximal ratios reported.
// KG constructive estimates against the same expressions are reported separately (no hypothesis).
// =============================================================================================
ClaimResult a002_thm1_upper(const CheckConfig& cfg) {
  const Grid& G = grid(cfg);
  double worst[3] = {0, 0, 0}, kg_worst[3] = {0, 0, 0};
  int viol = 0, kg_exceed[3] = {0, 0, 0}, n = 0, kgn = 0;
  std::string wit, kg_wit;
  for (const Cell& c : G.cells) {
    const auto w = widths_of(c.dk, c.dh, c.L, c.dv);
    const double U[3] = {bd(cap::thm1_u0(w)), bd(cap::thm1_u1(w)), bd(cap::thm1_u2(w))};
    ++n;
    for (int i = 0; i < 3; ++i) {
      const double q = static_cast<double>(c.m_ki) / U[i];
      worst[i] = std::max(worst[i], q);
      if (q > 1) {
        ++viol;
        if (wit.empty()) wit = c.desc + ": m_max = " + sz(c.m_ki) + " > U" + std::to_string(i) + " = " + fmt(U[i]);
      }
    }
    if (!c.gelu) {
      ++kgn;
      for (int i = 0; i < 3; ++i) {
        const double q = static_cast<double>(c.m_kg) / U[i];
        kg_worst[i] = std::max(kg_worst[i], q);
        if (q > 1) {
          ++kg_exceed[i];
          if (kg_wit.empty()) kg_wit = c.desc + ": KG constructive m = " + sz(c.m_kg) + " > U" + std::to_string(i) + " = " + fmt(U[i]);
        }
      }
    }
  }
  ClaimResult r = claim_result(cfg, "max m_max/U over cells and readings U0, U1, U2 (KI)", std::max({worst[0], worst[1], worst[2]}), 1);
  auto& e = r.evidence;
  e.instances = n;
  e.sizes = "the A002-THM1-LOWER grid";
  e.witness = wit;
  e.extra.emplace_back("max m_max/U0, /U1, /U2 (KI)", fmt(worst[0]) + ", " + fmt(worst[1]) + ", " + fmt(worst[2]));
  e.extra.emplace_back("KG (no hypothesis): cells with constructive m > U0, U1, U2", std::to_string(kg_exceed[0]) + ", " + std::to_string(kg_exceed[1]) + ", " +
                                                                                         std::to_string(kg_exceed[2]) + " of " + std::to_string(kgn) +
                                                                                         (kg_wit.empty() ? "" : "; e.g. " + kg_wit));
  e.extra.emplace_back("KG max m/U0, /U1, /U2", fmt(kg_worst[0]) + ", " + fmt(kg_worst[1]) + ", " + fmt(kg_worst[2]));
  if (viol) {
    r.verdict = Verdict::violated;
    r.reason = "a KI capacity exceeds a reading of the bound: " + wit;
  } else {
    r.verdict = Verdict::holds;
    r.reason = "m_max = d_k <= U0, U1, U2 on every cell (max ratios " + fmt(worst[0]) + ", " + fmt(worst[1]) + ", " + fmt(worst[2]) +
               "; the hypothesis caps m at d_k). Without the hypothesis (KG) the constructive capacity exceeds U0/U1/U2 on " + std::to_string(kg_exceed[0]) + "/" +
               std::to_string(kg_exceed[1]) + "/" + std::to_string(kg_exceed[2]) + " of " + std::to_string(kgn) + " cells";
  }
  return r;
}

// =============================================================================================
// A002-THM1-RANK-PROOF: rank A <= U1 = sum_i (min_{j>=i} d^(j)) d^(i) for A = W^(L) D^(L-1) ... D^(1) W^(1) with
// integer weights in [-9,9], random 0/1 diagonals (every 10th all-ones, every 10th + 1 a single one), hidden widths
// in 1..32, L in 2..5, d_k, d_v in 1..8; exact ranks. Control: the wrong bound min(d_k, d_v, active units) - 1
// must be exceeded (rank generically attains the bottleneck), so the rank computation is shown to discriminate.
// =============================================================================================
ClaimResult a002_thm1_rank_proof(const CheckConfig& cfg) {
  const std::string tag = "A002-THM1-RANK-PROOF";
  const int N = cfg.quick ? 300 : 10000;
  exact::ExactTally t{"instances with rank A > U1"};
  double max_rank_over_u1 = 0, max_u1_over_rank_tight = 0;
  std::map<std::size_t, std::pair<std::size_t, double>> by_L;  // L -> (max rank, min U1 of that instance)
  for (int n = 0; n < N; ++n) {
    const std::uint64_t s = mix(tag_seed(cfg.seed, tag), static_cast<std::uint64_t>(n));
    std::mt19937_64 g(s);
    std::uniform_int_distribution<int> UL(2, 5), Ud(1, 8), Uw(1, 32), Uw9(-9, 9), Ub(0, 1);
    const std::size_t L = static_cast<std::size_t>(UL(g));
    std::vector<std::size_t> w{static_cast<std::size_t>(Ud(g))};
    for (std::size_t l = 1; l < L; ++l) w.push_back(static_cast<std::size_t>(Uw(g)));
    w.push_back(static_cast<std::size_t>(Ud(g)));
    std::vector<ref::Matrix<long long>> W;
    for (std::size_t l = 1; l <= L; ++l) {
      ref::Matrix<long long> M(w[l], w[l - 1]);
      for (auto& x : M.a) x = Uw9(g);
      W.push_back(M);
    }
    std::vector<std::vector<unsigned char>> D(L - 1);
    std::size_t bottleneck = std::min(w.front(), w.back());
    for (std::size_t l = 1; l < L; ++l) {
      D[l - 1].resize(w[l]);
      for (std::size_t i = 0; i < w[l]; ++i) D[l - 1][i] = n % 10 == 0 ? 1 : (n % 10 == 1 ? (i == 0) : Ub(g));
      std::size_t act = 0;
      for (auto x : D[l - 1]) act += x;
      bottleneck = std::min(bottleneck, act);
    }
    const ref::Matrix<long long> A = cap::pattern_product(W, D);  // |entries| <= 9^5 32^4 < 2^63
    MR Ar(A.rows, A.cols);
    for (std::size_t i = 0; i < A.a.size(); ++i) Ar.a[i] = Rat(A.a[i]);
    const std::size_t rk = cap::exact_rank(Ar);
    const double u1 = bd(cap::thm1_u1(w));
    const std::string desc = "L=" + sz(L) + " widths " + widths_str(w) + " inst_seed=" + std::to_string(s);
    t.add(static_cast<double>(rk) > u1 ? 1 : 0, desc + ": rank A = " + sz(rk) + ", U1 = " + fmt(u1));
    if (bottleneck >= 1) t.control(rk > bottleneck - 1 ? 1 : 0, desc + " (wrong bound min(d_k, d_v, active) - 1)");
    max_rank_over_u1 = std::max(max_rank_over_u1, static_cast<double>(rk) / u1);
    if (rk > 0) max_u1_over_rank_tight = std::max(max_u1_over_rank_tight, u1 / static_cast<double>(rk));
    auto& bl = by_L[L];
    bl.first = std::max(bl.first, rk);
  }
  ClaimResult r =
      t.result(cfg, std::to_string(N) + " instances: L in 2..5, hidden widths in 1..32, d_k, d_v in 1..8, integer weights in [-9,9], random/all-ones/single-one patterns",
               "rank A <= U1 on every instance");
  r.evidence.extra.emplace_back("max rank A / U1", fmt(max_rank_over_u1));
  r.evidence.extra.emplace_back("max U1 / rank A (looseness)", fmt(max_u1_over_rank_tight));
  r.evidence.extra.emplace_back("note", "rank A <= min over all widths and active counts, which is <= U1 always: the printed inequality is true but loose");
  return r;
}

// =============================================================================================
// A002-THM1-RANK-PROOF-B: is U1 = O(U2)? Ratio U1/U2 over width profiles (constant n, increasing n*l, decreasing
// n*(L-l), bottleneck n-1-n) with n in {10, 30, 100, 300, 1000}, L in {2,3,4}, (d_k, d_v) fixed at (2,2) and scaled
// as (n, n); exact integers. Decision: bounded iff the local log-log slope of U1/U2 between n = 300 and n = 1000 is <= 0.05 in every family.
// =============================================================================================
ClaimResult a002_thm1_rank_proof_b(const CheckConfig& cfg) {
  const std::vector<std::size_t> ns = {10, 30, 100, 300, 1000};
  const char* profs[4] = {"constant", "increasing", "decreasing", "bottleneck"};
  double worst_slope = -INFINITY, sup_ratio = 0;
  std::string witness, fams;
  int n_inst = 0;
  ClaimFigure fig =
      figure("u1_over_u2", "Thm. 1 proof: U1 / U2 over width profiles (d_k = d_v = 2)",
             "Exact integers; U1 = sum_i min_{j>=i} d^(j) d^(i), U2 = d_k d_v sum_i min_{j>=i} d^(j) d^(i+1).", "hidden width scale n", "U1 / U2", true, true);
  for (int scaled = 0; scaled < 2; ++scaled)
    for (std::size_t L : {2, 3, 4})
      for (int p = 0; p < 4; ++p) {
        if (p == 3 && L < 3) continue;
        std::vector<double> lx, ly, x, y;
        for (std::size_t nn : ns) {
          const std::size_t dk = scaled ? nn : 2, dv = scaled ? nn : 2;
          std::vector<std::size_t> w{dk};
          for (std::size_t l = 1; l < L; ++l) {
            std::size_t h = nn;
            if (p == 1) h = nn * l;
            if (p == 2) h = nn * (L - l);
            if (p == 3) h = (l == L / 2) ? 1 : nn;
            w.push_back(h);
          }
          w.push_back(dv);
          const double q = bd(cap::thm1_u1(w)) / bd(cap::thm1_u2(w));
          ++n_inst;
          sup_ratio = std::max(sup_ratio, q);
          lx.push_back(std::log(static_cast<double>(nn))), ly.push_back(std::log(q));
          x.push_back(static_cast<double>(nn)), y.push_back(q);
        }
        // asymptotic growth: the local slope between the two largest n (lower-order terms make a global fit drift)
        const double slope = (ly.back() - ly[ly.size() - 2]) / (lx.back() - lx[lx.size() - 2]);
        const std::string name = std::string(profs[p]) + " L=" + sz(L) + (scaled ? " d_k=d_v=n" : " d_k=d_v=2");
        fams += std::string(fams.empty() ? "" : "; ") + name + ": slope " + fmt(slope, 3) + ", U1/U2 at n=1000 " + fmt(y.back());
        if (slope > worst_slope) worst_slope = slope;
        if (slope > 0.05 && witness.empty()) witness = name + ": U1/U2 = " + fmt(y.front()) + " (n=10) ... " + fmt(y.back()) + " (n=1000), slope " + fmt(slope, 3);
        if (!scaled) fig.series.push_back(series(name, x, y));
      }
  ClaimResult r = claim_result(cfg, "largest local log-log slope of U1/U2 against the width scale n between n = 300 and 1000 (bounded iff <= 0.05)", worst_slope, 0.05);
  auto& e = r.evidence;
  e.instances = n_inst;
  e.sizes = "profiles constant/increasing/decreasing/bottleneck, L in {2,3,4}, n in {10,30,100,300,1000}, (d_k, d_v) = (2,2) or (n,n)";
  e.witness = witness;
  e.extra.emplace_back("families", fams);
  e.extra.emplace_back("sup U1/U2", fmt(sup_ratio));
  e.figures.push_back(fig);
  if (!witness.empty()) {
    r.verdict = Verdict::violated;
    r.reason = "U1/U2 grows without bound when the hidden widths grow at fixed d_k, d_v (the d^(i) factor of U1 becomes d^(i+1) in U2): " + witness;
  } else {
    r.verdict = Verdict::holds;
    r.reason = "U1/U2 stays bounded on every family (sup " + fmt(sup_ratio) + ")";
  }
  return r;
}

// =============================================================================================
// A002-THM1-PROOF-MINFORM: on the exactly memorizing ReLU networks without biases of the THM1-LOWER grid whose keys
// share one activation pattern (all of the KI constructions), form A from the pattern (exact) and test
// rank V <= rank A and m = rank K <= min(rank A, d_k). Decision: holds iff both hold on every such network.
// =============================================================================================
ClaimResult a002_thm1_proof_minform(const CheckConfig& cfg) {
  const Grid& G = grid(cfg);
  int nets = 0, bad_v = 0, bad_m = 0;
  std::string wit;
  for (const Cell& c : G.cells) {
    nets += c.mf_nets;
    bad_v += c.mf_rankV_bad;
    bad_m += c.mf_m_bad;
    if (wit.empty() && !c.mf_wit.empty()) wit = c.mf_wit;
  }
  ClaimResult r = claim_result(cfg, "one-region memorizing networks violating rank V <= rank A or m <= min(rank A, d_k)", bad_v + bad_m, 0);
  auto& e = r.evidence;
  e.instances = nets;
  e.sizes = "ReLU, no biases, KI keys, m = d_k, the A002-THM1-LOWER grid";
  e.witness = wit;
  e.extra.emplace_back("rank V <= rank A", std::to_string(nets - bad_v) + " of " + std::to_string(nets));
  e.extra.emplace_back("m <= min(rank A, d_k)", std::to_string(nets - bad_m) + " of " + std::to_string(nets));
  e.extra.emplace_back("KG random-feature networks with all keys in one region", std::to_string(G.kg_one_region) + " of " + std::to_string(G.kg_nets));
  if (nets == 0) {
    r.verdict = Verdict::inconclusive;
    r.reason = "no memorizing one-region network was available";
  } else if (bad_v + bad_m > 0) {
    r.verdict = Verdict::violated;
    r.reason = "A K = V gives rank V <= min(rank A, rank K) (" + std::to_string(nets - bad_v) + " of " + std::to_string(nets) +
               " hold), but not rank K <= rank A: whenever d_v < m the network memorizes m = rank K > rank A <= d_v pairs (" + std::to_string(bad_m) + " of " +
               std::to_string(nets) + " networks). Smallest: " + wit;
  } else {
    r.verdict = Verdict::holds;
    r.reason = "both inequalities hold on all " + std::to_string(nets) + " one-region networks";
  }
  return r;
}

// =============================================================================================
// A002-THM1-SAMEREGION: P(all m keys share one ReLU activation pattern) for Gaussian ReLU MLPs (d_k = 4, d_v = 2,
// d_h in {4,16,64}, depth 2..4, with/without biases) and Gaussian keys (m in {2,4,8,16}), after perturbing keys
// and weights by eps N(0,1), eps in {1e-1..1e-6}; 99% Clopper-Pearson intervals (README §2). Decision: supported
// iff the lower end exceeds 0.99 at the smallest eps in every cell; violated iff some cell's upper end is below 0.99.
// Pre-activations within 1e-12 of 0 are counted as ties (reported; they would need P1 tie-breaking).
// =============================================================================================
ClaimResult a002_thm1_sameregion(const CheckConfig& cfg) {
  const std::string tag = "A002-THM1-SAMEREGION";
  const int trials = cfg.quick ? 12 : 2000;  // the spec asks 1e5 per cell; 2000 resolve P far from 0.99 (full run ~15 s)
  const std::size_t dk = 4;                  // d_v = 2: the output layer has no activation pattern and is not drawn
  const std::vector<double> epss = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6};
  int cells = 0, bad_cells = 0, good_cells = 0;
  long ties = 0;
  std::string witness, table;
  double max_p_small = 0;
  ClaimFigure fig = figure("same_region_probability", "Thm. 1 proof: probability that all keys share one linear region (ReLU MLP, no biases, depth 2)",
                           "Gaussian keys and weights perturbed by eps N(0,1); d_k = 4.", "perturbation eps", "P(all keys in one region)", true, false);
  for (std::size_t dh : {4, 16, 64})
    for (std::size_t L : {2, 3, 4})
      for (int bias = 0; bias < 2; ++bias)
        for (std::size_t m : {2, 4, 8, 16}) {
          // one base network, base keys and perturbation directions per trial; eps scales the directions
          const std::uint64_t s = mix(tag_seed(cfg.seed, tag), static_cast<std::uint64_t>(cells));
          cells += static_cast<int>(epss.size());
          Gauss g(s);
          std::vector<long> hits(epss.size(), 0);
          for (int t = 0; t < trials; ++t) {
            std::vector<DM> W0, GW;
            std::vector<std::vector<double>> b0, gb;
            for (std::size_t l = 0; l + 1 < L; ++l) {  // hidden layers only: the output layer has no pattern
              const std::size_t cols = l == 0 ? dk : dh;
              W0.push_back(gauss_matrix(dh, cols, g, 1.0 / std::sqrt(static_cast<double>(cols))));
              GW.push_back(gauss_matrix(dh, cols, g));
              std::vector<double> bb(dh, 0.0), gg(dh, 0.0);
              if (bias)
                for (std::size_t i = 0; i < dh; ++i) bb[i] = 0.1 * g.normal(), gg[i] = g.normal();
              b0.push_back(bb), gb.push_back(gg);
            }
            const DM K0 = gauss_matrix(m, dk, g), GK = gauss_matrix(m, dk, g);
            for (std::size_t ie = 0; ie < epss.size(); ++ie) {
              const double eps = epss[ie];
              std::vector<DM> W = W0;
              std::vector<std::vector<double>> b = b0;
              for (std::size_t l = 0; l < W.size(); ++l) {
                for (std::size_t i = 0; i < W[l].a.size(); ++i) W[l].a[i] += eps * GW[l].a[i];
                for (std::size_t i = 0; i < b[l].size(); ++i) b[l][i] += eps * gb[l][i];
              }
              std::vector<unsigned char> p0;
              bool same = true;
              for (std::size_t j = 0; j < m && same; ++j) {
                std::vector<double> h(dk);
                for (std::size_t i = 0; i < dk; ++i) h[i] = K0(j, i) + eps * GK(j, i);
                std::vector<unsigned char> pat;
                for (std::size_t l = 0; l < W.size(); ++l) {
                  std::vector<double> z = ref::matvec(W[l], h.data());
                  for (std::size_t i = 0; i < z.size(); ++i) {
                    z[i] += b[l][i];
                    if (z[i] != 0 && std::fabs(z[i]) < 1e-12) ++ties;  // exact zeros come from an all-inactive layer: no tie
                    pat.push_back(z[i] > 0);
                    z[i] = z[i] > 0 ? z[i] : 0.0;
                  }
                  h = z;
                }
                if (j == 0)
                  p0 = pat;
                else
                  same = pat == p0;
              }
              hits[ie] += same;
            }
          }
          std::vector<double> fx, fy;
          for (std::size_t ie = 0; ie < epss.size(); ++ie) fx.push_back(epss[ie]), fy.push_back(static_cast<double>(hits[ie]) / trials);
          const long hs = hits.back();
          const auto [lo, hi] = cp99(hs, trials);
          const std::string desc = "d_h=" + sz(dh) + " depth=" + sz(L) + (bias ? " biases" : " no biases") + " m=" + sz(m) + " eps=1e-6 inst_seed=" + std::to_string(s);
          max_p_small = std::max(max_p_small, static_cast<double>(hs) / trials);
          if (hi < 0.99) {
            ++bad_cells;
            if (witness.empty()) witness = desc + ": " + std::to_string(hs) + " of " + std::to_string(trials) + " trials, 99% CI [" + fmt(lo) + ", " + fmt(hi) + "]";
          } else if (lo > 0.99) {
            ++good_cells;
          }
          if (table.size() < 600)
            table += std::string(table.empty() ? "" : "; ") + "d_h=" + sz(dh) + " L=" + sz(L) + (bias ? "+b" : "") + " m=" + sz(m) + ": " +
                     fmt(static_cast<double>(hs) / trials);
          if (L == 2 && !bias) fig.series.push_back(series("d_h=" + sz(dh) + " m=" + sz(m), fx, fy));
        }
  const int ncells = cells / static_cast<int>(epss.size());
  ClaimResult r = claim_result(cfg, "cells whose 99% CI upper end of P(one region) at eps = 1e-6 is below 0.99", bad_cells, 0);
  auto& e = r.evidence;
  e.instances = cells * trials;
  e.sizes = "d_k=4, d_v=2, d_h in {4,16,64}, depth 2..4, biases yes/no, m in {2,4,8,16}, eps in 1e-1..1e-6, " + std::to_string(trials) + " trials per cell";
  e.witness = witness;
  e.extra.emplace_back("P(one region) at eps = 1e-6 (sample)", table);
  e.extra.emplace_back("max P over cells at eps = 1e-6", fmt(max_p_small));
  e.extra.emplace_back("pre-activation ties |z| < 1e-12", std::to_string(ties));
  e.figures.push_back(fig);
  if (bad_cells > 0) {
    r.verdict = Verdict::violated;
    r.reason =
        std::to_string(bad_cells) + " of " + std::to_string(ncells) +
        " cells keep P(all keys in one region) well below 1 as eps -> 0 (perturbations do not merge regions; the probability is continuous at eps = 0). Smallest: " +
        witness;
  } else if (good_cells == ncells) {
    r.verdict = Verdict::holds;
    r.reason = "P(one region) -> 1 with CI lower end > 0.99 in every cell";
  } else {
    r.verdict = Verdict::inconclusive;
    r.reason = "the CIs straddle 0.99 in some cells";
  }
  return r;
}

// =============================================================================================
// A002-THM1-GROWTH: (a) capacity against depth L in {1 (linear), 2, 3, 4} at d_h = 8, d_k in {2,3,4}, d_v in {1,2,4}:
// KI exact (m = d_k at every depth: linear memory by Prop. 1's rank, deep by the construction and the rank cap), KG
// constructive lower estimates; "grows with depth" iff strictly increasing over 1..4 for each size. (b) exponent rho
// of U ~ d^rho for d_k = d_v = d in 2^1..2^10, d_h in {64, d, 4d}, L in {2,3}, readings U0/U1/U2: local slope between
// d = 512 and 1024 (exact integers); "subquadratic" iff rho < 2 - 0.05. Verdict: violated if (a) fails under KI or the
// printed bound U0 is not subquadratic in some family.
// =============================================================================================
ClaimResult a002_thm1_growth(const CheckConfig& cfg) {
  const std::string tag = "A002-THM1-GROWTH";
  // (a)
  int sizes_a = 0, ki_strict = 0, kg_strict = 0;
  ClaimFigure depth_fig = figure("capacity_vs_depth", "Thm. 1 remark: storable pairs vs memory depth (d_h = 8)",
                                 "KI: exact (linearly independent keys); KG: constructive lower estimate (rank of the last-hidden features).",
                                 "depth L (1 = linear memory)", "pairs stored for every V", false, false);
  std::string tab_a;
  {
    int n = 0;
    for (std::size_t dk : {2, 3, 4})
      for (std::size_t dv : {1, 2, 4}) {
        std::vector<std::size_t> ki, kg;
        for (std::size_t L = 1; L <= 4; ++L) {
          const std::uint64_t s = mix(tag_seed(cfg.seed, tag), static_cast<std::uint64_t>(n++));
          std::mt19937_64 g(s);
          const std::size_t dh = 8;
          if (L == 1) {
            const MR K = capacity_keys(g, KeyGen::KI, dk, dk + 2);
            ki.push_back(cap::prefix_capacity(K));
            kg.push_back(cap::prefix_capacity(int_matrix(g, dk, dk + 2, -50, 50)));
            continue;
          }
          const MR K = draw_keys(g, KeyGen::KI, dk, dk);
          KiNet kn = ki_network(g, K, dh, L, false);
          bool ok = !kn.F.empty();
          if (ok) {
            const MR V = generic_values(g, dv, dk);
            set_output(kn.net, output_layer(kn.F, V), false);
            for (std::size_t j = 0; j < dk && ok; ++j) {
              VR k(dk), v(dv);
              for (std::size_t i = 0; i < dk; ++i) k[i] = K(i, j);
              for (std::size_t i = 0; i < dv; ++i) v[i] = V(i, j);
              ok = cap::mlp_memory_forward(kn.net, k) == v;
            }
          }
          ki.push_back(ok ? dk : 0);
          const KgNet kgn = kg_features(g, dk, dh, dv, L, false);
          kg.push_back(cap::exact_rank(kgn.F));
        }
        ++sizes_a;
        bool sk = true, sg = true;
        for (std::size_t i = 1; i < 4; ++i) sk = sk && ki[i] > ki[i - 1], sg = sg && kg[i] > kg[i - 1];
        ki_strict += sk, kg_strict += sg;
        if (dk == 4) {
          const std::vector<double> depth = {1, 2, 3, 4};
          depth_fig.series.push_back(series("KI d_k=4 d_v=" + sz(dv), depth, {double(ki[0]), double(ki[1]), double(ki[2]), double(ki[3])}, "o", "solid"));
          depth_fig.series.push_back(series("KG d_k=4 d_v=" + sz(dv), depth, {double(kg[0]), double(kg[1]), double(kg[2]), double(kg[3])}, "s", "dashed"));
        }
        tab_a += std::string(tab_a.empty() ? "" : "; ") + "(" + sz(dk) + "," + sz(dv) + ") KI " + sz(ki[0]) + "," + sz(ki[1]) + "," + sz(ki[2]) + "," + sz(ki[3]) +
                 " KG " + sz(kg[0]) + "," + sz(kg[1]) + "," + sz(kg[2]) + "," + sz(kg[3]);
      }
  }
  // (b)
  const char* rname[3] = {"U0", "U1", "U2"};
  std::string tab_b;
  double rho_u0_min = INFINITY, rho_max = 0;
  int notsub[3] = {0, 0, 0}, fams = 0;
  ClaimFigure fig = figure("upper_bound_growth", "Thm. 1: the upper-bound expressions for d_k = d_v = d (L = 2)",
                           "Solid U0 (statement), dashed U1 (proof's rank bound), dotted U2 (proof's final display); exact integers.", "d", "U", true, true);
  for (std::size_t L : {2, 3})
    for (int fam = 0; fam < 3; ++fam) {
      ++fams;
      for (int rd = 0; rd < 3; ++rd) {
        std::vector<double> x, y;
        for (std::size_t d = 2; d <= 1024; d *= 2) {
          const std::size_t dh = fam == 0 ? 64 : (fam == 1 ? d : 4 * d);
          const auto w = widths_of(d, dh, L, d);
          const BigInt U = rd == 0 ? cap::thm1_u0(w) : (rd == 1 ? cap::thm1_u1(w) : cap::thm1_u2(w));
          x.push_back(static_cast<double>(d)), y.push_back(bd(U));
        }
        const double rho = std::log2(y.back() / y[y.size() - 2]);
        const std::string fn = std::string(fam == 0 ? "d_h=64" : (fam == 1 ? "d_h=d" : "d_h=4d")) + " L=" + sz(L);
        tab_b += std::string(tab_b.empty() ? "" : "; ") + rname[rd] + " " + fn + ": rho=" + fmt(rho, 4);
        if (rho >= 1.95) ++notsub[rd];
        if (rd == 0) rho_u0_min = std::min(rho_u0_min, rho);
        rho_max = std::max(rho_max, rho);
        if (L == 2) fig.series.push_back(series(std::string(rname[rd]) + " " + fn, x, y, "o", rd == 0 ? "solid" : (rd == 1 ? "dashed" : "dotted")));
      }
    }
  ClaimResult r = claim_result(cfg, "smallest exponent rho of the printed bound U0 ~ d^rho over the families (subquadratic iff < 1.95)", rho_u0_min, 1.95);
  auto& e = r.evidence;
  e.instances = sizes_a * 4 + fams * 3 * 10;
  e.sizes = "(a) d_h = 8, d_k in {2,3,4}, d_v in {1,2,4}, L = 1..4; (b) d = 2..1024, d_h in {64, d, 4d}, L in {2,3}";
  e.extra.emplace_back("(a) capacity by depth 1..4 (KI exact; KG constructive lower estimate)", tab_a);
  e.extra.emplace_back("(a) sizes strictly increasing in depth",
                       "KI " + std::to_string(ki_strict) + " of " + std::to_string(sizes_a) + ", KG " + std::to_string(kg_strict) + " of " + std::to_string(sizes_a));
  e.extra.emplace_back("(b) exponents", tab_b);
  e.extra.emplace_back("(b) families not subquadratic (U0, U1, U2)",
                       std::to_string(notsub[0]) + ", " + std::to_string(notsub[1]) + ", " + std::to_string(notsub[2]) + " of " + std::to_string(fams));
  e.figures.push_back(depth_fig);
  e.figures.push_back(fig);
  const bool a_fail = ki_strict<sizes_a, b_fail = notsub[0]> 0;
  e.witness = a_fail ? "(a) KI capacity by depth: " + tab_a.substr(0, tab_a.find(';')) : "(b) " + tab_b.substr(0, tab_b.find(';'));
  if (a_fail || b_fail) {
    r.verdict = Verdict::violated;
    r.reason = std::string(a_fail ? "(a) with linearly independent keys the capacity is d_k at every depth (not growing; " + std::to_string(ki_strict) + " of " +
                                        std::to_string(sizes_a) + " sizes strictly increase)"
                                  : "(a) capacity grows with depth") +
               "; " +
               (b_fail ? "(b) the printed bound U0 grows like d^" + fmt(rho_u0_min, 3) + " or faster (not subquadratic in " + std::to_string(notsub[0]) + " of " +
                             std::to_string(fams) + " families; U1: " + std::to_string(notsub[1]) + ", U2: " + std::to_string(notsub[2]) + ")"
                       : "(b) U0 is subquadratic");
  } else {
    r.verdict = Verdict::holds;
    r.reason = "capacity strictly increases with depth and U0 is subquadratic on every family";
  }
  return r;
}

// The split checks' results per (ID, seed, quick, digits), shared with A002-THM1-DEEP-MEMORY: a registered split
// claim always computes afresh and stores its result (fresh = true); the conjunction reuses a stored result.
ClaimResult cached(const char* id, const CheckConfig& cfg, ClaimResult (*fn)(const CheckConfig&), bool fresh = false) {
  static std::mutex mu;
  static std::map<std::tuple<std::string, std::uint64_t, bool, unsigned>, ClaimResult> cache;
  const auto key = std::make_tuple(std::string(id), cfg.seed, cfg.quick, cfg.digits);
  {
    std::lock_guard<std::mutex> lk(mu);
    auto it = cache.find(key);
    if (!fresh && it != cache.end()) return it->second;
  }
  ClaimResult r = fn(cfg);
  std::lock_guard<std::mutex> lk(mu);
  cache[key] = r;
  return r;
}

// =============================================================================================
// A002-THM1-DEEP-MEMORY: the conjunction of the split checks (LOWER, UPPER, RANK-PROOF, RANK-PROOF-B,
// PROOF-MINFORM, SAMEREGION, GROWTH).
// =============================================================================================
ClaimResult a002_thm1_deep_memory(const CheckConfig& cfg) {
  Parts parts;
  parts.emplace_back("A002-THM1-LOWER", cached("A002-THM1-LOWER", cfg, a002_thm1_lower));
  parts.emplace_back("A002-THM1-UPPER", cached("A002-THM1-UPPER", cfg, a002_thm1_upper));
  parts.emplace_back("A002-THM1-RANK-PROOF", cached("A002-THM1-RANK-PROOF", cfg, a002_thm1_rank_proof));
  parts.emplace_back("A002-THM1-RANK-PROOF-B", cached("A002-THM1-RANK-PROOF-B", cfg, a002_thm1_rank_proof_b));
  parts.emplace_back("A002-THM1-PROOF-MINFORM", cached("A002-THM1-PROOF-MINFORM", cfg, a002_thm1_proof_minform));
  parts.emplace_back("A002-THM1-SAMEREGION", cached("A002-THM1-SAMEREGION", cfg, a002_thm1_sameregion));
  parts.emplace_back("A002-THM1-GROWTH", cached("A002-THM1-GROWTH", cfg, a002_thm1_growth));
  for (auto& p : parts) p.second.evidence.figures.clear();  // the parts' figures are reported by their own claims
  return combine(parts, CombineStyle{PartSummary::reason, true});
}

}  // namespace

void register_a002_capacity_theorem1(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A002-THM1-DEEP-MEMORY", "An MLP memory with >= 2 layers stores at least O(d_k d_v) and at most the stated width expression many pairs (Thm. 1)", inequality, false,
      a002_thm1_deep_memory);
  add("A002-THM1-LOWER", "Lower bound of Thm. 1: at least O(d_k d_v) pairs with linearly independent keys", scaling, false,
      [](const CheckConfig& c) { return cached("A002-THM1-LOWER", c, a002_thm1_lower, true); });
  add("A002-THM1-UPPER", "Upper bound of Thm. 1 (statement index form U0; proof forms U1, U2) on the number of storable pairs", inequality, false,
      [](const CheckConfig& c) { return cached("A002-THM1-UPPER", c, a002_thm1_upper, true); });
  add("A002-THM1-RANK-PROOF", "rank(A) <= sum_i (min_{j>=i} d^(j)) d^(i) for the activation-pattern product A (proof of Thm. 1)", inequality, false,
      [](const CheckConfig& c) { return cached("A002-THM1-RANK-PROOF", c, a002_thm1_rank_proof, true); });
  add("A002-THM1-RANK-PROOF-B", "U1 = O(d_k d_v sum_i min_{j>=i} d^(j) d^(i+1)) (final display of the proof of Thm. 1)", scaling, false,
      [](const CheckConfig& c) { return cached("A002-THM1-RANK-PROOF-B", c, a002_thm1_rank_proof_b, true); });
  add("A002-THM1-PROOF-MINFORM", "Exact memorization in one linear region implies rank V <= rank A and m <= min(rank A, d_k) (proof of Thm. 1)", inequality, false,
      [](const CheckConfig& c) { return cached("A002-THM1-PROOF-MINFORM", c, a002_thm1_proof_minform, true); });
  add("A002-THM1-SAMEREGION", "All keys lie in one linear region of a ReLU MLP generically after a small perturbation (proof of Thm. 1)", statistical, false,
      [](const CheckConfig& c) { return cached("A002-THM1-SAMEREGION", c, a002_thm1_sameregion, true); });
  add("A002-THM1-GROWTH", "Deep-memory capacity grows with depth; the upper bound is subquadratic in the key/value dimensions (§3.1)", scaling, false,
      [](const CheckConfig& c) { return cached("A002-THM1-GROWTH", c, a002_thm1_growth, true); });
}

}  // namespace recall
