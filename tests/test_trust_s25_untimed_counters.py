"""rocprof v1 counter passes without timestamps (``pmc: FETCH_SIZE WRITE_SIZE``) beside the run's
``results.stats.csv``: the kernels are known (calls, total time, counters, launch configuration per dispatch), so

* no analysis may skip with "no compute kernels in the trace" beside a report listing their launches, and the run
  verdict may not say "no counters" when counters were read;
* ``FETCH_SIZE`` / ``WRITE_SIZE`` are KiB — "The total kilobytes fetched from / written to the video memory",
  expression (bytes) / 1024 (ROCm/rocprofiler ``test/tool/metrics.xml``, rocprofiler-sdk ``counter_defs.yaml``) —
  not a ratio;
* their bytes, 1,024 × (FETCH_SIZE + WRITE_SIZE), over the kernel's mean duration from the stats give the DRAM side
  of the speed of light; the dispatches' ``wgr`` / ``arch_vgpr`` / ``lds`` give the theoretical occupancy.

Hand calculation (the synthetic folder below, analysed as one GCD of an MI250X: 1,638.4 GB/s, gfx90a):
``stencil_kernel`` 2 dispatches, FETCH_SIZE 1,000,000 and 1,200,000 KiB, WRITE_SIZE 200,000 KiB each → mean
(1,100,000 + 200,000) KiB × 1,024 = 1,331,200,000 B per dispatch; stats: 2 calls, 2,000,000 ns → mean 1 ms →
1,331.2 GB/s = 81.25 % of 1,638.4 GB/s (≥ 80 %: the memory side saturated, Nsight Compute's SOLBottleneck rule).
Occupancy: wgr 256 = 4 waves of 64; arch_vgpr 128 → 512 / 128 = 4 waves per SIMD × 4 SIMDs = 16 waves per CU =
4 blocks; 16 of 32 wave slots = 50 %, registers the limiter.
"""

from __future__ import annotations

import json

import pytest

import gpulens
from gpulens.collectors import collect
from gpulens.reports import json_report
from gpulens.reports._format import fmt_unit
from tests.conftest import shared_trace

_V1 = "Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,wave_size,sig,obj"
_STATS = '"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n'
MI250X_BW = 1638.4e9  # bytes/s, one GCD (devices/amd.py: 3,277 GB/s per package, halved)


def _pass_folder(tmp_path, with_counters: bool = True, with_stats: bool = True):
    if with_counters:
        rows = [(0, "init_kernel", 1024, 10.0, 0.0, 32), (1, "stencil_kernel", 1048576, 1_000_000.0, 200_000.0, 128),
                (2, "stencil_kernel", 1048576, 1_200_000.0, 200_000.0, 128)]
        (tmp_path / "data_movement.csv").write_text(
            _V1 + ",FETCH_SIZE,WRITE_SIZE\n" + "".join(
                f'{i},"{n}",8,0,{i},12705,12705,{grd},256,0,0,{vgpr},0,48,64,0x0,0x7f00,{f:.4f},{w:.4f}\n'
                for i, n, grd, f, w, vgpr in rows))
    if with_stats:
        (tmp_path / "results.stats.csv").write_text(_STATS + '"stencil_kernel",2,2000000,1000000,99.5\n'
                                                             '"init_kernel",1,10000,10000,0.5\n')
    return tmp_path


def test_counter_pass_kernels_are_analysed_not_called_absent(tmp_path):
    s = gpulens.analyze([_pass_folder(tmp_path)], device_spec="MI250X").sources[0]
    assert s.results["hotspots"].summary["kernel_count"] == 3
    for name in ("roofline", "occupancy", "speed_of_light", "hierarchical_roofline"):
        r = s.results[name]
        assert not (r.skipped and "no compute kernels" in r.skipped_reason), (name, r.skipped_reason)
    # no FLOP counter was collected: the roofline says that, which is true — and shows the bandwidth its byte
    # counters give (session 41): (1,000,000 + 200,000 + 1,200,000 + 200,000) KiB in the stats' 2 ms = 1,331.2 GB/s
    rf = s.results["roofline"]
    assert not rf.skipped and any(f.title.startswith("FLOPs known for 0.0 %") for f in rf.findings)
    rrow = rf.table.set_index("name").loc["stencil_kernel"]
    assert rrow["flops"] != rrow["flops"] and rrow["roof_pct"] != rrow["roof_pct"]
    assert rrow["bytes_per_s"] == pytest.approx(2_600_000 * 1024 / 2e-3)

    sol = s.results["speed_of_light"].table.set_index("name")
    st = sol.loc["stencil_kernel"]
    assert st["dram_bytes"] == pytest.approx((1_100_000 + 200_000) * 1024)          # 1,331,200,000 B
    assert st["memory_throughput"] == pytest.approx(1_331_200_000 / 1e-3)            # 1,331.2 GB/s
    assert st["dram_pct"] == pytest.approx(100 * 1_331_200_000 / 1e-3 / MI250X_BW)   # 81.25 %
    assert st["dram_pct"] == pytest.approx(81.25)
    assert int(st["calls"]) == 2 and int(st["time_ns"]) == 2_000_000                   # the stats' total
    assert st["bound"] == "memory"                                                      # ≥ 80 % of its peak
    assert "FETCH_SIZE" in st["evidence"] and "mean duration" in st["evidence"]

    occ = s.results["occupancy"].table.set_index("name").loc["stencil_kernel"]
    assert (int(occ["block_size"]), int(occ["regs_per_thread"])) == (256, 128)
    assert occ["theoretical_occupancy_pct"] == pytest.approx(50.0) and occ["limiter"] == "registers"

    basis = s.results["verdicts"].summary["basis"]
    assert "no counters" not in basis


def test_fetch_and_write_size_are_labelled_kib(tmp_path):
    folder = _pass_folder(tmp_path)
    tl = collect(folder)
    un = tl.tables["unattached_counters"]
    assert set(un.loc[un["metric"].isin(["FETCH_SIZE", "WRITE_SIZE"]), "unit"]) == {"KiB"}
    rep = gpulens.analyze([folder], device_spec="MI250X")
    kc = rep.sources[0].results["kernel_counters"]
    assert kc.columns["FETCH_SIZE"].endswith("[KiB]") and kc.columns["WRITE_SIZE"].endswith("[KiB]")
    assert kc.table.set_index("name").loc["stencil_kernel", "FETCH_SIZE"] == 1_100_000  # as recorded, in KiB
    doc = json.loads(json_report.render(rep))
    cols = doc["sources"][0]["analyses"]["kernel_counters"]["columns"]
    assert "[ratio]" not in cols["FETCH_SIZE"] and "[KiB]" in cols["FETCH_SIZE"]
    assert fmt_unit(3_771_551, "KiB") == "3.86 GB"  # 3,771,551 × 1,024 B, shown in bytes


def test_timed_rocprof_v1_trace_with_fetch_write_has_a_dram_figure(tmp_path):
    """The same counters on a timed dispatch (``--timestamp on``): 1,300,000 KiB in 1 ms = 81.25 % of 1,638.4 GB/s."""
    p = tmp_path / "results.csv"
    p.write_text(_V1 + ",DispatchNs,BeginNs,EndNs,CompleteNs,FETCH_SIZE,WRITE_SIZE\n"
                 '0,"k",8,0,0,1,1,1048576,256,0,0,32,0,48,64,0x0,0x7f00,900,1000,1001000,1001000,1100000.0,200000.0\n')
    tl = collect(p)
    assert set(tl.counters.loc[tl.counters["metric"] == "FETCH_SIZE", "unit"]) == {"KiB"}
    s = gpulens.analyze([p], device_spec="MI250X").sources[0]
    row = s.results["speed_of_light"].table.set_index("name").loc["k"]
    assert row["dram_pct"] == pytest.approx(81.25) and row["dram_bytes"] == pytest.approx(1_300_000 * 1024)


@pytest.mark.parametrize("counters", [False, True])
def test_skip_reasons_name_what_the_input_holds(tmp_path, counters):
    """A stats summary alone, or a counter pass alone (no durations): never "no compute kernels"."""
    _pass_folder(tmp_path, with_counters=counters, with_stats=not counters)
    s = gpulens.analyze([tmp_path if counters else tmp_path / "results.stats.csv"], device_spec="MI250X").sources[0]
    # no analysis says the kernels are absent (they are listed: calls, totals, counters), whatever it needs
    false = ("no compute kernels", "no kernels in the trace", "0 ranks with GPU kernels", "no GPU events")
    said = {n: r.skipped_reason for n, r in s.results.items() if r.skipped}
    assert not {n: w for n, w in said.items() if any(f in w for f in false)}
    if counters:  # no durations: the bytes are known, a DRAM % is not; the occupancy needs no time
        sol = s.results["speed_of_light"].table.set_index("name").loc["stencil_kernel"]
        assert sol["dram_bytes"] == pytest.approx(1_331_200_000) and sol["dram_pct"] != sol["dram_pct"]
        assert not s.results["occupancy"].skipped
    else:  # totals only: nothing per launch to analyse, and the reason says what there is
        assert "per-kernel summary" in s.results["roofline"].skipped_reason


def test_a_trace_without_kernels_still_says_so(tmp_path):
    p = tmp_path / "empty.json"
    p.write_text(json.dumps({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1,
                                              "ts": 1.0, "dur": 2.0}]}))
    s = gpulens.analyze([p], device_spec="MI250X").sources[0]
    assert s.results["roofline"].skipped_reason == "no compute kernels in the trace"


def test_shared_seismic_compute_fd_z_dram_bandwidth():
    """SOURCES.md / the brief's hand check: compute_fd_z moves (3,771,551 + 523,638) KiB × 1,024 per dispatch in a
    3.7407 ms mean (results.stats.csv: 100 calls, 374,067,410 ns) ≈ 1,176 GB/s = 71.8 % of 1,638.4 GB/s."""
    path = shared_trace("rocprof/v1_pmc_seismic_mi250x")
    s = gpulens.analyze([path], device_spec="MI250X").sources[0]
    kc = s.results["kernel_counters"].table.set_index("name").loc["compute_fd_z_kernel"]
    byts = (kc["FETCH_SIZE"] + kc["WRITE_SIZE"]) * 1024
    assert round(kc["FETCH_SIZE"]) == 3_771_551 and round(kc["WRITE_SIZE"]) == 523_638
    row = s.results["speed_of_light"].table.set_index("name").loc["compute_fd_z_kernel"]
    assert row["memory_throughput"] == pytest.approx(byts / (374_067_410 / 100 * 1e-9), rel=1e-9)
    assert row["memory_throughput"] / 1e9 == pytest.approx(1176, abs=1)
    assert row["dram_pct"] == pytest.approx(71.8, abs=0.05)
    assert not s.results["occupancy"].skipped
