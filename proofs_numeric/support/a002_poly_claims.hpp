// Helpers of the A002 polynomial / exponential feature-map claims (a002_atlas/polynomial_maps.cpp,
// a002_atlas/exponential_maps.cpp): exact ranks of lifted key matrices (ref::capacity::exact_rank after removing
// zero and repeated columns), an exact positive-semidefiniteness decision for symmetric
// rational matrices (symmetric elimination; a negative pivot or an indefinite 2 x 2 block is a certificate),
// small rational generators, and a tally of negative controls. Internal linkage, like claim_support.hpp.
#pragma once

#include "claim_support.hpp"
#include "exact_tally.hpp"

#include "recall/reference/capacity_rank.hpp"
#include "recall/reference/polynomial_maps.hpp"

#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace recall::claim_support::a002poly {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

using exact::MR;
using exact::Rat;
using exact::VR;

// Columns of A that are not identically zero, each distinct column once (exact comparison): the same rank as A.
MR distinct_nonzero_columns(const MR& A) {
  std::vector<std::vector<Rat>> cols;
  for (std::size_t j = 0; j < A.cols; ++j) {
    std::vector<Rat> c(A.rows);
    bool nz = false;
    for (std::size_t i = 0; i < A.rows; ++i) {
      c[i] = A(i, j);
      nz = nz || c[i] != 0;
    }
    if (nz) cols.push_back(std::move(c));
  }
  std::sort(cols.begin(), cols.end());
  cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
  MR B(A.rows, cols.size());
  for (std::size_t j = 0; j < cols.size(); ++j)
    for (std::size_t i = 0; i < A.rows; ++i) B(i, j) = cols[j][i];
  return B;
}

// Exact ranks of the leading row blocks A[1..m, :] for the given m (ascending): ref::capacity::exact_rank
// (capacity_rank.hpp: a rank modulo 2^61 - 1 certified at the structural maximum, Bareiss otherwise) of the block
// with its zero and repeated columns removed first (same rank; for the Kronecker lift the repeated coordinates of
// a symmetric tensor would otherwise keep the fast path from reaching min(rows, cols)).
std::vector<std::size_t> prefix_ranks(const MR& A, const std::vector<std::size_t>& ms) {
  std::vector<std::size_t> out;
  for (std::size_t m : ms) out.push_back(ref::capacity::exact_rank(distinct_nonzero_columns(claim_support::head_rows(A, m))));
  return out;
}
// 1, 2, 3, 4, 6, 9, ... (x1.5) up to mmax, plus every m in [lo, hi] (around an expected plateau) and mmax
std::vector<std::size_t> m_grid(std::size_t mmax, std::size_t lo, std::size_t hi) {
  std::vector<std::size_t> g;
  for (double m = 1; m < static_cast<double>(mmax); m = std::max(m + 1, std::floor(m * 1.5))) g.push_back(static_cast<std::size_t>(m));
  for (std::size_t m = std::max<std::size_t>(lo, 1); m <= std::min(hi, mmax); ++m) g.push_back(m);
  g.push_back(mmax);
  std::sort(g.begin(), g.end());
  g.erase(std::unique(g.begin(), g.end()), g.end());
  return g;
}

// Exact PSD decision of a symmetric rational matrix by symmetric elimination with diagonal pivoting: returns
// true when PSD; otherwise false with a certificate description (negative pivot of the Schur complement after
// k positive pivots, or an indefinite 2 x 2 principal block [[0, b], [b, 0]] of it).
bool exact_psd(MR G, std::string* cert = nullptr) {
  const std::size_t n = G.rows;
  std::vector<bool> used(n, false);
  for (std::size_t step = 0; step < n; ++step) {
    // pivot: the largest remaining diagonal entry
    std::size_t p = n;
    for (std::size_t i = 0; i < n; ++i)
      if (!used[i] && (p == n || G(i, i) > G(p, p))) p = i;
    for (std::size_t i = 0; i < n; ++i)  // a negative diagonal entry of the Schur complement (the largest may be 0)
      if (!used[i] && G(i, i) < 0) p = i;
    if (G(p, p) < 0) {
      if (cert) *cert = "after " + std::to_string(step) + " positive pivots the Schur complement has diagonal entry " + fmt(static_cast<double>(G(p, p))) + " < 0 (index " + std::to_string(p + 1) + ")";
      return false;
    }
    if (G(p, p) == 0) {
      // every remaining diagonal entry is 0 (the largest is 0 and none is negative, checked above): PSD iff the
      // remaining block is 0
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
          if (!used[i] && !used[j] && G(i, j) != 0) {
            if (cert) *cert = "after " + std::to_string(step) + " positive pivots the Schur complement has a zero diagonal with off-diagonal entry (" +
                              std::to_string(i + 1) + "," + std::to_string(j + 1) + ") = " + fmt(static_cast<double>(G(i, j))) + " (indefinite 2x2 block)";
            return false;
          }
      return true;
    }
    used[p] = true;
    for (std::size_t i = 0; i < n; ++i) {
      if (used[i] || G(i, p) == 0) continue;
      const Rat f = G(i, p) / G(p, p);
      for (std::size_t j = 0; j < n; ++j)
        if (!used[j]) G(i, j) -= f * G(p, j);
    }
  }
  return true;
}

// x^T y with plain accumulation (also for cpp_rational)
template <class S> S rdot(const ref::Vector<S>& x, const ref::Vector<S>& y) {
  S s(0);
  for (std::size_t i = 0; i < x.size(); ++i) s += x[i] * y[i];
  return s;
}

// ---- generators ---------------------------------------------------------------------------------------
// rational in {k / den : |k| <= lim}
Rat rat(exact::IntGen& g, int lim, int den) { return Rat(g.i(-lim, lim), den); }
VR rat_vec(exact::IntGen& g, std::size_t n, int lim, int den) {
  VR v(n);
  for (auto& x : v) x = rat(g, lim, den);
  return v;
}

// Tally of negative controls evaluated next to an identity (a wrong form must be detected on most instances).
struct Controls {
  int n = 0, detected = 0;
  std::string miss;
  void add(bool det, const std::string& desc) {
    ++n;
    if (det) ++detected;
    else if (miss.empty()) miss = desc;
  }
  bool enough() const { return n > 0 && 2 * detected >= n; }
  std::string str() const { return std::to_string(detected) + " of " + std::to_string(n) + (miss.empty() ? "" : " (first miss: " + miss + ")"); }
};
// Applies the control rule to an identity result: a holding identity whose controls were mostly missed is
// inconclusive (the check could not have failed).
void apply_controls(ClaimResult& r, const Controls& c, const std::string& what) {
  r.evidence.extra.emplace_back("negative controls detected (" + what + ")", c.str());
  if (r.verdict == Verdict::holds && !c.enough()) {
    r.verdict = Verdict::inconclusive;
    r.reason = "every instance agrees, but the wrong form (" + what + ") was detected on only " + c.str() + ": the instances cannot tell it apart";
  }
}

std::string join_sizes(const std::vector<std::size_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::a002poly
