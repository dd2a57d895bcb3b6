"""The gate and a kernel the candidate no longer runs (renamed, re-tiled or re-fused): the baseline kernel read
"−100 %, IMPROVED" (exit 0) while its time had moved to a new kernel without baseline (never gating), so a rename
was a speed-up and a 30 % slower replacement passed. Vanished and new kernels of one work category are now one
metric, ``kernels:GEMM replaced``, compared like a kernel; the member rows are information."""

import json

import pytest

from gpulens.cli import main
from tests.gate_traces import GEMM, make_trace


def _report(d, name, seeds, **kw):
    traces = [make_trace(d / f"{name}{s}.json", seed=s, **kw) for s in seeds]
    out = d / f"{name}.report.json"
    assert main(["analyze", "-q", *map(str, traces), "--json", str(out)]) == 0
    return out


def test_a_kernel_missing_from_the_candidate_is_not_a_saving(tmp_path):
    base = _report(tmp_path, "base", range(2))
    cand = _report(tmp_path, "cand", range(10, 12), rename={GEMM: "sm90_xmma_gemm_renamed_kernel"})
    assert main(["baseline", "save", "--store", str(tmp_path), "--name", "main", str(base)]) == 0
    out = tmp_path / "gate.json"
    main(["gate", "--store", str(tmp_path), "--baseline", "main", str(cand), "--json", str(out)])
    rows = {m["metric"]: m for m in json.loads(out.read_text())["metrics"]}
    old = next(m for k, m in rows.items() if k.startswith("kernel:") and GEMM in k)
    assert old["gating"] is False and old["verdict"] != "IMPROVED"
    assert "not in the candidate" in old["reason"] and "gpulens diff" in old["reason"]
    new = rows["kernel:sm90_xmma_gemm_renamed_kernel"]
    assert new["gating"] is False and new["verdict"] == "NO_BASELINE"
    swap = rows["kernels:GEMM replaced"]
    assert swap["gating"] and swap["verdict"] == "PASS"


def test_a_slower_replacement_kernel_regresses(tmp_path):
    """The GEMM renamed and 1.3 × slower (gate_traces: every run's GEMM scaled by ``gemm_scale``): the replaced
    row's candidate median is 1.3 × the baseline's up to the runs' 2 % noise, and the gate fails (exit 1)."""
    base = _report(tmp_path, "base", range(2))
    cand = _report(tmp_path, "cand", range(10, 12), rename={GEMM: "sm90_xmma_gemm_renamed_kernel"}, gemm_scale=1.3)
    assert main(["baseline", "save", "--store", str(tmp_path), "--name", "main", str(base)]) == 0
    out = tmp_path / "gate.json"
    assert main(["gate", "--store", str(tmp_path), "--baseline", "main", str(cand), "--json", str(out)]) == 1
    swap = {m["metric"]: m for m in json.loads(out.read_text())["metrics"]}["kernels:GEMM replaced"]
    assert swap["verdict"] == "REGRESSED" and swap["gating"]
    assert swap["cand_median"] / swap["base_median"] == pytest.approx(1.3, rel=0.08)
