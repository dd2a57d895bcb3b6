"""Structure-aware mutators and an impossible-figure check for tests/fuzzing.py (``--extended``).

Mutators (each returns new bytes, or changes an SQLite file in place):

* :func:`mutate_json_typed` — parse, then per chosen value: a type swap (string ↔ number ↔ null ↔ list ↔ dict),
  extreme numbers (±1e308, NaN, ±Infinity, -1, 2**63), a deleted key, a duplicated key (written twice, the second
  value of another type) or a deeply nested value;
* :func:`mutate_encoding` — UTF-8 BOM, UTF-16 LE/BE (with and without BOM), latin-1, CRLF / CR line ends, NUL bytes;
* :func:`truncate_at_boundary` — cut right after a structural character (``}`` ``]`` ``,`` ``"`` newline);
* :func:`mutate_csv` — reorder, rename (case, spaces, another name), duplicate or drop columns, another delimiter,
  every field quoted, a repeated header row, short/long rows, blank lines;
* :func:`mutate_sqlite_schema` — a table rebuilt without a column, a column's values cast to TEXT/REAL, a column
  of NULLs, every row duplicated (duplicate ids), id columns pointing nowhere, start/end swapped, negative times,
  an emptied table.

:func:`impossible_figures` walks a JSON report and lists figures no run can have (negative durations, totals and
counts, % above 100 or below 0, shares outside [0, 1], a GPU busy time or a per-rank span longer than the run).
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
import sqlite3
from pathlib import Path

SWAP_VALUES = [None, "", "abc", "12", "-5", "1e999", 0, -1, -(2 ** 63), 2 ** 63, 2 ** 70, 1e308, -1e308,
               float("nan"), float("inf"), float("-inf"), 1.5, True, [], [1, "x"], {}, {"a": None}]


def _nodes(doc) -> list[tuple[object, object]]:
    out: list[tuple[object, object]] = []
    todo = [doc]
    while todo and len(out) < 20000:
        cur = todo.pop()
        items = cur.items() if isinstance(cur, dict) else enumerate(cur) if isinstance(cur, list) else ()
        for k, v in items:
            out.append((cur, k))
            if isinstance(v, (dict, list)):
                todo.append(v)
    return out


def mutate_json_typed(rng: random.Random, data: bytes) -> bytes | None:
    """Typed mutation of a JSON document (None when ``data`` is not JSON)."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return None
    nodes = _nodes(doc)
    if not nodes:
        return None
    # prefer leaves that carry meaning (numbers and strings in event dicts)
    dup: list[tuple[str, object]] = []
    deep: list[tuple[str, int, object]] = []
    for _ in range(rng.randint(1, 4)):
        cont, key = rng.choice(nodes)
        op = rng.randrange(6)
        try:
            if op <= 2:
                cont[key] = rng.choice(SWAP_VALUES)  # type: ignore[index]
            elif op == 3 and isinstance(cont, dict):
                cont.pop(key, None)
            elif op == 4 and isinstance(cont, dict) and isinstance(key, str):
                dup.append((key, rng.choice(SWAP_VALUES)))
                cont[key] = cont[key]
            else:  # deep nesting, spliced in as text (json.dumps itself recurses)
                deep.append((f"__deep{len(deep)}__", rng.choice([50, 900, 3000, 100_000]), cont[key]))
                cont[key] = deep[-1][0]  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            pass
    try:
        text = json.dumps(doc, allow_nan=True)
    except (RecursionError, ValueError):
        return None
    for mark, depth, val in deep:
        try:
            inner = json.dumps(val, allow_nan=True)
        except (RecursionError, ValueError):
            inner = "0"
        text = text.replace(json.dumps(mark), "[" * depth + inner + "]" * depth, 1)
    for key, val in dup:  # a duplicated key: the same key again, later in its object, with another value
        needle = json.dumps(key) + ": "
        i = text.find(needle)
        if i >= 0:
            text = text[:i] + needle + json.dumps(val, allow_nan=True) + ", " + text[i:]
    return text.encode("utf-8", "surrogatepass")


def mutate_encoding(rng: random.Random, data: bytes) -> bytes:
    """The same text in another encoding or with other line ends / NULs."""
    text = data.decode("utf-8", "replace")
    op = rng.randrange(8)
    if op == 0:
        return b"\xef\xbb\xbf" + data
    if op == 1:
        return text.encode("utf-16")  # with BOM
    if op == 2:
        return text.encode(rng.choice(["utf-16-le", "utf-16-be"]))
    if op == 3:
        return text.encode("latin-1", "replace")
    if op == 4:
        return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    if op == 5:
        return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r")
    if op == 6:
        n = len(data)
        pos = rng.randrange(n + 1)
        return data[:pos] + b"\x00" * rng.choice([1, 4, 4096]) + data[pos:]
    return data + b"\x00" * rng.choice([1, 512, 65536])


def truncate_at_boundary(rng: random.Random, data: bytes) -> bytes:
    """``data`` cut just after (or just before) one of its structural characters."""
    marks = [i for i, c in enumerate(data[:400_000]) if c in b"}],\"\n:"]
    if not marks:
        return data[: len(data) // 2]
    i = rng.choice(marks)
    return data[: i + rng.choice([0, 1])]


def _sniff_rows(text: str) -> tuple[list[str], list[list[str]], list[str]] | None:
    lines = text.splitlines()
    if not lines:
        return None
    # the header: the first line with >= 3 comma-separated fields (ncu/nsys put prose above it)
    hi = next((i for i, ln in enumerate(lines[:50]) if ln.count(",") >= 2), None)
    if hi is None:
        return None
    rows = list(csv.reader(io.StringIO("\n".join(lines[hi:]))))
    return lines[:hi], rows, []


def mutate_csv(rng: random.Random, data: bytes) -> bytes | None:
    """Column-aware mutation of a CSV file (None when ``data`` has no CSV header)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    got = _sniff_rows(text)
    if got is None:
        return None
    pre, rows, _ = got
    if not rows or len(rows[0]) < 2:
        return None
    width = len(rows[0])
    op = rng.randrange(10)
    delim, quoting = ",", csv.QUOTE_MINIMAL
    if op == 0:  # reorder columns consistently
        perm = list(range(width))
        rng.shuffle(perm)
        rows = [[r[i] if i < len(r) else "" for i in perm] for r in rows]
    elif op == 1:  # rename one header cell
        j = rng.randrange(width)
        h = rows[0][j]
        rows[0][j] = rng.choice([h.lower(), h.upper(), f" {h} ", h.replace("_", " "), h + "_x", "", "Name"])
    elif op == 2:  # duplicate a column with other data
        j = rng.randrange(width)
        val = rng.choice(["0", "-1", "x", "", "1e308", "nan", "9223372036854775808"])
        rows = [rows[0] + [rows[0][j]]] + [r + [val] for r in rows[1:]]
    elif op == 3:  # drop a column
        j = rng.randrange(width)
        rows = [r[:j] + r[j + 1:] for r in rows]
    elif op == 4:
        delim = rng.choice([";", "\t", "|"])
    elif op == 5:
        quoting = csv.QUOTE_ALL
    elif op == 6 and len(rows) > 1:  # the header again in the middle
        rows.insert(rng.randrange(1, len(rows) + 1), list(rows[0]))
    elif op == 7 and len(rows) > 1:  # a short or long row
        i = rng.randrange(1, len(rows))
        rows[i] = rows[i][: rng.randrange(len(rows[i]) + 1)] if rng.random() < 0.5 else rows[i] + ["x", "1"]
    elif op == 8 and len(rows) > 1:  # a cell of every row replaced by a special value
        j = rng.randrange(width)
        val = rng.choice(["", "-5", "nan", "inf", "1e308", "-0", "1,234", "n/a", "0x10", "\u00a0", "NULL"])
        rows = [rows[0]] + [r[:j] + [val] + r[j + 1:] if len(r) > j else r for r in rows[1:]]
    else:  # blank lines and a trailing comment
        rows = [r if rng.random() < 0.8 else [] for r in rows] + [["# end"]]
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=delim, quoting=quoting, lineterminator="\n")
    for r in rows:
        w.writerow(r)
    return ("\n".join(pre) + ("\n" if pre else "") + buf.getvalue()).encode("utf-8")


_ID_HINTS = ("id", "Id", "ID", "correlation", "Index", "symbol", "agent", "queue", "stream", "pid", "tid")
_TIME_HINTS = ("start", "end", "Start", "End", "Ns", "timestamp", "Timestamp")


def mutate_sqlite_schema(rng: random.Random, path: Path) -> None:
    """Schema-level mutation of an SQLite file in place (see the module docstring)."""
    con = sqlite3.connect(path)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE "
                                            "'sqlite_%'")]
        if not tables:
            return
        t = rng.choice(tables)
        info = list(con.execute(f"PRAGMA table_info([{t}])"))
        cols = [r[1] for r in info]
        if not cols:
            return
        c = rng.choice(cols)
        op = rng.randrange(8)
        if op == 0 and len(cols) > 1:  # rebuild without a column
            keep = ", ".join(f"[{x}]" for x in cols if x != c)
            con.executescript(f"CREATE TABLE [_tmp] AS SELECT {keep} FROM [{t}]; DROP TABLE [{t}]; "
                              f"ALTER TABLE [_tmp] RENAME TO [{t}];")
        elif op == 1:  # the column's values in another storage class
            to = rng.choice(["TEXT", "REAL", "BLOB"])
            sel = ", ".join(f"CAST([{x}] AS {to}) AS [{x}]" if x == c else f"[{x}]" for x in cols)
            con.executescript(f"CREATE TABLE [_tmp] AS SELECT {sel} FROM [{t}]; DROP TABLE [{t}]; "
                              f"ALTER TABLE [_tmp] RENAME TO [{t}];")
        elif op == 2:
            con.execute(f"UPDATE [{t}] SET [{c}] = NULL")
        elif op == 3:  # every row twice (duplicate ids)
            con.executescript(f"CREATE TABLE [_tmp] AS SELECT * FROM [{t}]; INSERT INTO [{t}] SELECT * FROM [_tmp]; "
                              "DROP TABLE [_tmp];")
        elif op == 4:  # ids pointing nowhere
            idc = [x for x in cols if any(h in x for h in _ID_HINTS)] or cols
            con.execute(f"UPDATE [{t}] SET [{rng.choice(idc)}] = {rng.choice(['987654321', '-7', '0'])}")
        elif op == 5:  # start and end swapped / negative times
            tc = [x for x in cols if any(h in x for h in _TIME_HINTS)]
            if len(tc) >= 2:
                a, b = rng.sample(tc, 2)
                con.execute(f"UPDATE [{t}] SET [{a}] = [{b}], [{b}] = [{a}]")
            elif tc:
                con.execute(f"UPDATE [{t}] SET [{tc[0]}] = -[{tc[0]}]")
        elif op == 6:
            con.execute(f"DELETE FROM [{t}]")
        else:  # a huge value in one row
            con.execute(f"UPDATE [{t}] SET [{c}] = {rng.choice(['9223372036854775807', '1e308', '-1e308'])} "
                        f"WHERE rowid = (SELECT max(rowid) FROM [{t}])")
        con.commit()
    except sqlite3.Error:
        pass
    finally:
        con.close()


def mutate_extended(rng: random.Random, data: bytes) -> bytes:
    """One structure-aware mutation of a text input, chosen by what the input looks like."""
    head = data.lstrip()[:1]
    choices = ["enc", "trunc"]
    if head in (b"{", b"["):
        choices += ["json"] * 4
    else:
        choices += ["csv"] * 4
    kind = rng.choice(choices)
    out = None
    if kind == "json":
        out = mutate_json_typed(rng, data)
    elif kind == "csv":
        out = mutate_csv(rng, data)
    elif kind == "enc":
        out = mutate_encoding(rng, data)
    if out is None:
        out = truncate_at_boundary(rng, data)
    return out


# ------------------------------------------------------------------------------------------- impossible figures
EPS = 1e-6


def _unit(meaning: str) -> str:
    return meaning.rsplit("[", 1)[1].rstrip("] ") if meaning.endswith("]") and "[" in meaning else ""


SIGNED_WORDS = ("Δ", "delta", "change", "difference", "signed", "slack", "offset", "relative", "minus", "skew",
                "negative", "gain", "saved", "clock")  # a position on a clock (start_ns) may be before its zero


np_inf = float("inf")


def _unbounded(meaning: str) -> bool:
    """A percentage that may exceed 100: a relative spread or growth ((max − min) / min), an overhead. A % of a peak,
    roof or attainable rate is bounded (sixth session): a figure above its roof says the figures are off, and
    gpulens reports it as unknown with a note, never as 180 % of peak."""
    m = meaning.lower()
    return any(w in m for w in ("spread", "/ min", "growth", "overhead"))


def _num(v) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v)


def impossible_figures(doc: dict) -> list[str]:
    """Figures in a ``gpulens analyze --json`` report that no run can have; empty when all is possible."""
    bad: list[str] = []
    for src in doc.get("sources") or []:
        sm = src.get("summary") or {}
        for k, v in sm.items():
            x = _num(v)
            if x is None:
                continue
            if math.isnan(x) or math.isinf(x):
                bad.append(f"summary.{k} = {v}")
            elif (k.endswith(("_ns", "_count", "_bytes")) or k in ("flops",)) and x < 0:
                bad.append(f"summary.{k} = {v} < 0")
            elif k.endswith("_pct") and not -EPS <= x <= 100 + EPS:
                bad.append(f"summary.{k} = {v} outside 0-100")
        span = _num(sm.get("span_ns"))
        ranks = sm.get("rank_span_ns") or {}
        if span is not None and ranks:
            if span > sum(v for v in ranks.values() if isinstance(v, (int, float))) + EPS:
                bad.append("summary.span_ns > sum of the per-rank spans")
        # device_span_ns sums the per-GPU spans (several GPUs: above the wall span); busy time fits in it
        dspan, busy, kbusy = (_num(sm.get(k)) for k in ("device_span_ns", "gpu_busy_ns", "kernel_busy_ns"))
        if dspan is not None and busy is not None and busy > dspan + EPS:
            bad.append(f"summary.gpu_busy_ns = {busy} > device_span_ns {dspan}")
        if kbusy is not None and busy is not None and kbusy > busy + EPS:
            bad.append(f"summary.kernel_busy_ns = {kbusy} > gpu_busy_ns {busy}")
        for name, res in (src.get("analyses") or {}).items():
            if not isinstance(res, dict):
                continue
            cols = res.get("columns") or {}
            for row in res.get("table") or []:
                if not isinstance(row, dict):
                    continue
                for col, v in row.items():
                    x = _num(v)
                    if x is None:
                        continue
                    meaning = str(cols.get(col, ""))
                    if math.isnan(x) or math.isinf(x):
                        bad.append(f"{name}.{col} = {v}")
                        continue
                    unit = _unit(meaning)
                    if name == "kernel_counters" and col not in ("device_id",) and x < 0:
                        bad.append(f"{name}.{col} = {v} < 0 (a counter mean: counters are never negative)")
                        continue
                    signed = any(w in meaning.lower() or w in col for w in SIGNED_WORDS)
                    if unit in ("ns", "bytes", "count", "FLOP") and x < 0 and not signed:
                        bad.append(f"{name}.{col} = {v} < 0 ({meaning})")
                    elif unit == "%" and not signed and not -EPS <= x <= (np_inf if _unbounded(meaning) else 100 + EPS):
                        bad.append(f"{name}.{col} = {v} outside 0-100 ({meaning})")
                    elif unit == "share" and not -EPS <= x <= 1 + EPS and not signed:
                        bad.append(f"{name}.{col} = {v} outside 0-1 ({meaning})")
        for f in src.get("findings") or []:
            x = _num(f.get("time_at_stake_ns")) if isinstance(f, dict) else None
            if x is not None and (x < 0 or math.isnan(x)):
                bad.append(f"finding {f.get('title', '')[:60]!r} time_at_stake_ns = {x}")
    return bad
