"""Variants of ../shared/cases written by hand (session 28): the same kind of fault in another shape, each with the
answer worked out in the test from the numbers written into the input (never from gpulens' output)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import gpulens
from gpulens import collectors

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------------------ python -m gpulens
def test_python_dash_m_gpulens_runs_the_command_line(tmp_path):
    """``python -m gpulens analyze FILE`` (the way a venv that is not activated runs it) is the console script."""
    trace = {"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": "stream 7", "ts": 10,
                              "dur": 4, "args": {"device": 0, "stream": 7}}]}
    p = tmp_path / "t.json"
    p.write_text(json.dumps(trace))
    out = tmp_path / "o.json"
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-m", "gpulens", "analyze", str(p), "-q", "--no-cache", "--json", str(out)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert json.loads(out.read_text())["sources"][0]["summary"]["kernel_time_ns"] == 4_000  # 4 µs
