"""Held-back real traces, rocprof v1 run folder: a folder read by a folder collector gets the device check a file gets.

dalg24/kokkos @ d60b181a (rocprof v1 of ROCm 4, 2021): ``results.db`` / ``results.json`` put every kernel and copy
on ``dev-id`` 0, while the ``results.sysinfo.txt`` beside them lists four CPU agents (HSA nodes 0–3) and four
"Vega 20" GPU agents (nodes 4–7). Read as a file, the GPU events' device 0 got a device record of its own (with a
warning) like any device the file's records lack. Read as the run folder, the folder collector's
Timeline skipped that step: the report's time breakdown named "GPU 0 of rank 0", which was not among the report's
devices (``tests/report_invariants.violations``: "breakdown: GPU 0 of rank 0 is not among the devices").

Every folder collector's Timeline now gets the same check (``collectors._unlisted.add_unlisted``). The test builds
the folder's shape in tmp_path: a ``results.db`` with the OPS/COPY rows on dev-id 0 (values as in the Kokkos
file) beside a rocminfo whose GPU agents are HSA nodes 2–9 (this repository's Gunrock MI300X dump).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from gpulens.cli import main
from gpulens.collectors import collect
from tests.report_invariants import violations

SYSINFO = Path(__file__).parent / "data" / "rocprof" / "v1_gunrock_mi300x" / "results.sysinfo.txt"


def _kokkos_like_folder(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.sysinfo.txt").write_bytes(SYSINFO.read_bytes())  # GPU agents: HSA nodes 2–9, gfx942
    con = sqlite3.connect(run / "results.db")
    con.executescript('''
        CREATE TABLE OPS ("BeginNs" INTEGER, "EndNs" INTEGER, "dev-id" INTEGER, "queue-id" INTEGER, "Name" TEXT,
                          "pid" INTEGER, "tid" INTEGER, "Index" INTEGER, "proc-id" INTEGER, "Data" TEXT,
                          "DurationNs" INTEGER);
        INSERT INTO OPS VALUES (84118793119821, 84118793130541, 0, 0, 'init_lock_array_kernel_atomic()',
                                6, 1, 0, 216796, '', 10720),
                               (84118802490343, 84118802643783, 0, 0, 'hip_parallel_launch_local_memory', 6, 1, 2,
                                216796, '', 153440);
        CREATE TABLE COPY ("BeginNs" INTEGER, "EndNs" INTEGER, "dev-id" INTEGER, "queue-id" INTEGER, "Name" TEXT,
                           "pid" INTEGER, "tid" INTEGER, "Index" INTEGER, "proc-id" INTEGER, "Data" TEXT,
                           "DurationNs" INTEGER);
        INSERT INTO COPY VALUES (84118792065994, 84118792106673, 0, 0, 'CopyHostToDevice', 1, 0, 0, 216796, '',
                                 40679);
    ''')
    con.commit()
    con.close()
    return run


def test_folder_devices_list_every_device_its_gpu_events_use(tmp_path):
    run = _kokkos_like_folder(tmp_path)
    tl = collect(run)
    gpu = tl.events[tl.events["kind"].isin(["kernel", "memcpy", "memset"])]
    used = {(int(r), int(d)) for r, d in zip(gpu["rank"], gpu["device_id"])}
    assert used == {(0, 0)}  # the rows' dev-id, as recorded
    listed = {(int(d["rank"]), int(d["device_id"])) for d in tl.meta.devices}
    assert used <= listed
    # device 0 lies below every GPU agent (nodes 2–9): a HIP ordinal, its hardware that of the eight alike agents
    # (tests/test_trust_s32_real_v1_ordinal.py)
    assert {int(d["device_id"]) for d in tl.meta.devices if d.get("gfx_arch") == "gfx942"} == {0} | set(range(2, 10))
    assert any("HIP device ordinal" in w for w in tl.meta.warnings)


def test_folder_report_keeps_the_invariants(tmp_path):
    run = _kokkos_like_folder(tmp_path)
    out = tmp_path / "o.json"
    assert main(["analyze", "-q", "--no-cache", str(run), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert violations(report) == []
    src = report["sources"][0]
    # the three rows' own figures: 2 kernels, 10720 + 153440 ns; GPU span first copy start → last kernel end
    assert (src["summary"]["kernel_count"], src["summary"]["kernel_time_ns"]) == (2, 10720 + 153440)
    assert src["summary"]["span_ns"] == 84118802643783 - 84118792065994
