"""Timeline fidelity and device mapping (session 47, helper "timeline").

1. GPUs of older public traces had no built-in figures (GeForce GTX 1080 Ti of leimingyu/magus' nvprof CSVs in
   tests/data/nvidia, TITAN V, Tesla K20m, GTX 1060 6GB): roofline and occupancy were skipped. Kind: a GPU whose
   datasheet figures are public, unknown to gpulens. Now in :mod:`gpulens.devices.nvidia` with their sources; the
   expected values below are cores × 2 FLOP × boost clock and bus width × data rate / 8, written out here.
2. A bare "NVIDIA H100" (pytorch/kineto docs traces) was called "a GPU with no built-in figures" although gpulens
   has two H100s: the name tells neither apart. Kind: an unknown that misstates why it is unknown.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gpulens.devices import identify_device, limits_for, no_spec_reason


@pytest.mark.parametrize("name,sms,cores,boost_ghz,bus_bits,gbps", [
    ("GeForce GTX 1080 Ti", 28, 3584, 1.582, 352, 11.0),
    ("GeForce GTX 1060 6GB", 10, 1280, 1.708, 192, 8.0),
    ("TITAN V", 80, 5120, 1.455, 3072, 1.7),
    ("Tesla K20m", 13, 2496, 0.706, 320, 5.2),
])
def test_older_gpus_have_datasheet_figures(name, sms, cores, boost_ghz, bus_bits, gbps):
    spec = identify_device({"name": name})
    assert spec is not None and spec.num_sms == sms
    assert spec.peak_flops("fp32")[0] == pytest.approx(cores * 2 * boost_ghz * 1e9, rel=0.01)
    assert spec.figures["memory_bandwidth"].value == pytest.approx(bus_bits * gbps / 8 * 1e9, rel=0.01)


@pytest.mark.parametrize("name", ["GeForce GTX 1060 3GB", "GeForce GTX 1060", "Tesla K20Xm", "TITAN Xp",
                                  "NVIDIA TITAN V CEO Edition"])
def test_lookalike_names_stay_unknown(name):
    """A 1060 3GB has 9 SMs, a bare 1060 may be a laptop part, a K20X has 14 SMX: none is the spec added."""
    assert identify_device({"name": name}) is None


def test_pascal_consumer_occupancy_rules():
    """CC 6.1 (programming guide table): 64 warps, 32 blocks, 64 K registers and 96 KiB shared memory per SM."""
    lim = limits_for("6.1")
    assert (lim.max_warps_per_sm, lim.max_blocks_per_sm, lim.regs_per_sm, lim.smem_per_sm) == (64, 32, 65536,
                                                                                                96 * 1024)


def test_bare_h100_names_the_variants_it_may_be():
    tl = SimpleNamespace(events=None, meta=SimpleNamespace(devices=[{"name": "NVIDIA H100"}]),
                         of_kind=lambda *k: [])
    why = no_spec_reason(tl)
    assert "NVIDIA H100 SXM" in why and "NVIDIA H100 PCIe" in why
    assert "no built-in figures" not in why
