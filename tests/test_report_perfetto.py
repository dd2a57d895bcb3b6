"""The Perfetto (Chrome-trace JSON) export: loads back through our Kineto collector with the same GPU work."""

import json

import pandas as pd
import pytest

import gpulens
from gpulens.reports import perfetto
from tests.conftest import KINETO, shared_trace
from tests.test_analysis_paths_b import _serial_durations


def _roundtrip(tmp_path, paths):
    rep = gpulens.analyze(paths)
    out = tmp_path / "export.json"
    out.write_text(perfetto.render(rep))
    return rep, json.loads(out.read_text()), gpulens.collect(out)


@pytest.mark.parametrize("name", ["tracelens_h100_bert-small.json.gz", "hta_mi250_minitoy_rocm6.2.json.gz",
                                  "aorta_mi350x_train_step.pt.trace.json"])
def test_export_loads_back_with_same_kernels(tmp_path, name):
    rep, doc, back = _roundtrip(tmp_path, [KINETO / name])
    orig = rep.sources[0].timeline
    # a GPU event running past the next one's start on its stream is exported ending there (B07; the MI350X trace
    # has such overruns): the durations read back are the serial-stream ones, derived here from the original events
    gpu = orig.of_kind("kernel", "comm", "memcpy", "memset")
    lane = pd.factorize(pd.Series(list(zip(gpu["rank"], gpu["device_id"], gpu["stream_id"].fillna(-1)))))[0]
    serial = pd.Series(_serial_durations(gpu["start_ns"].to_numpy(), gpu["dur_ns"].to_numpy(), lane,
                                         gpu["name"].astype(str).to_numpy(), gpu["event_id"].to_numpy()),
                       index=gpu.index)
    for kinds in (("kernel", "comm"), ("memcpy", "memset"), ("cpu_op",)):
        a, b = orig.of_kind(*kinds), back.of_kind(*kinds)
        want = int(serial[a.index].sum()) if kinds != ("cpu_op",) else int(a["dur_ns"].sum())
        assert len(a) == len(b) and want == int(b["dur_ns"].sum()), kinds
    k0, k1 = orig.of_kind("kernel").sort_values("start_ns"), back.of_kind("kernel").sort_values("start_ns")
    assert k0["start_ns"].tolist() == k1["start_ns"].tolist()  # to the ns, on the original clock
    assert k0["stream_id"].tolist() == k1["stream_id"].tolist()
    assert k0["correlation_id"].tolist() == k1["correlation_id"].tolist()
    assert not back.rejected.shape[0]


def test_ranks_are_processes_streams_are_threads(tmp_path):
    rep, doc, back = _roundtrip(tmp_path, [KINETO / "multirank"])
    meta = [e for e in doc["traceEvents"] if e["ph"] == "M"]
    procs = {e["pid"]: e["args"]["name"] for e in meta if e["name"] == "process_name"}
    assert procs == {0: "rank 0", 1: "rank 1"}
    threads = {(e["pid"], e["args"]["name"]) for e in meta if e["name"] == "thread_name"}
    ev = rep.sources[0].timeline.gpu_events()
    want = {(int(r), f"GPU {int(d)} stream {int(s)}") for r, d, s in
            ev[["rank", "device_id", "stream_id"]].drop_duplicates().itertuples(index=False)}
    assert threads == want
    k0, k1 = rep.sources[0].timeline.of_kind("kernel", "comm"), back.of_kind("kernel", "comm")
    assert len(k0) == len(k1) == 2258 and int(k0["dur_ns"].sum()) == int(k1["dur_ns"].sum())


def test_counters_travel_as_args(tmp_path):
    rep, doc, _ = _roundtrip(tmp_path, [KINETO / "hta_alexnet_a100.json.gz"])
    tl = rep.sources[0].timeline
    assert len(tl.counters), "this trace carries Kineto's per-kernel occupancy estimates"
    c = tl.counters.iloc[0]
    name = str(tl.events.loc[tl.events["event_id"] == c["event_id"], "name"].iloc[0])
    exported = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["name"] == name and str(c["metric"]) in e["args"]]
    assert exported and exported[0]["args"][str(c["metric"])] == pytest.approx(float(c["value"]))


def test_shared_trace_loads_back(tmp_path):
    path = shared_trace("kineto/hta_v100_rank0_ns_resolution.pt.trace.json.gz")
    rep, _, back = _roundtrip(tmp_path, [path])
    a, b = rep.sources[0].timeline.of_kind("kernel", "comm"), back.of_kind("kernel", "comm")
    assert len(a) == len(b) and int(a["dur_ns"].sum()) == int(b["dur_ns"].sum())
    # a ns-resolution trace: sub-µs start times survive the export exactly
    assert sorted(a["start_ns"].tolist()) == sorted(b["start_ns"].tolist())
    assert (a["start_ns"] % 1000 != 0).any()


def test_nsys_export_loads_back_through_kineto(tmp_path):
    from pathlib import Path

    from gpulens.collectors import sniff

    path = Path(__file__).resolve().parents[1] / "tests/data/nvidia/fuser_h200_nsys2024.6_report1.sqlite"
    if not path.exists() or (sniff(path) is None or not sniff(path).name.startswith("nsys")):
        pytest.skip("the Nsight Systems collector or its test export is not in this checkout")
    rep, doc, back = _roundtrip(tmp_path, [path])
    a, b = rep.sources[0].timeline.of_kind("kernel", "comm"), back.of_kind("kernel", "comm")
    assert len(a) == len(b) == 19 and int(a["dur_ns"].sum()) == int(b["dur_ns"].sum()) == 393_539
    assert sorted(a["start_ns"].tolist()) == sorted(b["start_ns"].tolist())


def test_launch_to_kernel_flow_arrows_as_kineto_draws_them(tmp_path):
    """Each GPU event launched by a runtime call gets one arrow from the call (host thread, the call's start) to the
    kernel (its stream, its start), as Kineto's ``ac2g`` flow events. Expected from the trace file itself: the
    pairs are the kernels and the runtime calls that share a correlation id."""
    import gzip

    src = KINETO / "tracelens_h100_bert-small.json.gz"
    evs = json.loads(gzip.decompress(src.read_bytes()))["traceEvents"]
    # runtime and driver calls (cudaLaunchKernel, cuLaunchKernel) launch kernels, copies and fills
    calls = {e["args"]["correlation"]: e for e in evs if e.get("ph") == "X"
             and e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    kernels = [e for e in evs if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")
               and e.get("args", {}).get("correlation") in calls]
    rep, doc, back = _roundtrip(tmp_path, [src])
    flows = [e for e in doc["traceEvents"] if e["ph"] in ("s", "f")]
    starts = {e["id"]: e for e in flows if e["ph"] == "s"}
    ends = {e["id"]: e for e in flows if e["ph"] == "f"}
    assert len(starts) == len(ends) == len(kernels) > 0 and set(starts) == set(ends)
    assert all(e["cat"] == "ac2g" and e.get("bp") == "e" for e in ends.values())
    x = {(e["pid"], e["tid"], e["ts"]): e for e in doc["traceEvents"] if e["ph"] == "X"}
    pairs = set()
    for i, s in starts.items():
        call, kern = x[(s["pid"], s["tid"], s["ts"])], x[(ends[i]["pid"], ends[i]["tid"], ends[i]["ts"])]
        assert call["cat"] == "cuda_runtime" and kern["cat"] in ("kernel", "gpu_memcpy", "gpu_memset")
        pairs.add((call["args"]["correlation"], kern["args"]["correlation"]))
    assert all(a == b for a, b in pairs) and {a for a, _ in pairs} == {k["args"]["correlation"] for k in kernels}
    # readers skip the arrows: the file loads back with the same kernels
    assert len(back.of_kind("kernel", "comm")) == len(rep.sources[0].timeline.of_kind("kernel", "comm"))
