"""Ninth session: ``gpulens diff TRACE REPORT.json`` where the JSON report's kernel-group table is longer than the
report's row limit (``json_report.MAX_TABLE_ROWS``: the rest is one "other" row whose keys are null).

Before, the null keys of that row met the text keys of the others in the diff's grouping and the command stopped
with an internal error (exit 70: "'<' not supported between instances of 'str' and 'float'") — on a real rank
directory (tests/data/kineto/multirank, 1,060 groups) diffed against its own report. Now the row is one group named
"(other kernel groups: N not listed in the report)", the totals agree, and a warning says per-kernel changes are
not exact for such a side.
"""

from __future__ import annotations

import json

from gpulens.cli import main
from gpulens.reports.json_report import MAX_TABLE_ROWS


def test_diff_against_a_report_with_a_capped_kernel_table(tmp_path, capsys):
    n = MAX_TABLE_ROWS + 3   # distinct kernels: one group each; the last 3 groups become the "other" row
    evs = [{"ph": "X", "cat": "kernel", "name": f"kernel_{i:04d}", "pid": 0, "tid": 7, "ts": 1000 + 10 * i,
            "dur": 1 + i % 5, "args": {"device": 0, "stream": 7}} for i in range(n)]
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps({"traceEvents": evs}))
    total_ns = sum(1 + i % 5 for i in range(n)) * 1000
    assert main(["analyze", str(trace), "-q", "--no-cache", "--json", str(tmp_path / "r.json")]) == 0
    doc = json.loads((tmp_path / "r.json").read_text())
    rows = doc["sources"][0]["analyses"]["kernel_groups"]["table"]
    assert len(rows) == MAX_TABLE_ROWS + 1 and rows[-1]["other_rows"] == 3 and rows[-1]["name"] is None
    capsys.readouterr()
    code = main(["diff", str(trace), str(tmp_path / "r.json"), "--json", str(tmp_path / "d.json")])
    out, err = capsys.readouterr()
    assert code == 0, err
    d = json.loads((tmp_path / "d.json").read_text())
    sm = d["summary"]
    assert sm["base_time_ns"] == sm["cand_time_ns"] == total_ns and sm["delta_ns"] == 0
    assert any("row limit" in w and "last 3 kernel groups as one row" in w for w in d["warnings"])
    assert "(other kernel groups: 3 not listed in the report)" in json.dumps(d["tables"])
