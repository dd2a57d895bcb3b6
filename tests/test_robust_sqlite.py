"""One rule for SQLite values of the wrong storage class (issue 17 class 1): nsys reads its integer columns through
the same declared-schema cast as rocpd (:func:`gpulens.collectors._sqlite.int_rows`) — TEXT '1500' and REAL 1500.0
are the integer 1500; 'x', '', 1.5 and BLOBs are not integers (row dropped and counted).

Inputs are hand-made nsys-like exports (tables without type affinity, so SQLite keeps each value as written);
expected values are the arithmetic on the values written here.
"""

from __future__ import annotations

import sqlite3

from gpulens.collectors import collect
from gpulens.collectors._sqlite import int_rows

from .test_robust_types import _nsys_db


# the fuzzer's nsys seed (3 kernels, 2 runtime calls, 1 NVTX range, 1 memcpy) with tables replaced by `sql`
_db = _nsys_db


def test_nsys_integer_stored_as_text_or_integral_real_is_that_integer(tmp_path):
    # No column affinity: '1500' stays TEXT, 2600.0 stays REAL (typeof() says so, checked below).
    p = _db(tmp_path, """
        DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, correlationId, shortName, gridX);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
            ('1000', '1500', 0, 7, 10, 1, '64'),      -- TEXT integers: 1500 - 1000 = 500 ns, grid 64
            (2000, 2600.0, '0', 7, 11, 1, 64),        -- integral REAL end: 600 ns
            (3000, ' 3300 ', 0, 7, 12, 1, 8),         -- TEXT with spaces around the digits: 300 ns
            (4000, '4500x', 0, 7, 13, 1, 8),          -- not an integer: dropped
            (5000, 5000.5, 0, 7, 14, 1, 8);           -- a fraction is not an integer: dropped
    """)
    con = sqlite3.connect(p)
    assert con.execute("SELECT typeof(start), typeof([end]) FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1").fetchone() == (
        "text", "text")
    con.close()
    tl = collect(p)
    k = tl.of_kind("kernel", "comm").sort_values("start_ns")
    assert k["start_ns"].tolist() == [1000, 2000, 3000]
    assert k["dur_ns"].tolist() == [500, 600, 300]
    assert k["grid_x"].tolist() == [64, 64, 8]
    assert k["name"].astype(str).tolist() == ["gemm"] * 3
    assert any("2 rows of CUPTI_ACTIVITY_KIND_KERNEL dropped" in w for w in tl.meta.warnings), tl.meta.warnings


def test_nsys_text_ids_resolve_names_and_nvtx_rows(tmp_path):
    # StringIds keyed by TEXT '1' and an NVTX row whose thread id and event type are TEXT: all read as integers.
    p = _db(tmp_path, """
        DROP TABLE StringIds;
        CREATE TABLE StringIds (id, value);
        INSERT INTO StringIds VALUES ('1', 'gemm'), ('2', 'cudaLaunchKernel_v7000'), ('3', 'step 0'), ('4', 'nccl_ar');
        DROP TABLE NVTX_EVENTS;
        CREATE TABLE NVTX_EVENTS (start, end, eventType, text, textId, globalTid);
        INSERT INTO NVTX_EVENTS VALUES ('800', '4000', '59', NULL, '3', '5033164842');
    """)
    tl = collect(p)
    a = tl.of_kind("annotation")
    assert a["name"].astype(str).tolist() == ["step 0"] and a["dur_ns"].tolist() == [3200]  # 4000 - 800
    # globalTid 5033164842 = 300 << 24 | 42: pid 300, tid 42 (nsys' packing)
    assert a["pid"].tolist() == [300] and a["tid"].tolist() == [42]
    assert sorted(set(tl.of_kind("kernel", "comm")["name"].astype(str))) == ["gemm", "nccl_ar"]
    assert not any("not found in StringIds" in w for w in tl.meta.warnings), tl.meta.warnings


def test_nsys_kernel_table_without_a_device_column_is_device_0(tmp_path):
    # A GPU row whose device the export does not say is device 0 (the rule of the AMD readers), not a crash.
    p = _db(tmp_path, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME COLUMN deviceId TO deviceId_x;")
    tl = collect(p)
    k = tl.of_kind("kernel", "comm")
    assert sorted(k["dur_ns"].tolist()) == [300, 500, 600] and set(k["device_id"]) == {0}
    assert set(tl.of_kind("runtime")["device_id"]) == {-1}


def test_int_rows_counts_and_reads_one_rule(tmp_path):
    con = sqlite3.connect(tmp_path / "t.db")
    con.executescript("CREATE TABLE t (a, b); INSERT INTO t VALUES (1, 2), ('3', 4.0), ('x', 5), (NULL, 7), "
                      "(9223372036854775807, -1);")
    sql, keep, dropped = int_rows(con, "t", ["a", "b"], ["{a} - {b}"])
    rows = con.execute(f"SELECT {sql['a']}, {sql['b']} FROM t WHERE {keep}").fetchall()
    # 'x' is not an integer; 2^63-1 - (-1) overflows int64 (SQLite makes it REAL): 2 rows dropped
    assert rows == [(1, 2), (3, 4), (None, 7)] and dropped == 2
    con.close()


def test_rocprof_v1_db_blob_cells_are_unknown_and_counted(tmp_path):
    # rocprof v1 results.db (the fuzzer's seed): one kernel in OPS, 3431611 ns (622109247848451 - 622109244416840).
    # A BLOB in its dev-id and in its Name: the kernel is kept (device 0: not said; name unknown), 2 cells counted.
    from .fuzzing import _v1_db

    p = tmp_path / "results.db"
    _v1_db(p)
    con = sqlite3.connect(p)
    con.execute("""UPDATE OPS SET "dev-id" = X'00ff', "Name" = X'ff'""")
    con.commit()
    con.close()
    tl = collect(p)
    k = tl.of_kind("kernel")
    assert k["dur_ns"].tolist() == [3431611] and k["device_id"].tolist() == [0]
    assert any("2 BLOB values" in w for w in tl.meta.warnings), tl.meta.warnings


def test_nsys_table_without_its_time_columns_is_named_in_a_warning(tmp_path):
    # A runtime table without `start` cannot give intervals: it was skipped without a word. The kernels (3 in the
    # seed) are still read.
    p = _db(tmp_path, 'ALTER TABLE CUPTI_ACTIVITY_KIND_RUNTIME DROP COLUMN "start";')
    tl = collect(p)
    assert len(tl.of_kind("runtime")) == 0 and len(tl.of_kind("kernel", "comm")) == 3
    assert any("CUPTI_ACTIVITY_KIND_RUNTIME has no start column" in w for w in tl.meta.warnings), tl.meta.warnings


def test_nsys_kernels_without_any_name_column_are_unnamed_and_counted(tmp_path):
    p = _db(tmp_path, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN shortName; "
                      "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN demangledName;")
    tl = collect(p)
    k = tl.of_kind("kernel", "comm")
    assert k["name"].astype(str).tolist() == ["(unnamed)"] * 3 and sorted(k["dur_ns"]) == [300, 500, 600]
    assert any("3 name ids not found" in w for w in tl.meta.warnings), tl.meta.warnings
