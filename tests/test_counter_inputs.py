"""Counter-collection and summary-only inputs (issue 14.4): busy time unknown, never 0 or 100 %; analysable, exit 0.

Expected values are read off the small inputs written in each test (or, for the committed ncu file, from its own
rows with the csv module).
"""

from __future__ import annotations

import json
import re

import gpulens
from gpulens.cli import main
from gpulens.reports import console, json_report, markdown
from tests.conftest import DATA

# rocprof v1 counter mode (pmc: GPUBusy Wavefronts), no --timestamp: the header of a real rocprof v1 file
PMC_CSV = (
    "Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,wave_size,sig,obj,"
    "GPUBusy,Wavefronts\n"
    '0,"vector_add(float*, float*, float*, int) [clone .kd]",4,0,0,1,1,1000000000,256,0,0,8,0,16,64,0x0,0x7f,'
    "100.0,15625000.0\n"
    '1,"vector_add(float*, float*, float*, int) [clone .kd]",4,0,0,1,1,1000000000,256,0,0,8,0,16,64,0x0,0x7f,'
    "90.0,15625000.0\n"
    '2,"scale(float*, int) [clone .kd]",4,0,0,1,1,1024,256,0,0,8,0,16,64,0x0,0x7f,10.0,16.0\n')



def test_rocprof_counter_csv_without_timestamps_is_analysable(tmp_path):
    p = tmp_path / "pmc_results.csv"
    p.write_text(PMC_CSV)
    assert main(["analyze", str(p), "--no-cache", "-q", "--json", str(tmp_path / "r.json")]) == 0   # not exit 5
    rep = gpulens.analyze([p])
    src = rep.sources[0]
    assert src.status == "ok"
    t = src.results["kernel_counters"].table.set_index("name")
    va = t.loc["vector_add(float*, float*, float*, int) [clone .kd]"]
    assert va["dispatches"] == 2 and va["GPUBusy"] == 95.0            # (100 + 90) / 2
    assert t.loc["scale(float*, int) [clone .kd]", "Wavefronts"] == 16.0
    sm = src.summary
    assert sm["kernel_count"] == 3 and sm["gpu_busy_pct"] is None and sm["span_ns"] is None
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["status"] == "ok" and doc["sources"][0]["summary"]["gpu_busy_pct"] is None
    for text in (console.render(rep), markdown.render(rep)):
        # no busy figure of 0.0 % (GPUBusy's 10.0 % mean of `scale` is a real figure: hence the look-behind)
        assert "unknown (not measured" in text and not re.search(r"(?<![\d.])0\.0 %", text) and "None" not in text


def test_rocprof_stats_csv_is_ranked_like_an_nsys_summary(tmp_path):
    p = tmp_path / "results.stats.csv"
    p.write_text('"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n'
                 '"fd_z_kernel",100,374067410,3740674,70.0\n"fd_xy_kernel",50,160000000,3200000,30.0\n')
    rep = gpulens.analyze([p])
    src = rep.sources[0]
    assert src.status == "ok"
    hs = src.results["hotspots"].table
    assert hs["name"].tolist() == ["fd_z_kernel", "fd_xy_kernel"]
    assert hs["total_ns"].tolist() == [374_067_410, 160_000_000] and hs["calls"].tolist() == [100, 50]
    assert src.summary["kernel_count"] == 150 and src.summary["gpu_busy_pct"] is None
    assert src.results["verdicts"].summary["run_verdict"] != "gpu-bound"   # no busy figure to rest on
    assert "busy 100" not in console.render(rep)


def test_ncu_replay_has_no_busy_or_idle_figures():
    rep = gpulens.analyze([DATA / "nvidia" / "codegandee_rtx5090_ncu-v2_kernel_0010_details.csv"])
    src = rep.sources[0]
    bd = src.results["breakdown"]
    assert bd.skipped and bd.skipped_reason.startswith("no workload timeline: counter-collection run")
    assert src.summary["gpu_busy_pct"] is None and src.summary["idle_ns"] is None
    assert not any(f.category == "gpu-idle" for f in src.findings())
    text = console.render(rep)
    assert "busy 100" not in text and "idle" not in text.lower().split("findings")[-1]
    assert src.results["verdicts"].summary["run_verdict"] == "memory-bound"   # from its speed-of-light counters
    assert json.loads(json_report.render(rep))["sources"][0]["summary"]["span_ns"] is None
