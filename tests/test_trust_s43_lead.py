"""Session 43 (lead): an input moved to another rank takes its side tables' rows with it.

A folder of per-process rocprofv3 outputs numbers its rank-less processes 0, 1, … (by process id). A process that
holds only counter passes (``<pid>_counter_collection.csv``, no kernel trace) has its kernels only in
``tables["untimed_launches"]`` (dispatches that are not events); those rows kept rank 0 for every process while the
process itself became rank 1, so the kernel rows built from them sat on the wrong rank.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpulens.collectors import collect

HEADER = ('"Correlation_Id","Dispatch_Id","Agent_Id","Queue_Id","Process_Id","Thread_Id","Grid_Size","Kernel_Id",'
          '"Kernel_Name","Workgroup_Size","LDS_Block_Size","Scratch_Size","VGPR_Count","SGPR_Count","Counter_Name",'
          '"Counter_Value"')


def _counter_file(folder: Path, pid: int, kernels: list[str]) -> None:
    rows = [HEADER]
    for i, name in enumerate(kernels, start=1):
        rows.append(f'{i},{i},1,1,{pid},{pid},1048576,{i},"{name}",64,0,0,8,16,"SQ_WAVES",16384')
    (folder / f"{pid}_counter_collection.csv").write_text("\n".join(rows) + "\n")


@pytest.mark.parametrize("pids", [(4100, 5200), (5200, 4100, 6300)])
def test_counter_only_processes_keep_their_rank_in_untimed_launches(tmp_path: Path, pids: tuple[int, ...]) -> None:
    # process i (in pid order) writes i + 1 dispatches of kernel "k<pid>": rank r holds exactly its own kernels
    for i, pid in enumerate(sorted(pids)):
        _counter_file(tmp_path, pid, [f"k{pid}"] * (i + 1))
    tl = collect(tmp_path, strict=False)
    ul = tl.tables["untimed_launches"]
    by_rank = {int(r): sorted(set(map(str, g["name"]))) for r, g in ul.groupby("rank")}
    counts = {int(r): len(g) for r, g in ul.groupby("rank")}
    # expected: the processes ordered by pid are ranks 0, 1, 2 …; rank r has r + 1 rows of its own kernel
    want = {r: [f"k{pid}"] for r, pid in enumerate(sorted(pids))}
    assert by_rank == want
    assert counts == {r: r + 1 for r in range(len(pids))}
    assert sorted(tl.ranks) == list(range(len(pids)))


def _kineto(path: Path, pid: int, kernel: str, allocated: int) -> None:
    import json

    events = [
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": 1, "ts": 10, "dur": 5,
         "args": {"correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7, "ts": 20, "dur": 30,
         "args": {"correlation": 1, "device": 0, "stream": 7}},
        {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": pid, "tid": 1, "ts": 12,
         "args": {"Device Type": 1, "Device Id": 0, "Addr": 1, "Bytes": allocated,
                  "Total Allocated": allocated, "Total Reserved": 2 * allocated}},
    ]
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}))


def test_rankless_kineto_files_move_their_allocator_rows_with_them(tmp_path: Path) -> None:
    # two Kineto files recording no rank (no distributedInfo, no rank in the name): numbered by process id, 300 then
    # 700; each file's one allocator event (its own Total Allocated) must sit on its file's rank
    _kineto(tmp_path / "b.json", 700, "kB", 7_000)
    _kineto(tmp_path / "a.json", 300, "kA", 3_000)
    tl = collect(tmp_path, strict=False)
    kernels = tl.events[tl.events["kind"].astype(str) == "kernel"]
    rank_of_kernel = {str(n): int(r) for n, r in zip(kernels["name"], kernels["rank"])}
    mem = tl.tables["memory"]
    rank_of_alloc = {int(b): int(r) for b, r in zip(mem["allocated_bytes"], mem["rank"])}
    assert len(set(rank_of_kernel.values())) == 2
    # the file that launched kA allocated 3,000 B; kB's 7,000 B
    assert rank_of_alloc == {3_000: rank_of_kernel["kA"], 7_000: rank_of_kernel["kB"]}


def test_rocprof_v1_copy_and_api_summaries_say_what_they_hold(tmp_path: Path) -> None:
    # a summaries-only rocprof --stats folder: the copy and HIP API summaries are no kernels and no report figure
    # counts them — their note must give their calls and summed time (it said they were "kept"; no report showed them)
    (tmp_path / "results.stats.csv").write_text(
        '"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n"vector_add(float*, int)",1,3431611,3431611,100.0\n')
    (tmp_path / "results.copy_stats.csv").write_text(
        '"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n'
        '"CopyDeviceToHost",1,885689740,885689740,83.05\n"CopyHostToDevice",2,180717650,90358825,16.95\n')
    (tmp_path / "results.hip_stats.csv").write_text(
        '"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n'
        '"hipMemcpy",3,1342822760,447607586,62.3\n"hipFree",3,769039526,256346508,35.7\n')
    tl = collect(tmp_path, strict=False)
    said = " ".join(tl.meta.warnings)
    # by hand: copies 1 + 2 = 3 calls, 885,689,740 + 180,717,650 = 1,066,407,390 ns = 1.07 s;
    # HIP API 3 + 3 = 6 calls, 1,342,822,760 + 769,039,526 = 2,111,862,286 ns = 2.11 s
    assert "3 copies and fills, 1.07 s summed" in said
    assert "6 HIP API calls, 2.11 s summed" in said
    assert "kept as a copy summary" not in said and "kept as a hip summary" not in said


def test_roofline_heading_names_the_spec_files_memory_roof(tmp_path: Path) -> None:
    # a spec file over a built-in base giving only memory_bandwidth: the memory roof is the file's 2,000 GB/s, so the
    # heading must not call it "the datasheet bandwidth"; the base's achievable matrix roof stays named as such
    import json

    import gpulens
    from gpulens.reports._roofline_text import roofline_heading

    spec = tmp_path / "lab.json"
    spec.write_text(json.dumps({"base": "NVIDIA H200 SXM", "name": "lab bw",
                                "figures": {"memory_bandwidth": [2000, "stream"]}}))
    trace = Path(__file__).parent / "data" / "nvidia" / "h200" / "h200_gpt2_train.pt.trace.json.gz"
    rep = gpulens.analyze([trace], device_spec=str(spec), only=["roofline"])
    sm = rep.sources[0].results["roofline"].summary
    assert sm["spec_file_roofs"] == ["memory_bandwidth"]
    heading = roofline_heading(sm)
    assert "memory roof from the device spec file" in heading
    assert "datasheet bandwidth" not in heading
    from gpulens.reports import html

    assert "(memory roof, spec file)" in html.render(rep)
    # without the file: the datasheet's memory roof beside the achievable matrix roof is said as before
    base = gpulens.analyze([trace], only=["roofline"]).sources[0].results["roofline"].summary
    assert base["spec_file_roofs"] == []
    assert "the memory roof is the datasheet bandwidth" in roofline_heading(base)


@pytest.mark.parametrize("given, figure", [("3.35 TB/s", True), ("989 TFLOPS", True), ("2000", True),
                                           ("Nonexistent GPU", False)])
def test_device_spec_figure_in_place_of_a_gpu_says_where_figures_go(given: str, figure: bool) -> None:
    from gpulens.collectors import TraceFormatError
    from gpulens.devices.spec import load_spec

    with pytest.raises(TraceFormatError) as exc:
        load_spec(given)
    said = str(exc.value)
    assert "no built-in GPU has that name" in said and "\n" not in said
    assert ("write figures in a spec file (memory_bandwidth in GB/s" in said) is figure
