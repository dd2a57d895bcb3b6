"""Markdown rendering of a gate result for ``$GITHUB_STEP_SUMMARY`` and pull-request comments.

GitHub limits a comment body to 65,536 characters (and a step summary to 1 MiB), so the text is kept under
``limit`` (default 65,000): the top rows go in a visible table (gating, worst first), the rest in a ``<details>``
block, and rows are dropped from the end with a note naming how many when the text would not fit.
Kernel names are escaped (``|``, Markdown punctuation, ``<``/``>``/``&``) so a name cannot break the table or
inject HTML.
"""

from __future__ import annotations

from gpulens.gate.result import MARKS, PASS, GateResult, MetricResult
from gpulens.reports.gate_fmt import (CENTER_NOTE, LIMIT_COLUMNS, ci_label, limit_cells, listed_mismatches, fmt_center,
                                     fmt_change, fmt_ci, fmt_p, kept_columns, method_text, metric_label,
                                     metric_labels, no_test_note, reason_text)
from gpulens.reports._md_safe import neutralise
from gpulens.units import plural

#: GitHub's maximum comment body is 65,536 characters; stay below it with a margin.
DEFAULT_LIMIT = 65_000
_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "|": "\\|", "\\": "\\\\", "`": "\\`", "*": "\\*", "_": "\\_",
            "[": "\\[", "]": "\\]", "#": "\\#", "~": "\\~", "\n": " ", "\r": " "}


def md_escape(text: str) -> str:
    """Escape ``text`` for a Markdown table cell (no formatting, no HTML, no cell breaks)."""
    return neutralise("".join(_ESCAPES.get(ch, ch) for ch in str(text)))


def _header(result: GateResult, keep: list[int] | None = None, note: str = "") -> str:
    """The table's notes and header row: the columns at ``keep`` (:func:`kept_columns`; all when None); ``note``:
    why the CI and p cells read — or are left out (:func:`no_test_note`)."""
    cols = ["", "metric", "baseline", "candidate", "change", ci_label(result), "p (run)", *LIMIT_COLUMNS, "note"]
    cols = [cols[i] for i in keep] if keep is not None else cols
    return f"_{CENTER_NOTE}{'. ' + md_escape(note) if note else ''}_\n\n| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n"


def _cells(m: MetricResult, labels: dict[str, str] | None = None) -> list[str]:
    label = (labels or {}).get(m.metric) or metric_label(m, 80)
    return [f"{MARKS[m.verdict]} {m.verdict}" + ("" if m.gating else " (info)"), md_escape(label),
            fmt_center(m, "base"), fmt_center(m, "cand"), fmt_change(m), fmt_ci(m), fmt_p(m),
            *limit_cells(m), md_escape(m.reason)]  # the reason whole: a sentence is never cut


def _row(m: MetricResult, labels: dict[str, str] | None = None, keep: list[int] | None = None) -> str:
    cells = _cells(m, labels)
    return "| " + " | ".join(cells[i] for i in keep or range(len(cells))) + " |\n"


def render(result: GateResult, limit: int = DEFAULT_LIMIT, top: int = 10) -> str:
    """The Markdown text, at most ``limit`` characters.

    Args:
        result: the gate result.
        limit: maximum length in characters.
        top: rows shown outside the ``<details>`` block (gating rows that are not PASS come first).
    """
    head = [f"## {MARKS[result.verdict]} gpulens gate: {result.verdict}\n\n{md_escape(reason_text(result))}\n"]
    b, c = result.baseline, result.candidate
    if b:
        sha = b.get("git", {}).get("sha")
        head.append(f"**Baseline** {md_escape(b['name'])}: {b['runs']} run{'' if b['runs'] == 1 else 's'}, recorded {b['created']}"
                    + (f", commit {md_escape(sha[:12])}" if sha else "") + f" · machine {md_escape(b['machine_key'])}")
    head.append(f"**Candidate**: {len(c['runs'])} run{'' if len(c['runs']) == 1 else 's'} · machine {md_escape(c['machine_key'])}")
    for label, items in (("Not comparable", listed_mismatches(result)), ("Excluded run",
                         [f"{e['label']}: {e['reason']}" for e in c["excluded"]]), ("Note", result.notes)):
        head += [f"- **{label}**: {md_escape(x)}" for x in items]
    counts = ", ".join(f"{k} {v}" for k, v in result.counts().items() if v)
    if counts:
        head.append(f"\nGating metrics: {counts}.")
    foot = f"\n<sub>gpulens {result.tool_version} · {method_text(result)}</sub>\n"
    text = "\n".join(head) + "\n\n"
    rows = result.metrics
    interesting = [m for m in rows if m.gating or m.verdict != PASS]
    first = interesting[:top] or rows[:top]
    shown = {id(m) for m in first}
    rest = [m for m in rows if id(m) not in shown]
    budget = limit - len(text) - len(foot) - 300  # 300: the omission note and the <details> wrapper
    top_table, budget, dropped = _table(result, first, budget)
    detail_table, budget, dropped2 = _table(result, rest, budget)
    dropped += dropped2
    body = top_table
    if rest:
        body += f"\n<details><summary>The other {plural(len(rest), 'metric')}</summary>\n\n{detail_table}\n</details>\n"
    if dropped:
        body += f"\n… {dropped} more rows omitted to stay under {limit:,} characters (see the JSON output)\n"
    out = text + body + foot
    if len(out) > limit:  # only when the header alone is huge (thousands of excluded runs or notes)
        out = out[: limit - 60] + "\n\n… truncated (see the JSON output)\n"
    return out


def _table(result: GateResult, rows: list[MetricResult], budget: int) -> tuple[str, int, int]:
    """A table of as many ``rows`` as fit in ``budget`` characters: (text, budget left, rows dropped)."""
    if not rows:
        return "", budget, 0
    labels = metric_labels(result.metrics)
    keep = kept_columns([_cells(m, labels) for m in rows])  # a column "—" in every row is left out
    header = _header(result, keep, no_test_note(rows))
    parts = [header]
    budget -= len(header)
    for i, m in enumerate(rows):
        line = _row(m, labels, keep)
        if len(line) > budget:
            return "".join(parts), budget, len(rows) - i
        parts.append(line)
        budget -= len(line)
    return "".join(parts), budget, 0
