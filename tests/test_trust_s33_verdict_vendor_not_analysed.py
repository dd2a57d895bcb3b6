"""The reports' "Not analysed" list names only what applies to the run's GPU vendor: on an AMD input, Nsight Compute's
rules (an NVIDIA tool's analysis) were listed as not analysed — nothing an AMD user could collect would fill it.
Their AMD counterpart, rocprof-compute's analysis, is named in the skip reason that stays in the JSON.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import gpulens
from gpulens.reports import html, markdown
from tests.test_trust_s33_verdict_graph_launch import _trace

SGL = Path(__file__).parent / "data" / "kineto" / "tracelens_mi300x_sglang_qwen3_decode.json.gz"


def test_amd_run_does_not_list_nvidia_rules():
    if not SGL.exists():
        pytest.skip("SGLang MI300X trace not present")
    rep = gpulens.analyze([SGL])
    r = rep.sources[0].results["ncu_rules"]
    assert r.skipped and not r.applies and "rocprof-compute" in r.skipped_reason
    md = markdown.render(rep)
    assert "### Not analysed" in md  # other analyses are still listed (no ProfilerStep marks, no counters ...)
    assert "Nsight Compute" not in md
    assert "Nsight Compute" not in html.render(rep)


def test_unknown_vendor_run_still_lists_them(tmp_path):
    rep = gpulens.analyze([_trace(tmp_path)])  # no device recorded: the rules may apply
    assert rep.sources[0].results["ncu_rules"].applies
    assert "Nsight Compute rules: no Nsight Compute rule results" in markdown.render(rep)
