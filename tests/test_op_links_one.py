"""One op linking for every per-op view: a GPU event's framework op is the cpu_op with its external id, else the
innermost cpu_op enclosing its launching runtime call on the launch's thread (ROCm traces whose kernels carry no
external id, CUDA/HIP graph replays). Kernel groups (and so ``gpulens diff``), the operator roll-up and the shape
FLOP models all read it; before, kernel groups used the external id only and showed no operator for every kernel of
the MI350X trace although the operator roll-up linked them all."""

from __future__ import annotations

import collections
import json

from gpulens.report import analyze
from tests.conftest import shared_trace
from tests.dig_traces import KTrace


def _expected_ops(events: list[dict]) -> collections.Counter:
    """GPU events per launching op, derived from the raw events: correlation → runtime call → the shortest cpu_op
    on the same (pid, tid) whose [ts, ts + dur) contains the call's ts ('' when none)."""
    gpu = [e for e in events if e.get("cat") in ("kernel", "gpu_memset", "gpu_memcpy")]
    rt = {e["args"]["correlation"]: e for e in events if e.get("cat") == "cuda_runtime"}
    ops = [e for e in events if e.get("cat") == "cpu_op"]
    out = collections.Counter()
    for k in gpu:
        call = rt.get(k["args"].get("correlation"))
        encl = [o for o in ops if call and o["pid"] == call["pid"] and o["tid"] == call["tid"]
                and o["ts"] <= call["ts"] < o["ts"] + o["dur"]]
        out[min(encl, key=lambda o: o["dur"])["name"] if encl else ""] += 1
    return out


def test_kernel_groups_take_the_op_enclosing_the_launch_when_kernels_have_no_external_id(tmp_path):
    t = KTrace()
    t.op("aten::mm", 100, 50, [[64, 128], [128, 256]], ["float", "float"])
    t.launch(0, 110, [("Cijk_Ailk_Bljk_S_B_MT64x64x64", 200, 30)], linked=False)  # correlation only
    t.op("aten::add", 200, 20, [[64, 256], [64, 256]], ["float", "float"])
    t.launch(0, 205, [("elementwise_kernel", 240, 5)], linked=False)
    t.launch(0, 400, [("orphan_kernel", 300, 7)], linked=False)  # outside every op: unlinked
    path = t.write(tmp_path / "nolinks.json")
    r = analyze([path], only=["kernel_groups", "op_rollup"]).sources[0].results
    kg = r["kernel_groups"].table.set_index("name")
    assert kg.loc["Cijk_Ailk_Bljk_S_B_MT64x64x64", "op"] == "aten::mm"
    assert kg.loc["Cijk_Ailk_Bljk_S_B_MT64x64x64", "shapes"] == "[[64,128],[128,256]]"
    assert kg.loc["elementwise_kernel", "op"] == "aten::add"
    assert kg.loc["orphan_kernel", "op"] == ""
    # linked share = (30 + 5) / (30 + 5 + 7) µs of GPU time; the roll-up's attributed share says the same
    assert r["kernel_groups"].summary["linked_share"] == r["op_rollup"].summary["attributed_share"] == 35 / 42


def test_mi350x_kernel_groups_name_the_same_ops_as_the_raw_trace():
    path = shared_trace("kineto/aorta_mi350x_train_step.pt.trace.json")
    events = json.loads(path.read_text())["traceEvents"]
    expected = _expected_ops(events)
    assert expected[""] == 0 and sum(expected.values()) == 20  # every one of the 20 GPU events has an enclosing op
    r = analyze([path], only=["kernel_groups", "op_rollup", "launches"]).sources[0].results
    kg = r["kernel_groups"].table
    assert dict(kg.groupby("op")["count"].sum()) == dict(expected)
    assert r["kernel_groups"].summary["linked_share"] == 1.0 == r["op_rollup"].summary["attributed_share"]
    assert r["launches"].summary["gpu_events_linked_to_ops"] == 20  # was 0: the external id only
