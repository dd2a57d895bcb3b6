"""A seeded mutation fuzzer for every input format gpulens reads (issue 17, acceptance).

Run as a worker process: ``python tests/fuzzing.py --seed S --count N --workdir DIR [--cli-every K]``. It builds one
small seed per format, derives ``N`` mutated inputs from them with a ``random.Random(S)``, and for each one

* loads it with :func:`gpulens.collectors.collect` (strict, then lenient for every 4th input) and, every
  ``--analyze-every``-th input, analyzes the result (:func:`gpulens.report.analyze_timeline` + the JSON reporter), or
* every ``K``-th input, runs the whole CLI in-process (``gpulens analyze FILE -q --no-cache --json OUT``).

An input passes when it loads, or fails with a :class:`gpulens.errors.GpulensError`; the CLI must exit 0, 2 or 5.
Anything else is a finding: its exception type and the innermost gpulens frame are recorded and the input is kept in
``DIR/findings``. Each input runs under ``SIGALRM`` (``--timeout`` s); before each, its id is written to
``DIR/current`` so that a parent that had to kill a hung worker knows which input hung. The totals are printed as
one JSON line (``{"inputs": …, "ok": …, "gpulens_errors": {type: n}, "findings": [...], "max_rss_mb": …}``).
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import os
import random
import re
import resource
import shutil
import signal
import sqlite3
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"


class FuzzTimeout(BaseException):
    """Raised by the alarm: a BaseException so that no ``except Exception`` in gpulens swallows it."""


# ---------------------------------------------------------------------------------------------------- seeds
def _nsys(path: Path) -> None:
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
        INSERT INTO StringIds VALUES (1, 'gemm'), (2, 'cudaLaunchKernel_v7000'), (3, 'step 0'), (4, 'nccl_ar');
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, streamId INT,
            correlationId INT, globalPid INT, shortName INT, demangledName INT, gridX INT, blockX INT,
            registersPerThread INT, staticSharedMemory INT, dynamicSharedMemory INT);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
            (1000, 1500, 0, 7, 10, 5033164800, 1, 1, 64, 128, 32, 0, 0),
            (2000, 2600, 0, 7, 11, 5033164800, 1, 1, 64, 128, 32, 0, 1024),
            (3000, 3300, 1, 9, 12, 5033164800, 4, 4, 8, 256, 64, 4096, 0);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, globalTid INT, correlationId INT, nameId INT);
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900, 950, 5033164842, 10, 2), (1900, 1950, 5033164842, 11, 2);
        CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, text TEXT, textId INT, globalTid INT);
        INSERT INTO NVTX_EVENTS VALUES (800, 4000, 59, NULL, 3, 5033164842);
        CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INT, name TEXT);
        INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES (34, 'NvtxMark'), (59, 'NvtxPushPopRange');
        CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT, end INT, deviceId INT, streamId INT, bytes INT,
            copyKind INT, correlationId INT);
        INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (500, 700, 0, 7, 4096, 1, 9);
        CREATE TABLE TARGET_INFO_GPU (id INT, name TEXT, smCount INT, computeMajor INT, computeMinor INT,
            totalMemory INT, clockRate INT);
        INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H100 80GB HBM3', 132, 9, 0, 85899345920, 1980000000);
        CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
        INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.1');
    """)
    con.commit()
    con.close()


def _v1_json(path: Path) -> None:
    """rocprof v1 ``results.json`` (Chrome trace with string numbers, the layout of rocprof 1.x --hip-trace)."""
    def ev(pid, name, b, e, **args):
        return {"ph": "X", "name": name, "pid": str(pid), "tid": "0", "ts": str(b // 1000), "dur": str((e - b) // 1000),
                "args": {"BeginNs": str(b), "EndNs": str(e), "dev-id": "4", "queue-id": "0", "Name": name,
                         "pid": "19147", "tid": "19147", "stream-id": "0", "Data": "", "DurationNs": str(e - b),
                         **args}}
    evs = [{}, {"args": {"name": "CPU HIP API"}, "ph": "M", "pid": 2, "name": "process_name", "sort_index": 0},
           {"args": {"name": "COPY"}, "ph": "M", "pid": 1, "name": "process_name", "sort_index": 1},
           {"args": {"name": "GPU4"}, "ph": "M", "pid": 10, "name": "process_name", "sort_index": 2},
           ev(1, "CopyHostToDevice", 622109046136251, 622109138348698),
           ev(10, "vector_add(float*, float*, float*, int)", 622109244416840, 622109247848451),
           ev(2, "hipMemcpy", 622109046000000, 622109139000000, args="( dst(0x1) kind(1))")]
    path.write_text('{ "traceEvents":' + json.dumps(evs, indent=0) + "}\n")


def _v1_db(path: Path) -> None:
    """rocprof v1 ``results.db`` (one table per domain, the layout of rocprof 1.x)."""
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE HIP ("BeginNs" INTEGER, "EndNs" INTEGER, "pid" INTEGER, "tid" INTEGER, "Name" TEXT,
            "args" TEXT, "Index" INTEGER, "Data" TEXT, "__section" INTEGER, "__lane" INTEGER, "DurationNs" INTEGER);
        INSERT INTO HIP VALUES (622108776102152, 622108789306334, 19147, 19147, 'hipMalloc', '( size(4))', 1, '', 2,
            19147, 13204182);
        CREATE TABLE OPS ("BeginNs" INTEGER, "EndNs" INTEGER, "dev-id" INTEGER, "queue-id" INTEGER, "Name" TEXT,
            "pid" INTEGER, "tid" INTEGER, "roctx-range" TEXT, "stream-id" INTEGER, "Index" INTEGER, "Data" TEXT,
            "__section" INTEGER, "__lane" INTEGER, "DurationNs" INTEGER);
        INSERT INTO OPS VALUES (622109244416840, 622109247848451, 4, 0, 'vector_add(float*, int)', 19147, 19147,
            '', 1, 8, '', 10, 1, 3431611);
        CREATE TABLE COPY AS SELECT * FROM OPS WHERE 0;
        INSERT INTO COPY VALUES (622109046136251, 622109138348698, 4, 0, 'CopyHostToDevice', 19147, 19147, '', 0, 4,
            '', 1, 0, 92212447);
        CREATE TABLE KERN ("Index" INTEGER, "KernelName" TEXT);
    """)
    con.commit()
    con.close()


def _sqlite_builder(module: str, func: str):
    def build(path: Path) -> None:
        import importlib

        getattr(importlib.import_module(module), func)(path)
    return build


def _json_builder(module: str, func: str):
    return _sqlite_builder(module, func)


def _head(src: Path, lines: int):
    def build(path: Path) -> None:
        text = src.read_text(encoding="utf-8", errors="replace").splitlines()[:lines]
        path.write_text("\n".join(text) + "\n", encoding="utf-8")
    return build


def _copy(src: Path):
    def build(path: Path) -> None:
        shutil.copyfile(src, path)
    return build


#: format → (file name, builder). Every format gpulens reads has a seed (folders: one file of the folder mutated).
SEEDS = {
    "kineto": ("a.pt.trace.json", _copy(DATA / "cases" / "B13.json")),
    "kineto_b12": ("b.json", _copy(DATA / "cases" / "B12.json")),
    "kineto_gz": ("c.json.gz", _copy(DATA / "kineto" / "hta_a100_triton_example.json.gz")),
    "nsys_sqlite": ("r.sqlite", _nsys),
    "nsys_stats": ("kern_sum.csv", _head(DATA / "nvidia" / "codegandee_rtx5090_dsocr_prefill_cuda_gpu_kern_sum.csv",
                                         12)),
    "ncu_csv": ("details.csv", _copy(DATA / "cases" / "B20.ncu_details_15col.csv")),
    "ncu_raw": ("raw.csv", _copy(DATA / "cases" / "B20.ncu_raw.csv")),
    "rocpd": ("results.db", _sqlite_builder("tests.test_rocpd", "build_layout_a")),
    "rocpd_b": ("results_b.db", _sqlite_builder("tests.test_rocpd", "build_layout_b")),
    "rocprof_v1": ("results.csv", _copy(DATA / "cases" / "B17.v1_results.csv")),
    "rocprof_v1_stats": ("results.stats.csv", _copy(DATA / "rocprof" / "v1_pmc_seismic_mi250x" /
                                                    "results.stats.csv")),
    "rocprofv3_csv": ("kernel_trace.csv", _copy(DATA / "rocprof" / "v3_csv_sdk_docs" / "kernel_trace.csv")),
    "rocprofv3_json": ("77_results.json.gz", _json_builder("tests.test_rocprofv3", "_tiny_v3_json")),
    "rocprof_v1_json": ("v1results.json", _v1_json),
    "rocprof_v1_db": ("v1results.db", _v1_db),
    "omniperf_dir": ("vcopy_MI200", None),
    "rocprof_v1_text": ("894_hcc_ops_trace.txt", _json_builder("tests.test_rocprof_v1_text", "write_ops")),
    "rocprof_results_txt": ("4242_results.txt", _json_builder("tests.test_rocprof_results_txt", "write_v1")),
    "ncu_text": ("ncu.txt", _json_builder("tests.test_ncu_text", "write_report")),
}

SHARED_CASES = HERE.parents[1] / "shared" / "cases"


def _rocpd_dir(path: Path) -> None:
    """Two rocpd databases in one folder (one per process, as T12)."""
    import importlib

    path.mkdir()
    mod = importlib.import_module("tests.test_rocpd")
    mod.build_layout_a(path / "4242_results.db")
    mod.build_layout_b(path / "4243_results.db")


def _ncu_rep(path: Path) -> None:
    path.write_bytes(b"NVR\x00" + bytes(range(256)) * 4)


def extended_seeds() -> dict[str, tuple[str, object]]:
    """Extra seeds of ``--extended``: folders (rank files, rocprof v1 / v3, rocpd per process), every case of
    tests/data/cases and, when the developer corpus is present, every case of ../shared/cases."""
    out: dict[str, tuple[str, object]] = {
        "rank_dir": ("ranks", DATA / "kineto" / "multirank"),
        "v1_dir": ("v1dir", DATA / "rocprof" / "v1_gunrock_mi300x"),
        "v3_dir": ("v3dir", DATA / "rocprof" / "v3_csv_sdk_docs"),
        "omniperf_300": ("vcopy_MI300X_A1", DATA / "omniperf" / "vcopy_MI300X_A1"),
        "rocpd_dir": ("rocpd_procs", _rocpd_dir),
        "ncu_rep": ("r.ncu-rep", _ncu_rep),
    }
    for d in (DATA / "cases", SHARED_CASES):
        if d.is_dir():
            for p in sorted(d.iterdir()):
                if p.name != "README.md" and (p.is_file() or p.name.startswith("T12")):
                    out.setdefault(f"case_{p.name}", (f"case_{p.name}", p))
    return out


def write_seeds(seeds_dir: Path, extended: bool = True) -> dict[str, Path]:
    """Write every seed (:data:`SEEDS`, plus :func:`extended_seeds` when ``extended``) into ``seeds_dir`` once
    (a seed already there is kept) and return format → path. The one seed writer of every fuzz tool."""
    seeds_dir = Path(seeds_dir)
    seeds_dir.mkdir(parents=True, exist_ok=True)
    seeds: dict[str, Path] = {}
    for fmt, (name, build) in dict(SEEDS, **(extended_seeds() if extended else {})).items():
        p = seeds_dir / name
        if not p.exists():
            if build is None:
                shutil.copytree(DATA / "omniperf" / name, p)
            elif isinstance(build, Path):
                (shutil.copytree if build.is_dir() else shutil.copyfile)(build, p)
            else:
                build(p)
        seeds[fmt] = p
    return seeds


# ---------------------------------------------------------------------------------------------------- mutations
TOKENS = [b"18446744073709551616", b"-9223372036854775808", b"9223372036854775807", b"-1", b"0", b"1e400",
          b"-1e400", b"NaN", b"nan", b"inf", b"-inf", b"Infinity", b"null", b"true", b'""', b'"x"', b"[]", b"{}",
          b'"\\ud800"', b"\x00", b"\x01", b"\xff\xfe", b"\xed\xa0\x80", b",", b'"', b"}", b"]", b"\n", b"1.5",
          b"0x7fffffff", b"1e-400", b"-0", b"  ", b"\r\n", b'"\\u0000"', b"\\", b"%s%n", "\u202e".encode()]


def _numbers(data: bytes) -> list[tuple[int, int]]:
    import re

    return [m.span() for m in re.finditer(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", data[:200_000])]


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    """One to three random mutations of a text input (see TOKENS for the values planted)."""
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(10)
        n = len(data)
        if n == 0:
            return rng.choice(TOKENS)
        pos = rng.randrange(n)
        if op == 0:  # flip bytes
            b = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                b[rng.randrange(n)] = rng.randrange(256)
            data = bytes(b)
        elif op == 1:  # truncate
            data = data[:pos]
        elif op == 2:  # insert a token
            data = data[:pos] + rng.choice(TOKENS) + data[pos:]
        elif op in (3, 4):  # replace a number by a special value
            spans = _numbers(data)
            if spans:
                a, b_ = rng.choice(spans)
                data = data[:a] + rng.choice(TOKENS[:14] + [b"1.5", b"1e400"]) + data[b_:]
        elif op == 5:  # duplicate or delete a line
            lines = data.split(b"\n")
            i = rng.randrange(len(lines))
            if rng.random() < 0.5:
                lines.insert(i, lines[i])
            else:
                del lines[i]
            data = b"\n".join(lines)
        elif op == 6:  # a very long field / name
            data = data[:pos] + b"k" * rng.choice([1000, 140_000, 300_000]) + data[pos:]
        elif op == 7:  # deep nesting
            d = rng.choice([100, 5000, 100_000])
            data = data[:pos] + b"[" * d + b"]" * d + data[pos:]
        elif op == 8:  # duplicate the first line (CSV header → duplicate columns / repeated header)
            first, _, rest = data.partition(b"\n")
            cells = first.split(b",")
            if len(cells) > 1:
                cells.append(rng.choice(cells))
            data = b",".join(cells) + b"\n" + rest
        else:  # swap two chunks
            a, b_ = sorted((rng.randrange(n), rng.randrange(n)))
            data = data[:a] + data[b_:] + data[a:b_]
    return data


#: Values planted by :func:`mutate_json` in place of a JSON value: every JSON type, and numbers at the int64 edges.
JSON_VALUES = [None, True, 0, -1, 1.5, 2 ** 63, 2 ** 64, -(2 ** 63) - 1, 1e300, "", "x", "12", "\ud800", [], [1],
               {}, {"handle": "x"}, {"x": [None]}]


def mutate_json(rng: random.Random, data: bytes) -> bytes | None:
    """Type confusion: parse the document, replace 1–3 values (anywhere in the tree) by a value of another JSON type
    or an integer beyond int64, and write it back. None when ``data`` is not JSON."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return None
    nodes: list[tuple[object, object]] = []  # (container, key) of every value, breadth-first, capped
    todo = [doc]
    while todo and len(nodes) < 5000:
        cur = todo.pop(0)
        items = cur.items() if isinstance(cur, dict) else enumerate(cur) if isinstance(cur, list) else ()
        for k, v in items:
            nodes.append((cur, k))
            if isinstance(v, (dict, list)):
                todo.append(v)
    if not nodes:
        return None
    for _ in range(rng.randint(1, 3)):
        cont, key = rng.choice(nodes)
        cont[key] = rng.choice(JSON_VALUES)  # type: ignore[index]
    return json.dumps(doc).encode("utf-8", "surrogatepass")


SQL_VALUES = ["'x'", "''", "1.5", "-1", "9223372036854775807", "-9223372036854775808", "NULL", "X'00ff'",
              "1e308", "'12'", "0", "'\ud800'".encode("utf-8", "surrogatepass").decode("latin-1")]


def mutate_sqlite(rng: random.Random, path: Path) -> None:
    """Typed mutations of an SQLite file: wrong-typed cells, extreme rowids, dropped tables/columns, or pages
    overwritten with random bytes."""
    op = rng.randrange(6)
    if op == 5:
        blob = bytearray(path.read_bytes())
        for _ in range(rng.randint(1, 8)):
            p = rng.randrange(100, len(blob))
            blob[p:p + 16] = bytes(rng.randrange(256) for _ in range(16))
        path.write_bytes(bytes(blob))
        return
    con = sqlite3.connect(path)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        t = rng.choice(tables)
        cols = [r[1] for r in con.execute(f"PRAGMA table_info([{t}])")]
        c = rng.choice(cols)
        if op in (0, 1):
            val = rng.choice(SQL_VALUES)
            where = "" if rng.random() < 0.3 else f" WHERE rowid = (SELECT min(rowid) FROM [{t}])"
            con.execute(f"UPDATE [{t}] SET [{c}] = {val}{where}")
        elif op == 2:
            con.execute(f"INSERT INTO [{t}] (rowid) VALUES ({rng.choice(['9223372036854775807', '-5', '3'])})")
        elif op == 3:
            con.execute(f"DROP TABLE [{t}]")
        else:
            con.execute(f"ALTER TABLE [{t}] RENAME COLUMN [{c}] TO [{c}_x]")
        con.commit()
    except sqlite3.Error:
        pass
    finally:
        con.close()


def _mutate_file(rng: random.Random, f: Path, extended: bool) -> None:
    """Mutate one file in place (SQLite by its tables, text by bytes / structure, gzip kept as gzip mostly)."""
    if f.suffix in (".sqlite", ".db") or f.read_bytes()[:16] == b"SQLite format 3\x00":
        if extended and rng.random() < 0.6:
            from tests.fuzz_more import mutate_sqlite_schema

            mutate_sqlite_schema(rng, f)
        else:
            mutate_sqlite(rng, f)
        return
    data = f.read_bytes()
    gz = data[:2] == b"\x1f\x8b"
    if gz:
        data = gzip.decompress(data)
    if extended and rng.random() < 0.6:
        from tests.fuzz_more import mutate_extended

        data = mutate_extended(rng, data)
    else:
        typed = mutate_json(rng, data) if data.lstrip()[:1] == b"{" and rng.random() < 0.4 else None
        data = typed if typed is not None else mutate_bytes(rng, data)
    if gz and rng.random() < 0.8:
        data = gzip.compress(data, compresslevel=1)
    f.write_bytes(data)


def make_input(rng: random.Random, seeds: dict[str, Path], out_dir: Path, i: int, extended: bool = False) -> Path:
    """The ``i``-th mutated input, written under ``out_dir``."""
    fmt = rng.choice(sorted(seeds))
    seed = seeds[fmt]
    if seed.is_dir():
        dst = out_dir / f"in{i}_{seed.name}"
        shutil.copytree(seed, dst)
        files = sorted(p for p in dst.rglob("*") if p.is_file())
        for f in rng.sample(files, 1 if not extended or len(files) < 2 or rng.random() < 0.7 else 2):
            if extended:
                _mutate_file(rng, f, True)
            else:
                f.write_bytes(mutate_bytes(rng, f.read_bytes()))
        return dst
    dst = out_dir / f"in{i}_{seed.name}"
    if extended:
        shutil.copyfile(seed, dst)
        _mutate_file(rng, dst, True)
        return dst
    if seed.suffix in (".sqlite", ".db"):
        shutil.copyfile(seed, dst)
        mutate_sqlite(rng, dst)
        return dst
    data = seed.read_bytes()
    gz = data[:2] == b"\x1f\x8b"
    if gz:
        data = gzip.decompress(data)
    typed = mutate_json(rng, data) if data.lstrip()[:1] == b"{" and rng.random() < 0.4 else None
    data = typed if typed is not None else mutate_bytes(rng, data)
    if gz and rng.random() < 0.8:
        data = gzip.compress(data, compresslevel=1)
    dst.write_bytes(data)
    return dst


# ---------------------------------------------------------------------------------------------------- running
#: A control or bidi character of a name is shown as a visible ``\\uXXXX`` escape by every report (by design:
#: :func:`gpulens.reports._md_safe.visible`); the report-text checker's ``\\u`` rule is not meant for those.
VISIBLE_ESCAPE = re.compile(r"^\w+ text: \\u: .*\\u(?:00[0-1][0-9a-f]|007f|00[89][0-9a-f]|061c|200[ef]|202[a-e]|206[6-9]"
                            r"|feff)", re.I)


def _where(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "gpulens" in f.filename]
    f = frames[-1] if frames else traceback.extract_tb(exc.__traceback__)[-1]
    return f"{type(exc).__name__} at {Path(f.filename).name}:{f.lineno} ({f.name})"


def _syntax_errors() -> tuple[type[BaseException], ...]:
    """Exceptions that say the file cannot be parsed at all (its syntax, compression or page structure): the
    one-line error made from them is the right outcome. Any other wrapped exception is a value the reader did not
    check."""
    import csv
    import zlib

    import msgspec

    return (msgspec.DecodeError, json.JSONDecodeError, RecursionError, csv.Error, zlib.error, sqlite3.DatabaseError)


def _alarm(signum, frame):
    raise FuzzTimeout()


def run_one(path: Path, strict: bool, cli: bool, out: Path, analyze: bool = True) -> str | None:
    """Load + analyze (or run the CLI on) one input. None when it behaved; else a description of the outcome:

    * ``"gpulens:<Type>"`` — a deliberate gpulens error (the reader recognised what is wrong);
    * ``"syntax:<place>"`` — the same made from an error of the file's syntax (JSON/CSV/gzip/SQLite pages: see
      :func:`_syntax_errors`): the right outcome for a file that cannot be parsed;
    * ``"wrapped:<place>"`` — a :class:`~gpulens.errors.TraceFormatError` made by the reading boundary
      (:func:`gpulens.collectors._io.reading`) from a parser's exception (``ValueError``, ``sqlite3.Error``...): still
      a documented one-line error (exit 2), but the reader did not check the value itself — counted by the place that
      raised, the list of what remains to declare;
    * anything else — a finding: the exception type and the innermost gpulens frame.
    """
    from gpulens.collectors import collect
    from gpulens.errors import GpulensError, printable

    if cli:
        from gpulens.cli import main

        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(["analyze", str(path), "-q", "--no-cache", "--json", str(out)]
                        + ([] if strict else ["--lenient"]))
        text = err.getvalue()
        if code not in (0, 2, 5) or "Traceback" in text or (code == 2 and text.count("\n") > 1):
            return f"CLI exit {code}: {text.strip().splitlines()[-1] if text.strip() else ''}"[:300]
        return None
    try:
        from gpulens.report import Report, analyze_timeline
        from gpulens.reports.json_report import render

        tl = collect(path, strict=strict)
        if analyze:
            doc = render(Report([analyze_timeline(tl, str(path))]))
            from tests.fuzz_more import impossible_figures

            bad = impossible_figures(json.loads(doc))
            if bad:
                return "impossible figure: " + "; ".join(bad[:3])
        if tl.meta.warnings:
            return "partial"
    except GpulensError as exc:
        msg = str(exc)
        if "\n" in msg or not msg.startswith(printable(path)):  # a name with a newline is shown escaped
            return f"bad message {type(exc).__name__}: {msg[:200]!r}"
        cause = exc.__cause__
        if cause is not None and not isinstance(cause, GpulensError) and "malformed" in msg:
            return ("syntax:" if isinstance(cause, _syntax_errors()) else "wrapped:") + _where(cause)
        return "gpulens:" + type(exc).__name__
    except FuzzTimeout:
        raise
    except Exception as exc:  # noqa: BLE001 — a finding
        return _where(exc)
    return None


def record_finding(tot: dict, fdir: Path, workdir: Path, path: Path, finding: dict) -> None:
    """Keep the input of a finding (copied to ``fdir`` as ``<i>_<name>``) and record ``finding`` (plus its
    ``file``) in ``tot["findings"]`` and in ``workdir/findings.jsonl`` — the campaigns' one record of a finding."""
    keep = fdir / f"{finding['i']}_{path.name}"
    shutil.rmtree(keep, ignore_errors=True)
    (shutil.copytree if path.is_dir() else shutil.copyfile)(path, keep)
    log_finding(tot, workdir, {**finding, "file": str(keep)})


def log_finding(tot: dict, workdir: Path, finding: dict) -> None:
    """Record ``finding`` in ``tot["findings"]`` and ``workdir/findings.jsonl`` (no input kept: a FIFO, a link loop)."""
    tot["findings"].append(finding)
    with open(workdir / "findings.jsonl", "a") as fh:
        fh.write(json.dumps(finding) + "\n")


def restore_permissions(work: Path) -> None:
    """Make everything under ``work`` removable again (a mutant may be chmod 0, or a folder without ``x``)."""
    with contextlib.suppress(OSError):
        work.chmod(0o700)
    for q in work.rglob("*"):
        try:
            if not q.is_symlink():
                q.chmod(0o700 if q.is_dir() else 0o600)
        except OSError:
            pass


class Campaign:
    """The bookkeeping every ``tests/fuzz_*.py`` campaign shares: the environment (warnings off, a private Timeline
    cache under ``DIR/cache``, the timer signals), the input ids (``--only`` or ``--start``/``--count``), a fresh
    work folder per input, each check under a CPU and a wall limit, the tallies and the record of each finding.

    ``a`` is the parsed command line: ``workdir``, ``start``, ``count``, ``only``, ``timeout`` (CPU seconds of this
    process per input when ``wall_timeout`` is there too, else wall seconds) and optionally ``wall_timeout``.
    :attr:`tot` is printed as one JSON line by :meth:`done`: ``inputs``, ``ok``, ``skipped``, ``timeouts``,
    ``by_kind`` and ``findings_by_kind`` (counts), ``findings`` (records) and the five ``slowest`` inputs."""

    def __init__(self, a: argparse.Namespace):
        import warnings

        warnings.simplefilter("ignore")
        os.environ.setdefault("GPULENS_CACHE_DIR", str(a.workdir / "cache"))
        signal.signal(signal.SIGALRM, _alarm)
        signal.signal(signal.SIGPROF, _alarm)
        self.a = a
        self.tot: dict = {"inputs": 0, "ok": 0, "skipped": 0, "by_kind": {}, "findings_by_kind": {},
                          "findings": [], "timeouts": 0, "slowest": []}
        self.fdir = a.workdir / "findings"
        self.fdir.mkdir(parents=True, exist_ok=True)
        self.t0 = time.monotonic()

    def indices(self) -> list[int] | range:
        """The input ids to make: ``[--only]``, else ``--start`` … ``--start + --count - 1``."""
        a = self.a
        return [a.only] if a.only is not None else range(a.start, a.start + a.count)

    def work(self) -> Path:
        """``DIR/w``, emptied (permissions a mutant took away given back first) and made again."""
        work = self.a.workdir / "w"
        if work.exists():
            restore_permissions(work)
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        return work

    def attempt(self, make, attempts: int = 8) -> tuple[object, Path]:
        """``make(work)`` in a fresh work folder, again in a new one while it returns None, up to ``attempts``
        times (a kind may not apply to the seed drawn): (its result or None, the work folder)."""
        work = self.work()
        for _ in range(attempts):
            made = make(work)
            if made is not None:
                return made, work
            work = self.work()
        return None, work

    def skip(self) -> None:
        """No input could be made for this id."""
        self.tot["skipped"] += 1

    def run(self, i: int, kind: str, name: str, check) -> str | None:
        """``check()`` under the limits (its id written to ``DIR/current`` first, for a parent killing a hung
        worker): its finding text, or a timeout's; the input counted under ``kind``. Returns the finding or None."""
        a, tot = self.a, self.tot
        (a.workdir / "current").write_text(f"{i} {kind} {name!r}")
        wall = getattr(a, "wall_timeout", None)
        signal.setitimer(signal.ITIMER_REAL, wall if wall is not None else a.timeout)
        if wall is not None:
            signal.setitimer(signal.ITIMER_PROF, a.timeout)  # CPU time: the machine may be shared
        t1 = time.monotonic()
        try:
            what = check()
        except FuzzTimeout:
            what = (f"timeout > {a.timeout:g} s CPU or {wall:g} s wall" if wall is not None
                    else f"timeout > {a.timeout:g} s")
            tot["timeouts"] += 1
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.setitimer(signal.ITIMER_PROF, 0)
        tot["slowest"] = sorted(tot["slowest"] + [[round(time.monotonic() - t1, 1), i, kind]], reverse=True)[:5]
        tot["inputs"] += 1
        tot["by_kind"][kind] = tot["by_kind"].get(kind, 0) + 1
        if what is None:
            tot["ok"] += 1
        else:
            tot["findings_by_kind"][kind] = tot["findings_by_kind"].get(kind, 0) + 1
        return what

    def record(self, path: Path, finding: dict, keep: bool = True) -> None:
        """Record a finding (``i``, ``kind``, ``what`` …) with a copy of its input (``keep``: a FIFO or a link loop
        cannot be copied, then only the record), and say it on stderr when one input was asked for."""
        try:
            if not keep:
                raise OSError("not kept: a file-system mutant, remade by --only")
            restore_permissions(path.parent)
            record_finding(self.tot, self.fdir, self.a.workdir, path, finding)
        except OSError as exc:
            log_finding(self.tot, self.a.workdir, {**finding, "file": f"({exc})"})
        if self.a.only is not None:
            print(finding.get("what"), file=sys.stderr)

    def done(self) -> int:
        """Print the totals as one JSON line; the exit status (0)."""
        self.tot["seconds"] = round(time.monotonic() - self.t0, 1)
        print(json.dumps(self.tot))
        return 0


def _keep(path: Path, keep: Path) -> None:
    if path.is_dir():
        shutil.copytree(path, keep, dirs_exist_ok=True)
    else:
        shutil.copyfile(path, keep)


def kind_campaign(argv: list[str] | None, kinds: list[str], make, one, seed: int, timeout: float = 30.0,
                  cli_every: int = 3, keep=lambda kind: True, rng_step: int = 104_729, options=None,
                  more_seeds=None) -> int:
    """The driver of a mutation-kind campaign (tests/fuzz_s10.py, fuzz_s11.py, fuzz_s34.py, fuzz_s35.py): the
    command line (``--seed --count --start --workdir --timeout --wall-timeout --cli-every --only --kinds``, and what
    ``options(parser)`` adds), the seeds (with ``more_seeds(args)`` → {name: path} added), and per input id a kind
    drawn by ``random.Random(seed * rng_step + i)``, ``make(rng, seeds, names, work, i, kind)`` → (mutant, seed) or
    None, then ``one(kind, rng, path, work, strict, cli)`` → the finding text or None under the limits; a finding
    is recorded with a copy of its input when ``keep(kind)``. Prints the totals (:meth:`Campaign.done`)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=seed)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--workdir", type=Path, required=True)
    ap.add_argument("--timeout", type=float, default=timeout, help="CPU seconds of this process per input")
    ap.add_argument("--wall-timeout", type=float, default=120.0)
    ap.add_argument("--cli-every", type=int, default=cli_every)
    ap.add_argument("--only", type=int, default=None)
    ap.add_argument("--kinds", default=",".join(kinds))
    if options is not None:
        options(ap)
    a = ap.parse_args(argv)
    c = Campaign(a)
    seeds = write_seeds(a.workdir / "seeds")
    names = sorted(seeds)
    if more_seeds is not None:
        more = more_seeds(a)
        seeds.update(more)
        names += sorted(more)
    chosen = a.kinds.split(",")
    for i in c.indices():
        rng = random.Random(a.seed * rng_step + i)
        kind = rng.choice(chosen)
        made, work = c.attempt(lambda w: make(rng, seeds, names, w, i, kind))
        if made is None:
            c.skip()
            continue
        path, src = made
        strict = i % 3 != 2
        what = c.run(i, kind, path.name, lambda: one(kind, rng, path, work, strict, i % a.cli_every == 0))
        if what is not None:
            c.record(path, {"i": i, "kind": kind, "strict": strict, "seed": str(src), "what": what},
                     keep=keep(kind))
    return c.done()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--workdir", type=Path, required=True)
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--cli-every", type=int, default=10)
    ap.add_argument("--analyze-every", type=int, default=1)
    ap.add_argument("--formats", default="", help="comma-separated SEEDS keys (default: all)")
    ap.add_argument("--keep-wrapped", action="store_true", help="keep one input per wrapped-error place")
    ap.add_argument("--extended", action="store_true",
                    help="structure-aware mutators, folder and case seeds, impossible-figure check (tests/fuzz_more)")
    a = ap.parse_args(argv)
    import warnings

    warnings.simplefilter("ignore")
    os.environ.setdefault("GPULENS_CACHE_DIR", str(a.workdir / "cache"))
    seeds = write_seeds(a.workdir / "seeds", extended=a.extended)
    findings_dir = a.workdir / "findings"
    findings_dir.mkdir(exist_ok=True)
    work = a.workdir / "inputs"
    signal.signal(signal.SIGALRM, _alarm)
    totals: dict = {"inputs": 0, "ok": 0, "partial": 0, "gpulens_errors": {}, "syntax": {}, "wrapped": {},
                     "cli_runs": 0,
                     "findings": [], "timeouts": 0, "by_format": {}}
    formats = sorted(seeds) if not a.formats else [f for f in sorted(seeds) if f in a.formats.split(",")]
    seeds = {f: seeds[f] for f in formats}
    t0 = time.monotonic()
    for i in range(a.start, a.start + a.count):
        rng = random.Random(a.seed * 1_000_003 + i)
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        path = make_input(rng, seeds, work, i, extended=a.extended)
        (a.workdir / "current").write_text(f"{i} {path.name}")
        cli = a.cli_every > 0 and i % a.cli_every == 0
        strict = i % 4 != 3
        signal.setitimer(signal.ITIMER_REAL, a.timeout)
        try:
            res = run_one(path, strict, cli, work / "out.json", analyze=a.analyze_every > 0 and
                          i % a.analyze_every == 0)
        except FuzzTimeout:
            res = f"timeout > {a.timeout:g} s"
            totals["timeouts"] += 1
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        totals["inputs"] += 1
        totals["cli_runs"] += cli
        fmt = path.name.split("_", 1)[1]
        totals["by_format"][fmt] = totals["by_format"].get(fmt, 0) + 1
        if res is None:
            totals["ok"] += 1
        elif res == "partial":
            totals["partial"] += 1
        elif res.startswith("gpulens:"):
            k = res.split(":", 1)[1]
            totals["gpulens_errors"][k] = totals["gpulens_errors"].get(k, 0) + 1
        elif res.startswith(("wrapped:", "syntax:")):
            bucket, k = res.split(":", 1)
            if k not in totals[bucket] and a.keep_wrapped:
                _keep(path, findings_dir / f"{bucket}_{i}_{path.name}")
            totals[bucket][k] = totals[bucket].get(k, 0) + 1
        else:
            keep = findings_dir / f"{i}_{path.name}"
            _keep(path, keep)
            totals["findings"].append({"input": i, "file": str(keep), "strict": strict, "cli": cli, "what": res})
            with open(a.workdir / "findings.jsonl", "a") as fh:  # as they come: a killed campaign keeps them
                fh.write(json.dumps(totals["findings"][-1]) + "\n")
    totals["seconds"] = round(time.monotonic() - t0, 1)
    totals["max_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    print(json.dumps(totals))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))
    sys.exit(main())
