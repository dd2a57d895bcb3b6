"""A bar chart's labels fit inside the chart: a long part name is not cut off at the chart's left edge.

Kind: the summary's "Where the GPU time went" chart drew labels right-aligned at a fixed x of 182 px; the part
"idle: one-off gaps (left out of the verdict)" (44 characters, about 6–7 px each at 13 px) needs ~290 px, so its
start was drawn at a negative x, outside the SVG (seen in the AlexNet report's screenshot). Expected: the label's
right edge leaves at least 6.5 px per character to its left, for every label.
"""

from __future__ import annotations

import re

from gpulens.reports._html_parts import svg_bars


def test_long_labels_start_inside_the_chart():
    rows = [("computation", 10.0, "10 ms", "#1f77b4"),
            ("idle: one-off gaps (left out of the verdict)", 100.0, "100 ms", "#d9d9d9")]
    svg = svg_bars(rows)
    anchors = [(float(x), label) for x, label in
               re.findall(r'<text x="([0-9.]+)" y="[0-9.]+" text-anchor="end">([^<]*)</text>', svg)]
    assert len(anchors) == 2
    for x, label in anchors:
        assert x - 6.5 * len(label) >= 0, (x, label)
    # the bars keep their length scale: the largest bar spans the same drawing area as with short labels
    short = svg_bars([("a", 10.0, "10 ms", "#000"), ("b", 100.0, "100 ms", "#000")])
    width = lambda s: max(float(w) for w in re.findall(r'<rect x="[0-9.]+" y="[0-9.]+" width="([0-9.]+)"', s))
    assert width(svg) == width(short)
