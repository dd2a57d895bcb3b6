"""The kernels line (launches, summed and union time) reads the same in the console, Markdown and HTML.

Kind: three reporters each built it: on a rocprof stats table (durations, no timeline) the console said "1.55 s
summed" and Markdown "1.55 s summed, unknown busy (union)"; on a counter-only rocprof-compute run the console said
"durations not recorded" and Markdown "unknown summed, unknown busy (union)" with "1 kernels". One definition now
(``reports._format.kernel_time_text``).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from gpulens.report import analyze
from gpulens.reports import console, html, markdown

DATA = Path(__file__).parent / "data"


def _lines(rep) -> dict[str, str]:
    con = " ".join(console.render(rep, width=400).split())
    md = markdown.render(rep)
    page = re.sub(r"<[^>]+>", " ", html.render(rep))
    return {"console": con, "markdown": md, "html": " ".join(page.split())}


def test_stats_table_kernels_line():
    """results.stats.csv: Calls and TotalDurationNs per kernel; by hand Σ Calls and Σ TotalDurationNs over its
    rows but ROCclr's ``__amd_rocclr_fillBufferAligned`` (12 calls: a buffer fill, a memset, not a kernel)."""
    with open(DATA / "rocprof" / "v1_pmc_seismic_mi250x" / "results.stats.csv", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if not r["Name"].startswith("__amd_rocclr_fill")]
    calls, ns = sum(int(r["Calls"]) for r in rows), sum(int(r["TotalDurationNs"]) for r in rows)
    assert (calls, len(rows)) == (1012, 12) and round(ns / 1e9, 2) == 1.55
    rep = analyze([str(DATA / "rocprof" / "v1_pmc_seismic_mi250x")])
    want = "1,012 launches of 12 kernels, 1.55 s summed, busy (union) unknown"
    out = _lines(rep)
    assert f"kernels {want}" in out["console"]
    assert f"| kernels | {want} |" in out["markdown"]
    assert "1.55 s summed, busy (union) unknown" in out["html"]
    assert "unknown busy" not in out["markdown"]


def test_counter_only_run_kernels_line():
    """rocprof-compute vcopy on MI300X: 3 dispatches of one kernel whose durations are not recorded (start == end
    after scientific-notation timestamps)."""
    rep = analyze([str(DATA / "omniperf" / "vcopy_MI300X_A1")])
    assert rep.sources[0].summary["kernel_time_ns"] is None
    out = _lines(rep)
    assert "kernels 3 launches of 1 kernel, durations not recorded" in out["console"]
    assert "| kernels | 3 launches of 1 kernel, durations not recorded |" in out["markdown"]
    assert "durations not recorded" in out["html"] and "unknown summed" not in out["html"]
    assert "| performance-critical set | 1 kernel," in out["markdown"]
