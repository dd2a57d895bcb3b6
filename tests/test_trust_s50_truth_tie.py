"""Session 50: two equal shares are a tie, not "the largest" and "a near tie: 0.0 percentage points apart".

Case B12 (tests/data/cases/B12.json, /work/shared/cases/README.md): on one stream, copies of 2 + 4 + 3 µs, a 1 µs
memset and the 30 µs compute kernel ``gemm_main``, from the first event at 10 µs to the last end at 80 µs. Worked out
from the file's own events below: span 70 µs, busy 40 µs, so 30 µs idle (42.9 %) beside 30 µs computing (42.9 %).
The verdict names one class (the analyzer's order), but its sentence must not call that share the largest.
"""

from __future__ import annotations

import json

import gpulens
from gpulens.reports import markdown
from gpulens.reports._answer import answer
from gpulens.reports._answer_proof import largest_words, tie_text
from tests.conftest import CASES


def _by_hand():
    ev = [e for e in json.loads((CASES / "B12.json").read_text())["traceEvents"] if e.get("ph") == "X"]
    start, end = min(e["ts"] for e in ev), max(e["ts"] + e["dur"] for e in ev)
    iv = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev)
    busy, cur = 0, None
    for a, b in iv:  # union of the intervals
        if cur is None or a > cur[1]:
            busy += 0 if cur is None else cur[1] - cur[0]
            cur = [a, b]
        else:
            cur[1] = max(cur[1], b)
    busy += cur[1] - cur[0]
    gemm = sum(e["dur"] for e in ev if e["name"] == "gemm_main")
    return end - start, busy, gemm


def test_b12_equal_idle_and_computing_read_as_a_tie():
    span, busy, gemm = _by_hand()
    assert (span, busy, gemm) == (70, 40, 30) and span - busy == gemm  # the tie, from the file
    pct = f"{100 * gemm / span:.1f} %"                                   # 42.9 %
    rep = gpulens.analyze([CASES / "B12.json"])
    a = answer(rep.sources[0])
    assert f"ties for the largest ({pct} of the span)" in a.headline and "is the largest" not in a.headline
    assert a.detail == f"GPU computing is the secondary share ({pct} of the span; a tie: the same share)"
    md = markdown.render(rep).replace("\\", "")
    assert "ties for the largest" in md and "0.0 percentage points" not in md


def test_tie_words_by_hand():
    assert tie_text(52.0, 48.0) == "; a near tie: 4.0 percentage points apart"
    assert tie_text(50.0, 49.97) == "; a near tie: under 0.1 percentage points apart"
    assert tie_text(42.857, 42.857) == "; a tie: the same share"
    summary = {"verdict_share_pct": 42.857, "secondary_share_pct": 42.857, "secondary_cause": "gpu-bound"}
    assert largest_words(summary, "idle-unattributed") == "ties for the largest"
    assert largest_words({**summary, "secondary_share_pct": 40.0}, "idle-unattributed") == "is the largest"
    assert largest_words({**summary, "secondary_cause": None}, "idle-unattributed") == "is the largest"
