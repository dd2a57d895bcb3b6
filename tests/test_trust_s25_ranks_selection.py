"""A --ranks selection that keeps no GPU work says so, naming the selection — never "nothing ran on a GPU".

Kind: ``--steps``/``--window`` selections were recorded on the sources, ``--ranks`` alone was not, so a rank filter
matching nothing of a one-rank trace read "no GPU work — nothing ran on a GPU to analyse" for a trace with kernels.
"""

from __future__ import annotations

import json

from gpulens.cli import main


def _trace(tmp_path):
    ev = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 100, "dur": 50,
           "args": {"device": 0, "stream": 7}}]
    p = tmp_path / "r0.json"
    p.write_text(json.dumps({"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 8},
                             "traceEvents": ev}))
    return p


def test_ranks_matching_nothing_name_the_selection(tmp_path, capsys):
    p = _trace(tmp_path)
    out = tmp_path / "o.json"
    main(["analyze", str(p), "--ranks", "5", "--json", str(out)])
    text = capsys.readouterr().out
    assert "no GPU work in the selection" in text and "ranks 5" in text
    assert "nothing ran on a GPU" not in text
    # the rank that holds the kernel still analyses it
    assert main(["analyze", "-q", str(p), "--ranks", "0", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["sources"][0]["summary"]["kernel_count"] == 1
