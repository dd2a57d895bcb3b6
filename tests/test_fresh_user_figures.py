"""Figures a first-time user reads in findings agree with the tables beside them (session 10, "fresh" walk).

Each test names the real input that showed the fault and derives its expected value from the trace or by hand.
"""

from __future__ import annotations

import re

import pytest

import gpulens
from gpulens.units import pct_words
from tests.conftest import shared_trace


@pytest.mark.parametrize("pct, text", [(0.4, "0.4 %"), (4.24, "4.2 %"), (9.94, "9.9 %"), (9.96, "10 %"),
                                       (46.3, "46 %"), (0.0, "0.0 %"), (0.03, "under 0.1 %"), (100.0, "100 %")])
def test_pct_words_never_rounds_to_a_false_zero(pct, text):
    # hand-written: one decimal below 10 %, whole percent above, a non-zero share is never "0 %"
    assert pct_words(pct) == text


def test_roofline_findings_state_the_tables_roof_percentage():
    """tracelens_mi300x_bert-small: attn_fwd runs at 0.4 % of its roof (table) — its finding said "0 % of
    attainable". Every roofline finding's percentage must be the table's figure to the shown precision, and never 0
    for a kernel that did work."""
    rep = gpulens.analyze([shared_trace("kineto/tracelens_mi300x_bert-small.json.gz")])
    res = rep.sources[0].results["roofline"]
    t = res.table.set_index("name")
    checked = 0
    for f in res.findings:
        m = re.search(r"\((?:[^()]*? )?([\d.]+) % of attainable|at ([\d.]+) % of the", f.title)
        if not m or f.kernel not in t.index:
            continue
        shown = float(m.group(1) or m.group(2))
        pct = float(t.loc[f.kernel, "roof_pct"])
        digits = 0 if pct >= 9.95 else 1
        assert shown == pytest.approx(round(pct, digits), abs=1e-9), (f.title, pct)
        assert shown > 0, f.title
        checked += 1
    # the trace's 6 critical kernels each get a roofline finding (FLOPs from shapes for 100 % of them)
    assert checked >= 6
    # attn_fwd by hand: 4 calls, 113.656 µs (SOURCES.md); its roof share is under 1 % — shown with its decimal
    attn = [f for f in res.findings if f.kernel and f.kernel.startswith("attn_fwd") and "attainable" in f.title]
    assert attn and re.search(r"\(0\.\d % of attainable", attn[0].title), attn[0].title
