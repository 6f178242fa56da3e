// The claims ledger (DESIGN idea 5). A claim is registered under its spec ID with a check that
// computes a verdict — holds / violated (smallest witness found, margin) / inconclusive — and
// the evidence. Verdicts are never typed in: they come out of the check.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace recall {

enum class Verdict { holds, violated, inconclusive };
const char* verdict_name(Verdict v);

// Check classes of the spec README §2.
namespace check_class {
inline constexpr const char* identity = "identity";
inline constexpr const char* inequality = "inequality";
inline constexpr const char* statistical = "statistical";
inline constexpr const char* descriptive = "descriptive";
inline constexpr const char* scaling = "scaling";
inline constexpr const char* reproduction = "reproduction";
}  // namespace check_class

// A figure a claim contributes to the report (report.json "figures", kind "lines", group "claims";
// data only, tools/render_figures.py draws it): e.g. an experiment's error curves or a bound vs the
// actual value over an adversarial search. Non-finite numbers are written as null (skipped).
struct FigureSeries {
  std::string name;
  std::vector<double> x, y;       // same length
  std::string style = "solid";    // solid | dashed | dotted | dashdot
  std::string marker;             // "" or one of o s ^ v D x + * < > d p h .
  std::string group;              // series of one group share a colour (empty: its own)
};
struct ClaimFigure {
  std::string id;                 // unique within the claim, [A-Za-z0-9_.-]; the report prefixes the claim ID
  std::string title, caption;
  std::string x_label, y_label;
  std::string x_scale = "linear", y_scale = "linear";  // linear | log
  std::vector<FigureSeries> series;
};

struct Evidence {
  std::string statistic;        // what was measured, e.g. "max relative residual"
  double value = 0;             // its worst value over the instances
  double threshold = 0;         // the decision threshold it is compared with
  std::string witness;          // smallest failing (or worst) instance, 1-based indices
  int instances = 0;            // instances tried
  std::string sizes;            // sizes / generators covered
  unsigned digits = 0;          // working digits of the check (0: double)
  std::uint64_t seed = 0;
  std::vector<std::pair<std::string, std::string>> extra;  // further named figures
  std::vector<ClaimFigure> figures;  // curves for the report's figures (optional)
};

struct ClaimResult {
  Verdict verdict = Verdict::inconclusive;
  std::string reason;
  Evidence evidence;
};

struct CheckConfig {
  std::uint64_t seed = 20261122;
  bool quick = true;        // the fast suite's scaled-down budget; false: the full campaign
  unsigned digits = 50;     // working digits of MP checks (P-50)
};

struct Claim {
  std::string id;           // spec ID
  std::string title;
  std::string check_class;  // one of check_class::*
  // true when the check is an identity between forms this project implements (a failure is a
  // bug here, so the test suite asserts `holds`); false for the papers' claims, whose verdict is
  // a finding (the suite asserts only that the check runs and is reproducible).
  bool internal = false;
  std::function<ClaimResult(const CheckConfig&)> check;
  // where the claim was registered (source file relative to the repository, line): the register
  // function at the bottom of proofs_numeric/<paper>/<section>.cpp, beside the check named after the ID
  std::string file;
  unsigned line = 0;
};

class Ledger {
 public:
  void add(Claim c);  // throws on duplicate ID
  const Claim* find(const std::string& id) const;
  const std::vector<Claim>& all() const { return claims_; }

 private:
  std::vector<Claim> claims_;
};

Ledger& ledger();
void register_builtin_claims();  // idempotent

// Run a claim, catching exceptions into an inconclusive verdict with the error as the reason
// (ran == false then).
struct ClaimRun {
  ClaimResult result;
  bool ran = true;
  double seconds = 0;
};
ClaimRun run_claim(const Claim& c, const CheckConfig& cfg);

// ---- helpers for checks ------------------------------------------------------------------

// R-ID threshold at d working digits for a problem of condition `cond` (spec C9):
// 10^-(d - 10 - ceil(log10 cond)).
double identity_threshold(unsigned digits, double cond = 1.0);

// Accumulates an identity (or inequality) check over instances tried smallest first. The first
// failing instance is the witness (instances are generated in increasing size, so it is the
// smallest found); before it is reported as a violation it is re-evaluated at doubled digits.
// The decision shared by the checks that evaluate instances at `digits` and confirm any failure
// at doubled digits (IdentityCheck below; exact-zero checks of the claim files): a failure seen at
// both precisions is `violated` (the first such instance is the witness), one seen only at `digits`
// makes the claim `inconclusive`, no instance at all too; otherwise `holds` with the worst instance.
struct DoubledDigitsTally {
  int n = 0;                   // instances evaluated
  bool failed = false;         // a failure confirmed at doubled digits
  bool unconfirmed = false;    // a failure not confirmed at doubled digits
  std::string witness;         // the instance of the failure
  double witness_value = 0;    // its statistic at `digits`
  std::string witness_value_2x;  // its statistic at doubled digits, formatted
  double worst = 0;            // the largest statistic over the instances
  std::string worst_desc;
};
// Fills verdict, reason, value, witness and the doubled-digits extra (named `extra_key`) of r;
// `holds_reason` is the reason when every instance passes.
void decide_doubled_digits(const DoubledDigitsTally& t, unsigned digits, const std::string& extra_key, const std::string& holds_reason,
                           ClaimResult& r);

class IdentityCheck {
 public:
  IdentityCheck(std::string statistic, unsigned digits, double cond = 1.0);
  // residual(digits) evaluates the instance at the given working digits; desc describes it.
  // Returns false once a confirmed failure has been recorded (callers may stop early).
  bool add(const std::string& desc, const std::function<double(unsigned)>& residual);
  // Record an instance that is excluded from the decision (e.g. a vanishing denominator).
  void exclude(const std::string& desc, const std::string& why);
  ClaimResult result(const CheckConfig& cfg, const std::string& sizes) const;
  double worst() const { return worst_; }
  int instances() const { return n_; }

 private:
  std::string statistic_;
  unsigned digits_;
  double cond_;
  double worst_ = 0;
  std::string worst_desc_;
  int n_ = 0, excluded_ = 0;
  std::string excluded_example_;
  bool failed_ = false, unconfirmed_ = false;
  std::string witness_;
  double witness_value_ = 0, witness_value_2x_ = 0;
};

}  // namespace recall
