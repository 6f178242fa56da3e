// Paper A002 (Atlas), Table 1 rows with a linear (matrix-valued) or non-parametric memory: Attention, SWA,
// Linear Attention, RetNet, GLA (key- and value-axis readings), PolySketchFormer, DeltaNet, Longhorn, Gated
// DeltaNet, RWKV-7. For every row: the update contract (the printed write rule, in the spec's "to implement"
// orientation, equals one step of the named optimizer on the named attentional bias, the gradient taken by
// central differences of the row's objective at twice the working digits, or the minimiser found from
// objective values alone; negative controls = plausible wrong write rules on the same instances) and the
// reduction of the row's sequence to the existing family reference and its fast forms.
// Spec IDs: A002-T1-ATTN, A002-T1-SWA, A002-T1-LA, A002-T1-RETNET, A002-T1-GLA, A002-T1-GLA-VALGATE,
// A002-T1-PSF, A002-T1-DELTANET, A002-T1-LONGHORN, A002-T1-GDN, A002-T1-RWKV7.
#include "recall/proofs/claims.hpp"
#include "recall/proofs/claims_a002.hpp"
#include "recall/proofs/ledger.hpp"
#include "recall/reference/deep_transformer.hpp"
#include "recall/reference/delta_rule.hpp"
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/forms.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/memory_objectives.hpp"
#include "recall/reference/miras.hpp"
#include "recall/reference/nadaraya_watson.hpp"
#include "recall/reference/online_rules.hpp"
#include "recall/reference/softmax.hpp"
#include "a002_miras_claims.hpp"
#include "claim_support.hpp"
#include "exact_tally.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::miras;

// log-gates (mp) from gate values in [lo, 1]
MM log_gate_matrix(const SeqInst& x, std::size_t cols, double lo, std::uint64_t salt) {
  Gauss g(mix(x.seed, salt));
  MM L(x.T, cols);
  for (mp_t& z : L.a) z = log(mp_t(lo + (1 - lo) * g.uniform()));
  return L;
}
// ---------------------------------------------------------------------------------------------
// non-parametric rows
// ---------------------------------------------------------------------------------------------

ClaimResult a002_t1_attn(const CheckConfig& cfg) {
  const std::string tag = "A002-T1-ATTN";
  auto make = [&](const SeqInst& x) -> std::function<StepEval(unsigned)> {
    return [&x](unsigned) {
      const MM q = to_mp(x.Q), k = to_mp(x.K), v = to_mp(x.V);
      const mp_t tau = 1 / sqrt(mp_t(static_cast<double>(x.sh.dk)));
      ref::KvCache<mp_t> cache(x.sh.dk, x.sh.dv, tau);  // memory = KV cache, write = append
      MM O(x.T, x.sh.dv), U(x.T, x.sh.dv);
      StepEval e;
      Worst w;
      double ctl = 0;
      for (std::size_t t = 0; t < x.T; ++t) {
        const MV o = cache.step(q.row(t), k.row(t), v.row(t));
        for (std::size_t j = 0; j < x.sh.dv; ++j) O(t, j) = o[j];
        std::vector<std::size_t> idx(t + 1);
        for (std::size_t i = 0; i <= t; ++i) idx[i] = i;
        w.upd(np_stationarity(k, v, q.row(t), idx, o, tau), "stationarity of Eq. 17 t=" + std::to_string(t + 1));
        MV un(x.sh.dv);  // unnormalised sum_i a_i v_i (a wrong read-out)
        for (std::size_t i = 0; i <= t; ++i) {
          const mp_t a = exp(mp_t(tau * ref::dot(q.row(t), k.row(i), x.sh.dk)));
          for (std::size_t j = 0; j < x.sh.dv; ++j) un[j] += a * v(i, j);
        }
        ctl = std::max(ctl, np_stationarity(k, v, q.row(t), idx, un, tau));
      }
      w.rows(O, ref::causal_softmax_attention(q, k, v, tau), "KV cache vs causal softmax attention");
      e.r = w.r;
      e.where = w.where;
      e.controls.push_back({"unnormalised read-out sum_i a_i v_i", ctl});
      return e;
    };
  };
  return seq_part(cfg, tag, "max of: relative gradient of sum_i a_i ||m - v_i||^2 at the KV-cache read-out (central differences); "
                            "relative residual KV cache vs causal_softmax_attention (tau = 1/sqrt(dk))",
                  2, make);
}

ClaimResult a002_t1_swa(const CheckConfig& cfg) {
  const std::string tag = "A002-T1-SWA";
  ContractCheck ck("max relative residual: ring-buffer SWA (evict k_{t-c}) vs banded-mask softmax and vs the A002-SWA-LOCAL window "
                   "minimiser, and relative gradient of the window objective at the read-out",
                   cfg.digits);
  int n = 0;
  for (std::size_t T : seq_lengths(cfg))
    for (std::size_t c : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(5), std::size_t(8)}) {
      if (cfg.quick && n % 2) { ++n; continue; }
      const Shape sh = shapes(cfg)[static_cast<std::size_t>(n) % shapes(cfg).size()];
      const SeqInst x = seq_inst(cfg, tag, n++, T, sh);
      ck.add(x.desc + " c=" + std::to_string(c) + (T < c ? " (L<c)" : T == c ? " (L=c)" : T == c + 1 ? " (L=c+1)" : ""), [&x, c](unsigned) {
        const MM q = to_mp(x.Q), k = to_mp(x.K), v = to_mp(x.V);
        const mp_t tau = 1 / sqrt(mp_t(static_cast<double>(x.sh.dk)));
        const MM ring = ref::swa_ring_buffer(q, k, v, c, tau);
        MM Z = ref::attention_logits(q, k, tau, true);  // causal, then the band: i <= t - c masked
        for (std::size_t t = 0; t < x.T; ++t)
          for (std::size_t i = 0; i + c <= t; ++i) Z(t, i) = ref::neg_inf<mp_t>();
        const MM band = ref::matmul(ref::softmax_rows(Z), v);
        StepEval e;
        Worst w;
        w.rows(ring, band, "ring buffer vs banded mask");
        // A002-SWA-LOCAL's window Nadaraya-Watson minimiser (deep_transformer.hpp), the same computation (README group 2)
        w.rows(ref::causal_window_nw_attention(q, k, v, c, [&tau](const mp_t* kk, const mp_t* qq, std::size_t d) { return mp_t(tau * ref::dot(kk, qq, d)); }),
               ring, "ring buffer vs causal_window_nw_attention");
        // printed literal eviction of (k_c, v_c): window {1..t} \ {c} for t > c
        MM lit(x.T, x.sh.dv), wide(x.T, x.sh.dv);
        for (std::size_t t = 0; t < x.T; ++t) {
          std::vector<std::size_t> idx, idx2;
          for (std::size_t i = 0; i <= t; ++i) {
            if (!(t + 1 > c && i + 1 == c)) idx.push_back(i);
            if (i + c + 1 > t) idx2.push_back(i);  // window of c + 1 (off by one)
          }
          const MV o = row_vec(ring, t);
          std::vector<std::size_t> win;
          for (std::size_t i = 0; i <= t; ++i)
            if (i + c > t) win.push_back(i);
          w.upd(np_stationarity(k, v, q.row(t), win, o, tau), "stationarity t=" + std::to_string(t + 1));
          auto attend = [&](const std::vector<std::size_t>& ids, MM& out) {
            MM Kb(ids.size(), x.sh.dk), Vb(ids.size(), x.sh.dv);
            for (std::size_t b = 0; b < ids.size(); ++b) {
              for (std::size_t j = 0; j < x.sh.dk; ++j) Kb(b, j) = k(ids[b], j);
              for (std::size_t j = 0; j < x.sh.dv; ++j) Vb(b, j) = v(ids[b], j);
            }
            const MV y = ref::softmax_attend(q.row(t), Kb, Vb, ids.size(), tau);
            for (std::size_t j = 0; j < x.sh.dv; ++j) out(t, j) = y[j];
          };
          attend(idx, lit);
          attend(idx2, wide);
        }
        e.r = w.r;
        e.where = w.where;
        if (x.T > c + 1) e.controls.push_back({"printed eviction of (k_c, v_c)", rowrel(lit, band)});
        if (x.T > c) e.controls.push_back({"window c + 1 (off by one)", rowrel(wide, band)});
        return e;
      });
    }
  return ck.result(cfg, "T in {" + linattn::join(seq_lengths(cfg)) + "} x c in {1,2,3,5,8} (L<c, L=c, L=c+1 included); " + seed_note(cfg, tag));
}

// ---------------------------------------------------------------------------------------------
// Hebbian rows
// ---------------------------------------------------------------------------------------------

ClaimResult a002_t1_la(const CheckConfig& cfg) {
  const std::string tag = "A002-T1-LA";
  std::vector<Part> parts;
  parts.push_back({"contract", contract_part(cfg, tag, "l = -<M k, v>, GD eta = 1", [](const StepData& s) { return row_linear_attention(s, true); }, 2, 20)});
  parts.push_back({"sequence", seq_part(cfg, tag, "max relative residual of outputs: unit GD steps (central differences) vs linear_attention; parallel "
                                                  "(Q K^T o C)V and chunked forms vs sequential",
                                        3, [](const SeqInst& x) -> std::function<StepEval(unsigned)> {
                                          return [&x](unsigned) {
                                            const MM q = to_mp(x.Q), k = to_mp(x.K), v = to_mp(x.V);
                                            PM M = one(MM(x.sh.dv, x.sh.dk)), Ml = M;
                                            std::vector<MM> Ms, Mls;
                                            for (std::size_t t = 0; t < x.T; ++t) {
                                              const MV kt = row_vec(k, t), vt = row_vec(v, t);
                                              M = ref::decayed_gd_step(M, fd_grad(linear_loss(dot_bias(), kt, vt), M), mp_t(1), mp_t(1));
                                              Ml = ref::decayed_gd_step(Ml, fd_grad(linear_loss(dot_bias(+1), kt, vt), Ml), mp_t(1), mp_t(1));
                                              Ms.push_back(M[0]);
                                              Mls.push_back(Ml[0]);
                                            }
                                            const auto la = ref::linear_attention(q, k, v);
                                            StepEval e;
                                            Worst w;
                                            w.rows(linattn::readout_each(Ms, q), la.O, "GD steps vs linear_attention");
                                            w.rows(ref::linear_attention_sum(q, k, v), la.O, "parallel sum");
                                            w.rows(ref::linear_attention_parallel(q, k, v), la.O, "(Q K^T o C) V");
                                            w.rows(ref::linear_attention_chunked(q, k, v, 3).O, la.O, "chunked(3)");
                                            e.r = w.r;
                                            e.where = w.where;
                                            e.controls.push_back({"GD on the printed +<M k, v>", rowrel(linattn::readout_each(Mls, q), la.O)});
                                            return e;
                                          };
                                        })});
  return combine_parts(std::move(parts));
}

ClaimResult a002_t1_retnet(const CheckConfig& cfg) {
  const std::string tag = "A002-T1-RETNET";
  std::vector<Part> parts;
  parts.push_back({"contract (unit GD with ridge retention)", contract_part(cfg, tag, "-<M k, v> + (1 - alpha)/2 ||M||^2, GD eta = 1", row_retnet, 2, 20)});
  // proximal reading: argmin -<M k, v> + alpha/2 ||M - M_{t-1}||^2 + (1 - alpha)/2 ||M||^2 (eta = 1/alpha, lambda = 1 - alpha)
  parts.push_back({"contract (proximal, eta = 1/alpha, lambda = 1 - alpha)",
                   contract_part(cfg, tag + "/prox", "A002-RETENTION-PROXIMAL with eta' = eta/(1 + eta lambda) = 1", [](const StepData& s) {
                     const MM M = to_mp(s.M);
                     const MV k = mpv(s.k), v = mpv(s.v);
                     const mp_t a(s.alpha);
                     std::function<mp_t(const MM&)> l = [&](const MM& X) { return ref::linear_memory_loss(dot_bias(), X, k.data(), v.data()); };
                     RowStep r;
                     r.contract = one(quad_argmin([&](const MM& X) { return ref::retention_online_objective<mp_t>(l, X, M, mp_t(1 / a), mp_t(1 - a)); },
                                                  M.rows, M.cols));
                     r.printed = one(plus_outer(scaled(M, a), mp_t(1), v, k));
                     r.controls.push_back({"alpha (M + v k^T)", one(scaled(plus_outer(M, mp_t(1), v, k), a))});
                     return r;
                   }, 1, 4)});
  parts.push_back({"sequence", seq_part(cfg, tag, "max relative residual of outputs: gated_linear_attention (constant alpha) vs its decay-mask and chunked "
                                                  "forms and vs unit GD steps with ridge retention",
                                        3, [](const SeqInst& x) -> std::function<StepEval(unsigned)> {
                                          return [&x](unsigned) {
                                            const MM q = to_mp(x.Q), k = to_mp(x.K), v = to_mp(x.V);
                                            const mp_t a(0.5 + 0.5 * x.eta[0]);
                                            const MV lg(x.T, log(a));
                                            const auto gl = ref::gated_linear_attention(q, k, v, lg);
                                            PM M = one(MM(x.sh.dv, x.sh.dk));
                                            std::vector<MM> Ms;
                                            for (std::size_t t = 0; t < x.T; ++t) {
                                              const MV kt = row_vec(k, t), vt = row_vec(v, t);
                                              auto F = [&](const PM& P) { return ref::linear_memory_loss(dot_bias(), P[0], kt.data(), vt.data()) + (1 - a) / 2 * frob2(P[0]); };
                                              M = ref::decayed_gd_step(M, fd_grad(F, M), mp_t(1), mp_t(1));
                                              Ms.push_back(M[0]);
                                            }
                                            StepEval e;
                                            Worst w;
                                            w.rows(linattn::readout_each(Ms, q), gl.O, "GD steps vs gated_linear_attention");
                                            w.rows(ref::linear_attention_parallel(q, k, v, &lg), gl.O, "decay mask alpha^(t-i)");
                                            w.rows(ref::linear_attention_chunked(q, k, v, 2, &lg).O, gl.O, "chunked(2)");
                                            e.r = w.r;
                                            e.where = w.where;
                                            if (x.T > 1) e.controls.push_back({"no decay", rowrel(ref::linear_attention(q, k, v).O, gl.O)});
                                            return e;
                                          };
                                        })});
  return combine_parts(std::move(parts));
}

ClaimResult gla_claim(const CheckConfig& cfg, const std::string& tag, bool value_axis) {
  std::vector<Part> parts;
  parts.push_back({"contract", contract_part(cfg, tag, value_axis ? "-<M k, v> + 1/2 sum_r (1 - a_r) ||M_r,:||^2, unit GD" : "-<M k, v> + 1/2 sum_j (1 - a_j) ||M_:,j||^2, unit GD",
                                             [value_axis](const StepData& s) { return row_gla(s, value_axis); }, 2, 20)});
  parts.push_back({"sequence", seq_part(cfg, tag, value_axis ? "max relative residual of outputs: gated_linear_attention_value_axis vs A000 general recurrence "
                                                               "(Diag(a), I, v k^T), the GLA-row closed form, and the key-axis reading for scalar gates"
                                                             : "max relative residual: gated_linear_attention_diag vs its per-coordinate closed form (final state) and "
                                                               "vs unit GD steps; gates in [1e-3, 1]",
                                        3, [value_axis](const SeqInst& x) -> std::function<StepEval(unsigned)> {
                                          return [&x, value_axis](unsigned) {
                                            const MM q = to_mp(x.Q), k = to_mp(x.K), v = to_mp(x.V);
                                            StepEval e;
                                            Worst w;
                                            const MM lgk = log_gate_matrix(x, x.sh.dk, 1e-3, 11), lgv = log_gate_matrix(x, x.sh.dv, 1e-3, 12);
                                            MM scal(x.T, 1);
                                            MV lgs(x.T);
                                            for (std::size_t t = 0; t < x.T; ++t) lgs[t] = lgk(t, 0);
                                            MM lgk_s(x.T, x.sh.dk), lgv_s(x.T, x.sh.dv);
                                            for (std::size_t t = 0; t < x.T; ++t) {
                                              for (std::size_t j = 0; j < x.sh.dk; ++j) lgk_s(t, j) = lgs[t];
                                              for (std::size_t j = 0; j < x.sh.dv; ++j) lgv_s(t, j) = lgs[t];
                                            }
                                            if (value_axis) {
                                              const auto r = ref::gated_linear_attention_value_axis(q, k, v, lgv);
                                              const auto states = ref::general_recurrence<mp_t>(MM(x.sh.dv, x.sh.dk), x.T, [&](std::size_t t) {
                                                MV a(x.sh.dv);
                                                for (std::size_t j = 0; j < x.sh.dv; ++j) a[j] = exp(lgv(t - 1, j));
                                                return ref::Abc<mp_t>{ref::diag_matrix(a), ref::eye<mp_t>(x.sh.dk), ref::outer(row_vec(v, t - 1), row_vec(k, t - 1))};
                                              });
                                              w.upd(matrel(states.back(), r.state), "general recurrence final state");
                                              w.rows(ref::gla_row_outputs_closed(q, k, v, lgv), r.O, "GLA-row closed form");
                                              const auto rs = ref::gated_linear_attention_value_axis(q, k, v, lgv_s);
                                              w.rows(rs.O, ref::gated_linear_attention_diag(q, k, v, lgk_s).O, "scalar gates: value axis vs key axis");
                                              w.rows(rs.O, ref::gated_linear_attention(q, k, v, lgs).O, "scalar gates: vs gated_linear_attention");
                                              if (x.T > 1 && x.sh.dv > 1) e.controls.push_back({"key-axis reading with the value gates' mean", rowrel(ref::gated_linear_attention(q, k, v, [&] {
                                                                                                        MV m(x.T);
                                                                                                        for (std::size_t t = 0; t < x.T; ++t) { for (std::size_t j = 0; j < x.sh.dv; ++j) m[t] += lgv(t, j); m[t] /= mp_t(double(x.sh.dv)); }
                                                                                                        return m;
                                                                                                      }()).O, r.O)});
                                            } else {
                                              const auto r = ref::gated_linear_attention_diag(q, k, v, lgk);
                                              w.upd(matrel(ref::gated_linear_attention_diag_state_closed(k, v, lgk, x.T), r.state), "closed-form final state");
                                              PM M = one(MM(x.sh.dv, x.sh.dk));
                                              std::vector<MM> Ms;
                                              for (std::size_t t = 0; t < x.T; ++t) {
                                                const MV kt = row_vec(k, t), vt = row_vec(v, t);
                                                MV wv(x.sh.dk);
                                                for (std::size_t j = 0; j < x.sh.dk; ++j) wv[j] = 1 - exp(lgk(t, j));
                                                auto F = [&](const PM& P) { return ref::linear_memory_loss(dot_bias(), P[0], kt.data(), vt.data()) + col_ridge(P[0], wv) / 2; };
                                                M = ref::decayed_gd_step(M, fd_grad(F, M), mp_t(1), mp_t(1));
                                                Ms.push_back(M[0]);
                                              }
                                              w.rows(linattn::readout_each(Ms, q), r.O, "unit GD steps");
                                              if (x.T > 1) e.controls.push_back({"value-axis gates applied", rowrel(ref::gated_linear_attention(q, k, v, lgs).O, r.O)});
                                            }
                                            e.r = w.r;
                                            e.where = w.where;
                                            return e;
                                          };
                                        })});
  if (!value_axis) {
    // long sequence, gates down to 1e-3 per step: sequential state vs the per-coordinate closed form (log-space segment sums)
    ContractCheck lg("max relative residual: final state of gated_linear_attention_diag vs gated_linear_attention_diag_state_closed over a long "
                     "sequence with gates in [1e-3, 1]",
                     cfg.digits);
    const std::size_t T = cfg.quick ? 64 : 2048;
    const SeqInst x = seq_inst(cfg, tag + "/long", 0, T, Shape{2, 2});
    lg.add(x.desc, [&x](unsigned) {
      const MM q = to_mp(x.Q), k = to_mp(x.K), v = to_mp(x.V);
      const MM lgk = log_gate_matrix(x, x.sh.dk, 1e-3, 13);
      const auto r = ref::gated_linear_attention_diag(q, k, v, lgk);
      StepEval e;
      e.r = matrel(ref::gated_linear_attention_diag_state_closed(k, v, lgk, x.T), r.state);
      e.where = "final state";
      e.controls.push_back({"closed form without the last token's gate shift (prefix T-1)", matrel(ref::gated_linear_attention_diag_state_closed(k, v, lgk, x.T - 1), r.state)});
      return e;
    });
    parts.push_back({"long sequence", lg.result(cfg, "T = " + std::to_string(T) + ", dk = dv = 2; " + seed_note(cfg, tag + "/long"))});
  }
  return combine_parts(std::move(parts));
}
ClaimResult a002_t1_gla(const CheckConfig& cfg) { return gla_claim(cfg, "A002-T1-GLA", false); }
ClaimResult a002_t1_gla_valgate(const CheckConfig& cfg) { return gla_claim(cfg, "A002-T1-GLA-VALGATE", true); }

// A002-T1-PSF: exact rational arithmetic (PQ) on integer data.
ClaimResult a002_t1_psf(const CheckConfig& cfg) {
  using namespace claim_support::exact;
  const std::string tag = "A002-T1-PSF";
  ExactTally tally;
  tally.statistic = "entries where (a) one unit GD step on -<M k^(x)p, v> (central differences with h = 1, exact for this linear loss) differs from "
                    "M + v (k^(x)p)^T, or (b) the explicit d_v x d_k^p memory's outputs differ from ((Q K^T)^p o C) V";
  const int reps = cfg.quick ? 2 : 6;
  int n = 0;
  for (int p : {1, 2, 3, 4})
    for (std::size_t dk : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(4)})
      for (int rep = 0; rep < reps; ++rep) {
        if (cfg.quick && p == 4 && dk > 3) continue;
        const std::size_t dv = 1 + static_cast<std::size_t>(n % 3), T = 1 + static_cast<std::size_t>(n % 5);
        const std::uint64_t s = inst_seed(cfg, tag, n++);
        IntGen g(s);
        const MR Q = g.mat(T, dk, -3, 3), K = g.mat(T, dk, -3, 3), V = g.mat(T, dv, -3, 3);
        const std::size_t D = ref::ipow(dk, p);
        const MR M0 = g.mat(dv, D, -3, 3);
        const std::string desc = "integers in [-3,3] p=" + std::to_string(p) + " T=" + std::to_string(T) + " dk=" + std::to_string(dk) + " dv=" + std::to_string(dv) +
                                 " inst_seed=" + hex(s);
        // (a) contract on token 1
        const VR phi = ref::detail::kron_power(K.row(0), dk, p);
        const VR v(V.row(0), V.row(0) + dv);
        std::function<Rat(const ref::Params<Rat>&)> F = [&](const ref::Params<Rat>& P) {
          Rat acc = 0;
          const VR y = ref::matvec(P[0], phi.data());
          for (std::size_t j = 0; j < dv; ++j) acc -= y[j] * v[j];
          return acc;
        };
        const auto G = ref::central_difference_gradient<Rat>(F, ref::Params<Rat>{M0}, Rat(1));
        const auto step = ref::decayed_gd_step(ref::Params<Rat>{M0}, G, Rat(1), Rat(1));
        MR printed = M0, wrong = M0;
        ref::add_outer(printed, v.data(), phi.data());
        ref::add_outer(wrong, Rat(-1), v.data(), phi.data());
        tally.add(mismatches(step[0], printed), desc + " (contract)");
        tally.control(mismatches(step[0], wrong), desc + " literal +<M k^p, v> sign");
        // (b) explicit memory vs kernel form
        MR PQ(T, D), PK(T, D);
        for (std::size_t t = 0; t < T; ++t) {
          const VR a = ref::detail::kron_power(Q.row(t), dk, p), b = ref::detail::kron_power(K.row(t), dk, p);
          for (std::size_t j = 0; j < D; ++j) { PQ(t, j) = a[j]; PK(t, j) = b[j]; }
        }
        const MR Oexp = ref::linear_attention(PQ, PK, V).O;
        auto kern = [&](int pp) {
          return ref::kernel_attention_unnormalized(Q, K, V, [&](const Rat* kk, const Rat* qq) {
            Rat d = 0, r = 1;
            for (std::size_t j = 0; j < dk; ++j) d += kk[j] * qq[j];
            for (int e = 0; e < pp; ++e) r *= d;
            return r;
          });
        };
        tally.add(mismatches(Oexp, kern(p)), desc + " (kernel form)");
        if (p > 1) tally.control(mismatches(Oexp, kern(p - 1)), desc + " degree p-1 kernel");
      }
  return tally.result(cfg, "p in {1,2,3,4}, dk in {1..4}, dv in {1,2,3}, T in {1..5}, integer entries in [-3,3]; " + seed_note(cfg, tag),
                      "the PolySketchFormer write is one GD step on -<M k^(x)p, v> and the explicit tensor memory equals the kernel form");
}

// ---------------------------------------------------------------------------------------------
// delta rows
// ---------------------------------------------------------------------------------------------

// nearly collinear keys k_j = k_1 + eps e (renormalised) on every 3rd instance, beta in {1, 2, 2.5}/||k||^2 on every 4th
struct DeltaSeq {
  MM q, k, v;
  MV beta;
  std::string kind;
};
DeltaSeq delta_seq(const SeqInst& x, int variant) {
  DeltaSeq d{to_mp(x.Q), to_mp(x.K), to_mp(x.V), MV(x.T), "gauss"};
  if (variant % 3 == 1 && x.T > 1) {
    Gauss g(mix(x.seed, 21));
    const double eps = variant % 2 ? 1e-4 : 1e-8;
    for (std::size_t t = 1; t < x.T; ++t) {
      mp_t nn(0);
      for (std::size_t j = 0; j < x.sh.dk; ++j) {
        d.k(t, j) = d.k(0, j) + mp_t(eps * g.normal());
        nn += d.k(t, j) * d.k(t, j);
      }
      for (std::size_t j = 0; j < x.sh.dk; ++j) d.k(t, j) /= sqrt(nn);
    }
    d.kind = "near-collinear eps=" + fmt(eps);
  }
  const double bk[3] = {1.0, 2.0, 2.5};
  for (std::size_t t = 0; t < x.T; ++t) d.beta[t] = variant % 4 == 2 ? mp_t(bk[t % 3]) : mp_t(2 * x.eta[t]);
  if (variant % 4 == 2) d.kind += " beta||k||^2 in {1,2,2.5}";
  return d;
}

ClaimResult a002_t1_deltanet(const CheckConfig& cfg) {
  const std::string tag = "A002-T1-DELTANET";
  std::vector<Part> parts;
  parts.push_back({"contract (beta = 2 eta)", contract_part(cfg, tag, "||M k - v||^2, GD eta = beta/2", [](const StepData& s) { return row_deltanet(s, false); }, 2, 20)});
  int variant = 0;
  parts.push_back({"sequence", seq_part(cfg, tag, "max relative residual of outputs: GD steps (central differences) vs delta_rule, WY/UT chunk (sizes 1..4) vs sequential",
                                        2, [&variant](const SeqInst& x) -> std::function<StepEval(unsigned)> {
                                          const int vv = variant++;
                                          return [&x, vv](unsigned) {
                                            const DeltaSeq d = delta_seq(x, vv);
                                            const auto dr = ref::delta_rule(d.q, d.k, d.v, d.beta);
                                            PM M = one(MM(x.sh.dv, x.sh.dk));
                                            std::vector<MM> Ms;
                                            for (std::size_t t = 0; t < x.T; ++t) {
                                              M = ref::decayed_gd_step(M, fd_grad(linear_loss(l2_bias(), row_vec(d.k, t), row_vec(d.v, t)), M), mp_t(1), mp_t(d.beta[t] / 2));
                                              Ms.push_back(M[0]);
                                            }
                                            StepEval e;
                                            Worst w;
                                            w.rows(linattn::readout_each(Ms, d.q), dr.O, "GD steps (" + d.kind + ")");
                                            w.rows(ref::delta_rule_chunked_ut(d.q, d.k, d.v, d.beta, 1 + static_cast<std::size_t>(vv % 4)).O, dr.O, "WY chunk (" + d.kind + ")");
                                            e.r = w.r;
                                            e.where = w.where;
                                            MV half(x.T);
                                            for (std::size_t t = 0; t < x.T; ++t) half[t] = d.beta[t] / 2;
                                            e.controls.push_back({"beta/2 (factor-2 switch wrong)", rowrel(ref::delta_rule(d.q, d.k, d.v, half).O, dr.O)});
                                            return e;
                                          };
                                        }, ", near-collinear keys every 3rd, beta||k||^2 in {1,2,2.5} every 4th")});
  return combine_parts(std::move(parts));
}

ClaimResult a002_t1_longhorn(const CheckConfig& cfg) {
  const std::string tag = "A002-T1-LONGHORN";
  ContractCheck ck("max relative residual: exact minimiser of ||M - M_{t-1}||^2 + beta ||M k - v||^2 (P1 solve from objective values) vs "
                   "M (I - delta k k^T) + delta v k^T, delta = beta/(1 + beta k^T k)",
                   cfg.digits);
  int n = 0;
  const int reps = cfg.quick ? 2 : 8;
  for (const Shape& sh : shapes(cfg))
    for (int rep = 0; rep < reps; ++rep) {
      const std::uint64_t s = inst_seed(cfg, tag, n++);
      Gauss g(s);
      const StepData sd = draw_step(g, sh);
      const double beta = std::pow(10.0, -3 + 6 * g.uniform()), kn = std::pow(10.0, -3 + 6 * g.uniform());
      ck.add("G-step " + shape_desc(sh) + " beta=" + fmt(beta) + " ||k||=" + fmt(kn) + " inst_seed=" + hex(s), [&, beta, kn](unsigned) {
        MV k = mpv(sd.k);
        for (mp_t& z : k) z *= mp_t(kn);
        return eval_row(row_longhorn(to_mp(sd.M), k, mpv(sd.v), mp_t(beta)));
      });
    }
  std::vector<Part> parts;
  parts.push_back({"proximal contract", ck.result(cfg, "(dk,dv) grid x " + std::to_string(reps) + ", beta and ||k|| log-uniform in [1e-3, 1e3]; " + seed_note(cfg, tag))});
  parts.push_back({"sequence", seq_part(cfg, tag, "max relative residual of outputs: repeated proximal minimisers vs longhorn (delta_rule with delta), "
                                                  "and the WY chunk with beta -> delta",
                                        3, [](const SeqInst& x) -> std::function<StepEval(unsigned)> {
                                          return [&x](unsigned) {
                                            const MM q = to_mp(x.Q), k = to_mp(x.K), v = to_mp(x.V);
                                            MV beta(x.T), eps(x.T);
                                            for (std::size_t t = 0; t < x.T; ++t) {
                                              beta[t] = mp_t(4 * x.eta[t]);
                                              eps[t] = ref::longhorn_step(beta[t], k.row(t), x.sh.dk);
                                            }
                                            const auto lh = ref::longhorn(q, k, v, beta);
                                            MM M(x.sh.dv, x.sh.dk);
                                            std::vector<MM> Ms, Mg;
                                            PM Mgd = one(M);
                                            for (std::size_t t = 0; t < x.T; ++t) {
                                              M = row_longhorn(M, row_vec(k, t), row_vec(v, t), beta[t]).contract[0];
                                              Ms.push_back(M);
                                              Mgd = ref::decayed_gd_step(Mgd, fd_grad(linear_loss(l2_bias(), row_vec(k, t), row_vec(v, t)), Mgd), mp_t(1), mp_t(beta[t] / 2));
                                              Mg.push_back(Mgd[0]);
                                            }
                                            StepEval e;
                                            Worst w;
                                            w.rows(linattn::readout_each(Ms, q), lh.O, "proximal steps vs longhorn");
                                            w.rows(ref::delta_rule_chunked_ut(q, k, v, eps, 2).O, lh.O, "WY chunk(2) with delta");
                                            e.r = w.r;
                                            e.where = w.where;
                                            e.controls.push_back({"explicit GD steps", rowrel(linattn::readout_each(Mg, q), lh.O)});
                                            return e;
                                          };
                                        })});
  return combine_parts(std::move(parts));
}

ClaimResult a002_t1_gdn(const CheckConfig& cfg) {
  const std::string tag = "A002-T1-GDN";
  std::vector<Part> parts;
  parts.push_back({"contract (form G)", contract_part(cfg, tag, "||M k - v||^2 with the gradient at alpha M_{t-1}, eta = beta/2", [](const StepData& s) {
                     return row_gated_delta(s, true);
                   }, 2, 20)});
  parts.push_back({"sequence", seq_part(cfg, tag, "max relative residual of outputs: GD steps at the decayed state vs gated_delta_rule(G), WY chunk form G vs sequential",
                                        3, [](const SeqInst& x) -> std::function<StepEval(unsigned)> {
                                          return [&x](unsigned) {
                                            const MM q = to_mp(x.Q), k = to_mp(x.K), v = to_mp(x.V);
                                            MV beta(x.T), la(x.T);
                                            Gauss g(mix(x.seed, 31));
                                            for (std::size_t t = 0; t < x.T; ++t) {
                                              beta[t] = mp_t(2 * x.eta[t]);
                                              la[t] = log(mp_t(0.5 + 0.5 * g.uniform()));
                                            }
                                            const auto gd = ref::gated_delta_rule(q, k, v, beta, la, ref::DecayPlacement::G);
                                            PM M = one(MM(x.sh.dv, x.sh.dk));
                                            std::vector<MM> Ms;
                                            for (std::size_t t = 0; t < x.T; ++t) {
                                              const mp_t a = exp(la[t]);
                                              const PM aM = one(scaled(M[0], a));
                                              M = ref::decayed_gd_step(M, fd_grad(linear_loss(l2_bias(), row_vec(k, t), row_vec(v, t)), aM), a, mp_t(beta[t] / 2));
                                              Ms.push_back(M[0]);
                                            }
                                            StepEval e;
                                            Worst w;
                                            w.rows(linattn::readout_each(Ms, q), gd.O, "GD steps vs gated_delta_rule(G)");
                                            w.rows(ref::delta_rule_chunked_ut(q, k, v, beta, 2, &la).O, gd.O, "WY chunk(2) form G");
                                            e.r = w.r;
                                            e.where = w.where;
                                            e.controls.push_back({"decay placement T", rowrel(ref::gated_delta_rule(q, k, v, beta, la, ref::DecayPlacement::T).O, gd.O)});
                                            return e;
                                          };
                                        })});
  return combine_parts(std::move(parts));
}

// A002-T1-RWKV7 per-channel WY form (one chunk, M_0 = 0): u_t = beta_t (v_t - M_{t-1} k_t) with
// M_{t-1} k_t = sum_{i<t} u_i (k_i o g_{t-1}/g_i)^T k_t (per-channel segment sums), y_t = sum_{i<=t} u_i (k_i o g_t/g_i)^T q_t.
MM rwkv7_wy_outputs(const MM& Q, const MM& K, const MM& V, const MV& beta, const MM& la) {
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  auto ratio = [&](std::size_t i, std::size_t t, std::size_t c) {  // prod_{j=i+1}^{t} alpha_{j,c}, 0-based i <= t
    mp_t s(0);
    for (std::size_t j = i + 1; j <= t; ++j) s += la(j, c);
    return exp(s);
  };
  MM U(T, dv), O(T, dv);
  for (std::size_t t = 0; t < T; ++t) {
    for (std::size_t j = 0; j < dv; ++j) U(t, j) = V(t, j);
    for (std::size_t i = 0; i < t; ++i) {
      mp_t c(0);  // (k_i o g_{t-1}/g_i)^T k_t
      for (std::size_t ch = 0; ch < dk; ++ch) c += K(i, ch) * ratio(i, t - 1, ch) * K(t, ch);
      for (std::size_t j = 0; j < dv; ++j) U(t, j) -= c * U(i, j);
    }
    for (std::size_t j = 0; j < dv; ++j) U(t, j) *= beta[t];
    for (std::size_t i = 0; i <= t; ++i) {
      mp_t c(0);
      for (std::size_t ch = 0; ch < dk; ++ch) c += K(i, ch) * ratio(i, t, ch) * Q(t, ch);
      for (std::size_t j = 0; j < dv; ++j) O(t, j) += c * U(i, j);
    }
  }
  return O;
}

ClaimResult a002_t1_rwkv7(const CheckConfig& cfg) {
  const std::string tag = "A002-T1-RWKV7";
  std::vector<Part> parts;
  parts.push_back({"contract (vector decay, form T)", contract_part(cfg, tag, "eta ||M k - v||^2 + 1/2 sum_j (1 - a_j) ||M_:,j||^2, unit GD, eta = beta/2", row_rwkv7, 2, 20)});
  parts.push_back({"sequence", seq_part(cfg, tag, "max relative residual of outputs: rwkv7_delta_rule vs per-channel WY form and vs GD steps; scalar gates vs "
                                                  "gated_delta_rule(T)",
                                        3, [](const SeqInst& x) -> std::function<StepEval(unsigned)> {
                                          return [&x](unsigned) {
                                            const MM q = to_mp(x.Q), k = to_mp(x.K), v = to_mp(x.V);
                                            const MM la = log_gate_matrix(x, x.sh.dk, 0.5, 41);
                                            MV beta(x.T), ls(x.T);
                                            for (std::size_t t = 0; t < x.T; ++t) {
                                              beta[t] = mp_t(2 * x.eta[t]);
                                              ls[t] = la(t, 0);
                                            }
                                            const auto rw = ref::rwkv7_delta_rule(q, k, v, beta, la);
                                            StepEval e;
                                            Worst w;
                                            w.rows(rwkv7_wy_outputs(q, k, v, beta, la), rw.O, "per-channel WY");
                                            PM M = one(MM(x.sh.dv, x.sh.dk));
                                            std::vector<MM> Ms;
                                            for (std::size_t t = 0; t < x.T; ++t) {
                                              const MV kt = row_vec(k, t), vt = row_vec(v, t);
                                              MV wv(x.sh.dk);
                                              for (std::size_t j = 0; j < x.sh.dk; ++j) wv[j] = 1 - exp(la(t, j));
                                              const mp_t eta = beta[t] / 2;
                                              auto F = [&](const PM& P) { return eta * ref::linear_memory_loss(l2_bias(), P[0], kt.data(), vt.data()) + col_ridge(P[0], wv) / 2; };
                                              M = ref::decayed_gd_step(M, fd_grad(F, M), mp_t(1), mp_t(1));
                                              Ms.push_back(M[0]);
                                            }
                                            w.rows(linattn::readout_each(Ms, q), rw.O, "GD steps");
                                            MM las(x.T, x.sh.dk);
                                            for (std::size_t t = 0; t < x.T; ++t)
                                              for (std::size_t j = 0; j < x.sh.dk; ++j) las(t, j) = ls[t];
                                            const auto gt = ref::gated_delta_rule(q, k, v, beta, ls, ref::DecayPlacement::T);
                                            w.rows(ref::rwkv7_delta_rule(q, k, v, beta, las).O, gt.O, "scalar gates vs gated_delta_rule(T)");
                                            e.r = w.r;
                                            e.where = w.where;
                                            e.controls.push_back({"scalar gate (channel 1) for every channel", rowrel(gt.O, rw.O)});
                                            e.controls.push_back({"placement G with channel-1 gates", rowrel(ref::gated_delta_rule(q, k, v, beta, ls, ref::DecayPlacement::G).O, gt.O)});
                                            return e;
                                          };
                                        })});
  return combine_parts(std::move(parts));
}

}  // namespace

void register_a002_table1_rows_linear(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A002-T1-ATTN", "Table 1 Attention row: KV-cache append, read-out = Eq. 17 minimiser = softmax attention", identity, false, a002_t1_attn);
  add("A002-T1-SWA", "Table 1 SWA row: ring buffer (evict k_{t-c}) = banded softmax = window minimiser", identity, false, a002_t1_swa);
  add("A002-T1-LA", "Table 1 Linear Attention row: one GD step on -<M k, v>; sequential = parallel = chunked", identity, false, a002_t1_la);
  add("A002-T1-RETNET", "Table 1 RetNet row: GD with retention / proximal step; gated LA forms", identity, false, a002_t1_retnet);
  add("A002-T1-GLA", "Table 1 GLA row, key-axis gate: GD with per-key ridge retention; closed form", identity, false, a002_t1_gla);
  add("A002-T1-GLA-VALGATE", "Table 1 GLA row, value-axis gate: GD with per-value ridge retention; agrees with key axis for scalar gates", identity, false,
      a002_t1_gla_valgate);
  add("A002-T1-PSF", "Table 1 PolySketchFormer row: GD on -<M k^p, v>; tensor memory = kernel form (exact)", identity, false, a002_t1_psf);
  add("A002-T1-DELTANET", "Table 1 DeltaNet row: GD on ||M k - v||^2 (beta = 2 eta); WY chunk", identity, false, a002_t1_deltanet);
  add("A002-T1-LONGHORN", "Table 1 Longhorn row: the write is the implicit-GD (proximal) step", identity, false, a002_t1_longhorn);
  add("A002-T1-GDN", "Table 1 Gated DeltaNet row: decay form G = gradient at the decayed state", identity, false, a002_t1_gdn);
  add("A002-T1-RWKV7", "Table 1 RWKV-7 row: vector decay delta rule = GD with per-key retention (form T)", identity, false, a002_t1_rwkv7);
}

}  // namespace recall
