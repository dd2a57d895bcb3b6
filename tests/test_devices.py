"""Device specs: the data, identification from real traces, user spec files, measured peaks."""

import json

import pandas as pd
import pytest

import gpulens
from gpulens.devices import PRECISIONS, SPECS, get_spec, identify, identify_device, load_spec
from gpulens.devices.arch import AMD_LIMITS, CUDA_LIMITS
from gpulens.devices.spec import apply_measured_peaks
from gpulens.errors import TraceFormatError
from tests.conftest import DATA, KINETO

ISSUE_GPUS = ["V100", "A100 40GB", "A100 80GB", "H100 SXM", "H100 PCIe", "H200", "B200", "L4", "L40S", "RTX 4090",
              "RTX 5090", "MI100", "MI210", "MI250X", "MI300X", "MI325X", "MI350X", "MI355X"]
#: parts whose memory bandwidth no source read gave (left out: their reports say it is unknown)
NO_BANDWIDTH_SOURCE = {"AMD Radeon AI PRO R9700"}


def test_every_gpu_of_the_issue_has_a_spec_with_sourced_figures():
    names = [s.name for s in SPECS]
    for g in ISSUE_GPUS:
        assert any(g in n for n in names), g
    for s in SPECS:
        # its architecture has occupancy rules (RDNA Radeon parts: peaks only, occupancy says it has no rules)
        assert s.limits is not None or (s.gfx_arch or "").startswith(("gfx11", "gfx12")), s.name
        assert s.memory_bandwidth or s.name in NO_BANDWIDTH_SOURCE
        assert s.figures.get("clock_mhz") and s.figures.get("l2")
        assert s.peak_flops("fp32", matrix=False) is not None
        for key, f in s.figures.items():
            assert f.source and f.value > 0, (s.name, key)
            if "." in key:
                unit, prec = key.removeprefix("achievable.").split(".")
                assert unit in ("vector", "matrix") and prec in PRECISIONS
                if key.startswith("achievable."):  # an achievable peak lies below the datasheet peak of its unit
                    assert f.value < s.figures[key.removeprefix("achievable.")].value, (s.name, key)


def test_dense_tensor_peaks_not_sparse():
    # gpu-facts §1.1: H100 SXM 528 tensor cores × 512 dense FMA/clk... = 989 TFLOPS at 1.83 GHz, A100 = 312
    h100 = get_spec("NVIDIA H100 SXM")
    assert h100.peak_flops("bf16")[0] == pytest.approx(528 * 512 * 2 * 1.83e9, rel=1e-3)
    assert get_spec("NVIDIA A100 40GB SXM").peak_flops("fp16")[0] == pytest.approx(432 * 256 * 2 * 1.41e9, rel=2e-3)
    # MI300X: 2048 FLOP/clk/CU for BF16 × 304 CUs × 2.1 GHz (ROCm formula)
    assert get_spec("AMD Instinct MI300X").peak_flops("bf16")[0] == pytest.approx(2048 * 304 * 2.1e9, rel=1e-3)
    # ridge points quoted in gpu-facts: H100 BF16 ≈ 295 FLOP/B, MI300X ≈ 247 FLOP/B
    assert h100.peak_flops("bf16")[0] / h100.memory_bandwidth == pytest.approx(295, abs=1)
    mi = get_spec("MI300X")
    assert mi.peak_flops("bf16")[0] / mi.memory_bandwidth == pytest.approx(247, abs=1)


def test_roof_selection_matrix_then_vector():
    h100 = get_spec("H100 SXM")
    assert h100.peak_flops("bf16", matrix=True)[1] == "matrix.bf16"
    assert h100.peak_flops("fp32", matrix=True)[1] == "vector.fp32"  # no fp32 tensor path; TF32 is opt-in
    assert h100.peak_flops("bf16", matrix=False)[1] == "vector.bf16"  # the datasheet's non-tensor BF16 peak
    assert get_spec("L4").peak_flops("bf16", matrix=False)[1] == "vector.fp32"  # no 16-bit vector figure: fp32
    assert get_spec("MI300X").peak_flops("fp32", matrix=True)[1] == "matrix.fp32"  # MFMA fp32 exists
    assert get_spec("V100").peak_flops("fp8") is None


def test_uncertain_figures_are_flagged():
    assert "clock_mhz" in get_spec("V100").uncertain_figures()
    assert "memory_bandwidth" in get_spec("B200").uncertain_figures()
    assert get_spec("H100 SXM").uncertain_figures() == []


@pytest.mark.parametrize("trace, expected", [
    ("tracelens_h100_bert-small.json.gz", "NVIDIA H100 SXM"),  # "NVIDIA H100 80GB HBM3"
    ("hta_alexnet_a100.json.gz", "NVIDIA A100 40GB SXM"),  # "A100-PG509-200", 39.4 GiB
    ("tracelens_mi300x_bert-small.json.gz", "AMD Instinct MI300X"),  # "MI300X VF"
    ("tracelens_mi210_gpu_only.json.gz", "AMD Instinct MI210"),
    ("aorta_mi350x_train_step.pt.trace.json", "AMD Instinct MI350X"),
    ("hta_mi250_minitoy_rocm6.2.json.gz", "AMD Instinct MI210"),  # "AMD Radeon Graphics", CC 9.0, 104 CUs
    ("multirank/sampled_rank-0.json.gz", "NVIDIA A100 40GB SXM"),  # no device recorded: 108 SMs inferred
    ("hta_cpu_only_rank34.pt.trace.json.gz", None),
])
def test_identify_from_recorded_device(trace, expected):
    spec = identify(gpulens.collect(KINETO / trace))
    assert (spec.name if spec else None) == expected
    if trace.startswith("hta_mi250"):
        assert "gfx90a with 104 CUs" in spec.note and "MI250" in spec.note
    if trace.startswith("multirank"):
        assert "108 SMs inferred" in spec.note and "A100 80GB" in spec.note


def test_identify_by_arch_and_count_when_name_is_generic():
    rec = {"name": "AMD Radeon Graphics", "compute_capability": "9.4", "num_sms": 304, "warp_size": 64,
           "total_memory_bytes": 192 * 2**30}
    assert identify_device(rec).name == "AMD Instinct MI300X"
    rec110 = {"name": "AMD Radeon Graphics", "gfx_arch": "gfx90a:sramecc+:xnack-", "num_sms": 110}
    assert identify_device(rec110).name == "AMD Instinct MI250X (one GCD)"
    assert identify_device({"name": "AMD Radeon Graphics", "compute_capability": "9.0", "num_sms": 120,
                            "warp_size": 64}).name == "AMD Instinct MI100"
    assert identify_device({"name": "NVIDIA A100-SXM4-80GB", "num_sms": 108,
                            "total_memory_bytes": 85_000_000_000}).name == "NVIDIA A100 80GB SXM"
    assert identify_device({"name": "Some Future GPU", "compute_capability": "13.0", "num_sms": 7}) is None


def test_mi250x_entry_is_one_gcd():
    s = get_spec("MI250X")
    assert s.num_sms == 110  # 220 CUs per package, 2 GCDs
    assert s.memory_bandwidth == pytest.approx(3277e9 / 2, rel=1e-3)


def test_load_spec_json_with_base_and_toml(tmp_path):
    p = tmp_path / "h100.json"
    p.write_text(json.dumps({"base": "NVIDIA H100 SXM", "name": "lab H100",
                             "figures": {"matrix.bf16": [795, "MAMF run"], "memory_bandwidth": [3000, "stream"]}}))
    s = load_spec(p)
    assert s.name == "lab H100" and s.origin == str(p)
    assert s.peak_flops("bf16")[0] == 795e12 and s.figures["matrix.bf16"].source == "MAMF run"
    assert s.memory_bandwidth == 3000e9
    assert s.peak_flops("fp8")[0] == pytest.approx(1978.9e12)  # kept from the base
    t = tmp_path / "mine.toml"
    t.write_text('name = "toy"\ngfx_arch = "gfx942"\nnum_sms = 38\n[figures]\n'
                 'memory_bandwidth = [662.5, "1/8 of MI300X"]\n'
                 '"matrix.bf16" = {value = 163.4, source = "1/8", uncertain = true}\n')
    s = load_spec(t)
    assert s.vendor == "amd" and s.limits is AMD_LIMITS["gfx942"] and s.num_sms == 38
    assert s.figures["matrix.bf16"].uncertain and s.peak_flops("bf16")[0] == pytest.approx(163.4e12)


@pytest.mark.parametrize("content, needle", [
    ("{not json", "not a valid device spec"),
    ('{"name": "x", "compute_capability": "9.0"}', "missing 'num_sms'"),
    ('{"name": "x", "num_sms": 1}', "compute_capability"),
    ('{"name": "x", "num_sms": 1, "compute_capability": "9.0", "figures": {"matrix.bf17": 1}}', "bf17"),
    ('{"name": "x", "num_sms": 1, "compute_capability": "9.0", "figures": {"memory_bandwidth": -1}}', "must be a positive number"),
    ('{"base": "Nonexistent GPU"}', "unknown base device"),
])
def test_bad_spec_file_is_one_line_trace_format_error(tmp_path, content, needle):
    p = tmp_path / "spec.json"
    p.write_text(content)
    with pytest.raises(TraceFormatError) as e:
        load_spec(p)
    assert needle in str(e.value) and "\n" not in str(e.value) and str(p) in str(e.value)


def test_measured_peaks_from_rocprof_compute_override_datasheet():
    table = pd.read_csv(DATA / "roofline" / "vcopy_MI200_roofline.csv")
    spec = apply_measured_peaks(get_spec("MI210"), table)
    # roofline.csv device 0: HBMBw 1388.9302 GB/s, FP64Flops 20272.537 GFLOP/s, MFMAF64Flops 41497.562
    assert spec.memory_bandwidth == pytest.approx(1388.9302e9)
    assert spec.peak_flops("fp64", matrix=False)[0] == pytest.approx(20272.537e9)
    assert spec.peak_flops("fp64", matrix=True)[0] == pytest.approx(41497.562e9)
    assert "measured" in spec.figures["memory_bandwidth"].source
    assert spec.peak_flops("fp8") is None  # not measured, not in the datasheet either


def test_arch_tables_match_ncu_device_attributes():
    # meinie B200 raw ncu CSV: max_blocks_per_multiprocessor 32, max_warps 64, smem/SM 233472, optin 232448
    b = CUDA_LIMITS["10.0"]
    assert (b.max_blocks_per_sm, b.max_warps_per_sm, b.smem_per_sm, b.smem_per_block_optin) == (32, 64, 233472, 232448)
    # Kineto deviceProperties of the H100 / A100 / V100 traces: sharedMemPerMultiprocessor
    assert CUDA_LIMITS["9.0"].smem_per_sm == 233472 and CUDA_LIMITS["8.0"].smem_per_sm == 167936
    assert CUDA_LIMITS["7.0"].smem_per_sm == 98304 and CUDA_LIMITS["8.0"].smem_per_block_optin == 166912


def test_measured_peaks_in_long_form_as_the_collector_writes_them():
    # the same roofline.csv, as tables["empirical_roofs"] rows: device, roof, value in base units
    wide = pd.read_csv(DATA / "roofline" / "vcopy_MI200_roofline.csv")
    long = pd.DataFrame([{"device": int(r["device"]), "roof": c, "value": float(r[c]) * 1e9}
                         for _, r in wide.iterrows() for c in ("HBMBw", "MFMABF16Flops")])
    spec = apply_measured_peaks(get_spec("MI210"), long, device=1)
    # device 1: HBMBw 1389.3043 GB/s, MFMABF16Flops 170928.06 GFLOP/s
    assert spec.memory_bandwidth == pytest.approx(1389.3043e9)
    assert spec.peak_flops("bf16")[0] == pytest.approx(170928.06e9)
    assert spec.peak_flops("fp64", matrix=False)[0] == pytest.approx(22.6e12)  # not measured here: datasheet kept


def test_a100_pcie_cards_are_not_analysed_as_sxm():
    # a Kineto trace of HazyResearch/zoology records "NVIDIA A100 80GB PCIe" (84,990,623,744 B): it was analysed as
    # the 80 GB SXM part (2,039 GB/s); the PCIe card's HBM2e runs at 1,935 GB/s, its 40 GB sibling ("A100-PCIE-40GB",
    # the older driver spelling) at 1,555 GB/s; peaks and clock are the SXM parts' (same GA100 at 1410 MHz)
    pcie80 = identify_device({"name": "NVIDIA A100 80GB PCIe", "total_memory_bytes": 84_990_623_744, "num_sms": 108})
    pcie40 = identify_device({"name": "A100-PCIE-40GB", "total_memory_bytes": 42_505_273_344})
    sxm80 = identify_device({"name": "NVIDIA A100-SXM4-80GB", "total_memory_bytes": 85_198_045_184})
    assert (pcie80.name, pcie40.name, sxm80.name) == ("NVIDIA A100 80GB PCIe", "NVIDIA A100 40GB PCIe",
                                                      "NVIDIA A100 80GB SXM")
    assert (pcie80.memory_bandwidth, pcie40.memory_bandwidth, sxm80.memory_bandwidth) == (1935e9, 1555e9, 2039e9)
    assert pcie80.peak_flops("bf16") == sxm80.peak_flops("bf16") and "also matches" not in pcie80.note


def test_rtx_3060_spec_from_its_nsys_records():
    # two public nsys exports (p4arth/cuda-perf-sandbox, blbadger/threebody) name "NVIDIA GeForce RTX 3060" with 28
    # SMs, 360,048,000,000 B/s and a 2,359,296 B L2 in TARGET_INFO_GPU; FP32 = 28 SMs × 128 lanes × 2 × 1.777 GHz
    s = identify_device({"name": "NVIDIA GeForce RTX 3060", "num_sms": 28, "total_memory_bytes": 12_626_624_512})
    assert s.name == "NVIDIA GeForce RTX 3060" and s.num_sms == 28
    assert s.memory_bandwidth == 360e9 and s.figures["l2"].value == 2_359_296
    assert abs(s.peak_flops("fp32", matrix=False)[0] / (28 * 128 * 2 * 1.777e9) - 1) < 1e-3  # 12.74 as written
    # the laptop part (30 SMs, lower clocks) and the Ti are other GPUs: not taken for it
    assert identify_device({"name": "NVIDIA GeForce RTX 3060 Laptop GPU", "num_sms": 30}) is None
    assert identify_device({"name": "NVIDIA GeForce RTX 3060 Ti", "num_sms": 38}) is None


def _no_device_trace(tmp_path, occupancy_args):
    """Two kernels without deviceProperties, each with the given per-kernel occupancy args (grid, block and the
    Kineto estimate); the launch calls link them by correlation id."""
    ev = []
    for i, (grid, block, extra) in enumerate(occupancy_args):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": 100 + 50 * i, "dur": 5, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": f"volta_sgemm_k{i}", "pid": 0, "tid": 7, "ts": 110 + 50 * i,
                   "dur": 20, "args": {"correlation": i + 1, "device": 0, "stream": 7, "grid": grid,
                                       "block": block, **extra}})
    p = tmp_path / "legacy.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return p


def test_sm_count_inferred_from_warps_per_sm_alone(tmp_path):
    # 2021 Kineto traces carry "warps per SM" but no "blocks per SM". Kineto: warps per SM = grid blocks / SMs ×
    # ⌈block threads / 32⌉. On 80 SMs: grid 2×4×64 = 512 blocks of 256 threads (8 warps) → 512 × 8 / 80 = 51.2;
    # grid 160 blocks of 100 threads (4 warps, the last partly filled) → 160 × 4 / 80 = 8.0
    p = _no_device_trace(tmp_path, [([2, 4, 64], [256, 1, 1], {"warps per SM": 51.2}),
                                    ([160, 1, 1], [100, 1, 1], {"warps per SM": 8.0})])
    tl = gpulens.collect(p)
    from gpulens.devices import inferred_num_sms

    assert inferred_num_sms(tl) == 80
    spec = identify(tl)
    assert spec is not None and spec.num_sms == 80 and spec.vendor == "nvidia"
    assert "80 SMs inferred" in spec.note


def test_blocks_per_sm_is_read_before_warps_per_sm(tmp_path):
    # both recorded: blocks per SM (= blocks / SMs) gives 108 (1080 / 10.0); a warps figure that disagrees is not read
    p = _no_device_trace(tmp_path, [([1080, 1, 1], [128, 1, 1], {"blocks per SM": 10.0, "warps per SM": 7.0})])
    from gpulens.devices import inferred_num_sms

    assert inferred_num_sms(gpulens.collect(p)) == 108


def test_legacy_resnet50_trace_is_placed_on_80_sms():
    from tests.conftest import shared_trace

    p = shared_trace("kineto/kineto_tbplugin_resnet50_legacy_worker0.pt.trace.json.gz")  # skips when absent
    raw = json.loads(__import__("gzip").decompress(p.read_bytes()))
    # from the trace itself: every kernel's blocks × ⌈threads / 32⌉ / warps per SM
    ks = [e["args"] for e in raw["traceEvents"] if e.get("cat") == "Kernel" or e.get("cat") == "kernel"]
    ks = [a for a in ks if a.get("warps per SM") and "blocks per SM" not in a]
    sms = {round(a["grid"][0] * a["grid"][1] * a["grid"][2] * -(-a["block"][0] * a["block"][1] * a["block"][2] // 32)
                 / a["warps per SM"]) for a in ks if a["grid"][0] * a["grid"][1] * a["grid"][2] >= 100}
    assert sms == {80}
    spec = identify(gpulens.collect(p))
    assert spec is not None and spec.num_sms == 80
