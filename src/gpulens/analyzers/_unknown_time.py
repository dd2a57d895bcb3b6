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

from gpulens._arrays import all_missing
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
    a placeholder; or a runaway recorded duration with nothing to cut it at: :func:`runaways_without_time`). Read
    from each source's ``durations_unknown_events`` (event ids, e.g. ncu); a source that counts ``durations_unknown``
    without ids (rocprof-compute: start == end after the digits were lost) marks its GPU events
    of 0 ns."""
    ev = timeline.events
    out = runaways_without_time(timeline)
    srcs = [s for s in timeline.meta.sources if s.get("durations_unknown")]
    if not srcs or not len(ev):
        return out
    from gpulens.analyzers.context import category_mask

    gpu = ev["kind"].isin(GPU_KINDS).to_numpy()
    for s in srcs:
        collector = s.get("collector")
        if not collector:
            mine = gpu
        elif "source" in ev:  # tested once per distinct source value (no str copy of every event's source)
            mine = gpu & category_mask(ev["source"], {str(collector)})
        else:
            mine = np.zeros(len(ev), dtype=bool)
        ids = s.get("durations_unknown_events")
        if ids:
            out |= mine & ev["event_id"].isin([int(i) for i in ids]).to_numpy()
        else:
            out |= mine & (ev["dur_ns"].to_numpy() == 0)
    return out


def runaways_without_time(timeline: Any) -> np.ndarray:
    """One bool per row of ``timeline.events``: True for a GPU event the runaway rule
    (:func:`gpulens.analyzers.intervals.repair_stream_overruns`) found ending far past the rest of its run, that
    starts when the rest of the run has already ended: its recorded duration cannot be the kernel's and nothing in
    the trace bounds it, so its duration is unknown (not the 0 ns the cut leaves it)."""
    from gpulens.analyzers.context import context_of

    ev = timeline.events
    out = np.zeros(len(ev), dtype=bool)
    if not len(ev):
        return out
    ctx = context_of(timeline)
    gpu = np.flatnonzero(ctx.mask_of(*GPU_KINDS))
    if not len(gpu):
        return out
    over = ctx.overruns
    out[gpu] = over["runaway"].to_numpy(dtype=bool) & (over["effective_ns"].to_numpy("int64") == 0)
    return out


def untimed_counts(timeline: Any) -> dict[str, Any]:
    """The run's count of kernels (and collectives) without a duration: ``untimed_launches`` (of which
    ``untimed_not_events`` are dispatches that are no events, counted in ``kernel_count`` too), ``timed_kernel_time_ns`` (Σ over
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
        return frozenset(timeline.events["name"][mask].astype(str).tolist()) | frozenset(
            dispatches_without_events(timeline)["name"])

    return context_of(timeline).memo("untimed_names", compute)


def untimed_gpu_rows(timeline: Any) -> pd.DataFrame:
    """GPU work the input recorded without a time, in an input whose other GPU events have one: the collectors'
    refused rows (``timeline.rejected``) of a GPU kind whose time is absent
    (:data:`gpulens.collectors._work_rules.ABSENT_TIME_REASONS`) — a Kineto kernel without ``dur`` or ``ts``, a
    rocprofv3 / rocprof dispatch with empty timestamp cells, an nsys row whose ``end`` or ``start`` is NULL. Each ran
    on the GPU; when and for how long is not known. Rows with an impossible time (zero placeholders, an end before the
    start, a duration no clock can hold: cases B06/B07) are corrupt records, refused with a warning and no launch. Columns ``kind``, ``name``, ``rank``, ``start_ns`` (as
    recorded; <NA> when not), ``reason``. Empty when the input has no timed GPU event (a counter-only input:
    :func:`gpulens.analyzers._span.counter_only_reason`) or every GPU row has a time."""
    from gpulens.analyzers.context import context_of
    from gpulens.collectors._work_rules import ABSENT_TIME_REASONS

    def compute() -> pd.DataFrame:
        cols = ["kind", "name", "rank", "start_ns", "reason", "device_id"]
        rej = timeline.rejected
        if rej is None or not len(rej) or not context_of(timeline).mask_of(*GPU_KINDS).any():
            return pd.DataFrame({c: pd.Series(dtype=object) for c in cols})
        kind = rej["kind"].astype(str)
        keep = kind.isin(GPU_KINDS) & rej["reason"].astype(str).isin(ABSENT_TIME_REASONS)
        # per input (rank): an input of several read together whose GPU rows all lack a time is counter-only (a
        # rocprof counter-mode CSV beside a trace), not one whose launches went untimed
        ev = timeline.events
        timed_ranks = pd.unique(ev.loc[context_of(timeline).mask_of(*GPU_KINDS), "rank"].to_numpy(dtype="int64"))
        keep &= rej["rank"].astype("int64").isin(timed_ranks)
        r = rej[keep.to_numpy()]
        return pd.DataFrame({"kind": r["kind"].astype(str).to_numpy(), "name": r["name"].astype(str).to_numpy(),
                             "rank": r["rank"].to_numpy(dtype="int64"),
                             "start_ns": pd.array(r["start_ns"], dtype="Int64"),
                             "reason": r["reason"].astype(str).to_numpy(), "device_id": _device_col(r)})

    return context_of(timeline).memo("untimed_gpu_rows", compute)


def _device_col(rej: pd.DataFrame) -> Any:
    """The refused rows' ``device_id`` (Int64, <NA> where the source did not record it or an older saved Timeline
    has no such column)."""
    if "device_id" not in rej:
        return all_missing(len(rej))
    return pd.array(rej["device_id"], dtype="Int64")


def invalid_gpu_work(timeline: Any, limit: int = 50) -> list[dict[str, Any]]:
    """GPU work refused for an impossible time (case B06: a ``ts 0 / dur 0`` placeholder, a negative duration, an
    end before its start): rows of ``timeline.rejected`` of a GPU kind whose reason is neither an absent time
    (:data:`gpulens.collectors._work_rules.ABSENT_TIME_REASONS`, counted by :func:`untimed_gpu_rows`) nor a queue
    packet that is no work (``NON_WORK_REASON``). Each ran on the GPU; its duration is unknown, so every figure it
    would enter — the span, busy time, and for a kernel the kernel time, its own row and the kernel count — is not
    a measurement of the run (the CI gate cannot judge them: :func:`gpulens.gate.runs.unknown_figures`).

    Returns: ``[{"kind", "name", "count"}]`` per (kind, name), most first, at most ``limit`` rows."""
    rej = timeline.rejected
    if rej is None or not len(rej):
        return []
    keep = _impossible_time_mask(rej)
    if not keep.any():
        return []
    r = rej[keep]
    counts = pd.DataFrame({"kind": r["kind"].astype(str).to_numpy(), "name": r["name"].astype(str).to_numpy()}) \
        .value_counts(sort=False).reset_index(name="count").sort_values(["count", "kind", "name"],
                                                                        ascending=[False, True, True])
    return [{"kind": k, "name": n, "count": int(c)} for k, n, c in counts.head(limit).itertuples(index=False)]


def _impossible_time_mask(rej: pd.DataFrame) -> np.ndarray:
    """Rows of a ``rejected`` table that are GPU work refused for an impossible time (:func:`invalid_gpu_work`)."""
    from gpulens.collectors._work_rules import ABSENT_TIME_REASONS, NON_WORK_REASON

    reason = rej["reason"].astype(str)
    return (rej["kind"].astype(str).isin(GPU_KINDS) & ~reason.isin(ABSENT_TIME_REASONS | {NON_WORK_REASON})) \
        .to_numpy(dtype=bool)


def gpu_rows_of_unknown_time(timeline: Any) -> pd.DataFrame:
    """Every GPU row whose time is unknown, for the idle it may fill: :func:`untimed_gpu_rows` (time absent) and the
    GPU work refused for an impossible time (:func:`invalid_gpu_work`: a negative or unreadable duration, a zero
    placeholder) on a rank with timed GPU work — each ran on the GPU, so the idle its time would fill is no measured
    idle (it was counted as idle, unflagged). Columns ``rank``, ``start_ns`` (as recorded; <NA> when not),
    ``device_id`` (the GPU it ran on where the source records it; <NA>: any GPU of its rank)."""
    from gpulens.analyzers.context import context_of

    side = untimed_gpu_rows(timeline)[["rank", "start_ns", "device_id"]]
    rej = timeline.rejected
    if rej is None or not len(rej) or not context_of(timeline).mask_of(*GPU_KINDS).any():
        return side
    bad = rej[_impossible_time_mask(rej)]
    ev = timeline.events
    timed_ranks = pd.unique(ev.loc[context_of(timeline).mask_of(*GPU_KINDS), "rank"].to_numpy(dtype="int64"))
    bad = bad[bad["rank"].astype("int64").isin(timed_ranks).to_numpy()]
    if not len(bad):
        return side
    more = pd.DataFrame({"rank": bad["rank"].to_numpy(dtype="int64"), "start_ns": pd.array(bad["start_ns"],
                                                                                           dtype="Int64"),
                         "device_id": _device_col(bad)})
    return pd.concat([side, more], ignore_index=True) if len(side) else more


def dispatches_without_events(timeline: Any) -> pd.DataFrame:
    """Kernel and collective launches recorded without a usable time (:func:`untimed_gpu_rows` of kind kernel or
    comm) in an input whose other GPU events have one: launches of the run that are no events, so every time figure
    over their kernel is unknown. Columns ``name``, ``kind``, ``rank``. Empty when the input has no timed GPU event
    (a counter-only input: :func:`gpulens.analyzers._span.counter_only_reason`)."""
    side = untimed_gpu_rows(timeline)
    keep = side["kind"].isin(("kernel", "comm")).to_numpy()
    return side.loc[keep, ["name", "kind", "rank"]].reset_index(drop=True)


def _side_keys(side: pd.DataFrame) -> dict[str, pd.Series]:
    """The row keys (name, key, category) of GPU work recorded without a time (:func:`untimed_gpu_rows`)."""
    from gpulens.analyzers._attribution import kernel_key
    from gpulens.analyzers._categories import categorize

    return {"name": side["name"].astype(str), "key": side["name"].map(kernel_key).astype(str),
            "category": pd.Series(categorize(side["kind"], side["name"], pd.Series("", index=side.index)),
                                  index=side.index).astype(str)}


def _untimed_keys(timeline: Any, mask: np.ndarray) -> tuple[dict[str, pd.Series], dict[str, pd.Series]]:
    """For each row key kind (name, key, category): how many launches without a duration each value has — events
    with a placeholder duration (``mask``) and GPU work that is no event (:func:`untimed_gpu_rows`) — and, second,
    the latter alone (launches a table's counts do not hold yet)."""
    from gpulens.analyzers._attribution import gpu_attribution

    att = gpu_attribution(timeline)
    rows = timeline.events.index[mask]
    sel = att.loc[att.index.intersection(rows)]
    out = {c: sel[c].astype(str).value_counts() for c in ("name", "key", "category")}
    side = untimed_gpu_rows(timeline)
    extra = {c: v.value_counts() for c, v in _side_keys(side).items()} if len(side) else \
        {c: pd.Series(dtype="int64") for c in out}
    for c, v in extra.items():
        out[c] = out[c].add(v, fill_value=0).astype("int64")
    return out, extra


#: Count columns of the tables :func:`blank_untimed_rows` completes with the launches that are no events
_COUNT_COLUMNS = ("calls", "count", "gpu_events")


def _missing_rows(name: str, r: Any, timeline: Any) -> pd.DataFrame | None:
    """Rows to append to the hotspots or kernel-groups table for kernels (groups) whose every launch is recorded
    without a time: they ran, so they are rows of the table, with their launches counted and every time figure
    unknown. None for other tables or when there is none."""
    side = untimed_gpu_rows(timeline)
    t = r.table
    if name == "hotspots":
        side = side[side["kind"].isin(("kernel", "comm")).to_numpy()]
        side = side[~side["name"].isin(set(t["name"].astype(str))).to_numpy()] if len(t) else side
        if not len(side):
            return None
        g = side.groupby(["name", "kind"], sort=True).size().reset_index(name="calls")
        return pd.DataFrame({"name": g["name"], "kind": g["kind"], "calls": g["calls"].astype("int64"),
                             "critical": False})
    if name == "kernel_groups" and "key" in t:
        if not len(side):
            return None
        keys = _side_keys(side)
        df = pd.DataFrame({"rank": side["rank"].to_numpy(dtype="int64"), "kind": side["kind"].to_numpy(),
                           "key": keys["key"].to_numpy(), "name": side["name"].to_numpy(),
                           "category": keys["category"].to_numpy()})
        have = set(zip(t["rank"].astype("int64"), t["key"].astype(str))) if len(t) else set()
        df = df[[(int(a), str(k)) not in have for a, k in zip(df["rank"], df["key"])]]
        if not len(df):
            return None
        g = df.groupby(["rank", "kind", "key"], sort=True).agg(name=("name", "first"), category=("category", "first"),
                                                               count=("name", "size")).reset_index()
        return g.assign(op="", shapes="", dtypes="")
    return None


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


def _blank_result(r: Any, counts: dict[str, pd.Series], side: dict[str, pd.Series] | None = None,
                  extra: pd.DataFrame | None = None) -> int:
    """The rule on one result (in place): ``counts`` per row key of the launches without a duration, ``side`` those
    of them that are no events (added to the row's count column), ``extra`` rows to append first
    (:func:`_missing_rows`)."""
    t = getattr(r, "table", None)
    if t is None:
        return 0
    if extra is not None and len(extra):
        for c in _COUNT_COLUMNS:
            if c in extra and c in t:
                extra = extra.rename(columns={c: f"_{c}"})  # counted below with the other rows' missing launches
        t = pd.concat([t, extra[[c for c in extra.columns if c in t.columns]]], ignore_index=True)
        if "critical" in t:
            t["critical"] = t["critical"].fillna(False).astype(bool)
        r.table = t
    if not len(t):
        return 0
    hits = np.zeros(len(t), dtype="int64")
    matched = False
    for col, kind in _ROW_KEYS:
        if col in t.columns and not matched:
            c = counts[kind]
            hits = t[col].astype(str).map(c).fillna(0).astype("int64").to_numpy()
            if side is not None and len(side[kind]):
                keys = t[col].astype(str)
                # each launch once: on the first row of its key (rows of one key under several ops or ranks would
                # otherwise each count it)
                add = keys.map(side[kind]).fillna(0).astype("int64").to_numpy() * (~keys.duplicated()).to_numpy()
                for cc in _COUNT_COLUMNS:
                    if cc in t.columns:
                        t[cc] = (pd.to_numeric(t[cc], errors="coerce").fillna(0).astype("int64") + add)
                        summ = getattr(r, "summary", None)
                        sk = {"count": "gpu_events"}.get(cc, cc)  # kernel_groups: rows' count, summary gpu_events
                        if isinstance(summ, dict) and isinstance(summ.get(sk), int) and not isinstance(summ[sk], bool):
                            summ[sk] += int(add.sum())  # the summary's total of that count column holds them too
                        break
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
    counts, side = _untimed_keys(timeline, mask)
    n = 0
    for name, r in results.items():
        if name in ("stream_timeline", "critical_path_segments") or name.endswith("_series"):
            continue  # drawing data: positions of the timeline views, not figures
        n += _blank_result(r, counts, side, _missing_rows(name, r, timeline)
                           if getattr(r, "table", None) is not None and not getattr(r, "skipped", False) else None)
        if name == "hotspots" and getattr(r, "summary", None) is not None:
            r.summary.update(untimed_counts(timeline))
            extra = len(dispatches_without_events(timeline))
            events = int(timeline.events["kind"].isin(("kernel", "comm")).sum())
            if extra and isinstance(r.summary.get("kernel_count"), int) and r.summary["kernel_count"] == events:
                # launches recorded without a time ran: counted among the run's kernel launches (the count every
                # reporter and the gate read), and their kernels among its kernels — added to a count of the
                # Timeline's kernel events only: a count read from elsewhere (the same dispatches' counter rows when
                # no kernel has a time, a per-kernel summary table) holds these launches already
                r.summary["kernel_count"] += extra
                if len(r.table) and "name" in r.table:
                    r.summary["unique_kernels"] = int(r.table["name"].astype(str).nunique())
        for f in getattr(r, "findings", ()):
            if f.kernel is not None and str(f.kernel) in counts["name"].index and f.time_at_stake_ns is not None:
                f.time_at_stake_ns = None
                n += 1
    return n
