"""Occupancy of an ncu ``--metrics`` CSV (raw, one metric per row): the launch configuration is in the file's own
``Block Size`` / ``Grid Size`` columns and achieved occupancy in ``sm__warps_active.avg.pct_of_peak_sustained_active``,
so occupancy runs and shows them; what it lacks for the theoretical figure (registers, shared memory per block) is
named as ncu names it, and no skip reason sends an ncu user to ROCm Kineto or rocprof.

Input: ``tests/data/nvidia/olajide_rtx5070_metrics_gemm_naive.csv`` — one gemm_naive launch on an RTX 5070
(CC 12.0), ``"(32, 32, 1)"`` block, ``"(64, 64, 1)"`` grid, ``sm__warps_active…`` = 66.61 %.
"""

from __future__ import annotations

import math
from pathlib import Path

import gpulens

SRC = Path(__file__).parent / "data" / "nvidia" / "olajide_rtx5070_metrics_gemm_naive.csv"
ACHIEVED = "sm__warps_active.avg.pct_of_peak_sustained_active"


def _occ(path: Path):
    return gpulens.analyze([str(path)]).sources[0].results["occupancy"]


def _all_text(r) -> str:
    return " ".join([r.skipped_reason or ""] + [f"{f.title} {f.detail} {f.action}" for f in r.findings]
                    + [str(v) for v in r.summary.values()])


def _rows(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8-sig").splitlines()


def _achieved_in_file(lines: list[str]) -> float:
    row = next(x for x in lines if f'"{ACHIEVED}"' in x)
    return float(row.rsplit(",", 1)[1].strip('"'))


def test_block_size_and_measured_achieved_occupancy_are_shown():
    r = _occ(SRC)
    assert not r.skipped, r.skipped_reason
    row = r.table.iloc[0]
    assert "gemm_naive_kernel" in row["name"]
    assert row["block_size"] == 32 * 32 * 1  # the file's Block Size "(32, 32, 1)"
    assert math.isclose(row["achieved_occupancy_pct"], _achieved_in_file(_rows(SRC)), abs_tol=1e-6)
    theo = row["theoretical_occupancy_pct"]
    assert theo is None or theo != theo  # registers and shared memory are not in the file: unknown, not guessed
    missing = r.summary["theoretical_missing"]
    assert "launch__registers_per_thread" in missing and "launch__shared_mem_per_block" in missing
    assert "block size" not in missing  # it is in the file
    text = _all_text(r)
    assert "ROCm" not in text and "Kineto" not in text and "rocprof" not in text


def test_with_registers_and_shared_memory_theoretical_occupancy_is_computed(tmp_path):
    lines = _rows(SRC)
    row = next(x for x in lines if f'"{ACHIEVED}"' in x)
    extra = [row.replace(f'"{ACHIEVED}","%","66.61"', f'"{m}","{u}","{v}"')
             for m, u, v in (("launch__registers_per_thread", "register/thread", "40"),
                             ("launch__shared_mem_per_block_static", "byte", "0"),
                             ("launch__shared_mem_per_block_dynamic", "byte", "0"))]
    assert all(e != row for e in extra)
    f = tmp_path / "with_launch.csv"
    f.write_text("\n".join(lines + extra) + "\n", encoding="utf-8")
    r = _occ(f)
    assert not r.skipped and r.summary["theoretical_missing"] is None
    # CC 12.0: 48 warp slots / SM (CUDA Programming Guide, compute capabilities table), 64 K registers / SM.
    # 1,024 threads = 32 warps per block; registers 40 × 1,024 = 40,960 ≤ 65,536 → 1 block; warps 48 // 32 = 1 block
    # → 32 / 48 warps resident = 66.7 %.
    assert math.isclose(r.table.iloc[0]["theoretical_occupancy_pct"], 100 * 32 / 48, abs_tol=0.1)


def test_without_any_occupancy_data_the_reason_names_ncu_metrics(tmp_path):
    lines = [x for x in _rows(SRC) if f'"{ACHIEVED}"' not in x]
    f = tmp_path / "no_achieved.csv"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = _occ(f)
    assert r.skipped
    why = r.skipped_reason
    assert "ROCm" not in why and "Kineto" not in why and "rocprof" not in why
    assert "launch__registers_per_thread" in why and ACHIEVED in why
