// recall: the test-bed's command-line program (list, check, report).
#include "recall/tools/app.hpp"

#include <CLI/CLI.hpp>

#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{"recall: numerical verification test-bed for associative-memory sequence layers"};
  app.require_subcommand(1);

  auto* list = app.add_subcommand("list", "list every spec ID with its status");
  std::string list_format = "tsv";
  list->add_option("--format", list_format, "output format")->check(CLI::IsMember({"tsv"}));

  auto* check = app.add_subcommand("check", "run claim checks and print verdicts with evidence");
  std::vector<std::string> ids;
  std::string check_format = "text";
  bool full = false;
  std::uint64_t seed = recall::CheckConfig{}.seed;
  unsigned digits = 50;
  check->add_option("ids", ids, "spec IDs")->required();
  check->add_option("--format", check_format, "text or json (one object per line)")->check(CLI::IsMember({"text", "json"}));
  check->add_flag("--full", full, "run the full campaign instead of the quick one");
  check->add_option("--seed", seed, "seed of the instance generators");
  check->add_option("--digits", digits, "working digits of multiprecision checks")->check(CLI::Range(20u, 2000u));

  auto* report = app.add_subcommand("report", "agreement table of every implementation and the claims ledger");
  std::string out_dir = "recall-report";
  bool quick = false;
  report->add_option("--out", out_dir, "output directory for report.md and report.json");
  report->add_flag("--quick", quick, "the quick case list and quick claim checks");
  report->add_option("--seed", seed, "seed of the instance generators");

  CLI11_PARSE(app, argc, argv);
  try {
    if (*list) {
      recall::print_list_tsv(std::cout);
      return 0;
    }
    recall::CheckConfig cfg;
    cfg.seed = seed;
    cfg.digits = digits;
    if (*check) {
      cfg.quick = !full;
      return recall::cmd_check(ids, check_format == "json", cfg, std::cout, std::cerr);
    }
    if (*report) {
      cfg.quick = quick;
      return recall::cmd_report(out_dir, cfg, std::cout, std::cerr);
    }
  } catch (const std::exception& e) {
    std::cerr << "recall: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
