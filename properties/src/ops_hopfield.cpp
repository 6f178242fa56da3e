// Ops of the modern Hopfield retrieval maps (issue 12; A003 Hu et al. 2024 and A004 group 17):
// hopfield_dense, hopfield_masked_r, hopfield_masked_u, hopfield_window_r, hopfield_window_causal_r,
// hopfield_topk_r, hopfield_prf, hopfield_linear. Oracle and baseline are the same scalar-generic
// references (reference/hopfield.hpp: scores, softmax_weights, combine_rows, sparse_u, sparse_r, the masks
// sliding_window / causal_window / topk_ge / topk_exact; reference/hopfield_models.hpp: prf_log_features,
// linear_features) instantiated at mp_t and at float/double; the heavy instantiations happen here only.
//
// Layout (registry convention [B, H, tokens, width], tokens are rows; spec C2): q [B,H,L,d] queries,
// k [B,H,M,d] keys (contaminated memories xi_mu + dxi_mu), v [B,H,M,dv] values (the clean memories when
// dv = d), o [B,H,L,dv]. The optimized/ kernels use [B,L,H,d]; registry_hopfield.cpp transposes.
// Scalar parameters are one-element inputs: scale (the inverse temperature beta, scores beta <q_i, k_mu>: the
// logit scale 1/tau of softmax_attention, so the tools' --q-scale and the scale_omitted wrong kernel apply; the
// name beta is the per-token [B,H,T] step size of the delta-rule ops), window (w), shift / tie_exact /
// hyperbolic / literal_c2 (0/1 flags), topk (K). Masks are inputs (spec A003-RANDOM-MASK:
// every implementation sees the same mask): a dense 0/1 matrix mask [B,H,L,M] (spec C2's I_M per head; the
// generator draws it with reference/hopfield.hpp's Philox random_mask / random_mask_bernoulli, keyed by
// (seed, b L + i), identical across heads). The error budget perturbs every input by (1 +- delta); the
// references therefore read a mask entry as kept when it is non-zero, integers by rounding, flags as > 1/2.
//
// Per query the references are evaluated exactly as reference/hopfield.hpp does (test_hopfield_ops.cpp checks
// bit equality at mp digits): dense = combine_rows(V, softmax_weights(beta, scores(K, x))) (dense_retrieval
// with separate values), U = sparse_u, R over a kept set S = softmax_weights(beta, a_S) of the scores on S and
// the kept rows of V combined in ascending order (= sparse_r, without forming the M - |S| scores it never
// uses, so that windows cost O(L w d)). PRF: the baseline is hopfield::prf_weights (log domain); the oracle
// forms the features Phi = exp(log Phi) once per key (no under- or overflow at mp exponents) and the explicit
// inner products of (C.7), equal to prf_weights to the working precision at M D instead of L M D exponentials. Empty kept sets (spec C13): reading U gives 0; reading R is
// undefined, so hopfield_masked_r has a second output `empty` [B,H,L] (1 = the row's mask is empty, o = 0
// there) that the kernel must produce: a NaN-free sentinel plus an error bit.
//
// Top-K (A003-TOPK, A003-TOPK-EXACT) is discontinuous across tie surfaces. Exact ties are kept exact (data on a
// dyadic grid whose dot products every kernel computes exactly: the sign data of spec G3); near ties are
// handled by the op's judged domain (a case where some score lies within the a-priori rounding band
// gamma_d |x|^T (|s_mu| + |s_(K)|) of the K-th largest, u the kernel's accumulation precision, without being
// exactly computable, is not judged: counted, never passed silently, spec A003-TOPK's tie-tolerant band), and
// by the budget's perturbation model (OpSpec::perturbed: scores within 8 standard deviations of the
// perturbation's effect on sigma_mu - sigma* are snapped to the threshold, so that exact ties broken apart by
// the (1 +- delta) draws stay tied; a row with a near tie inside that band gets the budget of either choice).
// The softmax-family ops also perturb every score a_mu by (1 + delta_a xi) in that model: the rounding of the
// logits beta a_mu (absolute ~u |beta a| in the exponent, ~1000 u at beta max score = 1000) is common to every
// kernel and no perturbation of the inputs reproduces it (without it a correct banded kernel sat at 1.01 x its
// budget at T = 4096, f32, beta max score = 1000).
#include "recall/properties/ops.hpp"

#include "input_checks.hpp"
#include "op_support.hpp"
#include "recall/reference/hopfield.hpp"
#include "recall/reference/hopfield_models.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <type_traits>

namespace recall {



namespace {

using namespace op_support;
using ref::Matrix;
using ref::Vector;
namespace hf = ref::hopfield;
using input_checks::HDims;
using input_checks::hopfield_dims;

enum class Kind { dense, masked_r, masked_u, window, window_causal, topk, prf, linear };

const char* name_of(Kind k) {
  switch (k) {
    case Kind::dense: return "hopfield_dense";
    case Kind::masked_r: return "hopfield_masked_r";
    case Kind::masked_u: return "hopfield_masked_u";
    case Kind::window: return "hopfield_window_r";
    case Kind::window_causal: return "hopfield_window_causal_r";
    case Kind::topk: return "hopfield_topk_r";
    case Kind::prf: return "hopfield_prf";
    case Kind::linear: return "hopfield_linear";
  }
  return "?";
}
bool is_window(Kind k) { return k == Kind::window || k == Kind::window_causal; }
bool is_masked(Kind k) { return k == Kind::masked_r || k == Kind::masked_u; }

// ---- dimensions (input_checks.hpp) and parameters ----
// One-element parameters, read tolerantly (the budget perturbs them by (1 +- delta)).
double param(const TensorMap& in, const char* n) { return in.at(n).data[0]; }
std::int64_t int_param(const TensorMap& in, const char* n) { return static_cast<std::int64_t>(std::llround(param(in, n))); }
bool flag(const TensorMap& in, const char* n) {
  auto it = in.find(n);
  return it != in.end() && it->second.data[0] > 0.5;
}


// ---- reference evaluation, generic over the scalar ----
// The kept set of a masked row (entries != 0, ascending).
hf::Mask mask_row(const Tensor& mask, std::int64_t b, std::int64_t h, std::int64_t i, std::int64_t L, std::int64_t M) {
  const std::int64_t H = mask.shape[1];
  const double* r = mask.data.data() + ((b * H + h) * L + i) * M;
  hf::Mask m;
  for (std::int64_t j = 0; j < M; ++j)
    if (r[j] != 0) m.push_back(static_cast<std::size_t>(j));
  return m;
}

// Reading R on a non-empty kept set S: q = softmax_weights(beta, a_S), o = sum_{j} q_j v_{S_j} in ascending
// order, zero weights skipped: the arithmetic of hopfield::sparse_r (masked_weights + combine_rows) restricted
// to the rows it uses. `a_all` (optional): the scores of every key, already formed.
template <class S>
void r_reading(const Matrix<S>& K, const Matrix<S>& V, const Vector<S>& x, const S& beta, const hf::Mask& m, S* out,
               const Vector<S>* a_all = nullptr, PerturbFactors* logit = nullptr) {
  Vector<S> a(m.size());
  for (std::size_t j = 0; j < m.size(); ++j) a[j] = a_all ? (*a_all)[m[j]] : ref::dot(K.row(m[j]), x.data(), x.size());
  if constexpr (std::is_same_v<S, double>)
    if (logit && !a_all)
      for (double& u : a) u *= (*logit)();
  const Vector<S> w = hf::softmax_weights(beta, a);
  for (std::size_t c = 0; c < V.cols; ++c) out[c] = S(0);
  const ref::MulAddCtx<S> ctx;
  for (std::size_t j = 0; j < m.size(); ++j) {
    if (w[j] == 0) continue;
    for (std::size_t c = 0; c < V.cols; ++c) ref::muladd(out[c], w[j], V(m[j], c), ctx);
  }
}

// Top-K selection in double with the perturbation model's tolerance (tol_delta > 0, see the header comment):
// scores within tau_mu = 8 delta sqrt(3 sum_c x_c^2 (s_mu,c^2 + s*_c^2)) + 4 delta^2 |x|^T (|s_mu| + |s*|) of the
// K-th largest sigma* are snapped to it, then the tie policy is applied.
hf::Mask topk_tolerant(const Vector<double>& sigma, const Matrix<double>& Sel, const double* x, std::size_t K, bool exact, double delta) {
  const std::size_t M = sigma.size(), d = Sel.cols;
  std::vector<double> sorted(sigma);
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(K - 1), sorted.end(), std::greater<double>());
  const double star = sorted[K - 1];
  std::size_t ks = 0;
  for (std::size_t mu = 0; mu < M; ++mu)
    if (sigma[mu] == star) { ks = mu; break; }
  Vector<double> snapped(sigma);
  for (std::size_t mu = 0; mu < M; ++mu) {
    double v2 = 0, a1 = 0;
    for (std::size_t c = 0; c < d; ++c) {
      const double s = Sel(mu, c), t = Sel(ks, c);
      v2 += x[c] * x[c] * (s * s + t * t);
      a1 += std::fabs(x[c]) * (std::fabs(s) + std::fabs(t));
    }
    const double tau = 8 * delta * std::sqrt(3 * v2) + 4 * delta * delta * a1;
    if (std::fabs(sigma[mu] - star) <= tau) snapped[mu] = star;
  }
  return exact ? hf::topk_exact(snapped, K) : hf::topk_ge(snapped, K);
}

// PRF features (logit_delta > 0, double): every log-feature l = w.x sqrt(beta) - beta |x|^2 / 2 - log sqrt(n_f)
// moved by delta xi (1 + |l|): a kernel in feature space forms l with an absolute error ~u_a |l| and
// exp(l) with a relative one ~u_a. Both are errors of intermediates, not of inputs: with keys of norm
// 1e-3 every feature is e^{-log sqrt(n_f)} (1 + O(1e-3)), the output's dependence on the query lives in
// the O(1e-3) deviations, and a rounding of the feature at u_a of its size is 10^3 times a rounding of x.
void perturb_log_features(std::vector<double>& l, PerturbFactors& f) {
  for (double& u : l) u += (f() - 1.0) * (1.0 + std::fabs(u));
}

// tol_delta > 0 (double, top-K): the perturbation model's snapped selection (topk_tolerant). logit_delta > 0
// (double): every score a_mu = <x, k_mu> multiplied by (1 + logit_delta xi) once (xi = +-1 from `seed`): the
// rounding of the logits beta a_mu (and of s - max) that every kernel commits, an absolute error ~u |beta a|
// in the exponent that perturbing the inputs does not reproduce (OpSpec::perturbed, delta_a).
template <class S, class Out>
std::map<std::string, Out> eval_hopfield(const TensorMap& in, Kind kind, double tol_delta = 0, double logit_delta = 0, std::uint64_t seed = 0) {
  using hf::mdetail::exp_;
  const std::string op = name_of(kind);
  const HDims d = hopfield_dims(in, op);
  const std::size_t L = static_cast<std::size_t>(d.L), M = static_cast<std::size_t>(d.M), dd = static_cast<std::size_t>(d.d),
                    dv = static_cast<std::size_t>(d.dv);
  std::map<std::string, Out> out;
  out["o"] = make_out<Out>({d.B, d.H, d.L, d.dv});
  if (kind == Kind::masked_r) out["empty"] = make_out<Out>({d.B, d.H, d.L});
  const S beta = in.count("scale") ? S(param(in, "scale")) : S(1);
  const std::int64_t w = is_window(kind) ? int_param(in, "window") : 0;
  const bool shift = flag(in, "shift"), tie_exact = flag(in, "tie_exact");
  const std::int64_t K = kind == Kind::topk ? std::clamp<std::int64_t>(int_param(in, "topk"), 1, d.M) : 0;
  PerturbFactors logit_draws(logit_delta, seed);
  PerturbFactors* logit = logit_delta > 0 ? &logit_draws : nullptr;
  // the scores of every key for query x, perturbed by the logit model when it is on
  auto all_scores = [&](const Matrix<S>& Kx, const Vector<S>& x) {
    Vector<S> a = hf::scores(Kx, x);
    if constexpr (std::is_same_v<S, double>)
      if (logit)
        for (double& u : a) u *= (*logit)();
    return a;
  };
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h) {
      const Matrix<S> Q = slice<S>(get(in, "q", op), b, h, L, dd), Kx = slice<S>(get(in, "k", op), b, h, M, dd),
                      V = slice<S>(get(in, "v", op), b, h, M, dv);
      Matrix<S> O(L, dv);
      Vector<S> E(L, S(0));
      // per-head precomputations of the feature models
      std::vector<Vector<S>> feats, efeats;
      hf::PrfDraw draw;
      hf::LinearFlags lflags;
      Vector<S> zplain;
      if (kind == Kind::prf) {
        const Tensor& om = in.at("omega");
        const std::size_t nf = static_cast<std::size_t>(om.shape[2]);
        draw = hf::prf_draw_from(slice<double>(om, b, h, nf, dd), flag(in, "hyperbolic"));
        feats.resize(M);
        for (std::size_t mu = 0; mu < M; ++mu) feats[mu] = hf::prf_log_features(draw, Kx.row(mu), dd, beta);
        if constexpr (std::is_same_v<S, double>)
          if (logit)
            for (auto& f : feats) perturb_log_features(f, *logit);
      }
      if (kind == Kind::linear) {
        lflags.beta_scaling = true;  // phi(sqrt(beta) x); beta = 1 is the paper's model (sqrt(1) x = x exactly)
        lflags.literal_C2 = flag(in, "literal_c2");
        feats.resize(M);
        for (std::size_t mu = 0; mu < M; ++mu) feats[mu] = hf::linear_features(Kx.row(mu), dd, lflags, beta);
        if (lflags.literal_C2) {  // h(k_mu) = <phi(k_mu), z>, z = sum_nu phi(k_nu) (hopfield::linear_state's form)
          zplain.assign(dd, S(0));
          for (const auto& f : feats)
            for (std::size_t c = 0; c < dd; ++c) zplain[c] += f[c];
        }
      }
      Matrix<S> Sel;
      if (kind == Kind::topk && in.count("sel")) Sel = slice<S>(in.at("sel"), b, h, M, dd);
      Matrix<double> SelD;
      if (kind == Kind::topk && tol_delta > 0) SelD = slice<double>(in.count("sel") ? in.at("sel") : get(in, "k", op), b, h, M, dd);
      for (std::size_t i = 0; i < L; ++i) {
        const Vector<S> x(Q.row(i), Q.row(i) + dd);
        S* o = O.row(i);
        switch (kind) {
          case Kind::dense: {
            const Vector<S> r = hf::combine_rows(V, hf::softmax_weights(beta, all_scores(Kx, x)));
            std::copy(r.begin(), r.end(), o);
            break;
          }
          case Kind::masked_u: {  // hopfield::sparse_u: full-row softmax, weights outside the mask dropped
            const hf::Mask m = mask_row(in.at("mask"), b, h, static_cast<std::int64_t>(i), d.L, d.M);
            const Vector<S> pi = hf::softmax_weights(beta, all_scores(Kx, x));
            Vector<S> wt(M, S(0));
            for (std::size_t nu : m) wt[nu] = pi[nu];
            const Vector<S> r = hf::combine_rows(V, wt);
            std::copy(r.begin(), r.end(), o);
            break;
          }
          case Kind::masked_r: {
            const hf::Mask m = mask_row(in.at("mask"), b, h, static_cast<std::int64_t>(i), d.L, d.M);
            if (m.empty()) {  // spec C13: flagged, NaN-free sentinel 0
              E[i] = S(1);
              for (std::size_t c = 0; c < dv; ++c) o[c] = S(0);
            } else {
              r_reading<S>(Kx, V, x, beta, m, o, nullptr, logit);
            }
            break;
          }
          case Kind::window:
          case Kind::window_causal: {
            const hf::Mask m = kind == Kind::window ? hf::sliding_window(L, i, static_cast<std::size_t>(std::max<std::int64_t>(w, 1)), shift)
                                                    : hf::causal_window(L, i, static_cast<std::size_t>(std::max<std::int64_t>(w, 1)));
            r_reading<S>(Kx, V, x, beta, m, o, nullptr, logit);
            break;
          }
          case Kind::topk: {
            const Vector<S> sigma = hf::scores(Sel.empty() ? Kx : Sel, x);
            const Vector<S> a = Sel.empty() && !logit ? sigma : all_scores(Kx, x);
            hf::Mask m;
            if (tol_delta > 0) {
              if constexpr (std::is_same_v<S, double>) m = topk_tolerant(sigma, SelD, x.data(), static_cast<std::size_t>(K), tie_exact, tol_delta);
            } else {
              m = tie_exact ? hf::topk_exact(sigma, static_cast<std::size_t>(K)) : hf::topk_ge(sigma, static_cast<std::size_t>(K));
            }
            r_reading(Kx, V, x, beta, m, o, &a);
            break;
          }
          case Kind::prf: {
            Vector<S> lx = hf::prf_log_features(draw, x, beta);
            if constexpr (std::is_same_v<S, double>)
              if (logit) perturb_log_features(lx, *logit);
            if constexpr (scalar_traits<S>::is_mp) {
              // (C.7) with explicit features Phi = exp(log Phi) (prf_features; no under- or overflow in the mp
              // exponent range): w_mu = <Phi(x), Phi(k_mu)> / sum_nu <Phi(x), Phi(k_nu)>. M D exponentials per head
              // instead of the L M D of the log-domain form below, which it equals to the working precision.
              if (efeats.empty()) {
                efeats.resize(M);
                for (std::size_t mu = 0; mu < M; ++mu) {
                  efeats[mu] = feats[mu];
                  for (S& u : efeats[mu]) u = exp_(u);
                }
              }
              Vector<S> fx(lx);
              for (S& u : fx) u = exp_(u);
              Vector<S> wt(M);
              S total(0);
              for (std::size_t mu = 0; mu < M; ++mu) total += (wt[mu] = ref::dot(fx.data(), efeats[mu].data(), fx.size()));
              for (S& u : wt) u /= total;
              const Vector<S> r = hf::combine_rows(V, wt);
              std::copy(r.begin(), r.end(), o);
              break;
            }
            // hopfield::prf_weights (log domain, safe in float / double) with the key log-features formed once per head
            Vector<S> lk(M), t(lx.size());
            for (std::size_t mu = 0; mu < M; ++mu) {
              for (std::size_t j = 0; j < t.size(); ++j) t[j] = lx[j] + feats[mu][j];
              lk[mu] = hf::mdetail::logsumexp(t);
            }
            const S Lq = hf::mdetail::logsumexp(lk);
            Vector<S> wt(M);
            for (std::size_t mu = 0; mu < M; ++mu) wt[mu] = exp_(S(lk[mu] - Lq));
            const Vector<S> r = hf::combine_rows(V, wt);
            std::copy(r.begin(), r.end(), o);
            break;
          }
          case Kind::linear: {  // hopfield::linear_weights with the key features formed once per head
            const Vector<S> fx = hf::linear_features(x, lflags, beta);
            Vector<S> wt(M);
            S total(0);
            for (std::size_t mu = 0; mu < M; ++mu) {
              wt[mu] = ref::dot(fx.data(), feats[mu].data(), dd);
              if (lflags.literal_C2) wt[mu] /= ref::dot(feats[mu].data(), zplain.data(), dd);
              total += wt[mu];
            }
            if (!(total > 0) || !ref::is_finite(total))
              throw std::invalid_argument(op + ": the denominator sum_mu <phi(x), phi(k_mu)> of query (" + std::to_string(b + 1) + "," +
                                          std::to_string(h + 1) + "," + std::to_string(i + 1) + ") is zero or not finite in this scalar");
            for (S& u : wt) u /= total;
            const Vector<S> r = hf::combine_rows(V, wt);
            std::copy(r.begin(), r.end(), o);
            break;
          }
        }
      }
      put(out["o"], b, h, O.a);
      if (kind == Kind::masked_r) put(out["empty"], b, h, E);
    }
  return out;
}

// ---- top-K judged domain ----
// sum of x_c y_c with TwoProduct / TwoSum (Ogita, Rump, Oishi 2005: as accurate as twice the working precision)
double dot2(const double* x, const double* y, std::size_t n) {
  double s = 0, c = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double p = x[i] * y[i], ep = std::fma(x[i], y[i], -p);
    const double t = s + p, z = t - s, es = (s - (t - z)) + (p - z);
    s = t;
    c += ep + es;
  }
  return s + c;
}
// exponent of the least significant set bit (INT_MAX for 0)
int lsb_exponent(double v) {
  if (v == 0) return INT_MAX;
  int e = 0;
  const double m = std::frexp(std::fabs(v), &e);
  auto im = static_cast<std::uint64_t>(std::ldexp(m, 53));
  int tz = 0;
  while (!(im & 1u)) { im >>= 1; ++tz; }
  return e - 53 + tz;
}
// Every dot product <q_i, s_mu> of the head is exact in a p-bit accumulation (any order): all entries on the
// grid 2^e (e = the smallest set bit) and sum_c max|q_c| max|s_c| < 2^(p + e_q + e_s).
bool exactly_computable(const Matrix<double>& Q, const Matrix<double>& S, int p_bits) {
  int eq = INT_MAX, es = INT_MAX;
  for (double x : Q.a) eq = std::min(eq, lsb_exponent(x));
  for (double x : S.a) es = std::min(es, lsb_exponent(x));
  if (eq == INT_MAX || es == INT_MAX) return true;  // all-zero queries or memories: every score is 0
  double bound = 0;
  for (std::size_t c = 0; c < Q.cols; ++c) {
    double mq = 0, ms = 0;
    for (std::size_t i = 0; i < Q.rows; ++i) mq = std::max(mq, std::fabs(Q(i, c)));
    for (std::size_t i = 0; i < S.rows; ++i) ms = std::max(ms, std::fabs(S(i, c)));
    bound += mq * ms;
  }
  return bound < std::ldexp(1.0, p_bits + eq + es);
}

std::string topk_judged_domain(const TensorMap& in, Precision p) {
  const std::string op = name_of(Kind::topk);
  const HDims d = hopfield_dims(in, op);
  const Precision pa = accumulation(p);
  const double ua = unit_roundoff(pa);
  const double nu = static_cast<double>(d.d) * ua, gamma = nu / (1 - nu);
  const std::size_t L = static_cast<std::size_t>(d.L), M = static_cast<std::size_t>(d.M), dd = static_cast<std::size_t>(d.d);
  const std::int64_t K = std::clamp<std::int64_t>(int_param(in, "topk"), 1, d.M);
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h) {
      const Matrix<double> Q = slice<double>(in.at("q"), b, h, L, dd);
      const Matrix<double> S = slice<double>(in.count("sel") ? in.at("sel") : in.at("k"), b, h, M, dd);
      if (exactly_computable(Q, S, pa == Precision::f64 ? 53 : 24)) continue;
      std::vector<double> sigma(M), sorted(M);
      for (std::size_t i = 0; i < L; ++i) {
        for (std::size_t mu = 0; mu < M; ++mu) sigma[mu] = dot2(Q.row(i), S.row(mu), dd);
        sorted = sigma;
        std::nth_element(sorted.begin(), sorted.begin() + (K - 1), sorted.end(), std::greater<double>());
        const double star = sorted[static_cast<std::size_t>(K - 1)];
        std::size_t ks = 0;
        for (std::size_t mu = 0; mu < M; ++mu)
          if (sigma[mu] == star) { ks = mu; break; }
        double aK = 0;
        for (std::size_t c = 0; c < dd; ++c) aK += std::fabs(Q(i, c) * S(ks, c));
        for (std::size_t mu = 0; mu < M; ++mu) {
          // exact ties (equal in exact arithmetic: identical rows, zero queries) are computed alike by a kernel
          if (sigma[mu] == star) continue;
          double a = 0;
          for (std::size_t c = 0; c < dd; ++c) a += std::fabs(Q(i, c) * S(mu, c));
          const double band = gamma * (a + aK) * (1 + 4 * ua);
          if (std::fabs(sigma[mu] - star) <= band) {
            std::ostringstream s;
            s << "top-K selection ambiguous at the kernel's rounding (" << precision_name(pa) << " accumulation): query (" << b + 1 << ","
              << h + 1 << "," << i + 1 << ") has sigma of key " << mu + 1 << " within " << band << " (gamma_d |x|^T(|s_mu| + |s_(K)|)) of the "
              << K << "-th largest " << star << " (spec A003-TOPK tolerance band)";
            return s.str();
          }
        }
      }
    }
  return {};
}

// ---- generator ----
// M = T memories; L = T queries for the window models (self-attention), else min(T, max(12, T/64)) (the
// oracle's cost is L M (d + dv) multiprecision operations; each query row is judged on its own).
// Data: q, k rows of the key kind scaled by 10^scale_exp (as softmax_attention), v Gaussian; the top-K op on
// unit_sphere / integer keys uses sign data (spec G3: entries +-2^-round(log2 sqrt d) 8^scale_exp, exact
// ties, every score computed exactly by any kernel). initial_state selects the retrieval regime (spec Q5):
// query i is a stored key k_mu(b,i) plus noise of norm 0.3 |k_mu| (sign data: 1/8 of the signs flipped), and
// beta = 1000 / max|<q, k>|: beta max score = 1000 overflows exp in f32 and f64 without a max shift, the
// weights are one-hot to e^-100 or less (PRF and linear: beta by the gate kind, see below); masks of the
// uniform kind then enforce mu(b,i) on two rows of three (force_mu), the third row drawn uniformly.
// Otherwise the gate kind selects beta (ones 1, uniform 1 (the realistic shapes: unit keys, mild logits),
// beta51 4, near_one 4 (logits ~ N(0, 16/d); sqrt(d), standard attention logits, gives a 16-bit budget of ~6% of
// the scale at d = 128, above the 5% the discrimination suite's scaled wrong kernel needs), zeros_mixed 1 with every third query zero (all-equal scores), tiny 1e-3,
// saturating beta spread = 2e3, constant beta spread = 1e4 (spread = the largest max - min of a query's
// scores)) and the structure: masks, windows, K, flags (tables in gen_hopfield). beta is rounded to the
// storage format and kept below its largest value / 32.
double rows_norm(const std::vector<double>& r, std::size_t off, int d) {
  double s = 0;
  for (int c = 0; c < d; ++c) s += r[off + c] * r[off + c];
  return std::sqrt(s);
}

TensorMap gen_hopfield(const CaseKnobs& kn, Precision p, Kind kind) {
  CaseRng rng(kn.seed);
  const int M = kn.T, d = kn.dk, dv = kn.dv;
  const int L = is_window(kind) ? M : std::min(M, std::max(12, M / 64));
  const bool retrieval = kn.initial_state;
  const bool sign_data = kind == Kind::topk && (kn.keys == KeyKind::unit_sphere || kn.keys == KeyKind::integer);
  const int scale_exp = kind == Kind::linear ? std::min(kn.scale_exp, retrieval ? 0 : 1) : kn.scale_exp;
  const GateKind g = kn.gates;
  // sign data: entries +-gs, gs = 2^(-round(log2 sqrt d) + 3 scale_exp)
  const double gs = std::ldexp(1.0, -static_cast<int>(std::lround(std::log2(std::sqrt(static_cast<double>(d))))) + 3 * scale_exp);
  auto sign_rows = [&](int n) {
    std::vector<double> r(static_cast<std::size_t>(n) * d);
    for (double& x : r) x = (rng.bits() & 1u) ? gs : -gs;
    return r;
  };
  // retrieval sources mu(b, i), shared by the heads (each head's query i is near its own k_mu(b,i)), so that
  // the masks (shared by the heads) can enforce them
  std::vector<std::uint64_t> sources(static_cast<std::size_t>(kn.B) * L);
  for (auto& x : sources) x = rng.bits() % static_cast<std::uint64_t>(M);
  std::vector<double> q, k, v;
  for (int bh = 0; bh < kn.B * kn.H; ++bh) {
    std::vector<double> ki = sign_data ? sign_rows(M) : rng.rows(kn.keys, M, d, scale_exp);
    if (kind == Kind::topk && g == GateKind::constant && !sign_data)  // near ties: every 4th key a copy scaled by 1 + 2^-20
      for (int mu = 3; mu < M; mu += 4)
        for (int c = 0; c < d; ++c) ki[static_cast<std::size_t>(mu) * d + c] = ki[static_cast<std::size_t>(mu - 1) * d + c] * (1 + 0x1p-20);
    std::vector<double> vi = rng.rows(KeyKind::gaussian, M, dv, 0), qi;
    if (retrieval) {
      qi.resize(static_cast<std::size_t>(L) * d);
      for (int i = 0; i < L; ++i) {
        const std::size_t src = static_cast<std::size_t>(sources[static_cast<std::size_t>(bh / kn.H) * L + i]) * d, dst = static_cast<std::size_t>(i) * d;
        const double nk = rows_norm(ki, src, d);
        for (int c = 0; c < d; ++c) {
          if (sign_data) qi[dst + c] = (rng.bits() % 8 == 0) ? -ki[src + c] : ki[src + c];
          else qi[dst + c] = ki[src + c] + 0.3 * nk / std::sqrt(static_cast<double>(d)) * rng.normal();
        }
      }
    } else {
      qi = sign_data ? sign_rows(L) : rng.rows(kn.keys, L, d, scale_exp);
    }
    if (g == GateKind::zeros_mixed)
      for (int i = 1; i < L; i += 3) std::fill(qi.begin() + static_cast<std::ptrdiff_t>(i) * d, qi.begin() + static_cast<std::ptrdiff_t>(i + 1) * d, 0.0);
    q.insert(q.end(), qi.begin(), qi.end());
    k.insert(k.end(), ki.begin(), ki.end());
    v.insert(v.end(), vi.begin(), vi.end());
  }
  TensorMap m;
  m["q"] = tensor({kn.B, kn.H, L, d}, q);
  m["k"] = tensor({kn.B, kn.H, M, d}, k);
  m["v"] = tensor({kn.B, kn.H, M, dv}, v);
  const std::uint64_t mseed = kn.seed * 0x9E3779B97F4A7C15ULL + 0x4d41534bULL;  // "MASK"
  if (kind == Kind::prf) {  // one Philox draw per head (shared by the batch), n_f = clamp(d / 2, 4, 32)
    const std::size_t nf = static_cast<std::size_t>(std::clamp(d / 2, 4, 32));
    std::vector<double> om;
    for (int b = 0; b < kn.B; ++b)
      for (int h = 0; h < kn.H; ++h) {
        const hf::PrfDraw dr = hf::prf_draw(nf, static_cast<std::size_t>(d), mseed, hf::PrfDistribution::gaussian, false, static_cast<std::uint64_t>(h));
        om.insert(om.end(), dr.omega.a.begin(), dr.omega.a.end());
      }
    m["omega"] = tensor({kn.B, kn.H, static_cast<std::int64_t>(nf), d}, om);
  }
  round_to(m, p);
  // beta from the rounded data
  double spread = 0, amax = 0;
  {
    const Tensor &tq = m.at("q"), &tk = m.at("k");
    for (int bh = 0; bh < kn.B * kn.H; ++bh)
      for (int i = 0; i < L; ++i) {
        double lo = INFINITY, hi = -INFINITY;
        for (int mu = 0; mu < M; ++mu) {
          const double a = ref::dot(tq.data.data() + (static_cast<std::size_t>(bh) * L + i) * d, tk.data.data() + (static_cast<std::size_t>(bh) * M + mu) * d,
                                    static_cast<std::size_t>(d));
          lo = std::min(lo, a), hi = std::max(hi, a), amax = std::max(amax, std::fabs(a));
        }
        spread = std::max(spread, hi - lo);
      }
  }
  double beta = 1;
  const double sd = std::sqrt(static_cast<double>(d));
  if (retrieval && kind != Kind::linear && kind != Kind::prf) {
    beta = amax > 0 ? 1000 / amax : 1;
  } else {
    switch (g) {
      case GateKind::ones: beta = 1; break;
      case GateKind::uniform: beta = 1; break;
      case GateKind::beta51: beta = 4; break;
      case GateKind::near_one: beta = 4; break;
      case GateKind::zeros_mixed: beta = 1; break;
      case GateKind::tiny: beta = 1e-3; break;
      case GateKind::saturating: beta = spread > 0 ? 2e3 / spread : 1; break;
      case GateKind::constant: beta = spread > 0 ? 1e4 / spread : 1; break;
    }
  }
  // PRF: log-features sqrt(beta) w.x move by ~1.4 sqrt(beta) |x| delta under a relative input perturbation delta, so
  // the realistic shapes (uniform, near_one) keep beta |x|^2 <= 1 (Performer's 1/sqrt(d) convention); the linear
  // model (it has no beta) uses beta = 1 except with s0 on the other gate kinds (the flag phi(sqrt(beta) .)).
  if (kind == Kind::prf && g == GateKind::near_one) beta = 0.5;
  if (kind == Kind::linear)
    beta = retrieval && g != GateKind::uniform && g != GateKind::near_one ? std::clamp(beta, 1e-3, 4.0) : 1.0;
  beta = std::min(beta, max_finite(p) / 32);
  beta = round_value(beta, p);
  if (!(beta > 0)) beta = round_value(1e-3, p);
  m["scale"] = tensor({1}, {beta});
  // structure: masks (Philox, keyed by (seed, b L + i), shared by the heads), windows, K, flags
  if (is_masked(kind)) {
    std::vector<double> mask(static_cast<std::size_t>(kn.B) * kn.H * L * M, 0.0);
    auto ceil_frac = [M](double f) { return static_cast<std::size_t>(std::max(1.0, std::ceil(f * M - 1e-9))); };
    for (int b = 0; b < kn.B; ++b)
      for (int i = 0; i < L; ++i) {
        const std::uint64_t row = static_cast<std::uint64_t>(b) * L + i;
        hf::Mask mk;
        switch (g) {
          case GateKind::ones: mk = hf::random_mask(M, M, mseed, row); break;
          case GateKind::uniform:  // retrieval: the query's source enforced on 2 rows of 3 (spec force_mu mode)
            mk = hf::random_mask(M, ceil_frac(0.1), mseed, row, retrieval && i % 3 != 0 ? static_cast<long long>(sources[row]) : -1LL);
            break;
          case GateKind::beta51: mk = hf::random_mask(M, ceil_frac(0.5), mseed, row); break;
          case GateKind::near_one: mk = hf::random_mask_bernoulli(M, 0.5, mseed, row); break;
          case GateKind::zeros_mixed:
            if (i % 3 != 2) mk = hf::random_mask_bernoulli(M, 0.8, mseed, row);  // every third row empty (spec C13)
            break;
          case GateKind::tiny: mk = hf::random_mask(M, 1, mseed, row); break;
          case GateKind::saturating:
            mk = hf::random_mask(M, std::min<std::size_t>(2, M), mseed, row, static_cast<long long>(retrieval ? sources[row] : i % M));
            break;
          case GateKind::constant: mk = hf::random_mask(M, static_cast<std::size_t>(std::max(1, M - 1)), mseed, row); break;
        }
        for (int h = 0; h < kn.H; ++h)
          for (std::size_t j : mk) mask[((static_cast<std::size_t>(b) * kn.H + h) * L + i) * M + j] = 1.0;
      }
    m["mask"] = tensor({kn.B, kn.H, L, M}, mask);
  }
  if (is_window(kind)) {
    std::int64_t w = 1;
    switch (g) {
      case GateKind::ones: w = L + 3; break;  // w > L
      case GateKind::uniform: w = static_cast<std::int64_t>(hf::window_size(L)); break;
      case GateKind::beta51: w = 2; break;
      case GateKind::near_one: w = static_cast<std::int64_t>(hf::window_size(L, true)); break;
      case GateKind::zeros_mixed: w = 1; break;
      case GateKind::tiny: w = (L + 2) / 3; break;
      case GateKind::saturating: w = 3; break;
      case GateKind::constant: w = 4; break;
    }
    m["window"] = tensor({1}, {static_cast<double>(w)});
    if (kind == Kind::window && (g == GateKind::near_one || g == GateKind::saturating || g == GateKind::constant || g == GateKind::beta51))
      m["shift"] = tensor({1}, {1.0});
  }
  if (kind == Kind::topk) {
    std::size_t K = 1;
    switch (g) {
      case GateKind::ones: K = M; break;
      case GateKind::uniform: K = hf::topk_fraction(M, 0.2); break;
      case GateKind::beta51: K = hf::topk_fraction(M, 0.5); break;
      case GateKind::near_one: K = hf::topk_fraction(M, 1.0 / 32); break;  // sparse top-K (a few % of M)
      case GateKind::zeros_mixed: K = 1; break;
      case GateKind::tiny: K = static_cast<std::size_t>(std::max(1, M - 1)); break;
      case GateKind::saturating: K = std::min<std::size_t>(2, M); break;
      case GateKind::constant: K = hf::topk_fraction(M, 0.5); break;
    }
    m["topk"] = tensor({1}, {static_cast<double>(K)});
    if (g == GateKind::beta51 || g == GateKind::tiny || g == GateKind::zeros_mixed) m["tie_exact"] = tensor({1}, {1.0});
  }
  if (kind == Kind::prf && (g == GateKind::near_one || g == GateKind::beta51 || g == GateKind::constant)) m["hyperbolic"] = tensor({1}, {1.0});
  if (kind == Kind::linear && (g == GateKind::beta51 || g == GateKind::saturating)) m["literal_c2"] = tensor({1}, {1.0});
  return m;
}

// M additions of weighted values plus a d-long dot product (window: at most w kept keys)
double hopfield_length(const TensorMap& in, Kind kind) {
  const double M = static_cast<double>(in.at("k").shape[2]), d = static_cast<double>(in.at("q").shape[3]);
  if (is_window(kind)) return std::min(M, std::max(1.0, std::round(in.at("window").data[0]))) + d;
  if (kind == Kind::prf) return M + std::max(d, 2.0 * static_cast<double>(in.at("omega").shape[2]));
  return M + d;
}

}  // namespace

void add_hopfield_ops(std::vector<OpSpec>& v) {
  const TensorDecl q{"q", "B,H,T,d", false, "queries x_i (rows; T = L queries)"};
  const TensorDecl k{"k", "B,H,M,d", false, "keys xi_mu + dxi_mu (the M stored patterns as rows)"};
  const TensorDecl val{"v", "B,H,M,dv", false, "values (the clean memories xi_mu when dv = d)"};
  const TensorDecl kw{"k", "B,H,T,d", false, "keys (self-attention: M = L)"};
  const TensorDecl vw{"v", "B,H,T,dv", false, "values (self-attention: M = L)"};
  const TensorDecl beta{"scale", "1", false, "inverse temperature beta > 0 (the logit scale 1/tau): scores beta <x_i, k_mu>"};
  const TensorDecl o{"o", "B,H,T,dv", false, "retrieved T(x_i)"};
  struct Def {
    Kind kind;
    const char* summary;
    std::vector<std::string> ids;
  };
  const Def defs[] = {
      {Kind::dense, "o_i = sum_mu softmax_mu(beta <x_i, k_mu>) v_mu over all M memories (T_Dense (3.7); one step = softmax attention (2.4))",
       {"A003-DENSE-RETRIEVAL", "A004-MHN-DEF", "A003-ATTENTION-EQUIV"}},
      {Kind::masked_r, "o_i = sum_{mu in M_i} softmax over M_i of beta <x_i, k_mu> v_mu (reading R); empty M_i: o_i = 0, empty_i = 1",
       {"A003-SPARSE-R", "A003-RANDOM-MASK", "A003-RANDOM-MASK-BERN"}},
      {Kind::masked_u, "o_i = sum_{mu in M_i} pi_mu(x_i) v_mu, pi the softmax over all M keys (reading U, literal (3.11)); empty M_i: 0",
       {"A003-SPARSE-U", "A003-RANDOM-MASK", "A003-RANDOM-MASK-BERN"}},
      {Kind::window, "reading R over the centred sliding window i - floor((w-1)/2) <= j <= i + floor(w/2) (shift: slid inward), M = L",
       {"A003-SLIDING-WINDOW", "A003-SPARSE-R"}},
      {Kind::window_causal, "reading R over the causal window i - w + 1 <= j <= i, M = L", {"A003-WINDOW-CAUSAL", "A003-SPARSE-R"}},
      {Kind::topk, "reading R over the top-K set of sigma_mu = <x_i, s_mu> (s = sel, else the keys): GE keeps sigma >= the K-th largest, "
                   "EXACT (tie_exact) the first K by (sigma desc, index asc)",
       {"A003-TOPK", "A003-TOPK-EXACT", "A003-SPARSE-R"}},
      {Kind::prf, "o_i = sum_mu <Phi(x_i), Phi(k_mu)> v_mu / sum_nu <Phi(x_i), Phi(k_nu)>, Phi the FAVOR+ features of a fixed draw omega",
       {"A003-PRF"}},
      {Kind::linear, "o_i = sum_mu <phi(x_i), phi(k_mu)> v_mu / sum_nu <phi(x_i), phi(k_nu)>, phi(x) = elu(sqrt(beta) x) + 1 (beta = scale; 1: the paper's model)",
       {"A003-LINEAR"}},
  };
  for (const Def& df : defs) {
    const Kind kind = df.kind;
    const std::string name = name_of(kind);
    OpSpec op;
    op.name = name;
    op.summary = df.summary;
    op.spec_ids = df.ids;
    if (is_window(kind)) op.inputs = {q, kw, vw, beta};
    else op.inputs = {q, k, val, beta};
    if (kind == Kind::linear) op.inputs[3] = {"scale", "1", false, "beta > 0: phi(sqrt(beta) x); beta = 1 is the paper's model (it has no beta)"};
    if (is_masked(kind)) op.inputs.push_back({"mask", "B,H,T,M", false, "0/1 mask, row i = the indicator of M_i (spec C2; Philox masks)"});
    if (is_window(kind)) op.inputs.push_back({"window", "1", false, "window size w >= 1 (integer; w > L allowed)"});
    if (kind == Kind::window) op.inputs.push_back({"shift", "1", true, "0/1: slide boundary windows inward (every row keeps min(w, L) keys)"});
    if (kind == Kind::topk) {
      op.inputs.push_back({"topk", "1", false, "K in [1, M] (integer)"});
      op.inputs.push_back({"tie_exact", "1", true, "0/1: tie policy EXACT (first K by index) instead of GE"});
      op.inputs.push_back({"sel", "B,H,M,d", true, "selection memories (the clean patterns of (3.12)); default: the keys"});
    }
    if (kind == Kind::prf) {
      op.inputs.push_back({"omega", "B,H,nf,d", false, "the projections omega_i (rows) of the fixed draw, per head"});
      op.inputs.push_back({"hyperbolic", "1", true, "0/1: features [e^{+w.x}, e^{-w.x}] (l = 2)"});
    }
    if (kind == Kind::linear) op.inputs.push_back({"literal_c2", "1", true, "0/1: (C.2) with the normalised Phi inserted literally"});
    op.outputs = {o};
    if (kind == Kind::masked_r) op.outputs.push_back({"empty", "B,H,T", false, "1 where the row's mask is empty (o = 0 there), else 0"});
    op.validate = [kind](const TensorMap& in) { input_checks::hopfield(in, name_of(kind)); };
    op.oracle = [kind](const TensorMap& in) { return eval_hopfield<mp_t, MpTensor>(in, kind); };
    op.baseline = [kind](const TensorMap& in, Precision p) {
      return at_precision(p, [&](auto s) { return eval_hopfield<decltype(s), Tensor>(in, kind); });
    };
    op.generate = [kind](const CaseKnobs& kn, Precision p) { return gen_hopfield(kn, p, kind); };
    op.accumulation_length = [kind](const TensorMap& in) { return hopfield_length(in, kind); };
    op.gated = true;  // the gate knobs select beta, masks, windows and K (gen_hopfield)
    if (kind == Kind::topk) op.judged_domain = topk_judged_domain;
    // the softmax family: each query row responds through its weights (OpSpec::sensitivity_draws)
    if (kind != Kind::prf && kind != Kind::linear) op.sensitivity_draws = 16;
    if (kind != Kind::linear)  // the softmax family: logit rounding (top-K: and snapped selection); PRF: feature rounding
      op.perturbed = [kind](const TensorMap& in, double delta_s, double delta_a, std::uint64_t seed) {
        return eval_hopfield<double, Tensor>(in, kind, kind == Kind::topk ? delta_s : 0.0, delta_a, seed);
      };
    add_op(v, std::move(op));
  }
}

}  // namespace recall
