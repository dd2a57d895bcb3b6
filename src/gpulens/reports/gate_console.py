"""Terminal rendering of a gate result (rich): verdict line, environment notes, then a table, regressions first."""

from __future__ import annotations

import io

from rich.console import Console, Group
from rich.text import Text

from gpulens.gate.result import AMBIGUOUS, ERROR, IMPROVED, INCOMPARABLE, NO_BASELINE, PASS, REGRESSED, GateResult
from gpulens.reports._fit import Col, FitTable
from gpulens.reports._md_safe import visible
from gpulens.reports.gate_fmt import (CENTER_NOTE, LIMIT_COLUMNS, ci_label, limit_cells, listed_mismatches, fmt_center,
                                     fmt_change, fmt_ci, fmt_p, kept_columns, metric_labels, no_test_note, reason_text,
                                     verdict_text)
from gpulens.units import plural

STYLES = {REGRESSED: "bold red", ERROR: "bold red", AMBIGUOUS: "yellow", INCOMPARABLE: "magenta",
          NO_BASELINE: "cyan", IMPROVED: "green", PASS: ""}


def _line(text: str, style: str = "") -> Text:
    """One free-text line of the result: names in it (a baseline's name, a run's label, a reason quoting them)
    come from the command line, baseline files and traces, so their control characters are made visible
    (:func:`~gpulens.reports._md_safe.visible`) — a raw ESC recoloured or cleared the terminal (table cells are
    made so by :class:`~gpulens.reports._fit.FitTable`)."""
    return Text(visible(text, bidi=True), style=style)


def renderable(result: GateResult, max_rows: int = 40, width: int = 140) -> Group:
    """Rich renderables: headline, baseline/candidate lines, notes, and up to ``max_rows`` rows in result order.

    Non-gating PASS rows are the first left out when rows must be dropped; the count left out is shown. On a
    narrow console the optional columns are left out and named in a caption: the baseline noise first, then the
    threshold, p and CI (the PASS band, the limit a change is compared with, last); the JSON, Markdown and HTML
    outputs always have them.
    """
    parts = []
    head = Text(f"gpulens gate: {result.verdict}", style=STYLES.get(result.verdict, "") or "bold")
    parts.append(head)
    parts.append(_line(reason_text(result)))
    b = result.baseline
    if b:
        git = f" @ {b['git'].get('sha', '')[:12]}" if b.get("git", {}).get("sha") else ""
        parts.append(_line(f"baseline  {b['name']} ({plural(b['runs'], 'run')}, {b['created']}{git}) · "
                           f"{b['machine_key']}", style="dim"))
    c = result.candidate
    parts.append(_line(f"candidate {plural(len(c['runs']), 'run')} · {c['machine_key']}" +
                       (f" · {len(c['excluded'])} excluded" if c["excluded"] else ""), style="dim"))
    for e in c["excluded"]:
        parts.append(_line(f"  excluded {e['label']}: {e['reason']}", style="yellow"))
    for m in listed_mismatches(result):
        parts.append(_line(f"  mismatch: {m}", style="magenta"))
    for n in result.notes:
        parts.append(_line(f"  note: {n}", style="dim"))
    rows = result.metrics
    shown = [r for r in rows if r.gating or r.verdict != PASS]
    shown += [r for r in rows if not r.gating and r.verdict == PASS]
    shown = shown[:max_rows]
    if shown:
        # figures never wrap nor get cut (a "+13" for +135.2 % is a wrong number in a CI log): at a narrow
        # width the optional columns are left out, the last first, and named in the caption
        cols = [Col("verdict", "left"), Col("metric", "left", figure=False), Col("baseline"), Col("candidate"),
                Col("change"), Col(ci_label(result), optional=True), Col("p (run)", optional=True)]
        cols += [Col(t, optional=True, drop_first={"baseline noise": 3, "threshold": 2}.get(t, 0))
                 for t in LIMIT_COLUMNS]
        labels = metric_labels(rows)  # kernels by short names that tell them apart (full ids in JSON and JUnit)
        label = lambda r: labels[r.metric]
        rows_ = [[Text(verdict_text(r), style=STYLES.get(r.verdict, "") if r.gating else "dim"),
                  Text(label(r)), fmt_center(r, "base"), fmt_center(r, "cand"),
                  fmt_change(r), fmt_ci(r), fmt_p(r), *limit_cells(r)] for r in shown]
        keep = kept_columns(rows_)  # a column "—" in every row is left out (one rule for every gate table)
        parts.append(FitTable(None, [cols[i] for i in keep], [[r[i] for i in keep] for r in rows_],
                              show_lines=False))
        parts.append(Text(CENTER_NOTE, style="dim"))
        if no_test_note(shown):
            parts.append(Text(no_test_note(shown), style="dim"))
    if len(rows) > len(shown):
        parts.append(Text(f"{len(rows) - len(shown)} more rows (non-gating, unchanged) in the JSON output",
                          style="dim"))
    if result.ignored:
        parts.append(Text(f"ignored by configuration: {plural(len(result.ignored), 'metric(s)')}", style="dim"))
    return Group(*parts)


def print_result(result: GateResult, console: Console | None = None, max_rows: int = 40) -> None:
    """Print the gate result to ``console`` (stdout by default)."""
    console = console or Console()
    console.print(renderable(result, max_rows, console.width))


def render(result: GateResult, width: int = 140) -> str:
    """Plain-text rendering (no colour), for logs and tests."""
    console = Console(record=True, width=width, file=io.StringIO(), color_system=None)
    print_result(result, console)
    return console.export_text()
