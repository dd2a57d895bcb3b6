"""A kernel page names its occupancy limit once: with registers and shared memory tied at the binding block count, the
heading read 'Limiter: registers + shared memory' while the table under it had a row 'limiter | registers' (the first
of the tied limits) beside 'limiters | registers + shared memory' — two answers to one question (new-user review,
demo's 256x128 GEMM). Expected: one limiter row, naming both tied limits."""
from __future__ import annotations

import re

import pandas as pd

from gpulens.analyzers.base import AnalysisResult
from gpulens.analyzers.occupancy import COLUMNS
from gpulens.reports._html_kernel import _kv_row


def test_tied_limits_are_one_row():
    row = pd.Series({"kernel": "k", "limiter": "registers", "limiters": "registers, shared_memory",
                     "theoretical_occupancy_pct": 25.0})
    html = _kv_row(AnalysisResult("occupancy", pd.DataFrame([row]), COLUMNS, summary={"vendor": "nvidia"}), row)
    rows = re.findall(r'<th scope="row">([^<]*)</th><td>([^<]*)</td>', html)
    lim = [(k, v) for k, v in rows if k.lower().startswith("limiter")]
    assert len(lim) == 1 and "registers" in lim[0][1] and "shared memory" in lim[0][1]


def test_a_single_limit_keeps_its_row():
    row = pd.Series({"kernel": "k", "limiter": "warps", "theoretical_occupancy_pct": 100.0})
    html = _kv_row(AnalysisResult("occupancy", pd.DataFrame([row]), COLUMNS, summary={"vendor": "nvidia"}), row)
    assert re.findall(r'<th scope="row">(limiter[^<]*)</th><td>([^<]*)</td>', html) == [("limiter", "warps")]
