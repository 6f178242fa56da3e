// The reported tables of seed A002 (Atlas, §6, App. E-F) as data: the loader of the transcription
// proofs_numeric/a002_atlas/data/a002_reported_tables.inc (embedded at compile time by
// proofs_numeric/a002_atlas/reported_tables.cpp, so no runtime path is needed), the exact decimal arithmetic the
// table claims use (printed decimals as integers; rounding intervals derived from the printed number of digits),
// and the table-level evaluations behind A002-REPORTED-TABLES, A002-ARCH-DETAILS, A002-TAB-AVG, A002-TAB6-PPL,
// A002-TAB6-POSITIVE, A002-TAB6-HYBRID, A002-TAB2-DT-GAIN, A002-TAB2-NONHYBRID-BEST, A002-TAB3-NIAH, A002-TAB4-MAD and
// A002-TAB5-RECALL (defined in reported_tables*.cpp; they take the tables as an argument, so a test can evaluate a
// corrupted copy: a changed cell must flip the verdict).
// The loader rejects a malformed file with std::invalid_argument "<file>:<line>: field '<field>': <what>".
#pragma once

#include "recall/proofs/ledger.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace recall::a002_tables {

// where the embedded transcription lives (error messages name it)
inline constexpr const char* kDataFile = "proofs_numeric/a002_atlas/data/a002_reported_tables.inc";

// Column kinds: ppl (perplexity, > 0), pct (score in [0, 100]), integer (positive), sci (positive, 1.25e-3),
// tokens (30B), size (760M, 1.3B).
enum class Kind { ppl, pct, integer, sci, tokens, size };

struct Cell {
  std::string text;      // as printed ("NA": missing or unreadable)
  bool missing = false;
  long long units = 0;   // ppl / pct / integer: the printed value times 10^dp (exact)
  int dp = 0;            // printed decimals
  double value = NAN;    // every numeric kind (sci; tokens and size in units of 1e6 for M, 1e9 for B)
};
struct Column {
  std::string name;
  Kind kind = Kind::pct;
};
struct Row {
  std::string name, block;
  std::vector<Cell> cells;
  int line = 0;  // line in the data file
};
struct Average {
  std::string target;
  std::vector<std::string> inputs;
};
struct Table {
  std::string id, title, source;
  std::vector<Column> cols;
  std::vector<Average> averages;
  std::vector<std::string> lost, notes, blocks;
  std::vector<Row> rows;
  // index of a column; throws std::invalid_argument naming the table and the column
  std::size_t col(const std::string& name) const {
    for (std::size_t i = 0; i < cols.size(); ++i)
      if (cols[i].name == name) return i;
    throw std::invalid_argument("table " + id + ": no column '" + name + "'");
  }
  // the row `name` of the block whose label starts with `block` ("" = any block); nullptr if absent
  const Row* find(const std::string& block, const std::string& name) const {
    for (const Row& r : rows)
      if (r.name == name && r.block.compare(0, block.size(), block) == 0) return &r;
    return nullptr;
  }
};
struct Tables {
  std::string file;
  std::vector<Table> tables;
  const Table* find(const std::string& id) const {
    for (const Table& t : tables)
      if (t.id == id) return &t;
    return nullptr;
  }
  const Table& get(const std::string& id) const {
    if (const Table* t = find(id)) return *t;
    throw std::invalid_argument(file + ": field 'table " + id + "': table missing");
  }
};

// ---- loader ----------------------------------------------------------------------------------------------

namespace detail {

inline std::string trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}
inline std::vector<std::string> split_ws(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    std::size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}
inline bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}
// "ddd" or "ddd.ddd" (at most 6 decimals) -> units, dp; false if malformed
inline bool parse_decimal(std::string_view s, long long& units, int& dp) {
  const std::size_t dot = s.find('.');
  const std::string_view ip = s.substr(0, dot), fp = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  if (!all_digits(ip) || ip.size() > 9 || (dot != std::string_view::npos && (!all_digits(fp) || fp.size() > 6))) return false;
  units = 0;
  for (char c : ip) units = units * 10 + (c - '0');
  for (char c : fp) units = units * 10 + (c - '0');
  dp = static_cast<int>(fp.size());
  return true;
}
inline bool parse_kind(const std::string& k, Kind& out) {
  static const std::pair<const char*, Kind> names[] = {{"ppl", Kind::ppl},   {"pct", Kind::pct},       {"int", Kind::integer},
                                                       {"sci", Kind::sci},   {"tokens", Kind::tokens}, {"size", Kind::size}};
  for (const auto& [n, v] : names)
    if (k == n) {
      out = v;
      return true;
    }
  return false;
}
// parses one cell of the given kind; returns "" or what is wrong
inline std::string parse_cell(const std::string& s, Kind kind, Cell& c) {
  c = Cell{};
  c.text = s;
  if (s == "NA") {
    c.missing = true;
    return "";
  }
  switch (kind) {
    case Kind::ppl:
    case Kind::pct:
    case Kind::integer: {
      if (!parse_decimal(s, c.units, c.dp)) return "not a decimal number";
      c.value = static_cast<double>(c.units) / std::pow(10.0, c.dp);
      if (kind == Kind::integer && c.dp != 0) return "not an integer";
      if ((kind == Kind::ppl || kind == Kind::integer) && c.units <= 0) return "must be > 0";
      if (kind == Kind::pct && c.value > 100.0) return "score above 100";
      return "";
    }
    case Kind::sci: {
      const std::size_t e = s.find('e');
      long long u = 0;
      int dp = 0;
      if (e == std::string::npos || !parse_decimal(s.substr(0, e), u, dp)) return "not of the form <decimal>e<exponent>";
      std::string ex = s.substr(e + 1);
      const bool neg = !ex.empty() && ex[0] == '-';
      if (neg) ex = ex.substr(1);
      if (!all_digits(ex) || ex.size() > 3 || u <= 0) return "not a positive <decimal>e<exponent>";
      c.value = static_cast<double>(u) / std::pow(10.0, dp) * std::pow(10.0, (neg ? -1 : 1) * std::stoi(ex));
      return "";
    }
    case Kind::tokens:
    case Kind::size: {
      const char unit = s.empty() ? '\0' : s.back();
      const bool ok_unit = kind == Kind::tokens ? unit == 'B' : (unit == 'M' || unit == 'B');
      if (!ok_unit || !parse_decimal(s.substr(0, s.size() - 1), c.units, c.dp) || c.units <= 0)
        return kind == Kind::tokens ? "not of the form <decimal>B" : "not of the form <decimal>M or <decimal>B";
      c.value = static_cast<double>(c.units) / std::pow(10.0, c.dp) * (unit == 'M' ? 1e6 : 1e9);
      return "";
    }
  }
  return "unknown kind";
}

}  // namespace detail

// Parses the transcription format documented at the top of the data file. Throws std::invalid_argument
// "<file>:<line>: field '<field>': <what>" on the first malformed line.
inline Tables parse_tables(std::string_view text, const std::string& file) {
  using namespace detail;
  Tables out;
  out.file = file;
  Table* cur = nullptr;
  std::string block;
  int ln = 0;
  auto fail = [&](const std::string& field, const std::string& what) {
    throw std::invalid_argument(file + ":" + std::to_string(ln) + ": field '" + field + "': " + what);
  };
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string line = trim(text.substr(pos, nl - pos));
    pos = nl + 1;
    ++ln;
    if (line.empty() || line[0] == '#') continue;
    const std::size_t sp = line.find_first_of(" \t");
    const std::string key = line.substr(0, sp), rest = sp == std::string::npos ? std::string() : trim(line.substr(sp));
    if (key == "table") {
      if (cur) fail("table", "table " + cur->id + " is not closed by 'end'");
      if (rest.empty() || !std::all_of(rest.begin(), rest.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
        fail("table", "ID must match [A-Za-z0-9_]+, got '" + rest + "'");
      if (out.find(rest)) fail("table", "duplicate table ID '" + rest + "'");
      out.tables.push_back(Table{});
      cur = &out.tables.back();
      cur->id = rest;
      block.clear();
      continue;
    }
    if (!cur) fail(key, "directive outside a table");
    const std::string tf = "table " + cur->id + " ";
    if (key == "end") {
      if (cur->cols.empty()) fail(tf + "columns", "missing");
      if (cur->rows.empty()) fail(tf + "rows", "table has no rows");
      cur = nullptr;
    } else if (key == "title" || key == "source" || key == "lost" || key == "note") {
      if (rest.empty()) fail(tf + key, "empty");
      if (key == "title") cur->title = rest;
      else if (key == "source") cur->source = rest;
      else (key == "lost" ? cur->lost : cur->notes).push_back(rest);
    } else if (key == "columns") {
      if (!cur->cols.empty()) fail(tf + "columns", "given twice");
      const auto toks = split_ws(rest);
      if (toks.empty()) fail(tf + "columns", "empty");
      for (std::size_t i = 0; i < toks.size(); ++i) {
        const std::size_t c = toks[i].find(':');
        Column col;
        col.name = toks[i].substr(0, c);
        if (c == std::string::npos || col.name.empty() || !parse_kind(toks[i].substr(c + 1), col.kind))
          fail(tf + "columns[" + std::to_string(i + 1) + "]", "expected <name>:<ppl|pct|int|sci|tokens|size>, got '" + toks[i] + "'");
        for (const Column& o : cur->cols)
          if (o.name == col.name) fail(tf + "columns[" + std::to_string(i + 1) + "]", "duplicate column '" + col.name + "'");
        cur->cols.push_back(col);
      }
    } else if (key == "average") {
      if (cur->cols.empty()) fail(tf + "average", "before 'columns'");
      const auto toks = split_ws(rest);
      if (toks.size() < 3 || toks[1] != "=") fail(tf + "average", "expected <column> = <column> <column> ...");
      Average a;
      a.target = toks[0];
      a.inputs.assign(toks.begin() + 2, toks.end());
      auto known = [&](const std::string& n) {
        return std::any_of(cur->cols.begin(), cur->cols.end(), [&](const Column& c) { return c.name == n; });
      };
      if (!known(a.target)) fail(tf + "average", "unknown column '" + a.target + "'");
      for (const auto& n : a.inputs) {
        if (!known(n)) fail(tf + "average", "unknown column '" + n + "'");
        if (n == a.target) fail(tf + "average", "column '" + n + "' averages itself");
        if (std::count(a.inputs.begin(), a.inputs.end(), n) > 1) fail(tf + "average", "column '" + n + "' listed twice");
      }
      cur->averages.push_back(a);
    } else if (key == "block") {
      if (rest.empty()) fail(tf + "block", "empty label");
      if (std::find(cur->blocks.begin(), cur->blocks.end(), rest) != cur->blocks.end()) fail(tf + "block", "duplicate block '" + rest + "'");
      block = rest;
      cur->blocks.push_back(rest);
    } else if (key == "row") {
      if (cur->cols.empty()) fail(tf + "row", "before 'columns'");
      const std::size_t bar = rest.find('|');
      if (bar == std::string::npos) fail(tf + "row", "expected <name> | <cells>");
      Row r;
      r.name = trim(std::string_view(rest).substr(0, bar));
      r.block = block;
      r.line = ln;
      if (r.name.empty()) fail(tf + "row.name", "empty");
      const std::string rf = tf + "row '" + r.name + "'";
      if (std::any_of(cur->rows.begin(), cur->rows.end(), [&](const Row& o) { return o.name == r.name && o.block == block; }))
        fail(rf, "duplicate row" + (block.empty() ? std::string() : " in block '" + block + "'"));
      const auto toks = split_ws(std::string_view(rest).substr(bar + 1));
      if (toks.size() != cur->cols.size())
        fail(rf + " cells", "expected " + std::to_string(cur->cols.size()) + " cells, got " + std::to_string(toks.size()));
      for (std::size_t i = 0; i < toks.size(); ++i) {
        Cell c;
        const std::string err = parse_cell(toks[i], cur->cols[i].kind, c);
        if (!err.empty()) fail(rf + " column '" + cur->cols[i].name + "'", err + " ('" + toks[i] + "')");
        r.cells.push_back(c);
      }
      cur->rows.push_back(r);
    } else {
      fail("directive", "unknown directive '" + key + "'");
    }
  }
  if (cur) fail("table " + cur->id, "not closed by 'end' at the end of the file");
  if (out.tables.empty()) fail("table", "no table in the file");
  return out;
}

// ---- exact decimal arithmetic on printed cells -----------------------------------------------------------

// Consistency of a printed value A with the mean of printed inputs x_1..x_n. Each printed number with d decimals
// stands for a true value in [x - h, x + h], h = 5 * 10^-(d+1), clipped to the kind's range ([0, 100] for scores);
// A is consistent iff some true inputs have a mean that rounds to A, i.e. the interval of possible means meets
// [A - h_A, A + h_A]. The decision uses the closed intervals (ties broken either way, as binary64 rounding of a
// decimal tie does); `strict_half_up` / `strict_half_even` redo it with the half-open intervals of one fixed
// rounding rule, which differs only when |mean - A| equals the bound exactly (`at_boundary`).
struct MeanCheck {
  bool missing = false;          // an input or the printed value is NA (nothing else is set)
  bool consistent = false;       // closed-interval decision
  bool at_boundary = false;      // |mean - A| == bound
  bool strict_half_up = false, strict_half_even = false;
  double mean = NAN, printed = NAN, diff = NAN, bound = NAN;  // diff = mean - printed; bound from the printed digits
  std::string mean_exact;        // the exact mean, 6 decimals (rounded half-even)
  std::string rounded_half_up, rounded_half_even;  // the mean of the printed inputs at the printed precision of A
  std::string binary64;          // printf("%.<dp>f") of the binary64 mean of the printed inputs (summed in order)
};
MeanCheck check_mean(const std::vector<const Cell*>& inputs, const Cell& printed, Kind kind);

// Order of two printed values: sign of (a - b) as printed, and whether the printed precision decides the order
// of the true values (equal precision: rounding is monotone, so a printed strict order is a true strict order;
// different precision: only if the rounding intervals are disjoint).
struct Order {
  bool missing = false;
  int sign = 0;
  bool determined = true;
};
Order compare(const Cell& a, const Cell& b, Kind kind);

// ---- the evaluations (reported_tables*.cpp) --------------------------------------------------------------------

std::string_view embedded_text();      // the raw text of the data file
const Tables& embedded();              // parsed once; throws std::invalid_argument if malformed

ClaimResult eval_reported_tables(const Tables& t);
ClaimResult eval_arch_details(const Tables& t);
ClaimResult eval_tab_avg(const Tables& t);
ClaimResult eval_tab6_ppl(const Tables& t);
ClaimResult eval_tab6_positive(const Tables& t);
ClaimResult eval_tab6_hybrid(const Tables& t);
ClaimResult eval_tab2_dt_gain(const Tables& t);
ClaimResult eval_tab2_nonhybrid_best(const Tables& t);
ClaimResult eval_tab3_niah(const Tables& t);
ClaimResult eval_tab4_mad(const Tables& t);
ClaimResult eval_tab5_recall(const Tables& t);

}  // namespace recall::a002_tables
