// Renderers of tools/table.hpp.
#include "recall/tools/table.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace recall::out {

nlohmann::json json_number(double x) {
  if (std::isfinite(x)) return x;
  return std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf");
}
std::string g(double x, int sig) {
  std::ostringstream s;
  s << std::setprecision(sig) << x;
  return s.str();
}
Cell num(double x, int sig) { return {json_number(x), g(x, sig)}; }
Cell integer(long long x) { return {x, std::to_string(x)}; }
Cell str(const std::string& s) { return {s, s}; }
Cell flag(bool b, const std::string& if_true, const std::string& if_false) { return {b, b ? if_true : if_false}; }
Cell shown_as(nlohmann::json value, std::string text) { return {std::move(value), std::move(text)}; }

std::size_t Table::column(const std::string& key) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i].key == key) return i;
  throw std::invalid_argument("table '" + title + "': no column '" + key + "'");
}

Table Table::select(const std::function<bool(const Row&)>& keep, const std::vector<std::string>& keys) const {
  Table t{title, intro, {}, {}, footer};
  std::vector<std::size_t> idx;
  if (keys.empty())
    for (std::size_t i = 0; i < columns.size(); ++i) idx.push_back(i);
  else
    for (const auto& k : keys) idx.push_back(column(k));
  for (std::size_t i : idx) t.columns.push_back(columns[i]);
  for (const Row& r : rows) {
    if (keep && !keep(r)) continue;
    Row n = r;
    n.cells.clear();
    for (std::size_t i : idx) n.cells.push_back(r.cells.at(i));
    t.rows.push_back(std::move(n));
  }
  return t;
}

std::string md_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '|') o += "\\|";
    else if (c == '\n') o += ' ';
    else o += c;
  }
  return o;
}

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') o += ' ';
        else o += c;
    }
  }
  return o;
}

namespace {
std::vector<std::size_t> displayed(const Table& t) {
  std::vector<std::size_t> v;
  for (std::size_t i = 0; i < t.columns.size(); ++i)
    if (t.columns[i].show != Show::json_only) v.push_back(i);
  return v;
}
}  // namespace

void render_markdown(const Table& t, std::ostream& os, int level) {
  if (!t.title.empty()) os << std::string(static_cast<std::size_t>(std::max(1, level)), '#') << ' ' << t.title << "\n\n";
  if (!t.intro.empty()) os << t.intro << "\n\n";
  const auto cols = displayed(t);
  os << '|';
  for (std::size_t i : cols) os << ' ' << t.columns[i].header << " |";
  os << "\n|";
  for (std::size_t k = 0; k < cols.size(); ++k) os << "---|";
  os << '\n';
  for (const Row& r : t.rows) {
    os << '|';
    for (std::size_t i : cols) os << ' ' << md_escape(r.cells.at(i).text) << " |";
    os << '\n';
  }
  os << '\n';
  if (!t.footer.empty()) os << t.footer << "\n\n";
}

std::string html_inline(const std::string& md) {
  std::string o;
  bool code = false;
  for (char c : md) {
    if (c == '`') {
      o += code ? "</code>" : "<code>";
      code = !code;
    } else {
      o += xml_escape(std::string(1, c));
    }
  }
  if (code) o += "</code>";
  return o;
}

void render_html(const Table& t, std::ostream& os, int level, const std::string& anchor) {
  const int h = std::clamp(level, 1, 6);
  if (!t.title.empty())
    os << "<h" << h << (anchor.empty() ? "" : " id=\"" + xml_escape(anchor) + "\"") << '>' << xml_escape(t.title) << "</h" << h << ">\n";
  if (!t.intro.empty()) os << "<p>" << html_inline(t.intro) << "</p>\n";
  const auto cols = displayed(t);
  os << "<table>\n<thead><tr>";
  for (std::size_t i : cols) os << "<th>" << xml_escape(t.columns[i].header) << "</th>";
  os << "</tr></thead>\n<tbody>\n";
  for (const Row& r : t.rows) {
    os << (r.pass && !*r.pass ? "<tr class=\"fail\">" : "<tr>");
    for (std::size_t i : cols) os << "<td>" << xml_escape(r.cells.at(i).text) << "</td>";
    os << "</tr>\n";
  }
  os << "</tbody>\n</table>\n";
  if (!t.footer.empty()) os << "<p>" << html_inline(t.footer) << "</p>\n";
}

void render_text(const Table& t, std::ostream& os, const std::string& indent) {
  if (!t.title.empty()) os << indent << t.title << '\n';
  const auto cols = displayed(t);
  std::vector<std::size_t> width;
  for (std::size_t i : cols) {
    std::size_t w = t.columns[i].header.size();
    for (const Row& r : t.rows) w = std::max(w, r.cells.at(i).text.size());
    width.push_back(w + 2);
  }
  auto line = [&](const std::function<std::string(std::size_t)>& cell) {
    std::string s = indent;
    for (std::size_t k = 0; k < cols.size(); ++k) {
      std::string c = cell(cols[k]);
      if (k + 1 < cols.size()) c.resize(std::max(c.size(), width[k]), ' ');
      s += c;
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    os << s << '\n';
  };
  line([&](std::size_t i) { return t.columns[i].header; });
  for (const Row& r : t.rows) line([&](std::size_t i) { return r.cells.at(i).text; });
}

void render_tsv(const Table& t, std::ostream& os) {
  const auto cols = displayed(t);
  auto clean = [](std::string s) {
    for (char& c : s)
      if (c == '\t' || c == '\n') c = ' ';
    return s;
  };
  for (std::size_t k = 0; k < cols.size(); ++k) os << (k ? "\t" : "") << t.columns[cols[k]].key;
  os << '\n';
  for (const Row& r : t.rows) {
    for (std::size_t k = 0; k < cols.size(); ++k) os << (k ? "\t" : "") << clean(r.cells.at(cols[k]).text);
    os << '\n';
  }
}

nlohmann::json to_json(const Table& t) {
  nlohmann::json a = nlohmann::json::array();
  for (const Row& r : t.rows) {
    nlohmann::json o = nlohmann::json::object();
    for (std::size_t i = 0; i < t.columns.size(); ++i)
      if (t.columns[i].show != Show::display_only) o[t.columns[i].key] = r.cells.at(i).value;
    a.push_back(std::move(o));
  }
  return a;
}

void render_junit(const std::string& name, const std::vector<std::pair<std::string, const Table*>>& suites, std::ostream& os,
                  const std::vector<std::pair<std::string, std::string>>& properties) {
  std::size_t tests = 0, failures = 0;
  for (const auto& [sname, t] : suites)
    for (const Row& r : t->rows)
      if (r.pass) {
        ++tests;
        failures += !*r.pass;
      }
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  os << "<testsuites name=\"" << xml_escape(name) << "\" tests=\"" << tests << "\" failures=\"" << failures << "\" errors=\"0\">\n";
  for (const auto& [sname, t] : suites) {
    std::size_t n = 0, f = 0;
    for (const Row& r : t->rows)
      if (r.pass) {
        ++n;
        f += !*r.pass;
      }
    os << "  <testsuite name=\"" << xml_escape(sname) << "\" tests=\"" << n << "\" failures=\"" << f << "\" errors=\"0\" skipped=\"0\">\n";
    if (!properties.empty()) {
      os << "    <properties>\n";
      for (const auto& [k, v] : properties) os << "      <property name=\"" << xml_escape(k) << "\" value=\"" << xml_escape(v) << "\"/>\n";
      os << "    </properties>\n";
    }
    for (const Row& r : t->rows) {
      if (!r.pass) continue;
      os << "    <testcase classname=\"" << xml_escape(r.group) << "\" name=\"" << xml_escape(r.name) << "\">\n";
      if (!*r.pass) os << "      <failure message=\"" << xml_escape(r.message) << "\" type=\"budget\">" << xml_escape(r.message) << "</failure>\n";
      else os << "      <system-out>" << xml_escape(r.message) << "</system-out>\n";
      os << "    </testcase>\n";
    }
    os << "  </testsuite>\n";
  }
  os << "</testsuites>\n";
}

}  // namespace recall::out
