// A000-TOY-TRAIN reproduction harness: the one-layer DeltaFormer of Listing 2 (token embedding,
// DeltaAttention with GQA write kernel kappa1 and read-out kappa2, residual, lm_head), its loss
// (cross-entropy over the vocabulary-size logits), a hand-written backward pass (reverse mode through
// the unit-lower-triangular solve), the listing's optimiser (transformers.AdamW, linear warm-up/decay
// schedule) and its length curriculum (code and Fig. 6 caption variants), on the S5 swap task of
// A000-TOY-DATA (ref::generate_s5_data). Forward and backward are templated on the scalar and
// instantiated for float (training) and double (gradient checks) in toy_train.cpp.
//
// Model (Listing 2, 0-based): x_t = E[id_t]; q, w = affine(x) (dim = hq * hd), k, v = affine(x)
// (hkv * hd); for q-head h (kv group g(h), G = hq / hkv q-heads per group)
//   a^h_{s,t} = w^h_s . k_t / sqrt(hd) (t < s), A^g = mean_{h in g} w_weight_h * kappa1(a^h)
//   (I + beta tril(A^g, -1)) U^g = alpha V^g                  (solve_triangular, unit diagonal)
//   o^h_s = sum_{t <= s} kappa2(q^h_s . k_t / sqrt(hd)) u^g_t  (softmax: over t <= s)
//   y = x + Wo [o^1 .. o^hq] + bo,  logits = Wlm y  (no bias, `vocab` outputs; labels 0..4)
// No norm, no FFN, no positional encoding (the listing imports RMSNorm but never uses it, runs pass
// rotary_base = None). Exactly one layer (the listing's runs use n_layers = 1).
// Option (A000-EXP-ROPE, ModelShape::rope): rotary position embedding, base rope_base, applied to every
// head of q, w and k at the token's 0-based position before the scores (ref::rope_rotate, rope.hpp:
// rotate_half pairing of the leading 2 floor(hd/2) dims, the odd dim of hd = 3 unrotated; v not rotated).
// q and k carry the read scores q_s . k_t, w and k the write scores w_s . k_t: rotating all three makes
// both score matrices functions of the offset s - t, as RoPE does for the one score of softmax attention.
// The backward rotates dq, dw, dk back by the transpose. rope = false is the Listing 2 model unchanged.
#pragma once

#include "recall/reference/deltaformer.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace recall::toy {

using ref::ToyK1;
using ref::ToyK2;
const char* k1_name(ToyK1 k);
const char* k2_name(ToyK2 k);

// Shape of the Listing 2 model. Defaults: the listing's script (dim 12, 4 q-heads, 1 kv-head,
// head dim 3, input vocabulary C(5,2) = 10 and lm_head with vocab_size = 10 outputs).
struct ModelShape {
  std::size_t vocab = 10, dim = 12, hq = 4, hkv = 1;
  ToyK1 k1 = ToyK1::exp;
  ToyK2 k2 = ToyK2::softmax;
  bool rope = false;          // A000-EXP-ROPE: RoPE on q, w, k (see above); false: no positional encoding
  double rope_base = 10000;   // the RoPE base (finite, > 0; checked even when rope = false)
  std::size_t hd() const { return dim / hq; }
  std::size_t kvd() const { return hkv * hd(); }
  void validate() const;  // std::invalid_argument naming the bad field
};

// Offsets of every parameter tensor in the flat parameter vector (PyTorch layouts: Linear weights
// are out x in, row-major).
struct Layout {
  std::size_t emb, Wq, bq, Ww, bw, Wk, bk, Wv, bv, Wo, bo, w_weight, alpha, beta, lm, size, d_model;
  explicit Layout(const ModelShape& m);
  std::string name_of(std::size_t index) const;  // "Wq[3,7]" etc. (1-based indices)
};

template <class S> struct Params {
  ModelShape shape;
  std::vector<S> p;  // flat, Layout(shape) offsets
};

// PyTorch default initialisation drawn from rng in a fixed order: Embedding N(0,1); Linear weight and
// bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (kaiming_uniform with a = sqrt(5)); w_weight N(0,1);
// alpha = beta = 1; lm_head U(-1/sqrt(dim), 1/sqrt(dim)). Draws in double, rounded to S.
template <class S> Params<S> init_params(const ModelShape& m, std::mt19937_64& rng);

// The same model as ref::ToyAttentionParams (for the reference forward) plus E and Wlm.
template <class S> ref::ToyAttentionParams<S> to_reference(const Params<S>& P);

// One batch: B sequences of equal length T (ids in [0, vocab), labels in [0, vocab)).
struct Batch {
  std::size_t B = 0, T = 0;
  std::vector<int> ids, labels;  // B*T, row b = sequence b
};
Batch make_batch(const std::vector<ref::S5Sample>& data);
void validate_batch(const ModelShape& m, const Batch& b);  // std::invalid_argument naming the input

// Negative-control knob of the backward pass (tests only): a deliberately wrong gradient.
enum class GradFault {
  none,
  flip_dA,          // sign of dA = -dR u^T flipped
  solve_not_transposed,  // dR = (I + A)^{-1} dU instead of (I + A)^{-T} dU
  rope_not_transposed    // RoPE backward rotates dq, dw, dk by R(pos) instead of R(pos)^T (wrong-sign angle)
};

struct LossResult {
  double loss = 0;       // mean cross-entropy over B*T tokens
  std::size_t correct = 0, total = 0;  // argmax (first maximum) == label
};

// Forward of one batch: loss and accuracy; logits (B*T x vocab, row-major) when requested.
template <class S> LossResult forward_batch(const Params<S>& P, const Batch& b, std::vector<S>* logits = nullptr);

// Forward + backward of one batch: grad (size Layout.size) = d(mean CE)/d(params). Per-sequence
// gradients are summed in sequence order, so the result does not depend on `threads`.
template <class S>
LossResult loss_and_grad(const Params<S>& P, const Batch& b, std::vector<S>& grad, unsigned threads = 1,
                         GradFault fault = GradFault::none);

// U of each kv group for sequence `seq` (T x hd row-major per group), for comparisons with the reference.
template <class S> std::vector<std::vector<S>> u_of_sequence(const Params<S>& P, const Batch& b, std::size_t seq);

// ---- forward agreement with the reference (ref::toy_delta_attention) --------------------------------
// Oracle: the reference forward (explicit recursion) at `digits` digits, with the embedding lookup and
// lm_head written out; baseline: the same reference in double / float. Errors are max-abs over the
// logits and over U, each relative to the oracle's max-abs (normwise), and pass by the error budget of
// spec README §2: err(harness) <= 2 err(baseline) + 4u + kappa u T (R-FAST defaults plus the
// triangular-solve term kappa u n, kappa = max over sequences and kv groups of the infinity-norm
// condition number of I + beta tril(A, -1)).
struct ForwardAgreement {
  double err64 = 0, base64 = 0, err32 = 0, base32 = 0;  // logits and U together (max of the two)
  double budget64 = 0, budget32 = 0, cond = 0;
  bool pass = false;
};
ForwardAgreement forward_agreement(const Params<double>& P, const Batch& b, unsigned digits = 50);

// ---- gradient check by central differences ---------------------------------------------------
struct GradCheck {
  double step = 0;           // h_i = step * max(1, |theta_i|)
  double max_abs_err = 0;    // max_i |g_fd - g_an|
  double grad_scale = 0;     // max_i |g_an|
  double rel_err = 0;        // max_abs_err / grad_scale
  double threshold = 0;      // the decision threshold on rel_err
  std::string worst;         // parameter name of the worst component
  std::size_t n_params = 0;
  bool pass = false;
};
// Central differences of the double model against loss_and_grad<double> over every parameter.
// step = u^(1/3) (u = 2^-53): truncation h^2/6 |L'''| and rounding u|L|/h balance at ~u^(2/3); the
// threshold is 1e3 u^(2/3) (~3.8e-8) relative to max|g| (see toy_train.cpp for the derivation).
GradCheck gradient_check(const Params<double>& P, const Batch& b, GradFault fault = GradFault::none);

// ---- curriculum -------------------------------------------------------------------------------
// Listing 2 code: start 16, double when the batch accuracy > 0.999, no cap. Fig. 6 caption [interp]:
// start 32, double when the accuracy reaches (>=) 0.99, up to 256.
struct Curriculum {
  std::string name = "code";
  std::size_t start = 16;
  double threshold = 0.999;
  bool strict = true;     // acc > threshold (code) or acc >= threshold (caption: "reaches")
  std::size_t cap = 0;    // 0: unbounded
  static Curriculum code();
  static Curriculum caption();
  static Curriculum fixed(std::size_t len);  // no doubling (direct training)
  bool passes(double acc) const { return strict ? acc > threshold : acc >= threshold; }
  std::size_t next(std::size_t len, double acc) const;  // the length of the next batch
};

// ---- optimiser and schedule (Listing 2) ----------------------------------------------------------
// transformers.get_scheduler("linear", num_warmup_steps = 128, num_training_steps = N): the lr of
// update s (0-based; the scheduler steps after the optimiser) is lr * lambda(s),
// lambda(s) = s / W for s < W, max(0, (N - s) / (N - W)) otherwise (the first update has lr 0).
double linear_schedule(std::size_t s, std::size_t warmup, std::size_t total);

enum class Precision { fp32, bf16 };
const char* precision_name(Precision p);
// float -> bfloat16 -> float, round to nearest even (NaN kept).
float round_bf16(float x);

struct TrainConfig {
  ModelShape shape;
  Curriculum curriculum = Curriculum::code();
  Precision precision = Precision::fp32;
  std::uint64_t seed = 42;
  std::size_t steps = 4000, warmup = 128, batch = 128;
  double lr = 0.01, weight_decay = 0.01, beta1 = 0.9, beta2 = 0.999, eps = 1e-6;  // transformers.AdamW defaults
  // compute guards (0: none): stop once the curriculum asks for a length above max_len, or after
  // `stop_after_advances` doublings (the decision of A000-TOY-TRAIN needs only the first).
  std::size_t max_len = 0;
  int stop_after_advances = -1;
  std::size_t max_steps = 0;  // run only the first max_steps updates of the `steps`-step schedule (0: all)
  unsigned threads = 1;
  // the Transformer baseline of A000-EXP-SWAP: beta = 0 at initialisation and never updated, so the u-solve is
  // the identity (U = alpha V) and the layer is one softmax-read attention layer with the same parameters
  bool transformer = false;
  std::function<void(std::size_t step, std::size_t len, double loss, double acc)> on_step;  // optional log sink
};

struct StepLog {
  std::uint32_t len;
  float loss, acc;
};
struct TrainResult {
  std::vector<StepLog> log;                    // one entry per update (step s = index, 0-based)
  std::vector<std::pair<std::size_t, std::size_t>> advances;  // (1-based step whose batch passed, new length)
  std::size_t steps_run = 0, final_len = 0, max_len_trained = 0;
  double final_acc = 0, best_acc = 0, first_loss = 0, last_loss = 0;
  double seconds = 0;
  std::string stop;                            // "budget", "max_steps", "max_len", "advances", "non-finite"
  std::uint64_t init_seed = 0, data_seed = 0;  // the two std::mt19937_64 streams
  Params<float> final_params;                  // after the last update
};

// Train the Listing 2 model: every step draws a fresh batch of `batch` sequences of the current
// length from the data stream (ref::generate_s5_data), one AdamW update, the curriculum decides the
// next length from this step's batch accuracy (as the listing, which tests the accuracy after the update
// of the batch it was measured on). fp32: float parameters, gradients and moments; bf16: the listing's
// model.to(bfloat16) storage emulated — parameters, gradients and AdamW moments are rounded to bf16
// after every elementwise operation of the update (as PyTorch with bf16 tensors), forward and backward
// arithmetic in fp32 (the listing's bf16 matmuls are not emulated).
TrainResult train(const TrainConfig& cfg);

// The per-step log as CSV: step (1-based), length, loss, batch accuracy. Throws std::runtime_error when the
// file cannot be written.
void write_log_csv(const std::string& path, const TrainResult& r);

// Seeds of the two streams derived from cfg.seed (init: the model, data: the batches).
std::uint64_t init_stream_seed(std::uint64_t seed);
std::uint64_t data_stream_seed(std::uint64_t seed);

}  // namespace recall::toy
