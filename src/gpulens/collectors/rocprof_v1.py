"""rocprof v1 / rocprofv2 CSV outputs → Timeline: kernel traces, counter-mode CSVs, ``*.stats.csv``, rocminfo text.

Formats (column names from the files themselves, see ../shared/traces/SOURCES.md):

* ``results.csv`` (``--timestamp on`` / ``--stats``): ``Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,
  wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,wave_size,sig,obj,DispatchNs,BeginNs,EndNs,CompleteNs[,DurationNs]``.
  Duration = ``EndNs − BeginNs`` (``CompleteNs`` can precede ``EndNs``; it is not used).
* counter mode (``pmc: GPUBusy Wavefronts`` …): the same leading columns, then one column per counter, and no
  timestamps unless ``--timestamp on`` was given. Counters become Counters rows of their dispatch; a dispatch
  without timestamps is not an event (rejected, its counters in ``tables["unattached_counters"]``).
* rocprofv2 ``--plugin file`` (``Dispatch_ID,GPU_ID,…,Kernel_Name,Start_Timestamp,End_Timestamp,…``) and single
  rocprofiler-compute pass CSVs (``timestamps.csv``, ``SQ_*.csv``, ``pmc_perf.csv``): same mapping.
* ``results.stats.csv`` / ``*_stats.csv`` (``Name,Calls,TotalDurationNs,AverageNs,Percentage[,MinNs,MaxNs,
  StdDev]``): no events; the table is kept as ``tables["rocprof_stats"]`` with a ``domain`` column.
* ``results.sysinfo.txt`` (a ``rocminfo`` dump): no events; GPU agents become ``meta.devices``.

A ``results.csv`` given alone is read with the files rocprof wrote beside it (``results.sysinfo.txt`` → devices,
``results*.stats.csv`` → ``tables["rocprof_stats"]``), so the GPU is known; a whole folder is
:mod:`gpulens.collectors.rocprof_v1_dir`.

Columns are mapped by name (:mod:`gpulens.collectors._amdcsv`); rows narrower/wider than the header raise unless
``strict=False`` (:mod:`gpulens.collectors._csvrows`, case B17).
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from gpulens.collectors._amd import parse_rocminfo
from gpulens.collectors._amdcsv import NAME_COLUMNS, dispatches_from_rows
from gpulens.collectors._csvrows import excel_sep, read_rows
from gpulens.collectors._dispatch import build_timeline
from gpulens.collectors._io import read_input
from gpulens.collectors._shares import disagreeing_shares, impossible_shares, missing_share
from gpulens.collectors._work_rules import is_non_work, kinds_of_kernel_names
from gpulens.collectors.base import Collector
from gpulens.errors import TraceFormatError, TruncationNote
from gpulens.timeline import Timeline, TimelineMeta
from gpulens.timeline.sums import implausible_summary_rows
from gpulens.units import fmt_ns, plural

STATS_COLUMNS = {"name", "calls", "totaldurationns"}


#: The head last parsed by :func:`csv_header` and its columns: format detection offers one file's head to five CSV
#: sniffers in turn (rocprof v1 trace and stats, rocprofv3, rocprof-compute sysinfo and roofline), which would parse
#: its first line five times (a one-line JSON trace: all of its first 64 KiB, five times over).
_LAST_HEADER: tuple[bytes, tuple[str, ...]] = (b"", ())


def csv_header(head: bytes) -> list[str]:
    """Lower-cased column names of the first non-empty line of ``head`` ([] when it is not CSV-like); an Excel
    ``sep=X`` first line is skipped and its delimiter used. The same ``head`` object asked again (the next sniffer
    of the same file) is answered from :data:`_LAST_HEADER` without parsing it again; each caller gets its own
    list."""
    global _LAST_HEADER
    last, cols = _LAST_HEADER
    if head is not last:
        cols = tuple(_parse_csv_header(head))
        _LAST_HEADER = (head, cols)
    return list(cols)


def _parse_csv_header(head: bytes) -> list[str]:
    """:func:`csv_header` without the memo."""
    text, delim = excel_sep(head.decode("utf-8", errors="replace").lstrip("\ufeff"))
    for line in text.splitlines():
        if line.strip():
            try:
                return [h.strip().lower() for h in next(csv.reader(io.StringIO(line, newline=""), delimiter=delim))]
            except (csv.Error, StopIteration):
                return []
    return []


def read_text(path: Path) -> tuple[str, int]:
    """Decoded content (UTF-8, invalid bytes replaced) and the on-disk size."""
    raw = read_input(path)
    return raw.data.decode("utf-8", errors="replace").lstrip("\ufeff"), raw.size_bytes


def source_meta(path: Path, collector: str, size: int, **extra) -> dict:
    """The ``meta.sources`` entry of one input."""
    return {"path": str(path), "collector": collector, "size_bytes": size, "rank": 0, **extra}


def is_v3_header(cols: list[str]) -> bool:
    """rocprofv3 CSVs carry ``Agent_Id``/``Kind``/``Counter_Name``/``Source_Agent_Id`` columns."""
    return bool({"agent_id", "counter_name", "source_agent_id"} & set(cols)) or (cols[:1] == ["kind"])


def siblings(path: Path) -> list[Path]:
    """Result files rocprof v1 writes beside ``<stem>.csv`` (``<stem>.sysinfo.txt``, ``<stem>.stats.csv``,
    ``<stem>.hip_stats.csv``, ``<stem>.copy_stats.csv``) that exist, for a ``results.csv``-style file given alone."""
    stem = path.name[:-4] if path.name.lower().endswith(".csv") else None
    if not stem or "." in stem:
        return []
    names = (f"{stem}.sysinfo.txt", f"{stem}.stats.csv", f"{stem}.hip_stats.csv", f"{stem}.copy_stats.csv")
    return [path.parent / n for n in names if (path.parent / n).is_file()]


def device_beside(path: Path, meta: TimelineMeta, warnings: list[str]) -> None:
    """Devices of the rocminfo dump rocprof v1 writes beside its trace (``<stem>.sysinfo.txt`` next to
    ``results.json`` / ``results.db``) added to ``meta.devices``, with a note in ``warnings``, so the same run's GPU is
    known whichever of its files is given (``results.csv`` reads it through :func:`siblings`)."""
    stem = path.name.split(".")[0]
    sib = path.parent / f"{stem}.sysinfo.txt"
    if not stem or not sib.is_file() or meta.devices:
        return
    try:
        meta.devices += parse_rocminfo(read_text(sib)[0])
    except (TraceFormatError, OSError) as exc:
        warnings.append(f"{sib}: not read beside {path.name} ({exc})")
        return
    meta.sources[0].setdefault("siblings", []).append(str(sib))
    warnings.append(f"{path}: read with {sib.name} beside it (the device of the same run)")


class RocprofV1Csv(Collector):
    """rocprof v1 / v2 kernel-trace and counter CSVs (see module docstring)."""

    name = "rocprof_v1"
    suffixes = (".csv",)
    priority = 30

    def sniff(self, path: Path, head: bytes) -> bool:
        cols = csv_header(head)
        if not cols or is_v3_header(cols):
            return False
        if cols[:2] == ["index", "kernelname"]:  # rocprof v1's own first two columns (a counter-only run has no gpu-id)
            return True
        return bool(set(NAME_COLUMNS[:2]) & set(cols)) and bool(
            {"gpu-id", "gpu_id", "grd", "grid_size", "beginns", "start_timestamp"} & set(cols))

    def collect(self, path: Path, strict: bool = True, with_siblings: bool = True) -> Timeline:
        """Read one CSV; ``with_siblings``: also the rocminfo/stats files rocprof wrote beside it (:func:`siblings`)."""
        path = Path(path)
        text, size = read_text(path)
        header, rows, warnings = read_rows(path, text, strict, NAME_COLUMNS)
        d = dispatches_from_rows(path, header, rows)
        meta = TimelineMeta(sources=[source_meta(path, self.name, size, rows=len(rows), pmc=sorted(d.pmc))])
        tables = {}
        for sib in siblings(path) if with_siblings else []:  # results.sysinfo.txt / *.stats.csv beside a file given alone
            try:
                if sib.name.endswith(".sysinfo.txt"):
                    meta.devices += parse_rocminfo(read_text(sib)[0])
                else:
                    tables["rocprof_stats"] = pd.concat([tables[k] for k in ("rocprof_stats",) if k in tables] +
                                                        [RocprofStats().collect(sib).tables["rocprof_stats"]],
                                                        ignore_index=True)
            except (TraceFormatError, OSError) as exc:
                warnings.append(f"{sib}: not read beside {path.name} ({exc})")
                continue
            meta.sources[0].setdefault("siblings", []).append(str(sib))
        if meta.sources[0].get("siblings"):
            warnings.append(f"{path}: read with " + ", ".join(Path(p).name for p in meta.sources[0]["siblings"])
                            + " beside it (device and summaries of the same run)")
        tl = build_timeline(d, self.name, path, meta=meta, warnings=warnings, tables=tables)
        if "rocprof_stats" in tables:  # the stats rocprof computed from these same records: they must agree
            from gpulens.collectors._stats_check import reconcile_kernel_stats

            stats_files = [Path(p) for p in meta.sources[0].get("siblings", []) if p.endswith("stats.csv")]
            check = reconcile_kernel_stats(tl, stats_files[0], path) if stats_files else None
            if check:
                tl.meta.warnings.append(check)
        return tl


#: File-name endings of the stats files rocprof v1 (``results.stats.csv``, ``results.hip_stats.csv``…) and rocprofv3
#: (``<pid>_kernel_stats.csv``, ``<pid>_hip_api_stats.csv``, ``<pid>_domain_stats.csv``…) write, and their domain.
#: Longest endings first; matched on the whole ending, never on a substring (``chip_sim_kernel_stats.csv`` is kernel).
STATS_ENDINGS = (("memory_allocation_stats.csv", "copy"), ("memory_copy_stats.csv", "copy"),
                 ("scratch_memory_stats.csv", "api"), ("hip_api_stats.csv", "hip"), ("hsa_api_stats.csv", "hsa"),
                 ("kernel_stats.csv", "kernel"), ("domain_stats.csv", "domain"), ("copy_stats.csv", "copy"),
                 ("hip_stats.csv", "hip"), ("hsa_stats.csv", "hsa"), ("api_stats.csv", "api"),
                 ("results.stats.csv", "kernel"))
#: Row names of a rocprofv3 ``domain_stats.csv`` (one row per traced domain: HIP_API, KERNEL_DISPATCH, …).
_DOMAIN_ROW = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$")
_API_ROW = (("hip", re.compile(r"^(__)?hip[A-Z_]")), ("hsa", re.compile(r"^hsa_|^hsa[A-Z]")),
            ("copy", re.compile(r"^(Copy(HostToDevice|DeviceToHost|DeviceToDevice|HostToHost)|MEMORY_COPY_)")))


def stats_domain(file_name: str, names: list[str]) -> str:
    """Domain of a ``*stats.csv`` summary: ``kernel``, ``hip``, ``hsa``, ``copy``, ``domain`` or ``api``.

    From the file name's ending (:data:`STATS_ENDINGS`) when it is one the tools write; otherwise (a renamed file)
    from the row names: all rocprofv3 domain identifiers (``HIP_API``, ``KERNEL_DISPATCH``) → ``domain``; all HIP
    runtime calls (``hipMemcpy``) → ``hip``; all ``hsa_*`` → ``hsa``; all copy directions → ``copy``; else
    ``kernel``. Only the ``kernel`` domain is read as kernels (a domain-total row ``HIP_API`` once read as a kernel
    with 24,044 launches)."""
    low = file_name.lower()
    for ending, domain in STATS_ENDINGS:
        if low.endswith(ending):
            return domain
    rows = [n for n in names if n]
    if rows and all(_DOMAIN_ROW.match(n) for n in rows):
        return "domain"
    for domain, rx in _API_ROW:
        if rows and all(rx.match(n) for n in rows):
            return domain
    return "kernel"


def header_leads_with_name(text: str) -> bool:
    """Whether a stats CSV's first column is ``Name`` and every other one a number column (``Calls,
    TotalDurationNs, AverageNs, Percentage[, MinNs, MaxNs, StdDev]``)."""
    cols = csv_header(text[:65536].encode("utf-8", errors="replace"))
    return bool(cols) and cols[0] == "name" and set(cols[1:]) <= _STATS_NUMBERS


def stats_row_agrees(header: list[str], row: list) -> bool:
    """Whether a stats row's own figures agree: Calls × AverageNs = TotalDurationNs (rocprof rounds the average, so
    within one ns per call), all three present. The check that lets a row missing its trailing columns
    (Percentage, MinNs…) be read without guessing which field is gone: ``"k",2,3000,1500`` agrees; the same row
    missing its count (``"k",3000,1500,10.0`` → calls 3000, total 1500) does not."""
    low = [h.strip().lower() for h in header]
    try:
        calls, total, avg = (float(str(row[low.index(c)]).strip()) for c in ("calls", "totaldurationns", "averagens"))
    except (ValueError, TypeError, IndexError):
        return False
    if not (calls >= 1 and total >= 0 and avg >= 0) or calls != int(calls):
        return False
    return abs(total - calls * avg) <= calls


_STATS_NUMBERS = {"calls", "totaldurationns", "averagens", "percentage", "minns", "maxns", "stddev"}


class RocprofStats(Collector):
    """``*.stats.csv`` summaries of rocprof v1 and rocprofv3 (no per-event data)."""

    name = "rocprof_stats"
    suffixes = (".stats.csv", "_stats.csv")
    priority = 31

    def sniff(self, path: Path, head: bytes) -> bool:
        return STATS_COLUMNS <= set(csv_header(head))

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        path = Path(path)
        text, size = read_text(path)
        return self.from_text(path, text, size, strict)

    def from_text(self, path: Path, text: str, size: int, strict: bool = True, file_bytes: int | None = None
                  ) -> Timeline:
        """The summary of ``text``, the stats CSV of ``path`` (``size`` bytes on disk). ``file_bytes``: the length of
        the file as written when ``text`` is a CSV rewriting of another form (:mod:`.rocpd_summary`), so a truncation
        note names the file's own last byte; None: ``text`` is the file."""
        header, rows, warnings = read_rows(path, text, strict, ("name",), leading_name=header_leads_with_name(text),
                                           verify=stats_row_agrees)
        df = pd.DataFrame(rows, columns=header)
        for c in df.columns:
            if c != "Name":
                df[c] = pd.to_numeric(df[c], errors="coerce")
        shares = [r[header.index("Percentage")] for r in rows] if "Percentage" in header else None
        odd_pct, unknown_pct = impossible_shares(path, "Percentage", shares, df["Name"].astype(str).tolist()
                                                 if "Name" in df else []) if shares else (None, [])
        if odd_pct:  # shares of no whole: read as unknown, and no cut table told by them
            warnings.append(odd_pct)
            df.loc[np.asarray(unknown_pct, dtype=bool), "Percentage"] = np.nan
        short = None if odd_pct else _rows_missing(path, text, df, shares, warnings, file_bytes)
        if short is not None:
            warnings.append(short)
        elif shares and not odd_pct and "TotalDurationNs" in df and (dis := disagreeing_shares(
                path, "Percentage", shares, df["TotalDurationNs"].tolist(),
                df["Name"].astype(str).tolist() if "Name" in df else [])):
            warnings.append(dis)  # a printed share its own TotalDurationNs contradicts: said, never shown silently
        # a row whose call count or total time is not a finite, non-negative integer is dropped and counted
        need = [c for c in ("Calls", "TotalDurationNs") if c in df.columns]
        ok = np.ones(len(df), dtype=bool)
        for c in need:
            v = df[c].to_numpy(dtype="float64")
            ok &= np.isfinite(v) & (v >= 0) & (v < 2.0 ** 63) & (v == np.round(v))
        if len(need) == 2:  # F27's kind: time with no call at all is impossible
            calls, total = df["Calls"].to_numpy(dtype="float64"), df["TotalDurationNs"].to_numpy(dtype="float64")
            ok &= ~((calls == 0) & (total > 0))
        if not ok.all():
            warnings.append(f"{path}: {plural(int((~ok).sum()), 'summary row(s)')} dropped: call count or total "
                            "duration is not a non-negative integer, or a total duration without any call")
            df = df[ok].reset_index(drop=True)
        if len(need) == 2:  # a mean call beyond 104 days, or totals past what an int64 ns sum holds: no measurement
            far = implausible_summary_rows(df["Calls"].to_numpy(dtype="float64"),
                                           df["TotalDurationNs"].to_numpy(dtype="float64"))
            if far.any():
                warnings.append(f"{path}: {plural(int(far.sum()), 'summary row(s)')} dropped: an implausible "
                                f"TotalDurationNs (a "
                                "mean call beyond 104 days, or among the largest of totals adding up beyond 146 "
                                "years, which no int64 ns sum holds): "
                                + ", ".join(df.loc[far, "Name"].astype(str).head(3))[:160])
                df = df[~far].reset_index(drop=True)
        for c in need:
            df[c] = df[c].astype("int64")
        domain = stats_domain(path.name, df["Name"].astype(str).tolist() if "Name" in df else [])
        df.insert(0, "domain", domain)
        barrier = np.zeros(len(df), dtype=bool)
        if domain == "kernel" and "Name" in df and len(df):
            # HIP runtime blit kernels (__amd_rocclr_copyBuffer, fillBufferAligned…) are copies and fills, as in the
            # same run's kernel trace (collectors._work_rules): kept in the table, not counted as kernels; collectives
            # (ncclDevKernel…) stay GPU work of the kernel domain, as in a trace; barrier packets are no work
            names = df["Name"].astype(str)
            kinds = kinds_of_kernel_names(names)
            blit = np.isin(kinds, ["memcpy", "memset"])
            df.loc[blit, "domain"] = "copy"
            df.loc[kinds == "sync", "domain"] = "sync"  # stream wait/write operations: synchronisation, not kernels
            barrier = is_non_work(names)
            df.loc[barrier, "domain"] = "barrier"
        split = _row_split(df) if domain == "kernel" else ""
        warnings.append(f"{path}: a per-name summary ({plural(len(df), 'row(s)')}, {domain} domain{split}), not a "
                        "trace: no events; "
                        + ("its calls and total times are kept as the per-kernel summary" if domain == "kernel" else
                           _other_summary(df, domain)))
        if barrier.any():
            b = df[barrier]
            calls = f"{plural(int(b['Calls'].sum()), 'packet')}, " if "Calls" in b else ""
            warnings.append(f"{path}: {plural(len(b), 'row(s)')} of barrier or marker packets ({calls}no work: waits "
                            "on a GPU queue) left out of the kernels: " + ", ".join(sorted(set(b["Name"].astype(str)))))
        meta = TimelineMeta(sources=[source_meta(path, self.name, size, rows=len(df), domain=domain)],
                            warnings=warnings)
        return Timeline(meta=meta, tables={"rocprof_stats": df}).validate()


def _other_summary(df: pd.DataFrame, domain: str) -> str:
    """What a non-kernel summary (``.copy_stats.csv``, ``.hip_stats.csv``, ``.hsa_stats.csv``) holds, said in its
    note: its calls and their summed ``TotalDurationNs`` — no analysis reads them (a summary places no call in time,
    so no busy/idle or copy figure can), and a note saying they were "kept" left them in no report."""
    calls, total = int(df["Calls"].sum()), int(df["TotalDurationNs"].sum())
    what = plural(calls, "copy or fill", "copies and fills") if domain == "copy" else \
        plural(calls, f"{domain.upper()} API call")
    return (f"{what}, {fmt_ns(total)} summed, said here only (a summary places no call in time: no report figure "
            "counts them); no kernel is recorded here")


#: Rows of a kernel-domain summary that are not kernels: the domain :class:`RocprofStats` files them in, and what
#: they are, in the order the note lists them.
_NOT_KERNEL_ROWS = (("copy", "HIP runtime copy/fill (blit) kernel", "counted as copies and fills, not kernels"),
                    ("sync", "stream wait/write operation", "counted as synchronisation, not kernels"),
                    ("barrier", "barrier or marker packet", "no work, named below"))


def _row_split(df: pd.DataFrame) -> str:
    """Where the rows of a kernel-domain summary went when some are not kernels (``df``: the summary with its
    ``domain`` column filed): ``": 5 kernel rows; 1 row of HIP runtime copy/fill (blit) kernels (1 call:
    __amd_rocclr_fillBufferAligned), counted as copies and fills, not kernels"``; ``""`` when every row is a kernel. Without
    it "6 rows" beside the run's "5,002 launches of 5 kernels" left one row unaccounted for."""
    parts = []
    for domain, what, fate in _NOT_KERNEL_ROWS:
        rows = df[df["domain"] == domain]
        if not len(rows):
            continue
        calls = f"{plural(int(rows['Calls'].sum()), 'call')}: " if "Calls" in rows else ""
        names = sorted(set(rows["Name"].astype(str)))
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3:,} more" if len(names) > 3 else "")
        parts.append(f"{plural(len(rows), 'row')} of {what}s ({calls}{shown}), {fate}")
    if not parts:
        return ""
    return f": {plural(int((df['domain'] == 'kernel').sum()), 'kernel row')}; " + "; ".join(parts)


def _rows_missing(path: Path, text: str, df: pd.DataFrame, shares: list | None,
                  warnings: list[str], file_bytes: int | None = None) -> TruncationNote | None:
    """The note for a stats table whose rows hold less time than their own ``Percentage`` shares account for
    (:func:`._shares.missing_share`: rows cut off its end); None when it is whole, has no share column, or is
    already noted as cut mid-line. The byte named is the end of the file: ``file_bytes`` when given, else of
    ``text``."""
    if shares is None or "TotalDurationNs" not in df or any(isinstance(w, TruncationNote) for w in warnings):
        return None
    total = df["TotalDurationNs"].to_numpy(dtype="float64")
    known = np.isfinite(total)
    lost = missing_share([str(x or "") for x, k in zip(shares, known) if k], total[known].tolist())
    if lost is None:
        return None
    at = file_bytes if file_bytes is not None else len(text.encode("utf-8", errors="replace"))
    return TruncationNote(f"{path}: truncated: the table's rows hold {100 * (1 - lost):.1f} % at most of the time "
                          "their own Percentage shares account for: rows are missing after byte "
                          f"{at:,} (at least {100 * lost:.1f} % of the time)", path, at)


class Rocminfo(Collector):
    """``rocminfo`` text (rocprof v1 ``results.sysinfo.txt``): GPU identity only."""

    name = "rocminfo"
    suffixes = (".sysinfo.txt", ".txt")
    priority = 32

    def sniff(self, path: Path, head: bytes) -> bool:
        return b"HSA Agents" in head and b"Agent 1" in head

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        path = Path(path)
        text, size = read_text(path)
        devices = parse_rocminfo(text)
        if not devices and strict:
            raise TraceFormatError(path, "rocminfo text lists no GPU agent")
        meta = TimelineMeta(sources=[source_meta(path, self.name, size)], devices=devices,
                            warnings=[f"{path}: device description only ({plural(len(devices), 'GPU agent(s)')}), no "
                                      f"events"])
        return Timeline(meta=meta).validate()
