"""A finding that details its parent's very figure is rated as its parent is.

A kernel's roofline placement ("… runs below both roofs (7.3 % of attainable)") hangs under the kernel's verdict
and carries the same time at stake. The two were rated by two rules: the verdict is a warning when its stake is over
5 % of the kernel time, the placement when the kernel holds over 10 % of the placed kernels' time. On TraceLens's
MI300X BERT trace the 16x16x256 GEMM read "warning … latency/occupancy-bound — 21.06 µs at stake" over "info … runs
below both roofs — 21.06 µs at stake", its sibling GEMMs warning over warning, with no cut-off visible anywhere.
"""

from __future__ import annotations

import gpulens
from tests.conftest import KINETO


def test_roofline_placement_takes_its_verdicts_severity():
    src = gpulens.analyze([KINETO / "tracelens_mi300x_bert-small.json.gz"]).sources[0]
    by_key = {f.key: f for f in src.findings() if f.key}
    pairs = [(f, by_key[f.parent]) for f in by_key.values()
             if f.key.startswith("roofline:") and f.parent in by_key]
    assert len(pairs) >= 5
    for child, parent in pairs:
        assert child.time_at_stake_ns == parent.time_at_stake_ns  # the same figure, detailed
        assert child.severity == parent.severity, child.title
    # the case that differed: a warning verdict (stake over 5 % of the kernel time) whose kernel holds under 10 % of
    # the placed kernels' time (the roofline's own cut-off)
    roof = src.results["roofline"].table
    placed = float(roof["time_ns"].sum())
    kernel_time = src.results["hotspots"].summary["kernel_effective_ns"]
    moved = [c for c, p in pairs
             if p.time_at_stake_ns > 0.05 * kernel_time
             and float(roof.loc[roof["name"] == c.kernel, "time_ns"].iloc[0]) <= 0.1 * placed]
    assert moved and all(c.severity == "warning" for c in moved)
