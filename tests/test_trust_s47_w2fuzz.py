"""Session 47, wave 2 (w2fuzz): regressions of the SQLite / text / folder fuzzing (tests/fuzz_s47w2.py) and of the
slow paths of broken inputs — all-missing columns built per row, a lenient CSV read typed field by field."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pandas as pd
import pytest

from gpulens._arrays import all_missing
from gpulens.collectors._csvrows import is_numeric_field, numeric_mask, read_rows

HEADER = ("Kind,Agent_Id,Queue_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,Start_Timestamp,"
          "End_Timestamp,Private_Segment_Size,Group_Segment_Size,Workgroup_Size_X,Workgroup_Size_Y,Workgroup_Size_Z,"
          "Grid_Size_X,Grid_Size_Y,Grid_Size_Z")


@pytest.mark.parametrize("dtype", ["Int64", "Float64", "boolean", "string"])
@pytest.mark.parametrize("n", [0, 1, 7])
def test_all_missing_is_the_per_row_array(dtype, n):
    """The shared builder gives what ``pd.array([pd.NA] * n, dtype)`` gives: same dtype, length, every value NA."""
    got, want = all_missing(n, dtype), pd.array([pd.NA] * n, dtype=dtype)
    assert got.dtype == want.dtype and len(got) == n
    assert pd.Series(got).equals(pd.Series(want))


def test_all_missing_costs_no_python_object_per_row():
    """1M missing values: the per-row build takes ≈ 0.75 s on the 2-core VM; the shared one must take < 0.1 s."""
    t0 = time.perf_counter()
    a = all_missing(1_000_000)
    assert time.perf_counter() - t0 < 0.1
    assert a.isna().all() and str(a.dtype) == "Int64"


def test_numeric_mask_agrees_with_the_field_rule():
    """The Arrow (RE2) reading of a column classifies every field as :func:`is_numeric_field` does, Unicode
    whitespace (``\\xa0``, ``\\u3000``, ``\\x1c``), newlines, hex, nan/inf and None included."""
    rng = random.Random(47)
    space = [chr(c) for c in range(0x3001) if chr(c).isspace()]
    alphabet = list("0123456789.eE+-xXafnNi,") + space + ["\x00", "é"]
    values = [None, "", " 12 ", "0x1F", "nan", "inf", "1e3", "\xa012\u3000", "12\n", "1,2", "+.5e-3", "0X10"]
    values += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(6))) for _ in range(20000)]
    want = [is_numeric_field(v) for v in values]
    assert numeric_mask(values).tolist() == want
    assert numeric_mask(["12", "\ud800"]).tolist() == [True, False]  # a lone surrogate: read one by one


def _names_csv(rows: int, quoted: bool) -> str:
    names = ["void k<float>(float*, int)", "gemm<int, float>(a, b)", "plain", "r<128, 4>(float*, int)"]
    out = [HEADER]
    for i in range(rows):
        n = names[i % 4]
        n = f'"{n}"' if quoted else n
        out.append(f"KERNEL_DISPATCH,1,1,69,{i + 1},16,{n},{i + 1},{1000 * i},{1000 * i + 500},0,0,64,1,1,1024,"
                   f"{'x' if i == 3 else 1024},1")
    return "\n".join(out) + "\n"


def test_lenient_unquoted_names_read_as_the_quoted_file():
    """Kernel names split by unquoted commas are re-joined in lenient mode: every row equals the quoted file's row
    (the quoted file is the independent reading), except a row whose split leaves text in a number column
    (row 4: ``Grid_Size_Y`` = ``x``), which is dropped and counted — as a quoted row with text there is not."""
    quoted = read_rows(Path("q.csv"), _names_csv(400, True), strict=False, name_columns=("kernel_name",))
    loose = read_rows(Path("u.csv"), _names_csv(400, False), strict=False, name_columns=("kernel_name",))
    assert loose[0] == quoted[0]
    # rows 0..399 minus row 3 whose name holds commas (3 % 4 == 3: split) and has text where numbers stand
    assert loose[1] == [r for i, r in enumerate(quoted[1]) if i != 3]
    assert any("1 row dropped" in w for w in loose[2])
    assert any("rows did not match the header width" in w and "realigned" in w for w in loose[2])


def test_lenient_unquoted_names_are_typed_per_column_not_per_field(monkeypatch):
    """20k rows, three in four with a split name: the lenient read types the fields a column at a time — the
    per-field rule (:func:`is_numeric_field`, ≈ 4 µs a call: 1.4M calls made a 100k-row file's lenient read 4x its
    quoted read) is called for no more than a handful of fields, and the rows read are the same."""
    from gpulens.collectors import _csvrows

    text = _names_csv(20_000, False)
    want = read_rows(Path("u.csv"), text, strict=False, name_columns=("kernel_name",))
    calls = []
    real = _csvrows.is_numeric_field
    monkeypatch.setattr(_csvrows, "is_numeric_field", lambda s: calls.append(1) or real(s))
    got = read_rows(Path("u.csv"), text, strict=False, name_columns=("kernel_name",))
    assert got == want and len(got[1]) == 20_000 - 1
    assert len(calls) < 100
