"""Roofline point labels never print over each other.

Labels ("#4") sit to the right of their point. Points closer than a label's box on the *drawn* axes share one
label ("#4 #5"). The box is fixed in pixels, so in decades it grows with the range the axes span: before, a fixed
0.06 decades merged only points almost on top of each other, and on TraceLens's MI300X BERT trace "#5" printed over
"#4" (two GEMMs 0.1 decades apart on a y axis spanning 4 decades, where a label is 0.18 decades tall).
"""

from __future__ import annotations

import math

import pandas as pd

from gpulens.reports._html_roofline import LABEL_BOX_PX, PLOT_AREA_PX, _point_labels, label_merge_decades
from tests.conftest import KINETO


def test_merge_distance_follows_the_axes():
    # 6 decades of x over 1000 px: a 30 px label is 0.18 decades wide; 4.1 decades of y over 340 px: 15 px is 0.181
    dx, dy = label_merge_decades(6.0, 4.1)
    assert math.isclose(dx, 6.0 * 30 / 1000) and math.isclose(dy, 4.1 * 15 / 340)
    assert (LABEL_BOX_PX, PLOT_AREA_PX) == ((30.0, 15.0), (1000.0, 340.0))
    assert label_merge_decades(0.5, 0.5) == (0.06, 0.06)  # a narrow axis keeps the floor for points on top


def test_points_a_label_height_apart_share_one_label():
    # "b" 0.1 decades above "a" (1.26×): under one label height on a 4.1-decade axis, so "#4 #5" on "a" (more time);
    # "c" 0.3 decades higher (2×) keeps its own label
    ok = pd.DataFrame({"name": ["a", "b", "c"], "arithmetic_intensity": [100.0, 104.0, 100.0],
                       "flops_per_s": [3e13, 3e13 * 10 ** 0.1, 6e13]})
    t = pd.Series([20.0, 10.0, 5.0])
    ranks = {"a": 4, "b": 5, "c": 2}
    got = _point_labels(ok, t, ranks, {"a", "b", "c"}, label_merge_decades(6.0, 4.1))
    assert got == {"a": "#4 #5", "b": "", "c": "#2"}
    assert _point_labels(ok, t, ranks, {"a", "b", "c"})["b"] == "#5"  # the fixed 0.06 decades left them apart


def test_mi300x_bert_labels_do_not_overlap(tmp_path):
    import gpulens
    from gpulens.reports.html import render

    html = render(gpulens.analyze([KINETO / "tracelens_mi300x_bert-small.json.gz"]))
    assert '"#4 #5"' in html or '"#4 #5",' in html
