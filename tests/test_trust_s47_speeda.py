"""Session 47, speed (issue 16): the cheaper constructions keep every value and dtype.

1. ``c10d_ops_of`` builds its all-missing result columns from arrays (``pd.array([pd.NA] * n)`` converted n Python
   objects, ~0.8 s per million rows): the rows without a ``c10d::`` op still read None / <NA> with the dtypes
   object / Int64, and a found op still gets its name and message size. Expected values by hand: one
   ``c10d::allreduce_`` op of a [1024, 1024] float tensor (4 bytes an element: 4,194,304 bytes) enclosing one
   ``aten::add`` op; a third op outside it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gpulens.analyzers._c10d_sizes import c10d_ops_of


def _ops() -> pd.DataFrame:
    return pd.DataFrame({
        "event_id": np.array([10, 11, 12], dtype=np.int64),
        "parent_event_id": pd.array([None, 10, None], dtype="Int64"),
        "name": pd.Categorical(["c10d::allreduce_", "aten::add", "aten::mul"]),
        "depth": np.array([0, 1, 0], dtype=np.int64),
        "input_dims": pd.Categorical(["[[1024, 1024]]", "[]", "[]"]),
        "input_types": pd.Categorical(['["float"]', "[]", "[]"]),
    })


def test_ops_without_a_c10d_op_stay_missing_with_their_dtypes():
    out = c10d_ops_of(_ops(), np.array([12, -1, 99], dtype=np.int64))  # outside any c10d op, none, unknown id
    assert len(out) == 3
    assert out["c10d_op"].dtype == object and out["c10d_op"].tolist() == [None, None, None]
    assert str(out["c10d_bytes"].dtype) == "Int64" and out["c10d_bytes"].isna().all()


def test_found_op_gets_its_name_and_size_beside_missing_rows():
    out = c10d_ops_of(_ops(), np.array([11, 12, 10], dtype=np.int64))
    assert out["c10d_op"].tolist() == ["c10d::allreduce_", None, "c10d::allreduce_"]
    assert str(out["c10d_bytes"].dtype) == "Int64"
    assert out["c10d_bytes"].tolist()[0] == 1024 * 1024 * 4 and out["c10d_bytes"].tolist()[2] == 1024 * 1024 * 4
    assert out["c10d_bytes"].isna().tolist() == [False, True, False]


def test_empty_request_gives_empty_typed_columns():
    out = c10d_ops_of(_ops(), np.zeros(0, dtype=np.int64))
    assert len(out) == 0 and str(out["c10d_bytes"].dtype) == "Int64" and out["c10d_op"].dtype == object
