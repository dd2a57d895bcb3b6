"""A launch configuration that fits no SM is no 0 % theoretical occupancy (s30 fuzzing).

Fuzzing an ncu details CSV (Registers Per Thread 128 → 300 on an sm_90 launch of 256 threads) gave
"Registers limit occupancy of gemm_kernel to 0 %" and a time-weighted theoretical occupancy of 0.0 %: the CUDA
calculator's 0 resident blocks means "cannot launch", yet the launch ran for 1.23 ms. A kernel that ran had at least
one resident block, so the record (or the assumed device) is wrong and its theoretical occupancy is unknown — with a
reason — never a figure. The check sits in the occupancy analyzer, so it holds for every reader (ncu, Kineto,
rocprof) and for the CDNA rules too.

Hand calculations (CUDA occupancy rules, sm_90: 255 registers per thread at most, 65,536 per SM and per block, 64
warp slots, registers allocated per warp in units of 256):
* 1,024 threads × 255 registers (s32: 300 registers on NVIDIA is no record at all — above the 255 cap it is unknown
  at reading, tests/test_trust_s32_vocab_registers.py — so the unfitting launch is one within every per-value
  limit): 255 × 32 = 8,160 → 8,192 registers per warp × 32 warps = 262,144 > 65,536 per block → no block fits →
  unknown.
* 256 threads × 32 registers: 32 × 32 = 1,024 registers per warp, 8 warps per block = 8,192 per block → 8 blocks per
  SM (65,536 / 8,192) = 64 warps of 64 → 100 %.
"""

from __future__ import annotations

from gpulens.analyzers import run_all
from gpulens.collectors import collect

from .dig_traces import KTrace


def _trace(tmp_path, regs: list[int]):
    k = KTrace()
    for i, r in enumerate(regs):
        ext = k.op("aten::mm", 100 * i, 8)
        k.launch(ext, 100 * i + 10, [(f"kernel_{r}", 100 * i + 20, 50)])
        k.ev[-1]["args"]["shared memory"] = 0
        k.ev[-1]["args"]["registers per thread"] = r
        if r == 255:
            k.ev[-1]["args"]["block"] = [1024, 1, 1]
    return collect(k.write(tmp_path / "t.json"))


def test_configuration_fitting_no_sm_is_unknown_not_zero(tmp_path):
    res = run_all(_trace(tmp_path, [255, 32]))["occupancy"]
    assert res.skipped_reason is None
    theo = dict(zip(res.table["name"], res.table["theoretical_occupancy_pct"]))
    assert "kernel_255" not in theo or theo["kernel_255"] != theo["kernel_255"]  # absent or NaN, never 0
    assert theo["kernel_32"] == 100.0
    # only the launch that fits is weighted: 100 %, not (0 + 100) / 2
    assert res.summary["time_weighted_theoretical_pct"] == 100.0
    assert not any("to 0 %" in f.title for f in res.findings)
    (f,) = [f for f in res.findings if f.key == "occupancy/theoretical-missing"]
    assert f.title.startswith("Theoretical occupancy unknown for 1 of 2 hot launches: 1 launch records a "
                              "configuration")
    assert "the record or the device is wrong" in f.title


def test_only_unfitting_launches_skip_with_the_reason(tmp_path):
    res = run_all(_trace(tmp_path, [255, 255]))["occupancy"]
    assert res.skipped_reason is not None
    assert res.skipped_reason.startswith("2 launches record a configuration")
    assert not any("to 0 %" in f.title for f in res.findings)
