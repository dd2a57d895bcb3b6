"""The Annotations table (session 50, a new user): README promises "GPU time per record_function / NVTX / roctx
range"; the console's compact table showed host time only and its rows in path order (a 3.9 ms range before a
238 ms ProfilerStep). Now the rows are ordered by GPU time (one order for every reporter) and the compact table
shows GPU and host time with units.

The trace is built here (tests.dig_traces.KTrace); each range's GPU time is the kernels launched inside it, summed by
hand below.
"""

from __future__ import annotations

import re

from gpulens.report import analyze
from gpulens.reports import console, markdown
from tests.dig_traces import KTrace


def _trace(tmp_path):
    t = KTrace(rank=0)
    # "setup" comes first in time and in path order, with little GPU work; "train" later, with much more
    t.annotation("setup", 100, 50)
    e = t.op("aten::fill_", 110, 10)
    t.launch(e, 112, [("fill_kernel", 1000.0, 3.0)])  # setup: 3 µs of GPU time
    t.annotation("train", 200, 400)
    for i in range(4):
        e = t.op("aten::mm", 210 + 50 * i, 20)
        t.launch(e, 215 + 50 * i, [(f"gemm_{i}", 1100.0 + 300 * i, 200.0)])  # train: 4 × 200 = 800 µs
    t.annotation("idle_wait", 700, 900)  # no GPU work inside: 0 GPU time, the most host time
    return t.write(tmp_path / "ann.json")


def test_rows_ordered_by_gpu_time_and_console_shows_gpu_and_host_time(tmp_path):
    rep = analyze([_trace(tmp_path)], cache=False)
    t = rep.sources[0].results["annotations"].table
    host = t[t["side"] == "host"]
    assert host["annotation"].tolist()[:3] == ["train", "setup", "idle_wait"]  # 800 µs, 3 µs, 0 µs of GPU time
    assert host["gpu_time_ns"].tolist()[:3] == [800_000, 3_000, 0]
    assert host["host_time_ns"].tolist()[:3] == [400_000, 50_000, 900_000]
    text = console.render(rep, width=200)
    part = text[text.index("Annotations"):]
    part = part[:part.index("└")]
    head = part[:part.index("┡")]
    assert "GPU time" in head and "host time" in head
    rows = [r for r in part.splitlines() if r.startswith("│")]
    assert "train" in rows[0] and "800.00 µs" in rows[0] and "400.00 µs" in rows[0]
    assert "setup" in rows[1] and "3.00 µs" in rows[1]
    md = markdown.render(rep)
    m = md[md.index("Annotations"):]
    assert "GPU time" in m[:m.index("\n\n", m.index("|"))]
    assert re.search(r"train \| 800\.00 µs", m) or m.index("train") < m.index("setup")
