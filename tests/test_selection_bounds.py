"""A --window / --steps selection bounds every figure: kept events are cut at the selection's end, and no
"start/stop the profiler" finding comes from the selection's own edges (the user's cut, not the profiler's)."""

import numpy as np
import pytest

from gpulens.analyzers._window_findings import window_finding
from gpulens.collectors import collect
from gpulens.timeline.selection import Selection
from tests.conftest import KINETO

BERT = KINETO / "tracelens_h100_bert-small.json.gz"
MS = 1_000_000


def test_clip_dur_by_hand():
    # rank's first event at 100 ns; window 0:50 ns → end at 150 ns
    start = np.array([100, 120, 140, 200])
    dur = np.array([10, 100, 5, 10])
    kind = np.array(["cpu_op", "annotation", "kernel", "cpu_op"], dtype=object)
    name = np.array(["a", "ProfilerStep#1", "k", "b"], dtype=object)
    got = Selection.parse(window="0:50").clip_dur(start, dur, kind, name)
    assert got.tolist() == [10, 30, 5, 0]  # 120+100 → cut to 150-120 = 30
    assert dur.tolist() == [10, 100, 5, 10]  # input untouched
    # steps: step 1 spans [120, 220); a host op starting in it ends at 220 at the latest; GPU work keeps its length
    start = np.array([120, 130, 150, 300])
    dur = np.array([100, 200, 500, 10])
    kind = np.array(["annotation", "cpu_op", "kernel", "cpu_op"], dtype=object)
    name = np.array(["ProfilerStep#1", "op", "k", "late"], dtype=object)
    got = Selection.parse(steps="1").clip_dur(start, dur, kind, name)
    assert got.tolist() == [100, 90, 500, 10]


def _extent(tl):
    ev = tl.events
    return int(ev["start_ns"].min()), int((ev["start_ns"] + ev["dur_ns"]).max())


@pytest.mark.parametrize("lo,hi", [(0, 1), (1, 2), (0.5, 3)])
def test_window_bounds_every_event(lo, hi):
    full = collect(BERT)
    ev = full.events
    # the origin: the first recorded event, not the profiler's session record ("PyTorch Profiler (0)", kind other),
    # which opens ~95 µs before it in this trace
    first = int(ev.loc[ev["kind"].astype(str) != "other", "start_ns"].min())
    assert first > int(ev["start_ns"].min())
    sel = Selection.parse(window=f"{lo}ms:{hi}ms")
    for tl in (collect(BERT, select=sel), sel.apply(full)):  # the collector's path and the built-Timeline path
        s, e = _extent(tl)
        assert s >= first + lo * MS and e <= first + hi * MS
        assert e - s <= (hi - lo) * MS
    # both paths agree
    a, b = collect(BERT, select=sel), sel.apply(full)
    assert a.events["dur_ns"].tolist() == b.events["dur_ns"].tolist()


def test_steps_bound_host_events():
    full = collect(BERT)
    ev = full.events
    step = ev[(ev["kind"].astype(str) == "annotation") & (ev["name"].astype(str) == "ProfilerStep#6")].iloc[0]
    end = int(step["start_ns"] + step["dur_ns"])
    tl = collect(BERT, select=Selection.parse(steps="6"))
    t = tl.events
    host = ~t["kind"].astype(str).isin(["kernel", "comm", "memcpy", "memset"])
    assert int((t["start_ns"] + t["dur_ns"])[host].max()) <= end


@pytest.mark.parametrize("kw", [{"window": "0.2ms:1ms"}, {"window": "1ms:2ms"}, {"steps": "6"}])
def test_no_profiler_range_finding_from_the_selection_edges(kw):
    sel = Selection.parse(**kw)
    for tl in (collect(BERT, select=sel), sel.apply(collect(BERT))):
        figures, finding = window_finding(tl)
        # both edges are the selection's: no host-only time "outside the GPU span" is the profiler's range
        assert finding is None
        assert figures["host_only_before_ns"] == 0 and figures["host_only_after_ns"] == 0


def test_window_from_the_trace_start_keeps_the_profilers_start_edge():
    # 0:1ms: the start edge is the profiler's own (the trace's first event): host-only time before the first GPU
    # work there is the profiler's, computed here from the full trace; the end edge is the selection's
    full = collect(BERT)
    ev = full.events
    kinds = ev["kind"].astype(str)
    first = int(ev.loc[kinds != "other", "start_ns"].min())
    gpu_first = int(ev.loc[kinds.isin(["kernel", "memcpy", "memset", "comm"]), "start_ns"].min())
    tl = collect(BERT, select=Selection.parse(window="0:1ms"))
    figures, finding = window_finding(tl)
    assert figures["host_only_after_ns"] == 0
    assert figures["host_only_before_ns"] == gpu_first - first
    assert figures["window_ns"] <= MS
    if finding is not None:
        assert "Stop the profiler" not in (finding.action or "")


@pytest.mark.parametrize("args,needle", [(["--window", "5s:1s"], "--window: the end must come after the start"),
                                         (["--window", "2ms:2ms"], "--window: the end must come after the start"),
                                         (["--steps", "5:3"], "--steps: the last step comes before the first")])
def test_a_reversed_or_empty_selection_is_a_usage_error(args, needle):
    """``--window 5s:1s`` exited 5 "no GPU work … the selection may match nothing" (fresh-user walk): a window whose
    end is not after its start, or steps counted backwards, select nothing by construction — a usage error (exit 2)
    naming the option, before any file is read. Open and forward ranges still parse."""
    import subprocess
    import sys

    from gpulens.timeline.selection import Selection

    r = subprocess.run([sys.executable, "-c", "from gpulens.cli import main; main()", "analyze", "--demo", *args],
                       capture_output=True, text=True)
    assert r.returncode == 2 and needle in r.stderr and "Traceback" not in r.stderr
    assert Selection.parse(window="1s:5s").window_ns == (1_000_000_000, 5_000_000_000)
    assert Selection.parse(window=":5s").window_ns == (None, 5_000_000_000)
    assert Selection.parse(steps="3:5").steps == (3, 5) and Selection.parse(steps="3").steps == (3, 3)
