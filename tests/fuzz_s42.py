"""Session-42 fuzzing: mutation kinds no earlier fuzzer makes (tests/fuzzing.py, fuzz_more … fuzz_s41), on the seeds
of tests/fuzzing.py ``--extended`` plus the newest readers' inputs (nvprof's SQLite profile and a Visual Profiler
session embedding it, built by tests/test_trust_s41_real.py).

``python tests/fuzz_s42.py --seed S --count N --workdir DIR [--timeout 20] [--kinds a,b] [--only I]`` (run it from
a folder outside the repository, DIR under /tmp). Kinds (:data:`KINDS`):

* ``nvprof_db`` — nvprof's database changed by one statement of :data:`NVPROF_OPS`: callback ids as text / NULL /
  unknown, ``StringTable`` emptied or its values BLOBs, kernel names past it, kernels of negative length or in µs,
  the same kernels in both kernel tables, device rows twice / gone / of zero SMs, ``Version`` as text, a table
  dropped, bytes flipped;
* ``nvvp_xml`` — a Visual Profiler session whose XML is damaged or odd (:data:`XML_OPS`): CRLF base64 lines,
  base64 without padding or with junk, one ``<split>`` per line, CDATA, a commented-out ``<pdm>``, an empty
  first profile, two ``<timelinepdm>``, UTF-16, a BOM, a gzip stream of 64 MiB of zeros (a decompression bomb), the
  session gzipped, cut in the middle of its base64: the variants nvvp or a user could write (:data:`XML_SAME`) must
  give the embedded profile's kernel, the damaged ones one error line;
* ``unit_lie`` — a trace whose times are in another unit than its header says: Kineto ``displayTimeUnit`` "ns" over
  µs times or its times ×1000 under "ms", rocprofv3 / rocprof v1 CSV times ÷1000 (µs in ns columns), nsys export
  times in µs: a report within the invariants;
* ``report_version`` — the JSON report of a seed as another gpulens version might write it (:data:`REPORT_OPS`):
  ``schema_version`` 1 / 3 / "2" / null / missing, ``tool.version`` odd, a summary key removed, unknown keys added at
  each level, a source's ``summary`` null / a list, ``top_kernels`` rows missing keys; also its baseline (``baseline
  save``) with a key missing or added: ``diff`` and ``gate`` both ways, ``baseline save`` of the report;
* ``older_on_new`` — a mutation kind of tests/fuzz_s40.py or fuzz_s41.py (:data:`OLDER`) on one of the seeds no
  earlier campaign had (:data:`NEW`: nvprof, a Visual Profiler session, an ``nsys stats`` GPU trace CSV, a
  rocmProfileData trace, a real ``.ncu-rep``), checked as that campaign checks it;
* ``opts_text`` — ``--steps`` / ``--window`` / ``--ranks`` / ``--top`` spelled with digits of other scripts,
  ``_``, ``+``, spaces, a full-width colon, and ``--device-spec`` files of impossible figures (:data:`SPEC_CASES`:
  negative / all-zero peaks, ``figures`` a list / null / text with a unit / unknown names, an empty object, a list,
  a spec of only a name, an odd compute capability): a report within the invariants or one error line.

``analyze`` runs are checked with :func:`tests.fuzz_s38.report_check`; ``diff`` / ``gate`` / ``baseline`` with
:func:`tests.fuzz_s37_cli._exit_check`. Every fault found by this campaign has its regression in
tests/test_trust_s42_fuzz.py.
"""

from __future__ import annotations

import base64
import gzip
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
from tests.fuzz_s38 import _EXPECT, report_check  # noqa: E402
from tests.fuzz_s40 import _into, _seed_files, _target, diff_gate_check  # noqa: E402

KINDS = ["nvprof_db", "nvvp_xml", "unit_lie", "report_version", "opts_text", "older_on_new"]
#: The seeds this campaign adds (:func:`_new_seeds`), which no earlier campaign mutated.
NEW = ["nvprof", "nvvp_session", "nsys_gpu_trace", "rpd", "ncu_rep_h200"]
#: The earlier campaigns' mutation kinds run on :data:`NEW` (``older_on_new``).
OLDER = {"fuzz_s40": ["json_value", "csv_cell", "sqlite_cell", "struct_cut", "junk_dir"],
         "fuzz_s41": ["csv_layout", "sqlite_schema", "packing", "dir_entries"]}
_CK = "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL"
NVPROF_OPS = {
    "cbid_text": "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET cbid = 'cb' || cbid",
    "cbid_null": "{loose:CUPTI_ACTIVITY_KIND_RUNTIME} UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET cbid = NULL "
                 "WHERE rowid % 2 = 0",
    "cbid_unknown": "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET cbid = cbid + 100000",
    "strings_gone": "DELETE FROM StringTable",
    "strings_blob": "UPDATE StringTable SET value = CAST(value AS BLOB)",
    "name_past": f"UPDATE {_CK} SET name = name + 1000",
    "neg_kernels": f'UPDATE {_CK} SET "end" = start - 1000',
    "kernels_us": f'UPDATE {_CK} SET start = start / 1000, "end" = "end" / 1000',
    "both_tables": f"CREATE TABLE IF NOT EXISTS CUPTI_ACTIVITY_KIND_KERNEL AS SELECT * FROM {_CK} WHERE 0; "
                   f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM {_CK}",
    "device_twice": "{loose:CUPTI_ACTIVITY_KIND_DEVICE} INSERT INTO CUPTI_ACTIVITY_KIND_DEVICE SELECT * FROM CUPTI_ACTIVITY_KIND_DEVICE",
    "device_gone": "DELETE FROM CUPTI_ACTIVITY_KIND_DEVICE",
    "device_zero": "UPDATE CUPTI_ACTIVITY_KIND_DEVICE SET numMultiprocessors = 0, coreClockRate = -1, "
                   "globalMemoryBandwidth = 0",
    "version_text": "UPDATE Version SET version = 'twelve'",
    "drop_kernels": f"DROP TABLE {_CK}",
    "drop_runtime": "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME",
    "memcpy_null": "{loose:CUPTI_ACTIVITY_KIND_MEMCPY} UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = NULL, start = NULL",
    "corr_zero": f"UPDATE {_CK} SET correlationId = 0; UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET correlationId = 0",
}
XML_OPS = ["crlf", "no_padding", "junk_b64", "split_per_line", "cdata", "commented_pdm", "empty_first",
           "two_timelinepdm", "utf16", "bom", "bomb", "gzipped", "cut_b64", "bad_gzip"]
REPORT_OPS = ["schema_1", "schema_3", "schema_text", "schema_null", "schema_missing", "tool_version", "summary_key",
              "extra_keys", "summary_null", "summary_list", "top_rows_short", "base_key_missing", "base_key_extra"]
OPT_CASES = [["--steps", "\u0662:\u0663"], ["--steps", "1_0:2_0"], ["--steps", "+2"], ["--steps", " 2 : 3 "],
             ["--steps", "2\uff1a3"], ["--steps", "\uff12"], ["--window", "1_000:5ms"], ["--window", "+0:+5ms"],
             ["--window", "0\uff1a5ms"], ["--window", "0:\uff15ms"], ["--window", "0:5 ms"], ["--window", "0:.5e1ms"],
             ["--ranks", "\u0660-\u0661"], ["--ranks", "0-1_0"], ["--top", "\u0663"], ["--top", "+3"]]
_SPEC = {"name": "Test GPU", "compute_capability": "9.0", "num_sms": 132, "memory_gb": 80,
         "figures": {"memory_bandwidth": 3350, "matrix.bf16": 989, "vector.fp32": 67, "clock_mhz": 1980}}
SPEC_CASES = {"peak_negative": {"figures": {"matrix.bf16": -989, "vector.fp32": -67}},
              "bw_negative": {"figures": {"memory_bandwidth": -3350}}, "all_zero": {"figures": {
                  "memory_bandwidth": 0, "matrix.bf16": 0, "vector.fp32": 0, "clock_mhz": 0}},
              "figures_list": {"figures": [3350, 989]}, "figures_null": {"figures": None},
              "figure_unit_text": {"figures": {"memory_bandwidth": "3350 GB/s"}},
              "figure_unknown": {"figures": {"matrix.fp3": 1, "warp.speed": 9}}, "name_only": "name_only",
              "empty": "empty", "list": "list", "cc_odd": {"compute_capability": "nine"},
              "cc_huge": {"compute_capability": "99.99"}, "vendor_amd": {"vendor": "amd", "num_sms": -304}}


def _loose(sql: str) -> str:
    """``{loose:T}`` in ``sql`` → statements re-creating table T without its constraints (NOT NULL, UNIQUE)."""
    return re.sub(r"\{loose:(\w+)\}", lambda m: f'CREATE TABLE "_l" AS SELECT * FROM {m[1]}; DROP TABLE {m[1]}; '
                  f'ALTER TABLE "_l" RENAME TO {m[1]};', sql)


def _new_seeds(a) -> dict[str, Path]:
    """The seeds of :data:`NEW`: nvprof's SQLite profile (tests/test_trust_s41_real.py's T4 vectorAdd), a Visual
    Profiler session embedding it, an ``nsys stats --report cuda_gpu_trace`` CSV (tests/test_trust_s36_real.py),
    a rocmProfileData trace and a real Nsight Compute report (tests/data)."""
    from tests.test_trust_s36_real import _GPU_TRACE
    from tests.test_trust_s41_real import nvprof_db, nvvp_session

    d = a.workdir / "seeds"
    db = d / "app.nvvp"
    if not db.exists():
        nvprof_db(db)
    sess = d / "NewSession1.nvvp"
    if not sess.exists():
        nvvp_session(sess, [db.read_bytes()])
    trace = d / "report1_cuda_gpu_trace.csv"
    trace.write_text(_GPU_TRACE)
    rpd = d / "matmul_result.rpd"
    shutil.copyfile(HERE / "data" / "rocprof" / "rpd_matmul" / "matmul_result.rpd", rpd)
    rep = d / "h200_kernels.ncu-rep"
    shutil.copyfile(HERE / "data" / "nvidia" / "h200" / "h200_kernels.ncu-rep", rep)
    return dict(zip(NEW, (db, sess, trace, rpd, rep)))


def older_on_new(rng, seeds, names, work: Path, i: int):
    """One mutation of an earlier campaign (:data:`OLDER`) on one of the seeds :data:`NEW`."""
    import importlib

    mod = rng.choice(sorted(OLDER))
    kind = rng.choice(OLDER[mod])
    _EXPECT["older"] = (mod, kind)
    try:
        got = getattr(importlib.import_module(f"tests.{mod}"), kind)(rng, seeds, NEW, work, i)
    except IndexError:  # the kind has no input among NEW (json_value: no JSON seed)
        return None
    if got is not None:
        _EXPECT["op"] = f"{mod}.{kind}: {_EXPECT.get('op', '?')}"
    return got


def nvprof_db(rng, seeds, names, work: Path, i: int):
    p = work / "app.nvvp"
    shutil.copyfile(seeds["nvprof"], p)
    op = rng.choice(sorted(NVPROF_OPS) + ["flip_bytes"])
    if op == "flip_bytes":
        b = bytearray(p.read_bytes())
        for _ in range(rng.randint(1, 8)):
            j = rng.randrange(100, len(b))
            b[j] ^= 1 << rng.randrange(8)
        p.write_bytes(bytes(b))
    else:
        con = sqlite3.connect(p)
        try:
            con.executescript(_loose(NVPROF_OPS[op]))
            con.commit()
        except sqlite3.Error:
            return None
        finally:
            con.close()
    _EXPECT["op"] = f"nvprof: {op}"
    return p, seeds["nvprof"]


def nvvp_xml(rng, seeds, names, work: Path, i: int):
    src = seeds["nvvp_session"]
    text = src.read_text()
    m = re.search(r"<split>(.*?)</split>", text, re.S)
    b64 = m.group(1)
    flat = b64.replace("\n", "")
    op = rng.choice(XML_OPS)
    name = "NewSession1.nvvp"
    data: bytes | None = None
    if op == "crlf":
        out = text.replace("\n", "\r\n")
    elif op == "no_padding":
        out = text.replace(b64, flat.rstrip("="))
    elif op == "junk_b64":
        at = rng.randrange(len(flat))
        out = text.replace(b64, flat[:at] + rng.choice(["!", "*", "\u00e9", " ", "-"]) + flat[at:])
    elif op == "split_per_line":
        out = text.replace(f"<split>{b64}</split>", "".join(f"<split>{ln}</split>\n" for ln in b64.split("\n")))
    elif op == "cdata":
        out = text.replace(b64, f"<![CDATA[{b64}]]>")
    elif op == "commented_pdm":
        out = text.replace("<timelinepdm>\n", "<timelinepdm>\n<!-- <pdm><split>AAAA</split></pdm> -->\n")
    elif op == "empty_first":
        out = text.replace("<timelinepdm>\n", "<timelinepdm>\n<pdm></pdm>\n")
    elif op == "two_timelinepdm":
        out = text.replace("<timelinestate>", "<timelinepdm></timelinepdm>\n<timelinestate>")
    elif op in ("utf16", "bom"):
        out = None
        data = text.encode("utf-16") if op == "utf16" else b"\xef\xbb\xbf" + text.encode()
    elif op == "bomb":
        z = base64.b64encode(gzip.compress(b"SQLite format 3\x00" + bytes(64 << 20), 9)).decode()
        out = text.replace(b64, z)
    elif op == "gzipped":
        out, data, name = None, gzip.compress(text.encode()), "NewSession1.nvvp.gz"
    elif op == "cut_b64":
        out = text.replace(b64, b64[: rng.randrange(1, len(b64))])
    else:  # bad_gzip: valid base64 of a damaged gzip stream
        raw = bytearray(base64.b64decode(flat))
        raw[rng.randrange(10, len(raw) - 8)] ^= 0xFF
        out = text.replace(b64, base64.b64encode(bytes(raw)).decode())
    p = work / name
    p.write_bytes(data if data is not None else out.encode())
    _EXPECT["op"] = f"nvvp session: {op}"
    return p, src


def _csv_times(text: str, cols: tuple[str, ...], f) -> str | None:
    import csv
    import io

    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return None
    idx = [j for j, c in enumerate(rows[0]) if c in cols]
    if not idx:
        return None
    for r in rows[1:]:
        for j in idx:
            if j < len(r) and r[j].strip().isdigit():
                r[j] = str(f(int(r[j])))
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def unit_lie(rng, seeds, names, work: Path, i: int):
    op = rng.choice(["kineto_ns_header", "kineto_ms_header", "csv_us", "nsys_us"])
    if op.startswith("kineto"):
        cands = [f for f in _seed_files(seeds, names, (".json", ".json.gz")) if b"traceEvents" in
                 (gzip.decompress(f.read_bytes()) if f.name.endswith(".gz") else f.read_bytes())[:65536]]
        src = rng.choice(cands)
        raw = src.read_bytes()
        try:
            doc = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
        except ValueError:
            return None
        if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
            return None
        if op == "kineto_ns_header":
            doc["displayTimeUnit"] = "ns"
        else:
            doc["displayTimeUnit"] = "ms"
            for e in doc["traceEvents"]:
                if isinstance(e, dict):
                    for k in ("ts", "dur"):
                        if isinstance(e.get(k), (int, float)) and not isinstance(e.get(k), bool):
                            e[k] = e[k] * 1000
        p, seed = _into(work, src, seeds, names)
        body = json.dumps(doc).encode()
        p.write_bytes(gzip.compress(body) if raw[:2] == b"\x1f\x8b" else body)
    elif op == "csv_us":
        cands = [f for f in _seed_files(seeds, names, (".csv",)) if re.search(
            r"BeginNs|Start_Timestamp|start_ns", f.read_text(errors="replace")[:2000])]
        if not cands:
            return None
        src = rng.choice(cands)
        out = _csv_times(src.read_text(errors="replace"), ("BeginNs", "EndNs", "Start_Timestamp", "End_Timestamp",
                                                            "CompleteNs", "DispatchNs"), lambda v: v // 1000)
        if out is None:
            return None
        p, seed = _into(work, src, seeds, names)
        p.write_text(out)
    else:
        src = seeds["nsys_sqlite"]
        p, seed = _into(work, src, seeds, names)
        con = sqlite3.connect(p)
        which = rng.choice(["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"])
        con.execute(f'UPDATE {which} SET start = start / 1000, "end" = "end" / 1000')
        con.commit()
        con.close()
        op += f" ({which})"
    _EXPECT["op"] = f"{src.name}: {op}"
    return _target(p, seed, work), seed


def _drop_one(doc: dict, rng, where: str) -> None:
    s = doc["sources"][0]
    d = s.get(where)
    if isinstance(d, dict) and d:
        del d[rng.choice(sorted(d))]


def report_version(rng, seeds, names, work: Path, i: int):
    from tests.fuzz_s8 import run_cli

    src = seeds[rng.choice([n for n in names if n in ("kineto", "kineto_b12", "rocprofv3_csv", "nsys_sqlite",
                                                          "nvprof", "rocpd")])]
    good = work / "good.json"
    code, _ = run_cli(["analyze", str(src), "-q", "--no-cache", "--json", str(good)])
    if code != 0 or not good.exists():
        return None
    op = rng.choice(REPORT_OPS)
    doc = json.loads(good.read_text())
    p = work / "bad.json"
    if op.startswith("base_"):
        code, _ = run_cli(["baseline", "save", str(good), "-n", str(work / "base.json")])
        if code != 0:
            return None
        doc = json.loads((work / "base.json").read_text())
        k = rng.choice(sorted(doc))
        if op == "base_key_missing":
            del doc[k]
        else:
            doc["future_" + k] = doc[k]
    elif op.startswith("schema_"):
        v = {"schema_1": 1, "schema_3": 3, "schema_text": "2", "schema_null": None}.get(op)
        if op == "schema_missing":
            del doc["schema_version"]
        else:
            doc["schema_version"] = v
    elif op == "tool_version":
        doc["tool"]["version"] = rng.choice(["0.0.1", "99.0", "", None, 2])
    elif op == "summary_key":
        _drop_one(doc, rng, "summary")
    elif op == "extra_keys":
        doc["future"] = {"x": 1}
        doc["sources"][0]["future"] = [1, 2]
        doc["sources"][0]["summary"]["future_ns"] = 5
    elif op in ("summary_null", "summary_list"):
        doc["sources"][0]["summary"] = None if op == "summary_null" else []
    else:
        for row in doc["sources"][0].get("top_kernels") or []:
            if isinstance(row, dict) and row:
                del row[rng.choice(sorted(row))]
    p.write_text(json.dumps(doc))
    _EXPECT["op"] = f"report of {src.name}: {op}"
    return p, src


def opts_text(rng, seeds, names, work: Path, i: int):
    src = seeds[rng.choice([n for n in names if n in ("kineto", "kineto_b12", "rank_dir", "nsys_sqlite",
                                                          "rocprofv3_csv", "nvprof")])]
    if rng.random() < 0.6:
        opts = list(rng.choice(OPT_CASES))
    else:
        spec, how = work / "spec.json", rng.choice(sorted(SPEC_CASES))
        ch = SPEC_CASES[how]
        doc = ({"name_only": {"name": "H100"}, "empty": {}, "list": [_SPEC]}[ch] if isinstance(ch, str) else
               dict(_SPEC, **{k: (dict(_SPEC["figures"], **v) if k == "figures" and isinstance(v, dict) else v)
                             for k, v in ch.items()}))
        spec.write_text(json.dumps(doc))
        opts = ["--device-spec", str(spec)]
    _EXPECT["opts"] = opts
    _EXPECT["op"] = f"{src.name}: {' '.join(opts)}"
    return src, src


#: Session variants nvvp could write or a user could save (gzipped, UTF-16, comments…): the seed's kernels, read.
XML_SAME = {"crlf", "split_per_line", "cdata", "commented_pdm", "empty_first", "two_timelinepdm", "utf16", "bom",
            "gzipped"}


def _same_kernels(path: Path, o: str) -> str | None:
    """The session ``path`` gives the kernels of its embedded profile (tests/test_trust_s41_real.py's: one)."""
    from gpulens.collectors import collect
    from gpulens.errors import GpulensError

    try:
        n = int((collect(path).events["kind"] == "kernel").sum())
    except GpulensError as exc:
        return f"{o}: refused: {str(exc)[-200:]}"
    return None if n == 1 else f"{o}: {n} kernels read, the profile holds 1"


def make(rng, seeds, names, work, i, kind):
    _EXPECT.clear()
    return globals()[kind](rng, seeds, names, work, i)


def baseline_check(path: Path, work: Path, o: str) -> str | None:
    """``gate`` of the good report against the damaged baseline ``path``; ``baseline save`` of a damaged report."""
    from tests.fuzz_s8 import run_cli
    from tests.fuzz_s37_cli import _exit_check

    code, text = run_cli(["gate", str(work / "good.json"), "--baseline", str(path)])
    bad = _exit_check("gate", code, text, o, False)
    return f"gate: {bad}" if bad else None


def _one(kind: str, rng: random.Random, path: Path, work: Path, strict: bool, cli: bool) -> str | None:
    from tests.fuzz_s8 import run_cli
    from tests.fuzz_s37_cli import _exit_check

    o = _EXPECT.get("op", "?")
    if kind == "older_on_new":
        mod, k = _EXPECT["older"]
        import importlib

        return importlib.import_module(f"tests.{mod}")._one(k, rng, path, work, strict, cli)
    if kind == "nvvp_xml" and o.split(": ")[-1] in XML_SAME:
        return _same_kernels(path, o)
    if kind == "report_version":
        if o.split(": ")[-1].startswith("base_"):
            return baseline_check(path, work, o)
        what = diff_gate_check(path, work / "good.json", o)
        if what:
            return what
        code, text = run_cli(["baseline", "save", str(path), "-n", str(work / "saved.json")])
        bad = _exit_check("baseline", code, text, o, False)
        return f"baseline save: {bad}" if bad else None
    extra = ([] if strict else ["--lenient"]) + list(_EXPECT.get("opts", []))
    what = report_check(path, work, extra)
    return f"{o}: {what}" if what else None


def main(argv: list[str] | None = None) -> int:
    return fuzzing.kind_campaign(argv, KINDS, make, _one, seed=42042, timeout=20.0, more_seeds=_new_seeds)


if __name__ == "__main__":
    sys.exit(main())
