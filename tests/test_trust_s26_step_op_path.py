"""A step written as an operator (the 2021 legacy Kineto format's ``"cat": "Operator"`` ``ProfilerStep#N``) is the
critical path's window, not host work: its self time is no op running (host idle), as when the step is an annotation.

Kind: the TensorBoard-plugin ResNet-50 trace: "Critical path: CPU ops hold 91 % of the step time … starting with
the op holding most of it, ProfilerStep#10" — the step marker's own time counted as an op's.

Hand-made trace (µs): ProfilerStep#1 written as a cpu_op over [1000, 2000); inside it aten::mm 1100–1300 with a
4 µs launch call at 1150 (kernel 1160–1170, long done before the step ends). No blocking call, so the path is the
host thread's: runtime 4, aten::mm 200 − 4 = 196 µs of CPU op, and the 800 µs outside aten::mm no op runs: host idle.
"""

from __future__ import annotations

from gpulens.report import analyze
from tests.dig_traces import KTrace
from tests.conftest import shared_trace

LEGACY = "kineto/kineto_tbplugin_resnet50_legacy_worker0.pt.trace.json.gz"  # ../shared/traces: skipped when absent


def _trace(tmp_path, step_as_op: bool):
    t = KTrace()
    if step_as_op:
        t.op("ProfilerStep#1", 1000, 1000)
    else:
        t.annotation("ProfilerStep#1", 1000, 1000)
    mm = t.op("aten::mm", 1100, 200)
    t.launch(mm, 1150, [("k", 1160, 10)], dur=4)
    return t.write(tmp_path / f"t{int(step_as_op)}.json")


def _classes(path):
    t = analyze([path], only=["critical_path"]).sources[0].results["critical_path"].table
    return {c: int(v) for c, v in zip(t["class"], t["time_ns"])}, t


def test_step_operator_is_the_window_not_an_op(tmp_path):
    as_op, t = _classes(_trace(tmp_path, True))
    assert as_op == {"cpu_op": 196_000, "runtime": 4_000, "host_idle": 800_000}
    assert "ProfilerStep#1" not in set(t["top_event"])
    as_annotation, _ = _classes(_trace(tmp_path, False))
    assert as_op == as_annotation  # the same path whichever way the step was written


def test_legacy_resnet_path_names_a_real_op():
    src = analyze([shared_trace(LEGACY)]).sources[0]
    t = src.results["critical_path"].table
    assert not t["top_event"].astype(str).str.startswith("ProfilerStep#").any()
    cp = next(f for f in src.findings() if f.key == "critical_path")
    assert "ProfilerStep" not in cp.action and "enumerate(DataLoader)" in cp.action
