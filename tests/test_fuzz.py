"""Seeded fuzzing of every input format (issue 17, acceptance): only gpulens errors, documented exit codes, no hang,
bounded memory.

The default run mutates each format's seed (tests/fuzzing.py: Kineto plain and gzip, nsys SQLite and stats CSV, ncu
CSV, rocpd in both layouts, rocprof v1 CSV and stats, rocprofv3 CSV and JSON, a rocprof-compute folder) into
``GPULENS_FUZZ_INPUTS`` inputs (default 1,200) split over two worker processes; every 20th input is also analyzed
and every 60th goes through the whole CLI. ``GPULENS_FUZZ_LONG=N`` runs N inputs instead, with every 4th analyzed
(e.g. ``GPULENS_FUZZ_LONG=10000 pytest tests/test_fuzz.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PER_INPUT_TIMEOUT_S = 20  # a well-behaved input of these sizes loads in well under a second
MAX_RSS_MB = 2500


def _run_workers(tmp_path: Path, total: int, workers: int, analyze_every: int, cli_every: int) -> list[dict]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE.parent / "src"), str(HERE.parent)]))
    per = -(-total // workers)
    procs = []
    for w in range(workers):
        wd = tmp_path / f"w{w}"
        wd.mkdir()
        cmd = [sys.executable, str(HERE / "fuzzing.py"), "--seed", "1717", "--start", str(w * per), "--count",
               str(min(per, total - w * per)), "--workdir", str(wd), "--timeout", str(PER_INPUT_TIMEOUT_S),
               "--analyze-every", str(analyze_every), "--cli-every", str(cli_every)]
        procs.append((wd, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)))
    out = []
    budget = max(600, per * 2)  # a hang inside C code cannot be interrupted by the alarm: the parent kills it
    for wd, p in procs:
        try:
            stdout, stderr = p.communicate(timeout=budget)
        except subprocess.TimeoutExpired:
            p.kill()
            cur = (wd / "current").read_text() if (wd / "current").exists() else "?"
            raise AssertionError(f"fuzz worker hung on input {cur}") from None
        assert p.returncode == 0, stderr[-2000:]
        out.append(json.loads(stdout.strip().splitlines()[-1]))
    return out


def test_fuzz_every_format(tmp_path):
    long = int(os.environ.get("GPULENS_FUZZ_LONG", "0") or 0)
    total = long or int(os.environ.get("GPULENS_FUZZ_INPUTS", "1200"))
    res = _run_workers(tmp_path, total, workers=2, analyze_every=4 if long else 20, cli_every=60)
    inputs = sum(r["inputs"] for r in res)
    findings = [f for r in res for f in r["findings"]]
    errors: dict[str, int] = {}
    for r in res:
        for k, v in r["gpulens_errors"].items():
            errors[k] = errors.get(k, 0) + v
    summary = {"inputs": inputs, "ok": sum(r["ok"] for r in res), "gpulens_errors": errors,
               "cli_runs": sum(r["cli_runs"] for r in res), "timeouts": sum(r["timeouts"] for r in res),
               "findings": len(findings), "max_rss_mb": max(r["max_rss_mb"] for r in res),
               "seconds": max(r["seconds"] for r in res)}
    print("fuzz totals:", json.dumps(summary))
    assert inputs == total
    # every input either loads or fails with a gpulens error (a one-line message, exit 2): none of the 41 kinds of
    # uncaught exception of issue 17, no internal error (exit 70) through the CLI
    assert findings == [], json.dumps(findings[:10], indent=1)
    assert summary["timeouts"] == 0
    assert summary["max_rss_mb"] < MAX_RSS_MB
    # the mutations reach the readers' error paths and leave most inputs loadable (a fuzzer that only produced
    # unrecognised files would test nothing)
    assert errors.get("TraceFormatError", 0) > total // 20 and summary["ok"] > total // 3
