// The A002 reported-tables data and their checks (proofs_numeric/support/a002_tables.hpp,
// proofs_numeric/a002_atlas/reported_tables*.cpp): the embedded transcription parses with the printed shape; the
// loader rejects malformed files with an error naming the file, the line and the field; the exact rounding-interval
// arithmetic on hand-computed cases (boundary ties under half-up / half-even, clipping at 100, mixed precision);
// and negative controls: one corrupted cell flips each claim's verdict, a missing cell makes it inconclusive.
#include "../../proofs_numeric/support/a002_tables.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace recall {
namespace {

using namespace a002_tables;

// The embedded text with each `from` (which must occur exactly once) replaced by `to`, parsed as "corrupt.inc".
Tables corrupted(const std::vector<std::pair<std::string, std::string>>& repl) {
  std::string s(embedded_text());
  for (const auto& [from, to] : repl) {
    const std::size_t p = s.find(from);
    EXPECT_NE(p, std::string::npos) << from;
    EXPECT_EQ(s.find(from, p + 1), std::string::npos) << "not unique: " << from;
    if (p != std::string::npos) s.replace(p, from.size(), to);
  }
  return parse_tables(s, "corrupt.inc");
}
// the error message of parsing `text`, "" if it parses
std::string parse_error(const std::string& text) {
  try {
    parse_tables(text, "bad.inc");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}
Cell C(const std::string& s, Kind k = Kind::pct) {
  Cell c;
  EXPECT_EQ(detail::parse_cell(s, k, c), "") << s;
  return c;
}
MeanCheck mean_of(const std::vector<std::string>& xs, const std::string& a, Kind k = Kind::pct) {
  std::vector<Cell> cs;
  for (const auto& x : xs) cs.push_back(C(x, k));
  std::vector<const Cell*> ps;
  for (const auto& c : cs) ps.push_back(&c);
  return check_mean(ps, C(a, k), k);
}

const char* kMini = "table X\ncolumns A:pct B:pct Avg:pct\naverage Avg = A B\nrow r1 | 1.0 2.0 1.50\nend\n";

TEST(A002Tables, EmbeddedTranscriptionHasThePrintedShape) {
  const Tables& t = embedded();
  EXPECT_EQ(t.tables.size(), 8u);
  const Table& t2 = t.get("T2");
  EXPECT_EQ(t2.cols.size(), 11u);
  EXPECT_EQ(t2.rows.size(), 32u);
  ASSERT_NE(t2.find("760M", "TTT"), nullptr);
  EXPECT_EQ(t2.find("760M", "TTT")->cells[t2.col("Avg")].text, "47.32");
  EXPECT_EQ(t2.find("760M", "SWDT (ours)")->cells[t2.col("Avg")].dp, 1);
  EXPECT_EQ(t.get("T3").find("", "Atlas")->cells[0].dp, 0);  // "100" keeps its printed precision
  EXPECT_EQ(t.get("T6").rows.size(), 8u);
  EXPECT_FALSE(t2.lost.empty());  // the hybrid marker is recorded as lost
  EXPECT_EQ(eval_reported_tables(t).verdict, Verdict::holds);
  EXPECT_EQ(eval_arch_details(t).verdict, Verdict::holds);
  EXPECT_EQ(parse_error(kMini), "");
}

TEST(A002Tables, LoaderRejectsMalformedFilesNamingFileAndField) {
  struct Case {
    std::string text, needle;
  };
  const std::vector<Case> cases = {
      {"table X\ncolumns A:pct B:pct\nrow r | 1.0\nend\n", "bad.inc:3: field 'table X row 'r' cells': expected 2 cells, got 1"},
      {"table X\ncolumns A:pct B:pct\nrow r | 1.0 x.5\nend\n", "field 'table X row 'r' column 'B'': not a decimal number"},
      {"table X\ncolumns A:pct\nrow r | 100.5\nend\n", "column 'A'': score above 100"},
      {"table X\ncolumns A:ppl\nrow r | 0.00\nend\n", "must be > 0"},
      {"table X\ncolumns A:pct\nrow r | 1.0\n", "field 'table X': not closed"},
      {"table X\ncolumns A:pct\nrwo r | 1.0\nend\n", "bad.inc:3: field 'directive': unknown directive 'rwo'"},
      {"table X\nrow r | 1.0\nend\n", "field 'table X row': before 'columns'"},
      {"table X\ncolumns A:pct\nrow r | 1.0\nrow r | 2.0\nend\n", "bad.inc:4: field 'table X row 'r'': duplicate row"},
      {"table X\ncolumns A:percent\nrow r | 1.0\nend\n", "field 'table X columns[1]'"},
      {"table X\ncolumns A:pct B:pct\naverage B = A C\nrow r | 1.0 1.0\nend\n", "field 'table X average': unknown column 'C'"},
      {"table X\ncolumns A:pct\nrow r 1.0\nend\n", "expected <name> | <cells>"},
      {"table X\ncolumns A:pct\nrow r | 1.0\nend\ntable X\ncolumns A:pct\nrow r | 1.0\nend\n", "duplicate table ID 'X'"},
      {"title orphan\n", "bad.inc:1: field 'title': directive outside a table"},
      {"table X\ncolumns A:pct\nend\n", "table has no rows"},
      {"# only a comment\n", "no table in the file"},
      {"table X\ncolumns A:sci\nrow r | 3e\nend\n", "column 'A'"},
      {"table X\ncolumns A:tokens\nrow r | 15M\nend\n", "<decimal>B"},
  };
  for (const Case& c : cases) {
    const std::string err = parse_error(c.text);
    EXPECT_NE(err.find("bad.inc"), std::string::npos) << c.text << " -> " << err;
    EXPECT_NE(err.find(c.needle), std::string::npos) << c.text << " -> '" << err << "' lacks '" << c.needle << "'";
  }
  // a table the checks need is missing: the error names the file and the table
  const Tables only_x = parse_tables(kMini, "mini.inc");
  try {
    (void)eval_tab4_mad(only_x);
    ADD_FAILURE() << "no error for a missing table";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("mini.inc: field 'table T4'"), std::string::npos) << e.what();
  }
}

TEST(A002Tables, RoundingIntervalsAreExact) {
  // inputs at 1 decimal, output at 2: bound 0.05 + 0.005
  EXPECT_TRUE(mean_of({"1.0", "2.0"}, "1.55").consistent);
  EXPECT_FALSE(mean_of({"1.0", "2.0"}, "1.56").consistent);
  EXPECT_NEAR(mean_of({"1.0", "2.0"}, "1.55").bound, 0.055, 1e-15);
  // exactly at the bound (mean 1.025, printed 1.08): needs every input at its upper tie; all inputs and the output
  // have even last digits, so half-even allows it and half-up does not
  const MeanCheck b = mean_of({"1.2", "1.0", "1.0", "1.0", "1.0", "1.0", "1.0", "1.0"}, "1.08");
  EXPECT_TRUE(b.consistent);
  EXPECT_TRUE(b.at_boundary);
  EXPECT_FALSE(b.strict_half_up);
  EXPECT_TRUE(b.strict_half_even);
  EXPECT_FALSE(mean_of({"1.2", "1.0", "1.0", "1.0", "1.0", "1.0", "1.0", "1.0"}, "1.09").consistent);
  EXPECT_EQ(b.mean_exact, "1.025000");
  EXPECT_EQ(b.rounded_half_up, "1.03");
  EXPECT_EQ(b.rounded_half_even, "1.02");
  // scores are clipped at 100: "100" stands for [99.5, 100], not [99.5, 100.5]
  EXPECT_FALSE(mean_of({"100", "99.0"}, "99.75").consistent);
  EXPECT_TRUE(mean_of({"100", "99.0"}, "99.75", Kind::ppl).consistent);
  // Table 2 rows (hand-computed): TTT 760M mean 49.375 vs 47.32; GDN-H2 1.3B exactly at the bound 0.055
  const Table& t2 = embedded().get("T2");
  auto row_check = [&](const char* blk, const char* name) {
    const Row* r = t2.find(blk, name);
    std::vector<const Cell*> xs;
    for (const auto& c : t2.averages[0].inputs) xs.push_back(&r->cells[t2.col(c)]);
    return check_mean(xs, r->cells[t2.col("Avg")], Kind::pct);
  };
  const MeanCheck ttt = row_check("760M", "TTT");
  EXPECT_FALSE(ttt.consistent);
  EXPECT_EQ(ttt.mean_exact, "49.375000");
  const MeanCheck h2 = row_check("1.3B", "Gated DeltaNet-H2");
  EXPECT_TRUE(h2.consistent);
  EXPECT_TRUE(h2.at_boundary);
  EXPECT_FALSE(h2.strict_half_up);
  EXPECT_FALSE(h2.strict_half_even);
  // ordering: equal precision fixes the order of the true values; mixed precision only if the intervals are disjoint
  Order o = compare(C("61.4"), C("61.5"), Kind::pct);
  EXPECT_EQ(o.sign, -1);
  EXPECT_TRUE(o.determined);
  o = compare(C("100"), C("99.8"), Kind::pct);
  EXPECT_EQ(o.sign, 1);
  EXPECT_FALSE(o.determined);
  EXPECT_TRUE(compare(C("100"), C("99.4"), Kind::pct).determined);
  EXPECT_EQ(compare(C("100"), C("100.0"), Kind::pct).sign, 0);
  EXPECT_TRUE(compare(C("NA"), C("1.0"), Kind::pct).missing);
}

// The verdicts on the transcription as printed, and one corrupted cell (or row) per claim flipping each of them.
TEST(A002Tables, CorruptedCellFlipsVerdicts) {
  const Tables& t = embedded();
  // A002-TAB-AVG: violated (TTT 760M, Memora 1.3B); restoring both Avg cells makes it hold; breaking Table 4 re-violates
  EXPECT_EQ(eval_tab_avg(t).verdict, Verdict::violated);
  EXPECT_EQ(eval_tab_avg(corrupted({{"59.6 47.32", "59.6 49.38"}, {"61.3 55.87", "61.3 55.76"}})).verdict, Verdict::holds);
  EXPECT_EQ(eval_tab_avg(corrupted({{"59.6 47.32", "59.6 49.38"}, {"61.3 55.87", "61.3 55.76"}, {"91.4 79.50", "91.4 79.60"}})).verdict,
            Verdict::violated);
  // A002-TAB6-PPL: holds; Atlas ppl 19.97 -> 19.99 is 0.025 from (18.92 + 21.01)/2
  EXPECT_EQ(eval_tab6_ppl(t).verdict, Verdict::holds);
  EXPECT_EQ(eval_tab6_ppl(corrupted({{"row Atlas | 19.97", "row Atlas | 19.99"}})).verdict, Verdict::violated);
  // A002-TAB6-POSITIVE: violated by w/o Muon's lower ppl; a higher ppl there makes it hold
  EXPECT_EQ(eval_tab6_positive(t).verdict, Verdict::violated);
  EXPECT_EQ(eval_tab6_positive(corrupted({{"w/o Muon | 19.65", "w/o Muon | 20.65"}})).verdict, Verdict::holds);
  // A002-TAB6-HYBRID: violated by MAL; MAL between Atlas and MAG makes it hold
  EXPECT_EQ(eval_tab6_hybrid(t).verdict, Verdict::violated);
  EXPECT_EQ(eval_tab6_hybrid(corrupted({{"+Attn (MAL) | 20.26 52.63", "+Attn (MAL) | 19.95 52.80"}})).verdict, Verdict::holds);
  // A002-TAB2-DT-GAIN: violated by Dot's 1.3B BoolQ (61.4 < 61.5)
  EXPECT_EQ(eval_tab2_dt_gain(t).verdict, Verdict::violated);
  EXPECT_EQ(eval_tab2_dt_gain(corrupted({{"42.7 61.4 57.35", "42.7 61.6 57.35"}})).verdict, Verdict::holds);
  // A002-TAB2-NONHYBRID-BEST: reading (a) violated by Atlas++; Atlas (ours) best everywhere makes it hold
  EXPECT_EQ(eval_tab2_nonhybrid_best(t).verdict, Verdict::violated);
  EXPECT_EQ(eval_tab2_nonhybrid_best(corrupted({{"18.92 21.01", "18.92 20.00"},
                                                {"40.7 64.3 52.77", "40.7 64.3 53.10"},
                                                {"14.97 10.98", "14.30 10.70"},
                                                {"42.9 62.8 57.62", "42.9 62.8 58.10"}}))
                .verdict,
            Verdict::holds);
  // A002-TAB3-NIAH: violated (PK_8K, N_8K, MAL PK_16K); raising those cells makes it hold
  EXPECT_EQ(eval_tab3_niah(t).verdict, Verdict::violated);
  EXPECT_EQ(eval_tab3_niah(corrupted({{"row Atlas | 100 99.2 98.0 97.0 100.0 100.0 93.0", "row Atlas | 100 99.2 98.7 97.0 100.0 100.0 93.5"},
                                      {"99.8 99.6 98.4 96.8", "99.8 99.6 98.8 97.1"}}))
                .verdict,
            Verdict::holds);
  // A002-TAB4-MAD: holds; a lower Atlas memorization score violates it; a missing Atlas cell makes it inconclusive
  EXPECT_EQ(eval_tab4_mad(t).verdict, Verdict::holds);
  EXPECT_EQ(eval_tab4_mad(corrupted({{"91.4 79.50", "89.0 79.50"}})).verdict, Verdict::violated);
  EXPECT_EQ(eval_tab4_mad(corrupted({{"51.6 100 54.9", "NA 100 54.9"}})).verdict, Verdict::inconclusive);
  // A002-TAB5-RECALL: holds; Transformers below Atlas on NQ violates (a)
  EXPECT_EQ(eval_tab5_recall(t).verdict, Verdict::holds);
  EXPECT_EQ(eval_tab5_recall(corrupted({{"84.9 23.0 28.4", "84.9 21.0 28.4"}})).verdict, Verdict::violated);
  // A002-REPORTED-TABLES: a dropped row breaks the printed shape; a missing cell is recorded, the shape still holds
  EXPECT_EQ(eval_reported_tables(corrupted({{"row Yaad |", "# row Yaad |"}})).verdict, Verdict::violated);
  EXPECT_EQ(eval_reported_tables(corrupted({{"51.6 100 54.9", "NA 100 54.9"}})).verdict, Verdict::holds);
  // A002-ARCH-DETAILS: Dim not divisible by Head
  EXPECT_EQ(eval_arch_details(corrupted({{"24 1536 16", "24 1530 16"}})).verdict, Verdict::violated);
}

TEST(A002Tables, ClaimsAreReproducible) {
  const Tables& t = embedded();
  for (auto f : {eval_tab_avg, eval_tab6_ppl, eval_tab3_niah, eval_tab2_nonhybrid_best}) {
    const ClaimResult a = f(t), b = f(t);
    EXPECT_EQ(a.verdict, b.verdict);
    EXPECT_EQ(a.reason, b.reason);
    EXPECT_EQ(a.evidence.witness, b.evidence.witness);
  }
}

}  // namespace
}  // namespace recall
