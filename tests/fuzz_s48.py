"""Session-48 fuzzing: mutation strategies the earlier harnesses (fuzz_s8 … fuzz_s47w2) do not cover, each mutant
run through every surface a user reaches — ``gpulens analyze`` with ``--json --markdown --html --csv`` and the
console, ``gpulens diff SEED MUTANT`` and ``gpulens gate MUTANT --baseline SEED_REPORT`` — in a child process.

``python tests/fuzz_s48.py --seed S --count N --workdir DIR [--timeout 60] [--kinds a,b] [--only I]`` (DIR under
/tmp; not part of the timed suite). Kinds (:data:`MAKERS`):

* ``kineto_typed`` — a structurally valid Kineto JSON whose one field (of a random event kind, or of the document:
  ``deviceProperties``, ``distributedInfo``, ``baseTimeNanoseconds``) is type-confused: a number as a string
  (``"12"``, ``"12.5us"``), a nested array, an int past 2⁶³, ``NaN`` / ``Infinity`` literals, a negative number, a
  denormal, a key written twice (the second value another type), ``\\u0000`` inside a name; the text then maybe
  written with a UTF-8 BOM, as UTF-16 (LE with BOM / BE without) or UTF-32;
* ``one_kind`` — a trace whose events are all of ONE odd kind: only flows, only instants (``ph: i``), only counters
  (``ph: C``), only metadata, only ``B``/``E`` pairs (the kernels rewritten from ``X``), only async ``b``/``e``,
  only kernels without their launches, only copies, only CPU ops, only annotations;
* ``ncu_units`` — an ncu CSV whose units row is removed, doubled, swapped between columns, or given another scale
  (``usecond`` ↔ ``msecond`` / ``nsecond``, ``Mbyte`` ↔ ``Gbyte``, ``%`` ↔ ``byte``), or moved below the first row;
* ``v3_cols`` — a rocprofv3 / rocprof v1 / nsys-stats CSV with its columns reordered, extra columns (empty header, a
  second ``Kernel_Name``, a column named as a number), a column removed, headers upper-cased or padded;
* ``sqlite_schema`` — an nsys / rocpd / rocprof v1 database with every value of a table NULL, every value stored as
  TEXT or BLOB, a table replaced by a VIEW of itself, every table emptied, ints past 2⁶³⁻¹ (REAL) in the time
  columns, start and end swapped;
* ``compute_partial`` — a rocprof-compute (Omniperf) folder with a CSV cut mid-row, reduced to its header, deleted,
  emptied, given a column less or a duplicated header;
* ``mixture`` — two to four seeds of different producers in one folder (with ``--join`` half the time);
* ``report_json`` — a ``gpulens analyze --json`` report with one field (any depth) type-confused, given to
  ``gpulens gate`` as candidate and as baseline, and to ``gpulens diff``;
* ``ranks_mismatch`` — a folder of rank traces whose ``distributedInfo`` disagrees: two files with one rank, a rank
  ≥ ``world_size``, a negative or text rank, ``world_size`` differing, one file without it, one rank file of another
  format — analysed with ``--ranks`` values such as ``0-7``, ``5-2``, ``0,0``, ``999``.

Outcome classes as tests/fuzz_s47.py: (1) traceback / internal error / undocumented exit / an exit-2 message of more
than one line (a truncated input's console summary before its one error line excepted, README "Exit codes"); (2) hang:
past ``--timeout`` s of CPU time (or five times that of wall time); (3) an impossible figure in the analyze report
(:func:`tests.report_invariants.violations`, the Markdown checks of fuzz_s47, and :func:`impossible_shares` on the
console and Markdown text). diff and gate are held to (1)–(2). ``--inproc`` runs gpulens in the harness's process
(imports paid once: several times more inputs a minute on a loaded machine); confirm a finding without it.
Totals are printed as one JSON line; findings are kept under ``DIR/findings``. Every fault found has its regression
in tests/test_trust_s48_fuzz.py.
"""

from __future__ import annotations

import argparse
import codecs
import csv
import gzip
import io
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzz_s47 as f1  # noqa: E402
from tests import fuzzing  # noqa: E402

EXPECT: dict = {}
DUP = "__gpulens_fuzz_dup__"
KINDS = ["report_json", "kineto_typed", "kineto_typed", "one_kind", "ncu_units", "v3_cols", "sqlite_schema", "sqlite_schema",
         "compute_partial", "mixture", "ranks_mismatch"]
ODD_VALUES = ["12", "12.5us", " 7 ", [[1, [2]]], {"v": []}, 2 ** 63, 2 ** 64 + 1, -(2 ** 63) - 1, 10 ** 30,
              float("nan"), float("inf"), float("-inf"), -5, 0, -0.0, "", "\u0000k\u0000", True, 5e-324,
              123.999999, "NaN", "-1"]
EVENT_FIELDS = ["ts", "dur", "pid", "tid", "name", "cat", "ph", "id", "bp", "s", "args", "args.correlation",
                "args.External id", "args.stream", "args.device", "args.grid", "args.block",
                "args.registers per thread", "args.shared memory", "args.bytes", "args.memory bandwidth (GB/s)",
                "args.est. achieved occupancy %", "args.Input Dims", "args.Input type", "args.Sequence number",
                "args.context", "args.queued", "args.blocks per SM", "args.warps per SM"]
DOC_FIELDS = ["deviceProperties", "deviceProperties.*.totalGlobalMem", "deviceProperties.*.name",
              "deviceProperties.*.computeMajor", "deviceProperties.*.numSms", "deviceProperties.*.id",
              "deviceProperties.*.maxThreadsPerMultiprocessor", "deviceProperties.*.sharedMemPerBlock",
              "distributedInfo", "distributedInfo.rank", "distributedInfo.world_size", "baseTimeNanoseconds",
              "displayTimeUnit", "schemaVersion", "traceName", "traceEvents.0"]
RANK_OPTS = [None, None, "0-7", "5-2", "0,0", "999", "1", "-1", "0-", "a"]


# ---------------------------------------------------------------------------------------------------- helpers
def _dump(doc) -> str:
    """JSON text of ``doc``; a key :data:`DUP` becomes the key written just before it (a duplicated key)."""
    text = json.dumps(doc, allow_nan=True)
    for m in reversed(list(re.finditer(r'"([^"\\]*)": ((?:[^,{}\[\]"]|"(?:[^"\\]|\\.)*")*), "' + DUP + '"', text))):
        text = text[:m.end() - len(DUP) - 1] + m.group(1) + text[m.end() - 1:]
    return text


def _encode(rng, text: str) -> bytes:
    how = rng.choice(["utf8", "utf8", "utf8", "bom", "utf16", "utf16be", "utf32"])
    EXPECT["enc"] = how
    if how == "bom":
        return codecs.BOM_UTF8 + text.encode()
    if how == "utf16":
        return text.encode("utf-16")
    if how == "utf16be":
        return text.encode("utf-16-be")
    if how == "utf32":
        return text.encode("utf-32")
    return text.encode()


def _kind(e: dict) -> str:
    return f1._kind_of(e)


def _set(holder: dict, key: str, val, rng) -> None:
    if rng.random() < 0.2 and key in holder:  # the key twice: the first the original, the second ``val``
        items = list(holder.items())
        holder.clear()
        for k, v in items:
            holder[k] = v
            if k == key:
                holder[DUP] = val
        EXPECT["dup"] = key
    else:
        holder[key] = val


# ---------------------------------------------------------------------------------------------------- mutations
def kineto_typed(rng, seeds, work: Path, i: int):
    src = rng.choice(f1._kineto_files(seeds))
    doc, gz = f1._load(src)
    val = rng.choice(ODD_VALUES)
    if rng.random() < 0.3:
        field = rng.choice(DOC_FIELDS)
        parts = field.split(".")
        holders = [doc]
        for part in parts[:-1]:
            nxt = []
            for h in holders:
                v = h.get(part) if isinstance(h, dict) else None
                if part == "*" and isinstance(h, list):
                    nxt += [x for x in h if isinstance(x, dict)]
                elif part.isdigit() and isinstance(h, list) and int(part) < len(h):
                    nxt.append(h[int(part)])
                elif isinstance(v, (dict, list)):
                    nxt.append(v)
            holders = nxt
        for h in holders:
            if isinstance(h, dict):
                _set(h, parts[-1], val, rng)
            elif isinstance(h, list) and parts[-1].isdigit() and int(parts[-1]) < len(h):
                h[int(parts[-1])] = val
        EXPECT["op"] = f"doc {field} = {val!r}"
    else:
        ev = [e for e in doc["traceEvents"] if isinstance(e, dict)]
        kind = rng.choice(sorted({_kind(e) for e in ev}))
        field = rng.choice(EVENT_FIELDS)
        chosen = [e for e in ev if _kind(e) == kind]
        chosen = chosen[:1] if rng.random() < 0.4 else chosen[::3] if rng.random() < 0.5 else chosen
        top, _, sub = field.partition(".")
        for e in chosen:
            holder = e.setdefault("args", {}) if sub else e
            if isinstance(holder, dict):
                _set(holder, sub or top, val, rng)
        EXPECT["op"] = f"{kind}.{field} = {val!r} ({len(chosen)} events)"
    p = work / f"in{i}_{src.name}"
    data = _encode(rng, _dump(doc))
    p.write_bytes(gzip.compress(data) if gz else data)
    return p, src


def one_kind(rng, seeds, work: Path, i: int):
    src = rng.choice(f1._kineto_files(seeds))
    doc, gz = f1._load(src)
    ev = [e for e in doc["traceEvents"] if isinstance(e, dict)]
    how = rng.choice(["flow", "instant", "counter", "meta", "BE", "async", "kernel", "copy", "cpu_op", "annotation",
                      "runtime", "nocat"])
    ks = [e for e in ev if e.get("cat") == "kernel"]
    if how == "flow":
        out = [e for e in ev if e.get("ph") in ("s", "f", "t")]
    elif how == "instant":
        out = [dict(e, ph="i", s=rng.choice(["t", "p", "g"])) for e in ev if e.get("ph") == "X"]
        for e in out:
            e.pop("dur", None)
    elif how == "counter":
        out = [{"ph": "C", "name": "mem", "pid": e.get("pid"), "ts": e.get("ts"),
                "args": {"bytes": rng.choice([1, -1, 2 ** 64, "x"])}} for e in ev if e.get("ph") == "X"]
    elif how == "meta":
        out = [e for e in ev if e.get("ph") == "M"]
    elif how == "BE":
        out = []
        for e in ev:
            if e.get("ph") == "X" and isinstance(e.get("ts"), (int, float)) and isinstance(e.get("dur"), (int, float)):
                b = dict(e, ph="B")
                b.pop("dur")
                out += [b, {"ph": "E", "pid": e.get("pid"), "tid": e.get("tid"), "ts": e["ts"] + e["dur"]}]
            else:
                out.append(e)
    elif how == "async":
        out = []
        for n, e in enumerate(x for x in ev if x.get("ph") == "X" and isinstance(x.get("dur"), (int, float))):
            b = dict(e, ph="b", id=n)
            b.pop("dur")
            out += [b, {"ph": "e", "id": n, "cat": e.get("cat"), "name": e.get("name"), "pid": e.get("pid"),
                        "tid": e.get("tid"), "ts": e.get("ts", 0) + e["dur"]}]
    elif how == "kernel":
        out = ks
    elif how == "copy":
        out = [e for e in ev if e.get("cat") in ("gpu_memcpy", "gpu_memset")]
    elif how == "cpu_op":
        out = [e for e in ev if e.get("cat") in ("cpu_op", "python_function")]
    elif how == "annotation":
        out = [e for e in ev if e.get("cat") in ("user_annotation", "gpu_user_annotation")]
    elif how == "runtime":
        out = [e for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver", "hip_runtime")]
    else:
        out = [{k: v for k, v in e.items() if k != "cat"} for e in ev]
    if rng.random() < 0.3:
        out += [e for e in ev if e.get("ph") == "M"]
    doc["traceEvents"] = out
    p = work / f"in{i}_{src.name}"
    f1._put(p, doc, gz)
    EXPECT["op"] = f"only {how} ({len(out)} events)"
    return p, src


def ncu_units(rng, seeds, work: Path, i: int):
    src = seeds["ncu_raw"]
    text = src.read_text(encoding="utf-8")
    lines = text.splitlines()
    start = next(n for n, ln in enumerate(lines) if ln.startswith('"ID"'))
    pre, rows = lines[:start], _rows_of("\n".join(lines[start:]))
    head, units, body = rows[0], rows[1], rows[2:]
    how = rng.choice(["drop", "double", "swap", "scale", "below", "blank", "all_units"])
    scales = {"usecond": ["msecond", "nsecond", "second", "cycle"], "Mbyte": ["Gbyte", "byte", "Kbyte", "Tbyte"],
              "%": ["byte", "usecond", ""], "": ["%", "usecond"]}
    if how == "drop":
        rows = [head] + body
    elif how == "double":
        rows = [head, units, units] + body
    elif how == "swap":
        js = [j for j, u in enumerate(units) if u]
        a, b = rng.sample(range(len(units)), 2) if len(js) < 2 else rng.sample(js, 2)
        units[a], units[b] = units[b], units[a]
        rows = [head, units] + body
    elif how == "scale":
        for j, u in enumerate(units):
            if u in scales and rng.random() < 0.7:
                units[j] = rng.choice(scales[u])
        rows = [head, units] + body
    elif how == "below":
        rows = [head] + body[:1] + [units] + body[1:]
    elif how == "blank":
        rows = [head, [""] * len(head)] + body
    else:
        rows = [head] + [units] * 3
    p = work / f"in{i}_{src.name}"
    buf = io.StringIO()
    csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    p.write_text("\n".join(pre) + "\n" + buf.getvalue(), encoding="utf-8")
    EXPECT["op"] = f"units row {how}"
    return p, src


def _rows_of(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def v3_cols(rng, seeds, work: Path, i: int):
    names = ["rocprofv3_csv", "rocprof_v1", "nsys_stats", "ncu_csv"]
    src = seeds[rng.choice(names)]
    text = src.read_text(encoding="utf-8-sig", errors="replace")
    lines = text.splitlines()
    start = next((n for n, ln in enumerate(lines) if ln.count(",") >= 2), 0)
    pre, rows = lines[:start], _rows_of("\n".join(lines[start:]))
    width = len(rows[0])
    rows = [r + [""] * (width - len(r)) for r in rows]
    how = rng.choice(["shuffle", "extra", "drop", "upper", "pad", "dupname", "numhead"])
    if how == "shuffle":
        order = list(range(width))
        rng.shuffle(order)
        rows = [[r[j] for j in order] for r in rows]
    elif how == "extra":
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(width + 1)
            hdr = rng.choice(["", "Extra", "Agent_Id", "Start_Timestamp", "x,y", "\u00b5s"])
            rows = [r[:at] + [hdr if n == 0 else rng.choice(["", "1", "-1", "abc", "1e400"])] + r[at:]
                    for n, r in enumerate(rows)]
            width += 1
    elif how == "drop":
        j = rng.randrange(width)
        rows = [r[:j] + r[j + 1:] for r in rows]
        EXPECT["dropped"] = rows[0][j] if j < len(rows[0]) else "?"
    elif how == "upper":
        rows[0] = [h.upper() for h in rows[0]]
    elif how == "pad":
        rows[0] = [f"  {h} " for h in rows[0]]
    elif how == "dupname":
        j = rng.randrange(width)
        rows = [r + [r[j] if n == 0 else "other"] for n, r in enumerate(rows)]
    else:
        j = rng.randrange(width)
        rows[0][j] = "123"
    p = work / f"in{i}_{src.name}"
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    p.write_text(("\n".join(pre) + "\n" if pre else "") + buf.getvalue(), encoding="utf-8")
    EXPECT["op"] = f"columns {how}"
    return p, src


def _sqlite_seeds(seeds: dict) -> list[Path]:
    return [seeds[k] for k in ("nsys_sqlite", "rocpd", "rocpd_b", "rocprof_v1_db") if k in seeds]


def hot_table(con: sqlite3.Connection, rng) -> tuple[list[str], str]:
    """(every table of the database, one drawn among those holding rows — any when none does)."""
    tabs = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]
    hot = [t for t in tabs if con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]]
    return tabs, rng.choice(hot or tabs)


def sqlite_schema(rng, seeds, work: Path, i: int):
    src = rng.choice(_sqlite_seeds(seeds))
    p = work / f"in{i}_{src.name}"
    shutil.copyfile(src, p)
    how = rng.choice(["null_all", "text_all", "blob_all", "view", "empty_all", "huge", "swap", "real_all"])
    con = sqlite3.connect(p)
    try:
        tabs, tab = hot_table(con, rng)
        cols = [r[1] for r in con.execute(f'PRAGMA table_info("{tab}")')]
        if how == "empty_all":
            for t in tabs:
                con.execute(f'DELETE FROM "{t}"')
        elif how == "view":
            con.execute(f'ALTER TABLE "{tab}" RENAME TO "{tab}__t"')
            con.execute(f'CREATE VIEW "{tab}" AS SELECT * FROM "{tab}__t"')
        elif how in ("null_all", "text_all", "blob_all", "real_all"):
            cast = {"null_all": "NULL", "text_all": "CAST({c} AS TEXT)", "blob_all": "CAST({c} AS BLOB)",
                    "real_all": "CAST({c} AS REAL)"}[how]
            defs = ", ".join(f'"{c}"' for c in cols)
            con.execute(f'CREATE TABLE "{tab}__n" ({defs})')  # no declared types: values keep the cast's class
            sel = ", ".join(cast.format(c=f'"{c}"') for c in cols)
            con.execute(f'INSERT INTO "{tab}__n" SELECT {sel} FROM "{tab}"')
            con.execute(f'DROP TABLE "{tab}"')
            con.execute(f'ALTER TABLE "{tab}__n" RENAME TO "{tab}"')
        else:
            tcols = [c for c in cols if re.search(r"(?i)start|end|begin|stop|time|ts", c)]
            if not tcols:
                return None
            if how == "huge":
                c = rng.choice(tcols)
                con.execute(f'UPDATE "{tab}" SET "{c}" = ? WHERE rowid % 2 = 0', (rng.choice([2.0 ** 70, 2 ** 63 - 1,
                                                                                              -(2 ** 63)]),))
            else:
                s = next((c for c in tcols if re.search(r"(?i)start|begin", c)), None)
                e = next((c for c in tcols if re.search(r"(?i)end|stop", c)), None)
                if not s or not e:
                    return None
                con.execute(f'UPDATE "{tab}" SET "{s}" = "{e}", "{e}" = "{s}"')
        con.commit()
    finally:
        con.close()
    EXPECT["op"] = f"{tab}: {how}"
    return p, src


def compute_partial(rng, seeds, work: Path, i: int):
    src = seeds[rng.choice(["omniperf_dir", "omniperf_300"])]
    d = work / f"in{i}_{src.name}"
    shutil.copytree(src, d)
    files = sorted(d.rglob("*.csv"))
    hot = [f for f in files if f.name in ("pmc_perf.csv", "sysinfo.csv", "roofline.csv", "timestamps.csv",
                                          "pmc_dispatch_info.csv")]
    f = rng.choice(hot if hot and rng.random() < 0.7 else files)
    how = rng.choice(["cut", "header", "delete", "empty", "dropcol", "duphead", "cut_all"])
    text = f.read_text(encoding="utf-8", errors="replace")
    if how == "cut":
        f.write_text(text[:rng.randrange(1, max(2, len(text)))], encoding="utf-8")
    elif how == "header":
        f.write_text(text.splitlines()[0] + "\n", encoding="utf-8")
    elif how == "delete":
        f.unlink()
    elif how == "empty":
        f.write_bytes(b"")
    elif how == "dropcol":
        rows = _rows_of(text)
        j = rng.randrange(len(rows[0]))
        rows = [r[:j] + r[j + 1:] for r in rows]
        f1._write_rows(f, rows)
    elif how == "duphead":
        rows = _rows_of(text)
        rows.insert(rng.randrange(1, len(rows) + 1), rows[0])
        f1._write_rows(f, rows)
    else:
        for g in files:
            t = g.read_text(encoding="utf-8", errors="replace")
            g.write_text(t[:len(t) // 2], encoding="utf-8")
    EXPECT["op"] = f"{f.name}: {how}"
    return d, src


def mixture(rng, seeds, work: Path, i: int):
    pool = ["kineto", "kineto_gz", "nsys_sqlite", "ncu_csv", "ncu_raw", "rocpd", "rocprof_v1", "rocprofv3_csv",
            "rocprofv3_json", "rocprof_v1_json", "nsys_stats", "ncu_text", "rocprof_results_txt", "omniperf_dir",
            "ncu_rep"]
    d = work / f"in{i}_mix"
    d.mkdir()
    chosen = rng.sample(pool, rng.randint(2, 4))
    for k in chosen:
        s = seeds[k]
        (shutil.copytree if s.is_dir() else shutil.copyfile)(s, d / s.name)
    EXPECT["op"] = "mixture " + "+".join(chosen)
    if rng.random() < 0.5:
        EXPECT["args"] = ["--join"]
    return d, seeds[chosen[0]]


def ranks_mismatch(rng, seeds, work: Path, i: int):
    src = seeds["rank_dir"]
    d = work / f"in{i}_ranks"
    d.mkdir()
    rank_files = sorted(src.iterdir())
    docs = [f1._load(f)[0] for f in rank_files]
    n = rng.choice([2, 3, 4])
    how = rng.choice(["same", "over", "neg", "text", "ws", "noinfo", "other", "float", "bool"])
    for r in range(n):
        doc = json.loads(json.dumps(docs[r % len(docs)]))
        info = doc.setdefault("distributedInfo", {})
        info.update(rank=r, world_size=n)
        if r == n - 1:
            if how == "same":
                info["rank"] = 0
            elif how == "over":
                info["rank"] = n + 5
            elif how == "neg":
                info["rank"] = -1
            elif how == "text":
                info["rank"] = rng.choice(["1", "one", ""])
            elif how == "ws":
                info["world_size"] = rng.choice([1, n + 3, 0, -2, "8"])
            elif how == "noinfo":
                doc.pop("distributedInfo")
            elif how == "float":
                info["rank"] = r + 0.5
            elif how == "bool":
                info["rank"] = True
        name = f"rank-{r}.json" if how != "same" else f"rank-{r}x.json"
        if how == "other" and r == n - 1:
            shutil.copyfile(seeds[rng.choice(["rocpd", "nsys_sqlite", "rocprofv3_csv"])], d / f"rank-{r}.db")
            continue
        (d / name).write_text(json.dumps(doc))
    EXPECT["op"] = f"{n} ranks, {how}"
    opt = rng.choice(RANK_OPTS)
    if opt is not None:
        EXPECT["args"] = ["--ranks", opt]
    return d, src


def report_json(rng, seeds, work: Path, i: int):
    """A ``gpulens analyze --json`` report (of a Kineto seed) with one field type-confused, for diff and the gate."""
    src = rng.choice(f1._kineto_files(seeds))
    rep = seed_report(src, work.parent, 120.0, _REPORTS)
    if rep is None:
        return None
    doc = json.loads(rep.read_text())
    paths: list = []

    def walk(o, at):
        if isinstance(o, dict):
            for k, v in o.items():
                walk(v, at + [k])
        elif isinstance(o, list):
            for n, v in enumerate(o[:3]):
                walk(v, at + [n])
        if at:
            paths.append(at)

    walk(doc, [])
    at = rng.choice(paths)
    holder = doc
    for k in at[:-1]:
        holder = holder[k]
    val = rng.choice(ODD_VALUES + [None, [], {}])
    holder[at[-1]] = val
    p = work / f"in{i}_report.json"
    p.write_text(json.dumps(doc, allow_nan=True))
    EXPECT.update(op=f"report {'.'.join(map(str, at))} = {val!r}", report=rep)
    return p, rep


_REPORTS: dict = {}
MAKERS = {"report_json": report_json, "kineto_typed": kineto_typed, "one_kind": one_kind, "ncu_units": ncu_units, "v3_cols": v3_cols,
          "sqlite_schema": sqlite_schema, "compute_partial": compute_partial, "mixture": mixture,
          "ranks_mismatch": ranks_mismatch}


# ---------------------------------------------------------------------------------------------------- running
def _env(out: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPULENS_")}
    env["PYTHONPATH"] = os.pathsep.join([str(HERE.parent / "src"), str(HERE.parent)])
    env["GPULENS_CACHE_DIR"] = str(out / "cache")
    env["COLUMNS"] = "120"
    return env


INPROC: list = []


def _alarm(signum, frame):
    raise TimeoutError("fuzz limit")


def run_inproc(argv: list[str], out: Path, timeout: float) -> dict:
    """``gpulens.cli.main(ARGV)`` in this process (no interpreter start, imports kept: ~5x more inputs a minute;
    confirm a finding with the child-process mode), its streams captured, in ``out``: {code, text, wall}."""
    import contextlib
    import signal

    from gpulens.cli import main as cli_main

    out.mkdir(parents=True, exist_ok=True)
    os.environ["GPULENS_CACHE_DIR"] = str(out / "cache")
    os.environ["COLUMNS"] = "120"
    buf = io.StringIO()
    here = os.getcwd()
    t0 = time.monotonic()
    # a hang is CPU time past the limit (SIGPROF: the process's own CPU time, not a loaded machine's wall time),
    # or five times the limit of wall time (a wait that never ends)
    signal.signal(signal.SIGALRM, _alarm)
    signal.signal(signal.SIGPROF, _alarm)
    signal.alarm(int(timeout * 5))
    signal.setitimer(signal.ITIMER_PROF, timeout)
    try:
        os.chdir(out)
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            code = cli_main(argv)
    except TimeoutError:
        return {"code": None, "text": buf.getvalue(), "wall": time.monotonic() - t0}
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    except BaseException as exc:  # noqa: BLE001 - a fault of gpulens: reported as a traceback
        import traceback

        code = 70
        buf.write("Traceback (in-process)\n" + "".join(traceback.format_exception(exc))[-1500:])
    finally:
        signal.alarm(0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        os.chdir(here)
    return {"code": code, "text": buf.getvalue(), "wall": time.monotonic() - t0}


def run(argv: list[str], out: Path, timeout: float) -> dict:
    """``python -m gpulens ARGV`` in a child process in ``out``: {code, text, wall}."""
    if INPROC:
        return run_inproc(argv, out, timeout)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    try:
        import resource

        cpu = int(timeout)  # the hang limit is CPU time (a loaded machine stretches wall time): SIGXCPU past it
        r = subprocess.run([sys.executable, "-m", "gpulens", *argv], capture_output=True, env=_env(out),
                           cwd=str(out), timeout=timeout * 5,
                           preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5)))
    except subprocess.TimeoutExpired:
        return {"code": None, "text": "", "wall": timeout}
    return {"code": r.returncode, "text": (r.stderr + r.stdout).decode("utf-8", "replace"),
            "wall": time.monotonic() - t0}


def bad_exit(res: dict, allowed: set) -> str | None:
    """Class-1/2 text of a run, or None."""
    code, text = res["code"], res["text"]
    if code is None or code == -24 or "TimeoutError: fuzz limit" in text:  # -24: SIGXCPU, past the CPU limit;
        # the in-process limit raised inside the analysis, which the CLI reports as its own internal error
        return "hang: no exit within the limit"
    if code not in allowed or "Traceback" in text or "internal error" in text:
        return f"exit {code}: {text.strip()[-400:]!r}"
    errs = [ln for ln in text.splitlines() if ln.startswith("gpulens: error")]
    lines = [ln for ln in text.splitlines() if ln.strip()]
    # a truncated input whose readable part holds no GPU event: the reports asked for — the console summary
    # among them — are still written, then the one error line (README "Exit codes")
    summary = "PARTIAL RESULT: input truncated" in text and lines and lines[-1].startswith("gpulens: error")
    if code == 2 and (len(errs) != 1 or (len(lines) != 1 and not summary)):
        return f"exit 2 without exactly one line: {text.strip()[:400]!r}"
    return None


SHARE = re.compile(r"(?<![+\u2212\-\d.,×x])(\d[\d,]*(?:\.\d+)?) ?% (?:of|busy|idle)\b")
NEG = re.compile(r"(?<![\w.])[\-\u2212]\d[\d,.]* ?(?:ns|µs|us|ms|s|%)(?:\s|$)(?! *(?:faster|slower))")


def impossible_shares(text: str) -> str | None:
    """A share of a whole above 100 % (``143.2 % of its span``) or a negative time or share in a report's text
    (``-3.00 µs``; a signed change of a diff excepted), else None."""
    for m in SHARE.finditer(text):
        if float(m.group(1).replace(",", "")) > 100.05:
            return text[max(0, m.start() - 80):m.end() + 40].replace("\n", " ")
    m = NEG.search(text)
    if m:
        return text[max(0, m.start() - 80):m.end() + 40].replace("\n", " ")
    return None


def seed_report(src: Path, workdir: Path, timeout: float, cache: dict) -> Path | None:
    """The seed's JSON report (for the gate's baseline), written once."""
    key = str(src)
    if key not in cache:
        out = workdir / "seedrep" / str(len(cache))
        shutil.rmtree(out, ignore_errors=True)
        res = run(["analyze", str(src), "--json", str(out / "s.json"), "--quiet", "--no-cache"], out, timeout)
        cache[key] = str(out / "s.json") if res["code"] == 0 and (out / "s.json").exists() else None
    return Path(cache[key]) if cache[key] else None


def check(path: Path, src: Path, work: Path, rng, timeout: float, workdir: Path, cache: dict) -> list[tuple]:
    """Every finding of one mutant: [(surface, class, text)]."""
    found = []
    out = work / "out"
    extra = list(EXPECT.get("args") or [])
    if EXPECT.get("report"):  # a mutated report: the gate both ways and diff
        for name, argv, ok in (
                ("gate", ["gate", str(path), "--baseline", str(src), "--json", str(out / "g.json"), "--markdown",
                          str(out / "g.md"), "--html", str(out / "g.html"), "--junit", str(out / "g.xml")],
                 {0, 1, 2, 3, 4}),
                ("gate", ["gate", str(src), "--baseline", str(path), "--json", str(out / "g2.json")], {0, 1, 2, 3, 4}),
                ("diff", ["diff", str(src), str(path), "--json", str(out / "d.json"), "--markdown", str(out / "d.md"),
                          "--html", str(out / "d.html")], {0, 2, 5})):
            shutil.rmtree(out, ignore_errors=True)
            bad = bad_exit(run(argv, out, timeout), ok)
            if bad:
                found.append((name, 2 if bad.startswith("hang") else 1, bad))
        return found
    res = run(["analyze", str(path), "--json", str(out / "r.json"), "--markdown", str(out / "r.md"), "--html",
               str(out / "r.html"), "--csv", str(out / "csv"), "--no-cache", *extra], out, timeout)
    bad = bad_exit(res, {0, 2, 5})
    if bad:
        found.append(("analyze", 2 if bad.startswith("hang") else 1, bad))
    elif res["code"] == 0:
        got = f1.classify(dict(res, cpu=0.0), out, None)
        if got:
            found.append(("analyze", got[0], got[1]))
        md = (out / "r.md").read_text(errors="replace") if (out / "r.md").exists() else ""
        for where, text in (("console", res["text"]), ("markdown", md)):
            odd = impossible_shares(text)
            if odd:
                found.append(("analyze", 3, f"{where}: {odd}"))
    if rng.random() < 0.5:
        d = work / "diff"
        r = run(["diff", str(src), str(path), "--json", str(d / "d.json"), "--markdown", str(d / "d.md"), "--html",
                 str(d / "d.html")], d, timeout)
        bad = bad_exit(r, {0, 2, 5})
        if bad:
            found.append(("diff", 2 if bad.startswith("hang") else 1, bad))
    if rng.random() < 0.5:
        base = seed_report(src, workdir, timeout, cache)
        if base is not None:
            g = work / "gate"
            cand = out / "r.json" if res["code"] == 0 and rng.random() < 0.5 else path
            r = run(["gate", str(cand), "--baseline", str(base), "--json", str(g / "g.json"), "--markdown",
                     str(g / "g.md"), "--html", str(g / "g.html"), "--junit", str(g / "g.xml")], g, timeout)
            bad = bad_exit(r, {0, 1, 2, 3, 4})
            if bad:
                found.append(("gate", 2 if bad.startswith("hang") else 1, bad))
    return found


def main(argv: list[str] | None = None, makers: dict | None = None, kinds: list[str] | None = None,
         seed: int = 48048, run_one=None, seeds_of=None, expect: dict | None = None) -> int:
    """The campaign: ``makers`` (kind → maker ``(rng, seeds, work, i) → (path, src) | None``; :data:`MAKERS`) drawn
    by ``kinds`` (:data:`KINDS`), each mutant run by ``run_one(path, src, work, rng, timeout, workdir, cache, inproc)
    → findings`` (:func:`check`; tests/fuzz_s49.py passes its own). ``seeds_of(workdir, timeout) → seeds`` makes the
    seeds (default :func:`tests.fuzzing.write_seeds`); ``expect`` is the makers' record of the mutation (default
    :data:`EXPECT`), cleared before each input, whose ``op`` each finding names (tests/fuzz_s49_reports.py)."""
    makers, kinds = makers or MAKERS, kinds or KINDS
    expect = EXPECT if expect is None else expect
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=seed)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--workdir", type=Path, required=True)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--only", type=int, default=None)
    ap.add_argument("--minutes", type=float, default=None, help="stop starting inputs after this many minutes")
    ap.add_argument("--kinds", default=",".join(sorted(set(kinds))))
    ap.add_argument("--inproc", action="store_true", help="run gpulens in this process (faster; confirm findings "
                    "without it)")
    a = ap.parse_args(argv)
    if a.inproc:
        INPROC.append(True)
        for k in [k for k in os.environ if k.startswith("GPULENS_")]:
            os.environ.pop(k)
    seeds = seeds_of(a.workdir, a.timeout) if seeds_of else fuzzing.write_seeds(a.workdir / "seeds")
    chosen = [k for k in kinds if k in a.kinds.split(",")]
    fdir = a.workdir / "findings"
    fdir.mkdir(parents=True, exist_ok=True)
    cache_file = a.workdir / "seedreps.json"
    cache = json.loads(cache_file.read_text()) if cache_file.exists() else {}
    tot: dict = {"inputs": 0, "runs": 0, "by_kind": {}, "classes": {"1": 0, "2": 0, "3": 0}, "findings": []}
    t0 = time.monotonic()
    ids = [a.only] if a.only is not None else range(a.start, a.start + a.count)
    for i in ids:
        if a.minutes and time.monotonic() - t0 > a.minutes * 60:
            break
        rng = random.Random(a.seed * 7919 + i)
        kind = rng.choice(chosen)
        work = a.workdir / "work"
        if work.exists():  # a mutant folder may hold files made unreadable (chmod 000): rmtree needs them back
            subprocess.run(["chmod", "-R", "u+rwx", str(work)], stderr=subprocess.DEVNULL, check=False)
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        expect.clear()
        EXPECT.clear()
        f1.EXPECT.clear()
        try:
            made = makers[kind](rng, seeds, work, i)
        except (OSError, ValueError, sqlite3.Error, StopIteration, IndexError, KeyError, RecursionError) as exc:
            print(f"{i} {kind}: not made ({exc!r})", file=sys.stderr)
            continue
        if made is None:
            continue
        path, src = made
        found = (run_one(path, src, work, rng, a.timeout, a.workdir, cache, a.inproc) if run_one else
                 check(path, src, work, rng, a.timeout, a.workdir, cache))
        tot["inputs"] += 1
        tot["by_kind"][kind] = tot["by_kind"].get(kind, 0) + 1
        for surface, cls, what in found:
            tot["classes"][str(cls)] = tot["classes"].get(str(cls), 0) + 1
            rec = {"i": i, "kind": kind, "surface": surface, "class": cls, "seed": src.name, "op": expect.get("op"),
                   "args": expect.get("args"), "enc": expect.get("enc"), "what": what[:500]}
            tot["findings"].append(rec)
            try:  # the mutant, once (a folder as a folder)
                fuzzing._keep(path, fdir / (f"{i}_{kind}" + ("" if path.is_dir() else "_" + path.name)))
            except OSError:
                pass
            print(json.dumps(rec, default=str), file=sys.stderr, flush=True)
        cache_file.write_text(json.dumps(cache))
    tot["seconds"] = round(time.monotonic() - t0, 1)
    print(json.dumps(tot, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
