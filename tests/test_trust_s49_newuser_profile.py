"""``gpulens profile`` on a CPU-only torch (session 49 new-user check, item 8).

Two faults of a kind: torch's own marker lines ("USDT:… SyncActivityProfilerHandler.cpp:52] profiler_start") landed
in the user's console between the script's output, and the no-GPU report did not say that torch saw no GPU device,
the cause. Expected: the user's own stderr lines all reach the console in order, no marker line does, and the
verdict names the cause when ``torch.cuda.is_available()`` is False (read from torch here, not from gpulens).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpulens.profiler.quiet import keep_lines, quiet_markers

MARK = b"USDT:2026-12-07 21:29:00 14473:14473 SyncActivityProfilerHandler.cpp:52] profiler_start\n"


def test_keep_lines_drops_only_the_markers():
    user = b"epoch 1 loss 0.5\nUSDT: my own line about profiler_start in prose\n"
    data = MARK + user + MARK.replace(b"start", b"stop").replace(b":52]", b":59]")
    assert keep_lines(data) == user


def test_quiet_markers_replays_the_rest_of_fd2_even_when_the_body_raises(tmp_path):
    code = ("import os\nfrom gpulens.profiler.quiet import quiet_markers\n"
            "os.write(2, b'before\\n')\n"
            "try:\n"
            "    with quiet_markers():\n"
            f"        os.write(2, {MARK!r}); os.write(2, b'inside\\n'); raise KeyError('x')\n"
            "except KeyError:\n    pass\n"
            "os.write(2, b'after\\n')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stderr == b"before\ninside\nafter\n"


def test_profile_on_cpu_only_torch_keeps_markers_out_and_says_why(tmp_path):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this torch sees a GPU")
    script = tmp_path / "train.py"
    script.write_text("import sys, torch\n"
                      "m = torch.nn.Linear(4, 4); opt = torch.optim.SGD(m.parameters(), lr=0.1)\n"
                      "for i in range(4):\n"
                      "    m(torch.ones(2, 4)).sum().backward(); opt.step(); opt.zero_grad()\n"
                      "    print(f'user line {i}', file=sys.stderr)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    r = subprocess.run([sys.executable, "-m", "gpulens", "profile", "--steps", "2", "--out", str(tmp_path / "o"),
                        "--telemetry", "off", str(script)], capture_output=True, text=True, env=env, timeout=300,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    err = r.stderr
    assert "profiler_start" not in err and "profiler_stop" not in err and "USDT:" not in err
    lines = [ln for ln in err.splitlines() if ln.startswith("user line")]
    assert lines == [f"user line {i}" for i in range(4)]
    out = r.stdout + err
    assert "torch saw no CUDA or ROCm device" in out
    assert (Path(tmp_path / "o") / "train.report.json").exists()
