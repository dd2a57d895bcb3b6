"""Device specs for GPUs real public traces come from that gpulens did not know (its reports said "unknown" for
every roofline figure): NVIDIA GeForce RTX 3080 (GA102, sm_86) and RTX 2060 SUPER (TU106, sm_75), AMD Vega 20
(gfx906: Instinct MI60, MI50, Radeon VII) and the Radeon AI PRO R9700 (RDNA4, gfx1201).

The recorded devices below are those of real exports (read with gpulens, the files are not redistributed):
* PolPuigPuy/OpenACC_Project_PolPuig report12.sqlite — nsys TARGET_INFO_CUDA_GPU "NVIDIA GeForce RTX 3080", 68 SMs,
  760,080,000 kB/s, l2CacheSize 5,242,880;
* an Nsight Compute 2020 report (montecarlo.ncu-rep) — "GeForce RTX 3080" (no vendor prefix), CC 8.6, 68 SMs;
* ps1_100.ncu-rep / gpupower PS1_10_profile.ncu-rep — "NVIDIA GeForce RTX 2060 SUPER", CC 7.5, 34 SMs;
* dalg24/kokkos results.sysinfo.txt (rocprof v1, ROCm 4) — "Vega 20", gfx906, 64 CUs, Max Clock 1800 MHz,
  Max Waves Per CU 40, 32 GiB pool;
* JoursBleu/llama.cpp results.sysinfo.txt — "AMD Radeon AI PRO R9700", gfx1201, 64 CUs, wave32, 31.9 GB.

Every expected peak is worked out here from the datasheet's units, FLOP per clock and clock (each entry's comment in
src/gpulens/devices names its source), never read back from gpulens.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from gpulens.cli import main
from gpulens.collectors import collect
from gpulens import devices
from gpulens.devices import SPECS, find_spec, identify, identify_device, limits_of_record
from gpulens.devices.arch import AMD_LIMITS
from gpulens.devices.occupancy import cdna_occupancy

GiB = 2**30
T = 1e12


def _spec(name):
    (s,) = [s for s in SPECS if s.name == name]
    return s


def _close(a, b, rel=0.01):
    return a is not None and abs(a - b) <= rel * b


# --- each figure equals the datasheet's hand calculation -----------------------------------------------------------

def test_rtx3080_figures_are_ga102_units_times_rate_times_boost_clock():
    s, clk = _spec("NVIDIA GeForce RTX 3080"), 1.71e9   # 68 SMs × 128 lanes = 8,704 CUDA cores, 1710 MHz boost
    assert (s.compute_capability, s.num_sms) == ("8.6", 68)
    assert _close(s.figure_value("vector.fp32"), 8704 * 2 * clk)                  # 29.77 TFLOP/s (FMA = 2 FLOP)
    assert _close(s.figure_value("matrix.tf32"), 68 * 256 * clk)                  # GeForce TF32: 256 FLOP/clk/SM
    for p in ("bf16", "fp16"):                                                    # FP32 accumulate, half rate
        assert _close(s.figure_value(f"matrix.{p}"), 68 * 512 * clk)             # 59.5
    assert _close(s.figure_value("matrix.int8"), 68 * 2048 * clk)                 # 238.1 TOP/s
    assert _close(s.figure_value("vector.fp64"), 8704 * 2 * clk / 64, rel=0.02)  # GA10x FP64 = 1/64 FP32
    assert _close(s.memory_bandwidth, 320 * 19e9 / 8)                             # 320-bit GDDR6X at 19 Gbps
    assert _close(s.memory_bandwidth, 760_080_000 * 1000)                         # nsys kB/s of the real export
    assert s.figure_value("l2") == 5_242_880                                      # nsys l2CacheSize


def test_rtx2060_super_figures_are_tu106_units_times_rate_times_boost_clock():
    s, clk = _spec("NVIDIA GeForce RTX 2060 SUPER"), 1.65e9   # 34 SMs × 64 lanes = 2,176 cores, 1650 MHz
    assert (s.compute_capability, s.num_sms) == ("7.5", 34)
    assert _close(s.figure_value("vector.fp32"), 2176 * 2 * clk)                  # 7.18 TFLOP/s
    assert _close(s.figure_value("matrix.fp16"), 34 * 512 * clk)                  # Turing GeForce FP32-acc: 28.7
    assert _close(s.figure_value("matrix.int8"), 34 * 2048 * clk)                 # 114.9 TOP/s
    assert _close(s.figure_value("vector.fp64"), 2176 * 2 * clk / 32, rel=0.03)   # Turing FP64 = 1/32 FP32
    assert _close(s.memory_bandwidth, 256 * 14e9 / 8)                             # 448 GB/s
    assert s.figure_value("l2") == 4 * 2**20
    assert s.peak_flops("bf16") is None or not s.peak_flops("bf16")[1].endswith("bf16")  # Turing has no BF16


@pytest.mark.parametrize("name, cus, clk, fp64_share, mem_gib", [
    ("AMD Instinct MI60", 64, 1.8e9, 1 / 2, 32),
    ("AMD Instinct MI50 32GB", 60, 1.725e9, 1 / 2, 32),
    ("AMD Instinct MI50 16GB", 60, 1.725e9, 1 / 2, 16),
    ("AMD Radeon VII", 60, 1.8e9, 1 / 4, 16),
])
def test_vega20_figures_are_cus_times_64_lanes_times_fma_times_clock(name, cus, clk, fp64_share, mem_gib):
    s = _spec(name)
    fp32 = cus * 64 * 2 * clk                              # GCN: 64 lanes per CU (4 SIMD16), FMA = 2 FLOP
    assert (s.gfx_arch, s.num_sms, s.memory_bytes) == ("gfx906", cus, mem_gib * GiB)
    assert _close(s.figure_value("vector.fp32"), fp32)
    assert _close(s.figure_value("vector.fp16"), 2 * fp32)  # packed FP16
    assert _close(s.figure_value("vector.fp64"), fp64_share * fp32)
    assert _close(s.memory_bandwidth, 4096 * 2e9 / 8)       # 4096-bit HBM2 at 2 Gbps = 1024 GB/s
    assert s.figure_value("l2") == 4 * 2**20
    assert not [k for k in s.figures if k.startswith("matrix.")]  # Vega 20 has no matrix units


def test_r9700_figures_are_rdna4_cus_times_dual_issue_times_clock_and_no_bandwidth_is_invented():
    s = _spec("AMD Radeon AI PRO R9700")
    assert (s.gfx_arch, s.num_sms, s.memory_bytes) == ("gfx1201", 64, 32 * GiB)
    # 64 CUs × 64 lanes × 2 (dual issue) × 2 (FMA) × 2.92 GHz; packed FP16 twice that = AMD's 95.7 TFLOPS
    assert _close(s.figure_value("vector.fp32"), 64 * 64 * 2 * 2 * 2.92e9)
    assert _close(s.figure_value("vector.fp16"), 95.7 * T) and _close(s.figure_value("vector.fp16"),
                                                                      64 * 64 * 2 * 2 * 2 * 2.92e9)
    assert s.figure_value("l2") == 8 * 2**20                # ROCm gpu-specs Radeon PRO table
    assert s.memory_bandwidth is None                       # no source read gave it: unknown, not a guess


# --- the names real traces carry resolve to the right spec; near misses do not ------------------------------------

@pytest.mark.parametrize("rec, expected", [
    ({"name": "NVIDIA GeForce RTX 3080", "compute_capability": "8.6", "num_sms": 68,
      "total_memory_bytes": 10_495_524_864}, "NVIDIA GeForce RTX 3080"),                        # nsys export
    ({"name": "GeForce RTX 3080", "compute_capability": "8.6", "num_sms": 68}, "NVIDIA GeForce RTX 3080"),  # ncu 2020
    ({"name": "NVIDIA GeForce RTX 2060 SUPER", "compute_capability": "7.5", "num_sms": 34},
     "NVIDIA GeForce RTX 2060 SUPER"),
    ({"name": "Vega 20", "gfx_arch": "gfx906", "num_sms": 64, "total_memory_bytes": 34_342_961_152,
      "max_clock_mhz": 1800}, "AMD Instinct MI60"),                                             # kokkos rocminfo
    ({"name": "Vega 20", "gfx_arch": "gfx906", "num_sms": 60, "total_memory_bytes": 32 * GiB},
     "AMD Instinct MI50 32GB"),
    ({"name": "AMD Radeon VII", "gfx_arch": "gfx906", "num_sms": 60}, "AMD Radeon VII"),
    ({"name": "AMD Radeon AI PRO R9700", "gfx_arch": "gfx1201", "num_sms": 64, "warp_size": 32,
      "total_memory_bytes": 32_061_259_776}, "AMD Radeon AI PRO R9700"),                        # llama.cpp rocminfo
    # near misses: other SM counts or other products of the same chip → unknown, never these figures
    ({"name": "NVIDIA GeForce RTX 3080 Ti", "compute_capability": "8.6", "num_sms": 80}, None),
    ({"name": "NVIDIA GeForce RTX 3080", "compute_capability": "8.6", "num_sms": 70}, None),     # the 12 GB card
    ({"name": "NVIDIA GeForce RTX 3080 Laptop GPU", "compute_capability": "8.6", "num_sms": 48}, None),
    ({"name": "NVIDIA GeForce RTX 2060", "compute_capability": "7.5", "num_sms": 30}, None),
    ({"name": "NVIDIA GeForce RTX 2060"}, None),
    ({"name": "AMD Radeon Pro VII", "gfx_arch": "gfx906", "num_sms": 60}, None),
    ({"name": "AMD Radeon AI PRO R9700S", "gfx_arch": "gfx1201", "num_sms": 64}, None),
    ({"name": "AMD Radeon RX 9070 XT", "gfx_arch": "gfx1201", "num_sms": 64}, None),
])
def test_recorded_names_resolve_to_the_right_spec(rec, expected):
    s = identify_device(rec)
    assert (s.name if s else None) == expected


@pytest.mark.parametrize("rec, parts", [
    # a 60-CU Vega 20 without a 32 GB memory: an MI50 (1725 MHz, FP64 1/2) or a Radeon VII (1800 MHz, FP64 1/4)
    ({"name": "Vega 20", "gfx_arch": "gfx906", "num_sms": 60}, {"MI50 32GB", "MI50 16GB", "Radeon VII"}),
    ({"name": "Vega 20", "gfx_arch": "gfx906", "num_sms": 60, "total_memory_bytes": 16 * GiB},
     {"MI50 16GB", "Radeon VII"}),
    ({"name": "AMD Radeon Graphics", "compute_capability": "9.0", "num_sms": 60},
     {"MI50 32GB", "MI50 16GB", "Radeon VII"}),
    # the same kind of fault in parts already known: MI350X (2200 MHz) or MI355X (2400 MHz); A40 or RTX A6000
    ({"name": "AMD Radeon Graphics", "gfx_arch": "gfx950", "num_sms": 256}, {"MI350X", "MI355X"}),
    ({"compute_capability": "8.6", "num_sms": 84}, {"A40", "RTX A6000"}),
])
def test_parts_with_other_peaks_the_record_cannot_tell_apart_give_none_not_the_first(rec, parts):
    assert identify_device(rec) is None
    named = devices.ambiguous_parts(rec)
    assert all(any(p in n for n in named) for p in parts), named


def test_memory_variants_and_same_figure_gcds_are_still_chosen():
    # A100 40 / 80 GB and an MI210 vs an MI250 GCD (22.6 vs 22.65 TFLOP/s) are one part's figures: not ambiguous
    assert identify_device({"name": "NVIDIA A100-SXM4-40GB", "compute_capability": "8.0", "num_sms": 108})
    assert identify_device({"name": "AMD Radeon Graphics", "compute_capability": "9.0", "num_sms": 104}).name == \
        "AMD Instinct MI210"


def test_find_spec_refuses_a_chip_name_that_fits_parts_with_other_peaks():
    spec, several = find_spec("Vega 20")
    assert spec is None and {"AMD Instinct MI60", "AMD Radeon VII"} <= set(several)
    assert find_spec("MI60")[0].name == "AMD Instinct MI60"
    assert find_spec("RTX 3080")[0].name == "NVIDIA GeForce RTX 3080"
    assert find_spec("2060 SUPER")[0].name == "NVIDIA GeForce RTX 2060 SUPER"


# --- occupancy rules: sm_75 / sm_86 were there; gfx906 is new; gfx1201 (RDNA) still has none ---------------------

def test_gfx906_occupancy_is_gfx9_ten_waves_per_simd_without_agprs():
    lim = AMD_LIMITS["gfx906"]
    assert lim.max_warps_per_sm == 40 and lim.warp_size == 64     # rocminfo "Max Waves Per CU: 40", wavefront 64
    assert lim.smem_per_sm == 64 * 1024                           # ROCm gpu-specs: LDS 64 KiB
    # 256 work-items = 4 waves; 64 VGPRs → ⌊256 / 64⌋ = 4 waves per SIMD → 4 SIMDs × 4 / 4 = 4 work-groups:
    # 16 of 40 wave slots = 40 %
    o = cdna_occupancy(lim, 256, 64)
    assert (o.active_blocks, o.limiter, o.occupancy_pct) == (4, "registers", 40.0)
    # 24 VGPRs → ⌊256 / 24⌋ = 10 waves per SIMD: the 10 slots bind at 10 work-groups = 100 %
    o = cdna_occupancy(lim, 256, 24)
    assert (o.active_blocks, o.occupancy_pct) == (10, 100.0)


def test_hip_compute_capability_9_0_is_gfx906_by_cu_count_not_gfx90a():
    # HIP reports 9.0 for gfx906, gfx908 and gfx90a alike (ROCm gpu-specs GFXIP 9.0): 60 CUs is a Vega 20, 64 a
    # Vega 10 or 20 (unknown), 104 still gfx90a
    def rec(cus):
        return {"name": "AMD Radeon Graphics", "compute_capability": "9.0", "num_sms": cus}

    assert limits_of_record(rec(60)).arch == "gfx906"
    assert limits_of_record(rec(64)) is None
    assert limits_of_record(rec(104)).arch == "gfx90a"
    for rec in ({"compute_capability": "7.5"}, {"compute_capability": "8.6"}):
        assert limits_of_record(rec) is not None
    assert limits_of_record({"name": "AMD Radeon AI PRO R9700", "gfx_arch": "gfx1201"}) is None


# --- reports --------------------------------------------------------------------------------------------------------

def _v1_run(tmp_path, agent_name, gfx, cus, wave=64):
    (tmp_path / "results.sysinfo.txt").write_text(
        "HSA Agents\n*******\nAgent 3\n*******\n"
        f"  Name:                    {gfx}\n  Marketing Name:          {agent_name}\n  Vendor Name:             AMD\n"
        f"  Node:                    2\n  Device Type:             GPU\n  Compute Unit:            {cus}\n")
    p = tmp_path / "results.csv"
    p.write_text('"Index","KernelName","gpu-id","queue-id","queue-index","pid","tid","grd","wgr","lds","scr",'
                 '"arch_vgpr","accum_vgpr","sgpr","wave_size","sig","obj","DispatchNs","BeginNs","EndNs","CompleteNs",'
                 '"DurationNs"\n'
                 f'0,"k.kd",2,0,0,7,7,65536,256,0,0,64,0,32,{wave},"0x0","0x1",900,1000,9000,9100,8000\n')
    return p


def _analyze(tmp_path, p):
    out = tmp_path / "r.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 0
    return json.loads(out.read_text())["sources"][0]["analyses"]


def test_vega20_64cu_run_gets_mi60_occupancy(tmp_path):
    # 256 work-items, 64 VGPRs, 32 SGPRs on gfx906: 4 work-groups of 4 waves in 40 slots = 40 % (hand calculation
    # above); before, occupancy said gfx906 had no rules
    a = _analyze(tmp_path, _v1_run(tmp_path, "Vega 20", "gfx906", 64))
    occ = a["occupancy"]
    assert not occ.get("skipped_reason"), occ.get("skipped_reason")
    assert (occ["summary"]["device"], occ["summary"]["arch"]) == ("AMD Instinct MI60", "gfx906")
    assert occ["summary"]["time_weighted_theoretical_pct"] == 100 * 4 * 4 / 40


def test_ambiguous_vega20_skip_reason_names_the_candidates(tmp_path):
    a = _analyze(tmp_path, _v1_run(tmp_path, "Vega 20", "gfx906", 60))
    reason = a["roofline"]["skipped_reason"]
    assert "'Vega 20'" in reason and "MI50" in reason and "Radeon VII" in reason and "no built-in figures" not in reason


def test_devices_lists_the_new_parts_and_an_unknown_bandwidth_without_crashing(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")  # rich sizes the table to the terminal: wide enough that no name is cut
    assert main(["devices"]) == 0
    out = capsys.readouterr().out
    for n in ("RTX 3080", "RTX 2060 SUPER", "MI60", "MI50 32GB", "Radeon VII", "R9700"):
        assert n in out
    assert "unknown" in out                                        # the R9700's bandwidth, not a crash


# --- a real trace of each GPU in ../shared/traces gets a known peak (skipped while none is there) ------------------

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"
_MARKS = {b"RTX 3080": "NVIDIA GeForce RTX 3080", b"RTX 2060 SUPER": "NVIDIA GeForce RTX 2060 SUPER",
          b"Vega 20": None, b"R9700": "AMD Radeon AI PRO R9700"}


def _real_traces():
    if not TRACES.is_dir():
        return []
    found = []
    for f in sorted(TRACES.rglob("*")):
        if not f.is_file() or f.name == "SOURCES.md" or f.stat().st_size > 8_000_000:
            continue
        data = f.read_bytes()
        if f.suffix == ".gz":
            try:
                data = gzip.decompress(data)
            except OSError:
                continue
        found += [(f, m.decode(), spec) for m, spec in _MARKS.items() if m in data and b"3080 Ti" not in data]
    return found


@pytest.mark.parametrize("mark", [m.decode() for m in _MARKS])
def test_real_trace_of_the_gpu_is_identified(mark):
    hits = [(f, spec) for f, m, spec in _real_traces() if m == mark]
    if not hits:
        pytest.skip(f"no trace naming {mark!r} under ../shared/traces")
    for f, spec in hits:
        got = identify(collect(f))
        if spec is None:   # Vega 20: the CU count and memory decide between MI60 / MI50 / none
            assert got is None or got.gfx_arch == "gfx906"
        else:
            assert got is not None and got.name == spec, f
            assert got.peak_flops("fp32", matrix=False) is not None
