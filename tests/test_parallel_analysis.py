"""Analysis in two processes (issue 16 target 5, :mod:`gpulens.analyzers._parallel_run`) gives the serial report.

The reference is the serial run of the same analyzers on a fresh load of the same input (``run_all(workers=1)``),
compared as JSON apart from the ``created`` timestamp; the parallel run is forced on these small inputs by lowering
the size threshold. Failures of the child (an exception, a crash, an unpicklable result, no answer) must give the
serial report too, with a warning. The order rules are checked on hand-made analyzers whose expected order of
results, warnings and visible results is written out here from the serial definition (sorted by order, name).
"""

from __future__ import annotations

import ast
import inspect
import json
import logging
import os
import sys
import time
from pathlib import Path

import pytest

from gpulens.analyzers import _parallel_run as PR
from gpulens.analyzers import registry, run_all
from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.collectors import collect
from gpulens.collectors._parallel import POOL_MIN_BYTES, analysis_workers
from gpulens.report import Report, SourceReport, _device_for
from gpulens.reports.json_report import to_dict
from tests.conftest import CASES, KINETO, shared_trace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import gen_kineto  # noqa: E402


def _report(path: Path, workers: int) -> dict:
    tl = collect(path, strict=False)
    device = _device_for(tl)
    results = run_all(tl, device, None, workers)
    d = json.loads(json.dumps(to_dict(Report([SourceReport(str(path), tl, results, device)])), default=str))
    d.pop("created", None)
    return d


@pytest.fixture
def forced(monkeypatch):
    """Parallel analysis on any input size; counts the forks; a fallback warning fails the test."""
    monkeypatch.setattr(PR, "MIN_EVENTS", 0)
    forks = []
    real = PR._fork

    def fork(work):
        forks.append(1)
        return real(work)

    monkeypatch.setattr(PR, "_fork", fork)

    def no_fallback(*a, **k):
        raise AssertionError("parallel analysis fell back: " + (a[0] % a[1:] if a else ""))

    monkeypatch.setattr(PR.log, "warning", no_fallback)
    return forks


@pytest.fixture(scope="module")
def rank_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("ranks") / "run"
    gen_kineto.generate(d, 1500, ranks=3, steps=3)
    return d


def test_parallel_equals_serial_on_rank_directory(rank_dir, forced):
    serial = _report(rank_dir, 1)
    assert not forced
    parallel = _report(rank_dir, 2)
    assert forced == [1]  # the child really ran
    assert parallel == serial
    # the run has 3 ranks × 1500 kernels (the generator's arguments): the analysis is not empty
    assert serial["sources"][0]["summary"]["kernel_count"] == 4500


LOCAL = [KINETO / "multirank", KINETO / "hta_alexnet_a100.json.gz", KINETO / "tracelens_mi300x_bert-small.json.gz",
         CASES / "B06.json", CASES / "B12.json"]
SHARED = ["kineto/multirank_hta_trace_filter", "kineto/hta_v100_rank0_ns_resolution.pt.trace.json.gz",
          "kineto/aorta_mi350x_train_step.pt.trace.json", "nsys/fuser_h200_nsys2024.6_report1.sqlite"]


@pytest.mark.parametrize("path", [p for p in LOCAL if p.exists()], ids=lambda p: p.name)
def test_parallel_equals_serial_on_real_traces(path, forced):
    assert _report(path, 2) == _report(path, 1)
    assert forced == [1]


@pytest.mark.parametrize("rel", SHARED)
def test_parallel_equals_serial_on_corpus(rel, forced):
    path = shared_trace(rel)
    assert _report(path, 2) == _report(path, 1)


# -- failures of the child: the serial report, with a warning -----------------------------------------------------
def _in_child_only(monkeypatch, name: str, action) -> None:
    """Make analyzer ``name`` do ``action()`` when it runs in a forked child; in this process it works normally."""
    cls = registry()[name]
    parent = os.getpid()
    real = cls.analyze

    def analyze(self, *a, **k):
        if os.getpid() != parent:
            return action(real(self, *a, **k))
        return real(self, *a, **k)

    monkeypatch.setattr(cls, "analyze", analyze)


def _crash(_):
    os._exit(3)


def _raise(_):
    raise RuntimeError("boom in the child")


def _unpicklable(result):
    result.summary["handle"] = lambda: None  # a lambda cannot be pickled
    return result


def _hang(result):
    time.sleep(60)
    return result


@pytest.mark.parametrize("action", [_crash, _raise, _unpicklable, _hang], ids=lambda f: f.__name__[1:])
@pytest.mark.parametrize("where", ["occupancy", "breakdown"])  # after the child's early message, or before it
def test_child_failure_falls_back_to_serial_with_a_warning(action, where, rank_dir, monkeypatch, caplog):
    serial = _report(rank_dir, 1)
    monkeypatch.setattr(PR, "MIN_EVENTS", 0)
    monkeypatch.setattr(PR, "_deadline", lambda started, now: now + 2.0)  # a hung child is given up after 2 s
    _in_child_only(monkeypatch, where, action)
    with caplog.at_level(logging.WARNING, logger="gpulens.analyzers"):
        parallel = _report(rank_dir, 2)
    assert parallel == serial
    assert any("parallel analysis failed" in r.getMessage() for r in caplog.records)


# -- the order rules, on hand-made analyzers ----------------------------------------------------------------------
class _Toy(Analyzer):
    def analyze(self, timeline, device=None, results=None):
        if self.name in ("t_child", "t_parent"):
            timeline.meta.warnings.append(f"warned by {self.name}")
        return AnalysisResult(self.name, summary={"saw": list(results), "pid": os.getpid()})


def _toys():
    # (order, name): serial order t_first, t_child, t_parent, t_verdict, t_last
    spec = [(1, "t_first"), (2, "t_child"), (3, "t_parent"), (4, "t_verdict"), (5, "t_last")]
    out = []
    for i, (o, n) in enumerate(spec):
        cls = type(f"T{i}", (_Toy,), {"order": o})  # no name at creation: not registered with the real analyzers
        cls.name = n
        out.append(cls)
    return out


def test_order_of_results_warnings_and_what_each_analyzer_sees(monkeypatch):
    classes = _toys()
    monkeypatch.setattr(PR, "CHILD", frozenset({"t_child"}))
    monkeypatch.setattr(PR, "READS", {"t_child": ("t_first",), "t_verdict": ("*",)})
    p = PR.plan(classes)
    assert [c.name for c in p.prefix] == ["t_first"]
    assert [c.name for c in p.child] == ["t_child"]
    assert [c.name for c in p.parent] == ["t_parent", "t_last"]
    assert [c.name for c in p.deferred] == ["t_verdict"]  # it reads every earlier result, t_child's among them

    out, tl = _run_toys(classes, p)
    # serial definition: results in (order, name) order; each analyzer sees exactly those before it
    assert list(out) == ["t_first", "t_child", "t_parent", "t_verdict", "t_last"]
    assert out["t_verdict"].summary["saw"] == ["t_first", "t_child", "t_parent"]
    # t_last declares no reads: it runs in the parent before the join and sees what the parent has then; never a
    # result that comes after it in the serial order
    assert out["t_last"].summary["saw"] == ["t_first", "t_parent"]
    assert out["t_child"].summary["pid"] != os.getpid()  # computed in the child
    assert {out[n].summary["pid"] for n in ("t_first", "t_parent", "t_verdict", "t_last")} == {os.getpid()}
    assert out["t_child"].summary["saw"] == ["t_first"]
    # warnings where the serial run puts them: the child's before the parent's
    assert tl.meta.warnings == ["loaded", "warned by t_child", "warned by t_parent"]


def test_early_results_come_from_the_child_first(monkeypatch):
    # t_first is read by the child's t_child and by the parent's t_parent, and reads nothing itself: declared early,
    # the child computes it first and sends it at once; t_parent takes it from that message (not deferred), and
    # sees exactly what the serial run shows it (t_first, not t_child)
    classes = _toys()
    monkeypatch.setattr(PR, "CHILD", frozenset({"t_child"}))
    monkeypatch.setattr(PR, "EARLY", frozenset({"t_first"}))
    monkeypatch.setattr(PR, "READS", {"t_child": ("t_first",), "t_parent": ("t_first",), "t_verdict": ("*",)})
    p = PR.plan(classes)
    assert p.prefix == [] and [c.name for c in p.early] == ["t_first"]
    assert [c.name for c in p.child] == ["t_child"]
    assert [c.name for c in p.parent] == ["t_parent", "t_last"]
    assert [c.name for c in p.deferred] == ["t_verdict"]

    out, tl = _run_toys(classes, p)
    assert list(out) == ["t_first", "t_child", "t_parent", "t_verdict", "t_last"]
    assert out["t_first"].summary["pid"] != os.getpid() and out["t_child"].summary["pid"] != os.getpid()
    assert out["t_parent"].summary["saw"] == ["t_first"]
    assert out["t_verdict"].summary["saw"] == ["t_first", "t_child", "t_parent"]
    assert tl.meta.warnings == ["loaded", "warned by t_child", "warned by t_parent"]
    # an early analyzer must read only what runs before the fork: reading a child's result, it stays in the prefix
    monkeypatch.setattr(PR, "READS", {"t_child": ("t_first",), "t_first": ("t_child",)})
    assert PR.plan(classes).early == []


def test_plan_runs_what_a_child_analyzer_reads_before_the_fork(monkeypatch):
    classes = _toys()
    monkeypatch.setattr(PR, "CHILD", frozenset({"t_child", "t_verdict"}))
    # t_verdict reads t_parent: t_parent is computed before the fork, t_verdict can run in the child
    monkeypatch.setattr(PR, "READS", {"t_verdict": ("t_parent",)})
    p = PR.plan(classes)
    assert [c.name for c in p.prefix] == ["t_parent"]
    assert [c.name for c in p.child] == ["t_child", "t_verdict"]
    assert [c.name for c in p.parent] == ["t_first", "t_last"]
    assert p.deferred == []


def test_plan_keeps_a_child_analyzer_reading_every_result_in_the_parent(monkeypatch):
    classes = _toys()
    monkeypatch.setattr(PR, "CHILD", frozenset({"t_child", "t_verdict"}))
    monkeypatch.setattr(PR, "READS", {"t_verdict": ("*",)})
    p = PR.plan(classes)
    assert p.prefix == []
    assert [c.name for c in p.child] == ["t_child"]
    assert [c.name for c in p.parent] == ["t_first", "t_parent", "t_last"]
    assert [c.name for c in p.deferred] == ["t_verdict"]  # after the join: it reads t_child's result too
    monkeypatch.setattr(PR, "CHILD", frozenset({"t_verdict"}))
    assert PR.plan(classes) is None  # nothing left for a child


# -- who decides: the loading decision -----------------------------------------------------------------------------
def test_analysis_workers_follows_the_loading_decision(tmp_path, rank_dir):
    f = next(rank_dir.iterdir())
    assert analysis_workers(f, None) == 1  # one file: one process (its measured peak memory stays as it is)
    total = sum(p.stat().st_size for p in rank_dir.iterdir())
    assert total < POOL_MIN_BYTES  # a small directory is loaded in one process: analysed in one too
    assert analysis_workers(rank_dir, None) == 1
    assert analysis_workers(rank_dir, 2) == 2  # --workers 2 on a directory: as asked
    assert analysis_workers(f, 2) == 1  # --workers is for directories: one file stays in one process


def test_small_input_is_analysed_in_one_process(rank_dir, monkeypatch):
    tl = collect(rank_dir)
    assert len(tl.events) < PR.MIN_EVENTS
    assert not PR.parallel_allowed(tl, 2)
    assert not PR.parallel_allowed(tl, 1)


# -- the READS declaration matches what the analyzers read --------------------------------------------------------
#: helpers that read ``results["hotspots"]`` for their caller
_HOTSPOT_HELPERS = {"hot_kernels", "no_hot_kernels_reason", "hot_rows", "hot_names", "_hot_frame"}


def _direct_reads(tree: ast.AST) -> tuple[set[str], set[str]]:
    """(result names read in ``tree``, names of the functions it calls with ``results`` as an argument):
    ``results.get("x")``, ``results["x"]``, ``results.values()``/``.items()`` (→ ``*``), and the hot-set helpers
    (→ ``hotspots``)."""
    found: set[str] = set()
    calls: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            fname = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if any(isinstance(a, ast.Name) and a.id == "results" for a in node.args):
                calls.add(fname)
                if fname in _HOTSPOT_HELPERS:
                    found.add("hotspots")
            if isinstance(f, ast.Attribute) and f.attr in ("get", "values", "items") and \
                    "results" in ast.unparse(f.value):
                if f.attr == "get" and node.args and isinstance(node.args[0], ast.Constant):
                    found.add(node.args[0].value)
                elif f.attr in ("values", "items"):
                    found.add("*")
        if isinstance(node, ast.Subscript) and "results" in ast.unparse(node.value) and \
                isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            found.add(node.slice.value)
    return found, calls


def _reads_in_source(cls) -> set[str]:
    """Result names the class reads in its own body and in the functions of its module it hands ``results`` to."""
    module = ast.parse(inspect.getsource(sys.modules[cls.__module__]))
    helpers = {n.name: n for n in module.body if isinstance(n, ast.FunctionDef)}
    found, calls = _direct_reads(ast.parse(inspect.getsource(cls).strip()))
    done: set[str] = set()
    while calls - done:
        name = (calls - done).pop()
        done.add(name)
        if name in helpers:
            more, more_calls = _direct_reads(helpers[name])
            found |= more
            calls |= more_calls
    return found


def test_reads_declaration_covers_what_each_analyzer_reads():
    names = set(registry())
    missing = {}
    for name, cls in registry().items():
        declared = set(PR.READS.get(name, ()))
        got = {r for r in _reads_in_source(cls) if r in names or r == "*"}
        if "*" not in declared and got - declared:
            missing[name] = sorted(got - declared)
    assert not missing, f"analyzers reading results not declared in _parallel_run.READS: {missing}"
    # the scan finds what is known to be read (so that it cannot pass by finding nothing)
    assert _reads_in_source(registry()["occupancy"]) >= {"hotspots", "roofline"}
    assert "*" in _reads_in_source(registry()["verdicts"])


# -- intermediates computed before the fork are not computed again ------------------------------------------------
def test_op_tree_is_built_once_before_the_fork(rank_dir, forced, monkeypatch, tmp_path):
    # The op tree is built before the fork (_warm). The serial run releases it after op_shapes (RELEASE_AFTER 57)
    # but keeps the GPU-event → op links (memo "gpu_op_links"), all that verdicts and stream_timeline read: it is
    # built once; in a parallel run that release frees nothing (the other process maps the same pages), so neither
    # process builds it again — not the child (stream_timeline reads it) and not the parent (verdicts, after the
    # join). Every build, in either process, is written to a file with its process id.
    from gpulens.analyzers import _optree

    log = tmp_path / "builds"
    real = _optree._build

    def build(timeline):
        with open(log, "a") as fh:
            fh.write(f"{os.getpid()}\n")
        return real(timeline)

    monkeypatch.setattr(_optree, "_build", build)
    serial = _report(rank_dir, 1)
    builds_serial = log.read_text().split()
    assert len(builds_serial) == 1  # op_rollup's; verdicts reads the links kept after the release at 57
    log.unlink()
    parallel = _report(rank_dir, 2)
    assert forced == [1]
    assert log.read_text().split() == [str(os.getpid())]  # once, in this process, before the fork
    assert parallel == serial


def _run_toys(classes, p):
    """Run the toy analyzers ``classes`` by plan ``p`` on an empty Timeline whose warnings start as ["loaded"];
    returns (results, timeline)."""
    from gpulens.timeline import Timeline

    tl = Timeline()
    tl.meta.warnings = ["loaded"]

    def step(cls, results, rest):
        results[cls.name] = cls().analyze(tl, None, results)

    return PR.run_parallel(tl, None, classes, p, step), tl
