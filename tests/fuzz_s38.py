"""Session-38 fuzzing: mutation kinds no earlier fuzzer makes (tests/fuzzing.py, fuzz_more, fuzz_fresh, fuzz_cli,
fuzz_s8 … fuzz_s11, fuzz_s34 … fuzz_s37): inputs that stay valid files but record impossible things, two faults at
once, names that are markup or terminal escapes, runs of one event, and every command-line option at its edges.

``python tests/fuzz_s38.py --seed S --count N --workdir DIR [--timeout 20] [--kinds a,b] [--only I]`` (run it from
a folder outside the repository, DIR under /tmp). Kinds (:data:`KINDS`):

* ``sem_kineto`` — a Kineto trace kept valid JSON whose records cannot all be true (:data:`KINETO_SEM`): a kernel
  ending 1 ns before it starts, kernels overlapping on one stream, one correlation id on two launches, a launch
  after its kernel, flows whose end (or start) names no event, stream / device ids negative or beyond 2^40, half
  the GPU events on another clock (+10^15 µs), ``distributedInfo`` of another run;
* ``sem_csv`` — the same faults in a CSV input (rocprof v1 / v3, nsys stats): an end 1 ns before its start, two
  dispatches overlapping on one queue, agent / queue ids negative or huge, one correlation id twice, one row's
  times in µs beside ns rows;
* ``sem_sqlite`` — the same in an Nsight Systems export (:data:`NSYS_SEM`): a kernel ending 1 ns before it starts,
  launches after their kernels, devices / streams negative or huge, all kernels of one correlation id;
* ``combo`` — two of the faults above (or one and an escape name) in one file;
* ``names_escape`` — kernel names that are terminal escapes (ANSI colours, OSC 8 links, a bare CR, BEL), HTML
  (``<script>``, ``</td>``), Markdown (``|``, backticks, a link to ``javascript:``), bidi overrides, or 1 MB long: no raw
  escape byte on the console, no Markdown table row of another width than its header, no live markup in the HTML;
* ``one_event`` — a run of one kernel (or one memcpy) in each text format: a report whose figures keep the invariants;
* ``cli_edge`` — ``analyze`` with ``--window`` reversed / empty / past the run's end, ``--steps`` naming no step,
  ``--ranks`` naming no rank, ``--top 0``, ``--device-spec`` of an unknown GPU, ``--workers 10**6``, and ``diff`` of a
  Kineto trace against itself written with times in ns (``displayTimeUnit``/``traceEvents`` in ns): a report or one
  error line; the input unchanged;
* ``profile_fail`` — ``gpulens profile`` (a subprocess) of a script that fails (:data:`FAILING_SCRIPTS`): raises,
  ``sys.exit(3)`` / a message, a syntax error, ``os._exit(n)``, Ctrl-C, deep recursion, a nested torch profiler,
  removing its output folder, changing directory: the script's status (4 when it raised), a trace and a report, or one
  error line; never a traceback of gpulens's frames;
* ``rank_foreign`` — a rank folder holding a file of another run (another world size, a base time days apart, another
  format): each file's kernels read, or a warning naming the odd file.

Every report made (JSON via the ``analyze`` command) is checked with tests/report_invariants.py, besides
:func:`tests.fuzz_s10.check_kind`'s checks (a GpulensError naming the file in one line, no impossible figure, no bad
text in any report, the command's exit code and single error line, strict JSON).
"""

from __future__ import annotations

import copy
import json
import random
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzzing  # noqa: E402
from tests.fuzz_s10 import _gpu, check_kind  # noqa: E402
from tests.fuzz_s36 import _kernels, _nsys_seeds, json_doc  # noqa: E402
from tests.fuzz_s37 import _csv_rows, _write_csv  # noqa: E402
from tests.fuzz_s37_cli import _CSV, _KINETO, _digest, _pool  # noqa: E402

KINDS = ["sem_kineto", "sem_csv", "sem_sqlite", "combo", "names_escape", "one_event", "cli_edge", "rank_foreign",
         "profile_fail"]
_EXPECT: dict = {}
KINETO_SEM = ["end_before_start", "overlap_stream", "corr_shared", "launch_after", "flow_dangling_end",
              "flow_dangling_start", "stream_negative", "stream_huge", "device_negative", "device_huge",
              "clock_mixed", "dist_other_run"]
CSV_SEM = ["end_before_start", "overlap_queue", "agent_negative", "agent_huge", "queue_huge", "corr_twice",
           "us_row"]
_K = "CUPTI_ACTIVITY_KIND_KERNEL"
NSYS_SEM = {
    "end_before_start": f'UPDATE {_K} SET "end" = start - 1 WHERE rowid % 3 = 0',
    "launch_after": f"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = start + 10000000000, \"end\" = \"end\" + "
                    f"10000000000 WHERE correlationId IN (SELECT correlationId FROM {_K})",
    "device_negative": f"UPDATE {_K} SET deviceId = -1",
    "device_huge": f"UPDATE {_K} SET deviceId = 1099511627776 WHERE rowid % 2 = 0",
    "stream_negative": f"UPDATE {_K} SET streamId = -7",
    "stream_huge": f"UPDATE {_K} SET streamId = 9223372036854775807",
    "corr_one": f"UPDATE {_K} SET correlationId = (SELECT min(correlationId) FROM {_K})",
    "name_markup": f"UPDATE StringIds SET value = '<script>alert(1)</script>|`x`' || char(27) || '[31m' "
                   f"WHERE id IN (SELECT shortName FROM {_K} UNION SELECT demangledName FROM {_K})",
}
#: kernel names that are markup or escapes in one of the report languages
ESCAPE_NAMES = ["\x1b[31mred\x1b[0m_kernel", "\x1b]8;;http://evil.example\x07link\x1b]8;;\x07", "over\rwrite",
                "bell\x07kernel", "<script>alert(1)</script>", "</td></tr><tr><td>x", "a|b|c", "`code` **bold**",
                "[x](javascript:alert(1))", "\u202eevil\u202c", "line\nbreak", "tab\there", "\\|escaped pipe",
                "k" * 1_000_000, "<!-- c", "&lt;b&gt;", "${HOME}", "%s%n{0}"]


def _json_seed(rng: random.Random, seeds, names):
    pool = _pool(seeds, names, _KINETO)
    if not pool:
        return None
    seed = rng.choice(pool)
    got = json_doc(seed)
    return None if got is None or not isinstance(got[0], dict) else (seed, *got)


def _kineto_kernels(ev: list) -> list[dict]:
    return [e for e in ev if _gpu(e) and str(e.get("cat", "")).lower() == "kernel"
            and isinstance(e.get("ts"), (int, float)) and isinstance(e.get("dur"), (int, float))
            and isinstance(e.get("args"), dict)]


def _launches(ev: list) -> list[dict]:
    return [e for e in ev if isinstance(e, dict) and str(e.get("cat", "")).lower() == "cuda_runtime"
            and isinstance(e.get("args"), dict) and "correlation" in e["args"]]


def kineto_fault(rng: random.Random, doc: dict, ev: list, op: str) -> bool:
    """Apply the Kineto fault ``op`` to ``doc`` in place; False when the trace has nothing it applies to."""
    k = _kineto_kernels(ev)
    if not k:
        return False
    if op == "end_before_start":
        for e in rng.sample(k, min(len(k), rng.choice([1, 3]))):
            e["dur"] = -0.001  # 1 ns in µs
    elif op == "overlap_stream":
        k = sorted(k, key=lambda e: e["ts"])
        for a, b in zip(k, k[1:]):
            if a["args"].get("stream") == b["args"].get("stream"):
                b["ts"] = a["ts"] + a["dur"] / 2
                return True
        return False
    elif op == "corr_shared":
        ls = _launches(ev)
        if len(ls) < 2:
            return False
        a, b = rng.sample(ls, 2)
        b["args"]["correlation"] = a["args"]["correlation"]
    elif op == "launch_after":
        ls = {e["args"]["correlation"]: e for e in _launches(ev)}
        hit = [e for e in k if e["args"].get("correlation") in ls]
        if not hit:
            return False
        for e in rng.sample(hit, min(len(hit), 3)):
            ls[e["args"]["correlation"]]["ts"] = e["ts"] + e["dur"] + 5
    elif op.startswith("flow_dangling"):
        flows = [e for e in ev if isinstance(e, dict) and e.get("ph") in ("s", "f")]
        if not flows:
            return False
        gone = "f" if op.endswith("end") else "s"
        doc["traceEvents"] = [e for e in ev if not (isinstance(e, dict) and e.get("ph") == gone)]
    elif op.startswith(("stream_", "device_")):
        key = op.split("_")[0]
        val = -3 if op.endswith("negative") else 2 ** 40 + 5
        for e in rng.sample(k, min(len(k), rng.choice([1, len(k)]))):
            e["args"][key] = val
            if key == "stream":
                e["tid"] = val
    elif op == "clock_mixed":
        for e in k[len(k) // 2:]:
            e["ts"] += 10 ** 15
    elif op == "dist_other_run":
        doc["distributedInfo"] = {"rank": 3, "world_size": 2, "backend": "nccl"}
    return True


def sem_kineto(rng, seeds, names, work: Path, i: int):
    got = _json_seed(rng, seeds, names)
    if got is None:
        return None
    seed, doc, ev = got
    op = rng.choice(KINETO_SEM)
    if not kineto_fault(rng, doc, ev, op):
        return None
    p = work / f"in{i}_{op}_{seed.name}".removesuffix(".gz")
    p.write_text(json.dumps(doc))
    # two time bases in one file: a ts-0 placeholder beside them is judged against the whole extent (kept)
    _EXPECT.update(op=op, at_most=None if op == "clock_mixed" else _kernels(seed))
    return p, seed


def _col(head: list[str], *names: str) -> int | None:
    low = [h.strip().lower() for h in head]
    return next((low.index(n) for n in names if n in low), None)


def csv_fault(rng: random.Random, rows: list[list[str]], op: str) -> bool:
    """Apply the CSV fault ``op`` to ``rows`` (header first) in place; False when the file has no such column."""
    head, body = rows[0], [r for r in rows[1:] if len(r) == len(rows[0])]
    if not body:
        return False
    b = _col(head, "beginns", "start_timestamp", "start (ns)", "start")
    e = _col(head, "endns", "end_timestamp", "end (ns)", "end")
    r = rng.choice(body)
    if op in ("end_before_start", "overlap_queue", "us_row"):
        if b is None or e is None or not (r[b].strip().isdigit() and r[e].strip().isdigit()):
            return False
        if op == "end_before_start":
            r[e] = str(int(r[b]) - 1)
        elif op == "us_row":
            r[b], r[e] = str(int(r[b]) // 1000), str(int(r[e]) // 1000)
        else:
            o = rng.choice(body)
            if o is r or not o[b].strip().isdigit():
                return False
            q = _col(head, "queue_id", "queue-id", "queueid", "stream")
            if q is not None:
                r[q] = o[q]
            r[b] = str(int(o[b]) + 1)
            r[e] = str(int(r[b]) + 10 ** 6)
    elif op in ("agent_negative", "agent_huge", "queue_huge"):
        c = _col(head, "agent_id", "gpu-id", "gpu_id", "device") if op.startswith("agent") else \
            _col(head, "queue_id", "queue-id", "queueid", "stream")
        if c is None:
            return False
        val = "-2" if op == "agent_negative" else str(2 ** 40 + 1)
        for x in rng.sample(body, min(len(body), rng.choice([1, len(body)]))):
            x[c] = val
    elif op == "corr_twice":
        c = _col(head, "correlation_id", "correlation-id", "index", "dispatch_id")
        if c is None or len(body) < 2:
            return False
        a, z = rng.sample(body, 2)
        z[c] = a[c]
    return True


def sem_csv(rng, seeds, names, work: Path, i: int):
    seed = rng.choice(_pool(seeds, names, _CSV))
    got = _csv_rows(seed)
    if got is None:
        return None
    rows, pre = got
    op = rng.choice(CSV_SEM)
    if not csv_fault(rng, rows, op):
        return None
    p = work / f"in{i}_{op}_{seed.name}"
    _write_csv(p, rows, pre)
    _EXPECT.update(op=op, at_most=_kernels(seed))
    return p, seed


def sem_sqlite(rng, seeds, names, work: Path, i: int):
    from tests.fuzz_s36 import _sql_mutant

    seed = rng.choice(_nsys_seeds(seeds, names))
    op = rng.choice(sorted(NSYS_SEM))
    made = _sql_mutant(seed, work / f"in{i}_{op}_{seed.name}", NSYS_SEM[op], op, False)
    if made is not None:
        _EXPECT.update(op=op, at_most=_kernels(seed))
    return made


def combo(rng, seeds, names, work: Path, i: int):
    if rng.random() < 0.5:
        got = _json_seed(rng, seeds, names)
        if got is None:
            return None
        seed, doc, ev = got
        ops = rng.sample(KINETO_SEM, 2)
        for op in ops:
            kineto_fault(rng, doc, doc["traceEvents"] if isinstance(doc.get("traceEvents"), list) else ev, op)
        if rng.random() < 0.5:
            k = [e for e in _kineto_kernels(doc.get("traceEvents") or ev)
                 if not str(e.get("name", "")).startswith(("Memcpy", "Memset"))]  # a copy by its name stays one
            if k:
                rng.choice(k)["name"] = rng.choice(ESCAPE_NAMES[:-6])
                ops.append("escape")
        p = work / f"in{i}_{'+'.join(ops)}_{seed.name}".removesuffix(".gz")
        p.write_text(json.dumps(doc))
    else:
        seed = rng.choice(_pool(seeds, names, _CSV))
        got = _csv_rows(seed)
        if got is None:
            return None
        rows, pre = got
        ops = rng.sample(CSV_SEM, 2)
        for op in ops:
            csv_fault(rng, rows, op)
        p = work / f"in{i}_{'+'.join(ops)}_{seed.name}"
        _write_csv(p, rows, pre)
    # two time bases in one file: a ts-0 placeholder beside them is judged against the whole extent (kept)
    _EXPECT.update(op="+".join(ops), at_most=None if "clock_mixed" in ops else _kernels(seed))
    return p, seed


def names_escape(rng, seeds, names, work: Path, i: int):
    name = rng.choice(ESCAPE_NAMES)
    if rng.random() < 0.6:
        got = _json_seed(rng, seeds, names)
        if got is None:
            return None
        seed, doc, ev = got
        k = [e for e in _kineto_kernels(ev) if not str(e.get("name", "")).startswith(("Memcpy", "Memset"))]
        if not k:  # (a copy written as a kernel is read as a copy by its name: renamed, it becomes a kernel)
            return None
        for e in rng.sample(k, min(len(k), rng.choice([1, 3]))):
            e["name"] = name
        p = work / f"in{i}_esc_{seed.name}".removesuffix(".gz")
        p.write_text(json.dumps(doc))
    else:
        seed = rng.choice(_pool(seeds, names, ("rocprofv3_csv", "rocprof_v1", "case_B05b.kernel_trace.csv")))
        got = _csv_rows(seed)
        if got is None:
            return None
        rows, pre = got
        c = _col(rows[0], "kernel_name", "kernelname", "name")
        if c is None:
            return None
        for r in rng.sample(rows[1:], min(len(rows) - 1, 2)):
            if c < len(r):
                r[c] = name
        p = work / f"in{i}_esc_{seed.name}"
        _write_csv(p, rows, pre)
    _EXPECT.update(op="escape", escape=name, kernels=_kernels(seed))
    return p, seed


def one_event(rng, seeds, names, work: Path, i: int):
    fmt = rng.choice(["kineto", "kineto_memcpy", "v3csv", "v1csv", "nsys_stats", "sqlite"])
    p = work / f"in{i}_one_{fmt}"
    if fmt.startswith("kineto"):
        cat = "kernel" if fmt == "kineto" else "gpu_memcpy"
        ev = [{"ph": "X", "cat": cat, "name": "only" if cat == "kernel" else "Memcpy HtoD (Pageable -> Device)",
               "pid": 0, "tid": 7, "ts": rng.choice([0, 1, 1_700_000_000_000]), "dur": rng.choice([0, 1, 12.5]),
               "args": {"device": 0, "stream": 7, "correlation": 1, "grid": [1, 1, 1], "block": [32, 1, 1],
                        "bytes": 4096}}]
        p = p.with_name(p.name + ".pt.trace.json")
        p.write_text(json.dumps({"traceEvents": ev}))
        seed = p
    elif fmt == "sqlite":
        from tests.fuzz_s36 import _sql_mutant

        seed = rng.choice(_nsys_seeds(seeds, names))
        keep = f"DELETE FROM {_K} WHERE rowid <> (SELECT min(rowid) FROM {_K})"
        made = _sql_mutant(seed, p.with_name(p.name + ".sqlite"), keep, "one", False)
        if made is None:
            return None
        p = made[0]
    else:
        key = {"v3csv": "rocprofv3_csv", "v1csv": "rocprof_v1", "nsys_stats": "nsys_stats"}[fmt]
        seed = seeds.get(key)
        if seed is None:
            return None
        got = _csv_rows(seed)
        if got is None:
            return None
        rows, pre = got
        p = p.with_name(p.name + "_" + seed.name)
        _write_csv(p, rows[:2], pre)
    gpu = ("kernel", "comm") + (("memcpy",) if fmt == "kineto_memcpy" else ())  # an nsys seed keeps its copies
    _EXPECT.update(op="one", at_most=1 if fmt != "nsys_stats" else None, kinds=gpu)
    return p, seed


CLI_EDGES = ["window_reversed", "window_empty", "window_past", "window_neg", "steps_none", "ranks_none", "top0",
             "spec_unknown", "workers_huge", "diff_ns_us", "diff_one_empty"]


def cli_edge(rng, seeds, names, work: Path, i: int):
    seed = seeds[rng.choice([n for n in names if n in ("kineto", "kineto_b12", "rocprofv3_csv", "nsys_sqlite",
                                                       "rank_dir", "kineto_gz", "case_B13.json")])]
    p = work / f"in{i}_{seed.name}"
    (shutil.copytree if seed.is_dir() else shutil.copyfile)(seed, p)
    _EXPECT.update(op=rng.choice(CLI_EDGES))
    return p, seed


def rank_foreign(rng, seeds, names, work: Path, i: int):
    got = _json_seed(rng, seeds, [n for n in names if n in ("kineto", "kineto_b12", "case_B13.json")])
    if got is None:
        return None
    seed, doc, _ = got
    op = rng.choice(["world_other", "days_apart", "other_format", "no_dist"])
    d = work / f"in{i}_{op}"
    d.mkdir()
    for r in (0, 1):
        x = copy.deepcopy(doc)
        x["distributedInfo"] = {"rank": r, "world_size": 2, "backend": "nccl"}
        (d / f"rank{r}.pt.trace.json").write_text(json.dumps(x))
    x = copy.deepcopy(doc)
    if op == "world_other":
        x["distributedInfo"] = {"rank": 2, "world_size": 4, "backend": "nccl"}
    elif op == "days_apart":
        x["distributedInfo"] = {"rank": 2, "world_size": 2, "backend": "nccl"}
        for e in x["traceEvents"]:
            if isinstance(e, dict) and isinstance(e.get("ts"), (int, float)):
                e["ts"] += 3 * 86_400 * 10 ** 6
    elif op == "no_dist":
        x.pop("distributedInfo", None)
    if op == "other_format":
        shutil.copyfile(seeds["rocprofv3_csv"], d / "rank2_kernel_trace.csv")
    else:
        (d / "rank2.pt.trace.json").write_text(json.dumps(x))
    _EXPECT.update(op=op)
    return d, seed


#: name → (script text, the exit status ``gpulens profile`` must give)
FAILING_SCRIPTS = {
    "raise": ("raise ValueError('boom')\n", 4),
    "exit3": ("import sys\nsys.exit(3)\n", 3),
    "exit_msg": ("import sys\nsys.exit('bad input')\n", 1),
    "syntax": ("def f(:\n", 4),
    "os_exit0": ("import os\nos._exit(0)\n", 0),
    "os_exit7": ("import torch\nx = torch.ones(4) + 1\nimport os\nos._exit(7)\n", 7),
    "ctrl_c": ("raise KeyboardInterrupt\n", 130),
    "recursion": ("def f(n):\n    return f(n + 1)\nf(0)\n", 4),
    "nested_profiler": ("import torch\nwith torch.profiler.profile():\n    x = torch.ones(4) * 2\n", 0),
    "rm_out": ("import shutil, sys\nshutil.rmtree(sys.argv[1], ignore_errors=True)\n", None),
    "chdir": ("import os, tempfile\nos.chdir(tempfile.gettempdir())\n", 0),
}


def profile_fail(rng, seeds, names, work: Path, i: int):
    op = rng.choice(sorted(FAILING_SCRIPTS))
    p = work / f"in{i}_{op}.py"
    p.write_text(FAILING_SCRIPTS[op][0])
    _EXPECT.update(op=op, code=FAILING_SCRIPTS[op][1])
    return p, p


def _profile_check(path: Path, work: Path) -> str | None:
    import subprocess

    out = work / "prof_out"
    try:
        r = subprocess.run([sys.executable, "-m", "gpulens", "profile", "-q", "-o", str(out), str(path), str(out)],
                           capture_output=True, text=True, timeout=120, cwd=work)
    except subprocess.TimeoutExpired:
        return "profile: no end within 120 s"
    text = r.stdout + r.stderr
    want = _EXPECT["code"]
    if want is not None and r.returncode != want:
        return f"profile {_EXPECT['op']}: exit {r.returncode}, the script's status is {want}: {text[-300:]!r}"
    if r.returncode not in (0, 1, 2, 3, 4, 7, 130):
        return f"profile {_EXPECT['op']}: exit {r.returncode}: {text[-300:]!r}"
    if re.search(r'File "[^"]*(?:gpulens|runpy)[^"]*", line', text):
        return f"profile {_EXPECT['op']}: a traceback through gpulens's frames: {text[-400:]!r}"
    if r.returncode == 2:
        errs = [ln for ln in text.splitlines() if ln.startswith("gpulens: error")]
        return None if len(errs) == 1 else f"profile {_EXPECT['op']}: exit 2 without one error line: {text[-300:]!r}"
    if _EXPECT["op"] == "nested_profiler":  # torch runs one profiler: the script's own ends gpulens's (said)
        return None if "torch.profiler of its own" in text else f"profile nested_profiler: no word: {text[-300:]!r}"
    if _EXPECT["op"] != "rm_out" and not list(out.glob("*.report.json")):
        return f"profile {_EXPECT['op']}: exit {r.returncode} and no report: {text[-300:]!r}"
    return None


def make(rng: random.Random, seeds: dict[str, Path], names: list[str], work: Path, i: int, kind: str):
    """(mutant, seed) for ``kind``; None when ``kind`` does not apply to the drawn seed."""
    _EXPECT.clear()
    return {"sem_kineto": sem_kineto, "sem_csv": sem_csv, "sem_sqlite": sem_sqlite, "combo": combo,
            "names_escape": names_escape, "one_event": one_event, "cli_edge": cli_edge,
            "rank_foreign": rank_foreign, "profile_fail": profile_fail}[kind](rng, seeds, names, work, i)


# ---------------------------------------------------------------------------------------------------- checks
_RAW_ESCAPE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x9b]")


def md_table_widths(md: str) -> str | None:
    """The first Markdown table row whose cell count differs from its header's (unescaped ``|`` counted), else None."""
    cells = lambda ln: len(re.findall(r"(?<!\\)\|", ln))  # noqa: E731
    head = None
    for ln in md.splitlines():
        if ln.startswith("|"):
            if head is None:
                head = cells(ln)
            elif cells(ln) != head:
                return ln[:160]
        else:
            head = None
    return None


def report_check(path: Path, work: Path, extra: list[str] | None = None, cmd: str = "analyze") -> str | None:
    """``gpulens analyze PATH`` with the JSON, HTML and Markdown reports (and ``extra`` options): a documented exit,
    one error line on exit 2, the input unchanged, no raw escape on the console, Markdown tables of one width, no
    live ``<script>`` in the HTML, and the JSON report within tests/report_invariants.py."""
    from tests.fuzz_s8 import run_cli
    from tests.fuzz_s37_cli import _exit_check
    from tests.report_invariants import violations

    out = work / "o"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    before = _digest(path)
    args = ["analyze", str(path), "--no-cache", "--json", str(out / "r.json"), "--markdown", str(out / "r.md"),
            "--html", str(out / "r.html")] + (extra or [])
    code, text = run_cli(args)
    if _digest(path) != before:
        return f"the input was changed (exit {code})"
    bad = _exit_check(cmd, code, text, _EXPECT.get("op", "?"), False)
    if bad:
        return bad
    shown = "\n".join(ln for ln in text.splitlines() if not ln.startswith("gpulens: error"))
    m = _RAW_ESCAPE.search(shown)
    if m:
        at = m.start()
        return f"raw control character {m.group(0)!r} on the console: {shown[max(0, at - 60):at + 40]!r}"
    if code != 0:
        return None
    if (out / "r.md").exists():
        md = (out / "r.md").read_text()
        row = md_table_widths(md)
        if row:
            return f"markdown table row of another width: {row!r}"
        if _RAW_ESCAPE.search(md):
            return "raw control character in the Markdown report"
    if (out / "r.html").exists() and "<script>alert(1)" in (out / "r.html").read_text():
        return "a kernel name's <script> is live in the HTML report"
    if (out / "r.json").exists():
        doc = json.loads((out / "r.json").read_text())
        v = violations(doc)
        if v:
            return "report invariant: " + "; ".join(v[:3])
    return None


def _cli_edge_check(path: Path, work: Path) -> str | None:
    from tests.fuzz_s8 import run_cli
    from tests.fuzz_s37_cli import _exit_check

    o = _EXPECT["op"]
    opts = {"window_reversed": ["--window", "5ms:1ms"], "window_empty": ["--window", "1ms:1ms"],
            "window_past": ["--window", "1000s:2000s"], "window_neg": ["--window", "-5ms:-1ms"],
            "steps_none": ["--steps", "90000:90005"], "ranks_none": ["--ranks", "77"], "top0": ["--top", "0"],
            "spec_unknown": ["--device-spec", "RTX9999Z"], "workers_huge": ["--workers", "1000000"]}
    if o in opts:
        return report_check(path, work, opts[o])
    if o == "diff_ns_us":
        got = json_doc(path) if path.is_file() else None
        if got is None or not isinstance(got[0], dict):
            return None
        doc = got[0]
        ns = copy.deepcopy(doc)
        for e in ns.get("traceEvents") or []:
            if isinstance(e, dict):
                for k in ("ts", "dur"):
                    if isinstance(e.get(k), (int, float)):
                        e[k] = e[k] * 1000
        ns["displayTimeUnit"] = "ns"
        ns["traceTimeUnit"] = "ns"
        b = work / "ns.pt.trace.json"
        b.write_text(json.dumps(ns))
        a = path
    else:
        a, b = path, work / "empty.pt.trace.json"
        b.write_text('{"traceEvents": []}')
    before = (_digest(a), _digest(b))
    code, text = run_cli(["diff", str(a), str(b), "-q", "--json", str(work / "d.json"), "--markdown",
                          str(work / "d.md")])
    if (_digest(a), _digest(b)) != before:
        return f"{o}: a diff input was changed"
    bad = _exit_check("diff", code, text, o, False)
    if bad or code != 0:
        return bad
    md = (work / "d.md").read_text() if (work / "d.md").exists() else ""
    row = md_table_widths(md)
    return f"{o}: diff markdown table row of another width: {row!r}" if row else None


def _escape_check(path: Path) -> str | None:
    """The escape name is kept (the kernels the seed has are all read) — never dropped for its text."""
    import gpulens.collectors as col
    from gpulens.errors import GpulensError

    try:
        tl = col.collect(path, strict=False, cache=False)
    except GpulensError as exc:
        return f"escape name: refused ({str(exc)[:120]})"
    got = int(tl.events["kind"].astype(str).isin(["kernel", "comm"]).sum())
    want = _EXPECT.get("kernels")
    return None if want is None or got == want else f"escape name: {got} kernels read, the seed has {want}"


def _at_most(path: Path) -> str | None:
    import gpulens.collectors as col
    from gpulens.errors import GpulensError
    from tests.fuzz_s36 import at_most_check

    if _EXPECT.get("at_most") is None:
        return None
    try:
        tl = col.collect(path, strict=False, cache=False)
    except GpulensError:
        return None
    got = int(tl.events["kind"].astype(str).isin(list(_EXPECT.get("kinds", ("kernel", "comm")))).sum())
    return at_most_check(_EXPECT, got, bool(tl.meta.warnings))


def _one(kind: str, rng: random.Random, path: Path, work: Path, strict: bool, cli: bool) -> str | None:
    if kind == "cli_edge":
        return _cli_edge_check(path, work)
    if kind == "profile_fail":
        return _profile_check(path, work)
    what = check_kind(kind, {}, rng, path, work, strict, False)
    if what is not None and what.startswith("impossible figure: gpu_busy_ns") and "> span_ns" in what:
        what = None  # tests/fuzz_s9's busy ≤ wall span × listed devices: a source listing no device (rocprofv3 CSV)
        # with GPU events on two agents sums two GPUs' busy; busy ≤ Σ per-GPU spans is checked by report_check
    if what is None:
        what = report_check(path, work)
    if what is None and kind == "names_escape":
        what = _escape_check(path)
    if what is None:
        what = _at_most(path)
    return what


def main(argv: list[str] | None = None) -> int:
    return fuzzing.kind_campaign(argv, KINDS, make, _one, seed=38038, timeout=20.0)


if __name__ == "__main__":
    sys.exit(main())
