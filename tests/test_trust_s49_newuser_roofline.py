"""The roofline chart's points: one marker per verdict (session 49 new-user check, item 4).

On the packaged demo trace two legend entries, "below both roofs · verdict below-roofs" and "below both roofs ·
verdict latency/occupancy-bound", had the same colour and the same square marker while the caption said that shape
is the bound: two verdicts a reader could not tell apart. The kind of fault: legend entries that differ in meaning
but not in look. Expected: every point group's (symbol, colour) pair is its own, a verdict's symbol is one across
groups, and each kernel's symbol is the one of its row in the verdicts table (read from that table, not the chart).
"""

from __future__ import annotations

from pathlib import Path

import gpulens
from gpulens.report import analyze
from gpulens.reports._html_roofline import roofline_page
from tests.test_trust_s33_share_ridge import _figure  # the plotly figure inside a rendered page part

DEMO = Path(gpulens.__file__).parent / "data" / "demo_h100_bert-small.pt.trace.json.gz"


def test_each_verdict_has_its_own_marker_on_the_demo_roofline():
    src = analyze([DEMO]).sources[0]
    fig = _figure(roofline_page(src, 50))
    points = [d for d in fig["data"] if d.get("mode") == "markers+text"]
    # the demo's plotted kernels carry at least two verdicts below both roofs (the case the new user saw)
    assert len({d["name"] for d in points}) == len(points) >= 3
    looks = [(d["marker"]["symbol"], d["marker"]["color"]) for d in points]
    assert len(set(looks)) == len(looks), list(zip([d["name"] for d in points], looks))
    # one mapping: a verdict's symbol is the same in every group, and no two verdicts share one; the verdict of a
    # group is its kernels' row in the verdicts table (the legend quotes it)
    verdict_of = dict(zip(src.results["verdicts"].table["name"].astype(str),
                          src.results["verdicts"].table["verdict"].astype(str)))
    symbol_of_verdict: dict[str, set] = {}
    for d in points:
        word = d["name"].split("verdict ", 1)[1].split(" · vs ")[0] if "verdict " in d["name"] else \
            d["name"].split(" · vs ")[0]
        assert word in set(verdict_of.values()), (word, d["name"])
        symbol_of_verdict.setdefault(word, set()).add(d["marker"]["symbol"])
    assert all(len(v) == 1 for v in symbol_of_verdict.values()), symbol_of_verdict
    assert len({next(iter(v)) for v in symbol_of_verdict.values()}) == len(symbol_of_verdict)
    assert {"below-roofs", "latency/occupancy-bound"} <= set(symbol_of_verdict), symbol_of_verdict
