// properties/ — where kernels meet references. ops.hpp binds spec IDs to an op (layout, oracle =
// the reference/ template at high precision, baseline, generator); this registry binds kernels
// (optimized/, gpu/, a user's) to an op; budget.hpp judges a kernel's outputs against the oracle;
// agreement.hpp and discrimination.hpp run every kernel on generated inputs; properties/tests holds
// the test suites (one file per op family or reference header). Registrations record their call
// site (file:line), which `recall list` prints as the `where` of an ID.
//
// The registry of implementations (DESIGN idea 2). A kernel registers once
// {op, name, device, precision, function} and gets the whole agreement suite and the report.
#pragma once

#include "recall/properties/tensor.hpp"

#include <functional>
#include <source_location>
#include <string>
#include <vector>

namespace recall {

struct Implementation {
  std::string op;        // an OpSpec name
  std::string name;      // e.g. "cpu.chunked.c64"
  std::string device;    // "cpu", "cuda:0", "user"
  Precision precision;   // storage precision of the kernel's inputs and outputs (bf16/f16: f32 accumulation)
  // Inputs hold values exactly representable in `precision`; outputs are returned as double.
  std::function<TensorMap(const TensorMap&)> run;
  std::string note;
  // where it was registered (Registry::add's call site, relative to the repository)
  std::string file;
  unsigned line = 0;
};

class Registry {
 public:
  // throws on unknown op or duplicate name; records the call site unless impl.file is set
  void add(Implementation impl, std::source_location at = std::source_location::current());
  const std::vector<Implementation>& all() const { return impls_; }
  std::vector<const Implementation*> for_op(const std::string& op) const;

 private:
  std::vector<Implementation> impls_;
};

Registry& registry();
// Registers the optimized/ (and gpu/, when built and a device is present) kernels; idempotent.
void register_builtin_implementations();
// Families registered from their own translation units (called by register_builtin_implementations).
void register_delta_implementations(Registry& r);    // registry_delta.cpp
void register_softmax_implementations(Registry& r);  // registry_softmax.cpp
void register_regression_implementations(Registry& r);  // registry_regression.cpp
void register_hopfield_implementations(Registry& r);    // registry_hopfield.cpp (optimized/hopfield kernels)
void register_omega_implementations(Registry& r);       // registry_omega.cpp (optimized/omega, newton_schulz kernels)
void register_gpu_implementations(Registry& r);      // registry_gpu.cpp (only with gpu/ built and a device present)
// tc_emulation.cpp: bf16/f16 tensor-core-style kernels ("emu.tensorcore"), judged by the
// discrimination suite; not in the global registry (see the file's comment)
void add_tensor_core_emulations(Registry& r);
const std::vector<Implementation>& tensor_core_emulations();
// For every CPU kernel registered in f32 (and not yet in bf16/f16): a 16-bit-storage twin that runs
// it on the storage inputs in f32 and rounds its outputs to the storage format.
void register_half_storage_twins(Registry& r);
bool gpu_available(std::string* why);                // false, with the reason, when no GPU rows can run

}  // namespace recall
