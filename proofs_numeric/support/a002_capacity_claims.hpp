// Shared helpers of the A002 capacity claims (capacity_proposition1.cpp, capacity_theorem1.cpp,
// capacity_proposition2.cpp): exact key/value generators in the App. C column convention (K: d_k x m),
// the key generators KI / KG / KA of the spec's Part C set-up, and small reporting helpers. Internal linkage,
// like claim_support.hpp. Exact decisions use recall/reference/capacity_rank.hpp.
#pragma once

#include "claim_support.hpp"
#include "exact_tally.hpp"

#include "recall/reference/capacity_rank.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace recall::claim_support::a002cap {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

namespace cap = ref::capacity;
using Rat = cap::Rational;
using BigInt = cap::BigInt;
using MR = ref::Matrix<Rat>;
using VR = ref::Vector<Rat>;

std::string sz(std::size_t x) { return std::to_string(x); }

// Key generators of Part C: KI (linearly independent, accepted by exact rank), KG (generic integers),
// KA adversarial sub-families.
enum class KeyGen { KI, KG, KA_ortho, KA_ortho2, KA_neardep, KA_repeated };
const char* keygen_name(KeyGen g) {
  switch (g) {
    case KeyGen::KI:
      return "KI";
    case KeyGen::KG:
      return "KG";
    case KeyGen::KA_ortho:
      return "KA-orthonormal";
    case KeyGen::KA_ortho2:
      return "KA-orthonormal-x2";
    case KeyGen::KA_neardep:
      return "KA-nearly-dependent";
    case KeyGen::KA_repeated:
      return "KA-repeated";
  }
  return "?";
}

// integer matrix with entries uniform in [lo, hi]
MR int_matrix(std::mt19937_64& g, std::size_t r, std::size_t c, int lo, int hi) {
  std::uniform_int_distribution<int> U(lo, hi);
  MR m(r, c);
  for (auto& x : m.a) x = U(g);
  return m;
}

// An exactly orthogonal rational d x d matrix by the Cayley transform Q = (I - S)(I + S)^{-1}, S skew-symmetric
// with small integer entries (I + S is non-singular for every real skew S).
MR cayley_orthogonal(std::mt19937_64& g, std::size_t d) {
  std::uniform_int_distribution<int> U(-2, 2);
  MR S(d, d);
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = i + 1; j < d; ++j) {
      S(i, j) = U(g);
      S(j, i) = -S(i, j);
    }
  MR A(d, d), B(d, d);
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < d; ++j) {
      A(i, j) = (i == j ? Rat(1) : Rat(0)) - S(i, j);
      B(i, j) = (i == j ? Rat(1) : Rat(0)) + S(i, j);
    }
  // Q = A B^{-1}  <=>  Q^T = B^{-T} A^T: solve B^T X = A^T
  const MR X = cap::solve_exact(ref::transpose(B), ref::transpose(A), "cayley_orthogonal");
  return ref::transpose(X);
}

// m keys (columns, d_k x m) of generator gen; keys are nested in m only for KG (callers draw the maximal
// matrix once and take prefixes). KI: draws of integers in [-50, 50] accepted when the exact rank is m
// (m <= d_k; m > d_k: the hypothesis cannot hold, rank <= d_k, and an empty matrix is returned).
MR draw_keys(std::mt19937_64& g, KeyGen gen, std::size_t dk, std::size_t m, int* draws = nullptr) {
  if (draws) *draws = 0;
  switch (gen) {
    case KeyGen::KI: {
      if (m > dk) return MR();
      for (int t = 0; t < 10000; ++t) {
        if (draws) ++*draws;
        MR K = int_matrix(g, dk, m, -50, 50);
        if (cap::exact_rank(K) == m) return K;
      }
      return MR();
    }
    case KeyGen::KG:
      return int_matrix(g, dk, m, -50, 50);
    case KeyGen::KA_ortho:
    case KeyGen::KA_ortho2: {  // the first m columns of an exactly orthogonal matrix (m <= d_k), then repeats of them
      const MR Q = cayley_orthogonal(g, dk);
      MR K(dk, m);
      for (std::size_t j = 0; j < m; ++j)
        for (std::size_t i = 0; i < dk; ++i) K(i, j) = Q(i, j % dk) * (gen == KeyGen::KA_ortho2 ? Rat(2) : Rat(1));
      return K;
    }
    case KeyGen::KA_neardep: {  // k_j = k_1 + 2^-27 e_j (condition number ~1e8 of K for small d_k)
      MR K = int_matrix(g, dk, m, -50, 50);
      const Rat eps = Rat(1) / Rat(BigInt(1) << 27);
      for (std::size_t j = 1; j < m; ++j)
        for (std::size_t i = 0; i < dk; ++i) K(i, j) = K(i, 0) + (i == (j - 1) % dk ? eps : Rat(0)) * Rat(1 + static_cast<int>((j - 1) / dk));
      return K;
    }
    case KeyGen::KA_repeated: {  // every key is one of two integer keys
      const MR pool = int_matrix(g, dk, 2, -50, 50);
      std::uniform_int_distribution<int> U(0, 1);
      MR K(dk, m);
      for (std::size_t j = 0; j < m; ++j) {
        const int p = j < 2 ? static_cast<int>(j) : U(g);
        for (std::size_t i = 0; i < dk; ++i) K(i, j) = pool(i, p);
      }
      return K;
    }
  }
  return MR();
}

// keys for a prefix-capacity run (mmax >= d_k columns): KI = d_k independent keys, then generic integer keys (the
// hypothesis cannot hold beyond d_k: rank <= d_k); the other generators as drawn
MR capacity_keys(std::mt19937_64& g, KeyGen gen, std::size_t dk, std::size_t mmax) {
  if (gen != KeyGen::KI) return draw_keys(g, gen, dk, mmax);
  const MR KI = draw_keys(g, KeyGen::KI, dk, dk);
  const MR rest = int_matrix(g, dk, mmax - dk, -50, 50);
  MR K(dk, mmax);
  for (std::size_t i = 0; i < dk; ++i)
    for (std::size_t j = 0; j < mmax; ++j) K(i, j) = j < dk ? KI(i, j) : rest(i, j - dk);
  return K;
}

// d_v x m value matrices: generic integers in [-10^9, 10^9] (a wide range, so that a "generic" V falls into a
// given proper subspace only with probability ~1e-9: with [-50, 50] a collinear-key instance of Prop. 2 hit one),
// or [e_1 ... e_m] (d_v >= m: the first m unit columns)
MR generic_values(std::mt19937_64& g, std::size_t dv, std::size_t m) {
  std::uniform_int_distribution<long long> U(-1000000000LL, 1000000000LL);
  MR V(dv, m);
  for (auto& x : V.a) x = Rat(U(g));
  return V;
}
MR unit_values(std::size_t dv, std::size_t m) {
  MR V(dv, m);
  for (std::size_t j = 0; j < m && j < dv; ++j) V(j, j) = 1;
  return V;
}

// a rational as mp_t at the current digits: numerator / denominator, each converted exactly from its decimal string
// (ref::cast would go through double)
mp_t rat_mp(const Rat& x) { return mp_t(boost::multiprecision::numerator(x).str()) / mp_t(boost::multiprecision::denominator(x).str()); }
MM rat_mp(const MR& A) {
  MM B(A.rows, A.cols);
  for (std::size_t i = 0; i < A.a.size(); ++i) B.a[i] = rat_mp(A.a[i]);
  return B;
}
MV rat_mp(const VR& a) {
  MV b(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) b[i] = rat_mp(a[i]);
  return b;
}

// one line of a capacity table
std::string cell(std::size_t dk, std::size_t dv, std::size_t mstar) { return "(" + sz(dk) + "," + sz(dv) + "):" + sz(mstar); }

// a result with its seed, statistic, value and threshold filled in (verdict, reason and the rest by the caller)
ClaimResult claim_result(const CheckConfig& cfg, std::string statistic, double value, double threshold) {
  ClaimResult r;
  r.evidence.seed = cfg.seed;
  r.evidence.statistic = std::move(statistic);
  r.evidence.value = value;
  r.evidence.threshold = threshold;
  return r;
}

// a report figure with its labels (series added by the caller)
ClaimFigure figure(std::string id, std::string title, std::string caption, std::string x_label, std::string y_label, bool x_log, bool y_log) {
  ClaimFigure f;
  f.id = std::move(id);
  f.title = std::move(title);
  f.caption = std::move(caption);
  f.x_label = std::move(x_label);
  f.y_label = std::move(y_label);
  f.x_scale = x_log ? "log" : "linear";
  f.y_scale = y_log ? "log" : "linear";
  return f;
}
FigureSeries series(std::string name, std::vector<double> x, std::vector<double> y, std::string marker = "o", std::string style = "solid") {
  FigureSeries s;
  s.name = std::move(name);
  s.x = std::move(x);
  s.y = std::move(y);
  s.marker = std::move(marker);
  s.style = std::move(style);
  return s;
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::a002cap
