#include "recall/proofs/ledger.hpp"

#include "recall/proofs/claims.hpp"

#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace recall {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::holds: return "holds";
    case Verdict::violated: return "violated";
    case Verdict::inconclusive: return "inconclusive";
  }
  return "?";
}

void Ledger::add(Claim c) {
  if (c.id.empty() || !c.check) throw std::invalid_argument("Ledger::add: a claim needs an ID and a check");
  if (find(c.id)) throw std::invalid_argument("Ledger::add: duplicate claim " + c.id);
  claims_.push_back(std::move(c));
}

const Claim* Ledger::find(const std::string& id) const {
  for (const auto& c : claims_)
    if (c.id == id) return &c;
  return nullptr;
}

Ledger& ledger() {
  static Ledger l;
  return l;
}

void register_builtin_claims() {
  static bool done = false;
  if (done) return;
  done = true;
  Ledger& l = ledger();
  register_t1_a000_a001_claims(l);
  register_t1_a001_claims_b(l);
  register_t1_a004_claims(l);
  register_t2_a000_claims(l);
  register_t2_a001_claims(l);
  register_t2_a004_claims(l);
  register_t3_a000_forms_claims(l);
  register_t3_a000_theory_claims(l);
  register_t3_softmax_claims(l);
  register_t3_toy_train_claims(l);
}

ClaimRun run_claim(const Claim& c, const CheckConfig& cfg) {
  ClaimRun r;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    r.result = c.check(cfg);
  } catch (const std::exception& e) {
    r.ran = false;
    r.result.verdict = Verdict::inconclusive;
    r.result.reason = std::string("check could not run: ") + e.what();
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

double identity_threshold(unsigned digits, double cond) {
  const double lc = cond > 1 ? std::ceil(std::log10(cond)) : 0.0;
  return std::pow(10.0, -(static_cast<double>(digits) - 10.0 - lc));
}

IdentityCheck::IdentityCheck(std::string statistic, unsigned digits, double cond)
    : statistic_(std::move(statistic)), digits_(digits), cond_(cond) {}

bool IdentityCheck::add(const std::string& desc, const std::function<double(unsigned)>& residual) {
  if (failed_) return false;
  ++n_;
  const double r = residual(digits_);
  if (std::isnan(r) || n_ == 1 || r > worst_) {
    worst_ = std::isnan(r) ? INFINITY : r;
    worst_desc_ = desc;
  }
  const double thr = identity_threshold(digits_, cond_);
  if (!(r <= thr)) {
    // re-verify the witness at doubled digits before recording a violation (spec README, A003 C10)
    const double r2 = residual(2 * digits_);
    const double thr2 = identity_threshold(2 * digits_, cond_);
    if (!(r2 <= thr2)) {  // any confirmed witness makes the claim violated
      failed_ = true;
      witness_ = desc;
      witness_value_ = r;
      witness_value_2x_ = r2;
      return false;
    }
    if (!unconfirmed_) {
      unconfirmed_ = true;
      witness_ = desc;
      witness_value_ = r;
      witness_value_2x_ = r2;
    }
  }
  return true;
}

void IdentityCheck::exclude(const std::string& desc, const std::string& why) {
  if (excluded_++ == 0) excluded_example_ = desc + " (" + why + ")";
}

static std::string fmt_g(double x) {
  std::ostringstream s;
  s.precision(3);
  s << x;
  return s.str();
}

ClaimResult IdentityCheck::result(const CheckConfig& cfg, const std::string& sizes) const {
  ClaimResult r;
  Evidence& e = r.evidence;
  e.statistic = statistic_;
  e.threshold = identity_threshold(digits_, cond_);
  e.instances = n_;
  e.sizes = sizes;
  e.digits = digits_;
  e.seed = cfg.seed;
  if (excluded_ > 0) e.extra.emplace_back("excluded", std::to_string(excluded_) + ", e.g. " + excluded_example_);
  if (failed_) {
    r.verdict = Verdict::violated;
    e.value = witness_value_;
    e.witness = witness_;
    e.extra.emplace_back("residual_at_doubled_digits", fmt_g(witness_value_2x_));
    r.reason = "smallest failing instance, confirmed at " + std::to_string(2 * digits_) + " digits";
  } else if (n_ == 0) {
    r.verdict = Verdict::inconclusive;
    r.reason = "no instance could be evaluated";
  } else if (unconfirmed_) {
    r.verdict = Verdict::inconclusive;
    e.value = witness_value_;
    e.witness = witness_;
    e.extra.emplace_back("residual_at_doubled_digits", fmt_g(witness_value_2x_));
    r.reason = "a failing instance was not confirmed at doubled digits";
  } else {
    r.verdict = Verdict::holds;
    e.value = worst_;
    e.witness = worst_desc_;
    r.reason = "all " + std::to_string(n_) + " instances within the threshold";
  }
  return r;
}

}  // namespace recall
