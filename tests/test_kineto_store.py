"""The Kineto accumulator's growable column (:mod:`gpulens.collectors._kineto_store`): values survive growth, on the
memory-map path and on the numpy fallback alike."""
import numpy as np
import pytest

from gpulens.collectors import _kineto_store
from gpulens.collectors._kineto_store import FIRST_ROWS, ColumnStore

PATHS = [False] + ([True] if _kineto_store.GROWABLE_MAP else [])


@pytest.mark.parametrize("use_map", PATHS)
def test_many_appends_across_several_growths_keep_every_value_in_order(use_map):
    rng = np.random.default_rng(5)
    store = ColumnStore(np.int64, use_map=use_map)
    pieces = [rng.integers(-2**62, 2**62, int(k)) for k in rng.integers(0, 9000, 120)]  # ~520k values
    for p in pieces:
        store.append(p)
    want = np.concatenate(pieces)
    assert len(want) > 4 * FIRST_ROWS  # three doublings at least
    got = store.finish()
    assert got.dtype == np.int64 and got.ndim == 1
    assert store.rows == len(want)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("use_map", PATHS)
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.float64, bool])
def test_values_are_converted_to_the_store_dtype(use_map, dtype):
    store = ColumnStore(dtype, use_map=use_map)
    store.append(np.array([1, 0, 3], dtype=np.int64))
    store.append(np.array([], dtype=np.int64))
    store.append([2])
    got = store.finish()
    assert got.dtype == np.dtype(dtype)
    assert got.tolist() == np.array([1, 0, 3, 2]).astype(dtype).tolist()


@pytest.mark.parametrize("use_map", PATHS)
def test_finished_view_is_writable_outlives_the_store_and_ends_appends(use_map):
    store = ColumnStore(np.float64, use_map=use_map)
    store.append(np.arange(FIRST_ROWS + 3, dtype=np.float64))
    view = store.finish()
    with pytest.raises(RuntimeError):
        store.append(np.ones(2))
    del store
    view[0] = -1.5  # the accumulator edits finished columns in place (kinds, ROCm grids)
    assert view[0] == -1.5 and view[-1] == FIRST_ROWS + 2 and len(view) == FIRST_ROWS + 3


@pytest.mark.parametrize("use_map", PATHS)
def test_empty_store_finishes_as_an_empty_array_of_its_dtype(use_map):
    got = ColumnStore(np.int32, use_map=use_map).finish()
    assert got.dtype == np.int32 and got.shape == (0,)


def test_fallback_is_used_where_maps_cannot_grow(monkeypatch):
    monkeypatch.setattr(_kineto_store, "GROWABLE_MAP", False)
    store = ColumnStore(np.int64)
    store.append(np.arange(3 * FIRST_ROWS))
    assert store._map is None and store._arr is not None  # a plain numpy array, doubled by copying
    np.testing.assert_array_equal(store.finish(), np.arange(3 * FIRST_ROWS))
