"""Ninth-session fuzzing (tests/fuzz_s9.py, kind ``overlap0``): a share of a roof or peak above 100 % was shown.

Kernels of one stream that overlap are clipped to the next kernel's start (B07), so a GEMM's timed GPU work can come
out slightly shorter than its computation: its attained FLOP/s landed between 100 % and the 100.5 % allowance kept for
the rounding of recorded times (``roofline.ABOVE_ROOF_PCT``) and was shown as "100.1 % of peak" — no GPU beats its
peak. Within the allowance the share is now 100 %; above it, unknown (as before); below 100 %, unchanged. One helper
(:func:`gpulens.analyzers.roofline.at_most_roof`) for every share of a roof: GEMM/attention shapes, the roofline's
datasheet share and the hierarchical roofline.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import gpulens
from gpulens.analyzers.roofline import ABOVE_ROOF_PCT, at_most_roof

FLOP = 2 * 4096 ** 3           # aten::mm of two 4096 × 4096 matrices: 137,438,953,472 FLOP
H100_BF16 = 989.4e12           # dense BF16 peak of the H100 SXM, NVIDIA datasheet (the device KTrace records)


@pytest.mark.parametrize("dur_us, expected", [
    (140.0, 100 * FLOP / 140e-6 / H100_BF16),    # 99.22 %: as measured
    (138.63, 100.0),                             # 100.20 %: within the rounding allowance → at the roof
    (138.0, None),                               # 100.66 %: above the allowance → unknown
])
def test_gemm_share_of_peak_never_above_100(tmp_path, dur_us, expected):
    from tests.dig_traces import KTrace

    t = KTrace()
    e = t.op("aten::mm", 100.0, 200, [[4096, 4096], [4096, 4096]], ["c10::BFloat16"] * 2)
    t.launch(e, 105.0, [("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 1000.0, dur_us)])
    src = gpulens.analyze([t.write(tmp_path / "mm.json")]).sources[0]
    row = src.results["gemm_shapes"].table.iloc[0]
    assert row["flops"] == FLOP
    assert row["flops_per_s"] == pytest.approx(FLOP / (dur_us * 1e-6), rel=1e-6)   # the measured rate stays
    if expected is None:
        assert row["peak_pct"] != row["peak_pct"]                                 # NaN: unknown
    else:
        assert row["peak_pct"] == pytest.approx(expected, rel=1e-6)
        assert row["peak_pct"] <= 100.0


def test_at_most_roof_on_scalars_arrays_and_series():
    assert at_most_roof(42.5) == 42.5
    assert at_most_roof(100.0) == 100.0
    assert at_most_roof((100.0 + ABOVE_ROOF_PCT) / 2) == 100.0
    assert at_most_roof(ABOVE_ROOF_PCT + 0.01) != at_most_roof(ABOVE_ROOF_PCT + 0.01)
    assert at_most_roof(float("nan")) != at_most_roof(float("nan"))
    s = pd.Series([10.0, 100.3, 250.0, np.nan], index=list("abcd"), name="peak_pct")
    out = at_most_roof(s)
    assert list(out.index) == list("abcd") and out.name == "peak_pct"
    assert out["a"] == 10.0 and out["b"] == 100.0 and out[["c", "d"]].isna().all()
