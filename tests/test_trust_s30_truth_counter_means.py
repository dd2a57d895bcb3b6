"""The kernel-counter table of a timestamp-less counter run shows per-dispatch means: its title says so.

Found on ../shared/traces/rocprof/v1_pmc_seismic_mi250x/data_movement.csv: the console and Markdown showed
"compute_fd_x_kernel | dispatches 100 | FETCH SIZE 570.44 MB" under the bare title "Kernel counters". 570.44 MB is
the mean per dispatch (Σ FETCH_SIZE over the 100 rows = 55,706,630 KiB → 557,066 KiB × 1024 B per dispatch); beside
a dispatch count of 100 it reads as the kernel's total. The JSON's column doc said "mean"; the human reports did not.
"""

import csv
from pathlib import Path

import pytest

import gpulens
from gpulens.reports.console import render
from gpulens.reports.markdown import render as render_markdown

CSV = Path(__file__).resolve().parents[2] / "shared" / "traces" / "rocprof" / "v1_pmc_seismic_mi250x" / "data_movement.csv"


def _mean_fetch_bytes(kernel: str) -> float:
    rows = [r for r in csv.DictReader(CSV.open()) if r["KernelName"] == kernel]
    return sum(float(r["FETCH_SIZE"]) for r in rows) / len(rows) * 1024  # rocprof FETCH_SIZE is in KiB


def test_counter_table_title_says_mean_per_dispatch(tmp_path):
    if not CSV.exists():
        pytest.skip("../shared traces not present")
    res = gpulens.analyze([CSV])
    t = res.sources[0].results["kernel_counters"].table.set_index("name")
    # the figure is the mean over dispatches (hand-computed from the file), not the sum over 100 dispatches
    assert t.loc["compute_fd_x_kernel", "FETCH_SIZE"] * 1024 == pytest.approx(_mean_fetch_bytes("compute_fd_x_kernel"))
    text = render(res)
    assert "Kernel counters (mean per dispatch)" in text
    md = render_markdown(res)
    assert "### Kernel counters (mean per dispatch)" in md
