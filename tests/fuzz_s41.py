"""Session-41 fuzzing: mutation kinds no earlier fuzzer makes (tests/fuzzing.py, fuzz_more … fuzz_s40), on the seeds
of tests/fuzzing.py ``--extended`` (every format gpulens reads).

``python tests/fuzz_s41.py --seed S --count N --workdir DIR [--timeout 20] [--kinds a,b] [--only I]`` (run it from
a folder outside the repository, DIR under /tmp). Kinds (:data:`KINDS`):

* ``csv_layout`` — a CSV seed re-written whole: UTF-8 BOM + CRLF, its header repeated mid-file, two ragged rows
  (one short, one long), ``;`` as delimiter, a name holding a quoted newline and quotes, a NUL byte, UTF-16;
* ``json_shape`` — a JSON seed with ``traceEvents`` written twice (the first or the second empty), as an object,
  its events as arrays, a kernel's ``ts`` / ``dur`` as text with a unit (``"12us"``), bare ``NaN`` / ``Infinity``
  / ``1e400`` / ``-0`` where numbers are, a key written twice in one event;
* ``sqlite_schema`` — one table of a SQLite seed dropped or renamed, its columns re-typed as TEXT, NULL in its
  primary key, an id column pointing past its string table, bytes flipped in its pages, its last page cut;
* ``packing`` — a seed gzipped in two members, with trailing garbage or zeros, gzipped twice, as bzip2 / xz / a
  zstd frame (with or without the matching extension);
* ``dir_entries`` — a folder seed (or a file in a folder) beside a symbolic-link loop, a link back to the folder,
  a FIFO, a 0-byte namesake, the file renamed with a newline or bidi control, 300 copies of a small trace;
* ``report_packing`` — the JSON report of a seed gzipped (two members, trailing garbage), with a BOM and CRLF,
  ``sources`` written twice, figures as ``1e400`` / ``-0`` / text with a unit: ``diff`` both ways, ``gate`` both
  ways (as candidate and as ``--baseline``).

``analyze`` runs are checked with :func:`tests.fuzz_s38.report_check` (documented exit, one error line naming the
file, input unchanged, report invariants); ``diff`` / ``gate`` with :func:`tests.fuzz_s37_cli._exit_check`. Every
fault found by this campaign has its regression in tests/test_trust_s41_fuzz.py.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import json
import lzma
import os
import random
import re
import shutil
import sqlite3
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzzing  # noqa: E402
from tests.fuzz_s38 import _EXPECT, report_check  # noqa: E402
from tests.fuzz_s40 import _into, _seed_files, _target, diff_gate_check, filled_tables, sqlite_copy  # noqa: E402,E501

KINDS = ["csv_layout", "json_shape", "sqlite_schema", "packing", "dir_entries", "report_packing"]
CSV_OPS = ["bom_crlf", "header_again", "ragged", "semicolon", "quoted_newline", "nul", "utf16"]
JSON_OPS = ["events_twice_first_empty", "events_twice_second_empty", "events_object", "events_arrays", "dur_unit",
            "ts_unit", "bare_nan", "bare_infinity", "huge_exponent", "negative_zero", "key_twice"]
SQL_OPS = ["drop", "rename", "text_affinity", "null_key", "string_id_out_of_range", "flip_bytes", "cut_page"]
PACK_OPS = ["gzip_two_members", "gzip_trailing", "gzip_zeros", "gzip_twice", "bz2", "xz", "zstd", "bz2_no_ext"]
DIR_OPS = ["link_loop", "link_back", "fifo", "empty_namesake", "newline_name", "bidi_name", "many_files"]
REPORT_OPS = ["gzip_two_members", "gzip_trailing", "bom_crlf", "sources_twice", "huge_exponent", "negative_zero",
              "text_with_unit"]


def _text(p: Path) -> str:
    data = p.read_bytes()
    return (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode("utf-8", errors="replace")


def _put(p: Path, data: bytes, like: Path) -> None:
    """Write ``data`` to ``p``, gzipped when the seed ``like`` was."""
    p.write_bytes(gzip.compress(data) if like.read_bytes()[:2] == b"\x1f\x8b" else data)


def csv_layout(rng, seeds, names, work: Path, i: int):
    src = rng.choice(_seed_files(seeds, names, (".csv",)))
    text = _text(src)
    rows = list(csv.reader(io.StringIO(text)))
    if len(rows) < 3:
        return None
    p, seed = _into(work, src, seeds, names)
    op = rng.choice(CSV_OPS)
    lines = text.splitlines(True)
    out = io.StringIO()
    if op == "bom_crlf":
        data = b"\xef\xbb\xbf" + text.replace("\r\n", "\n").replace("\n", "\r\n").encode()
    elif op == "header_again":
        at = rng.randrange(1, len(lines))
        data = "".join(lines[:at] + [lines[0] if lines[0].endswith("\n") else lines[0] + "\n"] + lines[at:]).encode()
    elif op in ("ragged", "semicolon", "quoted_newline"):
        rows = [list(r) for r in rows]
        if op == "ragged":
            a, b = rng.sample(range(1, len(rows)), 2)
            rows[a] = rows[a][:-rng.randint(1, 2)]
            rows[b] = rows[b] + ["x"] * rng.randint(1, 2)
        elif op == "quoted_newline":
            r = rng.randrange(1, len(rows))
            if not rows[r]:
                return None
            c = rng.randrange(len(rows[r]))
            rows[r][c] += '\nsecond line, "quoted"'
        csv.writer(out, delimiter=";" if op == "semicolon" else ",", lineterminator="\n").writerows(rows)
        data = out.getvalue().encode()
    elif op == "nul":
        at = rng.randrange(len(text))
        data = (text[:at] + "\x00" + text[at:]).encode()
    else:
        data = text.encode("utf-16")
    _put(p, data, src)
    _EXPECT["op"] = f"{src.name}: {op}"
    return _target(p, seed, work), seed


def json_shape(rng, seeds, names, work: Path, i: int):
    cands = [f for f in _seed_files(seeds, names, (".json", ".json.gz")) if '"traceEvents"' in _text(f)[:4096]]
    if not cands:
        return None
    src = rng.choice(cands)
    text = _text(src)
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    op = rng.choice(JSON_OPS)
    evs = doc.get("traceEvents") if isinstance(doc, dict) else None
    if op.startswith("events_") and not isinstance(evs, list):
        return None
    num = r'("{}"\s*:\s*)"?(-?[0-9][0-9.]*)"?'
    if op == "events_twice_first_empty":
        out = text.replace('"traceEvents"', '"traceEvents": [], "traceEvents"', 1)
    elif op == "events_twice_second_empty":
        out = text.rstrip().rstrip("}") + ', "traceEvents": []}'
    elif op == "events_object":
        out = json.dumps(dict(doc, traceEvents={str(k): e for k, e in enumerate(evs)}))
    elif op == "events_arrays":
        out = json.dumps(dict(doc, traceEvents=[list(e.values()) if isinstance(e, dict) else e for e in evs]))
    elif op in ("dur_unit", "ts_unit"):
        key = op.split("_")[0]
        out = re.sub(num.format(key), lambda m: f'{m.group(1)}"{m.group(2)}{rng.choice(["us", " us", "ns", "ms"])}"',
                     text, count=rng.randint(1, 3))
    else:
        key = rng.choice(["ts", "dur", "BeginNs", "EndNs", "start", "end"])
        val = {"bare_nan": "NaN", "bare_infinity": rng.choice(["Infinity", "-Infinity"]), "huge_exponent": "1e400",
               "negative_zero": "-0"}.get(op)
        if val is not None:
            out = re.sub(num.format(key), lambda m: m.group(1) + val, text, count=rng.randint(1, 3))
        else:  # key_twice: the second value wins in every JSON reader
            out = re.sub(num.format(key), lambda m: f'{m.group(0)}, "{key}": {rng.choice([0, 5, -1, 10 ** 12])}',
                         text, count=rng.randint(1, 3))
    if out == text:
        return None
    p, seed = _into(work, src, seeds, names)
    _put(p, out.encode(), src)
    _EXPECT["op"] = f"{src.name}: {op}"
    return _target(p, seed, work), seed


def sqlite_schema(rng, seeds, names, work: Path, i: int):
    got = sqlite_copy(rng, seeds, names, work)
    if got is None:
        return None
    src, p, seed = got
    op = rng.choice(SQL_OPS)
    if op in ("flip_bytes", "cut_page"):
        b = bytearray(p.read_bytes())
        if op == "cut_page":
            b = b[: max(4096, (len(b) // 4096 - 1) * 4096)]
        else:
            for _ in range(rng.randint(1, 16)):
                j = rng.randrange(100, len(b))
                b[j] ^= 1 << rng.randrange(8)
        p.write_bytes(bytes(b))
        _EXPECT["op"] = f"{src.name}: {op}"
        return _target(p, seed, work), seed
    con = sqlite3.connect(p)
    try:
        tabs = filled_tables(con)
        if not tabs:
            return None
        t = rng.choice(tabs)
        cols = con.execute(f'PRAGMA table_info("{t}")').fetchall()
        names_ = ", ".join(f'"{c[1]}"' for c in cols)
        if op == "drop":
            con.execute(f'DROP TABLE "{t}"')
        elif op == "rename":
            con.execute(f'ALTER TABLE "{t}" RENAME TO "{t}_old"')
        elif op in ("text_affinity", "null_key"):  # re-created without constraints, every column TEXT or untyped
            typ = " TEXT" if op == "text_affinity" else ""
            con.execute(f'CREATE TABLE "_s41" ({", ".join(chr(34) + c[1] + chr(34) + typ for c in cols)})')
            con.execute(f'INSERT INTO "_s41" SELECT {names_} FROM "{t}"')
            con.execute(f'DROP TABLE "{t}"')
            con.execute(f'ALTER TABLE "_s41" RENAME TO "{t}"')
            if op == "null_key":
                key = next((c[1] for c in cols if c[5]), cols[0][1])
                con.execute(f'UPDATE "{t}" SET "{key}" = NULL WHERE rowid IN (SELECT rowid FROM "{t}" LIMIT ?)',
                            (rng.randint(1, 3),))
        else:
            ids = [c[1] for c in cols if re.search(r"(?i)(id|name)$", c[1]) and not c[5]]
            if not ids:
                return None
            c = rng.choice(ids)
            con.execute(f'UPDATE "{t}" SET "{c}" = ? WHERE rowid IN (SELECT rowid FROM "{t}" LIMIT 1)',
                        (rng.choice([987654321, -5, 2 ** 62]),))
            t = f"{t}.{c}"
        con.commit()
    except sqlite3.Error:
        return None
    finally:
        con.close()
    _EXPECT["op"] = f"{src.name}: {op} {t}"
    return _target(p, seed, work), seed


def packing(rng, seeds, names, work: Path, i: int):
    src = seeds[rng.choice([n for n in names if seeds[n].is_file()])]
    data = src.read_bytes()
    raw = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
    base = src.name[:-3] if src.name.endswith(".gz") else src.name
    op = rng.choice(PACK_OPS)
    half = rng.randrange(1, max(2, len(raw)))
    out, name = {
        "gzip_two_members": lambda: (gzip.compress(raw[:half]) + gzip.compress(raw[half:]), base + ".gz"),
        "gzip_trailing": lambda: (gzip.compress(raw) + os.urandom(rng.randint(1, 64)), base + ".gz"),
        "gzip_zeros": lambda: (gzip.compress(raw) + b"\x00" * rng.randint(1, 4096), base + ".gz"),
        "gzip_twice": lambda: (gzip.compress(gzip.compress(raw)), base + ".gz"),
        "bz2": lambda: (bz2.compress(raw), base + ".bz2"),
        "xz": lambda: (lzma.compress(raw), base + ".xz"),
        "zstd": lambda: (b"\x28\xb5\x2f\xfd" + os.urandom(64), base + ".zst"),
        "bz2_no_ext": lambda: (bz2.compress(raw), base),
    }[op]()
    p = work / name
    p.write_bytes(out)
    _EXPECT["op"] = f"{src.name}: {op}"
    return p, src


def dir_entries(rng, seeds, names, work: Path, i: int):
    src = seeds[rng.choice(names)]
    op = rng.choice(DIR_OPS)
    if src.is_dir():
        d = work / src.name
        shutil.copytree(src, d)
    else:
        d = work / "run"
        d.mkdir()
        shutil.copyfile(src, d / src.name)
    files = [f for f in sorted(d.rglob("*")) if f.is_file()]
    f = rng.choice(files)
    if op == "link_loop":
        os.symlink(d / "loop_b", d / "loop_a")
        os.symlink(d / "loop_a", d / "loop_b")
    elif op == "link_back":
        os.symlink(d, d / "again")
    elif op == "fifo":
        os.mkfifo(d / rng.choice(["pipe.json", "kernel_trace.csv.fifo", "rank-9.pt.trace.json"]))
    elif op == "empty_namesake":
        (f.parent / ("empty_" + f.name)).write_bytes(b"")
    elif op in ("newline_name", "bidi_name"):
        f.rename(f.parent / (("x\ny_" if op == "newline_name" else "\u202eevil_") + f.name))
    else:
        if not src.is_file() or src.stat().st_size > 4096:
            return None
        for j in range(300):
            shutil.copyfile(src, d / f"w{j}_{src.name}")
    _EXPECT["op"] = f"{src.name}: {op}"
    return d, src


def report_packing(rng, seeds, names, work: Path, i: int):
    from tests.fuzz_s8 import run_cli

    src = seeds[rng.choice([n for n in names if n in ("kineto", "kineto_b12", "rocprofv3_csv", "nsys_sqlite",
                                                          "rocpd", "rocprof_v1")] or names)]
    rep = work / "good.json"
    code, _ = run_cli(["analyze", str(src), "-q", "--no-cache", "--json", str(rep)])
    if code != 0 or not rep.exists():
        return None
    text = rep.read_text()
    op = rng.choice(REPORT_OPS)
    p = work / "bad.json"
    half = rng.randrange(1, len(text))
    figure = r'("[a-z_]*_ns"\s*:\s*)(\d+)'
    if op == "gzip_two_members":
        p = work / "bad.json.gz"
        p.write_bytes(gzip.compress(text[:half].encode()) + gzip.compress(text[half:].encode()))
    elif op == "gzip_trailing":
        p = work / "bad.json.gz"
        p.write_bytes(gzip.compress(text.encode()) + b"junk")
    elif op == "bom_crlf":
        p.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    elif op == "sources_twice":
        p.write_text(text.replace('"sources"', '"sources": [], "sources"', 1) if rng.random() < 0.5
                     else text.rstrip().rstrip("}") + ', "sources": []}')
    else:
        val = {"huge_exponent": r"\g<1>1e400", "negative_zero": r"\g<1>-0", "text_with_unit": r'\g<1>"\2 ns"'}[op]
        p.write_text(re.sub(figure, val, text, count=rng.randint(1, 5)))
    _EXPECT["op"] = f"report of {src.name}: {op}"
    return p, src


def make(rng, seeds, names, work, i, kind):
    _EXPECT.clear()
    return globals()[kind](rng, seeds, names, work, i)


def _one(kind: str, rng: random.Random, path: Path, work: Path, strict: bool, cli: bool) -> str | None:
    o = _EXPECT.get("op", "?")
    if kind == "report_packing":
        return diff_gate_check(path, work / "good.json", o)
    what = report_check(path, work, [] if strict else ["--lenient"])
    return f"{o}: {what}" if what else None


def main(argv: list[str] | None = None) -> int:
    return fuzzing.kind_campaign(argv, KINDS, make, _one, seed=41041, timeout=20.0,
                                 keep=lambda kind: kind != "dir_entries")


if __name__ == "__main__":
    sys.exit(main())
