"""Eleventh-session fuzzing: mutation kinds no earlier fuzzer makes (tests/fuzzing.py, fuzz_more, fuzz_fresh,
fuzz_cli, fuzz_s8, fuzz_s9, fuzz_s10), checked through ``gpulens.analyze`` and every report, and the ``analyze``
command with every report (:func:`tests.fuzz_s10.check`, :func:`tests.fuzz_s10.check_cli`).

``python tests/fuzz_s11.py --seed S --count N --workdir DIR [--timeout 30] [--kinds a,b] [--only I]``. Kinds
(:data:`KINDS`):

* ``json_escape`` — JSON keys and values written with ``\\u`` escapes (``"\\u0074s"`` is ``"ts"``), escaped
  slashes, escaped NULs and lone surrogates in names, non-BMP characters as surrogate pairs;
* ``args_huge`` — one event's ``args`` given a 200 000-element array, an array nested 3 000 deep, or a 1 MB string;
* ``int64_edge`` — times at the edge of int64 ns: a start that fits with an end that does not, a duration of
  ``2**63 // 1000`` µs, a start of ``-2**63 // 1000`` µs;
* ``many_devices`` — every GPU event on its own device (or rank, or stream: thousands of them) in one file;
* ``line_ends`` — text inputs with CR-only line ends, a mix of CR / LF / CRLF, U+2028 inside fields, or a tail of
  NUL bytes (a preallocated file whose writer died);
* ``sqlite_cells`` — SQLite cells of another storage class: BLOBs in id/time columns, ids at ``2**63-1``, string ids
  pointing nowhere, the string table dropped;
* ``sqlite_wal`` — the database left in WAL mode with its last rows only in the ``-wal`` file, in a read-only folder;
* ``dir_special`` — a folder of traces holding a FIFO, a symlink loop, a link to its own parent, an unreadable file
  or an empty sub-folder named like a trace;
* ``ncu_odd`` — ncu CSV with every value ``n/a``, the same kernel ID twice with other values, a ``==PROF==`` line in
  the middle, IDs of ``2**63``; ``.ncu-rep`` files of a right magic and garbage;
* ``omniperf_odd`` — a rocprof-compute folder with ``sysinfo.csv`` gone or empty, ``pmc_perf.csv`` header only,
  every dispatch id the same, negative counters;
* ``gate_odd`` — gate and baseline inputs: a report as its own baseline, a baseline with a BOM, a baseline that is a
  folder, a store that is a file, a baseline name with ``../``, a report of a future schema version;
* ``out_clash`` — ``analyze`` told to write a report or a table export onto an input: the input itself spelled
  through a link or ``..``, a file inside an input folder, the input's own folder as the ``--csv`` folder when the
  input is named like an export file; every input file must keep its bytes;
* ``cache_npy`` — an analysis cached, then one byte of one cached Timeline file flipped: ``--perfetto`` must write
  what a ``--no-cache`` run writes; or any cache file replaced by a FIFO: no hang (the wall-time limit).

A finding: anything :func:`tests.fuzz_s10.check` / ``check_cli`` call one, or a hang past ``--timeout`` s of CPU
or ``--wall-timeout`` s of wall time. Findings go to ``DIR/findings.jsonl`` (input kept under ``DIR/findings``
where it can be copied); totals are printed as one JSON line.
"""

from __future__ import annotations

import gzip
import json
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
from tests.fuzz_s10 import _events, _gpu, _is_json, _text_of, check_kind  # noqa: E402

KINDS = ["json_escape", "args_huge", "int64_edge", "many_devices", "line_ends", "sqlite_cells", "sqlite_wal",
         "dir_special", "ncu_odd", "omniperf_odd", "gate_odd", "cache_npy", "out_clash"]
I64 = 2**63 - 1


# ---------------------------------------------------------------------------------------------------- JSON
def _escape_keys(text: str, rng: random.Random) -> str:
    """Write some keys (or all) with every character as a ``\\u`` escape: the same document to a JSON parser."""
    keys = sorted(set(re.findall(r'"([A-Za-z_ ]{2,20})"\s*:', text)))
    if not keys:
        return text
    chosen = set(rng.sample(keys, k=min(len(keys), rng.randint(1, 4)))) if rng.random() < 0.6 else set(keys)
    return re.sub(r'"([A-Za-z_ ]{2,20})"(\s*:)',
                  lambda m: ('"' + "".join(f"\\u{ord(c):04x}" for c in m.group(1)) + '"' + m.group(2))
                  if m.group(1) in chosen else m.group(0), text)


def json_escape(rng: random.Random, data: bytes) -> bytes | None:
    text = data.decode("utf-8", errors="replace")
    op = rng.randrange(4)
    if op == 0:
        return _escape_keys(text, rng).encode()
    if op == 1:  # every "/" escaped, every non-ASCII escaped (json.dumps default)
        try:
            doc = json.loads(text)
        except ValueError:
            return None
        return json.dumps(doc, ensure_ascii=True).replace("/", "\\/").encode()
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    evs = _events(doc)
    if not evs:
        return None
    odd = ["\\u0000", "\\ud800", "\\udfff", "\\ud83d\\ude00", "\\u202e", "\\ufeff", "\\u0085"]
    marks = {}
    for n, e in enumerate(e for e in evs if isinstance(e, dict) and isinstance(e.get("name"), str)):
        if rng.random() < 0.5:
            tok = f"@@ESC{n}@@"
            marks[tok] = rng.choice(odd)
            e["name"] = e["name"][: rng.randrange(len(e["name"]) + 1)] + tok + e["name"][len(e["name"]) // 2:]
    out = json.dumps(doc)
    for tok, esc in marks.items():
        out = out.replace(tok, esc)
    if op == 3:
        out = _escape_keys(out, rng)
    return out.encode()


def args_huge(rng: random.Random, data: bytes) -> bytes | None:
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    evs = [e for e in (_events(doc) or []) if isinstance(e, dict)]
    if not evs:
        return None
    op = rng.randrange(3)
    targets = [e for e in evs if _gpu(e) or str(e.get("cat", "")).lower() in ("cpu_op", "operator")] or evs
    e = rng.choice(targets)
    args = e.setdefault("args", {}) if isinstance(e.get("args", {}), dict) else e
    key = rng.choice(["Input Dims", "Input type", "grid", "block", "Concrete Inputs", "x"])
    if op == 0:
        args[key] = list(range(200_000))
        return json.dumps(doc).encode()
    if op == 1:
        args[key] = "@@DEEP@@"
        depth = 3000
        return json.dumps(doc).replace('"@@DEEP@@"', "[" * depth + "1" + "]" * depth).encode()
    args[key] = "é<b>" * 250_000
    return json.dumps(doc).encode()


def int64_edge(rng: random.Random, data: bytes) -> bytes | None:
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    evs = [e for e in (_events(doc) or []) if isinstance(e, dict)]
    gpu = [e for e in evs if _gpu(e)] or evs
    if not gpu:
        return None
    e = rng.choice(gpu)
    a, b = ("ts", "dur") if "ts" in e else ("start_timestamp", "end_timestamp") if "start_timestamp" in e else \
        (None, None)
    if a is None:
        return None
    op = rng.randrange(4)
    us = a == "ts"
    lim = I64 // 1000 if us else I64
    if op == 0:  # the start fits, the end does not
        e[a] = lim - 5
        if us:
            e[b] = 100
        else:
            e[b] = lim + 100
    elif op == 1:
        if us:
            e[b] = lim
        else:
            e[b] = I64
    elif op == 2:
        e[a] = -lim
    else:  # every event near the top: a consistent trace late in int64
        for x in evs:
            if isinstance(x.get(a), (int, float)):
                x[a] = lim - 10**7 + (x[a] % 10**6)
                if not us and isinstance(x.get(b), (int, float)):
                    x[b] = x[a] + 1000
    return json.dumps(doc).encode()


def many_devices(rng: random.Random, data: bytes) -> bytes | None:
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    evs = _events(doc)
    gpu = [e for e in (evs or []) if _gpu(e)]
    if not gpu:
        return None
    n = rng.choice([300, 2000, 6000])
    what = rng.choice(["device", "stream", "rank"])
    base = gpu[: max(1, min(len(gpu), 4))]
    for k in range(n):
        e = json.loads(json.dumps(rng.choice(base)))
        args = e.get("args") if isinstance(e.get("args"), dict) else None
        if what == "device":
            if args is not None and "device" in args:
                args["device"] = k
            if isinstance(e.get("pid"), int):
                e["pid"] = k
            for key in ("agent_id", "device_id"):
                if key in e:
                    e[key] = k
        elif what == "stream":
            if args is not None:
                args["stream"] = k
            e["tid"] = k
            if "queue_id" in e:
                e["queue_id"] = k
        else:
            e["pid"] = 100_000 + k
        evs.append(e)
    if what == "rank" and isinstance(doc, dict):
        doc["distributedInfo"] = {"rank": rng.choice([0, 4095, 2**31]), "world_size": rng.choice([1, 8, 65536])}
    return json.dumps(doc).encode()


# ---------------------------------------------------------------------------------------------------- text
def line_ends(rng: random.Random, data: bytes) -> bytes | None:
    op = rng.randrange(4)
    if op == 0:
        return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r")
    if op == 1:
        lines = data.replace(b"\r\n", b"\n").split(b"\n")
        return b"".join(ln + rng.choice([b"\n", b"\r\n", b"\r"]) for ln in lines)
    if op == 2:
        if _is_json(data):
            return None
        lines = data.split(b"\n")
        k = rng.randrange(1, max(2, len(lines)))
        lines[k] = lines[k].replace(b",", "\u2028,".encode(), 1)
        return b"\n".join(lines)
    return data + b"\x00" * rng.choice([1, 4096, 1 << 20])


# ---------------------------------------------------------------------------------------------------- SQLite
def sqlite_cells(rng: random.Random, f: Path) -> bool:
    con = sqlite3.connect(f)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        if not tables:
            return False
        op = rng.randrange(4)
        if op == 3:
            strings = [t for t in tables if t.lower() in ("stringids", "strings", "rocpd_string")]
            if not strings:
                return False
            con.execute(f'DROP TABLE "{rng.choice(strings)}"')
            con.commit()
            return True
        t = rng.choice(tables)
        cols = [r[1] for r in con.execute(f'PRAGMA table_info("{t}")')]
        idcols = [c for c in cols if re.search(r"(?i)(id|start|end|ns|timestamp|correlation|pid|tid)$", c)]
        if not idcols:
            return False
        c = rng.choice(idcols)
        if op == 0:
            con.execute(f'UPDATE "{t}" SET "{c}" = X\'0102030405\'')
        elif op == 1:
            con.execute(f'UPDATE "{t}" SET "{c}" = {I64}')
        else:
            con.execute(f'UPDATE "{t}" SET "{c}" = "{c}" + 1000003')
        con.commit()
        return True
    except sqlite3.Error:
        return False
    finally:
        con.close()


def sqlite_wal(rng: random.Random, f: Path) -> Path | None:
    """The database in WAL mode, its last changes only in the -wal file; the folder made read-only."""
    import subprocess

    code = ("import sqlite3,sys,os\n"
            "con=sqlite3.connect(sys.argv[1]); con.execute('PRAGMA journal_mode=WAL')\n"
            "con.execute('PRAGMA wal_autocheckpoint=0')\n"
            "t=[r[0] for r in con.execute(\"SELECT name FROM sqlite_master WHERE type='table'\")]\n"
            "con.execute('CREATE TABLE IF NOT EXISTS fuzz_wal(x)'); con.execute('INSERT INTO fuzz_wal VALUES (1)')\n"
            "con.commit(); sys.stdout.flush(); os._exit(0)\n")  # no close: no checkpoint, the -wal file stays
    try:
        subprocess.run([sys.executable, "-c", code, str(f)], timeout=30, check=True, capture_output=True)
    except (subprocess.SubprocessError, OSError):
        return None
    if rng.random() < 0.5:
        f.parent.chmod(0o555)
    return f


# ---------------------------------------------------------------------------------------------------- folders
def dir_special(rng: random.Random, seeds: dict[str, Path], work: Path, i: int) -> Path:
    d = work / f"in{i}_ranks"
    d.mkdir()
    kin = [p for n, p in sorted(seeds.items()) if p.is_file() and (n.startswith("kineto") or n == "rank_dir")]
    src = seeds.get("rank_dir")
    if src is not None and src.is_dir():
        for q in sorted(src.iterdir()):
            shutil.copyfile(q, d / q.name)
    else:
        shutil.copyfile(kin[0], d / "rank-0.json")
    op = rng.randrange(6)
    if op == 0:
        os.mkfifo(d / "rank-9.pt.trace.json")
    elif op == 1:
        os.symlink("loop-b.json", d / "loop-a.json")
        os.symlink("loop-a.json", d / "loop-b.json")
    elif op == 2:
        os.symlink("..", d / "up")
        os.symlink(".", d / "self")
    elif op == 3:
        q = d / "rank-7.pt.trace.json"
        shutil.copyfile(next(iter(sorted(d.iterdir()))), q)
        q.chmod(0)
    elif op == 4:
        (d / "rank-5.pt.trace.json").mkdir()
        (d / "rank-6.pt.trace.json.gz").write_bytes(b"")
    else:
        sub = d / "nested"
        sub.mkdir()
        os.symlink(str(d), sub / "back")
    return d


def omniperf_odd(rng: random.Random, d: Path) -> bool:
    pmc, sysinfo = d / "pmc_perf.csv", d / "sysinfo.csv"
    if not pmc.exists():
        return False
    op = rng.randrange(4)
    if op == 0:
        if rng.random() < 0.5:
            sysinfo.unlink(missing_ok=True)
        else:
            sysinfo.write_text("")
    elif op == 1:
        pmc.write_text(pmc.read_text().splitlines()[0] + "\n")
    else:
        lines = pmc.read_text().splitlines()
        head = lines[0].split(",")
        rows = [ln.split(",") for ln in lines[1:]]
        for r in rows:
            for k, h in enumerate(head):
                if k >= len(r):
                    continue
                if op == 2 and h.strip() in ("Dispatch_ID", "Index"):
                    r[k] = "0"
                if op == 3 and (h.startswith("SQ_") or h.startswith("TCC") or h.startswith("TCP")):
                    r[k] = rng.choice(["-1", "-1e18", "1e400", "nan"])
        pmc.write_text("\n".join(",".join(x) for x in [head] + rows) + "\n")
    return True


def ncu_odd(rng: random.Random, f: Path) -> bool:
    raw = f.read_bytes()
    if raw[:4] == b"NVR\x00" or f.suffix == ".ncu-rep":
        f.write_bytes(raw[:4] + os.urandom(rng.choice([0, 7, 100, 70_000])))
        return True
    lines = raw.decode("utf-8", errors="replace").splitlines()
    if not lines or '"ID"' not in lines[0] and not any('"ID"' in ln for ln in lines[:5]):
        return False
    h = next(k for k, ln in enumerate(lines) if '"ID"' in ln)
    op = rng.randrange(4)
    body = lines[h + 1:]
    if op == 0:
        body = [re.sub(r'"(-?[0-9][0-9.,]*)"', '"n/a"', ln) for ln in body]
    elif op == 1 and body:
        body = body + [re.sub(r'"(\d+(?:\.\d+)?)"$', '"999999"', ln) for ln in body]
    elif op == 2 and body:
        body.insert(len(body) // 2, "==PROF== Disconnected from process 4242")
    else:
        body = [re.sub(r'^"(\d+)"', f'"{2**63}"', ln) for ln in body]
    f.write_text("\n".join(lines[: h + 1] + body) + "\n")
    return True


# ---------------------------------------------------------------------------------------------------- gate
def check_gate(rng: random.Random, path: Path, work: Path) -> str | None:
    from tests.fuzz_cli import ALLOWED
    from tests.fuzz_s8 import run_cli
    from tests.fuzz_s10 import _NAN_FIGURE

    rep = work / "a.report.json"
    run_cli(["analyze", str(path), "-q", "--no-cache", "--json", str(rep)])
    if not rep.exists():
        return None
    store = work / "store"
    op = rng.randrange(6)
    before = rep.read_bytes()
    if op == 0:
        runs = [("gate", ["gate", str(rep), "--baseline", str(rep)])]
    elif op == 1:
        bom = work / "bom.json"
        bom.write_bytes(b"\xef\xbb\xbf" + before.replace(b"\n", b"\r\n"))
        runs = [("gate", ["gate", str(rep), "--baseline", str(bom)]), ("diff", ["diff", str(bom), str(rep)])]
    elif op == 2:
        (work / "dir.json").mkdir()
        runs = [("gate", ["gate", str(rep), "--baseline", str(work / "dir.json")])]
    elif op == 3:
        store.write_text("x")
        runs = [("baseline", ["baseline", "save", str(rep), "-n", "m", "--store", str(store)]),
                ("gate", ["gate", str(rep), "-b", "m", "--store", str(store)])]
    elif op == 4:
        runs = [("baseline", ["baseline", "save", str(rep), "-n", rng.choice(["../../x", "/etc/x", "a/b", ".", "",
                                                                              "\x00", "é" * 300]),
                              "--store", str(store)]),
                ("gate", ["gate", str(rep), "-b", "../../x", "--store", str(store)])]
    else:
        doc = json.loads(before)
        doc["schema_version"] = rng.choice([999, "2.0", -1, None])
        fut = work / "future.json"
        fut.write_text(json.dumps(doc))
        runs = [("gate", ["gate", str(rep), "--baseline", str(fut)]), ("diff", ["diff", str(fut), str(rep)]),
                ("gate", ["gate", str(fut), "--baseline", str(rep)])]
    for cmd, args in runs:
        code, text = run_cli(args)
        if code not in ALLOWED[cmd] or "Traceback" in text:
            return f"{cmd} op{op} exit {code}: {text.strip()[-300:]!r}"
        errs = [ln for ln in text.strip().splitlines() if ln.startswith("gpulens: error")]
        if code == 2 and len(errs) > 1:
            return f"{cmd} op{op} exit 2 with {len(errs)} error lines: {text.strip()[:300]!r}"
        shown = "\n".join(ln for ln in text.splitlines() if not ln.startswith("gpulens: error"))
        if _NAN_FIGURE.search(shown):
            return f"{cmd} op{op}: NaN/inf printed"
        if rep.read_bytes() != before:
            return f"{cmd} op{op}: the user's report file was rewritten"
    return None


def check_cache_npy(rng: random.Random, path: Path, work: Path) -> str | None:
    """``--perfetto`` after one byte of one cached Timeline file is flipped == a ``--no-cache`` export."""
    from tests.fuzz_s8 import run_cli

    cache = work / "cache"
    old = {k: os.environ.get(k) for k in ("GPULENS_CACHE_DIR", "GPULENS_CACHE_MIN_BYTES")}
    os.environ["GPULENS_CACHE_DIR"] = str(cache)
    os.environ["GPULENS_CACHE_MIN_BYTES"] = "0"
    try:
        want, got = work / "want.json", work / "got.json"
        c0, _ = run_cli(["analyze", str(path), "-q", "--no-cache", "--perfetto", str(want)])
        run_cli(["analyze", str(path), "-q", "--perfetto", str(work / "first.json")])
        entries = [e for e in cache.iterdir() if e.is_dir()] if cache.exists() else []
        files = [f for e in entries for f in e.iterdir() if f.is_file()]
        if not files:
            return None
        if rng.random() < 0.3:  # any cache file (results, rendered reports too) replaced by a FIFO: no hang
            f = rng.choice(files + [q for q in cache.iterdir() if q.is_file()])
            f.unlink()
            os.mkfifo(f, 0o600)
            c1, t1 = run_cli(["analyze", str(path), "-q", "--perfetto", str(got)])
            if c1 != c0 or "Traceback" in t1:
                return f"cache_npy fifo {f.name}: exit {c0} then {c1}: {t1.strip()[-300:]!r}"
            return None
        f = rng.choice(files)
        raw = bytearray(f.read_bytes())
        if raw:
            raw[rng.choice([len(raw) - 1, rng.randrange(len(raw))])] ^= 1 << rng.randrange(8)
            f.write_bytes(bytes(raw))
        c1, t1 = run_cli(["analyze", str(path), "-q", "--perfetto", str(got)])
        if c1 != c0 or "Traceback" in t1:
            return f"cache_npy {f.name}: exit {c0} then {c1}: {t1.strip()[-300:]!r}"
        if want.exists() and got.exists() and want.read_bytes() != got.read_bytes():
            return f"cache_npy: a flipped byte in {f.name} was served (--perfetto differs from --no-cache)"
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return None


def check_out_clash(rng: random.Random, path: Path, work: Path) -> str | None:
    import hashlib

    from tests.fuzz_cli import ALLOWED
    from tests.fuzz_s8 import run_cli

    def digests() -> dict[str, str]:
        files = [path] if path.is_file() else sorted(q for q in path.rglob("*") if q.is_file())
        return {str(q): hashlib.blake2b(q.read_bytes(), digest_size=16).hexdigest() for q in files}

    before = digests()
    inside = sorted(before)
    target = Path(rng.choice(inside))
    op = rng.randrange(4)
    if op == 0:  # the same file through a link
        link = work / "link.out"
        os.symlink(target, link)
        target = link
    elif op == 1:  # spelled with ..
        target = target.parent / ".." / target.parent.name / target.name
    elif op == 2 and path.is_file():  # an input named like an export file, its folder the export folder
        renamed = path.with_name(rng.choice(["hotspots.csv", "summaries.json", "columns.csv", "breakdown.csv"]))
        path.rename(renamed)
        path = renamed
        before = digests()
        opt = rng.choice(["--csv", "--parquet"])
        args = ["analyze", str(path), "-q", "--no-cache", opt, str(path.parent)]
    if not (op == 2 and path.is_file()) or op == 3:
        opt = rng.choice(["--json", "--html", "--markdown", "--perfetto"])
        args = ["analyze", str(path), "-q", "--no-cache", opt, str(target)]
    code, text = run_cli(args)
    if code not in ALLOWED["analyze"] or "Traceback" in text:
        return f"out_clash op{op} exit {code}: {text.strip()[-300:]!r}"
    after = {k: v for k, v in digests().items() if k in before}
    if after != before:
        changed = [k for k in before if after.get(k) != before[k]]
        return f"out_clash op{op} {opt}: an input file was rewritten: {changed[:2]}"
    return None


# ---------------------------------------------------------------------------------------------------- driver
_JSON_KINDS = {"json_escape": json_escape, "args_huge": args_huge, "int64_edge": int64_edge,
               "many_devices": many_devices}


def make(rng: random.Random, seeds: dict[str, Path], names: list[str], work: Path, i: int,
         kind: str) -> tuple[Path, Path] | None:
    """(mutant, seed) for ``kind``; None when ``kind`` does not apply to the drawn seed."""
    if kind == "dir_special":
        p = dir_special(rng, seeds, work, i)
        return p, p
    pool = names
    if kind.startswith("sqlite"):
        pool = [n for n in names if seeds[n].is_file() and seeds[n].read_bytes()[:16] == b"SQLite format 3\x00"]
    elif kind == "omniperf_odd":
        pool = [n for n in names if seeds[n].is_dir() and (seeds[n] / "pmc_perf.csv").exists()]
    elif kind == "ncu_odd":
        pool = [n for n in names if "ncu" in n.lower()]
    if not pool:
        return None
    seed = seeds[rng.choice(pool)]
    p = work / f"in{i}_{seed.name}"
    (shutil.copytree if seed.is_dir() else shutil.copyfile)(seed, p)
    if kind in ("gate_odd", "cache_npy", "out_clash"):
        return p, seed
    if kind == "omniperf_odd":
        return (p, seed) if omniperf_odd(rng, p) else None
    if kind == "ncu_odd":
        return (p, seed) if p.is_file() and ncu_odd(rng, p) else None
    if seed.is_dir():
        files = sorted(q for q in p.rglob("*") if q.is_file())
        if not files:
            return None
        f = rng.choice(files)
    else:
        f = p
    raw = f.read_bytes()
    if kind == "sqlite_cells":
        return (p, seed) if sqlite_cells(rng, f) else None
    if kind == "sqlite_wal":
        return (p, seed) if sqlite_wal(rng, f) else None
    if raw[:16] == b"SQLite format 3\x00":
        return None
    data, gz = _text_of(raw)
    if kind in _JSON_KINDS:
        if not _is_json(data):
            return None
        out = _JSON_KINDS[kind](rng, data)
    else:
        out = line_ends(rng, data)
    if out is None:
        return None
    f.write_bytes(gzip.compress(out, compresslevel=1) if gz else out)
    return p, seed


def _expected(kind: str, what: str) -> bool:
    """True for an outcome the shared checker calls a finding that is right for this kind: the visible escape of a
    control character (``json_escape``), and busy time summed over thousands of GPUs above the wall span while
    the report lists fewer devices (``many_devices``; busy ≤ the sum of per-GPU spans is still checked)."""
    if kind == "json_escape" and fuzzing.VISIBLE_ESCAPE.search(what):
        return True
    return kind == "many_devices" and what.startswith("impossible figure: gpu_busy_ns") and "> span_ns" in what


#: Kinds checked by their own function (see :func:`tests.fuzz_s10.check_kind`).
SPECIAL = {"gate_odd": check_gate, "cache_npy": check_cache_npy, "out_clash": check_out_clash}


def _one(kind: str, rng: random.Random, path: Path, work: Path, strict: bool, cli: bool) -> str | None:
    what = check_kind(kind, SPECIAL, rng, path, work, strict, cli or kind in ("dir_special", "sqlite_wal"))
    return None if what is not None and _expected(kind, what) else what


def main(argv: list[str] | None = None) -> int:
    return fuzzing.kind_campaign(argv, KINDS, make, _one, seed=11011, cli_every=2,
                                 keep=lambda kind: kind != "dir_special")

if __name__ == "__main__":
    sys.exit(main())
