// Paper A004 (memory and forgetting, lecture notes), appendix "Modern Hopfield Network (exponential energy,
// continuous)": the model (external: Ramsauer et al. 2020), "one iteration of MHN = one self-attention pass" (two
// readings) and "self-attention is a single Hopfield descent step on a query-conditioned energy" (two readings).
// Spec IDs: A004-MHN-DEF, A004-MHN-ATTN-EQUIV, A004-MHN-ATTN-GENV, A004-MHN-GRADSTEP, A004-MHN-ENERGY-DESCENT.
// Spec README group 17: these share the A003 references (recall/reference/hopfield.hpp: lse, dense_energy,
// dense_energy_change, dense_energy_gradient, dense_retrieval; A004 N / P / M = A003 d / M / m); softmax attention
// (A004-SOFTMAX-ATTN) is recall/reference/nadaraya_watson.hpp (softmax_rows, attention_logits, softmax_attention_masked).
// Ramsauer's energy adds beta^-1 log P + M^2 / 2 to A003's E; the constants enter A004-MHN-DEF only.
//
// internal: true for A004-MHN-DEF (the definition: identities between our own forms); false for the other four, the
// seed's statements (their verdicts are findings): ATTN-EQUIV and GRADSTEP are identities that the seed asserts,
// ATTN-GENV a reading that need not hold, ENERGY-DESCENT a theorem of Ramsauer et al. quoted by the seed.
//
// Decision rules (spec A004 C11) and precision (C9):
//  * R-ID: ||lhs - rhs||_F / max(1, ||lhs||_F, ||rhs||_F) <= 10^-(D0 - 10) = 1e-40 at D0 = cfg.digits = 50, at P-exp digits
//    when exponentials are resolved (30 + ceil(beta (z_max - z_min) / ln 10), at least D0); failures re-verified at
//    doubled digits (IdentityCheck).
//  * MHN-ATTN-GENV: r = min_W ||A K W - A V||_F / ||A V||_F by Householder QR with column pivoting at P-50 (rank
//    threshold: |R_kk| <= 10^-(D - 10) ||A K||_F, declared); holds iff r <= 1e-40 on every instance, else violated with
//    the smallest instance (sizes ascending) confirmed at doubled digits; the size regimes are reported.
//  * MHN-GRADSTEP: central differences of E with h = 1e-15 / (1 + beta M^2) at D = D0 + ceil(log10(1 + beta M^2)) +
//    ceil(log10(1 + |E|)) digits (the spec's P-50 step, with the digits lost to |E| / h restored) vs xi - xi_new;
//    tolerance 1e-25 relative with the max(1, .) normalisation; a failure confirmed at doubled digits.
//  * MHN-ENERGY-DESCENT: E(xi_new) - E(xi) from dense_energy_change (never a difference of energies) at
//    D0 + 10 + ceil(log10(1 + beta spread)) digits (the tolerance is absolute-relative and MPFR's exponent range holds every
//    weight, so the P-exp dynamic range is not needed) <= 1e-40 (1 + |E(xi)|) for 10 consecutive steps per instance; a failure confirmed at doubled digits; fp64 runs
//    (dense_energy_change<double> and the naive difference) reported separately, not part of the verdict.
// Instances: N in {1,2,3,5,8}, P in {1,2,3,7,20}, beta in {1e-2, 0.1, 1, 4, 30, 200}, pattern scales {0.1, 1, 3}
// (patterns N(0, scale^2 / N I), states of norm ~ scale; quick: every fifth); ENERGY-DESCENT adds states near to
// (1e-3 scale) and far from (10 scale) a stored pattern and near-duplicate patterns (1e-8). Attention: A004 G1,
// n <= 64 (quick 16), d_k in {1,2,4,8}, d_v in {1,3}, beta = 1/sqrt(d_k), full and causal. Adversarial searches:
// Nelder-Mead over (patterns, state, log beta) at N = 2, P = 3 maximising each item's violation metric in MP (the
// spec's fp64 search would only see rounding here), and over the key scale for the attention items.
// Seeds: tag_seed(cfg.seed, ID); std::mt19937_64 words through hopfield_claims.hpp (reproducible).
#include "recall/proofs/ledger.hpp"
#include "recall/reference/hopfield.hpp"
#include "recall/reference/nadaraya_watson.hpp"
#include "adversarial_search.hpp"
#include "claim_support.hpp"
#include "hopfield_claims.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
namespace hf = ref::hopfield;

mp_t pow10m(double e) { return pow(mp_t(10), mp_t(-e)); }

// ---------------------------------------------------------------------------------------------
// instances: stored patterns X (P x N rows), state xi, beta
// ---------------------------------------------------------------------------------------------
struct MhnInst {
  std::string desc;
  DM X;
  std::vector<double> xi;
  double beta;
};
std::vector<MhnInst> mhn_instances(const CheckConfig& cfg, std::uint64_t seed, bool descent) {
  Rng g(seed);
  std::vector<MhnInst> out;
  int n = 0;
  for (std::size_t N : {1, 2, 3, 5, 8})
    for (std::size_t P : {1, 2, 3, 7, 20})
      for (double beta : {1e-2, 0.1, 1.0, 4.0, 30.0, 200.0})
        for (double scale : {0.1, 1.0, 3.0})
          for (int kind = 0; kind < (descent ? 4 : 1); ++kind) {  // random state; near a pattern; far; near-duplicate patterns
            DM X = hop_patterns(g, "G2", P, N);
            for (double& v : X.a) v *= scale;
            std::vector<double> xi(N);
            for (double& v : xi) v = scale * hop_normal(g) / std::sqrt(static_cast<double>(N));
            if (kind == 1)
              for (std::size_t c = 0; c < N; ++c) xi[c] = X(0, c) + 1e-3 * scale * hop_normal(g);
            if (kind == 2)
              for (double& v : xi) v *= 10;
            if (kind == 3 && P >= 2)
              for (std::size_t c = 0; c < N; ++c) X(1, c) = X(0, c) + 1e-8 * scale * hop_normal(g);
            if (cfg.quick && n++ % 5) continue;
            const char* kn[] = {"random state", "state near xi_1", "far state", "near-duplicate xi_1, xi_2"};
            out.push_back({"N=" + std::to_string(N) + " P=" + std::to_string(P) + " beta=" + fmt(beta) + " scale=" + fmt(scale) + " " + kn[kind], X, xi, beta});
          }
  return out;
}
double mhn_spread(const MhnInst& in) {
  const double m = hf::max_norm(in.X);
  return std::max(hop_spread(in.X, in.xi), 2 * m * m);
}
// Ramsauer's energy E(xi) = -lse(beta, X^T xi) + xi^T xi / 2 + beta^-1 log P + M^2 / 2
mp_t mhn_energy(const MM& X, const MV& xi, const mp_t& beta) {
  const mp_t M = hf::max_norm(X);
  return hf::dense_energy(X, xi, beta) + log(mp_t(X.rows)) / beta + M * M / 2;
}
std::string mhn_desc(const MhnInst& in) {
  std::string s = in.desc;
  if (in.X.rows * in.X.cols <= 12) {
    s += " X=[";
    for (std::size_t i = 0; i < in.X.rows; ++i) s += (i ? "," : "") + hop_vec_str(hop_row(in.X, i));
    s += "] xi=" + hop_vec_str(in.xi);
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// A004-MHN-DEF
// ---------------------------------------------------------------------------------------------
ClaimResult a004_mhn_def(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A004-MHN-DEF");
  const std::vector<MhnInst> insts = mhn_instances(cfg, seed, false);
  Checker ck("max relative residual over: lse by max-subtraction vs log(sum exp(beta z)) / beta evaluated directly; the update "
             "X softmax(beta X^T xi) vs its unshifted quotient; the batched fast form softmax_row(beta R X) X^T (four states, the attention "
             "kernel with Q = R, K = V = X^T) vs the per-state update; E vs -lse + |xi|^2/2 + beta^-1 log P + M^2/2 written out",
             cfg.digits);
  for (std::size_t idx = 0; idx < insts.size(); ++idx) {
    const MhnInst& in = insts[idx];
    ck.add(mhn_desc(in), [&](unsigned dg, std::string& where) {
      MpDigitsScope sc(hop_padapt_digits(in.beta, mhn_spread(in)) + (dg - std::min(dg, 50u)));
      const MM X = to_mp(in.X);
      const MV xi = to_mp(in.xi);
      const mp_t b(in.beta);
      Worst w;
      const MV z = hf::scores(X, xi);
      mp_t s(0);
      for (const mp_t& v : z) s += exp(mp_t(b * v));
      const mp_t direct = log(s) / b, l = hf::lse(b, z);
      w.upd(screl(l, direct), "lse max-shifted vs direct");
      MV lit(xi.size(), mp_t(0));
      for (std::size_t r = 0; r < X.rows; ++r)
        for (std::size_t c = 0; c < xi.size(); ++c) lit[c] += exp(mp_t(b * z[r])) * X(r, c) / s;
      const MV upd = hf::dense_retrieval(X, xi, b);
      w.upd(vecrel(upd, lit), "update vs unshifted quotient");
      Rng g(mix(seed, idx));
      MM R(4, xi.size());
      for (std::size_t c = 0; c < xi.size(); ++c) R(0, c) = xi[c];
      for (std::size_t r = 1; r < 4; ++r)
        for (std::size_t c = 0; c < xi.size(); ++c) {
          const double a = hop_normal(g), b2 = hop_normal(g);  // sequenced draws
          R(r, c) = mp_t(a * in.X(r % in.X.rows, c) + 0.1 * b2);
        }
      const MM Rn = ref::softmax_attention_masked(R, X, X, b, false);
      for (std::size_t r = 0; r < 4; ++r) {
        const MV one = hf::dense_retrieval(X, row_vec(R, r), b);
        w.upd(vecrel(row_vec(Rn, r), one), "batched fast form, state " + std::to_string(r + 1));
      }
      const mp_t M = hf::max_norm(X);
      const mp_t e2 = -l + ref::dot(xi.data(), xi.data(), xi.size()) / 2 + log(mp_t(X.rows)) / b + M * M / 2;
      w.upd(screl(mhn_energy(X, xi, b), e2), "energy with Ramsauer's constants");
      where = w.where;
      return w.r;
    });
  }
  return ck.result(cfg, std::to_string(insts.size()) + " instances: N {1,2,3,5,8} x P {1,2,3,7,20} x beta {1e-2..200} x scale {0.1,1,3}" +
                            (cfg.quick ? " (every fifth)" : "") + ", P-exp digits");
}

// ---------------------------------------------------------------------------------------------
// A004-MHN-ATTN-EQUIV, A004-MHN-ATTN-GENV
// ---------------------------------------------------------------------------------------------
struct AttnInst {
  std::string desc;
  DM Q, K, V, WV;
  bool causal;
};
std::vector<AttnInst> attn_instances(const CheckConfig& cfg, std::uint64_t seed, bool genv) {
  Rng g(seed);
  std::vector<AttnInst> out;
  const std::vector<std::size_t> ns = genv ? std::vector<std::size_t>{1, 2, 3, 5, 8, 16}
                                           : (cfg.quick ? std::vector<std::size_t>{1, 2, 3, 7, 16} : std::vector<std::size_t>{1, 2, 3, 7, 16, 64});
  for (std::size_t n : ns)
    for (std::size_t dk : {1, 2, 4, 8})
      for (std::size_t dv : {1, 3})
        for (bool causal : {false, true}) {
          Gauss gg(g());
          AttnInst a;
          a.Q = gauss_matrix(n, dk, gg);
          a.K = gauss_matrix(n, dk, gg);
          a.WV = gauss_matrix(dk, dv, gg);
          a.V = genv ? gauss_matrix(n, dv, gg) : ref::matmul(a.K, a.WV);
          a.causal = causal;
          a.desc = "n=" + std::to_string(n) + " d_k=" + std::to_string(dk) + " d_v=" + std::to_string(dv) + (causal ? " causal" : " full");
          out.push_back(std::move(a));
        }
  return out;
}
// max row residual of W_V^T xi_new_i (xi_new_i = K_i^T softmax(beta K_i q_i), K_i all keys or the prefix j <= i) vs attention
double mhn_attn_residual(const AttnInst& a, double kscale, std::size_t* row) {
  MM K = to_mp(a.K);
  for (mp_t& v : K.a) v *= mp_t(kscale);
  const MM Q = to_mp(a.Q), WV = to_mp(a.WV), V = ref::matmul(K, WV);
  const mp_t beta = 1 / sqrt(mp_t(a.K.cols));
  const MM O = ref::softmax_attention_masked(Q, K, V, beta, a.causal);
  MM L(O.rows, O.cols);
  for (std::size_t i = 0; i < Q.rows; ++i) {
    const MV xn = hf::dense_retrieval(a.causal ? head_rows(K, i + 1) : K, row_vec(Q, i), beta);
    for (std::size_t c = 0; c < WV.cols; ++c) {
      mp_t s(0);
      for (std::size_t r = 0; r < WV.rows; ++r) s += WV(r, c) * xn[r];
      L(i, c) = s;
    }
  }
  return rowrel(L, O, row);
}
unsigned attn_digits(const AttnInst& a, double kscale, unsigned dg) {
  double amax = 0;
  for (std::size_t i = 0; i < a.Q.rows; ++i)
    for (std::size_t j = 0; j < a.K.rows; ++j) amax = std::max(amax, std::fabs(ref::dot(a.Q.row(i), a.K.row(j), a.Q.cols)) * kscale);
  return hop_padapt_digits(1 / std::sqrt(static_cast<double>(a.K.cols)), 2 * amax) + (dg > 50 ? dg - 50 : 0);
}
ClaimResult a004_mhn_attn_equiv(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A004-MHN-ATTN-EQUIV");
  const std::vector<AttnInst> insts = attn_instances(cfg, seed, false);
  Checker ck("max over rows i of ||W_V^T K^T softmax(beta K q_i) - A004-SOFTMAX-ATTN row i|| / max(1, norms), V = K W_V, beta = 1/sqrt(d_k) "
             "(causal: the patterns of query i are k_1..k_i)",
             cfg.digits);
  for (const AttnInst& a : insts)
    ck.add(a.desc, [&](unsigned dg, std::string& where) {
      MpDigitsScope sc(attn_digits(a, 1.0, dg));
      std::size_t row = 0;
      const double r = mhn_attn_residual(a, 1.0, &row);
      where = "row " + std::to_string(row + 1);
      return r;
    });
  // adversarial: Nelder-Mead over log10 of a key scale (large logits) on the largest causal instance
  const AttnInst& base = insts.back();
  auto obj = [&](const std::vector<double>& p) {
    const double ks = std::pow(10.0, std::clamp(p[0], -3.0, 2.5));
    MpDigitsScope sc(attn_digits(base, ks, cfg.digits));
    return -std::log10(std::max(1e-300, mhn_attn_residual(base, ks, nullptr)));
  };
  const NmResult nm = nelder_mead(obj, {0.0}, 1.0, cfg.quick ? 15 : 60);
  const double ks = std::pow(10.0, std::clamp(nm.x[0], -3.0, 2.5));
  ck.add(base.desc + " adversarial key scale " + fmt(ks, 6), [&](unsigned dg, std::string&) {
    MpDigitsScope sc(attn_digits(base, ks, dg));
    return mhn_attn_residual(base, ks, nullptr);
  });
  return ck.result(cfg, std::to_string(insts.size()) + " G1 instances n " + (cfg.quick ? "{1,2,3,7,16}" : "{1,2,3,7,16,64}") +
                            " x d_k {1,2,4,8} x d_v {1,3} x {full, causal} + 1 adversarial (" + std::to_string(nm.evals) + " evaluations)");
}

// min_W ||A W - B||_F / ||B||_F by Householder QR of A with column pivoting (rank: |R_kk| <= tau ||A||_F stops), current digits
mp_t ls_residual(MM A, MM B, const mp_t& tau, std::size_t& rank) {
  const std::size_t m = A.rows, n = A.cols;
  const mp_t nb = ref::frob(B), na = ref::frob(A);
  rank = 0;
  for (std::size_t k = 0; k < std::min(m, n); ++k) {
    std::size_t piv = k;
    mp_t best(-1);
    for (std::size_t j = k; j < n; ++j) {
      mp_t s(0);
      for (std::size_t i = k; i < m; ++i) s += A(i, j) * A(i, j);
      if (s > best) best = s, piv = j;
    }
    for (std::size_t i = 0; i < m; ++i) std::swap(A(i, k), A(i, piv));
    const mp_t nrm = sqrt(best);
    if (!(nrm > tau * na)) break;
    const mp_t alpha = A(k, k) > 0 ? mp_t(-nrm) : nrm;
    MV v(m - k);
    for (std::size_t i = k; i < m; ++i) v[i - k] = A(i, k);
    v[0] -= alpha;
    mp_t vv(0);
    for (const mp_t& x : v) vv += x * x;
    auto reflect = [&](MM& C) {
      for (std::size_t j = 0; j < C.cols; ++j) {
        mp_t s(0);
        for (std::size_t i = k; i < m; ++i) s += v[i - k] * C(i, j);
        s = 2 * s / vv;
        for (std::size_t i = k; i < m; ++i) C(i, j) -= s * v[i - k];
      }
    };
    if (vv > 0) {
      reflect(A);
      reflect(B);
    }
    rank = k + 1;
  }
  mp_t r(0);
  for (std::size_t i = rank; i < m; ++i)
    for (std::size_t j = 0; j < B.cols; ++j) r += B(i, j) * B(i, j);
  return nb > 0 ? mp_t(sqrt(r) / nb) : mp_t(0);
}
ClaimResult a004_mhn_attn_genv(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A004-MHN-ATTN-GENV");
  const std::vector<AttnInst> insts = attn_instances(cfg, seed, true);
  DoubledDigitsTally t;
  const unsigned D0 = cfg.digits;
  std::map<std::string, std::pair<int, int>> regimes;  // "n vs d_k, mask" -> (holds, fails)
  auto eval = [](const AttnInst& a, unsigned dg, std::size_t& rank) {
    MpDigitsScope sc(dg);
    const MM Q = to_mp(a.Q), K = to_mp(a.K), V = to_mp(a.V);
    const MM A = ref::softmax_rows(ref::attention_logits(Q, K, mp_t(1 / sqrt(mp_t(a.K.cols))), a.causal));
    return to_d(ls_residual(ref::matmul(A, K), ref::matmul(A, V), pow10m(dg - 10.0), rank));
  };
  std::string first_rank;
  for (const AttnInst& a : insts) {
    std::size_t rank = 0;
    const double r = eval(a, D0, rank);
    ++t.n;
    const bool fail = !(r <= identity_threshold(D0));
    const std::size_t n = a.K.rows, dk = a.K.cols;
    auto& reg = regimes[std::string(n <= dk ? "n <= d_k" : "n > d_k") + (a.causal ? ", causal" : ", full")];
    (fail ? reg.second : reg.first)++;
    if (r > t.worst || t.worst_desc.empty()) t.worst = r, t.worst_desc = a.desc + " (rank of A K " + std::to_string(rank) + ")";
    if (fail && !t.failed) {
      std::size_t rank2 = 0;
      const double r2 = eval(a, 2 * D0, rank2);
      if (!(r2 <= identity_threshold(2 * D0))) {
        t.failed = true;
        t.witness = a.desc + " (rank of A K " + std::to_string(rank) + ")";
        t.witness_value = r;
        t.witness_value_2x = fmt(r2, 6) + " at " + std::to_string(2 * D0) + " digits";
      } else if (!t.unconfirmed) {
        t.unconfirmed = true;
        t.witness = a.desc;
        t.witness_value = r;
        t.witness_value_2x = fmt(r2, 6);
      }
    }
  }
  ClaimResult r;
  r.evidence.statistic = "r = min_W ||A K W - A V||_F / ||A V||_F (least squares, pivoted Householder QR at P-50)";
  r.evidence.threshold = identity_threshold(D0);
  r.evidence.instances = t.n;
  r.evidence.digits = D0;
  r.evidence.seed = cfg.seed;
  r.evidence.sizes = std::to_string(insts.size()) + " G1 instances: n {1,2,3,5,8,16} x d_k {1,2,4,8} x d_v {1,3} x {full, causal}, V arbitrary";
  decide_doubled_digits(t, D0, "witness at doubled digits", "r <= 1e-40 on every instance", r);
  std::string reg;
  for (const auto& [k, v] : regimes) reg += (reg.empty() ? "" : "; ") + k + ": " + std::to_string(v.first) + " hold, " + std::to_string(v.second) + " fail";
  r.evidence.extra.emplace_back("size regimes (r <= 1e-40 per instance)", reg);
  return r;
}

// ---------------------------------------------------------------------------------------------
// A004-MHN-GRADSTEP, A004-MHN-ENERGY-DESCENT
// ---------------------------------------------------------------------------------------------
// ||FD grad E - (xi - xi_new)|| / max(1, ||xi - xi_new||) at the item's step and digits (shifted by dg - 50)
double gradstep_residual(const MhnInst& in, unsigned dg, std::string* note) {
  const double m = hf::max_norm(in.X), bm2 = 1 + in.beta * m * m;
  double e0;
  {
    MpDigitsScope sc(50);
    e0 = to_d(abs(mhn_energy(to_mp(in.X), to_mp(in.xi), mp_t(in.beta))));
  }
  const unsigned D = dg + static_cast<unsigned>(std::ceil(std::log10(bm2)) + std::ceil(std::log10(1 + e0)));
  MpDigitsScope sc(D);
  const MM X = to_mp(in.X);
  const MV xi = to_mp(in.xi);
  const mp_t b(in.beta), h = mp_t(1e-15) / mp_t(bm2);
  MV fd(xi.size());
  for (std::size_t i = 0; i < xi.size(); ++i) {
    MV p = xi, q = xi;
    p[i] += h;
    q[i] -= h;
    fd[i] = (mhn_energy(X, p, b) - mhn_energy(X, q, b)) / (2 * h);
  }
  const MV xn = hf::dense_retrieval(X, xi, b);
  mp_t d(0), g(0);
  for (std::size_t i = 0; i < xi.size(); ++i) {
    const mp_t gi = xi[i] - xn[i];
    d += (fd[i] - gi) * (fd[i] - gi);
    g += gi * gi;
  }
  if (note) *note = std::to_string(D) + " digits, h = " + fmt(to_d(h), 3);
  return to_d(mp_t(sqrt(d) / (g > 1 ? mp_t(sqrt(g)) : mp_t(1))));
}
// adversarial search (N = 2, P = 3): Nelder-Mead over (X, xi, log10 beta), entries in [-3, 3], log10 beta in [-2, 2.3]
MhnInst mhn_search(const MhnInst& start, const std::function<double(const MhnInst&)>& f, int evals) {
  auto build = [&](const std::vector<double>& z, MhnInst& in) {
    in = start;
    for (std::size_t i = 0; i < in.X.a.size(); ++i) in.X.a[i] = std::clamp(z[i], -3.0, 3.0);
    for (std::size_t i = 0; i < in.xi.size(); ++i) in.xi[i] = std::clamp(z[in.X.a.size() + i], -3.0, 3.0);
    in.beta = std::pow(10.0, std::clamp(z.back(), -2.0, 2.3));
  };
  std::vector<double> z0(start.X.a);
  z0.insert(z0.end(), start.xi.begin(), start.xi.end());
  z0.push_back(std::log10(start.beta));
  const NmResult nm = nelder_mead(
      [&](const std::vector<double>& z) {
        MhnInst in;
        build(z, in);
        return -f(in);
      },
      z0, 0.3, evals);
  MhnInst out;
  build(nm.x, out);
  out.desc = "adversarial (" + std::to_string(nm.evals) + " evaluations) N=" + std::to_string(out.X.cols) + " P=" + std::to_string(out.X.rows) +
             " beta=" + fmt(out.beta, 6);
  return out;
}
ClaimResult a004_mhn_gradstep(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A004-MHN-GRADSTEP");
  std::vector<MhnInst> insts = mhn_instances(cfg, seed, false);
  Rng g(mix(seed, 3));
  MhnInst s{"", hop_patterns(g, "G2", 3, 2), {0.3, -0.2}, 30.0};
  insts.push_back(mhn_search(s, [](const MhnInst& in) { return std::log10(std::max(1e-300, gradstep_residual(in, 50, nullptr))); },
                             cfg.quick ? 60 : 400));
  DoubledDigitsTally t;
  const double tol = 1e-25;
  for (const MhnInst& in : insts) {
    std::string note;
    const double r = gradstep_residual(in, cfg.digits, &note);
    ++t.n;
    if (r > t.worst || t.worst_desc.empty()) t.worst = r, t.worst_desc = mhn_desc(in) + " [" + note + "]";
    if (!(r <= tol) && !t.failed) {
      std::string note2;
      const double r2 = gradstep_residual(in, 2 * cfg.digits, &note2);
      if (!(r2 <= tol)) {
        t.failed = true;
        t.witness = mhn_desc(in) + " [" + note + "]";
        t.witness_value = r;
        t.witness_value_2x = fmt(r2, 6) + " (" + note2 + ")";
      } else if (!t.unconfirmed) {
        t.unconfirmed = true;
        t.witness = mhn_desc(in);
        t.witness_value = r;
        t.witness_value_2x = fmt(r2, 6);
      }
    }
  }
  ClaimResult r;
  r.evidence.statistic = "||central-difference grad E - (xi - xi_new)|| / max(1, ||xi - xi_new||), h = 1e-15 / (1 + beta M^2)";
  r.evidence.threshold = tol;
  r.evidence.instances = t.n;
  r.evidence.digits = cfg.digits;
  r.evidence.seed = cfg.seed;
  r.evidence.sizes = std::to_string(insts.size() - 1) + " instances (N {1,2,3,5,8} x P {1,2,3,7,20} x beta {1e-2,0.1,1,4,30,200} x scale {0.1,1,3}" +
                     (cfg.quick ? ", every fifth" : "") + ") + 1 adversarial";
  decide_doubled_digits(t, cfg.digits, "witness at doubled digits", "xi_new = xi - grad E(xi) to the tolerance on every instance", r);
  return r;
}

// E(xi') - E(xi) for up to `steps` steps from in.xi at P-exp digits D (+ dg - 50); returns the max of dE / (1 + |E|)
double descent_metric(const MhnInst& in, unsigned dg, int steps, std::string* where) {
  // digits: the tolerance is 1e-40 (1 + |E|) and MPFR's exponent range holds every weight without underflow, so the
  // working digits only need to resolve beta a (|beta a| <= beta M^2 + ...): dg + 10 + ceil(log10(1 + beta spread))
  const unsigned D = dg + 10 + static_cast<unsigned>(std::ceil(std::log10(1 + in.beta * mhn_spread(in))));
  MpDigitsScope sc(D);
  const MM X = to_mp(in.X);
  const mp_t b(in.beta);
  MV xi = to_mp(in.xi);
  double worst = -INFINITY;
  for (int s = 0; s < steps; ++s) {
    const MV xn = hf::dense_retrieval(X, xi, b);
    const mp_t E = mhn_energy(X, xi, b);
    const double q = to_d(mp_t(hf::dense_energy_change(X, xi, xn, b) / (1 + abs(E))));
    if (q > worst) {
      worst = q;
      if (where) *where = "step " + std::to_string(s + 1) + ", " + std::to_string(D) + " digits";
    }
    xi = xn;
  }
  return worst;
}
ClaimResult a004_mhn_energy_descent(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A004-MHN-ENERGY-DESCENT");
  std::vector<MhnInst> insts = mhn_instances(cfg, seed, true);
  Rng g(mix(seed, 3));
  MhnInst s{"", hop_patterns(g, "G2", 3, 2), {0.3, -0.2}, 30.0};
  insts.push_back(mhn_search(s, [](const MhnInst& in) { return descent_metric(in, 50, 1, nullptr); }, cfg.quick ? 60 : 400));
  DoubledDigitsTally t;
  const double tol = 1e-40;
  double f64_change = -INFINITY, f64_naive = -INFINITY;
  for (const MhnInst& in : insts) {
    std::string where;
    const double q = descent_metric(in, cfg.digits, 10, &where);
    ++t.n;
    if (q > t.worst || t.worst_desc.empty()) t.worst = q, t.worst_desc = mhn_desc(in) + " [" + where + "]";
    if (!(q <= tol) && !t.failed) {
      std::string w2;
      const double q2 = descent_metric(in, 2 * cfg.digits, 10, &w2);
      if (!(q2 <= tol)) {
        t.failed = true;
        t.witness = mhn_desc(in) + " [" + where + "]";
        t.witness_value = q;
        t.witness_value_2x = fmt(q2, 6) + " (" + w2 + ")";
      } else if (!t.unconfirmed) {
        t.unconfirmed = true;
        t.witness = mhn_desc(in);
        t.witness_value = q;
        t.witness_value_2x = fmt(q2, 6);
      }
    }
    // fp64 (reported separately): the same 10 steps in double, stable change and naive difference of energies
    std::vector<double> xi = in.xi;
    for (int st = 0; st < 10; ++st) {
      const std::vector<double> xn = hf::dense_retrieval(in.X, xi, in.beta);
      const double E = hf::dense_energy(in.X, xi, in.beta), sc = 1 + std::fabs(E);
      f64_change = std::max(f64_change, hf::dense_energy_change(in.X, xi, xn, in.beta) / sc);
      f64_naive = std::max(f64_naive, (hf::dense_energy(in.X, xn, in.beta) - E) / sc);
      xi = xn;
    }
  }
  ClaimResult r;
  r.evidence.statistic = "max over instances and 10 consecutive steps of (E(xi_new) - E(xi)) / (1 + |E(xi)|) (dense_energy_change)";
  r.evidence.threshold = tol;
  r.evidence.instances = t.n;
  r.evidence.digits = cfg.digits;
  r.evidence.seed = cfg.seed;
  r.evidence.sizes = std::to_string(insts.size() - 1) + " instances (the GRADSTEP grid x {random state, near xi_1, far, near-duplicate patterns}" +
                     (cfg.quick ? ", every fifth" : "") + ") + 1 adversarial";
  decide_doubled_digits(t, cfg.digits, "witness at doubled digits", "no step raises the energy by more than 1e-40 (1 + |E|)", r);
  r.evidence.extra.emplace_back("fp64 (not part of the verdict): max (E' - E) / (1 + |E|)",
                                "dense_energy_change<double> " + fmt(f64_change) + "; naive E(xi') - E(xi) " + fmt(f64_naive));
  return r;
}

}  // namespace

void register_a004_modern_hopfield(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A004-MHN-DEF", "Modern Hopfield network (Ramsauer): lse, update, batched fast form, energy [external]", identity, true, a004_mhn_def);
  add("A004-MHN-ATTN-EQUIV", "One MHN update (patterns = keys, values K W_V) = one self-attention pass", identity, false, a004_mhn_attn_equiv);
  add("A004-MHN-ATTN-GENV", "One self-attention pass = one MHN update followed by a fixed linear map (any V) [interp]", identity, false,
      a004_mhn_attn_genv);
  add("A004-MHN-GRADSTEP", "The MHN update is a unit gradient step on the energy", identity, false, a004_mhn_gradstep);
  add("A004-MHN-ENERGY-DESCENT", "The MHN update does not increase the energy", inequality, false, a004_mhn_energy_descent);
}

}  // namespace recall
