// Paper A001 (test-time regression, Wang, Shi & Fox), §4 Vignette 1, "optimal nonlinear memory": least
// squares in feature space, M_t = V_t^T (Phi_t^+)^T for a deterministic feature map phi, its full-rank
// branches, and kernel regression (Eq. 43) with k(x, y) = phi(x)^T phi(y) for full-row-rank Phi_t.
// Spec ID: A001-FEATURE-LS.
//
// Every verdict is computed from the references of reference/include/recall/reference/least_squares.hpp and
// feature_maps.hpp instantiated with recall::mp_t, at P-scaled digits d + 2 ceil(log10 cond(Phi_t)) + 4 (fp64
// estimate over the checked prefixes, support/least_squares_claims.hpp) with the P-50 threshold 10^-(d-10); a
// failure is re-evaluated at doubled digits before it is recorded. Rank decisions use ref::default_rank_tol at
// the working digits. Instances are drawn by Box-Muller from std::mt19937_64 seeded by
// mix(tag_seed(cfg.seed, ID), n); witnesses give sizes, map and seed, with 1-based indices.
#include "recall/proofs/ledger.hpp"
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/least_squares.hpp"
#include "recall/reference/svd.hpp"
#include "claim_support.hpp"
#include "least_squares_claims.hpp"
#include "linear_attention_claims.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::lsq;
using linattn::hex;

// ---------------------------------------------------------------------------------------------
// A001-FEATURE-LS
// ---------------------------------------------------------------------------------------------

struct NamedMap {
  std::string name;
  ref::FeatureMap f;
  int kernel = 0;  // closed-form kernel: 0 none (phi inner product), 1 x.y, 2 (x.y)^2, 3 (1 + x.y)^2, 4 taylor2, 5 exp_trunc order 2
};
std::vector<NamedMap> feature_ls_maps(std::size_t T) {
  std::vector<NamedMap> v;
  auto mk = [](ref::FeatureMapKind k, int order = 2) {
    ref::FeatureMap f;
    f.kind = k;
    f.order = order;
    return f;
  };
  v.push_back({"identity", mk(ref::FeatureMapKind::identity), 1});
  v.push_back({"poly2", mk(ref::FeatureMapKind::poly, 2), 2});
  v.push_back({"poly2_affine", mk(ref::FeatureMapKind::poly2_affine), 3});
  v.push_back({"taylor2", mk(ref::FeatureMapKind::taylor2), 4});
  v.push_back({"exp_trunc2", mk(ref::FeatureMapKind::exp_trunc, 2), 5});
  v.push_back({"elu1", mk(ref::FeatureMapKind::elu1), 0});
  v.push_back({"relu", mk(ref::FeatureMapKind::relu), 0});
  v.push_back({"dpfp1", mk(ref::FeatureMapKind::dpfp), 0});
  ref::FeatureMap cf = mk(ref::FeatureMapKind::cosformer);
  cf.n_max = static_cast<double>(T);
  v.push_back({"cosformer", cf, 0});
  return v;
}
// kernel k(x, y) evaluated in closed form (no phi), or phi(x)^T phi(y) with positions px, py
mp_t kernel_value(const NamedMap& m, const mp_t* x, std::size_t px, const mp_t* y, std::size_t py, std::size_t d) {
  const mp_t xy = ref::dot(x, y, d);
  const mp_t dd(static_cast<double>(d));
  switch (m.kernel) {
    case 1: return xy;
    case 2: return xy * xy;
    case 3: return (mp_t(1) + xy) * (mp_t(1) + xy);
    case 4: return mp_t(1) + xy / sqrt(dd) + xy * xy / (mp_t(2) * dd);
    case 5: return mp_t(1) + xy + xy * xy / mp_t(2);
    default: {
      const MV a = ref::apply_feature_map(m.f, x, d, px), b = ref::apply_feature_map(m.f, y, d, py);
      return ref::dot(a.data(), b.data(), a.size());
    }
  }
}

// the prefixes checked: 1, 2, D_phi - 1, D_phi, D_phi + 1 and T (inside [1, T]), i.e. both sides of the rank change
std::vector<std::size_t> feature_ls_prefixes(std::size_t D, std::size_t T) {
  std::vector<std::size_t> v;
  for (std::size_t t : {std::size_t(1), std::size_t(2), D > 1 ? D - 1 : std::size_t(1), D, D + 1, T})
    if (t >= 1 && t <= T && std::find(v.begin(), v.end(), t) == v.end()) v.push_back(t);
  std::sort(v.begin(), v.end());
  return v;
}

double feature_ls_residual(const NamedMap& m, const DM& Kd, const DM& Vd, const DM& Qd, unsigned digits, std::string& where, std::string* notes) {
  MpDigitsScope sc(digits);
  const MM K = to_mp(Kd), V = to_mp(Vd), Q = to_mp(Qd);
  const std::size_t T = K.rows, dk = K.cols;
  Worst w;
  int n_over = 0, n_under = 0, n_kr = 0;
  for (std::size_t t : feature_ls_prefixes(ref::feature_dim(m.f, dk), T)) {
    const std::string at = " t=" + std::to_string(t);
    const MM Phi = ref::feature_rows(m.f, K, t), Vt = head_rows(V, t);
    const std::size_t D = Phi.cols;
    const mp_t tol = rank_tol(std::max(t, D));
    std::size_t r = 0;
    const MM M = ref::feature_ls_state(m.f, K, V, t, tol, &r);
    const MM G = ref::key_gram(Phi, t), R = ref::cross_moment(Phi, Vt, t);
    w.upd(rel_res(ref::matmul(M, G), R), "stationarity M Phi^T Phi = V^T Phi" + at);
    w.upd(rel_res(ref::matmul(M, ref::matmul(ref::pinv(Phi, tol), Phi)), M), "min-norm M = M Phi^+ Phi" + at);
    if (r == D) {
      ++n_over;
      w.upd(rel_res(ref::ls_state_overdetermined(Phi, Vt, t, tol), M), "full-column-rank branch vs pinv" + at);
    }
    if (r == t) {
      ++n_under;
      w.upd(rel_res(ref::ls_state_underdetermined(Phi, Vt, t, tol), M), "full-row-rank branch vs pinv" + at);
      // kernel regression (43): y = V_t^T G^{-1} k(K_t, q), G_ij = k(k_i, k_j)
      MM Gk(t, t);
      MV kq(t);
      for (std::size_t i = 0; i < t; ++i) {
        for (std::size_t j = 0; j < t; ++j) Gk(i, j) = kernel_value(m, K.row(i), i + 1, K.row(j), j + 1, dk);
        kq[i] = kernel_value(m, K.row(i), i + 1, Q.row(t - 1), t, dk);
      }
      const MV a = ref::cholesky_solve(ref::cholesky_lower(Gk, tol, "kernel regression", "G_t"), kq);
      MV ykr(V.cols, mp_t(0));
      for (std::size_t i = 0; i < t; ++i)
        for (std::size_t c = 0; c < V.cols; ++c) ref::muladd(ykr[c], a[i], V(i, c));
      const MV pq = ref::apply_feature_map(m.f, Q.row(t - 1), dk, t);
      w.upd(vecrel(ykr, ref::matvec(M, pq.data())), "kernel regression (43) vs feature LS read-out" + at);
      ++n_kr;
    }
  }
  if (notes) *notes = "full-column-rank prefixes " + std::to_string(n_over) + ", full-row-rank prefixes " + std::to_string(n_under) + " (kernel regression checked at " +
                      std::to_string(n_kr) + ")";
  where = w.where;
  return w.r;
}

ClaimResult a001_feature_ls(const CheckConfig& cfg) {
  const std::string tag = "A001-FEATURE-LS";
  Checker ck("max relative residual over t: stationarity and min-norm of V_t^T (Phi_t^+)^T, its full-rank branches, and kernel regression (43) with "
             "k(x,y) = phi(x)^T phi(y) (closed-form kernels where they exist) for full-row-rank Phi_t",
             cfg.digits);
  const std::vector<std::size_t> dks = cfg.quick ? std::vector<std::size_t>{1, 2, 3} : std::vector<std::size_t>{1, 2, 3, 4};
  int n = 0;
  std::vector<std::pair<std::string, std::string>> notes;
  for (std::size_t dk : dks) {
    const std::size_t T = std::min<std::size_t>(cfg.quick ? 12 : 24, 1 + dk + dk * dk + 2);
    for (const NamedMap& m : feature_ls_maps(T)) {
      if (m.f.kind == ref::FeatureMapKind::dpfp && 2 * dk <= static_cast<std::size_t>(m.f.nu)) continue;
      const u64 s = iseed(cfg, tag, ++n);
      Gauss g(s);
      const DM K = gauss_matrix(T, dk, g), V = gauss_matrix(T, 2, g), Q = gauss_matrix(T, dk, g);
      const auto ts = feature_ls_prefixes(ref::feature_dim(m.f, dk), T);
      const double c = cond_fp64_prefixes(ref::feature_rows(m.f, K, T), &ts);
      const unsigned inc = pscaled(0, c);
      const std::string desc = "map " + m.name + " D_phi=" + std::to_string(ref::feature_dim(m.f, dk)) + " " + sz(T, dk, 2) + " (fp64 worst cond(Phi_t) " + fmt(c) +
                               ", digits d+" + std::to_string(inc) + ") seed " + hex(s);
      std::string note;
      ck.add(desc, [&, K, V, Q, inc](unsigned d, std::string& where) { return feature_ls_residual(m, K, V, Q, d + inc, where, d == cfg.digits ? &note : nullptr); });
      notes.emplace_back(desc, note);
    }
  }
  ClaimResult r = ck.result(cfg, "deterministic maps (identity, poly2, poly2_affine, taylor2, exp_trunc2, elu1, relu, dpfp1, cosformer) x D_k in {" +
                                     std::string(cfg.quick ? "1,2,3" : "1,2,3,4") + "}, T = min(" + (cfg.quick ? "12" : "24") +
                                     ", D_phi + 2), prefixes t in {1, 2, D_phi - 1, D_phi, D_phi + 1, T}; P-scaled (2 log10 cond(Phi_t), fp64 estimate)");
  for (auto& nt : notes) r.evidence.extra.emplace_back("branches " + nt.first.substr(0, nt.first.find(" (")), nt.second);
  return r;
}

}  // namespace

void register_a001_feature_least_squares(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A001-FEATURE-LS", "Least squares in feature space (optimal nonlinear memory)", identity, false, a001_feature_ls);
}

}  // namespace recall
