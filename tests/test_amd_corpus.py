"""Every AMD file and folder of the development corpus loads, with the collector meant for it (skips without
../shared). Facts per file are checked in test_rocprof_v1 / test_rocprofv3 / test_omniperf."""

from __future__ import annotations

import pytest

from gpulens.collectors import collect, sniff
from tests.conftest import SHARED

EXPECTED = {  # file name pattern -> collector
    "results.csv": "rocprof_v1", "output_vec_add_gpu.csv": "rocprof_v1", "bankconflicts.csv": "rocprof_v1",
    "data_movement.csv": "rocprof_v1", "results.db": "rocprof_v1_db", "results.json": "rocprof_v1_json",
    "results.sysinfo.txt": "rocminfo", "908_results.json.gz": "rocprofv3_json", "kernel_trace.csv": "rocprofv3_csv",
    "memory_copy_trace.csv": "rocprofv3_csv", "counter_collection.csv": "rocprofv3_csv",
}


def corpus(kind: str) -> list:
    if not SHARED.exists():
        return []
    root = SHARED
    slow = "v3_json_mi350x"  # the 43,915-dispatch JSON has its own test (test_rocprofv3)
    if kind == "files":
        return sorted(p for sub in ("rocprof", "omniperf") for p in (root / sub).rglob("*")
                      if p.is_file() and p.parent.name != slow)
    return sorted(p for sub in ("rocprof", "omniperf") for p in (root / sub).iterdir() if p.is_dir() and p.name != slow)


@pytest.mark.parametrize("path", corpus("files"), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_amd_file_loads(path):
    c = sniff(path)
    assert c is not None, f"{path} not recognised"
    if path.name in EXPECTED:
        assert c.name == EXPECTED[path.name]
    elif path.name.endswith("stats.csv"):
        assert c.name == "rocprof_stats"
    tl = collect(path)
    assert len(tl.events) + len(tl.rejected) + len(tl.meta.devices) + len(tl.tables) > 0


@pytest.mark.parametrize("path", corpus("dirs"), ids=lambda p: p.name)
def test_every_amd_folder_loads_without_double_counting(path):
    tl = collect(path)
    k = tl.of_kind("kernel", "comm")
    if path.name == "v1_gunrock_mi300x":  # 56 dispatches = 37 kernels + 19 __amd_rocclr_copyBuffer copies
        g = tl.gpu_events()
        g = g[g["kind"].isin(["kernel", "comm"]) | g["name"].astype(str).str.startswith("__amd_rocclr_")]
        assert len(g) == 56 and int(g["dur_ns"].sum()) == 9_025_354  # results.csv and results.db not both
    if path.name == "v1_hip_programming_mi300a":
        assert len(k) == 1 and len(tl.events) == 17  # results.json and results.db not both
        c = tl.counters[tl.counters["event_id"] == k["event_id"].iloc[0]].set_index("metric")["value"]
        assert c["GPUBusy"] == 100.0 and c["Wavefronts"] == 15_625_000.0  # counter-mode pass joined by name
    if path.name == "v3_csv_sdk_docs":
        assert len(k) == 7
    if path.name == "vcopy_MI200":
        assert len(k) == 3
