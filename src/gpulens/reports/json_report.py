"""JSON reporter: the machine-readable report (layout in docs/report-schema.md, versioned by ``schema_version``).

Size stays bounded whatever the input (100k distinct kernel names): an analysis table longer than
:data:`MAX_TABLE_ROWS` keeps its first rows (analyzers sort by importance) plus one "other" row with ``name`` null,
``other_rows`` (how many rows it stands for) and the sums of its additive columns (declared unit ns, bytes, FLOP,
count or share, and not a mean/min/max/median/cumulative figure, nor the denominator of another column's ratio such as
``step_ns`` of ``time_ns / step_ns``; a share only when the column's shares are parts of one whole, summing to at most 1
— per-rank or per-step shares are not); ``rows_total`` gives the full length. Findings are capped at :data:`MAX_FINDINGS` (largest time at
stake first; ``findings_total`` counts all). Full tables: ``gpulens analyze --csv/--parquet`` export, or the Python API.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers.base import declared_unit, is_clock_position
from gpulens.report import Report, SourceReport
from gpulens.reports._answer import answer, clock_note, partial_reason
from gpulens.reports._warnings import environment_notes, input_note, reading_notes
from gpulens.reports._coverage import analysis_coverage
from gpulens.reports._format import run_device_text, source_vendor

#: Rows of an analysis table written in full; longer tables end with one "other" row (module docstring).
MAX_TABLE_ROWS = 1000
#: Findings listed per source (largest time at stake first).
MAX_FINDINGS = 200
_ADDITIVE = ("ns", "bytes", "FLOP", "count", "share")
#: columns whose sum means nothing: statistics, and positions (a row's place on the path or in a table, an offset on
#: the clock: a critical path's "other" row summed 221 segments' offsets into 859 ms beside a 4.87 ms window)
_NOT_SUMMED = re.compile(r"(^|_)(mean|avg|min|max|median|std|stddev|p[0-9]+|cumulative|first|last|start|end|order|"
                         r"offset|index|position)(_|$)")


def _clean(v: Any) -> Any:
    if isinstance(v, dict):
        return {str(k): _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        f = float(v)
        return None if math.isnan(f) or math.isinf(f) else f
    if isinstance(v, np.bool_):
        return bool(v)
    if v is pd.NA or v is pd.NaT:
        return None
    return v


#: value types :func:`_clean` (after ``maybe_box_native``) returns unchanged: a column of only these is taken as it is
#: (exact types: ``bool`` and numpy scalars are not among them)
_PLAIN = (str, int)


def _column_values(col: pd.Series) -> list[Any]:
    """The JSON-safe values of one column, as ``_clean`` gives them for ``df.astype(object).to_dict("records")``:
    float64, int64 and bool columns converted whole by numpy (NaN/inf → null), others value by value."""
    values = col.to_numpy() if col.dtype.kind in "fib" and isinstance(col.dtype, np.dtype) else None
    if values is not None and values.dtype in (np.float64, np.int64, np.bool_):
        out = values.tolist()
        if values.dtype == np.float64:
            for i in np.flatnonzero(~np.isfinite(values)).tolist():
                out[i] = None
        return out
    from pandas.core.dtypes.cast import maybe_box_native  # what DataFrame.to_dict applies to object values

    raw = col.astype(object).tolist()
    if all(type(v) in _PLAIN for v in raw):  # names, texts, Int64 without a missing value: already JSON-safe
        return raw
    return [_clean(maybe_box_native(v)) for v in raw]


def table_records(df: pd.DataFrame) -> list[dict[str, Any]]:
    """DataFrame → list of JSON-safe row dicts (NaN/NA → null); built column by column (the row-by-row
    ``to_dict`` + recursive cleaning took most of this reporter's time: the JSON report is written after the
    analysis, on the critical path of a parallel run, issue 16)."""
    if df is None or not len(df):
        return []
    keys = [str(c) for c in df.columns]
    columns = [_column_values(col) for _, col in df.items()]
    return [dict(zip(keys, row)) for row in zip(*columns)]


def _denominators(names, columns: dict[str, str]) -> set[str]:
    """Columns that are the denominator of another column's declared ratio (``"time_ns / step_ns [share]"``): the
    whole each row is measured against, repeated on every row of that whole — their sum counts it once per row."""
    names = {str(c) for c in names}
    out: set[str] = set()
    for meaning in columns.values():
        for m in re.finditer(r"/\s*([A-Za-z_][A-Za-z0-9_]*)", str(meaning)):
            if m.group(1) in names:
                out.add(m.group(1))
    return out


def _one_whole(col: pd.Series) -> bool:
    """True when a share column's values are parts of one whole (they sum to at most 1 over the full table), so
    the sum of some of them is a share too."""
    x = pd.to_numeric(col, errors="coerce")
    return bool(((x >= 0) | x.isna()).all()) and float(x.sum()) <= 1 + 1e-9


def capped_records(df: pd.DataFrame, columns: dict[str, str], limit: int = MAX_TABLE_ROWS) -> list[dict[str, Any]]:
    """:func:`table_records` of the first ``limit`` rows, plus an "other" row for the rest (module docstring)."""
    if df is None or len(df) <= limit:
        return table_records(df)
    rest = df.iloc[limit:]
    other: dict[str, Any] = {c: None for c in df.columns}
    denominators = _denominators(df.columns, columns)
    for c in df.columns:
        unit = declared_unit(columns.get(c, ""))
        if unit in _ADDITIVE and not _NOT_SUMMED.search(str(c)) and not is_clock_position(str(c)) \
                and c not in denominators \
                and pd.api.types.is_numeric_dtype(rest[c]) and not pd.api.types.is_bool_dtype(rest[c]):
            if unit == "share" and not _one_whole(df[c]):
                continue  # shares of several wholes (per rank, per step): their sum is no share of anything
            other[c] = rest[c].sum()
    other["other_rows"] = len(rest)
    return table_records(df.iloc[:limit]) + [_clean(other)]


def answer_dict(s: SourceReport) -> dict[str, Any]:
    """The run verdict as the console, Markdown and HTML say it first (:func:`gpulens.reports._answer.answer`):
    ``verdict`` (the label in words, "below both roofs"; the identifier is ``summary.verdict``), ``headline`` (what
    follows the label: the figure that proves it, its time at stake, the busy figure), ``detail`` (the rest, shown
    under it as "Detail:"), ``at_stake`` (two readings' times at stake, largest first) and ``critical_path`` (why the
    critical path runs through host work beside a verdict on the GPU side); null where a report shows no such line.
    """
    a = answer(s)
    return {"verdict": a.verdict or None, "headline": (a.headline or a.reason) or None, "detail": a.detail or None,
            "at_stake": a.fix_first or None, "critical_path": a.path_note or None}


def source_dict(s: SourceReport, top: int = 20) -> dict[str, Any]:
    """One source's section of the JSON report."""
    tl = s.timeline
    hs = s.results.get("hotspots")
    top_rows = table_records(hs.table.iloc[:top]) if hs is not None else []
    tables = {str(name): capped_records(r.table, r.columns) for name, r in s.results.items()}
    doc = _clean({
        "label": s.label,
        "status": s.status,
        "collectors": tl.meta.collectors(),
        # a truncated input says where it stops (bytes of trace text read), beside its path and rank
        "inputs": [{**src, "truncated_at_bytes": int(tl.meta.truncated_at[src["path"]])}
                   if isinstance(src, dict) and src.get("path") in tl.meta.truncated_at else src
                   for src in tl.meta.sources],
        "devices": tl.meta.devices,
        "device_spec": getattr(s.device, "name", None) if s.device is not None else None,
        # whether that spec was assumed, not read from the input (its peaks may not be the profiled GPU's), and
        # the one wording every reporter shows ("… (analysed as an assumed X — …)", "… (no hardware spec …)")
        "device_spec_assumed": bool(getattr(s.device, "assumed", False)),
        "device_text": run_device_text(s),
        "truncated": tl.meta.truncated,
        "truncated_at": tl.meta.truncated_at,
        "partial_reason": partial_reason(s) or None,
        "clock_note": clock_note(s) or None,
        "input_note": input_note(s) or None,  # the headline's line on the input's warnings (every reporter's)
        "answer": answer_dict(s),  # the verdict line every other reporter shows first, word for word
        "unread_files": [{"path": f, "reason": why} for f, why in (getattr(tl.meta, "unread", None) or {}).items()],
        "rank_files": getattr(tl.meta, "rank_files", 0) or None,
        "warnings": tl.meta.warnings,
        "environment_notes": environment_notes(tl.meta),  # facts of the machine (no telemetry), not input faults
        "reading_notes": reading_notes(tl.meta),  # copies of the same records passed over, not input faults
        "summary": s.summary,
        "top_kernels": None,  # below: rows of table_records are JSON-safe already (not walked again)
        "findings": [f.to_dict() for f in s.findings()[:MAX_FINDINGS]],
        "findings_total": sum(len(r.findings) for r in s.results.values()),
        # which analyses ran, which do not apply to this run's vendor, which had no data (the human reports'
        # "Not analysed" list): one definition, reports._coverage
        "analysis_coverage": analysis_coverage(s.results, source_vendor(s)),
        "analyses": {
            name: {
                "skipped_reason": r.skipped_reason,
                # False: another vendor's analysis (ncu rules, NVTX on AMD): listed in analysis_coverage.not_applicable
                "applies": bool(r.applies),
                "summary": r.summary,
                "columns": r.columns,
                "table": None,  # below, as top_kernels
                "rows_total": 0 if r.table is None else len(r.table),
                "findings": [f.to_dict() for f in r.findings[:MAX_FINDINGS]],
            }
            for name, r in s.results.items()
        },
    })
    doc["top_kernels"] = [{k: r[k] for k in ("name", "kind", "calls", "total_ns", "effective_ns", "mean_ns", "share")}
                          for r in top_rows]
    for name, rows in tables.items():
        doc["analyses"][name]["table"] = rows
    return doc


def to_dict(report: Report, top: int = 20) -> dict[str, Any]:
    """The whole report as a JSON-safe dict."""
    return {
        "schema_version": report.schema_version,
        "tool": {"name": "gpulens", "version": report.tool_version},
        "created": report.created,
        "status": report.status,
        "sources": [source_dict(s, top) for s in report.sources],
    }


def render(report: Report) -> str:
    """Render ``report`` as indented JSON text (UTF-8; one-space indent).

    Encoded by msgspec (C; ≈ 20× faster than the standard library's pure-Python indenting encoder, which took most
    of this reporter's time on large reports); :func:`to_dict` has already turned NaN/inf into null, so the text is
    strict JSON. Falls back to :func:`json.dumps` for a value msgspec cannot encode.
    """
    doc = to_dict(report)
    try:
        import msgspec

        return msgspec.json.format(msgspec.json.encode(doc), indent=1).decode("utf-8")
    except (ImportError, TypeError, ValueError, OverflowError):
        return json.dumps(doc, indent=1, allow_nan=False)
