"""Held-back real traces, rocprof v1 of ROCm 4: a device id below every GPU agent's HSA node is a HIP ordinal.

dalg24/kokkos @ d60b181a (rocprof v1, ROCm 4, 2021; results.db / results.json / results.sysinfo.txt): all 14 OPS and
30 COPY rows carry ``dev-id`` 0; the rocminfo beside them lists four CPU agents (HSA nodes 0–3, "AMD EPYC 7601") and
four GPU agents (nodes 4–7, "Vega 20", gfx906, 64 CUs). A GPU op cannot run on node 0, a CPU agent: that rocprof
wrote the HIP device ordinal (later rocprof v1 writes the node: Gunrock's and HGLiu1998's MI300X runs put their
work on id 2 with GPU nodes 2–9). gpulens listed device 0 as "not recorded" beside "also recorded, no GPU work on
it: Vega 20" — though the work ran on one of four identical Vega 20s.

Which GPU the ordinal names is unknown (HIP_VISIBLE_DEVICES may renumber them), so the device record takes the
agents' hardware only when every GPU agent of the rank is the same (marketing name, gfx arch, CU count); otherwise,
and for an id that is not below every GPU node, its hardware stays unknown. The tests build the rows in tmp_path
beside this repository's Gunrock MI300X rocminfo (2 CPU agents, nodes 0–1; 8 GPU agents, nodes 2–9, 304 CUs).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from gpulens.collectors import collect

SYSINFO = Path(__file__).parent / "data" / "rocprof" / "v1_gunrock_mi300x" / "results.sysinfo.txt"


def _run(tmp_path: Path, dev_id: int, sysinfo: str | None = None) -> Path:
    (tmp_path / "results.sysinfo.txt").write_text(sysinfo if sysinfo is not None else SYSINFO.read_text())
    db = tmp_path / "results.db"
    con = sqlite3.connect(db)
    con.executescript(f'''
        CREATE TABLE OPS ("BeginNs" INTEGER, "EndNs" INTEGER, "dev-id" INTEGER, "queue-id" INTEGER, "Name" TEXT);
        INSERT INTO OPS VALUES (84118793119821, 84118793130541, {dev_id}, 0, 'init_lock_array_kernel_atomic()'),
                               (84118802490343, 84118802643783, {dev_id}, 0, 'hip_parallel_launch_local_memory');
    ''')
    con.commit()
    con.close()
    return db


def _device(tl, device_id: int) -> dict:
    (d,) = [d for d in tl.meta.devices if int(d["device_id"]) == device_id]
    return d


def test_ordinal_below_identical_gpu_agents_takes_their_hardware(tmp_path):
    for dev_id in (0, 1):  # both name a CPU agent of the rocminfo (nodes 0 and 1)
        run = tmp_path / f"run{dev_id}"
        run.mkdir()
        tl = collect(_run(run, dev_id))
        d = _device(tl, dev_id)
        assert (d["gfx_arch"], d["num_sms"], d["warp_size"]) == ("gfx942", 304, 64)  # the rocminfo's GPU agents
        assert d.get("gpu_index") is None  # which of the eight is unknown: no agent index is claimed
        (w,) = [w for w in tl.meta.warnings if "HIP device ordinal" in w]
        assert "2 GPU events on device %d" % dev_id in w and "HSA nodes 2–9" in w and "all 8 GPU agents" in w
        assert not any("dangling device id" in x for x in tl.meta.warnings)


def test_ordinal_below_differing_gpu_agents_keeps_hardware_unknown(tmp_path):
    text = SYSINFO.read_text()
    first_gpu_cus = text.index("Compute Unit:            304")
    mixed = text[:first_gpu_cus] + "Compute Unit:            228" + text[first_gpu_cus + len("Compute Unit:            304"):]
    tl = collect(_run(tmp_path, 0, mixed))
    assert _device(tl, 0).get("gfx_arch") is None and _device(tl, 0).get("name") is None
    assert any("dangling device id" in w for w in tl.meta.warnings)


def test_id_above_the_gpu_nodes_is_still_dangling(tmp_path):
    tl = collect(_run(tmp_path, 12))  # beyond node 9: not an ordinal below the agents, a damaged id
    assert _device(tl, 12).get("gfx_arch") is None
    assert any("dangling device id" in w for w in tl.meta.warnings)
    assert not any("HIP device ordinal" in w for w in tl.meta.warnings)
