"""Timeline and multi-input fidelity (session 46): time counted across inputs that are not one run.

Every input is built here; the expected figures are worked out by hand in each test from the rows written.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from gpulens.report import analyze
from gpulens.reports._answer import clock_note
from gpulens.reports._warnings import reading_notes

GPU = "NVIDIA A100-SXM4-40GB"


def kineto(path: Path, kernels: list[tuple[str, int, int]], base_ns: int | None = None,
           dist: dict | None = None, gpu: str = GPU) -> None:
    """A Kineto trace of ``kernels`` (name, ts [µs], dur [µs]) on GPU 0 stream 7, each launched 5 µs before it."""
    ev = []
    for i, (name, ts, dur) in enumerate(kernels):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10,
                   "ts": ts - 5, "dur": 4, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
                   "args": {"device": 0, "stream": 7, "correlation": i + 1, "grid": [80, 1, 1],
                            "block": [256, 1, 1]}})
    doc: dict = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": gpu, "computeMajor": 8,
                                                           "computeMinor": 0, "numSms": 108}],
                 "traceEvents": ev}
    if base_ns is not None:
        doc["baseTimeNanoseconds"] = base_ns
    if dist is not None:
        doc["distributedInfo"] = dist
    path.write_text(json.dumps(doc))


def _run(kernels_a, kernels_b, tmp_path, base_a=None, base_b=None, dist_a=None, dist_b=None):
    kineto(tmp_path / "a.pt.trace.json", kernels_a, base_a, dist_a)
    kineto(tmp_path / "b.pt.trace.json", kernels_b, base_b, dist_b)
    return analyze([tmp_path], cache=False)


MODEL_A = [("ampere_sgemm_128x64_nn", 1000, 100), ("vectorized_elementwise_kernel", 1110, 20),
           ("softmax_warp_forward", 1140, 30)]
MODEL_B = [("triton_poi_fused_add_0", 1000, 2), ("triton_red_fused_sum_1", 1010, 4)]


# --- item 3: unrelated runs in one folder are not the ranks of one job ------------------------------------------

def test_two_models_on_one_gpu_are_two_runs_not_two_ranks(tmp_path):
    """Same GPU name, no distributedInfo, no kernel name in common: two reports, one rank each — the ranks
    comparison (a "rank imbalance" between a 150 µs and a 14 µs program) is not made."""
    rep = _run(MODEL_A, MODEL_B, tmp_path)
    assert len(rep.sources) == 2
    by = {Path(s.label).name: s for s in rep.sources}
    assert set(by) == {"a.pt.trace.json", "b.pt.trace.json"}
    # hand: A's kernels 1000..1100, 1110..1130, 1140..1170 µs -> span 170 µs, busy 150 µs
    assert by["a.pt.trace.json"].summary["span_ns"] == 170_000
    assert by["a.pt.trace.json"].summary["kernel_busy_ns"] == 150_000
    # B: 1000..1002 and 1010..1014 µs -> span 14 µs, busy 6 µs
    assert by["b.pt.trace.json"].summary["span_ns"] == 14_000
    for s in rep.sources:
        assert s.summary["ranks"] == [0]
        said = [w for w in reading_notes(s.timeline.meta) if "not the ranks of one job" in w]  # session 50: a note
        assert len(said) == 1 and "0 of their 3 and 2 kernel names in common" in said[0]


def test_one_model_run_twice_hours_apart_is_two_runs(tmp_path):
    """Same kernels, both on Kineto's epoch clock (baseTimeNanoseconds), the second run 2 h after the first: two runs
    (joined, the wall span was 2 h of one 'job')."""
    base = 1_700_000_000_000_000_000
    rep = _run(MODEL_A, MODEL_A, tmp_path, base_a=base, base_b=base + 7_200 * 10**9)
    assert len(rep.sources) == 2
    for s in rep.sources:
        assert s.summary["span_ns"] == 170_000
        said = [w for w in reading_notes(s.timeline.meta) if "not the ranks of one job" in w]  # session 50: a note
        assert len(said) == 1 and "apart on one clock" in said[0]


def test_ranks_of_one_program_stay_one_run(tmp_path):
    """Control: the same kernels at the same time, no distributedInfo (rank-less files of one data-parallel job) —
    one source of 2 ranks, as before."""
    base = 1_700_000_000_000_000_000
    rep = _run(MODEL_A, MODEL_A, tmp_path, base_a=base, base_b=base)
    assert len(rep.sources) == 1 and rep.sources[0].summary["ranks"] == [0, 1]
    assert not any("not the ranks of one job" in w for w in rep.sources[0].timeline.meta.warnings
                   + reading_notes(rep.sources[0].timeline.meta))


def test_pipeline_stages_of_a_recorded_job_stay_one_run(tmp_path):
    """Control: different kernels per rank, but both files record one distributed job (world size 2, ranks 0 and
    1: pipeline stages) — one source of 2 ranks."""
    rep = _run(MODEL_A, MODEL_B, tmp_path, dist_a={"rank": 0, "world_size": 2, "backend": "nccl"},
               dist_b={"rank": 1, "world_size": 2, "backend": "nccl"})
    assert len(rep.sources) == 1 and rep.sources[0].summary["ranks"] == [0, 1]


def test_two_processes_of_different_programs_in_one_rocprofv3_folder_keep_their_files(tmp_path):
    """A rocprofv3 folder of two processes (kernel + copy CSV each) running different kernels: two runs, each with
    its own copy (the split keeps a process's several files together)."""
    _rocprofv3_processes(tmp_path, names={100: "k_a(float*)", 200: "k_b(float*)"})
    rep = analyze([tmp_path], cache=False)
    assert len(rep.sources) == 2
    for s in rep.sources:
        assert s.summary["memcpy_count"] == 1 and s.summary["kernel_count"] == 4
        assert s.summary["span_ns"] == 4_600 and s.summary["exposed_memcpy_ns"] == 600



def test_a_kineto_trace_beside_another_programs_nsys_export_on_the_same_gpu_model(tmp_path):
    """lashi's RTX 4090 streamSimple export (4 kernel names) beside a Kineto trace of model A on an RTX 4090: same
    GPU model, no distributed job, no kernel name in common — two runs, never two ranks of one job."""
    import shutil

    from tests.conftest import shared_trace

    shutil.copy(shared_trace("nsys/lashi_rtx4090_streamSimple.sqlite"), tmp_path)
    kineto(tmp_path / "a.pt.trace.json", MODEL_A, base_ns=1_700_000_000_000_000_000, gpu="NVIDIA GeForce RTX 4090")
    rep = analyze([tmp_path], cache=False)
    assert sorted(Path(s.label).name for s in rep.sources) == ["a.pt.trace.json", "lashi_rtx4090_streamSimple.sqlite"]
    assert rep.sources[0].summary["span_ns"] == 170_000 or rep.sources[1].summary["span_ns"] == 170_000
    for s in rep.sources:
        assert s.summary["ranks"] == [0]
        notes = [n for src in s.timeline.meta.sources for n in (src.get("reading_notes") or [])]
        assert any("0 of their 3 and 4 kernel names in common" in n for n in notes)  # a reading note (session 50)
        assert not any("kernel names in common" in w for w in s.timeline.meta.warnings)

# --- item 1: a nested rocprofv3 folder of two processes whose clocks differ --------------------------------------

K_HDR = '"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Start_Timestamp","End_Timestamp"\n'
M_HDR = ('"Kind","Direction","Source_Agent_Id","Destination_Agent_Id","Correlation_Id","Start_Timestamp",'
         '"End_Timestamp"\n')
CLOCKS = {100: 1_000_000, 200: 9_000_000_000}  # each process's first timestamp [ns]: 9 s apart


def _rocprofv3_processes(root: Path, names: dict[int, str] | None = None) -> None:
    """``<host>/<pid>/<pid>_kernel_trace.csv`` + ``_memory_copy_trace.csv`` (rocprofv3 ``-d %h/%p -o %p``) for
    pids 100 and 200: 4 kernels of 400 ns every 1,000 ns from the process's clock origin, then a 600 ns HtoD copy
    at +4,000 ns."""
    for pid, t0 in CLOCKS.items():
        d = root / "node1" / str(pid)
        d.mkdir(parents=True)
        name = (names or {}).get(pid, "k_step(float*)")
        rows = "".join(f'"KERNEL_DISPATCH",1,1,1,"{name}",{t0 + i * 1000},{t0 + i * 1000 + 400}\n'
                       for i in range(4))
        (d / f"{pid}_kernel_trace.csv").write_text(K_HDR + rows)
        (d / f"{pid}_memory_copy_trace.csv").write_text(
            M_HDR + f'"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0,1,0,{t0 + 4000},{t0 + 4600}\n')


def test_nested_processes_on_different_clocks_are_ranks_with_their_own_spans(tmp_path):
    """Hand figures per process: span 0 .. 4,600 ns; kernels 4 × 400 = 1,600 ns; the copy 600 ns exposed (no
    kernel beside it); idle 4,600 − 1,600 − 600 = 2,400 ns. Stitched across both clocks the span was 9 s."""
    _rocprofv3_processes(tmp_path)
    rep = analyze([tmp_path], cache=False)
    assert len(rep.sources) == 1
    s = rep.sources[0]
    summ = s.summary
    assert summ["ranks"] == [0, 1]
    assert summ["rank_span_ns"] == {"0": 4_600, "1": 4_600} or summ["rank_span_ns"] == {0: 4_600, 1: 4_600}
    assert summ["span_ns"] == 4_600  # the longest rank, never the 9 s between the clocks
    assert summ["span_basis"] == "longest rank"
    bd = s.results["breakdown"].table.set_index("rank")
    for r in (0, 1):
        row = bd.loc[r]
        assert (row["span_ns"], row["computation_ns"], row["exposed_memcpy_ns"], row["idle_ns"]) == \
            (4_600, 1_600, 600, 2_400)
    # copies counted wherever kernels are: in the summary and in the breakdown the chart draws
    assert summ["memcpy_count"] == 2 and summ["exposed_memcpy_ns"] == 1_200
    # GPU idle is the largest share (2,400 of 4,600 ns per GPU) and holds the verdict
    assert summ["verdict"] == "idle-unattributed"
    assert "clocks disagree" in clock_note(s)  # said, not silently joined


# --- item 4: a baseline (or a candidate set) of runs that are not one workload is said, not silent ---------------

def _traces(tmp_path: Path) -> dict[str, Path]:
    """Two runs of model A (the second 10 % slower: same kernels) and one of model B, as separate traces."""
    out = {}
    for name, kernels in (("a1", MODEL_A), ("a2", [(n, ts, int(d * 1.1)) for n, ts, d in MODEL_A]), ("b", MODEL_B)):
        out[name] = tmp_path / f"{name}.pt.trace.json"
        kineto(out[name], kernels)
    return out


def test_baseline_of_two_workloads_warns_and_every_gate_says_it(tmp_path):
    from gpulens.gate import collect_runs, load_baseline, run_gate, save_baseline

    t = _traces(tmp_path)
    base = save_baseline([t["a1"], t["a2"], t["b"]], "mixed", tmp_path / "store", git={})
    # hand: B shares 0 of its 2 kernel names (and 0 % of its kernel time) with A's 3: another workload; a2 is A
    assert len(base.notes) == 1
    assert base.notes[0].startswith(f"1 of the 3 runs ({t['b']}) is not the same workload as the first ({t['a1']})")
    assert "0 kernel names in common" in base.notes[0]
    again = load_baseline(base.path)
    assert again.notes == base.notes  # stored with the baseline
    res = run_gate(again, collect_runs([t["a1"]]))
    assert any(n.startswith("baseline: 1 of the 3 runs") for n in res.notes)


def test_baseline_of_one_workload_has_no_note_and_a_mixed_candidate_set_is_said(tmp_path):
    from gpulens.gate import collect_runs, run_gate, save_baseline

    t = _traces(tmp_path)
    base = save_baseline([t["a1"], t["a2"]], "one", tmp_path / "store", git={})
    assert base.notes == []
    assert "notes" not in json.loads(base.path.read_text())
    res = run_gate(base, collect_runs([t["a2"], t["b"]]))
    assert any(n.startswith("candidate: 1 of the 2 runs") for n in res.notes)


def test_baseline_save_cli_prints_the_warning(tmp_path):
    from typer.testing import CliRunner

    from gpulens.cli import app

    t = _traces(tmp_path)
    out = CliRunner().invoke(app, ["baseline", "save", str(t["a1"]), str(t["b"]), "--name", "m",
                                   "--store", str(tmp_path / "store")])
    assert out.exit_code == 0, out.output
    assert "warning: 1 of the 2 runs" in " ".join(out.output.split())


# --- item 5: the rocprofiler-sdk Kineto grid convention decided by the recorded HIP version ----------------------

def _sdk(tmp_path: Path, hip: int | None, grid: list, block: list, extra: list | None = None) -> Path:
    from tests.test_trust_s45_real import _sdk_trace

    p = _sdk_trace(tmp_path, grid, block, extra)
    doc = json.loads(p.read_text())
    if hip is None:
        doc.pop("hip_runtime_version")
    else:
        doc["hip_runtime_version"] = hip
    p.write_text(json.dumps(doc))
    return p


@pytest.mark.parametrize("hip,grid,block,rule", [
    # HIP 7.1 (70125424, TraceLens' MI300X traces): written as launched — 64 workgroups of 256 work-items
    (70125424, 64, 256, "as launched"),
    # HIP 7.0 (70051831, the aorta MI350X trace): grid holds the workgroup size 64 and block the grid in
    # work-items, 256: 256 / 64 = 4 workgroups of 64
    (70051831, 4, 64, "swapped"),
    # no HIP version recorded: swapped, as rocprofiler-sdk wrote it first
    (None, 4, 64, "swapped (no HIP version recorded)"),
])
def test_ambiguous_sdk_records_follow_the_recorded_hip_version(tmp_path, hip, grid, block, rule):
    """Every record fits a workgroup both ways (grid [64,1,1], block [256,1,1]): only the version can tell."""
    from gpulens.collectors import collect

    tl = collect(_sdk(tmp_path, hip, [64, 1, 1], [256, 1, 1]))
    k = tl.of_kind("kernel")
    assert (int(k["grid_x"].iloc[0]), int(k["block_x"].iloc[0])) == (grid, block)
    assert tl.meta.sources[0]["grid_convention"] == rule


def test_records_that_tell_their_convention_win_over_the_version(tmp_path):
    """HIP 7.1 recorded, but a record's "block" of 524288 work-items cannot be a workgroup: the trace swaps (its
    records say so); the ambiguous record follows: block 64, grid 256 / 64 = 4."""
    from gpulens.collectors import collect

    tl = collect(_sdk(tmp_path, 70125424, [256, 1, 1], [524288, 1, 1], extra=[([64, 1, 1], [256, 1, 1])]))
    k = tl.of_kind("kernel").sort_values("start_ns")
    assert k["grid_x"].tolist() == [524288 // 256, 256 // 64] and k["block_x"].tolist() == [256, 64]


# --- item 2: idle that untimed work may fill, per GPU where the events say which GPU ------------------------------

def test_a_runaway_on_one_gpu_of_a_rank_bounds_that_gpus_idle_only(tmp_path):
    """One rank drives GPUs 0 and 1 (3 kernels of 50 µs each, 100 µs apart; GPU 1 10 µs later). GPU 1's last
    kernel starts at 1400 µs, after all else ended, with a recorded 10⁹ µs: a runaway with nothing to cut it at,
    its time unknown. By hand: GPU 0 span 1000..1250 = 250 µs, idle 250 − 150 = 100 µs, all measured; GPU 1 span
    1010..1400 = 390 µs, idle 390 − 150 = 240 µs, which the runaway may fill. Before, the runaway's rank counted both
    GPUs' idle as unmeasured (100 µs on GPU 0 too) with 'a bound per rank, not per GPU'."""
    ev = []
    for dev in (0, 1):
        for i in range(3):
            ev.append({"ph": "X", "cat": "kernel", "name": f"k{dev}", "pid": dev, "tid": 7,
                       "ts": 1000 + i * 100 + dev * 10, "dur": 50,
                       "args": {"device": dev, "stream": 7, "correlation": dev * 10 + i + 1}})
    ev.append({"ph": "X", "cat": "kernel", "name": "k1", "pid": 1, "tid": 7, "ts": 1400, "dur": 10**9,
               "args": {"device": 1, "stream": 7, "correlation": 99}})
    p = tmp_path / "two_gpus.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev,
                             "deviceProperties": [{"id": 0, "name": GPU}, {"id": 1, "name": GPU}]}))
    bd = analyze([p], cache=False).sources[0].results["breakdown"]
    t = bd.table.set_index("device_id")
    assert (int(t.loc[0, "span_ns"]), int(t.loc[0, "idle_ns"]), int(t.loc[0, "idle_untimed_ns"])) == \
        (250_000, 100_000, 0)
    assert (int(t.loc[1, "span_ns"]), int(t.loc[1, "idle_ns"]), int(t.loc[1, "idle_untimed_ns"])) == \
        (390_000, 240_000, 240_000)
    said = bd.summary["idle_bound"]
    assert "only the 240.00 µs of idle of the GPU it ran on (rank 0 GPU 1)" in said
    assert "per rank" not in said
