"""Tenth-session fuzzing: mutation kinds no earlier fuzzer makes (tests/fuzzing.py, fuzz_more, fuzz_fresh, fuzz_cli,
fuzz_s8, fuzz_s9), through ``gpulens.analyze`` and every report, the ``analyze`` command with every report, and
``diff`` / ``gate`` on mutated reports and baselines.

``python tests/fuzz_s10.py --seed S --count N --workdir DIR [--timeout 30] [--extra DIR] [--kinds a,b]``. Kinds
(:data:`KINDS`):

* ``fs_odd`` — the path is not a plain readable file: a folder named like a trace, an empty folder, a FIFO (a read
  blocks forever), a file without read permission, a broken symlink, a symlink loop, a folder holding only
  non-trace files;
* ``odd_path`` — a good trace (or a file of a folder) under an odd name: a newline, a leading ``-``, spaces,
  non-ASCII, bytes that are not UTF-8, an escape sequence, a 200-byte name;
* ``far_time`` — 1–3 timestamps moved to year 2300 (ns since the epoch above 2**63 for ns clocks), before 1970,
  or one event thrown ±10**15 away from the rest;
* ``dur_span`` — one GPU event given a duration 10–1000x the whole trace's span (or 2**62);
* ``single`` — only one GPU event kept (or none, or only the metadata);
* ``flood`` — one GPU event (or CPU op / runtime call) repeated to ~1 MB of text (identical copies, back to back,
  or each on its own stream/queue/thread):
  any run above ``--timeout`` is a hang (a quadratic path);
* ``long_name`` — kernel names of 100 kB, with non-ASCII and markup;
* ``json_tail`` — a JSON document followed by garbage, a second document, NULs, or turned into JSON lines;
* ``gz_odd`` — gzip twice, two gzip members, trailing garbage after the gzip stream, bz2/xz/zlib payloads under
  the trace's name;
* ``ph_odd`` — Chrome events as ``B``/``E`` pairs (some unmatched), instants, counters, ``ph`` missing;
* ``sqlite_nulls`` — every cell of 1–3 tables NULL, or every id column written as text (``'12'``), or every time
  as REAL, or the times of one row thrown far away (9e18, -1e15, +1e17, 1e19 as REAL); ``sqlite_view`` — a table
  replaced by a view of the same name (or a table with no rows but a view);
* ``csv_dirty`` — BOM + CRLF + NUL bytes inside fields, columns reordered and renamed in one input;
* ``ranks_many`` — a rank folder of 300–1500 tiny rank files (duplicate rank ids, nested folders);
* ``report_mut`` — a JSON report (or a baseline) mutated by whole key: every ``*_ns`` set to one odd value
  (NaN literal, string, list, null, 2**64, -0), a section deleted or nulled; then ``diff`` and ``gate``; and a
  saved baseline's samples / shares / call counts given one odd value, then ``gate`` against it;
* ``csv_numfmt`` — CSV numbers written with thousands separators (quoted ``"1,234,567"``), a leading ``+``,
  padding spaces, a unit suffix (``"12 us"``) or in hex;
* ``ids_odd`` — device / stream / queue ids of GPU events set to 2**40, -1, 65535, 1e20, ``"0x1f"`` or ``true``;
* ``dup_events`` — every GPU event (or every record) written twice, exactly;
* ``cache_corrupt`` — an analysis cached, then every cache file cut, flipped or emptied; the second run must give
  the same JSON report as a fresh run (or the same error).

A finding: an exception other than a one-line GpulensError naming the file, a hang past ``--timeout`` s of CPU
(this process) or ``--wall-timeout`` s of wall time (a blocked read, worker processes), an
impossible figure or bad text in any report (:func:`tests.fuzz_s9.check`), a NaN/Infinity token in the JSON report
text, a GPU span above one day without a warning, or for the commands an undocumented exit code, a traceback, or an
exit-2 message that is not one line. Findings go to ``DIR/findings.jsonl`` (input kept under ``DIR/findings``);
the totals (runs, by kind, findings by kind, slowest runs) are printed as one JSON line.
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import json
import lzma
import os
import random
import re
import shutil
import sqlite3
import sys
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzzing  # noqa: E402

KINDS = ["fs_odd", "odd_path", "far_time", "dur_span", "single", "flood", "long_name", "json_tail", "gz_odd",
         "ph_odd", "sqlite_nulls", "sqlite_view", "csv_dirty", "ranks_many", "report_mut", "cache_corrupt",
         "csv_numfmt", "ids_odd", "dup_events"]
DAY_NS = 86_400 * 10**9
_TS = re.compile(rb'("(?:ts|start|start_timestamp|BeginNs|Start_Timestamp|begin_ns|Start \(ns\))"\s*:\s*)'
                 rb'("?)(-?\d+(?:\.\d+)?)("?)')


# ------------------------------------------------------------------------------------------------------ helpers
def _text_of(raw: bytes) -> tuple[bytes, bool]:
    if raw[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(raw), True
        except (OSError, EOFError):
            return raw, False
    return raw, False


def _is_json(data: bytes) -> bool:
    return data.lstrip(b"\xef\xbb\xbf \r\n\t")[:1] in (b"{", b"[")


def _events(doc) -> list | None:
    """The list holding the records: trace events, rocprofv3's kernel dispatches, or a top-level list."""
    if isinstance(doc, list):
        return doc
    if isinstance(doc, dict):
        if isinstance(doc.get("traceEvents"), list):
            return doc["traceEvents"]
        tools = doc.get("rocprofiler-sdk-tool")
        if isinstance(tools, list):
            for t in tools:
                br = t.get("buffer_records") if isinstance(t, dict) else None
                if isinstance(br, dict) and isinstance(br.get("kernel_dispatch"), list):
                    return br["kernel_dispatch"]
    return None


def _gpu(e) -> bool:
    return isinstance(e, dict) and (str(e.get("cat", "")).lower() in ("kernel", "gpu_memcpy", "gpu_memset")
                                    or "dispatch_info" in e or str(e.get("pid", "")).startswith("GPU"))


def _t0(e) -> tuple[str, str] | None:
    for a, b in (("ts", "dur"), ("start_timestamp", "end_timestamp")):
        if isinstance(e.get(a), (int, float)) and isinstance(e.get(b), (int, float)):
            return a, b
    return None


def _csv_split(data: bytes) -> tuple[list[bytes], int | None]:
    lines = data.split(b"\n")
    head = next((i for i, ln in enumerate(lines[:40]) if ln.count(b",") >= 2), None)
    return lines, head


# ------------------------------------------------------------------------------------------------ text kinds
def far_time(rng: random.Random, data: bytes) -> bytes | None:
    spans = [m for m in _TS.finditer(data[:3_000_000])]
    if not spans:
        lines, head = _csv_split(data)
        if head is None:
            return None
        cols = [c.strip(b'" \r').lower() for c in lines[head].split(b",")]
        tcols = [i for i, c in enumerate(cols) if re.search(rb"start|begin|time|ts", c)]
        rows = [i for i in range(head + 1, len(lines)) if lines[i].strip()]
        if not tcols or not rows:
            return None
        for r in rng.sample(rows, min(len(rows), rng.randint(1, 3))):
            f = lines[r].split(b",")
            c = rng.choice(tcols)
            if c < len(f):
                f[c] = rng.choice([b"10413792000000000000", b"-1000000000", b"-86400000000000",
                                   b"1000000000000000000"])
            lines[r] = b",".join(f)
        return b"\n".join(lines)
    for m in sorted(rng.sample(spans, min(len(spans), rng.randint(1, 3))), key=lambda m: -m.start()):
        v = float(m.group(3))
        new = rng.choice([10413792000 * 10**6, 10413792000 * 10**9, -10**9, -86400 * 10**6, int(v) + 10**15,
                          int(v) - 10**15, int(v) * 1000])
        data = data[:m.start(3)] + str(new).encode() + data[m.end(3):]
    return data


def json_whole(rng: random.Random, kind: str, data: bytes) -> bytes | None:
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return None
    evs = _events(doc)
    if evs is None:
        return None
    gpu = [e for e in evs if _gpu(e)]
    if kind == "dur_span":
        timed = [(e, _t0(e)) for e in gpu if _t0(e)]
        if not timed:
            return None
        starts = [e[k[0]] for e, k in timed]
        span = max(max(starts) - min(starts), 1)
        e, (a, b) = rng.choice(timed)
        big = rng.choice([span * 10, span * 1000, 2 ** 62])
        e[b] = big if b == "dur" else e[a] + big
    elif kind == "single":
        op = rng.randrange(3)
        keep = [] if op == 1 or not gpu else [rng.choice(gpu)]
        meta = [e for e in evs if isinstance(e, dict) and e.get("ph") == "M"] if op != 2 else []
        evs[:] = meta + keep if op != 2 else [rng.choice(gpu)] if gpu else []
    elif kind == "flood":
        host = [e for e in evs if isinstance(e, dict) and e.get("ph") == "X" and not _gpu(e)]
        pick = gpu if gpu and (not host or rng.random() < 0.6) else host  # a kernel, or a CPU op / runtime call
        if not pick:
            return None
        one = rng.choice(pick)
        size = len(json.dumps(one)) + 2
        n = max(1, min(60_000, 1_000_000 // size))
        own_stream = rng.random() < 0.4
        out = []
        k = _t0(one)
        for i in range(n):
            e = json.loads(json.dumps(one))
            if own_stream:
                if "tid" in e:
                    e["tid"] = 1000 + i
                if isinstance(e.get("args"), dict):
                    e["args"]["stream"] = 1000 + i
                if isinstance(e.get("dispatch_info"), dict):
                    e["dispatch_info"]["queue_id"] = {"handle": 1000 + i}
            elif k and rng.random() < 0.5:  # back to back
                d = max(int(one[k[1]] if k[1] == "dur" else one[k[1]] - one[k[0]]), 1)
                e[k[0]] = one[k[0]] + i * d
                if k[1] != "dur":
                    e[k[1]] = e[k[0]] + d
            out.append(e)
        evs[:] = ([e for e in evs if not _gpu(e)][:2000] if pick is gpu else [e for e in evs if _gpu(e)][:2000]
                  + [e for e in evs if isinstance(e, dict) and e.get("ph") != "X"][:500]) + out
    elif kind == "long_name":
        if not gpu:
            return None
        for e in rng.sample(gpu, min(len(gpu), rng.randint(1, 3))):
            base = str(e.get("name") or "k")
            e["name"] = base + rng.choice(["<", "é", "\u202e", "&", "_"]) * rng.choice([50_000, 100_000])
            if isinstance(e.get("kernel_id"), int):
                pass
    elif kind == "ph_odd":
        op = rng.randrange(4)
        if not gpu:
            return None
        for e in rng.sample(gpu, min(len(gpu), rng.randint(1, 6))):
            k = _t0(e)
            if op == 0 and k and k[1] == "dur":  # B/E pair, maybe unmatched
                e["ph"] = "B"
                d = e.pop("dur")
                if rng.random() < 0.7:
                    end = dict(e, ph="E", ts=e["ts"] + d)
                    evs.append(end)
            elif op == 1:
                e["ph"] = rng.choice(["i", "I", "n", "C", "b", "e", "P", "O", "R", "x", ""])
            elif op == 2:
                e.pop("ph", None)
            else:
                evs.append({"ph": "C", "name": e.get("name"), "pid": e.get("pid"), "ts": e.get("ts"),
                            "args": {"value": rng.choice([1, -1, 1e308, "x"])}})
    elif kind == "ids_odd":
        if not gpu:
            return None
        val = rng.choice([2 ** 40, -1, 65535, 1e20, "0x1f", True, 2 ** 63, "", None])
        for e in gpu:
            args = e.get("args") if isinstance(e.get("args"), dict) else e
            for k in ("device", "stream", "queue", "queue_id", "agent_id", "dev-id", "queue-id"):
                if k in args and rng.random() < 0.8:
                    args[k] = val if not isinstance(args[k], dict) else {"handle": val}
    elif kind == "dup_events":
        base = gpu if rng.random() < 0.6 else [e for e in evs if isinstance(e, dict)]
        if not base:
            return None
        evs.extend(json.loads(json.dumps(base)))
    else:
        return None
    return json.dumps(doc, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")


def csv_whole(rng: random.Random, kind: str, data: bytes) -> bytes | None:
    lines, head = _csv_split(data)
    if head is None:
        return None
    rows = [i for i in range(head + 1, len(lines)) if lines[i].strip()]
    if not rows:
        return None
    if kind == "single":
        keep = [] if rng.random() < 0.3 else [rng.choice(rows)]
        return b"\n".join(lines[:head + 1] + [lines[i] for i in keep]) + b"\n"
    if kind == "flood":
        one = lines[rng.choice(rows)].rstrip(b"\r")
        n = max(1, min(60_000, 1_000_000 // (len(one) + 1)))
        return b"\n".join(lines[:head + 1] + [one] * n) + b"\n"
    if kind == "long_name":
        cols = [c.strip(b'" \r').lower() for c in lines[head].split(b",")]
        ni = next((i for i, c in enumerate(cols) if b"name" in c), None)
        if ni is None:
            return None
        for r in rng.sample(rows, min(len(rows), rng.randint(1, 3))):
            f = lines[r].split(b",")
            if ni < len(f):
                f[ni] = b'"' + f[ni].strip(b'"') + rng.choice([b"k", "\u00e9".encode(), b"<b>"]) * 100_000 + b'"'
            lines[r] = b",".join(f)
        return b"\n".join(lines)
    if kind == "dur_span":
        cols = [c.strip(b'" \r').lower() for c in lines[head].split(b",")]
        di = [i for i, c in enumerate(cols) if re.search(rb"dur|end|total", c)]
        if not di:
            return None
        r = rng.choice(rows)
        f = lines[r].split(b",")
        c = rng.choice(di)
        if c < len(f):
            f[c] = rng.choice([b"4611686018427387904", b"999999999999999999", b"1e18"])
        lines[r] = b",".join(f)
        return b"\n".join(lines)
    if kind == "dup_events":
        return b"\n".join(lines[:head + 1] + [ln for i in rows for ln in (lines[i], lines[i])]) + b"\n"
    if kind == "csv_numfmt":
        fmt = rng.randrange(5)

        def one(m: re.Match) -> bytes:
            v = int(m.group(0))
            return [b'"%s"' % f"{v:,}".encode(), b"+%d" % v, b"  %d  " % v, b"%d us" % v, b"0x%x" % v][fmt]
        for r in rng.sample(rows, min(len(rows), rng.randint(1, len(rows)))):
            lines[r] = re.sub(rb"(?<![\w.\"])\d{4,}(?![\w.\"])", one, lines[r])
        return b"\n".join(lines)
    if kind == "csv_dirty":
        header = lines[head].rstrip(b"\r").split(b",")
        body = [lines[i].rstrip(b"\r").split(b",") for i in rows]
        if all(len(b) == len(header) for b in body) and rng.random() < 0.5:
            perm = list(range(len(header)))
            rng.shuffle(perm)
            header = [header[p] for p in perm]
            body = [[b[p] for p in perm] for b in body]
        if rng.random() < 0.5:
            j = rng.randrange(len(header))
            header[j] = rng.choice([header[j].upper(), b" " + header[j] + b" ", header[j].replace(b"_", b" "),
                                    b'"' + header[j].strip(b'"') + b'"'])
        for b in rng.sample(body, min(len(body), 3)):
            j = rng.randrange(len(b))
            b[j] = b[j][:1] + b"\x00" + b[j][1:]
        return b"\xef\xbb\xbf" + b"\r\n".join([b",".join(x) for x in [header] + body]) + b"\r\n"
    return None


def json_tail(rng: random.Random, data: bytes) -> bytes | None:
    if not _is_json(data):
        return None
    op = rng.randrange(5)
    if op == 0:
        return data + rng.choice([b"garbage", b"\n}", b"]", b",", b"\x00\x00\x00"])
    if op == 1:
        return data + b"\n" + data
    if op == 2:
        return data + b"\x00" * rng.randint(1, 4096)
    if op == 3:
        try:
            doc = json.loads(data)
        except ValueError:
            return None
        evs = _events(doc)
        return b"\n".join(json.dumps(e).encode() for e in (evs or [])[:5000]) + b"\n" if evs else None
    return b"\n" * rng.randint(1, 3) + data.rstrip() + b"\n\n   \n"


def gz_odd(rng: random.Random, raw: bytes) -> bytes:
    data, _ = _text_of(raw)
    op = rng.randrange(6)
    if op == 0:
        return gzip.compress(gzip.compress(data, 1), 1)
    if op == 1:
        cut = rng.randrange(1, max(2, len(data)))
        return gzip.compress(data[:cut], 1) + gzip.compress(data[cut:], 1)
    if op == 2:
        return gzip.compress(data, 1) + rng.choice([b"garbage", b"\x00" * 512, b"\x1f\x8b"])
    if op == 3:
        return bz2.compress(data)
    if op == 4:
        return lzma.compress(data)
    return zlib.compress(data)


# --------------------------------------------------------------------------------------------------- SQLite
def sqlite_nulls(rng: random.Random, f: Path) -> bool:
    con = sqlite3.connect(f)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE "
                                            "'sqlite_%'")]
        if not tables:
            return False
        op = rng.randrange(4)
        for t in rng.sample(tables, min(len(tables), rng.randint(1, 3))):
            cols = [(r[1], (r[2] or "").upper()) for r in con.execute(f"PRAGMA table_info([{t}])")]
            try:
                for c, typ in cols:
                    if op == 0:
                        con.execute(f"UPDATE [{t}] SET [{c}] = NULL")
                    elif op == 1 and (c.lower().endswith("id") or "id" in c.lower()):
                        con.execute(f"UPDATE [{t}] SET [{c}] = CAST([{c}] AS TEXT) || ''")
                    elif op == 2 and re.search(r"start|end|begin|time|ns", c, re.I):
                        con.execute(f"UPDATE [{t}] SET [{c}] = CAST([{c}] AS REAL) + 0.5")
                    elif op == 3 and re.search(r"start|end|begin|time|ns", c, re.I):  # one row far away
                        far = rng.choice(["9000000000000000000", "-1000000000000000", "[{c}] + 100000000000000000",
                                          "1e19"]).format(c=c)
                        con.execute(f"UPDATE [{t}] SET [{c}] = {far} WHERE rowid = (SELECT max(rowid) FROM [{t}])")
            except sqlite3.Error:
                pass
        con.commit()
        return True
    finally:
        con.close()


def sqlite_view(rng: random.Random, f: Path) -> bool:
    con = sqlite3.connect(f)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE "
                                            "'sqlite_%'")]
        if not tables:
            return False
        t = rng.choice(tables)
        try:
            con.executescript(f"ALTER TABLE [{t}] RENAME TO [{t}__base]; "
                              f"CREATE VIEW [{t}] AS SELECT * FROM [{t}__base]"
                              + (" WHERE 0" if rng.random() < 0.3 else "") + ";")
            con.commit()
        except sqlite3.Error:
            return False
        return True
    finally:
        con.close()


# ------------------------------------------------------------------------------------------------ file system
def fs_odd(rng: random.Random, seed: Path, work: Path, i: int) -> Path:
    op = rng.randrange(7)
    name = seed.name if seed.is_file() else f"{seed.name}.json"
    p = work / f"in{i}_{name}"
    if op == 0:
        p.mkdir()
        (p / "notes.txt").write_text("hello\n")
    elif op == 1:
        p.mkdir()
    elif op == 2:
        os.mkfifo(p)
    elif op == 3:
        (shutil.copytree if seed.is_dir() else shutil.copyfile)(seed, p)
        for q in ([p] if p.is_file() else sorted(p.rglob("*"))[:3]):
            q.chmod(0)
    elif op == 4:
        p.symlink_to(work / "nowhere.json")
    elif op == 5:
        p.symlink_to(p)
    else:
        p.mkdir()
        (p / "README.md").write_text("x")
        (p / "data.bin").write_bytes(os.urandom(100))
        (p / "sub").mkdir()
        os.mkfifo(p / "sub" / "pipe.json")
    return p


def odd_path(rng: random.Random, seed: Path, work: Path, i: int) -> Path:
    stem = rng.choice(["a\nb", "-x", "with space", "\u00e9\u4e2d\U0001f600", "n" * 200, "--json", "a;b",
                       os.fsdecode(b"latin\xe9\xff"), "esc\x1b[31m"])
    p = work / f"{stem}_{seed.name}"
    (shutil.copytree if seed.is_dir() else shutil.copyfile)(seed, p)
    if p.is_dir() and rng.random() < 0.5:  # the odd name on a file inside the folder instead
        inner = sorted(q for q in p.rglob("*") if q.is_file())
        if inner:
            q = rng.choice(inner)
            q.rename(q.with_name(f"{stem}_{q.name}"))
    return p


def ranks_many(rng: random.Random, seeds: dict[str, Path], work: Path, i: int) -> Path | None:
    src = next((seeds[k] for k in ("kineto", "case_B13.json", "kineto_b12") if k in seeds), None)
    if src is None:
        return None
    raw = src.read_bytes()
    d = work / f"in{i}_ranks"
    d.mkdir()
    n = rng.choice([300, 800, 1500])
    try:
        doc = json.loads(raw)
    except ValueError:
        return None
    for r in range(n):
        if isinstance(doc, dict):
            doc["distributedInfo"] = {"rank": rng.choice([r, r % 7, str(r), -r]), "world_size": n}
        sub = d / (f"node{r % 4}" if rng.random() < 0.3 else "")
        sub.mkdir(exist_ok=True)
        (sub / f"rank{r}.pt.trace.json").write_text(json.dumps(doc))
    return d


# ------------------------------------------------------------------------------------------------- dispatch
def make(rng: random.Random, seeds: dict[str, Path], names: list[str], work: Path, i: int,
         kind: str) -> tuple[Path, Path] | None:
    """(mutant, seed) for ``kind``; None when ``kind`` does not apply to the drawn seed."""
    pool = names
    if kind.startswith("sqlite"):  # SQLite seeds (and folders of them) only: other seeds never apply
        pool = [n for n in names if seeds[n].suffix in (".db", ".sqlite", ".rocpd") or seeds[n].is_dir()] or names
    seed = seeds[rng.choice(pool)]
    if kind == "fs_odd":
        return fs_odd(rng, seed, work, i), seed
    if kind == "odd_path":
        return odd_path(rng, seed, work, i), seed
    if kind == "ranks_many":
        p = ranks_many(rng, seeds, work, i)
        return (p, p) if p else None
    if kind in ("report_mut", "cache_corrupt"):
        p = work / f"in{i}_{seed.name}"
        (shutil.copytree if seed.is_dir() else shutil.copyfile)(seed, p)
        return p, seed
    p = work / f"in{i}_{seed.name}"
    if seed.is_dir():
        shutil.copytree(seed, p)
        files = sorted(q for q in p.rglob("*") if q.is_file())
        if not files:
            return None
        f = rng.choice(files)
    else:
        shutil.copyfile(seed, p)
        f = p
    raw = f.read_bytes()
    if raw[:16] == b"SQLite format 3\x00":
        if kind == "sqlite_nulls":
            return (p, seed) if sqlite_nulls(rng, f) else None
        if kind == "sqlite_view":
            return (p, seed) if sqlite_view(rng, f) else None
        return None
    if kind in ("sqlite_nulls", "sqlite_view"):
        return None
    if kind == "gz_odd":
        f.write_bytes(gz_odd(rng, raw))
        return p, seed
    data, gz = _text_of(raw)
    js = _is_json(data)
    if kind == "far_time":
        out = far_time(rng, data)
    elif kind == "json_tail":
        out = json_tail(rng, data)
    elif kind == "csv_dirty":
        out = None if js else csv_whole(rng, kind, data)
    elif js:
        out = json_whole(rng, kind, data)
    else:
        out = csv_whole(rng, kind, data)
    if out is None:
        return None
    f.write_bytes(gzip.compress(out, compresslevel=1) if gz else out)
    return p, seed


# ------------------------------------------------------------------------------------------------- checking
def _strict_json(text: str) -> str | None:
    """None when ``text`` is strict JSON (no NaN/Infinity tokens); else what is wrong."""
    def bad(tok):
        raise ValueError(f"{tok} token")
    try:
        json.loads(text, parse_constant=bad)
    except ValueError as exc:
        return str(exc)[:120]
    return None


def _extra(doc: dict, path: Path) -> list[str]:
    from tests.fuzz_s9 import _more

    bad = _more(doc, path)
    for src in doc.get("sources") or []:
        sm = src.get("summary") or {}
        span = sm.get("span_ns")
        warned = bool(src.get("warnings")) or src.get("status") == "partial" or \
            bool((src.get("timeline") or {}).get("warnings"))
        if isinstance(span, (int, float)) and span > 1.01 * DAY_NS and not warned:  # gpulens splits at a day
            bad.append(f"span_ns {span:.3g} (> 1 day) without a warning")
    return bad


def check(path: Path, strict: bool) -> str | None:
    from tests.fuzz_fresh import check as fresh_check

    return fresh_check(path, strict, _extra)


#: NaN / infinity shown as a figure: in a table cell, or followed by a unit (not a sentence that says "nan/inf").
_NAN_FIGURE = re.compile(r"(?:^|(?<=[\s│|(→:=]))-?(?:nan|NaN|inf|Infinity)"
                         r"(?:\s*(?:%|[µmn]?s\b|B\b|[KMGT]B\b|FLOP|x\b)|\s*[│|]|$)", re.M)


def check_cli(path: Path, work: Path) -> str | None:
    """``gpulens analyze`` with every report (JSON, HTML, Markdown and the console on stdout)."""
    from tests.fuzz_cli import ALLOWED
    from tests.fuzz_s8 import run_cli

    out = work / "o"
    out.mkdir(exist_ok=True)
    code, text = run_cli(["analyze", str(path), "--no-cache", "--json", str(out / "r.json"), "--html",
                          str(out / "r.html"), "--markdown", str(out / "r.md")])
    if code not in ALLOWED["analyze"] or "Traceback" in text:
        return f"analyze exit {code}: {text.strip()[-300:]!r}"
    errs = [ln for ln in text.strip().splitlines() if ln.startswith("gpulens: error")]
    if code == 2 and len(errs) != 1:
        return f"analyze exit 2 without one error line: {text.strip()[:300]!r}"
    shown = "\n".join(ln for ln in text.splitlines() if not ln.startswith("gpulens: error"))  # quotes the file
    if _NAN_FIGURE.search(shown) and "nan" not in path.name.lower():
        m = re.search(r".{0,60}" + _NAN_FIGURE.pattern + r".{0,60}", shown, re.M)
        return f"NaN/inf printed on the console: {m.group(0) if m else ''!r}"
    if code == 0 and (out / "r.json").exists():
        bad = _strict_json((out / "r.json").read_text())
        if bad:
            return f"JSON report not strict JSON: {bad}"
    return None


_ODD_VALUES = ["NaN", "Infinity", "-Infinity", '"12"', "null", "[]", "{}", "18446744073709551616", "-0", "1e308",
               "-1", "true", '"x"']


def mutate_report(rng: random.Random, text: str) -> str:
    """A whole-key mutation of a JSON report: every value of one key (or of every ``*_ns`` key) set to one odd
    value, a section deleted or nulled."""
    op = rng.randrange(4)
    val = rng.choice(_ODD_VALUES)
    if op == 0:
        return re.sub(r'("[a-z_]*_ns"\s*:\s*)(-?[0-9.eE+]+)', lambda m: m.group(1) + val, text)
    if op == 1:
        keys = sorted(set(re.findall(r'"([a-z_]+)"\s*:\s*-?[0-9]', text)))
        if not keys:
            return text
        k = rng.choice(keys)
        return re.sub(r'("%s"\s*:\s*)(-?[0-9.eE+]+)' % re.escape(k), lambda m: m.group(1) + val, text)
    doc = json.loads(text)
    key = rng.choice(["sources", "summary", "analyses", "findings", "schema_version", "devices", "status", "label"])
    targets = [doc] + [s for s in doc.get("sources") or [] if isinstance(s, dict)]
    for t in targets:
        if key in t:
            if op == 2:
                del t[key]
            else:
                t[key] = rng.choice([None, [], {}, "x", 0])
    return json.dumps(doc)


def check_reports(rng: random.Random, path: Path, work: Path) -> str | None:
    """``diff`` and ``gate`` on a report of ``path`` and its whole-key mutant (and the mutant as a baseline)."""
    from tests.fuzz_cli import ALLOWED
    from tests.fuzz_s8 import run_cli

    rep = work / "a.report.json"
    code, text = run_cli(["analyze", str(path), "-q", "--no-cache", "--json", str(rep)])
    if not rep.exists():
        return None
    mut = work / "b.report.json"
    mut.write_text(mutate_report(rng, rep.read_text()))
    store = work / "store"
    runs = [("diff", ["diff", str(rep), str(mut), "--json", str(work / "d.json"), "--markdown", str(work / "d.md"),
                      "--html", str(work / "d.html")]),
            ("diff", ["diff", str(mut), str(rep)]),
            ("gate", ["gate", str(rep), "--baseline", str(mut), "--json", str(work / "g.json"), "--markdown",
                      str(work / "g.md"), "--junit", str(work / "g.xml")]),
            ("gate", ["gate", str(mut), "--baseline", str(rep)]),
            ("baseline", ["baseline", "save", str(mut), "-n", "m", "--store", str(store), "--force"]),
            ("gate", ["gate", str(rep), "-b", "m", "--store", str(store)])]
    good = work / "goodstore"
    run_cli(["baseline", "save", str(rep), "-n", "g", "--store", str(good), "--force"])
    for bl in good.rglob("g.json"):  # the saved baseline's samples / shares / calls given one odd value
        key, val = rng.choice(["samples", "share", "calls"]), rng.choice(_ODD_VALUES + ["1.5", "2.5"])
        bl.write_text(re.sub(r'("%s": \[)([^\]]*)\]' % key, lambda m: m.group(1) + val + "]", bl.read_text()))
        runs.append(("gate", ["gate", str(rep), "-b", "g", "--store", str(good)]))
    for cmd, args in runs:
        code, text = run_cli(args)
        if code not in ALLOWED[cmd] or "Traceback" in text:
            return f"{cmd} exit {code}: {text.strip()[-300:]!r}"
        errs = [ln for ln in text.strip().splitlines() if ln.startswith("gpulens: error")]
        if code == 2 and len(errs) > 1:
            return f"{cmd} exit 2 with {len(errs)} error lines: {text.strip()[:300]!r}"
        if code == 2 and errs and str(mut) not in errs[0] and "baseline" not in errs[0]:
            return f"{cmd} exit 2 not naming the mutated report: {errs[0][:300]!r}"
        shown = "\n".join(ln for ln in text.splitlines() if not ln.startswith("gpulens: error"))
        if _NAN_FIGURE.search(shown):
            m = re.search(r".{0,60}" + _NAN_FIGURE.pattern + r".{0,60}", shown, re.M)
            return f"{cmd}: NaN/inf printed: {m.group(0) if m else ''!r}"
        for out in (work / "d.json", work / "g.json"):
            if out.exists():
                bad = _strict_json(out.read_text())
                out.unlink()
                if bad:
                    return f"{cmd}: {out.name} not strict JSON: {bad}"
    return None


def _norm(doc: dict) -> str:
    text = json.dumps(doc, sort_keys=True)
    return re.sub(r'"(created|generated_at|created_at|cached|elapsed_s|elapsed|analysis_s)": [^,}]+', "", text)


def check_cache(rng: random.Random, path: Path, work: Path) -> str | None:
    """Analyze with a fresh cache; corrupt every cache file; analyze again: the same report (or the same exit)."""
    from tests.fuzz_s8 import run_cli

    cache = work / "cache"
    old = os.environ.get("GPULENS_CACHE_DIR")
    os.environ["GPULENS_CACHE_DIR"] = str(cache)
    os.environ["GPULENS_CACHE_MIN_BYTES"] = "0"
    try:
        a, b = work / "a.json", work / "b.json"
        code1, t1 = run_cli(["analyze", str(path), "-q", "--json", str(a)])
        files = [q for q in cache.rglob("*") if q.is_file()] if cache.exists() else []
        if not files:
            return None
        op = rng.randrange(4)
        for q in files:
            raw = q.read_bytes()
            if op == 0:
                q.write_bytes(raw[: len(raw) // 2])
            elif op == 1:
                q.write_bytes(b"")
            elif op == 2 and raw:
                bb = bytearray(raw)
                for _ in range(8):
                    bb[rng.randrange(len(bb))] ^= 0x5A
                q.write_bytes(bytes(bb))
            else:
                q.write_bytes(os.urandom(64))
        code2, t2 = run_cli(["analyze", str(path), "-q", "--json", str(b)])
        if code2 != code1 or "Traceback" in t2:
            return f"cache corrupted ({op}): exit {code1} then {code2}: {t2.strip()[-300:]!r}"
        if a.exists() and b.exists():
            try:
                da, db = json.loads(a.read_text()), json.loads(b.read_text())
            except ValueError as exc:
                return f"cache corrupted ({op}): the second report is not JSON ({exc})"[:300]
            if _norm(da) != _norm(db):
                return f"cache corrupted ({op}): the second report differs from the first"
    finally:
        if old is None:
            os.environ.pop("GPULENS_CACHE_DIR", None)
        else:
            os.environ["GPULENS_CACHE_DIR"] = old
        os.environ.pop("GPULENS_CACHE_MIN_BYTES", None)
    return None


#: Kinds checked by their own function ``(rng, path, work) -> finding or None`` instead of :func:`check`.
SPECIAL = {"report_mut": check_reports, "cache_corrupt": check_cache}


def check_kind(kind: str, special: dict, rng: random.Random, path: Path, work: Path, strict: bool,
               cli: bool) -> str | None:
    """The finding for one input of ``kind``: its own check when ``special`` has one, else :func:`check` and, when
    that passes and ``cli``, :func:`check_cli` (the whole command line)."""
    if kind in special:
        return special[kind](rng, path, work)
    what = check(path, strict)
    return check_cli(path, work) if what is None and cli else what


def _options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--extra", type=Path, action="append", default=[])
    ap.add_argument("--extra-limit", type=int, default=1_500_000)


def _extra_seeds(a: argparse.Namespace) -> dict[str, Path]:
    """The seeds of every ``--extra`` folder (:func:`tests.fuzz_s8.extra_seeds`)."""
    from tests.fuzz_s8 import extra_seeds

    out: dict[str, Path] = {}
    for root in a.extra:
        out.update(extra_seeds(root, a.extra_limit))
    return out


def _one(kind: str, rng: random.Random, path: Path, work: Path, strict: bool, cli: bool) -> str | None:
    return check_kind(kind, SPECIAL, rng, path, work, strict, cli or kind in ("fs_odd", "odd_path"))


def main(argv: list[str] | None = None) -> int:
    # a FIFO or a link loop (fs_odd) cannot be copied (a FIFO copy blocks): its finding is recorded without input
    return fuzzing.kind_campaign(argv, KINDS, make, _one, seed=10010, timeout=20.0, rng_step=104_723,
                                 keep=lambda kind: kind != "fs_odd", options=_options, more_seeds=_extra_seeds)


if __name__ == "__main__":
    sys.exit(main())
