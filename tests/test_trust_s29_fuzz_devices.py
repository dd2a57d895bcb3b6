"""s29 fuzzing: GPU events on a device the file's own device records do not list (a dangling agent id).

Found by mutating rocprofv3 JSON (``dispatch_info.agent_id.handle`` set to a value no ``agents`` record has) and
rocpd (``rocpd_kernel_dispatch.agent_id`` naming no ``rocpd_info_agent`` row): the breakdown named a GPU that the
report's ``devices`` lacked (tests/report_invariants.py) and nothing said why. The device is now listed with an
unknown name and a warning counts the events on it.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

from gpulens.cli import main

sys.path.insert(0, str(Path(__file__).parent))
from report_invariants import violations  # noqa: E402

T = 1_000_000_000


def _agent(handle: int, node: int) -> dict:
    return {"id": {"handle": handle}, "type": 2, "node_id": node, "name": "gfx942",
            "product_name": "AMD Instinct MI300X", "cu_count": 304, "wave_front_size": 64}


def _v3(agents: list[int]) -> dict:
    """Two GPU agents (handles 11, 12 → nodes 2, 3); one dispatch per entry of ``agents`` (its agent handle), 10 µs
    each, 20 µs apart."""
    info = lambda i, h: {"agent_id": {"handle": h}, "queue_id": {"handle": 5}, "kernel_id": 0,  # noqa: E731
                         "dispatch_id": i, "workgroup_size": {"x": 64, "y": 1, "z": 1},
                         "grid_size": {"x": 64, "y": 1, "z": 1}}
    return {"rocprofiler-sdk-tool": [{
        "metadata": {"pid": 1}, "agents": [_agent(11, 2), _agent(12, 3)],
        "kernel_symbols": [{"kernel_id": 0, "formatted_kernel_name": "k"}],
        "buffer_records": {"kernel_dispatch": [
            {"start_timestamp": T + 20_000 * i, "end_timestamp": T + 20_000 * i + 10_000,
             "correlation_id": {"internal": i}, "dispatch_info": info(i, h)} for i, h in enumerate(agents)]}}]}


def _report(tmp_path, p) -> dict:
    out = tmp_path / "r.json"
    try:
        code = main(["analyze", str(p), "-q", "--no-cache", "--json", str(out)])
    except SystemExit as e:
        code = e.code
    assert code == 0
    return json.loads(out.read_text())


def test_v3_dispatch_on_unlisted_agent_is_a_listed_unknown_device_and_warned_once(tmp_path):
    """An agent handle is opaque (not a device number): the two dispatches naming a handle no agent record lists
    stand on device 0, which the devices list with hardware unknown; one warning counts them."""
    p = tmp_path / "x_results.json"
    p.write_text(json.dumps(_v3([11, 12, 987654, 987654])))  # two dispatches name an agent the file lacks
    rep = _report(tmp_path, p)
    src = rep["sources"][0]
    devs = {d["device_id"]: d for d in src["devices"]}
    assert 987654 not in devs and 0 in devs and devs[0]["name"] is None  # listed, hardware unknown
    assert {2, 3} <= set(devs)
    warn = [w for w in src["warnings"] if "device 0" in w]
    assert len(warn) == 1 and "2 GPU rows" in warn[0] and "x_results.json" in warn[0]
    assert not [v for v in violations(rep) if "not among the devices" in v]


def test_v3_all_listed_adds_nothing(tmp_path):
    p = tmp_path / "x_results.json"
    p.write_text(json.dumps(_v3([11, 12, 11])))
    src = _report(tmp_path, p)["sources"][0]
    assert sorted(d["device_id"] for d in src["devices"]) == [2, 3]
    assert not [w for w in src["warnings"] if "dangling" in w]


def test_rocpd_dispatch_on_unlisted_agent(tmp_path):
    seed = Path(__file__).parents[2] / "shared" / "cases" / "T12.rocpd_two_procs" / "4242_results.db"
    if not seed.exists():
        pytest.skip("../shared/cases absent")
    p = tmp_path / "4242_results.db"
    p.write_bytes(seed.read_bytes())
    con = sqlite3.connect(p)
    t = con.execute("select name from sqlite_master where type='table' and name like 'rocpd_kernel_dispatch%'").fetchone()[0]
    n = con.execute(f'update "{t}" set agent_id = 99 where id = (select max(id) from "{t}")').rowcount
    con.commit()
    con.close()
    assert n == 1
    src = _report(tmp_path, p)["sources"][0]
    assert 99 in {d["device_id"] for d in src["devices"]}
    assert [w for w in src["warnings"] if "1 GPU event on device 99" in w]
