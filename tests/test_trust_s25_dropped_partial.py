"""Events dropped as unreadable make a result partial, and the CI gate never reads them as a speed-up.

Kind: a kernel event whose ``args`` is an array (or any field of the wrong type, malformed JSON read with
--lenient, an unknown ``ph``) was dropped with a warning while the status stayed "ok"; the gate then compared the
run without that kernel against its baseline and said IMPROVED (gpu_busy −33 %). Truncated inputs were already
partial and excluded by the gate (exit 4); dropped events are the same kind of loss. Expected values come from the
trace written here: 3 kernels, one unreadable.
"""

from __future__ import annotations

import json

import gpulens
from gpulens.cli import main


def _trace(path, bad: bool):
    ev = []
    for i in range(3):
        ev.append({"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": 100 * i, "dur": 50,
                   "args": [1, 2] if bad and i == 1 else {"device": 0, "stream": 7}})
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return path


def test_wrong_type_event_makes_the_source_partial(tmp_path):
    src = gpulens.analyze([_trace(tmp_path / "bad.json", True)]).sources[0]
    assert src.summary["kernel_count"] == 2  # k0 and k2 kept
    assert src.status == "partial"
    from gpulens.reports._answer import partial_reason
    assert "1 unreadable event dropped (bad.json ×1" in partial_reason(src)
    assert gpulens.analyze([_trace(tmp_path / "good.json", False)]).sources[0].status == "ok"


def test_gate_excludes_a_run_with_dropped_events(tmp_path):
    good = [_trace(tmp_path / f"g{i}.json", False) for i in range(2)]
    rep = tmp_path / "base.report.json"
    assert main(["analyze", "-q", *map(str, good), "--json", str(rep)]) == 0
    assert main(["baseline", "save", "--store", str(tmp_path / "s"), "--name", "main", str(rep)]) == 0
    out = tmp_path / "gate.json"
    code = main(["gate", "--store", str(tmp_path / "s"), "--baseline", "main", str(_trace(tmp_path / "bad.json", True)),
                 "--json", str(out)])
    doc = json.loads(out.read_text())
    assert code == 4 and doc["verdict"] == "ERROR" and "unreadable event" in doc["reason"]
