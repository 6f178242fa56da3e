// Claims of seed 001 (test-time regression, Wang, Shi & Fox), tier t2: Vignette 1 RLS items
// (A001-RLS, -RLS-RIDGE-INIT, -RIDGE-LIMIT, -WRLS) and Vignette 3 first-order rules (DeltaNet as
// SGD, multi-step SGD, DeltaProduct, TTT, Longhorn, NLMS, leaky LMS, Gated DeltaNet), their chunk
// closed forms F08/F09 and the equivalence-table rows EQ08-EQ13.
//
// Verdicts are computed from numbers, deterministically from CheckConfig::seed. Identities are R-ID
// checks at cfg.digits with recall::mp_t (IdentityCheck re-verifies a failure at doubled digits);
// the gradient side of an "SGD step on L" is the exact central difference of the literal objective
// (h = 1/2; exact for the quadratic objectives here up to rounding), so the step is checked against
// the objective itself, not against a hand-expanded gradient. P-scaled items raise the working
// digits with the conditioning (spec precision tiers) and keep the P-50 threshold.
#include "recall/proofs/claims.hpp"
#include "recall/proofs/ledger.hpp"
#include "recall/reference/delta_rule.hpp"
#include "recall/reference/regression_rules.hpp"
#include "recall/reference/ttt.hpp"
#include "claim_support.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;

using ref::Matrix;
using ref::Vector;
using u64 = std::uint64_t;
using Mp = Matrix<mp_t>;
using Vp = Vector<mp_t>;

// ---------------------------------------------------------------------------------------------
// utilities: seeds, Gaussian draws, formatting, statistics
// ---------------------------------------------------------------------------------------------
u64 sub_seed(u64 base, u64 tag, u64 a = 0, u64 b = 0) { return splitmix64(splitmix64(splitmix64(base ^ 0xA001C300ull) + tag) + splitmix64(a * 0x100000001B3ull + b)); }

std::string sz(std::size_t dk, std::size_t dv, std::size_t T) {
  return "D_k=" + std::to_string(dk) + " D_v=" + std::to_string(dv) + " T=" + std::to_string(T);
}
double dnorm(const double* x, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += x[i] * x[i];
  return std::sqrt(s);
}

Ci bootstrap_mean_ci(const std::vector<double>& x, u64 seed, int B) {
  Ci c;
  const std::size_t n = x.size();
  for (double v : x) c.mean += v;
  c.mean /= static_cast<double>(n);
  Gauss g(seed);
  std::vector<double> means(B);
  for (int b = 0; b < B; ++b) {
    double acc = 0;
    for (std::size_t i = 0; i < n; ++i) acc += x[std::min(n - 1, static_cast<std::size_t>(g.uniform() * n))];
    means[b] = acc / static_cast<double>(n);
  }
  std::sort(means.begin(), means.end());
  c.lo = means[static_cast<std::size_t>(0.025 * (B - 1))];
  c.hi = means[static_cast<std::size_t>(0.975 * (B - 1))];
  return c;
}

template <class S> Matrix<S> row_mat(const Matrix<S>& X, std::size_t i) {
  Matrix<S> m(1, X.cols);
  for (std::size_t j = 0; j < X.cols; ++j) m.a[j] = X(i, j);
  return m;
}
template <class S> Matrix<S> sub(const Matrix<S>& A, const Matrix<S>& B) {
  Matrix<S> C = A;
  for (std::size_t i = 0; i < C.a.size(); ++i) C.a[i] -= B.a[i];
  return C;
}
// Exact central difference of a quadratic objective f at M (exact up to rounding for any h). The step
// h = max(1/2, ||M||_F) keeps the rounding of f(M +- h e) relative to the gradient at the working precision
// (for f ~ ||M||^2 |k|^2 the error is u |f| / h ~ u ||M|| |k|^2, i.e. relative u).
template <class S> Matrix<S> fd_grad_quadratic(const std::function<S(const Matrix<S>&)>& f, const Matrix<S>& M) {
  Matrix<S> G(M.rows, M.cols), X = M;
  S h = ref::frob(M);
  if (h < S(1) / S(2)) h = S(1) / S(2);
  for (std::size_t a = 0; a < M.a.size(); ++a) {
    X.a[a] = M.a[a] + h;
    const S fp = f(X);
    X.a[a] = M.a[a] - h;
    const S fm = f(X);
    X.a[a] = M.a[a];
    G.a[a] = (fp - fm) / (S(2) * h);
  }
  return G;
}
// M - beta G
template <class S> Matrix<S> step_with(const Matrix<S>& M, const Matrix<S>& G, const S& beta) {
  Matrix<S> out = M;
  for (std::size_t a = 0; a < out.a.size(); ++a) out.a[a] -= beta * G.a[a];
  return out;
}
// Run a per-token rule M_t = step(M_{t-1}, t) from M0; y_t = M_t q_t.
ref::LinearAttentionResult<mp_t> run_rule(const Mp& Q, const Mp& M0, const std::function<Mp(const Mp&, std::size_t)>& step) {
  ref::LinearAttentionResult<mp_t> r;
  r.state = M0;
  r.O = Mp(Q.rows, M0.rows);
  for (std::size_t t = 0; t < Q.rows; ++t) {
    r.state = step(r.state, t);
    ref::matvec_into(r.O.row(t), r.state, Q.row(t));
  }
  return r;
}
double res_seq(const ref::LinearAttentionResult<mp_t>& a, const ref::LinearAttentionResult<mp_t>& b) {
  return std::max(rel_res(a.O, b.O), rel_res(a.state, b.state));
}
Mp one_token(const mp_t* x, std::size_t n) {
  Mp m(1, n);
  for (std::size_t i = 0; i < n; ++i) m.a[i] = x[i];
  return m;
}

// ---------------------------------------------------------------------------------------------
// instances: G1 keys (scales 1, D_k^{-1/2}, 10^a with a in [-3,3]) x G6 step sizes
// ---------------------------------------------------------------------------------------------
// step pattern: 0 beta ||k||^2 ~ U(0,1); 1 beta in {0,1} (raw); 2 beta ||k||^2 ~ U(0,2.5) (crosses the
// non-expansive bound 2); 3 raw beta ~ U(0,1) (as printed, keys unnormalised; only for key scales <= 10).
struct Inst {
  std::size_t dk, dv, T;
  Matrix<double> Q, K, V, M0;
  std::vector<double> beta;
  std::string desc;
};
const char* kStepNames[4] = {"beta|k|^2~U(0,1)", "beta in {0,1}", "beta|k|^2~U(0,2.5)", "raw beta~U(0,1)"};
Inst make_inst(std::size_t dk, std::size_t dv, std::size_t T, int variant, u64 seed, bool warm = false) {
  Gauss g(seed);
  Inst in{dk, dv, T, {}, {}, {}, {}, {}, {}};
  const int scale_kind = variant % 3;
  int pattern = variant % 4;
  const double scale = scale_kind == 0 ? 1.0 : scale_kind == 1 ? 1.0 / std::sqrt(static_cast<double>(dk)) : std::pow(10.0, 6.0 * g.uniform() - 3.0);
  if (pattern == 3 && scale > 10) pattern = 2;
  in.Q = gauss_matrix(T, dk, g);
  in.K = gauss_matrix(T, dk, g, scale);
  in.V = gauss_matrix(T, dv, g);
  in.M0 = warm ? gauss_matrix(dv, dk, g) : Matrix<double>(dv, dk);
  in.beta.resize(T);
  for (std::size_t t = 0; t < T; ++t) {
    const double kk = std::pow(dnorm(in.K.row(t), dk), 2);
    switch (pattern) {
      case 0: in.beta[t] = g.uniform() / kk; break;
      case 1: in.beta[t] = g.uniform() < 0.5 ? 0.0 : 1.0; break;
      case 2: in.beta[t] = 2.5 * g.uniform() / kk; break;
      default: in.beta[t] = g.uniform();
    }
  }
  in.desc = sz(dk, dv, T) + " keys x" + fmt(scale) + " " + kStepNames[pattern] + (warm ? " M0~N(0,1)" : " M0=0") + " seed " + std::to_string(seed);
  return in;
}
struct Size3 {
  std::size_t dk, dv, T;
};
std::vector<Size3> sizes(const CheckConfig& cfg) {
  std::vector<Size3> s = {{1, 1, 3}, {2, 1, 4}, {3, 2, 6}, {4, 3, 8}};
  if (!cfg.quick) {
    s.push_back({8, 3, 20});
    s.push_back({16, 5, 40});
  }
  return s;
}
std::string sizes_desc(const CheckConfig& cfg) {
  return std::string("G1 (D_k,D_v,T) in (1,1,3),(2,1,4),(3,2,6),(4,3,8)") + (cfg.quick ? "" : ",(8,3,20),(16,5,40)") +
         " x 6 variants (key scale 1 / D_k^-1/2 / 10^U(-3,3); G6 step patterns incl. beta|k|^2 > 2), cold and warm M0";
}
// Iterate the standard instance grid: fn(inst) is called for each (size, variant, warm) in increasing size.
void for_each_inst(const CheckConfig& cfg, u64 tag, const std::function<void(const Inst&)>& fn) {
  int n = 0;
  for (const Size3& s : sizes(cfg))
    for (int v = 0; v < 6; ++v) {
      const u64 sd = sub_seed(cfg.seed, tag, ++n);
      fn(make_inst(s.dk, s.dv, s.T, v, sd, v % 2 == 1));
    }
}
struct MpInst {
  Mp Q, K, V, M0;
  Vp beta;
};
MpInst to_mp(const Inst& in) { return {ref::cast<mp_t>(in.Q), ref::cast<mp_t>(in.K), ref::cast<mp_t>(in.V), ref::cast<mp_t>(in.M0), ref::cast<mp_t>(in.beta)}; }

// ---------------------------------------------------------------------------------------------
// combining components (rows and multi-part items)
// ---------------------------------------------------------------------------------------------
struct Part {
  std::string name;
  ClaimResult r;
  bool decides = true;   // enters the verdict
  bool in_value = true;  // its value enters the row's value (identity residuals)
};
ClaimResult combine(const CheckConfig& cfg, const std::string& statistic, const std::vector<Part>& parts, const std::string& holds_reason) {
  ClaimResult r;
  Evidence& e = r.evidence;
  e.statistic = statistic;
  e.threshold = identity_threshold(cfg.digits);
  e.digits = cfg.digits;
  e.seed = cfg.seed;
  std::string failed, undecided;
  const ClaimResult* first_failed = nullptr;
  const Part* worst = nullptr;
  for (const Part& p : parts) {
    e.instances += p.r.evidence.instances;
    if (p.in_value && (!worst || p.r.evidence.value > worst->r.evidence.value)) worst = &p;
    e.extra.emplace_back(p.name, std::string(verdict_name(p.r.verdict)) + ": " + p.r.evidence.statistic + " = " + fmt(p.r.evidence.value) + " (threshold " +
                                     fmt(p.r.evidence.threshold) + "); " + p.r.reason + "; witness " + p.r.evidence.witness);
    for (const auto& x : p.r.evidence.extra) e.extra.emplace_back(p.name + " / " + x.first, x.second);
    if (!p.decides) continue;
    if (p.r.verdict == Verdict::violated) {
      failed += (failed.empty() ? "" : ", ") + p.name;
      if (!first_failed) first_failed = &p.r;
    } else if (p.r.verdict == Verdict::inconclusive) {
      undecided += (undecided.empty() ? "" : ", ") + p.name;
    }
  }
  if (worst) {
    e.value = worst->r.evidence.value;
    e.witness = worst->name + ": " + worst->r.evidence.witness;
  }
  std::string sz_all;
  for (const Part& p : parts)
    if (!p.r.evidence.sizes.empty() && sz_all.find(p.r.evidence.sizes) == std::string::npos) sz_all += (sz_all.empty() ? "" : "; ") + p.r.evidence.sizes;
  e.sizes = sz_all;
  if (first_failed) {
    r.verdict = Verdict::violated;
    e.witness = first_failed->evidence.witness;
    e.value = first_failed->evidence.value;
    e.threshold = first_failed->evidence.threshold;
    r.reason = "failed part(s): " + failed + " -- " + first_failed->reason;
  } else if (!undecided.empty()) {
    r.verdict = Verdict::inconclusive;
    r.reason = "undecided part(s): " + undecided;
  } else {
    r.verdict = Verdict::holds;
    r.reason = holds_reason;
  }
  return r;
}
// A verdict from an inequality / predicate over instances (no MP re-verification needed: exact predicates).
ClaimResult predicate_result(const CheckConfig& cfg, const std::string& statistic, double value, double threshold, bool ok, const std::string& witness,
                             int n, const std::string& sizes_, const std::string& reason_ok, const std::string& reason_bad, unsigned digits = 0) {
  ClaimResult r;
  r.verdict = ok ? Verdict::holds : Verdict::violated;
  r.reason = ok ? reason_ok : reason_bad;
  r.evidence.statistic = statistic;
  r.evidence.value = value;
  r.evidence.threshold = threshold;
  r.evidence.witness = witness;
  r.evidence.instances = n;
  r.evidence.sizes = sizes_;
  r.evidence.digits = digits;
  r.evidence.seed = cfg.seed;
  return r;
}

}  // namespace
}  // namespace recall

namespace recall {
namespace {

// =============================================================================================
// DeltaNet: (5) = (6), SGD lines, SGD step, closed / chunk forms, stability bound
// =============================================================================================

// (5) vs (6) on one instance (keys as given, or L2-normalised: the key_norm flag).
double deltanet_def_residual(const Inst& in, bool l2, unsigned d) {
  MpDigitsScope sc(d);
  MpInst m = to_mp(in);
  if (l2)
    for (std::size_t t = 0; t < in.T; ++t) {
      const mp_t n = boost::multiprecision::sqrt(ref::dot(m.K.row(t), m.K.row(t), in.dk));
      for (std::size_t j = 0; j < in.dk; ++j) m.K(t, j) /= n;
    }
  return res_seq(ref::deltanet_eq5(m.Q, m.K, m.V, m.beta, &m.M0), ref::delta_rule(m.Q, m.K, m.V, m.beta, &m.M0));
}
// Non-expansiveness of I - beta k k^T: ||I - beta k k^T||_2 <= 1 iff 0 <= beta ||k||^2 <= 2 (A001-DELTANET-DEF hazard).
// The spectral norm is computed numerically (symmetric eigen-solver, fp64); the predicate is compared with the bound.
ClaimResult transition_bound_check(const CheckConfig& cfg) {
  const double cs[] = {-0.5, -1e-3, 0.0, 0.3, 1.0, 1.7, 1.999, 2.0, 2.001, 2.2, 2.5};
  int n = 0, bad = 0;
  std::string witness;
  double worst_gap = 0;
  for (int dk : {1, 2, 4, 8})
    for (double c : cs) {
      Gauss g(sub_seed(cfg.seed, 11, dk, static_cast<u64>((c + 1) * 1e4)));
      Eigen::VectorXd k(dk);
      for (int i = 0; i < dk; ++i) k(i) = g.normal() * std::pow(10.0, 2.0 * g.uniform() - 1.0);
      const double beta = c / k.squaredNorm();
      const Eigen::MatrixXd A = Eigen::MatrixXd::Identity(dk, dk) - beta * k * k.transpose();
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(A, Eigen::EigenvaluesOnly);
      const double nrm = std::max(std::abs(es.eigenvalues()(0)), std::abs(es.eigenvalues()(dk - 1)));
      // eigenvalue 1 - beta||k||^2 along k and 1 on k-perp (which is empty for D_k = 1)
      const double pred_norm = dk == 1 ? std::abs(1.0 - c) : std::max(1.0, std::abs(1.0 - c));
      const bool nonexp = nrm <= 1.0 + 1e-12, in_bound = c >= 0 && c <= 2;
      ++n;
      worst_gap = std::max(worst_gap, std::abs(nrm - pred_norm));
      // decided away from the boundary by more than rounding (|c| or |c - 2| > 1e-9): exact boundary points are in_bound
      if (nonexp != in_bound && std::min(std::abs(c), std::abs(c - 2)) > 1e-9) {
        if (!bad++) witness = "D_k=" + std::to_string(dk) + " beta|k|^2=" + fmt(c) + ": ||I - beta k k^T||_2 = " + fmt(nrm, 17);
      }
    }
  return predicate_result(cfg, "max | ||I - beta k k^T||_2 - max(1, |1 - beta|k|^2|) | (fp64 eigen-solver)", worst_gap, 1e-12,
                          bad == 0 && worst_gap <= 1e-12, witness.empty() ? "none" : witness, n,
                          "beta|k|^2 in {-0.5,-1e-3,0,0.3,1,1.7,1.999,2,2.001,2.2,2.5} x D_k in {1,2,4,8}, key norms 10^U(-1,1)",
                          "non-expansive exactly on 0 <= beta|k|^2 <= 2 and spectral norm = max(1, |1 - beta|k|^2|) on every instance",
                          "the non-expansiveness predicate disagrees with the bound 0 <= beta|k|^2 <= 2");
}
// Hazard characterisation (descriptive): ||M_T||_F after T = 256 steps at constant beta|k|^2 = c (fp64).
std::string hazard_growth_table(const CheckConfig& cfg) {
  std::string out;
  for (double c : {0.0, 0.5, 1.0, 1.5, 1.9, 2.0, 2.1, 2.5}) {
    Gauss g(sub_seed(cfg.seed, 12));
    const std::size_t dk = 4, dv = 2, T = 256;
    Matrix<double> K = gauss_matrix(T, dk, g), V = gauss_matrix(T, dv, g), Q = K;
    std::vector<double> beta(T);
    int logged = 0;
    for (std::size_t t = 0; t < T; ++t) {
      beta[t] = c / std::pow(dnorm(K.row(t), dk), 2);
      if (std::abs(1 - c) > 1) ++logged;
    }
    const auto r = ref::delta_rule(Q, K, V, beta);
    out += (out.empty() ? "" : "; ") + ("c=" + fmt(c) + ": ||M_256||_F=" + fmt(ref::frob(r.state)) + " (" + std::to_string(logged) + " expansive steps logged)");
  }
  return out;
}

ClaimResult check_deltanet_def(const CheckConfig& cfg) {
  IdentityCheck c("max relative residual (5) vs (6), outputs and final state", cfg.digits);
  for_each_inst(cfg, 10, [&](const Inst& in) {
    c.add(in.desc + " keys as given", [in](unsigned d) { return deltanet_def_residual(in, false, d); });
    c.add(in.desc + " key_norm=l2", [in](unsigned d) { return deltanet_def_residual(in, true, d); });
  });
  std::vector<Part> parts = {{"(5) = (6)", c.result(cfg, sizes_desc(cfg))}, {"non-expansive iff 0 <= beta|k|^2 <= 2", transition_bound_check(cfg), true, false}};
  ClaimResult r = combine(cfg, "max relative residual (5) vs (6)", parts,
                          "(5) = (6) on every instance (keys as given and L2-normalised); the transition is non-expansive exactly when 0 <= beta|k|^2 <= 2");
  r.evidence.extra.emplace_back("hazard: ||M_T||_F at T=256, constant beta|k|^2 (fp64, D_k=4, D_v=2)", hazard_growth_table(cfg));
  return r;
}

// A001-SGD-LAYER: lines (26) [M - beta grad L_t, gradient by exact central difference of L_t], (27), (28).
double sgd_lines_residual(const Inst& in, unsigned d) {
  MpDigitsScope sc(d);
  const MpInst m = to_mp(in);
  auto line26 = run_rule(m.Q, m.M0, [&](const Mp& M, std::size_t t) {
    const std::function<mp_t(const Mp&)> L = [&](const Mp& X) { return ref::sq_loss(X, m.K.row(t), m.V.row(t)); };
    return step_with(M, fd_grad_quadratic(L, M), m.beta[t]);
  });
  auto line27 = run_rule(m.Q, m.M0, [&](const Mp& M, std::size_t t) { return ref::error_form_step(M, m.K.row(t), m.V.row(t), m.beta[t]); });
  auto line28 = run_rule(m.Q, m.M0, [&](const Mp& M, std::size_t t) { return ref::transition_form_step(M, m.K.row(t), m.V.row(t), m.beta[t], m.beta[t]); });
  return std::max(res_seq(line26, line27), res_seq(line27, line28));
}
ClaimResult check_sgd_layer(const CheckConfig& cfg) {
  IdentityCheck c("max relative residual between lines (26), (27), (28) over whole sequences", cfg.digits);
  for_each_inst(cfg, 20, [&](const Inst& in) { c.add(in.desc, [in](unsigned d) { return sgd_lines_residual(in, d); }); });
  return c.result(cfg, sizes_desc(cfg));
}

// A001-DELTANET-AS-SGD: one SGD step on L_t at M_{t-1} (literal objective) vs (5) vs (6) (ref::delta_rule).
struct AsSgdRes {
  double sgd_vs_6 = 0, eq5_vs_6 = 0;
};
AsSgdRes deltanet_as_sgd(const Inst& in, unsigned d) {
  MpDigitsScope sc(d);
  const MpInst m = to_mp(in);
  auto sgd = run_rule(m.Q, m.M0, [&](const Mp& M, std::size_t t) {
    const std::function<mp_t(const Mp&)> L = [&](const Mp& X) { return ref::sq_loss(X, m.K.row(t), m.V.row(t)); };
    return step_with(M, fd_grad_quadratic(L, M), m.beta[t]);
  });
  const auto e6 = ref::delta_rule(m.Q, m.K, m.V, m.beta, &m.M0);
  return {res_seq(sgd, e6), res_seq(ref::deltanet_eq5(m.Q, m.K, m.V, m.beta, &m.M0), e6)};
}
ClaimResult check_deltanet_as_sgd(const CheckConfig& cfg) {
  IdentityCheck c("max relative residual: SGD step on L_t at M_{t-1} vs (6) and (5) vs (6), whole sequences", cfg.digits);
  for_each_inst(cfg, 30, [&](const Inst& in) {
    c.add(in.desc, [in](unsigned d) {
      const AsSgdRes r = deltanet_as_sgd(in, d);
      return std::max(r.sgd_vs_6, r.eq5_vs_6);
    });
  });
  return c.result(cfg, sizes_desc(cfg));
}

// A001-F08-DELTANET-CHUNK: recurrence vs ordered-product closed form (every t) vs WY/UT chunk form (C in {1,2,3,T}).
double f08_residual(const Inst& in, unsigned d) {
  MpDigitsScope sc(d);
  const MpInst m = to_mp(in);
  const auto rec = ref::delta_rule(m.Q, m.K, m.V, m.beta, &m.M0);
  double w = 0;
  Mp Ocl(in.T, in.dv);
  for (std::size_t t = 1; t <= in.T; ++t) {
    const Mp Mt = ref::delta_ordered_product_state(m.K, m.V, m.beta, t, &m.M0);
    ref::matvec_into(Ocl.row(t - 1), Mt, m.Q.row(t - 1));
    if (t == in.T) w = std::max(w, rel_res(Mt, rec.state));
  }
  w = std::max(w, rel_res(Ocl, rec.O));
  for (std::size_t C : {std::size_t(1), std::size_t(2), std::size_t(3), in.T}) {
    const auto ch = ref::delta_chunked(m.Q, m.K, m.V, m.beta, static_cast<const Vp*>(nullptr), ref::ChunkParam::deltanet, C, &m.M0);
    w = std::max({w, rel_res(ch.O, rec.O), rel_res(ch.state, rec.state)});
  }
  return w;
}
ClaimResult check_f08(const CheckConfig& cfg) {
  IdentityCheck c("max relative residual: recurrence (6) vs ordered-product closed form vs WY/UT chunk form (C = 1, 2, 3, T)", cfg.digits);
  for_each_inst(cfg, 40, [&](const Inst& in) { c.add(in.desc, [in](unsigned d) { return f08_residual(in, d); }); });
  return c.result(cfg, sizes_desc(cfg));
}

// A001-MULTISTEP-SGD: I literal steps vs the closed form; distance to the NLMS step as I grows.
ClaimResult check_multistep(const CheckConfig& cfg) {
  IdentityCheck c("max relative residual: I literal SGD steps vs closed form (1 - (1 - beta|k|^2)^I)/|k|^2", cfg.digits);
  std::vector<int> Is = cfg.quick ? std::vector<int>{1, 2, 3, 5, 10, 25, 50} : std::vector<int>{};
  if (!cfg.quick)
    for (int i = 1; i <= 50; ++i) Is.push_back(i);
  const double cs[] = {0.01, 0.5, 1.0, 1.5, 1.99, 2.3, 2.49};
  int n = 0;
  for (std::size_t dk : {1, 3, 4})
    for (double cc : cs)
      for (int I : Is) {
        const u64 sd = sub_seed(cfg.seed, 50, ++n);
        c.add("D_k=" + std::to_string(dk) + " D_v=2 beta|k|^2=" + fmt(cc) + " I=" + std::to_string(I) + " seed " + std::to_string(sd), [=](unsigned d) {
          MpDigitsScope sc(d);
          Gauss g(sd);
          const Mp M0 = ref::cast<mp_t>(gauss_matrix(2, dk, g)), k = ref::cast<mp_t>(gauss_matrix(1, dk, g)), v = ref::cast<mp_t>(gauss_matrix(1, 2, g));
          const mp_t beta = mp_t(cc) / ref::dot(k.row(0), k.row(0), dk);
          return rel_res(ref::sgd_multistep(M0, k.row(0), v.row(0), beta, I), ref::sgd_multistep_closed(M0, k.row(0), v.row(0), beta, I));
        });
      }
  ClaimResult r = c.result(cfg, "D_k in {1,3,4}, D_v=2, beta|k|^2 in {0.01,0.5,1,1.5,1.99,2.3,2.49}, I in " + std::string(cfg.quick ? "{1,2,3,5,10,25,50}" : "1..50"));
  // ||M^(I) - M^NLMS||_F (same M^(0)) as I grows
  MpDigitsScope sc(cfg.digits);
  Gauss g(sub_seed(cfg.seed, 51));
  const Mp M0 = ref::cast<mp_t>(gauss_matrix(2, 4, g)), k = ref::cast<mp_t>(gauss_matrix(1, 4, g)), v = ref::cast<mp_t>(gauss_matrix(1, 2, g));
  const mp_t kk = ref::dot(k.row(0), k.row(0), 4);
  const Mp Mn = ref::nlms(one_token(k.row(0), 4), k, v, mp_t(0), &M0).state;
  for (double cc : {0.5, 1.5, 2.3}) {
    std::string s;
    for (int I : {1, 2, 5, 10, 20, 50}) s += (s.empty() ? "" : ", ") + ("I=" + std::to_string(I) + ": " + fmt(to_d(ref::frob_diff(ref::sgd_multistep(M0, k.row(0), v.row(0), mp_t(mp_t(cc) / kk), I), Mn))));
    r.evidence.extra.emplace_back("||M^(I) - M^NLMS||_F at beta|k|^2=" + fmt(cc), s);
  }
  return r;
}

// A001-DELTAPRODUCT: shared micro-steps = multi-step closed form; distinct micro-steps = ordered-product
// closed form of F08 on the flattened micro-step sequence.
double deltaproduct_residual(std::size_t dk, std::size_t dv, std::size_t T, std::size_t nh, bool shared, u64 sd, unsigned d) {
  MpDigitsScope sc(d);
  Gauss g(sd);
  const std::size_t n = T * nh;
  Matrix<double> Kd = gauss_matrix(n, dk, g), Vd = gauss_matrix(n, dv, g);
  std::vector<double> bd(n);
  for (std::size_t i = 0; i < n; ++i) bd[i] = 2.5 * g.uniform() / std::pow(dnorm(Kd.row(i), dk), 2);
  if (shared)
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t j = 1; j < nh; ++j) {
        for (std::size_t c = 0; c < dk; ++c) Kd(t * nh + j, c) = Kd(t * nh, c);
        for (std::size_t c = 0; c < dv; ++c) Vd(t * nh + j, c) = Vd(t * nh, c);
        bd[t * nh + j] = bd[t * nh];
      }
  const Mp Q = ref::cast<mp_t>(gauss_matrix(T, dk, g)), K = ref::cast<mp_t>(Kd), V = ref::cast<mp_t>(Vd), M0 = ref::cast<mp_t>(gauss_matrix(dv, dk, g));
  const Vp beta = ref::cast<mp_t>(bd);
  const auto dp = ref::deltaproduct(Q, K, V, beta, nh, &M0);
  Mp O(T, dv), M = M0;
  for (std::size_t t = 0; t < T; ++t) {
    M = shared ? ref::sgd_multistep_closed(M, K.row(t * nh), V.row(t * nh), beta[t * nh], static_cast<int>(nh))
               : ref::delta_ordered_product_state(K, V, beta, (t + 1) * nh, &M0);
    ref::matvec_into(O.row(t), M, Q.row(t));
  }
  return std::max(rel_res(dp.O, O), rel_res(dp.state, M));
}
ClaimResult check_deltaproduct(const CheckConfig& cfg) {
  IdentityCheck c("max relative residual: DeltaProduct recurrence vs multi-step closed form (shared micro-steps) / ordered-product form (distinct)", cfg.digits);
  int n = 0;
  for (const Size3& s : sizes(cfg))
    for (std::size_t nh : {1, 2, 3})
      for (bool shared : {true, false}) {
        const u64 sd = sub_seed(cfg.seed, 60, ++n);
        const std::size_t T = std::min<std::size_t>(s.T, 8);
        c.add(sz(s.dk, s.dv, T) + " n_h=" + std::to_string(nh) + (shared ? " shared" : " distinct") + " micro-steps, beta|k|^2~U(0,2.5), seed " + std::to_string(sd),
              [=](unsigned d) { return deltaproduct_residual(s.dk, s.dv, T, nh, shared, sd, d); });
      }
  return c.result(cfg, "G1 sizes (T capped at 8) x n_h in {1,2,3} x shared/distinct micro-steps, warm M0");
}

}  // namespace
}  // namespace recall

namespace recall {
namespace {

// =============================================================================================
// Longhorn, NLMS, the online-learner template
// =============================================================================================
mp_t pow10_mp(int k) { return boost::multiprecision::pow(mp_t(10), k); }
// extra digits for a step size delta = 10^e (P-scaled: digits >= 30 + log10 delta)
unsigned delta_digits(unsigned d, int e) { return d + static_cast<unsigned>(std::max(0, e)) + 10; }
const int kDeltaExp[] = {-1000, -6, 0, 6, 30};  // -1000: delta = 0
std::string delta_name(int e) { return e == -1000 ? "delta=0" : "delta=1e" + std::to_string(e); }
mp_t delta_value(int e) { return e == -1000 ? mp_t(0) : pow10_mp(e); }

// One Longhorn step from Mprev via the shared reference ref::longhorn.
Mp longhorn_one(const Mp& Mprev, const mp_t* k, const mp_t* v, std::size_t dk, std::size_t dv, const mp_t& delta) {
  return ref::longhorn(one_token(k, dk), one_token(k, dk), one_token(v, dv), Vp{delta}, &Mprev).state;
}
Mp nlms_one(const Mp& Mprev, const mp_t* k, const mp_t* v, std::size_t dk, std::size_t dv) {
  return ref::nlms(one_token(k, dk), one_token(k, dk), one_token(v, dv), mp_t(0), &Mprev).state;
}
// Relative first-order residual of (30) at M: ||(M - Mprev) - delta (v - M k) k^T|| / max(1, ||M - Mprev||, ||delta (v - M k) k^T||).
double longhorn_grad_residual(const Mp& M, const Mp& Mprev, const mp_t* k, const mp_t* v, const mp_t& delta) {
  const Mp G = ref::longhorn_objective_grad(M, Mprev, k, v, delta);
  const Mp D = sub(M, Mprev);
  const Mp E = sub(D, G);  // = delta (v - M k) k^T
  mp_t den(1);
  if (ref::frob(D) > den) den = ref::frob(D);
  if (ref::frob(E) > den) den = ref::frob(E);
  return to_d(mp_t(ref::frob(G) / den));
}
// Cholesky of the Hessian block I + delta k k^T of (30) (Hessian = I_{D_v} (x) (I + delta k k^T)); min pivot^2.
mp_t longhorn_hessian_min_pivot(const mp_t* k, std::size_t dk, const mp_t& delta) {
  Mp H = ref::eye<mp_t>(dk);
  ref::add_outer(H, delta, k, k);
  mp_t minp(-1);
  Mp L(dk, dk);
  for (std::size_t j = 0; j < dk; ++j) {
    mp_t s = H(j, j);
    for (std::size_t q = 0; q < j; ++q) s -= L(j, q) * L(j, q);
    if (minp < 0 || s < minp) minp = s;
    if (!(s > 0)) return s;
    L(j, j) = boost::multiprecision::sqrt(s);
    for (std::size_t i = j + 1; i < dk; ++i) {
      mp_t u = H(i, j);
      for (std::size_t q = 0; q < j; ++q) u -= L(i, q) * L(j, q);
      L(i, j) = u / L(j, j);
    }
  }
  return minp;
}

// A001-LONGHORN: (31) (ref::longhorn) vs the direct solve; gradient of (30) at (31); beta|k|^2 in [0,1).
struct LhRes {
  double vs_direct = 0, grad = 0;
  bool in_unit = true;
};
LhRes longhorn_item(const Inst& in, int e, unsigned d) {
  MpDigitsScope sc(delta_digits(d, e));
  const MpInst m = to_mp(in);
  const mp_t delta = delta_value(e);
  LhRes r;
  Mp M = m.M0;
  for (std::size_t t = 0; t < in.T; ++t) {
    const mp_t* k = m.K.row(t);
    const mp_t* v = m.V.row(t);
    const Mp Mn = longhorn_one(M, k, v, in.dk, in.dv, delta);
    r.vs_direct = std::max(r.vs_direct, rel_res(Mn, ref::longhorn_direct_solve(M, k, v, delta)));
    r.grad = std::max(r.grad, longhorn_grad_residual(Mn, M, k, v, delta));
    const mp_t bk = ref::longhorn_step(delta, k, in.dk) * ref::dot(k, k, in.dk);
    if (bk < 0 || !(bk < 1)) r.in_unit = false;
    M = Mn;
  }
  return r;
}
ClaimResult check_longhorn(const CheckConfig& cfg) {
  IdentityCheck c1("max relative residual (31) vs direct solve (M + delta v k^T)(I + delta k k^T)^{-1}", cfg.digits),
      c2("max relative first-order residual of (30) at (31)", cfg.digits);
  int n = 0, bad = 0;
  std::string bad_w;
  for_each_inst(cfg, 70, [&](const Inst& in) {
    for (int e : kDeltaExp) {
      const std::string desc = in.desc + " " + delta_name(e) + " (digits +" + std::to_string(std::max(0, e) + 10) + ")";
      c1.add(desc, [in, e](unsigned d) { return longhorn_item(in, e, d).vs_direct; });
      c2.add(desc, [in, e](unsigned d) { return longhorn_item(in, e, d).grad; });
      ++n;
      if (!longhorn_item(in, e, cfg.digits).in_unit && !bad++) bad_w = desc;
    }
  });
  std::vector<Part> parts = {{"(31) = direct solve", c1.result(cfg, sizes_desc(cfg) + " x delta in {0,1e-6,1,1e6,1e30}")},
                             {"grad (30) = 0 at (31)", c2.result(cfg, "")},
                             {"beta|k|^2 in [0,1) (non-expansive transition)",
                              predicate_result(cfg, "instances with beta|k|^2 outside [0,1) (MP)", bad, 0, bad == 0, bad_w.empty() ? "none" : bad_w, n, "",
                                               "0 <= beta|k|^2 < 1 at every step (delta up to 1e30)", "beta|k|^2 left [0,1)", cfg.digits),
                              true, false}};
  return combine(cfg, "max relative residual of (31) vs argmin of (30) (direct solve and stationarity)", parts,
                 "(31) equals the direct solve and zeroes the gradient of (30) for every delta in {0,1e-6,1,1e6,1e30}; beta|k|^2 in [0,1)");
}

// A001-LONGHORN-AS-SGD: (31) literally (transition form with beta = delta/(1 + delta|k|^2)) vs (29) with that
// step (ref::longhorn = ref::delta_rule with ref::longhorn_step); implicit-SGD form; retrieval at the new key.
struct LhSgd {
  double eq31_vs_29 = 0, implicit = 0, retrieval = 0;
};
LhSgd longhorn_as_sgd(const Inst& in, unsigned d) {
  MpDigitsScope sc(d + 10);
  const MpInst m = to_mp(in);
  Vp delta(in.T);
  for (std::size_t t = 0; t < in.T; ++t) delta[t] = mp_t(in.beta[t] * std::pow(dnorm(in.K.row(t), in.dk), 2) * 3.0) / ref::dot(m.K.row(t), m.K.row(t), in.dk);
  LhSgd r;
  const auto lh = ref::longhorn(m.Q, m.K, m.V, delta, &m.M0);
  auto e31 = run_rule(m.Q, m.M0, [&](const Mp& M, std::size_t t) {
    const mp_t kk = ref::dot(m.K.row(t), m.K.row(t), in.dk);
    const mp_t b = delta[t] / (mp_t(1) + delta[t] * kk);
    return ref::transition_form_step(M, m.K.row(t), m.V.row(t), b, b);
  });
  r.eq31_vs_29 = res_seq(e31, lh);
  Mp M = m.M0;
  for (std::size_t t = 0; t < in.T; ++t) {
    const mp_t* k = m.K.row(t);
    const mp_t* v = m.V.row(t);
    const Mp Mn = longhorn_one(M, k, v, in.dk, in.dv, delta[t]);
    // implicit SGD: Mn = M + delta (v - Mn k) k^T  (gradient at the new iterate)
    Mp rhs = M;
    Vp e = ref::matvec(Mn, k);
    for (std::size_t i = 0; i < in.dv; ++i) e[i] = v[i] - e[i];
    ref::add_outer(rhs, delta[t], e.data(), k);
    r.implicit = std::max(r.implicit, rel_res(Mn, rhs));
    // retrieval: Mn k = (M k + delta |k|^2 v) / (1 + delta |k|^2)
    const mp_t kk = ref::dot(k, k, in.dk);
    Vp pred = ref::matvec(M, k);
    for (std::size_t i = 0; i < in.dv; ++i) pred[i] = (pred[i] + delta[t] * kk * v[i]) / (mp_t(1) + delta[t] * kk);
    r.retrieval = std::max(r.retrieval, rel_res(as_row(ref::matvec(Mn, k)), as_row(pred)));
    M = Mn;
  }
  return r;
}
ClaimResult longhorn_as_sgd_part(const CheckConfig& cfg, int which) {
  static const char* names[3] = {"max relative residual (31) vs (29) with beta = delta/(1 + delta|k|^2), whole sequences",
                                 "max relative residual of the implicit-SGD form M_t = M_{t-1} + delta (v - M_t k) k^T",
                                 "max relative residual of the retrieval M_t k = (M_{t-1} k + delta|k|^2 v)/(1 + delta|k|^2)"};
  IdentityCheck c(names[which], cfg.digits);
  for_each_inst(cfg, 80, [&](const Inst& in) {
    c.add(in.desc + " (delta|k|^2 = 3 x pattern value)", [in, which](unsigned d) {
      const LhSgd r = longhorn_as_sgd(in, d);
      return which == 0 ? r.eq31_vs_29 : which == 1 ? r.implicit : r.retrieval;
    });
  });
  return c.result(cfg, sizes_desc(cfg));
}
ClaimResult check_longhorn_as_sgd(const CheckConfig& cfg) {
  std::vector<Part> parts = {{"(31) = (29) with beta_t", longhorn_as_sgd_part(cfg, 0)},
                             {"implicit-SGD form", longhorn_as_sgd_part(cfg, 1)},
                             {"retrieval at the new key", longhorn_as_sgd_part(cfg, 2)}};
  return combine(cfg, "max relative residual: (31) vs SGD step (29) with beta = delta/(1 + delta|k|^2) and the derived companions", parts,
                 "(31) is the SGD step (29) with beta = delta/(1 + delta|k|^2); implicit-SGD and retrieval companions hold");
}

// A001-LONGHORN-LIMITS: delta = 0 (no update) and delta = 10^k -> NLMS with the measured rate.
struct LimitRun {
  std::vector<double> logd, logerr;
  double final_err = 0, zero_res = 0;
};
LimitRun longhorn_limits_run(std::size_t dk, std::size_t dv, std::size_t T, u64 sd, int kstep, unsigned d0) {
  LimitRun lr;
  Gauss g(sd);
  const Matrix<double> Kd = gauss_matrix(T, dk, g), Vd = gauss_matrix(T, dv, g), M0d = gauss_matrix(dv, dk, g);
  {
    MpDigitsScope sc(d0);
    const Mp K = ref::cast<mp_t>(Kd), V = ref::cast<mp_t>(Vd), M0 = ref::cast<mp_t>(M0d);
    const auto z = ref::longhorn(K, K, V, Vp(T, mp_t(0)), &M0);
    lr.zero_res = rel_res(z.state, M0);
  }
  for (int k = 0; k <= 60; k += kstep) {
    MpDigitsScope sc(std::max<unsigned>(d0, static_cast<unsigned>(k) + 40));
    const Mp K = ref::cast<mp_t>(Kd), V = ref::cast<mp_t>(Vd), M0 = ref::cast<mp_t>(M0d);
    const auto lh = ref::longhorn(K, K, V, Vp(T, pow10_mp(k)), &M0);
    const auto nl = ref::nlms(K, K, V, mp_t(0), &M0);
    const double e = std::max(rel_res(lh.state, nl.state), rel_res(lh.O, nl.O));
    lr.logd.push_back(k);
    lr.logerr.push_back(std::log10(e));
    lr.final_err = e;
  }
  return lr;
}
ClaimResult check_longhorn_limits(const CheckConfig& cfg) {
  IdentityCheck z("max relative residual M_t(delta = 0) vs M_{t-1} (no update)", cfg.digits);
  const std::vector<Size3> ss = {{2, 1, 4}, {4, 3, 6}, {8, 2, 12}};
  const int kstep = cfg.quick ? 4 : 1;
  int n = 0, bad = 0;
  double worst_final = 0, slope_lo = 1e9, slope_hi = -1e9;
  std::string w, curve;
  for (const Size3& s : ss) {
    const u64 sd = sub_seed(cfg.seed, 90, ++n);
    const std::string desc = sz(s.dk, s.dv, s.T) + " warm M0 seed " + std::to_string(sd);
    z.add(desc, [=](unsigned d) { return longhorn_limits_run(s.dk, s.dv, 1, sd, 61, d).zero_res; });
    const LimitRun lr = longhorn_limits_run(s.dk, s.dv, s.T, sd, kstep, cfg.digits);
    // slope over delta >= 10^4 (asymptotic regime)
    std::vector<double> x, y;
    for (std::size_t i = 0; i < lr.logd.size(); ++i)
      if (lr.logd[i] >= 4) {
        x.push_back(lr.logd[i]);
        y.push_back(lr.logerr[i]);
      }
    const double sl = ols_slope(x, y);
    slope_lo = std::min(slope_lo, sl);
    slope_hi = std::max(slope_hi, sl);
    worst_final = std::max(worst_final, lr.final_err);
    bool decreasing = true;
    for (std::size_t i = 1; i < lr.logerr.size(); ++i)
      if (lr.logerr[i] > lr.logerr[i - 1] + 1e-9) decreasing = false;
    if ((!(lr.final_err < 1e-30) || !decreasing) && !bad++) w = desc + ": final error " + fmt(lr.final_err) + (decreasing ? "" : " (not monotone)");
    if (curve.empty())
      for (std::size_t i = 0; i < lr.logd.size(); i += 3) curve += (curve.empty() ? "" : ", ") + ("1e" + fmt(lr.logd[i]) + ": " + fmt(std::pow(10.0, lr.logerr[i])));
  }
  std::vector<Part> parts = {{"delta = 0 gives M_t = M_{t-1}", z.result(cfg, "")},
                             {"delta -> inf gives NLMS (33)",
                              predicate_result(cfg, "relative ||M_t(delta) - M_t^NLMS|| at delta = 1e60 (worst stream)", worst_final, 1e-30, bad == 0,
                                               w.empty() ? "none" : w, n, "delta = 10^k, k = 0.." + std::string(cfg.quick ? "60 step 4" : "60") + ", digits k + 40",
                                               "error decreases monotonically in delta and is below 1e-30 at delta = 1e60", "the limit is not reached"),
                              true, false}};
  ClaimResult r = combine(cfg, "relative ||M_t(delta) - M_t^NLMS|| at delta = 1e60 (worst stream)", parts,
                          "delta = 0 leaves the state unchanged; Longhorn -> NLMS as delta -> inf with measured rate O(1/delta)");
  r.evidence.value = worst_final;
  r.evidence.threshold = 1e-30;
  r.evidence.extra.emplace_back("fitted slope of log10 error vs log10 delta (delta >= 1e4), range over streams", fmt(slope_lo, 4) + " .. " + fmt(slope_hi, 4));
  r.evidence.extra.emplace_back("error vs delta (first stream)", curve);
  return r;
}

// A001-NLMS: (i) M_t k = v; (ii) M_t x = M_{t-1} x for x orthogonal to k; (iii) minimality over random feasible M; (iv) KKT rank-one.
struct NlmsRes {
  double constraint = 0, ortho = 0, minimal = 0, kkt = 0;
};
NlmsRes nlms_item(const Inst& in, unsigned d) {
  MpDigitsScope sc(d);
  const MpInst m = to_mp(in);
  Gauss g(splitmix64(in.T * 7919 + in.dk));
  NlmsRes r;
  Mp M = m.M0;
  for (std::size_t t = 0; t < in.T; ++t) {
    const mp_t* k = m.K.row(t);
    const mp_t* v = m.V.row(t);
    const mp_t kk = ref::dot(k, k, in.dk);
    const Mp Mn = nlms_one(M, k, v, in.dk, in.dv);
    r.constraint = std::max(r.constraint, rel_res(as_row(ref::matvec(Mn, k)), one_token(v, in.dv)));
    // x = z - (z.k/|k|^2) k
    const Mp z = ref::cast<mp_t>(gauss_matrix(1, in.dk, g));
    Vp x(in.dk);
    const mp_t zk = ref::dot(z.row(0), k, in.dk) / kk;
    for (std::size_t j = 0; j < in.dk; ++j) x[j] = z(0, j) - zk * k[j];
    r.ortho = std::max(r.ortho, rel_res(as_row(ref::matvec(Mn, x.data())), as_row(ref::matvec(M, x.data()))));
    const Mp D = sub(Mn, M);
    // (iii) feasible M' = Mn + Z (I - k k^T/|k|^2): ||M' - M|| >= ||Mn - M||
    for (int rep = 0; rep < 3; ++rep) {
      const Mp Z = ref::cast<mp_t>(gauss_matrix(in.dv, in.dk, g, std::pow(10.0, -rep)));
      Mp P = ref::eye<mp_t>(in.dk);
      ref::add_outer(P, mp_t(-1 / kk), k, k);
      const Mp Mf = [&] {
        Mp out = Mn;
        const Mp ZP = ref::matmul(Z, P);
        for (std::size_t a = 0; a < out.a.size(); ++a) out.a[a] += ZP.a[a];
        return out;
      }();
      const mp_t gap = ref::frob(D) - ref::frob(sub(Mf, M));
      mp_t den(1);
      if (ref::frob(D) > den) den = ref::frob(D);
      if (gap > 0) r.minimal = std::max(r.minimal, to_d(mp_t(gap / den)));
    }
    // (iv) D = nu k^T with nu = D k/|k|^2
    Vp nu = ref::matvec(D, k);
    for (auto& x2 : nu) x2 /= kk;
    Mp R1(in.dv, in.dk);
    ref::add_outer(R1, nu.data(), k);
    r.kkt = std::max(r.kkt, rel_res(D, R1));
    M = Mn;
  }
  return r;
}
ClaimResult check_nlms(const CheckConfig& cfg) {
  static const char* nm[4] = {"(i) max relative residual ||M_t k_t - v_t||", "(ii) max relative residual M_t x - M_{t-1} x, x orthogonal to k_t",
                              "(iii) max relative excess ||M_t - M_{t-1}|| - ||M - M_{t-1}|| over random feasible M (R-BOUND)",
                              "(iv) max relative residual of M_t - M_{t-1} = nu k_t^T (KKT)"};
  std::vector<Part> parts;
  for (int which = 0; which < 4; ++which) {
    IdentityCheck c(nm[which], cfg.digits);
    for_each_inst(cfg, 100, [&](const Inst& in) {
      c.add(in.desc, [in, which](unsigned d) {
        const NlmsRes r = nlms_item(in, d);
        return which == 0 ? r.constraint : which == 1 ? r.ortho : which == 2 ? r.minimal : r.kkt;
      });
    });
    parts.push_back({std::string(nm[which]).substr(0, 4), c.result(cfg, sizes_desc(cfg))});
  }
  return combine(cfg, "max relative residual over (i) constraint, (ii) orthogonal invariance, (iii) minimality, (iv) KKT", parts,
                 "(33) satisfies the constraint, leaves k_t-orthogonal directions unchanged, is the minimal-change feasible point and meets KKT");
}

// A001-NLMS-KACZMARZ: (a) row-wise hyperplane projection; (b) cyclic sweeps over a consistent system converge to the
// interpolant closest to M0, with the measured rate.
double kaczmarz_rowwise(const Inst& in, unsigned d) {
  MpDigitsScope sc(d);
  const MpInst m = to_mp(in);
  double w = 0;
  Mp M = m.M0;
  for (std::size_t t = 0; t < in.T; ++t) {
    const mp_t* k = m.K.row(t);
    const Mp Mn = nlms_one(M, k, m.V.row(t), in.dk, in.dv);
    const mp_t kk = ref::dot(k, k, in.dk);
    Mp P = M;  // row r: m_r - ((m_r . k - v_r)/|k|^2) k
    for (std::size_t r = 0; r < in.dv; ++r) {
      const mp_t c = (ref::dot(M.row(r), k, in.dk) - m.V(t, r)) / kk;
      for (std::size_t j = 0; j < in.dk; ++j) P(r, j) = M(r, j) - c * k[j];
    }
    w = std::max(w, rel_res(Mn, P));
    M = Mn;
  }
  return w;
}
struct SweepRun {
  std::vector<double> dist;
  double rate = 0;
};
SweepRun kaczmarz_sweeps(std::size_t dk, std::size_t dv, std::size_t n, double near_parallel, int sweeps, u64 sd, unsigned d) {
  MpDigitsScope sc(d);
  Gauss g(sd);
  Matrix<double> Kd = gauss_matrix(n, dk, g);
  if (near_parallel > 0)
    for (std::size_t i = 1; i < n; ++i)
      for (std::size_t j = 0; j < dk; ++j) Kd(i, j) = Kd(0, j) + near_parallel * Kd(i, j);
  const Mp K = ref::cast<mp_t>(Kd), V = ref::cast<mp_t>(gauss_matrix(n, dv, g)), M0 = ref::cast<mp_t>(gauss_matrix(dv, dk, g));
  // M* = M0 + (V^T - M0 K^T)(K K^T)^{-1} K
  Mp Rm = ref::transpose(V);
  const Mp MK = ref::matmul(M0, ref::transpose(K));
  for (std::size_t a = 0; a < Rm.a.size(); ++a) Rm.a[a] -= MK.a[a];
  const Mp G = ref::matmul(K, ref::transpose(K));
  Mp Ms = ref::matmul(ref::right_solve(Rm, G), K);
  for (std::size_t a = 0; a < Ms.a.size(); ++a) Ms.a[a] += M0.a[a];
  SweepRun sr;
  Mp M = M0;
  const double d0 = to_d(ref::frob_diff(M, Ms));
  for (int s = 0; s < sweeps; ++s) {
    M = ref::nlms(K, K, V, mp_t(0), &M).state;
    sr.dist.push_back(to_d(ref::frob_diff(M, Ms)) / d0);
  }
  std::vector<double> x, y;
  for (int s = 0; s < sweeps; ++s)
    if (sr.dist[s] > std::pow(10.0, -static_cast<double>(d) + 15)) {
      x.push_back(s + 1);
      y.push_back(std::log10(sr.dist[s]));
    }
  sr.rate = x.size() >= 2 ? std::pow(10.0, ols_slope(x, y)) : 0.0;
  return sr;
}
ClaimResult check_nlms_kaczmarz(const CheckConfig& cfg) {
  IdentityCheck a("(a) max relative residual: NLMS rows vs orthogonal projections onto {x : x^T k_t = v_t,r}", cfg.digits);
  for_each_inst(cfg, 110, [&](const Inst& in) { a.add(in.desc, [in](unsigned d) { return kaczmarz_rowwise(in, d); }); });
  const int sweeps = cfg.quick ? 200 : 10000;
  int n = 0, bad = 0;
  double worst_final = 0;
  std::string rates, w;
  for (double np : {0.0, 0.3, 0.05}) {
    const u64 sd = sub_seed(cfg.seed, 111, ++n);
    const SweepRun sr = kaczmarz_sweeps(5, 2, 3, np, sweeps, sd, cfg.digits);
    const double fin = sr.dist.back();
    worst_final = std::max(worst_final, fin);
    rates += (rates.empty() ? "" : "; ") + ((np == 0 ? std::string("Gaussian keys") : "near-parallel keys (spread " + fmt(np) + ")") + ": rate/sweep " + fmt(sr.rate) +
                                            ", distance after 1/10/" + std::to_string(sweeps) + " sweeps " + fmt(sr.dist[0]) + "/" + fmt(sr.dist[9]) + "/" + fmt(fin));
    const bool ok = sr.rate < 1 && fin < sr.dist[0];
    if (!ok && !bad++) w = "near-parallel spread " + fmt(np) + " seed " + std::to_string(sd) + ": rate " + fmt(sr.rate);
  }
  std::vector<Part> parts = {{"(a) row-wise projection", a.result(cfg, sizes_desc(cfg))},
                             {"(b) cyclic sweeps converge to the interpolant closest to M0",
                              predicate_result(cfg, "worst relative distance to the closest interpolant after the last sweep", worst_final, 1, bad == 0,
                                               w.empty() ? "none" : w, n, "D_k=5, D_v=2, n=3 consistent equations; " + std::to_string(sweeps) + " sweeps",
                                               "geometric convergence (fitted rate < 1) to the interpolant closest to M0", "no convergence", cfg.digits),
                              true, false}};
  ClaimResult r = combine(cfg, "(a) max relative residual NLMS vs row-wise Kaczmarz projection", parts,
                          "every NLMS step is the row-wise orthogonal (Kaczmarz) projection; cyclic sweeps converge geometrically to the closest interpolant");
  r.evidence.extra.emplace_back("(b) sweeps", rates);
  return r;
}

// A001-ONLINE-LEARNER-TEMPLATE: Longhorn (30) and NLMS (32) closed forms satisfy first-order optimality; strict convexity.
ClaimResult check_online_template(const CheckConfig& cfg) {
  IdentityCheck lg("Longhorn: max relative gradient residual of (30) at (31)", cfg.digits), nk("NLMS: max relative KKT residual of (32) at (33)", cfg.digits);
  int n = 0, notpd = 0;
  std::string w;
  for_each_inst(cfg, 120, [&](const Inst& in) {
    for (int e : {-6, 0, 6}) lg.add(in.desc + " " + delta_name(e), [in, e](unsigned d) { return longhorn_item(in, e, d).grad; });
    nk.add(in.desc, [in](unsigned d) {
      const NlmsRes r = nlms_item(in, d);
      return std::max(r.constraint, r.kkt);
    });
    MpDigitsScope sc(cfg.digits);
    const MpInst m = to_mp(in);
    for (std::size_t t = 0; t < in.T; ++t)
      for (int e : {-6, 0, 6}) {
        ++n;
        if (!(longhorn_hessian_min_pivot(m.K.row(t), in.dk, pow10_mp(e)) > 0) && !notpd++) w = in.desc + " token " + std::to_string(t + 1);
      }
  });
  std::vector<Part> parts = {{"Longhorn stationarity", lg.result(cfg, sizes_desc(cfg) + " x delta in {1e-6,1,1e6}")},
                             {"NLMS KKT", nk.result(cfg, "")},
                             {"Longhorn Hessian I (x) (I + delta k k^T) positive definite (Cholesky)",
                              predicate_result(cfg, "Hessian blocks failing Cholesky", notpd, 0, notpd == 0, w.empty() ? "none" : w, n, "", "every Cholesky pivot > 0",
                                               "a Hessian block is not positive definite", cfg.digits),
                              true, false}};
  ClaimResult r = combine(cfg, "max first-order optimality residual (Longhorn gradient, NLMS KKT)", parts,
                          "both instances' closed forms satisfy the optimality conditions of (7); Longhorn's objective is strictly convex (Cholesky), "
                          "NLMS's objective has Hessian I on the affine constraint set");
  return r;
}

}  // namespace
}  // namespace recall

namespace recall {
namespace {

// A001-LONGHORN-GLOBAL-OBJECTIVE: (G1) = LONGHORN-AS-SGD; (G2) NNLS stationarity of a weighted prefix LS
// (fp64, projected gradient on the scaled simplex); descriptive excess loss on stationary streams.
double simplex_nnls_ratio(const Eigen::MatrixXd& C, int iters) {
  // min ||C g|| over g >= 0, sum g = t, relative to ||C 1||
  const int t = static_cast<int>(C.cols());
  Eigen::VectorXd gm = Eigen::VectorXd::Ones(t);
  const double L = std::max(1e-300, C.squaredNorm());  // >= ||C^T C||_2: a valid step bound
  auto project = [t](Eigen::VectorXd x) {  // onto {g >= 0, sum g = t}
    std::vector<double> u(x.data(), x.data() + t);
    std::sort(u.begin(), u.end(), std::greater<double>());
    double cs = 0, theta = 0;
    for (int j = 0; j < t; ++j) {
      cs += u[j];
      const double th = (cs - t) / (j + 1);
      if (u[j] - th > 0) theta = th;
    }
    for (int j = 0; j < t; ++j) x(j) = std::max(0.0, x(j) - theta);
    return x;
  };
  double best = (C * gm).norm();
  for (int it = 0; it < iters; ++it) {
    gm = project(gm - (C.transpose() * (C * gm)) / L);
    best = std::min(best, (C * gm).norm());
  }
  return best / std::max(1e-300, (C * Eigen::VectorXd::Ones(t)).norm());
}
ClaimResult check_longhorn_global(const CheckConfig& cfg) {
  const ClaimResult g1 = longhorn_as_sgd_part(cfg, 0);
  // (G2): for t >= 2 D_k
  const int nstreams = cfg.quick ? 10 : 100;
  std::vector<double> ratios;
  std::vector<std::vector<double>> excess(3);
  const std::size_t dk = 4, dv = 2, T = 32 * dk;
  for (int s = 0; s < nstreams; ++s) {
    Gauss g(sub_seed(cfg.seed, 130, s));
    Matrix<double> K = gauss_matrix(T, dk, g, 1.0 / std::sqrt(4.0)), A = gauss_matrix(dv, dk, g), V(T, dv);
    for (std::size_t t = 0; t < T; ++t) {
      const auto ak = ref::matvec(A, K.row(t));
      for (std::size_t c = 0; c < dv; ++c) V(t, c) = ak[c] + 0.1 * g.normal();
    }
    std::size_t ci = 0;
    for (std::size_t t : {2 * dk, 8 * dk, 32 * dk}) {
      const auto lh = ref::longhorn(head_rows(K, t), head_rows(K, t), head_rows(V, t), std::vector<double>(t, 1.0));
      Eigen::MatrixXd C(dv * dk, t);
      for (std::size_t i = 0; i < t; ++i) {
        const auto gi = ref::sq_loss_grad(lh.state, K.row(i), V.row(i));
        for (std::size_t a = 0; a < gi.a.size(); ++a) C(a, i) = gi.a[a];
      }
      if (s < std::min(nstreams, 10)) ratios.push_back(simplex_nnls_ratio(C, 3000));
      const auto ls = ref::ridge_state(K, V, t, 0.0);
      excess[ci++].push_back((ref::prefix_loss(lh.state, K, V, t) - ref::prefix_loss(ls, K, V, t)) / static_cast<double>(t));
    }
  }
  std::sort(ratios.begin(), ratios.end());
  ClaimResult r = g1;
  r.evidence.statistic = "(G1) " + g1.evidence.statistic;
  r.reason = std::string("decided on the exact content, reading G1 (Longhorn's iterates are SGD steps on the terms L_t of (18)): ") + g1.reason +
             "; reading G2 reported as evidence (not decided: approximation without exact content)";
  r.evidence.extra.emplace_back("(G2) min over gamma >= 0, sum gamma = t of ||sum gamma_i grad L_i(M_t)|| / ||grad L_t(M_t)|| (fp64, 10 streams x t in {8,32,128}, D_k=4)",
                                "min " + fmt(ratios.front()) + ", median " + fmt(ratios[ratios.size() / 2]) + ", max " + fmt(ratios.back()) +
                                    " (0 would make M_t a stationary point of a weighted prefix LS)");
  const char* tn[3] = {"t=8", "t=32", "t=128"};
  std::string ex;
  for (int i = 0; i < 3; ++i) ex += (ex.empty() ? "" : "; ") + (std::string(tn[i]) + ": " + fmt_ci(bootstrap_mean_ci(excess[i], sub_seed(cfg.seed, 131, i), 1000)));
  r.evidence.extra.emplace_back("descriptive: (L_t(M_t) - L_t(M_t^LS))/t, mean [95% CI] over " + std::to_string(nstreams) + " stationary streams v = A k + 0.1 eps, delta = 1", ex);
  return r;
}

// =============================================================================================
// L2-regularised objective, leaky LMS, Gated DeltaNet, F09
// =============================================================================================
ClaimResult check_l2reg(const CheckConfig& cfg) {
  IdentityCheck c("max relative residual: central-difference gradient of L_t + lambda/2 ||M||_F^2 vs grad L_t + lambda M", cfg.digits);
  int n = 0;
  for_each_inst(cfg, 140, [&](const Inst& in) {
    const u64 sd = sub_seed(cfg.seed, 141, ++n);
    c.add(in.desc, [in, sd](unsigned d) {
      MpDigitsScope sc(d);
      const MpInst m = to_mp(in);
      Gauss g(sd);
      double w = 0;
      for (std::size_t t = 0; t < in.T; ++t) {
        const Mp M = ref::cast<mp_t>(gauss_matrix(in.dv, in.dk, g));
        const mp_t lam(g.uniform());
        const std::function<mp_t(const Mp&)> f = [&](const Mp& X) { return ref::l2reg_term(X, m.K.row(t), m.V.row(t), lam); };
        Mp G = ref::sq_loss_grad(M, m.K.row(t), m.V.row(t));
        for (std::size_t a = 0; a < G.a.size(); ++a) G.a[a] += lam * M.a[a];
        w = std::max(w, rel_res(fd_grad_quadratic(f, M), G));
      }
      return w;
    });
  });
  ClaimResult r = c.result(cfg, sizes_desc(cfg) + ", lambda ~ U(0,1), M ~ N(0,1)");
  // documentation: spectral-norm reading lambda/2 ||M||_2^2 has gradient lambda sigma_1 u_1 v_1^T != lambda M (fp64)
  Gauss g(sub_seed(cfg.seed, 142));
  double mn = 1e300, mx = 0;
  for (int i = 0; i < 20; ++i) {
    Eigen::MatrixXd M(3, 4);
    for (int a = 0; a < 12; ++a) M.data()[a] = g.normal();
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(M, Eigen::ComputeThinU | Eigen::ComputeThinV);
    const Eigen::MatrixXd Gs = svd.singularValues()(0) * svd.matrixU().col(0) * svd.matrixV().col(0).transpose();
    const double rel = (Gs - M).norm() / M.norm();
    mn = std::min(mn, rel);
    mx = std::max(mx, rel);
  }
  r.evidence.extra.emplace_back("spectral-norm reading: ||grad (1/2)||M||_2^2 - M||_F / ||M||_F over 20 Gaussian 3x4 M (fp64)",
                                fmt(mn) + " .. " + fmt(mx) + " (nonzero: Eq. 35's lambda M matches the Frobenius norm only)");
  return r;
}

// leaky LMS instance: beta from the step pattern, lambda ~ U(0,1) with edges lambda = 0 and some beta lambda > 1.
struct LeakyInst {
  Inst in;
  std::vector<double> lambda;
};
LeakyInst make_leaky(const Inst& in, u64 sd, bool allow_over) {
  LeakyInst li{in, std::vector<double>(in.T)};
  Gauss g(sd);
  for (std::size_t t = 0; t < in.T; ++t) {
    const double u = g.uniform();
    li.lambda[t] = u < 0.15 ? 0.0 : u < 0.25 ? 1.0 : g.uniform();
    if (!allow_over && li.in.beta[t] * li.lambda[t] > 1) li.lambda[t] = 1.0 / li.in.beta[t] * g.uniform();
  }
  return li;
}
// the three lines (35)-(37), one SGD step on the per-step term (central difference), ref::gated_delta_rule (T) where 1 - beta lambda in [0,1]
double leaky_residual(const LeakyInst& li, unsigned d, bool* over) {
  MpDigitsScope sc(d);
  const MpInst m = to_mp(li.in);
  const Vp lam = ref::cast<mp_t>(li.lambda);
  auto l35 = run_rule(m.Q, m.M0, [&](const Mp& M, std::size_t t) { return ref::leaky_eq35_step(M, m.K.row(t), m.V.row(t), m.beta[t], lam[t]); });
  auto l36 = run_rule(m.Q, m.M0, [&](const Mp& M, std::size_t t) { return ref::leaky_eq36_step(M, m.K.row(t), m.V.row(t), m.beta[t], lam[t]); });
  auto l37 = run_rule(m.Q, m.M0, [&](const Mp& M, std::size_t t) {
    return ref::error_form_step(M, m.K.row(t), m.V.row(t), m.beta[t], mp_t(mp_t(1) - m.beta[t] * lam[t]));
  });
  auto sgd = run_rule(m.Q, m.M0, [&](const Mp& M, std::size_t t) {
    const std::function<mp_t(const Mp&)> f = [&](const Mp& X) { return ref::l2reg_term(X, m.K.row(t), m.V.row(t), lam[t]); };
    return step_with(M, fd_grad_quadratic(f, M), m.beta[t]);
  });
  double w = std::max({res_seq(l35, l36), res_seq(l36, l37), res_seq(sgd, l37)});
  bool ok_gate = true;
  Vp la(li.in.T);
  for (std::size_t t = 0; t < li.in.T; ++t) {
    const mp_t a = mp_t(1) - m.beta[t] * lam[t];
    if (a < 0 || a > 1) ok_gate = false;
    else la[t] = ref::log_gate(a);
  }
  if (over) *over = !ok_gate;
  if (ok_gate) w = std::max(w, res_seq(ref::gated_delta_rule(m.Q, m.K, m.V, m.beta, la, ref::DecayPlacement::T, &m.M0), l37));
  return w;
}
ClaimResult check_leaky(const CheckConfig& cfg) {
  IdentityCheck c("max relative residual: lines (35), (36), (37), SGD step on L_t + lambda_t/2||M||_F^2, ref gated_delta_rule(T)", cfg.digits);
  int n = 0, logged = 0;
  for_each_inst(cfg, 150, [&](const Inst& in) {
    for (bool over : {false, true}) {
      const LeakyInst li = make_leaky(in, sub_seed(cfg.seed, 151, ++n), over);
      bool o = false;
      leaky_residual(li, 20, &o);
      if (o) ++logged;
      c.add(in.desc + " lambda~{0,1,U(0,1)}" + (over ? " (beta lambda > 1 allowed)" : ""), [li](unsigned d) { return leaky_residual(li, d, nullptr); });
    }
  });
  ClaimResult r = c.result(cfg, sizes_desc(cfg) + " x lambda in {0, 1, U(0,1)}");
  r.evidence.extra.emplace_back("hazard: instances with a step where 1 - beta lambda is outside [0,1] (logged; only the literal lines and the SGD step are compared there)",
                                std::to_string(logged));
  return r;
}

// A001-GATED-DELTANET-REPARAM: (37) (ref gated_delta_rule T) vs (41) (ref gated_delta_rule G under the map); lines (38)-(41) pairwise.
struct GdnInst {
  Inst in;
  std::vector<double> lambda, alpha_target;  // alpha_target > 0: lambda = (1 - alpha)/beta formed in MP
  std::string desc;
};
// raw beta in [0, 0.999] (the paper's beta in [0,1]), lambda ~ U(0,1); edge 1: exact zeros of beta / lambda;
// edge 2: beta lambda -> 1^-: alpha = 10^-U(5,20), beta = 1 - alpha u, lambda = (1 - alpha)/beta <= 1.
GdnInst make_gdn(const Inst& in, int edge, u64 sd) {
  GdnInst gi{in, std::vector<double>(in.T), std::vector<double>(in.T, -1.0), in.desc};
  Gauss g(sd);
  for (std::size_t t = 0; t < in.T; ++t) {
    double& b = gi.in.beta[t];
    b = 0.999 * g.uniform();
    if (edge == 1 && g.uniform() < 0.3) b = 0;
    double& l = gi.lambda[t];
    l = g.uniform();
    if (edge == 1 && g.uniform() < 0.3) l = 0;
    if (edge == 2) {
      const double a = std::pow(10.0, -5.0 - 15.0 * g.uniform());
      gi.alpha_target[t] = a;
      b = 1.0 - a * g.uniform();
    }
  }
  gi.desc += edge == 0 ? " raw beta~U(0,0.999) lambda~U(0,1)" : edge == 1 ? " edges beta=0 / lambda=0" : " beta lambda -> 1^- (alpha = 10^-U(5,20))";
  return gi;
}
struct GdnRes {
  double rec = 0, lines = 0;
};
GdnRes gdn_residuals(const GdnInst& gi, unsigned d) {
  MpDigitsScope sc(d);
  const MpInst m = to_mp(gi.in);
  const std::size_t T = gi.in.T, dv = gi.in.dv;
  Vp lam(T), alpha(T), eta(T), la(T);
  Mp Vp_(T, dv);
  for (std::size_t t = 0; t < T; ++t) {
    lam[t] = gi.alpha_target[t] > 0 ? mp_t((mp_t(1) - mp_t(gi.alpha_target[t])) / m.beta[t]) : mp_t(gi.lambda[t]);
    const auto p = ref::gdn_forward_map(m.beta[t], lam[t]);
    alpha[t] = p.alpha;
    eta[t] = p.eta;
    la[t] = ref::log_gate(alpha[t]);
    for (std::size_t c = 0; c < dv; ++c) Vp_(t, c) = alpha[t] * m.V(t, c);
  }
  GdnRes r;
  const auto leaky = ref::gated_delta_rule(m.Q, m.K, m.V, m.beta, la, ref::DecayPlacement::T, &m.M0);
  const auto gdn = ref::gated_delta_rule(m.Q, m.K, Vp_, eta, la, ref::DecayPlacement::G, &m.M0);
  r.rec = res_seq(leaky, gdn);
  Mp M = m.M0;
  for (std::size_t t = 0; t < T; ++t) {
    const mp_t* k = m.K.row(t);
    const mp_t* v = m.V.row(t);
    const Mp l38 = ref::error_form_step(M, k, v, m.beta[t], alpha[t]);
    const Mp l39 = ref::gdn_eq39_step(M, k, v, alpha[t], m.beta[t]);
    const Mp l40 = ref::gdn_eq40_step(M, k, v, alpha[t], m.beta[t]);
    const Mp l41 = ref::gdn_eq41_step(M, k, Vp_.row(t), alpha[t], eta[t]);
    r.lines = std::max({r.lines, rel_res(l38, l39), rel_res(l39, l40), rel_res(l40, l41)});
    M = l38;
  }
  return r;
}
ClaimResult check_gdn_reparam(const CheckConfig& cfg) {
  IdentityCheck c1("max relative residual: (37) recurrence vs (41) recurrence under the map, outputs and state", cfg.digits),
      c2("max relative residual between consecutive lines (38)-(41), per step", cfg.digits);
  int n = 0;
  for_each_inst(cfg, 160, [&](const Inst& in) {
    for (int edge = 0; edge < 3; ++edge) {
      GdnInst gi = make_gdn(in, edge, sub_seed(cfg.seed, 161, ++n));
      c1.add(gi.desc, [gi](unsigned d) { return gdn_residuals(gi, d).rec; });
      c2.add(gi.desc, [gi](unsigned d) { return gdn_residuals(gi, d).lines; });
      // L2-normalised keys
      GdnInst gl = gi;
      for (std::size_t t = 0; t < gl.in.T; ++t) {
        const double nk = dnorm(gl.in.K.row(t), gl.in.dk);
        for (std::size_t j = 0; j < gl.in.dk; ++j) gl.in.K(t, j) /= nk;
      }
      gl.desc += " L2-normalised keys";
      c1.add(gl.desc, [gl](unsigned d) { return gdn_residuals(gl, d).rec; });
      c2.add(gl.desc, [gl](unsigned d) { return gdn_residuals(gl, d).lines; });
    }
  });
  std::vector<Part> parts = {{"(37) = (41) under the map", c1.result(cfg, sizes_desc(cfg) + " x {lambda~U(0,1), edges beta=0/lambda=0, beta lambda -> 1^-}, raw and L2 keys")},
                             {"lines (38) = (39) = (40) = (41)", c2.result(cfg, "")}};
  return combine(cfg, "max relative residual (37) vs (41) under (alpha, eta, v') and consecutive lines", parts,
                 "leaky LMS (37) and Gated DeltaNet (41) agree under the map wherever it is defined (beta lambda < 1), including alpha down to 1e-20");
}

// A001-GDN-MAP-INVERTIBLE: round trips on D1 and D2, images, undefined points.
ClaimResult check_gdn_map(const CheckConfig& cfg) {
  MpDigitsScope sc(cfg.digits);
  IdentityCheck rt("max relative round-trip residual inverse(forward(beta, lambda)) and forward(inverse(alpha, eta))", cfg.digits);
  const double betas[] = {1e-12, 0.1, 0.5, 0.9, 1.0}, lambdas[] = {0.0, 0.3, 0.7, 1.0 - 1e-12, 1.0};
  const double alphas[] = {1e-12, 0.1, 0.5, 1.0}, etas[] = {1e-12, 0.3, 1.0};
  std::vector<std::string> undefined;
  double eta_min = 1e300, eta_max = 0, lam_min = 1e300, lam_max = 0, beta_min = 1e300, beta_max = 0, alpha_min = 1e300, alpha_max = 0;
  auto rr = [](const mp_t& a, const mp_t& b) {
    mp_t den = boost::multiprecision::abs(a);
    if (den < 1) den = 1;
    return to_d(mp_t(boost::multiprecision::abs(mp_t(a - b)) / den));
  };
  for (double b : betas)
    for (double l : lambdas) {
      if (mp_t(b) * mp_t(l) == 1) {  // exactly in D1, map undefined
        undefined.push_back("forward at (beta, lambda) = (" + fmt(b) + ", " + fmt(l) + "): alpha = 0, eta = beta/0");
        continue;
      }
      const auto f = ref::gdn_forward_map(mp_t(b), mp_t(l));
      eta_min = std::min(eta_min, to_d(f.eta));
      eta_max = std::max(eta_max, to_d(f.eta));
      alpha_min = std::min(alpha_min, to_d(f.alpha));
      alpha_max = std::max(alpha_max, to_d(f.alpha));
      rt.add("D1 beta=" + fmt(b, 17) + " lambda=" + fmt(l, 17), [b, l, rr](unsigned d) {
        MpDigitsScope s2(d + 15);  // P-scaled: the map's condition number is <= 1/alpha <= 1e12 on the grid
        const auto f2 = ref::gdn_forward_map(mp_t(b), mp_t(l));
        const auto i2 = ref::gdn_inverse_map(f2.alpha, f2.eta);
        // v round trip: v' = alpha v, v = v'/alpha (v = 1)
        return std::max({rr(mp_t(b), i2.beta), rr(mp_t(l), i2.lambda), rr(mp_t(1), mp_t(f2.alpha * mp_t(1) / f2.alpha))});
      });
    }
  for (double a : alphas)
    for (double e : etas) {
      const auto iv = ref::gdn_inverse_map(mp_t(a), mp_t(e));
      lam_min = std::min(lam_min, to_d(iv.lambda));
      lam_max = std::max(lam_max, to_d(iv.lambda));
      beta_min = std::min(beta_min, to_d(iv.beta));
      beta_max = std::max(beta_max, to_d(iv.beta));
      rt.add("D2 alpha=" + fmt(a, 17) + " eta=" + fmt(e, 17), [a, e, rr](unsigned d) {
        MpDigitsScope s2(d + 15);  // P-scaled: 1 - beta lambda cancels to alpha (condition 1/alpha <= 1e12)
        const auto i2 = ref::gdn_inverse_map(mp_t(a), mp_t(e));
        const auto f2 = ref::gdn_forward_map(i2.beta, i2.lambda);
        return std::max(rr(mp_t(a), f2.alpha), rr(mp_t(e), f2.eta));
      });
    }
  // At beta lambda = 1 the GDN form cannot represent the leaky step: (41) with alpha = 0 and v' = alpha v = 0 gives
  // M_t = 0 for every eta, while (37) gives beta (v - M k) k^T. Computed residual on a Gaussian instance, eta in {1, 1e10}.
  Gauss g(sub_seed(cfg.seed, 171));
  const Mp M = ref::cast<mp_t>(gauss_matrix(2, 3, g)), k = ref::cast<mp_t>(gauss_matrix(1, 3, g)), v = ref::cast<mp_t>(gauss_matrix(1, 2, g));
  const Mp leaky = ref::error_form_step(M, k.row(0), v.row(0), mp_t(1), mp_t(0));
  const Vp zero(2, mp_t(0));
  double gap = 1e300;
  for (double e : {1.0, 1e10}) gap = std::min(gap, rel_res(ref::gdn_eq41_step(M, k.row(0), zero.data(), mp_t(0), mp_t(e)), leaky));
  ClaimResult rtr = rt.result(cfg, "D1 = beta in {1e-12,0.1,0.5,0.9,1} x lambda in {0,0.3,0.7,1-1e-12,1}; D2 = alpha in {1e-12,0.1,0.5,1} x eta in {1e-12,0.3,1}");
  std::vector<Part> parts = {{"round trips where defined", rtr}};
  ClaimResult def;
  const bool defined_everywhere = undefined.empty();
  def = predicate_result(cfg, "min relative gap (41) vs (37) at beta = lambda = 1 over eta in {1, 1e10}", defined_everywhere ? 0 : gap, identity_threshold(cfg.digits),
                         defined_everywhere, defined_everywhere ? "none" : undefined.front() + "; there (41) gives M_t = 0 for every eta while (37) gives beta v k^T - beta M k k^T",
                         static_cast<int>(std::size(betas) * std::size(lambdas)), "", "the forward map is defined on all of D1",
                         "the map is undefined at beta lambda = 1, a point of the paper's domain beta in (0,1], lambda in [0,1]: no (alpha, eta, v') reproduces that leaky-LMS step",
                         cfg.digits);
  parts.push_back({"map defined on the paper's domain D1", def, true, false});
  ClaimResult r = combine(cfg, "max relative round-trip residual", parts, "the map and its inverse are mutually inverse and defined on all of D1");
  r.evidence.extra.emplace_back("image of D1\\{beta lambda = 1} under the forward map (grid)", "alpha in [" + fmt(alpha_min) + ", " + fmt(alpha_max) + "], eta in [" +
                                                                                            fmt(eta_min) + ", " + fmt(eta_max) + "] (eta unbounded as beta lambda -> 1; not inside D2's eta <= 1)");
  r.evidence.extra.emplace_back("image of D2 under the inverse (grid)", "lambda in [" + fmt(lam_min) + ", " + fmt(lam_max) + "], beta in [" + fmt(beta_min) + ", " + fmt(beta_max) +
                                                                             "] (lambda leaves [0,1] when alpha eta < 1 - alpha)");
  r.evidence.extra.emplace_back("undefined points", "forward: beta lambda = 1 (alpha = 0); inverse: alpha = 0 or eta = 0 (beta = 0 maps to eta = 0: lambda not recoverable)");
  return r;
}

// A001-F09-GDN-CHUNK: GDN and leaky parameterisations of the chunk form vs the recurrences; the two Delta agree.
double f09_residual(const Inst& in, int gate_kind, u64 sd, unsigned d) {
  MpDigitsScope sc(d);
  const MpInst m = to_mp(in);
  Gauss g(sd);
  const std::size_t T = in.T;
  Vp lam(T), la(T), alpha(T), eta(T);
  Mp Vq(T, in.dv);
  bool gdn_ok = true;
  for (std::size_t t = 0; t < T; ++t) {
    double a;  // target alpha
    switch (gate_kind) {
      case 0: a = 0.5 + 0.5 * g.uniform(); break;
      case 1: a = 1.0; break;
      case 2: a = g.uniform() < 0.5 ? 1e-30 : g.uniform(); break;  // alpha -> 0^+
      default: a = g.uniform() < 0.3 ? 0.0 : g.uniform();            // exact zero gates (leaky form only)
    }
    // lambda = (1 - alpha)/beta so that 1 - beta lambda = alpha; beta = 0 -> alpha = 1
    alpha[t] = m.beta[t] == 0 ? mp_t(1) : mp_t(a);
    la[t] = ref::log_gate(alpha[t]);
    if (alpha[t] == 0) gdn_ok = false;
    eta[t] = alpha[t] == 0 ? mp_t(0) : mp_t(m.beta[t] / alpha[t]);
    for (std::size_t c = 0; c < in.dv; ++c) Vq(t, c) = alpha[t] * m.V(t, c);
  }
  double w = 0;
  const auto recT = ref::gated_delta_rule(m.Q, m.K, m.V, m.beta, la, ref::DecayPlacement::T, &m.M0);
  for (std::size_t C : {std::size_t(1), std::size_t(2), std::size_t(3), T}) {
    const auto chL = ref::delta_chunked(m.Q, m.K, m.V, m.beta, &la, ref::ChunkParam::leaky, C, &m.M0);
    w = std::max({w, rel_res(chL.O, recT.O), rel_res(chL.state, recT.state)});
    if (gdn_ok) {
      const auto recG = ref::gated_delta_rule(m.Q, m.K, Vq, eta, la, ref::DecayPlacement::G, &m.M0);
      const auto chG = ref::delta_chunked(m.Q, m.K, Vq, eta, &la, ref::ChunkParam::gdn, C, &m.M0);
      w = std::max({w, rel_res(chG.O, recG.O), rel_res(chG.state, recG.state), rel_res(chG.Delta, chL.Delta)});
    }
  }
  return w;
}
ClaimResult check_f09(const CheckConfig& cfg) {
  IdentityCheck c("max relative residual: chunk forms (GDN and leaky parameterisations, C = 1, 2, 3, T) vs recurrences (41)/(37); Delta_GDN vs Delta_leaky", cfg.digits);
  static const char* gk[4] = {"alpha~U(0.5,1)", "alpha=1", "alpha in {1e-30, U(0,1)}", "exact zero gates (leaky form)"};
  int n = 0;
  for_each_inst(cfg, 180, [&](const Inst& in) {
    for (int k = 0; k < 4; ++k) {
      const u64 sd = sub_seed(cfg.seed, 181, ++n);
      c.add(in.desc + " " + gk[k], [in, k, sd](unsigned d) { return f09_residual(in, k, sd, d); });
    }
  });
  return c.result(cfg, sizes_desc(cfg) + " x gates {U(0.5,1), 1, 1e-30 mixed, exact zeros}");
}

}  // namespace
}  // namespace recall

namespace recall {
namespace {

// =============================================================================================
// RLS family (P-scaled: residuals evaluated at d + 20 digits, or more with mu, P-50 threshold)
// =============================================================================================
// key generators: 0 G1 Gaussian; 1 G2 prescribed spectrum (log-uniform singular values in [1e-3, 1e1]); 2 G4 equicorrelated rho = 0.9
const char* kKeyGen[3] = {"G1 Gaussian", "G2 sigma log-uniform [1e-3,1e1]", "G4 equicorrelated rho=0.9"};
Matrix<double> rls_keys(std::size_t T, std::size_t dk, int gen, Gauss& g) {
  Matrix<double> K = gauss_matrix(T, dk, g);
  if (gen == 1) {
    // K = U diag(sigma) W^T with U (T x dk) and W (dk x dk) orthonormal (QR of Gaussians)
    Eigen::MatrixXd A(T, dk), B(dk, dk);
    for (std::size_t i = 0; i < T * dk; ++i) A.data()[i] = g.normal();
    for (std::size_t i = 0; i < dk * dk; ++i) B.data()[i] = g.normal();
    const Eigen::MatrixXd U = Eigen::HouseholderQR<Eigen::MatrixXd>(A).householderQ() * Eigen::MatrixXd::Identity(T, dk);
    const Eigen::MatrixXd W = Eigen::HouseholderQR<Eigen::MatrixXd>(B).householderQ();
    Eigen::VectorXd s(dk);
    for (std::size_t i = 0; i < dk; ++i) s(i) = std::pow(10.0, -3.0 + 4.0 * g.uniform());
    const Eigen::MatrixXd Kk = U * s.asDiagonal() * W.transpose();
    for (std::size_t i = 0; i < T; ++i)
      for (std::size_t j = 0; j < dk; ++j) K(i, j) = Kk(i, j);
  } else if (gen == 2) {
    for (std::size_t i = 0; i < T; ++i) {
      const double w = g.normal();
      for (std::size_t j = 0; j < dk; ++j) K(i, j) = std::sqrt(0.1) * K(i, j) + std::sqrt(0.9) * w;
    }
  }
  return K;
}
// gain form (a) vs batch at every t >= t0 (I1 start at t0 = D_k), and (b) gain vs matrix-step form.
struct RlsRes {
  double vs_batch = 0, gain_vs_matrix = 0;
};
RlsRes rls_item(std::size_t dk, std::size_t dv, std::size_t T, int gen, const std::vector<double>* gates, double mu, u64 sd, unsigned d) {
  // P-scaled digits: + 20, + 2 log10(1/mu) for the ridge start, + sum_t log10(1/gamma_t) (the spread of the
  // weights prod gamma bounds the growth of cond(S^G) and of P under the divisions by gamma)
  double spread = 0;
  if (gates)
    for (double gmm : *gates) spread += -std::log10(gmm);
  MpDigitsScope sc(d + 20 + (mu > 0 ? 2 * static_cast<unsigned>(std::max(0.0, -std::log10(mu))) : 0) + static_cast<unsigned>(std::ceil(spread)));
  Gauss g(sd);
  const Mp K = ref::cast<mp_t>(rls_keys(T, dk, gen, g)), V = ref::cast<mp_t>(gauss_matrix(T, dv, g)), Q = ref::cast<mp_t>(gauss_matrix(T, dk, g));
  Vp gam, lg;
  if (gates) {
    gam = ref::cast<mp_t>(*gates);
    lg.resize(T);
    for (std::size_t t = 0; t < T; ++t) lg[t] = ref::log_gate(gam[t]);
  }
  std::size_t t0;
  Mp P0, M0;
  if (mu > 0) {  // (I2) P0 = I/mu, M0 = 0
    t0 = 0;
    P0 = ref::eye<mp_t>(dk);
    for (auto& x : P0.a) x /= mp_t(mu);
    M0 = Mp(dv, dk);
  } else {  // (I1) exact batch start at t0 = D_k
    t0 = dk;
    Mp Sg(dk, dk), Rg(dv, dk);
    for (std::size_t i = 0; i < t0; ++i) {
      const mp_t w = gates ? ref::exp_log(ref::segment_log_sum(lg, i, t0 - 1)) : mp_t(1);
      ref::add_outer(Sg, w, K.row(i), K.row(i));
      ref::add_outer(Rg, w, V.row(i), K.row(i));
    }
    P0 = ref::solve(Sg, ref::eye<mp_t>(dk));
    M0 = ref::matmul(Rg, P0);
  }
  const Mp Qs = tail_rows(Q, t0), Ks = tail_rows(K, t0), Vs = tail_rows(V, t0);
  Vp gs;
  if (gates) gs.assign(gam.begin() + static_cast<long>(t0), gam.end());
  const auto a = ref::rls(Qs, Ks, Vs, P0, M0, gates ? &gs : nullptr);
  const auto b = ref::rls_matrix_step(Qs, Ks, Vs, P0, M0, gates ? &gs : nullptr);
  RlsRes r;
  r.gain_vs_matrix = std::max({rel_res(a.O, b.O), rel_res(a.M, b.M), rel_res(a.P, b.P)});
  Mp Ob(T - t0, dv);
  Mp Mlast;
  for (std::size_t t = t0 + 1; t <= T; ++t) {
    Mlast = ref::ridge_state(K, V, t, mp_t(mu > 0 ? mu : 0), gates ? &lg : nullptr);
    ref::matvec_into(Ob.row(t - t0 - 1), Mlast, Q.row(t - 1));
  }
  r.vs_batch = std::max(rel_res(a.O, Ob), rel_res(a.M, Mlast));
  return r;
}
ClaimResult check_rls(const CheckConfig& cfg) {
  IdentityCheck a("(a) max relative residual RLS(I1) vs batch Eq. (11), outputs at every t >= t0 and final state", cfg.digits),
      b("(b) max relative residual gain form vs matrix-step form (outputs, M, P)", cfg.digits);
  int n = 0;
  for (const Size3& s : sizes(cfg))
    for (int gen = 0; gen < 3; ++gen) {
      const u64 sd = sub_seed(cfg.seed, 200, ++n);
      const std::size_t T = s.T + s.dk;
      const std::string desc = sz(s.dk, s.dv, T) + " " + kKeyGen[gen] + " seed " + std::to_string(sd);
      a.add(desc, [=](unsigned d) { return rls_item(s.dk, s.dv, T, gen, nullptr, 0, sd, d).vs_batch; });
      b.add(desc, [=](unsigned d) { return rls_item(s.dk, s.dv, T, gen, nullptr, 0, sd, d).gain_vs_matrix; });
    }
  std::vector<Part> parts = {{"(a) RLS = batch LS", a.result(cfg, "G1/G2/G4 keys, (D_k,D_v) of the G1 grid, T = t + D_k, digits d + 20 (P-scaled)")},
                             {"(b) gain = matrix-step form", b.result(cfg, "")}};
  ClaimResult r = combine(cfg, "max relative residual RLS (Woodbury) vs batch LS / matrix-step form", parts,
                          "the Woodbury recursion from the exact batch start reproduces the batch LS solution at every t, and the gain and matrix-step forms agree");
  // (d) G8 long streams in fp64: symmetry loss, lambda_min(P), drift vs batch
  const std::size_t T = cfg.quick ? 2000 : 100000, dk = 4, dv = 2;
  std::string d8;
  for (int kind = 0; kind < 2; ++kind) {
    Gauss g(sub_seed(cfg.seed, 201, kind));
    Matrix<double> K(T, dk), V = gauss_matrix(T, dv, g), Q = gauss_matrix(T, dk, g);
    for (std::size_t t = 0; t < T; ++t) {
      const double th = 1e-3 * static_cast<double>(t);
      for (std::size_t j = 0; j < dk; ++j) K(t, j) = kind == 0 ? (j < 2 ? g.normal() : 1e-4 * g.normal())                    // nearly low-rank
                                                                : std::cos(th + j) + 0.01 * g.normal();  // slowly rotating
    }
    Matrix<double> S(dk, dk), R(dv, dk);
    for (std::size_t i = 0; i < dk; ++i) {
      ref::add_outer(S, K.row(i), K.row(i));
      ref::add_outer(R, V.row(i), K.row(i));
    }
    const Matrix<double> P0 = ref::solve(S, ref::eye<double>(dk)), M0 = ref::matmul(R, P0);
    const auto rr = ref::rls(tail_rows(Q, dk), tail_rows(K, dk), tail_rows(V, dk), P0, M0);
    Eigen::MatrixXd P(dk, dk);
    for (std::size_t i = 0; i < dk * dk; ++i) P.data()[i] = rr.P.a[i];
    const double asym = (P - P.transpose()).norm() / P.norm();
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(0.5 * (P + P.transpose()), Eigen::EigenvaluesOnly);
    // batch in long double
    Matrix<long double> Sl(dk, dk), Rl(dv, dk);
    const Matrix<long double> Kl = ref::cast<long double>(K), Vl = ref::cast<long double>(V);
    for (std::size_t i = 0; i < T; ++i) {
      ref::add_outer(Sl, Kl.row(i), Kl.row(i));
      ref::add_outer(Rl, Vl.row(i), Kl.row(i));
    }
    const Matrix<long double> Mb = ref::right_solve(Rl, Sl);
    double drift = 0, nb = 0;
    for (std::size_t i = 0; i < Mb.a.size(); ++i) {
      drift += std::pow(static_cast<double>(Mb.a[i]) - rr.M.a[i], 2);
      nb += std::pow(static_cast<double>(Mb.a[i]), 2);
    }
    d8 += (d8.empty() ? "" : "; ") + std::string(kind == 0 ? "nearly low-rank keys" : "slowly rotating keys") + ": ||P - P^T||/||P|| = " + fmt(asym) +
          ", lambda_min(P) = " + fmt(es.eigenvalues()(0)) + ", relative drift vs batch = " + fmt(std::sqrt(drift / nb));
  }
  r.evidence.extra.emplace_back("(d) G8 fp64 RLS over T = " + std::to_string(T) + " (D_k=4): symmetry, PSD, drift", d8);
  return r;
}
ClaimResult check_rls_ridge_init(const CheckConfig& cfg) {
  IdentityCheck c("max relative residual RLS(P0 = I/mu, M0 = 0) vs R_t (S_t + mu I)^{-1}, outputs at every t and final state", cfg.digits);
  int n = 0;
  for (const Size3& s : sizes(cfg))
    for (double mu : {1e-30, 1e-6, 1.0, 1e3})
      for (int gen = 0; gen < 3; ++gen) {
        const u64 sd = sub_seed(cfg.seed, 210, ++n);
        const std::string desc = sz(s.dk, s.dv, s.T) + " mu=" + fmt(mu) + " " + kKeyGen[gen] + " seed " + std::to_string(sd);
        c.add(desc, [=](unsigned d) { return rls_item(s.dk, s.dv, s.T, gen, nullptr, mu, sd, d).vs_batch; });
      }
  return c.result(cfg, "G1 grid sizes x mu in {1e-30,1e-6,1,1e3} x G1/G2/G4 keys (t from 1, incl. t < D_k); digits d + 20 + 2 log10(1/mu)");
}
ClaimResult check_wrls(const CheckConfig& cfg) {
  IdentityCheck i1("(I1) max relative residual weighted RLS vs batch WLS (15) at every t >= t0", cfg.digits),
      i2("(I2) max relative residual weighted RLS(P0 = I/mu) vs R^G (S^G + mu prod gamma I)^{-1}", cfg.digits),
      gk("max relative residual g_t = P_t k_t (gain vs matrix-step form)", cfg.digits);
  static const char* gn[4] = {"U(0.05,1)", "Beta(5,1)", "const 0.9", "mixed {1, 1e-3, U(0,1)}"};
  int n = 0;
  for (const Size3& s : sizes(cfg))
    for (int pat = 0; pat < 4; ++pat) {
      const u64 sd = sub_seed(cfg.seed, 220, ++n);
      const std::size_t T = s.T + s.dk;
      Gauss g(sd ^ 0x5555);
      std::vector<double> gates(T);
      for (double& x : gates) {
        const double u = g.uniform();
        x = pat == 0 ? 0.05 + 0.95 * u : pat == 1 ? std::pow(u, 0.2) : pat == 2 ? 0.9 : (u < 0.3 ? 1.0 : u < 0.5 ? 1e-3 : g.uniform());
      }
      const int gen = n % 3;
      const std::string desc = sz(s.dk, s.dv, T) + " gates " + gn[pat] + " " + kKeyGen[gen] + " seed " + std::to_string(sd);
      i1.add(desc, [=](unsigned d) { return rls_item(s.dk, s.dv, T, gen, &gates, 0, sd, d).vs_batch; });
      for (double mu : {1e-3, 1.0}) i2.add(desc + " mu=" + fmt(mu), [=](unsigned d) { return rls_item(s.dk, s.dv, T, gen, &gates, mu, sd, d).vs_batch; });
      gk.add(desc, [=](unsigned d) { return rls_item(s.dk, s.dv, T, gen, &gates, 0, sd, d).gain_vs_matrix; });
    }
  std::vector<Part> parts = {{"(I1) = batch WLS (15)", i1.result(cfg, "G1 grid sizes (T = t + D_k) x G5 gates in (0,1] x G1/G2/G4 keys; digits d + 20 + sum log10(1/gamma) (P-scaled)")},
                             {"(I2) = decaying-ridge closed form", i2.result(cfg, "")},
                             {"g_t = P_t k_t", gk.result(cfg, "")}};
  return combine(cfg, "max relative residual weighted RLS vs batch / decaying-ridge closed form", parts,
                 "weighted RLS reproduces WLS (15) from the exact start and R^G (S^G + mu prod gamma I)^{-1} from P0 = I/mu; g_t = P_t k_t");
}
// A001-RIDGE-LIMIT: mu = 10^-k -> min-norm LS solution, error O(mu) (fitted slope).
ClaimResult check_ridge_limit(const CheckConfig& cfg) {
  struct Case {
    std::size_t t, dk, r;
    const char* name;
  };
  const std::vector<Case> cases = {{2, 4, 2, "t < D_k (min-norm branch)"}, {7, 3, 3, "t > D_k (full column rank)"}, {5, 4, 2, "rank 2 < min(t, D_k) (G2 rank-deficient)"},
                                   {6, 3, 3, "t > D_k with exact duplicate keys (G3)"}};
  const int kmax = cfg.quick ? 24 : 40;
  int bad = 0, n = 0;
  double worst_final = 0, slo = 1e9, shi = -1e9;
  std::string w, curves;
  for (const Case& c : cases) {
    const u64 sd = sub_seed(cfg.seed, 230, ++n);
    Gauss g(sd);
    Matrix<double> A = gauss_matrix(c.t, c.r, g), B = gauss_matrix(c.r, c.dk, g);
    if (c.r == c.t) B = gauss_matrix(c.t, c.dk, g), A = ref::eye<double>(c.t);
    if (c.r == c.dk && c.t > c.dk) B = ref::eye<double>(c.dk);
    if (n == 4)
      for (std::size_t j = 0; j < c.r; ++j) A(1, j) = A(0, j), A(4, j) = A(2, j);  // duplicate keys rows 2 = 1, 5 = 3
    const Matrix<double> Vd = gauss_matrix(c.t, 2, g);
    std::vector<double> lx, ly;
    double fin = 0;
    for (int k = 1; k <= kmax; ++k) {
      MpDigitsScope sc(30 + static_cast<unsigned>(k) + 20);
      const Mp Am = ref::cast<mp_t>(A), Bm = ref::cast<mp_t>(B), V = ref::cast<mp_t>(Vd);
      const Mp K = ref::matmul(Am, Bm);
      const Mp Mls = ref::min_norm_ls_state(Am, Bm, V);
      const Mp Mr = ref::ridge_state(K, V, c.t, mp_t(pow10_mp(-k)));
      fin = rel_res(Mr, Mls);
      lx.push_back(-k);
      ly.push_back(std::log10(fin));
    }
    std::vector<double> x2(lx.begin() + 3, lx.end()), y2(ly.begin() + 3, ly.end());
    const double sl = ols_slope(x2, y2);
    slo = std::min(slo, sl);
    shi = std::max(shi, sl);
    worst_final = std::max(worst_final, fin);
    curves += (curves.empty() ? "" : "; ") + (std::string(c.name) + ": slope " + fmt(sl, 4) + ", error at mu=1e-1/1e-10/1e-" + std::to_string(kmax) + " = " + fmt(std::pow(10.0, ly[0])) + "/" +
                                              fmt(std::pow(10.0, ly[9])) + "/" + fmt(fin));
    if ((std::abs(sl - 1) > 0.05 || !(fin < std::pow(10.0, -kmax + 5))) && !bad++) w = std::string(c.name) + " seed " + std::to_string(sd) + ": slope " + fmt(sl, 4);
  }
  ClaimResult r = predicate_result(cfg, "relative ||R(S + mu I)^{-1} - V^T (K^+)^T|| at mu = 1e-" + std::to_string(kmax) + " (worst case)", worst_final,
                                   std::pow(10.0, -kmax + 5), bad == 0, w.empty() ? "none" : w, n,
                                   "mu = 10^-k, k = 1.." + std::to_string(kmax) + ", digits 50 + k; t < D_k, t > D_k, rank-deficient, duplicate keys",
                                   "the ridge solution converges to the min-norm LS solution with error O(mu) (fitted slope within 0.05 of 1) in every case",
                                   "the limit or its O(mu) rate fails", cfg.digits);
  r.evidence.extra.emplace_back("fitted slope of log10 error vs log10 mu (k >= 4), range", fmt(slo, 4) + " .. " + fmt(shi, 4));
  r.evidence.extra.emplace_back("per case", curves);
  return r;
}

}  // namespace
}  // namespace recall

namespace recall {
namespace {

// =============================================================================================
// A001-SGD-RECENCY: (a) repeated-key probe coefficients; (b) influence-profile slopes with bootstrap CIs (fp64)
// =============================================================================================
std::string recency_probe(const CheckConfig& cfg) {
  const std::size_t dk = 4, dv = 3;
  Gauss g(sub_seed(cfg.seed, 240));
  // key k (unit), fillers spanning k-perp (orthonormal complement), values a, b, filler values
  Eigen::MatrixXd Z(dk, dk);
  for (std::size_t i = 0; i < dk * dk; ++i) Z.data()[i] = g.normal();
  const Eigen::MatrixXd U = Eigen::HouseholderQR<Eigen::MatrixXd>(Z).householderQ();
  const std::size_t T = dk + 1;
  Matrix<double> K(T, dk), V = gauss_matrix(T, dv, g);
  for (std::size_t j = 0; j < dk; ++j) {
    K(0, j) = U(j, 0);
    K(T - 1, j) = U(j, 0);
    for (std::size_t f = 1; f < dk; ++f) K(f, j) = U(j, f);
  }
  Eigen::MatrixXd AB(dv, 2);
  for (std::size_t c = 0; c < dv; ++c) AB(c, 0) = V(0, c), AB(c, 1) = V(T - 1, c);
  auto coeffs = [&](const Matrix<double>& M) {
    const auto y = ref::matvec(M, K.row(0));
    Eigen::VectorXd yy(dv);
    for (std::size_t c = 0; c < dv; ++c) yy(c) = y[c];
    const Eigen::Vector2d cab = AB.colPivHouseholderQr().solve(yy);
    return "(" + fmt(cab(0)) + ", " + fmt(cab(1)) + ")";
  };
  const Matrix<double> Q = K;
  std::string out;
  auto add = [&](const std::string& nm, const Matrix<double>& M) { out += (out.empty() ? "" : "; ") + nm + " " + coeffs(M); };
  for (double c : {1.0, 0.5, g.uniform()}) add("DeltaNet beta|k|^2=" + fmt(c), ref::delta_rule(Q, K, V, std::vector<double>(T, c)).state);
  add("NLMS", ref::nlms(Q, K, V).state);
  add("Longhorn delta=1", ref::longhorn(Q, K, V, std::vector<double>(T, 1.0)).state);
  add("linear attention", ref::linear_attention(Q, K, V).state);
  add("LS (pseudo-inverse)", ref::ridge_state(K, V, T, 0.0));
  std::vector<double> lg(T, std::log(0.9));
  add("gated LA gamma=0.9", ref::gated_linear_attention(Q, K, V, lg).state);
  add("WLS gamma=0.9", ref::ridge_state(K, V, T, 0.0, &lg));
  return out;
}
ClaimResult check_sgd_recency(const CheckConfig& cfg) {
  const int nstreams = cfg.quick ? 200 : 1000, B = 2000;  // spec: >= 200 streams
  const std::size_t T = 64, dk = 8;
  static const char* names[5] = {"DeltaNet beta=0.5", "NLMS", "Longhorn delta=1", "LS (unweighted)", "linear attention"};
  std::vector<std::vector<double>> slopes(5);
  std::vector<double> xs(T);
  for (std::size_t i = 0; i < T; ++i) xs[i] = static_cast<double>(i + 1);
  for (int s = 0; s < nstreams; ++s) {
    Gauss g(sub_seed(cfg.seed, 241, s));
    const bool g4 = s % 2 == 1;  // G4 equicorrelated rho = 0.5 for odd streams
    Matrix<double> K = gauss_matrix(T, dk, g, 1.0 / std::sqrt(static_cast<double>(dk)));
    if (g4)
      for (std::size_t i = 0; i < T; ++i) {
        const double w = g.normal() / std::sqrt(static_cast<double>(dk));
        for (std::size_t j = 0; j < dk; ++j) K(i, j) = std::sqrt(0.5) * K(i, j) + std::sqrt(0.5) * w;
      }
    std::vector<double> q(dk);
    for (double& x : q) x = g.normal();
    // influence |d y_T / d v_i| = |beta_i k_i^T F_{i+1} ... F_T q| for the delta-rule family
    for (int rule = 0; rule < 3; ++rule) {
      std::vector<double> beta(T);
      for (std::size_t i = 0; i < T; ++i) {
        const double kk = std::pow(dnorm(K.row(i), dk), 2);
        beta[i] = rule == 0 ? 0.5 : rule == 1 ? 1.0 / kk : 1.0 / (1.0 + kk);
      }
      std::vector<double> w = q, infl(T);
      for (std::size_t i = T; i-- > 0;) {
        infl[i] = std::log(std::abs(beta[i] * ref::dot(K.row(i), w.data(), dk)));
        const double kw = ref::dot(K.row(i), w.data(), dk);
        for (std::size_t j = 0; j < dk; ++j) w[j] -= beta[i] * kw * K(i, j);  // w <- F_i w
      }
      slopes[rule].push_back(ols_slope(xs, infl));
    }
    // LS: |k_i^T S^{-1} q|; LA: |k_i^T q|
    Matrix<double> S(dk, dk), qm(dk, 1);
    for (std::size_t i = 0; i < T; ++i) ref::add_outer(S, K.row(i), K.row(i));
    for (std::size_t j = 0; j < dk; ++j) qm(j, 0) = q[j];
    const Matrix<double> z = ref::solve(S, qm);
    std::vector<double> ls(T), la(T);
    for (std::size_t i = 0; i < T; ++i) {
      ls[i] = std::log(std::abs(ref::dot(K.row(i), z.a.data(), dk)));
      la[i] = std::log(std::abs(ref::dot(K.row(i), q.data(), dk)));
    }
    slopes[3].push_back(ols_slope(xs, ls));
    slopes[4].push_back(ols_slope(xs, la));
  }
  bool ok = true, opposite = false;
  std::string summary, w;
  double worst_lo = 1e300;
  for (int r = 0; r < 5; ++r) {
    const Ci ci = bootstrap_mean_ci(slopes[r], sub_seed(cfg.seed, 242, r), B);
    summary += (summary.empty() ? "" : "; ") + (std::string(names[r]) + " " + fmt_ci(ci));
    if (r < 3) {
      worst_lo = std::min(worst_lo, ci.lo);
      if (!(ci.lo > 0)) {
        ok = false;
        if (ci.hi < 0) opposite = true;
        if (w.empty()) w = std::string(names[r]) + " slope CI " + fmt_ci(ci);
      }
    } else if (!(ci.lo <= 0 && ci.hi >= 0)) {
      ok = false;
      opposite = true;
      if (w.empty()) w = std::string(names[r]) + " slope CI " + fmt_ci(ci) + " excludes 0";
    }
  }
  ClaimResult r;
  r.verdict = ok ? Verdict::holds : opposite ? Verdict::violated : Verdict::inconclusive;
  r.reason = ok ? "SGD layers' influence grows with recency (slope CI > 0) and unweighted LS / LA are uniform (CI contains 0)"
                : opposite ? "a CI lies on the opposite side of the claim" : "a CI straddles the boundary";
  Evidence& e = r.evidence;
  e.statistic = "lowest lower 95% CI end of the slope of log influence vs position over the SGD layers";
  e.value = worst_lo;
  e.threshold = 0;
  e.witness = w.empty() ? "none" : w;
  e.instances = nstreams;
  e.sizes = "T=64, D_k=8, keys N(0, I/D_k) (G1) and equicorrelated rho=0.5 (G4), alternating; 95% percentile bootstrap (B=" + std::to_string(B) + ")";
  e.seed = cfg.seed;
  e.extra.emplace_back("(b) slope of log|dy_T/dv_i| vs i, mean [95% CI]", summary);
  e.extra.emplace_back("(a) repeated-key probe (k, a), fillers orthogonal to k, (k, b): y = c_a a + c_b b, (c_a, c_b)", recency_probe(cfg));
  return r;
}

// =============================================================================================
// A001-TTT / A001-EQ13-TTT
// =============================================================================================
struct TttData {
  std::size_t d, h, T;
  Matrix<double> Q, K, V, W1, W2;
  std::vector<double> beta;
};
TttData make_ttt(std::size_t d, std::size_t h, std::size_t T, bool mlp, u64 sd) {
  Gauss g(sd);
  TttData x{d, h, T, gauss_matrix(T, d, g), gauss_matrix(T, d, g), gauss_matrix(T, d, g),
            mlp ? gauss_matrix(h, d, g, 1.0 / std::sqrt(static_cast<double>(d))) : gauss_matrix(d, d, g, 1.0 / std::sqrt(static_cast<double>(d))),
            mlp ? gauss_matrix(d, h, g, 1.0 / std::sqrt(static_cast<double>(h))) : Matrix<double>(), std::vector<double>(T)};
  for (double& b : x.beta) b = 0.5 * g.uniform();
  return x;
}
// Central differences (L(W + h e_a) - L(W - h e_a)) / 2h of the half TTT loss L at the pair (k, v) in
// every entry of th.W1 (which == 0) or th.W2, written to G (of W's shape).
void ttt_central_diff(ref::TttParams<mp_t>& th, int which, const mp_t* k, const mp_t* v, std::size_t d, const ref::TttConfig& c,
                      const mp_t& h, Mp& G) {
  Mp& W = which == 0 ? th.W1 : th.W2;
  for (std::size_t a = 0; a < W.a.size(); ++a) {
    const mp_t keep = W.a[a];
    W.a[a] = keep + h;
    const mp_t fp = ref::ttt_loss_half(th, k, v, d, c);
    W.a[a] = keep - h;
    const mp_t fm = ref::ttt_loss_half(th, k, v, d, c);
    W.a[a] = keep;
    G.a[a] = (fp - fm) / (mp_t(2) * h);
  }
}
// online SGD step theta <- theta - beta g
void ttt_step(ref::TttParams<mp_t>& th, const ref::TttParams<mp_t>& g, const mp_t& b) {
  for (std::size_t a = 0; a < th.W1.a.size(); ++a) th.W1.a[a] -= b * g.W1.a[a];
  for (std::size_t a = 0; a < th.W2.a.size(); ++a) th.W2.a[a] -= b * g.W2.a[a];
}
// hand gradient vs central differences (at 3 d digits with h = 10^-d: error O(10^-2d)); largest relative residual
// over the parameter states visited by the online SGD run.
double ttt_grad_residual(const TttData& x, const ref::TttConfig& c, unsigned d) {
  MpDigitsScope sc(3 * d);
  ref::TttParams<mp_t> th{ref::cast<mp_t>(x.W1), ref::cast<mp_t>(x.W2)};
  const Mp K = ref::cast<mp_t>(x.K), V = ref::cast<mp_t>(x.V);
  const mp_t h = pow10_mp(-static_cast<int>(d));
  double w = 0;
  for (std::size_t t = 0; t < x.T; ++t) {
    const auto gh = ref::ttt_grad_hand(th, K.row(t), V.row(t), x.d, c);
    for (int which = 0; which < (c.mlp ? 2 : 1); ++which) {
      const Mp& G = which == 0 ? gh.W1 : gh.W2;
      const Mp& W = which == 0 ? th.W1 : th.W2;
      Mp F(W.rows, W.cols);
      ttt_central_diff(th, which, K.row(t), V.row(t), x.d, c, h, F);
      w = std::max(w, rel_res(G, F));
    }
    ttt_step(th, gh, mp_t(x.beta[t]));
  }
  return w;
}
// Run a whole TTT sequence with a gradient oracle (hand or central difference); outputs y_t = f_theta_t(q_t).
Mp ttt_run(const TttData& x, const ref::TttConfig& c, bool use_fd, unsigned d) {
  const Mp Q = ref::cast<mp_t>(x.Q), K = ref::cast<mp_t>(x.K), V = ref::cast<mp_t>(x.V);
  ref::TttParams<mp_t> th{ref::cast<mp_t>(x.W1), ref::cast<mp_t>(x.W2)};
  const mp_t h = pow10_mp(-static_cast<int>(d) / 3);
  Mp O(x.T, x.d);
  for (std::size_t t = 0; t < x.T; ++t) {
    ref::TttParams<mp_t> g = ref::ttt_grad_hand(th, K.row(t), V.row(t), x.d, c);
    if (use_fd)
      for (int which = 0; which < (c.mlp ? 2 : 1); ++which) ttt_central_diff(th, which, K.row(t), V.row(t), x.d, c, h, which == 0 ? g.W1 : g.W2);
    ttt_step(th, g, mp_t(x.beta[t]));
    const auto fo = ref::ttt_forward(th, Q.row(t), x.d, c);
    for (std::size_t j = 0; j < x.d; ++j) O(t, j) = fo.f[j];
  }
  return O;
}
// with residual and LN removed (f(k) = W k): the TTT update equals (29) (ref::delta_rule) and ref::ttt_linear (online, eta = beta/2, loss without 1/2)
double ttt_reduction_residual(const TttData& x, unsigned d) {
  MpDigitsScope sc(d);
  const ref::TttConfig c{false, false, false, 0.0};
  const Mp Q = ref::cast<mp_t>(x.Q), K = ref::cast<mp_t>(x.K), V = ref::cast<mp_t>(x.V), W0 = ref::cast<mp_t>(x.W1);
  const mp_t b0(x.beta[0]);
  const auto dn = ref::delta_rule(Q, K, V, Vp(x.T, b0), &W0);
  const auto tt = ref::ttt_linear(Q, K, V, mp_t(b0 / mp_t(2)), W0, ref::TttRule::online);
  // ttt_run uses per-token beta; compare with constant beta by rerunning with beta_t = beta_1
  TttData xc = x;
  for (double& b : xc.beta) b = x.beta[0];
  const Mp Oc = ttt_run(xc, c, false, d);
  return std::max(rel_res(Oc, dn.O), rel_res(tt.Z, dn.O));
}
ClaimResult ttt_grad_part(const CheckConfig& cfg) {
  IdentityCheck c("max relative residual hand gradient vs central differences (3d digits, h = 10^-d), along the SGD path", cfg.digits);
  int n = 0;
  for (bool mlp : {false, true})
    for (bool ln : {true, false})
      for (std::size_t d : {2, 3, 4}) {
        const std::size_t h = d + 1, T = cfg.quick ? 3 : 8;
        const u64 sd = sub_seed(cfg.seed, 250, ++n);
        const TttData x = make_ttt(d, h, T, mlp, sd);
        const ref::TttConfig tc{mlp, true, ln, 1e-6};
        c.add(std::string(mlp ? "TTT-MLP" : "TTT-Linear") + (ln ? " with LN" : " without LN") + " D=" + std::to_string(d) + (mlp ? " hidden=" + std::to_string(h) : "") +
                  " T=" + std::to_string(T) + " seed " + std::to_string(sd),
              [x, tc](unsigned dg) { return ttt_grad_residual(x, tc, dg); });
      }
  return c.result(cfg, "TTT-Linear / TTT-MLP (GELU), with and without LN (eps = 1e-6), D in {2,3,4}");
}
ClaimResult ttt_reduction_part(const CheckConfig& cfg) {
  IdentityCheck c("max relative residual: TTT with f(k) = W k vs (29) (ref delta_rule) and ref ttt_linear (online, eta = beta/2)", cfg.digits);
  int n = 0;
  for (std::size_t d : {1, 2, 3, 4}) {
    const u64 sd = sub_seed(cfg.seed, 251, ++n);
    const TttData x = make_ttt(d, 0, 6, false, sd);
    c.add("D=" + std::to_string(d) + " T=6 seed " + std::to_string(sd), [x](unsigned dg) { return ttt_reduction_residual(x, dg); });
  }
  return c.result(cfg, "D in {1,2,3,4}, T = 6, constant beta");
}
ClaimResult check_ttt(const CheckConfig& cfg) {
  std::vector<Part> parts = {{"hand gradients = finite differences", ttt_grad_part(cfg)}, {"f(k) = W k reduces to (29)", ttt_reduction_part(cfg)}};
  return combine(cfg, "max relative residual: hand gradients vs MP central differences; linear reduction vs (29)", parts,
                 "hand-written TTT-Linear / TTT-MLP gradients match MP central differences and the linear memory without LN/residual is the delta rule (29)");
}
ClaimResult eq13_sequence_part(const CheckConfig& cfg) {
  IdentityCheck c("max relative residual of outputs y_t: SGD with hand gradient vs SGD with MP central-difference gradient (whole sequences)", cfg.digits);
  int n = 0;
  for (bool mlp : {false, true})
    for (std::size_t d : {2, 3}) {
      const u64 sd = sub_seed(cfg.seed, 260, ++n);
      const TttData x = make_ttt(d, d + 1, cfg.quick ? 4 : 10, mlp, sd);
      const ref::TttConfig tc{mlp, true, true, 1e-6};
      c.add(std::string(mlp ? "TTT-MLP" : "TTT-Linear") + " with LN D=" + std::to_string(d) + " seed " + std::to_string(sd), [x, tc](unsigned dg) {
        // the FD oracle runs at 3 d digits (h = 10^-d, error O(10^-2d)); the hand-gradient run at the same digits
        MpDigitsScope sc(3 * dg);
        return rel_res(ttt_run(x, tc, false, 3 * dg), ttt_run(x, tc, true, 3 * dg));
      });
    }
  return c.result(cfg, "TTT-Linear / TTT-MLP with LN, D in {2,3}");
}

}  // namespace
}  // namespace recall

namespace recall {
namespace {

// =============================================================================================
// equivalence-table rows EQ08-EQ13: each row's value is its worst identity residual (statistic names it);
// every component's verdict, residual and witness is listed in Evidence.extra.
// =============================================================================================
std::string deltanet_stationarity(const CheckConfig& cfg) {
  std::vector<double> ratios;
  const int n = cfg.quick ? 20 : 200;
  for (int s = 0; s < n; ++s) {
    Gauss g(sub_seed(cfg.seed, 270, s));
    const std::size_t dk = 4, dv = 2, T = 16;
    const Matrix<double> K = gauss_matrix(T, dk, g, 0.5), V = gauss_matrix(T, dv, g);
    std::vector<double> beta(T);
    for (std::size_t t = 0; t < T; ++t) beta[t] = g.uniform() / std::pow(dnorm(K.row(t), dk), 2);
    const auto r = ref::delta_rule(K, K, V, beta);
    ratios.push_back(ref::frob(ref::prefix_loss_grad(r.state, K, V, T)) / ref::frob(ref::prefix_loss_grad(Matrix<double>(dv, dk), K, V, T)));
  }
  std::sort(ratios.begin(), ratios.end());
  return "min " + fmt(ratios.front()) + ", median " + fmt(ratios[ratios.size() / 2]) + ", max " + fmt(ratios.back()) + " over " + std::to_string(n) +
         " G1 streams (D_k=4, D_v=2, T=16, beta|k|^2~U(0,1)); 0 would mean M_t is a stationary point of the unweighted prefix objective";
}
ClaimResult check_eq08(const CheckConfig& cfg) {
  std::vector<Part> parts = {{"A001-DELTANET-AS-SGD (SGD step on L_t at M_{t-1} = (5) = (6))", check_deltanet_as_sgd(cfg)},
                             {"A001-DELTANET-DEF ((5) = (6))", check_deltanet_def(cfg)},
                             {"A001-SGD-LAYER (lines 26-28)", check_sgd_layer(cfg)},
                             {"A001-F08-DELTANET-CHUNK (closed / chunk forms)", check_f08(cfg)},
                             {"A001-SGD-RECENCY (statistical, reported)", check_sgd_recency(cfg), false, false}};
  ClaimResult r = combine(cfg, "EQ08 residual: max relative residual of (6) vs one warm-started SGD step on L_t (and the identity components)", parts,
                          "DeltaNet (6) = one warm-started SGD step on L_t (29), with (5), lines (26)-(28) and the closed/chunk forms");
  r.evidence.extra.emplace_back("row-specific (descriptive): ||grad L_t(M_t)||_F / ||grad L_t(0)||_F for the DeltaNet state", deltanet_stationarity(cfg));
  return r;
}
ClaimResult check_eq09(const CheckConfig& cfg) {
  std::vector<Part> parts = {{"A001-LONGHORN ((31) = argmin (30))", check_longhorn(cfg)},
                             {"A001-LONGHORN-AS-SGD ((31) = SGD with beta = delta/(1 + delta|k|^2))", check_longhorn_as_sgd(cfg)},
                             {"A001-ONLINE-LEARNER-TEMPLATE (optimality)", check_online_template(cfg)},
                             {"A001-LONGHORN-LIMITS (delta = 0, delta -> inf)", check_longhorn_limits(cfg), true, false},
                             {"A001-LONGHORN-GLOBAL-OBJECTIVE (reading G1)", check_longhorn_global(cfg), true, false}};
  return combine(cfg, "EQ09 residual: max relative residual of (31) vs argmin of (30) and vs the SGD step", parts,
                 "(31) = argmin of (30) = SGD step with beta = delta/(1 + delta|k|^2); limits and template conditions hold");
}
ClaimResult check_eq10(const CheckConfig& cfg) {
  std::vector<Part> parts = {{"A001-NLMS ((33) = argmin of (32))", check_nlms(cfg)},
                             {"A001-NLMS-KACZMARZ", check_nlms_kaczmarz(cfg)},
                             {"A001-LONGHORN-LIMITS (NLMS = delta -> inf of Longhorn)", check_longhorn_limits(cfg), true, false}};
  return combine(cfg, "EQ10 residual: max relative residual of (33) vs the constrained minimiser (32) / Kaczmarz projection", parts,
                 "(33) = argmin of (32) = SGD with beta = 1/|k|^2 = Kaczmarz projection = delta -> inf limit of Longhorn");
}
ClaimResult check_eq11(const CheckConfig& cfg) {
  std::vector<Part> parts = {{"A001-LEAKY-LMS ((35) = (36) = (37) = SGD step on term t of (34))", check_leaky(cfg)},
                             {"A001-L2REG-OBJECTIVE (gradient of the per-step term)", check_l2reg(cfg)}};
  return combine(cfg, "EQ11 residual: max relative residual of (37) vs one SGD step on the t-th term of (34)", parts,
                 "(37) = (35) = (36) = one SGD step on L_t + lambda_t/2 ||M||_F^2");
}
ClaimResult check_eq12(const CheckConfig& cfg) {
  std::vector<Part> parts = {{"A001-GATED-DELTANET-REPARAM ((38) = (39) = (40) = (41))", check_gdn_reparam(cfg)},
                             {"A001-F09-GDN-CHUNK (chunk forms)", check_f09(cfg)},
                             {"A001-GDN-MAP-INVERTIBLE", check_gdn_map(cfg), true, false}};
  ClaimResult r = combine(cfg,
                          "EQ12 residual: max relative residual of (41) vs leaky LMS (37) under (alpha, eta, v'); at beta lambda = 1, where the map is "
                          "undefined, the smallest gap over eta",
                          parts, "(41) = leaky LMS under the map, which is invertible on the paper's domain");
  double defined = 0;
  for (int i = 0; i < 2; ++i) defined = std::max(defined, parts[i].r.evidence.value);
  r.evidence.extra.emplace_back("residual of (41) vs (37) where the map is defined (beta lambda < 1; REPARAM and F09 worst)", fmt(defined));
  return r;
}
ClaimResult check_eq13(const CheckConfig& cfg) {
  std::vector<Part> parts = {{"A001-TTT", check_ttt(cfg)}, {"row-specific: TTT update = one SGD step on the per-token loss (whole sequences)", eq13_sequence_part(cfg)}};
  return combine(cfg, "EQ13 residual: max relative residual of the TTT update vs one SGD step on the per-token loss (MP central differences)", parts,
                 "the TTT layer (per-token online version) is SGD on the per-token loss of a nonlinear memory; the linear case is (29)");
}

}  // namespace

void register_t2_a001_claims(Ledger& l) {
  using namespace check_class;
  l.add({"A001-DELTANET-DEF", "DeltaNet: Eq. (5) = Eq. (6); non-expansive iff 0 <= beta|k|^2 <= 2", identity, false, check_deltanet_def});
  l.add({"A001-ONLINE-LEARNER-TEMPLATE", "Online-learner template (7): Longhorn and NLMS closed forms are the minimisers", identity, false, check_online_template});
  l.add({"A001-RLS", "RLS (Woodbury) reproduces batch LS; gain and matrix-step forms", identity, false, check_rls});
  l.add({"A001-RLS-RIDGE-INIT", "RLS with P0 = I/mu is ridge regression [derived]", identity, false, check_rls_ridge_init});
  l.add({"A001-RIDGE-LIMIT", "Ridgeless limit of the ridge solution, O(mu) [derived]", inequality, false, check_ridge_limit});
  l.add({"A001-WRLS", "Weighted RLS reproduces WLS and the decaying-ridge form", identity, false, check_wrls});
  l.add({"A001-SGD-LAYER", "Single-example SGD: the three printed lines agree", identity, false, check_sgd_layer});
  l.add({"A001-DELTANET-AS-SGD", "DeltaNet is one warm-started SGD step (29)", identity, false, check_deltanet_as_sgd});
  l.add({"A001-SGD-RECENCY", "SGD layers focus on recent pairs; LS / LA uniform", statistical, false, check_sgd_recency});
  l.add({"A001-MULTISTEP-SGD", "I SGD steps on one pair = one step with beta_eff [derived]", identity, false, check_multistep});
  l.add({"A001-DELTAPRODUCT", "DeltaProduct micro-steps: multi-step and ordered-product closed forms [external]", identity, true, check_deltaproduct});
  l.add({"A001-TTT", "TTT layers: hand gradients and the linear reduction to (29) [external]", identity, false, check_ttt});
  l.add({"A001-LONGHORN", "Longhorn (31) is the minimiser of (30)", identity, false, check_longhorn});
  l.add({"A001-LONGHORN-AS-SGD", "Longhorn = SGD with beta = delta/(1 + delta|k|^2)", identity, false, check_longhorn_as_sgd});
  l.add({"A001-LONGHORN-LIMITS", "Longhorn limits delta = 0 and delta -> inf (NLMS), measured rate", inequality, false, check_longhorn_limits});
  l.add({"A001-LONGHORN-GLOBAL-OBJECTIVE", "Longhorn's global objective is least squares [interp]", descriptive, false, check_longhorn_global});
  l.add({"A001-NLMS", "NLMS (33) solves the constrained problem (32)", identity, false, check_nlms});
  l.add({"A001-NLMS-KACZMARZ", "NLMS is the projection / Kaczmarz step", identity, false, check_nlms_kaczmarz});
  l.add({"A001-L2REG-OBJECTIVE", "Gradient of the L2-regularised per-step term (Frobenius reading)", identity, false, check_l2reg});
  l.add({"A001-LEAKY-LMS", "Leaky LMS: lines (35)-(37) = SGD on the regularised term", identity, false, check_leaky});
  l.add({"A001-GATED-DELTANET-REPARAM", "Gated DeltaNet (41) = leaky LMS (37) under the map", identity, false, check_gdn_reparam});
  l.add({"A001-GDN-MAP-INVERTIBLE", "The map (alpha, eta, v') is invertible", identity, false, check_gdn_map});
  l.add({"A001-F08-DELTANET-CHUNK", "DeltaNet ordered-product and WY/UT chunk forms = recurrence [derived]", identity, true, check_f08});
  l.add({"A001-F09-GDN-CHUNK", "Gated DeltaNet / leaky LMS chunk forms = recurrences [derived]", identity, true, check_f09});
  l.add({"A001-EQ08-DELTANET-SGD", "Row: DeltaNet = one warm-started SGD step", identity, false, check_eq08});
  l.add({"A001-EQ09-LONGHORN", "Row: Longhorn", identity, false, check_eq09});
  l.add({"A001-EQ10-NLMS", "Row: NLMS", identity, false, check_eq10});
  l.add({"A001-EQ11-LEAKY-LMS", "Row: leaky LMS", identity, false, check_eq11});
  l.add({"A001-EQ12-GDN", "Row: Gated DeltaNet", identity, false, check_eq12});
  l.add({"A001-EQ13-TTT", "Row: TTT layers", identity, false, check_eq13});
}

}  // namespace recall
