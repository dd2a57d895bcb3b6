"""SQLite inputs in WAL mode (an nsys ``.sqlite``, a rocpd ``.db`` after ``PRAGMA journal_mode=WAL``) are read
without touching the user's folder: nothing is created beside them (``mode=ro`` used to leave ``-wal`` and ``-shm``
files there), a read-only folder reads the same (it used to be "not a recognised trace format"), and committed
transactions still in a ``-wal`` file are read (they are part of the database)."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import gpulens
from gpulens.collectors import collect
from tests.test_rank_identity import write_rocpd

NSYS = Path(__file__).parent / "data" / "nvidia" / "fuser_h200_nsys2024.6_report1.sqlite"
KERNEL_TABLE = {"nsys": "CUPTI_ACTIVITY_KIND_KERNEL", "rocpd": "rocpd_kernel_dispatch"}


def _database(kind: str, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if kind == "nsys":
        db = folder / "report.sqlite"
        shutil.copyfile(NSYS, db)
    else:
        db = folder / "4242_results.db"
        write_rocpd(db, 4242, 1_000_000, [10_000, 20_000, 30_000, 40_000, 50_000])
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA journal_mode=WAL").fetchone() == ("wal",)
    con.close()  # the last connection checkpoints and removes the -wal and -shm
    return db


def _kernels_in(db: Path) -> int:
    """The kernels gpulens reads from ``db``."""
    return len(collect(db).events.query("kind == 'kernel'"))


def _state(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def _rows(db: Path, table: str) -> int:
    con = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    try:
        return con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        con.close()


@pytest.mark.parametrize("kind", ["nsys", "rocpd"])
def test_wal_database_is_read_and_nothing_is_created_beside_it(tmp_path, kind):
    db = _database(kind, tmp_path / "in")
    before = _state(db.parent)
    assert _kernels_in(db) == _rows(db, KERNEL_TABLE[kind])
    assert _state(db.parent) == before  # no -wal, no -shm, the database unchanged


@pytest.mark.parametrize("kind", ["nsys", "rocpd"])
def test_committed_rows_still_in_the_wal_file_are_read(tmp_path, kind):
    db = _database(kind, tmp_path / "writer")
    table = KERNEL_TABLE[kind]
    total = _rows(db, table)
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_autocheckpoint=0")
    con.execute(f"DELETE FROM {table} WHERE rowid IN (SELECT rowid FROM {table} ORDER BY rowid LIMIT 2)")
    con.commit()
    copy = tmp_path / "in"  # a copy taken while the writer holds the database: the deletion is only in the -wal
    copy.mkdir()
    shutil.copyfile(db, copy / db.name)
    shutil.copyfile(f"{db}-wal", copy / f"{db.name}-wal")
    con.close()
    assert (copy / f"{db.name}-wal").stat().st_size > 0
    before = _state(copy)
    assert _kernels_in(copy / db.name) == total - 2
    assert _state(copy) == before


_READ_ONLY = """
import sys
from gpulens.collectors import collect
print(len(collect(sys.argv[1]).events.query("kind == 'kernel'")))
"""


def _count_in_read_only_view(folder: Path, name: str) -> int:
    """The kernels ``collect`` reads from ``folder/name`` where ``folder`` cannot be written: its mode 0555 for
    an ordinary user; for root (who writes anywhere) a read-only bind mount in a private mount namespace."""
    env = dict(os.environ, PYTHONPATH=str(Path(gpulens.__file__).parents[1]))
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            out = subprocess.run([sys.executable, "-c", _READ_ONLY, str(folder / name)], capture_output=True,
                                 text=True, env=env, timeout=120)
        finally:
            folder.chmod(0o755)
    else:
        if shutil.which("unshare") is None:
            pytest.skip("root without unshare: no read-only folder to test with")
        view = folder.parent / "ro-view"
        view.mkdir()
        script = (f'mount --bind "{folder}" "{view}" && mount -o remount,bind,ro "{view}" || exit 99; '
                  f'touch "{view}/probe" 2>/dev/null && exit 99; '
                  f'exec "{sys.executable}" -c "$0" "{view / name}"')
        out = subprocess.run(["unshare", "-m", "sh", "-c", script, _READ_ONLY], capture_output=True, text=True,
                             env=env, timeout=120)
        if out.returncode == 99:
            pytest.skip("root cannot make a read-only bind mount here")
    assert out.returncode == 0, out.stderr
    return int(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("kind", ["nsys", "rocpd"])
def test_wal_database_in_a_read_only_folder_is_read(tmp_path, kind):
    db = _database(kind, tmp_path / "in")
    before = _state(db.parent)
    assert _count_in_read_only_view(db.parent, db.name) == _rows(db, KERNEL_TABLE[kind])
    assert _state(db.parent) == before


def test_a_question_mark_or_hash_in_the_file_name_is_part_of_the_name(tmp_path):
    db = tmp_path / "run?1#a%20b.sqlite"
    shutil.copyfile(NSYS, db)
    assert _kernels_in(db) == _rows(NSYS, KERNEL_TABLE["nsys"])


def test_a_changed_wal_file_is_a_changed_trace_for_the_cache(tmp_path):
    from gpulens.cache import fingerprint

    db = _database("nsys", tmp_path / "in")
    plain = fingerprint(db)
    wal = Path(f"{db}-wal")
    wal.write_bytes(b"\0" * 32)  # a writer's frames arrive in the -wal; the main file keeps its size and mtime
    assert fingerprint(db) != plain
