"""T06 variants (../shared/cases/README.md): an Nsight Systems export whose capture broke — the kernel table present
but *empty*; and a capture that stopped after 3 of 5 launches (kernel records for the first three only). Never a
crash, never a bare "no GPU work": the lost launches are counted and said."""

from __future__ import annotations

import json
from pathlib import Path

from gpulens.cli import main

from tests.case_variants import _nsys_db

# five cudaLaunchKernel calls, correlation 100–104, at 1000 + 10,000·i ns, 4,000 ns each
RUNTIME = [(1000 + 10_000 * i, 5000 + 10_000 * i, 100 + i, 1) for i in range(5)]


def _run(path: Path, tmp_path: Path) -> tuple[int, dict, str]:
    out = tmp_path / "out.json"
    code = main(["analyze", "-q", "--no-cache", str(path), "--json", str(out)])
    return code, json.loads(out.read_text())["sources"][0], ""


def test_empty_kernel_table_is_an_incomplete_capture(tmp_path, capsys):
    p = _nsys_db(tmp_path / "run.sqlite", ["cudaLaunchKernel_v7000"], RUNTIME, [], [])
    code, src, _ = _run(p, tmp_path)
    err = capsys.readouterr().err
    assert code == 5 and "Traceback" not in err and "incomplete" in err
    note = src["inputs"][0]["incomplete_capture"]
    assert "5 launch calls" in note and "100–104" in note and "empty" in note
    assert src["analyses"]["launches"]["summary"]["launch_calls_lost"] == 5


def test_capture_stopped_after_three_launches(tmp_path):
    """Kernels for correlation 100–102 only: 6000 + 10,000·i → 8000 + 10,000·i ns (2000 ns each) on stream 7.
    3 kernels, busy 3 × 2000 = 6000 ns, GPU span 6000 → 28,000 = 22,000 ns; 2 of 5 launches lost, said in a finding."""
    kernels = [(6000 + 10_000 * i, 8000 + 10_000 * i, 7, 100 + i, 2, 2) for i in range(3)]
    p = _nsys_db(tmp_path / "run.sqlite", ["cudaLaunchKernel_v7000", "kern"], RUNTIME, kernels, [])
    code, src, _ = _run(p, tmp_path)
    sm = src["summary"]
    assert code == 0 and (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"]) == (3, 6000, 22_000)
    la = src["analyses"]["launches"]["summary"]
    assert (la["launch_calls"], la["kernels_linked"], la["launch_calls_lost"]) == (5, 3, 2)
    assert any("2 of 5 launch calls have no GPU record" in f["title"] for f in src["findings"])
