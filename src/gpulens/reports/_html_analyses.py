"""HTML pages for analyses that may or may not be in a Report: roofline, occupancy, stalls/verdicts, and a generic
panel for any :class:`~gpulens.analyzers.AnalysisResult`, so a new analyzer shows up without a new page.

A page whose analysis is absent says why: the result's ``skipped_reason``, or "analysis not available".
"""

from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from gpulens.analyzers import AnalysisResult
from gpulens.report import SourceReport
from gpulens.reports._format import clip, fmt_ns, fmt_value
from gpulens.reports._html_pages import _layout, findings_table
from gpulens.reports._html_parts import (
    GREY,
    OKABE_ITO,
    TICK_CHARS,
    Panel,
    empty_html,
    kv_html,
    plot_text,
    table_html,
)

#: Result names shown on the stalls & verdicts page (any name containing one of these words).
VERDICT_WORDS = ("stall", "verdict", "bottleneck")
#: Marker colour and symbol per roofline bound class (colour and shape, so it never relies on colour alone).
BOUND_STYLE = {"compute": (OKABE_ITO[0], "circle"), "memory": (OKABE_ITO[1], "diamond"),
               "latency": (OKABE_ITO[3], "square"), "unknown": (GREY, "x")}
NOT_AVAILABLE = "analysis not available (no analyzer produced it for this input)"


def _absent(what: str, r: AnalysisResult | None) -> list[Any]:
    if r is None:
        return [empty_html(what, NOT_AVAILABLE)]
    if r.skipped:
        return [empty_html(what, str(r.skipped_reason))]
    return [empty_html(what, "the analysis ran and returned no rows")]


def _takeaway(r: AnalysisResult, default: str) -> str:
    return r.findings[0].title + "." if r.findings else default


def roofline_page(s: SourceReport, max_rows: int) -> list[Any]:
    """Log-log roofline: hot kernels (size = GPU time, colour and shape = bound class), roofs and ridge points."""
    r = s.results.get("roofline")
    if r is None or r.skipped or not len(r.table):
        return _absent("Roofline", r)
    t = r.table
    ok = t[(pd.to_numeric(t["arithmetic_intensity"], errors="coerce") > 0)
           & (pd.to_numeric(t["flops_per_s"], errors="coerce") > 0)]
    fig = go.Figure()
    tmax = float(pd.to_numeric(ok["time_ns"], errors="coerce").max()) if len(ok) else 1.0
    for bound, grp in ok.groupby(ok["bound"].astype(str), sort=True):
        colour, symbol = BOUND_STYLE.get(bound, (OKABE_ITO[len(fig.data) % len(OKABE_ITO)], "triangle-up"))
        fig.add_scatter(
            x=grp["arithmetic_intensity"].astype(float).tolist(), y=grp["flops_per_s"].astype(float).tolist(),
            mode="markers", name=plot_text(f"{bound}-bound"),
            marker={"size": grp["time_ns"].astype(float).tolist(), "sizemode": "area", "sizemin": 5,
                    "sizeref": 2.0 * max(tmax, 1.0) / 45 ** 2, "color": colour, "symbol": symbol,
                    "line": {"color": "#000000", "width": 0.5}},
            hovertext=[f"{plot_text(n)}<br>{fmt_ns(tn)} · {p} · {fmt_value(rp, 'x')} % of roof"
                       for n, tn, p, rp in zip(grp["name"], grp["time_ns"], grp["precision"], grp["roof_pct"])],
            hoverinfo="text+x+y")
    roofs = t[["precision", "peak_flops_per_s", "peak_bytes_per_s"]].dropna().drop_duplicates()
    ais = ok["arithmetic_intensity"].astype(float)
    for i, (prec, peak, bw) in enumerate(roofs.itertuples(index=False)):
        peak, bw = float(peak), float(bw)
        if not (peak > 0 and bw > 0):
            continue
        ridge = peak / bw
        lo = min([ridge / 100] + ([float(ais.min()) / 4] if len(ais) else []))
        hi = max([ridge * 100] + ([float(ais.max()) * 4] if len(ais) else []))
        fig.add_scatter(x=[lo, ridge, hi], y=[lo * bw, peak, peak], mode="lines", name=plot_text(f"roof {prec}"),
                        line={"color": "#000000", "width": 1.5, "dash": ("solid", "dash", "dot", "dashdot")[i % 4]},
                        hovertemplate=f"{plot_text(prec)} roof: %{{y:.3s}}FLOP/s<extra></extra>")
        fig.add_annotation(x=math.log10(ridge), y=math.log10(peak), showarrow=True,
                           text=f"ridge {ridge:.3g} FLOP/B ({plot_text(prec)})", arrowhead=2, ax=30, ay=-30,
                           font={"size": 10})
    fig = _layout(fig, 460, xaxis={"type": "log", "title": "arithmetic intensity [FLOP/byte]"},
                  yaxis={"type": "log", "title": "achieved [FLOP/s]"})
    cols = ["name", "calls", "time_ns", "flops_per_s", "bytes_per_s", "arithmetic_intensity", "precision",
            "bound", "roof_pct", "ridge_point", "flops_source"]
    left = len(t) - len(ok)
    take = _takeaway(r, f"{len(ok)} hot kernel(s) on the roofline; marker size is GPU time, colour and shape the "
                        "bound class" + (f"; {left} without FLOP/byte figures are only in the table" if left else ""))
    return [Panel("Roofline of the hot kernels", take, fig, table_html(t, cols, max_rows, docs=r.columns))]


def occupancy_page(s: SourceReport, max_rows: int) -> list[Any]:
    """Achieved vs theoretical occupancy per hot kernel, with the limiter."""
    r = s.results.get("occupancy")
    if r is None or r.skipped or not len(r.table):
        return _absent("Occupancy", r)
    t = r.table.head(25)
    ys = [f"#{i + 1} {plot_text(n, TICK_CHARS)}" for i, n in enumerate(t["name"])]
    hov = [f"{plot_text(n)}<br>limiter: {plot_text(lim)}" for n, lim in zip(t["name"], t["limiter"])]
    fig = go.Figure()
    fig.add_bar(y=ys, x=pd.to_numeric(t["theoretical_occupancy_pct"], errors="coerce").tolist(), orientation="h",
                name="theoretical", marker_color=OKABE_ITO[4], text=[plot_text(x, 24) for x in t["limiter"]],
                textposition="inside", hovertext=hov, hoverinfo="text+x")
    fig.add_bar(y=ys, x=pd.to_numeric(t["achieved_occupancy_pct"], errors="coerce").tolist(), orientation="h",
                name="achieved", marker_color=OKABE_ITO[0], marker_pattern_shape="/", hovertext=hov,
                hoverinfo="text+x")
    fig = _layout(fig, 160 + 44 * len(ys), barmode="group", xaxis={"title": "occupancy [% of max warps]",
                                                                     "range": [0, 102]},
                  yaxis={"autorange": "reversed", "automargin": True})
    cols = ["name", "calls", "time_ns", "block_size", "regs_per_thread", "smem_bytes", "active_blocks_per_sm",
            "theoretical_occupancy_pct", "achieved_occupancy_pct", "limiter"]
    take = _takeaway(r, f"Theoretical occupancy (with what limits it) and, where measured, achieved occupancy of "
                        f"{len(r.table)} hot kernel(s).")
    return [Panel("Occupancy of the hot kernels", take, fig, table_html(r.table, cols, max_rows, docs=r.columns))]


def verdict_names(s: SourceReport) -> list[str]:
    """Names of results that belong on the stalls & verdicts page."""
    return [n for n in s.results if any(w in n.lower() for w in VERDICT_WORDS)]


def verdicts_page(s: SourceReport, max_rows: int) -> list[Any]:
    """Every stall / verdict result, drawn generically; says why the page is empty when there is none."""
    names = verdict_names(s)
    if not names:
        return [empty_html("Stalls and verdicts", NOT_AVAILABLE + "; the findings of the other analyses are on "
                                                                 "the Summary page")]
    out: list[Any] = []
    for n in names:
        out += generic_panels(n, s.results[n], max_rows)
    return out


def _pick(t: pd.DataFrame, preferred: tuple[str, ...], test) -> str | None:
    for c in preferred:
        if c in t.columns and test(t[c]):
            return c
    for c in t.columns:
        if test(t[c]):
            return c
    return None


def generic_panels(name: str, r: AnalysisResult, max_rows: int) -> list[Any]:
    """Any AnalysisResult: a bar chart of its main time column (when it has one), its table, summary and findings."""
    if r.skipped:
        return [empty_html(name, str(r.skipped_reason))]
    t = r.table
    fig = None
    if t is not None and len(t):
        label = _pick(t, ("name", "kernel", "class", "category", "verdict", "reason", "metric"),
                      lambda c: c.dtype == object or isinstance(c.dtype, pd.CategoricalDtype) or c.dtype == "str")
        value = _pick(t, ("time_at_stake_ns", "time_ns", "effective_ns", "total_ns", "share"),
                      lambda c: pd.api.types.is_numeric_dtype(c) and not pd.api.types.is_bool_dtype(c)
                      and c.name not in ("rank", "device_id", "stream_id"))
        if label and value:
            top = t.head(25)
            scale = 1e6 if value.endswith("_ns") else 1.0
            fig = go.Figure(go.Bar(
                x=(pd.to_numeric(top[value], errors="coerce") / scale).tolist(), orientation="h",
                y=[f"#{i + 1} {plot_text(v, TICK_CHARS)}" for i, v in enumerate(top[label])],
                hovertext=[plot_text(v) for v in top[label]], hoverinfo="text+x", marker_color=OKABE_ITO[0]))
            fig = _layout(fig, 140 + 26 * len(top), xaxis_title=plot_text(value.replace("_ns", " [ms]")),
                          yaxis={"autorange": "reversed", "automargin": True})
    scalars = [(k, clip(v if isinstance(v, str) else json.dumps(v, default=str), 300))
               for k, v in (r.summary or {}).items()]
    take = _takeaway(r, f"{len(t) if t is not None else 0} row(s) from the {name} analysis.")
    blocks: list[Any] = [Panel(f"{name}", take, fig, table_html(t, None, max_rows, docs=r.columns),
                               note=kv_html(scalars) if scalars else "")]
    if r.findings:
        blocks.append(Panel(f"{name}: findings", "", None, findings_table(r.findings, max_rows)))
    return blocks
