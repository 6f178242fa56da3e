// The registry's ops of the test-time-regression layers (A001 §4): the (weighted) least-squares memory
// as a causal layer and local linear ("p = 1") attention. Oracle and baseline are the same
// scalar-generic references (reference/) at mp_t and at float/double; instantiated here, once.
#include "recall/properties/ops.hpp"

#include "input_checks.hpp"
#include "op_support.hpp"
#include "recall/reference/regression_layers.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <type_traits>

namespace recall {
namespace {

using namespace op_support;
using ref::Matrix;
using ref::Vector;


template <class S, class Out> std::map<std::string, Out> eval_ls(const TensorMap& in, const std::string& op, bool gated) {
  const Dims d = dims_of(in, op);
  std::map<std::string, Out> out;
  out["o"] = make_out<Out>({d.B, d.H, d.T, d.dv});
  out["s_final"] = make_out<Out>({d.B, d.H, d.dv, d.dk});
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h) {
      auto [Q, K, V] = slice_qkv<S>(in, op, d, b, h);
      Vector<S> G;
      if (gated) G = slice_vec<S>(get(in, "log_gate", op), b, h, d.T);
      const auto r = ref::least_squares_attention(Q, K, V, gated ? &G : nullptr);
      put(out["o"], b, h, r.O.a);
      put(out["s_final"], b, h, r.state.a);
    }
  return out;
}

// The regression layers are defined for keys in general position (every prefix of at most d_k keys
// linearly independent; for local linear, at most 1 + d_k keys affinely independent): their (pseudo-)inverse
// solutions jump where the rank changes, and no finite-precision kernel follows a rank decided by exact
// ties. Integer keys (repeated rows, lattice dependencies) are therefore drawn Gaussian for these ops;
// near-parallel, correlated, tiny and scaled keys stay (ill-conditioned, not singular).
KeyKind general_position(KeyKind k) { return k == KeyKind::integer ? KeyKind::gaussian : k; }

// Keys and queries of the key kind scaled by 10^scale_exp (the LS read-out is invariant to a common
// scale of keys and queries; the scale tests the kernels' handling of it), Gaussian values, gates of
// the gate kind (zero gates: resets of the regression); initial_state is meaningless here.
TensorMap gen_ls(const CaseKnobs& k0, Precision p, bool gated) {
  CaseKnobs k = k0;
  k.keys = general_position(k.keys);
  CaseRng rng(k.seed);
  std::vector<double> q, kk, v, g;
  for (int bh = 0; bh < k.B * k.H; ++bh) {
    auto qi = rng.rows(k.keys, k.T, k.dk, k.scale_exp);
    auto ki = rng.rows(k.keys, k.T, k.dk, k.scale_exp);
    auto vi = rng.rows(KeyKind::gaussian, k.T, k.dv, 0);
    q.insert(q.end(), qi.begin(), qi.end());
    kk.insert(kk.end(), ki.begin(), ki.end());
    v.insert(v.end(), vi.begin(), vi.end());
    if (gated) {
      auto gi = rng.log_gates(k.gates, k.T);
      g.insert(g.end(), gi.begin(), gi.end());
    }
  }
  TensorMap m;
  m["q"] = tensor({k.B, k.H, k.T, k.dk}, q);
  m["k"] = tensor({k.B, k.H, k.T, k.dk}, kk);
  m["v"] = tensor({k.B, k.H, k.T, k.dv}, v);
  if (gated) m["log_gate"] = tensor({k.B, k.H, k.T}, g);
  round_to(m, p);
  return m;
}

// Order and condition of the least-squares systems: the largest cond_2(S_t) over the overdetermined
// prefixes (cond(K_t)^2: the Gram is what the fast forms solve), from the eigenvalues of S_t in double.
std::pair<double, double> ls_condition(const TensorMap& in, const std::string& op, bool gated) {
  const Dims d = dims_of(in, op);
  double kappa = 1;
  const Eigen::Index dk = d.dk;
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h) {
      auto [Q, K, V] = slice_qkv<double>(in, op, d, b, h);
      Vector<double> G;
      if (gated) G = slice_vec<double>(get(in, "log_gate", op), b, h, d.T);
      Eigen::MatrixXd S = Eigen::MatrixXd::Zero(dk, dk);
      std::vector<std::size_t> idx;  // non-zero keys since the last zero gate (the reference's K_n)
      for (std::size_t t = 0; t < static_cast<std::size_t>(d.T); ++t) {
        const double a = gated ? std::exp(G[t]) : 1.0;
        if (a == 0) idx.clear();
        bool nz = false;
        for (std::int64_t j = 0; j < d.dk; ++j) nz |= K(t, j) != 0;
        if (nz) idx.push_back(t);
        S *= a;
        const Eigen::Map<const Eigen::VectorXd> kt(K.row(t), dk);
        S.noalias() += kt * kt.transpose();
        if (idx.size() < static_cast<std::size_t>(dk)) continue;
        const Eigen::VectorXd ev = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(S, Eigen::EigenvaluesOnly).eigenvalues();
        kappa = std::max(kappa, ev(0) > 0 ? ev(dk - 1) / ev(0) : INFINITY);
      }
    }
  return {kappa, static_cast<double>(d.dk)};
}

// The budget's model of what a fast kernel of these ops rounds (OpSpec::perturbed): every fast form
// solves normal equations — the moments S_t = sum w k k^T, R_t = sum w v k^T (or, underdetermined, the Gram
// K_n K_n^T and K_n q) accumulated in the accumulation precision — whose errors the exact problem's input
// sensitivity does not show (an LS solution has condition cond(K), the normal equations cond(K)^2). The
// model evaluates the printed closed form in double with each moment element, at every t, multiplied by
// (1 + delta_a xi) (symmetric matrices symmetrically), and q, k, v by (1 + delta_s xi) as the inputs.
using EM = Eigen::MatrixXd;
using EV = Eigen::VectorXd;
void perturb_sym(EM& A, PerturbFactors& f) {
  for (Eigen::Index i = 0; i < A.rows(); ++i)
    for (Eigen::Index j = 0; j <= i; ++j) {
      A(i, j) *= f();
      A(j, i) = A(i, j);
    }
}
void perturb_all(EM& A, PerturbFactors& f) {
  for (Eigen::Index i = 0; i < A.size(); ++i) A.data()[i] *= f();
}
TensorMap ls_perturbed(const TensorMap& in0, const std::string& op, bool gated, double delta_s, double delta_a, std::uint64_t seed) {
  TensorMap in = in0;
  PerturbFactors fs(delta_s, seed), fa(delta_a, seed ^ 0xa5a5a5a5ULL);
  for (const char* n : {"q", "k", "v"})
    for (double& x : in.at(n).data) x *= fs();
  const Dims d = dims_of(in, op);
  TensorMap out;
  out["o"] = make_out<Tensor>({d.B, d.H, d.T, d.dv});
  out["s_final"] = make_out<Tensor>({d.B, d.H, d.dv, d.dk});
  const Eigen::Index dk = d.dk, dv = d.dv;
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h) {
      auto [Q, K, V] = slice_qkv<double>(in, op, d, b, h);
      Vector<double> G;
      if (gated) G = slice_vec<double>(get(in, "log_gate", op), b, h, d.T);
      EM S = EM::Zero(dk, dk), R = EM::Zero(dv, dk), M;
      std::vector<double> o(d.T * dv);
      std::vector<std::size_t> idx;  // non-zero keys since the last zero gate (the reference's K_n)
      for (std::size_t t = 0; t < static_cast<std::size_t>(d.T); ++t) {
        const double a = gated ? std::exp(G[t]) : 1.0;
        if (a == 0) idx.clear();
        bool nz = false;
        for (std::int64_t j = 0; j < d.dk; ++j) nz |= K(t, j) != 0;
        if (nz) idx.push_back(t);
        S *= a;
        R *= a;
        const Eigen::Map<const EV> kt(K.row(t), dk), vt(V.row(t), dv), qt(Q.row(t), dk);
        S.noalias() += kt * kt.transpose();
        R.noalias() += vt * kt.transpose();
        const std::size_t n = idx.size();
        EV y;
        if (n >= static_cast<std::size_t>(dk)) {
          EM Sp = S, Rp = R;
          perturb_sym(Sp, fa);
          perturb_all(Rp, fa);
          const Eigen::CompleteOrthogonalDecomposition<EM> lu(Sp);  // robust where S_t is numerically singular
          y = Rp * lu.solve(qt);
          if (t + 1 == static_cast<std::size_t>(d.T)) M = lu.solve(Rp.transpose()).transpose();
        } else if (n == 0) {  // no non-zero key yet: y = 0
          y = EV::Zero(dv);
          if (t + 1 == static_cast<std::size_t>(d.T)) M = EM::Zero(dv, dk);
        } else {
          EM Kn(n, dk), Vn(n, dv);
          for (std::size_t i = 0; i < n; ++i) {
            Kn.row(i) = Eigen::Map<const EV>(K.row(idx[i]), dk).transpose();
            Vn.row(i) = Eigen::Map<const EV>(V.row(idx[i]), dv).transpose();
          }
          EM Gm = Kn * Kn.transpose();
          EM c = Kn * qt;
          perturb_sym(Gm, fa);
          perturb_all(c, fa);
          const Eigen::CompleteOrthogonalDecomposition<EM> lu(Gm);
          y = Vn.transpose() * lu.solve(c);
          if (t + 1 == static_cast<std::size_t>(d.T)) M = Vn.transpose() * lu.solve(Kn);
        }
        for (Eigen::Index j = 0; j < dv; ++j) o[t * dv + j] = y(j);
      }
      put(out["o"], b, h, o);
      std::vector<double> m(dv * dk);
      for (Eigen::Index i = 0; i < dv; ++i)
        for (Eigen::Index j = 0; j < dk; ++j) m[i * dk + j] = M(i, j);
      put(out["s_final"], b, h, m);
    }
  return out;
}

// The budget's solve term (OpSpec::solve_magnitude): the first-order forward error of the normal equations
// the fast forms solve, propagated to every output element in units of n u (the budget multiplies by
// n u_a, n = d_k). A backward-stable solve of S z = q on moments accumulated with componentwise relative
// error <= n u has |dz| <= |S^-1| (|S^| |z|) n u with S^ = sum_i w_i |k_i||k_i|^T (Higham Thm 7.4 with the
// accumulation's own error folded into the backward error), and y = R z adds |R| |dz| + R^ |z| n u,
// R^ = sum_i w_i |v_i||k_i|^T. The underdetermined branch is the same with S -> K_n K_n^T, q -> K_n q.
// Skeel's bound, not the normwise kappa u: it grows with the real conditioning of the prefix (nearly
// dependent keys) and stays small where the keys are well spread.
TensorMap ls_solve_magnitude(const TensorMap& in, const std::string& op, bool gated) {
  const Dims d = dims_of(in, op);
  TensorMap out;
  out["o"] = make_out<Tensor>({d.B, d.H, d.T, d.dv});
  out["s_final"] = make_out<Tensor>({d.B, d.H, d.dv, d.dk});
  const Eigen::Index dk = d.dk, dv = d.dv;
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h) {
      auto [Q, K, V] = slice_qkv<double>(in, op, d, b, h);
      Vector<double> G;
      if (gated) G = slice_vec<double>(get(in, "log_gate", op), b, h, d.T);
      EM S = EM::Zero(dk, dk), R = EM::Zero(dv, dk), Sa = EM::Zero(dk, dk), Ra = EM::Zero(dv, dk);
      std::vector<double> o(d.T * dv), m(dv * dk);
      std::vector<std::size_t> idx;  // non-zero keys since the last zero gate (the reference's K_n)
      for (std::size_t t = 0; t < static_cast<std::size_t>(d.T); ++t) {
        const double a = gated ? std::exp(G[t]) : 1.0;
        if (a == 0) idx.clear();
        bool nz = false;
        for (std::int64_t j = 0; j < d.dk; ++j) nz |= K(t, j) != 0;
        if (nz) idx.push_back(t);
        S *= a;
        R *= a;
        Sa *= a;
        Ra *= a;
        const Eigen::Map<const EV> kt(K.row(t), dk), vt(V.row(t), dv), qt(Q.row(t), dk);
        S.noalias() += kt * kt.transpose();
        R.noalias() += vt * kt.transpose();
        Sa.noalias() += kt.cwiseAbs() * kt.cwiseAbs().transpose();
        Ra.noalias() += vt.cwiseAbs() * kt.cwiseAbs().transpose();
        const std::size_t n = idx.size();
        EV mag;
        if (n >= static_cast<std::size_t>(dk)) {
          const EM Si = S.completeOrthogonalDecomposition().pseudoInverse();
          const EV z = Si * qt;
          const EV dz = Si.cwiseAbs() * (Sa * z.cwiseAbs());
          mag = R.cwiseAbs() * dz + Ra * z.cwiseAbs();
          if (t + 1 == static_cast<std::size_t>(d.T)) {  // M = R S^-1, column by column of S^-1
            const EM Mz = R * Si;
            const EM dM = R.cwiseAbs() * (Si.cwiseAbs() * (Sa * Si.cwiseAbs())) + Ra * Si.cwiseAbs();
            for (Eigen::Index i = 0; i < dv; ++i)
              for (Eigen::Index j = 0; j < dk; ++j) m[i * dk + j] = std::isfinite(dM(i, j)) ? dM(i, j) : std::abs(Mz(i, j));
          }
        } else if (n == 0) {
          mag = EV::Zero(dv);
        } else {
          EM Kn(n, dk), Vn(n, dv);
          for (std::size_t i = 0; i < n; ++i) {
            Kn.row(i) = Eigen::Map<const EV>(K.row(idx[i]), dk).transpose();
            Vn.row(i) = Eigen::Map<const EV>(V.row(idx[i]), dv).transpose();
          }
          const EM Gm = Kn * Kn.transpose(), Ga = Kn.cwiseAbs() * Kn.cwiseAbs().transpose();
          const EM Gi = Gm.completeOrthogonalDecomposition().pseudoInverse();
          const EV c = Kn * qt, ca = Kn.cwiseAbs() * qt.cwiseAbs();
          const EV w = Gi * c;
          const EV dw = Gi.cwiseAbs() * (Ga * w.cwiseAbs() + ca);
          mag = Vn.cwiseAbs().transpose() * dw;
          if (t + 1 == static_cast<std::size_t>(d.T)) {
            const EM dW = Gi.cwiseAbs() * (Ga * (Gi * Kn).cwiseAbs() + Kn.cwiseAbs());
            const EM dM = Vn.cwiseAbs().transpose() * dW;
            for (Eigen::Index i = 0; i < dv; ++i)
              for (Eigen::Index j = 0; j < dk; ++j) m[i * dk + j] = dM(i, j);
          }
        }
        for (Eigen::Index j = 0; j < dv; ++j) o[t * dv + j] = std::isfinite(mag(j)) ? mag(j) : 0.0;
      }
      put(out["o"], b, h, o);
      put(out["s_final"], b, h, m);
    }
  return out;
}

// OpSpec::judged_domain of the least-squares ops: every system the layer solves — S^G_t where n_t >= d_k,
// K_n K_n^T where n_t < d_k — must have cond_2 * u_a <= 1e-2 in the kernel's accumulation precision. Beyond
// that the solution's rank is decided by rounding (stacked tiny gates, exactly or nearly dependent keys
// after storage rounding), and no kernel of that precision returns a meaningful answer to judge.
constexpr double kJudgedCondTimesU = 1e-2;
std::string ls_judged_domain(const TensorMap& in, Precision p, const std::string& op, bool gated) {
  const Dims d = dims_of(in, op);
  const double ua = unit_roundoff(accumulation(p));
  const Eigen::Index dk = d.dk;
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h) {
      auto [Q, K, V] = slice_qkv<double>(in, op, d, b, h);
      Vector<double> G;
      if (gated) G = slice_vec<double>(get(in, "log_gate", op), b, h, d.T);
      EM S = EM::Zero(dk, dk);
      std::vector<std::size_t> idx;
      for (std::size_t t = 0; t < static_cast<std::size_t>(d.T); ++t) {
        const double a = gated ? std::exp(G[t]) : 1.0;
        if (a == 0) idx.clear();
        S *= a;
        const Eigen::Map<const EV> kt(K.row(t), dk);
        S.noalias() += kt * kt.transpose();
        if (!kt.isZero(0)) idx.push_back(t);
        const std::size_t n = idx.size();
        if (n == 0) continue;
        EM A;
        if (n >= static_cast<std::size_t>(dk)) {
          A = S;
        } else {
          EM Kn(n, dk);
          for (std::size_t i = 0; i < n; ++i) Kn.row(i) = Eigen::Map<const EV>(K.row(idx[i]), dk).transpose();
          A = Kn * Kn.transpose();
        }
        const EV ev = Eigen::SelfAdjointEigenSolver<EM>(A, Eigen::EigenvaluesOnly).eigenvalues();
        const double cond = ev(0) > 0 ? ev(ev.size() - 1) / ev(0) : INFINITY;
        if (!(cond * ua <= kJudgedCondTimesU)) {
          std::ostringstream w;
          w << "the least-squares system at t = " << t + 1 << " (head " << b * d.H + h + 1 << ") has condition " << cond
            << ", beyond 1e-2 / u of " << precision_name(accumulation(p));
          return w.str();
        }
      }
    }
  return {};
}

template <class S, class Out> std::map<std::string, Out> eval_local_linear(const TensorMap& in) {
  const std::string op = "local_linear_attention";
  const Dims d = dims_of(in, op);
  // an explicit scale as given (exact after round_to); 0: the reference's default 1/sqrt(D_k), computed in S
  const double s = in.count("scale") ? in.at("scale").data[0] : 0.0;
  std::map<std::string, Out> out;
  out["o"] = make_out<Out>({d.B, d.H, d.T, d.dv});
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h) {
      auto [Q, K, V] = slice_qkv<S>(in, op, d, b, h);
      const Matrix<S> O = ref::local_linear_attention_printed(Q, K, V, s);
      put(out["o"], b, h, O.a);
    }
  return out;
}
// The same model for local linear attention: Eq. (52) in double with the moments X^T W X and V^T W X
// (t > d_k), or the Gram X X^T of the minimum-norm branch (t <= d_k), perturbed by (1 + delta_a xi).
TensorMap ll_perturbed(const TensorMap& in0, double delta_s, double delta_a, std::uint64_t seed) {
  const std::string op = "local_linear_attention";
  TensorMap in = in0;
  PerturbFactors fs(delta_s, seed), fa(delta_a, seed ^ 0x5a5a5a5aULL);
  for (const char* n : {"q", "k", "v"})
    for (double& x : in.at(n).data) x *= fs();
  const Dims d = dims_of(in, op);
  const double sc = in.count("scale") ? in.at("scale").data[0] : 1.0 / std::sqrt(static_cast<double>(d.dk));
  TensorMap out;
  out["o"] = make_out<Tensor>({d.B, d.H, d.T, d.dv});
  const Eigen::Index dk = d.dk, dv = d.dv;
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h) {
      auto [Q, K, V] = slice_qkv<double>(in, op, d, b, h);
      std::vector<double> o(d.T * dv);
      for (Eigen::Index t = 0; t < d.T; ++t) {
        const Eigen::Index n = t + 1;
        const Eigen::Map<const EV> qt(Q.row(t), dk);
        EM X(n, dk + 1), Vn(n, dv);
        EV z(n);
        for (Eigen::Index i = 0; i < n; ++i) {
          const Eigen::Map<const EV> ki(K.row(i), dk);
          X(i, 0) = 1;
          X.row(i).tail(dk) = (ki - qt).transpose();
          Vn.row(i) = Eigen::Map<const EV>(V.row(i), dv).transpose();
          z(i) = sc * ki.dot(qt);
        }
        EV w = (z.array() - z.maxCoeff()).exp().matrix();
        EV y;
        if (n <= dk) {
          EM Gm = X * X.transpose();
          perturb_sym(Gm, fa);
          y = Vn.transpose() * Eigen::PartialPivLU<EM>(Gm).solve(EV::Ones(n));
        } else {
          EM Gm = X.transpose() * w.asDiagonal() * X;
          EM Bm = X.transpose() * w.asDiagonal() * Vn;
          perturb_sym(Gm, fa);
          perturb_all(Bm, fa);
          y = Eigen::PartialPivLU<EM>(Gm).solve(Bm).row(0).transpose();
        }
        for (Eigen::Index j = 0; j < dv; ++j) o[t * dv + j] = y(j);
      }
      put(out["o"], b, h, o);
    }
  return out;
}

// The solve term of local linear attention: for t > d_k the (1 + d_k) normal equations G Theta^T = B,
// G = X^T W X, B = X^T W V, solved on moments with componentwise error n u: |dTheta^T| <= |G^-1| (G^ |Theta^T|
// + B^) n u with G^ = sum w |x||x|^T, B^ = sum w |x||v|^T; y = Theta^T row 0. For t <= d_k the fast form solves
// the interpolation X Theta^T = V by a complete orthogonal decomposition of X (backward stable): no term.
TensorMap ll_solve_magnitude(const TensorMap& in) {
  const std::string op = "local_linear_attention";
  const Dims d = dims_of(in, op);
  const double sc = in.count("scale") ? in.at("scale").data[0] : 1.0 / std::sqrt(static_cast<double>(d.dk));
  TensorMap out;
  out["o"] = make_out<Tensor>({d.B, d.H, d.T, d.dv});
  const Eigen::Index dk = d.dk, dv = d.dv;
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h) {
      auto [Q, K, V] = slice_qkv<double>(in, op, d, b, h);
      std::vector<double> o(d.T * dv, 0.0);
      for (Eigen::Index t = dk; t < d.T; ++t) {
        const Eigen::Index n = t + 1;
        const Eigen::Map<const EV> qt(Q.row(t), dk);
        EM X(n, dk + 1), Vn(n, dv);
        EV z(n);
        for (Eigen::Index i = 0; i < n; ++i) {
          const Eigen::Map<const EV> ki(K.row(i), dk);
          X(i, 0) = 1;
          X.row(i).tail(dk) = (ki - qt).transpose();
          Vn.row(i) = Eigen::Map<const EV>(V.row(i), dv).transpose();
          z(i) = sc * ki.dot(qt);
        }
        const EV w = (z.array() - z.maxCoeff()).exp().matrix();
        const EM Gm = X.transpose() * w.asDiagonal() * X, Bm = X.transpose() * w.asDiagonal() * Vn;
        const EM Ga = X.cwiseAbs().transpose() * w.asDiagonal() * X.cwiseAbs(), Ba = X.cwiseAbs().transpose() * w.asDiagonal() * Vn.cwiseAbs();
        const EM Gi = Gm.completeOrthogonalDecomposition().pseudoInverse();
        const EM Th = Gi * Bm;
        const EM dTh = Gi.cwiseAbs() * (Ga * Th.cwiseAbs() + Ba);
        for (Eigen::Index j = 0; j < dv; ++j) o[t * dv + j] = std::isfinite(dTh(0, j)) ? dTh(0, j) : 0.0;
      }
      put(out["o"], b, h, o);
    }
  return out;
}

// OpSpec::judged_domain of local linear attention: the systems of every query — X (t <= d_k, solved by an
// orthogonal decomposition: cond(X)^2 counted, as for the Gram) and X^T W X (t > d_k) — within cond * u_a <= 1e-2.
std::string ll_judged_domain(const TensorMap& in, Precision p) {
  const std::string op = "local_linear_attention";
  const Dims d = dims_of(in, op);
  const double ua = unit_roundoff(accumulation(p));
  const double sc = in.count("scale") ? in.at("scale").data[0] : 1.0 / std::sqrt(static_cast<double>(d.dk));
  const Eigen::Index dk = d.dk;
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h) {
      auto [Q, K, V] = slice_qkv<double>(in, op, d, b, h);
      for (Eigen::Index t = 0; t < d.T; ++t) {
        const Eigen::Index n = t + 1;
        const Eigen::Map<const EV> qt(Q.row(t), dk);
        EM X(n, dk + 1);
        EV z(n);
        for (Eigen::Index i = 0; i < n; ++i) {
          const Eigen::Map<const EV> ki(K.row(i), dk);
          X(i, 0) = 1;
          X.row(i).tail(dk) = (ki - qt).transpose();
          z(i) = sc * ki.dot(qt);
        }
        const EV w = (z.array() - z.maxCoeff()).exp().matrix();
        const EM A = n <= dk ? EM(X * X.transpose()) : EM(X.transpose() * w.asDiagonal() * X);
        const EV ev = Eigen::SelfAdjointEigenSolver<EM>(A, Eigen::EigenvaluesOnly).eigenvalues();
        const double cond = ev(0) > 0 ? ev(ev.size() - 1) / ev(0) : INFINITY;
        if (!(cond * ua <= kJudgedCondTimesU)) {
          std::ostringstream s;
          s << "the local fit at t = " << t + 1 << " (head " << b * d.H + h + 1 << ") has condition " << cond << ", beyond 1e-2 / u of "
            << precision_name(accumulation(p));
          return s.str();
        }
      }
    }
  return {};
}

// Keys and queries: rows of the key kind scaled by 10^scale_exp, but at most 1 (logits s q.k beyond a few
// hundred leave a single key with non-zero float weight, the regime of softmax saturation, where the
// local-linear system degenerates); Gaussian values; initial_state selects an explicit scale 1.
TensorMap gen_local_linear(const CaseKnobs& k0, Precision p) {
  CaseKnobs k = k0;
  k.keys = general_position(k.keys);
  CaseRng rng(k.seed);
  std::vector<double> q, kk, v;
  const int sc = std::min(k.scale_exp, 0);
  for (int bh = 0; bh < k.B * k.H; ++bh) {
    auto qi = rng.rows(k.keys, k.T, k.dk, sc);
    auto ki = rng.rows(k.keys, k.T, k.dk, sc);
    auto vi = rng.rows(KeyKind::gaussian, k.T, k.dv, 0);
    q.insert(q.end(), qi.begin(), qi.end());
    kk.insert(kk.end(), ki.begin(), ki.end());
    v.insert(v.end(), vi.begin(), vi.end());
  }
  TensorMap m;
  m["q"] = tensor({k.B, k.H, k.T, k.dk}, q);
  m["k"] = tensor({k.B, k.H, k.T, k.dk}, kk);
  m["v"] = tensor({k.B, k.H, k.T, k.dv}, v);
  if (k.initial_state) m["scale"] = tensor({1}, {1.0});
  round_to(m, p);
  return m;
}

}  // namespace

void add_regression_ops(std::vector<OpSpec>& v) {
  for (bool gated : {false, true}) {
    OpSpec op;
    const std::string name = gated ? "weighted_least_squares_attention" : "least_squares_attention";
    op.name = name;
    op.summary = gated ? "y_t = M_t q_t, M_t = argmin sum_{i<=t} gamma_i^(t) ||v_i - M k_i||^2 (min-norm), gamma_i^(t) = prod_{j>i} gamma_j"
                       : "y_t = M_t q_t, M_t = argmin sum_{i<=t} ||v_i - M k_i||^2 (min-norm: V^T (K^+)^T)";
    op.spec_ids = gated ? std::vector<std::string>{"A001-WLS-CLOSED-FORM", "A001-F06-WLS-GATEDSCAN-SOLVE"}
                        : std::vector<std::string>{"A001-LS-CLOSED-FORM", "A001-F05-LS-PREFIXSCAN-SOLVE"};
    op.inputs = qkv_inputs({}, /*with_s0=*/false);
    if (gated) op.inputs.push_back({"log_gate", "B,H,T", false, "log of the gate gamma_t in [0,1]; -inf for a zero gate (a reset)"});
    op.outputs = {{"o", "B,H,T,dv", false, "y_t = M_t q_t"}, {"s_final", "B,H,dv,dk", false, "final memory M_T"}};
    op.gated = gated;
    op.validate = [name, gated](const TensorMap& in) { input_checks::least_squares(in, name, gated); };
    op.oracle = [name, gated](const TensorMap& in) { return eval_ls<mp_t, MpTensor>(in, name, gated); };
    op.baseline = [name, gated](const TensorMap& in, Precision p) {
      return at_precision(p, [&](auto s) { return eval_ls<decltype(s), Tensor>(in, name, gated); });
    };
    op.generate = [gated](const CaseKnobs& k, Precision p) { return gen_ls(k, p, gated); };
    op.accumulation_length = seq_length;
    op.condition = [name, gated](const TensorMap& in) { return ls_condition(in, name, gated); };
    op.perturbed = [name, gated](const TensorMap& in, double ds, double da, std::uint64_t seed) {
      return ls_perturbed(in, name, gated, ds, da, seed);
    };
    op.solve_magnitude = [name, gated](const TensorMap& in) { return ls_solve_magnitude(in, name, gated); };
    op.judged_domain = [name, gated](const TensorMap& in, Precision p) { return ls_judged_domain(in, p, name, gated); };
    add_op(v, std::move(op));
  }
  {
    OpSpec op;
    op.name = "local_linear_attention";
    op.summary = "y_t = M0 of the local linear fit argmin sum_{i<=t} exp(s q_t.k_i) ||v_i - M0 - M1 (k_i - q_t)||^2 (min-norm where singular)";
    op.spec_ids = {"A001-LOCAL-LINEAR-ATTN", "A001-F12-LOCALLINEAR-STREAM"};
    op.inputs = qkv_inputs({{"scale", "1", true, "logit scale s = 1/tau > 0 (default 1/sqrt(dk))"}}, /*with_s0=*/false);
    op.outputs = {{"o", "B,H,T,dv", false, "y_t = M0 (the local intercept at q_t)"}};
    op.validate = [](const TensorMap& in) { input_checks::local_linear(in, "local_linear_attention"); };
    op.oracle = [](const TensorMap& in) { return eval_local_linear<mp_t, MpTensor>(in); };
    op.baseline = [](const TensorMap& in, Precision p) {
      return at_precision(p, [&](auto s) { return eval_local_linear<decltype(s), Tensor>(in); });
    };
    op.generate = gen_local_linear;
    op.perturbed = ll_perturbed;
    op.solve_magnitude = ll_solve_magnitude;
    op.judged_domain = ll_judged_domain;
    op.condition = [](const TensorMap& in) { return std::pair<double, double>{0.0, static_cast<double>(in.at("q").shape[3] + 1)}; };
    op.discrimination_max_T = 128;  // the oracle: O(T^2 d^2) MP work (a weighted fit per query over all earlier keys)
    op.accumulation_length = seq_length;
    add_op(v, std::move(op));
  }
}

}  // namespace recall
