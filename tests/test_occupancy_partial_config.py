"""Theoretical occupancy when only some hot launches record their configuration (semantic fuzzer): six launches,
three without ``registers per thread`` — the finding read "unknown for 0 of 3 launch(es): the file records no
launch configuration the occupancy rules accept" (0 unknown, 3 launches, and "no configuration" beside 3 computed
ones): it counted only the launches shown in the table. It now counts every hot launch and names what the
unknown ones lack.

Hand-made trace (tests/dig_traces.KTrace on an H100): 6 launches of one elementwise kernel, block 256, shared
memory 0; registers per thread 32 on launches 1, 3, 5, absent on 2, 4, 6.
"""

from __future__ import annotations

from gpulens.analyzers import run_all
from gpulens.collectors import collect

from .dig_traces import KTrace


def test_unknown_theoretical_occupancy_counts_every_hot_launch(tmp_path):
    k = KTrace()
    for i in range(6):
        ext = k.op("aten::add", 100 * i, 8)
        k.launch(ext, 100 * i + 10, [("elementwise_kernel", 100 * i + 20, 50)])
        k.ev[-1]["args"]["shared memory"] = 0
        if i % 2 == 0:
            k.ev[-1]["args"]["registers per thread"] = 32
    res = run_all(collect(k.write(tmp_path / "t.json")))["occupancy"]
    (f,) = [f for f in res.findings if f.key == "occupancy/theoretical-missing"]
    assert f.title == ("Theoretical occupancy unknown for 3 of 6 hot launches: the file records no registers per "
                       "thread for them")
    # the three launches with registers: 256 threads × 32 registers → 8 blocks of 8 warps = 64 warps of 64: 100 %
    assert res.table["theoretical_occupancy_pct"].dropna().tolist() == [100.0]
