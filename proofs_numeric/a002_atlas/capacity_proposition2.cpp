// Paper A002 (Atlas) §3.1 Proposition 2 and its proof (App. C): capacity of a matrix memory over the
// degree-<= p monomial lifting phi_p (A002-POLY-MAP-MONO; ref::monomial_map of polynomial_maps.hpp), with the
// Kronecker power (A002-POLY-MAP-KRON, ref::kron_map) as the secondary map, and the optimizer-independent bound
// D = binom(d_k + p, p) implied by the proof. Exact: integer keys, lifted in cpp_rational, ranks/feasibility by
// recall/reference/capacity_rank.hpp (Bareiss, certified mod-p fast path); fp64 SVD ranks only as a diagnostic.
// The weighted map of Eq. 5 (A002-POLY-MAP-WEIGHTED) with all a_i != 0 is diag(w) phi_p with w_alpha != 0: the same
// row space, hence the same feasibility and capacity as phi_p (not recomputed; irrational weights).
// Instances: std::mt19937_64 seeded by mix(tag_seed(cfg.seed, ID), instance number), smallest sizes first.
// Spec IDs: A002-PROP2-POLY-CAPACITY, A002-PROP2-PROOF-D.
#include "recall/proofs/claims_a002.hpp"
#include "recall/proofs/ledger.hpp"
#include "a002_capacity_claims.hpp"
#include "claim_support.hpp"

#include "recall/reference/capacity_rank.hpp"
#include "recall/reference/polynomial_maps.hpp"
#include "recall/reference/svd.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::a002cap;

// Phi = [phi(k_1) ... phi(k_m)] (D x m) for keys K (d_k x m, columns); kron: the Kronecker power instead of phi_p.
MR lift(const MR& K, int p, bool kron) {
  const MR rows = kron ? ref::kron_map(ref::transpose(K), p) : ref::monomial_map(ref::transpose(K), p);
  return ref::transpose(rows);
}
double ipow(std::size_t b, int e) {
  double r = 1;
  for (int i = 0; i < e; ++i) r *= static_cast<double>(b);
  return r;
}

// Prop. 2 key families: KI (d_k independent keys; no more can satisfy the hypothesis), KG (generic integers in [-50,50]), KA-repeated
// (two distinct keys), KA-collinear (k_j = j u: Phi has rank <= p + 1), KA-orthonormal (m <= d_k, exact rational).
enum class P2Keys { KI, KG, repeated, collinear, ortho };
const char* p2name(P2Keys k) {
  switch (k) {
    case P2Keys::KI:
      return "KI";
    case P2Keys::KG:
      return "KG";
    case P2Keys::repeated:
      return "KA-repeated";
    case P2Keys::collinear:
      return "KA-collinear";
    case P2Keys::ortho:
      return "KA-orthonormal";
  }
  return "?";
}
MR p2_keys(std::mt19937_64& g, P2Keys kind, std::size_t dk, std::size_t mmax) {
  switch (kind) {
    case P2Keys::KI:
      return draw_keys(g, KeyGen::KI, dk, std::min(mmax, dk));  // the hypothesis allows at most d_k keys
    case P2Keys::KG:
      return int_matrix(g, dk, mmax, -50, 50);
    case P2Keys::repeated:
      return draw_keys(g, KeyGen::KA_repeated, dk, mmax);
    case P2Keys::collinear: {
      const MR u = int_matrix(g, dk, 1, -5, 5);
      MR K(dk, mmax);
      for (std::size_t j = 0; j < mmax; ++j)
        for (std::size_t i = 0; i < dk; ++i) K(i, j) = u(i, 0) * Rat(static_cast<int>(j) + 1);
      return K;
    }
    case P2Keys::ortho:
      return draw_keys(g, KeyGen::KA_ortho, dk, std::min(mmax, dk));
  }
  return MR();
}

// =============================================================================================
// A002-PROP2-POLY-CAPACITY: m* (largest m with exact memorization for every V: rank Phi_m = m, nested keys, m up to
// D + 2) for d_k in {2,3,4,5}, p in {1,2,3,4}, key families KI / KG / KA, maps MONO (primary) and KRON; consistency
// with generic V of d_v in {1, 64} rows and V = [e_1..e_m] (d_v = m) at m* (feasible) and m* + 1 (generic V
// infeasible); control: V = W Phi at m* + 1 is feasible. Decision ("at most O(d_k^p)"): m* <= C d_k^p with C not
// growing: for every p, m*/d_k^p at the largest d_k does not exceed its value at the smallest d_k (KG, MONO), and
// m* <= d_k^p (C = 1) is reported; KI is capped by the hypothesis at d_k.
// =============================================================================================
ClaimResult a002_prop2_poly_capacity(const CheckConfig& cfg) {
  const std::string tag = "A002-PROP2-POLY-CAPACITY";
  const std::vector<std::size_t> dks = cfg.quick ? std::vector<std::size_t>{2, 3, 4} : std::vector<std::size_t>{2, 3, 4, 5};
  const std::vector<int> ps = cfg.quick ? std::vector<int>{1, 2, 3} : std::vector<int>{1, 2, 3, 4};
  const P2Keys kinds[] = {P2Keys::KI, P2Keys::KG, P2Keys::repeated, P2Keys::collinear, P2Keys::ortho};
  int n = 0, inconsistent = 0, controls = 0, detected = 0, svd_n = 0, svd_agree = 0;
  double max_ratio = 0, max_ratio_kg = 0;
  std::string incons, table, kron_table, growth;
  bool grows = false;
  double max_growth = 0;
  std::map<std::pair<std::size_t, int>, std::size_t> m_mono, m_kron;  // measured m* (KG) for the figure
  ClaimFigure fig = figure("capacity_vs_degree", "Prop. 2: exact capacity m* of a matrix memory over phi_p vs the feature degree p",
                           "KG keys (generic integers); solid: MONO (m* = binom(d_k+p, p)); dotted: KRON; dashed: d_k^p.", "degree p", "m*", false, true);
  for (int p : ps) {
    double r_first = -1, r_last = -1;
    for (std::size_t dk : dks) {
      const std::size_t D = ref::monomial_map_dim(dk, p);
      for (P2Keys kind : kinds)
        for (int kron = 0; kron < 2; ++kron) {
          if (kron && kind != P2Keys::KG) continue;
          const std::uint64_t s = mix(tag_seed(cfg.seed, tag), static_cast<std::uint64_t>(n++));
          std::mt19937_64 g(s);
          const std::size_t rowsD = kron ? static_cast<std::size_t>(ipow(dk, p)) : D;
          const MR K = p2_keys(g, kind, dk, std::min<std::size_t>(D, rowsD) + 2);
          const MR Phi = lift(K, p, kron != 0);
          const std::size_t mstar = cap::prefix_capacity(Phi);
          const std::string desc = std::string(p2name(kind)) + (kron ? " KRON" : " MONO") + " d_k=" + sz(dk) + " p=" + sz(static_cast<std::size_t>(p)) + " D=" + sz(D) +
                                   " inst_seed=" + std::to_string(s);
          const double ratio = static_cast<double>(mstar) / ipow(dk, p);
          max_ratio = std::max(max_ratio, ratio);
          if (kind == P2Keys::KG && !kron) {
            max_ratio_kg = std::max(max_ratio_kg, ratio);
            if (r_first < 0) r_first = ratio;
            r_last = ratio;
            m_mono[{dk, p}] = mstar;
            table += std::string(table.empty() ? "" : " ") + "(" + sz(dk) + "," + sz(static_cast<std::size_t>(p)) + "):" + sz(mstar) + "/D=" + sz(D);
          }
          if (kind == P2Keys::KG && kron) m_kron[{dk, p}] = mstar;
          if (kind == P2Keys::KG && kron)
            kron_table += std::string(kron_table.empty() ? "" : " ") + "(" + sz(dk) + "," + sz(static_cast<std::size_t>(p)) + "):" + sz(mstar);
          if (mstar == 0 || mstar >= K.cols) continue;
          // consistency at m* and m* + 1, and the control
          const MR Pm = cap::first_cols(Phi, mstar), P1 = cap::first_cols(Phi, mstar + 1);
          bool ok = true;
          for (std::size_t dv : {std::size_t(1), std::size_t(64)}) {
            ok = ok && cap::exact_feasibility(Pm, generic_values(g, dv, mstar)).feasible;
            ok = ok && !cap::exact_feasibility(P1, generic_values(g, dv, mstar + 1)).feasible;
          }
          ok = ok && cap::exact_feasibility(Pm, unit_values(mstar, mstar)).feasible && !cap::exact_feasibility(P1, unit_values(mstar + 1, mstar + 1)).feasible;
          if (!ok && incons.empty()) incons = desc;
          inconsistent += !ok;
          ++controls;
          detected += cap::exact_feasibility(P1, ref::matmul(int_matrix(g, 2, P1.rows, -3, 3), P1)).feasible ? 1 : 0;
          if (kind == P2Keys::KG && !kron) {  // fp64 SVD rank diagnostic of Phi_{m*+1} (keys scaled to [-1,1])
            ref::Matrix<double> Kd(K.rows, mstar + 1);
            for (std::size_t i = 0; i < K.rows; ++i)
              for (std::size_t j = 0; j <= mstar; ++j) Kd(i, j) = static_cast<double>(K(i, j)) / 50.0;
            const ref::Matrix<double> Pd = ref::transpose(ref::monomial_map(ref::transpose(Kd), p));
            const auto sv = ref::svd(Pd);
            const double tol = static_cast<double>(std::max(Pd.rows, Pd.cols)) * 2.220446049250313e-16 * sv.sigma[0];
            ++svd_n;
            svd_agree += ref::numerical_rank(sv.sigma, tol) == cap::exact_rank(P1) ? 1 : 0;
          }
        }
    }
    max_growth = std::max(max_growth, r_last / r_first);
    if (r_last > r_first * (1 + 1e-12)) {
      grows = true;
      growth += std::string(growth.empty() ? "" : "; ") + "p=" + sz(static_cast<std::size_t>(p)) + ": " + fmt(r_first) + " -> " + fmt(r_last);
    }
  }
  // figure: measured m* vs p per d_k (KG keys; MONO and KRON), and d_k^p
  for (std::size_t dk : dks) {
    std::vector<double> x, ym, yk, yd;
    for (int p : ps) {
      x.push_back(p);
      ym.push_back(static_cast<double>(m_mono[{dk, p}]));
      yk.push_back(static_cast<double>(m_kron[{dk, p}]));
      yd.push_back(ipow(dk, p));
    }
    fig.series.push_back(series("MONO d_k=" + sz(dk), x, ym, "o", "solid"));
    fig.series.push_back(series("KRON d_k=" + sz(dk), x, yk, "s", "dotted"));
    fig.series.push_back(series("d_k^p d_k=" + sz(dk), x, yd, "", "dashed"));
  }
  ClaimResult r;
  auto& e = r.evidence;
  e.seed = cfg.seed;
  e.statistic = "max over p of (m*/d_k^p at the largest d_k) / (m*/d_k^p at the smallest d_k) (KG, MONO; m* exact): growth of C";
  e.value = max_growth;
  e.threshold = 1;
  e.instances = n;
  e.sizes = std::string("d_k in {") + (cfg.quick ? "2,3,4" : "2,3,4,5") + "}, p in {" + (cfg.quick ? "1,2,3" : "1,2,3,4") +
            "}, keys KI/KG/KA-{repeated,collinear,orthonormal}, MONO and KRON (KG), d_v in {1, 64, m}";
  e.extra.emplace_back("max m*/d_k^p over the grid (all families and maps)", fmt(max_ratio));
  e.extra.emplace_back("m* (KG, MONO) by (d_k, p)", table);
  e.extra.emplace_back("m* (KG, KRON) by (d_k, p) (= binom(d_k+p-1, p), the exact-degree monomials)", kron_table);
  e.extra.emplace_back("every-V consistency at m* / m*+1",
                       std::to_string(controls - inconsistent) + " of " + std::to_string(controls) + (incons.empty() ? "" : "; first: " + incons));
  e.extra.emplace_back("controls: V = W Phi_{m*+1} declared feasible", std::to_string(detected) + " of " + std::to_string(controls));
  e.extra.emplace_back("fp64 SVD rank diagnostic agrees with the exact rank (KG MONO)", std::to_string(svd_agree) + " of " + std::to_string(svd_n));
  e.extra.emplace_back("WEIGHTED map (a_i != 0)", "diag(w) phi_p with w != 0: same row space, same m* as MONO");
  e.extra.emplace_back("KI (linearly independent keys)", "m* = d_k (the hypothesis allows at most d_k keys), far below d_k^p for p >= 2");
  e.figures.push_back(fig);
  if (inconsistent > 0 || detected < controls) {
    r.verdict = Verdict::inconclusive;
    r.reason = "internal inconsistency of the exact tests (" + std::to_string(inconsistent) + " consistency failures, " + std::to_string(controls - detected) +
               " missed controls): no verdict";
  } else if (grows) {
    r.verdict = Verdict::violated;
    r.reason = "m*/d_k^p grows with d_k for some p: " + growth;
  } else {
    r.verdict = Verdict::holds;
    r.reason = "m* = binom(d_k+p, p) exactly for generic keys (MONO), so m*/d_k^p <= " + fmt(max_ratio_kg) +
               " and does not grow with d_k for any p; with linearly independent keys m* = d_k; degenerate keys store fewer";
  }
  return r;
}

// =============================================================================================
// A002-PROP2-PROOF-D: for m in {D+1, ..., D+5} KG keys (MONO): V = [e_1..e_m] (d_v = m) and generic integer V with
// d_v in {1, 3} < m must be infeasible (no memory of any kind over phi_p interpolates them); positive side: feasible
// at m = D (V = I_D and generic V). Control: V = W Phi (row space) at m > D is feasible. Exact.
// =============================================================================================
ClaimResult a002_prop2_proof_d(const CheckConfig& cfg) {
  const std::string tag = "A002-PROP2-PROOF-D";
  const std::vector<std::size_t> dks = cfg.quick ? std::vector<std::size_t>{2, 3, 4} : std::vector<std::size_t>{2, 3, 4, 5};
  const std::vector<int> ps = cfg.quick ? std::vector<int>{1, 2, 3} : std::vector<int>{1, 2, 3, 4};
  const std::vector<std::size_t> extra = cfg.quick ? std::vector<std::size_t>{1, 3} : std::vector<std::size_t>{1, 2, 3, 4, 5};
  exact::ExactTally t{"feasible (Phi, V) with m > D = binom(d_k+p, p), or infeasible at m = D"};
  int n = 0, positive_ok = 0, positive_n = 0;
  for (std::size_t dk : dks)
    for (int p : ps) {
      const std::size_t D = ref::monomial_map_dim(dk, p);
      const std::uint64_t s = mix(tag_seed(cfg.seed, tag), static_cast<std::uint64_t>(n++));
      std::mt19937_64 g(s);
      const MR K = int_matrix(g, dk, D + 5, -50, 50);
      const MR Phi = lift(K, p, false);
      const std::string base = "KG MONO d_k=" + sz(dk) + " p=" + sz(static_cast<std::size_t>(p)) + " D=" + sz(D) + " inst_seed=" + std::to_string(s);
      // positive side at m = D
      {
        const MR PD = cap::first_cols(Phi, D);
        const bool f1 = cap::exact_feasibility(PD, unit_values(D, D)).feasible, f2 = cap::exact_feasibility(PD, generic_values(g, 3, D)).feasible;
        ++positive_n;
        positive_ok += f1 && f2;
        t.add(f1 && f2 ? 0 : 1, base + " m=D (must be feasible)");
      }
      for (std::size_t x : extra) {
        const std::size_t m = D + x;
        const MR Pm = cap::first_cols(Phi, m);
        const std::string desc = base + " m=D+" + sz(x);
        t.add(cap::exact_feasibility(Pm, unit_values(m, m)).feasible ? 1 : 0, desc + " V=[e_1..e_m]");
        for (std::size_t dv : {std::size_t(1), std::size_t(3)})
          t.add(cap::exact_feasibility(Pm, generic_values(g, dv, m)).feasible ? 1 : 0, desc + " generic V d_v=" + sz(dv));
        t.control(cap::exact_feasibility(Pm, ref::matmul(int_matrix(g, 2, Pm.rows, -3, 3), Pm)).feasible ? 1 : 0, desc + " control V = W Phi");
      }
    }
  ClaimResult r = t.result(cfg,
                           std::string("KG keys in [-50,50], d_k in {") + (cfg.quick ? "2,3,4" : "2,3,4,5") + "}, p in {" + (cfg.quick ? "1,2,3" : "1,2,3,4") +
                               "}, m = D and D + {" + (cfg.quick ? "1,3" : "1..5") + "}",
                           "no value matrix outside the row space of Phi is memorized beyond D = binom(d_k+p, p), and D pairs are memorized");
  r.evidence.extra.emplace_back("positive side: feasible at m = D (identity and generic V)", std::to_string(positive_ok) + " of " + std::to_string(positive_n));
  return r;
}

}  // namespace

void register_a002_capacity_proposition2(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A002-PROP2-POLY-CAPACITY", "With a degree-<= p map a matrix memory stores at most O(d_k^p) pairs with linearly independent keys (Prop. 2)", inequality, false,
      a002_prop2_poly_capacity);
  add("A002-PROP2-PROOF-D", "No method memorizes more than D = binom(d_k+p, p) pairs under degree-<= p lifting (proof of Prop. 2)", identity, false, a002_prop2_proof_d);
}

}  // namespace recall
