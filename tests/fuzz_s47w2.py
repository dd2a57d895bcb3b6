"""Session-47 wave-2 fuzzing: the formats wave 1 (tests/fuzz_s47.py) reached least — SQLite databases, text
reports, folders — run through ``gpulens analyze`` in a child process and classified as fuzz_s47 does (classes 1–4:
traceback / hang / impossible figure / silent drop; :func:`tests.fuzz_s47.classify`).

``python tests/fuzz_s47w2.py --seed S --count N --workdir DIR [--start I] [--kinds sqlite,text,folder]`` (DIR under
/tmp; not part of the timed suite). Families:

* ``sqlite`` — an nsys / rocpd / rocprof v1 / nvprof-style database with: a table dropped, a column renamed, a
  column NULL in some rows, a column given another type (text, real, blob), a string-table id pointing nowhere,
  duplicated ids (a row repeated), a corrupt page (bytes overwritten past the header), a WAL file beside it;
* ``text`` — a text report (ncu text, nsys stats stdout, rocprof ``results.txt`` / ``*_trace.txt``) with: lines
  cut out, sections reordered, numbers in another locale's format (``1.234,5``), time units swapped
  (``ms`` ↔ ``us``, ``(ns)`` ↔ ``(us)``), the last line cut in the middle;
* ``folder`` — a folder of mixed producers (a rocprofv3 folder with a rocprof v1 CSV or an nsys database beside
  it), a file duplicated under another name, a file appearing twice through a symlink (to the file or the folder).

Totals — inputs per family and mutation, findings per class — are printed as one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sqlite3
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzz_s47 as f1  # noqa: E402
from tests import fuzzing  # noqa: E402

EXPECT = f1.EXPECT


def _sqlite_seeds(seeds: dict) -> list[Path]:
    out = [p for p in seeds.values() if p.is_file() and p.read_bytes()[:15] == b"SQLite format 3"]
    for d in seeds.values():
        if d.is_dir():
            out += [p for p in d.iterdir() if p.is_file() and p.read_bytes()[:15] == b"SQLite format 3"]
    return sorted(out)


def _text_seeds(seeds: dict) -> list[Path]:
    names = ("ncu.txt", "4242_results.txt", "894_hcc_ops_trace.txt", "case_T08.nsys_stats_stdout.csv",
             "kern_sum.csv", "superbench_sm100_cublaslt_fp8_ncu.log", "results.stats.csv")
    return sorted(p for p in seeds.values() if p.is_file() and p.name in names)


def _tables(con) -> list[str]:
    return [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]


def sqlite_mut(rng, seeds, work: Path, i: int):
    src = rng.choice(_sqlite_seeds(seeds))
    p = work / f"in{i}_{src.name}"
    shutil.copyfile(src, p)
    how = rng.choice(["drop", "rename", "null", "retype", "dangling", "dup", "corrupt", "wal"])
    if how == "corrupt":
        data = bytearray(p.read_bytes())
        page = 4096 if len(data) > 8192 else 1024
        at = rng.randrange(page, max(page + 1, len(data) - 64))
        n = rng.choice([16, 200, page])
        data[at:at + n] = bytes(rng.randrange(256) for _ in range(min(n, len(data) - at)))
        p.write_bytes(bytes(data))
        EXPECT.update(op=f"corrupt {n} bytes at {at}", mutated=-1)
        return p, src
    con = sqlite3.connect(p)
    try:
        tabs = _tables(con)
        hot = [t for t in tabs if re.search(r"(?i)kernel|dispatch|memcpy|string|op|api|activity|agent|info|target", t)]
        tab = rng.choice(hot or tabs)
        cols = [r[1] for r in con.execute(f'PRAGMA table_info("{tab}")')]
        col = rng.choice(cols)
        n = -1
        if how == "drop":
            con.execute(f'DROP TABLE "{tab}"')
            op = f"table {tab} dropped"
        elif how == "rename":
            con.execute(f'ALTER TABLE "{tab}" RENAME COLUMN "{col}" TO "{col}_x"')
            op = f"{tab}.{col} renamed"
        elif how == "null":
            n = con.execute(f'UPDATE "{tab}" SET "{col}" = NULL WHERE rowid % 2 = 1').rowcount
            op = f"{tab}.{col} NULL in {n} rows"
        elif how == "retype":
            val = rng.choice(["'12'", "'x'", "1.5", "x'00ff'", "-1", "9223372036854775807", "'1.234,5'"])
            n = con.execute(f'UPDATE "{tab}" SET "{col}" = {val} WHERE rowid % 3 = 0').rowcount
            op = f"{tab}.{col} = {val} in {n} rows"
        elif how == "dangling":
            ids = [c for c in cols if re.search(r"(?i)name|string|id$", c)] or cols
            col = rng.choice(ids)
            n = con.execute(f'UPDATE "{tab}" SET "{col}" = 987654321 WHERE rowid % 2 = 0').rowcount
            op = f"{tab}.{col} -> 987654321 (nowhere) in {n} rows"
        elif how == "dup":
            n = con.execute(f'INSERT INTO "{tab}" SELECT * FROM "{tab}" WHERE rowid % 2 = 0').rowcount
            op = f"{tab}: {n} rows repeated"
        else:  # a WAL file beside it: the last writes sit in -wal, not yet checkpointed
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA wal_autocheckpoint=0")
            n = con.execute(f'DELETE FROM "{tab}" WHERE rowid % 2 = 0').rowcount
            con.commit()
            keep = sqlite3.connect(p)  # a second connection keeps the WAL file from being checkpointed on close
            shutil.copyfile(str(p) + "-wal", str(p) + "-wal.keep")
            keep.close()
            op = f"WAL beside it ({tab}: {n} rows deleted in the WAL)"
        con.commit()
    except sqlite3.Error as exc:
        con.close()
        raise ValueError(str(exc)) from exc
    con.close()
    if how == "wal" and Path(str(p) + "-wal.keep").exists():
        os.replace(str(p) + "-wal.keep", str(p) + "-wal")
    EXPECT.update(op=op, mutated=n)
    if how in ("dangling", "dup"):
        EXPECT["same_as"] = src  # names unknown or rows repeated: no kernel may go missing
    elif how in ("rename", "null", "retype"):
        EXPECT["check_drop"] = True  # rows may be refused, never silently: a warning counts them
    return p, src


_NUM = re.compile(r"(?<![\w.])(\d{1,3})(\d{3})\.(\d+)(?![\w.])")


def text_mut(rng, seeds, work: Path, i: int):
    src = rng.choice(_text_seeds(seeds))
    text = src.read_text(encoding="utf-8", errors="replace")
    lines = text.splitlines(keepends=True)
    how = rng.choice(["cut_lines", "reorder", "locale", "units", "cut_last"])
    if how == "cut_lines" and len(lines) > 3:
        k = rng.randrange(1, max(2, len(lines) // 3))
        for _ in range(k):
            del lines[rng.randrange(1, len(lines))]
        op = f"{k} lines cut"
        EXPECT.update(mutated=k)
    elif how == "reorder":
        blocks = re.split(r"(\n\s*\n)", text)
        rng.shuffle(blocks)
        lines = ["".join(blocks)]
        op = "sections reordered"
    elif how == "locale":
        lines = [_NUM.sub(lambda m: f"{m[1]}.{m[2]},{m[3]}", ln).replace("%", " %") if rng.random() < 0.7
                 else re.sub(r"(\d)\.(\d)", r"\1,\2", ln) for ln in lines]
        op = "numbers as 1.234,5"
    elif how == "units":
        swap = rng.choice([("ms", "us"), ("us", "ms"), ("(ns)", "(us)"), ("nsecond", "usecond"), ("ns", "ms")])
        lines = [ln.replace(swap[0], swap[1]) for ln in lines]
        op = f"unit {swap[0]} -> {swap[1]}"
    else:
        body = "".join(lines).rstrip("\n")
        lines = [body[:rng.randrange(len(body) // 2, len(body))]]
        op = "last line cut"
    p = work / f"in{i}_{src.name}"
    p.write_text("".join(lines), encoding="utf-8")
    EXPECT.update(op=op)
    EXPECT.setdefault("mutated", -1)
    return p, src


def folder_mut(rng, seeds, work: Path, i: int):
    dirs = {k: v for k, v in seeds.items() if v.is_dir()}
    name = rng.choice(sorted(dirs))
    src = dirs[name]
    d = work / f"in{i}_{src.name}"
    shutil.copytree(src, d)
    files = sorted(p for p in d.rglob("*") if p.is_file())
    how = rng.choice(["mixed", "dup_file", "symlink_file", "symlink_dir", "mixed_sqlite"])
    if how in ("mixed", "mixed_sqlite"):
        other = rng.choice([p for p in seeds.values() if p.is_file() and (
            p.suffix == ".csv" if how == "mixed" else p.read_bytes()[:15] == b"SQLite format 3")])
        shutil.copyfile(other, d / other.name)
        op = f"{other.name} beside {name}"
        EXPECT.pop("same_as", None)
    elif how == "dup_file":
        f = rng.choice(files)
        shutil.copyfile(f, f.with_name("copy_of_" + f.name))
        op = f"{f.name} duplicated"
        EXPECT["same_as"] = src
    elif how == "symlink_file":
        f = rng.choice(files)
        (f.parent / ("link_" + f.name)).symlink_to(f.name)
        op = f"{f.name} twice via symlink"
        EXPECT["same_as"] = src
    else:
        (d / "again").symlink_to(".", target_is_directory=True)
        op = "folder linked into itself"
        EXPECT["same_as"] = src
    EXPECT.update(op=op)
    return d, src


MAKERS = {"sqlite": sqlite_mut, "text": text_mut, "folder": folder_mut}


class _Late(Exception):
    pass


def run_inproc(path: Path, out: Path, env_extra: dict | None = None, timeout: float = 120.0) -> dict:
    """:func:`tests.fuzz_s47.run_cli` in this process (``gpulens.cli.main`` with the same arguments, its standard
    streams captured): the same {code, text, cpu, wall}, without a new interpreter's ≈ 1.7 s start per input (the
    ``--inproc`` mode, for hundreds of inputs on a shared 2-core machine). An exception escaping ``main`` is
    reported as a traceback (class 1), an alarm after ``timeout`` s as a hang."""
    import contextlib
    import io
    import signal
    import traceback

    from gpulens.cli import main as cli_main

    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    argv = ["analyze", str(path), "--json", str(out / "r.json"), "--markdown", str(out / "r.md"), "--html",
            str(out / "r.html"), "--no-cache"]
    buf = io.StringIO()

    def late(*_):
        raise _Late()

    old = signal.signal(signal.SIGALRM, late)
    signal.alarm(int(timeout))
    t0, c0 = time.monotonic(), time.process_time()
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            code = cli_main(argv)
    except _Late:
        return {"code": None, "text": "", "cpu": timeout, "wall": timeout}
    except SystemExit as exc:
        code = exc.code
    except BaseException:  # noqa: BLE001 - what the child process would print
        code, _ = 1, buf.write(traceback.format_exc())
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return {"code": code, "text": buf.getvalue(), "cpu": time.process_time() - c0, "wall": time.monotonic() - t0}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=47247)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--workdir", type=Path, required=True)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--only", type=int, default=None)
    ap.add_argument("--kinds", default="sqlite,text,folder")
    ap.add_argument("--inproc", action="store_true", help="run gpulens in this process (run_inproc)")
    a = ap.parse_args(argv)
    if a.inproc:
        f1.run_cli = run_inproc
    seeds = fuzzing.write_seeds(a.workdir / "seeds")
    extra = HERE / "data" / "nvidia" / "superbench_sm100_cublaslt_fp8_ncu.log"
    if extra.exists():
        seeds["ncu_log"] = Path(shutil.copyfile(extra, a.workdir / "seeds" / extra.name))
    kinds = a.kinds.split(",")
    fdir = a.workdir / "findings"
    fdir.mkdir(parents=True, exist_ok=True)
    cache_file = a.workdir / "base.json"
    cache = json.loads(cache_file.read_text()) if cache_file.exists() else {}
    tot: dict = {"inputs": 0, "by_family": {}, "by_op": {}, "classes": {"1": 0, "2": 0, "3": 0, "4": 0},
                 "by_family_class": {}, "findings": []}
    t0 = time.monotonic()
    for i in ([a.only] if a.only is not None else range(a.start, a.start + a.count)):
        rng = random.Random(a.seed * 7919 + i)
        kind = rng.choice(kinds)
        work = a.workdir / "work"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        EXPECT.clear()
        try:
            made = MAKERS[kind](rng, seeds, work, i)
        except (OSError, ValueError, sqlite3.Error, IndexError) as exc:
            print(f"{i} {kind}: not made ({exc})", file=sys.stderr)
            continue
        if made is None:
            continue
        path, src = made
        base = f1.baseline(EXPECT.get("same_as") or src, a.workdir, cache)
        if EXPECT.get("same_as") is None and not EXPECT.get("check_drop"):
            base = dict(base or {}, kernels=None)
        res = f1.run_cli(path, work / "out", None, a.timeout)
        got = f1.classify(res, work / "out", base)
        tot["inputs"] += 1
        tot["by_family"][kind] = tot["by_family"].get(kind, 0) + 1
        opk = kind + ":" + re.sub(r"[\d,]+|'[^']*'|\S+\.\w+", "", str(EXPECT.get("op")))[:40].strip()
        tot["by_op"][opk] = tot["by_op"].get(opk, 0) + 1
        if got is not None:
            cls, what = got
            tot["classes"][str(cls)] += 1
            fc = f"{kind}/{cls}"
            tot["by_family_class"][fc] = tot["by_family_class"].get(fc, 0) + 1
            rec = {"i": i, "kind": kind, "class": cls, "seed": src.name, "op": EXPECT.get("op"), "what": what[:400]}
            tot["findings"].append(rec)
            keep = fdir / f"{i}_{kind}"
            shutil.rmtree(keep, ignore_errors=True)
            try:
                if path.is_dir():
                    shutil.copytree(path, keep, symlinks=True)
                else:
                    keep.mkdir()
                    for q in path.parent.glob(path.name + "*"):
                        shutil.copyfile(q, keep / q.name)
            except OSError:
                pass
            print(json.dumps(rec, default=str), file=sys.stderr, flush=True)
        cache_file.write_text(json.dumps(cache))
    tot["seconds"] = round(time.monotonic() - t0, 1)
    print(json.dumps(tot, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
