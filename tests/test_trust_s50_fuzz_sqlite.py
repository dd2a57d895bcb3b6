"""Session-50 fuzzing (tests/fuzz_s50.py, ``sqlite_layout``): SQLite layouts no profiler writes but a tool that
post-processes an export, or a crash, leaves behind.

* A hot rollback journal beside the database (a writer killed inside a transaction): the read-only connection
  refused the whole file ("unreadable SQLite file (attempt to write a readonly database)"). The database and its
  journal are now copied privately and rolled back there: the committed rows are read, the user's two files left
  byte for byte as they were.
* A FIFO (or a folder) under the journal's name: SQLite's own check for a hot journal opened it and blocked forever
  (on main before this session too). Read without looking for a journal. One under the ``-wal`` name made SQLite
  open the rollback-mode database as a WAL and write a ``-shm`` beside the input.
* An Nsight Systems table declared ``WITHOUT ROWID`` ("kernels table unreadable (no such column: rowid)"), or given
  a column named ``rowid`` that shadows SQLite's (the keyset pagination compared rowids with that column's text).

Expected values are the rows written here: kernels of 500, 600 and 300 ns (1,400 ns summed) at 1,000, 2,000 and
3,000 ns.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import gpulens
from gpulens.cli import main
from gpulens.collectors._nsys_db import _Db

KERNELS = [(1000, 1500, 0, 7, 10, 1), (2000, 2600, 0, 7, 11, 1), (3000, 3300, 0, 7, 12, 2)]


def _export(path: Path, kernel_table: str = "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, "
                                             "deviceId INT, streamId INT, correlationId INT, shortName INT)") -> None:
    """A minimal nsys export: two kernel names, three kernels (KERNELS)."""
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT)")
    con.executemany("INSERT INTO StringIds VALUES (?, ?)", [(1, "gemm"), (2, "softmax")])
    con.execute("CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT)")
    con.execute(kernel_table)
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, correlationId, "
                    "shortName) VALUES (?, ?, ?, ?, ?, ?)", KERNELS)
    con.commit()
    con.close()


def _kernels(path: Path) -> tuple[int, int]:
    ev = gpulens.analyze([path], cache=False).sources[0].timeline.events
    k = ev[ev["kind"] == "kernel"]
    return len(k), int(k["dur_ns"].sum())


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_hot_rollback_journal_is_rolled_back_in_a_copy(tmp_path, capsys):
    db = tmp_path / "report.sqlite"
    _export(db)
    # a writer opens a transaction, deletes every kernel, spills pages to the file and dies before committing
    code = ("import sqlite3, os\n"
            f"c = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
            "c.execute('PRAGMA journal_mode=DELETE'); c.execute('PRAGMA cache_size=1'); c.execute('BEGIN')\n"
            "c.execute('DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL')\n"
            "c.execute('CREATE TABLE pad(x)')\n"
            "c.executemany('INSERT INTO pad VALUES (?)', [(os.urandom(900),) for _ in range(2000)])\n"
            "os._exit(0)\n")
    subprocess.run([sys.executable, "-c", code], check=True)
    journal = Path(f"{db}-journal")
    assert journal.stat().st_size > 0  # the hot journal is there
    before = (_sha(db), _sha(journal))
    assert main(["analyze", str(db), "-q", "--no-cache"]) == 0, capsys.readouterr().err
    assert _kernels(db) == (3, 1400)  # the committed state: the deletion never happened
    assert (_sha(db), _sha(journal)) == before  # the user's database and journal untouched


def test_table_without_rowid_is_read(tmp_path):
    db = tmp_path / "report.sqlite"
    _export(db, "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, streamId INT, "
                "correlationId INT, shortName INT, PRIMARY KEY (start, end, correlationId)) WITHOUT ROWID")
    assert _kernels(db) == (3, 1400)


def test_column_named_rowid_does_not_steer_the_chunks(tmp_path):
    db = tmp_path / "report.sqlite"
    _export(db)
    con = sqlite3.connect(db)
    con.execute("ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL ADD COLUMN rowid TEXT")
    con.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET rowid = 'x'")
    con.commit()
    con.close()
    # one row per chunk: every chunk after the first is found by comparing the real rowid with the last one read
    got = _Db(db).select_ints("CUPTI_ACTIVITY_KIND_KERNEL", {"s": "{start}", "e": "{end}"}, chunk=1)
    assert got.values.tolist() == [[b, e] for b, e, *_ in KERNELS]
    assert _kernels(db) == (3, 1400)


def test_fifo_under_the_journal_name_does_not_block(tmp_path, capsys):
    db = tmp_path / "report.sqlite"
    _export(db)
    os.mkfifo(f"{db}-journal")  # no writer ever: an open() for reading would wait forever
    # in a child process with a time limit: a regression would block this one for good
    code = ("import sys\nfrom gpulens.cli import main\nimport tests.test_trust_s50_fuzz_sqlite as t\n"
            f"assert main(['analyze', {str(db)!r}, '-q', '--no-cache']) == 0\n"
            f"print(t._kernels(t.Path({str(db)!r})))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "(3, 1400)"
    assert Path(f"{db}-journal").is_fifo()


def test_fifo_under_the_wal_name_creates_nothing_beside_the_input(tmp_path):
    # a rollback-mode database with something under its -wal name: SQLite opened it as a WAL and wrote a -shm
    # beside the user's input (tests/fuzz_s50.py: "input or its folder changed: r.sqlite-shm")
    db = tmp_path / "report.sqlite"
    _export(db)
    os.mkfifo(f"{db}-wal")
    before = sorted(p.name for p in tmp_path.iterdir())
    assert _kernels(db) == (3, 1400)
    assert sorted(p.name for p in tmp_path.iterdir()) == before == ["report.sqlite", "report.sqlite-wal"]
