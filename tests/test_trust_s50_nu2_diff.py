"""Second new-user trial (s50), ``gpulens diff``: an assumed GPU that differs from the other run's is said in every
output, and a part of the change that rounds to zero never prints as "-0.0 %" (one signed-percent rule, console,
Markdown and HTML)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pandas as pd
import pytest

from gpulens.diff import diff
from gpulens.diff.compute import DiffSide
from gpulens.reports.diff import fmt_cell, render_console, render_html, render_markdown, render_json
from gpulens.units import signed_pct_text

DATA = Path(__file__).resolve().parent / "data" / "kineto"
BASE, CAND = DATA / "hta_trace_compare_base.json.gz", DATA / "hta_alexnet_a100.json.gz"


@pytest.fixture(scope="module")
def result():
    return diff(BASE, CAND, top=40)  # every contributor row shown: the Memset row among them


def test_the_inputs_are_what_the_test_assumes():
    """The base names no GPU (no deviceProperties); the candidate records an A100 with 108 SMs."""
    base, cand = (json.load(gzip.open(p)) for p in (BASE, CAND))
    assert "deviceProperties" not in base
    assert {d["name"] for d in cand["deviceProperties"]} == {"NVIDIA A100-PG509-200"}
    assert {d["numSms"] for d in cand["deviceProperties"]} == {108}


def test_an_assumed_gpu_that_differs_is_said_in_every_output(result):
    said = [w for w in result.warnings if "likely on different GPUs" in w]
    assert len(said) == 1 and "assumed" in said[0] and "A100" in said[0]
    for text in (render_console(result), render_markdown(result), render_html(result), render_json(result)):
        assert "likely on different GPUs" in text


def _side(devices, analysed, assumed):
    return DiffSide("x", pd.DataFrame(), devices, "", [], analysed_as=analysed,
                    assumed=assumed)


@pytest.mark.parametrize("base, cand, warned", [
    # the same assumed spec on both sides: nothing tells the GPUs apart
    ((["NVIDIA A100 40GB SXM"], ["NVIDIA A100 40GB SXM"]), (["NVIDIA A100 40GB SXM"], ["NVIDIA A100 40GB SXM"]), False),
    # an assumed A100 beside a recorded H100 (its name is its own spec)
    ((["NVIDIA A100 40GB SXM"], ["NVIDIA A100 40GB SXM"]), (["NVIDIA H100 80GB HBM3"], []), True),
    # no assumption on either side: the recorded names decide (the existing different-GPU warning)
    ((["NVIDIA A100 40GB SXM"], []), (["NVIDIA H100 80GB HBM3"], []), False),
])
def test_assumed_spec_rule(base, cand, warned):
    from gpulens.diff._labels import assumed_gpu_differs
    b = _side([] if base[1] else base[0], base[0] if base[1] else [], base[1])
    c = _side([] if cand[1] else cand[0], cand[0] if cand[1] else [], cand[1])
    assert bool(assumed_gpu_differs(b, c)) is warned


def test_tiny_negative_share_is_never_minus_zero(result):
    """Memset: 27 µs over 6 events in the base, 8 µs over 3 in the candidate (the traces' ``dur``): Δ = -19 µs of a
    Σ|Δ| of tens of ms, a part of about -0.03 %: "-<0.1 %", never "-0.0 %", in every output."""
    base, cand = (json.load(gzip.open(p))["traceEvents"] for p in (BASE, CAND))
    memset = [sum(e.get("dur", 0) for e in ev if e.get("name", "").startswith("Memset")) for ev in (base, cand)]
    assert memset == [27, 8]
    k = result.tables["kernels"]
    row = k[k["kernel"].astype(str).str.startswith("Memset")].iloc[0]
    assert row["delta_ns"] == pytest.approx((8 - 27) * 1000)
    assert -0.05 < 100 * row["contribution"] < 0
    for text in (render_console(result, top=40), render_markdown(result, top=40), render_html(result)):
        assert "-0.0 %" not in text and "+0.0 %" not in text
        import html as _html

        assert "-<0.1 %" in _html.unescape(text).replace("\\<", "<")  # HTML escapes "<", Markdown backslashes it


@pytest.mark.parametrize("pct, want", [(-0.0294, "-<0.1 %"), (0.0294, "+<0.1 %"), (-0.05, "-0.1 %"),
                                       (0.0, "+0.0 %"), (-0.0, "+0.0 %"), (12.34, "+12.3 %"), (-4.0, "-4.0 %")])
def test_signed_pct_text(pct, want):
    assert signed_pct_text(pct) == want
    assert fmt_cell(pct / 100, "signed share") == want
    assert fmt_cell(pct, "%") == want
