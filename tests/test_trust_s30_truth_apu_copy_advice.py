"""Exposed-copy advice on an APU (AMD Instinct MI300A: CPU and GPU share one HBM) is to drop the copies, not to pin
and overlap them.

Found on ../shared/traces/rocprof/v1_hip_programming_mi300a/results.json (device "AMD Instinct MI300A" per its
sysinfo): a hipMemcpy DtoH of 885.69 ms and HtoD of 180.72 ms (SOURCES.md: copy_stats 885,689,740 + 180,717,650 ns)
were 99.7 % of the GPU's busy time, and the advice was "Use pinned host memory and asynchronous copies on a side
stream (hipMemcpyAsync)" — advice for a discrete GPU behind PCIe. On the MI300A the host↔device copy moves data
within the same memory; the remedy is one allocation both sides use.
"""

from pathlib import Path

import pytest

import gpulens
from gpulens.devices import get_spec, spec_from_dict
from gpulens.timeline import COUNTER_COLUMNS, EVENT_COLUMNS, Timeline, make_table


def _copy_heavy(device):
    # one 10 µs kernel and two 100 µs copies on GPU 0, back to back: exposed copies are 200 of 210 µs busy
    ev = make_table(EVENT_COLUMNS, {
        "event_id": [0, 1, 2], "kind": ["memcpy", "kernel", "memcpy"], "name": ["CopyHostToDevice", "k",
                                                                              "CopyDeviceToHost"],
        "start_ns": [0, 100_000, 110_000], "dur_ns": [100_000, 10_000, 100_000], "rank": [0, 0, 0],
        "device_id": [0, 0, 0], "stream_id": [1, 1, 1], "source": ["t"] * 3})
    tl = Timeline(ev, make_table(COUNTER_COLUMNS, {}, n=0)).validate()
    res = gpulens.analyze_timeline(tl, device_spec=device).results["breakdown"]
    return next(f for f in res.findings if f.title.startswith("Exposed memory copies"))


def _spec(name):
    return get_spec(name)


def test_mi300a_is_a_unified_memory_apu_and_mi300x_is_not():
    assert _spec("AMD Instinct MI300A").unified_memory
    assert not _spec("AMD Instinct MI300X").unified_memory


def test_apu_copy_advice_drops_the_copies_instead_of_pinning_them():
    f = _copy_heavy(_spec("AMD Instinct MI300A"))
    assert "share one HBM" in f.detail and "pinned" not in f.detail
    # a discrete AMD GPU keeps the pinned/async-copy advice in HIP's words
    g = _copy_heavy(_spec("AMD Instinct MI300X"))
    assert "hipMemcpyAsync" in g.detail and "share one HBM" not in g.detail


def test_user_spec_file_can_declare_unified_memory():
    spec = spec_from_dict({"name": "my apu", "gfx_arch": "gfx942", "num_sms": 228, "unified_memory": True,
                           "figures": {"memory_bandwidth": [5300, "test"]}})
    assert spec.unified_memory and "share one HBM" in _copy_heavy(spec).detail


def test_real_mi300a_trace_gets_the_apu_advice():
    path = (Path(__file__).resolve().parents[2] / "shared" / "traces" / "rocprof" / "v1_hip_programming_mi300a"
            / "results.json")
    if not path.exists():
        pytest.skip("../shared traces not present")
    src = gpulens.analyze([path]).sources[0]
    f = next(f for f in src.results["breakdown"].findings if f.title.startswith("Exposed memory copies"))
    assert "APU" in f.detail and "pinned host memory" not in f.detail
