"""No hang, no unbounded read, nothing lost silently (issue 17 classes 2 and 4)."""

from __future__ import annotations

import gzip
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from gpulens.cli import main
from gpulens.collectors import collect
from gpulens.collectors._io import MAX_RATIO, MIN_LIMIT, decompress_limit
from gpulens.errors import GpulensError, TraceFormatError
from gpulens.timeline.selection import Selection

from .conftest import CASES, KINETO


def test_gzip_bomb_stops_at_the_limit(tmp_path, monkeypatch):
    # 64 MiB of zeros compress to ~64 KiB (ratio ~1000): beyond the limit, a one-line error, for the streamed Kineto
    # reader and for the formats read whole (rocprof CSV).
    monkeypatch.setenv("GPULENS_MAX_DECOMPRESSED_BYTES", str(8 << 20))
    zeros = gzip.compress(b'{"traceEvents": [' + b" " * (64 << 20), compresslevel=9)
    for name in ("bomb.json.gz", "results.csv"):
        p = tmp_path / name
        p.write_bytes(zeros if name.endswith("gz") else gzip.compress(b"Index,KernelName,BeginNs,EndNs\n"
                                                                          + b"0" * (64 << 20)))
        t = time.monotonic()
        with pytest.raises(TraceFormatError) as ei:
            collect(p)
        assert "expands beyond 8,388,608 bytes" in str(ei.value) and time.monotonic() - t < 30


def test_decompress_limit_rule(monkeypatch):
    monkeypatch.delenv("GPULENS_MAX_DECOMPRESSED_BYTES", raising=False)
    monkeypatch.delenv("GPULENS_MAX_DECOMPRESS_RATIO", raising=False)
    assert decompress_limit(1000) == MIN_LIMIT == 256 << 20  # small files: the floor
    assert decompress_limit(10 << 20) == MAX_RATIO * (10 << 20) == 1000 << 20  # 10 MiB gzip → 100× = 1000 MiB
    assert decompress_limit(1 << 30) == 32 << 30  # 1 GiB gzip: 100 GiB by the ratio, capped at 32 GiB
    monkeypatch.setenv("GPULENS_MAX_DECOMPRESS_RATIO", "10")
    assert decompress_limit(100 << 20) == 1000 << 20


def test_sqlite_rows_at_extreme_rowids_do_not_hang(tmp_path):
    # F07's kind: two kernel rows at rowid 1 and 2^63-1 (reading by rowid ranges meant 2^62 empty queries).
    p = tmp_path / "r.sqlite"
    con = sqlite3.connect(p)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT); INSERT INTO StringIds VALUES (1, 'k');
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, streamId INT, shortName INT);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (rowid, start, end, deviceId, streamId, shortName)
            VALUES (1, 1000, 1500, 0, 7, 1), (9223372036854775807, 2000, 2300, 0, 7, 1),
                   (-9223372036854775808, 3000, 3100, 0, 7, 1);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, shortName)
            SELECT 4000, 4010.5, 0, 7, 1;  -- a REAL end: this row is dropped and counted
    """)
    con.commit()
    con.close()
    t = time.monotonic()
    tl = collect(p)
    assert time.monotonic() - t < 20
    assert sorted(tl.events["dur_ns"].tolist()) == [100, 300, 500]
    assert any("1 row of CUPTI_ACTIVITY_KIND_KERNEL dropped" in w for w in tl.meta.warnings)


@pytest.mark.parametrize("args, needle", [
    (["--ranks", "0-99999999999999"], "--ranks: rank 99999999999999 is beyond"),
    (["--workers", "100000"], "--workers: 100000 is out of range"),
    (["--workers", "0"], "--workers: 0 is out of range"),
    (["--window", "1e400ms:2e400ms"], "--window: time '1e400ms' is beyond"),
    (["--window", "0:nan"], "--window: cannot read time 'nan'"),
    (["--top", "-3"], "--top: -3 is negative"),
])
def test_option_values_are_bounded(args, needle, capsys):
    assert main(["analyze", "-q", "--no-cache", str(CASES / "B13.json"), *args]) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1


@pytest.mark.parametrize("args, needle", [
    (["--steps", "0"], "--steps: 0 is out of range (1 to 1e+06)"),
    (["--steps", "1000000000000000000"], "--steps: 1000000000000000000 is out of range"),
    (["--warmup", "-1"], "--warmup: -1 is out of range"),
    (["--wait", "99999999"], "--wait: 99999999 is out of range"),
    (["--interval-ms", "0"], "--interval-ms: 0.0 is out of range (1 to 3.6e+06)"),
    (["--interval-ms", "nan"], "--interval-ms: nan is out of range"),
    (["--interval-ms", "1e400"], "--interval-ms: inf is out of range"),
])
def test_profile_option_values_are_bounded(args, needle, capsys, tmp_path):
    # refused before anything runs: the script does not exist, and no output folder is created
    out = tmp_path / "out"
    assert main(["profile", "--out", str(out), *args, str(tmp_path / "absent.py")]) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1 and not out.exists()


def test_selection_parse_bounds():
    with pytest.raises(GpulensError):
        Selection.parse(window="0:1e30s")
    assert Selection.parse(ranks="0-3,8").ranks == frozenset({0, 1, 2, 3, 8})


def _rank_dir(tmp_path):
    d = tmp_path / "ranks"
    d.mkdir()
    for f in (KINETO / "multirank").glob("*.json.gz"):
        shutil.copy(f, d / f.name)
    good = len(list(d.iterdir()))
    (d / "rank-7.json.gz").write_bytes((KINETO / "multirank" / "sampled_rank-0.json.gz").read_bytes()[:300])
    (d / "rank-8.json").write_text("")
    return d, good


def test_unusable_rank_file_is_reported_with_counts(tmp_path):
    d, good = _rank_dir(tmp_path)
    tl = collect(d)
    assert len(tl.ranks) == good == 2
    (w,) = [w for w in tl.meta.warnings if "could not be read" in w]
    assert f"2 of {good + 2} rank files could not be read" in w and "rank-7.json.gz: " in w \
        and "rank-8.json: file is empty" in w
    assert tl.meta.rank_files == good + 2 and sorted(Path(f).name for f in tl.meta.unread) == ["rank-7.json.gz",
                                                                                               "rank-8.json"]


def test_strict_makes_an_unusable_rank_file_an_error(tmp_path, capsys):
    d, good = _rank_dir(tmp_path)
    assert main(["analyze", "-q", "--no-cache", str(d)]) == 0  # a partial result: one warning line on stderr
    assert "partial result" in capsys.readouterr().err
    assert main(["analyze", "-q", "--no-cache", "--strict", str(d)]) == 2
    err = capsys.readouterr().err
    assert f"2 of {good + 2} files cannot be used" in err and err.count("\n") == 1


def test_unreadable_rank_file_is_reported(tmp_path, monkeypatch):
    d, good = _rank_dir(tmp_path)
    (d / "rank-8.json").unlink()
    real_open = type(d).open

    def deny(self, *a, **k):
        if self.name == "rank-7.json.gz":
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *a, **k)

    monkeypatch.setattr(type(d), "open", deny)
    tl = collect(d)
    (w,) = [w for w in tl.meta.warnings if "could not be read" in w]
    assert f"1 of {good + 1} rank files could not be read" in w \
        and "rank-7.json.gz: cannot read file (Permission denied)" in w


def test_cache_is_not_stale_after_an_in_place_rewrite_with_the_same_size_and_mtime(tmp_path, monkeypatch):
    # Issue 17 class 6: only samples of a large file are hashed; a change between the samples, with size and
    # mtime put back, used to be served from the cache. The samples are shrunk so that a small file shows it.
    import json as _json
    import os
    import stat

    import gpulens.cache as cache

    monkeypatch.setenv("GPULENS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GPULENS_CACHE_MIN_BYTES", "0")
    monkeypatch.setattr(cache, "_EDGE", 256)
    monkeypatch.setattr(cache, "_SAMPLE", 8)
    evs = [{"ph": "X", "cat": "kernel", "name": f"k{i:03d}", "pid": 0, "tid": 7, "ts": 100 + 10 * i, "dur": 5,
            "args": {"device": 0, "stream": 7}} for i in range(200)]
    p = tmp_path / "t.json"
    p.write_text(_json.dumps({"traceEvents": evs}))
    before = os.stat(p)
    assert int(collect(p, cache=True).events["dur_ns"].sum()) == 200 * 5_000
    text = p.read_text()
    i = text.index('"name": "k100"')
    j = text.index('"dur": 5', i)
    with open(p, "r+b") as fh:  # in place: same inode, same size
        fh.seek(j + len('"dur": '))
        fh.write(b"7")
    os.utime(p, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(p)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)
    assert int(collect(p, cache=True).events["dur_ns"].sum()) == 199 * 5_000 + 7_000
    entries = [e for e in (tmp_path / "cache").iterdir() if not e.name.startswith(".")]
    assert entries and all(stat.S_IMODE(e.stat().st_mode) == 0o700 for e in entries)
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o600 for e in entries for f in e.iterdir())


def test_a_cache_entry_of_another_file_is_rebuilt(tmp_path, monkeypatch):
    import json as _json

    import gpulens.cache as cache

    monkeypatch.setenv("GPULENS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GPULENS_CACHE_MIN_BYTES", "0")
    p = tmp_path / "a.json"
    p.write_text((CASES / "B13.json").read_text())
    n = len(collect(p, cache=True).events)
    entry = cache.entry_path(p, "kineto")
    mark = entry / "gpulens-cache.json"
    doc = _json.loads(mark.read_text())
    mark.write_text(_json.dumps({**doc, "source": "/elsewhere/other.json"}))
    (entry / "events.0.values.npy").write_bytes(b"garbage")  # would fail anyway; the mark check comes first
    assert len(collect(p, cache=True).events) == n
    assert _json.loads(mark.read_text())["source"] == str(p.resolve())


def test_many_distinct_kernel_names_scale_and_the_json_report_is_capped(tmp_path):
    # Issue 17 class 5: 20k distinct names took 67 s in verdicts alone (one mask per critical kernel) and wrote
    # tens of MB of JSON. 10k names, 20k launches: a few seconds, and a JSON report of bounded size whose capped
    # tables still add up (the synthetic writer returns the summed durations it wrote).
    import json as _json

    from gpulens.report import analyze
    from gpulens.reports.json_report import MAX_TABLE_ROWS, render

    from .synth import write_kineto

    p = tmp_path / "many.json"
    info = write_kineto(p, 20_000, 10_000, name_len=60)
    t = time.process_time()
    rep = analyze([p])
    assert time.process_time() - t < 60  # CPU seconds; ~3 s on a quiet core
    text = render(rep)
    assert len(text) < 4_000_000
    src = _json.loads(text)["sources"][0]
    hs = src["analyses"]["hotspots"]
    assert hs["rows_total"] == 10_000 and len(hs["table"]) == MAX_TABLE_ROWS + 1
    other = hs["table"][-1]
    assert other["name"] is None and other["other_rows"] == 10_000 - MAX_TABLE_ROWS
    assert sum(r["total_ns"] for r in hs["table"]) == info["time_ns"]
    assert len(src["findings"]) <= 200
