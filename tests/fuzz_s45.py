"""Session-45 fuzzing: mutation kinds no earlier fuzzer makes (tests/fuzzing.py, fuzz_more … fuzz_s44), on the seeds
of tests/fuzzing.py ``--extended`` and the real traces of ../shared/traces.

``python tests/fuzz_s45.py --seed S --count N --workdir DIR [--timeout 40] [--kinds a,b] [--only I]`` (run it from
a folder outside the repository, DIR under /tmp). Kinds (:data:`KINDS`):

* ``scaling`` — a metamorphic cost check: 1–3 records of a seed (Kineto events with their launch partner, CSV rows
  of rocprof v1 / v3 / nsys stats / ncu, rows of an nsys export's kernel table) repeated ``n`` and ``4·n`` times —
  identical, spread in time, nested (each copy starting 1 µs later and ending 1 µs earlier than the one before), or
  for CSV appended with the header (and units row) before each copy, as ``tool >> out.csv`` run again writes —
  and both analysed (``analyze --json --markdown --html``), and the seed alone: the copies of the larger may cost
  at most 6× the CPU time of the smaller's (seed's time taken off; a linear cost gives ~4×, a cost in the square
  of the copies 16×), and it stays within the limit;
* ``mixed_folder`` — one folder holding 2–4 seeds of different formats (files, and folder seeds as subfolders),
  or the same seeds given as separate paths of one ``analyze`` command;
* ``sqlite_coltype`` — a whole column of a table of a SQLite seed (nsys, rocpd, rpd, rocprof v1 database) given
  another storage class in every row: a REAL with a fraction, TEXT with spaces or a unit, a BLOB, NULL, 1e300,
  −1 (SQLite keeps whatever it is given);
* ``cli_chain`` — every command on one mutated input (a ``stacked`` mutation of tests/fuzz_s44.py): ``analyze``
  with all reports, ``baseline save`` of its report, ``gate`` of it against the seed's baseline and ``diff`` both
  ways.

``analyze`` runs are checked with :func:`tests.fuzz_s38.report_check`; ``diff`` / ``gate`` / ``baseline`` with
:func:`tests.fuzz_s37_cli._exit_check`. Every fault found by this campaign has its regression in
tests/test_trust_s45_fuzz.py.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzzing  # noqa: E402
from tests.fuzz_s38 import _EXPECT, report_check  # noqa: E402
from tests.fuzz_s40 import _into, _seed_files, _target  # noqa: E402
from tests.fuzz_s44 import (_csv_rows, _events, _kineto_files, _load, _put, _write_csv, make_with,  # noqa: E402
                             shared_seeds)

KINDS = ["scaling", "mixed_folder", "sqlite_coltype", "cli_chain"]
#: copies of the smaller input of ``scaling`` (the larger has four times as many)
N_SMALL = 5000
#: how much more CPU time the copies of the 4× input may take than those of the smaller (linear: ~4×) before it is a
#: finding, and the least time (s) of the larger run's copies for a finding (below it, noise dominates; the
#: smaller's copies are taken as costing at least 0.2 s)
RATIO, MIN_BIG_S = 6.0, 1.0


# ---------------------------------------------------------------------------------------------------- scaling
def _kineto_block(rng, ev: list) -> list | None:
    xs = [e for e in ev if isinstance(e, dict) and e.get("ph") == "X" and isinstance(e.get("ts"), (int, float))
          and isinstance(e.get("dur"), (int, float))]
    if not xs:
        return None
    block = rng.sample(xs, min(len(xs), rng.randint(1, 3)))
    for e in list(block):  # a kernel's launch call, a launch call's kernel
        corr = (e.get("args") or {}).get("correlation") if isinstance(e.get("args"), dict) else None
        if corr is not None and rng.random() < 0.7:
            block += [x for x in xs if x is not e and isinstance(x.get("args"), dict)
                      and x["args"].get("correlation") == corr][:1]
    return block


def _copies(block: list, n: int, how: str, span: float) -> list:
    out = []
    for j in range(n):
        for e in block:
            if how == "same":
                out.append(e)
            elif how == "spread":
                out.append(dict(e, ts=e["ts"] + j * span))
            else:  # nested: each copy 1 µs later and 2 µs shorter (kept ≥ 0)
                out.append(dict(e, ts=e["ts"] + j * 0.001, dur=max(0.0, e["dur"] + 2 * n * 0.001 - 2 * j * 0.001)))
    return out


def _scale_kineto(rng, src: Path, work: Path, how: str) -> tuple[Path, Path] | None:
    doc, gz = _load(src)
    ev = _events(doc)
    block = _kineto_block(rng, ev) if ev else None
    if not block:
        return None
    span = max(1.0, max(e["ts"] + e["dur"] for e in block) - min(e["ts"] for e in block))
    keep = [e for e in ev if not any(e is b for b in block)]
    out = []
    for n, name in ((N_SMALL, "small"), (4 * N_SMALL, "big")):
        ev[:] = keep + _copies(block, n, how, span)
        d = work / name
        d.mkdir()
        p = d / src.name
        _put(p, doc, gz)
        out.append(p)
    _EXPECT["op"] = f"{src.name}: {len(block)} events ({', '.join(str(e.get('name'))[:30] for e in block)}) ×n {how}"
    return out[0], out[1]


_TIME_COLS = ("BeginNs", "EndNs", "Start_Timestamp", "End_Timestamp", "Start (ns)", "start", "end", "DispatchNs",
              "CompleteNs")


def _scale_csv(rng, src: Path, work: Path, how: str, seeds, names) -> tuple[Path, Path] | None:
    rows = _csv_rows(src)
    if rows is None:
        return None
    hd, body = rows[0], [r for r in rows[1:] if len(r) == len(rows[0])]
    if not body:
        return None
    block = rng.sample(body, min(len(body), rng.randint(1, 3)))
    tcols = [hd.index(c) for c in _TIME_COLS if c in hd]
    out = []
    for n, name in ((N_SMALL, "small"), (4 * N_SMALL, "big")):
        d = work / name
        d.mkdir()
        p, seed = _into(d, src, seeds, names)
        new = []
        for j in range(n):
            if how == "appended":  # the tool's whole output appended again: header, (units row,) rows
                new.append(hd)
                new += [r for r in rows[1:2] if len(r) == len(hd) and not (r[0] or "").strip()]
            for r in block:
                r = list(r)
                if how not in ("same", "appended"):
                    for c in tcols:
                        try:
                            v = int(float(r[c]))
                        except ValueError:
                            continue
                        r[c] = str(v + (j * 10_000 if how == "spread" else (j if "End" not in hd[c] and hd[c] != "end"
                                                                              else -j)))
                new.append(r)
        _write_csv(p, [hd] + body + new)
        out.append(_target(p, seed, d))
    _EXPECT.update(op=f"{src.name}: {len(block)} rows ×n {how}", zero=seed)
    return out[0], out[1]


def _scale_sqlite(rng, src: Path, work: Path, how: str) -> tuple[Path, Path] | None:
    out = []
    for n, name in ((N_SMALL, "small"), (4 * N_SMALL, "big")):
        d = work / name
        d.mkdir()
        p = d / src.name
        shutil.copyfile(src, p)
        con = sqlite3.connect(p)
        tabs = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")
                if r[0].startswith(("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "rocpd_op",
                                    "rocpd_api", "rocpd_kernel_dispatch", "rocpd_region"))]
        if not tabs:
            con.close()
            return None
        t = sorted(tabs)[rng.randrange(len(tabs))] if name == "small" else _EXPECT["table"]
        _EXPECT["table"] = t
        cols = [r[1] for r in con.execute(f'PRAGMA table_info("{t}")')]
        tc = [c for c in cols if c.lower() in ("start", "end")]
        base = con.execute(f'SELECT * FROM "{t}" LIMIT 2').fetchall()
        if not base:
            con.close()
            return None
        rows = []
        for j in range(n):
            for b in base:
                r = list(b)
                for c in tc:
                    k = cols.index(c)
                    if isinstance(r[k], int) and how != "same":
                        r[k] += j * 10_000 if how == "spread" else (j if c.lower() == "start" else -j)
                if "id" in cols and isinstance(r[cols.index("id")], int):
                    r[cols.index("id")] = None  # a fresh rowid (an INTEGER PRIMARY KEY) for each copy
                rows.append(r)
        try:
            con.executemany(f'INSERT INTO "{t}" VALUES ({",".join("?" * len(cols))})', rows)
            con.commit()
        except sqlite3.Error:
            con.close()
            return None
        con.close()
        out.append(p)
    _EXPECT["op"] = f"{src.name}: 2 rows of {_EXPECT['table']} ×n {how}"
    return out[0], out[1]


def scaling(rng, seeds, names, work: Path, i: int):
    how = rng.choice(["same", "spread", "nested"])
    fam = rng.choice(["kineto", "kineto", "csv", "sqlite"])
    if fam == "kineto":
        src = rng.choice([f for f in _kineto_files(seeds, names) if f.stat().st_size < 3_000_000])
        got = _scale_kineto(rng, src, work, how)
    elif fam == "csv":
        src = rng.choice(_seed_files(seeds, names, (".csv",)))
        how = rng.choice([how, "appended"])
        got = _scale_csv(rng, src, work, how, seeds, names)
    else:
        src = rng.choice([f for f in _seed_files(seeds, names, (".sqlite", ".db", ".rpd"))
                          if f.stat().st_size < 20_000_000])
        got = _scale_sqlite(rng, src, work, how)
    if got is None:
        return None
    _EXPECT["small"] = got[0]
    _EXPECT.setdefault("zero", src)
    return got[1], src


def _cpu_analyze(path: Path, work: Path) -> tuple[float, int, str]:
    from tests.fuzz_s8 import run_cli

    o = work / "t"
    shutil.rmtree(o, ignore_errors=True)
    o.mkdir()
    t = time.process_time()
    code, text = run_cli(["analyze", str(path), "--no-cache", "-q", "--lenient", "--json", str(o / "r.json"),
                          "--markdown", str(o / "r.md"), "--html", str(o / "r.html")])
    return time.process_time() - t, code, text


# ---------------------------------------------------------------------------------------------------- folders
def mixed_folder(rng, seeds, names, work: Path, i: int):
    pool = [n for n in names if seeds[n].exists() and (not n.startswith("shared_") or seeds[n].stat().st_size < 2e6)]
    picked = rng.sample(pool, rng.randint(2, 4))
    d = work / "mixed"
    d.mkdir()
    for n in picked:
        s = seeds[n]
        (shutil.copytree if s.is_dir() else shutil.copyfile)(s, d / s.name)
    _EXPECT["op"] = "folder of " + ", ".join(seeds[n].name for n in picked)
    _EXPECT["as_args"] = rng.random() < 0.4
    return d, seeds[picked[0]]


# ---------------------------------------------------------------------------------------------------- sqlite columns
COLTYPE = [("REAL+.5", lambda c: f'CASE WHEN typeof("{c}")=\'integer\' THEN "{c}" + 0.5 ELSE "{c}" END'),
           ("TEXT spaces", lambda c: f"' ' || \"{c}\" || ' '"), ("TEXT unit", lambda c: f"\"{c}\" || ' ns'"),
           ("BLOB", lambda c: f'CAST("{c}" AS BLOB)'), ("NULL", lambda c: "NULL"), ("1e300", lambda c: "1e300"),
           ("-1", lambda c: "-1"), ("TEXT", lambda c: f'CAST("{c}" AS TEXT)'), ("9.3e18", lambda c: "9.3e18")]


def sqlite_coltype(rng, seeds, names, work: Path, i: int):
    cands = [f for f in _seed_files(seeds, names, (".sqlite", ".db", ".rpd")) if f.stat().st_size < 30_000_000]
    src = rng.choice(cands)
    p, seed = _into(work, src, seeds, names)
    con = sqlite3.connect(p)
    try:
        tabs = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        cols = [(t, r[1]) for t in tabs for r in con.execute(f'PRAGMA table_info("{t}")')
                if con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]]
        if not cols:
            return None
        t, c = rng.choice(cols)
        what, expr = rng.choice(COLTYPE)
        con.execute(f'UPDATE "{t}" SET "{c}" = {expr(c)}')
        con.commit()
    except sqlite3.Error:
        return None
    finally:
        con.close()
    _EXPECT["op"] = f"{src.name}: {t}.{c} -> {what}"
    return _target(p, seed, work), seed


# ---------------------------------------------------------------------------------------------------- cli chain
def cli_chain(rng, seeds, names, work: Path, i: int):
    from tests.fuzz_s44 import stacked

    got = stacked(rng, seeds, names, work, i)
    if got is not None:
        _EXPECT["chain"] = True
    return got


def _chain(path: Path, work: Path, o: str) -> str | None:
    from tests.fuzz_s37_cli import _exit_check
    from tests.fuzz_s8 import run_cli

    seed = _EXPECT.get("seed")
    rep = work / "o" / "r.json"
    good, base_good, base_bad = work / "good.json", work / "bg", work / "bb"
    run_cli(["analyze", str(seed), "-q", "--no-cache", "--json", str(good)])
    runs = []
    if rep.exists():
        runs.append(("baseline", ["baseline", "save", str(rep), "--store", str(base_bad), "--name", "x"]))
        runs.append(("gate", ["gate", str(rep), "--baseline", "x", "--store", str(base_bad), "-q"]))
    if good.exists():
        runs.append(("baseline", ["baseline", "save", str(good), "--store", str(base_good), "--name", "x"]))
        runs.append(("gate", ["gate", str(path), "--baseline", "x", "--store", str(base_good), "-q", "--lenient"]))
        runs.append(("gate", ["gate", str(path), "--baseline", str(good), "-q"]))
    runs += [("diff", ["diff", str(seed), str(path)]), ("diff", ["diff", str(path), str(seed)])]
    for cmd, args in runs:
        code, text = run_cli(args)
        bad = _exit_check(cmd, code, text, o, False)
        if bad:
            return f"{cmd} {' '.join(args[:2])}: {bad}"
    return None


# ---------------------------------------------------------------------------------------------------- driver
def make(rng, seeds, names, work, i, kind):
    return make_with(globals()[kind], rng, seeds, names, work, i)


def _one(kind: str, rng, path: Path, work: Path, strict: bool, cli: bool) -> str | None:
    from tests.fuzz_s8 import run_cli

    o = _EXPECT.get("op", "?")
    if kind == "scaling":
        t0 = _cpu_analyze(_EXPECT["zero"], work)[0]
        t1, c1, x1 = _cpu_analyze(_EXPECT["small"], work)
        t2, c2, x2 = _cpu_analyze(path, work)
        print(f"scaling {t0:.2f} {t1:.2f} {t2:.2f} {c1} {c2} {o}", file=sys.stderr, flush=True)
        # the cost of the copies: the seed's own analysis taken off both
        if c2 == 0 and t2 - t0 > MIN_BIG_S and t2 - t0 > RATIO * max(t1 - t0, 0.2):
            return f"{o}: {t0:.2f} s CPU for the seed, {t1:.2f} s with n={N_SMALL} copies, {t2:.2f} s with 4n"
        if c1 == 0 and c2 != 0:
            return f"{o}: n reads, 4n exits {c2}: {x2.strip()[-200:]!r}"
        strict = False
    if kind == "mixed_folder" and _EXPECT.get("as_args"):
        args = [str(p) for p in sorted(path.iterdir())]
        from tests.fuzz_s37_cli import _exit_check

        code, text = run_cli(["analyze", *args, "-q", "--no-cache", "--json", str(work / "multi.json")])
        bad = _exit_check("analyze", code, text, o, False)
        if bad:
            return f"as separate paths: {bad}"
        if code == 0:
            from tests.report_invariants import violations

            v = violations(json.loads((work / "multi.json").read_text()))
            if v:
                return f"{o} as separate paths: report invariant: " + "; ".join(v[:3])
    what = report_check(path, work, [] if strict else ["--lenient"])
    if what:
        return f"{o}: {what}"
    if kind == "cli_chain" or cli:
        return _chain(path, work, o)
    return None


def main(argv: list[str] | None = None) -> int:
    return fuzzing.kind_campaign(argv, KINDS, make, _one, seed=45045, timeout=40.0, cli_every=4,
                                 more_seeds=shared_seeds)


if __name__ == "__main__":
    sys.exit(main())
