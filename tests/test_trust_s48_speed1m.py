"""Session 48 speed work at 1M kernels must not change a figure. Three kinds:

- the recorded devices split into busy and idle (:func:`gpulens.devices.split_by_work`) now read by category code,
  with a one-GPU shortcut: the split must be the one the rows say, worked out by hand, for several ranks and GPUs,
  host rows (device −1), missing kinds, and a table whose ``kind`` is not categorical;
- the analysis context's row selections by kind (:meth:`AnalysisContext.of_kind`) now built column by column: each
  must equal pandas' own boolean selection of the events table on a real trace;
- more analyzers run in the forked child (:data:`gpulens.analyzers._parallel_run.CHILD`): each must land in the
  child (it reads only what is computed before the fork), and nothing the parent runs before the join may read one.
"""

from __future__ import annotations

import pandas as pd
import pytest

from gpulens.analyzers import _parallel_run as PR
from gpulens.analyzers import registry
from gpulens.analyzers.context import context_of
from gpulens.collectors import collect
from gpulens.devices import split_by_work
from gpulens.timeline import EVENT_COLUMNS, Timeline, make_table
from tests.conftest import KINETO


def _tl(rows, devices):
    """rows: (kind, rank, device_id); one 10 ns event each."""
    n = len(rows)
    cols = {"kind": [r[0] for r in rows], "rank": [r[1] for r in rows], "device_id": [r[2] for r in rows]}
    tl = Timeline(make_table(EVENT_COLUMNS, {**cols, "name": ["x"] * n, "start_ns": [10 * i for i in range(n)],
                                             "dur_ns": [10] * n, "event_id": list(range(n)), "source": ["t"] * n}))
    tl = tl.validate()
    tl.meta.devices = devices
    return tl


DEVS = [{"rank": 0, "device_id": 0, "name": "A"}, {"rank": 0, "device_id": 1, "name": "B"},
        {"rank": 1, "device_id": 0, "name": "C"}, {"rank": 1, "device_id": 2, "name": "D"}]


def _names(devs):
    return [d["name"] for d in devs]


def test_split_several_gpus_by_hand():
    # GPU work on (0, 0) [kernel], (1, 2) [memcpy], (1, 0) [comm]; (0, 1) has only a host row (cpu_op on device 1
    # cannot happen, but a host row never counts) and a kernel with device −1 (not a GPU): B is idle
    rows = [("kernel", 0, 0), ("cpu_op", 0, 1), ("runtime", 0, -1), ("memcpy", 1, 2), ("comm", 1, 0),
            ("kernel", 0, -1), ("annotation", 1, 1)]
    busy, idle = split_by_work(_tl(rows, DEVS))
    assert _names(busy) == ["A", "C", "D"] and _names(idle) == ["B"]


def test_split_one_gpu_by_hand():
    # every GPU row on (1, 2): only D ran work; the shortcut for one (rank, device) must still name it, not the first
    rows = [("kernel", 1, 2)] * 5 + [("memset", 1, 2), ("cpu_op", 0, -1)]
    busy, idle = split_by_work(_tl(rows, DEVS))
    assert _names(busy) == ["D"] and _names(idle) == ["A", "B", "C"]


def test_split_no_gpu_rows_claims_nothing():
    busy, idle = split_by_work(_tl([("cpu_op", 0, -1), ("runtime", 0, -1)], DEVS))
    assert _names(busy) == ["A", "B", "C", "D"] and idle == []


def test_split_same_for_a_plain_kind_column():
    # a table whose kind is plain text (not the schema's categorical) takes pandas' path: the same split
    rows = [("kernel", 0, 0), ("memcpy", 1, 2), ("cpu_op", 0, 1)]
    tl = _tl(rows, DEVS)
    want = split_by_work(tl)
    tl.events = tl.events.assign(kind=tl.events["kind"].astype(object))
    assert split_by_work(tl) == want
    assert _names(want[0]) == ["A", "D"] and _names(want[1]) == ["B", "C"]


def test_split_missing_kind_is_no_gpu_work():
    # a row whose kind is missing (category code −1) is not GPU work, whatever its device
    tl = _tl([("kernel", 0, 0), ("kernel", 1, 2)], DEVS)
    kind = tl.events["kind"].copy()
    kind.iloc[1] = None
    tl.events = tl.events.assign(kind=kind)
    busy, idle = split_by_work(tl)
    assert _names(busy) == ["A"] and _names(idle) == ["B", "C", "D"]


@pytest.mark.parametrize("trace", ["hta_alexnet_a100.json.gz"])
def test_of_kind_equals_pandas_selection(trace):
    tl = collect(KINETO / trace)
    ev = tl.events
    ctx = context_of(tl)
    for kinds in (("kernel", "comm"), ("kernel",), ("cpu_op",), ("runtime", "sync"), ("memcpy", "memset"),
                  ("no-such-kind",)):
        want = ev[ev["kind"].isin(kinds).to_numpy()]
        pd.testing.assert_frame_equal(ctx.of_kind(*kinds), want)
        pd.testing.assert_frame_equal(tl.of_kind(*kinds), want)


MOVED = ("kernel_distributions", "kernel_outliers", "kernel_variation", "queue_length", "queue_length_series",
         "launch_latency")


def test_moved_analyzers_run_in_the_child():
    classes = sorted(registry().values(), key=lambda c: (c.order, c.name))
    p = PR.plan(classes)
    assert p is not None
    child = [c.name for c in p.child]
    assert set(MOVED) <= set(child)
    # nothing the parent runs before the join reads a child's result (directly, per the declared reads)
    for c in p.parent + p.prefix:
        reads = PR.READS.get(c.name, ())
        assert "*" not in reads and not set(reads) & set(child), c.name
    # the run verdict reads every result: it waits for the child
    assert "verdicts" in [c.name for c in p.deferred]
