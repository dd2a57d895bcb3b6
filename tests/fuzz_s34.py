"""Session-34 fuzzing: mutation kinds no earlier fuzzer makes (tests/fuzzing.py, fuzz_more, fuzz_fresh, fuzz_cli,
fuzz_s8 … fuzz_s11), checked through ``gpulens.analyze`` and every report and, every ``--cli-every``-th input, the
``analyze`` command (:func:`tests.fuzz_s10.check`, :func:`tests.fuzz_s10.check_cli`).

``python tests/fuzz_s34.py --seed S --count N --workdir DIR [--timeout 30] [--kinds a,b] [--only I]`` (run it from
a folder outside the repository, DIR under /tmp). Kinds (:data:`KINDS`):

* ``staircase`` — 500–6,000 host ranges (user annotations or CPU ops) on one thread, each opening inside the
  previous one and closing after it, each launching a kernel: the stack sweep nests them into one chain as deep
  as the file is long (a cost or an output that grows with the square of the chain is a hang);
* ``nest_deep`` — 500–6,000 host ranges properly nested (a recursive model's ``record_function``);
* ``unique_names`` — 1,000–6,000 GPU events, each kernel of its own name (the per-kernel tables and rules);
* ``dup_top`` — a top-level key of a JSON document written twice: ``traceEvents`` (the full array first or last,
  the other empty or of another type), ``deviceProperties``, ``distributedInfo``, ``schemaVersion``;
* ``num_text`` — every ``ts``/``dur`` (or start/end) written as text: ``"1010"``, ``"1.01e3"``, ``" 12 "``,
  ``"0x10"``, ``"1_000"``;
* ``gz_mix`` — plain text followed by its own gzip, gzip followed by the plain text, gzip of (gzip + plain),
  an empty gzip member before the real one;
* ``ncu_rows`` — ncu CSV with its units row, a blank row, a row of commas or the header written again at a random
  place among the launch rows.

A finding: an exception other than a one-line GpulensError naming the file, a hang past ``--timeout`` CPU s, an
impossible figure or bad text in any report, or for the command an undocumented exit code, a traceback or a
multi-line exit-2 message.
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzzing  # noqa: E402
from tests.fuzz_s10 import _events, _gpu, _is_json, _text_of, check_kind  # noqa: E402

KINDS = ["staircase", "nest_deep", "unique_names", "dup_top", "num_text", "gz_mix", "ncu_rows"]
_JSON_ONLY = {"staircase", "nest_deep", "unique_names", "dup_top", "num_text"}


def _kineto(doc) -> list | None:
    """The ``traceEvents`` list of a Kineto/Chrome document with at least one timed event, else None."""
    ev = _events(doc)
    if not isinstance(ev, list) or not any(isinstance(e, dict) and isinstance(e.get("ts"), (int, float)) for e in ev):
        return None
    return ev


def _chain(rng: random.Random, data: bytes, proper: bool) -> bytes | None:
    """``staircase`` / ``nest_deep``: n host ranges on one thread, each opening inside the previous one; a staircase
    range closes after the previous one, a nested one before it. Each range launches one 1 µs kernel."""
    doc = json.loads(data)
    ev = _kineto(doc)
    if ev is None:
        return None
    n = rng.choice([500, 2000, 6000])
    cat = rng.choice(["user_annotation", "cpu_op"])
    t0 = max((e["ts"] for e in ev if isinstance(e, dict) and isinstance(e.get("ts"), (int, float))), default=0) + 10
    for i in range(n):
        ts = t0 + 10 * i
        dur = 10 * (2 * n - 2 * i) + 5 if proper else 25
        ev.append({"ph": "X", "cat": cat, "name": f"range{i % rng.choice([1, 7, n])}", "pid": 1, "tid": 1,
                   "ts": ts, "dur": dur, "args": {"External id": 10**6 + i}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ts + 1,
                   "dur": 1, "args": {"correlation": 10**6 + i, "External id": 10**6 + i}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": "stream 7", "ts": ts + 5, "dur": 1,
                   "args": {"device": 0, "stream": 7, "correlation": 10**6 + i}})
    return json.dumps(doc).encode()


def unique_names(rng: random.Random, data: bytes) -> bytes | None:
    doc = json.loads(data)
    ev = _kineto(doc)
    if ev is None:
        return None
    gpu = [e for e in ev if _gpu(e) and isinstance(e.get("ts"), (int, float))]
    if not gpu:
        return None
    n = rng.choice([1000, 3000, 6000])
    t = max(e["ts"] for e in gpu) + 10
    for i in range(n):
        e = json.loads(json.dumps(rng.choice(gpu)))
        e.update(name=f"kernel_{i}_" + "x" * rng.choice([1, 60]), ts=t + 3 * i, dur=2)
        ev.append(e)
    return json.dumps(doc).encode()


def dup_top(rng: random.Random, data: bytes) -> bytes | None:
    doc = json.loads(data)
    if not isinstance(doc, dict) or _kineto(doc) is None:
        return None
    key = rng.choice(["traceEvents", "traceEvents", "deviceProperties", "distributedInfo", "schemaVersion"])
    other = rng.choice([[], None, {}, "x", 0, [{"ph": "X"}]])
    rest = {k: v for k, v in doc.items() if k != key}
    body = json.dumps(rest)[1:-1]
    own = json.dumps(doc.get(key, other))
    pairs = [f'"{key}": {own}', f'"{key}": {json.dumps(other)}']
    rng.shuffle(pairs)
    return ("{" + ", ".join([*pairs, body] if body else pairs) + "}").encode()


_TEXT_NUM = [lambda v: str(v), lambda v: f"{float(v):e}", lambda v: f" {v} ", lambda v: hex(int(v)),
             lambda v: f"{int(v):_}", lambda v: f"{v}us"]


def num_text(rng: random.Random, data: bytes) -> bytes | None:
    doc = json.loads(data)
    ev = _kineto(doc)
    if ev is None:
        return None
    how = rng.choice(_TEXT_NUM)
    keys = rng.choice([("ts",), ("dur",), ("ts", "dur")])
    every = rng.random() < 0.5
    for e in ev:
        if isinstance(e, dict) and (every or rng.random() < 0.2):
            for k in keys:
                if isinstance(e.get(k), (int, float)) and e[k] == e[k] and abs(e[k]) < 1e18:
                    e[k] = how(e[k])
    return json.dumps(doc).encode()


def gz_mix(rng: random.Random, data: bytes) -> bytes:
    op = rng.randrange(4)
    if op == 0:
        return data + gzip.compress(data)
    if op == 1:
        return gzip.compress(data) + data
    if op == 2:
        return gzip.compress(gzip.compress(data) + data)
    return gzip.compress(b"") + gzip.compress(data)


def ncu_rows(rng: random.Random, data: bytes) -> bytes | None:
    lines = data.split(b"\n")
    head = next((i for i, ln in enumerate(lines) if ln.startswith(b'"ID"')), None)
    if head is None or head + 2 >= len(lines):
        return None
    units = lines[head + 1] if lines[head + 1].startswith(b'""') else None
    extra = rng.choice([x for x in (units, b"", b"," * lines[head].count(b","), lines[head]) if x is not None])
    at = rng.randrange(head + 2, len(lines) + 1)
    return b"\n".join(lines[:at] + [extra] * rng.choice([1, 2]) + lines[at:])


def make(rng: random.Random, seeds: dict[str, Path], names: list[str], work: Path, i: int,
         kind: str) -> tuple[Path, Path] | None:
    """(mutant, seed) for ``kind``; None when ``kind`` does not apply to the drawn seed."""
    pool = [n for n in names if seeds[n].is_file()]
    if kind == "ncu_rows":
        pool = [n for n in pool if "ncu" in n.lower() and seeds[n].suffix == ".csv"]
    if not pool:
        return None
    seed = seeds[rng.choice(pool)]
    p = work / f"in{i}_{seed.name}"
    raw = seed.read_bytes()
    if raw[:16] == b"SQLite format 3\x00":
        return None
    data, gz = _text_of(raw)
    if kind in _JSON_ONLY:
        if not _is_json(data):
            return None
        try:
            out = {"staircase": lambda r, d: _chain(r, d, False), "nest_deep": lambda r, d: _chain(r, d, True),
                   "unique_names": unique_names, "dup_top": dup_top, "num_text": num_text}[kind](rng, data)
        except (ValueError, RecursionError):  # the seed is no strict JSON (a damaged case): not this kind's input
            return None
    elif kind == "gz_mix":
        out, gz = gz_mix(rng, data), False
    else:
        out = ncu_rows(rng, data)
    if out is None:
        return None
    p.write_bytes(gzip.compress(out, compresslevel=1) if gz else out)
    return p, seed


def _one(kind: str, rng: random.Random, path: Path, work: Path, strict: bool, cli: bool) -> str | None:
    return check_kind(kind, {}, rng, path, work, strict, cli)


def main(argv: list[str] | None = None) -> int:
    return fuzzing.kind_campaign(argv, KINDS, make, _one, seed=34034)

if __name__ == "__main__":
    sys.exit(main())
