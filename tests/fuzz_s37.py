"""Session-37 fuzzing: mutation kinds no earlier fuzzer makes (tests/fuzzing.py, fuzz_more, fuzz_fresh, fuzz_cli,
fuzz_s8 … fuzz_s11, fuzz_s34 … fuzz_s36), checked through ``gpulens.analyze`` with every report and, every
``--cli-every``-th input, the ``analyze`` command with ``--json --html --markdown``
(:func:`tests.fuzz_s10.check_kind`), plus a count check per kind where the right count is known.

``python tests/fuzz_s37.py --seed S --count N --workdir DIR [--timeout 20] [--kinds a,b] [--only I]`` (run it from
a folder outside the repository, DIR under /tmp). Kinds (:data:`KINDS`):

* ``num_edge`` — JSON numbers at the edges of their type, spelled as the file would hold them: ``2**63-1``,
  ``-2**63``, ``2**64-1``, a 400-digit integer, ``1e308``, the smallest subnormal ``5e-324``, ``-0``, ``1E3``
  for an integer field, or the same as a string (``"1e3"``, ``"9223372036854775807"``) — in ``ts``, ``dur``,
  device, stream, correlation, grid, block, bytes, pid or tid of 1–5 GPU events (Kineto, rocprofv3 JSON);
* ``csv_edge`` — the same edges in one numeric column of 1–3 rows (or every row) of a CSV input (rocprof v1 / v3,
  ``*_stats.csv``, nsys stats, ncu), plus digits of other scripts (``١٢٣``, full-width ``１２３``: Python's
  ``int`` reads them), ``+5``, ``5.``, ``.5``, ``1_000``;
* ``gz_damage`` — byte-level damage inside a gzip stream: its CRC or length trailer wrong, one byte of the deflate
  data changed, the FEXTRA flag set without its field, and valid variants (a file name, a comment, NUL padding
  after the member as tar writes, an odd OS byte): a valid one must give the seed's kernels, a damaged one a
  clear error or no more than the seed's with a warning;
* ``enc_in_gz`` — the text of a ``.json.gz`` re-encoded UTF-16 LE/BE or UTF-32 with a BOM, or UTF-8 with a BOM
  and CR line ends, then gzipped again: the seed's kernels or a clear error;
* ``schema_dup`` — CSV headers of other tool versions: a column written twice (the copy holding other values),
  renamed to another case / with spaces, moved, an unknown column inserted first;
* ``sqlite_refs`` — SQLite exports whose rows reference ids that are missing, written twice with other values, or
  that reference each other in a cycle; tables present but holding no row while the rows that point at them are
  there (nsys, rocpd, rpd);
* ``flow_cycle`` — Kineto links that loop: Python functions each other's parent (or their own), a flow whose
  start and end bind one event, CPU ops whose ``External id``/``Sequence number`` point back at themselves, one
  correlation id on a launch and on a kernel launched before it;
* ``flood_tiny`` — 100,000–300,000 identical tiny events (same time, same stream, 0 or 1 µs) of one kind (a hang
  check: anything quadratic in equal keys);
* ``fs_change`` — the input changing while it is read: truncated, cut in half, grown, replaced by another
  format or deleted by a thread 0–100 ms after the command starts;
* ``cli_opts`` — option combinations: the same path for two reports (``analyze``, ``diff``, ``gate``), a report
  file and the ``--csv`` tables folder on one path, a report onto the input itself, ``--workers 0 / -1 / 10**6``,
  ``--top 0 / -1 / 10**9``, a report into a folder that does not exist or onto a folder;
* ``gate_diff`` — the gate's baseline file and the diff's two inputs: a baseline with a BOM, UTF-16, duplicated
  keys, NaN tokens, a 400-digit integer, nested 5,000 deep or gzipped; a diff of a trace with itself, of a report
  with a trace, of two formats, of a folder with a file;
* ``rank_clash`` — rank folders whose files claim the same rank, a rank beyond the world size, one rank twice
  (plain and gzip), or world sizes that disagree.

The command-line kinds (``fs_change``, ``cli_opts``, ``gate_diff``) live in tests/fuzz_s37_cli.py. A run of all
kinds but ``flood_tiny`` takes ~5 s an input on a shared 2-core machine; ``flood_tiny`` ~10–30 s (run it apart:
``--kinds flood_tiny --count 10``).

A finding: an exception other than a one-line GpulensError naming the file, a hang past ``--timeout`` CPU s, an
impossible figure or bad text in any report, for a command an undocumented exit code, a traceback or a
multi-line exit-2 message, an input file changed by the command, and the per-kind count checks above.
"""

from __future__ import annotations

import copy
import gzip
import json
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzzing  # noqa: E402
from tests.fuzz_s10 import _gpu, _text_of, check_kind  # noqa: E402
from tests.fuzz_s36 import _kernels, at_most_check, json_doc  # noqa: E402
from tests.fuzz_s37_cli import (_CSV, _EXPECT, _KINETO, _cli_check, _fs_check, _gate_diff_check,  # noqa: E402
                                _pool, cli_opts, fs_change, gate_diff)

KINDS = ["num_edge", "csv_edge", "gz_damage", "enc_in_gz", "schema_dup", "sqlite_refs", "flow_cycle",
         "flood_tiny", "fs_change", "cli_opts", "gate_diff", "rank_clash"]
#: JSON spellings at the edges of a number's type (written raw into the document)
EDGE_JSON = ["9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551615",
             "1" + "0" * 400, "-1" + "0" * 30, "1e308", "-1e308", "5e-324", "2.2250738585072014e-308", "-0",
             "-0.0", "1E3", "1e3", '"1e3"', '"9223372036854775807"', '"-9223372036854775808"', '"0x10"', '" 7 "',
             "0.0000001"]
#: CSV cell spellings at the edges of a number's type
EDGE_CSV = ["9223372036854775807", "-9223372036854775808", "18446744073709551615", "1" + "0" * 400, "1e308",
            "-1e308", "5e-324", "-0", "1e3", "1E3", "Infinity", "-Infinity", "NaN", "+5", "5.", ".5", "1_000",
            "\u0661\u0662\u0663", "\uff11\uff12\uff13", "0x10", "1e-400", "2e400"]
def _json_seed(rng: random.Random, seeds, names) -> tuple[Path, object, list] | None:
    """(seed, its parsed document, its event list) of a JSON seed drawn from ``names``; None when it has none."""
    pool = _pool(seeds, names, _KINETO + ("rocprofv3_json", "rocprof_v1_json"))
    if not pool:
        return None
    seed = rng.choice(pool)
    got = json_doc(seed)
    return None if got is None else (seed, *got)


# ---------------------------------------------------------------------------------------------------- JSON edges
_NUM_FIELDS = ["ts", "dur", "pid", "tid", "args.device", "args.stream", "args.correlation", "args.External id",
               "args.grid", "args.block", "args.bytes", "args.registers per thread", "args.shared memory"]


def num_edge(rng: random.Random, seeds, names, work: Path, i: int) -> tuple[Path, Path] | None:
    got = _json_seed(rng, seeds, names)
    if got is None:
        return None
    seed, doc, ev = got
    gpu = [e for e in ev if _gpu(e)] or [e for e in ev if isinstance(e, dict) and e.get("ph") == "X"]
    if not gpu:
        return None
    field = rng.choice(_NUM_FIELDS)
    marks = {}
    for n, e in enumerate(rng.sample(gpu, min(len(gpu), rng.choice([1, 3, 5, len(gpu)])))):
        val = rng.choice(EDGE_JSON)
        key = f"@E{n}@"
        marks[f'"{key}"'] = val
        if field.startswith("args."):
            a = e.setdefault("args", {}) if isinstance(e.get("args", {}), dict) else None
            if a is None:
                continue
            k = field[5:]
            if k in ("grid", "block"):
                a[k] = [key, 1, 1]
            else:
                a[k] = key
        else:
            e[field] = key
    text = json.dumps(doc)
    for m, v in marks.items():
        text = text.replace(m, v)
    p = work / f"in{i}_{field.replace(' ', '_')}_{seed.name}".removesuffix(".gz")
    p.write_text(text)
    return p, seed


# ---------------------------------------------------------------------------------------------------- CSV edges
def _csv_rows(seed: Path) -> tuple[list[list[str]], str] | None:
    import csv
    import io

    raw, _ = _text_of(seed.read_bytes())
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    lines = text.splitlines()
    head = 0
    while head < len(lines) and (lines[head].startswith("==") or not lines[head].strip()):
        head += 1  # ncu's ==PROF== lines before the header
    rows = list(csv.reader(io.StringIO("\n".join(lines[head:]))))
    if len(rows) < 2:
        return None
    return rows, "\n".join(lines[:head])


def _write_csv(p: Path, rows: list[list[str]], pre: str) -> None:
    import csv
    import io

    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    p.write_text((pre + "\n" if pre else "") + buf.getvalue(), encoding="utf-8")


def _numeric_cols(rows: list[list[str]]) -> list[int]:
    out = []
    for c in range(len(rows[0])):
        vals = [r[c] for r in rows[1:] if c < len(r) and r[c].strip()]
        if vals and all(re.fullmatch(r"-?[0-9][0-9,.]*(?:[eE][-+]?[0-9]+)?", v.strip()) for v in vals):
            out.append(c)
    return out


def _csv_seed(rng: random.Random, seeds, names) -> tuple[Path, list[list[str]], str] | None:
    """(seed, its rows, the lines before its header) of a CSV seed drawn from ``names``; None when unreadable."""
    seed = rng.choice(_pool(seeds, names, _CSV))
    got = _csv_rows(seed)
    return None if got is None else (seed, *got)


def csv_edge(rng: random.Random, seeds, names, work: Path, i: int) -> tuple[Path, Path] | None:
    got = _csv_seed(rng, seeds, names)
    if got is None:
        return None
    seed, rows, pre = got
    cols = _numeric_cols(rows)
    if not cols:
        return None
    c = rng.choice(cols)
    body = [r for r in rows[1:] if c < len(r)]
    val = rng.choice(EDGE_CSV)
    for r in rng.sample(body, min(len(body), rng.choice([1, 3, len(body)]))):
        r[c] = val
    p = work / f"in{i}_c{c}_{seed.name}"
    _write_csv(p, rows, pre)
    return p, seed


# ---------------------------------------------------------------------------------------------------- gzip damage
def _gz_member(text: bytes, flags: int = 0, extra: bytes = b"", os_byte: int = 3) -> bytes:
    """A gzip member of ``text`` written by hand (RFC 1952), with header ``flags`` and their fields ``extra``."""
    import struct
    import zlib

    co = zlib.compressobj(6, zlib.DEFLATED, -15)
    body = co.compress(text) + co.flush()
    head = b"\x1f\x8b\x08" + bytes([flags]) + struct.pack("<I", 1_700_000_000) + b"\x00" + bytes([os_byte])
    return head + extra + body + struct.pack("<II", zlib.crc32(text), len(text) & 0xFFFFFFFF)


GZ_VALID = {"fname", "fcomment", "pad_nul", "os_odd", "fextra_ok"}


def gz_damage(rng: random.Random, seeds, names, work: Path, i: int) -> tuple[Path, Path] | None:
    pool = [p for p in _pool(seeds, names, _KINETO + ("rocprofv3_json",)) if p.name.endswith(".gz")]
    seed = rng.choice(pool)
    text = gzip.decompress(seed.read_bytes())
    op = rng.choice(["crc", "isize", "flip_mid", "fextra_bad", "fname", "fcomment", "pad_nul", "os_odd",
                     "fextra_ok", "header_only", "flip_near_end"])
    m = _gz_member(text)
    if op == "crc":
        out = m[:-8] + bytes(b ^ 0x5A for b in m[-8:-4]) + m[-4:]
    elif op == "isize":
        out = m[:-4] + (len(text) + 7 & 0xFFFFFFFF).to_bytes(4, "little")
    elif op == "flip_mid":
        b = bytearray(m)
        b[len(b) // 2] ^= 0xFF
        out = bytes(b)
    elif op == "flip_near_end":
        b = bytearray(m)
        b[len(b) - 12] ^= 0x01
        out = bytes(b)
    elif op == "fextra_bad":  # FEXTRA set, no field: the deflate bytes are read as its length
        out = m[:3] + b"\x04" + m[4:]
    elif op == "fname":
        out = _gz_member(text, 0x08, b"trace.json\x00")
    elif op == "fcomment":
        out = _gz_member(text, 0x10, "written by a \u00e9 tool".encode("latin-1") + b"\x00")
    elif op == "fextra_ok":
        out = _gz_member(text, 0x04, b"\x06\x00AB\x02\x00xy")
    elif op == "pad_nul":
        out = m + bytes(rng.choice([1, 512, 10240]))
    elif op == "os_odd":
        out = _gz_member(text, os_byte=255)
    else:
        out = m[:10]
    p = work / f"in{i}_{op}_{seed.name}"
    p.write_bytes(out)
    n = _kernels(seed)
    _EXPECT.update(op=op, **({"kernels": n} if op in GZ_VALID else {"at_most": n}))
    return p, seed


def enc_in_gz(rng: random.Random, seeds, names, work: Path, i: int) -> tuple[Path, Path] | None:
    pool = _pool(seeds, names, _KINETO + ("rocprofv3_json", "rocprofv3_csv", "rocprof_v1", "nsys_stats"))
    seed = rng.choice(pool)
    raw, _ = _text_of(seed.read_bytes())
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    op = rng.choice(["utf-16", "utf-16-le-bom", "utf-16-be-bom", "utf-32", "utf8_bom_cr"])
    if op == "utf-16":
        data = text.encode("utf-16")
    elif op == "utf-16-le-bom":
        data = b"\xff\xfe" + text.encode("utf-16-le")
    elif op == "utf-16-be-bom":
        data = b"\xfe\xff" + text.encode("utf-16-be")
    elif op == "utf-32":
        data = text.encode("utf-32")
    else:
        data = b"\xef\xbb\xbf" + text.replace("\r\n", "\n").replace("\n", "\r").encode()
    name = seed.name if seed.name.endswith(".gz") else seed.name + ".gz"
    p = work / f"in{i}_{op}_{name}"
    p.write_bytes(gzip.compress(data, 1))
    _EXPECT.update(op=op, kernels_or_error=_kernels(seed))
    return p, seed


# ---------------------------------------------------------------------------------------------------- CSV schemas
def schema_dup(rng: random.Random, seeds, names, work: Path, i: int) -> tuple[Path, Path] | None:
    got = _csv_seed(rng, seeds, names)
    if got is None:
        return None
    seed, rows, pre = got
    head = rows[0]
    c = rng.randrange(len(head))
    op = rng.choice(["dup_other", "dup_same", "upper", "spaces", "move", "unknown_first", "trailing_space"])
    if any(len(r) != len(head) for r in rows):
        return None  # rows of another width than the header (a case of its own): a column op changes their meaning
    if op in ("dup_other", "dup_same"):
        for n, r in enumerate(rows):
            v = r[c]
            if n and op == "dup_other":
                v = str(int(v) + 1000) if re.fullmatch(r"-?\d+", v) else v + "_x"
            r.append(v)
    elif op == "upper":
        head[c] = head[c].upper() if head[c] != head[c].upper() else head[c].lower()
    elif op == "spaces":
        head[c] = head[c].replace("_", " ")
    elif op == "trailing_space":
        head[c] = " " + head[c] + " "
    elif op == "move":
        to = rng.randrange(len(head))
        for r in rows:
            r.insert(to, r.pop(c))
    else:
        for n, r in enumerate(rows):
            r.insert(0, "Unknown_Column" if n == 0 else str(n))
    p = work / f"in{i}_{op}_{seed.name}"
    _write_csv(p, rows, pre)
    if op in ("dup_same", "move", "unknown_first"):
        _EXPECT.update(op=op, kernels_or_error=_kernels(seed))
    return p, seed


# ---------------------------------------------------------------------------------------------------- SQLite refs
_K = "CUPTI_ACTIVITY_KIND_KERNEL"
NSYS_REFS = {
    "strings_dup": "CREATE TABLE s2 AS SELECT * FROM StringIds; DROP TABLE StringIds; "
                   "CREATE TABLE StringIds (id INTEGER, value TEXT); INSERT INTO StringIds SELECT * FROM s2; "
                   "INSERT INTO StringIds SELECT id, value || '_other' FROM s2; DROP TABLE s2",
    "runtime_dup_corr": "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME",
    "runtime_empty": "DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME",
    "strings_empty": "DELETE FROM StringIds",
    "gpu_empty": "DELETE FROM TARGET_INFO_GPU",
    "kernels_empty": f"DELETE FROM {_K}",
    "nvtx_reversed": 'UPDATE NVTX_EVENTS SET start = "end", "end" = start',
    "corr_cycle": f"UPDATE {_K} SET correlationId = 1; UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET correlationId = 1",
    "kernels_twice": f"INSERT INTO {_K} SELECT * FROM {_K}",
}
NSYS_SAME = {"strings_dup", "runtime_dup_corr", "runtime_empty", "gpu_empty", "nvtx_reversed", "corr_cycle",
             "strings_empty"}
RPD_REFS = {
    "api_ops_cycle": "INSERT INTO rocpd_api_ops (api_id, op_id) SELECT op_id, api_id FROM rocpd_api_ops",
    "api_ops_self": "UPDATE rocpd_api_ops SET op_id = api_id",
    "api_empty": "DELETE FROM rocpd_api",
    "strings_dup": "INSERT INTO rocpd_string (id, string) SELECT id + 0, string || '_x' FROM rocpd_string "
                   "WHERE 0",
    # every op and its launch link written twice (two overlapping parts merged): each copy one kernel read twice
    "ops_twice": "CREATE TABLE n AS SELECT max(id) AS m FROM rocpd_op; "
                 "INSERT INTO rocpd_op (id, gpuId, queueId, sequenceId, completionSignal, start, \"end\", "
                 "description_id, opType_id) SELECT id + (SELECT m FROM n), gpuId, queueId, sequenceId, "
                 "completionSignal, start, \"end\", description_id, opType_id FROM rocpd_op; "
                 "INSERT INTO rocpd_api_ops (api_id, op_id) SELECT api_id, op_id + (SELECT m FROM n) "
                 "FROM rocpd_api_ops WHERE op_id <= (SELECT m FROM n); DROP TABLE n",
}
RPD_SAME = {"api_ops_cycle", "api_ops_self", "api_empty", "strings_dup"}


def sqlite_refs(rng: random.Random, seeds, names, work: Path, i: int) -> tuple[Path, Path] | None:
    from tests.fuzz_s36 import _nsys_seeds, _sql_mutant

    which = rng.choice(["nsys", "nsys", "rpd"])
    if which == "nsys":
        seed = rng.choice(_nsys_seeds(seeds, names))
        op = rng.choice(sorted(NSYS_REFS))
        made = _sql_mutant(seed, work / f"in{i}_{op}_{seed.name}", NSYS_REFS[op], op, op in NSYS_SAME)
    else:
        seed = HERE / "data" / "rocprof" / "rpd_matmul" / "matmul_result.rpd"
        op = rng.choice(sorted(RPD_REFS))
        made = _sql_mutant(seed, work / f"in{i}_{op}.rpd", RPD_REFS[op], op, op in RPD_SAME)
    if op in ("kernels_twice", "ops_twice") and made is not None:
        _EXPECT.update(op=op, kernels_or_error=_kernels(seed))  # a copy of every row: read once, or said
        _EXPECT["dup_rows"] = True
    return made


# ---------------------------------------------------------------------------------------------------- Kineto loops
def flow_cycle(rng: random.Random, seeds, names, work: Path, i: int) -> tuple[Path, Path] | None:
    got = _json_seed(rng, seeds, [n for n in names if n in _KINETO])
    if got is None:
        return None
    seed, doc, ev = got
    op = rng.choice(["py_parent_cycle", "py_parent_self", "flow_same_event", "ext_self", "corr_backwards",
                     "seq_cycle"])
    host = [e for e in ev if isinstance(e, dict) and e.get("ph") == "X" and isinstance(e.get("ts"), (int, float))
            and not _gpu(e)]
    if not host:
        return None
    ts0 = min(e["ts"] for e in host)
    if op.startswith("py_parent"):
        n = rng.choice([2, 3, 50])
        for k in range(n):
            ev.append({"ph": "X", "cat": "python_function", "name": f"f{k}", "pid": 1, "tid": 1, "ts": ts0 + k,
                       "dur": 1000 - 2 * k, "args": {"Python id": 900_000 + k,
                                                     "Python parent id": 900_000 + ((k + 1) % n if op ==
                                                                                    "py_parent_cycle" else k)}})
    elif op == "flow_same_event":
        for e in rng.sample(host, min(len(host), 5)):
            fid = rng.randrange(10**6)
            ev.append({"ph": "s", "cat": "ac2g", "id": fid, "pid": e.get("pid"), "tid": e.get("tid"),
                       "ts": e["ts"], "bp": "e", "name": "ac2g"})
            ev.append({"ph": "f", "cat": "ac2g", "id": fid, "pid": e.get("pid"), "tid": e.get("tid"),
                       "ts": e["ts"], "bp": "e", "name": "ac2g"})
    elif op in ("ext_self", "seq_cycle"):
        for e in host:
            if isinstance(e.get("args"), dict):
                if op == "ext_self":
                    e["args"]["External id"] = 1
                else:
                    e["args"]["Sequence number"] = 7
                    e["args"]["Fwd thread id"] = e.get("tid", 0)
    else:  # a kernel that starts before the runtime call sharing its correlation id, every kernel one id
        for e in ev:
            if _gpu(e) and isinstance(e.get("args"), dict):
                e["args"]["correlation"] = 5
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": max(e["ts"] for e in host) + 10**6, "dur": 3, "args": {"correlation": 5}})
    p = work / f"in{i}_{op}_{seed.name}".removesuffix(".gz")
    p.write_text(json.dumps(doc))
    if op in ("py_parent_cycle", "py_parent_self", "flow_same_event", "ext_self", "seq_cycle"):
        _EXPECT.update(op=op, kernels=_kernels(seed))
    return p, seed


# ---------------------------------------------------------------------------------------------------- flood
def flood_tiny(rng: random.Random, seeds, names, work: Path, i: int) -> tuple[Path, Path] | None:
    n = rng.choice([100_000, 200_000])
    what = rng.choice(["kernel", "kernel0", "cpu_op", "runtime", "memcpy", "v3csv", "flow"])
    p = work / f"in{i}_flood_{what}_{n}"
    if what == "v3csv":
        head = ("Kind,Agent_Id,Queue_Id,Kernel_Id,Kernel_Name,Correlation_Id,Start_Timestamp,End_Timestamp,"
                "Private_Segment_Size,Group_Segment_Size,Workgroup_Size_X,Workgroup_Size_Y,Workgroup_Size_Z,"
                "Grid_Size_X,Grid_Size_Y,Grid_Size_Z\n")
        # one start and end, each row its own dispatch (correlation id): n launches, none a duplicate of another
        p = p.with_name(p.name + "_kernel_trace.csv")
        p.write_text(head + "".join(f"KERNEL_DISPATCH,1,1,7,k,{c},1000,1001,0,0,64,1,1,64,1,1\n"
                                    for c in range(1, n + 1)))
        _EXPECT.update(op=what, kernels_or_error=n)
        return p, p
    one = {"kernel": {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1000, "dur": 1,
                      "args": {"device": 0, "stream": 7, "correlation": 1}},
           "kernel0": {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1000, "dur": 0,
                       "args": {"device": 0, "stream": 7}},
           "cpu_op": {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1000, "dur": 1,
                      "args": {"External id": 1}},
           "runtime": {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": 1000, "dur": 1, "args": {"correlation": 1}},
           "memcpy": {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0,
                      "tid": 7, "ts": 1000, "dur": 1, "args": {"device": 0, "stream": 7, "bytes": 4}},
           "flow": {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 1, "pid": 1, "tid": 1, "ts": 1000, "bp": "e"}}
    body = json.dumps(one[what])
    anchor = json.dumps({"ph": "X", "cat": "kernel", "name": "anchor", "pid": 0, "tid": 7, "ts": 2000, "dur": 5,
                         "args": {"device": 0, "stream": 7}})
    p = p.with_name(p.name + ".pt.trace.json")
    p.write_text('{"traceEvents": [' + ",".join([body] * n + [anchor]) + "]}")
    want = n + 1 if what in ("kernel", "kernel0") else 1
    _EXPECT.update(op=what, kernels=want)
    return p, p


# ---------------------------------------------------------------------------------------------------- ranks
def rank_clash(rng: random.Random, seeds, names, work: Path, i: int) -> tuple[Path, Path] | None:
    got = _json_seed(rng, seeds, [n for n in names if n in ("kineto", "kineto_b12", "case_B13.json")])
    if got is None:
        return None
    seed, doc, _ = got
    if not isinstance(doc, dict):
        return None
    op = rng.choice(["same_rank", "rank_beyond", "plain_and_gz", "world_disagree"])
    d = work / f"in{i}_{op}"
    d.mkdir()
    docs = []
    for r in (0, 1):
        x = copy.deepcopy(doc)
        info = {"rank": r, "world_size": 2, "backend": "nccl"}
        if op == "same_rank":
            info["rank"] = 0
        elif op == "rank_beyond" and r == 1:
            info["rank"] = 5
        elif op == "world_disagree" and r == 1:
            info["world_size"] = 8
        x["distributedInfo"] = info
        docs.append(x)
    if op == "plain_and_gz":
        (d / "rank0.pt.trace.json").write_text(json.dumps(docs[0]))
        (d / "rank0.pt.trace.json.gz").write_bytes(gzip.compress(json.dumps(docs[0]).encode()))
        (d / "rank1.pt.trace.json").write_text(json.dumps(docs[1]))
    else:
        for r, x in enumerate(docs):
            (d / f"rank{r}.pt.trace.json").write_text(json.dumps(x))
    _EXPECT.update(op=op, seed_kernels=_kernels(seed))
    return d, seed


def _rank_check(path: Path) -> str | None:
    """Two rank files of the seed's kernels each: 2× the seed's kernels, or a warning saying why not."""
    import gpulens.collectors as col
    from gpulens.errors import GpulensError

    n = _EXPECT.get("seed_kernels")
    try:
        tl = col.collect(path, strict=False, cache=False)
    except GpulensError:
        return None
    got = int(tl.events["kind"].astype(str).isin(["kernel", "comm"]).sum())
    if n is None:
        return None
    want = 3 * n if _EXPECT["op"] == "plain_and_gz" else 2 * n  # rank 0 twice: kept apart, said (not joined)
    if got != want:
        return f"{_EXPECT['op']}: {got} kernels from {want // n} rank files of {n} each"
    if _EXPECT["op"] in ("same_rank", "plain_and_gz") and not any("rank 0" in w for w in tl.meta.warnings):
        return f"{_EXPECT['op']}: two files record rank 0, no warning says so"
    if _EXPECT["op"] == "rank_beyond" and not any("rank 5" in w for w in tl.meta.warnings):
        return "rank_beyond: rank 5 of a world of 2 read without a warning"
    return None


# ---------------------------------------------------------------------------------------------------- driver
def make(rng: random.Random, seeds: dict[str, Path], names: list[str], work: Path, i: int,
         kind: str) -> tuple[Path, Path] | None:
    """(mutant, seed) for ``kind``; None when ``kind`` does not apply to the drawn seed."""
    _EXPECT.clear()
    return {"num_edge": num_edge, "csv_edge": csv_edge, "gz_damage": gz_damage, "enc_in_gz": enc_in_gz,
            "schema_dup": schema_dup, "sqlite_refs": sqlite_refs, "flow_cycle": flow_cycle,
            "flood_tiny": flood_tiny, "fs_change": fs_change, "cli_opts": cli_opts, "gate_diff": gate_diff,
            "rank_clash": rank_clash}[kind](rng, seeds, names, work, i)


def _count_check(path: Path) -> str | None:
    """The kernels read are ``kernels`` (always), ``kernels_or_error`` (or a clear error), or no more than
    ``at_most`` (with a warning when fewer)."""
    import gpulens.collectors as col
    from gpulens.errors import GpulensError

    try:
        tl = col.collect(path, strict=False, cache=False)
    except GpulensError as exc:
        if _EXPECT.get("kernels") is not None:
            return f"{_EXPECT['op']}: refused ({str(exc)[:120]}), the seed's {_EXPECT['kernels']} kernels are readable"
        return None
    got = int(tl.events["kind"].astype(str).isin(["kernel", "comm"]).sum())
    want = _EXPECT.get("kernels", _EXPECT.get("kernels_or_error"))
    if want is not None and got != want:
        if _EXPECT.get("dup_rows") and got == 2 * want and tl.meta.warnings:
            return None
        return f"{_EXPECT['op']}: {got} kernels read, the seed has {want}" + \
            ("" if tl.meta.warnings else " (no warning)")
    return at_most_check(_EXPECT, got, bool(tl.meta.warnings))


def _one(kind: str, rng: random.Random, path: Path, work: Path, strict: bool, cli: bool) -> str | None:
    if kind == "fs_change":
        return _fs_check(path, work)
    if kind == "cli_opts":
        return _cli_check(path, work)
    if kind == "gate_diff":
        return _gate_diff_check(path, work)
    what = check_kind(kind, {}, rng, path, work, strict, cli)
    if what is None and kind == "rank_clash":
        what = _rank_check(path)
    if what is None and any(k in _EXPECT for k in ("kernels", "kernels_or_error", "at_most")):
        what = _count_check(path)
    return what


def main(argv: list[str] | None = None) -> int:
    return fuzzing.kind_campaign(argv, KINDS, make, _one, seed=37037, timeout=20.0,
                                 keep=lambda kind: kind not in ("fs_change",))


if __name__ == "__main__":
    sys.exit(main())
