"""A GPU span that is a sliver of the profiled window. Until s40 the run verdict was then ``host-bound`` by the
window; since s40 the run verdict judges the GPU span (first to last GPU work) and the host-only time outside it —
start-up before the first GPU work, teardown after the last — is its own figure (``outside_span``), stated beside the
verdict and never its cause (docs/bottlenecks.md "Run verdict"). One rule for the Kineto HTA Triton example and the
nsys memfusion export.

Expected figures come from the inputs read with plain Python (gzip/json, sqlite3) or from the intervals written here.
"""

from __future__ import annotations

import gzip
import json
import sqlite3

import pytest

import gpulens
from gpulens.report import analyze
from gpulens.timeline import EVENT_COLUMNS, Timeline, make_table
from tests.conftest import SHARED

TRITON = SHARED / "kineto" / "hta_a100_triton_example.json.gz"
MEMFUSION = SHARED / "nsys" / "memfusion_rtx3090_report1.sqlite"


@pytest.mark.skipif(not TRITON.exists(), reason="developer corpus not present")
def test_triton_one_kernel_in_13_s_is_judged_on_its_span():
    ev = [e for e in json.load(gzip.open(TRITON))["traceEvents"] if e.get("ph") == "X"]
    kernel = [e for e in ev if e.get("cat") == "kernel"]
    step = next(e for e in ev if e["name"].startswith("ProfilerStep#"))  # the window's outermost event
    assert len(kernel) == 1 and float(kernel[0]["dur"]) == 1.76
    s = analyze(str(TRITON), workers=1).sources[0]
    vd = s.results["verdicts"]
    # the run verdict is the one kernel's (the GPU span is that kernel), not host-bound by the window
    assert vd.summary["run_verdict"] == vd.summary["kernel_verdict"] == "latency/occupancy-bound"
    out = vd.summary["outside_span"]
    before_us = float(kernel[0]["ts"]) - float(step["ts"])  # host-only time before the kernel, from the trace
    assert abs(out["before_ns"] / 1e3 - before_us) < 1.0
    assert abs(out["window_ns"] - out["before_ns"] - out["after_ns"] - 1760) < 1_000  # the span: the kernel
    assert "outside the GPU span, not judged by the verdict" in vd.summary["basis"]


@pytest.mark.skipif(not MEMFUSION.exists(), reason="developer corpus not present")
def test_memfusion_6_ms_of_kernels_in_534_ms_is_judged_on_its_span():
    c = sqlite3.connect(MEMFUSION)
    g_lo = min(c.execute(f"select min(start) from {t}").fetchone()[0] for t in ("CUPTI_ACTIVITY_KIND_KERNEL",
                                                                               "CUPTI_ACTIVITY_KIND_MEMCPY"))
    g_hi = max(c.execute(f"select max(end) from {t}").fetchone()[0] for t in ("CUPTI_ACTIVITY_KIND_KERNEL",
                                                                             "CUPTI_ACTIVITY_KIND_MEMCPY"))
    span = g_hi - g_lo  # 6.46 ms of GPU span
    assert span == 6_457_677
    s = analyze(str(MEMFUSION), workers=1).sources[0]
    vd = s.results["verdicts"].summary
    # the GPU busy 99.4 % of its span is no host bottleneck: judged there; the 527 ms after it is teardown
    assert vd["run_verdict"] == "gpu-bound" and s.summary["verdict"] == "gpu-bound"
    out = vd["outside_span"]
    assert out["window_ns"] - out["before_ns"] - out["after_ns"] == span
    assert out["after_ns"] > 500_000_000


def _timeline(kernel_ns: int, before_ns: int, after_ns: int) -> Timeline:
    """One host op over the whole window; one kernel of ``kernel_ns`` ``before_ns`` after its start, then
    ``after_ns`` of host-only time: window = before + kernel + after."""
    window = before_ns + kernel_ns + after_ns
    rows = [("cpu_op", "aten::work", 0, window, None, -1), ("kernel", "k", before_ns, kernel_ns, 7, 0)]
    n = len(rows)
    cols = {k: [r[i] for r in rows] for i, k in enumerate(["kind", "name", "start_ns", "dur_ns", "stream_id",
                                                            "device_id"])}
    return Timeline(make_table(EVENT_COLUMNS, {**cols, "rank": [0] * n, "pid": [1] * n, "tid": [1] * n,
                                               "event_id": list(range(n)), "source": ["t"] * n})).validate()


@pytest.mark.parametrize("kernel_ns", [9_900_000, 10_000_000])
def test_a_sliver_span_is_judged_on_the_span(kernel_ns):
    # one kernel busy all its span: gpu-bound whatever share of the window it holds; 50 ms of host-only time before
    # it and the rest after it are stated on their own
    tl = _timeline(kernel_ns, 50_000_000, 50_000_000 - kernel_ns)
    v = gpulens.analyze_timeline(tl).results["verdicts"].summary
    assert v["run_verdict"] == "gpu-bound"
    assert v["outside_span"] == {"before_ns": 50_000_000, "after_ns": 50_000_000 - kernel_ns,
                                 "window_ns": 100_000_000,  # the share: (100 ms − the kernel) of 100 ms
                                 "pct": pytest.approx(100 * (100_000_000 - kernel_ns) / 100_000_000)}


def test_host_only_under_half_the_window_is_weighed_inside_the_span():
    # a 4 ms kernel, 40 ms host-only before it and 6 ms after, in a 50 ms window: judged on the 4 ms span → gpu-bound
    tl = _timeline(4_000_000, 40_000_000, 6_000_000)
    assert gpulens.analyze_timeline(tl).results["verdicts"].summary["run_verdict"] == "gpu-bound"
    # host-only edges 20 ms of 50 ms: the idle inside the 30 ms GPU span (26 ms, 86.7 %, no launch call recorded)
    # dominates — the idle-dominated rule, as before
    rows = [("cpu_op", "aten::work", 0, 50_000_000, None, -1), ("kernel", "k", 10_000_000, 2_000_000, 7, 0),
            ("kernel", "k", 38_000_000, 2_000_000, 7, 0)]
    cols = {k: [r[i] for r in rows] for i, k in enumerate(["kind", "name", "start_ns", "dur_ns", "stream_id",
                                                            "device_id"])}
    tl = Timeline(make_table(EVENT_COLUMNS, {**cols, "rank": [0] * 3, "pid": [1] * 3, "tid": [1] * 3,
                                             "event_id": [0, 1, 2], "source": ["t"] * 3})).validate()
    v = gpulens.analyze_timeline(tl).results["verdicts"].summary
    assert v["run_verdict"] == "idle-unattributed" and "86.7 % of the GPU span" in v["basis"]


def test_a_cause_inside_the_sliver_is_the_verdict_of_its_span():
    # 100 ms host op; 4 kernels of 0.5 ms with 2 ms gaps between them from 10 ms on (span 8 ms, busy 2 ms); the 3 gaps
    # (6 ms, no launch call recorded) are idle with no recorded cause, 75 % of the 8 ms span → the run verdict;
    # host-only 10 ms before and 82 ms after (92 % of the window) stated on its own
    rows = [("cpu_op", "aten::work", 0, 100_000_000, None, -1)] + [
        ("kernel", "k", 10_000_000 + i * 2_500_000, 500_000, 7, 0) for i in range(4)]
    n = len(rows)
    cols = {k: [r[i] for r in rows] for i, k in enumerate(["kind", "name", "start_ns", "dur_ns", "stream_id",
                                                            "device_id"])}
    tl = Timeline(make_table(EVENT_COLUMNS, {**cols, "rank": [0] * n, "pid": [1] * n, "tid": [1] * n,
                                             "event_id": list(range(n)), "source": ["t"] * n})).validate()
    v = gpulens.analyze_timeline(tl).results["verdicts"].summary
    assert v["run_verdict"] == "idle-unattributed"
    assert "75.0 % of the GPU span" in v["basis"]
    assert v["outside_span"] == {"before_ns": 10_000_000, "after_ns": 82_000_000, "window_ns": 100_000_000,
                                 "pct": pytest.approx(92.0)}  # (10 + 82) of 100 ms
