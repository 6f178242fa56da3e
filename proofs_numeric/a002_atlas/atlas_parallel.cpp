// Paper A002 (Atlas), §5.1 Eqs. 34-41: the chunk-wise parallel training of Atlas (frozen gradients, momentum closed
// form via the decay matrix, Newton-Schulz of all chunk momenta as one batch, decay scan), its relation to the
// token-sequential model, the closed form of the momentum recurrence (Eqs. 38-39) and the reductions of Atlas
// (without Newton-Schulz: OmegaNet with momentum; theta = 0: the OmegaNet update; c = 1, phi = id: Titans with an
// orthogonalised momentum). Linear memory only (reference/include/recall/reference/atlas.hpp); the MLP memory of the
// spec's checks is not run (noted in the evidence). Newton-Schulz coefficients: external (Muon).
// Instances: deterministic from tag_seed(cfg.seed, ID), smallest first; witnesses name sizes, generator and seed.
// Spec IDs: A002-ATLAS-PARALLEL, A002-ATLAS-MOMENTUM-CLOSED, A002-ATLAS-NS-BATCH, A002-ATLAS-PARALLEL-SEMANTICS,
// A002-R5-ATLAS-REDUCTIONS.
#include "recall/proofs/claims_a002.hpp"
#include "recall/proofs/ledger.hpp"
#include "recall/reference/atlas.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/newton_schulz.hpp"
#include "a002_atlas_claims.hpp"
#include "claim_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::atlas;
using ref::AtlasVariant;

const char* kMlpNote = "linear memory only: the 2-layer MLP memory of the spec's check needs A002-MEMORY-MLP (not implemented by atlas.hpp)";

// ---- independent forms written in this file (not through atlas.hpp's step) -----------------------------------------

// The "without Newton-Schulz" momentum model with D4 signs and unit outer rate (OmegaNet with momentum, window
// version of A002-OMEGA-MOMENTUM): S_t = theta_t S_{t-1} - sum_{i in W_t} Gamma(t,i) 2 (M phi_i - v_i) phi_i^T,
// M_t = alpha_t M_{t-1} + S_t, with the gradient at M_{t-1} (b = 1) or at the state after the previous chunk (b > 1).
template <class S> ref::Matrix<S> momentum_model_outputs(const ref::AtlasInputs<S>& in, std::size_t b) {
  const std::size_t L = in.PhiK.rows, dv = in.V.cols, D = in.PhiK.cols;
  ref::Matrix<S> M = in.M0.empty() ? ref::Matrix<S>(dv, D) : in.M0, Sm = in.S0.empty() ? ref::Matrix<S>(dv, D) : in.S0, Mf = M;
  ref::Matrix<S> Y(L, dv);
  for (std::size_t t = 0; t < L; ++t) {
    if (t % b == 0) Mf = M;
    const ref::Matrix<S>& Mg = b == 1 ? M : Mf;
    for (S& x : Sm.a) x *= in.theta[t];
    for (std::size_t i = (t + 1 >= in.c ? t + 1 - in.c : 0); i <= t; ++i)
      for (std::size_t r = 0; r < dv; ++r) {
        S e = -in.V(i, r);
        for (std::size_t j = 0; j < D; ++j) e += Mg(r, j) * in.PhiK(i, j);
        for (std::size_t j = 0; j < D; ++j) Sm(r, j) -= S(2) * in.Gamma(t, i) * e * in.PhiK(i, j);
      }
    for (std::size_t a = 0; a < M.a.size(); ++a) M.a[a] = in.alpha[t] * M.a[a] + Sm.a[a];
    for (std::size_t r = 0; r < dv; ++r) {
      S y(0);
      for (std::size_t j = 0; j < D; ++j) y += M(r, j) * in.PhiQ(t, j);
      Y(t, r) = y;
    }
  }
  return Y;
}
// The OmegaNet update in the Eq. 11 form (linear memory, scalar decay): M_t = M_{t-1} (alpha_t I - 2 sum Gamma phi phi^T)
// + 2 sum Gamma v phi^T, y_t = M_t phi(q_t).
template <class S> ref::Matrix<S> omeganet_eq11_outputs(const ref::AtlasInputs<S>& in) {
  const std::size_t L = in.PhiK.rows, dv = in.V.cols, D = in.PhiK.cols;
  ref::Matrix<S> M = in.M0.empty() ? ref::Matrix<S>(dv, D) : in.M0, Y(L, dv);
  for (std::size_t t = 0; t < L; ++t) {
    ref::Matrix<S> T(D, D), B(dv, D);
    for (std::size_t j = 0; j < D; ++j) T(j, j) = in.alpha[t];
    for (std::size_t i = (t + 1 >= in.c ? t + 1 - in.c : 0); i <= t; ++i) {
      ref::add_outer(T, S(-2 * in.Gamma(t, i)), in.PhiK.row(i), in.PhiK.row(i));
      ref::add_outer(B, S(2 * in.Gamma(t, i)), in.V.row(i), in.PhiK.row(i));
    }
    M = ref::matmul(M, T);
    for (std::size_t a = 0; a < M.a.size(); ++a) M.a[a] += B.a[a];
    ref::matvec_into(Y.row(t), M, in.PhiQ.row(t));
  }
  return Y;
}
// Titans' memory with an orthogonalised momentum (c = 1, phi = id): S_t = theta_t S_{t-1} - eta_t grad l(M_{t-1}; k_t, v_t),
// l = ||M k - v||^2, M_t = alpha_t M_{t-1} + NS5(S_t).
template <class S> ref::Matrix<S> titans_ns_outputs(const ref::Matrix<S>& K, const ref::Matrix<S>& Q, const ref::Matrix<S>& V,
                                                    const ref::Vector<S>& alpha, const ref::Vector<S>& theta, const ref::Vector<S>& eta) {
  const std::size_t L = K.rows, dv = V.cols, dk = K.cols;
  ref::Matrix<S> M(dv, dk), Sm(dv, dk), Y(L, dv);
  for (std::size_t t = 0; t < L; ++t) {
    ref::Vector<S> e = ref::matvec(M, K.row(t));
    for (std::size_t r = 0; r < dv; ++r) e[r] -= V(t, r);
    for (S& x : Sm.a) x *= theta[t];
    ref::add_outer(Sm, S(-2 * eta[t]), e.data(), K.row(t));
    const ref::Matrix<S> O = ref::newton_schulz5(Sm);
    for (std::size_t a = 0; a < M.a.size(); ++a) M.a[a] = alpha[t] * M.a[a] + O.a[a];
    ref::matvec_into(Y.row(t), M, Q.row(t));
  }
  return Y;
}
// Without NS, steps 2 and 4 of the parallel form compose into one coefficient per gradient (spec A002-ATLAS-PARALLEL):
//   M_t = A_{s:t} M_{s-1} + sum_{n=s}^t A_{n+1:t} w_n Theta_{s:n} S_{s-1} + sign sum_{i=s}^t [sum_{n=i}^t A_{n+1:t} w_n Theta_{i+1:n}] u_i
// (plain products of the gates, no log space: the instances here have no zero gates).
template <class S> ref::Matrix<S> composed_outputs(const ref::AtlasInputs<S>& in, AtlasVariant v, std::size_t b, const S& eta_out) {
  const std::size_t L = in.PhiK.rows, dv = in.V.cols, D = in.PhiK.cols;
  const S sign = v == AtlasVariant::eq32 ? S(1) : S(-1);
  auto prod = [](const ref::Vector<S>& g, std::size_t a, std::size_t e) {  // g[a..e] inclusive, 1 if a > e
    S p(1);
    for (std::size_t j = a; j <= e && j < g.size(); ++j) p *= g[j];
    return p;
  };
  auto w = [&](std::size_t n) { return v == AtlasVariant::d4 ? eta_out : S(-in.eta[n]); };
  ref::Matrix<S> Mprev = in.M0.empty() ? ref::Matrix<S>(dv, D) : in.M0, Sprev = in.S0.empty() ? ref::Matrix<S>(dv, D) : in.S0, Y(L, dv);
  for (std::size_t s = 0; s < L; s += b) {
    const std::size_t e = std::min(L, s + b) - 1;
    std::vector<ref::Matrix<S>> u(L);
    for (std::size_t n = s; n <= e; ++n) u[n] = ref::atlas_window_gradient(Mprev, in, n);
    ref::Matrix<S> Mt, St;
    for (std::size_t t = s; t <= e; ++t) {
      Mt = Mprev;
      for (S& x : Mt.a) x *= prod(in.alpha, s, t);
      S cS(0);
      for (std::size_t n = s; n <= t; ++n) cS += prod(in.alpha, n + 1, t) * w(n) * prod(in.theta, s, n);
      for (std::size_t a = 0; a < Mt.a.size(); ++a) Mt.a[a] += cS * Sprev.a[a];
      for (std::size_t i = s; i <= t; ++i) {
        S ci(0);
        for (std::size_t n = i; n <= t; ++n) ci += prod(in.alpha, n + 1, t) * w(n) * prod(in.theta, i + 1, n);
        for (std::size_t a = 0; a < Mt.a.size(); ++a) Mt.a[a] += sign * ci * u[i].a[a];
      }
      ref::matvec_into(Y.row(t), Mt, in.PhiQ.row(t));
    }
    // momentum after the chunk (scan of the frozen gradients)
    St = Sprev;
    for (std::size_t n = s; n <= e; ++n)
      for (std::size_t a = 0; a < St.a.size(); ++a) St.a[a] = in.theta[n] * St.a[a] + sign * u[n].a[a];
    Mprev = Mt;
    Sprev = St;
  }
  return Y;
}

std::string b_list(const std::vector<std::size_t>& bs) {
  std::string s;
  for (std::size_t b : bs) s += (s.empty() ? "" : ",") + std::to_string(b);
  return s;
}

// ---- A002-ATLAS-PARALLEL -----------------------------------------------------------------------------------------

// A002-ATLAS-PARALLEL: (a) parallel with b = 1 = sequential Atlas (EQ32, D4, T1); (b) parallel = frozen-gradient
// sequential for every b; (c) NS = identity, D4 signs, eta_out = 1, b = 1 = the momentum model written here; (d) without
// NS the parallel form = the composed coefficient form (EQ32, D4). P1 identity rule; control: parallel(b) vs frozen(b+1).
ClaimResult a002_atlas_parallel(const CheckConfig& cfg) {
  const char* tag = "A002-ATLAS-PARALLEL";
  const std::uint64_t base = tag_seed(cfg.seed, tag);
  const std::size_t L = cfg.quick ? 12 : 32, D = cfg.quick ? 4 : 8;
  const std::vector<std::size_t> bs = cfg.quick ? std::vector<std::size_t>{1, 2, 4} : std::vector<std::size_t>{1, 2, 3, 4, 8};
  Checker ck("max rel. residual (outputs y_t, states M_t): parallel form (Eqs. 34-41) vs token loop (P1)", cfg.digits);
  Controls ctl;
  int idx = 0;
  for (std::size_t c : {1, 3})
    for (AtlasVariant v : {AtlasVariant::eq32, AtlasVariant::d4, AtlasVariant::t1})
      for (std::size_t b : bs) {
        InstOpts o;
        o.random_state = idx % 2 == 1;
        const AtlasInst x = make_inst(mix(base, static_cast<std::uint64_t>(idx++)), L, D, D, c, o);
        const std::string desc = std::string(ref::atlas_variant_name(v)) + " b=" + std::to_string(b) + " " + x.desc;
        ck.add(desc + (b == 1 ? " (a) vs sequential" : " (b) vs frozen-gradient loop"), [&](unsigned d, std::string& w) {
          MpDigitsScope sc(d);
          const ref::AtlasInputs<mp_t> in = to_inputs<mp_t>(x);
          const ref::AtlasConfig<mp_t> ac;
          const auto P = ref::atlas_parallel(in, ac, v, b);
          return traj_res(P, b == 1 ? ref::atlas_run(in, ac, v) : ref::atlas_frozen_chunks(in, ac, v, b), &w);
        });
        if (v != AtlasVariant::t1) {
          ck.add(desc + " (d) NS = identity vs composed coefficient form", [&](unsigned d, std::string& w) {
            MpDigitsScope sc(d);
            const ref::AtlasInputs<mp_t> in = to_inputs<mp_t>(x);
            ref::AtlasConfig<mp_t> ac;
            ac.ortho = ref::AtlasOrtho::identity;
            const auto P = ref::atlas_parallel(in, ac, v, b);
            std::size_t t = 0;
            const double r = rowrel(P.Y, composed_outputs(in, v, b, ac.eta_out), &t);
            w = "y_" + std::to_string(t + 1);
            return r;
          });
        }
        if (v == AtlasVariant::d4 && b == 1) {
          ck.add(desc + " (c) NS = identity vs momentum model", [&](unsigned d, std::string& w) {
            MpDigitsScope sc(d);
            const ref::AtlasInputs<mp_t> in = to_inputs<mp_t>(x);
            ref::AtlasConfig<mp_t> ac;
            ac.ortho = ref::AtlasOrtho::identity;
            std::size_t t = 0;
            const double r = rowrel(ref::atlas_parallel(in, ac, v, 1).Y, momentum_model_outputs(in, 1), &t);
            w = "y_" + std::to_string(t + 1);
            return r;
          });
        }
        MpDigitsScope sc(cfg.digits);
        const ref::AtlasInputs<mp_t> in = to_inputs<mp_t>(x);
        const ref::AtlasConfig<mp_t> ac;
        ctl.add(traj_res(ref::atlas_parallel(in, ac, v, b), ref::atlas_frozen_chunks(in, ac, v, b + 1)) > identity_threshold(cfg.digits),
                desc + " vs frozen loop with b+1");
      }
  ClaimResult r = ck.result(cfg, "L = " + std::to_string(L) + ", d_k = d_v = " + std::to_string(D) + ", c in {1,3}, b in {" + b_list(bs) +
                                     "}, EQ32 / D4 / T1, theta ~ U[0.5,0.99]; seed tag " + tag);
  ctl.apply(r, "chunk size b+1 in the loop");
  r.evidence.extra.emplace_back("scope", kMlpNote);
  return r;
}

// ---- A002-ATLAS-MOMENTUM-CLOSED ----------------------------------------------------------------------------------

// A002-ATLAS-MOMENTUM-CLOSED: Eq. 39 with Theta_{i+1:t} in log space vs the scan (P1), S_0 random, U_i = eta_i u_i random
// 2 x 3 matrices, L in {1,2,3,7,16,64,257} (+4096 full), theta ~ U[0.5,0.99], theta with zeros, small theta ~ U[0,0.1]; at
// t = L and t = ceil(L/2). Control: Theta_{i:t} in place of Theta_{i+1:t}. Evidence: the printed ratio form
// (theta_t...theta_1)/(theta_i...theta_1) evaluated literally in binary64.
ClaimResult a002_atlas_momentum_closed(const CheckConfig& cfg) {
  const char* tag = "A002-ATLAS-MOMENTUM-CLOSED";
  const std::uint64_t base = tag_seed(cfg.seed, tag);
  std::vector<std::size_t> Ls = {1, 2, 3, 7, 16, 64, 257};
  if (!cfg.quick) Ls.push_back(4096);
  Checker ck("max rel. residual ||closed form (Eq. 39, log-space Theta_{i+1:t}) - scan||_F at t = L and ceil(L/2) (P1)", cfg.digits);
  Controls ctl;
  int ratio_bad = 0, ratio_n = 0;
  std::string ratio_first;
  int idx = 0;
  for (std::size_t L : Ls)
    for (int fam = 0; fam < 3; ++fam) {
      const std::uint64_t s = mix(base, static_cast<std::uint64_t>(idx++));
      Gauss g(s);
      std::vector<double> th(L), eta(L);
      for (std::size_t t = 0; t < L; ++t) {
        th[t] = fam == 2 ? 0.1 * g.uniform() : 0.5 + 0.49 * g.uniform();
        eta[t] = 0.01 + 0.49 * g.uniform();
      }
      if (fam == 1)
        for (std::size_t t = 0; t < L; t += 5) th[t] = 0.0;
      std::vector<DM> U(L);
      for (std::size_t t = 0; t < L; ++t) {
        U[t] = gauss_matrix(2, 3, g);
        for (double& x : U[t].a) x *= eta[t];
      }
      const DM S0 = gauss_matrix(2, 3, g);
      const char* fname[] = {"theta~U[0.5,0.99]", "theta with zeros (every 5th from t=1)", "theta~U[0,0.1]"};
      const std::string desc = "L=" + std::to_string(L) + " " + fname[fam] + " 2x3 inst_seed=" + hex(s);
      ck.add(desc, [&](unsigned d, std::string& w) {
        MpDigitsScope sc(d);
        std::vector<MM> Um;
        for (const DM& u : U) Um.push_back(to_mp(u));
        MV lth(L);
        MV thm = to_mp(th);
        for (std::size_t t = 0; t < L; ++t) lth[t] = ref::log_gate(thm[t]);
        const MM S0m = to_mp(S0);
        double r = 0;
        for (std::size_t t : {L, (L + 1) / 2}) {
          const double rt = rel_res(ref::atlas_momentum_closed(lth, Um, S0m, -1, 0, t - 1), ref::atlas_momentum_scan(thm, Um, S0m, -1, 0, t - 1));
          if (rt >= r) {
            r = rt;
            w = "t=" + std::to_string(t);
          }
        }
        return r;
      });
      {
        MpDigitsScope sc(cfg.digits);
        std::vector<MM> Um;
        for (const DM& u : U) Um.push_back(to_mp(u));
        const MV thm = to_mp(th);
        MV lth(L), lsh(L, mp_t(0));
        for (std::size_t t = 0; t < L; ++t) lth[t] = ref::log_gate(thm[t]);
        // wrong form: Theta_{i:t} (the i-th factor included)
        const MM S0m = to_mp(S0);
        MM wrong(2, 3);
        const mp_t w0 = ref::exp_log(ref::detail::log_prod(lth, 0, L - 1));
        for (std::size_t a = 0; a < 6; ++a) wrong.a[a] = w0 * S0m.a[a];
        for (std::size_t i = 0; i < L; ++i) {
          const mp_t wi = -ref::exp_log(ref::detail::log_prod(lth, i, L - 1));
          for (std::size_t a = 0; a < 6; ++a) wrong.a[a] += wi * Um[i].a[a];
        }
        ctl.add(rel_res(wrong, ref::atlas_momentum_scan(thm, Um, S0m, -1, 0, L - 1)) > identity_threshold(cfg.digits), desc + " (Theta_{i:t})");
      }
      // the printed ratio form literally in binary64
      {
        ++ratio_n;
        std::vector<double> beta(L + 1, 1.0);  // beta_t = theta_t ... theta_1
        for (std::size_t t = 0; t < L; ++t) beta[t + 1] = beta[t] * th[t];
        DM lit(2, 3), scan = S0;
        for (std::size_t a = 0; a < 6; ++a) lit.a[a] = beta[L] * S0.a[a];
        for (std::size_t i = 0; i < L; ++i)
          for (std::size_t a = 0; a < 6; ++a) lit.a[a] -= beta[L] / beta[i + 1] * U[i].a[a];
        for (std::size_t t = 0; t < L; ++t)
          for (std::size_t a = 0; a < 6; ++a) scan.a[a] = th[t] * scan.a[a] - U[t].a[a];
        const double rr = nan_inf(rel_res(lit, scan));
        if (!(rr <= 1e-12)) {
          ++ratio_bad;
          if (ratio_first.empty()) ratio_first = desc + ": rel. residual " + fmt(rr);
        }
      }
    }
  ClaimResult r = ck.result(cfg, "L in {1,2,3,7,16,64,257" + std::string(cfg.quick ? "" : ",4096") + "} x 3 theta families, 2 x 3 momenta; seed tag " + tag);
  ctl.apply(r, "Theta_{i:t} in place of Theta_{i+1:t}");
  r.evidence.extra.emplace_back("printed ratio form (theta_t...theta_1)/(theta_i...theta_1) literally in binary64",
                                std::to_string(ratio_bad) + " of " + std::to_string(ratio_n) + " instances non-finite or off by > 1e-12 (0/0 with zero gates, "
                                "underflow of the prefix products on long sequences); first: " + (ratio_first.empty() ? std::string("none") : ratio_first));
  r.evidence.extra.emplace_back("reading", "the compact \"Theta (.) E (.) G\" of Eq. 39 is not implemented literally (A-32); explicit lower-triangular decay sum");
  return r;
}

// ---- A002-ATLAS-NS-BATCH ------------------------------------------------------------------------------------------

// A002-ATLAS-NS-BATCH: (1) the batch NS (newton_schulz_batch) equals per-momentum NS bitwise in binary64 and float32
// (same reduction order); (2) the momenta of a chunk computed before any memory update (closed form from the frozen
// gradients) equal the momenta of the frozen-gradient token loop, which interleaves NS and memory updates (P1), so
// their NS can run as one batch. Control: the momenta of the token-sequential model (gradients at M_{t-1}) differ for b >= 2.
ClaimResult a002_atlas_ns_batch(const CheckConfig& cfg) {
  const char* tag = "A002-ATLAS-NS-BATCH";
  const std::uint64_t base = tag_seed(cfg.seed, tag);
  const std::size_t L = cfg.quick ? 12 : 32;
  const std::vector<std::size_t> bs = cfg.quick ? std::vector<std::size_t>{2, 4} : std::vector<std::size_t>{2, 3, 4, 8, 16};
  Checker ck("max rel. residual of the chunk momenta: closed form before any memory update vs frozen-gradient token loop (P1)", cfg.digits);
  Controls ctl;
  int bit_n = 0, bit_bad = 0;
  std::string bit_w;
  int idx = 0;
  for (std::size_t b : bs)
    for (std::size_t c : {1, 3}) {
      InstOpts o;
      o.random_state = true;
      const AtlasInst x = make_inst(mix(base, static_cast<std::uint64_t>(idx++)), L, 4, 4, c, o);
      const std::string desc = "b=" + std::to_string(b) + " " + x.desc;
      ck.add(desc, [&](unsigned d, std::string& w) {
        MpDigitsScope sc(d);
        const ref::AtlasInputs<mp_t> in = to_inputs<mp_t>(x);
        const ref::AtlasConfig<mp_t> ac;
        const auto F = ref::atlas_frozen_chunks(in, ac, AtlasVariant::d4, b);
        MV lth(L);
        for (std::size_t t = 0; t < L; ++t) lth[t] = ref::log_gate(in.theta[t]);
        double r = 0;
        for (std::size_t s = 0; s < L; s += b) {
          std::vector<MM> U(L);
          for (std::size_t n = s; n < std::min(L, s + b); ++n) U[n] = ref::atlas_window_gradient(F.M[s], in, n);
          for (std::size_t n = s; n < std::min(L, s + b); ++n) {
            const double rn = rel_res(ref::atlas_momentum_closed(lth, U, F.Smom[s], -1, s, n), F.Smom[n + 1]);
            if (rn >= r) {
              r = rn;
              w = "S_" + std::to_string(n + 1);
            }
          }
        }
        return r;
      });
      {
        MpDigitsScope sc(cfg.digits);
        const ref::AtlasInputs<mp_t> in = to_inputs<mp_t>(x);
        const ref::AtlasConfig<mp_t> ac;
        const auto Sq = ref::atlas_run(in, ac, AtlasVariant::d4), F = ref::atlas_frozen_chunks(in, ac, AtlasVariant::d4, b);
        double r = 0;
        for (std::size_t t = 1; t <= L; ++t) r = std::max(r, rel_res(Sq.Smom[t], F.Smom[t]));
        ctl.add(r > identity_threshold(cfg.digits), desc + " (token-sequential momenta)");
      }
      // bitwise batch vs per-matrix NS on the momenta of the double trajectory
      {
        const ref::AtlasInputs<double> in = to_inputs<double>(x);
        const auto F = ref::atlas_frozen_chunks(in, ref::AtlasConfig<double>{}, AtlasVariant::d4, b);
        std::vector<DM> mom(F.Smom.begin() + 1, F.Smom.end());
        const std::vector<DM> bat = ref::newton_schulz_batch(mom, 5);
        std::vector<ref::Matrix<float>> momf;
        for (const DM& m : mom) {
          ref::Matrix<float> f(m.rows, m.cols);
          for (std::size_t a = 0; a < m.a.size(); ++a) f.a[a] = static_cast<float>(m.a[a]);
          momf.push_back(f);
        }
        const auto batf = ref::newton_schulz_batch(momf, 5, ref::muon_ns_coefficients<float>());
        for (std::size_t t = 0; t < mom.size(); ++t) {
          ++bit_n;
          const DM one = ref::newton_schulz5(mom[t]);
          const auto onef = ref::newton_schulz5(momf[t]);
          bool eq = one.a == bat[t].a && onef.a == batf[t].a;
          if (!eq) {
            ++bit_bad;
            if (bit_w.empty()) bit_w = desc + " S_" + std::to_string(t + 1);
          }
        }
      }
    }
  ClaimResult r1 = ck.result(cfg, "L = " + std::to_string(L) + ", d_k = d_v = 4, c in {1,3}, b in {" + b_list(bs) + "}, D4, random M0, S0; seed tag " + tag);
  ctl.apply(r1, "momenta of the token-sequential model");
  ClaimResult r2;
  r2.evidence.statistic = "momenta whose batched NS5 differs from the per-momentum NS5 (binary64 and float32, bitwise)";
  r2.evidence.value = bit_bad;
  r2.evidence.threshold = 0;
  r2.evidence.instances = bit_n;
  r2.evidence.sizes = "the momenta of the frozen-gradient trajectories";
  r2.evidence.seed = cfg.seed;
  r2.evidence.witness = bit_w;
  r2.verdict = bit_bad ? Verdict::violated : Verdict::holds;
  r2.reason = bit_bad ? "batched NS differs: " + bit_w : "bitwise equal on all momenta";
  ClaimResult out = combine({{"momenta independent of the memory updates", r1}, {"batched vs per-step NS", r2}});
  out.evidence.extra.emplace_back("scope", kMlpNote);
  return out;
}

// ---- A002-ATLAS-PARALLEL-SEMANTICS ---------------------------------------------------------------------------------

// A002-ATLAS-PARALLEL-SEMANTICS: the chunk-wise procedure vs the token-sequential Atlas: max rel. output deviation for
// b in {1,2,4,8,16}, outer-rate scale in {1e-4,...,1e-1} (EQ32: eta_t = scale; D4: eta_out = scale, and eta_out = 1 as in
// Eq. 57); decision (spec): coincide iff <= 1e-12; a deviation above it is confirmed at doubled digits. Figure: deviation
// vs the outer rate per b.
ClaimResult a002_atlas_parallel_semantics(const CheckConfig& cfg) {
  const char* tag = "A002-ATLAS-PARALLEL-SEMANTICS";
  const std::uint64_t base = tag_seed(cfg.seed, tag);
  const std::size_t L = cfg.quick ? 16 : 32;
  const std::vector<std::size_t> bs = {1, 2, 4, 8, 16};
  const std::vector<double> scales = cfg.quick ? std::vector<double>{1e-4, 1e-2} : std::vector<double>{1e-4, 1e-3, 1e-2, 1e-1};
  ThresholdCheck ck("max rel. output deviation ||y_t(parallel, b) - y_t(sequential)|| / max(1, ||y_t||) (P1)", cfg.digits, 1e-12);
  ClaimFigure fig;
  fig.id = "chunk_deviation";
  fig.title = "Chunked vs token-sequential Atlas (EQ32): output deviation vs outer rate";
  fig.caption = "max relative output deviation at 50 digits, L = " + std::to_string(L) + ", c = 3, d_k = d_v = 4; one series per chunk size b";
  fig.x_label = "outer rate eta";
  fig.y_label = "max rel. deviation";
  fig.x_scale = fig.y_scale = "log";
  std::vector<FigureSeries> series(bs.size());
  std::string d4one;
  int idx = 0;
  for (std::size_t bi = 0; bi < bs.size(); ++bi) {
    const std::size_t b = bs[bi];
    series[bi].name = "b=" + std::to_string(b);
    series[bi].marker = "o";
    for (double sc : scales)
      for (AtlasVariant v : {AtlasVariant::eq32, AtlasVariant::d4}) {
        InstOpts o;
        const AtlasInst x0 = make_inst(mix(base, static_cast<std::uint64_t>(idx++)), L, 4, 4, 3, o);
        AtlasInst x = x0;
        for (double& e : x.eta) e = sc;
        const std::string desc = std::string(ref::atlas_variant_name(v)) + " b=" + std::to_string(b) + " eta=" + fmt(sc, 1) + " " + x.desc;
        auto dev = [&](unsigned d, std::string& w) {
          MpDigitsScope scp(d);
          const ref::AtlasInputs<mp_t> in = to_inputs<mp_t>(x);
          ref::AtlasConfig<mp_t> ac;
          ac.eta_out = mp_t(sc);
          std::size_t t = 0;
          const double r = rowrel(ref::atlas_parallel(in, ac, v, b).Y, ref::atlas_run(in, ac, v).Y, &t);
          w = "y_" + std::to_string(t + 1);
          return r;
        };
        ck.add(desc, dev);
        if (v == AtlasVariant::eq32) {
          std::string w;
          series[bi].x.push_back(sc);
          series[bi].y.push_back(std::max(1e-60, dev(cfg.digits, w)));
        }
      }
    {  // D4 with eta_out = 1 (Eq. 57)
      InstOpts o;
      const AtlasInst x = make_inst(mix(base, static_cast<std::uint64_t>(idx++)), L, 4, 4, 3, o);
      MpDigitsScope scp(cfg.digits);
      const ref::AtlasInputs<mp_t> in = to_inputs<mp_t>(x);
      const ref::AtlasConfig<mp_t> ac;
      d4one += (d4one.empty() ? "" : ", ") + std::string("b=") + std::to_string(b) + ": " +
               fmt(rowrel(ref::atlas_parallel(in, ac, AtlasVariant::d4, b).Y, ref::atlas_run(in, ac, AtlasVariant::d4).Y));
    }
  }
  ClaimResult r = ck.result(cfg, "L = " + std::to_string(L) + ", c = 3, d_k = d_v = 4, b in {1,2,4,8,16}, outer rate in {" +
                                     std::string(cfg.quick ? "1e-4,1e-2" : "1e-4,1e-3,1e-2,1e-1") + "}, EQ32 and D4; seed tag " + tag);
  for (auto& s : series) fig.series.push_back(std::move(s));
  r.evidence.figures.push_back(std::move(fig));
  r.evidence.extra.emplace_back("D4 with eta_out = 1 (Eq. 57 as printed): deviation by b", d4one);
  r.evidence.extra.emplace_back("scope", kMlpNote);
  if (r.verdict == Verdict::violated)
    r.reason = "the chunk-wise procedure (frozen gradients) computes a different model than token-sequential Atlas for b >= 2: " + r.reason;
  return r;
}

// ---- A002-R5-ATLAS-REDUCTIONS --------------------------------------------------------------------------------------

// A002-R5-ATLAS-REDUCTIONS: (i) NS = identity, D4 signs, eta_out = 1 = OmegaNet with momentum (momentum model written
// here; sequential and parallel b = 4 vs its frozen-gradient version); (ii) additionally theta = 0 = the OmegaNet update
// (Eq. 11 form); (iii) c = 1, phi = id, Gamma(t,t) = eta_t = Titans' memory with an NS5-orthogonalised momentum.
// P1 identity rule; controls: EQ32 signs for (i), theta != 0 for (ii), NS = identity for (iii).
ClaimResult a002_r5_atlas_reductions(const CheckConfig& cfg) {
  const char* tag = "A002-R5-ATLAS-REDUCTIONS";
  const std::uint64_t base = tag_seed(cfg.seed, tag);
  Checker ck("max rel. output residual: Atlas reading vs the reduced model written independently (P1)", cfg.digits);
  Controls ctl;
  const int N = cfg.quick ? 2 : 6;
  int idx = 0;
  for (int i = 0; i < N; ++i) {
    const std::size_t L = 4 + 3 * static_cast<std::size_t>(i), c = 1 + static_cast<std::size_t>(i % 3);
    // (i)
    {
      InstOpts o;
      o.random_state = i % 2 == 1;
      const AtlasInst x = make_inst(mix(base, static_cast<std::uint64_t>(idx++)), L, 3, 2, c, o);
      for (std::size_t b : {std::size_t{1}, std::size_t{4}})
        ck.add("(i) b=" + std::to_string(b) + " " + x.desc, [&](unsigned d, std::string& w) {
          MpDigitsScope sc(d);
          const ref::AtlasInputs<mp_t> in = to_inputs<mp_t>(x);
          ref::AtlasConfig<mp_t> ac;
          ac.ortho = ref::AtlasOrtho::identity;
          const auto A = b == 1 ? ref::atlas_d4(in, ac) : ref::atlas_parallel(in, ac, AtlasVariant::d4, b);
          std::size_t t = 0;
          const double r = rowrel(A.Y, momentum_model_outputs(in, b), &t);
          w = "y_" + std::to_string(t + 1);
          return r;
        });
      MpDigitsScope sc(cfg.digits);
      const ref::AtlasInputs<mp_t> in = to_inputs<mp_t>(x);
      ref::AtlasConfig<mp_t> ac;
      ac.ortho = ref::AtlasOrtho::identity;
      ctl.add(rowrel(ref::atlas_eq32(in, ac).Y, momentum_model_outputs(in, 1)) > identity_threshold(cfg.digits), "(i) EQ32 signs " + x.desc);
    }
    // (ii)
    {
      InstOpts o;
      o.random_state = i % 2 == 1;
      o.theta_zero = true;
      const AtlasInst x = make_inst(mix(base, static_cast<std::uint64_t>(idx++)), L, 3, 2, c, o);
      ck.add("(ii) " + x.desc, [&](unsigned d, std::string& w) {
        MpDigitsScope sc(d);
        const ref::AtlasInputs<mp_t> in = to_inputs<mp_t>(x);
        ref::AtlasConfig<mp_t> ac;
        ac.ortho = ref::AtlasOrtho::identity;
        std::size_t t = 0;
        const double r = rowrel(ref::atlas_d4(in, ac).Y, omeganet_eq11_outputs(in), &t);
        w = "y_" + std::to_string(t + 1);
        return r;
      });
      AtlasInst y = x;
      for (double& th : y.theta) th = 0.7;
      MpDigitsScope sc(cfg.digits);
      const ref::AtlasInputs<mp_t> in = to_inputs<mp_t>(y);
      ref::AtlasConfig<mp_t> ac;
      ac.ortho = ref::AtlasOrtho::identity;
      ctl.add(rowrel(ref::atlas_d4(in, ac).Y, omeganet_eq11_outputs(in)) > identity_threshold(cfg.digits), "(ii) theta = 0.7 " + x.desc);
    }
    // (iii)
    {
      InstOpts o;
      const AtlasInst x0 = make_inst(mix(base, static_cast<std::uint64_t>(idx++)), L, 3, 3, 1, o);
      AtlasInst x = x0;
      for (std::size_t t = 0; t < L; ++t) x.Gamma(t, t) = x.eta[t];
      ck.add("(iii) c=1 phi=id Gamma(t,t)=eta_t " + x.desc, [&](unsigned d, std::string& w) {
        MpDigitsScope sc(d);
        const ref::AtlasInputs<mp_t> in = to_inputs<mp_t>(x);
        std::size_t t = 0;
        const double r = rowrel(ref::atlas_d4(in, ref::AtlasConfig<mp_t>{}).Y, titans_ns_outputs(in.PhiK, in.PhiQ, in.V, in.alpha, in.theta, in.eta), &t);
        w = "y_" + std::to_string(t + 1);
        return r;
      });
      MpDigitsScope sc(cfg.digits);
      const ref::AtlasInputs<mp_t> in = to_inputs<mp_t>(x);
      ref::AtlasConfig<mp_t> ac;
      ac.ortho = ref::AtlasOrtho::identity;
      ctl.add(rowrel(ref::atlas_d4(in, ac).Y, titans_ns_outputs(in.PhiK, in.PhiQ, in.V, in.alpha, in.theta, in.eta)) > identity_threshold(cfg.digits),
              "(iii) NS = identity " + x.desc);
    }
  }
  ClaimResult r = ck.result(cfg, "L = 4, 7, ..., c in {1,2,3}, d_k = 3, d_v = 2 (3 for (iii)), phi = id; seed tag " + std::string(tag));
  ctl.apply(r, "EQ32 signs / theta != 0 / NS = identity");
  r.evidence.extra.emplace_back("scope", "the reduced models are written in this file from their definitions (window momentum model, Eq. 11 OmegaNet, Titans + NS5); linear memory only");
  return r;
}

}  // namespace

void register_a002_atlas_parallel(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A002-ATLAS-PARALLEL", "Eqs. 34-41 compute chunked Atlas (frozen gradients, batched momentum and NS, decay scan)", identity, true,
      a002_atlas_parallel);
  add("A002-ATLAS-MOMENTUM-CLOSED", "Eq. 39 closed form of the momentum recurrence", identity, false, a002_atlas_momentum_closed);
  add("A002-ATLAS-NS-BATCH", "Newton-Schulz of all chunk momenta can be computed in parallel", identity, false, a002_atlas_ns_batch);
  add("A002-ATLAS-PARALLEL-SEMANTICS", "The parallel algorithm trains the token-sequential Atlas model", identity, false,
      a002_atlas_parallel_semantics);
  add("A002-R5-ATLAS-REDUCTIONS", "Atlas without NS is OmegaNet with momentum; with c = 1 it is Titans with orthogonalised momentum", identity,
      false, a002_r5_atlas_reductions);
}

}  // namespace recall
