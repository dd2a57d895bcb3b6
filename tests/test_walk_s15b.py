"""Fresh-user walk fixes (session 15, helper "walk"): the launches table's median call time and its named row
without launch calls, the README's GPU list against the device table, truncated diff tables, a narrow console."""

from __future__ import annotations

import json

from gpulens.cli import main
from tests.dig_traces import H100, KTrace

H_GEMM = "sm90_xmma_gemm_f16f16_f32_tn_n_tilesize128x128x64"


def _launches_table(tmp_path, name, keep_runtime):
    t = KTrace(H100)
    for i, d in enumerate((4.0, 4.0, 100.0)):  # three cudaLaunchKernel calls of 4, 4 and 100 µs
        t.launch(t.op("aten::mm", 100 + 200 * i, 150), 101 + 200 * i, [(H_GEMM, 1000 + 200 * i, 50.0)], dur=d)
    if not keep_runtime:
        t.ev = [e for e in t.ev if e["cat"] != "cuda_runtime"]
    out = tmp_path / f"{name}.report.json"
    assert main(["analyze", "-q", "--no-cache", str(t.write(tmp_path / f"{name}.json")), "--json", str(out)]) == 0
    return json.loads(out.read_text())["sources"][0]["analyses"]["launches"]["table"]


def test_launches_median_call_time_and_a_named_row_without_launch_calls(tmp_path):
    """Calls of 4, 4 and 100 µs: mean 36 µs, median 4 µs. The same kernels with no runtime call recorded: one row
    that says so (calls 0, times unknown), not an empty table."""
    rows = _launches_table(tmp_path, "l", True)
    assert len(rows) == 1 and rows[0]["calls"] == 3
    assert rows[0]["mean_call_ns"] == 36_000 and rows[0]["median_call_ns"] == 4_000
    rows = _launches_table(tmp_path, "nl", False)
    assert rows == [{"launch_name": "(no launch call in the trace)", "calls": 0, "gpu_events": None,
                     "calls_without_gpu_work": None, "mean_call_ns": None, "median_call_ns": None}]


def test_readme_gpu_list_is_the_device_table_and_the_ncu_extra_exists():
    """The README's supported-GPU list is the built-in device table, name for name and in order (a GPU added to
    src/gpulens/devices and not to the README, or the reverse, fails); the ``ncu`` extra it tells users to install
    exists in pyproject.toml and holds the ``ncu-report`` reader."""
    import re
    from pathlib import Path

    import pytest

    tomllib = pytest.importorskip("tomllib")  # Python ≥ 3.11

    from gpulens.devices import SPECS

    root = Path(__file__).resolve().parent.parent
    readme = (root / "README.md").read_text()
    block = readme.split("<!-- supported-gpus")[1].split("<!-- /supported-gpus -->")[0]
    listed = []
    for vendor, count, names in re.findall(r"\* \*\*(NVIDIA|AMD)\*\* \((\d+)\): (.+)", block):
        items = [f"{vendor} {n.strip()}" for n in re.split(r", (?![^()]*\))", names)]
        assert int(count) == len(items)
        listed += items
    assert listed == [s.name for s in SPECS]
    assert "pip install '.[ncu]'" in readme
    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(d.startswith("ncu-report") for d in extras["ncu"])


def test_a_truncated_diff_table_says_how_many_rows_it_shows(tmp_path):
    """12 distinct kernels on each side, --top 10: the per-kernel table says "first 10 of 12 rows"; with --top 20
    nothing is cut and no such words appear."""
    from gpulens.diff import diff
    from gpulens.reports.diff import render_console

    def run(path, us):
        t = KTrace(H100)
        for i in range(12):
            t.launch(t.op("aten::mm", 100 + 200 * i, 150), 101 + 200 * i, [(f"kernel_{i:02d}", 5000 + 200 * i, us)])
        return t.write(path)

    r = diff(run(tmp_path / "a.json", 50.0), run(tmp_path / "b.json", 60.0))
    assert len(r.tables["kernels"]) == 12
    assert "Per kernel (first 10 of 12 rows" in " ".join(render_console(r, width=200, top=10).split())
    assert "of 12 rows" not in render_console(r, width=200, top=20)


def test_a_narrow_console_keeps_the_idle_figures_and_wraps_the_overhead_text(tmp_path, capsys, monkeypatch):
    """Three 50 µs GEMMs 200 µs apart (GPU span 450 µs, idle 300 µs, all queued): at 70 columns the idle table
    stays inside the terminal, with its idle and queued figures whole; the overhead text wraps instead."""
    t = KTrace(H100)
    for i in range(3):
        t.launch(t.op("aten::mm", 100 + 200 * i, 150), 101 + 200 * i, [(H_GEMM, 1000 + 200 * i, 50.0)])
    monkeypatch.setenv("COLUMNS", "70")
    assert main(["analyze", "--no-cache", str(t.write(tmp_path / "t.json"))]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("Where the idle time went"))
    table = lines[at:at + 12]
    top = next(ln for ln in table if ln.startswith("┏"))
    assert top.rstrip().endswith("┓") and len(top.rstrip()) <= 70  # the table is whole, not cropped at the edge
    row = next(ln for ln in table if ln.startswith("│    0 │"))
    assert row.count("300.00 µs") == 2  # idle, and its one cause (queued)


def _rank_trace(path, r, us):
    t = KTrace(H100, rank=r)
    for i in range(3):
        t.launch(t.op("aten::mm", 100 + 20 * i, 10), 101 + 20 * i, [(H_GEMM, 1000 + 200 * i, us)])
    return t.write(path)
