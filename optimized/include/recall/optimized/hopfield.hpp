// Fast CPU kernels (Eigen, float and double, accumulation in the storage type) of the modern Hopfield
// retrieval maps of A003 (Hu et al. 2024): dense retrieval (3.7), the sparse-structured map (3.11) in both
// readings (R: softmax renormalised over the mask; U: literal (3.11), full-softmax weights summed over the
// mask) with an explicit CSR mask, banded sliding windows (centred / causal), top-K (tie policies GE and
// EXACT), and the linear-time positive-random-feature (Performer FAVOR+) and linear (elu+1) models.
// Definitions: recall/reference/hopfield.hpp (dense_retrieval, sparse_u, sparse_r, sliding_window,
// causal_window, topk_ge, topk_exact) and recall/reference/hopfield_models.hpp (prf_retrieval,
// linear_retrieval); spec /work/shared/spec/A003-hopfield.md, "Reference <-> fast-form pairs".
// The templates are instantiated for float and double in optimized/src/hopfield.cpp. Single-threaded.
//
// Layout (spec README convention 2, tokens are rows; the users' [B, T, H, d] layout), row-major, contiguous:
//   q: [B, L, H, d]    queries (row (b, i, h) = the query x_i of head h)
//   k: [B, M, H, d]    keys xi_mu + dxi_mu (the M stored patterns as rows)
//   v: [B, M, H, dv]   values (the clean patterns xi_mu in the Hopfield setting, dv = d)
//   o: [B, L, H, dv]   outputs T(x_i)
//   per-row outputs:   [B, L, H]
// Scores are s_ij = beta <q_i, k_j> (beta > 0, finite). Natural-log partitions: LSE_S = log sum_{j in S} e^{s_ij}
// (= beta * ref::hopfield::lse(beta, a_S)); LSE_[M] is the full row. s_M = exp(LSE_M - LSE_[M]) is the softmax
// mass on the mask (spec C8), kept in log form.
//
// Numerics: every softmax is max-shifted (online over key tiles: running max, running sum, rescaled
// accumulator), so beta * spread up to 1e4 and beyond does not overflow; weights below the smallest normal
// number flush to 0 (harmless for T). Reading U is computed as T_U = exp(m_M - m_[M]) / l_[M] * sum_{j in M}
// e^{s_ij - m_M} v_j with m, l the max / shifted sum of each set (= s_M T_R), the full-row (m_[M], l_[M])
// streamed over all M keys; the masked kernel takes the kept scores s_ij from that same pass (one set of
// scores: two computations of s_ij in different summation orders differ by ~u beta |q||k|, which does not
// cancel in exp(m_M - m_[M]) and cost up to 4e3 u at beta |a| ~ 1e3 before this was done).
//
// Errors: std::invalid_argument naming the kernel and the input for null pointers, sizes < 1, non-finite
// entries of q, k, v (and omega, sel), beta not finite or <= 0, block sizes < 1, mask indices out of range
// or not strictly increasing within a row, K outside [1, M], w < 1, M != L for windows, and for a score
// beta q.k that overflows in the storage type. Indices in messages are 1-based.
#pragma once

#include <cstdint>

namespace recall::opt::hopfield {

// Readings of (3.11): R = softmax over the mask (masked attention); U = literal (3.11), weights of the full
// softmax over all M keys restricted to the mask (they sum to s_M <= 1).
enum class Reading : int { R = 0, U = 1 };
// Top-K tie policies: GE (as printed (3.13)): keep every j with sigma_j >= sigma*, the K-th largest (with
// multiplicity), so k >= K; EXACT: order by (sigma descending, index ascending), keep the first K.
enum class TiePolicy : int { GE = 0, EXACT = 1 };

template <class T> struct RetrievalArgs {
  int B = 1, H = 1;       // batch, heads
  int L = 0, M = 0;       // queries per batch, stored patterns (keys) per batch; windows need M == L
  int d = 0, dv = 0;      // key / query width, value width
  const T* q = nullptr;   // [B, L, H, d]
  const T* k = nullptr;   // [B, M, H, d]
  const T* v = nullptr;   // [B, M, H, dv]
  T* o = nullptr;         // [B, L, H, dv]   (required)
  double beta = 1;        // logit scale (inverse temperature), scores beta q.k; finite, > 0
  // Optional per-row outputs [B, L, H] (nullptr = not wanted):
  T* lse = nullptr;       // LSE_[M], log-sum-exp of the scores over all M keys (every kernel of the softmax
                          // family; for reading R of the masked kernels it costs one extra score pass over M)
  T* lse_mask = nullptr;  // LSE_M over the row's kept set (masked / window / top-K; dense: = LSE_[M]);
                          // -inf for an empty row
  T* log_mass = nullptr;  // log s_M = LSE_M - LSE_[M] <= 0 (masked / window / top-K; dense: 0; costs the full
                          // pass for reading R); -inf for an empty row
  int block_q = 64;       // query rows per tile
  int block_k = 256;      // keys per tile (online softmax over tiles of M)
};

// ---- (1) dense retrieval (3.7): o_i = sum_j softmax_j(beta q_i.k_j) v_j over all M keys -------------------
// Tiled online softmax, GEMM tiles S = Q_blk K_tile^T (block_q x block_k), O += P V_tile.
// FLOPs: 2 B H L M (d + dv) (+ B H L M exps). Writes lse; lse_mask = lse and log_mass = 0 when requested.
template <class T> void dense_retrieval(const RetrievalArgs<T>& a);

// ---- (2) masked retrieval with an explicit CSR mask, one mask row per (batch, query row), shared by heads --
// Row r = b * L + i keeps the keys col[row_ptr[r] .. row_ptr[r+1]-1] (0-based, strictly increasing, < M).
// Reading R: softmax over the kept keys (SDDMM on the non-zeros, sparse row softmax, SpMM).
// Reading U: literal (3.11), the kept weights normalised by the full row (LSE_[M] streamed over all M keys).
// Empty rows (spec C13): o = 0, lse_mask = log_mass = -inf, empty_flag[r] = 1 (0 for the other rows) when
// empty_flag is given. Reading U: an empty row is valid (T_U = 0). Reading R: an empty row is undefined; with
// empty_flag given it is flagged and zeroed, without it the kernel throws std::invalid_argument listing the
// empty rows (1-based (b, i)) before computing anything. Never NaN.
// Returns the number of empty rows. FLOPs: 2 H nnz (d + dv) (+ 2 B H L M d for the full-row pass of U).
struct CsrMask {
  const std::int64_t* row_ptr = nullptr;  // [B*L + 1], row_ptr[0] = 0, non-decreasing
  const std::int64_t* col = nullptr;      // [row_ptr[B*L]] key indices
  unsigned char* empty_flag = nullptr;    // optional [B*L] output: 1 = empty row
};
template <class T> std::int64_t masked_retrieval(const RetrievalArgs<T>& a, const CsrMask& mask, Reading reading);

// ---- (3) windowed retrieval, self-attention layout (M == L; k and v are [B, L, H, .]) ----------------------
// Centred (ref::hopfield::sliding_window): row i keeps i - floor((w-1)/2) <= j <= i + floor(w/2), truncated at
// the ends, or with shift = true slid inward so that every row keeps min(w, L) keys.
// Causal (ref::hopfield::causal_window): row i keeps max(0, i-w+1) <= j <= i (shift must be false).
// w > L is allowed (truncation). Rows are never empty. Banded kernel: per query block only the key band it
// touches, online softmax over key tiles of the band (per-row interval masks on the edge tiles):
// O(L (w + block) (d + dv)) per head (reading R). Reading U runs masked_retrieval on the window's CSR mask (it
// needs the full-row pass over all L keys, O(L^2 d), and the kept scores taken from that pass).
// The effective query block is min(block_q, max(16, w)).
struct WindowSpec {
  std::int64_t w = 1;   // window size >= 1
  bool causal = false;  // causal window instead of the centred one
  bool shift = false;   // centred only: slide boundary windows inward (every row keeps min(w, L) keys)
};
template <class T> void window_retrieval(const RetrievalArgs<T>& a, const WindowSpec& win, Reading reading);

// ---- (4) top-K retrieval (3.12)/(3.13), mask per (batch, query row, head) -----------------------------------
// Selection scores sigma_j = <q_i, sel_j> with sel the selection memories (the clean patterns; nullptr = the
// keys), computed by GEMM tiles; sigma* = the K-th largest (a size-K min-heap scan when K <= M/16, else
// nth_element; exact comparisons in T); kept set by the tie policy; then softmax of the key scores beta q.k
// over the kept set (R) or with the full-row normaliser LSE_[M] (U). kept: optional [B, L, H] output, the
// size k of each kept set (k = K for EXACT).
// FLOPs: 2 B H L M d (selection) (+ 2 B H L M d key scores when sel is given and U / lse / log_mass need
// LSE_[M]) + 2 B H L k (d + dv) for the kept set.
template <class T> struct TopKSpec {
  std::int64_t K = 1;                 // in [1, M]
  TiePolicy tie = TiePolicy::GE;
  const T* sel = nullptr;             // optional [B, M, H, d] selection memories; nullptr = the keys
  std::int64_t* kept = nullptr;       // optional [B, L, H] output: |kept set|
};
template <class T> void topk_retrieval(const RetrievalArgs<T>& a, const TopKSpec<T>& spec, Reading reading);

// ---- (5) positive-random-feature (Performer FAVOR+) retrieval, A003-PRF -------------------------------------
// Phi(x) = e^{-beta |x|^2 / 2} / sqrt(D) [e^{sqrt(beta) w_i.x}]_{i < n_f}  (hyperbolic: D = 2 n_f features
// [e^{+sqrt(beta) w_i.x}, e^{-sqrt(beta) w_i.x}], the + block first; else D = n_f), w_i the rows of omega_h.
// o_i = S^T Phi(q_i) / (z . Phi(q_i)), S = sum_mu Phi(k_mu) v_mu^T (D x dv), z = sum_mu Phi(k_mu):
// ref::hopfield::prf_retrieval for a fixed draw. Stabilisers: log-features are shifted by one constant for all
// keys of a (b, h) (running maximum over key tiles, state rescaled when it grows) and by a per-query constant;
// both cancel in the ratio. A row whose denominator is too small for the shifted form to be accurate
// (< M D min_normal / eps) is recomputed exactly in the log domain (O(M D) for that row).
// lse, lse_mask, log_mass must be null. FLOPs: 2 B H (M + L) d D (features) + 2 B H (M + L) D dv.
template <class T> struct PrfSpec {
  int n_f = 0;                // number of random projections (>= 1)
  const T* omega = nullptr;   // [H, n_f, d], one draw per head (use the same rows for every head to share it)
  bool hyperbolic = false;
};
template <class T> void prf_retrieval(const RetrievalArgs<T>& a, const PrfSpec<T>& spec);

// ---- (6) linear (elu+1) retrieval, A003-LINEAR (Prop. C.1) --------------------------------------------------
// phi(x) = elu(x) + 1 element-wise (x + 1 for x > 0, e^x otherwise; phi(sqrt(beta) x) with beta_scaling),
// o_i = S^T phi(q_i) / (z . phi(q_i)), S = sum_mu c_mu phi(k_mu) v_mu^T (d x dv), z = sum_mu c_mu phi(k_mu),
// c_mu = 1 (default reading) or 1 / h(k_mu), h(y) = sum_nu <phi(y), phi(k_nu)> (literal_C2, as
// ref::hopfield::LinearFlags). Same stabilisers and exact fallback as the PRF kernel. beta is used only with
// beta_scaling (it is still checked). lse, lse_mask, log_mass must be null.
// FLOPs: 2 B H (M + L) d dv (+ 2 B H M d for literal_C2).
struct LinearSpec {
  bool beta_scaling = false;
  bool literal_C2 = false;
};
template <class T> void linear_retrieval(const RetrievalArgs<T>& a, const LinearSpec& spec);

}  // namespace recall::opt::hopfield

namespace recall::opt::hopfield {
extern template void dense_retrieval<float>(const RetrievalArgs<float>&);
extern template void dense_retrieval<double>(const RetrievalArgs<double>&);
extern template std::int64_t masked_retrieval<float>(const RetrievalArgs<float>&, const CsrMask&, Reading);
extern template std::int64_t masked_retrieval<double>(const RetrievalArgs<double>&, const CsrMask&, Reading);
extern template void window_retrieval<float>(const RetrievalArgs<float>&, const WindowSpec&, Reading);
extern template void window_retrieval<double>(const RetrievalArgs<double>&, const WindowSpec&, Reading);
extern template void topk_retrieval<float>(const RetrievalArgs<float>&, const TopKSpec<float>&, Reading);
extern template void topk_retrieval<double>(const RetrievalArgs<double>&, const TopKSpec<double>&, Reading);
extern template void prf_retrieval<float>(const RetrievalArgs<float>&, const PrfSpec<float>&);
extern template void prf_retrieval<double>(const RetrievalArgs<double>&, const PrfSpec<double>&);
extern template void linear_retrieval<float>(const RetrievalArgs<float>&, const LinearSpec&);
extern template void linear_retrieval<double>(const RetrievalArgs<double>&, const LinearSpec&);
}  // namespace recall::opt::hopfield
