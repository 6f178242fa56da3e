// Fast forms of paper A000 §2.1.4 (optimized/sparse_memory.hpp) against the references written from the
// printed definitions (reference/ffn_memory.hpp): A000-MULTIHEAD (batched heads vs the per-head loop),
// A000-MOE-ATTN / A000-MOBA-GATE (gather + block-sparse attention vs dense attention under the gate mask, and
// the gates themselves), A000-GATED-CONJ (tril(X W_G X^T)-masked parallel form vs the loop).
//
// Budget: the rigorous first-order forward-error bound of each output entry o_tc = sum_i w_i v_ic computed in
// the kernel's precision u (any summation order): |err| <= u [ (n + 2) sum_i |w_i v_ic| + sum_i |v_ic| |dw_i| ],
// with |dw_i| the first-order error of the weight: |kappa'(x_i)| (d_k + 2) scale sum_c |q_tc k_ic| for the kernels
// (kappa' = 1 linear/ReLU, e^x exp), plus |kappa_i| (2 d + 2) sum |x_t|^T |W_G| |x_i| for the conjectured gate;
// the softmax read bounds the relative error of p_i by 2 max_j |dx_j| + (n + 4) u. n = number of keys read.
// Float kernels are judged at production sizes (T = 2048-4096, d = 64-128) against the reference evaluated in
// double (its own error is below the float bound by 2^-29); double kernels against the 50-digit reference at
// T = 256. The same bound rejects an all-zero output, a 5% scaling, interleaved head slices, a MoBA that reads
// one block fewer, and a gate with W_G transposed (the discrimination tests below).
#include "recall/optimized/sparse_memory.hpp"
#include "recall/reference/ffn_memory.hpp"
#include "recall/reference/scalar.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace recall {
namespace {

using ref::Matrix;
using MD = Matrix<double>;

template <class F> std::vector<F> flat(const MD& m) { return std::vector<F>(m.a.begin(), m.a.end()); }
MD randn(std::mt19937_64& g, std::size_t r, std::size_t c, double s = 1.0) {
  std::normal_distribution<double> n(0.0, s);
  MD m(r, c);
  for (auto& x : m.a) x = n(g);
  return m;
}
// the float-rounded copy (the float kernel's actual input)
MD as_float(const MD& m) {
  MD r = m;
  for (auto& x : r.a) x = static_cast<double>(static_cast<float>(x));
  return r;
}

enum class K { linear, relu, exp, softmax };
double kap(K k, double x) { return k == K::linear ? x : k == K::relu ? std::max(0.0, x) : std::exp(x); }
double dkap(K k, double x) { return k == K::exp ? std::exp(x) : 1.0; }

struct Judge {
  double worst = 0;  // max |err| / bound
  std::string where;
  bool any_nonfinite = false;
  void add(double err, double bound, const std::string& w) {
    if (!std::isfinite(err)) any_nonfinite = true;
    const double r = bound > 0 ? err / bound : (err == 0 ? 0 : INFINITY);
    if (!(r <= worst)) worst = r, where = w;
  }
  bool pass() const { return !any_nonfinite && worst <= 1.0; }
};

// ---- A000-MULTIHEAD --------------------------------------------------------------------------------------

struct MhCase {
  std::size_t T, H, dh, dhv, dout;
  K kern;
  double scale;
};

// bound of each output entry of the concatenation (before W_O) and then of W_O's product
template <class F> Judge judge_multihead(const MhCase& c, const MD& Q, const MD& Kx, const MD& V, const MD& WO, const MD& ref_out,
                                         const std::vector<F>& got, double u) {
  const std::size_t T = c.T, H = c.H, dh = c.dh, dhv = c.dhv, Wv = H * dhv;
  MD catb(T, Wv), cat_abs(T, Wv);  // bound and |value| sum of the concatenated heads
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t i = 0; i <= t; ++i) {
        double x = 0, ax = 0;
        for (std::size_t j = 0; j < dh; ++j) x += Q(t, h * dh + j) * Kx(i, h * dh + j), ax += std::fabs(Q(t, h * dh + j) * Kx(i, h * dh + j));
        x *= c.scale, ax *= std::fabs(c.scale);
        const double w = kap(c.kern, x), dw = dkap(c.kern, x) * (dh + 2) * ax * u;
        for (std::size_t j = 0; j < dhv; ++j) {
          const double av = std::fabs(V(i, h * dhv + j));
          catb(t, h * dhv + j) += (T + 2) * u * std::fabs(w) * av + av * dw;
          cat_abs(t, h * dhv + j) += std::fabs(w) * av;
        }
      }
  Judge J;
  const std::size_t D = WO.rows ? c.dout : Wv;
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t r = 0; r < D; ++r) {
      double b = 0;
      if (WO.rows)
        for (std::size_t j = 0; j < Wv; ++j) b += std::fabs(WO(r, j)) * (catb(t, j) + (Wv + 2) * u * (cat_abs(t, j) + catb(t, j)));
      else
        b = catb(t, r);
      J.add(std::fabs(static_cast<double>(got[t * D + r]) - ref_out(t, r)), b, "t=" + std::to_string(t + 1) + " col=" + std::to_string(r + 1));
    }
  return J;
}

template <class F> std::vector<F> run_multihead(const MhCase& c, const MD& Q, const MD& Kx, const MD& V, const MD& WO) {
  const auto q = flat<F>(Q), k = flat<F>(Kx), v = flat<F>(V), wo = flat<F>(WO);
  std::vector<F> o(c.T * (WO.rows ? c.dout : c.H * c.dhv));
  opt::MultiheadArgs<F> a;
  a.T = int(c.T), a.H = int(c.H), a.dh = int(c.dh), a.dhv = int(c.dhv);
  a.q = q.data(), a.k = k.data(), a.v = v.data(), a.o = o.data();
  if (WO.rows) a.wo = wo.data(), a.d_out = int(c.dout);
  a.kernel = c.kern == K::linear ? opt::MemoryKernel::linear : c.kern == K::relu ? opt::MemoryKernel::relu : opt::MemoryKernel::exp;
  a.scale = c.scale;
  opt::multihead_kernel_attention(a);
  return o;
}

template <class S> ref::ffn::KernelFn<S> ref_kernel(K k, double scale) {
  return [k, sc = S(scale)](const S* q, const S* kk, std::size_t n) {
    const S x = sc * ref::dot(q, kk, n);
    using std::exp;
    return k == K::linear ? x : k == K::relu ? (x > 0 ? x : S(0)) : S(exp(x));
  };
}

TEST(SparseMemory, MultiheadBatchedFloatWithinBoundAtT2048) {
  std::mt19937_64 g(11);
  for (K kern : {K::linear, K::exp}) {
    const MhCase c{2048, 4, 32, 32, 128, kern, kern == K::exp ? 1.0 / 32 : 1.0 / std::sqrt(32.0)};
    const MD Q = as_float(randn(g, c.T, c.H * c.dh)), Kx = as_float(randn(g, c.T, c.H * c.dh)), V = as_float(randn(g, c.T, c.H * c.dhv));
    const MD WO = as_float(randn(g, c.dout, c.H * c.dhv, 1.0 / std::sqrt(128.0)));
    const MD R = ref::ffn::multihead_loop(Q, Kx, V, c.H, ref_kernel<double>(kern, c.scale), WO);
    const auto got = run_multihead<float>(c, Q, Kx, V, WO);
    const double u = std::ldexp(1.0, -24);
    const Judge J = judge_multihead(c, Q, Kx, V, WO, R, got, u);
    EXPECT_TRUE(J.pass()) << (kern == K::exp ? "exp" : "linear") << ": worst err/bound " << J.worst << " at " << J.where;
    // discrimination: zero, 5% and interleaved head slices (head h reads columns h, h + H, ...) must fail
    std::vector<float> zero(got.size(), 0.0f), five = got;
    for (auto& x : five) x *= 1.05f;
    MD Qi = Q, Ki = Kx;
    for (std::size_t t = 0; t < c.T; ++t)
      for (std::size_t h = 0; h < c.H; ++h)
        for (std::size_t j = 0; j < c.dh; ++j) Qi(t, h * c.dh + j) = Q(t, j * c.H + h), Ki(t, h * c.dh + j) = Kx(t, j * c.H + h);
    const auto inter = run_multihead<float>(c, Qi, Ki, V, WO);
    EXPECT_FALSE(judge_multihead(c, Q, Kx, V, WO, R, zero, u).pass());
    EXPECT_FALSE(judge_multihead(c, Q, Kx, V, WO, R, five, u).pass());
    EXPECT_FALSE(judge_multihead(c, Q, Kx, V, WO, R, inter, u).pass());
  }
}

TEST(SparseMemory, MultiheadBatchedDoubleMatchesMpReference) {
  std::mt19937_64 g(12);
  for (K kern : {K::linear, K::relu, K::exp}) {
    const MhCase c{256, 4, 16, 8, 24, kern, 0.25};
    const MD Q = randn(g, c.T, c.H * c.dh), Kx = randn(g, c.T, c.H * c.dh), V = randn(g, c.T, c.H * c.dhv);
    const MD WO = randn(g, c.dout, c.H * c.dhv);
    MpDigitsScope sc(50);
    const auto Rm = ref::ffn::multihead_loop(ref::cast<mp_t>(Q), ref::cast<mp_t>(Kx), ref::cast<mp_t>(V), c.H, ref_kernel<mp_t>(kern, c.scale),
                                             ref::cast<mp_t>(WO));
    const MD R = ref::cast<double>(Rm);
    const Judge J = judge_multihead(c, Q, Kx, V, WO, R, run_multihead<double>(c, Q, Kx, V, WO), std::ldexp(1.0, -53));
    EXPECT_TRUE(J.pass()) << "worst err/bound " << J.worst << " at " << J.where;
  }
}

// ---- A000-MOE-ATTN / A000-MOBA-GATE ------------------------------------------------------------------------

struct MobaCase {
  std::size_t T, dk, dv, block, k_top;
  bool force;
  K kern;
  double scale;
};

template <class F> std::vector<F> run_moba(const MobaCase& c, const MD& Q, const MD& Kx, const MD& V, std::vector<std::uint8_t>& gates) {
  const auto q = flat<F>(Q), k = flat<F>(Kx), v = flat<F>(V);
  std::vector<F> o(c.T * c.dv);
  const std::size_t E = (c.T + c.block - 1) / c.block;
  gates.assign(c.T * E, 0);
  opt::MobaArgs<F> a;
  a.T = int(c.T), a.dk = int(c.dk), a.dv = int(c.dv), a.q = q.data(), a.k = k.data(), a.v = v.data(), a.o = o.data();
  a.block = int(c.block), a.k_top = int(c.k_top), a.forcing = c.force ? opt::MobaForcing::current_block : opt::MobaForcing::none;
  a.kernel = c.kern == K::softmax ? opt::MemoryKernel::softmax : c.kern == K::exp ? opt::MemoryKernel::exp : opt::MemoryKernel::linear;
  a.scale = c.scale, a.gates_out = gates.data();
  opt::moba_attention(a);
  return o;
}

// Gate agreement: a block chosen differently from the reference is accepted only at a near tie: the score
// gap to the k-th best must be within the scores' error bound u (d_k + B + 4) max_e sum_c |q_c| mean|k_ec|.
// Output: judged against the reference read under the kernel's own gates.
template <class F>
Judge judge_moba(const MobaCase& c, const MD& Q, const MD& Kx, const MD& V, const std::vector<std::uint8_t>& gates, const std::vector<F>& got,
                 double u, int* gate_flips, std::string* gate_msg) {
  const std::size_t T = c.T, E = (T + c.block - 1) / c.block;
  const auto var = c.force ? ref::ffn::MobaVariant::v2_force_current : ref::ffn::MobaVariant::v1_no_forcing;
  const MD Gref = ref::ffn::moba_gates(Q, Kx, c.block, c.k_top, var);
  MD G(T, E);
  *gate_flips = 0;
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t e = 0; e < E; ++e) {
      G(t, e) = gates[t * E + e];
      if (G(t, e) != Gref(t, e)) {
        // scores of the candidate blocks and the bound of their error
        double se = 0, sb = 0;
        std::vector<double> sc;
        for (std::size_t f = 0; f <= t / c.block; ++f) {
          const std::size_t lo = f * c.block, hi = std::min((f + 1) * c.block, t + 1);
          double s = 0, a = 0;
          for (std::size_t j = 0; j < c.dk; ++j) {
            double m = 0, am = 0;
            for (std::size_t i = lo; i < hi; ++i) m += Kx(i, j), am += std::fabs(Kx(i, j));
            s += Q(t, j) * m / double(hi - lo), a += std::fabs(Q(t, j)) * am / double(hi - lo);
          }
          if (f == e) se = s;
          sb = std::max(sb, u * (c.dk + c.block + 4) * a);
          sc.push_back(s);
        }
        // the reference's weakest selected vs strongest rejected score among the candidates
        double gap = INFINITY;
        for (std::size_t f = 0; f < sc.size(); ++f)
          if (f != e && (c.force ? f != t / c.block : true) && Gref(t, f) != Gref(t, e)) gap = std::min(gap, std::fabs(sc[f] - se));
        ++*gate_flips;
        if (!(gap <= 2 * sb)) {
          *gate_msg = "t=" + std::to_string(t + 1) + " block " + std::to_string(e + 1) + ": score gap " + std::to_string(gap) + " > 2 x bound " +
                      std::to_string(sb);
          Judge bad;
          bad.worst = INFINITY;
          bad.where = *gate_msg;
          return bad;
        }
      }
    }
  const MD R = c.kern == K::softmax ? ref::ffn::moe_softmax_attention(Q, Kx, V, c.block, G, c.scale)
                                    : ref::ffn::moe_attention(Q, Kx, V, c.block, G, ref_kernel<double>(c.kern, c.scale));
  Judge J;
  for (std::size_t t = 0; t < T; ++t) {
    // weights of the keys read, and their error
    std::vector<double> x, ax;
    std::vector<std::size_t> keys;
    for (std::size_t e = 0; e < E; ++e)
      if (G(t, e) != 0)
        for (std::size_t i = e * c.block; i < std::min((e + 1) * c.block, t + 1); ++i) {
          double s = 0, a = 0;
          for (std::size_t j = 0; j < c.dk; ++j) s += Q(t, j) * Kx(i, j), a += std::fabs(Q(t, j) * Kx(i, j));
          keys.push_back(i), x.push_back(c.scale * s), ax.push_back(std::fabs(c.scale) * a);
        }
    const double n = double(keys.size());
    double mx = -INFINITY, z = 0, dxmax = 0;
    for (std::size_t j = 0; j < x.size(); ++j) mx = std::max(mx, x[j]), dxmax = std::max(dxmax, (c.dk + 2) * u * ax[j]);
    for (double y : x) z += std::exp(y - mx);
    for (std::size_t col = 0; col < c.dv; ++col) {
      double b = 0;
      for (std::size_t j = 0; j < keys.size(); ++j) {
        const double av = std::fabs(V(keys[j], col));
        if (c.kern == K::softmax) {
          const double p = std::exp(x[j] - mx) / z;
          b += p * av * (2 * dxmax + (2 * n + 6) * u);
        } else {
          b += (n + 2) * u * std::fabs(kap(c.kern, x[j])) * av + av * dkap(c.kern, x[j]) * (c.dk + 2) * u * ax[j];
        }
      }
      J.add(std::fabs(static_cast<double>(got[t * c.dv + col]) - R(t, col)), b, "t=" + std::to_string(t + 1) + " col=" + std::to_string(col + 1));
    }
  }
  return J;
}

TEST(SparseMemory, MobaFloatSoftmaxWithinBoundAtT4096) {
  std::mt19937_64 g(21);
  for (bool force : {true, false}) {
    const MobaCase c{4096, 128, 64, 64, 4, force, K::softmax, 1.0 / std::sqrt(128.0)};
    const MD Q = as_float(randn(g, c.T, c.dk)), Kx = as_float(randn(g, c.T, c.dk)), V = as_float(randn(g, c.T, c.dv));
    std::vector<std::uint8_t> gates;
    const auto got = run_moba<float>(c, Q, Kx, V, gates);
    int flips = 0;
    std::string msg;
    const double u = std::ldexp(1.0, -24);
    const Judge J = judge_moba(c, Q, Kx, V, gates, got, u, &flips, &msg);
    EXPECT_TRUE(J.pass()) << (force ? "V2" : "V1") << ": worst err/bound " << J.worst << " at " << J.where;
    EXPECT_LE(flips, 8) << "gate flips at near ties: " << flips;
    // discrimination: an all-zero output, a 5% scaling, and a MoBA reading one block fewer
    std::vector<float> zero(got.size(), 0.0f), five = got;
    for (auto& x : five) x *= 1.05f;
    int f2 = 0;
    std::string m2;
    EXPECT_FALSE(judge_moba(c, Q, Kx, V, gates, zero, u, &f2, &m2).pass());
    EXPECT_FALSE(judge_moba(c, Q, Kx, V, gates, five, u, &f2, &m2).pass());
    MobaCase fewer = c;
    fewer.k_top = c.k_top - 1;
    std::vector<std::uint8_t> g2;
    const auto got2 = run_moba<float>(fewer, Q, Kx, V, g2);
    EXPECT_FALSE(judge_moba(c, Q, Kx, V, g2, got2, u, &f2, &m2).pass()) << "a kernel reading k_top - 1 blocks passed";
  }
}

TEST(SparseMemory, MobaDoubleMatchesMpReferenceEveryKernel) {
  std::mt19937_64 g(22);
  for (K kern : {K::linear, K::exp, K::softmax})
    for (bool force : {true, false}) {
      const MobaCase c{256, 16, 8, 16, 3, force, kern, 0.25};
      const MD Q = randn(g, c.T, c.dk), Kx = randn(g, c.T, c.dk), V = randn(g, c.T, c.dv);
      std::vector<std::uint8_t> gates;
      const auto got = run_moba<double>(c, Q, Kx, V, gates);
      // the gates against the 50-digit reference gates (no ties in Gaussian data at this size)
      MpDigitsScope sc(50);
      const auto var = force ? ref::ffn::MobaVariant::v2_force_current : ref::ffn::MobaVariant::v1_no_forcing;
      const auto Gm = ref::ffn::moba_gates(ref::cast<mp_t>(Q), ref::cast<mp_t>(Kx), c.block, c.k_top, var);
      const std::size_t E = (c.T + c.block - 1) / c.block;
      int mism = 0;
      for (std::size_t t = 0; t < c.T; ++t)
        for (std::size_t e = 0; e < E; ++e) mism += (Gm(t, e) != 0) != (gates[t * E + e] != 0);
      EXPECT_EQ(mism, 0);
      Matrix<mp_t> Gmp(c.T, E);
      for (std::size_t t = 0; t < c.T; ++t)
        for (std::size_t e = 0; e < E; ++e) Gmp(t, e) = gates[t * E + e];
      const auto Rm = kern == K::softmax ? ref::ffn::moe_softmax_attention(ref::cast<mp_t>(Q), ref::cast<mp_t>(Kx), ref::cast<mp_t>(V), c.block, Gmp, mp_t(c.scale))
                                         : ref::ffn::moe_attention(ref::cast<mp_t>(Q), ref::cast<mp_t>(Kx), ref::cast<mp_t>(V), c.block, Gmp, ref_kernel<mp_t>(kern, c.scale));
      const MD R = ref::cast<double>(Rm);
      double worst = 0;
      for (std::size_t i = 0; i < R.a.size(); ++i) worst = std::max(worst, std::fabs(got[i] - R.a[i]) / std::max(1.0, std::fabs(R.a[i])));
      EXPECT_LT(worst, 1e-12) << "kernel " << int(kern) << (force ? " V2" : " V1");
    }
}

TEST(SparseMemory, MobaEveryBlockEqualsDenseAndBadInputsAreNamed) {
  // k_top >= number of blocks: MoBA is dense causal attention (A000-MOBA-GATE "k_top = E equals dense")
  std::mt19937_64 g(23);
  const MobaCase c{300, 8, 4, 32, 100, false, K::softmax, 0.3};
  const MD Q = randn(g, c.T, c.dk), Kx = randn(g, c.T, c.dk), V = randn(g, c.T, c.dv);
  std::vector<std::uint8_t> gates;
  const auto got = run_moba<double>(c, Q, Kx, V, gates);
  const std::size_t E = (c.T + c.block - 1) / c.block;
  MD all(c.T, E);
  for (std::size_t t = 0; t < c.T; ++t)
    for (std::size_t e = 0; e <= t / c.block; ++e) all(t, e) = 1;
  const MD R = ref::ffn::moe_softmax_attention(Q, Kx, V, c.block, all, c.scale);
  for (std::size_t i = 0; i < R.a.size(); ++i) ASSERT_NEAR(got[i], R.a[i], 1e-12 * std::max(1.0, std::fabs(R.a[i])));
  opt::MobaArgs<double> a;
  a.T = 4, a.dk = 2, a.dv = 2;
  EXPECT_THROW(opt::moba_attention(a), std::invalid_argument);  // null pointers
  std::vector<double> q(8, 0.0), k(8, 0.0), v(8, 0.0), o(8);
  a.q = q.data(), a.k = k.data(), a.v = v.data(), a.o = o.data(), a.k_top = 0;
  try {
    opt::moba_attention(a);
    ADD_FAILURE() << "k_top = 0 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("k_top"), std::string::npos) << e.what();
  }
  a.k_top = 1, a.kernel = opt::MemoryKernel::exp, a.scale = 1e300;
  k[0] = q[0] = 1e10;
  EXPECT_THROW(opt::moba_attention(a), std::invalid_argument);  // overflowing logit
}

// ---- A000-GATED-CONJ ---------------------------------------------------------------------------------------

template <class F> std::vector<F> run_conj(std::size_t T, const MD& X, const MD& WG, const MD& Q, const MD& Kx, const MD& V, K kern, double scale) {
  const auto x = flat<F>(X), wg = flat<F>(WG), q = flat<F>(Q), k = flat<F>(Kx), v = flat<F>(V);
  std::vector<F> o(T * V.cols);
  opt::GatedConjArgs<F> a;
  a.T = int(T), a.d = int(X.cols), a.dk = int(Q.cols), a.dv = int(V.cols);
  a.x = x.data(), a.wg = wg.data(), a.q = q.data(), a.k = k.data(), a.v = v.data(), a.o = o.data();
  a.kernel = kern == K::linear ? opt::MemoryKernel::linear : kern == K::relu ? opt::MemoryKernel::relu : opt::MemoryKernel::exp;
  a.scale = scale;
  opt::gated_conj_attention(a);
  return o;
}

template <class F> Judge judge_conj(const MD& X, const MD& WG, const MD& Q, const MD& Kx, const MD& V, K kern, double scale, const MD& R,
                                    const std::vector<F>& got, double u) {
  const std::size_t T = X.rows, d = X.cols, dk = Q.cols, dv = V.cols;
  MD AWX(T, d), WX(T, d);  // |W_G| |x_i| and W_G x_i
  for (std::size_t i = 0; i < T; ++i)
    for (std::size_t r = 0; r < d; ++r)
      for (std::size_t c = 0; c < d; ++c) AWX(i, r) += std::fabs(WG(r, c) * X(i, c)), WX(i, r) += WG(r, c) * X(i, c);
  Judge J;
  std::vector<double> b(dv);
  for (std::size_t t = 0; t < T; ++t) {
    std::fill(b.begin(), b.end(), 0.0);
    for (std::size_t i = 0; i <= t; ++i) {
      double x = 0, ax = 0, gi = 0, agi = 0;
      for (std::size_t j = 0; j < dk; ++j) x += Q(t, j) * Kx(i, j), ax += std::fabs(Q(t, j) * Kx(i, j));
      for (std::size_t r = 0; r < d; ++r) gi += WX(i, r) * X(t, r), agi += AWX(i, r) * std::fabs(X(t, r));
      x *= scale, ax *= std::fabs(scale);
      const double kv = kap(kern, x), w = gi * kv;
      const double dw = std::fabs(gi) * dkap(kern, x) * (dk + 2) * u * ax + std::fabs(kv) * (2 * d + 2) * u * agi;
      for (std::size_t c = 0; c < dv; ++c) b[c] += (t + 3) * u * std::fabs(w * V(i, c)) + std::fabs(V(i, c)) * dw;
    }
    for (std::size_t c = 0; c < dv; ++c)
      J.add(std::fabs(static_cast<double>(got[t * dv + c]) - R(t, c)), b[c], "t=" + std::to_string(t + 1) + " col=" + std::to_string(c + 1));
  }
  return J;
}

TEST(SparseMemory, GatedConjFloatWithinBoundAtT2048AndDoubleAgainstMp) {
  std::mt19937_64 g(31);
  {
    const std::size_t T = 2048, d = 64, dk = 64, dv = 64;
    const MD X = as_float(randn(g, T, d, 1.0 / 8)), WG = as_float(randn(g, d, d, 1.0 / 8)), Q = as_float(randn(g, T, dk)), Kx = as_float(randn(g, T, dk)),
             V = as_float(randn(g, T, dv));
    for (K kern : {K::linear, K::exp}) {
      const double scale = kern == K::exp ? 1.0 / 64 : 1.0 / 8;
      const MD R = ref::ffn::gated_conj_loop(X, WG, Q, Kx, V, ref_kernel<double>(kern, scale));
      const auto got = run_conj<float>(T, X, WG, Q, Kx, V, kern, scale);
      const double u = std::ldexp(1.0, -24);
      const Judge J = judge_conj(X, WG, Q, Kx, V, kern, scale, R, got, u);
      EXPECT_TRUE(J.pass()) << "worst err/bound " << J.worst << " at " << J.where;
      // discrimination: zero output, 5%, and W_G transposed (g_i = x_i^T W_G x_t, the other reading)
      std::vector<float> zero(got.size(), 0.0f), five = got;
      for (auto& x : five) x *= 1.05f;
      const auto tr = run_conj<float>(T, X, ref::transpose(WG), Q, Kx, V, kern, scale);
      EXPECT_FALSE(judge_conj(X, WG, Q, Kx, V, kern, scale, R, zero, u).pass());
      EXPECT_FALSE(judge_conj(X, WG, Q, Kx, V, kern, scale, R, five, u).pass());
      EXPECT_FALSE(judge_conj(X, WG, Q, Kx, V, kern, scale, R, tr, u).pass());
    }
  }
  {
    const std::size_t T = 200, d = 8, dk = 6, dv = 5;
    const MD X = randn(g, T, d), WG = randn(g, d, d), Q = randn(g, T, dk), Kx = randn(g, T, dk), V = randn(g, T, dv);
    for (K kern : {K::linear, K::relu, K::exp}) {
      MpDigitsScope sc(50);
      const auto Rm = ref::ffn::gated_conj_loop(ref::cast<mp_t>(X), ref::cast<mp_t>(WG), ref::cast<mp_t>(Q), ref::cast<mp_t>(Kx), ref::cast<mp_t>(V),
                                                ref_kernel<mp_t>(kern, 0.3));
      const Judge J = judge_conj(X, WG, Q, Kx, V, kern, 0.3, ref::cast<double>(Rm), run_conj<double>(T, X, WG, Q, Kx, V, kern, 0.3),
                                 std::ldexp(1.0, -53));
      EXPECT_TRUE(J.pass()) << "worst err/bound " << J.worst << " at " << J.where;
    }
  }
}

}  // namespace
}  // namespace recall
