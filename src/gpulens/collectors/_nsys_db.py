"""Nsight Systems SQLite export: the read-only database access of :mod:`.nsys_sqlite`.

:class:`_Db` opens the export read-only, reads its schema once, selects integer columns without a Python object per
row (:meth:`_Db.select_ints`) and resolves ``StringIds`` keys to text (:meth:`_Db.strings`); :func:`_is_nsys` tells
an nsys export from another SQLite file.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd

from gpulens.collectors._io import describe
from gpulens.collectors._sqlite import TEXT, connect_ro, fill, int_rows, typed_expr
from gpulens.errors import TraceFormatError

#: Stands for NULL in :meth:`_Db.select_ints`: the int64 minimum, the "invalid" marker of C writers — a stored
#: INT64_MIN is unknown too. It was −2^62, a value a row can hold: a start of −2^62 ns was read as NULL beside a
#: known duration, and the whole file failed ("cannot convert NA to integer").
_NULL = -(1 << 63)
#: A ``CREATE TABLE`` statement of a table without the implicit rowid (sqlite.org/withoutrowid.html).
_WITHOUT_ROWID = re.compile(r"\)\s*(?:STRICT\s*,\s*)?WITHOUT\s+ROWID\b", re.IGNORECASE)
_EVENT_TABLES = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_MEMCPY",
                 "NVTX_EVENTS", "TARGET_INFO_GPU")
#: Tables every ``nsys export --type sqlite`` writes whatever was traced (a capture of a process that made no CUDA
#: call has none of :data:`_EVENT_TABLES`, yet is a valid export: no GPU work, not an unknown format).
_NSYS_MARKERS = ("META_DATA_EXPORT", "EXPORT_META_DATA", "TARGET_INFO_SESSION_START_TIME", "ENUM_NSYS_EVENT_TYPE")


def _is_nsys(db: "_Db") -> bool:
    """True when the database is an Nsight Systems export (event tables, or nsys's own tables, plus StringIds)."""
    return "StringIds" in db.cols and any(t in db.cols for t in _EVENT_TABLES + _NSYS_MARKERS)


class _Db:
    """A read-only connection plus the schema (table → column list) read once with ``PRAGMA table_info``.

    :attr:`strings_table` is the table of names (``StringIds(id, value)`` in nsys exports; nvprof's is
    ``StringTable(_id_, value)``) and :attr:`string_id` its key column."""

    strings_table = "StringIds"
    string_id = "id"

    def __init__(self, path: Path):
        self.path = path
        self.dropped: dict[str, int] = {}  # table → rows not read (values of the wrong SQLite type)
        self.unnamed = 0  # rows whose name id is not in StringIds (or StringIds is absent)
        try:
            self.con = connect_ro(path)
            # views too: a table kept under another name behind a view of the nsys name (an export post-processed
            # by a script) holds the same rows; reading tables only lost every kernel of it in silence
            names = self.con.execute("SELECT name, type, sql FROM sqlite_master WHERE type IN ('table', 'view')"
                                     ).fetchall()
            self.cols = {}
            self.views = {t for t, kind, _ in names if kind == "view"}
            # no rowid — a view, or a table declared WITHOUT ROWID (a post-processed export): read by OFFSET
            self.no_rowid = self.views | {t for t, kind, sql in names if kind == "table" and isinstance(sql, str)
                                          and _WITHOUT_ROWID.search(sql)}
            names = [(t, kind) for t, kind, _ in names]
            for t, kind in names:
                try:
                    self.cols[t] = [r[1] for r in self.con.execute(f"PRAGMA table_info([{t}])")]
                except sqlite3.OperationalError:  # a view over a table that is gone: no rows to read there
                    if kind == "table":
                        raise
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # the schema itself is corrupt (or not UTF-8)
            raise TraceFormatError(path, f"not a readable SQLite database ({describe(exc)})") from None

    def has(self, table: str, *cols: str) -> bool:
        return table in self.cols and all(c in self.cols[table] for c in cols)

    def rowid(self, table: str) -> str | None:
        """The name that reaches ``table``'s rowid (``rowid``, else ``_rowid_`` or ``oid`` where a column of the
        table is named ``rowid`` and shadows it), or None when it has none: a view, a table ``WITHOUT ROWID``, or
        all three names taken by columns."""
        if table in self.no_rowid:
            return None
        taken = {c.lower() for c in self.cols.get(table, [])}
        return next((n for n in ("rowid", "_rowid_", "oid") if n not in taken), None)

    def select(self, table: str, wanted: dict[str, str]) -> pd.DataFrame:
        """``SELECT`` the expressions of ``wanted`` (alias → SQL over column names) whose columns exist.

        An entry is kept when every identifier in ``{...}`` braces exists (braces become SQL ``[...]`` quoting, as
        ``end`` is a keyword); the others are left out of the result.
        """
        parts = []
        for alias, expr in wanted.items():
            needed = [w.split("}")[0] for w in expr.split("{")[1:]]
            if all(n in self.cols[table] for n in needed):
                parts.append(f"{expr.replace('{', '[').replace('}', ']')} AS {alias}")
        return pd.read_sql_query(f"SELECT {', '.join(parts)} FROM [{table}]", self.con)

    def select_ints(self, table: str, wanted: dict[str, str], chunk: int = 2_000_000) -> pd.DataFrame:
        """Like :meth:`select` for integer-only expressions, without a Python object per row.

        Declared schema: every column used is INT by the one rule of :mod:`._sqlite` (:func:`._sqlite.int_rows`):
        TEXT holding a decimal integer ('1500') and integral REAL (1500.0) are read as that integer; a row holding
        a value that is not an integer ('x', '', 1.5, a BLOB), or whose expression overflows int64 (SQLite turns it
        into REAL), is not read and its number is added to ``self.dropped[table]`` (the collector warns with it).

        Rows are read in chunks of ``chunk`` in rowid order by keyset pagination (``rowid > last … LIMIT chunk``),
        never by rowid ranges (two rows at rowid 1 and 2^63−1 must not mean 2^62 empty ranges); a table without a
        reachable rowid (:meth:`rowid`: a view, ``WITHOUT ROWID``) in chunks of ``LIMIT chunk OFFSET rows read``.
        Each chunk is one
        ``SELECT group_concat(IFNULL(expr, sentinel)), ...`` parsed by numpy; NULL becomes ``<NA>``.
        """
        kept = {a: e for a, e in wanted.items()
                if all(n.split("}")[0] in self.cols[table] for n in e.split("{")[1:])}
        used = sorted({n.split("}")[0] for e in kept.values() for n in e.split("{")[1:]})
        sql, ok, bad = int_rows(self.con, table, used, list(kept.values()))
        exprs = [fill(e, sql) for e in kept.values()]
        if bad:
            self.dropped[table] = self.dropped.get(table, 0) + int(bad)
        if not exprs:
            return pd.DataFrame({a: pd.Series(dtype="int64") for a in kept})
        inner = ", ".join(f"IFNULL({e}, {_NULL}) AS c{i}" for i, e in enumerate(exprs))
        agg = ", ".join(f"group_concat(c{i})" for i in range(len(exprs)))
        parts: list[list[np.ndarray]] = []
        last = None
        rowid = self.rowid(table)  # None (a view's rowid is NULL): "rowid > last" would match nothing, or loop forever
        while True:
            if rowid is None:
                q = (f"SELECT count(*), NULL, {agg} FROM (SELECT {inner} FROM [{table}] WHERE ({ok}) "
                     f"LIMIT {int(chunk)} OFFSET {sum(len(p[0]) for p in parts) if parts else 0})")
            else:
                after = "" if last is None else f"AND {rowid} > {int(last)} "
                q = (f"SELECT count(*), max(r), {agg} FROM (SELECT {rowid} AS r, {inner} FROM [{table}] "
                     f"WHERE ({ok}) {after}ORDER BY {rowid} LIMIT {int(chunk)})")
            n, last, *texts = self.con.execute(q).fetchone()
            if not n:
                break
            arrs = [np.fromstring(str(t), dtype=np.int64, sep=",") for t in texts]
            if any(len(a) != n for a in arrs):
                raise TraceFormatError(self.path, f"{table}: values could not be read as integers")
            parts.append(arrs)
            if n < chunk:
                break
        out = {}
        for i, a in enumerate(kept):
            col = np.concatenate([p[i] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
            null = col == _NULL
            out[a] = pd.arrays.IntegerArray(np.where(null, 0, col), null) if null.any() else col
        return pd.DataFrame(out)

    def strings(self, ids: pd.Series, count: bool = True) -> pd.Series:
        """Resolve keys of the names table (:attr:`strings_table`) → categorical text, reading only the distinct ids
        needed."""
        codes, uniq = pd.factorize(ids, sort=False)
        t, key = self.strings_table, self.string_id
        if not len(uniq) or not self.has(t, key, "value"):
            self.unnamed += int((codes >= 0).sum()) if count else 0
            return pd.Series(pd.Categorical([None] * len(ids)))
        sid = int_rows(self.con, t, [key])[0][key]  # declared INT, as every id (TEXT '1' is 1)
        q = f"SELECT {sid}, {typed_expr('value', TEXT)} FROM [{t}]"
        lut = dict(self.con.execute(q).fetchall()) if len(uniq) > 500 else dict(
            self.con.execute(f"{q} WHERE {sid} IN ({','.join('?' * len(uniq))})", [int(u) for u in uniq]).fetchall())
        text = [lut.get(int(u)) for u in uniq]
        cats = pd.Index(pd.unique(pd.Series([t for t in text if t is not None], dtype=object)))
        where = cats.get_indexer(pd.Index(text, dtype=object))
        full = np.where(codes >= 0, where[codes], -1)
        self.unnamed += int(((codes >= 0) & (full < 0)).sum()) if count else 0
        return pd.Series(pd.Categorical.from_codes(full, categories=cats.astype(str)))
