"""A kernel below both roofs is not told "short kernels … fuse or batch" when its launches are long (session 49).

TraceLens' MI300X replay (tests/data/kineto/hpctrain_mi300x_tracelens_replay.json) holds two MIOpen convolution
kernels of 0.86–1.14 ms per launch at 0.1 % of their roofline. The roofline's placement finding said "latency,
occupancy or launch overhead does (small grids, short kernels, dependent loads). Fuse or batch the work." — but a
kernel's GPU time holds no launch call: launch cost slows it only by the fixed time any launch takes on the GPU
(2 µs, ``_stake.KERNEL_FLOOR_NS``), 0.2 % of a 1 ms launch. Kind: the below-roofs cause named launch overhead
whatever the kernel's launch length. Now launch words only when that floor is half its time or more.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import gpulens
from gpulens.analyzers._roof_notes import below_roofs_detail
from gpulens.analyzers._stake import KERNEL_FLOOR_NS

PATH = Path(__file__).parent / "data" / "kineto" / "hpctrain_mi300x_tracelens_replay.json"


def test_long_launches_below_the_roofs_are_not_blamed_on_launch_cost():
    # mean launch per kernel name, from the trace itself (µs → ns)
    tot, n = defaultdict(float), defaultdict(int)
    for e in json.loads(PATH.read_text())["traceEvents"]:
        if e.get("ph") == "X" and str(e.get("cat", "")).lower() == "kernel":
            tot[e["name"]] += 1000 * e["dur"]
            n[e["name"]] += 1
    src = gpulens.analyze([PATH]).sources[0]
    placed = [f for f in src.findings() if (f.key or "").startswith("roofline:") and "below both roofs" in f.title]
    assert len(placed) == 2
    for f in placed:
        mean = tot[f.kernel] / n[f.kernel]
        assert mean > 2 * KERNEL_FLOOR_NS  # 0.86–1.14 ms
        assert "short kernels" not in f.detail and "Fuse" not in f.detail and "launch overhead" not in f.detail
        assert "nor launch cost" in f.detail
        assert "wavefronts" in f.detail and "warps" not in f.detail  # an AMD GPU: AMD's words


def test_launches_near_the_floor_keep_the_launch_words():
    # 10 launches of 3 µs: the 2 µs floor is 2/3 of each → launch overhead can hold it
    assert "launch overhead" in below_roofs_detail(10 * 3_000, 10, "nvidia")
    # 10 launches of 5 µs: the floor is 40 % → not launch cost
    assert "nor launch cost" in below_roofs_detail(10 * 5_000, 10, "nvidia")
