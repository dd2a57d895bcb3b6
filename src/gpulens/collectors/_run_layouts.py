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
