// Helpers shared by the claim checks of paper A001's online learners, RLS and TTT
// (proofs_numeric/a001_test_time_regression/{recursive_least_squares,sgd_deltanet,online_learners,
// leaky_lms_gdn,ttt_layers}.cpp: namespace learners) and of the softmax / Nadaraya-Watson items of A001 and
// A004 (a001_test_time_regression/{similarity_functions,softmax_nadaraya_watson,unnormalized_softmax,qknorm}.cpp
// and a004_memory_and_forgetting/softmax_attention.cpp: namespace softmax_nw). Not a public header.
// As in claim_support.hpp the helpers have internal linkage (unnamed namespaces) and no `inline` hints,
// exactly like the per-file copies they were, so every claim's figures stay bit-identical.
#pragma once

#include "claim_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace recall::claim_support::learners {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

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
  const std::vector<double> means = bootstrap_sorted_means(x, g, B);
  c.lo = means[static_cast<std::size_t>(0.025 * (B - 1))];
  c.hi = means[static_cast<std::size_t>(0.975 * (B - 1))];
  return c;
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

// 10^k in MP
mp_t pow10_mp(int k) { return boost::multiprecision::pow(mp_t(10), k); }

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::learners

namespace recall::claim_support::softmax_nw {
namespace {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

// ---- generators (A001 G1 Gaussian, G7 normalised vectors; A004 G1/G2) ------------------------

// rows rescaled to norm c (a zero row is redrawn)
void set_row_norms(Rng& g, DM& m, double c) {
  std::normal_distribution<double> N(0.0, 1.0);
  for (std::size_t i = 0; i < m.rows; ++i) {
    double s = 0;
    for (;;) {
      s = 0;
      for (std::size_t j = 0; j < m.cols; ++j) s += m(i, j) * m(i, j);
      if (s > 0) break;
      for (std::size_t j = 0; j < m.cols; ++j) m(i, j) = N(g);
    }
    s = std::sqrt(s);
    for (std::size_t j = 0; j < m.cols; ++j) m(i, j) *= c / s;
  }
}

struct Inst {
  DM Q, K, V;
  double tau = 1;  // logits k^T q / tau
  std::string desc;
};

// A001 G1: D_k in {1,2,3,4,8,16}, D_v in {1,2,3,5}, t up to 40; keys scaled by 10^a; tau = sqrt(D_k).
// Largest-logit instances reach |logit| ~ 1e4.
std::vector<Inst> g1_instances(const CheckConfig& cfg, std::uint64_t cs) {
  struct Sz { std::size_t T, dk, dv; };
  std::vector<Sz> sizes = {{1, 1, 1}, {2, 2, 1}, {3, 3, 2}, {7, 4, 3}, {16, 8, 5}};
  if (!cfg.quick) sizes.insert(sizes.end(), {{24, 16, 2}, {40, 16, 5}, {40, 3, 3}, {33, 1, 1}});
  const std::vector<double> as = {-3.0, 0.0, 1.0, 2.0, 3.0};
  const int reps = cfg.quick ? 1 : 4;
  std::vector<Inst> v;
  int n = 0;
  for (const auto& s : sizes)
    for (double a : as)
      for (int rep = 0; rep < reps; ++rep) {
        Rng g(mix(cs, ++n));
        Inst in;
        in.K = gauss(g, s.T, s.dk, std::pow(10.0, a));
        in.Q = gauss(g, s.T, s.dk);
        in.V = gauss(g, s.T, s.dv);
        in.tau = std::sqrt(static_cast<double>(s.dk));
        in.desc = "G1 T=" + std::to_string(s.T) + " D_k=" + std::to_string(s.dk) + " D_v=" + std::to_string(s.dv) +
                  " key scale 1e" + fmt(a) + " tau=sqrt(D_k) instance " + std::to_string(n);
        v.push_back(std::move(in));
      }
  {  // logit range up to 1e4: keys and queries scaled so that the largest |logit| is exactly 1e4
    Rng g(mix(cs, ++n));
    Inst in;
    in.K = gauss(g, 9, 4);
    in.Q = gauss(g, 9, 4);
    in.V = gauss(g, 9, 3);
    in.tau = 2;
    double zmax = 0;
    for (std::size_t t = 0; t < 9; ++t)
      for (std::size_t i = 0; i <= t; ++i) {
        double z = 0;
        for (std::size_t j = 0; j < 4; ++j) z += in.Q(t, j) * in.K(i, j);
        zmax = std::max(zmax, std::abs(z) / in.tau);
      }
    for (double& x : in.K.a) x *= 1e4 / zmax;
    in.desc = "G1 T=9 D_k=4 D_v=3 logits scaled to max |z| = 1e4 instance " + std::to_string(n);
    v.push_back(std::move(in));
  }
  return v;
}

// A001 G7: unit keys/queries, equal-norm keys c, query norms, temperatures.
std::vector<Inst> g7_instances(const CheckConfig& cfg, std::uint64_t cs) {
  std::vector<Inst> v;
  const std::vector<std::size_t> dks = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 16} : std::vector<std::size_t>{1, 2, 3, 4, 8, 16, 64, 128};
  const std::vector<std::size_t> Ts = cfg.quick ? std::vector<std::size_t>{1, 5, 12} : std::vector<std::size_t>{1, 2, 5, 17, 64};
  int n = 0;
  for (std::size_t dk : dks)
    for (std::size_t T : Ts)
      for (double c : {1.0, 1e-3, 7.0})
        for (double qn : {1.0, 0.0, 30.0}) {
          if (cfg.quick && !((c == 1.0 && qn == 1.0) || T == 5)) continue;
          Rng g(mix(cs, ++n));
          Inst in;
          in.K = gauss(g, T, dk);
          set_row_norms(g, in.K, c);
          in.Q = gauss(g, T, dk);
          if (qn == 0.0) {
            for (double& x : in.Q.a) x = 0;
          } else {
            set_row_norms(g, in.Q, qn);
          }
          in.V = gauss(g, T, 2);
          in.tau = std::sqrt(static_cast<double>(dk));
          in.desc = "G7 T=" + std::to_string(T) + " D_k=" + std::to_string(dk) + " |k|=" + fmt(c) + " |q|=" + fmt(qn) +
                    " tau=sqrt(D_k) instance " + std::to_string(n);
          v.push_back(std::move(in));
        }
  return v;
}

std::vector<Inst> g1_g7(const CheckConfig& cfg, std::uint64_t cs) {
  auto a = g1_instances(cfg, cs);
  auto b = g7_instances(cfg, mix(cs, 77));
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

mp_t mp_sqrt_d(std::size_t d) { return sqrt(mp_t(static_cast<double>(d))); }

// Householder reflection H = I - 2 u u^T applied to x (u unit)
MV reflect(const MV& u, const mp_t* x, std::size_t d) {
  const mp_t c = ref::dot(u.data(), x, d) * 2;
  MV y(d);
  for (std::size_t j = 0; j < d; ++j) y[j] = x[j] - c * u[j];
  return y;
}
MV unit_vec(Rng& g, std::size_t d) {
  DM u = gauss(g, 1, d);
  set_row_norms(g, u, 1.0);
  MV v(d);
  for (std::size_t j = 0; j < d; ++j) v[j] = u(0, j);
  mp_t n = sqrt(ref::dot(v.data(), v.data(), d));
  for (mp_t& x : v) x /= n;
  return v;
}

// Fit z_i ~ g(d_i), g non-increasing, with tied distances (relative difference <= tie_rel) forced to
// one fitted value: pool ties, then pool adjacent violators (least squares, block sizes as weights).
// Returns max_i |z_i - g(d_i)| / max(1, max_i |z_i|); *witness gets the 1-based pair that drives it.
double isotonic_residual(const MV& dist, const MV& z, const mp_t& tie_rel, std::string* witness) {
  const std::size_t n = z.size();
  std::vector<std::size_t> ord(n);
  for (std::size_t i = 0; i < n; ++i) ord[i] = i;
  std::sort(ord.begin(), ord.end(), [&](std::size_t a, std::size_t b) { return dist[a] < dist[b]; });
  struct Block { mp_t sum; mp_t w; std::vector<std::size_t> idx; };
  std::vector<Block> bl;
  for (std::size_t p = 0; p < n; ++p) {
    const std::size_t i = ord[p];
    // a distance tied with the previous one (which is always in the last block) joins that block
    if (p > 0 && abs(mp_t(dist[i] - dist[ord[p - 1]])) <= tie_rel * mp_max1(dist[i], dist[ord[p - 1]])) {
      bl.back().sum += z[i];
      bl.back().w += 1;
      bl.back().idx.push_back(i);
    } else {
      bl.push_back(Block{z[i], mp_t(1), {i}});
    }
    // non-increasing: the block of larger distance must not have a larger mean
    while (bl.size() >= 2) {
      Block& a = bl[bl.size() - 2];
      Block& b = bl.back();
      if (b.sum / b.w > a.sum / a.w) {
        a.sum += b.sum;
        a.w += b.w;
        a.idx.insert(a.idx.end(), b.idx.begin(), b.idx.end());
        bl.pop_back();
      } else {
        break;
      }
    }
  }
  mp_t zmax(1);
  for (const mp_t& x : z)
    if (abs(x) > zmax) zmax = abs(x);
  double worst = 0;
  for (const Block& b : bl) {
    const mp_t gv = b.sum / b.w;
    for (std::size_t i : b.idx) {
      const double r = to_d(mp_t(abs(mp_t(z[i] - gv)) / zmax));
      if (r > worst) {
        worst = r;
        if (witness) {
          *witness = "key " + std::to_string(i + 1) + " at distance " + fmt(to_d(dist[i]), 6) + " has log-weight " + fmt(to_d(z[i]), 6) +
                     ", best non-increasing fit " + fmt(to_d(gv), 6) + " (block of " + std::to_string(b.idx.size()) + " keys)";
        }
      }
    }
  }
  return worst;
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace
}  // namespace recall::claim_support::softmax_nw
