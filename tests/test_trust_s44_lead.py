"""Session 44 (lead): the console's standard output refusing a write (a full disk) is a one-line error, not an
internal error (exit 70) nor a silent success; a closed pipe (``| head``) stays a success."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

_PKG_ROOT = str(Path(__import__("gpulens").__file__).resolve().parents[1])
_ENV = {**os.environ, "PYTHONPATH": _PKG_ROOT, "GPULENS_CACHE_DIR": ""}


def _run(args: list[str], stdout, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**_ENV, "GPULENS_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-m", "gpulens", *args], stdout=stdout, stderr=subprocess.PIPE,
                          env=env, cwd=tmp_path, timeout=300)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux) to make every write refused")
def test_full_disk_on_stdout_is_one_line_error_and_the_json_is_still_written(tmp_path):
    out = tmp_path / "r.json"
    with open("/dev/full", "w") as full:
        proc = _run(["analyze", "--demo", "--json", str(out)], full, tmp_path)
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("gpulens: error: standard output: No space left on device"), err
    assert "internal error" not in err and "Traceback" not in err
    # the file asked for is whole: it parses and names the demo trace's kernels
    data = json.loads(out.read_text())
    assert data["sources"], "the JSON report lost its sources"


def test_closed_pipe_on_stdout_is_still_a_success(tmp_path):
    env = {**_ENV, "GPULENS_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.Popen([sys.executable, "-m", "gpulens", "analyze", "--demo"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    proc.stdout.read(10)  # the reader takes a few bytes then goes away, as `| head -c 10` does
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 0, err
    assert "error" not in err


def test_workload_sentence_names_each_sides_kernel_count():
    """Two runs sharing 1 of the baseline's 3 kernel names and of the candidate's 2: the sentence says which count is
    whose (it read '1 of 3 and 2 kernel names in common')."""
    from gpulens.gate.workload import kernel_overlap, workload_text

    ov = kernel_overlap({"gemm": 60.0, "softmax": 30.0, "add": 10.0}, {"attn": 90.0, "add": 10.0})
    text = workload_text(ov)
    # by hand: common {add}; baseline share 10/100 = 10.0 %, candidate share 10/100 = 10.0 %
    assert "10.0 % of the baseline's kernel time and 10.0 % of the candidate's" in text
    assert "(1 kernel name in common, of the baseline's 3 and the candidate's 2;" in text


def test_alignment_advice_points_at_the_full_name_that_tables_cut():
    """A CUTLASS GEMM whose '_align2' suffix the shortened table name drops: the advice and the evidence say it is in
    the *full* name (the new user read 'Its name says align2' beside 'cutlass_80_tensorop_bf16… 256x128 64x3')."""
    from gpulens.analyzers import _advice

    name = "cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_64x3_tn_align2"
    hint = _advice.alignment_hint(name)
    # bf16 = 2 bytes, align2 = 4 bytes < 16: the hint applies
    assert hint is not None and hint.startswith("Its full name says align2:"), hint
    # a 16-byte-aligned one (bf16 × align8 = 16 bytes) gets no hint
    assert _advice.alignment_hint(name.replace("align2", "align8")) is None
