// Paper A000 (associative memory), §2, the text after Eq. 4: accurate retrieval from the outer-product
// memory S = sum_j v_j k_j^T "requires the keys to be orthonormal"; with n >> d_k pairs the noise term
// becomes non-zero.
// The memory is ref::linear_attention (A000-AM-OUTER's reference); the kernels of the non-linear part are
// ref::snr::kappa (reference/retrieval_snr.hpp).
// Spec ID: A000-ORTHO-RECALL.
#include "recall/proofs/ledger.hpp"
#include "claim_support.hpp"
#include "eigen_bridge.hpp"

#include "recall/reference/linear_attention.hpp"
#include "recall/reference/retrieval_snr.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
namespace rs = ref::snr;

Eigen::MatrixXd gauss_e(Rng& g, std::size_t r, std::size_t c) { return to_eigen(gauss(g, r, c)); }
// N orthonormal rows in R^d (N <= d): Q of a Gaussian d x N matrix, transposed
Eigen::MatrixXd orthonormal_rows(Rng& g, std::size_t N, std::size_t d) {
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(gauss_e(g, d, N));
  return (qr.householderQ() * Eigen::MatrixXd::Identity(static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(N))).transpose();
}

// max_i ||S k_i - v_i|| / max_j ||v_j|| of the memory S = sum_j v_j k_j^T (formed by the reference
// recurrence) read with its own keys
double recall_residual(const Eigen::MatrixXd& K, const Eigen::MatrixXd& V) {
  const DM k = to_dm(K), v = to_dm(V);
  const auto r = ref::linear_attention(k, k, v);  // r.O row i = S_i k_i; the final state S_N is what retrieval reads
  double worst = 0, vmax = 0;
  for (Eigen::Index i = 0; i < K.rows(); ++i) {
    double e2 = 0;
    for (Eigen::Index a = 0; a < V.cols(); ++a) {
      double o = 0;
      for (Eigen::Index b = 0; b < K.cols(); ++b) o += r.state(static_cast<std::size_t>(a), static_cast<std::size_t>(b)) * K(i, b);
      e2 += (o - V(i, a)) * (o - V(i, a));
    }
    worst = std::max(worst, std::sqrt(e2));
    vmax = std::max(vmax, V.row(i).norm());
  }
  return worst / vmax;
}

// max_i ||sum_j v_j kappa(k_j, k_i) - c_i v_i|| / max_i ||c_i v_i|| with c_i = kappa(k_i, k_i): the noise of a
// kernel memory relative to its signal (the retrieval decomposition, A000-RETRIEVAL-DECOMP)
double kernel_noise(rs::Kernel kern, const Eigen::MatrixXd& K, const Eigen::MatrixXd& V, double tau) {
  double worst = 0, smax = 0;
  for (Eigen::Index i = 0; i < K.rows(); ++i) {
    Eigen::VectorXd r = Eigen::VectorXd::Zero(V.cols());
    for (Eigen::Index j = 0; j < K.rows(); ++j)
      if (j != i) r += rs::kappa(kern, K.row(j).dot(K.row(i)), tau) * V.row(j).transpose();
    worst = std::max(worst, r.norm());
    smax = std::max(smax, std::abs(rs::kappa(kern, K.row(i).dot(K.row(i)), tau)) * V.row(i).norm());
  }
  return worst / smax;
}

// =============================================================================================
// A000-ORTHO-RECALL. The statement is about the linear memory of Eq. 1; it is decided there:
//  (a) sufficiency: N <= d_k QR-orthonormal keys recall every value to 1e-14 max ||v|| in fp64;
//  (b) necessity: no generated non-orthonormal key set (||K K^T - I||_max >= 1e-8) recalls arbitrary values
//      to 1e-14: Gaussian keys, orthonormal keys scaled by c != 1, orthonormal keys perturbed by 1e-3 and
//      1e-6, tight frames K^T K = I with N > d_k (the "K^T K = I vs K K^T = I" confusion);
//  (c) N > d_k: K K^T has rank <= d_k, so ||K K^T - I||_2 >= 1: some values are recalled with an error at least
//      their own norm; the least ||K K^T - I||_2 over the generated sets is reported, >= 1 - 1e-12 required.
// Non-linear kernels, as evidence (the spec asks for the decision per kernel): ReLU is exact with
// orthonormal keys (kappa = 0 off the diagonal) but also with antipodal keys k_2 = -k_1 (not orthogonal:
// orthonormality is not necessary for ReLU); exp has kappa = 1 between orthogonal keys, so orthonormality
// is not sufficient, and since kappa > 0 everywhere no key set gives zero noise for arbitrary values.
// =============================================================================================
ClaimResult a000_ortho_recall(const CheckConfig& cfg) {
  const std::uint64_t cs = tag_seed(cfg.seed, "A000-ORTHO-RECALL");
  const std::vector<std::size_t> dks = cfg.quick ? std::vector<std::size_t>{1, 4, 16, 64} : std::vector<std::size_t>{1, 2, 4, 8, 16, 32, 64, 128};
  const int reps = cfg.quick ? 3 : 20;
  ClaimResult res;
  auto& e = res.evidence;
  e.seed = cfg.seed;
  double worst_suff = 0, best_nonortho = INFINITY, least_gap = INFINITY;
  std::string suff_at, nonortho_at, gap_at, failure;
  int inst = 0;
  for (std::size_t d : dks)
    for (int rep = 0; rep < reps; ++rep) {
      Rng g(mix(cs, ++inst));
      // (a)
      for (std::size_t N : {std::size_t(1), std::max<std::size_t>(1, d / 2), d}) {
        const Eigen::MatrixXd K = orthonormal_rows(g, N, d), V = gauss_e(g, N, d);
        const double r = recall_residual(K, V);
        ++e.instances;
        if (r > worst_suff) worst_suff = r, suff_at = "d_k = " + std::to_string(d) + ", N = " + std::to_string(N) + ", instance " + std::to_string(inst);
      }
      // (b)
      const std::size_t N = std::max<std::size_t>(1, d / 2 + 1);
      std::vector<std::pair<std::string, Eigen::MatrixXd>> sets;
      sets.emplace_back("Gaussian", gauss_e(g, N, d));
      sets.emplace_back("orthonormal x 1.5", 1.5 * orthonormal_rows(g, N, d));
      sets.emplace_back("orthonormal x 0.9", 0.9 * orthonormal_rows(g, N, d));
      sets.emplace_back("orthonormal + 1e-3", orthonormal_rows(g, N, d) + 1e-3 * gauss_e(g, N, d));
      sets.emplace_back("orthonormal + 1e-6", orthonormal_rows(g, N, d) + 1e-6 * gauss_e(g, N, d));
      if (d >= 2) sets.emplace_back("tight frame N = 2 d_k", orthonormal_rows(g, d, 2 * d).transpose());  // 2d x d, K^T K = I
      for (const auto& [name, K] : sets) {
        const double gram_off = (K * K.transpose() - Eigen::MatrixXd::Identity(K.rows(), K.rows())).cwiseAbs().maxCoeff();
        if (gram_off < 1e-8) continue;
        const Eigen::MatrixXd V = gauss_e(g, static_cast<std::size_t>(K.rows()), d);
        const double r = recall_residual(K, V);
        ++e.instances;
        if (r < best_nonortho)
          best_nonortho = r, nonortho_at = name + ", d_k = " + std::to_string(d) + ", N = " + std::to_string(K.rows()) + " (max |K K^T - I| = " + fmt(gram_off, 3) + ")";
      }
      // (c)
      for (std::size_t Nx : {d + 1, 2 * d, 4 * d}) {
        const Eigen::MatrixXd K = rep % 2 ? gauss_e(g, Nx, d) / std::sqrt(static_cast<double>(d)) : Eigen::MatrixXd(orthonormal_rows(g, d, Nx).transpose());
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(K * K.transpose() - Eigen::MatrixXd::Identity(static_cast<Eigen::Index>(Nx), static_cast<Eigen::Index>(Nx)));
        const double gap = es.eigenvalues().cwiseAbs().maxCoeff();
        ++e.instances;
        if (gap < least_gap) least_gap = gap, gap_at = std::string(rep % 2 ? "Gaussian/sqrt(d_k)" : "tight frame") + " keys, d_k = " + std::to_string(d) + ", N = " + std::to_string(Nx);
      }
    }
  const bool a_ok = worst_suff <= 1e-14, b_ok = best_nonortho > 1e-14, c_ok = least_gap >= 1 - 1e-12;
  // non-linear kernels (evidence): orthonormal keys, and antipodal keys for ReLU
  {
    Rng g(mix(cs, 0xEF));
    const Eigen::MatrixXd K = orthonormal_rows(g, 8, 16), V = gauss_e(g, 8, 16);
    Eigen::MatrixXd A(2, 1), VA = gauss_e(g, 2, 3);
    A << 1.0, -1.0;
    e.extra.emplace_back("ReLU", "orthonormal keys (N = 8, d_k = 16): noise/signal " + fmt(kernel_noise(rs::Kernel::relu, K, V, 1), 3) +
                                     " (sufficient); antipodal keys k_2 = -k_1 (d_k = 1): " + fmt(kernel_noise(rs::Kernel::relu, A, VA, 1), 3) +
                                     " (exact without orthogonality: not necessary)");
    e.extra.emplace_back("exp (tau = 1)", "orthonormal keys (N = 8, d_k = 16): noise/signal " + fmt(kernel_noise(rs::Kernel::exp, K, V, 1), 3) +
                                              " (kappa = e^0 = 1 between orthogonal keys: not sufficient; kappa > 0 everywhere: zero noise "
                                              "for arbitrary values is impossible)");
    e.extra.emplace_back("linear", "necessary and sufficient on every generated instance (exact recall of arbitrary values <=> K K^T = I)");
  }
  e.statistic = "(a) worst relative recall residual with orthonormal keys; (b) least residual with non-orthonormal keys; (c) least ||K K^T - I||_2 with N > d_k";
  e.value = worst_suff;
  e.threshold = 1e-14;
  e.sizes = "d_k in {" + std::string(cfg.quick ? "1, 4, 16, 64" : "1, 2, ..., 128") + "}, N <= d_k (a, b), N in {d_k + 1, 2 d_k, 4 d_k} (c), d_v = d_k";
  e.witness = "(a) " + fmt(worst_suff, 3) + " at " + suff_at + "; (b) " + fmt(best_nonortho, 3) + " at " + nonortho_at + "; (c) " + fmt(least_gap, 6) +
              " at " + gap_at;
  if (a_ok && b_ok && c_ok) {
    res.verdict = Verdict::holds;
    res.reason = "linear memory: orthonormal keys recall exactly (<= " + fmt(worst_suff, 3) + " max||v||), no generated non-orthonormal set does (least " +
                 fmt(best_nonortho, 3) + "), and N > d_k leaves ||K K^T - I||_2 >= " + fmt(least_gap, 6);
  } else {
    res.verdict = Verdict::violated;
    res.reason = !a_ok ? "(a) orthonormal keys recall with residual " + fmt(worst_suff, 3) + " > 1e-14 at " + suff_at
                 : !b_ok ? "(b) a non-orthonormal key set recalls exactly: " + nonortho_at
                         : "(c) a key set with N > d_k has ||K K^T - I||_2 = " + fmt(least_gap, 6) + " < 1 at " + gap_at;
  }
  return res;
}

}  // namespace

void register_a000_orthonormal_recall(Ledger& l) {
  using namespace check_class;
  const auto add = claim_support::claim_adder(l);
  add("A000-ORTHO-RECALL", "Exact recall from S = sum v k^T requires (and with N <= d_k is given by) orthonormal keys", inequality, false,
      a000_ortho_recall);
}

}  // namespace recall
