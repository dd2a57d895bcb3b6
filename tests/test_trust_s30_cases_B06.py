"""B06 variants (../shared/cases/README.md): impossible per-event times in other shapes — a clock that really starts
at 0 (kept), a ``ts 0`` kernel with a non-zero duration beside epoch times (excluded), the same faults in a rocprof v1
``results.csv`` (BeginNs = EndNs = 0, EndNs < BeginNs), and ``dur -1`` / ``ts 0`` on a second device. Expected
figures derived by hand; invalid events never define the span."""

from __future__ import annotations

import json
from pathlib import Path

from gpulens.cli import main

T = 1_615_207_264_505_000  # µs, the epoch of the case


def _k(name, ts, dur, stream=7, dev=0):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": dev, "tid": f"stream {stream}", "ts": ts, "dur": dur,
            "args": {"device": dev, "stream": stream}}


def _run(path: Path, tmp_path: Path) -> dict:
    out = tmp_path / "out.json"
    assert main(["analyze", "-q", "--no-cache", str(path), "--json", str(out)]) == 0
    return json.loads(out.read_text())["sources"][0]


def test_clock_starting_at_zero_keeps_its_first_kernel(tmp_path):
    """Relative clock: ka 0+10, kb 20+5, a CPU op 0+30. Nothing invalid: busy 10 + 5 = 15 µs, GPU span 0 → 25."""
    p = tmp_path / "rel.json"
    p.write_text(json.dumps({"traceEvents": [_k("ka", 0, 10), _k("kb", 20, 5), {
        "ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 9, "tid": 9, "ts": 0, "dur": 30}]}))
    src = _run(p, tmp_path)
    sm = src["summary"]
    assert (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"], sm["rejected_event_count"]) == (2, 15_000, 25_000, 0)


def test_zero_start_with_a_duration_beside_epoch_times_is_excluded(tmp_path):
    """k_ok1 T+10, k_ok2 T+20 … T+35 on stream 8, k_zero at ts 0 lasting 7 µs: excluded; busy 10 + 15 = 25 µs,
    span T → T+35 = 35 µs (not 1.6e15 µs)."""
    p = tmp_path / "z.json"
    p.write_text(json.dumps({"traceEvents": [_k("k_ok1", T, 10), _k("k_zero", 0, 7), _k("k_ok2", T + 20, 15, 8)]}))
    sm = _run(p, tmp_path)["summary"]
    assert (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"], sm["rejected_event_count"]) == (2, 25_000, 35_000, 1)


def test_rocprof_v1_results_zero_and_backwards_rows(tmp_path):
    """results.csv at a boot clock B = 5e12 ns: ka B+1000 → B+6000 (GPU 0), kback begins B+9000 but ends B+7000,
    kc B+10000 → B+12000 (GPU 1), kzero all zeros. Valid: ka 5000 + kc 2000 = 7000 ns; wall span B+1000 → B+12000 =
    11000 ns; 2 rows rejected (one per reason)."""
    b = 5_000_000_000_000
    hdr = ("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,"
           "wave_size,sig,obj,DispatchNs,BeginNs,EndNs,CompleteNs\n")
    rows = [(0, "ka", 0, b + 900, b + 1000, b + 6000), (1, "kback", 0, b + 6000, b + 9000, b + 7000),
            (2, "kc", 1, b + 9000, b + 10000, b + 12000), (3, "kzero", 0, 0, 0, 0)]
    p = tmp_path / "results.csv"
    p.write_text(hdr + "".join(f'{i},"{n}",{g},0,{i},1,1,1024,256,0,0,8,0,16,64,0x0,0x0,{d},{s},{e},{e + 100 if e else 0}\n'
                               for i, n, g, d, s, e in rows))
    src = _run(p, tmp_path)
    sm = src["summary"]
    assert (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"], sm["rejected_event_count"]) == (2, 7000, 11_000, 2)
    assert {r["name"]: r["total_ns"] for r in src["analyses"]["hotspots"]["table"]} == {"ka": 5000, "kc": 2000}
    assert any("zero timestamp" in w and "negative duration" in w for w in src["warnings"])


def test_invalid_events_on_a_second_device(tmp_path):
    """a0 T+10 (GPU 0); a1 T+5+10, bad1 T+30 dur -1, b1 T+40+4, z ts 0 dur 0 (GPU 1); a CPU op T-100 dur -1.
    Valid busy 10 + 10 + 4 = 24 µs; wall span T → T+44 = 44 µs; busy % = Σ busy / Σ per-GPU span =
    24 / (10 + (44 - 5)) = 48.98 %; 3 invalid."""
    p = tmp_path / "two.json"
    p.write_text(json.dumps({"traceEvents": [
        _k("a0", T, 10), _k("a1", T + 5, 10, dev=1), _k("bad1", T + 30, -1, dev=1), _k("b1", T + 40, 4, dev=1),
        _k("z", 0, 0, dev=1), {"ph": "X", "cat": "cpu_op", "name": "aten::copy_ (unfinished)", "pid": 9, "tid": 9,
                               "ts": T - 100, "dur": -1}]}))
    sm = _run(p, tmp_path)["summary"]
    assert (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"], sm["rejected_event_count"]) == (3, 24_000, 44_000, 3)
    assert abs(sm["gpu_busy_pct"] - 100 * 24 / 49) < 1e-9
