"""Session-50 fuzzing: input kinds and command-line values the earlier harnesses (fuzz_s8 … fuzz_s49, fuzz_cli) do
not make, each run through ``gpulens analyze`` (``--json --markdown --html --csv`` and the console), ``gpulens diff``
and ``gpulens gate`` by the loop, outcome classes and in-process mode of tests/fuzz_s48.py, with the input-unchanged
check (class 5) of tests/fuzz_s49.py.

``python tests/fuzz_s50.py --seed S --count N --workdir DIR [--timeout 60] [--kinds a,b] [--only I] [--inproc]``
(DIR under /tmp; not part of the timed suite). Kinds (:data:`MAKERS`):

* ``sparse`` — a file of 1–256 MiB that is one hole (``truncate -s``: space reserved, never written), alone, as
  a rank file of a folder, under a trace's name of any format, or given to ``--device-spec``; a seed followed by a
  hole of 1–64 MiB or by 4 KiB–66 MiB of NUL bytes written out (a preallocated file whose writer died);
* ``sqlite_layout`` — an SQLite seed (nsys, rocpd, rocprof v1) whose hot table is rebuilt ``WITHOUT ROWID`` (or
  ``STRICT``), given a column named ``rowid`` / ``_rowid_`` / ``oid`` holding text, NULL or duplicates, re-encoded
  UTF-16; a FIFO, folder or dangling link under its ``-journal`` / ``-wal`` / ``-shm`` name; or left with a hot
  rollback journal (a writer killed inside a transaction that
  deleted or rewrote rows) in a writable or read-only folder: the committed rows must be read and the journal and
  database left as they were;
* ``json_syntax`` — a Kineto seed in almost-JSON other tools write: trailing commas, ``//`` and ``/* */``
  comments, single quotes, Python literals (``None``/``True``), leading zeros, ``+1``, a top-level array without
  its ``]`` (Chrome's array form), one event per line (NDJSON), two documents back to back;
* ``csv_dialect`` — a CSV seed with tab / pipe delimiters, every cell quoted, ``'`` quoting, a cp1252 ``µ`` in the
  header, CR inside a quoted name, header then only blank lines, a trailing comma on the header only;
* ``real_newest`` — the real inputs of the newest readers (:data:`NEWEST`: nvprof GPU trace CSV, nsys stats,
  Nsight Compute pages and log, rocprofv2 tracer text, a rocmProfileData trace, a real nsys export) given a mutation
  of tests/fuzz_s49.py (odd number spellings, extremes, 64 k-character names, a structural cut) or number tokens of
  the text respelled;
* ``cli_values`` — ``analyze`` of a seed with one option at an odd value (:data:`OPTS`): ``--top`` huge / negative /
  a float / spaces, ``--scheduler`` a malformed address, a closed port, a listener that never answers, a service
  that answers something else; ``--format`` another collector's name or empty; ``--window`` / ``--steps`` /
  ``--ranks`` of odd spellings; ``--device-spec`` a socket, a sparse file, the input itself.

Every fault found has its regression in tests/test_trust_s50_fuzz*.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzz_s48 as f8  # noqa: E402
from tests import fuzz_s49 as f9  # noqa: E402

EXPECT = f8.EXPECT
KINDS = ["sparse", "sqlite_layout", "sqlite_layout", "json_syntax", "csv_dialect", "cli_values", "cli_values",
         "real_newest", "real_newest", "real_newest"]
DATA = HERE / "data"
#: Real inputs of the newest readers (sessions 41–49: nvprof GPU trace CSV, nsys stats of a real run, Nsight Compute
#: metrics pages and log, rocprofv2 tracer text, a rocmProfileData trace, a real nsys export), which the earlier
#: campaigns' seeds (tests/fuzzing.py) do not hold.
NEWEST = ["nvidia/magus_gtx1080ti_gputrace_sobol.csv", "nvidia/magus_gtx1080ti_traces_cudasdk_concurrentKernels.csv",
          "nvidia/magus_gtx1080ti_matrixMul_trace.csv", "nvidia/codegandee_rtx5090_dsocr_prefill_cuda_gpu_kern_sum.csv",
          "nvidia/olajide_rtx5070_metrics_saxpy.csv", "nvidia/codegandee_rtx5090_ncu-v2_kernel_0005_details.csv",
          "nvidia/superbench_sm100_cublaslt_fp8_ncu.log",
          "rocprof/v2_cli_tracer_golden/hip_helloworld_golden_traces.txt",
          "rocprof/rpd_matmul/matmul_result.rpd", "nvidia/fuser_h200_nsys2024.6_report1.sqlite"]
NUMBER = re.compile(rb"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")


# ---------------------------------------------------------------------------------------------------- listeners
def _listener(answer: bytes | None) -> str:
    """A TCP listener on localhost (a daemon thread) that accepts and sends ``answer`` (None: never answers)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)

    def serve():
        held = []
        while True:
            c, _ = srv.accept()
            held.append(c)
            if answer:
                try:
                    c.sendall(answer)
                except OSError:
                    pass

    threading.Thread(target=serve, daemon=True).start()
    return f"tcp://127.0.0.1:{srv.getsockname()[1]}"


_LISTENERS: dict = {}


def listener(kind: str) -> str:
    if kind not in _LISTENERS:
        _LISTENERS[kind] = _listener(None if kind == "silent" else b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
                                     * 50)
    return _LISTENERS[kind]


# ---------------------------------------------------------------------------------------------------- mutations
def sparse(rng, seeds, work: Path, i: int):
    """Sparse files: one hole, or a seed followed by one."""
    how = rng.choice(["alone", "in_dir", "tail", "tail", "zeros", "spec"])
    src = rng.choice([seeds[k] for k in ("kineto", "nsys_sqlite", "rocprofv3_csv", "rocpd", "kineto_gz", "ncu_csv")])
    size = rng.choice([1 << 20, 64 << 20, 256 << 20])
    if how == "alone":
        p = work / f"in{i}_{src.name}"
        with open(p, "wb") as fh:
            fh.truncate(size)
    elif how == "in_dir":
        p = work / f"in{i}_ranks"
        shutil.copytree(seeds["rank_dir"], p)
        with open(p / "rank-9.pt.trace.json", "wb") as fh:
            fh.truncate(size)
    elif how == "tail":
        p = work / f"in{i}_{src.name}"
        shutil.copyfile(src, p)
        size = p.stat().st_size + rng.choice([1 << 20, 16 << 20, 64 << 20])
        with open(p, "r+b") as fh:
            fh.truncate(size)
    elif how == "zeros":  # NUL padding written out (no hole): the same outcome as a hole of that size
        p = work / f"in{i}_{src.name}"
        shutil.copyfile(src, p)
        size = rng.choice([4096, 1 << 20, 66 << 20])
        with open(p, "ab") as fh:
            fh.write(bytes(size))
    else:
        p = work / f"in{i}_{src.name}"
        shutil.copyfile(src, p)
        spec = work / "spec.json"
        with open(spec, "wb") as fh:
            fh.truncate(size)
        EXPECT["args"] = ["--device-spec", str(spec)]
    EXPECT["op"] = f"sparse {how} {size:,}"
    return p, src


def _rebuild(con: sqlite3.Connection, tab: str, how: str) -> None:
    cols = [r[1] for r in con.execute(f'PRAGMA table_info("{tab}")')]
    q = ", ".join(f'"{c}"' for c in cols)
    con.execute(f'ALTER TABLE "{tab}" RENAME TO "{tab}__old"')
    if how == "without_rowid":
        con.execute(f'CREATE TABLE "{tab}" ({q}, PRIMARY KEY ({q})) WITHOUT ROWID')
    else:
        con.execute(f'CREATE TABLE "{tab}" ({", ".join(f"{c!r} ANY" for c in cols)}) STRICT'.replace("'", '"'))
    con.execute(f'INSERT OR IGNORE INTO "{tab}" SELECT * FROM "{tab}__old"')
    con.execute(f'DROP TABLE "{tab}__old"')


def _hot_journal(db: Path, rng) -> str:
    """Leave ``db`` with a hot rollback journal: a child process opens a transaction, changes rows and dies."""
    con = sqlite3.connect(db)
    tabs, tab = f8.hot_table(con, rng)
    con.close()
    what = rng.choice(["delete", "update", "grow"])
    stmt = {"delete": f'DELETE FROM "{tab}"', "update": f'UPDATE "{tab}" SET rowid = rowid + 1000000',
            "grow": 'CREATE TABLE "__grow"(x)'}[what]
    code = ("import sqlite3, os\n"
            f"c = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
            "c.execute('PRAGMA journal_mode=DELETE'); c.execute('PRAGMA cache_size=1'); c.execute('BEGIN')\n"
            f"c.execute({stmt!r})\n"
            "c.execute('CREATE TABLE IF NOT EXISTS __pad(x)')\n"
            "c.executemany('INSERT INTO __pad VALUES (?)', [(os.urandom(900),) for _ in range(3000)])\n"
            "os._exit(0)\n")
    subprocess.run([sys.executable, "-c", code], check=True)
    return f"hot journal ({what} {tab})"


def sqlite_layout(rng, seeds, work: Path, i: int):
    """SQLite layouts no profiler writes but a post-processing tool may: no rowid, a rowid column, UTF-16, a hot
    journal."""
    src = seeds[rng.choice(["nsys_sqlite", "nsys_sqlite", "rocpd", "rocprof_v1_db"])]
    how = rng.choice(["without_rowid", "strict", "rowid_col", "utf16", "hot", "hot", "hot_ro", "odd_companion"])
    d = work / f"in{i}_db"
    d.mkdir()
    p = d / src.name
    if how == "utf16":
        s, t = sqlite3.connect(src), sqlite3.connect(p)
        t.execute("PRAGMA encoding='UTF-16le'")
        for (sql,) in s.execute("SELECT sql FROM sqlite_master WHERE type='table' AND sql IS NOT NULL"):
            t.execute(sql)
        for (n,) in s.execute("SELECT name FROM sqlite_master WHERE type='table'"):
            rows = s.execute(f'SELECT * FROM "{n}"').fetchall()
            if rows:
                t.executemany(f'INSERT INTO "{n}" VALUES ({",".join("?" * len(rows[0]))})', rows)
        t.commit()
        s.close()
        t.close()
        EXPECT["op"] = "utf-16 database"
        return p, src
    shutil.copyfile(src, p)
    if how == "odd_companion":  # no regular file under a name SQLite opens beside the database
        name = Path(f"{p}{rng.choice(['-journal', '-wal', '-shm'])}")
        kind = rng.choice(["fifo", "dir", "dangling"])
        if kind == "fifo":
            os.mkfifo(name)
        elif kind == "dir":
            name.mkdir()
        else:
            name.symlink_to(d / "nowhere")
        EXPECT["op"] = f"{kind} {name.name}"
        return p, src
    if how.startswith("hot"):
        EXPECT["op"] = _hot_journal(p, rng)
        if how == "hot_ro":
            os.chmod(d, 0o555)
            EXPECT["op"] += " read-only folder"
        return p, src
    con = sqlite3.connect(p)
    try:
        tabs, tab = f8.hot_table(con, rng)
        if how == "rowid_col":
            name = rng.choice(["rowid", "ROWID", "_rowid_", "oid"])
            con.execute(f'ALTER TABLE "{tab}" ADD COLUMN "{name}" TEXT')
            val = rng.choice(["'x'", "NULL", "-5", "'9223372036854775807'", "1"])
            con.execute(f'UPDATE "{tab}" SET "{name}" = {val}')
            EXPECT["op"] = f"{tab}: column {name} = {val}"
        else:
            _rebuild(con, tab, how)
            EXPECT["op"] = f"{tab}: {how}"
        con.commit()
    finally:
        con.close()
    return p, src


def json_syntax(rng, seeds, work: Path, i: int):
    """Almost-JSON other tools write."""
    src = seeds[rng.choice(["kineto", "kineto_b12", "case_B06.json", "case_B11.json"])]
    doc = json.loads(src.read_text())
    ev = doc["traceEvents"]
    text = json.dumps(doc, indent=rng.choice([None, 1]))
    how = rng.choice(["trailing_comma", "comment", "squote", "pylit", "lead0", "plus", "array_open", "ndjson",
                      "two_docs", "hex", "nan_word"])
    if how == "trailing_comma":
        text = re.sub(r"([}\]\d\"])(\s*[}\]])", r"\1,\2", text)
    elif how == "comment":
        text = "// exported\n" + text.replace('"traceEvents"', '/* events */ "traceEvents"', 1)
    elif how == "squote":
        text = text.replace('"', "'")
    elif how == "pylit":
        text = text.replace("true", "True").replace("null", "None").replace('"traceEvents"', '"x": None, '
                                                                             '"traceEvents"', 1)
    elif how == "lead0":
        text = re.sub(r'"ts": (\d)', r'"ts": 0\1', text)
    elif how == "plus":
        text = re.sub(r'"dur": (\d)', r'"dur": +\1', text)
    elif how == "array_open":
        text = json.dumps(ev)[:-1] + rng.choice(["", ",", ",\n", "\n"])
    elif how == "ndjson":
        text = "\n".join(json.dumps(e) for e in ev)
    elif how == "two_docs":
        text = text + rng.choice(["", "\n"]) + text
    elif how == "hex":
        text = re.sub(r'"correlation": (\d+)', lambda m: f'"correlation": 0x{int(m.group(1)):x}', text)
    else:
        text = re.sub(r'"dur": (\d+)', r'"dur": NaN', text, count=1)
    p = work / f"in{i}_{src.name}"
    p.write_text(text)
    EXPECT["op"] = f"json {how}"
    return p, src


def csv_dialect(rng, seeds, work: Path, i: int):
    """A CSV seed in another dialect."""
    src = rng.choice(f9._csv_seeds(seeds))
    inp, f, s = f9._place(rng, seeds, work, i, src)
    text = f.read_text(encoding="utf-8-sig", errors="replace")
    lines = text.splitlines()
    how = rng.choice(["tab", "pipe", "quote_all", "squote", "cp1252", "cr_in_name", "head_blank", "head_comma"])
    if how in ("tab", "pipe", "quote_all", "squote"):
        import csv
        import io

        rows = list(csv.reader(io.StringIO(text)))
        buf = io.StringIO()
        kw = {"tab": {"delimiter": "\t"}, "pipe": {"delimiter": "|"}, "quote_all": {"quoting": csv.QUOTE_ALL},
              "squote": {"quotechar": "'", "quoting": csv.QUOTE_ALL}}[how]
        csv.writer(buf, lineterminator="\n", **kw).writerows(rows)
        f.write_text(buf.getvalue())
    elif how == "cp1252":
        f.write_bytes(("\n".join([lines[0].replace("(ns)", "(\u00b5s)").replace("Name", "Name \u00b5")] + lines[1:])
                       + "\n").encode("cp1252", "replace"))
    elif how == "cr_in_name":
        f.write_text(text.replace('"', '"\r', 1) if '"' in text else text.replace(",", ",\"a\rb\",", 1))
    elif how == "head_blank":
        f.write_text(lines[0] + "\n" + "\n" * rng.randint(1, 50))
    else:
        f.write_text("\n".join([lines[0] + ","] + lines[1:]) + "\n")
    EXPECT["op"] = f"csv {how} {f.name}"
    return inp, s


OPTS = [["--top", "10" + "0" * 30], ["--top", "-0"], ["--top", " 5"], ["--top", "2.5"], ["--top", "0x10"],
        ["--format", ""], ["--format", "KINETO"], ["--format", "nsys_sqlite"], ["--format", "rocprofv3_csv"],
        ["--format", "ncu_rep"], ["--format", "omniperf"], ["--window", "0:0"], ["--window", "-1ms:1ms"],
        ["--window", "1e-9:1e-3"], ["--window", ":"], ["--steps", "1:1"], ["--steps", "3"], ["--steps", "0x1:2"],
        ["--ranks", "0-0"], ["--ranks", ",,"], ["--ranks", "0-1048576"], ["--workers", "1"],
        ["--scheduler", "::::"], ["--scheduler", "tcp://127.0.0.1:1"], ["--scheduler", "inproc://"],
        ["--scheduler", "SILENT"], ["--scheduler", "HTTP"], ["--scheduler", "x" * 5000],
        ["--device-spec", "SOCKET"], ["--device-spec", "SELF"], ["--device-spec", "H100"], ["--device-spec", ""]]


def cli_values(rng, seeds, work: Path, i: int):
    """One option at an odd value."""
    src = seeds[rng.choice(["kineto", "kineto_gz", "rank_dir", "nsys_sqlite", "rocprofv3_csv", "rocpd"])]
    p = work / f"in{i}_{src.name}"
    (shutil.copytree if src.is_dir() else shutil.copyfile)(src, p)
    opt = list(rng.choice(OPTS))
    if opt[1] in ("SILENT", "HTTP"):
        opt[1] = listener(opt[1].lower())
    elif opt[1] == "SOCKET":
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(work / "spec.sock"))
        opt[1] = str(work / "spec.sock")
    elif opt[1] == "SELF":
        opt[1] = str(p)
    EXPECT["args"] = opt
    EXPECT["op"] = " ".join(opt)[:200]
    return p, src


def real_newest(rng, seeds, work: Path, i: int):
    """A real input of the newest readers (:data:`NEWEST`) with one mutation of tests/fuzz_s49.py (odd spellings,
    extremes, 64 k-character names in its cells or fields; a cut at a structural boundary) or a number token of the
    text spelled oddly."""
    src = DATA / rng.choice(NEWEST)
    p = work / f"in{i}_{src.name}"
    shutil.copyfile(src, p)
    sqlite = p.read_bytes()[:15] == b"SQLite format 3"
    how = rng.choice(["spell", "extreme", "name", "cut", "token"])
    if sqlite:
        vals = {"spell": f9.SPELL, "extreme": f9.EXTREME, "name": ["k" * 65536 + "\u202e\x00"]}.get(how, f9.EXTREME)
        EXPECT["op"] = f"{how} " + f9._mutate_sqlite_cells(rng, p, vals, f9.TIME_COL if how == "extreme" else None)
    elif how in ("spell", "extreme", "name") and src.suffix == ".csv":
        vals = {"spell": f9.SPELL, "extreme": f9.EXTREME, "name": ["f<" + "A" * 65536 + ",\"x\">(int)"]}[how]
        EXPECT["op"] = f"{how} " + f9._mutate_csv_cells(rng, p, vals, re.compile(r"(?i)name") if how == "name" else
                                                       f9.TIME_COL if how == "extreme" else re.compile("."))
    elif how == "cut":
        data = p.read_bytes()
        bounds = [m.start() for m in f9.BOUND.finditer(data)]
        at = rng.choice(bounds) + rng.choice([0, 1]) if bounds else len(data) // 2
        p.write_bytes(data[:at])
        EXPECT["op"] = f"cut at {at}/{len(data)}"
    else:
        data = p.read_bytes()
        # outside double-quoted fields: a number inside a kernel name (``<int=32>``) is the name's, shown as written
        toks = [m for m in NUMBER.finditer(data) if data.count(b'"', data.rfind(b"\n", 0, m.start()) + 1,
                                                                m.start()) % 2 == 0]
        picked = toks if rng.random() < 0.2 else rng.sample(toks, min(len(toks), rng.randint(1, 5)))
        for m in sorted(picked, key=lambda m: -m.start()):
            v = rng.choice(f9.SPELL + [repr(x) for x in f9.EXTREME])
            data = data[:m.start()] + v.encode() + data[m.end():]
        p.write_bytes(data)
        EXPECT["op"] = f"{len(picked)} number tokens respelled"
    return p, src


MAKERS = {"real_newest": real_newest, "sparse": sparse, "sqlite_layout": sqlite_layout, "json_syntax": json_syntax,
          "csv_dialect": csv_dialect, "cli_values": cli_values}


def run_one(path: Path, src: Path, work: Path, rng, timeout: float, workdir: Path, cache: dict,
            inproc: bool) -> list[tuple]:
    """:func:`tests.fuzz_s49.run_one`, less click's own usage error for an option value of the wrong type (``Usage:
    … Error: Invalid value for '--top'``: exit 2 in click's three-line form, accepted by every earlier harness:
    tests/fuzz_cli.py, fuzz_s37_cli.py); the read-only folder of ``hot_ro`` made writable again afterwards."""
    try:
        found = f9.run_one(path, src, work, rng, timeout, workdir, cache, inproc)
        return [f for f in found if not (f[1] == 1 and "Usage:" in f[2] and "Error: Invalid value" in f[2])]
    finally:
        if path.parent.name.endswith("_db"):
            os.chmod(path.parent, 0o755)


def main(argv: list[str] | None = None) -> int:
    return f8.main(argv, MAKERS, KINDS, 50050, run_one)


if __name__ == "__main__":
    sys.exit(main())
