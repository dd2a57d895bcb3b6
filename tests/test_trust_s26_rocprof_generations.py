"""A folder holding both rocprof v1 and rocprofv3 outputs holds two runs (the two tools never write one run).
Expected (decided for the user, see gpulens.collectors._amd_generations): a one-line error naming both file sets
and asking for one run; with --lenient the run of the folder's layout is read and a warning names how many files
of the other tool were left out. Never the other tool's files passed over in silence.

Inputs (../shared/traces/SOURCES.md): the Gunrock rocprof v1 ``results.csv`` (56 dispatches) and the rocprofiler-sdk
docs' ``kernel_trace.csv`` (7 dispatches); the seismic v1 counter pass ``bankconflicts.csv`` beside the docs' v3
CSVs (kernel_trace 7 dispatches).
"""

from __future__ import annotations

import shutil

import pytest

from gpulens.collectors import collect
from gpulens.errors import TraceFormatError
from tests.conftest import shared_trace

V1 = shared_trace("rocprof/v1_gunrock_mi300x")
V3 = shared_trace("rocprof/v3_csv_sdk_docs")
PASS = shared_trace("rocprof/v1_pmc_seismic_mi250x/bankconflicts.csv")


def _v1_with_v3(tmp_path):
    for f in ("results.csv", "results.stats.csv"):
        shutil.copy(V1 / f, tmp_path / f)
    shutil.copy(V3 / "kernel_trace.csv", tmp_path / "kernel_trace.csv")
    return tmp_path


def _v3_with_v1(tmp_path):
    for f in ("kernel_trace.csv", "counter_collection.csv", "memory_copy_trace.csv"):
        shutil.copy(V3 / f, tmp_path / f)
    shutil.copy(PASS, tmp_path / "bankconflicts.csv")
    return tmp_path


@pytest.mark.parametrize("build, named", [(_v1_with_v3, ("results.csv", "kernel_trace.csv")),
                                          (_v3_with_v1, ("kernel_trace.csv", "bankconflicts.csv"))])
def test_both_generations_in_one_folder_is_a_one_line_error(tmp_path, build, named):
    p = build(tmp_path)
    with pytest.raises(TraceFormatError) as e:
        collect(p)
    msg = str(e.value)
    assert "\n" not in msg and "two profiler runs" in msg and "pass one run" in msg
    assert all(n in msg for n in named)


def test_lenient_reads_the_v1_run_and_counts_the_v3_file_left_out(tmp_path):
    tl = collect(_v1_with_v3(tmp_path), strict=False)
    assert len(tl.of_kind("kernel")) + len(tl.of_kind("memcpy")) + len(tl.of_kind("memset")) == 56  # results.csv
    assert any("1 rocprofv3 file not read" in w for w in tl.meta.warnings)


def test_lenient_reads_the_v3_run_and_counts_the_v1_file_left_out(tmp_path):
    tl = collect(_v3_with_v1(tmp_path), strict=False)
    assert len(tl.of_kind("kernel")) == 7  # kernel_trace.csv; none of bankconflicts.csv's 1,024 dispatches
    assert any("1 rocprof v1 file not read" in w for w in tl.meta.warnings)


def test_one_generation_folders_are_unchanged(tmp_path):
    shutil.copytree(V3, tmp_path / "v3")
    tl = collect(tmp_path / "v3")  # its hip_api_stats.csv is in the v1 stats layout: no v1 trace, no error
    assert len(tl.of_kind("kernel")) == 7
    assert not any("two profiler runs" in w for w in tl.meta.warnings)
