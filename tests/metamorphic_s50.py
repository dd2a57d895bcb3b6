"""Session-50 metamorphic testing: transformations of a real input whose effect on gpulens's answer is known
without running gpulens, each checked on the ``gpulens analyze --json`` report.

``python tests/metamorphic_s50.py --workdir DIR [--inputs P,...] [--transforms t1,t2] [--timeout 120]`` (DIR under
/tmp; not part of the timed suite). Each input is analysed as is and after each transform (:data:`TRANSFORMS`); the
two reports are flattened to ``path → value`` and compared under the transform's expectation:

* ``shift_zero`` / ``shift_far`` — every timestamp moved by one constant (the first event to 0 µs; the trace to
  ~1e18 ns): every duration, share, count and verdict identical (absolute start times excepted);
* ``shuffle`` — the event order of the file permuted (a database: every table without an integer primary key
  written in reverse row order): identical;
* ``scale2`` — every duration and every gap ×2 about the first event: times ×2, shares, counts and verdicts
  identical (rates — GB/s, FLOP/s — halve; ``per_s`` keys are left out of the check);
* ``rename`` — every GPU kernel renamed by a bijection: identical with the names mapped;
* ``no_host`` — every host event removed: the GPU figures (kernel times, busy time, GPU span) identical, launch
  latency unknown (:func:`check_no_host`);
* ``dup_rank`` — the run written twice as ranks 0 and 1 of one folder: sums over GPUs ×2, wall span and shares
  unchanged, each rank's kernel time the run's (:func:`check_dup`);
* ``zero_kernel`` / ``far_kernel`` — one kernel added, of zero length inside the window (times, span unchanged, one
  call more) or an hour after the last event (a warning must say the span was stretched) (:func:`check_added`).

A SQLite input (Nsight Systems export, rocpd, rocprof v1 ``results.db``), a rocprof CSV or a folder of them gets
the shifts (every time column, the
earliest start to 1 µs or to 1e18 ns) and the reversed row order (:data:`SQL_TRANSFORMS`, :func:`csv_transform`).

Outcome per (input, transform): ``ok``, or the differing paths (first few). Totals as one JSON line at the end.
Confirm a finding with a child-process ``gpulens analyze`` before fixing; regressions in
tests/test_trust_s50_metamorphic*.py.
"""

from __future__ import annotations

import argparse
import copy
from decimal import Decimal
import gzip
import hashlib
import json
import math
import random
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzz_s48 as f48  # noqa: E402

SMALL_KINETO = ["hta_a100_simple_add_two_streams.json.gz", "hta_alexnet_a100.json.gz",
                "hta_mi250_minitoy_rocm6.2.json.gz", "hta_a100_event_sync_multi_stream.json.gz",
                "tracelens_h100_bert-small.json.gz", "hta_a100_triton_example.json.gz",
                "aorta_mi350x_train_step.pt.trace.json", "tracelens_mi300x_vllm_decode_graph_exec.json.gz"]
# report keys whose value names the run, its files or the clock it was read on, not a figure
IGNORE = re.compile(r"(^created$|^sources\.[0-9]+\.(label|inputs|collectors|rank_files|environment_notes)\b"
                    r"|\.path$|\.file$|source_file|\.inputs\.)")
GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "Kernel", "Memcpy", "Memset"}


def load(p: Path) -> dict:
    """The trace with every non-integer number a :class:`~decimal.Decimal` (the text's digits kept: gpulens reads
    ``ts`` exactly to the ns, so a transform in binary floats would move events by a rounding of its own)."""
    raw = p.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw, parse_float=Decimal)


_DEC = "\u0001D"


def dumps(doc) -> str:
    """JSON text of a trace read by :func:`load`, its Decimals written with their exact digits."""
    def enc(o):
        if isinstance(o, Decimal):
            return _DEC + format(o.normalize() if o == o.to_integral() else o, "f") + _DEC
        raise TypeError(type(o).__name__)
    return re.sub(r'"\\u0001D(-?[0-9.]+)\\u0001D"', r"\1", json.dumps(doc, default=enc))


def events(doc) -> list:
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def _num(v) -> bool:
    return isinstance(v, (int, Decimal)) and not isinstance(v, bool)


def _timed(e) -> bool:
    return isinstance(e, dict) and _num(e.get("ts"))


def t_first(doc) -> Decimal:
    return min(Decimal(e["ts"]) for e in events(doc) if _timed(e))


def shift(doc, to_us) -> dict:
    """Every ``ts`` moved so that the first event lands at ``to_us`` µs (``baseTimeNanoseconds`` dropped: it moves
    absolute times only)."""
    d = copy.deepcopy(doc)
    delta = Decimal(to_us) - t_first(d)
    for e in events(d):
        if _timed(e):
            e["ts"] = Decimal(e["ts"]) + delta
    if isinstance(d, dict) and "baseTimeNanoseconds" in d:
        d.pop("baseTimeNanoseconds")
    return d


def shuffle(doc, rng: random.Random) -> dict:
    d = copy.deepcopy(doc)
    rng.shuffle(events(d))
    return d


def scale(doc, k: int) -> dict:
    """Every duration and every gap ×k about the first event."""
    d = copy.deepcopy(doc)
    t0 = t_first(d)
    for e in events(d):
        if _timed(e):
            e["ts"] = t0 + (Decimal(e["ts"]) - t0) * k
            if _num(e.get("dur")):
                e["dur"] = e["dur"] * k
    return d


def kernel_names(doc) -> set:
    return {e.get("name") for e in events(doc) if isinstance(e, dict) and e.get("cat") == "kernel"}


# kernels whose NAME is their kind (copies, fills, collectives: gpulens classifies them by name, as the vendors'
# tools do) are left as they are
KIND_BY_NAME = re.compile(r"(?i)memcpy|memset|copy|fill|nccl|rccl|msccl|allreduce|all_reduce|allgather|reduce_?scatter"
                          r"|broadcast|sendrecv|all_to_all|alltoall")


def renaming(doc) -> dict:
    return {n: "k_" + hashlib.sha1(str(n).encode()).hexdigest()[:12] for n in kernel_names(doc)
            if isinstance(n, str) and not KIND_BY_NAME.search(n)}


def rename(doc, mapping: dict) -> dict:
    d = copy.deepcopy(doc)
    for e in events(d):
        if isinstance(e, dict) and e.get("cat") == "kernel" and e.get("name") in mapping:
            e["name"] = mapping[e["name"]]
    return d


def no_host(doc) -> dict:
    """Only GPU events and metadata kept (process/thread names, counters dropped with the host)."""
    d = copy.deepcopy(doc)
    keep = [e for e in events(d) if isinstance(e, dict) and (e.get("cat") in GPU_CATS or e.get("ph") == "M")]
    if isinstance(d, dict):
        d["traceEvents"] = keep
        return d
    return keep


#: time columns [ns] of the SQLite formats (Nsight Systems export, rocpd, rocprof v1 results.db), moved together
SQL_TIME_COLUMNS = {"start", "end", "timestamp", "beginns", "endns", "dispatchns", "completens", "starttime",
                    "stoptime"}
SQLITE_SUFFIXES = (".sqlite", ".rpd", ".db")


def _time_columns(con, table: str) -> list[str]:
    return [r[1] for r in con.execute(f'pragma table_info("{table}")') if r[1].lower() in SQL_TIME_COLUMNS]


def _tables(con) -> list[str]:
    return [r[0] for r in con.execute("select name from sqlite_master where type='table' and name not like 'sqlite_%'")]


def sql_shift(src: Path, dst: Path, to_ns: int | None) -> None:
    """A copy of the database with every time column moved by one constant: the earliest kernel/op start to
    ``to_ns`` (None: by 0 — the copy alone)."""
    import sqlite3

    shutil.copyfile(src, dst)
    con = sqlite3.connect(dst)
    starts = [con.execute(f'select min("{c}") from "{t}" where typeof("{c}") = \'integer\' and "{c}" > 0').fetchone()[0]
              for t in _tables(con) for c in _time_columns(con, t)]
    starts = [x for x in starts if x is not None]
    delta = (to_ns - min(starts)) if (to_ns is not None and starts) else 0
    for t in _tables(con):
        for c in _time_columns(con, t):
            con.execute(f'update "{t}" set "{c}" = "{c}" + ? where typeof("{c}") = \'integer\' and "{c}" > 0', (delta,))
    con.commit()
    con.close()


def sql_reverse(src: Path, dst: Path) -> None:
    """A copy of the database with the rows of every table without an INTEGER PRIMARY KEY (ids other rows refer
    to) inserted in reverse order: a reader that depends on row order (no ORDER BY) sees another order."""
    import sqlite3

    shutil.copyfile(src, dst)
    con = sqlite3.connect(dst)
    for t in _tables(con):
        info = list(con.execute(f'pragma table_info("{t}")'))
        if any(r[5] and r[2].upper() == "INTEGER" for r in info):
            continue
        rows = con.execute(f'select * from "{t}"').fetchall()
        con.execute(f'delete from "{t}"')
        con.executemany(f'insert into "{t}" values ({",".join("?" * len(info))})', rows[::-1])
    con.commit()
    con.close()


CSV_TIME_COLUMNS = {"start_timestamp", "end_timestamp", "beginns", "endns", "dispatchns", "completens"}


def csv_transform(src: Path, dst: Path, to_ns: int | None, reverse: bool) -> Path:
    """A copy of a rocprof CSV (or of a folder of them, every other file copied as is) with every time column moved
    so that the earliest start is ``to_ns``, or its data rows in reverse order. Returns the path to analyse."""
    import csv

    files = [src] if src.is_file() else sorted(f for f in src.iterdir() if f.is_file())
    out = dst / src.name if src.is_file() else dst
    out.parent.mkdir(parents=True, exist_ok=True)
    out_dir = out.parent if src.is_file() else out
    out_dir.mkdir(parents=True, exist_ok=True)
    tables = {}
    for f in files:
        if f.suffix == ".csv":
            with open(f, newline="") as fh:
                rows = list(csv.reader(fh))
            tables[f] = rows
        else:
            shutil.copyfile(f, out_dir / f.name)
    def cols(rows):
        return [i for i, c in enumerate(rows[0]) if c.strip().lower() in CSV_TIME_COLUMNS] if rows else []
    starts = [int(r[i]) for rows in tables.values() for i in cols(rows) for r in rows[1:]
              if i < len(r) and r[i].strip().isdigit() and int(r[i]) > 0]
    delta = (to_ns - min(starts)) if (to_ns is not None and starts) else 0
    if src.is_file():
        _siblings(src, out_dir)
    for f, rows in tables.items():
        ix = cols(rows)
        if not ix:  # not a rocprof table (an nvprof CSV: preamble and units rows): as it is
            shutil.copyfile(f, out_dir / f.name)
            continue
        body = [[str(int(v) + delta) if i in ix and v.strip().isdigit() and int(v) > 0 else v
                 for i, v in enumerate(r)] for r in rows[1:]]
        with open(out_dir / f.name, "w", newline="") as fh:
            csv.writer(fh, quoting=csv.QUOTE_ALL).writerows(rows[:1] + (body[::-1] if reverse else body))
    return out


def _siblings(src: Path, folder: Path, most: int = 50 * 2 ** 20) -> None:
    """The files beside a database copied with it (rocprof v1 names its GPU in ``results.txt`` / the rocminfo dump
    beside ``results.db``): a transform of the database alone would lose them."""
    files = [f for f in src.parent.iterdir() if f.is_file() and f != src]
    if len(files) <= 50 and sum(f.stat().st_size for f in files) <= most:
        for f in files:
            shutil.copyfile(f, folder / f.name)


def flatten(v, pre: str = "", out: dict | None = None) -> dict:
    out = {} if out is None else out
    if isinstance(v, dict):
        for k, x in v.items():
            flatten(x, f"{pre}.{k}" if pre else str(k), out)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            flatten(x, f"{pre}.{i}", out)
    else:
        out[pre] = v
    return out


def _close(a, b, rel: float = 1e-6, absn: float = 2.0) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return a == b
    if math.isnan(a) and math.isnan(b):
        return True
    return abs(a - b) <= max(absn, rel * max(abs(a), abs(b)))


TIME_KEY = re.compile(r"(_ns|_us|_ms|_s)$|^(ts|dur|start|end)$")
ABS_KEY = re.compile(r"(start|end|first|last|begin|_at|t0|ts|origin)[a-z_]*_ns$|^(ts|start|end)_?(ns)?$|\.(x|t)$")
RATE_KEY = re.compile(r"(per_s|_gbs|gb_s|tflops|gflops|bandwidth|/s|peak_pct|roof_pct|bound_pct|achieved)")


CMD = re.compile(r"(gpulens [a-z]+ )(\S+)")
PATH = re.compile(r"/[^\s:\"']+\.(json|gz|sqlite|csv|db|txt|rpd)")
# figures that rest on a fixed time threshold (a launch gap of 20 µs, a short kernel under 10 µs, a one-off gap):
# scaling every time moves events across it, so they are not expected to scale
THRESHOLDED = re.compile(r"analyses\.(bottlenecks|critical_path|critical_path_segments|verdicts|launches|launch_latency"
                         r"|kernel_outliers|queue_length|queue_length_series|stream_timeline)\."
                         r"|^sources\.[0-9]+\.(answer|findings"
                         r"|summary\.(idle|busy_bound|exposed|launch|host|one_off|steady))")
NAME_DERIVED = re.compile(r"analyses\.(kernel_groups|op_categories|gemm_shapes|attention_shapes|collectives)\.")


def _row_key(r) -> tuple:
    """A table row's identity first (its text cells: name, kind, rank…), then the rest: rows match across a transform
    that keeps names but changes times."""
    if not isinstance(r, dict):
        return ("", json.dumps(r, default=str))
    ident = [f"{k}={v}" for k, v in sorted(r.items()) if isinstance(v, str) and k not in ("bound", "verdict", "note")]
    ints = [f"{k}={v}" for k, v in sorted(r.items())
            if k in ("rank", "device", "stream", "calls", "count", "pid", "tid", "step", "gpu", "queue")]
    rest = {k: v for k, v in r.items() if not ABS_KEY.search(k)}
    return ("|".join(ident + ints), json.dumps(rest, sort_keys=True, default=str))


def _normal(rep: dict, mapping: dict | None, order: bool = False) -> dict:
    """The report with the input's path masked in commands shown to the user, renamed kernels mapped back, and
    every table's rows in one canonical order (rows tied on the ranking key may come in file order)."""
    text = PATH.sub("IN", CMD.sub(lambda m: m.group(1) + "IN", json.dumps(rep)))
    for old, new in (mapping or {}).items():
        text = text.replace(json.dumps(new)[1:-1], json.dumps(old)[1:-1])
    doc = json.loads(text)

    def walk(v):
        if isinstance(v, dict):
            for k, x in v.items():
                if order and k == "table" and isinstance(x, list):
                    x.sort(key=_row_key)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    walk(doc)
    return doc


def compare(base: dict, new: dict, transform: str, mapping: dict | None = None, k: float = 1.0) -> list[str]:
    """The paths where ``new`` breaks the transform's expectation, one line each."""
    order = transform in ("rename", "shuffle")  # rows tied on the ranking key may come in name or file order
    fa, fb = flatten(_normal(base, None, order)), flatten(_normal(new, mapping, order))
    bad = []
    for key in sorted(set(fa) | set(fb)):
        if IGNORE.search(key):
            continue
        leaf = key.rsplit(".", 1)[-1]
        if transform == "rename" and (NAME_DERIVED.search(key) or leaf in ("action", "detail", "title", "headline")
                                      or ".next_steps." in key or ".findings." in key or ".verdicts." in key):
            continue  # classed by name (library kernels, categories), or a name cut to fit a title
        if transform == "scale2" and (THRESHOLDED.search(key) or RATE_KEY.search(key.lower())):
            continue
        if key not in fa or key not in fb:
            bad.append(f"{key}: only in {'base' if key in fa else 'new'}")
            continue
        a, b = fa[key], fb[key]
        if transform.startswith("shift") and ABS_KEY.search(leaf):
            continue
        if transform == "scale2":
            if ABS_KEY.search(leaf) or isinstance(a, str):
                continue
            timed = any(TIME_KEY.search(s) for s in key.split(".")[-2:]) and not any(
                x in key for x in ("pct", "share", "ratio"))
            if timed and isinstance(a, (int, float)) and not isinstance(a, bool):
                a = a * k
        if not _close(a, b):
            bad.append(f"{key}: {str(a)[:120]!s} -> {str(b)[:120]!s}")
    return bad


SQL_TRANSFORMS = ["shift_zero", "shift_far", "shuffle"]
TRANSFORMS = ["shift_zero", "shift_far", "shuffle", "scale2", "rename", "no_host", "dup_rank", "zero_kernel",
              "far_kernel"]
#: summary figures summed over GPUs (×2 when the run is copied as a second rank); those in SAME are not
SUMMED = ["kernel_count", "kernel_time_ns", "kernel_effective_ns", "kernel_busy_ns", "gpu_busy_ns", "device_span_ns",
          "computation_ns", "idle_ns", "memcpy_bytes", "memcpy_count", "cpu_op_count", "exposed_memcpy_ns"]
SAME = ["span_ns", "gpu_busy_pct", "gpu_utilization_pct", "unique_kernels", "window_ns"]
GPU_FIGURES = ["kernel_count", "unique_kernels", "kernel_time_ns", "kernel_effective_ns", "kernel_busy_ns",
               "gpu_busy_ns", "span_ns", "device_span_ns", "gpu_busy_pct", "computation_ns", "memcpy_bytes"]


def _figures(rep: dict) -> dict:
    return rep["sources"][0]["summary"]


def _hot(rep: dict) -> dict:
    return {r["name"]: r for r in rep["sources"][0]["analyses"]["hotspots"]["table"]}


def check_dup(base: dict, new: dict) -> list[str]:
    """The run copied as a second rank: sums ×2, wall span and shares unchanged, each rank's figures the run's."""
    a, b = _figures(base), _figures(new)
    bad = [f"summary.{k}: {a.get(k)} ×2 -> {b.get(k)}" for k in SUMMED
           if isinstance(a.get(k), (int, float)) and not _close(2 * a[k], b.get(k))]
    bad += [f"summary.{k}: {a.get(k)} -> {b.get(k)}" for k in SAME if not _close(a.get(k), b.get(k))]
    span = a.get("rank_span_ns") or {}
    bad += [f"rank_span_ns.{r}: {v} -> {b.get('rank_span_ns')}" for v in span.values()
            for r in ("0", "1") if not _close(v, (b.get("rank_span_ns") or {}).get(r))]
    by_rank = new["sources"][0]["analyses"]["rank_kernels"]["summary"].get("kernel_time_ns_by_rank") or {}
    bad += [f"rank_kernels.kernel_time_ns_by_rank.{r}: {a['kernel_effective_ns']} -> {by_rank.get(r)}"
            for r in ("0", "1") if not _close(a.get("kernel_effective_ns"), by_rank.get(r))]
    hb = _hot(new)
    for name, row in _hot(base).items():
        nr = hb.get(name, {})
        bad += [f"hotspots.{name[:40]}.{c}: {row[c]} -> {nr.get(c)}" for c, f in (("calls", 2), ("total_ns", 2),
                ("share", 1), ("mean_ns", 1), ("max_ns", 1)) if c in row and not _close(row[c] * f, nr.get(c))]
    return bad


def check_no_host(base: dict, new: dict) -> list[str]:
    """Host events removed: the GPU figures identical; a figure of the host (launch overhead, CPU op time) is
    unknown — left out or None —, never 0 as if measured."""
    a, b = _figures(base), _figures(new)
    bad = [f"summary.{k}: {a.get(k)} -> {b.get(k)}" for k in GPU_FIGURES if not _close(a.get(k), b.get(k))]
    hb = _hot(new)
    bad += [f"hotspots.{n[:40]}.{c}: {r[c]} -> {hb.get(n, {}).get(c)}" for n, r in _hot(base).items()
            for c in ("calls", "total_ns", "share") if not _close(r[c], hb.get(n, {}).get(c))]
    ll = new["sources"][0]["analyses"]["launch_latency"]
    if not ll["skipped_reason"]:
        bad.append("launch_latency: figures without any launch call")
    return bad


def check_added(base: dict, new: dict, far: bool) -> list[str]:
    """One kernel added: zero-length inside the window — kernel time, busy time and span unchanged, one more call;
    an hour after the last event — the figures may move, but a warning must say so (never a silent stretch)."""
    a, b = _figures(base), _figures(new)
    if far:
        from gpulens.collectors._isolated import FEWEST

        if (a.get("event_count") or 0) < FEWEST:
            return []  # too few events to tell a stray from the run (triton_example: 8): not judged
        nw = len(new["sources"][0]["warnings"]) + len(new["sources"][0].get("reading_notes") or [])
        bw = len(base["sources"][0]["warnings"]) + len(base["sources"][0].get("reading_notes") or [])
        return [] if nw > bw else [f"span {a.get('span_ns')} -> {b.get('span_ns')} with no warning"]
    bad = [f"summary.{k}: {a.get(k)} -> {b.get(k)}" for k in ("kernel_time_ns", "kernel_busy_ns", "gpu_busy_ns",
           "span_ns", "gpu_busy_pct") if not _close(a.get(k), b.get(k))]
    if not _close((a.get("kernel_count") or 0) + 1, b.get("kernel_count")):
        bad.append(f"kernel_count {a.get('kernel_count')} + 1 -> {b.get('kernel_count')}")
    return bad


def dup_rank(doc, folder: Path) -> Path:
    """The run written twice into ``folder``, as rank 0 and rank 1 of a world of 2."""
    folder.mkdir(parents=True, exist_ok=True)
    for r in (0, 1):
        d = copy.deepcopy(doc)
        if isinstance(d, list):
            d = {"traceEvents": d}
        d["distributedInfo"] = dict(d.get("distributedInfo") or {}, rank=r, world_size=2)
        (folder / f"rank{r}.pt.trace.json").write_text(dumps(d))
    return folder


def add_kernel(doc, far: bool) -> dict:
    """A copy of the middle kernel with ``dur 0`` at its start, or one hour after the trace's last event."""
    d = copy.deepcopy(doc)
    ks = [e for e in events(d) if isinstance(e, dict) and e.get("cat") == "kernel" and _timed(e)]
    k = copy.deepcopy(ks[len(ks) // 2])
    args = k.get("args") if isinstance(k.get("args"), dict) else {}
    k["args"] = {**args, "correlation": 987654321, "External id": 987654321}
    if far:
        k["ts"] = max(Decimal(e["ts"]) + Decimal(e.get("dur") or 0) for e in events(d) if _timed(e)) + 3600 * 10 ** 6
        k["name"] = "far_kernel"
    else:
        k["dur"] = 0
        k["name"] = "zero_length_kernel"
    events(d).append(k)
    return d


def analyze(path: Path, out: Path, timeout: float) -> dict | None:
    rep = out / "r.json"
    res = f48.run(["analyze", str(path), "--json", str(rep)], out, timeout)
    if res["code"] not in (0, 1) or not rep.exists():
        print(f"  analyze {path.name}: exit {res['code']}: {res['text'][-400:]}")
        return None
    return json.loads(rep.read_text())


def apply(name: str, doc, rng: random.Random):
    if name == "shift_zero":
        return shift(doc, 0), None, 1.0
    if name == "shift_far":
        return shift(doc, 10 ** 15), None, 1.0  # 1e18 ns
    if name == "shuffle":
        return shuffle(doc, rng), None, 1.0
    if name == "scale2":
        return scale(doc, 2), None, 2.0
    if name == "rename":
        m = renaming(doc)
        return rename(doc, m), m, 1.0
    if name == "no_host":
        return no_host(doc), None, 1.0
    if name in ("zero_kernel", "far_kernel"):
        return add_kernel(doc, name == "far_kernel"), None, 1.0
    raise ValueError(name)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workdir", required=True, type=lambda s: Path(s).resolve())
    ap.add_argument("--inputs", default="")
    ap.add_argument("--transforms", default=",".join(TRANSFORMS))
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--inproc", action="store_true")
    ap.add_argument("--seed", type=int, default=50)
    ap.add_argument("--show", type=int, default=8)
    a = ap.parse_args(argv)
    if a.inproc:
        f48.INPROC.append(True)
    rng = random.Random(a.seed)
    inputs = ([Path(p).resolve() for p in a.inputs.split(",") if p]
              or [HERE / "data" / "kineto" / n for n in SMALL_KINETO])
    tot = {"pairs": 0, "ok": 0, "failed": 0, "failures": []}
    for src in inputs:
        work = a.workdir / src.name.split(".")[0]
        base = analyze(src, work / "base", a.timeout)
        if base is None:
            continue
        sql = src.suffix in SQLITE_SUFFIXES
        table = src.suffix == ".csv" or src.is_dir()
        doc = None if sql or table else load(src)
        for t in a.transforms.split(","):
            mapping, k = None, 1.0
            if (sql or table) and t not in SQL_TRANSFORMS:
                continue
            if table:
                p = csv_transform(src, work / t / "in", None if t == "shuffle" else 1000 if t == "shift_zero"
                                  else 10 ** 18, t == "shuffle")
            elif sql:
                p = work / t / src.name
                p.parent.mkdir(parents=True, exist_ok=True)
                _siblings(src, p.parent)
                if t == "shuffle":
                    sql_reverse(src, p)
                else:
                    sql_shift(src, p, 1000 if t == "shift_zero" else 10 ** 18)
            elif t == "dup_rank":
                p = dup_rank(doc, work / t / "in")
            else:
                new_doc, mapping, k = apply(t, doc, rng)
                p = work / t / "in.json"
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(dumps(new_doc))
            new = analyze(p, work / t, a.timeout)
            tot["pairs"] += 1
            checks = {"dup_rank": check_dup, "no_host": check_no_host,
                      "zero_kernel": lambda x, y: check_added(x, y, False),
                      "far_kernel": lambda x, y: check_added(x, y, True)}
            bad = (["analyze failed"] if new is None else checks[t](base, new) if t in checks
                   else compare(base, new, t, mapping, k))
            if bad:
                tot["failed"] += 1
                tot["failures"].append(f"{src.name} {t}: {len(bad)}")
                print(f"FAIL {src.name} {t}: {len(bad)} differences")
                for line in bad[:a.show]:
                    print("   ", line)
            else:
                tot["ok"] += 1
                print(f"ok   {src.name} {t}")
    print(json.dumps(tot))
    return 0


if __name__ == "__main__":
    sys.exit(main())
