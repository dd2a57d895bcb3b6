"""Session-39 fuzzing: mutation kinds no earlier fuzzer makes (tests/fuzzing.py, fuzz_more, fuzz_fresh, fuzz_cli,
fuzz_s8 … fuzz_s11, fuzz_s34 … fuzz_s38).

``python tests/fuzz_s39.py --seed S --count N --workdir DIR [--timeout 20] [--kinds a,b] [--only I]`` (run it from
a folder outside the repository, DIR under /tmp). Kinds (:data:`KINDS`):

* ``v2_tracer`` — rocprofv2 tracer outputs (cli text ``<pid>_hcc_ops_trace.txt`` or file-plugin
  ``hcc_ops_trace_<pid>.csv``, with their API siblings), built here with a known number of kernels, then one fault
  of :data:`V2_OPS`: a time in digits of another script or with ``_`` / ``+`` / spaces, an end 1 ns before its
  start, kernel names holding ``),`` / quotes / commas / escapes, the program's stdout inside the file, the last
  record cut, CRLF, a BOM, UTF-16, a sibling that is a link to the ops file, a folder, unreadable or a FIFO, both
  forms of one process, two processes of which one is damaged: the kernels read must be the well-formed ones,
  and any dropped counted in a warning;
* ``spec_edge`` — ``--device-spec`` files whose figures are at the edge of their type (``Infinity``, ``NaN``, 0,
  ``1e-300``, ``1e308``), SM counts of 0 / negative / ``1e400`` / text / 2^63, ``memory_gb`` infinite, a name that
  is markup or an escape, a ``match`` that is no regular expression: a report within the invariants or one error
  line naming the spec file;
* ``escape_fields`` — markup, terminal escapes and bidi controls in every string a report shows other than kernel
  names (the device name in ``deviceProperties``, process and thread names, CPU-op and annotation names, step
  names, ``distributedInfo.backend``; in nsys the GPU name and NVTX texts): no raw escape on the console, Markdown
  tables of one width, no live markup in the HTML;
* ``stats_sem`` — rocprof ``*.stats.csv`` / nsys ``cuda_gpu_kern_sum`` summaries kept valid CSV but holding
  impossible rows: a percentage of 250, call counts of 0 or negative beside a total, an average above the total,
  min above max, a total of 2^63 − 1: a report within the invariants;
* ``cache_env`` — the analysis cache folder (``GPULENS_CACHE_DIR``) is a file, a link loop, ``/dev/null``, a
  folder holding a user's files named like cache entries (``notes.results``), or two ``analyze`` processes use
  one folder at once: each run gives the report of a ``--no-cache`` run, and ``gpulens cache clear`` removes no
  file gpulens did not write;
* ``escape_cmds`` — 1–3 kernels of a Kineto trace renamed to markup / an escape, then ``diff`` of the trace and the
  renamed one (console, Markdown, HTML) and ``gate`` of the renamed one against the trace's report (console,
  Markdown, JUnit) and against a baseline whose name is an escape: no raw escape on a console or in Markdown,
  tables of one width, no live markup, well-formed XML;
* ``sem_more`` — rocprofv3 JSON (:data:`V3_SEM`), rocprofiler-compute workloads (:data:`OMNI_SEM`) and ncu details
  CSV (:data:`NCU_SEM`) kept valid but recording impossible things (sizes of 0, CU counts of 0, a kernel ending
  before its start, occupancies of 250 %, negative durations): a report within the invariants;
* ``digits_script`` — digits of other scripts (``٣``, ``３``) where the file's text is read by a pattern: a
  ``ProfilerStep#٣`` annotation, a ``rank٣`` file name, a ``cuda:٣`` device, an ncu grid ``(٦٤, 1, 1)``: never read
  as the number.

Every report made (the ``analyze`` command with JSON, HTML and Markdown) is checked as tests/fuzz_s38.py checks it
(:func:`tests.fuzz_s38.report_check`: a documented exit, one error line on exit 2, the input unchanged, no raw escape
on the console, Markdown tables of one width, no live ``<script>`` in the HTML, tests/report_invariants.py).
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzzing  # noqa: E402
from tests.fuzz_s36 import json_doc  # noqa: E402
from tests.fuzz_s38 import ESCAPE_NAMES, report_check  # noqa: E402

KINDS = ["v2_tracer", "spec_edge", "escape_fields", "stats_sem", "cache_env", "digits_script", "escape_cmds",
         "sem_more"]
_EXPECT: dict = {}

# ---------------------------------------------------------------------------------------------------- v2 tracer
V2_OPS = ["ok", "digits_script", "digits_fullwidth", "underscore", "plus", "end_before_start", "name_paren",
          "name_quote", "name_escape", "stdout_mixed", "cut_last", "crlf", "bom", "utf16", "sib_link", "sib_dir",
          "sib_unreadable", "sib_fifo", "both_forms", "two_procs_one_bad", "huge_time", "dup_corr"]
_CLI_OPS = ("Domain(HIP_OPS_DOMAIN), Operation_Name({op}), {kn}Start_Timestamp({b}), End_Timestamp({e}), "
            "Correlation_ID({c})")
_CLI_API = "Domain(HIP_API_DOMAIN), Function({f}), Start_Timestamp({b}), End_Timestamp({e}), Correlation_ID({c})"
_CSV_OPS_HEAD = "Domain,Operation,Kernel_Name,Start_Timestamp,Stop_Timestamp,Correlation_ID"
_CSV_API_HEAD = "Domain,Function,Start_Timestamp,End_Timestamp,Correlation_ID"


def _v2_records(rng: random.Random, n: int) -> list[dict]:
    recs, t = [], 1_000_000 + rng.randrange(10 ** 9)
    for c in range(1, n + 1):
        op = rng.choice(["KernelExecution"] * 4 + ["CopyHostToDevice", "FillBuffer"])
        dur = rng.randrange(1, 50_000)
        recs.append({"op": op, "kernel": f"kern_{c % 3}" if op == "KernelExecution" else None, "b": t, "e": t + dur,
                     "c": c, "b0": t})
        t += dur + rng.randrange(0, 5_000)
    return recs


def _v2_text(recs: list[dict], form: str) -> tuple[str, str]:
    """(ops text, api text) of ``recs`` in ``form`` (cli / csv)."""
    if form == "cli":
        ops = "\n".join(_CLI_OPS.format(op=r["op"], kn=f"Kernel_Name({r['kernel']}), " if r["kernel"] else "",
                                        b=r["b"], e=r["e"], c=r["c"]) for r in recs) + "\n"
        api = "\n".join(_CLI_API.format(f="hipLaunchKernel", b=r["b0"] - 900, e=r["b0"] - 800, c=r["c"])
                        for r in recs) + "\n"
        return ops, api
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    for r in recs:
        w.writerow(["HIP_OPS_DOMAIN", r["op"], r["kernel"] or "", r["b"], r["e"], r["c"]])
    ops = _CSV_OPS_HEAD + "\n\n" + buf.getvalue()
    api = _CSV_API_HEAD + "\n\n" + "".join(f"HIP_API_DOMAIN,hipLaunchKernel,{r['b0'] - 900},{r['b0'] - 800},{r['c']}\n"
                                           for r in recs)
    return ops, api


def _names(form: str, pid: int) -> tuple[str, str]:
    return ((f"{pid}_hcc_ops_trace.txt", f"{pid}_hip_api_trace.txt") if form == "cli"
            else (f"hcc_ops_trace_{pid}.csv", f"hip_api_trace_{pid}.csv"))


def v2_tracer(rng: random.Random, seeds, names, work: Path, i: int):
    op = rng.choice(V2_OPS)
    form = rng.choice(["cli", "csv"])
    recs = _v2_records(rng, rng.randrange(2, 30))
    kernels = sum(r["op"] == "KernelExecution" for r in recs)
    d = work / f"in{i}_{op}_{form}"
    d.mkdir()
    bad = 0  # kernels the fault makes unreadable
    victim = rng.choice([r for r in recs if r["op"] == "KernelExecution"] or recs)
    vk = victim["op"] == "KernelExecution"
    if op in ("digits_script", "digits_fullwidth", "underscore", "plus", "huge_time"):
        base = 0x0660 if op == "digits_script" else 0xFF10
        spell = {"underscore": f"{victim['b']:_}", "plus": f"+{victim['b']}",
                 "huge_time": "9" * 30}.get(op) or "".join(chr(base + int(ch)) for ch in str(victim["b"]))
        victim["b"] = spell
        # the cli regex reads ASCII digits only (the record is then no record); the CSV reads the field as text
        bad = int(vk) if op != "plus" or form == "cli" else 0
    elif op == "end_before_start":
        victim["e"] = victim["b"] - 1
        bad = int(vk)
    elif op in ("name_paren", "name_quote", "name_escape") and vk:
        victim["kernel"] = {"name_paren": "void f<(a), b>(int), Start_Timestamp(1)",
                            "name_quote": 'k"q,"x', "name_escape": rng.choice(ESCAPE_NAMES[:-6])}[op]
    elif op == "dup_corr":
        recs[-1]["c"] = recs[0]["c"]
    ops, api = _v2_text(recs, form)
    if op == "stdout_mixed":
        lines = ops.splitlines()
        at = rng.randrange(0 if form == "cli" else 2, len(lines) + 1)  # the file plugin's header stays first
        lines[at:at] = ["hello from the program", "Domain(HIP_OPS_DOMAIN) damaged", "PASSED!"]
        ops = "\n".join(lines) + "\n"
    elif op == "cut_last":
        ops = ops.rstrip("\n")
        ops = ops[: len(ops) - rng.randrange(1, 8)]
        bad = int(recs[-1]["op"] == "KernelExecution")
    elif op == "crlf":
        ops, api = ops.replace("\n", "\r\n"), api.replace("\n", "\r\n")
    fo, fa = _names(form, 4242)
    enc = "utf-16" if op == "utf16" else "utf-8-sig" if op == "bom" else "utf-8"
    (d / fo).write_bytes(ops.encode(enc))
    sib = d / fa
    if op == "sib_link":
        sib.symlink_to(fo)
    elif op == "sib_dir":
        sib.mkdir()
    elif op == "sib_fifo":
        os.mkfifo(sib)
    else:
        sib.write_text(api)
        if op == "sib_unreadable":
            sib.chmod(0)
    if op == "both_forms":
        other = "csv" if form == "cli" else "cli"
        o_ops, o_api = _v2_text(recs, other)
        po, pa = _names(other, 4242)
        (d / po).write_text(o_ops)
        (d / pa).write_text(o_api)
    if op == "two_procs_one_bad":
        o_ops, o_api = _v2_text(recs, form)
        po, pa = _names(form, 4343)
        (d / po).write_text(o_ops[: len(o_ops) // 2] + "\x00" * 64)
        (d / pa).write_text(o_api)
        kernels *= 2
    given = d if rng.random() < 0.5 else d / fo
    _EXPECT.update(op=f"v2_{op}_{form}", kernels=kernels - bad, total=kernels, both=op == "both_forms")
    return given, given


def _v2_check(path: Path) -> str | None:
    import gpulens.collectors as col
    from gpulens.errors import GpulensError

    try:
        tl = col.collect(path, strict=False, cache=False)
    except GpulensError as exc:
        return None if _EXPECT["kernels"] == 0 else f"{_EXPECT['op']}: refused ({str(exc)[:160]})"
    got = int((tl.events["kind"].astype(str) == "kernel").sum())
    want, total = _EXPECT["kernels"], _EXPECT["total"]
    if _EXPECT["op"].startswith("v2_two_procs"):  # the damaged half: at most its kernels, with a warning
        return None if want // 2 <= got <= want and (got == want or tl.meta.warnings) else \
            f"{_EXPECT['op']}: {got} kernels read, {want // 2}..{want} expected"
    if got != want:  # (both forms of one process: one process, its kernels once)
        return f"{_EXPECT['op']}: {got} kernels read, {want} well-formed in the file"
    if want < total and not tl.meta.warnings:
        return f"{_EXPECT['op']}: {total - want} kernel record(s) dropped without a warning"
    return None


# ---------------------------------------------------------------------------------------------------- device spec
SPEC_EDGES = {
    "bw_inf": {"figures": {"memory_bandwidth": "Infinity"}},
    "bw_nan": {"figures": {"memory_bandwidth": "NaN"}},
    "bw_zero": {"figures": {"memory_bandwidth": 0}},
    "bw_tiny": {"figures": {"memory_bandwidth": 1e-300, "matrix.bf16": 1e-300, "vector.fp32": 5e-324}},
    "peak_huge": {"figures": {"matrix.bf16": 1e308, "memory_bandwidth": 1e308}},
    "peak_neg0": {"figures": {"matrix.fp16": "-0.0"}},
    "sms_zero": {"num_sms": 0}, "sms_neg": {"num_sms": -5}, "sms_inf": {"num_sms": "1e400"},
    "sms_text": {"num_sms": "many"}, "sms_big": {"num_sms": 2 ** 63}, "sms_frac": {"num_sms": 13.5},
    "mem_inf": {"memory_gb": "Infinity"}, "mem_neg": {"memory_gb": -80},
    "name_markup": {"name": "<script>alert(1)</script>|\x1b[31mX\u202e"},
    "match_bad": {"match": ["("]}, "clock_nan": {"figures": {"clock_mhz": "NaN"}},
}


def spec_edge(rng: random.Random, seeds, names, work: Path, i: int):
    op = rng.choice(sorted(SPEC_EDGES))
    seed = seeds[rng.choice([n for n in ("ncu_raw", "kineto", "nsys_sqlite", "case_B13.json") if n in seeds])]
    p = work / f"in{i}_{seed.name}"
    shutil.copyfile(seed, p)
    spec = {"name": "Test GPU", "compute_capability": "9.0", "num_sms": 132, "memory_gb": 80,
            "figures": {"memory_bandwidth": 3350, "matrix.bf16": 989, "vector.fp32": 67, "clock_mhz": 1980}}
    for k, v in SPEC_EDGES[op].items():
        if k == "figures":
            spec["figures"].update(v)
        else:
            spec[k] = v
    text = json.dumps(spec)
    for word in ("Infinity", "NaN", "-0.0", "1e400"):  # JSON's non-standard tokens, as Python's json writes/reads
        text = text.replace(f'"{word}"', word)
    s = work / "spec.json"
    s.write_text(text)
    _EXPECT.update(op=f"spec_{op}", spec=str(s))
    return p, seed


# ---------------------------------------------------------------------------------------------------- escapes
_MARK = ["<script>alert(1)</script>", "\x1b[31mred\x1b[0m", "a|b|c", "\u202eevil\u202c", "over\rwrite",
         "[x](javascript:alert(1))", "</td></tr><tr><td>x", "bell\x07", "`tick`"]


def escape_fields(rng: random.Random, seeds, names, work: Path, i: int):
    name = rng.choice(_MARK)
    if rng.random() < 0.7:
        pool = [n for n in ("kineto", "kineto_b12", "case_B13.json", "case_T05.json", "case_B06.json",
                            "case_T11.json") if n in seeds]
        seed = seeds[rng.choice(pool)]
        got = json_doc(seed)
        if got is None or not isinstance(got[0], dict):
            return None
        doc, ev = got
        field = rng.choice(["device", "process", "thread", "cpu_op", "annotation", "step", "backend", "stream"])
        if field == "device":
            props = doc.get("deviceProperties") or [{"id": 0, "totalMemory": 85e9, "computeMajor": 9,
                                                     "computeMinor": 0, "numSms": 132}]
            for d in props:
                if isinstance(d, dict):
                    d["name"] = name
            doc["deviceProperties"] = props
        elif field == "backend":
            doc["distributedInfo"] = {"rank": 0, "world_size": 1, "backend": name}
        else:
            hit = 0
            for e in ev:
                if not isinstance(e, dict):
                    continue
                cat = str(e.get("cat", "")).lower()
                if field in ("process", "thread", "stream") and e.get("ph") == "M" and \
                        e.get("name") == {"process": "process_name", "thread": "thread_name",
                                          "stream": "thread_name"}[field] and isinstance(e.get("args"), dict):
                    e["args"]["name"] = name if field != "stream" else f"stream 7 {name}"
                    hit += 1
                elif field == "cpu_op" and cat == "cpu_op":
                    e["name"] = name
                    hit += 1
                elif field in ("annotation", "step") and cat in ("user_annotation", "gpu_user_annotation"):
                    e["name"] = (f"ProfilerStep#{rng.randrange(5)}{name}" if field == "step" else name)
                    hit += 1
            if not hit:
                ev.append({"ph": "M", "name": "process_name", "pid": 0, "args": {"name": name}})
        p = work / f"in{i}_{field}_{seed.name}".removesuffix(".gz")
        p.write_text(json.dumps(doc))
        _EXPECT.update(op=f"esc_{field}")
        return p, seed
    seed = seeds["nsys_sqlite"]
    p = work / f"in{i}_esc_{seed.name}"
    shutil.copyfile(seed, p)
    con = sqlite3.connect(p)
    field = rng.choice(["gpu", "nvtx", "runtime"])
    if field == "gpu":
        con.execute("UPDATE TARGET_INFO_GPU SET name = ?", (name,))
    elif field == "nvtx":
        con.execute("UPDATE StringIds SET value = ? WHERE id IN (SELECT textId FROM NVTX_EVENTS)", (name,))
    else:
        con.execute("UPDATE StringIds SET value = ? WHERE id IN (SELECT nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME)",
                    (name,))
    con.commit()
    con.close()
    _EXPECT.update(op=f"esc_nsys_{field}")
    return p, seed


# ---------------------------------------------------------------------------------------------------- summaries
def stats_sem(rng: random.Random, seeds, names, work: Path, i: int):
    seed = seeds[rng.choice([n for n in ("rocprof_v1_stats", "nsys_stats") if n in seeds])]
    rows = list(csv.reader(io.StringIO(seed.read_text(encoding="utf-8", errors="replace"))))
    at = next((k for k, r in enumerate(rows) if len(r) > 3), None)
    if at is None:
        return None
    head = [h.strip().lower() for h in rows[at]]
    body = [r for r in rows[at + 1:] if len(r) == len(head)]
    if not body:
        return None

    def col(*keys):
        return next((k for k, h in enumerate(head) if any(x in h for x in keys)), None)

    op = rng.choice(["pct_250", "calls_zero", "calls_neg", "avg_above_total", "min_above_max", "total_max",
                     "total_neg", "all_rows_same_name"])
    r = rng.choice(body)
    c = {"pct_250": col("percent", "time (%)"), "calls_zero": col("calls", "instances"),
         "calls_neg": col("calls", "instances"), "avg_above_total": col("average", "avg"),
         "min_above_max": col("min"), "total_max": col("totaldurationns", "total time"),
         "total_neg": col("totaldurationns", "total time"), "all_rows_same_name": col("name")}[op]
    if c is None:
        return None
    tot = col("totaldurationns", "total time")
    if op == "pct_250":
        r[c] = "250.0"
    elif op == "calls_zero":
        r[c] = "0"
    elif op == "calls_neg":
        r[c] = "-3"
    elif op == "avg_above_total" and tot is not None:
        r[c] = str(int(float(r[tot] or 0) * 10 + 1000))
    elif op == "min_above_max":
        mx = col("max")
        if mx is None:
            return None
        r[c] = str(int(float(r[mx] or 0)) + 10 ** 6)
    elif op == "total_max":
        r[c] = str(2 ** 63 - 1)
    elif op == "total_neg":
        r[c] = "-5000"
    elif op == "all_rows_same_name":
        for x in body:
            x[c] = body[0][c]
    p = work / f"in{i}_{op}_{seed.name}"
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    p.write_text(buf.getvalue())
    _EXPECT.update(op=f"stats_{op}")
    return p, seed


# ---------------------------------------------------------------------------------------------------- cache
CACHE_OPS = ["file", "loop", "devnull", "foreign", "concurrent"]


def cache_env(rng: random.Random, seeds, names, work: Path, i: int):
    seed = seeds[rng.choice([n for n in ("kineto", "kineto_gz", "rocprofv3_csv", "nsys_sqlite") if n in seeds])]
    p = work / f"in{i}_{seed.name}"
    shutil.copyfile(seed, p)
    _EXPECT.update(op=f"cache_{rng.choice(CACHE_OPS)}")
    return p, seed


def _gpulens(args: list[str], env: dict, cwd: Path, wait: bool = True):
    cmd = [sys.executable, "-m", "gpulens", *args]
    if not wait:
        return subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


def _comparable(report: Path) -> str:
    from tests.fuzz_s10 import _norm

    return _norm(json.loads(report.read_text()))


def _cache_check(path: Path, work: Path) -> str | None:
    op = _EXPECT["op"].removeprefix("cache_")
    env = dict(os.environ, GPULENS_CACHE_MIN_BYTES="0", PYTHONPATH=os.pathsep.join(sys.path))
    ref = work / "ref.json"
    r = _gpulens(["analyze", str(path), "-q", "--no-cache", "--json", str(ref)], env, work)
    if r.returncode != 0 or not ref.exists():
        return None
    want = _comparable(ref)
    cdir = work / "cachedir"
    foreign: list[Path] = []
    if op == "file":
        cdir.write_text("a user's file\n")
        foreign.append(cdir)
    elif op == "loop":
        (work / "l1").symlink_to(work / "l2")
        (work / "l2").symlink_to(work / "l1")
        cdir = work / "l1"
    elif op == "devnull":
        cdir = Path("/dev/null")
    elif op == "foreign":
        cdir.mkdir()
        for n in ("notes.results", "notes.results.bak", "data.results.json_report-0123456789abcdef", ".tmp-mine"):
            (cdir / n).write_text("mine\n")
            foreign.append(cdir / n)
    env["GPULENS_CACHE_DIR"] = str(cdir)
    before = {f: f.read_bytes() for f in foreign}
    outs = [work / f"c{k}.json" for k in range(2)]
    if op == "concurrent":
        procs = [_gpulens(["analyze", str(path), "-q", "--json", str(o)], env, work, wait=False) for o in outs]
        codes = [(pr.wait(timeout=120), pr.stdout.read()) for pr in procs]
    else:
        codes = []
        for o in outs:  # the second run reads what the first stored
            r = _gpulens(["analyze", str(path), "-q", "--json", str(o)], env, work)
            codes.append((r.returncode, r.stdout + r.stderr))
    for (code, text), o in zip(codes, outs):
        if code != 0 or "Traceback" in text:
            return f"{op}: exit {code}: {text.strip()[-300:]!r}"
        if not o.exists() or _comparable(o) != want:
            return f"{op}: the report of a cached run differs from the --no-cache run's"
    r = _gpulens(["cache", "clear"], env, work)
    if r.returncode not in (0, 2) or "Traceback" in r.stdout + r.stderr:
        return f"{op}: cache clear exit {r.returncode}: {(r.stdout + r.stderr)[-300:]!r}"
    for f, data in before.items():
        if not f.exists() or (f.is_file() and f.read_bytes() != data):
            return f"{op}: cache clear removed or changed a file gpulens did not write: {f.name}"
    return None


# ---------------------------------------------------------------------------------------------------- digits
def digits_script(rng: random.Random, seeds, names, work: Path, i: int):
    three = rng.choice(["\u0663", "\uff13", "\u0969"])  # Arabic-Indic, full-width, Devanagari 3
    seed = seeds["kineto_b12"] if "kineto_b12" in seeds else seeds["kineto"]
    got = json_doc(seed)
    if got is None or not isinstance(got[0], dict):
        return None
    doc, ev = got
    op = rng.choice(["step", "rank_file", "cuda_device"])
    if op == "step":
        k = [e for e in ev if isinstance(e, dict) and e.get("ph") == "X" and isinstance(e.get("ts"), (int, float))]
        if not k:
            return None
        t0, t1 = min(e["ts"] for e in k), max(e["ts"] + e.get("dur", 0) for e in k)
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{three}", "pid": 0, "tid": 1,
                   "ts": t0 - 1, "dur": t1 - t0 + 2, "args": {}})
        p = work / f"in{i}_step.pt.trace.json"
    elif op == "rank_file":
        doc.pop("distributedInfo", None)
        d = work / f"in{i}_ranks"
        d.mkdir()
        (d / "rank0.pt.trace.json").write_text(json.dumps(doc))
        p = d / f"rank{three}.pt.trace.json"
        p.write_text(json.dumps(doc))
        p = d
    else:
        for e in ev:
            if isinstance(e, dict) and isinstance(e.get("args"), dict) and "device" in e["args"]:
                e["args"]["device"] = f"cuda:{three}"
        p = work / f"in{i}_dev.pt.trace.json"
    if op != "rank_file":
        p.write_text(json.dumps(doc))
    _EXPECT.update(op=f"digits_{op}")
    return p, seed


def _digits_check(path: Path) -> str | None:
    import gpulens.collectors as col
    from gpulens.errors import GpulensError

    try:
        tl = col.collect(path, strict=False, cache=False)
    except GpulensError:
        return None
    op = _EXPECT["op"]
    ev = tl.events
    if op == "digits_step":
        steps = tl.meta.__dict__.get("steps") or []
        named = ev[ev["name"].astype(str).str.startswith("ProfilerStep#")]
        if "step" in ev.columns and (ev["step"].dropna() == 3).any():
            return "ProfilerStep#<other-script 3> read as step 3"
        return None if not steps or 3 not in steps else f"ProfilerStep read as step 3 ({len(named)})"
    if op == "digits_cuda_device":
        gpu = ev[ev["kind"].astype(str).isin(["kernel", "memcpy", "memset"])]
        if (gpu["device_id"].dropna() == 3).any():
            return "device 'cuda:<other-script 3>' read as device 3"
    if op == "digits_rank_file" and "rank" in ev.columns and (ev["rank"].dropna() == 3).any():
        return "file rank<other-script 3> read as rank 3"
    return None


# ---------------------------------------------------------------------------------------------------- diff / gate
def escape_cmds(rng: random.Random, seeds, names, work: Path, i: int):
    """A Kineto trace and the same trace with 1–3 kernels renamed to a markup / escape name (``diff`` and ``gate``
    then show the renamed kernels as new ones)."""
    pool = [n for n in ("kineto", "kineto_b12", "case_B13.json", "case_T05.json", "case_B06.json") if n in seeds]
    seed = seeds[rng.choice(pool)]
    got = json_doc(seed)
    if got is None or not isinstance(got[0], dict):
        return None
    doc, ev = got
    k = [e for e in ev if isinstance(e, dict) and str(e.get("cat", "")).lower() == "kernel"
         and not str(e.get("name", "")).startswith(("Memcpy", "Memset"))]
    if not k:
        return None
    name = rng.choice(ESCAPE_NAMES[:-6] + _MARK)
    for e in rng.sample(k, min(len(k), rng.choice([1, 3]))):
        e["name"] = name
    base = work / f"base{i}.pt.trace.json"
    shutil.copyfile(seed, base) if seed.suffix != ".gz" else base.write_text(json.dumps(json_doc(seed)[0]))
    p = work / f"in{i}_cand.pt.trace.json"
    p.write_text(json.dumps(doc))
    _EXPECT.update(op="escape_cmds", base=str(base))
    return p, seed


def _cmds_check(path: Path, work: Path) -> str | None:
    """``diff base cand`` (console, Markdown, HTML) and ``gate cand --baseline base.json`` (console, Markdown,
    JUnit): no raw control character on the console or in Markdown, tables of one width, no live markup in the
    HTML, a JUnit file that is well-formed XML 1.0."""
    import xml.etree.ElementTree as ET

    from tests.fuzz_s8 import run_cli
    from tests.fuzz_s37_cli import _exit_check
    from tests.fuzz_s38 import _RAW_ESCAPE, md_table_widths

    base = Path(_EXPECT["base"])
    rep = work / "base.json"
    code, _ = run_cli(["analyze", str(base), "-q", "--no-cache", "--json", str(rep)])
    if code != 0:
        return None
    runs = {"diff": ["diff", str(base), str(path), "--markdown", str(work / "d.md"), "--html", str(work / "d.html")],
            "gate": ["gate", str(path), "--baseline", str(rep), "--markdown", str(work / "g.md"), "--junit",
                     str(work / "g.xml")],
            # a baseline named by an escape: the reason line quotes the name
            "gate_name": ["gate", str(path), "--baseline", random.Random(str(path)).choice(_MARK), "--store",
                          str(work / "store")]}
    for cmd, args in runs.items():
        code, text = run_cli(args)
        bad = _exit_check(cmd.split("_")[0], code, text, f"esc_{cmd}", False)
        if bad:
            return bad
        shown = "\n".join(ln for ln in text.splitlines() if not ln.startswith("gpulens: error"))
        m = _RAW_ESCAPE.search(shown)
        if m:
            at = max(0, m.start() - 60)
            return f"{cmd}: raw control character {m.group(0)!r} on the console: {shown[at:at + 100]!r}"
    for md in ("d.md", "g.md"):
        f = work / md
        if f.exists():
            text = f.read_text()
            row = md_table_widths(text)
            if row:
                return f"{md}: markdown table row of another width: {row!r}"
            if _RAW_ESCAPE.search(text):
                return f"{md}: raw control character in the Markdown"
    if (work / "d.html").exists() and "<script>alert(1)" in (work / "d.html").read_text():
        return "diff HTML: a kernel name's <script> is live"
    if (work / "g.xml").exists():
        try:
            ET.fromstring((work / "g.xml").read_bytes())
        except ET.ParseError as exc:
            return f"gate JUnit is not well-formed XML: {exc}"
    return None


# ---------------------------------------------------------------------------------------------------- semantics
def _v3(d: dict) -> dict:
    return d["rocprofiler-sdk-tool"][0]


def _kd(d: dict) -> list:
    return _v3(d)["buffer_records"]["kernel_dispatch"]


#: rocprofv3 JSON faults that keep the file valid (tests/test_rocprof_v3's tiny document): sizes of 0 or 2^40,
#: CU / wave counts of 0 or negative, ids naming nothing, a kernel 1 ns before its start, two on one queue at once,
#: one correlation or dispatch id twice, negative bytes and counters, the tool's section written twice
V3_SEM = {
    "wg0": lambda d: _kd(d)[0]["dispatch_info"].update(workgroup_size={"x": 0, "y": 1, "z": 1}),
    "grid0": lambda d: _kd(d)[0]["dispatch_info"].update(grid_size={"x": 0, "y": 0, "z": 0}),
    "wg_huge": lambda d: _kd(d)[0]["dispatch_info"].update(workgroup_size={"x": 2 ** 40, "y": 2 ** 40, "z": 1}),
    "cu0": lambda d: _v3(d)["agents"][1].update(cu_count=0), "cu_neg": lambda d: _v3(d)["agents"][1].update(
        cu_count=-104), "wave0": lambda d: _v3(d)["agents"][1].update(wave_front_size=0),
    "agent_missing": lambda d: _kd(d)[0]["dispatch_info"].update(agent_id={"handle": 999}),
    "kid_missing": lambda d: _kd(d)[0]["dispatch_info"].update(kernel_id=42),
    "end_before": lambda d: _kd(d)[0].update(end_timestamp=_kd(d)[0]["start_timestamp"] - 1),
    "overlap": lambda d: _kd(d)[1].update(start_timestamp=200, end_timestamp=400),
    "corr_same": lambda d: _kd(d)[1].update(correlation_id={"internal": 3, "external": 0}),
    "did_same": lambda d: _kd(d)[1]["dispatch_info"].update(dispatch_id=1),
    "bytes_neg": lambda d: _v3(d)["buffer_records"]["memory_copy"][0].update(bytes=-4096),
    "counter_neg": lambda d: _v3(d)["callback_records"]["counter_collection"][0]["records"][0].update(value=-1e308),
    "regs_odd": lambda d: _v3(d)["kernel_symbols"][0].update(arch_vgpr_count=10 ** 6, sgpr_count=-5),
    "agents_empty": lambda d: _v3(d).update(agents=[]),
    "two_tools": lambda d: d["rocprofiler-sdk-tool"].append(json.loads(json.dumps(_v3(d)))),
}
#: rocprofiler-compute (file, column, value) faults: a kernel ending 1 ns before its start, all at one start,
#: GRBM_GUI_ACTIVE 0 / negative, a busy count of 1e300, sizes of 0, 10^5 VGPRs, 1e12 bytes of LDS
OMNI_SEM = {"grbm0": ("pmc_perf.csv", "GRBM_GUI_ACTIVE", "0"), "grbm_neg": ("pmc_perf.csv", "GRBM_GUI_ACTIVE", "-1000"),
            "busy_huge": ("pmc_perf.csv", "SQ_BUSY_CU_CYCLES", "1e300"), "wg0": ("pmc_perf.csv", "Workgroup_Size", "0"),
            "grid0": ("pmc_perf.csv", "Grid_Size", "0"), "wave0": ("pmc_perf.csv", "wave_size", "0"),
            "vgpr_huge": ("pmc_perf.csv", "Arch_VGPR", "100000"), "lds_huge": ("pmc_perf.csv", "LDS_Per_Workgroup",
                                                                               "1e12"),
            "same_start": ("timestamps.csv", "Start_Timestamp", "1411551767635712"),
            "end_before": ("timestamps.csv", "End_Timestamp", "1411551767635711")}
#: ncu details metrics given impossible values (percentages of 250, negative or 1e308 durations and throughputs)
NCU_SEM = [("Achieved Occupancy", "250"), ("Compute (SM) Throughput", "180"), ("Memory Throughput", "150"),
           ("Duration", "-5"), ("Duration", "0"), ("Theoretical Occupancy", "1000"), ("DRAM Throughput", "1e308"),
           ("Registers Per Thread", "100000")]


def sem_more(rng: random.Random, seeds, names, work: Path, i: int):
    """A rocprofv3 JSON document (:data:`V3_SEM`), a rocprofiler-compute workload (:data:`OMNI_SEM`) or an ncu
    details CSV (:data:`NCU_SEM`) kept valid but recording impossible things."""
    fmt = rng.choice(["v3", "omni", "ncu"])
    if fmt == "v3":
        from tests.test_rocprofv3 import _tiny_v3_json

        op = rng.choice(sorted(V3_SEM))
        seed = work / "seed_results.json.gz"
        _tiny_v3_json(seed)
        doc = json_doc(seed)[0]
        V3_SEM[op](doc)
        p = work / f"in{i}_{op}_results.json"
        p.write_text(json.dumps(doc))
    elif fmt == "omni":
        seed = seeds.get("omniperf_dir")
        if seed is None:
            return None
        op = rng.choice(sorted(OMNI_SEM))
        fname, column, value = OMNI_SEM[op]
        p = work / f"in{i}_{op}"
        shutil.copytree(seed, p)
        rows = list(csv.reader(io.StringIO((p / fname).read_text())))
        if column not in rows[0]:
            return None
        c = rows[0].index(column)
        for r in rng.sample(rows[1:], rng.choice([1, len(rows) - 1])):
            r[c] = value
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(rows)
        (p / fname).write_text(buf.getvalue())
    else:
        seed = HERE / "data" / "nvidia" / "h200" / "h200_kernels_details.csv"
        metric, value = rng.choice(NCU_SEM)
        op = f"{metric}={value}"
        lines = seed.read_text().splitlines(True)
        at = next(k for k, ln in enumerate(lines) if ln.startswith('"ID"'))
        rows = list(csv.reader(io.StringIO("".join(lines[at:]))))
        mi, vi = rows[0].index("Metric Name"), rows[0].index("Metric Value")
        for r in rows[1:]:
            if r[mi] == metric and rng.random() < 0.7:
                r[vi] = value
        buf = io.StringIO()
        csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
        p = work / f"in{i}_ncu_details.csv"
        p.write_text("".join(lines[:at]) + buf.getvalue())
    _EXPECT.update(op=f"sem_{fmt}_{op}")
    return p, seed


# ---------------------------------------------------------------------------------------------------- driver
def make(rng: random.Random, seeds: dict[str, Path], names: list[str], work: Path, i: int, kind: str):
    """(mutant, seed) for ``kind``; None when ``kind`` does not apply to the drawn seed."""
    _EXPECT.clear()
    return {"v2_tracer": v2_tracer, "spec_edge": spec_edge, "escape_fields": escape_fields, "stats_sem": stats_sem,
            "cache_env": cache_env, "digits_script": digits_script,
            "escape_cmds": escape_cmds, "sem_more": sem_more}[kind](rng, seeds, names, work, i)


def _one(kind: str, rng: random.Random, path: Path, work: Path, strict: bool, cli: bool) -> str | None:
    if kind == "cache_env":
        return _cache_check(path, work)
    if kind == "escape_cmds":
        return _cmds_check(path, work)
    if kind == "v2_tracer":
        return _v2_check(path) or report_check(path, work)
    if kind == "spec_edge":
        return report_check(path, work, ["--device-spec", _EXPECT["spec"]])
    if kind == "digits_script":
        return _digits_check(path) or report_check(path, work)
    return report_check(path, work)


def main(argv: list[str] | None = None) -> int:
    # FIFOs and unreadable files (v2_tracer) cannot be copied: their findings are recorded without input
    return fuzzing.kind_campaign(argv, KINDS, make, _one, seed=39039, timeout=20.0, keep=lambda k: k != "v2_tracer")


if __name__ == "__main__":
    sys.exit(main())
