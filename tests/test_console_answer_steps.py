"""The console's answer block (the first lines, README: "the answer is the first lines") cut each top finding's
next step at 200 characters, often before its instruction ("… (runtime calls in them: cudaMalloc 1.94 s in 19 calls,
cudaStreamCreateWithFlags 734.88 ms in 16 calls): set-up calls fill…", fresh-user walk on AlexNet). The steps are
now shown whole (up to 700 characters).

Input: tests/data/kineto/hta_alexnet_a100.json.gz (HTA's AlexNet sample, MIT; see PROVENANCE.md).
"""

from __future__ import annotations

import gpulens
from gpulens.cli import main
from gpulens.reports._answer import answer

from .conftest import KINETO


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_top_steps_are_shown_whole(capsys):
    trace = KINETO / "hta_alexnet_a100.json.gz"
    actions = [f.action.strip() for f in answer(gpulens.analyze([trace]).sources[0]).findings if f.action]
    assert any(len(a) > 200 for a in actions)  # the premise: a step longer than the old cut
    assert main(["analyze", str(trace), "--no-cache"]) in (0, 1)
    out = _flat(capsys.readouterr().out)
    head = out[:out.find("input ")] if "input " in out else out
    for a in actions:
        assert _flat(a) in head, a
