"""The Kineto ↔ rocprof join compares start times in int64 ns: at epoch-ns starts (≈1.7e18 ns, where float64 steps
by 256 ns) a pair exactly at the tolerance is kept and one a nanosecond past it dropped. The trace writers of
tests/test_join.py, moved to start at 1.7e15 µs; expected deviations are hand counts from their jitter (250 ns × i)."""

from __future__ import annotations

import pytest

from gpulens.collectors import collect
from gpulens.collectors.join import join_dispatches
import tests.test_join as tj
from tests.test_join import write_kineto, write_rocprof

EPOCH_US = 1_700_000_000_000_000  # 2023 in µs since the epoch: 1.7e18 ns


@pytest.mark.parametrize("extra, rejected", [(75, 0), (76, 1)])
def test_epoch_ns_join_tolerance_is_exact(tmp_path, monkeypatch, extra, rejected):
    monkeypatch.setattr(tj, "T0_US", EPOCH_US)  # the writers' start, read at call time
    assert EPOCH_US * 1000 > 2 ** 60  # float64 spacing there: 256 ns
    write_kineto(tmp_path / "run.pt.trace.json")
    # dispatch i is 250·i ns late; the fitted offset takes the median 875 ns, so dispatch 6 deviates 1500 − 875 =
    # 625 ns, plus `extra`: 700 (at the tolerance, kept) or 701 (dropped); the others deviate at most 625 ns
    write_rocprof(tmp_path / "results.csv", skew_ns={6: extra})
    res = join_dispatches(collect(tmp_path / "run.pt.trace.json"), collect(tmp_path / "results.csv"),
                          tolerance_ns=700)
    assert res.rejected_by_time == rejected and res.matched == 6 - rejected
