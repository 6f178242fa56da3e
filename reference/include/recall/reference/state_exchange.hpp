// State exchange (swap tracking) with DeltaFormer, spec A000 group 7 (App. 10, Theorem 1):
// almost-orthogonal key sets and their coherence (README §3 group 19, Welch bound), the candidate
// read-out functions f of Assumption 2 (round variants, identity, floor, four-head exponential
// mixture), the u-recursion with kappa(k_i, k_t) = f(k_i^T k_t) (via ref::unit_lower_solve for the
// matrix form), the swap-tracking construction of Theorem 1 with its ground-truth permutation and
// an instrumented proof trace (Eqs. 101-110), the cache-compaction variant (App. 10.3), the
// grouped-query u-update (Eq. 111) and the Householder view of the identity-f swap.
// Everything is 0-based inside; callers report 1-based indices. Templated on the scalar.
#pragma once

#include "recall/reference/delta_rule.hpp"
#include "recall/reference/deltaformer.hpp"
#include "recall/reference/matrix.hpp"
#include "recall/reference/scalar.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace recall::ref {

// ---- read-out functions f (A000-ASSUMP2, A000-ROUND-KERNEL, A000-GQA-EXP-FIT) ------------------

enum class ReadFn { identity, round_int, round_2dec, floor_fn, gqa_exp };
inline const char* read_fn_name(ReadFn f) {
  switch (f) {
    case ReadFn::identity: return "identity";
    case ReadFn::round_int: return "round-int(half-even)";
    case ReadFn::round_2dec: return "round-2dec";
    case ReadFn::floor_fn: return "floor";
    case ReadFn::gqa_exp: return "gqa-exp-mixture";
  }
  return "?";
}

// A000-ROUND-KERNEL R-int: round to nearest, ties to even (torch.round): ref::round_half_even, defined once in
// deltaformer.hpp (the toy harness's kappa1 = round uses the same function).
// A000-ROUND-KERNEL R-2dec: round(100 x) / 100 (Fig. 4 caption), ties to even.
template <class S> S round_2dec(const S& x) { return round_half_even(S(x * S(100))) / S(100); }
// A000-ROUND-KERNEL R-floor: the literal floor symbol.
template <class S> S floor_fn(const S& x) {
  using std::floor;
  using boost::multiprecision::floor;
  require(is_finite(x), "floor_fn: x must be finite");
  return floor(x);
}
// Exact rational round-half-even of p/q (q > 0), the oracle for tie tests: returns an integer.
inline long long round_half_even_ratio(long long p, long long q) {
  require(q > 0, "round_half_even_ratio: q must be > 0");
  long long fl = p / q, r = p % q;
  if (r < 0) { fl -= 1; r += q; }  // floor division, 0 <= r < q
  if (2 * r < q) return fl;
  if (2 * r > q) return fl + 1;
  return (fl % 2 == 0) ? fl : fl + 1;
}

// A000-GQA-EXP-FIT: solve sum_{j=1..4} a_j exp(j x) = x at x in {-1,0,1,2} (4x4 Gaussian
// elimination with partial pivoting at the working precision). Returns a; *cond_inf gets
// ||M||_inf ||M^-1||_inf.
template <class S> std::array<S, 4> gqa_exp_fit(double* cond_inf = nullptr) {
  using std::exp;
  using boost::multiprecision::exp;
  using std::abs;
  using boost::multiprecision::abs;
  const int xs[4] = {-1, 0, 1, 2};
  Matrix<S> M(4, 4);
  for (int r = 0; r < 4; ++r)
    for (int j = 0; j < 4; ++j) M(r, j) = exp(S((j + 1) * xs[r]));
  // inverse by Gauss-Jordan (also gives the solution)
  Matrix<S> A = M, Inv(4, 4);
  for (int i = 0; i < 4; ++i) Inv(i, i) = S(1);
  for (int c = 0; c < 4; ++c) {
    int p = c;
    for (int r = c + 1; r < 4; ++r)
      if (abs(A(r, c)) > abs(A(p, c))) p = r;
    require(A(p, c) != S(0), "gqa_exp_fit: singular system");
    for (int j = 0; j < 4; ++j) { std::swap(A(c, j), A(p, j)); std::swap(Inv(c, j), Inv(p, j)); }
    const S piv = A(c, c);
    for (int j = 0; j < 4; ++j) { A(c, j) /= piv; Inv(c, j) /= piv; }
    for (int r = 0; r < 4; ++r) {
      if (r == c) continue;
      const S m = A(r, c);
      for (int j = 0; j < 4; ++j) { A(r, j) -= m * A(c, j); Inv(r, j) -= m * Inv(c, j); }
    }
  }
  std::array<S, 4> a;
  for (int j = 0; j < 4; ++j) {
    S acc(0);
    for (int r = 0; r < 4; ++r) muladd(acc, Inv(j, r), S(xs[r]));
    a[j] = acc;
  }
  if (cond_inf) {
    double nm = 0, ni = 0;
    for (int r = 0; r < 4; ++r) {
      double sm = 0, si = 0;
      for (int j = 0; j < 4; ++j) { sm += std::fabs(static_cast<double>(M(r, j))); si += std::fabs(static_cast<double>(Inv(r, j))); }
      nm = std::max(nm, sm);
      ni = std::max(ni, si);
    }
    *cond_inf = nm * ni;
  }
  return a;
}
// f_GQA(x) = sum_j a_j exp(j x)  (A000-GQA-EXP-FIT, no temperature)
template <class S> S gqa_exp_eval(const std::array<S, 4>& a, const S& x) {
  using std::exp;
  using boost::multiprecision::exp;
  S acc(0);
  for (int j = 0; j < 4; ++j) acc += a[j] * exp(S(S(j + 1) * x));
  return acc;
}

// A read-out function with its parameters (the GQA mixture needs a).
template <class S> struct Fn {
  ReadFn kind = ReadFn::round_int;
  std::array<S, 4> a{};  // only for gqa_exp
  S operator()(const S& x) const {
    switch (kind) {
      case ReadFn::identity: return x;
      case ReadFn::round_int: return round_half_even(x);
      case ReadFn::round_2dec: return round_2dec(x);
      case ReadFn::floor_fn: return floor_fn(x);
      case ReadFn::gqa_exp: return gqa_exp_eval(a, x);
    }
    return x;
  }
};
template <class S> Fn<S> make_fn(ReadFn k) {
  Fn<S> f;
  f.kind = k;
  if (k == ReadFn::gqa_exp) f.a = gqa_exp_fit<S>();
  return f;
}

// A000-ASSUMP2: sup over x in {-1,0,1,2} and x~ in U(x, r) of |f(x~) - x|, on a grid of `grid`
// points per side plus the endpoints (closed: |x~-x| <= r, endpoints included; open: < r, the
// endpoints replaced by x +- r(1 - 2^-40)). Returns the sup and the worst x~ in *where.
template <class S> S assumption2_gap(const Fn<S>& f, const S& r, bool closed, int grid, S* where = nullptr) {
  using std::abs;
  using boost::multiprecision::abs;
  require(grid >= 1, "assumption2_gap: grid must be >= 1");
  S worst(0);
  if (where) *where = S(-1);
  const int xs[4] = {-1, 0, 1, 2};
  const S rr = closed ? r : S(r * (S(1) - S(std::ldexp(1.0, -40))));
  for (int x : xs) {
    for (int s = -grid; s <= grid; ++s) {
      const S xt = S(x) + rr * S(s) / S(grid);
      const S g = abs(S(f(xt) - S(x)));
      if (g > worst) { worst = g; if (where) *where = xt; }
    }
  }
  return worst;
}

// ---- key sets (A000-ASSUMP1 generators; README §3 group 19) ------------------------------------

// Coherence max_{i != j} |k_i^T k_j| of the rows (exact at the working precision); *pair = (i, j).
template <class S> S coherence(const Matrix<S>& K, std::pair<std::size_t, std::size_t>* pair = nullptr) {
  using std::abs;
  using boost::multiprecision::abs;
  S worst(0);
  for (std::size_t i = 0; i < K.rows; ++i)
    for (std::size_t j = i + 1; j < K.rows; ++j) {
      const S c = abs(dot(K.row(i), K.row(j), K.cols));
      if (c > worst || (i == 0 && j == 1)) { worst = c; if (pair) *pair = {i, j}; }
    }
  return worst;
}
// max_i | ||k_i||^2 - 1 |
template <class S> S unit_norm_gap(const Matrix<S>& K) {
  using std::abs;
  using boost::multiprecision::abs;
  S worst(0);
  for (std::size_t i = 0; i < K.rows; ++i) {
    const S g = abs(S(dot(K.row(i), K.row(i), K.cols) - S(1)));
    if (g > worst) worst = g;
  }
  return worst;
}
// Welch bound: any n unit vectors in R^d (n > d) have coherence >= sqrt((n-d)/(d(n-1))).
inline double welch_bound(std::size_t n, std::size_t d) {
  if (n <= d || n < 2) return 0.0;
  return std::sqrt(static_cast<double>(n - d) / (static_cast<double>(d) * static_cast<double>(n - 1)));
}
// Largest n allowed by the Welch bound at coherence < eps in R^d (SIZE_MAX when unbounded: d eps^2 >= 1).
inline std::size_t welch_max_n(std::size_t d, double eps) {
  const double de = static_cast<double>(d) * eps * eps;
  if (de >= 1.0) return std::numeric_limits<std::size_t>::max();
  // (n-d)/(d(n-1)) < eps^2  <=>  n (1 - d eps^2) < d (1 - eps^2)
  const double bound = static_cast<double>(d) * (1 - eps * eps) / (1 - de);
  std::size_t n = static_cast<std::size_t>(std::ceil(bound)) - 1;
  while (n + 1 < bound) ++n;
  return std::max(n, d);
}

template <class S> void normalize_rows(Matrix<S>& K) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  for (std::size_t i = 0; i < K.rows; ++i) {
    const S nn = dot(K.row(i), K.row(i), K.cols);
    require(nn > S(0), "normalize_rows: zero row " + std::to_string(i + 1));
    const S s = sqrt(nn);
    for (std::size_t j = 0; j < K.cols; ++j) K(i, j) /= s;
  }
}
// G1: the first n identity columns (exact), n <= d.
template <class S> Matrix<S> orthonormal_keys(std::size_t n, std::size_t d) {
  require(n >= 1 && n <= d, "orthonormal_keys: need 1 <= n <= d");
  Matrix<S> K(n, d);
  for (std::size_t i = 0; i < n; ++i) K(i, i) = S(1);
  return K;
}
// G2: Gaussian rows normalised at the working precision.
template <class S> Matrix<S> sphere_keys(std::mt19937_64& g, std::size_t n, std::size_t d) {
  require(n >= 1 && d >= 1, "sphere_keys: need n, d >= 1");
  std::normal_distribution<double> N(0.0, 1.0);
  Matrix<S> K(n, d);
  for (auto& x : K.a) x = S(N(g));
  normalize_rows(K);
  return K;
}
// G3 (structured code): standard basis followed by the normalised Sylvester-Hadamard rows,
// d a power of two, n <= 2d; coherence exactly 1/sqrt(d) (two mutually unbiased bases).
template <class S> Matrix<S> hadamard_code_keys(std::size_t n, std::size_t d) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  require(d >= 1 && (d & (d - 1)) == 0, "hadamard_code_keys: d must be a power of two");
  require(n >= 1 && n <= 2 * d, "hadamard_code_keys: need 1 <= n <= 2d");
  Matrix<S> K(n, d);
  const S s = S(1) / sqrt(S(d));
  for (std::size_t i = 0; i < n; ++i) {
    if (i < d) { K(i, i) = S(1); continue; }
    const std::size_t r = i - d;
    for (std::size_t j = 0; j < d; ++j) K(i, j) = (__builtin_popcountll(r & j) % 2) ? S(-s) : s;
  }
  return K;
}
// Keys realising a prescribed Gram matrix G (n x n, positive definite, unit diagonal) in R^n:
// the rows of its Cholesky factor. Used for G4 (equiangular / adversarial sign patterns).
template <class S> Matrix<S> gram_keys(const Matrix<S>& G) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  require(G.rows == G.cols && G.rows >= 1, "gram_keys: G must be square");
  const std::size_t n = G.rows;
  Matrix<S> L(n, n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) {
      S s = G(i, j);
      for (std::size_t k = 0; k < j; ++k) s -= L(i, k) * L(j, k);
      if (i == j) {
        require(s > S(0), "gram_keys: G is not positive definite (pivot " + std::to_string(i + 1) + ")");
        L(i, i) = sqrt(s);
      } else {
        L(i, j) = s / L(j, j);
      }
    }
  return L;
}
// G4 equiangular: n unit keys with every pairwise inner product exactly c (via gram_keys).
template <class S> Matrix<S> equiangular_keys(std::size_t n, const S& c) {
  Matrix<S> G(n, n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) G(i, j) = i == j ? S(1) : c;
  return gram_keys(G);
}
// G3 (optimised packing, fp64): minimise sum_{i<j} (k_i.k_j)^(2p) by projected gradient steps
// on the sphere, raising p; a local optimum only (spec hazard) - callers confirm the coherence
// of the result at high precision.
inline Matrix<double> optimise_packing(std::mt19937_64& g, std::size_t n, std::size_t d, int iters) {
  Matrix<double> K = sphere_keys<double>(g, n, d);
  Matrix<double> Gd(n, d);
  for (int it = 0; it < iters; ++it) {
    const double c = coherence(K);
    const int p = 4 + (8 * it) / std::max(1, iters);
    std::fill(Gd.a.begin(), Gd.a.end(), 0.0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) {
        const double ip = dot(K.row(i), K.row(j), d) / c;
        const double w = std::pow(ip, 2 * p - 1);
        for (std::size_t k = 0; k < d; ++k) {
          Gd(i, k) += w * K(j, k);
          Gd(j, k) += w * K(i, k);
        }
      }
    double gmax = 0;
    for (double x : Gd.a) gmax = std::max(gmax, std::fabs(x));
    if (gmax == 0) break;
    const double step = 0.05 * c / gmax;
    for (std::size_t i = 0; i < K.a.size(); ++i) K.a[i] -= step * Gd.a[i];
    normalize_rows(K);
  }
  return K;
}

// ---- DeltaFormer u-recursion with kappa(k_i, k_t) = f(k_i^T k_t) (A000-THM1, A000-DELTAFORMER-GEN) --

// Matrix form: A_ti = f(k_i^T k_t) for i < t, (I + A) U = V by ref::unit_lower_solve.
template <class S> Matrix<S> u_matrix_form(const Matrix<S>& Ktok, const Matrix<S>& Vtok, const Fn<S>& f) {
  require(Ktok.rows == Vtok.rows, "u_matrix_form: K and V need the same number of tokens");
  const std::size_t T = Ktok.rows;
  Matrix<S> A(T, T);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t i = 0; i < t; ++i) A(t, i) = f(dot(Ktok.row(i), Ktok.row(t), Ktok.cols));
  return unit_lower_solve(A, Vtok);
}
// Read-out o = sum_{i < upto} f(q^T k_i) u_i.
template <class S> Vector<S> read_out(const Matrix<S>& Ktok, const Matrix<S>& U, std::size_t upto, const S* q,
                                      const Fn<S>& f) {
  Vector<S> o(U.cols, S(0));
  for (std::size_t i = 0; i < upto; ++i) {
    const S w = f(dot(q, Ktok.row(i), Ktok.cols));
    if (w == S(0)) continue;
    for (std::size_t c = 0; c < U.cols; ++c) muladd(o[c], w, U(i, c));
  }
  return o;
}

// ---- the swap-tracking construction of Theorem 1 (A000-THM1-CONSTRUCTION) ------------------

struct Swap {
  std::size_t t1, t2;  // 0-based, t2 < t1 (the printed ordering)
};
inline std::vector<Swap> random_swaps(std::mt19937_64& g, std::size_t n, std::size_t count) {
  require(n >= 2, "random_swaps: need n >= 2");
  std::uniform_int_distribution<std::size_t> U(0, n * (n - 1) / 2 - 1);
  std::vector<Swap> s(count);
  for (auto& w : s) {
    std::size_t r = U(g), a = 1;
    while (r >= a) { r -= a; ++a; }  // pairs (a, r) with r < a, uniform over the C(n,2) pairs
    w = {a, r};
  }
  return s;
}

struct SwapOptions {
  bool reversed = false;       // token key k_{t2} - k_{t1} instead of k_{t1} - k_{t2}
  std::size_t compact_every = 0;  // A000-SPACE: every this many swaps rewrite the n base pairs
  bool instrument = false;     // check each equation of the proof (Eqs. 102, 107-110)
  double exact_tol = 0;        // a read-out is "exact" when max |o - v~| <= exact_tol * max(1, |v~|)
};
struct SwapStats {
  std::size_t swaps = 0, readouts = 0;
  std::size_t wrong_exact = 0, wrong_decode = 0;  // read-outs off the truth / decoding to another value
  double max_dev = 0;                             // max |o - v~| (entrywise) over all read-outs
  double max_u = 0;                               // max_t ||u_t||_inf
  long first_fail_swap = -1;                      // 1-based swap index of the first wrong read-out
  // proof trace: first failing equation and its swap (1-based), worst residual per equation
  std::string first_bad_eq;
  long first_bad_eq_swap = -1;
  double eq_res[7] = {0, 0, 0, 0, 0, 0, 0};  // IH, 107b (lemma split), 107c/102 (u), f(t1)=1, f(t2)=-1, f(j)=0, 108-110
  std::size_t max_cache = 0;                 // largest number of cached (key, u) tokens
  std::vector<std::vector<double>> outputs;  // optional log: read-outs after every swap (fp64 copy)
};
inline const char* proof_eq_name(int e) {
  static const char* names[7] = {"IH sum_i f(k_m.k_i) u_i = v~_m", "Eq.107 lemma split", "Eq.102/107 u_t = -v~_t1 + v~_t2",
                                 "f(k_t1.k_t) = 1", "f(k_t2.k_t) = -1", "f(k_j.k_t) = 0", "Eqs.103-105/108-110 read-outs"};
  return names[e];
}

// Runs the construction literally: write n base tokens (k_i, v_i) with u_i from the recursion,
// then one token per swap with k = k_t1 - k_t2, v = 0; after every swap query all n base keys and
// compare with the ground truth v~_m = v_{pi(m)}, pi <- pi o (t1 t2). Read-outs R_m are kept as
// running sums of f(k_m^T k_i) u_i over the cache (the same sum as read_out, accumulated).
template <class S>
SwapStats run_swaps(const Matrix<S>& K, const Matrix<S>& V, const std::vector<Swap>& swaps, const Fn<S>& fw,
                    const Fn<S>& fr, const SwapOptions& opt, bool log_outputs = false,
                    std::vector<Vector<S>>* final_R = nullptr, Matrix<S>* final_U = nullptr) {
  using std::abs;
  using boost::multiprecision::abs;
  const std::size_t n = K.rows, d = K.cols, dv = V.cols;
  require(n >= 2 && V.rows == n && d >= 1 && dv >= 1, "run_swaps: need n >= 2 keys and n values");
  for (const auto& s : swaps) require(s.t2 < s.t1 && s.t1 < n, "run_swaps: swap needs t2 < t1 < n");
  SwapStats st;
  std::vector<std::size_t> pi(n);
  std::iota(pi.begin(), pi.end(), 0);
  std::vector<Vector<S>> kt, ut;  // token cache
  std::vector<Vector<S>> R(n, Vector<S>(dv, S(0)));
  Matrix<S> Vcur = V;  // values written at the last (re)write
  auto dotk = [d](const Vector<S>& a, const S* b) { return dot(a.data(), b, d); };
  auto push_token = [&](const Vector<S>& k, const Vector<S>& u) {
    kt.push_back(k);
    ut.push_back(u);
    for (const S& x : u) st.max_u = std::max(st.max_u, std::fabs(static_cast<double>(x)));
    for (std::size_t m = 0; m < n; ++m) {
      const S w = fr(dotk(k, K.row(m)));
      if (w == S(0)) continue;
      for (std::size_t c = 0; c < dv; ++c) muladd(R[m][c], w, u[c]);
    }
    st.max_cache = std::max(st.max_cache, kt.size());
  };
  // u_t = v_t - sum_{i<t} fw(k_i^T k_t) u_i
  auto u_of = [&](const Vector<S>& k, const S* v) {
    Vector<S> u(dv, S(0));
    for (std::size_t c = 0; c < dv; ++c) u[c] = v ? v[c] : S(0);
    for (std::size_t i = 0; i < kt.size(); ++i) {
      const S w = fw(dot(kt[i].data(), k.data(), d));
      if (w == S(0)) continue;
      for (std::size_t c = 0; c < dv; ++c) u[c] -= w * ut[i][c];
    }
    return u;
  };
  auto write_base = [&]() {
    kt.clear();
    ut.clear();
    for (auto& r : R) std::fill(r.begin(), r.end(), S(0));
    for (std::size_t i = 0; i < n; ++i) {
      Vector<S> k(K.row(i), K.row(i) + d);
      push_token(k, u_of(k, Vcur.row(i)));
    }
  };
  write_base();
  auto truth = [&](std::size_t m, std::size_t c) -> const S& { return V(pi[m], c); };
  auto note_eq = [&](int e, double r, std::size_t s) {
    st.eq_res[e] = std::max(st.eq_res[e], r);
    if (r > opt.exact_tol && st.first_bad_eq_swap < 0) {
      st.first_bad_eq = proof_eq_name(e);
      st.first_bad_eq_swap = static_cast<long>(s + 1);
    }
  };
  double vscale = 1;
  for (const S& x : V.a) vscale = std::max(vscale, std::fabs(static_cast<double>(x)));
  for (std::size_t s = 0; s < swaps.size(); ++s) {
    const std::size_t a = swaps[s].t1, b = swaps[s].t2;
    Vector<S> k(d);
    for (std::size_t j = 0; j < d; ++j) k[j] = opt.reversed ? S(K(b, j) - K(a, j)) : S(K(a, j) - K(b, j));
    if (opt.instrument) {
      // induction hypothesis with the write function: sum_{i<t} fw(k_m^T k_i) u_i = v~_m
      double ih = 0;
      std::vector<Vector<S>> Rw(n, Vector<S>(dv, S(0)));
      for (std::size_t m : {a, b}) {
        for (std::size_t i = 0; i < kt.size(); ++i) {
          const S w = fw(dot(K.row(m), kt[i].data(), d));
          for (std::size_t c = 0; c < dv; ++c) muladd(Rw[m][c], w, ut[i][c]);
        }
      }
      for (std::size_t m = 0; m < n; ++m)
        for (std::size_t c = 0; c < dv; ++c)
          ih = std::max(ih, std::fabs(static_cast<double>(S(R[m][c] - truth(m, c)))) / vscale);
      note_eq(0, ih, s);
      Vector<S> u = u_of(k, nullptr);
      double split = 0, uu = 0;
      const double sg = opt.reversed ? -1.0 : 1.0;
      for (std::size_t c = 0; c < dv; ++c) {
        const S lemma = S(-Rw[a][c] + Rw[b][c]);
        split = std::max(split, std::fabs(static_cast<double>(S(u[c] - S(sg) * lemma))) / vscale);
        uu = std::max(uu, std::fabs(static_cast<double>(S(u[c] - S(sg) * S(-truth(a, c) + truth(b, c))))) / vscale);
      }
      note_eq(1, split, s);
      note_eq(2, uu, s);
      note_eq(3, std::fabs(static_cast<double>(S(fr(dotk(k, K.row(a))) - S(sg)))), s);
      note_eq(4, std::fabs(static_cast<double>(S(fr(dotk(k, K.row(b))) + S(sg)))), s);
      double fj = 0;
      for (std::size_t m = 0; m < n; ++m)
        if (m != a && m != b) fj = std::max(fj, std::fabs(static_cast<double>(fr(dotk(k, K.row(m))))));
      note_eq(5, fj, s);
      push_token(k, u);
    } else {
      push_token(k, u_of(k, nullptr));
    }
    std::swap(pi[a], pi[b]);
    ++st.swaps;
    // query all base keys
    double step_dev = 0;
    bool step_fail = false;
    std::vector<double> logrow;
    for (std::size_t m = 0; m < n; ++m) {
      double dev = 0;
      for (std::size_t c = 0; c < dv; ++c) {
        dev = std::max(dev, std::fabs(static_cast<double>(S(R[m][c] - truth(m, c)))));
        if (log_outputs) logrow.push_back(static_cast<double>(R[m][c]));
      }
      ++st.readouts;
      st.max_dev = std::max(st.max_dev, dev);
      step_dev = std::max(step_dev, dev / vscale);
      if (!(dev <= opt.exact_tol * vscale)) { ++st.wrong_exact; step_fail = true; }
      // decode: the nearest original value (squared distance in fp64)
      std::size_t best = 0;
      double bd = INFINITY;
      for (std::size_t p = 0; p < n; ++p) {
        double dd = 0;
        for (std::size_t c = 0; c < dv; ++c) {
          const double x = static_cast<double>(R[m][c]) - static_cast<double>(V(p, c));
          dd += x * x;
        }
        if (dd < bd) { bd = dd; best = p; }
      }
      if (best != pi[m] || !std::isfinite(bd)) ++st.wrong_decode;
    }
    if (opt.instrument) note_eq(6, step_dev, s);
    if (step_fail && st.first_fail_swap < 0) st.first_fail_swap = static_cast<long>(s + 1);
    if (log_outputs) st.outputs.push_back(std::move(logrow));
    // A000-SPACE compaction: read all n values and rewrite the base pairs with them
    if (opt.compact_every > 0 && (s + 1) % opt.compact_every == 0) {
      Matrix<S> Vnew(n, dv);
      for (std::size_t m = 0; m < n; ++m)
        for (std::size_t c = 0; c < dv; ++c) Vnew(m, c) = R[m][c];
      Vcur = Vnew;
      write_base();
    }
  }
  if (final_R) *final_R = R;
  if (final_U) {
    *final_U = Matrix<S>(ut.size(), dv);
    for (std::size_t i = 0; i < ut.size(); ++i)
      for (std::size_t c = 0; c < dv; ++c) (*final_U)(i, c) = ut[i][c];
  }
  return st;
}

// Token sequence of the construction (n base tokens, then one difference token per swap) for
// the matrix (triangular-solve) form.
template <class S>
void swap_tokens(const Matrix<S>& K, const Matrix<S>& V, const std::vector<Swap>& swaps, bool reversed,
                 Matrix<S>& Ktok, Matrix<S>& Vtok) {
  const std::size_t n = K.rows, d = K.cols, T = n + swaps.size();
  Ktok = Matrix<S>(T, d);
  Vtok = Matrix<S>(T, V.cols);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < d; ++j) Ktok(i, j) = K(i, j);
    for (std::size_t c = 0; c < V.cols; ++c) Vtok(i, c) = V(i, c);
  }
  for (std::size_t s = 0; s < swaps.size(); ++s)
    for (std::size_t j = 0; j < d; ++j) {
      const S x = K(swaps[s].t1, j) - K(swaps[s].t2, j);
      Ktok(n + s, j) = reversed ? S(-x) : x;
    }
}

// ---- A000-HOUSEHOLDER: the DeltaNet transition I - k k^T with k = a - b ----------------------
template <class S> Matrix<S> householder_swap(const S* a, const S* b, std::size_t d) {
  Matrix<S> H(d, d);
  for (std::size_t i = 0; i < d; ++i) H(i, i) = S(1);
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < d; ++j) H(i, j) -= S(a[i] - b[i]) * S(a[j] - b[j]);
  return H;
}

// ---- A000-GQA-U (Eq. 111): u_t = alpha_t v_t - beta_t sum_{i<t} sum_j a_j kappa1(k_i, w_t^j) u_i ----
// W[j] holds the T x d retrieval vectors of head j. Loop form (Eq. 111 literally).
template <class S, class Kappa>
Matrix<S> gqa_u_loop(const Matrix<S>& Kk, const std::vector<Matrix<S>>& W, const std::vector<S>& a,
                     const Matrix<S>& V, const std::vector<S>& alpha, const std::vector<S>& beta, Kappa kappa) {
  const std::size_t T = Kk.rows, dv = V.cols, G = W.size();
  require(G >= 1 && a.size() == G && V.rows == T && alpha.size() == T && beta.size() == T, "gqa_u_loop: shapes");
  for (const auto& w : W) require(w.rows == T && w.cols == Kk.cols, "gqa_u_loop: W shapes");
  Matrix<S> U(T, dv);
  for (std::size_t t = 0; t < T; ++t) {
    for (std::size_t c = 0; c < dv; ++c) U(t, c) = alpha[t] * V(t, c);
    for (std::size_t i = 0; i < t; ++i)
      for (std::size_t j = 0; j < G; ++j) {
        const S w = beta[t] * a[j] * kappa(Kk.row(i), W[j].row(t));
        for (std::size_t c = 0; c < dv; ++c) U(t, c) -= w * U(i, c);
      }
  }
  return U;
}
// Matrix form: (I + diag(beta) sum_j a_j L1^(j)) U = diag(alpha) V via unit_lower_solve.
template <class S, class Kappa>
Matrix<S> gqa_u_matrix(const Matrix<S>& Kk, const std::vector<Matrix<S>>& W, const std::vector<S>& a,
                       const Matrix<S>& V, const std::vector<S>& alpha, const std::vector<S>& beta, Kappa kappa) {
  const std::size_t T = Kk.rows;
  Matrix<S> L(T, T), Vs = V;
  for (std::size_t j = 0; j < W.size(); ++j)
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t i = 0; i < t; ++i) muladd(L(t, i), a[j], kappa(Kk.row(i), W[j].row(t)));
  for (std::size_t t = 0; t < T; ++t) {
    for (std::size_t i = 0; i < t; ++i) L(t, i) *= beta[t];
    for (std::size_t c = 0; c < V.cols; ++c) Vs(t, c) *= alpha[t];
  }
  return unit_lower_solve(L, Vs);
}

}  // namespace recall::ref
