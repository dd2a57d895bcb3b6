"""Nsight Compute inputs: CSV (details page, raw page, --metrics) and .ncu-rep; ncu rule findings.

Expected values come from ../shared/traces/SOURCES.md (verified facts), ../shared/cases/README.md (case B20) or
the file text itself, quoted in the test.
"""

from __future__ import annotations

import sys

import pandas as pd
import pytest

from gpulens.analyzers.ncu_rules import NcuRules
from gpulens.collectors import collect, sniff
from gpulens.collectors._ncu_units import convert_unit, parse_dim3, parse_number
from gpulens.errors import DependencyError, TraceFormatError
from gpulens.report import analyze
from tests.conftest import CASES, DATA, shared_trace

NV = DATA / "nvidia"


def metric(tl, name, unit=None, event_id=0):
    """The one Counters value of ``name`` (and ``unit``) for a launch."""
    c = tl.counters
    sel = (c["metric"] == name) & (c["event_id"] == event_id)
    if unit is not None:
        sel &= c["unit"] == unit
    vals = c.loc[sel, "value"].tolist()
    assert len(vals) == 1, (name, unit, vals)
    return vals[0]


@pytest.mark.parametrize("text, unit, value, base", [
    ("1,234.56", "usecond", 1_234_560.0, "ns"), ("2.05", "msecond", 2_050_000.0, "ns"),
    ("111.81", "us", 111_810.0, "ns"), ("17.50", "Mbyte", 17_500_000.0, "bytes"),
    ("1,532.41", "Gbyte/second", 1.53241e12, "bytes/s"), ("812.50", "Mbyte/second", 8.125e8, "bytes/s"),
    ("1.5", "cycle/nsecond", 1.5e9, "cycles/s"), ("2.00", "Ghz", 2e9, "Hz"), ("224,652", "cycle", 224_652, "cycles"),
    ("2", "Kbyte/block", 2000.0, "bytes/block"), ("16.73", "%", 16.73, "%"), ("128", "register/thread", 128.0,
                                                                            "register/thread"),
])
def test_units_are_normalised_to_base(text, unit, value, base):
    f, b = convert_unit(unit)
    assert b == base and parse_number(text) * f == pytest.approx(value)


def test_number_and_dim3_parsing():
    assert parse_number("n/a") is None and parse_number("") is None and parse_number("(256, 1, 1)") is None
    assert parse_number("12,532,580,352") == 12_532_580_352 and parse_number("1,23") is None
    assert parse_dim3("(1, 8, 10)") == (1, 8, 10) and parse_dim3("256") == (256, None, None)


CODEGANDEE = [
    # file, name prefix, grid, block, Duration ns, achieved %, theoretical %, SM %, Memory Throughput % and B/s, rules
    ("codegandee_rtx5090_ncu-v2_kernel_0005_details.csv", "void Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x",
     (332, 1, 1), (256, 1, 1), 111_810, 16.73, 16.67, 32.10, 27.74, 156.55e9,
     {"SOLBottleneck", "SOLFPRoofline", "IssueSlotUtilization", "TheoreticalOccupancy"}),
    ("codegandee_rtx5090_ncu-v2_kernel_0010_details.csv", "void elementwise_kernel<128, 4,", (14400, 1, 1),
     (128, 1, 1), 94_910, 89.30, 100.0, 12.07, 93.99, 181.55e9, {"AchievedOccupancy"}),
    ("codegandee_rtx5090_ncu-v2_kernel_0013_details.csv", "void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4,",
     (1, 8, 10), (128, 1, 1), 10_340, 8.24, 8.33, 8.77, 26.00, 458.30e9, set()),
]


@pytest.mark.parametrize("fname, prefix, grid, block, dur, ach, theo, sm, mem_pct, mem_bps, rules", CODEGANDEE)
def test_codegandee_details_pages(fname, prefix, grid, block, dur, ach, theo, sm, mem_pct, mem_bps, rules):
    p = NV / fname
    assert sniff(p).name == "ncu_csv"
    tl = collect(p)
    ev = tl.events
    assert len(ev) == 1 and ev["name"].iloc[0].startswith(prefix)
    e = ev.iloc[0]
    assert (e["grid_x"], e["grid_y"], e["grid_z"]) == grid and (e["block_x"], e["block_y"], e["block_z"]) == block
    assert e["dur_ns"] == dur and e["start_ns"] == 0 and e["kind"] == "kernel" and e["stream_id"] == 7
    assert metric(tl, "Duration") == pytest.approx(dur)
    assert metric(tl, "gpu__time_duration.sum") == pytest.approx(dur)
    assert metric(tl, "Achieved Occupancy") == pytest.approx(ach)
    assert metric(tl, "Theoretical Occupancy") == pytest.approx(theo)
    assert metric(tl, "Compute (SM) Throughput") == pytest.approx(sm)
    # the same metric name in two sections: SOL (%) and Memory Workload Analysis (Gbyte/s), told apart by unit
    assert metric(tl, "Memory Throughput", "%") == pytest.approx(mem_pct)
    assert metric(tl, "Memory Throughput", "bytes/s") == pytest.approx(mem_bps)
    # the file's CC column says 12.0 and nothing names the GPU: the record keeps no name (never one the file does
    # not hold) and says which built-in CC 12.0 GPU (RTX 5090, the first of that capability) is assumed
    dev = tl.meta.devices[0]
    assert (dev["device_id"], dev["compute_capability"], dev["name"]) == (0, "12.0", None)
    assert dev["name_assumed"].startswith("NVIDIA GeForce RTX 5090 assumed")
    assert "assumed from compute capability 12.0" in dev["name_assumed"]
    assert rules <= set(tl.tables["ncu_rules"]["rule"])
    assert any("synthetic" in w for w in tl.meta.warnings)


@pytest.mark.parametrize("fname", [c[0] for c in CODEGANDEE])
def test_kbyte_prefixes_are_decimal(fname):
    """DRAM bytes (Mbyte) ≈ DRAM throughput (Gbyte/s) × Duration only with powers of 1000 on both units:
    with 1024-based prefixes the product would be 1.024 × (1.024³/1.024²) = 2.4 % larger than the bytes."""
    tl = collect(NV / fname)
    moved = metric(tl, "dram__bytes_read.sum") + metric(tl, "dram__bytes_write.sum")
    product = metric(tl, "Memory Throughput", "bytes/s") * metric(tl, "Duration") * 1e-9
    assert product == pytest.approx(moved, rel=0.005)


def test_codegandee_0005_counters_and_na():
    tl = collect(NV / "codegandee_rtx5090_ncu-v2_kernel_0005_details.csv")
    # 48 rows = 44 metric rows + 4 rule-only rows; 3 metric values are n/a (flop_count_hp.sum, flop_count_sp.sum,
    # sm__ops_path_tensor_src_bf16_dst_bf16.sum) and are missing, not 0
    assert len(tl.counters) == 41
    assert "flop_count_hp.sum" not in set(tl.counters["metric"])
    assert metric(tl, "sm__ops_path_tensor_src_bf16_dst_fp32.sum") == 12_532_580_352
    assert metric(tl, "SM Frequency") == pytest.approx(2.0e9) and metric(tl, "Elapsed Cycles") == 224_652
    r = tl.tables["ncu_rules"].set_index("rule")
    assert r.loc["IssueSlotUtilization", "speedup_type"] == "local"
    assert r.loc["IssueSlotUtilization", "estimated_speedup_pct"] == pytest.approx(67.9)
    assert r.loc["SOLFPRoofline", "type"] == "INF"


def test_ncu_rules_become_findings():
    tl = collect(NV / "codegandee_rtx5090_ncu-v2_kernel_0005_details.csv")
    res = NcuRules().analyze(tl)
    t = res.table.set_index("rule")
    # TheoreticalOccupancy: global 67.9 % of the 111,810 ns launch = 75,919 ns at stake (ncu's estimate)
    assert t.loc["TheoreticalOccupancy", "time_at_stake_ns"] == 75_919
    assert t.loc["TheoreticalOccupancy", "speedup_type"] == "global"
    # IssueSlotUtilization: the same 67.9 % typed "local" (the issue slots' efficiency in isolation): no time
    assert pd.isna(t.loc["IssueSlotUtilization", "time_at_stake_ns"])
    assert t.loc["IssueSlotUtilization", "speedup_type"] == "local"
    titles = [f.title for f in res.findings]
    assert any("TheoreticalOccupancy" in x and "up to 67.9 % less time" in x for x in titles)
    local = next(f for f in res.findings if "IssueSlotUtilization" in f.title)
    assert "less time" not in local.title and "local estimate" in local.title and local.time_at_stake_ns is None
    assert local.severity == "info"  # a local estimate alone makes no warning
    assert not any("SOLFPRoofline" in x for x in titles)  # INF: kept in the table, not a finding
    assert {f.severity for f in res.findings if "TheoreticalOccupancy" in f.title} == {"warning"}
    assert NcuRules().analyze(collect(NV / "olajide_rtx5070_metrics_saxpy.csv")).skipped


@pytest.mark.parametrize("name, dur, warps, sm, dram_read, hit", [
    ("gemm_naive", 9_589_248, 66.61, 97.32, 54_207_744, 100.39),
    ("gemm_tiled", 10_195_552, 66.65, 88.90, 53_261_312, 87.50),
    ("saxpy", 292_928, 83.82, 22.30, 134_221_568, 33.26),
    ("transpose_naive", 163_072, 41.24, 6.40, 19_001_600, 86.12),
])
def test_olajide_metrics_output_with_app_stdout(name, dur, warps, sm, dram_read, hit):
    tl = collect(NV / f"olajide_rtx5070_metrics_{name}.csv")
    over = hit > 100  # a hit rate above 100 % is no measurement: dropped (unknown), counted in a warning
    assert len(tl.events) == 1 and tl.events["dur_ns"].iloc[0] == dur and len(tl.counters) == 12 - over
    assert metric(tl, "sm__warps_active.avg.pct_of_peak_sustained_active") == pytest.approx(warps)
    assert metric(tl, "sm__throughput.avg.pct_of_peak_sustained_elapsed") == pytest.approx(sm)
    assert metric(tl, "dram__bytes_op_read.sum", "bytes") == dram_read
    if over:
        assert not (tl.counters["metric"] == "lts__t_sector_hit_rate.pct").any()
        assert any("1 percentage counter value above 100 dropped" in w and "lts__t_sector_hit_rate.pct" in w
                   for w in tl.meta.warnings)
    else:
        assert metric(tl, "lts__t_sector_hit_rate.pct") == pytest.approx(hit)
    assert tl.meta.devices[0]["compute_capability"] == "12.0"


@pytest.mark.parametrize("fname", ["B20.ncu_details_12col.csv", "B20.ncu_details_15col.csv"])
def test_b20_details_pages(fname):
    tl = collect(CASES / fname)
    ev = tl.events
    assert ev["name"].str.split("(").str[0].tolist() == ["gemm_kernel", "reduce_sum"]
    assert ev["dur_ns"].tolist() == [1_234_560, 2_050_000]  # 1,234.56 µs and 2.05 ms
    assert ev["start_ns"].tolist() == [0, 1_234_560]
    assert metric(tl, "Elapsed Cycles", event_id=0) == 1_845_220
    assert metric(tl, "Elapsed Cycles", event_id=1) == 3_060_000
    assert metric(tl, "Memory Throughput", event_id=0) == pytest.approx(1532.41e9)
    assert metric(tl, "Memory Throughput", event_id=1) == pytest.approx(0.8125e9)
    assert ev["regs_per_thread"].iloc[0] == 128
    assert not ((tl.counters["metric"] == "Achieved Occupancy")).any()  # n/a → missing
    if "15col" in fname:
        assert ev["block_x"].tolist() == [256, 1024] and ev["grid_x"].tolist() == [4096, 132]
        assert tl.meta.devices[0]["compute_capability"] == "9.0"


def test_b20_raw_page_units_row():
    tl = collect(CASES / "B20.ncu_raw.csv")
    assert tl.meta.sources[0]["layout"] == "raw"
    assert [metric(tl, "dram__bytes_read.sum", event_id=i) for i in (0, 1)] == pytest.approx([1.04858e9, 5.2e5])
    assert tl.events["dur_ns"].tolist() == [1_234_560, 2_050_000]
    assert [metric(tl, "sm__throughput.avg.pct_of_peak_sustained_elapsed", event_id=i) for i in (0, 1)] == \
        pytest.approx([71.30, 12.04])


def test_meinie_b200_raw_page():
    tl = collect(shared_trace("ncu/meinie_b200_raw_torch_sdpa_flash__gqa_bf16_b32_ctx8k_p64.ncu.csv"))
    ev = tl.events
    assert len(ev) == 16 and ev["name"].astype(str).str.startswith(
        "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, 0, 0, bfloat16_t,").all()
    assert tl.meta.devices[0]["name"] == "NVIDIA B200" and tl.meta.devices[0]["compute_capability"] == "10.0"
    e = ev.iloc[0]
    assert e["dur_ns"] == 740_608 and e["regs_per_thread"] == 255 and e["block_x"] == 128
    assert e["grid_x"] * e["grid_y"] * e["grid_z"] == 256 == metric(tl, "launch__grid_size")
    assert metric(tl, "launch__occupancy_limit_registers") == 2
    assert metric(tl, "launch__registers_per_thread") == 255
    assert int(ev["dur_ns"].sum()) == 11_869_152
    # synthetic sequential starts: each launch starts where the previous one ended
    assert (ev["start_ns"].iloc[1:].to_numpy() == (ev["start_ns"] + ev["dur_ns"]).iloc[:-1].to_numpy()).all()
    assert not tl.counters["metric"].astype(str).str.contains("stall").any()


def test_no_kernels_profiled_is_an_empty_timeline_not_an_error(tmp_path):
    p = tmp_path / "edge.ncu.csv"
    p.write_text("==PROF== Connected to process 1 (/usr/bin/python3.12)\n==PROF== Disconnected from process 1\n")
    for path in (p, shared_trace("ncu/meinie_b200_edge_no_kernels_profiled.ncu.csv")):
        tl = collect(path)
        assert len(tl.events) == 0 and any("no kernels profiled" in w for w in tl.meta.warnings)
        assert analyze([path]).sources[0].status == "no_gpu_work"


def test_csv_that_is_not_ncu_is_rejected(tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("a,b\n1,2\n")
    assert sniff(p) is None or sniff(p).name != "ncu_csv"
    with pytest.raises(TraceFormatError, match="no Nsight Compute CSV header"):
        collect(p, format="ncu_csv")


def test_ncu_rep_without_the_package_names_the_extra(tmp_path, monkeypatch):
    p = tmp_path / "r.ncu-rep"
    p.write_bytes(b"NVR\x00" + b"\x00" * 64)
    monkeypatch.setitem(sys.modules, "ncu_report", None)  # makes `import ncu_report` raise ImportError
    assert sniff(p).name == "ncu_rep"
    with pytest.raises(DependencyError, match=r"pip install 'gpulens\[ncu\]'"):
        collect(p)


def test_ncu_rep_magic_is_checked_before_the_library(tmp_path):
    p = tmp_path / "fake.ncu-rep"
    p.write_text("hello")  # ncu_report.load_report would accept this silently as an empty report
    with pytest.raises(TraceFormatError, match="NVR"):
        collect(p, format="ncu_rep")


def test_lashi_ncu_rep_loads_with_the_extra():
    pytest.importorskip("ncu_report")
    tl = collect(shared_trace("ncu/lashi_rtx4090_simpleDivergence.ncu-rep"))
    assert tl.events["name"].astype(str).str.split("(").str[0].tolist() == ["warmingUp", "kernel1", "kernel2",
                                                                            "kernel3"]
    assert tl.meta.devices[0]["name"] == "NVIDIA GeForce RTX 4090"
    assert tl.meta.devices[0]["compute_capability"] == "8.9"
    for i in range(4):
        assert metric(tl, "sm__warps_active.avg.pct_of_peak_sustained_active", event_id=i) == pytest.approx(4.2,
                                                                                                           abs=0.05)
        assert metric(tl, "launch__occupancy_limit_registers", event_id=i) > 0
    texts = " ".join(tl.tables["ncu_rules"]["description"])
    assert "theoretical (100.0%) and measured achieved occupancy (4.2%)" in texts
    assert (tl.events["dur_ns"] == [metric(tl, "gpu__time_duration.sum", event_id=i) for i in range(4)]).all()


def test_cli_on_nvidia_inputs(tmp_path):
    import json
    import subprocess

    def run(*args):
        return subprocess.run([sys.executable, "-c", "from gpulens.cli import main; main()", *args],
                              capture_output=True, text=True)

    edge = tmp_path / "edge.ncu.csv"
    edge.write_text("==PROF== Connected to process 7 (/usr/bin/python3)\n==PROF== Disconnected from process 7\n")
    r = run("analyze", str(edge))
    # the console wraps long lines where the temporary path's length puts the break: compare with spaces joined
    assert r.returncode == 5 and "no kernels profiled" in " ".join(r.stdout.split()) and "Traceback" not in r.stderr
    out = tmp_path / "r.json"
    r = run("analyze", "-q", str(NV / "codegandee_rtx5090_dsocr_prefill_cuda_gpu_kern_sum.csv"), "--json", str(out))
    assert r.returncode == 0, r.stderr
    s = json.loads(out.read_text())["sources"][0]
    assert (s["status"], s["summary"]["kernel_count"], s["summary"]["kernel_time_ns"]) == ("ok", 6_660, 65_691_733)
    assert s["top_kernels"][0]["calls"] == 2_035
    fake = tmp_path / "fake.ncu-rep"
    fake.write_text("not a report")
    r = run("analyze", "--format", "ncu_rep", str(fake))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "NVR" in r.stderr


def _report(*blocks: tuple[bytes, bytes]) -> bytes:
    """A .ncu-rep byte layout: magic, uint32-framed file header, then (block header, payload) pairs."""
    import struct

    out = b"NVR\x00" + struct.pack("<I", 2) + b"\x08\x07"  # file header: field 1 = 7
    for header, payload in blocks:
        out += struct.pack("<I", len(header)) + header + payload
    return out


def test_ncu_rep_framing_finds_the_cut():
    from gpulens.collectors.ncu_rep import framing

    # block header: field 1 varint 0, field 5 (PayloadSize) varint 10 -> 0x08 0x00 0x28 0x0a
    hdr = b"\x08\x00\x28\x0a"
    whole = _report((hdr, bytes(10)), (hdr, bytes(10)))
    first_block_end = 4 + 4 + 2 + (4 + 4 + 10)  # magic, header length, header, one block
    assert framing(whole) == (2, None)
    assert framing(whole[:-3]) == (1, first_block_end)  # cut inside the second payload
    assert framing(whole[:first_block_end + 2]) == (1, first_block_end)  # cut inside the length prefix
    assert framing(b"NVR\x00" + bytes(range(256)))[0] == 0  # header length 0x03020100: beyond the file
    odd = _report((b"\x0b\x00", b""))  # wire type 3: not the framing known here -> no claim
    assert framing(odd) == (0, None)


def test_truncated_ncu_rep_is_partial_and_a_cut_header_is_an_input_error(tmp_path):
    pytest.importorskip("ncu_report")
    src = shared_trace("ncu/lashi_rtx4090_simpleDivergence.ncu-rep")
    data = src.read_bytes()
    from gpulens.collectors.ncu_rep import framing

    assert framing(data)[1] is None  # the real report's blocks end exactly at its size
    cut = tmp_path / "cut.ncu-rep"
    cut.write_bytes(data[: len(data) * 2 // 3])
    tl = collect(cut)
    assert tl.meta.truncated and any("truncated Nsight Compute report" in w for w in tl.meta.warnings)
    bad = tmp_path / "bad.ncu-rep"
    bad.write_bytes(b"NVR\x00" + bytes(range(256)) * 4)
    with pytest.raises(TraceFormatError, match="not a complete Nsight Compute report"):
        collect(bad)


def test_piped_warning_is_one_line_whatever_the_path_length(tmp_path):
    """Output to a pipe (CI logs, `| grep`): a warning naming a long path stays one line (rich folded it at 80
    columns: 'no' / 'kernels profiled' on two lines, found by a fresh user's run of the test above)."""
    import os
    import subprocess

    d = tmp_path / ("a_rather_long_directory_name_for_testing_" * 3) / "sub"
    d.mkdir(parents=True)
    edge = d / "edge.ncu.csv"
    edge.write_text("==PROF== Connected to process 7 (/usr/bin/python3)\n==PROF== Disconnected from process 7\n")
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    r = subprocess.run([sys.executable, "-c", "from gpulens.cli import main; main()", "analyze", str(edge)],
                       capture_output=True, text=True, env=env)
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("warning:"))
    assert str(edge) in line and "no kernels profiled" in line
