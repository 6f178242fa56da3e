#!/usr/bin/env python3
"""Check the report.html written by `recall report` (+ tools/render_figures.py).

Usage: check_report_html.py REPORT_DIR

REPORT_DIR holds report.json and report.html.  Checks that
  * report.html parses (html.parser) and its elements are well nested: every
    non-void element, SVG elements included, is closed, in order;
  * every figure id of report.json "figures" appears exactly once as
    <svg id="svg-ID">, and that svg draws something (<path d>, <line>, <use>);
  * no <!--recall-figure:ID--> placeholder is left;
  * every in-document link href="#X" outside SVGs points to an element id X;
  * all element ids are unique;
  * there is at least one <table>, and the figure list is non-empty.
Prints "report.html: ok (N figures)" and exits 0, or prints each failure and
exits 1.  Exits 77 (ctest SKIP_RETURN_CODE) when the figures were not drawn
because matplotlib is not installed.  Standard library only.
"""

import json
import os
import re
import sys
from html.parser import HTMLParser
from urllib.parse import unquote

VOID = frozenset("area base br col embed hr img input keygen link meta param "
                 "source track wbr basefont bgsound frame".split())
DRAWING = frozenset(("path", "line", "use"))
PLACEHOLDER_RE = re.compile(r"<!--\s*recall-figure:")
NOT_DRAWN = "not drawn: python3-matplotlib is not installed"
SKIP = 77


class Checker(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.errors = []
        self.stack = []          # (tag, line)
        self.svg_depth = 0       # >0 while inside an <svg>
        self.ids = {}            # id -> [lines]
        self.links = []          # (target, line) for href="#X" outside SVG
        self.tables = 0
        self.svgs = {}           # figure svg id -> [drawing count per occurrence]
        self.cur_svg = None      # index into self.svgs[id] list for the outermost svg

    def _line(self):
        return self.getpos()[0]

    def _attrs(self, tag, attrs):
        a = dict(attrs)
        line = self._line()
        if "id" in a and a["id"] is not None:
            self.ids.setdefault(a["id"], []).append(line)
        href = a.get("href")
        if href is None:
            href = a.get("xlink:href")
        if href and href.startswith("#") and self.svg_depth == 0 and tag != "svg":
            if len(href) > 1:
                self.links.append((unquote(href[1:]), line))
        if tag == "table":
            self.tables += 1
        if tag == "svg":
            if self.svg_depth == 0:
                sid = a.get("id") or ""
                self.cur_svg = sid
                self.svgs.setdefault(sid, []).append(0)
        elif self.svg_depth > 0 and tag in DRAWING and self.cur_svg is not None:
            drawn = (tag == "line"
                     or (tag == "path" and (a.get("d") or "").strip())
                     or (tag == "use" and (a.get("xlink:href") or a.get("href"))))
            if drawn:
                self.svgs[self.cur_svg][-1] += 1
        return a

    def handle_starttag(self, tag, attrs):
        self._attrs(tag, attrs)
        if tag in VOID and self.svg_depth == 0:
            return
        self.stack.append((tag, self._line()))
        if tag == "svg":
            self.svg_depth += 1

    def handle_startendtag(self, tag, attrs):
        self._attrs(tag, attrs)
        if tag == "svg" and self.svg_depth == 0:
            self.cur_svg = None

    def handle_endtag(self, tag):
        line = self._line()
        if tag in VOID and self.svg_depth == 0:
            self.errors.append(f"line {line}: end tag </{tag}> for void element")
            return
        if self.stack and self.stack[-1][0] == tag:
            self._pop()
            return
        if any(t == tag for t, _ in self.stack):
            while self.stack and self.stack[-1][0] != tag:
                t, l = self.stack[-1]
                self.errors.append(f"line {line}: </{tag}> closes <{tag}> but <{t}> "
                                   f"(opened at line {l}) is still open")
                self._pop()
            self._pop()
        else:
            top = f"<{self.stack[-1][0]}> (line {self.stack[-1][1]})" if self.stack else "nothing"
            self.errors.append(f"line {line}: stray end tag </{tag}>; open element is {top}")

    def _pop(self):
        tag, _ = self.stack.pop()
        if tag == "svg":
            self.svg_depth -= 1
            if self.svg_depth == 0:
                self.cur_svg = None

    def finish(self):
        self.close()
        for tag, line in self.stack:
            self.errors.append(f"<{tag}> opened at line {line} is never closed")


def check(report_dir):
    fails = []
    json_path = os.path.join(report_dir, "report.json")
    html_path = os.path.join(report_dir, "report.html")
    try:
        with open(json_path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return [f"{json_path}: cannot load: {e}"], 0, False
    try:
        with open(html_path, encoding="utf-8") as f:
            page = f.read()
    except (OSError, ValueError) as e:
        return [f"{html_path}: cannot read: {e}"], 0, False

    figs = doc.get("figures") if isinstance(doc, dict) else None
    fig_ids = []
    if not isinstance(figs, list):
        fails.append(f"{json_path}: no \"figures\" list")
    else:
        for i, fg in enumerate(figs):
            fid = fg.get("id") if isinstance(fg, dict) else None
            if not isinstance(fid, str) or not fid:
                fails.append(f"{json_path}: figures[{i}] has no id")
            else:
                fig_ids.append(fid)
        if not fig_ids:
            fails.append(f"{json_path}: the figure list is empty")
        dup = sorted({x for x in fig_ids if fig_ids.count(x) > 1})
        for x in dup:
            fails.append(f"{json_path}: figure id \"{x}\" is listed more than once")

    skipped = NOT_DRAWN in page
    p = Checker()
    p.feed(page)
    p.finish()
    fails += [f"nesting: {e}" for e in p.errors]

    for m in PLACEHOLDER_RE.finditer(page):
        line = page.count("\n", 0, m.start()) + 1
        end = page.find("-->", m.start())
        text = page[m.start():end + 3 if end >= 0 else m.start() + 60]
        fails.append(f"line {line}: placeholder left: {text}")

    skippable = []  # failures excused when matplotlib was missing
    for fid in dict.fromkeys(fig_ids):
        occ = p.svgs.get(f"svg-{fid}", [])
        if not occ:
            (skippable if skipped else fails).append(
                f"figure \"{fid}\": no <svg id=\"svg-{fid}\"> in report.html")
        elif len(occ) > 1:
            fails.append(f"figure \"{fid}\": <svg id=\"svg-{fid}\"> appears {len(occ)} times")
        elif occ[0] == 0:
            fails.append(f"figure \"{fid}\": <svg id=\"svg-{fid}\"> draws nothing "
                         "(no <path>, <line> or <use>)")

    dups = [(i, lines) for i, lines in p.ids.items() if len(lines) > 1]
    for i, lines in dups[:20]:
        fails.append(f"id \"{i}\" is used {len(lines)} times (lines "
                     f"{', '.join(map(str, lines[:5]))}{', ...' if len(lines) > 5 else ''})")

    if len(dups) > 20:
        fails.append(f"... and {len(dups) - 20} more duplicated ids")

    for target, line in p.links:
        if target not in p.ids:
            fails.append(f"line {line}: link href=\"#{target}\" points to no element")

    if p.tables == 0:
        fails.append("report.html has no <table>")
    if not skippable:
        skipped = False
    return fails + skippable, len(fig_ids), skipped and not fails


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(f"usage: {os.path.basename(argv[0])} REPORT_DIR", file=sys.stderr)
        return 2
    fails, n, skipped = check(argv[1])
    if skipped:
        print(f"report.html: {len(fails)} figure(s) not drawn because python3-matplotlib "
              "is not installed; otherwise ok; skipped")
        return SKIP
    if fails:
        for f in fails:
            print(f"report.html: FAIL: {f}")
        print(f"report.html: {len(fails)} problem(s)")
        return 1
    print(f"report.html: ok ({n} figures)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
