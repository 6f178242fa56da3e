// Paper A002 (Atlas), §5 / §5.1 / App. D.4: the Newton-Schulz orthogonalisation of the Atlas momentum. The paper
// gives no coefficients; the external Muon quintic (3.4445, -4.7750, 2.0315), eps = 1e-7 is used (labelled external,
// reference/include/recall/reference/newton_schulz.hpp). Checks: the algorithm's identities (P1 vs P0, odd symmetry,
// transpose rule, scale/eps attribution, the orthogonal-input property of issue 19), its spectral action (P1 SVD),
// the classical cubic iteration, and the paper's limit claim ("as k -> inf NewtonShulz-k(S) converges to the nearest
// semi-orthogonal matrix"), measured at 50 digits with a worst-case search over the normalised singular values.
// Instances: deterministic from tag_seed(cfg.seed, ID), smallest first; witnesses name shape, generator and seed.
// Spec IDs: A002-NEWTON-SCHULZ, A002-NS-SPECTRAL, A002-NS-CUBIC, A002-NS-LIMIT.
#include "recall/proofs/claims_a002.hpp"
#include "recall/proofs/ledger.hpp"
#include "recall/reference/newton_schulz.hpp"
#include "recall/reference/svd.hpp"
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

// ---- instances ------------------------------------------------------------------------------------------

enum class NsGen { gauss, logspec, cluster, rankdef, orth, zero };
const char* gen_name(NsGen g) {
  switch (g) {
    case NsGen::gauss: return "gauss";
    case NsGen::logspec: return "log-uniform spectrum [1e-6,1]";
    case NsGen::cluster: return "clustered spectrum 1+-1e-8";
    case NsGen::rankdef: return "rank-deficient (rank ceil(r/2))";
    case NsGen::orth: return "semi-orthogonal";
    case NsGen::zero: return "zero";
  }
  return "?";
}
struct NsInst {
  DM G;
  std::string desc;
};
NsInst ns_instance(std::uint64_t seed, std::size_t m, std::size_t n, NsGen gen) {
  Gauss g(seed);
  const std::size_t r = std::min(m, n);
  NsInst x;
  std::vector<double> sig(r);
  switch (gen) {
    case NsGen::gauss: x.G = gauss_matrix(m, n, g); break;
    case NsGen::logspec:
      for (double& s : sig) s = std::pow(10.0, -6.0 * g.uniform());
      x.G = with_spectrum(g, m, n, sig);
      break;
    case NsGen::cluster:
      for (double& s : sig) s = 1.0 + 1e-8 * (2 * g.uniform() - 1);
      x.G = with_spectrum(g, m, n, sig);
      break;
    case NsGen::rankdef:
      for (std::size_t k = 0; k < r; ++k) sig[k] = k < (r + 1) / 2 ? 0.1 + g.uniform() : 0.0;
      x.G = with_spectrum(g, m, n, sig);
      break;
    case NsGen::orth: x.G = random_semi_orthogonal(g, m, n); break;
    case NsGen::zero: x.G = DM(m, n); break;
  }
  x.desc = "G " + std::to_string(m) + "x" + std::to_string(n) + " " + gen_name(gen) + " inst_seed=" + hex(seed);
  return x;
}
struct Shape {
  std::size_t m, n;
};
std::vector<Shape> shapes(bool quick) {
  std::vector<Shape> s = {{1, 5}, {5, 1}, {8, 8}, {16, 8}, {8, 16}};
  if (!quick) s.push_back({64, 32});
  return s;
}
std::string shapes_desc(bool quick) {
  std::string s;
  for (const Shape& x : shapes(quick)) s += (s.empty() ? "" : ",") + std::string("(") + std::to_string(x.m) + "," + std::to_string(x.n) + ")";
  return s;
}
const std::vector<NsGen> kGens = {NsGen::gauss, NsGen::logspec, NsGen::cluster, NsGen::rankdef, NsGen::orth, NsGen::zero};

bool bitwise_equal(const DM& a, const DM& b) {
  if (a.rows != b.rows || a.cols != b.cols) return false;
  for (std::size_t i = 0; i < a.a.size(); ++i)
    if (!(a.a[i] == b.a[i])) return false;  // -0 == +0 (a zero input gives signed zeros)
  return true;
}
DM negated(const DM& a) {
  DM b = a;
  for (double& x : b.a) x = -x;
  return b;
}

// the rows of Q (m <= n) orthonormalised again at the current digits (two Gram-Schmidt passes)
MM orthonormal_rows_mp(const DM& Qd) {
  MM Q = to_mp(Qd);
  for (std::size_t i = 0; i < Q.rows; ++i) {
    for (int pass = 0; pass < 2; ++pass)
      for (std::size_t p = 0; p < i; ++p) {
        const mp_t c = ref::dot(Q.row(i), Q.row(p), Q.cols);
        for (std::size_t j = 0; j < Q.cols; ++j) Q(i, j) -= c * Q(p, j);
      }
    const mp_t nrm = sqrt(ref::dot(Q.row(i), Q.row(i), Q.cols));
    for (std::size_t j = 0; j < Q.cols; ++j) Q(i, j) /= nrm;
  }
  return Q;
}

// ---- A002-NEWTON-SCHULZ -------------------------------------------------------------------------------------

// A002-NEWTON-SCHULZ: the external quintic (Muon coefficients) in P1 vs P0 (binary64, identity rule 1e-12), odd
// symmetry and transpose rule bitwise in binary64, NS(0) = 0, scale invariance up to eps (NS(sG) = spectral form
// with s||G|| + eps, P1), and the orthogonal-input property of issue 19 (NS5(Q) = p^5(1/(sqrt(r)+eps)) Q, not Q).
ClaimResult a002_newton_schulz(const CheckConfig& cfg) {
  const char* tag = "A002-NEWTON-SCHULZ";
  const std::uint64_t base = tag_seed(cfg.seed, tag);
  const int reps = cfg.quick ? 1 : 4;
  ThresholdCheck p0("max ||NS5_f64(G) - NS5_P1(G)||_F / max(1, ||NS5_P1(G)||_F) (identity rule P0)", cfg.digits, 1e-12);
  int exact_n = 0, exact_bad = 0;
  std::string exact_w;
  Controls ctl;
  std::vector<double> f32err;
  int idx = 0;
  for (int rep = 0; rep < reps; ++rep)
    for (const Shape& sh : shapes(cfg.quick))
      for (NsGen gen : kGens) {
        const std::uint64_t s = mix(base, static_cast<std::uint64_t>(idx++));
        const NsInst x = ns_instance(s, sh.m, sh.n, gen);
        const DM N0 = ref::newton_schulz5(x.G);
        p0.add(x.desc, [&](unsigned d, std::string&) {
          MpDigitsScope sc(d);
          const MM Nm = ref::newton_schulz5(to_mp(x.G));
          return rel_res(to_mp(N0), Nm);
        });
        // control: 4 steps instead of 5 must be far from NS5 (zero inputs excluded: both are 0)
        if (gen != NsGen::zero) ctl.add(rel_res(ref::newton_schulz(x.G, 4), N0) > 1e-12, x.desc + " (4 steps)");
        // bitwise properties in binary64
        ++exact_n;
        const bool odd = bitwise_equal(ref::newton_schulz5(negated(x.G)), negated(N0));
        // transpose rule: bitwise for non-square G (the same iteration runs); for square G the transposed input runs
        // X^T X in place of X X^T, so only the identity rule 1e-12 applies
        const DM NT = ref::newton_schulz5(ref::transpose(x.G));
        const bool tr = sh.m != sh.n ? bitwise_equal(NT, ref::transpose(N0)) : rel_res(NT, ref::transpose(N0)) <= 1e-12;
        const bool shape = N0.rows == x.G.rows && N0.cols == x.G.cols;
        bool zero_ok = true;
        if (gen == NsGen::zero)
          for (double v : N0.a) zero_ok = zero_ok && v == 0.0;
        if (!(odd && tr && shape && zero_ok)) {
          ++exact_bad;
          if (exact_w.empty())
            exact_w = x.desc + (odd ? "" : " NS(-G) != -NS(G)") + (tr ? "" : " NS(G^T) != NS(G)^T") + (shape ? "" : " shape changed") +
                      (zero_ok ? "" : " NS(0) != 0");
        }
        // float32 error vs P1 (distribution, for GPU tolerances)
        if (gen != NsGen::zero) {
          ref::Matrix<float> Gf(x.G.rows, x.G.cols);
          for (std::size_t i = 0; i < Gf.a.size(); ++i) Gf.a[i] = static_cast<float>(x.G.a[i]);
          const ref::Matrix<float> Nf = ref::newton_schulz5(Gf);
          MpDigitsScope sc(cfg.digits);
          MM Gfm(x.G.rows, x.G.cols), Nfm(Nf.rows, Nf.cols);
          for (std::size_t i = 0; i < Gf.a.size(); ++i) Gfm.a[i] = mp_t(static_cast<double>(Gf.a[i]));
          for (std::size_t i = 0; i < Nf.a.size(); ++i) Nfm.a[i] = mp_t(static_cast<double>(Nf.a[i]));
          f32err.push_back(rel_res(Nfm, ref::newton_schulz5(Gfm)));
        }
      }
  ClaimResult r1 = p0.result(cfg, "shapes " + shapes_desc(cfg.quick) + " x 6 generators x " + std::to_string(reps) + "; seed tag " + tag);
  ctl.apply(r1, "4 Newton-Schulz steps in place of 5");

  // scale invariance up to eps: NS(sG) vs the spectral form at s||G|| + eps (P1)
  IdentityCheck sc_ic("max rel. residual ||NS5(sG) - U p^5(s Sigma/(s||G||_F + eps)) V^T||_F, s in {1e-6,...,1e6} (P1)", cfg.digits);
  std::vector<double> s_dev_x, s_dev_y;
  {
    const NsInst x = ns_instance(mix(base, 100000), 8, 16, NsGen::gauss);
    for (int e = -6; e <= 6; e += (cfg.quick ? 3 : 1)) {
      const double s = std::pow(10.0, e);
      DM sG = x.G;
      for (double& v : sG.a) v *= s;
      sc_ic.add(x.desc + " s=1e" + std::to_string(e), [&](unsigned d) {
        MpDigitsScope scp(d);
        const MM G = to_mp(sG);
        return rel_res(ref::newton_schulz5(G), ref::newton_schulz_spectral(G, 5));
      });
      MpDigitsScope scp(cfg.digits);
      s_dev_x.push_back(s);
      s_dev_y.push_back(rel_res(ref::newton_schulz5(to_mp(sG)), ref::newton_schulz5(to_mp(x.G))));
    }
  }
  ClaimResult r2 = sc_ic.result(cfg, "G 8x16 gauss, s = 10^e, e = -6..6");
  {
    std::string dev;
    for (std::size_t i = 0; i < s_dev_x.size(); ++i) dev += (i ? ", " : "") + fmt(s_dev_x[i], 1) + ": " + fmt(s_dev_y[i], 3);
    r2.evidence.extra.emplace_back("||NS5(sG) - NS5(G)|| / ||NS5(G)|| by s (eps effect only)", dev);
  }

  // issue 19 property: an orthogonal input. NS5(Q) = f Q with f = p^5(1/(sqrt(r) + eps)) exactly (P1), f != 1.
  IdentityCheck or_ic("max rel. residual ||NS5(Q) - p^5(1/(sqrt(r)+eps)) Q||_F for semi-orthogonal Q (P1)", cfg.digits);
  std::string fixed;
  for (std::size_t m : {1, 2, 4, 8, 16}) {
    Gauss g(mix(base, 200000 + m));
    const DM Q = random_semi_orthogonal(g, m, 16);
    const std::string desc = "Q " + std::to_string(m) + "x16 semi-orthogonal inst_seed=" + hex(mix(base, 200000 + m));
    or_ic.add(desc, [&](unsigned d) {
      MpDigitsScope scp(d);
      const MM Qm = orthonormal_rows_mp(Q);
      const auto co = ref::muon_ns_coefficients<mp_t>();
      const mp_t f = ref::ns_scalar_map(mp_t(mp_t(1) / (ref::frob(Qm) + co.eps)), 5, co);
      MM fQ = Qm;
      for (mp_t& v : fQ.a) v *= f;
      return rel_res(ref::newton_schulz5(Qm), fQ);
    });
    MpDigitsScope scp(cfg.digits);
    const MM Qm = orthonormal_rows_mp(Q);
    const MM N = ref::newton_schulz5(Qm);
    fixed += (fixed.empty() ? "" : "; ") + std::string("r=") + std::to_string(m) + ": ||NS5(Q)-Q||_F/sqrt(r) = " +
             fmt(to_d(mp_t(ref::frob_diff(N, Qm) / sqrt(mp_t(static_cast<double>(m))))), 4);
  }
  ClaimResult r3 = or_ic.result(cfg, "Q r x 16, r in {1,2,4,8,16}");
  r3.evidence.extra.emplace_back("orthogonal input is NOT a fixed point of NS5 (Muon coefficients, p(1) = 0.701)", fixed);

  ClaimResult r4;
  r4.evidence.statistic = "instances with NS(-G) != -NS(G), NS(G^T) != NS(G)^T (bitwise for non-square G, 1e-12 for square G), a changed shape or NS(0) != 0 (binary64)";
  r4.evidence.value = exact_bad;
  r4.evidence.threshold = 0;
  r4.evidence.instances = exact_n;
  r4.evidence.sizes = "the P0 instances";
  r4.evidence.seed = cfg.seed;
  r4.verdict = exact_bad ? Verdict::violated : Verdict::holds;
  r4.reason = exact_bad ? "bitwise property fails: " + exact_w : "odd symmetry, transpose rule, shape and NS(0) = 0 exact on all instances";
  r4.evidence.witness = exact_w;

  ClaimResult out = combine({{"P0 vs P1", r1}, {"scale/eps", r2}, {"orthogonal input", r3}, {"bitwise", r4}});
  std::sort(f32err.begin(), f32err.end());
  if (!f32err.empty())
    out.evidence.extra.emplace_back("float32 NS5 rel. error vs P1 (median / 90% / max; GPU tolerance data)",
                                    fmt(f32err[f32err.size() / 2]) + " / " + fmt(f32err[f32err.size() * 9 / 10]) + " / " + fmt(f32err.back()));
  out.evidence.extra.emplace_back("coefficients", "EXTERNAL: KellerJordan/Muon zeropower_via_newtonschulz5 (a,b,c) = (3.4445, -4.7750, 2.0315), eps = 1e-7");
  return out;
}

// ---- A002-NS-SPECTRAL -------------------------------------------------------------------------------------

ClaimFigure maps_figure(const CheckConfig& cfg) {
  ClaimFigure f;
  f.id = "ns5_maps";
  f.title = "NS5 singular-value maps per step (Muon coefficients, external)";
  f.caption = "s -> p^k(s), p(s) = 3.4445 s - 4.7750 s^3 + 2.0315 s^5, k = 1..5 (50 digits), with the cubic s -> p_3^5(s) "
              "(p_3 = 3/2 s - 1/2 s^3) and the target 1 for comparison; s is the singular value after normalisation by ||G||_F + eps.";
  f.x_label = "normalised singular value s";
  f.y_label = "p^k(s)";
  MpDigitsScope sc(cfg.digits);
  const auto co = ref::muon_ns_coefficients<mp_t>();
  const auto cu = ref::cubic_ns_coefficients<mp_t>();
  const int N = 200;
  for (int k = 1; k <= 5; ++k) {
    FigureSeries s;
    s.name = "quintic k=" + std::to_string(k);
    s.group = "quintic";
    for (int i = 0; i <= N; ++i) {
      const double x = static_cast<double>(i) / N;
      s.x.push_back(x);
      s.y.push_back(to_d(ref::ns_scalar_map(mp_t(x), k, co)));
    }
    if (k < 5) s.style = k % 2 ? "dotted" : "dashdot";
    f.series.push_back(std::move(s));
  }
  FigureSeries c3;
  c3.name = "cubic k=5";
  c3.style = "dashed";
  FigureSeries one;
  one.name = "target 1";
  one.style = "dotted";
  for (int i = 0; i <= N; ++i) {
    const double x = static_cast<double>(i) / N;
    c3.x.push_back(x);
    c3.y.push_back(to_d(ref::ns_scalar_map(mp_t(x), 5, cu)));
    one.x.push_back(x);
    one.y.push_back(1.0);
  }
  f.series.push_back(std::move(c3));
  f.series.push_back(std::move(one));
  return f;
}

// A002-NS-SPECTRAL: NS_k(G) = U p^k(Sigma/(||G||_F + eps)) V^T: the P1 iteration vs the P1 SVD form (identity at
// 10^-(d-10)), the P0 iteration vs the P1 SVD form (identity rule 1e-12), k in {1, 5, 12}; negative controls: the
// spectral form with k-1 steps and without the normalisation. Figure: the maps p^k, k = 1..5.
ClaimResult a002_ns_spectral(const CheckConfig& cfg) {
  const char* tag = "A002-NS-SPECTRAL";
  const std::uint64_t base = tag_seed(cfg.seed, tag);
  Checker p1(std::string("max rel. residual ||NS_k(G) - U p^k(Sigma/(||G||_F+eps)) V^T||_F (both P1), k in ") + (cfg.quick ? "{1,5}" : "{1,5,12}"), cfg.digits);
  ThresholdCheck p0("max rel. residual ||NS5_f64(G) - spectral_P1(G)||_F (identity rule P0)", cfg.digits, 1e-12);
  Controls ctl;
  int idx = 0;
  const int reps = cfg.quick ? 1 : 3;
  for (int rep = 0; rep < reps; ++rep)
    for (const Shape& sh : shapes(cfg.quick))
      for (NsGen gen : kGens) {
        if (sh.m * sh.n > 256 && (cfg.quick || rep > 0)) continue;  // 64 x 32 once (P1 Jacobi SVD cost)
        const std::uint64_t s = mix(base, static_cast<std::uint64_t>(idx++));
        const NsInst x = ns_instance(s, sh.m, sh.n, gen);
        p1.add(x.desc, [&](unsigned d, std::string& w) {
          MpDigitsScope sc(d);
          const MM G = to_mp(x.G);
          double r = 0;
          for (int k : cfg.quick ? std::vector<int>{1, 5} : std::vector<int>{1, 5, 12}) {
            const double rk = rel_res(ref::newton_schulz(G, k), ref::newton_schulz_spectral(G, k));
            if (rk >= r) {
              r = rk;
              w = "k=" + std::to_string(k);
            }
          }
          return r;
        });
        const DM N0 = ref::newton_schulz5(x.G);
        p0.add(x.desc, [&](unsigned d, std::string&) {
          MpDigitsScope sc(d);
          return rel_res(to_mp(N0), ref::newton_schulz_spectral(to_mp(x.G), 5));
        });
        if (gen != NsGen::zero) {
          MpDigitsScope sc(cfg.digits);
          const MM G = to_mp(x.G);
          const MM it = ref::newton_schulz(G, 5);
          ctl.add(rel_res(it, ref::newton_schulz_spectral(G, 4)) > identity_threshold(cfg.digits), x.desc + " (k-1 steps)");
          auto no_norm = ref::muon_ns_coefficients<mp_t>();
          // without the normalisation: spectral form on G / 1 (den = 1) <=> scale G by (||G|| + eps)
          MM Gs = G;
          const mp_t den = ref::frob(G) + no_norm.eps;
          for (mp_t& v : Gs.a) v *= den;
          MM wrong(G.rows, G.cols);
          const ref::Svd<mp_t> dd = ref::svd(G);
          for (std::size_t k = 0; k < dd.sigma.size(); ++k) {
            const mp_t f = ref::ns_scalar_map(dd.sigma[k], 5, no_norm);
            for (std::size_t i = 0; i < G.rows; ++i)
              for (std::size_t j = 0; j < G.cols; ++j) wrong(i, j) += dd.U(i, k) * f * dd.V(j, k);
          }
          ctl.add(rel_res(it, wrong) > identity_threshold(cfg.digits), x.desc + " (no normalisation)");
        }
      }
  const std::string sizes = "shapes " + shapes_desc(cfg.quick) + (cfg.quick ? " (m n <= 256)" : " (64x32 in the first repetition only)") + " x 6 generators x " +
                            std::to_string(reps) + "; seed tag " + tag;
  ClaimResult r1 = p1.result(cfg, sizes);
  ctl.apply(r1, "k-1 steps; no normalisation");
  ClaimResult out = combine({{"P1 iteration vs P1 SVD form", r1}, {"P0 iteration vs P1 SVD form", p0.result(cfg, sizes)}});
  out.evidence.figures.push_back(maps_figure(cfg));
  {
    MpDigitsScope sc(cfg.digits);
    const auto co = ref::muon_ns_coefficients<mp_t>();
    std::string tab;
    for (double x : {0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 1.0}) tab += (tab.empty() ? "" : ", ") + fmt(x) + " -> " + fmt(to_d(ref::ns_scalar_map(mp_t(x), 5, co)), 6);
    out.evidence.extra.emplace_back("p^5(s) table (P1)", tab);
  }
  return out;
}

// ---- A002-NS-CUBIC -------------------------------------------------------------------------------------------

// A002-NS-CUBIC: the classical cubic iteration X_0 = G/||G||_F, X <- 3/2 X - 1/2 X X^T X vs its spectral form (P1),
// k in {1, 5, 30}; negative control: the quintic spectral form on the same instance.
ClaimResult a002_ns_cubic(const CheckConfig& cfg) {
  const char* tag = "A002-NS-CUBIC";
  const std::uint64_t base = tag_seed(cfg.seed, tag);
  Checker p1("max rel. residual ||NS3_k(G) - U p3^k(Sigma/||G||_F) V^T||_F (P1), k in {1,5,30}", cfg.digits);
  Controls ctl;
  int idx = 0;
  const int reps = cfg.quick ? 1 : 3;
  for (int rep = 0; rep < reps; ++rep)
    for (const Shape& sh : shapes(cfg.quick))
      for (NsGen gen : kGens) {
        if (gen == NsGen::zero) continue;  // eps = 0: normalisation undefined (the reference throws)
        if (sh.m * sh.n > 256 && (cfg.quick || rep > 0)) continue;  // 64 x 32 once (P1 Jacobi SVD cost)
        const std::uint64_t s = mix(base, static_cast<std::uint64_t>(idx++));
        const NsInst x = ns_instance(s, sh.m, sh.n, gen);
        p1.add(x.desc, [&](unsigned d, std::string& w) {
          MpDigitsScope sc(d);
          const MM G = to_mp(x.G);
          const auto cu = ref::cubic_ns_coefficients<mp_t>();
          double r = 0;
          for (int k : {1, 5, 30}) {
            const double rk = rel_res(ref::newton_schulz_cubic(G, k), ref::newton_schulz_spectral(G, k, cu));
            if (rk >= r) {
              r = rk;
              w = "k=" + std::to_string(k);
            }
          }
          return r;
        });
        MpDigitsScope sc(cfg.digits);
        const MM G = to_mp(x.G);
        ctl.add(rel_res(ref::newton_schulz_cubic(G, 5), ref::newton_schulz_spectral(G, 5)) > identity_threshold(cfg.digits),
                x.desc + " (quintic spectral form)");
      }
  ClaimResult r = p1.result(cfg, "shapes " + shapes_desc(cfg.quick) + (cfg.quick ? "" : " (64x32 in the first repetition only)") + " x 5 generators (zero excluded: eps = 0) x " + std::to_string(reps) +
                                     "; seed tag " + tag);
  ctl.apply(r, "quintic map in place of the cubic");
  return r;
}

// ---- A002-NS-LIMIT -------------------------------------------------------------------------------------------

// e_k = ||NS_k(G) - U_r V_r^T||_F / sqrt(r) for k = 1..K from the spectral action (exact by A002-NS-SPECTRAL):
// e_k^2 = sum_{sigma_i > 0} (p^k(sigma_i / (||G|| + eps)) - 1)^2 / r.
std::vector<mp_t> e_curve(const std::vector<mp_t>& s0, int K, const ref::NsCoefficients<mp_t>& co) {
  std::vector<mp_t> s = s0, e;
  for (int k = 1; k <= K; ++k) {
    mp_t acc(0);
    for (mp_t& x : s) {
      x = ref::ns_scalar_map(x, 1, co);
      const mp_t dlt = x - 1;
      acc += dlt * dlt;
    }
    e.push_back(sqrt(mp_t(acc / mp_t(static_cast<double>(s.size())))));
  }
  return e;
}
// normalised nonzero singular values of G (P1 SVD), rank by the default rank tolerance
std::vector<mp_t> norm_sv(const MM& G, const mp_t& eps) {
  const ref::Svd<mp_t> d = ref::svd(G);
  const std::size_t r = ref::numerical_rank(d.sigma, ref::default_rank_tol<mp_t>(std::max(G.rows, G.cols)));
  const mp_t den = ref::frob(G) + eps;
  std::vector<mp_t> s;
  for (std::size_t i = 0; i < r; ++i) s.push_back(d.sigma[i] / den);
  return s;
}

// A002-NS-LIMIT: does NS_k(S) converge to the polar factor U_r V_r^T as k -> inf? Readings: the external quintic
// (the paper's NS5) and the cubic. Decision per instance (spec): converges iff e_k <= 1e-40 for all k >= k0, some
// k0 <= 200; the statistic is max_{k in [190, 200]} e_k (P1, re-verified at doubled digits), cross-checked against the
// matrix iteration itself at k = 200 on every instance. Worst-case search over the normalised singular value s in
// (0, 1] (the spectral action is per singular value): the quintic's limit set of singular values and the cubic's
// slowest s. Inputs: the A002-NEWTON-SCHULZ generators, semi-orthogonal inputs, and Atlas (D4) momenta.
ClaimResult a002_ns_limit(const CheckConfig& cfg) {
  const char* tag = "A002-NS-LIMIT";
  const std::uint64_t base = tag_seed(cfg.seed, tag);
  const int K = 200;
  const double thr = 1e-40;
  // instances (the zero matrix has no nonzero singular value: excluded)
  std::vector<NsInst> inst;
  int idx = 0;
  for (const Shape& sh : shapes(true))
    for (NsGen gen : kGens)
      if (gen != NsGen::zero) inst.push_back(ns_instance(mix(base, static_cast<std::uint64_t>(idx++)), sh.m, sh.n, gen));
  {  // Atlas momenta recorded from a D4 trajectory (linear memory 8 x 8, c = 3)
    InstOpts o;
    const AtlasInst a = make_inst(mix(base, 9000), 6, 8, 8, 3, o);
    const ref::AtlasResult<double> tr = ref::atlas_d4(to_inputs<double>(a), ref::AtlasConfig<double>{});
    for (std::size_t t : {1, 6}) inst.push_back({tr.Smom[t], "Atlas D4 momentum S_" + std::to_string(t) + " of " + a.desc});
  }
  std::vector<std::pair<std::string, ClaimResult>> parts;
  std::vector<ClaimFigure> figs;
  for (int reading = 0; reading < 2; ++reading) {
    const bool quintic = reading == 0;
    ThresholdCheck chk(std::string("max_{k in [190,200]} ||NS_k(G) - U_r V_r^T||_F / sqrt(r), ") +
                           (quintic ? "external quintic (Muon)" : "cubic") + " (P1)",
                       cfg.digits, thr);
    double iter_vs_spec = 0;
    ClaimFigure fig;
    fig.id = quintic ? "ns5_error_curves" : "ns3_error_curves";
    fig.title = std::string("Distance to the polar factor vs k, ") + (quintic ? "NS quintic (Muon coefficients)" : "cubic Newton-Schulz");
    fig.caption = "e_k = ||NS_k(G) - U_r V_r^T||_F / sqrt(r) at 50 digits; the convergence threshold is 1e-40";
    fig.x_label = "k";
    fig.y_label = "e_k";
    fig.y_scale = "log";
    for (std::size_t i = 0; i < inst.size(); ++i) {
      const NsInst& x = inst[i];
      std::vector<double> curve;
      chk.add(x.desc, [&](unsigned d, std::string& w) {
        MpDigitsScope sc(d);
        const auto co = quintic ? ref::muon_ns_coefficients<mp_t>() : ref::cubic_ns_coefficients<mp_t>();
        const MM G = to_mp(x.G);
        const std::vector<mp_t> e = e_curve(norm_sv(G, co.eps), K, co);
        double m = 0;
        for (int k = 190; k <= K; ++k) m = std::max(m, nan_inf(to_d(e[k - 1])));
        w = "e_200 = " + fmt(to_d(e[K - 1]), 4);
        if (d == cfg.digits) {
          curve.clear();
          for (const mp_t& v : e) curve.push_back(std::max(1e-300, to_d(v)));
          // the matrix iteration itself at k = 200 vs the spectral value (small shapes only)
          if (G.rows * G.cols <= 128 && (!cfg.quick || i < 8)) {
            const MM it = ref::newton_schulz(G, K, co);
            const MM sp = ref::newton_schulz_spectral(G, K, co);
            iter_vs_spec = std::max(iter_vs_spec, rel_res(it, sp));
          }
        }
        return m;
      });
      if (i % 5 == 0 || i + 1 == inst.size()) {
        FigureSeries s;
        s.name = x.desc.substr(0, x.desc.find(" inst_seed"));
        for (std::size_t k = 0; k < curve.size(); ++k) {
          s.x.push_back(static_cast<double>(k + 1));
          s.y.push_back(curve[k]);
        }
        fig.series.push_back(std::move(s));
      }
    }
    ClaimResult r = chk.result(cfg, std::to_string(inst.size()) + " inputs: shapes " + shapes_desc(true) +
                                        " x 5 generators, Atlas D4 momenta; k = 1..200; seed tag " + tag);
    r.evidence.extra.emplace_back("matrix iteration vs spectral form at k = 200 (max rel. residual, P1)", fmt(iter_vs_spec));
    // worst-case search over s in (0, 1]
    {
      MpDigitsScope sc(cfg.digits);
      const auto co = quintic ? ref::muon_ns_coefficients<mp_t>() : ref::cubic_ns_coefficients<mp_t>();
      const int N = cfg.quick ? 150 : 3000;
      double lo = 1e300, hi = -1e300, worst_dev = -1, worst_s = 0;
      int slowest_k = 0;
      double slowest_s = 1, smallest_ok = 2;
      for (int i = 0; i <= N; ++i) {
        // log grid 1e-12..1 on even i, linear grid on odd i
        const double s0 = (i % 2 == 0) ? std::pow(10.0, -40.0 * (1.0 - static_cast<double>(i) / N)) : static_cast<double>(i) / N;
        mp_t s(s0);
        int k_in = 0;
        double dev = 0;
        for (int k = 1; k <= K; ++k) {
          s = ref::ns_scalar_map(s, 1, co);
          const double sd = to_d(s);
          const double dk = std::fabs(sd - 1.0);
          if (k >= 100 && s0 >= 1e-12) {
            lo = std::min(lo, sd);
            hi = std::max(hi, sd);
          }
          if (k >= 190) dev = std::max(dev, dk);
          if (to_d(mp_t(abs(mp_t(s - 1)))) > thr) k_in = k + 1;
        }
        if (dev > worst_dev) {
          worst_dev = dev;
          worst_s = s0;
        }
        if (k_in <= K) smallest_ok = std::min(smallest_ok, s0);
        if (k_in <= K && (k_in > slowest_k || (k_in == slowest_k && s0 < slowest_s))) {
          slowest_k = k_in;
          slowest_s = s0;
        }
      }
      r.evidence.extra.emplace_back("worst-case search over s in [1e-40, 1] (" + std::to_string(N + 1) + " points, P1)",
                                    "limit set of singular values (k in [100,200], s >= 1e-12) within [" + fmt(lo, 8) + ", " + fmt(hi, 8) +
                                        "]; worst max_{k>=190} |p^k(s)-1| = " + fmt(worst_dev, 6) + " at s = " + fmt(worst_s, 6) +
                                        (smallest_ok > 1 ? std::string("; no s converges to 1e-40 within 200 steps")
                                                         : "; smallest s converging to 1e-40 within 200 steps = " + fmt(smallest_ok, 4) +
                                                               " (slowest such s = " + fmt(slowest_s, 4) + ": k0 = " + std::to_string(slowest_k) +
                                                               "); smaller s (condition sigma_min/||G||_F below it) need more steps"));
      // the iterates of the worst-case input: singular value after each step
      ClaimFigure it;
      it.id = quintic ? "ns5_iterates" : "ns3_iterates";
      it.title = std::string("Singular value after each step, ") + (quintic ? "quintic (Muon)" : "cubic") + ", worst-case inputs of the search";
      it.caption = "p^k(s0) at 50 digits for the worst-case s0 found by the search and for s0 in {1e-6, 1/sqrt(8), 1}";
      it.x_label = "k";
      it.y_label = "singular value p^k(s0)";
      std::vector<double> starts = {worst_s, quintic ? 1e-6 : slowest_s, 1.0 / std::sqrt(8.0), 1.0};
      for (double s0 : starts) {
        FigureSeries s;
        s.name = "s0 = " + fmt(s0, 4);
        mp_t v(s0);
        s.x.push_back(0);
        s.y.push_back(s0);
        for (int k = 1; k <= 60; ++k) {
          v = ref::ns_scalar_map(v, 1, co);
          s.x.push_back(k);
          s.y.push_back(to_d(v));
        }
        s.marker = ".";
        it.series.push_back(std::move(s));
      }
      figs.push_back(std::move(it));
    }
    figs.push_back(std::move(fig));
    parts.push_back({quintic ? "external quintic NS (the paper's NS5)" : "cubic Newton-Schulz (second reading)", r});
  }
  ClaimResult out = combine(parts);
  for (auto& f : figs) out.evidence.figures.push_back(std::move(f));
  out.evidence.extra.emplace_back("orthogonal input", "not a fixed point of the quintic: see A002-NEWTON-SCHULZ (NS5(Q) = p^5(1/(sqrt(r)+eps)) Q)");
  return out;
}

}  // namespace

void register_a002_newton_schulz(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A002-NEWTON-SCHULZ", "Newton-Schulz-5 with the external Muon coefficients: P1 vs P0, symmetries, eps, orthogonal inputs", identity,
      true, a002_newton_schulz);
  add("A002-NS-SPECTRAL", "NS_k acts on singular values by p^k after normalisation (P1 SVD form)", identity, true, a002_ns_spectral);
  add("A002-NS-CUBIC", "Classical cubic Newton-Schulz equals its spectral form", identity, true, a002_ns_cubic);
  add("A002-NS-LIMIT", "NewtonShulz-k(S) converges to the nearest semi-orthogonal matrix as k -> inf", identity, false, a002_ns_limit);
}

}  // namespace recall
