"""AMD grid sizes (issue 17): rocprof writes the grid in work-items and gpulens reports it in workgroups,
``ceil(items / workgroup size)``. When the workgroup size is unknown the grid in workgroups is unknown too — never
the raw work-item count.

Input: the first kernel row of the rocprofv3 SDK-docs kernel_trace.csv (grid 1024 × 1024 × 1 work-items, workgroup
64 × 1 × 1), written inline with cells blanked.
"""

from __future__ import annotations

from gpulens.collectors import collect

HEADER = ('"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",'
          '"Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X",'
          '"Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"\n')
ROW = '"KERNEL_DISPATCH",1,1,69,{d},16,"addition_kernel",{d},{b},{e},0,0,{wx},{wy},1,{gx},{gy},1\n'


def test_grid_in_workgroups_is_unknown_when_the_workgroup_size_is(tmp_path):
    p = tmp_path / "kernel_trace.csv"
    p.write_text(HEADER
                 + ROW.format(d=1, b=1000, e=2000, wx=64, wy=1, gx=1024, gy=1024)   # 1024/64 = 16, 1024/1
                 + ROW.format(d=2, b=3000, e=4000, wx="", wy=1, gx=1024, gy=1024)   # x size unknown
                 + ROW.format(d=3, b=5000, e=6000, wx=64, wy="", gx=1000, gy=1))    # ceil(1000/64) = 16; y: 1 item
    k = collect(p).of_kind("kernel").sort_values("start_ns")
    assert k["grid_x"].tolist()[0] == 16 and k["grid_y"].tolist()[0] == 1024
    assert k["grid_x"].isna().tolist() == [False, True, False]  # not 1024 work-items posing as workgroups
    assert k["grid_y"].tolist()[1] == 1024
    # 1000 items in groups of 64 → 16 groups (the last one partial); 1 work-item is 1 workgroup of any size
    assert k["grid_x"].tolist()[2] == 16 and k["grid_y"].tolist()[2] == 1
    assert k["block_x"].isna().tolist() == [False, True, False]


def test_negative_timestamps_and_sizes_are_not_values(tmp_path):
    # AMD timestamps are unsigned ns: a negative one (a -1 sentinel written signed) is no event; a negative
    # workgroup or grid size is unknown. Row 1 is intact (1000 ns); row 2 has a negative start; row 3 has a negative
    # workgroup x size (-64) and grid y (-1024): the event is kept, those two values unknown.
    p = tmp_path / "kernel_trace.csv"
    p.write_text(HEADER
                 + ROW.format(d=1, b=1000, e=2000, wx=64, wy=1, gx=1024, gy=1024)
                 + ROW.format(d=2, b=-1, e=4000, wx=64, wy=1, gx=1024, gy=1024)
                 + ROW.format(d=3, b=5000, e=6000, wx=-64, wy=1, gx=1024, gy=-1024))
    tl = collect(p)
    k = tl.of_kind("kernel").sort_values("start_ns")
    assert k["start_ns"].tolist() == [1000, 5000] and k["dur_ns"].tolist() == [1000, 1000]
    assert k["block_x"].isna().tolist() == [False, True] and k["grid_y"].isna().tolist() == [False, True]
    assert k["grid_x"].isna().tolist() == [False, True]  # 1024 work-items in workgroups of unknown size
    assert tl.rejected["reason"].tolist() == ["negative timestamp (AMD timestamps are unsigned)"]
    assert any("2 negative size or count values" in w for w in tl.meta.warnings), tl.meta.warnings


def test_rows_without_a_name_are_named_and_counted(tmp_path):
    # an empty Kernel_Name cell: the kernel is kept under a visible placeholder (it was NaN, and NaN-named kernels
    # fell out of every per-kernel table: "2 launches of 0 kernels")
    p = tmp_path / "kernel_trace.csv"
    p.write_text(HEADER
                 + ROW.format(d=1, b=1000, e=2000, wx=64, wy=1, gx=1024, gy=1024)
                 + ROW.format(d=2, b=3000, e=4500, wx=64, wy=1, gx=1024, gy=1024).replace('"addition_kernel"', '""'))
    tl = collect(p)
    k = tl.of_kind("kernel").sort_values("start_ns")
    assert k["name"].astype(str).tolist() == ["addition_kernel", "(unnamed)"]
    assert any("1 row without a name" in w for w in tl.meta.warnings), tl.meta.warnings
