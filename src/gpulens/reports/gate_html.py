"""HTML rendering of a gate result (``gpulens gate --html``): one small page a CI job attaches as an artifact.

The answer first: the verdict (with its mark, readable without colour), the reason sentence and the exit code the
job got; then the baseline and candidate, what makes them not comparable, and how the gate decided (threshold,
noise band, α: :func:`~gpulens.reports.gate_fmt.method_text`, the Markdown footer's sentence); then a chart of the
timings that decide the verdict (the gating rows that did not pass: the kernels first, largest change first, as the
headline names them, then the whole-run timings; each group on its own scale; base vs candidate bars drawn by
:func:`gpulens.reports._html_diff.grouped_bar_rows`, the diff page's bars) and the table of every metric. Every figure is
the :class:`~gpulens.gate.result.GateResult`'s, formatted by :mod:`gpulens.reports.gate_fmt` as the console and
Markdown format it. No script, no network.
"""

from __future__ import annotations

import html as _html
from typing import Any

from gpulens.gate.replaced import kernel_like
from gpulens.gate.result import INCOMPARABLE, MARKS, PASS, GateResult
from gpulens.reports._html_diff import BASE_COLOUR, CAND_COLOUR, CHART_CSS, grouped_bar_rows
from gpulens.reports.gate_fmt import (CENTER_NOTE, LIMIT_COLUMNS, ci_label, fmt_band, fmt_center, fmt_change, fmt_ci,
                                     fmt_p, kept_columns, limit_cells, listed_mismatches, method_text, metric_labels,
                                     no_test_note, reason_text, verdict_text)
from gpulens.units import plural

#: Timing rows drawn at most in the chart.
CHART_ROWS = 12

#: Page style: the diff page's (:data:`gpulens.reports.diff.DIFF_CSS`) and its charts', and the verdict banner.
GATE_CSS = (".verdict{font-size:1.5em;font-weight:bold;padding:.3em .6em;display:inline-block;border-radius:4px;"
            "color:#fff;background:#555}.verdict.REGRESSED,.verdict.ERROR{background:#D55E00}"
            ".verdict.IMPROVED,.verdict.PASS{background:#0072B2}.verdict.AMBIGUOUS{background:#E69F00;color:#000}"
            "tr.gating-REGRESSED td:first-child,tr.gating-ERROR td:first-child{font-weight:bold;color:#D55E00}"
            ".exit{font-size:14px;color:#333}td.v{white-space:nowrap}td.why{min-width:14em;max-width:30em}")


def _esc(v: Any) -> str:
    return _html.escape(str(v), quote=True)


def _exit_text(result: GateResult) -> str:
    code = result.exit_code
    what = {0: "the job passes", 1: "the job fails: a regression", 3: "no comparable baseline (--require-baseline)",
            4: "the candidate workload produced no usable data"}.get(code, "")
    return f"exit code {code}" + (f": {what}" if what else "")


def _chart(result: GateResult, labels: dict[str, str]) -> str:
    """The gating timings that did not pass as base-vs-candidate bars, in two groups each on its own scale: the
    kernels first (the cause, largest absolute change first, as the headline names them), then the whole-run
    timings they moved (step time, span, busy times: what the run lost). One scale for both would draw a kernel
    that is 2 % of the run as a sliver under the run's totals. When every timing passed: the gating timings with
    the largest change in time (ns; the longest first among equal ones), grouped alike. "" when no timing has both
    figures."""
    timed = [m for m in result.metrics if m.unit == "ns" and m.base_center is not None
             and m.cand_center is not None]
    failing = [m for m in timed if m.gating and m.verdict != PASS]
    # all passed: the largest change in time first (a +0.0 % tie among every kernel drew the small ones and left
    # the two largest out), the longer timing first among equals
    rows = failing or sorted((m for m in timed if m.gating),
                             key=lambda m: (-abs(m.cand_center - m.base_center), -m.base_center))
    run = [m for m in rows if not kernel_like(m.metric)][:CHART_ROWS // 2]  # at most 5 exist (RUN_METRICS)
    kern = [m for m in rows if kernel_like(m.metric)][:CHART_ROWS - len(run)]
    rows = kern + run
    if not rows:
        return ""
    title = ("Timings side by side, not judged: the runs are not comparable" if result.verdict == INCOMPARABLE
             else "The timings that decide the verdict" if failing else
             "Gating timings with the largest change in time, the longest first among equal ones (all within "
             "their PASS band)")
    groups = [(head, ms) for head, ms in (("kernels", kern), ("whole run", run)) if ms]
    bars = grouped_bar_rows([
        (head if len(groups) > 1 else "",
         [(labels[m.metric], m.metric, m.base_center, m.cand_center,
           f"{fmt_center(m, 'base')} → {fmt_center(m, 'cand')} · {verdict_text(m)} {fmt_change(m)}"
           + (f" (CI {fmt_ci(m)})" if fmt_ci(m) != "—" else "") + f" · band {fmt_band(m)}") for m in ms])
        for head, ms in groups])
    left = len(failing) - len(rows) if failing else 0
    scale = "one scale per group (kernels; whole run)" if len(groups) > 1 else "on one scale"
    cap = (f"{plural(len(rows), 'timing')}: baseline (grey) and candidate (blue), {scale}; ▲ worse (REGRESSED), "
           "▼ better (IMPROVED), ? not enough evidence, ≠ not judged (not comparable); band: the PASS band, max(threshold, "
           "noise multiplier × baseline noise); REGRESSED needs a significant change of at least half the threshold "
           "whose CI reaches the threshold." + (f" {left} more in the table." if left > 0 else ""))
    legend = (f'<p class="dlegend"><span class="sw b" style="background:{BASE_COLOUR}"></span>baseline'
              f'<span class="sw c" style="background:{CAND_COLOUR}"></span>candidate</p>')
    return (f'<figure class="dchart" id="chart-gate" role="img" aria-label="{_esc(title)}: {_esc(cap)}">'
            f"<h2>{_esc(title)}</h2>{legend}{bars}<figcaption>{_esc(cap)}</figcaption></figure>")


def _table(result: GateResult, labels: dict[str, str], max_rows: int) -> str:
    rows = result.metrics
    shown = [m for m in rows if m.gating or m.verdict != PASS] + [m for m in rows if not m.gating and m.verdict == PASS]
    cols = ["verdict", "metric", "baseline", "candidate", "change", ci_label(result), "p (run)", *LIMIT_COLUMNS,
            "note"]
    rows_ = [[verdict_text(m), labels[m.metric], fmt_center(m, "base"), fmt_center(m, "cand"), fmt_change(m),
              fmt_ci(m), fmt_p(m), *limit_cells(m), m.reason] for m in shown[:max_rows]]
    keep = kept_columns(rows_) or list(range(len(cols)))  # a column "—" in every row is left out
    out = ['<section id="metrics"><h2>Every metric</h2>', f"<p>{_esc(CENTER_NOTE)}.",
           f" {_esc(no_test_note(shown))}." if no_test_note(shown) else "", "</p>",
           '<div class="tablewrap" tabindex="0"><table><thead><tr>',
           "".join(f'<th scope="col">{_esc(cols[i])}</th>' for i in keep), "</tr></thead><tbody>"]
    for m, cells in zip(shown, rows_):
        cls = f' class="gating-{_esc(m.verdict)}"' if m.gating else ""
        out.append(f"<tr{cls}>" + "".join(
            f'<td title="{_esc(m.metric)}">{_esc(cells[i])}</td>' if i == 1 else
            f'<td class="n">{_esc(cells[i])}</td>' if 2 <= i <= 9 else
            f'<td class="{"v" if i == 0 else "why"}">{_esc(cells[i])}</td>'
            for i in keep) + "</tr>")
    out.append("</tbody></table></div>")
    if len(shown) > max_rows:
        out.append(f"<p>Showing {max_rows} of {len(shown)} metrics (the JSON output has all).</p>")
    return "".join(out) + "</section>"


def _facts(result: GateResult) -> list[tuple[str, str]]:
    b, c = result.baseline, result.candidate
    out = []
    if b:
        sha = (b.get("git") or {}).get("sha")
        out.append(("baseline", f"{b['name']}: {plural(b['runs'], 'run')}, recorded {b['created']}"
                    + (f", commit {sha[:12]}" if sha else "") + f" · machine {b['machine_key']}"))
    else:
        out.append(("baseline", "none found"))
    out.append(("candidate", f"{plural(len(c['runs']), 'run')} · machine {c['machine_key']}"
                + (f" · {len(c['excluded'])} excluded" if c["excluded"] else "")))
    counts = ", ".join(f"{MARKS[k]} {k} {v}" for k, v in result.counts().items() if v)
    out.append(("gating metrics", counts or "none"))
    out.append(("how it decided", method_text(result)))
    if result.ignored:
        out.append(("ignored by configuration", ", ".join(result.ignored)))
    return out


def render(result: GateResult, max_rows: int = 500) -> str:
    """The gate result as a self-contained HTML page (no script, no network).

    Args:
        result: the gate result (its ``exit_code`` set, as the CLI sets it).
        max_rows: metric rows shown in the table (gating and changed rows first; the JSON output has all).

    Returns:
        The page's text.
    """
    from gpulens.reports.diff import DIFF_CSS

    labels = metric_labels(result.metrics)
    v = result.verdict
    body = [f'<h1>gpulens gate</h1><p><span class="verdict {_esc(v)}">{_esc(MARKS[v])} {_esc(v)}</span> '
            f'<span class="exit">{_esc(_exit_text(result))}</span></p>',
            f'<p class="headline">{_esc(reason_text(result))}</p>', '<table class="kv">']
    body += [f'<tr><th scope="row">{_esc(k)}</th><td>{_esc(x)}</td></tr>' for k, x in _facts(result)] + ["</table>"]
    body += [f'<p class="warn">not comparable: {_esc(m)}</p>' for m in listed_mismatches(result)]
    body += [f'<p class="warn">excluded {_esc(e["label"])}: {_esc(e["reason"])}</p>'
             for e in result.candidate["excluded"]]
    body += [f"<p>note: {_esc(n)}</p>" for n in result.notes]
    body.append(_chart(result, labels))
    body.append(_table(result, labels, max_rows))
    body.append(f"<p><small>gpulens {_esc(result.tool_version)} · {_esc(result.created)}</small></p>")
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>gpulens gate: "
            f"{_esc(v)}</title><style>{DIFF_CSS}{CHART_CSS}{GATE_CSS}</style></head><body>" + "".join(body)
            + "</body></html>\n")

