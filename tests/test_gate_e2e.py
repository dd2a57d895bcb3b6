"""End to end through the CLI: synthetic Kineto traces → `gpulens analyze --json` → `baseline save` → `gate`."""

import json

import pytest

from gpulens.cli import main
from tests.conftest import CASES
from tests.gate_traces import A100, GEMM, make_trace

N = 5  # runs per side: the fewest for which a one-sided Mann-Whitney test can reach p < 0.01 (1/252)


def _reports(d, name, seeds, **kw):
    """Write one trace per seed, analyze them into one JSON report (one source per run); return the report."""
    traces = [make_trace(d / f"{name}{s}.json", seed=s, **kw) for s in seeds]
    out = d / f"{name}.report.json"
    assert main(["analyze", "-q", *map(str, traces), "--json", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("gate")
    return {
        "d": d,
        "base": _reports(d, "base", range(N)),
        "slow": _reports(d, "slow", range(100, 100 + N), gemm_scale=1.3),
        "same": _reports(d, "same", range(200, 200 + N)),
        "a100": _reports(d, "a100", range(300, 302), device=A100),
        "driver": _reports(d, "drv", range(400, 402), driver=12080),
    }


def gate(store, baseline, *cands, extra=()):
    return main(["gate", "--store", str(store), "--baseline", baseline, *map(str, cands), *extra])


def save(store, name, *reports):
    return main(["baseline", "save", "--store", str(store), "--name", name, *map(str, reports)])


def test_gemm_30pct_slower_fails_and_names_the_kernel(runs, tmp_path, capsys):
    assert save(tmp_path, "main", runs["base"]) == 0
    out = tmp_path / "gate.json"
    code = gate(tmp_path, "main", runs["slow"], extra=["--json", str(out)])
    text = capsys.readouterr().out
    assert code == 1
    assert GEMM in text and "REGRESSED" in text
    doc = json.loads(out.read_text())
    assert doc["verdict"] == "REGRESSED" and doc["exit_code"] == 1
    rows = {m["metric"]: m for m in doc["metrics"]}
    g = rows[f"kernel:{GEMM}"]
    assert g["verdict"] == "REGRESSED" and g["gating"]
    assert 1.25 < g["ratio"] < 1.35                  # 30 % slower, 2 % run noise
    # regressions first: the whole-run timings lead (the GEMM is 61 % of the step), then the kernels by absolute change
    assert doc["metrics"][0]["metric"] in ("span_ns", "gpu_busy_ns", "kernel_busy_ns", "kernel_time_ns")
    assert next(m["metric"] for m in doc["metrics"] if m["metric"].startswith("kernel:")) == f"kernel:{GEMM}"
    assert f"kernel:{GEMM} (+" in doc["reason"]              # the headline names the kernel too
    # the other kernels did not change: not blamed
    for name, m in rows.items():
        if name.startswith("kernel:") and name != f"kernel:{GEMM}":
            assert m["verdict"] != "REGRESSED", name
    assert rows["kernel_count"]["verdict"] == "PASS" and rows["kernel_count"]["method"] == "exact"
    assert not rows["kernel:tiny_fill_kernel"]["gating"]         # ~0.3 % of kernel time


def test_reversed_pair_is_improved_and_exits_0(runs, tmp_path, capsys):
    assert save(tmp_path, "slow", runs["slow"]) == 0
    out = tmp_path / "gate.json"
    assert gate(tmp_path, "slow", runs["base"], extra=["--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["verdict"] == "IMPROVED"
    g = next(m for m in doc["metrics"] if m["metric"] == f"kernel:{GEMM}")
    assert g["verdict"] == "IMPROVED" and 0.74 < g["ratio"] < 0.8     # 1 / 1.3 = 0.77


def test_same_code_passes(runs, tmp_path):
    save(tmp_path, "main", runs["base"])
    out = tmp_path / "gate.json"
    assert gate(tmp_path, "main", runs["same"], extra=["--json", str(out)]) == 0
    assert json.loads(out.read_text())["verdict"] == "PASS"


def test_other_gpu_model_is_incomparable_not_regressed(runs, tmp_path):
    save(tmp_path, "main", runs["base"])
    out = tmp_path / "gate.json"
    assert gate(tmp_path, "main", runs["a100"], extra=["--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["verdict"] == "INCOMPARABLE"
    assert any("GPU model" in m and "A100" in m for m in doc["mismatches"])
    assert {m["verdict"] for m in doc["metrics"]} == {"INCOMPARABLE"}
    assert gate(tmp_path, "main", runs["a100"], extra=["--require-baseline"]) == 3
    # opting out compares anyway (and says so)
    assert gate(tmp_path, "main", runs["a100"], extra=["--allow-cross-machine", "--json", str(out)]) in (0, 1)
    assert json.loads(out.read_text())["verdict"] != "INCOMPARABLE"


def test_other_driver_is_incomparable(runs, tmp_path):
    save(tmp_path, "main", runs["base"])
    out = tmp_path / "gate.json"
    gate(tmp_path, "main", runs["driver"], extra=["--json", str(out)])
    doc = json.loads(out.read_text())
    # the recorded CUDA driver versions 12040 / 12080 are 1000 × major + 10 × minor (cuDriverGetVersion): 12.4, 12.8
    assert doc["verdict"] == "INCOMPARABLE" and any("driver (the runtime version it supports): baseline CUDA 12.4, candidate CUDA 12.8" in m
                                                    for m in doc["mismatches"])


def test_empty_candidate_is_an_error_never_pass(runs, tmp_path, capsys):
    save(tmp_path, "main", runs["base"])
    out = tmp_path / "gate.json"
    assert gate(tmp_path, "main", CASES / "B05a.json", extra=["--json", str(out)]) == 4
    doc = json.loads(out.read_text())
    assert doc["verdict"] == "ERROR" and "no GPU work" in doc["reason"]


def test_truncated_candidate_is_never_pass(runs, tmp_path):
    save(tmp_path, "main", runs["base"])
    d = runs["d"]
    cut = [make_trace(d / f"cut{i}.json", seed=500 + i, truncate=True) for i in range(2)]
    out = tmp_path / "gate.json"
    assert gate(tmp_path, "main", *cut, extra=["--json", str(out)]) == 4
    doc = json.loads(out.read_text())
    assert doc["verdict"] == "ERROR" and "truncated" in doc["reason"]
    # four good runs and one truncated one: the good runs match, yet the verdict cannot be PASS
    good = [make_trace(d / f"ok{i}.json", seed=600 + i) for i in range(N - 1)]
    assert gate(tmp_path, "main", *good, cut[0], extra=["--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["verdict"] == "AMBIGUOUS" and len(doc["candidate"]["excluded"]) == 1
    assert all(m["verdict"] != "PASS" for m in doc["metrics"])
    assert gate(tmp_path, "main", *good, cut[0], extra=["--fail-on-ambiguous"]) == 1


def test_traces_can_be_candidates_directly(runs, tmp_path):
    save(tmp_path, "main", runs["base"])
    d = runs["d"]
    traces = [d / f"slow{s}.json" for s in range(100, 100 + N)]
    assert gate(tmp_path, "main", *traces) == 1


def test_single_run_per_side_uses_the_threshold(runs, tmp_path, capsys):
    d = runs["d"]
    assert save(tmp_path, "one", d / "base0.json") == 0
    out = tmp_path / "gate.json"
    assert gate(tmp_path, "one", d / "slow100.json", extra=["--json", str(out)]) == 1
    g = next(m for m in json.loads(out.read_text())["metrics"] if m["metric"] == f"kernel:{GEMM}")
    assert g["method"] == "threshold" and g["verdict"] == "REGRESSED"


def test_no_baseline_and_warn_only(runs, tmp_path, capsys):
    outs = [tmp_path / n for n in ("g.json", "g.md", "g.xml")]
    assert gate(tmp_path, "missing", runs["slow"], extra=["--json", str(outs[0]), "--markdown", str(outs[1]),
                                                          "--junit", str(outs[2])]) == 0
    assert "NO_BASELINE" in capsys.readouterr().out
    doc = json.loads(outs[0].read_text())
    assert doc["verdict"] == "NO_BASELINE" and doc["baseline"] is None
    assert {m["verdict"] for m in doc["metrics"]} == {"NO_BASELINE"} and not any(m["gating"] for m in doc["metrics"])
    assert outs[1].read_text().startswith("## ∅ gpulens gate: NO_BASELINE")
    assert 'skipped="%d"' % len(doc["metrics"]) in outs[2].read_text()
    assert gate(tmp_path, "missing", runs["slow"], extra=["--require-baseline"]) == 3
    save(tmp_path, "main", runs["base"])
    assert gate(tmp_path, "main", runs["slow"], extra=["--warn-only"]) == 0
    assert gate(tmp_path, "main", tmp_path / "nope.json", extra=["--warn-only"]) == 0


def test_unreadable_candidate_is_a_usage_error(runs, tmp_path, capsys):
    save(tmp_path, "main", runs["base"])
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    assert gate(tmp_path, "main", bad) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and len(err.strip().splitlines()) == 1


def test_existing_baseline_is_kept_without_force(runs, tmp_path, capsys):
    assert save(tmp_path, "main", runs["base"]) == 0
    path = next(tmp_path.glob("*/main.json"))
    before = path.read_bytes()
    assert save(tmp_path, "main", runs["slow"]) == 2
    assert "--force" in capsys.readouterr().err
    assert path.read_bytes() == before
    assert main(["baseline", "save", "--store", str(tmp_path), "--name", "main", "--force", str(runs["slow"])]) == 0
    assert path.read_bytes() != before


def test_config_thresholds_and_ignores(runs, tmp_path):
    save(tmp_path, "main", runs["base"])
    cfg = tmp_path / "gate.toml"
    cfg.write_text('[tool.gpulens.gate]\nignore = ["kernel:*sgemm*", "kernel_*"]\n'
                   '[tool.gpulens.gate.metrics."*_ns"]\nthreshold = 0.5\n')
    out = tmp_path / "gate.json"
    assert gate(tmp_path, "main", runs["slow"], extra=["--config", str(cfg), "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["verdict"] == "PASS"
    assert f"kernel:{GEMM}" in doc["ignored"] and "kernel_busy_ns" in doc["ignored"]
    span = next(m for m in doc["metrics"] if m["metric"] == "span_ns")
    assert span["threshold"] == 0.5 and span["verdict"] == "PASS" and span["ratio"] > 1.1
    bad = tmp_path / "bad.toml"
    bad.write_text("[tool.gpulens.gate]\nthreshhold = 0.1\n")
    assert gate(tmp_path, "main", runs["slow"], extra=["--config", str(bad)]) == 2


def test_github_annotations(runs, tmp_path, capsys, monkeypatch):
    save(tmp_path, "main", runs["base"])
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    gate(tmp_path, "main", runs["slow"], extra=["-q"])
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith("::error")]
    assert any(GEMM in x and "REGRESSED" in x for x in lines)


def test_usage_errors_exit_2_without_traceback(runs):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", "from gpulens.cli import main; main()", "gate", str(runs["slow"])],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "baseline" in r.stderr


# A real mangled/demangled pair: nsys 2024.6 `mangledName` of a PyTorch fill kernel (NVIDIA/Fuser report1.sqlite)
# and the name Kineto writes for it (GNU __cxa_demangle spelling, as in TraceLens's H100/MI300X traces).
MANGLED = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIN3c104HalfEEESt5arrayIPcLm1EEEEviT0_T1_"
DEMANGLED = ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::Half>, "
             "std::array<char*, 1ul> >(int, at::native::FillFunctor<c10::Half>, std::array<char*, 1ul>)")


@pytest.fixture(scope="module")
def renamed(tmp_path_factory):
    d = tmp_path_factory.mktemp("names")
    return {"d": d,
            "base": _reports(d, "mangled", range(500, 500 + N), rename={GEMM: MANGLED}),
            "same": _reports(d, "demangled", range(600, 600 + N), rename={GEMM: DEMANGLED}),
            "slow": _reports(d, "slow", range(700, 700 + N), rename={GEMM: DEMANGLED + " [clone .kd]"},
                             gemm_scale=1.3)}


def test_mangled_baseline_matches_demangled_candidate(renamed, tmp_path):
    assert save(tmp_path, "main", renamed["base"]) == 0
    out = tmp_path / "gate.json"
    assert gate(tmp_path, "main", renamed["same"], extra=["--json", str(out)]) == 0
    rows = {m["metric"]: m for m in json.loads(out.read_text())["metrics"]}
    # one row for the kernel, under its demangled key, compared (not −100 % plus a NO_BASELINE row)
    gemm = [m for k, m in rows.items() if "vectorized_elementwise_kernel<4, at::native::FillFunctor" in k]
    assert len(gemm) == 1 and gemm[0]["verdict"] == "PASS" and gemm[0]["base_n"] == N
    assert not [m for m in rows.values() if m["verdict"] == "NO_BASELINE"]
    assert not any(MANGLED in k for k in rows)
    # and a real 30 % slowdown of that kernel, recorded with AMD's `[clone .kd]` suffix, is found
    assert gate(tmp_path, "main", renamed["slow"], extra=["--json", str(out)]) == 1
    doc = json.loads(out.read_text())
    first_kernel = next(m for m in doc["metrics"] if m["metric"].startswith("kernel:"))
    assert "FillFunctor" in first_kernel["metric"] and first_kernel["verdict"] == "REGRESSED"


def test_a_report_json_is_accepted_as_the_baseline(runs, tmp_path):
    out = tmp_path / "gate.json"
    # no `baseline save`: the analyze report itself is the baseline
    assert gate(tmp_path, str(runs["base"]), runs["slow"], extra=["--json", str(out)]) == 1
    doc = json.loads(out.read_text())
    assert doc["verdict"] == "REGRESSED" and doc["baseline"]["runs"] == N
    assert gate(tmp_path, str(runs["base"]), runs["same"]) == 0
