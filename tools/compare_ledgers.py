#!/usr/bin/env python3
"""Verdict stability across builds (issue 15 item 4).

Compares two claims ledgers written by `recall check all --format json` (one JSON object per line)
from two builds of the same source, e.g. -march=native and a portable -march, and prints every claim
whose verdict differs as BUILD-SENSITIVE with both builds' figures (statistic, value, threshold,
witness). Claims whose verdict agrees but whose figure moved are listed too (informational: the
margin to the threshold says how close a flip is).

Exit status: 0 when every verdict agrees; 1 when one flips (a build-sensitive claim is never silent);
2 on malformed input (a ledger missing, unreadable, or holding different claim IDs).

Usage: compare_ledgers.py NAME_A LEDGER_A NAME_B LEDGER_B [--markdown OUT.md]
"""
import json
import math
import sys


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        sys.exit(f"compare_ledgers: cannot read ledger '{path}': {e}")
    out = {}
    for r in rows:
        if "id" not in r or "verdict" not in r:
            print(f"compare_ledgers: ledger '{path}' has a row without id/verdict: {r}", file=sys.stderr)
            sys.exit(2)
        out[r["id"]] = r
    if not out:
        print(f"compare_ledgers: ledger '{path}' is empty", file=sys.stderr)
        sys.exit(2)
    return out


def figure(r):
    e = r.get("evidence", {})
    return e.get("statistic", ""), e.get("value"), e.get("threshold"), e.get("witness", "")


def num(x):
    if x is None:
        return "n/a"
    if isinstance(x, str):
        return x
    return f"{x:.6g}"


def same_value(a, b):
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b


def main(argv):
    md = None
    if "--markdown" in argv:
        i = argv.index("--markdown")
        md = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    na, pa, nb, pb = argv
    a, b = load(pa), load(pb)
    if set(a) != set(b):
        only_a, only_b = sorted(set(a) - set(b)), sorted(set(b) - set(a))
        print(f"compare_ledgers: the ledgers hold different claims (only {na}: {only_a[:5]}, only {nb}: {only_b[:5]})", file=sys.stderr)
        return 2
    flips, moved = [], []
    for cid in a:
        ra, rb = a[cid], b[cid]
        fa, fb = figure(ra), figure(rb)
        if ra["verdict"] != rb["verdict"]:
            flips.append((cid, ra, rb, fa, fb))
        elif not same_value(fa[1], fb[1]):
            moved.append((cid, ra, fa, fb))
    lines = [f"# Verdict stability: {na} vs {nb}", "",
             f"{len(a)} claims; {len(a) - len(flips)} same verdict; {len(flips)} build-sensitive; "
             f"{len(moved)} same verdict with a different figure.", ""]
    if flips:
        lines += ["## Build-sensitive claims (verdict differs)", "",
                  f"| id | {na} | {nb} | statistic | {na} value | {nb} value | threshold | {na} witness | {nb} witness |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for cid, ra, rb, fa, fb in flips:
            lines.append(f"| {cid} | {ra['verdict']} | {rb['verdict']} | {fa[0]} | {num(fa[1])} | {num(fb[1])} | {num(fa[2])} | "
                         f"{fa[3][:80]} | {fb[3][:80]} |")
        lines.append("")
    if moved:
        lines += ["## Same verdict, figure moved", "", f"| id | verdict | statistic | {na} | {nb} | threshold |", "|---|---|---|---|---|---|"]
        for cid, ra, fa, fb in moved:
            lines.append(f"| {cid} | {ra['verdict']} | {fa[0]} | {num(fa[1])} | {num(fb[1])} | {num(fa[2])} |")
        lines.append("")
    text = "\n".join(lines)
    print(text)
    if md:
        with open(md, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 1 if flips else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
