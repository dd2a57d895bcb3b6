"""Variants of the shared cases in formats other than the case's own (eighth session): the fault kept, the
format changed. Expected values come from the README of the cases (B02-B07) recomputed here by hand for the
values written, never from gpulens output.

* B03 (TraceLens#1035: rocprofv3 JSON with invalid UTF-8 in strings; bare inf/nan; raw control characters):
  the rocprofv3 JSON reader was "not a readable rocprofv3 JSON file" whatever the mode; now invalid UTF-8 is read
  as U+FFFD (counted) and, with --lenient, control characters / bare inf/nan are repaired (counted), as Kineto does;
  strict mode says where and that --lenient repairs it (exit 2).
* B06 / B07 in rocprofv3 JSON and rocprof v1 CSV: impossible timestamps excluded, overruns clipped per queue.
* B02 in rocprof v1 CSV and rocprofv3 JSON: multi-member gzip, gzip under a plain name.
* B05 in rocprofv3 JSON: an empty dispatch list is "no GPU work" (exit 5).
"""

from __future__ import annotations

import gzip
import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pytest

from gpulens.cli import main
from gpulens.collectors import collect

T = 1_615_207_264_505_000_000  # the B06 epoch, in ns
V1_HEAD = ("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,"
           "wave_size,sig,obj,DispatchNs,BeginNs,EndNs,CompleteNs\n")


def _run(*args):
    err, out = io.StringIO(), io.StringIO()
    with redirect_stderr(err), redirect_stdout(out):
        try:
            code = main(list(map(str, args)))
        except SystemExit as e:
            code = e.code
    return code, err.getvalue() + out.getvalue()


def _v3(dispatches, names=("k0", "k1", "k2", "k3")) -> dict:
    """A rocprofv3 JSON document: ``dispatches`` = [(kernel_id, start_ns, end_ns)] on one queue."""
    info = lambda i, kid: {"agent_id": {"handle": 222}, "queue_id": {"handle": 5}, "kernel_id": kid,  # noqa: E731
                           "dispatch_id": i, "workgroup_size": {"x": 256, "y": 1, "z": 1},
                           "grid_size": {"x": 1024, "y": 1, "z": 1}}
    return {"rocprofiler-sdk-tool": [{
        "metadata": {"pid": 1},
        "agents": [{"id": {"handle": 222}, "type": 2, "node_id": 1, "name": "gfx942",
                    "product_name": "AMD Instinct MI300X", "cu_count": 304, "wave_front_size": 64}],
        "kernel_symbols": [{"kernel_id": i, "formatted_kernel_name": n} for i, n in enumerate(names)],
        "buffer_records": {"kernel_dispatch": [
            {"start_timestamp": s, "end_timestamp": e, "correlation_id": {"internal": i}, "dispatch_info": info(i, k)}
            for i, (k, s, e) in enumerate(dispatches)]}}]}


def _v1(rows) -> str:
    """rocprof v1 results.csv: ``rows`` = [(name, BeginNs, EndNs)] on queue 0."""
    return V1_HEAD + "".join(f'{i},"{n}",0,0,{i},1,1,256,256,0,0,8,0,16,64,0,0,{max(b - 10, 0)},{b},{e},{e + 5}\n'
                             for i, (n, b, e) in enumerate(rows))


def _summary(tmp_path, p):
    code, text = _run("analyze", p, "-q", "--no-cache", "--json", tmp_path / "r.json")
    assert code == 0, text
    return json.loads((tmp_path / "r.json").read_text())["sources"][0]


# B06: valid k_ok1 [T, T+10 µs], k_ok2 [T+20, T+35 µs]; one ts 0/0, one end before start → busy 25 µs, span 35 µs
B06 = [(0, T, T + 10_000), (1, 0, 0), (2, T + 20_000, T + 35_000), (3, T + 40_000, T + 37_000)]
# B07 (µs → ns): gemm_a 100+50, gemm_b 140+20, elementwise_c 170+3,000,000, softmax_d 200+20 on one queue;
# clipped to 40/20/30/20 → busy 110 µs over the span 100-220 µs
B07 = [(0, 100_000, 150_000), (1, 140_000, 160_000), (2, 170_000, 3_000_170_000), (3, 200_000, 220_000)]
B07_NAMES = ("gemm_a", "gemm_b", "elementwise_c", "softmax_d")


@pytest.mark.parametrize("fmt", ["v3json", "v1csv"])
def test_b06_impossible_timestamps_in_amd_formats(tmp_path, fmt):
    if fmt == "v3json":
        p = tmp_path / "9_results.json"
        p.write_text(json.dumps(_v3(B06)))
    else:
        p = tmp_path / "results.csv"
        p.write_text(_v1([(f"k{k}", s, e) for k, s, e in B06]))
    s = _summary(tmp_path, p)["summary"]
    assert (s["span_ns"], s["gpu_busy_ns"]) == (35_000, 25_000)


@pytest.mark.parametrize("fmt", ["v3json", "v1csv"])
def test_b07_overruns_on_one_queue_in_amd_formats(tmp_path, fmt):
    if fmt == "v3json":
        p = tmp_path / "9_results.json"
        p.write_text(json.dumps(_v3(B07, B07_NAMES)))
    else:
        p = tmp_path / "results.csv"
        p.write_text(_v1([(B07_NAMES[k], s, e) for k, s, e in B07]))
    src = _summary(tmp_path, p)
    assert (src["summary"]["gpu_busy_ns"], src["summary"]["span_ns"]) == (110_000, 120_000)
    assert src["top_kernels"][0]["name"] == "gemm_a"  # 40 µs after clipping, not elementwise_c's raw 3 s


def test_b02_multi_member_gzip_in_amd_formats(tmp_path):
    text = _v1([(B07_NAMES[k], s, e) for k, s, e in B07]).encode()
    cut = text.index(b"\n1,") + 1
    p = tmp_path / "results.csv.gz"
    p.write_bytes(gzip.compress(text[:cut]) + gzip.compress(text[cut:]))  # two members, split after row 0
    assert len(collect(p).gpu_events()) == 4
    doc = json.dumps(_v3(B07, B07_NAMES)).encode()
    q = tmp_path / "9_results.json"  # gzip bytes under a plain .json name
    q.write_bytes(gzip.compress(doc[:len(doc) // 2]) + gzip.compress(doc[len(doc) // 2:]))
    assert len(collect(q).gpu_events()) == 4


def test_b05_rocprofv3_json_without_dispatches_is_no_gpu_work(tmp_path):
    p = tmp_path / "9_results.json"
    p.write_text(json.dumps(_v3([])))
    code, text = _run("analyze", p, "--no-cache")
    assert code == 5 and "rocprofv3_json" in " ".join(text.split())


def _b03(tmp_path, raw_name: bytes) -> object:
    doc = json.dumps(_v3([(0, 1000, 2000), (1, 3000, 3500)], names=("fused_XX_v2", "k1"))).encode()
    p = tmp_path / "9_results.json"
    p.write_bytes(doc.replace(b"XX", raw_name))
    return p


def test_b03_invalid_utf8_in_a_rocprofv3_kernel_name_is_read(tmp_path):
    p = _b03(tmp_path, b"\xff\xfe")  # TraceLens#1035: orjson "str is not valid UTF-8" before any report
    tl = collect(p)
    k = tl.gpu_events().sort_values("start_ns")
    assert list(k["dur_ns"]) == [1000, 500]  # 2000-1000, 3500-3000
    assert str(k["name"].iloc[0]) == "fused_\ufffd\ufffd_v2"  # two invalid bytes, two replacement characters
    assert any("2 invalid UTF-8" in w for w in tl.meta.warnings)


@pytest.mark.parametrize("bad", [b"\x01", b'", "x": NaN, "y": "'], ids=["control-char", "bare-nan"])
def test_b03_almost_json_rocprofv3_strict_says_where_lenient_repairs(tmp_path, bad):
    p = _b03(tmp_path, bad)
    code, text = _run("analyze", p, "-q", "--no-cache")
    assert code == 2 and str(p) in text and "line 1, column" in text and "--lenient" in text
    tl = collect(p, strict=False)
    assert list(tl.gpu_events().sort_values("start_ns")["dur_ns"]) == [1000, 500]
    assert any("lenient repairs: 1 " in w for w in tl.meta.warnings)


def test_t06_rocprofv3_json_launches_without_kernels_is_an_incomplete_capture(tmp_path):
    # T06 in rocprofv3 JSON: 5 hipLaunchKernel API records, no kernel dispatch record → "capture incomplete", not
    # a plain "no GPU work" (Kineto, nsys and the rocprofv3 CSV already say so)
    doc = _v3([])
    t = doc["rocprofiler-sdk-tool"][0]
    t["strings"] = {"buffer_records": [{"kind": "NONE", "operations": []},
                                       {"kind": "HIP_RUNTIME_API", "operations": ["hipNone", "hipLaunchKernel"]}]}
    t["buffer_records"]["hip_api"] = [{"kind": 1, "operation": 1, "start_timestamp": 1000 + 100 * i,
                                       "end_timestamp": 1050 + 100 * i, "thread_id": 7,
                                       "correlation_id": {"internal": i}} for i in range(5)]
    p = tmp_path / "9_results.json"
    p.write_text(json.dumps(t and doc))
    code, text = _run("analyze", p, "--no-cache")
    line = " ".join(text.split())
    assert code == 5 and "capture is incomplete" in line and "hipLaunchKernel ×5" in line
