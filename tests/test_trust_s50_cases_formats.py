"""Session 50: the shared cases' kinds of fault (../shared/cases/README.md) in the collectors fewest tests reach —
nvprof's GPU-trace CSV, rocprofv2's tracer text, rocm-rpd databases and rocpd databases — each variant generated here
(or injected with SQL into a committed real file) and its answer worked out by hand from the values written, or
computed from the file with SQL independently of gpulens.

Kinds: B06 (an event at time 0, an end before its start), B07 (a duration running past the next event on its
stream), B17 (names holding commas and brackets), B12/T05 (copies and fills told apart from computation), B03 (a
name with invalid UTF-8), F19 (a 200 kB kernel name), B05 (a header and nothing else).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from gpulens.cli import main

REPO = Path(__file__).resolve().parents[1]
RPD = REPO / "tests" / "data" / "rocprof" / "rpd_matmul" / "matmul_result.rpd"
T12 = REPO.parent / "shared" / "cases" / "T12.rocpd_two_procs" / "4242_results.db"
US = 1000  # ns per µs


def _analyze(path: Path, tmp_path: Path) -> tuple[int, dict | None]:
    out = tmp_path / "out.json"
    if out.exists():
        out.unlink()
    code = main(["analyze", "-q", "--no-cache", str(path), "--json", str(out)])
    return code, (json.loads(out.read_text())["sources"][0] if out.exists() else None)


def _effective(src: dict) -> dict[str, int]:
    return {r["name"]: r["effective_ns"] for r in src["analyses"]["hotspots"]["table"]}


# -- nvprof --csv --print-gpu-trace ------------------------------------------------------------------------------------

_NV_HEAD = ('==12400== NVPROF is profiling process 12400, command: ./app\n==12400== Profiling result:\n'
            '"Start","Duration","Grid X","Grid Y","Grid Z","Block X","Block Y","Block Z","Registers Per Thread",'
            '"Static SMem","Dynamic SMem","Size","Throughput","Device","Context","Stream","Name"\n')


def _nv_kernel(start, dur, name, stream=7) -> str:
    return f'{start},{dur},20,10,1,32,32,1,27,8.000000,0,,,"GeForce GTX 1080 Ti (0)","1","{stream}","{name}"\n'


def _nv_copy(start, dur, kb, name) -> str:
    return f'{start},{dur},,,,,,,,,,{kb},379.67,"GeForce GTX 1080 Ti (0)","1","7","{name}"\n'


def test_nvprof_b07_overrun_is_clipped_at_the_next_kernel(tmp_path):
    """Case B07's stream in µs: gemm_a 100+50, gemm_b 140+20, elementwise_c 170+3,000,000, softmax_d 200+20 →
    repaired 40/20/30/20 µs, busy 110 µs over the span 100 → 220 µs; gemm_a ranks first."""
    p = tmp_path / "trace.csv"
    p.write_text(_NV_HEAD + "us,us,,,,,,,,KB,B,KB,MB/s,,,,\n" + _nv_kernel(100, 50, "gemm_a [1]")
                 + _nv_kernel(140, 20, "gemm_b [2]") + _nv_kernel(170, 3000000, "elementwise_c [3]")
                 + _nv_kernel(200, 20, "softmax_d [4]"))
    code, src = _analyze(p, tmp_path)
    assert code == 0
    assert (src["summary"]["gpu_busy_ns"], src["summary"]["span_ns"]) == (110 * US, 120 * US)
    assert _effective(src) == {"gemm_a": 40 * US, "gemm_b": 20 * US, "elementwise_c": 30 * US, "softmax_d": 20 * US}
    assert src["analyses"]["hotspots"]["table"][0]["name"] == "gemm_a"


def test_nvprof_b06_b12_b17_f19_in_one_trace(tmp_path):
    """In ms: a kernel at Start 0 / Duration 0 (never recorded: left out, counted); copies of 4 KB + 8 KB (binary:
    4,096 + 8,192 B) and a memset beside a 0.030 ms compute kernel whose name holds commas (quoted) and a 200 kB
    templated name (0.005 ms). Compute 30 + 5 = 35 µs; copies 2 + 4 µs; fill 1 µs."""
    big = "void k<" + "A" * 200_000 + ">(int, float)"
    p = tmp_path / "trace.csv"
    p.write_text(_NV_HEAD + "ms,ms,,,,,,,,KB,B,KB,MB/s,,,,\n" + _nv_copy("584.100", "0.002", "4.000000",
                                                                             "[CUDA memcpy HtoD]")
                 + _nv_copy("584.110", "0.004", "8.000000", "[CUDA memcpy DtoH]")
                 + _nv_copy("584.120", "0.001", "1.000000", "[CUDA memset]")
                 + _nv_kernel("584.130", "0.030", "transpose_tile(float*, float const*, int, int) [9]")
                 + _nv_kernel("584.170", "0.005", big + " [10]") + _nv_kernel("0", "0", "k_unset [11]"))
    code, src = _analyze(p, tmp_path)
    assert code == 0
    sm = src["summary"]
    assert (sm["kernel_count"], sm["computation_ns"]) == (2, 35 * US)
    assert (sm["memcpy_count"], sm["memcpy_bytes"]) == (2, 12_288)
    assert (sm["exposed_memcpy_ns"], sm["exposed_memset_ns"]) == (6 * US, 1 * US)
    assert _effective(src) == {"transpose_tile(float*, float const*, int, int)": 30 * US, big: 5 * US}
    assert any("zero timestamp" in w for w in src["warnings"])


def test_nvprof_b05_header_and_units_only_is_no_gpu_work(tmp_path):
    p = tmp_path / "trace.csv"
    p.write_text(_NV_HEAD + "us,us,,,,,,,,KB,B,KB,MB/s,,,,\n")
    code, src = _analyze(p, tmp_path)
    assert code == 5 and src["summary"]["kernel_count"] == 0


# -- rocprofv2 tracer text ---------------------------------------------------------------------------------------------

def test_rocprofv2_cli_names_with_brackets_and_commas(tmp_path):
    """``Kernel_Name(...)`` holding parentheses and commas (B17's kind in rocprofv2's ``Key(value)`` lines): every
    name read whole, 1 + 2 + 3 µs of kernels; the launch calls of ``hip_api_trace.txt`` beside it link each (corr)."""
    names = ["void demo::axpy<float, 256>(float, float const*, float*, int)", "void k<(Foo)1, Bar(2)>(int) )(",
             "transpose_tile(float*, float const*, int, int) [clone .kd]"]
    t, ops, api = 611_510_784_400_000, [], []
    for i, n in enumerate(names):
        api.append(f"Domain(HIP_API_DOMAIN), Function(hipLaunchKernel), Start_Timestamp({t - 500}), "
                   f"End_Timestamp({t - 100}), Correlation_ID({i + 1})\n")
        ops.append(f"Domain(HIP_OPS_DOMAIN), Operation_Name(KernelExecution), Kernel_Name({n}), "
                   f"Start_Timestamp({t}), End_Timestamp({t + (i + 1) * US}), Correlation_ID({i + 1})\n")
        t += 20 * US
    (tmp_path / "hip_api_trace.txt").write_text("".join(api))
    p = tmp_path / "hcc_ops_trace.txt"
    p.write_text("".join(ops))
    code, src = _analyze(p, tmp_path)
    assert code == 0
    assert _effective(src) == {n: (i + 1) * US for i, n in enumerate(names)}
    la = src["analyses"]["launches"]["summary"]
    assert (la["launch_calls"], la["kernels_unlinked"]) == (3, 0)


# -- rocm-rpd (faults injected into a committed real database; expected values by SQL on the file) ---------------------

def _inject(src: Path, dst: Path, *sql: str) -> Path:
    shutil.copy(src, dst)
    con = sqlite3.connect(dst)
    for s in sql:
        con.execute(s)
    con.commit()
    con.close()
    return dst


def _rpd_facts() -> tuple[int, int, tuple[int, int, int], int]:
    """Kernels and their summed time, op 3's (start, end, next kernel's start) and op 4's duration, by SQL."""
    con = sqlite3.connect(RPD)
    n, tot = con.execute("SELECT count(*), sum(end - start) FROM op WHERE opType = 'KernelExecution'").fetchone()
    s3, e3 = con.execute("SELECT start, end FROM rocpd_op WHERE id = 3").fetchone()
    nxt = con.execute("SELECT min(start) FROM rocpd_op WHERE start > ? AND queueId = (SELECT queueId FROM "
                      "rocpd_op WHERE id = 3) AND gpuId = (SELECT gpuId FROM rocpd_op WHERE id = 3)",
                      (s3,)).fetchone()[0]
    d4 = con.execute("SELECT end - start FROM rocpd_op WHERE id = 4").fetchone()[0]
    con.close()
    return n, tot, (s3, e3, nxt), d4


@pytest.mark.parametrize("fault", ["zero", "backwards"])
def test_rpd_b06_invalid_kernel_is_left_out(tmp_path, fault):
    n, tot, _, d4 = _rpd_facts()
    sql = "UPDATE rocpd_op SET start = 0, end = 0 WHERE id = 4" if fault == "zero" else \
        "UPDATE rocpd_op SET end = start - 3 WHERE id = 4"
    code, src = _analyze(_inject(RPD, tmp_path / "r.rpd", sql), tmp_path)
    assert code == 0
    assert (src["summary"]["kernel_count"], src["summary"]["kernel_time_ns"]) == (n - 1, tot - d4)
    assert any(("zero timestamp" if fault == "zero" else "negative duration") in w for w in src["warnings"])


def test_rpd_b07_runaway_kernel_is_clipped_at_the_next_op_on_its_queue(tmp_path):
    """Op 3 (the Cijk GEMM) recorded 3 s long: its effective time is up to the next op's start on its queue."""
    n, _, (s3, _, nxt), _ = _rpd_facts()
    p = _inject(RPD, tmp_path / "r.rpd", f"UPDATE rocpd_op SET end = {s3 + 3 * 10 ** 9} WHERE id = 3")
    code, src = _analyze(p, tmp_path)
    assert code == 0 and src["summary"]["kernel_count"] == n
    cijk = [r for r in src["analyses"]["hotspots"]["table"] if r["name"].startswith("Cijk_")]
    assert len(cijk) == 1 and cijk[0]["effective_ns"] == nxt - s3


def test_rpd_t05_blit_kernel_and_b03_bad_utf8_name(tmp_path):
    """Op 3 renamed ``__amd_rocclr_copyBuffer`` is a copy, not computation (T05); a name with bytes FF FE is read
    with U+FFFD (B03) — the kernel count and time unchanged."""
    n, tot, (s3, e3, _), _ = _rpd_facts()
    sid = sqlite3.connect(RPD).execute("SELECT description_id FROM rocpd_op WHERE id = 3").fetchone()[0]
    set_name = f"UPDATE rocpd_string SET string = {{}} WHERE id = {sid}"
    p = _inject(RPD, tmp_path / "t05.rpd", set_name.format("'__amd_rocclr_copyBuffer'"))
    code, src = _analyze(p, tmp_path)
    assert code == 0
    assert (src["summary"]["kernel_count"], src["summary"]["kernel_time_ns"]) == (n - 1, tot - (e3 - s3))
    p = _inject(RPD, tmp_path / "b03.rpd", set_name.format("CAST(X'6B5FFFFE01' AS TEXT)"))
    code, src = _analyze(p, tmp_path)
    assert code == 0
    assert (src["summary"]["kernel_count"], src["summary"]["kernel_time_ns"]) == (n, tot)
    assert "k_\ufffd\ufffd\x01" in _effective(src)


# -- rocpd (ROCm 7) -------------------------------------------------------------------------------------------------

@pytest.mark.skipif(not T12.exists(), reason="../shared/cases not present")
@pytest.mark.parametrize("name, kind_ns", [("__amd_rocclr_copyBuffer", "exposed_memcpy_ns"),
                                           ("__amd_rocclr_fillBufferAligned", "exposed_memset_ns")])
def test_rocpd_t05_blit_kernels_are_copies_and_fills(tmp_path, name, kind_ns):
    """T12's GPU 2 database (gemm 100,000 ns, then a 50,000 ns kernel): the second kernel's symbol renamed a HIP
    blit kernel → 1 compute kernel of 100,000 ns, the blit's 50,000 ns a copy / fill; busy still 150,000 ns."""
    table = [r[0] for r in sqlite3.connect(T12).execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_info_kernel_symbol%'")][0]
    p = _inject(T12, tmp_path / "4242_results.db",
                f"UPDATE {table} SET kernel_name = '{name}.kd', display_name = '{name}' WHERE id = 2")
    code, src = _analyze(p, tmp_path)
    sm = src["summary"]
    assert code == 0
    assert (sm["kernel_count"], sm["computation_ns"], sm[kind_ns], sm["gpu_busy_ns"]) == (1, 100_000, 50_000, 150_000)


# -- B02 in Nsight Compute reports ----------------------------------------------------------------------------------

NCU_REP = REPO / "tests" / "data" / "nvidia" / "h200" / "h200_kernels.ncu-rep"


@pytest.mark.parametrize("name, split", [("r.ncu-rep.gz", None), ("r.ncu-rep", 1000)])
def test_b02_gzip_compressed_ncu_report_is_read_as_the_report(tmp_path, name, split):
    """An ``.ncu-rep`` shared gzip-compressed (as GitHub attachments must be), or as two gzip members under the plain
    name: read as the report itself (the same kernels, durations and metric values) — it was "not an Nsight Compute
    report (missing the NVR\\0 magic bytes)", exit 2. Expected: the uncompressed report's own reading."""
    pytest.importorskip("ncu_report")
    import gzip

    from gpulens.collectors import collect

    data = NCU_REP.read_bytes()
    p = tmp_path / name
    p.write_bytes(gzip.compress(data) if split is None else gzip.compress(data[:split]) + gzip.compress(data[split:]))
    want, got = collect(NCU_REP), collect(p)
    cols = ["name", "dur_ns"]
    assert got.events[cols].astype(str).values.tolist() == want.events[cols].astype(str).values.tolist()
    assert len(got.events) == 4  # saxpy, naive GEMM, WMMA GEMM, 1×32 kernel (tests/data/PROVENANCE.md)
    assert got.counters["value"].tolist() == want.counters["value"].tolist()
    assert p.read_bytes()[:2] == b"\x1f\x8b"  # the user's file is left as it was
