// AddressSanitizer + UBSan run of the kernels' index arithmetic (issue 15 item 2), built by
// ci/sanitize-kernels with clang and run in CI after the test command.
//
// What it covers: every CPU kernel of optimized/ that has a second form to compare with (chunked
// against recurrent, tiled against naive, the three u-solves against each other, the sparse memories
// against plain loops) and every GPU block
// program under host emulation (SIMT f32 and tensor-core bf16 / f16), at shapes chosen for their
// edges: T = 1, T = chunk - 1, chunk, chunk + 1 and a two-chunk tail; d = 1 and widths that are not
// multiples of 16; B, H > 1; s0 in and s_final out; gates with -inf (a reset) at a chunk boundary,
// mid-chunk and at t = 1. The emulator's shared memory is a std::vector of exactly the plan's size,
// so a program that reads or writes past its layout is an ASan error here.
//
// The comparisons make each run a check that can fail (a wrong index gives O(1) errors), not a
// judgement of accuracy: that is the error budget's job in the main suite (MP oracle, per-row
// budget). Tolerances are therefore coarse and fixed per arithmetic: double against double 1e-9,
// f32 programs against the double recurrence 1e-3, 16-bit tensor-core programs 1e-1, each relative
// to the output's largest magnitude, on well-conditioned data (unit keys, beta <= 0.5).
//
// This file deliberately needs no multiprecision and no test-bed library, so that the sanitized
// build compiles in minutes: optimized/src, gpu/src/plans.cpp and this file.
#include "recall/gpu/emulate.hpp"
#include "recall/optimized/delta_rule.hpp"
#include "recall/optimized/deltaformer.hpp"
#include "recall/optimized/linear_attention.hpp"
#include "recall/optimized/newton_schulz.hpp"
#include "recall/optimized/omega.hpp"
#include "recall/optimized/softmax_attention.hpp"
#include "recall/optimized/sparse_memory.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace recall {
namespace {

struct Shape {
  int B, H, T, dk, dv, C;
};
std::string str(const Shape& s) {
  return "B=" + std::to_string(s.B) + " H=" + std::to_string(s.H) + " T=" + std::to_string(s.T) + " dk=" + std::to_string(s.dk) +
         " dv=" + std::to_string(s.dv) + " C=" + std::to_string(s.C);
}
// the edges: T = 1, chunk - 1, chunk, chunk + 1, a two-chunk tail; d = 1; widths off multiples of 16
const Shape kShapes[] = {{1, 1, 1, 1, 1, 16},  {2, 3, 15, 3, 5, 16},  {1, 2, 16, 8, 8, 16},   {1, 1, 17, 16, 7, 16},
                         {2, 1, 65, 5, 9, 64}, {1, 1, 130, 24, 20, 64}, {1, 2, 77, 32, 33, 32}, {1, 1, 40, 1, 1, 1}};

struct Data {
  std::vector<double> q, k, v, beta, log_gate, s0;
};
// unit keys and queries, N(0,1) values, beta in [0.05, 0.5], log-gates in [-0.5, 0] with -inf at t = 1,
// mid-chunk and at the first token of the second chunk (when those exist)
Data make_data(const Shape& s, unsigned seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> n01;
  std::uniform_real_distribution<double> u01;
  const std::size_t BH = std::size_t(s.B) * s.H, rows = BH * s.T;
  Data d;
  auto unit_rows = [&](std::vector<double>& x, int w) {
    x.resize(rows * w);
    for (std::size_t r = 0; r < rows; ++r) {
      double nn = 0;
      for (int j = 0; j < w; ++j) nn += (x[r * w + j] = n01(g)) * x[r * w + j];
      for (int j = 0; j < w; ++j) x[r * w + j] /= std::sqrt(nn);
    }
  };
  unit_rows(d.q, s.dk);
  unit_rows(d.k, s.dk);
  d.v.resize(rows * s.dv);
  for (double& x : d.v) x = n01(g);
  d.beta.resize(rows);
  for (double& x : d.beta) x = 0.05 + 0.45 * u01(g);
  d.log_gate.resize(rows);
  for (double& x : d.log_gate) x = -0.5 * u01(g);
  const double ninf = -std::numeric_limits<double>::infinity();
  for (std::size_t bh = 0; bh < BH; ++bh) {
    d.log_gate[bh * s.T] = ninf;
    if (s.T > 4) d.log_gate[bh * s.T + s.T / 2] = ninf;
    if (s.T > s.C) d.log_gate[bh * s.T + s.C] = ninf;
  }
  d.s0.resize(BH * s.dv * s.dk);
  for (double& x : d.s0) x = 0.3 * n01(g);
  return d;
}

template <class T, class U> std::vector<T> as(const std::vector<U>& x) { return std::vector<T>(x.begin(), x.end()); }

// max |a - b| <= rel * max(max|b|, floor)
template <class A, class B> void expect_close(const std::vector<A>& a, const std::vector<B>& b, double rel, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  double scale = 0, err = 0;
  std::size_t worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_TRUE(std::isfinite(double(a[i]))) << what << ": element " << i << " not finite";
    scale = std::max(scale, std::fabs(double(b[i])));
    const double e = std::fabs(double(a[i]) - double(b[i]));
    if (e > err) err = e, worst = i;
  }
  EXPECT_LE(err, rel * std::max(scale, 1e-30)) << what << ": max error " << err << " at element " << worst << " (scale " << scale << ")";
  EXPECT_GT(scale, 0.0) << what << ": all-zero reference, nothing compared";
}

// ---- CPU kernels (double): the fast form against the plain one ----
TEST(SanitizedCpu, LinearAttentionChunkedMatchesRecurrent) {
  for (const Shape& s : kShapes)
    for (bool gated : {false, true})
      for (bool with_s0 : {false, true}) {
        const Data d = make_data(s, 11);
        const std::size_t no = std::size_t(s.B) * s.H * s.T * s.dv, ns = std::size_t(s.B) * s.H * s.dv * s.dk;
        std::vector<double> o1(no), o2(no), s1(ns), s2(ns);
        opt::LinearAttentionArgs<double> a;
        a.B = s.B, a.H = s.H, a.T = s.T, a.dk = s.dk, a.dv = s.dv, a.chunk = s.C;
        a.q = d.q.data(), a.k = d.k.data(), a.v = d.v.data(), a.log_gate = gated ? d.log_gate.data() : nullptr;
        a.s0 = with_s0 ? d.s0.data() : nullptr;
        a.o = o1.data(), a.s_final = s1.data();
        opt::linear_attention_recurrent(a);
        a.o = o2.data(), a.s_final = s2.data();
        opt::linear_attention_chunked(a);
        const std::string w = "linear attention " + str(s) + (gated ? " gated" : "") + (with_s0 ? " s0" : "");
        expect_close(o2, o1, 1e-9, w + " o");
        expect_close(s2, s1, 1e-9, w + " s_final");
      }
}

TEST(SanitizedCpu, DeltaRuleChunkedMatchesRecurrent) {
  for (const Shape& s : kShapes)
    for (bool gated : {false, true})
      for (auto solve : {opt::UnitLowerSolve::forward_substitution, opt::UnitLowerSolve::product_inverse}) {
        const Data d = make_data(s, 12);
        const std::size_t no = std::size_t(s.B) * s.H * s.T * s.dv, ns = std::size_t(s.B) * s.H * s.dv * s.dk;
        std::vector<double> o1(no), o2(no), s1(ns), s2(ns);
        opt::DeltaRuleArgs<double> a;
        a.B = s.B, a.H = s.H, a.T = s.T, a.dk = s.dk, a.dv = s.dv, a.chunk = s.C, a.solve = solve;
        a.q = d.q.data(), a.k = d.k.data(), a.v = d.v.data(), a.beta = d.beta.data();
        a.log_alpha = gated ? d.log_gate.data() : nullptr, a.s0 = d.s0.data();
        a.o = o1.data(), a.s_final = s1.data();
        opt::delta_rule_recurrent(a);
        a.o = o2.data(), a.s_final = s2.data();
        opt::delta_rule_chunked(a);
        const std::string w = "delta rule " + str(s) + (gated ? " gated" : "") +
                              (solve == opt::UnitLowerSolve::product_inverse ? " product-inverse" : " substitution");
        expect_close(o2, o1, 1e-9, w + " o");
        expect_close(s2, s1, 1e-9, w + " s_final");
      }
}

TEST(SanitizedCpu, SoftmaxTiledMatchesNaive) {
  for (const Shape& s : kShapes)
    for (int blk : {8, 64})
      for (bool masked : {false, true}) {
        const Data d = make_data(s, 13);
        const std::size_t BH = std::size_t(s.B) * s.H;
        std::vector<unsigned char> mask(BH * s.T, 1);
        for (std::size_t i = 1; i < mask.size(); i += 3) mask[i] = 0;  // every third key invalid
        std::vector<double> o1(BH * s.T * s.dv), o2(o1.size()), l1(BH * s.T), l2(l1.size());
        opt::SoftmaxAttentionArgs<double, double> a;
        a.B = s.B, a.H = s.H, a.T = s.T, a.dk = s.dk, a.dv = s.dv, a.scale = 2.0, a.block_q = blk, a.block_k = blk;
        a.q = d.q.data(), a.k = d.k.data(), a.v = d.v.data(), a.key_mask = masked ? mask.data() : nullptr;
        a.o = o1.data(), a.lse = l1.data();
        opt::softmax_attention_naive(a);
        a.o = o2.data(), a.lse = l2.data();
        opt::softmax_attention_tiled(a);
        const std::string w = "softmax " + str(s) + " block " + std::to_string(blk) + (masked ? " masked" : "");
        expect_close(o2, o1, 1e-9, w + " o");
        for (std::size_t i = 0; i < l1.size(); ++i)
          if (std::isfinite(l1[i]) || std::isfinite(l2[i])) ASSERT_NEAR(l2[i], l1[i], 1e-9 * (1 + std::fabs(l1[i]))) << w << " lse " << i;
      }
}

TEST(SanitizedCpu, SoftmaxSixteenBitInputsRunAndAgree) {
  for (const Shape& s : kShapes)
    for (double scale : {2.0, 120.0}) {  // 120: logits past f32's exp range, so the max must be subtracted
      const Data d = make_data(s, 14);
      const std::size_t BH = std::size_t(s.B) * s.H;
      auto to_bf16 = [](const std::vector<double>& x) {
        std::vector<opt::bf16_t> r(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) r[i] = {gpu::hbf16_from(static_cast<float>(x[i])).bits};
        return r;
      };
      auto back = [](const std::vector<opt::bf16_t>& x) {
        std::vector<float> r(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) r[i] = gpu::to_f32(gpu::hbf16{x[i].bits});
        return r;
      };
      const auto qb = to_bf16(d.q), kb = to_bf16(d.k), vb = to_bf16(d.v);
      const auto qf = back(qb), kf = back(kb), vf = back(vb);
      std::vector<float> o16(BH * s.T * s.dv), o32(o16.size());
      opt::SoftmaxAttentionArgs<opt::bf16_t, float> a;
      a.B = s.B, a.H = s.H, a.T = s.T, a.dk = s.dk, a.dv = s.dv, a.scale = scale, a.block_q = 16, a.block_k = 16;
      a.q = qb.data(), a.k = kb.data(), a.v = vb.data(), a.o = o16.data();
      opt::softmax_attention_tiled(a);
      opt::SoftmaxAttentionArgs<float, float> b;
      b.B = s.B, b.H = s.H, b.T = s.T, b.dk = s.dk, b.dv = s.dv, b.scale = scale;
      b.q = qf.data(), b.k = kf.data(), b.v = vf.data(), b.o = o32.data();
      opt::softmax_attention_naive(b);
      expect_close(o16, o32, 1e-4, "bf16 softmax " + str(s) + " scale " + std::to_string(scale));  // same inputs, f32 sums in both
    }
}

// MoBA (both gate variants, k_top above and below the number of blocks) against a plain double loop that
// reads the keys <= t of the blocks the kernel reports as selected; multi-head against a per-head loop; the
// conjectured gate's blocked form against its loop. Shapes: the edges of kShapes, the block size as the chunk.
TEST(SanitizedCpu, SparseMemoryKernelsMatchPlainLoops) {
  for (const Shape& s : kShapes) {
    const Data d = make_data(s, 29u + static_cast<unsigned>(s.T));
    const int E = (s.T + s.C - 1) / s.C;
    for (auto forcing : {opt::MobaForcing::none, opt::MobaForcing::current_block})
      for (int k_top : {1, 2, E + 1}) {
        std::vector<double> o(d.v.size());
        std::vector<std::uint8_t> gates(std::size_t(s.B) * s.H * s.T * E);
        opt::MobaArgs<double> a;
        a.B = s.B, a.H = s.H, a.T = s.T, a.dk = s.dk, a.dv = s.dv, a.q = d.q.data(), a.k = d.k.data(), a.v = d.v.data(), a.o = o.data();
        a.block = s.C, a.k_top = k_top, a.forcing = forcing, a.kernel = opt::MemoryKernel::softmax, a.scale = 0.7, a.gates_out = gates.data();
        opt::moba_attention(a);
        std::vector<double> ref(o.size(), 0.0);
        for (int bh = 0; bh < s.B * s.H; ++bh)
          for (int t = 0; t < s.T; ++t) {
            std::vector<double> w;
            std::vector<int> keys;
            double mx = -INFINITY;
            for (int e = 0; e < E; ++e)
              if (gates[(std::size_t(bh) * s.T + t) * E + e])
                for (int i = e * s.C; i < std::min((e + 1) * s.C, t + 1); ++i) {
                  double x = 0;
                  for (int j = 0; j < s.dk; ++j) x += d.q[(std::size_t(bh) * s.T + t) * s.dk + j] * d.k[(std::size_t(bh) * s.T + i) * s.dk + j];
                  w.push_back(0.7 * x), keys.push_back(i), mx = std::max(mx, 0.7 * x);
                }
            double z = 0;
            for (double& x : w) z += (x = std::exp(x - mx));
            for (std::size_t j = 0; j < keys.size(); ++j)
              for (int c = 0; c < s.dv; ++c) ref[(std::size_t(bh) * s.T + t) * s.dv + c] += w[j] / z * d.v[(std::size_t(bh) * s.T + keys[j]) * s.dv + c];
          }
        expect_close(o, ref, 1e-9, "moba " + str(s) + " k_top=" + std::to_string(k_top));
      }
    // multi-head: H heads of width dk (q, k) and dv (v) in the [B,T,H*d] layout, linear kernel
    {
      const int H = s.H, W = H * s.dk, Wv = H * s.dv;
      std::vector<double> q(d.q.begin(), d.q.begin() + std::size_t(s.B) * s.T * W), k(d.k.begin(), d.k.begin() + q.size());
      std::vector<double> v(d.v.begin(), d.v.begin() + std::size_t(s.B) * s.T * Wv), o(v.size()), ref(v.size(), 0.0);
      opt::MultiheadArgs<double> a;
      a.B = s.B, a.T = s.T, a.H = H, a.dh = s.dk, a.dhv = s.dv, a.q = q.data(), a.k = k.data(), a.v = v.data(), a.o = o.data(), a.block = s.C;
      opt::multihead_kernel_attention(a);
      for (int b = 0; b < s.B; ++b)
        for (int h = 0; h < H; ++h)
          for (int t = 0; t < s.T; ++t)
            for (int i = 0; i <= t; ++i) {
              double x = 0;
              for (int j = 0; j < s.dk; ++j) x += q[(std::size_t(b) * s.T + t) * W + h * s.dk + j] * k[(std::size_t(b) * s.T + i) * W + h * s.dk + j];
              for (int c = 0; c < s.dv; ++c) ref[(std::size_t(b) * s.T + t) * Wv + h * s.dv + c] += x * v[(std::size_t(b) * s.T + i) * Wv + h * s.dv + c];
            }
      expect_close(o, ref, 1e-9, "multihead " + str(s));
    }
    // conjectured gate, d = dk (x = the queries), W_G = 0.5 I + a strictly lower part
    {
      const int T = s.T, dd = s.dk;
      std::vector<double> x(d.q.begin(), d.q.begin() + std::size_t(T) * dd), wg(std::size_t(dd) * dd, 0.0), o(std::size_t(T) * s.dv), ref(o.size(), 0.0);
      for (int r = 0; r < dd; ++r)
        for (int c = 0; c <= r; ++c) wg[std::size_t(r) * dd + c] = r == c ? 0.5 : 0.1 * (r - c);
      opt::GatedConjArgs<double> a;
      a.T = T, a.d = dd, a.dk = dd, a.dv = s.dv, a.x = x.data(), a.wg = wg.data(), a.q = x.data(), a.k = d.k.data(), a.v = d.v.data(), a.o = o.data();
      a.block = s.C;
      opt::gated_conj_attention(a);
      for (int t = 0; t < T; ++t)
        for (int i = 0; i <= t; ++i) {
          double g = 0, kq = 0;
          for (int r = 0; r < dd; ++r) {
            double wx = 0;
            for (int c = 0; c < dd; ++c) wx += wg[std::size_t(r) * dd + c] * x[std::size_t(i) * dd + c];
            g += wx * x[std::size_t(t) * dd + r];
            kq += x[std::size_t(t) * dd + r] * d.k[std::size_t(i) * dd + r];
          }
          for (int c = 0; c < s.dv; ++c) ref[std::size_t(t) * s.dv + c] += g * kq * d.v[std::size_t(i) * s.dv + c];
        }
      expect_close(o, ref, 1e-9, "gated conj " + str(s));
    }
  }
}

// The Omega rule and Atlas (linear memory, phi = id): the chunked kernels against plain token loops of the
// frozen-gradient rule (gradients of chunk s..e at the state after chunk s-1), windows c in {1, 3, 9} (c > chunk,
// c > T), chunk sizes from the shape table, zero gates from make_data; Newton–Schulz-5 against a plain loop on
// wide, tall, square, 1 x n and m x 1 matrices.
void ns5_plain(std::vector<double>& X, int r, int c) {  // X: r x c, r <= c, in place
  const double a = 3.4445, b = -4.7750, cc = 2.0315;
  double n2 = 0;
  for (double x : X) n2 += x * x;
  const double nrm = std::sqrt(n2) + 1e-7;
  for (double& x : X) x /= nrm;
  for (int k = 0; k < 5; ++k) {
    std::vector<double> A(std::size_t(r) * r, 0.0), B(A.size(), 0.0), Y(X.size(), 0.0);
    for (int i = 0; i < r; ++i)
      for (int j = 0; j < r; ++j)
        for (int l = 0; l < c; ++l) A[i * r + j] += X[i * c + l] * X[j * c + l];
    for (int i = 0; i < r; ++i)
      for (int j = 0; j < r; ++j) {
        double s2 = 0;
        for (int l = 0; l < r; ++l) s2 += A[i * r + l] * A[l * r + j];
        B[i * r + j] = b * A[i * r + j] + cc * s2;
      }
    for (int i = 0; i < r; ++i)
      for (int j = 0; j < c; ++j) {
        double s2 = 0;
        for (int l = 0; l < r; ++l) s2 += B[i * r + l] * X[l * c + j];
        Y[i * c + j] = a * X[i * c + j] + s2;
      }
    X = Y;
  }
}

TEST(SanitizedCpu, OmegaAtlasAndNewtonSchulzMatchPlainLoops) {
  for (const Shape& s : kShapes) {
    const Data d = make_data(s, 31u + static_cast<unsigned>(s.T));
    for (int c : {1, 3, 9}) {
      const std::size_t BH = std::size_t(s.B) * s.H;
      std::vector<double> eta(BH * s.T), gam(BH * s.T * c), lt(BH * s.T);
      for (std::size_t i = 0; i < eta.size(); ++i) eta[i] = 0.05 + 0.1 * d.beta[i];
      for (std::size_t i = 0; i < gam.size(); ++i) gam[i] = 0.5 + 0.5 * std::sin(double(i));
      for (std::size_t i = 0; i < lt.size(); ++i) lt[i] = -0.1 - 0.2 * d.beta[i];
      for (int atlas = 0; atlas < 3; ++atlas) {
        std::vector<double> o(d.v.size()), sf(BH * s.dv * s.dk);
        opt::AtlasArgs<double> a;
        a.B = s.B, a.H = s.H, a.T = s.T, a.dk = s.dk, a.dv = s.dv, a.c = c, a.chunk = s.C;
        a.q = d.q.data(), a.k = d.k.data(), a.v = d.v.data(), a.log_alpha = d.log_gate.data(), a.eta = eta.data(), a.gamma = gam.data();
        a.s0 = d.s0.data(), a.o = o.data(), a.s_final = sf.data(), a.log_theta = lt.data();
        a.variant = atlas == 2 ? opt::AtlasVariant::d4 : opt::AtlasVariant::eq32;
        if (atlas == 0)
          opt::omega_rule_chunked(static_cast<const opt::OmegaArgs<double>&>(a));
        else
          opt::atlas_chunked(a);
        std::vector<double> ref(o.size()), rsf(sf.size());
        for (std::size_t bh = 0; bh < BH; ++bh) {
          const int dk = s.dk, dv = s.dv;
          std::vector<double> M(d.s0.begin() + bh * dv * dk, d.s0.begin() + (bh + 1) * dv * dk), S(M.size(), 0.0), M0, U(M.size());
          for (int t = 0; t < s.T; ++t) {
            if (t % s.C == 0) M0 = M;  // the chunk-start state every gradient of the chunk is taken at
            std::fill(U.begin(), U.end(), 0.0);
            for (int i = std::max(0, t - c + 1); i <= t; ++i) {
              const double* ki = &d.k[(bh * s.T + i) * dk];
              const double gi = gam[(bh * s.T + t) * c + (t - i)];
              for (int r = 0; r < dv; ++r) {
                double e = -d.v[(bh * s.T + i) * dv + r];
                for (int j = 0; j < dk; ++j) e += M0[r * dk + j] * ki[j];
                for (int j = 0; j < dk; ++j) U[r * dk + j] += 2 * gi * e * ki[j];  // the window gradient
              }
            }
            const double al = std::exp(d.log_gate[bh * s.T + t]), et = eta[bh * s.T + t];
            if (atlas == 0) {
              for (std::size_t x = 0; x < M.size(); ++x) M[x] = al * M[x] - et * U[x];
            } else {
              const double th = std::exp(lt[bh * s.T + t]);
              for (std::size_t x = 0; x < S.size(); ++x) S[x] = atlas == 1 ? th * S[x] + U[x] : th * S[x] - et * U[x];
              std::vector<double> N;  // NS5 of S with the transpose rule
              if (dv <= dk) {
                N = S;
                ns5_plain(N, dv, dk);
              } else {
                std::vector<double> X(S.size());
                for (int r = 0; r < dv; ++r)
                  for (int j = 0; j < dk; ++j) X[j * dv + r] = S[r * dk + j];
                ns5_plain(X, dk, dv);
                N.resize(S.size());
                for (int r = 0; r < dv; ++r)
                  for (int j = 0; j < dk; ++j) N[r * dk + j] = X[j * dv + r];
              }
              for (std::size_t x = 0; x < M.size(); ++x) M[x] = atlas == 1 ? al * M[x] - et * N[x] : al * M[x] + N[x];
            }
            for (int r = 0; r < dv; ++r) {
              double y = 0;
              for (int j = 0; j < dk; ++j) y += M[r * dk + j] * d.q[(bh * s.T + t) * dk + j];
              ref[(bh * s.T + t) * dv + r] = y;
            }
          }
          std::copy(M.begin(), M.end(), rsf.begin() + bh * dv * dk);
        }
        const std::string what = std::string(atlas == 0 ? "omega_rule_chunked" : atlas == 1 ? "atlas_chunked EQ32" : "atlas_chunked D4") +
                                 " c=" + std::to_string(c) + " " + str(s);
        expect_close(o, ref, 1e-9, what + " o");
        expect_close(sf, rsf, 1e-9, what + " s_final");
      }
    }
  }
  for (auto [m, n] : {std::pair{1, 7}, std::pair{7, 1}, std::pair{5, 5}, std::pair{3, 17}, std::pair{17, 3}}) {
    std::mt19937_64 g(7u + unsigned(m * 31 + n));
    std::normal_distribution<double> n01;
    std::vector<double> G(std::size_t(3) * m * n), X(G.size());
    for (double& x : G) x = n01(g);
    opt::NewtonSchulzArgs<double> a;
    a.batch = 3, a.m = m, a.n = n, a.g = G.data(), a.x = X.data();
    opt::newton_schulz(a);
    std::vector<double> ref(G.size());
    for (int i = 0; i < 3; ++i) {
      const bool tall = m > n;
      const int r = tall ? n : m, cc = tall ? m : n;
      std::vector<double> Y(std::size_t(r) * cc);
      for (int p = 0; p < r; ++p)
        for (int q = 0; q < cc; ++q) Y[p * cc + q] = tall ? G[i * m * n + q * n + p] : G[i * m * n + p * n + q];
      ns5_plain(Y, r, cc);
      for (int p = 0; p < r; ++p)
        for (int q = 0; q < cc; ++q) (tall ? ref[i * m * n + q * n + p] : ref[i * m * n + p * n + q]) = Y[p * cc + q];
    }
    expect_close(X, ref, 1e-10, "newton_schulz " + std::to_string(m) + " x " + std::to_string(n));
  }
}

TEST(SanitizedCpu, DeltaFormerSolvesAgree) {
  for (const Shape& s : kShapes)
    for (bool normalized : {false, true}) {
      const Data d = make_data(s, 15);
      const std::size_t nv = std::size_t(s.B) * s.H * s.T * s.dv;
      std::vector<double> beta(d.beta);
      for (double& b : beta) b *= normalized ? 1.0 : 0.2;  // unnormalised: a well-conditioned system
      std::vector<double> u0(nv), o0(nv), u1(nv), o1(nv), u2(nv), o2(nv);
      opt::DeltaFormerArgs<double> a;
      a.B = s.B, a.H = s.H, a.T = s.T, a.dk = s.dk, a.dv = s.dv, a.chunk = s.C, a.scale = 0.5, a.normalized = normalized;
      a.q = d.q.data(), a.k = d.k.data(), a.v = d.v.data(), a.beta = beta.data();
      a.solve = opt::USolve::substitution, a.u = u0.data(), a.o = o0.data();
      opt::deltaformer(a);
      a.solve = opt::USolve::blocked, a.u = u1.data(), a.o = o1.data();
      opt::deltaformer(a);
      const std::string w = "deltaformer " + str(s) + (normalized ? " normalised" : "");
      expect_close(u1, u0, 1e-9, w + " blocked u");
      expect_close(o1, o0, 1e-9, w + " blocked o");
      if (normalized) {  // the product-form inverse is accurate for the normalised kernel only (deltaformer.hpp)
        a.solve = opt::USolve::product_inverse, a.u = u2.data(), a.o = o2.data();
        opt::deltaformer(a);
        expect_close(u2, u0, 1e-9, w + " product-inverse u");
        expect_close(o2, o0, 1e-9, w + " product-inverse o");
      }
    }
}

// ---- GPU block programs under host emulation against the CPU recurrences in double ----
constexpr std::size_t kSmem = 227 * 1024;
gpu::SeqDims dims(const Shape& s) { return gpu::SeqDims{s.B, s.H, s.T, s.dk, s.dv, s.C}; }
struct Expected {
  std::vector<double> o, s_final;
};
Expected la_reference(const Shape& s, const Data& d, bool gated) {
  Expected e{std::vector<double>(std::size_t(s.B) * s.H * s.T * s.dv), std::vector<double>(std::size_t(s.B) * s.H * s.dv * s.dk)};
  opt::LinearAttentionArgs<double> a;
  a.B = s.B, a.H = s.H, a.T = s.T, a.dk = s.dk, a.dv = s.dv;
  a.q = d.q.data(), a.k = d.k.data(), a.v = d.v.data(), a.log_gate = gated ? d.log_gate.data() : nullptr, a.s0 = d.s0.data();
  a.o = e.o.data(), a.s_final = e.s_final.data();
  opt::linear_attention_recurrent(a);
  return e;
}
Expected dr_reference(const Shape& s, const Data& d, bool gated) {
  Expected e{std::vector<double>(std::size_t(s.B) * s.H * s.T * s.dv), std::vector<double>(std::size_t(s.B) * s.H * s.dv * s.dk)};
  opt::DeltaRuleArgs<double> a;
  a.B = s.B, a.H = s.H, a.T = s.T, a.dk = s.dk, a.dv = s.dv;
  a.q = d.q.data(), a.k = d.k.data(), a.v = d.v.data(), a.beta = d.beta.data(), a.log_alpha = gated ? d.log_gate.data() : nullptr;
  a.s0 = d.s0.data(), a.o = e.o.data(), a.s_final = e.s_final.data();
  opt::delta_rule_recurrent(a);
  return e;
}
std::vector<double> sm_reference(const Shape& s, const Data& d, double scale) {
  std::vector<double> o(std::size_t(s.B) * s.H * s.T * s.dv);
  opt::SoftmaxAttentionArgs<double, double> a;
  a.B = s.B, a.H = s.H, a.T = s.T, a.dk = s.dk, a.dv = s.dv, a.scale = scale;
  a.q = d.q.data(), a.k = d.k.data(), a.v = d.v.data(), a.o = o.data();
  opt::softmax_attention_naive(a);
  return o;
}
std::vector<double> us_reference(const Shape& s, const Data& d, const std::vector<double>& beta, double inv_tau) {
  std::vector<double> u(std::size_t(s.B) * s.H * s.T * s.dv);
  opt::DeltaFormerArgs<double> a;
  a.B = s.B, a.H = s.H, a.T = s.T, a.dk = s.dk, a.dv = s.dv, a.scale = inv_tau, a.solve = opt::USolve::substitution;
  a.q = d.q.data(), a.k = d.k.data(), a.v = d.v.data(), a.beta = beta.data(), a.u = u.data();
  opt::deltaformer(a);
  return u;
}

// Inputs rounded to the storage type Op (float for the SIMT programs), and the double data the
// references see: the same rounded values, so only the programs' arithmetic differs.
template <class Op> std::vector<Op> stored(std::vector<double>& x) {
  std::vector<Op> r(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    if constexpr (std::is_same_v<Op, float>) {
      r[i] = static_cast<float>(x[i]);
      x[i] = static_cast<double>(r[i]);
    } else {
      r[i] = gpu::op_from<Op>(static_cast<float>(x[i]));
      x[i] = static_cast<double>(gpu::to_f32(r[i]));
    }
  }
  return r;
}

template <class Op> void check_programs(const char* name, double tol) {
  for (const Shape& s : kShapes) {
    if (!std::is_same_v<Op, float> && s.C != 64 && s.C != 16) continue;
    Data d = make_data(s, 21);
    const auto q = stored<Op>(d.q), k = stored<Op>(d.k), v = stored<Op>(d.v);
    const std::vector<float> beta = as<float>(d.beta), lg = as<float>(d.log_gate), s0 = as<float>(d.s0);
    d.beta = as<double>(beta), d.log_gate = as<double>(lg), d.s0 = as<double>(s0);
    gpu::SeqDims sd = dims(s);
    if (!std::is_same_v<Op, float>) sd.C = 64;  // the tensor-core programs' fixed chunk
    const std::size_t no = std::size_t(s.B) * s.H * s.T * s.dv, ns = std::size_t(s.B) * s.H * s.dv * s.dk;
    const std::string w = std::string(name) + " " + str(s);
    for (bool gated : {false, true}) {
      std::vector<float> o(no), sf(ns);
      gpu::LaPtrs<Op> p{q.data(), k.data(), v.data(), gated ? lg.data() : nullptr, s0.data(), o.data(), sf.data()};
      if constexpr (std::is_same_v<Op, float>) gpu::emulate_linear_attention(sd, p, gpu::plan_linear_attention(sd, sd.C, kSmem));
      else gpu::emulate_tc_linear_attention(sd, p, gpu::plan_tc_linear_attention(sd, kSmem));
      const Expected e = la_reference(s, d, gated);
      expect_close(o, e.o, tol, w + " linear attention o" + (gated ? " gated" : ""));
      expect_close(sf, e.s_final, tol, w + " linear attention s_final" + (gated ? " gated" : ""));
    }
    for (bool gated : {false, true}) {
      std::vector<float> o(no), sf(ns);
      gpu::DrPtrs<Op> p{q.data(), k.data(), v.data(), beta.data(), gated ? lg.data() : nullptr, s0.data(), o.data(), sf.data()};
      if constexpr (std::is_same_v<Op, float>) gpu::emulate_delta_rule(sd, p, gpu::plan_delta_rule(sd, sd.C, kSmem));
      else gpu::emulate_tc_delta_rule(sd, p, gpu::plan_tc_delta_rule(sd, kSmem));
      const Expected e = dr_reference(s, d, gated);
      expect_close(o, e.o, tol, w + " delta rule o" + (gated ? " gated" : ""));
      expect_close(sf, e.s_final, tol, w + " delta rule s_final" + (gated ? " gated" : ""));
    }
    {
      std::vector<float> o(no);
      gpu::SmPtrs<Op> p{q.data(), k.data(), v.data(), o.data()};
      const float scale = 8.0f;  // logits in [-8, 8]: the running max moves between key tiles
      if constexpr (std::is_same_v<Op, float>) gpu::emulate_softmax(sd, p, scale, gpu::plan_softmax(sd, sd.C, kSmem));
      else gpu::emulate_tc_softmax(sd, p, scale, gpu::plan_tc_softmax(sd, kSmem));
      expect_close(o, sm_reference(s, d, scale), tol, w + " causal softmax o");
    }
    {
      std::vector<float> u(no), bs(beta.size());
      for (std::size_t i = 0; i < bs.size(); ++i) bs[i] = 0.2f * beta[i];  // beta <= 0.1: well-conditioned at 16 bits
      gpu::UsPtrs<Op> p{k.data(), v.data(), bs.data(), u.data()};
      const float inv_tau = 0.5f;
      if constexpr (std::is_same_v<Op, float>) gpu::emulate_u_solve(sd, p, inv_tau, gpu::plan_u_solve(sd, sd.C, kSmem));
      else gpu::emulate_tc_u_solve(sd, p, inv_tau, gpu::plan_tc_u_solve(sd, kSmem));
      expect_close(u, us_reference(s, d, as<double>(bs), inv_tau), tol, w + " u-solve u");
    }
  }
}

TEST(SanitizedGpuEmulation, SimtProgramsMatchTheCpuRecurrences) { check_programs<float>("SIMT f32", 1e-3); }
TEST(SanitizedGpuEmulation, TensorCoreProgramsBf16MatchTheCpuRecurrences) { check_programs<gpu::hbf16>("tensor-core bf16", 1e-1); }
TEST(SanitizedGpuEmulation, TensorCoreProgramsF16MatchTheCpuRecurrences) { check_programs<gpu::hf16>("tensor-core f16", 1e-1); }

// The sanitizers are on: a deliberate out-of-bounds read must be reported (ci/sanitize-kernels runs
// this test alone and expects it to die with ASan's report; the normal run filters it out).
TEST(SanitizerCanary, DISABLED_HeapOverflowIsReported) {
  std::vector<float> x(7, 1.0f);
  volatile float* p = x.data();
  EXPECT_EQ(p[7], 0.0f);  // one past the end
}

}  // namespace
}  // namespace recall
