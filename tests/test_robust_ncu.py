"""ncu durations that are no int64 number of ns (issue 17 class 1): 1e30 µs, inf, a negative value — the launch
is kept with an unknown (0) duration and counted in a warning; it never raises OverflowError (exit 70 / wrapped).

Input: tests/data/cases/B20.ncu_details_15col.csv (2 launches: gemm_kernel 1,234.56 µs, reduce_sum 2.05 ms) with
the first launch's Duration value replaced.
"""

from __future__ import annotations

import pytest

from gpulens.collectors import collect

from .conftest import CASES


@pytest.mark.parametrize("value", ["1e30", "inf", "-5", "99999999999999999999999"])
def test_ncu_duration_beyond_int64_is_unknown_and_counted(tmp_path, value):
    text = (CASES / "B20.ncu_details_15col.csv").read_text()
    assert text.count('"usecond","1,234.56"') == 1
    p = tmp_path / "details.csv"
    p.write_text(text.replace('"usecond","1,234.56"', f'"usecond","{value}"'))
    tl = collect(p)
    k = tl.of_kind("kernel").sort_values("event_id")
    # reduce_sum keeps its 2.05 ms = 2,050,000 ns; gemm_kernel's duration is unknown (0) and counted
    assert k["dur_ns"].tolist() == [0, 2_050_000]
    assert any("1 launch without a usable gpu__time_duration.sum or Duration" in w for w in tl.meta.warnings)
