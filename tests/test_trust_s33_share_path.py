"""One definition for the host's share of the critical path (s33 review: GPT-2 on an H200 read "74.1 %" in the run
headline, "65 %" in the critical-path finding and "64.1 %" + "15.1 %" in a step's rows, three figures under one
name). The share is computed once (``critical_path`` summary ``host_share``) and every output quoting it reads that
key through the same formatter; a class's share summed over several steps says so beside the per-step rows.
"""

from __future__ import annotations

import re

import pytest

from gpulens.report import analyze
from tests.dig_traces import KTrace
from tests.test_critical_path import _trace


def test_host_share_of_the_hand_derived_path(tmp_path):
    """tests/test_critical_path.py's hand path: step 1 is 100 µs of host work (cpu_op 70, runtime 10, host idle 20);
    step 2 (200 µs) holds kernel 150 and host work 23 + 19 + 6 + 2 = 50 µs. Step 1's last idle (1090–1100) overlaps
    k2 (1087–1092) by 2 µs: a host wait while the GPU was busy, counted with the GPU work. Host share =
    (100 + 50 − 2) / 300 = 49.3 %; the kernels hold 150 / 300 = 50 % summed over the 2 steps."""
    cp = analyze([_trace(tmp_path)], only=["critical_path"]).sources[0].results["critical_path"]
    assert cp.summary["host_wait_gpu_busy_ns"] == 2_000
    assert cp.summary["host_share"] == pytest.approx(148 / 300)
    f = cp.findings[0]
    # the rows give each step's own share (step 2: kernels 75.0 %); s38: the path it is of, 100 + 200 µs
    assert " of 300.00 µs, summed over 2 steps" in f.title
    assert "host work 49.3 % of the path" in f.detail
    assert "host_share" in cp.summary_columns and "[share]" in cp.summary_columns["host_share"]


def _paced(tmp_path, wait_us: int = 0):
    """Two steps of 12 host ops (100 µs each, one 3 µs launch at +90 µs of a 75 µs kernel starting +95 µs), then a
    100 µs op launching nothing (tests/test_run_verdict_host_path.py): the path runs on the host throughout, the GPU
    never holding it back — host share 100 %."""
    t = KTrace()
    ts = 1000
    for step in (1, 2):
        start = ts
        for _ in range(12):
            ext = t.op("aten::mul", ts, 100)
            t.launch(ext, ts + 90, [("my_kernel", ts + 95, 75)], dur=3)
            ts += 100
        t.op("aten::item", ts, 100)
        t.annotation(f"ProfilerStep#{step}", start, ts + 100 - start)
        ts += 100
    return t.write(tmp_path / "paced.json")


def test_a_host_bound_verdict_quotes_the_one_host_share(tmp_path):
    src = analyze([_paced(tmp_path)]).sources[0]
    cp, vd = src.results["critical_path"].summary, src.results["verdicts"].summary
    assert vd["run_verdict"] == "host-bound" and cp["host_share"] == pytest.approx(1.0)
    assert vd["host_path_share"] == cp["host_share"]
    # the verdict's basis reads as the headline does (one decimal), never a second rounding of the same figure
    assert "the host holds 100.0 % of the steps' critical path, GPU work 0.0 %" in vd["basis"]


def test_gpt2_h200_host_share_reads_the_same_everywhere():
    from tests.conftest import DATA

    p = DATA / "nvidia" / "h200" / "h200_gpt2_train.pt.trace.json.gz"
    if not p.exists():
        pytest.skip("GPT-2 H200 trace absent")
    src = analyze([p]).sources[0]
    cp = src.results["critical_path"]
    s, t = cp.summary, cp.table
    # the definition, from the path's own class rows: host classes less the host waits on a busy GPU
    host_classes = {"cpu_op", "runtime", "sync", "host_idle", "launch_delay"}
    host_ns = float(t[t["class"].isin(host_classes)]["time_ns"].sum()) - s["host_wait_gpu_busy_ns"]
    assert s["host_share"] == pytest.approx(host_ns / float(t.drop_duplicates(["rank", "step"])["step_ns"].sum()))
    text = f"{100 * s['host_share']:.1f} %"
    assert text == "74.1 %"
    note = src.results["verdicts"].summary["path_note"]
    assert f"host work ({text} of it: " in note  # followed by what it is read from (s35)
    assert f"host work {text} of the path" in cp.findings[0].detail
    # the finding's class share is over all 3 steps and says so: the rows hold each step's own
    # s38: with the CPU ops' time and the path (the path note's 226.13 ms), and the host share it is a part of
    from gpulens.units import fmt_ns

    cpu = int(t[t["class"] == "cpu_op"]["time_ns"].sum())
    path = int(t.drop_duplicates(["rank", "step"])["step_ns"].sum())
    # s39: the title leads with the host share the headline gives (one figure of the host's part of the path)
    host = fmt_ns(s["host_share"] * path)
    assert cp.findings[0].title.startswith(
        f"Critical path: host work holds {text} of the step time ({host} of {fmt_ns(path)}, summed over 3 steps, "
        "less its waits while the GPU was busy); CPU ops hold ")
    assert cp.findings[0].title.endswith(f" % of the step time ({fmt_ns(cpu)}), the largest part")
