"""Variants that combine the faults of two cases of ../shared/cases/README.md: gzip + almost-JSON (B02+B03), a copy
overrunning the next kernel on its stream (B12+B07), launches without GPU records in a ROCm Kineto trace (B11+T06),
a ``ts 0`` kernel inside a CUDA-graph replay (B13+B06). Figures derived by hand (µs in the file, ns in the report)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from gpulens.cli import main


def _k(name, ts, dur, stream=7, cat="kernel", **a):
    return {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": f"stream {stream}", "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": stream, **a}}


def _run(p: Path, tmp_path: Path, *extra: str) -> tuple[int, dict]:
    out = tmp_path / "out.json"
    code = main(["analyze", "-q", "--no-cache", str(p), *extra, "--json", str(out)])
    return code, json.loads(out.read_text())["sources"][0]


def test_gzip_with_control_byte_and_invalid_utf8(tmp_path):
    """Gzip holding a name with raw 0x01 and one with byte FF: lenient keeps both kernels (10 + 5 µs, span 1000 →
    1025) and says what it repaired; the gzip sizes are reported."""
    text = json.dumps({"traceEvents": [_k("\x01ka", 1000, 10), _k("kb", 1020, 5)]}).replace("\\u0001", "\x01")
    raw = text.encode().replace(b"kb", b"k\xff")
    p = tmp_path / "t.json.gz"
    p.write_bytes(gzip.compress(raw))
    code, src = _run(p, tmp_path, "--lenient")
    sm = src["summary"]
    assert code == 0 and (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"]) == (2, 15_000, 25_000)
    assert {r["name"] for r in src["analyses"]["hotspots"]["table"]} == {"\x01ka", "k\ufffd"}
    assert src["inputs"][0]["compressed"] and src["inputs"][0]["uncompressed_bytes"] == len(raw)
    assert any("U+FFFD" in w and "control" in w for w in src["warnings"])


def test_copy_overrunning_the_next_kernel_on_its_stream(tmp_path):
    """HtoD copy 100+50 (1000 B) then gemm 120+20 on stream 7: the copy is clipped at 120 (20 µs, overrun 30 µs).
    Busy 20 + 20 = 40 µs = span 100 → 140; exposed copy 20 µs; copy bandwidth 1000 B / 20,000 ns = 5e7 B/s."""
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": [
        _k("Memcpy HtoD (Pageable -> Device)", 100, 50, cat="gpu_memcpy", bytes=1000),
        _k("gemm", 120, 20, grid=[1, 1, 1], block=[32, 1, 1])]}))
    code, src = _run(p, tmp_path)
    sm = src["summary"]
    assert code == 0 and (sm["gpu_busy_ns"], sm["span_ns"], sm["exposed_memcpy_ns"]) == (40_000, 40_000, 20_000)
    assert [(o["name"], o["overrun_ns"]) for o in src["analyses"]["hotspots"]["summary"]["overruns"]] == [
        ("Memcpy HtoD (Pageable -> Device)", 30_000)]
    co = src["analyses"]["copies"]["table"]
    assert [(r["time_ns"], r["bandwidth"]) for r in co] == [(20_000, 1000 / 20_000 * 1e9)]


def test_rocm_launches_without_gpu_records_are_an_incomplete_capture(tmp_path, capsys):
    """4 hipLaunchKernel calls (corr 1–4), no GPU event: exit 5, said incomplete, not a bare "no GPU work"."""
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": [
        {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 60, "tid": 60, "ts": 100 + 10 * i,
         "dur": 5, "args": {"correlation": i + 1}} for i in range(4)]}))
    code, src = _run(p, tmp_path)
    err = capsys.readouterr().err
    assert code == 5 and "incomplete" in err and "4 launch calls" in err and "hipLaunchKernel" in err


def test_zero_timestamp_kernel_inside_a_graph_replay(tmp_path):
    """cudaGraphLaunch corr 9 at T → g1 T+12+20, g2 ts 0 dur 0, g3 T+40+10: g2 excluded (never recorded), the
    others linked to the one launch; busy 20 + 10 = 30 µs, span T+12 → T+50 = 38 µs."""
    t = 1_615_207_264_505_000
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": [
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 70, "tid": 70, "ts": t, "dur": 10,
         "args": {"correlation": 9}},
        _k("g1", t + 12, 20, correlation=9), _k("g2", 0, 0, correlation=9), _k("g3", t + 40, 10, correlation=9)]}))
    code, src = _run(p, tmp_path)
    sm = src["summary"]
    assert code == 0 and (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"], sm["rejected_event_count"]) == (
        2, 30_000, 38_000, 1)
    la = src["analyses"]["launches"]["summary"]
    assert (la["launch_calls"], la["gpu_events_from_graphs"], la["kernels_unlinked"]) == (1, 2, 0)
