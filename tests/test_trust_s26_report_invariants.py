"""Every JSON report of the committed inputs keeps the report invariants (tests/report_invariants.py): figures in
range, parts within their whole, counts consistent, references that exist — and the checker itself catches each
kind of break (a report edited to violate it).

The invariants are the schema's definitions (docs/report-schema.md), not gpulens's output; inputs are the small
committed traces and the broken-tool cases, plus ``--window`` / ``--steps`` selections (where the checker found
allocator events outside the window).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import gpulens
from gpulens.reports import json_report
from gpulens.timeline.selection import Selection
from tests.conftest import CASES, DATA
from tests.report_invariants import violations

_SKIP_SUFFIX = {".md", ".py", ".sh", ".cu", ".txt"}
#: inputs read as one source (a folder of one run), not file by file
_FOLDERS = ["kineto/multirank", "omniperf/vcopy_MI200", "omniperf/vcopy_MI300X_A1", "rocprof/v1_gunrock_mi300x",
            "rocprof/v1_pmc_seismic_mi250x", "rocprof/v3_csv_sdk_docs", "rocprof/v3_csv_unified_viewer_decode"]


def _inputs() -> list[str]:
    files = [p for p in sorted(DATA.rglob("*")) if p.is_file() and p.suffix not in _SKIP_SUFFIX
             and "tracelens_reference" not in p.parts and "capture" not in p.parts
             and p.parent.relative_to(DATA).as_posix() not in _FOLDERS[:5]]
    return [p.relative_to(DATA).as_posix() for p in files] + _FOLDERS


#: selections over inputs with allocator events, steps or several ranks: (input, steps, window, ranks)
SELECTIONS = [("kineto/tracelens_mi300x_bert-small.json.gz", None, "2ms:3ms", None),
              ("kineto/tracelens_mi300x_bert-small.json.gz", None, "2ms:3ms", "0"),
              ("kineto/tracelens_h100_bert-small.json.gz", None, "1ms:5ms", None),
              ("nvidia/h200/h200_gpt2_train.pt.trace.json.gz", "2:3", None, None),
              ("nvidia/h200/h200_resnet18_train.pt.trace.json.gz", None, "1ms:3ms", None),
              ("kineto/multirank", None, None, "1"),
              ("kineto/multirank", None, "100ms:300ms", None)]


def _report(path: Path, select: Selection | None = None) -> dict:
    rep = gpulens.analyze(path, strict=False, workers=1, select=select)
    return json.loads(json.dumps(json_report.to_dict(rep)))


@pytest.mark.parametrize("rel", _inputs())
def test_committed_inputs_keep_the_invariants(rel):
    assert violations(_report(DATA / rel)) == []


@pytest.mark.parametrize("rel,steps,window,ranks", SELECTIONS)
def test_selections_keep_the_invariants(rel, steps, window, ranks):
    assert violations(_report(DATA / rel, Selection.parse(steps, window, ranks))) == []


def test_the_inputs_cover_the_cases():
    """Every broken-tool case of tests/data/cases is among the inputs checked."""
    checked = set(_inputs())
    assert {f"cases/{p.name}" for p in CASES.iterdir()} <= checked


@pytest.fixture(scope="module")
def two_ranks() -> dict:
    return _report(DATA / "kineto" / "multirank")


def _broken(doc: dict, edit) -> list[str]:
    d = copy.deepcopy(doc)
    edit(d["sources"][0])
    return violations(d)


@pytest.mark.parametrize("what,edit", [
    ("time breakdown parts", lambda s: s["summary"].__setitem__("idle_ns", s["summary"]["idle_ns"] + 10 ** 6)),
    ("outside [0, 100] %", lambda s: s["analyses"]["breakdown"]["table"][0].__setitem__("busy_pct", 100.2)),
    ("outside [0, 1]", lambda s: s["top_kernels"][0].__setitem__("share", 1.5)),
    ("is negative", lambda s: s["analyses"]["copies"]["table"][0].__setitem__("bytes", -8)),
    ("Σ calls ≠ kernel_count", lambda s: s["analyses"]["hotspots"]["table"][0].__setitem__("calls", 10 ** 6)),
    ("idle causes ≠ idle", lambda s: s["analyses"]["bottlenecks"]["table"][0].__setitem__("idle_host_ns", 0)),
    ("time at stake > summed spans", lambda s: s["findings"][0].__setitem__("time_at_stake_ns", 10 ** 13)),
    ("its parent", lambda s: s["findings"][2].__setitem__(
        "time_at_stake_ns", s["findings"][0]["time_at_stake_ns"] + 1)),
    ("not among the findings before it", lambda s: s["findings"][2].__setitem__("parent", "no-such-key")),
    ("not among the run's ranks", lambda s: s["findings"][0].__setitem__("rank", 7)),
    ("above 100 %", lambda s: s["findings"][0].__setitem__("title", "GPUs idle 154.0 % of their spans")),
])
def test_the_checker_catches_each_kind(two_ranks, what, edit):
    assert violations(two_ranks) == []
    found = _broken(two_ranks, edit)
    assert any(what in v for v in found), found
