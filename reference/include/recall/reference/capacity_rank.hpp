// Exact capacity algebra of paper A002 §3.1 / App. C (Proposition 1, Theorem 1, Proposition 2): exact ranks
// and exact feasibility of M Phi = V, the interpolants of the proof of Proposition 1, the output matrices of
// the "low-rank bottleneck" readings, a minimal ReLU/GELU MLP memory with its activation patterns and
// pattern products, and the width expressions U0, U1, U2 of Theorem 1.
//
// Column convention of App. C: K = [k_1 ... k_m] (d_k x m), V (d_v x m), Phi (D x m); a memory M (d_v x D)
// memorizes (Phi, V) exactly iff M Phi = V has a solution iff rank Phi = rank [Phi; V].
//
// Exact arithmetic: boost::multiprecision::cpp_rational inputs (integers or dyadic rationals). Each row is
// scaled by the lcm of its denominators (row scaling keeps rank and row space), then ranks come from
// fraction-free (Bareiss) elimination on cpp_int: every division is exact (Sylvester's identity) and is
// checked (a non-zero remainder throws std::logic_error). A rank modulo the prime 2^61 - 1 is a certified
// LOWER bound of the rational rank (a non-zero minor mod p is a non-zero integer minor); exact_rank uses it
// as a fast path only when it reaches the structural maximum min(rows, cols), and otherwise runs Bareiss.
// Floating-point ranks never decide anything here.
//
// IDs: A002-PROP1-L2-CAPACITY, A002-PROP1-TIGHT, A002-PROP1-SUBLINEAR (exact feasibility / prefix capacity),
// A002-PROP1-PINV (printed V K^T and V K^+), A002-PROP1-GD-CONV (the printed GD iterate, reusing
// ref::gd_step_from_moments of full_batch_gd.hpp, README §3 group 15), A002-PROP1-LOWRANK (readings R1-R4),
// A002-THM1-DEEP-MEMORY / A002-THM1-LOWER / A002-THM1-PROOF-MINFORM / A002-THM1-SAMEREGION (MLP memory,
// activation patterns, pattern product A), A002-THM1-UPPER (U0), A002-THM1-RANK-PROOF (U1),
// A002-THM1-RANK-PROOF-B (U2), A002-THM1-GROWTH (U0, U1, U2 on width families), A002-PROP2-POLY-CAPACITY and
// A002-PROP2-PROOF-D (feasibility with the lifted Phi of polynomial_maps.hpp).
#pragma once

#include "recall/reference/ffn_memory.hpp"
#include "recall/reference/full_batch_gd.hpp"
#include "recall/reference/linear_attention.hpp"
#include "recall/reference/matrix.hpp"
#include "recall/reference/regression_rules.hpp"

#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace recall::ref::capacity {

using BigInt = boost::multiprecision::cpp_int;
using Rational = boost::multiprecision::cpp_rational;

// ---- exact elimination -------------------------------------------------------------------------------

// Row echelon data of an elimination that takes the columns in order: the pivot columns (0-based).
struct Echelon {
  std::size_t rank = 0;
  std::vector<std::size_t> pivot_cols;
};

// A rational matrix with every row multiplied by the lcm of its denominators (an integer matrix with the
// same rank and the same row space up to a non-singular diagonal scaling).
inline Matrix<BigInt> integer_rows(const Matrix<Rational>& A) {
  Matrix<BigInt> Z(A.rows, A.cols);
  for (std::size_t i = 0; i < A.rows; ++i) {
    BigInt l = 1;
    for (std::size_t j = 0; j < A.cols; ++j) {
      const BigInt d = boost::multiprecision::denominator(A(i, j));
      l = l / boost::multiprecision::gcd(l, d) * d;
    }
    for (std::size_t j = 0; j < A.cols; ++j) {
      const Rational x = A(i, j) * Rational(l);
      Z(i, j) = boost::multiprecision::numerator(x);  // denominator is 1 by construction
    }
  }
  return Z;
}

// A002-PROP1-L2-CAPACITY / A002-PROP2-POLY-CAPACITY: fraction-free (Bareiss) row echelon of an integer
// matrix, columns taken left to right with row pivoting; entry (i, j) after step s is the (s+1) x (s+1) minor on
// the pivot rows/columns so far plus row i and column j, so every division by the previous pivot is exact.
inline Echelon bareiss_echelon(Matrix<BigInt> A) {
  Echelon e;
  BigInt prev = 1;
  std::size_t row = 0;
  for (std::size_t col = 0; col < A.cols && row < A.rows; ++col) {
    std::size_t p = row;
    while (p < A.rows && A(p, col) == 0) ++p;
    if (p == A.rows) continue;  // no pivot in this column: it depends on the previous pivot columns
    if (p != row)
      for (std::size_t j = 0; j < A.cols; ++j) std::swap(A(p, j), A(row, j));
    const BigInt piv = A(row, col);
    for (std::size_t i = row + 1; i < A.rows; ++i) {
      const BigInt a = A(i, col);
      for (std::size_t j = col + 1; j < A.cols; ++j) {
        BigInt num = piv * A(i, j) - a * A(row, j), q, r;
        boost::multiprecision::divide_qr(num, prev, q, r);
        if (r != 0) throw std::logic_error("bareiss_echelon: inexact division (internal error)");
        A(i, j) = std::move(q);
      }
      A(i, col) = 0;
    }
    prev = piv;
    e.pivot_cols.push_back(col);
    ++row;
  }
  e.rank = row;
  return e;
}

// Rank modulo the prime 2^61 - 1 (Gaussian elimination in Z/p, columns in order): a lower bound of the
// rational rank, with the pivot columns mod p (a set of columns independent over Q).
inline Echelon echelon_mod_p(const Matrix<BigInt>& A) {
  using u64 = std::uint64_t;
  using u128 = unsigned __int128;
  constexpr u64 P = (u64(1) << 61) - 1;
  auto mulm = [](u64 a, u64 b) -> u64 {
    const u128 z = static_cast<u128>(a) * b;
    u64 r = static_cast<u64>(z & P) + static_cast<u64>(z >> 61);
    if (r >= P) r -= P;
    return r;
  };
  auto powm = [&](u64 a, u64 n) {
    u64 r = 1;
    while (n) {
      if (n & 1) r = mulm(r, a);
      a = mulm(a, a);
      n >>= 1;
    }
    return r;
  };
  std::vector<u64> M(A.rows * A.cols);
  const BigInt Pb = BigInt(P);
  for (std::size_t i = 0; i < A.a.size(); ++i) {
    BigInt r = A.a[i] % Pb;
    if (r < 0) r += Pb;
    M[i] = static_cast<u64>(r);
  }
  Echelon e;
  std::size_t row = 0;
  const std::size_t C = A.cols;
  for (std::size_t col = 0; col < C && row < A.rows; ++col) {
    std::size_t p = row;
    while (p < A.rows && M[p * C + col] == 0) ++p;
    if (p == A.rows) continue;
    if (p != row)
      for (std::size_t j = 0; j < C; ++j) std::swap(M[p * C + j], M[row * C + j]);
    const u64 inv = powm(M[row * C + col], P - 2);
    for (std::size_t i = row + 1; i < A.rows; ++i) {
      const u64 f = mulm(M[i * C + col], inv);
      if (f == 0) continue;
      for (std::size_t j = col; j < C; ++j) {
        const u64 s = mulm(f, M[row * C + j]);
        u64& x = M[i * C + j];
        x = x >= s ? x - s : x + P - s;
      }
    }
    e.pivot_cols.push_back(col);
    ++row;
  }
  e.rank = row;
  return e;
}

// A002-PROP1-L2-CAPACITY / A002-PROP2-POLY-CAPACITY: exact rank of an integer matrix (mod-p certificate at the
// structural maximum, else Bareiss).
inline std::size_t exact_rank(const Matrix<BigInt>& A) {
  if (A.rows == 0 || A.cols == 0) return 0;
  const Echelon ep = echelon_mod_p(A);
  if (ep.rank == std::min(A.rows, A.cols)) return ep.rank;
  return bareiss_echelon(A).rank;
}
// Exact rank of a rational matrix (row scaling to integers, then exact_rank).
inline std::size_t exact_rank(const Matrix<Rational>& A) { return exact_rank(integer_rows(A)); }
// Rank by Bareiss only (the reference path; exact_rank's fast path is checked against it in the tests).
inline std::size_t bareiss_rank(const Matrix<Rational>& A) {
  if (A.rows == 0 || A.cols == 0) return 0;
  return bareiss_echelon(integer_rows(A)).rank;
}

// [A; B] (rows of A, then rows of B; same number of columns)
template <class S>
Matrix<S> stack_rows(const Matrix<S>& A, const Matrix<S>& B) {
  require(A.cols == B.cols, "stack_rows: column counts differ (" + std::to_string(A.cols) + " vs " + std::to_string(B.cols) + ")");
  Matrix<S> C(A.rows + B.rows, A.cols);
  for (std::size_t i = 0; i < A.a.size(); ++i) C.a[i] = A.a[i];
  for (std::size_t i = 0; i < B.a.size(); ++i) C.a[A.a.size() + i] = B.a[i];
  return C;
}
// the first m columns of A
template <class S>
Matrix<S> first_cols(const Matrix<S>& A, std::size_t m) {
  require(m <= A.cols, "first_cols: m = " + std::to_string(m) + " exceeds the " + std::to_string(A.cols) + " columns");
  Matrix<S> B(A.rows, m);
  for (std::size_t i = 0; i < A.rows; ++i)
    for (std::size_t j = 0; j < m; ++j) B(i, j) = A(i, j);
  return B;
}

// Exact memorization test (Prop. 1 proof, App. C; README of Part C): exists M with M Phi = V  iff
// rank Phi == rank [Phi; V]. Phi is D x m (columns = lifted keys), V is d_v x m (columns = values).
struct Feasibility {
  bool feasible = false;
  std::size_t rank_phi = 0, rank_aug = 0;
};
// A002-PROP1-L2-CAPACITY / A002-PROP1-TIGHT / A002-PROP2-PROOF-D: exact feasibility of M Phi = V.
inline Feasibility exact_feasibility(const Matrix<Rational>& Phi, const Matrix<Rational>& V) {
  require(Phi.cols == V.cols, "exact_feasibility: Phi has " + std::to_string(Phi.cols) + " columns but V has " + std::to_string(V.cols));
  require(Phi.cols >= 1, "exact_feasibility: no pairs (m = 0)");
  Feasibility f;
  const Matrix<BigInt> Zp = integer_rows(Phi), Zv = integer_rows(V);
  f.rank_phi = exact_rank(Zp);
  f.rank_aug = exact_rank(stack_rows(Zp, Zv));
  f.feasible = f.rank_aug == f.rank_phi;
  return f;
}

// A002-PROP1-L2-CAPACITY / A002-PROP1-SUBLINEAR / A002-PROP2-POLY-CAPACITY: the capacity of nested key sets,
// m* = the largest m such that the first m columns of Phi are linearly independent (exact memorization of the
// first m pairs for EVERY value matrix V iff rank Phi_m = m; nested prefixes: once a prefix is dependent, every
// longer prefix is). 0 when the first column is zero.
inline std::size_t prefix_capacity(const Matrix<BigInt>& Z) {
  const Echelon ep = echelon_mod_p(Z);
  std::size_t mp = 0;  // leading run of pivot columns mod p: independent over Q (certified lower bound)
  while (mp < ep.pivot_cols.size() && ep.pivot_cols[mp] == mp) ++mp;
  if (mp == Z.cols || mp == Z.rows) return mp;  // all columns, or as many as rows: maximal
  // column mp may be independent over Q although dependent mod p: decide exactly on the first mp + 1 columns
  const Echelon eb = bareiss_echelon(first_cols(Z, mp + 1));
  if (eb.rank == mp) return mp;
  std::size_t mq = 0;  // unlucky prime: the full Bareiss run
  const Echelon ef = bareiss_echelon(Z);
  while (mq < ef.pivot_cols.size() && ef.pivot_cols[mq] == mq) ++mq;
  return mq;
}
// The same for a rational Phi (rows scaled to integers).
inline std::size_t prefix_capacity(const Matrix<Rational>& Phi) { return prefix_capacity(integer_rows(Phi)); }

// ---- exact solves (Gauss-Jordan on rationals) --------------------------------------------------------

// X = A^{-1} B for a square non-singular rational A (singular A: std::invalid_argument naming `who`).
inline Matrix<Rational> solve_exact(Matrix<Rational> A, Matrix<Rational> B, const std::string& who) {
  require(A.rows == A.cols && B.rows == A.rows, who + ": solve_exact needs a square A and B with as many rows");
  const std::size_t n = A.rows;
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t p = c;
    while (p < n && A(p, c) == 0) ++p;
    require(p < n, who + ": singular system (no pivot in column " + std::to_string(c + 1) + ")");
    if (p != c) {
      for (std::size_t j = 0; j < n; ++j) std::swap(A(p, j), A(c, j));
      for (std::size_t j = 0; j < B.cols; ++j) std::swap(B(p, j), B(c, j));
    }
    const Rational inv = Rational(1) / A(c, c);
    for (std::size_t j = 0; j < n; ++j) A(c, j) *= inv;
    for (std::size_t j = 0; j < B.cols; ++j) B(c, j) *= inv;
    for (std::size_t i = 0; i < n; ++i) {
      if (i == c || A(i, c) == 0) continue;
      const Rational f = A(i, c);
      for (std::size_t j = 0; j < n; ++j) A(i, j) -= f * A(c, j);
      for (std::size_t j = 0; j < B.cols; ++j) B(i, j) -= f * B(c, j);
    }
  }
  return B;
}

// A002-PROP1-PINV: the printed candidate of the proof, M* = V K^T (d_v x d_k).
template <class S>
Matrix<S> printed_interpolant(const Matrix<S>& K, const Matrix<S>& V) {
  require(K.cols == V.cols, "printed_interpolant: K and V must have the same number m of columns");
  return matmul(V, transpose(K));
}
// A002-PROP1-PINV: K^+ = (K^T K)^{-1} K^T for a full-column-rank K (exact; rank-deficient K: std::invalid_argument).
inline Matrix<Rational> pinv_full_column_rank(const Matrix<Rational>& K) {
  require(K.cols >= 1 && K.rows >= K.cols, "pinv_full_column_rank: K must be d_k x m with 1 <= m <= d_k");
  const Matrix<Rational> Kt = transpose(K);
  return solve_exact(matmul(Kt, K), Kt, "pinv_full_column_rank(K^T K)");
}
// A002-PROP1-PINV: the test-bed's interpolant V K^+ (exact, full column rank K).
inline Matrix<Rational> pinv_interpolant(const Matrix<Rational>& K, const Matrix<Rational>& V) {
  require(K.cols == V.cols, "pinv_interpolant: K and V must have the same number m of columns");
  return matmul(V, pinv_full_column_rank(K));
}

// A002-PROP1-GD-CONV: one printed full-batch GD step M_{t+1} = M_t - eta (M_t K - V) K^T (no factor 2), in the
// column convention; it is the A001 step M (I - eta S) + eta R with S = K K^T, R = V K^T (ref::gd_step_from_moments).
template <class S>
Matrix<S> prop1_gd_step(const Matrix<S>& M, const Matrix<S>& KKt, const Matrix<S>& VKt, const S& eta) {
  return gd_step_from_moments(M, KKt, VKt, eta);
}
// A002-PROP1-GD-CONV: the GD limit from M_0 (m <= d_k, full column rank K): V K^+ + M_0 (I - K K^+).
inline Matrix<Rational> gd_limit(const Matrix<Rational>& K, const Matrix<Rational>& V, const Matrix<Rational>& M0) {
  const Matrix<Rational> Kp = pinv_full_column_rank(K);
  Matrix<Rational> P = matmul(K, Kp);  // projector onto range K (d_k x d_k)
  for (std::size_t i = 0; i < P.rows; ++i)
    for (std::size_t j = 0; j < P.cols; ++j) P(i, j) = (i == j ? Rational(1) : Rational(0)) - P(i, j);
  Matrix<Rational> L = matmul(V, Kp), B = matmul(M0, P);
  for (std::size_t i = 0; i < L.a.size(); ++i) L.a[i] += B.a[i];
  return L;
}

// ---- A002-PROP1-LOWRANK: the "output context matrix" readings (tokens are rows here: Q, K: L x d_k, V: L x d_v)

// R1: the linear-attention memory after L tokens, M_L = sum_i v_i k_i^T = V^T K (d_v x d_k).
template <class S>
Matrix<S> lowrank_r1_memory(const Matrix<S>& K, const Matrix<S>& V) {
  return matmul(transpose(V), K);
}
// R2: non-causal linear-attention outputs Y = Q K^T V (L x d_v).
template <class S>
Matrix<S> lowrank_r2_noncausal(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V) {
  return matmul(matmul(Q, transpose(K)), V);
}
// R3: causal linear-attention outputs Y = (Q K^T (.) C_<=) V, y_t = sum_{i<=t} (q_t^T k_i) v_i (linear_attention_sum).
template <class S>
Matrix<S> lowrank_r3_causal(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V) {
  return linear_attention_sum(Q, K, V);
}
// R4 (non-causal): softmax attention over all L keys, y_t = sum_j softmax_j(s q_t^T k_j) v_j (row maximum
// subtracted; the causal form is ref::causal_softmax_attention of softmax.hpp).
template <class S>
Matrix<S> softmax_attention_all_keys(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, const S& scale) {
  using boost::multiprecision::exp;
  using std::exp;
  require(Q.cols == K.cols && K.rows == V.rows, "softmax_attention_all_keys: shape mismatch");
  Matrix<S> O(Q.rows, V.cols);
  std::vector<S> z(K.rows);
  for (std::size_t t = 0; t < Q.rows; ++t) {
    for (std::size_t j = 0; j < K.rows; ++j) z[j] = scale * dot(Q.row(t), K.row(j), Q.cols);
    S m = z[0];
    for (const S& x : z)
      if (x > m) m = x;
    S den(0);
    for (std::size_t j = 0; j < K.rows; ++j) {
      const S e = exp(S(z[j] - m));
      den += e;
      for (std::size_t c = 0; c < V.cols; ++c) O(t, c) += e * V(j, c);
    }
    for (std::size_t c = 0; c < V.cols; ++c) O(t, c) /= den;
  }
  return O;
}
// Multi-head: h heads of width dh on column slices h*dh..(h+1)*dh of Q and K and dv_h of V, outputs concatenated
// (L x h dv_h); head(Qh, Kh, Vh) is one of the readings above.
template <class S, class Head>
Matrix<S> multihead_concat(const Matrix<S>& Q, const Matrix<S>& K, const Matrix<S>& V, std::size_t h, const Head& head) {
  require(h >= 1 && Q.cols % h == 0 && K.cols == Q.cols && V.cols % h == 0, "multihead_concat: widths must split into h heads");
  const std::size_t dh = Q.cols / h, dvh = V.cols / h, L = Q.rows;
  Matrix<S> O(L, V.cols);
  for (std::size_t g = 0; g < h; ++g) {
    Matrix<S> Qh(L, dh), Kh(K.rows, dh), Vh(V.rows, dvh);
    for (std::size_t t = 0; t < L; ++t)
      for (std::size_t c = 0; c < dh; ++c) Qh(t, c) = Q(t, g * dh + c);
    for (std::size_t t = 0; t < K.rows; ++t)
      for (std::size_t c = 0; c < dh; ++c) Kh(t, c) = K(t, g * dh + c);
    for (std::size_t t = 0; t < V.rows; ++t)
      for (std::size_t c = 0; c < dvh; ++c) Vh(t, c) = V(t, g * dvh + c);
    const Matrix<S> Oh = head(Qh, Kh, Vh);
    for (std::size_t t = 0; t < L; ++t)
      for (std::size_t c = 0; c < dvh; ++c) O(t, g * dvh + c) = Oh(t, c);
  }
  return O;
}

// ---- Theorem 1: a minimal MLP memory (the brief's "write the minimal one you need") ---------------------------
// M(k) = W^(L) s(W^(L-1) ... s(W^(1) k + b^(1)) ... + b^(L-1)) + b^(L), widths d^(0) = d_k, ..., d^(L) = d_v,
// W^(l) of shape d^(l) x d^(l-1) (stored 0-based: W[l-1]); b empty = no biases (the proof's setting).
// s = ReLU (ref::ffn::relu; exact on rationals) or GELU (ref::gelu, the erf form, A-17 default).
enum class MlpActivation { relu, gelu };
template <class S>
struct MlpMemory {
  std::vector<Matrix<S>> W;
  std::vector<Vector<S>> b;  // empty, or one vector per layer
  MlpActivation act = MlpActivation::relu;
};

// s(z) of the memory; GELU needs a floating scalar (an exact rational GELU does not exist: std::invalid_argument).
template <class S>
S mlp_activate(const S& z, MlpActivation act) {
  if (act == MlpActivation::relu) return ffn::relu(z);
  if constexpr (std::is_floating_point_v<S> || boost::multiprecision::number_category<S>::value == boost::multiprecision::number_kind_floating_point) {
    return gelu(z);
  } else {
    throw std::invalid_argument("mlp_activate: GELU needs a floating scalar (got an exact type)");
  }
}

template <class S>
void check_mlp(const MlpMemory<S>& net, std::size_t dk, const char* who) {
  require(net.W.size() >= 1, std::string(who) + ": the MLP needs at least one layer");
  require(net.W[0].cols == dk, std::string(who) + ": W^(1) has " + std::to_string(net.W[0].cols) + " columns but the key has " + std::to_string(dk));
  for (std::size_t l = 1; l < net.W.size(); ++l)
    require(net.W[l].cols == net.W[l - 1].rows, std::string(who) + ": W^(" + std::to_string(l + 1) + ") does not chain with W^(" + std::to_string(l) + ")");
  require(net.b.empty() || net.b.size() == net.W.size(), std::string(who) + ": biases must be absent or one per layer");
  for (std::size_t l = 0; l < net.b.size(); ++l) require(net.b[l].size() == net.W[l].rows, std::string(who) + ": b^(" + std::to_string(l + 1) + ") has the wrong length");
}

// A002-THM1-DEEP-MEMORY: pre-activations z^(l) = W^(l) h^(l-1) + b^(l) of every layer (l = 1..L, 0-based storage);
// h^(0) = k, h^(l) = s(z^(l)) for l < L; the output is z^(L).
template <class S>
std::vector<Vector<S>> mlp_preactivations(const MlpMemory<S>& net, const Vector<S>& k) {
  check_mlp(net, k.size(), "mlp_preactivations");
  std::vector<Vector<S>> z;
  Vector<S> h = k;
  for (std::size_t l = 0; l < net.W.size(); ++l) {
    Vector<S> zl = matvec(net.W[l], h.data());
    if (!net.b.empty())
      for (std::size_t i = 0; i < zl.size(); ++i) zl[i] += net.b[l][i];
    z.push_back(zl);
    if (l + 1 < net.W.size()) {
      h.resize(zl.size());
      for (std::size_t i = 0; i < zl.size(); ++i) h[i] = mlp_activate(zl[i], net.act);
    }
  }
  return z;
}
// A002-THM1-DEEP-MEMORY: the memory's read-out M(k).
template <class S>
Vector<S> mlp_memory_forward(const MlpMemory<S>& net, const Vector<S>& k) {
  return mlp_preactivations(net, k).back();
}
// A002-THM1-LOWER: the features of the last hidden layer, h^(L-1)(k) (the key itself for L = 1).
template <class S>
Vector<S> mlp_last_hidden(const MlpMemory<S>& net, const Vector<S>& k) {
  const std::vector<Vector<S>> z = mlp_preactivations(net, k);
  if (z.size() == 1) return k;
  Vector<S> h = z[z.size() - 2];
  for (S& x : h) x = mlp_activate(x, net.act);
  return h;
}
// A002-THM1-SAMEREGION / A002-THM1-PROOF-MINFORM: the ReLU activation pattern of a key, one 0/1 vector per hidden
// layer (unit active iff its pre-activation is > 0; the diagonals D^(1..L-1) of App. C).
template <class S>
std::vector<std::vector<unsigned char>> relu_pattern(const MlpMemory<S>& net, const Vector<S>& k) {
  const std::vector<Vector<S>> z = mlp_preactivations(net, k);
  std::vector<std::vector<unsigned char>> p(z.size() - 1);
  for (std::size_t l = 0; l + 1 < z.size(); ++l) {
    p[l].resize(z[l].size());
    for (std::size_t i = 0; i < z[l].size(); ++i) p[l][i] = z[l][i] > 0 ? 1 : 0;
  }
  return p;
}
// A002-THM1-RANK-PROOF / A002-THM1-PROOF-MINFORM: A = W^(L) D^(L-1) W^(L-1) ... D^(1) W^(1) for given 0/1 diagonals.
template <class S>
Matrix<S> pattern_product(const std::vector<Matrix<S>>& W, const std::vector<std::vector<unsigned char>>& D) {
  require(!W.empty() && D.size() + 1 == W.size(), "pattern_product: need L weight matrices and L - 1 diagonals");
  Matrix<S> A = W[0];
  for (std::size_t l = 1; l < W.size(); ++l) {
    require(D[l - 1].size() == A.rows && W[l].cols == A.rows, "pattern_product: D^(" + std::to_string(l) + ") or W^(" + std::to_string(l + 1) + ") has the wrong size");
    for (std::size_t i = 0; i < A.rows; ++i)
      if (!D[l - 1][i])
        for (std::size_t j = 0; j < A.cols; ++j) A(i, j) = S(0);
    A = matmul(W[l], A);
  }
  return A;
}

// ---- Theorem 1 width expressions (exact integers) -------------------------------------------------------------
// widths w = (d^(0) = d_k, d^(1), ..., d^(L) = d_v); out-of-range d^(L+1) := 1 (test-bed convention A-20).
inline void check_widths(const std::vector<std::size_t>& w, const char* who) {
  require(w.size() >= 2, std::string(who) + ": need widths d^(0..L) with L >= 1");
  for (std::size_t i = 0; i < w.size(); ++i) require(w[i] >= 1, std::string(who) + ": width d^(" + std::to_string(i) + ") must be >= 1");
}
inline BigInt width_at(const std::vector<std::size_t>& w, std::size_t j) { return j < w.size() ? BigInt(w[j]) : BigInt(1); }
// index attaining min_{i <= j <= L} d^(j) (largest such j on ties)
inline std::size_t argmin_tail(const std::vector<std::size_t>& w, std::size_t i) {
  std::size_t best = i;
  for (std::size_t j = i; j < w.size(); ++j)
    if (w[j] <= w[best]) best = j;
  return best;
}
// A002-THM1-UPPER: U0 = d_k d_v sum_{i=1}^{L} min_{j>=i} d^(j) * d^(j*+1), j* the (largest) index attaining the min.
inline BigInt thm1_u0(const std::vector<std::size_t>& w) {
  check_widths(w, "thm1_u0");
  const std::size_t L = w.size() - 1;
  BigInt s = 0;
  for (std::size_t i = 1; i <= L; ++i) {
    const std::size_t j = argmin_tail(w, i);
    s += BigInt(w[j]) * width_at(w, j + 1);
  }
  return BigInt(w.front()) * BigInt(w.back()) * s;
}
// A002-THM1-RANK-PROOF: U1 = sum_{i=1}^{L} (min_{j>=i} d^(j)) d^(i).
inline BigInt thm1_u1(const std::vector<std::size_t>& w) {
  check_widths(w, "thm1_u1");
  const std::size_t L = w.size() - 1;
  BigInt s = 0;
  for (std::size_t i = 1; i <= L; ++i) s += BigInt(w[argmin_tail(w, i)]) * BigInt(w[i]);
  return s;
}
// A002-THM1-RANK-PROOF-B: U2 = d_k d_v sum_{i=1}^{L} (min_{j>=i} d^(j)) d^(i+1).
inline BigInt thm1_u2(const std::vector<std::size_t>& w) {
  check_widths(w, "thm1_u2");
  const std::size_t L = w.size() - 1;
  BigInt s = 0;
  for (std::size_t i = 1; i <= L; ++i) s += BigInt(w[argmin_tail(w, i)]) * width_at(w, i + 1);
  return BigInt(w.front()) * BigInt(w.back()) * s;
}

}  // namespace recall::ref::capacity
