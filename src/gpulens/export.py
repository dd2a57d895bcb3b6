"""Export of every analysis table (``gpulens analyze … --csv DIR`` / ``--parquet DIR``) for notebooks and spreadsheets.

Layout: one file per analyzer result with a table, ``<analyzer>.csv`` (or ``.parquet``), plus ``columns.csv``
documenting every exported column (``analyzer``, ``column``, ``meaning``, ``unit`` — the unit from the analyzer's
``"meaning [unit]"`` declaration, :data:`gpulens.analyzers.base.UNITS`) and ``summaries.json`` (each analyzer's
summary and skipped reason). With several inputs, each gets a subfolder ``<n>_<input name>``.
Cells holding lists or dicts are written as JSON text; missing values are empty (CSV) or null (Parquet).
"""

from __future__ import annotations

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
    written: list[Path] = []
    many = len(report.sources) > 1
    for i, src in enumerate(report.sources):
        d = root / f"{i}_{_slug(src.label)}" if many else root
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise GpulensError(f"{d}: cannot create the export folder ({exc.strerror or exc})") from None
        docs, summaries = [], {}
        for name, r in src.results.items():
            summaries[name] = {"skipped_reason": r.skipped_reason, "summary": r.summary}
            if r.table is None or not len(r.table.columns):
                continue
            path = d / f"{name}.{fmt}"
            table = flat_table(r.table)
            try:
                write_atomic(path, _table_bytes(table, fmt))
            except (OSError, ValueError, TypeError) as exc:
                raise GpulensError(f"{path}: cannot write the table ({exc})") from None
            written.append(path)
            for c in table.columns:
                meaning = r.columns.get(c, "")
                docs.append({"analyzer": name, "column": c, "meaning": meaning,
                             "unit": declared_unit(meaning) if meaning else "text"})
        try:
            write_atomic(d / "columns.csv", pd.DataFrame(docs, columns=["analyzer", "column", "meaning", "unit"])
                         .to_csv(index=False).encode("utf-8"))
            write_atomic(d / "summaries.json", json.dumps(summaries, indent=1, default=str).encode("utf-8"))
        except OSError as exc:
            raise GpulensError(f"{d}: cannot write the export ({exc.strerror or exc})") from None
        written += [d / "columns.csv", d / "summaries.json"]
    return written
