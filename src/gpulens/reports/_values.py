"""Value formatting by declared unit for the reports (console, HTML, Markdown): :func:`fmt_unit` and the scalar helpers
it uses. The unit vocabulary and how each unit reads are documented in :mod:`gpulens.reports._format`, which
re-exports every name here.
"""

from __future__ import annotations

import weakref
from typing import Any, Mapping

import numpy as np

from gpulens.reports._op_inputs import dtypes_text, shapes_text
from gpulens.units import (
    MISSING, fmt_capacity, fmt_count as _fmt_count, fmt_ns, fmt_num, fmt_si, is_missing, share_pct_text)


#: Characters of a table cell kept before clipping.
CELL_CHARS = 1000


def clip(text: str, n: int, whole_words: bool = False) -> str:
    """``text`` cut to at most ``n`` characters with an ellipsis when longer — at the last word boundary when one
    falls in the last third of the room (prose: "… another tile…", never "… another tile configuratio…"), or
    wherever it falls with ``whole_words`` (a next step: never cut inside a word or a metric name); a long
    unbroken token (a kernel name) is cut where the room ends."""
    if len(text) <= n:
        return text
    head = text[: n - 1]
    if whole_words and text[n - 1].isspace():
        return head.rstrip(" ,;:—-(") + "…"  # the room ends with a whole word
    cut = head.rstrip().rfind(" ")
    if cut >= (2 * (n - 1)) // 3 or (whole_words and cut > 0):
        head = head[:cut].rstrip(" ,;:—-(")
    if whole_words and head.count("(") > head.count(")"):  # cut inside a parenthesis: end before it opened
        opened = head.rfind("(")
        if opened >= (n - 1) // 2:
            head = head[:opened].rstrip(" ,;:—-(")
    return head + "…"


#: result table (by id) → (a weak reference to it, column → unknown on every row): :func:`unknown_everywhere`
_UNKNOWN: dict[int, tuple[Any, dict[str, bool]]] = {}


def unknown_everywhere(t: Any, c: str) -> bool:
    """Whether column ``c`` of the result table ``t`` is unknown (NaN, None, NA: ``isna``) on every row — the
    columns an HTML table, a kernel page's facts and a compact (console, Markdown) table leave out. Asked for every
    panel, every kernel's page and every compact table, it is computed once per table and column (result tables
    are not changed once analysed); the entry goes when the table does."""
    key = id(t)
    memo = _UNKNOWN.get(key)
    if memo is None or memo[0]() is not t:
        memo = _UNKNOWN[key] = (weakref.ref(t, lambda _, k=key: _UNKNOWN.pop(k, None)), {})
    if not memo[1]:  # every column at once: one isna of the table (28 ms → 12 ms for a 100k run's tables)
        memo[1].update(zip(t.columns, (bool(x) for x in t.isna().all().tolist())) if t.columns.is_unique else ())
    got = memo[1].get(c)
    if got is None:
        got = memo[1][c] = bool(t[c].isna().all())
    return got


def _is_bool(v: Any) -> bool:
    return isinstance(v, (bool, np.bool_))


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not _is_bool(v)


def kib_text(v: Any) -> str:
    """A shared memory / LDS byte count as the number of KiB (1024 bytes) the console's ``smem KiB`` column shows:
    ``147456`` → ``144``, ``512`` → ``0.50``; a missing value stays the missing mark."""
    if v is None or is_missing(v):
        return MISSING
    q = float(v) / 1024
    return f"{q:,.0f}" if q.is_integer() else f"{q:,.2f}"


def _fmt_plain(f: float) -> str:
    if float(f).is_integer() and abs(f) < 1e15:
        return f"{int(f):,}"
    return f"{f:.4g}" if abs(f) < 1e6 else f"{f:.3e}"


def _fmt_collection(v: Any, unit: str = "text") -> str:
    """A mapping or sequence in one cell; a mapping's numeric values in their declared ``unit`` (per-rank shares
    read "0: 32.4 %", never a bare "0: 32.4" beside other percentages)."""
    if isinstance(v, Mapping):
        items = list(v.items())
        if items and all(_is_num(x) for _, x in items):
            items.sort(key=lambda kv: -float(kv[1]))
        return ", ".join(f"{k}: {fmt_unit(x, unit if _is_num(x) else 'text')}" for k, x in items) or "none"
    parts = [fmt_unit(x, "text") for x in v]
    # items that are sentences (next steps) follow one another as sentences: never "… blocks.; Wavefronts …"
    sep = " " if parts and all(p.rstrip().endswith((".", "!", "?", ")")) and p[:1].isupper() for p in parts) \
        else "; "
    return sep.join(parts) or "none"


#: Entries of a mapping of figures shown in one table cell (the largest; the rest counted, all in the tooltip).
CELL_ITEMS = 4


def largest_items(v: Any, unit: str, n: int = CELL_ITEMS) -> tuple[list[tuple[str, str]], int] | None:
    """A mapping of figures (stall reason → share of stall time [%], …) as its ``n`` largest entries, each
    ``(key, value)`` with the value in its declared ``unit``, and the count of entries left out; None when ``v`` is
    not a mapping whose values are all numbers (missing ones dropped). A cell listing all 18 ncu stall reasons made
    rows 12 lines tall on a 1280-px screen; the cell shows the largest and its tooltip has them all."""
    if not isinstance(v, Mapping) or not v:
        return None
    items = [(str(k), x) for k, x in v.items() if not is_missing(x)]
    if not items or not all(_is_num(x) for _, x in items):
        return None
    items.sort(key=lambda kv: -float(kv[1]))
    return [(k, fmt_unit(x, unit)) for k, x in items[:n]], max(0, len(items) - n)


#: Scalar types tested first: ``isinstance`` against the ``Mapping`` ABC is slow, and most cells are scalars.
_SCALARS = (str, int, float, np.integer, np.floating, np.bool_)


#: A ``[note]`` cell without a note: no remark applies to that row (:data:`gpulens.analyzers.base.UNITS`) — the
#: dash a person reads as "nothing here" (a bare "none" read as a name or a value; "unknown" as doubt).
NO_NOTE = "—"


#: Units shown as words (left-aligned, wrapped), not as figures
TEXT_UNITS = ("text", "note", "shapes", "dtypes", "code")


#: Number types :func:`fmt_unit` formats without its checks for other kinds of value (most cells are one of these).
_PLAIN_NUMBERS = frozenset({float, int, np.float64, np.int64, np.float32, np.int32})


def fmt_unit(v: Any, unit: str) -> str:
    """One value as a person reads it, from its declared ``unit`` (see the module docstring)."""
    if type(v) in _PLAIN_NUMBERS:  # what the checks below conclude for these types, without them
        f = float(v)
        if f != f:
            return NO_NOTE if unit == "note" else MISSING
        return _fmt_number(f, v, unit)
    if type(v) is str and unit not in ("shapes", "dtypes"):  # the other common cell: text (as below, without checks)
        return _fmt_text(v, unit)
    if unit in ("shapes", "dtypes") and isinstance(v, str) and v.strip() not in ("", "None", "nan", "<NA>"):
        return clip(shapes_text(v) if unit == "shapes" else dtypes_text(v), CELL_CHARS)
    if not isinstance(v, _SCALARS) and isinstance(v, (Mapping, list, tuple, np.ndarray)):
        return clip(_fmt_collection(list(v) if isinstance(v, np.ndarray) else v, unit), CELL_CHARS)
    if is_missing(v):
        return NO_NOTE if unit == "note" else MISSING
    if _is_bool(v):
        return "yes" if v else "no"
    if isinstance(v, str):
        return _fmt_text(v, unit)
    if not _is_num(v):
        return clip(str(v), CELL_CHARS)
    return _fmt_number(float(v), v, unit)


def _fmt_text(v: str, unit: str) -> str:
    """:func:`fmt_unit` of a ``str`` (a missing mark for the texts that stand for no value)."""
    s = v.strip()
    if s in ("", "None", "nan", "NaN", "null", "<NA>"):
        return NO_NOTE if unit == "note" else MISSING
    if unit == "code":  # a code kept for programs, in words for a person (one vocabulary for every reporter)
        from gpulens.analyzers._code_words import code_text

        return code_text(s)
    return clip(s, CELL_CHARS)


def _fmt_number(f: float, v: Any, unit: str) -> str:
    """:func:`fmt_unit` of a number ``v`` that is not missing (``f``: ``float(v)``)."""
    if unit == "ns":
        return fmt_ns(f)
    if unit == "%":  # never a false 0.0 % or 100.0 % (share_pct_text): 11.02 µs busy of an 11.02 µs span less 1 ns
        return share_pct_text(f) if 0.0 <= f <= 100.0 else f"{f:.1f} %"
    if unit == "share":  # a share of a whole is never rounded to a false 0 % or 100 % (share_pct_text)
        return share_pct_text(100 * f) if 0.0 <= f <= 1.0 else f"{100 * f:.1f} %"
    if unit in ("bytes", "KiB"):
        f = f * 1024 if unit == "KiB" else f
        return fmt_si(f, "B") if abs(f) >= 1000 else f"{f:.0f} B"
    if unit == "capacity":
        return fmt_capacity(f)
    if unit in ("FLOP", "FLOP/s", "B/s"):
        return fmt_si(f, unit)
    if unit == "FLOP/B":
        return f"{fmt_num(f)} FLOP/B"
    if unit == "count":
        return _fmt_count(f)
    if unit == "ratio":
        return fmt_num(f)
    if unit in ("id", "version"):
        return str(int(f)) if f.is_integer() else str(v)
    if unit == "timestamp":
        return fmt_timestamp(f)
    if unit == "Hz":
        return fmt_si(f, "Hz")
    return _fmt_plain(f)


#: The limiter code of a kernel at full theoretical occupancy (``analyzers.occupancy.NO_LIMITER``) and its words in
#: every report (a table cell, a bar label "100.0 % · no limiter", the kernel page; never a bare "none").
NO_LIMITER, NO_LIMITER_TEXT = "none", "no limiter"


def limiter_text(v: Any, vendor: str | None = None) -> str:
    """An occupancy limiter cell as a person reads it: every tied resource of the ``limiters`` column, joined with
    " + " (``"registers, shared_memory"`` → ``"registers + shared memory"``: both bind at the same block count), in
    ``vendor``'s words (AMD: ``wavefronts``, ``workgroups``, ``VGPRs``, ``LDS``;
    :func:`gpulens.analyzers._advice.vendor_word`); full occupancy (nothing limits it): :data:`NO_LIMITER_TEXT`."""
    from gpulens.analyzers._advice import vendor_word

    parts = fmt_unit(v, "text").split(", ")
    if parts == [NO_LIMITER]:  # full theoretical occupancy: nothing limits it, in every report the same words
        return NO_LIMITER_TEXT
    words = {"warps": vendor_word(vendor, "warps"), "shared_memory": vendor_word(vendor, "smem"),
             "blocks": vendor_word(vendor, "blocks"), "registers": vendor_word(vendor, "regs")} \
        if vendor == "amd" else {}
    return " + ".join(words.get(p, p).replace("_", " ") for p in parts)


def with_limiter_text(t: Any, vendor: str | None = None) -> Any:
    """The occupancy table with its ``limiters`` column in words (:func:`limiter_text`) and an unknown theoretical
    occupancy that the block size bounds as that bound (:func:`bound_text`), for generic tables."""
    t = t.assign(limiters=t["limiters"].map(lambda x: limiter_text(x, vendor))) if "limiters" in t else t
    if "theoretical_max_pct" not in t or "theoretical_occupancy_pct" not in t \
            or all(is_missing(b) for b in t["theoretical_max_pct"]):
        return t
    return t.assign(theoretical_occupancy_pct=[bound_text(v, b, vendor) or v for v, b in zip(
        t["theoretical_occupancy_pct"], t["theoretical_max_pct"])])


def bound_text(theo: Any, bound: Any, vendor: str | None = None, short: bool = False) -> str | None:
    """The theoretical-occupancy cell of a row whose figure is unknown but bounded by its block size
    (``theoretical_max_pct``, :mod:`gpulens.analyzers._occ_bound`): "≤ 66.7 % (registers and shared memory not
    recorded)" — ``short``: "≤ 66.7" for a narrow % column, the reason in its legend (:data:`BOUND_LEGEND`); None when
    the figure is known or there is no bound."""
    from gpulens.analyzers._occ_bound import not_recorded

    if not is_missing(theo) or is_missing(bound):
        return None
    return f"≤ {float(bound):.1f}" if short else f"≤ {float(bound):.1f} % ({not_recorded(vendor)})"


#: under a table whose theoretical occupancy cells say "≤ x": what the bound is
BOUND_LEGEND = ("≤ x: theoretical occupancy unknown (registers and shared memory not recorded); its block size alone "
                "allows at most x %")


def fmt_timestamp(ns: Any) -> str:
    """A point in time [ns since the Unix epoch] as UTC date and time to the millisecond; values before 1973 are
    taken as a non-epoch clock (``clock at 12.34 s``); one no calendar holds (after year 9999, infinite) reads
    unknown."""
    import datetime as _dt

    f = float(ns)
    if abs(f) < 1e17:
        return f"clock at {fmt_ns(f)}"
    try:
        d = _dt.datetime.fromtimestamp(f / 1e9, tz=_dt.timezone.utc)
    except (OverflowError, ValueError, OSError):  # past year 9999, or infinite: no time, never an internal error
        return MISSING
    return d.strftime("%Y-%m-%d %H:%M:%S.") + f"{d.microsecond // 1000:03d} UTC"


def cuda_version(v: Any) -> str:
    """A CUDA version integer (1000 × major + 10 × minor, as ``cudaDriverGetVersion`` returns it) as ``12.9``;
    anything else as recorded."""
    if _is_num(v) and not is_missing(v) and float(v).is_integer() and 1000 <= float(v) < 100000:
        n = int(v)
        return f"{n // 1000}.{(n % 1000) // 10}"
    return fmt_unit(v, "version")


#: FLOP-based units a missing FLOP counter makes a lower bound (``flops_lower_bound``, analyzers._flop_coverage).
FLOP_UNITS = ("FLOP", "FLOP/s", "FLOP/B")


def lower_bound_flags(rows: Any) -> list[bool]:
    """Per row of a table (``rows``: the part shown), whether its FLOP figures are lower bounds (its
    ``flops_lower_bound`` note is set: FP counters of the vendor's formula not collected); all False without it."""
    if rows is None or "flops_lower_bound" not in getattr(rows, "columns", ()):
        return [False] * (0 if rows is None else len(rows))
    return [isinstance(v, str) and bool(v) for v in rows["flops_lower_bound"].tolist()]


def lower_bound_column(column: str, unit: str) -> bool:
    """Whether a column's figures are lower bounds in a row whose FLOPs are (:func:`lower_bound_flags`): a measured
    FLOP figure (:data:`FLOP_UNITS`: FLOPs, FLOP/s, arithmetic intensity), not a roof, peak or ridge point."""
    return unit in FLOP_UNITS and not any(w in column for w in ("peak", "roof", "ridge", "attainable"))


def lower_bound_mark(text: str, column: str, unit: str, lower: bool) -> str:
    """``"≥ "`` before a cell's ``text`` of a measured FLOP figure (:func:`lower_bound_column`) in a row whose FLOPs
    are a lower bound (:func:`lower_bound_flags`), the one mark of the console, Markdown and HTML tables; ``text``
    unchanged otherwise (and for an unknown or blank figure)."""
    return ge_mark(text) if lower and lower_bound_column(column, unit) else text


def ge_mark(text: str) -> str:
    """``"≥ "`` before a figure's ``text`` (a lower bound); an unknown or blank figure unchanged."""
    return text if text in ("unknown", "—", "") else f"≥ {text}"


#: A run's status code (``SourceReport.status``; JSON keeps the code) in the words a person reads in every report.
STATUS_WORDS = {"ok": "ok", "partial": "partial", "no_gpu_work": "no GPU work"}


def status_text(status: Any) -> str:
    """``"no_gpu_work"`` → ``"no GPU work"``: a status code as words (:data:`STATUS_WORDS`; an unlisted code with its
    underscores as spaces) for the console, HTML and Markdown; JSON keeps the code itself."""
    return STATUS_WORDS.get(str(status), str(status).replace("_", " "))
