"""Geometry of the HTML roofline chart's labels: which nearby points share a label, where each point's label goes
so it covers no marker and no other label, and where the compute roofs' labels sit in the right margin without
overlapping — pixel arithmetic on the plot sizes the page gives the chart (no plotly, no report data).

Split from :mod:`gpulens.reports._html_roofline` (the page itself), which re-exports these names.
"""

from __future__ import annotations

import math

from gpulens.reports._html_parts import CHAR_PX

#: Points closer than this on both log axes (decades) share one label: "#2 #13", not "#2" printed over "#13".
LABEL_MERGE_DECADES = 0.06
#: The plot area the chart gets on a laptop-width page (px, x and y: the 560 px figure less its legend and axis
#: titles) and the room one point label takes (``#12`` at 11 px, with the gap to the next line): labels of points
#: closer than that on the drawn axes would print over each other, whatever the decades the axes span.
PLOT_AREA_PX = (1000.0, 340.0)
LABEL_BOX_PX = (30.0, 15.0)


def label_merge_decades(x_decades: float, y_decades: float) -> tuple[float, float]:
    """(x, y) distances in decades under which two points' labels collide on axes spanning ``x_decades`` and
    ``y_decades`` (:data:`PLOT_AREA_PX`, :data:`LABEL_BOX_PX`); never below :data:`LABEL_MERGE_DECADES`."""
    return (max(LABEL_MERGE_DECADES, x_decades * LABEL_BOX_PX[0] / PLOT_AREA_PX[0]),
            max(LABEL_MERGE_DECADES, y_decades * LABEL_BOX_PX[1] / PLOT_AREA_PX[1]))


#: Largest marker diameter [px] (the kernel with most GPU time; area ∝ time) and the point labels' font size [px].
MAX_MARKER_PX, LABEL_FONT_PX = 40.0, 11
#: Height of one ridge-label row above the plot and of one legend row under it [px].
RIDGE_ROW_PX, LEGEND_ROW_PX = 15, 21
#: The smallest plot area (x, y) [px] the roofline gets: a 900-px-wide window (:data:`NARROW_CHART_PX` less the
#: axis titles, ticks and the roof labels' margin); the figure's height keeps the y size whatever the legend.
#: Label placement works on these lower bounds: on a larger plot the points only move apart, labels keep their size.
PLOT_MIN_PX = (600.0, 400.0)
#: Where a point's label may go, in order of preference (plotly ``textposition`` values).
LABEL_SPOTS = ("middle right", "middle left", "top center", "bottom center", "top right", "bottom right",
               "top left", "bottom left")


def roof_annotations(notes: list[tuple[float, str, str]], yr: list[float]) -> list[dict]:
    """Annotations of the compute roofs' labels in the right margin: ``notes`` are (log10 FLOP/s, colour, text);
    each label sits at its roof's height, shifted up (``yshift``, px) just enough that no two overlap on the
    smallest plot (:data:`PLOT_MIN_PX`; on a taller plot roofs only move further apart)."""
    px_per_dec = PLOT_MIN_PX[1] / max(yr[1] - yr[0], 1e-9)
    ordered = sorted(notes, key=lambda n: n[0])
    natural = [(y - yr[0]) * px_per_dec for y, _, _ in ordered]
    half = [(6.5 * (t.count("<br>") + 1) + 1) for _, _, t in ordered]
    centre: list[float] = []
    for i, c in enumerate(natural):  # bottom-up: each label above the previous one
        centre.append(max(c, centre[-1] + half[i - 1] + half[i]) if centre else c)
    top = PLOT_MIN_PX[1] + 8  # top-down: none above the plot's top while there is room below
    if centre and centre[-1] + half[-1] > top:
        centre[-1] = top - half[-1]
        for i in range(len(centre) - 2, -1, -1):
            centre[i] = min(centre[i], centre[i + 1] - half[i] - half[i + 1])
    return [{"x": 1, "xref": "paper", "xanchor": "left", "xshift": 4, "y": y, "yref": "y", "yanchor": "middle",
             "yshift": round(c - n, 1), "align": "left", "showarrow": False, "font": {"size": 10, "color": colour},
             "text": text}
            for (y, colour, text), c, n in zip(ordered, centre, natural)]


def _label_box(spot: str, x: float, y: float, r: float, w: float, h: float) -> tuple[float, float, float, float]:
    """The box (x0, y0, x1, y1) [px, y up] plotly draws a point's text in at ``spot`` for a marker of radius ``r``."""
    vert, _, horiz = spot.partition(" ")
    d = r * 0.71 if vert != "middle" and horiz != "center" else r  # a corner spot: off the marker's diagonal
    x0 = {"right": x + d + 2, "left": x - d - 2 - w, "center": x - w / 2}[horiz]
    y0 = {"middle": y - h / 2, "top": y + d + 1, "bottom": y - d - 1 - h}[vert]
    return x0, y0, x0 + w, y0 + h


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


#: Largest share of a point label's box that may lie over markers, other labels or off the plot (summed over the
#: plot sizes checked): a label with no spot under it is not drawn — its point keeps its name on hover.
LABEL_OVERLAP_MAX = 0.1


def place_point_labels(points: list[tuple[str, float, float, float, str]], xr: list[float], yr: list[float]
                       ) -> dict[str, str]:
    """Kernel name → plotly ``textposition`` of its label: the first of :data:`LABEL_SPOTS` where the label's box
    (its text at :data:`LABEL_FONT_PX`, :data:`~gpulens.reports._html_parts.CHAR_PX` per character) overlaps no
    marker, no label placed before it and stays on the plot — checked on the smallest plot (:data:`PLOT_MIN_PX`)
    and on a wide one (1000 px) — else the spot overlapping least, when that overlap is at most
    :data:`LABEL_OVERLAP_MAX` of the box; a label that fits nowhere is left out of the result (crowded points: the
    caller draws it on hover only, never printed over another). ``points`` are (name, log10 x, log10 y, marker
    radius px, label text), placed in the given order (the most GPU time first gets the first choice)."""
    scales = [(PLOT_MIN_PX[0], PLOT_MIN_PX[1]), (1000.0, PLOT_MIN_PX[1])]
    placed: list[list[tuple[float, float, float, float]]] = [[] for _ in scales]
    px = [[((x - xr[0]) / max(xr[1] - xr[0], 1e-9) * W, (y - yr[0]) / max(yr[1] - yr[0], 1e-9) * H, r)
           for _, x, y, r, _ in points] for W, H in scales]
    out: dict[str, str] = {}
    for i, (name, _, _, r, text) in enumerate(points):
        if not text:
            continue
        w, h = len(text) * CHAR_PX * LABEL_FONT_PX / 12 + 2, LABEL_FONT_PX + 3
        best, best_cost = LABEL_SPOTS[0], math.inf
        for spot in LABEL_SPOTS:
            cost = 0.0
            for k, (W, H) in enumerate(scales):
                x, y, _ = px[k][i]
                box = _label_box(spot, x, y, r, w, h)
                cost += sum(_overlap(box, (mx - mr, my - mr, mx + mr, my + mr))
                            for j, (mx, my, mr) in enumerate(px[k]) if j != i)
                cost += sum(_overlap(box, b) for b in placed[k])
                cost += w * h - _overlap(box, (0.0, 0.0, W, H))  # the part off the plot
            if cost < best_cost:
                best, best_cost = spot, cost
            if cost == 0:
                break
        if best_cost > LABEL_OVERLAP_MAX * w * h * len(scales):
            continue  # no room anywhere: hover only
        out[name] = best
        for k in range(len(scales)):
            x, y, _ = px[k][i]
            placed[k].append(_label_box(best, x, y, r, w, h))
    return out
