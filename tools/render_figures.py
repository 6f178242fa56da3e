#!/usr/bin/env python3
"""Draw the figures of a `recall report` into its report.html.

Usage: render_figures.py REPORT_JSON REPORT_HTML

report.json holds a top-level list "figures" (data only).  report.html, written
by the C++ side, holds one placeholder comment <!--recall-figure:ID--> where each
figure belongs.  This script draws every figure with matplotlib as an inline SVG
and replaces the placeholders; REPORT_HTML is rewritten in place (atomically).

  * a placeholder without a figure becomes <p class="missing">figure ID: no data</p>
    (warning on stderr, exit 0);
  * a figure without a placeholder is appended at the end of the body in a
    section "Other figures" (warning on stderr, exit 0);
  * without matplotlib every placeholder becomes a "not drawn" note (exit 0);
  * malformed input (missing/unreadable file, invalid JSON, bad figure object)
    is reported on stderr naming the file and the figure id (exit 2).

Output is deterministic: the same report.json gives byte-identical SVG.
Needs Python 3 with matplotlib (Debian: python3-matplotlib) and numpy.
"""

import html
import json
import math
import os
import re
import sys
import tempfile
import warnings

PROG = "render_figures"
ID_RE = re.compile(r"^[A-Za-z0-9_.\-]+$")
PLACEHOLDER_RE = re.compile(r"<!--\s*recall-figure:([A-Za-z0-9_.\-]+)\s*-->")
KINDS = ("lines", "dots")
LINE_SCALES = ("linear", "log")
DOT_SCALES = ("linear", "log", "symlog")
STYLES = {"solid": "-", "dashed": "--", "dotted": ":", "dashdot": "-."}
MARKERS = ("", "o", "s", "^", "v", "D", "x", "+", "*", "<", ">", "d", "p", "h", ".")
VERDICTS = ("holds", "violated", "inconclusive")
# Okabe-Ito / tab10-compatible, colour-blind safe verdict colours.
VERDICT_COLOURS = {"holds": "#009E73", "violated": "#D55E00", "inconclusive": "#7F7F7F"}
THRESHOLD_COLOUR = "#000000"
HASH_SALT = "recall-report"
FLOAT_MAX = sys.float_info.max


class InputError(Exception):
    """Malformed input: reported without traceback, exit status 2."""


def warn(msg):
    print(f"{PROG}: warning: {msg}", file=sys.stderr)


# --------------------------------------------------------------------------
# Input validation
# --------------------------------------------------------------------------

def _num(v, where):
    """JSON number -> float (NaN for null / non-finite); reject other types."""
    if v is None:
        return math.nan
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise InputError(f"{where}: expected a number or null, got {json.dumps(v)[:40]}")
    try:
        f = float(v)
    except OverflowError:  # huge JSON integer
        f = math.inf if v > 0 else -math.inf
    return f if math.isfinite(f) else math.nan


def _str(obj, key, where, default=None, required=False):
    v = obj.get(key, default)
    if v is None:
        if required:
            raise InputError(f"{where}: missing \"{key}\"")
        return default
    if not isinstance(v, str):
        raise InputError(f"{where}: \"{key}\" must be a string")
    return v


def _axis(fig, key, where, scales):
    ax = fig.get(key, {})
    if ax is None:
        ax = {}
    if not isinstance(ax, dict):
        raise InputError(f"{where}: \"{key}\" must be an object")
    label = _str(ax, "label", f"{where}: {key}", default="")
    scale = _str(ax, "scale", f"{where}: {key}", default="linear")
    if scale not in scales:
        raise InputError(f"{where}: {key}.scale \"{scale}\" is not one of {', '.join(scales)}")
    return {"label": label, "scale": scale}


def _objects(f, key, where):
    """(index, object, where-text) of the list f[key]; InputError naming the figure otherwise."""
    items = f.get(key, [])
    if not isinstance(items, list):
        raise InputError(f"{where}: \"{key}\" must be a list")
    for j, obj in enumerate(items):
        w = f"{where}: {key}[{j}]"
        if not isinstance(obj, dict):
            raise InputError(f"{w}: must be an object")
        yield j, obj, w


def validate(doc, json_path):
    """Return a list of normalised figure dicts; raise InputError if malformed."""
    if not isinstance(doc, dict):
        raise InputError(f"{json_path}: top level must be a JSON object")
    figs = doc.get("figures")
    if figs is None:
        raise InputError(f"{json_path}: no \"figures\" list")
    if not isinstance(figs, list):
        raise InputError(f"{json_path}: \"figures\" must be a list")
    out, seen = [], set()
    for i, f in enumerate(figs):
        loc = f"{json_path}: figures[{i}]"
        if not isinstance(f, dict):
            raise InputError(f"{loc}: must be an object")
        fid = f.get("id")
        if not isinstance(fid, str) or not fid:
            raise InputError(f"{loc}: figure without \"id\"")
        if not ID_RE.match(fid):
            raise InputError(f"{loc}: figure id \"{fid}\" has characters outside [A-Za-z0-9_.-]")
        where = f"{json_path}: figure \"{fid}\""
        if fid in seen:
            raise InputError(f"{where}: duplicate figure id")
        seen.add(fid)
        kind = f.get("kind")
        if kind is None:
            raise InputError(f"{where}: figure without \"kind\"")
        if kind not in KINDS:
            raise InputError(f"{where}: unknown kind {json.dumps(kind)} (expected lines or dots)")
        g = {
            "id": fid,
            "kind": kind,
            "title": _str(f, "title", where, default=fid),
            "caption": _str(f, "caption", where, default=""),
            "group": _str(f, "group", where, default=""),
        }
        if kind == "lines":
            g["x"] = _axis(f, "x", where, LINE_SCALES)
            g["y"] = _axis(f, "y", where, LINE_SCALES)
            g["series"] = []
            for j, s, sw in _objects(f, "series", where):
                name = _str(s, "name", sw, default=f"series {j}")
                sw = f"{where}: series \"{name}\""
                xs, ys = s.get("x"), s.get("y")
                if not isinstance(xs, list) or not isinstance(ys, list):
                    raise InputError(f"{sw}: \"x\" and \"y\" must be lists")
                if len(xs) != len(ys):
                    raise InputError(f"{sw}: x has {len(xs)} values but y has {len(ys)}")
                style = _str(s, "style", sw, default="solid")
                if style not in STYLES:
                    raise InputError(f"{sw}: style \"{style}\" is not one of {', '.join(STYLES)}")
                marker = _str(s, "marker", sw, default="")
                if marker not in MARKERS:
                    raise InputError(f"{sw}: marker \"{marker}\" is not supported")
                g["series"].append({
                    "name": name,
                    "x": [_num(v, f"{sw}: x[{k}]") for k, v in enumerate(xs)],
                    "y": [_num(v, f"{sw}: y[{k}]") for k, v in enumerate(ys)],
                    "style": style,
                    "marker": marker,
                    "group": _str(s, "group", sw, default=name),
                })
        else:
            g["x"] = _axis(f, "x", where, DOT_SCALES)
            g["rows"] = []
            for j, r, rw in _objects(f, "rows", where):
                label = _str(r, "label", rw, default=f"row {j}")
                rw = f"{where}: row \"{label}\""
                verdict = _str(r, "verdict", rw, default="inconclusive")
                if verdict not in VERDICTS:
                    raise InputError(f"{rw}: verdict \"{verdict}\" is not one of {', '.join(VERDICTS)}")
                g["rows"].append({
                    "label": label,
                    "value": _num(r.get("value"), f"{rw}: value"),
                    "threshold": _num(r.get("threshold"), f"{rw}: threshold"),
                    "verdict": verdict,
                    "statistic": _str(r, "statistic", rw, default=""),
                })
        out.append(g)
    return out


# --------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------

def setup_matplotlib():
    """Import matplotlib with the SVG backend; return (plt, np) or raise ImportError."""
    import matplotlib
    matplotlib.use("svg")
    import matplotlib.pyplot as plt
    import numpy as np
    matplotlib.rcParams.update({
        "svg.hashsalt": HASH_SALT,
        "svg.fonttype": "none",
        "svg.image_inline": True,
        "font.family": "DejaVu Sans",
        "font.size": 9,
        "axes.titlesize": 10,
        "axes.labelsize": 9,
        "legend.fontsize": 8,
        "xtick.labelsize": 8,
        "ytick.labelsize": 8,
        "axes.prop_cycle": matplotlib.cycler(color=plt.get_cmap("tab10").colors),
        "path.simplify": True,
    })
    return plt, np


def _plain(text_obj):
    """User-provided strings are literal text, never mathtext."""
    text_obj.set_parse_math(False)
    return text_obj


def draw_lines(plt, np, g):
    fig, ax = plt.subplots(figsize=(7.0, 4.0))
    xlog, ylog = g["x"]["scale"] == "log", g["y"]["scale"] == "log"
    ax.set_xscale(g["x"]["scale"])
    ax.set_yscale(g["y"]["scale"])
    palette = plt.get_cmap("tab10").colors
    colours = {}
    any_points = False
    xs_all, ys_all = [], []
    # Limits are computed here: matplotlib's autoscaling overflows near 1e308.
    ax.set_autoscale_on(False)
    for s in g["series"]:
        grp = s["group"]
        if grp not in colours:
            colours[grp] = palette[len(colours) % len(palette)]
        x = np.array(s["x"], dtype=float)
        y = np.array(s["y"], dtype=float)
        ok = np.isfinite(x) & np.isfinite(y)
        if xlog:
            ok &= x > 0
        if ylog:
            ok &= y > 0
        x, y = np.where(ok, x, np.nan), np.where(ok, y, np.nan)  # gaps, not bridges
        xs_all += x[ok].tolist()
        ys_all += y[ok].tolist()
        label = s["name"] if ok.any() else s["name"] + " (no plottable points)"
        any_points |= bool(ok.any())
        # A point between two gaps would be invisible on a marker-less line.
        isolated = ok & ~np.r_[False, ok[:-1]] & ~np.r_[ok[1:], False]
        marker = s["marker"]
        ax.plot(x, y, linestyle=STYLES[s["style"]], marker=marker or None,
                markersize=4, linewidth=1.4, color=colours[grp], label=label)
        if not marker and isolated.any():
            ax.plot(x[isolated], y[isolated], linestyle="none", marker="o",
                    markersize=3, color=colours[grp])
    if any_points:
        ax.set_xlim(*_padded_limits(xs_all, g["x"]["scale"]))
        ax.set_ylim(*_padded_limits(ys_all, g["y"]["scale"]))
    else:
        if xlog:
            ax.set_xlim(1.0, 10.0)
        if ylog:
            ax.set_ylim(1.0, 10.0)
        ax.text(0.5, 0.5, "no plottable data", transform=ax.transAxes,
                ha="center", va="center", color="#7F7F7F")
    import matplotlib.ticker as mticker
    for axis, is_log, lim in ((ax.xaxis, xlog, ax.get_xlim()), (ax.yaxis, ylog, ax.get_ylim())):
        if not is_log:
            continue
        axis.set_major_formatter(mticker.FuncFormatter(_tick_label))
        lo, hi = lim
        if hi > 1e290 or math.log10(hi) - math.log10(lo) > 30:
            # LogLocator overflows near 1e308 and crowds over many decades.
            ticks, tlabels = _decade_ticks(lo, hi, lo, math.log10)
            if len(ticks) >= 2:
                axis.set_major_locator(mticker.FixedLocator(ticks))
                axis.set_major_formatter(mticker.FixedFormatter(tlabels))
                axis.set_minor_locator(mticker.NullLocator())
    _plain(ax.set_xlabel(g["x"]["label"]))
    _plain(ax.set_ylabel(g["y"]["label"]))
    _plain(ax.set_title(g["title"]))
    ax.grid(True, which="major", color="#DDDDDD", linewidth=0.6)
    if xlog:
        ax.xaxis.grid(True, which="minor", color="#F0F0F0", linewidth=0.4)
    if ylog:
        ax.yaxis.grid(True, which="minor", color="#F0F0F0", linewidth=0.4)
    ax.set_axisbelow(True)
    if g["series"]:
        leg = ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        for t in leg.get_texts():
            _plain(t)
    return fig


class SymLog:
    """Symmetric log transform for the "symlog" dots axis.

    Written out here because matplotlib's "symlog" scale computes
    log(|x| / linthresh), which overflows once |x| / linthresh > 1.8e308
    (values of 1e300 with a linthresh of 1e-60).  linthresh is the smallest
    nonzero |value| (floored at 1e-300); [-lt, lt] maps linearly onto
    [-lin, lin], beyond that one unit per decade.  lin grows with the span so
    that 0 stays visibly apart from the smallest nonzero value."""

    def __init__(self, values):
        nz = [abs(v) for v in values if math.isfinite(v) and v != 0.0]
        self.lt = max(min(nz), 1e-300) if nz else 1.0
        self.llt = math.log10(self.lt)
        top = math.log10(max(nz)) if nz else self.llt
        self.lin = max(0.5, 0.04 * (top - self.llt))

    def fwd(self, v):
        a = abs(v)
        t = self.lin * a / self.lt if a <= self.lt else self.lin + math.log10(a) - self.llt
        return math.copysign(t, v)

    def inv(self, t):
        a = abs(t)
        if a <= self.lin:
            v = a / self.lin * self.lt
        else:
            e = self.llt + (a - self.lin)
            v = FLOAT_MAX if e >= 308.25 else 10.0 ** e
        return math.copysign(min(v, FLOAT_MAX), t)

    def functions(self, np):
        lt, llt, lin = self.lt, self.llt, self.lin

        def fwd(x):
            x = np.asarray(x, dtype=float)
            a = np.abs(x)
            with np.errstate(all="ignore"):
                t = np.where(a <= lt, lin * a / lt, lin + np.log10(a) - llt)
            return np.sign(x) * t

        def inv(t):
            t = np.asarray(t, dtype=float)
            a = np.abs(t)
            with np.errstate(all="ignore"):
                e = np.minimum(llt + (a - lin), 308.25)
                v = np.where(a <= lin, a / lin * lt, 10.0 ** e)
            return np.sign(t) * np.minimum(v, FLOAT_MAX)

        return fwd, inv


def _nice_step(raw):
    for s in (1, 2, 3, 5, 10, 20, 25, 30, 50, 100, 200, 250, 300, 500):
        if s >= raw:
            return s
    return int(math.ceil(raw / 100.0)) * 100


def _decade_ticks(lo, hi, lt, fwd, max_ticks=9):
    """Ticks 0 and +-10^k (10^k >= lt) within [lo, hi], at most about max_ticks,
    spaced at least ~60% of an even share apart in transformed units fwd()."""
    llt = math.log10(lt)

    def decades(a, b):  # decades k with lt <= 10^k and a <= 10^k <= b (a, b >= 0)
        if b < lt:
            return []
        k0 = max(math.ceil(llt - 1e-9), math.ceil(math.log10(a) - 1e-9) if a > 0 else -400)
        k1 = min(math.floor(math.log10(b) + 1e-9), 308)
        return list(range(int(k0), int(k1) + 1))

    pos = decades(max(lo, 0.0), hi) if hi > 0 else []
    neg = decades(max(-hi, 0.0), -lo) if lo < 0 else []
    has0 = lo <= 0.0 <= hi
    n = len(pos) + len(neg) + (1 if has0 else 0)
    step = _nice_step(n / float(max_ticks)) if n > max_ticks else 1
    minsep = 0.6 * (fwd(hi) - fwd(lo)) / max_ticks

    def spaced(cands, start):  # walk away from start (0 or an edge), keep spaced ticks
        kept, last = [], start
        for c in cands:
            if last is None or abs(fwd(c) - fwd(last)) >= minsep:
                kept.append(c)
                last = c
        return kept

    zero = 0.0 if has0 else None
    up = spaced([10.0 ** k for k in pos if k % step == 0], zero)
    down = spaced([-(10.0 ** k) for k in neg if k % step == 0], zero)
    ticks = list(reversed(down)) + ([0.0] if has0 else []) + up
    return ticks, [_tick_label(t) for t in ticks]


_SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


def _tick_label(v, pos=None):
    """Plain-text tick label: 0, 10^k with Unicode superscripts, else %g.

    Cheaper to lay out than mathtext and gives plain <text> in the SVG."""
    if v == 0.0 or not math.isfinite(v):
        return "0" if v == 0.0 else ""
    sign = "\u2212" if v < 0 else ""
    lg = math.log10(abs(v))
    k = round(lg)
    if abs(lg - k) < 1e-9:
        if k == 0:
            return sign + "1"
        if k == 1:
            return sign + "10"
        return sign + "10" + str(int(k)).translate(_SUPERSCRIPT)
    return ("%.3g" % v).replace("-", "\u2212")


def _padded_limits(vals, scale, sym=None):
    """Axis limits with a 4% margin computed in the transformed space (never inf)."""
    if scale == "symlog":
        ts = [sym.fwd(v) for v in vals]
        lo, hi = min(ts), max(ts)
        pad = 0.04 * (hi - lo) if hi > lo else sym.lin
        return sym.inv(lo - pad), sym.inv(hi + pad)
    if scale == "log":
        ts = [math.log10(v) for v in vals]
        lo, hi = min(ts), max(ts)
        pad = 0.04 * (hi - lo) if hi > lo else 0.5
        return 10.0 ** max(lo - pad, -323.0), min(10.0 ** min(hi + pad, 308.25), FLOAT_MAX)
    lo, hi = min(vals), max(vals)
    span = hi - lo
    if not math.isfinite(span):  # e.g. -1e308 .. 1e308
        return max(lo * 1.04 if lo < 0 else lo * 0.96, -FLOAT_MAX), min(hi * 1.04, FLOAT_MAX)
    pad = 0.04 * span if span > 0 else max(abs(hi) * 0.1, 1.0)
    return max(lo - pad, -FLOAT_MAX), min(hi + pad, FLOAT_MAX)


def draw_dots(plt, np, g):
    import matplotlib.ticker as mticker
    from matplotlib.lines import Line2D
    rows = g["rows"]
    n = len(rows)
    scale = g["x"]["scale"]
    height = max(2.5, 0.18 * n + 1.3)
    fig, ax = plt.subplots(figsize=(7.0, height))

    plottable = (lambda v: math.isfinite(v) and v > 0) if scale == "log" else math.isfinite
    vals = [v for r in rows for v in (r["value"], r["threshold"]) if plottable(v)]
    sym = None
    if scale == "symlog":
        sym = SymLog(vals)
        ax.set_xscale("function", functions=sym.functions(np))
    else:
        ax.set_xscale(scale)
    if vals:
        # Limits are set below; matplotlib's own autoscaling overflows on 1e300.
        ax.set_autoscalex_on(False)

    stats = sorted({r["statistic"] for r in rows if r["statistic"]})
    labels, ys = [], []
    by_verdict = {v: ([], []) for v in VERDICTS}
    thr_x, thr_y = [], []
    for i, r in enumerate(rows):
        y = n - 1 - i  # first row at the top
        ys.append(y)
        label = r["label"]
        # the statistic's full wording is in the ledger table; a short stem keeps the axis readable
        if len(stats) > 1 and r["statistic"]:
            stem = r["statistic"].split("(")[0].split(":")[0].strip()
            label += f" [{stem[:32] + ('…' if len(stem) > 32 else '')}]"
        if plottable(r["value"]):
            by_verdict[r["verdict"]][0].append(r["value"])
            by_verdict[r["verdict"]][1].append(y)
        elif math.isnan(r["value"]):
            label += " (no value)"
        else:
            label += " (value \u2264 0, not shown)"
        if plottable(r["threshold"]):
            thr_x.append(r["threshold"])
            thr_y.append(y)
        labels.append(label)

    handles = []
    if thr_x:
        ax.plot(thr_x, thr_y, linestyle="none", marker="|", markersize=11,
                markeredgewidth=1.6, color=THRESHOLD_COLOUR, zorder=3)
        handles.append(Line2D([], [], linestyle="none", marker="|", markersize=11,
                              markeredgewidth=1.6, color=THRESHOLD_COLOUR, label="threshold"))
    for v in VERDICTS:
        xs, yv = by_verdict[v]
        if not xs:
            continue
        ax.plot(xs, yv, linestyle="none", marker="o", markersize=5,
                color=VERDICT_COLOURS[v], markeredgecolor="white",
                markeredgewidth=0.4, zorder=4)
        handles.append(Line2D([], [], linestyle="none", marker="o", markersize=6,
                              color=VERDICT_COLOURS[v], label=v))

    if vals:
        ax.set_xlim(*_padded_limits(vals, scale, sym))
    else:
        ax.text(0.5, 0.5, "no plottable data", transform=ax.transAxes,
                ha="center", va="center", color="#7F7F7F")
    if scale == "symlog":
        lo, hi = ax.get_xlim()
        ticks, tlabels = _decade_ticks(lo, hi, sym.lt, sym.fwd)
        ax.xaxis.set_major_locator(mticker.FixedLocator(ticks))
        ax.xaxis.set_major_formatter(mticker.FixedFormatter(tlabels))
        ax.xaxis.set_minor_locator(mticker.NullLocator())
    elif scale == "log" and vals:
        # LogLocator may place ticks beyond 1e308 (inf) over such spans.
        lo, hi = ax.get_xlim()
        ticks, tlabels = _decade_ticks(lo, hi, lo, math.log10)
        if len(ticks) >= 2:
            ax.xaxis.set_major_locator(mticker.FixedLocator(ticks))
            ax.xaxis.set_major_formatter(mticker.FixedFormatter(tlabels))
            ax.xaxis.set_minor_locator(mticker.NullLocator())
    ax.set_ylim(-0.7, n - 0.3 if n else 0.7)
    ax.set_yticks(ys)
    ax.set_yticklabels(labels, parse_math=False, fontsize=7 if n > 40 else 8)
    ax.tick_params(axis="y", length=0)
    ax.grid(True, axis="x", color="#DDDDDD", linewidth=0.6)
    ax.grid(True, axis="y", color="#F2F2F2", linewidth=0.4)
    ax.set_axisbelow(True)
    _plain(ax.set_xlabel(g["x"]["label"]))
    _plain(ax.set_title(g["title"]))
    if handles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  frameon=False, numpoints=1)
    return fig


def render_svg(plt, np, g):
    """Draw one figure; return its SVG text (with XML prolog still present)."""
    import io
    draw = draw_lines if g["kind"] == "lines" else draw_dots
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = draw(plt, np, g)
        buf = io.StringIO()
        try:
            fig.savefig(buf, format="svg", bbox_inches="tight", pad_inches=0.08,
                        metadata={"Date": None, "Creator": None, "Format": None,
                                  "Type": None})
        finally:
            plt.close(fig)
    for msg in dict.fromkeys(str(w.message) for w in caught):
        warn(f"figure \"{g['id']}\": matplotlib: {msg}")
    return buf.getvalue()


_ID_ATTR = re.compile(r'(\sid=")([^"]*)(")')
_URL_REF = re.compile(r"url\(\s*#([^)\s]+)\s*\)")
_HREF_REF = re.compile(r'(\s(?:xlink:)?href=")#([^"]*)(")')


def inline_svg(svg, g):
    """Make matplotlib's SVG document embeddable: no prolog, unique ids, a11y."""
    fid = g["id"]
    start = svg.find("<svg")
    if start < 0:
        raise RuntimeError(f"figure \"{fid}\": matplotlib produced no <svg> element")
    svg = svg[start:].strip()
    svg = re.sub(r"\s*<metadata>.*?</metadata>", "", svg, count=1, flags=re.S)
    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.S)  # matplotlib's text echo comments
    svg = re.sub(r"\n[ \t]*\n", "\n", svg)
    # Make every id unique in the HTML document: matplotlib's ids (figure_1,
    # patch_1, clip paths, markers) repeat across figures.  Only attributes in
    # tags are rewritten (attribute values never contain '>'), not <text> content.
    prefix = f"svg-{fid}--"

    def fix_tag(m):
        t = m.group(0)
        t = _ID_ATTR.sub(lambda a: a.group(1) + prefix + a.group(2) + a.group(3), t)
        t = _URL_REF.sub(lambda a: f"url(#{prefix}{a.group(1)})", t)
        return _HREF_REF.sub(lambda a: a.group(1) + "#" + prefix + a.group(2) + a.group(3), t)

    svg = re.sub(r"<[^<>!?/][^<>]*>", fix_tag, svg)
    title = html.escape(g["title"], quote=True)
    root_end = svg.index(">")
    root = svg[:root_end]
    root = re.sub(r'\s(?:id|role|aria-label|class)="[^"]*"', "", root)
    root += (f' id="svg-{fid}" class="recall-figure-svg" role="img" aria-label="{title}"'
             ' style="max-width:100%;height:auto"')
    body = svg[root_end:]  # starts with ">"
    desc = f"\n <desc>{html.escape(g['caption'], quote=False)}</desc>" if g["caption"] else ""
    return root + ">\n <title>" + html.escape(g["title"], quote=False) + "</title>" + desc + body[1:]


# --------------------------------------------------------------------------
# HTML editing
# --------------------------------------------------------------------------

def missing_note(fid, why):
    return f'<p class="missing">figure {html.escape(fid)}{why}</p>'


def write_atomic(path, text):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".render_figures.", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        try:
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        except OSError:
            pass
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def append_other_figures(doc, items):
    """Insert a section with the unplaced figures just before </body>."""
    sec_id = ' id="other-figures"' if 'id="other-figures"' not in doc else ""
    parts = [f'\n<section class="recall-other-figures"{sec_id}>\n<h2>Other figures</h2>\n']
    for g, svg in items:
        fig_id = f' id="fig-{g["id"]}"' if f'id="fig-{g["id"]}"' not in doc else ""
        cap = html.escape(g["caption"] or g["title"], quote=False)
        parts.append(f'<figure class="recall-figure"{fig_id}>\n{svg}\n'
                     f'<figcaption>{cap}</figcaption>\n</figure>\n')
    parts.append("</section>\n")
    block = "".join(parts)
    m = None
    for m in re.finditer(r"</body\s*>", doc, flags=re.I):
        pass
    if m is None:
        return doc + block
    return doc[:m.start()] + block + doc[m.start():]


def main(argv):
    if len(argv) != 3 or argv[1] in ("-h", "--help"):
        print(f"usage: {os.path.basename(argv[0])} REPORT_JSON REPORT_HTML", file=sys.stderr)
        return 2
    json_path, html_path = argv[1], argv[2]
    try:
        try:
            with open(json_path, encoding="utf-8") as f:
                doc = json.load(f)
        except OSError as e:
            raise InputError(f"{json_path}: cannot read: {e.strerror or e}")
        except UnicodeDecodeError as e:
            raise InputError(f"{json_path}: not UTF-8: {e}")
        except json.JSONDecodeError as e:
            raise InputError(f"{json_path}: invalid JSON: {e.msg} at line {e.lineno} column {e.colno}")
        except RecursionError:
            raise InputError(f"{json_path}: invalid JSON: nested too deeply")
        figures = validate(doc, json_path)
        try:
            with open(html_path, encoding="utf-8", newline="") as f:
                page = f.read()
        except OSError as e:
            raise InputError(f"{html_path}: cannot read: {e.strerror or e}")
        except UnicodeDecodeError as e:
            raise InputError(f"{html_path}: not UTF-8: {e}")
    except InputError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2

    by_id = {g["id"]: g for g in figures}
    try:
        plt, np = setup_matplotlib()
    except Exception as e:  # ImportError, or a broken installation
        print(f"{PROG}: error: matplotlib cannot be imported by {sys.executable} ({e}); "
              f"figures are not drawn. Install python3-matplotlib to get them.",
              file=sys.stderr)
        page2 = PLACEHOLDER_RE.sub(lambda m: missing_note(m.group(1), " not drawn: "
                                   "python3-matplotlib is not installed"), page)
        try:
            write_atomic(html_path, page2)
        except OSError as e2:
            print(f"{PROG}: error: {html_path}: cannot write: {e2}", file=sys.stderr)
            return 2
        print(f"{PROG}: 0 figures drawn into {html_path} (matplotlib missing)")
        return 0

    svgs = {}
    failed = []
    for g in figures:
        try:
            svgs[g["id"]] = inline_svg(render_svg(plt, np, g), g)
        except Exception as e:  # a drawing bug must not lose the whole report
            failed.append(g["id"])
            print(f"{PROG}: error: figure \"{g['id']}\" could not be drawn: "
                  f"{type(e).__name__}: {e}", file=sys.stderr)
            svgs[g["id"]] = missing_note(g["id"], f" not drawn: {html.escape(type(e).__name__)}")

    placed = set()
    missing = []

    def repl(m):
        fid = m.group(1)
        if fid not in by_id:
            missing.append(fid)
            return missing_note(fid, ": no data")
        if fid in placed:
            warn(f"{html_path}: second placeholder for figure \"{fid}\" ignored")
            return ""
        placed.add(fid)
        return svgs[fid]

    page = PLACEHOLDER_RE.sub(repl, page)
    for fid in missing:
        warn(f"{html_path}: placeholder for figure \"{fid}\" but {json_path} has no such figure")
    # a page drawn before (its placeholders already replaced) is left as it is, not drawn twice
    already = [g["id"] for g in figures if g["id"] not in placed and f'id="svg-{g["id"]}"' in page]
    if already:
        warn(f"{html_path}: {len(already)} figures were already drawn; left as they are")
    unplaced = [g for g in figures if g["id"] not in placed and g["id"] not in already]
    for g in unplaced:
        warn(f"{html_path}: no placeholder for figure \"{g['id']}\"; appended under \"Other figures\"")
    if unplaced:
        page = append_other_figures(page, [(g, svgs[g["id"]]) for g in unplaced])
    try:
        write_atomic(html_path, page)
    except OSError as e:
        print(f"{PROG}: error: {html_path}: cannot write: {e}", file=sys.stderr)
        return 2
    print(f"{PROG}: {len(figures) - len(failed)} figures drawn into {html_path}"
          + (f" ({len(failed)} failed: {', '.join(failed)})" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
