// Paper A003 (Hu et al. 2024, nonparametric modern Hopfield models), §2.2 (cited from Ramsauer et al.): log-sum-exp,
// the dense energy (2.2) and the retrieval map (2.3)/(3.7). The energy-descent and stationarity statements (T1)/(T2),
// the overlap construction, one dense step as softmax attention (2.4) and the sub-memory energy of reading R are in
// dense_dynamics.cpp.
// Spec IDs: A003-LSE, A003-DENSE-ENERGY, A003-DENSE-RETRIEVAL. References: recall/reference/hopfield.hpp (lse,
// dense_energy, dense_energy_change, dense_energy_gradient, dense_retrieval). The D-EQ "fast vs reference"
// parts are the registry ops' agreement tests; here the definitions and their derived properties are checked.
//
// internal: true for A003-LSE, A003-DENSE-ENERGY, A003-DENSE-RETRIEVAL (definitions: their check lines are identities of
// our own forms).
//
// Precision and decision rules (spec C9, C10, C12):
//  * Identities (R-ID): relative residual ||a - b|| / max(1, ||a||, ||b||) <= 10^-(D0 - 10), D0 = cfg.digits (P-50), each
//    instance at its P-ADAPT digits D = max(50, ceil(beta spread / ln 10) + 30) + (D0 - 50) (hop_padapt_digits); a failure
//    is re-verified at doubled digits (IdentityCheck). Finite differences run at 2D digits with central steps
//    h = 10^-(0.6 D) / max(1, beta m^2) (truncation O(h^2 beta^2 m^3), rounding O(|E| 10^-2D / h): both far below the
//    threshold); Hessian quadratic forms at 3D digits with h = 10^-(0.7 D) / max(1, beta).
//  * LSE streaming merge: the pairwise merge l(A u B) = max + log1p(e^-|lA - lB|) of chunk values l = beta lse in MP vs
//    the one-shot value (R-ID), and in double vs the MP one-shot (D-EQ): |l_dbl - l| <= 16 u kappa,
//    kappa = (1 + ceil(log2 #chunks)) (1 + |l|) + beta max|z| (rounding of beta z and of one merge per tree level).
// Instances: hop_patterns G1-G3 (the d, M grids of dense_set, support/hopfield_claims.hpp), hop_g4_family, queries
// hop_query Q1-Q5 and x ~ N(0, I); beta grid {0.1, 1, 8, 64} (quick: {1, 8, 64}, fewer sizes, every second instance).
// LSE: score vectors z of sizes M in {1, 2, 3, 7, 30} (quick: every third), spreads {1e-3, 1, 100, 1e4}, beta in
// {0.01, 1, 50}, Gaussian / all equal / with -inf entries; the double merge at beta = 1 with M in {1e3, 1e4} (full: 1e3,
// 1e5, 1e6). Seeds: tag_seed(cfg.seed, ID); every draw from std::mt19937_64 words (hopfield_claims.hpp), reproducible.
#include "recall/proofs/ledger.hpp"
#include "recall/reference/hopfield.hpp"
#include "adversarial_search.hpp"
#include "claim_support.hpp"
#include "hopfield_claims.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
namespace hf = ref::hopfield;

// the helpers shared with dense_dynamics.cpp (pow10m, sub, mp_max_abs, fd_grad, dense_set / dense_instances,
// inst_digits) are in hopfield_claims.hpp

// ---------------------------------------------------------------------------------------------
// A003-LSE
// ---------------------------------------------------------------------------------------------
// pairwise merge of chunk values l = beta lse(beta, chunk) in scalar S (the fast form); -inf chunks add nothing
template <class S> S merge_tree(std::vector<S> l) {
  using std::log1p; using std::exp;
  using boost::multiprecision::log1p; using boost::multiprecision::exp;
  while (l.size() > 1) {
    std::vector<S> nx;
    for (std::size_t i = 0; i < l.size(); i += 2) {
      if (i + 1 == l.size()) {
        nx.push_back(l[i]);
        continue;
      }
      const S &a = l[i], &b = l[i + 1];
      if (ref::is_neg_inf(a)) nx.push_back(b);
      else if (ref::is_neg_inf(b)) nx.push_back(a);
      else nx.push_back((a > b ? a : b) + log1p(exp(S(-(a > b ? S(a - b) : S(b - a))))));
    }
    l = std::move(nx);
  }
  return l[0];
}
template <class S> S stream_lse(const S& beta, const std::vector<S>& z, std::size_t chunk) {
  std::vector<S> l;
  for (std::size_t i = 0; i < z.size(); i += chunk) {
    std::vector<S> c(z.begin() + static_cast<std::ptrdiff_t>(i), z.begin() + static_cast<std::ptrdiff_t>(std::min(z.size(), i + chunk)));
    bool any = false;
    for (const S& v : c) any = any || ref::is_finite(v);
    l.push_back(any ? S(beta * hf::lse(beta, c)) : ref::neg_inf<S>());
  }
  return merge_tree(l);
}
struct LseInst {
  std::string desc;
  std::vector<double> z;
  double beta;
};
std::vector<LseInst> lse_instances(const CheckConfig& cfg, std::uint64_t seed, bool big) {
  Rng g(seed);
  std::vector<LseInst> out;
  std::vector<std::size_t> Ms = {1, 2, 3, 7, 30};
  if (big) Ms = cfg.quick ? std::vector<std::size_t>{1000, 10000} : std::vector<std::size_t>{1000, 100000, 1000000};
  for (std::size_t M : Ms)
    for (double spread : {1e-3, 1.0, 100.0, 1e4})
      for (double beta : {0.01, 1.0, 50.0})
        for (int kind = 0; kind < 3; ++kind) {  // Gaussian; all equal; a quarter -inf
          if (big && (beta != 1.0 || (kind == 1 && spread != 1.0) || (M >= 1000000 && (spread < 1e4 || kind == 1)))) continue;
          LseInst in;
          in.beta = beta;
          in.z.resize(M);
          const double shift = spread * (hop_uniform(g) - 0.5) * 10;
          for (double& v : in.z) v = kind == 1 ? shift : shift + spread * hop_normal(g);
          if (kind == 2)
            for (std::size_t i = 0; i < M; ++i)
              if (i % 4 == 1) in.z[i] = -INFINITY;
          in.desc = "M=" + std::to_string(M) + " spread=" + fmt(spread) + " beta=" + fmt(beta) + (kind == 1 ? " all-equal" : kind == 2 ? " with -inf entries" : " Gaussian");
          out.push_back(std::move(in));
        }
  return out;
}
ClaimResult a003_lse(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A003-LSE");
  Checker ck("max relative residual over: bounds max z <= lse <= max z + ln M / beta (defects); finite-difference gradient vs Softmax(beta z); "
             "second directional derivative vs beta (sum pi v^2 - (sum pi v)^2) and lambda_min(beta (diag pi - pi pi^T)) >= 0 (M <= 8); "
             "lse(z + c 1) = lse(z) + c; streaming pairwise merge = one-shot (chunks 1, 3, 64)",
             cfg.digits);
  const std::vector<LseInst> lsets = lse_instances(cfg, seed, false);
  for (std::size_t li = 0; li < lsets.size(); li += cfg.quick ? 3 : 1) {
    const LseInst& in = lsets[li];
    ck.add(in.desc, [&](unsigned dg, std::string& where) {
      MpDigitsScope sc(dg);
      const mp_t b(in.beta);
      const MV z = to_mp(in.z);
      Worst w;
      const mp_t l = hf::lse(b, z);
      mp_t zmax = ref::neg_inf<mp_t>();
      std::size_t nfin = 0;
      for (const mp_t& v : z)
        if (ref::is_finite(v)) zmax = nfin++ ? (v > zmax ? v : zmax) : v;
      const mp_t sc1 = 1 + abs(zmax);
      w.upd(std::max(0.0, to_d(mp_t((zmax - l) / sc1))), "lower bound");
      w.upd(std::max(0.0, to_d(mp_t((l - zmax - log(mp_t(nfin)) / b) / sc1))), "upper bound");
      const MV pi = hf::softmax_weights(b, z);
      {  // gradient by central differences at 2 dg digits
        MpDigitsScope s2(2 * dg);
        const mp_t b2(in.beta), h = pow10m(0.6 * dg) / (b2 > 1 ? b2 : mp_t(1));
        const MV z2 = to_mp(in.z);
        for (std::size_t i = 0; i < z2.size(); ++i) {
          if (!ref::is_finite(z2[i])) continue;
          MV zp = z2, zm = z2;
          zp[i] += h;
          zm[i] -= h;
          const mp_t fd = (hf::lse(b2, zp) - hf::lse(b2, zm)) / (2 * h);
          w.upd(to_d(abs(mp_t(fd - pi[i]))), "d lse / dz_" + std::to_string(i + 1));
        }
      }
      if (z.size() <= 8) {  // Hessian: second directional derivatives (3 dg digits) and lambda_min by Jacobi
        Rng g(mix(seed, z.size()));
        for (int rep = 0; rep < 2; ++rep) {
          std::vector<double> v = hop_unit(g, z.size());
          MpDigitsScope s3(3 * dg);
          const mp_t b3(in.beta), h = pow10m(0.7 * dg) / (b3 > 1 ? b3 : mp_t(1));
          const MV z3 = to_mp(in.z), vv = to_mp(v), p3 = hf::softmax_weights(b3, z3);
          MV zp = z3, zm = z3;
          mp_t m1(0), m2(0);
          for (std::size_t i = 0; i < z3.size(); ++i) {
            if (!ref::is_finite(z3[i])) continue;
            zp[i] += h * vv[i];
            zm[i] -= h * vv[i];
            m1 += p3[i] * vv[i];
            m2 += p3[i] * vv[i] * vv[i];
          }
          const mp_t fd2 = (hf::lse(b3, zp) - 2 * hf::lse(b3, z3) + hf::lse(b3, zm)) / (h * h);
          const mp_t q = b3 * (m2 - m1 * m1);  // v^T beta (diag pi - pi pi^T) v
          w.upd(to_d(mp_t(abs(mp_t(fd2 - q)) / (1 + abs(q)))), "second derivative along v");
        }
        MM H(z.size(), z.size()), V(z.size(), z.size());
        for (std::size_t i = 0; i < z.size(); ++i) {
          V(i, i) = 1;
          for (std::size_t j = 0; j < z.size(); ++j) H(i, j) = -b * pi[i] * pi[j];
          mp_t rest(0);  // diagonal beta pi_i (1 - pi_i) = beta pi_i sum_{j != i} pi_j, without the cancellation of 1 - pi_i
          for (std::size_t j = 0; j < z.size(); ++j)
            if (j != i) rest += pi[j];
          H(i, i) = b * pi[i] * rest;
        }
        mp_t hmax(0);
        for (const mp_t& a : H.a) hmax = abs(a) > hmax ? abs(a) : hmax;
        for (int sweep = 0; sweep < 60; ++sweep) {
          mp_t off(0);
          for (std::size_t p = 0; p < z.size(); ++p)
            for (std::size_t q = p + 1; q < z.size(); ++q) off += H(p, q) * H(p, q);
          if (!(off > pow10m(2.0 * dg + 10) * (hmax * hmax + 1e-300))) break;
          for (std::size_t p = 0; p < z.size(); ++p)
            for (std::size_t q = p + 1; q < z.size(); ++q)
              if (H(p, q) != 0) jacobi_rotate(H, V, p, q);
        }
        mp_t lmin = H(0, 0);
        for (std::size_t i = 1; i < z.size(); ++i) lmin = H(i, i) < lmin ? H(i, i) : lmin;
        w.upd(std::max(0.0, to_d(mp_t(-lmin / (hmax > 0 ? hmax : mp_t(1))))), "lambda_min(Hessian) >= 0");
      }
      for (double c : {-1e8, -1.0 / 1024, 1.0 / 3, 1e3}) {  // shift invariance (z + c exact at these digits for dyadic c)
        MV zc = z;
        for (mp_t& v : zc)
          if (ref::is_finite(v)) v += mp_t(c);
        const mp_t lc = hf::lse(b, zc), rhs = l + mp_t(c);
        w.upd(to_d(mp_t(abs(mp_t(lc - rhs)) / (1 + abs(rhs)))), "shift c=" + fmt(c));
      }
      for (std::size_t chunk : {1, 3, 64}) {
        const mp_t ls = stream_lse(b, z, chunk), lb = b * l;
        w.upd(to_d(mp_t(abs(mp_t(ls - lb)) / (1 + abs(lb)))), "merge chunk " + std::to_string(chunk));
      }
      where = w.where;
      return w.r;
    });
  }
  ClaimResult id = ck.result(cfg, std::string("M {1,2,3,7,30} x spread {1e-3,1,100,1e4} x beta {0.01,1,50} x {Gaussian, all equal, -inf entries}") +
                                      (cfg.quick ? ", every third" : ""));
  // D-EQ: double streaming merge (chunks of 256) vs the MP one-shot value, large M
  double worst = 0;
  std::string wdesc;
  int n = 0;
  for (const LseInst& in : lse_instances(cfg, mix(seed, 2), true)) {
    const double ld = stream_lse(in.beta, in.z, 256);
    MpDigitsScope sc(cfg.digits);
    const mp_t b(in.beta), l = b * hf::lse(b, to_mp(in.z));
    double zm = 0;
    for (double v : in.z)
      if (std::isfinite(v)) zm = std::max(zm, std::fabs(v));
    const double chunks = std::ceil(static_cast<double>(in.z.size()) / 256.0);
    const double kappa = (1 + std::ceil(std::log2(std::max(1.0, chunks)))) * (1 + std::fabs(to_d(l))) + in.beta * zm;
    const double q = to_d(abs(mp_t(mp_t(ld) - l))) / (0x1.0p-53 * kappa);
    ++n;
    if (q > worst || wdesc.empty()) worst = q, wdesc = in.desc;
  }
  ClaimResult deq;
  deq.evidence.statistic = "max |l_double - l| / (u kappa), l = beta lse: double streaming merge (chunks of 256) vs the MP one-shot value";
  deq.evidence.value = worst;
  deq.evidence.threshold = 16;
  deq.evidence.instances = n;
  deq.evidence.witness = wdesc;
  deq.evidence.sizes = std::string("M ") + (cfg.quick ? "{1e3, 1e4}" : "{1e3, 1e5} and 1e6 (spread 1e4)") +
                       " x spread {1e-3,1,100,1e4} x {Gaussian, all equal, -inf entries}, beta = 1";
  deq.evidence.digits = cfg.digits;
  deq.evidence.seed = cfg.seed;
  deq.verdict = worst <= 16 ? Verdict::holds : Verdict::violated;
  deq.reason = worst <= 16 ? "within 16 u kappa (D-EQ)" : "an instance exceeds 16 u kappa";
  return combine({{"definition properties (P-50)", id}, {"streaming merge in double (D-EQ)", deq}});
}

// ---------------------------------------------------------------------------------------------
// A003-DENSE-ENERGY
// ---------------------------------------------------------------------------------------------
ClaimResult a003_dense_energy(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A003-DENSE-ENERGY");
  const std::vector<HopInst> insts = dense_instances(dense_set(cfg), seed, cfg.quick ? 2 : 1);
  Checker ck("max relative residual over: finite-difference grad E vs x - T_Dense(x) (/ max(1, ||grad||)); E vs the literal "
             "-beta^-1 log sum exp(beta <x, xi>) + |x|^2/2 (no max shift; / max(1, |E|)); the change E(T(x)) - E(x) of "
             "dense_energy_change vs E(x') - E(x) formed at raised digits (relative to the size ||x' - x|| (||x' + x|| + m) of its terms)",
             cfg.digits);
  for (const HopInst& in : insts) {
    ck.add(hop_desc(in), [&](unsigned dg, std::string& where) {
      const unsigned D = inst_digits(in, dg);
      Worst w;
      MV g;
      mp_t Ex;
      {
        MpDigitsScope sc(D);
        const HopMP p = hop_mp(in);
        g = hf::dense_energy_gradient(p.Xi, p.x, p.beta);
        Ex = hf::dense_energy(p.Xi, p.x, p.beta);
        // literal (2.2): MPFR's exponent range holds exp(beta a) unshifted
        mp_t s(0);
        for (const mp_t& a : hf::scores(p.Xi, p.x)) s += exp(mp_t(p.beta * a));
        const mp_t lit = -log(s) / p.beta + ref::dot(p.x.data(), p.x.data(), p.x.size()) / 2;
        w.upd(to_d(mp_t(abs(mp_t(Ex - lit)) / (1 + abs(Ex)))), "E vs literal (2.2)");
        // the energy change of one step against the difference of energies at raised digits
        const MV xn = hf::dense_retrieval(p.Xi, p.x, p.beta);
        const mp_t dE = hf::dense_energy_change(p.Xi, p.x, xn, p.beta);
        const MV dx = sub(xn, p.x);
        MV sx = xn;
        for (std::size_t i = 0; i < sx.size(); ++i) sx[i] += p.x[i];
        const mp_t terms = mp_norm(dx) * (mp_norm(sx) + hf::max_norm(p.Xi));
        if (terms > 0) {
          const double lost = std::max(0.0, lg(mp_t(1 + abs(Ex))) - lg(terms));
          MpDigitsScope up(D + static_cast<unsigned>(std::ceil(lost)) + 20);
          const MM X2 = to_mp(in.Xi);
          const mp_t b2(in.beta);
          MV x2 = to_mp(in.x), xn2 = xn;  // the same x' (exact values of the D-digit step)
          const mp_t naive = hf::dense_energy(X2, xn2, b2) - hf::dense_energy(X2, x2, b2);
          w.upd(to_d(mp_t(abs(mp_t(dE - naive)) / terms)), "energy change vs raised-digit difference (|dE| = " + fmt(to_d(abs(naive)), 3) + ")");
        }
      }
      {
        MpDigitsScope s2(2 * D);
        const HopMP p = hop_mp(in);
        const mp_t m = hf::max_norm(p.Xi);
        const mp_t scale = 1 + p.beta * m * m;
        const mp_t h = pow10m(0.6 * D) / scale;
        const MV fd = fd_grad([&](const MV& y) { return hf::dense_energy(p.Xi, y, p.beta); }, p.x, h);
        const mp_t ng = mp_norm(g);
        w.upd(to_d(mp_t(mp_norm(sub(fd, g)) / (ng > 1 ? ng : mp_t(1)))), "finite-difference gradient");
      }
      where = w.where;
      return w.r;
    });
  }
  return ck.result(cfg, std::to_string(insts.size()) + " instances (G1-G3, G4; Q1/Q2/Q5/N(0,I)" + (cfg.quick ? ", every second; " : "; ") +
                            "beta grid), P-ADAPT digits");
}

// ---------------------------------------------------------------------------------------------
// A003-DENSE-RETRIEVAL
// ---------------------------------------------------------------------------------------------
ClaimResult a003_dense_retrieval(const CheckConfig& cfg) {
  const std::uint64_t seed = tag_seed(cfg.seed, "A003-DENSE-RETRIEVAL");
  const std::vector<HopInst> insts = dense_instances(dense_set(cfg), seed, cfg.quick ? 2 : 1);
  Checker ck("max relative residual over: (||T(x)|| - m)_+ and |sum pi - 1| (T(x) in conv{xi}); permutation equivariance; beta = 10^-(D0+10) vs "
             "the mean; beta = (D0 + 10) ln 10 / gap vs the arg-max memory (exact ties averaged); (3.7) with Xi_delta = Xi vs (2.3) bit for "
             "bit; (3.7) with noisy keys vs its literal unshifted quotient",
             cfg.digits);
  int skipped_inf = 0;
  for (std::size_t idx = 0; idx < insts.size(); ++idx) {
    const HopInst& in = insts[idx];
    ck.add(hop_desc(in), [&](unsigned dg, std::string& where) {
      MpDigitsScope sc(inst_digits(in, dg));
      const HopMP p = hop_mp(in);
      const std::size_t M = p.Xi.rows, d = p.Xi.cols;
      Worst w;
      const MV t = hf::dense_retrieval(p.Xi, p.x, p.beta);
      const mp_t m = hf::max_norm(p.Xi);
      w.upd(std::max(0.0, to_d(mp_t((mp_norm(t) - m) / (m > 1 ? m : mp_t(1))))), "||T|| <= m");
      const MV pi = hf::softmax_weights(p.beta, hf::scores(p.Xi, p.x));
      mp_t s(0);
      double neg = 0;
      for (const mp_t& v : pi) s += v, neg = v < 0 ? INFINITY : neg;
      w.upd(std::max(neg, to_d(abs(mp_t(s - 1)))), "weights in the simplex");
      Rng g(mix(seed, idx));
      std::vector<std::size_t> pr(M);
      std::iota(pr.begin(), pr.end(), std::size_t{0});
      for (std::size_t i = M; i > 1; --i) std::swap(pr[i - 1], pr[hop_below(g, i)]);
      MM Xp(M, d);
      for (std::size_t r = 0; r < M; ++r)
        for (std::size_t c = 0; c < d; ++c) Xp(r, c) = p.Xi(pr[r], c);
      w.upd(vecrel(hf::dense_retrieval(Xp, p.x, p.beta), t), "permutation");
      MV mean(d, mp_t(0));
      for (std::size_t r = 0; r < M; ++r)
        for (std::size_t c = 0; c < d; ++c) mean[c] += p.Xi(r, c) / mp_t(M);
      w.upd(vecrel(hf::dense_retrieval(p.Xi, p.x, mp_t(pow10m(dg + 10.0))), mean), "beta -> 0");
      // beta -> infinity: the arg-max set (exact ties at these digits) and the gap to the next score
      const MV a = hf::scores(p.Xi, p.x);
      mp_t top = a[0];
      for (const mp_t& v : a) top = v > top ? v : top;
      std::vector<std::size_t> arg;
      mp_t gap(-1);
      for (std::size_t r = 0; r < M; ++r) {
        if (a[r] == top) arg.push_back(r);
        else if (gap < 0 || top - a[r] < gap) gap = top - a[r];
      }
      MV am(d, mp_t(0));
      for (std::size_t r : arg)
        for (std::size_t c = 0; c < d; ++c) am[c] += p.Xi(r, c) / mp_t(arg.size());
      if (gap < 0) {
        w.upd(vecrel(hf::dense_retrieval(p.Xi, p.x, mp_t(1e6)), am), "beta -> inf (all scores tied)");
      } else if (gap > 1e-12 * (1 + abs(top))) {
        // weights off the arg-max set <= e^{-beta gap} = 10^-(dg+10); MPFR's exponent range holds them without underflow,
        // so the digits only need to resolve beta a: dg + log10(beta max|a|) + 10
        const mp_t bigb = mp_t((dg + 10.0) * std::log(10.0)) / gap;
        MpDigitsScope up(mp_digits() + static_cast<unsigned>(std::max(0.0, lg(mp_t(bigb * (1 + mp_max_abs(a)))))) + 10);
        const HopMP q = hop_mp(in);
        w.upd(vecrel(hf::dense_retrieval(q.Xi, q.x, bigb), am), "beta -> inf (" + std::to_string(arg.size()) + " tied)");
      } else if (dg == cfg.digits) {
        ++skipped_inf;
      }
      const MV t37 = hf::dense_retrieval(p.Xi, p.Xi, p.x, p.beta);
      w.upd(t37 == t ? 0.0 : INFINITY, "(3.7) with delta = 0 vs (2.3) bit for bit");
      MM K = p.Xi;
      for (mp_t& v : K.a) v += mp_t(0.01 * hop_normal(g));
      const MV tk = hf::dense_retrieval(p.Xi, K, p.x, p.beta);
      MV lit(d, mp_t(0));
      mp_t den(0);
      for (std::size_t r = 0; r < M; ++r) {
        const mp_t e = exp(mp_t(p.beta * ref::dot(K.row(r), p.x.data(), d)));
        den += e;
        for (std::size_t c = 0; c < d; ++c) lit[c] += e * p.Xi(r, c);
      }
      for (mp_t& v : lit) v /= den;
      w.upd(vecrel(tk, lit), "(3.7) noisy keys vs literal quotient");
      where = w.where;
      return w.r;
    });
  }
  ClaimResult r = ck.result(cfg, std::to_string(insts.size()) + " instances (G1-G3, G4; Q1/Q2/Q5/N(0,I)" + (cfg.quick ? ", every second; " : "; ") +
                                     "beta grid), P-ADAPT digits");
  r.evidence.extra.emplace_back("beta -> infinity not evaluated (a near-tie: gap <= 1e-12 (1 + |a_max|) without an exact tie)", std::to_string(skipped_inf));
  return r;
}

}  // namespace

void register_a003_dense_model(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A003-LSE", "log-sum-exp: bounds, gradient = softmax, Hessian PSD, shift invariance, streaming merge = one-shot", identity, true, a003_lse);
  add("A003-DENSE-ENERGY", "Dense energy (2.2): gradient x - T(x), literal form, stable energy change", identity, true, a003_dense_energy);
  add("A003-DENSE-RETRIEVAL", "Dense retrieval (2.3)/(3.7): convex hull, equivariance, beta limits, (3.7) = (2.3) at delta = 0", identity, true,
      a003_dense_retrieval);
}

}  // namespace recall
