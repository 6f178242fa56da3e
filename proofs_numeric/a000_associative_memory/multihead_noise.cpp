// Paper A000 (associative memory) §2.1.4, footnote 7: in MQA, if W_O computes a simple average over n_h heads
// with shared keys and values, "the variance of the noise term is reduced by a factor of n_h" compared with a
// single head of the same key/value dimensionality. The mechanism is under-specified; the spec's two
// operationalisations are implemented as separate readings [interp]:
//   V1: shared keys k_j in R^{d_h}, shared values and probe; head h applies a random orthogonal R_h (Haar, QR of
//       a Gaussian matrix with the sign fix) to query and keys: weights kappa(R_h k_i, R_h k_j);
//   V2: keys k_j in R^d (d = 4 d_h), head-specific projections W_h = W_{q,h} = W_{k,h} in R^{d_h x d} with
//       N(0, 1/d) entries: weights kappa(W_h k_i, W_h k_j); shared values.
// The averaged read of probe i is o = sum_j v_j a_j, a_j = mean_h kappa_h(i, j): signal a_i v_i, noise
// r = sum_{j != i} v_j a_j. With unit-variance zero-mean values independent of the keys, E[||r||^2 | keys, heads]
// / (a_i^2 d_v) = sum_{j != i} a_j^2 / a_i^2 exactly (the conditional inverse SNR of A000-SNR-DEF), so the
// Monte Carlo averages that Rao-Blackwellised quantity over keys and head draws (no value sampling).
// Statistic: rho(n_h) = mean SNR^-1(average of n_h heads) / mean SNR^-1(one head), paired (the single head is the
// first of the n_h heads of the same draw), 95% delta-method interval. Kernels: linear, exp at tau = sqrt(d_h)
// (log-space weights). n_h in {1,2,4,8,16}, N in {16, 256}, d_h = 16.
// Decision per reading and kernel: holds if every interval of n_h rho meets the band [0.9, 1.1] around the
// claimed factor; violated if some interval lies entirely outside it (a 10% approximation band for "reduced by a
// factor of n_h"); else inconclusive. The row's verdict gives the claim its most favourable reading: holds if a
// reading holds for both kernels, violated if every reading is violated for some kernel, else inconclusive.
// Spec ID: A000-MH-NOISE.
#include "recall/proofs/ledger.hpp"
#include "claim_support.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using Eigen::MatrixXd;
using Eigen::VectorXd;

enum class Reading { v1_rotations, v2_projections };
enum class Kern { linear, exp };

MatrixXd gaussian(std::mt19937_64& g, int r, int c, double sd) {
  std::normal_distribution<double> n(0.0, sd);
  MatrixXd m(r, c);
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < c; ++j) m(i, j) = n(g);
  return m;
}
// Haar-distributed orthogonal matrix: QR of a Gaussian matrix, columns signed by diag(R)
MatrixXd haar(std::mt19937_64& g, int n) {
  Eigen::HouseholderQR<MatrixXd> qr(gaussian(g, n, n, 1.0));
  MatrixXd Q = qr.householderQ();
  const MatrixXd R = qr.matrixQR().triangularView<Eigen::Upper>();
  for (int j = 0; j < n; ++j)
    if (R(j, j) < 0) Q.col(j) *= -1;
  return Q;
}

struct Ratio {
  double rho = 0, lo = 0, hi = 0;
};
// paired ratio of means mean(a)/mean(b) with a 95% delta-method interval
Ratio paired_ratio(const std::vector<double>& a, const std::vector<double>& b) {
  const double M = static_cast<double>(a.size());
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) ma += a[i], mb += b[i];
  ma /= M, mb /= M;
  const double rho = ma / mb;
  double v = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double z = (a[i] - rho * b[i]);
    v += z * z;
  }
  v /= (M - 1);
  const double se = std::sqrt(v / M) / mb;
  return {rho, rho - 1.96 * se, rho + 1.96 * se};
}

// one configuration: M draws; returns rho(n_h) for each n_h in ns (ns[0] == 1 is the baseline)
std::vector<Ratio> run_config(Reading rd, Kern k, int N, int dh, const std::vector<int>& ns, int M, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  const int H = ns.back(), d = rd == Reading::v2_projections ? 4 * dh : dh;
  const double tau = std::sqrt(static_cast<double>(dh));
  std::vector<std::vector<double>> snr(ns.size(), std::vector<double>(M));
  MatrixXd X(N, H);  // logits (exp) or weights (linear) per key and head
  for (int m = 0; m < M; ++m) {
    const MatrixXd K = gaussian(g, N, d, 1.0);  // rows k_j; probe i = key 0
    for (int h = 0; h < H; ++h) {
      const MatrixXd P = rd == Reading::v1_rotations ? haar(g, dh) : gaussian(g, dh, d, 1.0 / std::sqrt(static_cast<double>(d)));
      const MatrixXd PK = K * P.transpose();  // projected / rotated keys, N x d_h
      const VectorXd x = PK * PK.row(0).transpose();
      X.col(h) = k == Kern::exp ? VectorXd(x / tau) : x;
    }
    for (std::size_t a = 0; a < ns.size(); ++a) {
      const int nh = ns[a];
      // a_j = mean_h kappa_h(i, j); exp kernel in log space: log a_j = logsumexp_h(x_hj) - log n_h
      VectorXd la(N);
      double s = 0;
      if (k == Kern::linear) {
        const VectorXd aj = X.leftCols(nh).rowwise().mean();
        for (int j = 1; j < N; ++j) s += (aj(j) / aj(0)) * (aj(j) / aj(0));
      } else {
        for (int j = 0; j < N; ++j) {
          const double mx = X.row(j).head(nh).maxCoeff();
          la(j) = mx + std::log((X.row(j).head(nh).array() - mx).exp().sum());
        }
        for (int j = 1; j < N; ++j) s += std::exp(2 * (la(j) - la(0)));
      }
      snr[a][m] = s;
    }
  }
  std::vector<Ratio> out;
  for (std::size_t a = 0; a < ns.size(); ++a) out.push_back(paired_ratio(snr[a], snr[0]));
  return out;
}

ClaimResult a000_mh_noise(const CheckConfig& cfg) {
  const std::vector<int> ns = {1, 2, 4, 8, 16};
  const int dh = 16, M = cfg.quick ? 300 : 4000;
  const std::uint64_t base = tag_seed(cfg.seed, "A000-MH-NOISE");
  Parts parts;
  // per reading: verdict for each kernel
  std::vector<std::vector<Verdict>> per(2);
  int idx = 0;
  for (Reading rd : {Reading::v1_rotations, Reading::v2_projections}) {
    const std::string rname = rd == Reading::v1_rotations ? "V1 rotations" : "V2 projections";
    for (Kern k : {Kern::linear, Kern::exp}) {
      const std::string kn = k == Kern::linear ? "linear" : "exp tau=sqrt(d_h)";
      std::string table;
      bool all_meet = true, some_outside = false;
      double worst = 0;  // largest distance of n_h rho from 1
      std::string worst_at;
      for (int N : {16, 256}) {
        const auto r = run_config(rd, k, N, dh, ns, M, mix(base, static_cast<std::uint64_t>(idx++)));
        table += (table.empty() ? "" : "; ") + std::string("N=") + std::to_string(N) + ":";
        for (std::size_t a = 1; a < ns.size(); ++a) {
          const double f = ns[a], lo = f * r[a].lo, hi = f * r[a].hi, c = f * r[a].rho;
          table += " n_h=" + std::to_string(ns[a]) + " " + fmt(c, 3) + " [" + fmt(lo, 3) + ", " + fmt(hi, 3) + "]";
          const bool meets = hi >= 0.9 && lo <= 1.1, outside = hi < 0.9 || lo > 1.1;
          all_meet = all_meet && meets;
          some_outside = some_outside || outside;
          if (std::fabs(c - 1) > worst) worst = std::fabs(c - 1), worst_at = "N=" + std::to_string(N) + " n_h=" + std::to_string(ns[a]) + ": n_h rho = " + fmt(c, 4);
        }
      }
      ClaimResult p;
      auto& e = p.evidence;
      e.seed = cfg.seed;
      e.statistic = "n_h x (SNR^-1 of the n_h-head average / SNR^-1 of one head), 95% CI (claim: 1)";
      e.value = worst;
      e.threshold = 0.1;
      e.instances = 2 * M;
      e.sizes = "d_h = 16" + std::string(rd == Reading::v2_projections ? ", d = 64" : "") + ", N in {16, 256}, n_h in {2,4,8,16}, " + std::to_string(M) + " draws each";
      e.witness = worst_at;
      e.extra.emplace_back("n_h rho [95% CI]", table);
      p.verdict = all_meet ? Verdict::holds : some_outside ? Verdict::violated : Verdict::inconclusive;
      p.reason = rname + ", " + kn + ": " + (all_meet ? "every interval meets n_h rho in [0.9, 1.1]"
                                                      : some_outside ? "the reduction is not a factor n_h (" + worst_at + ")" : "some interval straddles the band");
      per[rd == Reading::v1_rotations ? 0 : 1].push_back(p.verdict);
      parts.emplace_back(rname + " / " + kn, p);
    }
  }
  ClaimResult out = combine(parts);
  auto reading_holds = [&](int r) { return per[r][0] == Verdict::holds && per[r][1] == Verdict::holds; };
  auto reading_violated = [&](int r) { return per[r][0] == Verdict::violated || per[r][1] == Verdict::violated; };
  const std::string rule = " (row rule: holds if some reading holds for both kernels, violated if every reading is violated for some kernel)";
  if (reading_holds(0) || reading_holds(1)) {
    out.verdict = Verdict::holds;
    out.reason = std::string("reading ") + (reading_holds(0) ? "V1" : "V2") + " gives the n_h-fold reduction for both kernels; " + out.reason + rule;
  } else if (reading_violated(0) && reading_violated(1)) {
    out.verdict = Verdict::violated;
    out.reason = "neither reading reduces the noise by n_h; " + out.reason + rule;
  } else {
    out.verdict = Verdict::inconclusive;
    out.reason = "no reading decides the claim; " + out.reason + rule;
  }
  return out;
}

}  // namespace

void register_a000_multihead_noise(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A000-MH-NOISE", "averaging n_h MQA heads reduces the noise variance by n_h (two readings)", statistical, false, a000_mh_noise);
}

}  // namespace recall
