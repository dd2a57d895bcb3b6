"""Session-35 fuzzing: mutation kinds no earlier fuzzer makes (tests/fuzzing.py, fuzz_more, fuzz_fresh, fuzz_cli,
fuzz_s8 … fuzz_s11, fuzz_s34), checked through ``gpulens.analyze`` with every report and, every ``--cli-every``-th
input, the ``analyze`` command with ``--json --html --markdown`` (:func:`tests.fuzz_s10.check_kind`).

``python tests/fuzz_s35.py --seed S --count N --workdir DIR [--timeout 20] [--kinds a,b] [--only I]`` (run it from
a folder outside the repository, DIR under /tmp). Kinds (:data:`KINDS`):

* ``time_nonfinite`` — 1–5 GPU events of a Kineto trace given a ``ts`` or ``dur`` of ``Infinity``, ``-Infinity``,
  ``NaN``, ``inf``, ``1e308``, ``-1e308`` or ``1e30``: whatever the spelling, an infinite or out-of-range time is one
  corrupt event (excluded), a NaN one a time not recorded (an untimed launch): the timed GPU events must be the
  seed's less exactly that many, and the warnings must count them;
* ``cut_struct`` — a Kineto trace cut just after a structural character (``{ [ , : " }``) drawn at random;
* ``type_swap`` — one field of 1–20 events (``ts dur name cat ph pid tid args`` or an ``args`` key) given a value
  of another JSON type;
* ``flow_odd`` — flow events (``s``/``f``/``t``) without partners, correlation ids shared by many kernels, a
  runtime call whose correlation id points at another runtime call;
* ``many_devices`` — the GPU events spread over 64–512 devices or streams;
* ``args_huge`` — an ``args`` object of 20,000 keys, a 2 MB string, or a list nested 3,000 deep;
* ``dup_event_keys`` — a key written twice inside events (``ts``, ``ph``, ``dur``, ``args``), or the document's
  ``traceEvents`` key repeated with a damaged value (NaN, a control character) in one of the arrays;
* ``csv_locale`` — CSV number cells written ``1.234,5``, ``n/a``, ``"1,234"``, or a column deleted;
* ``sqlite_schema`` — every table emptied, a table renamed, the file's pages overwritten, or the database held
  under an exclusive lock while it is read;
* ``dir_mixed`` — a folder holding a good input beside a 0-byte file, a file of NULs, a ``.json.gz`` of a CSV, a
  symlink loop, a file without read permission (and the same odd files alone);
* ``dir_file_mut`` — one file of a folder input (rocprof-compute workload, rocprof v1/v3 folder, rank folder,
  rocpd databases per process) emptied, filled with NULs, cut in half, deleted or its numbers localized: the file
  must be named in a warning or in the error (never passed over in silence);

A finding: an exception other than a one-line GpulensError naming the file, a hang past ``--timeout`` CPU s, an
impossible figure or bad text in any report, for the command an undocumented exit code, a traceback or a
multi-line exit-2 message, and for ``time_nonfinite`` a kernel count that is not the seed's less the events broken
or no warning counting them.
"""

from __future__ import annotations

import gzip
import json
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
from tests.fuzz_s10 import _events, _gpu, _is_json, _text_of, check_kind  # noqa: E402
from tests.fuzz_s11 import _expected  # noqa: E402

KINDS = ["time_nonfinite", "cut_struct", "type_swap", "flow_odd", "many_devices", "args_huge", "dup_event_keys",
         "csv_locale", "sqlite_schema", "dir_mixed", "dir_file_mut"]
_JSON_KINDS = {"time_nonfinite", "cut_struct", "type_swap", "flow_odd", "many_devices", "args_huge",
               "dup_event_keys"}
#: non-finite or absurd time spellings: each makes its event a corrupt one (left out and counted)
NONFINITE = ["Infinity", "-Infinity", "NaN", "inf", "-inf", "nan", "1e308", "-1e308", "1e30"]
_ODD = [None, True, "12", "x", [], [1, 2], {}, {"a": 1}, -1, 2 ** 64, 1.5, "\ud800", "\x00"]


def _kernels(ev: list) -> list[int]:
    """Indices of the timed Kineto kernel events of ``ev``."""
    return [i for i, e in enumerate(ev) if isinstance(e, dict) and str(e.get("cat", "")).lower() == "kernel"
            and e.get("ph") == "X" and isinstance(e.get("ts"), (int, float)) and isinstance(e.get("dur"), (int, float))
            and e["dur"] >= 0 and e["ts"] > 0]


def time_nonfinite(rng: random.Random, doc) -> tuple[str, int] | None:
    """(text, events broken): 1–5 kernels' ``ts`` or ``dur`` replaced by a :data:`NONFINITE` spelling."""
    ev = _events(doc)
    ks = _kernels(ev) if isinstance(ev, list) else []
    if not ks:
        return None
    hit = rng.sample(ks, min(len(ks), rng.randint(1, 5)))
    marks = {}
    for n, i in enumerate(hit):
        key = rng.choice(["ts", "dur"])
        ev[i][key] = f"@NF{n}@"
        marks[f'"@NF{n}@"'] = rng.choice(NONFINITE)
    text = json.dumps(doc)
    for m, v in marks.items():
        text = text.replace(m, v)
    return text, len(hit)


def cut_struct(rng: random.Random, data: bytes) -> bytes | None:
    pos = [m.end() for m in re.finditer(rb'[{}\[\],:"]', data[:400_000])]
    return data[:rng.choice(pos)] if pos else None


_FIELDS = ["ts", "dur", "name", "cat", "ph", "pid", "tid", "args", "args.device", "args.stream", "args.correlation",
           "args.External id", "args.grid", "args.block", "args.bytes", "id", "bp"]


def type_swap(rng: random.Random, doc) -> bool:
    ev = _events(doc)
    if not isinstance(ev, list) or not ev:
        return False
    field = rng.choice(_FIELDS)
    val = rng.choice(_ODD)
    for e in rng.sample(ev, min(len(ev), rng.randint(1, 20))):
        if not isinstance(e, dict):
            continue
        if field.startswith("args."):
            if isinstance(e.get("args"), dict):
                e["args"][field[5:]] = val
        else:
            e[field] = val
    return True


def flow_odd(rng: random.Random, doc) -> bool:
    ev = _events(doc)
    if not isinstance(ev, list):
        return False
    gpu = [e for e in ev if _gpu(e) and isinstance(e.get("args"), dict)]
    rt = [e for e in ev if isinstance(e, dict) and str(e.get("cat", "")).lower() == "cuda_runtime"
          and isinstance(e.get("args"), dict)]
    op = rng.randrange(3)
    if op == 0:  # flows without partners
        t = next((e["ts"] for e in ev if isinstance(e, dict) and isinstance(e.get("ts"), (int, float))), 1)
        for j in range(rng.choice([1, 50, 2000])):
            ev.append({"ph": rng.choice(["s", "f", "t"]), "id": rng.choice([j, 10**12 + j, "x"]), "pid": 1,
                       "tid": 1, "ts": t + j, "cat": rng.choice(["ac2g", "fwdbwd", ""]), "name": "flow",
                       **({"bp": "e"} if rng.random() < 0.5 else {})})
    elif op == 1 and gpu:  # one correlation id shared by every kernel
        c = rng.choice([1, 0, -1, 2 ** 40])
        for e in gpu:
            e["args"]["correlation"] = c
    elif rt:  # runtime calls pointing at each other
        ids = [e["args"].get("correlation") for e in rt]
        rng.shuffle(ids)
        for e, c in zip(rt, ids[1:] + ids[:1]):
            e["args"]["correlation"] = c
            e["args"]["External id"] = c
    else:
        return False
    return True


def many_devices(rng: random.Random, doc) -> bool:
    ev = _events(doc)
    gpu = [e for e in ev if _gpu(e) and isinstance(e.get("args"), dict)] if isinstance(ev, list) else []
    if not gpu:
        return False
    n = rng.choice([64, 200, 512])
    key = rng.choice(["device", "stream", "both"])
    base = list(gpu)
    while len(gpu) < n:  # enough events for every device
        gpu.append(json.loads(json.dumps(rng.choice(base))))
        ev.append(gpu[-1])
    for j, e in enumerate(gpu):
        if key in ("device", "both"):
            e["args"]["device"] = j % n
            e["pid"] = j % n
        if key in ("stream", "both"):
            e["args"]["stream"] = 7 + j % n
            e["tid"] = f"stream {7 + j % n}"
    return True


def args_huge(rng: random.Random, doc) -> str | None:
    ev = _events(doc)
    tgt = [e for e in ev if isinstance(e, dict) and isinstance(e.get("args"), dict)] if isinstance(ev, list) else []
    if not tgt:
        return None
    e = rng.choice(tgt)
    op = rng.randrange(3)
    if op == 0:
        e["args"].update({f"k{j}": j for j in range(20_000)})
    elif op == 1:
        e["args"]["blob"] = "x" * 2_000_000
    else:
        e["args"]["deep"] = "@DEEP@"
    text = json.dumps(doc)
    return text.replace('"@DEEP@"', "[" * 3000 + "]" * 3000) if op == 2 else text


def dup_event_keys(rng: random.Random, doc) -> str | None:
    ev = _events(doc)
    if not isinstance(doc, dict) or not isinstance(ev, list) or not ev:
        return None
    if rng.random() < 0.5:
        key = rng.choice(["ts", "ph", "dur", "args", "name"])
        out = []
        for e in ev:
            if isinstance(e, dict) and key in e and rng.random() < 0.3:
                body = json.dumps({k: v for k, v in e.items() if k != key})[1:-1]
                other = json.dumps(rng.choice(_ODD + [e[key]]))
                out.append("{" + f'"{key}": {other}, {body}, "{key}": {json.dumps(e[key])}' + "}")
            else:
                out.append(json.dumps(e))
        rest = json.dumps({k: v for k, v in doc.items() if k != "traceEvents"})[1:-1]
        return "{" + '"traceEvents": [' + ", ".join(out) + "]" + (", " + rest if rest else "") + "}"
    cut = rng.randrange(1, len(ev) + 1)
    a, b = json.dumps(ev[:cut]), json.dumps(ev[cut:])
    bad = rng.choice(['"x": NaN', '"x": "\x01"', '"x": Infinity'])
    if rng.random() < 0.5:
        a = a.replace('"ph"', bad + ', "ph"', 1)
    else:
        b = b.replace('"ph"', bad + ', "ph"', 1)
    pairs = [f'"traceEvents": {a}', f'"traceEvents": {b}']
    return "{" + ", ".join(pairs) + "}"


def csv_locale(rng: random.Random, data: bytes) -> bytes | None:
    lines = data.split(b"\n")
    head = next((i for i, ln in enumerate(lines[:40]) if ln.count(b",") >= 2), None)
    if head is None or head + 1 >= len(lines):
        return None
    op = rng.randrange(4)
    if op == 3:  # one column deleted (a quoted comma inside a cell is left as it is: rare in these seeds)
        ncol = lines[head].count(b",") + 1
        c = rng.randrange(ncol)
        out = []
        for ln in lines[head:]:
            cells = ln.split(b",")
            if len(cells) == ncol:
                del cells[c]
            out.append(b",".join(cells))
        return b"\n".join(lines[:head] + out)
    how = [lambda m: (m.group(0).replace(b".", b",") if b"." in m.group(0) else
                      b"%s.%s" % (m.group(0)[:-3], m.group(0)[-3:]) if len(m.group(0)) > 3 else m.group(0)),
           lambda m: b"n/a", lambda m: b'"%s,%s"' % (m.group(0)[:1], m.group(0)[1:])][op]
    share = rng.choice([0.05, 0.5, 1.0])
    body = [re.sub(rb"(?<![\w.])\d+(?:\.\d+)?(?![\w.])", lambda m: how(m) if rng.random() < share else m.group(0),
                   ln) for ln in lines[head + 1:]]
    return b"\n".join(lines[:head + 1] + body)


def sqlite_schema(rng: random.Random, f: Path) -> object:
    """Mutate the database ``f`` in place (what tests/fuzz_s9.py's ``_sqlite_drop`` and fuzzing.mutate_sqlite do
    not: pages overwritten, every table emptied, a table renamed, a lock held); returns True, or an open connection
    holding an exclusive lock (closed after the check), or False when nothing could be done."""
    op = rng.randrange(4)
    if op == 0:  # pages overwritten after the header
        raw = bytearray(f.read_bytes())
        if len(raw) < 2048:
            return False
        at = rng.randrange(100, len(raw) - 64)
        n = min(rng.choice([16, 512, 4096]), len(raw) - at)
        raw[at:at + n] = os.urandom(n)
        f.write_bytes(bytes(raw))
        return True
    con = sqlite3.connect(f, isolation_level=None)
    if op == 1:
        con.execute("BEGIN EXCLUSIVE")
        return con
    try:
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for t in (names if op == 2 else rng.sample(names, min(1, len(names)))):
            con.execute(f'DELETE FROM "{t}"' if op == 2 else f'ALTER TABLE "{t}" RENAME TO "{t}_old"')
        return bool(names)
    except sqlite3.Error:
        return False
    finally:
        con.close()


def dir_mixed(rng: random.Random, seed: Path, work: Path, i: int) -> Path:
    d = work / f"in{i}_mixed"
    d.mkdir()
    if rng.random() < 0.7:
        (shutil.copytree if seed.is_dir() else shutil.copyfile)(seed, d / seed.name)
    odd = rng.sample(["empty", "nuls", "gzcsv", "loop", "noread", "fifo_named_csv"], rng.randint(1, 4))
    for o in odd:
        if o == "empty":
            (d / "empty.pt.trace.json").write_bytes(b"")
        elif o == "nuls":
            (d / "zeros.json").write_bytes(b"\x00" * rng.choice([1, 4096]))
        elif o == "gzcsv":
            (d / "kernel_trace.json.gz").write_bytes(gzip.compress(b"Kernel_Name,Start_Timestamp\nk,1\n"))
        elif o == "loop":
            (d / "loop").symlink_to(d, target_is_directory=True)
        elif o == "noread":
            q = d / "secret.pt.trace.json"
            q.write_text('{"traceEvents": []}')
            q.chmod(0)
        else:
            os.mkfifo(d / "kernel_stats.csv")
    return d


def _files_read(folder: Path) -> set[str]:
    """Names of the files gpulens reads in the intact ``folder``: its sources, and the side files of a
    rocprofiler-compute workload (``sysinfo.csv``, ``roofline.csv``, ``SQ_*LEVEL*.csv``)."""
    import gpulens.collectors as col

    try:
        tl = col.collect(folder, strict=False, cache=False)
    except Exception:  # noqa: BLE001 — the seed itself does not load
        return set()
    names = {Path(str(s.get("path"))).name for s in tl.meta.sources}
    return names | {"sysinfo.csv", "roofline.csv"} | {q.name for q in folder.rglob("SQ_*LEVEL*.csv")}


def dir_file_mut(rng: random.Random, seed: Path, work: Path, i: int) -> Path | None:
    d = work / f"in{i}_{seed.name}"
    shutil.copytree(seed, d)
    files = sorted(q for q in d.rglob("*") if q.is_file())
    if not files:
        return None
    f = rng.choice(files)
    op = rng.randrange(5)
    raw = f.read_bytes()
    if op == 0:
        f.write_bytes(b"")
    elif op == 1:
        f.write_bytes(b"\x00" * max(1, len(raw)))
    elif op == 2:
        f.write_bytes(raw[:len(raw) // 2])
    elif op == 3:
        f.unlink()
    else:
        out = csv_locale(rng, raw) if raw[:16] != b"SQLite format 3\x00" else None
        if out is None or out == raw:
            return None
        f.write_bytes(out)
        return d
    if op != 3 and f.name in _files_read(seed):  # a deleted file leaves no trace to name; a file gpulens does not
        _EXPECT["named"] = f.name                # read intact (hip_api_stats.csv) is no loss
        _EXPECT["how"] = ["emptied", "NULs", "cut in half"][op]
    return d


def make(rng: random.Random, seeds: dict[str, Path], names: list[str], work: Path, i: int,
         kind: str) -> tuple[Path, Path] | None:
    """(mutant, seed) for ``kind``; None when ``kind`` does not apply to the drawn seed."""
    _EXPECT.clear()
    if kind == "dir_file_mut":
        pool = [n for n in names if seeds[n].is_dir()]
        seed = seeds[rng.choice(pool)]
        got = dir_file_mut(rng, seed, work, i)
        return (got, seed) if got is not None else None
    if kind == "dir_mixed":
        seed = seeds[rng.choice(names)]
        return dir_mixed(rng, seed, work, i), seed
    if kind == "sqlite_schema":
        pool = [n for n in names if seeds[n].is_file() and seeds[n].read_bytes()[:16] == b"SQLite format 3\x00"]
        if not pool:
            return None
        seed = seeds[rng.choice(pool)]
        p = work / f"in{i}_{seed.name}"
        shutil.copyfile(seed, p)
        got = sqlite_schema(rng, p)
        if not got:
            return None
        if isinstance(got, sqlite3.Connection):
            _LOCKS.append(got)
        return p, seed
    pool = [n for n in names if seeds[n].is_file()]
    seed = seeds[rng.choice(pool)]
    raw = seed.read_bytes()
    if raw[:16] == b"SQLite format 3\x00":
        return None
    data, gz = _text_of(raw)
    p = work / f"in{i}_{seed.name}"
    if kind == "csv_locale":
        if _is_json(data):
            return None
        out = csv_locale(rng, data)
    elif kind == "cut_struct":
        out = cut_struct(rng, data) if _is_json(data) else None
    else:
        if not _is_json(data):
            return None
        try:
            doc = json.loads(data)
        except (ValueError, RecursionError):
            return None
        if kind == "time_nonfinite":
            got = time_nonfinite(rng, doc)
            if got is None:
                return None
            text, broken = got
            try:
                import gpulens.collectors as col

                before = col.collect(seed, strict=False)
                ev = before.events
                _EXPECT["kernels"] = _gpu_rows(ev) - broken
                _EXPECT["broken"] = broken
                _EXPECT["excluded"] = _excluded(before.meta.warnings) + broken
            except Exception:  # noqa: BLE001 — the seed itself does not load: no count to check
                return None
            out = text.encode()
        elif kind in ("args_huge", "dup_event_keys"):
            t = {"args_huge": args_huge, "dup_event_keys": dup_event_keys}[kind](rng, doc)
            out = t.encode("utf-8", "surrogatepass") if t is not None else None
        else:
            ok = {"type_swap": type_swap, "flow_odd": flow_odd, "many_devices": many_devices}[kind](rng, doc)
            out = json.dumps(doc).encode("utf-8", "surrogatepass") if ok else None
    if out is None:
        return None
    p.write_bytes(gzip.compress(out, compresslevel=1) if gz else out)
    return p, seed


_EXPECT: dict[str, int] = {}
_LOCKS: list[sqlite3.Connection] = []


def _count_check(path: Path, strict: bool) -> str | None:
    """``time_nonfinite``: the kernels read are the seed's less the broken events, and a warning counts them."""
    import gpulens.collectors as col
    from gpulens.errors import GpulensError

    try:
        tl = col.collect(path, strict=strict)
    except GpulensError:
        return None
    got = _gpu_rows(tl.events)
    if got != _EXPECT["kernels"]:
        return f"time_nonfinite: {got} GPU events read, expected {_EXPECT['kernels']} ({_EXPECT['broken']} broken)"
    if _excluded(tl.meta.warnings) != _EXPECT["excluded"]:
        return (f"time_nonfinite: the warnings count {_excluded(tl.meta.warnings)} excluded events, expected "
                f"{_EXPECT['excluded']} ({_EXPECT['broken']} broken): {' '.join(tl.meta.warnings)[:200]!r}")
    return None


def _gpu_rows(events) -> int:
    """GPU work rows of a Timeline's events (a kernel-category copy may be read as a memcpy)."""
    return int(events["kind"].astype(str).isin(["kernel", "comm", "memcpy", "memset"]).sum())


def _excluded(warnings: list[str]) -> int:
    """The events a reader's warnings say it refused: excluded (``N invalid event(s) excluded``: an infinite or
    out-of-range time) or kept as untimed launches (``N GPU event(s) without a recorded time``: a NaN time)."""
    return sum(int(m.group(1).replace(",", "")) for w in warnings
               for m in re.finditer(r"([\d,]+) (?:invalid events? excluded|GPU events? without a recorded time)", w))


def _named_check(path: Path, strict: bool) -> str | None:
    """``dir_file_mut`` (emptied, NULs, cut, deleted): the damaged file is named in a warning or in the error."""
    import gpulens.collectors as col
    from gpulens.errors import GpulensError

    name = _EXPECT["named"]
    try:
        tl = col.collect(path, strict=strict, cache=False)
    except GpulensError as exc:
        if name in str(exc):
            return None
        return f"dir_file_mut: {name} {_EXPECT['how']}, the error does not name it: {str(exc)[:200]!r}"
    if not any(name in w for w in tl.meta.warnings):
        return f"dir_file_mut: {name} {_EXPECT['how']}, no warning names it: {' | '.join(tl.meta.warnings)[:300]!r}"
    return None


def _one(kind: str, rng: random.Random, path: Path, work: Path, strict: bool, cli: bool) -> str | None:
    try:
        what = check_kind(kind, {}, rng, path, work, strict, cli or kind == "dir_mixed")
        if what is not None and _expected(kind, what):  # busy summed over hundreds of GPUs above the wall span
            what = None
        if what is None and kind == "time_nonfinite" and _EXPECT:
            what = _count_check(path, strict)
        if what is None and kind == "dir_file_mut" and "named" in _EXPECT:
            what = _named_check(path, strict)
        return what
    finally:
        while _LOCKS:
            _LOCKS.pop().close()


def main(argv: list[str] | None = None) -> int:
    return fuzzing.kind_campaign(argv, KINDS, make, _one, seed=35035, timeout=20.0,
                                 keep=lambda kind: kind != "dir_mixed")


if __name__ == "__main__":
    sys.exit(main())
