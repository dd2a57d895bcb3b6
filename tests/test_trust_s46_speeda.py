"""Session 46, speed of the 1M-kernel command (issue 16): the cheaper paths give what the plain numpy forms give.

Expected values come from the plain numpy / pandas expressions the fast paths replace (``np.unique`` of the
non-negative codes, a per-name regex substitution), computed in the test on the same inputs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gpulens.collectors import _kineto_columns
from gpulens.collectors._kineto_kinds import GPU_KIND_TABLE, KIND_LIST
from gpulens.collectors._kineto_columns import used_codes
from gpulens.timeline.names import code_dtype, normalize_kernel_name, normalized_names


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64])
@pytest.mark.parametrize("n", [0, 1, 7, 65_536, 65_537, 200_003])
def test_used_codes_equals_unique_of_nonnegative_codes(dtype, n, monkeypatch):
    """Counted in chunks (and, for one-byte codes, with -1 read as 255): the distinct codes >= 0, ascending."""
    monkeypatch.setattr(_kineto_columns, "_BINCOUNT_CHUNK", 1000)  # many chunks, a short last one
    rng = np.random.default_rng(n)
    size = 120 if dtype != np.uint8 else 250
    lo = 0 if dtype == np.uint8 else -1
    codes = rng.integers(lo, size, n).astype(dtype)
    if n > 10:
        codes[codes == 3] = 4  # a code never used inside the range
    expected = np.unique(codes[codes >= 0]).astype(np.int64)
    got = used_codes(codes, size)
    assert got.dtype == np.int64
    assert got.tolist() == expected.tolist()


def test_used_codes_all_missing_and_top_int8_code():
    """Only -1 codes: none used; the highest int8 code (127) is counted, -1 (255 as a byte) never is."""
    assert used_codes(np.full(70_000, -1, dtype=np.int8), 5).tolist() == []
    codes = np.array([-1, 127, 0, -1, 127], dtype=np.int8)
    assert used_codes(codes, 128).tolist() == [0, 127]


def test_normalized_names_matches_per_name_normalisation():
    """Codes -1 stay missing; names that normalise alike share one category; the codes keep pandas' small dtype."""
    cats = pd.Index(["vecCopy [clone .kd]", "vecCopy", "gemm.kd", "relu", "x (.kd)"], dtype="str")
    rng = np.random.default_rng(1)
    codes = rng.integers(-1, len(cats), 50_000)
    s = pd.Series(pd.Categorical.from_codes(codes, categories=cats))
    got = normalized_names(s)
    expected = [None if c < 0 else normalize_kernel_name(cats[c]) for c in codes]
    assert [None if isinstance(v, float) else v for v in got.tolist()] == expected
    assert list(got.cat.categories) == ["vecCopy", "gemm", "relu", "x"]
    assert got.cat.codes.dtype == np.int8
    assert got.isna().sum() == (codes < 0).sum()


@pytest.mark.parametrize("n, dtype", [(0, np.int8), (126, np.int8), (127, np.int16), (32_766, np.int16),
                                      (32_767, np.int32), (2 ** 31 - 1, np.int64)])
def test_code_dtype_is_pandas_choice(n, dtype):
    """The dtype pandas stores a Categorical's codes in, for ``n`` categories (checked against pandas itself where
    a Categorical of that size is cheap)."""
    assert code_dtype(n) == np.dtype(dtype)
    if n <= 40_000:
        cat = pd.Categorical.from_codes(np.zeros(1, dtype=np.int64) if n else np.full(1, -1),
                                        categories=pd.Index([f"k{i}" for i in range(n)], dtype="str"))
        assert cat.codes.dtype == np.dtype(dtype)


def test_gpu_kind_table_is_isin_of_the_gpu_kinds():
    """The byte table the Kineto finish reads equals ``np.isin(kind, GPU kinds)`` for every kind code and -1."""
    codes = np.array(list(range(len(KIND_LIST))) + [-1], dtype=np.int8)
    gpu = [KIND_LIST.index(k) for k in ("kernel", "comm", "memcpy", "memset")]
    assert GPU_KIND_TABLE[codes.view(np.uint8)].tolist() == np.isin(codes, gpu).tolist()
    assert GPU_KIND_TABLE[codes.view(np.uint8)].sum() == 4
