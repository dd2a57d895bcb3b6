"""rocprofiler-compute (Omniperf) workload folders → Timeline, counters, device identity and empirical roofs.

A workload folder (``workloads/<name>/<gpu>/``) holds:

* ``pmc_perf.csv`` — one row per dispatch, every counter of every pass side by side: bookkeeping columns
  (``Dispatch_ID, Kernel_Name, GPU_ID, Grid_Size, Workgroup_Size, LDS_Per_Workgroup, Scratch_Per_Workitem,
  Arch_VGPR, Accum_VGPR, SGPR, wave_size``…, repeated per pass as ``wave_size_1``…), scalar counters
  (``SQ_WAVES``, ``GRBM_GUI_ACTIVE``, ``TCC_HIT_sum``…) and per-instance ones (``TCC_HIT[0]``…, per channel/XCD).
  Mapped by :mod:`gpulens.collectors._amdcsv`: scalars → Counters; instances summed to ``<base>_sum`` only when the
  file has no ``_sum`` column for them.
* ``timestamps.csv`` — ``Start_Timestamp``/``End_Timestamp`` per dispatch (ns). Matched to ``pmc_perf.csv`` rows by
  position when both list the same kernels in the same order (their ``Dispatch_ID`` numbering can differ: 1-based
  vs 0-based on MI300), else by ``Dispatch_ID``. Some versions wrote these in scientific notation (``8.1097E+14``):
  the ns digits are gone, durations compute to 0 — such dispatches are rejected with that reason (their counters
  kept in ``tables["unattached_counters"]``) and a warning says so.
* ``sysinfo.csv`` — one row: ``gpu_model, gpu_arch, cu_per_gpu, wave_size, simd_per_cu, max_waves_per_cu,
  max_sclk`` (MHz), ``hbm_bw`` (GB/s), ``gpu_l1``/``gpu_l2`` (KB), ``num_xcd``, ``rocm_version`` → ``meta.devices``
  (``hbm_bandwidth_bytes_per_s`` = hbm_bw × 1e9).
* ``roofline.csv`` — measured peaks per device → ``tables["empirical_roofs"]`` (:data:`ROOF_COLUMNS`).

Accumulators are paired with their level counter **by pass**, not by bare name: ``SQ_ACCUM_PREV_HIRES`` is the
running sum of whichever ``SQ_*LEVEL*`` counter shared its pass (rocprof-compute's ``coll_level``). The per-level
files (``SQ_LEVEL_WAVES.csv``, ``SQ_IFETCH_LEVEL.csv``, ``SQ_INST_LEVEL_*.csv``) hold one pass each and are read
for that pairing; inside ``pmc_perf.csv`` a pass starts at each ``wave_size``/``wave_size_N`` column, and an
accumulator written with a numeric suffix (``SQ_ACCUM_PREV_HIRES_3``) belongs to the pass it sits in. Each pairing
becomes the counters ``<LEVEL>:SQ_ACCUM_PREV_HIRES`` and ``<LEVEL>:GRBM_GUI_ACTIVE`` (that pass's active cycles),
e.g. ``SQ_LEVEL_WAVES:SQ_ACCUM_PREV_HIRES`` for wavefront occupancy. Other per-pass CSVs
(``pmc_dispatch_info.csv``) are not read. Each of these files also loads alone through the ``rocprof_v1`` CSV
collector.

**A folder above workloads** (``workloads/`` or ``workloads/<name>/``, two levels down at most) with one workload
in it is read as that workload (with a note); with several (two workloads, or one workload profiled on two GPUs) it
is refused with a one-line error listing them — each is its own run, never merged into one Timeline. A workload
folder that has workload folders below it reads its own files and warns naming those left out.

**Timestamps that lost their digits.** When ``Start_Timestamp == End_Timestamp`` because both were written in
scientific notation with too few digits, the dispatch is kept as a kernel event with ``dur_ns = 0`` (duration
unknown, not zero) so its counters are still analysed; ``meta.sources[0]["durations_unknown"]`` counts such
dispatches and a warning says time-based figures are unknown. (Full-precision scientific notation such as
``1.411551767635712e+15`` is read exactly.)
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from gpulens.collectors._amd import finish_device
from gpulens.collectors._amdcsv import ALIASES, NAME_COLUMNS, dispatches_from_rows
from gpulens.collectors._csvrows import read_rows
from gpulens.collectors._numbers import exact_int
from gpulens.collectors._dispatch import build_timeline
from gpulens.collectors.base import Collector
from gpulens.collectors.rocprof_v1 import csv_header, read_text, source_meta
from gpulens.errors import TraceFormatError, TruncationNote
from gpulens.timeline import Timeline, TimelineMeta
from gpulens.timeline.names import normalize_kernel_name
from gpulens.units import agree, plural

#: Columns of ``tables["empirical_roofs"]``: one row per device × roof.
#: ``device`` (index as in roofline.csv), ``roof`` (the tool's name: HBMBw, L2Bw, L1Bw, LDSBw, FP32Flops, FP64Flops,
#: MFMABF16Flops, MFMAF16Flops, MFMAF32Flops, MFMAF64Flops, MFMAI8Ops), ``kind`` (``bandwidth`` | ``compute``),
#: ``value``/``low``/``high`` (the measured mean and its range, in ``unit``), ``unit`` (``bytes/s``, ``FLOP/s`` or
#: ``OP/s`` for integer ops). roofline.csv stores GB/s and GFLOP/s (MI210 HBMBw 1388.9 against a 1638.4 GB/s spec);
#: values here are ×1e9.
ROOF_COLUMNS = ("device", "roof", "kind", "value", "low", "high", "unit")
_ROOF_TYPOS = {"mfmafi8ops": "mfmai8ops"}  # roofline.csv headers seen: MFMAFI8OpsLow next to MFMAI8Ops


def read_roofline(path: Path, strict: bool = True, warnings: list[str] | None = None) -> pd.DataFrame:
    """``roofline.csv`` → long table of :data:`ROOF_COLUMNS` in base units. The reader's warnings (a cut last row)
    and the rows left out for naming no device are appended to ``warnings`` (when given)."""
    text, _ = read_text(path)
    header, rows, said = read_rows(path, text, strict)
    if warnings is not None:
        warnings += said
    df = pd.DataFrame(rows, columns=header).apply(pd.to_numeric, errors="coerce")
    if "device" not in df:
        raise TraceFormatError(path, "missing required column 'device'")
    canon: dict[str, str] = {}
    parts: dict[tuple[str, str], str] = {}
    for c in header:
        if c == "device":
            continue
        m = re.match(r"^(.*?)(low|high)?$", c, re.IGNORECASE)
        base, part = m.group(1), (m.group(2) or "value").lower()
        key = _ROOF_TYPOS.get(base.lower(), base.lower())
        if part == "value" or key not in canon:
            canon[key] = base if part == "value" else canon.get(key, base)
        parts[(key, part)] = c
    out = []
    no_device = 0
    # a measured peak is a positive finite rate: a zero, negative or infinite one (a failed microbenchmark, a damaged
    # file) is unknown, never a roof (−1 GB/s made a kernel's DRAM share −86,424 % of it)
    cells = df.drop(columns="device").to_numpy(dtype="float64")
    bad = ~np.isnan(cells) & ~(np.isfinite(cells) & (cells > 0))
    # a roof whose value, low and high are all exactly 0 was not measured: the benchmark writes 0 for a data type
    # the GPU lacks (rocprofiler-compute 3.x: MFMAF4Flops/MFMAF6Flops on an MI300X, gfx942, which has no FP4/FP6
    # MFMA) — unknown like the others, but no sign of a damaged file, so not counted in the warning
    at = {c: i for i, c in enumerate(c for c in df.columns if c != "device")}
    for key in canon:
        idx = [at[parts[(key, p)]] for p in ("value", "low", "high") if (key, p) in parts]
        bad[np.all(cells[:, idx] == 0, axis=1)[:, None] & np.isin(np.arange(cells.shape[1]), idx)[None, :]] = False
    impossible = int(bad.sum())
    df[[c for c in df.columns if c != "device"]] = np.where(np.isfinite(cells) & (cells > 0), cells, np.nan)
    for _, row in df.iterrows():
        dev = exact_int(row["device"]) if not pd.isna(row["device"]) else None
        if dev is None:  # a roof of no known device (text, inf, beyond int64): not attributable, left out
            no_device += 1
            continue
        for key, roof in canon.items():
            kind = "bandwidth" if key.endswith("bw") else "compute"
            unit = "bytes/s" if kind == "bandwidth" else ("FLOP/s" if key.endswith("flops") else "OP/s")
            vals = {p: row.get(parts.get((key, p))) for p in ("value", "low", "high")}
            out.append({"device": dev, "roof": roof, "kind": kind, "unit": unit,
                        **{p: (float(v) * 1e9 if v is not None and not pd.isna(v) else np.nan)
                           for p, v in vals.items()}})
    if no_device and warnings is not None:
        warnings.append(f"{path}: {plural(no_device, 'row(s)')} naming no device (not an integer) left out")
    if impossible and warnings is not None:
        warnings.append(f"{path}: {plural(impossible, 'measured peak(s)')} zero, negative or not finite: read as "
                        "unknown")
    return pd.DataFrame(out, columns=list(ROOF_COLUMNS))


def read_sysinfo(path: Path, strict: bool = True, warnings: list[str] | None = None) -> dict:
    """``sysinfo.csv`` (one row) → a device dict (keys of :mod:`gpulens.collectors._amd`). rocprofiler-compute
    writes one row per workload; more rows naming other GPUs (files of two machines joined) are not this run's
    device: the first row is read and, when given, ``warnings`` gets a line naming the others."""
    text, _ = read_text(path)
    header, rows, _ = read_rows(path, text, strict)
    if not rows:
        raise TraceFormatError(path, "sysinfo.csv has a header but no row")
    r = dict(zip(header, rows[0]))
    others = sorted({f"{o.get('gpu_model')} ({o.get('gpu_arch')})" for o in (dict(zip(header, x)) for x in rows[1:])
                     if (o.get("gpu_model"), o.get("gpu_arch")) != (r.get("gpu_model"), r.get("gpu_arch"))})
    if others and warnings is not None:
        first = f"{r.get('gpu_model')} ({r.get('gpu_arch')})"
        warnings.append(f"{path}: {len(rows)} rows of different GPUs ({first}, then {', '.join(others[:3])}): the "
                        f"first row's {first} is read as the device")

    def num(k: str, scale: float = 1.0):
        try:
            v = float(r.get(k) or "nan")
        except ValueError:
            return None
        if not np.isfinite(v * scale):
            return None
        return exact_int(v * scale) if float(v * scale).is_integer() else v * scale

    return finish_device({
        "name": r.get("gpu_model"), "gfx_arch": r.get("gpu_arch"), "num_sms": num("cu_per_gpu"),
        "warp_size": num("wave_size"), "simd_per_cu": num("simd_per_cu"), "max_waves_per_cu": num("max_waves_per_cu"),
        "max_clock_mhz": num("max_sclk"), "max_memory_clock_mhz": num("max_mclk"), "num_xcc": num("num_xcd"),
        "hbm_bandwidth_bytes_per_s": num("hbm_bw", 1e9), "l1_bytes": num("gpu_l1", 1024),
        "l2_bytes": num("gpu_l2", 1024), "l2_channels": num("total_l2_chan"), "rocm_version": r.get("rocm_version"), "hostname": r.get("hostname"),
        "command": r.get("command"), "compute_partition": r.get("compute_partition"),
        "memory_partition": r.get("memory_partition")})


class Omniperf(Collector):
    """A rocprofiler-compute / Omniperf workload folder (see module docstring)."""

    name = "omniperf"
    accepts_dirs = True
    priority = 20

    def sniff(self, path: Path, head: bytes) -> bool:
        if not path.is_dir():
            return False
        if is_workload(path) or lost_dispatch_list(path):
            return True
        # a folder above workloads (``workloads/`` or ``workloads/<name>/``) with no trace file of its own
        return not any(f.is_file() and f.name.lower().endswith(_TRACE_SUFFIXES) for f in _entries(path)) \
            and bool(workloads_below(path))

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        path = Path(path)
        if lost_dispatch_list(path):  # read as a rank folder, each counter pass counted the dispatches once more
            raise TraceFormatError(path, "a rocprofiler-compute workload without its dispatch list (pmc_perf.csv and "
                                         "timestamps.csv are both missing): the SQ_*.csv counter passes beside "
                                         "sysinfo.csv repeat the same dispatches and give no run on their own")
        below = workloads_below(path)
        note = None
        if not is_workload(path):
            rel = [str(w.relative_to(path)) for w in below]
            if len(below) != 1:  # several runs (workloads, or one workload on several GPUs): never one Timeline
                raise TraceFormatError(path, f"holds {len(below)} rocprofiler-compute workloads ({', '.join(rel)}), "
                                             f"each its own run: pass one of them, e.g. {path / rel[0]}"
                                       if below else "no rocprofiler-compute workload (pmc_perf.csv) in this folder")
            note = f"{path}: the one rocprofiler-compute workload in it read: {rel[0]}"
            path = below[0]
            below = []
        tl = self._one(path, strict)
        if below:
            tl.meta.warnings.append(f"{path}: {plural(len(below), 'rocprofiler-compute workload folder(s)')} below it "
                                    f"not read (each its own run; pass it on its own): "
                                    + ", ".join(str(w.relative_to(path)) for w in below))
        if note:
            tl.meta.warnings.insert(0, note)
        return tl

    def _one(self, path: Path, strict: bool) -> Timeline:
        """One workload folder (module docstring)."""
        meta = TimelineMeta()
        warnings: list[str] = []
        tables: dict[str, pd.DataFrame] = {}
        main = path / "pmc_perf.csv" if (path / "pmc_perf.csv").is_file() else path / "timestamps.csv"
        text, size = read_text(main)
        header, rows, w = read_rows(main, text, strict, NAME_COLUMNS)
        warnings += w
        ts = path / "timestamps.csv"
        timed = _timestamps(ts, strict, warnings, header) if main.name == "pmc_perf.csv" and ts.is_file() else None
        if timed is not None and any(isinstance(x, TruncationNote) for x in w):
            rows = rows + _cut_dispatches(main, header, rows, *timed[:2], warnings)
        d = dispatches_from_rows(main, header, rows)
        meta.sources.append(source_meta(main, self.name, size, rows=d.n, counters=len(d.pmc)))
        if timed is not None:
            t_header, t_rows, t_size = timed
            t = dispatches_from_rows(ts, t_header, t_rows)
            meta.sources.append(source_meta(ts, self.name, t_size, rows=t.n))
            same = t.n == d.n and [normalize_kernel_name(x) for x in t.cols.get("name", [])] == \
                [normalize_kernel_name(x) for x in d.cols.get("name", [])]
            # Omniperf 1.x with a kernel filter that matched nothing writes pmc_perf.csv rows with a blank Index and
            # KernelName (only BeginNs/EndNs) beside a complete timestamps.csv of as many rows: same dispatches, in
            # order — match by position and take the names from timestamps.csv (was: every row unmatched, "0 kernels")
            blank = t.n == d.n and "name" in t.cols and all(_blank_name(x) for x in d.cols.get("name", [None] * d.n))
            if blank:
                d.cols["name"] = t.cols["name"]
                warnings.append(f"{main}: no kernel names or dispatch ids in its rows (a kernel filter that matched "
                                f"nothing?): names and timestamps taken from {ts.name}, row by row")
            if same or blank:
                pos = np.arange(d.n)
            else:
                by_id = pd.Series(np.arange(t.n), index=t.get("dispatch_id").to_numpy())
                by_id = by_id[~by_id.index.duplicated()]
                pos = d.get("dispatch_id").map(by_id).to_numpy()
                warnings.append(f"{ts}: dispatches differ from pmc_perf.csv; matched by Dispatch_ID")
            for k in ("start_ns", "end_ns"):  # a dispatch timestamps.csv lacks (a cut file) keeps its own times
                src, own = t.get(k), d.get(k)
                d.cols[k] = pd.Series([src.iloc[int(p)] if p is not None and not pd.isna(p) else own.iloc[i]
                                       for i, p in enumerate(pos)], dtype="Int64")
            d.sci_notation_rows = t.sci_notation_rows
            t_bad = t.unreadable_ts if t.unreadable_ts is not None else np.zeros(t.n, dtype=bool)
            d.unreadable_ts = np.array([bool(t_bad[int(p)]) if p is not None and not pd.isna(p) else False
                                        for p in pos], dtype=bool)
        _pair_level_accumulators(d, header, rows, path, strict, warnings)
        lost = _keep_lost_timestamps(d)
        if lost:
            meta.sources[0]["durations_unknown"] = lost
            warnings.append(f"{path}: {plural(lost, 'dispatch(es)')} {agree(lost, 'has', 'have')} start == end after their timestamps were written in "
                            "scientific notation: kept with an unknown duration; their counters are analysed, "
                            "time-based figures (bandwidths, busy time) are unknown")
        if (path / "sysinfo.csv").is_file():
            dev = read_sysinfo(path / "sysinfo.csv", strict, warnings)
            ids = sorted(set(int(x) for x in d.get("device_id").dropna()))
            if len(ids) == 1:
                dev["device_id"] = ids[0]
            dev["rank"] = 0
            meta.devices.append(dev)
        if (path / "roofline.csv").is_file() and (path / "roofline.csv").stat().st_size:
            tables["empirical_roofs"] = read_roofline(path / "roofline.csv", strict, warnings)
        elif d.n:  # optional (rocprof-compute --no-roof skips it): what the figures rest on without it
            warnings.append(f"{path}: no roofline.csv (rocprof-compute's measured peaks): the roofline uses the rated "
                            "peaks of sysinfo.csv, and kernel bounds rest on them: the hardware reaches less, so a kernel near "
                            "its measured peak may read latency-bound")
        meta.sources[0]["workload"] = str(path)
        if not d.n:  # header-only pass files: the profile selected no dispatch — never "nothing ran on a GPU"
            meta.sources[0]["incomplete_capture"] = _no_dispatch_reason(path)
        return build_timeline(d, self.name, path, meta=meta, tables=tables, warnings=warnings)


def _timestamps(ts: Path, strict: bool, warnings: list[str], pmc_header: list[str]
                ) -> tuple[list[str], list[list], int] | None:
    """(header, rows, size on disk) of a workload's ``timestamps.csv`` read beside ``pmc_perf.csv``, or None (a
    warning in ``warnings``) when it cannot be read — empty, no header — and ``pmc_perf.csv`` records its own
    ``Start_Timestamp``/``End_Timestamp`` (``pmc_header``): the dispatch times are then that file's, never the
    whole workload refused for a file it can do without.

    Raises:
        TraceFormatError: unreadable, and ``pmc_perf.csv`` has no times of its own."""
    from gpulens.errors import GpulensError

    try:
        text, size = read_text(ts)
        header, rows, w = read_rows(ts, text, strict, NAME_COLUMNS)
    except GpulensError as exc:
        own = {h.lower() for h in pmc_header}
        if not (own & set(ALIASES["start_ns"]) and own & set(ALIASES["end_ns"])):
            raise
        why = getattr(exc, "reason", None) or str(exc)
        warnings.append(f"{ts}: {why}: not read; the dispatch times are pmc_perf.csv's own Start/End_Timestamp")
        return None
    warnings += w
    return header, rows, size


def _cut_dispatches(main: Path, header: list[str], rows: list[list], t_header: list[str], t_rows: list[list],
                    warnings: list[str]) -> list[list]:
    """Rows, in ``pmc_perf.csv``'s ``header``, for the dispatches a cut ``pmc_perf.csv`` lost and ``timestamps.csv``
    (``t_header``/``t_rows``) lists: their name, ids and times from ``timestamps.csv``, every counter empty (unknown),
    matched by ``Dispatch_ID`` where both files have it, else by position. A warning counts them: the dispatches
    stay in the timeline (their time is known), their counters are unknown."""
    low = [h.lower() for h in header]
    t_low = [h.lower() for h in t_header]
    idc = next((a for a in ALIASES["dispatch_id"] if a in low and a in t_low), None)
    if idc is not None:
        have = {r[low.index(idc)] for r in rows}
        lost = [r for r in t_rows if r[t_low.index(idc)] not in have]
    else:
        lost = t_rows[len(rows):]
    if not lost:
        return []
    where = {i: t_low.index(h) for i, h in enumerate(low) if h in t_low}
    n = len(rows) + len(lost)
    warnings.append(f"{main}: {plural(len(lost), 'dispatch(es)')} of {n:,} in the cut part: read from "
                    f"timestamps.csv (name and times), {agree(len(lost), 'its', 'their')} counters unknown")
    return [[r[where[i]] if i in where else "" for i in range(len(header))] for r in lost]


_SELECTION = re.compile(r"^(Kernel|Dispatch) Selection:\s*(.+?)\s*$", re.MULTILINE)


def _no_dispatch_reason(path: Path) -> str:
    """Why a workload folder whose CSVs hold a header only has no dispatch: the kernel / dispatch selection
    rocprof-compute's ``log.txt`` records (``Dispatch Selection: ['6:8']`` — a filter the application's dispatches
    did not reach), else that a filter or an application that launched no kernel is the cause. The command run is
    the one ``sysinfo.csv`` names (``./tests/vcopy …``)."""
    chosen = []
    log = path / "log.txt"
    if log.is_file():
        try:
            text = log.read_text(encoding="utf-8", errors="replace")[:65536]
        except OSError:
            text = ""
        chosen = [f"{m.group(1).lower()} selection {m.group(2)}" for m in _SELECTION.finditer(text)
                  if m.group(2).strip() not in ("None", "", "[]")]
    if chosen:
        return (f"the workload's files hold no dispatch: rocprof-compute profiled with a {' and a '.join(chosen)} "
                "(log.txt) that matched none of the application's dispatches — profile again without it, or with "
                "one the run reaches")
    return ("the workload's files hold no dispatch (each CSV has a header only): a kernel or dispatch filter "
            "(-k / -d) that matched nothing, or an application that launched no kernel")


#: File endings of trace files: a folder holding one at its top is not claimed as a folder above workloads.
_TRACE_SUFFIXES = (".json", ".gz", ".csv", ".db", ".sqlite", ".sqlite3", ".pftrace", ".ncu-rep", ".txt")


def is_workload(path: Path) -> bool:
    """Whether ``path`` is one rocprofiler-compute workload folder (``pmc_perf.csv``, or ``sysinfo.csv`` beside
    ``timestamps.csv``)."""
    return (path / "pmc_perf.csv").is_file() or ((path / "sysinfo.csv").is_file() and
                                                 (path / "timestamps.csv").is_file())


def lost_dispatch_list(path: Path) -> bool:
    """Whether ``path`` is a rocprofiler-compute workload folder that lost both ``pmc_perf.csv`` and
    ``timestamps.csv``: a ``sysinfo.csv`` beside the per-block counter passes (``SQ_*.csv``) or
    ``pmc_dispatch_info.csv``, which rocprofiler-compute writes only inside a workload."""
    if is_workload(path) or not (path / "sysinfo.csv").is_file():
        return False
    return (path / "pmc_dispatch_info.csv").is_file() or any(f.is_file() for f in path.glob("SQ_*.csv"))


def _entries(path: Path) -> list[Path]:
    try:
        # by name: the order of Path comparison within one folder, without its per-comparison cost
        return sorted((f for f in path.iterdir() if not f.name.startswith(".")), key=lambda f: f.name)
    except OSError:
        return []


def workloads_below(path: Path, depth: int = 2) -> list[Path]:
    """The workload folders under ``path`` (not ``path`` itself), ``depth`` levels down at most
    (rocprofiler-compute writes ``workloads/<name>/<gpu>/``), in name order; a workload's own subfolders are not
    searched."""
    out: list[Path] = []
    for d in _entries(path):
        if not d.is_dir():
            continue
        if is_workload(d):
            out.append(d)
        elif depth > 1:
            out += workloads_below(d, depth - 1)
    return out


class OmniperfSysinfo(Collector):
    """A workload's ``sysinfo.csv`` alone: device identity only."""

    name = "omniperf_sysinfo"
    suffixes = ("sysinfo.csv",)
    priority = 33

    def sniff(self, path: Path, head: bytes) -> bool:
        return {"gpu_arch", "cu_per_gpu"} <= set(csv_header(head))

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        path = Path(path)
        said: list[str] = []
        dev = read_sysinfo(path, strict, said)
        dev["rank"] = 0
        meta = TimelineMeta(sources=[source_meta(path, self.name, path.stat().st_size)], devices=[dev],
                            warnings=[f"{path}: device description only, no events", *said])
        return Timeline(meta=meta).validate()


class OmniperfRoofline(Collector):
    """A workload's ``roofline.csv`` alone: ``tables["empirical_roofs"]`` only."""

    name = "omniperf_roofline"
    suffixes = ("roofline.csv",)
    priority = 33

    def sniff(self, path: Path, head: bytes) -> bool:
        cols = set(csv_header(head))
        return "device" in cols and "hbmbw" in cols

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        path = Path(path)
        said: list[str] = []
        roofs = read_roofline(path, strict, said)
        meta = TimelineMeta(sources=[source_meta(path, self.name, path.stat().st_size)],
                            warnings=[f"{path}: measured roofs only ({plural(len(roofs), 'row(s)')}), no events",
                                      *said])
        return Timeline(meta=meta, tables={"empirical_roofs": roofs}).validate()


_PASS_MARK = re.compile(r"^wave_size(_[0-9]+)?$", re.IGNORECASE)
_LEVEL = re.compile(r"^(SQ_LEVEL_WAVES|SQ_IFETCH_LEVEL|SQ_INST_LEVEL_[A-Z]+)(_[0-9]+)?$")
_ACCUM = re.compile(r"^SQ_ACCUM_PREV_HIRES(_[0-9]+)?$")
_GRBM = re.compile(r"^GRBM_GUI_ACTIVE(_[0-9]+)?$")


def level_pairs(header: list[str]) -> dict[str, tuple[int, int | None]]:
    """Level counter → (column of its pass's ``SQ_ACCUM_PREV_HIRES``, column of that pass's ``GRBM_GUI_ACTIVE`` or
    None), for a header whose passes start at ``wave_size``/``wave_size_N`` columns (a file of one pass has none)."""
    marks = [i for i, h in enumerate(header) if _PASS_MARK.match(h)]
    bounds = [0, *[m for m in marks if m > 0], len(header)]
    out: dict[str, tuple[int, int | None]] = {}
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        cols = range(lo, hi)
        levels = [_LEVEL.match(header[i]).group(1) for i in cols if _LEVEL.match(header[i])]
        acc = [i for i in cols if _ACCUM.match(header[i])]
        grbm = [i for i in cols if _GRBM.match(header[i])]
        if len(levels) == 1 and len(acc) == 1:
            out.setdefault(levels[0], (acc[0], grbm[0] if grbm else None))
    return out


def _column(rows: list[list[str]], i: int) -> np.ndarray:
    return pd.to_numeric(pd.Series([r[i] if i < len(r) else None for r in rows]), errors="coerce") \
        .to_numpy(dtype="float64", na_value=np.nan)


def _pair_level_accumulators(d, header: list[str], rows: list[list[str]], path: Path, strict: bool,
                             warnings: list[str]) -> None:
    """Add ``<LEVEL>:SQ_ACCUM_PREV_HIRES`` / ``<LEVEL>:GRBM_GUI_ACTIVE`` counters (module docstring)."""
    for level, (acc, grbm) in level_pairs(header).items():
        d.pmc[f"{level}:SQ_ACCUM_PREV_HIRES"] = _column(rows, acc)
        if grbm is not None:
            d.pmc[f"{level}:GRBM_GUI_ACTIVE"] = _column(rows, grbm)
    names = [normalize_kernel_name(x) for x in d.cols.get("name", [])]
    for f in sorted(path.glob("SQ_*LEVEL*.csv")):
        try:
            text, _ = read_text(f)
            h, r, said = read_rows(f, text, False, NAME_COLUMNS)
        except TraceFormatError as e:
            warnings.append(f"{f}: skipped ({e})")
            continue
        warnings += said  # a cut last row, rows of the wrong width: their counters are unknown, said
        pairs = level_pairs(h)
        if len(pairs) != 1:  # damaged (NULs, a cut header) or of another layout: said, never passed over
            warnings.append(f"{f}: skipped ({plural(len(pairs), 'level accumulator pair(s)')} in its header, "
                            "one <LEVEL>:SQ_ACCUM_PREV_HIRES column expected)")
            continue
        (level, (acc, grbm)), = pairs.items()
        fd = dispatches_from_rows(f, h, r)
        if fd.n == d.n and [normalize_kernel_name(x) for x in fd.cols.get("name", [])] == names:
            pos = np.arange(d.n)
        else:
            by_id = pd.Series(np.arange(fd.n), index=fd.get("dispatch_id").to_numpy())
            by_id = by_id[~by_id.index.duplicated()]
            pos = d.get("dispatch_id").map(by_id).to_numpy(dtype=float, na_value=np.nan)
            warnings.append(f"{f}: dispatches differ from pmc_perf.csv; matched by Dispatch_ID")
        ok = ~np.isnan(pos.astype(float))
        for col, name in ((acc, "SQ_ACCUM_PREV_HIRES"), (grbm, "GRBM_GUI_ACTIVE")):
            if col is None:
                continue
            src = _column(r, col)
            vals = np.full(d.n, np.nan)
            vals[ok] = src[pos[ok].astype(int)]
            d.pmc[f"{level}:{name}"] = vals  # the level's own file wins over a pass found inside pmc_perf.csv


def _blank_name(x) -> bool:
    """A kernel-name cell that holds nothing (empty, whitespace, NA)."""
    return x is None or (isinstance(x, float) and np.isnan(x)) or x is pd.NA or not str(x).strip()


def _keep_lost_timestamps(d) -> int:
    """Rows whose start == end came from scientific notation: keep them (duration unknown); returns their count."""
    if not d.sci_notation_rows:
        return 0
    start, end = d.get("start_ns"), d.get("end_ns")
    lost = int(((start == end) & start.notna()).sum())
    if lost:
        d.sci_notation_rows = 0  # build_timeline would reject them as zero-duration events
    return lost
