"""Ninth-session fuzzing: the mutation kinds below, over every seed of :func:`tests.fuzzing.write_seeds` (every
format, the folders, every case), checked by :func:`tests.fuzz_fresh.check` (no exception but a one-line
GpulensError naming the file, no impossible figure in the JSON report, no bad text in any report) plus
:func:`more_impossible` (span longer than the profiled window, kernel busy above kernel time, a top-kernel share
sum above 1) and, every ``--cli-every``-th input, the command itself (documented exit code, no traceback, an
exit-2 message of one line).

``python tests/fuzz_s9.py --seed S --count N --workdir DIR [--timeout 20] [--extra DIR]`` (``--extra``: half of
the inputs are mutants of the real files under DIR smaller than ``--extra-limit`` bytes). Kinds (:data:`KINDS`):

* ``cut_any`` — the text cut at a random byte offset (a gzip seed stays a complete gzip stream of the cut text);
* ``gz_cut`` — the gzip stream itself cut at a random offset (the text inside is whole);
* ``flip`` — 1–16 random bytes flipped (XOR with a random non-zero byte);
* ``odd_time`` — ``ts``/``dur``/start/end-like values of 1–5 records set to NaN, ±inf, a negative, a huge or
  a zero value (JSON) or the same in a time column of 1–5 CSV rows;
* ``keys`` — in 1–5 records, a key dropped or written twice with another value;
* ``nest`` — a value replaced by an array/object nested 50–100,000 deep (or the whole document wrapped);
* ``wrong_ext`` — the file renamed with another format's suffix (``.json`` ↔ ``.csv`` ↔ ``.sqlite`` ↔ ``.gz``,
  or no suffix);
* ``corr_nowhere`` — correlation / external ids of kernels and launches set to values no other event has, or the
  same id given to every event;
* ``overlap0`` — kernels given zero durations and starts inside the previous kernel of their stream;
* ``csv_width`` — 1–3 CSV rows given a missing or an extra field;
* ``sqlite_drop`` — one table or one column of an SQLite file dropped;
* ``rank_broken`` — one file of a rank folder replaced by a mutant, an empty file or garbage.

Findings go to ``DIR/findings.jsonl`` (the input kept under ``DIR/findings``); the totals are printed as one JSON
line.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
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

KINDS = ["cut_any", "gz_cut", "flip", "odd_time", "keys", "nest", "wrong_ext", "corr_nowhere", "overlap0",
         "csv_width", "sqlite_drop", "rank_broken"]
ODD = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "-1", "-123456789", "0", "9223372036854775807",
       "18446744073709551616", "1e300", "-0.0"]
_TIME_KEY = re.compile(rb'("(?:ts|dur|start|end|start_timestamp|end_timestamp|BeginNs|EndNs|Start_Timestamp|'
                       rb'End_Timestamp|DurationNs|duration)"\s*:\s*)("?-?[0-9.eE+]+"?)')
_ID_KEY = re.compile(rb'("(?:correlation|correlationId|correlation_id|External id|external id|ext_id|id)"\s*:\s*)'
                     rb'(-?\d+)')
_SUFFIXES = [".json", ".csv", ".sqlite", ".json.gz", ".db", ".txt", ""]


def _is_sqlite(raw: bytes) -> bool:
    return raw[:16] == b"SQLite format 3\x00"


def _text_of(raw: bytes) -> tuple[bytes, bool]:
    if raw[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(raw), True
        except (OSError, EOFError):
            return raw, False
    return raw, False


def _odd_time(rng: random.Random, data: bytes, is_json: bool) -> bytes | None:
    if is_json:
        spans = [m.span(2) for m in _TIME_KEY.finditer(data)]
        if not spans:
            return None
        for a, b in sorted(rng.sample(spans, min(len(spans), rng.randint(1, 5))), reverse=True):
            v = rng.choice(ODD)
            quoted = data[a:a + 1] == b'"'
            data = data[:a] + (f'"{v}"' if quoted else v).encode() + data[b:]
        return data
    lines = data.split(b"\n")
    head = next((i for i, ln in enumerate(lines) if b"," in ln), None)
    if head is None or head + 1 >= len(lines):
        return None
    cols = [c.strip(b'" ').lower() for c in lines[head].split(b",")]
    tcols = [i for i, c in enumerate(cols) if re.search(rb"time|start|end|dur|ns|begin", c)]
    if not tcols:
        return None
    rows = [i for i in range(head + 1, len(lines)) if lines[i].strip()]
    for r in rng.sample(rows, min(len(rows), rng.randint(1, 5))):
        f = lines[r].split(b",")
        c = rng.choice(tcols)
        if c < len(f):
            f[c] = rng.choice(ODD).encode()
        lines[r] = b",".join(f)
    return b"\n".join(lines)


def _records(doc) -> list[dict]:
    if isinstance(doc, list):
        return [e for e in doc if isinstance(e, dict)]
    if isinstance(doc, dict):
        for k in ("traceEvents", "events", "kernel_dispatch", "buffer_records", "records"):
            if isinstance(doc.get(k), list):
                return [e for e in doc[k] if isinstance(e, dict)]
        for v in doc.values():
            if isinstance(v, (dict, list)):
                r = _records(v)
                if r:
                    return r
    return []


def _keys(rng: random.Random, data: bytes) -> bytes | None:
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    recs = [e for e in _records(doc) if e]
    if not recs:
        return None
    picked = rng.sample(recs, min(len(recs), rng.randint(1, 5)))
    dups = []
    for e in picked:
        k = rng.choice(sorted(e))
        if rng.random() < 0.5:
            del e[k]
        else:
            dups.append((e, k))
    text = json.dumps(doc)
    for e, k in dups:  # a key written twice (json.dumps cannot): splice the record's text
        one = json.dumps(e)
        extra = f'"{k}": {json.dumps(rng.choice([None, -5, "x", 1e300, [], {}]))}'
        dup = "{" + extra + ", " + one[1:] if rng.random() < 0.5 else one[:-1] + ", " + extra + "}"
        text = text.replace(one, dup, 1)
    return text.encode()


def _nest(rng: random.Random, data: bytes) -> bytes | None:
    depth = rng.choice([50, 500, 5000, 100_000])
    opener, closer = rng.choice([("[", "]"), ('{"a":', "}")])
    deep = (opener * depth + "1" + closer * depth).encode()
    if rng.random() < 0.2:
        return opener.encode() * depth + data + closer.encode() * depth  # the whole document wrapped
    spans = [m.span(2) for m in re.finditer(rb'("(?:args|name|ts|dur|cat|pid|tid)"\s*:\s*)("[^"]*"|-?\d+)', data)]
    if not spans:
        return None
    a, b = rng.choice(spans)
    return data[:a] + deep + data[b:]


def _corr_nowhere(rng: random.Random, data: bytes) -> bytes | None:
    spans = [m.span(2) for m in _ID_KEY.finditer(data)]
    if not spans:
        return None
    same = rng.random() < 0.3
    v = str(rng.randrange(10**6, 10**9)).encode()
    for a, b in sorted(rng.sample(spans, max(1, len(spans) // rng.choice([1, 2, 4]))), reverse=True):
        data = data[:a] + (v if same else str(rng.randrange(10**6, 10**12)).encode()) + data[b:]
    return data


def _overlap0(rng: random.Random, data: bytes) -> bytes | None:
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    ks = [e for e in _records(doc) if isinstance(e.get("ts"), (int, float)) and isinstance(e.get("dur"), (int, float))
          and str(e.get("cat", "")).lower() in ("kernel", "gpu_memcpy", "gpu_memset", "memcpy", "")]
    if len(ks) < 2:
        return None
    ks.sort(key=lambda e: e["ts"])
    for prev, e in zip(ks, ks[1:]):
        r = rng.random()
        if r < 0.3:
            e["dur"] = 0
        elif r < 0.8:
            e["ts"] = prev["ts"] + prev["dur"] * rng.random()
            e["tid"] = prev.get("tid")
            if isinstance(e.get("args"), dict) and isinstance(prev.get("args"), dict):
                e["args"]["stream"] = prev["args"].get("stream")
    return json.dumps(doc).encode()


def _csv_width(rng: random.Random, data: bytes) -> bytes | None:
    lines = data.split(b"\n")
    rows = [i for i, ln in enumerate(lines[1:], 1) if b"," in ln]
    if not rows:
        return None
    for r in rng.sample(rows, min(len(rows), rng.randint(1, 3))):
        f = lines[r].rstrip(b"\r").split(b",")
        lines[r] = b",".join(f[:-1] if rng.random() < 0.5 and len(f) > 1 else f + [b"17"])
    return b"\n".join(lines)


def _sqlite_drop(rng: random.Random, f: Path) -> bool:
    con = sqlite3.connect(f)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        if not tables:
            return False
        t = rng.choice(tables)
        cols = [r[1] for r in con.execute(f'PRAGMA table_info("{t}")')]
        try:
            if rng.random() < 0.4 or len(cols) < 2:
                con.execute(f'DROP TABLE "{t}"')
            else:
                con.execute(f'ALTER TABLE "{t}" DROP COLUMN "{rng.choice(cols)}"')
            con.commit()
        except sqlite3.Error:
            return False
        return True
    finally:
        con.close()


def mutate(rng: random.Random, f: Path, kind: str) -> Path | None:
    """Apply ``kind`` to file ``f`` in place (``wrong_ext``: renamed); the path of the mutant, or None when the
    kind does not apply to this file."""
    raw = f.read_bytes()
    if kind == "wrong_ext":
        name = f.name.split(".")[0] or "x"
        new = f.with_name(name + rng.choice([s for s in _SUFFIXES if not f.name.endswith(s) or not s]))
        f.rename(new)
        return new
    if kind == "flip":
        b = bytearray(raw)
        if not b:
            return None
        for _ in range(rng.randint(1, 16)):
            i = rng.randrange(len(b))
            b[i] ^= rng.randrange(1, 256)
        f.write_bytes(bytes(b))
        return f
    if _is_sqlite(raw):
        if kind != "sqlite_drop":
            return None
        return f if _sqlite_drop(rng, f) else None
    if kind == "gz_cut":
        if raw[:2] != b"\x1f\x8b" or len(raw) < 12:
            return None
        f.write_bytes(raw[:rng.randrange(10, len(raw))])
        return f
    data, gz = _text_of(raw)
    is_json = data.lstrip(b"\xef\xbb\xbf \r\n\t")[:1] in (b"{", b"[")
    out = None
    if kind == "cut_any" and len(data) > 2:
        out = data[:rng.randrange(1, len(data))]
    elif kind == "odd_time":
        out = _odd_time(rng, data, is_json)
    elif kind == "keys" and is_json:
        out = _keys(rng, data)
    elif kind == "nest" and is_json:
        out = _nest(rng, data)
    elif kind == "corr_nowhere" and is_json:
        out = _corr_nowhere(rng, data)
    elif kind == "overlap0" and is_json:
        out = _overlap0(rng, data)
    elif kind == "csv_width" and not is_json:
        out = _csv_width(rng, data)
    if out is None:
        return None
    f.write_bytes(gzip.compress(out, compresslevel=1) if gz else out)
    return f


def more_impossible(doc: dict) -> list[str]:
    """Impossible figures :func:`tests.fuzz_more.impossible_figures` does not look for."""
    bad = []
    for src in doc.get("sources") or []:
        sm = src.get("summary") or {}
        num = {k: v for k, v in sm.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        if "kernel_busy_ns" in num and "kernel_time_ns" in num and num["kernel_busy_ns"] > num["kernel_time_ns"] + 1:
            bad.append(f"kernel_busy_ns {num['kernel_busy_ns']} > kernel_time_ns {num['kernel_time_ns']}")
        if "span_ns" in num and "window_ns" in num and num["span_ns"] > num["window_ns"] + 1:
            bad.append(f"span_ns {num['span_ns']} > window_ns {num['window_ns']} (GPU span longer than the run)")
        if "gpu_busy_ns" in num and "span_ns" in num and len(sm.get("ranks") or []) <= 1 \
                and num["gpu_busy_ns"] > num["span_ns"] * max(1, len(src.get("devices") or [])) + 1:
            bad.append(f"gpu_busy_ns {num['gpu_busy_ns']} > span_ns {num['span_ns']}")
        shares = [r.get("share") for r in (src.get("top_kernels") or []) if isinstance(r.get("share"), (int, float))]
        if sum(shares) > 1.0001:
            bad.append(f"top kernel shares sum to {sum(shares):.4f} > 1")
        for k, v in num.items():
            if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
                bad.append(f"summary.{k} = {v}")
    return bad


def _more(doc: dict, path: Path) -> list[str]:
    """:func:`more_impossible`, and a rank folder with a file made unusable (``expect_partial``) must be partial."""
    bad = more_impossible(doc)
    lost = path.parent / "expect_partial"
    if lost.exists() and doc["status"] != "partial":
        bad.append(f"rank file {lost.read_text()} unusable, yet status {doc['status']!r}, not partial")
    return bad


def check(path: Path, strict: bool) -> str | None:
    """None when gpulens behaved on ``path``; else what went wrong (:func:`tests.fuzz_fresh.check`'s checks, plus
    :func:`_more`), from one analysis."""
    from tests.fuzz_fresh import check as fresh_check

    return fresh_check(path, strict, _more)


def check_cli(path: Path) -> str | None:
    from tests.fuzz_cli import ALLOWED
    from tests.fuzz_s8 import run_cli

    code, text = run_cli(["analyze", str(path), "-q", "--no-cache", "--json", str(path.parent / "out.report.json")])
    if code not in ALLOWED["analyze"] or "Traceback" in text:
        return f"analyze exit {code}: {text.strip()[-300:]!r}"
    errs = [ln for ln in text.strip().splitlines() if ln.startswith("gpulens: error")]
    if code == 2 and (len(errs) != 1 or str(path) not in errs[0]):
        return f"analyze exit 2 without one error line naming the file: {text.strip()[:300]!r}"
    if "nan" in text.lower().split() or " NaN" in text:
        return f"NaN printed: {text.strip()[:300]!r}"
    return None


def _make(rng: random.Random, seed: Path, path: Path, kind: str) -> Path | None:
    """The mutant of ``seed`` (a file or folder) under ``path`` made by ``kind``; None when it does not apply."""
    if seed.is_dir():
        shutil.copytree(seed, path)
        files = sorted(p for p in path.rglob("*") if p.is_file())
        if not files:
            return None
        target = rng.choice(files)
        if kind == "rank_broken":
            r = rng.random()
            if r < 0.5:  # a rank file no reader can use: the result must be partial (or an error)
                target.write_bytes(b"" if r < 0.3 else b"\x00garbage" + os.urandom(rng.randrange(1, 4096)))
                (path.parent / "expect_partial").write_text(target.name)
                return path
            kind = rng.choice([k for k in KINDS if k != "rank_broken"])
        return path if mutate(rng, target, kind) is not None else None
    shutil.copyfile(seed, path)
    return mutate(rng, path, "flip" if kind == "rank_broken" else kind)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=9009)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--workdir", type=Path, required=True)
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--cli-every", type=int, default=3)
    ap.add_argument("--only", type=int, default=None)
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--extra", type=Path, action="append", default=[],
                    help="also mutate the small real files under this folder (half of the inputs)")
    ap.add_argument("--extra-limit", type=int, default=300_000, help="largest extra file, bytes")
    a = ap.parse_args(argv)
    c = fuzzing.Campaign(a)
    seeds = fuzzing.write_seeds(a.workdir / "seeds")
    kinds = a.kinds.split(",")
    names = sorted(seeds)
    extra: list[str] = []
    for root in a.extra:
        from tests.fuzz_s8 import extra_seeds

        more = extra_seeds(root, a.extra_limit)
        seeds.update(more)
        extra += sorted(more)
    for i in c.indices():
        rng = random.Random(a.seed * 15_485_863 + i)
        kind = rng.choice(kinds)
        path = None
        for _attempt in range(8):  # a seed the kind applies to (a CSV cannot be nested, a JSON has no table)
            work = c.work()
            pool = extra if extra and rng.random() < 0.5 else names
            seed = seeds[rng.choice([n for n in names if n == "rank_dir"] if kind == "rank_broken" else pool)]
            path = _make(rng, seed, work / f"in{i}_{seed.name}", kind)
            if path is not None:
                break
        if path is None:
            c.skip()
            continue
        strict = i % 3 != 2

        def one() -> str | None:
            what = check(path, strict)
            return check_cli(path) if what is None and i % a.cli_every == 0 else what

        what = c.run(i, kind, path.name, one)
        if what is not None:
            c.record(path, {"i": i, "kind": kind, "strict": strict, "seed": str(seed), "what": what})
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
