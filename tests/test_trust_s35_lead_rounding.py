"""One rounding rule in every table cell: a fixed-decimals figure rounds halves up in the console as in the
Markdown and the findings (the demo's occupancy of 5 of 16 warps per scheduler, 31.25 %, read 31.2 in the console
table beside "to 31.3 %" in its finding and 31.3 % in the Markdown)."""

from __future__ import annotations

from gpulens.reports.console import _num
from gpulens.units import fixed_half_up, fmt_share, share_pct_text


def test_fixed_decimals_round_halves_up():
    # 31.25 is exact in binary: Python's format rounds it to even ("31.2"), the console's old reading
    assert fixed_half_up(31.25, 1) == "31.3" == _num(31.25)
    assert _num(0.125e12, 1e12, "{:.2f}") == "0.13"  # 0.125 exactly: halves up
    assert _num(2.5, 1.0, "{:.0f}") == "3"
    assert _num(None) == "unknown" and _num(float("nan")) == "unknown"
    assert fmt_share(0.3125) == "31.3 %" == share_pct_text(31.25)


def test_demo_occupancy_reads_the_same_in_console_and_markdown():
    import re

    import gpulens
    from gpulens.reports import console, markdown

    from gpulens.cli.analyze import demo_trace_path

    rep = gpulens.analyze([str(demo_trace_path())])
    text = console.render(rep, width=200)
    md = markdown.render(rep)
    # the wmma kernel's theoretical occupancy: 5/16 = 31.25 % → 31.3 in both
    assert re.search(r"wmma_tensorop… 32x32 128x2 \|[^\n]*\| 31\.3 % \|", md.replace("\\_", "_"))
    row = next(line for line in text.splitlines() if "wmma_tensorop… 32x32 128x2" in line and "│" in line
               and "registers" in line)
    assert "31.3" in row and "31.2" not in row
