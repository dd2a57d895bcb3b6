"""Session-46 fuzzing: semantic mutations that keep an input valid but change what it means, checked against what the
input implies (metamorphic: the seed's own report), on Kineto traces, rocprof v1 / v3 CSV and nsys / rocpd SQLite.

``python tests/fuzz_s46.py --seed S --count N --workdir DIR [--timeout 40] [--kinds a,b] [--only I]`` (run it from
a folder outside the repository, DIR under /tmp). Kinds (:data:`KINDS`):

* ``semantic`` — one of :data:`KINETO_OPS` / :data:`CSV_OPS` / :data:`SQL_OPS`: the clock moved by a large offset
  (the figures must not change), time reversed (every event mirrored: counts, summed kernel time and span must not
  change), the clock ×1000 (ns written where µs belong: every duration ×1000, or a clock note), pid/tid/ts as
  strings, devices renumbered into 0..64, one kernel's duration 100× the run, every correlation id the same, the
  trace twice as two ranks with the same correlation ids;
* ``ncu_values`` — every value of 1–3 metrics of an Nsight Compute CSV (details or raw) at or past its limits
  (:data:`ODD_VALUES`: 1e30, −1, nan, inf, 1.8e308 …): no share above 100 % unflagged, no NaN shown;
* ``scale16`` — a 1×, 4×, 16× repetition (:data:`SCALE_N`) of one Kineto launch/kernel pair, 1–3 rows of a
  rocprof v1 / v3 CSV or 2 rows of an nsys / rocpd kernel table (spread in time): the CPU time exponent of the
  copies (log4 of the ratio of their cost above the zero-copy input's, children's CPU included) is printed, and a
  finding above 1.3;
* ``cli_all`` — a semantic mutant through every command: analyze (JSON, HTML, Markdown), ``diff`` against its
  seed both ways, ``baseline save`` + ``gate``.

``analyze`` runs are checked with :func:`tests.fuzz_s38.report_check`; the figures of the mutant's JSON report with
:func:`_compare` against the seed's. Every fault found has its regression in tests/test_trust_s46_fuzz.py.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import resource
import shutil
import sqlite3
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzzing  # noqa: E402
from tests.fuzz_s38 import _EXPECT, report_check  # noqa: E402
from tests.fuzz_s44 import _load, _put, make_with  # noqa: E402

KINDS = ["semantic", "semantic", "semantic", "ncu_values", "scale16", "cli_all"]
KINETO_OPS = ["shift", "shift_neg", "reverse", "ns_as_us", "pid_str", "ts_str", "dev_hi", "dur_long", "corr_same",
              "rank_dup"]
CSV_OPS = ["shift", "reverse", "dev_hi", "ns_as_us", "queue_hi"]
SQL_OPS = ["shift", "reverse", "dev_hi", "stream_hi"]
#: operations whose report must give the seed's figures exactly (counts) or within rounding (times)
SAME = {"shift", "shift_neg", "reverse", "pid_str", "ts_str", "dev_hi", "corr_same", "queue_hi", "stream_hi"}
DATA = HERE / "data"
SHARED = Path("/work/shared/traces")


def _kineto_seeds() -> list[Path]:
    out = []
    for d in (DATA / "kineto", DATA / "nvidia" / "h200", SHARED / "kineto"):
        if d.is_dir():
            out += [p for p in sorted(d.iterdir()) if p.is_file() and p.name.endswith((".json", ".json.gz"))
                    and p.stat().st_size < 2_500_000]
    return out


def _csv_seeds() -> list[tuple[Path, str, str]]:
    out = []
    for d in (DATA / "rocprof", SHARED / "rocprof"):
        for p in sorted(d.rglob("*.csv")) if d.is_dir() else []:
            head = p.open(errors="replace").readline()
            if "BeginNs" in head and "EndNs" in head:
                out.append((p, "BeginNs", "EndNs"))
            elif "Start_Timestamp" in head and "End_Timestamp" in head:
                out.append((p, "Start_Timestamp", "End_Timestamp"))
    return out


def _sql_seeds() -> list[Path]:
    out = []
    for d in (DATA / "nvidia", DATA / "rocprof", SHARED / "nsys"):
        for p in sorted(d.rglob("*")) if d.is_dir() else []:
            if p.suffix in (".sqlite", ".rpd", ".db") and p.stat().st_size < 30_000_000:
                out.append(p)
    return out


# ---------------------------------------------------------------------------------------------------- kineto
def _gpu(e) -> bool:
    return isinstance(e, dict) and e.get("ph") == "X" and str(e.get("cat", "")).lower() in (
        "kernel", "gpu_memcpy", "gpu_memset")


def _kineto(rng, src: Path, work: Path, op: str):
    doc, gz = _load(src)
    if doc is None:
        return None
    ev = doc["traceEvents"] if isinstance(doc, dict) else doc
    xs = [e for e in ev if isinstance(e, dict) and isinstance(e.get("ts"), (int, float))]
    if not any(_gpu(e) for e in xs):
        return None
    lo = min(e["ts"] for e in xs)
    hi = max(e["ts"] + (e.get("dur") if isinstance(e.get("dur"), (int, float)) else 0) for e in xs)
    if op == "shift":
        for e in xs:
            e["ts"] = e["ts"] + 1e9
    elif op == "shift_neg":
        for e in xs:
            e["ts"] = e["ts"] - lo - 5e6
    elif op == "reverse":
        for e in xs:
            d = e.get("dur") if isinstance(e.get("dur"), (int, float)) else 0
            e["ts"] = round(hi - (e["ts"] - lo) - d, 3)
    elif op == "ns_as_us":
        for e in xs:
            e["ts"] = e["ts"] * 1000
            if isinstance(e.get("dur"), (int, float)):
                e["dur"] = e["dur"] * 1000
    elif op == "pid_str":
        for e in ev:
            if isinstance(e, dict):
                for k in ("pid", "tid"):
                    if isinstance(e.get(k), int):
                        e[k] = str(e[k])
    elif op == "ts_str":
        for e in xs:
            e["ts"] = repr(e["ts"])
    elif op == "dev_hi":
        devs: dict = {}
        for e in ev:
            if isinstance(e, dict) and isinstance(e.get("args"), dict) and isinstance(e["args"].get("device"), int):
                d = e["args"]["device"]
                new = devs.setdefault(d, rng.randint(0, 64))
                e["args"]["device"] = new
                if e.get("pid") == d:
                    e["pid"] = new
        if not devs:
            return None
        _EXPECT["devs"] = sorted(set(devs.values()))
    elif op == "dur_long":
        k = rng.choice([e for e in xs if _gpu(e)])
        k["dur"] = (hi - lo) * 100
    elif op == "corr_same":
        for e in ev:
            if isinstance(e, dict) and isinstance(e.get("args"), dict) and "correlation" in e["args"]:
                e["args"]["correlation"] = 7
    elif op == "rank_dup":
        d = work / "ranks"
        d.mkdir()
        for r in (0, 1):
            doc2 = json.loads(json.dumps(doc))
            if isinstance(doc2, dict):
                doc2["distributedInfo"] = {"rank": r, "world_size": 2, "backend": "nccl"}
            _put(d / f"rank{r}.pt.trace.json", doc2, False)
        _EXPECT["ranks"] = 2
        return d
    p = work / src.name
    _put(p, doc, gz)
    return p


# ---------------------------------------------------------------------------------------------------- csv
def _timed_rows(src: Path, b: str, e: str) -> tuple[list[str], int, int, list[list[str]]]:
    """The header, the begin and end columns' positions and the rows of whole width with both times of a CSV."""
    rows = list(csv.reader(io.StringIO(src.read_text(encoding="utf-8-sig", errors="replace"))))
    head = rows[0]
    ib, ie = head.index(b), head.index(e)
    return head, ib, ie, [r for r in rows[1:] if len(r) == len(head) and r[ib].isdigit() and r[ie].isdigit()]


def _csv(rng, src: Path, b: str, e: str, work: Path, op: str):
    head, ib, ie, body = _timed_rows(src, b, e)
    if not body:
        return None
    hi = max(int(r[ie]) for r in body)
    dev = next((head.index(c) for c in ("gpu-id", "Agent_Id") if c in head), None)
    q = next((head.index(c) for c in ("queue-id", "Queue_Id") if c in head), None)
    for r in body:
        s, t = int(r[ib]), int(r[ie])
        if op == "shift":
            r[ib], r[ie] = str(s + 10**15), str(t + 10**15)
        elif op == "reverse":
            r[ib], r[ie] = str(2 * hi - t), str(2 * hi - s)
        elif op == "ns_as_us":
            r[ib], r[ie] = str(s // 1000), str(t // 1000)
        elif op == "dev_hi" and dev is not None:
            r[dev] = "63"
        elif op == "queue_hi" and q is not None:
            r[q] = str(2**40 + int(r[q]) if r[q].isdigit() else 2**40)
    if op == "reverse":
        body.reverse()
    rel = src.relative_to(src.parents[1])
    p = work / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    for sib in src.parent.iterdir():  # the folder's other members travel along (sysinfo, stats)
        if sib != src and sib.is_file():
            shutil.copyfile(sib, p.parent / sib.name)
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([head] + body)
    p.write_text(buf.getvalue())
    return p


# ---------------------------------------------------------------------------------------------------- ncu
ODD_VALUES = ["1e30", "-1", "nan", "inf", "-0", "1,000,000,000,000,000,000", "4294967295", "1.8e308", "0"]


def _ncu_seeds() -> list[Path]:
    out = []
    for d in (DATA / "nvidia", SHARED / "ncu"):
        for p in sorted(d.rglob("*.csv")) if d.is_dir() else []:
            head = p.open(errors="replace").readline()
            if '"Kernel Name"' in head or "Kernel Name" in head and "ID" in head:
                out.append(p)
    return out


def _ncu(rng, src: Path, work: Path):
    """Counter values at or past their limits: every value of 1–3 metrics (details: rows of that Metric Name; raw:
    that column) replaced by one of :data:`ODD_VALUES`."""
    rows = list(csv.reader(io.StringIO(src.read_text(encoding="utf-8-sig", errors="replace"))))
    hi = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
    if hi is None:
        return None
    head, val = rows[hi], rng.choice(ODD_VALUES)
    if "Metric Name" in head and "Metric Value" in head:
        mn, mv = head.index("Metric Name"), head.index("Metric Value")
        names = sorted({r[mn] for r in rows[hi + 1:] if len(r) > mv})
        if not names:
            return None
        pick = set(rng.sample(names, min(len(names), rng.randint(1, 3))))
        for r in rows[hi + 1:]:
            if len(r) > mv and r[mn] in pick:
                r[mv] = val
    else:
        cols = [i for i, c in enumerate(head) if "__" in c]
        if not cols:
            return None
        pick = set(rng.sample(cols, min(len(cols), rng.randint(1, 3))))
        for r in rows[hi + 2:]:
            for i in pick:
                if i < len(r):
                    r[i] = val
    p = work / src.name
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_ALL).writerows(rows)
    p.write_text(buf.getvalue())
    _EXPECT["op"] = f"{src.name}: {sorted(head[i] if isinstance(i, int) else i for i in pick)[:3]} = {val}"
    return p


# ---------------------------------------------------------------------------------------------------- sqlite
_TIME_TABLES = {"CUPTI_ACTIVITY_KIND_KERNEL": ("start", "end", "deviceId", "streamId"),
                "CUPTI_ACTIVITY_KIND_MEMCPY": ("start", "end", "deviceId", "streamId"),
                "CUPTI_ACTIVITY_KIND_MEMSET": ("start", "end", "deviceId", "streamId"),
                "rocpd_op": ("start", "end", "gpuId", "queueId"), "api": ("start", "end", None, None)}


def _sql(rng, src: Path, work: Path, op: str):
    p = work / src.name
    shutil.copyfile(src, p)
    con = sqlite3.connect(p)
    try:
        tabs = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        hit = [t for t in _TIME_TABLES if t in tabs]
        if not hit:
            return None
        hi = max(con.execute(f'SELECT max("end") FROM "{t}"').fetchone()[0] or 0 for t in hit)
        for t in hit:
            s, e, dv, st = _TIME_TABLES[t]
            if op == "shift":
                con.execute(f'UPDATE "{t}" SET "{s}" = "{s}" + 1000000000000, "{e}" = "{e}" + 1000000000000')
            elif op == "reverse":
                con.execute(f'UPDATE "{t}" SET "{s}" = {2 * hi} - "{e}", "{e}" = {2 * hi} - "{s}"')
            elif op == "dev_hi" and dv:
                con.execute(f'UPDATE "{t}" SET "{dv}" = 63')
            elif op == "stream_hi" and st:
                con.execute(f'UPDATE "{t}" SET "{st}" = "{st}" + 4294967296')
        if op == "shift" and "TARGET_INFO_SESSION_START_TIME" in tabs:
            pass
        con.commit()
    except sqlite3.Error:
        return None
    finally:
        con.close()
    return p


def semantic(rng, seeds, names, work: Path, i: int):
    fam = rng.choice(["kineto", "kineto", "kineto", "csv", "sql", "ncu"])
    if fam == "ncu":
        src = rng.choice(_ncu_seeds())
        got = _ncu(rng, src, work)
        return None if got is None else (got, src)
    if fam == "kineto":
        src, op = rng.choice(_kineto_seeds()), rng.choice(KINETO_OPS)
        got = _kineto(rng, src, work, op)
    elif fam == "csv":
        (src, b, e), op = rng.choice(_csv_seeds()), rng.choice(CSV_OPS)
        got = _csv(rng, src, b, e, work, op)
        if got is not None and any(got.parent.iterdir()) and src.parent.name.startswith("v1"):
            src, got = src.parent, got.parent
    else:
        src, op = rng.choice(_sql_seeds()), rng.choice(SQL_OPS)
        got = _sql(rng, src, work, op)
    if got is None:
        return None
    _EXPECT["op"] = f"{src.name}: {op}"
    _EXPECT["sem"] = op
    return got, src


def ncu_values(rng, seeds, names, work: Path, i: int):
    src = rng.choice(_ncu_seeds())
    got = _ncu(rng, src, work)
    return None if got is None else (got, src)


def cli_all(rng, seeds, names, work: Path, i: int):
    got = semantic(rng, seeds, names, work, i)
    if got is not None:
        _EXPECT["chain"] = True
    return got


# ---------------------------------------------------------------------------------------------------- scale16
def _cpu_analyze(path: Path, work: Path) -> tuple[float, int, str]:
    """CPU seconds of ``gpulens analyze PATH`` with the three reports, this process's and its children's (rank and
    file workers), the exit code and the output."""
    from tests.fuzz_s8 import run_cli

    o = work / "t"
    shutil.rmtree(o, ignore_errors=True)
    o.mkdir()
    t = time.process_time() + resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    code, text = run_cli(["analyze", str(path), "--no-cache", "-q", "--lenient", "--json", str(o / "r.json"),
                          "--markdown", str(o / "r.md"), "--html", str(o / "r.html")])
    return time.process_time() + resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - t, code, text


#: copies of the smallest input of ``scale16`` (then 4×, 16×), and of its zero-copy baseline
SCALE_N = (0, 1500, 6000, 24000)


def _scale_kineto_n(rng, src: Path, work: Path) -> list[Path] | None:
    doc, _ = _load(src)
    if doc is None or not isinstance(doc, dict):
        return None
    ev = doc["traceEvents"]
    ks = [e for e in ev if isinstance(e, dict) and e.get("cat") == "kernel" and isinstance(e.get("args"), dict)]
    if not ks:
        return None
    k = rng.choice(ks)
    corr = k["args"].get("correlation")
    pair = [k] + [e for e in ev if isinstance(e, dict) and e is not k and e.get("ph") == "X"
                  and isinstance(e.get("args"), dict) and e["args"].get("correlation") == corr][:1]
    rest = [e for e in ev if isinstance(e, dict) and e.get("ph") != "X"]
    span = max(1.0, float(k.get("dur") or 1)) * 2
    out = []
    for n in SCALE_N:
        copies = []
        for j in range(n):
            for e in pair:
                c = dict(e, ts=e["ts"] + j * span)
                if isinstance(e.get("args"), dict) and corr is not None:
                    c["args"] = dict(e["args"], correlation=corr + j * 1_000_003)
                copies.append(c)
        p = work / f"n{n}.json"
        _put(p, dict(doc, traceEvents=rest + copies), False)
        out.append(p)
    _EXPECT["op"] = f"{src.name}: {str(k.get('name', '?'))[:40]} ×{'/'.join(map(str, SCALE_N[1:]))}"
    return out


def _scale_csv_n(rng, src: Path, b: str, e: str, work: Path) -> list[Path] | None:
    head, ib, ie, body = _timed_rows(src, b, e)
    if not body:
        return None
    pick = rng.sample(body, min(len(body), rng.randint(1, 3)))
    lo, hi = min(int(r[ib]) for r in pick), max(int(r[ie]) for r in pick)
    step = max(hi - lo, 1000) * 2
    out = []
    for n in SCALE_N:
        d = work / f"n{n}"
        d.mkdir()
        rs = [head]
        for j in range(max(n, 1) if n else 0):
            for r in pick:
                c = list(r)
                c[ib], c[ie] = str(int(r[ib]) + j * step), str(int(r[ie]) + j * step)
                rs.append(c)
        if n == 0:
            rs.append(pick[0])
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(rs)
        (d / src.name).write_text(buf.getvalue())
        out.append(d / src.name)
    _EXPECT["op"] = f"{src.name}: {len(pick)} rows ×{'/'.join(map(str, SCALE_N[1:]))}"
    return out


def _scale_sql_n(rng, src: Path, work: Path) -> list[Path] | None:
    out = []
    for n in SCALE_N:
        d = work / f"n{n}"
        d.mkdir()
        p = d / src.name
        shutil.copyfile(src, p)
        con = sqlite3.connect(p)
        try:
            tabs = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            t = next((x for x in ("CUPTI_ACTIVITY_KIND_KERNEL", "rocpd_op", "rocpd_kernel_dispatch") if x in tabs),
                     None)
            if t is None:
                return None
            cols = [r[1] for r in con.execute(f'PRAGMA table_info("{t}")')]
            base = con.execute(f'SELECT * FROM "{t}" LIMIT 2').fetchall()
            if not base:
                return None
            rows = []
            for j in range(n):
                for b_ in base:
                    r = list(b_)
                    for c in ("start", "end"):
                        if c in cols and isinstance(r[cols.index(c)], int):
                            r[cols.index(c)] += j * 100_000
                    if "id" in cols:
                        r[cols.index("id")] = None
                    rows.append(r)
            con.executemany(f'INSERT INTO "{t}" VALUES ({",".join("?" * len(cols))})', rows)
            con.commit()
        except sqlite3.Error:
            return None
        finally:
            con.close()
        out.append(p)
    _EXPECT["op"] = f"{src.name}: 2 rows of {t} ×{'/'.join(map(str, SCALE_N[1:]))}"
    return out


def scale16(rng, seeds, names, work: Path, i: int):
    fam = rng.choice(["kineto", "csv", "sql"])
    if fam == "kineto":
        src = rng.choice(_kineto_seeds())
        got = _scale_kineto_n(rng, src, work)
    elif fam == "csv":
        src, b, e = rng.choice(_csv_seeds())
        got = _scale_csv_n(rng, src, b, e, work)
    else:
        src = rng.choice(_sql_seeds())
        got = _scale_sql_n(rng, src, work)
    if not got:
        return None
    _EXPECT["sizes"] = got
    return got[-1], src


# ---------------------------------------------------------------------------------------------------- checks
_SEED_REPORTS: dict = {}


def _summary(path: Path, work: Path, lenient: bool) -> tuple[int, dict | None, str]:
    from tests.fuzz_s8 import run_cli

    r = work / f"sum{len(_SEED_REPORTS)}.json"
    code, text = run_cli(["analyze", str(path), "--no-cache", "-q", "--json", str(r)] + (["--lenient"] if lenient
                                                                                        else []))
    if code != 0 or not r.exists():
        return code, None, text
    return code, json.loads(r.read_text()), text


def _figs(doc: dict) -> dict:
    out: dict = {"kernel_count": 0, "kernel_time_ns": 0, "span": [], "sources": len(doc.get("sources", []))}
    for s in doc.get("sources", []):
        sm = s.get("summary") or {}
        out["kernel_count"] += sm.get("kernel_count") or 0
        out["kernel_time_ns"] += sm.get("kernel_time_ns") or 0
        out["span"].append(sm.get("device_span_ns"))
        out.setdefault("warn", []).extend(s.get("warnings") or [])
        out.setdefault("devices", []).append(s.get("devices"))
    return out


def _close(a, b, rel=1e-6, abs_=2000) -> bool:
    if a is None or b is None:
        return a is b
    return abs(a - b) <= max(abs_, rel * max(abs(a), abs(b)))


def _compare(path: Path, work: Path, strict: bool) -> str | None:
    op, seed = _EXPECT.get("sem"), _EXPECT["seed"]
    if seed not in _SEED_REPORTS:
        _SEED_REPORTS[seed] = _summary(seed, work, True)[1]
    base = _SEED_REPORTS[seed]
    code, got, text = _summary(path, work, not strict)
    if base is None or got is None:
        return None
    a, b = _figs(base), _figs(got)
    if os.environ.get("FUZZ_S46_SHOW"):
        print(f"compare {op}: {a['kernel_count']} {a['kernel_time_ns']} {a['span']} -> {b['kernel_count']} "
              f"{b['kernel_time_ns']} {b['span']}", file=sys.stderr, flush=True)
    if op in SAME:
        if a["kernel_count"] != b["kernel_count"]:
            return f"kernel count {a['kernel_count']} -> {b['kernel_count']} (warnings {b.get('warn', [])[:2]})"
        # times: the mutant's µs floats may round once more (ts_str, shift): 1 ns per kernel allowed
        if not _close(a["kernel_time_ns"], b["kernel_time_ns"], abs_=max(2000, a["kernel_count"] * 2)):
            return f"summed kernel time {a['kernel_time_ns']} -> {b['kernel_time_ns']} ns"
        if op not in ("dev_hi",) and len(a["span"]) == len(b["span"]) and not all(
                _close(x, y, abs_=2000) for x, y in zip(a["span"], b["span"])):
            return f"device span {a['span']} -> {b['span']}"
    elif op == "ns_as_us":
        if a["kernel_count"] != b["kernel_count"] and not b.get("warn"):
            return f"kernel count {a['kernel_count']} -> {b['kernel_count']} without a warning"
        if (a["kernel_count"] == b["kernel_count"] and b["kernel_time_ns"]
                and not _close(b["kernel_time_ns"], a["kernel_time_ns"] * 1000, rel=2e-3, abs_=10**6)
                and not _close(b["kernel_time_ns"], a["kernel_time_ns"] / 1000, rel=2e-2, abs_=10**4)
                and not b.get("warn")):
            return f"clock ×1000: summed kernel time {a['kernel_time_ns']} -> {b['kernel_time_ns']} ns"
    elif op == "rank_dup":
        if b["kernel_count"] not in (a["kernel_count"] * 2,) and not b.get("warn"):
            return f"two ranks of {a['kernel_count']} kernels read as {b['kernel_count']}"
        if b["kernel_count"] == 2 * a["kernel_count"] and not _close(b["kernel_time_ns"], 2 * a["kernel_time_ns"],
                                                                    abs_=4000):
            return f"two ranks: kernel time {a['kernel_time_ns']} -> {b['kernel_time_ns']} (x2 expected)"
    return None


def make(rng, seeds, names, work, i, kind):
    return make_with(globals()[kind], rng, seeds, names, work, i)


def _one(kind: str, rng, path: Path, work: Path, strict: bool, cli: bool) -> str | None:
    o = _EXPECT.get("op", "?")
    if kind == "scale16":
        ts = [_cpu_analyze(p, work) for p in _EXPECT["sizes"]]
        c = [max(t - ts[0][0], 0.05) for t, _, _ in ts[1:]]
        e1, e2 = math.log(c[1] / c[0], 4), math.log(c[2] / c[1], 4)
        print(f"scale16 zero copies {ts[0][0]:.2f} s, copies {c[0]:.2f} {c[1]:.2f} {c[2]:.2f} s: exponents "
              f"{e1:.2f} {e2:.2f} exits {[x[1] for x in ts]} {o}", file=sys.stderr, flush=True)
        if c[2] > 1.5 and e2 > 1.3:
            return f"{o}: CPU {c} s for 1x/4x/16x: exponent {e2:.2f}"
        if ts[1][1] == 0 and ts[3][1] != 0:
            return f"{o}: 1x reads, 16x exits {ts[3][1]}: {ts[3][2].strip()[-200:]!r}"
        what = report_check(path, work, ["--lenient"])  # the 16x input's reports (no CLI chain: the time limit)
        return f"{o}: {what}" if what else None
    what = report_check(path, work, [] if strict else ["--lenient"])
    if what:
        return f"{o}: {what}"
    if _EXPECT.get("sem"):
        what = _compare(path, work, strict)
        if what:
            return f"{o}: {what}"
    if kind == "cli_all" or cli:
        from tests.fuzz_s45 import _chain

        return _chain(path, work, o)
    return None


def main(argv: list[str] | None = None) -> int:
    return fuzzing.kind_campaign(argv, KINDS, make, _one, seed=46046, timeout=60.0, cli_every=5)


if __name__ == "__main__":
    sys.exit(main())
