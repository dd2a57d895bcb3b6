"""Session-40 fuzzing: one nasty value at a random place of a structured input, of every format (tests/fuzzing.py's
seeds with ``--extended``: Kineto JSON/.gz, rocprof v1/v2/v3, rocpd, rocprofiler-compute folders, nsys SQLite and
stats CSV, ncu CSV/.ncu-rep, the shared cases), and of the JSON reports ``gpulens diff`` and ``gate`` read.

``python tests/fuzz_s40.py --seed S --count N --workdir DIR [--timeout 20] [--kinds a,b] [--only I]`` (run it from a
folder outside the repository, DIR under /tmp). Kinds (:data:`KINDS`):

* ``json_value`` — a JSON seed parsed, one value at a random path (any depth) replaced by one of :data:`NASTY`
  (NaN, ±Infinity, 1e308, −1, 2^63, 2^64, a number as text, other scripts' digits, a list for an object, an object
  for a list, null, a 100,000-character string, 3,000 levels of nesting) or its key dropped / duplicated;
* ``csv_cell`` — a CSV seed with one cell replaced by a :data:`NASTY` text, a column duplicated or dropped;
* ``sqlite_cell`` — one cell of one table of a SQLite seed set to a :data:`NASTY` value (SQLite keeps any type);
* ``struct_cut`` — a text seed cut right after a structural byte (``{}[],:"`` or a newline) drawn at random, gzip
  seeds re-compressed after the cut or cut as gzip;
* ``report_value`` — the JSON report of a seed (``analyze --json``) given one ``json_value`` mutation, then
  ``diff`` of it against the report and ``gate`` of it against the report (both ways);
* ``junk_dir`` — a folder holding a seed file and junk: an empty file, whitespace, gzip of garbage, random bytes,
  a folder, a dangling link.

``analyze`` runs are checked with :func:`tests.fuzz_s38.report_check` (documented exit, one error line, input
unchanged, report invariants); ``diff`` / ``gate`` runs with :func:`tests.fuzz_s37_cli._exit_check`.
"""

from __future__ import annotations

import copy
import csv
import gzip
import io
import json
import os
import random
import sqlite3
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzzing  # noqa: E402
from tests.fuzz_s38 import report_check  # noqa: E402

KINDS = ["json_value", "csv_cell", "sqlite_cell", "struct_cut", "report_value", "junk_dir"]
NASTY = [float("nan"), float("inf"), float("-inf"), 1e308, -1e308, -1, 0, 2 ** 63, 2 ** 64 + 3, -(2 ** 63) - 1,
         "12", "\u0661\u0662", "\uff11\uff12", "1e3", "", " ", None, True, [], {}, [1, 2], {"a": 1}, "x" * 100_000,
         "<script>alert(1)</script>", "\x1b[31m", 0.5, -0.0, 1e-320, "NaN", "inf", "9" * 30]
_EXPECT: dict = {}


def _paths(doc, prefix=(), out=None, limit=20000):
    """Every (path, value) of ``doc`` (dict keys and list indices), up to ``limit``."""
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.append((prefix + (k,), v))
            _paths(v, prefix + (k,), out, limit)
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:400]):
            out.append((prefix + (i,), v))
            _paths(v, prefix + (i,), out, limit)
    return out


_DEEP = "__deep_nesting__"


def _deep() -> str:
    """A marker that :func:`_dump` writes as 3,000 nested lists (too deep for ``json.dumps`` to write)."""
    return _DEEP


def mutate_doc(rng: random.Random, doc) -> str | None:
    """One mutation of ``doc`` in place (see ``json_value``); its description, or None when ``doc`` has no place."""
    paths = [p for p, _ in _paths(doc)]
    if not paths:
        return None
    path = rng.choice(paths)
    parent = doc
    for k in path[:-1]:
        parent = parent[k]
    key = path[-1]
    r = rng.random()
    if r < 0.1 and isinstance(parent, dict):
        del parent[key]
        return f"drop {path}"
    if r < 0.15:
        parent[key] = _deep()
        return f"deep {path}"
    val = copy.deepcopy(rng.choice(NASTY))
    parent[key] = val
    return f"{path} = {str(val)[:40]!r}"


def _dump(doc) -> str:
    return json.dumps(doc, allow_nan=True).replace(f'"{_DEEP}"', "[" * 3000 + "1" + "]" * 3000)


def _load_json(p: Path):
    data = p.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data)


def _seed_files(seeds: dict[str, Path], names: list[str], suffixes: tuple[str, ...]) -> list[Path]:
    out = []
    for n in names:
        p = seeds[n]
        if p.is_file() and p.name.endswith(suffixes):
            out.append(p)
        elif p.is_dir():
            out += [f for f in sorted(p.rglob("*")) if f.is_file() and f.name.endswith(suffixes)][:3]
    return out


def _into(work: Path, src: Path, seeds: dict[str, Path], names: list[str]) -> tuple[Path, Path]:
    """Copy the seed holding ``src`` (the file, or its whole seed folder) into ``work``: (copy of src, seed)."""
    import shutil

    for n in names:
        s = seeds[n]
        if s.is_dir() and s in src.parents:
            dest = work / s.name
            shutil.copytree(s, dest)
            return dest / src.relative_to(s), s
    dest = work / src.name
    shutil.copyfile(src, dest)
    return dest, src


def _target(p: Path, seed: Path, work: Path) -> Path:
    """What is analysed: the copied seed folder when the mutated file lies in one, else the file."""
    return work / seed.name if seed.is_dir() else p


def json_value(rng, seeds, names, work: Path, i: int):
    cands = _seed_files(seeds, names, (".json", ".json.gz"))
    src = rng.choice(cands)
    try:
        doc = _load_json(src)
    except (ValueError, OSError):
        return None
    p, seed = _into(work, src, seeds, names)
    what = mutate_doc(rng, doc)
    if what is None:
        return None
    text = _dump(doc).encode()
    p.write_bytes(gzip.compress(text) if src.name.endswith(".gz") else text)
    _EXPECT["op"] = what
    return _target(p, seed, work), seed


def csv_cell(rng, seeds, names, work: Path, i: int):
    src = rng.choice(_seed_files(seeds, names, (".csv",)))
    try:
        rows = list(csv.reader(io.StringIO(src.read_text(errors="replace"))))
    except csv.Error:
        return None
    rows = [r for r in rows]
    if len(rows) < 2 or not rows[0]:
        return None
    p, seed = _into(work, src, seeds, names)
    r = rng.random()
    if r < 0.15:
        c = rng.randrange(len(rows[0]))
        rows = [row[:c + 1] + row[c:] for row in rows]
        what = f"dup column {rows[0][c]!r}"
    elif r < 0.3:
        c = rng.randrange(len(rows[0]))
        what = f"drop column {rows[0][c]!r}"
        rows = [row[:c] + row[c + 1:] for row in rows]
    else:
        ri = rng.randrange(1, len(rows))
        if not rows[ri]:
            return None
        c = rng.randrange(len(rows[ri]))
        v = rng.choice(NASTY)
        v = json.dumps(v) if isinstance(v, (list, dict)) else ("" if v is None else str(v))
        what = f"row {ri} col {c} = {v[:40]!r}"
        rows[ri][c] = v
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    p.write_text(buf.getvalue())
    _EXPECT["op"] = what
    return _target(p, seed, work), seed


def sqlite_copy(rng, seeds, names, work: Path) -> tuple[Path, Path, Path] | None:
    """A SQLite seed file drawn at random, copied into ``work`` (with its seed folder): (the seed file, its copy,
    the seed), or None when no seed is SQLite."""
    cands = [f for f in _seed_files(seeds, names, (".sqlite", ".db", ".rpd")) if f.read_bytes()[:6] == b"SQLite"]
    if not cands:
        return None
    src = rng.choice(cands)
    return (src, *_into(work, src, seeds, names))


def filled_tables(con: sqlite3.Connection) -> list[str]:
    """The tables of ``con`` holding at least one row."""
    tabs = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    return [t for t in tabs if con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]]


def sqlite_cell(rng, seeds, names, work: Path, i: int):
    got = sqlite_copy(rng, seeds, names, work)
    if got is None:
        return None
    src, p, seed = got
    con = sqlite3.connect(p)
    try:
        tabs = filled_tables(con)
        if not tabs:
            return None
        t = rng.choice(tabs)
        cols = [r[1] for r in con.execute(f'PRAGMA table_info("{t}")')]
        c = rng.choice(cols)
        v = rng.choice(NASTY)
        if isinstance(v, (list, dict)):
            v = json.dumps(v)
        elif isinstance(v, int) and not -(2 ** 63) <= v < 2 ** 63:
            v = str(v)
        elif isinstance(v, float) and v != v:
            v = None
        every = rng.random() < 0.3
        con.execute(f'UPDATE "{t}" SET "{c}" = ?' + ("" if every else f' WHERE rowid = (SELECT min(rowid) FROM "{t}")'),
                    (v,))
        con.commit()
    except sqlite3.Error:
        return None
    finally:
        con.close()
    _EXPECT["op"] = f"{t}.{c} = {str(v)[:40]!r}{' (every row)' if every else ''}"
    return _target(p, seed, work), seed


def struct_cut(rng, seeds, names, work: Path, i: int):
    src = rng.choice(_seed_files(seeds, names, (".json", ".gz", ".csv", ".txt")))
    data = src.read_bytes()
    gz = data[:2] == b"\x1f\x8b"
    if gz and rng.random() < 0.7:
        data = gzip.decompress(data)
    marks = [j + 1 for j, b in enumerate(data[:200000]) if b in b'{}[],:"\n']
    if not marks:
        return None
    at = rng.choice(marks)
    p, seed = _into(work, src, seeds, names)
    cut = data[:at]
    p.write_bytes(gzip.compress(cut) if gz and data[:2] != b"\x1f\x8b" else cut)
    _EXPECT["op"] = f"cut at {at} of {len(data)}"
    return _target(p, seed, work), seed


def report_value(rng, seeds, names, work: Path, i: int):
    from tests.fuzz_s8 import run_cli

    src = seeds[rng.choice([n for n in names if n in ("kineto", "kineto_b12", "rocprofv3_csv", "nsys_sqlite",
                                                          "rocpd", "v1_csv", "case_B02.pt.trace.json.gz")]
                           or names)]
    rep = work / "good.json"
    code, _ = run_cli(["analyze", str(src), "-q", "--no-cache", "--json", str(rep)])
    if code != 0 or not rep.exists():
        return None
    doc = json.loads(rep.read_text())
    what = mutate_doc(rng, doc)
    if what is None:
        return None
    p = work / "bad.json"
    p.write_text(_dump(doc))
    _EXPECT["op"] = what
    return p, src


def junk_dir(rng, seeds, names, work: Path, i: int):
    src = rng.choice([seeds[n] for n in names if seeds[n].is_file()])
    d = work / "mixed"
    d.mkdir()
    import shutil

    shutil.copyfile(src, d / src.name)
    junk = {"empty.json": b"", "blank.csv": b"  \n\t\n", "garbage.json.gz": gzip.compress(os.urandom(300)),
            "rand.pt.trace.json": os.urandom(500), "trunc.gz": gzip.compress(b'{"traceEvents": [')[:15],
            "notes.txt": "résumé ٣\n".encode()}
    for k in rng.sample(sorted(junk), rng.randint(1, len(junk))):
        (d / k).write_bytes(junk[k])
    if rng.random() < 0.5:
        (d / "sub").mkdir()
    if rng.random() < 0.5:
        os.symlink(d / "nowhere", d / "dangling.json")
    _EXPECT["op"] = f"junk folder around {src.name}"
    return d, src


def make(rng, seeds, names, work, i, kind):
    _EXPECT.clear()
    return globals()[kind](rng, seeds, names, work, i)


def diff_gate_check(path: Path, good: Path, o: str) -> str | None:
    """``diff`` of the damaged report ``path`` and the report ``good`` both ways, ``gate`` with each as the
    ``--baseline`` of the other: a documented exit with one error line (:func:`tests.fuzz_s37_cli._exit_check`),
    and never a report refused as "not a trace" (then ``gpulens diff`` advised to the user running it). The
    finding (``o``: the mutation) or None."""
    from tests.fuzz_s8 import run_cli
    from tests.fuzz_s37_cli import _exit_check

    for cmd, args in (("diff", ["diff", str(path), str(good)]), ("diff", ["diff", str(good), str(path)]),
                      ("gate", ["gate", str(path), "--baseline", str(good)]),
                      ("gate", ["gate", str(good), "--baseline", str(path)])):
        code, text = run_cli(args)
        bad = _exit_check(cmd, code, text, o, False)
        if bad:
            return f"{cmd}: {bad}"
        if "JSON report, not a trace" in text:
            return f"{cmd}: {o}: the report is refused as 'not a trace': {text.strip()[-200:]!r}"
    return None


def _one(kind: str, rng: random.Random, path: Path, work: Path, strict: bool, cli: bool) -> str | None:
    o = _EXPECT.get("op", "?")
    if kind == "report_value":
        return diff_gate_check(path, work / "good.json", o)
    extra = [] if strict else ["--lenient"]
    what = report_check(path, work, extra)
    return f"{o}: {what}" if what else None


def main(argv: list[str] | None = None) -> int:
    return fuzzing.kind_campaign(argv, KINDS, make, _one, seed=40040, timeout=20.0)


if __name__ == "__main__":
    sys.exit(main())
