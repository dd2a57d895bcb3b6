"""What a truncated SQLite file still holds (``--lenient``): its tables' rows on the pages present, copied into a
private temporary database that the SQLite collectors read as they read any export.

SQLite itself refuses such a file as soon as one page of its schema lies past the cut ("database disk image is
malformed"). The SQLite file format (sqlite.org/fileformat.html) lets the complete pages be read without it: the
schema table is the table b-tree rooted at page 1 (after the 100-byte header), each table a b-tree of interior pages
(type 5: child page numbers) and leaf pages (type 13: cells of payload size, rowid and a record; a payload longer
than the page holds continues on a chain of overflow pages). :func:`recover` walks those trees over the pages
present and skips every page past the end (with its subtree), counting what it could not read.
"""

from __future__ import annotations

import sqlite3
import struct
from pathlib import Path
from typing import Any

_HEADER = 100


class _Pages:
    """The complete pages of a file's bytes (1-based), None for a page past the cut."""

    def __init__(self, data: bytes):
        self.data = data
        size = int.from_bytes(data[16:18], "big")
        self.size = 65536 if size == 1 else size
        self.usable = self.size - data[20]
        self.count = len(data) // self.size
        self.missing = 0  # pages referenced but past the cut

    def get(self, n: int) -> memoryview | None:
        if n < 1 or n > self.count:
            self.missing += 1
            return None
        return memoryview(self.data)[(n - 1) * self.size:n * self.size]


def _varint(b: memoryview, i: int) -> tuple[int, int]:
    """SQLite's big-endian varint at ``b[i]`` → (value, next index)."""
    v = 0
    for k in range(8):
        c = b[i + k]
        v = (v << 7) | (c & 0x7F)
        if c < 0x80:
            return v, i + k + 1
    return (v << 8) | b[i + 8], i + 9


def _record(p: bytes) -> list[Any]:
    """The values of one record (sqlite.org/fileformat.html "Record Format")."""
    b = memoryview(p)
    hsize, i = _varint(b, 0)
    types = []
    while i < hsize:
        t, i = _varint(b, i)
        types.append(t)
    out, j = [], hsize
    for t in types:
        if t == 0:
            out.append(None)
        elif 1 <= t <= 6:
            n = (1, 2, 3, 4, 6, 8)[t - 1]
            out.append(int.from_bytes(b[j:j + n], "big", signed=True))
            j += n
        elif t == 7:
            out.append(struct.unpack(">d", b[j:j + 8])[0])
            j += 8
        elif t in (8, 9):
            out.append(t - 8)
        elif t >= 12:
            n = (t - 12) // 2
            raw = bytes(b[j:j + n])
            out.append(raw if t % 2 == 0 else raw.decode("utf-8", errors="replace"))
            j += n
        else:
            raise ValueError("reserved serial type")
    return out


def _payload(pages: _Pages, page: memoryview, i: int) -> tuple[int, bytes | None]:
    """(rowid, payload bytes or None when an overflow page is missing) of the leaf cell at ``page[i]``."""
    size, i = _varint(page, i)
    rowid, i = _varint(page, i)
    if rowid >= 1 << 63:
        rowid -= 1 << 64
    u = pages.usable
    x = u - 35
    if size <= x:
        return rowid, bytes(page[i:i + size])
    m = ((u - 12) * 32 // 255) - 23
    k = m + (size - m) % (u - 4)
    local = k if k <= x else m
    parts = [bytes(page[i:i + local])]
    nxt = int.from_bytes(page[i + local:i + local + 4], "big")
    left = size - local
    while left > 0 and nxt:
        ov = pages.get(nxt)
        if ov is None:
            return rowid, None
        take = min(left, u - 4)
        parts.append(bytes(ov[4:4 + take]))
        left -= take
        nxt = int.from_bytes(ov[:4], "big")
    return (rowid, b"".join(parts)) if left <= 0 else (rowid, None)


def table_rows(pages: _Pages, root: int) -> tuple[list[tuple[int, list[Any]]], int]:
    """(rows as (rowid, values), rows lost to missing overflow pages) of the table b-tree at ``root``; pages past the
    cut are skipped with their subtrees (counted in ``pages.missing``)."""
    rows, lost, stack, seen = [], 0, [root], set()
    while stack:
        n = stack.pop()
        if n in seen:  # a loop in a damaged tree
            continue
        seen.add(n)
        page = pages.get(n)
        if page is None:
            continue
        h = _HEADER if n == 1 else 0
        kind = page[h]
        cells = int.from_bytes(page[h + 3:h + 5], "big")
        if kind == 5:  # interior table page: the right-most child, then each cell's child
            stack.append(int.from_bytes(page[h + 8:h + 12], "big"))
            ptrs = page[h + 12:h + 12 + 2 * cells]
            stack.extend(int.from_bytes(page[int.from_bytes(ptrs[2 * c:2 * c + 2], "big"):][:4], "big")
                         for c in range(cells))
        elif kind == 13:
            ptrs = page[h + 8:h + 8 + 2 * cells]
            for c in range(cells):
                try:
                    rowid, p = _payload(pages, page, int.from_bytes(ptrs[2 * c:2 * c + 2], "big"))
                    if p is None:
                        lost += 1
                        continue
                    rows.append((rowid, _record(p)))
                except (IndexError, ValueError, struct.error):
                    lost += 1
    rows.sort(key=lambda r: r[0])
    return rows, lost


def recover(data: bytes, out: Path) -> dict[str, Any]:
    """Copy every table (and view) of the truncated SQLite file ``data`` whose schema row is readable into a new
    database at ``out``, with the rows on the pages present.

    Returns:
        ``{"tables": {name: rows recovered}, "rows_lost": rows of which an overflow page is missing,
        "pages_missing": pages referenced past the cut, "pages": (pages present, pages declared)}``.
    """
    pages = _Pages(data)
    declared = int.from_bytes(data[28:32], "big")
    schema, lost = table_rows(pages, 1)
    con = sqlite3.connect(out)
    tables: dict[str, int] = {}
    try:
        views = []
        for _, r in schema:
            if len(r) < 5 or not isinstance(r[4], str):
                continue
            kind, name, root, sql = r[0], r[1], r[3], r[4]
            if kind == "view":
                views.append(sql)
            if kind != "table" or not isinstance(name, str) or name.startswith("sqlite_") or not isinstance(root, int):
                continue
            try:
                con.execute(sql)
            except sqlite3.Error:
                continue
            info = con.execute(f"PRAGMA table_info([{name}])").fetchall()
            ipk = [c[0] for c in info if c[5] == 1 and str(c[2]).upper() == "INTEGER"]
            ipk = ipk[0] if len(ipk) == 1 and sum(c[5] > 0 for c in info) == 1 else None
            rows, n_lost = table_rows(pages, root)
            lost += n_lost
            width = len(info)
            vals = []
            for rowid, v in rows:
                v = (v + [None] * width)[:width]
                if ipk is not None and v[ipk] is None:
                    v[ipk] = rowid
                vals.append(v)
            try:
                con.executemany(f"INSERT INTO [{name}] VALUES ({', '.join('?' * width)})", vals)
            except sqlite3.Error:
                ok = 0
                for v in vals:
                    try:
                        con.execute(f"INSERT INTO [{name}] VALUES ({', '.join('?' * width)})", v)
                        ok += 1
                    except sqlite3.Error:
                        lost += 1
                tables[name] = ok
                continue
            tables[name] = len(vals)
        for sql in views:
            try:
                con.execute(sql)
            except sqlite3.Error:
                pass
        con.commit()
    finally:
        con.close()
    return {"tables": tables, "rows_lost": lost, "pages_missing": pages.missing, "pages": (pages.count, declared)}
