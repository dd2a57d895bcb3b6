"""One rocprofv3 run written in several layouts in one folder is read once.

``rocprofv3 --output-format csv json rocpd`` writes the same records of a process once per format, all named by one
prefix (``<pid>_`` by default, ``<name>_`` with ``-o``): ``<prefix>kernel_trace.csv`` (and the other domain CSVs),
``<prefix>results.json``, ``<prefix>results.db``. Reading two of them would count every kernel twice (as two ranks,
or two processes). Files of these formats that share a folder and a prefix are one run: one layout is read and the
others are skipped with a warning that names them and says why; so is a second copy of one whole-run file
(``77_results.json`` beside ``77_results.json.gz``).

Preference, when the folder is not a CSV output folder (whose CSVs are read by the folder collector): the rocpd
database (every domain in one file), then the JSON.

Likewise a Chrome-trace JSON that ``gpulens analyze --perfetto`` wrote beside the profiler's own files (``gpulens
analyze DIR --perfetto DIR/run.perfetto.json``) holds their events again: it is not read as one more rank while the
folder has other traces (:func:`gpulens_exports`); alone, it is read.
"""

from __future__ import annotations

import re
from pathlib import Path

#: collector name → layout label; lower rank is preferred where the choice is free
LAYOUTS = {"rocpd": (0, "rocpd database"), "rocprofv3_json": (1, "JSON"), "rocprofv3_csv": (2, "CSV"),
           "rocprofv3_csv_dir": (2, "CSV")}
_CSV = re.compile(r"^(.*?)(kernel_trace|counter_collection|memory_copy_trace|[a-z]+_api_trace|agent_info|"
                  r"memory_allocation_trace|scratch_memory_trace|[a-z_]+_stats|domain_stats)\.csv$")
_WHOLE = re.compile(r"^(.*?)(?:results)?\.(?:json|db|sqlite3?)(?:\.gz)?$", re.IGNORECASE)


#: layouts that hold a whole run in one file (the CSV layout is one file per domain: several per run)
WHOLE_FILE = ("rocpd", "rocprofv3_json")


def run_key(f: Path) -> tuple[str, str] | None:
    """(folder, prefix) of a rocprofv3 output file: ``77_results.json`` → (folder, ``77_``); ``77_kernel_trace.csv``
    → (folder, ``77_``); None for a name of no rocprofv3 output."""
    m = _CSV.match(f.name) or _WHOLE.match(f.name)
    return (str(f.parent), m.group(1)) if m else None


def one_layout_per_run(files: list[Path], formats: list[str]) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Keep one layout of each rocprofv3 run among ``files`` (their collector names in ``formats``).

    Returns:
        (files kept, in their order; [(skipped file, why)]).
    """
    runs: dict[tuple[str, str], list[tuple[int, Path, str]]] = {}
    for f, fmt in zip(files, formats):
        key = run_key(f) if fmt in LAYOUTS else None
        if key is not None:
            runs.setdefault(key, []).append((LAYOUTS[fmt][0], f, fmt))
    skipped: list[tuple[Path, str]] = []
    for members in runs.values():
        best = min(members, key=lambda m: (m[0], m[1].name))
        for rank, f, fmt in members:
            if rank != best[0]:
                skipped.append((f, skip_reason(fmt, best[1].name, LAYOUTS[best[2]][1])))
            elif f != best[1] and fmt in WHOLE_FILE:  # 77_results.json beside 77_results.json.gz: one file set
                skipped.append((f, f"another copy of {best[1].name} (same file prefix and layout, compressed or "
                                   "not); reading both would count every event twice"))
    gone = {f for f, _ in skipped}
    kept = [f for f in files if f not in gone]
    exports = gpulens_exports(kept)
    if exports and len(exports) < len(kept):
        skipped += [(f, "a trace exported by gpulens --perfetto: beside the folder's profiler outputs its events "
                        "would count twice, as one more rank (analyse it alone to read it)") for f in exports]
        kept = [f for f in kept if f not in set(exports)]
    return kept, skipped


def gpulens_exports(files: list[Path]) -> list[Path]:
    """The files among ``files`` that ``gpulens analyze --perfetto`` wrote (``"traceName": "gpulens export"`` in
    their first 16 KiB, gzip read through: :func:`gpulens._outputs.own_output_kind`). Never raises."""
    from gpulens._outputs import own_output_kind
    from gpulens.collectors._io import read_head

    return [f for f in files
            if f.suffix.lower() in (".json", ".gz") and own_output_kind(read_head(f, 16384)) == "perfetto"]


def skip_reason(fmt: str, used: str, used_layout: str) -> str:
    """Why a file of layout ``fmt`` was not read beside ``used`` (the same run in ``used_layout``)."""
    return (f"the same rocprofv3 run as {used} (same file prefix) in its {LAYOUTS[fmt][1]} layout; {used} "
            f"({used_layout}) was read instead — reading both would count every event twice")


def same_run_files(folder_files: list[Path], used: list[Path], sniffed: dict[Path, str]) -> list[tuple[Path, str]]:
    """The rocprofv3 outputs in ``folder_files`` (collector names in ``sniffed``) that are the same run as the CSV
    files ``used`` (same folder and prefix) in another layout, each with why it was not read."""
    keys = {k: f for f in used if (k := run_key(f)) is not None}
    out = []
    for f in folder_files:
        fmt = sniffed.get(f)
        k = run_key(f)
        if fmt in LAYOUTS and LAYOUTS[fmt][1] != "CSV" and k in keys:
            out.append((f, skip_reason(fmt, keys[k].name, "CSV")))
    return out


#: the launch columns that, with the kernel names in launch order, make one Nsight Compute capture's signature
_NCU_SIG_COLUMNS = ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z")


def _ncu_capture(tl) -> tuple[tuple, str, object, int] | None:
    """(signature, layout, per-launch durations, metrics) of an Nsight Compute input (a Timeline or its
    :class:`~._assemble.Parts`), else None. The signature is the kernels' names and launch configurations in launch
    order; the layout tells a ``.ncu-rep``, a ``--page raw`` CSV (metric names such as ``gpu__time_duration.sum``)
    and a ``--page details`` CSV apart."""
    import pandas as pd

    from gpulens.collectors._assemble import Parts

    if not tl.meta.sources:
        return None
    collectors = {s.get("collector") for s in tl.meta.sources}
    if not collectors <= {"ncu_csv", "ncu_rep"}:
        return None
    events, counters = (tl.events, tl.counters) if isinstance(tl, Parts) else \
        ({c: tl.events[c] for c in tl.events.columns}, {c: tl.counters[c] for c in tl.counters.columns})
    if "kind" not in events or "name" not in events:
        return None
    ev = pd.DataFrame({c: pd.Series(events[c]).reset_index(drop=True) for c in
                       ("kind", "name", "start_ns", "dur_ns") + _NCU_SIG_COLUMNS if c in events})
    k = ev[ev["kind"].astype(str) == "kernel"]
    if not len(k) or "start_ns" not in k or "dur_ns" not in k:
        return None
    k = k.sort_values("start_ns", kind="stable")
    cols = [c for c in _NCU_SIG_COLUMNS if c in k.columns]
    sig = (tuple(k["name"].astype(str)),) + tuple(tuple(pd.to_numeric(k[c], errors="coerce").fillna(-1).tolist())
                                                  for c in cols)
    metrics = pd.Series(counters["metric"]).astype(str).unique() if "metric" in counters else []
    layout = "ncu_rep" if "ncu_rep" in collectors else \
        ("raw" if 2 * sum("__" in m for m in metrics) > len(metrics) else "details")  # raw: mostly lts__t_…
    return sig, layout, pd.to_numeric(k["dur_ns"], errors="coerce").to_numpy(dtype="float64"), len(metrics)


def one_ncu_capture(labelled: list[tuple[str, object]]) -> tuple[list[tuple[str, object]], list[str]]:
    """Keep one layout of each Nsight Compute capture among a folder's inputs (``labelled``: (name, Timeline)).

    ``ncu --export x.ncu-rep`` then ``ncu --import x.ncu-rep --csv --page details`` and ``--page raw`` leave one capture
    in three files: the same kernels, launch configurations and durations (the details page rounds them to its
    printed digits). Read as three ranks, every launch counted three times and one kernel's metrics mixed from pages
    that define them differently (a 1-block kernel's L1 throughput "while active" beside the elapsed one). Files of
    *different* layouts whose kernel names and launch configurations agree in launch order and whose durations agree
    within 1 % (+ 10 ns) are one capture: the one with the most metrics is read, the others named. Two captures in one
    layout (two runs exported alike) are left as they are.

    Returns:
        (inputs kept, in their order; one note per capture read once).
    """
    seen: list[tuple[tuple, set[str], object, str, int, int]] = []  # sig, layouts, durations, name, metrics, index
    drop: dict[int, str] = {}
    for i, (name, tl) in enumerate(labelled):
        got = _ncu_capture(tl)
        if got is None:
            continue
        sig, layout, dur, n_metrics = got
        for j, (s, layouts, d, first, m, idx) in enumerate(seen):
            if s == sig and layout not in layouts and len(d) == len(dur) and \
                    bool(((abs(d - dur) <= 0.01 * abs(d) + 10) | (d != d) | (dur != dur)).all()):
                layouts.add(layout)
                if n_metrics > m:  # the richer file is read
                    drop[idx] = name
                    seen[j] = (s, layouts, dur, name, n_metrics, i)
                else:
                    drop[i] = first
                break
        else:
            seen.append((sig, {layout}, dur, name, n_metrics, i))
    kept = [x for i, x in enumerate(labelled) if i not in drop]
    notes = [f"{labelled[i][0]} is the same Nsight Compute capture as {read_instead} in another layout (same kernels, "
             "launch configurations and durations): read once, from the file with the most metrics — reading both "
             "would count every launch twice" for i, read_instead in sorted(drop.items())]
    return kept, notes
