"""The HTML roofline page: every hot kernel with a FLOP figure on a log-log chart under the device's named roofs.

Roofs come from the device spec's datasheet figures (``vector.<precision>``, ``matrix.<precision>``,
``memory_bandwidth`` and any other ``*_bandwidth`` level) and from the roofline result's ``cache_levels`` when the
hierarchical roofline analysis provides them; they are drawn even when no kernel has a FLOP figure. Points: the
roofline table's attained FLOP/s over arithmetic intensity, marker *area* proportional to GPU time, colour and
shape by bound class (kernels below both roofs in their own colour). Nothing is computed beyond the line ends.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from gpulens.report import SourceReport
from gpulens.reports._format import fmt_ns, fmt_si, fmt_unit, is_missing, roofline_heading
from gpulens.reports._html_parts import GREY, KERNEL_LINKS, OKABE_ITO, Panel, empty_html, plot_text, table_html
from gpulens.reports._names import short_names

#: Marker colour and symbol per bound class (colour and shape, never colour alone).
BOUND_STYLE = {"compute": (OKABE_ITO[0], "circle", "compute-bound"),
               "memory": (OKABE_ITO[1], "diamond", "memory-bound"),
               "below": (OKABE_ITO[3], "square", "below both roofs (latency / occupancy / launch)")}
#: Precisions whose roofs are drawn when no kernel names one.
DEFAULT_PRECISIONS = ("bf16", "fp32")
_LEVEL_NAMES = {"memory_bandwidth": "HBM/DRAM", "l2_bandwidth": "L2", "l1_bandwidth": "L1", "lds_bandwidth": "LDS",
                "smem_bandwidth": "shared memory", "llc_bandwidth": "Infinity Cache"}


def _figure(d: Any, key: str) -> float | None:
    f = (getattr(d, "figures", None) or {}).get(key)
    v = getattr(f, "value", f)
    return float(v) if isinstance(v, (int, float)) and v > 0 else None


def roofs(s: SourceReport, precisions: list[str]) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """(compute roofs [(label, FLOP/s)], memory roofs [(label, B/s)]) for the device, named by unit and level."""
    d, compute, memory = s.device, [], []
    unit = "MFMA" if getattr(d, "vendor", "") == "amd" else "tensor cores"
    for prec in precisions:
        for kind, label in (("matrix", f"matrix ({unit})"), ("vector", "vector")):
            v = _figure(d, f"{kind}.{prec}")
            if v:
                compute.append((f"{label} {prec}", v))
    for key in sorted((getattr(d, "figures", None) or {})):
        if key.endswith("_bandwidth") and _figure(d, key):
            memory.append((_LEVEL_NAMES.get(key, key.removesuffix("_bandwidth").replace("_", " ")), _figure(d, key)))
    r = s.results.get("roofline")
    for lvl in (r.summary.get("cache_levels") or []) if r is not None else []:
        if isinstance(lvl, dict):
            bw = lvl.get("bytes_per_s") or lvl.get("bandwidth") or lvl.get("peak_bytes_per_s")
            name = lvl.get("level") or lvl.get("name")
            if isinstance(bw, (int, float)) and bw > 0 and name and name not in [m[0] for m in memory]:
                memory.append((str(name), float(bw)))
    if r is not None and not memory and len(r.table) and "peak_bytes_per_s" in r.table:
        bw = pd.to_numeric(r.table["peak_bytes_per_s"], errors="coerce").max()
        if bw > 0:
            memory.append(("HBM/DRAM", float(bw)))
    seen: set[float] = set()
    compute = [c for c in sorted(compute, key=lambda c: -c[1]) if not (c[1] in seen or seen.add(c[1]))]
    return compute, sorted(memory, key=lambda m: -m[1])


def _bound(v: Any) -> str:
    return v if isinstance(v, str) and v in ("compute", "memory") else "below"


def roofline_page(s: SourceReport, max_rows: int) -> list[Any]:
    """The roofline chart (points and roofs) and its table; says what is missing when it is."""
    r = s.results.get("roofline")
    t = r.table if r is not None and not r.skipped else pd.DataFrame()
    num = {c: pd.to_numeric(t[c], errors="coerce") for c in ("arithmetic_intensity", "flops_per_s", "time_ns")
           if c in t}
    ok = t[(num["arithmetic_intensity"] > 0) & (num["flops_per_s"] > 0)] if len(t) else t
    precs = [p for p in dict.fromkeys(t.get("precision", pd.Series(dtype=object)).dropna().astype(str)) if p]
    comp, mem = roofs(s, precs or list(DEFAULT_PRECISIONS))
    if not len(ok) and not comp:
        why = r.skipped_reason if r is not None and r.skipped else "no kernel has a FLOP figure"
        return [empty_html("Roofline", f"{why}; the device's peaks are not known either, so no roof can be drawn")]
    fig = go.Figure()
    stake = _stake_by_name(s)
    tmax = float(num["time_ns"][ok.index].max()) if len(ok) else 1.0
    labels = dict(zip(t["name"].astype(str), short_names(t["name"].astype(str)))) if len(t) else {}
    links = KERNEL_LINKS.get()
    # points are labelled with the kernel's hot-kernel rank (#1 = most GPU time), short enough not to collide; the
    # key under the chart names them, every point has its name on hover (the 15 largest are labelled)
    rank_of = _hot_ranks(s)
    named = set(ok.assign(_t=num["time_ns"]).nlargest(15, "_t")["name"].astype(str)) if len(ok) else set()
    for key, (colour, symbol, legend) in BOUND_STYLE.items():
        g = ok[ok["bound"].map(_bound) == key] if len(ok) else ok
        if not len(g):
            continue
        hover = [f"<b>{_tag(rank_of, n)}{plot_text(labels[str(n)])}</b><br>AI {fmt_unit(ai, 'FLOP/B')} · {fmt_si(float(fl), 'FLOP/s')}"
                 f"<br>{fmt_unit(rp, '%')} of roof · {fmt_ns(tn)}"
                 + (f" · {fmt_ns(stake[str(n)])} at stake" if str(n) in stake else "")
                 for n, ai, fl, rp, tn in zip(g["name"], g["arithmetic_intensity"], g["flops_per_s"], g["roof_pct"],
                                              g["time_ns"])]
        fig.add_scatter(x=g["arithmetic_intensity"].astype(float).tolist(), y=g["flops_per_s"].astype(float).tolist(),
                        mode="markers+text", name=legend,
                        text=[_tag(rank_of, n).strip() if str(n) in named else "" for n in g["name"]],
                        textposition="middle right", textfont={"size": 11},
                        customdata=[links.get(str(n), "") for n in g["name"]],
                        marker={"size": g["time_ns"].astype(float).tolist(), "sizemode": "area", "sizemin": 6,
                                "sizeref": 2.0 * max(tmax, 1.0) / 40 ** 2, "color": colour, "symbol": symbol,
                                "line": {"color": "#000000", "width": 0.7}},
                        hovertext=hover, hoverinfo="text")
    ais = [float(x) for x in ok["arithmetic_intensity"]] if len(ok) else []
    top = comp[0][1] if comp else max(float(x) for x in ok["flops_per_s"]) * 4
    bw0 = mem[0][1] if mem else None
    lo = min([0.01] + [a / 4 for a in ais] + ([comp[-1][1] / bw0 / 100] if comp and bw0 else []))
    hi = max([1e4] + [a * 4 for a in ais])
    for i, (label, bw) in enumerate(mem):
        x_end = top / bw
        fig.add_scatter(x=[lo, x_end], y=[lo * bw, top], mode="lines", name=f"{label} {fmt_si(bw, 'B/s')}",
                        line={"color": ("#333333", "#777777", "#AAAAAA", "#CCCCCC")[min(i, 3)], "width": 1.5},
                        hovertemplate=f"{plot_text(label)} roof: {fmt_si(bw, 'B/s')}<extra></extra>")
    if comp and bw0:
        fig.add_annotation(x=math.log10(comp[0][1] / bw0), y=math.log10(comp[0][1]), showarrow=True, arrowhead=2,
                           ax=-40, ay=-24, font={"size": 10},
                           text=f"ridge {comp[0][1] / bw0:.3g} FLOP/B ({plot_text(comp[0][0])})")
    for i, (label, peak) in enumerate(comp):
        x0 = peak / bw0 if bw0 else lo
        fig.add_scatter(x=[x0, hi], y=[peak, peak], mode="lines", name=f"{label} {fmt_si(peak, 'FLOP/s')}",
                        line={"color": "#000000", "width": 1.5, "dash": ("solid", "dash", "dot", "dashdot")[i % 4]},
                        hovertemplate=f"{plot_text(label)} roof: {fmt_si(peak, 'FLOP/s')}<extra></extra>")
        fig.add_annotation(x=math.log10(hi), y=math.log10(peak), xanchor="right", yanchor="bottom", showarrow=False,
                           text=f"{plot_text(label)} · {fmt_si(peak, 'FLOP/s')}", font={"size": 10})
    fig.update_layout(height=520, margin={"l": 10, "r": 10, "t": 30, "b": 40}, hovermode="closest",
                      legend={"orientation": "h", "y": -0.18},
                      xaxis={"type": "log", "title": "arithmetic intensity [FLOP/B]", "dtick": 1, "tickformat": "~g",
                             "automargin": True},
                      yaxis={"type": "log", "title": "attained [FLOP/s]", "dtick": 1, "tickformat": "~s",
                             "automargin": True})
    n_hot = len(t)
    missing = n_hot - len(ok)
    below = int((ok["bound"].map(_bound) == "below").sum()) if len(ok) else 0
    head = f"{roofline_heading(r.summary)}. " if r is not None and not r.skipped else ""
    take = head + (f"{len(ok)} of {n_hot} hot kernel(s) plotted ({below} below both roofs); marker area is GPU time."
            + (f" {missing} without a FLOP/byte figure are only in the table." if missing else "")
            if n_hot else "No hot kernel has a FLOP figure; the roofs of the device are drawn for reference.")
    key = [(rank_of.get(str(n), 10 ** 9), str(n)) for n in ok["name"] if str(n) in named] if len(ok) else []
    if key:
        take += " Labels: " + "; ".join(f"{_tag(rank_of, n).strip()} {labels[n]}" for _, n in sorted(key)) + "."
    cols = ["name", "calls", "time_ns", "flops_per_s", "bytes_per_s", "arithmetic_intensity", "precision",
            "bound", "roof_pct", "ridge_point", "flops_source"]
    tbl = table_html(t, cols, max_rows, docs=r.columns) if len(t) else ""
    note = (empty_html("Roofline points", "analysis not available (no analyzer produced it for this input)")
            if r is None else empty_html("Roofline points", str(r.skipped_reason)) if r.skipped else "")
    return [Panel("Roofline of the hot kernels", take, fig, tbl, note=note)]


def _hot_ranks(s: SourceReport) -> dict[str, int]:
    """Kernel name → its rank in the hot-kernel table (1 = most GPU time), as the Hot kernels chart numbers them."""
    hs = s.results.get("hotspots")
    if hs is None or hs.skipped or "name" not in hs.table:
        return {}
    return {str(n): i + 1 for i, n in enumerate(hs.table["name"])}


def _tag(rank_of: dict[str, int], name: Any) -> str:
    r = rank_of.get(str(name))
    return f"#{r} " if r else ""


def _stake_by_name(s: SourceReport) -> dict[str, float]:
    vd = s.results.get("verdicts")
    if vd is None or vd.skipped or "time_at_stake_ns" not in vd.table:
        return {}
    return {str(n): v for n, v in zip(vd.table["name"], vd.table["time_at_stake_ns"]) if not is_missing(v)}


__all__ = ["roofline_page", "roofs", "BOUND_STYLE", "GREY"]
