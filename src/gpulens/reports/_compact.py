"""Which columns a compact table shows (console, Markdown), and the note under it for FLOP figures that are lower
bounds: the rules the console's and the Markdown's compact tables share.

Free of rich (the console's table library) on purpose: ``--markdown`` imports these rules without the console's
drawing code (≈ 15 ms of imports a report run without a console summary does not need).
"""

from __future__ import annotations

import re
import weakref
from typing import Any

import pandas as pd

from gpulens.reports._format import shown_columns, unit_of
from gpulens.reports._names import short_names
from gpulens.reports._values import unknown_everywhere

#: Columns that hold kernel or operator names (shortened so they stay distinguishable).
NAME_COLUMNS = ("name", "kernel", "op", "operator", "annotation", "top_event")
#: Name columns written by a person (record_function / NVTX ranges): shown as written, never through the kernel-name
#: shortener (which read "## decoder fp8 None ##" as a template and showed "## ‹decoder›").
USER_TEXT_COLUMNS = ("annotation",)
#: The column a ratio column divides by, named in brackets in its doc: ``"… (grid_median_ns) [ratio]"``.
_BASIS = re.compile(r"\((\w+)\)", re.ASCII)


def lower_bound_note(rows: Any) -> str:
    """One sentence for the rows of a table (``rows``: the shown part) whose FLOP figures are lower bounds (their
    ``flops_lower_bound`` note, analyzers._flop_coverage): "FLOP figures of gemm_wmma: a lower bound (… not
    collected …)"; "" when none is. The console and Markdown compact tables say it under the table."""
    if "flops_lower_bound" not in rows or not rows["flops_lower_bound"].notna().any():
        return ""
    by: dict[str, list[str]] = {}
    names = rows["name"].tolist() if "name" in rows else [""] * len(rows)
    for n, v in zip(names, rows["flops_lower_bound"].tolist()):
        if isinstance(v, str) and v:
            k = by.setdefault(v, [])
            if str(n) not in k:
                k.append(str(n))
    return "; ".join(f"FLOP figures of {', '.join(short_names(k))}: {v}" for v, k in by.items())


def compact_columns(r: Any, n: int) -> list:
    """The first ``n`` columns of a result's table that a compact table (console, Markdown) shows: the
    :func:`~gpulens.reports._format.shown_columns` that say something — not internal (``_…``), not unknown or blank
    in every row (a rocprof run records no framework op: its kernel groups' ``op``, ``shapes`` and ``dtypes`` are
    all empty), not ``key`` beside a name column (the normalised name repeats it) — with the duration the rows are
    ranked by (:func:`_sort_column`) kept beside the name when it would fall past ``n``."""
    every, key = _columns_saying_something(r)
    cols = every[:n]
    if key is not None and key not in cols:  # the time the rows are ranked by, beside the name: never cut
        at = next((i + 1 for i, c in enumerate(cols) if c in NAME_COLUMNS), 1)
        cols = (cols[:at] + [key] + cols[at:])[:n]
    return _with_companions(_with_ratio_basis(cols, every, r.columns, n), every)


#: id(result table) → (a weak reference to it, the result's column docs, :func:`_columns_saying_something` of it)
_EVERY: dict[int, tuple[Any, Any, tuple[list, Any]]] = {}


def _columns_saying_something(r: Any) -> tuple[list, Any]:
    """The columns of ``r``'s table a compact table may show, in order, and the duration its rows are ranked by
    (:func:`_sort_column`), worked out once per table: the console and the Markdown report both ask for every
    result (a result's table is not changed once analysed; the entry goes when the table does)."""
    t = r.table
    k = id(t)
    memo = _EVERY.get(k)
    if memo is not None and memo[0]() is t and memo[1] is r.columns:
        return memo[2]
    named = any(c in t.columns for c in NAME_COLUMNS)
    # each column's dtype from one dict, not from a column lookup per column
    dtypes = dict(zip(t.columns, t.dtypes)) if t.columns.is_unique else None
    every = [c for c in shown_columns(t.columns) if not str(c).startswith("_") and not (c == "key" and named)
             and not unknown_everywhere(t, c)
             and not ((dtypes[c] if dtypes is not None else t[c].dtype) == object and _blank(t[c]))]
    out = (every, _sort_column(r, every))
    try:
        _EVERY[k] = (weakref.ref(t, lambda _, k=k: _EVERY.pop(k, None)), r.columns, out)
    except TypeError:  # a table that takes no weak reference: worked out every time
        pass
    return (list(out[0]), out[1])


#: A figure → the figure of the same quantity on another basis, kept beside it whenever both are known: the console's
#: speed-of-light table showed only "memory SOL (% of rated peak) 52.7 %" while the verdict above it read "62.2 % of
#: the measured HBM peak" (rocprof-compute vcopy MI200) — the measured-peak figure was cut past the sixth column.
COMPANIONS = {"memory_pct": "dram_measured_pct", "dram_pct": "dram_measured_pct"}


def _with_companions(cols: list, every: list) -> list:
    """``cols`` with each shown figure's :data:`COMPANIONS` figure (when the table has it) inserted right after it."""
    out = list(cols)
    for c, comp in COMPANIONS.items():
        if c in out and comp in every and comp not in out:
            out.insert(out.index(c) + 1, comp)
    return out


def _with_ratio_basis(cols: list, every: list, docs: dict, n: int) -> list:
    """``cols`` and, past the ``n`` first, every ratio column whose doc names the column it divides by
    (``"… (grid_median_ns) [ratio]"``) with that column, in the table's order: the console's kernel outliers showed
    a launch's duration without "others' median" and "vs median" (cut past the sixth column), so nothing said why
    the row was an outlier, while the Markdown showed both."""
    keep: list = []
    for c in every:
        doc = str(docs.get(c, ""))
        if not doc.rstrip().endswith("[ratio]"):
            continue
        basis = [b for b in _BASIS.findall(doc) if b in every and b != c]
        keep += [x for x in basis[:1] + [c] if x not in keep]
    return [c for c in every if c in cols or c in keep] if any(c not in cols for c in keep) else cols


def _blank(col: Any) -> bool:
    """Every value unknown (NaN, None, NA) or an empty string — in an object column or a string-dtype one (pandas
    3's default ``str``, ``string``), whose empties are strings too."""
    known = col.notna().to_numpy(dtype=bool)
    if not known.any():
        return True
    if col.dtype != object and not isinstance(col.dtype, pd.StringDtype):
        return False
    # stops at the first value that says something (most columns: the first row) instead of testing every row
    return all(isinstance(v, str) and not v.strip() for v in col.to_numpy()[known])


def _sort_column(r: Any, columns: list) -> Any:
    """The duration column the table's rows are ranked by (the first ``[ns]`` duration whose values never rise
    down the table, over at least two distinct values), or None: the operator roll-up ranked by GPU time showed its
    first six columns — op, shapes, dtypes, category, calls, host time — and its order looked random."""
    from gpulens.analyzers.base import is_clock_position

    for c in columns:
        if unit_of(str(c), r.columns.get(c, "")) != "ns" or is_clock_position(str(c)):
            continue
        v = r.table[c].to_numpy(dtype="float64", na_value=float("nan"))
        v = v[v == v]
        # never rising, the first value then the largest and the last the smallest: two distinct values or more
        # when those two differ (a set of every value took a fifth of the Markdown report at 100k kernels)
        if len(v) >= 2 and bool((v[1:] <= v[:-1]).all()) and v[0] > v[-1]:
            return c
    return None
