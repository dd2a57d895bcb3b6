"""The HTML report's pages for one source: summary, time breakdown, hot kernels, timeline, multi-rank, environment.

Each builder takes a :class:`~gpulens.report.SourceReport` and returns blocks (HTML strings or
:class:`~gpulens.reports._html_parts.Panel`). The figures draw the analyzers' tables as they are; times are only
converted from ns to the unit their magnitude reads in for the axes
(:func:`~gpulens.reports._format.time_scale`). Roofline, occupancy, verdict and generic pages are in ``_html_analyses``.
"""

from __future__ import annotations

import textwrap
from typing import Any

import pandas as pd

from gpulens.analyzers.breakdown import REST_KEY
from gpulens.devices.naming import arch_text, version_text
from gpulens.report import SourceReport
from gpulens.reports._answer import finding_tree, next_step, shown_title
from gpulens.reports._html_answer import answer_html
from gpulens.units import agree, fmt_capacity, fmt_share, is_missing, plural, share_pct_text
from gpulens.reports._format import critical_set_text
from gpulens.reports._run_text import FINDINGS_ORDER, blit_text
from gpulens.reports._values import status_text
from gpulens.reports._format import (breakdown_rest, busy_text, column_label, run_device_text, fmt_ns, fmt_unit,
                                     kernel_time_text, launches_text, record_vendor, time_scale, unit_of, vendor_label)
from gpulens.reports._format import (ONE_OFF_LABEL, bounded_breakdown, gpu_sum_label, busy_bound_word, STEADY_IDLE_LABEL, idle_at_most, idle_bound_note, one_off_split,
                                     world_note)
from gpulens.reports._names import short_names
from gpulens.reports._html_timeline import timeline_page  # noqa: F401 -- re-exported
from gpulens.reports._html_parts import (
    GREY,
    KIND_COLOURS,
    KIND_LABELS,
    bar_value_labels,
    OKABE_ITO,
    Panel,
    empty_html,
    esc,
    KERNEL_LINKS,
    kv_html,
    name_cell,
    html_bars,
    table_html,
    tick_labels,
    wrap_name,
)

#: Breakdown components (they add up to the span), their labels, colours and bar patterns (not colour alone).
BREAKDOWN_PARTS = (("computation_ns", "computation", OKABE_ITO[0], ""),
                   ("exposed_comm_ns", "exposed communication", OKABE_ITO[1], "/"),
                   ("exposed_memcpy_ns", "exposed memcpy", OKABE_ITO[3], "x"),
                   ("exposed_memset_ns", "exposed memset", OKABE_ITO[2], "."),
                   ("idle_ns", "idle", GREY, "-"))
#: The same with idle drawn as its steady-state part and the one-off gaps the verdict leaves out
#: (:func:`gpulens.reports._format.one_off_split`): the one-off part lighter, with its own pattern.
SPLIT_PARTS_HTML = BREAKDOWN_PARTS[:-1] + (("steady_idle_ns", STEADY_IDLE_LABEL, GREY, "-"),
                                           ("idle_boundary_ns", ONE_OFF_LABEL, "#d9d9d9", "\\"))


def nonzero_parts(table: Any, parts: Any) -> list:
    """The ``parts`` (tuples whose first item is a column of ``table``) with a time above 0 on some row: a stacked
    chart draws, and its legend lists, only those (a legend of "exposed communication", "exposed memset" at 0 ns on
    every GPU named parts that are not there). Parts at 0 or unknown everywhere stay in the data table."""
    return [p for p in parts if p[0] in table and (pd.to_numeric(table[p[0]], errors="coerce").fillna(0) > 0).any()]


def part_marker(colour: str, pattern: str) -> dict:
    """A stacked part's plotly marker: the bar filled with ``colour`` and ``pattern`` drawn over it in white (plotly's
    default pattern fill draws the pattern alone on a transparent bar: idle, the largest part at 54 % of a rank's
    span, was three thin grey lines and each bar looked ~45 % full)."""
    return {"color": colour, "pattern": {"shape": pattern, "fillmode": "overlay", "fgcolor": "#ffffff",
                                         "fgopacity": 0.6, "size": 8, "solidity": 0.3}}


def part_bars(drawn: Any, ys: list, div: float, unit: str, split: bool) -> list:
    """One horizontal stacked-bar trace per breakdown part with a time above 0 (:func:`nonzero_parts`): ``drawn`` the
    breakdown table (or its one-off split, ``split``), ``ys`` the row labels, times divided by ``div`` into
    ``unit``. Shared by the Time breakdown and Multi-rank pages."""
    return [{"type": "bar", "y": ys, "x": [None if is_missing(v) else v / div for v in drawn[key].tolist()],
             "name": label, "orientation": "h", "marker": part_marker(colour, pattern),
             "hovertemplate": f"{label}: %{{x:.3f}} {unit}<extra>%{{y}}</extra>"}
            for key, label, colour, pattern in nonzero_parts(drawn, SPLIT_PARTS_HTML if split else BREAKDOWN_PARTS)]


#: Characters per line of a chart's axis title: plotly never wraps a title, so a longer one ran off a 900-px window
#: ("GPU time [ms] (a stream's overlapping launches counted once); bar text: share of ker").
AXIS_TITLE_CHARS = 60


def axis_title(text: str) -> dict[str, Any]:
    """A plotly axis/colour-bar title (the ``{"text": …}`` form every plotly.js version reads), broken into lines of
    at most :data:`AXIS_TITLE_CHARS` characters (``<br>``): at "; " first, then between words."""
    lines: list[str] = []
    for part in text.split("; "):
        for j, piece in enumerate(textwrap.wrap(part, AXIS_TITLE_CHARS, break_long_words=False) or [""]):
            if j == 0 and lines and len(lines[-1]) + 2 + len(piece) <= AXIS_TITLE_CHARS:
                lines[-1] += "; " + piece  # a short part stays on the line of the part before it
            else:
                lines.append(piece)
    return {"text": "<br>".join(lines)}


def _layout(data: list[dict], height: int = 380, **kw: Any) -> dict[str, Any]:
    """A figure of plain dicts (``{"data", "layout"}``; no ``plotly.graph_objects`` validation): ``data`` are trace
    dicts, ``kw`` layout keys (``xaxis``/``yaxis`` dicts get ``automargin``). ``height`` is the room for the plot
    and a one-row legend: the page script grows the figure by the legend's further rows as plotly drew them at the
    window's width (``fitLegend`` in :data:`gpulens.reports.html.JS`), as plotly takes a legend's room from the plot
    (a 5-row legend left a 380-px chart a 60-px plot at 900 px)."""
    # the legend above the plot: below it, it collides with the x-axis title on short charts
    layout = {"height": height + 20, "margin": {"l": 10, "r": 10, "t": 50, "b": 40}, "hovermode": "closest",
              "legend": {"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"}, **kw}
    for ax in ("xaxis", "yaxis"):
        layout[ax] = {**(layout.get(ax) or {}), "automargin": True}
    if kw.get("barmode") == "stack" and all(t.get("orientation") == "h" for t in data if t.get("type") == "bar"):
        # bars stacked left to right: the legend reads in the same order (plotly reverses it for stacked bars)
        layout["legend"] = {**layout["legend"], "traceorder": "normal"}
    if kw.get("barmode") == "stack":  # the parts need their names even when one is left: plotly hides a lone
        layout.setdefault("showlegend", True)  # trace's legend (8 ranks idle only 'queued': blue bars, no cause)
    return {"data": data, "layout": layout}


def findings_table(findings: list, max_rows: int) -> str:
    """Findings as a filterable table whose advice column wraps in view: severity, finding, time at stake, next step,
    kernel (short name, full name on hover). Children (``parent`` set) are indented under their parent."""
    if not findings:
        return '<p class="note">No findings.</p>'
    ordered, _ = finding_tree(findings)  # every finding, each under the one it details (any depth)
    shorts = dict(zip([f.kernel for f, _ in ordered if f.kernel],
                      short_names([f.kernel for f, _ in ordered if f.kernel])))
    rows = []
    for f, depth in ordered[:max_rows]:
        stake = f.time_at_stake_ns
        kern = name_cell(f.kernel, shorts[f.kernel]) if f.kernel else "<td></td>"
        rows.append(f'<tr class="sev-{esc(f.severity)}{" child" if depth else ""}"><td>{esc(f.severity)}</td>'
                    f'<td class="ftitle">{"&#8195;" * max(depth - 1, 0)}{"↳ " if depth else ""}{esc(shown_title(f))}</td>'
                    f'<td class="num" data-v="{stake or 0}">{esc(fmt_ns(stake) if stake else "not quantified")}</td>'
                    f'<td class="advice">{esc(next_step(f))}</td>{kern}</tr>')
    more = (f'<p class="note">Showing {max_rows} of {len(ordered)} findings.</p>' if len(ordered) > max_rows else "")
    return ('<input type="search" class="tfilter" placeholder="Filter findings…" aria-label="Filter the findings">'
            '<div class="tablewrap"><table class="data sortable findings"><thead><tr><th scope="col">severity</th>'
            '<th scope="col">finding</th><th scope="col">time at stake</th><th scope="col">next step</th>'
            f'<th scope="col">kernel</th></tr></thead><tbody>{"".join(rows)}</tbody></table></div>{more}')


def summary_page(s: SourceReport, max_rows: int) -> list[Any]:
    """The answer banner, key figures, where the GPU's time went (donut), and the findings."""
    sm, tl = s.summary, s.timeline
    hs = s.results.get("hotspots")
    hsum = hs.summary if hs is not None else {}
    devices = run_device_text(s)
    from gpulens.reports._answer import partial_reason

    status = status_text(s.status) + (f" — {partial_reason(s)}" if partial_reason(s) else "")
    kv = kv_html([
        ("input", s.label), ("status", status), ("device", devices), ("rank" if len(sm["ranks"]) == 1 and not world_note(sm) else "ranks",
                                                                   ", ".join(map(str, sm["ranks"])) + world_note(sm)),
        ("GPU span", busy_text(sm)),
        ("kernels", launches_text(sm)),
        ("kernel time", kernel_time_text(sm)),
        ("performance-critical set", critical_set_text(hsum, sm)),
        ("CPU ops", f"{sm['cpu_op_count']:,}"),
        ("excluded events", f"{sm['rejected_event_count']:,}"),
    ])
    blocks: list[Any] = [answer_html(s)]
    bd = s.results.get("breakdown")
    if bd is not None and not bd.skipped and sm["span_ns"] and sm["gpu_busy_pct"] is not None:
        # a part the breakdown left unknown (overlap across clocks) is None: shown as unknown, never as 0
        bn = s.results.get("bottlenecks")
        # idle as the verdict splits it (the bottlenecks summary's steady idle and one-off gaps), when it does
        split = one_off_split(bd, bn) is not None
        summ = {**bd.summary, **({k: bn.summary.get(k) for k in ("steady_idle_ns", "idle_boundary_ns")}
                                 if split else {})}
        # parts are summed over GPUs: their share is of the GPUs' summed spans (one GPU: its span), as the
        # analyzers state it (breakdown ``part_pct``, bottlenecks ``idle_split_pct``): no share is computed here
        pct = {**(bd.summary.get("part_pct") or {}), **((bn.summary.get("idle_split_pct") or {}) if split else {})}
        parts = [(lab, None if summ.get(key, 0) is None else summ.get(key, 0) or 0, c, pct.get(key))
                 for key, lab, c, _ in (SPLIT_PARTS_HTML if split else BREAKDOWN_PARTS)]
        den = bd.summary.get("device_span_ns") or sm["span_ns"]
        rest = breakdown_rest({**bd.summary, "device_span_ns": den}, "device_span_ns")
        if abs(rest) >= 1:  # never happens by the breakdown's definition; if it did, the rows still add up
            parts.append(("not in these parts", rest, GREY, pct.get(REST_KEY)))
        shown = [p for p in parts if p[1] is not None and p[1] > 0]
        multi = int(bd.summary.get("gpu_count", 1) or 1) > 1
        le = lambda lab: idle_at_most(bd.summary) if lab.startswith("idle") else ""  # noqa: E731 (at most: clocks)
        # the steady idle's share of the steady state, the window the verdict and the idle finding judge (the
        # bottlenecks summary's figure), named beside its share of the span: "0.1 %" of 473.75 ms read as a
        # contradiction of the headline's "idle 6.5 %" of the 10.45 ms steady state (SGLang on an MI300X)
        steady = (f" · {le(STEADY_IDLE_LABEL)}{share_pct_text(bn.summary['steady_idle_pct'])} of the "
                  f"{fmt_ns(bn.summary['steady_span_ns'])} steady state" + (" (summed over the GPUs)" if multi else "")
                  if split and bn.summary.get("steady_idle_pct") is not None and bn.summary.get("steady_span_ns")
                  else "")
        static = html_bars([(lab, v, f"{le(lab)}{fmt_ns(v)} · {le(lab)}{share_pct_text(p)}"
                             + (" of the " + ("summed spans" if multi else "span") + steady
                                if steady and lab == STEADY_IDLE_LABEL else ""), c) for lab, v, c, p in shown],
                           axis="bar length: time; text: time · share of " + ("the GPUs' summed spans" if multi
                                                                              else "the GPU span"))
        rows = "".join(f"<tr><th scope='row'>{esc(lab)}</th><td class='num' data-v='{v}'>{esc(le(lab) + fmt_ns(v))}"
                       f"</td><td class='num'>{esc(le(lab) + share_pct_text(p))}</td></tr>"
                       if v is not None else
                       f"<tr><th scope='row'>{esc(lab)}</th><td class='num'>unknown</td><td class='num'>unknown</td>"
                       "</tr>" for lab, v, _, p in parts)
        rows += (f"<tr class='total'><th scope='row'>= {'summed GPU spans' if multi else 'GPU span'}</th>"
                 f"<td class='num' data-v='{den}'>{esc(fmt_ns(den))}</td><td class='num'>100.0 %</td></tr>")
        blocks.append(Panel("Where the GPU time went",
                            f"GPU span {busy_text(sm)}; "
                            + (f"summed over the {bd.summary.get('gpu_count')} GPUs ({fmt_ns(den)} of GPU time), "
                               if multi else "")
                            + f"computation took {fmt_ns(sm['computation_ns'])} and idle "
                            + (f"{bd.summary['idle_bound']}." if bd.summary.get("idle_bound") else
                               f"{fmt_ns(sm['idle_ns'])}.")
                            + (f" Of the idle, {fmt_ns(summ['idle_boundary_ns'])} is in one-off gaps (warm-up, "
                               "boundaries) the verdict leaves out; the steady state's idle is "
                               f"{fmt_ns(summ['steady_idle_ns'])}." if split else "")
                            + (f" Exposed parts {bd.summary['overlap_unknown']}."
                               if bd.summary.get("overlap_unknown") else ""),
                            None, "<table class='data'><thead><tr><th>part</th><th>time</th><th>"
                                 + ("of the GPUs' summed spans" if multi else "of span") + "</th></tr>"
                                 f"</thead><tbody>{rows}</tbody></table>", static=static, table_open=False))
    blocks.append(f'<section class="panel"><h3>Key figures</h3>{kv}</section>')
    if not sm.get("kernel_count"):
        # no kernel: the host's work is what the run holds — its steps and CPU operators on the first page, as the
        # console lists them (they are otherwise only under "Other analyses")
        from gpulens.reports._html_analyses import generic_panels

        for name in ("steps", "cpu_ops"):
            r = s.results.get(name)
            if r is not None and not r.skipped and r.table is not None and len(r.table):
                blocks += generic_panels(name, r, max_rows)
    findings = s.findings()
    if not findings:  # said once, with why: no "0 findings, largest time at stake first" above an empty table
        why = "nothing ran on a GPU to judge" if s.status == "no_gpu_work" else "no analysis found a problem to report"
        blocks.append(f'<section class="panel"><h3>Findings</h3><p class="empty">No findings: {why}.</p></section>')
        return blocks
    blocks.append(Panel("Findings", f"{plural(len(findings), 'finding(s)')}, {FINDINGS_ORDER}; indented "
                                    "ones detail the one above (their time is part of it, or of the upper bound it "
                                    "names).", None, findings_table(findings, max_rows)))
    return blocks


def breakdown_page(s: SourceReport, max_rows: int) -> list[Any]:
    """Stacked bars per rank/device: computation, exposed comm, exposed memcpy/memset, idle."""
    bd = s.results.get("breakdown")
    if bd is None or bd.skipped or not len(bd.table):
        return [empty_html("Time breakdown", bd.skipped_reason if bd is not None else "analysis not available")]
    t = bd.table
    split = one_off_split(bd, s.results.get("bottlenecks"))  # idle as the verdict splits it, when it does
    drawn = pd.DataFrame(split) if split is not None else t
    ys = [f"rank {r} · GPU {d}" for r, d in zip(t["rank"], t["device_id"])]
    div, unit = time_scale(t["span_ns"])  # the axis unit follows the magnitude drawn (µs for a µs run)
    data = part_bars(drawn, ys, div, unit, split is not None)
    fig = _layout(data, 140 + 34 * len(ys), barmode="stack", xaxis={"title": axis_title(f"time [{unit}]")},
                  yaxis={"autorange": "reversed"})
    summ = bd.summary
    cols = ["rank", "device_id", "span_ns", "computation_ns", "exposed_comm_ns", "exposed_memcpy_ns",
            "exposed_memset_ns", "idle_ns", "busy_pct", "kernel_count"]
    if (t["idle_other_clock_ns"] > 0).any():  # idle at most: the part that may be work on another clock
        cols.insert(cols.index("idle_ns") + 1, "idle_other_clock_ns")
    if "idle_untimed_ns" in t and (t["idle_untimed_ns"].fillna(0) > 0).any():  # idle at most: untimed work
        cols.insert(cols.index("idle_ns") + 1, "idle_untimed_ns")
    docs = dict(bd.columns)
    if split is not None:  # the two parts of idle beside it, as drawn
        cols[cols.index("idle_ns") + 1:cols.index("idle_ns") + 1] = ["steady_idle_ns", "idle_boundary_ns"]
        docs.update({k: s.results["bottlenecks"].columns.get(k, "") for k in ("steady_idle_ns", "idle_boundary_ns")})
    gpus = int(summ.get("gpu_count", len(t)) or len(t))
    # several GPUs: the shares are of their summed spans (device time), not of the wall span, and the exposed
    # parts are sums over the GPUs — said so (2 GPUs: "46.0 % of the span" beside a 1.23 s wall span read as wall)
    of = "of the span" if gpus <= 1 else f"of their summed spans ({fmt_ns(summ.get('device_span_ns'))})"
    over = "" if gpus <= 1 else ", each summed over the GPUs"
    return [Panel("Time breakdown per rank and GPU",
                  f"Over {plural(gpus, 'GPU(s)')}, {busy_bound_word(summ, summ)}"
                  f"{share_pct_text(summ.get('busy_pct', 0.0))} {of} was "
                  f"busy and {idle_at_most(summ)}{share_pct_text(summ.get('idle_pct', 0.0))} idle"
                  f"{idle_bound_note(summ).replace(' — ', ' (', 1) + ')' if summ.get('idle_bound') else ''}; "
                  f"exposed communication {fmt_ns(summ.get('exposed_comm_ns', 0))}, exposed memcpy "
                  f"{fmt_ns(summ.get('exposed_memcpy_ns', 0))}, exposed memset "
                  f"{fmt_ns(summ.get('exposed_memset_ns', 0))}{over}. Computation, the exposed parts and idle add "
                  f"up to {'the span' if gpus <= 1 else 'each GPU' + chr(39) + 's span'}." + (f" Exposed parts {summ['overlap_unknown']}." if summ.get("overlap_unknown") else "")
                  + (" Idle is drawn as its steady-state part and the one-off gaps (warm-up, boundaries) the verdict "
                     "leaves out, as the bottlenecks analysis splits it." if split is not None else ""),
                  fig, table_html(bounded_breakdown(drawn, summ), cols, max_rows, docs=docs))]


def kernels_page(s: SourceReport, max_rows: int) -> list[Any]:
    """Bar chart of the performance-critical set and the sortable table of all kernels."""
    hs = s.results.get("hotspots")
    if hs is None or not len(hs.table):
        reason = hs.skipped_reason if hs is not None and hs.skipped_reason else "no kernels in the trace"
        return [empty_html("Hot kernels", reason if hs is not None else "analysis not available")]
    t = hs.table
    crit = t[t["critical"].astype(bool)].head(25)
    ys = tick_labels(short_names(crit["name"].astype(str)), full=crit["name"].astype(str).tolist())
    links = KERNEL_LINKS.get()
    div, unit = time_scale(crit["effective_ns"])  # the axis unit follows the magnitude drawn
    # a kernel whose time is unknown (an ncu launch without a duration) has no bar: None, never a NA plotly chokes on
    xs = [None if pd.isna(v) else float(v) / div for v in crit["effective_ns"]]
    texts = [fmt_share(v) for v in crit["share"]]
    gpus = crit["gpus"] if "gpus" in crit else pd.Series(None, crit.index, dtype=float)  # several GPUs: a sum, said
    hover = [f"{wrap_name(n)}<br>{plural(c, 'call(s)')}, {fmt_ns(e)}"
             + (f" summed over {int(g)} GPUs" if not is_missing(g) and g > 1 else "")
             + f", mean {fmt_ns(m)}<br>click: kernel details"
             for n, c, e, m, g in zip(crit["name"], crit["calls"], crit["effective_ns"], crit["mean_ns"], gpus)]
    kinds = [str(k) for k in crit["kind"]]
    # one trace per kind of work, named in the legend (the bars' colours said "collective" to no one); the y axis
    # keeps the rows' order across the traces
    legend = set(kinds) != {"kernel"}  # any colour but the plain kernels' blue is named (a lone collective too)
    data = []
    for kind in dict.fromkeys(kinds):
        rows = [i for i, k in enumerate(kinds) if k == kind]
        pick = lambda v: [v[i] for i in rows]  # noqa: E731
        data.append({"type": "bar", "x": pick(xs), "y": pick(ys), "orientation": "h",
                     "name": KIND_LABELS.get(kind, kind), "marker": {"color": KIND_COLOURS.get(kind, GREY)},
                     **bar_value_labels(pick(texts)),
                     "customdata": pick([links.get(str(n), "") for n in crit["name"]]),
                     "hovertext": pick(hover), "hoverinfo": "text", "showlegend": legend})
    fig = _layout(data, 140 + 26 * len(ys), barmode="overlay", showlegend=legend, xaxis={"title": axis_title(
        # "overruns clipped" was the analyzer's word: a launch recorded past the next one's start on its stream
        f"{gpu_sum_label('GPU time', hs.summary)} [{unit}] (a stream's overlapping launches counted once); bar text: "
        "share of kernel time")},
                  yaxis={"autorange": "reversed", "categoryorder": "array", "categoryarray": ys})
    sm = hs.summary
    shown = "" if len(crit) == sm.get("critical_count", 0) else f" (the top {len(crit)} drawn)"
    t2 = t.assign(rank=range(1, len(t) + 1))
    many = gpu_sum_label("time", sm) != "time"  # a kernel on several GPUs: how many, its times sums over them
    cols = ["rank", "name", "kind", "calls", *(["gpus"] if many else []), "effective_ns", "total_ns", "mean_ns",
            "min_ns", "max_ns", "share", "critical"]
    if is_missing(sm.get("critical_share")) or is_missing(sm.get("kernel_effective_ns")):
        # no share to state ("1 of 1 kernel covers unknown of the unknown of kernel time" read an omniperf
        # counter run): the set as every reporter words it then
        take = (f"Of {plural(sm.get('unique_kernels', len(t)), 'kernel(s)')}, the performance-critical set: "
                f"{critical_set_text(sm)}{shown}.")
    else:
        take = (f"{sm.get('critical_count', 0)} of {plural(sm.get('unique_kernels', len(t)), 'kernel(s)')} "
                f"{agree(sm.get('critical_count', 0), 'covers', 'cover')} "
                f"{fmt_unit(sm.get('critical_share'), 'share')} of the {fmt_ns(sm.get('kernel_effective_ns'))} "
                f"of kernel time{shown}{blit_text(sm)}.")
    return [Panel("Hot kernels: the performance-critical set", take, fig,
                  table_html(t2, cols, max_rows, headers={"effective_ns": gpu_sum_label("time", sm),
                                                          "total_ns": gpu_sum_label("raw sum", sm), "rank": "#",
                                                          "gpus": "GPUs"},
                             docs={**hs.columns, "rank": "rank by GPU time"}))]


def _hidden_text(rows_t: pd.DataFrame) -> str:
    """The ``ranks`` table's ``overlap_pct`` (communication hidden behind compute, share of each rank's
    communication time) as a sentence: one figure when every rank prints the same, each rank's ("rank 0: 14.9 %")
    up to 8 ranks, else the lowest and the highest with their ranks."""
    vals = [(fmt_unit(r, "id"), fmt_unit(v, "%"), v) for r, v in zip(rows_t["rank"], rows_t["overlap_pct"])]
    head = " Communication hidden behind compute (share of each rank's communication time): "
    if len({text for _, text, _ in vals}) == 1:
        return f"{head}{vals[0][1]} on every rank."
    if len(vals) <= 8:
        return head + ", ".join(f"rank {r}: {text}" for r, text, _ in vals) + "."
    known = sorted((v, r, text) for r, text, v in vals if not is_missing(v))
    if not known:
        return f"{head}unknown."
    (_, r_lo, lo), (_, r_hi, hi) = known[0], known[-1]
    return f"{head}from {lo} (rank {r_lo}) to {hi} (rank {r_hi})" + (
        f"; unknown on {len(vals) - len(known)} ranks." if len(known) < len(vals) else ".")


def multirank_page(s: SourceReport, max_rows: int) -> list[Any]:
    """Per-rank breakdown (computation, exposed and hidden communication, idle), the ranks compared with the
    straggler named, and the top kernels' time on each rank as a heat-map normalised per kernel."""
    rk = s.results.get("rank_kernels")
    if rk is None or rk.skipped or not len(rk.table):
        return [empty_html("Multi-rank comparison", rk.skipped_reason if rk is not None else "analysis not available")]
    out: list[Any] = []
    bd, ranks = s.results.get("breakdown"), s.results.get("ranks")
    if bd is not None and not bd.skipped and len(bd.table) > 1:
        t = bd.table
        ys = [f"rank {fmt_unit(r, 'id')} · GPU {fmt_unit(d, 'id')}" for r, d in zip(t["rank"], t["device_id"])]
        hidden = (t["comm_ns"] - t["exposed_comm_ns"]).clip(lower=0) if "comm_ns" in t else None
        div, unit = time_scale(t["span_ns"])  # the axis unit follows the magnitude drawn
        split = one_off_split(bd, s.results.get("bottlenecks"))  # idle as the verdict splits it, when it does
        drawn = pd.DataFrame(split) if split is not None else t
        data = part_bars(drawn, ys, div, unit, split is not None)
        if hidden is not None and (hidden.fillna(0) > 0).any():  # no empty trace nor legend entry
            data.append({"type": "bar", "y": ys, "x": (hidden / div).tolist(),
                         "name": "communication hidden behind compute", "orientation": "h",
                         "marker": {"color": "rgba(230,159,0,0.35)", "pattern": {"shape": "/"}},
                         "hovertemplate": f"hidden communication: %{{x:.3f}} {unit}<extra>%{{y}}</extra>",
                         "base": 0, "offsetgroup": "hidden", "width": 0.25})
        fig = _layout(data, 150 + 40 * len(ys), barmode="stack", xaxis={"title": axis_title(f"time [{unit}]")},
                      yaxis={"autorange": "reversed"})
        rows_t = ranks.table if ranks is not None and not ranks.skipped and len(ranks.table) else None
        take = "Where each rank's GPU time went" + ("; the thin bar is communication that compute hid."
                                                    if any(t.get("offsetgroup") == "hidden" for t in data) else ".")
        if rows_t is not None:
            strag = rows_t[rows_t["straggler"].astype(bool)] if "straggler" in rows_t else rows_t.head(0)
            take += (f" Straggler: rank {', '.join(fmt_unit(r, 'id') for r in strag['rank'])}." if len(strag)
                     else " No rank stands out as a straggler.")
            if "overlap_pct" in rows_t:
                take += _hidden_text(rows_t)
        out.append(Panel("Per-rank breakdown", take, fig,
                         table_html(rows_t, None, max_rows, docs=ranks.columns) if rows_t is not None else
                         table_html(t, None, max_rows, docs=bd.columns)))
    elif ranks is not None and not ranks.skipped and len(ranks.table):
        out.append(Panel("Ranks compared", "Communication, waits and the straggler per rank.", None,
                         table_html(ranks.table, None, max_rows, docs=ranks.columns)))
    sm, t = rk.summary, rk.table
    names = list(dict.fromkeys(t["name"].astype(str)))
    labels = tick_labels(short_names(names), full=names)
    piv = t.assign(name=t["name"].astype(str)).pivot_table(index="name", columns="rank", values="time_ns",
                                                          aggfunc="sum").reindex(names)
    raw = piv.to_numpy(dtype=float)
    # normalised per kernel (row): 1 = the rank where that kernel took longest, so a small kernel's spread shows
    rowmax = piv.max(axis=1).replace(0, float("nan")).to_numpy(dtype=float)[:, None]
    z = (raw / rowmax)
    hover = [[f"{wrap_name(n)}<br>rank {r}: {fmt_ns(v)}" for r, v in zip(piv.columns, row)]
             for n, row in zip(names, raw)]
    heat = {"type": "heatmap", "z": [[None if v != v else round(float(v), 4) for v in row] for row in z],
            "x": [f"rank {r}" for r in piv.columns], "y": labels, "colorscale": "Cividis", "zmin": 0, "zmax": 1,
            # the colour is a share (0–1 drawn as 0–100 %) of the kernel's time on its busiest rank
            "colorbar": {"title": {**axis_title("GPU time [% of the kernel's busiest rank]"), "side": "right"},
                         "tickformat": ".0%"},
            "hovertext": hover, "hoverinfo": "text"}
    fig2 = _layout([heat], 160 + 24 * len(labels), yaxis={"autorange": "reversed"})
    by_rank = sm.get("kernel_time_ns_by_rank") or {}
    rank_rows = "".join(f"<tr><th scope='row'>rank {esc(r)}</th><td class='num' data-v='{v}'>{esc(fmt_ns(v))}</td></tr>"
                        for r, v in by_rank.items())
    untimed = sm.get("untimed_ranks") or []
    compared = (f"Kernel time is unknown on {'rank' if len(untimed) == 1 else 'ranks'} "
                f"{', '.join(map(str, untimed))} (a kernel launch of unknown duration): the ranks are not compared."
                if untimed else
                f"Rank {fmt_unit(sm.get('slowest_rank'), 'id')} has the most kernel time, collectives "
                f"included, and rank {fmt_unit(sm.get('fastest_rank'), 'id')} the least: an imbalance of "
                f"{fmt_unit(sm.get('imbalance_pct'), '%')} of the mean.{_compute_imbalance_text(sm)}")
    out.append(Panel("Top kernels on each rank",
                     f"{compared} Each row is "
                     "scaled to its own maximum, so a kernel that differs across ranks shows whatever its size.", fig2,
                     "<table class='data sortable'><thead><tr><th>rank</th><th>kernel time (overruns clipped, as the kernel "
                     "tables)</th></tr></thead>"
                     f"<tbody>{rank_rows}</tbody></table>" + table_html(t, None, max_rows, docs=rk.columns)))
    return out


def _compute_imbalance_text(sm: dict[str, Any]) -> str:
    """The compute-kernel comparison of ``rank_kernels`` (its finding's figure) as a sentence, or ``""``: a
    collective's time includes waiting for the other ranks, so compute kernels alone can differ far more."""
    more = sm.get("compute_more_pct")
    if more is None:
        return ""
    return (f" Compute kernels alone (a collective's time includes its wait for the other ranks): rank "
            f"{fmt_unit(sm.get('compute_heaviest_rank'), 'id')} spends {fmt_unit(more, '%')} more than rank "
            f"{fmt_unit(sm.get('compute_lightest_rank'), 'id')}.")


#: Labels and declared units of the input and device records (keys not listed: label and unit from the name).
META_DOCS = {
    "path": "file [text]", "collector": "format [text]", "size_bytes": "file size [bytes]",
    "uncompressed_bytes": "uncompressed size [bytes]", "compressed": "gzip-compressed [bool]",
    "base_time_ns": "trace clock origin [timestamp]", "session_start_epoch_ns": "capture start (clock origin) [timestamp]",
    "schema_version": "trace schema version [version]",
    "display_time_unit": "display time unit [text]", "rank_source": "rank taken from [text]",
    "ranks": "ranks [id]", "producer": "written by [text]", "comm_by_launcher": "collectives found by launch op [count]",
    "grid_units": "grid size units [text]",
    "grid_convention": "grid/block as written by rocprofiler-sdk (by HIP version) [text]", "incomplete_capture": "incomplete capture [text]",
    "cuda_driver_version": "CUDA driver [version]", "cuda_runtime_version": "CUDA runtime [version]",
    "hip_driver_version": "HIP driver [version]", "hip_runtime_version": "HIP runtime [version]",
    "nsys_version": "Nsight Systems [version]", "rocm_version": "ROCm [version]", "name": "name [text]",
    "device_id": "GPU [id]", "compute_capability": "compute capability [version]", "num_sms": "SMs / CUs [count]",
    "total_memory_bytes": "memory [bytes]", "memory_bandwidth_bytes_per_s": "memory bandwidth [B/s]",
    "hbm_bandwidth_bytes_per_s": "HBM bandwidth [B/s]", "clock_hz": "clock [Hz]", "l2_cache_bytes": "L2 cache [bytes]",
    "max_clock_mhz": "max clock (MHz) [count]", "max_memory_clock_mhz": "max memory clock (MHz) [count]",
    "gfx_arch": "architecture [text]", "smem_per_sm_bytes": "shared memory / SM [bytes]",
    "smem_per_block_bytes": "shared memory / block [bytes]", "smem_per_block_optin_bytes":
    "shared memory / block, opt-in [bytes]", "regs_per_sm": "registers / SM [count]",
    "regs_per_block": "registers / block [count]", "uuid": "UUID [id]", "bus_location": "PCI bus [id]",
    "l1_bytes": "L1 cache [bytes]", "l2_bytes": "L2 cache [bytes]", "l2_channels": "L2 channels [count]",
    "lds_per_cu_bytes": "LDS / CU [bytes]", "simd_per_cu": "SIMDs / CU [count]", "max_waves_per_cu":
    "max wavefronts / CU [count]", "num_xcc": "XCDs (accelerator complex dies) [count]", "max_warps_per_sm":
    "max warps / SM [count]", "max_blocks_per_sm": "max blocks / SM [count]", "chip_id": "chip ID [id]",
    "max_threads_per_block": "max threads / block [count]", "max_threads_per_sm": "max threads / SM [count]",
    "warp_size": "warp (wavefront) size [count]", "memory_clock_rate_hz": "memory clock (device attribute) [Hz]",
    "memory_bus_width_bits": "memory bus width (bits) [count]",
}


#: Driver and runtime version fields, decoded by :func:`gpulens.devices.naming.version_text`.
_DRIVER_KEYS = ("cuda_driver_version", "cuda_runtime_version", "hip_driver_version", "hip_runtime_version",
                "driver_version", "runtime_version")


#: Byte fields that are file sizes (decimal units); every other byte field of a record is a capacity (binary).
_FILE_SIZES = ("size_bytes", "uncompressed_bytes")


#: ``rank_source`` tokens that name no source (:data:`gpulens.collectors._ranks.RANKLESS`), in words
_RANK_SOURCE_WORDS = {"none": "not recorded (rank 0)", "process": "the process (no rank recorded)"}


def record_items(rec: dict[str, Any]) -> list[tuple[str, str]]:
    """One input or device record as (label, text) pairs, each value formatted from its declared unit: driver and
    runtime versions decoded (``CUDA 12.9``, ``HIP 6.4.43483``; :mod:`gpulens.devices.naming`), the architecture
    named (``compute capability 9.0 (sm_90)``, ``gfx942 (HIP reports 9.4)``), timestamps as dates, file sizes in
    decimal bytes, capacities (memory, caches, shared memory) in binary units (``64 KiB``), chip IDs in hex, clocks in
    Hz."""
    out = []
    vendor = record_vendor(rec)
    for k, v in rec.items():
        if v is None or (isinstance(v, (list, dict)) and not v):
            continue
        doc = META_DOCS.get(k, "")
        label = vendor_label(k, vendor, doc.rsplit(" [", 1)[0] if doc else column_label(k), doc or "")
        if k in _DRIVER_KEYS:
            text = version_text(v, k)
            api = label.split(" ")[0]  # "CUDA driver 12.9", not "CUDA driver CUDA 12.9"
            text = text[len(api) + 1:] if api in ("CUDA", "HIP") and text.startswith(api + " ") else text
        elif k == "compute_capability" and "gfx_arch" not in rec:
            text = arch_text(rec) or fmt_unit(v, "version")
            label = "architecture"
        elif k in _FILE_SIZES or unit_of(k, doc) != "bytes" or not isinstance(v, (int, float)):
            text = fmt_unit(v, unit_of(k, doc))
        else:  # a capacity (memory, cache, shared memory): binary units, as nvidia-smi and rocminfo print them
            text = fmt_capacity(v)
        if k == "rank_source" and v in _RANK_SOURCE_WORDS:
            text = _RANK_SOURCE_WORDS[v]
        if k == "collector":  # the format in words, as the console says it (not the collector's id)
            from gpulens.collectors._format_words import format_words

            text = format_words(v)
        if k == "chip_id" and isinstance(v, int):
            text = f"{v:#06x} ({v})"  # PCI device IDs are read in hex (rocminfo: "Chip ID: 29861(0x74a5)")
        out.append((label, text))
    return out


def environment_page(s: SourceReport, max_rows: int, tool_version: str, created: str) -> list[Any]:
    """Inputs, devices, versions and every warning (truncation, excluded events)."""
    tl = s.timeline
    spec = getattr(s.device, "name", None) if s.device is not None else None
    if spec:
        from gpulens.reports._format import spec_label

        spec = spec_label(spec, getattr(s.device, "note", ""))
    blocks: list[Any] = ['<section class="panel"><h3>Report</h3>' + kv_html([
        ("gpulens", tool_version), ("created", created), ("input", s.label), ("status", status_text(s.status)),
        ("truncated", "yes: " + ", ".join(f"{p} at byte {b:,}" for p, b in tl.meta.truncated_at.items())
         if tl.meta.truncated else "no"),
        ("device spec used", spec or "none identified"), ("excluded events", f"{len(tl.rejected):,}")]) + "</section>"]
    for title, recs in (("Inputs", tl.meta.sources), ("Devices as recorded", tl.meta.devices)):
        if not recs:  # said once ("0 records." above "Nothing recorded." read twice)
            blocks.append(f'<section class="panel"><h3>{esc(title)}</h3><p class="note">The input records '
                          f'{"no input file" if title == "Inputs" else "no device"}.</p></section>')
            continue
        body = "".join(kv_html(record_items(r)) for r in recs[:max_rows])
        shown = "" if len(recs) <= max_rows else f" (the first {max_rows} shown; the JSON report has all)"
        blocks.append(f'<section class="panel"><h3>{esc(title)}</h3><p '
                      f'class="takeaway">{plural(len(recs), "record(s)")}{shown}.</p>'
                      f'<div class="kvgrid">{body}</div></section>')
    from gpulens.reports._warnings import READING_NOTES_TITLE, environment_notes, grouped_warnings, reading_notes

    every = grouped_warnings(tl.meta)  # the same warning of several files said once
    warn = "".join(f"<li>{esc(w)}</li>" for w in every[:max_rows]) + (
        f"<li>+{esc(plural(len(every) - max_rows, 'more warning'))} in the JSON report</li>"
        if len(every) > max_rows else "")
    blocks.append(f'<section class="panel"><h3>Warnings</h3>'
                  f'{"<ul class=warnings>" + warn + "</ul>" if warn else "<p class=note>No warnings were recorded.</p>"}</section>')
    env = environment_notes(tl.meta)  # facts of the machine, not of the input: apart from the warnings
    if env:
        blocks.append('<section class="panel"><h3>Environment notes (the machine, not the input)</h3><ul>'
                      + "".join(f"<li>{esc(e)}</li>" for e in env) + "</ul></section>")
    read = reading_notes(tl.meta)  # copies of the same records passed over: facts, not faults of the input
    if read:
        blocks.append(f'<section class="panel"><h3>{esc(READING_NOTES_TITLE)}</h3><ul>'
                      + "".join(f"<li>{esc(e)}</li>" for e in read) + "</ul></section>")
    return blocks
