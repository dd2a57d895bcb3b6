"""A GPU span that is a sliver of the profiled window: when the GPU's busy time is under ``min_share`` (10 %) of the
window and host-only time outside the GPU span holds at least half of it, the run verdict is that host-side time
(``host-bound``, with its share), not the class of the few kernels inside the sliver — whose own verdicts are kept
(docs/bottlenecks.md "Run verdict"). One rule for the Kineto HTA Triton example and the nsys memfusion export.

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
def test_triton_one_kernel_in_13_s_is_host_bound_by_the_window():
    ev = [e for e in json.load(gzip.open(TRITON))["traceEvents"] if e.get("ph") == "X"]
    kernel = [e for e in ev if e.get("cat") == "kernel"]
    step = next(e for e in ev if e["name"].startswith("ProfilerStep#"))  # the window's outermost event
    assert len(kernel) == 1 and float(kernel[0]["dur"]) == 1.76
    edges_share = 100 * (float(step["dur"]) - 1.76) / float(step["dur"])  # 13.34 s window, one 1.76 µs kernel
    assert edges_share > 99.9
    s = analyze(str(TRITON), workers=1).sources[0]
    vd = s.results["verdicts"]
    assert vd.summary["run_verdict"] == "host-bound"
    assert vd.summary["basis"].startswith("the profiled window: host-only time outside the GPU span holds over 99.9 % "
                                          "of the 13.34 s profiled window, the GPU busy under 0.1 % of it")
    # the kernel keeps its own verdict, named as what the sliver is
    assert vd.summary["kernel_verdict"] == "latency/occupancy-bound"
    assert set(vd.table["verdict"]) == {"latency/occupancy-bound"}
    assert "the kernels' verdict (latency/occupancy-bound) describes that sliver" in vd.summary["basis"]


@pytest.mark.skipif(not MEMFUSION.exists(), reason="developer corpus not present")
def test_memfusion_6_ms_of_kernels_in_534_ms_is_host_bound_by_the_window():
    c = sqlite3.connect(MEMFUSION)
    rt_lo, rt_hi = c.execute("select min(start), max(end) from CUPTI_ACTIVITY_KIND_RUNTIME").fetchone()
    g_lo = min(c.execute(f"select min(start) from {t}").fetchone()[0] for t in ("CUPTI_ACTIVITY_KIND_KERNEL",
                                                                               "CUPTI_ACTIVITY_KIND_MEMCPY"))
    g_hi = max(c.execute(f"select max(end) from {t}").fetchone()[0] for t in ("CUPTI_ACTIVITY_KIND_KERNEL",
                                                                             "CUPTI_ACTIVITY_KIND_MEMCPY"))
    span, window = g_hi - g_lo, rt_hi - rt_lo   # 6.46 ms of GPU span in a ≥ 533.9 ms window
    assert span == 6_457_677 and 100 * span / window < 1.25
    s = analyze(str(MEMFUSION), workers=1).sources[0]
    vd = s.results["verdicts"].summary
    assert vd["run_verdict"] == "host-bound"
    assert "host-only time outside the GPU span holds 98.8 % of the 533.93 ms profiled window, the GPU busy 1.2 %" \
        in vd["basis"]
    assert s.summary["verdict"] == "host-bound"


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


@pytest.mark.parametrize("kernel_ns, expected", [
    (9_900_000, "host-bound"),       # 9.9 ms busy of a 100 ms window: under 10 % → the host-only 90.1 ms decides
    (10_000_000, "undetermined"),    # 10 ms: not negligible; no kernel class → the rule for a mostly host-only window
])
def test_the_negligible_share_is_the_verdict_min_share(kernel_ns, expected):
    tl = _timeline(kernel_ns, 50_000_000, 50_000_000 - kernel_ns)
    v = gpulens.analyze_timeline(tl).results["verdicts"].summary
    assert v["run_verdict"] == expected
    if expected == "host-bound":
        assert "holds 90.1 % of the 100.00 ms profiled window, the GPU busy 9.9 % of it" in v["basis"]


def test_host_only_under_half_the_window_is_no_sliver():
    # a 4 ms kernel, 40 ms host-only before it and 6 ms after, in a 50 ms window: busy 8 %, edges 92 % → host-bound
    tl = _timeline(4_000_000, 40_000_000, 6_000_000)
    assert gpulens.analyze_timeline(tl).results["verdicts"].summary["run_verdict"] == "host-bound"
    # busy 4 ms of a 50 ms window (8 %) but host-only edges only 20 ms (40 %, under half): the idle inside the
    # 30 ms GPU span (26 ms, 86.7 %, no launch call recorded) dominates — the idle-dominated rule, as before
    rows = [("cpu_op", "aten::work", 0, 50_000_000, None, -1), ("kernel", "k", 10_000_000, 2_000_000, 7, 0),
            ("kernel", "k", 38_000_000, 2_000_000, 7, 0)]
    cols = {k: [r[i] for r in rows] for i, k in enumerate(["kind", "name", "start_ns", "dur_ns", "stream_id",
                                                            "device_id"])}
    tl = Timeline(make_table(EVENT_COLUMNS, {**cols, "rank": [0] * 3, "pid": [1] * 3, "tid": [1] * 3,
                                             "event_id": [0, 1, 2], "source": ["t"] * 3})).validate()
    v = gpulens.analyze_timeline(tl).results["verdicts"].summary
    assert v["run_verdict"] == "idle-unattributed" and "86.7 % of the GPU span" in v["basis"]


def test_a_proven_cause_inside_the_sliver_is_the_secondary_cause_of_its_span():
    # 100 ms host op; 4 kernels of 0.5 ms with 2 ms gaps between them from 10 ms on (span 8 ms, busy 2 ms = 2 % of
    # the window), then host-only time: edges 10 + 82 = 92 ms (92 %) → host-bound by the window; the 3 gaps (6 ms, no
    # launch call recorded) are idle with no recorded cause, 75 % of the 8 ms span → the secondary cause
    rows = [("cpu_op", "aten::work", 0, 100_000_000, None, -1)] + [
        ("kernel", "k", 10_000_000 + i * 2_500_000, 500_000, 7, 0) for i in range(4)]
    n = len(rows)
    cols = {k: [r[i] for r in rows] for i, k in enumerate(["kind", "name", "start_ns", "dur_ns", "stream_id",
                                                            "device_id"])}
    tl = Timeline(make_table(EVENT_COLUMNS, {**cols, "rank": [0] * n, "pid": [1] * n, "tid": [1] * n,
                                             "event_id": list(range(n)), "source": ["t"] * n})).validate()
    v = gpulens.analyze_timeline(tl).results["verdicts"].summary
    assert v["run_verdict"] == "host-bound"
    assert "holds 92.0 % of the 100.00 ms profiled window, the GPU busy 2.0 % of it" in v["basis"]
    assert v["secondary_cause"] == "idle-unattributed" and abs(v["secondary_share_pct"] - 75.0) < 1e-9
    assert v["basis"].endswith("secondary cause, inside the GPU span: GPU idle, cause not recorded (75.0 % of the "
                               "span)")
    assert "computing holds the largest measured share" not in v["basis"]
