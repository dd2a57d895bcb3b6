"""Baselines: what is stored (checked against the reports themselves), never overwriting, history, lookup."""

import gzip
import json

import pytest

from gpulens.errors import BaselineError, TraceFormatError
from gpulens.gate import collect_runs, find_baseline, load_baseline, save_baseline
from gpulens.gate.environment import environment_of, machine_key
from gpulens.gate.runs import load_report
from gpulens.report import analyze
from gpulens.reports.json_report import to_dict
from tests.conftest import CASES, KINETO
from tests.gate_traces import A100, GEMM, make_trace


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """Three baseline runs as one report per run, written by the JSON reporter."""
    d = tmp_path_factory.mktemp("reports")
    out = []
    for i in range(3):
        t = make_trace(d / f"run{i}.json", seed=i)
        r = d / f"run{i}.report.json"
        r.write_text(json.dumps(to_dict(analyze([t]))))
        out.append(r)
    return out


def test_saved_samples_are_the_reports_values(reports, tmp_path):
    base = save_baseline(reports, "main", tmp_path, git={"sha": "abc123"})
    assert base.path == tmp_path / base.machine_key / "main.json"
    doc = json.loads(base.path.read_text())
    assert doc["gpulens_baseline"] == 1 and doc["name"] == "main" and doc["git"] == {"sha": "abc123"}
    srcs = [json.loads(r.read_text())["sources"][0] for r in reports]
    assert doc["metrics"]["span_ns"]["samples"] == [s["summary"]["span_ns"] for s in srcs]
    assert doc["metrics"]["kernel_count"]["samples"] == [16, 16, 16]          # 4 steps x 4 kernels
    assert doc["metrics"]["memcpy_bytes"]["samples"] == [4 << 20] * 3         # 4 copies of 1 MiB
    gemm = [next(k for k in s["analyses"]["hotspots"]["table"] if k["name"] == GEMM) for s in srcs]
    assert doc["metrics"][f"kernel:{GEMM}"]["samples"] == [k["effective_ns"] for k in gemm]
    assert doc["metrics"][f"kernel:{GEMM}"]["calls"] == [4, 4, 4]
    env = doc["environment"]
    assert env["gpus"] == ["NVIDIA H100 80GB HBM3"] and env["driver"] == "12040" and env["arch"] == ["9.0"]
    assert len(doc["runs"]) == 3 and doc["excluded"] == []


def test_never_overwrites_without_force_and_history_is_append_only(reports, tmp_path):
    first = save_baseline(reports[:2], "main", tmp_path)
    before = first.path.read_bytes()
    with pytest.raises(BaselineError, match="already exists.*--force"):
        save_baseline(reports, "main", tmp_path)
    assert first.path.read_bytes() == before
    second = save_baseline(reports, "main", tmp_path, force=True)
    assert len(load_baseline(second.path).runs) == 3
    lines = [json.loads(x) for x in (tmp_path / "history.jsonl").read_text().splitlines()]
    assert [(x["runs"], x["replaced"]) for x in lines] == [(2, False), (3, True)]
    assert lines[1]["medians"]["kernel_count"] == 16


def test_refuses_a_baseline_without_gpu_work(tmp_path):
    with pytest.raises(BaselineError, match="no usable run.*no GPU work"):
        save_baseline([CASES / "B05a.json"], "empty", tmp_path)
    assert not list(tmp_path.rglob("*.json"))


def test_refuses_bad_names_and_overwriting_an_input(reports, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for bad in ("../evil name", "a/b", ""):
        with pytest.raises(BaselineError, match="invalid baseline name"):
            save_baseline(reports, bad, tmp_path)
    assert not list(tmp_path.parent.glob("evil*")) and not list(tmp_path.rglob("*.json"))
    with pytest.raises(BaselineError, match="refusing to overwrite an input"):
        save_baseline(reports, str(reports[0]), tmp_path, force=True)


def test_load_rejects_malformed_and_future_baselines(tmp_path):
    p = tmp_path / "b.json"
    p.write_text("{not json")
    with pytest.raises(BaselineError, match="not a readable baseline"):
        load_baseline(p)
    p.write_text(json.dumps({"gpulens_baseline": 99}))
    with pytest.raises(BaselineError, match="format 99 is not supported"):
        load_baseline(p)
    p.write_text(json.dumps({"gpulens_baseline": 1, "name": "x"}))
    with pytest.raises(BaselineError, match="malformed baseline"):
        load_baseline(p)


def test_lookup_prefers_own_machine_then_falls_back(reports, tmp_path):
    save_baseline(reports, "main", tmp_path)
    key = collect_runs(reports).machine_key
    assert find_baseline("main", key, tmp_path).machine_key == key
    other = find_baseline("main", "some-other-gpu-x1-00000000", tmp_path)
    assert other is not None and other.machine_key == key            # found, gate will judge comparability
    assert find_baseline("nope", key, tmp_path) is None
    assert find_baseline(str(tmp_path / "missing.json"), key, tmp_path) is None


def test_environment_of_a_real_trace():
    # hta_a100_triton_example: top-level cuda_driver_version and 8 deviceProperties entries (read from the file).
    path = KINETO / "hta_a100_triton_example.json.gz"
    raw = json.loads(gzip.decompress(path.read_bytes()))
    rep = load_report(path)                              # a trace is analyzed on the fly
    env = environment_of(rep["sources"][0], rep)
    assert env["driver"] == str(raw["cuda_driver_version"])
    assert env["gpus"] == sorted({d["name"] for d in raw["deviceProperties"]})
    # GPU count: the GPUs the run used (events on them), not the 8 devices the process could see (session 48)
    used = {e["args"]["device"] for e in raw["traceEvents"]
            if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and "device" in e.get("args", {})}
    assert len(raw["deviceProperties"]) == 8 and env["gpu_count"] == len(used) == 1


def test_machine_key_is_stable_and_separates_gpus(tmp_path):
    h = collect_runs([make_trace(tmp_path / "h.json", 0)])
    h2 = collect_runs([make_trace(tmp_path / "h2.json", 1, driver=12080)])
    a = collect_runs([make_trace(tmp_path / "a.json", 0, device=A100)])
    assert h.machine_key == h2.machine_key                # the driver is compared, not keyed
    assert h.machine_key != a.machine_key
    assert h.machine_key.startswith("nvidia-h100-80gb-hbm3-x1-")
    assert machine_key({"gpus": []}) == "unknown-gpu"


def test_mixed_gpus_in_one_set_are_refused(tmp_path):
    from gpulens.errors import GpulensError

    with pytest.raises(GpulensError, match="different GPUs"):
        collect_runs([make_trace(tmp_path / "h.json", 0), make_trace(tmp_path / "a.json", 0, device=A100)])


def test_a_baseline_is_not_a_candidate(reports, tmp_path):
    base = save_baseline(reports, "main", tmp_path)
    with pytest.raises(TraceFormatError, match="is a gpulens baseline"):
        load_report(base.path)


def test_step_time_and_sm_clock_come_from_profile_analyses(reports, tmp_path):
    # Reports of `gpulens profile` runs carry a steps analysis and GPU telemetry; emulate both on real reports.
    docs = []
    for i, r in enumerate(reports):
        d = json.loads(r.read_text())
        s = d["sources"][0]
        s["analyses"]["steps"] = {"summary": {"median_step_ns": 700_000 + 1000 * i}}
        s["analyses"]["telemetry"] = {"table": [{"quantity": "sm_clock", "mean": 1.98e9},
                                                {"quantity": "power", "mean": 500.0}]}
        docs.append(d)
    runs = collect_runs(reports, docs)
    assert runs.metrics["step_ns"].samples == [700_000, 701_000, 702_000]
    assert runs.environment["sm_clock_mhz"] == 1980
    slow = json.loads(json.dumps(docs))
    for d in slow:
        d["sources"][0]["analyses"]["telemetry"]["table"][0]["mean"] = 1.41e9      # throttled: 1410 MHz
    from gpulens.gate.baseline import baseline_from_runs
    from gpulens.gate.compare import comparability

    mism, notes = comparability(baseline_from_runs("b", runs), collect_runs(reports, slow))
    assert not mism and any("SM clock: baseline 1980 MHz, candidate 1410 MHz" in n for n in notes)


@pytest.mark.parametrize("name", ["tracelens_mi300x_bert-small.json.gz", "hta_a100_triton_example.json.gz"])
def test_report_summary_has_copy_bytes_and_input_versions_from_the_file(name):
    path = KINETO / name
    raw = json.loads(gzip.decompress(path.read_bytes()))
    copies = [e for e in raw["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "gpu_memcpy"]
    src = to_dict(analyze([path]))["sources"][0]
    assert src["summary"]["memcpy_count"] == len(copies)
    assert src["summary"]["memcpy_bytes"] == sum(int(e["args"]["bytes"]) for e in copies)
    for key in ("cuda_driver_version", "cuda_runtime_version", "hip_driver_version", "hip_runtime_version"):
        assert src["inputs"][0].get(key) == raw.get(key)


def test_a_run_without_the_figure_has_no_sample_not_a_zero(reports):
    # the gate's walk: 5 runs, some without ProfilerStep markers (no step time); their 0 pulled the mean step time
    # down, so a 20 % slower median read "4.6 % better". A run that lacks a whole-run figure contributes no sample.
    docs = []
    for i, r in enumerate(reports):
        d = json.loads(r.read_text())
        if i != 1:
            d["sources"][0]["analyses"]["steps"] = {"summary": {"median_step_ns": 700_000 + 1000 * i}}
        docs.append(d)
    runs = collect_runs(reports, docs)
    assert runs.metrics["step_ns"].samples == [700_000, 702_000]  # runs 0 and 2; run 1 has no step time
    assert len(runs.metrics["span_ns"].samples) == len(reports) == 3


def test_the_baseline_and_candidate_figures_are_the_statistic_the_change_compares():
    # the walk's gate table showed medians (11.41 ms → 11.41 ms) beside a change of −8.0 % computed from means (a
    # run without the kernel counts 0 ns): the figures shown are now the statistic the ratio compares
    import math

    from gpulens.gate.compare import compare_metric
    from gpulens.gate.config import GateConfig
    from gpulens.gate.runs import Metric

    base = [11.0e6, 11.4e6, 11.41e6, 11.5e6, 11.6e6]
    cand = [0.0, 11.3e6, 11.407e6, 11.45e6, 11.5e6]          # one candidate run lacks the kernel
    r = compare_metric("kernel:k", Metric("kernel:k", "timing", "ns", base), Metric("kernel:k", "timing", "ns", cand),
                       GateConfig())
    assert r.center == "mean" and r.base_median == 11.41e6 and r.cand_median == 11.407e6
    assert r.base_center == sum(base) / 5 and r.cand_center == sum(cand) / 5
    assert math.isclose(r.ratio, r.cand_center / r.base_center, rel_tol=1e-9)  # 45.657e6 / 56.91e6 = 0.802
    d = r.to_dict()
    assert d["center"] == "mean" and d["base_center"] == r.base_center and "centers" not in d
    # all samples positive: geometric means, whose ratio is the change
    cand2 = [11.9e6, 12.0e6, 12.1e6, 12.2e6, 12.3e6]
    r2 = compare_metric("kernel:k", Metric("kernel:k", "timing", "ns", base), Metric("kernel:k", "timing", "ns", cand2),
                        GateConfig())
    g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    assert r2.center == "geometric mean" and math.isclose(r2.base_center, g(base)) and math.isclose(r2.cand_center, g(cand2))
    assert math.isclose(r2.ratio, g(cand2) / g(base), rel_tol=1e-9)
