// Fast CPU kernels of the test-time-regression layers of A001 (Eigen, float and double; the templates
// are instantiated once in optimized/src/regression.cpp, this header only declares them).
//
// Layout as the linear-attention kernels: row-major contiguous, heads independent; for head (b, h)
//   q, k: [B,H,T,dk]   v, o: [B,H,T,dv]   log_gate: [B,H,T]   s_final: [B,H,dv,dk]
// The memory is canonical (README §1.1): M is d_v x d_k with read-out y_t = M_t q_t.
// Gates enter in log space: log_gate[t] = log gamma_t, -inf a zero gate (a reset), nullptr ungated.
// The kernels do not look for NaN/inf in the inputs (the caller validates); they throw
// std::invalid_argument for null required pointers and non-positive sizes.
#pragma once

namespace recall::opt {

template <class Scalar> struct RegressionArgs {
  int B = 1, H = 1, T = 0, dk = 0, dv = 0;
  const Scalar* q = nullptr;         // [B,H,T,dk]
  const Scalar* k = nullptr;         // [B,H,T,dk]
  const Scalar* v = nullptr;         // [B,H,T,dv]
  const Scalar* log_gate = nullptr;  // [B,H,T] (least squares only); nullptr = ungated
  Scalar* o = nullptr;               // [B,H,T,dv] outputs (required)
  Scalar* s_final = nullptr;         // [B,H,dv,dk] final memory M_T (least squares only); nullptr = not wanted
  int chunk = 64;                    // key block of the streaming kernel (local linear), >= 1
};

// (Weighted) least-squares memory at every t, the fast form A001-F05 / A001-F06: gated scans of the
// moments S_t = gamma_t S_{t-1} + k_t k_t^T, R_t = gamma_t R_{t-1} + v_t k_t^T, then per token
//   n_t >= d_k weighted keys:  y_t = R_t z_t with S_t z_t = q_t  (Cholesky; a complete orthogonal
//                               decomposition, i.e. the pseudo-inverse, where Cholesky breaks down),
//   n_t <  d_k:                y_t = V_n^T w with (K_n K_n^T) w = K_n q_t over the n_t keys since the last
//                               zero gate (the minimum-norm interpolant; the weights do not enter).
// Reference: recall::ref::least_squares_attention. FLOPs per head ~ T (d_k^3/3 + 2 d_k^2 + 2 d_v d_k).
template <class T> void least_squares_scan_solve(const RegressionArgs<T>& a);

// Local linear ("p = 1") attention, A001 Eq. (52), in the five-reduction streaming form A001-F12: per
// query q_t, over keys i <= t in blocks of a.chunk, logits z_i = scale q_t.k_i with a running maximum m
// (every accumulator rescaled by exp(m_old - m_new)), centred offsets d_i = k_i - q_t, accumulating
//   s0 = sum w_i, s_d = sum w_i d_i, s_v = sum w_i v_i, S_dd = sum w_i d_i d_i^T, S_vd = sum w_i v_i d_i^T,
// then Theta = [s_v S_vd] [[s0, s_d^T], [s_d, S_dd]]^{-1} (Cholesky) and y_t = Theta[:, 0]. Where the system
// is singular (t <= d_k: fewer than d_k + 1 keys) the reading A001-LOCAL-LINEAR-SINGULAR-PINV (minimum-norm
// weighted least squares) is used: with positive weights and t <= d_k keys in general position it is the
// interpolant y_t = V_t^T (X X^T)^{-1} 1, (X X^T)_{ij} = 1 + d_i.d_j; a Cholesky breakdown otherwise falls
// back to the pseudo-inverse of the moment matrix. Reference: recall::ref::local_linear_attention.
// FLOPs per head ~ T^2 (d_k^2 + d_v d_k) + T d_k^3 / 3.
template <class T> void local_linear_attention_stream(const RegressionArgs<T>& a, T scale);

extern template void least_squares_scan_solve<float>(const RegressionArgs<float>&);
extern template void least_squares_scan_solve<double>(const RegressionArgs<double>&);
extern template void local_linear_attention_stream<float>(const RegressionArgs<float>&, float);
extern template void local_linear_attention_stream<double>(const RegressionArgs<double>&, double);

}  // namespace recall::opt
