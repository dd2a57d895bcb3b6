"""Kind: a report read back by ``diff``, ``gate`` or ``baseline save`` whose containers have the wrong type (fuzzer):
``sources[0].analyses.hotspots.summary`` = 5 (diff: AttributeError), ``sources[0].devices`` = -1 (diff, gate,
baseline save: TypeError), ``hotspots.table[0]`` = ``"12"`` or null (gate: AttributeError) — internal errors, exit
70. Each is now a one-line error naming the file and the place, exit 2; an intact report still compares.
"""

from __future__ import annotations

import json

import pytest

from gpulens.cli import main

from .conftest import CASES


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    p = tmp_path_factory.mktemp("rep") / "r.json"
    assert main(["analyze", str(CASES / "B13.json"), "-q", "--no-cache", "--json", str(p)]) == 0
    return p


def _edit(report, tmp_path, change):
    doc = json.loads(report.read_text())
    change(doc["sources"][0])
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(doc))
    return p


CASES_ = [
    (lambda s: s["analyses"]["hotspots"].__setitem__("summary", 5), "sources[0].analyses.hotspots.summary is the "
                                                                      "number 5, not an object"),
    (lambda s: s.__setitem__("devices", -1), "sources[0].devices is the number -1, not a list"),
    (lambda s: s["analyses"]["hotspots"]["table"].__setitem__(0, "12"), "sources[0].analyses.hotspots.table[0] is "
                                                                          "text '12', not an object"),
    (lambda s: s["analyses"]["hotspots"]["table"].__setitem__(0, None), "sources[0].analyses.hotspots.table[0] is "
                                                                          "missing, not an object"),
    (lambda s: s["analyses"].__setitem__("hotspots", [1]), "sources[0].analyses.hotspots is a list, not an object"),
    (lambda s: s.__setitem__("findings", {"a": 1}), "sources[0].findings is an object, not a list"),
]


@pytest.mark.parametrize("change, said", CASES_)
def test_wrong_container_is_one_line_naming_its_place(report, tmp_path, capsys, change, said):
    bad = _edit(report, tmp_path, change)
    for args in (["diff", str(report), str(bad), "-q"], ["diff", str(bad), str(report), "-q"],
                 ["gate", str(report), "-b", str(bad), "-q"], ["gate", str(bad), "-b", str(report), "-q"],
                 ["baseline", "save", str(bad), "-n", str(tmp_path / "b.json")]):
        assert main(args) == 2, args
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [f"gpulens: error: {bad}: report {said}: the report was edited or damaged (regenerate it "
                       "with gpulens analyze --json)"], (args, err)


def test_intact_report_still_compares(report, capsys):
    assert main(["diff", str(report), str(report), "-q"]) == 0
    assert main(["gate", str(report), "-b", str(report), "-q"]) == 0
