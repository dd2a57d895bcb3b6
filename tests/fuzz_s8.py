"""Eighth-session fuzzing: mutation kinds no earlier fuzzer makes, through analyze (every report) and, for some
inputs, ``diff``, ``gate`` and the CSV/Parquet/Perfetto exports.

``python tests/fuzz_s8.py --seed S --count N --workdir DIR``. Seeds: :func:`tests.fuzzing.write_seeds` (every
format, the folders, every case) plus, with ``--extra DIR``, small real files (< 2 MB) found under DIR. Kinds
(:data:`KINDS`):

* ``utf16`` — the text re-encoded UTF-16 (LE/BE, with or without BOM; Excel's "Unicode text" saves CSV so);
* ``sci_ts`` — every timestamp-like number written in scientific notation (``1.615207264505e+15``);
* ``shuffle`` — JSON events / CSV rows in random order;
* ``overlap`` — kernels of one stream made to overlap each other, some zero-length;
* ``flows`` — flow events (``ph`` s/f/t, ``ac2g``) without partners, ids of odd types;
* ``ids_str`` — every pid/tid written as a string (``"7"``, ``"stream 7"``, ``""``);
* ``nul`` — NUL bytes inside strings and between tokens;
* ``num_every`` — every number of every record set to one of NaN text, ±huge, negative, 0 (independently);
* ``sep_line`` — Excel's ``sep=,`` line before the CSV header; ``semicolon`` — ``;``-delimited CSV (decimal commas);
* ``quoted_nl`` — newlines inside quoted CSV fields (kernel names); ``csv_cols`` — a column added to / dropped
  from every line;
* ``sqlite_2gb`` — the SQLite header's page count set to declare ~2 GB; ``sqlite_cols`` — a column added to /
  dropped from every table.

A finding: an exception other than a one-line GpulensError naming the file, a hang past ``--timeout`` s, an
impossible figure or bad text in any report (:func:`tests.fuzz_fresh.check`), or for the CLI commands an exit code
outside the documented ones (:data:`tests.fuzz_cli.ALLOWED`), a traceback, or a multi-line exit-2 message.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import random
import re
import shutil
import sqlite3
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzzing  # noqa: E402

KINDS = ["utf16", "sci_ts", "shuffle", "overlap", "flows", "ids_str", "nul", "num_every", "sep_line", "semicolon",
         "quoted_nl", "csv_cols", "sqlite_2gb", "sqlite_cols"]
ODD_NUMBERS = ["NaN", "nan", "1e400", "-1e400", "-1", "0", "18446744073709551616", "-9223372036854775809",
               "1.5e+300", "-0"]
_TS_KEYS = re.compile(rb'("(?:ts|dur|start|end|start_timestamp|end_timestamp|BeginNs|EndNs)"\s*:\s*)(-?\d{4,})')


# ------------------------------------------------------------------------------------------------------ JSON
def _events(doc):
    if isinstance(doc, list):
        return doc
    if isinstance(doc, dict):
        ev = doc.get("traceEvents")
        if isinstance(ev, list):
            return ev
        for t in doc.get("rocprofiler-sdk-tool", []) if isinstance(doc.get("rocprofiler-sdk-tool"), list) else []:
            br = t.get("buffer_records", {}) if isinstance(t, dict) else {}
            if isinstance(br, dict) and isinstance(br.get("kernel_dispatch"), list):
                return br["kernel_dispatch"]
    return None


def _gpu(e) -> bool:
    return isinstance(e, dict) and (str(e.get("cat", "")).lower() in ("kernel", "gpu_memcpy", "gpu_memset")
                                    or "dispatch_info" in e)


def mutate_json(rng: random.Random, kind: str, data: bytes) -> bytes | None:
    try:
        doc = json.loads(data.decode("utf-8", errors="replace"))
    except ValueError:
        return None
    evs = _events(doc)
    if evs is None:
        return None
    if kind == "shuffle":
        rng.shuffle(evs)
    elif kind == "overlap":
        k = [e for e in evs if _gpu(e)]
        for a, b in zip(k, k[1:]):
            for t0, t1 in (("ts", "dur"), ("start_timestamp", "end_timestamp")):
                if isinstance(a.get(t0), (int, float)) and isinstance(b.get(t0), (int, float)):
                    b[t0] = a[t0] + (0 if rng.random() < 0.3 else 1)  # starts inside (or with) the previous one
                    if rng.random() < 0.3:
                        b[t1] = 0 if t1 == "dur" else b[t0]  # zero-length
                    elif t1 == "end_timestamp" and isinstance(b.get(t1), (int, float)):
                        b[t1] = max(b[t1], b[t0])
    elif kind == "flows":
        base = next((e.get("ts") for e in evs if isinstance(e, dict) and isinstance(e.get("ts"), (int, float))), 0)
        for i in range(rng.randint(1, 6)):
            evs.append({"ph": rng.choice(["s", "f", "t"]), "cat": rng.choice(["ac2g", "fwdbwd", "async"]),
                        "name": "flow", "id": rng.choice([i, str(i), None, [], -1, 2 ** 70, "x"]),
                        "pid": rng.choice([0, 1, "0"]), "tid": rng.choice([7, "stream 7", 1]),
                        "ts": base + rng.choice([0, 5, -5, 1e15]), "bp": "e"})
    elif kind == "ids_str":
        choice = rng.choice(["num", "label", "empty", "mixed"])
        for e in evs:
            if not isinstance(e, dict):
                continue
            for key in ("pid", "tid"):
                if key in e:
                    v = e[key]
                    e[key] = {"num": str(v), "label": f"{key} {v}", "empty": ""}.get(
                        choice, rng.choice([str(v), f"stream {v}", "", v]))
    elif kind == "num_every":
        def walk(o):
            if isinstance(o, dict):
                for k, v in o.items():
                    if isinstance(v, (int, float)) and not isinstance(v, bool) and rng.random() < 0.5:
                        o[k] = _ODD_SENTINEL + rng.choice(ODD_NUMBERS)
                    else:
                        walk(v)
            elif isinstance(o, list):
                for v in o:
                    walk(v)
        walk(evs)
        text = json.dumps(doc)
        return re.sub(r'"%s([^"]*)"' % re.escape(_ODD_SENTINEL), lambda m: m.group(1), text).encode()
    else:
        return None
    return json.dumps(doc).encode()


_ODD_SENTINEL = "\u2063odd:"


def sci_ts(data: bytes) -> bytes:
    def sci(m: re.Match) -> bytes:
        v = int(m.group(2))
        return m.group(1) + (b"%.15e" % v if abs(v) < 2 ** 53 else m.group(2))
    return _TS_KEYS.sub(sci, data)


def nul(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    quotes = [m.start() for m in re.finditer(rb'"', data[:500_000])]
    for _ in range(rng.randint(1, 5)):
        if quotes and rng.random() < 0.7:
            p = rng.choice(quotes) + 1  # inside a string (just after a quote)
        else:
            p = rng.randrange(len(b) + 1)
        b[p:p] = b"\x00"
    return bytes(b)


# ------------------------------------------------------------------------------------------------------- CSV
def _csv_lines(data: bytes) -> list[bytes] | None:
    lines = data.split(b"\n")
    return lines if len(lines) >= 2 and lines[0].count(b",") >= 2 else None


def mutate_csv(rng: random.Random, kind: str, data: bytes) -> bytes | None:
    import csv

    text = data.decode("utf-8", errors="replace")
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error:
        return None
    hi = next((i for i, r in enumerate(rows[:20]) if len(r) >= 3), None)
    if hi is None:
        return None
    pre, header, body = rows[:hi], rows[hi], rows[hi + 1:]
    delim, out_rows = ",", None
    if kind == "sep_line":
        return b"sep=,\r\n" + data
    if kind == "semicolon":
        delim = ";"
        body = [[f.replace(".", ",") if re.fullmatch(r"-?\d+\.\d+", f) else f for f in r] for r in body]
    elif kind == "quoted_nl":
        ni = next((i for i, h in enumerate(header) if "name" in h.lower()), None)
        if ni is None:
            return None
        body = [r[:ni] + [r[ni][: len(r[ni]) // 2] + rng.choice(["\n", "\r\n", "\n\n"]) + r[ni][len(r[ni]) // 2:]]
                + r[ni + 1:] if len(r) > ni else r for r in body]
    elif kind == "csv_cols":
        if rng.random() < 0.5:
            j = rng.randrange(len(header) + 1)
            header = header[:j] + ["Extra_Column"] + header[j:]
            body = [r[:j] + [rng.choice(["", "x", "1", "nan"])] + r[j:] for r in body]
        else:
            j = rng.randrange(len(header))
            header = header[:j] + header[j + 1:]
            body = [r[:j] + r[j + 1:] for r in body]
    elif kind == "shuffle":
        rng.shuffle(body)
    elif kind == "sci_ts":
        body = [[("%.6e" % int(f)) if re.fullmatch(r"\d{7,18}", f) else f for f in r] for r in body]
    else:
        return None
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=delim, lineterminator="\n")
    for r in (out_rows or pre + [header] + body):
        w.writerow(r)
    return buf.getvalue().encode()


# ---------------------------------------------------------------------------------------------------- SQLite
def mutate_sqlite(rng: random.Random, kind: str, path: Path) -> None:
    if kind == "sqlite_2gb":
        b = bytearray(path.read_bytes())
        page = int.from_bytes(b[16:18], "big") or 65536
        b[28:32] = (2 ** 31 // page + rng.randint(0, 5)).to_bytes(4, "big")  # header's page count: ~2 GB
        path.write_bytes(bytes(b))
        return
    con = sqlite3.connect(path)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        add = rng.random() < 0.5
        for t in tables:
            cols = [r[1] for r in con.execute(f'PRAGMA table_info("{t}")')]
            try:
                if add:
                    con.execute(f'ALTER TABLE "{t}" ADD COLUMN "extra_{rng.randrange(9)}" TEXT DEFAULT \'x\'')
                elif len(cols) > 1:
                    con.execute(f'ALTER TABLE "{t}" DROP COLUMN "{rng.choice(cols)}"')
            except sqlite3.Error:
                pass
        con.commit()
    finally:
        con.close()


# ------------------------------------------------------------------------------------------------ dispatch
def mutate_file(rng: random.Random, f: Path) -> str:
    raw = f.read_bytes()
    if raw[:16] == b"SQLite format 3\x00":
        kind = rng.choice(["sqlite_2gb", "sqlite_cols"])
        mutate_sqlite(rng, kind, f)
        return kind
    gz = raw[:2] == b"\x1f\x8b"
    try:
        data = gzip.decompress(raw) if gz else raw
    except (OSError, EOFError):
        return "none"
    is_json = data.lstrip()[:1] in (b"{", b"[")
    kinds = (["utf16", "sci_ts", "shuffle", "overlap", "flows", "ids_str", "nul", "num_every"] if is_json else
             ["utf16", "sci_ts", "shuffle", "nul", "sep_line", "semicolon", "quoted_nl", "csv_cols"])
    kind = rng.choice(kinds)
    out = None
    if kind == "utf16":
        enc = rng.choice(["utf-16", "utf-16-le", "utf-16-be"])
        out = data.decode("utf-8", errors="replace").encode(enc)
    elif kind == "nul":
        out = nul(rng, data)
    elif kind == "sci_ts" and is_json:
        out = sci_ts(data)
    elif is_json:
        out = mutate_json(rng, kind, data)
    else:
        out = mutate_csv(rng, kind, data)
    if out is None:
        return "none"
    f.write_bytes(gzip.compress(out, compresslevel=1) if gz and rng.random() < 0.8 else out)
    return kind


def extra_seeds(root: Path, limit: int = 2_000_000) -> dict[str, Path]:
    """Small real files under ``root`` (traces of other projects), keyed ``extra_<relative path>``."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.stat().st_size < limit and p.suffix.lower() in (".json", ".gz", ".csv", ".sqlite",
                                                                              ".db", ".txt"):
            out[f"extra_{p.relative_to(root)}"] = p
    return out


def run_cli(args: list[str]) -> tuple[int, str]:
    from gpulens.cli import main

    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            code = main(args)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 2
    return code, err.getvalue() + out.getvalue()


def check_cli(path: Path, seed: Path, work: Path, rng: random.Random) -> str | None:
    """diff (seed vs mutant), gate (mutant against the seed's JSON report) and the table/trace exports."""
    from tests.fuzz_cli import ALLOWED

    rep = work / "seed.json"
    code, text = run_cli(["analyze", str(seed), "-q", "--no-cache", "--json", str(rep)])
    runs = [("diff", ["diff", str(seed), str(path)]),
            ("analyze", ["analyze", str(path), "-q", "--no-cache", "--csv", str(work / "csv"),
                         "--perfetto", str(work / "p.json")] + (["--parquet", str(work / "pq")]
                                                                  if rng.random() < 0.3 else []))]
    if rep.exists():
        runs.append(("gate", ["gate", str(path), "--baseline", str(rep)]))
    for cmd, args in runs:
        code, text = run_cli(args)
        if code not in ALLOWED[cmd] or "Traceback" in text:
            return f"{cmd} exit {code}: {text.strip()[-300:]!r}"
        if code == 2 and cmd != "gate" and len([ln for ln in text.strip().splitlines() if ln.strip()]) > 1 \
                and "error" in text.lower() and text.strip().count("gpulens: error") > 1:
            return f"{cmd} exit 2 with more than one error line: {text.strip()[:300]!r}"
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=8008)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--workdir", type=Path, required=True)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--cli-every", type=int, default=4)
    ap.add_argument("--extra", type=Path, action="append", default=[])
    ap.add_argument("--only", type=int, default=None)
    a = ap.parse_args(argv)
    from tests.fuzz_fresh import check

    c = fuzzing.Campaign(a)
    seeds = fuzzing.write_seeds(a.workdir / "seeds")
    for root in a.extra:
        if root.is_dir():
            seeds.update(extra_seeds(root))
    names = sorted(seeds)
    for i in c.indices():
        rng = random.Random(a.seed * 7919 + i)
        work = c.work()
        seed = seeds[rng.choice(names)]
        path = work / f"in{i}_{seed.name}"
        if seed.is_dir():
            shutil.copytree(seed, path)
            files = sorted(p for p in path.rglob("*") if p.is_file())
            kind = mutate_file(rng, rng.choice(files)) if files else "none"
        else:
            shutil.copyfile(seed, path)
            kind = mutate_file(rng, path)
        if kind == "none":
            c.skip()
            continue
        strict = i % 3 != 2

        def one() -> str | None:
            what = check(path, strict)
            return check_cli(path, seed, work, rng) if what is None and i % a.cli_every == 0 else what

        what = c.run(i, kind, path.name, one)
        if what is not None:
            c.record(path, {"i": i, "kind": kind, "strict": strict, "seed": str(seed), "what": what})
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
