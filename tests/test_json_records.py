"""JSON report tables built column by column (:func:`gpulens.reports.json_report.table_records`, issue 16) give
the rows the row-by-row route gave: every dtype an analysis table holds, NaN/inf/NA as null, native Python types.

Expected rows are written out by hand; the row-by-row route (``DataFrame.astype(object).to_dict("records")`` then
cleaning each value) is checked against them too, as the reference the speed work must not change.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from gpulens.reports.json_report import _clean, capped_records, table_records


def _row_by_row(df: pd.DataFrame) -> list[dict]:
    return [_clean(r) for r in df.astype(object).to_dict(orient="records")]


def _table() -> pd.DataFrame:
    return pd.DataFrame({
        "name": pd.Categorical(["gemm", None, "add"]),
        "total_ns": np.array([10, 20, 30], dtype=np.int64),
        "share": np.array([0.5, np.nan, np.inf]),
        "flag": np.array([True, False, True]),
        "grid": pd.array([4, None, 8], dtype="Int64"),
        "occupancy": pd.array([0.25, None, 1.0], dtype="Float64"),
        "ratio32": np.array([0.5, 1.5, -np.inf], dtype=np.float32),
        "regs": np.array([32, 64, 128], dtype=np.int32),
        "shape": [[1, 2], (3, np.int64(4)), {"k": np.float64(np.nan)}],
        "text": ["a", np.nan, pd.NA],
        7: [np.int64(1), np.float64(2.5), np.bool_(True)],
    })


def test_every_dtype_as_written_by_hand():
    rows = table_records(_table())
    assert rows == [
        {"name": "gemm", "total_ns": 10, "share": 0.5, "flag": True, "grid": 4, "occupancy": 0.25, "ratio32": 0.5,
         "regs": 32, "shape": [1, 2], "text": "a", "7": 1},
        {"name": None, "total_ns": 20, "share": None, "flag": False, "grid": None, "occupancy": None,
         "ratio32": 1.5, "regs": 64, "shape": [3, 4], "text": None, "7": 2.5},
        {"name": "add", "total_ns": 30, "share": None, "flag": True, "grid": 8, "occupancy": 1.0, "ratio32": None,
         "regs": 128, "shape": {"k": None}, "text": None, "7": True},
    ]
    # native Python types only (json.dumps would fail on numpy scalars), and strict JSON (no NaN)
    for row in rows:
        for v in row.values():
            assert v is None or type(v) in (str, int, float, bool, list, dict)
    json.dumps(rows, allow_nan=False)
    assert type(rows[0]["7"]) is int and type(rows[2]["7"]) is bool and type(rows[0]["total_ns"]) is int


def test_equals_the_row_by_row_route():
    df = _table()
    assert table_records(df) == _row_by_row(df)
    assert json.dumps(table_records(df)) == json.dumps(_row_by_row(df))  # key order and value types as well
    sub = df.iloc[[2, 0]]  # an index that is not 0..n-1
    assert table_records(sub) == _row_by_row(sub)


def test_repeated_column_names_keep_the_first_place_and_the_last_value():
    df = pd.DataFrame([[1, 2.5, 3]], columns=["a", "b", "a"])
    assert table_records(df) == _row_by_row(df) == [{"a": 3, "b": 2.5}]
    assert list(table_records(df)[0]) == ["a", "b"]


def test_capped_table_sums_the_rest():
    df = pd.DataFrame({"name": ["k0", "k1", "k2", "k3"], "total_ns": np.array([40, 30, 20, 10], dtype=np.int64),
                       "mean_ns": [4.0, 3.0, 2.0, math.nan]})
    rows = capped_records(df, {"total_ns": "time [ns]", "mean_ns": "mean time [ns]"}, limit=2)
    # 2 rows kept; the "other" row sums total_ns of k2 + k3 = 30 and leaves the mean unsummed
    assert rows == [{"name": "k0", "total_ns": 40, "mean_ns": 4.0}, {"name": "k1", "total_ns": 30, "mean_ns": 3.0},
                    {"name": None, "total_ns": 30, "mean_ns": None, "other_rows": 2}]


def test_empty_and_missing_tables():
    assert table_records(None) == [] and table_records(pd.DataFrame({"a": []})) == []
