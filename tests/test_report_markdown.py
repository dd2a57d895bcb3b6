"""The Markdown summary: findings and tables, escaped names, always under GitHub's comment limit."""

import re

import pytest

import gpulens
from gpulens.reports import markdown
from tests.conftest import KINETO
from tests.synth import write_kineto


def test_summary_tables_and_findings():
    rep = gpulens.analyze([KINETO / "tracelens_h100_bert-small.json.gz"])
    md = markdown.render(rep)
    src = rep.sources[0]
    assert "| GPU busy | 7.9 % |" in md  # 307.15 µs busy of a 3.91 ms span (see the TraceLens reference test)
    assert "| kernels | 60 launches of 11 kernels," in md
    top = src.results["hotspots"].table.iloc[0]
    # the top kernel's row: its short name keeps the tile shapes (32x32, 128x2) that tell the cutlass kernels apart;
    # 17 calls; 98.72 µs
    row = next(line for line in md.splitlines() if line.startswith("| cutlass\\_80\\_wmma"))
    assert "32x32 128x2" in row and f"| {top['calls']} | 98.72 µs |" in row
    assert src.findings()[0].title.split(" ")[0] in md and "### Findings" in md
    # the answer comes first: the verdict sentence before the first table
    assert md.index("**Verdict:** host-bound —") < md.index("| status |")
    assert "- roofline" not in md  # only analyzers that ran and skipped are listed as "not analysed"
    assert "- Kernel time per rank: 1 rank with GPU kernels" in md  # listed by its section title


@pytest.mark.parametrize("name,shown", [
    ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"),
    ("a|b*c_d`e", "a\\|b\\*c\\_d\\`e"),
])
def test_names_are_escaped(name, shown):
    assert markdown.md_text(name) == shown


def test_stays_under_the_limit_for_huge_inputs(tmp_path):
    path = tmp_path / "r.json"
    write_kineto(path, 300, n_names=300, name_len=3000, streams=2)
    src = gpulens.analyze([path]).sources[0]
    md = markdown.render(gpulens.Report([src] * 60))
    assert len(md) < markdown.MAX_CHARS
    assert "left out to stay under 65000 characters" in md
    assert md.count("\n## ") == 60  # every input's headline is kept before any input's details
    cells = [c for line in md.splitlines() if line.startswith("| ") for c in re.split(r"\s\|\s", line)]
    assert max(len(c) for c in cells) <= 120  # 3000-character names clipped to 100 (+ escapes)


def test_rates_and_percentages_are_formatted_with_units():
    from gpulens.reports._format import fmt_value

    assert fmt_value(1.274e13, "flops_per_s") == "12.74 TFLOP/s"  # 1.274e13 / 1e12
    assert fmt_value(3.35e12, "peak_bytes_per_s") == "3.35 TB/s"
    assert fmt_value(4.1852, "roof_pct") == "4.2 %"
