// recall: the test-bed's command-line program (list, check, report).
#include "recall/tools/app.hpp"
#include "recall/tools/validate.hpp"

#include <CLI/CLI.hpp>

#include <iostream>
#include <sstream>

int main(int argc, char** argv) {
  CLI::App app{"recall: numerical verification test-bed for associative-memory sequence layers"};
  app.require_subcommand(1);

  auto* list = app.add_subcommand("list", "list every spec ID with its status");
  std::string list_format = "tsv";
  list->add_option("--format", list_format, "tsv (id, kind, status, note, where), json or md")->check(CLI::IsMember({"tsv", "json", "md"}));

  auto* check = app.add_subcommand("check", "run claim checks and print verdicts with evidence");
  std::vector<std::string> ids;
  std::string check_format = "text";
  bool full = false;
  std::uint64_t seed = recall::CheckConfig{}.seed;
  unsigned digits = 50;
  check->add_option("ids", ids, "spec IDs, or `all` for the whole ledger")->required();
  check->add_option("--format", check_format, "text or json (one object per line)")->check(CLI::IsMember({"text", "json"}));
  check->add_flag("--full", full, "run the full campaign instead of the quick one");
  bool where_only = false;
  check->add_flag("--where", where_only, "print where each ID's reference, op, kernels, claim check and tests are (file:line); run nothing");
  check->add_option("--seed", seed, "seed of the instance generators");
  check->add_option("--digits", digits, "working digits of multiprecision checks")->check(CLI::Range(20u, 2000u));

  auto* report = app.add_subcommand("report", "agreement table of every implementation and the claims ledger");
  std::string out_dir = "recall-report";
  bool quick = false;
  bool report_full = false;
  report->add_option("--out", out_dir, "output directory for report.md, report.json and report.html");
  report->add_flag("--quick", quick, "the quick campaign (the default; minutes)");
  report->add_flag("--full", report_full, "the full campaign: every precision, T up to 4096, full claim checks (an hour on 2 cores)");
  report->add_option("--seed", seed, "seed of the instance generators");
  std::vector<std::string> merge_dirs;
  report->add_option("--merge", merge_dirs, "merge the claim runs saved by a sharded campaign (DIR...) into --out's ledger.md / ledger.json")
      ->check(CLI::ExistingDirectory);
  std::string mutation_tsv;
  report->add_option("--mutation", mutation_tsv, "ci/mutate's mutation.tsv: adds the mutation-testing table (fault -> first test that caught it)");

  auto* validate = app.add_subcommand("validate", "judge a kernel's outputs (NumPy .npy/.npz) against the MP reference");
  recall::ValidateOptions vo;
  bool list_ops = false;
  validate->add_flag("--list-ops", list_ops, "print every op with its input/output layout and exit");
  validate->add_option("--op", vo.op, "op name (see --list-ops)");
  validate->add_option("--inputs", vo.inputs, ".npz (or .npy) holding the op's inputs");
  validate->add_option("--outputs", vo.outputs, ".npz (or .npy) holding the kernel's outputs");
  validate->add_option("--dtype", vo.dtype, "working precision: f16, bf16 (stored as uint16), f32, f64, or auto (from the outputs)")
      ->check(CLI::IsMember({"auto", "f16", "bf16", "f32", "f64"}));
  validate->add_option("--format", vo.format, "text, json or junit")->check(CLI::IsMember({"text", "json", "junit"}));
  auto layout_options = [](CLI::App* c, recall::LayoutOptions& lo, double& q_scale) {
    c->add_option("--layout", lo.layout, "token tensors [B,H,T,d] (bhtd, the default) or [B,T,H,d] (bthd, PyTorch / GPU libraries)")
        ->check(CLI::IsMember({"bhtd", "bthd"}));
    c->add_option("--state-layout", lo.state_layout, "states [B,H,dv,dk] (vk, the default) or [B,H,dk,dv] (kv, GPU libraries)")
        ->check(CLI::IsMember({"vk", "kv"}));
    c->add_option("--q-scale", q_scale,
                  "scale multiplying q.k: the `scale` input of softmax/DeltaFormer ops (default 1/sqrt(dk)); for the other ops q is "
                  "multiplied by it (default: none)")
        ->check(CLI::PositiveNumber);
  };
  double validate_q_scale = 0, dump_q_scale = 0;
  layout_options(validate, vo.layout, validate_q_scale);

  auto* dump = app.add_subcommand("dump", "write generated inputs of an op (corner-case generators included) as .npz");
  recall::DumpOptions dopt;
  std::string keys = "gaussian", gates = "uniform", betas = "mixed";
  dump->add_option("--op", dopt.op, "op name")->required();
  dump->add_option("--shape", dopt.shape, "dimensions, e.g. B=1,H=2,T=65,dk=16,dv=16")->required();
  dump->add_option("--seed", dopt.knobs.seed, "generator seed")->required();
  dump->add_option("--out", dopt.out, "output .npz")->required();
  dump->add_option("--dtype", dopt.dtype, "storage dtype: f16, bf16, f32, f64")->check(CLI::IsMember({"f16", "bf16", "f32", "f64"}));
  dump->add_option("--keys", keys, "gaussian, near_zero, near_parallel, correlated, unit_sphere, integer");
  dump->add_option("--gates", gates, "ones, uniform, beta51, zeros_mixed, tiny, near_one, saturating, constant");
  dump->add_option("--betas", betas, "delta-rule ops: beta_t |k_t|^2 kind: mixed, unit_interval, zero_one, near_two, beyond_two");
  dump->add_option("--scale-exp", dopt.knobs.scale_exp, "keys and queries scaled by 10^a")->check(CLI::Range(-30, 30));
  dump->add_flag("--initial-state", dopt.knobs.initial_state, "include an initial state s0 (and z0)");
  layout_options(dump, dopt.layout, dump_q_scale);

  CLI11_PARSE(app, argc, argv);
  try {
    if (*validate) {
      if (list_ops) {
        recall::print_ops(std::cout);
        return 0;
      }
      if (vo.op.empty() || vo.inputs.empty() || vo.outputs.empty()) {
        std::cerr << "recall validate: --op, --inputs and --outputs are required (or --list-ops)\n";
        return 2;
      }
      if (validate_q_scale > 0) vo.layout.q_scale = validate_q_scale;
      return recall::cmd_validate(vo, std::cout, std::cerr);
    }
    if (*dump) {
      dopt.knobs.keys = recall::parse_key_kind(keys);
      dopt.knobs.gates = recall::parse_gate_kind(gates);
      dopt.knobs.betas = recall::parse_beta_kind(betas);
      if (dump_q_scale > 0) dopt.layout.q_scale = dump_q_scale;
      return recall::cmd_dump(dopt, std::cout, std::cerr);
    }
    if (*list) {
      recall::print_list(std::cout, list_format);
      return 0;
    }
    recall::CheckConfig cfg;
    cfg.seed = seed;
    cfg.digits = digits;
    if (*check && where_only) {
      for (const auto& id : ids) {
        std::ostringstream o;
        recall::print_where(id, o);
        if (o.str().empty()) {
          std::cerr << "recall check --where: nothing in the code cites '" << id << "' (see `recall list`)\n";
          return 2;
        }
        std::cout << o.str();
      }
      return 0;
    }
    if (*check) {
      cfg.quick = !full;
      return recall::cmd_check(ids, check_format == "json", cfg, std::cout, std::cerr);
    }
    if (*report) {
      if (quick && report_full) {
        std::cerr << "recall report: --quick and --full exclude each other\n";
        return 2;
      }
      if (!merge_dirs.empty()) return recall::cmd_merge(merge_dirs, out_dir, std::cout, std::cerr);
      cfg.quick = !report_full;
      return recall::cmd_report(out_dir, cfg, std::cout, std::cerr, mutation_tsv);
    }
  } catch (const std::exception& e) {
    std::cerr << "recall: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
