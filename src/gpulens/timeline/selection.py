"""Selecting part of a trace at load time: profiler steps, a time window, ranks.

``--steps 3:5``, ``--window 10ms:20ms`` and ``--ranks 0-7`` on ``gpulens analyze`` become one :class:`Selection`.
Collectors that can (Kineto) apply it to their columns before any DataFrame is built, and skip whole rank files
without reading them; :meth:`Selection.apply` filters an already built Timeline the same way (cached loads, other
collectors).

Rules (all inclusive of the bounds named, half-open in time):

* **steps** ``A:B`` — the host annotations named ``ProfilerStep#N`` with ``A ≤ N ≤ B`` define time intervals; an event
  is kept when it *starts* inside one of them (host and GPU-side ``ProfilerStep`` annotations both count). GPU work
  (kernels, collectives, copies, sets) is kept when the runtime call that launched it (same ``correlation_id``) is
  kept, wherever it ran on the GPU timeline (GPU work lags its launch); GPU work without a correlation id is kept
  when it starts inside a step.
  ``A:`` and ``:B`` leave a side open; ``N`` alone is ``N:N``. A host event (not GPU work) kept this way ends at the
  latest where its step ends (:meth:`Selection.clip_dur`): the enclosing annotation's tail is not the selection's.
* **window** ``START:END`` — an event is kept when it starts in ``[first + START, first + END)`` where ``first`` is the
  start of the rank's profiled window (:func:`window_origin`: its earliest event, the profiler's own session record
  and other unclassified events excepted) — the origin every ``start (in profiled window)`` figure counts from.
  Units ``ns`` (default), ``us``, ``ms``, ``s``. A kept event that runs past the window's end is cut at it
  (:meth:`Selection.clip_dur`), so no span, window or duration exceeds the selection.
* **ranks** ``0-3,8`` — only these ranks' files are read.
* **side tables** — allocator events (``tables["memory"]``) are kept when their instant lies in the kept time (the
  window, the selected steps: :meth:`Selection.kept_intervals`), tables of event rows follow their events, a rank's
  rows go with its rank (:meth:`Selection.cut_tables`): a memory timeline never reaches outside the selection.
"""

from __future__ import annotations

import dataclasses

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpulens.errors import GpulensError
from gpulens.units import agree, plural

if TYPE_CHECKING:  # numpy and pandas are imported where rows are selected: parsing options stays light
    import numpy as np

_UNITS = {"ns": 1, "us": 1_000, "µs": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
#: The name of a step range (torch.profiler's ``ProfilerStep#N``; PaddlePaddle's profiler writes ``ProfileStep#N``,
#: paddle/fluid/platform/profiler), the one definition every reader uses: N has at most 18 digits, so that it is an
#: int64 (a longer number is no step, an ordinary name: the fuzzer's #99999999999999999999)
STEP_NAME = re.compile(r"^Profiler?Step#([0-9]{1,18})$")
_STEP = STEP_NAME


def window_origin(start: np.ndarray, kind: np.ndarray, instants: np.ndarray | None = None) -> int:
    """The start [ns] of one rank's profiled window: the earliest ``start`` of its rows whose ``kind`` is not
    ``"other"`` (the Kineto session record "PyTorch Profiler (0)" opens before the first event it records, and
    unclassified events are not part of the window either: ``gpulens.analyzers._span``); the earliest start of all
    rows when every row is ``other``. ``kind`` holds kind names (strings) or is a boolean "is other" mask.
    ``instants`` [ns]: the rank's side-table instants (allocator events, :func:`side_instants`) — the profiler
    recorded them, so the window starts no later than the first of them (an allocation before the first op is inside
    the run: its offset is never negative).

    Raises:
        ValueError: ``start`` and ``instants`` are both empty.
    """
    import numpy as np

    start = np.asarray(start)
    other = kind if getattr(kind, "dtype", None) == bool else np.asarray(kind, dtype=object) == "other"
    inside = start[~other]
    first = int(inside.min()) if len(inside) else int(start.min()) if len(start) else None
    if instants is not None and len(instants):
        early = int(np.min(instants))
        first = early if first is None else min(first, early)
    if first is None:
        raise ValueError("no event and no instant: the window has no start")
    return first


def side_instants(tables: dict[str, Any] | None) -> dict[int, np.ndarray]:
    """Per rank, the times [ns, int64] of the instants of a Timeline's side tables that have a ``rank`` and a
    ``time_ns`` column (the allocator's ``memory`` table): the instants :func:`window_origin` counts in."""
    import numpy as np
    import pandas as pd

    out: dict[int, list] = {}
    for df in (tables or {}).values():
        cols = getattr(df, "columns", ())
        if "rank" not in cols or "time_ns" not in cols or not len(df):
            continue
        t = pd.to_numeric(df["time_ns"], errors="coerce")
        ok = (t.notna() & df["rank"].notna()).to_numpy(dtype=bool)
        for r, g in pd.Series(t[ok].astype("int64").to_numpy()).groupby(df["rank"][ok].astype("int64").to_numpy()):
            out.setdefault(int(r), []).append(g.to_numpy("int64"))
    return {r: np.concatenate(v) for r, v in out.items()}


_TIME = re.compile(r"([0-9.eE+-]+)\s*(ns|us|µs|ms|s)?")


def _unit_of(text: str) -> str | None:
    """The unit written after a ``--window`` bound (``"200ms"`` → ``"ms"``); None when bare or unreadable."""
    m = _TIME.fullmatch(text.strip())
    return m.group(2) if m else None


def _parse_time(text: str, unit: str | None = None) -> int | None:
    """One ``--window`` bound in ns; a bare number is in ``unit`` (the other bound's unit), else ns."""
    t = text.strip()
    if not t:
        return None
    m = _TIME.fullmatch(t)
    if not m:
        raise GpulensError(f"--window: cannot read time {text!r} (use ns, or a unit: 1500us, 12.5ms, 2s)")
    try:
        v = float(m.group(1)) * _UNITS[m.group(2) or unit or "ns"]
    except ValueError:
        raise GpulensError(f"--window: cannot read time {text!r} (use ns, or a unit: 1500us, 12.5ms, 2s)") from None
    if not abs(v) < 2.0**63:  # also NaN and inf (1e400ms)
        raise GpulensError(f"--window: time {text!r} is beyond what a trace can hold (±9.2e18 ns)")
    return int(round(v))


_STEP_NUMBER = re.compile(r"[+-]?[0-9]+")


def parse_range(text: str, what: str) -> tuple[int | None, int | None]:
    """``"3:5"`` → (3, 5); ``"3"`` → (3, 3); ``"3:"`` → (3, None); ``":5"`` → (None, 5).

    Raises:
        GpulensError: not two integers around a colon.
    """
    parts = text.split(":")
    # ASCII digits only, as --window and --ranks read them (Python's int() also takes "٣", "３" and "1_0")
    if len(parts) <= 2 and all(_STEP_NUMBER.fullmatch(x.strip()) for x in parts if x.strip()):
        if len(parts) == 1 and parts[0].strip():
            v = int(parts[0])
            return v, v
        if len(parts) == 2:
            return (int(parts[0]) if parts[0].strip() else None, int(parts[1]) if parts[1].strip() else None)
    raise GpulensError(f"{what}: cannot read {text[:80]!r} (expected A:B, A:, :B or N)")


#: Largest rank accepted by ``--ranks`` (a set of ranks is materialised; no job has a million ranks).
MAX_RANK = 1 << 20


def parse_ranks(text: str) -> frozenset[int]:
    """``"0-3,8"`` → {0, 1, 2, 3, 8}.

    Raises:
        GpulensError: empty, a part is not N or A-B, a range is reversed (``3-1``: its end before its start), or a
            rank is beyond :data:`MAX_RANK`; the message quotes the whole text and the part at fault.
    """
    out: set[int] = set()
    whole = text[:80]
    if not text.strip():
        raise GpulensError(f"--ranks: empty ({whole!r}; expected e.g. 0-7 or 0,2,5)")
    for part in text.split(","):
        part = part.strip()
        m = re.fullmatch(r"([0-9]+)(?:-([0-9]+))?", part)
        if not m:
            where = "" if part == text.strip() else f" in {whole!r}"
            what = f"an empty part{where}" if not part else f"{part[:80]!r}{where}"
            raise GpulensError(f"--ranks: cannot read {what} (expected e.g. 0-7 or 0,2,5)")
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if max(lo, hi) > MAX_RANK:
            raise GpulensError(f"--ranks: rank {max(lo, hi)} is beyond the largest supported ({MAX_RANK:,})")
        if hi < lo:  # read as lo..hi it selected ranks nobody asked for, or (one rank run) nothing at all
            raise GpulensError(f"--ranks: the range {part!r} ends before it starts (write the lower rank first: "
                               f"{hi}-{lo})")
        out.update(range(lo, hi + 1))
    return frozenset(out)


def unmatched_ranks_text(ranks: Any, rank_source: str | None = None, where: str = "input") -> str:
    """The hint for a ``--ranks`` selection that matched none of an input's ranks: the ranks it does record and a
    ``--ranks`` value that selects them (``"the input records ranks 0–3: try --ranks 0-3"``). ``ranks``: the ranks
    of the input loaded without a selection; ``rank_source``: where its rank came from (``"none"``: the input names
    no rank and is read as rank 0). A negative rank (Kineto's ``distributedInfo.rank`` of -1: no process group)
    cannot be named by ``--ranks``: the hint says to run without it. ``where``: what holds the ranks (``input``,
    ``directory``)."""
    from gpulens.units import rank_ranges

    rs = sorted({int(r) for r in ranks})
    if not rs:
        return f"the {where} records no rank: run without --ranks"
    if rank_source == "none":
        return f"the {where} names no rank (it is read as rank 0): try --ranks 0, or run without --ranks"
    valid = [r for r in rs if r >= 0]
    head = f"the {where} records rank{'s' if len(rs) > 1 else ''} {rank_ranges(rs)}"
    if not valid:
        return f"{head}, which --ranks cannot name: run without --ranks"
    return f"{head}: try --ranks {rank_ranges(valid).replace('–', '-').replace(', ', ',')}"


@dataclass(frozen=True)
class Selection:
    """What part of each trace to keep (see module docstring). Empty = everything."""

    steps: tuple[int | None, int | None] | None = None
    window_ns: tuple[int | None, int | None] | None = None
    ranks: frozenset[int] | None = None

    @classmethod
    def parse(cls, steps: str | None = None, window: str | None = None, ranks: str | None = None) -> "Selection":
        """Build from the command-line texts (None = not given).

        Raises:
            GpulensError: a text cannot be read, or a window's end is not after its start, or the last step comes
                before the first (each would select nothing, and read as "no GPU work").
        """
        for opt, text, form in (("--steps", steps, "A:B, e.g. 3:5"), ("--window", window, "START:END, e.g. 10ms:20ms")):
            if text is not None and not text.strip():  # given but empty: it silently selected everything
                raise GpulensError(f"{opt}: empty ({text!r}; expected {form})")
        win = None
        if window:
            parts = window.split(":")
            if len(parts) != 2:
                raise GpulensError(f"--window: cannot read {window!r} (expected START:END)")
            # a range's unit written once applies to both bounds, as in "100:200ms" (100 ms to 200 ms — read as
            # 100 ns to 200 ms, it silently kept the run's first 200 ms)
            units = [_unit_of(p) for p in parts]
            win = (_parse_time(parts[0], units[1]), _parse_time(parts[1], units[0]))
            if None not in win and win[1] <= win[0]:  # [START, END): empty or reversed, it would select nothing
                raise GpulensError(f"--window: the end must come after the start ({window[:80]!r})")
        rng = parse_range(steps, "--steps") if steps else None
        if rng is not None and None not in rng and rng[1] < rng[0]:
            raise GpulensError(f"--steps: the last step comes before the first ({steps[:80]!r})")
        return cls(rng, win, parse_ranks(ranks) if ranks is not None else None)

    @property
    def active(self) -> bool:
        """True when anything is filtered out of a trace's events (ranks alone filter whole files)."""
        return self.steps is not None or self.window_ns is not None

    def wants_rank(self, rank: int) -> bool:
        """True when ``rank`` is selected."""
        return self.ranks is None or rank in self.ranks

    def describe(self) -> str:
        """Short text for warnings and metadata (``steps 3:5, window 0 ns to 1000000 ns``; an open window bound
        reads "the start" / "the end", never a dangling ``:`` beside the unit)."""
        out = []
        if self.steps is not None:
            out.append("steps %s:%s" % tuple("" if v is None else v for v in self.steps))
        if self.window_ns is not None:
            lo, hi = self.window_ns
            out.append("window %s to %s" % ("the start" if lo is None else f"{lo} ns",
                                             "the end" if hi is None else f"{hi} ns"))
        if self.ranks is not None:
            out.append("ranks " + ",".join(map(str, sorted(self.ranks))))
        return ", ".join(out)

    def keep_mask(self, start: np.ndarray, dur: np.ndarray, kind: np.ndarray, name: np.ndarray,
                  corr: np.ndarray, corr_ok: np.ndarray, rank: int, instants: np.ndarray | None = None) -> np.ndarray:
        """Boolean mask of rows to keep, from column arrays of one rank (start/dur ns, kind and name strings,
        correlation ids with their validity; ``instants``: the rank's allocator instants, :func:`window_origin`)."""
        import numpy as np

        n = len(start)
        keep = np.ones(n, dtype=bool)
        if not self.wants_rank(rank):
            return np.zeros(n, dtype=bool)
        if self.window_ns is not None and n:
            first = window_origin(start, kind, instants)
            lo, hi = self.window_ns
            if lo is not None:
                keep &= start >= first + lo
            if hi is not None:
                keep &= start < first + hi
        if self.steps is not None:
            in_step = np.zeros(n, dtype=bool)
            for a, b in self._step_intervals(start, dur, kind, name):
                in_step |= (start >= a) & (start < b)
            gpu = np.isin(kind, ("kernel", "comm", "memcpy", "memset"))
            launched = np.isin(corr, corr[in_step & ~gpu & corr_ok]) & corr_ok
            keep &= np.where(gpu, np.where(corr_ok, launched, in_step), in_step)
        return keep

    @staticmethod
    def cut_work(mask: np.ndarray, kind: np.ndarray, corr: np.ndarray, corr_ok: np.ndarray, rank: int) -> Any:
        """The launch calls of one rank whose GPU work :meth:`keep_mask` left out (``mask`` False: a GPU row —
        kernel, comm, memcpy, memset) while it kept the call (a non-GPU row with the same correlation id): the work
        of a call near a ``--window`` end that ran after it — the selection's cut, which the launch accounting must
        not read as work the capture lost (``analyzers.launches.selection_cut_calls``). A DataFrame of ``rank``,
        ``correlation_id`` (int64, unique; no rows when there are none)."""
        import numpy as np
        import pandas as pd

        gpu = np.isin(kind, ("kernel", "comm", "memcpy", "memset"))
        ids = np.intersect1d(corr[gpu & ~mask & corr_ok], corr[~gpu & mask & corr_ok]).astype("int64")
        return pd.DataFrame({"rank": np.full(len(ids), rank, dtype="int64"), "correlation_id": ids})

    def _step_intervals(self, start: np.ndarray, dur: np.ndarray, kind: np.ndarray, name: np.ndarray
                        ) -> list[tuple[int, int]]:
        """The merged [start, end) intervals [ns] of the selected ``ProfilerStep#N`` annotations of one rank."""
        import numpy as np

        lo, hi = self.steps if self.steps is not None else (None, None)
        intervals = []
        for i in np.flatnonzero(kind == "annotation"):
            m = _STEP.match(str(name[i]))
            if not m:
                continue
            k = int(m.group(1))
            if (lo is None or k >= lo) and (hi is None or k <= hi):
                intervals.append((int(start[i]), int(start[i] + dur[i])))
        return _merge(intervals)

    def kept_intervals(self, start: np.ndarray, dur: np.ndarray, kind: np.ndarray, name: np.ndarray,
                       instants: np.ndarray | None = None) -> list[tuple[int, int]] | None:
        """The [start, end) intervals [ns] of one rank's time this selection keeps — the window from its first kept
        event, the selected steps, or where they overlap — from that rank's rows (all of them, before :meth:`keep_mask` filters); None
        when it keeps all of the rank's time. Side-table instants (allocator events) are kept inside them
        (:meth:`cut_tables`), as the events are."""
        if not self.active:
            return None
        far = 1 << 62
        kept = [(-far, far)]
        if self.window_ns is not None and len(start):
            import numpy as np

            first = window_origin(start, kind, instants)
            lo, hi = self.window_ns
            a, b = first + lo if lo is not None else -far, first + hi if hi is not None else far
            inside = (np.asarray(start) >= a) & (np.asarray(start) < b)
            ins = None if instants is None else np.asarray(instants)[(np.asarray(instants) >= a)
                                                                     & (np.asarray(instants) < b)]
            # from the first kept event (or allocator instant) on: the selected Timeline's window starts there (the
            # origin of its offsets)
            kept = [(max(a, window_origin(np.asarray(start)[inside], np.asarray(kind, dtype=object)[inside], ins)),
                     b)] if inside.any() or (ins is not None and len(ins)) else []
        if self.steps is not None:
            steps = self._step_intervals(start, dur, kind, name)
            kept = [(max(a, c), min(b, d)) for a, b in kept for c, d in steps if max(a, c) < min(b, d)]
        return kept

    def cut_tables(self, tables: dict[str, Any], rank: int, intervals: list[tuple[int, int]] | None,
                   remap: dict[int, int] | None = None, first: bool = True) -> dict[str, Any]:
        """One rank's part of a Timeline's side tables under this selection: a table with a ``rank`` column keeps
        that rank's rows, and of those with a ``time_ns`` column the instants inside ``intervals``
        (:meth:`kept_intervals`); a table with an integer ``event_id`` column keeps the rows of kept events,
        renumbered by ``remap`` (old → new id); any other table goes with the ``first`` part only (it is not per
        rank: concatenating the parts would repeat it)."""
        import numpy as np

        out = {}
        for name, df in (tables or {}).items():
            cols = getattr(df, "columns", ())
            if "rank" not in cols and "event_id" not in cols:
                if first:
                    out[name] = df
                continue
            keep = np.ones(len(df), dtype=bool)
            if "rank" in cols:
                keep &= (df["rank"] == rank).to_numpy(dtype=bool, na_value=False)
                if "time_ns" in cols and intervals is not None:
                    keep &= in_intervals(df["time_ns"].to_numpy(dtype="int64", na_value=0), intervals)
            if "event_id" in cols and remap is not None:
                ids = df["event_id"]
                keep &= ids.isin(list(remap)).to_numpy(dtype=bool, na_value=False)
            part = df[keep].reset_index(drop=True)
            if "event_id" in cols and remap is not None:
                part = part.assign(event_id=part["event_id"].map(remap).astype("int64"))
            out[name] = part
        return out

    def clip_dur(self, start: np.ndarray, dur: np.ndarray, kind: np.ndarray, name: np.ndarray,
                 instants: np.ndarray | None = None) -> np.ndarray:
        """Durations [ns] of one rank's rows (all of them, before :meth:`keep_mask` filters) cut to the selection:
        with a window, no event ends after the window's end; with steps, no host event ends after the end of the
        step it starts in (GPU work keeps its whole duration: it lags its launch by design). Rows outside the
        selection are returned unchanged (they are dropped anyway). The input is not modified."""
        import numpy as np

        out = np.asarray(dur, dtype=np.int64).copy()
        start = np.asarray(start, dtype=np.int64)
        if not len(out):
            return out
        if self.window_ns is not None and self.window_ns[1] is not None:
            end = window_origin(start, kind, instants) + self.window_ns[1]
            np.minimum(out, np.maximum(end - start, 0), out=out)
        if self.steps is not None:
            host = ~np.isin(kind, ("kernel", "comm", "memcpy", "memset"))
            for a, b in self._step_intervals(start, dur, kind, name):
                inside = host & (start >= a) & (start < b)
                out[inside] = np.minimum(out[inside], b - start[inside])
        return out

    def apply(self, timeline: Any) -> Any:
        """A new Timeline with only the selected ranks, steps and window (events renumbered, counters follow)."""
        import numpy as np
        import pandas as pd

        from gpulens.timeline import Timeline, concat

        ev = timeline.events
        if not len(ev) or (not self.active and self.ranks is None):
            return timeline
        parts, outside = [], 0
        groups = list(ev.groupby("rank", sort=True))
        if self.ranks is not None and any(self.wants_rank(int(r)) for r, _ in groups):
            # only the selected ranks are cut (the others would each build an empty part: a one-rank check of a
            # 1,000-rank folder cost a second per 20 ranks)
            groups = [(r, g) for r, g in groups if self.wants_rank(int(r))]
        instants = side_instants(timeline.tables)
        for rank, g in groups:
            corr = g["correlation_id"]
            ins = instants.get(int(rank))
            mask = self.keep_mask(g["start_ns"].to_numpy(), g["dur_ns"].to_numpy(),
                                  g["kind"].astype(str).to_numpy(dtype=object),
                                  g["name"].astype(str).to_numpy(dtype=object),
                                  corr.fillna(0).to_numpy(dtype=np.int64), corr.notna().to_numpy(), int(rank), ins)
            kept = g[mask]
            if self.active:
                kept = kept.assign(dur_ns=self.clip_dur(
                    g["start_ns"].to_numpy(), g["dur_ns"].to_numpy(), g["kind"].astype(str).to_numpy(dtype=object),
                    g["name"].astype(str).to_numpy(dtype=object), ins)[mask].astype(g["dur_ns"].dtype))
            old_ids = kept["event_id"].to_numpy()
            co = timeline.counters[timeline.counters["event_id"].isin(old_ids)].copy()
            remap = {int(o): i for i, o in enumerate(old_ids)}
            co["event_id"] = co["event_id"].map(remap).astype("int64")
            sub = kept.copy().reset_index(drop=True)
            sub["event_id"] = np.arange(len(sub), dtype="int64")
            for c in sub.columns:
                if isinstance(sub[c].dtype, pd.CategoricalDtype):
                    sub[c] = sub[c].cat.remove_unused_categories()
            par = sub["parent_id"]
            sub["parent_id"] = par.map(lambda p: remap.get(int(p)) if p is not None and p == p else None) \
                .astype("Int64") if par.notna().any() else par
            rej = timeline.rejected[timeline.rejected["rank"] == rank]
            iv = self.kept_intervals(g["start_ns"].to_numpy(), g["dur_ns"].to_numpy(),
                                     g["kind"].astype(str).to_numpy(dtype=object),
                                     g["name"].astype(str).to_numpy(dtype=object), ins)
            rej, out_n = rejected_inside(rej, iv)
            outside += out_n
            tables = self.cut_tables(timeline.tables, int(rank), iv, remap, first=not parts)
            cut = self.cut_work(mask, g["kind"].astype(str).to_numpy(dtype=object),
                                corr.fillna(0).to_numpy(dtype=np.int64), corr.notna().to_numpy(), int(rank))
            if len(cut):  # launch calls kept whose GPU work the window left out (not lost work)
                prev = tables.get("selection_cut_work")
                tables["selection_cut_work"] = cut if prev is None or not len(prev) else \
                    pd.concat([prev, cut], ignore_index=True)
            parts.append(Timeline(sub, co.reset_index(drop=True), rej.reset_index(drop=True), timeline.meta,
                                  tables=tables))
        if not parts:
            return timeline
        out = concat(parts) if len(parts) > 1 else parts[0]
        out.meta = self.mark(timeline.meta)
        if outside:
            out.meta = dataclasses.replace(out.meta, warnings=[*out.meta.warnings, self.outside_note(
                outside, len(timeline.rejected), "the excluded-event counts above cover the whole input")])
        return out

    def outside_note(self, outside: int, total: int, scope: str) -> str:
        """The warning for ``outside`` of ``total`` refused (invalid) rows that lie outside this selection's time:
        not counted in its figures; ``scope`` says what the collector's own count covers."""
        return (f"selection {self.describe()}: {outside} of the {plural(total, 'invalid event(s)')} excluded {agree(outside, 'lies', 'lie')} "
                f"outside it and "
                f"are left out of its figures ({scope}); {total - outside} inside it or without a usable time")

    def cut_edges(self) -> list[str]:
        """Which edges of each rank's kept time are this selection's rather than the profiler's: ``"start"`` (a
        window starting after the trace's first event, or steps) and ``"end"`` (a window with an end, or steps)."""
        out = []
        if self.steps is not None or (self.window_ns is not None and (self.window_ns[0] or 0) > 0):
            out.append("start")
        if self.steps is not None or (self.window_ns is not None and self.window_ns[1] is not None):
            out.append("end")
        return out

    def mark(self, meta: Any) -> Any:
        """``meta`` (a TimelineMeta) with ``selection`` (:meth:`describe`) and ``selection_cuts``
        (:meth:`cut_edges`) set on each source when this selection cuts time or keeps only some ranks — analyzers
        read them to tell the selection's edges from the profiler's, and an empty result names the selection (a
        copy; ``meta`` is kept)."""
        import dataclasses

        if (not self.active and self.ranks is None) or meta is None:  # --ranks alone is a selection too
            return meta
        return dataclasses.replace(meta, sources=[{**s, "selection": self.describe(), "selection_cuts": self.cut_edges()}
                                                  for s in meta.sources])


def rejected_inside(rej: Any, intervals: list[tuple[int, int]] | None) -> tuple[Any, int]:
    """The refused rows (a ``rejected`` table, or a dict of its columns) that lie inside a selection's kept
    ``intervals`` [ns], and how many lie outside. A row whose start is not recorded or not a time (NA, or 0: the
    "never recorded" placeholder) cannot be placed and is kept; None intervals keep every row."""
    import numpy as np
    import pandas as pd

    frame = rej if isinstance(rej, pd.DataFrame) else None
    n = len(frame) if frame is not None else len(rej["reason"])
    if intervals is None or not n:
        return rej, 0
    st = pd.array(frame["start_ns"] if frame is not None else rej["start_ns"], dtype="Int64")
    vals = st.fillna(0).to_numpy(dtype=np.int64)
    placed = ~np.asarray(pd.isna(st), dtype=bool) & (vals != 0)
    keep = np.ones(n, dtype=bool)
    keep[placed] = in_intervals(vals[placed], intervals)
    out_n = int((~keep).sum())
    if not out_n:
        return rej, 0
    if frame is not None:
        return frame[keep], out_n
    return {k: [v for v, ok in zip(col, keep) if ok] for k, col in rej.items()}, out_n


def in_intervals(times: np.ndarray, intervals: list[tuple[int, int]]) -> np.ndarray:
    """Boolean mask of ``times`` [ns] inside any of the half-open ``intervals``."""
    import numpy as np

    times = np.asarray(times, dtype=np.int64)
    keep = np.zeros(len(times), dtype=bool)
    for a, b in intervals:
        keep |= (times >= a) & (times < b)
    return keep


def _merge(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def window_length(tl: Any) -> int | None:
    """The longest rank's profiled window [ns] of ``tl``: from its :func:`~gpulens.timeline.selection.window_origin`
    to the last end of its events (what ``--window 0:LENGTH`` selects whole); None when there are no events."""
    ev = tl.events
    if ev is None or not len(ev):
        return None
    ranks = ev["rank"] if "rank" in ev else None
    instants = side_instants(getattr(tl, "tables", None))
    out = 0
    for r, g in (ev.groupby(ranks, observed=True) if ranks is not None else [(0, ev)]):
        start = g["start_ns"].to_numpy()
        end = (g["start_ns"] + g["dur_ns"].fillna(0)).to_numpy()
        ins = instants.get(int(r)) if r == r else None
        out = max(out, int(end.max()) - window_origin(start, g["kind"].astype(str).to_numpy(), ins))
    return out or None
