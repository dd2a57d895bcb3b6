"""Reading SQLite exports with a declared schema (rocpd, rocprof v1 ``results.db``, nsys metadata tables).

SQLite stores any value in any column: a profiler's "INTEGER" id can hold TEXT (``'10'``), REAL (``5000.0`` or
``1.5``), a BLOB or an empty string, and text columns can hold invalid UTF-8. Readers here declare once, per table,
the type of each column they use (:data:`INT`, :data:`REAL`, :data:`TEXT`) and read it through a typed SQL
expression, so the rest of the collector only ever sees

* ``INT`` columns: an exact int64 (pandas ``Int64``) or ``<NA>``. TEXT holding a decimal integer and REAL holding an
  integral value within int64 are recovered as that integer (``CAST``); anything else (``'x'``, ``''``, ``1.5``,
  ``1e300``, a BLOB) becomes ``<NA>`` and is counted as *coerced*;
* ``REAL`` columns: float64 or NaN (TEXT that is not a number, BLOBs counted);
* ``TEXT`` columns: ``str`` or ``None`` (numbers are written as text; BLOBs become ``None`` and are counted; invalid
  UTF-8 is decoded with U+FFFD, see :func:`connect_ro`).

Every database is opened read-only without creating anything beside it, whether its folder is writable or not
(a WAL-mode database included: :func:`_uri`).

The collector turns the counts into a warning (values of the wrong type read as unknown), so a bad cell costs one
value, not the file.
"""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd

from gpulens.errors import TraceFormatError

INT, REAL, TEXT = "int", "real", "text"


def _text(b: bytes) -> str:
    return b.decode("utf-8", "replace")


def truncated_by(path: Path) -> tuple[int, int] | None:
    """(bytes present, bytes the header declares) when the SQLite file ``path`` is shorter than its own header says
    (a copy cut short, a disk that filled up), else None.

    The SQLite file format (sqlite.org/fileformat.html, "The Database Header"): the page size is the big-endian
    2-byte integer at offset 16 (1 means 65536), the database size in pages the 4-byte integer at offset 28, valid
    only when the "version-valid-for" number at offset 92 equals the change counter at offset 24.
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(100)
        size = Path(path).stat().st_size
    except OSError:
        return None
    if len(head) < 100 or not head.startswith(b"SQLite format 3\x00"):
        return None
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(head[28:32], "big")
    if head[24:28] != head[92:96] or not pages or page < 512:
        return None
    want = page * pages
    return (size, want) if size < want else None


_GZIP_MAGIC = b"\x1f\x8b"
_SQLITE_MAGIC = b"SQLite format 3\x00"
_unpacked: dict[tuple[str, int, int], Path] = {}
#: truncated SQLite files read with --lenient → the private copy of what they hold (:func:`read_truncated`)
_recovered: dict[tuple[str, int, int], Path] = {}
#: their warnings (:func:`read_truncated`), by the same key
_said: dict[tuple[str, int, int], str] = {}


def read_truncated(path: Path) -> str | None:
    """With ``--lenient``: when ``path`` is an SQLite file shorter than its header declares (:func:`truncated_by`),
    copy what its complete pages hold into a private temporary database (:mod:`._sqlite_recover`) that every
    SQLite reader then opens instead (:func:`sqlite_file`), and return the warning that says so with its counts;
    None when the file is not truncated or holds no readable table (it is then refused as before, naming the cut).
    The user's file is only read."""
    cut = truncated_by(path)
    if not cut:
        return None
    import atexit
    import shutil
    import tempfile

    from gpulens.collectors._sqlite_recover import recover
    from gpulens.units import plural

    st = Path(path).stat()
    key = (str(Path(path).resolve()), st.st_size, st.st_mtime_ns)
    if key in _said and _recovered[key].exists():  # recovered once per file version and process
        return _said[key]
    folder = Path(tempfile.mkdtemp(prefix="gpulens-sqlite-"))
    atexit.register(shutil.rmtree, folder, True)
    out = folder / "recovered.sqlite"
    try:
        info = recover(Path(path).read_bytes(), out)
        os.chmod(out, 0o600)
    except (OSError, sqlite3.Error, ValueError, IndexError):
        return None
    if not info["tables"]:
        return None
    _recovered[key] = out
    have, want = info["pages"]
    rows = sum(info["tables"].values())
    _said[key] = (f"{path}: truncated SQLite file ({cut[0]:,} of the {cut[1]:,} bytes its header declares: {have:,} of "
            f"{plural(want, 'page')} present): read what its complete pages hold (--lenient) — "
            f"{plural(len(info['tables']), 'table')}, {plural(rows, 'row')}; "
            f"{plural(info['pages_missing'], 'page')} past the cut and the rows on them are lost"
            + (f", and {plural(info['rows_lost'], 'row')} whose data continues past it" if info["rows_lost"] else "")
            + ": counts and times over those tables are partial")
    return _said[key]


def read_truncated_members(folder: Path) -> list[str]:
    """:func:`read_truncated` for every SQLite file of ``folder`` and of its subfolders one level down (rank
    folders, rocprofv3's ``<hostname>/<pid>_results.db``, rocprof v1's ``results.db``) — before the folder's files
    are sniffed, so that a truncated member is read where its pages are present as a single file is, by whichever
    reader takes the folder (pool workers forked later inherit the recovered copies; others recover again through
    :func:`gpulens.collectors._parallel.load_task`). Returns the warnings, one per truncated member."""
    out = []
    try:
        below = [d for d in sorted(Path(folder).iterdir()) if d.is_dir() and not d.name.startswith(".")]
        members = [f for d in [Path(folder), *below] for f in sorted(d.iterdir())
                   if f.is_file() and not f.name.startswith(".")]
    except OSError:
        return out
    for f in members:
        said = read_truncated(f)
        if said:
            out.append(said)
    return out


def sqlite_file(path: Path) -> Path:
    """The file SQLite can open for ``path``: ``path`` itself, the copy :func:`read_truncated` recovered of it, or —
    for a gzip-compressed database (``.sqlite.gz``, ``results.db.gz``, or gzip bytes under the plain name: B02 of
    ../shared/cases) — its decompressed copy (:func:`unpacked_file`). SQLite reads pages at random, so it cannot read
    a gzip stream.

    Raises:
        TraceFormatError: corrupt gzip data, a stream cut short, or data beyond the decompression limit.
    """
    found = _gzip_key(path)
    if found is None:
        return path
    if not found[0]:
        got = _recovered.get(found[1])
        return got if got is not None and got.exists() else path
    return unpacked_file(path, "SQLite file")


def _gzip_key(path: Path) -> tuple[bool, tuple[str, int, int]] | None:
    """(whether ``path`` starts with the gzip magic bytes, its identity: resolved path, size, modification time);
    None when it cannot be read."""
    try:
        with open(path, "rb") as fh:
            magic = fh.read(2)
        st = Path(path).stat()
    except OSError:
        return None
    return magic == _GZIP_MAGIC, (str(Path(path).resolve()), st.st_size, st.st_mtime_ns)


def unpacked_file(path: Path, what: str) -> Path:
    """For a reader that opens a binary file by name and reads it at random (SQLite; Nsight Compute's
    ``ncu_report.load_report``): ``path`` itself, or — when it starts with the gzip magic bytes, whatever its name —
    a private temporary copy of its decompressed bytes (every member, within
    :func:`gpulens.collectors._io.decompress_limit`), made once per file version and removed when the process exits.
    ``what`` names the format in the errors.

    Raises:
        TraceFormatError: corrupt gzip data, a stream cut short, or data beyond the decompression limit.
    """
    found = _gzip_key(path)
    if found is None or not found[0]:
        return path
    key = found[1]
    got = _unpacked.get(key)
    if got is not None and got.exists():
        return got
    import atexit
    import shutil
    import tempfile
    import zlib

    from gpulens.collectors._io import decompress_limit, gunzip_blocks

    state: dict = {}
    folder = Path(tempfile.mkdtemp(prefix="gpulens-unpacked-"))
    atexit.register(shutil.rmtree, folder, True)
    out = folder / Path(path).name.removesuffix(".gz")
    try:
        with open(path, "rb") as fh, open(out, "wb") as dst:
            os.chmod(out, 0o600)
            for piece in gunzip_blocks(fh, fh.read(1 << 20), decompress_limit(key[1]), Path(path), state=state):
                dst.write(piece)
    except zlib.error as exc:
        raise TraceFormatError(path, f"corrupt gzip data ({exc})") from None
    if state.get("truncated"):
        raise TraceFormatError(path, f"gzip-compressed {what} cut short: the gzip stream ends early"
                                     + (f" ({state['corrupt']})" if state.get("corrupt") else ""))
    _unpacked[key] = out
    return out


def unpacked_size(path: Path) -> int | None:
    """Bytes of the decompressed copy :func:`sqlite_file` made of ``path``, or None when it made none."""
    try:
        st = Path(path).stat()
    except OSError:
        return None
    got = _unpacked.get((str(Path(path).resolve()), st.st_size, st.st_mtime_ns))
    return got.stat().st_size if got is not None and got.exists() else None


def connect_ro(path: Path, check: bool = True) -> sqlite3.Connection:
    """A read-only connection whose TEXT values with invalid UTF-8 (or lone surrogates) decode with U+FFFD instead
    of raising ``OperationalError`` on the whole query; a gzip-compressed database is read from its decompressed
    copy (:func:`sqlite_file`).

    Raises:
        TraceFormatError: (``check``) the file is shorter than its header declares (:func:`truncated_by`): a
            truncated database is an input error (exit 2) naming the file, never a run without GPU work.
    """
    db = sqlite_file(path)
    cut = truncated_by(db) if check else None
    if cut:
        raise TraceFormatError(path, f"truncated SQLite file: {cut[0]:,} of the {cut[1]:,} bytes its header declares "
                                     "(the copy is incomplete or the writer was stopped)")
    con = sqlite3.connect(_uri(db), uri=True, timeout=BUSY_TIMEOUT_S)
    con.text_factory = _text
    return con


#: Seconds a reader waits for another process's lock on a database (sqlite3's default is 5 s, waited again by each
#: collector that sniffs the file: a database a profiler holds locked took 22 s to be called "not a trace").
BUSY_TIMEOUT_S = 0.5


def unreadable_sqlite(path: Path) -> str | None:
    """Why the SQLite file ``path`` (by its magic, decompressed when gzip) cannot be read at all, in words for the
    one-line error: locked by another process, or its schema is corrupt / it is no database; None when its schema
    reads (or it is no SQLite file: another check's business)."""
    from gpulens.collectors._io import read_head

    try:
        if read_head(path, 16) != _SQLITE_MAGIC:
            return None
        con = connect_ro(path, check=False)
        try:
            con.execute("SELECT name FROM sqlite_master").fetchall()
        finally:
            con.close()
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc):
            return ("the SQLite database is locked by another process (a profiler or export still writing it): "
                    "let it finish, or read a copy of the file")
        return f"unreadable SQLite file ({exc})"
    except sqlite3.DatabaseError as exc:
        cut = truncated_by(sqlite_file(path))  # cut short, not corrupt: say so, and how to read what is there
        if cut:
            return (f"truncated SQLite file: {cut[0]:,} of the {cut[1]:,} bytes its header declares (the copy is "
                    "incomplete or the writer was stopped; --lenient reads what its complete pages hold)")
        return f"corrupt SQLite file ({exc}): its schema cannot be read"
    except (OSError, TraceFormatError, UnicodeDecodeError):
        return None
    return None


def in_wal_mode(path: Path) -> bool:
    """True when the SQLite file ``path`` is in write-ahead-log mode: its header's write and read format versions
    (bytes 18 and 19, sqlite.org/fileformat.html "The Database Header") are 2, not 1 (rollback journal)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(20)
    except OSError:
        return False
    return head.startswith(_SQLITE_MAGIC) and len(head) == 20 and 2 in (head[18], head[19])


def wal_file(path: Path) -> Path | None:
    """The ``-wal`` file beside the SQLite file ``path`` when it holds frames (non-empty), else None."""
    wal = Path(f"{path}-wal")
    try:
        return wal if wal.is_file() and wal.stat().st_size > 0 else None
    except OSError:
        return None


def _uri(db: Path) -> str:
    """The URI :func:`connect_ro` opens ``db`` with: read-only, creating nothing beside it.

    * Rollback-journal mode: ``mode=ro`` (shared locks only; no file is created).
    * WAL mode — or any mode with something under the ``-wal`` name, which SQLite would open as a WAL and
      answer with a ``-shm`` beside the input — and no ``-wal`` frames (the usual finished export): every committed page is in the main file;
      ``immutable=1`` reads it without the ``-shm`` wal-index and without locks. ``mode=ro`` would create ``-wal``
      and ``-shm`` beside the input (and leave them there), and cannot open it at all where the folder is read-only
      (a shared, mounted or archived trace: "not a recognised trace format").
    * Rollback-journal mode with something under the journal's name that is no regular file (a FIFO: SQLite's
      check for a hot journal would block on opening it): ``immutable=1``, which looks for no journal.
    * Rollback-journal mode with a hot ``-journal`` beside it (the writer crashed or was killed inside a
      transaction: :func:`hot_journal`): the main file may hold pages of the unfinished transaction, and a read-only
      connection refuses it ("attempt to write a readonly database"). The two files are copied into a private folder
      (:func:`_private_copy`) and opened read-write there, so SQLite rolls the transaction back on the copy — the
      last committed state, as any later reader of the database sees it; the user's files are never touched.
    * WAL mode with a non-empty ``-wal`` (a copy taken while the profiler still held the database, a writer that was
      killed): committed transactions may live only in the ``-wal``, so ignoring it would silently drop events. The
      database and its ``-wal`` are copied into a private temporary folder (:func:`_private_copy`) and read there:
      SQLite replays the committed frames (uncommitted ones are ignored, as for any reader) and the user's folder is
      never touched. The copy costs one read of the files, only in this rare case.

    Names are percent-encoded: a ``?``, ``#`` or ``%`` in a file name is part of the name, not of the URI.
    """
    from urllib.parse import quote as url_quote

    if in_wal_mode(db) or os.path.lexists(f"{db}-wal"):  # SQLite opens a rollback-mode database in WAL mode too
        # when a -wal is beside it, and then writes a -shm there (a FIFO of that name: beside the user's input)
        wal = wal_file(db)
        if wal is None:
            return f"file:{url_quote(str(Path(db).absolute()))}?immutable=1"
        db = _private_copy(db, wal)
    elif hot_journal(db) is not None:  # rolled back in a private copy: a read-only reader cannot roll it back
        return f"file:{url_quote(str(_private_copy(db, hot_journal(db), '-journal').absolute()))}?mode=rw"
    elif os.path.lexists(f"{db}-journal") and not Path(f"{db}-journal").is_file():
        # a FIFO (or folder, socket, dangling link) under the journal's name is no journal: SQLite's own check for
        # a hot journal would open it, and a FIFO's open blocks forever — read without looking for one
        return f"file:{url_quote(str(Path(db).absolute()))}?immutable=1"
    return f"file:{url_quote(str(Path(db).absolute()))}?mode=ro"


_copied: dict[tuple, Path] = {}


#: The first 8 bytes of a rollback journal whose header is valid (sqlite.org/fileformat.html "The Rollback Journal"):
#: a journal that does not start with them (zeroed by ``journal_mode=PERSIST``, empty) needs no roll back.
_JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")


def hot_journal(path: Path) -> Path | None:
    """The ``-journal`` file beside the SQLite file ``path`` when it is a hot one (it starts with the journal
    magic: a transaction that was never committed nor rolled back), else None."""
    journal = Path(f"{path}-journal")
    try:
        if not journal.is_file():  # a FIFO of that name would block the open forever; a folder holds no journal
            return None
        with open(journal, "rb") as fh:
            return journal if fh.read(8) == _JOURNAL_MAGIC else None
    except OSError:
        return None


def _private_copy(db: Path, wal: Path, suffix: str = "-wal") -> Path:
    """A copy of ``db`` and its ``wal`` (or hot journal: ``suffix`` ``-journal``) in a private temporary folder (0700,
    removed when the process exits), made once per version of the two files."""
    import atexit
    import shutil
    import tempfile

    st, sw = Path(db).stat(), wal.stat()
    key = (str(Path(db).resolve()), st.st_size, st.st_mtime_ns, sw.st_size, sw.st_mtime_ns)
    got = _copied.get(key)
    if got is not None and got.exists():
        return got
    folder = Path(tempfile.mkdtemp(prefix="gpulens-wal-"))
    atexit.register(shutil.rmtree, folder, True)
    out = folder / "db.sqlite"
    for src, dst in ((db, out), (wal, Path(f"{out}{suffix}"))):
        with open(src, "rb") as fh, open(dst, "wb") as to:
            os.chmod(dst, 0o600)
            shutil.copyfileobj(fh, to, 1 << 20)
    _copied[key] = out
    return out


def quote(name: str) -> str:
    """``name`` as an SQL identifier (double quotes, inner quotes doubled): a column may be named anything."""
    return '"' + name.replace('"', '""') + '"'


def typed_expr(col: str, kind: str) -> str:
    """SQL yielding column ``col`` as ``kind`` or NULL (see module docstring for the rules)."""
    c = quote(col)
    if kind == INT:
        return (f"(CASE typeof({c}) WHEN 'integer' THEN {c} "
                f"WHEN 'real' THEN (CASE WHEN {c} = CAST({c} AS INTEGER) AND abs({c}) < 9.2e18 "
                f"THEN CAST({c} AS INTEGER) END) "
                f"WHEN 'text' THEN (CASE WHEN CAST(CAST(trim({c}) AS INTEGER) AS TEXT) = trim({c}) "
                f"THEN CAST(trim({c}) AS INTEGER) END) END)")
    if kind == REAL:
        return f"(CASE typeof({c}) WHEN 'blob' THEN NULL ELSE {c} END)"
    return f"(CASE typeof({c}) WHEN 'blob' THEN NULL ELSE CAST({c} AS TEXT) END)"


def columns(con: sqlite3.Connection, table: str) -> list[str]:
    """Column names of ``table`` (``PRAGMA table_info``)."""
    return [r[1] for r in con.execute(f'PRAGMA table_info({quote(table)})')]


def read_typed(con: sqlite3.Connection, table: str, schema: dict[str, str],
               flag: tuple[str, ...] = ()) -> tuple[pd.DataFrame, int]:
    """The columns of ``schema`` present in ``table``, each read as its declared type.

    Args:
        flag: INT columns whose unreadable values the caller tells apart per row: for each one present, a bool
            column ``"<name>:unreadable"`` is added (True where the stored value is not NULL but no integer).

    Returns:
        (frame, coerced): ``coerced`` counts the non-NULL values that could not be read as their type (now NA).
    """
    present = set(columns(con, table))
    use = [(c, k) for c, k in schema.items() if c in present]
    if not use:
        return pd.DataFrame(index=pd.RangeIndex(0)), 0
    flagged = [c for c, k in use if c in flag and k == INT]
    exprs = ", ".join([typed_expr(c, k) for c, k in use]
                      + [f"({quote(c)} IS NOT NULL AND {typed_expr(c, INT)} IS NULL)" for c in flagged])
    bad = " + ".join(f"(typeof({quote(c)}) = 'blob')" if k == REAL
                     else f"({quote(c)} IS NOT NULL AND {typed_expr(c, k)} IS NULL)" for c, k in use)
    rows = con.execute(f'SELECT {exprs} FROM {quote(table)}').fetchall()
    (coerced,) = con.execute(f'SELECT coalesce(sum({bad}), 0) FROM {quote(table)}').fetchone()
    cols = list(zip(*rows)) if rows else [()] * (len(use) + len(flagged))
    out = {f"{c}:unreadable": np.array(vals, dtype=bool) for c, vals in zip(flagged, cols[len(use):])}
    for (c, k), vals in zip(use, cols):
        if k == INT:
            out[c] = pd.array(list(vals), dtype="Int64")
        elif k == REAL:  # numbers, or text read by pandas' number parser ('1e3', ' 2.5', 'inf'); the rest NaN
            raw = pd.Series(list(vals), dtype=object)
            num = pd.to_numeric(raw, errors="coerce").astype("float64")
            coerced += int((raw.notna() & num.isna()).sum())
            out[c] = num
        else:
            out[c] = pd.Series(list(vals), dtype=object)
    return pd.DataFrame(out), int(coerced)


def fill(expr: str, sql: dict[str, str]) -> str:
    """``expr`` with each ``{column}`` placeholder replaced by ``sql[column]``."""
    return re.sub(r"\{([^{}]+)\}", lambda m: sql[m.group(1)], expr)


def int_rows(con: sqlite3.Connection, table: str, cols: list[str], exprs: list[str] = (),
             where: str = "1") -> tuple[dict[str, str], str, int]:
    """The :data:`INT` rule above for readers that write their own SQL over several columns (``end - start``).

    Args:
        cols: the columns of ``table`` declared INT.
        exprs: expressions over ``{column}`` placeholders that must also be integers (an int64 overflow in SQLite
            arithmetic yields REAL: such a row is not read).
        where: SQL restricting the rows counted.

    Returns:
        (sql, keep, dropped): ``sql[c]`` reads column ``c`` as an int64 or NULL — :func:`typed_expr`, or the bare
        column when every value of ``cols`` already is an SQLite integer or NULL (the usual export, read at full
        speed); ``keep`` is SQL true for a row whose every non-NULL value is readable as an integer and whose
        ``exprs`` are integers or NULL; ``dropped`` counts the rows matching ``where`` that fail ``keep``.
    """
    sql = {c: quote(c) for c in cols}
    typed = [f"typeof({c}) IN ('integer', 'null')" for c in sql.values()]
    keep = " AND ".join(typed + [f"typeof({fill(e, sql)}) IN ('integer', 'null')" for e in exprs]) or "1"
    (bad,) = con.execute(f'SELECT count(*) FROM {quote(table)} WHERE ({where}) AND NOT ({keep})').fetchone()
    if bad:  # some value is TEXT, REAL or a BLOB: read every column through the typed cast
        sql = {c: typed_expr(c, INT) for c in cols}
        keep = " AND ".join([f"({quote(c)} IS NULL OR {sql[c]} IS NOT NULL)" for c in cols]
                            + [f"typeof({fill(e, sql)}) IN ('integer', 'null')" for e in exprs]) or "1"
        (bad,) = con.execute(f'SELECT count(*) FROM {quote(table)} WHERE ({where}) AND NOT ({keep})').fetchone()
    return sql, keep, int(bad)


def read_stored(con: sqlite3.Connection, table: str) -> tuple[list[str], list[list], int]:
    """Every column of ``table`` as stored (integer, real, text or NULL) for readers that parse cells like CSV text
    (rocprof v1 ``results.db``): a BLOB is no value of any declared column and reads as NULL.

    Returns:
        (header, rows, blobs): ``blobs`` counts the BLOB cells read as NULL.
    """
    cols = columns(con, table)
    if not cols:
        return [], [], 0
    exprs = ", ".join(typed_expr(c, REAL) for c in cols)
    rows = [list(r) for r in con.execute(f"SELECT {exprs} FROM {quote(table)}").fetchall()]
    blobs = " + ".join(f"(typeof({quote(c)}) = 'blob')" for c in cols)
    (n,) = con.execute(f"SELECT coalesce(sum({blobs}), 0) FROM {quote(table)}").fetchone()
    return cols, rows, int(n)
