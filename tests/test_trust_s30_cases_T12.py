"""T12 variant (../shared/cases/README.md): a folder of *three* rocpd databases, one per process, whose pids sort
differently as text (1000 < 20 < 300) and as numbers; one database in the other rocpd layout (a memcpy beside the
kernels). One rank per process in pid order; each rank's figures kept apart. Figures by hand (ns) from the builders
in tests/test_rocpd.py: both layouts hold gemm [5000,9000] and add [9500,9800]; layout A also a copy [1000,3000]."""

from __future__ import annotations

import json

from gpulens.cli import main

from tests.test_rocpd import build_layout_a, build_layout_b


def test_three_processes_ranked_by_numeric_pid(tmp_path):
    """Ranks: pid 20 (layout A) → 0, pid 300 → 1, pid 1000 → 2. Rank 0: busy 4000 + 300 + 2000 = 6300, span
    1000 → 9800 = 8800; ranks 1, 2: busy 4300, span 5000 → 9800 = 4800. Total 6 kernels, 12,900 ns of kernels
    (3 × 4300), busy 14,900; busy % = 14,900 / (8800 + 4800 + 4800)."""
    run = tmp_path / "run"
    run.mkdir()
    build_layout_b(run / "300_results.db")
    build_layout_a(run / "20_results.db")
    build_layout_b(run / "1000_results.db")
    out = tmp_path / "out.json"
    assert main(["analyze", "-q", "--no-cache", str(run), "--json", str(out)]) == 0
    src = json.loads(out.read_text())["sources"][0]
    sm = src["summary"]
    assert (sm["kernel_count"], sm["kernel_time_ns"], sm["gpu_busy_ns"]) == (6, 12_900, 14_900)
    assert sm["ranks"] == [0, 1, 2] and abs(sm["gpu_busy_pct"] - 100 * 14_900 / 18_400) < 1e-9
    per = {r["rank"]: (r["span_ns"], r["computation_ns"]) for r in src["analyses"]["ranks"]["table"]}
    assert per == {0: (8800, 4300), 1: (4800, 4300), 2: (4800, 4300)}
    assert any("20_results.db → rank 0" in w and "1000_results.db → rank 2" in w for w in src["warnings"])
