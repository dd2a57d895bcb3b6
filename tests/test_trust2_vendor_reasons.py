"""Vendor words in findings' advice and skip reasons that the console, Markdown and JSON show on an AMD input.

Kind: sentences written once for "any GPU" named another vendor's API or tool: the exposed-memcpy finding told a
rocprof user to use ``cudaMemcpyAsync / hipMemcpyAsync`` (rocprof v1 MI300A vector-add: 1.07 s of exposed copies),
and the NVTX skip reason told an AMD user to make an "Nsight Systems export with nvtx tracing". Each sentence now
takes the input's vendor (``gpulens.analyzers._advice.vendor_of``), both vendors' words only when it is unknown.
"""

from __future__ import annotations

import json
from pathlib import Path

from gpulens.analyzers import _advice
from gpulens.report import analyze
from gpulens.reports import console, json_report, markdown

DATA = Path(__file__).parent / "data"
AMD = DATA / "rocprof" / "v1_gunrock_mi300x"

_KH = ('"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",'
       '"Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X",'
       '"Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"\n')
_MH = '"Kind","Direction","Source_Agent_Id","Destination_Agent_Id","Correlation_Id","Start_Timestamp","End_Timestamp"\n'


def _copy_bound_rocprofv3(tmp_path: Path) -> Path:
    """A rocprofv3 CSV run: a 100 µs host-to-device copy [1 000 000, 1 100 000) ns, then one 10 µs kernel
    [1 100 000, 1 110 000) ns on agent 1. By hand: GPU span 110 µs, exposed memcpy 100 µs = 90.9 % of it (> the 5 %
    that makes an exposed-memcpy finding)."""
    d = tmp_path / "run"
    d.mkdir()
    (d / "kernel_trace.csv").write_text(
        _KH + '"KERNEL_DISPATCH",1,1,69,1,16,"void add_kernel(float*, int)",2,1100000,1110000,0,0,256,1,1,'
        '65536,1,1\n')
    (d / "memory_copy_trace.csv").write_text(_MH + '"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0,1,1,1000000,1100000\n')
    return d


def _drop_docs(v):
    """The JSON without its column documentation (static text describing both vendors' columns)."""
    if isinstance(v, dict):
        return {k: _drop_docs(x) for k, x in v.items() if k != "columns"}
    if isinstance(v, list):
        return [_drop_docs(x) for x in v]
    return v


def _outputs(rep) -> dict[str, str]:
    return {"console": console.render(rep, width=160), "markdown": markdown.render(rep),
            "json": json.dumps(_drop_docs(json.loads(json_report.render(rep))), ensure_ascii=False)}


def test_exposed_copy_advice_on_amd_names_hip_only(tmp_path):
    rep = analyze([str(_copy_bound_rocprofv3(tmp_path))])
    bd = rep.sources[0].results["breakdown"]
    assert bd.summary["exposed_memcpy_ns"] == 100_000  # the hand figure above
    f = [x for x in bd.findings if x.key == "exposed-memcpy"]
    assert len(f) == 1 and "hipMemcpyAsync" in f[0].detail and "cuda" not in f[0].detail.lower()
    for fmt, text in _outputs(rep).items():
        assert "hipMemcpyAsync" in text, fmt
        assert "cudaMemcpy" not in text, fmt


def test_exposed_copy_advice_per_vendor():
    assert "(cudaMemcpyAsync)" in _advice.exposed_copy_detail(False, vendor="nvidia")
    assert "(hipMemcpyAsync)" in _advice.exposed_copy_detail(False, vendor="amd")
    both = _advice.exposed_copy_detail(False, vendor=None)
    assert "cudaMemcpyAsync" in both and "hipMemcpyAsync" in both


def test_nvtx_skip_reason_on_amd_names_no_nvidia_tool():
    rep = analyze([str(AMD)])
    why = rep.sources[0].results["nvtx"].skipped_reason
    assert why and "Nsight" not in why and "nsys" not in why and "ROCTX" in why
    md = markdown.render(rep)
    js = json.loads(json_report.render(rep))
    assert "Nsight Systems" not in md
    assert js["sources"][0]["analyses"]["nvtx"]["skipped_reason"] == why


# ---- the vendor of a Kineto trace without device properties: its runtime API ------------------------------------

def _kineto_without_device(tmp_path: Path, launch: str) -> Path:
    """A Kineto trace with no deviceProperties and no GPU name: three 50 µs kernels, each launched by a ``launch``
    runtime call (the legacy TensorBoard-plugin ResNet-50 trace is one: it records cudaLaunchKernel only)."""
    ev = []
    for i in range(3):
        t = 1000 + i * 200
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": launch,
                   "pid": 1, "tid": 1, "ts": t, "dur": 5, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "void my_kernel(float*)", "pid": 0, "tid": 7, "ts": t + 20,
                   "dur": 50, "args": {"device": 0, "stream": 7, "correlation": i + 1, "grid": [4, 1, 1],
                                       "block": [256, 1, 1]}})
    p = tmp_path / f"{launch}.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def test_kineto_vendor_from_its_runtime_calls(tmp_path):
    nv = analyze([str(_kineto_without_device(tmp_path, "cudaLaunchKernel"))])
    amd = analyze([str(_kineto_without_device(tmp_path, "hipLaunchKernel"))])
    tl_nv, tl_amd = nv.sources[0].timeline, amd.sources[0].timeline
    assert _advice.vendor_of(tl_nv) == "nvidia" and _advice.vendor_of(tl_amd) == "amd"
    # every report of the CUDA trace names NVIDIA's tools only, of the HIP trace AMD's only
    for fmt, text in _outputs(nv).items():
        assert "rocprof" not in text and "CUDA/HIP" not in text and "SM/CU" not in text, fmt
    for fmt, text in _outputs(amd).items():
        assert "ncu --set full" not in text and "CUDA/HIP" not in text and "SM/CU" not in text, fmt


def test_achieved_occupancy_finding_on_amd_says_wavefronts():
    """rocprof-compute vcopy on MI300X: 26 % achieved of 100 % theoretical occupancy (under half: the finding is
    made; the grid is 4,096 blocks / (8 resident × 304 CUs) = 1.68 waves, not a few-waves grid). Its detail began
    "Warps finish unevenly" — capitalised, so the lower-case vendor-word checks missed it."""
    import re

    rep = analyze([str(DATA / "omniperf" / "vcopy_MI300X_A1")])
    occ = rep.sources[0].results["occupancy"]
    row = occ.table.iloc[0]
    assert row["grid_blocks"] == 4096 and row["active_blocks_per_sm"] == 8
    assert abs(row["waves_per_sm"] - 4096 / (8 * 304)) < 1e-9
    f = [x for x in occ.findings if x.key.endswith("/achieved")]
    assert len(f) == 1 and f[0].detail.startswith("Wavefronts finish unevenly")
    out = _outputs(rep)
    # JSON: the limiter columns hold enum values (registers | shared_memory | warps | blocks), not prose
    out["json"] = re.sub(r'"limiters?": "[^"]*"', "", out["json"])
    for fmt, text in out.items():
        assert not re.search(r"\bwarps?\b", text, re.I), (fmt, re.search(r".{40}\bwarps?\b.{40}", text, re.I))


def test_limiter_advice_in_amd_words():
    """The occupancy limiter's next step for every owner of the kernel (user code, Triton, Inductor, AOTriton, a
    library) and both resources: on AMD LDS and amdgpu_waves_per_eu, never shared memory or -maxrregcount (the
    MI300X LDS-limited GEMM of test_occupancy was told "Use less shared memory per block")."""
    import re

    names = [("my_kernel", None), ("triton_poi_fused_0", "triton"), ("triton_red_fused_1", "inductor"),
             ("attn_fwd", "aotriton"), ("Cijk_Ailk_Bljk_HHS_BH_MT128x128x32", None)]
    for res in ("registers", "shared_memory"):
        for name, hint in names:
            for lb in (False, True):
                amd = _advice.limiter(res, name, False, latency_bound=lb, hint=hint, vendor="amd")
                assert not re.search(r"shared memory|maxrregcount", amd), (res, name, amd)
                nv = _advice.limiter(res, name, False, latency_bound=lb, hint=hint, vendor="nvidia")
                assert "LDS" not in nv and "amdgpu" not in nv, (res, name, nv)
    assert "Use less LDS per block" in _advice.limiter("shared_memory", "my_kernel", vendor="amd")
    assert "amdgpu_waves_per_eu" in _advice.limiter("registers", "my_kernel", vendor="amd")
