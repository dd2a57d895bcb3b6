"""Every page of every report reads as text for people, for the whole shared corpus (issue 18).

For each input of ../shared/traces (skipped when absent) the HTML, Markdown and console reports are rendered and
their visible text — the HTML with scripts and tags removed, plus every label, hover and title inside the chart
specs — must not contain a raw dict (``{"``), a list repr (``['``), ``None``, ``nan``, ``?-``, a ``\\u`` escape,
a snake_case table header, or two kernel labels that read the same within one chart.
"""

from __future__ import annotations

import base64
import gzip
import html as _html
import json
import re
from pathlib import Path

import pandas as pd
import pytest

import gpulens
from gpulens.errors import GpulensError
from gpulens.reports import console, html, markdown
from tests.conftest import KINETO, SHARED

_BAD = [("{\"", re.compile(r"\{\"")), ("['", re.compile(r"\['")), ("None", re.compile(r"\bNone\b")),
        ("nan", re.compile(r"\bnan\b")), ("?-", re.compile(r"\?-")), ("\\u", re.compile(r"\\u[0-9a-fA-F]{4}")),
        # a raw nanosecond figure: ≥ 1,000 ns not scaled to µs/ms/s, or a bare ≥ 10-digit integer (a ns clock value)
        ("raw ns", re.compile(r"(?<![\w.,])(?:\d{4,}|\d{1,3}(?:,\d{3})+)(?:\.\d+)? ?ns\b|(?<![\w.,\[-])(?<!thread )(?<!pid )(?<!tid )\d{10,}(?![\w.,\]-])"))]
_SNAKE = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)+$")
_RANKNO = re.compile(r"^#\d+\s+")


def bad_text(text: str, prose: list[str] | None = None) -> list[str]:
    """The forbidden patterns found in ``text`` (with a little context each); with ``prose``, only those not inside
    one of those strings (the analyzers' and collectors' own sentences)."""
    out = []
    squashed = [_squash(p) for p in prose or []]
    for label, rx in _BAD:
        for m in rx.finditer(text):
            # inside a known sentence or recorded name: its text around the match on at least one side (table
            # cells are joined, so the other side may belong to the next cell)
            cores = (text[max(0, m.start() - 6):m.end()], text[m.start():m.end() + 6])
            if prose and any(c in p for c in cores for p in prose):
                continue
            # a short recorded name ("k_\\u202ebeta") holds the match with fewer than 6 characters on each side:
            # inside any whole occurrence of a known string that contains it
            if prose and _inside_known(text, m, prose):
                continue
            # a chart's hover text wraps a long name with <br> anywhere in it, a console table cell wraps it over
            # lines between the other columns' borders: compared without the breaks
            wide = _squash(text[max(0, m.start() - 80):m.end()])[-(m.end() - m.start() + 6):]
            if any(wide in p for p in squashed):
                continue
            out.append(f"{label}: …{text[max(0, m.start() - 40):m.end() + 40]}…")
    return out


def _inside_known(text: str, m: re.Match, known: list[str]) -> bool:
    """Whether the match ``m`` lies within an occurrence in ``text`` of one of the ``known`` strings."""
    for p in known:
        if m.group() not in p:
            continue
        i = text.find(p, max(0, m.end() - len(p)))
        while 0 <= i <= m.start():
            if i + len(p) >= m.end():
                return True
            i = text.find(p, i + 1)
    return False


def _squash(text: str) -> str:
    """``text`` without plotly line breaks, console table borders and whitespace (how a wrapped name is compared
    with the recorded one)."""
    return re.sub(r"<br>|[\s│┃║]+", "", text)


def prose_of(rep) -> list[str]:
    """The sentences analyzers and collectors wrote (finding texts, verdict evidence and steps, warnings), and the
    names the trace itself records (a user annotation may be called ``## decoder fp8 None ##``: that is data)."""
    out = []
    for s in rep.sources:
        out += s.timeline.meta.warnings
        out += [str(n) for n in s.timeline.events["name"].cat.categories if "None" in str(n) or "nan" in str(n)]
        for f in s.findings():
            out += [f.title, f.detail, f.action or ""]
        vd = s.results.get("verdicts")
        if vd is not None and not vd.skipped and len(vd.table):
            out += [str(x) for x in vd.table["evidence"]]
            out += [str(y) for x in vd.table["next_steps"] for y in (x if isinstance(x, (list, tuple)) else [x])]
    from gpulens.reports._md_safe import visible

    # a recorded name with control characters is shown with them escaped (B03: "\u0001<module>: step"): data too —
    # the events' names, and those only a result table holds (a rocprof stats CSV has per-kernel rows, no events)
    names = {str(n) for s in rep.sources for n in s.timeline.events["name"].cat.categories}
    names |= {str(n) for s in rep.sources for r in s.results.values()
              if r.table is not None and "name" in r.table for n in r.table["name"].dropna().unique()}
    out += [n for n in names if visible(n, bidi=True) != n]
    # recorded texts other than names (an op's ``Input Dims`` given as a string holding "\\u00e9"): data as well
    for s in rep.sources:
        ev = s.timeline.events
        for c in ev.columns:
            if c != "name" and (isinstance(ev[c].dtype, pd.CategoricalDtype) or ev[c].dtype == object):
                vals = ev[c].cat.categories if isinstance(ev[c].dtype, pd.CategoricalDtype) else ev[c].dropna().unique()
                out += [str(v) for v in vals if isinstance(v, str) and any(rx.search(v) for _, rx in _BAD)]
    out += [visible(p, bidi=True) for p in out if p and visible(p, bidi=True) != p]
    return [" ".join(p.split()) for p in out if p]


def snake_headers(headers: list[str]) -> list[str]:
    """Table headers written as snake_case identifiers."""
    return [h for h in headers if _SNAKE.match(h.strip())]


def duplicate_labels(labels: list[str]) -> list[str]:
    """Category labels of one chart axis that read the same once their ``#n`` rank prefix is dropped."""
    seen, dup = set(), []
    for lab in labels:
        key = _RANKNO.sub("", str(lab)).strip()
        if key and key in seen:
            dup.append(key)
        seen.add(key)
    return dup


def page_text(page: str) -> tuple[str, list[str], list[list[str]]]:
    """(visible text of the page, its table headers, the category labels of each chart axis)."""
    specs = [json.loads(m) for m in re.findall(r'<script type="application/json" id="fig-\d+-spec">(.*?)</script>',
                                               page, re.S)]
    body = re.sub(r"<script\b.*?</script>|<style\b.*?</style>", " ", page, flags=re.S)
    headers = [_html.unescape(re.sub(r"<[^>]+>", "", h)) for h in re.findall(r"<th\b[^>]*>(.*?)</th>", body, re.S)]
    text = _html.unescape(re.sub(r"<[^>]+>", " ", body))
    axes, chart_text = [], []
    for spec in specs:
        for tr in spec["data"]:
            for key in ("x", "y"):
                vals = tr.get(key) or []
                if vals and all(isinstance(v, str) for v in vals) and tr.get("type") in ("bar", "heatmap", None):
                    # one category per row (not a Gantt bar sitting on a shared lane, which has a base)
                    if (key == "y" and tr.get("orientation") == "h" and "base" not in tr) or \
                            (key == "y" and tr.get("type") == "heatmap"):
                        axes.append(vals)
                    chart_text += vals
            for key in ("text", "hovertext", "name"):
                v = tr.get(key)
                flat = [y for x in v for y in (x if isinstance(x, list) else [x])] if isinstance(v, list) else [v]
                chart_text += [str(x) for x in flat if x]
        lay = spec["layout"]
        chart_text += [str(a.get("text", "")) for a in lay.get("annotations", [])]
        for ax in ("xaxis", "yaxis"):
            t = (lay.get(ax) or {}).get("title")
            chart_text.append(str(t.get("text", "")) if isinstance(t, dict) else str(t or ""))
    # the timeline's payload (gzip + base64): its lane labels are one chart axis, its names hover text
    for blob in re.findall(r'<script type="application/octet-stream" id="fig-\d+-data">([A-Za-z0-9+/=]+)</script>', page):
        data = json.loads(gzip.decompress(base64.b64decode(blob)))
        axes.append(data["lanes"])
        chart_text += data["lanes"] + data["names"] + data["kindLabels"]
    return text + "\n" + _html.unescape("\n".join(chart_text)), headers, axes


def _corpus() -> list[Path]:
    if not SHARED.exists():
        return []
    out = []
    for sub in ("kineto", "nsys", "ncu"):
        out += sorted(p for p in (SHARED / sub).iterdir() if p.is_file() and not p.name.endswith(".md"))
    out.append(SHARED / "kineto" / "multirank_hta_trace_filter")
    for sub in ("rocprof", "omniperf"):
        out += sorted(p for p in (SHARED / sub).iterdir() if p.is_dir())
    return out


CORPUS = _corpus() or [KINETO / "tracelens_h100_bert-small.json.gz"]


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_every_page_reads_as_text(path):
    try:
        rep = gpulens.analyze([path])
    except GpulensError as e:  # inputs the collectors refuse (with their one-line error) have no report
        pytest.skip(f"{path.name}: {e}")
    page = html.render(rep)
    text, headers, axes = page_text(page)
    prose = prose_of(rep)
    flat = " ".join(text.split())
    assert not bad_text(flat, prose), bad_text(flat, prose)[:5]
    assert not snake_headers(headers), snake_headers(headers)
    for labels in axes:
        assert not duplicate_labels(labels), duplicate_labels(labels)
    md = markdown.render(rep)
    lines = md.splitlines()
    md_headers = [c.strip() for i, line in enumerate(lines[:-1]) if line.startswith("| ")
                  and lines[i + 1].startswith("|---") for c in line.strip().strip("|").split(" | ")]
    assert not snake_headers([h.replace("\\_", "_") for h in md_headers])
    md_text = " ".join(md.replace("\\", "").split())
    assert not bad_text(md_text, prose), bad_text(md_text, prose)[:5]
    out = " ".join(console.render(rep).split())
    assert not bad_text(out, prose), bad_text(out, prose)[:5]
    # the analyzers' and collectors' own sentences are clean too: only names the trace itself records are exempt
    recorded = [" ".join(str(n).split()) for s in rep.sources for n in s.timeline.events["name"].cat.categories
                if "None" in str(n) or "nan" in str(n)]
    assert not bad_text(flat, recorded), bad_text(flat, recorded)[:5]


def test_the_checks_catch_what_they_should():
    # the detectors themselves: each forbidden form is found, clean text passes
    assert len(bad_text('{"0": "host-bound"} [\'a\'] None nan ?-side \\u2026')) == 6
    assert bad_text("12.3 % · unknown · 1.23 µs · nan_to_num_kernel · Nonexistent") == []
    # raw nanoseconds: unscaled ns figures and bare clock values; scaled times, ids and counts pass
    assert len(bad_text("idle 12345 ns · 1,234,567 ns · start 1752830083333430849")) == 3
    assert bad_text("812 ns · 1.23 µs · 19392 · 1,234 calls · sm90_1234567890_kernel · 12.9 · CPU thread "
                    "1890023232 · shapes [[1073741824],[16777216]]") == []
    assert snake_headers(["time_ns", "time at stake", "GPU"]) == ["time_ns"]
    assert duplicate_labels(["#1 cutlass…", "#2 cutlass…", "#3 other"]) == ["cutlass…"]


def test_an_escaped_name_wrapped_by_a_chart_hover_still_reads_as_the_recorded_name():
    """A chart's hover text wraps a long kernel name with ``<br>`` anywhere, here right before the escaped NUL that
    ends the name (fuzz_s8 seed 31337 #16): the escape is the recorded name's, not a stray ``\\u`` — while a
    ``\\u`` escape the name does not hold, or outside any name, is still found."""
    name = "fmha(AttentionKernel<(bool)1>::Params)\\u0000"
    assert bad_text("x Kernel<(bool)1>::Pa<br>rams)\\u0000<br>24 calls", [name]) == []
    assert len(bad_text("x Kernel<(bool)1>::Pa<br>rams)\\u0041<br>24 calls", [name])) == 1
    assert len(bad_text("stray \\u0000 here", [name])) == 1


def test_a_control_character_in_a_name_only_a_result_table_holds_is_shown_escaped(tmp_path):
    """A rocprof kernel-stats CSV has per-kernel rows and no events: a kernel name with a NUL byte (a damaged
    export) reaches the reports only through the result tables. Every report shows it with the NUL escaped
    (``\\u0000compute_b``), never the raw byte — and the text check counts that escape as the recorded name, not a
    stray ``\\u`` escape (fuzz_s10 seed 5 input 2 flagged it before the check read the result tables' names)."""
    f = tmp_path / "results.stats.csv"
    f.write_text('"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n'
                 '"compute_a",100,374067410,3740674,60.0\n'
                 '"\x00compute_b",100,137262302,1372623,40.0\n')
    rep = gpulens.analyze([f], strict=False)
    names = [str(n) for n in rep.sources[0].results["hotspots"].table["name"]]
    assert "\x00compute_b" in names  # the name as recorded, NUL kept in the data
    prose = prose_of(rep)
    page, _, _ = page_text(html.render(rep))
    for label, text in (("html", page), ("markdown", markdown.render(rep)), ("console", console.render(rep))):
        assert "\x00" not in text, label
        flat = " ".join(text.replace("\\\\", "\\").split())
        assert "\\u0000compute" in flat.replace("\\_", "_"), label
        assert not [b for b in bad_text(" ".join(text.split()), prose) if b.startswith("\\u")], label


def test_a_short_escaped_name_and_a_console_wrapped_cell_read_as_the_recorded_text():
    """A short name (``k_\\u202ebeta``: fewer than 6 characters each side of the escape) is still the recorded name
    where the report shows it whole (fuzz_fresh seed 9001 #22); a console table wraps a long recorded text over lines
    between other columns' borders (an ``Input Dims`` string holding ``\\u00e9``, fuzz_s11 seed 9001 #1). A ``\\u``
    escape outside any recorded text is still found."""
    assert bad_text("next step #1 k_\\u202ebeta 12.00 µs", ["k_\\u202ebeta"]) == []
    assert len(bad_text("next step #1 k_\\u202ebetb 12.00 µs", ["k_\\u202ebeta"])) == 1
    dims = "\\u00e9<b>\\u00e9<b>\\u00e9<b>"
    wrapped = "│ x │ 1 │ \\u00e9<b>\\u00e9 │\n│   │   │ <b>\\u00e9<b> │"  # the last column wraps
    assert bad_text(" ".join(wrapped.split()), [dims]) == []
    assert len(bad_text(" ".join(wrapped.replace("<b>\\u00e9<b>", "<b>\\u0041<b>").split()), [dims])) == 1
