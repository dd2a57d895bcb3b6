"""Tenth-session variants of the shared cases (../shared/cases): the fault of a case carried into another format,
another size, another field, another place in the run. Each input is built here and its expected value is worked
out by hand in the test from the values written (never from gpulens output).

* B06 (ts 0 / dur 0 placeholders, end before start) in an Nsight Systems export: the placeholder kernel at start 0
  was kept as a kernel (3 kernels for 2, and a 1.7e9 s "clock jump" between two time bases in the verdict); it is now
  rejected by the Kineto reader's rule, judged over every table of the export.
* F34 (a baseline whose samples cannot be statistics) with other bad samples: ``1e308`` (the median of two is inf:
  ``gpulens gate --json`` ended in an internal error, exit 70), negative timings (read as an improvement), booleans
  (read as 1 and 0), ``null`` lists; now a one-line "malformed baseline" error naming the metric (exit 2).
"""

from __future__ import annotations

import copy
import io
import json
import sqlite3
from contextlib import redirect_stderr, redirect_stdout

import pytest

from gpulens.cli import main
from gpulens.collectors import collect
from gpulens.errors import BaselineError
from gpulens.gate.baseline import Baseline

from .conftest import CASES


def _run(*args) -> tuple[int, str]:
    err, out = io.StringIO(), io.StringIO()
    with redirect_stderr(err), redirect_stdout(out):
        try:
            code = main([str(a) for a in args])
        except SystemExit as e:
            code = e.code
    return code, err.getvalue() + out.getvalue()


# ------------------------------------------------------------------------------------------------ B06 in nsys
def _nsys(path, kernels, memcpys=()):
    """A minimal Nsight Systems export: ``kernels`` = [(start, end, streamId, name)] (ns), ``memcpys`` =
    [(start, end, bytes)] on stream 7."""
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, "end" INTEGER NOT NULL, deviceId INTEGER,
            contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,
            shortName INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, "end" INTEGER, deviceId INTEGER, contextId INTEGER,
            streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER);
    """)
    names = sorted({k[3] for k in kernels})
    con.executemany("INSERT INTO StringIds VALUES (?, ?)", list(enumerate(names, 1)))
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, ?, ?, 1, ?, ?)",
                    [(a, b, s, i, names.index(n) + 1, names.index(n) + 1) for i, (a, b, s, n) in enumerate(kernels)])
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 1, 7, ?, 1, ?, 1)",
                    [(a, b, 100 + i, n) for i, (a, b, n) in enumerate(memcpys)])
    con.commit()
    con.close()
    return path


T = 1_615_207_264_505_000_000  # B06's epoch (1615207264505000 µs), in ns


@pytest.mark.parametrize("where", ["first", "last"])
def test_b06_placeholder_zero_start_in_nsys_is_rejected_not_a_clock_jump(tmp_path, where):
    ok = [(T, T + 10_000, 7, "k_ok1"), (T + 20_000, T + 35_000, 13, "k_ok2")]
    bad = [(0, 0, 7, "k_unset"), (T + 50_000, T + 47_000, 7, "k_backwards")]  # ts 0/dur 0; end 3 µs before start
    rows = bad + ok if where == "first" else ok + bad
    p = _nsys(tmp_path / "run.sqlite", rows, memcpys=[(0, 0, 4096), (T + 11_000, T + 12_000, 4096)])
    code, _ = _run("analyze", p, "-q", "--no-cache", "--json", tmp_path / "r.json")
    assert code == 0
    src = json.loads((tmp_path / "r.json").read_text())["sources"][0]
    s = src["summary"]
    # valid: k_ok1 10 µs [T, T+10], memcpy 1 µs [T+11, T+12], k_ok2 15 µs [T+20, T+35] → busy 26 µs, span 35 µs
    assert (s["kernel_count"], s["memcpy_count"], s["memcpy_bytes"]) == (2, 1, 4096)
    assert (s["gpu_busy_ns"], s["span_ns"]) == (26_000, 35_000)
    assert not src["clock_note"]  # no second time base: the 0s were placeholders
    w = " ".join(src["warnings"])
    assert "zero timestamp (never recorded) ×2" in w and "end before start ×1" in w


def test_nsys_capture_whose_clock_starts_at_0_keeps_its_first_kernel(tmp_path):
    # a session clock starting at 0: the other starts (12, 25 µs) lie within 10x their extent (13 µs) of 0, so the
    # kernel at 0 is real: 10 + 8 + 5 µs
    p = _nsys(tmp_path / "run.sqlite", [(0, 10_000, 7, "a"), (12_000, 20_000, 7, "b"), (25_000, 30_000, 7, "c")])
    tl = collect(p)
    k = tl.gpu_events()
    assert sorted(k["start_ns"].tolist()) == [0, 12_000, 25_000] and int(k["dur_ns"].sum()) == 23_000
    assert len(tl.rejected) == 0


# --------------------------------------------------------------------------------------- F34 baseline samples
# The layout of ../shared/cases/F/F34_baseline_empty_samples.json (a baseline `gpulens baseline save` wrote), cut to
# one run metric and one kernel metric.
BASE = {"gpulens_baseline": 1, "name": "main", "created": "2026-11-30T23:43:53+00:00",
        "tool": {"name": "gpulens", "version": "0.1.0"}, "report_schema_version": 1,
        "machine_key": "nvidia-a100-pg509-200-x8-a19f0883",
        "environment": {"arch": ["8.0"], "collectors": ["kineto"], "driver": None, "gpu_count": 8,
                        "gpus": ["NVIDIA A100-PG509-200"], "ranks": 1, "runtime": None, "sm_clock_mhz": None,
                        "tool_version": "0.1.0", "torch": None},
        "excluded": [], "git": {},
        "runs": [{"created": "2026-11-30T23:43:10+00:00", "label": f"r{i}", "report": f"r{i}.json", "status": "ok"}
                 for i in (1, 2, 3)],
        "metrics": {"gpu_busy_ns": {"direction": "lower", "kind": "timing", "samples": [], "unit": "ns"},
                    "kernel:ampere_gcgemm_64x64_nt": {"calls": [2, 2, 2], "direction": "lower", "kind": "timing",
                                                      "samples": [], "share": [0.060419] * 3, "unit": "ns"}}}


def _baseline(samples=None, share=None, calls=None, metric="gpu_busy_ns") -> dict:
    """The F34 baseline with every metric given 3 good samples, then one field of ``metric`` replaced."""
    b = copy.deepcopy(BASE)
    for m in b["metrics"].values():
        m["samples"] = [1000.0, 1100.0, 1050.0]
    m = b["metrics"][metric]
    for k, v in (("samples", samples), ("share", share), ("calls", calls)):
        if v is not None:
            m[k] = None if v == "null" else v
    return b


@pytest.mark.parametrize("field,value,says", [
    ("samples", [1e308, 1e308], "out of range"),  # median (1e308 + 1e308) / 2 = inf
    ("samples", [-5.0, 1000.0], "negative"),  # a time below zero is no measurement
    ("samples", [True, False], "not a number"),  # JSON booleans are not 1 and 0 ns
    ("samples", ["1000"], "not a number"),
    ("samples", "null", "not a list"),
    ("samples", [float("inf")], "non-finite"),
    ("share", [1.5, 0.2, 0.2], "not a fraction"),  # a kernel's share of kernel time is at most 1
    ("calls", [2.5, 2, 2], "whole number"),
])
def test_f34_baseline_samples_that_are_not_amounts_are_a_malformed_baseline(field, value, says):
    metric = "gpu_busy_ns" if field == "samples" else next(k for k in BASE["metrics"] if k.startswith("kernel:"))
    doc = _baseline(metric=metric, **{field: value})
    with pytest.raises(BaselineError) as ei:
        Baseline.from_dict(doc)
    assert says in str(ei.value) and repr(metric) in str(ei.value)


def test_f34_baseline_of_good_samples_still_loads():
    b = Baseline.from_dict(_baseline())
    assert b.metrics["gpu_busy_ns"].samples == [1000.0, 1100.0, 1050.0]


def test_f34_huge_samples_are_one_line_exit_2_not_an_internal_error(tmp_path):
    base = tmp_path / "base.json"
    base.write_text(json.dumps(_baseline(samples=[1e308, 1e308])))
    cand = tmp_path / "cand.json"
    assert _run("analyze", "-q", "--no-cache", CASES / "B04a.json", "--json", cand)[0] == 0
    code, text = _run("gate", "-q", "--baseline", base, cand, "--json", tmp_path / "g.json", "--allow-cross-machine")
    assert code == 2 and text.strip().count("\n") == 0 and str(base) in text and "malformed baseline" in text


# ------------------------------------------------------------------------------- B11 launches of other vendors
def _launch_trace(path, cat, names, copy_call=None):
    """A Kineto trace: call i (``names[i]``, category ``cat``) launches kernel i (8 µs) by correlation i+1; one more
    call of ``names[0]`` (correlation 99) has no kernel in the window; ``copy_call`` (correlation 50) enqueues a
    4 µs memcpy."""
    evs = []
    for i, n in enumerate(names):
        evs.append({"ph": "X", "cat": cat, "name": n, "pid": 70, "tid": 70, "ts": 1000 + 20 * i, "dur": 5,
                    "args": {"correlation": i + 1}})
        evs.append({"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": "stream 1", "ts": 1010 + 20 * i,
                    "dur": 8, "args": {"device": 0, "stream": 1, "correlation": i + 1}})
    evs.append({"ph": "X", "cat": cat, "name": names[0], "pid": 70, "tid": 70, "ts": 2000, "dur": 5,
                "args": {"correlation": 99}})
    if copy_call:
        evs.append({"ph": "X", "cat": cat, "name": copy_call, "pid": 70, "tid": 70, "ts": 1500, "dur": 5,
                    "args": {"correlation": 50}})
        evs.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0,
                    "tid": "stream 1", "ts": 1510, "dur": 4, "args": {"device": 0, "stream": 1, "correlation": 50,
                                                                      "bytes": 4096}})
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": evs}))
    return path


@pytest.mark.parametrize("cat,names,copy_call", [
    # Intel XPU (Kineto XPUPTI): Unified Runtime calls in xpu_runtime, Level Zero calls in xpu_driver
    ("xpu_runtime", ["urEnqueueKernelLaunch", "urEnqueueKernelLaunchWithArgsExp", "urEnqueueKernelLaunch"],
     "urEnqueueUSMMemcpy"),
    ("xpu_driver", ["zeCommandListAppendLaunchKernel"] * 3, "zeCommandListAppendMemoryCopy"),
    # HIP driver-style and Ex launches (ROCm 6.2+), recorded by Kineto under cuda_runtime
    ("cuda_runtime", ["hipDrvLaunchKernelEx", "hipLaunchKernelExC", "hipExtLaunchKernel"], "hipMemcpyAsync"),
    # a PrivateUse1 backend whose launch API is in no table: known by the kernels it launched
    ("privateuse1_runtime", ["aclrtLaunchKernel"] * 3, "aclrtMemcpyAsync"),
])
def test_b11_launch_calls_of_every_vendor_are_counted_and_linked(tmp_path, cat, names, copy_call):
    p = _launch_trace(tmp_path / "t.json", cat, names, copy_call)
    code, _ = _run("analyze", p, "-q", "--no-cache", "--json", tmp_path / "r.json")
    assert code == 0
    src = json.loads((tmp_path / "r.json").read_text())["sources"][0]
    la = src["analyses"]["launches"]["summary"]
    # 3 calls that launched a kernel + 1 (correlation 99) that launched none in the window; the copy call is not a
    # launch; every kernel linked: 3 kernels × 8 µs, the memcpy 4 µs apart
    assert (la["launch_calls"], la["kernels_linked"], la["kernels_unlinked"]) == (4, 3, 0)
    assert la["launch_calls_without_gpu_work"] == 1
    assert (src["summary"]["kernel_count"], src["summary"]["kernel_time_ns"]) == (3, 24_000)
    ll = src["analyses"]["launch_latency"]["summary"]  # launch call start (1000 + 20 i) → kernel start (1010 + 20 i)
    assert (ll["launches"], ll["latency_max_ns"]) == (3, 10_000)


@pytest.mark.parametrize("cat,name", [("xpu_runtime", "urEnqueueKernelLaunch"),
                                      ("cuda_runtime", "hipDrvLaunchKernelEx"), ("cuda_driver", "cuLaunchKernelEx")])
def test_t06_launch_calls_of_any_vendor_without_kernels_is_an_incomplete_capture(tmp_path, cat, name):
    # T06's kind in a Kineto trace: 4 launch calls (correlation 7–10), no GPU record at all
    evs = [{"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 1, "ts": 100 + 10 * i, "dur": 3,
            "args": {"correlation": 7 + i}} for i in range(4)]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": evs}))
    code, text = _run("analyze", p, "--no-cache")
    line = " ".join(text.split())
    assert code == 5 and "capture is incomplete" in line and f"{name} ×4" in line and "correlation 7–10" in line


# ---------------------------------------------------------------------------- T05 copies recorded as kernels
# (name, µs, what it is): ROCm 7.1 Kineto writes rocprofiler-sdk copies as cat=kernel MEMORY_COPY_* events
# (TraceLens PR#613 rebuckets them), and rocclr's blit kernels come in more spellings than T05.json's
T05_ROWS = [("Cijk_Alik_Bljk_BBS_BH_MT128x128x64_demo", 100, "compute"), ("MEMORY_COPY_HOST_TO_DEVICE", 20, "copy"),
            ("MEMORY_COPY_DEVICE_TO_DEVICE", 15, "copy"), ("MEMORY_COPY_DEVICE_TO_HOST", 10, "copy"),
            ("__amd_rocclr_copyBufferBatchIndirect", 7, "copy"), ("__amd_rocclr_fillBufferAligned2D.kd", 5, "fill"),
            ("__amd_rocclr_copyBufferRectAligned.kd", 3, "copy")]


@pytest.mark.parametrize("fmt", ["kineto", "rocprofv3_csv"])
def test_t05_rocm_copies_recorded_as_kernels_are_not_computation(tmp_path, fmt):
    t, evs, lines = 1000, [], []
    for i, (name, us, _) in enumerate(T05_ROWS):  # back to back on one queue
        evs.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": "stream 0", "ts": t, "dur": us,
                    "args": {"device": 0, "stream": 0, "grid": [1024, 1, 1], "block": [256, 1, 1]}})
        lines.append(f'"KERNEL_DISPATCH",1,1,69,{i + 1},{i + 16},"{name}",{i + 1},{t * 1000},{(t + us) * 1000},0,0,'
                     "256,1,1,1024,1,1")
        t += us
    if fmt == "kineto":
        p = tmp_path / "t.json"
        p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": evs}))
    else:
        from tests.case_variants import V3_HEAD

        p = tmp_path / "kernel_trace.csv"
        p.write_text(V3_HEAD + "\n" + "\n".join(lines) + "\n")
    code, _ = _run("analyze", p, "-q", "--no-cache", "--json", tmp_path / "r.json")
    assert code == 0
    s = json.loads((tmp_path / "r.json").read_text())["sources"][0]["summary"]
    us = {k: 1000 * sum(d for _, d, w in T05_ROWS if w == k) for k in ("compute", "copy", "fill")}
    assert us == {"compute": 100_000, "copy": 55_000, "fill": 5_000}  # 20 + 15 + 10 + 7 + 3 µs of copies
    assert (s["computation_ns"], s["exposed_memcpy_ns"], s["exposed_memset_ns"]) == (
        us["compute"], us["copy"], us["fill"])
    assert s["gpu_busy_ns"] == s["span_ns"] == 160_000 and s["memcpy_count"] == 5


def test_t05_memory_copy_names_give_the_copy_direction(tmp_path):
    evs = [{"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": "stream 0", "ts": 10 * i, "dur": 5,
            "args": {"device": 0, "stream": 0}} for i, n in enumerate(
        ["MEMORY_COPY_HOST_TO_DEVICE", "MEMORY_COPY_DEVICE_TO_HOST", "MEMORY_COPY_DEVICE_TO_DEVICE"])]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": evs}))
    e = collect(p).events.sort_values("start_ns")
    assert list(e["kind"].astype(str)) == ["memcpy"] * 3
    assert list(e["copy_kind"].astype(str)) == ["HtoD", "DtoH", "DtoD"]


# ------------------------------------------------------------------------- B12 copies under the kernel category
@pytest.mark.parametrize("copy_name,copy_api,fill_name,fill_api", [
    ("CopyDeviceToDevice", "hipMemcpyAsync", "FillBuffer", "hipMemsetAsync"),  # roctracer operation names
    ("[CUDA memcpy DtoD]", "cudaMemcpyAsync", "[CUDA memset]", "cudaMemsetAsync"),  # nvprof / nsys spelling
    ("blit_op_17", "hipMemcpyWithStream", "blit_op_18", "hipMemsetD32Async"),  # names no rule knows: the call decides
    ("", "urEnqueueUSMMemcpy", "", "urEnqueueUSMFill"),  # unnamed (XPU calls)
])
def test_b12_copy_recorded_as_a_kernel_is_a_copy_by_name_or_by_its_call(tmp_path, copy_name, copy_api, fill_name,
                                                                         fill_api):
    def call(name, ts, corr, cat="cuda_runtime"):
        return {"ph": "X", "cat": cat, "name": name, "pid": 70, "tid": 70, "ts": ts, "dur": 2,
                "args": {"correlation": corr}}

    def gpu(name, ts, dur, corr, **args):
        return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": "stream 0", "ts": ts, "dur": dur,
                "args": {"device": 0, "stream": 0, "correlation": corr, **args}}

    evs = [call(copy_api, 5, 3), gpu(copy_name, 30, 3, 3),  # B12's third event: a copy, 3 µs, bytes unknown
           call(fill_api, 35, 4), gpu(fill_name, 40, 1, 4),  # a fill, 1 µs
           call("hipLaunchKernel", 45, 5), gpu("gemm_main", 50, 30, 5, grid=[64, 1, 1], block=[256, 1, 1]),
           # a kernel with a launch geometry is a kernel even under a copy call's correlation id (a reused id)
           call(copy_api, 85, 6), gpu("gemm_tail", 90, 10, 6, grid=[8, 1, 1], block=[128, 1, 1])]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": evs}))
    code, _ = _run("analyze", p, "-q", "--no-cache", "--json", tmp_path / "r.json")
    assert code == 0
    s = json.loads((tmp_path / "r.json").read_text())["sources"][0]["summary"]
    # compute: gemm_main 30 + gemm_tail 10 µs; copy 3 µs (bytes unknown); fill 1 µs; all on one queue, no overlap
    assert (s["kernel_count"], s["computation_ns"]) == (2, 40_000)
    assert (s["memcpy_count"], s["memcpy_bytes"], s["memcpy_sizes_unknown"]) == (1, None, 1)  # bytes unknown
    assert (s["exposed_memcpy_ns"], s["exposed_memset_ns"], s["gpu_busy_ns"]) == (3_000, 1_000, 44_000)


# ----------------------------------------------------------------------------------- B02 compressed databases
def _b07_nsys(path):
    # B07's stream in ns: gemm_a 100+50, gemm_b 140+20, elementwise_c 170+3,000,000, softmax_d 200+20 µs
    return _nsys(path, [(100_000, 150_000, 7, "gemm_a"), (140_000, 160_000, 7, "gemm_b"),
                        (170_000, 3_000_170_000, 7, "elementwise_c"), (200_000, 220_000, 7, "softmax_d")])


@pytest.mark.parametrize("name,members", [("run.sqlite.gz", 1), ("run.sqlite", 2), ("report", 3)])
def test_b02_gzip_compressed_nsys_export_is_read_like_the_plain_one(tmp_path, name, members):
    import gzip

    data = _b07_nsys(tmp_path / "plain.sqlite").read_bytes()
    step = -(-len(data) // members)
    p = tmp_path / name
    p.write_bytes(b"".join(gzip.compress(data[i:i + step]) for i in range(0, len(data), step)))
    code, _ = _run("analyze", p, "-q", "--no-cache", "--json", tmp_path / "r.json")
    assert code == 0
    src = json.loads((tmp_path / "r.json").read_text())["sources"][0]
    s = src["summary"]
    # B07 clipped: 40 + 20 + 30 + 20 = 110 µs busy over 100–220 µs; the top kernel gemm_a (40 µs)
    assert (s["kernel_count"], s["gpu_busy_ns"], s["span_ns"]) == (4, 110_000, 120_000)
    assert src["top_kernels"][0]["name"] == "gemm_a"
    inp = src["inputs"][0]
    assert (inp["collector"], inp["compressed"], inp["size_bytes"], inp["uncompressed_bytes"]) == (
        "nsys_sqlite", True, p.stat().st_size, len(data))


def test_b02_gzip_compressed_rocpd_database_in_a_process_folder(tmp_path):
    import gzip

    from tests.test_rocpd import build_layout_b

    folder = tmp_path / "run"
    folder.mkdir()
    build_layout_b(tmp_path / "ref.db")
    ref = collect(tmp_path / "ref.db").gpu_events()
    (folder / "4242_results.db.gz").write_bytes(gzip.compress((tmp_path / "ref.db").read_bytes()))
    build_layout_b(folder / "4243_results.db")
    tl = collect(folder)
    k = tl.gpu_events()
    # T12's kind with one database compressed: one rank per process, each the same GPU work as the plain file
    assert sorted(set(k["rank"])) == [0, 1]
    for r in (0, 1):
        assert sorted(k[k["rank"] == r]["dur_ns"]) == sorted(ref["dur_ns"])


def test_b02_gzip_compressed_database_cut_short_is_one_line(tmp_path):
    import gzip

    blob = gzip.compress(_b07_nsys(tmp_path / "plain.sqlite").read_bytes())
    p = tmp_path / "run.sqlite.gz"
    p.write_bytes(blob[:len(blob) // 2])
    code, text = _run("analyze", p, "-q", "--no-cache")
    assert code == 2 and text.strip().count("\n") == 0 and str(p) in text and "cut short" in text


# ------------------------------------------------------------------------------- B03 names shown, never raw
def test_b03_control_and_bidi_characters_in_names_are_shown_escaped_in_every_report(tmp_path):
    import re

    # B03b's raw 0x01 in a kernel name, an ESC colour sequence, a NUL and a right-to-left override (U+202E)
    names = ["\x01<module>: step_kernel", "k_\x1b[31mred", "k_\x00nul", "k_\u202eevil"]
    evs = [{"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": "stream 7", "ts": 100 + 20 * i, "dur": 10,
            "args": {"device": 0, "stream": 7}} for i, n in enumerate(names)]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": evs}))
    code, console = _run("analyze", p, "--no-cache", "--html", tmp_path / "r.html", "--markdown",
                         tmp_path / "r.md", "--json", tmp_path / "r.json")
    assert code == 0
    raw = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202e]")
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    md = (tmp_path / "r.md").read_text(encoding="utf-8")
    for text in (html, md, console):
        assert not raw.search(text), raw.search(text)
    assert "\\u0001&lt;module&gt;: step_kernel" in html and "k_\\u001b[31mred" in html and "k_\\u202eevil" in html
    assert "\\u0001" in md and "k\\_\\u0000nul" in md
    assert "\\u0001<module>" in console and "\\u001b[31m" in console
    # the data keep the names as recorded (JSON escapes them itself)
    top = {k["name"] for k in json.loads((tmp_path / "r.json").read_text())["sources"][0]["top_kernels"]}
    assert top == set(names)


# ------------------------------------------------------------------------------- B05 empty Chrome-trace forms
@pytest.mark.parametrize("text", [
    '{"traceEvents": []}',  # an object whose event list is empty
    '{"schemaVersion": 1, "traceEvents": [ ], "displayTimeUnit": "ms"}',
    '[{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}}]',  # metadata only
    '[{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}},\n'  # ... and B04a: no closing ]
    ' {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "main"}}',
])
def test_b05_empty_chrome_trace_forms_are_no_gpu_work_not_an_unknown_format(tmp_path, text):
    p = tmp_path / "t.json"
    p.write_text(text)
    code, out = _run("analyze", p, "--no-cache", "--json", tmp_path / "r.json")
    assert code == 5, out  # "no GPU work": 0 kernels, 0 ns
    src = json.loads((tmp_path / "r.json").read_text())["sources"][0]
    assert src["status"] == "no_gpu_work"
    assert (src["summary"]["kernel_count"], src["summary"]["gpu_busy_ns"]) == (0, 0)


# ----------------------------------------------------------------------- B20 the duration under another roll-up
def _q(row):
    return ",".join(json.dumps(str(x)) for x in row)


@pytest.mark.parametrize("metric", ["gpu__time_duration.avg", "gpu__time_duration.max", "gpu__time_duration"])
@pytest.mark.parametrize("page", ["details", "raw"])
def test_b20_ncu_duration_requested_as_another_rollup(tmp_path, metric, page):
    # `ncu --metrics gpu__time_duration.avg --csv`: one launch is one instance, so .avg = .max = .sum; values with
    # thousands separators and per-row (details) or per-column (raw units row) units, as B20
    launches = [("gemm_kernel(float*, int)", "usecond", "1,234.56"), ("reduce_sum(float*, int)", "msecond", "2.05")]
    if page == "details":
        head = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size",
                "Grid Size", "Device", "CC", "Section Name", "Metric Name", "Metric Unit", "Metric Value"]
        rows = [[i, 4242, "demo", "h", n, 1, 7, "(256, 1, 1)", "(132, 1, 1)", 0, "9.0", "Command line profiler metrics",
                 metric, u, v] for i, (n, u, v) in enumerate(launches)]
        text = "==PROF== Connected to process 4242 (/opt/demo)\n" + "\n".join(_q(r) for r in [head] + rows) + "\n"
    else:  # one unit per column: both durations in µs (2.05 ms = 2,050 µs)
        head = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Device", "CC",
                metric]
        rows = [[0, 4242, "demo", "h", launches[0][0], 1, 7, 0, "9.0", "1,234.56"],
                [1, 4242, "demo", "h", launches[1][0], 1, 7, 0, "9.0", "2,050.00"]]
        text = "\n".join(_q(r) for r in [head, [""] * 9 + ["usecond"]] + rows) + "\n"
    p = tmp_path / "ncu.csv"
    p.write_text(text)
    tl = collect(p)
    got = dict(zip(tl.events["name"].astype(str), tl.events["dur_ns"].astype(int)))
    # 1,234.56 µs = 1,234,560 ns; 2.05 ms = 2,050 µs = 2,050,000 ns
    assert got == {"gemm_kernel(float*, int)": 1_234_560, "reduce_sum(float*, int)": 2_050_000}
    assert not any("without a usable" in w for w in tl.meta.warnings)


def test_t06_rocpd_with_launch_calls_and_no_dispatch_is_an_incomplete_capture(tmp_path):
    from tests.test_rocpd import U, build_layout_a

    p = tmp_path / "results.db"
    build_layout_a(p)  # one hipLaunchKernel HIP API region, two kernel dispatches, one copy
    con = sqlite3.connect(p)
    con.execute(f"DELETE FROM rocpd_kernel_dispatch{U}")  # the capture lost its kernel records
    con.commit()
    con.close()
    tl = collect(p)
    assert len(tl.of_kind("kernel")) == 0 and list(tl.of_kind("runtime")["name"].astype(str)) == ["hipLaunchKernel"]
    note = tl.meta.sources[0]["incomplete_capture"]
    # the launch region's internal correlation id (40) is read since session 49
    assert note.startswith("1 launch call (hipLaunchKernel ×1) (correlation 40) has no GPU record")
    assert any("incomplete capture" in w for w in tl.meta.warnings)


# ---------------------------------------------------------------------------------- B04 begin/end slices
@pytest.mark.parametrize("order", ["file", "reversed"])
def test_b04_begin_end_kernels_are_paired_and_an_unended_one_is_not_extended(tmp_path, order):
    def be(ph, name, ts, tid="stream 7", cat="kernel"):
        e = {"ph": ph, "pid": 0, "tid": tid, "ts": ts}
        if ph == "B":
            e.update(cat=cat, name=name, args={"device": 0, "stream": 7})
        return e

    evs = [{"ph": "X", "cat": "kernel", "name": "k_x", "pid": 0, "tid": "stream 7", "ts": 100, "dur": 5,
            "args": {"device": 0, "stream": 7}},
           be("B", "k_be", 200.5), be("E", None, 210.75),  # 10.25 µs
           be("B", "k_other_stream", 205, tid="stream 9"), be("E", None, 215, tid="stream 9"),  # 10 µs on stream 9
           be("E", None, 250),  # an end with nothing open on stream 7
           be("B", "k_unended", 300)]  # never ended (the writer died): not extended to the trace's end
    if order == "reversed":
        evs.reverse()
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": evs}))
    tl = collect(p)
    k = tl.gpu_events().sort_values("start_ns")
    assert list(zip(k["name"].astype(str), k["start_ns"], k["dur_ns"])) == [
        ("k_x", 100_000, 5_000), ("k_be", 200_500, 10_250), ("k_other_stream", 205_000, 10_000)]
    (w,) = [w for w in tl.meta.warnings if "B/E" in w]
    # k_unended ran with no end: an untimed launch (counted, duration unknown), never extended (s47 w2timeline)
    assert "2 begin/end (B/E) pairs" in w and "1 GPU begin (B) event never ended kept as untimed" in w \
        and "1 end (E)" in w
    code, _ = _run("analyze", p, "-q", "--no-cache", "--json", tmp_path / "r.json")
    s = json.loads((tmp_path / "r.json").read_text())["sources"][0]["summary"]
    # busy: 5 + union([200.5, 210.75], [205, 215]) = 5 + 14.5 µs; span 100 → 215 µs (k_unended adds nothing)
    assert (code, s["gpu_busy_ns"], s["span_ns"]) == (0, 19_500, 115_000)


# ------------------------------------------------------------------- T12 per-process databases merged into one
def test_t12_one_rocpd_database_holding_two_processes_is_one_rank_per_process(tmp_path):
    from tests.test_rocpd import build_layout_b

    srcs = []
    for i, (guid, pid, gpu) in enumerate((("guid-a", 4242, 5), ("guid-b", 4243, 6))):
        p = tmp_path / f"{pid}.db"
        build_layout_b(p)  # gemm 5000–9000 ns and add 9500–9800 ns on one GPU, rocpd ids 1.. in each file
        con = sqlite3.connect(p)
        for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
            if "guid" in [r[1] for r in con.execute(f'PRAGMA table_info("{t}")')]:
                con.execute(f'UPDATE "{t}" SET guid = ?', (guid,))
        con.execute("UPDATE rocpd_info_agent SET absolute_index = ?, logical_index = ? WHERE type = 'GPU'", (gpu, gpu))
        con.execute("CREATE TABLE rocpd_info_process (id INTEGER PRIMARY KEY, guid TEXT, nid INT, ppid INT, pid INT)")
        con.execute("INSERT INTO rocpd_info_process VALUES (1, ?, 1, 1, ?)", (guid, pid))  # dispatch rows: pid = 1
        con.commit()
        con.close()
        srcs.append(p)
    merged = tmp_path / "merged.db"  # `rocpd merge`'s shape: each process's tables, a view over them per name
    con = sqlite3.connect(merged)
    views: dict[str, list[str]] = {}
    for i, p in enumerate(srcs):
        con.execute(f"ATTACH '{p}' AS s")
        for t, sql in con.execute("SELECT name, sql FROM s.sqlite_master WHERE type='table'").fetchall():
            con.execute(sql.replace(f"TABLE {t} ", f'TABLE "{t}_{i}" ', 1))
            con.execute(f'INSERT INTO "{t}_{i}" SELECT * FROM s."{t}"')
            views.setdefault(t, []).append(f"{t}_{i}")
        con.commit()
        con.execute("DETACH s")
    for t, parts in views.items():
        con.execute(f'CREATE VIEW "{t}" AS ' + " UNION ALL ".join(f'SELECT * FROM "{x}"' for x in parts))
    con.commit()
    con.close()
    code, _ = _run("analyze", merged, "-q", "--no-cache", "--json", tmp_path / "r.json")
    assert code == 0
    src = json.loads((tmp_path / "r.json").read_text())["sources"][0]
    rows = sorted((r["rank"], r["device_id"], r["kernel_count"], r["busy_ns"], r["span_ns"])
                  for r in src["analyses"]["breakdown"]["table"])
    # each process: gemm 4,000 + add 300 ns busy over 5,000 → 9,800 ns on its own GPU, as rank 0 / rank 1
    assert rows == [(0, 5, 2, 4_300, 4_800), (1, 6, 2, 4_300, 4_800)]
    assert src["summary"]["ranks"] == [0, 1] and src["summary"]["kernel_count"] == 4
    assert any("pid 4242 → rank 0, pid 4243 → rank 1" in w for w in src["warnings"])


# --------------------------------------------------------------------------- F27 impossible summary rows
@pytest.mark.parametrize("fmt", ["nsys_stats", "rocprof_stats"])
@pytest.mark.parametrize("calls,total", [(0, 5000), (2.5, 5000), (-3, 5000), (3, -4_611_686_018_427_387_904)])
def test_f27_summary_row_that_cannot_be_is_dropped_and_counted(tmp_path, fmt, calls, total):
    # good rows: k_ok 5 × 1,000 ns; gemm 20 launches, 8,000,000 ns. The bad row: time without instances, a fractional
    # instance count, a negative count or a negative total (F27)
    if fmt == "nsys_stats":
        p = tmp_path / "cuda_gpu_kern_sum.csv"
        p.write_text("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
                     "10.0,5000,5,1000.0,1000.0,1000,1000,0.0,k_ok\n"
                     "80.0,8000000,20,400000.0,400000.0,400000,400000,0.0,gemm\n"
                     f"10.0,{total},{calls},1000.0,1000.0,1000,1000,0.0,k_bad\n")
    else:
        p = tmp_path / "results.stats.csv"
        p.write_text('"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n"k_ok",5,5000,1000,0.1\n'
                     f'"gemm",20,8000000,400000,99.8\n"k_bad",{calls},{total},1000,0.1\n')
    code, _ = _run("analyze", p, "-q", "--no-cache", "--json", tmp_path / "r.json")
    assert code == 0
    src = json.loads((tmp_path / "r.json").read_text())["sources"][0]
    hs = {r["name"]: (r["calls"], r["total_ns"]) for r in src["analyses"]["hotspots"]["table"]}
    assert hs == {"k_ok": (5, 5_000), "gemm": (20, 8_000_000)}
    assert any("1 " in w and "dropped" in w for w in src["warnings"])


def _inputs_text(name: str) -> str:
    from tests.case_variants import V3_HEAD

    if name == "kernel_trace.csv":  # rocprofv3
        return V3_HEAD + '\n"KERNEL_DISPATCH",1,1,69,1,16,"k(float*, int)",1,1000,6000,0,0,256,1,1,1024,1,1\n'
    if name == "results.csv":  # rocprof v1
        return ("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,"
                'wave_size,sig,obj,DispatchNs,BeginNs,EndNs,CompleteNs\n0,"k(float*, int)",0,0,0,1,1,256,256,0,0,8,0,'
                "16,64,0,0,990,1000,6000,6005\n")
    if name == "cuda_gpu_kern_sum.csv":  # nsys stats
        return ("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
                "100.0,5000,1,5000.0,5000.0,5000,5000,0.0,k\n")
    head = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Section Name",
            "Metric Name", "Metric Unit", "Metric Value"]  # ncu details
    return _q(head) + "\n" + _q([0, 1, "p", "h", "k(float*, int)", 1, 7, "S", "Duration", "usecond", "5.00"]) + "\n"


@pytest.mark.parametrize("name", ["kernel_trace.csv", "results.csv", "cuda_gpu_kern_sum.csv", "ncu.csv"])
def test_b02_every_format_reports_compressed_and_uncompressed_sizes(tmp_path, name):
    import gzip

    data = _inputs_text(name).encode()
    p = tmp_path / (name + ".gz")
    p.write_bytes(gzip.compress(data[:40]) + gzip.compress(data[40:]))  # two members
    code, _ = _run("analyze", p, "-q", "--no-cache", "--json", tmp_path / "r.json")
    assert code == 0
    inp = json.loads((tmp_path / "r.json").read_text())["sources"][0]["inputs"][0]
    assert (inp["compressed"], inp["size_bytes"], inp["uncompressed_bytes"]) == (True, p.stat().st_size, len(data))
