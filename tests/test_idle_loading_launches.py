"""Launch calls that take milliseconds are no launch overhead but the first launch of a kernel loading its module
(CUDA lazy loading; HIP code objects): in the idle finding's "waiting for the host" advice they count as set-up,
as cuLibraryLoadData does — the nsys fuser H200 export's host gaps hold cudaLaunchKernel 42.88 ms in 11 calls
(3.9 ms each) and cuLibraryLoadData 18.08 ms of 111.00 ms: 60.96 ms ≥ half, set-up advice (was: move work off the
host thread, as if data loading or Python filled them)."""

from __future__ import annotations

from pathlib import Path

from gpulens.analyzers._idle_findings import LOADING_LAUNCH_NS, _is_setup
from gpulens.report import analyze

FUSER = Path(__file__).parent / "data" / "nvidia" / "fuser_h200_nsys2024.6_report1.sqlite"


def test_a_millisecond_launch_is_set_up_a_microsecond_one_is_not():
    assert _is_setup({"name": "cudaLaunchKernel", "overlap_ns": 42_880_000, "calls": 11})  # 3.9 ms per call
    assert not _is_setup({"name": "cudaLaunchKernel", "overlap_ns": 11 * 5_000, "calls": 11})  # 5 µs per call
    assert not _is_setup({"name": "cudaLaunchKernel", "overlap_ns": LOADING_LAUNCH_NS - 1, "calls": 1})
    assert _is_setup({"name": "hipLaunchKernel", "overlap_ns": LOADING_LAUNCH_NS, "calls": 1})
    assert _is_setup({"name": "cuLibraryLoadData", "overlap_ns": 1_000, "calls": 15})  # by name, whatever its length
    assert not _is_setup({"name": "cudaStreamSynchronize", "overlap_ns": 9_000_000, "calls": 1})


def test_fuser_idle_advice_is_set_up():
    rep = analyze([FUSER])
    idle = [f for f in rep.sources[0].findings() if f.key == "idle"]
    assert idle and "cudaLaunchKernel 42.88 ms in 11 calls" in idle[0].action
    assert "set-up calls fill most of it" in idle[0].action
