"""The README's Python example on an empty run (issue 14.12): every documented access path works."""

from __future__ import annotations

import gpulens
from tests.conftest import CASES


def test_readme_python_example_on_a_trace_without_kernels(tmp_path):
    # B05a: three "M" metadata events, no work at all (cases/README: 0 kernels, 0 µs, no exception)
    report = gpulens.analyze([CASES / "B05a.json"])
    src = report.sources[0]
    assert src.summary["kernel_count"] == 0 and src.summary["kernel_time_ns"] == 0
    assert len(src.results["hotspots"].table) == 0 and "name" in src.results["hotspots"].table.columns
    assert src.results["verdicts"].summary["run_verdict"] == "no-gpu-work"
    assert len(src.results["verdicts"].table) == 0
    assert src.findings() == [] or all(f.title for f in src.findings())
    tl = gpulens.collect(CASES / "B05a.json")
    assert len(tl.events) == 0 and len(tl.counters) == 0 and tl.meta is not None
    tl.save(tmp_path / "run.gpulens")
    assert len(gpulens.Timeline.load(tmp_path / "run.gpulens").events) == 0
