"""Speed work of session 38 on the load side (issue 16): each faster path gives what the slower one gave.

Expected values are written by hand from the inputs built here, never taken from gpulens's output.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gpulens.collectors._assemble import any_kind


def test_any_kind_reads_the_rows_not_the_category_list():
    # "kernel" is a category of the column but no row holds it: no kernel ran (a test of the categories alone
    # would say one did); a missing value (code -1) is no kind at all
    col = pd.Categorical(["cpu_op", None, "cpu_op"], categories=["cpu_op", "kernel", "runtime"])
    assert any_kind(col, ("kernel", "memcpy")) is False
    assert any_kind(col, ("cpu_op",)) is True
    assert any_kind(pd.Categorical([None, None], categories=["kernel"]), ("kernel",)) is False
    # the last row only, among a million host rows
    codes = np.zeros(1_000_001, dtype=np.int8)
    codes[-1] = 2
    big = pd.Categorical.from_codes(codes, categories=["cpu_op", "kernel", "sync"])
    assert any_kind(big, ("sync",)) is True
    assert any_kind(big, ("kernel", "comm")) is False


def test_any_kind_of_plain_texts():
    # a column of plain texts (no categories): the same answers, compared as text as before
    assert any_kind(np.array(["cpu_op", "memset"], dtype=object), ("memset",)) is True
    assert any_kind(["cpu_op", None], ("kernel",)) is False


def _int32(values, missing=()):
    """An Int32 column whose stored value under each missing row is a wild number (-5 or 10^9): a check that read
    the stored values where the mask says missing would find them impossible."""
    data = np.array(values, dtype=np.int32)
    mask = np.zeros(len(values), dtype=bool)
    mask[list(missing)] = True
    return pd.arrays.IntegerArray(data, mask)


def test_scrub_launch_config_reads_only_valid_values():
    from gpulens.timeline.launch import scrub_launch_config

    # rows: 0 fine; 1 grid_x 0; 2 block 64×32 = 2048 threads (> 1024); 3 300 registers on an nsys (NVIDIA) row
    # (> 255); 4 300 registers on a Kineto row of unknown vendor (≤ 512: kept); 5 all missing, stored values wild;
    # 6 dynamic shared memory 300,000 B (> 232,448 B, the largest of any architecture)
    na = (5,)
    ev = pd.DataFrame({
        "source": pd.Categorical(["kineto", "kineto", "kineto", "nsys", "kineto", "kineto", "kineto"]),
        "grid_x": _int32([4, 0, 4, 4, 4, -5, 4], na), "grid_y": _int32([1, 1, 1, 1, 1, -5, 1], na),
        "grid_z": _int32([1, 1, 1, 1, 1, -5, 1], na),
        "block_x": _int32([256, 256, 64, 128, 128, 10 ** 9, 128], na),
        "block_y": _int32([1, 1, 32, 1, 1, 10 ** 9, 1], na), "block_z": _int32([1, 1, 1, 1, 1, -5, 1], na),
        "regs_per_thread": _int32([32, 32, 32, 300, 300, 10 ** 9, 32], na),
        "smem_static_bytes": _int32([0, 0, 0, 0, 0, -5, 0], na),
        "smem_dynamic_bytes": _int32([1024, 1024, 1024, 1024, 1024, 10 ** 9, 300_000], na),
    })
    got = scrub_launch_config(ev, [])
    assert got == {"grid": 1, "block": 1, "registers": 1, "shared memory": 1}
    assert ev.loc[1, ["grid_x", "grid_y", "grid_z"]].isna().all() and ev.loc[1, "block_x"] == 256
    for row in (2, 3, 6):  # block, registers and shared memory go together; the grid stays
        assert ev.loc[row, ["block_x", "block_y", "block_z", "regs_per_thread", "smem_static_bytes",
                            "smem_dynamic_bytes"]].isna().all()
        assert ev.loc[row, "grid_x"] == 4
    assert ev.loc[4, "regs_per_thread"] == 300 and ev.loc[0].notna().all()
    assert ev.loc[5].drop("source").isna().all()
