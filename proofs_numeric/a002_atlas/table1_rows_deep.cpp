// Paper A002 (Atlas), Table 1: the contract of the whole table and its rows with a deep memory, momentum or a
// non-Euclidean bias / retention: TTT, Titans (with and without momentum), Moneta (l_p bias), Memora (softmax
// retention: row-wise and global readings), and the qualitative columns. Update contracts as in
// table1_rows_linear.cpp (central differences of the row's objective at twice the working digits, negative
// controls); Memora's contract is the mirror-descent (exponentiated-gradient) optimality condition on the simplex.
// Spec IDs: A002-T1, A002-T1-TTT, A002-T1-TITANS, A002-T1-TITANSM, A002-T1-MONETA, A002-T1-MEMORA,
// A002-T1-MEMORA-ALL; A002-T1-QUAL is not-numeric (tools/src/catalog.cpp).
#include "recall/proofs/claims.hpp"
#include "recall/proofs/claims_a002.hpp"
#include "recall/proofs/ledger.hpp"
#include "recall/reference/delta_rule.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/miras.hpp"
#include "recall/reference/online_rules.hpp"
#include "recall/reference/regression_rules.hpp"
#include "a002_miras_claims.hpp"
#include "claim_support.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::miras;

// per-token gates of a sequence instance: alpha ~ U[0.5,1], eta = the instance's, theta ~ U[0.5,0.99]
ref::RowGates<mp_t> seq_gates(const SeqInst& x) {
  Gauss g(mix(x.seed, 51));
  ref::RowGates<mp_t> r;
  for (std::size_t t = 0; t < x.T; ++t) {
    r.alpha.push_back(mp_t(0.5 + 0.5 * g.uniform()));
    r.eta.push_back(mp_t(x.eta[t]));
    r.theta.push_back(mp_t(0.5 + 0.49 * g.uniform()));
  }
  return r;
}

// Gated delta rule form T, WY form (spec A002-T1-DELTANET fast form (T), one chunk, initial state M0):
// (I + diag(beta)[tril(K K^T, -1) o R]) U = diag(beta)(V - diag(A_{t-1}) K M0^T), R_ti = A_{t-1}/A_i;
// y_t = A_t M0 q_t + sum_{i<=t} (A_t/A_i)(k_i^T q_t) u_i; ratios as exp of direct segment sums of log alpha.
MM gated_delta_t_wy_outputs(const MM& Q, const MM& K, const MM& V, const MV& beta, const MV& la, const MM& M0) {
  const std::size_t T = Q.rows, dk = K.cols, dv = V.cols;
  auto seg = [&](std::size_t i, std::size_t t) {  // prod_{j=i+1}^{t} alpha_j (0-based; i = npos: from the start)
    mp_t s(0);
    for (std::size_t j = i + 1; j <= t; ++j) s += la[j];
    return exp(s);
  };
  MM U(T, dv), O(T, dv);
  for (std::size_t t = 0; t < T; ++t) {
    const MV m0k = ref::matvec(M0, K.row(t));
    mp_t At1(1);  // A_{t-1}
    for (std::size_t j = 0; j < t; ++j) At1 *= exp(la[j]);
    for (std::size_t j = 0; j < dv; ++j) U(t, j) = V(t, j) - At1 * m0k[j];
    for (std::size_t i = 0; i < t; ++i) {
      const mp_t c = seg(i, t - 1) * ref::dot(K.row(i), K.row(t), dk);
      for (std::size_t j = 0; j < dv; ++j) U(t, j) -= c * U(i, j);
    }
    for (std::size_t j = 0; j < dv; ++j) U(t, j) *= beta[t];
    const mp_t At = At1 * exp(la[t]);
    const MV m0q = ref::matvec(M0, Q.row(t));
    for (std::size_t j = 0; j < dv; ++j) O(t, j) = At * m0q[j];
    for (std::size_t i = 0; i <= t; ++i) {
      const mp_t c = seg(i, t) * ref::dot(K.row(i), Q.row(t), dk);
      for (std::size_t j = 0; j < dv; ++j) O(t, j) += c * U(i, j);
    }
  }
  return O;
}

// ---------------------------------------------------------------------------------------------
// TTT, Titans, Titans without momentum
// ---------------------------------------------------------------------------------------------

ClaimResult a002_t1_ttt(const CheckConfig& cfg) {
  const std::string tag = "A002-T1-TTT";
  std::vector<Part> parts;
  parts.push_back({"contract (2-layer residual MLP memory)", contract_part(cfg, tag, "per-weight GD on ||f(k) - v||^2, f = k + W2 gelu(W1 k)", [](const StepData& s) {
                     return row_deep(s, DeepOpt::gd);
                   }, 2, 20)});
  parts.push_back({"linear memory = delta rule", seq_part(cfg, tag, "max relative residual of outputs: per-token GD of the linear TTT memory (hand gradient, no LN, "
                                                                    "no residual) vs delta_rule(beta = 2 eta)",
                                                          3, [](const SeqInst& x) -> std::function<StepEval(unsigned)> {
                                                            return [&x](unsigned) {
                                                              const MM q = to_mp(x.Q), k = to_mp(x.K), v = to_mp(x.V);
                                                              ref::TttConfig c;
                                                              c.mlp = false;
                                                              c.ln = false;
                                                              c.residual = false;
                                                              MV beta(x.T);
                                                              ref::TttParams<mp_t> th{MM(x.sh.dv, x.sh.dk), MM()};
                                                              std::vector<MM> Ms;
                                                              for (std::size_t t = 0; t < x.T; ++t) {
                                                                beta[t] = mp_t(2 * x.eta[t]);
                                                                const auto g = ref::ttt_grad_hand(th, k.row(t), v.row(t), x.sh.dk, c);  // of 1/2 ||W k - v||^2
                                                                for (std::size_t i = 0; i < th.W1.a.size(); ++i) th.W1.a[i] -= mp_t(x.eta[t]) * 2 * g.W1.a[i];
                                                                Ms.push_back(th.W1);
                                                              }
                                                              const auto dr = ref::delta_rule(q, k, v, beta);
                                                              MV eta(x.T);
                                                              for (std::size_t t = 0; t < x.T; ++t) eta[t] = mp_t(x.eta[t]);
                                                              StepEval e;
                                                              e.r = rowrel(linattn::readout_each(Ms, q), dr.O);
                                                              e.where = "linear TTT vs delta_rule";
                                                              e.controls.push_back({"delta_rule with beta = eta (factor 2 dropped)", rowrel(linattn::readout_each(Ms, q), ref::delta_rule(q, k, v, eta).O)});
                                                              return e;
                                                            };
                                                          })});
  return combine_parts(std::move(parts));
}

ClaimResult a002_t1_titansm(const CheckConfig& cfg) {
  const std::string tag = "A002-T1-TITANSM";
  std::vector<Part> parts;
  parts.push_back({"contract (linear, form T)", contract_part(cfg, tag, "alpha M - eta grad ||M k - v||^2", [](const StepData& s) { return row_gated_delta(s, false); }, 2, 20)});
  parts.push_back({"contract (deep, form T)", contract_part(cfg, tag + "/deep", "per-weight alpha W - eta grad ||f(k) - v||^2 (residual MLP)", [](const StepData& s) {
                     return row_deep(s, DeepOpt::decayed_gd);
                   }, 1, 10)});
  parts.push_back({"sequence", seq_part(cfg, tag, "max relative residual of outputs: gated_delta_rule(T, beta = 2 eta) vs decayed GD steps (central differences) and "
                                                  "vs the WY form (T) with a nonzero initial state",
                                        3, [](const SeqInst& x) -> std::function<StepEval(unsigned)> {
                                          return [&x](unsigned) {
                                            const MM q = to_mp(x.Q), k = to_mp(x.K), v = to_mp(x.V);
                                            const auto g = seq_gates(x);
                                            MV beta(x.T), la(x.T);
                                            for (std::size_t t = 0; t < x.T; ++t) {
                                              beta[t] = 2 * g.eta[t];
                                              la[t] = log(g.alpha[t]);
                                            }
                                            Gauss gg(mix(x.seed, 52));
                                            const MM M0 = to_mp(gauss_matrix(x.sh.dv, x.sh.dk, gg, 0.5));
                                            const auto gd = ref::gated_delta_rule(q, k, v, beta, la, ref::DecayPlacement::T, &M0);
                                            PM M = one(M0);
                                            std::vector<MM> Ms;
                                            for (std::size_t t = 0; t < x.T; ++t) {
                                              M = ref::decayed_gd_step(M, fd_grad(linear_loss(l2_bias(), row_vec(k, t), row_vec(v, t)), M), g.alpha[t], g.eta[t]);
                                              Ms.push_back(M[0]);
                                            }
                                            StepEval e;
                                            Worst w;
                                            w.rows(linattn::readout_each(Ms, q), gd.O, "GD steps vs gated_delta_rule(T)");
                                            w.rows(gated_delta_t_wy_outputs(q, k, v, beta, la, M0), gd.O, "WY form (T)");
                                            e.r = w.r;
                                            e.where = w.where;
                                            e.controls.push_back({"decay placement G", rowrel(ref::gated_delta_rule(q, k, v, beta, la, ref::DecayPlacement::G, &M0).O, gd.O)});
                                            return e;
                                          };
                                        })});
  return combine_parts(std::move(parts));
}

ClaimResult a002_t1_titans(const CheckConfig& cfg) {
  const std::string tag = "A002-T1-TITANS";
  std::vector<Part> parts;
  parts.push_back({"contract (linear, momentum)", contract_part(cfg, tag, "GD with momentum, Eqs. 12-13 naming: (M_t, S_t)", row_titans, 2, 20)});
  parts.push_back({"contract (deep, momentum)", contract_part(cfg, tag + "/deep", "per-weight GD with momentum on the residual MLP: (W_t, S_t)", [](const StepData& s) {
                     return row_deep(s, DeepOpt::momentum);
                   }, 1, 10)});
  parts.push_back({"sequence", seq_part(cfg, tag, "max relative residual of outputs: titans_memory vs momentum_step with central-difference gradients; theta = 0 vs "
                                                  "gated_delta_rule(T)",
                                        3, [](const SeqInst& x) -> std::function<StepEval(unsigned)> {
                                          return [&x](unsigned) {
                                            const MM q = to_mp(x.Q), k = to_mp(x.K), v = to_mp(x.V);
                                            const auto g = seq_gates(x);
                                            const auto tm = ref::titans_memory(q, k, v, g);
                                            PM M = one(MM(x.sh.dv, x.sh.dk)), mom = M;
                                            std::vector<MM> Ms;
                                            for (std::size_t t = 0; t < x.T; ++t) {
                                              M = ref::momentum_step(M, mom, fd_grad(linear_loss(l2_bias(), row_vec(k, t), row_vec(v, t)), M), g.alpha[t], g.theta[t], g.eta[t]);
                                              Ms.push_back(M[0]);
                                            }
                                            StepEval e;
                                            Worst w;
                                            w.rows(linattn::readout_each(Ms, q), tm.O, "momentum steps vs titans_memory");
                                            auto g0 = g;
                                            for (mp_t& z : g0.theta) z = 0;
                                            MV beta(x.T), la(x.T);
                                            for (std::size_t t = 0; t < x.T; ++t) {
                                              beta[t] = 2 * g.eta[t];
                                              la[t] = log(g.alpha[t]);
                                            }
                                            const auto gt = ref::gated_delta_rule(q, k, v, beta, la, ref::DecayPlacement::T);
                                            w.rows(ref::titans_memory(q, k, v, g0).O, gt.O, "theta = 0 vs gated_delta_rule(T)");
                                            e.r = w.r;
                                            e.where = w.where;
                                            if (x.T > 1) e.controls.push_back({"momentum ignored", rowrel(gt.O, tm.O)});
                                            return e;
                                          };
                                        })});
  ClaimResult r = combine_parts(std::move(parts));
  r.evidence.extra.emplace_back("reading", "Eqs. 12-13 naming S_t = theta_t S_{t-1} - eta_t grad (the Table 1 row swaps eta and theta, A-8; the literal "
                                           "roles are a negative control)");
  return r;
}

// ---------------------------------------------------------------------------------------------
// Moneta
// ---------------------------------------------------------------------------------------------

// the l_p exponent of a Moneta sequence instance (cycles 1, 1.5, 3, 4 with the seed)
double moneta_seq_p(const SeqInst& x) {
  const double ps[4] = {1.0, 1.5, 3.0, 4.0};
  return ps[x.seed % 4];
}

ClaimResult a002_t1_moneta(const CheckConfig& cfg) {
  const std::string tag = "A002-T1-MONETA";
  std::vector<Part> parts;
  for (double p : {1.0, 1.5, 2.0, 3.0, 4.0})
    parts.push_back({"contract p=" + fmt(p), contract_part(cfg, tag + "/p=" + fmt(p), "alpha M - eta grad ||M k - v||_p^p (central differences away from r_j = 0)",
                                                          [p](const StepData& s) { return row_moneta(s, p); }, 1, 10)});
  parts.push_back({"sequence", seq_part(cfg, tag, "max relative residual of outputs: moneta_memory vs decayed GD steps (central differences; p cycles 1, 1.5, 3, 4); "
                                                  "p = 2 vs gated_delta_rule(T, beta = 2 eta); r_j = 0 gets the zero subgradient",
                                        3, [](const SeqInst& x) -> std::function<StepEval(unsigned)> {
                                          return [&x](unsigned) {
                                            const double p = moneta_seq_p(x);
                                            const MM q = to_mp(x.Q), k = to_mp(x.K), v = to_mp(x.V);
                                            const auto g = seq_gates(x);
                                            const auto mo = ref::moneta_memory(q, k, v, p, g);
                                            PM M = one(MM(x.sh.dv, x.sh.dk));
                                            std::vector<MM> Ms;
                                            for (std::size_t t = 0; t < x.T; ++t) {
                                              M = ref::decayed_gd_step(M, fd_grad(linear_loss(lp_bias(p), row_vec(k, t), row_vec(v, t)), M), g.alpha[t], g.eta[t]);
                                              Ms.push_back(M[0]);
                                            }
                                            StepEval e;
                                            Worst w;
                                            w.rows(linattn::readout_each(Ms, q), mo.O, "GD steps vs moneta_memory p=" + fmt(p));
                                            MV beta(x.T), la(x.T);
                                            for (std::size_t t = 0; t < x.T; ++t) {
                                              beta[t] = 2 * g.eta[t];
                                              la[t] = log(g.alpha[t]);
                                            }
                                            w.rows(ref::moneta_memory(q, k, v, 2.0, g).O, ref::gated_delta_rule(q, k, v, beta, la, ref::DecayPlacement::T).O, "p = 2 vs gated_delta_rule(T)");
                                            // zero residual coordinate: v_1 := (M_0 k_1)_1 = 0 with M_0 = 0, so r_1 = 0 at t = 1
                                            MM v0 = v;
                                            v0(0, 0) = 0;
                                            ref::RowGates<mp_t> g1;
                                            g1.alpha = {g.alpha[0]};
                                            g1.eta = {g.eta[0]};
                                            const auto m1 = ref::moneta_memory(head_rows(q, 1), head_rows(k, 1), head_rows(v0, 1), 1.0, g1);
                                            mp_t row0(0);
                                            for (std::size_t j = 0; j < x.sh.dk; ++j) row0 += abs(m1.state(0, j));
                                            w.upd(to_d(row0), "subgradient 0 at r_1 = 0 (p = 1)");
                                            e.r = w.r;
                                            e.where = w.where;
                                            e.controls.push_back({"l2 (p = 2) memory for p = " + fmt(p), rowrel(ref::moneta_memory(q, k, v, 2.0, g).O, mo.O)});
                                            return e;
                                          };
                                        }, ", p cycles with the instance seed",
                                        [](const SeqInst& x) -> std::string {
                                          // a diverging l_p GD trajectory (p > 2, large residuals) amplifies any difference: ill-conditioned
                                          ref::RowGates<double> gd;
                                          const auto g = seq_gates(x);
                                          for (std::size_t t = 0; t < x.T; ++t) {
                                            gd.alpha.push_back(to_d(g.alpha[t]));
                                            gd.eta.push_back(to_d(g.eta[t]));
                                          }
                                          const auto r = ref::moneta_memory(x.Q, x.K, x.V, moneta_seq_p(x), gd);
                                          double mx = 0;
                                          for (double z : r.O.a) mx = std::max(mx, std::isfinite(z) ? std::fabs(z) : INFINITY);
                                          for (double z : r.state.a) mx = std::max(mx, std::isfinite(z) ? std::fabs(z) : INFINITY);
                                          return mx > 1e6 ? "l_p GD trajectory diverges (max |M_t q_t|, |M_T| = " + fmt(mx) + " > 1e6 in double): ill-conditioned comparison" : "";
                                        })});
  return combine_parts(std::move(parts));
}

// ---------------------------------------------------------------------------------------------
// Memora (both readings)
// ---------------------------------------------------------------------------------------------

// Memora check for one axis: invariants, log domain vs direct, mirror-step optimality, and (reading A) R vs A.
ClaimResult memora_claim(const CheckConfig& cfg, const std::string& tag, ref::MemoraAxis axis) {
  const bool rows = axis == ref::MemoraAxis::rows;
  double max_ra = 0;
  int ra_n = 0, ra_dv1_exact = 0, ra_dv1 = 0;
  const auto res = seq_part(
      cfg, tag,
      std::string("max of: positivity/normalisation defect of M_t (") + (rows ? "each row" : "all entries") +
          " sums to 1); log-domain vs direct softmax(alpha log M - eta grad); spread of log M_t - alpha log M_{t-1} + eta grad l(M_{t-1}) "
          "over each normalisation block (mirror-step optimality on the simplex; gradient by central differences), relative to its scale",
      2,
      [&](const SeqInst& x) -> std::function<StepEval(unsigned)> {
        return [&x, axis, rows, &max_ra, &ra_n, &ra_dv1_exact, &ra_dv1](unsigned d) {
          const MM q = to_mp(x.Q), k = to_mp(x.K), v = to_mp(x.V);
          const auto g = seq_gates(x);
          const auto mr = ref::memora_memory(q, k, v, g, axis);
          const std::size_t dv = x.sh.dv, dk = x.sh.dk;
          StepEval e;
          Worst w;
          MM Mdir(dv, dk);  // direct form, exp/normalise without leaving to the log domain
          for (mp_t& z : Mdir.a) z = mp_t(1) / mp_t(double(rows ? dk : dk * dv));
          double spread_other = 0;
          for (std::size_t t = 0; t < x.T; ++t) {
            const MM& L0 = mr.logM[t];
            const MM& L1 = mr.logM[t + 1];
            MM M0(dv, dk), M1(dv, dk);
            for (std::size_t i = 0; i < M0.a.size(); ++i) {
              M0.a[i] = exp(L0.a[i]);
              M1.a[i] = exp(L1.a[i]);
            }
            // invariants
            mp_t defect(0);
            for (std::size_t a = 0; a < (rows ? dv : 1); ++a) {
              mp_t s(0);
              for (std::size_t i = rows ? a * dk : 0; i < (rows ? (a + 1) * dk : dv * dk); ++i) {
                if (!(M1.a[i] > 0)) defect = 1;
                s += M1.a[i];
              }
              defect = std::max(defect, mp_t(abs(mp_t(s - 1))));
            }
            w.upd(to_d(defect), "normalisation t=" + std::to_string(t + 1));
            // direct form
            const MV kt = row_vec(k, t), vt = row_vec(v, t);
            const MM Gd = ref::linear_memory_grad(l2_bias(), Mdir, kt.data(), vt.data());
            MM Z(dv, dk);
            for (std::size_t i = 0; i < Z.a.size(); ++i) Z.a[i] = exp(mp_t(g.alpha[t] * log(Mdir.a[i]) - g.eta[t] * Gd.a[i]));
            for (std::size_t a = 0; a < (rows ? dv : 1); ++a) {
              mp_t s(0);
              const std::size_t b0 = rows ? a * dk : 0, b1 = rows ? (a + 1) * dk : dv * dk;
              for (std::size_t i = b0; i < b1; ++i) s += Z.a[i];
              for (std::size_t i = b0; i < b1; ++i) Mdir.a[i] = Z.a[i] / s;
            }
            w.upd(matrel(Mdir, M1), "log domain vs direct t=" + std::to_string(t + 1));
            // mirror-step optimality: log M1 - alpha log M0 + eta grad is constant on each block
            const PM G = fd_grad(linear_loss(l2_bias(), kt, vt), one(M0));
            auto spread = [&](const MM& Lnext, bool blocks_rows) {
              mp_t worst(0), scale(1);
              for (std::size_t a = 0; a < (blocks_rows ? dv : 1); ++a) {
                const std::size_t b0 = blocks_rows ? a * dk : 0, b1 = blocks_rows ? (a + 1) * dk : dv * dk;
                mp_t lo(0), hi(0);
                for (std::size_t i = b0; i < b1; ++i) {
                  const mp_t c = Lnext.a[i] - g.alpha[t] * L0.a[i] + g.eta[t] * G[0].a[i];
                  if (i == b0 || c < lo) lo = c;
                  if (i == b0 || c > hi) hi = c;
                  scale = std::max(scale, mp_t(abs(Lnext.a[i]) + abs(mp_t(g.alpha[t] * L0.a[i])) + abs(mp_t(g.eta[t] * G[0].a[i]))));
                }
                worst = std::max(worst, mp_t(hi - lo));
              }
              return to_d(mp_t(worst / scale));
            };
            w.upd(spread(L1, rows), "mirror-step optimality t=" + std::to_string(t + 1));
            // control: the other reading's next state from the same M_{t-1} fails this reading's optimality
            if (dv > 1) {
              MM Zo(dv, dk);
              for (std::size_t i = 0; i < Zo.a.size(); ++i) Zo.a[i] = g.alpha[t] * L0.a[i] - g.eta[t] * G[0].a[i];
              for (std::size_t a = 0; a < (rows ? 1 : dv); ++a) {  // normalise the other way
                const std::size_t b0 = rows ? 0 : a * dk, b1 = rows ? dv * dk : (a + 1) * dk;
                mp_t s(0);
                for (std::size_t i = b0; i < b1; ++i) s += exp(Zo.a[i]);
                for (std::size_t i = b0; i < b1; ++i) Zo.a[i] -= log(s);
              }
              spread_other = std::max(spread_other, spread(Zo, rows) + to_d(mp_t(abs(mp_t(exp(Zo.a[0]) - M1.a[0])))));
            }
          }
          e.r = w.r;
          e.where = w.where;
          if (dv > 1) e.controls.push_back({std::string("the ") + (rows ? "global" : "row-wise") + " softmax step", spread_other});
          // readings R vs A on the same instance (report; identical for d_v = 1)
          {
            const auto other = ref::memora_memory(q, k, v, g, rows ? ref::MemoraAxis::all : ref::MemoraAxis::rows);
            const double diff = rowrel(other.O, mr.O);
            if (x.sh.dv == 1) {
              ++ra_dv1;
              if (diff <= identity_threshold(d)) ++ra_dv1_exact;
              else w.upd(diff, "d_v = 1: readings R and A must coincide");
              e.r = std::max(e.r, w.r);
            } else {
              max_ra = std::max(max_ra, diff);
              ++ra_n;
            }
          }
          return e;
        };
      });
  ClaimResult r = res;
  r.evidence.extra.emplace_back("reading R vs reading A (outputs)", "max relative difference " + fmt(max_ra) + " over " + std::to_string(ra_n) +
                                                                      " evaluations with d_v > 1; d_v = 1: " + std::to_string(ra_dv1_exact) + " of " +
                                                                      std::to_string(ra_dv1) + " coincide within the threshold");
  r.evidence.extra.emplace_back("reading", rows ? "softmax over the key index of each memory row (A-36 reading R), M_0 uniform rows, l2 bias ||.||^2"
                                                : "softmax over all d_v D entries jointly (A-36 reading A), M_0 uniform, l2 bias ||.||^2");
  return r;
}
ClaimResult a002_t1_memora(const CheckConfig& cfg) { return memora_claim(cfg, "A002-T1-MEMORA", ref::MemoraAxis::rows); }
ClaimResult a002_t1_memora_all(const CheckConfig& cfg) { return memora_claim(cfg, "A002-T1-MEMORA-ALL", ref::MemoraAxis::all); }

// ---------------------------------------------------------------------------------------------
// A002-T1 (the table's contract over the rows of this area)
// ---------------------------------------------------------------------------------------------

ClaimResult a002_t1(const CheckConfig& cfg, const Ledger* lp) {
  const std::string tag = "A002-T1";
  std::vector<Part> parts;
  auto add = [&](const std::string& row, const std::function<RowStep(const StepData&)>& f) {
    parts.push_back({row, contract_part(cfg, tag + "/" + row, row + " write rule", f, 1, 6)});
  };
  add("Linear Attention", [](const StepData& s) { return row_linear_attention(s, true); });
  add("RetNet", row_retnet);
  add("GLA (key axis)", [](const StepData& s) { return row_gla(s, false); });
  add("GLA (value axis)", [](const StepData& s) { return row_gla(s, true); });
  add("DeltaNet", [](const StepData& s) { return row_deltanet(s, false); });
  add("Longhorn", [](const StepData& s) {  // keys of norm 2 (unit keys hide the k^T k control)
    MV k = mpv(s.k);
    for (mp_t& z : k) z *= 2;
    return row_longhorn(to_mp(s.M), k, mpv(s.v), mp_t(s.beta));
  });
  add("Gated DeltaNet", [](const StepData& s) { return row_gated_delta(s, true); });
  add("RWKV-7", row_rwkv7);
  add("Titans", row_titans);
  add("Titans (no momentum)", [](const StepData& s) { return row_gated_delta(s, false); });
  add("Moneta (p = 3)", [](const StepData& s) { return row_moneta(s, 3.0); });
  add("TTT (deep)", [](const StepData& s) { return row_deep(s, DeepOpt::gd); });
  ClaimResult r = combine_parts(std::move(parts));
  std::string others;
  for (const char* id : {"A002-T1-ATTN", "A002-T1-SWA", "A002-T1-PSF", "A002-T1-MEMORA", "A002-T1-MEMORA-ALL", "A002-T1-DLA", "A002-T1-DT", "A002-T1-SWDT",
                         "A002-T1-OMEGANET", "A002-T1-DOT", "A002-T1-ATLAS"}) {
    const bool reg = lp && lp->find(id);
    others += std::string(others.empty() ? "" : ", ") + id + (reg ? " (registered)" : " (not registered in this ledger)");
  }
  r.evidence.extra.emplace_back("rows checked under their own IDs (not rerun here)", others);
  r.evidence.extra.emplace_back("footnotes", "delta_t = beta_t/(1 + beta_t k^T k) is a scalar (Longhorn row); window sums read over W_t (A-23; window "
                                             "rows are other files' IDs); matrix-valued memories; d_k != d_v in every part");
  r.reason = "rows of this file (update contract per row, d_k != d_v included): " + r.reason;
  return r;
}

}  // namespace

void register_a002_table1_rows_deep(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  const Ledger* lp = &l;
  add("A002-T1", "Table 1: each write rule is one step of the named optimizer on the named attentional bias", identity, false,
      [lp](const CheckConfig& c) { return a002_t1(c, lp); });
  add("A002-T1-TTT", "Table 1 TTT row: per-weight GD on the l2 bias of a deep memory; linear case = delta rule", identity, false, a002_t1_ttt);
  add("A002-T1-TITANS", "Table 1 Titans row: GD with momentum (Eqs. 12-13 naming), linear and deep memory", identity, false, a002_t1_titans);
  add("A002-T1-TITANSM", "Table 1 Titans without momentum: decayed GD, form T; WY form (T)", identity, false, a002_t1_titansm);
  add("A002-T1-MONETA", "Table 1 Moneta row: GD on the l_p bias, p in {1, 1.5, 2, 3, 4}", identity, false, a002_t1_moneta);
  add("A002-T1-MEMORA", "Table 1 Memora row, row-wise softmax: invariants, log domain, mirror-step optimality", identity, false, a002_t1_memora);
  add("A002-T1-MEMORA-ALL", "Table 1 Memora row, global softmax: invariants, log domain, mirror-step optimality", identity, false, a002_t1_memora_all);
}

}  // namespace recall
