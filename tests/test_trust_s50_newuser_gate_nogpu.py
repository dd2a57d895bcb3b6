"""README's gate flow on a machine without a GPU (session 50, a new user): `gpulens profile` on CPU-only torch, then
`analyze --json`, then `gpulens gate --baseline main perf.json [--require-baseline]`. The gate said NO_BASELINE exit 3
("save one with `gpulens baseline save`" — which refuses these runs) with --require-baseline, another verdict
without, and excluded every run as "the workload failed or was not profiled" though the profiler knew torch saw no
GPU. Now: one verdict for the same inputs (ERROR, exit 4, both modes), with the recorded reason.

Inputs built here: a Kineto trace of CPU operators only, with and without the top-level ``gpulens_no_gpu_device``
entry that `gpulens profile` writes (torch.profiler metadata) when ``torch.cuda.is_available()`` is False.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest

from gpulens.profiler.quiet import NO_DEVICE


def _cpu_trace(path, said: bool) -> None:
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100 + 50 * i, "dur": 30,
           "args": {"External id": i + 1}} for i in range(4)]
    doc = {"schemaVersion": 1, "deviceProperties": [], "traceEvents": ev}
    if said:
        doc["gpulens_no_gpu_device"] = NO_DEVICE
    path.write_text(json.dumps(doc))


def _gpulens(cwd, *args):
    return subprocess.run([sys.executable, "-c", "from gpulens.cli import main; main()", *args], cwd=cwd,
                          capture_output=True, text=True)


@pytest.mark.parametrize("said", [True, False])
def test_gate_without_gpu_work_is_one_error_in_both_modes(tmp_path, said):
    for i in range(2):
        _cpu_trace(tmp_path / f"train-{i}.pt.trace.json", said)
    r = _gpulens(tmp_path, "analyze", "train-0.pt.trace.json", "train-1.pt.trace.json", "-q", "--json", "perf.json")
    assert r.returncode == 5, r.stderr  # README: exit 5, no GPU work
    assert ("torch.cuda.is_available() is False" in r.stdout + r.stderr) == said  # the -q line says why, if recorded
    doc = json.loads((tmp_path / "perf.json").read_text())
    assert [s["status"] for s in doc["sources"]] == ["no_gpu_work", "no_gpu_work"]
    outs = []
    for extra in (["--require-baseline"], []):
        g = _gpulens(tmp_path, "gate", "--baseline", "main", "perf.json", *extra, "--json", f"g{len(extra)}.json")
        assert g.returncode == 4, (extra, g.stdout, g.stderr)  # ERROR: the candidate has no usable run
        res = json.loads((tmp_path / f"g{len(extra)}.json").read_text())
        assert res["verdict"] == "ERROR"
        outs.append(res["reason"])
        assert "save one with" not in g.stdout  # no advice that then fails (baseline save refuses these runs)
    assert outs[0] == outs[1]
    if said:
        assert "torch.cuda.is_available() is False" in outs[0] and "failed or was not profiled" not in outs[0]
    else:
        assert "the workload failed or was not profiled" in outs[0]
    b = _gpulens(tmp_path, "baseline", "save", "perf.json", "--name", "main")
    assert b.returncode == 4 and ("torch.cuda.is_available() is False" in b.stderr) == said  # no usable run: 4, as gate


def test_profile_records_why_there_is_no_gpu_work_in_the_trace(tmp_path):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine's torch sees a GPU")
    import gpulens

    m = torch.nn.Linear(8, 4)
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    with gpulens.profile(out=tmp_path, steps=1, warmup=1, telemetry=False, html=False) as prof:
        for _ in range(3):
            m(torch.randn(2, 8)).sum().backward()
            opt.step()
            prof.step()
    raw = gzip.decompress(prof.trace_path.read_bytes()) if prof.trace_path.suffix == ".gz" else \
        prof.trace_path.read_bytes()
    assert json.loads(raw).get("gpulens_no_gpu_device") == NO_DEVICE
    s = gpulens.analyze([prof.trace_path], cache=False).sources[0]  # read back by `gpulens analyze`
    assert s.timeline.meta.sources[0]["profile"]["no_gpu_device"] == NO_DEVICE
