"""``--device-spec NAME`` / ``gpulens devices NAME``: a built-in GPU named as a person types it.

Expected specs are read off the built-in table by hand (README's supported-GPU list): "H100" alone is two parts
(SXM and PCIe), "A10" is not "A100", a name as ``nvidia-smi`` prints it still resolves by the table's patterns.
"""

from __future__ import annotations

import json

import pytest

from gpulens.devices import find_spec, load_spec
from gpulens.errors import TraceFormatError


@pytest.mark.parametrize("name,expected", [
    ("nvidia h100 sxm", "NVIDIA H100 SXM"),  # canonical, any case
    ("H200", "NVIDIA H200 SXM"),
    ("4090", "NVIDIA GeForce RTX 4090"),
    ("A10", "NVIDIA A10"),  # a whole word: not the A100s
    ("MI300X", "AMD Instinct MI300X"),
    ("mi250", "AMD Instinct MI250 (one GCD)"),  # not the MI250X
    ("A100 80GB SXM", "NVIDIA A100 80GB SXM"),
    ("V100 SXM2", "NVIDIA V100 SXM2"),
])
def test_one_builtin_fits(name, expected):
    spec, several = find_spec(name)
    assert several == [] and spec is not None and spec.name == expected
    assert load_spec(name).name == expected  # not a file: the built-in of that name


def test_several_fit_and_none_fit():
    assert find_spec("H100") == (None, ["NVIDIA H100 SXM", "NVIDIA H100 PCIe"])
    spec, several = find_spec("A100 80GB")
    assert spec is None and sorted(several) == ["NVIDIA A100 80GB PCIe", "NVIDIA A100 80GB SXM"]
    assert find_spec("Voodoo 5") == (None, [])
    with pytest.raises(TraceFormatError, match=r"fits 2 built-in GPUs \(NVIDIA H100 SXM, NVIDIA H100 PCIe\)"):
        load_spec("H100")
    with pytest.raises(TraceFormatError, match="no such file, and no built-in GPU has that name"):
        load_spec("my_gpu.json")


def test_a_file_of_that_name_wins(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "H200").write_text(json.dumps({"base": "NVIDIA H200 SXM", "name": "lab H200"}))
    assert load_spec("H200").name == "lab H200"


def test_analyze_with_a_builtin_name_classifies_against_its_peaks(tmp_path):
    """A trace that records no device (its kernel classes undetermined for lack of peaks) analysed with
    ``--device-spec "H100 SXM"``: the report names the GPU it was analysed as, and the roofline runs."""
    import subprocess
    import sys

    trace = tmp_path / "t.json"
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 50,
           "args": {"External id": 1, "Input Dims": [[4096, 4096], [4096, 4096]], "Input type": ["float", "float"]}},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
           "args": {"External id": 1, "correlation": 7}},
          {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 20, "dur": 4000,
           "args": {"correlation": 7, "External id": 1, "stream": 7, "device": 0, "grid": [32, 64, 1],
                    "block": [256, 1, 1]}}]
    trace.write_text(json.dumps({"traceEvents": ev}))
    out = tmp_path / "r.json"
    r = subprocess.run([sys.executable, "-c", "from gpulens.cli import main; main()", "analyze", str(trace),
                        "--no-cache", "-q", "--device-spec", "H100 SXM", "--json", str(out)], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    src = json.loads(out.read_text())["sources"][0]
    assert src["device_spec"] == "NVIDIA H100 SXM"
    row = src["analyses"]["roofline"]["table"][0]
    # 2·4096³ FLOP in 4 ms = 34.36 TFLOP/s against the H100 SXM's FP32 datasheet peak, 66.9 TFLOP/s: 51.4 %
    assert row["flops"] == 2 * 4096 ** 3
    assert row["roof_pct"] == pytest.approx(100 * 2 * 4096 ** 3 / 4e-3 / 66.9e12)
