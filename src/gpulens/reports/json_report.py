"""JSON reporter: the machine-readable report (layout in docs/report-schema.md, versioned by ``schema_version``)."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pandas as pd

from gpulens.report import Report, SourceReport


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


def table_records(df: pd.DataFrame) -> list[dict[str, Any]]:
    """DataFrame → list of JSON-safe row dicts (NaN/NA → null)."""
    if df is None or not len(df):
        return []
    return [_clean(r) for r in df.astype(object).to_dict(orient="records")]


def source_dict(s: SourceReport, top: int = 20) -> dict[str, Any]:
    """One source's section of the JSON report."""
    tl = s.timeline
    hs = s.results.get("hotspots")
    top_rows = table_records(hs.table.head(top)) if hs is not None else []
    return _clean({
        "label": s.label,
        "status": s.status,
        "collectors": sorted({src.get("collector", "") for src in tl.meta.sources}),
        "inputs": tl.meta.sources,
        "devices": tl.meta.devices,
        "device_spec": getattr(s.device, "name", None) if s.device is not None else None,
        "truncated": tl.meta.truncated,
        "truncated_at": tl.meta.truncated_at,
        "warnings": tl.meta.warnings,
        "summary": s.summary,
        "top_kernels": [{k: r[k] for k in ("name", "kind", "calls", "total_ns", "effective_ns", "mean_ns", "share")}
                        for r in top_rows],
        "findings": [f.to_dict() for f in s.findings()],
        "analyses": {
            name: {
                "skipped_reason": r.skipped_reason,
                "summary": r.summary,
                "columns": r.columns,
                "table": table_records(r.table),
                "findings": [f.to_dict() for f in r.findings],
            }
            for name, r in s.results.items()
        },
    })


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
    """Render ``report`` as indented JSON text."""
    return json.dumps(to_dict(report), indent=1, allow_nan=False)
