"""Every finding reaches the person reading any report: the console, Markdown and HTML lists show the findings
that detail another one (``parent``) indented under it, ranked by time at stake, or count them in "+N more"; the
JSON holds them all. Expected trees are written by hand (the synthetic list) or read from the JSON report."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gpulens.analyzers.base import Finding
from gpulens.reports._answer import finding_tree, more_text

MULTI = Path("/work/shared/traces/kineto/multirank_hta_trace_filter")


def _f(key, stake, parent=None, sev="warning"):
    return Finding(f"finding {key}", severity=sev, time_at_stake_ns=stake, key=key, parent=parent,
                   action=f"do {key}")


def test_tree_order_depth_and_what_is_left_out():
    # roots a (10), b (5), c (1); a has children a1 (2), a2 (7) and a2 has a grandchild a2x (3); b has b1 (4)
    fs = [_f("c", 1), _f("a1", 2, "a"), _f("b", 5), _f("a", 10), _f("a2x", 3, "a2"), _f("a2", 7, "a"),
          _f("b1", 4, "b")]
    rows, left = finding_tree(fs)
    assert [(f.key, d) for f, d in rows] == [("a", 0), ("a2", 1), ("a2x", 2), ("a1", 1), ("b", 0), ("b1", 1),
                                            ("c", 0)]
    assert left == 0
    # two roots at most, one descendant under each: a, a2 | b, b1 — left out: a2x, a1 (2) and c (1)
    rows, left = finding_tree(fs, max_roots=2, max_children=1)
    assert [(f.key, d) for f, d in rows] == [("a", 0), ("a2", 1), ("b", 0), ("b1", 1)]
    assert left == 3 and more_text(left) == "+3 more findings in the JSON/HTML report"


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[│┃]", " ", text))


@pytest.mark.skipif(not MULTI.exists(), reason="shared trace not available")
def test_nested_findings_reach_console_markdown_and_html():
    import gpulens
    from gpulens.reports import console, html, json_report, markdown

    rep = gpulens.analyze([MULTI])
    js = json.loads(json_report.render(rep))["sources"][0]["findings"]
    children = [f for f in js if f.get("parent")]
    assert any(f["key"] == "straggler" for f in children)  # the straggler details the exposed communication
    text = console.render(rep, width=220)
    listing = text[text.index("Findings (largest"):]
    rows, left = finding_tree(rep.sources[0].findings(), 8, 4)
    assert len(rows) + left == len(js)                       # every finding listed or counted
    assert ("more finding" in listing) == bool(left)
    st = next(f for f in js if f["key"] == "straggler")
    from gpulens.units import fmt_ns

    flat = _norm(listing)
    assert f"{fmt_ns(st['time_at_stake_ns'])} ↳ [warning] Rank" in flat   # indented, with its own figure
    # it comes after its parent (exposed communication) and before the next root
    assert flat.index("Exposed communication") < flat.index("is the straggler")
    md = markdown.render(rep)
    md_line = next(ln for ln in md.splitlines() if "is the straggler" in ln)
    assert md_line.startswith("   - ") and fmt_ns(st["time_at_stake_ns"]) in md_line
    page = html.render(rep)
    row = re.search(r'<tr class="sev-warning child">(?:(?!</tr>).)*is the straggler(?:(?!</tr>).)*</tr>', page, re.S)
    assert row and f'data-v="{st["time_at_stake_ns"]}"' in row.group(0)
    assert flat.count("↳ [") == sum(1 for _, d in rows if d) > 0  # every listed child is indented
