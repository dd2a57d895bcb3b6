"""A roofline whose compute roof is an achievable peak says that its memory roof is the datasheet's.

Kind (new-user walk): the MI300X chart drew "matrix bf16 (MFMA, achievable peak) 708 TFLOP/s" beside "HBM/DRAM
5.30 TB/s (memory roof)" — the datasheet bandwidth — and only the compute basis was said. Two bases move the ridge
point (compute roof / memory roof) left of an all-achievable one. The premise is read from the analysis here: the
summary lists achievable compute roofs and no measured memory roof.
"""

from __future__ import annotations

import gpulens
from gpulens.reports import html
from gpulens.reports._format import roofline_heading
from tests.conftest import KINETO


def test_mixed_bases_are_named():
    rep = gpulens.analyze([KINETO / "tracelens_mi300x_bert-small.json.gz"])
    sm = rep.sources[0].results["roofline"].summary
    assert sm["achievable_roofs"] and "memory_bandwidth" not in (sm.get("measured_roofs") or [])
    assert "the memory roof is the datasheet bandwidth" in roofline_heading(sm)
    assert "(memory roof, datasheet)" in html.render(rep)


def test_datasheet_only_roofline_adds_nothing():
    sm = {"coverage": 1.0, "device": "NVIDIA H100 SXM", "achievable_roofs": [], "measured_roofs": []}
    assert "memory roof" not in roofline_heading(sm)
