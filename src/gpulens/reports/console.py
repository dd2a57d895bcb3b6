"""Console reporter: a rich summary per source — device, span, busy %, time breakdown, top kernels, findings."""

from __future__ import annotations

import re
from typing import Any

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from gpulens.report import Report, SourceReport
from gpulens.reports._answer import (CONSOLE_LIST, FIX_FIRST_LABEL, answer, clock_note, finding_tree, more_text, next_step,
                                      partial_reason, shown_title)
from gpulens.reports._fit import Col, FirstFit, FitTable, glued, name_col
from gpulens.analyzers._advice import vendor_word
from gpulens.collectors._format_words import format_words
from gpulens.reports._format import critical_set_text
from gpulens.reports._run_text import FINDINGS_ORDER
from gpulens.analyzers.breakdown import REST_KEY
from gpulens.reports._format import (BREAKDOWN_PARTS, breakdown_rest, device_text, run_device_text,  # noqa: F401 (fmt_ns: re-export)
                                     fmt_ns, fmt_unit, kernel_time_text, launches_text, limiter_text, rank_ranges,
                                     roofline_heading, vendor_short_label, bound_pct_legend,
                                     bound_pct_differs, bound_pct_text, roof_note_display,
                                     roofline_display)
from gpulens.reports._format import (IDLE_KEYS, busy_bound_word, gpu_sum_label, SPLIT_PARTS, column_label, idle_at_most, idle_bound_note, kib_text,
                                     one_off_split)
from gpulens.reports._names import label_scope, short_names
from gpulens.reports._values import BOUND_LEGEND, bound_text, status_text
from gpulens.units import fixed_half_up, fmt_share, is_missing, plural, share_pct_text


def answer_renderable(s: SourceReport) -> Group:
    """The verdict in one sentence and the top three root findings with time at stake and next step."""
    a = answer(s)
    lines = [Text.assemble(("Verdict: ", "bold"), (a.verdict, "bold cyan"), f" — {a.headline or a.reason}.")
             if a.verdict else Text.assemble(("Verdict: ", "bold"), a.short_sentence)]
    if a.detail:  # the rest of the verdict, under its headline (_answer.Answer.detail)
        lines.append(Text.assemble(("Detail: ", "bold"), f"{a.detail}."))
    if a.fix_first:
        lines.append(Text.assemble((f"{FIX_FIRST_LABEL}: ", "bold"), a.fix_first))
    if a.path_note:
        lines.append(Text.assemble(("Critical path: ", "bold"), a.path_note))
    if a.first_step:
        lines.append(Text.assemble((" First: ", "bold"), a.first_step))
    for i, f in enumerate(a.findings):
        lines.append(Text.assemble(f" {i + 1}. ", (f"{fmt_ns(f.time_at_stake_ns):>9}", "bold yellow"),
                                   f"  {shown_title(f)}\n", ("      → " + next_step(f), "dim")))
    if a.note and a.verdict:
        lines.append(Text(" " + a.note, style="dim"))
    return Group(*(glued(x) for x in lines), Text(""))


def source_renderable(s: SourceReport, top: int = 10, other: bool = True) -> Group:
    """Rich renderables for one source (``other``: also a compact table per analysis without its own section)."""
    sm = s.summary
    tl = s.timeline
    parts: list = [answer_renderable(s)]
    partial = partial_reason(s)
    if partial:  # first thing a reader sees: the figures below cover only part of the run
        parts.insert(0, Text(f"PARTIAL RESULT: {partial}\n", style="bold yellow"))
    clocks = clock_note(s)
    if clocks:  # read with the verdict: the time bases the figures below rest on
        parts.insert(1 if partial else 0, Text(f"CLOCKS: {clocks}\n", style="bold yellow"))
    from gpulens.reports._warnings import (READING_NOTES_TITLE, WARNINGS_SHOWN, environment_notes, grouped_warnings,
                                          input_note, own_reading_notes)

    damaged = input_note(s)
    if damaged:  # beside the headline: the figures below rest on an input with warnings (listed in full at the end)
        parts.insert(bool(partial) + bool(clocks), Text(f"INPUT: {damaged}\n", style="bold yellow"))
    devs = run_device_text(s)
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column()
    head.add_row("input", s.label)
    head.add_row("format", ", ".join(map(format_words, tl.meta.collectors())))  # words, not collector ids
    head.add_row("device", devs)
    from gpulens.reports._format import world_note

    # a sample of the job says how much of it was read: "0, 1  (2 of 128 ranks)"
    count = " " + world_note(sm) if world_note(sm) else f"  ({len(sm['ranks']):,} ranks)" if len(sm["ranks"]) > 2 \
        else ""
    # one rank reads "rank 0", never "ranks 0" (read as "zero ranks"); a sample of a job keeps "ranks"
    head.add_row("rank" if len(sm["ranks"]) == 1 and not world_note(sm) else "ranks", rank_ranges(sm["ranks"]) + count)
    head.add_row("status", status_text(s.status) + (f"  ({partial})" if partial else ""))
    head.add_row("kernels", f"{launches_text(sm)}, {kernel_time_text(sm)}")
    from gpulens.reports._format import busy_text

    head.add_row("GPU span", busy_text(sm))
    head.add_row("CPU ops", f"{sm['cpu_op_count']:,}")
    parts.append(head)

    bd = s.results.get("breakdown")
    if bd is not None and not bd.skipped and len(bd.table):
        parts.append(breakdown_renderable(bd, top, s.results.get("bottlenecks")))

    hs = s.results.get("hotspots")
    if top == 0 and hs is not None and len(hs.table):  # --top 0: no per-kernel rows asked for — said, not drawn empty
        parts.append(Text(f"Top kernels, roofline and occupancy: {len(hs.table):,} kernel rows not shown (--top 0)",
                          style="dim"))
    elif hs is not None and len(hs.table):
        # a kernel run on several GPUs: its total is a sum over them, headed so, with the GPU count beside it
        many = gpu_sum_label("total", hs.summary) != "total"
        cols = [Col("", "left"), name_col(), Col("calls"), *([Col("GPUs", optional=True)] if many else []),
                Col(gpu_sum_label("total", hs.summary)),
                Col("mean", optional=True), Col(column_label("share"))]  # "share of kernel time", as in HTML/Markdown
        head_t = hs.table.iloc[:top]
        rows = [["★" if r.critical else "", Text(short), f"{r.calls:,}",
                 *([fmt_unit(getattr(r, "gpus", None), "count")] if many else []), fmt_ns(r.effective_ns),
                 fmt_ns(r.mean_ns), fmt_share(r.share)] for r, short in zip(head_t.itertuples(),
                                                                           short_names(head_t["name"].astype(str)))]
        covers = critical_set_text(hs.summary)
        more = f" — first {len(head_t):,} of {len(hs.table):,} rows" if len(hs.table) > len(head_t) else ""
        parts.append(FitTable(f"Top kernels ({covers}){more}", cols, rows))
    parts += _roofline_parts(s, top) if top else []
    from gpulens.reports.console_verdicts import verdict_renderables

    parts += verdict_renderables(s, top)
    if other:
        from gpulens.reports.console_other import other_renderables

        parts += other_renderables(s)
    tree, left = finding_tree(s.findings(), *CONSOLE_LIST)
    if tree:
        # a finding that details another (its time is part of the parent's) is indented under it
        rows = [[fmt_ns(f.time_at_stake_ns) if f.time_at_stake_ns else "—",
                 Text(("  " * (d - 1) + "↳ " if d else "") + f"[{f.severity}] {shown_title(f)}"),
                 Text(next_step(f))] for f, d in tree]
        parts.append(FitTable(f"Findings ({FINDINGS_ORDER}; each followed by the findings that detail it (↳))",
                              [Col("at stake"), Col("finding", "left", figure=False),
                               Col("next step", "left", figure=False, below=True)], rows))
        if left:
            parts.append(Text(more_text(left), style="dim"))
    warnings = grouped_warnings(tl.meta)  # the same warning of several files said once
    if warnings:
        left = len(warnings) - WARNINGS_SHOWN
        parts.append(Text("\n".join(["Warnings"] + [f"warning: {w}" for w in warnings[:WARNINGS_SHOWN]]
                                     + ([f"+{plural(left, 'more warning')} in the JSON/HTML report"] if left > 0 else [])),
                          style="yellow"))
    env = environment_notes(tl.meta)  # facts of the machine, not of the input: apart from the warnings
    if env:
        parts.append(Text("\n".join(["Environment (the machine, not the input)"] + [f"environment: {e}" for e in env]),
                          style="dim"))
    read = own_reading_notes(tl.meta)  # copies of the same records passed over: facts, not faults of the input
    if read:
        parts.append(Text("\n".join([READING_NOTES_TITLE] + [f"note: {e}" for e in read]), style="dim"))
    # a number and its unit never break apart when a line wraps ("10 %" split as "10" / "% of the span")
    return Group(*(glued(p) if type(p) is Text else p for p in parts))


def breakdown_renderable(bd: Any, top: int = 10, bn: Any = None) -> FitTable | FirstFit:
    """The time breakdown, whose parts add up to the span (:data:`~gpulens.reports._format.BREAKDOWN_PARTS`; a
    remainder, if the parts ever fell short, is shown as its own labelled column). With the ``bottlenecks`` result
    ``bn`` and a one-off idle gap on some GPU, idle is drawn as its steady-state part and the one-off gaps the verdict
    leaves out (:func:`~gpulens.reports._format.one_off_split`), so the table and the verdict show the same figures.

    One GPU: one row per part with its share of the span, then the span itself (fits 80 columns). Several GPUs: one
    row per GPU, times when they fit the terminal, else GPUs as columns (up to 6), else each part as a share of its
    GPU's span; a part that is 0 on every GPU shown is left out and named in the title (it adds nothing)."""
    shown, title = bd.table, "Time breakdown per GPU"
    cap = 2 * max(top, 1)  # --top 0 (no kernel rows) still shows a GPU: a breakdown of none would show nothing
    if len(shown) > cap:  # thousands of ranks: the least busy GPUs; the full table is exported
        shown = shown.sort_values(["busy_pct", "rank", "device_id"], kind="stable").head(cap)
        title += f" (the {len(shown)} least busy of {len(bd.table):,} GPUs; every GPU: --csv or --parquet)"
    recs = shown.to_dict("records")
    split = one_off_split(bd, bn)
    if split is not None:  # the same rows, each with its idle split (the table's order kept)
        by = {(r["rank"], r["device_id"]): r for r in split}
        recs = [by.get((r["rank"], r["device_id"]), r) for r in recs]
    why = (bd.summary or {}).get("overlap_unknown")
    unknown_note = (f" — exposed parts {why}" if why else "") + idle_bound_note(bd.summary)
    title += unknown_note
    rest = [breakdown_rest(r) for r in recs]
    parts = list(SPLIT_PARTS if split is not None else BREAKDOWN_PARTS) + (
        [("_rest", "not in these parts")] if any(abs(x) >= 1 for x in rest) else [])
    for r, x in zip(recs, rest):
        r["_rest"] = x
    if len(recs) == 1:
        r = recs[0]
        span = float(r["span_ns"] or 0)
        le = lambda k: idle_at_most(r) if k in IDLE_KEYS else ""  # noqa: E731 (idle at most: clock domains)
        # one GPU: its row is the run, so each share is the analyzers' (breakdown part_pct, bottlenecks
        # idle_split_pct), the figure the HTML and Markdown print too; none is computed here
        pct = {**((bd.summary or {}).get("part_pct") or {}),
               **(((bn.summary or {}).get("idle_split_pct") or {}) if split is not None else {})}
        pct["_rest"] = pct.get(REST_KEY)
        rows = [[label, "unknown", "unknown"] if is_missing(r.get(k)) else
                [label, le(k) + fmt_ns(r.get(k) or 0), le(k) + share_pct_text(pct.get(k))]
                for k, label in parts]
        rows.append(["= GPU span", fmt_ns(span), fmt_unit(100.0 if span else None, "%")])
        return FitTable(f"Time breakdown (rank {fmt_unit(r['rank'], 'id')}, GPU {fmt_unit(r['device_id'], 'id')}; "
                        f"busy {busy_bound_word(r, bd.summary)}{fmt_unit(r['busy_pct'], '%')})" + unknown_note,
                        [Col("part", "left"), Col("time"), Col("of span")], rows)
    used = [(k, label) for k, label in parts
            if any(is_missing(r.get(k)) or abs(float(r.get(k) or 0)) > 0 for r in recs)]
    zero = [label for k, label in parts if (k, label) not in used]
    if zero:
        title += f" — 0 on every GPU shown: {', '.join(zero)}"
    short = lambda label: label.replace("communication", "comm")
    ids = lambda r: [fmt_unit(r["rank"], "id"), fmt_unit(r["device_id"], "id")]
    busy = [Col("busy %", optional=True)]
    times = FitTable(title, [Col("rank"), Col("GPU"), Col("span")] + [Col(short(lb)) for _, lb in used] + busy,
                     [ids(r) + [fmt_ns(r["span_ns"])]
                      + [(idle_at_most(r) if k in IDLE_KEYS else "")
                         + fmt_ns(None if is_missing(r.get(k)) else r.get(k) or 0) for k, _ in used]
                      + [busy_bound_word(r, bd.summary) + share_pct_text(r['busy_pct']).removesuffix(" %")] for r in recs])
    # narrower terminals: GPUs as columns (a few GPUs), else each part as a share of its GPU's span
    by_gpu = FitTable(title, [Col("part", "left")] + [Col(f"rank {a} GPU {b}") for a, b in map(ids, recs)],
                      [[lb] + [(idle_at_most(r) if k in IDLE_KEYS else "")
                               + fmt_ns(None if is_missing(r.get(k)) else r.get(k) or 0) for r in recs] for k, lb in used]
                      + [["= GPU span"] + [fmt_ns(r["span_ns"]) for r in recs]])
    # each GPU's part shares are the analyzers' (breakdown *_pct, bottlenecks steady_idle_pct / idle_boundary_pct
    # columns); the remainder column, if ever shown, has none
    share_of = lambda r, k: r.get(k[:-3] + "_pct") if k.endswith("_ns") else None  # noqa: E731
    pct = lambda r, k: share_pct_text(None if is_missing(share_of(r, k)) else float(share_of(r, k)))  # noqa: E731
    shares = FitTable(title + " (parts as % of each GPU's span)",
                      [Col("rank"), Col("GPU"), Col("span")] + [Col(short(lb)) for _, lb in used],
                      [ids(r) + [fmt_ns(r["span_ns"])] + [(idle_at_most(r) if k in IDLE_KEYS else "") + pct(r, k)
                                                           for k, _ in used] for r in recs])
    return FirstFit(times, *([by_gpu] if len(recs) <= 6 else []), shares)


def _num(v: float | None, scale: float = 1.0, fmt: str = "{:.1f}") -> str:
    """``v / scale`` in a table cell by ``fmt``; a fixed-decimals format rounds halves up, as every other figure
    (:func:`gpulens.units.fixed_half_up`: an occupancy of 5/16 reads 31.3 in the console as in the Markdown and the
    findings, not 31.2); ``"unknown"`` for a missing value."""
    if v is None or v != v:
        return "unknown"
    m = re.fullmatch(r"\{:\.([0-9])f\}", fmt)
    return fixed_half_up(v / scale, int(m.group(1))) if m else fmt.format(v / scale)


def _roofline_parts(s: SourceReport, top: int) -> list:
    """Roofline and occupancy tables of the hot kernels (or the reason they were skipped)."""
    parts: list = []
    rf, oc = s.results.get("roofline"), s.results.get("occupancy")
    if rf is not None and rf.skipped:
        parts.append(Text(f"roofline: skipped — {rf.skipped_reason}", style="dim"))
    elif rf is not None and len(rf.table):
        sm = rf.summary
        rt = rf.table.iloc[:top]
        cell = {"flops_per_s": lambda v: _num(v, 1e12, "{:.2f}"), "bytes_per_s": lambda v: _num(v, 1e9, "{:.0f}"),
                "arithmetic_intensity": _num, "roof_pct": _num, "bound": lambda v: fmt_unit(v, "text"),
                "bound_basis": lambda v: fmt_unit(v, "text")}
        # the figures a row's note is about marked ("unknown *"), the reason under the table (above its roof, or a
        # placement the measured speed of light overrules)
        marked, why = roof_note_display(roofline_display(rt), fmt=lambda c, v: cell.get(c, _num)(v))  # (columns
        # the console leaves out, e.g. the roofs, are marked with a figure the table never prints)
        # the bound names a measured cache level ("memory (L1)"), its % of peak the unit it is of ("79.6 (L2)")
        rows = [[Text(short), *(m[c] if isinstance(m[c], str) else cell[c](m[c])
                                for c in ("flops_per_s", "bytes_per_s", "arithmetic_intensity")),
                 fmt_unit(r.precision, "text"), cell["bound"](m["bound"]),
                 cell["bound"](m.get("bound_basis")),
                 bound_pct_text(getattr(r, "bound_pct", None), getattr(r, "bound_pct_unit", None), _num),
                 m["roof_pct"] if isinstance(m["roof_pct"], str) else _num(r.roof_pct),
                 # a FLOP count over fewer FP counters than its formula names is a lower bound (roofline's note)
                 fmt_unit(r.flops_source, "text") + (" (lower bound)" if getattr(r, "flops_lower_bound", None)
                                                     else "")]
                for r, short, m in zip(rt.itertuples(), short_names(rt["name"].astype(str)),
                                       marked.to_dict("records"))]
        cols = [name_col(), Col("TFLOP/s"), Col("GB/s"), Col("FLOP/B", optional=True),
                Col("prec", optional=True), Col("bound"), Col("bound from", optional=True), Col("bound's % of peak", optional=True), Col("% of roofline"),
                Col("from", optional=True)]
        if not bound_pct_differs(rt):  # one figure on a roofline basis: one column (% of roofline)
            k = next(i for i, c in enumerate(cols) if c.header == "bound's % of peak")
            cols, rows = cols[:k] + cols[k + 1:], [r[:k] + r[k + 1:] for r in rows]
        parts.append(FitTable(roofline_heading(sm), cols, rows))
        legend = bound_pct_legend(rt)
        if legend:
            parts.append(Text(legend, style="dim"))
        parts.extend(Text(line) for line in why)
    if oc is not None and oc.skipped:
        parts.append(Text(f"occupancy: skipped — {oc.skipped_reason}", style="dim"))
    elif oc is not None and len(oc.table):
        vendor = oc.summary.get("vendor")
        ot = oc.table.iloc[:top]
        rows = [[Text(short), fmt_unit(r.block_size, "count"), fmt_unit(r.regs_per_thread, "count"),
                 kib_text(r.smem_bytes), fmt_unit(r.active_blocks_per_sm, "count"),
                 bound_text(r.theoretical_occupancy_pct, getattr(r, "theoretical_max_pct", None), short=True)
                 or _num(r.theoretical_occupancy_pct), _num(r.achieved_occupancy_pct),
                 limiter_text(getattr(r, "limiters", r.limiter), oc.summary.get("vendor")),
                 fmt_unit(getattr(r, "waves_per_sm", None), "ratio")]
                for r, short in zip(ot.itertuples(), short_names(ot["name"].astype(str)))]
        cols = [name_col(), Col(vendor_short_label("block_size", vendor)),
                Col(vendor_short_label("regs_per_thread", vendor), optional=True),
                Col(vendor_short_label("smem_bytes", vendor), optional=True),
                Col(vendor_short_label("active_blocks_per_sm", vendor), optional=True),
                Col("theor %"), Col("achv %"),
                Col("limiter"), Col(vendor_short_label("waves_per_sm", vendor), optional=True)]
        waves = "grid waves" if vendor == "amd" else "waves"
        parts.append(FitTable(f"Occupancy (theoretical per the vendor definition; the grid's effect as {waves})",
                              cols, rows))
        if any(isinstance(r[5], str) and r[5].startswith("≤") for r in rows):
            parts.append(Text(BOUND_LEGEND, style="dim"))
    return parts


def print_report(report: Report, console: Console | None = None, top: int = 10) -> None:
    """Print every source's summary to ``console`` (stdout by default)."""
    from gpulens.reports._warnings import said_once, shared_notes

    console = console or Console()
    once = shared_notes(report)  # a folder's note on how it was split into runs: said once, not in every report
    if once:
        console.print(Text("\n".join(f"note: {n}" for n in once), style="dim"))
    with label_scope(report), said_once(once):  # one label per kernel across the tables
        for s in report.sources:
            console.rule(f"gpulens · {s.label}")
            console.print(source_renderable(s, top))


def render(report: Report, width: int = 120) -> str:
    """Render the console summary as plain text."""
    console = Console(record=True, width=width, file=open("/dev/null", "w"), color_system=None)
    print_report(report, console)
    return console.export_text()
