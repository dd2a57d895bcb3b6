"""Speed work of session 38 on the load side (issue 16): each faster path gives what the slower one gave.

Expected values are written by hand from the inputs built here, never taken from gpulens's output.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gpulens.collectors.kineto import _any_kind


def test_any_kind_reads_the_rows_not_the_category_list():
    # "kernel" is a category of the column but no row holds it: no kernel ran (a test of the categories alone
    # would say one did); a missing value (code -1) is no kind at all
    col = pd.Categorical(["cpu_op", None, "cpu_op"], categories=["cpu_op", "kernel", "runtime"])
    assert _any_kind(col, ("kernel", "memcpy")) is False
    assert _any_kind(col, ("cpu_op",)) is True
    assert _any_kind(pd.Categorical([None, None], categories=["kernel"]), ("kernel",)) is False
    # the last row only, among a million host rows
    codes = np.zeros(1_000_001, dtype=np.int8)
    codes[-1] = 2
    big = pd.Categorical.from_codes(codes, categories=["cpu_op", "kernel", "sync"])
    assert _any_kind(big, ("sync",)) is True
    assert _any_kind(big, ("kernel", "comm")) is False


def test_any_kind_of_plain_texts():
    # a column of plain texts (no categories): the same answers, compared as text as before
    assert _any_kind(np.array(["cpu_op", "memset"], dtype=object), ("memset",)) is True
    assert _any_kind(["cpu_op", None], ("kernel",)) is False
