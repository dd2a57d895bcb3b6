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
import re
from types import SimpleNamespace

import pytest

import gpulens
from gpulens.collectors import collect
from gpulens.collectors.ncu_rep import rule_type
from tests.conftest import DATA, shared_trace

NV = DATA / "nvidia"
CSV_WORDS = {"OPT", "WRN", "INF", "ERR"}
RAW_MARKUP = re.compile(r"@(url|section|sass|source):")


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


def test_lashi_rep_types_read_as_the_csv_would():
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
    t = gpulens.analyze([path]).sources[0].results["ncu_rules"].table
    assert set(t["type"]) <= CSV_WORDS
