"""Moving a trace's clock to the epoch (Kineto ``baseTimeNanoseconds``, ~1.7e18 ns) changes no idle cause (session
50, tests/metamorphic_s50.py ``shift_far``: an Nsight Systems export moved to 1e18 ns read launch overhead as queued
work). float64 steps by 256 ns there: a launch call that returned 100 ns after the GPU went idle compared equal to
the gap's start, so the gap read as "work already queued" instead of launch overhead
(:func:`gpulens.analyzers._gap_classes._launch_times` now keeps int64 ns)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

import gpulens
from tests.metamorphic_s50 import dumps

GAP_NS = 20480 - 4000  # kernels 20.48 µs apart, 4 µs long
EPOCH = 1_700_000_000_000_000_000  # a multiple of 256: the bins below are the float64 steps at the epoch


def _us(ns: int) -> Decimal:
    return Decimal(ns) / 1000


def _trace(base: int) -> str:
    """Six kernels on one stream; the launch call of each returns 100 ns after its predecessor ended (inside the
    gap, which is shorter than the 20 µs launch gap: launch overhead). Each predecessor ends 10 ns past a multiple of
    256 ns, its successor's call starts on one and returns 110 ns past it: at the epoch, float64 rounds both the gap's
    start and the call's end to the same step."""
    ev = [{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}}]
    for i in range(6):
        end = 256 * (3925 + 80 * i) + 10
        prev_end = end - 20480
        call_start, call_end = prev_end - 10 - 1024, prev_end + 100
        ids = {"correlation": 10 + i, "External id": 10 + i}
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100,
                   "ts": _us(call_start), "dur": _us(call_end - call_start), "args": ids})
        ev.append({"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": _us(end - 4000),
                   "dur": _us(4000), "args": {**ids, "device": 0, "stream": 7}})
    doc = {"schemaVersion": 1, "traceEvents": ev}
    if base:
        doc["baseTimeNanoseconds"] = base
    return dumps(doc)


@pytest.mark.parametrize("base", [0, EPOCH], ids=["relative", "epoch"])
def test_launch_gaps_stay_launch_overhead_at_the_epoch(tmp_path, base):
    p = tmp_path / "t.json"
    p.write_text(_trace(base))
    s = gpulens.analyze([str(p)]).sources[0].results["bottlenecks"].summary
    assert s["gaps_launch"] == 5
    assert s["idle_launch_ns"] == 5 * GAP_NS
    assert s["idle_queued_ns"] == 0


def test_the_trace_does_sit_on_the_epoch(tmp_path):
    from gpulens.collectors import collect

    p = tmp_path / "t.json"
    p.write_text(_trace(EPOCH))
    ev = collect(p).events
    k0 = ev[ev["name"] == "k0"].iloc[0]
    assert int(k0["start_ns"]) == EPOCH + 256 * 3925 + 10 - 4000
    # the rounding the fix guards against: the gap's start and the next call's end fall in one float64 step
    gs, call_end = EPOCH + 256 * 3925 + 10, EPOCH + 256 * 3925 + 110
    assert float(gs) == float(call_end) and gs < call_end


def test_real_nsys_export_moved_to_the_epoch_keeps_its_idle_causes(tmp_path):
    """lashi_rtx4090_streamSimple (../shared): moved to 1e18 ns, one of its two launch gaps read as queued before
    the fix."""
    from tests.conftest import shared_trace
    from tests import metamorphic_s50 as m

    src = shared_trace("nsys/lashi_rtx4090_streamSimple.sqlite")
    moved = tmp_path / "moved.sqlite"
    m.sql_shift(src, moved, 10 ** 18)
    a, b = (gpulens.analyze([str(p)]).sources[0].results["bottlenecks"].summary for p in (src, moved))
    for k in ("idle_launch_ns", "idle_queued_ns", "idle_host_ns", "gaps_launch", "gaps_queued"):
        assert b[k] == a[k], k


def test_gpt2_h200_epoch_clock_and_relative_clock_give_one_idle_split(tmp_path):
    """GPT-2 on an H200 (tests/data, Kineto with baseTimeNanoseconds 1.79e18): its gaps classed on the epoch clock
    are those of the same trace moved to start at 0 (exact in float64 too); before the fix 2 launch gaps and 1 queued
    gap read as host-bound at the epoch."""
    from gpulens.analyzers.bottlenecks import classify_gaps
    from gpulens.collectors import collect
    from tests import metamorphic_s50 as m

    src = Path(__file__).resolve().parent / "data" / "nvidia" / "h200" / "h200_gpt2_train.pt.trace.json.gz"
    doc = m.load(src)
    assert doc["baseTimeNanoseconds"] > 10 ** 18
    p = tmp_path / "rel.json"
    p.write_text(dumps(m.shift(doc, 0)))
    a, b = classify_gaps(collect(src)), classify_gaps(collect(p))
    assert len(a) == len(b) > 3000
    assert a["cls"].value_counts().to_dict() == b["cls"].value_counts().to_dict()
    assert a["dur_ns"].tolist() == b["dur_ns"].tolist()
