"""The per-kernel drill-down of the HTML report: one section per hot kernel, reached from any kernel name.

Each section gathers what the analyses say about that kernel — its verdict with evidence and next steps, its
speed of light (the ``speed_of_light`` result, else the ncu SOL figures of ``stalls``), occupancy with limiter and
launch configuration, stall-class bars, its roofline position, and the row of every other result keyed by kernel
name (launch latency, distributions, new analyzers) — and says "not measured" for each part that is absent.
Bars are plain HTML (no chart library), so a page with 30 kernels stays light.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers import AnalysisResult
from gpulens.report import SourceReport
from gpulens.analyzers._advice import vendor_word
from gpulens.reports._values import largest_items, lower_bound_mark
from gpulens.reports._format import (column_label, fmt_ns, fmt_unit, is_missing, limiter_text, result_title,
                                     shown_columns, source_vendor, stall_class_label, unit_of, vendor_label)
from gpulens.reports._html_answer import bound_meanings
from gpulens.reports._values import bound_text
from gpulens.reports._html_parts import esc, kv_html, unknown_everywhere
from gpulens.reports._html_roofline import roof_label
from gpulens.reports._names import short_names
from gpulens.units import plural

#: Hot kernels that get a page (critical set first, then by time).
MAX_KERNELS = 30
#: Results shown in dedicated parts of a kernel's page (others appear generically).
_OWN = ("hotspots", "verdicts", "speed_of_light", "occupancy", "stalls", "roofline")
#: Results whose rows are drawing segments or time bins, not facts about a kernel: the kernel page does not list the
#: first one it finds ("Stream timeline: level 0, window 0, thread id −1" — the timeline tab draws them).
_NOT_KERNEL_FACTS = ("stream_timeline", "queue_length_series", "memory_series", "critical_path_segments")
NOT_MEASURED = "not measured"


def hot_kernels(s: SourceReport, limit: int = MAX_KERNELS) -> list[str]:
    """Names of the kernels that get a page: the performance-critical set, then the next largest, up to
    ``limit`` (at most :data:`MAX_KERNELS`)."""
    hs = s.results.get("hotspots")
    if hs is None or hs.skipped or not len(hs.table):
        return []
    t = hs.table
    crit = t[t["critical"].astype(bool)] if "critical" in t else t.head(0)
    rest = t[~t.index.isin(crit.index)]
    return [str(n) for n in pd.concat([crit, rest])["name"].head(min(limit, MAX_KERNELS))]


def kernel_links(s: SourceReport, si: int, limit: int = MAX_KERNELS) -> dict[str, str]:
    """Kernel name → hash anchor (``kernel-<source index>-<i>``) for the page-worthy kernels of one source."""
    return {n: f"kernel-{si}-{i}" for i, n in enumerate(hot_kernels(s, limit))}


#: id(table) → (table, {kernel name: (column, first row position)}) for the kernels that get a page, built once per
#: result while :func:`kernel_pages` runs (a result's table is scanned once, not once per kernel).
_INDEX: dict[int, tuple[pd.DataFrame, dict[str, tuple[str, int]]]] = {}
_WANTED: list[frozenset[str]] = [frozenset()]
#: (id(table), row position) → that row, for the tables in :data:`_INDEX` (cleared with it).
_ROWS: dict[tuple[int, int], pd.Series] = {}


def _first_rows(t: pd.DataFrame, wanted: frozenset[str]) -> dict[str, tuple[str, int]]:
    """Kernel name → (``name`` or ``kernel`` column, position of its first row) for the names in ``wanted``."""
    out: dict[str, tuple[str, int]] = {}
    for col in ("name", "kernel"):
        if col not in t:
            continue
        c = t[col]
        textual = c.dtype == object or isinstance(c.dtype, pd.CategoricalDtype) or pd.api.types.is_string_dtype(c)
        vals = c if textual else c.astype(str)
        pos = np.flatnonzero(vals.isin(wanted).to_numpy(dtype=bool))
        hits = vals.iloc[pos]
        first = ~hits.duplicated().to_numpy(dtype=bool)  # each name's first row only
        for name, p in zip(hits[first].tolist(), pos[first].tolist()):
            out.setdefault(str(name), (col, int(p)))
    return out


def _row(r: AnalysisResult | None, name: str) -> pd.Series | None:
    """The first row of ``r``'s table whose ``name`` (else ``kernel``) column is ``name``; None when none."""
    if r is None or r.skipped or r.table is None or not len(r.table):
        return None
    t = r.table
    if name not in _WANTED[0]:  # not a kernel with a page: scan this table alone
        for col in ("name", "kernel"):
            if col in t:
                hit = t[t[col].astype(str) == name]
                if len(hit):
                    return hit.iloc[0]
        return None
    hit = _INDEX.get(id(t))
    if hit is None or hit[0] is not t:
        hit = _INDEX[id(t)] = (t, _first_rows(t, _WANTED[0]))
    at = hit[1].get(name)
    if at is None:
        return None
    # a hit in ``name`` wins over one in ``kernel`` (``_first_rows`` looks there first); each row built once while
    # the pages are drawn (the index and the page both ask for a kernel's verdict and hotspot rows, the launch check
    # and the page's facts for its launch rows) — read only: a caller that changes a row copies it first
    row = _ROWS.get((id(t), at[1]))
    if row is None:
        row = _ROWS[(id(t), at[1])] = t.iloc[at[1]]
    return row


def _bars(items: list[tuple[str, Any]], colour: str = "#0072B2", tips: list[str] | None = None,
          bounds: dict[str, tuple[float, str]] | None = None) -> str:
    """Horizontal 0–100 % bars: label (with ``tips``' text as its tooltip: what the figure is), bar, value (as
    every table cell rounds a percentage, :func:`~gpulens.units.share_pct_text`; "not measured" when missing).
    ``bounds``: label → (upper bound [%], its text) for a missing figure that is bounded: an outlined bar to the
    bound, the text beside it (the occupancy bound the block size alone allows, "≤ 66.7 % (…)")."""
    out = []
    for i, (label, v) in enumerate(items):
        tip = tips[i] if tips and i < len(tips) and tips[i] else ""
        head = f'<span title="{esc(tip)}">{esc(label)}</span>' if tip else f"<span>{esc(label)}</span>"
        if is_missing(v) and bounds and label in bounds:
            b, text = bounds[label]
            out.append(f'{head}<span class="bar"><span style="width:{max(0.0, min(100.0, b)):.1f}%;'
                       f'background:#fff;box-sizing:border-box;border:2px solid {colour}"></span></span>'
                       f'<span class="num" title="{esc(text)}">≤ {esc(fmt_unit(b, "%"))}</span>')
            continue
        if is_missing(v):
            out.append(f'{head}<span class="bar"></span><span class="nm">{NOT_MEASURED}</span>')
            continue
        w = max(0.0, min(100.0, float(v)))
        out.append(f'{head}<span class="bar"><span style="width:{w:.1f}%;background:{colour}">'
                   f'</span></span><span class="num">{esc(fmt_unit(v, "%"))}</span>')
    return f'<div class="bars">{"".join(out)}</div>'


def _part(title: str, body: str) -> str:
    return f'<div class="kpart"><h4>{esc(title)}</h4>{body}</div>'


def _absent(r: AnalysisResult | None) -> str:
    why = (r.skipped_reason if r is not None and r.skipped else "no row for this kernel") if r is not None else \
        "the analysis did not run"
    return f'<p class="nm">{NOT_MEASURED}: {esc(why)}</p>'


def _same_share(a: Any, b: Any, tol: float) -> bool:
    """Whether two shares [%] of a roofline row agree within ``tol`` points (both known)."""
    x, y = pd.to_numeric(pd.Series([a, b]), errors="coerce")
    return bool(x == x and y == y and abs(x - y) < tol)


def _kv_row(r: AnalysisResult, row: pd.Series, skip: tuple[str, ...] = ("name", "kernel"),
            vendor: str | None = None) -> str:
    """One result row as label/value pairs; a note column without a note is left out (a table shows "none" in
    such a cell; a list of facts does not need the line "stake note none"), and so is a column unknown on every
    row of the result."""
    vendor = r.summary.get("vendor") or vendor  # the result's vendor (occupancy), else the input's: SM or CU…
    t = r.table if isinstance(r.table, pd.DataFrame) else pd.DataFrame()
    in_t = set(t.columns) if len(t) > 1 else set()  # (a str Index is slow to iterate and to ask, column by column)
    # each value, declaration and unit read once (a Series lookup per use was a third of the kernel pages' time)
    shown = [c for c in shown_columns(row.index.tolist()) if c not in skip]
    if row.index.is_unique:  # by position in the row's values: what ``row[c]`` reads, without a look-up per column
        at, values = {c: i for i, c in enumerate(row.index.tolist())}, row._values
        val = {c: values[at[c]] for c in shown}
    else:
        val = {c: row[c] for c in shown}
    doc = {c: r.columns.get(c, "") for c in shown}
    unit = {c: unit_of(c, doc[c]) for c in shown}
    cols = [c for c in shown
            if not (unit[c] == "note" and (val[c] is None or val[c] != val[c] or str(val[c]).strip() == ""))
            # a figure no row of this input has (an AMD-only measured-peak % on an NVIDIA capture) is no line
            # "not measured" beside the figure that is: it is left out
            and not (c in in_t and unknown_everywhere(t, c))]
    if "limiters" in cols and "limiter" in cols:  # the binding limit is the first of the tied ones: said once, as the
        cols.remove("limiter")                    # page's 'Limiter:' line says it ('registers + shared memory')
    low = row.get("flops_lower_bound")
    lower = isinstance(low, str) and bool(low)  # FLOPs over partial FP counters: "≥", as in the tables
    return kv_html([(vendor_label(c, vendor, column_label(c, doc[c]), doc[c]),
                     limiter_text(val[c], vendor) if c in ("limiter", "limiters") else
                     lower_bound_mark(fmt_unit(val[c], unit[c]), c, unit[c], lower)) for c in cols])


def _no_launch_row_reason(launches: AnalysisResult | None) -> str:
    """Why a kernel has no row in the launch analyses that ran, from the ``launches`` summary's counts: the input
    records no launch call at all (a GPU-only trace, a rocprof/ncu kernel list), the kernel was replayed by a graph
    launch (no launch call of its own), or its launch call is not linked to it."""
    sm = launches.summary if launches is not None and not launches.skipped else {}
    if sm.get("launch_calls") == 0:
        return "the input records no launch calls (GPU work only), so no launch latency can be measured"
    if sm.get("graph_launches"):
        return ("this kernel has no row in the launch analysis (a kernel replayed by a graph launch has no launch "
                "call of its own)")
    return "this kernel has no row in the launch analysis (no launch call is linked to it)"


def kernel_section(s: SourceReport, name: str, anchor: str, label: str) -> str:
    """One kernel's page (hidden until its anchor is opened)."""
    res = s.results
    parts = []
    hs = _row(res.get("hotspots"), name)
    head = (f"{plural(hs['calls'], 'launch(es)')}, {fmt_ns(hs['effective_ns'])} "
            f"({fmt_unit(hs['share'], 'share')} of kernel time)" if hs is not None else "")
    vd = _row(res.get("verdicts"), name)
    if vd is not None:
        steps = vd.get("next_steps")
        steps_html = "".join(f"<li>{esc(fmt_unit(x, 'text'))}</li>" for x in (steps if isinstance(steps, (list, tuple))
                                                                            else [steps]) if not is_missing(x))
        verdict = fmt_unit(vd["verdict"], "text")
        meaning = bound_meanings(source_vendor(s)).get(verdict)
        tip = f' title="{esc(meaning)}"' if meaning else ""
        parts.append(_part("Verdict", f'<p><span class="vlabel"{tip}>{esc(verdict)}</span> '
                                      + (f'{esc(fmt_ns(vd.get("time_at_stake_ns")))} at stake'
                                         if not is_missing(vd.get("time_at_stake_ns")) else "time at stake unknown")
                                      + (f' ({esc(vd["stake_note"])})' if isinstance(vd.get("stake_note"), str)
                                         else "") + '</p>'
                                      f'<p>Evidence: {esc(fmt_unit(vd.get("evidence"), "text"))}</p>'
                                      f'<ol>{steps_html}</ol>'))
    else:
        parts.append(_part("Verdict", _absent(res.get("verdicts"))))
    sol, st = _row(res.get("speed_of_light"), name), _row(res.get("stalls"), name)
    if sol is not None:
        r = res["speed_of_light"]
        # a % no kernel of this input has (the AMD-only measured-peak DRAM % on an NVIDIA capture) is left out
        cols = [c for c in sol.index
                if unit_of(c, r.columns.get(c, "")) == "%" and not (c in r.table and r.table[c].isna().all())]
        pcts = [(column_label(c, r.columns.get(c, "")), sol[c]) for c in cols]
        extra = f'<p>Bound: {esc(fmt_unit(sol.get("bound"), "text"))}. {esc(fmt_unit(sol.get("evidence"), "text"))}</p>'
        # each bar's tooltip: the column's meaning as the analyzer declares it, less its unit
        tips = [r.columns.get(c, "").rsplit(" [", 1)[0] for c in cols]
        parts.append(_part("Speed of light", _bars(pcts, tips=tips) + extra))
    elif st is not None and not (is_missing(st.get("compute_sol_pct")) and is_missing(st.get("memory_sol_pct"))):
        parts.append(_part("Speed of light", _bars([(f"compute ({vendor_word(st.get('vendor'), 'sm')})",
                                                     st.get("compute_sol_pct")),
                                                    ("memory", st.get("memory_sol_pct"))])))
    else:
        parts.append(_part("Speed of light", _absent(res.get("speed_of_light"))))
    oc = _row(res.get("occupancy"), name)
    if oc is not None:
        r = res["occupancy"]
        vendor = r.summary.get("vendor")  # limiter words: wavefronts / LDS on AMD
        bound = bound_text(oc.get("theoretical_occupancy_pct"), oc.get("theoretical_max_pct"), vendor)
        parts.append(_part("Occupancy", _bars([("theoretical", oc.get("theoretical_occupancy_pct")),
                                               ("achieved", oc.get("achieved_occupancy_pct"))], "#56B4E9",
                                              bounds={"theoretical": (float(oc["theoretical_max_pct"]), bound)}
                                              if bound else None)
                           + f'<p>Limiter: <strong>{esc(limiter_text(oc.get("limiters") or oc.get("limiter"), vendor))}'
                             f'</strong>{esc(" — theoretical " + bound) if bound else ""}</p>' + _kv_row(r, oc, ("name", "theoretical_occupancy_pct",
                                                                "achieved_occupancy_pct", "limiters"))))
    else:
        parts.append(_part("Occupancy", _absent(res.get("occupancy"))))
    if st is not None:
        r = res["stalls"]
        classes = [(lab, st[c]) for c in st.index if (lab := stall_class_label(c, r.columns.get(c, "")))]
        reasons = st.get("reasons")
        top = largest_items(reasons, "%", 6)  # reason → share of stall time [%] (stalls.COLUMNS): the largest
        if top is not None:
            reasons = ", ".join(f"{k} {x}" for k, x in top[0]) or None
        parts.append(_part("Stall classes (share of stall time)", _bars(classes, "#D55E00")
                           + f'<p>Top reasons (share of stall time): {esc(fmt_unit(reasons, "text")[:400])}</p>'))
    else:
        parts.append(_part("Stall classes", _absent(res.get("stalls"))))
    rf = _row(res.get("roofline"), name)
    if rf is not None:
        r = res["roofline"]
        if "compute_roof" in rf.index:  # "matrix bf16 (tensor cores)", not the figure key "matrix.bf16"
            rf = rf.copy()
            rf["compute_roof"] = roof_label(rf["compute_roof"], str(getattr(s.device, "vendor", "") or ""))
        # a share equal to % of roofline is that figure again, not another: said once (as the roofline table does)
        same = tuple(c for c, tol in (("bound_pct", 0.05), ("datasheet_roof_pct", 0.5))
                     if c in rf.index and _same_share(rf[c], rf.get("roof_pct"), tol))
        # the unit of a share said once is that row's own ("unit of that % (its peak): roofline" beside "% of
        # roofline 4.2 %" and "% of datasheet peak 1.3 %" named no row): left out with its share
        same += ("bound_pct_unit",) if "bound_pct" in same else ()
        parts.append(_part("Roofline position", _kv_row(r, rf, ("name", "calls", "time_ns") + same)))
    else:
        parts.append(_part("Roofline position", _absent(res.get("roofline"))))
    launch = [n for n in res if "launch" in n and _row(res[n], name) is not None]
    if not launch:
        ran = any("launch" in n and not getattr(r, "skipped", True) for n, r in res.items())
        why = _no_launch_row_reason(res.get("launches")) if ran else "no per-kernel launch analysis in this report"
        parts.append(_part("Launch latency", f'<p class="nm">{NOT_MEASURED}: {why}</p>'))
    for n, r in res.items():
        if n in _OWN or n in _NOT_KERNEL_FACTS:
            continue
        row = _row(r, name)
        if row is not None:
            parts.append(_part(result_title(n, source_vendor(s)), _kv_row(r, row, vendor=source_vendor(s))))
    return (f'<section class="kpage" id="kp-{esc(anchor.removeprefix("kernel-"))}" hidden>'
            f'<h3>{esc(label)}</h3><p class="note">{esc(head)}</p><details><summary>Full name</summary>'
            f'<code class="fullname">{esc(name)}</code></details><div class="kparts">{"".join(parts)}</div></section>')


def kernel_pages(s: SourceReport, links: dict[str, str]) -> list[Any]:
    """The kernel tab's blocks for one source: an index of its hot kernels and one hidden section each."""
    names = [n for n in hot_kernels(s) if n in links]
    if not names:
        return ['<p class="empty"><strong>Kernel details</strong>: no kernels in this input</p>']
    labels = short_names(names)
    _WANTED[0] = frozenset(names)
    try:
        blocks: list[Any] = [kernel_index(s, names, labels, links)]
        blocks += [kernel_section(s, n, links[n], lab) for n, lab in zip(names, labels) if n in links]
    finally:
        _WANTED[0] = frozenset()
        _INDEX.clear()
        _ROWS.clear()
    return blocks


#: The tooltip of a kernel outside the verdicts' set (a bound pill reading "no verdict").
NO_VERDICT_TIP = ("no verdict: the verdicts cover the performance-critical set (the hot-kernel table's 'critical' "
                  "column), the fewest kernels that make up most of the kernel time; this kernel is outside it")


def kernel_index(s: SourceReport, names: list[str], labels: list[str], links: dict[str, str]) -> str:
    """The kernel tab's index: one row per kernel with a page — its rank in the hot-kernel table, its name (a link
    to its page, full name on hover), GPU time and share, bound and time at stake, each the cell of its ``verdicts``
    row as the answer banner shows it (time and share of its ``hotspots`` row, bound "no verdict" and time at stake
    unknown for a kernel outside the verdicts' set). A list of names alone made a reader open each page to learn
    which kernels mattered."""
    from gpulens.reports._html_answer import bound_td, stake_td, time_text
    from gpulens.reports._html_parts import hot_ranks
    from gpulens.reports._run_text import stake_notes

    vendor = source_vendor(s)
    rank_of = hot_ranks(s)
    rows = []
    for n in names:
        vd = _row(s.results.get("verdicts"), n)
        rows.append(vd.to_dict() if vd is not None else None)
    notes = stake_notes([r or {} for r in rows])
    body = []
    for i, (n, lab, r) in enumerate(zip(names, labels, rows)):
        hs = _row(s.results.get("hotspots"), n)
        src = r if r is not None else (hs.to_dict() if hs is not None else {})
        verdict = fmt_unit(r.get("verdict"), "text") if r is not None else "no verdict"
        rank = rank_of.get(n)
        body.append(f'<tr><td class="num">{f"#{rank}" if rank else ""}</td><td class="name" title="{esc(n)}">'
                    f'<a class="klink" href="#{esc(links[n])}">{esc(lab)}</a></td>'
                    f'<td class="num">{esc(time_text(src))}</td>'
                    + bound_td(verdict, vendor, None if r is not None else NO_VERDICT_TIP)
                    + stake_td(r.get("time_at_stake_ns") if r is not None else None, notes.get(i)) + "</tr>")
    heads = "".join(f'<th scope="col">{h}</th>' for h in ("#", "kernel", "GPU time · share", "bound", "time at stake"))
    return (f'<nav class="kindex" aria-label="Hot kernels"><p>Open a kernel (or click a kernel name anywhere in the '
            f'report):</p><table class="kindex"><thead><tr>{heads}</tr></thead><tbody>{"".join(body)}</tbody>'
            "</table>" + "".join(f'<p class="note">{esc(m.strip())} time at stake: {esc(t)}.</p>'
                                 for m, t in dict(notes.values()).items()) + "</nav>")
