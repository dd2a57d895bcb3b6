"""Classes 8 and 9 of issue 13: rocprof v1 result files read together, AMD parts told apart by CU count (MI250 vs
MI250X, MI300A), and one grid unit (workgroups) in the Timeline whatever unit the ROCm tools recorded.
"""

from __future__ import annotations

import gzip
import json
import shutil

import pytest

from gpulens.collectors import collect
from gpulens.devices import identify_device
from tests.conftest import DATA, KINETO

GUNROCK = DATA / "rocprof" / "v1_gunrock_mi300x"


def rocminfo_gpu(cus: int, name: str = "AMD Instinct MI250X / MI250", arch: str = "gfx90a") -> str:
    """A rocminfo dump with one GPU agent (layout of rocprof v1's results.sysinfo.txt)."""
    return ("=====================    \nHSA Agents               \n==========               \n"
            "*******                  \nAgent 1                  \n*******                  \n"
            f"  Name:                    {arch}\n  Marketing Name:          {name}\n"
            "  Node:                    2\n  Device Type:             GPU\n"
            f"  Compute Unit:            {cus}\n  Wavefront Size:          64(0x40)\n")


@pytest.mark.parametrize("rec,want", [
    # rocminfo names both dual-GCD parts "MI250X / MI250": 104 CUs per GCD is an MI250, 110 an MI250X
    ({"name": "AMD Instinct MI250X / MI250", "gfx_arch": "gfx90a", "num_sms": 104}, "AMD Instinct MI250 (one GCD)"),
    ({"name": "AMD Instinct MI250X / MI250", "gfx_arch": "gfx90a", "num_sms": 110}, "AMD Instinct MI250X (one GCD)"),
    ({"name": "AMD Instinct MI250X", "gfx_arch": "gfx90a", "num_sms": 104}, "AMD Instinct MI250 (one GCD)"),
    ({"name": "AMD Instinct MI300A", "gfx_arch": "gfx942", "num_sms": 228}, "AMD Instinct MI300A"),
    ({"name": "AMD Radeon Graphics", "gfx_arch": "gfx942", "num_sms": 228}, "AMD Instinct MI300A"),
    ({"name": "AMD Radeon Graphics", "gfx_arch": "gfx942", "num_sms": 304}, "AMD Instinct MI300X"),
])
def test_amd_part_by_name_and_cu_count(rec, want):
    assert identify_device(rec).name == want


def test_mi300a_spec_figures_follow_the_rocm_formula():
    s = identify_device({"name": "AMD Instinct MI300A", "gfx_arch": "gfx942", "num_sms": 228})
    # ROCm: peak = FLOP/clock/CU × CUs × clock; MI300 BF16 MFMA 2048 FLOP/clk/CU × 228 CUs × 2.1 GHz = 980.6 TF
    assert s.num_sms == 228
    assert s.figures["matrix.bf16"].value == pytest.approx(2048 * 228 * 2.1e9, rel=1e-3)
    assert s.figures["matrix.fp64"].value == pytest.approx(256 * 228 * 2.1e9, rel=1e-3)
    assert s.figures["matrix.bf16"].source


def test_results_csv_alone_reads_the_sysinfo_beside_it(tmp_path):
    shutil.copy(GUNROCK / "results.csv", tmp_path / "results.csv")
    (tmp_path / "results.sysinfo.txt").write_text(rocminfo_gpu(104))
    tl = collect(tmp_path / "results.csv")
    dev = tl.meta.devices[0]
    assert dev["num_sms"] == 104 and identify_device(dev).name == "AMD Instinct MI250 (one GCD)"
    assert any("results.sysinfo.txt" in w for w in tl.meta.warnings)


def test_results_csv_in_its_folder_is_not_doubled(tmp_path):
    for f in ("results.csv", "results.stats.csv", "results.sysinfo.txt"):
        shutil.copy(GUNROCK / f, tmp_path / f)
    alone, folder = collect(tmp_path / "results.csv"), collect(tmp_path)
    # SOURCES.md: results.stats.csv has 8 rows; the rocminfo dump lists the node's GPUs once each
    assert len(folder.tables["rocprof_stats"]) == 8 and len(alone.tables["rocprof_stats"]) == 8
    assert len(folder.meta.devices) == len(alone.meta.devices)


def _kineto(tmp_path, kernels, **top):
    """A ROCm Kineto trace (hip_runtime_version) with (launch API, grid, block) kernels."""
    ev = []
    for i, (api, grid, block) in enumerate(kernels, start=1):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": api, "pid": 9, "tid": 9, "ts": 1000 + 10 * i, "dur": 2,
                   "args": {"correlation": i}})
        ev.append({"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 2, "tid": 1, "ts": 1005 + 10 * i, "dur": 3,
                   "args": {"device": 0, "stream": 0, "correlation": i, "grid": grid, "block": block}})
    p = tmp_path / "rocm.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev, **top}))
    k = collect(p).gpu_events().set_index("name")
    return {n: (tuple(int(v) for v in r[["grid_x", "grid_y", "grid_z"]]),
                tuple(int(v) for v in r[["block_x", "block_y", "block_z"]])) for n, r in k.iterrows()}


def test_roctracer_ext_module_launch_grid_is_work_items(tmp_path):
    got = _kineto(tmp_path, [("hipExtModuleLaunchKernel", [73728, 2, 1], [256, 1, 1]),
                             ("hipLaunchKernel", [288, 1, 1], [256, 1, 1])], hip_runtime_version=60443483)
    # 73728 work-items in workgroups of 256 → 288 workgroups (y: 2 items / 1 → 2); hipLaunchKernel is in blocks
    assert got == {"k1": ((288, 2, 1), (256, 1, 1)), "k2": ((288, 1, 1), (256, 1, 1))}


def test_rocprofiler_sdk_swapped_grid_and_workgroup(tmp_path):
    got = _kineto(tmp_path, [("hipLaunchKernel", [256, 1, 1], [524288, 1, 1]),
                             ("hipLaunchKernel", [512, 1, 1], [512, 128, 1]),
                             ("hipExtModuleLaunchKernel", [256, 1, 1], [65536, 1, 1])],
                  hip_runtime_version=70051831, **{"rocprofiler-sdk_version": 1.0})
    # grid field = workgroup size, block field = work-items: 524288/256 = 2048; (512,128)/(512,1) = (1,128)
    assert got == {"k1": ((2048, 1, 1), (256, 1, 1)), "k2": ((1, 128, 1), (512, 1, 1)),
                   "k3": ((256, 1, 1), (256, 1, 1))}


def test_cuda_trace_grid_untouched(tmp_path):
    got = _kineto(tmp_path, [("cudaLaunchKernel", [73728, 1, 1], [256, 1, 1])])
    assert got == {"k1": ((73728, 1, 1), (256, 1, 1))}


def test_real_rocm_trace_workgroups_from_work_items():
    # tracelens_mi210_gpu_only: kernels launched by hipExtModuleLaunchKernel record grid in work-items;
    # expected workgroups derived from the file with plain json: ceil(grid / block) for each such kernel
    raw = json.loads(gzip.decompress((KINETO / "tracelens_mi210_gpu_only.json.gz").read_bytes()))
    ev = raw["traceEvents"]
    ext = {e["args"]["correlation"] for e in ev if e.get("cat") == "cuda_runtime"
           and e["name"] == "hipExtModuleLaunchKernel" and "correlation" in e.get("args", {})}
    want = sorted(-(-e["args"]["grid"][0] // e["args"]["block"][0]) for e in ev
                  if e.get("cat") == "kernel" and e.get("args", {}).get("correlation") in ext)
    k = collect(KINETO / "tracelens_mi210_gpu_only.json.gz").gpu_events()
    linked = k[k["correlation_id"].isin(ext)]
    assert len(want) > 100 and sorted(int(g) for g in linked["grid_x"]) == want
