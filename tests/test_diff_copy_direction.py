"""diff matches unmatched rows by their launching op and shapes; a copy's direction is part of what the work is:
``aten::copy_`` of the same shapes copying device → host in one run and device → device in the other are two
pieces of work (a new user saw a DtoH copy matched to a DtoD copy as "op+shapes", BERT H100 vs MI300X)."""

from __future__ import annotations

import pytest

from gpulens.diff import diff
from gpulens.diff.compute import copy_direction
from tests.dig_traces import H100, KTrace


@pytest.mark.parametrize("name, want", [("Memcpy DtoH (Device -> Pageable)", "DtoH"),
                                        ("Memcpy HtoD (Pinned -> Device)", "HtoD"),
                                        ("CopyDeviceToDevice", "DtoD"), ("MEMORY_COPY_HOST_TO_DEVICE", "HtoD"),
                                        ("Memcpy PtoP (Device -> Device)", "PtoP"), ("Memset (Device)", "")])
def test_copy_direction_from_the_name(name, want):
    assert copy_direction(name) == want


def _run(path, copy_name: str, us: float):
    t = KTrace(H100)
    for i in range(3):
        op = t.op("aten::copy_", 100 + 50 * i, 20, dims=[[1024, 1024], [1024, 1024]], types=["float", "float"])
        t.launch(op, 101 + 50 * i, [(copy_name, 1000 + 100 * i, us)], api="cudaMemcpyAsync", cat="gpu_memcpy")
    return t.write(path)


def test_copies_of_other_directions_are_not_matched_by_op(tmp_path):
    r = diff(_run(tmp_path / "b.json", "Memcpy DtoH (Device -> Pageable)", 10.0),
             _run(tmp_path / "c.json", "Memcpy DtoD (Device -> Device)", 4.0))
    k = r.tables["kernels"]
    assert "op+shapes" not in set(k["match"])
    # the same direction under another name (the CUDA vs HIP spelling) is matched by op and shapes: 30 → 12 µs
    r2 = diff(_run(tmp_path / "b2.json", "Memcpy DtoH (Device -> Pageable)", 10.0),
              _run(tmp_path / "c2.json", "CopyDeviceToHost", 4.0))
    k2 = r2.tables["kernels"]
    row = k2[k2["match"] == "op+shapes"]
    assert len(row) == 1 and row["delta_ns"].iloc[0] == -18_000 and "DtoH" in row["kernel"].iloc[0]
