"""Kineto: the category → kind rules and the accumulator that turns decoded pieces into Timeline columns.

Each piece of events (see :mod:`gpulens.collectors._stream`) is turned into numpy columns at once and its structs
dropped; :meth:`Accumulator.finish` concatenates the pieces, applies a load-time :class:`Selection` and returns
plain column arrays ready for :func:`gpulens.timeline.make_table`.
"""

from __future__ import annotations

import re
from itertools import chain
from operator import attrgetter
from typing import Any

import numpy as np
import pandas as pd

from gpulens.collectors._chrome_json import Args
from gpulens.collectors._work_rules import kind_of_kernel_name
from gpulens.collectors._kineto_ranks import event_ranks
from gpulens.collectors._kineto_columns import Dictionary, int_array, nullable, take, us_text_to_ns
from gpulens.timeline.selection import Selection

#: lower-cased Kineto category → Timeline kind (current and 2021 legacy spellings).
CATEGORY_KIND = {
    "kernel": "kernel",
    "gpu_memcpy": "memcpy",
    "memcpy": "memcpy",
    "gpu_memset": "memset",
    "memset": "memset",
    "cpu_op": "cpu_op",
    "operator": "cpu_op",
    "cuda_runtime": "runtime",
    "cuda_driver": "runtime",
    "runtime": "runtime",
    "driver": "runtime",
    "cuda_sync": "sync",
    "user_annotation": "annotation",
    "gpu_user_annotation": "annotation",
    "python_function": "python",
}
GPU_CATEGORIES = {"kernel", "gpu_memcpy", "memcpy", "gpu_memset", "memset", "gpu_user_annotation"}
_COPY_KIND_RE = re.compile(r"\b(HtoD|DtoH|DtoD|PtoP|HtoH|DtoA|AtoD)\b")
#: XLA spells copy directions ``MemcpyH2D`` / ``MemcpyD2H`` / ``MemcpyD2D`` / ``MemcpyP2P``
_COPY_KIND_2_RE = re.compile(r"(H|D|P)2(H|D|P)\b")
_META_NAMES = ("process_name", "thread_name")
UNNAMED = "(unnamed)"
_SILENT_OTHER = {"trace"}  # the profiler's own span "PyTorch Profiler (0)"
_KINETO_COUNTERS = (("blocks_per_sm", "kineto.blocks_per_sm"), ("warps_per_sm", "kineto.warps_per_sm"),
                    ("est_occupancy", "kineto.est_achieved_occupancy_pct"))
KIND_LIST = ("kernel", "comm", "memcpy", "memset", "cpu_op", "runtime", "sync", "annotation", "python", "other")
_K = {k: i for i, k in enumerate(KIND_LIST)}
_EMPTY = Args()
_INT_FIELDS = ("pid", "tid", "device", "stream", "corr", "ext", "grid_x", "grid_y", "grid_z", "block_x", "block_y",
               "block_z", "regs", "smem", "bytes", "rank")


def kind_of(cat: str, name: str) -> str:
    """Timeline kind of a Kineto event from its lower-cased category and its name: a ``kernel`` that is a copy,
    a fill or a collective by name becomes ``memcpy``/``memset``/``comm`` (rules: :mod:`._work_rules`)."""
    kind = CATEGORY_KIND.get(cat, "other")
    if kind == "kernel":
        return kind_of_kernel_name(name)
    return kind


def copy_kind_of(name: str) -> str | None:
    """Copy direction named in a copy's name (``Memcpy HtoD (Pageable -> Device)``, XLA ``MemcpyH2D``), or None."""
    m = _COPY_KIND_RE.search(name)
    if m:
        return m.group(1)
    m = _COPY_KIND_2_RE.search(name)
    return f"{m.group(1)}to{m.group(2)}" if m else None


def _floats(vals: list) -> np.ndarray:
    """Numbers (int/float) → float64, anything else NaN."""
    try:
        return np.array(vals, dtype=np.float64)
    except (TypeError, ValueError):
        return np.array([float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else np.nan
                         for v in vals], dtype=np.float64)


def _scatter(n: int, idx: np.ndarray, vals: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    v = np.zeros(n, dtype=np.int64)
    m = np.zeros(n, dtype=bool)
    v[idx] = vals
    m[idx] = ok
    return v, m


def _dim3(vals: list) -> list[tuple[np.ndarray, np.ndarray]]:
    """``[x, y, z]`` lists (or None) → three (values, valid) pairs."""
    n = len(vals)
    idx = [i for i, v in enumerate(vals) if v is not None]
    if not idx:
        z = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool)
        return [z, z, z]
    sub = [vals[i] for i in idx] if len(idx) < n else vals
    try:
        if sum(map(len, sub)) == 3 * len(sub):
            a = np.fromiter(chain.from_iterable(sub), dtype=np.int64, count=3 * len(sub)).reshape(-1, 3)
            ia = np.asarray(idx)
            return [_scatter(n, ia, a[:, j], np.ones(len(ia), dtype=bool)) for j in range(3)]
    except (TypeError, ValueError, OverflowError):
        pass
    cols = []
    for j in range(3):
        cols.append(int_array([v[j] if isinstance(v, (list, tuple)) and len(v) > j else None for v in vals]))
    return cols


class Accumulator:
    """Columns of the ``X`` events seen so far (see module docstring)."""

    def __init__(self) -> None:
        self.names = Dictionary()
        self.cats = Dictionary()
        self.dims = Dictionary()
        self.types = Dictionary()
        self.copy = Dictionary()
        self.pieces: list[dict[str, Any]] = []
        self.rejected: list[dict[str, Any]] = []
        self.counters: list[tuple[np.ndarray, str, np.ndarray]] = []
        self.ignored: dict[str, int] = {}
        self.process_names: dict[int, str] = {}  # pid → process_name metadata
        self.thread_names: dict[tuple[int, int], str] = {}  # (pid, tid) → thread_name metadata
        self.comm_ranks: set[int] = set()  # `Rank` values of record_param_comms events
        self.rank_encodings: list[str] = []  # per-event rank encodings found by finish()
        self.missing_cat: set[str] = set()  # {""} once an X event without a category was seen
        self.count = 0  # X events seen (accepted + rejected)
        self.rows = 0  # accepted rows so far
        self.memory: list[tuple] = []  # [memory] instant events: (raw ts, device type, device id, alloc, reserved, bytes)

    def add(self, events: list) -> None:
        """Turn one piece of decoded events into columns (``M`` process/thread names are kept as metadata;
        ``[memory]`` instant events go to :meth:`memory_table`)."""
        self.memory += [(e.ts, a.device_type, a.device_id, a.total_allocated, a.total_reserved, a.mem_bytes)
                        for e in events if e.ph in ("i", "I") and e.name == "[memory]" and (a := e.args) is not None]
        xs = [e for e in events if e.ph == "X"]
        for e in events:
            if e.ph == "M" and e.name in _META_NAMES and e.args is not None and isinstance(e.args.name, str):
                ids, ok = int_array([e.pid, e.tid])
                if not ok[0]:
                    continue
                if e.name == "process_name":
                    self.process_names[int(ids[0])] = e.args.name
                elif ok[1]:
                    self.thread_names[(int(ids[0]), int(ids[1]))] = e.args.name
        if not xs:
            return
        self.count += len(xs)
        names = [e.name for e in xs]
        name_c = self.names.encode(names)
        cat_c = self.cats.encode([e.cat for e in xs])
        # kind per category (lower-cased; a non-string category counts as ""), refined by name for kernels
        low = [c.lower() if isinstance(c, str) else "" for c in self.cats.values]
        # an event without a category (code -1) is `other`, never the kind of some other category
        cat_kind = np.array([_K[CATEGORY_KIND.get(c, "other")] for c in low], dtype=np.int8)
        cat_gpu = np.array([c in GPU_CATEGORIES for c in low], dtype=bool)
        kind = take(cat_kind, cat_c, _K["other"]).astype(np.int8)
        nocat = take(np.array([c == "" for c in low], dtype=bool), cat_c, True).astype(bool)
        if nocat.any():
            self.missing_cat.add("")
        kern = np.flatnonzero(kind == _K["kernel"])
        if len(kern):
            uk, inv = np.unique(name_c[kern], return_inverse=True)
            refined = np.array([_K[kind_of("kernel", self.names.text(u))] for u in uk], dtype=np.int8)
            kind[kern] = refined[inv]
        ts, ts_ok = us_text_to_ns([e.ts for e in xs])
        dur, dur_ok = us_text_to_ns([e.dur for e in xs])
        reason = np.full(len(xs), -1, dtype=np.int8)
        reason[ts_ok & dur_ok & (ts == 0)] = 2
        reason[ts_ok & dur_ok & (dur < 0)] = 1
        reason[~(ts_ok & dur_ok)] = 0
        bad = np.flatnonzero(reason >= 0)
        if len(bad):
            self.rejected.append({"kind": kind[bad], "name": [_str(names[i]) for i in bad], "ts": ts[bad],
                                  "ts_ok": ts_ok[bad], "dur": dur[bad], "dur_ok": dur_ok[bad], "reason": reason[bad]})
            good = np.flatnonzero(reason < 0)
            xs = [xs[i] for i in good]
            name_c, cat_c, kind, ts, dur = name_c[good], cat_c[good], kind[good], ts[good], dur[good]
            nocat = nocat[good]
        n = len(xs)
        if not n:
            return
        other = kind == _K["other"]
        if other.any():
            for c, cnt in zip(*np.unique(cat_c[other], return_counts=True)):
                label = low[c] if c >= 0 else ""
                if label not in _SILENT_OTHER:
                    self.ignored[label or "(none)"] = self.ignored.get(label or "(none)", 0) + int(cnt)
        args = [e.args or _EMPTY for e in xs]
        col: dict[str, Any] = {"kind": kind, "name": name_c, "start": ts, "dur": dur, "nocat": nocat}
        col["pid"] = int_array([e.pid for e in xs])
        col["tid"] = int_array([e.tid for e in xs])
        col["corr"] = int_array([a.correlation for a in args])
        col["ext"] = int_array([a.external_id if a.external_id is not None else a.external_id_legacy for a in args])
        col["flops"] = _floats([a.flops for a in args])
        col["dims"] = self.dims.encode([bytes(a.input_dims or a.input_dims_legacy) or None for a in args])
        col["types"] = self.types.encode([bytes(a.input_type) or None for a in args])
        gi = np.flatnonzero(take(cat_gpu, cat_c, False).astype(bool))
        ga = [args[i] for i in gi]
        dev, dev_ok = int_array([a.device for a in ga])
        pid, pid_ok = col["pid"]
        dev = np.where(dev_ok, dev, np.where(pid_ok[gi], pid[gi], 0))
        device = np.full(n, -1, dtype=np.int64)
        device[gi] = dev
        col["device"] = (device, np.ones(n, dtype=bool))
        st, st_ok = int_array([a.stream for a in ga])
        tid, tid_ok = col["tid"]
        col["stream"] = _scatter(n, gi, np.where(st_ok, st, tid[gi]), st_ok | tid_ok[gi])
        # launch configuration: kernels, and the runtime calls that carry it on ROCm
        for key, pair in zip(("grid_x", "grid_y", "grid_z"), _dim3([a.grid for a in args])):
            col[key] = pair
        for key, pair in zip(("block_x", "block_y", "block_z"), _dim3([a.block for a in args])):
            col[key] = pair
        col["regs"] = int_array([a.registers for a in args])
        col["smem"] = int_array([a.shared_memory for a in args])
        col["rank"] = int_array([a.rank for a in args])
        rc = int_array([a.rank_comms for a in args])
        if rc[1].any():
            self.comm_ranks.update(np.unique(rc[0][rc[1]]).tolist())
        gk = kind[gi]
        bi = gi[(gk == _K["memcpy"]) | (gk == _K["memset"]) | (gk == _K["comm"])]
        col["bytes"] = _scatter(n, bi, *int_array([args[i].bytes for i in bi]))
        copy = np.full(n, -1, dtype=np.int32)
        ci = gi[gk == _K["memcpy"]]
        if len(ci):
            kinds = []
            for i in ci:
                k = args[i].kind
                ck = k if isinstance(k, str) and _COPY_KIND_RE.fullmatch(k) else None
                if ck is None:
                    ck = copy_kind_of(self.names.text(name_c[i]))
                kinds.append(ck)
            copy[ci] = self.copy.encode(kinds)
        col["copy"] = copy
        ki = gi[gk == _K["kernel"]]
        ka = [args[i] for i in ki]
        for attr, metric in _KINETO_COUNTERS:
            v = _floats(list(map(attrgetter(attr), ka)))
            keep = ~np.isnan(v)
            if keep.any():
                self.counters.append((ki[keep] + self.rows, metric, v[keep]))
        for key in _INT_FIELDS:  # nullable ints are kept sparse: (row numbers, values) of the rows that have one
            v, ok = col[key]
            if ok.all():
                col[key] = (None, v, n)
            else:
                idx = np.flatnonzero(ok)
                col[key] = (idx, v[idx], n)
        self.rows += n
        self.pieces.append(col)

    def memory_table(self, base_ns: int, rank: int) -> pd.DataFrame | None:
        """The ``[memory]`` instant events as a side table (None when there are none): ``time_ns`` [ns, Timeline
        clock], ``rank``, ``device_type`` (Kineto's c10 DeviceType: 0 CPU, 1 CUDA — also ROCm builds —), ``device_id``
        (−1 for the host), ``allocated_bytes`` / ``reserved_bytes`` (the allocator's totals after the event) and
        ``delta_bytes`` (+ allocation, − free), in file order."""
        if not self.memory:
            return None
        ts, ok = us_text_to_ns([m[0] for m in self.memory])

        def num(j: int) -> np.ndarray:
            return np.array([float(m[j]) if isinstance(m[j], (int, float)) else np.nan for m in self.memory])

        return pd.DataFrame({"time_ns": ts[ok] + base_ns, "rank": np.full(int(ok.sum()), rank, dtype=np.int64),
                             "device_type": num(1)[ok], "device_id": num(2)[ok], "allocated_bytes": num(3)[ok],
                             "reserved_bytes": num(4)[ok], "delta_bytes": num(5)[ok]})

    def finish(self, base_ns: int, rank: int, select: Selection | None, dialect: Any = None):
        """Concatenate the pieces; return (event columns, rejected columns, counter columns, ignored categories).

        Args:
            dialect: a :class:`~gpulens.collectors._chrome_dialects.Dialect`; for ``xla-gpu`` the events without a
                category on GPU processes become GPU work (see that module).
        """
        from gpulens.timeline.schema import KINDS

        P = self.pieces

        def cat(key: str) -> np.ndarray:  # concatenate one column, freeing its pieces as it goes
            return np.concatenate([p.pop(key) for p in P]) if P else np.zeros(0, dtype=np.int64)

        def pair(key: str) -> tuple[np.ndarray, np.ndarray]:  # a sparse nullable column → (values, valid)
            values = np.zeros(self.rows, dtype=np.int64)
            valid = np.zeros(self.rows, dtype=bool)
            at = 0
            for p in P:
                idx, v, n = p.pop(key)
                if idx is None:
                    values[at:at + n] = v
                    valid[at:at + n] = True
                else:
                    values[idx + at] = v
                    valid[idx + at] = True
                at += n
            return values, valid

        kind = cat("kind").astype(np.int8)
        start = cat("start") + base_ns
        dur = cat("dur")
        name = cat("name").astype(np.int64)
        nocat = cat("nocat").astype(bool) if P else np.zeros(0, dtype=bool)
        if (name < 0).any():  # an event without a name keeps a visible placeholder, never NaN or another's name
            name[name < 0] = self.names.encode([UNNAMED])[0]
        copy = cat("copy").astype(np.int64)
        corr = pair("corr")
        ints = {key: pair(key) for key in ("pid", "tid", "device", "stream")}
        if dialect is not None and dialect.producer == "xla-gpu":
            self._place_xla(dialect, kind, name, nocat, copy, ints)
        is_gpu = np.isin(kind, [_K[k] for k in ("kernel", "comm", "memcpy", "memset")])
        ranks = event_ranks(len(kind), rank, pair("rank"), ints["pid"], corr, is_gpu, ints["device"][0],
                            self.process_names)
        self.rank_encodings = ranks.encodings
        if ranks.device_fix is not None:
            ints["device"][0][ranks.device_fix[0]] = ranks.device_fix[1]
        keep = None
        if select is not None and select.active:
            kind_names = np.array(KIND_LIST, dtype=object)
            kinds_s = kind_names[kind] if len(kind) else np.zeros(0, dtype=object)
            names_s = take(np.array(self.names.values, dtype=object), name, None) if len(name) else \
                np.zeros(0, dtype=object)
            keep = np.zeros(len(kind), dtype=bool)
            for r in np.unique(ranks.rank) if len(kind) else []:  # steps and windows are per rank
                rows = ranks.rank == r
                keep[rows] = select.keep_mask(start[rows], dur[rows], kinds_s[rows], names_s[rows], corr[0][rows],
                                              corr[1][rows], int(r))
        sel = (lambda a: a[keep] if keep is not None else a)
        kind_vals = [k for k in KIND_LIST if k in KINDS]
        cols: dict[str, Any] = {
            "kind": _codes_to_cat(sel(kind).astype(np.int64), kind_vals),
            "name": self.names.categorical(sel(name), _str),
            "start_ns": sel(start), "dur_ns": sel(dur), "rank": sel(ranks.rank),
            "device_id": sel(ints["device"][0]),
            "flops": sel(cat("flops")) if P else np.zeros(0),
            "copy_kind": self.copy.categorical(sel(copy)),
            "input_dims": self.dims.categorical(sel(cat("dims").astype(np.int64)), _text),
            "input_types": self.types.categorical(sel(cat("types").astype(np.int64)), _text),
        }
        for dst, key in (("pid", "pid"), ("tid", "tid"), ("stream_id", "stream"), ("correlation_id", "corr"),
                         ("external_id", "ext"), ("grid_x", "grid_x"), ("grid_y", "grid_y"), ("grid_z", "grid_z"),
                         ("block_x", "block_x"), ("block_y", "block_y"), ("block_z", "block_z"),
                         ("regs_per_thread", "regs"), ("smem_static_bytes", "smem"), ("bytes", "bytes")):
            v, ok = corr if key == "corr" else ints[key] if key in ints else pair(key)
            cols[dst] = nullable(sel(v), sel(ok))
        self.pieces = []
        # counters: event ids follow the kept rows
        ev, met, val = [], [], []
        new_id = np.cumsum(keep) - 1 if keep is not None else None
        metric_names = [m for _, m in _KINETO_COUNTERS]
        for rows, metric, v in self.counters:
            if keep is not None:
                k = keep[rows]
                rows, v = new_id[rows[k]], v[k]
            ev.append(rows)
            met.append(np.full(len(rows), metric_names.index(metric), dtype=np.int64))
            val.append(v)
        if ev:
            order = np.argsort(np.concatenate(ev), kind="stable")
            mcodes = np.concatenate(met)[order]
            units = ["" if m.endswith("per_sm") else "%" for m in metric_names]
            cnt = {"event_id": np.concatenate(ev)[order], "metric": _codes_to_named_cat(mcodes, metric_names),
                   "value": np.concatenate(val)[order], "unit": _codes_to_named_cat(mcodes, units)}
        else:
            cnt = {"event_id": np.zeros(0, dtype=np.int64), "metric": [], "value": np.zeros(0), "unit": []}
        rej = {"kind": [], "name": [], "start_ns": [], "dur_ns": [], "reason": []}
        reasons = ("missing ts or dur", "negative duration (unfinished or corrupt event)",
                   "zero timestamp (never recorded)")
        for r in self.rejected:
            rej["kind"] += [KIND_LIST[k] for k in r["kind"]]
            rej["name"] += r["name"]
            rej["start_ns"] += [int(t) + base_ns if ok else None for t, ok in zip(r["ts"], r["ts_ok"])]
            rej["dur_ns"] += [int(d) if ok else None for d, ok in zip(r["dur"], r["dur_ok"])]
            rej["reason"] += [reasons[x] for x in r["reason"]]
        return cols, rej, cnt, self.ignored


    def _place_xla(self, dialect: Any, kind: np.ndarray, name: np.ndarray, nocat: np.ndarray, copy: np.ndarray,
                   ints: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
        """XLA GPU dialect: category-less events of ``/device:GPU:N`` processes become GPU work of GPU N on the
        stream their thread names (or ranges, for the other named threads); edits the arrays in place."""
        pid, pid_ok = ints["pid"]
        tid, tid_ok = ints["tid"]
        dev, dev_ok = ints["device"]
        stream, stream_ok = ints["stream"]
        rows = np.flatnonzero(nocat & pid_ok & np.isin(pid, list(dialect.gpu_pids)))
        for i in rows:
            key = (int(pid[i]), int(tid[i])) if tid_ok[i] else (int(pid[i]), -1)
            dev[i], dev_ok[i] = dialect.gpu_pids[key[0]], True
            if key in dialect.ranges:
                kind[i] = _K["annotation"]
                continue
            kind[i] = _K[kind_of("kernel", self.names.text(name[i]))]
            if key in dialect.stream_of or tid_ok[i]:
                stream[i], stream_ok[i] = dialect.stream_of.get(key, key[1]), True
            if kind[i] == _K["memcpy"]:
                ck = copy_kind_of(self.names.text(name[i]))
                copy[i] = self.copy.encode([ck])[0] if ck else -1
        self.ignored.pop("", None)
        self.ignored.pop("(none)", None)


def _str(v: Any) -> str:
    return v if isinstance(v, str) else str(v)


def _text(b: bytes) -> str:
    return b.decode("utf-8", errors="replace")


def _codes_to_named_cat(codes: np.ndarray, names: list[str]):
    """Categorical of ``names[code]`` with sorted categories, only those used (duplicate names merged)."""
    import pandas as pd

    used = np.unique(codes)
    cats = sorted({names[u] for u in used})
    remap = np.zeros(len(names), dtype=np.int64)
    for u in used:
        remap[u] = cats.index(names[u])
    return pd.Categorical.from_codes(remap[codes], categories=pd.Index(cats, dtype="str"))


def _codes_to_cat(codes: np.ndarray, values: list[str]):
    import pandas as pd

    if not len(codes):
        return pd.Categorical([], categories=pd.Index([], dtype="str"))
    used = np.unique(codes)
    cats = sorted(KIND_LIST[u] for u in used)
    remap = np.zeros(len(KIND_LIST), dtype=np.int64)
    for i, c in enumerate(cats):
        remap[KIND_LIST.index(c)] = i
    return pd.Categorical.from_codes(remap[codes], categories=pd.Index(cats, dtype="str"))
