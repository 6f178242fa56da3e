// Paper A001 (test-time regression), §5 footnote 4 (and §4 Vignette 1, Qin et al. 2022): the three readings
// of linear attention with output normalisation (LayerNorm, RMSNorm, unit L2), each checked against its
// direct formula and its property identities.
// Every verdict is computed here from numbers, deterministically from CheckConfig::seed
// (std::mt19937_64 through splitmix64 sub-seeds). Identities are R-ID checks at cfg.digits with
// recall::mp_t (IdentityCheck re-verifies a failure at doubled digits); statistical parts use 95%
// percentile-bootstrap CIs over seeds; approximations are decided on their exact content, with the
// gap surface as evidence (spec README §2).
// Spec IDs: A001-LA-OUTNORM-LN, A001-LA-OUTNORM-RMS, A001-LA-OUTNORM-L2.
#include "recall/proofs/ledger.hpp"
#include "recall/reference/linear_attention.hpp"
#include "claim_support.hpp"
#include "linear_attention_claims.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace recall {
namespace {

using namespace claim_support;
using namespace claim_support::linattn;

using ref::Matrix;
using ref::Vector;

// ---------------------------------------------------------------------------------------------
// A001-LA-OUTNORM-LN / -RMS / -L2: implementation identity and properties
// ---------------------------------------------------------------------------------------------
// Direct formulas of the three readings (spec items), one row y in R^{D_v}, written here independently
// of ref::normalize_outputs:
//   LN:  (y - mean(y) 1) / sqrt(var(y) + eps), var with 1/D_v;   RMS: y / sqrt(|y|^2/D_v + eps);   L2: y / max(|y|, eps).
template <class S> Vector<S> outnorm_direct(const Vector<S>& y, ref::OutputNorm k, const S& eps) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  const std::size_t n = y.size();
  const S nn(static_cast<double>(n));
  Vector<S> out(n);
  if (k == ref::OutputNorm::layer_norm) {
    S sum(0);
    for (const S& v : y) sum += v;
    const S mu = sum / nn;
    S ss(0);
    for (const S& v : y) ss += (v - mu) * (v - mu);
    const S sd = sqrt(S(ss / nn + eps));
    for (std::size_t j = 0; j < n; ++j) out[j] = (y[j] - mu) / sd;
  } else if (k == ref::OutputNorm::rms_norm) {
    S ss(0);
    for (const S& v : y) ss += v * v;
    const S r = sqrt(S(ss / nn + eps));
    for (std::size_t j = 0; j < n; ++j) out[j] = y[j] / r;
  } else {
    S ss(0);
    for (const S& v : y) ss += v * v;
    const S nrm = sqrt(ss);
    const S den = nrm > eps ? nrm : eps;
    for (std::size_t j = 0; j < n; ++j) out[j] = y[j] / den;
  }
  return out;
}

// One instance: T_rows x D_v outputs of several kinds. Returns the max over rows of
// (implementation vs direct formula) and the property identities:
//   LN: mean(ytilde) = 0 and |ytilde|^2 = D_v var/(var+eps);  RMS: |ytilde|^2/D_v = ms/(ms+eps);
//   L2: |ytilde| = 1 if |y| >= eps, |y|/eps otherwise.
// near_one receives max | RMS(ytilde) - 1 | (LN, RMS) or | |ytilde| - 1 | (L2) over rows with eps negligible (< 1e-6 relative).
double outnorm_instance_residual(ref::OutputNorm k, std::size_t rows, std::size_t dv, int kind, u64 seed, unsigned digits, double* near_one) {
  using boost::multiprecision::sqrt;
  using boost::multiprecision::abs;
  MpDigitsScope scope(digits);
  Gauss g(seed);
  Matrix<double> Yd(rows, dv);
  for (std::size_t t = 0; t < rows; ++t) {
    const double scale = std::pow(10.0, -3.0 + 6.0 * g.uniform());
    const double offset = (kind == 1) ? std::pow(10.0, -2.0 + 4.0 * g.uniform()) * g.normal() : 0.0;
    for (std::size_t j = 0; j < dv; ++j) Yd(t, j) = scale * (g.normal() + offset);
    if (kind == 2 && t == 0)
      for (std::size_t j = 0; j < dv; ++j) Yd(t, j) = 0;  // zero row
    if (kind == 3 && t == 0)
      for (std::size_t j = 0; j < dv; ++j) Yd(t, j) = 1e-7 * (j + 1);  // |y| < eps: the L2 floor branch
    if (kind == 4 && t == 0)
      for (std::size_t j = 0; j < dv; ++j) Yd(t, j) = 3.25;  // constant row: var = 0
  }
  Matrix<mp_t> Y = ref::cast<mp_t>(Yd);
  if (kind == 5) {  // outputs of linear attention on a G1 stream
    const Matrix<mp_t> Q = ref::cast<mp_t>(gauss_matrix(rows, 3, g)), K = ref::cast<mp_t>(gauss_matrix(rows, 3, g));
    const Matrix<mp_t> V = ref::cast<mp_t>(gauss_matrix(rows, dv, g));
    Y = ref::linear_attention(Q, K, V).O;
  }
  const mp_t eps(kOutNormEps);
  const Matrix<mp_t> N = ref::normalize_outputs(Y, k, eps);
  const mp_t n(static_cast<double>(dv));
  double worst = 0;
  for (std::size_t t = 0; t < rows; ++t) {
    const Vector<mp_t> y = row_vec(Y, t), yt = row_vec(N, t);
    worst = std::max(worst, rel_res(yt, outnorm_direct(y, k, eps)));
    mp_t s(0), ss(0), ys(0), ym(0);
    for (const mp_t& v : yt) {
      s += v;
      ss += v * v;
    }
    for (const mp_t& v : y) {
      ym += v;
      ys += v * v;
    }
    if (k == ref::OutputNorm::layer_norm) {
      const mp_t mu = ym / n;
      mp_t var(0);
      for (const mp_t& v : y) var += (v - mu) * (v - mu);
      var /= n;
      worst = std::max(worst, to_d(mp_t(abs(s) / n)));
      worst = std::max(worst, to_d(mp_t(abs(mp_t(ss - n * var / (var + eps))) / n)));
      if (near_one && var > eps * 1e6) *near_one = std::max(*near_one, to_d(mp_t(abs(mp_t(sqrt(mp_t(ss / n)) - 1)))));
    } else if (k == ref::OutputNorm::rms_norm) {
      const mp_t ms = ys / n;
      worst = std::max(worst, to_d(mp_t(abs(mp_t(ss / n - ms / (ms + eps))))));
      if (near_one && ms > eps * 1e6) *near_one = std::max(*near_one, to_d(mp_t(abs(mp_t(sqrt(mp_t(ss / n)) - 1)))));
    } else {
      const mp_t ny = sqrt(ys), nt = sqrt(ss);
      const mp_t expect = ny >= eps ? mp_t(1) : mp_t(ny / eps);
      worst = std::max(worst, to_d(mp_t(abs(mp_t(nt - expect)))));
      if (near_one && ny >= eps) *near_one = std::max(*near_one, to_d(mp_t(abs(mp_t(nt - 1)))));
    }
  }
  return worst;
}

ClaimResult outnorm_check(const CheckConfig& cfg, ref::OutputNorm k) {
  const std::string nm = norm_name(k);
  IdentityCheck id("max over rows of |ref::normalize_outputs - direct formula| (relative) and of the " + nm + " property identities",
                   cfg.digits);
  const int reps = cfg.quick ? 6 : 60;
  const std::vector<std::size_t> dvs = {1, 2, 3, 5, 8, 16};
  const char* kinds[6] = {"Gaussian rows, scales 1e-3..1e3", "rows with a mean offset", "a zero row", "a row with |y| < eps",
                          "a constant row", "linear-attention outputs (G1, D_k=3)"};
  double near_one = 0;
  int inst = 0;
  for (std::size_t dv : dvs)
    for (int kind = 0; kind < 6; ++kind)
      for (int r = 0; r < reps; ++r) {
        ++inst;
        const std::size_t rows = 1 + static_cast<std::size_t>(r % 4);
        const u64 sd = sub_seed(cfg.seed, 10 + static_cast<u64>(k), inst);
        id.add("instance " + std::to_string(inst) + ": " + kinds[kind] + ", rows=" + std::to_string(rows) + " D_v=" + std::to_string(dv) +
                   " sub-seed " + std::to_string(sd),
               [=, &near_one](unsigned d) { return outnorm_instance_residual(k, rows, dv, kind, sd, d, &near_one); });
      }
  ClaimResult r = id.result(cfg, "D_v in {1,2,3,5,8,16}, 1..4 rows, " + std::to_string(reps) + " instances per (D_v, kind); kinds: Gaussian "
                                   "(scale 1e-3..1e3), mean offsets, zero rows, |y|<eps, constant rows, LA outputs; eps = 1e-5");
  const std::string prop = k == ref::OutputNorm::layer_norm ? "mean(ytilde) = 0 and |ytilde|^2 = D_v var/(var+eps)"
                           : k == ref::OutputNorm::rms_norm ? "|ytilde|^2/D_v = ms/(ms+eps)"
                                                            : "|ytilde| = 1 for |y| >= eps, |y|/eps below";
  r.evidence.extra.emplace_back("properties checked", prop);
  r.evidence.extra.emplace_back(k == ref::OutputNorm::l2 ? "max | |ytilde| - 1 | where |y| >= eps" : "max | RMS(ytilde) - 1 | where eps < 1e-6 * var",
                                fmt(near_one));
  return r;
}
ClaimResult a001_la_outnorm_ln(const CheckConfig& cfg) { return outnorm_check(cfg, ref::OutputNorm::layer_norm); }
ClaimResult a001_la_outnorm_rms(const CheckConfig& cfg) { return outnorm_check(cfg, ref::OutputNorm::rms_norm); }
ClaimResult a001_la_outnorm_l2(const CheckConfig& cfg) { return outnorm_check(cfg, ref::OutputNorm::l2); }

}  // namespace

void register_a001_output_norms(Ledger& l) {
  const auto add = claim_support::claim_adder(l);
  add("A001-LA-OUTNORM-LN", "Linear attention with LayerNorm output normalisation (reading A) [interp]", check_class::identity, true,
      a001_la_outnorm_ln);
  add("A001-LA-OUTNORM-RMS", "Linear attention with RMSNorm output normalisation (reading B) [interp]", check_class::identity, true,
      a001_la_outnorm_rms);
  add("A001-LA-OUTNORM-L2", "Linear attention with unit-L2 output normalisation (reading C) [interp]", check_class::identity, true,
      a001_la_outnorm_l2);
}

}  // namespace recall
