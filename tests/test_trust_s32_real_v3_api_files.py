"""Held-back real traces, rocprofv3 CSV: an API-trace file never holds GPU work, so it never says "nothing ran".

ROCm/rocprofiler-sdk @ 8ab1ed78 ``source/docs/data/``: ``hsa_api_trace.csv`` (10 HSA_CORE_API calls),
``marker_api_trace.csv`` (5 roctx markers) and ``hip_compile_trace.csv`` (4 HIP_COMPILER_API calls) are single
domains of rocprofv3 outputs. gpulens already said, for a ``hip_api_trace.csv`` holding a ``hipLaunchKernel``, that
"the capture is incomplete: … this file holds API calls only"; for these three, whose calls include no launch, it
said "No GPU work was recorded in this input: nothing ran on a GPU to analyse" — but rocprofv3 writes GPU work to
``kernel_trace.csv`` / ``memory_copy_trace.csv``, never to these files, so the file cannot show that. Now any
API-only rocprofv3 CSV is an incomplete capture with the row count; the expected counts are read from the files.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from gpulens.cli import main
from gpulens.collectors import collect

DOCS = Path(__file__).parent / "data" / "rocprof" / "v3_csv_sdk_docs_api"


@pytest.mark.parametrize("name", ["hsa_api_trace.csv", "marker_api_trace.csv", "hip_compile_trace.csv"])
def test_api_only_file_is_an_incomplete_capture(tmp_path, name):
    p = DOCS / name
    with p.open(newline="") as f:
        rows = list(csv.DictReader(f))
    # no HIP runtime call at all (marker texts may name one: "before hipLaunchKernel"): the old path stayed silent
    assert rows and not any(r["Domain"].startswith("HIP_RUNTIME") for r in rows)
    note = collect(p).meta.sources[0]["incomplete_capture"]
    assert note and f"API calls only ({len(rows):,} row{'s' if len(rows) != 1 else ''})" in note and "kernel_trace.csv" in note
    md = tmp_path / "o.md"
    assert main(["analyze", "-q", "--no-cache", str(p), "--markdown", str(md)]) == 5
    verdict = next(line for line in md.read_text().splitlines() if "**Verdict:**" in line)
    assert "nothing ran on a GPU" not in verdict and "capture is incomplete" in verdict
