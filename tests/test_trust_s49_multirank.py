"""Session 49 (issue 16, targets 3 and 5): the serial work after a multi-rank analysis got cheaper and must not change
a figure or a character. Three kinds:

- the distinct (rank, GPU) pairs that ran GPU work (:func:`gpulens.devices._gpu_keys`, read by every report through
  :func:`gpulens.devices.split_by_work`) are now found with each pair as one integer (a presence table over a small
  span, a 1-D sort over a sparse one) instead of ``np.unique(axis=0)`` over row records (0.14 s on 8 ranks × 25k
  kernels, after the join, on the critical path of a 2-worker run): the pairs must be those the rows say — worked out
  by hand and by pandas' own ``drop_duplicates`` — whatever the span of the ranks (negative, sparse, near the int64
  limits);
- the JSON report's table values (:func:`gpulens.reports.json_report._column_values`) take a column of only ``str``
  and ``int`` values as it is: every column kind must give what the value-by-value definition gives
  (``maybe_box_native`` then ``_clean``), and a bool column must stay bool (``true``, never ``1``);
- Nsight Compute inputs are folded into the traces they profiled (:func:`gpulens.report.attach_ncu_inputs`) only when
  there is one: without one the inputs come back as they were, without selecting any input's kernels.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from gpulens.devices import _gpu_keys, split_by_work
from gpulens.timeline import EVENT_COLUMNS, GPU_KINDS, Timeline, make_table


def _events(rows):
    """rows: (kind, rank, device_id); one 10 ns event each, as a validated Timeline's events (categorical kind)."""
    n = len(rows)
    cols = {"kind": [r[0] for r in rows], "rank": [r[1] for r in rows], "device_id": [r[2] for r in rows]}
    tl = Timeline(make_table(EVENT_COLUMNS, {**cols, "name": ["x"] * n, "start_ns": [10 * i for i in range(n)],
                                             "dur_ns": [10] * n, "event_id": list(range(n)), "source": ["t"] * n}))
    return tl.validate()


def _by_pandas(ev):
    """The reference: the GPU rows' distinct (rank, device_id) by pandas, row by row."""
    gpu = ev[ev["kind"].astype(str).isin(GPU_KINDS) & (ev["device_id"] >= 0)]
    return {(int(r), int(g)) for r, g in gpu[["rank", "device_id"]].drop_duplicates().itertuples(index=False)}


@pytest.mark.parametrize("ranks", [
    [0, 1, 2, 3, 4, 5, 6, 7],                       # a small span: presence table
    [-3, -1, 0, 2],                                  # negative ranks
    [0, 5_000_000, 9_999_999_999],                   # a sparse span (more slots than rows): 1-D sort
    [-(2 ** 62), 0, 2 ** 62],                        # a span past 2**62 slots: the record sort, as before
])
def test_gpu_pairs_by_hand(ranks):
    # rank r works on GPU (i % 3) for its i-th position, plus a host row, a kernel with device −1 (not a GPU)
    # and a cpu_op "on" device 5 (host kinds never count) on every rank
    rows = []
    want = set()
    for i, r in enumerate(ranks):
        g = i % 3
        rows += [("kernel", r, g), ("memcpy", r, g), ("cpu_op", r, 5), ("runtime", r, -1), ("kernel", r, -1)]
        want.add((r, g))
    rows.append(("comm", ranks[0], 4))  # a collective on another GPU of the first rank
    want.add((ranks[0], 4))
    tl = _events(rows)
    assert _gpu_keys(tl.events, GPU_KINDS) == want
    assert _gpu_keys(tl.events, GPU_KINDS) == _by_pandas(tl.events)


def test_gpu_pairs_match_pandas_on_many_rows():
    rng = np.random.default_rng(49)
    n = 20_000
    kinds = rng.choice(["kernel", "memcpy", "memset", "comm", "cpu_op", "runtime"], n)
    rank = rng.integers(0, 64, n)
    dev = rng.integers(-1, 8, n)
    tl = _events(list(zip(kinds.tolist(), rank.tolist(), dev.tolist())))
    got = _gpu_keys(tl.events, GPU_KINDS)
    assert got == _by_pandas(tl.events)
    assert len(got) > 400  # 64 ranks × 8 GPUs, nearly all drawn: the test is not passing on an empty set


def test_split_by_work_over_ranks():
    devs = [{"rank": r, "device_id": g, "name": f"r{r}g{g}"} for r in (0, 1, 2) for g in (0, 1)]
    rows = [("kernel", 0, 0), ("memset", 1, 1), ("comm", 2, 0), ("cpu_op", 2, 1)]
    tl = _events(rows)
    tl.meta.devices = devs
    busy, idle = split_by_work(tl)
    assert [d["name"] for d in busy] == ["r0g0", "r1g1", "r2g0"]
    assert [d["name"] for d in idle] == ["r0g1", "r1g0", "r2g1"]


# -- JSON table values ------------------------------------------------------------------------------------------

def _by_definition(col):
    from pandas.core.dtypes.cast import maybe_box_native

    from gpulens.reports.json_report import _clean

    return [_clean(maybe_box_native(v)) for v in col.astype(object).tolist()]


@pytest.mark.parametrize("values, dtype", [
    (["a", "b", "c"], "str"),
    (["a", None, "c"], "str"),
    (["a", "b"], object),
    (["a", 1, 2.5], object),
    ([1, 2, 3], "Int64"),
    ([1, None, 3], "Int64"),
    ([True, False], object),
    ([True, None], "boolean"),
    ([np.int64(3), 4], object),
    ([float("nan"), 1.5], object),
    ([[1, 2], {"k": np.int64(1)}], object),
])
def test_json_column_values_as_defined(values, dtype):
    from gpulens.reports.json_report import _column_values

    col = pd.Series(values, dtype=dtype)
    got = _column_values(col)
    assert got == _by_definition(col)
    assert [type(v) for v in got] == [type(v) for v in _by_definition(col)]  # 1 == True: the types too
    json.dumps(got, allow_nan=False)  # JSON-safe


def test_json_bool_column_stays_bool():
    from gpulens.reports.json_report import table_records

    df = pd.DataFrame({"flag": pd.Series([True, False], dtype=object), "n": pd.Series([1, 2], dtype="Int64")})
    assert json.dumps(table_records(df)) == '[{"flag": true, "n": 1}, {"flag": false, "n": 2}]'


# -- Nsight Compute inputs ------------------------------------------------------------------------------------------

def test_no_ncu_input_selects_no_kernels(monkeypatch):
    from gpulens.report import attach_ncu_inputs

    tl = _events([("kernel", 0, 0), ("kernel", 1, 0)])
    tl.meta.sources = [{"collector": "kineto", "path": "r0.json"}]
    calls = []
    monkeypatch.setattr(Timeline, "of_kind", lambda self, *k: calls.append(k) or pd.DataFrame())
    loaded = [("run", tl)]
    assert attach_ncu_inputs(loaded) == loaded
    assert calls == []
