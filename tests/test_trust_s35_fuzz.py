"""Session 35 robustness (fresh fuzzing, tests/fuzz_s35.py): one test per fault kind found.

* A Kineto ``ts``/``dur`` written ``Infinity`` / ``-Infinity`` (or, read with ``--lenient``, ``inf``) was read as
  null — an event whose time is *not recorded*, kept as an untimed launch — while ``1e308`` was refused as a corrupt
  time. One rule now: an infinite or out-of-range time is a corrupt event, excluded and counted; ``NaN`` (how Python
  and pandas write a missing value) stays "not recorded", as in every other collector. The same for a rocprofv3
  JSON ``start_timestamp``/``end_timestamp`` read with ``--lenient``.
* A top-level ``traceEvents`` key written twice in a file whose strict decode fails (a ``NaN`` anywhere, a control
  character) was read from its first array only, the other's events lost without a word; now the longest array
  is read and the repeat said, as for an intact file.
* An SQLite database locked by another process waited 5 s in each sniffing collector (22 s) and was then called
  "not a recognised trace format"; a database whose schema is corrupt was called the same. Both now get one error
  naming the file and why.
* A FIFO in a folder of traces was passed over in silence (and a sniff of its head would block); a file of NUL
  bytes was "not a recognised trace format".
* A file of NUL bytes inside a rocprofv3 CSV folder read as an empty table (its copies lost in silence): every reader
  now refuses a NUL-only file by name (strict), and the folder is read without it, with a warning (lenient).
* A file of a rocprof v1 output folder that no reader recognises (an emptied ``results.csv``, a
  ``results.sysinfo.txt`` of NULs) and a rocprofiler-compute ``SQ_*LEVEL*.csv`` without its accumulator column
  (NULs) were passed over in silence; each is now named with why. A cut ``roofline.csv`` (or ``SQ_*LEVEL*.csv``)
  lost its last rows with the reader's warning thrown away; the warning is now kept.
* An ncu CSV without its ``Metric Unit`` column (details page) or units row (raw page) read ``Duration`` 1,234.56
  (µs) as 1,235 ns — 1000× off, in silence; a duration without a unit is now unknown, with a warning.

Expected values are counted by hand from the inputs built here (10 kernels, one broken: 9 timed).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from gpulens.collectors import collect
from gpulens.errors import TraceFormatError

DATA = Path(__file__).parent / "data"


def _kernels(n: int = 10, name: str = "k", t0: int = 1000) -> list[dict]:
    """``n`` 10 µs kernels 100 µs apart on one stream."""
    return [{"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": "stream 7", "ts": t0 + 100 * i, "dur": 10,
             "args": {"device": 0, "stream": 7, "correlation": i + 1}} for i in range(n)]


def _with_time(tmp_path, key: str, spelling: str):
    """10 kernels; the 4th has ``key`` written as ``spelling`` (raw JSON text)."""
    ev = _kernels()
    ev[3][key] = "@BAD@"
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": ev}).replace('"@BAD@"', spelling))
    return p


def _gpu_timed(tl) -> int:
    return int((tl.events["kind"].astype(str) == "kernel").sum())


@pytest.mark.parametrize("spelling,lenient_only", [("Infinity", False), ("-Infinity", False), ("1e308", False),
                                                   ("-1e308", False), ('"inf"', False), ("inf", True),
                                                   ("-inf", True)])
@pytest.mark.parametrize("key", ["ts", "dur"])
def test_infinite_or_absurd_time_is_one_corrupt_event_whatever_the_spelling(tmp_path, key, spelling, lenient_only):
    p = _with_time(tmp_path, key, spelling)
    for strict in ([False] if lenient_only else [True, False]):
        tl = collect(p, strict=strict)
        assert _gpu_timed(tl) == 9  # 10 written, 1 broken
        said = " ".join(tl.meta.warnings)
        assert "1 invalid event excluded: unreadable ts or dur" in said, said
        assert "kept as untimed launches" not in said  # never an event whose time is merely not recorded
        rej = tl.rejected
        assert len(rej) == 1 and rej["correlation_id"].tolist() == [4]


@pytest.mark.parametrize("spelling,strict", [("NaN", True), ("NaN", False), ("nan", False)])
def test_nan_time_is_not_recorded_kept_as_untimed_launch(tmp_path, spelling, strict):
    tl = collect(_with_time(tmp_path, "ts", spelling), strict=strict)
    assert _gpu_timed(tl) == 9
    said = " ".join(tl.meta.warnings)
    assert "1 GPU event without a recorded time kept as untimed launches" in said and "excluded" not in said


def _two_arrays(tmp_path, first: list, second: list, damage_in: int):
    """``{"traceEvents": first, "traceEvents": second}`` with a bare NaN (no strict JSON: the damaged-file reading)
    in array ``damage_in`` (0 or 1)."""
    a, b = json.dumps(first), json.dumps(second)
    if damage_in == 0:
        a = a.replace('"device": 0', '"device": 0, "x": NaN', 1)
    else:
        b = b.replace('"device": 0', '"device": 0, "x": NaN', 1)
    p = tmp_path / "dup.json"
    p.write_text('{"traceEvents": %s, "traceEvents": %s}' % (a, b))
    return p


@pytest.mark.parametrize("damage_in", [0, 1])
@pytest.mark.parametrize("long_first", [True, False])
def test_repeated_trace_events_key_in_a_damaged_file_reads_the_longest_array(tmp_path, damage_in, long_first):
    long, short = _kernels(6, "long_k"), _kernels(4, "short_k", t0=50_000)
    p = _two_arrays(tmp_path, *((long, short) if long_first else (short, long)), damage_in=damage_in)
    for strict in (True, False):
        tl = collect(p, strict=strict)
        names = tl.events["name"].astype(str)
        assert (names == "long_k").sum() == 6 and (names == "short_k").sum() == 0
        sizes = "6, 4" if long_first else "4, 6"
        said = [w for w in tl.meta.warnings if "written 2 times" in w]
        assert len(said) == 1 and f"events per key in file order: {sizes}" in said[0]
        assert f"(key {1 if long_first else 2})" in said[0]


def _nsys_db(path) -> None:
    from tests.fuzzing import _nsys

    _nsys(path)


def test_locked_sqlite_database_is_one_clear_error_without_a_long_wait(tmp_path):
    from tests.fuzz_s8 import run_cli

    p = tmp_path / "r.sqlite"
    _nsys_db(p)
    assert len(collect(p).events) > 0  # the database itself reads
    holder = sqlite3.connect(p, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process still writing it
    try:
        t0 = time.monotonic()
        with pytest.raises(TraceFormatError) as ei:
            collect(p, cache=False)
        took = time.monotonic() - t0
        code, text = run_cli(["analyze", str(p), "--no-cache", "-q", "--json", str(tmp_path / "o.json")])
    finally:
        holder.close()
    msg = str(ei.value)
    assert msg.startswith(str(p)) and "locked by another process" in msg and "\n" not in msg
    assert "not a recognised" not in msg
    assert took < 8  # 0.5 s per reader's wait, not sqlite's 5 s per sniffing collector (22 s)
    errors = [ln for ln in text.splitlines() if ln.startswith("gpulens: error")]
    assert code == 2 and len(errors) == 1 and "locked by another process" in errors[0]
    assert "Traceback" not in text and not (tmp_path / "o.json").exists()


def test_sqlite_with_corrupt_schema_is_named_corrupt(tmp_path):
    p = tmp_path / "r.sqlite"
    _nsys_db(p)
    raw = bytearray(p.read_bytes())
    raw[100:612] = b"\xa5" * 512  # the first page after the 100-byte header holds sqlite_master
    p.write_bytes(bytes(raw))
    with pytest.raises(TraceFormatError) as ei:
        collect(p, cache=False)
    assert str(ei.value).startswith(str(p)) and "corrupt SQLite file" in str(ei.value)


def test_fifo_in_a_folder_is_listed_not_read_and_never_blocks(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    (d / "a.json").write_text(json.dumps({"traceEvents": _kernels()}))
    os.mkfifo(d / "notes.txt")  # a FIFO with no writer: any open() for reading blocks
    got: list = []
    reader = threading.Thread(target=lambda: got.append(collect(d, cache=False)), daemon=True)
    reader.start()
    reader.join(20)
    assert not reader.is_alive(), "reading the folder blocked on the FIFO"
    tl = got[0]
    assert _gpu_timed(tl) == 10
    said = " ".join(tl.meta.warnings)
    assert "notes.txt" in said and "named pipe (FIFO)" in said


def test_file_of_nul_bytes_says_so(tmp_path):
    p = tmp_path / "trace.json"
    p.write_bytes(b"\x00" * 4096)
    with pytest.raises(TraceFormatError) as ei:
        collect(p, cache=False)
    assert str(ei.value).startswith(str(p)) and "only NUL bytes (4,096 zero bytes" in str(ei.value)



@pytest.mark.parametrize("damaged,how,reason", [("results.csv", "empty", "file is empty"),
                                                ("results.sysinfo.txt", "nuls", "only NUL bytes")])
def test_damaged_file_of_a_rocprof_v1_folder_is_named(tmp_path, damaged, how, reason):
    d = tmp_path / "v1"
    shutil.copytree(DATA / "rocprof" / "v1_gunrock_mi300x", d)
    f = d / damaged
    f.write_bytes(b"" if how == "empty" else b"\x00" * f.stat().st_size)
    tl = collect(d, strict=False, cache=False)
    said = [w for w in tl.meta.warnings if damaged in w]
    assert len(said) == 1 and "not read" in said[0] and reason in said[0], tl.meta.warnings


def test_damaged_level_file_of_a_rocprof_compute_workload_is_named(tmp_path):
    d = tmp_path / "w"
    shutil.copytree(DATA / "omniperf" / "vcopy_MI200", d)
    f = d / "SQ_LEVEL_WAVES.csv"
    f.write_bytes(b"\x00" * f.stat().st_size)
    tl = collect(d, cache=False)
    said = [w for w in tl.meta.warnings if "SQ_LEVEL_WAVES.csv" in w]
    assert len(said) == 1 and "skipped" in said[0], tl.meta.warnings


def test_zeroed_file_of_a_rocprofv3_folder_strict_error_lenient_partial(tmp_path):
    d = tmp_path / "v3"
    shutil.copytree(DATA / "rocprof" / "v3_csv_sdk_docs", d)
    kernels = len((d / "kernel_trace.csv").read_text().strip().splitlines()) - 1  # rows under the header
    f = d / "memory_copy_trace.csv"
    f.write_bytes(b"\x00" * f.stat().st_size)
    with pytest.raises(TraceFormatError) as ei:
        collect(d, cache=False)
    assert str(ei.value).startswith(str(f)) and "only NUL bytes" in str(ei.value)
    tl = collect(d, strict=False, cache=False)
    kinds = tl.events["kind"].astype(str)
    assert (kinds == "kernel").sum() == kernels and (kinds == "memcpy").sum() == 0
    said = [w for w in tl.meta.warnings if "memory_copy_trace.csv: not read" in w]
    assert len(said) == 1 and "only NUL bytes" in said[0]


def test_cut_roofline_of_a_rocprof_compute_workload_says_the_row_lost(tmp_path):
    d = tmp_path / "w"
    shutil.copytree(DATA / "omniperf" / "vcopy_MI200", d)
    f = d / "roofline.csv"
    lines = f.read_bytes().split(b"\n")
    f.write_bytes(b"\n".join(lines[:2]) + b"\n" + lines[2][:40])  # header, device 0, device 1 cut mid-row
    tl = collect(d, cache=False)
    assert sorted(set(tl.tables["empirical_roofs"]["device"])) == [0]  # the one whole row
    said = [w for w in tl.meta.warnings if "roofline.csv" in w]
    assert len(said) == 1 and "truncated" in said[0] and "that one is not" in said[0]


@pytest.mark.parametrize("layout", ["details_without_unit_column", "raw_without_units_row"])
def test_ncu_durations_without_a_unit_are_unknown_never_read_as_ns(tmp_path, layout):
    # B20: Duration 1,234.56 usecond and 2.05 msecond; without the unit the numbers would read as 1,235 ns and 2 ns
    import csv
    import io

    if layout.startswith("details"):
        lines = (DATA / "cases" / "B20.ncu_details_15col.csv").read_text().splitlines()
        head = [ln for ln in lines if ln.startswith("==")]
        rows = list(csv.reader(ln for ln in lines if not ln.startswith("==")))
        drop = rows[0].index("Metric Unit")
        out = io.StringIO()
        csv.writer(out, quoting=csv.QUOTE_ALL).writerows([c for j, c in enumerate(r) if j != drop] for r in rows)
        text = "\n".join(head) + "\n" + out.getvalue()
    else:
        lines = (DATA / "cases" / "B20.ncu_raw.csv").read_text().splitlines()
        text = "\n".join(ln for ln in lines if not ln.startswith('"","')) + "\n"  # the units row left out
    p = tmp_path / "k.csv"
    p.write_text(text)
    tl = collect(p, cache=False)
    assert len(tl.events) == 2
    assert 1235 not in tl.events["dur_ns"].tolist()  # 1,234.56 read as ns
    said = [w for w in tl.meta.warnings if "without a unit" in w]
    assert len(said) == 1 and "2 duration values" in said[0] and "unknown" in said[0]
    assert tl.meta.warnings and any("duration is unknown" in w for w in tl.meta.warnings)


@pytest.mark.parametrize("spelling,reason", [("Infinity", "unreadable timestamp"), ("inf", "unreadable timestamp"),
                                             ("1e308", "unreadable timestamp"), ("NaN", "no timestamps recorded")])
def test_rocprofv3_json_infinite_timestamp_is_unreadable_like_1e308(tmp_path, spelling, reason):
    import gzip
    import re

    from tests.test_rocprofv3 import _tiny_v3_json

    seed = tmp_path / "seed_results.json.gz"
    _tiny_v3_json(seed)
    text = gzip.decompress(seed.read_bytes()).decode()
    first = re.search(r'"start_timestamp":\s*\d+', text).group(0)  # one dispatch's start
    p = tmp_path / "1_results.json"
    p.write_text(text.replace(first, f'"start_timestamp": {spelling}', 1))
    tl = collect(p, strict=False, cache=False)
    said = [w for w in tl.meta.warnings if "1 row is no event" in w]
    assert len(said) == 1 and reason in said[0], tl.meta.warnings
