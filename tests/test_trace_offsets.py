"""Steps and kernel outliers are placed by their offset from the start of the profiled window (the origin --window
counts from), not by the profiler's raw clock (1.7e18 ns since 1970 reads as a date, and two outliers a few µs apart
read alike)."""

from __future__ import annotations

import json

from gpulens.report import analyze

T = 1_700_000_000_000_000  # µs since 1970: Kineto's clock


def _trace(path):
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::warmup", "pid": 1, "tid": 1, "ts": T, "dur": 5}]
    for n in range(3):  # ProfilerStep#n at T + 100 + 1000·n µs, 900 µs long
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}", "pid": 1, "tid": 1,
                   "ts": T + 100 + 1000 * n, "dur": 900})
        for i in range(4):  # 4 kernels per step, 10 µs each; the third step's first one lasts 80 µs
            dur = 80 if (n, i) == (2, 0) else 10
            ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7,
                       "ts": T + 200 + 1000 * n + 100 * i, "dur": dur, "args": {"device": 0, "stream": 7}})
    path.write_text(json.dumps({"traceEvents": ev}))
    return path


def test_steps_and_outliers_carry_their_offset_from_the_trace_start(tmp_path):
    p = _trace(tmp_path / "t.json")
    r = analyze([p], cache=False).sources[0].results
    st = r["steps"].table
    # the rank's first event is aten::warmup at T: step n starts 100 + 1000·n µs after it
    assert st["trace_offset_ns"].tolist() == [100_000, 1_100_000, 2_100_000]
    assert st["start_ns"].tolist() == [T * 1000 + x for x in (100_000, 1_100_000, 2_100_000)]
    out = r["kernel_outliers"].table
    assert len(out) == 1  # the 80 µs instance: 8× the 10 µs median
    # it starts at T + 200 + 2000 µs: 2,200 µs from the start
    assert (out["trace_offset_ns"].iloc[0], out["dur_ns"].iloc[0]) == (2_200_000, 80_000)


def test_console_shows_the_offset_not_the_clock(tmp_path):
    from tests.test_cli import run

    p = _trace(tmp_path / "t.json")
    text = run("analyze", str(p), "--no-cache").stdout
    outliers = text[text.index("Kernel outliers"):]
    outliers = outliers[:outliers.index("└")]
    # the outlier's place reads 2.20 ms from the start, not the clock's date (T: 2023-11-14 22:13:20 UTC)
    assert "start (in" in outliers and "2.20 ms" in outliers and "2023-11-14" not in outliers


def test_a_step_cut_by_the_window_end_is_not_a_slow_step(tmp_path):
    """Steps every 1,000 µs from T + 100 µs lasting 300, 650 and 800 µs; --window :2450us cuts the third at 2,450 µs
    (350 of its 800 µs). Counted as a step, the cut piece would make the median 350 µs and step 1 (650 µs > 1.5 ×
    350) 'slow'; marked clipped and left out, the whole steps are 300 and 650 µs (median 475 µs) — two steps, too few
    for a slow-step finding (3 needed)."""
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::warmup", "pid": 1, "tid": 1, "ts": T, "dur": 5}]
    for n, dur in enumerate((300, 650, 800)):
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}", "pid": 1, "tid": 1,
                   "ts": T + 100 + 1000 * n, "dur": dur})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": T + 120 + 1000 * n, "dur": 30,
                   "args": {"device": 0, "stream": 7}})
    p = tmp_path / "w.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    from gpulens.timeline.selection import Selection

    st = analyze([p], cache=False, select=Selection.parse(window=":2450us")).sources[0].results["steps"]
    t = st.table
    assert t["clipped"].tolist() == [False, False, True]
    assert t["dur_ns"].tolist() == [300_000, 650_000, 350_000]  # the cut step: 2,100 → 2,450 µs
    assert st.summary["median_step_ns"] == 475_000 and st.summary["clipped_steps"] == 1
    assert (st.summary["min_step_ns"], st.summary["max_step_ns"]) == (300_000, 650_000)
    assert not st.findings
