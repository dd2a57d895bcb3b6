"""ncu rule results read the same from a .ncu-rep as from a CSV: the rule type in the CSV's words (OPT, WRN, INF,
ERR — a .ncu-rep stores a number: "3" was shown as the type), and ncu's link markup (``@section:…@``, ``@url:…@``)
rendered as the plain text the CSV export prints, in every report and next step.

Markup formats: ``ncu_report``'s ``IRuleResult.rule_message`` docstring (``@url:<hypertext>:<external link>@``,
``@section:<section identifier>:<hypertext>@``, ``@sass:<address>:<hypertext>@``,
``@source:<file name>:<line number>:<hypertext>@``). Message types: NvRules ``IFrontend::MsgType`` (MSG_OK "The
message is informative", MSG_WARNING "a warning or fixable issue", MSG_ERROR; MSG_OPTIMIZATION), as ncu's CSV export
names them in its "Rule Type" column (the CodeGandee CSVs: OPT for SOLBottleneck, INF for SOLFPRoofline).
"""

from __future__ import annotations

import csv
import json
import re
from types import SimpleNamespace

import pytest

import gpulens
from gpulens.analyzers.ncu_rules import plain_text
from gpulens.collectors import collect
from gpulens.collectors.ncu_rep import rule_type
from gpulens.reports import console, html, json_report, markdown
from tests.conftest import DATA, shared_trace

NV = DATA / "nvidia"
CSV_WORDS = {"OPT", "WRN", "INF", "ERR"}
RAW_MARKUP = re.compile(r"@(url|section|sass|source):")


@pytest.mark.parametrize("raw, shown", [
    ("Look at @section:LaunchStats:Launch Statistics@ for more details.",
     "Look at Launch Statistics for more details."),
    ("See the @url:Hardware Model:https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html#metrics-hw-model@ "
     "description", "See the Hardware Model (https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html"
                    "#metrics-hw-model) description"),
    ("Check @sass:0x7f12a0:this load@ first.", "Check this load first."),
    ("At @source:kernel.cu:42:line 42@ the loop", "At line 42 (kernel.cu:42) the loop"),
    ("no markup, a@b.com stays", "no markup, a@b.com stays"),
])
def test_markup_is_plain_text(raw, shown):
    assert plain_text(raw) == shown


def test_csv_rule_types_are_the_words():
    with open(NV / "codegandee_rtx5090_ncu-v2_kernel_0005_details.csv", newline="") as fh:
        types = {r["Rule Type"] for r in csv.DictReader(line for line in fh if line.startswith('"')) if r["Rule Name"]}
    assert types and types <= CSV_WORDS
    assert set(collect(NV / "codegandee_rtx5090_ncu-v2_kernel_0005_details.csv").tables["ncu_rules"]["type"]) == types


def test_rep_message_types_map_to_the_csv_words():
    # a binding without the MsgType enum: the numbers of ncu_report 2026.3.1 (NONE 0 … ERROR 4)
    bare = SimpleNamespace()
    assert [rule_type(bare, n) for n in range(5)] == ["", "INF", "OPT", "WRN", "ERR"]
    assert rule_type(bare, 9) == "unknown (9)" and rule_type(bare, "OPT") == "OPT"
    mod = pytest.importorskip("ncu_report")
    # the binding's own enum, by name: whatever its numbering
    words = {"NONE": "", "OK": "INF", "OPTIMIZATION": "OPT", "WARNING": "WRN", "ERROR": "ERR"}
    for member in mod.MsgType:
        assert rule_type(mod, int(member)) == words[member.name]
        assert rule_type(mod, member) == words[member.name]


def test_lashi_rep_types_and_text_read_as_the_csv_would():
    mod = pytest.importorskip("ncu_report")
    path = shared_trace("ncu/lashi_rtx4090_simpleDivergence.ncu-rep")
    # what the file itself holds, through ncu_report directly: numeric types and raw markup
    ctx = mod.load_report(str(path))
    raw = [rr.rule_message() for r in range(ctx.num_ranges()) for a in range(ctx.range_by_idx(r).num_actions())
           for rr in ctx.range_by_idx(r).action_by_idx(a).rule_results()]
    assert raw and all(isinstance(m["type"], int) for m in raw)
    assert any(RAW_MARKUP.search(m["message"]) for m in raw)
    rules = collect(path).tables["ncu_rules"]
    assert [t for t in rules["type"]] == [{1: "INF", 2: "OPT", 3: "WRN", 4: "ERR"}[int(m["type"])] for m in raw]
    rep = gpulens.analyze([path])
    src = rep.sources[0]
    t = src.results["ncu_rules"].table
    assert set(t["type"]) <= CSV_WORDS and not any(RAW_MARKUP.search(d) for d in t["description"])
    # a section link reads as the section's name; a URL link as its hypertext with the address after it
    assert any("Look at Launch Statistics for more details." == f.action for f in src.findings())
    assert any("Hardware Model (https://docs.nvidia.com/" in d for d in t["description"])
    for text in (console.render(rep, width=400), markdown.render(rep), html.render(rep), json_report.render(rep)):
        assert not RAW_MARKUP.search(text)


def test_markup_never_reaches_a_report(tmp_path):
    """A details CSV whose rule text carries the markup (as a .ncu-rep's does): every reporter shows plain text,
    the next step included."""
    src_csv = NV / "codegandee_rtx5090_ncu-v2_kernel_0005_details.csv"
    with open(src_csv, newline="") as fh:
        r = csv.DictReader(line for line in fh if line.startswith('"'))
        fields, rows = list(r.fieldnames), list(r)
    for row in rows:
        if row["Rule Name"] == "SOLBottleneck":
            row["Rule Description"] = row["Rule Description"].replace(
                "Look at Scheduler Statistics and Warp State Statistics",
                "Look at @section:SchedulerStats:Scheduler Statistics@ and "
                "@section:WarpStateStats:Warp State Statistics@ (@url:guide:https://docs.nvidia.com/x#y@)")
            assert "@section:" in row["Rule Description"]
    p = tmp_path / "marked.csv"
    with open(p, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields, quoting=csv.QUOTE_ALL)
        w.writeheader()
        w.writerows(rows)
    rep = gpulens.analyze([p])
    src = rep.sources[0]
    f = next(f for f in src.findings() if f.key and f.key.startswith("ncu/SOLBottleneck/"))
    assert f.action == ("Look at Scheduler Statistics and Warp State Statistics (guide (https://docs.nvidia.com/x#y)) "
                        "for potential reasons.")
    doc = json.loads(json_report.render(rep))
    for text in (console.render(rep, width=400), markdown.render(rep), html.render(rep), json.dumps(doc)):
        assert not RAW_MARKUP.search(text)
    for text in (html.render(rep), json.dumps(doc)):  # the full rule text (console and Markdown clip it)
        assert "Warp State Statistics (guide (https://docs.nvidia.com/x#y))" in text
