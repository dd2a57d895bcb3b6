"""Export of every analysis table (``gpulens analyze … --csv DIR`` / ``--parquet DIR``) for notebooks and spreadsheets.

Layout: one file per analyzer result with a table, ``<analyzer>.csv`` (or ``.parquet``), plus ``columns.csv``
documenting every exported column (``analyzer``, ``column``, ``meaning``, ``unit`` — the unit from the analyzer's
``"meaning [unit]"`` declaration, :data:`gpulens.analyzers.base.UNITS`) and ``summaries.json`` (each analyzer's
summary and skipped reason). With several inputs, each gets a subfolder ``<n>_<input name>``.
Cells holding lists or dicts are written as JSON text; missing values are empty (CSV) or null (Parquet).
"""

from __future__ import annotations

import contextlib
import csv
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers.base import declared_unit
from gpulens._outputs import overwrites_input, replaces_data, write_atomic
from gpulens.errors import GpulensError
from gpulens.reports._md_safe import visible


#: First characters that make a spreadsheet read a CSV cell as a formula (OWASP "CSV Injection").
FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with each text cell that a spreadsheet would run as a formula (a kernel named ``=cmd|' /C calc'!A0``)
    prefixed with ``'``, as OWASP's CSV Injection guidance advises, and each control character of a text cell (a
    Python-stack name starting with raw 0x01, B03 of ../shared/cases) written as a visible ``\\uXXXX`` escape, the
    rule of every other reporter (:func:`gpulens.reports._md_safe.visible`; RFC 4180 text holds no control
    characters); numbers and other cells unchanged (a copy when anything changes). Trace text is untrusted input:
    an exported CSV opened in a spreadsheet must not execute it. Parquet keeps names as recorded (data, not text)."""
    out = table
    for c in table.columns:
        col = table[c]
        if not (col.dtype == object or pd.api.types.is_string_dtype(col) or isinstance(col.dtype, pd.CategoricalDtype)):
            continue
        text = col.astype(object)
        shown = text.map(lambda v: visible(v) if isinstance(v, str) else v)
        changed = (shown.astype(str) != text.astype(str)).to_numpy(dtype=bool)
        risky = shown.map(lambda v: isinstance(v, str) and v.startswith(FORMULA_LEADS)).to_numpy(dtype=bool)
        if risky.any() or changed.any():
            out = out.copy() if out is table else out
            out[c] = shown.where(~risky, "'" + shown.astype(str))
    return out


def _cell(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        v = v.tolist()
    return json.dumps(v, default=str) if isinstance(v, (list, dict, tuple)) else v


def _missing(v: Any) -> bool:
    """Whether a (scalar) cell is missing: None, NaN, ``pd.NA`` or ``NaT`` (``pd.NA == pd.NA`` has no truth value)."""
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):  # not a scalar
        return False


def flat_table(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with list/dict cells as JSON text, object columns of mixed types as strings (Parquet needs one type);
    missing cells (None, NaN, ``pd.NA``) stay missing."""
    out = df.copy()
    for c in out.columns:
        if out[c].dtype == object:
            col = out[c].map(_cell)
            kinds = {type(v) for v in col if not _missing(v)}
            out[c] = col.map(lambda v: v if _missing(v) else str(v)) if len(kinds) > 1 else col
    return out


def _slug(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", Path(label).name)[:60] or "input"


def _planned(report: Any, root: Path, fmt: str) -> list[Path]:
    """Every file :func:`export_tables` writes for ``report`` under ``root``."""
    many = len(report.sources) > 1
    out = []
    for i, src in enumerate(report.sources):
        d = root / f"{i}_{_slug(src.label)}" if many else root
        out += [d / f"{name}.{fmt}" for name, r in src.results.items()
                if r.table is not None and len(r.table.columns)]
        out += [d / "columns.csv", d / "summaries.json"]
    return out


#: The first line of the ``columns.csv`` an export writes (also how a folder is known to hold an earlier export).
COLUMNS_HEADER = b"analyzer,column,meaning,unit"


def _own_export(f: Path) -> bool:
    """True when ``f`` lies in the folder of an earlier export (a ``columns.csv`` with :data:`COLUMNS_HEADER`
    beside it): its files are replaced by the new export's."""
    try:
        with open(f.with_name("columns.csv"), "rb") as fh:
            return fh.read(len(COLUMNS_HEADER)) == COLUMNS_HEADER
    except OSError:
        return False


def _table_bytes(table: Any, fmt: str) -> bytes:
    """``table`` as the bytes of a Parquet or (spreadsheet-safe) CSV file."""
    if fmt == "parquet":
        import io

        buf = io.BytesIO()
        table.to_parquet(buf, index=False)
        return buf.getvalue()
    return spreadsheet_safe(table).to_csv(index=False).encode("utf-8")


def export_tables(report: Any, folder: str | Path, fmt: str = "csv", inputs: list[Path] = (),
                  force: bool = False) -> list[Path]:
    """Write every analysis table of ``report`` (a :class:`gpulens.report.Report`) under ``folder``.

    Args:
        fmt: ``"csv"`` or ``"parquet"``.
        inputs: the traces analysed: no file of the export may replace one (:func:`overwrites_input`) — a trace
            named ``hotspots.csv`` or ``summaries.json`` beside the export folder, a rank file of an input folder.
        force: replace a file that holds other data (a profiler trace, a gpulens baseline or JSON report:
            :func:`gpulens._outputs.replaces_data`); an earlier export's files are always replaced.

    Every table is rendered before anything on disk changes; then the files of an earlier export of the same
    format in ``folder`` are removed (:func:`_clear_earlier`: none of its tables is left beside the new ones as if it
    were a result of this run) and the new files written, ``columns.csv`` and ``summaries.json`` of each folder last.
    An export interrupted while its files are written (Ctrl-C, a full disk) removes the files it wrote: no part of
    an export is left looking like a whole one.

    Returns:
        The files written.

    Raises:
        GpulensError: a file of the export would replace an input, or (without ``force``) other data (nothing is
            written then); the folder cannot be created or a file cannot be written (one line naming it).
    """
    root = Path(folder)
    clash = [f for f in _planned(report, root, fmt) if overwrites_input(f, list(inputs))]
    if clash:
        raise GpulensError(f"{clash[0]}: refusing to overwrite an input trace with the {fmt.upper()} export; "
                           "choose another folder")
    held = [] if force else [(f, why) for f in _planned(report, root, fmt)
                             if not _own_export(f) and (why := replaces_data(f, "export"))]
    if held:
        raise GpulensError(f"{held[0][0]}: refusing to overwrite {held[0][1]} with the {fmt.upper()} export; "
                           "choose another folder (or pass --force)")
    many = len(report.sources) > 1
    files: list[tuple[Path, bytes]] = []  # rendered before anything on disk changes: the slow part
    for i, src in enumerate(report.sources):
        d = root / f"{i}_{_slug(src.label)}" if many else root
        docs, summaries = [], {}
        for name, r in src.results.items():
            summaries[name] = {"skipped_reason": r.skipped_reason, "summary": r.summary}
            if r.table is None or not len(r.table.columns):
                continue
            path = d / f"{name}.{fmt}"
            table = flat_table(r.table)
            try:
                files.append((path, _table_bytes(table, fmt)))
            except (ValueError, TypeError) as exc:
                raise GpulensError(f"{path}: cannot write the table ({exc})") from None
            for c in table.columns:
                meaning = r.columns.get(c, "")
                docs.append({"analyzer": name, "column": c, "meaning": meaning,
                             "unit": declared_unit(meaning) if meaning else "text"})
        files.append((d / "columns.csv", pd.DataFrame(docs, columns=["analyzer", "column", "meaning", "unit"])
                      .to_csv(index=False).encode("utf-8")))
        files.append((d / "summaries.json", json.dumps(summaries, indent=1, default=str).encode("utf-8")))
    _clear_earlier(root, fmt, list(inputs))
    written: list[Path] = []
    try:
        for path, data in files:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise GpulensError(f"{path.parent}: cannot create the export folder ({exc.strerror or exc})") from None
            try:
                write_atomic(path, data)
            except OSError as exc:
                raise GpulensError(f"{path}: cannot write the export ({exc.strerror or exc})") from None
            written.append(path)
    except BaseException:  # Ctrl-C, a full disk: no part of an export is left looking like a whole one
        for path in written:
            with contextlib.suppress(OSError):
                path.unlink()
        raise
    return written


def _export_names(folder: Path) -> list[str] | None:
    """The analyzers an earlier export in ``folder`` wrote tables for (the ``analyzer`` column of its
    ``columns.csv``), or None when ``folder`` holds no gpulens export (no ``columns.csv`` with
    :data:`COLUMNS_HEADER`)."""
    if not _own_export(folder / "columns.csv"):
        return None
    try:
        with open(folder / "columns.csv", newline="", encoding="utf-8", errors="replace") as fh:
            return sorted({row.get("analyzer") or "" for row in csv.DictReader(fh)} - {""})
    except (OSError, csv.Error):
        return []


def _clear_earlier(root: Path, fmt: str, inputs: list[Path]) -> None:
    """Remove the files of an earlier ``fmt`` export under ``root`` — in ``root`` itself and in its per-input
    subfolders ``<n>_<input name>`` — before a new one is written there. Left in place, the tables of an analyzer or
    of an input the new export does not write (one input exported, then two: ``root/hotspots.csv`` beside
    ``0_a/`` and ``1_b/``) sat beside the new ones as if they were its results. Only files the earlier export's
    ``columns.csv`` names (``<analyzer>.<fmt>``), its ``columns.csv`` and ``summaries.json`` are removed, never an
    input or any other file; a subfolder left empty is removed."""
    folders = [root]
    with contextlib.suppress(OSError):
        folders += sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink() and _SUBFOLDER.match(p.name))
    for d in folders:
        names = _export_names(d)
        if names is None:
            continue
        for f in [d / f"{n}.{fmt}" for n in names] + [d / "columns.csv", d / "summaries.json"]:
            if (f.is_symlink() or f.is_file()) and not overwrites_input(f, inputs):
                with contextlib.suppress(OSError):
                    f.unlink()
        if d != root:
            with contextlib.suppress(OSError):
                d.rmdir()  # only when empty


#: The name of an input's subfolder in an export of several inputs (``0_rank0.json``).
_SUBFOLDER = re.compile(r"^\d+_[A-Za-z0-9._-]+$")
