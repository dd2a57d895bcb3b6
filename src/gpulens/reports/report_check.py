"""Checking the figures of a ``gpulens analyze --json`` report read back by ``diff``, ``gate`` and ``baseline save``.

A report is a file: it may have been edited, merged by hand or damaged. Every figure gpulens writes there — a key
ending ``_ns``, ``_bytes``, ``_count``, ``_pct``, ``_per_s``, ``share``, or ``calls``/``count``/``events``/
``flops``/``rank``/``other_rows``, and every figure ``gate`` compares whatever its key (``launch_calls``,
``unique_kernels``: :data:`gpulens.gate.runs.RUN_METRICS`) in a source's ``summary``, ``top_kernels``, ``findings`` or
an analysis's ``summary``/``table`` — is a JSON number within ±2^63 or ``null`` (unknown), and the figures ``gate`` compares
(times, counts, bytes, FLOP) are not negative; in a summary, a figure the comparison
does not read as one number may also be a mapping or list of such (``rank_span_ns``: rank → ns).
:func:`check_report` refuses any other value with one line naming the file and the value's place: a figure of
another type (``{}``, ``"12"``, ``true``), ``NaN``/``Infinity`` (which Python's JSON reader accepts) or a number
beyond int64 would otherwise surface as an internal error in the statistics, or as a comparison of garbage.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from gpulens.errors import TraceFormatError

_FIGURE = re.compile(r"(_ns|_bytes|_count|_pct|_per_s|share|^calls|^count|^events|^flops|^rank|^other_rows)$")
_INT64 = 2 ** 63


def is_report(doc: Any) -> bool:
    """True when the parsed JSON ``doc`` is a gpulens report: an object holding ``sources`` and ``schema_version``
    or naming gpulens as its ``tool`` (a baseline holds no ``sources``)."""
    tool = doc.get("tool") if isinstance(doc, dict) else None
    return isinstance(doc, dict) and "sources" in doc and (
        "schema_version" in doc or (isinstance(tool, dict) and tool.get("name") == "gpulens"))


def _bad(v: Any) -> str | None:
    """Why ``v`` is no figure (None when it is one)."""
    if v is None:
        return None
    if isinstance(v, bool):
        return f"{str(v).lower()}"
    if isinstance(v, int):
        return None if -_INT64 <= v < _INT64 else "a number beyond int64"
    if isinstance(v, float):
        if not math.isfinite(v):
            return str(v).replace("inf", "Infinity").replace("nan", "NaN")
        return None if abs(v) <= _INT64 else "a number beyond int64"
    if isinstance(v, str):
        return f"text {v[:20]!r}"
    return "an object" if isinstance(v, dict) else "a list" if isinstance(v, list) else type(v).__name__


def nonfinite_at(doc: Any) -> str | None:
    """The place (``sources[0].devices[0].name``) of the first ``NaN`` / ``Infinity`` anywhere in the parsed JSON
    ``doc``, else None. No JSON number is one (RFC 8259 §6) and gpulens never writes one; Python's JSON reader accepts
    them, and one echoed from a report or baseline (a device's architecture, a run's environment) into a ``gate`` or
    ``diff`` output would make that output invalid JSON."""
    stack: list[tuple[Any, str]] = [(doc, "")]
    while stack:
        v, at = stack.pop()
        if isinstance(v, float):
            if not math.isfinite(v):
                return at or "the document"
        elif isinstance(v, dict):
            stack.extend((x, f"{at}.{k}" if at else str(k)) for k, x in reversed(v.items()))
        elif isinstance(v, list):
            stack.extend((x, f"{at}[{j}]") for j, x in reversed(list(enumerate(v))))
    return None


def _scalars() -> set[str]:
    """Summary figures ``gate`` and ``diff`` read as one number (:data:`gpulens.gate.runs.RUN_METRICS`, and the
    figure each reads in an older report, :data:`gpulens.gate.environment.OLDER_PATH`)."""
    from gpulens.gate.environment import OLDER_PATH
    from gpulens.gate.runs import RUN_METRICS

    return {path[-1] for *_, path in RUN_METRICS} | {path[-1] for path in OLDER_PATH.values()}


def _wholes(where: str) -> set[str]:
    """The figures of the summary at ``where`` (``sources[0].summary``) that ``gate`` compares as whole counts
    (kernels, launches: kind ``count`` without a unit)."""
    from gpulens.gate.runs import RUN_METRICS

    return {path[-1] for _, kind, unit, path in RUN_METRICS
            if kind == "count" and unit == "" and where.endswith("]." + ".".join(path[:-1]))}


def _what(v: Any) -> str:
    """``v`` described in a few words (for a value of the wrong type)."""
    return "missing" if v is None else _bad(v) or f"the number {v}"


def _check_row(row: Any, where: str, path: Path, summary: bool = False) -> None:
    """Check the figures of one summary (``summary``: a figure not read as one number by the comparison may be a
    mapping or list of figures, e.g. rank → ns) or one table row (every figure one number)."""
    if not isinstance(row, dict):
        return
    scalars = _scalars() if summary else set()
    wholes = _wholes(where) if summary else set()
    for k, v in row.items():
        if not _FIGURE.search(str(k)) and str(k) not in scalars:  # every figure the comparison reads
            continue
        if summary and isinstance(v, (dict, list)) and str(k) not in scalars:
            for kk, vv in (v.items() if isinstance(v, dict) else enumerate(v)):
                why = _bad(vv)
                if why:
                    raise _error(path, f"{where}.{k}.{kk}", why)
            continue
        if str(k) in wholes and isinstance(v, float) and math.isfinite(v) and not v.is_integer():
            raise TraceFormatError(path, f"report figure {where}.{k} is {v}, not a whole count: the report was edited "
                                         "or damaged (regenerate it with gpulens analyze --json)")
        why = _bad(v) or ("below 0" if str(k) in scalars and isinstance(v, (int, float)) and v < 0 else None)
        if why:
            raise _error(path, f"{where}.{k}", why)


def _error(path: Path, where: str, why: str) -> TraceFormatError:
    return TraceFormatError(path, f"report figure {where} is {why}, not a number: the report was edited or "
                                  "damaged (regenerate it with gpulens analyze --json)")


#: the containers of a source the readers walk: key → "object" (a mapping) or "list" (a list of objects); null is
#: allowed for each (absent)
_SOURCE_SHAPES = {"summary": "object", "analyses": "object", "devices": "list", "top_kernels": "list",
                  "findings": "list", "inputs": "list"}
_ANALYSIS_SHAPES = {"summary": "object", "table": "list", "findings": "list"}


def _shape(path: Path, where: str, v: Any, kind: str) -> None:
    """Raise unless ``v`` is null, a mapping (``kind`` "object") or a list of mappings (``kind`` "list")."""
    if v is None:
        return
    if kind == "object" and not isinstance(v, dict):
        raise _shape_error(path, where, v, "an object")
    if kind == "list":
        if not isinstance(v, list):
            raise _shape_error(path, where, v, "a list")
        for j, x in enumerate(v):
            if not isinstance(x, dict):
                raise _shape_error(path, f"{where}[{j}]", x, "an object")


def _shape_error(path: Path, where: str, v: Any, want: str) -> TraceFormatError:
    return TraceFormatError(path, f"report {where} is {_what(v)}, not {want}: the report was edited or damaged "
                                  "(regenerate it with gpulens analyze --json)")


def check_report(doc: dict[str, Any], path: str | Path) -> dict[str, Any]:
    """Return ``doc`` when its ``schema_version`` is a whole number, its texts (``created``, ``status``, each
    source's ``label``/``status``/``partial_reason``) are text or null, the containers the readers walk are what
    they should be (a source's ``summary``/``analyses`` and each analysis and its ``summary`` objects; ``devices``,
    ``top_kernels``, ``findings``, ``inputs`` and each analysis's ``table``/``findings`` lists of objects; null
    allowed), and every figure of every source is a number, null or a mapping of such (module doc).

    Raises:
        TraceFormatError: naming ``path`` and the first value that is not (``sources[0].summary.span_ns is an
            object``).
    """
    p = Path(path)
    version = doc.get("schema_version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise TraceFormatError(p, f"report schema_version is {_what(version)}, not a version number: the "
                                  "report was edited or damaged (regenerate it with gpulens analyze --json)")
    for key in ("created", "status"):
        if doc.get(key) is not None and not isinstance(doc[key], str):
            raise TraceFormatError(p, f"report {key} is {_what(doc[key])}, not text: the report was edited or damaged")
    for i, s in enumerate(doc.get("sources") or []):
        if not isinstance(s, dict):
            raise TraceFormatError(p, f"report sources[{i}] is not an object: the report was edited or damaged")
        at = f"sources[{i}]"
        for key in ("label", "status", "partial_reason"):
            if s.get(key) is not None and not isinstance(s[key], str):
                raise TraceFormatError(p, f"report {at}.{key} is {_what(s[key])}, not text: the report was edited or "
                                          "damaged")
        for key, kind in _SOURCE_SHAPES.items():
            _shape(p, f"{at}.{key}", s.get(key), kind)
        for name, a in (s.get("analyses") or {}).items():
            _shape(p, f"{at}.analyses.{name}", a, "object")
            for key, kind in _ANALYSIS_SHAPES.items():
                _shape(p, f"{at}.analyses.{name}.{key}", (a or {}).get(key), kind)
        _check_row(s.get("summary"), f"{at}.summary", p, summary=True)
        for j, r in enumerate(s.get("top_kernels") or [] if isinstance(s.get("top_kernels"), list) else []):
            _check_row(r, f"{at}.top_kernels[{j}]", p)
        for j, f in enumerate(s.get("findings") or [] if isinstance(s.get("findings"), list) else []):
            _check_row(f, f"{at}.findings[{j}]", p)
        an = s.get("analyses")
        for name, a in (an.items() if isinstance(an, dict) else ()):
            if not isinstance(a, dict):
                continue
            _check_row(a.get("summary"), f"{at}.analyses.{name}.summary", p, summary=True)
            table = a.get("table")
            for j, r in enumerate(table if isinstance(table, list) else []):
                _check_row(r, f"{at}.analyses.{name}.table[{j}]", p)
    bad = nonfinite_at(doc)
    if bad:
        raise TraceFormatError(p, f"report value {bad} is NaN or Infinity, not a JSON number: the report was edited "
                                  "or damaged (regenerate it with gpulens analyze --json)")
    return doc
