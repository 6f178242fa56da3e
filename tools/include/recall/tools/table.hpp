// One output layer for every table the program prints (validate, report, list): a result is built
// once as a Table (typed JSON value + display text per cell, a pass/fail status per row when the rows
// are verdicts) and rendered as text, Markdown, JSON or JUnit by the functions below. The renderers
// know nothing about kernels or claims; the commands know nothing about formats.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace recall::out {

struct Cell {
  nlohmann::json value;  // what JSON gets (numbers stay numbers; non-finite numbers as "inf"/"-inf"/"nan")
  std::string text;      // what text and Markdown show
};
// A number: JSON keeps it (non-finite ones as strings), text shows `sig` significant digits.
Cell num(double x, int sig = 3);
Cell integer(long long x);
Cell str(const std::string& s);
Cell flag(bool b, const std::string& if_true = "true", const std::string& if_false = "false");
// JSON gets `value`, text and Markdown show `text`
Cell shown_as(nlohmann::json value, std::string text);
// the JSON encoding of a number used throughout (non-finite as strings)
nlohmann::json json_number(double x);
// %g with `sig` significant digits
std::string g(double x, int sig = 3);

enum class Show { both, json_only, display_only };
struct Column {
  std::string key;     // JSON member name
  std::string header;  // text/Markdown header
  Show show = Show::both;
};

struct Row {
  std::vector<Cell> cells;           // one per column
  std::optional<bool> pass;          // rows that are verdicts (JUnit test cases)
  std::string name, group, message;  // JUnit: testcase name, classname, failure message or system-out
};

struct Table {
  std::string title;   // Markdown heading / text title (may be empty)
  std::string intro;   // paragraph before the table (Markdown)
  std::vector<Column> columns;
  std::vector<Row> rows;
  std::string footer;  // paragraph after the table (Markdown)

  std::size_t column(const std::string& key) const;  // index; throws on an unknown key
  const Cell& at(const Row& r, const std::string& key) const { return r.cells.at(column(key)); }
  // a copy holding only the rows that satisfy `keep`, with only the columns in `keys` (all when empty)
  Table select(const std::function<bool(const Row&)>& keep, const std::vector<std::string>& keys = {}) const;
};

// Markdown: "#"*level title, intro, a pipe table of the displayed columns (cells escaped), footer.
void render_markdown(const Table& t, std::ostream& os, int level = 2);
// HTML: <hN id=anchor> title, intro (the Markdown subset the intros use: `code` spans), a <table>
// of the displayed columns (rows that failed get class="fail"), footer. Everything escaped.
void render_html(const Table& t, std::ostream& os, int level = 2, const std::string& anchor = "");
// Markdown-subset paragraph text (`code` spans) as escaped HTML
std::string html_inline(const std::string& markdown);
// Text: title, then columns padded to their widest cell, each line indented by `indent`.
void render_text(const Table& t, std::ostream& os, const std::string& indent = "  ");
// TSV: a header line of the displayed columns' keys, one line per row (tabs and newlines in cells
// become spaces).
void render_tsv(const Table& t, std::ostream& os);
// JSON: an array with one object per row holding the JSON-visible columns.
nlohmann::json to_json(const Table& t);
// JUnit XML: one testsuite per table, one testcase per row with a status (failure message for
// rows that failed, system-out otherwise); `properties` go on each testsuite.
void render_junit(const std::string& name, const std::vector<std::pair<std::string, const Table*>>& suites, std::ostream& os,
                  const std::vector<std::pair<std::string, std::string>>& properties = {});

std::string md_escape(const std::string& s);
std::string xml_escape(const std::string& s);

}  // namespace recall::out
