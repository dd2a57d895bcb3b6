"""B12 variants (../shared/cases/README.md): copies and fills under every category spelling (``Memcpy``, ``Memset``,
``gpu_memcpy``, and ``kernel`` without launch geometry), on several streams, partly hidden under computation, file
order reversed. Copies never count as computation; exposed time is the part not under a compute kernel.
Figures derived by hand below (µs in the file, ns in the report)."""

from __future__ import annotations

import json

from gpulens.cli import main


def _e(cat, name, ts, dur, stream, **a):
    return {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": f"stream {stream}", "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": stream, **a}}


def test_copies_and_fills_in_every_spelling_partly_hidden(tmp_path):
    """gemm_main [100,150] s7 (grid/block): the only computation, 50 µs.
    PtoP ``Memcpy`` [120,140] s8, 2048 B — hidden under gemm. DtoH ``gpu_memcpy`` [140,170] s9, 65,536 B — exposed
    150..170 = 20 µs. HtoD under ``kernel`` (no geometry) [210,216] s0, bytes unknown — exposed 6 µs.
    Memset under ``kernel`` [160,164] s8 (under the DtoH copy); ``Memset`` [200,202] s7, 512 B — exposed 2 µs.
    Busy = [100,170] ∪ [200,202] ∪ [210,216] = 78 µs; span 100 → 216 = 116 µs; exposed copies 20 + 6 = 26 µs,
    fills 78 - 50 - 26 = 2 µs; copies 3 (bytes 2048 + 65,536 = 67,584, one unknown), fills 2 (512 B, one unknown);
    fill bandwidth over the sized fill only: 512 B / 2000 ns = 2.56e8 B/s."""
    ev = [_e("kernel", "gemm_main", 100, 50, 7, grid=[64, 1, 1], block=[256, 1, 1]),
          _e("Memcpy", "Memcpy PtoP (Device -> Device)", 120, 20, 8, bytes=2048),
          _e("kernel", "Memset (Device)", 160, 4, 8),
          _e("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", 140, 30, 9, bytes=65536),
          _e("Memset", "Memset (Device)", 200, 2, 7, bytes=512),
          _e("kernel", "Memcpy HtoD (Pinned -> Device)", 210, 6, 0)]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": ev[::-1]}))
    out = tmp_path / "out.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 0
    src = json.loads(out.read_text())["sources"][0]
    sm = src["summary"]
    assert (sm["kernel_count"], sm["computation_ns"], sm["gpu_busy_ns"], sm["span_ns"]) == (1, 50_000, 78_000, 116_000)
    assert (sm["exposed_memcpy_ns"], sm["exposed_memset_ns"]) == (26_000, 2_000)
    assert (sm["memcpy_count"], sm["memcpy_bytes"]) == (3, 67_584)
    assert [r["name"] for r in src["analyses"]["hotspots"]["table"]] == ["gemm_main"]
    co = src["analyses"]["copies"]
    assert (co["summary"]["copy_sizes_unknown"], co["summary"]["fills"], co["summary"]["fill_bytes"]) == (1, 2, 512)
    kinds = {r["copy_kind"]: (r["bytes"], r["time_ns"]) for r in co["table"]}
    assert kinds == {"DtoH": (65536, 30_000), "PtoP": (2048, 20_000), "HtoD": (None, 6_000), "fill": (512, 6_000)}
    fill = next(r for r in co["table"] if r["operation"] == "fill")
    assert fill["bandwidth"] == 512 / 2000 * 1e9


def test_hip_activity_names_give_the_copy_direction(tmp_path):
    """ROCm copies recorded under ``kernel`` with HIP activity names (pytorch/kineto PR#1295): ``CopyHostToDevice``
    10+2, ``CopyDeviceToHost`` 20+4 (8192 B), ``CopyDeviceToDevice`` 35+3, ``FillBuffer`` 30+1; gemm_main 50+30 the
    only computation. Each copy has the direction its name states (not "unknown"); DtoH bandwidth 8192 B / 4000 ns
    = 2.048e9 B/s; busy 2 + 4 + 1 + 3 + 30 = 40 µs of span 10 → 80 = 70 µs."""
    ev = [_e("kernel", "CopyHostToDevice", 10, 2, 0), _e("kernel", "CopyDeviceToHost", 20, 4, 0, bytes=8192),
          _e("kernel", "FillBuffer", 30, 1, 0), _e("kernel", "CopyDeviceToDevice", 35, 3, 0),
          _e("kernel", "gemm_main", 50, 30, 0, grid=[64, 1, 1], block=[256, 1, 1])]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    out = tmp_path / "out.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 0
    src = json.loads(out.read_text())["sources"][0]
    sm = src["summary"]
    assert (sm["computation_ns"], sm["gpu_busy_ns"], sm["span_ns"], sm["memcpy_count"]) == (30_000, 40_000, 70_000, 3)
    kinds = {r["copy_kind"]: (r["count"], r["time_ns"], r["bandwidth"]) for r in src["analyses"]["copies"]["table"]}
    assert kinds == {"HtoD": (1, 2000, None), "DtoH": (1, 4000, 8192 / 4000 * 1e9), "DtoD": (1, 3000, None),
                     "fill": (1, 1000, None)}
