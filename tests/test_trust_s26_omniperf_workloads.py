"""A folder holding several rocprofiler-compute (Omniperf) workloads — ``workloads/vcopy/MI200/`` and
``workloads/vcopy/MI300X_A1/`` — holds several runs: a one-line error lists them and asks for one (it was read as
18 files of 18 "ranks", MI200 and MI300X dispatches mixed). A folder above exactly one workload reads it.

Figures from the files (../shared/traces/SOURCES.md, omniperf): vcopy_MI200 ``pmc_perf.csv`` 3 dispatches of
``vecCopy``, timestamps 20,480 / 16,320 / 15,520 ns; SQ_WAVES 16,384 on dispatch 0.
"""

from __future__ import annotations

import shutil

import pytest

from gpulens.collectors import collect
from gpulens.errors import TraceFormatError
from tests.conftest import shared_trace

MI200 = shared_trace("omniperf/vcopy_MI200")
MI300 = shared_trace("omniperf/vcopy_MI300X_A1")


@pytest.mark.parametrize("top", ["workloads", "workloads/vcopy"])
def test_two_workloads_are_refused_with_both_named(tmp_path, top):
    shutil.copytree(MI200, tmp_path / "workloads/vcopy/MI200")
    shutil.copytree(MI300, tmp_path / "workloads/vcopy/MI300X_A1")
    with pytest.raises(TraceFormatError) as e:
        collect(tmp_path / top)
    msg = str(e.value)
    assert "\n" not in msg and "2 rocprofiler-compute workloads" in msg
    assert "MI200" in msg and "MI300X_A1" in msg and "pass one" in msg


def test_a_folder_above_one_workload_reads_it(tmp_path):
    shutil.copytree(MI200, tmp_path / "workloads/vcopy/MI200")
    tl = collect(tmp_path / "workloads")
    k = tl.of_kind("kernel")
    assert len(k) == 3 and k["dur_ns"].tolist() == [20_480, 16_320, 15_520]
    assert set(k["rank"]) == {0}
    assert any("vcopy/MI200" in w for w in tl.meta.warnings)


def test_a_workload_with_another_below_it_warns_naming_it(tmp_path):
    shutil.copytree(MI200, tmp_path / "w")
    shutil.copytree(MI300, tmp_path / "w" / "MI300X_A1")
    tl = collect(tmp_path / "w")
    assert len(tl.of_kind("kernel")) == 3  # its own pmc_perf.csv only
    assert any("not read" in w and "MI300X_A1" in w for w in tl.meta.warnings)
