"""A GPU the built-in table lacks reads as unknown, never as another GPU of its architecture and SM count; the
workstation / consumer GPUs of public traces have their own figures.

Expected values: vendor figures (AMD RX 7900 series launch table: 96 CUs, 2.5 GHz, 123 TFLOPS FP16, 960 GB/s; W7900:
864 GB/s, 122.6 TFLOPS FP16) and the RDNA3 formula CUs × 512 FP16 FLOP/clk × clock; the SM counts of the unknown
parts are NVIDIA's (RTX 5000 Ada: 12,800 CUDA cores / 128 = 100 SMs; L20: 11,776 / 128 = 92; H100 NVL: 132 like
the H100 SXM; RTX 3090 Ti: 84 like the A40 / RTX A6000; RTX 4090 D: 114, the RTX 4090 128). The L40 and RTX 6000 Ada
(142 SMs like the L40S) have built-in figures since session 50, so an unnamed 142-SM part is one of three.
"""

from __future__ import annotations

import pytest

from gpulens.devices import identify_device, no_spec_reason


@pytest.mark.parametrize("rec", [
    {"name": "NVIDIA RTX 5000 Ada Generation", "compute_capability": "8.9", "num_sms": 100},
    {"name": "NVIDIA L20", "compute_capability": "8.9", "num_sms": 92},
    {"name": "NVIDIA H100 NVL", "compute_capability": "9.0", "num_sms": 132},
    {"name": "NVIDIA GeForce RTX 3090 Ti", "compute_capability": "8.6", "num_sms": 84},
    {"name": "NVIDIA GeForce RTX 4090 D", "compute_capability": "8.9", "num_sms": 114},
    {"name": "AMD Radeon RX 7900 XT", "gfx_arch": "gfx1100", "num_sms": 84},
    {"name": "AMD Instinct MI308X", "gfx_arch": "gfx942", "num_sms": 80},
])
def test_a_named_gpu_without_figures_is_unknown_not_a_lookalike(rec):
    assert identify_device(rec) is None


@pytest.mark.parametrize("rec,want", [
    ({"name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9", "num_sms": 128}, "NVIDIA GeForce RTX 4090"),
    ({"name": "NVIDIA GeForce RTX 3090", "compute_capability": "8.6", "num_sms": 82}, "NVIDIA GeForce RTX 3090"),
    ({"name": "NVIDIA RTX A6000", "compute_capability": "8.6", "num_sms": 84}, "NVIDIA RTX A6000"),
    ({"name": "NVIDIA L4", "compute_capability": "8.9", "num_sms": 58}, "NVIDIA L4"),
    ({"name": "NVIDIA L40S", "compute_capability": "8.9", "num_sms": 142}, "NVIDIA L40S"),
    # generic names still let the architecture and SM/CU count decide (ROCm's "AMD Radeon Graphics")
    ({"name": "AMD Radeon Graphics", "gfx_arch": "gfx942", "num_sms": 304}, "AMD Instinct MI300X"),
    ({"name": "", "compute_capability": "8.9", "num_sms": 58}, "NVIDIA L4"),
])
def test_known_gpus_still_identified(rec, want):
    assert identify_device(rec).name == want


def test_radeon_rdna3_parts_have_vendor_figures():
    xtx = identify_device({"name": "Radeon RX 7900 XTX", "gfx_arch": "gfx1100", "num_sms": 96})
    assert xtx is not None and xtx.name == "AMD Radeon RX 7900 XTX"
    assert xtx.peak_flops("fp16")[0] == pytest.approx(96 * 512 * 2.5e9, rel=0.005)  # AMD: 123 TFLOPS FP16
    assert xtx.figures["memory_bandwidth"].value == pytest.approx(960e9)
    w = identify_device({"name": "AMD Radeon PRO W7900", "gfx_arch": "gfx1100", "num_sms": 96})
    assert w is not None and w.name == "AMD Radeon PRO W7900"
    assert w.figures["memory_bandwidth"].value == pytest.approx(864e9)
    assert w.peak_flops("fp16")[0] == pytest.approx(122.6e12, rel=0.001)
    # a generic name on the same die with 48 GB recorded is the W7900, not the 24 GB XTX
    g = identify_device({"name": "AMD Radeon Graphics", "gfx_arch": "gfx1100", "num_sms": 96,
                         "total_memory_bytes": 48 * 2**30})
    assert g.name == "AMD Radeon PRO W7900"


def test_unknown_named_gpu_reads_unknown_in_the_report(tmp_path):
    """End to end: a Kineto trace of an 'NVIDIA H100 NVL' (132 SMs, cc 9.0 — the H100 SXM's count and arch) gets no
    roofline peaks, and its skip reason names the GPU; never the H100 SXM's figures."""
    from gpulens.report import analyze
    from tests.gate_traces import make_trace

    dev = {"id": 0, "name": "NVIDIA H100 NVL", "computeMajor": 9, "computeMinor": 0, "numSms": 132,
           "totalGlobalMem": 100_485_038_080}
    p = make_trace(tmp_path / "h100nvl.json", seed=1, device=dev)
    rep = analyze(p)
    src = rep.sources[0]
    assert src.device is None or "SXM" not in str(getattr(src.device, "name", ""))
    roof = src.results["roofline"]
    assert roof.skipped_reason and "NVIDIA H100 NVL" in roof.skipped_reason
    assert "H100 SXM" not in roof.skipped_reason
