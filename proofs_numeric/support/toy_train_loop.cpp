// A000-TOY-TRAIN harness, part 2 (see toy_train.hpp): the length curriculum, the linear warm-up /
// decay schedule, the bf16 rounding of the mixed-precision run, the AdamW training loop
// (transformers.AdamW semantics) and the CSV log. The model, its forward and hand-written backward
// passes are in toy_train.cpp.
#include "toy_train.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace recall::toy {

// ---- curriculum, schedule, optimiser ---------------------------------------------------------------
Curriculum Curriculum::code() { return Curriculum{"code", 16, 0.999, true, 0}; }
Curriculum Curriculum::caption() { return Curriculum{"caption", 32, 0.99, false, 256}; }
Curriculum Curriculum::fixed(std::size_t len) { return Curriculum{"fixed-" + std::to_string(len), len, 0.99, false, len}; }
std::size_t Curriculum::next(std::size_t len, double acc) const {
  if (!passes(acc)) return len;
  if (cap != 0 && 2 * len > cap) return len;
  return 2 * len;
}

double linear_schedule(std::size_t s, std::size_t warmup, std::size_t total) {
  if (s < warmup) return double(s) / double(std::max<std::size_t>(1, warmup));
  return std::max(0.0, double(total) - double(s)) / double(std::max<std::size_t>(1, total - warmup));
}

float round_bf16(float x) {
  if (std::isnan(x)) return x;
  std::uint32_t b = std::bit_cast<std::uint32_t>(x);
  b += 0x7FFFu + ((b >> 16) & 1u);
  b &= 0xFFFF0000u;
  return std::bit_cast<float>(b);
}

namespace {
std::uint64_t splitmix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
}  // namespace
std::uint64_t init_stream_seed(std::uint64_t seed) { return splitmix(seed * 2 + 1); }
std::uint64_t data_stream_seed(std::uint64_t seed) { return splitmix(seed * 2 + 2); }

TrainResult train(const TrainConfig& cfg) {
  cfg.shape.validate();
  if (cfg.curriculum.start < 1) throw std::invalid_argument("train: curriculum start length must be >= 1");
  if (cfg.batch < 1) throw std::invalid_argument("train: batch must be >= 1");
  if (!(cfg.lr >= 0) || !(cfg.weight_decay >= 0) || !(cfg.eps > 0) || !(cfg.beta1 >= 0 && cfg.beta1 < 1) ||
      !(cfg.beta2 >= 0 && cfg.beta2 < 1))
    throw std::invalid_argument("train: optimiser hyper-parameters out of range (lr, weight_decay >= 0, eps > 0, betas in [0, 1))");
  const auto t0 = std::chrono::steady_clock::now();
  TrainResult r;
  r.init_seed = init_stream_seed(cfg.seed);
  r.data_seed = data_stream_seed(cfg.seed);
  std::mt19937_64 init_rng(r.init_seed), data_rng(r.data_seed);
  Params<float> P = init_params<float>(cfg.shape, init_rng);
  const bool bf = cfg.precision == Precision::bf16;
  auto rb = [&](float x) { return bf ? round_bf16(x) : x; };
  for (float& x : P.p) x = rb(x);  // model.to(torch.bfloat16)
  const std::size_t beta_at = Layout(cfg.shape).beta;
  if (cfg.transformer) P.p[beta_at] = 0.0f;
  const std::size_t np = P.p.size();
  std::vector<float> mom1(np, 0.0f), mom2(np, 0.0f), grad;
  std::size_t len = cfg.curriculum.start;
  r.log.reserve(cfg.steps);
  r.stop = "budget";
  const std::size_t run_steps = cfg.max_steps != 0 ? std::min(cfg.max_steps, cfg.steps) : cfg.steps;
  if (run_steps < cfg.steps) r.stop = "max_steps";
  for (std::size_t s = 0; s < run_steps; ++s) {
    const Batch b = make_batch(ref::generate_s5_data(len, cfg.batch, data_rng));
    const LossResult lr_ = loss_and_grad(P, b, grad, cfg.threads);
    const double acc = double(lr_.correct) / double(lr_.total);
    r.log.push_back(StepLog{static_cast<std::uint32_t>(len), static_cast<float>(lr_.loss), static_cast<float>(acc)});
    r.max_len_trained = std::max(r.max_len_trained, len);
    if (cfg.on_step) cfg.on_step(s, len, lr_.loss, acc);
    if (s == 0) r.first_loss = lr_.loss;
    r.last_loss = lr_.loss;
    r.final_acc = acc;
    r.best_acc = std::max(r.best_acc, acc);
    r.steps_run = s + 1;
    if (!std::isfinite(lr_.loss)) {
      r.stop = "non-finite";
      break;
    }
    // transformers.AdamW (correct_bias = True), then the decoupled decay p -= lr wd p
    const double lr_s = cfg.lr * linear_schedule(s, cfg.warmup, cfg.steps);
    const double k = double(s + 1);
    const double step_size = lr_s * std::sqrt(1.0 - std::pow(cfg.beta2, k)) / (1.0 - std::pow(cfg.beta1, k));
    const float b1 = float(cfg.beta1), b2 = float(cfg.beta2), c1 = float(1.0 - cfg.beta1), c2 = float(1.0 - cfg.beta2);
    const float eps = float(cfg.eps), ss = float(step_size), dec = float(lr_s * cfg.weight_decay);
    for (std::size_t i = 0; i < np; ++i) {
      if (cfg.transformer && i == beta_at) continue;  // beta stays exactly 0
      const float g = rb(grad[i]);
      mom1[i] = rb(rb(mom1[i] * b1) + c1 * g);
      mom2[i] = rb(rb(mom2[i] * b2) + c2 * g * g);
      const float den = rb(rb(std::sqrt(mom2[i])) + eps);
      P.p[i] = rb(P.p[i] - ss * (mom1[i] / den));
      if (cfg.weight_decay > 0) P.p[i] = rb(P.p[i] - dec * P.p[i]);
    }
    const std::size_t nl = cfg.curriculum.next(len, acc);
    if (nl != len) {
      r.advances.emplace_back(s + 1, nl);
      if (cfg.max_len != 0 && nl > cfg.max_len) {
        r.stop = "max_len";
        len = nl;
        break;
      }
      if (cfg.stop_after_advances >= 0 && r.advances.size() >= std::size_t(cfg.stop_after_advances)) {
        r.stop = "advances";
        len = nl;
        break;
      }
      len = nl;
    }
  }
  r.final_len = len;
  r.final_params = std::move(P);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

void write_log_csv(const std::string& path, const TrainResult& r) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("write_log_csv: cannot open " + path);
  f << "step,length,loss,accuracy\n";
  f.precision(7);
  for (std::size_t i = 0; i < r.log.size(); ++i) f << i + 1 << "," << r.log[i].len << "," << r.log[i].loss << "," << r.log[i].acc << "\n";
  if (!f) throw std::runtime_error("write_log_csv: write failed for " + path);
}

}  // namespace recall::toy
