"""The speed work must not change what gpulens reports.

Three equalities, each between two independent ways of getting the same analysis (JSON report apart from its
``created`` timestamp):

1. shared context vs. fresh computation: ``run_all`` shares one AnalysisContext (GPU rows, launch links, overrun
   repair, idle gaps...) between analyzers; running each analyzer on a fresh context (every intermediate recomputed
   for it alone) must give the same report;
2. Timeline cache: the report of a trace equals the report of the same trace read back from the Timeline cache
   (memory-mapped arrays, a new Timeline object) and the report served from the analysis-results cache;
3. ranks: for a directory of rank files, kernel counts and summed kernel time of the whole run equal the sums of the
   per-rank reports (each kernel belongs to exactly one rank file), and per kernel name the calls add up.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gpulens.analyzers import finish, registry
from gpulens.collectors import collect
from gpulens.report import Report, SourceReport, _device_for, analyze
from gpulens.reports.json_report import to_dict
from tests.conftest import CASES, KINETO, shared_trace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import gen_kineto  # noqa: E402

_CTX = "_gpulens_analysis_context"


def _json(report: Report) -> dict:
    d = json.loads(json.dumps(to_dict(report), default=str))
    d.pop("created", None)
    return d


def _fresh_context_report(tl, label: str) -> Report:
    """Every analyzer on its own context: nothing computed by one analyzer is reused by another."""
    device = _device_for(tl)
    results = {}
    for cls in sorted(registry().values(), key=lambda c: (c.order, c.name)):
        if hasattr(tl, _CTX):
            delattr(tl, _CTX)
        results[cls.name] = cls().analyze(tl, device, results)
    if hasattr(tl, _CTX):
        delattr(tl, _CTX)
    finish(tl, results)  # run_all's steps after the analyzers (they may build a context of their own)
    if hasattr(tl, _CTX):
        delattr(tl, _CTX)
    return Report([SourceReport(label, tl, results, device)])


@pytest.fixture
def gen_trace(tmp_path):
    path = tmp_path / "gen.pt.trace.json"
    gen_kineto.generate(path, 3000, steps=4)
    return path


LOCAL = [KINETO / "hta_alexnet_a100.json.gz", KINETO / "tracelens_mi300x_bert-small.json.gz",
         KINETO / "multirank/sampled_rank-0.json.gz", CASES / "B06.json", CASES / "B12.json"]
SHARED = ["kineto/hta_v100_rank0_ns_resolution.pt.trace.json.gz", "kineto/tracelens_h100_bert-small.json.gz",
          "kineto/aorta_mi350x_train_step.pt.trace.json", "kineto/hta_mi250_minitoy_rocm6.2.json.gz",
          "nsys/fuser_h200_nsys2024.6_report1.sqlite", "rocprof/v3_json_mi350x/908_results.json.gz"]


def _check_shared_vs_fresh(path: Path) -> None:
    shared = _json(analyze([path]))
    fresh = _json(_fresh_context_report(collect(path), str(path)))
    assert shared == fresh


@pytest.mark.parametrize("path", [p for p in LOCAL if p.exists()], ids=lambda p: p.name)
def test_shared_context_equals_fresh_computation(path):
    _check_shared_vs_fresh(path)


@pytest.mark.parametrize("rel", SHARED)
def test_shared_context_equals_fresh_computation_on_corpus(rel):
    _check_shared_vs_fresh(shared_trace(rel))


def test_shared_context_equals_fresh_computation_generated(gen_trace):
    _check_shared_vs_fresh(gen_trace)


def test_cached_timeline_and_cached_results_give_the_same_report(gen_trace, tmp_path, monkeypatch):
    monkeypatch.setenv("GPULENS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GPULENS_CACHE_MIN_BYTES", "0")
    plain = _json(analyze([gen_trace], cache=False))
    assert not (tmp_path / "cache").exists()  # --no-cache writes nothing
    first = _json(analyze([gen_trace], cache=True))  # analyses run, Timeline and results stored
    stored = sorted(p.name for p in (tmp_path / "cache").iterdir())
    assert any(n.endswith(".results") for n in stored) and any(not n.endswith(".results") for n in stored)

    # the re-run must not run a single analyzer: make any analysis fail loudly
    import gpulens.report as report_mod

    def boom(*a, **k):
        raise AssertionError("analyzers ran on a cache hit")

    monkeypatch.setattr(report_mod, "run_all", boom)
    again = _json(analyze([gen_trace], cache=True))
    assert plain == first == again

    # other options → another key → the analyzers run (and fail here)
    with pytest.raises(AssertionError, match="analyzers ran"):
        analyze([gen_trace], cache=True, only=["hotspots"])


def test_results_cache_is_not_served_after_the_trace_changes(gen_trace, tmp_path, monkeypatch):
    monkeypatch.setenv("GPULENS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GPULENS_CACHE_MIN_BYTES", "0")
    before = _json(analyze([gen_trace], cache=True))
    gen_kineto.generate(gen_trace, 2000, steps=4, seed=1)  # rewrite the same path with other content
    after = _json(analyze([gen_trace], cache=True))
    # the generator's own arithmetic: 2000 kernels now, not 3000
    assert before["sources"][0]["summary"]["kernel_count"] == 3000
    assert after["sources"][0]["summary"]["kernel_count"] == 2000


def test_timeline_from_cache_gives_the_same_report(gen_trace, tmp_path, monkeypatch):
    monkeypatch.setenv("GPULENS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GPULENS_CACHE_MIN_BYTES", "0")
    loaded = collect(gen_trace, cache=True)  # writes the entry
    reopened = collect(gen_trace, cache=True)  # memory-mapped read-back, a different Timeline object
    assert reopened is not loaded
    from gpulens.report import analyze_timeline

    a = _json(Report([analyze_timeline(loaded, "t")]))
    b = _json(Report([analyze_timeline(reopened, "t")]))
    assert a == b


def test_whole_run_equals_sum_of_ranks(tmp_path):
    facts = gen_kineto.generate(tmp_path / "run", 800, ranks=3, steps=3)
    whole = _json(analyze([tmp_path / "run"]))["sources"][0]
    parts = [_json(analyze([Path(f["path"])]))["sources"][0] for f in facts]
    # kernel counts and plain kernel-time sums are additive over disjoint rank files; the generator's facts give
    # the per-file truth independently of gpulens
    assert whole["summary"]["kernel_count"] == sum(p["summary"]["kernel_count"] for p in parts) == 3 * 800
    assert whole["summary"]["kernel_time_ns"] == sum(p["summary"]["kernel_time_ns"] for p in parts) \
        == sum(f["kernel_ns"] for f in facts)
    calls: dict[str, int] = {}
    for p in parts:
        for r in p["analyses"]["hotspots"]["table"]:
            calls[r["name"]] = calls.get(r["name"], 0) + r["calls"]
    assert {r["name"]: r["calls"] for r in whole["analyses"]["hotspots"]["table"]} == calls
