"""Memory of the Timeline and of the per-kernel analyzers (issue 16: a 1M-kernel analysis within 2 GB).

Properties checked without timing anything:

* the launch resources (block dimensions, registers, shared memory) are stored in 4 bytes a value plus pandas' 1-byte
  missing mask — 5 bytes a row, where ``Int64`` takes 9 — while the grid stays ``Int64`` (a grid's block count,
  65536 × 65536, does not fit in int32); values are kept exactly, and one that does not fit in int32 is never wrapped
  around (``astype("Int32")`` turns 2^32 + 256 into 256);
* the hot-kernel rows carry only the columns their readers use, not the full event row;
* the speed-of-light analyzer builds per-launch figures only for launches that have a speed-of-light counter;
* the op roll-up's per-call table is built once per analysis (it was released after op_rollup and built again for
  op_shapes, then carried to the end of the run).

Expected byte counts come from numpy's item sizes (int32: 4, int64: 8, bool mask: 1), not from gpulens.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gpulens.analyzers import run_all
from gpulens.analyzers._hot import HOT_COLUMNS, hot_kernels
from gpulens.timeline import Timeline, make_table
from gpulens.timeline.schema import COUNTER_COLUMNS, EVENT_COLUMNS, NARROW_COLUMNS
from gpulens.timeline.timeline import narrow_int32
from tests.conftest import KINETO

RESOURCES = ("block_x", "block_y", "block_z", "regs_per_thread", "smem_static_bytes", "smem_dynamic_bytes")


def _kernels(n: int = 3, **cols) -> Timeline:
    """``n`` kernels of 10 µs, 1 µs apart, on stream 7; ``cols`` override columns."""
    data = {"event_id": np.arange(n), "kind": ["kernel"] * n, "name": [f"k{i % 2}" for i in range(n)],
            "start_ns": np.arange(n, dtype=np.int64) * 11_000, "dur_ns": np.full(n, 10_000, dtype=np.int64),
            "device_id": np.zeros(n, dtype=np.int64), "stream_id": [7] * n, "source": ["test"] * n}
    data.update(cols)
    return Timeline(make_table(EVENT_COLUMNS, data))


def test_launch_resources_take_five_bytes_a_row_and_keep_their_values():
    block = [256, None, 1024]
    regs = [32, 255, None]
    smem = [0, 49152, 232448]  # 227 KiB: the largest opt-in shared memory per block (CC 9.0)
    tl = _kernels(3, grid_x=[65536, 1, 2**31 - 1], grid_y=[65536, 1, 1], block_x=block, regs_per_thread=regs,
                  smem_dynamic_bytes=smem).validate()
    ev = tl.events
    assert set(NARROW_COLUMNS) == set(RESOURCES)
    for c in RESOURCES:
        assert str(ev[c].dtype) == "Int32"
        assert ev[c].array.nbytes == 3 * (np.dtype(np.int32).itemsize + np.dtype(bool).itemsize)  # 15
    assert ev["block_x"].tolist() == [256, pd.NA, 1024]
    assert ev["regs_per_thread"].tolist() == [32, 255, pd.NA]
    assert ev["smem_dynamic_bytes"].tolist() == smem
    # the grid stays 9 bytes a row: 65536 × 65536 blocks is 2^32, beyond int32
    assert str(ev["grid_x"].dtype) == "Int64"
    assert ev["grid_x"].array.nbytes == 3 * (np.dtype(np.int64).itemsize + 1)
    blocks = ev["grid_x"] * ev["grid_y"].fillna(1) * ev["grid_z"].fillna(1)
    assert int(blocks.iloc[0]) == 2**32


def test_a_resource_beyond_int32_is_unknown_not_wrapped():
    big = 2**32 + 256  # astype("Int32") would silently make this 256, a valid-looking block
    tl = _kernels(2, block_x=[big, 128])
    assert str(tl.events["block_x"].dtype) == "Int64"  # not narrowed while a value does not fit
    assert int(tl.events["block_x"].iloc[0]) == big
    tl.validate()
    assert str(tl.events["block_x"].dtype) == "Int32"
    assert tl.events["block_x"].tolist() == [pd.NA, 128]  # no GPU runs a 2^32-thread block: unknown, with a warning
    assert any("block ×1" in w for w in tl.meta.warnings)


def test_narrow_int32_is_exact_or_refuses():
    s = pd.Series([1, None, 2**31 - 1, -(2**31)], dtype="Int64")
    n = narrow_int32(s)
    assert str(n.dtype) == "Int32" and n.tolist() == [1, pd.NA, 2**31 - 1, -(2**31)]
    wide = pd.Series([2**31], dtype="Int64")
    assert narrow_int32(wide) is wide
    # the mask of the narrowed column is writable (validate sets impossible values to <NA> in place)
    n.iloc[0] = None
    assert n.isna().tolist() == [True, True, False, False]


def test_saved_timeline_loads_narrow(tmp_path):
    tl = _kernels(2, block_x=[64, 128], regs_per_thread=[40, None]).validate()
    back = Timeline.load(tl.save(tmp_path / "t.gpulens"))
    for c in RESOURCES:
        assert str(back.events[c].dtype) == "Int32"
    assert back.events["block_x"].tolist() == [64, 128]
    assert back.events["regs_per_thread"].tolist() == [40, pd.NA]


def test_hot_kernel_rows_are_narrow():
    tl = _kernels(4, block_x=[128] * 4, input_dims=['[[8, 8]]'] * 4).validate()
    hot = hot_kernels(tl, None)
    assert list(hot.columns) == list(HOT_COLUMNS) + ["time_ns"]
    assert "input_dims" not in hot and "correlation_id" not in hot
    assert len(EVENT_COLUMNS) - len(HOT_COLUMNS) >= 10  # at least ten event columns are not copied
    assert hot["event_id"].tolist() == [0, 1, 2, 3]
    assert hot["time_ns"].tolist() == [10_000] * 4  # no overrun: effective = recorded duration


def test_speed_of_light_reads_only_launches_with_its_counters(monkeypatch):
    from gpulens.analyzers import _sol_nvidia
    from gpulens.analyzers.speed_of_light import SpeedOfLightAnalyzer

    seen: list[list[int]] = []
    real = _sol_nvidia.launch_figures

    def spy(counters, ids):
        seen.append([int(i) for i in ids])
        return real(counters, ids)

    monkeypatch.setattr(_sol_nvidia, "launch_figures", spy)
    occ = "kineto.est_achieved_occupancy_pct"  # a Kineto estimate on every launch: not a speed-of-light counter
    sol = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
    rows = [(i, occ, 50.0, "%") for i in range(5)] + [(3, sol, 72.5, "%")]
    counters = make_table(COUNTER_COLUMNS, {"event_id": [r[0] for r in rows], "metric": [r[1] for r in rows],
                                            "value": [r[2] for r in rows], "unit": [r[3] for r in rows],
                                            "source": ["test"] * len(rows)})
    tl = _kernels(5)
    tl.counters = counters
    tl.validate()
    res = SpeedOfLightAnalyzer().analyze(tl, None, {})
    assert seen == [[3]]  # the one launch with an ncu SM-throughput figure, not all five
    assert res.table["calls"].tolist() == [1] and res.table["compute_pct"].tolist() == [72.5]

    seen.clear()
    only_kineto = _kernels(5)
    only_kineto.counters = counters[counters["metric"] == occ].reset_index(drop=True)
    res = SpeedOfLightAnalyzer().analyze(only_kineto.validate(), None, {})
    assert seen == [] and res.skipped and "no speed-of-light counters" in res.skipped_reason


def test_op_roll_up_calls_are_built_once_per_analysis(monkeypatch):
    from gpulens.analyzers import op_rollup
    from gpulens.collectors import collect

    built = []
    real = op_rollup._per_call
    monkeypatch.setattr(op_rollup, "_per_call", lambda tl: built.append(1) or real(tl))
    results = run_all(collect(KINETO / "hta_alexnet_a100.json.gz"), None)
    assert not results["op_rollup"].skipped  # the trace has framework ops: the table is needed
    assert len(built) == 1
