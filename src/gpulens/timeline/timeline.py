"""The Timeline: one typed, columnar table of interval events plus side tables, the same for every source.

A Timeline holds

* ``events`` — a pandas DataFrame with exactly the columns of :data:`~gpulens.timeline.schema.EVENT_COLUMNS`;
* ``counters`` — long table of hardware counters (:data:`~gpulens.timeline.schema.COUNTER_COLUMNS`);
* ``rejected`` — events the collector refused, with the reason (:data:`~gpulens.timeline.schema.REJECTED_COLUMNS`);
* ``tables`` — named side tables a source carries that are not events (e.g. an ``nsys stats`` kernel summary);
* ``meta`` — :class:`TimelineMeta`: sources, devices as found in the trace, warnings, truncation.

It owns its persistence (:meth:`Timeline.save` / :meth:`Timeline.load`, Parquet through pyarrow) and its
combination (:func:`concat`, for several ranks).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from gpulens.errors import SchemaError, TraceFormatError, TruncationNote
from gpulens.timeline.sums import MAX_EVENT_NS, MAX_TOTAL_NS, over_total
from gpulens.timeline.input_notes import files_of, warn_day_long
from gpulens.timeline.launch import describe as describe_impossible, scrub_device_records, scrub_launch_config
from gpulens.timeline.link_ids import no_zero_ids
from gpulens.timeline.percent import percent_over, warning_of
from gpulens.timeline.rates import rate_over, rate_warning
from gpulens.timeline.schema import (
    COUNTER_COLUMNS,
    EVENT_COLUMNS,
    GPU_KINDS,
    KINDS,
    NARROW_COLUMNS,
    REJECTED_COLUMNS,
    Column,
)
from gpulens.units import plural

FORMAT_VERSION = 1


def _rewrap(old: str, new: str) -> str:
    """``new`` as the same kind of warning as ``old`` (a :class:`gpulens.errors.TruncationNote` stays one)."""
    at = getattr(old, "truncated_at", None)
    return TruncationNote(new, *at) if at else new


@dataclass
class TimelineMeta:
    """What a Timeline knows about where it came from.

    Attributes:
        sources: one dict per input file: ``path``, ``collector``, ``size_bytes`` (on disk),
            ``uncompressed_bytes`` (when compressed), ``rank``, and source-specific keys
            (``base_time_ns``, ``schema_version``, ``distributed``...).
        devices: one dict per GPU as recorded by the source: at least ``rank``, ``device_id``, ``name``;
            plus whatever the source gives (``compute_capability``, ``gfx_arch``, ``num_sms``, ``warp_size``,
            ``total_memory_bytes``, ...).
        warnings: human-readable notes on anything dropped, repaired or suspicious.
        truncated: True when an input ended early and only its complete part was read.
        truncated_at: ``{path: byte offset}`` of where each truncated input stopped parsing.
        unread: ``{path: reason}`` of the rank files of a multi-file input (a directory of per-rank traces) that could
            not be read (unreadable, empty, corrupt): the Timeline holds the other ranks only, so its results are
            *partial*, like those of a truncated input.
        rank_files: how many rank files that input holds (read + unread; 0 for a single-file input).
        dropped: ``{path: count}`` of the events of each input dropped because they could not be read (malformed
            JSON, fields of the wrong type, no known phase): the figures cover the rest, so the results are
            *partial*, like those of a truncated input — a CI gate must not read the missing kernels as a speed-up.
    """

    sources: list[dict[str, Any]] = field(default_factory=list)
    devices: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    truncated: bool = False
    truncated_at: dict[str, int] = field(default_factory=dict)
    unread: dict[str, str] = field(default_factory=dict)
    rank_files: int = 0
    dropped: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.scrub()

    def scrub(self) -> "TimelineMeta":
        """Remove environments and redact secrets from what the trace recorded (:mod:`gpulens.timeline.secrets`);
        run when the meta is made and again by :meth:`Timeline.validate`, which every collector ends with."""
        from gpulens.timeline.secrets import scrub, scrub_text

        self.sources = scrub(list(self.sources))
        self.devices = scrub(list(self.devices))
        self.warnings = [_rewrap(w, scrub_text(w)) for w in self.warnings]
        return self

    def collectors(self) -> list[str]:
        """The collectors whose data the Timeline holds, sorted: the ``collector`` of each source, leaving out a live
        run's telemetry source when its sampler was unavailable (that source only says why there is none)."""
        return sorted({str(x.get("collector", "")) for x in self.sources
                       if not (x.get("collector") == "telemetry" and not x.get("available"))})

    def unread_text(self, first: int = 3) -> str:
        """The one sentence for rank files that could not be read (``""`` when none): ``"1 of 8 rank files could
        not be read: rank-3.json: file is empty — the figures cover the other 7 (partial)"``, the first ``first``
        named."""
        n = len(self.unread)
        if not n:
            return ""
        total = max(int(self.rank_files or 0), n)
        named = "; ".join(f"{Path(f).name}: {why}" for f, why in list(self.unread.items())[:first])
        more = f"; and {n - first} more" if n > first else ""
        return (f"{n} of {total} rank file{'s' if total != 1 else ''} could not be read: {named}{more} — the "
                f"figures cover the other {total - n} (partial)")

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of the metadata."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "TimelineMeta":
        """Inverse of :meth:`to_dict` (unknown keys are ignored)."""
        known = {k: d[k] for k in ("sources", "devices", "warnings", "truncated", "truncated_at", "unread",
                                           "rank_files") if k in d}
        return cls(**known)


def _as_category(s: pd.Series) -> pd.Series:
    """Categorical with string categories (one canonical dtype, so saved and loaded tables compare equal)."""
    if not isinstance(s.dtype, pd.CategoricalDtype):
        s = s.astype(object).astype("category")
    cats = s.cat.categories
    if str(cats.dtype) != "str":
        s = s.cat.rename_categories(pd.Index([str(c) for c in cats], dtype="str")) if len(cats) else \
            pd.Series(pd.Categorical(s.astype(object), categories=pd.Index([], dtype="str")), index=s.index)
    return s


def _empty_series(col: Column, n: int) -> pd.Series:
    if col.dtype == "category":
        return pd.Series(pd.Categorical.from_codes(np.full(n, -1, dtype="int8"),
                                                   categories=pd.Index([], dtype="str")))
    if col.dtype in ("Int64", "Int32"):
        return pd.Series(pd.arrays.IntegerArray(np.zeros(n, dtype=col.dtype.lower()), np.ones(n, dtype=bool)))
    if col.dtype == "float64":
        return pd.Series(np.full(n, np.nan))
    if col.dtype == "int64":
        fill = -1 if col.name == "device_id" else 0
        return pd.Series(np.full(n, fill, dtype="int64"))
    if col.dtype == "bool":
        return pd.Series(np.zeros(n, dtype=bool))
    raise SchemaError(f"no default for dtype {col.dtype!r} of column {col.name}")


def _coerce(values: Any, col: Column) -> pd.Series:
    """Turn a list/array of raw values into a Series of the column's dtype (arrays already of that dtype are
    wrapped, not copied: pandas ≥ 3 copies a numpy array given to ``pd.Series`` unless told not to)."""
    if isinstance(values, pd.Series):
        s = values.reset_index(drop=True)
    elif isinstance(values, (np.ndarray, pd.api.extensions.ExtensionArray)):
        s = pd.Series(values, copy=False)
    else:
        s = pd.Series(values)
    if str(s.dtype) == col.dtype and col.dtype != "category":
        return s
    if col.dtype == "category":
        return _as_category(s)
    if col.dtype in ("Int64", "Int32"):
        if s.dtype == object:
            s = pd.to_numeric(s, errors="coerce")
        if s.dtype.kind == "f":
            # inf, nan and magnitudes beyond int64 are unknown (NA), never an error for the whole table
            s = s.round().where(np.isfinite(s) & (s.abs() < 2.0 ** 63))
        s = s.astype("Int64")
        return narrow_int32(s) if col.dtype == "Int32" else s
    if col.dtype == "int64":
        return s.astype("int64")
    return s.astype(col.dtype)


_I32 = np.iinfo(np.int32)


def _kinds_outside(kind: pd.Series) -> tuple[set, bool]:
    """(the values of the ``kind`` column that are no :data:`~gpulens.timeline.schema.KINDS`, whether a row has
    none). A categorical column is read on its codes: only a category outside KINDS is looked for among the rows
    (none, usually), and a missing kind is a code −1 — no hash of every row's value (a 3M-row ``unique`` per load
    at 1M kernels)."""
    known = set(KINDS)
    if isinstance(kind.dtype, pd.CategoricalDtype):
        codes = kind.cat.codes.to_numpy()
        cats = kind.cat.categories
        odd = [i for i, c in enumerate(cats) if c not in known]
        bad = {cats[i] for i in odd if (codes == i).any()}
        return bad, bool(len(codes)) and bool((codes < 0).any())
    return set(kind.dropna().unique()) - known, bool(kind.isna().any())


def narrow_int32(s: pd.Series) -> pd.Series:
    """A nullable integer Series as ``Int32`` when every value fits in int32, else unchanged (``astype("Int32")``
    would wrap a larger value around silently; :data:`~gpulens.timeline.schema.NARROW_COLUMNS`)."""
    if str(s.dtype) == "Int32":
        return s
    v = s.to_numpy(dtype="int64", na_value=0)
    if len(v) and (v.min() < _I32.min or v.max() > _I32.max):
        return s
    mask = np.array(s.isna(), dtype=bool)  # a writable copy: the Timeline's scrub sets values to <NA> in place
    return pd.Series(pd.arrays.IntegerArray(v.astype(np.int32), mask), index=s.index, name=s.name, copy=False)


def make_table(columns: tuple[Column, ...], data: Mapping[str, Any] | None = None, n: int | None = None) -> pd.DataFrame:
    """Build a DataFrame with exactly ``columns``: given ones coerced to their dtype, missing ones filled with NA.

    Arrays (numpy or pandas extension arrays) already of the column's dtype become the column without a copy, so
    the caller hands them over and must not change them afterwards; the same array object given for two columns is
    copied for the second.

    Args:
        columns: the schema (e.g. ``EVENT_COLUMNS``).
        data: column name → list/array/Series of equal length; unknown names raise :class:`SchemaError`.
        n: row count when ``data`` is empty.
    """
    data = dict(data or {})
    unknown = set(data) - {c.name for c in columns}
    if unknown:
        raise SchemaError(f"{plural(len(unknown), 'unknown column(s)')} {sorted(unknown)}")
    if data:
        lengths = {len(v) for v in data.values()}
        if len(lengths) != 1:
            raise SchemaError(f"columns of unequal length: { {k: len(v) for k, v in data.items()} }")
        n = lengths.pop()
    n = n or 0
    out = {}
    seen: set[int] = set()
    for col in columns:
        if col.name in data:
            v = data[col.name]
            if id(v) in seen and isinstance(v, (np.ndarray, pd.api.extensions.ExtensionArray)):
                v = v.copy()
            seen.add(id(v))
            out[col.name] = _coerce(v, col)
        else:
            out[col.name] = _empty_series(col, n)
    if "name_norm" in out and "name" in out:  # the event table: a blank name reads "(unnamed)" from every source
        from gpulens.timeline.names import blank_names_named

        out["name"] = blank_names_named(out["name"])
        if "name_norm" in data:
            out["name_norm"] = blank_names_named(out["name_norm"])
    if "name_norm" in out and "name_norm" not in data and "name" in out:
        from gpulens.timeline.names import normalized_names  # derived column: every collector gets it for free

        out["name_norm"] = _as_category(normalized_names(out["name"]))
    return pd.DataFrame(out, copy=False)  # the columns were just built; copying 3M-row tables costs seconds


#: Starts a Timeline keeps: [-2^61, 2^62] ns (−73 to +146 years of the clock's origin: every clock a profiler uses,
#: epoch ns included, fits). Any two times of kept events are then less than 2^63 ns apart (2^62 + 2^53 + 2^61), so
#: no difference of two times — a gap, a span — wraps int64 (a start of −9.2e18 ns made a gap of +9.2e18 ns wrap
#: negative and broke the per-GPU breakdown).
MIN_START_NS, MAX_START_NS = -(1 << 61), 1 << 62


class Timeline:
    """A unified, typed event timeline (see module docstring).

    Args:
        events: DataFrame with the schema's event columns (use :func:`make_table` to build one).
        counters: optional counters table; empty when omitted.
        rejected: optional rejected-events table; empty when omitted.
        meta: optional :class:`TimelineMeta`.
        tables: optional named side tables.
    """

    def __init__(
        self,
        events: pd.DataFrame | None = None,
        counters: pd.DataFrame | None = None,
        rejected: pd.DataFrame | None = None,
        meta: TimelineMeta | None = None,
        tables: dict[str, pd.DataFrame] | None = None,
    ):
        self.events = events if events is not None else make_table(EVENT_COLUMNS)
        self.counters = counters if counters is not None else make_table(COUNTER_COLUMNS)
        self.rejected = rejected if rejected is not None else make_table(REJECTED_COLUMNS)
        self.meta = meta or TimelineMeta()
        self.tables = dict(tables or {})

    # -- views ---------------------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.events)

    def __repr__(self) -> str:
        kinds = self.events["kind"].value_counts().to_dict() if len(self.events) else {}
        kinds = {k: v for k, v in kinds.items() if v}
        return f"<Timeline {len(self.events)} events {kinds} ranks={self.ranks} truncated={self.meta.truncated}>"

    @property
    def ranks(self) -> list[int]:
        """Sorted distinct ranks present in the events (or in the sources when there are no events)."""
        if len(self.events):
            return sorted(int(r) for r in self.events["rank"].unique())
        return sorted({int(s.get("rank", 0) or 0) for s in self.meta.sources}) or [0]

    def of_kind(self, *kinds: str) -> pd.DataFrame:
        """Rows whose ``kind`` is one of ``kinds`` (a copy-on-write copy, original index kept).

        The selection is computed once per Timeline and kinds (:mod:`gpulens.analyzers.context`); each call returns
        a shallow copy, so changing the result never changes what later callers get.
        """
        from gpulens.analyzers.context import context_of

        return context_of(self).of_kind(*kinds).copy(deep=False)

    def gpu_events(self) -> pd.DataFrame:
        """Rows that ran on a GPU queue: kernels, collectives, copies and sets."""
        return self.of_kind(*GPU_KINDS)

    # -- invariants ----------------------------------------------------------------------------------------------
    def validate(self) -> "Timeline":
        """Check dtypes and invariants; return self.

        Raises:
            SchemaError: a column is missing, extra or of the wrong dtype; a duration is negative; an event kind
                is not in :data:`KINDS`; ``event_id`` repeats.

        Also scrubs the metadata (:meth:`TimelineMeta.scrub`): no environment or secret leaves a collector; and
        sets launch-configuration values no GPU accepts to ``<NA>`` with one warning (:mod:`gpulens.timeline.launch`),
        and link ids of 0 (no link) to ``<NA>`` (:mod:`gpulens.timeline.link_ids`).
        """
        for w in self.meta.warnings:  # a reader's note that its input stops early (errors.TruncationNote); before
            at = getattr(w, "truncated_at", None)  # scrub(), which makes every warning a plain str
            if at:
                self.meta.truncated = True
                self.meta.truncated_at.setdefault(at[0], at[1])
        self.meta.scrub()
        bad_device_values = scrub_device_records(self.meta.devices)
        if bad_device_values:
            self.meta.warnings.append(f"{len(bad_device_values)} device propert(y/ies) of the wrong type or impossible "
                                      f"dropped (unknown now): {', '.join(bad_device_values[:3])[:200]}")
        for table, columns, label in (
            (self.events, EVENT_COLUMNS, "events"),
            (self.counters, COUNTER_COLUMNS, "counters"),
            (self.rejected, REJECTED_COLUMNS, "rejected"),
        ):
            want = [c.name for c in columns]
            if list(table.columns) != want:
                raise SchemaError(f"{label} columns {list(table.columns)} != schema {want}")
            for c in columns:
                got = str(table[c.name].dtype)
                if got != c.dtype and not (c.dtype == "Int32" and got == "Int64"):  # Int64: narrowed below
                    raise SchemaError(f"{label}.{c.name} has dtype {got}, schema says {c.dtype}")
        for table in (self.events, self.rejected):  # every collector's ids: 0 is no link (timeline.link_ids)
            no_zero_ids(table)
        co = self.counters
        if len(co):
            vals = co["value"].to_numpy(dtype="float64", na_value=np.nan)
            impossible = (vals < 0) | np.isinf(vals)  # counts, bytes, rates, times and % are never negative
            pct = percent_over(co["metric"], co["unit"], vals)  # a percentage above 100 is no measurement
            pct |= (fast := rate_over(co["unit"], vals))  # nor a bandwidth beyond any GPU's
            if impossible.any() or pct.any():
                self.counters = co[~(impossible | pct)].reset_index(drop=True)
            if impossible.any():
                names = sorted(set(co.loc[impossible, "metric"].astype(str)))
                self.meta.warnings.append(f"{plural(int(impossible.sum()), 'counter value(s)')} negative or infinite "
                                          f"dropped (unknown now): {', '.join(names[:3])[:160]}")
            if (pct & ~fast).any():
                self.meta.warnings.append(warning_of(pct & ~fast, co["metric"]))
            if fast.any():
                self.meta.warnings.append(rate_warning(fast, co["metric"]))
        un = self.tables.get("unattached_counters")  # counters of timestamp-less dispatches: the same rules
        if un is not None and len(un) and "value" in un:
            vals = pd.to_numeric(un["value"], errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
            impossible = (vals < 0) | np.isinf(vals)
            pct = percent_over(un["metric"], un.get("unit"), vals) if "metric" in un else np.zeros(len(un), bool)
            fast = rate_over(un.get("unit"), vals)
            pct |= fast
            if impossible.any() or pct.any():
                self.tables["unattached_counters"] = un[~(impossible | pct)].reset_index(drop=True)
            if impossible.any():
                names = sorted(set(un.loc[impossible, "metric"].astype(str))) if "metric" in un else []
                self.meta.warnings.append(f"{plural(int(impossible.sum()), 'per-kernel counter value(s)')} negative or "
                                          f"infinite dropped (unknown now): {', '.join(names[:3])[:160]}")
            if (pct & ~fast).any():
                self.meta.warnings.append(warning_of(pct & ~fast, un["metric"], "per-kernel "))
            if fast.any():
                self.meta.warnings.append(rate_warning(fast, un["metric"] if "metric" in un else [""] * len(un),
                                                       "per-kernel "))
        ev = self.events
        if len(ev):
            if (ev["dur_ns"] < 0).any():
                raise SchemaError("events with negative dur_ns (collectors must move them to `rejected`)")
            ev = self._reject_absurd(ev)
            warn_day_long(self.meta, ev)
            bad, missing = _kinds_outside(ev["kind"])
            if bad:
                raise SchemaError(f"unknown event kinds {sorted(bad)}")
            if missing:
                raise SchemaError("events without a kind")
            changed = scrub_launch_config(ev, self.meta.devices)
            if changed:
                self.meta.warnings.append(describe_impossible(changed))
            for col, what in (("bytes", "byte count"), ("flops", "FLOP count")):
                # a payload below 0 B or a negative (or infinite/NaN) FLOP count is no amount: unknown, counted
                if col in ev and len(ev):
                    v = ev[col]
                    bad = (v.lt(0) | (v.isin([np.inf]) if col == "flops" else False)).fillna(False).to_numpy(dtype=bool)
                    if bad.any():
                        ev.loc[bad, col] = np.nan if col == "flops" else pd.NA
                        self.meta.warnings.append(f"{plural(int(bad.sum()), 'event(s)')} with a negative or infinite "
                                                  f"{what}: "
                                                  "that amount is unknown")
            ids = ev["event_id"].to_numpy()
            if not bool((ids[1:] > ids[:-1]).all()) and not ev["event_id"].is_unique:  # increasing: no hash table
                raise SchemaError("event_id is not unique")
        for c in NARROW_COLUMNS:  # the values no GPU accepts are unknown now: every launch resource fits in int32
            if str(ev[c].dtype) == "Int64":
                ev[c] = narrow_int32(ev[c])
        return self

    def _reject_absurd(self, ev: pd.DataFrame) -> pd.DataFrame:
        """Move events no profiler can have measured to ``rejected``, with one counted warning: a duration beyond
        :data:`MAX_EVENT_NS` (a 2^63-ish end written by a broken export), or an end past int64 ns. Kept, one such
        duration summed with any other wraps int64 and turns every total negative (kernel time −9.2e18 ns); a start
        outside [:data:`MIN_START_NS`, :data:`MAX_START_NS`] (any difference of two times would wrap); and, when the
        durations left add up beyond :data:`~gpulens.timeline.sums.MAX_TOTAL_NS`, the longest of them until the rest
        fit (:func:`~gpulens.timeline.sums.over_total`: 1,200 kernels of 100 days each summed to −8.1e18 ns)."""
        start, dur = ev["start_ns"].to_numpy(), ev["dur_ns"].to_numpy()
        too_long = dur > MAX_EVENT_NS
        past_end = ~too_long & (start > np.iinfo(np.int64).max - dur)
        far = ~too_long & ~past_end & ((start < MIN_START_NS) | (start > MAX_START_NS))
        bad = too_long | past_end | far
        if not bad.any() and float(dur.sum(dtype=np.float64)) <= MAX_TOTAL_NS / 2:
            return ev  # nothing absurd, and the durations add up far within 2^62 ns (the float sum's rounding, ~1e-9
            # relative at most, is far inside the margin): no copies of every row for over_total to say so
        # durations that add up past 2^62 ns (146 years) would wrap int64 sums downstream: the longest go
        rest = np.flatnonzero(~bad)
        piled = np.zeros(len(ev), dtype=bool)
        piled[rest[over_total(dur[rest])]] = True
        bad |= piled
        if not bad.any():
            return ev
        reason = np.where(too_long, f"duration beyond {MAX_EVENT_NS // 86_400_000_000_000} days (2^53 ns): not "
                                    "a measured time",
                          np.where(past_end, "end beyond the int64 ns clock",
                                   np.where(piled, "among the longest of durations that add up beyond 146 years "
                                                   "(2^62 ns): not measured times",
                                            "start more than 73 years before or 146 years after the clock's "
                                            "origin")))
        rej = make_table(REJECTED_COLUMNS, {
            "kind": ev.loc[bad, "kind"].astype(str).tolist(), "name": ev.loc[bad, "name"].astype(str).tolist(),
            "start_ns": ev.loc[bad, "start_ns"].to_numpy(), "dur_ns": ev.loc[bad, "dur_ns"].to_numpy(),
            "rank": ev.loc[bad, "rank"].to_numpy(dtype="int64"), "reason": reason[bad].tolist(),
            "source": ev.loc[bad, "source"].astype(str).tolist(), "device_id": ev.loc[bad, "device_id"].to_numpy()},
            n=int(bad.sum()))
        self.rejected = _concat_tables([self.rejected, rej], REJECTED_COLUMNS)
        gone = ev.loc[bad, "event_id"].to_numpy()
        ev = ev[~bad].reset_index(drop=True)
        par = ev["parent_id"]
        if par.notna().any():
            ev["parent_id"] = par.mask(par.isin(gone))
        if len(self.counters):
            self.counters = self.counters[~self.counters["event_id"].isin(gone)].reset_index(drop=True)
        self.events = ev
        names = sorted(set(rej["name"].astype(str)))
        where = files_of(self.meta, rej["rank"].tolist())
        piled_text = (f"; {int(piled.sum())} of them the longest of durations that add up beyond "
                      f"{MAX_TOTAL_NS // (365 * 86_400_000_000_000)} years, which no sum of int64 ns holds"
                      if piled.any() else "")
        self.meta.warnings.append(f"{where}{plural(int(bad.sum()), 'event(s)')} with an impossible time excluded (a "
                                  "duration beyond "
                                  f"{MAX_EVENT_NS // 86_400_000_000_000} days, an end past the int64 ns clock, or a "
                                  f"start outside −73..+146 years of the clock{piled_text}): "
                                  f"{', '.join(names[:3])[:160]}")
        return ev

    # -- persistence ---------------------------------------------------------------------------------------------
    def save(self, path: str | Path, overwrite: bool = False) -> Path:
        """Write the Timeline as a folder of Parquet files plus ``meta.json``.

        Args:
            path: folder to create (e.g. ``run.gpulens``).
            overwrite: replace an existing folder written by :meth:`save`; never replaces anything else.

        Raises:
            FileExistsError: ``path`` exists and ``overwrite`` is False, or it is not a saved Timeline.
        """
        p = Path(path)
        if p.exists():
            if not overwrite:
                raise FileExistsError(f"{p} exists; pass overwrite=True to replace it")
            if not (p / "meta.json").is_file():
                raise FileExistsError(f"{p} exists and is not a saved gpulens Timeline; refusing to overwrite")
        p.mkdir(parents=True, exist_ok=True)
        self.events.to_parquet(p / "events.parquet", index=False)
        self.counters.to_parquet(p / "counters.parquet", index=False)
        self.rejected.to_parquet(p / "rejected.parquet", index=False)
        for name, table in self.tables.items():
            table.to_parquet(p / f"table.{name}.parquet", index=False)
        doc = {"format_version": FORMAT_VERSION, "meta": self.meta.to_dict(), "tables": sorted(self.tables)}
        (p / "meta.json").write_text(json.dumps(doc, indent=1, default=str))
        return p

    @classmethod
    def load(cls, path: str | Path) -> "Timeline":
        """Read a Timeline written by :meth:`save`.

        Raises:
            TraceFormatError: the folder is missing files or was written by an incompatible version.
        """
        p = Path(path)
        try:
            doc = json.loads((p / "meta.json").read_text())
        except (OSError, ValueError) as exc:
            raise TraceFormatError(p, f"not a saved gpulens Timeline ({exc.__class__.__name__})") from None
        if doc.get("format_version") != FORMAT_VERSION:
            raise TraceFormatError(p, f"saved with format_version {doc.get('format_version')}, expected {FORMAT_VERSION}")

        def read(name: str, columns: tuple[Column, ...]) -> pd.DataFrame:
            df = pd.read_parquet(p / name)
            return make_table(columns, {c: df[c] for c in df.columns}, n=len(df))

        tables = {n: pd.read_parquet(p / f"table.{n}.parquet") for n in doc.get("tables", [])}
        return cls(
            read("events.parquet", EVENT_COLUMNS),
            read("counters.parquet", COUNTER_COLUMNS),
            read("rejected.parquet", REJECTED_COLUMNS),
            TimelineMeta.from_dict(doc.get("meta", {})),
            tables,
        ).validate()


def _concat_tables(frames: list[pd.DataFrame], columns: tuple[Column, ...]) -> pd.DataFrame:
    frames = [f for f in frames if len(f)]
    if not frames:
        return make_table(columns)
    out = pd.concat(frames, ignore_index=True)
    # union categoricals: concat of categoricals with different categories yields object; re-encode
    for c in columns:
        if c.dtype == "category":
            out[c.name] = _as_category(out[c.name])
    return out


def concat(timelines: Iterable[Timeline]) -> Timeline:
    """Combine several Timelines (typically one per rank) into one.

    ``event_id`` is renumbered 0..n-1 across the result; counters' ``event_id`` follow their events;
    ``parent_id`` is remapped the same way. Metadata lists are concatenated; ``truncated`` is true if any input was.
    Side tables with the same name are concatenated; an integer ``event_id`` column in a side table is renumbered
    with its events.
    """
    tls = list(timelines)
    events, counters, rejected = [], [], []
    offsets = []
    offset = 0
    for tl in tls:
        offsets.append(offset)
        ev = tl.events.copy()
        ev["event_id"] = ev["event_id"] + offset
        ev["parent_id"] = ev["parent_id"] + offset
        co = tl.counters.copy()
        co.loc[co["event_id"] >= 0, "event_id"] += offset
        events.append(ev)
        counters.append(co)
        rejected.append(tl.rejected)
        offset = int(ev["event_id"].max()) + 1 if len(ev) else offset
    meta, tables = join_meta(tls, offsets)
    return Timeline(
        _concat_tables(events, EVENT_COLUMNS),
        _concat_tables(counters, COUNTER_COLUMNS),
        _concat_tables(rejected, REJECTED_COLUMNS),
        meta,
        tables,
    ).validate()


def join_meta(parts: Iterable[Any], offsets: Iterable[int]) -> tuple[TimelineMeta, dict[str, pd.DataFrame]]:
    """Metadata and side tables of several parts (anything with ``meta`` and ``tables``: Timelines, loaded rank
    files) joined in order: metadata lists concatenated, ``truncated`` true if any part was; side tables of one name
    concatenated (a table only one part has is kept as it is), an integer ``event_id`` column shifted by its part's
    offset in ``offsets`` so it follows its events."""
    meta = TimelineMeta()
    tables: dict[str, list[pd.DataFrame]] = {}
    for p, off in zip(parts, offsets):
        meta.sources += p.meta.sources
        meta.devices += p.meta.devices
        meta.warnings += p.meta.warnings
        meta.truncated = meta.truncated or p.meta.truncated
        meta.truncated_at.update(p.meta.truncated_at)
        meta.unread.update(getattr(p.meta, "unread", {}) or {})
        meta.rank_files += int(getattr(p.meta, "rank_files", 0) or 0)
        for f, n in (getattr(p.meta, "dropped", None) or {}).items():
            meta.dropped[f] = meta.dropped.get(f, 0) + int(n)
        for k, v in p.tables.items():
            if "event_id" in v.columns and str(v["event_id"].dtype).lower().startswith("int") and off:
                v = v.assign(event_id=v["event_id"] + int(off))
            tables.setdefault(k, []).append(v)
    return meta, {k: v[0] if len(v) == 1 else pd.concat(v, ignore_index=True) for k, v in tables.items()}
