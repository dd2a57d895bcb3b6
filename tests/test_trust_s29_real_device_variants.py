"""A built-in spec's name pattern covers its own part only: other variants of the family run other clocks and
peaks, so they read unknown like any GPU the table lacks (the rule of test_trust_s29_left_device_specs.py).

Found on real inputs: lockfuehrer/beast_ressoruces @ 6671d7f ``report1.sqlite`` / ``report2.sqlite`` (nsys 2021,
TARGET_INFO_CUDA_GPU: two "Tesla V100-PCIE-32GB", ``coreClockRate`` 1380000 kHz, 80 SMs, cc 7.0) were analysed as
an "NVIDIA V100 SXM2" (its figures assume the SXM2's 1530 MHz boost); since session 50 they are the "NVIDIA V100
PCIe" entry's own. Same pattern breadth: "H200" matched the
H200 NVL card and "B200" the GB200 superchip. SM counts are NVIDIA's (V100 family 80, H200 132, B200 148).
"""

from __future__ import annotations

import pytest

from gpulens.devices import get_spec, identify_device


@pytest.mark.parametrize("rec", [
    {"name": "Tesla V100-FHHL-16GB", "compute_capability": "7.0", "num_sms": 80},
    {"name": "Tesla V100-SXM3-32GB", "compute_capability": "7.0", "num_sms": 80},
    {"name": "Tesla V100S-PCIE-32GB", "compute_capability": "7.0", "num_sms": 80},
    {"name": "NVIDIA H200 NVL", "compute_capability": "9.0", "num_sms": 132},
    {"name": "NVIDIA GB200", "compute_capability": "10.0", "num_sms": 148},
])
def test_another_variant_of_a_family_is_unknown(rec):
    assert identify_device(rec) is None


@pytest.mark.parametrize("rec,want", [
    ({"name": "Tesla V100-SXM2-32GB", "compute_capability": "7.0", "num_sms": 80}, "NVIDIA V100 SXM2"),
    ({"name": "Tesla V100-SXM2-16GB", "compute_capability": "7.0", "num_sms": 80}, "NVIDIA V100 SXM2"),
    ({"name": "Tesla V100-DGXS-32GB", "compute_capability": "7.0", "num_sms": 80}, "NVIDIA V100 SXM2"),
    # the PCIe card has its own entry (1380 MHz, 14 TFLOPS FP32) since session 50, never the SXM2's figures
    ({"name": "Tesla V100-PCIE-32GB", "compute_capability": "7.0", "num_sms": 80}, "NVIDIA V100 PCIe"),
    ({"name": "Tesla V100-PCIE-16GB", "compute_capability": "7.0", "num_sms": 80}, "NVIDIA V100 PCIe"),
    ({"name": "NVIDIA H200", "compute_capability": "9.0", "num_sms": 132}, "NVIDIA H200 SXM"),
    ({"name": "NVIDIA B200", "compute_capability": "10.0", "num_sms": 148}, "NVIDIA B200"),
    ({"name": "NVIDIA GH200 480GB", "compute_capability": "9.0", "num_sms": 132,
      "total_memory_bytes": 101_468_602_368}, "NVIDIA GH200 96GB HBM3"),
])
def test_the_parts_themselves_still_match(rec, want):
    assert identify_device(rec).name == want


def test_short_names_still_name_the_built_in_parts():
    # a device-spec file's "base" and the tests use these short names
    assert get_spec("V100").name == "NVIDIA V100 SXM2"
    assert get_spec("H200").name == "NVIDIA H200 SXM"
    assert get_spec("B200").name == "NVIDIA B200"
