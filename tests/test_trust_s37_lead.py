"""Lead's fixes of the thirty-seventh session, each checked against a value derived by hand from the input:

* a GPU event lasting longer than a day (a corrupt start or end beside real ones; no profiled GPU operation runs
  that long) is kept as recorded but flagged by one counted warning naming the longest — before, a rocprofv3
  ``Start_Timestamp`` of ``+5`` gave a 102-day kernel and GPU span with no word (fuzz finding of session 37).
"""

from __future__ import annotations

import json
from pathlib import Path

import gpulens
from gpulens.collectors import collect

_HDR = ("Kind,Agent_Id,Queue_Id,Stream_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,Start_Timestamp,"
        "End_Timestamp,Private_Segment_Size,Group_Segment_Size,Workgroup_Size_X,Workgroup_Size_Y,Workgroup_Size_Z,"
        "Grid_Size_X,Grid_Size_Y,Grid_Size_Z\n")


def _rocprofv3(path: Path, start_b: str) -> Path:
    """Two dispatches on a machine up 102 days (CLOCK_MONOTONIC ns ≈ 8.8e15): kA 8,819,330,000,000,000 →
    …010,000 (10 µs); kB from ``start_b`` to 8,819,330,000,030,000."""
    path.write_text(_HDR + "KERNEL_DISPATCH,1,1,0,100,1,1,kA,1,8819330000000000,8819330000010000,0,0,256,1,1,1024,1,1\n"
                    f"KERNEL_DISPATCH,1,1,0,100,2,2,kB,2,{start_b},8819330000030000,0,0,256,1,1,1024,1,1\n")
    return path


def _day_warnings(tl) -> list[str]:
    return [w for w in tl.meta.warnings if "longer than a day" in w]


def test_a_day_long_gpu_event_is_flagged_once_and_kept(tmp_path):
    p = _rocprofv3(tmp_path / "x_kernel_trace.csv", "+5")
    tl = collect(p)
    # kB: 8,819,330,000,030,000 − 5 ns = 8,819,330.00 s = 102.08 days (/ 86,400 s), kept (the span includes it), said once
    kb = tl.events[tl.events["name"].astype(str) == "kB"].iloc[0]
    assert int(kb["dur_ns"]) == 8_819_330_000_030_000 - 5
    (w,) = _day_warnings(tl)
    assert "1 GPU event lasts longer than a day (the longest 102.08 days: kB)" in w
    assert w.startswith(str(p)) and "timestamp is likely corrupt" in w
    tl.validate()  # validated again (joins, windows): still one warning
    assert len(_day_warnings(tl)) == 1
    src = gpulens.analyze([p]).sources[0]
    # kept, the warning says so: kB (the first start on stream 0) is clipped at kA's start as an overrun, so the span
    # runs from kB's start (5 ns) to kA's end: 8,819,330,000,010,000 − 5 ns
    assert src.summary["span_ns"] == 8_819_330_000_010_000 - 5
    assert any("longer than a day" in w for w in src.timeline.meta.warnings)


def test_real_timestamps_on_a_long_running_machine_are_not_flagged(tmp_path):
    tl = collect(_rocprofv3(tmp_path / "y_kernel_trace.csv", "8819330000020000"))  # kB 10 µs
    assert _day_warnings(tl) == []


def test_only_gpu_events_over_a_day(tmp_path):
    # Kineto µs: a kernel of 2 days (172,800,000,000 µs) and one of 23 h (82,800,000,000 µs), a CPU op of 3 days
    day_us = 86_400_000_000
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::long_host_op", "pid": 1, "tid": 1, "ts": 0, "dur": 3 * day_us},
          {"ph": "X", "cat": "kernel", "name": "k_two_days", "pid": 0, "tid": 7, "ts": 10, "dur": 2 * day_us,
           "args": {"device": 0, "stream": 7}},
          {"ph": "X", "cat": "kernel", "name": "k_23h", "pid": 0, "tid": 8, "ts": 10, "dur": 23 * 3_600_000_000,
           "args": {"device": 0, "stream": 8}}]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    (w,) = _day_warnings(collect(p))
    assert "1 GPU event lasts longer than a day (the longest 2.00 days: k_two_days)" in w


def test_html_hot_kernel_panel_gives_the_critical_share_as_every_reporter_does(tmp_path):
    # kernels of 500, 307 and 193 µs on one stream: the fewest covering 80 % of kernel time are the first two,
    # (500 + 307) / 1000 = 80.7 % — the HTML panel had printed "81 %" beside the console's 80.7 %
    from gpulens.reports import html

    ev, t = [], 0
    for name, dur in (("k_a", 500), ("k_b", 307), ("k_c", 193)):
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": t, "dur": dur,
                   "args": {"device": 0, "stream": 7}})
        t += dur + 10
    p = tmp_path / "k.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    page = html.render(gpulens.analyze([p]))
    assert "2 of 3 kernels cover 80.7 % of the" in " ".join(page.split())


def test_every_short_source_key_of_a_builtin_figure_is_explained():
    # `gpulens devices "H100 SXM"` printed "STAS", "WEB-H100", "PT-DI" with no word on what they are (new user)
    import re

    from gpulens.devices import SPECS
    from gpulens.devices.spec import source_legend

    keys = {str(f.source).split(" ", 1)[0].rstrip(",;:") for s in SPECS for f in s.figures.values()}
    # a bare key, or a key before its note: not the first word of a sentence ("NVIDIA GH200 announcement …")
    # ("GA102 whitepaper" names itself)
    short = {k for k in keys if re.fullmatch(r"[A-Z][A-Z0-9.]*(-[A-Za-z0-9.]+)*", k)}
    short -= {"NVIDIA", "AMD", "RTX", "GA102"}
    assert {"STAS", "WEB-H100", "ROCM"} <= short  # the keys the built-in tables use most
    for k in sorted(short):
        (line,) = source_legend([k])
        assert line.startswith(f"{k} = ") and len(line) > len(k) + 10


def test_devices_command_prints_the_source_legend():
    from typer.testing import CliRunner

    from gpulens.cli import app

    out = " ".join(CliRunner().invoke(app, ["devices", "H100 SXM"]).output.split())
    assert "Sources: STAS = stas00/ml-engineering accelerator tables" in out
    assert "WEB-H100 = a copy of the H100 datasheet" in out
