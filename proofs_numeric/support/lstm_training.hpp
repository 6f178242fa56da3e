// LSTM experiments of paper A004 (a004_memory_and_forgetting/lstm.cpp): random cells, the state
// accumulation protocol of A004-LSTM-ACCUM, and the training experiment of A004-LSTM-FSA (8 cells and a
// sigmoid read-out predicting the set of legal next symbols of the continual embedded Reber grammar,
// binary cross-entropy, truncated BPTT, Adam). The forward pass is the reference cell
// (ref::lstm_step, reference/lstm.hpp); the backward pass is written here and checked against central
// differences of the reference forward (gradient_check, part of A004-LSTM-CELL).
#pragma once

#include "claim_support.hpp"
#include "t_interval.hpp"

#include "recall/reference/lstm.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace recall::claim_support::lstm {
namespace {

using P = ref::LstmParams<double>;
constexpr std::size_t kSymbols = 7;

// weights i.i.d. N(0, sd^2), biases 0
P random_params(Rng& g, std::size_t din, std::size_t h, double sd) {
  P p;
  for (int q = 0; q < 4; ++q) {
    p.W[q] = gauss(g, h, din, sd);
    p.U[q] = gauss(g, h, h, sd);
    p.b[q].assign(h, 0.0);
  }
  return p;
}
// each row of X replaced by a one-hot row (uniform index)
void one_hot_rows(Rng& g, DM& X) {
  std::uniform_int_distribution<std::size_t> U(0, X.cols - 1);
  for (std::size_t t = 0; t < X.rows; ++t) {
    const std::size_t k = U(g);
    for (std::size_t c = 0; c < X.cols; ++c) X(t, c) = c == k ? 1.0 : 0.0;
  }
}
ref::ReberStream reber(Rng& g, std::size_t n) {
  std::bernoulli_distribution coin(0.5);
  return ref::continual_embedded_reber(n, [&] { return coin(g) ? 1 : 0; });
}

// ---- A004-LSTM-ACCUM ----
struct AccumStats {
  std::vector<double> t, rms_mean, max_abs, saturated;  // per checkpoint: mean over seeds of RMS|c|, max over seeds of max|c|, mean saturated fraction
  double exponent = 0, exponent_lo = 0, exponent_hi = 0;  // mean over seeds of the R-SCALE slope, 95% t interval
  std::string exponent_str() const { return fmt(exponent, 4) + " [" + fmt(exponent_lo, 4) + ", " + fmt(exponent_hi, 4) + "]"; }
  std::string summary() const {
    std::string s = "exponent " + exponent_str() + "; RMS|c_t|:";
    for (std::size_t i = 0; i < t.size(); ++i) s += " t=" + fmt(t[i], 6) + ": " + fmt(rms_mean[i], 4);
    s += "; max|c| at T " + fmt(max_abs.back(), 4) + "; saturated units at T " + fmt(saturated.back(), 3);
    return s;
  }
};

AccumStats accumulate(std::uint64_t seed, bool iid, std::size_t h, bool forget, double bf, std::size_t T, int seeds) {
  AccumStats st;
  for (std::size_t t = 10; t <= T; t *= 10) st.t.push_back(static_cast<double>(t));
  const std::size_t K = st.t.size();
  st.rms_mean.assign(K, 0);
  st.max_abs.assign(K, 0);
  st.saturated.assign(K, 0);
  std::vector<double> slopes;
  for (int sd = 0; sd < seeds; ++sd) {
    Rng g(mix(seed, static_cast<std::uint64_t>(sd)));
    P p = random_params(g, kSymbols, h, 1.0 / std::sqrt(static_cast<double>(kSymbols + h)));
    p.b[1].assign(h, bf);
    std::vector<int> sym;
    if (iid) {
      std::uniform_int_distribution<int> U(0, kSymbols - 1);
      for (std::size_t t = 0; t < T; ++t) sym.push_back(U(g));
    } else {
      sym = reber(g, T).symbols;
    }
    ref::LstmState<double> s{std::vector<double>(h, 0.0), std::vector<double>(h, 0.0)};
    std::vector<double> x(kSymbols, 0.0), rms;
    std::size_t k = 0;
    for (std::size_t t = 1; t <= T; ++t) {
      std::fill(x.begin(), x.end(), 0.0);
      x[static_cast<std::size_t>(sym[t - 1])] = 1.0;
      s = ref::lstm_step(p, s, x.data(), forget);
      if (k < K && t == static_cast<std::size_t>(st.t[k])) {
        double ss = 0, mx = 0, sat = 0;
        for (double c : s.c) ss += c * c, mx = std::max(mx, std::abs(c)), sat += std::abs(std::tanh(c)) > 0.99;
        rms.push_back(std::sqrt(ss / static_cast<double>(h)));
        st.rms_mean[k] += rms.back() / seeds;
        st.max_abs[k] = std::max(st.max_abs[k], mx);
        st.saturated[k] += sat / static_cast<double>(h) / seeds;
        ++k;
      }
    }
    slopes.push_back(loglog_fit(st.t, rms).slope);
  }
  const Ci ci = mean_t_ci(slopes);
  st.exponent = ci.mean;
  st.exponent_lo = ci.lo;
  st.exponent_hi = ci.hi;
  return st;
}

// ---- the network of A004-LSTM-FSA: the cell and a sigmoid read-out y = sigm(W_y h + b_y) ----
struct Net {
  P cell;
  DM Wy;                  // 7 x h
  std::vector<double> by;  // 7
};
Net zero_like(const Net& n) {
  Net z = n;
  for (int q = 0; q < 4; ++q) {
    std::fill(z.cell.W[q].a.begin(), z.cell.W[q].a.end(), 0.0);
    std::fill(z.cell.U[q].a.begin(), z.cell.U[q].a.end(), 0.0);
    std::fill(z.cell.b[q].begin(), z.cell.b[q].end(), 0.0);
  }
  std::fill(z.Wy.a.begin(), z.Wy.a.end(), 0.0);
  std::fill(z.by.begin(), z.by.end(), 0.0);
  return z;
}
// every parameter of a and the matching one of b, in a fixed order
template <class F> void for_each_pair(Net& a, Net& b, F&& f) {
  for (int q = 0; q < 4; ++q) {
    for (std::size_t i = 0; i < a.cell.W[q].a.size(); ++i) f(a.cell.W[q].a[i], b.cell.W[q].a[i]);
    for (std::size_t i = 0; i < a.cell.U[q].a.size(); ++i) f(a.cell.U[q].a[i], b.cell.U[q].a[i]);
    for (std::size_t i = 0; i < a.cell.b[q].size(); ++i) f(a.cell.b[q][i], b.cell.b[q][i]);
  }
  for (std::size_t i = 0; i < a.Wy.a.size(); ++i) f(a.Wy.a[i], b.Wy.a[i]);
  for (std::size_t i = 0; i < a.by.size(); ++i) f(a.by[i], b.by[i]);
}

Net random_net(Rng& g, std::size_t h) {
  Net n;
  n.cell = random_params(g, kSymbols, h, 1.0 / std::sqrt(static_cast<double>(kSymbols + h)));
  n.Wy = gauss(g, kSymbols, h, 1.0 / std::sqrt(static_cast<double>(h)));
  n.by.assign(kSymbols, 0.0);
  return n;
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
std::vector<double> readout(const Net& n, const std::vector<double>& h) {
  std::vector<double> y(kSymbols);
  for (std::size_t k = 0; k < kSymbols; ++k) {
    double a = n.by[k];
    for (std::size_t j = 0; j < h.size(); ++j) a += n.Wy(k, j) * h[j];
    y[k] = sigmoid(a);
  }
  return y;
}
double bce(double y, double target) { return -(target > 0.5 ? std::log(std::max(y, 1e-300)) : std::log(std::max(1 - y, 1e-300))); }

// Loss of one window (symbols sym[from, to) with targets) from state s0 (advanced to the window's end
// state), and its gradient by backpropagation through the window when grad != nullptr.
double window_loss(const Net& n, const ref::ReberStream& str, std::size_t from, std::size_t to, bool forget, ref::LstmState<double>& s,
                   Net* grad) {
  const std::size_t H = n.cell.hidden(), L = to - from;
  std::vector<std::vector<double>> xs(L), hs(L + 1), cs(L + 1), ys(L);
  std::vector<std::array<std::vector<double>, 4>> gates(L);
  hs[0] = s.h;
  cs[0] = s.c;
  double loss = 0;
  for (std::size_t t = 0; t < L; ++t) {
    xs[t].assign(kSymbols, 0.0);
    xs[t][static_cast<std::size_t>(str.symbols[from + t])] = 1.0;
    s = ref::lstm_step(n.cell, s, xs[t].data(), forget, &gates[t]);
    hs[t + 1] = s.h;
    cs[t + 1] = s.c;
    ys[t] = readout(n, s.h);
    for (std::size_t k = 0; k < kSymbols; ++k) loss += bce(ys[t][k], (str.legal_next[from + t] >> k) & 1u);
  }
  if (!grad) return loss;
  std::vector<double> dh_next(H, 0.0), dc_next(H, 0.0);
  for (std::size_t t = L; t-- > 0;) {
    std::vector<double> dh = dh_next, dc = dc_next;
    for (std::size_t k = 0; k < kSymbols; ++k) {
      const double dz = ys[t][k] - static_cast<double>((str.legal_next[from + t] >> k) & 1u);
      grad->by[k] += dz;
      for (std::size_t j = 0; j < H; ++j) {
        grad->Wy(k, j) += dz * hs[t + 1][j];
        dh[j] += n.Wy(k, j) * dz;
      }
    }
    const auto& [gi, gf, go, gg] = gates[t];
    std::array<std::vector<double>, 4> da;
    for (auto& v : da) v.assign(H, 0.0);
    for (std::size_t r = 0; r < H; ++r) {
      const double tc = std::tanh(cs[t + 1][r]);
      const double d_o = dh[r] * tc;
      dc[r] += dh[r] * go[r] * (1 - tc * tc);
      da[0][r] = dc[r] * gg[r] * gi[r] * (1 - gi[r]);
      if (forget) da[1][r] = dc[r] * cs[t][r] * gf[r] * (1 - gf[r]);
      da[2][r] = d_o * go[r] * (1 - go[r]);
      da[3][r] = dc[r] * gi[r] * (1 - gg[r] * gg[r]);
      dc_next[r] = dc[r] * gf[r];
    }
    std::fill(dh_next.begin(), dh_next.end(), 0.0);
    for (int q = 0; q < 4; ++q) {
      if (q == 1 && !forget) continue;
      for (std::size_t r = 0; r < H; ++r) {
        grad->cell.b[q][r] += da[q][r];
        for (std::size_t j = 0; j < kSymbols; ++j) grad->cell.W[q](r, j) += da[q][r] * xs[t][j];
        for (std::size_t j = 0; j < H; ++j) {
          grad->cell.U[q](r, j) += da[q][r] * hs[t][j];
          dh_next[j] += n.cell.U[q](r, j) * da[q][r];
        }
      }
    }
  }
  return loss;
}

struct GradCheck {
  double worst = 0;
  std::string where, sizes;
};
// BPTT against central differences (step 1e-5 relative) of the reference forward, on every parameter
// of `nets` small networks per variant (h = 3, a 12-symbol window from a nonzero state).
GradCheck gradient_check(std::uint64_t seed, int nets) {
  GradCheck gc;
  gc.sizes = std::to_string(nets) + " networks per variant, hidden 3, window 12";
  for (int forget = 0; forget < 2; ++forget)
    for (int k = 0; k < nets; ++k) {
      Rng g(mix(seed, static_cast<std::uint64_t>(forget * 1000 + k)));
      Net n = random_net(g, 3);
      for (int q = 0; q < 4; ++q)
        for (double& b : n.cell.b[q]) b = 0.5 * std::normal_distribution<double>(0, 1)(g);
      const ref::ReberStream str = reber(g, 30);
      ref::LstmState<double> s0{std::vector<double>(3, 0.0), std::vector<double>(3, 0.0)};
      for (std::size_t t = 0; t < 10; ++t) window_loss(n, str, t, t + 1, forget, s0, nullptr);  // warm the state
      Net grad = zero_like(n);
      ref::LstmState<double> s = s0;
      window_loss(n, str, 10, 22, forget, s, &grad);
      int idx = 0;
      Net probe = n;
      for_each_pair(probe, grad, [&](double& w, double gval) {
        ++idx;
        const double w0 = w, hstep = 1e-5 * std::max(1.0, std::abs(w0));
        ref::LstmState<double> sa = s0, sb = s0;
        w = w0 + hstep;
        const double lp = window_loss(probe, str, 10, 22, forget, sa, nullptr);
        w = w0 - hstep;
        const double lm = window_loss(probe, str, 10, 22, forget, sb, nullptr);
        w = w0;
        const double fd = (lp - lm) / (2 * hstep);
        const double err = std::abs(fd - gval) / std::max(1.0, std::abs(fd));
        if (err > gc.worst) {
          gc.worst = err;
          gc.where = std::string(forget ? "forget gate" : "no forget gate") + ", network " + std::to_string(k + 1) + ", parameter " + std::to_string(idx) +
                     ": BPTT " + fmt(gval, 10) + " vs " + fmt(fd, 10);
        }
      });
    }
  return gc;
}

// ---- A004-LSTM-FSA ----
struct FsaRun {
  bool solved = false;
  std::size_t longest_correct_streak = 0, errors = 0;
  double final_loss = 0;
  std::string summary() const {
    return std::string(solved ? "solved" : "not solved") + ": longest correct streak " + std::to_string(longest_correct_streak) + ", " +
           std::to_string(errors) + " wrong steps in the test stream, last training window loss " + fmt(final_loss, 4);
  }
};

// Trains on `train_symbols` symbols, then runs a fresh test stream of `test_symbols` symbols from the zero
// state; solved when some `required_streak` consecutive steps are all right (the first steps after the zero
// state, which training never sees again, may be wrong: test_symbols > required_streak leaves room).
FsaRun train_on_reber(std::uint64_t seed, bool forget, double lr, std::size_t train_symbols, std::size_t test_symbols,
                      std::size_t required_streak) {
  Rng g(seed);
  Net n = random_net(g, 8);
  const std::size_t window = 50;
  const ref::ReberStream train = reber(g, train_symbols);
  Net m = zero_like(n), v = zero_like(n);
  const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
  double b1t = 1, b2t = 1;
  ref::LstmState<double> s{std::vector<double>(8, 0.0), std::vector<double>(8, 0.0)};
  FsaRun run;
  for (std::size_t from = 0; from + window <= train_symbols; from += window) {
    Net grad = zero_like(n);
    run.final_loss = window_loss(n, train, from, from + window, forget, s, &grad) / static_cast<double>(window);
    b1t *= b1;
    b2t *= b2;
    // Adam on every parameter, in for_each_pair's order over (n, grad), (m, grad), (v, grad)
    std::vector<double*> pw, pm, pv;
    std::vector<double> gv;
    for_each_pair(n, grad, [&](double& w, double gval) { pw.push_back(&w), gv.push_back(gval); });
    for_each_pair(m, grad, [&](double& w, double) { pm.push_back(&w); });
    for_each_pair(v, grad, [&](double& w, double) { pv.push_back(&w); });
    for (std::size_t i = 0; i < pw.size(); ++i) {
      *pm[i] = b1 * *pm[i] + (1 - b1) * gv[i];
      *pv[i] = b2 * *pv[i] + (1 - b2) * gv[i] * gv[i];
      *pw[i] -= lr * (*pm[i] / (1 - b1t)) / (std::sqrt(*pv[i] / (1 - b2t)) + eps);
    }
  }
  // test: a fresh continual stream from the zero state; a step is right when every thresholded output
  // equals the legal-next indicator
  const ref::ReberStream test = reber(g, test_symbols);
  ref::LstmState<double> st{std::vector<double>(8, 0.0), std::vector<double>(8, 0.0)};
  std::size_t streak = 0;
  std::vector<double> x(kSymbols);
  for (std::size_t t = 0; t < test_symbols; ++t) {
    std::fill(x.begin(), x.end(), 0.0);
    x[static_cast<std::size_t>(test.symbols[t])] = 1.0;
    st = ref::lstm_step(n.cell, st, x.data(), forget);
    const std::vector<double> y = readout(n, st.h);
    bool ok = true;
    for (std::size_t k = 0; k < kSymbols; ++k) ok = ok && ((y[k] > 0.5) == (((test.legal_next[t] >> k) & 1u) != 0));
    if (ok) {
      ++streak;
    } else {
      streak = 0;
      ++run.errors;
    }
    run.longest_correct_streak = std::max(run.longest_correct_streak, streak);
  }
  run.solved = run.longest_correct_streak >= required_streak;
  return run;
}

}  // namespace
}  // namespace recall::claim_support::lstm
