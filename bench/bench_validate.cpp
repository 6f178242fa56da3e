// What `recall validate` costs at a realistic size (issue 16: at most 30 s on the 2-core machine for
// a delta-rule case at B=1 H=2 T=4096 d=128): the oracle (MP, precision escalation, heads in
// parallel), the same-precision baseline, the sensitivity (3 perturbed re-evaluations in double)
// and the per-row judgement of one kernel's outputs. One iteration per run; wall time (the work is
// multi-threaded). Also the parts alone, so a regression can be located.
#include "recall/properties/budget.hpp"
#include "recall/properties/registry.hpp"

#include <benchmark/benchmark.h>

namespace {

using namespace recall;

TensorMap inputs(const char* opname, int T, int d, Precision p) {
  CaseKnobs k;
  k.B = 1, k.H = 2, k.T = T, k.dk = d, k.dv = d;
  k.keys = KeyKind::unit_sphere;
  k.betas = BetaKind::unit_interval;
  k.gates = GateKind::uniform;
  k.initial_state = true;
  k.seed = 5;
  return op(opname).generate(k, p);
}

const Implementation& kernel(const char* opname, Precision p) {
  register_builtin_implementations();
  for (const auto* i : registry().for_op(opname))
    if (i->precision == p && i->name == "cpu.chunked.c64") return *i;
  throw std::runtime_error("no cpu.chunked.c64 kernel");
}

// The whole judgement of one kernel output: what validate does after reading the files.
void BM_ValidateDeltaRule(benchmark::State& st) {
  const Precision p = static_cast<Precision>(st.range(2));
  const TensorMap in = inputs("delta_rule", int(st.range(0)), int(st.range(1)), p);
  const TensorMap out = kernel("delta_rule", p).run(in);
  for (auto _ : st) {
    const Reference ref = make_reference(op("delta_rule"), in, p);
    const Judgement j = judge(ref, out);
    benchmark::DoNotOptimize(j.pass);
    st.counters["pass"] = j.pass;
  }
  st.SetLabel(std::string(precision_name(p)) + " B=1 H=2");
}
BENCHMARK(BM_ValidateDeltaRule)
    ->Args({4096, 128, int(Precision::f32)})
    ->Args({4096, 128, int(Precision::bf16)})
    ->Args({1000, 64, int(Precision::f32)})
    ->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);

void BM_OracleDeltaRule(benchmark::State& st) {
  const TensorMap in = inputs("delta_rule", int(st.range(0)), int(st.range(1)), Precision::f32);
  for (auto _ : st) benchmark::DoNotOptimize(compute_oracle(op("delta_rule"), in, unit_roundoff(Precision::f32)).digits);
}
BENCHMARK(BM_OracleDeltaRule)->Args({4096, 128})->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);

void BM_SensitivityDeltaRule(benchmark::State& st) {
  const TensorMap in = inputs("delta_rule", int(st.range(0)), int(st.range(1)), Precision::f32);
  for (auto _ : st) benchmark::DoNotOptimize(budget_inputs(op("delta_rule"), in, Precision::f32).m);
}
BENCHMARK(BM_SensitivityDeltaRule)->Args({4096, 128})->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
