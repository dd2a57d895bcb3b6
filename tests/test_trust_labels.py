"""One definition per figure and nothing presented as fact that the input does not hold (session 6, "trust"):
the idle headline names every cause the idle table names; a GPU name the file does not record is shown as assumed.

Expected values come from the files themselves (facts in ../shared/traces/SOURCES.md) or are written by hand.
"""

from __future__ import annotations

import json
import re

import gpulens
from gpulens.reports._format import device_text, fmt_ns, roofline_heading
from tests.conftest import shared_trace


def test_idle_headline_names_every_cause_the_idle_table_names():
    # TraceLens MI300X BERT: four idle causes (host, launch, queued, sync); the headline used to lump the fourth
    # as "21.76 µs other causes" while the table called it "idle: sync"
    src = gpulens.analyze([shared_trace("kineto/tracelens_mi300x_bert-small.json.gz")]).sources[0]
    bn = src.results["bottlenecks"].table.iloc[0]
    idle = next(f for f in src.findings() if f.key == "idle")
    causes = {c: int(bn[f"idle_{c}_ns"]) for c in ("host", "launch", "sync", "queued", "unattributed", "boundary")
              if int(bn[f"idle_{c}_ns"]) > 0}
    assert len(causes) >= 4  # the case the fault needs: more causes than the old three-cause title
    assert "other causes" not in idle.title
    for c, ns in causes.items():
        assert fmt_ns(ns) in idle.title, c
    # the causes add up to the idle time the breakdown gives (each nanosecond in one cause)
    assert sum(causes.values()) == int(bn["idle_ns"])


def test_a_gpu_the_file_does_not_name_is_shown_as_assumed():
    # CodeGandee's ncu details CSV: the "Device" column holds 0 and "CC" 12.0 — no GPU name anywhere in the file
    p = shared_trace("ncu/codegandee_rtx5090_ncu-v2_kernel_0005_details.csv")
    assert "RTX" not in p.read_text()
    rep = gpulens.analyze([p])
    src = rep.sources[0]
    assert [d.get("name") for d in src.timeline.meta.devices] == [None]
    line = device_text(src.timeline.meta.devices, src.device)
    assert line.startswith("compute capability 12.0") and "name not recorded" in line
    assert "analysed as an assumed NVIDIA GeForce RTX 5090" in line
    assert roofline_heading(src.results["roofline"].summary).startswith("Roofline on an assumed NVIDIA")
    from gpulens.reports.json_report import render
    doc = json.loads(render(rep))
    assert all(d.get("name") is None for d in doc["sources"][0]["devices"])


def test_a_gpu_named_in_the_program_output_before_the_csv_is_not_assumed():
    # Olajide's RTX 5070 ncu --metrics CSV: its preamble prints "device: NVIDIA GeForce RTX 5070 (sm_120), 48 SMs"
    p = shared_trace("ncu/olajide_rtx5070_metrics_saxpy.csv")
    src = gpulens.analyze([p]).sources[0]
    line = device_text(src.timeline.meta.devices, src.device)
    assert line.startswith("NVIDIA GeForce RTX 5070") and "assumed" not in line


def test_chart_axis_unit_follows_the_magnitude():
    from gpulens.reports._format import time_scale

    # 98.7 µs bars read in µs; 480 ms in ms; 13.3 s in s; 800 ns in ns; nothing known → ms
    assert time_scale([98_718, 41_280]) == (1e3, "µs")
    assert time_scale([480_029_179]) == (1e6, "ms")
    assert time_scale([13_340_000_000]) == (1e9, "s")
    assert time_scale([800]) == (1.0, "ns")
    assert time_scale([float("nan")]) == (1e6, "ms")


def test_html_tables_never_break_a_word_to_fit_a_column():
    # overflow-wrap:anywhere lets a table shrink a column below its longest word ("kern|el", "undeter|mined");
    # break-word breaks only a word longer than the column's own limit; a long text cell keeps a reading width
    from gpulens.reports import html
    from gpulens.reports._html_parts import table_html
    import pandas as pd

    # the one exception: a kernel page's two-column key/value tables, whose values hold unbroken kernel keys
    # (``void cutlass::Kernel2<cutlass_80_…_align8>``) that pushed the table past the window
    import re

    general = re.sub(r"section\.kpage table\.kv td\{[^}]*\}", "", html.CSS)
    assert "overflow-wrap:anywhere" not in general and "overflow-wrap:break-word" in html.CSS
    cell = table_html(pd.DataFrame({"evidence": ["occupancy not counted; 21756 blocks on 80 SMs/CUs; launch idle"],
                                    "kind": ["kernel"]}), docs={"evidence": "why [text]", "kind": "kind [text]"})
    assert '<td class="prose">occupancy not counted' in cell and "<td>kernel</td>" in cell


def test_a_tiny_grid_is_never_rounded_to_zero_percent():
    from gpulens.analyzers._occ_findings import fill_text, waves_text

    # HTA's Triton example on an A100: one launch of grid [1, 1, 1], 128 threads → 1 block of 108 SMs × 16
    # resident blocks = 1,728 slots: 1 / 1728 = 0.0579 % of one wave (was "0 % … (0.00 waves)")
    assert fill_text(1 / 1728) == "0.058 %" and waves_text(1 / 1728) == "0.000579"  # the occupancy table's three significant digits
    assert fill_text(0.8) == "80.0 %" and fill_text(0.05) == "5.0 %" and waves_text(1.07) == "1.07"
    src = gpulens.analyze([shared_trace("kineto/hta_a100_triton_example.json.gz")]).sources[0]
    steps = " ".join(src.results["verdicts"].table.iloc[0]["next_steps"])
    # no figure rounded to a bare "0 %" ("100 % of its launches …" is not one)
    assert "fills only 0.058 %" in steps and not re.search(r"(?<![\d.])0 %", steps)


def test_no_gpu_work_has_no_busy_percentage():
    # HTA's CPU-only trace: no GPU event at all (SOURCES.md: 0 kernel events) — "busy 0.0 %" of a 0 ns span is 0/0
    from gpulens.reports._format import busy_pct_text, busy_text

    src = gpulens.analyze([shared_trace("kineto/hta_cpu_only_rank34.pt.trace.json.gz")]).sources[0]
    assert src.summary["kernel_count"] == 0
    assert busy_text(src.summary) == busy_pct_text(src.summary) == "none (no GPU work recorded)"
