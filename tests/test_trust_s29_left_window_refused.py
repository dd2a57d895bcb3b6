"""``--window`` / ``--steps``: refused (invalid) rows outside the selection are not counted in its figures, and the
warnings say which count covers what.

Trace (hand-built): 10 kernels of 50 µs every 100 µs from ts 1000 µs (launch calls 10 µs before each, so the window
origin is 990 µs); refused rows: a negative-duration kernel at 1150 µs (inside ``--window 0:500us`` = 990–1490 µs),
another at 1850 µs and a kernel without ``dur`` at 1900 µs (both outside). Inside the window: 1 refused row, and the
GPU's busy share is known (the dur-less kernel ran outside it): kernels at 1000…1400 µs = 5 × 50 µs over the span
1000–1450 µs = 250 / 450 = 55.6 %.
"""

from __future__ import annotations

import json

import pytest

import gpulens
from gpulens.collectors import collect
from gpulens.timeline.selection import Selection


def _trace(path):
    ev = []
    for i in range(10):
        t = 1000 + i * 100
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t, "dur": 50,
                   "args": {"device": 0, "stream": 7, "correlation": i + 1}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t - 10,
                   "dur": 5, "args": {"correlation": i + 1}})
    for name, ts, dur, corr in (("bad_late", 1850, -5, 50), ("bad_early", 1150, -5, 51), ("no_dur_late", 1900, None, 52)):
        e = {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts,
             "args": {"device": 0, "stream": 7, "correlation": corr}}
        if dur is not None:
            e["dur"] = dur
        ev.append(e)
    path.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [
        {"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
        "traceEvents": ev}))
    return path


WINDOW = Selection(window_ns=(0, 500_000))


@pytest.mark.parametrize("in_collector", [True, False])
def test_refused_rows_outside_the_window_are_not_counted(tmp_path, in_collector):
    p = _trace(tmp_path / "t.json")
    if in_collector:  # the Kineto reader applies the selection while reading
        tl = collect(p, select=WINDOW)
    else:  # any collector: the selection applied to the loaded Timeline
        tl = WINDOW.apply(collect(p))
    assert sorted(tl.rejected["name"].astype(str)) == ["bad_early"]
    said = [w for w in tl.meta.warnings if "lie outside it" in w]
    assert len(said) == 1 and "2 of the 3 invalid events" in said[0]


def test_window_report_counts_only_its_refused_rows_and_knows_busy(tmp_path):
    p = _trace(tmp_path / "t.json")
    rep = gpulens.analyze([p], select=WINDOW)
    src = rep.sources[0]
    d = src.to_dict() if hasattr(src, "to_dict") else None
    summary = d["summary"] if d else src.summary
    assert summary["rejected_event_count"] == 1
    busy = rep.sources[0].results["breakdown"].table
    row = busy.iloc[0]
    assert row["busy_pct"] == pytest.approx(100 * 250 / 450, abs=0.05)
