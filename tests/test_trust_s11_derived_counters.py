"""rocprofv3's derived counters are read with their documented definitions where the raw counters are absent.

Kind: a rocprofv3 ``--pmc OccupancyPercent`` run records only the derived value, whose definition rocprofiler-sdk
documents (source/share/rocprofiler-sdk/counter_defs.yaml: OccupancyPercent, "GPU Occupancy as % of maximum",
gfx90a/gfx94x ``400*reduce(SQ_WAVE_CYCLES,sum)/reduce(GRBM_GUI_ACTIVE,max)/CU_NUM/32``): achieved occupancy in %.
gpulens read achieved occupancy only from ncu or the raw SQ_LEVEL_WAVES pass, so such a run had none.
"""

from __future__ import annotations

import pandas as pd
import pytest

import gpulens
from gpulens.devices import get_spec
from tests.conftest import shared_trace


def _run(tmp_path, value: float):
    """The rocprofiler-sdk docs' kernel trace and its counter collection, the SQ_WAVES counter replaced by
    OccupancyPercent = ``value`` for every dispatch (joined by correlation id, as ``gpulens analyze --join``)."""
    kt = shared_trace("rocprof/v3_csv_sdk_docs/kernel_trace.csv")
    cc = pd.read_csv(shared_trace("rocprof/v3_csv_sdk_docs/counter_collection.csv"))
    assert set(cc["Counter_Name"]) == {"SQ_WAVES"}
    cc["Counter_Name"], cc["Counter_Value"] = "OccupancyPercent", value
    (tmp_path / "kernel_trace.csv").write_bytes(kt.read_bytes())
    cc.to_csv(tmp_path / "counter_collection.csv", index=False)
    rep = gpulens.analyze([tmp_path / "kernel_trace.csv", tmp_path / "counter_collection.csv"], join=True,
                          device_spec=get_spec("AMD Instinct MI300X"))
    return rep.sources[0].results["occupancy"]


def test_occupancy_percent_is_the_achieved_occupancy(tmp_path):
    occ = _run(tmp_path, 37.5)
    assert len(occ.table) and (occ.table["achieved_occupancy_pct"] == 37.5).all()
    assert occ.summary["time_weighted_achieved_pct"] == pytest.approx(37.5)


def test_an_impossible_occupancy_percent_is_unknown(tmp_path):
    # a percentage of the maximum cannot exceed 100: shown as unknown, never as a measurement
    occ = _run(tmp_path, 150.0)
    assert not len(occ.table) or occ.table["achieved_occupancy_pct"].isna().all()


def test_raw_counters_win_over_the_derived_one():
    from gpulens.analyzers.occupancy import AMD_OCCUPANCY_PCT, OccupancyAnalyzer
    import numpy as np

    ctr = pd.DataFrame({"sm__warps_active.avg.pct_of_peak_sustained_active": [50.0, np.nan],
                        AMD_OCCUPANCY_PCT: [20.0, 30.0]})
    out, impossible = OccupancyAnalyzer._achieved(None, ctr, np.array([0, 0]), np.array([0, 0]))
    assert out.tolist() == [50.0, 30.0] and impossible == 0
