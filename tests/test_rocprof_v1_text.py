"""rocprof v1 raw trace text (roctracer's hcc_ops_trace.txt / hip_api_trace.txt): the records' own numbers.

The lines below follow the layout of a real ``rocprof --hip-trace`` folder (HGLiu1998/batched_gemm, MI300X:
``894_hcc_ops_trace.txt``, ``894_hip_api_trace.txt``); the values are small hand-made ones so every expected figure
is a subtraction or product written here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpulens.collectors import collect, sniff

OPS = """\
1000:1200 2:0 CopyHostToDevice:4:894
5000:9000 2:0 void at::native::kern<float, 4>(int, float*):8:894
9100:9100 2:0 BarrierMarker:9:894
this line is not a record
9500:9700 2:0 FillBufferAligned:10:894
12000:15000 2:0 CopyDeviceToHost:11:894
"""

API = """\
100:900 894:894 hipMalloc(ptr=0x7f28b1200000, size=8388608) :1
950:1300 894:894 hipMemcpy(dst=0x7f28b1200000, src=0x7f6a9acb7010, sizeBytes=8388608, kind=1) :4
4000:4500 894:894 hipLaunchKernel(function_address=0x201030, numBlocks={z=16, y=64, x=16}, dimBlocks={z=8, y=8, x=8}, args=0x7fffad028c94, sharedMemBytes=0, stream=0) kernel=kern(int, float*) :8
11000:15100 894:894 hipMemcpy(dst=0x7f6a96cb5010, src=0x7f28ace00000, sizeBytes=33554432, kind=2) :11
"""


def write_ops(path: Path) -> None:
    """The hcc_ops records above as one file (the fuzzing seed of this format)."""
    path.write_text(OPS)


def _write(folder: Path, prefix: str = "894_", ops: str = OPS, api: str | None = API) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{prefix}hcc_ops_trace.txt").write_text(ops)
    if api is not None:
        (folder / f"{prefix}hip_api_trace.txt").write_text(api)
    (folder / f"{prefix}begin_ts_file.txt").write_text("50\n")
    return folder


def test_ops_and_api_records(tmp_path):
    d = _write(tmp_path / "run")
    tl = collect(d / "894_hcc_ops_trace.txt")
    ev = tl.events
    k = ev[ev["kind"] == "kernel"].iloc[0]
    assert k["name"] == "void at::native::kern<float, 4>(int, float*)"  # colons and spaces kept
    assert k["dur_ns"] == 9000 - 5000
    assert int(k["stream_id"]) == 0 and int(k["device_id"]) == 2
    # grid from the launch's numBlocks (blocks, HIP), workgroup from dimBlocks
    assert (int(k["grid_x"]), int(k["grid_y"]), int(k["grid_z"])) == (16, 64, 16)
    assert (int(k["block_x"]), int(k["block_y"]), int(k["block_z"])) == (8, 8, 8)
    cp = ev[ev["kind"] == "memcpy"].sort_values("start_ns")
    assert list(cp["dur_ns"]) == [1200 - 1000, 15000 - 12000]
    assert list(cp["bytes"].astype(int)) == [8388608, 33554432]  # the hipMemcpy calls' sizeBytes
    assert list(cp["copy_kind"].astype(str)) == ["HtoD", "DtoH"]
    assert cp["stream_id"].isna().all()  # rocprof v1 copies carry no kernel queue
    assert (ev["kind"] == "memset").sum() == 1
    assert (ev["kind"] == "runtime").sum() == 4
    assert not ev["name"].astype(str).str.contains("Marker").any()
    w = " ".join(tl.meta.warnings)
    assert "1 barrier marker" in w and "1 line dropped" in w


def test_launch_linked_by_correlation(tmp_path):
    from gpulens.analyzers.launches import link_gpu_to_launch

    tl = collect(_write(tmp_path / "run"))
    ev = tl.events
    links = link_gpu_to_launch(tl)
    kern = ev.index[ev["kind"] == "kernel"][0]
    launch = ev.loc[ev["event_id"] == links.loc[kern, "launch_event_id"]].iloc[0]
    assert launch["name"] == "hipLaunchKernel" and launch["start_ns"] == 4000


def test_each_file_reads_its_group_and_the_folder_is_one_run(tmp_path):
    d = _write(tmp_path / "run")
    by_ops, by_api, by_dir = (collect(p) for p in (d / "894_hcc_ops_trace.txt", d / "894_hip_api_trace.txt", d))
    n = len(OPS.splitlines()) - 2 + len(API.splitlines())  # minus the marker and the junk line
    assert len(by_ops.events) == len(by_api.events) == len(by_dir.events) == n
    assert sniff(d).name == sniff(d / "894_hip_api_trace.txt").name == "rocprof_v1_text"


def test_two_processes_are_two_ranks(tmp_path):
    d = _write(tmp_path / "run", prefix="894_")
    _write(d, prefix="895_")
    tl = collect(d)
    assert sorted(tl.events["rank"].unique()) == [0, 1]
    assert (tl.events["kind"] == "kernel").sum() == 2


def test_old_layout_without_pid(tmp_path):
    ops = "1000:3000 0:1 my_kernel:7\n"
    tl = collect(_write(tmp_path / "run", prefix="", ops=ops, api=None))
    k = tl.events[tl.events["kind"] == "kernel"].iloc[0]
    assert k["name"] == "my_kernel" and k["dur_ns"] == 2000 and int(k["correlation_id"]) == 7


@pytest.mark.parametrize("name", ["notes.txt", "hcc_ops_trace.txt"])
def test_other_text_not_claimed(tmp_path, name):
    p = tmp_path / name
    p.write_text("hello world\n")
    assert sniff(p) is None
