"""Value formatting shared by the HTML and Markdown reporters (times, shares, floats, clipped names)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from gpulens.reports.console import fmt_ns as _console_fmt_ns

#: Characters of a table cell kept before clipping.
CELL_CHARS = 1000


def clip(text: str, n: int) -> str:
    """``text`` cut to ``n`` characters with an ellipsis when longer."""
    return text if len(text) <= n else text[: n - 1] + "…"


def fmt_ns(ns: Any) -> str:
    """Human time: 1234 → '1.23 µs', 5e6 → '5.00 ms'; missing (None, NA, NaN) → '—'."""
    if ns is None or ns is pd.NA or (isinstance(ns, float) and math.isnan(ns)):
        return "—"
    return _console_fmt_ns(ns)


def fmt_si(v: float, unit: str) -> str:
    """``1.274e13, "FLOP/s"`` → ``"12.74 TFLOP/s"`` (decimal SI prefixes, as datasheets quote peaks)."""
    for prefix, div in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(v) >= div:
            return f"{v / div:.2f} {prefix}{unit}"
    return f"{v:.3g} {unit}"


def _is_bool(v: Any) -> bool:
    return isinstance(v, (bool, np.bool_))


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not _is_bool(v)


def fmt_value(v: Any, column: str = "") -> str:
    """A table cell's text: ``*_ns`` columns as times, ``share`` columns as %, floats with 4 significant digits."""
    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if _is_bool(v):
        return "✓" if v else ""
    if _is_num(v):
        if column.endswith("_ns"):
            return fmt_ns(v)
        if column.endswith("share"):
            return f"{100 * float(v):.1f} %"
        if column.endswith("_pct"):
            return f"{float(v):.1f} %"
        if column.endswith("_per_s"):
            unit = "FLOP/s" if "flop" in column else "B/s" if "byte" in column else "/s"
            return fmt_si(float(v), unit)
        if isinstance(v, (float, np.floating)):
            f = float(v)
            return f"{f:.4g}" if abs(f) < 1e6 else f"{f:.3e}"
        return str(int(v))
    return clip(str(v), CELL_CHARS)


def header_label(column: str) -> str:
    """A column's header text: ``mean_ns`` → ``mean`` (its cells carry the unit), ``device_id`` → ``device id``."""
    return column[:-3].replace("_", " ") if column.endswith("_ns") else column.replace("_", " ")


def busy_pct_text(sm: dict[str, Any]) -> str:
    """Busy % with its basis (``"71.4 %"``, ``"80.0 % (Σ busy / Σ per-GPU span)"``); ``"unknown (not measured: …)"``
    when the input has no timeline."""
    if sm.get("gpu_busy_pct") is None:
        return "unknown (not measured: " + str(sm.get("busy_unknown_reason") or "no timeline") + ")"
    gpus = len(sm.get("rank_span_ns") or {}) > 1 or (sm.get("device_span_ns") or 0) > (sm.get("span_ns") or 0)
    return f"{sm['gpu_busy_pct']:.1f} %" + (" (Σ busy / Σ per-GPU span)" if gpus else "")


def window_text(sm: dict[str, Any]) -> str:
    """``"40.00 µs: GPU busy 62.5 % of it"`` when the profiled window is longer than the GPU span, else ``""``."""
    if sm.get("gpu_utilization_pct") is not None and (sm.get("window_ns") or 0) > (sm.get("span_ns") or 0):
        return f"{fmt_ns(sm['window_ns'])}: GPU busy {sm['gpu_utilization_pct']:.1f} % of it"
    return ""


def busy_text(sm: dict[str, Any]) -> str:
    """The one wording of span and busy % for every reporter, from a source summary (see ``span_definition``):
    ``"35.00 µs, busy 71.4 % (profiled window 40.00 µs: GPU busy 62.5 % of it)"``; busy not measured → unknown."""
    if sm.get("gpu_busy_pct") is None:
        return busy_pct_text(sm)
    clock = " (longest rank: the ranks' clocks disagree)" if sm.get("span_basis") == "longest rank" else ""
    win = window_text(sm)
    return f"{fmt_ns(sm['span_ns'])}{clock}, busy {busy_pct_text(sm)}" + (f" (profiled window {win})" if win else "")
