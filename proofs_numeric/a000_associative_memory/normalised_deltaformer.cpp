// Paper A000 (associative memory), App. 9.2-9.3 softmax-normalised DeltaFormer (Eqs. 94-97) and §2.2.1
// footnote 9: the normalised u-recursion = triangular system = chunked form, U = (I + A^sim)^{-1} V, the
// state form of the normalised u-recursion for a finite feature map [derived], and the normaliser footnote.
// Spec IDs: A000-DELTAFORMER-NORM, A000-UMATRIX, A000-DELTAFORMER-NORM-SFORM, A000-FN9.
#include "recall/proofs/ledger.hpp"
#include "recall/reference/deltaformer.hpp"
#include "recall/reference/feature_maps.hpp"
#include "claim_support.hpp"
#include "deltaformer_claims.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::deltaformer;

// softmax-normalised instances: keys with scale, adversarial "A_{t,t-1} -> 1" (each key far more similar
// to its predecessor: k_t = c * k_{t-1} direction chain with large c)
DM norm_keys(Rng& g, int kind, std::size_t T, std::size_t d, double scale) {
  if (kind == 0) return gauss(g, T, d, scale);
  if (kind == 1) return key_rows(g, Keys::nearpar, T, d, scale);
  // kind 2: a chain k_t = k_{t-1} + 0.05 noise: the predecessor dominates each row of A^sim
  DM K = gauss(g, T, d, scale);
  std::normal_distribution<double> N(0, 1);
  for (std::size_t t = 1; t < T; ++t)
    for (std::size_t j = 0; j < d; ++j) K(t, j) = K(t - 1, j) + 0.05 * scale * N(g);
  return K;
}

// =============================================================================================
// A000-DELTAFORMER-NORM: recursion (Eq. 94) = triangular system = chunked (L1-fixed); [derived] bounds
// max_i ||u_i||_inf <= sum_{i<=t} ||v_i||_inf and ||(I + A^sim)^{-1}||_inf <= T, max ratios reported.
// =============================================================================================
ClaimResult a000_deltaformer_norm(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A000-DELTAFORMER-NORM");
  IdentityCheck ic("max relative difference of U (recursion / triangular / chunked C=3,8) and O; bound excess", cfg.digits);
  const std::vector<std::size_t> Ts = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 16, 33} : std::vector<std::size_t>{1, 2, 3, 16, 33, 128, 256};
  int inst = 0;
  double max_ub = 0, max_ib = 0;
  std::string at_ub, at_ib;
  for (std::size_t T : Ts)
    for (int kind : {0, 1, 2})
      for (double ks : {1.0, 4.0}) {
        const std::size_t d = 4;
        Rng g(mix(cs, ++inst));
        const DM K = norm_keys(g, kind, T, d, ks), Q = gauss(g, T, d), V = gauss(g, T, 3);
        const std::string desc = "T=" + std::to_string(T) + " keys#" + std::to_string(kind) + " scale " + fmt(ks);
        ic.add(desc, [&](unsigned dg) {
          MpDigitsScope sc(dg);
          const MM k = to_mp(K), q = to_mp(Q), v = to_mp(V);
          const mp_t s = mp_t(1) / boost::multiprecision::sqrt(mp_t(d));
          const MM U1 = ref::deltaformer_norm_u(k, v, s);
          const MM A = ref::softmax_sim_matrix(k, s);
          const MM U2 = ref::unit_lower_solve(A, v);
          const MM U3 = ref::deltaformer_chunked_listing1(k, v, 3, s, s, false);
          const MM U4 = ref::deltaformer_chunked_listing1(k, v, 8, s, s, false);
          mp_t x = std::max({rel_mp(U2, U1), rel_mp(U3, U1), rel_mp(U4, U1)});
          const MM O1 = ref::deltaformer_norm_readout(k, q, U1, s);
          // O from the read-out matrix of normalised weights
          MM P(T, T);
          for (std::size_t t = 0; t < T; ++t) {
            ref::Vector<mp_t> z(t + 1);
            for (std::size_t i = 0; i <= t; ++i) z[i] = s * ref::dot(k.row(i), q.row(t), d);
            const mp_t l = ref::lse(z);
            for (std::size_t i = 0; i <= t; ++i) P(t, i) = boost::multiprecision::exp(mp_t(z[i] - l));
          }
          x = std::max(x, rel_mp(ref::matmul(P, U1), O1));
          // bounds (excess over the bound, relative; 0 when satisfied)
          mp_t sumv = 0, maxu = 0;
          for (std::size_t t = 0; t < T; ++t) {
            mp_t vi = 0, ui = 0;
            for (std::size_t c = 0; c < v.cols; ++c) {
              vi = std::max(vi, mp_t(abs(v(t, c))));
              ui = std::max(ui, mp_t(abs(U1(t, c))));
            }
            sumv += vi;
            maxu = std::max(maxu, ui);
            if (maxu > sumv) x = std::max(x, mp_t((maxu - sumv) / sumv));
          }
          const mp_t ninv = norm_inf(unit_lower_inverse(A));
          if (ninv > mp_t(T)) x = std::max(x, mp_t((ninv - T) / T));
          if (dg == cfg.digits) {
            const double ub = to_d(maxu / std::max(sumv, mp_t(1e-300))), ib = to_d(ninv) / T;
            if (ub > max_ub) { max_ub = ub; at_ub = desc; }
            if (ib > max_ib) { max_ib = ib; at_ib = desc; }
          }
          return to_d(x);
        });
      }
  auto r = ic.result(cfg, "T in " + sizes_str(Ts) + ", d = 4, tau = sqrt d, keys gauss / near-parallel / predecessor-chain at scales 1, 4");
  r.evidence.extra.emplace_back("max ||u||_inf / sum ||v_i||_inf", fmt(max_ub) + " at " + at_ub);
  r.evidence.extra.emplace_back("max ||(I+A^sim)^{-1}||_inf / T", fmt(max_ib) + " at " + at_ib);
  return r;
}

// =============================================================================================
// A000-UMATRIX: U = (I + A^sim)^{-1} V (forward substitution and explicit inverse) vs Eq. 94 recursion;
// residual ||(I + A^sim) U - V|| / ||V||.
// =============================================================================================
ClaimResult a000_umatrix(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A000-UMATRIX");
  IdentityCheck ic("max of relative differences (substitution, explicit inverse vs recursion) and relative residual", cfg.digits);
  const std::vector<std::size_t> Ts = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 16, 40} : std::vector<std::size_t>{1, 2, 3, 16, 40, 128, 257};
  int inst = 0;
  double worst_res_f64 = 0;
  for (std::size_t T : Ts)
    for (int kind : {0, 1, 2}) {
      const std::size_t d = 4;
      Rng g(mix(cs, ++inst));
      const DM K = norm_keys(g, kind, T, d, 3.0), V = gauss(g, T, 2);
      ic.add("T=" + std::to_string(T) + " keys#" + std::to_string(kind), [&](unsigned dg) {
        MpDigitsScope sc(dg);
        const MM k = to_mp(K), v = to_mp(V);
        const mp_t s = mp_t(1) / boost::multiprecision::sqrt(mp_t(d));
        const MM A = ref::softmax_sim_matrix(k, s);
        const MM U0 = ref::deltaformer_norm_u(k, v, s);
        const MM U1 = ref::unit_lower_solve(A, v);
        const MM U2 = ref::matmul(unit_lower_inverse(A), v);
        const MM R = ref::matmul(unit_plus(A), U1);
        return to_d(std::max({rel_mp(U1, U0), rel_mp(U2, U0), rel_mp(R, v)}));
      });
      // the same in double: forward substitution residual (reported)
      const DM Ad = ref::softmax_sim_matrix(K, 0.5);
      const DM Ud = ref::unit_lower_solve(Ad, V);
      DM Ipa(T, T);
      for (std::size_t i = 0; i < T; ++i) {
        Ipa(i, i) = 1;
        for (std::size_t j = 0; j < i; ++j) Ipa(i, j) = Ad(i, j);
      }
      const DM Rd = ref::matmul(Ipa, Ud);
      worst_res_f64 = std::max(worst_res_f64, ref::frob_diff(Rd, V) / ref::frob(V));
    }
  auto r = ic.result(cfg, "T in " + sizes_str(Ts) + ", d = 4, key scale 3, three key generators");
  r.evidence.extra.emplace_back("fp64 forward-substitution relative residual (max)", fmt(worst_res_f64));
  return r;
}

// normalised kernel DeltaFormer, u-form with a general positive kernel (Eqs. 94-95 with kappa):
// u_t = v_t - sum_{i<t} kappa(k_i,k_t)/Z1_t u_i, o_t = sum_{i<=t} kappa(k_i,q_t)/Z2_t u_i
void norm_kernel_uform(const PhiCase& pc, const MM& k, const MM& q, const MM& v, MM& U, MM& O, MV& Z1, MV& Z2) {
  const std::size_t T = k.rows, d = k.cols;
  MM A(T, T), M(T, T);
  Z1.assign(T, mp_t(0));
  Z2.assign(T, mp_t(0));
  for (std::size_t t = 0; t < T; ++t) {
    for (std::size_t i = 0; i < t; ++i) { A(t, i) = pc.kappa(ref::dot(k.row(i), k.row(t), d)); Z1[t] += A(t, i); }
    for (std::size_t i = 0; i <= t; ++i) { M(t, i) = pc.kappa(ref::dot(k.row(i), q.row(t), d)); Z2[t] += M(t, i); }
    for (std::size_t i = 0; i < t; ++i) A(t, i) /= Z1[t];
    for (std::size_t i = 0; i <= t; ++i) M(t, i) /= Z2[t];
  }
  U = ref::unit_lower_solve(A, v);
  O = ref::matmul(M, U);
}
std::vector<PhiCase> positive_phi_cases() {
  std::vector<PhiCase> v;
  ref::FeatureMap et;
  et.kind = ref::FeatureMapKind::exp_trunc;
  et.order = 4;  // even order: sum_{m<=4} a^m/m! > 0 for every a
  v.push_back({"phi_4 (exp Taylor, even order)", et, 1.0, [](const mp_t& a) { return exp_taylor(a, 4); }});
  ref::FeatureMap pa;
  pa.kind = ref::FeatureMapKind::poly2_affine;
  v.push_back({"(1+x'y)^2", pa, 1.0, [](const mp_t& a) { return mp_t((1 + a) * (1 + a)); }});
  return v;
}
// S-form vs u-form residual for one instance (A000-DELTAFORMER-NORM-SFORM, A000-FN9 (a))
double sform_residual(const PhiCase& pc, const DM& K, const DM& Q, const DM& V) {
  const MM k = to_mp(K), q = to_mp(Q), v = to_mp(V);
  const std::size_t T = k.rows;
  MM U, O;
  MV Z1, Z2;
  norm_kernel_uform(pc, k, q, v, U, O, Z1, Z2);
  MV erase(T), outs(T);
  for (std::size_t t = 0; t < T; ++t) {
    erase[t] = t == 0 ? mp_t(0) : mp_t(1 / Z1[t]);  // t = 1: S_0 = 0, erase irrelevant
    outs[t] = 1 / Z2[t];
  }
  const auto fr = ref::feature_delta_rule(pc.f, k, q, v, erase, outs);
  return rel(fr.O, O);
}

// =============================================================================================
// A000-DELTAFORMER-NORM-SFORM [derived]: S_t = S_{t-1}(I - phi phi^T / Z1_t) + v_t phi^T, o_t = S_t phi(q_t) / Z2_t
// equals the normalised u-form for a positive finite kernel.
// =============================================================================================
ClaimResult a000_deltaformer_norm_sform(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A000-DELTAFORMER-NORM-SFORM");
  IdentityCheck ic("relative difference of O (S-form vs normalised u-form)", cfg.digits);
  const std::vector<std::size_t> Ts = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 12} : std::vector<std::size_t>{1, 2, 3, 12, 48};
  int inst = 0;
  for (std::size_t T : Ts)
    for (const PhiCase& pc : positive_phi_cases())
      for (Keys kk : {Keys::gauss, Keys::repeated, Keys::zero}) {
        Rng g(mix(cs, ++inst));
        const DM K = key_rows(g, kk, T, 2), Q = gauss(g, T, 2), V = gauss(g, T, 2);
        ic.add("T=" + std::to_string(T) + " kappa=" + pc.name + " keys " + keys_name(kk), [&](unsigned dg) {
          MpDigitsScope sc(dg);
          return sform_residual(pc, K, Q, V);
        });
      }
  return ic.result(cfg, "T in " + sizes_str(Ts) + ", d = 2, kappa in {even-order exp Taylor, (1+x'y)^2}, keys gauss/repeated/zero");
}

// =============================================================================================
// A000-FN9: (a) the App. 8 substitution goes through with the normaliser (S-form = u-form), decides the
// verdict; (b) normalised vs unnormalised exp DeltaFormer: max ||u||, whether one is a per-row rescaling
// of the other; (c) Z1_t / t vs t.
// =============================================================================================
ClaimResult a000_fn9(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A000-FN9");
  IdentityCheck ic("(a) relative difference of O, S-form vs normalised u-form", cfg.digits);
  int inst = 0;
  for (std::size_t T : {std::size_t(2), std::size_t(5), std::size_t(16)})
    for (const PhiCase& pc : positive_phi_cases()) {
      Rng g(mix(cs, ++inst));
      const DM K = gauss(g, T, 3), Q = gauss(g, T, 3), V = gauss(g, T, 2);
      ic.add("T=" + std::to_string(T) + " kappa=" + pc.name, [&](unsigned dg) {
        MpDigitsScope sc(dg);
        return sform_residual(pc, K, Q, V);
      });
    }
  auto r = ic.result(cfg, "(a) T in {2,5,16}, d = 3, positive finite kernels");
  // (b), (c)
  const std::size_t T = cfg.quick ? 64 : 256, d = 8;
  for (double tau : {1.0, std::sqrt(double(d))}) {
    Rng g(mix(cs, 1000 + static_cast<int>(tau * 10)));
    const DM K = gauss(g, T, d), V = gauss(g, T, 2);
    const double lc = lg_cond_kernel({DfKernel::exp, tau}, K, K, d);
    MpDigitsScope sc(digits_for(cfg.digits, lc + 20));
    const MM k = to_mp(K), v = to_mp(V);
    const MM Uu = ref::deltaformer_u_recursion(DfKernel::exp, k, k, v, mp_t(tau));
    const MM Un = ref::deltaformer_norm_u(k, v, mp_t(1 / tau));
    mp_t mu = 0, mn = 0;
    for (const auto& x : Uu.a) mu = std::max(mu, mp_t(abs(x)));
    for (const auto& x : Un.a) mn = std::max(mn, mp_t(abs(x)));
    // per-row rescaling test: best c_t with Uu_t = c_t Un_t, residual relative
    double worst_rescale = 0;
    for (std::size_t t = 0; t < T; ++t) {
      mp_t num = 0, den = 0;
      for (std::size_t c = 0; c < 2; ++c) { num += Uu(t, c) * Un(t, c); den += Un(t, c) * Un(t, c); }
      if (den == 0) continue;
      const mp_t ct = num / den;
      mp_t e = 0, nu = 0;
      for (std::size_t c = 0; c < 2; ++c) { e += (Uu(t, c) - ct * Un(t, c)) * (Uu(t, c) - ct * Un(t, c)); nu += Uu(t, c) * Uu(t, c); }
      if (nu > 0) worst_rescale = std::max(worst_rescale, to_d(boost::multiprecision::sqrt(e / nu)));
    }
    // (c) Z1_t / t at t = T/4, T/2, T
    std::string zs;
    for (std::size_t t : {T / 4, T / 2, T - 1}) {
      mp_t z = 0;
      for (std::size_t i = 0; i < t; ++i) z += boost::multiprecision::exp(mp_t(ref::dot(k.row(i), k.row(t), d) / mp_t(tau)));
      zs += (zs.empty() ? "" : ", ") + std::string("t=") + std::to_string(t + 1) + ": " + fmt(to_d(mp_t(z / mp_t(t))));
    }
    r.evidence.extra.emplace_back("(b) tau=" + fmt(tau) + ", T=" + std::to_string(T) + ", d=8",
                                  "log10 max|u| unnormalised " + fmt(lg(mu)) + " vs normalised " + fmt(lg(mn)) +
                                      "; worst per-row rescaling residual " + fmt(worst_rescale) + " (0 would mean a rescaling)" +
                                      "; log10 cond(I+L) " + fmt(lc));
    r.evidence.extra.emplace_back("(c) Z1_t / t, tau=" + fmt(tau), zs + " (a constant would make the normaliser ~ 1/t)");
  }
  r.reason += "; (b), (c) reported";
  return r;
}

}  // namespace

void register_a000_normalised_deltaformer(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A000-DELTAFORMER-NORM", "Softmax-normalised DeltaFormer: recursion = triangular = chunked; row-stochastic bounds", identity, true,
      a000_deltaformer_norm);
  add("A000-UMATRIX", "U = (I + A^sim)^{-1} V reproduces Eq. 94", identity, true, a000_umatrix);
  add("A000-DELTAFORMER-NORM-SFORM", "Normalised u-form = delta rule with erase 1/Z1 (finite phi)", identity, true, a000_deltaformer_norm_sform);
  add("A000-FN9", "Omitting the softmax normaliser does not affect the derivation", identity, false, a000_fn9);
}

}  // namespace recall
