// Memory and Forgetting (seed A004), Part B: slide "Linear Attention", Eqs. (12)-(14): the kernel
// replacement of Eq. (13) in feature and kernel space, pulling the query out of the sums (Eq. 13 =
// Eq. 14, with the parallel and chunked fast forms) and the feature maps phi of A004-PHI-SET [external].
// Spec IDs: A004-EQ13-KERNEL-ATTN, A004-EQ13-14-FACTOR, A004-PHI-SET.
#include "recall/proofs/claims.hpp"
#include "recall/proofs/ledger.hpp"
#include "recall/reference/counting.hpp"
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/forms.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/softmax.hpp"
#include "recall/reference/ttt.hpp"
#include "claim_support.hpp"
#include "a004_claims.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace recall {

using namespace claim_support;
using namespace claim_support::a004;

namespace {

// Maps of A004-PHI-SET used by the normalised forms.
std::vector<FeatureMap> phi_set_maps() {
  return {fmap(FeatureMapKind::identity),
          fmap(FeatureMapKind::elu1),
          fmap(FeatureMapKind::relu),
          fmap(FeatureMapKind::poly, 2),
          fmap(FeatureMapKind::dpfp, 2, 1),
          fmap(FeatureMapKind::dpfp, 2, 2),
          fmap(FeatureMapKind::exp_trunc, 2),
          fmap(FeatureMapKind::exp_trunc, 3),
          fmap(FeatureMapKind::elu1, 2, 1, true, false),
          fmap(FeatureMapKind::dpfp, 2, 1, false, true)};
}

}  // namespace

// =============================================================================================
// A004-EQ13-KERNEL-ATTN: feature-space vs kernel-space evaluation of Eq. (13)
// =============================================================================================
ClaimResult a004_eq13_kernel_attn(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A004-EQ13-KERNEL-ATTN");
  Checker ck(std::string("max over tokens of the relative residual, feature-space vs kernel-space Eq. (13), and of the denominators") + kCondNote,
             cfg.digits);
  double max_cond = 1;
  const std::vector<std::size_t> ns = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 7, 16} : std::vector<std::size_t>{1, 2, 3, 7, 64, 257};
  std::vector<FeatureMap> maps = {fmap(FeatureMapKind::poly, 2)};
  for (int M = 1; M <= 4; ++M) maps.push_back(fmap(FeatureMapKind::exp_trunc, M));
  const std::vector<Keys> kinds = {Keys::gauss, Keys::sphere, Keys::repeated, Keys::nearpar, Keys::zero, Keys::onehot, Keys::t3};
  int inst = 0;
  for (std::size_t n : ns) for (int rep = 0; rep < full_reps(cfg, n); ++rep)
    for (std::size_t d : {1, 2, 3})
      for (const FeatureMap& f : maps) {
        if (!cfg.quick && n >= 257 && (d != 3 || f.order > 2)) continue;
        for (Keys kind : kinds) {
          if (ck.stopped()) break;
          if (!cfg.quick && n >= 64 && kind != Keys::gauss && kind != Keys::nearpar) continue;
          ++inst;
          const std::uint64_t is = mix(cs, inst);
          Rng g(is);
          const DM Kd = key_rows(g, kind, n, d), Qd = gauss(g, n, d), Vd = gauss(g, n, 2);
          const std::string desc = "n=" + std::to_string(n) + " d_k=" + std::to_string(d) + " d_v=2 phi=" + fmap_name(f) +
                                   " keys=" + keys_name(kind) + " instance=" + std::to_string(inst) + " instance-seed=" + std::to_string(is);
          const int M = f.order;
          const bool is_poly = f.kind == FeatureMapKind::poly;
          auto kappa = [M, d, is_poly](const mp_t* k, const mp_t* q) {
            const mp_t s = ref::dot(k, q, d);
            if (is_poly) return mp_t(s * s);
            mp_t term(1), acc(1);
            for (int m = 1; m <= M; ++m) {
              term = term * s / mp_t(m);
              acc += term;
            }
            return acc;
          };
          {  // denominator screen (kernel space, at the working digits)
            MpDigitsScope s(cfg.digits);
            const MM Q = to_mp(Qd), K = to_mp(Kd);
            const std::size_t bad = tiny_denominator(Q, K, kappa);
            if (bad) {
              ck.exclude(desc, "|D_i| <= 1e-30 sum|kappa| at i=" + std::to_string(bad));
              continue;
            }
          }
          ck.add(desc, [&](unsigned dg, std::string& where) {
            MpDigitsScope s(dg);
            const MM Q = to_mp(Qd), K = to_mp(Kd), V = to_mp(Vd);
            const MM PQ = ref::apply_feature_map(f, Q), PK = ref::apply_feature_map(f, K);
            MV dker, dfeat;
            const MM Oker = ref::kernel_ratio_of_sums(Q, K, V, kappa, &dker);
            const MM Ofeat = ref::kernel_ratio_of_sums(PQ, PK, V, dot_kernel(PQ.cols), &dfeat);
            Worst w;
            w.rows(Ofeat, Oker, "outputs");
            w.upd(vecrel(dfeat, dker), "denominators");
            return cond_scaled(w, Q, K, V, kappa, dg, cfg, max_cond, where);
          });
        }
      }
  ClaimResult r = ck.result(cfg, "n in {" + std::string(cfg.quick ? "1,2,3,7,16" : "1,2,3,7,64,257") +
                                     "}, d_k in {1,2,3}, d_v = 2, phi in {poly2, exp_trunc M=1..4}, G1/G2 keys");
  r.evidence.extra.emplace_back("kernels", "poly2: (k^T q)^2; exp_trunc: sum_{m<=M} (k^T q)^m / m!");
  r.evidence.extra.emplace_back("largest condition factor", fmt(max_cond));
  return r;
}

// =============================================================================================
// A004-EQ13-14-FACTOR: (13) = (14), and the fast forms
// =============================================================================================
ClaimResult a004_eq13_14_factor(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A004-EQ13-14-FACTOR");
  Checker ck(std::string("max relative residual over tokens: (14) recurrent, (14) literal, parallel [V 1], chunked [V 1] vs (13)") + kCondNote,
             cfg.digits);
  double max_cond = 1;
  const std::vector<std::size_t> ns = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 7, 16} : std::vector<std::size_t>{1, 2, 3, 7, 64, 257};
  const std::vector<Keys> kinds = {Keys::gauss, Keys::sphere, Keys::repeated, Keys::nearpar, Keys::zero, Keys::onehot, Keys::t3};
  int inst = 0;
  for (std::size_t n : ns) for (int rep = 0; rep < full_reps(cfg, n); ++rep)
    for (std::size_t d : {1, 2, 3})
      for (const FeatureMap& f : phi_set_maps()) {
        if (!fmap_ok(f, d)) continue;
        for (Keys kind : kinds) {
          if (ck.stopped()) break;
          if (n >= 64 && kind != Keys::gauss && kind != Keys::sphere) continue;
          if (n >= 257 && d != 2) continue;
          if (cfg.quick && n == 16 && kind != Keys::gauss && kind != Keys::zero && kind != Keys::onehot) continue;
          ++inst;
          const std::uint64_t is = mix(cs, inst);
          Rng g(is);
          const DM Kd = key_rows(g, kind, n, d), Qd = gauss(g, n, d), Vd = gauss(g, n, 2);
          const std::string desc = "n=" + std::to_string(n) + " d_k=" + std::to_string(d) + " d_v=2 phi=" + fmap_name(f) +
                                   " keys=" + keys_name(kind) + " instance=" + std::to_string(inst) + " instance-seed=" + std::to_string(is);
          {
            MpDigitsScope s(cfg.digits);
            MM PQ, PK;
            if (!try_map(f, to_mp(Qd), PQ) || !try_map(f, to_mp(Kd), PK)) {
              ck.exclude(desc, "zero feature vector under a normalising wrapper");
              continue;
            }
            if (std::size_t bad = tiny_denominator(PQ, PK)) {
              ck.exclude(desc, "|D_i| <= 1e-30 sum|phi(k)^T phi(q)| at i=" + std::to_string(bad));
              continue;
            }
          }
          ck.add(desc, [&](unsigned dg, std::string& where) {
            MpDigitsScope s(dg);
            const MM V = to_mp(Vd);
            const MM PQ = ref::apply_feature_map(f, to_mp(Qd)), PK = ref::apply_feature_map(f, to_mp(Kd));
            const MM y13 = ref::kernel_ratio_of_sums(PQ, PK, V, dot_kernel(PQ.cols));
            Worst w;
            w.rows(ref::normalized_linear_attention(PQ, PK, V).O, y13, "(14) recurrent");
            w.rows(eq14_literal(PQ, PK, V), y13, "(14) literal");
            w.rows(ref::normalized_linear_attention_augmented(PQ, PK, V, 0).O, y13, "parallel [V 1]");
            for (std::size_t C : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(5), n + 1})
              w.rows(ref::normalized_linear_attention_augmented(PQ, PK, V, C).O, y13, "chunked C=" + std::to_string(C));
            return cond_scaled(w, PQ, PK, V, dot_kernel(PQ.cols), dg, cfg, max_cond, where);
          });
        }
      }
  ClaimResult r = ck.result(cfg, "n in {" + std::string(cfg.quick ? "1,2,3,7,16" : "1,2,3,7,64,257") +
                                     "}, d_k in {1,2,3}, d_v = 2, phi in {id, elu1, relu, poly2, dpfp nu=1,2, exp_trunc M=2,3, "
                                     "elu1+sum-norm, dpfp+l2-norm}, G1/G2 keys, chunks {1,2,3,5,n+1}");
  r.evidence.extra.emplace_back("excluded instances", std::to_string(ck.excluded()) +
                                                          " (vanishing denominators, zero features under wrappers)");
  r.evidence.extra.emplace_back("largest condition factor", fmt(max_cond));
  return r;
}

// =============================================================================================
// A004-PHI-SET
// =============================================================================================
ClaimResult a004_phi_set(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A004-PHI-SET");
  Checker ck("property/identity residual: shape mismatch (1), negativity (1), kernel identity |phi(k).phi(q) - kappa| / max(1, |kappa|, "
             "sum_r |phi(k)_r phi(q)_r|), wrapper |sum - 1| / max(1, sum|.|) and |norm - 1|, zero-output not flagged (1)",
             cfg.digits);
  const std::vector<std::size_t> dims = cfg.quick ? std::vector<std::size_t>{1, 2, 3, 4, 5} : std::vector<std::size_t>{1, 2, 3, 4, 5, 8, 16};
  const int reps = cfg.quick ? 3 : 20;
  int inst = 0;
  int zero_dpfp = 0, zero_relu = 0, flags_raised = 0, flags_expected = 0, zero_cases = 0;
  for (std::size_t d : dims) {
    // (a) shapes and non-negativity for every map; (b) kernel identities; (c) wrappers
    std::vector<FeatureMap> maps = {fmap(FeatureMapKind::identity), fmap(FeatureMapKind::elu1), fmap(FeatureMapKind::relu),
                                    fmap(FeatureMapKind::poly, 2)};
    for (int nu = 1; nu <= 3; ++nu)
      if (2 * d > static_cast<std::size_t>(nu)) maps.push_back(fmap(FeatureMapKind::dpfp, 2, nu));
    for (int M = 0; M <= 4; ++M)
      if (d <= 5 || M <= 3) maps.push_back(fmap(FeatureMapKind::exp_trunc, M));
    for (const FeatureMap& f0 : maps)
      for (int rep = 0; rep < reps; ++rep) {
        if (ck.stopped()) break;
        ++inst;
        const std::uint64_t is = mix(cs, inst);
        Rng g(is);
        const double scale = rep == 0 ? 1.0 : (rep == 1 ? 1e-3 : (rep == 2 ? 30.0 : std::pow(10.0, (static_cast<double>(rep % 7) - 3.0))));
        const DM Xd = gauss(g, 2, d, scale);
        const std::string desc = "d=" + std::to_string(d) + " phi=" + fmap_name(f0) + " scale=" + fmt(scale) +
                                 " instance=" + std::to_string(inst) + " instance-seed=" + std::to_string(is);
        ck.add(desc, [&](unsigned dg, std::string& where) {
          MpDigitsScope s(dg);
          const MM X = to_mp(Xd);
          Worst w;
          const MM P = ref::apply_feature_map(f0, X);
          std::size_t expect = 0;
          switch (f0.kind) {
            case FeatureMapKind::identity: case FeatureMapKind::elu1: case FeatureMapKind::relu: expect = d; break;
            case FeatureMapKind::poly: expect = d * d; break;
            case FeatureMapKind::dpfp: expect = 2 * d * static_cast<std::size_t>(f0.nu); break;
            case FeatureMapKind::exp_trunc: { std::size_t p = 1; for (int m = 0; m <= f0.order; ++m) { expect += p; p *= d; } break; }
            default: break;
          }
          w.upd(P.cols == expect && ref::feature_dim(f0, d) == expect ? 0.0 : 1.0,
                "shape: got " + std::to_string(P.cols) + ", expected " + std::to_string(expect));
          if (f0.kind == FeatureMapKind::elu1 || f0.kind == FeatureMapKind::relu || f0.kind == FeatureMapKind::dpfp) {
            bool neg = false;
            std::size_t at = 0;
            for (std::size_t i = 0; i < P.a.size(); ++i)
              if (P.a[i] < 0) { neg = true; at = i; break; }
            w.upd(neg ? 1.0 : 0.0, "negative feature at flat index " + std::to_string(at + 1));
          }
          const mp_t kq = ref::dot(X.row(0), X.row(1), d);
          const mp_t fd = ref::dot(P.row(0), P.row(1), P.cols);
          if (f0.kind == FeatureMapKind::poly || f0.kind == FeatureMapKind::exp_trunc) {
            mp_t kern;
            if (f0.kind == FeatureMapKind::poly) {
              kern = kq * kq;
            } else {
              mp_t term(1);
              kern = mp_t(1);
              for (int m = 1; m <= f0.order; ++m) { term = term * kq / mp_t(m); kern += term; }
            }
            mp_t absdot(0);  // sum_r |phi(k)_r phi(q)_r|: the scale of the feature-space sum
            for (std::size_t c = 0; c < P.cols; ++c) absdot += abs(mp_t(P(0, c) * P(1, c)));
            const mp_t den = mp_max1(abs(kern), absdot);
            w.upd(to_d(mp_t(abs(mp_t(fd - kern)) / den)), "kernel identity phi(k)^T phi(q) vs closed form");
          }
          // wrappers on the same rows (skipped when the raw feature vector is zero: covered below)
          for (int wr = 0; wr < 2; ++wr) {
            FeatureMap f = f0;
            (wr == 0 ? f.sum_normalize : f.l2_normalize) = true;
            for (std::size_t row = 0; row < 2; ++row) {
              bool zero = true, sum0 = false;
              mp_t sm(0);
              for (std::size_t c = 0; c < P.cols; ++c) { if (P(row, c) != 0) zero = false; sm += P(row, c); }
              sum0 = (sm == 0);
              if (zero || (wr == 0 && sum0)) continue;
              const MV p = ref::apply_feature_map(f, X.row(row), d);
              mp_t acc(0), absum(0);
              if (wr == 0) { for (const mp_t& v : p) { acc += v; absum += abs(v); } }
              else { for (const mp_t& v : p) ref::muladd(acc, v, v); acc = sqrt(acc); }
              // scale-free: |sum - 1| relative to sum_r |phi_r| / |sum_r phi_r| (cancellation in signed features)
              w.upd(to_d(mp_t(abs(mp_t(acc - 1)) / mp_max1(absum, mp_t(1)))),
                    std::string(wr == 0 ? "sum-normalised |sum - 1| / max(1, sum|phi~|)" : "l2-normalised |norm - 1|") + " row " +
                        std::to_string(row + 1));
            }
          }
          where = w.where;
          return w.r;
        });
      }
    // (d) zero-output detection: DPFP(nu=1) of a vector with one nonzero coordinate, ReLU of x <= 0
    for (int rep = 0; rep < 2 && !ck.stopped(); ++rep) {
      ++inst;
      const std::uint64_t is = mix(cs, inst);
      Rng g(is);
      std::uniform_int_distribution<std::size_t> U(0, d - 1);
      const std::size_t h = U(g);
      DM one(1, d), nonpos(1, d);
      std::normal_distribution<double> N(0, 1);
      one(0, h) = rep == 0 ? 1.7 : -0.4;
      for (std::size_t j = 0; j < d; ++j) nonpos(0, j) = (j == h) ? 0.0 : -std::fabs(N(g));
      const std::string desc = "zero-output detection d=" + std::to_string(d) + " one-hot coordinate " + std::to_string(h + 1) +
                               " instance=" + std::to_string(inst) + " instance-seed=" + std::to_string(is);
      ck.add(desc, [&, one, nonpos](unsigned dg, std::string& where) {
        MpDigitsScope s(dg);
        Worst w;
        const MM A = to_mp(one), B = to_mp(nonpos);
        struct Case { const char* name; FeatureMap f; const MM* x; int* counter; };
        const Case cases[2] = {{"dpfp(nu=1) of a one-nonzero vector", fmap(FeatureMapKind::dpfp, 2, 1), &A, &zero_dpfp},
                               {"relu of a non-positive vector", fmap(FeatureMapKind::relu), &B, &zero_relu}};
        for (const Case& c : cases) {
          const MV p = ref::apply_feature_map(c.f, c.x->row(0), d);
          bool zero = true;
          for (const mp_t& v : p) if (v != 0) zero = false;
          if (dg == cfg.digits) { ++zero_cases; if (zero) ++*c.counter; }
          if (!zero) continue;  // not a zero output: nothing to detect (reported via the counters)
          for (int wr = 0; wr < 2; ++wr) {
            FeatureMap f = c.f;
            (wr == 0 ? f.sum_normalize : f.l2_normalize) = true;
            bool threw = false;
            try { (void)ref::apply_feature_map(f, c.x->row(0), d); } catch (const std::invalid_argument&) { threw = true; }
            if (dg == cfg.digits) { ++flags_expected; if (threw) ++flags_raised; }
            w.upd(threw ? 0.0 : 1.0, std::string(c.name) + (wr == 0 ? ": sum-normalisation" : ": l2-normalisation") +
                                          " of the zero vector not flagged");
          }
        }
        where = w.where;
        return w.r;
      });
    }
  }
  ClaimResult r = ck.result(cfg, "d in {" + std::string(cfg.quick ? "1..5" : "1..5,8,16") +
                                     "}, maps id/elu1/relu/poly2/dpfp nu=1..3/exp_trunc M=0..4, wrappers sum/l2, scales 1e-3..1e3");
  r.evidence.extra.emplace_back("zero outputs (reported)",
                                "dpfp(nu=1) of a one-nonzero vector gave the zero vector in " + std::to_string(zero_dpfp) + " of " +
                                    std::to_string(zero_cases / 2) + " cases; relu of a non-positive vector in " + std::to_string(zero_relu) +
                                    " of " + std::to_string(zero_cases / 2) + "; the wrappers flagged (threw on) " + std::to_string(flags_raised) +
                                    " of " + std::to_string(flags_expected) + " zero-vector normalisations");
  {  // dpfp(nu=1) at d_k = 1 on Gaussian inputs (every such vector has a single nonzero coordinate)
    Rng g(mix(cs, 777777));
    const DM X = gauss(g, 50, 1);
    const DM P = ref::apply_feature_map(fmap(FeatureMapKind::dpfp, 2, 1), X);
    int zeros = 0;
    for (std::size_t t = 0; t < P.rows; ++t) {
      bool z = true;
      for (std::size_t c = 0; c < P.cols; ++c) if (P(t, c) != 0) z = false;
      zeros += z;
    }
    r.evidence.extra.emplace_back("dpfp(nu=1) at d_k = 1 (reported)", std::to_string(zeros) + " of 50 Gaussian inputs map to the zero vector");
  }
  return r;
}

void register_a004_kernelised_attention(Ledger& l) {
  const auto add = claim_support::claim_adder(l);
  using namespace check_class;
  add("A004-EQ13-KERNEL-ATTN", "Kernel replacement kappa' = phi(k)^T phi(q) (Eq. 13)", identity, true, a004_eq13_kernel_attn);
  add("A004-EQ13-14-FACTOR", "Pulling the query out of the sums (Eq. 13 = Eq. 14)", identity, true, a004_eq13_14_factor);
  add("A004-PHI-SET", "Feature maps used by the kernelised forms", identity, true, a004_phi_set);
}

}  // namespace recall
