"""The roofline chart's ridge labels never overlap the roof labels (s33 review: the vector roof's ridge label, drawn
with an arrow above its ridge point, ran into the matrix roof's label a few dozen pixels higher). Ridge labels sit
above the plot (s35: at its foot they ran into the labels of slow points), one row per roof, at the top of a dotted
line at the ridge; roof labels sit in the margin right of the plot, at the roofs' heights.
Checked on GPT-2 on an H200 (matrix bf16 and vector fp32 roofs) and by a headless screenshot."""

from __future__ import annotations

import pytest

from gpulens.report import analyze


def _figure(o):
    if isinstance(o, dict) and "layout" in o and "data" in o:
        return o
    for a in (vars(o).values() if hasattr(o, "__dict__") else o if isinstance(o, (list, tuple)) else []):
        f = _figure(a)
        if f is not None:
            return f
    return None


def test_ridge_labels_sit_apart_from_the_roof_labels():
    from gpulens.reports._html_roofline import roofline_page
    from tests.conftest import DATA

    p = DATA / "nvidia" / "h200" / "h200_gpt2_train.pt.trace.json.gz"
    if not p.exists():
        pytest.skip("GPT-2 H200 trace absent")
    fig = _figure(roofline_page(analyze([p]).sources[0], 50))
    notes = fig["layout"]["annotations"]
    ridges = [a for a in notes if a["text"].startswith("ridge ")]
    roofs = [a for a in notes if a.get("xref") == "paper" and "FLOP/s" in a["text"]]
    assert len(ridges) == 2 and len(roofs) >= 2  # matrix bf16, vector fp32 (s48: PyTorch computes bf16 elementwise work in fp32)
    # ridge labels: above the plot (paper y 1, anchored at their bottom), each on its own row; roof labels: right of
    # the plot (paper x 1, anchored left) at their roof in data space
    assert all(a["yref"] == "paper" and a["y"] == 1 and a["yanchor"] == "bottom" and not a["showarrow"]
               for a in ridges)
    assert len({a["yshift"] for a in ridges}) == len(ridges)
    assert all(a.get("yref", "y") == "y" and a["x"] == 1 and a["xanchor"] == "left" for a in roofs)
    # the dotted line at each ridge: a shape on the log axis takes the ridge's own value (166 and 13.9 FLOP/B)
    lines = sorted(s["x0"] for s in fig["layout"]["shapes"])
    assert lines == pytest.approx(sorted(10 ** a["x"] for a in ridges))
