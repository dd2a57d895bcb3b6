"""Markdown reporter: top findings and tables for pull-request comments and CI job summaries.

Use ``gpulens analyze ... --markdown summary.md`` or :func:`render`. The text is GitHub-flavoured Markdown and
always shorter than :data:`MAX_CHARS` (GitHub's 65,536-character limit on a comment): tables are capped, kernel names
shortened (full names in the JSON and HTML reports, said in the header), and sections past the budget are left
out whole with a note; prose (verdicts, findings, next steps, warnings) is never cut mid-sentence. Names from traces are escaped so that ``<tag>``,
``|`` or ``*`` render as text. Like every reporter it computes nothing: it prints the Report's tables.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Sequence

import pandas as pd

from gpulens.analyzers import AnalysisResult
from gpulens.report import Report, SourceReport
from gpulens.reports._answer import (FIX_FIRST_LABEL, MARKDOWN_LIST, answer, clock_note, finding_tree, more_text,
                                      next_step, order_text, partial_reason, shown_title, verdict_rows)
from gpulens.units import fmt_share, plural
from gpulens.reports._format import SPLIT_PARTS, critical_set_text, idle_bound_note, one_off_split, world_note
from gpulens.reports._format import (BREAKDOWN_PARTS, bounded_breakdown, gpu_sum_label, breakdown_rest, busy_pct_text, clip, column_label, run_device_text,
                                     fmt_ns, fmt_unit, kernel_time_text, launches_text, rank_ranges, result_title,
                                     bound_pct_differs, bound_pct_legend, roof_note_display, roofline_display, roofline_heading, shown_columns, span_text, stake_notes, unit_of, window_text,
                                     with_limiter_text)
from gpulens.reports._format import source_vendor, vendor_headers
from gpulens.reports._html_parts import is_name_column
from gpulens.reports._md_safe import neutralise
from gpulens.reports._values import lower_bound_flags, lower_bound_mark, status_text
from gpulens.reports._warnings import (READING_NOTES_TITLE, WARNINGS_SHOWN, environment_notes, grouped_warnings,
                                      input_note, own_reading_notes, said_once, shared_notes)
from gpulens.reports._coverage import analysis_coverage
from gpulens.reports._names import label_scope, short_names

#: Hard limit on the rendered text (characters).
MAX_CHARS = 65_000
NAME_CHARS = 100
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
#: Results with their own section (others get a generic one).
_OWN = ("hotspots", "breakdown", "stream_timeline", "rank_kernels", "roofline", "occupancy", "bottlenecks",
        "verdicts")
#: Idle causes of the bottlenecks table: they add up to its idle time.
IDLE_CAUSES = ("idle_boundary_ns", "idle_host_ns", "idle_launch_ns", "idle_sync_ns", "idle_queued_ns",
               "idle_unattributed_ns")


def md_text(v: Any, n: int | None = None) -> str:
    """Escape text for a Markdown table cell or line: HTML brackets as entities, Markdown punctuation with ``\\``.
    Prose (a verdict, a finding, a next step, a warning) is never cut: a person must read all of it; ``n`` cuts a
    name only (a kernel label, an input's path), whose full text the JSON and HTML reports hold."""
    s = "" if v is None else str(v)
    if n is not None:
        s = clip(s, n)
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = _MD_SPECIAL.sub(r"\\\1", s)
    return " ".join(neutralise(s).split())


def md_table(df: pd.DataFrame, columns: Sequence[str], max_rows: int, headers: dict[str, str] | None = None,
             docs: dict[str, str] | None = None) -> str:
    """A Markdown table of the first ``max_rows`` rows of ``df[columns]``, each cell formatted from its column's
    declared unit (``docs``: column → ``"meaning [unit]"``), kernel names as distinguishable short names."""
    cols = [c for c in columns if c in df.columns]
    headers, docs = headers or {}, docs or {}
    units = {c: unit_of(c, docs.get(c, "")) for c in cols}
    body = df.iloc[:max_rows]  # head first (a view: head() copies), no column selection: never copy a long table's columns
    shorts = {c: short_names(body[c].astype(str).tolist()) for c in cols if is_name_column(c, docs.get(c, ""))}
    lines = ["| " + " | ".join(md_text(headers.get(c, column_label(c, docs.get(c, "")))) for c in cols) + " |",
             "|" + "|".join("---" for _ in cols) + "|"]
    lower = lower_bound_flags(body)  # FLOP figures over partial FP counters: "≥ 17.18 GFLOP", as every report
    for i, row in enumerate(zip(*[body[c].tolist() for c in cols])):
        # a table cell holds a name or a figure (event and op names too): shortened to NAME_CHARS, the full text
        # in the JSON and HTML reports (the report's header says so); sentences are written outside the tables
        lines.append("| " + " | ".join(md_text(shorts[c][i] if c in shorts else
                                               lower_bound_mark(fmt_unit(v, units[c]), c, units[c], lower[i]), NAME_CHARS)
                                       for c, v in zip(cols, row)) + " |")
    if len(df) > max_rows:
        lines.append(f"\n_{max_rows} of {len(df)} rows shown._")
    return "\n".join(lines)


def _source_sections(s: SourceReport, rows: int) -> Iterable[str]:
    sm, tl = s.summary, s.timeline
    hs = s.results.get("hotspots")
    hsum = hs.summary if hs is not None else {}
    devices = run_device_text(s)
    a = answer(s)
    top = [f"{i + 1}. **{fmt_ns(f.time_at_stake_ns)}** {md_text(shown_title(f))} → {md_text(next_step(f))}"
           for i, f in enumerate(a.findings)]
    if a.first_step:
        top.insert(0, f"**First:** {md_text(a.first_step)}\n")
    yield "\n".join([
        f"## {md_text(s.label, 200)}", "",
        # the console's and the HTML banner's form: the verdict's label as the other reports write it, then the answer
        f"> **Verdict:** {md_text(f'{a.verdict} — {a.headline or a.reason}.' if a.verdict else a.short_sentence)}",
        *([">", f"> **Detail:** {md_text(a.detail)}."] if a.detail else []),
        *([">", f"> **{FIX_FIRST_LABEL}:** {md_text(a.fix_first)}"] if a.fix_first else []),
        *([">", f"> **Critical path:** {md_text(a.path_note)}"] if a.path_note else []),
        *([">", f"> **Clocks:** {md_text(clock_note(s))}"] if clock_note(s) else []),
        *([">", f"> **Input:** {md_text(input_note(s))}"] if input_note(s) else []),
        *(["", *top] if top else ["", md_text(a.note)] if a.note else []), "",
        "| | |", "|---|---|",
        f"| status | {status_text(s.status)}{f' ({md_text(partial_reason(s))})' if partial_reason(s) else ''} |",
        f"| device | {md_text(devices)} |",
        f"| ranks | {rank_ranges(sm['ranks'])}{world_note(sm)} |",
        f"| GPU span | {span_text(sm)} |",
        f"| GPU busy | {busy_pct_text(sm)} |",
        *([f"| profiled window | {window_text(sm)} |"] if window_text(sm) else []),
        f"| kernels | {launches_text(sm)}, {kernel_time_text(sm)} |",
        f"| performance-critical set | {critical_set_text(hsum, sm)} |"])
    tree, left = finding_tree(s.findings(), *MARKDOWN_LIST)
    if tree:
        lines = ["### Findings", ""]
        i = 0
        for f, d in tree:
            stake = f" — {fmt_ns(f.time_at_stake_ns)} at stake" if f.time_at_stake_ns else ""
            text = f"**{f.severity}** {md_text(shown_title(f))}{stake}. Next: {md_text(next_step(f))}"
            if d:  # details its parent (its time is part of the parent's): a nested bullet
                lines.append("   " * d + f"- {text}")
            else:
                i += 1
                lines.append(f"{i}. {text}")
        if left:
            lines += ["", f"_{more_text(left)}_"]
        yield "\n".join(lines)
    bd = s.results.get("breakdown")
    if bd is not None and not bd.skipped and len(bd.table):
        # the parts add up to the span; a remainder, if they ever fell short, is its own labelled column
        t, docs = bd.table, dict(bd.columns)
        rest = [breakdown_rest(r) for r in t.to_dict("records")]
        split = one_off_split(bd, s.results.get("bottlenecks"))  # idle as the verdict splits it, when it does
        parts = SPLIT_PARTS if split is not None else BREAKDOWN_PARTS
        if split is not None:
            t = pd.DataFrame(split)
            docs.update({k: s.results["bottlenecks"].columns.get(k, "") for k in ("steady_idle_ns", "idle_boundary_ns")})
        cols = ["rank", "device_id", "span_ns", *(k for k, _ in parts)]
        if any(abs(x) >= 1 for x in rest):
            t = t.assign(not_in_parts_ns=rest)
            docs["not_in_parts_ns"] = "span not in the parts shown [ns]"
            cols.append("not_in_parts_ns")
        why = bd.summary.get("overlap_unknown")
        if (t["idle_other_clock_ns"] > 0).any():  # idle at most: the part that may be work on another clock
            cols.append("idle_other_clock_ns")
        if "idle_untimed_ns" in t and (t["idle_untimed_ns"].fillna(0) > 0).any():  # idle at most: untimed work
            cols.append("idle_untimed_ns")
        yield ("### Time breakdown per rank and GPU\n\n_computation + exposed communication + exposed memcpy + "
               "exposed memset + " + ("idle (steady state + one-off gaps the verdict leaves out)" if split is not None
                                      else "idle") + " = span_" + (f" — exposed parts {md_text(why)}" if why else "")
               + md_text(idle_bound_note(bd.summary)) + "\n\n"
               + md_table(bounded_breakdown(t, bd.summary), cols + ["busy_pct"], rows, docs=docs))
    bn = s.results.get("bottlenecks")
    if bn is not None and not bn.skipped and len(bn.table):
        # every idle cause with time in it, so each row's causes add up to its idle time
        t = bn.table
        causes = [c for c in IDLE_CAUSES if c in t and (t[c].fillna(0) > 0).any()]
        other = ["idle_other_clock_ns"] if (t["idle_other_clock_ns"].fillna(0) > 0).any() else []
        other += ["idle_untimed_ns"] if "idle_untimed_ns" in t and (t["idle_untimed_ns"].fillna(0) > 0).any() else []
        yield ("### Where the idle time went\n\n_the idle causes add up to idle; exposed communication and "
               "small-grid kernels are busy time, shown beside it_"
               + md_text(idle_bound_note(getattr(bd, "summary", None))) + "\n\n"
               + md_table(t, ["rank", "device_id", "idle_ns", *other, *causes, "exposed_comm_ns", "small_grid_ns",
                              "overhead"], rows, docs=bn.columns))
    if hs is not None and len(hs.table):
        many = gpu_sum_label("time", hs.summary) != "time"  # a kernel on several GPUs: how many, its time a sum
        yield "### Hot kernels\n\n" + md_table(
            hs.table, ["name", "kind", "calls", *(["gpus"] if many else []), "effective_ns", "mean_ns", "share",
                       "critical"], rows,
            {"effective_ns": gpu_sum_label("time", hs.summary), "mean_ns": "mean", "critical": "critical set",
             "gpus": "GPUs"}, hs.columns)
    vd = s.results.get("verdicts")
    if vd is not None and not vd.skipped and vd.table is not None and len(vd.table):
        yield _verdict_section(s, vd, rows)
    for name, cols in (("roofline", ["name", "time_ns", "arithmetic_intensity", "flops_per_s", "bytes_per_s",
                                     "precision", "bound", "bound_basis", "bound_pct", "bound_pct_unit", "roof_pct"]),
                       ("occupancy", ["name", "time_ns", "block_size", "regs_per_thread", "theoretical_occupancy_pct",
                                      "achieved_occupancy_pct", "limiters"]),
                       ("rank_kernels", ["rank", "name", "calls", "time_ns", "share"])):
        r = s.results.get(name)
        if r is not None and not r.skipped and len(r.table):
            vendor = r.summary.get("vendor") or source_vendor(s)
            title = roofline_heading(r.summary) if name == "roofline" else result_title(name, vendor)
            table = with_limiter_text(r.table, r.summary.get("vendor"))
            legend = bound_pct_legend(r.table.iloc[:rows]) if name == "roofline" else ""
            if name == "roofline":  # a measured memory bound names its cache level ("memory (L1)")
                table, why = roof_note_display(roofline_display(table), rows)  # above its roof: "unknown †", why
                legend = "_\n\n_".join(md_text(x) for x in (legend, *why) if x)
                cols = [c for c in cols if c in table.columns or c != "bound_pct_unit"]  # a cached report from before
            if name == "roofline" and not bound_pct_differs(r.table.iloc[:rows]):  # one figure: one column
                cols = [c for c in cols if c not in ("bound_pct", "bound_pct_unit")]
            yield f"### {md_text(title)}\n\n" + md_table(table, cols, rows, vendor_headers(cols, vendor, r.columns),
                                                                 docs=r.columns) + (f"\n\n_{legend if name == 'roofline' else md_text(legend)}_" if legend else "")
    for name, r in s.results.items():
        if name not in _OWN:
            yield _generic(name, r, rows, source_vendor(s))
    skipped = analysis_coverage(s.results, source_vendor(s))["no_data"]  # the JSON's analysis_coverage.no_data
    if skipped:
        yield "### Not analysed\n\n" + "\n".join(f"- {md_text(x['title'])}: {md_text(x['reason'])}" for x in skipped)
    warnings = grouped_warnings(tl.meta)  # the same warning of several files said once
    if warnings:
        left = len(warnings) - WARNINGS_SHOWN
        yield "### Warnings\n\n" + "\n".join([f"- {md_text(w)}" for w in warnings[:WARNINGS_SHOWN]]
                                               + ([f"- +{plural(left, 'more warning')} in the JSON/HTML report"]
                                                  if left > 0 else []))
    env = environment_notes(tl.meta)  # facts of the machine, not of the input: apart from the warnings
    if env:
        yield "### Environment (the machine, not the input)\n\n" + "\n".join(f"- {md_text(e)}" for e in env)
    read = own_reading_notes(tl.meta)  # copies of the same records passed over: facts, not faults of the input
    if read:
        yield f"### {READING_NOTES_TITLE}\n\n" + "\n".join(f"- {md_text(e)}" for e in read)


def _verdict_section(s: SourceReport, vd: AnalysisResult, rows: int) -> str:
    """Kernel verdicts: name, time, verdict, time at stake (marked where it is not a share of the kernel's own time,
    with the note below), then each row's first next step by its number."""
    t, cut = verdict_rows(s, rows)
    notes = stake_notes(t)
    hsum = getattr(s.results.get("hotspots"), "summary", None)  # a kernel on several GPUs: sums over them
    order = order_text(t.get("time_at_stake_ns", []))  # the findings' order, said (_answer.stake_ordered)
    lines = ["### Kernel verdicts" + (f" ({order})" if order else ""), "", f"| # | kernel | {gpu_sum_label('time', hsum)} | verdict | "
             f"{gpu_sum_label('at stake', hsum)} |", "|---:|---|---:|---|---:|"]
    steps_md = []
    labels = short_names(t["name"].astype(str).tolist()) if "name" in t.columns else [""] * len(t)
    for i, r in enumerate(t.to_dict("records")):
        steps = r.get("next_steps")
        step = steps[0] if isinstance(steps, (list, tuple)) and len(steps) else ""
        lines.append(f"| {i + 1} | {md_text(labels[i], NAME_CHARS)} | {fmt_ns(r.get('time_ns'))} | "
                     f"{md_text(r.get('verdict'))} | {fmt_ns(r.get('time_at_stake_ns'))}{notes.get(i, ('', ''))[0]} |")
        if step and r.get("verdict") != "undetermined":
            steps_md.append(f"- [{i + 1}] next: {md_text(step)}")
    if cut:
        lines.append(f"\n_Shown: {md_text(cut)}._")
    for mark, text in dict(notes.values()).items():
        lines.append(f"\n{mark.strip()} _time at stake: {md_text(text)}._")
    return "\n".join(lines + ([""] + steps_md if steps_md else []))


def _generic(name: str, r: AnalysisResult, rows: int, vendor: str | None = None) -> str:
    if r.skipped or r.table is None or not len(r.table):
        return ""
    # the console's compact-table rule: columns that say something, the ranking duration kept
    from gpulens.reports._compact import compact_columns, lower_bound_note

    cols = compact_columns(r, 8)
    vendor = (r.summary or {}).get("vendor") or vendor
    note = lower_bound_note(r.table.iloc[:rows])  # FLOP figures resting on partial counters, as the console says
    return f"### {md_text(result_title(name, vendor))}\n\n" + md_table(r.table, cols, rows, vendor_headers(cols, vendor, r.columns),
                                                                docs=r.columns) + (f"\n\n_{md_text(note)}_\n" if note else "")


def render(report: Report) -> str:
    """Render ``report`` as Markdown (str, at most :data:`MAX_CHARS` characters)."""
    n = max(len(report.sources), 1)
    rows = max(5, 15 // n)
    budget = MAX_CHARS - 400
    out = [f"# gpulens report\n\n_{plural(len(report.sources), 'input(s)')} · gpulens {report.tool_version} · "
           f"{report.created} · kernel names shortened: full names in the JSON and HTML reports_"]
    once = shared_notes(report)  # a folder's note on how it was split into runs: said once, not per input
    if once:
        out.append("\n".join(f"> {md_text(n)}" for n in once))
    used, left_out = sum(len(x) + 2 for x in out), 0
    with label_scope(report), said_once(once):  # one label per kernel across the tables
        per_source = [[sec for sec in _source_sections(s, rows) if sec] for s in report.sources]
    keep: set[tuple[int, int]] = set()
    # every input's headline first, then the other sections in order, while they fit
    for pass_ in (0, 1):
        for i, secs in enumerate(per_source):
            for j, sec in enumerate(secs):
                if (j == 0) != (pass_ == 0):
                    continue
                if used + len(sec) + 2 > budget:
                    left_out += 1
                    continue
                keep.add((i, j))
                used += len(sec) + 2
    out += [sec for i, secs in enumerate(per_source) for j, sec in enumerate(secs) if (i, j) in keep]
    if left_out:
        out.append(f"_{plural(left_out, 'section(s)')} left out to stay under {MAX_CHARS} characters; "
                   "see the HTML or JSON report._")
    return "\n\n".join(out) + "\n"
