// Instances and bookkeeping shared by the claims of A000 §2.2.2 on the optimal DeltaNet memory
// (optimal_memory.cpp: Eqs. 46-48; icl_convergence.cpp: the convergence of the memory to S*): random orthogonal
// matrices and SPD covariances with a prescribed condition number, the (d, d_h, cond, kind) instance grid, the
// relative gradient of Eq. 115, and the tally of identity results. Internal linkage, like claim_support.hpp.
#pragma once

#include "claim_support.hpp"
#include "eigen_bridge.hpp"

#include "recall/reference/memory_objectives.hpp"
#include "recall/reference/optimal_memory.hpp"
#include "recall/reference/svd.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace recall::claim_support::optmem {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif


DM to_f64(const MM& m) { return ref::cast<double>(m); }
std::string e10(double c) { return c <= 1 ? "1" : "1e" + std::to_string(static_cast<int>(std::lround(std::log10(c)))); }

// ---- instances (generated at the current mp digits from a seed) ---------------------------------------
// n x n orthogonal: modified Gram-Schmidt, twice, on a Gaussian matrix (orthogonal to the working digits)
MM orthogonal(std::size_t n, Gauss& g) {
  MM Q = to_mp(gauss_matrix(n, n, g));
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t p = 0; p < j; ++p) {
        mp_t c(0);
        for (std::size_t i = 0; i < n; ++i) c += Q(i, p) * Q(i, j);
        for (std::size_t i = 0; i < n; ++i) Q(i, j) -= c * Q(i, p);
      }
      mp_t s(0);
      for (std::size_t i = 0; i < n; ++i) s += Q(i, j) * Q(i, j);
      s = sqrt(s);
      for (std::size_t i = 0; i < n; ++i) Q(i, j) /= s;
    }
  return Q;
}
// lambda_i = cond^(-i/(n-1)), scaled to mean 1; Q diag(lambda) Q^T (symmetric exactly) and its factor Q diag(sqrt lambda)
std::pair<MM, MM> spd(const MM& Q, double cond) {
  const std::size_t n = Q.rows;
  std::vector<mp_t> lam(n);
  mp_t sum(0);
  for (std::size_t i = 0; i < n; ++i) sum += lam[i] = n == 1 ? mp_t(1) : pow(mp_t(cond), mp_t(-double(i) / double(n - 1)));
  MM Sig(n, n), L(n, n);
  for (std::size_t i = 0; i < n; ++i) lam[i] = lam[i] * mp_t(n) / sum;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < n; ++k) L(i, k) = Q(i, k) * sqrt(lam[k]);
    for (std::size_t j = 0; j <= i; ++j) {
      mp_t s(0);
      for (std::size_t k = 0; k < n; ++k) s += Q(i, k) * lam[k] * Q(j, k);
      Sig(i, j) = Sig(j, i) = s;
    }
  }
  return {Sig, L};
}
enum class Kind { gauss, identity, commuting };
struct Inst {
  MM Wk, Wv, Sigma, L;  // Sigma = L L^T
  double condW = 1;     // sigma_max / sigma_min of W_k (double estimate; sets the extra digits)
};
// W_k (d_h x d): Gaussian, or U diag(s) V_h^T with sigma geometric to 1/condW (condW > 0), or (commuting) with
// Sigma = V diag(lambda) V^T sharing V; W_v (d_v x d) Gaussian, d_v = d_h + 1; Sigma = Q diag(lambda) Q^T or I.
Inst make_inst(std::size_t d, std::size_t dh, double cond, Kind kind, std::uint64_t seed, double condW = 0) {
  Gauss g(seed);
  Inst I;
  I.Wk = to_mp(gauss_matrix(dh, d, g));
  I.Wv = to_mp(gauss_matrix(dh + 1, d, g));
  const MM Q = orthogonal(d, g);
  std::tie(I.Sigma, I.L) = spd(Q, kind == Kind::identity ? 1.0 : cond);
  if (kind == Kind::identity) I.Sigma = I.L = ref::identity_matrix<mp_t>(d);
  if (kind == Kind::commuting || condW > 0) {
    const MM U = orthogonal(dh, g);
    const MM V = kind == Kind::commuting ? Q : orthogonal(d, g);
    std::vector<mp_t> sv(dh);
    for (std::size_t p = 0; p < dh; ++p) sv[p] = condW > 0 ? pow(mp_t(condW), mp_t(-double(p) / double(std::max<std::size_t>(1, dh - 1)))) : mp_t(0.5 + g.uniform());
    for (std::size_t i = 0; i < dh; ++i)
      for (std::size_t j = 0; j < d; ++j) {
        mp_t s(0);
        for (std::size_t p = 0; p < dh; ++p) s += U(i, p) * sv[p] * V(j, p);
        I.Wk(i, j) = s;
      }
  }
  const Eigen::JacobiSVD<Eigen::MatrixXd> sv(to_eigen(to_f64(I.Wk)));
  I.condW = sv.singularValues()(0) / sv.singularValues()(sv.singularValues().size() - 1);
  return I;
}
std::string desc(std::size_t d, std::size_t dh, double cond, Kind kind, std::uint64_t seed, double condW = 0) {
  std::string s = "d=" + std::to_string(d) + " d_h=" + std::to_string(dh) + " d_v=" + std::to_string(dh + 1);
  s += kind == Kind::identity ? " Sigma=I" : std::string(" cond(Sigma)=") + e10(cond) + (kind == Kind::commuting ? " Sigma commuting with W_k^T W_k" : "");
  if (condW > 0) s += " cond(W_k)=" + e10(condW);
  return s + " (seed " + std::to_string(seed) + ")";
}
// extra digits for the forward error of solves with W_k Sigma W_k^T (cond <= cond(W_k)^2 cond(Sigma))
unsigned extra_digits(const Inst& I, double cond) { return static_cast<unsigned>(std::ceil(std::log10(I.condW * I.condW * cond))) + 3; }
// |central difference of L at S along E (h = 1e-8) - <G, E>| / (||G||_F ||E||_F)
double fd_residual(const Inst& I, const MM& S, const MM& E, const MM& G) {
  const mp_t h("1e-8");
  const mp_t fd = (ref::expected_memory_loss(ref::add(S, E, h), I.Wk, I.Wv, I.Sigma) - ref::expected_memory_loss(ref::add(S, E, mp_t(-h)), I.Wk, I.Wv, I.Sigma)) / (2 * h);
  return to_d(mp_t(abs(mp_t(fd - ref::frob_inner(G, E))) / (ref::frob(G) * ref::frob(E))));
}
mp_t grad_rel(const MM& S, const Inst& I) {
  return ref::frob(ref::expected_memory_loss_grad(S, I.Wk, I.Wv, I.Sigma)) /
         ((ref::frob(S) * ref::frob(I.Wk) + ref::frob(I.Wv)) * ref::frob(I.Sigma) * ref::frob(I.Wk));
}
double frel(const MM& A, const MM& B) { return to_d(mp_t(ref::frob_diff(A, B) / ref::frob(B))); }
// (d, d_h) with d in ds, d_h in {1, 2, d/4, d} (integers in [1, d])
std::vector<std::pair<std::size_t, std::size_t>> head_grid(const std::vector<std::size_t>& ds) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t d : ds) {
    std::vector<std::size_t> h{1, 2, d % 4 == 0 ? d / 4 : 1, d};
    std::sort(h.begin(), h.end());
    h.erase(std::unique(h.begin(), h.end()), h.end());
    for (std::size_t x : h)
      if (x <= d) out.emplace_back(d, x);
  }
  return out;
}
const std::vector<double> kConds{1, 1e2, 1e4, 1e6, 1e8};

// A decision over instances evaluated smallest first: a failure at P digits is re-evaluated at 2P; the first
// confirmed one is the witness; every instance is evaluated (the figures cover the whole grid).
struct Tally {
  DoubledDigitsTally t;
  int fails = 0;
  void add(const std::string& d, unsigned P, const std::function<double(unsigned)>& f) {
    const double r = f(P);
    ++t.n;
    if (r > t.worst || t.worst_desc.empty()) t.worst = r, t.worst_desc = d;
    if (r <= identity_threshold(P)) return;
    ++fails;
    if (t.failed) return;
    const double r2 = f(2 * P);
    const bool conf = !(r2 <= identity_threshold(2 * P));
    if (conf || !t.unconfirmed) t.witness = d, t.witness_value = r, t.witness_value_2x = fmt(r2);
    (conf ? t.failed : t.unconfirmed) = true;
  }
};
// the reason of a combined claim: the deciding part's reason first, then every other part with its verdict
std::string all_reasons(const Parts& parts) {
  const int h = headline_part(parts, false);
  std::string s = parts[h].first + ": " + parts[h].second.reason;
  for (std::size_t i = 0; i < parts.size(); ++i)
    if (static_cast<int>(i) != h) s += " | " + parts[i].first + " (" + verdict_name(parts[i].second.verdict) + "): " + parts[i].second.reason;
  return s;
}
// an IdentityCheck result whose holds-reason states the figure
ClaimResult stated(ClaimResult r, const std::string& what) {
  if (r.verdict == Verdict::holds) r.reason = what + " on all " + std::to_string(r.evidence.instances) + " instances (worst " + fmt(r.evidence.value) + " <= " + fmt(r.evidence.threshold) + ")";
  return r;
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::optmem
