// Paper A000 (associative memory), §2.1 and App. 6: the retrieval signal/noise split and the inverse
// retrieval SNR of a kernel memory, its conditional closed form (Eq. 57) and the large-N form (Eq. 10),
// the linear and ReLU kernels (Eqs. 7, 15) and the ReLU comparison claim. The exponential and SoLU
// kernels are in snr_exponential_kernels.cpp; the closed forms in reference/retrieval_snr.hpp, the
// Monte Carlo of the definition in support/snr_support.hpp.
// Spec IDs: A000-RETRIEVAL-DECOMP, A000-SNR-DEF, A000-SNR-COND, A000-SNR-KERNEL, A000-SNR-NORM-INV,
// A000-SNR-LINEAR, A000-SNR-RELU, A000-SNR-RELU-CMP.
#include "recall/proofs/ledger.hpp"
#include "claim_support.hpp"
#include "snr_support.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::snr;
namespace rs = ref::snr;


// =============================================================================================
// A000-RETRIEVAL-DECOMP: the memory's read-out S phi(k_i) (S = sum_j v_j phi(k_j)^T, formed in feature
// space) equals c v_i + r computed from the kernel (c = kappa(k_i, k_i), r = sum_{j != i} v_j kappa(k_j, k_i)),
// for every kernel with a finite feature map: linear (identity), (x^T y)^2 (Kronecker square),
// (1 + x^T y)^2, and the truncated exponential phi_M (M = 4); repeated and zero keys included.
// =============================================================================================
ClaimResult a000_retrieval_decomp(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A000-RETRIEVAL-DECOMP");
  IdentityCheck ic("max relative |S phi(k_i) - (c v_i + r)| over probes", cfg.digits);
  struct Map {
    ref::FeatureMapKind kind;
    int order;
    const char* name;
  };
  const Map maps[] = {{ref::FeatureMapKind::identity, 1, "linear"},
                      {ref::FeatureMapKind::poly, 2, "(x'y)^2"},
                      {ref::FeatureMapKind::poly2_affine, 2, "(1+x'y)^2"},
                      {ref::FeatureMapKind::exp_trunc, 4, "exp truncated at M=4"}};
  const std::vector<std::size_t> Ns = cfg.quick ? std::vector<std::size_t>{1, 2, 7} : std::vector<std::size_t>{1, 2, 3, 7, 16, 64};
  int inst = 0;
  for (const Map& m : maps)
    for (std::size_t N : Ns)
      for (std::size_t dk : {std::size_t(1), std::size_t(3)})
        for (int variant = 0; variant < 3; ++variant) {  // 0 Gaussian, 1 a repeated key, 2 a zero key
          Rng g(mix(cs, ++inst));
          DM K = gauss(g, N, dk), V = gauss(g, N, 2);
          if (variant == 1 && N > 1) for (std::size_t c = 0; c < dk; ++c) K(N - 1, c) = K(0, c);
          if (variant == 2) for (std::size_t c = 0; c < dk; ++c) K(N / 2, c) = 0;
          const std::string desc = std::string(m.name) + " N=" + std::to_string(N) + " dk=" + std::to_string(dk) +
                                   (variant == 1 ? " repeated key" : variant == 2 ? " zero key" : "");
          ic.add(desc, [&](unsigned dg) {
            MpDigitsScope sc(dg);
            const MM k = to_mp(K), v = to_mp(V);
            const ref::FeatureMap f = fmap(m.kind, m.order);
            MM phi;
            if (!try_map(f, k, phi)) throw std::logic_error("feature map failed on " + desc);
            auto kap = [&](const mp_t& x) {
              switch (m.kind) {
                case ref::FeatureMapKind::identity: return x;
                case ref::FeatureMapKind::poly: return mp_t(x * x);
                case ref::FeatureMapKind::poly2_affine: return mp_t((1 + x) * (1 + x));
                default: {
                  mp_t s = 0, t = 1;
                  for (int q = 0; q <= m.order; ++q) {
                    if (q > 0) t = t * x / mp_t(q);
                    s += t;
                  }
                  return s;
                }
              }
            };
            mp_t worst = 0;
            for (std::size_t i = 0; i < N; ++i) {
              const auto r = ref::snr::decompose(k, v, i, kap);
              // S phi(k_i) in feature space: sum_j v_j (phi(k_j)^T phi(k_i))
              for (std::size_t c = 0; c < 2; ++c) {
                mp_t read = 0;
                for (std::size_t j = 0; j < N; ++j) read += v(j, c) * ref::dot(phi.row(j), phi.row(i), phi.cols);
                const mp_t split = r.signal[c] + r.noise[c];
                worst = std::max(worst, mp_t(abs(mp_t(read - split)) / mp_max1(abs(read), abs(split))));
              }
            }
            return to_d(worst);
          });
        }
  return ic.result(cfg, "4 finite feature maps x N in " + list_str(Ns) + " x dk in {1,3} x {Gaussian, repeated, zero key}");
}

// =============================================================================================
// Shared: E1 Monte Carlo cells against a closed form. For each (kernel, dk, N, dv, tau) a probe of
// squared norm s2 = dk, M replicates of the definition; z of `form(kernel, s2, N, tau)`.
// =============================================================================================
struct Cell {
  Kernel k;
  int dk, N, dv;
  double tau;
  std::string desc() const {
    return std::string(rs::kernel_name(k)) + " dk=" + std::to_string(dk) + " N=" + std::to_string(N) + " dv=" + std::to_string(dv) +
           (k == Kernel::exp || k == Kernel::solu ? " tau=" + fmt(tau, 4) : "");
  }
};
std::vector<Cell> e1_cells(bool quick, const std::vector<int>& Ns) {
  std::vector<Cell> v;
  for (Kernel k : {Kernel::linear, Kernel::relu, Kernel::exp, Kernel::solu})
    for (int dk : quick ? std::vector<int>{4, 16} : std::vector<int>{4, 16, 64})
      for (int N : Ns)
        for (int dv : {4, 16}) {  // d_v = 1 leaves a chi^2_1 factor whose product with kappa^2 is too skewed for the interval
          // exp and SoLU at tau = 2 sqrt(d_k): kappa^2 is then lognormal with sigma = 2 sqrt(s2)/tau = 1 (plain_mc_ok); at the
          // paper's tau = sqrt(d_k) sigma = 2, whose skewness (~400) leaves a 3000-replicate mean far from normal (seen: |z| > 4
          // on cells a 4x re-run accepts). The closed forms are one formula in tau, checked exactly at every tau elsewhere.
          // (SoLU's x^2 factor adds skew: tau = 3 sqrt(d_k) for it)
          const double tau = (k == Kernel::exp ? 2.0 : k == Kernel::solu ? 3.0 : 1.0) * std::sqrt(static_cast<double>(dk));
          v.push_back({k, dk, N, dv, tau});
        }
  return v;
}
int replicates(const Cell& c, bool quick) {
  // a replicate costs N (dk + dv) draws; few noise terms (small N) leave the replicate skewed (one relu(X)^2 or
  // e^{2X/tau} term), which a normal-theory interval needs many replicates to absorb
  const int base = quick ? 3000 : 12000;
  return std::max(500, base * 64 / std::max(4, c.N));
}

struct E1Run {
  CellTally tally{kZ};
  std::vector<std::pair<Cell, Mean>> cells;
};
template <class Form> E1Run run_e1(const CheckConfig& cfg, const char* id, const std::vector<int>& Ns, Form&& form) {
  const std::uint64_t cs = tag_seed(cfg.seed, id);
  E1Run out;
  int inst = 0;
  for (const Cell& c : e1_cells(cfg.quick, Ns)) {
    const double s2 = c.dk;
    if (!plain_mc_ok(c.k, s2, c.tau)) throw std::logic_error("A000 SNR cell outside plain_mc_ok: " + c.desc());
    Gauss g(mix(cs, ++inst));
    const std::vector<double> ki = probe_with_norm2(c.dk, s2, g);
    const Mean m = conditional_mc(c.k, ki, c.N, c.dv, c.tau, replicates(c, cfg.quick), g);
    const double target = form(c, s2);
    out.cells.push_back({c, m});
    out.tally.add(c.desc() + ": MC " + m.str() + " vs " + fmt(target, 6), m.z(target), [&] {
      Gauss g2(mix(cs, 1000 + inst));
      return conditional_mc(c.k, ki, c.N, c.dv, c.tau, 4 * replicates(c, cfg.quick), g2).z(target);
    });
  }
  return out;
}
std::string cell_sizes(bool quick, const std::vector<int>& Ns) {
  return std::string("kernels {linear, ReLU, exp, SoLU} (exp: tau = 2 sqrt dk, SoLU: 3 sqrt dk), dk in ") + (quick ? "{4,16}" : "{4,16,64}") + ", N in " +
         list_str(Ns) + ", dv in {4,16}, probe ||k_i||^2 = dk, keys N(0,I), values N(0,I)";
}

// =============================================================================================
// A000-SNR-COND (Eq. 57): E1 = (N-1) E[kappa(X)^2] / kappa(s2)^2 after dropping the cross terms and
// taking E||v_j||^2 = ||v_i||^2; the Monte Carlo keeps the cross terms and draws whole keys.
// =============================================================================================
ClaimResult a000_snr_cond(const CheckConfig& cfg) {
  const std::vector<int> Ns = {2, 16, 256};
  E1Run r = run_e1(cfg, "A000-SNR-COND", Ns, [](const Cell& c, double s2) { return rs::conditional<double>(c.k, s2, c.N, c.tau); });
  ClaimResult res = decide_cells(r.tally, "every cell's Monte Carlo of Eq. 6 (cross terms kept) agrees with (N-1) E[kappa^2]/kappa(s2)^2",
                           "largest |z| of Eq. 57 against the replicate mean (99.9% per cell)", cfg, cell_sizes(cfg.quick, Ns));
  // figure: SNR^-1 vs N/dk per kernel, closed form and Monte Carlo +- 2 se (dv = 8)
  ClaimFigure f;
  f.id = "snr_vs_load";
  f.title = "Inverse retrieval SNR at ||k_i||^2 = d_k (exp: tau = 2 sqrt d_k, SoLU: 3 sqrt d_k)";
  f.caption = "Eq. 57 (lines) and the Monte Carlo of the definition Eq. 6 (markers; dotted: +- 2 standard errors), d_v = 16.";
  f.x_label = "N / d_k";
  f.y_label = "SNR^-1";
  f.x_scale = f.y_scale = "log";
  for (Kernel k : {Kernel::linear, Kernel::relu, Kernel::exp, Kernel::solu}) {
    FigureSeries formula{std::string(rs::kernel_name(k)) + " Eq. 57", {}, {}, "solid", "", rs::kernel_name(k)};
    FigureSeries mc{std::string(rs::kernel_name(k)) + " Monte Carlo", {}, {}, "solid", "o", rs::kernel_name(k)};
    FigureSeries lo{std::string(rs::kernel_name(k)) + " -2 se", {}, {}, "dotted", "", rs::kernel_name(k)};
    FigureSeries hi{std::string(rs::kernel_name(k)) + " +2 se", {}, {}, "dotted", "", rs::kernel_name(k)};
    for (const auto& [c, m] : r.cells) {
      if (c.k != k || c.dv != 16 || c.dk != 16) continue;
      const double x = static_cast<double>(c.N) / c.dk;
      formula.x.push_back(x), formula.y.push_back(rs::conditional<double>(c.k, c.dk, c.N, c.tau));
      mc.x.push_back(x), mc.y.push_back(m.mean), lo.x.push_back(x), lo.y.push_back(m.mean - 2 * m.se), hi.x.push_back(x),
          hi.y.push_back(m.mean + 2 * m.se);
    }
    for (auto* s : {&formula, &mc, &lo, &hi}) f.series.push_back(*s);
  }
  res.evidence.figures.push_back(std::move(f));
  return res;
}

// =============================================================================================
// A000-SNR-KERNEL (Eq. 10 = Eq. 58): N E[kappa^2]/kappa^2, i.e. N - 1 -> N "for large N". Decided on its
// exact content: Eq. 10 x (N-1)/N against the Monte Carlo; the gap N/(N-1) is the evidence, with the
// largest N at which the Monte Carlo still rejects Eq. 10 itself.
// =============================================================================================
ClaimResult a000_snr_kernel(const CheckConfig& cfg) {
  const std::vector<int> Ns = cfg.quick ? std::vector<int>{2, 4, 64} : std::vector<int>{2, 4, 16, 256, 4096};
  E1Run r = run_e1(cfg, "A000-SNR-KERNEL", Ns, [](const Cell& c, double s2) {
    return rs::conditional_eq10<double>(c.k, s2, c.N, c.tau) * (c.N - 1) / c.N;
  });
  ClaimResult res = decide_cells(r.tally, "Eq. 10 scaled by (N-1)/N agrees with the Monte Carlo in every cell: Eq. 10 is the exact E1 with N for N-1",
                           "largest |z| of Eq. 10 x (N-1)/N against the replicate mean", cfg, cell_sizes(cfg.quick, Ns));
  int rejected_at = 0;
  double worst_gap = 0;
  for (const auto& [c, m] : r.cells) {
    const double eq10 = rs::conditional_eq10<double>(c.k, static_cast<double>(c.dk), c.N, c.tau);
    if (std::fabs(m.z(eq10)) > kZ) rejected_at = std::max(rejected_at, c.N);
    worst_gap = std::max(worst_gap, eq10 / rs::conditional<double>(c.k, static_cast<double>(c.dk), c.N, c.tau) - 1);
  }
  res.evidence.extra.push_back({"Eq. 10 / E1 - 1 (= 1/(N-1))", "largest " + fmt(worst_gap, 4) + " (at N = 2)"});
  res.evidence.extra.push_back({"largest N at which the Monte Carlo rejects Eq. 10 as printed", std::to_string(rejected_at)});
  return res;
}

// =============================================================================================
// A000-SNR-DEF (Eq. 6): the estimand with v_i random in the denominator (E0) equals E1 d_v/(d_v - 2)
// (||v_i||^2 ~ chi^2_dv independent of the rest), finite for d_v > 2 only; checked for d_v in {8, 16}
// (finite variance needs d_v > 4), E1 from Eq. 57.
// =============================================================================================
ClaimResult a000_snr_def(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A000-SNR-DEF");
  E1Run r;
  int inst = 0;
  for (Kernel k : {Kernel::linear, Kernel::relu})
    for (int dk : {4, 16})
      for (int N : {2, 16})
        for (int dv : {8, 16}) {
          Gauss g(mix(cs, ++inst));
          const std::vector<double> ki = probe_with_norm2(dk, dk, g);
          const int M = (cfg.quick ? 6000 : 24000) * (N <= 2 ? 4 : 1);  // a single noise term: skewed replicates
          const double target = rs::conditional<double>(k, dk, N, 1.0) * dv / (dv - 2.0);
          const Mean m = conditional_mc(k, ki, N, dv, 1.0, M, g, /*random_vi=*/true);
          const std::string desc = std::string(rs::kernel_name(k)) + " dk=" + std::to_string(dk) + " N=" + std::to_string(N) + " dv=" +
                                   std::to_string(dv) + ": E0 MC " + m.str() + " vs " + fmt(target, 6);
          r.tally.add(desc, m.z(target), [&] {
            Gauss g2(mix(cs, 1000 + inst));
            return conditional_mc(k, ki, N, dv, 1.0, 4 * M, g2, true).z(target);
          });
        }
  ClaimResult res = decide_cells(r.tally, "the Monte Carlo of Eq. 6 with v_i random equals E1 d_v/(d_v-2) in every cell (E1 = Eq. 57)",
                           "largest |z| of E1 d_v/(d_v-2) against the E0 replicate mean", cfg,
                           "kernels {linear, ReLU}, dk in {4,16}, N in {2,16}, dv in {8,16}");
  res.evidence.extra.push_back({"note", "for d_v <= 2, E0 is infinite (E[1/chi^2_dv] diverges): Eq. 6 read literally needs d_v > 2"});
  return res;
}

// =============================================================================================
// A000-SNR-NORM-INV (footnote 4): dividing every weight by a common normaliser Z = sum_j kappa(k_j, k_i)
// (probe included) leaves ||r||^2 / (c^2 ||v_i||^2) unchanged, per sample (exp kernel, log-scaled, logit
// spreads up to 600, N = 1).
// =============================================================================================
ClaimResult a000_snr_norm_inv(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A000-SNR-NORM-INV");
  IdentityCheck ic("max relative difference of the per-sample ratio with and without the normaliser", cfg.digits);
  int inst = 0;
  for (int N : {1, 2, 16})
    for (double scale : {1.0, 10.0})
      for (double tau : {1.0, 8.0}) {
        Rng g(mix(cs, ++inst));
        const DM K = gauss(g, static_cast<std::size_t>(N), 6, scale), V = gauss(g, static_cast<std::size_t>(N), 3);
        ic.add("N=" + std::to_string(N) + " key scale " + fmt(scale) + " tau " + fmt(tau), [&](unsigned dg) {
          MpDigitsScope sc(dg);
          const MM k = to_mp(K), v = to_mp(V);
          const mp_t t = tau;
          auto kap = [&](const mp_t& x) { return mp_t(exp(x / t)); };
          const auto a = ref::snr::decompose(k, v, 0, kap);
          mp_t Z = 0;
          for (std::size_t j = 0; j < k.rows; ++j) Z += kap(ref::dot(k.row(j), k.row(0), k.cols));
          auto ratio = [&](const mp_t& norm) {
            mp_t r2 = 0, v2 = 0;
            for (std::size_t c = 0; c < v.cols; ++c) r2 += (a.noise[c] / norm) * (a.noise[c] / norm), v2 += v(0, c) * v(0, c);
            const mp_t cc = a.c / norm;
            return mp_t(r2 / (cc * cc * v2));
          };
          const mp_t r1 = ratio(mp_t(1)), r2 = ratio(Z);
          return to_d(mp_t(abs(mp_t(r1 - r2)) / mp_max1(abs(r1), abs(r2))));
        });
      }
  return ic.result(cfg, "exp kernel, N in {1,2,16}, dk = 6, key scales {1,10}, tau in {1,8}");
}

// =============================================================================================
// A000-SNR-LINEAR (Eq. 7) and A000-SNR-RELU (Eq. 15): printed conditional N/s2 (N/(2 s2)) and boxed
// N/d_k (N/(2 d_k)). Decided on the exact content: E1 = (N-1)/s2 ((N-1)/(2 s2)) by the Monte Carlo at
// probes s2 in {d_k/2, d_k, 2 d_k}, and E2 = (N-1)/(d_k - 2) (halved for ReLU) by averaging the
// Monte Carlo over random probes; the printed forms' gap to each is the evidence.
// =============================================================================================
ClaimResult snr_linear_like(const CheckConfig& cfg, Kernel k, const char* id) {
  const std::uint64_t cs = tag_seed(cfg.seed, id);
  E1Run r;
  int inst = 0;
  const double half = k == Kernel::relu ? 2.0 : 1.0;
  double worst_cond_gap = 0, worst_avg_gap = 0;
  for (int dk : cfg.quick ? std::vector<int>{8, 32} : std::vector<int>{3, 8, 32, 128})
    for (int N : {2, 64}) {
      for (double f : {0.5, 1.0, 2.0}) {  // E1 at fixed probes
        const double s2 = f * dk;
        Gauss g(mix(cs, ++inst));
        const std::vector<double> ki = probe_with_norm2(dk, s2, g);
        const int M = cfg.quick ? 3000 : 12000;
        const double target = (N - 1) / (half * s2);
        const Mean m = conditional_mc(k, ki, N, 8, 1.0, M, g);
        r.tally.add(std::string("E1 dk=") + std::to_string(dk) + " N=" + std::to_string(N) + " s2=" + fmt(s2) + ": MC " + m.str() + " vs " +
                        fmt(target, 6),
                    m.z(target), [&] {
                      Gauss g2(mix(cs, 1000 + inst));
                      return conditional_mc(k, ki, N, 8, 1.0, 4 * M, g2).z(target);
                    });
        worst_cond_gap = std::max(worst_cond_gap, std::fabs(N / (half * s2) / target - 1));
      }
      if (dk > 4) {  // E2: finite variance of 1/chi^2_dk needs dk > 4
        const int P = cfg.quick ? 400 : 2000, M = 40;
        auto run = [&](std::uint64_t seed, int probes) {
          Gauss g(seed);
          std::vector<double> per;
          for (int p = 0; p < probes; ++p) {
            std::vector<double> ki(static_cast<std::size_t>(dk));  // a random probe: s2 ~ chi^2_dk
            for (double& x : ki) x = g.normal();
            per.push_back(conditional_mc(k, ki, N, 8, 1.0, M, g).mean);
          }
          return mean_of(per);
        };
        ++inst;
        const double target = rs::probe_average<double>(k, dk, N, 1.0);
        const Mean m = run(mix(cs, inst), P);
        r.tally.add(std::string("E2 dk=") + std::to_string(dk) + " N=" + std::to_string(N) + ": MC " + m.str() + " vs " + fmt(target, 6),
                    m.z(target), [&] { return run(mix(cs, 1000 + inst), 4 * P).z(target); });
        worst_avg_gap = std::max(worst_avg_gap, std::fabs(N / (half * dk) / target - 1));
      }
    }
  const std::string form = k == Kernel::relu ? "(N-1)/(2 s2) and E2 = (N-1)/(2(d_k-2))" : "(N-1)/s2 and E2 = (N-1)/(d_k-2)";
  ClaimResult res = decide_cells(r.tally, "exact content holds: E1 = " + form + " agree with the Monte Carlo of Eq. 6 in every cell; the printed N-forms are approximations (gaps below)",
                           "largest |z| of the exact forms against the replicate means", cfg,
                           std::string("dk in ") + (cfg.quick ? "{8,32}" : "{3,8,32,128}") + ", N in {2,64}, dv = 8, probes s2 in {dk/2, dk, 2dk} and random");
  res.evidence.extra.push_back({"printed conditional vs E1: largest relative gap", fmt(worst_cond_gap, 4) + " (= 1/(N-1))"});
  res.evidence.extra.push_back({"boxed N/d_k form vs E2: largest relative gap", fmt(worst_avg_gap, 4) + " (= N(d_k-2)/((N-1)d_k) - 1)"});
  return res;
}
ClaimResult a000_snr_linear(const CheckConfig& cfg) { return snr_linear_like(cfg, Kernel::linear, "A000-SNR-LINEAR"); }
ClaimResult a000_snr_relu(const CheckConfig& cfg) { return snr_linear_like(cfg, Kernel::relu, "A000-SNR-RELU"); }

// =============================================================================================
// A000-SNR-RELU-CMP: "ReLU improves over linear ... but still falls significantly short of" the
// exponential kernel. Decided on the ordering only ("significantly" has no number): ReLU < linear, and
// exp < ReLU at tau = sqrt(d_k), under the paper's own closed forms (Eqs. 7, 13, 15: E3), E1 at
// s2 = d_k and E2, for d_k = 1..256 (E2: d_k > 2), exact at 50 digits; the smallest failing d_k is
// confirmed at doubled digits, with a paired Monte Carlo (common random numbers) as evidence.
// =============================================================================================
ClaimResult a000_snr_relu_cmp(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A000-SNR-RELU-CMP");
  MpDigitsScope sc(cfg.digits);
  ClaimResult res;
  Evidence& e = res.evidence;
  e.digits = cfg.digits;
  e.seed = cfg.seed;
  int first_fail = 0, last_fail_e3 = 0;
  std::string fails_e3, fails_e1, fails_e2;
  double ratio_relu_lin = 0;
  for (int dk = 1; dk <= 256; ++dk) {
    const mp_t d = dk, N = 1024, tau = boost::multiprecision::sqrt(d);
    const mp_t e3_exp = rs::eq13(d, N, tau), e3_relu = rs::eq15(d, N);
    const mp_t e1_exp = rs::conditional(Kernel::exp, d, N, tau), e1_relu = rs::conditional(Kernel::relu, d, N, tau),
               e1_lin = rs::conditional(Kernel::linear, d, N, tau);
    ratio_relu_lin = std::max(ratio_relu_lin, to_d(e1_relu / e1_lin));
    const bool f3 = !(e3_exp < e3_relu), f1 = !(e1_exp < e1_relu);
    bool f2 = false;
    if (dk > 2) f2 = !(rs::probe_average(Kernel::exp, d, N, tau) < rs::probe_average(Kernel::relu, d, N, tau));
    if (f3) fails_e3 += (fails_e3.empty() ? "" : ",") + std::to_string(dk), last_fail_e3 = dk;
    if (f1) fails_e1 += (fails_e1.empty() ? "" : ",") + std::to_string(dk);
    if (f2) fails_e2 += (fails_e2.empty() ? "" : ",") + std::to_string(dk);
    if ((f3 || f1) && first_fail == 0) first_fail = dk;
  }
  e.instances = 256;
  e.sizes = "d_k = 1..256, tau = sqrt(d_k), N = 1024; E3 (Eqs. 13, 15), E1 at s2 = d_k, E2";
  e.statistic = "SNR^-1_exp / SNR^-1_ReLU at the smallest failing d_k (E3)";
  e.threshold = 1;
  e.extra.push_back({"SNR^-1_ReLU / SNR^-1_linear (E1, every d_k)", fmt(ratio_relu_lin, 6) + " (ReLU improves on linear)"});
  e.extra.push_back({"d_k where exp is not better than ReLU, E3", fails_e3.empty() ? "none" : fails_e3});
  e.extra.push_back({"... E1 at s2 = d_k", fails_e1.empty() ? "none" : fails_e1});
  e.extra.push_back({"... E2 (d_k > 2)", fails_e2.empty() ? "none" : fails_e2});
  if (first_fail == 0) {
    res.verdict = ratio_relu_lin < 1 ? Verdict::holds : Verdict::violated;
    res.reason = "ReLU < linear and exp < ReLU at every d_k under E1, E2 and E3";
    return res;
  }
  // confirm at doubled digits and by a paired Monte Carlo at that d_k (s2 = d_k, N = 16, dv = 8)
  const double d = first_fail, tau = std::sqrt(d);
  double r2x;
  {
    MpDigitsScope sc2(2 * cfg.digits);
    r2x = to_d(mp_t(rs::eq13(mp_t(d), mp_t(16), mp_t(tau)) / rs::eq15(mp_t(d), mp_t(16))));
  }
  Gauss g(mix(cs, 1));
  const std::vector<double> ki = probe_with_norm2(first_fail, d, g);
  Mean relu_m;
  std::vector<double> diff;
  const Mean exp_m = conditional_mc(Kernel::exp, ki, 16, 8, tau, cfg.quick ? 20000 : 80000, g, false, Kernel::relu, &relu_m, &diff);
  const Mean dm = mean_of(diff);
  e.value = r2x;
  e.witness = "d_k = " + std::to_string(first_fail) + ", tau = sqrt(d_k): Eq. 13 / Eq. 15 = " + fmt(r2x, 6) + " at doubled digits; E1 Monte Carlo exp " +
              exp_m.str() + " vs ReLU " + relu_m.str() + ", paired difference " + dm.str();
  // decided by the closed forms (exact under the setting; their Monte Carlo checks are A000-SNR-COND and -EXP-COND,
  // where the estimator's interval is valid); at tau = sqrt(d_k) kappa_exp^2 is lognormal with sigma = 2, whose
  // replicate mean is reported as evidence only (plain_mc_ok)
  res.verdict = r2x >= 1 ? Verdict::violated : Verdict::inconclusive;
  res.reason = res.verdict == Verdict::violated
                   ? "ReLU improves on linear (ratio 1/2), but exp is not better than ReLU at d_k = " + std::to_string(first_fail) +
                         " (tau = sqrt d_k) under the paper's own Eqs. 13 and 15; it is from d_k = " + std::to_string(last_fail_e3 + 1) +
                         " on (E3)"
                   : "the closed forms put exp behind ReLU at small d_k at working digits but not at doubled digits";
  return res;
}

}  // namespace

void register_a000_retrieval_snr(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A000-RETRIEVAL-DECOMP", "Read-out = signal c v_i + noise sum_{j!=i} v_j kappa(k_j, k_i)", identity, true, a000_retrieval_decomp);
  add("A000-SNR-DEF", "Inverse retrieval SNR (Eq. 6): E0 = E1 d_v/(d_v-2) with v_i random", statistical, true, a000_snr_def);
  add("A000-SNR-COND", "Conditional inverse SNR (N-1) E[kappa^2]/kappa(s2)^2 (Eq. 57)", statistical, false, a000_snr_cond);
  add("A000-SNR-KERNEL", "General-kernel inverse SNR with N for N-1 (Eq. 10)", descriptive, false, a000_snr_kernel);
  add("A000-SNR-NORM-INV", "The inverse SNR is invariant under a common normaliser (footnote 4)", identity, false, a000_snr_norm_inv);
  add("A000-SNR-LINEAR", "Linear-kernel inverse SNR ~ N/d_k (Eq. 7)", descriptive, false, a000_snr_linear);
  add("A000-SNR-RELU", "ReLU-kernel inverse SNR ~ N/(2 d_k) (Eq. 15)", descriptive, false, a000_snr_relu);
  add("A000-SNR-RELU-CMP", "ReLU improves on linear but falls short of exp (tau = sqrt d_k)", inequality, false, a000_snr_relu_cmp);
}

}  // namespace recall
