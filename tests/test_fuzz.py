"""Seeded fuzzing of every input format (issue 17, acceptance): only gpulens errors, documented exit codes, no hang,
bounded memory.

tests/fuzzing.py mutates one small seed per format (Kineto plain and gzip, nsys SQLite and stats CSV, ncu CSV details
and raw, rocpd in both layouts, rocprof v1 CSV / stats / JSON / DB, rocprofv3 CSV and JSON, a rocprof-compute folder)
with byte mutations, type confusion of JSON values and typed SQLite mutations, and loads each input in-process with
:func:`gpulens.collectors.collect` under a per-input alarm (a worker per core; the parent kills a worker stuck in C
code). Some inputs are also analyzed, a few go through the whole CLI (exit 0, 2 or 5 and one line only).

* default: ``GPULENS_FUZZ_INPUTS`` inputs (2,500), seed ``GPULENS_FUZZ_SEED`` (1717), two workers, every 100th input
  analyzed, every 500th through the CLI — about 90 s on two idle cores;
* ``GPULENS_FUZZ_LONG=N``: N inputs instead, one worker per core, every 10th analyzed, every 100th through the CLI
  (e.g. ``GPULENS_FUZZ_LONG=20000 GPULENS_FUZZ_SEED=5 pytest tests/test_fuzz.py -s``).

Fifth session (2026-12-01), campaigns outside pytest on 2 loaded cores (seeds and counts for reproduction):

* classic mutators, seed 9001, 1,500 inputs (every 5th analyzed, every 25th through the CLI): 0 findings, 0 hangs;
* ``--extended`` (tests/fuzz_more.py), seed 31337, 1,446 inputs (every 2nd analyzed): an ``.ncu-rep`` error not
  naming the file, a Kineto ``deviceProperties`` list where a count belongs (exit 70), an NVTX range recorded twice
  (``gpu_share`` 1.375); seed 777, 1,200 inputs: see the report of that session;
* tests/fuzz_cli.py (every command), seeds 5151 (400 commands: deeply nested reports/baselines given to diff/gate,
  exit 70), 6262 (300: 0 internal errors), 8080 (200); gate ``--config`` tables of the wrong type (exit 70) by hand;
* tests/fuzz_variants.py: 232 form-preserving variants of the 28 shared cases (gzip in 1 or 3 members, renamed, BOM,
  CRLF, compact/indented, reversed/shuffled events, noise events, CSV columns reordered/quoted): a header-only CSV
  in 3 gzip members not recognised, ncu CSVs with reordered columns not recognised; 0 differences after the fixes.

The totals are printed (``-s``): inputs, clean loads, partial results (loaded with warnings), gpulens errors by type,
one-line errors made from a syntax error of the file (``syntax``) or from a value a reader did not check itself
(``wrapped``, by place), findings (anything else), timeouts, peak RSS.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .fuzzing import SEEDS

HERE = Path(__file__).resolve().parent
PER_INPUT_TIMEOUT_S = 20  # a well-behaved input of these sizes loads in well under a second
MAX_RSS_MB = 2500


def _run_workers(tmp_path: Path, total: int, workers: int, seed: int, analyze_every: int,
                 cli_every: int, extended: bool = False, timeout: int = PER_INPUT_TIMEOUT_S) -> list[dict]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE.parent / "src"), str(HERE.parent)]))
    per = -(-total // workers)
    procs = []
    for w in range(workers):
        wd = tmp_path / f"w{w}"
        wd.mkdir()
        cmd = [sys.executable, str(HERE / "fuzzing.py"), "--seed", str(seed), "--start", str(w * per), "--count",
               str(max(0, min(per, total - w * per))), "--workdir", str(wd), "--timeout", str(timeout),
               "--analyze-every", str(analyze_every), "--cli-every", str(cli_every), "--keep-wrapped"]
        cmd += ["--extended"] if extended else []
        procs.append((wd, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)))
    out = []
    budget = max(900, per * 3)  # a hang inside C code cannot be interrupted by the alarm: the parent kills it
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


def _merge(dicts: list[dict]) -> dict:
    out: dict = {}
    for d in dicts:
        for k, v in d.items():
            out[k] = out.get(k, 0) + v
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def test_fuzz_every_format(tmp_path):
    long = int(os.environ.get("GPULENS_FUZZ_LONG", "0") or 0)
    total = long or int(os.environ.get("GPULENS_FUZZ_INPUTS", "2500"))
    seed = int(os.environ.get("GPULENS_FUZZ_SEED", "1717"))
    workers = max(1, min(8, os.cpu_count() or 1)) if long else 2
    res = _run_workers(tmp_path, total, workers, seed, analyze_every=10 if long else 100,
                       cli_every=100 if long else 500)
    findings = [f for r in res for f in r["findings"]]
    summary = {"inputs": sum(r["inputs"] for r in res), "ok": sum(r["ok"] for r in res),
               "partial": sum(r["partial"] for r in res), "gpulens_errors": _merge([r["gpulens_errors"] for r in res]),
               "syntax": sum(sum(r["syntax"].values()) for r in res), "wrapped": _merge([r["wrapped"] for r in res]),
               "cli_runs": sum(r["cli_runs"] for r in res), "timeouts": sum(r["timeouts"] for r in res),
               "findings": len(findings), "max_rss_mb": max(r["max_rss_mb"] for r in res),
               "seconds": max(r["seconds"] for r in res), "by_format": _merge([r["by_format"] for r in res])}
    print("fuzz totals:", json.dumps(summary))
    assert summary["inputs"] == total
    # every input loads (cleanly or partially) or fails with a gpulens error: a one-line message naming the file
    # (exit 2); no uncaught exception (exit 70 through the CLI), no traceback, no second line
    assert findings == [], json.dumps(findings[:10], indent=1)
    assert summary["timeouts"] == 0
    assert summary["max_rss_mb"] < MAX_RSS_MB
    # every format was fuzzed, and the mutations reach both the readers' error paths and their partial-result paths
    # (a fuzzer that only produced unrecognised files would test nothing)
    assert len(summary["by_format"]) == len(SEEDS) or total < 500
    errors = sum(summary["gpulens_errors"].values()) + summary["syntax"] + sum(summary["wrapped"].values())
    assert errors > total // 20 and summary["ok"] > total // 5 and summary["partial"] > total // 5
    # values a reader does not check itself (turned into "malformed … data (TypeError: …)" at the boundary) stay
    # rare: each kind is a reader to mend (see the printed places)
    assert sum(summary["wrapped"].values()) <= max(5, total // 50), summary["wrapped"]


def test_fuzz_extended_short(tmp_path):
    """A short fixed-seed run of the structure-aware mutators (tests/fuzz_more.py: type swaps, encodings, boundary
    truncation, CSV column changes, SQLite schema changes) over every seed, the folders and the case files, with the
    impossible-figure check on every analyzed input. The per-input limit is wider than the classic run's: a rank
    folder starts worker processes, slow on a loaded machine (a hang never ends, so it is still caught). Long campaigns: ``python tests/fuzzing.py --extended`` and
    ``python tests/fuzz_cli.py`` (every command line), outside pytest."""
    total = int(os.environ.get("GPULENS_FUZZ_EXT_INPUTS", "160"))
    seed = int(os.environ.get("GPULENS_FUZZ_EXT_SEED", "31337"))
    res = _run_workers(tmp_path, total, 2, seed, analyze_every=4, cli_every=80, extended=True, timeout=120)
    findings = [f for r in res for f in r["findings"]]
    assert sum(r["inputs"] for r in res) == total
    assert findings == [], json.dumps(findings[:10], indent=1)
    assert sum(r["timeouts"] for r in res) == 0
    # the mutations reach both outcomes: some inputs load (cleanly or partially), some are refused in one line
    loaded = sum(r["ok"] + r["partial"] for r in res)
    refused = sum(sum(r["gpulens_errors"].values()) + sum(r["syntax"].values()) for r in res)
    assert loaded > total // 5 and refused > total // 20, (loaded, refused)
