"""Faults a new user met following the README (session 46), each as its kind."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import gpulens
from gpulens.cli import main


def _kernels(report_json: Path) -> tuple[int, list]:
    doc = json.loads(report_json.read_text())
    src = doc["sources"]
    return sum(s["summary"]["kernel_count"] for s in src), [s.get("rank_files") for s in src]


def test_a_perfetto_export_beside_the_trace_is_not_one_more_rank(tmp_path):
    """`gpulens analyze DIR --perfetto DIR/x.json` then `gpulens analyze DIR`: the export holds the trace's events
    again; read beside it, every kernel counted twice (ranks 0, 1). Expected: the folder's figures are the trace's own,
    and the export is named as not read; alone, the export is still read."""
    d = tmp_path / "run"
    d.mkdir()
    trace = Path(gpulens.demo_trace())
    shutil.copy(trace, d / "run.pt.trace.json.gz")
    assert main(["analyze", str(trace), "-q", "--no-cache", "--json", str(tmp_path / "alone.json")]) == 0
    assert main(["analyze", str(d), "-q", "--no-cache", "--perfetto", str(d / "run.perfetto.json")]) == 0
    assert main(["analyze", str(d), "-q", "--no-cache", "--json", str(tmp_path / "dir.json")]) == 0
    alone, _ = _kernels(tmp_path / "alone.json")
    both, _ = _kernels(tmp_path / "dir.json")
    assert both == alone  # not 2 × alone
    warnings = " ".join(json.dumps(s.get("warnings")) for s in json.loads((tmp_path / "dir.json").read_text())["sources"])
    assert "run.perfetto.json: a trace exported by gpulens --perfetto" in warnings
    only = tmp_path / "only"
    only.mkdir()
    shutil.move(str(d / "run.perfetto.json"), only / "run.perfetto.json")
    assert main(["analyze", str(only), "-q", "--no-cache", "--json", str(tmp_path / "only.json")]) == 0
    assert _kernels(tmp_path / "only.json")[0] == alone
