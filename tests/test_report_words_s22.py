"""Words a fresh user saw raw in the HTML report (H200 walk, 2026-12-04): "rank taken from none" on the Environment
tab, "stake note none" and "dram measured % not measured" (an AMD-only figure, beside the DRAM SOL that was
measured) on an ncu kernel's page. Expected texts are written here by hand."""

from __future__ import annotations

import html
import re

import gpulens
from gpulens.reports.html import render as render_html
from tests.conftest import DATA, KINETO

H200 = DATA / "nvidia" / "h200"


def _text(report) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", render_html(report)))


def test_a_rank_not_recorded_is_said_in_words():
    page = _text(gpulens.analyze([KINETO / "tracelens_h100_bert-small.json.gz"]))
    assert re.search(r"rank taken from\s+not recorded \(rank 0\)", page)
    assert not re.search(r"rank taken from\s+none", page)


def test_kernel_pages_leave_out_empty_notes_and_figures_no_kernel_has():
    report = gpulens.analyze([H200 / "h200_torch_details.csv"])
    src = report.sources[0]
    rules = src.results["ncu_rules"].table
    assert rules["stake_note"].isna().any()  # rules whose figure needed no cap: no note
    sol = src.results["speed_of_light"].table
    assert sol["dram_measured_pct"].isna().all() and sol["dram_pct"].notna().all()
    raw = render_html(report)
    pages = re.findall(r'<section class="kpage".*?</section>', raw, re.S)
    assert pages
    for p in pages:
        t = html.unescape(re.sub(r"<[^>]+>", " ", p))
        assert not re.search(r"stake note\s+none", t)
        assert "dram measured" not in t and "DRAM SOL" in t


def test_forward_and_backward_library_kernels_never_read_alike():
    """cuDNN's SDPA kernels differ by 'flash_fprop' / 'flash_bprop' in the middle of their names: the short labels
    ("cudnn_generated… 64x64x64 1x4x1 1x1x1" and "cudnn_generated_fort… 64x128x64 4x1x1") dropped it."""
    from gpulens.reports._names import short_names

    names = ["cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x64x64_1x4x1_cga1x1x1_kernel0_0",
             "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0"]
    bprop, fprop = short_names(names)
    assert "bprop" in bprop and "fprop" in fprop and "64x64x64" in bprop and "64x128x64" in fprop
    # a name whose start already says the pass gets it once
    (dgrad,) = short_names(["sm90_xmma_dgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x64x32_"
                            "warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn"])
    assert dgrad.count("dgrad") == 1


def test_points_on_top_of_each_other_share_one_label():
    """GPT-2's roofline printed "#21" over "#13" (two GEMMs at the same intensity and rate): read "#213". Points
    within 0.06 decades on both axes are labelled once, on the one with the most time, "#13 #21"."""
    import pandas as pd

    from gpulens.reports._html_roofline import _point_labels

    ok = pd.DataFrame({"name": ["a", "b", "c", "d"], "arithmetic_intensity": [600.0, 610.0, 0.1, 600.0],
                       "flops_per_s": [7e14, 7.1e14, 5e11, 2e14]})
    time_ns = pd.Series([10.0, 30.0, 20.0, 5.0])
    ranks = {"a": 21, "b": 13, "c": 6, "d": 9}
    got = _point_labels(ok, time_ns, ranks, {"a", "b", "c", "d"})
    assert got == {"b": "#13 #21", "a": "", "c": "#6", "d": "#9"}
    assert _point_labels(ok, time_ns, ranks, {"c"}) == {"c": "#6"}  # unlabelled points take no part
