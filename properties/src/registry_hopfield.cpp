// optimized/ kernels of the modern Hopfield retrieval maps in the registry (issue 12), and the
// Hopfield-specific wrong kernels of the discrimination suite (hopfield_mutants()).
//
// The kernels (optimized/hopfield.hpp) are float and double with accumulation in the storage type; the
// bf16/f16 rows are their 16-bit-storage twins (register_half_storage_twins: f32 arithmetic on the
// exactly representable 16-bit inputs, outputs rounded to the format). The registry's tensors are
// [B, H, rows, width]; the kernels take [B, rows, H, width], a mask row per (batch, query) shared by the
// heads, and omega per head shared by the batch: the adapters transpose, build the CSR mask from the 0/1
// matrix, and fall back to one call per head (per batch) when the masks (the draws) differ across heads
// (batches), so that the kernels' multi-head indexing is exercised whenever the inputs allow it.
#include "recall/properties/registry.hpp"

#include "op_support.hpp"
#include "recall/optimized/hopfield.hpp"
#include "recall/properties/discrimination.hpp"
#include "recall/properties/ops.hpp"
#include "recall/reference/hopfield.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace recall {


namespace {

using namespace op_support;
namespace oh = opt::hopfield;
namespace hf = ref::hopfield;

struct Dims4 {
  std::int64_t B, H, L, M, d, dv;
};
Dims4 dims4(const TensorMap& in) {
  const Tensor &q = in.at("q"), &k = in.at("k"), &v = in.at("v");
  return {q.shape[0], q.shape[1], q.shape[2], k.shape[2], q.shape[3], v.shape[3]};
}

// [B, H, N, c] (registry) -> [B, N, H, c] (kernel), converted to T
template <class T> std::vector<T> to_kernel(const Tensor& t) {
  const std::int64_t B = t.shape[0], H = t.shape[1], N = t.shape[2], c = t.shape[3];
  std::vector<T> o(t.data.size());
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t h = 0; h < H; ++h)
      for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t j = 0; j < c; ++j) o[((b * N + n) * H + h) * c + j] = static_cast<T>(t.data[((b * H + h) * N + n) * c + j]);
  return o;
}
// [B, N, H, c] (kernel) -> [B, H, N, c] (registry)
template <class T> Tensor from_kernel(const std::vector<T>& x, std::int64_t B, std::int64_t N, std::int64_t H, std::int64_t c) {
  Tensor t{{B, H, N, c}, std::vector<double>(x.size())};
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t h = 0; h < H; ++h)
      for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t j = 0; j < c; ++j) t.data[((b * H + h) * N + n) * c + j] = static_cast<double>(x[((b * N + n) * H + h) * c + j]);
  return t;
}

// Splits the inputs along dimension `dim` (0: batch, 1: head) of every [B, H, ...] tensor, runs f on each
// piece and reassembles the outputs (the fallback when the kernel's shared mask / draw does not fit).
TensorMap split_run(const TensorMap& in, int dim, const std::function<TensorMap(const TensorMap&)>& f) {
  const std::int64_t B = in.at("q").shape[0], H = in.at("q").shape[1], n = dim == 0 ? B : H;
  std::vector<TensorMap> parts;
  for (std::int64_t s = 0; s < n; ++s) {
    TensorMap x;
    for (const auto& [name, t] : in) {
      if (t.shape.size() < 3 || t.shape[0] != B || t.shape[1] != H) {
        x[name] = t;
        continue;
      }
      Tensor p;
      p.shape = t.shape;
      p.shape[dim] = 1;
      const std::size_t inner = t.numel() / static_cast<std::size_t>(B * H);
      for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t h = 0; h < H; ++h)
          if ((dim == 0 ? b : h) == s) {
            const auto* src = t.data.data() + static_cast<std::size_t>(b * H + h) * inner;
            p.data.insert(p.data.end(), src, src + inner);
          }
      x[name] = std::move(p);
    }
    parts.push_back(f(x));
  }
  TensorMap out;
  for (const auto& [name, t0] : parts[0]) {
    Tensor t;
    t.shape = t0.shape;
    t.shape[dim] = n;
    const std::size_t inner = t0.numel() / static_cast<std::size_t>(t0.shape[0] * t0.shape[1]);
    t.data.resize(t.numel());
    for (std::int64_t s = 0; s < n; ++s) {
      const Tensor& ps = parts[static_cast<std::size_t>(s)].at(name);
      const std::int64_t pB = ps.shape[0], pH = ps.shape[1];
      for (std::int64_t b = 0; b < pB; ++b)
        for (std::int64_t h = 0; h < pH; ++h) {
          const std::int64_t gb = dim == 0 ? s : b, gh = dim == 1 ? s : h;
          std::copy(ps.data.begin() + static_cast<std::ptrdiff_t>((b * pH + h) * inner),
                    ps.data.begin() + static_cast<std::ptrdiff_t>((b * pH + h + 1) * inner),
                    t.data.begin() + static_cast<std::ptrdiff_t>((gb * (dim == 1 ? n : pH) + gh) * inner));
        }
    }
    out[name] = std::move(t);
  }
  return out;
}
// true when the [B, H, ...] tensor's slices are equal along `dim` (0: across batches, 1: across heads)
bool uniform_along(const Tensor& t, int dim) {
  const std::int64_t B = t.shape[0], H = t.shape[1];
  const std::size_t inner = t.numel() / static_cast<std::size_t>(B * H);
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t h = 0; h < H; ++h) {
      const std::int64_t rb = dim == 0 ? 0 : b, rh = dim == 1 ? 0 : h;
      if (!std::equal(t.data.begin() + static_cast<std::ptrdiff_t>((b * H + h) * inner),
                      t.data.begin() + static_cast<std::ptrdiff_t>((b * H + h + 1) * inner),
                      t.data.begin() + static_cast<std::ptrdiff_t>((rb * H + rh) * inner)))
        return false;
    }
  return true;
}

template <class T> struct Prepared {
  Dims4 d;
  std::vector<T> q, k, v, o;
  oh::RetrievalArgs<T> a;
};
template <class T> void prepare(const TensorMap& in, Prepared<T>& p, int bq, int bk) {
  p.d = dims4(in);
  p.q = to_kernel<T>(in.at("q"));
  p.k = to_kernel<T>(in.at("k"));
  p.v = to_kernel<T>(in.at("v"));
  p.o.assign(static_cast<std::size_t>(p.d.B * p.d.L * p.d.H * p.d.dv), T(0));
  auto& a = p.a;
  a.B = int(p.d.B); a.H = int(p.d.H); a.L = int(p.d.L); a.M = int(p.d.M); a.d = int(p.d.d); a.dv = int(p.d.dv);
  a.q = p.q.data(); a.k = p.k.data(); a.v = p.v.data(); a.o = p.o.data();
  a.beta = in.at("scale").data[0];
  a.block_q = bq; a.block_k = bk;
}
template <class T> TensorMap output(const Prepared<T>& p) { return {{"o", from_kernel(p.o, p.d.B, p.d.L, p.d.H, p.d.dv)}}; }
bool flag_of(const TensorMap& in, const char* n) {
  auto it = in.find(n);
  return it != in.end() && it->second.data[0] > 0.5;
}

template <class T> TensorMap run_dense(const TensorMap& in, int bq, int bk) {
  op("hopfield_dense").validate(in);
  Prepared<T> p;
  prepare(in, p, bq, bk);
  oh::dense_retrieval(p.a);
  return output(p);
}

// The kept sets of head 0 as CSR rows r = b L + i (the kernel shares them across heads).
struct Csr {
  std::vector<std::int64_t> ptr, col;
  std::vector<unsigned char> empty;
};
Csr csr_of(const Tensor& mask) {
  const std::int64_t B = mask.shape[0], H = mask.shape[1], L = mask.shape[2], M = mask.shape[3];
  Csr c;
  c.ptr.push_back(0);
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t i = 0; i < L; ++i) {
      const double* r = mask.data.data() + ((b * H) * L + i) * M;
      for (std::int64_t j = 0; j < M; ++j)
        if (r[j] != 0) c.col.push_back(j);
      c.ptr.push_back(static_cast<std::int64_t>(c.col.size()));
    }
  c.empty.assign(static_cast<std::size_t>(B * L), 0);
  return c;
}

template <class T> TensorMap run_masked(const TensorMap& in, oh::Reading reading, bool validate = true) {
  const std::string name = reading == oh::Reading::R ? "hopfield_masked_r" : "hopfield_masked_u";
  if (validate) op(name).validate(in);
  if (!uniform_along(in.at("mask"), 1))  // per-head masks: one call per head
    return split_run(in, 1, [reading](const TensorMap& x) { return run_masked<T>(x, reading, false); });
  Prepared<T> p;
  prepare(in, p, 64, 256);
  Csr c = csr_of(in.at("mask"));
  oh::CsrMask cm;
  cm.row_ptr = c.ptr.data();
  cm.col = c.col.empty() ? c.ptr.data() : c.col.data();  // non-null even with no kept entry
  if (reading == oh::Reading::R) cm.empty_flag = c.empty.data();
  oh::masked_retrieval(p.a, cm, reading);
  TensorMap out = output(p);
  if (reading == oh::Reading::R) {
    Tensor e{{p.d.B, p.d.H, p.d.L}, std::vector<double>(static_cast<std::size_t>(p.d.B * p.d.H * p.d.L))};
    for (std::int64_t b = 0; b < p.d.B; ++b)
      for (std::int64_t h = 0; h < p.d.H; ++h)
        for (std::int64_t i = 0; i < p.d.L; ++i) e.data[static_cast<std::size_t>((b * p.d.H + h) * p.d.L + i)] = c.empty[static_cast<std::size_t>(b * p.d.L + i)];
    out["empty"] = std::move(e);
  }
  return out;
}

template <class T> TensorMap run_window(const TensorMap& in, bool causal, int bq, int bk) {
  op(causal ? "hopfield_window_causal_r" : "hopfield_window_r").validate(in);
  Prepared<T> p;
  prepare(in, p, bq, bk);
  oh::WindowSpec w;
  w.w = static_cast<std::int64_t>(std::llround(in.at("window").data[0]));
  w.causal = causal;
  w.shift = !causal && flag_of(in, "shift");
  oh::window_retrieval(p.a, w, oh::Reading::R);
  return output(p);
}

template <class T> TensorMap run_topk(const TensorMap& in, int bq, int bk) {
  op("hopfield_topk_r").validate(in);
  Prepared<T> p;
  prepare(in, p, bq, bk);
  oh::TopKSpec<T> s;
  s.K = static_cast<std::int64_t>(std::llround(in.at("topk").data[0]));
  s.tie = flag_of(in, "tie_exact") ? oh::TiePolicy::EXACT : oh::TiePolicy::GE;
  std::vector<T> sel;
  if (auto it = in.find("sel"); it != in.end()) {
    sel = to_kernel<T>(it->second);
    s.sel = sel.data();
  }
  oh::topk_retrieval(p.a, s, oh::Reading::R);
  return output(p);
}

template <class T> TensorMap run_prf(const TensorMap& in, int bk, bool validate = true) {
  if (validate) op("hopfield_prf").validate(in);
  const Tensor& om = in.at("omega");
  if (!uniform_along(om, 0))  // one draw per (batch, head): one call per batch
    return split_run(in, 0, [bk](const TensorMap& x) { return run_prf<T>(x, bk, false); });
  Prepared<T> p;
  prepare(in, p, 64, bk);
  const std::int64_t H = om.shape[1], nf = om.shape[2], d = om.shape[3];
  std::vector<T> w(static_cast<std::size_t>(H * nf * d));  // batch 0's draws, [H, n_f, d]
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<T>(om.data[i]);
  oh::PrfSpec<T> s;
  s.n_f = static_cast<int>(nf);
  s.omega = w.data();
  s.hyperbolic = flag_of(in, "hyperbolic");
  oh::prf_retrieval(p.a, s);
  return output(p);
}

template <class T> TensorMap run_linear(const TensorMap& in, int bk) {
  op("hopfield_linear").validate(in);
  Prepared<T> p;
  prepare(in, p, 64, bk);
  oh::LinearSpec s;
  s.beta_scaling = true;  // phi(sqrt(beta) x), beta = 1: phi(x) exactly
  s.literal_C2 = flag_of(in, "literal_c2");
  oh::linear_retrieval(p.a, s);
  return output(p);
}

template <class T> void add_cpu(Registry& r, Precision p) {
  r.add({"hopfield_dense", "cpu.tiled.b64x256", "cpu", p, [](const TensorMap& in) { return run_dense<T>(in, 64, 256); },
         "online softmax over key tiles (running max / sum, rescaled accumulator), Eigen GEMM tiles 64 x 256"});
  r.add({"hopfield_dense", "cpu.tiled.b8x16", "cpu", p, [](const TensorMap& in) { return run_dense<T>(in, 8, 16); },
         "online softmax, 8 x 16 tiles (many rescalings, tails of L and M)"});
  r.add({"hopfield_masked_r", "cpu.csr", "cpu", p, [](const TensorMap& in) { return run_masked<T>(in, oh::Reading::R); },
         "CSR mask: SDDMM on the kept entries, sparse row softmax, SpMM; empty rows flagged"});
  r.add({"hopfield_masked_u", "cpu.csr", "cpu", p, [](const TensorMap& in) { return run_masked<T>(in, oh::Reading::U); },
         "CSR mask, kept weights normalised by the full-row LSE streamed over all M keys (T_U = s_M T_R)"});
  r.add({"hopfield_window_r", "cpu.banded.b16x32", "cpu", p, [](const TensorMap& in) { return run_window<T>(in, false, 16, 32); },
         "banded kernel, online softmax over the band's key tiles (16 x 32)"});
  r.add({"hopfield_window_causal_r", "cpu.banded.b16x32", "cpu", p, [](const TensorMap& in) { return run_window<T>(in, true, 16, 32); },
         "causal banded kernel, online softmax over the band's key tiles (16 x 32)"});
  r.add({"hopfield_topk_r", "cpu.select.b16x64", "cpu", p, [](const TensorMap& in) { return run_topk<T>(in, 16, 64); },
         "GEMM-tile selection scores, nth_element threshold, softmax over the kept set"});
  r.add({"hopfield_prf", "cpu.favor.b32", "cpu", p, [](const TensorMap& in) { return run_prf<T>(in, 32); },
         "FAVOR+ state S = sum Phi(k) v^T, z = sum Phi(k) over key tiles of 32 with a running key-side shift"});
  r.add({"hopfield_linear", "cpu.state.b32", "cpu", p, [](const TensorMap& in) { return run_linear<T>(in, 32); },
         "state S = sum phi(k) v^T, z = sum phi(k) over key tiles of 32"});
}

// ---- wrong kernels (discrimination suite) ----
bool is_hopfield(const OpSpec& o) { return o.name.rfind("hopfield_", 0) == 0; }
// The kernel's own arithmetic precision for storage p (f32 for the 16-bit formats), outputs rounded to p.
template <class F> TensorMap at_storage(Precision p, F&& f) {
  TensorMap out = p == Precision::f64 ? f(double{}) : f(float{});
  round_to(out, p);
  return out;
}
// The kept set of query (b, h, i) of any masked op (double scores), or all keys for the dense map.
hf::Mask kept_set(const OpSpec& o, const TensorMap& in, std::int64_t b, std::int64_t h, std::int64_t i, const std::vector<double>& sigma) {
  const Dims4 d = dims4(in);
  hf::Mask m;
  if (o.name == "hopfield_masked_r" || o.name == "hopfield_masked_u") {
    const double* r = in.at("mask").data.data() + ((b * d.H + h) * d.L + i) * d.M;
    for (std::int64_t j = 0; j < d.M; ++j)
      if (r[j] != 0) m.push_back(static_cast<std::size_t>(j));
  } else if (o.name == "hopfield_window_r") {
    m = hf::sliding_window(static_cast<std::size_t>(d.L), static_cast<std::size_t>(i), static_cast<std::size_t>(std::llround(in.at("window").data[0])),
                           flag_of(in, "shift"));
  } else if (o.name == "hopfield_window_causal_r") {
    m = hf::causal_window(static_cast<std::size_t>(d.L), static_cast<std::size_t>(i), static_cast<std::size_t>(std::llround(in.at("window").data[0])));
  } else if (o.name == "hopfield_topk_r") {
    const auto K = static_cast<std::size_t>(std::llround(in.at("topk").data[0]));
    m = flag_of(in, "tie_exact") ? hf::topk_exact(sigma, K) : hf::topk_ge(sigma, K);
  } else {
    m.resize(static_cast<std::size_t>(d.M));
    for (std::size_t j = 0; j < m.size(); ++j) m[j] = j;
  }
  return m;
}
// scores <q_i, s_mu> in double, twice-the-working-precision accurate (exact ties stay exact)
std::vector<double> exact_scores(const Tensor& q, const Tensor& s, std::int64_t b, std::int64_t h, std::int64_t i) {
  const std::int64_t H = q.shape[1], L = q.shape[2], d = q.shape[3], M = s.shape[2];
  const double* x = q.data.data() + ((b * H + h) * L + i) * d;
  std::vector<double> a(static_cast<std::size_t>(M));
  for (std::int64_t mu = 0; mu < M; ++mu) {
    const double* y = s.data.data() + ((b * H + h) * M + mu) * d;
    double sum = 0, c = 0;
    for (std::int64_t j = 0; j < d; ++j) {
      const double p = x[j] * y[j], ep = std::fma(x[j], y[j], -p), t = sum + p, z = t - sum;
      c += ep + ((sum - (t - z)) + (p - z));
      sum = t;
    }
    a[static_cast<std::size_t>(mu)] = sum + c;
  }
  return a;
}

// A structural mutant "applies" where it moves a visible part of some row's softmax weight: for each row the
// kept sets (original, mutated) of sets(b, h, i), weights w_j = exp(beta <q_i, k_j> - max) over their union,
// and the moved mass sum over the symmetric difference / sum over the original set; the largest over the rows
// must reach kVisible. (Top-K ties at the threshold of a one-hot retrieval carry e^-500 of the weight: dropping
// them is no bug there.)
constexpr double kVisible = 0.1;
template <class Sets> bool moves_weight(const TensorMap& in, Sets sets) {
  const Dims4 d = dims4(in);
  const double beta = in.at("scale").data[0];
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h)
      for (std::int64_t i = 0; i < d.L; ++i) {
        const auto [m0, m1] = sets(b, h, i);
        if (m0.empty()) continue;
        const std::vector<double> a = exact_scores(in.at("q"), in.at("k"), b, h, i);
        double mx = -INFINITY;
        for (std::size_t j : m0) mx = std::max(mx, beta * a[j]);
        for (std::size_t j : m1) mx = std::max(mx, beta * a[j]);
        double kept = 0, moved = 0;
        for (std::size_t j : m0) {
          kept += std::exp(beta * a[j] - mx);
          if (!std::binary_search(m1.begin(), m1.end(), j)) moved += std::exp(beta * a[j] - mx);
        }
        for (std::size_t j : m1)
          if (!std::binary_search(m0.begin(), m0.end(), j)) moved += std::exp(beta * a[j] - mx);
        if (kept > 0 && moved >= kVisible * kept) return true;
      }
  return false;
}
hf::Mask all_keys(std::int64_t M) {
  hf::Mask m(static_cast<std::size_t>(M));
  for (std::size_t j = 0; j < m.size(); ++j) m[j] = j;
  return m;
}
hf::Mask mask_of(const TensorMap& in, std::int64_t b, std::int64_t h, std::int64_t i) {
  const Dims4 d = dims4(in);
  const double* r = in.at("mask").data.data() + ((b * d.H + h) * d.L + i) * d.M;
  hf::Mask m;
  for (std::int64_t j = 0; j < d.M; ++j)
    if (r[j] != 0) m.push_back(static_cast<std::size_t>(j));
  return m;
}
// the mask's dropped keys carry weight (where U, R and the dense map differ)
bool mask_moves_weight(const TensorMap& in) {
  const std::int64_t M = in.at("k").shape[2];
  return moves_weight(in, [&](std::int64_t b, std::int64_t h, std::int64_t i) { return std::pair(mask_of(in, b, h, i), all_keys(M)); });
}
hf::Mask topk_set(const TensorMap& in, std::int64_t b, std::int64_t h, std::int64_t i, double K, bool exact) {
  const auto sigma = exact_scores(in.at("q"), in.count("sel") ? in.at("sel") : in.at("k"), b, h, i);
  const auto k = static_cast<std::size_t>(std::llround(K));
  return exact ? hf::topk_exact(sigma, k) : hf::topk_ge(sigma, k);
}
bool window_moves_weight(const TensorMap& in, bool causal, double w1, bool shift1) {
  const auto L = static_cast<std::size_t>(in.at("q").shape[2]);
  const auto w0 = static_cast<std::size_t>(std::llround(in.at("window").data[0]));
  const bool shift0 = flag_of(in, "shift");
  return moves_weight(in, [&](std::int64_t, std::int64_t, std::int64_t i) {
    const auto ii = static_cast<std::size_t>(i);
    const auto w1i = static_cast<std::size_t>(std::llround(w1));
    return causal ? std::pair(hf::causal_window(L, ii, w0), hf::causal_window(L, ii, w1i))
                  : std::pair(hf::sliding_window(L, ii, w0, shift0), hf::sliding_window(L, ii, w1i, shift1));
  });
}

// The softmax family without the max shift: weights exp(beta q.k) formed directly in the kernel's precision
// (a kernel written from the formula), normalised by their sum (U: by the sum over all M keys).
template <class T> TensorMap no_max_shift(const OpSpec& o, const TensorMap& in) {
  const Dims4 d = dims4(in);
  const bool u = o.name == "hopfield_masked_u", r_flags = o.name == "hopfield_masked_r";
  const T beta = static_cast<T>(in.at("scale").data[0]);
  const Tensor &q = in.at("q"), &k = in.at("k"), &v = in.at("v");
  const Tensor& sel = in.count("sel") ? in.at("sel") : k;
  TensorMap out{{"o", Tensor{{d.B, d.H, d.L, d.dv}, std::vector<double>(static_cast<std::size_t>(d.B * d.H * d.L * d.dv))}}};
  if (r_flags) out["empty"] = Tensor{{d.B, d.H, d.L}, std::vector<double>(static_cast<std::size_t>(d.B * d.H * d.L))};
  std::vector<T> e(static_cast<std::size_t>(d.M)), acc(static_cast<std::size_t>(d.dv));
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h)
      for (std::int64_t i = 0; i < d.L; ++i) {
        const hf::Mask m = kept_set(o, in, b, h, i, o.name == "hopfield_topk_r" ? exact_scores(q, sel, b, h, i) : std::vector<double>{});
        const double* x = q.data.data() + ((b * d.H + h) * d.L + i) * d.d;
        T all = 0;
        for (std::int64_t mu = 0; mu < d.M; ++mu) {
          const double* y = k.data.data() + ((b * d.H + h) * d.M + mu) * d.d;
          T s = 0;
          for (std::int64_t c = 0; c < d.d; ++c) s += static_cast<T>(x[c]) * static_cast<T>(y[c]);
          e[static_cast<std::size_t>(mu)] = std::exp(beta * s);
          all += e[static_cast<std::size_t>(mu)];
        }
        T den = u ? all : T(0);
        std::fill(acc.begin(), acc.end(), T(0));
        for (std::size_t mu : m) {
          if (!u) den += e[mu];
          for (std::int64_t c = 0; c < d.dv; ++c) acc[static_cast<std::size_t>(c)] += e[mu] * static_cast<T>(v.data[((b * d.H + h) * d.M + static_cast<std::int64_t>(mu)) * d.dv + c]);
        }
        double* o_row = out["o"].data.data() + ((b * d.H + h) * d.L + i) * d.dv;
        for (std::int64_t c = 0; c < d.dv; ++c) o_row[c] = m.empty() ? 0.0 : static_cast<double>(acc[static_cast<std::size_t>(c)] / den);
        if (r_flags) out["empty"].data[static_cast<std::size_t>((b * d.H + h) * d.L + i)] = m.empty() ? 1.0 : 0.0;
      }
  return out;
}
// max_i beta max_mu <q_i, k_mu> (and the smallest such row maximum): exp overflows (f64: > 709.78) or every
// weight of a row underflows (< -745) without the shift
bool exp_out_of_range(const TensorMap& in) {
  const Dims4 d = dims4(in);
  const double beta = in.at("scale").data[0];
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h)
      for (std::int64_t i = 0; i < d.L; ++i) {
        const std::vector<double> a = exact_scores(in.at("q"), in.at("k"), b, h, i);
        const double mx = beta * *std::max_element(a.begin(), a.end());
        if (mx > 709.79 || mx < -745.2) return true;
      }
  return false;
}
// elu without the + 1 (features may be negative or zero: the denominators lose their sign)
template <class T> TensorMap linear_without_plus_one(const TensorMap& in) {
  const Dims4 d = dims4(in);
  const T sb = in.count("scale") ? std::sqrt(static_cast<T>(in.at("scale").data[0])) : T(1);
  auto phi = [sb](double z) { const T x = sb * static_cast<T>(z); return x > 0 ? x : std::expm1(x); };
  const Tensor &q = in.at("q"), &k = in.at("k"), &v = in.at("v");
  TensorMap out{{"o", Tensor{{d.B, d.H, d.L, d.dv}, std::vector<double>(static_cast<std::size_t>(d.B * d.H * d.L * d.dv))}}};
  for (std::int64_t b = 0; b < d.B; ++b)
    for (std::int64_t h = 0; h < d.H; ++h)
      for (std::int64_t i = 0; i < d.L; ++i) {
        T den = 0;
        std::vector<T> acc(static_cast<std::size_t>(d.dv), T(0));
        for (std::int64_t mu = 0; mu < d.M; ++mu) {
          T w = 0;
          for (std::int64_t c = 0; c < d.d; ++c)
            w += phi(q.data[((b * d.H + h) * d.L + i) * d.d + c]) * phi(k.data[((b * d.H + h) * d.M + mu) * d.d + c]);
          den += w;
          for (std::int64_t c = 0; c < d.dv; ++c) acc[static_cast<std::size_t>(c)] += w * static_cast<T>(v.data[((b * d.H + h) * d.M + mu) * d.dv + c]);
        }
        for (std::int64_t c = 0; c < d.dv; ++c)
          out["o"].data[static_cast<std::size_t>(((b * d.H + h) * d.L + i) * d.dv + c)] = static_cast<double>(acc[static_cast<std::size_t>(c)] / den);
      }
  return out;
}
TensorMap with_param(const TensorMap& in, const char* n, double v) {
  TensorMap x = in;
  x[n] = Tensor{{1}, {v}};
  return x;
}

std::vector<Mutant> build_hopfield_mutants() {
  std::vector<Mutant> v;
  // one no-max-shift mutant per softmax-family op (its kept sets)
  for (const char* name : {"hopfield_dense", "hopfield_masked_r", "hopfield_masked_u", "hopfield_window_r", "hopfield_window_causal_r",
                           "hopfield_topk_r"}) {
    const std::string n = name;
    v.push_back({std::string("hopfield_no_max_shift") + (n == "hopfield_dense" ? "" : "/" + n.substr(9)),
                 "weights exp(beta q.k) formed without the max shift (overflow / underflow gives 0/0)",
                 [n](const OpSpec& o, const TensorMap& in) { return o.name == n && exp_out_of_range(in); },
                 [n](const TensorMap& in, const KernelRun&, Precision p) {
                   return at_storage(p, [&](auto s) { return no_max_shift<decltype(s)>(op(n), in); });
                 }});
  }
  v.push_back({"hopfield_u_as_r", "reading U computed as R (the kept weights renormalised over the mask)",
               [](const OpSpec& o, const TensorMap& in) { return o.name == "hopfield_masked_u" && mask_moves_weight(in); },
               [](const TensorMap& in, const KernelRun&, Precision p) {
                 TensorMap r = at_storage(p, [&](auto s) { return run_masked<decltype(s)>(in, oh::Reading::R, false); });
                 return TensorMap{{"o", r.at("o")}};
               }});
  v.push_back({"hopfield_r_as_u", "reading R computed as U (the kept weights normalised by the full row)",
               [](const OpSpec& o, const TensorMap& in) { return o.name == "hopfield_masked_r" && mask_moves_weight(in); },
               [](const TensorMap& in, const KernelRun& good, Precision p) {
                 TensorMap out = good(in);
                 out["o"] = at_storage(p, [&](auto s) { return run_masked<decltype(s)>(in, oh::Reading::U, false); }).at("o");
                 return out;
               }});
  v.push_back({"hopfield_mask_ignored", "the mask ignored (the dense map over all M keys)",
               [](const OpSpec& o, const TensorMap& in) {
                 return (o.name == "hopfield_masked_r" || o.name == "hopfield_masked_u") && mask_moves_weight(in);
               },
               [](const TensorMap& in, const KernelRun& good, Precision p) {
                 TensorMap out = good(in);
                 TensorMap x = in;
                 x.erase("mask");
                 out["o"] = at_storage(p, [&](auto s) { return run_dense<decltype(s)>(x, 64, 256); }).at("o");
                 return out;
               }});
  v.push_back({"hopfield_window_off_by_one", "window size w + 1 instead of w",
               [](const OpSpec& o, const TensorMap& in) {
                 return (o.name == "hopfield_window_r" || o.name == "hopfield_window_causal_r") &&
                        window_moves_weight(in, o.name == "hopfield_window_causal_r", in.at("window").data[0] + 1, flag_of(in, "shift"));
               },
               [](const TensorMap& in, const KernelRun& good, Precision) { return good(with_param(in, "window", in.at("window").data[0] + 1)); }});
  v.push_back({"hopfield_window_shift_ignored", "boundary windows truncated instead of slid inward (shift ignored)",
               [](const OpSpec& o, const TensorMap& in) {
                 return o.name == "hopfield_window_r" && flag_of(in, "shift") && window_moves_weight(in, false, in.at("window").data[0], false);
               },
               [](const TensorMap& in, const KernelRun& good, Precision) {
                 TensorMap x = in;
                 x.erase("shift");
                 return good(x);
               }});
  v.push_back({"hopfield_topk_ties_dropped", "top-K with ties at the threshold dropped (EXACT instead of GE)",
               [](const OpSpec& o, const TensorMap& in) {
                 return o.name == "hopfield_topk_r" && !flag_of(in, "tie_exact") &&
                        moves_weight(in, [&](std::int64_t b, std::int64_t h, std::int64_t i) {
                          const double K = in.at("topk").data[0];
                          return std::pair(topk_set(in, b, h, i, K, false), topk_set(in, b, h, i, K, true));
                        });
               },
               [](const TensorMap& in, const KernelRun& good, Precision) { return good(with_param(in, "tie_exact", 1.0)); }});
  v.push_back({"hopfield_topk_k_minus_one", "top-K with K - 1",
               [](const OpSpec& o, const TensorMap& in) {
                 return o.name == "hopfield_topk_r" && in.at("topk").data[0] >= 2 &&
                        moves_weight(in, [&](std::int64_t b, std::int64_t h, std::int64_t i) {
                          const double K = in.at("topk").data[0];
                          const bool ex = flag_of(in, "tie_exact");
                          return std::pair(topk_set(in, b, h, i, K, ex), topk_set(in, b, h, i, K - 1, ex));
                        });
               },
               [](const TensorMap& in, const KernelRun& good, Precision) { return good(with_param(in, "topk", in.at("topk").data[0] - 1)); }});
  v.push_back({"hopfield_prf_minus_block_dropped", "hyperbolic PRF features without the e^{-w.x} block",
               [](const OpSpec& o, const TensorMap& in) { return o.name == "hopfield_prf" && flag_of(in, "hyperbolic"); },
               [](const TensorMap& in, const KernelRun& good, Precision) {
                 TensorMap x = in;
                 x.erase("hyperbolic");
                 return good(x);
               }});
  v.push_back({"hopfield_linear_elu_without_plus_one", "linear model with phi = elu (the + 1 dropped)",
               [](const OpSpec& o, const TensorMap&) { return o.name == "hopfield_linear"; },
               [](const TensorMap& in, const KernelRun&, Precision p) {
                 return at_storage(p, [&](auto s) { return linear_without_plus_one<decltype(s)>(in); });
               }});
  return v;
}

}  // namespace

void register_hopfield_implementations(Registry& r) {
  add_cpu<float>(r, Precision::f32);
  add_cpu<double>(r, Precision::f64);
}

const std::vector<Mutant>& hopfield_mutants() {
  static const std::vector<Mutant> v = build_hopfield_mutants();
  return v;
}

}  // namespace recall
