"""Session-49 fuzzing: structure-aware mutation strategies the earlier harnesses (fuzz_s8 … fuzz_s48) lack, each
mutant run through ``gpulens analyze`` with ``--json --markdown --html --csv`` and the console, ``gpulens diff`` and
``gpulens gate`` (the harness, outcome classes and in-process mode of tests/fuzz_s48.py), plus one check none of
them made: the input is left as it was (same bytes, no file created beside it: "never overwrite a user's trace").

``python tests/fuzz_s49.py --seed S --count N --workdir DIR [--timeout 60] [--kinds a,b] [--only I] [--inproc]``
(DIR under /tmp; not part of the timed suite). Kinds (:data:`MAKERS`):

* ``num_spell`` — numbers of any format (CSV cells, Kineto fields, SQLite cells, rocprofv3 JSON) spelled in ways
  Python's ``int``/``float`` accept and other parsers do not, or the reverse: Arabic-Indic / fullwidth / Devanagari
  digits, ``1_000``, ``+5``, ``5.``, ``.5``, ``1E3``, ``0x1F``, a Unicode minus, NBSP padding, ``1,000``;
* ``extreme`` — the time / size / count fields of every format set to ``1e308``, ``-1e308``, ``-0``,
  ``2⁶³−1``, ``2⁶⁴``, ``−2⁶³``, ``5e-324``, ``1e-320``, for one record, half of them, or all;
* ``cut_every`` — a seed cut at a structural boundary drawn uniformly from ALL of its boundaries (``{}[],:"`` and
  line ends), gzip seeds cut at any byte of their compressed stream; SQLite files cut at a page boundary or with
  one page zeroed or overwritten with random bytes, its header's page size or page count changed;
* ``gen_kineto`` — a Kineto trace generated from nothing (1–6 streams on 1–3 devices, launches and kernels paired
  by correlation id, copies, annotations) with semantic faults: a correlation id shared by several kernels, launches
  after their kernels, a clock that goes backwards, ``ts`` of 1e15–1e18 µs, kernels of ``dur`` ≫ the run,
  overlapping kernels on one stream, device ids of 2³¹, a flow pointing to nothing;
* ``names`` — the kernel names of any format made 64 k–1 M characters long and given control characters, RTL
  marks, a BOM, lone surrogates (JSON ``\\ud800``), quotes and separators;
* ``deep_json`` — a JSON seed (Kineto, rocprofv3 JSON, rocprof v1 JSON) with an ``args`` / ``deviceProperties`` /
  ``distributedInfo`` / record value nested 1,000–100,000 levels deep;
* ``dir_disagree`` — a folder whose files disagree: the same trace twice (plain and gzip, or under two names), two
  rank files claiming the same rank of different world sizes, a rocprofv3 CSV beside the JSON of another run, an
  nsys export beside the stats CSV of another run, two rocpd databases of one process id;
* ``ncu_rep`` — the real Nsight Compute report of tests/data (bytes flipped, cut, a length field changed), always
  run in a child process (NVIDIA's reader is native code).

Findings are kept under ``DIR/findings``; totals print as one JSON line (the campaign loop of tests/fuzz_s48.py, class
5: the input changed). Every fault found has its regression in
tests/test_trust_s49_fuzz*.py.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import shutil
import sqlite3
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzz_s47 as f1  # noqa: E402
from tests import fuzz_s48 as f8  # noqa: E402

EXPECT = f8.EXPECT
KINDS = ["num_spell", "num_spell", "extreme", "extreme", "cut_every", "cut_every", "gen_kineto", "gen_kineto",
         "names", "deep_json", "dir_disagree", "ncu_rep"]
SPELL = ["\u0661\u0662\u0663", "\uff11\uff12\uff13", "\u0967\u0968", "1_000", "+5", "5.", ".5", "1E3", "0x1F",
         "\u22125", "\u00a07\u00a0", "1,000", "1e3\u200b", "\u0665.\u0665", "0b101", "1 000", "٫5", "Infinity", "nan",
         "-nan", "1e-400", "00012", "1.0e+02"]
EXTREME = [1e308, -1e308, -0.0, 2 ** 63 - 1, 2 ** 64, -(2 ** 63), 5e-324, 1e-320, 1.7976931348623157e308,
           9007199254740993, -1]
TIME_COL = re.compile(r"(?i)start|end|begin|stop|time|^ts$|dur|ns\b|\(ns\)|instances|count|size|bytes|calls")
ODD_CHARS = ["\u202e", "\u200f", "\ufeff", "\u0000", "\u0007", "\r", "\n", "\t", '"', ",", ";", "\u2028", "\x1b[31m",
             "\u0301", "\U0001f680"]


# ---------------------------------------------------------------------------------------------------- helpers
def _text_seeds(seeds: dict) -> list[Path]:
    return [p for k, p in seeds.items() if p.is_file() and not k.startswith("case_") and
            p.read_bytes()[:15] != b"SQLite format 3" and not p.name.endswith((".gz", ".ncu-rep"))]


def _csv_seeds(seeds: dict) -> list[Path]:
    out = [p for p in _text_seeds(seeds) if p.suffix == ".csv"]
    out += [f for k in ("omniperf_dir", "v3_dir", "v1_dir") if k in seeds for f in sorted(seeds[k].rglob("*.csv"))]
    return out


def _sqlite_seeds(seeds: dict) -> list[Path]:
    return [p for k, p in seeds.items() if p.is_file() and p.read_bytes()[:15] == b"SQLite format 3"]


def _json_seeds(seeds: dict) -> list[Path]:
    return [p for k, p in seeds.items() if p.is_file() and (p.name.endswith(".json") or p.name.endswith(".json.gz"))
            and not k.startswith("case_B0") or k in ("case_B06.json", "case_B11.json")]


def _place(rng, seeds, work: Path, i: int, src: Path) -> tuple[Path, Path, Path]:
    """Copy ``src`` (a file, or the file of a folder seed) to the work dir: (input to analyze, file to mutate, seed)."""
    for k in ("omniperf_dir", "omniperf_300", "v3_dir", "v1_dir", "rank_dir", "rocpd_dir"):
        d = seeds.get(k)
        if d is not None and d in src.parents:
            dst = work / f"in{i}_{d.name}"
            shutil.copytree(d, dst)
            return dst, dst / src.relative_to(d), d
    dst = work / f"in{i}_{src.name}"
    shutil.copyfile(src, dst)
    return dst, dst, src


def _read_doc(p: Path):
    raw = p.read_bytes()
    gz = raw[:2] == b"\x1f\x8b"
    return json.loads(gzip.decompress(raw) if gz else raw), gz


def _write_doc(p: Path, doc, gz: bool) -> None:
    data = json.dumps(doc, allow_nan=True).encode()
    p.write_bytes(gzip.compress(data) if gz else data)


def _walk(o, at, out):
    if isinstance(o, dict):
        for k, v in o.items():
            _walk(v, at + [k], out)
    elif isinstance(o, list):
        for n, v in enumerate(o):
            _walk(v, at + [n], out)
    else:
        out.append((at, o))


def _set_at(doc, at, val):
    h = doc
    for k in at[:-1]:
        h = h[k]
    h[at[-1]] = val


def _pick(rng, items: list) -> list:
    how = rng.choice(["one", "half", "all"])
    if how == "one" or not items:
        return items[:1] if items and rng.random() < 0.5 else [rng.choice(items)] if items else []
    return items[::2] if how == "half" else items


def _mutate_csv_cells(rng, f: Path, values: list, cols=None) -> str:
    rows = f1._rows(f)
    start = next((n for n, r in enumerate(rows) if len(r) >= 3), 0)
    head = rows[start]
    js = [j for j, h in enumerate(head) if (cols is None or cols.search(h))]
    if not js:
        js = list(range(len(head)))
    j = rng.choice(js)
    body = [r for r in rows[start + 1:] if len(r) > j]
    for r in _pick(rng, body):
        v = rng.choice(values)
        r[j] = v if isinstance(v, str) else repr(v) if isinstance(v, float) else str(v)
    f1._write_rows(f, rows)
    return f"{f.name}: column {head[j]!r}"


def _mutate_sqlite_cells(rng, f: Path, values: list, cols=None) -> str:
    con = sqlite3.connect(f)
    try:
        tab = f8.hot_table(con, rng)[1]
        names = [r[1] for r in con.execute(f'PRAGMA table_info("{tab}")')]
        cs = [c for c in names if cols is None or cols.search(c)] or names
        c = rng.choice(cs)
        ids = [r[0] for r in con.execute(f'SELECT rowid FROM "{tab}"')]
        for rid in _pick(rng, ids):
            v = rng.choice(values)
            v = float(v) if isinstance(v, int) and not -(2 ** 63) <= v < 2 ** 63 else v
            con.execute(f'UPDATE "{tab}" SET "{c}" = ? WHERE rowid = ?', (v, rid))
        con.commit()
    finally:
        con.close()
    return f"{f.name}: {tab}.{c}"


def _mutate_json_fields(rng, f: Path, values: list, key=None) -> str:
    doc, gz = _read_doc(f)
    leaves: list = []
    _walk(doc, [], leaves)
    cand = [at for at, v in leaves if isinstance(v, (int, float, str)) and not isinstance(v, bool)
            and (key is None or (at and isinstance(at[-1], str) and key.search(at[-1])))]
    if not cand:
        cand = [at for at, v in leaves if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if not cand:
        return "no field"
    last = rng.choice(cand)[-1]
    same = [at for at in cand if at[-1] == last]
    for at in _pick(rng, same):
        _set_at(doc, at, rng.choice(values))
    _write_doc(f, doc, gz)
    return f"{f.name}: field {last!r} ({len(same)} such)"


# ---------------------------------------------------------------------------------------------------- mutations
def num_spell(rng, seeds, work: Path, i: int):
    """Odd spellings of numbers in one column / field of any format."""
    fam = rng.choice(["csv", "csv", "sqlite", "json"])
    if fam == "csv":
        src = rng.choice(_csv_seeds(seeds))
        inp, f, s = _place(rng, seeds, work, i, src)
        EXPECT["op"] = "spell " + _mutate_csv_cells(rng, f, SPELL, re.compile(r".") if rng.random() < 0.5 else
                                                     TIME_COL)
    elif fam == "sqlite":
        src = rng.choice(_sqlite_seeds(seeds))
        inp, f, s = _place(rng, seeds, work, i, src)
        EXPECT["op"] = "spell " + _mutate_sqlite_cells(rng, f, SPELL)
    else:
        src = rng.choice(_json_seeds(seeds))
        inp, f, s = _place(rng, seeds, work, i, src)
        EXPECT["op"] = "spell " + _mutate_json_fields(rng, f, SPELL)
    return inp, s


def extreme(rng, seeds, work: Path, i: int):
    """Extreme numbers in the time / size / count fields of any format."""
    fam = rng.choice(["csv", "sqlite", "json", "json"])
    if fam == "csv":
        src = rng.choice(_csv_seeds(seeds))
        inp, f, s = _place(rng, seeds, work, i, src)
        EXPECT["op"] = "extreme " + _mutate_csv_cells(rng, f, EXTREME, TIME_COL)
    elif fam == "sqlite":
        src = rng.choice(_sqlite_seeds(seeds))
        inp, f, s = _place(rng, seeds, work, i, src)
        EXPECT["op"] = "extreme " + _mutate_sqlite_cells(rng, f, EXTREME, TIME_COL)
    else:
        src = rng.choice(_json_seeds(seeds))
        inp, f, s = _place(rng, seeds, work, i, src)
        key = re.compile(r"(?i)^(ts|dur|bytes|start|end|begin|stop|.*_ns|.*Ns|timestamp|size|.*time.*|"
                         r"correlation|stream|device|pid|tid|world_size|rank|numSms|totalGlobalMem|.*Clock.*)$")
        EXPECT["op"] = "extreme " + _mutate_json_fields(rng, f, EXTREME, key)
    return inp, s


BOUND = re.compile(rb'[{}\[\],:"\n]')


def cut_every(rng, seeds, work: Path, i: int):
    """A cut at a uniformly drawn structural boundary, or a damaged SQLite page."""
    fam = rng.choice(["text", "text", "gz", "sqlite", "sqlite"])
    if fam == "sqlite":
        src = rng.choice(_sqlite_seeds(seeds))
        inp, f, s = _place(rng, seeds, work, i, src)
        data = bytearray(f.read_bytes())
        page = int.from_bytes(data[16:18], "big") or 65536
        npages = max(1, len(data) // page)
        how = rng.choice(["truncate", "zero", "random", "pagesize", "pagecount", "freelist"])
        k = rng.randrange(1, npages) if npages > 1 else 0
        if how == "truncate":
            data = data[:max(100, k * page)]
        elif how == "zero":
            data[k * page:(k + 1) * page] = bytes(page)
        elif how == "random":
            data[k * page + 8:(k + 1) * page] = bytes(rng.randrange(256) for _ in range(page - 8))
        elif how == "pagesize":
            data[16:18] = rng.choice([512, 1024, 32768, 1, 3]).to_bytes(2, "big")
        elif how == "pagecount":
            data[28:32] = rng.choice([0, 1, 2 ** 31, 2 ** 32 - 1]).to_bytes(4, "big")
        else:
            data[32:40] = (rng.randrange(2 ** 31)).to_bytes(4, "big") + (rng.randrange(2 ** 31)).to_bytes(4, "big")
        f.write_bytes(bytes(data))
        EXPECT["op"] = f"sqlite {how} page {k}/{npages}"
        return inp, s
    if fam == "gz":
        gzs = [p for p in seeds.values() if p.is_file() and p.name.endswith(".gz")]
        src = rng.choice(gzs)
        inp, f, s = _place(rng, seeds, work, i, src)
        data = f.read_bytes()
        at = rng.randrange(1, len(data))
        f.write_bytes(data[:at])
        EXPECT["op"] = f"gz cut at byte {at}/{len(data)}"
        return inp, s
    src = rng.choice(_text_seeds(seeds) + _csv_seeds(seeds))
    inp, f, s = _place(rng, seeds, work, i, src)
    data = f.read_bytes()
    bounds = [m.start() for m in BOUND.finditer(data)]
    if not bounds:
        return None
    at = rng.choice(bounds) + rng.choice([0, 1])
    f.write_bytes(data[:at])
    EXPECT["op"] = f"cut {f.name} at {at}/{len(data)} (after {data[max(0, at - 12):at]!r})"
    return inp, s


def gen_kineto(rng, seeds, work: Path, i: int):
    """A Kineto trace generated from nothing, with semantic faults."""
    faults = rng.sample(["dupcorr", "launch_after", "backwards", "huge_ts", "huge_dur", "overlap", "bigdev",
                         "dangling_flow", "zero_dur", "float_ts", "neg_ts", "same_ts", "nostream", "str_nums", "nccl",
                         "rank_pid", "dup_events", "rank_info"],
                        rng.randint(1, 3))
    EXPECT["op"] = "gen " + "+".join(faults)
    ndev = rng.randint(1, 3)
    streams = [(d, 7 + s) for d in range(ndev) for s in range(rng.randint(1, 2))]
    base = rng.choice([0, 1_000_000, 1.7e12, 1e15 if "huge_ts" in faults else 5e9])
    ev: list = [{"ph": "M", "name": "process_name", "pid": 100, "args": {"name": "python"}}]
    t = base
    n = rng.randint(3, 40)
    for k in range(n):
        d, s = rng.choice(streams)
        corr = (k // 3 if "dupcorr" in faults else k) + 1
        dur = rng.choice([1, 3.5, 10, 250])
        if "huge_dur" in faults and k == n // 2:
            dur = rng.choice([1e12, 1e18, 9.2e15])
        if "zero_dur" in faults and k % 4 == 0:
            dur = 0
        launch_ts = t + (50 if "launch_after" in faults else -5)
        kts = t
        if "backwards" in faults and k % 5 == 3:
            kts = t - rng.choice([10, 1e6])
        if "neg_ts" in faults and k == 1:
            kts = -rng.choice([1, 1e9])
        if "float_ts" in faults:
            kts = kts + 0.123456789
        dev = 2 ** 31 if "bigdev" in faults and k == 0 else d
        pid = dev + (100_000_000 * (k % 2) if "rank_pid" in faults else 0)
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 101,
                   "ts": launch_ts, "dur": 4, "args": {"correlation": corr, "External id": corr}})
        kname = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)" if "nccl" in faults and k % 3 == 0 \
            else f"k{k % 4}<float>"
        kernel = {"ph": "X", "cat": "kernel", "name": kname, "pid": pid, "tid": s, "ts": kts, "dur": dur,
                  "args": {"correlation": corr, "device": dev, "stream": s, "grid": [64, 1, 1], "block": [128, 1, 1],
                           "registers per thread": 32, "shared memory": 0, "est. achieved occupancy %": 50}}
        if "nostream" in faults and k % 2:
            kernel["args"].pop("stream")
        if "str_nums" in faults and k % 3 == 0:
            kernel["ts"], kernel["dur"] = str(kernel["ts"]), str(kernel["dur"])
        ev.append(kernel)
        if "dup_events" in faults and k % 4 == 1:
            ev.append(dict(kernel))
        if rng.random() < 0.2:
            ev.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": pid,
                       "tid": s, "ts": kts + dur + 1, "dur": 3, "args": {"bytes": 4096, "device": dev, "stream": s,
                                                                         "memory bandwidth (GB/s)": 1.3}})
        if "dangling_flow" in faults and k % 3 == 0:
            ev.append({"ph": "s", "id": 10 ** 6 + k, "pid": 100, "tid": 101, "ts": launch_ts, "cat": "ac2g",
                       "name": "ac2g"})
        else:
            ev.append({"ph": "s", "id": corr, "pid": 100, "tid": 101, "ts": launch_ts, "cat": "ac2g", "name": "ac2g"})
            ev.append({"ph": "f", "id": corr, "pid": pid, "tid": s, "ts": kts, "cat": "ac2g", "name": "ac2g",
                       "bp": "e"})
        if "same_ts" not in faults:
            t += dur + rng.choice([0, 2, 40]) if "overlap" not in faults else rng.choice([0.5, 1])
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 100, "tid": 101, "ts": base - 10,
               "dur": (t - base) + 100})
    if rng.random() < 0.5:
        rng.shuffle(ev)
    doc = {"schemaVersion": 1, "deviceProperties": [{"id": d, "name": "NVIDIA H100 80GB HBM3", "numSms": 132,
                                                     "computeMajor": 9, "computeMinor": 0,
                                                     "totalGlobalMem": 85520809984,
                                                     "maxThreadsPerMultiprocessor": 2048, "regsPerMultiprocessor": 65536,
                                                     "sharedMemPerMultiprocessor": 233472}
                                                    for d in range(ndev)],
           "traceEvents": ev, "displayTimeUnit": "ms"}
    if "rank_info" in faults:
        doc["distributedInfo"] = {"rank": rng.choice([0, 3, 7]), "world_size": rng.choice([1, 2, 8]),
                                  "backend": "nccl"}
    p = work / f"in{i}_gen.pt.trace.json"
    if rng.random() < 0.3:
        p = p.with_name(p.name + ".gz")
        _write_doc(p, doc, True)
    else:
        _write_doc(p, doc, False)
    return p, seeds["kineto"]


def names(rng, seeds, work: Path, i: int):
    """Very long kernel names with odd characters, in any format."""
    n = rng.choice([65536, 200_000, 1_000_000])
    odd = "".join(rng.choice(ODD_CHARS) for _ in range(rng.randint(1, 6)))
    name = ("void f<" + "A" * (n // 2) + odd + "B" * (n // 2) + ">(int)")
    fam = rng.choice(["csv", "sqlite", "json"])
    if fam == "csv":
        src = rng.choice(_csv_seeds(seeds))
        inp, f, s = _place(rng, seeds, work, i, src)
        EXPECT["op"] = f"name {n} {odd!r} " + _mutate_csv_cells(rng, f, [name], re.compile(r"(?i)name|kernel"))
    elif fam == "sqlite":
        src = rng.choice(_sqlite_seeds(seeds))
        inp, f, s = _place(rng, seeds, work, i, src)
        EXPECT["op"] = f"name {n} {odd!r} " + _mutate_sqlite_cells(rng, f, [name], re.compile(r"(?i)name|value|text"))
    else:
        src = rng.choice(_json_seeds(seeds))
        inp, f, s = _place(rng, seeds, work, i, src)
        if rng.random() < 0.3:
            name = name.replace("A", "\ud800", 3)  # a lone surrogate (written as \ud800 by json.dumps)
        EXPECT["op"] = f"name {n} {odd!r} " + _mutate_json_fields(rng, f, [name], re.compile(r"(?i)name|kernel"))
    return inp, s


def deep_json(rng, seeds, work: Path, i: int):
    """A value nested 1,000–100,000 levels deep."""
    src = rng.choice(_json_seeds(seeds))
    inp, f, s = _place(rng, seeds, work, i, src)
    doc, gz = _read_doc(f)
    depth = rng.choice([1000, 5000, 30000, 100000])
    opener = rng.choice(["[", '{"a":'])
    closer = "]" if opener == "[" else "}"
    marker = "__gpulens_deep__"
    where = rng.choice(["args", "deviceProperties", "distributedInfo", "record", "top"])
    if isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list) and where != "top":
        evs = [e for e in doc["traceEvents"] if isinstance(e, dict)]
        if where == "args" and evs:
            e = rng.choice([e for e in evs if e.get("ph") == "X"] or evs)
            e.setdefault("args", {})["deep"] = marker
        elif where == "record":
            doc["traceEvents"].insert(rng.randrange(len(doc["traceEvents"]) + 1), marker)
        else:
            doc[where] = marker
    elif isinstance(doc, dict):
        doc["deep"] = marker
    else:
        return None
    text = json.dumps(doc).replace(json.dumps(marker), opener * depth + "1" + closer * depth, 1)
    f.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    EXPECT["op"] = f"deep {where} {opener}x{depth}"
    return inp, s


def dir_disagree(rng, seeds, work: Path, i: int):
    """A folder whose files disagree."""
    d = work / f"in{i}_dis"
    d.mkdir()
    how = rng.choice(["twice_gz", "twice_name", "same_rank", "v3_mix", "nsys_stats", "rocpd_pid", "omni_two"])
    if how == "twice_gz":
        src = seeds[rng.choice(["kineto", "kineto_b12"])]
        shutil.copyfile(src, d / "t.pt.trace.json")
        (d / "t.pt.trace.json.gz").write_bytes(gzip.compress(src.read_bytes()))
    elif how == "twice_name":
        src = seeds[rng.choice(["kineto", "nsys_sqlite", "rocprofv3_csv", "rocpd", "ncu_csv"])]
        shutil.copyfile(src, d / src.name)
        shutil.copyfile(src, d / ("copy_" + src.name))
    elif how == "same_rank":
        files = sorted(seeds["rank_dir"].iterdir())
        for n, f in enumerate(files[:3]):
            doc, _ = f1._load(f)
            doc["distributedInfo"] = {"rank": 0, "world_size": rng.choice([n + 1, 2, 8]), "backend": "nccl"}
            (d / f"rank{n}.json").write_text(json.dumps(doc))
    elif how == "v3_mix":
        shutil.copytree(seeds["v3_dir"], d / "v3")
        shutil.copyfile(seeds["rocprofv3_json"], d / "v3" / seeds["rocprofv3_json"].name)
    elif how == "nsys_stats":
        shutil.copyfile(seeds["nsys_sqlite"], d / "report.sqlite")
        shutil.copyfile(seeds["nsys_stats"], d / "report_cuda_gpu_kern_sum.csv")
    elif how == "rocpd_pid":
        shutil.copyfile(seeds["rocpd"], d / "4242_results.db")
        shutil.copyfile(seeds["rocpd"], d / "4243_results.db")
        shutil.copyfile(seeds["rocpd_b"], d / "4242_results_b.db")
    else:
        shutil.copytree(seeds["omniperf_dir"], d / "a")
        shutil.copytree(seeds["omniperf_300"], d / "a" / "b")
    EXPECT["op"] = f"folder {how}"
    if rng.random() < 0.4:
        EXPECT["args"] = ["--join"]
    return d, seeds["kineto"]


NCU_REP = HERE / "data" / "nvidia" / "h200" / "h200_kernels.ncu-rep"


def ncu_rep(rng, seeds, work: Path, i: int):
    """The real Nsight Compute report with bytes flipped, cut, or a length varint changed."""
    data = bytearray(NCU_REP.read_bytes())
    how = rng.choice(["flip", "cut", "varint", "zero_run", "dup"])
    at = rng.randrange(4, len(data))
    if how == "flip":
        for _ in range(rng.randint(1, 16)):
            k = rng.randrange(4, len(data))
            data[k] ^= 1 << rng.randrange(8)
    elif how == "cut":
        data = data[:at]
    elif how == "varint":
        data[at:at + 5] = bytes([0xff, 0xff, 0xff, 0xff, 0x0f])
    elif how == "zero_run":
        data[at:at + rng.randint(8, 4096)] = bytes(min(len(data) - at, 4096))
    else:
        data = data + data[4:]
    p = work / f"in{i}_r.ncu-rep"
    p.write_bytes(bytes(data))
    EXPECT["op"] = f"ncu-rep {how} at {at}/{len(data)}"
    EXPECT["child"] = True
    return p, NCU_REP


MAKERS = {"num_spell": num_spell, "extreme": extreme, "cut_every": cut_every, "gen_kineto": gen_kineto,
          "names": names, "deep_json": deep_json, "dir_disagree": dir_disagree, "ncu_rep": ncu_rep}


# ---------------------------------------------------------------------------------------------------- running
def fingerprint(path: Path) -> dict:
    """name → sha1 of the input and everything beside it (a folder input: everything under it)."""
    root = path if path.is_dir() else path.parent
    out = {}
    for f in sorted(root.rglob("*")):
        if f.is_file() and "out" not in f.relative_to(root).parts[:1] and f.relative_to(root).parts[0] not in (
                "out", "diff", "gate"):
            out[str(f.relative_to(root))] = hashlib.sha1(f.read_bytes()).hexdigest()
    return out


def run_one(path: Path, src: Path, work: Path, rng, timeout: float, workdir: Path, cache: dict,
            inproc: bool) -> list[tuple]:
    """:func:`tests.fuzz_s48.check` of one mutant (in a child process for ``ncu_rep``), plus class 5: the input or a
    file beside it changed or appeared."""
    f8.INPROC.clear()
    if inproc and not EXPECT.get("child"):
        f8.INPROC.append(True)
    before = fingerprint(path)
    found = f8.check(path, src, work, rng, timeout, workdir, cache)
    after = fingerprint(path)
    if after != before:
        changed = sorted(set(after.items()) ^ set(before.items()))
        found.append(("analyze", 5, f"input or its folder changed: {changed[:4]}"))
    return found


def main(argv: list[str] | None = None) -> int:
    return f8.main(argv, MAKERS, KINDS, 49049, run_one)


if __name__ == "__main__":
    sys.exit(main())
