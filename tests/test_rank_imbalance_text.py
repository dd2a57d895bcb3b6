"""The two rank comparisons, each said with its basis: kernel time with collectives (imbalance % of the mean) and
compute kernels alone (the finding's "% more than the lightest rank") — in the summary for every report and in the
HTML panel, so the two figures side by side do not read as a contradiction."""

from __future__ import annotations

import gzip
import html as _html
import json

import gpulens
from gpulens.reports import html
from tests.conftest import KINETO


def _compute_us(path) -> float:
    """Σ duration [µs] of the compute kernels (cat ``kernel``, not NCCL collectives) of one raw rank file."""
    ev = json.loads(gzip.open(path).read())["traceEvents"]
    return sum(e.get("dur", 0) for e in ev
               if e.get("cat") == "kernel" and not str(e.get("name", "")).startswith("nccl"))


def test_compute_comparison_in_summary_and_html():
    d = KINETO / "multirank"
    rep = gpulens.analyze([d])
    sm = rep.sources[0].results["rank_kernels"].summary
    r0, r1 = _compute_us(d / "sampled_rank-0.json.gz"), _compute_us(d / "sampled_rank-1.json.gz")
    heavy, light = (0, 1) if r0 > r1 else (1, 0)
    more = 100 * (max(r0, r1) - min(r0, r1)) / min(r0, r1)
    assert (sm["compute_heaviest_rank"], sm["compute_lightest_rank"]) == (heavy, light)
    assert abs(sm["compute_more_pct"] - more) < 0.05
    page = _html.unescape(html.render(rep))
    assert "most kernel time, collectives included" in page
    assert f"rank {heavy} spends {more:.1f} % more than rank {light}." in page
