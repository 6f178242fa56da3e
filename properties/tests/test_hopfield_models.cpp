// Reference header hopfield_models.hpp (A003 App. C/D models and the sparsemax baseline): sparsemax is the
// Euclidean projection onto the simplex (sort vs selection threshold, KKT), linear model fast (state / causal
// prefix) vs per-query forms and the literal_C2 reading, multi-head H = 1 equals the dense map and the batched
// form equals the per-head loop, PRF fast vs reference for one draw and convergence to the dense map as n_f
// grows, NPH layers reduce to row-wise retrieval, gathered / factored sparse kernels equal hopfield.hpp's maps,
// and the errors raised on bad input.
#include "recall/reference/hopfield_models.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

namespace recall {
namespace {

using ref::Matrix;
using ref::Vector;
namespace hf = ref::hopfield;

Matrix<double> gauss(std::mt19937_64& g, std::size_t r, std::size_t c, double scale = 1.0) {
  std::normal_distribution<double> N(0.0, 1.0);
  Matrix<double> m(r, c);
  for (double& x : m.a) x = scale * N(g);
  return m;
}
Vector<double> gvec(std::mt19937_64& g, std::size_t d, double scale = 1.0) {
  std::normal_distribution<double> N(0.0, 1.0);
  Vector<double> v(d);
  for (double& x : v) x = scale * N(g);
  return v;
}
double maxdiff(const Vector<double>& a, const Vector<double>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}
double maxdiff(const Matrix<double>& a, const Matrix<double>& b) { return maxdiff(a.a, b.a); }
Vector<double> row(const Matrix<double>& m, std::size_t i) { return Vector<double>(m.row(i), m.row(i) + m.cols); }

TEST(HopfieldModels, SparsemaxIsSimplexProjection) {
  std::mt19937_64 g(11);
  for (int rep = 0; rep < 200; ++rep) {
    const std::size_t M = 1 + rep % 17;
    Vector<double> z = gvec(g, M, rep % 3 == 0 ? 0.1 : 2.0);
    if (rep % 5 == 0 && M > 2) z[1] = z[0];  // ties
    std::size_t k1 = 0, k2 = 0;
    const double t1 = hf::sparsemax_threshold(z, &k1), t2 = hf::sparsemax_threshold_select(z, &k2);
    EXPECT_NEAR(t1, t2, 1e-12);
    const Vector<double> p = hf::sparsemax(z);
    double s = 0;
    std::size_t nz = 0;
    for (std::size_t i = 0; i < M; ++i) {
      EXPECT_GE(p[i], 0.0);
      s += p[i];
      nz += p[i] > 0;
      // KKT of min ||p - z||^2 on the simplex: p_i > 0 => z_i - p_i = tau; p_i = 0 => z_i <= tau
      if (p[i] > 0) EXPECT_NEAR(z[i] - p[i], t1, 1e-12);
      else EXPECT_LE(z[i], t1 + 1e-12);
    }
    EXPECT_NEAR(s, 1.0, 1e-12);
    EXPECT_LE(nz, k1);
    // projection: no random simplex point is closer to z
    std::uniform_real_distribution<double> U(0, 1);
    double dp = 0;
    for (std::size_t i = 0; i < M; ++i) dp += (p[i] - z[i]) * (p[i] - z[i]);
    for (int t = 0; t < 20; ++t) {
      Vector<double> r(M);
      double rs = 0;
      for (double& v : r) rs += (v = -std::log(1 - U(g)));
      double dr = 0;
      for (std::size_t i = 0; i < M; ++i) dr += (r[i] / rs - z[i]) * (r[i] / rs - z[i]);
      EXPECT_GE(dr, dp - 1e-12);
    }
  }
  // exact values: z = (1, 0) -> p = (1, 0); z = (0.5, 0.5, -1) -> (0.5, 0.5, 0)
  EXPECT_EQ(hf::sparsemax(Vector<double>{1.0, 0.0}), (Vector<double>{1.0, 0.0}));
  EXPECT_EQ(hf::sparsemax(Vector<double>{0.5, 0.5, -1.0}), (Vector<double>{0.5, 0.5, 0.0}));
  EXPECT_THROW(hf::sparsemax(Vector<double>{}), std::invalid_argument);
  EXPECT_THROW(hf::sparsemax(Vector<double>{1.0, NAN}), std::invalid_argument);
}

TEST(HopfieldModels, SparsemaxRetrievalMp) {
  MpDigitsScope dig(50);
  std::mt19937_64 g(3);
  const Matrix<mp_t> Xi = ref::cast<mp_t>(gauss(g, 7, 4));
  const Vector<mp_t> x = ref::cast<mp_t>(gvec(g, 4));
  const Vector<mp_t> T = hf::sparsemax_retrieval(Xi, x, mp_t(3));
  Vector<mp_t> a = hf::scores(Xi, x);
  for (auto& v : a) v *= 3;
  const Vector<mp_t> p = hf::sparsemax(a);
  mp_t s(0);
  for (auto& v : p) s += v;
  EXPECT_LT(static_cast<double>(abs(s - 1)), 1e-45);
  const Vector<mp_t> T2 = hf::combine_rows(Xi, p);
  for (std::size_t c = 0; c < 4; ++c) EXPECT_EQ(T[c], T2[c]);
  EXPECT_LT(static_cast<double>(abs(hf::sparsemax_threshold(a) - hf::sparsemax_threshold_select(a))), 1e-45);
}

TEST(HopfieldModels, LinearFastEqualsPerQuery) {
  std::mt19937_64 g(5);
  for (bool lit : {false, true})
    for (bool bs : {false, true}) {
      const hf::LinearFlags fl{lit, bs};
      const Matrix<double> Xi = gauss(g, 9, 5), Keys = gauss(g, 9, 5), Q = gauss(g, 6, 5, 2.0);
      const Matrix<double> Z = hf::linear_retrieval_fast(Xi, Keys, Q, fl, 0.7);
      for (std::size_t i = 0; i < Q.rows; ++i) {
        const Vector<double> w = hf::linear_weights(Keys, row(Q, i), fl, 0.7);
        double s = 0;
        for (double v : w) {
          EXPECT_GT(v, 0.0);
          s += v;
        }
        EXPECT_NEAR(s, 1.0, 1e-13);
        EXPECT_LT(maxdiff(row(Z, i), hf::linear_retrieval(Xi, Keys, row(Q, i), fl, 0.7)), 1e-12);
      }
    }
  // literal_C2 weights are proportional to <phi(x), phi(k_mu)> / h(k_mu)
  const Matrix<double> Keys = gauss(g, 4, 3);
  const Vector<double> x = gvec(g, 3);
  const Vector<double> wl = hf::linear_weights(Keys, x, hf::LinearFlags{true, false});
  Vector<double> r(4);
  double s = 0;
  for (std::size_t mu = 0; mu < 4; ++mu) s += (r[mu] = hf::linear_feature_inner(x, row(Keys, mu)) / hf::linear_normaliser(Keys, row(Keys, mu)));
  for (std::size_t mu = 0; mu < 4; ++mu) EXPECT_NEAR(wl[mu], r[mu] / s, 1e-14);
  // elu + 1
  EXPECT_EQ(hf::elu1(2.0), 3.0);
  EXPECT_EQ(hf::elu1(0.0), 1.0);
  EXPECT_NEAR(hf::elu1(-1.0), std::exp(-1.0), 1e-16);
}

TEST(HopfieldModels, LinearCausalPrefixEqualsReference) {
  std::mt19937_64 g(6);
  const Matrix<double> Q = gauss(g, 12, 4), K = gauss(g, 12, 4), V = gauss(g, 12, 3);
  EXPECT_LT(maxdiff(hf::linear_causal_prefix(Q, K, V), hf::linear_causal_reference(Q, K, V)), 1e-12);
  EXPECT_THROW(hf::linear_causal_prefix(Q, K, V, hf::LinearFlags{true, false}), std::invalid_argument);
}

TEST(HopfieldModels, MultiheadSingleHeadIsDense) {
  std::mt19937_64 g(7);
  const Matrix<double> Xi = gauss(g, 8, 4), Keys = gauss(g, 8, 4);
  const Vector<double> x = gvec(g, 4);
  Matrix<double> I(4, 4);
  for (std::size_t i = 0; i < 4; ++i) I(i, i) = 1;
  const Vector<double> T = hf::multihead_shared(Keys, {Xi}, {I}, x, 2.0);
  EXPECT_LT(maxdiff(T, hf::dense_retrieval(Xi, Keys, x, 2.0)), 1e-14);
  // batched == loop; per-head with equal keys == shared
  std::vector<Matrix<double>> vals{gauss(g, 8, 3), gauss(g, 8, 2), gauss(g, 8, 3)}, wo{gauss(g, 4, 3), gauss(g, 4, 2), gauss(g, 4, 3)};
  const Vector<double> a = hf::multihead_shared(Keys, vals, wo, x, 1.5);
  EXPECT_LT(maxdiff(a, hf::multihead_shared_batched(Keys, vals, wo, x, 1.5)), 1e-13);
  EXPECT_LT(maxdiff(a, hf::multihead_perhead({Keys, Keys, Keys}, vals, wo, x, 1.5)), 1e-14);
  EXPECT_THROW(hf::multihead_shared(Keys, vals, {wo[0]}, x, 1.5), std::invalid_argument);
}

TEST(HopfieldModels, PrfFastEqualsReferenceAndConverges) {
  std::mt19937_64 g(8);
  const std::size_t d = 4, M = 6;
  const Matrix<double> Xi = gauss(g, M, d, 0.5), Keys = gauss(g, M, d, 0.5), Q = gauss(g, 3, d, 0.5);
  for (bool hyp : {false, true}) {
    const hf::PrfDraw draw = hf::prf_draw(64, d, 99, hf::PrfDistribution::gaussian, hyp);
    EXPECT_EQ(draw.features(), hyp ? 128u : 64u);
    const Matrix<double> Z = hf::prf_retrieval_fast(draw, Xi, Keys, Q, 1.0);
    for (std::size_t i = 0; i < Q.rows; ++i) {
      EXPECT_LT(maxdiff(row(Z, i), hf::prf_retrieval(draw, Xi, Keys, row(Q, i), 1.0)), 1e-12);
      for (double w : hf::prf_weights(draw, Keys, row(Q, i), 1.0)) EXPECT_GT(w, 0.0);
    }
    // explicit features agree with the log-domain estimate
    const Vector<double> fx = hf::prf_features(draw, row(Q, 0), 1.0), fy = hf::prf_features(draw, row(Keys, 0), 1.0);
    EXPECT_NEAR(ref::dot(fx.data(), fy.data(), fx.size()), hf::prf_kernel_estimate(draw, row(Q, 0), row(Keys, 0), 1.0), 1e-13);
  }
  // error to T_Dense shrinks with n_f (averaged over draws)
  const Vector<double> x = row(Q, 0), Td = hf::dense_retrieval(Xi, Keys, x, 1.0);
  auto err = [&](std::size_t nf) {
    double e = 0;
    for (std::uint64_t s = 0; s < 8; ++s) e += maxdiff(hf::prf_retrieval(hf::prf_draw(nf, d, 1000 + s), Xi, Keys, x, 1.0), Td);
    return e / 8;
  };
  const double e16 = err(16), e4096 = err(4096);
  EXPECT_LT(e4096, e16 / 4);
  EXPECT_LT(e4096, 0.05);
  // reproducible draw; simplex rows sum to 1
  EXPECT_EQ(hf::prf_draw(5, 3, 7).omega.a, hf::prf_draw(5, 3, 7).omega.a);
  const hf::PrfDraw sd = hf::prf_draw(5, 3, 7, hf::PrfDistribution::simplex);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_NEAR(sd.omega(i, 0) + sd.omega(i, 1) + sd.omega(i, 2), 1.0, 1e-15);
  EXPECT_THROW(hf::prf_log_features(sd, Vector<double>(4, 0.0), 1.0), std::invalid_argument);
}

TEST(HopfieldModels, PrfKernelUnbiasedMean) {
  const Vector<double> x{0.3, -0.2, 0.1}, y{0.1, 0.4, -0.3};
  const double exact = std::exp(0.03 - 0.08 - 0.03);
  const double est = hf::prf_kernel_estimate(hf::prf_draw(200000, 3, 5), x, y, 1.0);
  EXPECT_NEAR(est / exact, 1.0, 0.01);
}

TEST(HopfieldModels, NphReducesToRowwiseRetrieval) {
  std::mt19937_64 g(9);
  const std::size_t d = 4, M = 7, L = 5;
  const Matrix<double> Y = gauss(g, M, d), R = gauss(g, L, d);
  Matrix<double> I(d, d);
  for (std::size_t i = 0; i < d; ++i) I(i, i) = 1;
  const hf::PrfDraw draw = hf::prf_draw(32, d, 4);
  for (hf::RowModel m : {hf::RowModel::dense, hf::RowModel::sparse_u, hf::RowModel::sparse_r, hf::RowModel::linear, hf::RowModel::prf,
                         hf::RowModel::sparsemax}) {
    hf::RowModelSpec spec;
    spec.model = m;
    spec.prf = &draw;
    for (std::size_t i = 0; i < L; ++i) spec.masks.push_back(hf::random_mask(M, 3, 17, i));
    const Matrix<double> Z = hf::nph(spec, R, Y, I, I, I, 1.3);
    for (std::size_t i = 0; i < L; ++i) {
      const Vector<double> x = row(R, i);
      Vector<double> T;
      switch (m) {
        case hf::RowModel::dense: T = hf::dense_retrieval(Y, x, 1.3); break;
        case hf::RowModel::sparse_u: T = hf::sparse_u(Y, x, 1.3, spec.masks[i]); break;
        case hf::RowModel::sparse_r: T = hf::sparse_r(Y, x, 1.3, spec.masks[i]); break;
        case hf::RowModel::linear: T = hf::linear_retrieval(Y, x); break;
        case hf::RowModel::prf: T = hf::prf_retrieval(draw, Y, Y, x, 1.3); break;
        default: T = hf::sparsemax_retrieval(Y, x, 1.3);
      }
      EXPECT_LT(maxdiff(row(Z, i), T), 1e-12) << hf::row_model_name(m);
    }
  }
  // NPHLayer: K = W_K, V = W_K W_V; equals (D.2) with W_Q = I, Y = I
  const Matrix<double> WK = gauss(g, 6, d), WV = gauss(g, d, 3);
  hf::RowModelSpec spec;
  Matrix<double> I6(6, 6);
  for (std::size_t i = 0; i < 6; ++i) I6(i, i) = 1;
  const Matrix<double> A = hf::nph_layer(spec, R, WK, WV, 0.9), B = hf::nph(spec, R, I6, I, WK, WV, 0.9);
  EXPECT_EQ(A.rows, L);
  EXPECT_EQ(A.cols, 3u);
  EXPECT_LT(maxdiff(A, B), 1e-13);
  EXPECT_THROW(hf::nph(spec, R, Y, I, WK, WV, 0.9), std::invalid_argument);
}

TEST(HopfieldModels, GatheredSparseKernelsEqualReadings) {
  std::mt19937_64 g(10);
  const Matrix<double> Xi = gauss(g, 20, 5), Keys = gauss(g, 20, 5);
  const Vector<double> x = gvec(g, 5);
  for (std::uint64_t r = 0; r < 10; ++r) {
    const hf::Mask mask = hf::random_mask(20, 1 + r, 3, r);
    EXPECT_LT(maxdiff(hf::sparse_r_gathered(Xi, Keys, x, 2.0, mask), hf::sparse_r(Xi, Keys, x, 2.0, mask)), 1e-13);
    EXPECT_LT(maxdiff(hf::sparse_u_factored(Xi, Keys, x, 2.0, mask), hf::sparse_u(Xi, Keys, x, 2.0, mask)), 1e-13);
  }
  EXPECT_THROW(hf::sparse_r_gathered(Xi, Keys, x, 2.0, hf::Mask{}), std::invalid_argument);
  EXPECT_EQ(hf::sparse_u_factored(Xi, Keys, x, 2.0, hf::Mask{}), Vector<double>(5, 0.0));
}

}  // namespace
}  // namespace recall
