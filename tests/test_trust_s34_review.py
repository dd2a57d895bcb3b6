"""Words from the session-34 new-user review: a count of one takes the singular, and the whole-span busy share beside
the steady-state figure says what it is."""

from __future__ import annotations

import json
from pathlib import Path

import gpulens
from gpulens.reports._answer import answer


def test_one_undetermined_critical_kernel_reads_singular(tmp_path):
    # one kernel name, no shapes, no counters: the only critical kernel is undetermined — "1 of 1 critical kernel",
    # never "1 of 1 critical kernels"; 20 launches × 20 µs = 400 µs of GPU time.
    ev = [{"ph": "X", "cat": "kernel", "name": "k0", "pid": 0, "tid": 7, "ts": 1000 + 50 * i, "dur": 20,
           "args": {"device": 0, "stream": 7}} for i in range(20)]
    p = tmp_path / "one.json"
    p.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],
                             "traceEvents": ev}))
    vd = gpulens.analyze([p]).sources[0].results["verdicts"]
    titles = [f.title for f in vd.findings if f.key == "undetermined"]
    assert titles == ["1 of 1 critical kernel (400.00 µs of kernel time, summed over launches) could not be classified"]
    steps = vd.table.loc[0, "next_steps"]
    assert "these kernels" not in steps[0] and "classify them" not in steps[0]


def test_whole_span_busy_share_beside_the_steady_state_is_labelled_busy(tmp_path):
    from tests.test_trust_s34_window import _warmup_then_steady

    s = gpulens.analyze([_warmup_then_steady(tmp_path)]).sources[0]
    sentence = answer(s).sentence
    # "(2.1 % of its whole 473.75 ms span)" right after "the idle gap the verdict leaves out" read as the gap's share
    # s38: with the gap's length (10 → 10 010 µs: 10 000 µs)
    assert "outside the 10.00 ms warm-up/one-off idle gap the verdict leaves out (busy " in sentence
    assert "% of its whole " in sentence
