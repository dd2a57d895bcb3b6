"""Nsight Systems export: the pieces beyond the plain activity tables.

* :func:`graph_trace` — ``CUPTI_ACTIVITY_KIND_GRAPH_TRACE``: with nsys' default ``--cuda-graph-trace=graph`` a CUDA
  graph replay is one row (start, end, device, stream, correlation of its ``cudaGraphLaunch``) and its kernels are
  *not* in the kernel table. Each row is GPU work (kind ``kernel``, named ``CUDA graph <graphId>``), so busy time
  and the launch → work link hold; replays whose kernels are also in the kernel table (node-level tracing) are not
  added twice.
* :func:`api_base_name` — runtime API names as nsys stores them carry the entry point's version suffix
  (``cudaLaunchKernel_v7000``); the Timeline keeps the API name (``cudaLaunchKernel``) so launches match Kineto's.
* :func:`incomplete_capture` — launch calls recorded but no GPU activity table at all: the capture stopped early or
  CUDA activity tracing was off; said so instead of a bare "no GPU work".
* :func:`cuda_not_traced` — no GPU activity and not even a launch call, but nsys' own capture record says why: CUDA
  tracing was off for every profiled process (``META_DATA_CAPTURE`` ``PROCESS_<n>:COLLECT_CUDA_TRACE`` = false) or
  nsys reported that its CUDA collection failed (``DIAGNOSTIC_EVENT`` "No CUDA events collected", "CUDA profiling
  might have not been started correctly"). Then "nothing ran on a GPU" is not what the file shows: the sentence
  says the GPU side was not recorded (JACC.jl's Julia run: CUDA trace off; uvmTorch: CUDA injection loaded, 2 CUDA
  events collected, nsys warning 31 times that CUDA profiling may not have started), or that CUDA records were lost
  (``DIAGNOSTIC_EVENT`` "Not all CUDA events might have been collected": cestwc/balinski-and-gomory-cuda
  ``report6.sqlite``, nsys 2025.5 on an RTX 3090, 2 CUDA calls recorded where the same command's other captures
  hold 21,581 CUDA events). Nor when CUDA tracing was on
  and nsys recorded not one CUDA call of any process (no CUPTI/CUDA table at all): a process that touched CUDA
  leaves at least its runtime calls, so either the program never used CUDA or the process that did was not traced
  (ZhangXin8069/qcu: ``nsys profile mpirun -n 1 python …`` on an RTX 4060, the ranks' lattice-QCD kernels absent).
* :func:`cuda_events_lost` — the same "Not all CUDA events might have been collected" beside recorded GPU work: a
  warning that the figures may miss GPU work (nsys' own statement, said once).
* :data:`NVTX_COLUMNS` — ``tables["nvtx_ranges"]``: the kind of each NVTX range event (push/pop ranges nest per
  thread; start/end ranges may end on another thread, so they cover the whole process), read by the ``nvtx``
  analyzer.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from gpulens.timeline.names import COLLECTIVE_API_RE, LAUNCH_API_RE, graph_replay_name
from gpulens.units import agree, id_range, plural

_VERSION_SUFFIX = re.compile(r"_v[0-9]+$")
#: launch entry points (after the version suffix is dropped): the one vendor-neutral table
LAUNCH_API = LAUNCH_API_RE
#: Runtime/driver calls that enqueue a GPU copy (``hipMemcpyAsync``, ``hipMemcpy2DAsync``, ``cudaMemcpyPeerAsync``,
#: ``cuMemcpyHtoDAsync_v2``, and their synchronous forms): each has a GPU copy record in a complete capture.
COPY_API_RE = re.compile(r"^(?:cuda|hip)Memcpy(?:2D|3D)?(?:Peer)?(?:Async)?(?:_v[0-9]+)?$"
                         r"|^(?:cuda|hip)Memcpy(?:HtoD|DtoH|DtoD|ToSymbol|FromSymbol)\w*$|^cuMemcpy\w*$", re.ASCII)
#: Columns of ``tables["nvtx_ranges"]``: event_id of the annotation row and its range type.
NVTX_COLUMNS = ("event_id", "range_type")
#: nsys ENUM_NSYS_EVENT_TYPE names → range type
NVTX_TYPES = {"NvtxPushPopRange": "push/pop", "NvtxStartEndRange": "start/end"}


def api_base_name(name: Any) -> Any:
    """``cudaLaunchKernel_v7000`` → ``cudaLaunchKernel`` (other values unchanged)."""
    return _VERSION_SUFFIX.sub("", name) if isinstance(name, str) else name


def normalise_api_names(names: pd.Series) -> pd.Series:
    """:func:`api_base_name` of a categorical name column, computed once per category."""
    s = names if isinstance(names.dtype, pd.CategoricalDtype) else names.astype("category")
    cats = s.cat.categories
    new = [api_base_name(c) for c in cats]
    if list(new) == list(cats):
        return s
    codes, uniq = pd.factorize(pd.Series(new, dtype=object))
    old = s.cat.codes.to_numpy()
    remap = np.where(old >= 0, codes[np.maximum(old, 0)], -1) if len(codes) else old
    return pd.Series(pd.Categorical.from_codes(remap, categories=pd.Index(uniq).astype(str)), index=s.index)


def graph_trace(db: Any, common: Any, gpu: Any, kernel_corr: set[int]) -> tuple[pd.DataFrame, None] | None:
    """Rows of ``CUPTI_ACTIVITY_KIND_GRAPH_TRACE`` as GPU work (see module docstring).

    Args:
        db: the nsys ``_Db``; common/gpu: the collector's select and GPU-row helpers.
        kernel_corr: correlation ids already present in the kernel table (node-level traced replays).
    """
    t = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"
    if not db.has(t, "start", "end"):
        return None
    df = common(db, t, {"device_id": "{deviceId}", "stream_id": "{streamId}", "correlation_id": "{correlationId}",
                        "globalPid": "{globalPid}", "_g": "{graphId}"})
    if kernel_corr and "correlation_id" in df:
        df = df[~df["correlation_id"].isin(list(kernel_corr)).fillna(False).to_numpy()].reset_index(drop=True)
    gid = df.pop("_g") if "_g" in df else pd.Series([None] * len(df))
    df["name"] = pd.Series([graph_replay_name(int(g) if pd.notna(g) else None) for g in gid],
                           dtype="category")
    return gpu(df, "kernel"), None


def incomplete_capture(events: pd.DataFrame, missing: str, advice: str,
                       rejected: pd.DataFrame | dict | None = None) -> str | None:
    """The sentence saying a capture is incomplete, or None: kernel launch calls (or collective-library calls,
    :data:`~gpulens.timeline.names.COLLECTIVE_API_RE`) recorded, no kernel at all.

    Args:
        missing: what the source lacks (e.g. "the kernel activity table is absent").
        advice: the likely cause and fix.
        rejected: the source's refused events (:data:`~gpulens.timeline.schema.REJECTED_COLUMNS`: ``kind``,
            ``reason``). When GPU work is among them, the source did record GPU activity, without valid times
            (case B06: kernels at ``ts 0, dur 0``): the sentence says so instead of ``missing`` / ``advice``.
    """
    if len(events) and events["kind"].isin(["kernel", "comm"]).any():  # kernel launches need kernel records
        return None
    rt = events[events["kind"] == "runtime"] if len(events) else events
    if not len(rt):
        return None
    names = rt["name"].astype(str)
    launches = rt[names.str.match(LAUNCH_API) | names.str.match(COLLECTIVE_API_RE)]
    # copy calls enqueue a GPU copy the same way: counted apart, when no copy was recorded either
    copies = rt[names.str.match(COPY_API_RE)] if not events["kind"].isin(["memcpy"]).any() else rt.iloc[:0]
    if not len(launches) and not len(copies):
        return None
    parts = []
    for rows, what in ((launches, "launch call(s)" if names.str.match(LAUNCH_API).any()
                        else "collective-library call(s)"), (copies, "copy call(s)")):
        if len(rows):
            apis = ", ".join(f"{n} ×{c}" for n, c in rows["name"].astype(str).value_counts().items() if c)
            span = id_range(rows["correlation_id"])
            parts.append(f"{plural(len(rows), what)} ({apis}){span}")
    n = len(launches) + len(copies)
    said = f"{' and '.join(parts)} {agree(n if len(parts) == 1 else 2, 'has', 'have')}"
    refused = _refused_gpu_work(rejected)
    if refused:
        return (f"{said} no valid GPU record: the input's {refused} were "
                "excluded as invalid — the profiler wrote them without valid times (a CUPTI/Kineto fault seen with "
                "large batches): the work ran, its timing was not recorded")
    return f"{said} no GPU record and {missing} — {advice}"


def mark_incomplete(tl: Any, path: Any, missing: str, advice: str) -> str | None:
    """Record on Timeline ``tl`` of input ``path`` the :func:`incomplete_capture` sentence (launch calls without
    any GPU record: case T06), when there is one: ``meta.sources[0]["incomplete_capture"]`` (what the CLI, the
    verdict and the reports say) and one warning naming the file. Returns the sentence, or None."""
    note = incomplete_capture(tl.events, missing, advice, rejected=tl.rejected)
    if note and tl.meta.sources:
        tl.meta.sources[0]["incomplete_capture"] = note
        tl.meta.warnings.append(f"{path}: incomplete capture: {note}")
    return note


#: nsys DIAGNOSTIC_EVENT texts saying its CUDA collection did not work (nsys 2023–2025 wording)
_CUDA_FAILED = ("No CUDA events collected", "CUDA profiling might have not been started correctly")
#: nsys DIAGNOSTIC_EVENT text saying some of the process's CUDA records were not collected (nsys 2021–2025 wording;
#: the same diagnostics note that nsys writes CUDA trace buffers out at exit or on cudaProfilerStop)
_CUDA_LOST = "Not all CUDA events might have been collected"
_CUDA_COUNT = re.compile(r"Number of CUDA events collected:\s*([0-9]+)")


def cuda_not_traced(db: Any) -> str | None:
    """Why an nsys export holds no CUDA activity, from nsys' own capture record, or None when it does not say.

    Args:
        db: the nsys ``_Db`` (``cols``: table → columns; ``con``: the read-only connection).

    Returns:
        A sentence with its advice, such as "nsys recorded CUDA tracing off for the profiled process
        (PROCESS_0:COLLECT_CUDA_TRACE false) — profile with nsys profile -t cuda" or "nsys reported its CUDA
        collection failing ('No CUDA events collected' ×16; …) — …", or, CUDA tracing on and not one CUDA call
        recorded, that the file cannot tell whether the program used the GPU (:func:`_no_cuda_call`); None when
        neither table is there or neither says so (an unreadable table counts as silent).
    """
    import sqlite3

    off: list[str] = []
    flags: dict[str, str] = {}
    if {"name", "value"} <= set(db.cols.get("META_DATA_CAPTURE", ())):
        try:
            rows = db.con.execute("SELECT name, value FROM META_DATA_CAPTURE WHERE name LIKE 'PROCESS_%:COLLECT_CUDA_TRACE'"
                                  ).fetchall()
        except sqlite3.DatabaseError:
            rows = []
        flags = {str(n): str(v).strip().lower() for n, v in rows}
        if flags and all(v in ("false", "0") for v in flags.values()):
            off = sorted(flags)
    if off:
        return (f"nsys recorded CUDA tracing off for the profiled process{'es' if len(off) > 1 else ''} "
                f"({', '.join(off[:3])}{' …' if len(off) > 3 else ''} false): its GPU work, if any, was not "
                "traced — profile again with nsys profile -t cuda")
    said = _said(db, _CUDA_FAILED)
    if said:
        return ("nsys reported its CUDA collection failing (" + "; ".join(said) + "): the "
                "GPU work, if any, was not traced — profile again (the report's diagnostics, shown by the nsys GUI, "
                "say which process lost its CUDA trace)")
    lost = cuda_events_lost(db)
    if lost:
        return (f"{lost}: the GPU work, if any, was not written out — profile again and let the process exit "
                "normally (nsys writes a process's CUDA records at its exit or on cudaProfilerStop)")
    return _no_cuda_call(db, flags)


def _diagnostics(db: Any) -> list[str] | None:
    """The texts of an nsys export's ``DIAGNOSTIC_EVENT`` table (unreadable: none), or None when it has no such
    table (nsys 2021 exports keep those texts in ``StringIds`` only)."""
    import sqlite3

    if "DIAGNOSTIC_EVENT" not in db.cols:
        return None
    if "text" not in db.cols["DIAGNOSTIC_EVENT"]:
        return []
    try:
        return [str(t) for (t,) in db.con.execute("SELECT text FROM DIAGNOSTIC_EVENT").fetchall()]
    except sqlite3.DatabaseError:
        return []


def _said(db: Any, markers: tuple[str, ...]) -> list[str]:
    """Each of ``markers`` nsys' diagnostics hold, with its count (``"'No CUDA events collected' ×3"``), or, in an
    export without a ``DIAGNOSTIC_EVENT`` table, those its strings hold (``"… in the export's strings"``)."""
    texts = _diagnostics(db)
    if texts is None:
        return [f"'{m}' in the export's strings" for m in markers if _in_strings(db, m)]
    counts = [(m, sum(m in t for t in texts)) for m in markers]
    return [f"'{m}' ×{n}" for m, n in counts if n]


def cuda_events_lost(db: Any) -> str | None:
    """nsys' own statement that CUDA records of the capture were not collected, or None when its diagnostics do
    not say it.

    Args:
        db: the nsys ``_Db`` (``cols``: table → columns; ``con``: the read-only connection).

    Returns:
        "nsys reported CUDA events lost ('Not all CUDA events might have been collected' ×1; its count of CUDA events
        collected: 2)" — the count only where nsys printed one (its ``Number of CUDA events collected`` lines,
        summed) — or None.
    """
    said = _said(db, (_CUDA_LOST,))
    if not said:
        return None
    texts = _diagnostics(db)
    counts = [int(m.group(1)) for t in (texts or []) for m in [_CUDA_COUNT.search(t)] if m]
    count = f"; its count of CUDA events collected: {sum(counts):,}" if counts else ""
    return f"nsys reported CUDA events lost ({said[0]}{count})"


def _in_strings(db: Any, text: str) -> bool:
    """Whether an nsys export's ``StringIds`` holds a value containing ``text`` (an unreadable table: no). An nsys
    2021 export without a ``DIAGNOSTIC_EVENT`` table keeps its diagnostics' texts there only (mabdullahsoyturk/
    cardiac-simulation ``report1.sqlite``, nsys 2021.3.3: "No CUDA events collected. Does the process use CUDA?"
    beside a ``cuda-EvtHandlr`` thread and not one event table)."""
    import sqlite3

    if not {"value"} <= set(db.cols.get("StringIds", ())):
        return False
    try:
        return db.con.execute("SELECT 1 FROM StringIds WHERE instr(CAST(value AS BLOB), CAST(? AS BLOB)) > 0 LIMIT 1",
                              (text,)).fetchone() is not None
    except sqlite3.DatabaseError:
        return False


def _no_cuda_call(db: Any, flags: dict[str, str]) -> str | None:
    """With CUDA tracing on for a profiled process (``flags``: ``PROCESS_<n>:COLLECT_CUDA_TRACE`` → value) and no
    CUPTI or CUDA table in the export at all — not one CUDA call recorded, of any process — the sentence saying the
    file cannot tell whether the program used the GPU; else None. (A traced process that made CUDA calls but
    launched nothing keeps the plain "no GPU work".)"""
    on = sorted(n for n, v in flags.items() if v in ("true", "1"))
    if not on or any(t.startswith(("CUPTI_", "CUDA_")) for t in db.cols):
        return None
    return (f"nsys traced CUDA ({on[0]} true) but recorded not one CUDA call, of any process: a process that used "
            "CUDA leaves at least its runtime calls, so either the program never used the GPU or the process that "
            "did was not traced (one started by a launcher such as mpirun or srun, or one nsys could not inject "
            "into) — if it uses the GPU, profile that process itself (put nsys profile -t cuda after the launcher)")


def _refused_gpu_work(rejected: pd.DataFrame | dict | None) -> str:
    """"3 GPU activity record(s) (zero timestamp ×3)": the refused events that were GPU work, counted per reason, or
    ``""`` when none were."""
    if rejected is None or not len(rejected.get("kind", ())):
        return ""
    from gpulens.timeline.schema import GPU_KINDS

    rej = pd.DataFrame({"kind": pd.Series(rejected["kind"], dtype=object).astype(str),
                        "reason": pd.Series(rejected["reason"], dtype=object).astype(str)})
    gpu = rej[rej["kind"].isin(list(GPU_KINDS))]
    if not len(gpu):
        return ""
    reasons = ", ".join(f"{r} ×{c}" for r, c in gpu["reason"].value_counts().items())
    return f"{plural(len(gpu), 'GPU activity record(s)')} ({reasons})"


def nvtx_range_table(frames: list[pd.DataFrame]) -> pd.DataFrame | None:
    """``tables["nvtx_ranges"]`` from the frames in assembly order (event ids are positions in their concat)."""
    at, parts = 0, []
    for f in frames:
        if not len(f):
            continue
        if "_range" in f:
            parts.append(pd.DataFrame({"event_id": np.arange(at, at + len(f), dtype="int64"),
                                       "range_type": f["_range"].to_numpy(dtype=object)}))
        at += len(f)
    return pd.concat(parts, ignore_index=True) if parts else None
