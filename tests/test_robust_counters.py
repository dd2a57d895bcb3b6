"""Counter values no run can have, in every collector that reads counters: a cell that is no number (counted, left
out of the mean) and a percentage above 100 (rocprof ``GPUBusy`` 150, a Kineto occupancy estimate of 150 %, an ncu
``%`` metric above 100: dropped, unknown, counted — one rule, :mod:`gpulens.timeline.percent`).

Inputs are written inline (rocprof v1 header of a real rocprof v1 counter-mode file); expected means are hand sums.
"""

from __future__ import annotations

import gzip
import json

import gpulens
from gpulens.collectors import collect

from .test_rocprofv3 import _tiny_v3_json

_HEAD = ("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,wave_size,"
         "sig,obj,GPUBusy,Wavefronts\n")
K = "vadd(float*, int) [clone .kd]"


def _pmc(tmp_path, busy: list[str], waves: list[str] | None = None):
    waves = waves or ["16.0"] * len(busy)
    rows = [f'{i},"{K}",4,0,0,1,1,1024,256,0,0,8,0,16,64,0x0,0x7f,{b},{w}\n' for i, (b, w) in
            enumerate(zip(busy, waves))]
    p = tmp_path / "pmc_results.csv"
    p.write_text(_HEAD + "".join(rows))
    return gpulens.analyze([p]).sources[0]


def test_rocprof_v1_non_numeric_counter_cell_is_counted_and_left_out(tmp_path):
    src = _pmc(tmp_path, ["100.0", "n/a", "80.0"], ["16.0", "32.0", "#REF!"])
    row = src.results["kernel_counters"].table.set_index("name").loc[K]
    assert row["GPUBusy"] == 90.0       # (100 + 80) / 2: 'n/a' left out
    assert row["Wavefronts"] == 24.0    # (16 + 32) / 2: '#REF!' left out
    assert row["dispatches"] == 3
    w = [x for x in src.timeline.meta.warnings if "not numbers" in x]
    assert len(w) == 1 and "2 counter values are not numbers (e.g. 'n/a' in GPUBusy)" in w[0]


def test_rocprofv3_counter_collection_text_value_is_counted(tmp_path):
    p = tmp_path / "counter_collection.csv"
    head = ('"Correlation_Id","Dispatch_Id","Agent_Id","Queue_Id","Process_Id","Thread_Id","Grid_Size","Kernel_Id",'
            '"Kernel_Name","Workgroup_Size","LDS_Block_Size","Scratch_Size","VGPR_Count","SGPR_Count","Counter_Name",'
            '"Counter_Value"\n')
    row = '{0},{0},1,1,7,7,1024,16,"k(float*)",64,0,0,8,16,"SQ_WAVES",{1}\n'
    p.write_text(head + row.format(1, "16") + row.format(2, "garbage") + row.format(3, "48"))
    tl = collect(p)
    u = tl.tables["unattached_counters"]
    assert sorted(u.loc[u["metric"] == "SQ_WAVES", "value"].tolist()) == [16.0, 48.0]
    assert any("1 counter value is not a number (e.g. 'garbage' in SQ_WAVES)" in w for w in tl.meta.warnings)


def test_rocprofv3_json_counter_value_of_the_wrong_type_keeps_the_file(tmp_path):
    # _tiny_v3_json: dispatch 2 has two SQ_WAVES records (3.0 + 1.0); one becomes text: the other is kept (1.0)
    p = tmp_path / "77_results.json.gz"
    _tiny_v3_json(p)
    doc = json.loads(gzip.decompress(p.read_bytes()))
    doc["rocprofiler-sdk-tool"][0]["callback_records"]["counter_collection"][0]["records"][0]["value"] = "x"
    p.write_bytes(gzip.compress(json.dumps(doc).encode()))
    tl = collect(p)
    assert len(tl.of_kind("kernel")) == 2
    assert tl.counters.loc[tl.counters["metric"] == "SQ_WAVES", "value"].tolist() == [1.0]
    assert any("1 counter value is not a number (e.g. 'x' in SQ_WAVES)" in w for w in tl.meta.warnings)


def test_gpubusy_above_100_is_unknown_and_counted(tmp_path):
    src = _pmc(tmp_path, ["100.0", "150.0", "80.0"])
    kc = src.results["kernel_counters"]
    assert kc.table.set_index("name").loc[K, "GPUBusy"] == 90.0   # (100 + 80) / 2: 150 % is no measurement
    assert kc.columns["GPUBusy"].endswith("[%]")                  # a percentage (rocprof: "percentage of time")
    assert any(w.startswith("1 per-kernel percentage counter value above 100 dropped") and "GPUBusy" in w
               for w in src.timeline.meta.warnings)


def test_gpubusy_above_100_of_a_timestamped_dispatch_is_dropped(tmp_path):
    # rocprof v1 --timestamp on: two dispatches with GPUBusy 150 and 40; only 40 stays
    p = tmp_path / "results.csv"
    p.write_text("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,"
                 "wave_size,sig,obj,DispatchNs,BeginNs,EndNs,CompleteNs,GPUBusy\n"
                 f'0,"{K}",2,0,1,1,1,1024,256,0,0,8,8,16,64,0,1,100000,100500,160500,161000,150.0\n'
                 f'1,"{K}",2,0,2,1,1,1024,256,0,0,8,8,16,64,0,2,170000,170400,180400,181000,40.0\n')
    tl = collect(p)
    assert tl.counters.loc[tl.counters["metric"] == "GPUBusy", "value"].tolist() == [40.0]
    assert any(w.startswith("1 percentage counter value above 100 dropped") for w in tl.meta.warnings)


def test_kineto_occupancy_estimate_above_100_is_dropped(tmp_path):
    ev = {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 5,
          "args": {"device": 0, "stream": 7, "correlation": 1, "est. achieved occupancy %": 150}}
    ok = dict(ev, ts=20, args=dict(ev["args"], **{"est. achieved occupancy %": 50}))
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": [ev, ok]}))
    tl = collect(p)
    occ = tl.counters[tl.counters["metric"] == "kineto.est_achieved_occupancy_pct"]
    assert occ["value"].tolist() == [50.0]
    assert any(w.startswith("1 percentage counter value above 100 dropped") for w in tl.meta.warnings)


def test_percentage_of_exactly_100_is_kept(tmp_path):
    # 100 % is a measurement (a GPU busy the whole kernel)
    src = _pmc(tmp_path, ["100.0", "100.0"])
    assert src.results["kernel_counters"].table.set_index("name").loc[K, "GPUBusy"] == 100.0
    assert not any("above 100" in w for w in src.timeline.meta.warnings)


def test_rocpd_counter_whose_only_value_is_unreadable_is_unknown_not_zero(tmp_path):
    # test_rocpd layout B: event 101 has SQ_WAVES 16 and GRBM_GUI_ACTIVE 5000; make the 5000 text. A sum of no
    # value was 0 before (pivot_table's sum); it is unknown now, and counted among the values of the wrong type.
    import sqlite3

    from .test_rocpd import build_layout_b

    p = tmp_path / "results.db"
    build_layout_b(p)
    con = sqlite3.connect(p)
    con.execute("UPDATE rocpd_pmc_event SET value='abc' WHERE pmc_id=8")
    con.commit()
    con.close()
    tl = collect(p)
    assert not (tl.counters["metric"] == "GRBM_GUI_ACTIVE").any()
    assert 16.0 in tl.counters.loc[tl.counters["metric"] == "SQ_WAVES", "value"].tolist()
    assert any("1 value of the wrong type read as unknown (rocpd_pmc_event ×1)" in w for w in tl.meta.warnings)
