"""Regressions of the faults tests/fuzz_s47.py found (session 47): one test per kind of fault, each on a small
hand-made input with its expected value written here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
B13 = HERE / "data" / "cases" / "B13.json"


def _run(args: list[str], env_extra: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPULENS_")}
    env["PYTHONPATH"] = os.pathsep.join([str(HERE.parent / "src"), str(HERE.parent)])
    env.update(env_extra)
    return subprocess.run([sys.executable, "-m", "gpulens", *args], capture_output=True, env=env, cwd=str(cwd),
                          timeout=300)


def test_console_that_is_not_utf8_gets_the_summary_with_units_spelt_in_ascii(tmp_path):
    """Kind: a console whose encoding is not UTF-8 (``PYTHONIOENCODING=ascii``, ``LC_ALL=C`` without UTF-8 mode, a
    cp1252 console) made every ``analyze`` an internal error (exit 70, UnicodeEncodeError on the header's ``·``)
    after the analysis, with no report file written. The console must spell µs as ``us`` and escape a kernel name
    it cannot encode, and the files asked for must be written."""
    doc = json.loads(B13.read_text())
    kernels = [e for e in doc["traceEvents"] if e.get("cat") == "kernel"]
    kernels[0]["name"] = "gemm_\U0001f680"
    summed_us = sum(e["dur"] for e in kernels)  # B13's kernels: 15 + 25 + 20 + 5 µs
    assert summed_us == 65
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc))
    r = _run(["analyze", str(p), "--no-cache", "--json", str(tmp_path / "r.json")],
             {"PYTHONIOENCODING": "ascii"}, tmp_path)
    out = r.stdout.decode("ascii")  # every byte ASCII
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    assert "internal error" not in r.stderr.decode(errors="replace")
    assert f"{summed_us:.2f} us summed" in out
    assert "gemm_\\U0001f680" in out
    assert json.loads((tmp_path / "r.json").read_text())["sources"][0]["summary"]["kernel_count"] == 4


def test_ascii_spelling_of_the_console_signs():
    """The error handler behind it: known signs by their ASCII spelling, compatibility forms decomposed, anything
    else escaped."""
    from gpulens.cli._console import encodable_streams
    import io

    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii")
    encodable_streams(stream)
    stream.write("5.00 µs — x² ３ ★ ≥ 核")
    stream.flush()
    assert raw.getvalue().decode("ascii") == "5.00 us - x2 3 * >= \\u6838"


def test_small_trace_is_read_in_a_small_block(tmp_path):
    """Kind: a fixed cost per input file (a folder of 10,000 one-kernel rank files ran > 5 minutes): a 300-byte
    trace was read into a 32 MiB text buffer (four 8 MiB blocks, zeroed). A file far below 8 MiB is read in one
    block of about its own size, at least 64 KiB; a gzip file's text is estimated at 8× its size."""
    import gzip

    from gpulens.collectors._stream import CHUNK_BYTES, _block_size

    p = tmp_path / "one.pt.trace.json"
    p.write_text('{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, '
                 '"dur": 2, "args": {"device": 0, "stream": 7}}]}')
    assert _block_size(p, CHUNK_BYTES) == 1 << 16
    big = tmp_path / "big.json.gz"
    big.write_bytes(gzip.compress(os.urandom(200_000)))  # incompressible: ~200 KB on disk → 1.6 MB estimated
    size = big.stat().st_size
    assert _block_size(big, CHUNK_BYTES) == size * 8 + 1


def test_report_invariants_read_a_capped_breakdown_with_its_other_row():
    """Kind (checker): a run of more than 1,000 GPUs (a folder of 3,000 rank files) has its JSON breakdown capped
    at 1,000 rows plus an "other" row holding the sums of the rest; tests/report_invariants.py summed only the shown
    rows and flagged a consistent report (Σ computation 1,000 × 5 µs ≠ 1,100 × 5 µs). The other row's sums count;
    a wrong one is still caught."""
    from tests.report_invariants import violations

    row = {"span_ns": 5000, "busy_ns": 5000, "kernel_busy_ns": 5000, "computation_ns": 5000, "exposed_comm_ns": 0,
           "exposed_memcpy_ns": 0, "exposed_memset_ns": 0, "idle_ns": 0, "window_ns": 15000}
    table = [dict(row, rank=r, device_id=0) for r in range(1000)]
    other = dict(row, rank=None, device_id=None, span_ns=None, window_ns=None, busy_ns=100 * 5000,
                 kernel_busy_ns=100 * 5000, computation_ns=100 * 5000, other_rows=100)
    summary = {"device_span_ns": 1100 * 5000, "computation_ns": 1100 * 5000, "idle_ns": 0, "window_ns": 15000,
               "ranks": list(range(1100))}
    doc = {"sources": [{"summary": summary, "findings": [], "analyses": {
        "breakdown": {"table": table + [other], "rows_total": 1100, "summary": {}}}}]}
    assert violations(doc) == []
    other["computation_ns"] += 7000
    assert any("Σ rows computation_ns" in v for v in violations(doc))
