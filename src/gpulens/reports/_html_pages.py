"""The HTML report's pages for one source: summary, time breakdown, hot kernels, timeline, multi-rank, environment.

Each builder takes a :class:`~gpulens.report.SourceReport` and returns blocks (HTML strings or
:class:`~gpulens.reports._html_parts.Panel`). The figures draw the analyzers' tables as they are; times are only
converted from ns to ms for the axes. Roofline, occupancy, verdict and generic pages are in ``_html_analyses``.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from gpulens.report import SourceReport
from gpulens.reports._format import busy_text, fmt_ns
from gpulens.reports._html_parts import (
    GREY,
    KIND_COLOURS,
    OKABE_ITO,
    TICK_CHARS,
    Panel,
    empty_html,
    esc,
    kv_html,
    plot_text,
    table_html,
)

#: Breakdown components (they add up to the span), their labels, colours and bar patterns (not colour alone).
BREAKDOWN_PARTS = (("computation_ns", "computation", OKABE_ITO[0], ""),
                   ("exposed_comm_ns", "exposed communication", OKABE_ITO[1], "/"),
                   ("exposed_memcpy_ns", "exposed memcpy", OKABE_ITO[3], "x"),
                   ("exposed_memset_ns", "exposed memset", OKABE_ITO[2], "."),
                   ("idle_ns", "idle", GREY, "-"))


def _layout(fig: go.Figure, height: int = 380, **kw: Any) -> go.Figure:
    fig.update_layout(height=height, margin={"l": 10, "r": 10, "t": 30, "b": 40}, hovermode="closest",
                      legend={"orientation": "h", "y": -0.15}, **kw)
    fig.update_xaxes(automargin=True)
    fig.update_yaxes(automargin=True)
    return fig


def findings_table(findings: list, max_rows: int) -> str:
    """Findings as an HTML table (severity, title, time at stake, category, detail)."""
    if not findings:
        return '<p class="note">No findings.</p>'
    import pandas as pd

    df = pd.DataFrame([{"severity": f.severity, "finding": f.title, "time_at_stake_ns": f.time_at_stake_ns,
                        "category": f.category, "kernel": f.kernel, "detail": f.detail} for f in findings])
    return table_html(df, max_rows=max_rows, headers={"time_at_stake_ns": "time at stake"})


def summary_page(s: SourceReport, max_rows: int) -> list[Any]:
    """Key figures, where the GPU's time went (donut), and the findings ranked by time at stake."""
    sm, tl = s.summary, s.timeline
    hs = s.results.get("hotspots")
    hsum = hs.summary if hs is not None else {}
    devices = ", ".join(sorted({str(d.get("name")) for d in tl.meta.devices if d.get("name")})) or "not recorded"
    status = s.status + (" — input truncated, results are partial" if tl.meta.truncated else "")
    kv = kv_html([
        ("input", s.label), ("status", status), ("device", devices), ("ranks", ", ".join(map(str, sm["ranks"]))),
        ("GPU span", busy_text(sm)),
        ("kernels", f"{sm['kernel_count']} launches of {sm['unique_kernels']} kernels"),
        ("kernel time", f"{fmt_ns(sm['kernel_time_ns'])} summed, {fmt_ns(sm['kernel_busy_ns'])} busy (union)"),
        ("performance-critical set", f"{hsum.get('critical_count', 0)} kernels cover "
                                     f"{100 * hsum.get('critical_share', 0.0):.0f} % of kernel time"),
        ("excluded events", str(sm["rejected_event_count"])),
    ])
    blocks: list[Any] = [f'<section class="panel"><h3>Key figures</h3>{kv}</section>']
    bd = s.results.get("breakdown")
    if bd is not None and not bd.skipped and sm["span_ns"] and sm["gpu_busy_pct"] is not None:
        labels = [lab for _, lab, _, _ in BREAKDOWN_PARTS]
        values = [bd.summary.get(key, 0) / 1e6 for key, _, _, _ in BREAKDOWN_PARTS]
        fig = go.Figure(go.Pie(labels=labels, values=values, hole=0.5, sort=False,
                               marker={"colors": [c for _, _, c, _ in BREAKDOWN_PARTS],
                                       "line": {"color": "#ffffff", "width": 1}},
                               texttemplate="%{label}<br>%{percent}", hovertemplate="%{label}: %{value:.3f} ms"))
        rows = "".join(f"<tr><th scope='row'>{esc(lab)}</th><td class='num' data-v='{v}'>{v:.3f} ms</td></tr>"
                       for lab, v in zip(labels, values))
        blocks.append(Panel("Where the GPU time went",
                            f"GPU span {busy_text(sm)}; "
                            f"computation took {fmt_ns(sm['computation_ns'])} and idle {fmt_ns(sm['idle_ns'])}.",
                            _layout(fig, 340),
                            f"<table class='data'><thead><tr><th>part</th><th>time</th></tr></thead>"
                            f"<tbody>{rows}</tbody></table>"))
    findings = s.findings()
    timed = [f for f in findings if f.time_at_stake_ns][:15]
    fig = None
    if timed:
        ys = [f"{i + 1}. {plot_text(f.title, TICK_CHARS)}" for i, f in enumerate(timed)]
        fig = go.Figure(go.Bar(x=[f.time_at_stake_ns / 1e6 for f in timed], y=ys, orientation="h",
                               marker_color=[KIND_COLOURS["comm"] if f.severity != "info" else OKABE_ITO[4]
                                             for f in timed],
                               hovertext=[plot_text(f.title) for f in timed], hoverinfo="text+x"))
        fig = _layout(fig, 120 + 28 * len(timed), xaxis_title="time at stake [ms]",
                      yaxis={"autorange": "reversed", "automargin": True})
    take = (f"The largest finding concerns {fmt_ns(timed[0].time_at_stake_ns)}: {timed[0].title}." if timed
            else f"{len(findings)} finding(s), none with a time at stake." if findings else "Nothing was flagged.")
    blocks.append(Panel("Top findings by time at stake", take, fig, findings_table(findings, max_rows)))
    return blocks


def breakdown_page(s: SourceReport, max_rows: int) -> list[Any]:
    """Stacked bars per rank/device: computation, exposed comm, exposed memcpy/memset, idle."""
    bd = s.results.get("breakdown")
    if bd is None or bd.skipped or not len(bd.table):
        return [empty_html("Time breakdown", bd.skipped_reason if bd is not None else "analysis not available")]
    t = bd.table
    ys = [f"rank {r} · GPU {d}" for r, d in zip(t["rank"], t["device_id"])]
    fig = go.Figure()
    for key, label, colour, pattern in BREAKDOWN_PARTS:
        fig.add_bar(y=ys, x=(t[key] / 1e6).tolist(), name=label, orientation="h", marker_color=colour,
                    marker_pattern_shape=pattern, hovertemplate=f"{label}: %{{x:.3f}} ms<extra>%{{y}}</extra>")
    fig = _layout(fig, 140 + 34 * len(ys), barmode="stack", xaxis_title="time [ms]",
                  yaxis={"autorange": "reversed", "automargin": True})
    summ = bd.summary
    cols = ["rank", "device_id", "span_ns", "computation_ns", "exposed_comm_ns", "exposed_memcpy_ns",
            "exposed_memset_ns", "idle_ns", "busy_pct", "kernel_count"]
    return [Panel("Time breakdown per rank and GPU",
                  f"Over {summ.get('gpu_count', len(t))} GPU(s), {summ.get('busy_pct', 0.0):.1f} % of the span was "
                  f"busy and {summ.get('idle_pct', 0.0):.1f} % idle; exposed communication "
                  f"{fmt_ns(summ.get('exposed_comm_ns', 0))}, exposed memcpy "
                  f"{fmt_ns(summ.get('exposed_memcpy_ns', 0))}.",
                  fig, table_html(t, cols, max_rows, docs=bd.columns))]


def kernels_page(s: SourceReport, max_rows: int) -> list[Any]:
    """Bar chart of the performance-critical set and the sortable table of all kernels."""
    hs = s.results.get("hotspots")
    if hs is None or not len(hs.table):
        reason = hs.skipped_reason if hs is not None and hs.skipped_reason else "no kernels in the trace"
        return [empty_html("Hot kernels", reason if hs is not None else "analysis not available")]
    t = hs.table
    crit = t[t["critical"]].head(25)
    ys = [f"#{i + 1} {plot_text(n, TICK_CHARS)}" for i, n in enumerate(crit["name"])]
    fig = go.Figure(go.Bar(
        x=(crit["effective_ns"] / 1e6).tolist(), y=ys, orientation="h",
        marker_color=[KIND_COLOURS.get(k, GREY) for k in crit["kind"]],
        text=[f"{100 * v:.1f} %" for v in crit["share"]], textposition="auto",
        hovertext=[f"{plot_text(n)}<br>{c} calls, mean {fmt_ns(m)}" for n, c, m in
                   zip(crit["name"], crit["calls"], crit["mean_ns"])], hoverinfo="text+x"))
    fig = _layout(fig, 140 + 26 * len(ys), xaxis_title="GPU time [ms] (overruns clipped)",
                  yaxis={"autorange": "reversed", "automargin": True})
    sm = hs.summary
    shown = "" if len(crit) == sm.get("critical_count", 0) else f" (the top {len(crit)} drawn)"
    t2 = t.assign(rank=range(1, len(t) + 1))
    cols = ["rank", "name", "kind", "calls", "effective_ns", "total_ns", "mean_ns", "min_ns", "max_ns", "share",
            "critical"]
    return [Panel("Hot kernels: the performance-critical set",
                  f"{sm.get('critical_count', 0)} of {sm.get('unique_kernels', len(t))} kernels cover "
                  f"{100 * sm.get('critical_share', 0.0):.0f} % of the {fmt_ns(sm.get('kernel_effective_ns'))} "
                  f"of kernel time{shown}.", fig,
                  table_html(t2, cols, max_rows, headers={"effective_ns": "time", "total_ns": "raw sum"},
                             docs={**hs.columns, "rank": "rank by GPU time"}))]


def timeline_page(s: SourceReport, max_rows: int, max_segments: int) -> list[Any]:
    """Per-stream busy segments as a light Gantt chart (the analyzer already decimated them)."""
    st = s.results.get("stream_timeline")
    if st is None or st.skipped or not len(st.table):
        return [empty_html("Stream timeline", st.skipped_reason if st is not None else "analysis not available")]
    t = st.table.head(max_segments)
    track = [f"r{r} · GPU {d} · stream {q}" for r, d, q in zip(t["rank"], t["device_id"], t["stream_id"])]
    t = t.assign(track=track)
    tracks = list(dict.fromkeys(track))
    fig = go.Figure()
    for kind, colour in KIND_COLOURS.items():
        k = t[t["kind"] == kind]
        if not len(k):
            continue
        fig.add_bar(y=k["track"].tolist(), base=(k["offset_ns"] / 1e6).tolist(),
                    x=((k["end_ns"] - k["start_ns"]).clip(lower=1) / 1e6).tolist(), orientation="h", name=kind,
                    marker_color=colour, marker_line_width=0,
                    hovertext=[f"{plot_text(n)}<br>{e} event(s), busy {fmt_ns(b)}"
                               for n, e, b in zip(k["name"], k["events"], k["busy_ns"])], hoverinfo="text")
    fig = _layout(fig, 160 + 26 * len(tracks), barmode="overlay", xaxis_title="time since first GPU event [ms]",
                  yaxis={"autorange": "reversed", "type": "category", "categoryorder": "array",
                         "categoryarray": tracks})
    sm = st.summary
    how = (f"merged into {sm['segment_count']} segments (events starting in the same {fmt_ns(sm['bin_ns'])} bin)"
           if sm.get("decimated") else "one bar per event")
    cut = f"; the first {len(t)} segments are drawn" if len(t) < len(st.table) else ""
    cols = ["rank", "device_id", "stream_id", "offset_ns", "busy_ns", "events", "kind", "name"]
    return [Panel("Stream timeline",
                  f"{sm['event_count']} GPU events on {sm.get('track_count', len(tracks))} stream(s) over "
                  f"{fmt_ns(sm['end_ns'] - sm['start_ns'])}, {how}{cut}. Open the Perfetto export for every event.",
                  fig, table_html(st.table, cols, max_rows, headers={"offset_ns": "start (from first GPU event)"},
                             docs=st.columns))]


def multirank_page(s: SourceReport, max_rows: int) -> list[Any]:
    """Kernel time per rank and the top kernels' time on each rank (heatmap)."""
    rk = s.results.get("rank_kernels")
    if rk is None or rk.skipped or not len(rk.table):
        return [empty_html("Multi-rank comparison", rk.skipped_reason if rk is not None else "analysis not available")]
    sm, t = rk.summary, rk.table
    by_rank = sm["kernel_time_ns_by_rank"]
    ranks = [f"rank {r}" for r in by_rank]
    fig1 = go.Figure(go.Bar(x=ranks, y=[v / 1e6 for v in by_rank.values()], marker_color=OKABE_ITO[0],
                            hovertemplate="%{x}: %{y:.3f} ms<extra></extra>"))
    fig1 = _layout(fig1, 320, yaxis_title="kernel time [ms]")
    names = list(dict.fromkeys(t["name"]))
    labels = [f"#{i + 1} {plot_text(n, TICK_CHARS)}" for i, n in enumerate(names)]
    piv = t.pivot(index="name", columns="rank", values="time_ns").reindex(names)
    fig2 = go.Figure(go.Heatmap(z=(piv.to_numpy() / 1e6).tolist(), x=[f"rank {r}" for r in piv.columns], y=labels,
                                colorscale="Cividis", colorbar={"title": "ms"},
                                hovertemplate="%{y}<br>%{x}: %{z:.3f} ms<extra></extra>"))
    fig2 = _layout(fig2, 160 + 24 * len(labels), yaxis={"autorange": "reversed", "automargin": True})
    rank_rows = "".join(f"<tr><th scope='row'>rank {esc(r)}</th><td class='num' data-v='{v}'>{esc(fmt_ns(v))}</td></tr>"
                        for r, v in by_rank.items())
    return [Panel("Kernel time per rank",
                  f"Rank {sm['slowest_rank']} has the most kernel time and rank {sm['fastest_rank']} the least: "
                  f"an imbalance of {sm['imbalance_pct']:.1f} % of the mean.", fig1,
                  f"<table class='data sortable'><thead><tr><th>rank</th><th>kernel time</th></tr></thead>"
                  f"<tbody>{rank_rows}</tbody></table>"),
            Panel("Top kernels on each rank",
                  f"Time of the {len(names)} largest kernels on each of {len(piv.columns)} ranks; a row that differs "
                  "across ranks points at uneven work.", fig2, table_html(t, None, max_rows, docs=rk.columns))]


def environment_page(s: SourceReport, max_rows: int, tool_version: str, created: str) -> list[Any]:
    """Inputs, devices, versions and every warning (truncation, excluded events)."""
    import pandas as pd

    tl = s.timeline
    spec = getattr(s.device, "name", None) if s.device is not None else None
    blocks: list[Any] = ['<section class="panel"><h3>Report</h3>' + kv_html([
        ("gpulens", tool_version), ("created", created), ("input", s.label), ("status", s.status),
        ("truncated", "yes: " + ", ".join(f"{p} at byte {b}" for p, b in tl.meta.truncated_at.items())
         if tl.meta.truncated else "no"),
        ("device spec used", spec or "none identified"), ("excluded events", str(len(tl.rejected)))]) + "</section>"]
    blocks.append(Panel("Inputs", f"{len(tl.meta.sources)} input file(s).", None,
                        table_html(pd.DataFrame(tl.meta.sources), None, max_rows)))
    blocks.append(Panel("Devices as recorded", f"{len(tl.meta.devices)} device record(s) in the trace(s).", None,
                        table_html(pd.DataFrame(tl.meta.devices), None, max_rows)))
    warn = "".join(f"<li>{esc(w)}</li>" for w in tl.meta.warnings[:max_rows])
    blocks.append(f'<section class="panel"><h3>Warnings</h3>'
                  f'{"<ul class=warnings>" + warn + "</ul>" if warn else "<p class=note>None.</p>"}</section>')
    return blocks
