"""Differential fuzzer: the Kineto byte scanner (``GPULENS_KINETO_FAST`` on) must read exactly what msgspec reads.

Every input is loaded twice in the same process — ``KinetoCollector.collect(path, fast=False)`` and
``fast=True`` with the same (usually small) ``chunk_bytes`` so that events span piece boundaries — and the two
Timelines are compared column by column (``pandas.testing``: events, counters, rejected rows, every side table),
their meta (warnings included) by ``==``, or the two error texts; every ``--report-every``-th input also compares
the JSON report (``reports.json_report.render``) apart from its ``created`` stamp. Each load runs under
``SIGALRM`` (``--timeout`` s): a hang counts as a finding.

Inputs are built structure-aware: a small Kineto trace (kernels, copies, memsets, CPU ops, runtime calls,
annotations, flows, metadata, instant events) is serialised by :func:`dump`, which chooses per token the
whitespace (space, tab, LF, CRLF, none), per string the escape form of each character (``\\"``, ``\\\\``,
``\\/``, ``\\uXXXX``, surrogate pairs, raw UTF-8) and per number its JSON spelling; then mutations from
:data:`MUTATIONS` (escaped keys, duplicate keys, odd numbers, ids of other types, nested args, missing/extra fields,
unknown phases, strings holding ``}, {``, deep nesting, invalid surrogates, invalid UTF-8, NUL bytes, long names,
many names of one length, truncation, BOM, gzip) are applied.

Usage::

    python tests/fuzz_kineto_fast.py fuzz --seed 1 --count 500 [--workdir DIR]
    python tests/fuzz_kineto_fast.py files PATH... [--chunks 4096,65536]
    python tests/fuzz_kineto_fast.py numbers --seed 1 --count 20000   (ts/dur/float/id spellings, piece level)

Each prints one line per divergence and a JSON summary (inputs, divergences by kind, pieces scanned/decoded).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


class FuzzTimeout(BaseException):
    """Raised by the alarm (a BaseException: no ``except Exception`` in gpulens swallows it)."""


def _alarm(*_: Any) -> None:
    raise FuzzTimeout


# ---------------------------------------------------------------------------------------------------- loading
def load(path: Path, fast: bool, chunk: int, small_blocks: bool = False) -> tuple[Any, Any]:
    """(Timeline or ``"error: ..."`` text, the piece reader used or None). ``small_blocks``: the file is read in
    blocks of ``chunk`` bytes instead of at least 64 KiB, so that small inputs are cut into many pieces (the same
    for both paths; the Timeline does not depend on where pieces are cut)."""
    import gpulens.collectors._stream as stream_mod
    import gpulens.collectors.kineto as kineto_mod
    from gpulens.collectors.kineto import KinetoCollector
    from gpulens.errors import GpulensError

    readers: list = []
    orig = kineto_mod.piece_reader

    def spy(*a: Any, **k: Any) -> Any:
        r = orig(*a, **k)
        readers.append(r)
        return r

    kineto_mod.piece_reader = spy
    orig_blocks = stream_mod.iter_blocks
    if small_blocks:
        stream_mod.iter_blocks = lambda p, info, block=0, **kw: orig_blocks(p, info, block=max(16, min(block, chunk)), **kw)
    try:
        return KinetoCollector().collect(path, fast=fast, chunk_bytes=chunk), (readers[0] if readers else None)
    except GpulensError as exc:
        return f"error: {type(exc).__name__}: {exc}", (readers[0] if readers else None)
    except (FuzzTimeout, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001  (a crash: compared between the paths, reported apart)
        tb = traceback.extract_tb(exc.__traceback__)
        where = next((f"{Path(f.filename).name}:{f.lineno}" for f in reversed(tb) if "gpulens" in f.filename), "?")
        return f"crash: {type(exc).__name__}: {str(exc)[:200]} at {where}", (readers[0] if readers else None)
    finally:
        kineto_mod.piece_reader = orig
        stream_mod.iter_blocks = orig_blocks


def differences(a: Any, b: Any) -> str | None:
    """First difference between two loads (Timeline or error text), None when identical."""
    if isinstance(a, str) or isinstance(b, str):
        return None if a == b else f"outcome: {str(a)[:200]!r} vs {str(b)[:200]!r}"
    for part in ("events", "counters", "rejected"):
        try:
            pd.testing.assert_frame_equal(getattr(a, part), getattr(b, part))
        except AssertionError as exc:
            return f"{part}: {str(exc).strip()[:600]}"
    if sorted(a.tables) != sorted(b.tables):
        return f"tables: {sorted(a.tables)} vs {sorted(b.tables)}"
    for k in a.tables:
        try:
            pd.testing.assert_frame_equal(a.tables[k], b.tables[k])
        except AssertionError as exc:
            return f"table {k}: {str(exc).strip()[:600]}"
    if a.meta != b.meta:
        da, db = vars(a.meta) if hasattr(a.meta, "__dict__") else {}, vars(b.meta) if hasattr(b.meta, "__dict__") \
            else {}
        keys = [k for k in da if da.get(k) != db.get(k)] if da else ["?"]
        return "meta: " + "; ".join(f"{k}: {str(da.get(k))[:200]} vs {str(db.get(k))[:200]}" for k in keys)
    return None


def report_json(tl: Any, path: Path) -> dict:
    from gpulens.report import Report, analyze_timeline
    from gpulens.reports.json_report import render

    doc = json.loads(render(Report([analyze_timeline(tl, str(path))])))

    def strip(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items() if k != "created"}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v

    return strip(doc)


def warm_up() -> None:
    """Compile (or load from numba's cache) the scanner before any alarm is set: a first compile takes many
    seconds and must not count as a hang (an alarm inside numba's compiler also breaks it for the process)."""
    from gpulens.collectors._kineto_fast import read_piece

    read_piece(b'[{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 1, "ts": 1, "dur": 1, "args": '
               b'{"grid": [1, 1, 1], "flops": 1.5, "Input Dims": [[1]]}}]')


def compare(path: Path, chunk: int, report: bool = False, timeout: float = 20.0, small_blocks: bool = False) -> dict:
    """Load ``path`` with the scanner off and on; {"diff": text or None, "kind": ..., "scanned", "decoded"}."""
    warm_up()
    old = signal.signal(signal.SIGALRM, _alarm)
    stage = "slow"
    out: dict[str, Any] = {"diff": None, "scanned": 0, "decoded": 0}
    try:
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            stage = "slow"
            slow, _ = load(path, False, chunk, small_blocks)
            stage = "fast"
            fast, reader = load(path, True, chunk, small_blocks)
            stage = "compare"
            if reader is not None:
                out["scanned"], out["decoded"] = reader.scanned, reader.decoded
            out["diff"] = differences(slow, fast)
            if isinstance(slow, str) and slow.startswith("crash"):
                out["slow_crash"] = slow
            if out["diff"] is None and report and not isinstance(slow, str):
                if report_json(slow, path) != report_json(fast, path):
                    out["diff"] = "report: the JSON reports differ"
        except FuzzTimeout:
            out["diff"] = f"hang: over {timeout} s"
        except Exception as exc:  # noqa: BLE001  (a crash of either path is a finding)
            tb = traceback.extract_tb(exc.__traceback__)
            where = next((f"{Path(f.filename).name}:{f.lineno}" for f in reversed(tb) if "gpulens" in f.filename), "?")
            out["diff"] = f"crash ({stage} path): {type(exc).__name__}: {str(exc)[:200]} at {where}"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, old)
    return out


# ---------------------------------------------------------------------------------------------------- serialiser
class Num:
    """A JSON number written as this exact text (may be invalid JSON on purpose)."""

    def __init__(self, text: str) -> None:
        self.text = text


class RawStr:
    """A JSON string whose content bytes (between the quotes) are written as given."""

    def __init__(self, content: bytes) -> None:
        self.content = content


class Dup:
    """An object written with these (key, value) pairs in order: duplicate keys allowed."""

    def __init__(self, pairs: list) -> None:
        self.pairs = pairs


_WS = [b"", b" ", b"\n", b"\r\n", b"\t", b"  ", b"\n  "]


def encode_str(rng: random.Random, s: str, escape_rate: float) -> bytes:
    """``s`` as JSON string content, each character in a randomly chosen valid spelling."""
    out = bytearray()
    for ch in s:
        o = ord(ch)
        must = ch in '"\\' or o < 32
        if must or rng.random() < escape_rate:
            if ch == '"':
                out += rng.choice([b'\\"', b"\\u0022"])
            elif ch == "\\":
                out += rng.choice([b"\\\\", b"\\u005c", b"\\u005C"])
            elif ch == "/":
                out += rng.choice([b"\\/", b"/", b"\\u002f"])
            elif o < 32 and ch in "\b\f\n\r\t" and rng.random() < 0.5:
                out += {"\b": b"\\b", "\f": b"\\f", "\n": b"\\n", "\r": b"\\r", "\t": b"\\t"}[ch]
            elif o > 0xFFFF:
                v = o - 0x10000
                hi, lo = 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF)
                out += (f"\\u{hi:04x}\\u{lo:04X}" if rng.random() < 0.5 else f"\\u{hi:04X}\\u{lo:04x}").encode()
            else:
                out += (f"\\u{o:04x}" if rng.random() < 0.5 else f"\\u{o:04X}").encode()
        else:
            out += ch.encode("utf-8", "surrogatepass")
    return bytes(out)


def dump(rng: random.Random, v: Any, ws: list[bytes], escape_rate: float = 0.0) -> bytes:
    """Serialise ``v`` with whitespace drawn from ``ws`` around every token."""
    w = lambda: rng.choice(ws)  # noqa: E731
    if isinstance(v, Num):
        return v.text.encode()
    if isinstance(v, RawStr):
        return b'"' + v.content + b'"'
    if isinstance(v, str):
        return b'"' + encode_str(rng, v, escape_rate) + b'"'
    if v is None:
        return b"null"
    if v is True:
        return b"true"
    if v is False:
        return b"false"
    if isinstance(v, int):
        return str(v).encode()
    if isinstance(v, float):
        return repr(v).encode()
    if isinstance(v, (dict, Dup)):
        pairs = v.pairs if isinstance(v, Dup) else list(v.items())
        if not pairs:
            return b"{" + w() + b"}"
        # keys escaped 10× more rarely than values: an escaped key sends its whole piece to msgspec
        parts = [w() + dump(rng, k, ws, escape_rate / 10) + w() + b":" + w() + dump(rng, x, ws, escape_rate) + w()
                 for k, x in pairs]
        return b"{" + b",".join(parts) + b"}"
    if isinstance(v, (list, tuple)):
        if not v:
            return b"[" + w() + b"]"
        return b"[" + b",".join(w() + dump(rng, x, ws, escape_rate) + w() for x in v) + b"]"
    raise TypeError(type(v))


# ---------------------------------------------------------------------------------------------------- seed trace
_KERNEL_NAMES = ["void gemm<float, 128>(float const*, float*)", "ampere_sgemm_128x64_nn", "elementwise_kernel",
                 "ncclKernel_AllReduce_RING_LL_Sum_float", "Memcpy HtoD (Pageable -> Device)", "Memset (Device)"]


def base_events(rng: random.Random, n: int) -> list[dict]:
    """A small plausible Kineto event list: per step a CPU op, a runtime call, a GPU row (kernel / copy / memset)
    linked by correlation ids and flows, with metadata, annotations and memory instants."""
    ev: list[dict] = [
        {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}},
        {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7"}},
        {"ph": "M", "name": "process_name", "pid": 1234, "tid": 0, "args": {"name": "python"}},
    ]
    t = 1_000_000.0
    for i in range(n):
        corr = 100 + i
        ext = 500 + i
        ev.append({"ph": "X", "cat": "cpu_op", "name": rng.choice(["aten::mm", "aten::add", "aten::copy_"]),
                   "pid": 1234, "tid": 1234, "ts": round(t, 3), "dur": 12.5,
                   "args": {"External id": ext, "Input Dims": [[8, 16], [16, 4]], "Input type": ["float", "float"],
                            "Sequence number": i, "Fwd thread id": 0, "Record function id": 0, "Ev Idx": i}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1234, "tid": 1234,
                   "ts": round(t + 2, 3), "dur": 4.25, "args": {"External id": ext, "cbid": 211, "correlation": corr}})
        kind = rng.random()
        gt = round(t + 8.123, 3)
        if kind < 0.6:
            ev.append({"ph": "X", "cat": "kernel", "name": rng.choice(_KERNEL_NAMES[:4]), "pid": 0, "tid": 7,
                       "ts": gt, "dur": 3.5, "args": {
                           "External id": ext, "queued": 0, "device": 0, "context": 1, "stream": 7,
                           "correlation": corr, "registers per thread": 64, "shared memory": 4096,
                           "blocks per SM": 1.25, "warps per SM": 10.0, "grid": [64, 2, 1], "block": [128, 1, 1],
                           "est. achieved occupancy %": 50}})
        elif kind < 0.8:
            ev.append({"ph": "X", "cat": "gpu_memcpy", "name": _KERNEL_NAMES[4], "pid": 0, "tid": 7, "ts": gt,
                       "dur": 1.75, "args": {"External id": ext, "device": 0, "context": 1, "stream": 7,
                                             "correlation": corr, "bytes": 4096, "memory bandwidth (GB/s)": 2.3,
                                             "kind": "HtoD"}})
        else:
            ev.append({"ph": "X", "cat": "gpu_memset", "name": _KERNEL_NAMES[5], "pid": 0, "tid": 7, "ts": gt,
                       "dur": 0.5, "args": {"External id": ext, "device": 0, "stream": 7, "correlation": corr,
                                            "bytes": 512}})
        ev.append({"ph": "s", "id": corr, "pid": 1234, "tid": 1234, "ts": round(t + 2, 3), "cat": "ac2g",
                   "name": "ac2g"})
        ev.append({"ph": "f", "id": corr, "pid": 0, "tid": 7, "ts": gt, "cat": "ac2g", "name": "ac2g", "bp": "e"})
        if i % 5 == 0:
            ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i // 5}", "pid": 1234,
                       "tid": 1234, "ts": round(t - 1, 3), "dur": 40.0, "args": {"External id": 9000 + i}})
            ev.append({"ph": "X", "cat": "gpu_user_annotation", "name": f"ProfilerStep#{i // 5}", "pid": 0, "tid": 7,
                       "ts": gt, "dur": 30.0, "args": {"External id": 9000 + i, "device": 0, "stream": 7}})
        if i % 97 == 3:  # an instant event sends its piece to msgspec: rare, as in real traces
            ev.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1234, "tid": 1234,
                       "ts": round(t + 1, 3), "args": {"Total Reserved": 2097152, "Total Allocated": 1024,
                                                       "Bytes": 512, "Addr": 1234567, "Device Id": 0,
                                                       "Device Type": 1}})
        if i % 11 == 4:
            ev.append({"ph": "X", "cat": "python_function", "name": "torch/nn/modules/module.py(1501): _call_impl",
                       "pid": 1234, "tid": 1234, "ts": round(t - 0.5, 3), "dur": 30, "args": {"Python id": i,
                                                                                              "Python parent id": 0}})
        t += rng.choice([20, 25.5, 31.25, 40.125])
    return ev


def document(events: list, rng: random.Random) -> Any:
    doc = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem":
                                                    85899345920, "computeMajor": 8, "computeMinor": 0,
                                                    "numSms": 108, "maxThreadsPerBlock": 1024}],
           "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1}, "traceEvents": events,
           "displayTimeUnit": "ms", "baseTimeNanoseconds": 1700000000000000000}
    if rng.random() < 0.1:
        return events  # the bare-array form
    return doc


# ---------------------------------------------------------------------------------------------------- mutations
def _x_events(events: list) -> list[dict]:
    return [e for e in events if isinstance(e, dict) and e.get("ph") == "X"]


def _pick(rng: random.Random, events: list) -> dict:
    xs = _x_events(events)
    return rng.choice(xs) if xs else rng.choice([e for e in events if isinstance(e, dict)] or [{}])


_ODD_STRINGS = [
    'a"b', "a\\b", "a/b", "tab\there", "nl\nx", "é", "中文", "😀 emoji", "\u2028sep", "\x7f del",
    "}, {", '"}, {"ph": "X", "name": "inner"', "[1, 2]", "\\u0041", "'single'",
]
_NUMBERS_TIME = ["-0", "0", "1e3", "1E+3", "0.1e-2", "1.0", "1.50", "1234.5678", "1000000.123456789012345678",
                 "-5", "-0.0", "3.000000000001", "1e400", "1e-400", "123456789012345678901234567890",
                 "9007199254740993", "9200000000000000", "9199999999999999.999", "0.0000001", "12.3e-1",
                 "1.5E1", "100.", "01", "1.e3", "--1", "+1", ".5", "1e", "1e+", "NaN", "Infinity", "-Infinity",
                 "17.12345678901234567", "5e-324", "1.7976931348623157e308", "2e308"]
_NUMBERS_ID = ["-0", "0", "7", "-1", "1.0", "7.5", "1e1", "1E0", "9223372036854775807", "9223372036854775808",
               "-9223372036854775808", "-9223372036854775809", "18446744073709551616", "007", "1e400",
               "123456789012345678", "1234567890123456789", "99999999999999999999999"]
_NUMBERS_FLOAT = ["-0", "0", "0.0", "-0.0", "1e3", "1E+3", "0.1e-2", "1.0", "12.5", "123456789012345678",
                  "0.1234567890123456789", "1e22", "1e23", "1e-22", "1e-23", "9007199254740993", "1e300",
                  "1e301", "1e-300", "1e-301", "1e308", "1e309", "1e-320", "4.9e-324", "1e-400",
                  "2.2250738585072014e-308", "123456789012345.6", "1234567890123456.7", "0.30000000000000004",
                  "1" + "0" * 40, "1" + "0" * 310, "0." + "0" * 30 + "1", "3.14159265358979323846264338327950288",
                  "7e0", "50", "100.000", "99.99999999999999999"]


def m_name_escape(rng, events):
    e = _pick(rng, events)
    e["name"] = rng.choice(_ODD_STRINGS) + str(e.get("name", ""))
    return "name_escape"


def m_raw_name(rng, events):
    """Names as raw string content: invalid/lone surrogates, invalid UTF-8, NUL bytes (escaped and raw)."""
    e = _pick(rng, events)
    choice = rng.choice([b"\\ud800", b"\\udc00x", b"\\ud83d\\ude00", b"\\ud83dA", b"\\uDFFF\\uD800", b"\xff\xfe",
                         b"\xc3\x28", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\\u0000", b"a\x00b",
                         b"\xc0\xaf", b"\\x41", b"\\", b"\\u12", b"\\uZZZZ", b"\x1f", b"\x7f", b"\xc3\xa9"])
    field = rng.choice(["name", "name", "cat"])
    e[field] = RawStr(choice + str(e.get(field, "k")).encode())
    return "raw_name_" + field


def m_escaped_key(rng, events):
    e = _pick(rng, events)
    items = list(e.items())
    if rng.random() < 0.5 and isinstance(e.get("args"), dict) and e["args"]:
        a = e["args"]
        k = rng.choice(list(a))
        spelled = RawStr(encode_str(rng, k, 1.0) if rng.random() < 0.5 else
                         k.encode().replace(k[:1].encode(), f"\\u{ord(k[0]):04x}".encode(), 1))
        e["args"] = Dup([(spelled if kk == k else kk, v) for kk, v in a.items()])
        return "escaped_arg_key"
    k = rng.choice([k for k, _ in items])
    spelled = RawStr(k.encode().replace(k[-1:].encode(), f"\\u{ord(k[-1]):04x}".encode()))
    e.clear()
    e["__dup__"] = Dup([(spelled if kk == k else kk, v) for kk, v in items])
    return "escaped_key"


def m_duplicate_key(rng, events):
    e = _pick(rng, events)
    if rng.random() < 0.5 and isinstance(e.get("args"), dict) and e["args"]:
        a = e["args"]
        k = rng.choice(list(a))
        pairs = list(a.items()) + [(k, rng.choice([None, 3, "x", [1, 2, 3], a[k]]))]
        rng.shuffle(pairs)
        e["args"] = Dup(pairs)
        return "duplicate_arg_key"
    items = list(e.items())
    k = rng.choice([k for k, _ in items])
    pairs = items + [(k, rng.choice([None, 5, "X", "s", Num("1.5"), e[k]]))]
    rng.shuffle(pairs)
    e.clear()
    e["__dup__"] = Dup(pairs)
    return "duplicate_key"


def m_time_number(rng, events):
    e = _pick(rng, events)
    f = rng.choice(["ts", "dur"])
    r = rng.random()
    if r < 0.5:
        e[f] = Num(rng.choice(_NUMBERS_TIME))
    elif r < 0.8:  # 0..12 decimals, maybe negative
        d = rng.randrange(13)
        v = rng.randrange(0, 10 ** 7)
        frac = "".join(rng.choice("0123456789") for _ in range(d))
        e[f] = Num(("-" if rng.random() < 0.2 else "") + str(v) + ("." + frac if d else ""))
    else:
        e[f] = rng.choice([None, "12.5", True, [1], {"a": 1}, "abc"])
    return "time_" + f


_ID_FIELDS = ["correlation", "External id", "external id", "device", "stream", "registers per thread",
              "shared memory", "bytes", "rank", "Rank"]
_FLOAT_FIELDS = ["flops", "blocks per SM", "warps per SM", "est. achieved occupancy %"]


def m_id_value(rng, events):
    e = _pick(rng, events)
    top = rng.random() < 0.3
    v = rng.choice([Num(rng.choice(_NUMBERS_ID))] * 3 + ["7", "RANK 1 - GPU 0", True, False, None, [7], {"x": 7},
                                                        1.5, ""])
    if top:
        e[rng.choice(["pid", "tid"])] = v
        return "id_top"
    a = e.setdefault("args", {})
    if not isinstance(a, dict):
        return "id_skip"
    a[rng.choice(_ID_FIELDS)] = v
    return "id_arg"


def m_float_value(rng, events):
    e = _pick(rng, events)
    a = e.setdefault("args", {})
    if not isinstance(a, dict):
        return "float_skip"
    a[rng.choice(_FLOAT_FIELDS)] = rng.choice([Num(rng.choice(_NUMBERS_FLOAT))] * 4 + ["12", None, True, [1.5]])
    return "float_arg"


def m_nested_args(rng, events):
    e = _pick(rng, events)
    a = e.setdefault("args", {})
    if not isinstance(a, dict):
        return "nested_skip"
    k = rng.choice(["grid", "block", "Input Dims", "Input dims", "Input type", "kind", "Concrete Inputs", "other"])
    a[k] = rng.choice([[[1, 2], [3]], [{"x": 1}, 2, 3], [1, 2], [1, 2, 3, 4], [1.0, 2, 3], [Num("1e0"), 1, 1],
                       [Num("-0"), 1, 1], [True, 1, 1], [None, 1, 1], {"x": 1, "y": 2, "z": 3}, [[]], [],
                       ["1", "2", "3"], [Num("9223372036854775808"), 1, 1], "HtoD", "DtoH ", "", None, 5,
                       [[8, 16], [16, 4]], ["float", "", "\u00e9"], [[1, [2, [3, [4]]]]]])
    return "nested_" + k


def m_missing_extra(rng, events):
    e = _pick(rng, events)
    if rng.random() < 0.5 and e:
        k = rng.choice(list(e))
        del e[k]
        return "missing_" + k
    e[rng.choice(["extra", "s", "id", "bp", "args2", "X", "ph2", "Name"])] = rng.choice([1, "x", None, {"a": [1]}])
    return "extra_field"


def m_phase(rng, events):
    e = _pick(rng, events)
    e["ph"] = rng.choice(["Z", "x", "", "XX", "B", "E", "i", "I", "C", "b", "e", "n", "P", "O", "R", 5, None,
                          "\u0058", "é"])
    if rng.random() < 0.2:
        e["ph"] = RawStr(b"\\u0058")
    return "phase"


def m_args_type(rng, events):
    e = _pick(rng, events)
    e["args"] = rng.choice([None, [], 5, "args", True, {}, [{"correlation": 1}]])
    return "args_type"


def m_deep(rng, events):
    e = _pick(rng, events)
    a = e.setdefault("args", {})
    if not isinstance(a, dict):
        return "deep_skip"
    d = rng.choice([10, 59, 60, 61, 62, 100, 300, 2000])
    v: Any = 1
    for _ in range(d):
        v = [v] if rng.random() < 0.5 else {"k": v}
    a[rng.choice(["deep", "grid", "Input Dims", "kind", "correlation", "name"])] = v
    return "deep"


def m_long_name(rng, events):
    e = _pick(rng, events)
    n = rng.choice([300, 5000, 70000])
    e["name"] = "".join(rng.choice("abcdefgh<>:, é") for _ in range(n))
    return "long_name"


def m_many_names(rng, events):
    """Many distinct names of one length (every span equal in length: grouping by hash must compare bytes)."""
    L = rng.choice([1, 2, 8, 16])
    alphabet = "ab" if L > 4 else "abcdefghijklmnopqrstuvwxyz0123456789"
    for e in _x_events(events):
        if rng.random() < 0.9:
            e["name"] = "".join(rng.choice(alphabet) for _ in range(L))
            if rng.random() < 0.05:
                e["name"] = RawStr(encode_str(rng, e["name"], 1.0))  # the same text, escaped: one name
    return "many_names"


def m_cat_case(rng, events):
    e = _pick(rng, events)
    c = str(e.get("cat", "kernel"))
    e["cat"] = rng.choice([c.upper(), c.title(), c + " ", "Kernel", "GPU_MEMCPY", "gpu_user_annotation", "kernel"])
    return "cat_case"


def m_collective(rng, events):
    e = _pick(rng, events)
    a = e.setdefault("args", {})
    if not isinstance(a, dict):
        return "coll_skip"
    if rng.random() < 0.5:
        a.update({"Collective name": "allreduce", "In msg nelems": 1024, "Out msg nelems": 1024, "dtype": "Float",
                  "Group size": 2, "Process Group Name": "0", "Process Group Ranks": "[0, 1]", "Rank": 0})
    else:
        a["kernel_details"] = rng.choice(["regs:32", None, {"x": 1}])
    return "collective"


MUTATIONS = [m_name_escape, m_raw_name, m_escaped_key, m_duplicate_key, m_time_number, m_id_value, m_float_value,
             m_nested_args, m_missing_extra, m_phase, m_args_type, m_deep, m_long_name, m_many_names, m_cat_case,
             m_collective]


def _expand_dups(v: Any) -> Any:
    if isinstance(v, dict):
        if "__dup__" in v and len(v) == 1:
            return Dup([(k, _expand_dups(x)) for k, x in v["__dup__"].pairs])
        return {k: _expand_dups(x) for k, x in v.items()}
    if isinstance(v, Dup):
        return Dup([(k, _expand_dups(x)) for k, x in v.pairs])
    if isinstance(v, list):
        return [_expand_dups(x) for x in v]
    return v


def make_input(rng: random.Random) -> tuple[bytes, list[str], int]:
    """(file bytes, mutation kinds applied, chunk size) of one fuzz input."""
    events = base_events(rng, rng.choice([20, 60, 150, 400]))  # pieces are cut from 64 KiB blocks (or small_blocks)
    kinds = []
    for _ in range(rng.choice([0, 1, 1, 2, 4, 10, 30])):
        m = rng.choice(MUTATIONS)
        kinds.append(m(rng, events))
    ws_style = rng.random()
    ws = [b""] if ws_style < 0.2 else ([b" "] if ws_style < 0.5 else _WS)
    data = dump(rng, _expand_dups(document(events, rng)), ws, escape_rate=rng.choice([0.0, 0.0, 0.02, 0.3]))
    r = rng.random()
    if r < 0.06:
        cut = rng.randrange(1, len(data))
        data = data[:cut]
        kinds.append("truncated")
    elif r < 0.09:  # cut inside a string holding "}, {"
        i = data.find(b"}, {")
        if i > 0:
            data = data[:i + 2]
            kinds.append("cut_in_brace_string")
    if rng.random() < 0.05:
        data = b"\xef\xbb\xbf" + data
        kinds.append("bom")
    if rng.random() < 0.03:
        i = rng.randrange(len(data))
        data = data[:i] + b"\x00" + data[i:]
        kinds.append("nul_byte")
    chunk = rng.choice([64, 128, 200, 512, 1024, 4096, 1 << 20])
    return data, kinds or ["plain"], chunk


def fuzz(seed: int, count: int, workdir: Path, report_every: int = 10, timeout: float = 20.0,
         verbose: bool = True) -> dict:
    """Run ``count`` seeded inputs; findings are copied into ``workdir/findings``. Returns the summary."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20000))  # the serialiser recurses into deep mutations
    try:
        return _fuzz(seed, count, workdir, report_every, timeout, verbose)
    finally:  # restored: run inside the test suite, a raised limit changed what later tests in the process saw
        sys.setrecursionlimit(limit)  # (a 5,000-deep TOML gate config parsed instead of "not valid TOML")


def _fuzz(seed: int, count: int, workdir: Path, report_every: int, timeout: float, verbose: bool) -> dict:
    rng = random.Random(seed)
    workdir.mkdir(parents=True, exist_ok=True)
    tot: dict[str, Any] = {"inputs": 0, "divergences": {}, "scanned": 0, "decoded": 0, "findings": []}
    for i in range(count):
        data, kinds, chunk = make_input(rng)
        small = rng.random() < 0.7
        if small:  # at most ~400 pieces: thousands of tiny pieces take seconds per path (not a hang of gpulens)
            chunk = max(chunk, len(data) // 400)
        gz = rng.random() < 0.1
        p = workdir / (f"in{i}.pt.trace.json" + (".gz" if gz else ""))
        p.write_bytes(gzip.compress(data, compresslevel=1) if gz else data)
        got = compare(p, chunk, report=(i % report_every == 0), timeout=timeout, small_blocks=small)
        tot["inputs"] += 1
        tot["scanned"] += got["scanned"]
        tot["decoded"] += got["decoded"]
        if got["diff"]:
            key = "+".join(sorted(set(kinds)))
            tot["divergences"][key] = tot["divergences"].get(key, 0) + 1
            keep = workdir / "findings" / f"s{seed}_{i}_{p.name}"
            keep.parent.mkdir(exist_ok=True)
            keep.write_bytes(p.read_bytes())
            tot["findings"].append({"file": str(keep), "chunk": chunk, "kinds": kinds, "diff": got["diff"][:400]})
            if verbose:
                print(f"DIVERGENCE {keep} chunk={chunk} kinds={sorted(set(kinds))}: {got['diff'][:300]}", flush=True)
        if got.get("slow_crash"):
            c = got["slow_crash"]
            c = c[:c.find(":", 7)] + " at " + c.rsplit(" at ", 1)[-1]
            tot.setdefault("slow_crashes", {})[c] = tot.setdefault("slow_crashes", {}).get(c, 0) + 1
            keep = workdir / "slow_crash" / f"s{seed}_{i}_{p.name}"
            keep.parent.mkdir(exist_ok=True)
            keep.write_bytes(p.read_bytes())
        p.unlink()
        if verbose and (i + 1) % 100 == 0:
            print(json.dumps({k: v for k, v in tot.items() if k != "findings"}, default=str), flush=True)
    return tot


def files(paths: list[Path], chunks: list[int], report: bool = True, timeout: float = 300.0) -> dict:
    tot: dict[str, Any] = {"files": 0, "scanned": 0, "decoded": 0, "divergences": [], "per_file": {}}
    for p in paths:
        for c in chunks:
            t0 = time.process_time()
            got = compare(p, c, report=report, timeout=timeout)
            tot["files"] += 1
            tot["scanned"] += got["scanned"]
            tot["decoded"] += got["decoded"]
            tot["per_file"][f"{p.name}@{c}"] = (got["scanned"], got["decoded"], round(time.process_time() - t0, 1))
            line = f"{p} chunk={c} scanned={got['scanned']} decoded={got['decoded']}"
            if got["diff"]:
                tot["divergences"].append({"file": str(p), "chunk": c, "diff": got["diff"][:400]})
                line = "DIVERGENCE " + line + ": " + got["diff"][:300]
            print(line, flush=True)
    return tot


# ---------------------------------------------------------------------------------------------------- numbers
def random_number(rng: random.Random) -> str:
    """A JSON number of random shape: sign, 0 or 1..25 integer digits, 0..24 fraction digits, exponents around the
    float64 limits (±22 exact powers, ±300, ±308)."""
    out = rng.choice(["", "-"])
    out += rng.choice(["0", str(rng.randrange(1, 10)) + "".join(rng.choice("0123456789")
                                                               for _ in range(rng.randrange(0, 25)))])
    if rng.random() < 0.6:
        out += "." + "".join(rng.choice("0123456789") for _ in range(rng.randrange(1, 25)))
    if rng.random() < 0.4:
        out += rng.choice("eE") + rng.choice(["", "+", "-"]) + str(rng.choice(
            [0, 1, 5, 15, 22, 23, 37, 290, 300, 301, 307, 308, 309, 320, 330]))
    return out


def numbers(seed: int, count: int) -> list[str]:
    """Each random number as ``ts``, ``dur``, ``flops``, ``blocks per SM`` and ``correlation`` of one kernel,
    read by the scanner (:func:`read_piece` + ScannedRows) and by msgspec + the msgspec path's own conversions
    (``us_text_to_ns``, ``floats``, ``int_array``); returns the mismatches (empty when every value agrees, or the
    scanner left the piece to msgspec)."""
    import msgspec
    import numpy as np

    from gpulens.collectors._kineto_columns import int_array, us_text_to_ns
    from gpulens.collectors._kineto_fast import read_piece
    from gpulens.collectors._kineto_rows import floats

    rng = random.Random(seed)
    bad = []
    for _ in range(count):
        s = random_number(rng)
        t = rng.choice([s, "1"])
        piece = ('[{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": %s, "dur": %s, "args": '
                 '{"flops": %s, "blocks per SM": %s, "correlation": %s}}]' % (s, t, s, s, t)).encode()
        got = read_piece(piece)
        if got is None:
            continue
        try:
            ref = msgspec.json.decode(piece)[0]
        except msgspec.ValidationError as exc:  # the msgspec path drops this event
            bad.append(f"{s}: the scanner reads an event msgspec refuses ({exc})")
            continue
        rows = got.rows()
        rows.keep(None)
        rows.set_gpu(np.arange(1))
        for key, arg in (("flops", "flops"), ("blocks_per_sm", "blocks per SM")):
            fv, sv = rows.floats(key)[0], floats([ref["args"][arg]])[0]
            if not (fv == sv and np.signbit(fv) == np.signbit(sv)) and not (np.isnan(fv) and np.isnan(sv)):
                bad.append(f"{s}: {key} {fv!r} vs {sv!r}")
        ts, ts_ok, dur, dur_ok = rows.times()
        r = us_text_to_ns([s.encode(), t.encode()])
        if (ts[0], bool(ts_ok[0]), dur[0], bool(dur_ok[0])) != (r[0][0], bool(r[1][0]), r[0][1], bool(r[1][1])):
            bad.append(f"{s}: ts/dur {ts[0]}/{dur[0]} vs {r[0][0]}/{r[0][1]}")
        cv, cok = rows.ids("correlation")
        rv, rok = int_array([ref["args"]["correlation"]])
        if bool(cok[0]) != bool(rok[0]) or (cok[0] and cv[0] != rv[0]):
            bad.append(f"{t}: correlation {cv[0]}/{cok[0]} vs {rv[0]}/{rok[0]}")
    return bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fuzz")
    f.add_argument("--seed", type=int, default=1)
    f.add_argument("--count", type=int, default=200)
    f.add_argument("--workdir", type=Path, default=Path("/tmp/fastfuzz"))
    f.add_argument("--report-every", type=int, default=10)
    f.add_argument("--timeout", type=float, default=20.0)
    nm = sub.add_parser("numbers")
    nm.add_argument("--seed", type=int, default=1)
    nm.add_argument("--count", type=int, default=20000)
    g = sub.add_parser("files")
    g.add_argument("paths", nargs="+", type=Path)
    g.add_argument("--chunks", default="4096,65536")
    g.add_argument("--no-report", action="store_true")
    a = ap.parse_args(argv)
    if a.cmd == "numbers":
        warm_up()
        bad = numbers(a.seed, a.count)
        print("\n".join(bad[:50]))
        print(json.dumps({"numbers": a.count, "mismatches": len(bad)}))
        return 1 if bad else 0
    if a.cmd == "fuzz":
        tot = fuzz(a.seed, a.count, a.workdir, a.report_every, a.timeout)
    else:
        tot = files(a.paths, [int(x) for x in a.chunks.split(",")], report=not a.no_report)
        tot.pop("per_file")
    print(json.dumps(tot, default=str)[:4000])
    return 1 if tot["divergences"] else 0


if __name__ == "__main__":
    sys.exit(main())
