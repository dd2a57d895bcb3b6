"""The Kineto loader's fast path (events decoded as a union tagged by ``ph``, fields read in one pass) must read
exactly what the general path reads: every case below writes one small trace by hand and states the expected
columns from the JSON written in the test."""

import json

import numpy as np
import pandas as pd

from gpulens.collectors import collect
from gpulens.collectors.kineto import KinetoCollector
from gpulens.timeline import EVENT_COLUMNS, make_table


def _kernel(i: int, **args) -> dict:
    a = {"External id": 100 + i, "correlation": 200 + i, "device": 0, "stream": 7, "grid": [4, 2, 1],
         "block": [128, 1, 1], "registers per thread": 32, "shared memory": 0}
    a.update(args)
    return {"ph": "X", "cat": "kernel", "name": f"k{i % 3}", "pid": 0, "tid": 7, "ts": 1000.5 + 10 * i,
            "dur": 2.25, "args": a}


def _flow(i: int, ph: str) -> dict:
    return {"ph": ph, "id": i, "pid": 0, "tid": 7, "ts": 1000.5 + 10 * i, "cat": "ac2g", "name": "ac2g"}


def _write(tmp_path, events, name="t.pt.trace.json"):
    p = tmp_path / name
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}))
    return p


def test_flows_are_not_rows_and_kernels_keep_every_field(tmp_path):
    events = []
    for i in range(6):
        events += [_flow(i, "s"), _kernel(i), _flow(i, "f")]
    tl = collect(_write(tmp_path, events))
    ev = tl.events
    assert len(ev) == 6  # 12 flow events (ph s/f) are not rows
    assert list(ev["kind"].astype(str)) == ["kernel"] * 6
    assert list(ev["name"].astype(str)) == ["k0", "k1", "k2", "k0", "k1", "k2"]
    # ts 1000.5 + 10 i µs → ns exactly; dur 2.25 µs = 2250 ns
    assert list(ev["start_ns"]) == [1_000_500 + 10_000 * i for i in range(6)]
    assert set(ev["dur_ns"]) == {2250}
    assert list(ev["correlation_id"]) == [200 + i for i in range(6)]
    assert list(ev["external_id"]) == [100 + i for i in range(6)]
    assert list(ev["grid_x"]) == [4] * 6 and list(ev["grid_y"]) == [2] * 6 and list(ev["block_x"]) == [128] * 6
    assert list(ev["regs_per_thread"]) == [32] * 6 and list(ev["stream_id"]) == [7] * 6


def test_an_unknown_phase_reads_the_same_rows_as_without_it(tmp_path):
    """A ``ph`` outside the tagged union sends the piece to the general decoder: same rows, same values."""
    base = [_kernel(i) for i in range(5)]
    odd = base[:2] + [{"ph": "Z", "name": "custom", "pid": 0, "tid": 7, "ts": 1}] + base[2:] + [{"name": "no ph"}]
    a = collect(_write(tmp_path, base, "a.pt.trace.json")).events
    b = collect(_write(tmp_path, odd, "b.pt.trace.json")).events
    pd.testing.assert_frame_equal(a, b)


def test_ill_typed_args_on_a_skipped_event_is_still_counted(tmp_path):
    """``args`` must be an object or null on every event, read or skipped (a flow event with ``"args": 5`` is
    dropped and counted, as the general decoder does)."""
    events = [_kernel(0), {"ph": "f", "id": 1, "pid": 0, "tid": 7, "ts": 1, "args": 5}, _kernel(1)]
    tl = collect(_write(tmp_path, events))
    assert len(tl.events) == 2
    assert any("1 event dropped: fields of the wrong type" in w for w in tl.meta.warnings)


def test_pieces_and_fallback_give_the_same_timeline_as_one_piece(tmp_path):
    """Cut into ~2 KiB pieces (some with an unknown ``ph``, decoded by the general path) or read whole: equal."""
    events = []
    for i in range(60):
        events += [_flow(i, "s"), _kernel(i, **({"Input Dims": [[i, 2]]} if i % 4 == 0 else {})), _flow(i, "f")]
        if i % 17 == 5:
            events.append({"ph": "Q", "name": "odd phase"})
    p = _write(tmp_path, events)
    whole = KinetoCollector().collect(p, chunk_bytes=1 << 30).events
    cut = KinetoCollector().collect(p, chunk_bytes=2048).events
    pd.testing.assert_frame_equal(whole, cut)
    dims = whole["input_dims"].astype(object)
    # the raw JSON text as json.dumps wrote it (", " separators)
    assert dims.iloc[0] == "[[0, 2]]" and pd.isna(dims.iloc[1]) and dims.iloc[4] == "[[4, 2]]"


def test_make_table_copies_an_array_given_for_two_columns():
    """Arrays of the right dtype become columns without a copy, but one array object given twice must not make
    two columns share memory (changing one would change the other)."""
    a = np.arange(4, dtype=np.int64)
    t = make_table(EVENT_COLUMNS, {"event_id": a, "start_ns": a, "dur_ns": np.zeros(4, dtype=np.int64)})
    assert np.shares_memory(t["event_id"].to_numpy(), a)
    assert not np.shares_memory(t["start_ns"].to_numpy(), a)
    assert list(t["start_ns"]) == [0, 1, 2, 3]
