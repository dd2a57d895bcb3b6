"""rocpd SQLite databases (rocprofv3 ``--output-format rocpd``, the default of newer ROCm) → Timeline.

Schema (rocprofiler-sdk ``source/share/rocprofiler-sdk-rocpd/rocpd_tables.sql``, schema_version 3): every table is
created per run with a UUID suffix (``rocpd_kernel_dispatch_<uuid>``) and exposed by an un-suffixed view
(``rocpd_kernel_dispatch``). This reader uses the view when present, else the union of the suffixed tables, and
maps columns by name so both published layouts work:

* ``rocpd_kernel_dispatch``: ``kernel_id`` → ``rocpd_info_kernel_symbol.id`` (``display_name``/``kernel_name``,
  ``sgpr_count``, ``arch_vgpr_count``, ``accum_vgpr_count``), ``dispatch_id``, ``private_segment_size``,
  ``group_segment_size``, ``workgroup_size_{x,y,z}``, ``grid_size_{x,y,z}`` (work-items), ``event_id`` →
  ``rocpd_event.stack_id`` (the internal correlation id that ties the dispatch to its launch call; else
  ``correlation_id``); times either inline (``start``, ``end``) or through ``start_id``/``end_id`` →
  ``rocpd_timestamp.value``; agent/queue either inline (``agent_id``, ``queue_id``) or through ``track_id`` →
  ``rocpd_track``.
* ``rocpd_info_agent``: ``type`` (CPU/GPU), ``absolute_index`` (HSA node id → ``device_id``), ``type_index``
  (GPU ordinal), ``product_name``, ``extdata`` (JSON of the rocprofiler-sdk agent record: ``cu_count``,
  ``wave_front_size``, ``name`` = gfx arch…).
* ``rocpd_pmc_event`` (``event_id``, ``pmc_id``, ``value``) + ``rocpd_info_pmc`` (``id``, ``name``) → Counters of the
  dispatch with that ``event_id`` (values of one counter summed).
* ``rocpd_memory_copy`` (``name_id`` → ``rocpd_string``, ``size``, ``src_agent_id``/``dst_agent_id``) → ``memcpy``.
* ``rocpd_region`` (``name_id``, times, ``event_id`` → category string and correlation id) → ``runtime`` /
  ``annotation`` (markers).

The tests build databases from the documented schema; the stack-id link was checked on a real rocprofv3 database
(MI300X, ROCm 7: every ``correlation_id`` 0, every launch ↔ dispatch pair sharing a ``stack_id``).
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gpulens.collectors._amd import device_from_sdk_agent
from gpulens.collectors._dispatch import Dispatches, build_timeline, merge
from gpulens.collectors._process_split import split_processes
from gpulens.collectors._io import describe
from gpulens.collectors._sqlite import INT, REAL, TEXT, connect_ro, read_typed
from gpulens.collectors.base import Collector
from gpulens.collectors.rocprof_v1_trace import SQLITE_MAGIC, sqlite_tables
from gpulens.errors import TraceFormatError
from gpulens.timeline import Timeline
from gpulens.units import agree, plural

_COPY_KIND = {"HOST_TO_DEVICE": "HtoD", "DEVICE_TO_HOST": "DtoH", "DEVICE_TO_DEVICE": "DtoD", "HOST_TO_HOST": "HtoH"}


def _ints(*names: str) -> dict[str, str]:
    return dict.fromkeys(names, INT)


_IDS = ("id", "nid", "pid", "tid", "agent_id", "queue_id", "stream_id", "track_id", "event_id", "start_id", "end_id",
        "start", "end")
#: The columns read, per logical table, with their declared type (:mod:`._sqlite`): a TEXT id such as ``'10'`` is
#: read as 10, a value of no possible integer (``'x'``, ``1.5``, a BLOB) as unknown and counted. Columns not listed
#: are not read.
SCHEMA: dict[str, dict[str, str]] = {
    "rocpd_kernel_dispatch": {**_ints(*_IDS, "kernel_id", "dispatch_id", "private_segment_size", "group_segment_size",
                                      "workgroup_size_x", "workgroup_size_y", "workgroup_size_z", "grid_size_x",
                                      "grid_size_y", "grid_size_z"), "guid": TEXT},
    "rocpd_info_kernel_symbol": {**_ints("id", "sgpr_count", "arch_vgpr_count", "accum_vgpr_count"), "guid": TEXT,
                                 "kernel_name": TEXT, "display_name": TEXT},
    "rocpd_track": {**_ints("id", "agent_id", "queue_id"), "guid": TEXT},
    "rocpd_timestamp": {**_ints("id", "value"), "guid": TEXT},
    "rocpd_event": {**_ints("id", "category_id", "correlation_id", "stack_id"), "guid": TEXT},
    "rocpd_info_agent": {**_ints("id", "absolute_index", "type_index"), "guid": TEXT, "type": TEXT, "name": TEXT,
                         "generic_name": TEXT, "product_name": TEXT, "extdata": TEXT},
    "rocpd_pmc_event": {**_ints("id", "event_id", "pmc_id"), "value": REAL, "guid": TEXT},
    "rocpd_info_pmc": {"id": INT, "guid": TEXT, "name": TEXT},
    "rocpd_memory_copy": {**_ints(*_IDS, "name_id", "dst_agent_id", "src_agent_id", "size"), "guid": TEXT},
    "rocpd_region": {**_ints(*_IDS, "name_id"), "guid": TEXT},
    "rocpd_string": {"id": INT, "guid": TEXT, "string": TEXT},
    "rocpd_metadata": {"tag": TEXT, "value": TEXT},
    "rocpd_info_process": {"id": INT, "pid": INT, "guid": TEXT},
    "rocpd_info_node": {"id": INT, "guid": TEXT, "hostname": TEXT},
}


class _Db:
    """Table access by logical name (view, or union of UUID-suffixed tables), typed by :data:`SCHEMA`."""

    def __init__(self, con: sqlite3.Connection, names: set[str]):
        self.con, self.names = con, names
        self.coerced: dict[str, int] = {}  # logical table → values of the wrong type read as unknown
        self.unmatched_pmc = (0, 0)  # (counter values matching no kernel dispatch, dispatches without an event id)
        self._read: dict[str, pd.DataFrame | None] = {}

    def read(self, logical: str) -> pd.DataFrame | None:
        """The rows of ``logical`` (read once; later calls return the same frame)."""
        if logical not in self._read:
            self._read[logical] = self._read_now(logical)
        return self._read[logical]

    def _read_now(self, logical: str) -> pd.DataFrame | None:
        pat = re.compile(rf"^{logical}_[0-9A-Fa-f][0-9A-Fa-f_\-]*$")
        tables = [logical] if logical in self.names else [t for t in sorted(self.names) if pat.match(t)]
        parts = []
        for t in tables:
            df, bad = read_typed(self.con, t, SCHEMA[logical], flag=_TIME_COLUMNS)
            if bad:
                self.coerced[logical] = self.coerced.get(logical, 0) + bad
            parts.append(df)
        return pd.concat(parts, ignore_index=True) if parts else None


def _lookup(df: pd.DataFrame, key: str, table: pd.DataFrame | None, col: str, on: str = "id") -> pd.Series:
    """``table[col]`` for each ``df[key]`` (matching ``guid`` too when both have one); unknown where no row matches."""
    if table is None or key not in df or col not in table or on not in table:
        return pd.Series([None] * len(df), index=df.index, dtype=object)
    guids = pd.concat([df["guid"], table["guid"]]).nunique() if "guid" in df and "guid" in table else 0
    if guids > 1:  # several runs in one database: match (id, guid)
        keys = [on, "guid"]
        right = table.drop_duplicates(keys)
        left = df[[key, "guid"]].rename(columns={key: on}).astype({on: "Int64"})
        pos = pd.MultiIndex.from_frame(right[keys]).get_indexer(pd.MultiIndex.from_frame(left[keys]))
        return pd.Series(right[col].array.take(pos, allow_fill=True), index=df.index)
    # one run (one guid): match on the id alone, with sorted integer keys (ids are Int64 by SCHEMA; a key column
    # of unknowns from an absent column is made Int64 too); the first row of a repeated id wins
    rk = pd.array(table[on], dtype="Int64")
    lk = pd.to_numeric(pd.Series(df[key]), errors="coerce").round().astype("Int64").array
    rvalid = ~np.asarray(rk.isna())
    keys, first = np.unique(rk.to_numpy(dtype="int64", na_value=0)[rvalid], return_index=True)
    rows = np.flatnonzero(rvalid)[first]
    lvals = lk.to_numpy(dtype="int64", na_value=0)
    pos = np.clip(np.searchsorted(keys, lvals), 0, max(len(keys) - 1, 0))
    hit = ~np.asarray(lk.isna()) & (keys[pos] == lvals if len(keys) else False)
    idx = np.where(hit, rows[pos] if len(keys) else -1, -1)
    return pd.Series(table[col].array.take(idx, allow_fill=True), index=df.index)


#: Time columns whose unreadable values (text, real, blob) make their row's reason "unreadable timestamp".
_TIME_COLUMNS = ("start", "end", "value")


def _times(db: _Db, df: pd.DataFrame) -> tuple[pd.Series, pd.Series, np.ndarray]:
    """Start and end ns of each row of ``df`` (inline columns, or through ``rocpd_timestamp``), and the mask of rows
    whose start or end is stored but unreadable."""
    if "start" in df and "end" in df:
        bad = np.zeros(len(df), dtype=bool)
        for c in ("start:unreadable", "end:unreadable"):
            if c in df:
                bad |= df[c].to_numpy(dtype=bool)
        return df["start"], df["end"], bad
    ts = db.read("rocpd_timestamp")
    flag = "value:unreadable"
    bad = np.zeros(len(df), dtype=bool)
    if ts is not None and flag in ts:
        for key in ("start_id", "end_id"):
            bad |= _lookup(df, key, ts, flag).fillna(False).to_numpy(dtype=bool)
    return _lookup(df, "start_id", ts, "value"), _lookup(df, "end_id", ts, "value"), bad


def _node(n: Any) -> int | None:
    """An agent's ``absolute_index`` as an HSA node id, None when missing or impossible (negative, or 2^31 and
    more: a mangled row) — the agent's own id stands in for it then, for its events and its device record alike."""
    try:
        v = int(n) if pd.notna(n) else None
    except (TypeError, ValueError, OverflowError):
        return None
    return v if v is not None and 0 <= v < 2**31 else None


def _devices(agents: pd.DataFrame | None) -> tuple[list[dict], dict[int, int]]:
    """GPU device dicts and a map agent row id → HSA node id (:func:`_node`, else the agent id)."""
    devices, node_of = [], {}
    if agents is None:
        return devices, node_of
    for _, a in agents.iterrows():
        try:
            ext = json.loads(a.get("extdata") or "{}")
        except (TypeError, ValueError):
            ext = {}
        node = _node(a.get("absolute_index"))
        if node is None and pd.notna(a.get("id")):
            node = _node(a.get("id"))
        rec = {**(ext if isinstance(ext, dict) else {}), "type": a.get("type"), "node_id": node,
               "logical_node_type_id": a.get("type_index")}
        rec["product_name"] = a.get("product_name") or rec.get("product_name")
        rec["name"] = rec.get("name") or a.get("name") or a.get("generic_name")
        if pd.notna(a.get("id")):
            node_of[int(a["id"])] = node if node is not None else int(a["id"])
        dev = device_from_sdk_agent(rec)
        if dev:
            devices.append(dev)
    return devices, node_of


def _nodes(db: _Db, df: pd.DataFrame, agent: pd.Series | np.ndarray, node_of: dict[int, int]) -> list:
    """Per row, the HSA node id of the GPU agent ``agent`` (rocpd_info_agent ids of the rows of ``df``), matched
    with the row's ``guid`` when a database holds several runs (each process numbers its agents from 1: the ids
    collide in a ``rocpd merge``d database); the agent id itself when its row has no node id."""
    agent = pd.Series(np.asarray(agent, dtype=object), index=df.index)
    tmp = pd.DataFrame({"a": agent, **({"guid": df["guid"]} if "guid" in df else {})}, index=df.index)
    node = _lookup(tmp, "a", db.read("rocpd_info_agent"), "absolute_index")
    return [_node(n) if _node(n) is not None else (node_of.get(int(a), int(a)) if pd.notna(a) else None)
            for n, a in zip(node, agent)]


def _os_pid(db: _Db, df: pd.DataFrame) -> pd.Series:
    """Per row, the OS process id of the process that recorded it: the row's ``pid`` is the id of its
    ``rocpd_info_process`` row (matched with its ``guid`` when a database holds several runs, :func:`_lookup`)."""
    return _lookup(df, "pid", db.read("rocpd_info_process"), "pid")


def _correlation(db: _Db, df: pd.DataFrame) -> pd.Series:
    """Per row of ``df`` (a dispatch, copy or region with an ``event_id``), the id that ties a GPU record to the API
    call that enqueued it: ``rocpd_event.stack_id``, where rocprofiler-sdk stores the *internal* correlation id
    (``generateRocpd.cpp``: ``stack_id = correlation_id.internal``; the vendor's ``rocpd`` CSV export writes
    ``stack_id AS Correlation_Id``), and ``rocpd_event.correlation_id`` (the *external* id, 0 unless the application
    set one) only where a row has no stack id (a database written without that column)."""
    ev = db.read("rocpd_event")
    ext = _lookup(df, "event_id", ev, "correlation_id")
    if ev is None or "stack_id" not in ev:
        return ext
    internal = _lookup(df, "event_id", ev, "stack_id")
    return internal.where(internal.notna(), ext)


def _kernels(db: _Db, node_of: dict[int, int]) -> Dispatches | None:
    k = db.read("rocpd_kernel_dispatch")
    if k is None:
        return None
    sym, track = db.read("rocpd_info_kernel_symbol"), db.read("rocpd_track")
    start, end, bad_ts = _times(db, k)
    agent = k["agent_id"] if "agent_id" in k else _lookup(k, "track_id", track, "agent_id")
    queue = k["queue_id"] if "queue_id" in k else _lookup(k, "track_id", track, "queue_id")
    name = _lookup(k, "kernel_id", sym, "display_name")
    name = name.where(name.notna() & (name != ""), _lookup(k, "kernel_id", sym, "kernel_name"))
    d = Dispatches(n=len(k), unreadable_ts=bad_ts)
    d.cols.update(
        name=name.tolist(), start_ns=start, end_ns=end, stream_id=queue, dispatch_id=k.get("dispatch_id"),
        device_id=_nodes(db, k, agent, node_of),
        correlation_id=_correlation(db, k),
        lds_bytes=k.get("group_segment_size"), scratch_bytes=k.get("private_segment_size"),
        arch_vgpr=_lookup(k, "kernel_id", sym, "arch_vgpr_count"),
        accum_vgpr=_lookup(k, "kernel_id", sym, "accum_vgpr_count"), sgpr=_lookup(k, "kernel_id", sym, "sgpr_count"),
        pid=_os_pid(db, k))
    for ax in "xyz":
        d.cols[f"grid_items_{ax}"] = k.get(f"grid_size_{ax}")
        d.cols[f"block_{ax}"] = k.get(f"workgroup_size_{ax}")
    d.cols = {c: v for c, v in d.cols.items() if v is not None}
    pmc, info = db.read("rocpd_pmc_event"), db.read("rocpd_info_pmc")
    if pmc is not None and len(pmc) and "event_id" in k:
        pmc = pmc.assign(metric=_lookup(pmc, "pmc_id", info, "name").fillna("pmc_" + pmc["pmc_id"].astype(str)))
        # event ids restart in every run of a merged database: key on (guid, event_id) when it holds several
        keys = ["guid", "event_id"] if "guid" in pmc and "guid" in k and \
            pd.concat([pmc["guid"], k["guid"]]).nunique() > 1 else ["event_id"]
        # min_count=1: a counter whose only value is unreadable stays unknown, never a sum of nothing = 0
        wide = pmc.groupby([*keys, "metric"])["value"].sum(min_count=1).unstack("metric")
        target = pd.MultiIndex.from_frame(k[keys]) if len(keys) > 1 else k["event_id"].to_numpy()
        wide = wide.reindex(target)
        d.pmc = {m: wide[m].to_numpy(dtype="float64") for m in wide.columns}
        # a counter of no dispatch read: its dispatch row lost its event id (or never had one)
        lost = int((~pmc.set_index(keys).index.isin(target)).sum())
        db.unmatched_pmc = (lost, int(k["event_id"].isna().sum()))
    return d


def _copies(db: _Db, node_of: dict[int, int], strings: pd.DataFrame | None) -> Dispatches | None:
    m = db.read("rocpd_memory_copy")
    if m is None or not len(m):
        return None
    start, end, bad_ts = _times(db, m)
    name = _lookup(m, "name_id", strings, "string").fillna("memory_copy").astype(str)
    direction = name.str.replace("MEMORY_COPY_", "", regex=False)
    gpu_agent = np.where(direction.str.startswith("HOST_TO"), m.get("dst_agent_id"), m.get("src_agent_id"))
    d = Dispatches(n=len(m), unreadable_ts=bad_ts)
    d.cols.update(kind="memcpy", name=name.tolist(), start_ns=start, end_ns=end, bytes=m.get("size"),
                  device_id=_nodes(db, m, gpu_agent, node_of),
                  copy_kind=direction.map(_COPY_KIND).tolist(), pid=_os_pid(db, m), correlation_id=_correlation(db, m))
    return d


def _regions(db: _Db, strings: pd.DataFrame | None) -> Dispatches | None:
    r = db.read("rocpd_region")
    if r is None or not len(r):
        return None
    start, end, bad_ts = _times(db, r)
    cat = _lookup(pd.DataFrame({"e": _lookup(r, "event_id", db.read("rocpd_event"), "category_id")}), "e",
                  strings, "string").fillna("").astype(str)
    d = Dispatches(n=len(r), unreadable_ts=bad_ts)
    d.cols.update(kind=["annotation" if "MARKER" in c.upper() else "runtime" for c in cat],
                  name=_lookup(r, "name_id", strings, "string").tolist(), start_ns=start, end_ns=end,
                  device_id=[-1] * len(r), pid=_os_pid(db, r), correlation_id=_correlation(db, r))
    return d


class Rocpd(Collector):
    """rocpd SQLite (see module docstring)."""

    name = "rocpd"
    suffixes = (".db",)
    priority = 14

    def sniff(self, path: Path, head: bytes) -> bool:
        return head.startswith(SQLITE_MAGIC) and any(t.startswith("rocpd_") for t in sqlite_tables(path))

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        path = Path(path)
        names = sqlite_tables(path)
        if not any(t.startswith("rocpd_kernel_dispatch") or t.startswith("rocpd_info_agent") for t in names):
            raise TraceFormatError(path, "not a rocpd database (no rocpd_kernel_dispatch / rocpd_info_agent table)")
        con = connect_ro(path)
        try:
            db = _Db(con, names)
            devices, node_of = _devices(db.read("rocpd_info_agent"))
            strings = db.read("rocpd_string")
            parts = [x for x in (_kernels(db, node_of), _copies(db, node_of, strings), _regions(db, strings)) if x]
            meta_rows = db.read("rocpd_metadata")
            procs = db.read("rocpd_info_process")
            try:  # the run's host (rocpd_info_node): its clock is that host's own (:mod:`._session_clock`)
                nodes = db.read("rocpd_info_node")
            except (sqlite3.Error, pd.errors.DatabaseError, KeyError):
                nodes = None
        except (sqlite3.Error, pd.errors.DatabaseError, KeyError, UnicodeDecodeError) as exc:
            if isinstance(exc, KeyError):  # a column of the rocpd schema is absent (an edited or foreign database)
                col = str(exc.args[0] if exc.args else exc).replace("Column not found: ", "")
                raise TraceFormatError(path, f"cannot read the rocpd tables: a table lacks the column {col!r} "
                                             "rocprofv3 writes (an edited or partial database)") from None
            raise TraceFormatError(path, f"cannot read the rocpd tables ({describe(exc)})") from None
        finally:
            con.close()
        if parts:
            rows = merge(parts)
            rows.gpus = [int(d["device_id"]) for d in devices if d.get("device_id") is not None] \
                if devices or node_of else None  # no agent row: the GPUs are not listed (not "no GPU")
            tl = build_timeline(rows, self.name, path)
        else:
            tl = Timeline()
        version = None
        if meta_rows is not None and {"tag", "value"} <= set(meta_rows.columns):
            hit = meta_rows.loc[meta_rows["tag"] == "schema_version", "value"]
            version = str(hit.iloc[0]) if len(hit) else None
        pids = sorted({int(p) for p in procs["pid"].dropna()}) if procs is not None and "pid" in procs else []
        hosts = sorted({str(h) for h in nodes["hostname"].dropna()}) if nodes is not None and "hostname" in nodes else []
        tl.meta.sources = [{"path": str(path), "collector": self.name, "size_bytes": path.stat().st_size,
                            "rank": 0, "schema_version": version, "rank_source": "process",
                            "process_id": pids[0] if len(pids) == 1 else None, "process_ids": pids,
                            "hostname": hosts[0] if len(hosts) == 1 else None}]
        tl.meta.devices = devices
        from gpulens.collectors._nsys_more import mark_incomplete  # launches without any kernel: say so (T06)

        mark_incomplete(tl, path, "the database has no kernel dispatch record",
                        "record with rocprofv3 --kernel-trace (or --sys-trace) so the kernels are traced")
        if db.coerced:
            tl.meta.warnings.append(f"{path}: {plural(sum(db.coerced.values()), 'value(s)')} of the wrong type read as "
                                    f"unknown ("
                                    + ", ".join(f"{t} ×{n}" for t, n in sorted(db.coerced.items()))
                                    + "): text, real or blob where the rocpd schema has an integer, or a blob in a "
                                    "text column")
        lost, no_id = db.unmatched_pmc
        if lost:
            tl.meta.warnings.append(f"{path}: {plural(lost, 'counter value(s)')} of rocpd_pmc_event match no kernel "
                                    "dispatch by event id"
                                    + (f" ({plural(no_id, 'dispatch row(s)')} {agree(no_id, 'carries', 'carry')} no event id)"
                                       if no_id else "")
                                    + ": not read — no kernel's counters include them")
        said = split_processes(tl, path, pids, "database")  # T12 of ../shared/cases: a `rocpd merge` of processes
        if said:
            tl.meta.warnings.append(said)
        return tl.validate()
