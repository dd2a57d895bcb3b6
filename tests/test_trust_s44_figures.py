"""Figures in reports that were wrong, unlabelled or impossible (session 44's known list): each test builds the
input, and its expected values are hand calculations written beside it.

1. a device spec file's figure no GPU could have (a unit slip) is refused in one line;
2. the gate's PASS band and the baseline noise it is derived from read as figures that add up;
3. lower-bound FLOP figures carry "≥" in every report;
4. a multi-GPU breakdown's busy % over a GPU with work of unknown duration says "at least";
5. a kernel above its roof: the reason is shown where "unknown" is shown;
6. `gpulens diff` of a graph-level trace against a kernel-level one says they are not like for like;
7. a kernel's time summed over several GPUs says so where it is shown.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import gpulens
from gpulens.errors import TraceFormatError


# --- 1. device spec figures no GPU could have -------------------------------------------------------------------


def _spec_file(tmp_path: Path, figures: dict) -> Path:
    p = tmp_path / "spec.json"
    p.write_text(json.dumps({"base": "H100 SXM", "figures": figures}))
    return p


@pytest.mark.parametrize("figures, words", [
    # an H100's 3.35 TB/s written in MB/s: 3,350,000 GB/s = 3,350,000 / 8,000 (B200, the largest built-in) = 419 ×
    ({"memory_bandwidth": 3_350_000}, "figure 'memory_bandwidth' 3,350,000 GB/s is 419 × the largest built-in GPU's "
                                      "(8,000 GB/s, NVIDIA B200)"),
    # written in TB/s: 3.35 GB/s is 272 / 3.35 = 81.2 → 1/81 of the smallest (RTX 4060, 272 GB/s)
    ({"memory_bandwidth": 3.35}, "figure 'memory_bandwidth' 3.35 GB/s is 1/81 of the smallest built-in GPU's "
                                 "(272 GB/s, NVIDIA GeForce RTX 4060)"),
    # H100 bf16 989 TFLOPS written in GFLOPS: 989,000 / 2,516.6 (MI355X) = 393 ×
    ({"matrix.bf16": 989_000}, "figure 'matrix.bf16' 989,000 TFLOPS is 393 × the largest built-in GPU's "
                               "(2,516.6 TFLOPS, AMD Instinct MI355X)"),
    # a clock in GHz: 1.98 MHz is 1,410 / 1.98 = 712 → 1/712 of the smallest (A100 PCIe 1,410 MHz)
    ({"clock_mhz": 1.98}, "figure 'clock_mhz' 1.98 MHz is 1/712 of the smallest built-in GPU's (1,410 MHz"),
])
def test_spec_figure_no_gpu_has_is_one_line_error(tmp_path, figures, words):
    from gpulens.devices.spec import load_spec

    p = _spec_file(tmp_path, figures)
    with pytest.raises(TraceFormatError) as e:
        load_spec(p)
    msg = str(e.value)
    assert words in msg and str(p) in msg and "\n" not in msg and "a unit slip?" in msg


def test_spec_figures_within_the_known_range_are_kept(tmp_path):
    from gpulens.devices.spec import load_spec

    # 2,000 GB/s (H100 PCIe) and 50 × the largest bandwidth (400,000 GB/s, the limit) are kept
    assert load_spec(_spec_file(tmp_path, {"memory_bandwidth": 2000})).memory_bandwidth == 2000e9
    assert load_spec(_spec_file(tmp_path, {"memory_bandwidth": 400_000})).memory_bandwidth == 400_000e9
