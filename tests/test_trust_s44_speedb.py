"""Session 44 (issue 16), building the Kineto Timeline with fewer fresh pages: what each shortcut must not change.

- the accumulator's launch-resource columns held as int32 while they fit, widened to int64 at the first value that
  does not (:meth:`ColumnStore.widen`): any piece size gives the Timeline that one piece gives;
- pages populated before a piece is copied (``MADV_POPULATE_WRITE``) and the refusal of older kernels;
- category codes made in the dtype pandas keeps them in (:func:`gpulens.collectors._assemble.code_dtype`): the same
  codes and categories as a Categorical built from the strings themselves;
- :meth:`Timeline.validate` reading the ``kind`` column on its codes: an unknown kind that a row has is refused, one
  only listed among the categories is not, a row without a kind is refused.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from gpulens.collectors import _kineto_store
from gpulens.collectors._assemble import code_dtype
from gpulens.collectors._kineto_store import FIRST_ROWS, ColumnStore
from gpulens.collectors.kineto import KinetoCollector
from gpulens.errors import SchemaError
from gpulens.timeline import EVENT_COLUMNS, Timeline, TimelineMeta, make_table
from gpulens.timeline.timeline import _kinds_outside

PATHS = [False] + ([True] if _kineto_store.GROWABLE_MAP else [])


@pytest.mark.parametrize("use_map", PATHS)
def test_widen_keeps_every_value_and_takes_wider_ones_after(use_map):
    store = ColumnStore(np.int32, use_map=use_map)
    first = np.arange(-5, FIRST_ROWS + 7, dtype=np.int64)  # more than the first capacity: one growth before
    store.append(first)
    store.widen(np.int64)
    big = np.array([2**40, -(2**35), 3], dtype=np.int64)  # no int32 value
    store.append(big)
    got = store.finish()
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.concatenate([first, big]))


@pytest.mark.parametrize("use_map", PATHS)
def test_widen_of_an_empty_store_and_after_finish(use_map):
    store = ColumnStore(np.int32, use_map=use_map)
    store.widen(np.int64)
    store.append(np.array([2**33]))
    assert store.finish().tolist() == [2**33]
    with pytest.raises(RuntimeError):
        store.widen(np.float64)


@pytest.mark.skipif(not _kineto_store.GROWABLE_MAP, reason="memory maps grown in place: Linux only")
def test_pages_are_populated_ahead_of_each_copy_and_a_refusal_changes_nothing(monkeypatch):
    monkeypatch.setitem(_kineto_store._POPULATE, "on", True)
    store = ColumnStore(np.int64, use_map=True)
    data = np.arange(3 * FIRST_ROWS + 11, dtype=np.int64)
    for part in np.array_split(data, 7):
        store.append(part)
        if _kineto_store._POPULATE["on"]:  # a kernel older than 5.14 refuses: then the copy faults pages in
            assert store._present >= store.rows * 8  # every written byte lay in populated pages
            assert store._present % _kineto_store.mmap.PAGESIZE == 0 or store._present == len(store._map)
    np.testing.assert_array_equal(store.finish(), data)
    # an option the kernel does not know: refused once, switched off, the values still right
    monkeypatch.setattr(_kineto_store, "MADV_POPULATE_WRITE", 12345)
    monkeypatch.setitem(_kineto_store._POPULATE, "on", True)
    other = ColumnStore(np.int64, use_map=True)
    other.append(data)
    assert _kineto_store._POPULATE["on"] is False
    np.testing.assert_array_equal(other.finish(), data)


@pytest.mark.parametrize("n", [0, 1, 126, 127, 128, 32766, 32767, 40000])
def test_code_dtype_is_the_dtype_pandas_keeps_codes_in(n):
    cats = [f"c{i}" for i in range(n)]
    want = pd.Categorical(cats, categories=cats).codes.dtype  # pandas' own choice, from the strings
    assert code_dtype(n) == want


def _trace(events: list[dict]) -> dict:
    return {"schemaVersion": 1, "traceEvents": [
        {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "python"}}, *events]}


def _kernel(i: int, name: str, **args) -> dict:
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": 10 + 5 * i, "dur": 2,
            "args": {"device": 0, "stream": 7, "correlation": 1000 + i, "grid": [4, 1, 1], "block": [128, 1, 1],
                     "registers per thread": 32, "shared memory": 0, **args}}


@pytest.mark.parametrize("fast", [False, True])
def test_int32_launch_columns_widened_mid_trace_read_as_one_piece_does(tmp_path, fast):
    # 300 kernels with 200 names (int16 name codes); kernel 250 records a block size no int32 holds: pieces of a
    # few events each widen the block_x column at some piece, one piece widens it at once
    evs = [_kernel(i, f"kernel_{i % 200:03d}") for i in range(300)]
    evs[250]["args"]["block"] = [2**40, 1, 1]
    evs[260]["args"]["registers per thread"] = -(2**33)
    path = tmp_path / "t.pt.trace.json"
    path.write_text(json.dumps(_trace(evs)))
    col = KinetoCollector()
    whole = col.collect(path, chunk_bytes=1 << 30, fast=fast).events
    pieces = col.collect(path, chunk_bytes=2048, fast=fast).events
    pd.testing.assert_frame_equal(whole, pieces)
    ev = whole.set_index("correlation_id")
    # no GPU has such a block or register count: that kernel's block, registers and shared memory are unknown after
    # validation (its launch resources go together), every other row exact
    for c in ("block_x", "regs_per_thread", "smem_static_bytes"):
        assert ev.loc[[1250, 1260], c].isna().all()
    rest = ev.drop(index=[1250, 1260])
    assert rest.block_x.tolist() == [128] * 298 and rest.regs_per_thread.tolist() == [32] * 298
    assert rest.smem_static_bytes.tolist() == [0] * 298 and ev.grid_x.tolist() == [4] * 300
    assert str(whole["block_x"].dtype) == "Int32" and str(whole["regs_per_thread"].dtype) == "Int32"
    names = [f"kernel_{i % 200:03d}" for i in range(300)]
    assert whole["name"].astype(str).tolist() == names
    assert whole["name"].cat.codes.dtype == pd.Categorical(names).codes.dtype == np.int16


def _events(kinds: list, categories: list | None = None) -> pd.DataFrame:
    n = len(kinds)
    ev = make_table(EVENT_COLUMNS, {"event_id": list(range(n)), "name": ["x"] * n, "start_ns": list(range(n)),
                                    "dur_ns": [1] * n, "rank": [0] * n, "device_id": [0] * n,
                                    "source": ["test"] * n})
    ev["kind"] = pd.Categorical(kinds, categories=categories)
    return ev


def test_validate_refuses_an_unknown_kind_a_row_has_and_only_that():
    meta = TimelineMeta(sources=[{"path": "t", "rank": 0}])
    # "bogus" only listed among the categories, no row has it: accepted (what the rows hold is all known)
    ok = Timeline(_events(["kernel", "cpu_op"], ["bogus", "cpu_op", "kernel"]), meta=meta).validate()
    assert ok.events["kind"].astype(str).tolist() == ["kernel", "cpu_op"]
    with pytest.raises(SchemaError, match=r"unknown event kinds \['bogus'\]"):
        Timeline(_events(["kernel", "bogus"]), meta=TimelineMeta(sources=[{"path": "t", "rank": 0}])).validate()
    with pytest.raises(SchemaError, match="events without a kind"):
        Timeline(_events(["kernel", None]), meta=TimelineMeta(sources=[{"path": "t", "rank": 0}])).validate()
    # the same answers for a column of plain strings (validate refuses its dtype first; the helper reads both)
    assert _kinds_outside(pd.Series(["kernel", "bogus", None], dtype=object)) == ({"bogus"}, True)
    assert _kinds_outside(pd.Series(pd.Categorical(["kernel", "bogus", None]))) == ({"bogus"}, True)
    assert _kinds_outside(pd.Series(pd.Categorical([], categories=["bogus"]))) == (set(), False)


@pytest.mark.parametrize("share", [0.4, 0.5, 0.75, 0.999, 1.2])
def test_durations_near_the_total_bound_keep_the_rule(share):
    # events whose durations (each below 2^53 ns, so none is absurd alone) add up to share × 2^62 ns: only past the
    # bound are the longest left out until the rest fit — the shortcut below half the bound changes no row
    from gpulens.timeline.sums import MAX_EVENT_NS, MAX_TOTAL_NS

    n = 4 * int(share * MAX_TOTAL_NS // (4 * (MAX_EVENT_NS - 1))) + 4
    each = int(share * MAX_TOTAL_NS) // n
    assert each < MAX_EVENT_NS
    durs = [each] * (n - 1) + [each + 7]  # the last one the longest
    ev = make_table(EVENT_COLUMNS, {"event_id": list(range(n)), "kind": ["kernel"] * n, "name": ["k"] * n,
                                    "start_ns": [0] * n, "dur_ns": durs, "rank": [0] * n, "device_id": [0] * n,
                                    "source": ["test"] * n})
    tl = Timeline(ev, meta=TimelineMeta(sources=[{"path": "t", "rank": 0}])).validate()
    # by hand: all fit when n·each + 7 ≤ 2^62; else the shortest ones that fit stay (2^62 // each of them, the
    # longest — each + 7 — among those left out)
    left_out = 0 if n * each + 7 <= MAX_TOTAL_NS else n - MAX_TOTAL_NS // each
    assert (left_out > 0) == (share > 1)
    assert len(tl.rejected) == left_out and len(tl.events) == n - left_out
    if left_out:
        assert tl.rejected["dur_ns"].max() == each + 7 and tl.events["dur_ns"].max() == each


@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize("chunk", [512, 1 << 30])
@pytest.mark.parametrize("window", [False, True])
def test_kineto_counters_in_event_then_metric_order_whatever_the_pieces(tmp_path, fast, chunk, window):
    # the Counters table of Kineto's per-kernel args, built piece by piece in (event, metric) order without a final
    # sort: rows and values written out by hand from the events below
    metrics = {"blocks per SM": "kineto.blocks_per_sm", "warps per SM": "kineto.warps_per_sm",
               "est. achieved occupancy %": "kineto.est_achieved_occupancy_pct"}
    given = [{"blocks per SM": 1.5, "warps per SM": 3.0, "est. achieved occupancy %": 50},
             {}, {"warps per SM": 4.0}, {"est. achieved occupancy %": 25, "blocks per SM": 2.0},
             {"blocks per SM": 0.5}, {"warps per SM": 6.0, "est. achieved occupancy %": 75}]
    evs = [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 0, "tid": 1, "ts": 1, "dur": 1000, "args": {}}]
    for i, extra in enumerate(given):
        evs.append(_kernel(i, f"k{i}", **extra))
    path = tmp_path / "c.pt.trace.json"
    path.write_text(json.dumps(_trace(evs)))
    select = None
    if window:  # a time window that keeps kernels 2..4 only (ts 20, 25, 30): event ids follow the kept rows
        from gpulens.timeline.selection import Selection

        select = Selection(window_ns=(19_000, 31_000))
    tl = KinetoCollector().collect(path, chunk_bytes=chunk, fast=fast, select=select)
    ev = tl.events
    kid = {n: int(e) for n, e in zip(ev["name"].astype(str), ev["event_id"])}
    want = []
    for i, extra in enumerate(given):
        if f"k{i}" not in kid:
            continue
        for key in metrics:  # the metric order of the table: blocks, warps, occupancy
            if key in extra:
                want.append((kid[f"k{i}"], metrics[key], float(extra[key])))
    co = tl.counters
    got = list(zip(co["event_id"].tolist(), co["metric"].astype(str), co["value"].tolist()))
    assert got == want
    if window:
        assert sorted(kid) == ["k2", "k3", "k4"]
