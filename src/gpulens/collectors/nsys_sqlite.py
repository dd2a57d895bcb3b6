"""Nsight Systems SQLite export (``nsys export --type sqlite``) → Timeline.

Tables read (each optional; an absent table or column is skipped, never an error):

==================================== ========== =============================================================
table                                kind       columns used
==================================== ========== =============================================================
``CUPTI_ACTIVITY_KIND_KERNEL``       kernel     start, end, deviceId, streamId, correlationId, globalPid, demangledName
                                     / comm     (else shortName), gridX..Z, blockX..Z, registersPerThread,
                                                staticSharedMemory, dynamicSharedMemory
``CUPTI_ACTIVITY_KIND_MEMCPY``       memcpy     start, end, deviceId, streamId, correlationId, bytes, copyKind
``CUPTI_ACTIVITY_KIND_MEMSET``       memset     start, end, deviceId, streamId, correlationId, bytes
``CUPTI_ACTIVITY_KIND_RUNTIME``      runtime    start, end, globalTid, correlationId, nameId
``CUPTI_ACTIVITY_KIND_SYNCHRONIZATION`` sync    start, end, globalPid, streamId, correlationId, syncType
``CUPTI_ACTIVITY_KIND_GRAPH_TRACE``  kernel     graph-level CUDA graph replays (``CUDA graph <graphId>``), see :mod:`._nsys_more`
``NVTX_EVENTS``                      annotation start, end, globalTid, text or ``StringIds[textId]``; range event types only
                                                (push/pop or start/end in ``tables["nvtx_ranges"]``)
``TARGET_INFO_GPU``                  meta       one device per row (also GPUs that ran nothing)
``META_DATA_EXPORT`` /               meta       nsys version and export schema version
``EXPORT_META_DATA`` (older)
==================================== ========== =============================================================

Conventions: times are the export's int64 ns (session clock); ``dur_ns = end - start``; rows with ``end < start``
(or an NVTX range never closed) go to ``rejected``, and so do rows whose ``start`` is a placeholder 0 beside real
timestamps far from 0 (the rule of the Kineto reader, :func:`~gpulens.collectors._zero_ts.zero_ts_placeholders`;
pytorch/kineto#109's ``ts 0, dur 0`` kind: CUPTI records that were never filled in). Names are ``StringIds``
keys, resolved once per distinct id. A GPU row exported twice (every field equal) counts once
(:func:`~gpulens.collectors._duplicates.drop_exact_duplicates`, with a warning).
``pid = (globalPid >> 24) & 0xFFFFFF`` and ``tid = globalTid & 0xFFFFFF`` (nsys' documented packing of global ids).
``copyKind`` follows CUPTI's ``CUpti_ActivityMemcpyKind`` (1 HtoD, 2 DtoH, 8 DtoD, 10 PtoP, ...; UVM kinds 11–13
map to HtoD/DtoH/DtoD). Kernels that are collectives, copies or fills by name are ``comm``/``memcpy``/``memset``
(:mod:`._work_rules`). Runtime API names lose nsys' ``_vNNNN`` suffix. A capture with launch calls but no GPU
activity is reported as incomplete (warning, ``meta.sources[0]["incomplete_capture"]``). The short and mangled names of every kernel
are kept in ``tables["kernel_names"]`` (columns ``name``, ``short_name``, ``mangled_name``).

Speed: one ``SELECT`` per table, no joins and no per-row Python objects; a synthetic export of one million kernels
(plus one million runtime calls) loads in a few seconds (``benchmarks/nsys_sqlite_load.py``).

This module holds the collector and the per-table readers; the database access is :mod:`._nsys_db`, the export's
metadata and devices :mod:`._nsys_devices`, graph replays, NVTX range types and capture diagnostics
:mod:`._nsys_more`.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gpulens._arrays import all_missing
from gpulens.collectors._assemble import any_kind
from gpulens.collectors._duplicates import drop_exact_duplicates
from gpulens.collectors._io import read_head, read_magic
from gpulens.collectors._nsys_db import _EVENT_TABLES, _Db, _is_nsys
from gpulens.collectors._nsys_devices import CUDA_GPU_FIELDS, GPU_FIELDS, metadata  # noqa: F401  (importable here)
from gpulens.collectors._sqlite import INT, TEXT, fill, int_rows, typed_expr
from gpulens.collectors._nsys_more import (NVTX_TYPES, cuda_events_lost, cuda_not_traced, graph_trace,
                                           incomplete_capture, normalise_api_names, nvtx_range_table)
from gpulens.collectors._dispatch import UNNAMED
from gpulens.collectors._process_split import split_by_process
from gpulens.collectors._zero_ts import zero_ts_placeholders
from gpulens.collectors._work_rules import NEVER_CLOSED, START_UNKNOWN, kinds_of_kernel_names, refused_warnings
from gpulens.collectors.base import Collector
from gpulens.timeline.names import _demangle
from gpulens.errors import TraceFormatError
from gpulens.timeline import EVENT_COLUMNS, GPU_KINDS, REJECTED_COLUMNS, Timeline, TimelineMeta, make_table
from gpulens.units import plural

SQLITE_MAGIC = b"SQLite format 3\x00"
#: CUpti_ActivityMemcpyKind → copy_kind; 11–13 are unified-memory page migrations (nsys ENUM_CUDA_MEMCPY_OPER
#: ``CUDA_MEMCPY_KIND_UVM_HTOD/DTOH/DTOD``): the driver moves managed pages on a fault or prefetch, no launch call
#: enqueues them (correlationId 0), so they keep a kind of their own.
COPY_KINDS = {1: "HtoD", 2: "DtoH", 3: "HtoA", 4: "AtoH", 5: "AtoA", 6: "AtoD", 7: "DtoA", 8: "DtoD", 9: "HtoH",
              10: "PtoP", 11: "UVM HtoD", 12: "UVM DtoH", 13: "UVM DtoD"}
#: Tables of timed rows (a ``start`` and an ``end`` column each).
_TIMED_TABLES = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_MEMCPY",
                 "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
                 "NVTX_EVENTS")


def sniff_db(path: Path, head: bytes, open_db, accept) -> bool:
    """True when ``head`` is an SQLite header and the database, opened read-only by ``open_db(path)`` (a
    :class:`._nsys_db._Db` class), satisfies ``accept(db)``; an unreadable database is not this format."""
    if not head.startswith(SQLITE_MAGIC):
        return False
    try:
        db = open_db(Path(path))
    except TraceFormatError:
        return False
    try:
        return accept(db)
    finally:
        db.con.close()


def _pid(g: pd.Series) -> pd.Series:
    return (g.astype("Int64") // (1 << 24)) % (1 << 24)


def _tid(g: pd.Series) -> pd.Series:
    return g.astype("Int64") % (1 << 24)


class NsysSqliteCollector(Collector):
    """Nsight Systems SQLite export (see module docstring)."""

    name = "nsys_sqlite"
    suffixes = (".sqlite",)
    priority = 10
    #: the tables of kernel records (an absent one and an empty one are told apart in the incomplete-capture note)
    kernel_tables: tuple[str, ...] = ("CUPTI_ACTIVITY_KIND_KERNEL",)
    #: How to record the CUDA activity this profiler's export lacks (said with an incomplete capture).
    capture_hint = " (nsys profile -t cuda)"

    def sniff(self, path: Path, head: bytes) -> bool:
        return sniff_db(path, head, _Db, _is_nsys)

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        path = Path(path)
        head = read_magic(path, 16)
        if head[:2] == b"\x1f\x8b":  # a gzip-compressed export: its content decides (read from a decompressed copy)
            head = read_head(path, 16)
        if head != SQLITE_MAGIC:
            raise TraceFormatError(path, "not an SQLite file" if head else "file is empty")
        db = self._open(path)
        frames, rejected, warnings = [], [], []
        timed = dict.fromkeys(self.kernel_tables + _TIMED_TABLES)  # nvprof's kernels: CONCURRENT_KERNEL too
        lacking = {t: [c for c in ("start", "end") if c not in db.cols[t]] for t in timed if t in db.cols}
        for t, cols in lacking.items():
            if cols and (t != "NVTX_EVENTS" or "start" in cols):  # an NVTX table without end holds only marks
                try:
                    n = int(db.con.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0])
                except sqlite3.DatabaseError:  # a damaged page: the count is unknown, the rows are still unread
                    n = None
                held = "its rows are" if n is None else f"its {plural(n, 'row(s)')} {'is' if n == 1 else 'are'}"
                warnings.append(f"{path}: {t} has no {' or '.join(cols)} column: {held} not read")
        names_table = None
        kernel_corr: set[int] = set()

        def _graphs(db: _Db):
            return graph_trace(db, _common, _gpu, kernel_corr)

        for reader in self._readers(_graphs):
            try:
                out = reader(db)
            except (sqlite3.DatabaseError, pd.errors.DatabaseError) as exc:
                if strict:
                    raise TraceFormatError(path, f"{reader.__name__[1:]} table unreadable ({exc}); "
                                                 "--lenient skips that table and reads the others") from None
                warnings.append(f"{path}: {reader.__name__[1:]} skipped ({exc})")
                continue
            if out is None:
                continue
            df, extra = out
            if extra is not None:
                names_table = extra
            if reader is _kernels and "correlation_id" in df:
                kernel_corr.update(int(c) for c in pd.unique(df["correlation_id"].dropna()))
            if reader is _graphs and len(df):
                warnings.append(f"{path}: {plural(len(df), 'CUDA graph replay(s)')} traced at graph level "
                                "(--cuda-graph-trace=graph) count as GPU work, one interval each; per-kernel detail "
                                "needs --cuda-graph-trace=node")
            if "dur_ns" not in df:  # no end column: no interval is closed
                df["dur_ns"] = all_missing(len(df))
            no_start = df["start_ns"].isna().to_numpy(dtype=bool) if "start_ns" in df else np.zeros(len(df), bool)
            bad = df["dur_ns"].isna().to_numpy(dtype=bool) | (df["dur_ns"] < 0).fillna(False).to_numpy(dtype=bool) \
                | no_start
            if bad.any():
                r = df[bad]
                rejected.append(pd.DataFrame({"kind": r["kind"], "name": r["name"].astype(object),
                                              "start_ns": r["start_ns"], "dur_ns": r["dur_ns"],
                                              "reason": np.where(no_start[bad], START_UNKNOWN,
                                                                 np.where(r["dur_ns"].isna(), NEVER_CLOSED,
                                                                          "end before start")),
                                              **_corr_of(r), **_device_of(r)}))
                df = df[~bad]
            frames.append(df)
        frames = _zero_placeholders(frames, rejected)
        if db.unnamed:
            warnings.append(f"{path}: {plural(db.unnamed, 'name id(s)')} not found in {db.strings_table}: those "
                            f"names are unknown, shown as {UNNAMED!r}")
        for table, n in db.dropped.items():
            warnings.append(f"{path}: {plural(n, 'row(s)')} of {table} dropped (a value, or its duration end − start, "
                            "is not an int64: REAL, TEXT, BLOB or beyond int64)")
        events, _, dup_note = drop_exact_duplicates(_assemble(frames, self.name), None, path)
        if dup_note:
            warnings.append(dup_note)
        if db.dropped and not len(events):
            raise TraceFormatError(path, "no usable event: " + "; ".join(warnings[-len(db.dropped):]).replace(
                f"{path}: ", ""))
        nvtx_types = nvtx_range_table([f for f in frames if len(f)])
        rej = pd.concat(rejected, ignore_index=True) if rejected else None
        kt = [t for t in self.kernel_tables if t in db.cols]
        state = ("absent" if not kt else "not read (no start/end column)" if all(lacking.get(t) for t in kt)
                 else "empty")
        why = ("its layout lacks the columns gpulens times kernels by (another exporter version)" if state[0] == "n"
               else f"the capture stopped early or CUDA activity tracing was off{self.capture_hint}")
        note = incomplete_capture(events, f"the kernel activity table is {state}", why, rejected=rej)
        if note is None and not events["kind"].isin(list(GPU_KINDS)).any():  # not even a launch: nsys may say why
            note = cuda_not_traced(db)
        if note:
            warnings.append(f"{path}: incomplete capture: {note}")
        elif (lost := cuda_events_lost(db)) is not None:  # GPU work recorded, some of it perhaps not: nsys says so
            warnings.append(f"{path}: {lost}: GPU work may be missing from these figures")
        nr = 0 if rej is None else len(rej)
        rej_t = make_table(REJECTED_COLUMNS, None if rej is None else {
            **{c: rej[c] for c in rej.columns}, "rank": np.zeros(nr, dtype="int64"), "source": [self.name] * nr},
            n=nr)
        if nr:  # GPU rows without an end or start are kept as untimed launches, the others excluded: said as done
            timed_gpu = bool(len(events)) and any_kind(events["kind"], ("kernel", "comm", "memcpy", "memset"))
            warnings.extend(refused_warnings(path, rej_t["kind"], rej_t["reason"], timed_gpu))
        info, devices = self._metadata(db, warnings)
        meta = TimelineMeta(sources=[{"path": str(path), "collector": self.name, "size_bytes": path.stat().st_size,
                                      "rank": 0, **info, "incomplete_capture": note}],
                            devices=devices, warnings=warnings)
        tables = {"kernel_names": names_table} if names_table is not None else {}
        if nvtx_types is not None:
            tables["nvtx_ranges"] = nvtx_types
        db.con.close()
        tl = Timeline(events, None, rej_t, meta, tables).validate()
        return split_by_process(tl, path, "export")

    def _open(self, path: Path) -> _Db:
        """The export opened read-only; raises :class:`TraceFormatError` when it holds none of nsys' tables."""
        db = _Db(path)
        if not any(t in db.cols for t in _EVENT_TABLES) and not _is_nsys(db):
            raise TraceFormatError(path, "SQLite file has no Nsight Systems tables (CUPTI_ACTIVITY_KIND_*, "
                                         "NVTX_EVENTS, TARGET_INFO_GPU)")
        return db

    def _readers(self, graphs) -> tuple:
        """The per-table readers, in order (each ``db → (frame, kernel-names table) | None``); ``graphs`` reads the
        graph-level replays with the kernels' correlation ids seen so far."""
        return (_kernels, graphs, _copies, _memsets, _runtime, _syncs, _nvtx)

    def _metadata(self, db: _Db, warnings: list[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The source's metadata dict and its devices (:func:`._nsys_devices.metadata`)."""
        return metadata(db, warnings)


def _assemble(frames: list[pd.DataFrame], source: str) -> pd.DataFrame:
    """Concatenate per-table frames (categorical names unioned) into the event table."""
    frames = [f for f in frames if len(f)]
    if not frames:
        return make_table(EVENT_COLUMNS)
    names = pd.api.types.union_categoricals([_text_categories(f["name"]) for f in frames], ignore_order=True)
    if (names.codes < 0).any():  # a name id not in StringIds (counted in a warning): visible, never NaN
        if UNNAMED not in names.categories:
            names = names.add_categories([UNNAMED])
        names = names.fillna(UNNAMED)
    df = pd.concat([f.drop(columns="name") for f in frames], ignore_index=True)
    n = len(df)
    data: dict[str, Any] = {c: df[c] for c in df.columns if c in {x.name for x in EVENT_COLUMNS}}
    # a GPU row whose device the export does not say (no deviceId column, or NULL): device 0, as for AMD
    # (:mod:`._dispatch`); host rows are -1 already
    data["device_id"] = df["device_id"].fillna(0).astype("int64") if "device_id" in df else np.zeros(n, "int64")
    data.update(event_id=np.arange(n, dtype="int64"), name=pd.Series(names), rank=np.zeros(n, dtype="int64"),
                source=pd.Series(pd.Categorical.from_codes(np.zeros(n, dtype="int8"), categories=[source])))
    return make_table(EVENT_COLUMNS, data, n=n)


def _text_categories(s: pd.Series) -> pd.Categorical:
    """``s`` as a categorical with text categories of one dtype (an all-unknown column has float categories, a
    name stored as a number or BLOB is not text): ``union_categoricals`` needs the same dtype in every frame."""
    c = pd.Categorical(s)
    if c.categories.dtype == _STR_DTYPE:
        return c
    new = pd.Index([str(x) for x in c.categories], dtype=object).astype(str)
    if new.is_unique:
        return pd.Categorical.from_codes(c.codes, categories=new)
    return pd.Categorical([None if pd.isna(x) else str(x) for x in s], categories=new.unique())


_STR_DTYPE = pd.Index(["text"]).astype(str).dtype


def _common(db: _Db, table: str, extra: dict[str, str]) -> pd.DataFrame:
    return db.select_ints(table, {"start_ns": "{start}", "dur_ns": "{end} - {start}", **extra})


def _gpu(df: pd.DataFrame, kind: Any) -> pd.DataFrame:
    df["kind"] = kind
    if "globalPid" in df:
        df["pid"] = _pid(df.pop("globalPid"))
    return df


_GPU_COLS = {"device_id": "{deviceId}", "stream_id": "{streamId}", "correlation_id": "{correlationId}",
             "globalPid": "{globalPid}"}


def _kernels(db: _Db, t: str = "CUPTI_ACTIVITY_KIND_KERNEL"):
    """Kernel rows of table ``t``: named by ``demangledName``, else ``shortName``, else ``mangledName`` (nsys), else
    ``name`` (nvprof's mangled name, demangled by :attr:`_Db.demangle`)."""
    if not db.has(t, "start", "end"):
        return None
    name_col = next((c for c in ("demangledName", "shortName", "mangledName", "name") if c in db.cols[t]), None)
    df = _common(db, t, {**_GPU_COLS, "grid_x": "{gridX}", "grid_y": "{gridY}", "grid_z": "{gridZ}",
                         "block_x": "{blockX}", "block_y": "{blockY}", "block_z": "{blockZ}",
                         "regs_per_thread": "{registersPerThread}", "smem_static_bytes": "{staticSharedMemory}",
                         "smem_dynamic_bytes": "{dynamicSharedMemory}", "_name": f"{{{name_col}}}",
                         "_short": "{shortName}",
                         "_mangled": "{name}" if name_col == "name" else "{mangledName}"})
    if "_name" not in df:  # no name column at all: every kernel's name is unknown (counted)
        db.unnamed += len(df)
    df["name"] = db.strings(df.pop("_name")) if "_name" in df else pd.Categorical([None] * len(df))
    if name_col == "name":  # nvprof records the mangled name only: shown demangled, as nvprof's own reports do
        df["name"] = demangled(df["name"])
    names = None
    if "_short" in df or "_mangled" in df:
        ids = df[[c for c in ("_short", "_mangled") if c in df]].assign(name=df["name"]).drop_duplicates()
        names = pd.DataFrame({"name": ids["name"].astype(str).to_numpy(),
                              "short_name": db.strings(ids["_short"], False).astype(str).to_numpy() if "_short" in ids
                              else None,
                              "mangled_name": db.strings(ids["_mangled"], False).astype(str).to_numpy()
                              if "_mangled" in ids else None})
        df = df.drop(columns=[c for c in ("_short", "_mangled") if c in df])
    return _gpu(df, kinds_of_kernel_names(pd.Series(df["name"]))), names  # collectives, copies, fills by name


def demangled(names: pd.Series) -> pd.Series:
    """The categorical ``names`` with each mangled (``_Z…``) category demangled by the GNU demangler
    (:func:`gpulens.timeline.names._demangle`); one call per distinct name, names that demangle alike merged."""
    cat = pd.Categorical(names)
    text = [_demangle(c) for c in cat.categories]
    uniq = pd.Index(text, dtype=object).unique()
    codes = np.asarray(cat.codes)
    remap = uniq.get_indexer(text)
    new = np.where(codes < 0, -1, remap.take(codes.clip(min=0)) if len(remap) else -1)
    return pd.Series(pd.Categorical.from_codes(new, categories=uniq.astype(str)), index=names.index)


def _copies(db: _Db):
    t = "CUPTI_ACTIVITY_KIND_MEMCPY"
    if not db.has(t, "start", "end"):
        return None
    df = _common(db, t, {**_GPU_COLS, "bytes": "{bytes}", "_ck": "{copyKind}"})
    ck = df.pop("_ck") if "_ck" in df else pd.Series([None] * len(df))
    df["copy_kind"] = ck.map(COPY_KINDS)
    df["name"] = ("Memcpy " + df["copy_kind"].fillna("Unknown")).astype("category")
    return _gpu(df, "memcpy"), None


def _memsets(db: _Db):
    t = "CUPTI_ACTIVITY_KIND_MEMSET"
    if not db.has(t, "start", "end"):
        return None
    df = _common(db, t, {**_GPU_COLS, "bytes": "{bytes}"})
    df["name"] = pd.Categorical(["Memset"] * len(df))
    return _gpu(df, "memset"), None


def _host(df: pd.DataFrame, kind: str) -> pd.DataFrame:
    df["kind"] = kind
    df["device_id"] = -1
    if "globalTid" in df:
        g = df.pop("globalTid")
        df["pid"], df["tid"] = _pid(g), _tid(g)
    return df


def _runtime(db: _Db):
    t = "CUPTI_ACTIVITY_KIND_RUNTIME"
    if not db.has(t, "start", "end"):
        return None
    df = _common(db, t, {"globalTid": "{globalTid}", "correlation_id": "{correlationId}", "_n": "{nameId}"})
    df["name"] = normalise_api_names(db.strings(df.pop("_n"))) if "_n" in df else \
        pd.Categorical(["cuda runtime"] * len(df))
    return _host(df, "runtime"), None


def _syncs(db: _Db):
    t = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"
    if not db.has(t, "start", "end"):
        return None
    df = _common(db, t, {"stream_id": "{streamId}", "correlation_id": "{correlationId}", "globalPid": "{globalPid}"})
    df["name"] = pd.Categorical(["CUDA synchronization"] * len(df))
    df = _gpu(df, "sync")
    df["device_id"] = -1
    return df, None


def _nvtx(db: _Db):
    t = "NVTX_EVENTS"
    if not db.has(t, "start"):
        return None
    where = "1"
    types: dict[int, str] = {}
    ints = [c for c in ("start", "end", "globalTid", "textId", "eventType") if c in db.cols[t]]
    if db.has("ENUM_NSYS_EVENT_TYPE", "id", "name") and "eventType" in db.cols[t]:
        e = "ENUM_NSYS_EVENT_TYPE"
        esql = int_rows(db.con, e, ["id"])[0]
        rows = db.con.execute(f"SELECT {esql['id']}, name FROM {e} WHERE {esql['id']} IS NOT NULL "
                              "AND typeof(name) = 'text' AND name LIKE 'Nvtx%Range'").fetchall()
        types = {int(i): NVTX_TYPES.get(n, n) for i, n in rows}
        if types:
            where = f"{typed_expr('eventType', INT)} IN ({','.join(map(str, types))})"
    elif "end" in db.cols[t]:
        where = '"end" IS NOT NULL'  # no event-type names: keep what has an end (marks have none)
    wanted = {"start_ns": "{start}", "dur_ns": "{end} - {start}", "globalTid": "{globalTid}",
              "_tid": "{textId}", "_type": "{eventType}"}
    exprs = {a: e for a, e in wanted.items() if all(n.split("}")[0] in db.cols[t] for n in e.split("{")[1:])}
    # declared types as in :meth:`_Db.select_ints` (one rule, :func:`._sqlite.int_rows`)
    sql, ok, bad = int_rows(db.con, t, ints, ["{end} - {start}"] if "end" in db.cols[t] else [], where)
    parts = [f"{fill(e, sql)} AS {a}" for a, e in exprs.items()]
    if "text" in db.cols[t]:
        parts.append(f"{typed_expr('text', TEXT)} AS _text")
    if bad:
        db.dropped[t] = db.dropped.get(t, 0) + int(bad)
    df = pd.read_sql_query(f"SELECT {', '.join(parts)} FROM [{t}] WHERE ({where}) AND ({ok})", db.con)
    text = df.pop("_text") if "_text" in df else pd.Series([None] * len(df), dtype=object)
    if "_tid" in df:
        via_id = db.strings(df.pop("_tid")).astype(object)
        text = text.where(text.notna(), via_id)
    df["name"] = text.fillna("(unnamed NVTX range)").astype("category")
    et = df.pop("_type") if "_type" in df else pd.Series([None] * len(df))
    df["_range"] = [types.get(int(e), "push/pop") if pd.notna(e) else "push/pop" for e in et]
    return _host(df, "annotation"), None


def _corr_of(rows: pd.DataFrame) -> dict:
    """The ``correlation_id`` column of refused rows, when their table records one: a launch call whose kernel was
    refused (no start, end before start, a placeholder 0) is then known to have launched work — not a lost launch."""
    return {"correlation_id": rows["correlation_id"].to_numpy()} if "correlation_id" in rows else {}


def _device_of(rows: pd.DataFrame) -> dict:
    """The ``device_id`` column of refused rows where their table records the GPU (host rows' -1: none), so the idle
    such work may fill is that GPU's, not every GPU's of the rank."""
    if "device_id" not in rows:
        return {}
    dev = pd.array(rows["device_id"].to_numpy(), dtype="Int64")
    return {"device_id": pd.array(np.where(pd.isna(dev) | (dev < 0), pd.NA, dev), dtype="Int64")}


def _zero_placeholders(frames: list[pd.DataFrame], rejected: list[pd.DataFrame]) -> list[pd.DataFrame]:
    """``frames`` without the rows whose ``start_ns`` is a placeholder 0 (appended to ``rejected`` as "zero timestamp
    (never recorded)"): judged over every table's timestamps at once, as one clock, by
    :func:`~gpulens.collectors._zero_ts.zero_ts_placeholders` — counting such a 0 would stretch the others' span
    more than 11× to the whole session clock. A capture whose clock starts at 0 keeps it."""
    have = [f for f in frames if len(f) and "start_ns" in f and "dur_ns" in f]
    # in integers (an epoch-scale ns clock exceeds a double's 2^53), a missing time as 0 with ok False
    ok = np.concatenate([(f["start_ns"].notna() & f["dur_ns"].notna()).to_numpy(dtype=bool) for f in have]) \
        if have else np.zeros(0, dtype=bool)
    ts = np.concatenate([f["start_ns"].fillna(0).to_numpy(dtype="int64") for f in have]) if have else ok.astype("int64")
    if not (ts[ok] <= 0).any():
        return frames
    dur = np.concatenate([f["dur_ns"].fillna(0).to_numpy(dtype="int64") for f in have])
    # a GPU record with start 0 and duration 0 measured nothing, on any clock (a session clock from 0 included)
    gpu = np.concatenate([f["kind"].astype(str).isin(GPU_KINDS).to_numpy(dtype=bool) if "kind" in f
                          else np.zeros(len(f), dtype=bool) for f in have])
    mask = zero_ts_placeholders(ts, dur, ok, blank=gpu)
    if not mask.any():
        return frames
    at = dict(zip(map(id, have), np.split(mask, np.cumsum([len(f) for f in have])[:-1])))
    out = []
    for f in frames:
        z = at.get(id(f))
        if z is None or not z.any():
            out.append(f)
            continue
        r = f[z]
        rejected.append(pd.DataFrame({"kind": r["kind"], "name": r["name"].astype(object), "start_ns": r["start_ns"],
                                      "dur_ns": r["dur_ns"],
                                      "reason": np.where(r["start_ns"].to_numpy() < 0,
                                                         "negative timestamp far before the others (never recorded)",
                                                         "zero timestamp (never recorded)"),
                                      **_corr_of(r), **_device_of(r)}))
        out.append(f[~z])
    return out
