// The LSTM cell (A004-LSTM-CELL, external definition: Hochreiter & Schmidhuber 1997 in modern notation,
// the forget gate of Gers, Schmidhuber & Cummins 2000), written from the definition, templated on the
// scalar:
//   i_t, f_t, o_t = sigm(W_{i,f,o} x_t + U_{i,f,o} h_{t-1} + b_{i,f,o}),  g_t = tanh(W_g x_t + U_g h_{t-1} + b_g),
//   c_t = f_t (.) c_{t-1} + i_t (.) g_t,  h_t = o_t (.) tanh(c_t),  c_0 = h_0 = 0;
// the 1997 variant (no forget gate) has f_t = 1. And the continual embedded Reber grammar (A004-LSTM-FSA:
// "repetitive FSA grammar", Gers et al. 2000) as a symbol stream with its sets of legal next symbols.
#pragma once

#include "recall/reference/matrix.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace recall::ref {

// Gate order in the parameter arrays: 0 input i, 1 forget f, 2 output o, 3 cell candidate g.
template <class S> struct LstmParams {
  std::array<Matrix<S>, 4> W;  // h x d_in
  std::array<Matrix<S>, 4> U;  // h x h
  std::array<Vector<S>, 4> b;  // h
  std::size_t hidden() const { return W[0].rows; }
  std::size_t input() const { return W[0].cols; }
};

template <class S> struct LstmState {
  Vector<S> h, c;
};

template <class S> S sigm(const S& x) {
  using std::exp;
  return S(1) / (S(1) + exp(-x));
}

// One step from (h_{t-1}, c_{t-1}) with input x (d_in values); writes the gates' values when `gates` is given
// (i, f, o, g, each h values; f = 1 without the forget gate).
template <class S>
LstmState<S> lstm_step(const LstmParams<S>& p, const LstmState<S>& prev, const S* x, bool forget_gate,
                       std::array<Vector<S>, 4>* gates = nullptr) {
  using std::tanh;
  const std::size_t H = p.hidden(), D = p.input();
  if (prev.h.size() != H || prev.c.size() != H) throw std::invalid_argument("lstm_step: state size differs from the hidden size");
  std::array<Vector<S>, 4> a;
  for (int q = 0; q < 4; ++q) {
    a[q].assign(H, S(0));
    if (q == 1 && !forget_gate) continue;
    for (std::size_t r = 0; r < H; ++r) {
      S acc = p.b[q][r];
      for (std::size_t j = 0; j < D; ++j) muladd(acc, p.W[q](r, j), x[j]);
      for (std::size_t j = 0; j < H; ++j) muladd(acc, p.U[q](r, j), prev.h[j]);
      a[q][r] = q == 3 ? S(tanh(acc)) : sigm(acc);
    }
  }
  if (!forget_gate) a[1].assign(H, S(1));
  LstmState<S> s;
  s.h.resize(H);
  s.c.resize(H);
  for (std::size_t r = 0; r < H; ++r) {
    s.c[r] = a[1][r] * prev.c[r] + a[0][r] * a[3][r];
    s.h[r] = a[2][r] * tanh(s.c[r]);
  }
  if (gates) *gates = a;
  return s;
}

// The cell and hidden states after every token of X (T x d_in): rows t = c_{t+1}, h_{t+1}.
template <class S> struct LstmTrace {
  Matrix<S> C, H;
};
template <class S> LstmTrace<S> lstm_forward(const LstmParams<S>& p, const Matrix<S>& X, bool forget_gate) {
  if (X.cols != p.input()) throw std::invalid_argument("lstm_forward: X must be T x d_in");
  const std::size_t H = p.hidden();
  LstmState<S> s{Vector<S>(H, S(0)), Vector<S>(H, S(0))};
  LstmTrace<S> tr{Matrix<S>(X.rows, H), Matrix<S>(X.rows, H)};
  for (std::size_t t = 0; t < X.rows; ++t) {
    s = lstm_step(p, s, X.row(t), forget_gate);
    for (std::size_t r = 0; r < H; ++r) tr.C(t, r) = s.c[r], tr.H(t, r) = s.h[r];
  }
  return tr;
}

// ---- the continual embedded Reber grammar -------------------------------------------------------
// Symbols 0..6 = B T P S X V E. A Reber string: B, a walk of the graph
//   1 -T-> 2, 1 -P-> 3, 2 -S-> 2, 2 -X-> 4, 3 -T-> 3, 3 -V-> 5, 4 -X-> 3, 4 -S-> 6, 5 -P-> 4, 5 -V-> 6,
// (both edges of a node equally likely), E at node 6. The embedded string: B, c in {T, P}, a Reber string,
// the same c, E. The continual stream concatenates embedded strings without resets.
enum ReberSymbol : int { kB = 0, kT = 1, kP = 2, kS = 3, kX = 4, kV = 5, kE = 6 };
struct ReberStream {
  std::vector<int> symbols;
  std::vector<std::uint8_t> legal_next;  // bit s set: symbol s may follow symbols[t] (the grammar's set, not the draw)
};
// `coin` returns uniform bits (0/1).
template <class Coin> ReberStream continual_embedded_reber(std::size_t n, Coin&& coin) {
  ReberStream s;
  auto emit = [&](int sym, std::uint8_t next) {
    s.symbols.push_back(sym);
    s.legal_next.push_back(next);
  };
  const auto bit = [](int a) { return static_cast<std::uint8_t>(1u << a); };
  while (s.symbols.size() < n) {
    const int c = coin() ? kT : kP;
    emit(kB, bit(kT) | bit(kP));
    emit(c, bit(kB));
    emit(kB, bit(kT) | bit(kP));  // the inner Reber string's B
    int node = 1;
    while (node != 6) {
      int sym = 0, to = 0;
      const bool k = coin() != 0;
      switch (node) {
        case 1: sym = k ? kT : kP, to = k ? 2 : 3; break;
        case 2: sym = k ? kS : kX, to = k ? 2 : 4; break;
        case 3: sym = k ? kT : kV, to = k ? 3 : 5; break;
        case 4: sym = k ? kX : kS, to = k ? 3 : 6; break;
        case 5: sym = k ? kP : kV, to = k ? 4 : 6; break;
      }
      std::uint8_t nx = 0;
      switch (to) {
        case 2: nx = bit(kS) | bit(kX); break;
        case 3: nx = bit(kT) | bit(kV); break;
        case 4: nx = bit(kX) | bit(kS); break;
        case 5: nx = bit(kP) | bit(kV); break;
        case 6: nx = bit(kE); break;
      }
      emit(sym, nx);
      node = to;
    }
    emit(kE, bit(c));  // the inner E; next is the remembered c
    emit(c, bit(kE));
    emit(kE, bit(kB));  // the outer E; a new embedded string follows
  }
  s.symbols.resize(n);
  s.legal_next.resize(n);
  return s;
}

}  // namespace recall::ref
