// tools/ — the `recall` program and its library. Nothing here computes a number: the commands
// read the registries (ops and kernels: properties/, claims: proofs_numeric/), run them, and render
// the results through one output layer (table.hpp: text, Markdown, TSV, JSON, JUnit). list (the
// spec catalogue with statuses and, via where.hpp, every ID's file:line), check (claim verdicts),
// report (agreement + discrimination + ledger), validate / dump (validate.hpp: outside kernels on
// .npy/.npz files, npy.hpp).
//
// This header: the spec catalogue with statuses, `check` and `report`.
#pragma once

#include "recall/properties/agreement.hpp"
#include "recall/properties/discrimination.hpp"
#include "recall/proofs/ledger.hpp"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace recall {

struct SpecEntry {
  std::string id, kind, where, title;
  std::string status;  // todo | reference | tested | not-numeric
  std::string note;
};

// IDs of a spec tsv block (first column of each non-empty line).
std::vector<std::string> parse_spec_ids(const std::string& tsv);
// The embedded catalogue (spec/ids.tsv), with the status of each ID derived from the code:
// tested = a ledger check or a registered op serves it (both are run by the test suite).
std::vector<SpecEntry> spec_catalog();
// id, kind, status, note, where (tools/where.hpp: ref=, op=, kernel=, claim=, test= file:line)
void print_list_tsv(std::ostream& os);
// the same table as tsv, json (where as an array of {role, file, line, name}) or md
void print_list(std::ostream& os, const std::string& format);
// `recall check ID --where`: one line per location (id, role, file:line, name)
void print_where(const std::string& id, std::ostream& os);

nlohmann::json claim_json(const Claim& c, const ClaimRun& r);

// `recall check ID...`: returns 0 when every check ran, 2 when an ID is unknown, 3 when a check could not run.
int cmd_check(const std::vector<std::string>& ids, bool json, const CheckConfig& cfg, std::ostream& os, std::ostream& err);
// `recall report`: agreement table + ledger, Markdown and JSON into out_dir, summary to os.
// mutation_tsv: a table written by ci/mutate (fault, stage, first failing test, seconds), shown as
// the report's "Mutation testing" section; empty: no such section.
int cmd_report(const std::string& out_dir, const CheckConfig& cfg, std::ostream& os, std::ostream& err,
               const std::string& mutation_tsv = "");
// Sharded campaigns (GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX over the Campaign/ClaimCampaign tests):
// each shard saves its claim runs as DIR/<ID>.claimrun.cbor; `recall report --merge DIR...` joins
// them in ledger order into out_dir/ledger.md and ledger.json (the report's claims table and figures).
// A claim present twice, a file that is not a claim run, or an unregistered ID is an error (2).
void save_claim_run(const std::string& dir, const std::string& id, const ClaimRun& r);
int cmd_merge(const std::vector<std::string>& dirs, const std::string& out_dir, std::ostream& os, std::ostream& err);

}  // namespace recall
