// Helpers of the A002 Miras / Table 1 claim checks (proofs_numeric/a002_atlas/miras_framework.cpp,
// table1_rows_linear.cpp, table1_rows_deep.cpp): the update-contract harness ("one step of the named
// optimizer on the named attentional bias", with the gradient taken by central differences of the row's
// objective at twice the working digits, or the minimiser of a quadratic objective found from objective
// values alone), the per-row step data, the printed write rules of the Table 1 rows in the spec's "to
// implement" orientation, the negative controls (plausible wrong write rules that the instances must tell
// apart), and the instance schedule. Internal linkage, like claim_support.hpp.
//
// Precision: an instance residual(d) is evaluated entirely at 2d digits (so the central differences,
// step h = 10^(-0.3 * 2d), carry ~1.2d correct digits, far below the identity threshold at d digits);
// IdentityCheck re-verifies a failure at doubled d.
#pragma once

#include "recall/proofs/ledger.hpp"
#include "recall/reference/delta_rule.hpp"
#include "recall/reference/miras.hpp"
#include "recall/reference/regression_rules.hpp"
#include "claim_support.hpp"
#include "linear_attention_claims.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace recall::claim_support::miras {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

using ref::Matrix;
using ref::Vector;
using PM = ref::Params<mp_t>;
using linattn::hex;
using linattn::Part;
using linattn::combine_parts;

// ---- instances ----------------------------------------------------------------------------------------

struct Shape {
  std::size_t dk, dv;
};
// (d_k, d_v) smallest first, d_k != d_v included (catches orientation errors)
std::vector<Shape> shapes(const CheckConfig& cfg) {
  std::vector<Shape> s = {{1, 1}, {2, 1}, {1, 2}, {2, 3}, {3, 2}, {3, 3}, {4, 3}, {3, 4}};
  if (!cfg.quick) {
    s.push_back({4, 4});
    s.push_back({5, 3});
    s.push_back({6, 5});
    s.push_back({5, 6});
  }
  return s;
}
std::string shape_desc(const Shape& s) { return "dk=" + std::to_string(s.dk) + " dv=" + std::to_string(s.dv); }
std::uint64_t inst_seed(const CheckConfig& cfg, const std::string& tag, int n) { return mix(tag_seed(cfg.seed, tag), static_cast<std::uint64_t>(n)); }
// how the instances of a check are drawn (evidence text)
std::string seed_note(const CheckConfig& cfg, const std::string& tag) {
  return "instance n: Box-Muller on std::mt19937_64 seeded by mix(tag_seed(" + std::to_string(cfg.seed) + ", \"" + tag +
         "\"), n) (claim_support.hpp; sub-tags '/step', '/half' where named)";
}

// The random data of one write step (every row takes what it needs). Doubles; converted to mp at use.
struct StepData {
  Shape sh;
  DM M, Mh;                  // memory d_v x d_k; a second state (momentum S_{t-1}) of the same shape
  std::vector<double> k, v;  // key d_k, value d_v
  double alpha = 1, eta = 0.1, beta = 0.5, theta = 0.5, lambda = 0.5;
  std::vector<double> ak, av;  // per-key-channel and per-value-channel gates in [0.5, 1]
  std::size_t h = 2;           // MLP hidden width
  DM W1, W2;                   // MLP weights h x d_k, d_v x h
};
StepData draw_step(Gauss& g, const Shape& sh) {
  StepData s;
  s.sh = sh;
  s.M = gauss_matrix(sh.dv, sh.dk, g, 0.5);
  s.Mh = gauss_matrix(sh.dv, sh.dk, g, 0.3);
  s.k.resize(sh.dk);
  s.v.resize(sh.dv);
  for (double& x : s.k) x = g.normal();
  double nk = 0;
  for (double x : s.k) nk += x * x;
  nk = std::sqrt(nk);
  if (nk > 0)
    for (double& x : s.k) x /= nk;  // keys L2-normalised (spec default)
  for (double& x : s.v) x = g.normal();
  s.alpha = 0.5 + 0.5 * g.uniform();
  s.eta = 0.01 + 0.49 * g.uniform();
  s.beta = 0.05 + 1.9 * g.uniform();
  s.theta = 0.5 + 0.49 * g.uniform();
  s.lambda = 2.0 * g.uniform();
  s.ak.resize(sh.dk);
  s.av.resize(sh.dv);
  for (double& x : s.ak) x = 0.5 + 0.5 * g.uniform();
  for (double& x : s.av) x = 0.5 + 0.5 * g.uniform();
  s.h = 2 + static_cast<std::size_t>(g.uniform() * 3);
  s.W1 = gauss_matrix(s.h, sh.dk, g, 0.5);
  s.W2 = gauss_matrix(sh.dv, s.h, g, 0.5);
  return s;
}

// ---- mp helpers -----------------------------------------------------------------------------------------

MV mpv(const std::vector<double>& x) { return to_mp(x); }
PM one(const MM& M) { return PM{M}; }
// sqrt(sum_m ||a_m - b_m||^2) / max(1, ||a||, ||b||); INFINITY on a shape mismatch or NaN
double prel(const PM& a, const PM& b) {
  if (a.size() != b.size()) return INFINITY;
  mp_t d(0), na(0), nb(0);
  for (std::size_t m = 0; m < a.size(); ++m) {
    if (a[m].rows != b[m].rows || a[m].cols != b[m].cols) return INFINITY;
    for (std::size_t i = 0; i < a[m].a.size(); ++i) {
      const mp_t e = a[m].a[i] - b[m].a[i];
      ref::muladd(d, e, e);
      ref::muladd(na, a[m].a[i], a[m].a[i]);
      ref::muladd(nb, b[m].a[i], b[m].a[i]);
    }
  }
  return nan_inf(to_d(mp_t(sqrt(d) / mp_max1(sqrt(na), sqrt(nb)))));
}
// central-difference gradient at the current precision, h = 10^(-0.3 * digits)
PM fd_grad(const std::function<mp_t(const PM&)>& F, const PM& theta) {
  const mp_t h = pow(mp_t(10), mp_t(-0.3 * static_cast<double>(mp_digits())));
  return ref::central_difference_gradient<mp_t>(F, theta, h);
}
// The minimiser of a strictly convex quadratic F over d_v x d_k matrices from objective values alone:
// g0_i = (F(e_i) - F(-e_i))/2, H_ij = F(e_i + e_j) - F(e_i) - F(e_j) + F(0) (exact for a quadratic), H x = -g0.
MM quad_argmin(const std::function<mp_t(const MM&)>& F, std::size_t r, std::size_t c) {
  const std::size_t n = r * c;
  MM X(r, c);
  const mp_t f0 = F(X);
  std::vector<mp_t> fe(n), fm(n);
  for (std::size_t i = 0; i < n; ++i) {
    X.a[i] = 1;
    fe[i] = F(X);
    X.a[i] = -1;
    fm[i] = F(X);
    X.a[i] = 0;
  }
  MM H(n, n), b(n, 1);
  for (std::size_t i = 0; i < n; ++i) {
    b(i, 0) = -(fe[i] - fm[i]) / 2;
    for (std::size_t j = i; j < n; ++j) {
      X.a[i] += 1;
      X.a[j] += 1;
      H(i, j) = F(X) - fe[i] - fe[j] + f0;
      H(j, i) = H(i, j);
      X.a[i] = 0;
      X.a[j] = 0;
    }
  }
  const MM x = ref::solve(H, b);
  MM out(r, c);
  for (std::size_t i = 0; i < n; ++i) out.a[i] = x(i, 0);
  return out;
}
// sum_j w_j ||M_{:,j}||^2 (key-axis ridge) and sum_r w_r ||M_{r,:}||^2 (value-axis ridge)
mp_t col_ridge(const MM& M, const MV& w) {
  mp_t s(0);
  for (std::size_t i = 0; i < M.rows; ++i)
    for (std::size_t j = 0; j < M.cols; ++j) s += w[j] * M(i, j) * M(i, j);
  return s;
}
mp_t row_ridge(const MM& M, const MV& w) {
  mp_t s(0);
  for (std::size_t i = 0; i < M.rows; ++i)
    for (std::size_t j = 0; j < M.cols; ++j) s += w[i] * M(i, j) * M(i, j);
  return s;
}
mp_t frob2(const MM& M) {
  mp_t s(0);
  for (const mp_t& x : M.a) ref::muladd(s, x, x);
  return s;
}
// M (I - b k k^T) + c v k^T  (right multiplication, spec orientation)
MM delta_right(const MM& M, const MV& k, const MV& v, const mp_t& b, const mp_t& c) {
  MM out = M;
  const MV mk = ref::matvec(M, k.data());
  ref::add_outer(out, mp_t(-b), mk.data(), k.data());
  ref::add_outer(out, c, v.data(), k.data());
  return out;
}
// (I - b k k^T) M + c v k^T, the printed left multiplication (square memories only: d_k = d_v)
MM delta_left(const MM& M, const MV& k, const MV& v, const mp_t& b, const mp_t& c) {
  MM out = M;
  for (std::size_t j = 0; j < M.cols; ++j) {
    mp_t kc(0);  // k^T M_{:,j}
    for (std::size_t i = 0; i < M.rows; ++i) kc += k[i] * M(i, j);
    for (std::size_t i = 0; i < M.rows; ++i) out(i, j) -= b * k[i] * kc;
  }
  ref::add_outer(out, c, v.data(), k.data());
  return out;
}
MM scaled(const MM& M, const mp_t& a) {
  MM out = M;
  for (mp_t& x : out.a) x *= a;
  return out;
}
MM plus_outer(const MM& M, const mp_t& c, const MV& a, const MV& b) {
  MM out = M;
  ref::add_outer(out, c, a.data(), b.data());
  return out;
}

// ---- the update-contract check with negative controls -------------------------------------------------------

// One evaluated instance: the residual of the printed write rule against the optimizer's step, where it
// occurred, and the residuals of the wrong forms (negative controls) against the same step.
struct StepEval {
  double r = 0;
  std::string where;
  std::vector<std::pair<std::string, double>> controls;
};
// A control counts as detected when its residual exceeds this (far above any rounding at >= 20 digits).
constexpr double kControlGap = 1e-8;

// IdentityCheck over instances plus the negative-control tally: "holds" needs at least half of the controls
// detected (a check whose instances cannot tell a wrong write rule apart is `inconclusive`).
class ContractCheck {
 public:
  ContractCheck(std::string statistic, unsigned digits, double cond = 1.0) : ck_(std::move(statistic), digits, cond), digits_(digits) {}
  // fn(d) evaluates the instance (inside an MpDigitsScope of 2d digits opened here) and fills StepEval.
  bool add(const std::string& desc, const std::function<StepEval(unsigned)>& fn) {
    bool first = true;
    return ck_.add(desc, [&](unsigned d, std::string& where) {
      MpDigitsScope sc(2 * d);
      const StepEval e = fn(d);
      where = e.where;
      if (first && d == digits_) {
        first = false;
        for (const auto& [name, r] : e.controls) {
          ++controls_;
          if (r > kControlGap) ++detected_;
          else if (miss_.empty()) miss_ = name + " on " + desc;
        }
      }
      return e.r;
    });
  }
  void exclude(const std::string& desc, const std::string& why) { ck_.exclude(desc, why); }
  ClaimResult result(const CheckConfig& cfg, const std::string& sizes) const {
    ClaimResult r = ck_.result(cfg, sizes);
    r.evidence.extra.emplace_back("negative controls detected", std::to_string(detected_) + " of " + std::to_string(controls_) +
                                                                    (miss_.empty() ? std::string() : " (first miss: " + miss_ + ")"));
    if (r.verdict == Verdict::holds && (controls_ == 0 || 2 * detected_ < controls_)) {
      r.verdict = Verdict::inconclusive;
      r.reason = "every instance agrees, but only " + std::to_string(detected_) + " of " + std::to_string(controls_) +
                 " wrong forms (negative controls) were detected: the instances cannot tell a wrong form apart";
    } else if (r.verdict == Verdict::holds) {
      r.reason += "; " + std::to_string(detected_) + " of " + std::to_string(controls_) + " wrong forms (negative controls) detected";
    }
    r.evidence.extra.emplace_back("evaluation digits", std::to_string(2 * digits_) + " (threshold for " + std::to_string(digits_) +
                                                           " digits; central differences h = 10^-" + std::to_string(3 * digits_ / 5) + ")");
    return r;
  }
 private:
  Checker ck_;
  unsigned digits_;
  int controls_ = 0, detected_ = 0;
  std::string miss_;
};

// ---- Table 1 rows: (bias, optimizer) step vs printed write rule, at the current precision -----------------

// What a row returns for one step: the optimizer's step (from the objective), the printed write rule, and
// wrong write rules. Parameters are lists of matrices (deep memories).
struct RowStep {
  PM contract, printed;
  std::vector<std::pair<std::string, PM>> controls;
};
StepEval eval_row(const RowStep& s) {
  StepEval e;
  e.r = prel(s.contract, s.printed);
  e.where = "write rule";
  for (const auto& [name, P] : s.controls) e.controls.emplace_back(name, prel(s.contract, P));
  return e;
}

ref::Bias l2_bias(bool half = false) {
  ref::Bias b;
  b.half_l2 = half;
  return b;
}
ref::Bias dot_bias(int sign = -1) {
  ref::Bias b;
  b.kind = ref::BiasKind::dot;
  b.dot_sign = sign;
  return b;
}
ref::Bias lp_bias(double p) {
  ref::Bias b;
  b.kind = ref::BiasKind::lp;
  b.p = p;
  return b;
}
// l(M; k, v) of a linear memory, as a function of the parameter list
std::function<mp_t(const PM&)> linear_loss(const ref::Bias& b, const MV& k, const MV& v) {
  return [b, k, v](const PM& P) { return ref::linear_memory_loss(b, P[0], k.data(), v.data()); };
}

// A002-T1-LA (eta = 1) / A002-MIRAS-B1-LINATT (eta_t): GD on -<M k, v>; printed M + eta v k^T.
RowStep row_linear_attention(const StepData& s, bool unit_rate) {
  const MM M = to_mp(s.M);
  const MV k = mpv(s.k), v = mpv(s.v);
  const mp_t eta = unit_rate ? mp_t(1) : mp_t(s.eta);
  RowStep r;
  r.contract = ref::decayed_gd_step(one(M), fd_grad(linear_loss(dot_bias(), k, v), one(M)), mp_t(1), eta);
  r.printed = one(plus_outer(M, eta, v, k));
  r.controls.push_back({"GD on the literal +<M k, v> (M - eta v k^T)", one(plus_outer(M, mp_t(-eta), v, k))});
  if (!unit_rate) r.controls.push_back({"rate dropped (M + v k^T)", one(plus_outer(M, mp_t(1), v, k))});
  return r;
}
// A002-MIRAS-B1-DELTANET / A002-T1-DELTANET (beta = 2 eta): GD on ||M k - v||^2 (half_l2: beta = eta).
RowStep row_deltanet(const StepData& s, bool half_l2) {
  const MM M = to_mp(s.M);
  const MV k = mpv(s.k), v = mpv(s.v);
  const mp_t eta(s.eta), beta = half_l2 ? eta : mp_t(2 * eta);
  RowStep r;
  r.contract = ref::decayed_gd_step(one(M), fd_grad(linear_loss(l2_bias(half_l2), k, v), one(M)), mp_t(1), eta);
  r.printed = one(delta_right(M, k, v, beta, beta));
  r.controls.push_back({"factor-2 switch wrong", one(delta_right(M, k, v, half_l2 ? mp_t(2 * eta) : eta, half_l2 ? mp_t(2 * eta) : eta))});
  r.controls.push_back({"Eq. 47 value term without the rate", one(delta_right(M, k, v, beta, mp_t(1)))});
  if (s.sh.dk == s.sh.dv) r.controls.push_back({"printed left multiplication", one(delta_left(M, k, v, beta, beta))});
  return r;
}
// A002-T1-RETNET: unit GD on -<M k, v> + (1 - alpha)/2 ||M||^2 (the ridge retention); printed alpha M + v k^T.
RowStep row_retnet(const StepData& s) {
  const MM M = to_mp(s.M);
  const MV k = mpv(s.k), v = mpv(s.v);
  const mp_t a(s.alpha);
  auto F = [&](const PM& P) { return ref::linear_memory_loss(dot_bias(), P[0], k.data(), v.data()) + (1 - a) / 2 * frob2(P[0]); };
  RowStep r;
  r.contract = ref::decayed_gd_step(one(M), fd_grad(F, one(M)), mp_t(1), mp_t(1));
  r.printed = one(plus_outer(scaled(M, a), mp_t(1), v, k));
  r.controls.push_back({"decay on the write too (alpha (M + v k^T))", one(scaled(plus_outer(M, mp_t(1), v, k), a))});
  r.controls.push_back({"no decay (M + v k^T)", one(plus_outer(M, mp_t(1), v, k))});
  return r;
}
// A002-T1-GLA (key axis): unit GD on -<M k, v> + 1/2 sum_j (1 - a_j) ||M_{:,j}||^2; printed M Diag(a) + v k^T.
// A002-T1-GLA-VALGATE (value axis): ... + 1/2 sum_r (1 - a_r) ||M_{r,:}||^2; printed Diag(a) M + v k^T.
RowStep row_gla(const StepData& s, bool value_axis) {
  const MM M = to_mp(s.M);
  const MV k = mpv(s.k), v = mpv(s.v);
  const MV a = mpv(value_axis ? s.av : s.ak);
  MV w(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) w[i] = 1 - a[i];
  auto F = [&](const PM& P) {
    return ref::linear_memory_loss(dot_bias(), P[0], k.data(), v.data()) + (value_axis ? row_ridge(P[0], w) : col_ridge(P[0], w)) / 2;
  };
  auto gate = [&](const MM& X) {
    MM out = X;
    for (std::size_t i = 0; i < X.rows; ++i)
      for (std::size_t j = 0; j < X.cols; ++j) out(i, j) *= value_axis ? a[i] : a[j];
    return out;
  };
  RowStep r;
  r.contract = ref::decayed_gd_step(one(M), fd_grad(F, one(M)), mp_t(1), mp_t(1));
  r.printed = one(plus_outer(gate(M), mp_t(1), v, k));
  r.controls.push_back({"gate on the write too", one(gate(plus_outer(M, mp_t(1), v, k)))});
  mp_t mean(0);
  for (const mp_t& x : a) mean += x;
  mean /= mp_t(static_cast<double>(a.size()));
  r.controls.push_back({"scalar (mean) gate", one(plus_outer(scaled(M, mean), mp_t(1), v, k))});
  return r;
}
// A002-T1-GDN (form G): GD with the gradient at alpha M_{t-1}, eta = beta / 2; printed alpha M (I - beta k k^T) + beta v k^T.
// A002-T1-TITANSM (form T): alpha M - eta grad l(M); printed M (alpha I - 2 eta k k^T) + 2 eta v k^T.
RowStep row_gated_delta(const StepData& s, bool form_g) {
  const MM M = to_mp(s.M);
  const MV k = mpv(s.k), v = mpv(s.v);
  const mp_t a(s.alpha);
  const mp_t eta = form_g ? mp_t(s.beta / 2) : mp_t(s.eta), beta = 2 * eta;
  const auto F = linear_loss(l2_bias(), k, v);
  const MM aM = scaled(M, a);
  RowStep r;
  const PM at = form_g ? one(aM) : one(M);  // where the gradient is taken
  r.contract = ref::decayed_gd_step(one(M), fd_grad(F, at), a, eta);
  const MM formG = delta_right(aM, k, v, beta, beta);                                    // alpha M (I - b k k^T) + b v k^T
  const MM formT = plus_outer(scaled(M, a), mp_t(-beta), ref::matvec(M, k.data()), k);  // alpha M - b (M k) k^T ...
  MM formT2 = formT;
  ref::add_outer(formT2, beta, v.data(), k.data());
  r.printed = one(form_g ? formG : formT2);
  r.controls.push_back({form_g ? "decay placement T" : "decay placement G", one(form_g ? formT2 : formG)});
  r.controls.push_back({"factor 2 dropped", one(form_g ? delta_right(aM, k, v, eta, eta) : [&] {
                          MM x = plus_outer(scaled(M, a), mp_t(-eta), ref::matvec(M, k.data()), k);
                          ref::add_outer(x, eta, v.data(), k.data());
                          return x;
                        }())});
  if (s.sh.dk == s.sh.dv && form_g) r.controls.push_back({"printed left multiplication", one(scaled(delta_left(M, k, v, beta, mp_t(beta / a)), a))});
  return r;
}
// A002-T1-RWKV7: per-key-channel decay, GD with eta = beta/2 on l plus the ridge 1/2 sum_j (1 - a_j) ||M_{:,j}||^2
// (placement T); printed M (diag(a) - beta k k^T) + beta v k^T.
RowStep row_rwkv7(const StepData& s) {
  const MM M = to_mp(s.M);
  const MV k = mpv(s.k), v = mpv(s.v), a = mpv(s.ak);
  const mp_t beta(s.beta), eta = beta / 2;
  MV w(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) w[i] = 1 - a[i];
  auto F = [&](const PM& P) { return eta * ref::linear_memory_loss(l2_bias(), P[0], k.data(), v.data()) + col_ridge(P[0], w) / 2; };
  auto diag_right = [&](const MM& X) {
    MM out = X;
    for (std::size_t i = 0; i < X.rows; ++i)
      for (std::size_t j = 0; j < X.cols; ++j) out(i, j) *= a[j];
    return out;
  };
  RowStep r;
  r.contract = ref::decayed_gd_step(one(M), fd_grad(F, one(M)), mp_t(1), mp_t(1));
  MM pr = diag_right(M);
  ref::add_outer(pr, mp_t(-beta), ref::matvec(M, k.data()).data(), k.data());
  ref::add_outer(pr, beta, v.data(), k.data());
  r.printed = one(pr);
  const MM dM = diag_right(M);
  r.controls.push_back({"gradient at the decayed state (placement G)", one(delta_right(dM, k, v, beta, beta))});
  MM noch = plus_outer(scaled(M, mp_t(1)), mp_t(-beta), ref::matvec(M, k.data()), k);
  ref::add_outer(noch, beta, v.data(), k.data());
  r.controls.push_back({"decay dropped", one(noch)});
  return r;
}
// A002-T1-LONGHORN: the implicit-GD (proximal) step argmin ||M - M_{t-1}||^2 + beta ||M k - v||^2, found from the
// objective alone; printed M (I - delta k k^T) + delta v k^T, delta = beta / (1 + beta k^T k).
RowStep row_longhorn(const MM& M, const MV& k, const MV& v, const mp_t& beta) {
  auto F = [&](const MM& X) {
    mp_t d(0);
    for (std::size_t i = 0; i < X.a.size(); ++i) {
      const mp_t e = X.a[i] - M.a[i];
      ref::muladd(d, e, e);
    }
    return d + beta * ref::linear_memory_loss(l2_bias(), X, k.data(), v.data());
  };
  const mp_t kk = ref::dot(k.data(), k.data(), k.size());
  const mp_t delta = beta / (1 + beta * kk);
  RowStep r;
  r.contract = one(quad_argmin(F, M.rows, M.cols));
  r.printed = one(delta_right(M, k, v, delta, delta));
  r.controls.push_back({"explicit GD step (delta -> beta)", one(delta_right(M, k, v, beta, beta))});
  r.controls.push_back({"delta without k^T k (beta / (1 + beta))", one(delta_right(M, k, v, mp_t(beta / (1 + beta)), mp_t(beta / (1 + beta))))});
  return r;
}
// A002-T1-TITANS: GD with momentum (Eqs. 12-13 naming) on ||M k - v||^2: S_t = theta S_{t-1} - eta grad, M_t = alpha M + S_t.
// Returns {M_t, S_t} for both the optimizer and the printed closed form.
RowStep row_titans(const StepData& s) {
  const MM M = to_mp(s.M), Sm = to_mp(s.Mh);
  const MV k = mpv(s.k), v = mpv(s.v);
  const mp_t a(s.alpha), th(s.theta), eta(s.eta);
  PM mom = one(Sm);
  const PM G = fd_grad(linear_loss(l2_bias(), k, v), one(M));
  RowStep r;
  const PM next = ref::momentum_step(one(M), mom, G, a, th, eta);
  r.contract = {next[0], mom[0]};
  auto closed = [&](const mp_t& th_, const mp_t& eta_) {
    MM S2 = scaled(Sm, th_);
    const MV mk = ref::matvec(M, k.data());
    MV rr(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) rr[i] = 2 * (mk[i] - v[i]);
    ref::add_outer(S2, mp_t(-eta_), rr.data(), k.data());
    MM M2 = scaled(M, a);
    for (std::size_t i = 0; i < M2.a.size(); ++i) M2.a[i] += S2.a[i];
    return PM{M2, S2};
  };
  r.printed = closed(th, eta);
  r.controls.push_back({"Table 1 literal roles (S = eta S - theta grad)", closed(eta, th)});
  r.controls.push_back({"factor 2 dropped", closed(th, mp_t(eta / 2))});
  return r;
}
// A002-T1-MONETA: alpha M - eta grad ||M k - v||_p^p; printed alpha M - eta (p sign(r) |r|^{p-1}) k^T.
RowStep row_moneta(const StepData& s, double p) {
  const MM M = to_mp(s.M);
  const MV k = mpv(s.k), v = mpv(s.v);
  const mp_t a(s.alpha), eta(s.eta);
  RowStep r;
  r.contract = ref::decayed_gd_step(one(M), fd_grad(linear_loss(lp_bias(p), k, v), one(M)), a, eta);
  const MV mk = ref::matvec(M, k.data());
  auto written = [&](double pp, double c) {
    MV g(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      const mp_t rr = mk[i] - v[i];
      g[i] = rr == 0 ? mp_t(0) : mp_t(c * pp * (rr > 0 ? 1 : -1) * pow(mp_t(abs(rr)), mp_t(pp - 1)));
    }
    return one(plus_outer(scaled(M, a), mp_t(-eta), g, k));
  };
  r.printed = written(p, 1);
  if (p != 1) r.controls.push_back({"factor p dropped", written(p, 1 / p)});
  if (p != 2) r.controls.push_back({"l2 gradient in place of l_p", written(2, 1)});
  return r;
}
// A002-T1-TTT (gd) / A002-T1-TITANSM (decayed_gd, deep) / A002-T1-TITANS (momentum, deep): per-weight GD on ||f(k) - v||^2 for the residual 2-layer MLP memory f(k) = k + W2 gelu(W1 k)
// (residual dropped when d_k != d_v: A002-MEMORY-MLP-RESID-DROP reading); printed W - eta * 2 * (hand gradient
// of 1/2 ||f(k) - v||^2, ref::ttt_grad_hand). `mom` selects the Titans momentum optimizer on the same memory.
enum class DeepOpt { gd, decayed_gd, momentum };
RowStep row_deep(const StepData& s, DeepOpt opt) {
  const bool momentum = opt == DeepOpt::momentum;
  ref::TttConfig c;
  c.mlp = true;
  c.ln = false;
  c.residual = s.sh.dk == s.sh.dv;
  const MV k = mpv(s.k), v = mpv(s.v);
  const mp_t a = opt == DeepOpt::gd ? mp_t(1) : mp_t(s.alpha), th(s.theta), eta(s.eta);
  const PM theta = {to_mp(s.W1), to_mp(s.W2)};
  auto F = [&](const PM& P) {
    ref::TttParams<mp_t> tp{P[0], P[1]};
    const ref::TttForward<mp_t> o = ref::ttt_forward(tp, k.data(), k.size(), c);
    return ref::bias_value(l2_bias(), o.f.data(), v.data(), v.size());
  };
  const PM G = fd_grad(F, theta);
  const ref::TttParams<mp_t> hg = ref::ttt_grad_hand(ref::TttParams<mp_t>{theta[0], theta[1]}, k.data(), v.data(), k.size(), c);
  RowStep r;
  PM mom0 = {scaled(theta[0], mp_t(0.1)), scaled(theta[1], mp_t(-0.1))};  // a nonzero S_{t-1}
  auto written = [&](const mp_t& factor) {
    PM out = theta;
    if (!momentum) {
      for (std::size_t i = 0; i < out[0].a.size(); ++i) out[0].a[i] = a * out[0].a[i] - eta * factor * hg.W1.a[i];
      for (std::size_t i = 0; i < out[1].a.size(); ++i) out[1].a[i] = a * out[1].a[i] - eta * factor * hg.W2.a[i];
      return out;
    }
    PM m = mom0;
    for (std::size_t i = 0; i < m[0].a.size(); ++i) m[0].a[i] = th * m[0].a[i] - eta * factor * hg.W1.a[i];
    for (std::size_t i = 0; i < m[1].a.size(); ++i) m[1].a[i] = th * m[1].a[i] - eta * factor * hg.W2.a[i];
    for (std::size_t q = 0; q < 2; ++q)
      for (std::size_t i = 0; i < out[q].a.size(); ++i) out[q].a[i] = a * out[q].a[i] + m[q].a[i];
    out.push_back(m[0]);
    out.push_back(m[1]);
    return out;
  };
  if (momentum) {
    PM mom = mom0;
    r.contract = ref::momentum_step(theta, mom, G, a, th, eta);
    r.contract.push_back(mom[0]);
    r.contract.push_back(mom[1]);
  } else {
    r.contract = ref::decayed_gd_step(theta, G, a, eta);
  }
  r.printed = written(mp_t(2));
  r.controls.push_back({"factor 2 dropped (1/2 ||.||^2 gradient)", written(mp_t(1))});
  if (momentum) {
    PM alt = theta;  // Table 1's literal roles: S = eta S - theta grad
    PM m = mom0;
    for (std::size_t q = 0; q < 2; ++q)
      for (std::size_t i = 0; i < m[q].a.size(); ++i) {
        m[q].a[i] = eta * m[q].a[i] - th * mp_t(2) * (q == 0 ? hg.W1.a[i] : hg.W2.a[i]);
        alt[q].a[i] = a * alt[q].a[i] + m[q].a[i];
      }
    alt.push_back(m[0]);
    alt.push_back(m[1]);
    r.controls.push_back({"Table 1 literal roles (S = eta S - theta grad)", alt});
  }
  return r;
}

// Non-parametric rows (A002-T1-ATTN / A002-T1-SWA): the read-out m minimises sum_i a_i ||m - v_i||^2 with
// a_i = exp(s q^T k_i) over the rows `idx` (0-based). Returns ||grad at m|| / (sum_i a_i (||m|| + ||v_i||)).
double np_stationarity(const MM& K, const MM& V, const mp_t* q, const std::vector<std::size_t>& idx, const MV& m, const mp_t& scale) {
  auto F = [&](const PM& P) {
    mp_t acc(0);
    for (std::size_t i : idx) {
      const mp_t w = exp(mp_t(scale * ref::dot(q, K.row(i), K.cols)));
      for (std::size_t j = 0; j < V.cols; ++j) {
        const mp_t e = P[0](0, j) - V(i, j);
        acc += w * e * e;
      }
    }
    return acc;
  };
  MM mrow(1, m.size());
  for (std::size_t j = 0; j < m.size(); ++j) mrow(0, j) = m[j];
  const PM G = fd_grad(F, one(mrow));
  mp_t sc(0);
  const mp_t nm = ref::frob(mrow);
  for (std::size_t i : idx) {
    const mp_t w = exp(mp_t(scale * ref::dot(q, K.row(i), K.cols)));
    mp_t nv(0);
    for (std::size_t j = 0; j < V.cols; ++j) nv += V(i, j) * V(i, j);
    sc += w * (nm + sqrt(nv));
  }
  return nan_inf(to_d(mp_t(ref::frob(G[0]) / (sc > 0 ? sc : mp_t(1)))));
}

// ---- sequences and the contract part shared by the row claims --------------------------------------------

std::vector<std::size_t> seq_lengths(const CheckConfig& cfg) {
  if (cfg.quick) return {1, 2, 3, 5, 8};
  return {1, 2, 3, 4, 5, 7, 8, 13, 16, 21, 32, 64};
}
struct SeqInst {
  std::uint64_t seed;
  std::size_t T;
  Shape sh;
  DM Q, K, V;
  std::vector<double> eta;
  std::string desc;
};
// Q, K, V ~ N(0,1) (keys L2-normalised), eta_t ~ U[0.01, 0.5]
SeqInst seq_inst(const CheckConfig& cfg, const std::string& tag, int n, std::size_t T, const Shape& sh) {
  SeqInst x;
  x.seed = inst_seed(cfg, tag, n);
  x.T = T;
  x.sh = sh;
  Gauss g(x.seed);
  x.Q = gauss_matrix(T, sh.dk, g);
  x.K = gauss_matrix(T, sh.dk, g);
  for (std::size_t t = 0; t < T; ++t) normalize_row(x.K, t);
  x.V = gauss_matrix(T, sh.dv, g);
  x.eta.resize(T);
  for (double& e : x.eta) e = 0.01 + 0.49 * g.uniform();
  x.desc = "G-seq T=" + std::to_string(T) + " " + shape_desc(sh) + " inst_seed=" + hex(x.seed);
  return x;
}

// Part "contract": the row step over single-step instances.
template <class RowFn> ClaimResult contract_part(const CheckConfig& cfg, const std::string& tag, const std::string& what, RowFn row, int reps_quick,
                                                 int reps_full) {
  ContractCheck ck("max relative residual: printed write rule vs one optimizer step on the bias (" + what + ")", cfg.digits);
  int n = 0;
  const int reps = cfg.quick ? reps_quick : reps_full;
  for (const Shape& sh : shapes(cfg))
    for (int rep = 0; rep < reps; ++rep) {
      const std::uint64_t s = inst_seed(cfg, tag + "/step", n++);
      Gauss g(s);
      const StepData sd = draw_step(g, sh);
      ck.add("G-step " + shape_desc(sh) + " inst_seed=" + hex(s), [&](unsigned) { return eval_row(row(sd)); });
    }
  return ck.result(cfg, "(dk,dv) grid x " + std::to_string(reps) + " single steps (keys unit norm, eta ~ U[0.01,0.5]); " + seed_note(cfg, tag));
}

// A sequence part over every (T, shape) of the schedule (quick: every `stride`-th); make(x) gives the instance's evaluation;
// excluded(x): a non-empty reason removes the instance from the decision (recorded in the evidence)
ClaimResult seq_part(const CheckConfig& cfg, const std::string& tag, const std::string& stat, int stride,
                     const std::function<std::function<StepEval(unsigned)>(const SeqInst&)>& make, const std::string& extra_sizes = "",
                     const std::function<std::string(const SeqInst&)>& excluded = nullptr) {
  ContractCheck ck(stat, cfg.digits);
  int n = 0;
  for (std::size_t T : seq_lengths(cfg))
    for (const Shape& sh : shapes(cfg)) {
      if (cfg.quick && n % stride) { ++n; continue; }
      const SeqInst x = seq_inst(cfg, tag, n++, T, sh);
      const std::string why = excluded ? excluded(x) : std::string();
      if (!why.empty()) {
        ck.exclude(x.desc, why);
        continue;
      }
      ck.add(x.desc, make(x));
    }
  return ck.result(cfg, "T in {" + linattn::join(seq_lengths(cfg)) + "} x (dk,dv) grid" + extra_sizes + "; " + seed_note(cfg, tag));
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::miras
