// A000 (associative memory), Eq. 36 and App. 7.1 (Eqs. 60-64): the objective whose unit gradient
// step is the general recurrence (Eq. 35, symmetric A_t, B_t), and the symmetry condition for a
// potential to exist (Eqs. 61-63: sufficiency, and an exact search for non-symmetric pairs).
// Spec IDs: A000-GEN-OBJ, A000-GEN-OBJ-SYM.
#include "recall/proofs/ledger.hpp"
#include "recall/reference/delta_rule.hpp"
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/memory_objectives.hpp"
#include "claim_support.hpp"
#include "a000_objective_claims.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::a000_objective;

// ---- A000-GEN-OBJ ------------------------------------------------------------------------------

DM sym_kind(Rng& g, std::size_t n, int kind) {
  // 0 random symmetric (indefinite in general), 1 PSD (M^T M), 2 singular (rank n-1 or 0), 3 negative definite
  DM M = gauss(g, n, n), A(n, n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) A(i, j) = M(i, j) + M(j, i);
  if (kind == 1 || kind == 3) {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        double s = 0;
        for (std::size_t k = 0; k < n; ++k) s += M(k, i) * M(k, j);
        A(i, j) = kind == 1 ? s : -s;
      }
  } else if (kind == 2) {  // x x^T - y y^T on the first n-1 directions: singular (rank <= n - 1)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) A(i, j) = (i + 1 < n && j + 1 < n) ? M(i, j) + M(j, i) : 0.0;
  }
  return A;
}

ClaimResult a000_gen_obj(const CheckConfig& cfg) {
  Row r;
  r.name = "Eq.36 symmetric (A,B)";
  r.make = [](Rng& g, std::size_t dv, std::size_t dk, std::size_t t) -> Builder {
    const int kind = static_cast<int>(t % 4);
    const DM A = sym_kind(g, dv, kind), B = sym_kind(g, dk, (kind + 1) % 4), C = gauss(g, dv, dk), S = gauss(g, dv, dk);
    return [A, B, C, S]() {
      const ref::Abc<mp_t> m{to_mp(A), to_mp(B), to_mp(C)};
      RowInst in;
      in.L = [m](const MM& X) { return ref::general_objective(X, m); };
      in.hand = [m](const MM& X) { return ref::general_objective_grad(X, m); };
      in.update = [m](const MM& X) { return apply_abc(m, X); };
      in.S = to_mp(S);
      return in;
    };
  };
  // Contrast (evidence only): with a non-symmetric pair, the exact gradient of Eq. 36 is the derived
  // general gradient, and its unit step misses A S B + C by 1/2 (A S B - A^T S B^T).
  double nonsym = 0;
  {
    MpDigitsScope sc(cfg.digits);
    Rng g(tag_seed(cfg.seed, "GEN-OBJ-nonsym"));
    const ref::Abc<mp_t> m{to_mp(gauss(g, 2, 2)), to_mp(gauss(g, 2, 2)), to_mp(gauss(g, 2, 2))};
    const MM S = to_mp(gauss(g, 2, 2));
    const MM G = exact_grad([&](const MM& X) { return ref::general_objective(X, m); }, S);
    nonsym = rel_max(ref::add(S, G, mp_t(-1)), apply_abc(m, S));
  }
  ClaimResult res = harness_claim(cfg, "GEN-OBJ", {r});
  res.evidence.extra.emplace_back("non-symmetric 2x2 pair (contrast): unit-step residual", fmt(nonsym));
  return res;
}

// ---- A000-GEN-OBJ-SYM --------------------------------------------------------------------------

// ||B^T (x) A - B (x) A^T||_F^2 = sum_{ijkl} (B_ji A_kl - B_ij A_lk)^2 (Jacobian of S -> A S B is
// B^T (x) A in column-major vec); generic over the scalar.
template <class T> T kron_asym2(const ref::Matrix<T>& A, const ref::Matrix<T>& B) {
  T s(0);
  for (std::size_t i = 0; i < B.rows; ++i)
    for (std::size_t j = 0; j < B.rows; ++j)
      for (std::size_t k = 0; k < A.rows; ++k)
        for (std::size_t l = 0; l < A.rows; ++l) {
          const T d = B(j, i) * A(k, l) - B(i, j) * A(l, k);
          s += d * d;
        }
  return s;
}
template <class T> bool is_sym(const ref::Matrix<T>& A) {
  for (std::size_t i = 0; i < A.rows; ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (A(i, j) != A(j, i)) return false;
  return true;
}
std::string mat_str(const ref::Matrix<long long>& A) {
  std::string s = "[";
  for (std::size_t i = 0; i < A.rows; ++i) {
    s += i ? "; " : "";
    for (std::size_t j = 0; j < A.cols; ++j) s += (j ? " " : "") + std::to_string(A(i, j));
  }
  return s + "]";
}

DM family(Rng& g, std::size_t n, int f) {
  std::normal_distribution<double> N(0, 1);
  DM M = gauss(g, n, n), A(n, n);
  switch (f) {
    case 0: for (std::size_t i = 0; i < n; ++i) for (std::size_t j = 0; j < n; ++j) A(i, j) = M(i, j) + M(j, i); break;  // symmetric
    case 1: for (std::size_t i = 0; i < n; ++i) for (std::size_t j = 0; j < n; ++j) A(i, j) = M(i, j) - M(j, i); break;  // skew
    case 2: for (std::size_t i = 0; i < n; ++i) A(i, i) = M(i, i); break;                                                 // diagonal
    case 3: for (std::size_t i = 0; i < n; ++i) for (std::size_t j = 0; j <= i; ++j) A(i, j) = M(i, j); break;            // lower triangular
    case 4: {  // orthogonal: Householder I - 2 u u^T / u^T u
      double s = 0;
      for (std::size_t i = 0; i < n; ++i) s += M(0, i) * M(0, i);
      for (std::size_t i = 0; i < n; ++i) for (std::size_t j = 0; j < n; ++j) A(i, j) = (i == j) - 2 * M(0, i) * M(0, j) / s;
      if (n >= 2) { for (std::size_t j = 0; j < n; ++j) std::swap(A(0, j), A(1, j)); }  // a row swap: non-symmetric orthogonal
      break;
    }
    case 5: for (std::size_t i = 0; i < n; ++i) for (std::size_t j = 0; j < n; ++j) A(i, j) = M(0, i) * M(1 % n, j); break;  // rank one
    case 6: for (std::size_t i = 0; i < n; ++i) for (std::size_t j = 0; j < i; ++j) A(i, j) = M(i, j); break;              // nilpotent
    case 7: { const double c = N(g); for (std::size_t i = 0; i < n; ++i) A(i, i) = c; break; }                             // scalar I
    default: A = M; break;                                                                                                // general
  }
  return A;
}
const char* family_name(int f) {
  const char* n[9] = {"symmetric", "skew", "diagonal", "triangular", "orthogonal", "rank-one", "nilpotent", "scalar*I", "general"};
  return n[f];
}

ClaimResult a000_gen_obj_sym(const CheckConfig& cfg) {
  // (a) sufficiency: symmetric pairs give a symmetric Jacobian (kron residual 0).
  IdentityCheck suff("||B^T(x)A - B(x)A^T||_F / (||A|| ||B||) for symmetric pairs", cfg.digits);
  Rng g(tag_seed(cfg.seed, "GEN-OBJ-SYM"));
  for (std::size_t dv : {1u, 2u, 3u, 4u})
    for (std::size_t dk : {1u, 2u, 3u, 4u}) {
      const DM A = family(g, dv, 0), B = family(g, dk, 0);
      suff.add("d_v=" + std::to_string(dv) + " d_k=" + std::to_string(dk), [&](unsigned digits) {
        MpDigitsScope sc(digits);
        const MM a = to_mp(A), b = to_mp(B);
        return to_d(sqrt(kron_asym2(a, b)) / (ref::frob(a) * ref::frob(b) + mp_t(1e-300)));
      });
    }
  ClaimResult rs = suff.result(cfg, "random symmetric pairs, d_v, d_k in {1..4}");
  // (b) necessity: exact integer search over entries {-1,0,1}, dims <= 2 (exact arithmetic), plus
  // the structured families at 50 digits; any pair with a symmetric Jacobian that is not a pair of
  // symmetric matrices is a counterexample to "requires A_t and B_t to be symmetric".
  long long sols = 0, nonsym_sols = 0, zero_sols = 0, skew_sols = 0, total = 0;
  std::string first_witness, first_nondeg;
  auto enum_mats = [](std::size_t n) {
    std::vector<ref::Matrix<long long>> out;
    const std::size_t m = n * n;
    std::size_t cnt = 1;
    for (std::size_t i = 0; i < m; ++i) cnt *= 3;
    for (std::size_t c = 0; c < cnt; ++c) {
      ref::Matrix<long long> A(n, n);
      std::size_t x = c;
      for (std::size_t i = 0; i < m; ++i) { A.a[i] = static_cast<long long>(x % 3) - 1; x /= 3; }
      out.push_back(A);
    }
    return out;
  };
  const std::size_t maxd = 2;
  for (std::size_t dv = 1; dv <= maxd; ++dv)
    for (std::size_t dk = 1; dk <= maxd; ++dk) {
      const auto As = enum_mats(dv), Bs = enum_mats(dk);
      for (const auto& A : As)
        for (const auto& B : Bs) {
          ++total;
          if (kron_asym2(A, B) != 0) continue;
          ++sols;
          if (is_sym(A) && is_sym(B)) continue;
          ++nonsym_sols;
          const bool zero = std::all_of(A.a.begin(), A.a.end(), [](long long x) { return x == 0; }) ||
                            std::all_of(B.a.begin(), B.a.end(), [](long long x) { return x == 0; });
          if (zero) ++zero_sols;
          else ++skew_sols;
          const std::string w = "d_v=" + std::to_string(dv) + " d_k=" + std::to_string(dk) + " A=" + mat_str(A) + " B=" + mat_str(B);
          if (first_witness.empty()) first_witness = w;
          if (!zero && first_nondeg.empty()) first_nondeg = w;
        }
    }
  // structured families at 50 digits: pairs that are not both symmetric with a (numerically) zero kron residual
  std::string fam_hits;
  int fam_pairs = 0, fam_nonsym_zero = 0;
  {
    MpDigitsScope sc(cfg.digits);
    const mp_t thr = ten_pow(-static_cast<int>(cfg.digits) + 10);
    for (std::size_t n = 1; n <= 4; ++n)
      for (int fa = 0; fa < 9; ++fa)
        for (int fb = 0; fb < 9; ++fb) {
          const MM a = to_mp(family(g, n, fa)), b = to_mp(family(g, n, fb));
          ++fam_pairs;
          mp_t sa(0), sb(0);
          for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) { sa += abs(a(i, j) - a(j, i)); sb += abs(b(i, j) - b(j, i)); }
          if (sa == 0 && sb == 0) continue;
          const mp_t den = ref::frob(a) * ref::frob(b);
          if (den == 0 || sqrt(kron_asym2(a, b)) <= thr * den) {
            ++fam_nonsym_zero;
            const std::string h = std::string(family_name(fa)) + "/" + family_name(fb);
            if (fam_hits.find(h) == std::string::npos) fam_hits += (fam_hits.empty() ? "" : ", ") + h + "(d=" + std::to_string(n) + ")";
          }
        }
  }
  // confirm the nondegenerate witness (A = B = [0 1; -1 0]): Eq. 36 itself is a potential of the field
  // S -> S - A S B - C (exact gradient at 50 digits).
  double skew_pot = 0;
  {
    MpDigitsScope sc(cfg.digits);
    MM A(2, 2);
    A(0, 1) = 1;
    A(1, 0) = -1;
    const ref::Abc<mp_t> m{A, A, to_mp(gauss(g, 2, 2))};
    const MM S = to_mp(gauss(g, 2, 2));
    const MM G = exact_grad([&](const MM& X) { return ref::general_objective(X, m); }, S);
    skew_pot = rel_max(ref::add(S, G, mp_t(-1)), apply_abc(m, S));
  }
  ClaimResult rn;
  rn.evidence.statistic = "pairs (A, B) not both symmetric whose Jacobian I - B^T(x)A is symmetric (exact integer search)";
  rn.evidence.value = static_cast<double>(nonsym_sols);
  rn.evidence.threshold = 0;
  rn.evidence.instances = static_cast<int>(total);
  rn.evidence.sizes = "all pairs with entries in {-1,0,1}, d_v, d_k <= 2 (exact); 9x9 structured families, d = 1..4 (50 digits)";
  rn.evidence.digits = 0;
  rn.evidence.seed = cfg.seed;
  rn.evidence.extra.emplace_back("integer search", std::to_string(sols) + " solutions of " + std::to_string(total) + " pairs; " +
                                                       std::to_string(nonsym_sols) + " not both symmetric (" + std::to_string(zero_sols) +
                                                       " with A = 0 or B = 0, " + std::to_string(skew_sols) + " nonzero, all skew/skew)");
  rn.evidence.extra.emplace_back("smallest nondegenerate witness", first_nondeg);
  rn.evidence.extra.emplace_back("structured families", std::to_string(fam_nonsym_zero) + " of " + std::to_string(fam_pairs) +
                                                            " non-symmetric pairs with symmetric Jacobian: " + fam_hits);
  rn.evidence.extra.emplace_back("skew/skew witness: |S - grad Eq.36 - (A S B + C)| (Eq. 36 is a potential)", fmt(skew_pot));
  if (nonsym_sols > 0) {
    rn.verdict = Verdict::violated;
    rn.evidence.witness = first_witness;
    rn.reason = "necessity fails: the field is a gradient field for pairs that are not symmetric (A = 0 or B = 0 with the "
                "other arbitrary; A and B both skew-symmetric); exact integer witness";
  } else {
    rn.verdict = Verdict::holds;
    rn.reason = "no non-symmetric pair with a symmetric Jacobian was found";
  }
  return combine_parts({{"sufficiency", rs}, {"necessity", rn}});
}

}  // namespace

void register_a000_general_objective(Ledger& l) {
  const auto add = claim_support::claim_adder(l);
  using namespace check_class;
  add("A000-GEN-OBJ", "Objective whose unit gradient step is Eq. 35 (Eq. 36, symmetric A_t, B_t)", identity, false, a000_gen_obj);
  add("A000-GEN-OBJ-SYM", "Symmetry condition for a potential to exist (Eqs. 61-63)", identity, false, a000_gen_obj_sym);
}

}  // namespace recall
