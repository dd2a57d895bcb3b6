"""The HTML roofline page: every hot kernel with a FLOP figure on a log-log chart under the roofs it is judged by.

Roofs drawn (nothing is computed beyond the line ends):

* every compute roof the roofline table judges a kernel against — its ``compute_roof`` (the device figure:
  ``matrix.<precision>`` for tensor cores / MFMA, ``vector.<precision>`` for CUDA cores / SIMD) at the table's
  ``peak_flops_per_s`` — each in its own colour and dash, with its ridge point (the table's ``ridge_point``);
* the memory roof the table judges by (``peak_bytes_per_s``: HBM/DRAM), meeting the highest compute roof;
* for reference only (dotted grey, never used for a verdict): the other bandwidth levels of the device spec
  (``*_bandwidth``) and the hierarchical roofline's ``cache_levels``; when no kernel has a FLOP figure, the
  device's matrix and vector roofs of :data:`DEFAULT_PRECISIONS`.

Points: the table's attained FLOP/s over arithmetic intensity, marker *area* proportional to GPU time, colour =
the compute roof the kernel is judged against (the colour of that roof's line), shape = its verdict
(:data:`VERDICT_SYMBOL`; the roofline's bound class where the verdicts table has no row for it). The figure is
built as plain dicts (no ``plotly.graph_objects`` validation: a report draws, it does not need plotly's checks).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from gpulens.report import SourceReport
from gpulens.reports._values import ge_mark
from gpulens.reports._format import bound_pct_differs, bound_pct_legend, roof_note_display, roofline_display, fmt_ns, fmt_si, fmt_unit, is_missing, roofline_heading
from gpulens.reports._html_parts import (CHAR_PX, GREY, KERNEL_LINKS, OKABE_ITO, Panel, empty_html, esc, hot_ranks,
                                         plot_text, table_html)
from gpulens.reports._names import short_names
from gpulens.reports._html_roof_layout import (  # noqa: F401 (re-exported: the label geometry's one home)
    LABEL_BOX_PX, LABEL_FONT_PX, LABEL_MERGE_DECADES, LABEL_OVERLAP_MAX, LABEL_SPOTS, LEGEND_ROW_PX, MAX_MARKER_PX,
    PLOT_AREA_PX, PLOT_MIN_PX, RIDGE_ROW_PX, _label_box, _overlap, label_merge_decades, place_point_labels,
    roof_annotations)
from gpulens.units import plural

#: Marker symbol and legend text per bound class (shape: the bound; colour: the roof judged against).
BOUND_STYLE = {"compute": ("circle", "compute-bound"),
               "memory": ("diamond", "memory-bound"),
               "below": ("square", "below both roofs")}
#: Marker symbol per kernel verdict (the verdicts table's class, :data:`gpulens.analyzers._verdict_facts.CLASSES`):
#: the shape of a point is its verdict, the roofline's own bound class (:data:`BOUND_STYLE`) only for a kernel with
#: none — two verdicts below both roofs ("below-roofs", "latency/occupancy-bound") once shared the square, beside a
#: caption saying that shape is the bound. The roofline's three words keep their :data:`BOUND_STYLE` symbols.
VERDICT_SYMBOL = {"compute-bound": "circle", "memory-bound": "diamond", "below-roofs": "square",
                  "latency/occupancy-bound": "triangle-up", "launch-bound": "triangle-down",
                  "communication-bound": "star", "undetermined": "x"}
#: Colours of the compute roofs (and of the points judged against them), in drawing order (highest roof first).
ROOF_COLOURS = (OKABE_ITO[0], OKABE_ITO[5], OKABE_ITO[2], OKABE_ITO[3], OKABE_ITO[1], OKABE_ITO[4])
ROOF_DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
#: Precisions whose roofs are drawn (for reference) when no kernel is judged against one.
DEFAULT_PRECISIONS = ("bf16", "fp32")
_LEVEL_NAMES = {"memory_bandwidth": "HBM/DRAM", "l2_bandwidth": "L2", "l1_bandwidth": "L1", "lds_bandwidth": "LDS",
                "smem_bandwidth": "shared memory", "llc_bandwidth": "Infinity Cache"}


def _figure(d: Any, key: str) -> float | None:
    f = (getattr(d, "figures", None) or {}).get(key)
    v = getattr(f, "value", f)
    return float(v) if isinstance(v, (int, float)) and v > 0 else None


def roof_label(key: Any, vendor: str = "") -> str:
    """A compute roof's device-figure key as a person reads it: ``"matrix.bf16"`` → ``"matrix bf16 (tensor
    cores)"``, ``"vector.fp32"`` → ``"vector fp32 (CUDA cores)"`` (AMD: MFMA / SIMD), ``"achievable.matrix.bf16"`` →
    ``"matrix bf16 (MFMA, achievable peak)"``; "unknown" when missing."""
    if is_missing(key) or not str(key).strip():
        return "unknown"
    key = str(key)
    ach = key.startswith("achievable.")
    unit, _, prec = key.removeprefix("achievable.").partition(".")
    amd = vendor == "amd"
    pipe = {"matrix": "MFMA" if amd else "tensor cores", "vector": "SIMD" if amd else "CUDA cores"}.get(unit)
    return (f"{unit} {prec} ({pipe}{', achievable peak' if ach else ''})" if pipe and prec else key)


def roof_keys(s: SourceReport, t: pd.DataFrame) -> list[str | None]:
    """Per row of the roofline table, the key of the compute roof it is judged against: its ``compute_roof``; for a
    table without that column (an older cached result), the device figure of the row's precision whose value is
    its ``peak_flops_per_s`` (``matrix.<p>``, ``vector.<p>``, then the ``vector.fp32`` fallback); None when none."""
    if "compute_roof" in t:
        return [None if is_missing(k) else str(k) for k in t["compute_roof"]]
    out: list[str | None] = []
    for prec, p in zip(t.get("precision", pd.Series([None] * len(t), index=t.index)),
                       pd.to_numeric(t.get("peak_flops_per_s", pd.Series(np.nan, t.index)), errors="coerce")):
        prec = "fp32" if is_missing(prec) else str(prec)
        hit = [k for k in (f"matrix.{prec}", f"vector.{prec}", "vector.fp32") if p == p and _figure(s.device, k) == p]
        out.append(hit[0] if hit else None)
    return out


def judged_roofs(s: SourceReport, t: pd.DataFrame) -> list[tuple[str, float, float | None]]:
    """The compute roofs the roofline table judges kernels against: ``[(key, FLOP/s, ridge FLOP/B)]``, highest
    first. The key is the table's ``compute_roof``; a table without that column (an older cached result) gets the
    device figure of equal value, else ``"compute roof"``."""
    if not len(t) or "peak_flops_per_s" not in t:
        return []
    peak = pd.to_numeric(t["peak_flops_per_s"], errors="coerce")
    ridge = pd.to_numeric(t["ridge_point"], errors="coerce") if "ridge_point" in t else pd.Series(np.nan, t.index)
    keys = roof_keys(s, t)
    out: dict[str, tuple[float, float | None]] = {}
    for k, p, r in zip(keys, peak, ridge):
        if not (p == p and p > 0):
            continue
        k = k or "compute roof"
        if k not in out:
            out[k] = (float(p), float(r) if r == r and r > 0 else None)
    return sorted(((k, p, r) for k, (p, r) in out.items()), key=lambda x: -x[1])


def reference_roofs(s: SourceReport, judged_bw: list[float], with_compute: bool
                    ) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """Roofs drawn for reference only: (compute [(key, FLOP/s)] when ``with_compute``, memory [(label, B/s)]) from
    the device spec's figures and the hierarchical roofline's cache levels, less the bandwidths already judged."""
    d = s.device
    figs = getattr(d, "figures", None) or {}
    compute = []
    if with_compute:
        seen: set[float] = set()
        for prec in DEFAULT_PRECISIONS:
            for kind in ("matrix", "vector"):
                v = _figure(d, f"{kind}.{prec}")
                if v and v not in seen:
                    seen.add(v)
                    compute.append((f"{kind}.{prec}", v))
    memory: list[tuple[str, float]] = []
    for key in sorted(figs):
        v = _figure(d, key) if key.endswith("_bandwidth") else None
        if v and v not in judged_bw:
            memory.append((_LEVEL_NAMES.get(key, key.removesuffix("_bandwidth").replace("_", " ")), v))
    r = s.results.get("roofline")
    for lvl in (r.summary.get("cache_levels") or []) if r is not None else []:
        if isinstance(lvl, dict):
            bw = lvl.get("bytes_per_s") or lvl.get("bandwidth") or lvl.get("peak_bytes_per_s")
            name = lvl.get("level") or lvl.get("name")
            if isinstance(bw, (int, float)) and bw > 0 and name and name not in [m[0] for m in memory]:
                memory.append((str(name), float(bw)))
    return sorted(compute, key=lambda c: -c[1]), sorted(memory, key=lambda m: -m[1])


def _bound(v: Any) -> str:
    return v if isinstance(v, str) and v in ("compute", "memory") else "below"


def verdict_words(s: SourceReport, ok: pd.DataFrame) -> pd.Series:
    """Per plotted kernel (``ok``'s rows), the verdict table's word for it (its ``verdict`` column:
    "latency/occupancy-bound", "below-roofs", "undetermined"…), "" where the verdicts result has no row for it."""
    vd = s.results.get("verdicts")
    t = getattr(vd, "table", None)
    words: dict[str, str] = {}
    if vd is not None and not getattr(vd, "skipped", False) and isinstance(t, pd.DataFrame) \
            and {"name", "verdict"} <= set(t.columns):
        words = {str(n): str(v) for n, v in zip(t["name"], t["verdict"]) if not is_missing(v)}
    return pd.Series([words.get(str(n), "") for n in ok["name"]] if len(ok) else [], index=ok.index, dtype=object)


def _line(x: list[float], y: list[float], name: str, colour: str, dash: str, width: float, hover: str) -> dict:
    return {"type": "scatter", "x": x, "y": y, "mode": "lines", "name": name,
            "line": {"color": colour, "width": width, "dash": dash}, "hovertemplate": hover + "<extra></extra>"}


def roofline_page(s: SourceReport, max_rows: int) -> list[Any]:
    """The roofline chart (points and roofs) and its table; says what is missing when it is."""
    r = s.results.get("roofline")
    t = r.table if r is not None and not r.skipped else pd.DataFrame()
    vendor = str(getattr(s.device, "vendor", "") or "")
    num = {c: pd.to_numeric(t[c], errors="coerce") for c in ("arithmetic_intensity", "flops_per_s", "time_ns")
           if c in t}
    ok = t[(num["arithmetic_intensity"] > 0) & (num["flops_per_s"] > 0)] if len(t) else t
    judged = judged_roofs(s, t)
    bws = sorted({float(b) for b in pd.to_numeric(t.get("peak_bytes_per_s", pd.Series(dtype=float)),
                                                  errors="coerce").dropna() if b > 0}, reverse=True)
    ref_comp, ref_mem = reference_roofs(s, bws, with_compute=not judged)
    if not bws:  # no kernel judged: the device's DRAM/HBM figure is the memory roof drawn
        hbm = _figure(s.device, "memory_bandwidth")
        bws = [hbm] if hbm else []
        ref_mem = [m for m in ref_mem if m[1] != hbm]
    comp = judged or [(k, v, v / bws[0] if bws else None) for k, v in ref_comp]
    if not len(ok) and not comp:
        why = r.skipped_reason if r is not None and r.skipped else "no kernel has a FLOP figure"
        return [empty_html("Roofline", f"{why}; the device's peaks are not known either, so no roof can be drawn")]
    colour_of = {k: ROOF_COLOURS[i % len(ROOF_COLOURS)] for i, (k, _, _) in enumerate(comp)}
    data: list[dict] = []
    annotations: list[dict] = []
    shapes: list[dict] = []
    stake = _stake_by_name(s)
    tmax = float(num["time_ns"][ok.index].max()) if len(ok) else 1.0
    labels = dict(zip(t["name"].astype(str), short_names(t["name"].astype(str)))) if len(t) else {}
    links = KERNEL_LINKS.get()
    # points are labelled with the kernel's hot-kernel rank (#1 = most GPU time), short enough not to collide; the
    # caption names them, every point has its name on hover (the 15 largest are labelled)
    rank_of = hot_ranks(s)
    named = set(ok.assign(_t=num["time_ns"]).nlargest(15, "_t")["name"].astype(str)) if len(ok) else set()
    ais = [float(x) for x in ok["arithmetic_intensity"]] if len(ok) else []
    top = comp[0][1] if comp else max(float(x) for x in ok["flops_per_s"]) * 4
    low_ridge = min([c[1] / bws[0] for c in comp] if comp and bws else [1.0])
    lo = min([0.01] + [a / 4 for a in ais] + [low_ridge / 100])
    hi = max([1e4] + [a * 4 for a in ais])
    # the y axis spans the roofs' tops down to the memory roof's foot or the slowest point, whichever is lower
    fls = [float(x) for x in ok["flops_per_s"] if float(x) > 0] if len(ok) else []
    floor = min(fls + ([lo * min(bws)] if bws else []) + [top])
    merge = label_merge_decades(math.log10(hi / lo), math.log10(max(top, max(fls, default=top)) / floor))
    text_of = _point_labels(ok, num["time_ns"], rank_of, named, merge) if len(ok) else {}
    # explicit axis ranges (log10): the roofs' ends and every point, with room for the largest marker
    xr = [math.log10(lo), math.log10(hi)]
    yr = [math.log10(floor) - 0.3, math.log10(max([top] + fls)) + 0.3]
    radius = {str(n): 0.5 * max(6.0, MAX_MARKER_PX * math.sqrt(max(float(tn), 0.0) / max(tmax, 1.0)))
              for n, tn in zip(ok["name"], num["time_ns"][ok.index])} if len(ok) else {}
    by_time = ok.assign(_t=num["time_ns"]).sort_values("_t", ascending=False, kind="stable") if len(ok) else ok
    pos_of = place_point_labels([(str(n), math.log10(float(a)), math.log10(float(f)), radius[str(n)],
                                  text_of.get(str(n), "")) for n, a, f in
                                 zip(by_time["name"], by_time["arithmetic_intensity"], by_time["flops_per_s"])],
                                xr, yr) if len(ok) else {}
    # a label with no free spot is not printed over its neighbours: its point has its name on hover
    text_of = {n: (x if n in pos_of else "") for n, x in text_of.items()}
    keys = pd.Series(roof_keys(s, ok) if len(ok) else [], index=ok.index, dtype=object)
    order = {k: i for i, (k, _, _) in enumerate(comp)}
    # each legend entry carries the verdict table's word for its kernels (one definition): a point below both roofs
    # read "(latency / occupancy / launch)" beside a verdict "below-roofs" (no cause measured) or "undetermined"
    verdict = verdict_words(s, ok)
    groups = sorted({(k, _bound(b), v) for k, b, v in zip(keys, ok["bound"], verdict)} if len(ok) else set(),
                    key=lambda g: (order.get(g[0], 99), list(BOUND_STYLE).index(g[1]), g[2]))
    for key, bkey, vword in groups:
        g = ok[((keys == key) if key is not None else keys.isna()).to_numpy()
               & (ok["bound"].map(_bound) == bkey).to_numpy() & (verdict == vword).to_numpy()]
        symbol, legend = BOUND_STYLE[bkey]
        symbol = VERDICT_SYMBOL.get(vword, symbol)
        if vword and vword != legend:  # "compute-bound" beside a verdict compute-bound: said once
            legend = f"{legend} · verdict {plot_text(vword)}"
        judged_by = roof_label(key, vendor)
        # FLOPs over partial FP counters: the AI and FLOP/s are lower bounds, "≥" as in the table below
        ge = lambda text, lb: ge_mark(text) if isinstance(lb, str) and lb else text  # noqa: E731
        hover = [f"<b>{_tag(rank_of, n)}{plot_text(labels[str(n)])}</b><br>arithmetic intensity "
                 f"{ge(fmt_unit(ai, 'FLOP/B'), lb)} · "
                 f"{ge(fmt_si(float(fl), 'FLOP/s'), lb)}<br>{fmt_unit(rp, '%')} of its roof · {fmt_ns(tn)}"
                 + (f" · {fmt_ns(stake[str(n)])} at stake" if str(n) in stake else "")
                 + f"<br>judged against {plot_text(judged_by)} {fmt_si(pk, 'FLOP/s')}, ridge {fmt_unit(rg, 'FLOP/B')}"
                 + _unit_hover(u, bp, ref_mem)
                 # its % of roof says another bound than its own: the measured speed of light decided (the note
                 # under the table says why) — never "53.5 % of its roof · 75.92 µs at stake" unexplained
                 + ("<br>the measured speed of light, not this % of roof, decides its bound (note under the table)"
                    if isinstance(pn, str) and pn else "")
                 for n, ai, fl, rp, tn, pk, rg, u, bp, lb, pn in zip(
                     g["name"], g["arithmetic_intensity"], g["flops_per_s"], g["roof_pct"], g["time_ns"],
                     g["peak_flops_per_s"], g.get("ridge_point", pd.Series(np.nan, g.index)),
                     g.get("bound_unit", pd.Series(None, g.index, dtype=object)),
                     g.get("bound_pct", pd.Series(np.nan, g.index)),
                     g.get("flops_lower_bound", pd.Series(None, g.index, dtype=object)),
                     g.get("placement_note", pd.Series(None, g.index, dtype=object)))]
        data.append({"type": "scatter", "x": g["arithmetic_intensity"].astype(float).tolist(),
                     "y": g["flops_per_s"].astype(float).tolist(), "mode": "markers+text",
                     "name": f"{legend} · vs {judged_by}",
                     "text": [text_of.get(str(n), "") for n in g["name"]],
                     "textposition": [pos_of.get(str(n), "middle right") for n in g["name"]],
                     "textfont": {"size": LABEL_FONT_PX},
                     "customdata": [links.get(str(n), "") for n in g["name"]],
                     "marker": {"size": g["time_ns"].astype(float).tolist(), "sizemode": "area", "sizemin": 6,
                                "sizeref": 2.0 * max(tmax, 1.0) / MAX_MARKER_PX ** 2, "color": colour_of.get(key, GREY),
                                "symbol": symbol, "line": {"color": "#000000", "width": 0.7}},
                     "hovertext": hover, "hoverinfo": "text"})
    sm = r.summary if r is not None and not r.skipped else {}
    measured = "memory_bandwidth" in (sm.get("measured_roofs") or [])
    # beside achievable compute roofs the legend says the memory roof's basis (roofline_heading says it in words)
    filed = "memory_bandwidth" in (sm.get("spec_file_roofs") or [])
    mem_basis = ", measured" if measured else ", spec file" if filed else ", datasheet" if sm.get("achievable_roofs") \
        else ""
    for i, bw in enumerate(bws):
        data.append(_line([lo, top / bw], [lo * bw, top], f"HBM/DRAM {fmt_si(bw, 'B/s')} (memory roof{mem_basis})",
                          "#000000", ("solid", "dash")[min(i, 1)], 2.0, f"HBM/DRAM roof: {fmt_si(bw, 'B/s')}"))
    for label, bw in ref_mem:
        data.append(_line([lo, top / bw], [lo * bw, top], f"{plot_text(label)} {fmt_si(bw, 'B/s')} (reference)",
                          "#AAAAAA", "dot", 1.0, f"{plot_text(label)}: {fmt_si(bw, 'B/s')} (reference, not judged)"))
    roof_notes: list[tuple[float, str, str]] = []
    n_ridges = 0
    for i, (key, peak, ridge) in enumerate(comp):
        x0 = ridge if ridge else (peak / bws[0] if bws else lo)
        what = "" if judged else " (reference)"
        label = roof_label(key, vendor)
        data.append(_line([x0, hi], [peak, peak], f"{plot_text(label)} {fmt_si(peak, 'FLOP/s')}{what}",
                          colour_of[key], ROOF_DASHES[i % len(ROOF_DASHES)], 2.0,
                          f"{plot_text(label)} roof: {fmt_si(peak, 'FLOP/s')}{what}"))
        roof_notes.append((math.log10(peak), colour_of[key], margin_label(key, peak, vendor)))
        if ridge:
            # the ridge's label sits above the plot (the top margin holds nothing else) at the end of a dotted line
            # up from its ridge point, one row per roof: at the plot's foot it ran into the labels of slow points
            # (a shape on a log axis takes the data value, an annotation its log10: plotly's convention)
            shapes.append({"type": "line", "xref": "x", "yref": "paper", "x0": ridge, "x1": ridge, "y0": 0, "y1": 1,
                           "layer": "below",
                           "line": {"color": colour_of[key], "width": 1, "dash": "dot"}})
            right = (math.log10(ridge) - xr[0]) > 0.5 * (xr[1] - xr[0])  # past the middle: the text runs left
            annotations.append({"x": math.log10(ridge), "xref": "x", "y": 1, "yref": "paper", "yanchor": "bottom",
                                "xanchor": "right" if right else "left", "xshift": -3 if right else 3,
                                "yshift": 2 + RIDGE_ROW_PX * n_ridges, "showarrow": False,
                                "font": {"size": 10, "color": colour_of[key]}, "bgcolor": "rgba(255,255,255,0.8)",
                                "text": f"ridge {fmt_unit(ridge, 'FLOP/B')} · {plot_text(label)}"})
            n_ridges += 1
    annotations += roof_annotations(roof_notes, yr)
    legend_px = LEGEND_ROW_PX  # one row; the page script adds the rows plotly drew past it (fitLegend)
    right_px = 14 + CHAR_PX * 10 / 12 * max([len(ln) for _, _, text in roof_notes for ln in text.split("<br>")]
                                             + [0])
    # the figure is as tall as the plot (PLOT_MIN_PX at least), the ridge rows above it and the legend under it on
    # the narrowest window: plotly takes a legend's room from the plot, which a 5-row legend squeezed to 60 px
    # (70 px: the x ticks and title; 30 px: the legend's padding)
    top_px = 12 + RIDGE_ROW_PX * n_ridges
    layout = {"height": int(PLOT_MIN_PX[1] + top_px + 70 + legend_px + 30), "hovermode": "closest",
              "margin": {"l": 10, "r": int(right_px), "t": int(top_px), "b": 40},
              "legend": {"orientation": "h", "x": 0, "y": -70 / PLOT_MIN_PX[1], "yanchor": "top"},
              "annotations": annotations, "shapes": shapes,
              "xaxis": {"type": "log", "title": {"text": "arithmetic intensity [FLOP/B]"}, "dtick": 1,
                        "tickformat": "~g", "automargin": True, "range": xr},
              "yaxis": {"type": "log", "title": {"text": "attained performance [FLOP/s]"}, "dtick": 1,
                        "tickformat": "~s", "automargin": True, "range": yr}}
    drawn = {tag for x in text_of.values() for tag in x.split()}
    shown = {n for n in named if _tag(rank_of, n).strip() in drawn}
    take = _takeaway(s, r, t, ok, comp, judged, bws, keys, vendor, rank_of, shown, labels, len(named - shown))
    take += cache_bound_note(ok, labels, rank_of, ref_mem)
    cols = ["name", "calls", "time_ns", "flops_per_s", "bytes_per_s", "arithmetic_intensity", "precision",
            "compute_roof", "peak_flops_per_s", "bound", "bound_basis", "bound_pct", "bound_pct_unit", "roof_pct",
            "ridge_point", "flops_source"]
    # a cached report from before
    cols = [c for c in cols if c in t.columns or c not in ("bound_basis", "bound_pct", "bound_pct_unit")]
    if "flops_lower_bound" in t and t["flops_lower_bound"].notna().any():
        cols.append("flops_lower_bound")  # which FP counters were not collected: the FLOPs a lower bound
    if not bound_pct_differs(t):  # on a roofline basis bound_pct is roof_pct: one figure, one column
        cols = [c for c in cols if c not in ("bound_pct", "bound_pct_unit")]
    differ = (pd.to_numeric(t["datasheet_roof_pct"], errors="coerce")
              - pd.to_numeric(t["roof_pct"], errors="coerce")).abs() >= 0.5 if len(t) and "datasheet_roof_pct" in t \
        else pd.Series(dtype=bool)
    if differ.any():
        cols.insert(cols.index("roof_pct") + 1, "datasheet_roof_pct")  # judged at an achievable peak: both shares
    shown = t.assign(compute_roof=t["compute_roof"].map(lambda k: roof_label(k, vendor))) \
        if len(t) and "compute_roof" in t else t
    shown = roofline_display(shown)  # a measured memory bound names its cache level ("memory (L1)")
    shown, why = roof_note_display(shown, max_rows)  # a kernel above its roof: "unknown †", the reason below
    docs = dict(r.columns) if r is not None else {}
    docs.setdefault("compute_roof", "the compute roof the kernel is judged against [text]")
    tbl = table_html(shown, cols, max_rows, docs=docs, headers={"compute_roof": "judged against",
                                                                   "peak_flops_per_s": "its roof"}) if len(t) else ""
    tbl += "".join(f'<p class="note">{esc(line)}</p>' for line in why)
    note = (empty_html("Roofline points", "analysis not available (no analyzer produced it for this input)")
            if r is None else empty_html("Roofline points", str(r.skipped_reason)) if r.skipped else "")
    return [Panel("Roofline of the hot kernels", take, {"data": data, "layout": layout}, tbl, note=note)]


def _comm_left_out(s) -> str:
    """" (the N critical kernels less K communication kernels, which have no roofline)" when the critical set holds
    collectives (the roofline's hot kernels are its compute kernels), else "" — so its count reads against the
    summary's critical-kernel count."""
    hs = s.results.get("hotspots")
    if hs is None or hs.skipped or hs.table is None or not {"critical", "kind"} <= set(hs.table.columns):
        return ""
    crit = hs.table["critical"].to_numpy(dtype=bool)
    comm = int((crit & (hs.table["kind"].astype(str) == "comm").to_numpy()).sum())
    if not comm:
        return ""
    many = comm > 1
    return (f" (the {int(crit.sum())} critical kernels less {comm} communication kernel{'s' if many else ''}, "
            f"which {'have' if many else 'has'} no roofline)")


def _left_out(t: pd.DataFrame, ok: pd.DataFrame) -> str:
    """Why the hot kernels not plotted are not (a point needs an arithmetic intensity and an attained FLOP/s above 0
    on the log axes), counted per reason: "1 with 0 FLOPs (data movement only: no point on the log axes)", "2
    without a FLOP/byte figure", "1 without a duration (no attained FLOP/s)". A copy kernel (omniperf vecCopy: 0
    FLOP/B) was counted "without a FLOP/byte figure" beside its 0 FLOP/B in the table."""
    rest = t.drop(index=ok.index)
    ai = pd.to_numeric(rest.get("arithmetic_intensity", pd.Series(np.nan, index=rest.index)), errors="coerce")
    fs = pd.to_numeric(rest.get("flops_per_s", pd.Series(np.nan, index=rest.index)), errors="coerce")
    zero = (ai == 0) | (fs == 0)
    no_ai = ai.isna() & ~zero
    no_time = ~zero & ~no_ai
    parts = [(int(zero.sum()), "with 0 FLOPs (data movement only: no point on the log axes)"),
             (int(no_ai.sum()), "without a FLOP/byte figure"),
             (int(no_time.sum()), "without an attained FLOP/s (no duration)")]
    return ", ".join(f"{n} {text}" for n, text in parts if n)


def _takeaway(s, r, t, ok, comp, judged, bws, keys, vendor, rank_of, named, labels, hover_only=0) -> str:
    n_hot = len(t)
    missing = n_hot - len(ok)
    below = int((ok["bound"].map(_bound) == "below").sum()) if len(ok) else 0
    head = f"{roofline_heading(r.summary)}. " if r is not None and not r.skipped else ""
    if n_hot:
        count = {k: int((keys == k).sum()) for k, _, _ in comp} if len(ok) else {}
        roofs = "; ".join(f"{roof_label(k, vendor)} {fmt_si(p, 'FLOP/s')}: {count.get(k, 0)} plotted"
                          for k, p, _ in judged)
        take = (head + f"{len(ok)} of {plural(n_hot, 'hot kernel(s)')}{_comm_left_out(s)} plotted ({below} below both roofs"
                + _measured_note(ok) + "); "
                "marker area is GPU time, colour the compute roof each kernel is judged against, shape its verdict."
                + (f" Compute roofs judged against: {roofs}." if roofs else "")
                + (f" Memory roof: HBM/DRAM {fmt_si(bws[0], 'B/s')}." if bws else "")
                + (f" Only in the table: {_left_out(t, ok)}." if missing else ""))
    else:
        take = "No hot kernel has a FLOP figure; the roofs of the device are drawn for reference."
    key = [(rank_of.get(str(n), 10 ** 9), str(n)) for n in ok["name"] if str(n) in named] if len(ok) else []
    if key:
        take += " Labels: " + "; ".join(f"{_tag(rank_of, n).strip()} {labels[n]}" for _, n in sorted(key)) + "."
    if hover_only:
        take += (f" {plural(hover_only, 'crowded point(s)')} of the {len(key) + hover_only} largest "
                 f"{'have their names' if hover_only > 1 else 'has its name'} on hover only (no room for a label).")
    legend = bound_pct_legend(t)  # the table's two percentages, said as console and Markdown say them
    return f"{take} {legend}" if legend else take


def _measured_note(ok: Any) -> str:
    """How many plotted kernels take their bound from the measured speed of light (ncu's SM and memory throughput)
    rather than from their place against the roofs, said beside the count: such a point can sit at half of a roof
    and still read "below both roofs" (its measured throughputs are low), and the chart alone would not say why."""
    from gpulens.analyzers.roofline import MEASURED

    if not len(ok) or "bound_basis" not in ok:
        return ""
    n = int((ok["bound_basis"] == MEASURED).sum())
    its = "its" if n == 1 else "their"
    return (f"; the bound of {n} from {its} measured speed of light (SM and memory throughput), not from {its} "
            "place against the roofs") if n else ""


def _unit_drawn(unit: str, ref_mem: list[tuple[str, float]]) -> bool:
    """Whether the chart draws a (reference) line for the cache ``unit`` ("L1/TEX", "L2")."""
    head = unit.split("/")[0]
    return any(str(label).split(" ")[0].split("/")[0] == head for label, _ in ref_mem)


def _unit_hover(unit: Any, bound_pct: Any, ref_mem: list[tuple[str, float]]) -> str:
    """A point's hover line naming the cache its measured memory bound is at ("" when none): its position on this
    chart is its DRAM arithmetic intensity, so the chart alone shows it far below the DRAM roof."""
    if is_missing(unit) or not str(unit):
        return ""
    where = ("drawn for reference only" if _unit_drawn(str(unit), ref_mem) else "a level this chart does not draw")
    return (f"<br>memory-bound on {plot_text(str(unit))} ({fmt_unit(bound_pct, '%')} of its peak, measured): "
            f"{where}; the point sits at its DRAM arithmetic intensity")


def cache_bound_note(ok: Any, labels: dict, rank_of: dict, ref_mem: list[tuple[str, float]]) -> str:
    """" gemm_wmma (#2) is memory-bound on L1/TEX (99.7 % of its peak, measured), a level this chart does not draw:
    its point sits at its DRAM arithmetic intensity, far from the roof that bounds it." for every plotted kernel
    whose verdict puts its memory bound at a cache (the roofline table's ``bound_unit``); "" when none. The chart and
    the verdict then say the same thing: the H200 ncu CSV's gemm_wmma read "L1-bound" in its verdict while the chart
    showed it at 3.5 % of the DRAM/compute roofs with no L1 roof."""
    if not len(ok) or "bound_unit" not in ok:
        return ""
    parts = []
    for n, u, bp in zip(ok["name"].astype(str), ok["bound_unit"], ok.get("bound_pct", pd.Series(np.nan, ok.index))):
        if is_missing(u) or not str(u):
            continue
        where = ("drawn here for reference only (dotted)" if _unit_drawn(str(u), ref_mem) else
                 "a level this chart does not draw (no bandwidth figure for it)")
        parts.append(f"{_tag(rank_of, n)}{labels.get(n, n)} is memory-bound on {u} ({fmt_unit(bp, '%')} of its peak, "
                     f"measured), {where}: its point sits at its DRAM arithmetic intensity, not on the roof that "
                     "bounds it")
    return (" " + "; ".join(parts) + ".") if parts else ""


def _point_labels(ok: pd.DataFrame, time_ns: pd.Series, rank_of: dict, named: set,
                  merge: tuple[float, float] = (LABEL_MERGE_DECADES, LABEL_MERGE_DECADES)) -> dict[str, str]:
    """Kernel name → the text beside its point: its rank tag (``#3``), the tags of the labelled points that lie
    (nearly) on top of it — within ``merge`` decades on the x and y axes (:func:`label_merge_decades`) — joined on
    the one with the most time (``#2 #13``), empty for the others and for points not labelled."""
    if not len(ok):
        return {}
    pts = ok.assign(_t=time_ns.reindex(ok.index).astype(float)).sort_values("_t", ascending=False, kind="stable")
    leaders: list[tuple[float, float, list[str]]] = []
    out: dict[str, str] = {}
    for n, ai, fl in zip(pts["name"].astype(str), pts["arithmetic_intensity"], pts["flops_per_s"]):
        if n not in named or not (ai and fl and ai > 0 and fl > 0):
            continue
        x, y, tag = float(np.log10(float(ai))), float(np.log10(float(fl))), _tag(rank_of, n).strip()
        for lx, ly, tags in leaders:
            if abs(lx - x) < merge[0] and abs(ly - y) < merge[1]:
                tags.append(tag)
                out[n] = ""
                break
        else:
            leaders.append((x, y, [tag]))
            out[n] = tag
    for lx, ly, tags in leaders:
        if len(tags) > 1:
            head = tags[0]
            joined = " ".join(sorted((t for t in tags if t), key=lambda t: int(t[1:]) if t[1:].isdigit() else 0))
            for k, v in out.items():
                if v == head:
                    out[k] = joined
                    break
    return out


def margin_label(key: Any, peak: float, vendor: str = "") -> str:
    """A compute roof's label in the margin right of the plot, at the roof's height: its unit and precision, its
    figure, and "achievable" for an achievable peak, one per line (``"matrix bf16<br>989.40 TFLOP/s"``); the legend
    entry of the same colour and dash gives the full name (tensor cores / CUDA cores; MFMA / SIMD)."""
    k = "" if is_missing(key) else str(key)
    unit, _, prec = k.removeprefix("achievable.").partition(".")
    name = f"{unit} {prec}" if unit in ("matrix", "vector") and prec else roof_label(key, vendor)
    lines = [plot_text(name, 18), fmt_si(peak, "FLOP/s")] + (["achievable"] if k.startswith("achievable.") else [])
    return "<br>".join(lines)


def _tag(rank_of: dict[str, int], name: Any) -> str:
    r = rank_of.get(str(name))
    return f"#{r} " if r else ""


def _stake_by_name(s: SourceReport) -> dict[str, float]:
    vd = s.results.get("verdicts")
    if vd is None or vd.skipped or "time_at_stake_ns" not in vd.table:
        return {}
    return {str(n): v for n, v in zip(vd.table["name"], vd.table["time_at_stake_ns"]) if not is_missing(v)}


__all__ = ["roofline_page", "roof_keys", "judged_roofs", "reference_roofs", "roof_label", "BOUND_STYLE", "GREY"]
