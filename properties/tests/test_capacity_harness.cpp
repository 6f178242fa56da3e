// The recall-capacity harness behind A000-CAP-RECALL / -CAP-LINEAR / -CAP-EXP and
// A004-OUTER-AM-RETRIEVAL (proofs_numeric/support/capacity_support.hpp): its blocked, rescaled Eigen
// read-out against the definition (o = sum_j v_j kappa(k_j, k_i), argmax_j cos(o, v_j) = i) written out
// with the reference kernels of reference/retrieval_snr.hpp; the N grid and censoring; the fits.
#include "../../proofs_numeric/support/capacity_support.hpp"
#include "recall/reference/retrieval_snr.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace recall {
namespace {

using namespace claim_support::capacity;
using claim_support::mix;
namespace rs = ref::snr;

rs::Kernel ref_kernel(KFun f) {
  switch (f) {
    case KFun::linear: return rs::Kernel::linear;
    case KFun::relu: return rs::Kernel::relu;
    case KFun::exp: return rs::Kernel::exp;
    case KFun::solu: return rs::Kernel::solu;
  }
  return rs::Kernel::linear;
}

// recalls among the first n_probes pairs, straight from the definition (no blocking, no rescaling)
std::size_t recalls_by_definition(const KernelSpec& k, const RowMat& K, const RowMat& V, std::size_t n_probes) {
  const std::size_t N = static_cast<std::size_t>(K.rows()), dv = static_cast<std::size_t>(V.cols());
  const double tau = k.tau > 0 ? k.tau : std::sqrt(static_cast<double>(K.cols()));
  std::size_t ok = 0;
  for (std::size_t i = 0; i < n_probes; ++i) {
    std::vector<double> o(dv, 0.0);
    for (std::size_t j = 0; j < N; ++j) {
      const double x = K.row(static_cast<Eigen::Index>(j)).dot(K.row(static_cast<Eigen::Index>(i)));
      const double w = rs::kappa(ref_kernel(k.f), x, tau);
      for (std::size_t c = 0; c < dv; ++c) o[c] += w * V(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(c));
    }
    std::size_t best = 0;
    double bv = -INFINITY;
    for (std::size_t j = 0; j < N; ++j) {
      double dot = 0, nv = 0;
      for (std::size_t c = 0; c < dv; ++c) {
        const double v = V(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(c));
        dot += o[c] * v;
        nv += v * v;
      }
      const double cs = dot / std::sqrt(nv);
      if (cs > bv) bv = cs, best = j;
    }
    ok += best == i;
  }
  return ok;
}

TEST(CapacityHarness, BlockedReadoutAgreesWithTheDefinition) {
  // N = 150 crosses two probe blocks of 64; d_k = 12 and N near every kernel's capacity there, so that
  // both successes and failures occur
  for (const KernelSpec* k : kAllKernels)
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      const RowMat K = counter_gauss(mix(seed, 1), 150, 12), V = counter_gauss(mix(seed, 2), 150, kDv);
      const std::size_t fast = recalls(*k, K, V, 150), slow = recalls_by_definition(*k, K, V, 150);
      EXPECT_EQ(fast, slow) << k->name << " seed " << seed;
      EXPECT_GT(fast, 0u) << k->name;
      EXPECT_LT(fast, 150u) << k->name << ": no failure at N = 150, d_k = 12: the comparison would not see a wrong argmax";
    }
}

TEST(CapacityHarness, CounterDataAreNestedAndStandardNormal) {
  const RowMat a = counter_gauss(7, 300, 64), b = counter_gauss(7, 100, 64);
  EXPECT_EQ(a.topRows(100), b);  // memories for growing N share their first pairs
  const double mean = a.mean(), var = (a.array() - mean).square().mean();
  EXPECT_NEAR(mean, 0.0, 0.02);
  EXPECT_NEAR(var, 1.0, 0.03);
  // entries of a row are not repeated (a generator that reused one uniform pair per row would make rows parallel)
  EXPECT_NE(a(0, 0), a(0, 2));
}

TEST(CapacityHarness, GridCensoringAndFailure) {
  const auto g = n_grid(4096);
  ASSERT_GE(g.size(), 40u);
  for (std::size_t i = 0; i < 32; ++i) EXPECT_EQ(g[i], i + 1);
  for (std::size_t i = 1; i < g.size(); ++i) EXPECT_GT(g[i], g[i - 1]);
  EXPECT_LE(g.back(), 4096u);
  // a sharp exponential kernel (tau = 0.05) at d_k = 64 recalls everything up to a small cap: censored. (At
  // d_k = 16 it does not: a short probe key |k_i| ~ 2.4 is beaten by an aligned longer key, k_j.k_i > |k_i|^2,
  // with probability P(Z > |k_i|) per pair, and fails near N = 32.)
  const KernelSpec sharp{"exp tau=0.05", KFun::exp, 0.05};
  const Capacity c = find_capacity(sharp, 11, 64, 64);
  EXPECT_TRUE(c.censored);
  EXPECT_EQ(c.n_star, n_grid(64).back());
  // the linear kernel at d_k = 4 cannot tell two keys apart 99% of the time: N* = 1, not censored
  const Capacity l = find_capacity(kLinear, 11, 4, 4096);
  EXPECT_FALSE(l.censored);
  EXPECT_EQ(l.n_star, 1u);
}

TEST(CapacityHarness, OlsSlopeAndInterval) {
  const Fit exact = claim_support::linear_fit({1, 2, 3, 4}, {3, 5, 7, 9});
  EXPECT_NEAR(exact.slope, 2.0, 1e-12);
  EXPECT_NEAR(exact.hi - exact.lo, 0.0, 1e-9);
  const Fit noisy = claim_support::linear_fit({1, 2, 3, 4, 5}, {1.1, 1.9, 3.2, 3.9, 5.1});
  EXPECT_LT(noisy.lo, 1.0);
  EXPECT_GT(noisy.hi, 1.0);
  EXPECT_EQ(claim_support::linear_fit({1, 2}, {1, 2}).points, 2);
  EXPECT_TRUE(std::isinf(claim_support::linear_fit({1, 2}, {1, 2}).hi));  // two points: no interval
}

}  // namespace
}  // namespace recall
