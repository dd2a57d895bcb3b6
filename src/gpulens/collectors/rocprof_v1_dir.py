"""A rocprof v1 output folder (``results.csv``, ``results.db``, ``results.json``, ``*.stats.csv``,
``results.sysinfo.txt``, counter-pass CSVs) → one Timeline of the run, without counting anything twice.

rocprof v1 writes the same dispatches several times: ``results.csv`` and the ``KERN`` table of ``results.db`` are the
same kernel trace; ``results.json`` and ``results.db`` hold the same HIP/copy/kernel records. So:

1. ``results.json`` is skipped when ``results.db`` is present (same run, the db is typed).
2. Kernels are taken from the first file that has timed kernels, in the order ``results.csv``, other timed CSVs,
   ``results.db``, ``results.json``; the kernel events of later files are dropped (their copies and API calls kept).
3. Counter-mode CSVs without timestamps (``pmc:`` passes, separate runs of the same program) are attached to those
   kernels with :func:`gpulens.collectors.join.join_dispatches` (kernel name and order on the device); when there is
   no timed kernel at all they are kept as they are (rejected dispatches + ``tables["unattached_counters"]``).
4. ``results.sysinfo.txt`` gives ``meta.devices``; stats files give ``tables["rocprof_stats"]``.
"""

from __future__ import annotations

from pathlib import Path

from gpulens.collectors._work_rules import dispatch_rows
from gpulens.collectors.base import Collector
from gpulens.collectors.join import join_dispatches
from gpulens.timeline import Timeline, concat

FAMILY = ("rocprof_v1", "rocprof_v1_db", "rocprof_v1_json", "rocprof_stats", "rocminfo")


def without_kernels(tl: Timeline) -> Timeline:
    """``tl`` without its kernel-dispatch events (:func:`dispatch_rows`) and their counters."""
    keep = ~dispatch_rows(tl.events)
    ev = tl.events[keep].reset_index(drop=True)
    co = tl.counters[tl.counters["event_id"].isin(set(ev["event_id"])) | (tl.counters["event_id"] < 0)]
    return Timeline(ev, co.reset_index(drop=True), tl.rejected, tl.meta, tl.tables).validate()


class RocprofV1Dir(Collector):
    """rocprof v1 output folder (see module docstring)."""

    name = "rocprof_v1_dir"
    accepts_dirs = True
    priority = 22

    def sniff(self, path: Path, head: bytes) -> bool:
        return path.is_dir() and any((path / f).is_file() for f in
                                     ("results.csv", "results.db", "results.json", "results.sysinfo.txt"))

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        from gpulens.collectors import sniff

        path = Path(path)
        loaded: dict[str, Timeline] = {}
        for f in sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith(".")):
            c = sniff(f)
            if c is not None and c.name in FAMILY:
                loaded[f.name] = c.collect(f, strict=strict)
        notes = []
        if "results.db" in loaded and "results.json" in loaded:
            del loaded["results.json"]
            notes.append(f"{path}: results.json skipped (results.db holds the same records)")
        timed = [n for n, t in loaded.items() if dispatch_rows(t.events).any()]
        order = sorted(timed, key=lambda n: (n != "results.csv", n.endswith(".db"), n.endswith(".json"), n))
        untimed = [n for n, t in loaded.items() if n not in timed and "unattached_counters" in t.tables]
        parts = []
        for n, t in loaded.items():
            if n in untimed and order:
                continue
            if n in order[1:]:
                t = without_kernels(t)
                notes.append(f"{path / n}: kernels not added again (same dispatches as {order[0]})")
            parts.append(t)
        tl = concat(parts) if parts else Timeline()
        for n in (untimed if order else []):
            res = join_dispatches(tl, loaded[n])
            tl = res.timeline
        tl.meta.warnings = notes + tl.meta.warnings
        return tl
