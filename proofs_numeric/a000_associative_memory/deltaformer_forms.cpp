// Paper A000 (associative memory), §2.2.1 DeltaFormer (Eqs. 37-42; App. 8 Eqs. 82-90; matrix form
// Eqs. 96-97): the u-solve in its recursion / triangular / inverse / chunked forms, the kernel delta rule
// = u-form equivalence, the general (gated, w != k) DeltaFormer and its Transformer / DeltaNet special cases.
// Spec IDs: A000-DELTAFORMER-U, A000-DELTAFORMER-EQUIV, A000-DELTAFORMER-GEN, A000-DELTAFORMER-SPECIAL.
#include "recall/proofs/ledger.hpp"
#include "recall/reference/deltaformer.hpp"
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/softmax.hpp"
#include "claim_support.hpp"
#include "deltaformer_claims.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::deltaformer;

// the kernels of the form checks (A000-DELTAFORMER-U, A000-DELTAFORMER-GEN)
const std::vector<KernelCase> kFormKernels = {{DfKernel::linear, 1},  {DfKernel::poly2, 1}, {DfKernel::exp, 1},
                                              {DfKernel::exp, 0},     {DfKernel::exp, -2},  {DfKernel::relu, 1},
                                              {DfKernel::round, 1}};

// =============================================================================================
// A000-DELTAFORMER-U: recursion = forward substitution = explicit inverse = chunked (C = 3, 8); read-out
// Eq. 40 = M U. Each instance runs at max(P, P + ceil(log10 cond_inf(I + L))) digits (C5).
// =============================================================================================
ClaimResult a000_deltaformer_u(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A000-DELTAFORMER-U");
  IdentityCheck ic("max relative difference of U (4 forms) and O (2 forms), digits raised by log10 cond", cfg.digits);
  const std::vector<std::size_t> Ts = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 16} : std::vector<std::size_t>{1, 2, 3, 16, 64, 257};
  int inst = 0;
  double max_lc = 0;
  std::string max_lc_at;
  for (std::size_t T : Ts)
    for (const KernelCase& kc : kFormKernels)
      for (Keys kk : {Keys::gauss, Keys::nearpar}) {
        const std::size_t d = 3;
        if (T > 64 && kc.k == DfKernel::exp && tau_of(kc, d) < 2) continue;  // cond beyond any fixed precision budget
        Rng g(mix(cs, ++inst));
        const DM K = key_rows(g, kk, T, d), Q = gauss(g, T, d), V = gauss(g, T, 2);
        const double lc = lg_cond_kernel(kc, K, K, d);
        if (lc > max_lc) { max_lc = lc; max_lc_at = "T=" + std::to_string(T) + " " + kc.name(d) + " " + keys_name(kk); }
        ic.add("T=" + std::to_string(T) + " " + kc.name(d) + " keys " + keys_name(kk) + " log10cond=" + fmt(lc), [&](unsigned dg) {
          MpDigitsScope sc(digits_for(dg, lc + dg - 30));
          const MM k = to_mp(K), q = to_mp(Q), v = to_mp(V);
          const mp_t tau(tau_of(kc, d));
          const MM U1 = ref::deltaformer_u_recursion(kc.k, k, k, v, tau);
          const MM L = ref::df_kernel_matrix(kc.k, k, k, tau, true);
          const MM U2 = ref::deltaformer_u_triangular(L, v);
          const MM U3 = ref::matmul(unit_lower_inverse(L), v);
          const MM U4 = ref::deltaformer_chunked_gen(kc.k, k, k, v, tau, 3);
          const MM U5 = ref::deltaformer_chunked_gen(kc.k, k, k, v, tau, 8);
          mp_t w = std::max({rel_mp(U2, U1), rel_mp(U3, U1), rel_mp(U4, U1), rel_mp(U5, U1)});
          const MM O1 = ref::deltaformer_readout(kc.k, k, q, U1, tau);
          const MM O2 = ref::matmul(ref::df_kernel_matrix(kc.k, k, q, tau, false), U1);
          w = std::max(w, rel_mp(O2, O1));
          return to_d(w);
        });
      }
  auto r = ic.result(cfg, "T in " + sizes_str(Ts) + ", d = 3, kernels linear, (x'y)^2/4, exp tau in {1, sqrt d, 2 sqrt d}, relu, round; keys gauss/near-parallel");
  r.evidence.extra.emplace_back("largest log10 cond_inf(I+L)", fmt(max_lc) + " at " + max_lc_at);
  return r;
}

std::vector<PhiCase> phi_cases() {
  std::vector<PhiCase> v;
  ref::FeatureMap id;
  id.kind = ref::FeatureMapKind::identity;
  v.push_back({"identity", id, 1.0, [](const mp_t& a) { return a; }});
  ref::FeatureMap p2;
  p2.kind = ref::FeatureMapKind::poly;
  p2.order = 2;  // phi(x) = x⊗x / 2 = (x/sqrt2)⊗(x/sqrt2)
  v.push_back({"x⊗x/2", p2, 0.5, [](const mp_t& a) { return mp_t(a * a / 4); }});
  ref::FeatureMap et;
  et.kind = ref::FeatureMapKind::exp_trunc;
  et.order = 3;
  v.push_back({"phi_3 (exp Taylor)", et, 1.0, [](const mp_t& a) { return exp_taylor(a, 3); }});
  return v;
}
MM scaled(const MM& A, const mp_t& c) {
  MM B = A;
  for (auto& x : B.a) x *= c;
  return B;
}

// =============================================================================================
// A000-DELTAFORMER-EQUIV: Eq. 37 (feature space) vs Eqs. 38-40 (u-form with kappa = phi^T phi);
// S_t = sum_i u_i phi(k_i)^T; u_t = v_t - S_{t-1} phi(k_t).
// =============================================================================================
ClaimResult a000_deltaformer_equiv(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A000-DELTAFORMER-EQUIV");
  IdentityCheck ic("max relative difference of O, S_t and u_t between Eq. 37 and Eqs. 38-40", cfg.digits);
  const std::vector<std::size_t> Ts = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 8} : std::vector<std::size_t>{1, 2, 3, 8, 16, 32};
  int inst = 0;
  double growth = 0;
  for (std::size_t T : Ts)
    for (const PhiCase& pc : phi_cases())
      for (Keys kk : {Keys::gauss, Keys::zero, Keys::repeated, Keys::sphere}) {
        for (double ks : {0.5, 1.5}) {  // 1.5: expansive regime kappa(k,k) > 2 for most keys
          const std::size_t d = 2;
          Rng g(mix(cs, ++inst));
          const DM K = key_rows(g, kk, T, d, ks), Q = gauss(g, T, d), V = gauss(g, T, 2);
          // growth bound: prod_t max(1, |1 - kappa(k_t,k_t)|) (log10), raises the digits (A000-DELTA-KERNEL)
          double lgrow = 0;
          {
            MpDigitsScope sc(30);
            for (std::size_t t = 0; t < T; ++t) {
              mp_t a = 0;
              for (std::size_t j = 0; j < d; ++j) a += mp_t(K(t, j)) * mp_t(K(t, j));
              const mp_t kk2 = pc.kappa(a);
              const double m = std::fabs(to_d(mp_t(1 - kk2)));
              if (m > 1) lgrow += std::log10(m);
            }
          }
          growth = std::max(growth, lgrow);
          ic.add("T=" + std::to_string(T) + " phi=" + pc.name + " keys " + keys_name(kk) + " scale " + fmt(ks), [&](unsigned dg) {
            MpDigitsScope sc(dg + static_cast<unsigned>(std::ceil(lgrow)));
            const MM k = to_mp(K), q = to_mp(Q), v = to_mp(V);
            const mp_t s = boost::multiprecision::sqrt(mp_t(pc.key_scale_sq));
            const auto fr = ref::feature_delta_rule(pc.f, scaled(k, s), scaled(q, s), v, {}, {}, true);
            // u-form with the closed-form kernel
            MM L(T, T), M(T, T);
            for (std::size_t t = 0; t < T; ++t)
              for (std::size_t i = 0; i <= t; ++i) {
                if (i < t) L(t, i) = pc.kappa(ref::dot(k.row(i), k.row(t), d));
                M(t, i) = pc.kappa(ref::dot(k.row(i), q.row(t), d));
              }
            const MM U = ref::unit_lower_solve(L, v);
            const MM O = ref::matmul(M, U);
            mp_t w = rel_mp(fr.O, O);
            // S_t = sum_{i<=t} u_i phi(k_i)^T and u_t = v_t - S_{t-1} phi(k_t)
            const MM ks2 = scaled(k, s);
            MM St(v.cols, fr.state.cols);
            for (std::size_t t = 0; t < T; ++t) {
              const MV pk = ref::apply_feature_map(pc.f, ks2.row(t), d, t + 1);
              MM ut(1, v.cols);
              for (std::size_t c = 0; c < v.cols; ++c) {
                mp_t pred = 0;
                for (std::size_t j = 0; j < pk.size(); ++j) ref::muladd(pred, St(c, j), pk[j]);
                ut(0, c) = v(t, c) - pred;
              }
              MM urow(1, v.cols);
              for (std::size_t c = 0; c < v.cols; ++c) urow(0, c) = U(t, c);
              w = std::max(w, rel_mp(ut, urow));
              ref::add_outer(St, urow.row(0), pk.data());
              w = std::max(w, rel_mp(fr.states[t], St));
            }
            return to_d(w);
          });
        }
      }
  auto r = ic.result(cfg, "T in " + sizes_str(Ts) + ", d = 2, phi in {identity, x⊗x/2, phi_3}, keys gauss/zero/repeated/sphere at scales 0.5, 1.5");
  r.evidence.extra.emplace_back("largest log10 prod max(1,|1-kappa(k,k)|) (expansive regime)", fmt(growth));
  return r;
}

// =============================================================================================
// A000-DELTAFORMER-GEN: recursion (w != k, gates) = matrix form = chunked; linear kappa1 S-form = u-form.
// =============================================================================================
ClaimResult a000_deltaformer_gen(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A000-DELTAFORMER-GEN");
  IdentityCheck ic("max relative difference: recursion vs matrix vs chunked (U, O); linear S-form vs u-form (O)", cfg.digits);
  const std::vector<std::size_t> Ts = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 16} : std::vector<std::size_t>{1, 2, 3, 16, 64};
  int inst = 0;
  for (std::size_t T : Ts)
    for (const KernelCase& kc : kFormKernels)
      for (int gates = 0; gates < 2; ++gates) {
        const std::size_t d = 3;
        Rng g(mix(cs, ++inst));
        const DM K = gauss(g, T, d), W = gauss(g, T, d), Q = gauss(g, T, d), V = gauss(g, T, 2);
        std::vector<double> al = uniform_vec(g, T, -1, 2), be = uniform_vec(g, T, 0, 2);
        if (gates == 1)  // adversarial gates {0, 1, 2}
          for (std::size_t t = 0; t < T; ++t) { al[t] = double(t % 3); be[t] = double((t + 1) % 3); }
        double lc = 0;
        {
          MpDigitsScope sc(60);
          MM L = ref::df_kernel_matrix(kc.k, to_mp(K), to_mp(W), mp_t(tau_of(kc, d)), true);
          for (std::size_t t = 0; t < T; ++t)
            for (std::size_t i = 0; i < t; ++i) L(t, i) *= mp_t(be[t]);
          lc = lg(cond_inf(L));
        }
        ic.add("T=" + std::to_string(T) + " " + kc.name(d) + (gates ? " gates {0,1,2}" : " gates U") + " log10cond=" + fmt(lc), [&](unsigned dg) {
          MpDigitsScope sc(digits_for(dg, lc + dg - 30));
          const MM k = to_mp(K), w = to_mp(W), q = to_mp(Q), v = to_mp(V);
          const MV a = to_mp(al), b = to_mp(be);
          const mp_t tau(tau_of(kc, d));
          const MM U1 = ref::deltaformer_u_recursion(kc.k, k, w, v, tau, a, b);
          const MM U2 = ref::deltaformer_u_triangular(ref::df_kernel_matrix(kc.k, k, w, tau, true), v, a, b);
          const MM U3 = ref::deltaformer_chunked_gen(kc.k, k, w, v, tau, 3, a, b);
          mp_t x = std::max(rel_mp(U2, U1), rel_mp(U3, U1));
          if (kc.k == DfKernel::linear && kc.tau == 1) {
            const MM O1 = ref::deltaformer_readout(DfKernel::linear, k, q, U1, mp_t(1));
            x = std::max(x, rel_mp(ref::deltaformer_gen_sform_linear(k, w, q, v, a, b), O1));
          }
          return to_d(x);
        });
      }
  return ic.result(cfg, "T in " + sizes_str(Ts) + ", d = 3, w != k, alpha^w ~ U(-1,2), beta ~ U(0,2) and {0,1,2}; all kernels of DELTAFORMER-U");
}

// =============================================================================================
// A000-DELTAFORMER-SPECIAL: (i) beta = 0, alpha = 1, softmax read-out = Transformer; (ii-a) alpha = beta = 1,
// w = k, linear kernels = DeltaNet with step 1 (Table 2); (ii-b) alpha = 1, beta_t free vs DeltaNet-beta.
// Verdict: readings (i) and (ii-a) (the paper's own DeltaNet, Table 2); (ii-b) reported.
// =============================================================================================
ClaimResult a000_deltaformer_special(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A000-DELTAFORMER-SPECIAL");
  IdentityCheck ic("max relative difference of O for readings (i) and (ii-a)", cfg.digits);
  IdentityCheck icb("max relative difference of O for reading (ii-b) (alpha = 1, beta free) vs DeltaNet-beta", cfg.digits);
  IdentityCheck icc("[derived] alpha_t = beta_t vs DeltaNet-beta", cfg.digits);
  const std::vector<std::size_t> Ts = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 16} : std::vector<std::size_t>{1, 2, 3, 16, 64};
  int inst = 0;
  for (std::size_t T : Ts)
    for (Keys kk : {Keys::gauss, Keys::sphere, Keys::nearpar, Keys::zero}) {
      const std::size_t d = 3;
      Rng g(mix(cs, ++inst));
      const DM K = key_rows(g, kk, T, d), Q = gauss(g, T, d), V = gauss(g, T, 2);
      const std::vector<double> be = uniform_vec(g, T, 0.1, 1.5);
      const std::string desc = "T=" + std::to_string(T) + " keys " + keys_name(kk);
      ic.add(desc, [&](unsigned dg) {
        MpDigitsScope sc(dg);
        const MM k = to_mp(K), q = to_mp(Q), v = to_mp(V);
        const mp_t s = mp_t(1) / boost::multiprecision::sqrt(mp_t(d));
        // (i): beta = 0 (any kappa1), alpha = 1, normalised exp kappa2
        const MM U0 = ref::deltaformer_u_recursion(DfKernel::exp, k, k, v, mp_t(1), MV(T, mp_t(1)), MV(T, mp_t(0)));
        mp_t x = rel_mp(ref::deltaformer_norm_readout(k, q, U0, s), ref::causal_softmax_attention(q, k, v, s));
        // (ii-a): DeltaNet with beta = 1 (A000-T2-DELTANET as printed)
        const MM U1 = ref::deltaformer_u_recursion(DfKernel::linear, k, k, v, mp_t(1));
        const MM O1 = ref::deltaformer_readout(DfKernel::linear, k, q, U1, mp_t(1));
        x = std::max(x, rel_mp(O1, ref::delta_rule(q, k, v, MV(T, mp_t(1))).O));
        return to_d(x);
      });
      icb.add(desc, [&](unsigned dg) {
        MpDigitsScope sc(dg);
        const MM k = to_mp(K), q = to_mp(Q), v = to_mp(V);
        const MV b = to_mp(be);
        const MM U = ref::deltaformer_u_recursion(DfKernel::linear, k, k, v, mp_t(1), MV(T, mp_t(1)), b);
        return rel(ref::deltaformer_readout(DfKernel::linear, k, q, U, mp_t(1)), ref::delta_rule(q, k, v, b).O);
      });
      icc.add(desc, [&](unsigned dg) {
        MpDigitsScope sc(dg);
        const MM k = to_mp(K), q = to_mp(Q), v = to_mp(V);
        const MV b = to_mp(be);
        const MM U = ref::deltaformer_u_recursion(DfKernel::linear, k, k, v, mp_t(1), b, b);
        return rel(ref::deltaformer_readout(DfKernel::linear, k, q, U, mp_t(1)), ref::delta_rule(q, k, v, b).O);
      });
    }
  auto r = ic.result(cfg, "T in " + sizes_str(Ts) + ", d = 3, keys gauss/sphere/near-parallel/zero, beta ~ U(0.1,1.5)");
  const auto rb = icb.result(cfg, ""), rc = icc.result(cfg, "");
  r.evidence.extra.emplace_back("reading (ii-b) alpha_t = 1, beta_t free vs DeltaNet-beta",
                                std::string(verdict_name(rb.verdict)) + " (residual " + fmt(rb.evidence.value) +
                                    (rb.evidence.witness.empty() ? "" : ", witness " + rb.evidence.witness) + ")");
  r.evidence.extra.emplace_back("[derived] alpha_t = beta_t vs DeltaNet-beta", std::string(verdict_name(rc.verdict)) + " (residual " + fmt(rc.evidence.value) + ")");
  r.reason += "; verdict on readings (i) and (ii-a); reading (ii-b) is " + std::string(verdict_name(rb.verdict));
  return r;
}

}  // namespace

void register_a000_deltaformer_forms(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A000-DELTAFORMER-U", "DeltaFormer u-solve: recursion = triangular = inverse = chunked; read-out", identity, true, a000_deltaformer_u);
  add("A000-DELTAFORMER-EQUIV", "Kernel delta rule (Eq. 37) = u-form (Eqs. 38-40)", identity, false, a000_deltaformer_equiv);
  add("A000-DELTAFORMER-GEN", "General DeltaFormer: recursion = matrix = chunked; linear S-form", identity, true, a000_deltaformer_gen);
  add("A000-DELTAFORMER-SPECIAL", "Transformer and DeltaNet as special cases of Eqs. 41-42", identity, false, a000_deltaformer_special);
}

}  // namespace recall
