// Paper A000 (associative memory), §2.2, the paragraphs after Table 2: (a) gated linear attention's decay
// "corresponds to adding a regularization term on the Frobenius norm of S" and "mitigates the exploding norm
// issue"; (b) DeltaNet's decay I - k k^T "retrieve[s] and attenuate[s] historical values associated with
// similar keys before memory write-in, thus preventing norm explosion"; (c) with the softmax normalisation
// the objective includes a Frobenius regulariser "which alleviates numerical instability".
// Checked by fp64 simulation (log-norm tracking: the state is rescaled and ln of the scale carried, so
// nothing overflows) of the Table 2 recurrences on Gaussian and adversarial data, the norm classified by
// growth_classifier.hpp; a 50-digit spot check of every model's first 50 steps against the references
// (linear_attention.hpp, delta_rule.hpp, memory_objectives.hpp).
// Spec ID: A000-GD-REG-CLAIMS.
#include "recall/proofs/ledger.hpp"
#include "claim_support.hpp"
#include "growth_classifier.hpp"

#include "recall/reference/delta_rule.hpp"
#include "recall/reference/feature_maps.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/memory_objectives.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::growth;
using Vec = Eigen::VectorXd;

// ---- data generators --------------------------------------------------------------------------------
// gauss: k, v ~ N(0, I); repeated: keys from a pool of two Gaussian keys; aligned: one Gaussian value for
// every token; rep+aligned: both; |k|^2=2.5: Gaussian directions rescaled to ||k||^2 = 2.5 (> 2).
enum class Gen { gauss, repeated, aligned, rep_aligned, bigkey };
const char* gen_name(Gen g) {
  switch (g) {
    case Gen::gauss: return "gauss";
    case Gen::repeated: return "repeated keys";
    case Gen::aligned: return "aligned values";
    case Gen::rep_aligned: return "repeated+aligned";
    case Gen::bigkey: return "|k|^2=2.5";
  }
  return "?";
}
struct Stream {
  Gauss g;
  Gen gen;
  Vec p0, p1, vfix;
  Stream(std::uint64_t seed, Gen gn, int dk, int dv) : g(seed), gen(gn), p0(draw(dk)), p1(draw(dk)), vfix(draw(dv)) {}
  Vec draw(Eigen::Index n) {
    Vec x(n);
    for (Eigen::Index i = 0; i < n; ++i) x(i) = g.normal();
    return x;
  }
  void next(Vec& k, Vec& v) {
    const bool rep = gen == Gen::repeated || gen == Gen::rep_aligned, al = gen == Gen::aligned || gen == Gen::rep_aligned;
    k = rep ? (g.uniform() < 0.5 ? p0 : p1) : draw(p0.size());
    v = al ? vfix : draw(vfix.size());
    if (gen == Gen::bigkey) k *= std::sqrt(2.5) / k.norm();
  }
};

// ---- models (Table 2 rows; S is d_v x D) ------------------------------------------------------------------
enum class Kind { linattn, gla, delta_raw, delta_unit, smnorm };
struct Model {
  std::string name;
  Kind kind;
  double lambda = 1, beta = 1;
  int phi = 0;  // 0: identity feature map; M > 0: truncated exponential map exp_M (smnorm)
  int dk = 8, dv = 8;
};
ref::FeatureMap phi_map(const Model& m) { return fmap(ref::FeatureMapKind::exp_trunc, m.phi); }
int feat_dim(const Model& m) { return m.phi ? static_cast<int>(ref::feature_dim(phi_map(m), static_cast<std::size_t>(m.dk))) : m.dk; }

struct Record {  // the first `steps` inputs (keys as fed to the update) and the state after them
  long steps = 0;
  DM K, V;
  Eigen::MatrixXd S;
  double L = 0;
};
struct RunOut {
  std::vector<double> ln2;             // ln||S_t||_2 at the checkpoints c_j
  std::vector<double> bt, blnt, blnF;  // block (c_{j-1}, c_j]: mean t, mean ln t, mean ln||S_t||_F
  double bound = 0;              // max over t of the model's deterministic bound ratio (<= 1), 0: none
  long cross = -1;               // first t with ||S_t||_F > 1e6 ||S_1||_F
};

// fp64 run of T tokens. The true state is e^L S; S is rescaled to norm 1 when ||S||_F > 1e150. ln||S_t||_F is
// averaged over the blocks between checkpoints (every step); ||S_t||_2 (Jacobi SVD) is taken at the checkpoints.
// Bounds checked every step (Frobenius): GLA ||S_t|| <= max_i ||v_i|| ||k_i|| / (1 - lambda); unit-key delta
// rule with beta in (0, 2] ||S_t|| <= ||S_{t-1}|| + beta ||v_t|| (I - beta k k^T is non-expansive);
// normalised softmax ||S_t|| <= max_i ||v_i|| ||phi(k_i)|| (a convex combination).
RunOut simulate(const Model& m, Gen gen, long T, std::uint64_t seed, const std::vector<long>& cps, Record* rec = nullptr) {
  Stream st(seed, gen, m.dk, m.dv);
  const ref::FeatureMap f = phi_map(m);
  const int D = feat_dim(m);
  Eigen::MatrixXd S = Eigen::MatrixXd::Zero(m.dv, D);
  Vec k(m.dk), v(m.dv), phi(D), pred(m.dv);
  double L = 0, c = 1, prevF = 0, sup_in = 0, ln_start = 0, bsum = 0;
  long bprev = 0;
  std::size_t ci = 0;
  RunOut out;
  if (rec) rec->K = DM(static_cast<std::size_t>(rec->steps), static_cast<std::size_t>(m.dk)), rec->V = DM(static_cast<std::size_t>(rec->steps), static_cast<std::size_t>(m.dv));
  for (long t = 1; t <= T; ++t) {
    st.next(k, v);
    if (m.kind == Kind::delta_unit) k /= k.norm();
    if (rec && t <= rec->steps) {
      for (int j = 0; j < m.dk; ++j) rec->K(static_cast<std::size_t>(t - 1), static_cast<std::size_t>(j)) = k(j);
      for (int j = 0; j < m.dv; ++j) rec->V(static_cast<std::size_t>(t - 1), static_cast<std::size_t>(j)) = v(j);
    }
    if (m.phi) {
      const auto p = ref::apply_feature_map(f, k.data(), static_cast<std::size_t>(m.dk));
      for (int j = 0; j < D; ++j) phi(j) = p[static_cast<std::size_t>(j)];
    } else {
      phi = k;
    }
    switch (m.kind) {
      case Kind::linattn: S.noalias() += (c * v) * phi.transpose(); break;
      case Kind::gla:
        S *= m.lambda;
        S.noalias() += (c * v) * phi.transpose();
        break;
      case Kind::delta_raw:
      case Kind::delta_unit:  // S (I - beta k k^T) + beta v k^T = S + beta (v - S k) k^T
        pred.noalias() = S * phi;
        S.noalias() += (m.beta * (c * v - pred)) * phi.transpose();
        break;
      case Kind::smnorm:  // Table 2 row 6: (t-1)/t S + 1/t v phi(k)^T
        S *= static_cast<double>(t - 1) / static_cast<double>(t);
        S.noalias() += (c / static_cast<double>(t) * v) * phi.transpose();
        break;
    }
    const double nF = S.norm(), lnF = L + std::log(nF), in = v.norm() * phi.norm();
    sup_in = std::max(sup_in, in);
    if (m.kind == Kind::gla) out.bound = std::max(out.bound, std::exp(lnF + std::log1p(-m.lambda) - std::log(sup_in)));
    if (m.kind == Kind::smnorm) out.bound = std::max(out.bound, std::exp(lnF - std::log(sup_in)));
    if (m.kind == Kind::delta_unit && m.beta <= 2) out.bound = std::max(out.bound, std::exp(lnF - std::log(prevF + m.beta * v.norm())));
    prevF = std::exp(lnF);
    if (t == 1) ln_start = lnF;
    if (out.cross < 0 && lnF - ln_start > std::log(1e6)) out.cross = t;
    bsum += lnF;
    if (ci < cps.size() && t == cps[ci]) {
      const double s2 = (m.dv == 1 || D == 1) ? nF : Eigen::JacobiSVD<Eigen::MatrixXd>(S).singularValues()(0);
      const double n = static_cast<double>(t - bprev);
      out.ln2.push_back(L + std::log(s2));
      out.bt.push_back(0.5 * static_cast<double>(t + bprev + 1));
      out.blnt.push_back((std::lgamma(static_cast<double>(t) + 1) - std::lgamma(static_cast<double>(bprev) + 1)) / n);
      out.blnF.push_back(bsum / n);
      bsum = 0, bprev = t, ++ci;
    }
    if (rec && t == rec->steps) rec->S = S, rec->L = L;
    if (nF > 1e150) {
      S /= nF;
      L += std::log(nF);
      c = std::exp(-L);
    }
  }
  return out;
}

// ---- cells: one model on one generator over R seeds ------------------------------------------------------
struct Cell {
  std::string model, gen;
  GrowthFit frob, spec;  // block means of ln||S||_F (decides); ln||S||_2 at the checkpoints (evidence)
  Growth kind = Growth::undetermined;
  double bound = 0;
  long cross = -1;  // earliest 1e6-fold crossing over the seeds
  int cross_seed = -1;
  std::vector<double> mean_ln2;
};
Cell run_cell(const Model& m, Gen gen, long T, int R, std::uint64_t seed0, const std::vector<long>& cps) {
  Cell c{m.name, gen_name(gen), {}, {}, Growth::undetermined, 0, -1, -1, std::vector<double>(cps.size(), 0.0)};
  std::vector<std::vector<double>> l2, lf;
  std::vector<double> bt, blnt;
  for (int r = 0; r < R; ++r) {
    const RunOut o = simulate(m, gen, T, mix(seed0, static_cast<std::uint64_t>(r)), cps);
    l2.push_back(o.ln2);
    lf.push_back(o.blnF);
    bt = o.bt, blnt = o.blnt;
    c.bound = std::max(c.bound, o.bound);
    if (o.cross > 0 && (c.cross < 0 || o.cross < c.cross)) c.cross = o.cross, c.cross_seed = r;
    for (std::size_t i = 0; i < cps.size(); ++i) c.mean_ln2[i] += o.ln2[i] / R;
  }
  c.frob = classify_growth(bt, blnt, lf, static_cast<double>(T));
  c.spec = classify_growth(std::vector<double>(cps.begin(), cps.end()), l2);
  c.kind = c.frob.kind;
  return c;
}
std::string cell_txt(const Cell& c) {
  std::string s = c.gen + ": " + growth_name(c.kind) + ", rate " + fmt_ci(c.frob.rate, 3) + "/step, exponent " + fmt_ci(c.frob.exponent, 3) +
                  " (||S||_2 at checkpoints: " + fmt(c.spec.rate.mean, 3) + "/step, t^" + fmt(c.spec.exponent.mean, 3) + ")";
  if (c.bound > 0) s += ", bound ratio " + fmt(c.bound, 4);
  return s;
}

// relative Frobenius difference between the fp64 state after 50 steps and the reference at `digits`
double spot_check(const Model& m, Gen gen, std::uint64_t seed, unsigned digits) {
  Record rec;
  rec.steps = 50;
  simulate(m, gen, rec.steps, seed, {}, &rec);
  MpDigitsScope sc(digits);
  const std::size_t T = static_cast<std::size_t>(rec.steps);
  const MM K = to_mp(rec.K), V = to_mp(rec.V);
  MM Sref;
  switch (m.kind) {
    case Kind::linattn: Sref = ref::linear_attention(K, K, V).state; break;
    case Kind::gla: Sref = ref::gated_linear_attention(K, K, V, MV(T, mp_t(log(mp_t(m.lambda))))).state; break;
    case Kind::delta_raw:
    case Kind::delta_unit: Sref = ref::delta_rule(K, K, V, MV(T, mp_t(m.beta))).state; break;
    case Kind::smnorm: {
      const MM Phi = m.phi ? ref::apply_feature_map(phi_map(m), K) : K;
      Sref = ref::general_recurrence<mp_t>(MM(V.cols, Phi.cols), T, [&](std::size_t t) { return ref::smnorm_abc(row_vec(Phi, t - 1), row_vec(V, t - 1), t); }).back();
      break;
    }
  }
  MM Sfp(Sref.rows, Sref.cols);
  const mp_t scale = exp(mp_t(rec.L));
  for (std::size_t i = 0; i < Sfp.rows; ++i)
    for (std::size_t j = 0; j < Sfp.cols; ++j) Sfp(i, j) = mp_t(rec.S(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j))) * scale;
  return nan_inf(to_d(mp_t(ref::frob_diff(Sfp, Sref) / ref::frob(Sref))));
}

ClaimFigure norm_figure(const std::string& id, const std::string& title, const std::vector<const Cell*>& cells, const std::vector<long>& cps) {
  ClaimFigure f;
  f.id = id;
  f.title = title;
  f.caption = "mean over seeds of log10 ||S_t||_2 (fp64 with log-norm tracking)";
  f.x_label = "t";
  f.y_label = "log10 ||S_t||_2";
  f.x_scale = "log";
  for (const Cell* c : cells) {
    FigureSeries s;
    s.name = c->model;
    for (std::size_t i = 0; i < cps.size(); ++i) s.x.push_back(static_cast<double>(cps[i])), s.y.push_back(c->mean_ln2[i] / std::log(10.0));
    f.series.push_back(s);
  }
  return f;
}

// =============================================================================================
// A000-GD-REG-CLAIMS. Growth classes (growth_classifier.hpp) of block means of ln||S_t||_F (||S||_2 is within
// a factor sqrt(min(d_v, D)) of ||S||_F, so it has the same class): geometric iff the per-step rate has a 95%
// interval above 0 that implies >= 1000-fold growth over the second half of the run; power-law iff the
// exponent of t has its interval above 0.05; bounded iff its upper end is <= 0.05. Sub-claims, each decided:
//  (a) GLA (lambda 0.9, 0.99): holds iff every generator's cell is bounded, the GLA bound holds, and LinAttn
//      grows on Gaussian data (there is an issue to mitigate); violated iff a GLA cell grows.
//  (b) as printed (Table 2 row 3: step 1, keys not normalised; §2.2 states no normalisation), Gaussian keys
//      N(0, I_dk), d_v = 1, d_k = 1..8: violated iff some d_k is geometric, the witness (smallest such d_k,
//      earliest 1e6-fold crossing) re-run in the reference at the working and doubled digits; holds iff
//      every d_k is bounded. (b, unit keys) DeltaNet-beta, L2-normalised keys, beta in {0.5, 1, 1.5, 1.9}:
//      violated iff a cell is geometric; holds iff all are bounded and the non-expansive bound holds.
//  (c) normalised softmax (Table 2 row 6, phi = identity, exp_2): violated iff a cell grows; holds iff all
//      are bounded and the convex-combination bound holds.
// If any model's first 50 fp64 steps miss the reference at cfg.digits by more than 1e-12 (relative
// Frobenius), every part is inconclusive. The claim's verdict combines the four parts (claim_support::combine).
// =============================================================================================
ClaimResult a000_gd_reg_claims(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A000-GD-REG-CLAIMS");
  const long T = cfg.quick ? 10000 : 100000;
  const int R = 16, Rscan = cfg.quick ? 16 : 32;
  const std::vector<long> cps = checkpoint_grid(T, 40, 40);
  const double spot_tol = 1e-12, bound_tol = 1 + 1e-12;
  const std::vector<Gen> all_gens{Gen::gauss, Gen::repeated, Gen::aligned, Gen::rep_aligned, Gen::bigkey};
  const std::vector<Gen> unit_gens{Gen::gauss, Gen::repeated, Gen::aligned, Gen::rep_aligned};
  std::vector<Model> models{{"LinAttn", Kind::linattn},
                            {"GLA lambda=0.9", Kind::gla, 0.9},
                            {"GLA lambda=0.99", Kind::gla, 0.99},
                            {"DeltaNet raw keys", Kind::delta_raw},
                            {"DeltaNet-beta=0.5 unit keys", Kind::delta_unit, 1, 0.5},
                            {"DeltaNet-beta=1 unit keys", Kind::delta_unit, 1, 1.0},
                            {"DeltaNet-beta=1.5 unit keys", Kind::delta_unit, 1, 1.5},
                            {"DeltaNet-beta=1.9 unit keys", Kind::delta_unit, 1, 1.9},
                            {"SM-norm phi=identity", Kind::smnorm},
                            {"SM-norm phi=exp_2 (d_k=4)", Kind::smnorm, 1, 1, 2, 4, 8}};
  // main table
  std::vector<std::vector<Cell>> cells(models.size());
  double worst_spot = 0;
  std::string worst_spot_model;
  for (std::size_t mi = 0; mi < models.size(); ++mi) {
    const Model& m = models[mi];
    const auto& gens = m.kind == Kind::delta_unit ? unit_gens : all_gens;
    for (std::size_t gi = 0; gi < gens.size(); ++gi)
      cells[mi].push_back(run_cell(m, gens[gi], T, R, mix(cs, 1000 * mi + static_cast<std::size_t>(gens[gi])), cps));
    const double s = spot_check(m, Gen::gauss, mix(mix(cs, 1000 * mi), 0), cfg.digits);
    if (s > worst_spot || worst_spot_model.empty()) worst_spot = s, worst_spot_model = m.name;
  }
  const bool spot_ok = worst_spot <= spot_tol;
  const std::string spot_txt = "first 50 fp64 steps vs the " + std::to_string(cfg.digits) + "-digit reference, Gaussian data, every model: worst relative Frobenius difference " +
                               fmt(worst_spot, 3) + " (" + worst_spot_model + "; tolerance " + fmt(spot_tol) + ")";
  auto model_extra = [&](ClaimResult& r, std::size_t lo, std::size_t hi) {
    for (std::size_t mi = lo; mi <= hi; ++mi) {
      std::string s;
      for (const Cell& c : cells[mi]) s += (s.empty() ? "" : "; ") + cell_txt(c);
      r.evidence.extra.emplace_back(models[mi].name + " (d_k=" + std::to_string(models[mi].dk) + ", d_v=" + std::to_string(models[mi].dv) + ")", s);
    }
  };
  // summary over a range of models: all bounded, any growth (first growing cell), largest exponent upper end
  struct Summary {
    bool all_bounded = true, bound_ok = true;
    const Cell* grow = nullptr;
    double max_p_hi = -INFINITY, max_bound = 0;
    std::string worst;
  };
  auto summarise = [&](std::size_t lo, std::size_t hi) {
    Summary s;
    for (std::size_t mi = lo; mi <= hi; ++mi)
      for (const Cell& c : cells[mi]) {
        s.all_bounded = s.all_bounded && c.kind == Growth::bounded;
        if (!s.grow && (c.kind == Growth::power_law || c.kind == Growth::geometric)) s.grow = &c;
        if (c.frob.exponent.hi > s.max_p_hi) s.max_p_hi = c.frob.exponent.hi, s.worst = c.model + " / " + cell_txt(c);
        s.max_bound = std::max(s.max_bound, c.bound);
      }
    s.bound_ok = s.max_bound <= bound_tol;
    return s;
  };
  auto base = [&](const std::string& stat, double value, double thr, int inst, const std::string& sizes) {
    ClaimResult r;
    r.evidence.seed = cfg.seed;
    r.evidence.digits = cfg.digits;
    r.evidence.statistic = stat;
    r.evidence.value = value;
    r.evidence.threshold = thr;
    r.evidence.instances = inst;
    r.evidence.sizes = sizes;
    return r;
  };
  const std::string sz = "T = " + std::to_string(T) + ", " + std::to_string(R) + " seeds per cell, " + std::to_string(cps.size()) + " checkpoints";
  // decide a "bounded everywhere" part (a, b-unit, c)
  auto decide_bounded = [&](ClaimResult& r, const Summary& s, const std::string& what, const std::string& bound, bool extra_ok, const std::string& extra_fail) {
    if (!spot_ok) {
      r.verdict = Verdict::inconclusive;
      r.reason = "the fp64 simulation is not confirmed: " + spot_txt;
    } else if (!s.bound_ok) {
      r.verdict = Verdict::inconclusive;
      r.reason = "the simulation breaks a deterministic norm bound (ratio " + fmt(s.max_bound, 6) + " > 1): not trusted";
    } else if (s.grow) {
      r.verdict = Verdict::violated;
      r.reason = what + " grows: " + s.grow->model + " / " + cell_txt(*s.grow);
      r.evidence.witness = s.grow->model + " / " + s.grow->gen;
    } else if (s.all_bounded && extra_ok) {
      r.verdict = Verdict::holds;
      r.reason = what + " stays bounded on every generator (largest exponent upper end " + fmt(s.max_p_hi, 3) + " <= 0.05; worst: " + s.worst +
                 "), and the deterministic bound " + bound + " holds at every step (max ratio " + fmt(s.max_bound, 6) + ")";
    } else {
      r.verdict = Verdict::inconclusive;
      r.reason = s.all_bounded ? extra_fail : what + ": some cell's exponent interval straddles 0.05 (worst: " + s.worst + ")";
    }
    r.evidence.witness = r.evidence.witness.empty() ? s.worst : r.evidence.witness;
  };

  Parts parts;
  // (a) GLA
  {
    const Summary s = summarise(1, 2);
    const Cell& la = cells[0][0];
    const bool la_grows = la.kind == Growth::power_law || la.kind == Growth::geometric;
    ClaimResult r = base("largest upper 95% end of the exponent of ||S_t|| (block means of ln||S_t||_F) over the GLA cells", s.max_p_hi, kExponentTol, 10 * R, sz + ", d_k = d_v = 8");
    decide_bounded(r, s, "GLA's memory", "||S_t||_F <= max_i ||v_i|| ||k_i|| / (1 - lambda)", la_grows, "LinAttn does not grow on Gaussian data here (" + cell_txt(la) + "): nothing to mitigate");
    if (r.verdict == Verdict::holds) {
      std::string las;
      for (const Cell& c : cells[0]) las += (las.empty() ? "" : ", ") + c.gen + " t^" + fmt(c.frob.exponent.mean, 3);
      r.reason += "; LinAttn's \"exploding norm\" is polynomial, not geometric (" + las + "), and GLA caps it at the level max ||v|| ||k|| / (1 - lambda)";
    }
    model_extra(r, 0, 2);
    parts.emplace_back("(a) GLA decay", r);
  }
  // (b) as printed: d_k scan, raw Gaussian keys, d_v = 1
  std::vector<Cell> scan;
  {
    int dstar = 0;
    bool all_bounded = true;
    std::string scan_txt;
    for (int d = 1; d <= 8; ++d) {
      const Model m{"DeltaNet raw d_k=" + std::to_string(d), Kind::delta_raw, 1, 1, 0, d, 1};
      scan.push_back(run_cell(m, Gen::gauss, T, Rscan, mix(cs, 50000 + static_cast<std::uint64_t>(d)), cps));
      const Cell& c = scan.back();
      if (!dstar && c.kind == Growth::geometric) dstar = d;
      all_bounded = all_bounded && c.kind == Growth::bounded;
      scan_txt += (scan_txt.empty() ? "" : "; ") + ("d_k=" + std::to_string(d) + ": " + cell_txt(c));
    }
    // isotropy cross-check: for k ~ N(0, I_d) and a unit row s, ||s (I - k k^T)||^2 = (1 - a^2)^2 + a^2 b^2 with
    // a ~ N(0, 1) and b^2 ~ chi^2_{d-1} independent, so ln||S_t|| drifts by lambda(d) = E ln(...) / 2 per step
    std::string lyap_txt;
    {
      Gauss g(mix(cs, 70000));
      const long n = cfg.quick ? 200000 : 2000000;
      for (int d = 1; d <= std::max(2, dstar); ++d) {
        double s1 = 0, s2 = 0;
        for (long i = 0; i < n; ++i) {
          const double a = g.normal();
          double b2 = 0;
          for (int j = 1; j < d; ++j) {
            const double z = g.normal();
            b2 += z * z;
          }
          const double x = 0.5 * std::log((1 - a * a) * (1 - a * a) + a * a * b2);
          s1 += x, s2 += x * x;
        }
        const double m = s1 / static_cast<double>(n), h = 1.96 * std::sqrt(std::max(0.0, s2 / static_cast<double>(n) - m * m) / static_cast<double>(n));
        lyap_txt += (lyap_txt.empty() ? "" : ", ") + ("d_k=" + std::to_string(d) + ": " + fmt_ci({m, m - h, m + h}, 3));
      }
    }
    const Model one{"DeltaNet raw d_k=1", Kind::delta_raw, 1, 1, 0, 1, 1};
    const Cell big1 = run_cell(one, Gen::bigkey, T, Rscan, mix(cs, 50100), cps);
    const Cell& c = dstar ? scan[static_cast<std::size_t>(dstar - 1)] : scan.back();
    ClaimResult r = base("per-step growth rate of ln||S_t||_2, raw Gaussian keys, step 1, d_v = 1" + std::string(dstar ? ", d_k = " + std::to_string(dstar) : ", d_k = 8"),
                         c.frob.rate.mean, 0, 8 * Rscan, "T = " + std::to_string(T) + ", " + std::to_string(Rscan) + " seeds per d_k, d_k = 1..8, d_v = 1");
    r.evidence.extra.emplace_back("d_k scan (Gaussian keys N(0, I), not normalised)", scan_txt);
    r.evidence.extra.emplace_back("exact drift for isotropic Gaussian keys, E ln((1-a^2)^2 + a^2 chi^2_{d_k-1}) / 2 (Monte Carlo, 95%)", lyap_txt);
    r.evidence.extra.emplace_back("condition ||k||^2 > 2 at d_k = 1", cell_txt(big1) + " (eigenvalue 1 - ||k||^2 = -1.5 along k)");
    std::string la_txt;
    if (dstar && c.cross > 0) {
      // witness: the seed with the earliest 1e6-fold crossing, re-run in the reference at both precisions
      const Model m{"w", Kind::delta_raw, 1, 1, 0, dstar, 1};
      Record rec;
      rec.steps = c.cross;
      simulate(m, Gen::gauss, c.cross, mix(mix(cs, 50000 + static_cast<std::uint64_t>(dstar)), static_cast<std::uint64_t>(c.cross_seed)), {}, &rec);
      bool confirmed = true;
      std::string ratios;
      for (unsigned dg : {cfg.digits, 2 * cfg.digits}) {
        MpDigitsScope sc(dg);
        const MM K = to_mp(rec.K), V = to_mp(rec.V);
        const std::size_t ts = static_cast<std::size_t>(c.cross);
        const mp_t s1 = ref::frob(ref::delta_rule(head_rows(K, 1), head_rows(K, 1), head_rows(V, 1), MV(1, mp_t(1))).state);
        const mp_t at = ref::frob(ref::delta_rule(K, K, V, MV(ts, mp_t(1))).state) / s1;
        const mp_t before = ts > 1 ? mp_t(ref::frob(ref::delta_rule(head_rows(K, ts - 1), head_rows(K, ts - 1), head_rows(V, ts - 1), MV(ts - 1, mp_t(1))).state) / s1) : mp_t(0);
        confirmed = confirmed && at > mp_t(1e6) && before <= mp_t(1e6);
        ratios += (ratios.empty() ? "" : "; ") + std::to_string(dg) + " digits: ||S_t||/||S_1|| = " + fmt(to_d(at), 8) + " at t = " + std::to_string(ts) + ", " +
                  fmt(to_d(before), 8) + " at t - 1";
      }
      r.evidence.witness = "d_k = " + std::to_string(dstar) + ", d_v = 1, Gaussian k, v (seed index " + std::to_string(c.cross_seed) + " of " + std::to_string(Rscan) +
                           "), ||S_t||_2 > 1e6 ||S_1||_2 first at t = " + std::to_string(c.cross) + " (earliest over the seeds); " + ratios;
      r.evidence.extra.emplace_back("witness at doubled digits", ratios);
      if (!spot_ok) {
        r.verdict = Verdict::inconclusive;
        r.reason = "the fp64 simulation is not confirmed: " + spot_txt;
      } else if (confirmed) {
        r.verdict = Verdict::violated;
        r.reason = "as printed (step 1, keys not normalised) DeltaNet's memory explodes geometrically for Gaussian keys from d_k = " + std::to_string(dstar) +
                   " on: ln||S_t|| grows by " + fmt_ci(c.frob.rate, 3) + " per step (" + std::to_string(Rscan) + " seeds, t <= " + std::to_string(T) +
                   "); smallest witness d_k = " + std::to_string(dstar) + ", d_v = 1, 1e6-fold growth at t = " + std::to_string(c.cross) +
                   " (confirmed at " + std::to_string(cfg.digits) + " and " + std::to_string(2 * cfg.digits) + " digits); d_k = 1 is not geometric (" + cell_txt(scan[0]) +
                   "); the exact drift for isotropic Gaussian keys is " + lyap_txt + " per step. The mechanism (already at d_k = 2, where E||k||^2 = 2 and P(||k||^2 > 2) = 1/e) is the eigenvalue 1 - ||k||^2 of I - k k^T, of modulus > 1 when ||k||^2 > 2 (E||k||^2 = d_k); the claim needs beta ||k||^2 in (0, 2)";
      } else {
        r.verdict = Verdict::inconclusive;
        r.reason = "geometric growth at d_k = " + std::to_string(dstar) + " (" + cell_txt(c) + ") but the witness is not confirmed at both precisions: " + ratios;
      }
    } else if (all_bounded && spot_ok) {
      r.verdict = Verdict::holds;
      r.reason = "raw-key DeltaNet stays bounded for d_k = 1..8: " + scan_txt;
    } else {
      r.verdict = Verdict::inconclusive;
      r.reason = dstar ? "geometric growth without a 1e6-fold crossing" : "no d_k is geometric but not every d_k is bounded: " + scan_txt;
    }
    model_extra(r, 3, 3);
    parts.emplace_back("(b) DeltaNet as printed", r);
  }
  // (b) unit keys, beta in (0, 2); conditions: beta = 2.5; keys turning by 1/t (unbounded, not explosive)
  {
    const Summary s = summarise(4, 7);
    ClaimResult r = base("largest upper 95% end of the exponent of ||S_t|| (block means of ln||S_t||_F) over the unit-key DeltaNet-beta cells", s.max_p_hi, kExponentTol, 16 * R, sz + ", d_k = d_v = 8");
    decide_bounded(r, s, "DeltaNet-beta's memory with L2-normalised keys", "||S_t||_F <= ||S_{t-1}||_F + beta ||v_t||", true, "");
    const Cell b25 = run_cell({"DeltaNet-beta=2.5 unit keys", Kind::delta_unit, 1, 2.5}, Gen::gauss, T, R, mix(cs, 60000), cps);
    r.evidence.extra.emplace_back("condition beta outside (0, 2): beta = 2.5", cell_txt(b25) + " (eigenvalue 1 - beta = -1.5 along k)");
    // keys turning by 1/t in the plane, constant value 1: S_t k_t = 1 and S_t u_t = cos(1/t) S_{t-1} u_{t-1} - sin(1/t), so ||S_t|| ~ ln t
    std::vector<double> tt, ln2, nrm, lnt;
    {
      double th = 0;
      Eigen::RowVector2d srow(0, 0);
      std::size_t ci = 0;
      for (long t = 1; t <= T; ++t) {
        th += 1.0 / static_cast<double>(t);
        const Eigen::Vector2d k(std::cos(th), std::sin(th));
        srow += (1.0 - srow.dot(k)) * k.transpose();
        if (ci < cps.size() && t == cps[ci]) {
          tt.push_back(static_cast<double>(t)), ln2.push_back(std::log(srow.norm())), ++ci;
          if (t >= T / 2) lnt.push_back(std::log(static_cast<double>(t))), nrm.push_back(srow.norm());
        }
      }
    }
    const GrowthFit rot = classify_growth(tt, {ln2});
    const Fit lfit = linear_fit(lnt, nrm);
    r.evidence.extra.emplace_back("unit keys turning by 1/t, v_t = 1 (d_k = 2, d_v = 1, beta = 1)",
                                  rot.str() + "; ||S_t||_2 vs ln t slope " + lfit.str(4) + ": unbounded (logarithmic) yet not explosive, so unit keys do not bound ||S_t|| for every sequence");
    if (r.verdict == Verdict::holds)
      r.reason += "; that bound excludes geometric growth for every sequence, but not unbounded growth (keys turning by 1/t give ||S_t|| ~ " +
                  fmt(lfit.slope, 3) + " ln t); needs beta in (0, 2]: beta = 2.5 is " + growth_name(b25.kind);
    model_extra(r, 4, 7);
    parts.emplace_back("(b) DeltaNet-beta, unit keys", r);
  }
  // (c) normalised softmax
  {
    const Summary s = summarise(8, 9);
    ClaimResult r = base("largest upper 95% end of the exponent of ||S_t|| (block means of ln||S_t||_F) over the normalised-softmax cells", s.max_p_hi, kExponentTol, 10 * R,
                         sz + ", phi = identity (d_k = d_v = 8) and exp_2 (d_k = 4, D = 21, d_v = 8)");
    decide_bounded(r, s, "the normalised softmax memory (Table 2 row 6, the paper's large-t form of the normalisation)",
                   "||S_t||_F <= max_i ||v_i|| ||phi(k_i)|| (a running mean; for every sequence)", true, "");
    if (r.verdict == Verdict::holds)
      r.reason += "; without the normalisation the same memory is LinAttn, which grows (Gaussian: t^" + fmt(cells[0][0].frob.exponent.mean, 3) + ")";
    model_extra(r, 8, 9);
    parts.emplace_back("(c) normalised softmax", r);
  }
  ClaimResult res = combine(parts, {PartSummary::reason, false});
  auto& e = res.evidence;
  e.seed = cfg.seed;
  e.digits = cfg.digits;
  e.extra.emplace_back("classification rule",
                       "per cell, per seed: ln||S_t||_F averaged over the blocks between " + std::to_string(cps.size()) + " checkpoints (every step); rate = slope of the block means vs t "
                       "over t >= T/2, exponent = slope vs ln t over t >= T/10 (claim_support::linear_fit); 95% intervals across seeds (t-interval); geometric iff "
                       "rate_lo > 0 and rate_lo T/2 >= ln 1000, else power-law iff exponent_lo > 0.05, else bounded iff exponent_hi <= 0.05, else undetermined. "
                       "||S||_2 <= ||S||_F <= sqrt(min(d_v, D)) ||S||_2, so ||S||_2 has the same class, rate and exponent; its point values at the checkpoints are shown");
  e.extra.emplace_back("fp64 vs reference", spot_txt);
  e.extra.emplace_back("readings", "(b) as printed: no key normalisation (Table 2, Eq. 70, step 1); (b) unit keys: DeltaNet-beta with L2-normalised keys (spec variant)");
  std::vector<const Cell*> fig;
  for (std::size_t mi = 0; mi < models.size(); ++mi)
    if (models[mi].kind != Kind::delta_raw) fig.push_back(&cells[mi][0]);
  e.figures.push_back(norm_figure("norms-gauss", "Memory norm on Gaussian data (bounded / growing models)", fig, cps));
  std::vector<const Cell*> sfig;
  for (const Cell& c : scan) sfig.push_back(&c);
  e.figures.push_back(norm_figure("deltanet-raw-scan", "DeltaNet as printed (step 1, raw Gaussian keys, d_v = 1) by d_k", sfig, cps));
  return res;
}

}  // namespace

void register_a000_regularisation_claims(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A000-GD-REG-CLAIMS", "Decay, the delta rule and softmax normalisation keep the memory norm from exploding (§2.2)", statistical, false, a000_gd_reg_claims);
}

}  // namespace recall
