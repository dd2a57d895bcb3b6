"""Built-in GPU specs added in session 50, and the name spellings profilers record for them.

Expected figures are the vendor's, written here with their source (not read back from gpulens):

* NVIDIA L40 datasheet (table copy at mullet.se, NVIDIA L40/L40S): 18,176 CUDA cores (142 SMs × 128), 48 GB GDDR6,
  864 GB/s, FP32 90.5 TFLOPS, dense tensor TF32 90.5 / BF16 181.05 / FP16 181.05 / FP8 362 / INT8 362 TOPS (twice
  that with sparsity) — half the L40S's 362.05 BF16; boost 2,490 MHz (hmc-tech.com): 18,176 × 2 × 2.49 GHz = 90.5.
* Tesla V100 PCIe (NVIDIA launch figures via io-tech.fi; sysrqmts.com): 80 SMs, 7 / 14 / 112 TFLOPS FP64 / FP32 /
  tensor, 900 GB/s (4,096-bit HBM2 at 1.75 Gbps), 1,380 MHz boost — not the SXM2's 1,530 MHz / 15.7 TFLOPS.
* RTX 6000 Ada Generation (NVIDIA specifications via grafikkarten.com; cputronic.com): 142 SMs, 91.1 TFLOPS FP32,
  960 GB/s, 48 GB; boost 2,505 MHz: 18,176 × 2 × 2.505 GHz = 91.06. Its tensor peaks: no datasheet copy found —
  unknown, never another Ada part's.
* nvidia-smi names the 144 GB Grace Hopper GPU "NVIDIA GH200 144G HBM3e" (bare "G"): the HBM3e variant (4.9 TB/s),
  not the 96 GB HBM3 one (4 TB/s).
"""

from __future__ import annotations

import pytest

from gpulens.devices import ambiguous_parts, find_spec, identify_device


@pytest.mark.parametrize("name,want", [
    ("NVIDIA L40", "NVIDIA L40"),
    ("NVIDIA L40S", "NVIDIA L40S"),
    ("Tesla V100-PCIE-16GB", "NVIDIA V100 PCIe"),
    ("Tesla V100-PCIE-32GB", "NVIDIA V100 PCIe"),
    ("Tesla V100-SXM2-16GB", "NVIDIA V100 SXM2"),
    ("Tesla V100-SXM2-32GB", "NVIDIA V100 SXM2"),
    ("NVIDIA RTX 6000 Ada Generation", "NVIDIA RTX 6000 Ada Generation"),
    ("Quadro RTX 6000", "NVIDIA Quadro RTX 6000"),
    ("NVIDIA RTX A6000", "NVIDIA RTX A6000"),
    ("NVIDIA GH200 144G HBM3e", "NVIDIA GH200 144GB HBM3e"),
])
def test_recorded_name_spellings_resolve_to_their_part(name, want):
    spec = identify_device({"name": name})
    assert spec is not None and spec.name == want


@pytest.mark.parametrize("name", ["Tesla V100S-PCIE-32GB", "Tesla V100-FHHL-16GB", "NVIDIA L40G", "NVIDIA L20"])
def test_other_clocks_of_a_family_stay_unknown(name):
    """V100S (1,597 MHz), the 150 W FHHL V100, the China L40G / L20: other clocks, so no figures rather than wrong."""
    assert identify_device({"name": name}) is None


def _tf(spec, key):
    """A figure as the datasheet prints it: TFLOP/s for peaks, MHz for clocks."""
    v = spec.figure_value(key)
    return None if v is None else (round(v / 1e12, 6) if key.startswith(("vector.", "matrix.")) else v)


def test_l40_datasheet_figures():
    s = identify_device({"name": "NVIDIA L40", "compute_capability": "8.9", "num_sms": 142})
    assert s.num_sms == 142 and s.figures["memory_bandwidth"].value == pytest.approx(864e9)
    assert _tf(s, "vector.fp32") == pytest.approx(18_176 * 2 * 2.49e9 / 1e12, rel=0.001)  # 90.5
    assert (_tf(s, "matrix.tf32"), _tf(s, "matrix.bf16"), _tf(s, "matrix.fp16")) == (90.5, 181.05, 181.05)
    assert (_tf(s, "matrix.fp8"), _tf(s, "matrix.int8")) == (362, 362)
    l40s = identify_device({"name": "NVIDIA L40S"})
    assert _tf(l40s, "matrix.bf16") == pytest.approx(2 * _tf(s, "matrix.bf16"), rel=0.001)  # 362.05 vs 181.05


def test_v100_pcie_datasheet_figures_are_not_the_sxm2s():
    p = identify_device({"name": "Tesla V100-PCIE-32GB", "num_sms": 80})
    x = identify_device({"name": "Tesla V100-SXM2-32GB", "num_sms": 80})
    assert (_tf(p, "vector.fp64"), _tf(p, "vector.fp32"), _tf(p, "matrix.fp16")) == (7, 14, 112)
    assert _tf(p, "clock_mhz") == 1380 and _tf(x, "clock_mhz") == 1530
    assert p.figures["memory_bandwidth"].value == pytest.approx(900e9)
    assert _tf(p, "vector.fp32") == pytest.approx(5_120 * 2 * 1.38e9 / 1e12, rel=0.01)
    # "V100" alone names two parts now: the person must choose (as "H100" does)
    assert find_spec("V100") == (None, ["NVIDIA V100 SXM2", "NVIDIA V100 PCIe"])


def test_rtx_6000_ada_has_its_own_figures_and_no_guessed_tensor_peak():
    s = identify_device({"name": "NVIDIA RTX 6000 Ada Generation", "num_sms": 142})
    assert _tf(s, "vector.fp32") == pytest.approx(18_176 * 2 * 2.505e9 / 1e12, rel=0.001)  # 91.1
    assert s.figures["memory_bandwidth"].value == pytest.approx(960e9)
    assert "matrix.bf16" not in s.figures and "matrix.fp8" not in s.figures


def test_an_unnamed_142_sm_ada_part_is_one_of_three():
    """No name, compute capability 8.9 with 142 SMs: an L40S, an L40 or an RTX 6000 Ada — their peaks differ 2×, so
    none is chosen (the L40S was, when it was the only 142-SM entry)."""
    rec = {"name": "", "compute_capability": "8.9", "num_sms": 142}
    assert identify_device(rec) is None
    assert sorted(ambiguous_parts(rec)) == ["NVIDIA L40", "NVIDIA L40S", "NVIDIA RTX 6000 Ada Generation"]


def test_gh200_names_pick_the_memory_variant():
    e = identify_device({"name": "NVIDIA GH200 144G HBM3e", "num_sms": 132})
    assert e.name == "NVIDIA GH200 144GB HBM3e" and e.figures["memory_bandwidth"].value == pytest.approx(4.9e12)
    # "480GB" counts the Grace CPU's memory: no GPU variant's size, so it decides nothing (the first is assumed)
    assert "assumed" in identify_device({"name": "NVIDIA GH200 480GB"}).note


def test_a30_figures_follow_the_a100s_per_sm_rates():
    """A30 (sysrqmts.com: 56 SMs, 1,440 MHz, 933 GB/s, 24 MB L2). GA100 per-SM rates from the A100's datasheet
    peaks: 312 TFLOPS BF16 / (108 SMs × 1.41 GHz) = 2,048 FLOP/clk; NVIDIA's A30 datasheet prints 165 BF16,
    82 TF32, 330 INT8, 10.3 FP32, 5.2 FP64."""
    s = identify_device({"name": "NVIDIA A30", "compute_capability": "8.0", "num_sms": 56})
    per_sm = 312e12 / (108 * 1.41e9)
    assert s.figure_value("matrix.bf16") == pytest.approx(56 * per_sm * 1.44e9, rel=0.002)
    assert _tf(s, "matrix.bf16") == pytest.approx(165, rel=0.005)
    assert _tf(s, "matrix.tf32") == pytest.approx(82, rel=0.01)
    assert _tf(s, "matrix.int8") == pytest.approx(330, rel=0.005)
    assert _tf(s, "vector.fp32") == pytest.approx(3_584 * 2 * 1.44e9 / 1e12, rel=0.001)
    assert _tf(s, "vector.fp64") == pytest.approx(5.2, rel=0.01)
    assert s.figures["memory_bandwidth"].value == pytest.approx(933e9)
    # a MIG slice of it has a share of the SMs: no figures
    assert identify_device({"name": "NVIDIA A30 MIG 1g.6gb"}) is None
