"""A time at stake computed from an assumed GPU's figures says so: the CodeGandee ncu details CSVs record compute
capability 12.0 and no GPU name or SM count (SOURCES.md), so gpulens assumes an RTX 5090 (also possible: RTX 5070,
5060). A distance to that GPU's peaks, or waves on its 170 SMs, holds only if the GPU is one — such figures carry a
premise (ranked after measured ones, shown after the title and beside the verdict table's figure); a figure measured
by the speed-of-light counters needs none.
"""

from __future__ import annotations

import csv
from pathlib import Path

import gpulens
from tests.conftest import DATA

NCU = DATA / "nvidia"  # the committed copies of ../shared/traces/ncu
K5 = NCU / "codegandee_rtx5090_ncu-v2_kernel_0005_details.csv"
K13 = NCU / "codegandee_rtx5090_ncu-v2_kernel_0013_details.csv"


def _findings(path, **kw):
    return {f.key: f for f in gpulens.analyze([path], **kw).sources[0].findings()}


def _without_speed_of_light(tmp_path) -> Path:
    """kernel_0005 with only its FLOP, byte and duration metrics (the SpeedOfLight, memory, scheduler and occupancy
    sections and the two throughput % metrics dropped): a roofline on the assumed GPU's peaks is all that places it."""
    rows = list(csv.reader(K5.open()))
    keep = [rows[0]] + [r for r in rows[1:] if len(r) > 12 and r[11] == "Command line profiler metrics"
                        and "throughput" not in r[12]]
    out = tmp_path / "k5.csv"
    with out.open("w", newline="") as fh:
        csv.writer(fh, quoting=csv.QUOTE_ALL).writerows(keep)
    return out


def test_roofline_stake_on_assumed_peaks_has_a_premise(tmp_path):
    # before: "compute-bound — 51.99 µs at stake" as a determined figure, the GPU's name nowhere beside it
    src = gpulens.analyze([_without_speed_of_light(tmp_path)]).sources[0]
    f = {x.key: x for x in src.findings()}
    name = next(k for k in f if k and k.startswith("kernel:"))
    verdict = f[name]
    assert verdict.category == "compute-bound" and verdict.time_at_stake_ns
    assert "assumed NVIDIA GeForce RTX 5090" in verdict.premise
    assert "assumed NVIDIA GeForce RTX 5090" in f["roofline:" + name[7:]].premise
    row = src.results["verdicts"].table.iloc[0]
    assert row["stake_note"] == verdict.premise  # the verdict table marks its figure with the same clause


def test_named_gpu_needs_no_premise(tmp_path):
    # the same figures on a GPU the user names (--device-spec): the peaks are that GPU's, not assumed
    from gpulens.devices import get_spec

    f = _findings(_without_speed_of_light(tmp_path), device_spec=get_spec("NVIDIA GeForce RTX 5090"))
    name = next(k for k in f if k and k.startswith("kernel:"))
    assert f[name].premise == "" and f[name].time_at_stake_ns


def test_measured_speed_of_light_stake_needs_no_premise():
    # compute (SM) 32.10 %, memory 27.74 % measured: 111.81 µs × (1 − 0.321) = 75.92 µs, no assumed figure in it
    f = _findings(K5)
    name = next(k for k in f if k and k.startswith("kernel:"))
    assert f[name].time_at_stake_ns == round(111_810 * (1 - 0.3210))
    assert f[name].premise == "" and f["roofline:" + name[7:]].premise == ""


def test_waves_on_assumed_sm_count_have_a_premise():
    # grid (1, 8, 10) = 80 blocks, 1 resident per SM (Block Limit Shared Mem 1), on the assumed 170 SMs:
    # 80 / 170 = 0.47 waves, so up to 10.34 µs × (1 − 80/170) = 5.47 µs — on a 48-SM RTX 5070 it would be 1.67 waves
    f = _findings(K13)
    wave = next(x for k, x in f.items() if k and k.endswith("/waves"))
    assert wave.time_at_stake_ns == round(10_340 * (1 - 80 / 170))
    assert "170 SMs" in wave.premise and "assumed NVIDIA GeForce RTX 5090" in wave.premise
