"""Session 38, analyzer speed (issue 16): the helpers rewritten for speed give the figures the trace itself gives.

- ``largest_gaps``: the largest gap of each idle cause, its device's first GPU event and first gap found per device
  (was a groupby of every GPU event) — checked on a hand-built two-GPU trace whose gaps are worked out below.
- the idle-gap host-call look-ups read four columns of the runtime rows (was a copy of every column): the same calls,
  starts and ends as a plain boolean selection of the events table.
- ``link_gpu_to_launch``: the id tables from the rows of one kind (was a conversion of the whole column): each GPU
  event's launch call and op, as the correlation / external ids written in the trace say.
"""

from __future__ import annotations

import json

import numpy as np

import gpulens
from gpulens.analyzers._idle_findings import RUNTIME_COLUMNS, _runtime_calls_by_start, _runtime_rows
from gpulens.analyzers.launches import link_gpu_to_launch
from gpulens.collectors import collect


def _two_gpu_trace(path) -> None:
    """6 rounds on GPU 0 (518 µs each): a launch call (5 µs) at t, its kernel at t+8 (50 µs), 400 µs idle, a kernel
    whose launch call is not in the trace at t+458 (50 µs). GPU 1 runs two unlinked kernels, 0–5 µs and
    1000–1005 µs: one 995 µs gap. One sync call (cudaDeviceSynchronize) on the host between rounds 3 and 4."""
    ev, t = [], 0
    for i in range(6):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t,
                   "dur": 5, "args": {"correlation": 100 + i, "External id": 10 + i}})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": t - 1, "dur": 7,
                   "args": {"External id": 10 + i}})
        ev.append({"ph": "X", "cat": "kernel", "name": "linked_k", "pid": 0, "tid": 7, "ts": t + 8, "dur": 50,
                   "args": {"device": 0, "stream": 7, "correlation": 100 + i, "External id": 10 + i}})
        ev.append({"ph": "X", "cat": "kernel", "name": "orphan_k", "pid": 0, "tid": 7, "ts": t + 458, "dur": 50,
                   "args": {"device": 0, "stream": 7, "correlation": 900 + i}})
        t += 518
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1, "ts": 1560,
               "dur": 2, "args": {"correlation": 500}})
    for ts in (0, 1000):
        ev.append({"ph": "X", "cat": "kernel", "name": "other_gpu_k", "pid": 1, "tid": 3, "ts": ts, "dur": 5,
                   "args": {"device": 1, "stream": 3, "correlation": 950 + ts}})
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))


def test_largest_gap_per_cause_names_its_own_device(tmp_path):
    p = tmp_path / "t.pt.trace.json"
    _two_gpu_trace(p)
    big = gpulens.analyze([p]).sources[0].results["bottlenecks"].summary["largest_gap"]
    # launch overhead: the 18 µs gaps on GPU 0 before a linked kernel (orphan of round i ends at 518 i + 508 µs, the
    # next linked kernel starts at 518 (i + 1) + 8 µs); the first is round 1's, 508 µs after GPU 0's first event
    # (8 µs) — GPU 1's first event (0 µs) is another device's: offset 500 µs, not 508
    launch = big["launch"]
    assert (launch["rank"], launch["device_id"], launch["gap_ns"], launch["dur_ns"]) == (0, 0, 18_000, 18_000)
    assert launch["offset_ns"] == 500_000 and launch["first_gap"] is False and launch["next_name"] == "linked_k"
    # GPU 1's single 995 µs gap (5 → 1000 µs, no launch call recorded): its device's first gap, 5 µs after its
    # first event; GPU 0 ran during it
    un = big["unattributed"]
    assert (un["device_id"], un["gap_ns"], un["offset_ns"], un["first_gap"]) == (1, 995_000, 5_000, True)
    assert un["gpu_work_elsewhere"] is True and un["next_name"] == "other_gpu_k"


def test_runtime_look_up_rows_are_the_runtime_calls_of_the_trace(tmp_path):
    p = tmp_path / "t.pt.trace.json"
    _two_gpu_trace(p)
    tl = collect(p)
    ev = tl.events
    rt = ev[(ev["kind"] == "runtime").to_numpy()]
    rows = _runtime_rows(tl)
    assert list(rows.columns) == list(RUNTIME_COLUMNS) and rows.index.tolist() == rt.index.tolist()
    assert rows["name"].astype(str).tolist() == ["cudaLaunchKernel"] * 6 + ["cudaDeviceSynchronize"]
    names, s, e, order, ranks, bounds, sorted_s, reach = _runtime_calls_by_start(tl)
    # the blocking call (cudaDeviceSynchronize) is left out; the launches start at 518 i µs and last 5 µs
    assert names.astype(str).tolist() == ["cudaLaunchKernel"] * 6
    assert s.tolist() == [518_000 * i for i in range(6)] and (e - s).tolist() == [5_000] * 6
    assert ranks.tolist() == [0] and bounds.tolist() == [0, 6] and reach.tolist() == [518_000 * i + 5_000
                                                                                       for i in range(6)]


def test_launch_and_op_links_follow_the_trace_ids(tmp_path):
    p = tmp_path / "t.pt.trace.json"
    _two_gpu_trace(p)
    tl = collect(p)
    ev = tl.events
    links = link_gpu_to_launch(tl)
    gpu = ev.loc[links.index]
    by_name = {n: ev.loc[(ev["name"] == n).to_numpy(), "event_id"].to_numpy() for n in ("cudaLaunchKernel", "aten::mm")}
    linked = (gpu["name"] == "linked_k").to_numpy()
    # round i's kernel: round i's launch call and op (correlation 100 + i, external id 10 + i, in file order)
    assert links["launch_event_id"].to_numpy()[linked].astype(np.int64).tolist() == by_name["cudaLaunchKernel"].tolist()
    assert links["op_event_id"].to_numpy()[linked].astype(np.int64).tolist() == by_name["aten::mm"].tolist()
    # correlations 900+ and 950+ name no call: unlinked; they carry no external id: no op
    assert links["launch_event_id"][~linked].isna().all() and links["op_event_id"][~linked].isna().all()
