"""One analysis context per Timeline: the intermediates every analyzer needs, computed once.

Several analyzers need the same derived tables — the GPU events, kernel rows, the launch↔GPU-event links, the
stream-overrun repair, the hot set. Recomputing them per analyzer cost most of ``gpulens analyze``'s time on large
traces (``link_gpu_to_launch`` four times, ``of_kind`` 31 times). An :class:`AnalysisContext` computes each one
lazily, once, and every analyzer reads it through :func:`context_of`.

Rules for analyzers:

* get the context with ``ctx = context_of(timeline)``; never mutate what it returns (copy first);
* prefer ``ctx.kind_codes`` / ``ctx.name_codes`` (category codes, numpy arrays) to per-row strings on hot paths;
* a new shared intermediate goes here as a ``cached_property`` with a docstring stating columns and units.

The context is cached on the Timeline object and dropped automatically when ``timeline.events`` is replaced by a
different DataFrame (the join functions build new Timelines, so a stale context is never served).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._heap import return_free_memory  # noqa: F401  (its home before; kept importable)
from gpulens.analyzers._int_arrays import (first_rows, int_sums, isin_ints, lookup_sorted,  # noqa: F401  (their
                                           reindex_sorted, sorted_codes, sorted_positions, unique_ints)  # home before)
from gpulens.timeline import Timeline
from gpulens.timeline.schema import GPU_KINDS

_ATTR = "_gpulens_analysis_context"


def codes_of(series: pd.Series) -> np.ndarray:
    """Category codes of a categorical column (−1 where missing): ``series.cat.codes.to_numpy()``'s values and
    dtype (int8/int16/int32, read-only), as a view of the column's own codes. ``.cat.codes`` builds a Series over a
    copy of every row's code (0.5 ms per 3M-row column, and the analyzers read ~100 such columns per run)."""
    return series.array.codes


def strings(series: pd.Series) -> np.ndarray:
    """Per-row values of a categorical (or any) column as an object numpy array of ``str`` (missing → NaN).

    Same values as ``series.astype(str).to_numpy()`` but, for a categorical, a numpy ``take`` of the category
    strings by code: no per-row conversion (``astype(str)`` on a 3M-row categorical builds an Arrow string array row
    by row, the largest single cost of the analyzers before this helper).
    """
    if isinstance(series.dtype, pd.CategoricalDtype):
        cats = np.asarray(series.cat.categories.astype(object), dtype=object)
        codes = codes_of(series)
        out = np.append(cats, np.nan)[codes]  # code -1 (missing) takes the appended NaN
        return out
    return series.astype(str).to_numpy(dtype=object)


def text_series(series: pd.Series, index: Any = None) -> pd.Series:
    """:func:`strings` as an object-dtype Series (``index``: default a RangeIndex).

    Use it to build DataFrames: a plain object array handed to pandas ≥ 3 is re-inferred as the Arrow ``str`` dtype,
    which costs about as much as ``astype(str)`` (≈ 0.5 s per million rows); an explicit object Series is not.
    """
    return pd.Series(strings(series), index=index, dtype=object, copy=False)


def first_seen_codes(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(strings(series), sort=False)`` without per-row strings: (int64 code per row, −1 where the
    value is missing; object array of the distinct values as ``str`` in order of first appearance).

    For a categorical column the category codes are factorized (integers hash far faster than strings) and the
    category strings taken for the codes seen (:func:`recode_first_seen`); other dtypes go through :func:`strings`.
    """
    if not isinstance(series.dtype, pd.CategoricalDtype):
        codes, uniq = pd.factorize(strings(series), sort=False)
        return codes.astype(np.int64, copy=False), np.asarray(uniq, dtype=object)
    return recode_first_seen(codes_of(series), np.asarray(series.cat.categories.astype(object),
                                                                      dtype=object))


def recode_first_seen(codes: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes into ``values`` (−1 = missing) renumbered as ``pd.factorize(values[codes], sort=False)`` numbers
    the values they stand for: (int64 codes in order of first appearance, −1 kept for missing; the values seen).
    ``values`` must be distinct (category values are)."""
    new, uniq = pd.factorize(np.asarray(codes), sort=False)
    new = new.astype(np.int64, copy=False)
    miss = np.flatnonzero(uniq < 0)
    if len(miss):  # the missing value (code −1) is no distinct value of its own: −1, later codes one lower
        j = int(miss[0])
        new = np.where(new == j, -1, new - (new > j))
        uniq = np.delete(uniq, j)
    return new, np.asarray(values, dtype=object)[uniq]


def code_mask(table: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``table[codes]``: a fresh boolean mask of the rows whose category code is marked in ``table`` (one slot per
    category, plus a last, unmarked one that code −1 — missing — reads). A few marked codes are compared row by row
    (a comparison per row costs ~1/40 of a table lookup on millions of int8 codes); more, one ``take``."""
    hits = np.flatnonzero(table[:-1])
    if len(hits) > 4:
        return table.take(codes)
    out = np.zeros(len(codes), dtype=bool)
    for h in hits.tolist():
        out |= codes == h
    return out


#: The categories :func:`category_texts` last listed, and their texts.
_TEXTS: tuple[Any, list[str]] = (None, [])


def category_texts(categories: pd.Index) -> list[str]:
    """``[str(c) for c in categories]``, listed once for the same categories object (an events column's categories
    are shared by every selection of its rows: the name column's were listed again by each of the ~35 category masks
    of a run, ~0.2 ms each on an Arrow-backed index). Do not mutate."""
    global _TEXTS
    last = _TEXTS
    if last[0] is not categories:
        last = _TEXTS = (categories, [str(c) for c in categories])
    return last[1]


def category_mask(series: pd.Series, match: Any) -> np.ndarray:
    """Boolean numpy mask of the rows whose value matches, tested once per distinct value.

    Args:
        series: a column (categorical for speed; other dtypes are tested per distinct value all the same).
        match: a collection of accepted strings, a compiled regex (``search`` semantics, as ``str.contains``)
            or a predicate ``str -> bool``.
    """
    if isinstance(series.dtype, pd.CategoricalDtype):
        cats = category_texts(series.cat.categories)
        codes = codes_of(series)
    else:
        codes, uniq = pd.factorize(series, use_na_sentinel=True)
        cats = [str(c) for c in uniq]
    if hasattr(match, "search"):
        ok = [bool(match.search(c)) for c in cats]
    elif callable(match):
        ok = [bool(match(c)) for c in cats]
    else:
        acc = {str(m) for m in match}
        ok = [c in acc for c in cats]
    return code_mask(np.array(ok + [False], dtype=bool), codes)  # code -1 (missing) never matches


def step_numbers_in(names: pd.Series, rows: np.ndarray | None = None) -> list[int]:
    """The numbers N of the ``ProfilerStep#N`` names (:data:`gpulens.timeline.selection.STEP_NAME`, ``search``
    semantics as ``str.extract``) among ``names`` (an events ``name`` column; only the rows of the boolean mask
    ``rows`` when given), ascending, each once. A categorical column is read through the category codes in use (one
    bincount, the regex once per distinct name): no str per row (3M rows at 1M kernels: ~2 s as ``astype(str)`` +
    ``str.extract``)."""
    from gpulens.timeline.selection import STEP_NAME

    if isinstance(names.dtype, pd.CategoricalDtype):
        codes = codes_of(names)
        codes = codes if rows is None else codes[rows]
        used = np.flatnonzero(np.bincount(codes[codes >= 0].astype(np.int64), minlength=len(names.cat.categories)))
        present = names.cat.categories[used]
    else:
        present = (names if rows is None else names[rows]).dropna().unique()
    return sorted({int(m.group(1)) for n in present if (m := STEP_NAME.search(str(n)))})


def named_counter_rows(timeline: Timeline, wanted: set[str]) -> pd.DataFrame:
    """The Counters rows of ``timeline`` whose metric is in ``wanted`` and that belong to an event, joined with that
    event's ``name`` and ``dur_ns``; ``metric`` and ``name`` as plain strings. Columns: those of the Counters table
    plus ``name`` and ``dur_ns`` [ns]; empty when none match."""
    co = timeline.counters
    if not len(co):
        return co.iloc[0:0]
    rows = co[category_mask(co["metric"], wanted) & (co["event_id"] >= 0).to_numpy()]
    if not len(rows):
        return rows
    ev = timeline.events.set_index("event_id")[["name", "dur_ns"]]
    rows = rows.join(ev, on="event_id", how="inner")
    return rows.assign(metric=rows["metric"].astype(str), name=rows["name"].astype(str))


class AnalysisContext:
    """Lazily computed, shared intermediates of one Timeline.

    Attributes:
        timeline: the Timeline analysed.
    """

    def __init__(self, timeline: Timeline):
        self.timeline = timeline
        self._kinds: dict[tuple[str, ...], pd.DataFrame] = {}

    # -- row selections ---------------------------------------------------------------------------------------
    @cached_property
    def kind_codes(self) -> np.ndarray:
        """``events["kind"]`` as int category codes (int8/int16 numpy array, one per event row)."""
        return codes_of(self.timeline.events["kind"])

    @cached_property
    def kind_categories(self) -> list[str]:
        """``events["kind"]``'s categories as a list (made once: a list of an Arrow-backed index costs ~0.2 ms, and
        the row selections read it some ninety times a run)."""
        return list(self.timeline.events["kind"].cat.categories)

    @cached_property
    def name_codes(self) -> np.ndarray:
        """``events["name"]`` as int category codes (numpy array, one per event row); −1 where the name is missing."""
        return codes_of(self.timeline.events["name"])

    def mask_of(self, *kinds: str) -> np.ndarray:
        """Boolean numpy mask of the event rows whose kind is one of ``kinds``."""
        cats = self.kind_categories
        table = np.zeros(len(cats) + 1, dtype=bool)  # last slot: code −1 (missing kind), never selected
        table[[cats.index(k) for k in kinds if k in cats]] = True
        return code_mask(table, self.kind_codes)  # no np.isin: it cost ~4× a table lookup on millions of rows

    def take_rows(self, mask: np.ndarray, columns: Any, keep_index: bool = True) -> pd.DataFrame:
        """``timeline.events.loc[mask, columns]`` (``keep_index=False``: with a fresh RangeIndex, as
        ``.reset_index(drop=True)``): the same frame, built column by column from numpy takes — the category codes of
        a categorical, data and mask of a nullable integer column — instead of pandas' block-wise take (about half
        the time and fresh pages for the two million host rows of a 1M-kernel trace).

        Args:
            mask: boolean numpy mask over the event rows, or their positions (ascending: ``iloc``); columns: names
                of events columns.
        """
        ev = self.timeline.events
        mask = np.asarray(mask)
        rows = np.flatnonzero(mask) if mask.dtype == bool else mask
        out = {}
        for c in columns:
            col = ev[c]
            arr = col.array
            if isinstance(col.dtype, pd.CategoricalDtype):
                out[c] = pd.Categorical.from_codes(codes_of(col)[rows], dtype=col.dtype)
            elif isinstance(arr, (pd.arrays.IntegerArray, pd.arrays.FloatingArray, pd.arrays.BooleanArray)):
                out[c] = arr.take(rows)
            elif isinstance(col.dtype, np.dtype) and col.dtype.kind in "iufb":
                out[c] = col.to_numpy()[rows]
            else:
                out[c] = arr.take(rows)
        index = ev.index[rows] if keep_index else pd.RangeIndex(len(rows))
        return pd.DataFrame(out, index=index, copy=False)

    @cached_property
    def _kind_counts(self) -> np.ndarray:
        n = len(self.kind_categories)
        return np.bincount(self.kind_codes[self.kind_codes >= 0].astype("int64"), minlength=n)

    def of_kind(self, *kinds: str) -> pd.DataFrame:
        """Rows of those kinds (original index kept), computed once per distinct ``kinds`` tuple. Do not mutate."""
        # key: the kinds that have rows, so that e.g. the GPU kinds of a trace without copies share one frame
        # with ("kernel", "comm") instead of holding a second copy of the same rows
        counts = self._kind_counts
        cats = self.kind_categories
        key = tuple(sorted({k for k in kinds if k in cats and counts[cats.index(k)] > 0}))
        if key not in self._kinds:
            # column by column (:meth:`take_rows`), not ``events[mask]``'s block-wise take: the 1M-kernel trace's
            # million kernel and collective rows of 30 columns in 0.16 s instead of 0.23 s, the same frame
            self._kinds[key] = self.take_rows(self.mask_of(*kinds), self.timeline.events.columns)
        return self._kinds[key]

    @property
    def gpu(self) -> pd.DataFrame:
        """GPU events (kernel, comm, memcpy, memset rows; the Timeline's index kept). Do not mutate."""
        return self.of_kind(*GPU_KINDS)

    @property
    def kernels(self) -> pd.DataFrame:
        """Kernel rows (kind ``kernel``). Do not mutate."""
        return self.of_kind("kernel")

    @cached_property
    def gpu_side_ranges(self) -> np.ndarray:
        """Boolean numpy mask of the annotation rows recorded on a GPU track (a stream or a device: Kineto's
        ``gpu_user_annotation``), the ranges :mod:`gpulens.analyzers.annotations` calls GPU-side. Their extent is
        the profiler's hull of the GPU events they hold, as recorded — a recorded kernel duration far past the work
        (shared case B07) stretches them too — so they are no measurement of their own."""
        ev = self.timeline.events
        ann = self.mask_of("annotation")
        if not ann.any():
            return ann
        return ann & (ev["stream_id"].notna().to_numpy() | (ev["device_id"] >= 0).to_numpy(dtype=bool, na_value=False))

    @cached_property
    def host_rows(self) -> np.ndarray:
        """Boolean numpy mask of the rows that time the host side of the run — every kind but ``other`` and the GPU
        kinds, less the GPU-side ranges (:attr:`gpu_side_ranges`): with the GPU events (effective durations) they
        make a rank's profiled window, and they bound a runaway GPU event
        (:func:`gpulens.analyzers.intervals.repair_stream_overruns`)."""
        return ~self.mask_of("other", *GPU_KINDS) & ~self.gpu_side_ranges

    # -- shared derived tables --------------------------------------------------------------------------------
    @cached_property
    def overruns(self) -> pd.DataFrame:
        """Stream-overrun repair of the GPU events: ``effective_ns`` and ``overrun_ns`` [ns], indexed like ``gpu``.

        See :func:`gpulens.analyzers.intervals.repair_overruns_of`.
        """
        from gpulens.analyzers.intervals import repair_overruns_of

        # the rank's other events bound a runaway last GPU event; a replay's synthetic starts bound none
        return repair_overruns_of(self.timeline, self.gpu, self.host_rows)

    @cached_property
    def effective_ns(self) -> pd.Series:
        """Effective (overrun-clipped) duration of each GPU event [ns], indexed like ``gpu``."""
        return self.overruns["effective_ns"]

    @cached_property
    def links(self) -> pd.DataFrame:
        """``launch_event_id`` and ``op_event_id`` (nullable Int64) per GPU event, indexed like ``gpu``.

        See :func:`gpulens.analyzers.launches.link_gpu_to_launch`.
        """
        from gpulens.analyzers.launches import _link_gpu_to_launch

        return _link_gpu_to_launch(self.timeline, self.gpu)

    @cached_property
    def _event_ids(self) -> tuple[np.ndarray, np.ndarray | None]:
        ids = self.timeline.events["event_id"].to_numpy(dtype="int64")
        if len(ids) < 2 or bool((ids[1:] > ids[:-1]).all()):
            return ids, None
        order = np.argsort(ids, kind="stable")
        return ids[order], order

    def positions(self, event_ids: Any) -> np.ndarray:
        """Row positions (``iloc``) in ``timeline.events`` of ``event_ids`` (int64 array; −1 where an id is absent).

        A binary search on the sorted ids (collectors number events in row order, so usually no sort is needed):
        replaces ``events.set_index("event_id").reindex(ids)`` on the whole events table.
        """
        ids = np.asarray(event_ids, dtype="int64")
        sorted_ids, order = self._event_ids
        if not len(sorted_ids):
            return np.full(ids.shape, -1, dtype="int64")
        if order is None and int(sorted_ids[-1]) - int(sorted_ids[0]) == len(sorted_ids) - 1:
            # ids first..first+n-1 in row order (strictly increasing, so every one present): the position is the
            # offset, no binary search
            pos = ids - sorted_ids[0]
            return np.where((pos >= 0) & (pos < len(sorted_ids)), pos, -1).astype("int64", copy=False)
        pos = np.searchsorted(sorted_ids, ids)
        pos = np.minimum(pos, len(sorted_ids) - 1)
        found = sorted_ids[pos] == ids
        if order is not None:
            pos = order[pos]
        return np.where(found, pos, -1).astype("int64")

    def event_values(self, column: str, event_ids: Any) -> np.ndarray:
        """Values of events column ``column`` for ``event_ids``, as ``events.set_index("event_id")[column]
        .reindex(event_ids).to_numpy()`` gives them: the column's numpy dtype when every id is found and no value is
        missing, else float64 with NaN (numeric) or object with NaN (categorical/text)."""
        pos = self.positions(event_ids)
        col = self.timeline.events[column]
        if isinstance(col.dtype, pd.CategoricalDtype):  # strings of the rows asked for only (missing → NaN)
            cats = np.append(np.asarray(col.cat.categories.astype(object), dtype=object), np.nan)
            if not len(col):
                return np.full(pos.shape, np.nan)
            out = cats[codes_of(col)[np.maximum(pos, 0)]]
            if (pos < 0).any():
                out[pos < 0] = np.nan
            return out
        if col.hasnans or (pos < 0).any():
            vals = col.to_numpy(dtype="float64", na_value=np.nan)
        else:
            vals = col.to_numpy()
        if not len(vals):
            return np.full(pos.shape, np.nan)
        out = vals[np.maximum(pos, 0)]
        if (pos < 0).any():
            out[pos < 0] = np.nan
        return out

    @cached_property
    def kernel_names(self) -> np.ndarray:
        """Names of the kernel rows (``kernels``) as an object array of str (see :func:`strings`)."""
        return strings(self.kernels["name"])

    def names_of(self, rows: pd.DataFrame) -> np.ndarray:
        """``rows["name"]`` as an object array of str (see :func:`strings`)."""
        return strings(rows["name"])

    def counter_rows(self, metrics: Any, event_ids: Any = None) -> pd.DataFrame:
        """Counters rows whose metric matches ``metrics`` (see :func:`category_mask`), optionally only those of
        ``event_ids``; the ``metric`` column is returned as plain str. Do not mutate."""
        c = self.timeline.counters
        keep = category_mask(c["metric"], metrics)
        if event_ids is not None:
            keep = isin_ints(c["event_id"].to_numpy(), np.asarray(event_ids), where=keep)
        sub = c[keep]
        return sub.assign(metric=strings(sub["metric"]))

    def memo(self, key: str, compute: Any) -> Any:
        """A value computed once per context under ``key`` (``compute()`` is called on first use).

        For intermediates owned by one analyzer module but read by others (e.g. the hot set); prefer a named
        ``cached_property`` here when the intermediate is general.
        """
        store = self.__dict__.setdefault("_memo", {})
        if key not in store:
            store[key] = compute()
        return store[key]

    def release(self, memo: Any = (), kinds: Any = ()) -> None:
        """Forget shared intermediates no later reader needs, so that their memory is freed (the run loop calls
        this; see :data:`gpulens.analyzers.RELEASE_AFTER`). A later read computes them again, with the same values.

        Args:
            memo: memo keys to drop, by name: a str key matches itself or ``"name:…"``, a tuple key its first item.
            kinds: row selections (:meth:`of_kind` kind tuples) to drop; the GPU-event selection (:attr:`gpu`) is
                kept, since it may be the same frame.
        """
        names = set(memo)
        store = self.__dict__.get("_memo", {})
        for key in list(store):
            name = key[0] if isinstance(key, tuple) and key else str(key).split(":", 1)[0]
            if name in names:
                del store[key]
        if kinds and self._kinds:
            counts = self._kind_counts
            cats = self.kind_categories

            def key_of(ks: Any) -> tuple:
                return tuple(sorted({k for k in ks if k in cats and counts[cats.index(k)] > 0}))

            keep = key_of(GPU_KINDS)
            for ks in kinds:
                key = key_of(ks)
                if key != keep:
                    self._kinds.pop(key, None)


def context_of(timeline: Timeline) -> AnalysisContext:
    """The :class:`AnalysisContext` of ``timeline``, created on first use and cached on the Timeline object.

    A cached context is reused only while ``timeline.events`` is the same DataFrame object with the same length.
    """
    ctx = getattr(timeline, _ATTR, None)
    ev = timeline.events
    if ctx is None or ctx[0] is not ev or ctx[1] != len(ev):
        ctx = (ev, len(ev), AnalysisContext(timeline))
        setattr(timeline, _ATTR, ctx)
    return ctx[2]
