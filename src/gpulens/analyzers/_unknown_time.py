"""The one rule for figures over GPU events whose duration is unknown.

Some inputs hold launches without a measured duration next to launches with one: an ncu launch whose
``gpu__time_duration.sum`` / ``Duration`` is absent or in a unit that is no time (``durations_unknown_events`` of its
source), a rocprof-compute dispatch whose timestamps lost their digits (start == end, ``durations_unknown`` of its
source). The collectors keep such an event with ``dur_ns = 0`` so that its counters are still analysed; that 0 is a
placeholder, never a measurement.

**Rule** (one for every analyzer and every report): a time figure over a set of events of which any has no duration
— a sum, a mean, a percentile, a minimum or maximum, a time-weighted mean, a rate per second, a time at stake — is
**unknown**, never the sum of the others shown as complete and never 0 ns; a share of time whose total holds such an
event is unknown too (its denominator is). Beside it the count is said: a table row gets ``untimed_launches`` ("N"
of the row's ``calls``/``count`` launches have no duration), the run summary gets ``untimed_launches`` and
``timed_kernel_time_ns`` (the sum over the launches that have one, labelled as that, never as the kernels' time).
Figures over events that all have a duration are unchanged. When no GPU event has a duration,
:func:`gpulens.analyzers._span.durations_unknown` already makes every time figure unknown.

:func:`blank_untimed_rows` applies the rule to every result once all analyzers have run
(:func:`gpulens.analyzers.finish`), so every reporter (console, JSON, HTML, Markdown) shows the same "unknown".
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers.base import is_clock_position

#: GPU event kinds whose durations make up kernel and GPU time
GPU_KINDS = ("kernel", "comm", "memcpy", "memset")

#: Column added to a table whose rows hold events without a duration (only where some row does)
UNTIMED_COLUMN = "untimed_launches"
UNTIMED_DOC = "launches of the row without a recorded duration: its time figures are unknown [count]"

#: Columns that are a share of time (their denominator is a time total): unknown in every row of a table when any
#: of its rows holds an event without a duration
TIME_SHARE_COLUMNS = frozenset({"share", "cumulative_share", "config_time_share", "gpu_share"})

#: Summary keys that are a share of time or rest on the time ranking of every kernel
TIME_SHARE_KEYS = frozenset({"critical_share", "linked_share", "share"})

#: Unit suffixes of columns that are a rate per unit of time (unknown where the time is)
RATE_UNITS = ("[FLOP/s]", "[B/s]")

#: Columns computed from a rate or from the durations that are unknown where the time is (percent of a roof, the
#: spread of a kernel's durations). A time-weighted mean of a
#: per-launch measurement (occupancy, % of peak) gives a launch without a duration no weight: it is the mean over
#: the launches with one, and is kept
TIME_DERIVED = ("roof_pct", "datasheet_roof_pct", "pct_of_attainable", "cv", "tail_ratio", "vs_median")

#: Columns of a table naming what a row is about, and what each is matched against
_ROW_KEYS = (("key", "key"), ("name", "name"), ("kernel", "name"), ("category", "category"))


def untimed_mask(timeline: Any) -> np.ndarray:
    """One bool per row of ``timeline.events``: True for a GPU event whose duration is unknown (its ``dur_ns`` 0 is
    a placeholder). Read from each source's ``durations_unknown_events`` (event ids, e.g. ncu); a source that counts
    ``durations_unknown`` without ids (rocprof-compute: start == end after the digits were lost) marks its GPU events
    of 0 ns."""
    ev = timeline.events
    out = np.zeros(len(ev), dtype=bool)
    srcs = [s for s in timeline.meta.sources if s.get("durations_unknown")]
    if not srcs or not len(ev):
        return out
    gpu = ev["kind"].isin(GPU_KINDS).to_numpy()
    source = ev["source"].astype(str).to_numpy() if "source" in ev else np.full(len(ev), "", dtype=object)
    for s in srcs:
        mine = gpu & ((source == str(s.get("collector"))) if s.get("collector") else True)
        ids = s.get("durations_unknown_events")
        if ids:
            out |= mine & ev["event_id"].isin([int(i) for i in ids]).to_numpy()
        else:
            out |= mine & (ev["dur_ns"].to_numpy() == 0)
    return out


def untimed_counts(timeline: Any) -> dict[str, Any]:
    """The run's count of kernels (and collectives) without a duration: ``untimed_launches`` (of which
    ``untimed_not_events`` are dispatches that are no events, not in ``kernel_count``), ``timed_kernel_time_ns`` (Σ over
    the launches with one) — empty when every launch has a duration."""
    mask = untimed_mask(timeline)
    side = len(dispatches_without_events(timeline))
    if not mask.any() and not side:
        return {}
    ev = timeline.events
    k = ev["kind"].isin(("kernel", "comm")).to_numpy()
    return {"untimed_launches": int((mask & k).sum()) + side, "untimed_not_events": side,
            "timed_kernel_time_ns": int(ev["dur_ns"].to_numpy()[k & ~mask].sum())}


def untimed_names(timeline: Any) -> frozenset[str]:
    """Names of the GPU events of which some launch has no duration (for analyzers that word a time figure of a
    kernel into a finding's text: it is then unknown). Empty when every GPU event has a duration."""
    from gpulens.analyzers.context import context_of

    def compute() -> frozenset[str]:
        mask = untimed_mask(timeline)
        return frozenset(timeline.events["name"].astype(str).to_numpy()[mask].tolist()) | frozenset(
            dispatches_without_events(timeline)["name"])

    return context_of(timeline).memo("untimed_names", compute)


def dispatches_without_events(timeline: Any) -> pd.DataFrame:
    """Kernel dispatches recorded without a usable timestamp (``tables["untimed_launches"]``: a rocprofv3 / rocprof
    row with no end time) in an input whose other GPU events have one: launches of the run that are no events, so
    every time figure over their kernel is unknown. Empty when the input has no timed GPU event (a counter-only
    input: :func:`gpulens.analyzers._span.counter_only_reason`)."""
    side = timeline.tables.get("untimed_launches")
    ev = timeline.events
    if side is None or not len(side) or not ev["kind"].isin(GPU_KINDS).any():
        return pd.DataFrame(columns=["name", "kind"])
    kind = side["kind"].astype(str) if "kind" in side else pd.Series("kernel", index=side.index)
    return pd.DataFrame({"name": side["name"].astype(str), "kind": kind})[kind.isin(("kernel", "comm")).to_numpy()]


def _untimed_keys(timeline: Any, mask: np.ndarray) -> dict[str, pd.Series]:
    """For each row key kind (name, key, category): how many events without a duration each value has (dispatches
    that are no events included, :func:`dispatches_without_events`)."""
    from gpulens.analyzers._attribution import gpu_attribution, kernel_key
    from gpulens.analyzers._categories import categorize

    att = gpu_attribution(timeline)
    rows = timeline.events.index[mask]
    sel = att.loc[att.index.intersection(rows)]
    out = {c: sel[c].astype(str).value_counts() for c in ("name", "key", "category")}
    side = dispatches_without_events(timeline)
    if len(side):
        extra = {"name": side["name"], "key": side["name"].map(kernel_key),
                 "category": pd.Series(categorize(side["kind"], side["name"], pd.Series("", index=side.index)))}
        for c, v in extra.items():
            out[c] = out[c].add(v.astype(str).value_counts(), fill_value=0).astype("int64")
    return out


def _as_unknown(col: pd.Series, rows: np.ndarray) -> pd.Series:
    num = pd.to_numeric(col, errors="coerce")
    if pd.api.types.is_integer_dtype(num.dtype):
        return num.astype("Int64").mask(rows)
    return num.astype("float64").mask(rows)  # NaN: what every reporter reads as unknown


def _time_column(column: str, doc: str) -> bool:
    """Whether a table column is a time figure (or a figure computed from one) under the rule."""
    d = str(doc)
    if d.endswith("[ns]"):
        return not is_clock_position(column)
    return d.endswith(RATE_UNITS) or column in TIME_DERIVED


def _blank_result(r: Any, counts: dict[str, pd.Series]) -> int:
    t = getattr(r, "table", None)
    if t is None or not len(t):
        return 0
    hits = np.zeros(len(t), dtype="int64")
    matched = False
    for col, kind in _ROW_KEYS:
        if col in t.columns and not matched:
            c = counts[kind]
            hits = t[col].astype(str).map(c).fillna(0).astype("int64").to_numpy()
            matched = True
    if not matched or not hits.any():
        return 0
    rows = hits > 0
    n = 0
    for c, doc in list(r.columns.items()):
        if c not in t.columns:
            continue
        if _time_column(c, doc):
            t[c] = _as_unknown(t[c], rows)
            n += int(rows.sum())
        elif c in TIME_SHARE_COLUMNS:
            t[c] = _as_unknown(t[c], np.ones(len(t), dtype=bool))
            n += len(t)
    t[UNTIMED_COLUMN] = hits
    r.columns = {**r.columns, UNTIMED_COLUMN: UNTIMED_DOC}
    docs = getattr(r, "summary_columns", {}) or {}
    for k, v in list(r.summary.items()):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            continue
        if k.startswith("overrun"):
            continue  # clipped overruns are measured between timed events
        if k in TIME_SHARE_KEYS or ((k.endswith("_ns") or str(docs.get(k, "")).endswith("[ns]"))
                                    and not is_clock_position(k)):
            r.summary[k] = None
            n += 1
    return n


def blank_untimed_rows(timeline: Any, results: dict[str, Any]) -> int:
    """Apply the module's rule to ``results`` in place: in every table whose rows are kernels, kernel keys or work
    categories, the time figures of a row holding an event without a duration become unknown (``<NA>``), its
    ``untimed_launches`` column counts them, the table's shares of time and its summary's time totals become unknown;
    each finding about such a kernel has an unknown time at stake. Returns how many figures were made unknown (0 when
    every GPU event has a duration)."""
    from gpulens.analyzers._span import durations_unknown

    mask = untimed_mask(timeline)
    if (not mask.any() and not len(dispatches_without_events(timeline))) or durations_unknown(timeline):  # none known: analyzers._span.blank_unknown_durations
        return 0
    counts = _untimed_keys(timeline, mask)
    n = 0
    for name, r in results.items():
        if name in ("stream_timeline", "critical_path_segments") or name.endswith("_series"):
            continue  # drawing data: positions of the timeline views, not figures
        n += _blank_result(r, counts)
        if name == "hotspots" and getattr(r, "summary", None) is not None:
            r.summary.update(untimed_counts(timeline))
        for f in getattr(r, "findings", ()):
            if f.kernel is not None and str(f.kernel) in counts["name"].index and f.time_at_stake_ns is not None:
                f.time_at_stake_ns = None
                n += 1
    return n
