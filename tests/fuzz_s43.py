"""Session-43 fuzzing: mutation kinds no earlier fuzzer makes (tests/fuzzing.py, fuzz_more … fuzz_s42), on the seeds
of tests/fuzzing.py ``--extended`` plus the real nsys export and Nsight Compute pages of tests/data.

``python tests/fuzz_s43.py --seed S --count N --workdir DIR [--timeout 20] [--kinds a,b] [--only I]`` (run it from
a folder outside the repository, DIR under /tmp). Kinds (:data:`KINDS`):

* ``ncu_units`` — an Nsight Compute details page (tests/data: B20 and the real RTX 5090 / RTX 5070 pages) whose
  every (``Metric Unit``, ``Metric Value``) pair is re-written in another SI prefix of the same quantity
  (``usecond`` → ``msecond`` / ``nsecond`` / ``second``, ``Mbyte`` → ``Kbyte`` / ``Gbyte``, ``Gbyte/second`` →
  ``Mbyte/msecond``, ``Ghz`` → ``Mhz``), the value scaled to match and printed with thousands separators: a
  metamorphic check — every kernel duration and byte count read must equal the seed's (rel. 1e-4);
* ``nsys_columns`` — a column of an nsys export table (the real H200 export of tests/data, or the seed) or of an
  nvprof profile (tests/test_trust_s41_real.py's) dropped as
  another nsys version's layout would lack it, or an extra column added: a report within the invariants, the
  kernel count unchanged unless a timing column (``start`` / ``end``) was dropped, then a warning naming the table;
  a GPU table that gives no device must say so;
* ``kineto_semantics`` — a Kineto seed whose kernels get a pid that is text, ``dur`` 0 or negative, overlapping
  kernels on one stream, or one correlation id reused by every kernel: every kernel of the trace is read or counted
  in a warning (``negative duration``);
* ``v3_agents`` — a rocprofv3 folder whose ``agent_info.csv`` comes from another run (other node ids, another GPU,
  only a CPU row, no row): the kernels all read, and a dangling device said;
* ``spec_units`` — ``--device-spec`` files with unit strings (``"989 TFLOPS"``, ``"3.35 TB/s"``), in JSON, TOML and
  YAML: one error line naming the file and the figure's unit;
* ``deep_wide`` — time: ``traceEvents`` as 2·10^5 nested arrays, a CSV header of 2·10^5 columns, a valid event
  repeated 30,000 times: finishes (exit 0 or one error line) within the limit.

``analyze`` runs are checked with :func:`tests.fuzz_s38.report_check`. Every fault found by this campaign has its
regression in tests/test_trust_s43_fuzz.py.
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
import shutil
import sqlite3
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzzing  # noqa: E402
from tests.fuzz_s38 import _EXPECT, report_check  # noqa: E402

KINDS = ["ncu_units", "nsys_columns", "kineto_semantics", "v3_agents", "spec_units", "deep_wide"]
NVIDIA = HERE / "data" / "nvidia"
#: The real nsys export (nsys 2024.6, H200) of tests/data.
NSYS_REAL = NVIDIA / "fuser_h200_nsys2024.6_report1.sqlite"
NCU_PAGES = [HERE / "data" / "cases" / "B20.ncu_details_15col.csv", *sorted(NVIDIA.glob("*_details.csv")),
             *sorted(NVIDIA.glob("olajide_*.csv"))]
#: SI families of ncu units: unit → factor to the family's base (ns, bytes, Hz).
_FAMILIES = [{"nsecond": 1, "usecond": 1e3, "msecond": 1e6, "second": 1e9, "ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9},
             {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12},
             {"hz": 1, "Khz": 1e3, "Mhz": 1e6, "Ghz": 1e9}]
_PER = {"second": 1.0, "msecond": 1e-3, "usecond": 1e-6, "nsecond": 1e-9, "s": 1.0}
NSYS_TABLES = ["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL", "StringTable",
               "CUPTI_ACTIVITY_KIND_DEVICE", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_MEMCPY",
               "CUPTI_ACTIVITY_KIND_MEMSET", "NVTX_EVENTS", "TARGET_INFO_GPU", "StringIds", "META_DATA_EXPORT"]
KINETO_OPS = ["pid_text", "dur_zero", "dur_negative", "overlap", "corr_reused"]
AGENT_OPS = ["other_nodes", "other_gpu", "cpu_only", "header_only"]
SPEC_TEXT = {"memory_bandwidth": "3.35 TB/s", "matrix.bf16": "989 TFLOPS", "vector.fp32": "67 TFLOP/s",
             "clock_mhz": "1.98 GHz", "l2": "50 MB"}


# ---------------------------------------------------------------------------------------------------- ncu units
def _family(unit: str) -> dict | None:
    return next((f for f in _FAMILIES if unit in f), None)


def respell(unit: str, value: float, rng: random.Random) -> tuple[str, float]:
    """(unit, value) of the same quantity in another SI prefix (``Gbyte/second`` → ``Mbyte/msecond`` …)."""
    num, _, den = unit.partition("/")
    fam = _family(num)
    if fam is None or (den and fam is _FAMILIES[0]):
        return unit, value
    new = rng.choice(sorted(fam))
    v = value * fam[num] / fam[new]
    if den in _PER:  # a rate: per another time unit
        d2 = rng.choice(["second", "msecond", "usecond", "nsecond"])
        return f"{new}/{d2}", v * _PER[d2] / _PER[den]
    return (f"{new}/{den}" if den else new), v


def _print(v: float, rng: random.Random) -> str:
    s = f"{v:.15g}"
    if "e" in s:
        s = f"{v:.18f}".rstrip("0").rstrip(".")
    if abs(v) >= 1000 and rng.random() < 0.6:
        whole, _, frac = f"{v:.9f}".partition(".")
        s = f"{int(whole):,}.{frac}".rstrip("0").rstrip(".")
    return s


def ncu_page(text: str, rng: random.Random) -> str:
    """``text`` (an ncu details page) with every unit re-spelled (:func:`respell`)."""
    lines = text.splitlines(True)
    at = next(j for j, ln in enumerate(lines) if ln.startswith('"ID"'))
    rows = list(csv.reader(io.StringIO("".join(lines[at:]))))
    ju, jv = rows[0].index("Metric Unit"), rows[0].index("Metric Value")
    for r in rows[1:]:
        if len(r) <= jv:
            continue
        try:
            value = float(r[jv].replace(",", ""))
        except ValueError:
            continue
        unit, v = respell(r[ju], value, rng)
        if unit != r[ju]:
            r[ju], r[jv] = unit, _print(v, rng)
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    return "".join(lines[:at]) + out.getvalue()


def ncu_units(rng, seeds, names, work: Path, i: int):
    src = rng.choice(NCU_PAGES)
    p = work / src.name
    p.write_text(ncu_page(src.read_text(encoding="utf-8-sig"), rng))
    _EXPECT["op"] = f"{src.name}: units re-spelled"
    return p, src


def kernel_facts(path: Path) -> tuple[list[float], list[float]]:
    """(durations, bytes) of the kernels ``path`` gives, in name/start order."""
    from gpulens.collectors import collect

    ev = collect(path).events
    k = ev[ev["kind"] == "kernel"].sort_values(["name", "start_ns"])
    return list(k["dur_ns"].astype(float)), list(k["bytes"].astype(float))


def _same(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and all((x != x and y != y) or math.isclose(x, y, rel_tol=1e-4, abs_tol=1e-3)
                                    for x, y in zip(a, b))


# ---------------------------------------------------------------------------------------------------- nsys columns
def _nvprof_seed(work: Path) -> Path:
    """nvprof's profile of tests/test_trust_s41_real.py (T4 vectorAdd), built once beside the campaign's work."""
    from tests.test_trust_s41_real import nvprof_db

    p = work.parent / "nvprof_seed" / "app.nvvp"
    if not p.exists():
        p.parent.mkdir(exist_ok=True)
        nvprof_db(p)
    return p


def nsys_columns(rng, seeds, names, work: Path, i: int):
    src = rng.choice([NSYS_REAL, seeds["nsys_sqlite"], _nvprof_seed(work)])
    p = work / src.name
    shutil.copyfile(src, p)
    con = sqlite3.connect(p)
    try:
        tables = [t for t in NSYS_TABLES if con.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (t,)).fetchone()]
        t = rng.choice(tables)
        cols = [r[1] for r in con.execute(f'PRAGMA table_info("{t}")')]
        if rng.random() < 0.2:
            op = "extra column"
            con.execute(f'ALTER TABLE "{t}" ADD COLUMN "futureField" {rng.choice(["TEXT", "INT", "REAL"])} DEFAULT 7')
        else:
            c = rng.choice(cols)
            op = f"drop {c}"
            con.execute(f'ALTER TABLE "{t}" DROP COLUMN "{c}"')
        con.commit()
    except sqlite3.Error:
        return None
    finally:
        con.close()
    _EXPECT["op"] = f"{src.name}: {t}: {op}"
    _EXPECT["nsys"] = (src, t, op)
    return p, src


_KERNEL_TABLES = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL")


def _nsys_check(path: Path, work: Path, o: str) -> str | None:
    from gpulens.collectors import collect
    from gpulens.errors import GpulensError

    src, table, op = _EXPECT["nsys"]
    try:
        got = collect(path)
    except GpulensError:
        return None  # refused with one line: report_check has seen its exit
    want = collect(src)
    # kernels and collectives: a collective named nccl… is a kernel once its name is unknown (StringIds cut)
    n_got, n_want = (int(t.events["kind"].isin(["kernel", "comm"]).sum()) for t in (got, want))
    if table in _KERNEL_TABLES and op in ("drop start", "drop end"):
        if not any(table in w for w in got.meta.warnings):
            return f"{o}: the kernel table's rows were not read and no warning names {table}"
        return None
    if n_got != n_want and table in _KERNEL_TABLES + ("StringIds", "META_DATA_EXPORT", "TARGET_INFO_GPU"):
        return f"{o}: {n_got} kernels read, the export holds {n_want}"
    if want.meta.devices and not got.meta.devices and not any("TARGET_INFO_GPU" in w for w in got.meta.warnings):
        return f"{o}: the GPU table gave no device and no warning says so"
    return None


# ---------------------------------------------------------------------------------------------------- Kineto
def kineto_semantics(rng, seeds, names, work: Path, i: int):
    src = seeds[rng.choice(["kineto", "kineto_b12"])]
    doc = json.loads(src.read_text())
    ks = [e for e in doc["traceEvents"] if isinstance(e, dict) and e.get("cat") == "kernel"
          and not str(e.get("name")).startswith(("Memcpy", "Memset"))]  # B12's copies filed as kernels are copies
    if not ks:
        return None
    op = rng.choice(KINETO_OPS)
    neg = 0
    for j, e in enumerate(ks):
        if op == "pid_text":
            e["pid"] = rng.choice(["GPU 0", "0", "gpu:0", ""])
        elif op == "dur_zero" and j % 2 == 0:
            e["dur"] = 0
        elif op == "dur_negative" and j % 2 == 0:
            e["dur"] = -abs(e.get("dur", 1) or 1)
            neg += 1
        elif op == "overlap" and j:
            e["ts"] = ks[0]["ts"] + j
        elif op == "corr_reused":
            e.setdefault("args", {})["correlation"] = 7
    p = work / src.name
    p.write_text(json.dumps(doc))
    _EXPECT["op"] = f"{src.name}: {op}"
    _EXPECT["kineto"] = (len(ks), neg)
    return p, src


def _kineto_check(path: Path, o: str) -> str | None:
    from gpulens.collectors import collect

    total, neg = _EXPECT["kineto"]
    tl = collect(path, strict=False)
    n = int((tl.events["kind"] == "kernel").sum())
    said = sum(int(w.rsplit("×", 1)[1].split()[0]) for w in tl.meta.warnings
               if "negative duration" in w and "×" in w)
    if n != total - neg or said != neg:
        return f"{o}: {n} kernels read + {said} counted as dropped, the trace holds {total} ({neg} negative)"
    return None


# ---------------------------------------------------------------------------------------------------- rocprofv3 agents
def v3_agents(rng, seeds, names, work: Path, i: int):
    from tests.test_trust_s40_real import AGENT_CPU, AGENT_GPU, AGENT_HEADER, KTRACE

    op = rng.choice(AGENT_OPS)
    d = work / "v3run"
    d.mkdir()
    gpu = AGENT_GPU.format(n=1, simd=1, dom=0, drm=128, gpu=1)
    agents = {"other_nodes": [AGENT_HEADER, AGENT_CPU, gpu],
              "other_gpu": [AGENT_HEADER, AGENT_CPU, gpu.replace("MI300A", "MI250X").replace("gfx942", "gfx90a")],
              "cpu_only": [AGENT_HEADER, AGENT_CPU], "header_only": [AGENT_HEADER]}[op]
    (d / "3091_agent_info.csv").write_text("\n".join(agents) + "\n")
    (d / "3091_kernel_trace.csv").write_text(KTRACE)
    target = d if rng.random() < 0.5 else d / "3091_kernel_trace.csv"
    _EXPECT["op"] = f"rocprofv3 {target.name}: agent_info of another run ({op})"
    _EXPECT["v3"] = KTRACE.count("KERNEL_DISPATCH")
    return target, d


def _v3_check(path: Path, o: str) -> str | None:
    from gpulens.collectors import collect

    tl = collect(path)
    n = int((tl.events["kind"] == "kernel").sum())
    if n != _EXPECT["v3"]:
        return f"{o}: {n} kernels read, the trace holds {_EXPECT['v3']}"
    listed = {d.get("device_id") for d in tl.meta.devices if d.get("name")}
    used = set(tl.events.loc[tl.events["kind"] == "kernel", "device_id"].dropna().astype(int))
    if listed and used - listed and not any("dangling" in w or "not read" in w for w in tl.meta.warnings):
        return f"{o}: kernels on devices {sorted(used - listed)} that the agent file does not list, unsaid"
    return None


# ---------------------------------------------------------------------------------------------------- specs, time
def spec_units(rng, seeds, names, work: Path, i: int):
    key = rng.choice(sorted(SPEC_TEXT))
    fmt = rng.choice(["json", "toml", "yaml"])
    spec = {"name": "Test GPU", "compute_capability": "9.0", "num_sms": 132, "figures": {key: SPEC_TEXT[key]}}
    p = work / f"spec.{fmt}"
    if fmt == "json":
        p.write_text(json.dumps(spec))
    else:
        sep = " = " if fmt == "toml" else ": "
        q = (lambda v: json.dumps(v)) if fmt == "toml" else str
        head = "".join(f"{k}{sep}{q(spec[k])}\n" for k in ("name", "compute_capability", "num_sms"))
        p.write_text(head + ("[figures]\n" if fmt == "toml" else "figures:\n") +
                     (f'"{key}" = "{SPEC_TEXT[key]}"\n' if fmt == "toml" else f"  {key}: {SPEC_TEXT[key]}\n"))
    _EXPECT["op"] = f"--device-spec {p.name}: {key} = {SPEC_TEXT[key]!r}"
    _EXPECT["opts"] = ["--device-spec", str(p)]
    return seeds["kineto"], p


def deep_wide(rng, seeds, names, work: Path, i: int):
    op = rng.choice(["nested", "wide_csv", "repeated"])
    n = 200_000
    if op == "nested":
        p = work / "deep.json"
        p.write_text('{"traceEvents": ' + "[" * n + "]" * n + "}")
    elif op == "wide_csv":
        p = work / "1_kernel_trace.csv"
        head = '"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Start_Timestamp","End_Timestamp"'
        p.write_text(head + "," + ",".join(f"c{j}" for j in range(n)) + '\n"KERNEL_DISPATCH",1,1,1,"k",100,200\n')
    else:
        p = work / "rep.json"
        ev = json.dumps({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": "stream 7", "ts": 10,
                         "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 1}})
        p.write_text('{"traceEvents": [' + ",".join([ev] * 30_000) + "]}")
    _EXPECT["op"] = f"time: {op}"
    return p, p


# ---------------------------------------------------------------------------------------------------- driver
def make(rng, seeds, names, work, i, kind):
    _EXPECT.clear()
    return globals()[kind](rng, seeds, names, work, i)


def _one(kind: str, rng: random.Random, path: Path, work: Path, strict: bool, cli: bool) -> str | None:
    o = _EXPECT.get("op", "?")
    if kind == "ncu_units":
        src = next(p for p in NCU_PAGES if p.name == path.name)
        (d0, b0), (d1, b1) = kernel_facts(src), kernel_facts(path)
        if not _same(d0, d1) or not _same(b0, b1):
            return f"{o}: durations {d0[:3]} -> {d1[:3]}, bytes {b0[:3]} -> {b1[:3]}"
    extra = ([] if strict else ["--lenient"]) + list(_EXPECT.get("opts", []))
    what = report_check(path, work, extra)
    if what:
        return f"{o}: {what}"
    if kind == "spec_units":
        from tests.fuzz_s8 import run_cli

        code, text = run_cli(["analyze", str(path), "-q", "--no-cache", *extra])
        unit = {"memory_bandwidth": "GB/s", "clock_mhz": "MHz", "l2": "MiB"}.get(o.split(": ")[1].split(" =")[0],
                                                                                  "TFLOPS")
        if code != 2 or Path(extra[-1]).name not in text or (unit not in text and "YAML" not in text):
            return f"{o}: exit {code}, not one line naming the file and the unit {unit}: {text.strip()[-200:]!r}"
    if kind == "nsys_columns":
        return _nsys_check(path, work, o)
    if kind == "kineto_semantics":
        return _kineto_check(path, o)
    if kind == "v3_agents":
        return _v3_check(path, o)
    return None


def main(argv: list[str] | None = None) -> int:
    return fuzzing.kind_campaign(argv, KINDS, make, _one, seed=43043, timeout=20.0)


if __name__ == "__main__":
    sys.exit(main())
