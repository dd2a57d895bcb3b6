"""rocpd SQLite. No real rocpd database was available, so each test builds one from the documented schema
(rocprofiler-sdk ``rocpd_tables.sql``, schema_version 3): layout A keeps times in ``rocpd_timestamp`` and agents in
``rocpd_track`` under UUID-suffixed table names; layout B has inline ``start``/``end``/``agent_id``/``queue_id`` and
un-suffixed names. Only the columns the reader needs (plus a few others) are created."""

from __future__ import annotations

import json
import sqlite3

import pandas as pd
import pytest

from gpulens.collectors import collect, sniff
from gpulens.errors import TraceFormatError

U = "_0f1e2d3c"
GPU_EXT = json.dumps({"name": "gfx942", "cu_count": 304, "wave_front_size": 64, "simd_per_cu": 4})


def _common(con, sfx):
    con.executescript(f"""
    CREATE TABLE rocpd_metadata{sfx} (id INTEGER PRIMARY KEY, tag TEXT, value TEXT);
    INSERT INTO rocpd_metadata{sfx} (tag, value) VALUES ('schema_version', '3');
    CREATE TABLE rocpd_string{sfx} (id INTEGER PRIMARY KEY, guid TEXT, string TEXT);
    INSERT INTO rocpd_string{sfx} VALUES (1, 'g', 'MEMORY_COPY_HOST_TO_DEVICE'), (2, 'g', 'hipLaunchKernel'),
        (3, 'g', 'HIP_RUNTIME_API'), (4, 'g', 'step_3'), (5, 'g', 'MARKER_CORE_API');
    CREATE TABLE rocpd_info_agent{sfx} (id INTEGER PRIMARY KEY, guid TEXT, nid INT, pid INT, type TEXT,
        absolute_index INT, logical_index INT, type_index INT, uuid INT, name TEXT, generic_name TEXT,
        model_name TEXT, vendor_name TEXT, product_name TEXT, extdata JSONB);
    INSERT INTO rocpd_info_agent{sfx} VALUES (1, 'g', 1, 1, 'CPU', 0, 0, 0, 0, NULL, NULL, NULL, 'CPU', 'EPYC', '{{}}'),
        (2, 'g', 1, 1, 'GPU', 5, 5, 0, 0, NULL, NULL, NULL, 'AMD', 'AMD Instinct MI300X', '{GPU_EXT}');
    CREATE TABLE rocpd_info_kernel_symbol{sfx} (id INTEGER PRIMARY KEY, guid TEXT, nid INT, pid INT,
        code_object_id INT, kernel_name TEXT, display_name TEXT, group_segment_size INT, private_segment_size INT,
        sgpr_count INT, arch_vgpr_count INT, accum_vgpr_count INT, extdata JSONB);
    INSERT INTO rocpd_info_kernel_symbol{sfx} VALUES
        (10, 'g', 1, 1, 1, '_Z4gemmPf.kd', 'gemm(float*)', 0, 0, 48, 128, 64, '{{}}'),
        (11, 'g', 1, 1, 1, '_Z3addPf.kd', 'add(float*)', 0, 0, 16, 8, 0, '{{}}');
    CREATE TABLE rocpd_event{sfx} (id INTEGER PRIMARY KEY, guid TEXT, category_id INT, correlation_id INT,
        extdata JSONB);
    INSERT INTO rocpd_event{sfx} VALUES (100, 'g', NULL, 41, '{{}}'), (101, 'g', NULL, 42, '{{}}'),
        (102, 'g', 3, 40, '{{}}'), (103, 'g', 5, 0, '{{}}');
    CREATE TABLE rocpd_info_pmc{sfx} (id INTEGER PRIMARY KEY, guid TEXT, nid INT, pid INT, agent_id INT,
        name TEXT, symbol TEXT, units TEXT);
    INSERT INTO rocpd_info_pmc{sfx} VALUES (7, 'g', 1, 1, 2, 'SQ_WAVES', 'SQ_WAVES', ''),
        (8, 'g', 1, 1, 2, 'GRBM_GUI_ACTIVE', 'GRBM_GUI_ACTIVE', '');
    CREATE TABLE rocpd_pmc_event{sfx} (id INTEGER PRIMARY KEY, guid TEXT, event_id INT, pmc_id INT, value REAL);
    INSERT INTO rocpd_pmc_event{sfx} (guid, event_id, pmc_id, value) VALUES ('g', 100, 7, 1000), ('g', 100, 7, 24),
        ('g', 101, 7, 16), ('g', 101, 8, 5000);
    """)


def build_layout_a(path):
    """Times through rocpd_timestamp, agent/queue through rocpd_track; UUID-suffixed tables, no views."""
    con = sqlite3.connect(path)
    _common(con, U)
    con.executescript(f"""
    CREATE TABLE rocpd_track{U} (id INTEGER PRIMARY KEY, guid TEXT, nid INT, pid INT, tid INT, agent_id INT,
        queue_id INT, stream_id INT, name_id INT);
    INSERT INTO rocpd_track{U} VALUES (1, 'g', 1, 1, NULL, 2, 3, NULL, NULL),
        (2, 'g', 1, 1, 77, NULL, NULL, NULL, NULL);
    CREATE TABLE rocpd_timestamp{U} (id INTEGER PRIMARY KEY, guid TEXT, value BIGINT, phase INT, track_id INT);
    INSERT INTO rocpd_timestamp{U} VALUES (1, 'g', 5000, 1, 1), (2, 'g', 9000, 2, 1), (3, 'g', 9500, 1, 1),
        (4, 'g', 9800, 2, 1), (5, 'g', 1000, 1, 1), (6, 'g', 3000, 2, 1), (7, 'g', 4000, 1, 2), (8, 'g', 4100, 2, 2),
        (9, 'g', 3900, 1, 2), (10, 'g', 9900, 2, 2);
    CREATE TABLE rocpd_kernel_dispatch{U} (id INTEGER PRIMARY KEY, guid TEXT, track_id INT, kernel_id INT,
        dispatch_id INT, start_id INT, end_id INT, private_segment_size INT, group_segment_size INT,
        workgroup_size_x INT, workgroup_size_y INT, workgroup_size_z INT, grid_size_x INT, grid_size_y INT,
        grid_size_z INT, region_name_id INT, event_id INT, extdata JSONB);
    INSERT INTO rocpd_kernel_dispatch{U} VALUES
        (1, 'g', 1, 10, 1, 1, 2, 0, 65536, 256, 1, 1, 262144, 2, 1, NULL, 100, '{{}}'),
        (2, 'g', 1, 11, 2, 3, 4, 32, 0, 64, 1, 1, 1000, 1, 1, NULL, 101, '{{}}');
    CREATE TABLE rocpd_memory_copy{U} (id INTEGER PRIMARY KEY, guid TEXT, track_id INT, start_id INT, end_id INT,
        name_id INT, dst_agent_id INT, src_agent_id INT, size INT, event_id INT);
    INSERT INTO rocpd_memory_copy{U} VALUES (1, 'g', 1, 5, 6, 1, 2, 1, 1048576, NULL);
    CREATE TABLE rocpd_region{U} (id INTEGER PRIMARY KEY, guid TEXT, track_id INT, name_id INT, start_id INT,
        end_id INT, event_id INT);
    INSERT INTO rocpd_region{U} VALUES (1, 'g', 2, 2, 7, 8, 102), (2, 'g', 2, 4, 9, 10, 103);
    """)
    con.commit()
    con.close()


def build_layout_b(path):
    """Inline start/end/agent_id/queue_id; un-suffixed table names."""
    con = sqlite3.connect(path)
    _common(con, "")
    con.executescript("""
    CREATE TABLE rocpd_kernel_dispatch (id INTEGER PRIMARY KEY, guid TEXT, nid INT, pid INT, tid INT, agent_id INT,
        kernel_id INT, dispatch_id INT, queue_id INT, stream_id INT, start BIGINT, "end" BIGINT,
        private_segment_size INT, group_segment_size INT, workgroup_size_x INT, workgroup_size_y INT,
        workgroup_size_z INT, grid_size_x INT, grid_size_y INT, grid_size_z INT, event_id INT);
    INSERT INTO rocpd_kernel_dispatch VALUES
        (1, 'g', 1, 1, 77, 2, 10, 1, 3, 0, 5000, 9000, 0, 65536, 256, 1, 1, 262144, 2, 1, 100),
        (2, 'g', 1, 1, 77, 2, 11, 2, 3, 0, 9500, 9800, 32, 0, 64, 1, 1, 1000, 1, 1, 101);
    """)
    con.commit()
    con.close()


@pytest.mark.parametrize("builder", [build_layout_a, build_layout_b])
def test_rocpd_kernels_resources_and_counters(tmp_path, builder):
    p = tmp_path / "results.db"
    builder(p)
    assert sniff(p).name == "rocpd"
    tl = collect(p)
    k = tl.of_kind("kernel").sort_values("start_ns").reset_index(drop=True)
    assert list(k["name"].astype(str)) == ["gemm(float*)", "add(float*)"]
    assert list(k["dur_ns"]) == [4000, 300] and list(k["device_id"]) == [5, 5] and list(k["stream_id"]) == [3, 3]
    assert list(k["correlation_id"]) == [41, 42]
    assert list(k["regs_per_thread"]) == [192, 8]  # arch + accum VGPRs of the kernel symbol
    assert list(k["smem_static_bytes"]) == [65536, 0]
    assert (k.loc[0, "grid_x"], k.loc[0, "grid_y"], k.loc[1, "grid_x"]) == (1024, 2, 16)  # ceil(1000 / 64) = 16
    c = tl.counters
    gemm, add = int(k.loc[0, "event_id"]), int(k.loc[1, "event_id"])
    val = lambda e, m: c[(c["event_id"] == e) & (c["metric"] == m)]["value"].tolist()  # noqa: E731
    assert val(gemm, "SQ_WAVES") == [1024.0] and val(add, "SQ_WAVES") == [16.0]
    assert val(add, "GRBM_GUI_ACTIVE") == [5000.0] and val(gemm, "GRBM_GUI_ACTIVE") == []
    assert val(gemm, "sgpr") == [48.0] and val(add, "scratch_bytes") == [32.0]
    dev = tl.meta.devices
    assert len(dev) == 1 and (dev[0]["device_id"], dev[0]["gpu_index"], dev[0]["gfx_arch"], dev[0]["num_sms"],
                              dev[0]["name"]) == (5, 0, "gfx942", 304, "AMD Instinct MI300X")
    assert tl.meta.sources[0]["schema_version"] == "3"


def test_rocpd_copies_and_regions(tmp_path):
    p = tmp_path / "results.db"
    build_layout_a(p)
    tl = collect(p)
    m = tl.of_kind("memcpy")
    assert (m["copy_kind"].iloc[0], int(m["bytes"].iloc[0]), int(m["dur_ns"].iloc[0]), int(m["device_id"].iloc[0])) \
        == ("HtoD", 1048576, 2000, 5)
    assert list(tl.of_kind("runtime")["name"].astype(str)) == ["hipLaunchKernel"]
    assert list(tl.of_kind("annotation")["name"].astype(str)) == ["step_3"]


def test_rocpd_without_dispatch_or_agent_tables_is_an_error(tmp_path):
    p = tmp_path / "x.db"
    con = sqlite3.connect(p)
    con.execute("CREATE TABLE rocpd_string (id INTEGER PRIMARY KEY, string TEXT)")
    con.commit()
    con.close()
    with pytest.raises(TraceFormatError, match="not a rocpd database"):
        collect(p)


def test_values_of_the_wrong_sqlite_type_are_recovered_or_counted(tmp_path):
    # F15's class: SQLite stores any value in any column. Layout B with (1) every kernel symbol id and kernel_id
    # stored as TEXT ('10', '11') — recovered, the names still resolve; (2) the add kernel's start as REAL 9500.0
    # (integral: recovered) and (3) grid_size_x of gemm as 'lots', workgroup_size_x of add as a BLOB and
    # dispatch_id of add as 1.5 (no integer: unknown, counted: 3 values).
    p = tmp_path / "results.db"
    build_layout_b(p)
    con = sqlite3.connect(p)
    for t in ("rocpd_info_kernel_symbol", "rocpd_kernel_dispatch"):  # columns without type affinity keep any value
        cols = [r[1] for r in con.execute(f"PRAGMA table_info({t})")]
        con.executescript(f"ALTER TABLE {t} RENAME TO old; CREATE TABLE {t} ({', '.join(f'[{c}]' for c in cols)});"
                          f"INSERT INTO {t} SELECT * FROM old; DROP TABLE old;")
    con.executescript("""
        UPDATE rocpd_info_kernel_symbol SET id = CAST(id AS TEXT);
        UPDATE rocpd_kernel_dispatch SET kernel_id = CAST(kernel_id AS TEXT), start = CAST(start AS REAL);
        UPDATE rocpd_kernel_dispatch SET grid_size_x = 'lots' WHERE id = 1;
        UPDATE rocpd_kernel_dispatch SET workgroup_size_x = X'00ff', dispatch_id = 1.5 WHERE id = 2;
    """)
    con.commit()
    assert con.execute("SELECT typeof(id) FROM rocpd_info_kernel_symbol").fetchall() == [("text",), ("text",)]
    assert con.execute("SELECT DISTINCT typeof(start) FROM rocpd_kernel_dispatch").fetchall() == [("real",)]
    con.close()
    tl = collect(p)
    k = tl.of_kind("kernel").sort_values("start_ns").reset_index(drop=True)
    # names and durations as in test_rocpd_kernels_resources_and_counters: 9000-5000 and 9800-9500 ns
    assert list(k["name"].astype(str)) == ["gemm(float*)", "add(float*)"] and list(k["dur_ns"]) == [4000, 300]
    assert list(k["regs_per_thread"]) == [192, 8]
    assert pd.isna(k.loc[0, "grid_x"]) and pd.isna(k.loc[1, "block_x"])  # 'lots' and the BLOB: unknown
    assert any("3 values of the wrong type read as unknown (rocpd_kernel_dispatch ×3)" in w
               for w in tl.meta.warnings), tl.meta.warnings


def test_invalid_utf8_in_a_text_column_is_replaced_not_fatal(tmp_path):
    p = tmp_path / "results.db"
    build_layout_b(p)
    con = sqlite3.connect(p)
    con.execute("UPDATE rocpd_info_kernel_symbol SET display_name = CAST(X'616464ff' AS TEXT) WHERE id = 11")
    con.commit()
    con.close()
    names = sorted(collect(p).of_kind("kernel")["name"].astype(str))
    assert names == ["add\ufffd", "gemm(float*)"]  # 'a' 'd' 'd' then the invalid byte 0xFF → U+FFFD
