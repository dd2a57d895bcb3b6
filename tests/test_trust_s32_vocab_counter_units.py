"""Unit-less counters are labelled by what they measure, not all "[ratio]" (s32 counter vocabulary).

A rocprof v1 counter-mode CSV (no timestamps: the kernel-counters table) declared every counter without a recorded
unit as ``ratio``: ``SQ_WAVES`` ("count number of waves sent to SQs", rocprofiler basic counters) and
``GRBM_COUNT`` (GPU clock count) are counts; ``VALUInsts`` ("the average number of vector ALU instructions
executed per work-item", rocprof derived metrics) is a ratio; ``GPUBusy`` a percentage; ``FETCH_SIZE`` KiB; a
counter no documentation names (``MY_DERIVED_THING``) is of unknown unit (``number``: shown as recorded, no unit
claimed).
"""

from __future__ import annotations

import re

from gpulens.analyzers import run_all
from gpulens.collectors import collect

_CSV = ("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,wave_size,"
        "sig,obj,SQ_WAVES,GRBM_COUNT,VALUInsts,GPUBusy,FETCH_SIZE,MY_DERIVED_THING\n"
        '0,"k1",8,0,0,1,1,1024,256,0,0,44,4,48,64,0x0,0x1,16,5000,12.5,80,100,3.25\n'
        '1,"k1",8,0,1,1,1,1024,256,0,0,44,4,48,64,0x0,0x1,16,7000,13.5,90,300,4.75\n')


def _unit(doc: str) -> str:
    m = re.search(r"\[([^\[\]]+)\]\s*$", doc)
    return m.group(1) if m else "text"


def test_kernel_counters_declare_counts_ratios_and_unknown(tmp_path):
    p = tmp_path / "pmc.csv"
    p.write_text(_CSV)
    res = run_all(collect(p))["kernel_counters"]
    assert res.skipped_reason is None
    units = {c: _unit(d) for c, d in res.columns.items()}
    assert units["SQ_WAVES"] == "count" and units["GRBM_COUNT"] == "count"
    assert units["VALUInsts"] == "ratio" and units["GPUBusy"] == "%" and units["FETCH_SIZE"] == "KiB"
    assert units["MY_DERIVED_THING"] == "number"
    assert "unit not documented" in res.columns["MY_DERIVED_THING"]
    row = res.table.iloc[0]
    # means over the 2 dispatches, by hand: (5000 + 7000) / 2, (12.5 + 13.5) / 2, (3.25 + 4.75) / 2
    assert (row["GRBM_COUNT"], row["VALUInsts"], row["MY_DERIVED_THING"]) == (6000.0, 13.0, 4.0)


def test_counter_unit_rules():
    from gpulens.analyzers._counter_units import counter_unit

    assert counter_unit("TCC_HIT_sum") == "count"  # the sum of a TCC counter over its instances
    assert counter_unit("launch__grid_size") == "count"  # ncu launch statistic: blocks
    assert counter_unit("launch__waves_per_multiprocessor") == "ratio"
    assert counter_unit("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%") == "%"
    assert counter_unit("smsp__average_warp_latency.ratio") == "ratio"
    assert counter_unit("SOMETHING_ELSE") == "number"
