"""Re-running a command over its own earlier HTML or Markdown report recognises the report by its first bytes and
replaces it without loading the trace readers (pandas and every collector): the cached ``analyze --html --markdown``
re-run is the one users repeat, and it cost 0.8 s of imports and 90 MB to learn that ``report.html`` is no trace.

The expected kinds come from what each writer puts first in its file (an HTML page's ``<title>``, a Markdown title),
read here from files the CLI wrote; a Kineto trace next to them is still refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from gpulens._outputs import own_output_kind, replaces_data
from gpulens.cli import main

DATA = Path(__file__).parent / "data" / "kineto"
A = DATA / "tracelens_h100_bert-small.json.gz"
B = DATA / "tracelens_mi300x_bert-small.json.gz"


def _write_reports(tmp_path: Path) -> dict[str, Path]:
    out = {k: tmp_path / k for k in ("a.html", "a.md", "a.json", "d.html", "d.md", "g.md")}
    assert main(["analyze", str(A), "-q", "--no-cache", "--json", str(out["a.json"]), "--html", str(out["a.html"]),
                 "--markdown", str(out["a.md"])]) == 0
    assert main(["diff", str(A), str(B), "-q", "--html", str(out["d.html"]), "--markdown", str(out["d.md"])]) == 0
    store = tmp_path / "store"
    assert main(["baseline", "save", str(out["a.json"]), "-n", "main", "--store", str(store)]) == 0
    main(["gate", str(out["a.json"]), "--baseline", "main", "--store", str(store), "-q",
          "--markdown", str(out["g.md"])])
    return out


def test_each_readable_report_is_known_by_its_head_and_replaced_without_loading_readers(tmp_path):
    out = _write_reports(tmp_path)
    want = {"a.html": "html", "d.html": "html", "a.md": "markdown", "d.md": "markdown", "g.md": "markdown",
            "a.json": "json_report"}
    for name, kind in want.items():
        head = out[name].read_bytes()[:4096]
        assert own_output_kind(head) == kind, (name, head[:80])
    # a fresh interpreter: which modules the overwrite check pulls in
    probe = ("import sys, json; from gpulens._outputs import replaces_data; "
             "r = [replaces_data(p, w) for p, w in json.loads(sys.argv[1])]; "
             "print(json.dumps({'why': r, 'pandas': 'pandas' in sys.modules, "
             "'collectors': 'gpulens.collectors' in sys.modules}))")
    pairs = [[str(out["a.html"]), "html"], [str(out["a.md"]), "markdown"], [str(out["d.html"]), "diff"],
             [str(out["g.md"]), "gate_markdown"]]
    res = subprocess.run([sys.executable, "-c", probe, json.dumps(pairs)], capture_output=True, text=True, check=True)
    got = json.loads(res.stdout)
    assert got == {"why": [None, None, None, None], "pandas": False, "collectors": False}


def test_a_trace_is_still_refused_and_user_text_still_sniffed(tmp_path):
    trace = tmp_path / "t.json"
    trace.write_bytes(json.dumps({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2,
                                                   "pid": 0, "tid": 7, "args": {"device": 0}}]}).encode())
    assert replaces_data(trace, "html").startswith("a profiler trace")
    # a user's Markdown notes whose title merely mentions gpulens are no report of ours
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes on gpulens reports\n\nkeep\n")
    assert own_output_kind(notes.read_bytes()) is None
