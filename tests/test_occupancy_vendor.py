"""Occupancy by the vendor definitions (issue 14.1, 15.1): theoretical occupancy from registers / shared memory /
warps / block limits, never capped by the grid; the grid's effect as waves per SM and last-wave fill; ncu's own
Occupancy section used directly and compared with gpulens's calculator."""

from __future__ import annotations

import csv

import pytest

import gpulens
from gpulens.timeline import COUNTER_COLUMNS, EVENT_COLUMNS, Timeline, TimelineMeta, make_table
from tests.conftest import DATA as _DATA, shared_trace


def _nv(name):
    """A committed copy under tests/data/nvidia when there is one, else the developer corpus (skips if absent)."""
    p = _DATA / "nvidia" / name
    return p if p.exists() else shared_trace(f"ncu/{name}")

BLOCK_LIMITS = {"Block Limit Registers": "registers", "Block Limit Shared Mem": "shared_memory",
                "Block Limit Warps": "warps", "Block Limit SM": "blocks", "Block Limit Barriers": "barriers"}


def _occupancy_section(path):
    """The Occupancy section's numbers and the CC column, read straight from the details CSV."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = [r for r in csv.DictReader(f) if r.get("Section Name") == "Occupancy" and r.get("Metric Name")]
    vals = {r["Metric Name"]: float(r["Metric Value"].replace(",", "")) for r in rows}
    return vals, rows[0]["CC"]


@pytest.mark.parametrize("kernel", ["0005", "0010", "0013"])
def test_codegandee_occupancy_is_ncus_own(kernel):
    path = _nv(f"codegandee_rtx5090_ncu-v2_kernel_{kernel}_details.csv")
    vals, cc = _occupancy_section(path)
    src = gpulens.analyze([path]).sources[0]
    row = src.results["occupancy"].table.iloc[0]
    assert row["theoretical_occupancy_pct"] == pytest.approx(vals["Theoretical Occupancy"])
    assert row["achieved_occupancy_pct"] == pytest.approx(vals["Achieved Occupancy"])
    limits = {BLOCK_LIMITS[k]: v for k, v in vals.items() if k in BLOCK_LIMITS}
    binding = min(limits.values())
    assert row["active_blocks_per_sm"] == binding
    # at ncu's 100 % theoretical occupancy the binding block limit limits nothing: no limiter ("none")
    want = {"none"} if vals["Theoretical Occupancy"] >= 99.5 else {k for k, v in limits.items() if v == binding}
    assert set(row["limiters"].split(", ")) == want
    assert row["occupancy_source"] == "ncu"
    # the file's CC column is 12.0 and nothing else names the GPU: the RTX 5090 is identified (assumed, said so)
    assert cc == "12.0" and src.device.name == "NVIDIA GeForce RTX 5090" and src.device.compute_capability == "12.0"
    assert "compute capability 12.0" in src.device.note


def test_codegandee_expected_figures_from_the_issue():
    # issue 15's acceptance figures, as ncu printed them: 16.67 / 100 / 8.33 %
    got = [gpulens.analyze([_nv(f"codegandee_rtx5090_ncu-v2_kernel_{k}_details.csv")]).sources[0]
           .results["occupancy"].table.iloc[0]["theoretical_occupancy_pct"] for k in ("0005", "0010", "0013")]
    assert got == pytest.approx([16.67, 100.0, 8.33])


def _one_launch(cc, sms, block, regs, smem, grid, name="k", counters=()):
    ev = make_table(EVENT_COLUMNS, {"event_id": [0], "kind": ["kernel"], "name": [name], "start_ns": [0],
                                    "dur_ns": [100_000], "rank": [0], "device_id": [0], "stream_id": [1],
                                    "grid_x": [grid], "grid_y": [1], "grid_z": [1], "block_x": [block],
                                    "block_y": [1], "block_z": [1], "regs_per_thread": [regs],
                                    "smem_dynamic_bytes": [smem], "source": ["test"]})
    co = make_table(COUNTER_COLUMNS, {"event_id": [0] * len(counters), "metric": [m for m, _ in counters],
                                      "value": [v for _, v in counters], "unit": ["%"] * len(counters),
                                      "source": ["test"] * len(counters)})
    meta = TimelineMeta(devices=[{"rank": 0, "device_id": 0, "name": None, "compute_capability": cc,
                                  "num_sms": sms}])
    return gpulens.analyze_timeline(Timeline(ev, co, meta=meta).validate()).results["occupancy"]


def test_grid_that_fills_every_sm_once_is_limited_by_shared_memory_not_the_grid():
    # issue 14.1: 128 blocks on 132 SMs (CC 9.0), 213 KB dynamic shared memory per block. Per block: 213·1024 B +
    # 1 KiB reserved = 219,136 B; the SM holds 228 KiB = 233,472 B → ⌊233472 / 219136⌋ = 1 block. Registers (64/thread,
    # 256 threads = 8 warps): ⌊65536/4 / 2048⌋ × 4 / 8 = 4 blocks; warps ⌊64/8⌋ = 8 → shared memory binds.
    # Theoretical 1 × 8 / 64 = 12.5 %; waves 128 / (1 × 132) = 0.9697, the only wave 96.97 % full.
    r = _one_launch("9.0", 132, 256, 64, 213 * 1024, 128)
    row = r.table.iloc[0]
    assert row["limiter"] == "shared_memory" and row["active_blocks_per_sm"] == 1
    assert row["theoretical_occupancy_pct"] == pytest.approx(12.5)
    assert row["waves_per_sm"] == pytest.approx(128 / 132) and row["tail_wave_pct"] == pytest.approx(100 * 128 / 132)
    assert not any("grid" == (f.title.split()[0].lower()) and "too small" in f.title for f in r.findings)


def test_registers_allow_two_blocks_on_148_sms():
    # issue 14.1: 256 blocks of 128 threads on 148 SMs (B200, CC 10.0), 255 registers/thread:
    # regs per warp = roundup(255·32, 256) = 8192 → ⌊65536/4 / 8192⌋ × 4 / 4 warps = 2 blocks/SM →
    # theoretical 2 × 4 / 64 = 12.5 %, limiter registers; waves 256 / (2 × 148) = 0.8649
    row = _one_launch("10.0", 148, 128, 255, 0, 256).table.iloc[0]
    assert row["limiter"] == "registers" and row["active_blocks_per_sm"] == 2
    assert row["theoretical_occupancy_pct"] == pytest.approx(12.5)
    assert row["waves_per_sm"] == pytest.approx(256 / 296) and row["tail_wave_pct"] == pytest.approx(100 * 256 / 296)


def test_tail_of_a_multi_wave_grid():
    # 256 threads, 32 regs, no smem on CC 9.0: warps ⌊64/8⌋ = 8 blocks/SM; 2376 blocks / (8 × 132) = 2.25 waves:
    # the third wave is 25 % full → a tail finding
    r = _one_launch("9.0", 132, 256, 32, 0, 2376)
    row = r.table.iloc[0]
    assert row["waves_per_sm"] == pytest.approx(2.25) and row["tail_wave_pct"] == pytest.approx(25.0)
    assert any(f.title.startswith("Last wave of k is 25.0 % full") for f in r.findings)


def test_ncu_section_wins_and_disagreement_is_reported():
    # same launch as above (calculator: 8 blocks × 8 warps = 100 %), but "ncu" says 50 % with a register limit of 4
    r = _one_launch("9.0", 132, 256, 32, 0, 2376, counters=[
        ("sm__maximum_warps_per_active_cycle_pct", 50.0), ("launch__occupancy_limit_registers", 4.0),
        ("launch__occupancy_limit_warps", 8.0), ("launch__occupancy_limit_blocks", 32.0)])
    row = r.table.iloc[0]
    assert row["theoretical_occupancy_pct"] == 50.0 and row["calculator_theoretical_pct"] == 100.0
    assert row["limiter"] == "registers" and row["active_blocks_per_sm"] == 4
    assert row["occupancy_source"] == "ncu+calculator" and r.summary["calculator_disagreements"] == 1
    assert any("disagrees with ncu on 1 launch" in f.title for f in r.findings)


def test_ncu_rep_reports_ncus_theoretical_occupancy():
    pytest.importorskip("ncu_report")
    path = shared_trace("ncu/lashi_rtx4090_simpleDivergence.ncu-rep")
    tl = gpulens.collect(path)
    c = tl.counters
    theo = c.loc[c["metric"] == "sm__maximum_warps_per_active_cycle_pct", "value"]
    assert len(theo) == 4 and (theo == 100.0).all()  # ncu: "theoretical (100.0%)" in its rule text
    t = gpulens.analyze([path]).sources[0].results["occupancy"].table
    assert (t["theoretical_occupancy_pct"] == 100.0).all()
