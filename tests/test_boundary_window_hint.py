"""The boundary-gap finding names a ``--window`` the user can paste: from the rank's earliest event, in whole µs
rounded into the gap (start down, end up), and that window indeed leaves the gap out while keeping every kernel."""

from __future__ import annotations

import json
from pathlib import Path

from gpulens.report import analyze
from gpulens.timeline.selection import Selection


def _trace(path: Path, lead_us: float | None, tail_us: float | None) -> Path:
    ev = [{"ph": "X", "cat": "cpu_op", "name": "setup", "pid": 1, "tid": 1, "ts": 1000.0, "dur": 1.0,
           "args": {"External id": 1}}]  # the rank's earliest event: --window counts from 1000 µs
    ev.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7,
               "ts": 1010.0, "dur": 5.0, "args": {"device": 0, "stream": 7, "bytes": 1 << 20}})
    t = 1015.0 + (lead_us or 2.0)  # the first kernel after the leading gap
    for i in range(12):  # twelve 10 µs kernels, 2 µs apart
        ev.append({"ph": "X", "cat": "kernel", "name": f"k{i % 3}", "pid": 0, "tid": 7, "ts": round(t, 3),
                   "dur": 10.0, "args": {"device": 0, "stream": 7, "grid": [64, 1, 1], "block": [256, 1, 1]}})
        t += 12.0
    last_end = t - 2.0
    if tail_us is not None:
        ev.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": 7,
                   "ts": round(last_end + tail_us, 3), "dur": 5.0, "args": {"device": 0, "stream": 7,
                                                                          "bytes": 1 << 20}})
    path.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],
                                "traceEvents": ev}))
    return path


def _boundary(report) -> tuple[list, str | None]:
    bn = report.sources[0].results["bottlenecks"]
    f = [x for x in bn.findings if x.key == "idle/boundary"]
    return bn.summary.get("boundary_gaps") or [], (f[0].action if f else None)


def test_leading_gap_names_the_window_after_it(tmp_path):
    p = _trace(tmp_path / "lead.json", lead_us=1995.5, tail_us=None)
    gaps, action = _boundary(analyze([p], cache=False))
    assert [g["position"] for g in gaps] == ["leading"]
    # the gap ends at the first kernel, 1015 + 1995.5 = 3010.5 µs: 2010.5 µs after the earliest event (1000 µs),
    # rounded down into the gap
    assert f"gpulens analyze {p} --window 2010us:)" in action
    assert "A:B" not in action and "START:END" not in action
    kept = analyze([p], cache=False, select=Selection.parse(window="2010us:"))
    gaps2, action2 = _boundary(kept)
    assert gaps2 == [] and action2 is None
    assert kept.sources[0].results["hotspots"].table["calls"].sum() == 12  # every kernel kept


def test_leading_and_trailing_gaps_name_both_bounds(tmp_path):
    p = _trace(tmp_path / "both.json", lead_us=1995.5, tail_us=2500.25)
    gaps, action = _boundary(analyze([p], cache=False))
    assert sorted(g["position"] for g in gaps) == ["leading", "trailing"]
    # last kernel ends at 3010.5 + 11 × 12 + 10 = 3152.5 µs: 2152.5 µs after the earliest event, rounded up
    assert "--window 2010us:2153us)" in action
    kept = analyze([p], cache=False, select=Selection.parse(window="2010us:2153us"))
    assert _boundary(kept) == ([], None)
    assert kept.sources[0].results["hotspots"].table["calls"].sum() == 12


def test_trailing_gap_names_the_window_before_it(tmp_path):
    p = _trace(tmp_path / "tail.json", lead_us=None, tail_us=2500.25)
    gaps, action = _boundary(analyze([p], cache=False))
    assert [g["position"] for g in gaps] == ["trailing"]
    # first kernel at 1017 µs; the last ends at 1017 + 11 × 12 + 10 = 1159 µs: 159 µs after the earliest event
    assert "--window :159us)" in action
