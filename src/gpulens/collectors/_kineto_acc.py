"""Kineto: the accumulator that turns decoded pieces into Timeline columns.

Each piece of events (see :mod:`gpulens.collectors._stream`) is turned into numpy columns at once and its structs
dropped; each column grows piece by piece in a :class:`~._kineto_store.ColumnStore` (appended, never
concatenated). :meth:`Accumulator.finish` takes them, applies a load-time :class:`Selection` and returns plain column
arrays ready for :func:`gpulens.timeline.make_table`. What each event is (category → kind, copy direction, phase)
is decided by the rules of :mod:`._kineto_kinds`; those names are importable from here too.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import msgspec
import numpy as np
import pandas as pd

from gpulens.collectors._numbers import not_recorded
from gpulens.collectors._work_rules import MISSING_TS_OR_DUR, NEVER_CLOSED
from gpulens.collectors._kineto_unended import is_gpu_slice, unended_gpu_rows
from gpulens.collectors._chrome_dialects import PLACED_BY_PROCESS, RPD_JSON
from gpulens.collectors._dialect_place import dialect_texts, number_stream_handles, place_rpd, place_xla
from gpulens.collectors._chrome_json import json_text
from gpulens.collectors._collectives import collective_table
from gpulens.collectors._kineto_grid import fix_rocm_grid
from gpulens.collectors._kineto_kinds import (  # noqa: F401  (CATEGORY_KIND... importable from here)
    _COPY_KIND_RE, _K, _OTHER_PHASES, CATEGORY_KIND, GPU_CATEGORIES, GPU_KIND_TABLE, KIND_LIST, _codes_to_cat,
    _has_other, _unknown_phases, category_key, copy_kind_of, kind_of)
from gpulens.collectors._kineto_ranks import event_ranks, rank_in_label
from gpulens.collectors._kineto_columns import (Dictionary, _codes_to_named_cat, fits_int32, int_array,  # noqa: F401
                                                nullable, take, us_text_to_ns)
from gpulens.collectors._kineto_rows import EventRows, scatter
from gpulens.collectors._kineto_store import ColumnStore
from gpulens.collectors._paddle_times import exact_starts
from gpulens.collectors._zero_ts import ZERO_TS_GAP_RATIO, zero_ts_placeholders  # noqa: F401  (importable here)
from gpulens.timeline.selection import Selection, in_intervals

_META_NAMES = ("process_name", "thread_name")
#: c10::DeviceType of the host in ``[memory]`` events
CPU_DEVICE_TYPE = 0
UNNAMED = "(unnamed)"
_SILENT_OTHER = {"trace"}  # the profiler's own span "PyTorch Profiler (0)"
_KINETO_COUNTERS = (("blocks_per_sm", "kineto.blocks_per_sm"), ("warps_per_sm", "kineto.warps_per_sm"),
                    ("est_occupancy", "kineto.est_achieved_occupancy_pct"))
_INT_FIELDS = ("pid", "tid", "device", "stream", "corr", "ext", "grid_x", "grid_y", "grid_z", "block_x", "block_y",
               "block_z", "regs", "smem", "bytes", "rank")
#: the accumulator's other columns and their dtypes (codes of its dictionaries are int32, as they encode them)
_PLAIN = (("kind", np.int8), ("name", np.int32), ("start", np.int64), ("dur", np.int64), ("nocat", bool),
          ("flops", np.float64), ("dims", np.int32), ("types", np.int32), ("conc", np.int32), ("copy", np.int32))


class Accumulator:
    """Columns of the ``X`` events seen so far (see module docstring)."""

    def __init__(self) -> None:
        self.names = Dictionary()
        self.cats = Dictionary()
        self.dims = Dictionary()
        self.types = Dictionary()
        self.conc = Dictionary()
        self.copy = Dictionary()
        self.columns = {key: ColumnStore(dtype) for key, dtype in _PLAIN}  # the accepted rows' columns
        # values, valid; the launch resources the Timeline stores as Int32 are held as int32 while they fit
        self.nullable = {key: (ColumnStore(np.int32 if key in _NARROW_KEYS else np.int64), ColumnStore(bool))
                         for key in _INT_FIELDS}
        self.rejected: list[dict[str, Any]] = []
        self.counters: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # per piece: (row numbers, _KINETO_COUNTERS index (int8), value), in (row, metric) order
        self.ignored: dict[str, int] = {}
        self.copies_by_launcher = 0  # kernel records made copies/fills by their launching call (_copies_by_launcher)
        self.begin_end: list = []  # B/E events until close_begin_end pairs them
        self.paired = self.unended = self.unopened = self.unended_gpu = 0
        self.unknown_phase = 0  # events whose ph is no Trace Event Format phase: dropped, counted
        self.unknown_phase_seen: set[str] = set()
        self.bad_ids: dict[str, int] = {}  # numbers that are no int64 (2^64, 1e30, nan) per field: read as unknown
        self.process_names: dict[int, str] = {}  # pid → process_name metadata
        self.thread_names: dict[tuple[int, int], str] = {}  # (pid, tid) → thread_name metadata
        self.comm_ranks: set[int] = set()  # `Rank` values of record_param_comms events
        self.rank_encodings: list[str] = []
        self.grid_fixes: dict[str, int] = {}
        self.collectives: list[tuple[np.ndarray, list]] = []  # (row numbers, Args) of events with collective args
        self.paddle_rel: list[tuple[np.ndarray, np.ndarray]] = []  # (row numbers, ns) of Paddle's args.start_time
        self.collective_table = None  # tables["collectives"] built by finish()
        self.kept_time: dict[int, Any] = {}  # rank → the time a selection keeps (Selection.kept_intervals), by finish()
        self.cut_work = None  # tables["selection_cut_work"] (Selection.cut_work per rank), by finish()
        self.desc: dict[int, str] = {}  # row → rpd2tracing args.desc
        self.tf_kernel: dict[int, str] = {}  # row → a TensorFlow timeline op's args.kernel (ROCm: the kernel name)
        self.kernel_details: dict[int, str] = {}  # row → XLA kernel_details text  # ROCm grid conversions by rule (see _kineto_grid)  # per-event rank encodings found by finish()
        self.missing_cat: set[str] = set()  # {""} once an X event without a category was seen
        self.count = 0  # X events seen (accepted + rejected)
        # name code + 1 → kind code of a kernel of that name (kind_of, memoised; -1: not classified yet)
        self._kernel_kind = np.zeros(0, dtype=np.int8)
        self.rows = 0  # accepted rows so far
        self.memory: list[tuple] = []  # [memory] instant events: (raw ts, device type, device id, alloc, reserved, bytes)

    def add(self, events: Any) -> None:
        """Turn one piece of events into columns: a list of decoded events (``M`` process/thread names are kept as
        metadata; ``[memory]`` instant events go to :meth:`memory_table`) or a piece read by the byte scanner
        (:class:`gpulens.collectors._kineto_fast.ScannedPiece`: its ``X`` events only)."""
        rows = getattr(events, "rows", None)
        if rows is not None:
            self._add_rows(rows())
            events.release()  # its columns are made: the scanner's matrices serve the next piece
            return
        xs = [e for e in events if e.ph == "X"]
        if len(xs) != len(events):
            if _has_other(events):
                self._add_other([e for e in events if e.ph in _OTHER_PHASES])
            odd = _unknown_phases(events)
            if odd:  # not read, and not a phase skipped by design: counted (kineto.py warns)
                self.unknown_phase += len(odd)
                self.unknown_phase_seen.update(repr(p)[:12] for p in odd[:8])
        if xs:
            self._add_rows(EventRows(xs))

    def _kernel_kinds(self, codes: np.ndarray) -> np.ndarray:
        """The kind code (int8) of each kernel row by its name code (-1: no name): each name's rules
        (:func:`~gpulens.collectors._kineto_kinds.kind_of`) run once per trace, when its code is first seen — a
        name keeps its code across pieces — and the rows take their kinds from a table by code (no sort of each
        piece's name codes)."""
        table = self._kernel_kind
        if len(table) < len(self.names.values) + 1:
            table = self._kernel_kind = np.concatenate(
                [table, np.full(len(self.names.values) + 1 - len(table), -1, dtype=np.int8)])
        got = table[codes + 1]
        todo = codes[got < 0]
        if len(todo):
            for u in np.unique(todo).tolist():
                table[u + 1] = _K[kind_of("kernel", self.names.text(u))]
            got = table[codes + 1]
        return got

    def _add_rows(self, src: Any) -> None:
        """The columns of the ``X`` events of one row source (:class:`~._kineto_rows.EventRows` or
        :class:`~._kineto_fast.ScannedRows`: same calls, same results)."""
        self.count += src.n
        name_c = src.name_codes(self.names)
        cat_c = src.cat_codes(self.cats)
        low = [category_key(c) for c in self.cats.values]  # kind per category (non-text: "")
        cat_kind = np.array([_K[CATEGORY_KIND.get(c, "other")] for c in low], dtype=np.int8)  # none (-1): other
        cat_gpu = np.array([c in GPU_CATEGORIES for c in low], dtype=bool)
        kind = take(cat_kind, cat_c, _K["other"]).astype(np.int8)
        nocat = take(np.array([c == "" for c in low], dtype=bool), cat_c, True).astype(bool)
        if nocat.any():
            self.missing_cat.add("")
        kern = np.flatnonzero(kind == _K["kernel"])
        if len(kern):
            kind[kern] = self._kernel_kinds(name_c[kern])
        ts, ts_ok, dur, dur_ok = src.times()
        reason = np.full(len(ts), -1, dtype=np.int8)
        if (ts_ok & dur_ok & (ts <= 0)).any():  # the scan only for a piece with a ts 0 (or below)
            unset = zero_ts_placeholders(ts, dur, ts_ok & dur_ok, blank=kind <= _K["memset"])  # GPU kinds
            reason[unset] = np.where(ts[unset] < 0, 4, 2)
        reason[ts_ok & dur_ok & (dur < 0)] = 1
        reason[~(ts_ok & dur_ok)] = 0
        for col, ok in (("ts", ts_ok), ("dur", dur_ok)):  # recorded but no number within int64 ns: unreadable
            for i in np.flatnonzero(~ok):  # (absent, null, "nan", "n/a": not recorded, as in every collector)
                if not not_recorded(src.time_text(col, i)):
                    reason[i] = 3
        bad = np.flatnonzero(reason >= 0)
        good = None
        if len(bad):
            self.rejected.append({"kind": kind[bad], "name": [_str(src.name_value(i)) for i in bad],
                                  "corr": src.corr_values(bad), "ts": ts[bad],
                                  "ts_ok": ts_ok[bad], "dur": dur[bad], "dur_ok": dur_ok[bad], "reason": reason[bad]})
            good = np.flatnonzero(reason < 0)
            name_c, cat_c, kind, ts, dur = name_c[good], cat_c[good], kind[good], ts[good], dur[good]
            nocat = nocat[good]
        src.keep(good)
        n = src.n
        if not n:
            return
        other = kind == _K["other"]
        if other.any():
            for c, cnt in zip(*np.unique(cat_c[other], return_counts=True)):
                label = low[c] if c >= 0 else ""
                if label not in _SILENT_OTHER:
                    self.ignored[label or "(none)"] = self.ignored.get(label or "(none)", 0) + int(cnt)
        gi = np.flatnonzero(take(cat_gpu, cat_c, False).astype(bool))
        src.set_gpu(gi)
        col: dict[str, Any] = {"kind": kind, "name": name_c, "start": ts, "dur": dur, "nocat": nocat}

        def ids(key: str, label: str = "", rows: Any = None, gpu: bool = False) -> tuple[np.ndarray, np.ndarray]:
            got: list[int] = []  # ids, counting the values that are numbers but no int64
            out = src.ids(key, rows, gpu, got)
            if got and got[0]:
                self.bad_ids[label] = self.bad_ids.get(label, 0) + got[0]
            return out

        col["pid"] = ids("pid", "pid")
        col["tid"] = ids("tid", "tid")
        col["corr"] = ids("correlation", "correlation")
        col["ext"] = ids("external_id", "External id")
        col["flops"] = src.floats("flops")
        col["dims"] = src.text_codes(self.dims, "input_dims")
        col["types"] = src.text_codes(self.types, "input_type")
        col["conc"] = src.text_codes(self.conc, "concrete_inputs")
        dev, dev_ok = ids("device", "device", gi, True)
        pid, pid_ok = col["pid"]
        self.devless = getattr(self, "devless", False) or not dev_ok.all()  # a GPU row's device is its pid
        dev = np.where(dev_ok, dev, np.where(pid_ok[gi], pid[gi], 0))
        device = np.full(n, -1, dtype=np.int64)
        device[gi] = dev
        col["device"] = (device, np.ones(n, dtype=bool))
        st, st_ok = ids("stream", "stream", gi, True)
        tid, tid_ok = col["tid"]
        col["stream"] = scatter(n, gi, np.where(st_ok, st, tid[gi]), st_ok | tid_ok[gi])
        for key, pair in zip(("grid_x", "grid_y", "grid_z"), src.dim3("grid")):  # kernels' and ROCm calls' launches
            col[key] = pair
        for key, pair in zip(("block_x", "block_y", "block_z"), src.dim3("block")):
            col[key] = pair
        col["regs"] = ids("registers", "registers per thread")
        col["smem"] = ids("shared_memory", "shared memory")
        col["rank"] = ids("rank", "rank")
        labels = src.pid_labels()
        if labels is not None:  # fused traces may label pids "RANK 2 - GPU 4"
            labelled = rank_in_label(labels)
            r_val, r_ok = col["rank"]
            take_label = labelled[1] & ~r_ok
            col["rank"] = (np.where(take_label, labelled[0], r_val), r_ok | take_label)
        rc = ids("rank_comms")
        if rc[1].any():
            self.comm_ranks.update(np.unique(rc[0][rc[1]]).tolist())
        gk = kind[gi]
        bi = gi[(gk == _K["memcpy"]) | (gk == _K["memset"]) | (gk == _K["comm"])]
        col["bytes"] = scatter(n, bi, *ids("bytes", "bytes", bi, True))
        copy = np.full(n, -1, dtype=np.int32)
        ci = gi[gk == _K["memcpy"]]
        if len(ci):
            kinds = []
            for i, k in zip(ci, src.values("kind", ci, True)):
                ck = k if isinstance(k, str) and _COPY_KIND_RE.fullmatch(k) else None
                if ck is None:
                    ck = copy_kind_of(self.names.text(name_c[i]))
                kinds.append(ck)
            copy[ci] = self.copy.encode(kinds)
        col["copy"] = copy
        ki = gi[gk == _K["kernel"]]
        if len(ki):  # rows in (event, metric) order, as the Counters table keeps them: no sort of them all at the end
            vals = np.stack([src.floats(attr, ki, True) for attr, _ in _KINETO_COUNTERS], axis=1)  # kernel × metric
            have = ~np.isnan(vals).ravel()
            if have.any():
                m = len(_KINETO_COUNTERS)
                self.counters.append((np.repeat(ki + self.rows, m)[have],
                                      np.tile(np.arange(m, dtype=np.int8), len(ki))[have], vals.ravel()[have]))
        dialect_texts(self, src, nocat, take(np.array([c == "op" for c in low], dtype=bool), cat_c, False))
        ci, cargs = src.collectives()
        if len(ci):  # collective metadata (record_param_comms, NCCL kernels): kept beside the events
            self.collectives.append((ci.astype(np.int64) + self.rows, cargs))
        if (pt := getattr(src, "start_args", None)) and (got := pt()) is not None:  # PaddlePaddle's exact starts
            self.paddle_rel.append((got[0] + self.rows, got[1]))
        self.rows += n
        for key, store in self.columns.items():
            store.append(col[key])
        for key, (values, valid) in self.nullable.items():
            v, ok = col[key]
            v = v if ok.all() else np.where(ok, v, 0)  # 0 where unknown, whatever the source left there
            if values.dtype == np.int32 and not fits_int32(v):
                values.widen(np.int64)  # a value beyond int32: the column is int64 from now on, as before
            values.append(v)
            valid.append(ok)

    def close_begin_end(self) -> None:
        """Pair the ``B``/``E`` events seen (:meth:`_add_other`) into complete events and add them as one more piece.

        Trace Event Format: an ``E`` ends the latest open ``B`` of the same (pid, tid); slices nest. Events are
        paired in time order per thread; the duration is ``E.ts − B.ts`` computed exactly on the decimal text (the
        ``B`` gives name, category and args). A ``B`` never ended is **not** extended to the end of the trace
        (B04 of ../shared/cases: "B-events without E-events must not be extended"): it is dropped and counted in
        :attr:`unended`; an ``E`` with no open ``B`` in :attr:`unopened` — except a ``B`` left open and such an ``E`` at
        the same instant on its thread (both at ``ts`` 0, never recorded): one zero-length slice, judged by its
        timestamp as every event is (a ``ts`` 0 placeholder is excluded as "zero timestamp (never recorded)")."""
        from decimal import Decimal, InvalidOperation

        from gpulens.collectors._kineto_columns import RawEvent

        be, self.begin_end = self.begin_end, []
        if not be:
            return

        def when(e: Any) -> Decimal | None:
            try:
                d = Decimal(bytes(e.ts).decode().strip())
            except (InvalidOperation, UnicodeDecodeError, ValueError, TypeError):
                return None
            return d if d.is_finite() else None

        threads: dict[str, list] = {}
        for i, e in enumerate(be):
            t = when(e)
            if t is None:
                self.unended += e.ph == "B"
                continue
            threads.setdefault(repr((e.pid, e.tid)), []).append((t, 0 if e.ph == "E" else 1, i, e))
        out, open_gpu = [], []
        for evs in threads.values():
            stack: list = []
            early: dict[Decimal, int] = {}  # E events with no open B, by instant
            for t, _, _, e in sorted(evs, key=lambda x: (x[0], x[1], x[2])):  # an E at the same instant first
                if e.ph == "B":
                    stack.append((t, e))
                elif stack:
                    t0, b = stack.pop()
                    out.append(RawEvent(cat=b.cat, name=b.name, pid=b.pid, tid=b.tid, ts=b.ts, args=b.args,
                                        dur=msgspec.Raw(format(t - t0, "f").encode()), ph="X"))
                else:
                    early[t] = early.get(t, 0) + 1
            for t, b in stack:  # a B left open and an E without a B at its instant (both unset: ts 0): one
                if early.get(t):  # zero-length slice, judged by its timestamp as any event (a ts 0 placeholder
                    early[t] -= 1  # is excluded as such), never "a begin never ended and an end without a begin"
                    out.append(RawEvent(cat=b.cat, name=b.name, pid=b.pid, tid=b.tid, ts=b.ts, args=b.args,
                                        dur=msgspec.Raw(b"0"), ph="X"))
                elif is_gpu_slice(b):  # GPU work with a start and no end: an untimed launch (_kineto_unended)
                    open_gpu.append((t, b))
                else:
                    self.unended += 1
            self.unopened += sum(early.values())
        self.paired += len(out)
        if open_gpu:
            self.unended_gpu += len(open_gpu)
            self.rejected.append(unended_gpu_rows(open_gpu))
        if out:
            self.add(out)

    def _add_other(self, events: list) -> None:
        """``M`` process/thread names and ``[memory]`` instant events of one piece; ``B``/``E`` events are kept for
        :meth:`close_begin_end`."""
        self.begin_end += [e for e in events if e.ph in ("B", "E")]
        self.memory += [(e.ts, a.device_type, a.device_id, a.total_allocated, a.total_reserved, a.mem_bytes)
                        for e in events if e.ph in ("i", "I") and e.name == "[memory]" and (a := e.args) is not None]
        for e in events:
            if e.ph == "M" and e.name in _META_NAMES and e.args is not None and isinstance(e.args.name, str):
                ids, ok = int_array([e.pid, e.tid])
                if not ok[0]:
                    continue
                if e.name == "process_name":
                    self.process_names[int(ids[0])] = e.args.name
                elif ok[1]:
                    self.thread_names[(int(ids[0]), int(ids[1]))] = e.args.name

    def memory_table(self, base_ns: int, rank: int) -> pd.DataFrame | None:
        """The ``[memory]`` instant events as a side table (None when there are none; with a selection, those inside
        the time it keeps, :meth:`finish` first): ``time_ns`` [ns, Timeline clock], ``rank``, ``device_type`` (Kineto's c10 DeviceType: 0 CPU, 1 CUDA — also ROCm builds —), ``device_id``
        (−1 for the host), ``allocated_bytes`` / ``reserved_bytes`` (the allocator's totals after the event) and
        ``delta_bytes`` (+ allocation, − free), in file order. The CPU allocator keeps no reserved total: PyTorch's
        ``ProfiledCPUMemoryReporter`` writes ``Total Reserved`` 0 on every CPU event (c10/core/CPUAllocator.cpp), so
        a CPU event's 0 is no figure — unknown (NaN), not 0 bytes reserved."""
        if not self.memory:
            return None
        ts, ok = us_text_to_ns([m[0] for m in self.memory])

        def num(j: int) -> np.ndarray:
            return np.array([float(m[j]) if isinstance(m[j], (int, float)) else np.nan for m in self.memory])

        out = pd.DataFrame({"time_ns": ts[ok] + base_ns, "rank": np.full(int(ok.sum()), rank, dtype=np.int64),
                            "device_type": num(1)[ok], "device_id": num(2)[ok], "allocated_bytes": num(3)[ok],
                            "reserved_bytes": num(4)[ok], "delta_bytes": num(5)[ok]})
        out.loc[(out["device_type"] == CPU_DEVICE_TYPE) & (out["reserved_bytes"] == 0), "reserved_bytes"] = np.nan
        if self.kept_time:  # a selection: only the allocator events inside the kept time (as finish() kept events)
            only = next(iter(self.kept_time.values())) if len(self.kept_time) == 1 else []
            iv = self.kept_time.get(rank, only)
            out = out[in_intervals(out["time_ns"].to_numpy(), iv)].reset_index(drop=True) if iv is not None else out
        return out

    def finish(self, base_ns: int, rank: int, select: Selection | None, dialect: Any = None,
               rocm: tuple[bool, str | None] = (False, None)):
        """Take the accumulated columns; return (event columns, rejected columns, counter columns, ignored categories).

        Args:
            dialect: a :class:`~gpulens.collectors._chrome_dialects.Dialect`; for ``xla-gpu`` the events without a
                category on GPU processes become GPU work (see that module).
            rocm: (ROCm trace, rocprofiler-sdk convention: :func:`._kineto_grid.sdk_convention`): grid sizes are
                converted to workgroups (:mod:`._kineto_grid`); the counts are in ``self.grid_fixes``.
        """
        from gpulens.timeline.schema import KINDS

        def cat(key: str) -> np.ndarray:  # one column's values (a view of its store, no copy)
            return self.columns.pop(key).finish()

        # launch resources the Timeline stores as Int32 are made int32 here when every value fits (what
        # timeline.narrow_int32 would do later, without its int64 copy), unless XLA / ROCm rules edit them below
        narrow = not rocm[0] and not (dialect is not None and dialect.producer in (*PLACED_BY_PROCESS, RPD_JSON))

        own_masks: dict[int, np.ndarray] = {}

        def pair(key: str, small: bool = False) -> tuple[np.ndarray, np.ndarray]:  # nullable → (values, valid)
            values, valid = (store.finish() for store in self.nullable.pop(key))
            own_masks[id(valid)] = valid  # the store's own buffer: turned into the missing-value mask in place
            if values.dtype == np.int32:  # held as int32 (every value fits): int64 where the rules below need it
                return (values if small else values.astype(np.int64)), valid
            return (values.astype(np.int32) if small and fits_int32(values) else values), valid

        kind = cat("kind").astype(np.int8, copy=False)
        start = cat("start")
        late = self._late_zero_ts(kind, start, self.columns["dur"].finish(), self.columns["name"].finish(),
                                  self.nullable["corr"])
        self.paddle_exact = exact_starts(start, self.paddle_rel)  # ts cut to whole µs → ns (_paddle_times)
        if base_ns and len(start) and not (-(1 << 63) <= int(start.min()) + base_ns
                                           and int(start.max()) + base_ns < (1 << 63)):
            self.base_ignored, base_ns = base_ns, 0  # would wrap int64: times stay relative (kineto.py warns)
        start = start + base_ns if base_ns else start
        dur = cat("dur")
        name = cat("name")  # int32 dictionary codes, used as they are (no int64 copy of every row)
        nocat = cat("nocat")
        if (name < 0).any():  # an event without a name keeps a visible placeholder, never NaN or another's name
            name[name < 0] = self.names.encode([UNNAMED])[0]
        copy = cat("copy")
        corr = pair("corr")
        ints = {key: pair(key, narrow and key in _NARROW_KEYS)
                for key in ("pid", "tid", "device", "stream", "grid_x", "grid_y", "grid_z", "block_x", "block_y",
                            "block_z", "regs", "smem", "bytes")}
        if dialect is not None and dialect.producer in PLACED_BY_PROCESS:
            place_xla(dialect, self.kernel_details, self.names, self.copy, kind, name, nocat, copy, ints, self.ignored,
                      self.tf_kernel)
        elif dialect is not None and dialect.producer == RPD_JSON:
            self.rpd_other = place_rpd(dialect.gpu_pids, self.desc, self.names, self.copy, kind, name, nocat, copy,
                                       ints)
            self.ignored.pop("", None)
            self.ignored.pop("(none)", None)
        self._copies_by_launcher(kind, name, corr, ints["grid_x"][1] | ints["block_x"][1])
        is_gpu = GPU_KIND_TABLE[kind.view(np.uint8)]  # np.isin(kind, GPU kinds) by a 256-entry table
        self.stream_handles = number_stream_handles(ints["stream"], is_gpu)
        if rocm[0]:
            grid_cols, block_cols = [ints[f"grid_{a}"] for a in "xyz"], [ints[f"block_{a}"] for a in "xyz"]
            self.grid_fixes = fix_rocm_grid(np.flatnonzero(is_gpu), grid_cols, block_cols, rocm[1],
                                            self._launched_by_ext_module(kind, name, corr, is_gpu))
            # the runtime calls that carry the launch (hipLaunchKernel, hipExtModuleLaunchKernel) record it in the
            # same units as their kernels: converted by the same rules (a call is its own launcher)
            rt = np.flatnonzero(kind == _K["runtime"])
            if len(rt):
                ext_names = np.array([isinstance(v, str) and v.startswith("hipExtModuleLaunchKernel")
                                      for v in self.names.values] + [False], dtype=bool)
                fix_rocm_grid(rt, grid_cols, block_cols, rocm[1], ext_names[name])
        ranks = event_ranks(len(kind), rank, pair("rank"), ints["pid"], corr, is_gpu, ints["device"][0],
                            self.process_names, (ints["tid"], kind, nocat) if getattr(self, "devless", 0) else None,
                            getattr(dialect, "pid_rank", None))
        self.rank_encodings, self.host_track_gpu = ranks.encodings, ranks.host_track_gpu
        if ranks.device_fix is not None:
            ints["device"][0][ranks.device_fix[0]] = ranks.device_fix[1]
        keep = None if late is None else ~late
        if select is not None and select.active:
            kind_names = np.array(KIND_LIST, dtype=object)
            kinds_s = kind_names[kind] if len(kind) else np.zeros(0, dtype=object)
            names_s = take(np.array(self.names.values, dtype=object), name, None) if len(name) else \
                np.zeros(0, dtype=object)
            placeholders, keep = keep, np.zeros(len(kind), dtype=bool)
            cuts: list[pd.DataFrame] = []
            mem_ts, mem_ok = us_text_to_ns([m[0] for m in self.memory]) if self.memory else (None, None)
            for r in np.unique(ranks.rank) if len(kind) else []:  # steps and windows are per rank
                rows = ranks.rank == r
                # the allocator events are the file's rank's (memory_table): they count in its window's start
                ins = mem_ts[mem_ok] + base_ns if mem_ts is not None and int(r) == rank else None
                keep[rows] = select.keep_mask(start[rows], dur[rows], kinds_s[rows], names_s[rows], corr[0][rows],
                                              corr[1][rows], int(r), ins)
                self.kept_time[int(r)] = select.kept_intervals(start[rows], dur[rows], kinds_s[rows], names_s[rows],
                                                               ins)
                cuts.append(select.cut_work(keep[rows], kinds_s[rows], corr[0][rows], corr[1][rows], int(r)))
                dur[rows] = select.clip_dur(start[rows], dur[rows], kinds_s[rows], names_s[rows], ins)
            cuts = [c for c in cuts if len(c)]
            self.cut_work = pd.concat(cuts, ignore_index=True) if cuts else None
            if placeholders is not None:
                keep &= placeholders
        sel = (lambda a: a[keep] if keep is not None else a)
        kind_vals = [k for k in KIND_LIST if k in KINDS]
        cols: dict[str, Any] = {
            "kind": _codes_to_cat(sel(kind), kind_vals),
            "name": self.names.categorical(sel(name), _str),
            "start_ns": sel(start), "dur_ns": sel(dur), "rank": sel(ranks.rank),
            "device_id": sel(ints["device"][0]),
            "flops": sel(cat("flops")),
            "copy_kind": self.copy.categorical(sel(copy)),
            # one spelling per value, whichever path read it (json_text: once per distinct text, never per event)
            "input_dims": self.dims.categorical(sel(cat("dims")), json_text),
            "input_types": self.types.categorical(sel(cat("types")), json_text),
            "concrete_inputs": self.conc.categorical(sel(cat("conc")), json_text),
        }
        pairs = {dst: corr if key == "corr" else ints[key] if key in ints else pair(key) for dst, key in (
            ("pid", "pid"), ("tid", "tid"), ("stream_id", "stream"), ("correlation_id", "corr"), ("external_id", "ext"),
            ("grid_x", "grid_x"), ("grid_y", "grid_y"), ("grid_z", "grid_z"), ("block_x", "block_x"),
            ("block_y", "block_y"), ("block_z", "block_z"), ("regs_per_thread", "regs"),
            ("smem_static_bytes", "smem"), ("bytes", "bytes"))}
        uses = Counter(id(ok) for _, ok in pairs.values())
        for dst, (v, ok) in pairs.items():
            # a valid mask read by nothing else now (a store's own buffer, one column's, or a selection's copy)
            # becomes the missing-value mask in place: no new 3M-row mask per column at 1M kernels
            mine = keep is not None or (own_masks.get(id(ok)) is ok and uses[id(ok)] == 1)
            v, ok = sel(v), sel(ok)
            missing = np.logical_not(ok, out=ok) if mine else ~ok
            # Int64 (Int32 when held so: values 0 where unknown, as narrow_int32 makes)
            cols[dst] = pd.arrays.IntegerArray(v if v.dtype == np.int32 else v.astype(np.int64, copy=False), missing)
        del pairs
        # counters: event ids follow the kept rows
        ev, met, val = [], [], []
        new_id = np.cumsum(keep) - 1 if keep is not None else None
        metric_names = [m for _, m in _KINETO_COUNTERS]
        for rows, mcodes, v in self.counters:  # each piece's rows in (event, metric) order, the pieces in row order
            if keep is not None:
                k = keep[rows]
                rows, mcodes, v = new_id[rows[k]], mcodes[k], v[k]
            ev.append(rows)
            met.append(mcodes)
            val.append(v)
        if ev:
            mcodes = np.concatenate(met)
            units = ["" if m.endswith("per_sm") else "%" for m in metric_names]
            cnt = {"event_id": np.concatenate(ev), "metric": _codes_to_named_cat(mcodes, metric_names),
                   "value": np.concatenate(val), "unit": _codes_to_named_cat(mcodes, units)}
        else:
            cnt = {"event_id": np.zeros(0, dtype=np.int64), "metric": [], "value": np.zeros(0), "unit": []}
        self.collective_table = collective_table(self.collectives, keep, new_id)
        rej = {"kind": [], "name": [], "start_ns": [], "dur_ns": [], "reason": [], "correlation_id": []}
        reasons = (MISSING_TS_OR_DUR, "negative duration (unfinished or corrupt event)",
                   "zero timestamp (never recorded)", "unreadable ts or dur (not a number, or beyond int64 ns)",
                   "negative timestamp far before the others (never recorded)", NEVER_CLOSED)
        for r in self.rejected:
            rej["kind"] += [KIND_LIST[k] for k in r["kind"]]
            rej["name"] += r["name"]
            rej["start_ns"] += [int(t) + base_ns if ok else None for t, ok in zip(r["ts"], r["ts_ok"])]
            rej["dur_ns"] += [int(d) if ok else None for d, ok in zip(r["dur"], r["dur_ok"])]
            rej["reason"] += [reasons[x] for x in r["reason"]]
            rej["correlation_id"] += r["corr"]
        return cols, rej, cnt, self.ignored


    def _late_zero_ts(self, kind: np.ndarray, start: np.ndarray, dur: np.ndarray, name: np.ndarray,
                      corr: tuple[Any, Any]) -> np.ndarray | None:
        """Mask of the accepted rows whose ``ts == 0`` is a placeholder once the whole file is seen (None when there
        is none), each moved to :attr:`rejected` (reason 2, "zero timestamp (never recorded)"; 4 for a negative one).

        :meth:`_add_rows` judges a ``ts`` of 0 among the events of its own piece (:func:`zero_ts_placeholders`); a
        piece holding only such events — 1,200 ``ts 0`` kernels of pytorch/kineto#109 after the first 8 MiB of a
        trace, or before its first real event — has no real timestamp to judge them by and kept them, stretching the
        GPU span to ~51 years. Here the same rule runs over every accepted row of the file (``start``: raw ``ts``
        [ns] before ``baseTimeNanoseconds``; ``dur`` [ns]; ``name`` codes; ``corr``: the nullable stores).
        """
        zero = start <= 0
        if not zero.any() or zero.all():
            return None
        dur = np.asarray(dur)
        late = zero_ts_placeholders(start, dur, np.ones(len(start), dtype=bool), blank=np.asarray(kind) <= _K["memset"])
        if not late.any():
            return None
        rows = np.flatnonzero(late)
        cv, cok = (store.finish()[rows] for store in corr)  # finish(): a view; cat()/pair() take it again
        self.rejected.append({"kind": kind[rows], "name": [_str(self.names.text(int(c))) for c in np.asarray(name)[rows]],
                              "corr": [int(v) if ok else None for v, ok in zip(cv, cok)], "ts": start[rows],
                              "ts_ok": np.ones(len(rows), dtype=bool), "dur": dur[rows],
                              "dur_ok": np.ones(len(rows), dtype=bool),
                              "reason": np.where(start[rows] < 0, 4, 2).astype(np.int8)})
        return late

    def _copies_by_launcher(self, kind: np.ndarray, name: np.ndarray, corr: tuple[np.ndarray, np.ndarray],
                            geometry: np.ndarray) -> None:
        """``kernel`` rows without a launch geometry (no grid, no block) whose launching runtime call (same
        correlation id) is a copy / fill API (:data:`gpulens.timeline.names.COPY_API_RE`, ``FILL_API_RE``) become
        ``memcpy`` / ``memset``, in place: the B12 kind — a copy recorded under the kernel category with a name no
        rule knows (pytorch/kineto PR#1295). A kernel with a grid is a kernel whatever called it."""
        cand = (kind == _K["kernel"]) & corr[1] & ~geometry
        rt = (kind == _K["runtime"]) & corr[1]
        if not cand.any() or not rt.any():
            return
        from gpulens.timeline.names import COPY_API_RE, FILL_API_RE

        to = {c: _K["memcpy"] if COPY_API_RE.match(v) else _K["memset"] for c, v in enumerate(self.names.values)
              if isinstance(v, str) and (COPY_API_RE.match(v) or FILL_API_RE.match(v))}
        if not to:
            return
        launcher = pd.Series(name[rt], index=corr[0][rt])
        launcher = launcher[~launcher.index.duplicated(keep=False)]  # an id of several calls names none
        gi = np.flatnonzero(cand)
        new = launcher.reindex(corr[0][gi]).map(to).to_numpy(dtype=float)
        hit = ~np.isnan(new)
        kind[gi[hit]] = new[hit].astype(np.int8)
        self.copies_by_launcher = int(hit.sum())

    def _launched_by_ext_module(self, kind: np.ndarray, name: np.ndarray, corr: tuple[np.ndarray, np.ndarray],
                                is_gpu: np.ndarray) -> np.ndarray:
        """Per row: a GPU row whose launching runtime call (same correlation id) is ``hipExtModuleLaunchKernel``."""
        rt = (kind == _K["runtime"]) & corr[1]
        out = np.zeros(len(kind), dtype=bool)
        if not rt.any():
            return out
        launcher = pd.Series(name[rt], index=corr[0][rt])
        launcher = launcher[~launcher.index.duplicated()]
        ext_codes = {c for c, v in enumerate(self.names.values) if isinstance(v, str) and v.startswith(
            "hipExtModuleLaunchKernel")}
        gi = np.flatnonzero(is_gpu & corr[1])
        if ext_codes and len(gi):
            codes = launcher.reindex(corr[0][gi]).to_numpy()
            out[gi] = pd.Series(codes).isin(ext_codes).to_numpy()
        return out


#: the accumulator's keys of the Timeline's Int32 columns (block size, registers, static shared memory)
_NARROW_KEYS = ("block_x", "block_y", "block_z", "regs", "smem")


def _str(v: Any) -> str:
    return v if isinstance(v, str) else str(v)
