"""Occupancy computed once per distinct launch configuration and joined back per launch (issue 16, memory): the
per-kernel figures must be the per-launch ones, time-weighted, whatever mix of configurations, grids and ncu
counters a kernel's launches have. Expected values are hand calculations with the CUDA occupancy rules (H100: 64
warp slots, 65,536 registers and 32 blocks per SM, registers allocated per warp in units of 256) written below."""

from __future__ import annotations

import pytest

import gpulens
from gpulens.timeline import COUNTER_COLUMNS, EVENT_COLUMNS, Timeline, TimelineMeta, make_table

# (name, block threads, registers per thread, grid blocks, duration ns); H100 SXM, 132 SMs
#   A = 256 threads, 32 regs: 8 warps/block; registers 65536 / (32·32) = 64 warps → 8 blocks, warp slots 64 / 8 = 8
#       blocks (tied) → 8 blocks × 8 warps / 64 = 100 %
#   B = 256 threads, 128 regs: 65536 / (128·32) = 16 warps → 2 blocks → 16 / 64 = 25 %
#   C = 1024 threads, 64 regs: 65536 / (64·32) = 32 warps → 1 block of 32 warps → 50 %
LAUNCHES = [
    ("k", 256, 32, 1056, 1000), ("k", 256, 32, 1056, 3000),  # A: waves 1056 / (8·132) = 1
    ("k", 256, 128, 264, 2000), ("k", 256, 128, 100, 500),   # B: waves 264 / (2·132) = 1 and 100 / 264
    ("k", 1024, 64, 132, 1500),                               # C: waves 132 / 132 = 1
    ("k", 256, 32, 528, 1000),                                # A: waves 528 / 1056 = 0.5
    ("n", 256, 32, 1056, 1000), ("n", 256, 32, 1056, 3000),  # A twice; ncu recorded 75 % for the first only
]
NCU_THEO = {6: 75.0}  # launch index → ncu's sm__maximum_warps_per_active_cycle_pct


def _timeline() -> Timeline:
    n = len(LAUNCHES)
    start = [i * 10_000 for i in range(n)]
    ev = make_table(EVENT_COLUMNS, {
        "event_id": list(range(n)), "kind": ["kernel"] * n, "name": [x[0] for x in LAUNCHES], "start_ns": start,
        "dur_ns": [x[4] for x in LAUNCHES], "rank": [0] * n, "device_id": [0] * n, "stream_id": [7] * n,
        "grid_x": [x[3] for x in LAUNCHES], "grid_y": [1] * n, "grid_z": [1] * n,
        "block_x": [x[1] for x in LAUNCHES], "block_y": [1] * n, "block_z": [1] * n,
        "regs_per_thread": [x[2] for x in LAUNCHES], "source": ["kineto"] * n})
    ids = sorted(NCU_THEO)
    co = make_table(COUNTER_COLUMNS, {"event_id": ids, "metric": ["sm__maximum_warps_per_active_cycle_pct"] * len(ids),
                                      "value": [NCU_THEO[i] for i in ids], "unit": ["%"] * len(ids),
                                      "source": ["ncu"] * len(ids)})
    meta = TimelineMeta(devices=[{"rank": 0, "device_id": 0, "name": "NVIDIA H100 80GB HBM3", "num_sms": 132,
                                  "compute_capability": "9.0"}])
    return Timeline(ev, co, meta=meta).validate()


@pytest.fixture(scope="module")
def occupancy():
    return gpulens.analyze_timeline(_timeline()).results["occupancy"]


def test_figures_of_a_kernel_with_three_configurations(occupancy):
    r = occupancy
    assert not r.skipped, r.skipped_reason
    k = r.table.set_index("name").loc["k"]
    # time per configuration: A 1000 + 3000 + 1000 = 5000, B 2000 + 500 = 2500, C 1500; total 9000 ns
    assert (k["calls"], k["time_ns"]) == (6, 9000)
    assert k["theoretical_occupancy_pct"] == pytest.approx((100 * 5000 + 25 * 2500 + 50 * 1500) / 9000)
    assert k["calculator_theoretical_pct"] == pytest.approx((100 * 5000 + 25 * 2500 + 50 * 1500) / 9000)
    # the dominant configuration is A (5000 ns of 9000), its grid with the most time 1056 (4000 ns of A's 5000)
    assert (k["block_size"], k["regs_per_thread"], k["grid_blocks"]) == (256, 32, 1056)
    assert k["config_time_share"] == pytest.approx(4000 / 9000)  # block, registers, shared memory *and* grid
    assert k["active_blocks_per_sm"] == 8 and k["waves_per_sm"] == pytest.approx(1.0)
    assert k["tail_wave_pct"] == pytest.approx(100.0)
    assert k["grid_sizes"] == 5  # 1056, 264, 100, 132, 528
    # warp slots and registers both allow 8 blocks of A — tied, warps named first; shared memory does not bind: the
    # driver sizes its carveout for those 8 blocks (8 × the 1 KiB reserved per block), but the largest carveout
    # (228 KB) would hold 228 such blocks, so it limits nothing
    assert k["limiters"] == "warps, registers" and k["limiter"] == "warps"
    # partly filled waves: B's grid of 100 is 100/264 of a wave (500 · (1 − 100/264)), A's 528 half a wave
    # (1000 · ½)
    assert k["wave_loss_ns"] == round(500 * (1 - 100 / 264) + 1000 * 0.5)
    assert k["occupancy_source"] == "calculator"


def test_ncu_figure_of_one_launch_replaces_the_calculators_for_that_launch_only(occupancy):
    n = occupancy.table.set_index("name").loc["n"]
    # ncu's 75 % on the 1000 ns launch, the calculator's 100 % on the 3000 ns one
    assert n["theoretical_occupancy_pct"] == pytest.approx((75 * 1000 + 100 * 3000) / 4000)
    assert n["calculator_theoretical_pct"] == pytest.approx(100.0)
    assert n["occupancy_source"] == "calculator"  # the longest launch of the configuration has no ncu figure
    assert occupancy.summary["calculator_disagreements"] == 1  # 75 % vs 100 %: more than 0.5 points apart
    assert occupancy.summary["time_weighted_theoretical_pct"] == pytest.approx(
        (100 * 5000 + 25 * 2500 + 50 * 1500 + 75 * 1000 + 100 * 3000) / 13000)


def test_one_calculator_row_per_distinct_configuration():
    from gpulens.analyzers.occupancy import AMD_RESOURCES, OccupancyAnalyzer
    import numpy as np

    # 10,000 launches of the three configurations above: the calculator table has 3 rows, one number per launch
    reps = 10_000 // 3 + 1
    block = np.tile([256, 256, 1024], reps)[:10_000]
    regs = np.tile([32, 128, 64], reps)[:10_000]
    cols = {"rank": np.zeros(10_000, "int64"), "device_id": np.zeros(10_000, "int64"), "block_size": block,
            "regs_per_thread": regs, "smem_bytes": np.zeros(10_000, "int64"),
            "calc_ok": np.ones(10_000, bool), **{m: None for m in AMD_RESOURCES}}
    tl = _timeline()
    from gpulens.devices import limits_of_record, main_device
    key, cfg = OccupancyAnalyzer()._calculate(tl, limits_of_record(main_device(tl)), cols, 132)
    assert len(cfg) == 3 and len(key) == 10_000
    assert cfg["calc_theo"].tolist() == pytest.approx([100.0, 25.0, 50.0])
    assert (cfg["calc_theo"].to_numpy()[key] == np.tile([100.0, 25.0, 50.0], reps)[:10_000]).all()
