"""rocprofv3 (rocprofiler-sdk) ``--output-format csv`` files and folders → Timeline.

Files (one per domain, optionally prefixed ``<pid>_``; columns mapped by name, see
:mod:`gpulens.collectors._amdcsv`):

* ``kernel_trace.csv`` — one row per dispatch: ``Kind, Agent_Id, Queue_Id, [Stream_Id,] Thread_Id, Dispatch_Id,
  Kernel_Id, Kernel_Name, Correlation_Id, Start_Timestamp, End_Timestamp, Private_Segment_Size, Group_Segment_Size,
  [LDS_Block_Size, Scratch_Size, VGPR_Count, Accum_VGPR_Count, SGPR_Count,] Workgroup_Size_{X,Y,Z},
  Grid_Size_{X,Y,Z}``. Grid sizes are in work-items (converted to workgroups). A header-only file is 0 kernels.
* ``memory_copy_trace.csv`` — ``Kind, Direction, Source_Agent_Id, Destination_Agent_Id, Correlation_Id,
  Start_Timestamp, End_Timestamp[, …]``: ``memcpy`` events on the GPU side of the copy.
* ``counter_collection.csv`` — long: one row per dispatch × counter (``Counter_Name``, ``Counter_Value``; rows of the
  same counter for one dispatch, one per dimension instance, are summed). Alone it has no timestamps, so its
  dispatches are rejected and the values kept in ``tables["unattached_counters"]``; in a folder with
  ``kernel_trace.csv`` the values attach to the kernel of the same ``Dispatch_Id`` and agent. Dispatch ids restart
  in every process: rows of two ``Process_Id`` are two dispatches, and counters of several processes beside a
  kernel trace that records no process stay unattached (with a warning), never joined by id alone.
* ``hip_api_trace.csv`` / ``hsa_api_trace.csv`` / ``marker_api_trace.csv`` — ``Domain, Function, …,
  Start_Timestamp, End_Timestamp``: ``runtime`` events (markers: ``annotation``).
* ``agent_info.csv`` — agent properties → ``meta.devices``. Another file of the set given alone is read with the
  ``<prefix>agent_info.csv`` rocprofv3 wrote beside it (same prefix, same folder: :func:`agents_beside`), so the
  GPU is known whichever of the run's files is given — as rocprof v1's ``results.sysinfo.txt`` is.
* ``memory_allocation_trace.csv`` / ``scratch_memory_trace.csv`` — ``Kind, Operation, Agent_Id, …,
  Start_Timestamp, End_Timestamp[, Allocation_Size]``: allocator calls, kept as host events of kind ``other``
  named by ``Operation`` (no GPU work: alone, such a file is a valid output with nothing to analyse).

``device_id`` is the agent's HSA node id: ``Agent_Id`` reads ``1``, ``Agent 1`` or ``GPU 0`` depending on
``--agent-index``; with the run's ``agent_info.csv`` each label is resolved to the node id it lists
(:mod:`gpulens.collectors._agent_index`: ``GPU 0`` is the first GPU agent, not node 0 — usually the CPU); without
it, the number in the label (the default, relative index, equals the node id on usual systems).

A folder holding these files (:class:`RocprofV3CsvDir`) loads as one Timeline of that run; several ``<pid>_`` file
sets in it are several processes of one job, one rank each (numbered in pid order, with a warning).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from gpulens._arrays import all_missing
from gpulens.collectors._agent_index import AgentTable, agent_table, agent_texts, chosen, resolve_agents
from gpulens.collectors._amd import device_from_sdk_agent
from gpulens.collectors._amd_generations import V1, refuse_other_generation
from gpulens.collectors._amdcsv import ALIASES, NAME_COLUMNS, agent_number, dispatches_from_rows
from gpulens.collectors._csvrows import read_rows
from gpulens.collectors._dispatch import Dispatches, build_timeline
from gpulens.collectors._process_runs import BuiltRun, ProcessRun, build_runs
from gpulens.collectors._links import first_of_each_file, links_twice_warning, loops_back
from gpulens.collectors._ranks import number_rankless, read_each
from gpulens.collectors.base import Collector
from gpulens.collectors.rocprof_v1 import csv_header, read_text, source_meta
from gpulens.errors import TraceFormatError
from gpulens.timeline import GPU_KINDS, Timeline, TimelineMeta, concat
from gpulens.units import plural

_COPY_KIND = {"HOST_TO_DEVICE": "HtoD", "DEVICE_TO_HOST": "DtoH", "DEVICE_TO_DEVICE": "DtoD",
              "HOST_TO_HOST": "HtoH", "PEER_TO_PEER": "PtoP"}


#: Why a rocprofv3 kernel trace without register columns gives no registers per dispatch (``meta.sources[i]
#: ["launch_fields_unrecorded"]``, read by the occupancy analysis): its layout, with ``Private_Segment_Size`` /
#: ``Group_Segment_Size`` (LDS, read) and no ``VGPR_Count`` / ``Accum_VGPR_Count`` / ``SGPR_Count``, is the one
#: rocprofv3 wrote before it added them (ROCm 6.2's, e.g. the rocprofiler-sdk documentation's own kernel_trace.csv),
#: so tracing again with the same option gives the same columns.
NO_REGISTER_COLUMNS = ("this rocprofv3 kernel trace has no VGPR_Count / Accum_VGPR_Count / SGPR_Count columns (the "
                       "older layout, with Private_Segment_Size and Group_Segment_Size), so it cannot record them: "
                       "trace again with a newer rocprofv3 (--kernel-trace), whose kernel_trace.csv carries them, or "
                       "collect rocprof-compute / rocprofv3 --pmc counters for a measured occupancy")


def v3_kind(cols: list[str]) -> str | None:
    """Which rocprofv3 CSV a header belongs to (``kernel``, ``counter``, ``memcpy``, ``api``, ``agent``, ``other``:
    memory allocation / scratch memory), or None."""
    s = set(cols)
    if {"counter_name", "counter_value"} <= s:
        return "counter"
    if {"kernel_name", "start_timestamp"} <= s and ("agent_id" in s or "kind" in s):
        return "kernel"
    if "start_timestamp" in s and ({"direction", "source_agent_id"} & s):
        return "memcpy"
    if {"domain", "function", "start_timestamp"} <= s:
        return "api"
    if "agent_type" in s and ({"cu_count", "wave_front_size", "node_id"} & s):
        return "agent"
    if {"kind", "operation", "start_timestamp", "end_timestamp"} <= s:
        return "other"
    return None


def _rows(path: Path, strict: bool) -> tuple[list[str], list[list], list[str], int]:
    text, size = read_text(path)
    header, rows, warnings = read_rows(path, text, strict, NAME_COLUMNS + ("function",))
    return header, rows, warnings, size


def _memcpy(path: Path, header: list[str], rows: list[list]) -> Dispatches:
    low = [h.lower() for h in header]
    df = pd.DataFrame(rows, columns=low, dtype=object)
    d = dispatches_from_rows(path, ["Kernel_Name" if h.lower() == "direction" else h for h in header], rows,
                             kind="memcpy", require_name=False)
    if "direction" not in df:
        df["direction"] = "MEMORY_COPY"
        d.cols["name"] = ["MEMORY_COPY"] * d.n
    direction = df["direction"].astype(str).str.replace("MEMORY_COPY_", "", regex=False)
    d.cols["copy_kind"] = direction.map(_COPY_KIND).tolist()
    # agent cells as rocprofv3 writes them: 1, "Agent 1" or "GPU 0" (--agent-index): read as _agent_index says
    src = pd.to_numeric(agent_number(df["source_agent_id"]), errors="coerce") if "source_agent_id" in df else None
    dst = pd.to_numeric(agent_number(df["destination_agent_id"]), errors="coerce") \
        if "destination_agent_id" in df else None
    if src is not None and dst is not None:
        to_dst = direction.str.startswith("HOST_TO").to_numpy()
        d.cols["device_id"] = np.where(to_dst, dst, src)
        d.agent_text = chosen(agent_texts(df["source_agent_id"]), agent_texts(df["destination_agent_id"]), to_dst)
    for c in ("size", "bytes", "copy_bytes"):
        if c in df:
            d.cols["bytes"] = pd.to_numeric(df[c], errors="coerce")
            d.pmc.pop(header[low.index(c)], None)
            break
    d.pmc = {}
    return d


def counter_dispatches(path: Path, header: list[str], rows: list[list]) -> Dispatches:
    """Pivot a long ``counter_collection.csv`` into one dispatch per (Dispatch_Id, Agent_Id, Process_Id), counters
    as pmc (dispatch ids restart in each process, so the process is part of the key)."""
    low = [h.lower() for h in header]
    df = pd.DataFrame(rows, columns=low, dtype=object)
    for need in ("dispatch_id", "counter_name", "counter_value"):
        if need not in df:
            raise TraceFormatError(path, f"missing required column {need!r}")
    agent = df["agent_id"] if "agent_id" in df else pd.Series(["0"] * len(df))
    # dispatch ids restart in every process: rows of two processes (Process_Id) are two dispatches, never summed
    pid = df["process_id"].astype(str) if "process_id" in df else ""
    key = df["dispatch_id"].astype(str) + "|" + agent.astype(str) + "|" + pid
    first = ~key.duplicated()
    base_rows = [rows[i] for i in np.flatnonzero(first.to_numpy())]
    keep = [i for i, h in enumerate(low) if h not in ("counter_name", "counter_value")]
    d = dispatches_from_rows(path, [header[i] for i in keep], [[r[i] for i in keep] for r in base_rows])
    values = pd.to_numeric(df["counter_value"], errors="coerce")
    text = df["counter_value"].astype(str).str.strip()
    unreadable = values.isna() & df["counter_value"].notna() & ~text.str.lower().isin(["", "nan", "none"])
    if unreadable.any():
        at = int(np.flatnonzero(unreadable.to_numpy())[0])
        d.unreadable_counter_cells = int(unreadable.sum())
        d.unreadable_counter_example = f"{text.iloc[at][:40]!r} in {df['counter_name'].iloc[at]}"
    # sum per (dispatch, counter) with min_count=1: a counter whose only value is unreadable stays unknown (NaN),
    # never a sum of nothing = 0
    wide = pd.DataFrame({"k": key, "m": df["counter_name"].astype(str), "v": values}).groupby(
        ["k", "m"], sort=False)["v"].sum(min_count=1).unstack("m")
    order = key[first].tolist()
    wide = wide.reindex(order)
    d.pmc = {m: wide[m].to_numpy(dtype="float64") for m in wide.columns}
    return d


def _api(path: Path, header: list[str], rows: list[list]) -> Dispatches:
    low = [h.lower() for h in header]
    d = dispatches_from_rows(path, ["Kernel_Name" if h.lower() == "function" else h for h in header], rows,
                             kind="runtime")
    if "domain" in low:
        dom = [str(r[low.index("domain")]).upper() for r in rows]
        d.cols["kind"] = ["annotation" if "MARKER" in x else "runtime" for x in dom]
    d.cols["device_id"] = [-1] * d.n
    d.cols.pop("stream_id", None)
    d.pmc = {}
    return d


def _other(path: Path, header: list[str], rows: list[list]) -> Dispatches:
    """Allocator rows (memory allocation / scratch memory traces) → host events of kind ``other``."""
    d = dispatches_from_rows(path, ["Kernel_Name" if h.lower() == "operation" else h for h in header], rows,
                             kind="other")
    d.cols["device_id"] = [-1] * d.n
    d.cols.pop("stream_id", None)
    d.pmc = {}
    return d


def load_file(path: Path, strict: bool = True) -> tuple[str, Dispatches | AgentTable, TimelineMeta, list[str]]:
    """Parse one rocprofv3 CSV: (kind, Dispatches — or for ``agent_info.csv`` its :class:`AgentTable` —, meta,
    warnings)."""
    header, rows, warnings, size = _rows(path, strict)
    kind = v3_kind([h.lower() for h in header])
    if kind is None:  # a file whose content lacks a key column: the name tells which table it should be
        m = re.search(r"(kernel_trace|counter_collection|memory_copy_trace|api_trace|agent_info)\.csv$", path.name)
        kind = {"kernel_trace": "kernel", "counter_collection": "counter", "memory_copy_trace": "memcpy",
                "api_trace": "api", "agent_info": "agent"}.get(m.group(1)) if m else None
    meta = TimelineMeta(sources=[source_meta(path, "rocprofv3_csv", size, rows=len(rows), table=kind)])
    if kind == "agent":
        low = [h.lower() for h in header]
        return kind, agent_table([dict(zip(low, r)) for r in rows], device_from_sdk_agent), meta, warnings
    if kind == "kernel":
        if not {h.lower() for h in header} & set(ALIASES["arch_vgpr"]):
            meta.sources[0]["launch_fields_unrecorded"] = NO_REGISTER_COLUMNS
        return kind, dispatches_from_rows(path, header, rows), meta, warnings
    if kind == "counter":
        return kind, counter_dispatches(path, header, rows), meta, warnings
    if kind == "memcpy":
        return kind, _memcpy(path, header, rows), meta, warnings
    if kind == "api":
        return kind, _api(path, header, rows), meta, warnings
    if kind == "other":
        return kind, _other(path, header, rows), meta, warnings
    raise TraceFormatError(path, "not a rocprofv3 CSV (no Kernel_Name/Counter_Name/Direction/Function column)")


class RocprofV3Csv(Collector):
    """One rocprofv3 CSV file (see module docstring)."""

    name = "rocprofv3_csv"
    suffixes = ("kernel_trace.csv", "memory_copy_trace.csv", "counter_collection.csv", "agent_info.csv")
    priority = 25

    def sniff(self, path: Path, head: bytes) -> bool:
        return v3_kind(csv_header(head)) is not None

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        path = Path(path)
        kind, d, meta, warnings = load_file(path, strict)
        if kind == "agent":
            meta.devices = d.devices
            meta.warnings = warnings + [f"{path}: agent description only, no events"]
            return Timeline(meta=meta).validate()
        if isinstance(d, Dispatches):
            d.gpus = agents_beside(path, meta, warnings, strict, d)
        tl = build_timeline(d, self.name, path, meta=meta, warnings=warnings)
        if kind == "api":  # launch calls recorded, their kernels in a file not given: say so (as nsys does)
            from gpulens.collectors._nsys_more import incomplete_capture

            advice = _api_only_advice(path)
            note = incomplete_capture(tl.events, "this file holds API calls only", advice, rejected=tl.rejected)
            names = tl.events["name"].astype(str)
            if note is None and not tl.events["kind"].isin(list(GPU_KINDS)).any() \
                    and not names.str.match(r"(?i)[nr]ccl").any():
                # no launch among the calls (HSA, marker, compiler API): still one domain of a rocprofv3 output, where
                # GPU work is never written — "nothing ran on a GPU" is not what the file shows. Collective-library
                # calls are judged by incomplete_capture above: setup calls alone (ncclGetVersion,
                # ncclCommInitRank) enqueue no GPU work, so their file is no incomplete capture
                note = (f"this file holds API calls only ({plural(len(tl.events), 'row(s)')}): rocprofv3 writes GPU work to "
                        f"kernel_trace.csv / memory_copy_trace.csv, not here — {advice}")
            if note:
                tl.meta.sources[0]["incomplete_capture"] = note
        return tl


def _api_only_advice(path: Path) -> str:
    """What to do about an API-only rocprofv3 CSV: analyse its output folder when that folder holds the run's GPU
    work files (``kernel_trace.csv``, ``memory_copy_trace.csv``…), else record them — a folder of API traces alone
    (the folder itself given, or one holding no trace of GPU work) is not helped by being analysed again."""
    record = "record with --kernel-trace (or --sys-trace) so the kernels are traced"
    try:
        beside = [f.name for f in path.parent.iterdir() if f != path]
    except OSError:
        beside = []
    if any(re.search(r"(kernel_trace|memory_copy_trace|counter_collection)\.csv$", n) for n in beside):
        return f"analyse the rocprofv3 output folder ({path.parent.name}/), which holds them, or {record}"
    return f"its folder holds no kernel_trace.csv either: {record}"


def agents_beside(path: Path, meta: TimelineMeta, warnings: list[str], strict: bool = True,
                  d: Dispatches | None = None) -> list[int] | None:
    """Devices of the ``<prefix>agent_info.csv`` rocprofv3 wrote beside ``path`` (one of the same file set: same
    folder, same ``<pid>_`` / ``-o`` prefix) added to ``meta.devices``, with a note in ``warnings`` (one line naming
    the file, or why it was not read). Returns the GPU ids it lists (the ``gpus`` a :class:`Dispatches` takes, as in
    :class:`RocprofV3CsvDir`), or None when there is no such file or ``meta`` already has devices. The agent cells
    of ``d`` are re-pointed to the node ids the file lists (:func:`~gpulens.collectors._agent_index.resolve_agents`)."""
    m = _DOMAIN_FILE.match(path.name)
    sib = path.parent / f"{m.group(1)}agent_info.csv" if m and m.group(2) != "agent_info" else None
    if sib is None or not sib.is_file() or meta.devices:
        return None
    try:
        kind, devices, _, _ = load_file(sib, strict)
    except (TraceFormatError, OSError) as exc:
        warnings.append(f"{sib}: not read beside {path.name} ({getattr(exc, 'reason', exc)})")
        return None
    if kind == "agent" and not devices.devices and devices.node_of:  # agents, none a GPU: said by the dispatch notes
        warnings.append(f"{path}: read with {sib.name} beside it (it lists no GPU agent)")
        return []
    if kind != "agent" or not devices.devices:
        warnings.append(f"{sib}: not read beside {path.name} (no agent row in it)")
        return None
    table, devices = devices, devices.devices
    meta.devices += devices
    meta.sources[0].setdefault("siblings", []).append(str(sib))
    warnings.append(f"{path}: read with {sib.name} beside it (the devices of the same run)")
    if d is not None:
        resolve_agents(d, table)
    return [int(dv["device_id"]) for dv in devices if dv.get("device_id") is not None]


def _pids(d: Dispatches, pid: int | None) -> pd.Series:
    """Each row's process id as text: its own ``Process_Id`` column, else ``pid`` (the file set's ``<pid>_``
    prefix), else empty (not known)."""
    if "pid" in d.cols:
        return d.get("pid").astype("string").fillna("")
    return pd.Series([str(pid) if pid is not None else ""] * d.n, dtype="string")


def _merge_counters(kt: Dispatches, cc: Dispatches, pid: int | None = None) -> tuple[Dispatches | None, str]:
    """Move ``cc``'s counters onto the kernels of ``kt`` with the same (dispatch id, device, process); return the
    counter dispatches that matched no kernel (None when all matched) and why they did not (``""`` when all did).

    Dispatch ids restart in every process, so the process is part of the key wherever both sides know it
    (``Process_Id`` column, or the ``<pid>_`` prefix ``pid`` of the file set). Counters of several processes beside
    a kernel trace that records none, and kernel-trace dispatches whose key repeats (two processes in one file), are
    not attached to a guess: they stay unattached, and the reason says so."""
    k_pid, c_pid = _pids(kt, pid), _pids(cc, pid)
    c_procs = set(c_pid) - {""}
    # one process on the counter side: the file set is that process (the key stays (dispatch, agent), as before)
    use_pid = (len(c_procs) > 1 or "pid" in kt.cols) and bool(c_procs) and bool((k_pid != "").all())
    k_key = pd.Series(kt.get("dispatch_id").astype(str) + "|" + kt.get("device_id").astype(str)
                      + ("|" + k_pid.astype(str) if use_pid else ""))
    c_key = pd.Series(cc.get("dispatch_id").astype(str) + "|" + cc.get("device_id").astype(str)
                      + ("|" + c_pid.astype(str) if use_pid else ""))
    pos = pd.Series(np.arange(kt.n), index=k_key.to_numpy())
    twice = set(pos.index[pos.index.duplicated()])
    pos = pos[~pos.index.duplicated()]
    where = c_key.map(pos)
    ambiguous = c_key.isin(twice).to_numpy().copy()
    if len(c_procs) > 1 and not use_pid:
        ambiguous[:] = True
    hit = where.notna().to_numpy() & ~ambiguous
    why = ""
    if len(c_procs) > 1 and not use_pid:
        why = (f"counters of {len(c_procs)} processes (Process_Id {', '.join(sorted(c_procs, key=_natural_int))}) "
               "beside a kernel trace that records no process: dispatch ids restart per process, so they are not "
               "attached (pass each process's files with their <pid>_ prefix)")
    elif ambiguous.any():
        why = (f"{int(ambiguous.sum())} match a Dispatch_Id that the kernel trace lists more than once on the same "
               "agent (two processes in one file?): not attached to a guess")
    elif not hit.all():
        why = "match no kernel_trace dispatch"
    tgt = where[hit].astype("int64").to_numpy()
    for m, vals in cc.pmc.items():
        arr = np.asarray(kt.pmc.get(m, np.full(kt.n, np.nan)), dtype="float64").copy()
        arr[tgt] = vals[hit]
        kt.pmc[m] = arr
    for res in ("arch_vgpr", "accum_vgpr", "sgpr", "lds_bytes", "scratch_bytes"):
        if res in cc.cols:  # newer counter_collection.csv carries register counts the kernel trace lacks
            have = kt.get(res)
            fill = pd.Series(all_missing(kt.n))
            fill.iloc[tgt] = cc.get(res)[hit].to_numpy()
            kt.cols[res] = have.fillna(fill) if res in kt.cols else fill
    if hit.all():
        return None, ""
    miss = Dispatches(n=int((~hit).sum()), sci_notation_rows=0)
    for k, v in cc.cols.items():
        miss.cols[k] = v if isinstance(v, str) else pd.Series(list(v))[~hit].tolist()
    miss.pmc = {m: v[~hit] for m, v in cc.pmc.items()}
    return miss, why


def _natural_int(text: str) -> tuple:
    return (0, int(text), "") if text.isdigit() else (1, 0, text)


#: ``<prefix><domain>.csv``: the prefix (``<pid>_`` or ``-o``'s name and ``_``) is whatever precedes the domain. An
#: API domain is one lowercase word before ``_api_trace`` (``hip``, ``hsa``, ``marker``, ``rccl``, ``rocdecode`` …), so
#: ``42_hip_api_trace.csv`` and ``decode_hip_api_trace.csv`` keep their prefix and join their process's other files.
_DOMAIN_FILE = re.compile(r"^(.*?)(kernel_trace|counter_collection|memory_copy_trace|[a-z]+_api_trace|agent_info|"
                          r"memory_allocation_trace|scratch_memory_trace)\.csv$", re.DOTALL)  # any name: "\n" too
#: the per-name summaries rocprofv3 ``--stats`` writes beside the traces (``<pid>_kernel_stats.csv``,
#: ``<pid>_hip_api_stats.csv``, ``<pid>_memory_copy_stats.csv``, ``<pid>_domain_stats.csv``…)
_STATS_FILE = re.compile(r"^(.*?)((?:[a-z]+_api|kernel|memory_copy|memory_allocation|scratch_memory|domain)"
                         r"_stats)\.csv$", re.DOTALL)


def _files(path: Path, twice: list[str] | None = None) -> list[Path]:
    """Files of ``path`` and of its direct subfolders (rocprofv3 writes ``<output>/<hostname>/<pid>_*.csv``), each
    file once: a subfolder that is a link back to ``path`` (or above it) and a link to a file already listed are
    passed over (:mod:`._links`: read again, they were another process holding the same kernels, every total
    doubled), named in ``twice`` when given."""
    out = []
    for f in sorted(path.iterdir(), key=lambda f: f.name):  # by name: Path order within one folder, cheaper
        if f.is_file():
            out.append(f)
        elif f.is_dir() and not f.name.startswith("."):
            if loops_back(f, path):
                if twice is not None:
                    twice.append(f"{f.name}/ (= {path.name}/)")
                continue
            out += sorted((g for g in f.iterdir() if g.is_file()), key=lambda g: g.name)
    out, again = first_of_each_file(out)
    if twice is not None:
        twice += again
    return out


def _stats_only(files: list[Path]) -> bool:
    """Whether ``files`` are rocprofv3 ``--stats`` summaries (``<pid>_kernel_stats.csv``, ``<pid>_hip_api_stats.csv``,
    ``<pid>_domain_stats.csv``…) with no trace beside them and nothing else gpulens reads: one file set per process,
    read as the process's summaries (one rank per process, never one per summary file)."""
    from gpulens.collectors import sniff

    stats = [f for f in files if _STATS_FILE.match(f.name)]
    if not stats or len(files) > 64:
        return False
    for f in files:
        if f in stats:
            continue
        try:
            c = sniff(f)
        except (OSError, TraceFormatError):
            return False
        if c is not None and not _DOMAIN_FILE.match(f.name):
            return False
    return True


def _generation_v1(f: Path) -> bool:
    """Whether a file beside rocprofv3 CSVs is a rocprof v1 trace (another run: see ``_amd_generations``)."""
    from gpulens.collectors import sniff

    try:
        c = sniff(f)
    except (OSError, TraceFormatError):
        return False
    return c is not None and c.name in V1


class RocprofV3CsvDir(Collector):
    """A rocprofv3 CSV output folder (or its parent holding ``<hostname>/`` subfolders): kernel trace + copies +
    API calls + counters + agents as one Timeline; files sharing a ``<pid>_`` prefix are one process."""

    name = "rocprofv3_csv_dir"
    accepts_dirs = True
    priority = 25

    def sniff(self, path: Path, head: bytes) -> bool:
        if not path.is_dir():
            return False
        files = _files(path)
        return any(re.search(r"(kernel_trace|counter_collection|memory_copy_trace)\.csv$", f.name) for f in files) \
            or _stats_only(files)

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        path = Path(path)
        groups: dict[str, list[Path]] = {}
        rest: list[Path] = []
        twice: list[str] = []
        for f in _files(path, twice):
            m = _DOMAIN_FILE.match(f.name) or _STATS_FILE.match(f.name)
            if f.is_file() and m:
                groups.setdefault(str(f.parent / m.group(1)), []).append(f)
            elif f.is_file():
                rest.append(f)
        note = refuse_other_generation(path, "v3", [f for fs in groups.values() for f in fs],
                                       [f for f in rest if _generation_v1(f)], strict)
        def one(group: tuple[str, list[Path]]) -> tuple[str, ProcessRun]:
            prefix, files = group
            pid = re.match(r"^([0-9]+)_$", Path(prefix).name)
            run = self._read_run(files, strict, int(pid.group(1)) if pid else None)
            run.mark(rank_source="process", process_id=int(pid.group(1)) if pid else None)  # a process: no rank
            return Path(prefix).name or path.name, run

        if not groups:
            raise TraceFormatError(path, "no rocprofv3 CSV file in this folder")
        # one process whose files cannot be read (an empty kernel_trace.csv beside the others'): the rest, partial
        parts, unread = read_each(list(groups.items()), one)
        linked = [links_twice_warning(path, twice)] if twice else []
        if len(parts) == 1:
            tl = parts[0][1].timeline()
        else:
            notes = number_rankless(parts)
            tl = concat(build_runs([t for _, t in parts]))  # the rows of all processes checked and built at once
            linked += [f"{path}: {n}" for n in notes]
        if unread:
            tl.meta.unread, tl.meta.rank_files = unread, len(groups)
            linked.insert(0, f"{path}: {tl.meta.unread_text()}")
        tl.meta.warnings[:0] = ([note] if note else []) + linked
        from gpulens.collectors import sniff
        from gpulens.collectors._folder_files import not_read_note, unread_in_folder

        # a file of no domain this reader takes (a PC-sampling CSV beside the kernel trace): said, never passed over
        if unread := unread_in_folder({f: sniff(f) for f in rest if not _generation_v1(f)}):
            tl.meta.warnings.append(not_read_note(path, unread))
        return tl

    def _read_run(self, files: list[Path], strict: bool, pid: int | None = None) -> ProcessRun:
        """Read one process's files (not yet built: :class:`~gpulens.collectors._process_runs.ProcessRun`)."""
        loaded = {}
        metas, warnings, devices = [], [], []
        table: AgentTable | None = None
        stats = [f for f in files if _STATS_FILE.match(f.name) and not _DOMAIN_FILE.match(f.name)]
        if len(stats) == len(files):  # summaries only (--stats without the trace files): each read as it is alone
            return BuiltRun(_summaries(stats, strict), self.name)
        for f in files:
            if f in stats:
                continue
            try:
                kind, d, meta, w = load_file(f, strict)
            except TraceFormatError as exc:  # an emptied / zeroed file of the run: lenient reads the others
                if strict:
                    raise
                warnings.append(f"{f}: not read ({exc.reason}); the run's other files are")
                continue
            metas += meta.sources
            warnings += w
            if kind == "agent":
                devices += d.devices
                table = d if table is None else table
            else:
                loaded.setdefault(kind, []).append((f, d))
        rows = []
        # the GPUs agent_info.csv lists: a row without an agent goes to the only one (or is counted: _dispatch)
        gpus = [int(dv["device_id"]) for dv in devices if dv.get("device_id") is not None] \
            if devices or (table is not None and table.node_of) else None  # a CPU-only agent list lists no GPU
        for items in loaded.values():
            for _, d in items:
                if isinstance(d, Dispatches):
                    d.gpus = gpus
                    resolve_agents(d, table)
        kernels = loaded.pop("kernel", [])
        counters = loaded.pop("counter", [])
        for i, (f, d) in enumerate(kernels):
            if i == 0:
                for cf, cd in counters:
                    miss, why = _merge_counters(d, cd, pid)
                    if miss is not None:
                        loaded.setdefault("counter", []).append((cf, miss))
                        warnings.append(f"{cf}: {miss.n} of {plural(cd.n, 'counter dispatch(es)')} not attached to a "
                                        f"kernel: {why}")
                    else:
                        warnings.append(f"{cf}: counters of {plural(cd.n, 'dispatch(es)')} attached to their kernels")
                counters = []
            rows.append((f, d))
        for kind, items in list(loaded.items()) + [("counter", counters)]:
            rows += items
        finish = (lambda tl: _read_stats(tl, stats, kernels, strict)) if stats else None
        meta = TimelineMeta()  # as read: no scrub yet (it would make truncation notes plain text)
        meta.sources, meta.devices, meta.warnings = metas, devices, warnings
        return ProcessRun(rows, meta, self.name, finish)


def _summaries(stats: list[Path], strict: bool) -> Timeline:
    """One process's ``*_stats.csv`` summaries with no trace file beside them: each read as the stats reader reads it
    alone (the kernel summary is the per-kernel summary analysed; the API/copy/domain ones side tables), as one
    Timeline."""
    from gpulens.collectors.rocprof_v1 import RocprofStats

    return concat([RocprofStats().collect(f, strict=strict) for f in stats]).validate()


def _read_stats(tl: Timeline, stats: list[Path], kernels: list, strict: bool) -> list[str]:
    """Read the ``*_stats.csv`` summaries of one file set into ``tl.tables["rocprof_stats"]`` (sources added to
    ``tl.meta.sources``); a kernel summary beside a kernel trace is cross-checked against it
    (:func:`._stats_check.kernel_stats_check`). Returns the warnings: what each summary gave, or why it was not read."""
    from gpulens.collectors._stats_check import kernel_stats_check
    from gpulens.collectors.rocprof_v1 import RocprofStats

    out, tables = [], []
    for f in stats:
        try:
            st = RocprofStats().collect(f, strict=strict)
        except TraceFormatError as exc:
            out.append(f"{f}: not read ({exc.reason}); the run's other files are")
            continue
        table = st.tables["rocprof_stats"]
        tables.append(table)
        tl.meta.sources += st.meta.sources
        check = kernel_stats_check(tl, table, f, kernels[0][0]) if kernels else None
        domain = str(table["domain"].iloc[0]) if len(table) else "empty"
        if domain == "kernel" and not kernels:  # no kernel trace of the process: this summary is its kernels
            out.append(f"{f}: a per-name kernel summary ({plural(len(table), 'row')}) with no kernel trace beside "
                       "it: its calls and total times are kept as the per-kernel summary (no timeline)")
        else:
            out.append(check or f"{f}: a per-name {domain} summary ({plural(len(table), 'row')}) beside the trace "
                                "files: kept as a side table, not analysed (gpulens analyses the trace files)")
        out += [w for w in st.meta.warnings if "per-name summary" not in w]
    if tables:
        tl.tables["rocprof_stats"] = pd.concat(tables, ignore_index=True)
    return out
