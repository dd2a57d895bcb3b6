"""rocprof v1 ``results.json``: a GPU record's device is its ``dev-id``, else its ``gpu-id``, else the number of its
``GPU<n>`` track — never device 0 by default.

Found on a real input: hpcgarage/spatter @ e4c7a77 ``build-debug/results.{json,csv,sysinfo.txt}`` (rocprof v1 on an
MI210 whose rocminfo lists 8 CPU agents first): the 520 kernels of results.json sit on track ``GPU8`` (pid 14) with
``args["gpu-id"] = "8"`` and no ``dev-id``; results.csv gives them ``gpu-id`` 8 and the sysinfo names agent 8 the
MI210. results.json was read as "GPU 0" (a device no record lists), results.csv as "GPU 8".

Hand-made results.json in that layout; device numbers read from the file's own fields.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpulens.collectors import collect


def _doc(args_extra):
    ev = [{"args": {"name": "COPY"}, "ph": "M", "pid": 1, "name": "process_name", "sort_index": 0},
          {"args": {"name": "GPU0"}, "ph": "M", "pid": 6, "name": "process_name", "sort_index": 1},
          {"args": {"name": "GPU8"}, "ph": "M", "pid": 14, "name": "process_name", "sort_index": 17}]
    for i in range(2):
        b = 1_000_000 + i * 50_000
        args = {"KernelName": "hip_scatter", "BeginNs": str(b), "EndNs": str(b + 30_000), "DurationNs": "30000",
                **args_extra}
        ev.append({"ph": "X", "name": "hip_scatter", "pid": 14, "tid": 5, "ts": str(b // 1000), "dur": "30",
                   "args": args})
    return {"traceEvents": ev}


def _devices(tmp_path, args_extra):
    d = tmp_path / "run"
    d.mkdir()
    p = d / "results.json"
    p.write_text(json.dumps(_doc(args_extra)))
    tl = collect(p)
    k = tl.events[tl.events["kind"] == "kernel"]
    return sorted(set(k["device_id"].astype(int)))


def test_gpu_id_of_converted_kernel_records(tmp_path):
    assert _devices(tmp_path, {"gpu-id": "8", "queue-id": "0"}) == [8]


def test_track_number_when_no_id_is_recorded(tmp_path):
    assert _devices(tmp_path, {}) == [8]  # the record sits on track GPU8


def test_dev_id_still_first(tmp_path):
    assert _devices(tmp_path, {"dev-id": "3", "gpu-id": "8"}) == [3]


SPATTER = Path(__file__).parent / "data" / "rocprof" / "v1_spatter_mi210"


@pytest.mark.parametrize("name", ["results.json", "results.csv"])
def test_spatter_files_of_one_run_name_one_gpu(name):
    # counted from the files: 520 kernel records, all gpu-id 8 (results.json: track GPU8, pid 14; results.csv:
    # column gpu-id), Σ EndNs − BeginNs = 13,534,918,164 ns; results.sysinfo.txt: agent node 8 = "AMD Instinct
    # MI210", 104 CUs
    tl = collect(SPATTER / name)
    k = tl.events[tl.events["kind"] == "kernel"]
    assert len(k) == 520
    assert set(k["device_id"].astype(int)) == {8}
    assert int(k["dur_ns"].sum()) == 13_534_918_164
    (dev,) = [d for d in tl.meta.devices if d.get("device_id") == 8]
    assert dev["name"] == "AMD Instinct MI210"
